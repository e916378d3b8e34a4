//! Scans along one dim (aclnn_cumsum.h): Cumsum (torch.cumsum with `dtype`: self converted
//! to out's dtype first, as the device casts before computing) and CumsumV2 (ONNX CumSum's
//! `exclusive` and `reverse`). Any views; the scanned dim may be anything.
//!
//! Precision: the running sum is kept in out's computation dtype — f32 for f16/bf16/f32
//! (each output rounded once from it), f64 for f64, complex in its own component dtype, and
//! integers in i64, wrapping, which equals wrapping in out's dtype (sums modulo 2^bits
//! commute with the final narrowing). The result is the sequential sum in that precision,
//! element by element along the dim, so it is reproducible exactly by a loop (no bound to
//! state: the tests compare bit for bit).
//!
//! Phase 2 scans panels: up to `LANES` neighbouring lines (along the non-scanned axis of
//! smallest stride in out) advance together, one strided conversion per step in and out,
//! panels split over the pool's threads.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::{convert, pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnCumsum / aclnnCumsumV2, Atlas A2.
const CUMSUM: &[DType] = &[F32, F16, S32, F64, U8, S8, S16, S64, C64, C128, BF16];
/// Lines scanned together.
const LANES: usize = 256;

/// The dtype a running sum is kept in for an out of dtype `d`.
fn accumulator(d: DType) -> DType {
    match d {
        F16 | BF16 | F32 => F32,
        F64 => F64,
        C32 | C64 => C64,
        C128 => C128,
        _ => S64,
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
                a.iter_mut().zip(b).for_each(|(a, b)| *a = a.wrapping_add(*b));
            }
        }
    }
}

/// The planned scan of self (binding 0) into out (binding 1) along `axis`.
struct Scan {
    src: TensorDesc,
    out: TensorDesc,
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
    fn new(src: &TensorDesc, out: &TensorDesc, axis: usize, exclusive: bool, reverse: bool) -> Scan {
        let (mut src, mut out) = (src.clone(), out.clone());
        let mut axis = axis;
        if src.rank() == 0 {
            src.shape.push(1);
            src.strides.push(0);
            out.shape.push(1);
            out.strides.push(0);
            axis = 0;
        }
        let lane = (0..out.rank())
            .filter(|&a| a != axis && out.shape[a] > 1)
            .min_by_key(|&a| out.strides[a]);
        Scan {
            src,
            out,
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
    unsafe fn panel(&self, p: usize, src0: usize, dst0: usize) {
        let (_, width, chunks) = self.panels();
        let (chunk, mut rest) = (p % chunks, p / chunks);
        let (mut so, mut oo) = (0isize, 0isize);
        for a in (0..self.out.rank()).rev() {
            if a == self.axis || Some(a) == self.lane {
                continue;
            }
            let i = rest % self.out.shape[a];
            rest /= self.out.shape[a];
            so += i as isize * self.src.strides[a];
            oo += i as isize * self.out.strides[a];
        }
        let lo = chunk * LANES;
        let w = LANES.min(width - lo);
        let (ls, ol) = match self.lane {
            Some(a) => (self.src.strides[a], self.out.strides[a]),
            None => (0, 0),
        };
        so += lo as isize * ls;
        oo += lo as isize * ol;
        let (sd, od) = (self.src.dtype, self.out.dtype);
        let ad = accumulator(od);
        let (se, oe) = (sd.size() as isize, od.size() as isize);
        let mut acc = Buf([0; LANES * 16]);
        let mut x = Buf([0; LANES * 16]);
        let mut via = Buf([0; LANES * 16]);
        let n = self.out.shape[self.axis];
        let (sa, oa) = (self.src.strides[self.axis], self.out.strides[self.axis]);
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
                    add(ad, acc.0.as_mut_ptr(), x.0.as_ptr(), w);
                } else {
                    add(ad, acc.0.as_mut_ptr(), x.0.as_ptr(), w);
                    convert::run(acc.0.as_ptr(), ad, 1, d, od, ol, w);
                }
            }
        }
    }
}

fn overlaps(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
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
        let (s, o) = (b.view(0)?, b.view(1)?);
        crate::ensure!(
            !overlaps(s, o) || same_view(s, o),
            "self now overlaps out (other than as the same view), which the scan cannot read before writing; plan again"
        );
        Ok(())
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        self.check(b)?;
        let src0 = b.addr(0)? + self.src.offset * self.src.dtype.size();
        let dst0 = b.addr(1)? + self.out.offset * self.out.dtype.size();
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
                unsafe { self.panel(p, src0, dst0) };
            }
        });
        Ok(())
    }
    fn small(&self) -> bool {
        self.out.numel() <= 4096
    }
}

fn build(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    out: &TensorDesc,
    exclusive: bool,
    reverse: bool,
) -> Result<Executor> {
    let axis = ew::axis("dim", dim, self_.rank().max(1), "self")?;
    ew::check_result_shape("out", out, &self_.shape)?;
    crate::ensure!(
        !overlaps(self_, out) || same_view(self_, out),
        "out shares memory with self other than as the same view: {api} needs them apart or identical"
    );
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if out.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    let plan = Scan::new(self_, out, axis, exclusive, reverse);
    Ok(Executor::new(api, bindings, plan))
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
    build("aclnnCumsum", self_, dim, out, false, false)
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
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    build("aclnnCumsumV2", self_, dim, out, exclusive, reverse)
}

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Cumsum, CumsumV2",
    a: CUMSUM,
    b: &[],
    out: CUMSUM,
    rule: "running sum along dim (f16/bf16 in f32, integers wrapping; V2: exclusive, reverse)",
}];
