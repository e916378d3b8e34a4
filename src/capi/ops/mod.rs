//! Operator entry points. Each CANN operator header `aclnnop/aclnn_<name>.h` is declared
//! once, in `<name>.decl` (the prototypes as CANN spells them, and the call into the
//! operator's rule in `crate::ops`); build.rs generates from those files the headers and
//! the `extern "C"` pairs included below (see `capi::decl` for the format). The pairs
//! differ only in how they parse their arguments (`args`) and which rule they call:
//! everything else is `phase1` and `phase2` here.
//!
//! Executors: phase 2 consumes a one-shot executor (it is freed once its run is queued);
//! calling phase 2 again with it is ACLNN_ERR_PARAM_INVALID. A repeatable executor
//! (aclSetAclOpExecutorRepeatable) stays until aclDestroyAclOpExecutor.

pub mod args;

use super::arg;
use super::base::aclrtStream;
use super::guard;
use super::handle;
use super::meta::{
    aclBoolArray, aclFloatArray, aclIntArray, aclOpExecutor, aclScalar, aclScalarList, aclTensor,
    aclTensorList, aclnnStatus,
};
use super::runtime::stream_arg;
pub use crate::capi::decl::Kind;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::runtime::stream::{Failure, Stream};
use crate::runtime::usage::Ticket;
use crate::{plog, profile};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// What the generated entry points see.
mod prelude {
    pub use super::super::base::{aclDataTypeRaw, aclrtStream};
    #[allow(unused_imports)]
    pub use super::super::meta::{
        aclBoolArray, aclFloatArray, aclIntArray, aclOpExecutor, aclScalar, aclScalarList,
        aclTensor, aclTensorList, aclnnStatus,
    };
    pub(crate) use super::{args, phase1, phase2};
    pub(crate) use crate::capi::{arg, guard};
    pub use std::ffi::c_void;
}

include!(concat!(env!("OUT_DIR"), "/aclnn_entries.rs"));

/// One parameter of a declared phase-1 prototype (the last two, workspaceSize and
/// executor, are left out).
#[derive(Debug)]
pub struct Param {
    /// As CANN's header spells it: "const aclTensor *".
    pub c_type: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    /// Declared with `?`: NULL is accepted.
    pub optional: bool,
}

/// A declared entry: its prototype as data, and callers for both phases.
pub struct Declared {
    /// "aclnn_add.h".
    pub header: &'static str,
    /// The phase-2 name, "aclnnAdd".
    pub name: &'static str,
    pub params: &'static [Param],
    pub deprecated: bool,
    /// The phase-1 and phase-2 prototypes as the header declares them (no `ACLNN_API`, no `;`).
    pub c_phase1: &'static str,
    pub c_phase2: &'static str,
    /// Calls `<name>GetWorkspaceSize` with arguments taken from `src`, one per parameter in
    /// order, then `workspaceSize` and `executor`.
    pub phase1: unsafe fn(&mut dyn ArgSource, *mut u64, *mut *mut aclOpExecutor) -> aclnnStatus,
    pub phase2: extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> aclnnStatus,
}

/// A declared plain function (`@plain`: one C function, not a two-phase pair, as
/// aclnnCalculateMatmulWeightSize).
pub struct Plain {
    /// "aclnn_trans_matmul_weight.h".
    pub header: &'static str,
    pub name: &'static str,
    /// Every parameter, out-parameters (`Kind::Out`) included.
    pub params: &'static [Param],
    /// The prototype as the header declares it (no `ACLNN_API`, no `;`).
    pub c_proto: &'static str,
    /// Calls the function with arguments taken from `src`; out-parameters point at locals
    /// unless `src.out_is_null` asks for NULL.
    pub call: unsafe fn(&mut dyn ArgSource) -> aclnnStatus,
}

/// Where a generic caller (the fuzz target, the registry tests) gets each argument of a
/// declared entry. Pointers it returns must be NULL, live handles, or handles it knows to
/// be stale; the entry point validates them.
pub trait ArgSource {
    fn tensor(&mut self, p: &Param) -> *mut aclTensor;
    fn scalar(&mut self, p: &Param) -> *mut aclScalar;
    fn int_array(&mut self, p: &Param) -> *mut aclIntArray;
    fn float_array(&mut self, p: &Param) -> *mut aclFloatArray;
    fn bool_array(&mut self, p: &Param) -> *mut aclBoolArray;
    fn tensor_list(&mut self, p: &Param) -> *mut aclTensorList;
    fn scalar_list(&mut self, p: &Param) -> *mut aclScalarList;
    /// Any integer parameter (converted to its C type with `as`).
    fn int(&mut self, p: &Param) -> i64;
    fn float(&mut self, p: &Param) -> f64;
    fn bool(&mut self, p: &Param) -> bool;
    fn dtype(&mut self, p: &Param) -> i32;
    fn string(&mut self, p: &Param) -> *const c_char;
    /// Whether an out-parameter of a plain function is passed as NULL.
    fn out_is_null(&mut self, _p: &Param) -> bool {
        false
    }
}

