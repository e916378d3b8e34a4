//! `aclnnop/aclnn_batch_matmul.h`: BatchMatMul — batched `out = self @ mat2`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of (b,m,k)@(b,k,n), a batch of 1 broadcasting.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBatchMatMulGetWorkspaceSize(
    self_: *const aclTensor,
    mat2: *const aclTensor,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBatchMatMulGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::batch_matmul(
                    tensor(self_, "self")?,
                    tensor(mat2, "mat2")?,
                    tensor(out, "out")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of BatchMatMul: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBatchMatMul(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBatchMatMul",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
