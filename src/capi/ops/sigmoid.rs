//! `aclnnop/aclnn_sigmoid.h`: Sigmoid, InplaceSigmoid.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = 1/(1+e^-self)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSigmoidGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnSigmoidGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::sigmoid(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of Sigmoid: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSigmoid(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSigmoid", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Sigmoid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceSigmoidGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceSigmoidGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_sigmoid(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceSigmoid: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceSigmoid(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceSigmoid",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
