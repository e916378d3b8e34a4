//! `aclnnop/aclnn_pow.h`: PowTensorScalar, InplacePowTensorScalar, PowScalarTensor.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::pow;
use std::ffi::c_void;

/// Phase 1 of `out = self ^ exponent` with a scalar exponent (>= 0 for integral results).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnPowTensorScalarGetWorkspaceSize(
    self_: *const aclTensor,
    exponent: *const aclScalar,
    out: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnPowTensorScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                pow::pow_tensor_scalar(
                    tensor(self_, "self")?,
                    &scalar(exponent, "exponent")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of PowTensorScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnPowTensorScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnPowTensorScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `self = self ^ exponent` with a scalar exponent.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplacePowTensorScalarGetWorkspaceSize(
    self_: *const aclTensor,
    exponent: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplacePowTensorScalarGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                pow::inplace_pow_tensor_scalar(
                    tensor(self_, "self")?,
                    &scalar(exponent, "exponent")?,
                )
            },
        )
    }
}

/// Phase 2 of InplacePowTensorScalar: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplacePowTensorScalar(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplacePowTensorScalar",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `out = self ^ exponent` with a scalar base.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnPowScalarTensorGetWorkspaceSize(
    self_: *const aclScalar,
    exponent: *const aclTensor,
    out: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnPowScalarTensorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                pow::pow_scalar_tensor(
                    &scalar(self_, "self")?,
                    tensor(exponent, "exponent")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of PowScalarTensor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnPowScalarTensor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnPowScalarTensor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
