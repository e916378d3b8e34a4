//! Deduplication, whose output size is in the data: Unique (aclnn_unique.h), Unique2
//! (aclnn_unique2.h, + counts), UniqueConsecutive (aclnn_unique_consecutive.h: runs of
//! equal neighbours, flattened or along a dim) and UniqueDim (aclnn_unique_dim.h: equal
//! slices along a dim), as torch.unique / torch.unique_consecutive.
//!
//! One engine: self is seen as n *slices* of m elements — n = numel(self), m = 1 when
//! flattened; n = size(dim), m = numel / n along a dim. Each element becomes an
//! order-preserving key (sort.rs's: NaN above +inf, −0 as +0; a complex number two keys).
//! Unique and UniqueDim sort the slices (lexicographically by key, ties by position, so a
//! group's representative is its first occurrence) — whatever `sorted` says, as the
//! Atlas A2 kernels do and as torch always does for unique_dim; UniqueConsecutive keeps
//! self's order. A group is a run of equal slices, equality being `==` element by element:
//! −0 equals +0, and a NaN equals nothing, so every NaN is a group of its own (after the
//! numbers, in position order, when sorted). valueOut takes each group's representative
//! slice, inverseOut each slice's group, countsOut each group's size (int64; int32 too
//! for UniqueConsecutive).
//!
//! Output size (CANN's output-shape contract, as for Nonzero): valueOut, countsOut (and
//! inverseOut along a dim) are sized by the caller at least as large as the result —
//! CANN's examples size valueOut and countsOut at numel(self) — 1-D or contiguous; the run
//! writes the result compactly from their first element and the tensors then take the
//! real view ([U]; self's shape with U along dim; [size(dim)]): `aclGetViewShape` after
//! synchronizing returns it (see capi/reported.rs). A result larger than an output fails
//! the run with nothing written. Flattened, inverseOut has self's shape and is written in
//! its own view. Outputs not asked for (returnInverse / returnCounts false) are neither
//! written nor reshaped.

use super::advanced_index::walk_offsets;
use super::catalog::Entry;
use super::elementwise as ew;
use super::index::apart;
use super::sort::{float_key, int_key};
use crate::dtype::DType;
use crate::engine::{convert, pool};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, ShapeReport, Work, Workspace};
use crate::tensor::{contiguous_strides, Dims, Strides, TensorDesc};
use rayon::slice::ParallelSliceMut;
use std::cmp::Ordering;
use std::sync::Arc;

use DType::*;

/// aclnnUnique.md / aclnnUnique2.md, Atlas A2 (unique_common.cpp's 910B list).
const UNIQUE: &[DType] = &[
    Bool, U8, S8, U16, S16, U32, S32, U64, S64, F64, F32, F16, BF16,
];
/// aclnnUniqueConsecutive.md, Atlas A2.
const CONSECUTIVE: &[DType] = &[
    U8, S8, U16, S16, U32, S32, U64, S64, F64, F32, F16, C64, C128, Bool, BF16,
];
/// aclnnUniqueDim.md, Atlas A2.
const UNIQUE_DIM: &[DType] = UNIQUE;
const INDEX: &[DType] = &[S64];
/// UniqueConsecutive's inverseOut and countsOut (one dtype for both).
const CONSECUTIVE_INDEX: &[DType] = &[S32, S64];
/// UniqueConsecutive's `dim` meaning "flatten" (aclnnUniqueConsecutive.md).
pub const NO_DIM: i64 = 1000;
/// Flattened inputs at least this long are sorted by the whole pool.
const PARALLEL_SORT: usize = 1 << 15;

/// An element's identity: its order-preserving key (the real part's for a complex
/// number, whose imaginary part's key is `imag`) and whether it is NaN (equal to nothing).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key {
    key: u64,
    imag: u64,
    nan: bool,
}

