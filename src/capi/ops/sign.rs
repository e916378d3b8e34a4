//! `aclnnop/aclnn_sign.h`: Sign.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `result = sign(self)` (-1/0/1; complex z/|z|); result has self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSignGetWorkspaceSize(
    self_: *const aclTensor,
    result: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSignGetWorkspaceSize", workspaceSize, executor, || {
            math::sign(tensor(self_, "self")?, tensor(result, "result")?)
        })
    }
}

/// Phase 2 of Sign: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSign(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSign", workspace, workspaceSize, executor, stream)
}
