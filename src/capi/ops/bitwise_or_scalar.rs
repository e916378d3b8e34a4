//! `aclnnop/aclnn_bitwise_or_scalar.h`: BitwiseOrScalar, InplaceBitwiseOrScalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::bitwise::{self, Bitwise};
use std::ffi::c_void;

/// Phase 1 of bitwise or with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseOrScalarGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseOrScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnBitwiseOrScalar",
                    Bitwise::Or,
                    tensor(self_, "self")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of BitwiseOrScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseOrScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseOrScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place bitwise or with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBitwiseOrScalarGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBitwiseOrScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnInplaceBitwiseOrScalar",
                    Bitwise::Or,
                    tensor(selfRef, "selfRef")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBitwiseOrScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBitwiseOrScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBitwiseOrScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
