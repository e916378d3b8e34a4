//! The row-normalisation engine: every operator of the norm family (LayerNorm, RmsNorm,
//! AddRmsNorm, GroupNorm, Norm, ...) is a small rule that describes its tensors as *rows*
//! and hands them here.
//!
//! A plan sees each tensor as a view of `rows ++ elems` dims: the row dims index the
//! independent rows (LayerNorm's leading dims; GroupNorm's (N, group); Norm's kept dims),
//! the element dims the values normalised together (LayerNorm's trailing dims; a group's
//! channels and spatial dims; Norm's reduced dims). An operand is such a view with its own
//! strides, 0 where it is broadcast: LayerNorm's weight has row strides 0, GroupNorm's
//! gamma is indexed by the channel only. Per row:
//!
//! 1. the row's value `v = Σ coefᵢ · inputᵢ` is gathered into an f64 buffer (every float
//!    dtype converts to f64 exactly), optionally rounded to a dtype (AddRmsNorm's `x`, which
//!    xOut holds and which is what is normalised);
//! 2. its statistics are computed in f64, two passes over the buffer: the mean, then the
//!    mean of squared deviations (stable for any offset: mean 1e4 with variance 1e-4 loses
//!    nothing, where a one-pass Σx² − (Σx)²/n would lose every digit), or the mean of
//!    squares (RMS), or a p-norm;
//! 3. the per-row results (mean, rstd, the norm) and the element outputs
//!    `y = (v − mean)·rstd·(w + w₀) + b` (optionally followed by SiLU) are rounded once from
//!    f64 to their dtypes and scattered into their views.
//!
//! Error bound: f64 sums of n terms carry a relative error of at most about n·2⁻⁵³, so every
//! output is the exact value (from the stored inputs) rounded once to its dtype, within one
//! ulp of that dtype for f32/f16/bf16 outputs (half an ulp but for the f64 error, which only
//! matters at a rounding boundary). The exception: rows whose input and y are one 16-bit
//! dtype (the LayerNorm/RmsNorm/GroupNorm calls of f16/bf16 models) compute in f32 as the
//! device does, within the bound `half` states.
//!
//! Rows are split in contiguous blocks across the thread pool; each task has its buffers in
//! the workspace (five rows of f64). Each row reads all of its inputs before writing any of
//! its outputs, so in-place forms (an output that is an input's own view) are exact.

mod half;

use super::activation::Real;
use crate::dtype::DType;
use crate::engine::narrow::{Bf16, Lanes, Portable, F16};
#[cfg(target_arch = "x86_64")]
use crate::engine::narrow::{Bf16Hw, F16Hw};
use crate::engine::reduce::lane_sum_map;
use crate::engine::{align_up, convert, pool, run_tasks, ALIGN, STREAM_MIN_BYTES};
use crate::error::Result;
use crate::executor::{Bindings, Work, Workspace};
use crate::tensor::TensorDesc;

/// A tensor seen as rows: its binding, dtype, first element and strides along the row dims
/// and the element dims (0 where broadcast).
#[derive(Clone, Debug)]
pub struct Operand {
    pub binding: usize,
    pub dtype: DType,
    pub offset: isize,
    pub row_strides: Vec<isize>,
    pub elem_strides: Vec<isize>,
}

impl Operand {
    /// A tensor whose dims are the `rows` row dims followed by the element dims.
    pub fn split(binding: usize, t: &TensorDesc, rows: usize) -> Operand {
        Operand::with_strides(
            binding,
            t,
            t.strides[..rows].to_vec(),
            t.strides[rows..].to_vec(),
        )
    }

    /// A tensor of the element dims' shape, the same for every row (a weight, a bias).
    pub fn per_elem(binding: usize, t: &TensorDesc, rows: usize) -> Operand {
        Operand::with_strides(binding, t, vec![0; rows], t.strides.to_vec())
    }

    /// A tensor with explicit strides along the plan's row and element dims.
    pub fn with_strides(
        binding: usize,
        t: &TensorDesc,
        row_strides: Vec<isize>,
        elem_strides: Vec<isize>,
    ) -> Operand {
        Operand {
            binding,
            dtype: t.dtype,
            offset: t.offset as isize,
            row_strides,
            elem_strides,
        }
    }

    /// The same values for every row: gathered once per task, not once per row.
    fn row_invariant(&self) -> bool {
        self.row_strides.iter().all(|&s| s == 0)
    }
}

/// A tensor holding one value per row (mean, rstd, a norm): any view whose element count is
/// the number of rows, row `r` being its element `r` in row-major order (so [A.., 1, ..],
/// [A..] and (N, group) all work).
#[derive(Clone, Debug)]
pub struct PerRow {
    pub binding: usize,
    pub dtype: DType,
    offset: isize,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

impl PerRow {
    pub fn of(binding: usize, t: &TensorDesc) -> PerRow {
        PerRow {
            binding,
            dtype: t.dtype,
            offset: t.offset as isize,
            shape: t.shape.to_vec(),
            strides: t.strides.to_vec(),
        }
    }

    /// The element offset of row `r`.
    fn at(&self, mut r: usize) -> isize {
        let mut off = self.offset;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            off += (r % n) as isize * s;
            r /= n;
        }
        off
    }
}

