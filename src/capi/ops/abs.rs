//! `aclnnop/aclnn_abs.h`: Abs.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = |self|` (complex: modulus in the part dtype).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAbsGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnAbsGetWorkspaceSize", workspaceSize, executor, || {
            math::abs(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Abs: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAbs(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAbs", workspace, workspaceSize, executor, stream)
}
