//! `aclnnop/aclnn_exp.h`: Exp, InplaceExp.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = e^self`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnExpGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnExpGetWorkspaceSize", workspaceSize, executor, || {
            math::exp(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Exp: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnExp(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnExp", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Exp.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceExpGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceExpGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_exp(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceExp: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceExp(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceExp",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
