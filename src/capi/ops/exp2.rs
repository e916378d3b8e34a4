//! `aclnnop/aclnn_exp2.h`: Exp2, InplaceExp2.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = 2^self`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnExp2GetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnExp2GetWorkspaceSize", workspaceSize, executor, || {
            math::exp2(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Exp2: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnExp2(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnExp2", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Exp2.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceExp2GetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceExp2GetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_exp2(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceExp2: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceExp2(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceExp2",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
