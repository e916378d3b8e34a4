//! `aclnnop/aclnn_bitwise_and_scalar.h`: BitwiseAndScalar, InplaceBitwiseAndScalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::bitwise::{self, Bitwise};
use std::ffi::c_void;

/// Phase 1 of bitwise and with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseAndScalarGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseAndScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnBitwiseAndScalar",
                    Bitwise::And,
                    tensor(self_, "self")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of BitwiseAndScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseAndScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseAndScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place bitwise and with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBitwiseAndScalarGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBitwiseAndScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnInplaceBitwiseAndScalar",
                    Bitwise::And,
                    tensor(selfRef, "selfRef")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBitwiseAndScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBitwiseAndScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBitwiseAndScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
