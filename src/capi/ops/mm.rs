//! `aclnnop/aclnn_mm.h`: Mm — `out = self @ mat2` for 2-D operands.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of the matrix product (m,k)@(k,n); f16/bf16 accumulate in f32; cubeMathType 0..4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMmGetWorkspaceSize(
    self_: *const aclTensor,
    mat2: *const aclTensor,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnMmGetWorkspaceSize", workspaceSize, executor, || {
            matmul::mm(
                tensor(self_, "self")?,
                tensor(mat2, "mat2")?,
                tensor(out, "out")?,
                cubeMathType as i64,
            )
        })
    }
}

/// Phase 2 of Mm: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMm(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMm", workspace, workspaceSize, executor, stream)
}