/// The statistic of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stat {
    /// The mean and the biased variance: y = (v − mean)·rstd, rstd = 1/√(var + eps).
    /// An empty row has mean 0 and rstd NaN (CANN's LayerNorm and GroupNorm).
    Center,
    /// The mean of squares: y = v·rstd, rstd = 1/√(mean(v²) + eps).
    Rms,
    /// The p-norm (torch.norm): p = 0 counts non-zeros, ±inf the max/min |v|, otherwise
    /// (Σ|v|^p)^(1/p). An empty row's norm is 0.
    PNorm(f64),
    /// torch.renorm: y = v·f, f = max_norm / (norm + 1e-7) where the row's p-norm exceeds
    /// max_norm, else 1.
    Renorm { p: f64, max_norm: f64 },
    /// The sum and the sum of squares (BatchNormReduce); y = v.
    Sums,
}

/// Which per-row value a `PerRow` output receives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Emit {
    Mean,
    Rstd,
    /// The biased variance of `Stat::Center`.
    Var,
    /// The norm of `Stat::PNorm`.
    Norm,
    /// The sum and the sum of squares of `Stat::Sums`.
    Sum,
    SquareSum,
}

/// What to compute, described by the operator's rule.
#[derive(Clone, Debug)]
pub struct Rows {
    /// Sizes of the row dims and of the element dims.
    pub rows: Vec<usize>,
    pub elems: Vec<usize>,
    /// The row's value: the sum of coefficient × operand (at least one term).
    pub terms: Vec<(Operand, f64)>,
    /// The value is rounded to this dtype before anything else (it is what `sum_out` holds).
    pub round: Option<DType>,
    pub stat: Stat,
    pub eps: f64,
    /// y's scale is `weight + weight_offset` (Gemma's 1 + gamma); none: 1.
    pub weight: Option<Operand>,
    pub weight_offset: f64,
    pub bias: Option<Operand>,
    /// y = y·sigmoid(scale·y) with this scale (GroupNormSilu: 1; GroupNormSwish's
    /// swishScale).
    pub silu: Option<f64>,
    /// Receives the value v (AddRmsNorm's xOut).
    pub sum_out: Option<Operand>,
    /// Receives y.
    pub y_out: Option<Operand>,
    pub stat_outs: Vec<(PerRow, Emit)>,
    /// BatchNorm's running statistics (with `Stat::Center`).
    pub running: Option<Running>,
}

/// Running mean and variance, one per row: the statistics used (inference), or updated
/// from the row's as `(1 − momentum)·running + momentum·batch`, the variance unbiased
/// (training, PyTorch's rule).
#[derive(Clone, Debug)]
pub struct Running {
    pub mean: PerRow,
    pub var: PerRow,
    pub momentum: f64,
    /// Normalise with the running statistics instead of the row's.
    pub use_for_stats: bool,
    /// With `use_for_stats`: `var` holds the inverse standard deviation itself, used as
    /// the row's rstd (BatchNormElemt's invstd), not a variance.
    pub invstd: bool,
}

/// A row's statistics.
#[derive(Clone, Copy, Debug)]
struct RowStats {
    /// The mean (Center), or the norm (PNorm, Renorm).
    first: f64,
    /// The biased variance (Center).
    var: f64,
    /// The factor y is scaled by.
    rstd: f64,
}

/// Rows per task at least this many elements of work before another task is worth it.
const TASK_ELEMS: usize = 16 * 1024;

/// A planned `Rows`.
pub struct RowPlan {
    spec: Rows,
    count: usize,
    len: usize,
    tasks: usize,
    task_bytes: usize,
    /// The f32 path, where the rule allows it.
    fast: Option<Fast>,
    /// On the f32 path: f16/bf16 rows computed in f32 (`half`).
    half: Option<Half>,
}

/// The f32 arithmetic of 16-bit rows (`half`): for `Stat::Center` and `Stat::Rms` rows
/// without running statistics whose input and y are one of f16/bf16, each row of both one
/// unit-stride run.
#[derive(Clone, Copy, Debug)]
struct Half {
    /// y is written with non-temporal stores (from the task's buffer): it is larger than
    /// the caches (`STREAM_MIN_BYTES`), and a normal store first reads each line it fills.
    /// Measured here: LayerNorm (4096, 4096) f16 4.8 -> 3.2 ms.
    stream: bool,
}

/// The f32 path (`RowPlan::fast_rows`): for rows whose value is one input as it is (no sum
/// of terms, no rounding, no xOut, no SiLU) and whose input, weight and bias are f32, f16 or
/// bf16 — the norms models call. Their values are read as f32 (exact for these dtypes) and
/// widened to f64 inside each pass, so the sums, statistics and y are the same f64 values in
/// the same order as the f64-buffer path's (the same bits), with a quarter of its buffer
/// traffic: an f32 row stays in L1 across the passes, and an f32 operand whose row is one
/// unit-stride run is read or written where it lies.
#[derive(Clone, Copy, Debug)]
struct Fast {
    /// The input is f32 and each of its rows one unit-stride run.
    x_direct: bool,
    /// y is f32 and each of its rows one unit-stride run.
    y_direct: bool,
    /// With `y_direct`: the weight and bias are constant along each run of the innermost
    /// element dim (GroupNorm's gamma and beta per channel), this long; their buffers hold
    /// one value per run, not the row expanded (at (8, 256, 64, 64) that expansion wrote
    /// and read 256 KiB per row).
    wb_run: Option<usize>,
}

