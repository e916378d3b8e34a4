//! `aclnnop/aclnn_erf.h`: Erf, InplaceErf.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = erf(self)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnErfGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnErfGetWorkspaceSize", workspaceSize, executor, || {
            math::erf(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Erf: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnErf(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnErf", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Erf.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceErfGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceErfGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_erf(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceErf: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceErf(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceErf",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
