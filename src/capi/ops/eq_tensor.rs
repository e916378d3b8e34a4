//! `aclnnop/aclnn_eq_tensor.h`: EqTensor, InplaceEqTensor — `out = self == other`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of `out = (self == other)` as 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnEqTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnEqTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnEqTensor",
                    Relation::Eq,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of EqTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnEqTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnEqTensor", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef == other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceEqTensorGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceEqTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceEqTensor",
                    Relation::Eq,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceEqTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceEqTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceEqTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
