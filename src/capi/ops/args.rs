//! Argument parsing for the declared entry points: one function per C parameter type,
//! each naming the parameter in its errors. A tensor's data must lie in device memory
//! (`misuse::check_tensor`); every handle must be live and of its kind.

use crate::capi::handle;
use crate::capi::meta::{
    aclBoolArray, aclFloatArray, aclIntArray, aclScalar, aclScalarList, aclTensor, aclTensorList,
};
use crate::capi::misuse;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::ffi::{c_char, CStr};

/// A required tensor, borrowed for the call (an executor keeps its own copy).
pub(crate) unsafe fn tensor<'a>(p: *const aclTensor, name: &'static str) -> Result<&'a TensorDesc> {
    let desc = &unsafe { handle::borrow(p, name)? }.desc;
    misuse::check_tensor(desc, name)?;
    Ok(desc)
}

/// An optional argument (declared with `?`): NULL is None, anything else is parsed by `f`.
pub(crate) fn optional<P, T>(
    p: *const P,
    f: impl FnOnce(*const P) -> Result<T>,
) -> Result<Option<T>> {
    if p.is_null() {
        Ok(None)
    } else {
        f(p).map(Some)
    }
}

pub(crate) unsafe fn scalar(p: *const aclScalar, name: &'static str) -> Result<Scalar> {
    Ok(unsafe { handle::borrow(p, name)? }.value)
}

pub(crate) unsafe fn int_array<'a>(p: *const aclIntArray, name: &'static str) -> Result<&'a [i64]> {
    Ok(&unsafe { handle::borrow(p, name)? }.values)
}

pub(crate) unsafe fn float_array<'a>(
    p: *const aclFloatArray,
    name: &'static str,
) -> Result<&'a [f32]> {
    Ok(&unsafe { handle::borrow(p, name)? }.values)
}

pub(crate) unsafe fn bool_array<'a>(
    p: *const aclBoolArray,
    name: &'static str,
) -> Result<&'a [bool]> {
    Ok(&unsafe { handle::borrow(p, name)? }.values)
}

/// The members of a tensor list, each live and in device memory. A list may hold a
/// member twice; a member destroyed on its own (not through the list) is refused.
pub(crate) unsafe fn tensor_list<'a>(
    p: *const aclTensorList,
    name: &'static str,
) -> Result<Vec<&'a TensorDesc>> {
    let list = unsafe { handle::borrow(p, name)? };
    let mut out = Vec::with_capacity(list.tensors.len());
    for (i, &t) in list.tensors.iter().enumerate() {
        let t = t as *const aclTensor;
        if !handle::is_live(t) {
            return Err(Error::Invalid(format!(
                "argument '{name}': element {i} is not a live aclTensor (destroyed on its own: a list owns its tensors)"
            )));
        }
        // SAFETY: live, and by the C contract not destroyed during the call.
        let desc = &unsafe { &*t }.desc;
        misuse::check_tensor(desc, name)
            .map_err(|e| Error::Invalid(format!("element {i}: {e}")))?;
        out.push(desc);
    }
    Ok(out)
}

pub(crate) unsafe fn scalar_list(
    p: *const aclScalarList,
    name: &'static str,
) -> Result<Vec<Scalar>> {
    let list = unsafe { handle::borrow(p, name)? };
    let mut out = Vec::with_capacity(list.scalars.len());
    for (i, &s) in list.scalars.iter().enumerate() {
        let s = s as *const aclScalar;
        if !handle::is_live(s) {
            return Err(Error::Invalid(format!(
                "argument '{name}': element {i} is not a live aclScalar (destroyed on its own: a list owns its scalars)"
            )));
        }
        // SAFETY: live, and by the C contract not destroyed during the call.
        out.push(unsafe { &*s }.value);
    }
    Ok(out)
}

/// A NUL-terminated UTF-8 string (CANN's layout and mode names are ASCII).
pub(crate) unsafe fn string<'a>(p: *const c_char, name: &'static str) -> Result<&'a str> {
    if p.is_null() {
        return Err(Error::NullPtr(name));
    }
    // SAFETY: the C contract: a NUL-terminated string that outlives the call.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map_err(|_| Error::Invalid(format!("argument '{name}' is not a UTF-8 string: {s:?}")))
}