/// Whether a row of `elems` with these strides is one run of consecutive elements.
fn unit_run(elems: &[usize], strides: &[isize]) -> bool {
    let mut next = 1isize;
    for (&n, &st) in elems.iter().zip(strides).rev() {
        if n == 1 {
            continue;
        }
        if st != next {
            return false;
        }
        next *= n as isize;
    }
    true
}

#[cfg(test)]
thread_local! {
    /// Plans made on this thread skip the f32 path (tests compare the two paths' bits).
    pub(crate) static GENERAL_PATH_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Plans made on this thread compute 16-bit rows in f64 too (`half`).
    pub(crate) static NO_HALF_ARITHMETIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn general_path_only() -> bool {
    #[cfg(test)]
    return GENERAL_PATH_ONLY.with(|g| g.get());
    #[cfg(not(test))]
    false
}

fn no_half_arithmetic() -> bool {
    #[cfg(test)]
    return NO_HALF_ARITHMETIC.with(|g| g.get());
    #[cfg(not(test))]
    false
}

/// The shortest run worth a per-run weight and bias (`Fast::wb_run`).
const WB_RUN_MIN: usize = 16;

/// Dtypes the f32 path reads exactly.
fn reads_as_f32(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F16 | DType::BF16)
}

impl Rows {
    pub fn plan(self) -> RowPlan {
        let count: usize = self.rows.iter().product();
        let len: usize = self.elems.iter().product();
        let threads = pool().current_num_threads();
        let tasks = if count == 0 {
            0
        } else {
            count
                .min(threads)
                .min((count * len.max(1)).div_ceil(TASK_ELEMS))
                .max(1)
        };
        let plain_input = self.terms.len() == 1
            && self.terms[0].1 == 1.0
            && self.round.is_none()
            && self.sum_out.is_none()
            && self.silu.is_none();
        let fast = (plain_input
            && !general_path_only()
            && reads_as_f32(self.terms[0].0.dtype)
            && self
                .weight
                .iter()
                .chain(&self.bias)
                .all(|o| reads_as_f32(o.dtype)))
        .then(|| {
            let direct =
                |o: &Operand| o.dtype == DType::F32 && unit_run(&self.elems, &o.elem_strides);
            let y_direct = self.y_out.as_ref().is_some_and(direct);
            let inner = self.elems.last().copied().unwrap_or(1);
            let per_run = |o: &Operand| o.elem_strides.last() == Some(&0);
            let mut wb = self.weight.iter().chain(&self.bias).peekable();
            let wb_run =
                (y_direct && inner >= WB_RUN_MIN && wb.peek().is_some() && wb.all(per_run))
                    .then_some(inner);
            Fast {
                x_direct: direct(&self.terms[0].0),
                y_direct,
                wb_run,
            }
        });
        let x = &self.terms[0].0;
        let half = (fast.is_some()
            && !no_half_arithmetic()
            && len > 0
            && matches!(x.dtype, DType::F16 | DType::BF16)
            && matches!(self.stat, Stat::Center | Stat::Rms)
            && self.running.is_none()
            && unit_run(&self.elems, &x.elem_strides))
        .then_some(())
        .and(self.y_out.as_ref())
        .filter(|y| y.dtype == x.dtype && unit_run(&self.elems, &y.elem_strides))
        .map(|_| Half {
            stream: count * len * 2 >= STREAM_MIN_BYTES,
        });
        RowPlan {
            spec: self,
            count,
            len,
            tasks,
            task_bytes: BUFFERS * align_up(len.max(1) * 8),
            fast,
            half,
        }
    }
}

/// Per task: the value, a second term (then the y values), the weight, the bias, and a
/// conversion buffer.
const BUFFERS: usize = 5;

/// A task's buffers, each `len` f64 values.
struct Buffers {
    v: *mut f64,
    tmp: *mut f64,
    w: *mut f64,
    b: *mut f64,
    cast: *mut u8,
}

impl RowPlan {
    /// The element offset of `op`'s first element in row `r`.
    fn row_base(&self, op: &Operand, mut r: usize) -> isize {
        let mut off = op.offset;
        for (&n, &s) in self.spec.rows.iter().zip(&op.row_strides).rev() {
            off += (r % n) as isize * s;
            r /= n;
        }
        off
    }

    /// Calls `f(element offset, stride, first index in the row, run length)` for each run
    /// along the innermost element dim of `op`'s row starting at `base`.
    fn for_runs(&self, op: &Operand, base: isize, mut f: impl FnMut(isize, isize, usize, usize)) {
        let elems = &self.spec.elems;
        let Some((&inner, outer)) = elems.split_last() else {
            f(base, 0, 0, 1);
            return;
        };
        if inner == 0 {
            return;
        }
        let inner_stride = *op.elem_strides.last().unwrap();
        let runs: usize = outer.iter().product();
        for run in 0..runs {
            let (mut rem, mut off) = (run, base);
            for (&n, &s) in outer.iter().zip(&op.elem_strides).rev() {
                off += (rem % n) as isize * s;
                rem /= n;
            }
            f(off, inner_stride, run * inner, inner);
        }
    }

