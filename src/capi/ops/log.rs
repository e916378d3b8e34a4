//! `aclnnop/aclnn_log.h`: Log, InplaceLog.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = ln(self)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnLogGetWorkspaceSize", workspaceSize, executor, || {
            math::log(tensor(self_, "self")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Log: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLog(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnLog", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Log.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceLogGetWorkspaceSize(
    selfRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceLogGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_log(tensor(selfRef, "selfRef")?),
        )
    }
}

/// Phase 2 of InplaceLog: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceLog(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceLog",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
