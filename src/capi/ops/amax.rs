//! `aclnnop/aclnn_amax.h`: Amax — the maximum over `dim`.

use super::{int_array, phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclIntArray, aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of the maximum over `dim` (empty: every axis); NaN propagates; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAmaxGetWorkspaceSize(
    self_: *const aclTensor,
    dim: *const aclIntArray,
    keepDim: bool,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnAmaxGetWorkspaceSize", workspaceSize, executor, || {
            reduce::amax(
                tensor(self_, "self")?,
                &int_array(dim, "dim")?,
                keepDim,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Amax: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAmax(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAmax", workspace, workspaceSize, executor, stream)
}
