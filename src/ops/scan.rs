//! Scans along one dim: Cumsum (aclnn_cumsum.h, torch.cumsum with `dtype`: self converted
//! to out's dtype first, as the device casts before computing), CumsumV2 (ONNX CumSum's
//! `exclusive` and `reverse`), Cumprod and InplaceCumprod (aclnn_cumprod.h), Cummax and
//! Cummin (aclnn_cummax.h / aclnn_cummin.h: running extreme and its index). Any views; the
//! scanned dim may be anything.
//!
//! Precision: a running sum or product is kept in out's computation dtype — f32 for
//! f16/bf16/f32 (each output rounded once from it), f64 for f64, complex in its own
//! component dtype, and integers in i64, wrapping, which equals wrapping in out's dtype
//! (sums and products modulo 2^bits commute with the final narrowing). The result is the
//! sequential sum (product) in that precision, element by element along the dim, so it is
//! reproducible exactly by a loop (no bound to state: the tests compare bit for bit). The
//! running extremes are exact (kept in f64 or i64): as torch, a NaN is the extreme from
//! where it appears, and a tie moves the index to the newer element (torch's `>=`).
//!
//! Phase 2 scans panels: up to `LANES` neighbouring lines (along the non-scanned axis of
//! smallest stride in out) advance together, one strided conversion per step in and out,
//! panels split over the pool's threads.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::element::Wide;
use crate::engine::remap::{at_least_1d, overlaps};
use crate::engine::{convert, pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnCumsum / aclnnCumsumV2, Atlas A2.
const CUMSUM: &[DType] = &[F32, F16, S32, F64, U8, S8, S16, S64, C64, C128, BF16];
/// ACL_DT_UNDEFINED: "input's own dtype" for Cumprod.
const UNDEFINED: i32 = -1;
/// Lines scanned together.
const LANES: usize = 256;

/// aclnnCumprod, Atlas A2 (input and out).
const CUMPROD: &[DType] = &[F32, F16, BF16, F64, S8, S16, S32, S64, U8, U16, U32, U64];
/// aclnnCummax / aclnnCummin.
const CUMEXT: &[DType] = &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16];
const CUMEXT_INDEX: &[DType] = &[S32, S64];

/// What a scan accumulates.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Sum,
    Prod,
    /// The running maximum and its index.
    Max,
    /// The running minimum and its index.
    Min,
}

/// The dtype a running value is kept in for an out of dtype `d`.
fn accumulator(op: Op, d: DType) -> DType {
    match (op, d) {
        (Op::Max | Op::Min, d) if d.is_float() => F64,
        (Op::Max | Op::Min, _) => S64,
        (_, F16 | BF16 | F32) => F32,
        (_, F64) => F64,
        (_, C32 | C64) => C64,
        (_, C128) => C128,
        _ => S64,
    }
}

/// acc ·= x (Prod) over `n` accumulators of dtype `acc` (complex is not in Cumprod's lists).
///
/// # Safety
/// Both point to `n` elements of `acc`'s dtype, aligned, not overlapping.
unsafe fn mul(acc_dtype: DType, acc: *mut u8, x: *const u8, n: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        match acc_dtype {
            F32 => {
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut f32, n),
                    std::slice::from_raw_parts(x as *const f32, n),
                );
                a.iter_mut().zip(b).for_each(|(a, b)| *a *= *b);
            }
            F64 => {
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut f64, n),
                    std::slice::from_raw_parts(x as *const f64, n),
                );
                a.iter_mut().zip(b).for_each(|(a, b)| *a *= *b);
            }
            _ => {
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut i64, n),
                    std::slice::from_raw_parts(x as *const i64, n),
                );
                a.iter_mut()
                    .zip(b)
                    .for_each(|(a, b)| *a = a.wrapping_mul(*b));
            }
        }
    }
}

