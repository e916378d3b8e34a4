//! `aclnnop/aclnn_sin.h`: Sin, InplaceSin.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = sin(self)` (integers compute in f32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSinGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSinGetWorkspaceSize", workspaceSize, executor, || {
            math::sin(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Sin: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSin(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSin", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Sin.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceSinGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceSinGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_sin(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceSin: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceSin(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceSin",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
