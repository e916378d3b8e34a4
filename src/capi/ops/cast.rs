//! `aclnnop/aclnn_cast.h`: Cast — `out = (dtype) self`.

use super::{phase1, phase2, tensor};
use crate::capi::base::aclDataTypeRaw;
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::copy;
use std::ffi::c_void;

/// Phase 1 of `out = (dtype) self`: float->int truncates and saturates (NaN->0), int->int wraps, floats round to nearest even, complex->real keeps the real part.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCastGetWorkspaceSize(
    self_: *const aclTensor,
    dtype: aclDataTypeRaw,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1("aclnnCastGetWorkspaceSize", workspaceSize, executor, || {
            copy::cast(tensor(self_, "self")?, dtype, tensor(out, "out")?)
        })
    }
}

/// Phase 2 of Cast: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnCast(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnCast", workspace, workspaceSize, executor, stream)
}
