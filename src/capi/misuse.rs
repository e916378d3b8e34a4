//! Misuse detection at the C boundary: where a program's pointers point.
//!
//! - A tensor's data and a workspace must lie inside memory from aclrtMalloc: a host
//!   pointer (stack, malloc, aclrtMallocHost) or a view reaching past its allocation is
//!   ACLNN_ERR_PARAM_INVALID at phase 1 (and again at phase 2, where addresses may have been
//!   re-pointed). `ACLNN_CPU_ALLOW_HOST_MEMORY=1` accepts host memory for programs that pass
//!   it deliberately (views reaching past an aclrtMalloc allocation stay errors).
//! - A workspace must be its own memory: not overlapping the operator's tensors.
//! - Copies must stay inside the allocation a tracked pointer belongs to, and a synchronous
//!   copy reading bytes queued work has not finished writing (stale data on the device) is
//!   a warning on stderr, an error with `ACLNN_CPU_STRICT=1`.
//! - Queued work carries a `usage::Ticket`, so aclrtFree waits for it and work whose memory
//!   is gone reports at synchronize instead of touching it.

use crate::error::{acl, Error, Result};
use crate::executor::Bindings;
use crate::runtime::memory::{self, Allocation, Space};
use crate::runtime::usage::{self, Ticket, Use, Uses};
use crate::tensor::TensorDesc;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicU64, Ordering};

/// Environment variable that lets tensors and workspaces live in host memory.
pub const ALLOW_HOST_ENV: &str = "ACLNN_CPU_ALLOW_HOST_MEMORY";
/// Environment variable that turns misuse warnings into errors.
pub const STRICT_ENV: &str = "ACLNN_CPU_STRICT";

static WARNINGS: AtomicU64 = AtomicU64::new(0);

fn env_on(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

fn allow_host() -> bool {
    env_on(ALLOW_HOST_ENV)
}

/// A warning (stderr) by default; with ACLNN_CPU_STRICT=1 an error with `code`.
fn warn_or_fail(api: &str, code: i32, msg: String) -> Result<()> {
    if env_on(STRICT_ENV) {
        return Err(Error::runtime(code, msg));
    }
    WARNINGS.fetch_add(1, Ordering::Relaxed);
    log::warn!(target: crate::plog::module_of_api(api), "{api}: {msg}");
    eprintln!("[aclnn-cpu] warning: {api}: {msg} (set {STRICT_ENV}=1 to make this an error)");
    Ok(())
}

/// What a checked range belongs to, for messages (formatted only on error).
#[derive(Clone, Copy)]
enum What<'a> {
    /// A phase-1 tensor argument by name.
    Tensor(&'a str),
    /// An executor binding at phase 2.
    Binding {
        i: usize,
        n_inputs: usize,
    },
    Workspace,
}

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            What::Tensor(name) => write!(f, "tensor '{name}'"),
            What::Binding { i, n_inputs } if i < n_inputs => write!(f, "tensor input {i}"),
            What::Binding { i, n_inputs } => write!(f, "tensor output {}", i - n_inputs),
            What::Workspace => write!(f, "workspace"),
        }
    }
}

/// Bytes [lo, hi] must lie inside the tracked device allocation holding `lo` (host memory
/// too when allowed). Returns that allocation, or None for allowed host memory.
fn device_range(what: What, data: usize, lo: usize, hi: usize) -> Result<Option<Allocation>> {
    let host_hint = || {
        format!(
            "device {} must be allocated with aclrtMalloc (no live aclrtMalloc allocation holds it: host memory, \
             or device memory already freed; {ALLOW_HOST_ENV}=1 accepts host memory)",
            if matches!(what, What::Workspace) { "workspaces" } else { "tensors" }
        )
    };
    match memory::find(lo) {
        Some(a) if a.space == Space::Device || allow_host() => {
            if let Some(cur) = crate::runtime::device::thread_device() {
                crate::ensure!(
                    a.device < 0 || crate::runtime::device::peer_enabled(cur, a.device),
                    "{what} data {data:#x} is memory of device {}, but this thread works on device {cur}: \
                     operators reach only their own device's memory",
                    a.device
                );
            }
            crate::ensure!(
                hi < a.base + a.size,
                "{what} data {data:#x} reaches byte {hi:#x}, {} bytes past the end of its aclrtMalloc allocation \
                 ({} bytes at {:#x})",
                hi + 1 - (a.base + a.size),
                a.size,
                a.base
            );
            Ok(Some(a))
        }
        Some(_) => crate::bail!(
            "{what} data {data:#x} is host memory from aclrtMallocHost; {}",
            host_hint()
        ),
        None if crate::runtime::vmm::reservation_range(lo).is_some() => crate::bail!(
            "{what} data {data:#x} lies in a range reserved with aclrtReserveMemAddress that is not mapped \
             at byte {lo:#x}: map physical memory there with aclrtMapMem first"
        ),
        None if allow_host() => Ok(None),
        None => crate::bail!("{what} data {data:#x} is host memory; {}", host_hint()),
    }
}

