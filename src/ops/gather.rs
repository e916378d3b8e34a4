//! The gather/scatter engine: every index-driven copy is one planned `Plan`.
//!
//! A plan walks an iteration space (`shape`). At each point `p` it moves one element
//!
//! - gather  (`Side::Source`):      `dst[p] = src[p + idx(p) along the axis]`
//! - scatter (`Side::Destination`): `dst[p + idx(p) along the axis] (op)= src[p]`
//!
//! where every operand is a strided view given by per-iteration-dim strides (0 where the
//! operand does not move with that dim), `idx(p)` is read from an index tensor (or a host
//! array planned at phase 1) by its own strides, and "along the axis" is one stride of the
//! addressed operand (or, for a flat axis, the row-major unravel of an index over a shape:
//! how Take and the dim-less RepeatInterleave see a tensor as 1-D without copying it).
//! IndexSelect, GatherV2, Embedding and the elements-gather are gathers; Scatter,
//! IndexCopy and IndexFill are scatters; reductions (add, mul) combine in the compute
//! dtype (f16/bf16 in f32, one rounding per combination, as PyTorch's CPU kernels).
//!
//! Index values live in device memory and are only known at phase 2: before anything is
//! written, every index element is checked against the addressed dim (negative ones wrap
//! where the operator's CANN kernel wraps them); a bad one fails the run with a message
//! naming the operator, the index, its position and the bound, which the stream reports
//! at synchronize. Nothing is written outside the views, nothing is written at all then.
//!
//! Parallelism: the leading `parallel` dims are split into chunks over the thread pool;
//! the remaining dims are walked in row-major order inside a chunk. A scatter puts the
//! dims along which two points can address the same destination element last (serial),
//! so duplicates combine in a fixed order (the last write wins for a plain copy), exactly
//! as a sequential loop over the index would.

use crate::dtype::DType;
use crate::element::{convert, Bool8, Element};
use crate::engine::kernel::Arith;
use crate::engine::{pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{Dims, Strides, TensorDesc};

/// Fewest elements worth a task of their own.
const GRAIN: usize = 32 * 1024;

/// How a scattered (or gathered) element meets the destination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduce {
    /// The element replaces the destination.
    Copy,
    Add,
    Mul,
    /// `dst + alpha·src`, alpha in the destination's dtype; the product is rounded to that
    /// dtype before the addition (PyTorch's index_add_ scales the source first).
    AddScaled(Scalar),
}

/// Which operand the index addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Gather: the index picks the source element.
    Source,
    /// Scatter: the index picks the destination element.
    Destination,
}

/// An operand as the plan walks it: a binding, its first element (from the storage start)
/// and one stride per iteration dim.
#[derive(Clone, Debug)]
pub struct Walk {
    pub binding: usize,
    pub offset: usize,
    pub strides: Strides,
}

impl Walk {
    /// `t` (bound at `binding`) walked with `strides` (one per iteration dim).
    pub fn new(binding: usize, t: &TensorDesc, strides: Strides) -> Walk {
        Walk {
            binding,
            offset: t.offset,
            strides,
        }
    }
}

/// Where the moved values come from.
#[derive(Clone, Debug)]
pub enum Values {
    Tensor(Walk),
    /// One value, already in the destination's dtype (IndexFill, ScatterValue).
    Constant(Scalar),
}

/// How an index value becomes an element offset in the addressed operand.
#[derive(Clone, Debug)]
pub enum Axis {
    /// One dim of the operand, of `size` elements `stride` apart.
    Dim { size: usize, stride: isize },
    /// The operand seen as 1-D in row-major order over its (shape, strides).
    Flat { shape: Dims, strides: Strides },
}

impl Axis {
    fn size(&self) -> usize {
        match self {
            Axis::Dim { size, .. } => *size,
            Axis::Flat { shape, .. } => shape.iter().product(),
        }
    }
    #[inline(always)]
    fn offset(&self, i: usize) -> isize {
        match self {
            Axis::Dim { stride, .. } => i as isize * stride,
            Axis::Flat { shape, strides } => {
                let (mut rest, mut off) = (i, 0isize);
                for d in (0..shape.len()).rev() {
                    off += (rest % shape[d]) as isize * strides[d];
                    rest /= shape[d];
                }
                off
            }
        }
    }
}

