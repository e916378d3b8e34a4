//! Opaque handles handed to C. Every live handle is recorded in one registry by address
//! and kind, so a stale, foreign or wrong-kind pointer is reported as an error instead of
//! being dereferenced. Ownership moves only through these helpers.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A Rust type handed to C behind a pointer.
pub trait Handle: Send + 'static {
    /// The C type name, for messages ("aclTensor").
    const KIND: &'static str;
}

/// Hashes handle addresses: they are distinct heap pointers, so a multiply spreads them
/// well enough, at a fraction of SipHash's cost (every C call looks handles up).
#[derive(Default)]
struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = ((n as u64) >> 4)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(32);
    }
}

type Registry = HashMap<usize, &'static str, std::hash::BuildHasherDefault<AddrHasher>>;

fn live() -> MutexGuard<'static, Registry> {
    static LIVE: OnceLock<Mutex<Registry>> = OnceLock::new();
    // A panic while holding the lock cannot leave the map inconsistent (single inserts/removes).
    LIVE.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Moves `v` to the heap and registers it; the pointer is what C receives.
pub fn into_raw<T: Handle>(v: T) -> *mut T {
    let p = Box::into_raw(Box::new(v));
    live().insert(p as usize, T::KIND);
    p
}

fn check<T: Handle>(p: *const T, name: &'static str) -> Result<()> {
    if p.is_null() {
        return Err(Error::NullPtr(name));
    }
    match live().get(&(p as usize)) {
        Some(k) if *k == T::KIND => Ok(()),
        _ => Err(Error::BadHandle {
            name,
            kind: T::KIND,
        }),
    }
}

/// Whether `p` is a live handle of kind T (NULL is not).
pub fn is_live<T: Handle>(p: *const T) -> bool {
    !p.is_null() && live().get(&(p as usize)) == Some(&T::KIND)
}

/// Borrows a live handle.
///
/// # Safety
/// No other thread may destroy the handle while the borrow lasts (the usual C contract).
pub unsafe fn borrow<'a, T: Handle>(p: *const T, name: &'static str) -> Result<&'a T> {
    check(p, name)?;
    // SAFETY: registered, so it came from `into_raw` and has not been taken.
    Ok(unsafe { &*p })
}

/// Mutably borrows a live handle.
///
/// # Safety
/// As `borrow`, and no other borrow of it may be alive.
pub unsafe fn borrow_mut<'a, T: Handle>(p: *mut T, name: &'static str) -> Result<&'a mut T> {
    check(p, name)?;
    // SAFETY: registered, so it came from `into_raw` and has not been taken.
    Ok(unsafe { &mut *p })
}

/// Unregisters a live handle and returns ownership of it.
pub fn take<T: Handle>(p: *mut T, name: &'static str) -> Result<Box<T>> {
    if p.is_null() {
        return Err(Error::NullPtr(name));
    }
    let mut map = live();
    match map.get(&(p as usize)) {
        Some(k) if *k == T::KIND => {
            map.remove(&(p as usize));
            drop(map);
            // SAFETY: it was registered by `into_raw` and is now unregistered: we own it.
            Ok(unsafe { Box::from_raw(p) })
        }
        _ => Err(Error::BadHandle {
            name,
            kind: T::KIND,
        }),
    }
}

/// Destroys a handle. Calling with NULL is fine; a stale or foreign pointer is an error.
pub fn destroy<T: Handle>(p: *mut T, name: &'static str) -> Result<()> {
    if p.is_null() {
        return Ok(());
    }
    take(p, name).map(drop)
}

/// Number of live handles of every kind (leak checks: `aclnnCpuDebugCounts`).
pub fn live_count() -> usize {
    live().len()
}
