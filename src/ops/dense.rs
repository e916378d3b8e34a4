//! Dense copies of views, for operators that compute on whole tensors or matrices at once
//! (Dot, Equal, the linear algebra): a view's elements in row-major order gathered into a
//! contiguous buffer of any dtype, and a contiguous buffer scattered into a view. Each
//! innermost run moves with one strided conversion (`engine::convert::run`, the library's
//! conversion rule), so any strides (negative, zero, overlapping reads) are accepted.

use crate::dtype::DType;
use crate::tensor::TensorDesc;

/// Calls `f(offset, first)` for each run along the last dim of a view of `shape` and
/// `strides` (elements), in row-major order: `offset` is the run's first element relative
/// to the view's, `first` the row-major index of that element. A 0-d view is one run of 1.
pub(crate) fn for_runs(shape: &[usize], strides: &[isize], mut f: impl FnMut(isize, usize)) {
    if shape.contains(&0) {
        return;
    }
    let rank = shape.len();
    if rank <= 1 {
        f(0, 0);
        return;
    }
    let len = shape[rank - 1];
    let rows: usize = shape[..rank - 1].iter().product();
    let mut idx = vec![0usize; rank - 1];
    let mut off = 0isize;
    for r in 0..rows {
        f(off, r * len);
        for d in (0..rank - 1).rev() {
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

/// Length and stride of a view's runs.
fn run_of(t: &TensorDesc) -> (usize, isize) {
    match t.rank() {
        0 => (1, 1),
        r => (t.shape[r - 1], t.strides[r - 1]),
    }
}

/// Copies the elements of `t` (bound at `addr`) in row-major order into `dst`, contiguous,
/// converted to `dd`.
///
/// # Safety
/// `addr` must be the address of `t`'s storage and `dst` must hold `t.numel()` elements of
/// `dd`, not overlapping `t`.
pub(crate) unsafe fn gather(t: &TensorDesc, addr: usize, dst: *mut u8, dd: DType) {
    let size = t.dtype.size() as isize;
    let base = (addr + t.offset * t.dtype.size()) as isize;
    let (len, stride) = run_of(t);
    for_runs(&t.shape, &t.strides, |off, first| {
        // SAFETY: the run is inside t's storage and dst's first..first+len (the caller).
        unsafe {
            crate::engine::convert::run(
                (base + off * size) as *const u8,
                t.dtype,
                stride,
                dst.add(first * dd.size()),
                dd,
                1,
                len,
            )
        }
    });
}

/// Copies `src` (contiguous, dtype `sd`, `t.numel()` elements in row-major order) into the
/// view `t` bound at `addr`, converted to `t`'s dtype.
///
/// # Safety
/// `addr` must be the address of `t`'s storage (an output view without internal overlap)
/// and `src` must hold `t.numel()` elements of `sd`, not overlapping `t`.
pub(crate) unsafe fn scatter(src: *const u8, sd: DType, t: &TensorDesc, addr: usize) {
    let size = t.dtype.size() as isize;
    let base = (addr + t.offset * t.dtype.size()) as isize;
    let (len, stride) = run_of(t);
    for_runs(&t.shape, &t.strides, |off, first| {
        // SAFETY: as for gather.
        unsafe {
            crate::engine::convert::run(
                src.add(first * sd.size()),
                sd,
                1,
                (base + off * size) as *mut u8,
                t.dtype,
                stride,
                len,
            )
        }
    });
}
