//! `aclnnop/aclnn_addmv.h`: Addmv — `out = beta*self + alpha*(mat@vec)` (note: alpha comes before beta).

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::matmul;
use std::ffi::c_void;

/// Phase 1 of `out = beta*self + alpha*(mat@vec)`; mat (m,k), vec (k), self 0-D, (m) or (1); beta = 0 does not read self.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAddmvGetWorkspaceSize(
    self_: *const aclTensor,
    mat: *const aclTensor,
    vec: *const aclTensor,
    alpha: *const aclScalar,
    beta: *const aclScalar,
    out: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnAddmvGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                matmul::addmv(
                    tensor(self_, "self")?,
                    tensor(mat, "mat")?,
                    tensor(vec, "vec")?,
                    &scalar(alpha, "alpha")?,
                    &scalar(beta, "beta")?,
                    tensor(out, "out")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of Addmv: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAddmv(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAddmv", workspace, workspaceSize, executor, stream)
}
