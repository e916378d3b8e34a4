//! `aclnnop/aclnn_round.h`: Round, InplaceRound.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of rounding half to even; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnRoundGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnRoundGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::round(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of Round: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnRound(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnRound", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Round.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceRoundGetWorkspaceSize(
    selfRef: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceRoundGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_round(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceRound: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceRound(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceRound",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
