//! `aclnnop/aclnn_reduce_sum.h`: ReduceSum — the sum over `dims`.

use super::{int_array, phase1, phase2, tensor};
use crate::capi::base::aclDataTypeRaw;
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclIntArray, aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::reduce;
use std::ffi::c_void;

/// Phase 1 of the sum over `dims` (empty: every axis) in `dtype` (= out's dtype); f64 accumulation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnReduceSumGetWorkspaceSize(
    self_: *const aclTensor,
    dims: *const aclIntArray,
    keepDims: bool,
    dtype: aclDataTypeRaw,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnReduceSumGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                reduce::reduce_sum(
                    tensor(self_, "self")?,
                    &int_array(dims, "dims")?,
                    keepDims,
                    dtype,
                    tensor(out, "out")?,
                )
            },
        )
    }
}

/// Phase 2 of ReduceSum: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnReduceSum(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2("aclnnReduceSum", workspace, workspaceSize, executor, stream)
}