impl Key {
    fn float(x: f64) -> Key {
        Key {
            key: float_key(x),
            imag: 0,
            nan: x.is_nan(),
        }
    }
    fn int(x: i64) -> Key {
        Key {
            key: int_key(x),
            imag: 0,
            nan: false,
        }
    }
    fn complex(re: f64, im: f64) -> Key {
        Key {
            key: float_key(re),
            imag: float_key(im),
            nan: re.is_nan() || im.is_nan(),
        }
    }
    /// torch's `==`: −0 equals +0, a NaN equals nothing.
    fn equals(&self, o: &Key) -> bool {
        self.key == o.key && self.imag == o.imag && !self.nan && !o.nan
    }
    fn order(&self, o: &Key) -> Ordering {
        (self.key, self.imag).cmp(&(o.key, o.imag))
    }
}

/// The key of the element of dtype `d` at `p`.
///
/// # Safety
/// `p` addresses one readable element of `d`.
unsafe fn key_at(d: DType, p: *const u8) -> Key {
    // SAFETY: as the caller guarantees; unaligned reads.
    unsafe {
        let u16_at = |p: *const u8| (p as *const u16).read_unaligned();
        match d {
            F64 => Key::float((p as *const f64).read_unaligned()),
            F32 => Key::float((p as *const f32).read_unaligned() as f64),
            F16 => Key::float(half::f16::from_bits(u16_at(p)).to_f64()),
            BF16 => Key::float(half::bf16::from_bits(u16_at(p)).to_f64()),
            S8 => Key::int(*(p as *const i8) as i64),
            S16 => Key::int((p as *const i16).read_unaligned() as i64),
            S32 => Key::int((p as *const i32).read_unaligned() as i64),
            S64 => Key::int((p as *const i64).read_unaligned()),
            U8 => Key::int(*p as i64),
            U16 => Key::int(u16_at(p) as i64),
            U32 => Key::int((p as *const u32).read_unaligned() as i64),
            // Unsigned 64-bit values order as themselves.
            U64 => Key {
                key: (p as *const u64).read_unaligned(),
                imag: 0,
                nan: false,
            },
            Bool => Key::int((*p != 0) as i64),
            C64 => Key::complex(
                (p as *const f32).read_unaligned() as f64,
                (p as *const f32).add(1).read_unaligned() as f64,
            ),
            C128 => Key::complex(
                (p as *const f64).read_unaligned(),
                (p as *const f64).add(1).read_unaligned(),
            ),
            C32 | S4 => unreachable!("{d} is refused at phase 1"),
        }
    }
}

/// How the slices are grouped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Grouping {
    /// Equal slices wherever they are (sorted first): Unique, Unique2, UniqueDim.
    Sorted,
    /// Runs of equal neighbours: UniqueConsecutive.
    Consecutive,
}

/// An output the run writes compactly: its binding, the stride of its run of elements and
/// the report its view takes.
#[derive(Clone, Debug)]
struct Compact {
    binding: usize,
    stride: isize,
    report: ShapeReport,
}

/// The planned deduplication of self (binding 0).
struct UniqueWork {
    api: &'static str,
    grouping: Grouping,
    /// The axis of the slices; None: flattened (slices of one element).
    dim: Option<usize>,
    value: Compact,
    /// Flattened: (binding, None) — inverseOut has self's shape and is written in its view;
    /// along a dim: (binding, Some(compact run)).
    inverse: Option<(usize, Option<Compact>)>,
    counts: Option<Compact>,
}

/// The result: each group's representative slice, each slice's group, each group's size.
struct Groups {
    reps: Vec<usize>,
    inverse: Vec<i64>,
    counts: Vec<i64>,
}

