//! The one guard every exported body runs inside: it catches panics, turns `Err` into the
//! return value the C signature calls for, and records the thread's recent error message
//! (`aclGetRecentErrMsg`) as "<api>: <what went wrong>".

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    /// The message of this thread's most recent failing call, not yet fetched.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// The message `aclGetRecentErrMsg` returned last: its pointer stays valid until the
    /// thread's next aclGetRecentErrMsg call.
    static FETCHED: RefCell<CString> = RefCell::new(CString::default());
}

/// Stores `msg` as this thread's recent error message (interior NULs are escaped).
pub fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// The recent error message of this thread, without fetching it (tests).
pub fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// aclGetRecentErrMsg: CANN documents that it obtains *and clears* the thread's error
/// message. The text moves to a buffer of its own, valid until the thread's next
/// aclGetRecentErrMsg; the next call returns "" unless another call failed meanwhile (so a
/// message from an earlier failure, such as a repeated aclInit, does not linger).
pub fn fetch_last_error() -> *const c_char {
    let msg = LAST_ERROR.with(|e| std::mem::take(&mut *e.borrow_mut()));
    FETCHED.with(|f| {
        *f.borrow_mut() = msg;
        f.borrow().as_ptr()
    })
}

/// Clears the message (used by tests and by `aclGetRecentErrMsg` consumers that want a fresh start).
pub fn clear_last_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::default());
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs `body`; on error or panic records the message and returns `on_error(&err)`.
pub fn guard<R>(
    api: &str,
    on_error: impl FnOnce(&Error) -> R,
    body: impl FnOnce() -> Result<R>,
) -> R {
    let err = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => return v,
        Ok(Err(e)) => e,
        Err(payload) => Error::Internal(format!("panic: {}", panic_text(payload.as_ref()))),
    };
    let msg = format!("{api}: {err}");
    // Every error status is logged at error with the text aclGetRecentErrMsg returns.
    crate::plog::init();
    log::error!(target: crate::plog::module_of_api(api), "{msg}");
    set_last_error(&msg);
    on_error(&err)
}

/// Guard for functions returning `aclnnStatus`.
pub fn status(api: &str, body: impl FnOnce() -> Result<()>) -> i32 {
    guard(api, Error::status, || body().map(|()| 0))
}

/// Guard for runtime functions returning `aclError`.
pub fn acl(api: &str, body: impl FnOnce() -> Result<()>) -> i32 {
    guard(api, Error::acl_error, || body().map(|()| 0))
}

/// Guard for constructors returning a pointer: NULL on error.
pub fn ptr<T>(api: &str, body: impl FnOnce() -> Result<*mut T>) -> *mut T {
    guard(api, |_| std::ptr::null_mut(), body)
}
