//! `aclnnop/aclnn_div.h`: Div, Divs, DivMod, DivMods and their in-place forms.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::div;
use std::ffi::c_void;

/// Phase 1 of true division `out = self / other` (integer inputs compute in f32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnDivGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnDivGetWorkspaceSize", workspaceSize, executor, || {
            div::div(
                tensor(self_, "self")?,
                tensor(other, "other")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Div: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnDiv(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnDiv", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `out = self / other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnDivsGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnDivsGetWorkspaceSize", workspaceSize, executor, || {
            div::divs(
                tensor(self_, "self")?,
                &scalar(other, "other")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Divs: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnDivs(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnDivs", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef /= other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceDivGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceDivGetWorkspaceSize",
            workspaceSize,
            executor,
            || div::inplace_div(tensor(selfRef, "selfRef")?, tensor(other, "other")?),
        )
    }
}

/// Phase 2 of InplaceDiv: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceDiv(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceDiv",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef /= other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceDivsGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceDivsGetWorkspaceSize",
            workspaceSize,
            executor,
            || div::inplace_divs(tensor(selfRef, "selfRef")?, &scalar(other, "other")?),
        )
    }
}

/// Phase 2 of InplaceDivs: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceDivs(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceDivs",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of division with rounding `mode`: 0 none, 1 trunc, 2 floor (others: 161002).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnDivModGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    mode: i32,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnDivModGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                div::div_mod(
                    tensor(self_, "self")?,
                    tensor(other, "other")?,
                    mode as i64,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of DivMod: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnDivMod(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnDivMod", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of DivMod with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnDivModsGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    mode: i32,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnDivModsGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                div::div_mods(
                    tensor(self_, "self")?,
                    &scalar(other, "other")?,
                    mode as i64,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of DivMods: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnDivMods(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnDivMods", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of in-place DivMod.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceDivModGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    mode: i32,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceDivModGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                div::inplace_div_mod(
                    tensor(selfRef, "selfRef")?,
                    tensor(other, "other")?,
                    mode as i64,
                )
            },
        )
    }
}

/// Phase 2 of InplaceDivMod: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceDivMod(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceDivMod",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of in-place DivMod with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceDivModsGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclScalar,
    mode: i32,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceDivModsGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                div::inplace_div_mods(
                    tensor(selfRef, "selfRef")?,
                    &scalar(other, "other")?,
                    mode as i64,
                )
            },
        )
    }
}

/// Phase 2 of InplaceDivMods: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceDivMods(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceDivMods",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
