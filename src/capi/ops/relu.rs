//! `aclnnop/aclnn_relu.h`: Relu, InplaceRelu.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = max(self, 0)`; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnReluGetWorkspaceSize(
    self_: *const aclTensor,
    out: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnReluGetWorkspaceSize", workspaceSize, executor, || {
            math::relu(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Relu: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnRelu(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnRelu", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Relu.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceReluGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceReluGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_relu(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceRelu: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceRelu(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceRelu",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
