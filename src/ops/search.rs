//! Binary search in sorted sequences: SearchSorted / SearchSorteds (aclnn_searchsorted.h,
//! torch.searchsorted) and Bucketize (aclnn_bucketize.h, torch.bucketize).
//!
//! For each element of self, the index at which it would be inserted into its row of
//! sortedSequence (a 1-D sequence for every element, or an N-D one whose leading dims
//! match self's: one row per leading index) keeping it sorted: the first position whose
//! value is ≥ it (`right` false), or > it (`right` true). The search is torch's, step for
//! step (`mid = lo + (hi − lo) / 2`, moving right unless `row[mid] >= v`, or `> v`), so a
//! NaN — which compares false — is inserted after everything, and an unsorted row gives
//! torch's answer too. `sorter` (int64, the sequence's shape) gives each row's sorting
//! permutation; an entry outside [0, row length) fails the run (nothing written).
//! Values are compared in the promoted dtype of the two inputs (CANN casts both to it):
//! each is converted to that dtype once, then compared exactly (in f64, or i64). The
//! result is int32 (`outInt32`) or int64.
//!
//! SearchSorteds searches one scalar, converted as CANN's op_api does (to f32, then to
//! sortedSequence's dtype), and writes out's first element. Bucketize is the search of
//! self in the 1-D `boundaries`; Atlas A2 has no BucketizeV2 kernel (CANN's op_api
//! refuses the call there), so its dtypes are the ones CANN documents for the Ascend 950.

use super::advanced_index::walk_offsets;
use super::catalog::Entry;
use super::elementwise as ew;
use super::index::apart;
use crate::dtype::{promote, DType};
use crate::engine::{convert, pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::sync::Arc;

use DType::*;

/// aclnnSearchSorted.md (sortedSequence, self and their promoted dtype).
const SEARCH: &[DType] = &[F16, F32, S16, S8, U8, S32, S64, F64];
/// aclnnBucketize.md (Ascend 950; not on Atlas A2).
const BUCKETIZE: &[DType] = &[F32, F16, S32, S16, BF16, S8, U8, S64];
const SORTER: &[DType] = &[S64];
const OUT: &[DType] = &[S32, S64];
/// Elements per task.
const GRAIN: usize = 16 * 1024;

/// A value as the search compares it: the element converted to the compare dtype, then
/// widened exactly.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Wide {
    F(f64),
    I(i64),
}

/// Reads the elements of `t` at `base` in row-major order, each converted to `via` and
/// widened exactly (to f64 for floats, i64 for integers).
///
/// # Safety
/// `base` is the address of t's element 0 (offset applied) in its bound storage.
unsafe fn load(t: &TensorDesc, base: usize, via: DType) -> Vec<Wide> {
    let n = t.numel();
    let e = t.dtype.size() as isize;
    let float = via.is_float();
    let mut tmp = [0u8; 16];
    let mut out = Vec::with_capacity(n);
    walk_offsets(&t.shape, &t.strides, 0, n, |_, o| {
        let mut w = [0u8; 8];
        // SAFETY: an element of t's view; tmp and w hold one element of via / the wide dtype.
        unsafe {
            let p = (base as isize + o * e) as *const u8;
            convert::run(p, t.dtype, 1, tmp.as_mut_ptr(), via, 1, 1);
            let wd = if float { F64 } else { S64 };
            convert::run(tmp.as_ptr(), via, 1, w.as_mut_ptr(), wd, 1, 1);
        }
        out.push(if float {
            Wide::F(f64::from_le_bytes(w))
        } else {
            Wide::I(i64::from_le_bytes(w))
        });
    });
    out
}

