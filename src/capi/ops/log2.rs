//! `aclnnop/aclnn_log2.h`: Log2, InplaceLog2.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = log2(self)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLog2GetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnLog2GetWorkspaceSize", workspaceSize, executor, || {
            math::log2(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Log2: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLog2(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnLog2", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Log2.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLog2GetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLog2GetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_log2(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceLog2: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLog2(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLog2",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
