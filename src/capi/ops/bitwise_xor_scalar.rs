//! `aclnnop/aclnn_bitwise_xor_scalar.h`: BitwiseXorScalar, InplaceBitwiseXorScalar.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::bitwise::{self, Bitwise};
use std::ffi::c_void;

/// Phase 1 of bitwise xor with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseXorScalarGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseXorScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnBitwiseXorScalar",
                    Bitwise::Xor,
                    tensor(self_, "self")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of BitwiseXorScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseXorScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseXorScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place bitwise xor with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBitwiseXorScalarGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBitwiseXorScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnInplaceBitwiseXorScalar",
                    Bitwise::Xor,
                    tensor(selfRef, "selfRef")?,
                    Operand::Scalar("other", &scalar(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBitwiseXorScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBitwiseXorScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBitwiseXorScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
