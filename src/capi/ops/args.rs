//! Argument parsing for the declared entry points: one function per C parameter type,
//! each naming the parameter in its errors. A tensor's data must lie in device memory
//! (`misuse::check_tensor`); every handle must be live and of its kind.

use crate::capi::handle::{self, Handle};
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
    unsafe { crate::capi::reported::refresh(p) };
    let desc = &unsafe { handle::borrow(p, name)? }.desc;
    misuse::check_tensor(desc, name)?;
    Ok(desc)
}

/// Replaces the caller's tensor `p` with `desc` when it is Some: a rule that updates its
/// argument itself at phase 1, after its plan succeeded (CANN's TransMatmulWeight retags
/// its weight as FRACTAL_NZ). No borrow of the handle may be alive.
pub(crate) unsafe fn update_tensor(
    p: *mut aclTensor,
    name: &'static str,
    desc: Option<TensorDesc>,
) -> Result<()> {
    if let Some(desc) = desc {
        unsafe { handle::borrow_mut(p, name)? }.desc = desc;
    }
    Ok(())
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

#[allow(dead_code)] // for the declarations that take one; none does yet
pub(crate) unsafe fn float_array<'a>(
    p: *const aclFloatArray,
    name: &'static str,
) -> Result<&'a [f32]> {
    Ok(&unsafe { handle::borrow(p, name)? }.values)
}

#[allow(dead_code)] // for the declarations that take one; none does yet
pub(crate) unsafe fn bool_array<'a>(
    p: *const aclBoolArray,
    name: &'static str,
) -> Result<&'a [bool]> {
    Ok(&unsafe { handle::borrow(p, name)? }.values)
}

/// The live members of a list handle `p` of `T`s (a list may hold a member twice; a
/// member destroyed on its own, not through the list, is refused), each read by `read`.
unsafe fn members<'a, L: Handle, T: Handle, R>(
    p: *const L,
    name: &'static str,
    addrs: impl FnOnce(&'a L) -> &'a [usize],
    read: impl Fn(usize, &'a T) -> Result<R>,
) -> Result<Vec<R>> {
    let list = addrs(unsafe { handle::borrow(p, name)? });
    let mut out = Vec::with_capacity(list.len());
    for (i, &m) in list.iter().enumerate() {
        let m = m as *const T;
        if !handle::is_live(m) {
            return Err(Error::Invalid(format!(
                "argument '{name}': element {i} is not a live {} (destroyed on its own: a list owns its members)",
                T::KIND
            )));
        }
        // SAFETY: live, and by the C contract not destroyed during the call.
        out.push(read(i, unsafe { &*m })?);
    }
    Ok(out)
}

/// The members of a tensor list, each in device memory.
pub(crate) unsafe fn tensor_list<'a>(
    p: *const aclTensorList,
    name: &'static str,
) -> Result<Vec<&'a TensorDesc>> {
    unsafe {
        members(
            p,
            name,
            |l| &l.tensors,
            |i, t: &'a aclTensor| {
                misuse::check_tensor(&t.desc, name)
                    .map_err(|e| Error::Invalid(format!("element {i}: {e}")))?;
                Ok(&t.desc)
            },
        )
    }
}

#[allow(dead_code)] // for the declarations that take one; none does yet
pub(crate) unsafe fn scalar_list(
    p: *const aclScalarList,
    name: &'static str,
) -> Result<Vec<Scalar>> {
    unsafe { members(p, name, |l| &l.scalars, |_, s: &aclScalar| Ok(s.value)) }
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

/// Phase 1 of an operator whose output binding is another view of an argument's memory
/// (aclnnTransMatmulWeight writes the FRACTAL_NZ blocks, padding included, over its ND
/// `name`): each output must lie in device memory as a tensor argument must.
pub(crate) fn outputs_in_memory(
    exec: crate::executor::Executor,
    name: &'static str,
) -> Result<crate::executor::Executor> {
    for &i in &exec.bindings.outputs {
        let out = exec.bindings.view(i)?;
        misuse::check_tensor(out, name).map_err(|e| {
            let bytes = out.byte_span().map_or(0, |(lo, hi)| hi - lo + 1);
            Error::Invalid(format!(
                "{e} (its {} form takes {bytes} bytes from the view's first element)",
                out.format
            ))
        })?;
    }
    Ok(exec)
}
