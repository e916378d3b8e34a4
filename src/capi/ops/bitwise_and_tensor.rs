//! `aclnnop/aclnn_bitwise_and_tensor.h`: BitwiseAndTensor, InplaceBitwiseAndTensor.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::binary::Operand;
use crate::ops::bitwise::{self, Bitwise};
use std::ffi::c_void;

/// Phase 1 of bitwise and (logical and for bool).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseAndTensorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseAndTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnBitwiseAndTensor",
                    Bitwise::And,
                    tensor(self_, "self")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of BitwiseAndTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseAndTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseAndTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place bitwise and.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBitwiseAndTensorGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBitwiseAndTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                bitwise::bitwise(
                    "aclnnInplaceBitwiseAndTensor",
                    Bitwise::And,
                    tensor(selfRef, "selfRef")?,
                    Operand::Tensor("other", tensor(other, "other")?),
                    None,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBitwiseAndTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBitwiseAndTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBitwiseAndTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
