//! `aclnnop/aclnn_s_where.h`: SWhere — `out = condition ? self : other`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::select;
use std::ffi::c_void;

/// Phase 1 of `out = condition ? self : other`, broadcasting all three (condition: bool or u8).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSWhereGetWorkspaceSize(
    condition: *const aclTensor,
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnSWhereGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                select::s_where(
                    tensor(condition, "condition")?,
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of SWhere: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSWhere(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSWhere", workspace, workspaceSize, executor, stream)
}
