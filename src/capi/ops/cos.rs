//! `aclnnop/aclnn_cos.h`: Cos, InplaceCos.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::math;
use std::ffi::c_void;

/// Phase 1 of `out = cos(input)` (integers compute in f32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCosGetWorkspaceSize(
    input: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnCosGetWorkspaceSize", workspaceSize, executor, || {
            math::cos(tensor(input, "input")?, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Cos: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnCos(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnCos", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of the in-place Cos.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceCosGetWorkspaceSize(
    inputRef: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceCosGetWorkspaceSize",
            workspaceSize,
            executor,
            || math::inplace_cos(tensor(inputRef, "inputRef")?),
        )
    }
}

/// Phase 2 of InplaceCos: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceCos(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceCos",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
