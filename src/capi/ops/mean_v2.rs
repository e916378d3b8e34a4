//! `aclnnop/aclnn_mean_v2.h`: MeanV2 — the mean over `dim`, or a copy for no axes.

use super::{int_array, phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclIntArray, aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of the mean over `dim`; an empty `dim` reduces every axis, or copies with noopWithEmptyAxes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMeanV2GetWorkspaceSize(
    self_: *const aclTensor,
    dim: *const aclIntArray,
    keepDim: bool,
    noopWithEmptyAxes: bool,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnMeanV2GetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                reduce::mean_v2(
                    tensor(self_, "self")?,
                    &int_array(dim, "dim")?,
                    keepDim,
                    noopWithEmptyAxes,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of MeanV2: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMeanV2(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMeanV2", workspace, workspaceSize, executor, stream)
}
