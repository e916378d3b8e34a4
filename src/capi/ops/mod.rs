//! Operator entry points: one file per CANN operator header (`aclnnop/aclnn_<file>.h` is
//! generated from `<file>.rs`). Each entry parses its arguments, calls the operator's rule
//! in `crate::ops`, and hands the executor to `phase1`; each phase-2 entry is `phase2`.
//!
//! Executors: phase 2 consumes a one-shot executor (it is freed once its run is queued);
//! calling phase 2 again with it is ACLNN_ERR_PARAM_INVALID. A repeatable executor
//! (aclSetAclOpExecutorRepeatable) stays until aclDestroyAclOpExecutor.

pub mod abs;
pub mod add;
pub mod addmm;
pub mod addmv;
pub mod amax;
pub mod amin;
pub mod argmax;
pub mod argmin;
pub mod baddbmm;
pub mod batch_matmul;
pub mod bitwise_and_scalar;
pub mod bitwise_and_tensor;
pub mod bitwise_not;
pub mod bitwise_or_scalar;
pub mod bitwise_or_tensor;
pub mod bitwise_xor_scalar;
pub mod bitwise_xor_tensor;
pub mod cast;
pub mod ceil;
pub mod clamp;
pub mod convolution;
pub mod copy;
pub mod cos;
pub mod div;
pub mod eq_scalar;
pub mod eq_tensor;
pub mod erf;
pub mod exp;
pub mod exp2;
pub mod fill_scalar;
pub mod floor;
pub mod ge_scalar;
pub mod ge_tensor;
pub mod gelu;
pub mod gt_scalar;
pub mod gt_tensor;
pub mod le_scalar;
pub mod le_tensor;
pub mod log;
pub mod log2;
pub mod logical_and;
pub mod logical_not;
pub mod logical_or;
pub mod logical_xor;
pub mod logsoftmax;
pub mod lt_scalar;
pub mod lt_tensor;
pub mod matmul;
pub mod maximum;
pub mod mean;
pub mod mean_v2;
pub mod minimum;
pub mod mm;
pub mod mul;
pub mod ne_scalar;
pub mod ne_tensor;
pub mod neg;
pub mod pow;
pub mod pow_tensor_tensor;
pub mod prelu;
pub mod reciprocal;
pub mod reduce_sum;
pub mod relu;
pub mod round;
pub mod rsqrt;
pub mod s_where;
pub mod sigmoid;
pub mod sign;
pub mod silu;
pub mod sin;
pub mod softmax;
pub mod sqrt;
pub mod sub;
pub mod tanh;
pub mod zero;

use super::arg;
use super::base::aclrtStream;
use super::guard;
use super::handle;
use super::meta::{aclIntArray, aclOpExecutor, aclScalar, aclTensor, aclnnStatus};
use super::runtime::stream_arg;
use crate::error::{Error, Result};
use crate::executor::{Executor, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::ffi::c_void;

/// A required tensor argument, borrowed for the call (an executor keeps its own copy); its
/// data must lie in device memory (`misuse::check_tensor`).
pub(crate) unsafe fn tensor<'a>(p: *const aclTensor, name: &'static str) -> Result<&'a TensorDesc> {
    let desc = &unsafe { handle::borrow(p, name)? }.desc;
    super::misuse::check_tensor(desc, name)?;
    Ok(desc)
}

/// A required scalar argument.
pub(crate) unsafe fn scalar(p: *const aclScalar, name: &'static str) -> Result<Scalar> {
    Ok(unsafe { handle::borrow(p, name)? }.value)
}

/// A required int-array argument (its values are copied).
pub(crate) unsafe fn int_array(p: *const aclIntArray, name: &'static str) -> Result<Vec<i64>> {
    Ok(unsafe { handle::borrow(p, name)? }.values.clone())
}

/// An optional tensor argument (NULL is None).
pub(crate) unsafe fn opt_tensor<'a>(
    p: *const aclTensor,
    name: &'static str,
) -> Result<Option<&'a TensorDesc>> {
    if p.is_null() {
        return Ok(None);
    }
    Ok(Some(unsafe { tensor(p, name)? }))
}

/// An optional scalar argument (NULL is None).
pub(crate) unsafe fn opt_scalar(p: *const aclScalar, name: &'static str) -> Result<Option<Scalar>> {
    if p.is_null() {
        return Ok(None);
    }
    Ok(Some(unsafe { scalar(p, name)? }))
}

/// Phase 1: checks the out-parameters first (as CANN does), builds the executor, and
/// writes the workspace size and the executor only on success.
pub(crate) unsafe fn phase1(
    api: &'static str,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
    build: impl FnOnce() -> Result<Executor>,
) -> aclnnStatus {
    guard::status(api, || {
        arg::non_null(workspaceSize, "workspaceSize")?;
        arg::non_null(executor, "executor")?;
        let exec = build()?;
        let size = exec.workspace_size();
        let h = handle::into_raw(aclOpExecutor { exec });
        unsafe {
            arg::write(workspaceSize, "workspaceSize", size)?;
            arg::write(executor, "executor", h)
        }
    })
}

/// Phase 2: validates the executor, the workspace and the tensors' addresses, then queues
/// the work on `stream` (NULL: the default stream).
pub(crate) fn phase2(
    api: &'static str,
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    guard::status(api, || {
        if executor.is_null() {
            return Err(Error::NullPtr("executor"));
        }
        // SAFETY: `borrow` checks the handle is live (the C contract: not destroyed meanwhile).
        let exec = match unsafe { handle::borrow(executor, "executor") } {
            Ok(e) => &e.exec,
            Err(_) => crate::bail!(
                "argument 'executor' ({executor:?}) is not a live aclOpExecutor: a one-shot executor is freed by \
                 its first {api} call (call aclSetAclOpExecutorRepeatable right after phase 1 to run it again), \
                 or it was destroyed"
            ),
        };
        crate::ensure!(
            exec.api == api,
            "the executor was created by {}GetWorkspaceSize, not by {api}GetWorkspaceSize",
            exec.api
        );
        if workspaceSize > 0 && workspace.is_null() {
            if !exec.repeatable {
                let _ = handle::destroy(executor, "executor");
            }
            return Err(Error::NullPtr("workspace"));
        }
        let needed = exec.workspace_size();
        crate::ensure!(
            workspaceSize >= needed,
            "workspaceSize {workspaceSize} is smaller than the {needed} bytes {api}GetWorkspaceSize asked for"
        );
        let stream = stream_arg(stream, "stream")?;
        for (i, t) in exec.bindings.tensors.iter().enumerate() {
            if t.is_some() {
                exec.bindings.addr(i)?;
            }
        }
        exec.work.check(&exec.bindings)?;
        let ticket = super::misuse::phase2(
            api,
            &exec.bindings,
            workspace as usize,
            workspaceSize,
            needed,
        )?;
        let ws = Workspace {
            addr: workspace as usize,
            size: workspaceSize,
        };
        let (work, bindings) = if exec.repeatable {
            (exec.work.clone(), exec.bindings.clone())
        } else {
            let e = handle::take(executor, "executor")?.exec;
            (e.work, e.bindings)
        };
        stream.submit(
            work.small(),
            ticket.wrap(api, move || {
                work.run(&bindings, ws).map_err(|e| format!("{api}: {e}"))
            }),
        )
    })
}
