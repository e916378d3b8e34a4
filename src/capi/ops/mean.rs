//! `aclnnop/aclnn_mean.h`: Mean — the mean over `dim` in `dtype`.

use super::{int_array, phase1, phase2, tensor};
use crate::capi::base::aclDataTypeRaw;
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclIntArray, aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of the mean over `dim` (empty: every axis), computed in `dtype`; empty -> NaN.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMeanGetWorkspaceSize(
    self_: *const aclTensor,
    dim: *const aclIntArray,
    keepDim: bool,
    dtype: aclDataTypeRaw,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnMeanGetWorkspaceSize", workspaceSize, executor, || {
            reduce::mean(
                tensor(self_, "self")?,
                &int_array(dim, "dim")?,
                keepDim,
                dtype,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Mean: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMean(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMean", workspace, workspaceSize, executor, stream)
}