/// The declared entry named `name` ("aclnnAdd").
pub fn declared(name: &str) -> Option<&'static Declared> {
    DECLARED.iter().find(|d| d.name == name)
}

/// The declared plain function named `name` ("aclnnCalculateMatmulWeightSize").
pub fn plain(name: &str) -> Option<&'static Plain> {
    PLAIN.iter().find(|d| d.name == name)
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
        exec.check_int4()?;
        super::reported::attach(&exec);
        let size = exec.workspace_size();
        if ::log::log_enabled!(target: plog::OP, ::log::Level::Info) {
            log_phase1(api, &exec, size);
        }
        let h = handle::into_raw(aclOpExecutor { exec });
        unsafe {
            arg::write(workspaceSize, "workspaceSize", size)?;
            arg::write(executor, "executor", h)
        }
    })
}
/// The info line of a planned call: every tensor's shape, dtype and strides, and the
/// workspace size (formatted only when info is on for the OP module).
#[cold]
fn log_phase1(api: &str, exec: &Executor, size: u64) {
    use std::fmt::Write as _;
    let b = &exec.bindings;
    let mut s = String::new();
    for (i, v) in b.tensors.iter().enumerate() {
        let role = if i < b.n_inputs {
            format!("input {i}")
        } else {
            format!("output {}", i - b.n_inputs)
        };
        match v {
            Some(v) => {
                let _ = write!(
                    s,
                    "{role}: {} {:?} strides {:?} offset {}; ",
                    v.dtype,
                    &v.shape[..],
                    &v.strides[..],
                    v.offset
                );
            }
            None => {
                let _ = write!(s, "{role}: NULL; ");
            }
        }
    }
    ::log::info!(target: plog::OP, "{api}: {s}workspace size {size}");
    ::log::debug!(target: plog::OP, "{api}: plan: {}; small work (runs inline on an idle stream) = {}, {} tensor list parameter(s)",
        exec.work.describe(), exec.work.small(), exec.lists.len());
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
    let _launch = profile::HostSpan::begin(api, "launch", || profile::Detail::None);
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
        ::log::info!(target: plog::OP, "{api}: launch on stream {:#x} (device {}), workspace {workspace:?} of {workspaceSize} bytes",
            profile::stream_key(&stream), stream.device);
        // Misaligned data (any byte offset, as ggml passes views) runs on aligned copies.
        let misaligned = exec.bindings.misaligned();
        for (i, t) in exec.bindings.tensors.iter().enumerate() {
            if t.is_some() && !misaligned.contains(&i) {
                exec.bindings.addr(i)?;
            }
        }
        exec.work.check(&exec.bindings)?;
        // Checked before the executor is consumed: a refused launch leaves it to the caller.
        let (ticket, private) = super::misuse::phase2(
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
        let queue = move |stream: &Stream,
                          ticket: Ticket,
                          private: bool,
                          work: Arc<dyn Work>,
                          bindings: Bindings| {
            let misaligned = misaligned.clone();
            let small = work.small();
            // Described before `bindings` moves into the run (only while profiling).
            let profiled = profile::on().then(|| profile::Detail::Op {
                views: bindings.tensors.clone(),
                n_inputs: bindings.n_inputs,
                workspace: ws.size,
                queued: profile::now(),
            });
            let run = move || {
                // A workspace that overlaps tensor data is not used: scratch of our own instead.
                let scratch: Vec<u64> = if private {
                    vec![0; (needed as usize + 128).div_ceil(8)]
                } else {
                    Vec::new()
                };
                let ws = if private {
                    Workspace {
                        addr: scratch.as_ptr() as usize,
                        size: scratch.len() as u64 * 8,
                    }
                } else {
                    ws
                };
                let r = if misaligned.is_empty() {
                    work.run(&bindings, ws)
                } else {
                    bindings.run_aligned(work.as_ref(), ws, &misaligned)
                };
                r.map_err(|e| Failure::of_op(api, &e))
            };
            match profiled {
                Some(detail) => stream.submit(
                    small,
                    ticket.wrap(api, profile::on_stream(stream, api, "op", detail, run)),
                ),
                None => stream.submit(small, ticket.wrap(api, run)),
            }
        };
        if stream.is_capturing() {
            // Recorded for aclmdlRIExecuteAsync, which checks the memory again at each replay.
            drop(ticket);
            return stream.record(Arc::new(move |stream, dry| {
                let (ticket, private) =
                    super::misuse::phase2(api, &bindings, ws.addr, ws.size, needed)?;
                if dry {
                    return Ok(());
                }
                queue(stream, ticket, private, work.clone(), bindings.clone())
            }));
        }
        queue(&stream, ticket, private, work, bindings)
    })
}