/// The running extreme: where `x` replaces `acc` (a NaN, or a value at least as large
/// (Max) / small (Min) when `acc` is no NaN), acc takes it and idx becomes `k`.
///
/// # Safety
/// `acc` and `x` point to `n` f64 (floats) or i64 values, `idx` to `n` i64.
unsafe fn extreme(
    op: Op,
    float: bool,
    acc: *mut u8,
    idx: *mut i64,
    x: *const u8,
    n: usize,
    k: i64,
    first: bool,
) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let idx = std::slice::from_raw_parts_mut(idx, n);
        if float {
            let (a, b) = (
                std::slice::from_raw_parts_mut(acc as *mut f64, n),
                std::slice::from_raw_parts(x as *const f64, n),
            );
            for j in 0..n {
                let (v, x) = (a[j], b[j]);
                let take = first
                    || x.is_nan()
                    || (!v.is_nan() && if op == Op::Max { x >= v } else { x <= v });
                if take {
                    a[j] = x;
                    idx[j] = k;
                }
            }
        } else {
            let (a, b) = (
                std::slice::from_raw_parts_mut(acc as *mut i64, n),
                std::slice::from_raw_parts(x as *const i64, n),
            );
            for j in 0..n {
                let take = first
                    || if op == Op::Max {
                        b[j] >= a[j]
                    } else {
                        b[j] <= a[j]
                    };
                if take {
                    a[j] = b[j];
                    idx[j] = k;
                }
            }
        }
    }
}

/// acc += x over `n` accumulators of dtype `acc` (complex: pairs of parts).
///
/// # Safety
/// Both point to `n` elements of `acc`'s dtype, aligned, not overlapping.
unsafe fn add(acc_dtype: DType, acc: *mut u8, x: *const u8, n: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        match acc_dtype {
            F32 | C64 => {
                let m = n * (acc_dtype.size() / 4);
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut f32, m),
                    std::slice::from_raw_parts(x as *const f32, m),
                );
                a.iter_mut().zip(b).for_each(|(a, b)| *a += *b);
            }
            F64 | C128 => {
                let m = n * (acc_dtype.size() / 8);
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut f64, m),
                    std::slice::from_raw_parts(x as *const f64, m),
                );
                a.iter_mut().zip(b).for_each(|(a, b)| *a += *b);
            }
            _ => {
                let (a, b) = (
                    std::slice::from_raw_parts_mut(acc as *mut i64, n),
                    std::slice::from_raw_parts(x as *const i64, n),
                );
                a.iter_mut()
                    .zip(b)
                    .for_each(|(a, b)| *a = a.wrapping_add(*b));
            }
        }
    }
}

/// The planned scan of self (binding 0) into out (binding 1; Cummax/Cummin also indices,
/// binding 2) along `axis`; in place (InplaceCumprod) self is also out (binding 0).
struct Scan {
    op: Op,
    src: TensorDesc,
    out: TensorDesc,
    out_binding: usize,
    indices: Option<TensorDesc>,
    axis: usize,
    /// The non-scanned axis whose lines advance together (None: one line per panel).
    lane: Option<usize>,
    exclusive: bool,
    reverse: bool,
}

/// 16-byte aligned scratch for one panel.
#[repr(C, align(16))]
struct Buf([u8; LANES * 16]);

impl Scan {
    fn new(spec: &Spec, src: &TensorDesc, out: &TensorDesc, axis: usize) -> Scan {
        let (src, out) = (at_least_1d(src), at_least_1d(out));
        let indices = spec.indices.map(at_least_1d);
        let Spec {
            op,
            exclusive,
            reverse,
            inplace,
            ..
        } = *spec;
        let out_binding = if inplace { 0 } else { 1 };
        let lane = (0..out.rank())
            .filter(|&a| a != axis && out.shape[a] > 1)
            .min_by_key(|&a| out.strides[a]);
        Scan {
            op,
            src,
            out,
            out_binding,
            indices,
            axis,
            lane,
            exclusive,
            reverse,
        }
    }

    /// (panel count, lanes of the lane axis, chunks per lane axis).
    fn panels(&self) -> (usize, usize, usize) {
        let width = self.lane.map_or(1, |a| self.out.shape[a]);
        let chunks = width.div_ceil(LANES);
        let others: usize = (0..self.out.rank())
            .filter(|&a| a != self.axis && Some(a) != self.lane)
            .map(|a| self.out.shape[a])
            .product();
        (others * chunks, width, chunks)
    }

