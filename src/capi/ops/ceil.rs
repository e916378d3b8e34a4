//! `aclnnop/aclnn_ceil.h`: Ceil, InplaceCeil.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = ⌈self⌉`; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCeilGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnCeilGetWorkspaceSize", workspaceSize, executor, || {
            math::ceil(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Ceil: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnCeil(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnCeil", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Ceil.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceCeilGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceCeilGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_ceil(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceCeil: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceCeil(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceCeil",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
