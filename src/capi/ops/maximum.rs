//! `aclnnop/aclnn_maximum.h`: Maximum — the element-wise larger value (NaN propagates).

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::extremum;
use std::ffi::c_void;

/// Phase 1 of `out = max(self, other)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMaximumGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnMaximumGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                extremum::maximum(
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of Maximum: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMaximum(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMaximum", workspace, workspaceSize, executor, stream)
}