    /// Scans panel `p`.
    ///
    /// # Safety
    /// `src0` / `dst0` are the first elements of the bound views.
    unsafe fn panel(&self, p: usize, src0: usize, dst0: usize, idx0: usize) {
        let (_, width, chunks) = self.panels();
        let (chunk, mut rest) = (p % chunks, p / chunks);
        let (mut so, mut oo, mut io) = (0isize, 0isize, 0isize);
        let istrides = self.indices.as_ref().map(|t| &t.strides[..]);
        for a in (0..self.out.rank()).rev() {
            if a == self.axis || Some(a) == self.lane {
                continue;
            }
            let i = rest % self.out.shape[a];
            rest /= self.out.shape[a];
            so += i as isize * self.src.strides[a];
            oo += i as isize * self.out.strides[a];
            if let Some(st) = istrides {
                io += i as isize * st[a];
            }
        }
        let lo = chunk * LANES;
        let w = LANES.min(width - lo);
        let (ls, ol) = match self.lane {
            Some(a) => (self.src.strides[a], self.out.strides[a]),
            None => (0, 0),
        };
        let il = match (self.lane, istrides) {
            (Some(a), Some(st)) => st[a],
            _ => 0,
        };
        so += lo as isize * ls;
        oo += lo as isize * ol;
        io += lo as isize * il;
        if w == 1 {
            // SAFETY: as the caller guarantees; (so, oo, io) start this panel's one line.
            return unsafe { self.line(src0, dst0, idx0, so, oo, io) };
        }
        let (sd, od) = (self.src.dtype, self.out.dtype);
        let ad = accumulator(self.op, od);
        let id = self.indices.as_ref().map(|t| t.dtype);
        let (se, oe) = (sd.size() as isize, od.size() as isize);
        let mut acc = Buf([0; LANES * 16]);
        if self.op == Op::Prod {
            // SAFETY: w accumulators of ad's dtype.
            unsafe { convert::run([1u8].as_ptr(), U8, 0, acc.0.as_mut_ptr(), ad, 1, w) };
        }
        let mut x = Buf([0; LANES * 16]);
        let mut via = Buf([0; LANES * 16]);
        let mut idx = [0i64; LANES];
        let n = self.out.shape[self.axis];
        let (sa, oa) = (self.src.strides[self.axis], self.out.strides[self.axis]);
        let ia = self.indices.as_ref().map_or(0, |t| t.strides[self.axis]);
        // SAFETY (whole loop): elements of the bound views; buffers of LANES elements.
        unsafe {
            for step in 0..n {
                let k = if self.reverse { n - 1 - step } else { step } as isize;
                let s = (src0 as *const u8).offset((so + k * sa) * se);
                let d = (dst0 as *mut u8).offset((oo + k * oa) * oe);
                if sd == od || sd == ad {
                    convert::run(s, sd, ls, x.0.as_mut_ptr(), ad, 1, w);
                } else {
                    // Converted to out's dtype first (the device's cast), then widened.
                    convert::run(s, sd, ls, via.0.as_mut_ptr(), od, 1, w);
                    convert::run(via.0.as_ptr(), od, 1, x.0.as_mut_ptr(), ad, 1, w);
                }
                if self.exclusive {
                    convert::run(acc.0.as_ptr(), ad, 1, d, od, ol, w);
                }
                match self.op {
                    Op::Sum => add(ad, acc.0.as_mut_ptr(), x.0.as_ptr(), w),
                    Op::Prod => mul(ad, acc.0.as_mut_ptr(), x.0.as_ptr(), w),
                    op => extreme(
                        op,
                        ad == F64,
                        acc.0.as_mut_ptr(),
                        idx.as_mut_ptr(),
                        x.0.as_ptr(),
                        w,
                        k as i64,
                        step == 0,
                    ),
                }
                if !self.exclusive {
                    convert::run(acc.0.as_ptr(), ad, 1, d, od, ol, w);
                }
                if let Some(id) = id {
                    let di = (idx0 as *mut u8).offset((io + k * ia) * id.size() as isize);
                    convert::run(idx.as_ptr() as *const u8, S64, 1, di, id, il, w);
                }
            }
        }
    }
}

