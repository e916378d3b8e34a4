//! `aclnnop/aclnn_copy.h`: InplaceCopy — `selfRef = src`, broadcast and converted.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::copy;
use std::ffi::c_void;

/// Phase 1 of `selfRef = src` (src broadcasts to selfRef; any views; overlap-safe).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceCopyGetWorkspaceSize(
    selfRef: *mut aclTensor,
    src: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceCopyGetWorkspaceSize",
            workspaceSize,
            executor,
            || copy::inplace_copy(tensor(selfRef, "selfRef")?, tensor(src, "src")?),
        )
    }
}

/// Phase 2 of InplaceCopy: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceCopy(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceCopy",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
