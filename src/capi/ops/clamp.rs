//! `aclnnop/aclnn_clamp.h`: Clamp — `out = min(max(self, min), max)`.

use super::{opt_scalar, phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::clamp;
use std::ffi::c_void;

/// Phase 1 of clamping to [clipValueMin, clipValueMax]; either bound may be NULL (not both).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnClampGetWorkspaceSize(
    self_: *const aclTensor,
    clipValueMin: *const aclScalar,
    clipValueMax: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnClampGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                clamp::clamp(
                    tensor(self_, "self")?,
                    opt_scalar(clipValueMin, "clipValueMin")?.as_ref(),
                    opt_scalar(clipValueMax, "clipValueMax")?.as_ref(),
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of Clamp: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnClamp(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnClamp", workspace, workspaceSize, executor, stream)
}