impl Scan {
    /// Scans one line (a panel of one lane: a 1-D scan, or lines with nothing beside
    /// them) a block of `LANES` elements at a time: one strided conversion of the block in,
    /// the running value carried through it element by element (the same sequential order
    /// as the lanes' path, so the same bits), one conversion out.
    ///
    /// # Safety
    /// `src0` / `dst0` / `idx0` are the first elements of the bound views, and `so` / `oo`
    /// / `io` the element offsets of the line's first element in them.
    unsafe fn line(&self, src0: usize, dst0: usize, idx0: usize, so: isize, oo: isize, io: isize) {
        let (sd, od) = (self.src.dtype, self.out.dtype);
        let ad = accumulator(self.op, od);
        let (se, oe, az) = (sd.size() as isize, od.size() as isize, ad.size());
        let id = self.indices.as_ref().map(|t| t.dtype);
        let n = self.out.shape[self.axis];
        // Walking the line backwards (reverse) is walking it with negated strides.
        let sign = if self.reverse { -1 } else { 1 };
        let (sa, oa) = (
            sign * self.src.strides[self.axis],
            sign * self.out.strides[self.axis],
        );
        let ia = sign * self.indices.as_ref().map_or(0, |t| t.strides[self.axis]);
        let first = |stride: isize| {
            if self.reverse {
                (n as isize - 1) * -stride
            } else {
                0
            }
        };
        let (so, oo, io) = (so + first(sa), oo + first(oa), io + first(ia));
        let mut acc = Buf([0; LANES * 16]);
        if self.op == Op::Prod {
            // SAFETY: one accumulator of ad's dtype.
            unsafe { convert::run([1u8].as_ptr(), U8, 0, acc.0.as_mut_ptr(), ad, 1, 1) };
        }
        let (mut x, mut via, mut held) = (
            Buf([0; LANES * 16]),
            Buf([0; LANES * 16]),
            Buf([0; LANES * 16]),
        );
        let mut idx = [0i64; LANES];
        let mut at = [0i64; 1];
        // SAFETY (whole loop): elements of the bound views; buffers of LANES elements.
        unsafe {
            for b0 in (0..n).step_by(LANES) {
                let m = LANES.min(n - b0);
                let s = (src0 as *const u8).offset((so + b0 as isize * sa) * se);
                let d = (dst0 as *mut u8).offset((oo + b0 as isize * oa) * oe);
                if sd == od || sd == ad {
                    convert::run(s, sd, sa, x.0.as_mut_ptr(), ad, 1, m);
                } else {
                    convert::run(s, sd, sa, via.0.as_mut_ptr(), od, 1, m);
                    convert::run(via.0.as_ptr(), od, 1, x.0.as_mut_ptr(), ad, 1, m);
                }
                if self.op == Op::Sum && ad == F32 {
                    // The common case, without a dispatch per element.
                    let v = std::slice::from_raw_parts_mut(x.0.as_mut_ptr() as *mut f32, m);
                    let a = &mut *(acc.0.as_mut_ptr() as *mut f32);
                    for e in v {
                        let t = *e;
                        if self.exclusive {
                            *e = *a;
                            *a += t;
                        } else {
                            *a += t;
                            *e = *a;
                        }
                    }
                } else {
                    for i in 0..m {
                        let xi = x.0.as_mut_ptr().add(i * az);
                        if self.exclusive {
                            std::ptr::copy_nonoverlapping(xi, held.0.as_mut_ptr(), az);
                            std::ptr::copy_nonoverlapping(acc.0.as_ptr(), xi, az);
                        }
                        let operand = if self.exclusive { held.0.as_ptr() } else { xi };
                        let step = b0 + i;
                        let k = if self.reverse { n - 1 - step } else { step } as i64;
                        match self.op {
                            Op::Sum => add(ad, acc.0.as_mut_ptr(), operand, 1),
                            Op::Prod => mul(ad, acc.0.as_mut_ptr(), operand, 1),
                            op => {
                                extreme(
                                    op,
                                    ad == F64,
                                    acc.0.as_mut_ptr(),
                                    at.as_mut_ptr(),
                                    operand,
                                    1,
                                    k,
                                    step == 0,
                                );
                                idx[i] = at[0];
                            }
                        }
                        if !self.exclusive {
                            std::ptr::copy_nonoverlapping(acc.0.as_ptr(), xi, az);
                        }
                    }
                }
                convert::run(x.0.as_ptr(), ad, 1, d, od, oa, m);
                if let Some(id) = id {
                    let di = (idx0 as *mut u8).offset((io + b0 as isize * ia) * id.size() as isize);
                    convert::run(idx.as_ptr() as *const u8, S64, 1, di, id, ia, m);
                }
            }
        }
    }
}

/// Whether `a` and `b` are the same elements in the same order (a scan reads element k of
/// a line before writing it, so the same view in place is safe).
fn same_view(a: &TensorDesc, b: &TensorDesc) -> bool {
    a.addr + a.offset * a.dtype.size() == b.addr + b.offset * b.dtype.size()
        && a.dtype.size() == b.dtype.size()
        && a.shape == b.shape
        && a.strides == b.strides
}

