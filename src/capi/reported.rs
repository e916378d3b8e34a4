//! Output views refreshed after a run (CANN's "output shape" outputs: Nonzero,
//! MaskedSelect). The caller sizes such an output at its maximum; once the work has run,
//! the output's aclTensor takes the real view, as CANN's framework refreshes it, so
//! aclGetViewShape (or passing the tensor to another operator) after synchronizing sees it.
//!
//! Phase 1 records, for each reporting output, which live aclTensor it is; the work
//! publishes into a `ShapeReport`; the tensor is updated lazily, on the caller's thread,
//! the next time the C layer reads the handle (so the stream's thread never touches a
//! handle the caller may be reading).

use super::handle;
use super::meta::aclTensor;
use crate::executor::{Executor, ShapeReport};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Whether any report was ever attached: the fast path of every tensor read.
static ANY: AtomicBool = AtomicBool::new(false);

fn pending() -> MutexGuard<'static, HashMap<usize, ShapeReport>> {
    static MAP: OnceLock<Mutex<HashMap<usize, ShapeReport>>> = OnceLock::new();
    MAP.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The aclTensor whose `desc` field is at `desc_addr`, if it is a live handle.
fn handle_of(desc_addr: usize) -> Option<usize> {
    let h = desc_addr.checked_sub(std::mem::offset_of!(aclTensor, desc))?;
    handle::is_live(h as *const aclTensor).then_some(h)
}

/// Phase 1: ties each reporting output of `exec` to the aclTensor the rule was given.
pub(crate) fn attach(exec: &Executor) {
    if exec.reports.is_empty() {
        return;
    }
    let mut map = pending();
    for (desc, report) in &exec.reports {
        if let Some(h) = handle_of(*desc) {
            map.insert(h, report.clone());
            ANY.store(true, Ordering::Release);
        }
    }
}

/// Gives `p` the view its last run published, if one is waiting.
///
/// # Safety
/// `p` is NULL or a pointer the caller passed as an aclTensor (checked to be live here).
pub(crate) unsafe fn refresh(p: *const aclTensor) {
    if !ANY.load(Ordering::Acquire) || p.is_null() {
        return;
    }
    let map = pending();
    let Some(report) = map.get(&(p as usize)) else {
        return;
    };
    if let Some((shape, strides)) = report.take() {
        // SAFETY: live (checked by borrow_mut); the caller's thread owns the handle (the C
        // contract), and the map's lock keeps other refreshes out.
        if let Ok(t) = unsafe { handle::borrow_mut(p as *mut aclTensor, "tensor") } {
            t.desc.shape = shape;
            t.desc.strides = strides;
        }
    }
}

/// aclDestroyTensor: the handle's address may be reused by a tensor with no report.
pub(crate) fn forget(p: *const aclTensor) {
    if ANY.load(Ordering::Acquire) {
        pending().remove(&(p as usize));
    }
}
