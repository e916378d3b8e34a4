//! `aclnnop/aclnn_ne_tensor.h`: NeTensor, InplaceNeTensor — `out = self != other`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of `out = (self != other)` as 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnNeTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnNeTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnNeTensor",
                    Relation::Ne,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of NeTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnNeTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnNeTensor", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef != other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceNeTensorGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceNeTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceNeTensor",
                    Relation::Ne,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceNeTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceNeTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceNeTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