/// Where the index values are read from.
#[derive(Clone, Debug)]
pub enum IndexSource {
    /// An s32/s64 tensor, walked with these strides; its whole view is checked first.
    Tensor { walk: Walk, dtype: DType },
    /// Values known at phase 1 (already checked and wrapped), walked with these strides
    /// (element strides into the array).
    Host { values: Vec<i64>, strides: Strides },
}

#[derive(Clone, Debug)]
pub struct Index {
    pub source: IndexSource,
    pub side: Side,
    pub axis: Axis,
    /// Negative values count from the end (value + size), as CANN's GatherV2 kernel does.
    pub wrap: bool,
    /// Out-of-range values move nothing (the point is skipped) instead of failing the run:
    /// OneHot, where a class outside [0, numClasses) encodes as all offValue.
    pub skip_outside: bool,
    /// What messages call the index and the addressed dim ("index", "dim 1 of self").
    pub name: &'static str,
    pub target: String,
}

/// One planned gather or scatter.
#[derive(Clone)]
pub struct Plan {
    pub shape: Dims,
    /// The leading dims that may be split across threads (the rest run in order).
    pub parallel: usize,
    pub dst: Walk,
    pub values: Values,
    pub index: Index,
    pub dtype: DType,
    pub reduce: Reduce,
}

/// Combines the element at src into the one at dst (the third pointer: alpha, for AddScaled).
type CombineFn = unsafe fn(*mut u8, *const u8, *const u8);

/// `dst = dst (op) src` for storage type S computed in C (f16/bf16 in f32).
///
/// # Safety
/// Both pointers address an element of type S (any alignment).
unsafe fn combine<S: Element, C: Arith, const MUL: bool>(
    dst: *mut u8,
    src: *const u8,
    _: *const u8,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let a: C = convert((dst as *const S).read_unaligned());
        let b: C = convert((src as *const S).read_unaligned());
        let r = if MUL { a.mul(b) } else { a.add(b) };
        (dst as *mut S).write_unaligned(convert(r));
    }
}

/// `dst = dst + round_S(alpha·src)` for storage type S computed in C.
///
/// # Safety
/// All three pointers address an element of type S (any alignment).
unsafe fn add_scaled<S: Element, C: Arith>(dst: *mut u8, src: *const u8, alpha: *const u8) {
    // SAFETY: the caller's contract.
    unsafe {
        let a: C = convert((dst as *const S).read_unaligned());
        let b: C = convert((src as *const S).read_unaligned());
        let k: C = convert((alpha as *const S).read_unaligned());
        let scaled: C = convert::<S, C>(convert::<C, S>(b.mul(k)));
        (dst as *mut S).write_unaligned(convert(a.add(scaled)));
    }
}

/// Copies one element of `N` bytes.
///
/// # Safety
/// Both pointers address `N` bytes.
unsafe fn move_bytes<const N: usize>(dst: *mut u8, src: *const u8, _: *const u8) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, N) }
}

/// Copies one bool, written as 0 or 1.
///
/// # Safety
/// Both pointers address one byte.
unsafe fn move_bool(dst: *mut u8, src: *const u8, _: *const u8) {
    // SAFETY: the caller's contract.
    unsafe { *dst = Bool8(*src).canonical().0 }
}

fn element_fn(dtype: DType, reduce: Reduce) -> CombineFn {
    match reduce {
        Reduce::Copy if dtype == DType::Bool => move_bool,
        Reduce::Copy => match dtype.size() {
            1 => move_bytes::<1>,
            2 => move_bytes::<2>,
            4 => move_bytes::<4>,
            8 => move_bytes::<8>,
            _ => move_bytes::<16>,
        },
        Reduce::Add => {
            crate::with_dtype!(dtype, S => crate::with_compute_dtype!(dtype.compute(), C => combine::<S, C, false> as CombineFn))
        }
        Reduce::Mul => {
            crate::with_dtype!(dtype, S => crate::with_compute_dtype!(dtype.compute(), C => combine::<S, C, true> as CombineFn))
        }
        Reduce::AddScaled(_) => {
            crate::with_dtype!(dtype, S => crate::with_compute_dtype!(dtype.compute(), C => add_scaled::<S, C> as CombineFn))
        }
    }
}

