//! `aclnnop/aclnn_mul.h`: Mul, Muls, InplaceMul, InplaceMuls — `out = self * other`.

use super::{phase1, phase2, scalar, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use crate::ops::mul;
use std::ffi::c_void;

/// Phase 1 of `out = self * other` (ALL12 dtypes, broadcasting, promotion).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMulGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclTensor,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnMulGetWorkspaceSize", workspaceSize, executor, || {
            mul::mul(
                tensor(self_, "self")?,
                tensor(other, "other")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Mul: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMul(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMul", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `out = self * other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnMulsGetWorkspaceSize(
    self_: *const aclTensor,
    other: *const aclScalar,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnMulsGetWorkspaceSize", workspaceSize, executor, || {
            mul::muls(
                tensor(self_, "self")?,
                &scalar(other, "other")?,
                tensor(out, "out")?,
            )
        })
    }
}

/// Phase 2 of Muls: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnMuls(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnMuls", workspace, workspaceSize, executor, stream)
}

/// Phase 1 of `selfRef *= other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceMulGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceMulGetWorkspaceSize",
            workspaceSize,
            executor,
            || mul::inplace_mul(tensor(selfRef, "selfRef")?, tensor(other, "other")?),
        )
    }
}

/// Phase 2 of InplaceMul: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceMul(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceMul",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}

/// Phase 1 of `selfRef *= other` with a scalar `other`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnInplaceMulsGetWorkspaceSize(
    selfRef: *mut aclTensor,
    other: *const aclScalar,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnInplaceMulsGetWorkspaceSize",
            workspaceSize,
            executor,
            || mul::inplace_muls(tensor(selfRef, "selfRef")?, &scalar(other, "other")?),
        )
    }
}

/// Phase 2 of InplaceMuls: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInplaceMuls(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnInplaceMuls",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
