//! `aclnnop/aclnn_fill_scalar.h`: InplaceFillScalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::copy;
use std::ffi::c_void;

/// Phase 1 of filling selfRef with `value` converted to its dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceFillScalarGetWorkspaceSize(
    selfRef: *mut aclTensor,
    value: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceFillScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || copy::inplace_fill_scalar(tensor(selfRef, "selfRef")?, &scalar(value, "value")?),
        )
    }
}

/// Phase 2 of InplaceFillScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceFillScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceFillScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
