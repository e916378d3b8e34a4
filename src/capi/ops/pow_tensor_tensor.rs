//! `aclnnop/aclnn_pow_tensor_tensor.h`: PowTensorTensor, InplacePowTensorTensor — `out = self ^ exponent`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::pow;
use std::ffi::c_void;

/// Phase 1 of `out = self ^ exponent` (not both bool).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnPowTensorTensorGetWorkspaceSize(
    self_: *const aclTensor,
    exponent: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnPowTensorTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                pow::pow_tensor_tensor(
                    tensor(self_, "self")?,
                    tensor(exponent, "exponent")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of PowTensorTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnPowTensorTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnPowTensorTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `self = self ^ exponent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplacePowTensorTensorGetWorkspaceSize(
    self_: *const aclTensor,
    exponent: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplacePowTensorTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                pow::inplace_pow_tensor_tensor(
                    tensor(self_, "self")?,
                    tensor(exponent, "exponent")?,
                )
            },
        )
    }
}

/// Phase 2 of InplacePowTensorTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplacePowTensorTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplacePowTensorTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