    /// Reads row `r` of `op` into `buf` as `buf_dtype` (`read`), or writes `buf` into it,
    /// rounding once to its dtype.
    unsafe fn transfer(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        (buf, buf_dtype): (*mut u8, DType),
        read: bool,
    ) -> Result<()> {
        let addr = tensors.addr(op.binding)?;
        let size = op.dtype.size() as isize;
        self.for_runs(op, self.row_base(op, r), |off, stride, at, n| {
            let elem = (addr as isize + off * size) as *mut u8;
            let val = unsafe { buf.add(at * buf_dtype.size()) };
            // SAFETY: the run lies inside the operand's validated view; buf holds `len` values.
            unsafe {
                if read {
                    convert::run(elem, op.dtype, stride, val, buf_dtype, 1, n)
                } else {
                    convert::run(val, buf_dtype, 1, elem, op.dtype, stride, n)
                }
            }
        });
        Ok(())
    }

    /// Reads row `r` of `op` into `dst` as f64 (exact).
    unsafe fn gather(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        dst: *mut f64,
    ) -> Result<()> {
        unsafe { self.transfer(tensors, op, r, (dst as *mut u8, DType::F64), true) }
    }

    /// Reads row `r` of `op` (f32, f16 or bf16) into `dst` as f32 (exact).
    unsafe fn gather_f32(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        dst: *mut f32,
    ) -> Result<()> {
        unsafe { self.transfer(tensors, op, r, (dst as *mut u8, DType::F32), true) }
    }

    /// Reads row `r` of a weight or bias (f32, f16 or bf16) into `dst` as f32: the row, or
    /// at `Fast::wb_run` one value per run.
    unsafe fn gather_wb_f32(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        dst: *mut f32,
        fast: Fast,
    ) -> Result<()> {
        let Some(inner) = fast.wb_run else {
            // SAFETY: forwarded from the caller.
            return unsafe { self.gather_f32(tensors, op, r, dst) };
        };
        let addr = tensors.addr(op.binding)?;
        let size = op.dtype.size() as isize;
        self.for_runs(op, self.row_base(op, r), |off, _, at, _| {
            let elem = (addr as isize + off * size) as *const u8;
            // SAFETY: the run's first element lies inside the operand's validated view; dst
            // holds a value per run.
            unsafe {
                let val = dst.add(at / inner) as *mut u8;
                convert::run(elem, op.dtype, 1, val, DType::F32, 1, 1)
            }
        });
        Ok(())
    }