impl Work for Scan {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        let s = b.view(0)?;
        for i in 1..b.tensors.len() {
            let o = b.view(i)?;
            crate::ensure!(
                !overlaps(s, o) || (i == self.out_binding && same_view(s, o)),
                "self now overlaps an output (other than as out's own view), which the scan cannot read before writing; plan again"
            );
        }
        Ok(())
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        self.check(b)?;
        let src0 = b.addr(0)? + self.src.offset * self.src.dtype.size();
        let dst0 = b.addr(self.out_binding)? + self.out.offset * self.out.dtype.size();
        let idx0 = match &self.indices {
            Some(t) => b.addr(2)? + t.offset * t.dtype.size(),
            None => 0,
        };
        let (panels, _, _) = self.panels();
        let work = panels * self.out.shape[self.axis];
        let tasks = panels
            .min(pool().current_num_threads())
            .min(work.div_ceil(16 * 1024))
            .max(1);
        let per = panels.div_ceil(tasks);
        run_tasks(tasks, |t| {
            for p in t * per..((t + 1) * per).min(panels) {
                // SAFETY: the bound views, checked at planning and now.
                unsafe { self.panel(p, src0, dst0, idx0) };
            }
        });
        Ok(())
    }
    fn small(&self) -> bool {
        self.out.numel() <= 4096
    }
}

/// What one scan entry point asks for.
#[derive(Clone, Copy)]
struct Spec<'a> {
    api: &'static str,
    op: Op,
    /// The names of self and out in the header.
    names: (&'static str, &'static str),
    exclusive: bool,
    reverse: bool,
    /// self is also out (InplaceCumprod).
    inplace: bool,
    indices: Option<&'a TensorDesc>,
}

impl<'a> Spec<'a> {
    fn new(api: &'static str, op: Op) -> Spec<'a> {
        Spec {
            api,
            op,
            names: ("self", "out"),
            exclusive: false,
            reverse: false,
            inplace: false,
            indices: None,
        }
    }
}

fn build(spec: Spec, self_: &TensorDesc, dim: i64, out: &TensorDesc) -> Result<Executor> {
    let (sn, on) = spec.names;
    let axis = ew::axis("dim", dim, self_.rank().max(1), sn)?;
    ew::check_result_shape(on, out, &self_.shape)?;
    let mut views = vec![Some(self_.clone())];
    if !spec.inplace {
        crate::ensure!(
            !overlaps(self_, out) || same_view(self_, out),
            "{on} shares memory with {sn} other than as the same view: {} needs them apart or identical",
            spec.api
        );
        views.push(Some(out.clone()));
    }
    if let Some(ix) = spec.indices {
        ew::check_result_shape("indicesOut", ix, &self_.shape)?;
        crate::ensure!(
            !overlaps(self_, ix) && !overlaps(out, ix),
            "indicesOut shares memory with {sn} or {on}: {} needs them apart",
            spec.api
        );
        views.push(Some(ix.clone()));
    }
    let n = views.len();
    let bindings = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: 1,
        outputs: if spec.inplace {
            smallvec::smallvec![0]
        } else {
            (1..n).collect()
        },
    };
    if out.is_empty() {
        return Ok(Executor::new(spec.api, bindings, Nothing));
    }
    let plan = Scan::new(&spec, self_, out, axis);
    Ok(Executor::new(spec.api, bindings, plan))
}

/// aclnnCumsum: `out = cumsum(self.to(dtype), dim)`; out's dtype must be `dtype`.
pub fn cumsum(self_: &TensorDesc, dim: i64, dtype: i32, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("self", self_, CUMSUM)?;
    let d = DType::from_raw(dtype).map_err(|e| Error::Invalid(format!("argument 'dtype': {e}")))?;
    crate::ensure!(
        CUMSUM.contains(&d),
        "dtype {d} is not a dtype aclnnCumsum computes in"
    );
    ew::check_tensor("out", out, CUMSUM)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but dtype is {d}: they must be the same",
        out.dtype
    );
    crate::ensure!(
        !self_.dtype.is_complex() || d.is_complex(),
        "self of dtype {} cannot be summed in dtype {d}: the imaginary part would be lost",
        self_.dtype
    );
    build(Spec::new("aclnnCumsum", Op::Sum), self_, dim, out)
}

