//! `aclnnop/aclnn_gt_tensor.h`: GtTensor, InplaceGtTensor — `out = self > other`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of `out = (self > other)` as 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnGtTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnGtTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnGtTensor",
                    Relation::Gt,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of GtTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnGtTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnGtTensor", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef > other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceGtTensorGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceGtTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceGtTensor",
                    Relation::Gt,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceGtTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceGtTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceGtTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
