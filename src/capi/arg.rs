//! Argument checks that name the parameter: NULL checks, C arrays, out-parameters.

use crate::error::{Error, Result};

/// A required input pointer.
pub fn non_null<T>(p: *const T, name: &'static str) -> Result<*const T> {
    if p.is_null() {
        Err(Error::NullPtr(name))
    } else {
        Ok(p)
    }
}

/// Reads a C array of `n` elements; NULL is allowed only when `n == 0`.
///
/// # Safety
/// A non-NULL `p` must point to `n` readable elements.
pub unsafe fn slice<'a, T>(p: *const T, n: u64, name: &'static str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::NullPtr(name));
    }
    let n = usize::try_from(n)
        .ok()
        .filter(|n| *n <= (isize::MAX as usize) / std::mem::size_of::<T>().max(1))
        .ok_or_else(|| Error::Invalid(format!("{name}: element count {n} is too large")))?;
    // SAFETY: the caller promises `n` readable elements at non-NULL `p`.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Writes an out-parameter after checking it is not NULL.
///
/// # Safety
/// A non-NULL `p` must be valid for a write of `T`.
pub unsafe fn write<T>(p: *mut T, name: &'static str, v: T) -> Result<()> {
    if p.is_null() {
        return Err(Error::NullPtr(name));
    }
    // SAFETY: non-NULL and, by the caller's contract, writable.
    unsafe { p.write(v) };
    Ok(())
}
