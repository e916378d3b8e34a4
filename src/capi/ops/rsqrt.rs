//! `aclnnop/aclnn_rsqrt.h`: Rsqrt, InplaceRsqrt.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = 1/√self`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnRsqrtGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnRsqrtGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::rsqrt(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of Rsqrt: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnRsqrt(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnRsqrt", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Rsqrt.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceRsqrtGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceRsqrtGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_rsqrt(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceRsqrt: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceRsqrt(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceRsqrt",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
