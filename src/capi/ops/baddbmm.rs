//! `aclnnop/aclnn_baddbmm.h`: Baddbmm, InplaceBaddbmm — `out = beta*self + alpha*(batch1@batch2)`.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of `out = beta*self + alpha*(batch1@batch2)`; self broadcasts to (b,n,p) one way; beta = 0 does not read self.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBaddbmmGetWorkspaceSize(
    self_: *const aclTensor,
    batch1: *const aclTensor,
    batch2: *const aclTensor,
    beta: *const aclScalar,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBaddbmmGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::baddbmm(
                    tensor(self_, "self")?,
                    tensor(batch1, "batch1")?,
                    tensor(batch2, "batch2")?,
                    &scalar(beta, "beta")?,
                    &scalar(alpha, "alpha")?,
                    tensor(out, "out")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of Baddbmm: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBaddbmm(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnBaddbmm", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef = beta*selfRef + alpha*(batch1@batch2)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceBaddbmmGetWorkspaceSize(
    selfRef: *const aclTensor,
    batch1: *const aclTensor,
    batch2: *const aclTensor,
    beta: *const aclScalar,
    alpha: *const aclScalar,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceBaddbmmGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::inplace_baddbmm(
                    tensor(selfRef, "selfRef")?,
                    tensor(batch1, "batch1")?,
                    tensor(batch2, "batch2")?,
                    &scalar(beta, "beta")?,
                    &scalar(alpha, "alpha")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of InplaceBaddbmm: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceBaddbmm(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceBaddbmm",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
