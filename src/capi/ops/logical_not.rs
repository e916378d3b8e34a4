//! `aclnnop/aclnn_logical_not.h`: LogicalNot, InplaceLogicalNot.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::logical;
use std::ffi::c_void;

/// Phase 1 of `out = !self` (non-zero is true), 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogicalNotGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLogicalNotGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::not(
                    "aclnnLogicalNot",
                    tensor(self_, "self")?,
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LogicalNot: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLogicalNot(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnLogicalNot",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef = !selfRef`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLogicalNotGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLogicalNotGetWorkspaceSize",
            workspaceSize,
            executor,
            || logical::not("aclnnInplaceLogicalNot", tensor(selfRef, "selfRef")?, None),
        )
    }
}

/// Phase 2 of InplaceLogicalNot: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLogicalNot(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLogicalNot",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
