//! `aclnnop/aclnn_sub.h`: Sub, Subs, InplaceSub, InplaceSubs — `out = self - alpha*other`.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::add;
use std::ffi::c_void;

/// Phase 1 of `out = self - alpha * other` (ALL12 dtypes, broadcasting, promotion; two bools are refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSubGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSubGetWorkspaceSize", workspaceSize, executor, || {
            add::sub(
                tensor(self_, "self")?,
                tensor(other, "other")?,
                &scalar(alpha, "alpha")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Sub: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSub(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSub", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `out = self - alpha * other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnSubsGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnSubsGetWorkspaceSize", workspaceSize, executor, || {
            add::subs(
                tensor(self_, "self")?,
                &scalar(other, "other")?,
                &scalar(alpha, "alpha")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Subs: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnSubs(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnSubs", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef -= alpha * other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceSubGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceSubGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                add::inplace_sub(
                    tensor(selfRef, "selfRef")?,
                    tensor(other, "other")?,
                    &scalar(alpha, "alpha")?,
                )
            },
        )
    }
}

/// Phase 2 of InplaceSub: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceSub(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceSub",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef -= alpha * other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceSubsGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclScalar,
    alpha: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceSubsGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                add::inplace_subs(
                    tensor(selfRef, "selfRef")?,
                    &scalar(other, "other")?,
                    &scalar(alpha, "alpha")?,
                )
            },
        )
    }
}

/// Phase 2 of InplaceSubs: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceSubs(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceSubs",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