/// Groups `n` slices of `m` keys each (`keys[j * m + t]`).
fn group(keys: &[Key], n: usize, m: usize, grouping: Grouping) -> Groups {
    let slice = |j: usize| &keys[j * m..(j + 1) * m];
    let mut order: Vec<usize> = (0..n).collect();
    if grouping == Grouping::Sorted {
        if m == 1 {
            // One integer sort: the key, then the position.
            let mut packed: Vec<u128> = (0..n)
                .map(|j| (keys[j].key as u128) << 64 | j as u128)
                .collect();
            if n >= PARALLEL_SORT {
                pool().install(|| packed.par_sort_unstable());
            } else {
                packed.sort_unstable();
            }
            order = packed.into_iter().map(|k| k as u64 as usize).collect();
        } else {
            // Lexicographic by key; the stable sort keeps equal slices in position order.
            order.sort_by(|&a, &b| {
                slice(a)
                    .iter()
                    .zip(slice(b))
                    .map(|(x, y)| x.order(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            });
        }
    }
    let same = |a: usize, b: usize| slice(a).iter().zip(slice(b)).all(|(x, y)| x.equals(y));
    let mut g = Groups {
        reps: Vec::new(),
        inverse: vec![0; n],
        counts: Vec::new(),
    };
    for (p, &j) in order.iter().enumerate() {
        if p == 0 || !same(order[p - 1], j) {
            g.reps.push(j);
            g.counts.push(0);
        }
        *g.counts.last_mut().expect("a group was opened") += 1;
        g.inverse[j] = g.reps.len() as i64 - 1;
    }
    g
}

impl UniqueWork {
    /// Writes the i64 `values` as out's dtype at `base` (an element of `out`), `stride` apart.
    ///
    /// # Safety
    /// `values.len()` elements `stride` apart from `base` lie in out's view.
    unsafe fn write_indices(values: &[i64], out: &TensorDesc, base: usize, stride: isize) {
        // SAFETY: as the caller guarantees; the source is the host vector.
        unsafe {
            convert::run(
                values.as_ptr() as *const u8,
                S64,
                1,
                base as *mut u8,
                out.dtype,
                stride,
                values.len(),
            )
        }
    }
}

impl Work for UniqueWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let s = b.view(0)?;
        let sd = s.dtype;
        let e = sd.size();
        let src0 = b.addr(0)? + s.offset * e;
        let numel = s.numel();
        // self's element offsets in row-major order, and their keys.
        let mut offsets = Vec::with_capacity(numel);
        walk_offsets(&s.shape, &s.strides, 0, numel, |_, o| offsets.push(o));
        // (outer, n, inner): slice j's element t = (o, i) is self's (o, j, i).
        let (outer, n, inner) = match self.dim {
            None => (1, numel, 1),
            Some(d) => {
                let n = s.shape[d];
                let inner: usize = s.shape[d + 1..].iter().product();
                (numel / (n * inner), n, inner)
            }
        };
        let m = outer * inner;
        let flat_of = |j: usize, t: usize| ((t / inner) * n + j) * inner + t % inner;
        let mut keys = Vec::with_capacity(numel);
        for j in 0..n {
            for t in 0..m {
                let p = (src0 as isize + offsets[flat_of(j, t)] * e as isize) as *const u8;
                // SAFETY: an element of self's bound view.
                keys.push(unsafe { key_at(sd, p) });
            }
        }
        let g = group(&keys, n, m, self.grouping);
        let u = g.reps.len();
        // Every output must hold its part of the result before anything is written.
        let value = b.view(self.value.binding)?;
        crate::ensure!(
            u * m <= value.numel(),
            "{}: the result has {u} unique {} ({} elements), more than valueOut's {}: nothing was written",
            self.api,
            if self.dim.is_some() { "slices" } else { "elements" },
            u * m,
            value.numel()
        );
        if let Some(c) = &self.counts {
            let counts = b.view(c.binding)?;
            crate::ensure!(
                u <= counts.numel(),
                "{}: the result has {u} unique values, more than countsOut's {} elements: nothing was written",
                self.api,
                counts.numel()
            );
        }
        if let Some((ib, Some(_))) = &self.inverse {
            let inv = b.view(*ib)?;
            crate::ensure!(
                n <= inv.numel(),
                "{}: inverseOut needs {n} elements (the size of dim) but has {}: nothing was written",
                self.api,
                inv.numel()
            );
        }
        // valueOut: group u's representative slice at (o, u, i), row-major.
        let vd = value.dtype;
        let mut gathered = vec![0u8; u * m * e];
        for o in 0..outer {
            for (k, &j) in g.reps.iter().enumerate() {
                for i in 0..inner {
                    let at = offsets[(o * n + j) * inner + i];
                    let to = ((o * u + k) * inner + i) * e;
                    // SAFETY: an element of self's bound view; `to` is inside `gathered`.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            (src0 as isize + at * e as isize) as *const u8,
                            gathered.as_mut_ptr().add(to),
                            e,
                        )
                    };
                }
            }
        }
        let v0 = b.addr(self.value.binding)? + value.offset * vd.size();
        // SAFETY: u·m ≤ numel(valueOut) elements, its compact run (checked at phase 1).
        unsafe {
            convert::run(
                gathered.as_ptr(),
                sd,
                1,
                v0 as *mut u8,
                vd,
                self.value.stride,
                u * m,
            )
        };
        let shape: Dims = match self.dim {
            None => smallvec::smallvec![u],
            Some(d) => {
                let mut sh = s.shape.clone();
                sh[d] = u;
                sh
            }
        };
        let strides: Strides = if shape.len() == 1 {
            smallvec::smallvec![self.value.stride]
        } else {
            contiguous_strides(&shape)
        };
        self.value.report.publish(shape, strides);
        if let Some(c) = &self.counts {
            let counts = b.view(c.binding)?;
            let c0 = b.addr(c.binding)? + counts.offset * counts.dtype.size();
            // SAFETY: u ≤ numel(countsOut), its compact run.
            unsafe { UniqueWork::write_indices(&g.counts, counts, c0, c.stride) };
            c.report
                .publish(smallvec::smallvec![u], smallvec::smallvec![c.stride]);
        }
        if let Some((ib, run)) = &self.inverse {
            let inv = b.view(*ib)?;
            let es = inv.dtype.size() as isize;
            let i0 = b.addr(*ib)? + inv.offset * es as usize;
            match run {
                // inverseOut has self's shape: element k of self's row-major order.
                None => {
                    let mut at = Vec::with_capacity(numel);
                    walk_offsets(&inv.shape, &inv.strides, 0, numel, |_, o| at.push(o));
                    for (k, o) in at.into_iter().enumerate() {
                        // SAFETY: an element of inverseOut's bound view.
                        unsafe {
                            UniqueWork::write_indices(
                                &g.inverse[k..k + 1],
                                inv,
                                (i0 as isize + o * es) as usize,
                                1,
                            )
                        };
                    }
                }
                Some(c) => {
                    // SAFETY: n ≤ numel(inverseOut), its compact run.
                    unsafe { UniqueWork::write_indices(&g.inverse, inv, i0, c.stride) };
                    c.report
                        .publish(smallvec::smallvec![n], smallvec::smallvec![c.stride]);
                }
            }
        }
        Ok(())
    }
    fn small(&self) -> bool {
        false
    }
}

