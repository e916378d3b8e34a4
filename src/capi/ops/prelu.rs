//! `aclnnop/aclnn_prelu.h`: Prelu — `out = self > 0 ? self : weight*self`, weight along dim 1.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::prelu;
use std::ffi::c_void;

/// Phase 1 of PReLU: weight has 1 element or one per channel (dim 1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnPreluGetWorkspaceSize(
    self_: *const aclTensor,
    weight: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnPreluGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                prelu::prelu(
                    tensor(self_, "self")?,
                    tensor(weight, "weight")?,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of Prelu: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnPrelu(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnPrelu", workspace, workspaceSize, executor, stream)
}
