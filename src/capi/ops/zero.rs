//! `aclnnop/aclnn_zero.h`: InplaceZero.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::copy;
use std::ffi::c_void;

/// Phase 1 of filling selfRef with zeros.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceZeroGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceZeroGetWorkspaceSize",
            workspaceSize,
            executor,
            || copy::inplace_zero(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceZero: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceZero(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceZero",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
