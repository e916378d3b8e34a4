//! `aclnnop/aclnn_logical_or.h`: LogicalOr, InplaceLogicalOr — truth values combined with or.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::logical::{self, Connective};
use std::ffi::c_void;

/// Phase 1 of `out = self or other` (non-zero is true), 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogicalOrGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLogicalOrGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::binary(
                    "aclnnLogicalOr",
                    Connective::Or,
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LogicalOr: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLogicalOr(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnLogicalOr", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = selfRef or other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLogicalOrGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLogicalOrGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::binary(
                    "aclnnInplaceLogicalOr",
                    Connective::Or,
                    tensor(selfRef, "selfRef")?,
                    tensor(other, "other")?,
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceLogicalOr: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLogicalOr(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLogicalOr",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