    /// Row `r`'s weight and bias as f32 in `b`'s buffers (gathered here unless
    /// row-invariant, then already there), `stand_in` where absent (never read then).
    ///
    /// # Safety
    /// `b`'s buffers hold `len` f32 values each.
    #[inline(always)]
    unsafe fn wb_f32<'a>(
        &self,
        tensors: &Bindings,
        r: usize,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
        stand_in: &'a [f32],
    ) -> Result<(&'a [f32], &'a [f32])> {
        let s = &self.spec;
        let mut rows = [stand_in; 2];
        for (k, (op, buf, inv)) in [(&s.weight, b.w, invariant.0), (&s.bias, b.b, invariant.1)]
            .into_iter()
            .enumerate()
        {
            if let Some(op) = op {
                // SAFETY: the buffer holds `len` f32 values, as the caller guarantees.
                unsafe {
                    if !inv {
                        self.gather_wb_f32(tensors, op, r, buf as *mut f32, fast)?;
                    }
                    rows[k] = std::slice::from_raw_parts(buf as *const f32, self.len);
                }
            }
        }
        Ok((rows[0], rows[1]))
    }

    /// Writes `src` (f64) into row `r` of `op`, each value rounded once.
    unsafe fn scatter(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        src: *mut f64,
    ) -> Result<()> {
        unsafe { self.transfer(tensors, op, r, (src as *mut u8, DType::F64), false) }
    }

    /// The address of row `r` of an f32 operand whose rows are unit-stride runs.
    fn f32_row(&self, tensors: &Bindings, op: &Operand, r: usize) -> Result<*mut f32> {
        let addr = tensors.addr(op.binding)?;
        Ok((addr as isize + self.row_base(op, r) * 4) as *mut f32)
    }

    /// The row's statistics, from f64 values or from f32 values widened as they are read
    /// (the same sums in the same order: the same bits).
    #[inline(always)]
    fn stats<T: Copy + Into<f64>>(&self, v: &[T]) -> RowStats {
        let n = v.len() as f64;
        let eps = self.spec.eps;
        let (first, var, rstd) = match self.spec.stat {
            Stat::Center if v.is_empty() => (0.0, f64::NAN, f64::NAN),
            Stat::Center => {
                let mean = lane_sum_map(v, |x| x.into()) / n;
                let var = lane_sum_map(v, |x| {
                    let d = x.into() - mean;
                    d * d
                }) / n;
                (mean, var, 1.0 / (var + eps).sqrt())
            }
            Stat::Rms => {
                let ms = lane_sum_map(v, |x| {
                    let x = x.into();
                    x * x
                }) / n;
                (0.0, f64::NAN, 1.0 / (ms + eps).sqrt())
            }
            Stat::PNorm(p) => (p_norm(v, p), f64::NAN, f64::NAN),
            Stat::Renorm { p, max_norm } => {
                let norm = p_norm(v, p);
                let factor = if norm > max_norm {
                    max_norm / (norm + 1e-7)
                } else {
                    1.0
                };
                (norm, f64::NAN, factor)
            }
            Stat::Sums => (
                lane_sum_map(v, |x| x.into()),
                lane_sum_map(v, |x| {
                    let x = x.into();
                    x * x
                }),
                1.0,
            ),
        };
        RowStats { first, var, rstd }
    }

    /// Reads row `r`'s element of a per-row tensor.
    unsafe fn read_row(&self, tensors: &Bindings, t: &PerRow, r: usize) -> Result<f64> {
        let addr = tensors.addr(t.binding)?;
        let p = (addr as isize + t.at(r) * t.dtype.size() as isize) as *const u8;
        let mut v = 0f64;
        // SAFETY: row r's element lies inside the validated view.
        unsafe {
            convert::run(
                p,
                t.dtype,
                1,
                &mut v as *mut f64 as *mut u8,
                DType::F64,
                1,
                1,
            )
        };
        Ok(v)
    }

    /// Writes `value` into row `r`'s element of a per-row tensor, rounded once.
    unsafe fn write_row(&self, tensors: &Bindings, t: &PerRow, r: usize, value: f64) -> Result<()> {
        let addr = tensors.addr(t.binding)?;
        let p = (addr as isize + t.at(r) * t.dtype.size() as isize) as *mut u8;
        // SAFETY: row r's element lies inside the validated output view.
        unsafe {
            convert::run(
                &value as *const f64 as *const u8,
                DType::F64,
                1,
                p,
                t.dtype,
                1,
                1,
            )
        };
        Ok(())
    }

    /// The row's statistics, with BatchNorm's running statistics used or updated.
    #[inline(always)]
    unsafe fn row_stats<T: Copy + Into<f64>>(
        &self,
        tensors: &Bindings,
        r: usize,
        v: &[T],
    ) -> Result<RowStats> {
        let Some(run) = &self.spec.running else {
            return Ok(self.stats(v));
        };
        // SAFETY: per-row views validated in phase 1.
        unsafe {
            if run.use_for_stats {
                let mean = self.read_row(tensors, &run.mean, r)?;
                let var = self.read_row(tensors, &run.var, r)?;
                let rstd = if run.invstd {
                    var
                } else {
                    1.0 / (var + self.spec.eps).sqrt()
                };
                return Ok(RowStats {
                    first: mean,
                    var,
                    rstd,
                });
            }
            let st = self.stats(v);
            let n = v.len() as f64;
            let m = run.momentum;
            let old_mean = self.read_row(tensors, &run.mean, r)?;
            let old_var = self.read_row(tensors, &run.var, r)?;
            self.write_row(tensors, &run.mean, r, (1.0 - m) * old_mean + m * st.first)?;
            self.write_row(
                tensors,
                &run.var,
                r,
                (1.0 - m) * old_var + m * st.var * n / (n - 1.0),
            )?;
            Ok(st)
        }
    }

    /// Row `r`: gathers, computes, writes.
    unsafe fn row(
        &self,
        tensors: &Bindings,
        r: usize,
        b: &Buffers,
        invariant: (bool, bool),
    ) -> Result<()> {
        let s = &self.spec;
        let len = self.len;
        // SAFETY (whole body): the buffers hold `len` f64 values each (sized in phase 1), and
        // no slice over one is alive while it is written through its pointer.
        unsafe {
            for (i, (op, coef)) in s.terms.iter().enumerate() {
                let dst = if i == 0 { b.v } else { b.tmp };
                self.gather(tensors, op, r, dst)?;
                let v = std::slice::from_raw_parts_mut(b.v, len);
                if i == 0 {
                    if *coef != 1.0 {
                        v.iter_mut().for_each(|x| *x *= coef);
                    }
                } else {
                    let t = std::slice::from_raw_parts(b.tmp, len);
                    v.iter_mut().zip(t).for_each(|(x, t)| *x += coef * t);
                }
            }
            if let Some(d) = s.round {
                convert::run(b.v as *const u8, DType::F64, 1, b.cast, d, 1, len);
                convert::run(
                    b.cast as *const u8,
                    d,
                    1,
                    b.v as *mut u8,
                    DType::F64,
                    1,
                    len,
                );
            }
            if let Some(w) = &s.weight {
                if !invariant.0 {
                    self.gather(tensors, w, r, b.w)?;
                }
            }
            if let Some(bias) = &s.bias {
                if !invariant.1 {
                    self.gather(tensors, bias, r, b.b)?;
                }
            }
            if let Some(x_out) = &s.sum_out {
                self.scatter(tensors, x_out, r, b.v)?;
            }
            let v = std::slice::from_raw_parts(b.v, len);
            // Unused buffers stand in for an absent weight or bias (never read).
            let w = std::slice::from_raw_parts(if s.weight.is_some() { b.w } else { b.v }, len);
            let bias = std::slice::from_raw_parts(if s.bias.is_some() { b.b } else { b.v }, len);
            self.finish(tensors, r, (v, w, bias), b.tmp, None)
        }
    }

    /// The rest of row `r` from its value `v`, weight `w` and bias (buffers or, on the f32
    /// path, f32 rows): its statistics, the per-row outputs and y, computed into `y_buf`
    /// and scattered, or stored where it lies at `y_direct` (f32, a unit-stride row that
    /// overlaps none of the inputs).
    #[inline(always)]
    unsafe fn finish<X: Real + Into<f64>>(
        &self,
        tensors: &Bindings,
        r: usize,
        (v, w, bias): (&[X], &[X], &[X]),
        y_buf: *mut f64,
        y_direct: Option<*mut f32>,
    ) -> Result<()> {
        let s = &self.spec;
        let len = self.len;
        // SAFETY (whole body): y_buf holds `len` f64 values, y_direct `len` f32 values that
        // no input slice covers; per-row outputs are validated views.
        unsafe {
            let st = self.row_stats(tensors, r, v)?;
            let (first, rstd) = (st.first, st.rstd);
            self.emit_stats(tensors, r, &st)?;
            let Some(y_out) = &s.y_out else {
                return Ok(());
            };
            let a = Affine {
                shift: if s.stat == Stat::Center { first } else { 0.0 },
                rstd,
                w0: s.weight_offset,
            };
            let (has_w, has_b) = (s.weight.is_some(), s.bias.is_some());
            if let Some(y) = y_direct {
                let y = std::slice::from_raw_parts_mut(y, len);
                match self.fast.and_then(|f| f.wb_run) {
                    // w and bias hold a value per run.
                    Some(inner) => {
                        for (k, (v, y)) in v.chunks(inner).zip(y.chunks_mut(inner)).enumerate() {
                            a.apply_any(has_w, has_b, v, Splat(w[k]), Splat(bias[k]), y);
                        }
                    }
                    None => a.apply_any(has_w, has_b, v, w, bias, y),
                }
                return Ok(());
            }
            // A 16-bit y on the f32 path: half the buffer traffic of f64, the same bits.
            if self.fast.is_some() && matches!(y_out.dtype, DType::F16 | DType::BF16) {
                if y_out.dtype == DType::F16 {
                    let y = std::slice::from_raw_parts_mut(y_buf as *mut OddF32ForF16, len);
                    a.apply_any(has_w, has_b, v, w, bias, y);
                } else {
                    let y = std::slice::from_raw_parts_mut(y_buf as *mut OddF32, len);
                    a.apply_any(has_w, has_b, v, w, bias, y);
                }
                return self.transfer(tensors, y_out, r, (y_buf as *mut u8, DType::F32), false);
            }
            let y = std::slice::from_raw_parts_mut(y_buf, len);
            a.apply_any(has_w, has_b, v, w, bias, y);
            if let Some(k) = s.silu {
                y.iter_mut().for_each(|z| *z /= 1.0 + (-k * *z).exp());
            }
            self.scatter(tensors, y_out, r, y_buf)
        }
    }

    /// Writes row `r`'s per-row outputs.
    unsafe fn emit_stats(&self, tensors: &Bindings, r: usize, st: &RowStats) -> Result<()> {
        for (out, emit) in &self.spec.stat_outs {
            let value = match emit {
                Emit::Mean | Emit::Norm | Emit::Sum => st.first,
                Emit::Rstd => st.rstd,
                Emit::Var | Emit::SquareSum => st.var,
            };
            // SAFETY: per-row outputs are validated views.
            unsafe { self.write_row(tensors, out, r, value)? };
        }
        Ok(())
    }

    /// Row `r` of 16-bit storage in f32 arithmetic (see `Half`), converted with `H`; rows
    /// the f32 sums cannot hold go to `fast_row`.
    #[inline(always)]
    unsafe fn half_row<H: Lanes>(
        &self,
        tensors: &Bindings,
        r: usize,
        b: &Buffers,
        (fast, half): (Fast, Half),
        invariant: (bool, bool),
    ) -> Result<()> {
        let s = &self.spec;
        let len = self.len;
        let (x_op, y_op) = (&s.terms[0].0, s.y_out.as_ref().expect("Half has a y"));
        let src = (tensors.addr(x_op.binding)? as isize + self.row_base(x_op, r) * 2) as *const u16;
        let dst = (tensors.addr(y_op.binding)? as isize + self.row_base(y_op, r) * 2) as *mut u16;
        // SAFETY (whole body): the buffers hold `len` f32 values each (and `cast` `len`
        // 16-bit ones); the rows at src and dst are validated unit-stride views; the input
        // row is read whole into the buffer before any of y is written, so y may be x.
        unsafe {
            let xb = std::slice::from_raw_parts_mut(b.v as *mut f32, len);
            let Some(st) = self.half_stats::<H>(src, xb, x_op.dtype) else {
                return self.fast_row(tensors, r, b, fast, invariant);
            };
            let x = &*xb;
            let (w, bias) = self.wb_f32(tensors, r, b, fast, invariant, x)?;
            self.emit_stats(tensors, r, &st)?;
            if half.stream && !(dst as usize).is_multiple_of(16) {
                let staged = b.cast as *mut u16;
                self.half_y::<H>(&st, (x, w, bias), (staged, false));
                convert::stream_copy(staged as *const u8, dst as *mut u8, len * 2);
            } else {
                self.half_y::<H>(&st, (x, w, bias), (dst, half.stream));
            }
        }
        Ok(())
    }

    /// Row `r` on the f32 path (see `Fast`); `b`'s value, weight and bias buffers hold f32
    /// rows here.
    #[inline(always)]
    unsafe fn fast_row(
        &self,
        tensors: &Bindings,
        r: usize,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
    ) -> Result<()> {
        let s = &self.spec;
        let len = self.len;
        let x_op = &s.terms[0].0;
        let xb = b.v as *mut f32;
        let y_at = match &s.y_out {
            Some(y) if fast.y_direct => Some(self.f32_row(tensors, y, r)?),
            _ => None,
        };
        let mut x_at = if fast.x_direct {
            Some(self.f32_row(tensors, x_op, r)? as *const f32)
        } else {
            None
        };
        // y stored over the input it is computed from (an in-place call): read a copy.
        if let (Some(x), Some(y)) = (x_at, y_at) {
            let (x, y) = (x as usize, y as usize);
            if x < y + len * 4 && y < x + len * 4 {
                x_at = None;
            }
        }
        // SAFETY (whole body): the buffers hold `len` f32 values each; the rows read in
        // place are validated views, not written while read.
        unsafe {
            let x = match x_at {
                Some(p) => p,
                None => {
                    self.gather_f32(tensors, x_op, r, xb)?;
                    xb
                }
            };
            let x = std::slice::from_raw_parts(x, len);
            let (w, bias) = self.wb_f32(tensors, r, b, fast, invariant, x)?;
            self.finish(tensors, r, (x, w, bias), b.tmp, y_at)
        }
    }

    /// Rows `first..last` on the f32 path, compiled for AVX-512 or AVX2 (with FMA and F16C)
    /// where the CPU has them (eight f32 widened to eight f64 lanes per instruction in every
    /// pass; sixteen f32 lanes on `half`'s).
    unsafe fn fast_rows(
        &self,
        tensors: &Bindings,
        rows: std::ops::Range<usize>,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
    ) -> Result<()> {
        #[cfg(target_arch = "x86_64")]
        {
            let fma_f16c = std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("f16c");
            if fma_f16c && std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has the features the function is compiled for.
                return unsafe { self.fast_rows_avx512(tensors, rows, b, fast, invariant) };
            }
            if fma_f16c && std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: as above.
                return unsafe { self.fast_rows_avx2(tensors, rows, b, fast, invariant) };
            }
        }
        unsafe {
            self.fast_rows_with::<Portable<F16>, Portable<Bf16>>(tensors, rows, b, fast, invariant)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma,f16c")]
    unsafe fn fast_rows_avx512(
        &self,
        tensors: &Bindings,
        rows: std::ops::Range<usize>,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
    ) -> Result<()> {
        unsafe { self.fast_rows_with::<F16Hw, Bf16Hw>(tensors, rows, b, fast, invariant) }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn fast_rows_avx2(
        &self,
        tensors: &Bindings,
        rows: std::ops::Range<usize>,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
    ) -> Result<()> {
        unsafe { self.fast_rows_with::<F16Hw, Bf16Hw>(tensors, rows, b, fast, invariant) }
    }

    /// `H16`, `B16`: how f16 and bf16 lanes are converted in the caller's instructions.
    #[inline(always)]
    unsafe fn fast_rows_with<H16: Lanes<F = F16>, B16: Lanes<F = Bf16>>(
        &self,
        tensors: &Bindings,
        rows: std::ops::Range<usize>,
        b: &Buffers,
        fast: Fast,
        invariant: (bool, bool),
    ) -> Result<()> {
        let Some(half) = self.half else {
            for r in rows {
                // SAFETY: as the caller guarantees.
                unsafe { self.fast_row(tensors, r, b, fast, invariant)? };
            }
            return Ok(());
        };
        let bf16 = self.spec.terms[0].0.dtype == DType::BF16;
        for r in rows {
            // SAFETY: as the caller guarantees.
            unsafe {
                if bf16 {
                    self.half_row::<B16>(tensors, r, b, (fast, half), invariant)?;
                } else {
                    self.half_row::<H16>(tensors, r, b, (fast, half), invariant)?;
                }
            }
        }
        if half.stream {
            convert::store_fence();
        }
        Ok(())
    }
}

/// What y's f64 values are stored as before they reach y's view.
trait Narrowed: Copy {
    fn narrowed(v: f64) -> Self;
}
impl Narrowed for f64 {
    #[inline(always)]
    fn narrowed(v: f64) -> Self {
        v
    }
}
impl Narrowed for f32 {
    #[inline(always)]
    fn narrowed(v: f64) -> Self {
        v as f32
    }
}
/// f32 rounded to odd: converting it to f16/bf16 then rounds as once from the f64 value.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct OddF32(f32);
impl Narrowed for OddF32 {
    #[inline(always)]
    fn narrowed(v: f64) -> Self {
        OddF32(convert::round_odd(v))
    }
}

/// `OddF32` for f16 results (`convert::round_odd_for_f16`: the same f16 bits, cheaper).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct OddF32ForF16(f32);
impl Narrowed for OddF32ForF16 {
    #[inline(always)]
    fn narrowed(v: f64) -> Self {
        OddF32ForF16(convert::round_odd_for_f16(v))
    }
}

/// A weight or bias for `Affine`: a row of values, or one value for a whole run.
trait Source<X>: Copy {
    /// The first `n` values (a splat is its own prefix).
    fn prefix(self, n: usize) -> Self;
    fn at(self, j: usize) -> X;
}
impl<X: Copy> Source<X> for &[X] {
    #[inline(always)]
    fn prefix(self, n: usize) -> Self {
        &self[..n]
    }
    #[inline(always)]
    fn at(self, j: usize) -> X {
        self[j]
    }
}
#[derive(Clone, Copy)]
struct Splat<X>(X);
impl<X: Copy> Source<X> for Splat<X> {
    #[inline(always)]
    fn prefix(self, _: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _: usize) -> X {
        self.0
    }
}

/// y = ((v − shift)·rstd)·(w + w₀) + b, the weight and the bias each optional: one fused
/// pass that vectorises, the steps in this order for every configuration.
struct Affine {
    shift: f64,
    rstd: f64,
    w0: f64,
}

impl Affine {
    /// In f64 from values of `X` (f64 or f32, widened exactly), rounded once into `Y`.
    #[inline(always)]
    fn apply<const W: bool, const B: bool, X: Real, S: Source<X>, Y: Narrowed>(
        &self,
        v: &[X],
        w: S,
        b: S,
        y: &mut [Y],
    ) {
        let n = y.len();
        let (v, w, b) = (&v[..n], w.prefix(n), b.prefix(n));
        for j in 0..n {
            let mut z = (v[j].widen() - self.shift) * self.rstd;
            if W {
                z *= w.at(j).widen() + self.w0;
            }
            if B {
                z += b.at(j).widen();
            }
            y[j] = Y::narrowed(z);
        }
    }

    /// `apply` with the weight and the bias each present or not.
    #[inline(always)]
    fn apply_any<X: Real, S: Source<X>, Y: Narrowed>(
        &self,
        has_w: bool,
        has_b: bool,
        v: &[X],
        w: S,
        b: S,
        y: &mut [Y],
    ) {
        match (has_w, has_b) {
            (true, true) => self.apply::<true, true, X, S, Y>(v, w, b, y),
            (true, false) => self.apply::<true, false, X, S, Y>(v, w, b, y),
            (false, true) => self.apply::<false, true, X, S, Y>(v, w, b, y),
            (false, false) => self.apply::<false, false, X, S, Y>(v, w, b, y),
        }
    }
}

/// torch.norm's p-norm of `v` in f64.
fn p_norm<T: Copy + Into<f64>>(v: &[T], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let abs = v.iter().map(|&x| x.into().abs());
    if p == 0.0 {
        abs.filter(|&a| a != 0.0).count() as f64
    } else if p == f64::INFINITY {
        abs.fold(f64::NEG_INFINITY, |m, a| {
            if a.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(a)
            }
        })
    } else if p == f64::NEG_INFINITY {
        abs.fold(f64::INFINITY, |m, a| {
            if a.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.min(a)
            }
        })
    } else if p == 1.0 {
        abs.sum()
    } else if p == 2.0 {
        abs.map(|a| a * a).sum::<f64>().sqrt()
    } else {
        abs.map(|a| a.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

impl Work for RowPlan {
    fn workspace_size(&self) -> u64 {
        if self.tasks == 0 {
            0
        } else {
            (self.tasks * self.task_bytes + ALIGN) as u64
        }
    }

    fn run(&self, tensors: &Bindings, ws: Workspace) -> Result<()> {
        if self.tasks == 0 {
            return Ok(());
        }
        let base = ws.addr.div_ceil(ALIGN) * ALIGN;
        let buf = align_up(self.len.max(1) * 8);
        let error = std::sync::Mutex::new(None);
        let s = &self.spec;
        run_tasks(self.tasks, |t| {
            let region = base + t * self.task_bytes;
            let b = Buffers {
                v: region as *mut f64,
                tmp: (region + buf) as *mut f64,
                w: (region + 2 * buf) as *mut f64,
                b: (region + 3 * buf) as *mut f64,
                cast: (region + 4 * buf) as *mut u8,
            };
            let (first, last) = (
                self.count * t / self.tasks,
                self.count * (t + 1) / self.tasks,
            );
            let result = (|| -> Result<()> {
                // Row-invariant weight and bias are read once per task.
                let w_inv = s.weight.as_ref().is_some_and(|w| w.row_invariant());
                let b_inv = s.bias.as_ref().is_some_and(|b| b.row_invariant());
                // SAFETY: the task's buffers lie in the workspace sized in phase 1.
                unsafe {
                    if let Some(fast) = self.fast {
                        if let (Some(w), true) = (&s.weight, w_inv) {
                            self.gather_wb_f32(tensors, w, 0, b.w as _, fast)?;
                        }
                        if let (Some(bias), true) = (&s.bias, b_inv) {
                            self.gather_wb_f32(tensors, bias, 0, b.b as _, fast)?;
                        }
                        return self.fast_rows(tensors, first..last, &b, fast, (w_inv, b_inv));
                    }
                    if w_inv {
                        self.gather(tensors, s.weight.as_ref().unwrap(), 0, b.w)?;
                    }
                    if b_inv {
                        self.gather(tensors, s.bias.as_ref().unwrap(), 0, b.b)?;
                    }
                    for r in first..last {
                        self.row(tensors, r, &b, (w_inv, b_inv))?;
                    }
                }
                Ok(())
            })();
            if let Err(e) = result {
                *error.lock().unwrap() = Some(e);
            }
        });
        match error.into_inner().unwrap() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn small(&self) -> bool {
        self.count * self.len.max(1) <= 4096
    }
}
