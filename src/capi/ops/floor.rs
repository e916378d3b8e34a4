//! `aclnnop/aclnn_floor.h`: Floor, InplaceFloor.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = ⌊self⌋`; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnFloorGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnFloorGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::floor(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of Floor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnFloor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnFloor", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Floor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceFloorGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceFloorGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_floor(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceFloor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceFloor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceFloor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
