//! `aclnnop/aclnn_matmul.h`: Matmul — torch.matmul semantics.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of the product with torch.matmul semantics (1-D operands, broadcast batch dims, 1 to 6 dims).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMatmulGetWorkspaceSize(
    self_: *const aclTensor,
    mat2: *const aclTensor,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnMatmulGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::matmul(
                    tensor(self_, "self")?,
                    tensor(mat2, "mat2")?,
                    tensor(out, "out")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of Matmul: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMatmul(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMatmul", workspace, workspaceSize, executor, stream)
}