/// aclnnCumsumV2: `out[j] = Σ self[i]` over i ≤ j (exclusive: i < j; reverse: i ≥ j or
/// i > j) along dim; out has self's dtype.
pub fn cumsum_v2(
    self_: &TensorDesc,
    dim: i64,
    exclusive: bool,
    reverse: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, CUMSUM)?;
    ew::check_tensor("out", out, CUMSUM)?;
    ew::check_same_dtype("out", out, self_)?;
    let spec = Spec {
        exclusive,
        reverse,
        ..Spec::new("aclnnCumsumV2", Op::Sum)
    };
    build(spec, self_, dim, out)
}

/// The dim of Cumprod: an integer scalar (INT32 or INT64).
fn dim_value(dim: &Scalar) -> Result<i64> {
    ew::check_scalar_dtype("dim", dim.dtype, &[S32, S64])?;
    Ok(match dim.wide() {
        Wide::Int(i) => i as i64,
        _ => unreachable!("an integer scalar"),
    })
}

/// aclnnCumprod: `out = cumprod(input.to(dtype), dim)` (dtype ACL_DT_UNDEFINED: input's).
pub fn cumprod(input: &TensorDesc, dim: &Scalar, dtype: i32, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("input", input, CUMPROD)?;
    let d = if dtype == UNDEFINED {
        input.dtype
    } else {
        let d =
            DType::from_raw(dtype).map_err(|e| Error::Invalid(format!("argument 'dtype': {e}")))?;
        crate::ensure!(
            CUMPROD.contains(&d),
            "dtype {d} is not a dtype aclnnCumprod computes in"
        );
        d
    };
    ew::check_tensor("out", out, CUMPROD)?;
    crate::ensure!(
        out.dtype == d,
        "out has dtype {} but must have {d} (dtype, or input's when dtype is ACL_DT_UNDEFINED)",
        out.dtype
    );
    let spec = Spec {
        names: ("input", "out"),
        ..Spec::new("aclnnCumprod", Op::Prod)
    };
    build(spec, input, dim_value(dim)?, out)
}

/// aclnnInplaceCumprod: `input = cumprod(input, dim)`.
pub fn inplace_cumprod(input: &TensorDesc, dim: &Scalar) -> Result<Executor> {
    ew::check_tensor("input", input, CUMPROD)?;
    let spec = Spec {
        names: ("input", "input"),
        inplace: true,
        ..Spec::new("aclnnInplaceCumprod", Op::Prod)
    };
    build(spec, input, dim_value(dim)?, input)
}

fn cumulative_extreme(
    api: &'static str,
    op: Op,
    self_: &TensorDesc,
    dim: i64,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, CUMEXT)?;
    ew::check_tensor("valuesOut", values_out, CUMEXT)?;
    ew::check_tensor("indicesOut", indices_out, CUMEXT_INDEX)?;
    ew::check_same_dtype("valuesOut", values_out, self_)?;
    let spec = Spec {
        names: ("self", "valuesOut"),
        indices: Some(indices_out),
        ..Spec::new(api, op)
    };
    build(spec, self_, dim, values_out)
}

/// aclnnCummax: the running maximum along dim and its index (NaN propagates; ties take
/// the newer index).
pub fn cummax(
    self_: &TensorDesc,
    dim: i64,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    cumulative_extreme("aclnnCummax", Op::Max, self_, dim, values_out, indices_out)
}

/// aclnnCummin: the running minimum along dim and its index.
pub fn cummin(
    self_: &TensorDesc,
    dim: i64,
    values_out: &TensorDesc,
    indices_out: &TensorDesc,
) -> Result<Executor> {
    cumulative_extreme("aclnnCummin", Op::Min, self_, dim, values_out, indices_out)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Cumsum, CumsumV2",
        a: CUMSUM,
        b: &[],
        out: CUMSUM,
        rule: "running sum along dim (f16/bf16 in f32, integers wrapping; V2: exclusive, reverse)",
    },
    Entry {
        ops: "Cumprod, InplaceCumprod",
        a: CUMPROD,
        b: &[],
        out: CUMPROD,
        rule: "running product along dim (f16/bf16 in f32, integers wrapping)",
    },
    Entry {
        ops: "Cummax, Cummin",
        a: CUMEXT,
        b: &[],
        out: CUMEXT,
        rule: "running max/min along dim and its index (s32/s64); NaN propagates, ties take the later index",
    },
];