/// torch's lower (`right` false) or upper bound of `v` in `row` (through `sorter`).
fn bound(row: &[Wide], sorter: Option<&[usize]>, v: Wide, right: bool) -> usize {
    let (mut lo, mut hi) = (0, row.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let x = match sorter {
            Some(s) => row[s[mid]],
            None => row[mid],
        };
        let go_right = if right { !(x > v) } else { !(x >= v) };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Where the searched values come from.
#[derive(Clone, Debug)]
enum Needles {
    /// Self's elements (binding 1), in row-major order.
    Tensor,
    /// One host value (SearchSorteds).
    Value(Scalar),
}

/// The planned search: sequence (binding 0), self (1, or a host value), sorter (binding
/// 2 if given), out (the last binding).
struct Search {
    api: &'static str,
    needles: Needles,
    /// The dtype both sides are compared in.
    via: DType,
    right: bool,
    sorter: Option<usize>,
    out: usize,
    /// Elements of self per row of the sequence (all of them for a 1-D sequence).
    per_row: usize,
}

impl Work for Search {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let seq = b.view(0)?;
        let row_len = seq.shape.last().copied().unwrap_or(1);
        // SAFETY: the bound views' element 0.
        let rows = unsafe { load(seq, b.addr(0)? + seq.offset * seq.dtype.size(), self.via) };
        let needles = match &self.needles {
            Needles::Tensor => {
                let s = b.view(1)?;
                // SAFETY: as above.
                unsafe { load(s, b.addr(1)? + s.offset * s.dtype.size(), self.via) }
            }
            Needles::Value(v) => {
                let mut one = seq.clone();
                one.dtype = v.dtype;
                one.shape = smallvec::smallvec![1];
                one.strides = smallvec::smallvec![1];
                one.offset = 0;
                // SAFETY: the scalar's bytes hold one element of its dtype.
                unsafe { load(&one, v.bytes().as_ptr() as usize, self.via) }
            }
        };
        let sorter = match self.sorter {
            Some(k) => {
                let s = b.view(k)?;
                let mut at = Vec::with_capacity(s.numel());
                let base = b.addr(k)? + s.offset * 8;
                walk_offsets(&s.shape, &s.strides, 0, s.numel(), |_, o| {
                    // SAFETY: an int64 element of sorter's view.
                    at.push(unsafe { ((base as isize + o * 8) as *const i64).read_unaligned() })
                });
                let mut perm = Vec::with_capacity(at.len());
                for (i, &x) in at.iter().enumerate() {
                    if !(0..row_len as i64).contains(&x) {
                        return Err(Error::Invalid(format!(
                            "{}: sorter element {i} is {x}, outside [0, {row_len}) (the length of a row of sortedSequence): nothing was written",
                            self.api
                        )));
                    }
                    perm.push(x as usize);
                }
                Some(perm)
            }
            None => None,
        };
        let n = needles.len();
        let mut found = vec![0i64; n];
        let tasks = pool().current_num_threads().min(n.div_ceil(GRAIN)).max(1);
        let dst = found.as_mut_ptr() as usize;
        run_tasks(tasks, |t| {
            for i in n * t / tasks..n * (t + 1) / tasks {
                let r = i / self.per_row;
                let row = &rows[r * row_len..(r + 1) * row_len];
                let srt = sorter.as_ref().map(|s| &s[r * row_len..(r + 1) * row_len]);
                let at = bound(row, srt, needles[i], self.right) as i64;
                // SAFETY: i < n, and each task writes its own range of `found`.
                unsafe { (dst as *mut i64).add(i).write(at) };
            }
        });
        let out = b.view(self.out)?;
        let es = out.dtype.size() as isize;
        let base = b.addr(self.out)? + out.offset * es as usize;
        let n = found.len().min(out.numel());
        walk_offsets(&out.shape, &out.strides, 0, n, |k, o| {
            // SAFETY: an element of out's bound view.
            unsafe {
                convert::run(
                    found[k..].as_ptr() as *const u8,
                    S64,
                    1,
                    (base as isize + o * es) as *mut u8,
                    out.dtype,
                    1,
                    1,
                )
            }
        });
        Ok(())
    }
}

/// out is int32 when `out_int32`, else int64.
fn check_out_dtype(out: &TensorDesc, out_int32: bool) -> Result<()> {
    let want = if out_int32 { S32 } else { S64 };
    ew::check_tensor("out", out, OUT)?;
    crate::ensure!(
        out.dtype == want,
        "out has dtype {} but must be {want} (outInt32 is {out_int32})",
        out.dtype
    );
    Ok(())
}

/// The checks of SearchSorted (aclnn_searchsorted.cpp's order), on the sequence, self's
/// shape and dtype, out and sorter; the compare dtype.
fn check_search(
    seq: &TensorDesc,
    self_shape: &[usize],
    self_dtype: DType,
    out_int32: bool,
    sorter: Option<&TensorDesc>,
    out: &TensorDesc,
) -> Result<DType> {
    ew::check_tensor("sortedSequence", seq, SEARCH)?;
    crate::ensure!(
        SEARCH.contains(&self_dtype),
        "self has dtype {self_dtype}, which SearchSorted does not support; supported: {SEARCH:?}"
    );
    check_out_dtype(out, out_int32)?;
    if let Some(s) = sorter {
        ew::check_tensor("sorter", s, SORTER)?;
    }
    crate::ensure!(
        self_shape.len() <= 8,
        "self has {} dims; at most 8 are supported",
        self_shape.len()
    );
    crate::ensure!(
        out.shape[..] == self_shape[..],
        "out has shape {:?} but must have self's shape {self_shape:?}",
        out.shape
    );
    if let Some(s) = sorter {
        crate::ensure!(
            s.shape == seq.shape,
            "sorter has shape {:?} but must have sortedSequence's shape {:?}",
            s.shape,
            seq.shape
        );
    }
    let r = seq.rank();
    crate::ensure!(
        r > 0,
        "sortedSequence is 0-d; it must have at least one dim"
    );
    if self_shape == [1] || self_shape.is_empty() {
        crate::ensure!(
            r == 1,
            "self is a single value, which needs a 1-D sortedSequence, but sortedSequence has shape {:?}",
            seq.shape
        );
    }
    let leading_match = r == self_shape.len() && seq.shape[..r - 1] == self_shape[..r - 1];
    crate::ensure!(
        r == 1 || leading_match,
        "sortedSequence must be 1-D or match self in all dims but the last, but sortedSequence has shape {:?} and self {self_shape:?}",
        seq.shape
    );
    let via = promote(seq.dtype, self_dtype);
    match via {
        Some(v) if SEARCH.contains(&v) => Ok(v),
        _ => crate::bail!(
            "sortedSequence ({}) and self ({self_dtype}) promote to {via:?}, which SearchSorted does not support",
            seq.dtype
        ),
    }
}

/// The executor of a search of `per_row` needles per row, bindings (sequence, self?,
/// sorter?, out).
#[allow(clippy::too_many_arguments)]
fn plan(
    api: &'static str,
    seq: &TensorDesc,
    self_: Option<&TensorDesc>,
    needles: Needles,
    via: DType,
    right: bool,
    sorter: Option<&TensorDesc>,
    out: &TensorDesc,
    per_row: usize,
) -> Result<Executor> {
    let mut views = vec![Some(seq.clone())];
    views.extend(self_.map(|s| Some(s.clone())));
    let sorter_binding = sorter.map(|s| {
        views.push(Some(s.clone()));
        views.len() - 1
    });
    views.push(Some(out.clone()));
    let nv = views.len();
    let bindings = Bindings {
        tensors: Arc::new(views),
        n_inputs: nv - 1,
        outputs: smallvec::smallvec![nv - 1],
    };
    if out.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    out.check_output("out")?;
    apart(api, "sortedSequence", seq, "out", out)?;
    if let Some(s) = self_ {
        apart(api, "self", s, "out", out)?;
    }
    if let Some(s) = sorter {
        apart(api, "sorter", s, "out", out)?;
    }
    let work = Search {
        api,
        needles,
        via,
        right,
        sorter: sorter_binding,
        out: nv - 1,
        per_row: per_row.max(1),
    };
    Ok(Executor::new(api, bindings, work))
}

/// Needles per row: all of self for a 1-D sequence, else the size of self's last dim.
fn per_row(seq: &TensorDesc, self_shape: &[usize]) -> usize {
    if seq.rank() == 1 {
        self_shape.iter().product()
    } else {
        self_shape.last().copied().unwrap_or(1)
    }
}

/// aclnnSearchSorted: `out = searchsorted(sortedSequence, self, right, sorter)`.
pub fn search_sorted(
    sorted_sequence: &TensorDesc,
    self_: &TensorDesc,
    out_int32: bool,
    right: bool,
    sorter: Option<&TensorDesc>,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, SEARCH)?;
    let via = check_search(
        sorted_sequence,
        &self_.shape,
        self_.dtype,
        out_int32,
        sorter,
        out,
    )?;
    plan(
        "aclnnSearchSorted",
        sorted_sequence,
        Some(self_),
        Needles::Tensor,
        via,
        right,
        sorter,
        out,
        per_row(sorted_sequence, &self_.shape),
    )
}

