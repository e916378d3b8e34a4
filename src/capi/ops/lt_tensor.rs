//! `aclnnop/aclnn_lt_tensor.h`: LtTensor, InplaceLtTensor — `out = self < other`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of `out = (self < other)` as 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLtTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLtTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnLtTensor",
                    Relation::Lt,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LtTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLtTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnLtTensor", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef < other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLtTensorGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLtTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceLtTensor",
                    Relation::Lt,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceLtTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLtTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLtTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
