//! `aclnnop/aclnn_argmin.h`: ArgMin — the index of the first minimum along `dim`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of the index of the first minimum along `dim` (a NaN counts as both); out s64 or s32.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnArgMinGetWorkspaceSize(
    self_: *const aclTensor,
    dim: i64,
    keepdim: bool,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnArgMinGetWorkspaceSize",
            workspaceSize,
            executor,
            || reduce::argmin(tensor(self_, "self")?, dim, keepdim, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of ArgMin: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnArgMin(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnArgMin", workspace, workspaceSize, executor, stream)
}