/// aclnnSearchSorteds: the insertion index of one scalar, written to out's first element.
pub fn search_sorteds(
    sorted_sequence: &TensorDesc,
    self_: &Scalar,
    out_int32: bool,
    right: bool,
    sorter: Option<&TensorDesc>,
    out: &TensorDesc,
) -> Result<Executor> {
    // CANN's op_api: the scalar as f32, then as a one-element tensor of the sequence's dtype.
    crate::ensure!(
        !self_.dtype.is_complex(),
        "self is a complex scalar ({self_}): SearchSorteds takes a real value"
    );
    let as_f32 = self_.cast(F32);
    let value = as_f32.cast(sorted_sequence.dtype);
    crate::ensure!(
        !out.is_empty(),
        "out is empty; it must have shape [1] (SearchSorteds writes one index)"
    );
    // out is seen as its first element, as CANN resets its view to [1].
    let mut first = out.clone();
    first.shape = smallvec::smallvec![1];
    first.strides = smallvec::smallvec![1];
    let via = check_search(
        sorted_sequence,
        &[1],
        sorted_sequence.dtype,
        out_int32,
        sorter,
        &first,
    )?;
    plan(
        "aclnnSearchSorteds",
        sorted_sequence,
        None,
        Needles::Value(value),
        via,
        right,
        sorter,
        &first,
        1,
    )
}

