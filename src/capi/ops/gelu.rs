//! `aclnnop/aclnn_gelu.h`: Gelu.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of the tanh-approximate GELU; out has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnGeluGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnGeluGetWorkspaceSize", workspaceSize, executor, || {
            math::gelu(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Gelu: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnGelu(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnGelu", workspace, workspaceSize, executor, stream)
}
