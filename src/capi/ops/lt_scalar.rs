//! `aclnnop/aclnn_lt_scalar.h`: LtScalar, InplaceLtScalar — `out = self < other` with a scalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of the comparison with a scalar `other` (tensor-scalar promotion).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLtScalarGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLtScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnLtScalar",
                    Relation::Lt,
                    tensor(self_, "self")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LtScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLtScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnLtScalar", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef < other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLtScalarGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLtScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceLtScalar",
                    Relation::Lt,
                    tensor(selfRef, "selfRef")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceLtScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLtScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLtScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
