//! `aclnnop/aclnn_bitwise_or_tensor.h`: BitwiseOrTensor, InplaceBitwiseOrTensor.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::bitwise::{self, Bitwise};
use std::ffi::c_void;

/// Phase 1 of bitwise or (logical or for bool).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseOrTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseOrTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnBitwiseOrTensor",
                    Bitwise::Or,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of BitwiseOrTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseOrTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseOrTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place bitwise or.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBitwiseOrTensorGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBitwiseOrTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnInplaceBitwiseOrTensor",
                    Bitwise::Or,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBitwiseOrTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBitwiseOrTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBitwiseOrTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
