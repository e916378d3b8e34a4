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
//! matters at a rounding boundary). Inputs of f16/bf16 are therefore computed in more than
//! f32 and rounded once.
//!
//! Rows are split in contiguous blocks across the thread pool; each task has its buffers in
//! the workspace (five rows of f64). Each row reads all of its inputs before writing any of
//! its outputs, so in-place forms (an output that is an input's own view) are exact.

use crate::dtype::DType;
use crate::engine::reduce::{lane_sum, lane_sum_map};
use crate::engine::{align_up, convert, pool, run_tasks, ALIGN};
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
        RowPlan {
            spec: self,
            count,
            len,
            tasks,
            task_bytes: BUFFERS * align_up(len.max(1) * 8),
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

    /// Reads row `r` of `op` into `buf` as f64 (`read`), or writes `buf` into it, rounding
    /// once to its dtype.
    unsafe fn transfer(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        buf: *mut f64,
        read: bool,
    ) -> Result<()> {
        let addr = tensors.addr(op.binding)?;
        let size = op.dtype.size() as isize;
        self.for_runs(op, self.row_base(op, r), |off, stride, at, n| {
            let elem = (addr as isize + off * size) as *mut u8;
            let val = unsafe { buf.add(at) } as *mut u8;
            // SAFETY: the run lies inside the operand's validated view; buf holds `len` values.
            unsafe {
                if read {
                    convert::run(elem, op.dtype, stride, val, DType::F64, 1, n)
                } else {
                    convert::run(val, DType::F64, 1, elem, op.dtype, stride, n)
                }
            }
        });
        Ok(())
    }

    unsafe fn gather(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        dst: *mut f64,
    ) -> Result<()> {
        unsafe { self.transfer(tensors, op, r, dst, true) }
    }

    unsafe fn scatter(
        &self,
        tensors: &Bindings,
        op: &Operand,
        r: usize,
        src: *mut f64,
    ) -> Result<()> {
        unsafe { self.transfer(tensors, op, r, src, false) }
    }

    /// The row's statistics.
    fn stats(&self, v: &[f64]) -> RowStats {
        let n = v.len() as f64;
        let eps = self.spec.eps;
        let (first, var, rstd) = match self.spec.stat {
            Stat::Center if v.is_empty() => (0.0, f64::NAN, f64::NAN),
            Stat::Center => {
                let mean = lane_sum(v) / n;
                let var = lane_sum_map(v, |x| (x - mean) * (x - mean)) / n;
                (mean, var, 1.0 / (var + eps).sqrt())
            }
            Stat::Rms => {
                let ms = lane_sum_map(v, |x| x * x) / n;
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
            Stat::Sums => (lane_sum(v), lane_sum_map(v, |x| x * x), 1.0),
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
    unsafe fn row_stats(&self, tensors: &Bindings, r: usize, v: &[f64]) -> Result<RowStats> {
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
            let st = self.row_stats(tensors, r, std::slice::from_raw_parts(b.v, len))?;
            let (first, rstd) = (st.first, st.rstd);
            for (out, emit) in &s.stat_outs {
                let value = match emit {
                    Emit::Mean | Emit::Norm | Emit::Sum => first,
                    Emit::Rstd => rstd,
                    Emit::Var | Emit::SquareSum => st.var,
                };
                self.write_row(tensors, out, r, value)?;
            }
            if let Some(x_out) = &s.sum_out {
                self.scatter(tensors, x_out, r, b.v)?;
            }
            if let Some(y_out) = &s.y_out {
                let shift = if s.stat == Stat::Center { first } else { 0.0 };
                let v = std::slice::from_raw_parts(b.v, len);
                let y = std::slice::from_raw_parts_mut(b.tmp, len);
                // Unused buffers stand in for an absent weight or bias (never read).
                let w = std::slice::from_raw_parts(if s.weight.is_some() { b.w } else { b.v }, len);
                let bias =
                    std::slice::from_raw_parts(if s.bias.is_some() { b.b } else { b.v }, len);
                let a = Affine {
                    shift,
                    rstd,
                    w0: s.weight_offset,
                };
                match (s.weight.is_some(), s.bias.is_some()) {
                    (true, true) => a.apply::<true, true>(v, w, bias, y),
                    (true, false) => a.apply::<true, false>(v, w, bias, y),
                    (false, true) => a.apply::<false, true>(v, w, bias, y),
                    (false, false) => a.apply::<false, false>(v, w, bias, y),
                }
                if let Some(k) = s.silu {
                    y.iter_mut().for_each(|z| *z /= 1.0 + (-k * *z).exp());
                }
                self.scatter(tensors, y_out, r, b.tmp)?;
            }
        }
        Ok(())
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
    #[inline(always)]
    fn apply<const W: bool, const B: bool>(&self, v: &[f64], w: &[f64], b: &[f64], y: &mut [f64]) {
        let n = y.len();
        let (v, w, b) = (&v[..n], &w[..n], &b[..n]);
        for j in 0..n {
            let mut z = (v[j] - self.shift) * self.rstd;
            if W {
                z *= w[j] + self.w0;
            }
            if B {
                z += b[j];
            }
            y[j] = z;
        }
    }
}

/// torch.norm's p-norm of `v` in f64.
fn p_norm(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let abs = v.iter().map(|x| x.abs());
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
