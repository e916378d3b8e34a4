//! `aclnnop/aclnn_logical_xor.h`: LogicalXor — truth values combined with exclusive or.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::logical::{self, Connective};
use std::ffi::c_void;

/// Phase 1 of `out = self xor other` (non-zero is true), 1/0 in out's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnLogicalXorGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnLogicalXorGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                logical::binary(
                    "aclnnLogicalXor",
                    Connective::Xor,
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    Some(tensor(out, "out")?),
                )
            },
        )
    }
}

/// Phase 2 of LogicalXor: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnLogicalXor(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnLogicalXor",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
