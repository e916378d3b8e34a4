//! `aclnnop/aclnn_bitwise_not.h`: BitwiseNot — `out = ~self`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::bitwise;
use std::ffi::c_void;

/// Phase 1 of `out = ~self` (logical not for bool); out must have self's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnBitwiseNotGetWorkspaceSize(
    self_: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnBitwiseNotGetWorkspaceSize",
            workspaceSize,
            executor,
            || bitwise::not(tensor(self_, "self")?, tensor(out, "out")?),
        )
    }
}

/// Phase 2 of BitwiseNot: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnBitwiseNot(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnBitwiseNot",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
