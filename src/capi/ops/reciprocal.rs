//! `aclnnop/aclnn_reciprocal.h`: Reciprocal, InplaceReciprocal.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = 1/self`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnReciprocalGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnReciprocalGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::reciprocal(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of Reciprocal: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnReciprocal(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnReciprocal",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of the in-place Reciprocal.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceReciprocalGetWorkspaceSize(
    selfRef: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceReciprocalGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_reciprocal(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceReciprocal: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceReciprocal(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceReciprocal",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
