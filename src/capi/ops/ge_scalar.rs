//! `aclnnop/aclnn_ge_scalar.h`: GeScalar, InplaceGeScalar — `out = self >= other` with a scalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::compare::{self, Relation};
use std::ffi::c_void;

/// Phase 1 of the comparison with a scalar `other` (tensor-scalar promotion).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnGeScalarGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnGeScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnGeScalar",
                    Relation::Ge,
                    tensor(self_, "self")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of GeScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnGeScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnGeScalar", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = (selfRef >= other)` as 1/0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceGeScalarGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceGeScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                compare::compare(
                    "aclnnInplaceGeScalar",
                    Relation::Ge,
                    tensor(selfRef, "selfRef")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceGeScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceGeScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceGeScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