/// The stride of `t`'s compact run of elements: a 1-D view's own, else 1 (it must be
/// contiguous, as its view becomes the result's shape).
fn run_stride(name: &str, t: &TensorDesc) -> Result<isize> {
    t.check_output(name)?;
    if t.rank() == 1 {
        return Ok(t.strides[0]);
    }
    let mut want = 1isize;
    for d in (0..t.rank()).rev() {
        crate::ensure!(
            t.shape[d] == 1 || t.strides[d] == want,
            "{name} ({}) must be 1-D or contiguous: the result is written compactly and {name}'s view becomes its shape",
            t.describe()
        );
        want *= t.shape[d] as isize;
    }
    Ok(1)
}

/// The outputs of one deduplication: (name, view) of each, None when not written.
struct Outputs<'a> {
    value: &'a TensorDesc,
    inverse: Option<&'a TensorDesc>,
    counts: Option<&'a TensorDesc>,
}

/// Plans the deduplication of `self_` with the outputs bound after it in `all` order
/// (valueOut, inverseOut, countsOut if the operator has it).
fn plan(
    api: &'static str,
    self_: &TensorDesc,
    all: &[&TensorDesc],
    grouping: Grouping,
    dim: Option<usize>,
    outs: Outputs,
) -> Result<Executor> {
    let mut views: Vec<Option<TensorDesc>> = vec![Some(self_.clone())];
    views.extend(all.iter().map(|t| Some((*t).clone())));
    let bindings = Bindings {
        tensors: Arc::new(views),
        n_inputs: 1,
        outputs: (1..=all.len()).collect(),
    };
    if self_.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    let binding_of = |t: &TensorDesc| {
        1 + all
            .iter()
            .position(|a| std::ptr::eq(*a, t))
            .expect("an output of the operator")
    };
    let compact = |name: &'static str, t: &TensorDesc| -> Result<Compact> {
        apart(api, "self", self_, name, t)?;
        Ok(Compact {
            binding: binding_of(t),
            stride: run_stride(name, t)?,
            report: ShapeReport::default(),
        })
    };
    let value = compact("valueOut", outs.value)?;
    let counts = outs.counts.map(|c| compact("countsOut", c)).transpose()?;
    let inverse = match outs.inverse {
        None => None,
        Some(i) if dim.is_none() => {
            crate::ensure!(
                i.shape == self_.shape,
                "inverseOut has shape {:?} but must have self's shape {:?}",
                i.shape,
                self_.shape
            );
            i.check_output("inverseOut")?;
            apart(api, "self", self_, "inverseOut", i)?;
            Some((binding_of(i), None))
        }
        Some(i) => Some((binding_of(i), Some(compact("inverseOut", i)?))),
    };
    let mut reports = vec![(outs.value, value.report.clone())];
    if let (Some(c), Some(k)) = (outs.counts, &counts) {
        reports.push((c, k.report.clone()));
    }
    if let (Some(i), Some((_, Some(k)))) = (outs.inverse, &inverse) {
        reports.push((i, k.report.clone()));
    }
    let work = UniqueWork {
        api,
        grouping,
        dim,
        value,
        inverse,
        counts,
    };
    let mut exec = Executor::new(api, bindings, work);
    for (t, r) in reports {
        exec = exec.reporting(t, r);
    }
    Ok(exec)
}

