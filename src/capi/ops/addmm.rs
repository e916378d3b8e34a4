//! `aclnnop/aclnn_addmm.h`: Addmm, InplaceAddmm — `out = beta*self + alpha*(mat1@mat2)`.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of `out = beta*self + alpha*(mat1@mat2)`; self broadcasts to (m,n) one way; beta = 0 does not read self.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAddmmGetWorkspaceSize(
    self_: *const aclTensor,
    mat1: *const aclTensor,
    mat2: *const aclTensor,
    beta: *const aclScalar,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnAddmmGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::addmm(
                    tensor(self_, "self")?,
                    tensor(mat1, "mat1")?,
                    tensor(mat2, "mat2")?,
                    &scalar(beta, "beta")?,
                    &scalar(alpha, "alpha")?,
                    tensor(out, "out")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of Addmm: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAddmm(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAddmm", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = beta*selfRef + alpha*(mat1@mat2)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceAddmmGetWorkspaceSize(
    selfRef: *const aclTensor,
    mat1: *const aclTensor,
    mat2: *const aclTensor,
    beta: *const aclScalar,
    alpha: *const aclScalar,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceAddmmGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::inplace_addmm(
                    tensor(selfRef, "selfRef")?,
                    tensor(mat1, "mat1")?,
                    tensor(mat2, "mat2")?,
                    &scalar(beta, "beta")?,
                    &scalar(alpha, "alpha")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of InplaceAddmm: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceAddmm(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceAddmm",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