/// The bytes a tensor's view touches and, when tracked, the checked device memory holding
/// them (None: no bytes, or a NULL address refused elsewhere).
fn tensor_use(
    what: What,
    t: &TensorDesc,
    write: bool,
) -> Result<Option<((usize, usize), Option<Use>)>> {
    if t.addr == 0 {
        return Ok(None);
    }
    let Some((lo, hi)) = t.byte_span() else {
        return Ok(None);
    };
    let Some(a) = device_range(what, t.addr, lo, hi)? else {
        // Untracked (host) memory: the storage dims are the only bound known.
        t.check_inside_storage()?;
        return Ok(Some(((lo, hi), None)));
    };
    let u = Some(Use::of(&a, lo, hi, write));
    Ok(Some(((lo, hi), u)))
}

/// Phase 1: a tensor argument's data must be device memory holding its whole view.
pub fn check_tensor(t: &TensorDesc, name: &str) -> Result<()> {
    tensor_use(What::Tensor(name), t, false).map(drop)
}

/// Phase 2: the executor's (possibly re-pointed) tensors and the workspace, checked; the
/// returned ticket registers the memory the queued work uses (`Ticket::wrap` the task). The
/// flag says the workspace overlaps tensor data: the work must then use scratch memory of
/// its own (`private_workspace`), never the caller's bytes.
pub fn phase2(
    api: &'static str,
    bindings: &Bindings,
    workspace: usize,
    workspace_size: u64,
    needed: u64,
) -> Result<(Ticket, bool)> {
    let frees = memory::frees();
    let n_inputs = bindings.n_inputs;
    let mut uses = Uses::new();
    let mut spans: SmallVec<[_; 4]> = SmallVec::new();
    let ws_used = needed > 0 && workspace != 0;
    // Which bindings are outputs, looked up once (a list operator has thousands).
    let mut is_output = vec![false; bindings.tensors.len()];
    for &o in bindings.outputs.iter() {
        is_output[o] = true;
    }
    for (i, t) in bindings.tensors.iter().enumerate() {
        let Some(t) = t else { continue };
        let what = What::Binding { i, n_inputs };
        if let Some((span, u)) = tensor_use(what, t, is_output[i])? {
            if let Some(u) = u {
                uses.push(u);
            }
            if ws_used {
                spans.push((what, span));
            }
        }
    }
    if ws_used {
        let size = usize::try_from(workspace_size)
            .map_err(|_| Error::Invalid(format!("workspaceSize {workspace_size} is too large")))?;
        let hi = workspace.checked_add(size - 1).ok_or_else(|| {
            Error::Invalid(format!(
                "workspace {workspace:#x} + workspaceSize {size} overflows"
            ))
        })?;
        if let Some(a) = device_range(What::Workspace, workspace, workspace, hi)? {
            uses.push(Use::of(&a, workspace, hi, true));
        }
        let used_hi = workspace + needed as usize - 1;
        for (which, (lo, hi)) in &spans {
            if *lo > used_hi || *hi < workspace {
                continue;
            }
            // The device needs no workspace for many operators that need one here (a dtype
            // conversion, a staged view), and clients hand over pool memory accordingly (ggml
            // frees a temporary before the launch that still reads it, and the pool returns it
            // as the workspace). The work then runs on scratch memory of its own: a warning,
            // an error under ACLNN_CPU_STRICT=1.
            let msg = format!(
                "workspace [{workspace:#x}, {used_hi:#x}] overlaps the data of {which} [{lo:#x}, {hi:#x}]; \
                 the workspace must be memory of its own"
            );
            if env_on(STRICT_ENV) {
                return Err(Error::Invalid(msg));
            }
            warn_or_fail(
                api,
                acl::ACL_ERROR_INVALID_PARAM,
                format!("{msg} (the work uses scratch memory of its own)"),
            )?;
            return Ok((Ticket::new(api, uses, frees), true));
        }
    }
    Ok((Ticket::new(api, uses, frees), false))
}