/// The checks Unique and Unique2 share: dtypes, then the rank.
fn check_unique(self_: &TensorDesc, value_out: &TensorDesc) -> Result<()> {
    ew::check_tensor("self", self_, UNIQUE)?;
    ew::check_tensor("valueOut", value_out, UNIQUE)?;
    ew::check_same_dtype("valueOut", value_out, self_)
}

/// aclnnUnique: self's distinct elements, sorted; inverseOut (self's shape) if asked.
pub fn unique(
    self_: &TensorDesc,
    _sorted: bool,
    return_inverse: bool,
    value_out: &TensorDesc,
    inverse_out: &TensorDesc,
) -> Result<Executor> {
    check_unique(self_, value_out)?;
    ew::check_tensor("inverseOut", inverse_out, INDEX)?;
    if return_inverse {
        same_shape("inverseOut", inverse_out, self_)?;
    }
    plan(
        "aclnnUnique",
        self_,
        &[value_out, inverse_out],
        Grouping::Sorted,
        None,
        Outputs {
            value: value_out,
            inverse: return_inverse.then_some(inverse_out),
            counts: None,
        },
    )
}

fn same_shape(name: &str, t: &TensorDesc, self_: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.shape == self_.shape,
        "{name} has shape {:?} but must have self's shape {:?}",
        t.shape,
        self_.shape
    );
    Ok(())
}

/// aclnnUnique2: Unique with countsOut; inverseOut is written when either is asked for.
#[allow(clippy::too_many_arguments)]
pub fn unique2(
    self_: &TensorDesc,
    _sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    value_out: &TensorDesc,
    inverse_out: &TensorDesc,
    counts_out: &TensorDesc,
) -> Result<Executor> {
    check_unique(self_, value_out)?;
    ew::check_tensor("inverseOut", inverse_out, INDEX)?;
    ew::check_tensor("countsOut", counts_out, INDEX)?;
    if return_inverse || return_counts {
        same_shape("inverseOut", inverse_out, self_)?;
    }
    if return_counts {
        crate::ensure!(
            counts_out.shape == value_out.shape,
            "countsOut has shape {:?} but must have valueOut's shape {:?}",
            counts_out.shape,
            value_out.shape
        );
    }
    plan(
        "aclnnUnique2",
        self_,
        &[value_out, inverse_out, counts_out],
        Grouping::Sorted,
        None,
        Outputs {
            value: value_out,
            inverse: (return_inverse || return_counts).then_some(inverse_out),
            counts: return_counts.then_some(counts_out),
        },
    )
}

