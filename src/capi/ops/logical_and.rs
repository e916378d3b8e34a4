//! `aclnnop/aclnn_logical_and.h`: LogicalAnd, InplaceLogicalAnd — truth values combined with and.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::logical::{self, Connective};
use std::ffi::c_void;

/// Phase 1 of `out = self and other` (non-zero is true), 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogicalAndGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLogicalAndGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::binary(
                    "aclnnLogicalAnd",
                    Connective::And,
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LogicalAnd: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLogicalAnd(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnLogicalAnd",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef = selfRef and other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLogicalAndGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLogicalAndGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::binary(
                    "aclnnInplaceLogicalAnd",
                    Connective::And,
                    tensor(selfRef, "selfRef")?,
                    tensor(other, "other")?,
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceLogicalAnd: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLogicalAnd(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLogicalAnd",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
