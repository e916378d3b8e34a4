//! `aclnnop/aclnn_neg.h`: Neg, InplaceNeg.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = -self` (integers wrap).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnNegGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnNegGetWorkspaceSize", workspaceSize, executor, || {
            math::neg(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Neg: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnNeg(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnNeg", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Neg.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceNegGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceNegGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_neg(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceNeg: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceNeg(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceNeg",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