/// `dim` in [-r, r) for r = max(rank, 1), as aclnn's CheckDimValue.
fn slice_axis(dim: i64, self_: &TensorDesc) -> Result<usize> {
    ew::axis("dim", dim, self_.rank().max(1), "self")
}

/// aclnnUniqueConsecutive: runs of equal neighbours, flattened (dim = 1000) or of slices
/// along dim.
#[allow(clippy::too_many_arguments)]
pub fn unique_consecutive(
    self_: &TensorDesc,
    return_inverse: bool,
    return_counts: bool,
    dim: i64,
    value_out: &TensorDesc,
    inverse_out: &TensorDesc,
    counts_out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, CONSECUTIVE)?;
    ew::check_tensor("valueOut", value_out, CONSECUTIVE)?;
    ew::check_same_dtype("valueOut", value_out, self_)?;
    ew::check_tensor("inverseOut", inverse_out, CONSECUTIVE_INDEX)?;
    ew::check_tensor("countsOut", counts_out, CONSECUTIVE_INDEX)?;
    crate::ensure!(
        inverse_out.dtype == counts_out.dtype,
        "inverseOut ({}) and countsOut ({}) must have the same dtype",
        inverse_out.dtype,
        counts_out.dtype
    );
    let axis = if dim == NO_DIM {
        None
    } else {
        Some(slice_axis(dim, self_)?)
    };
    plan(
        "aclnnUniqueConsecutive",
        self_,
        &[value_out, inverse_out, counts_out],
        Grouping::Consecutive,
        axis.filter(|_| self_.rank() > 0),
        Outputs {
            value: value_out,
            inverse: return_inverse.then_some(inverse_out),
            counts: return_counts.then_some(counts_out),
        },
    )
}

/// aclnnUniqueDim: the distinct slices along dim, sorted; counts always, inverse if asked.
#[allow(clippy::too_many_arguments)]
pub fn unique_dim(
    self_: &TensorDesc,
    _sorted: bool,
    return_inverse: bool,
    dim: i64,
    value_out: &TensorDesc,
    inverse_out: &TensorDesc,
    counts_out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, UNIQUE_DIM)?;
    ew::check_tensor("inverseOut", inverse_out, INDEX)?;
    ew::check_tensor("countsOut", counts_out, INDEX)?;
    ew::check_tensor("valueOut", value_out, UNIQUE_DIM)?;
    ew::check_same_dtype("valueOut", value_out, self_)?;
    let axis = slice_axis(dim, self_)?;
    plan(
        "aclnnUniqueDim",
        self_,
        &[value_out, inverse_out, counts_out],
        Grouping::Sorted,
        (self_.rank() > 0).then_some(axis),
        Outputs {
            value: value_out,
            inverse: return_inverse.then_some(inverse_out),
            counts: Some(counts_out),
        },
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Unique, Unique2",
        a: UNIQUE,
        b: &[],
        out: UNIQUE,
        rule: "distinct elements, sorted (NaNs each distinct), s64 inverse and counts; out shape reported",
    },
    Entry {
        ops: "UniqueConsecutive",
        a: CONSECUTIVE,
        b: &[],
        out: CONSECUTIVE,
        rule: "runs of equal neighbours (flattened or slices along dim), s32/s64 inverse and counts",
    },
    Entry {
        ops: "UniqueDim",
        a: UNIQUE_DIM,
        b: &[],
        out: UNIQUE_DIM,
        rule: "distinct slices along dim, sorted lexicographically, s64 inverse and counts",
    },
];
