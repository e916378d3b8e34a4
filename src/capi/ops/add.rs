//! `aclnnop/aclnn_add.h`: Add, Adds, InplaceAdd, InplaceAdds — `out = self + alpha*other`.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::add;
use std::ffi::c_void;

/// Phase 1 of `out = self + alpha * other`, with broadcasting and dtype promotion.
/// self, other: ALL12 dtypes (f32 f16 f64 bf16 s8 u8 s16 s32 s64 bool c64 c128), at most
/// 8 dims, broadcastable. alpha: an integer or bool alpha for integer/bool results.
/// out: the broadcast shape, any dtype the promoted dtype casts to.
/// Returns 161001 for a NULL argument, 161002 for any other invalid one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAddGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnAddGetWorkspaceSize", workspaceSize, executor, || {
            add::add(
                tensor(self_, "self")?,
                tensor(other, "other")?,
                &scalar(alpha, "alpha")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Add: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAdd(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAdd", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `out = self + alpha * other` with a scalar `other` (tensor-scalar promotion).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnAddsGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    alpha: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnAddsGetWorkspaceSize", workspaceSize, executor, || {
            add::adds(
                tensor(self_, "self")?,
                &scalar(other, "other")?,
                &scalar(alpha, "alpha")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Adds.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnAdds(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnAdds", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef += alpha * other`; other broadcasts to selfRef's shape.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceAddGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclTensor,
    alpha: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceAddGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                add::inplace_add(
                    tensor(selfRef, "selfRef")?,
                    tensor(other, "other")?,
                    &scalar(alpha, "alpha")?,
                )
            },
        )
    }
}

/// Phase 2 of InplaceAdd.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceAdd(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceAdd",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef += alpha * other` with a scalar `other` (no complex selfRef).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceAddsGetWorkspaceSize(
    selfRef: *const aclTensor,
    other: *const aclScalar,
    alpha: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceAddsGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                add::inplace_adds(
                    tensor(selfRef, "selfRef")?,
                    &scalar(other, "other")?,
                    &scalar(alpha, "alpha")?,
                )
            },
        )
    }
}

/// Phase 2 of InplaceAdds.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceAdds(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceAdds",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
