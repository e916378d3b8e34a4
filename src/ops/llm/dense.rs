//! Dense staging for the LLM family's multi-step rules (solves, rotary embeddings,
//! quantized products, attention): an operand view — any strides, an offset, broadcast
//! to a larger shape — is read into a row-major buffer of the type the rule computes in,
//! and a row-major result buffer is written into an output view through its strides.
//!
//! Every input is read before any output is written, so an output may overlap its inputs.
//! The conversions are the library's (`engine::convert`): f16/bf16 widen exactly into f32,
//! and a result is rounded once into the output's dtype.

use crate::element::Element;
use crate::engine::{broadcast_strides, convert};
use crate::error::Result;
/// The shared layout helper, re-exported for the LLM operators that import it from here.
pub(crate) use crate::executor::bindings;
use crate::executor::Bindings;
use crate::tensor::TensorDesc;

/// Calls `f(row, element offset of the row's first element)` for every innermost row of
/// a view of `shape` with `strides`, rows in row-major order (a 0-D view is one row).
pub(crate) fn for_each_row(shape: &[usize], strides: &[isize], mut f: impl FnMut(usize, isize)) {
    let r = shape.len();
    if r == 0 {
        return f(0, 0);
    }
    let outer: usize = shape[..r - 1].iter().product();
    if outer == 0 || shape[r - 1] == 0 {
        return;
    }
    let mut idx = vec![0usize; r - 1];
    let mut off = 0isize;
    for row in 0..outer {
        f(row, off);
        for d in (0..r - 1).rev() {
            idx[d] += 1;
            off += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= strides[d] * shape[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The length of a view's innermost row (1 for a 0-D view).
fn row_len(shape: &[usize]) -> usize {
    shape.last().copied().unwrap_or(1)
}

/// Binding `b` broadcast to `shape` (its shape must broadcast to it), converted to `T`,
/// as a row-major vector.
pub(crate) fn load<T: Element>(t: &Bindings, b: usize, shape: &[usize]) -> Result<Vec<T>> {
    load_view(t, b, t.view(b)?, shape)
}

/// `view` — a view of binding `b`'s storage other than the bound one (its dims permuted
/// or split) — broadcast to `shape`, converted to `T`, as a row-major vector.
pub(crate) fn load_view<T: Element>(
    t: &Bindings,
    b: usize,
    v: &TensorDesc,
    shape: &[usize],
) -> Result<Vec<T>> {
    let n: usize = shape.iter().product();
    let mut out = vec![T::default(); n];
    if n == 0 {
        return Ok(out);
    }
    if v.dtype.is_packed() {
        let nibbles = super::int4::load(t, b, v, shape)?;
        // SAFETY: both buffers hold n contiguous elements of their dtype.
        unsafe {
            convert::run(
                nibbles.as_ptr() as *const u8,
                crate::dtype::DType::S8,
                1,
                out.as_mut_ptr() as *mut u8,
                T::DTYPE,
                1,
                n,
            )
        };
        return Ok(out);
    }
    let base = t.addr(b)? + v.offset * v.dtype.size();
    let strides = broadcast_strides(shape, &v.shape, &v.strides);
    let len = row_len(shape);
    let inner = strides.last().copied().unwrap_or(0);
    let size = v.dtype.size() as isize;
    for_each_row(shape, &strides, |row, off| {
        // SAFETY: the view was validated to lie inside its storage (phase 1) and `row` is
        // one of `shape`'s rows, so its elements are inside the view; `out` holds n elements.
        unsafe {
            convert::run(
                (base as isize + off * size) as *const u8,
                v.dtype,
                inner,
                out.as_mut_ptr().add(row * len) as *mut u8,
                T::DTYPE,
                1,
                len,
            )
        }
    });
    Ok(out)
}

/// Writes the row-major `values` (of binding `b`'s shape) into binding `b`'s view,
/// converted to its dtype; nothing outside the view is written.
pub(crate) fn store<T: Element>(t: &Bindings, b: usize, values: &[T]) -> Result<()> {
    store_view(t, b, t.view(b)?, values)
}

/// Writes `values` into `view`, a view of binding `b`'s storage inside the bound view
/// (its dims permuted or split), as `store` does.
pub(crate) fn store_view<T: Element>(
    t: &Bindings,
    b: usize,
    v: &TensorDesc,
    values: &[T],
) -> Result<()> {
    debug_assert_eq!(values.len(), v.numel());
    if v.is_empty() {
        return Ok(());
    }
    crate::ensure!(
        !v.dtype.is_packed(),
        "internal: an ACL_INT4 output is written by int4::store"
    );
    let base = t.addr(b)? + v.offset * v.dtype.size();
    let len = row_len(&v.shape);
    let inner = v.strides.last().copied().unwrap_or(0);
    let size = v.dtype.size() as isize;
    for_each_row(&v.shape, &v.strides, |row, off| {
        // SAFETY: as in `load`, for the output view; `values` holds its elements.
        unsafe {
            convert::run(
                values.as_ptr().add(row * len) as *const u8,
                T::DTYPE,
                1,
                (base as isize + off * size) as *mut u8,
                v.dtype,
                inner,
                len,
            )
        }
    });
    Ok(())
}
