//! `aclnnop/aclnn_minimum.h`: Minimum — the element-wise smaller value (NaN propagates).

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::extremum;
use std::ffi::c_void;

/// Phase 1 of `out = min(self, other)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMinimumGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnMinimumGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                extremum::minimum(
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of Minimum: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMinimum(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMinimum", workspace, workspaceSize, executor, stream)
}