/// Bytes [p, p+count) of a copy's `which` side: inside its allocation if `p` is tracked.
fn copy_side(which: &str, p: usize, count: usize, write: bool) -> Result<Option<Use>> {
    let Some(a) = memory::find(p) else {
        if crate::runtime::vmm::reservation_range(p).is_some() {
            return Err(Error::runtime(
                acl::ACL_ERROR_INVALID_PARAM,
                format!(
                    "{which} {p:#x} lies in a range reserved with aclrtReserveMemAddress that is not mapped: \
                     map physical memory there with aclrtMapMem first"
                ),
            ));
        }
        return Ok(None);
    };
    let hi = p + count - 1;
    if hi >= a.base + a.size {
        return Err(Error::runtime(
            acl::ACL_ERROR_INVALID_PARAM,
            format!(
                "{which} {p:#x} + count {count} runs {} bytes past the end of its allocation ({} bytes at {:#x})",
                hi + 1 - (a.base + a.size),
                a.size,
                a.base
            ),
        ));
    }
    Ok(Some(Use::of(&a, p, hi, write)))
}

/// A copy between the memory of two devices needs peer access enabled between them (in
/// either direction), as on the NPU.
fn check_peer(dst: usize, src: usize) -> Result<()> {
    let (Some(d), Some(s)) = (memory::find(dst), memory::find(src)) else {
        return Ok(());
    };
    use crate::runtime::device::peer_enabled;
    if d.device < 0 || s.device < 0 || d.device == s.device {
        return Ok(());
    }
    if peer_enabled(d.device, s.device) || peer_enabled(s.device, d.device) {
        return Ok(());
    }
    Err(Error::runtime(
        acl::ACL_ERROR_INVALID_PARAM,
        format!(
            "src is memory of device {} and dst of device {}: a copy between devices needs \
             aclrtDeviceEnablePeerAccess between them first",
            s.device, d.device
        ),
    ))
}

/// aclrtMemcpy/aclrtMemset (and their Async forms, `queued`): both sides stay inside their
/// allocations; a synchronous copy that reads bytes queued work is still writing, or writes
/// bytes queued work still uses, is reported. `src` is 0 for a memset.
pub fn copy(
    api: &'static str,
    dst: usize,
    src: usize,
    count: usize,
    queued: bool,
) -> Result<Ticket> {
    let frees = memory::frees();
    if count == 0 {
        return Ok(Ticket::new(api, Uses::new(), frees));
    }
    let mut uses = Uses::new();
    uses.extend(copy_side("dst", dst, count, true)?);
    if src != 0 {
        uses.extend(copy_side("src", src, count, false)?);
        check_peer(dst, src)?;
    }
    if !queued {
        for u in &uses {
            if let Some((by, w)) = usage::conflict(u.lo, u.hi, u.write) {
                let msg = if u.write {
                    format!(
                        "dst [{:#x}, {:#x}] overwrites device memory that work queued by {by} still uses \
                         ([{:#x}, {:#x}]): synchronize the stream first",
                        u.lo, u.hi, w.lo, w.hi
                    )
                } else {
                    format!(
                        "src [{:#x}, {:#x}] reads device memory that work queued by {by} has not finished writing \
                         ([{:#x}, {:#x}]): on the device this reads stale data; synchronize the stream first",
                        u.lo, u.hi, w.lo, w.hi
                    )
                };
                warn_or_fail(api, acl::ACL_ERROR_INVALID_PARAM, msg)?;
            }
        }
        return Ok(Ticket::new(api, Uses::new(), frees));
    }
    Ok(Ticket::new(api, uses, frees))
}

/// Test and leak-check hook (not in the CANN headers): live handles of every kind, bytes of
/// device memory allocated, queued tasks still holding device memory, warnings printed.
/// Any pointer may be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnCpuDebugCounts(
    liveHandles: *mut u64,
    deviceBytes: *mut u64,
    pendingTasks: *mut u64,
    warnings: *mut u64,
) -> i32 {
    super::guard::status("aclnnCpuDebugCounts", || {
        let vals = [
            (liveHandles, super::handle::live_count() as u64),
            (deviceBytes, memory::allocated(Space::Device) as u64),
            (pendingTasks, usage::pending_count() as u64),
            (warnings, WARNINGS.load(Ordering::Relaxed)),
        ];
        for (p, v) in vals {
            if !p.is_null() {
                // SAFETY: non-NULL out-parameter, writable by the caller's contract.
                unsafe { p.write(v) };
            }
        }
        Ok(())
    })
}
