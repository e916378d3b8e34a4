//! `aclnnop/aclnn_silu.h`: Silu.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = self/(1+e^-self)`; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSiluGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSiluGetWorkspaceSize", workspaceSize, executor, || {
            math::silu(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Silu: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSilu(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSilu", workspace, workspaceSize, executor, stream)
}
