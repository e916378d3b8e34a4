//! `aclnnop/aclnn_tanh.h`: Tanh, InplaceTanh.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = tanh(self)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnTanhGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnTanhGetWorkspaceSize", workspaceSize, executor, || {
            math::tanh(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Tanh: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnTanh(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnTanh", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Tanh.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceTanhGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceTanhGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_tanh(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceTanh: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceTanh(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceTanh",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
