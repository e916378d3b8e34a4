//! `aclnnop/aclnn_logsoftmax.h`: LogSoftmax along `dim`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of log-softmax along `dim` (max-subtracted, stable).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogSoftmaxGetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLogSoftmaxGetWorkspaceSize",
            workspaceSize,
            executor,
            || reduce::log_softmax(tensor(self_, "self")?, dim, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of LogSoftmax: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLogSoftmax(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnLogSoftmax",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