/// aclnnBucketize: `out = bucketize(self, boundaries, right)` (boundaries 1-D).
pub fn bucketize(
    self_: &TensorDesc,
    boundaries: &TensorDesc,
    out_int32: bool,
    right: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, BUCKETIZE)?;
    ew::check_tensor("boundaries", boundaries, BUCKETIZE)?;
    check_out_dtype(out, out_int32)?;
    crate::ensure!(
        out.shape == self_.shape,
        "out has shape {:?} but must have self's shape {:?}",
        out.shape,
        self_.shape
    );
    crate::ensure!(
        boundaries.rank() == 1,
        "boundaries has {} dims; it must be 1-D",
        boundaries.rank()
    );
    // A 0-d self joins as a scalar (CANN's CombineCategories): boundaries' dtype unless
    // only self is a float.
    let (b, s) = (boundaries.dtype, self_.dtype);
    let via = if self_.rank() == 0 {
        if b.is_float() || !s.is_float() {
            Some(b)
        } else {
            promote(b, s)
        }
    } else {
        promote(self_.dtype, boundaries.dtype)
    };
    let via = via.ok_or_else(|| {
        Error::Invalid(format!(
            "self ({}) and boundaries ({}) cannot be promoted to one dtype",
            self_.dtype, boundaries.dtype
        ))
    })?;
    plan(
        "aclnnBucketize",
        boundaries,
        Some(self_),
        Needles::Tensor,
        via,
        right,
        None,
        out,
        self_.numel(),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "SearchSorted, SearchSorteds",
        a: SEARCH,
        b: SEARCH,
        out: OUT,
        rule: "insertion index in the sorted last dim (left/right), compared in the promoted dtype",
    },
    Entry {
        ops: "Bucketize",
        a: BUCKETIZE,
        b: BUCKETIZE,
        out: OUT,
        rule:
            "bucket index of each element in the 1-D boundaries (Ascend 950 list; not on Atlas A2)",
    },
];