/// Reads index element `i` (element offset from the view's storage start).
///
/// # Safety
/// `base` + `i` elements of `dtype` (s32 or s64) is readable.
#[inline(always)]
unsafe fn read_index(base: usize, dtype: DType, i: isize) -> i64 {
    // SAFETY: the caller's contract.
    unsafe {
        if dtype == DType::S32 {
            (base as *const i32).offset(i).read_unaligned() as i64
        } else {
            (base as *const i64).offset(i).read_unaligned()
        }
    }
}

impl Index {
    /// The offset along the axis for index value `v`, or None when out of range.
    #[inline(always)]
    fn resolve(&self, v: i64, size: usize) -> Option<usize> {
        let n = size as i64;
        let v = if self.wrap && v < 0 { v + n } else { v };
        (0..n).contains(&v).then_some(v as usize)
    }

    /// Phase 2, before anything is written: every element of the index tensor in range.
    pub fn check(&self, api: &str, b: &Bindings) -> Result<()> {
        let IndexSource::Tensor { walk, dtype } = &self.source else {
            return Ok(());
        };
        if self.skip_outside {
            return Ok(());
        }
        let view = b.view(walk.binding)?;
        if view.is_empty() {
            return Ok(());
        }
        let base = b.addr(walk.binding)?;
        let size = self.axis.size();
        let rank = view.rank();
        let (lo, hi) = if self.wrap {
            (-(size as i64), size as i64)
        } else {
            (0, size as i64)
        };
        // Row by row along the last dim: the values are only compared here; the position
        // of the first one out of range is worked out for the message.
        let (row, step) = match rank {
            0 => (1, 0),
            _ => (view.shape[rank - 1], view.strides[rank - 1]),
        };
        let outer = rank.saturating_sub(1);
        let mut pos: Dims = smallvec::smallvec![0; outer];
        loop {
            let first: isize = view.offset as isize
                + pos
                    .iter()
                    .zip(&view.strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            // SAFETY: elements of the index view, which lies in its storage (phase 2 checks).
            let bad = unsafe {
                if *dtype == DType::S32 {
                    first_outside::<i32>(base, first, step, row, lo, hi)
                } else {
                    first_outside::<i64>(base, first, step, row, lo, hi)
                }
            };
            if let Some(j) = bad {
                // SAFETY: as above.
                let v = unsafe { read_index(base, *dtype, first + j as isize * step) };
                let range = if self.wrap {
                    format!("[{}, {size})", -(size as i64))
                } else {
                    format!("[0, {size})")
                };
                let mut at: Vec<usize> = pos.to_vec();
                if rank > 0 {
                    at.push(j);
                }
                return Err(Error::Invalid(format!(
                    "{api}: {} value {v} at position {at:?} is out of range {range} for {}: nothing was written",
                    self.name,
                    self.target
                )));
            }
            let mut d = outer;
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < view.shape[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
}

/// The first of `n` index values (type I, `step` apart from element `first`) outside
/// [lo, hi), if any.
///
/// # Safety
/// The n elements lie inside the index view's storage at `base`.
unsafe fn first_outside<I: Copy + Into<i64>>(
    base: usize,
    first: isize,
    step: isize,
    n: usize,
    lo: i64,
    hi: i64,
) -> Option<usize> {
    let p = (base as *const I).wrapping_offset(first);
    // SAFETY: the caller's contract.
    (0..n).find(|&j| {
        let v: i64 = unsafe { p.offset(j as isize * step).read_unaligned() }.into();
        v < lo || v >= hi
    })
}

impl Plan {
    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Runs the plan with its index values checked (`check` first).
    pub(crate) fn execute(&self, b: &Bindings) -> Result<()> {
        let n = self.numel();
        if n == 0 {
            return Ok(());
        }
        let es = self.dtype.size() as isize;
        let dst_base = b.addr(self.dst.binding)? as isize + self.dst.offset as isize * es;
        let (src_base, src_strides): (isize, &[isize]) = match &self.values {
            Values::Tensor(w) => (
                b.addr(w.binding)? as isize + w.offset as isize * es,
                &w.strides,
            ),
            Values::Constant(s) => (s.bytes().as_ptr() as isize, &[]),
        };
        let (idx_base, idx_dtype, idx_strides): (usize, DType, &[isize]) = match &self.index.source
        {
            IndexSource::Tensor { walk, dtype } => (
                b.addr(walk.binding)? + walk.offset * dtype.size(),
                *dtype,
                &walk.strides,
            ),
            IndexSource::Host { values, strides } => {
                (values.as_ptr() as usize, DType::S64, strides)
            }
        };
        let rank = self.shape.len();
        // Whole rows (the last dim) per task: the row is the unit the fast paths copy.
        let par = self.parallel.min(rank.saturating_sub(1));
        let outer: usize = self.shape[..par].iter().product();
        let row = if rank == 0 { 1 } else { self.shape[rank - 1] };
        let rows_per_outer: usize = self.shape[par..rank.saturating_sub(1)].iter().product();
        let tasks = pool()
            .current_num_threads()
            .min(n.div_ceil(GRAIN))
            .min(outer)
            .max(1);
        let f = element_fn(self.dtype, self.reduce);
        let alpha = match &self.reduce {
            Reduce::AddScaled(a) => a.bytes().as_ptr() as usize,
            _ => 0,
        } as *const u8;
        let size = self.index.axis.size();
        let stride = |s: &[isize], d: usize| if s.is_empty() { 0 } else { s[d] };
        let last = rank.saturating_sub(1);
        let (ss, ds, is) = if rank == 0 {
            (0, 0, 0)
        } else {
            (
                stride(src_strides, last),
                self.dst.strides[last],
                idx_strides[last],
            )
        };
        // A row of plain copies between unit-stride rows is one memcpy.
        let memcpy_rows =
            self.reduce == Reduce::Copy && self.dtype != DType::Bool && ds == 1 && ss == 1;
        let alpha = alpha as usize;
        // The next row: the row-major successor over every dim but the last.
        let advance = |pos: &mut Dims| {
            let mut d = last;
            while d > 0 {
                d -= 1;
                pos[d] += 1;
                if pos[d] < self.shape[d] {
                    break;
                }
                pos[d] = 0;
            }
        };
        run_tasks(tasks, |t| {
            let alpha = alpha as *const u8;
            let lo = outer * t / tasks;
            let hi = outer * (t + 1) / tasks;
            let mut pos: Dims = smallvec::smallvec![0; rank];
            // The task's first row: `lo` unravelled over the parallel dims.
            let mut rest = lo;
            for d in (0..par).rev() {
                pos[d] = rest % self.shape[d];
                rest /= self.shape[d];
            }
            for _ in 0..(hi - lo) * rows_per_outer {
                let (mut so, mut dof, mut io) = (0isize, 0isize, 0isize);
                for d in 0..last {
                    let i = pos[d] as isize;
                    so += i * stride(src_strides, d);
                    dof += i * self.dst.strides[d];
                    io += i * idx_strides[d];
                }
                // The offset along the axis; None only for a skipped out-of-range value.
                let at = |io: isize| {
                    // SAFETY: an element of the index view (checked at phase 1 and 2) or of the
                    // host array, whose values were checked, as the tensor's were by `check`.
                    let v = unsafe { read_index(idx_base, idx_dtype, io) };
                    match self.index.resolve(v, size) {
                        Some(i) => Some(self.index.axis.offset(i)),
                        None if self.index.skip_outside => None,
                        None => Some(self.index.axis.offset(0)),
                    }
                };
                if is == 0 {
                    // One index value for the whole row: a strided run.
                    let Some(off) = at(io) else {
                        advance(&mut pos);
                        continue;
                    };
                    match self.index.side {
                        Side::Source => so += off,
                        Side::Destination => dof += off,
                    }
                    let (dst, src) = (
                        (dst_base + dof * es) as *mut u8,
                        (src_base + so * es) as *const u8,
                    );
                    // SAFETY: the row's elements lie inside their views (the index is in range);
                    // a scatter's rows never overlap its source (checked at phase 1).
                    unsafe {
                        if memcpy_rows {
                            std::ptr::copy_nonoverlapping(src, dst, row * es as usize);
                        } else {
                            for j in 0..row as isize {
                                f(dst.offset(j * ds * es), src.offset(j * ss * es), alpha);
                            }
                        }
                    }
                } else {
                    for j in 0..row as isize {
                        let (mut so, mut dof) = (so + j * ss, dof + j * ds);
                        let Some(off) = at(io + j * is) else {
                            continue;
                        };
                        match self.index.side {
                            Side::Source => so += off,
                            Side::Destination => dof += off,
                        }
                        // SAFETY: both elements lie inside their views (the index is in range).
                        unsafe {
                            f(
                                (dst_base + dof * es) as *mut u8,
                                (src_base + so * es) as *const u8,
                                alpha,
                            )
                        };
                    }
                }
                advance(&mut pos);
            }
        });
        Ok(())
    }
}

/// A plan as an executor's work: the index check, then the moves.
pub struct GatherWork {
    pub api: &'static str,
    pub plan: Plan,
}

impl Work for GatherWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        self.plan.index.check(self.api, b)?;
        self.plan.execute(b)
    }
    fn small(&self) -> bool {
        self.plan.numel() <= 4096
    }
}

/// Phase 2 checks and moves for plans whose index is computed at run time (RepeatInterleave):
/// `make` reads the bindings and returns the host index values, or the error to report.
pub struct ComputedIndexWork<F> {
    pub api: &'static str,
    pub plan: Plan,
    pub make: F,
}

impl<F: Fn(&Bindings) -> Result<Vec<i64>> + Send + Sync> ComputedIndexWork<F> {
    fn plan_with(&self, values: Vec<i64>) -> Plan {
        let IndexSource::Host { strides, .. } = &self.plan.index.source else {
            unreachable!("a computed index is a host index")
        };
        Plan {
            shape: self.plan.shape.clone(),
            parallel: self.plan.parallel,
            dst: self.plan.dst.clone(),
            values: self.plan.values.clone(),
            index: Index {
                source: IndexSource::Host {
                    values,
                    strides: strides.clone(),
                },
                ..self.plan.index.clone()
            },
            dtype: self.plan.dtype,
            reduce: self.plan.reduce,
        }
    }
}

impl<F: Fn(&Bindings) -> Result<Vec<i64>> + Send + Sync> Work for ComputedIndexWork<F> {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let values = (self.make)(b).map_err(|e| Error::Invalid(format!("{}: {e}", self.api)))?;
        self.plan_with(values).execute(b)
    }
}

/// Reads every element of the s32/s64 1-D (or 0-d) view bound at `binding`, in order.
pub fn read_all(b: &Bindings, binding: usize) -> Result<Vec<i64>> {
    let v = b.view(binding)?;
    if v.is_empty() {
        return Ok(Vec::new());
    }
    let base = b.addr(binding)?;
    let n = v.numel();
    let s = if v.rank() == 0 { 0 } else { v.strides[0] };
    // SAFETY: elements of the view, inside its storage.
    Ok((0..n)
        .map(|i| unsafe { read_index(base, v.dtype, v.offset as isize + i as isize * s) })
        .collect())
}

/// The strides of `t` placed at iteration dims `at[i]` (others 0), for a space of `rank` dims.
pub fn placed(t: &TensorDesc, at: &[usize], rank: usize) -> Strides {
    let mut s: Strides = smallvec::smallvec![0; rank];
    for (i, &d) in at.iter().enumerate() {
        s[d] = t.strides[i];
    }
    s
}

/// Whether two views may share bytes (phase-1 estimate from their byte spans).
pub fn may_overlap(a: &TensorDesc, b: &TensorDesc) -> bool {
    match (a.byte_span(), b.byte_span()) {
        (Some((a0, a1)), Some((b0, b1))) => a0 <= b1 && b0 <= a1,
        _ => false,
    }
}
