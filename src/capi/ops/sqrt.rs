//! `aclnnop/aclnn_sqrt.h`: Sqrt, InplaceSqrt.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = √self`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSqrtGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSqrtGetWorkspaceSize", workspaceSize, executor, || {
            math::sqrt(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Sqrt: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSqrt(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSqrt", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Sqrt.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceSqrtGetWorkspaceSize(
    self_: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceSqrtGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_sqrt(tensor(self_, "self")?),
        )
    }
}

/// Phase 2 of InplaceSqrt: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceSqrt(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceSqrt",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
