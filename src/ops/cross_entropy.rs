//! CrossEntropyLoss and CrossEntropyLossGrad: the cross-entropy of class-indexed targets
//! over the log-softmax of a 2-D input (N, C), with per-class weights, ignoreIndex and
//! label smoothing ε.
//!
//! Forward, per row n with class t = target[n], weights w (1 when weightOptional is NULL)
//! and mask m_n = (t ≠ ignoreIndex): lse_n = max + ln Σ_c e^(x_nc − max) (max-subtracted),
//! logProb_nc = x_nc − lse_n, nll_n = −m_n·w_t·logProb_nt, smooth_n = −m_n·Σ_c w_c·logProb_nc,
//! l_n = (1 − ε)·nll_n + ε/C·smooth_n. Reduction "none" writes l (N), "sum" Σ l_n and
//! "mean" (1 − ε)·Σ nll_n / D + ε/C·Σ smooth_n / D with D = Σ m_n·w_t (NaN when D = 0) into
//! one element; without smoothing (ε = 0) the smoothing term is absent. This is torch's
//! F.cross_entropy with the weights given; with no weight it differs from torch in one
//! case, as CANN's documented formula and golden do: "mean" with label smoothing divides
//! the smoothing term by the number of rows not ignored, where torch divides it by N.
//! The zloss outputs are not supported by the device: lseSquareScaleForZloss ≠ 0 or
//! returnZloss is refused, and zlossOut and lseForZlossOut are never written.
//!
//! Backward (the gradient of the above w.r.t. x, from logProb and gradLoss g — g_n for
//! "none", one g for "mean" and "sum", divided by D = Σ m_n·w_t for "mean"), with
//! p = e^logProb: a_n = g·(1 − ε)·m_n·w_t, b_n = g·ε/C·m_n,
//! out_nc = a_n·(p_nc − [c = t]) + b_n·(p_nc·Σ_k w_k − w_c). Rows where m_n = 0 get 0 (as
//! torch, also when D = 0).
//!
//! A class outside [0, C) that is not ignoreIndex is refused when the work runs, before
//! anything is written (the device reports an AI Core exception).
//!
//! Numbers: every value is computed in f64 from the exact inputs and rounded once into the
//! output's dtype: within 0.5 ulp plus the f64 sums' C·2⁻⁵² (rows) and N·2⁻⁵³ (the
//! reduction) relative error, and exp/ln's few f64 ulps.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::Element;
use crate::engine::reduce::{lane_sum_map, log_softmax_row, log_softmax_terms};
use crate::engine::vmath::exp_in_place;
use crate::engine::{align_up, convert, ALIGN};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// input, lossOut, logProbOut (and the grad's gradLoss, logProb, out): the A2 list.
const LIST: &[DType] = &[F32, F16, BF16];
/// target's dtype on A2 (cross_entropy_loss's 910B binary).
const TARGET: &[DType] = &[S64];
/// weightOptional's dtype.
const WEIGHT: &[DType] = &[F32];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Reduction {
    None,
    Mean,
    Sum,
}

fn reduction(api: &str, s: &str) -> Result<Reduction> {
    Ok(match s {
        "none" => Reduction::None,
        "mean" => Reduction::Mean,
        "sum" => Reduction::Sum,
        _ => crate::bail!(
            "{api}: reductionOptional is {s:?}: it must be \"mean\", \"sum\" or \"none\""
        ),
    })
}

/// (offset, row stride, column stride) of a 2-D view; (offset, stride) of a 1-D one.
type M2 = (usize, isize, isize);
type M1 = (usize, isize);

fn m2(t: &TensorDesc) -> M2 {
    (t.offset, t.strides[0], t.strides[1])
}
fn m1(t: &TensorDesc) -> M1 {
    (t.offset, t.strides.first().copied().unwrap_or(0))
}
fn at2(v: M2, n: usize, c: usize) -> isize {
    v.0 as isize + n as isize * v.1 + c as isize * v.2
}
fn at1(v: M1, n: usize) -> isize {
    v.0 as isize + n as isize * v.1
}

/// The shared part of both plans: rows, classes, target and weight.
struct Classes {
    api: &'static str,
    n: usize,
    c: usize,
    target: M1,
    /// weightOptional's view (None: every weight 1).
    weight: Option<M1>,
    ignore_index: i64,
    smoothing: f64,
    reduction: Reduction,
}

impl Classes {
    /// Every row's class, each checked against [0, C) unless it is ignoreIndex.
    fn targets(&self, b: &Bindings) -> Result<Vec<i64>> {
        let ta = b.addr(1)?;
        let mut ts = Vec::with_capacity(self.n);
        for n in 0..self.n {
            // SAFETY: inside target's checked view.
            let t = unsafe { *(ta as *const i64).offset(at1(self.target, n)) };
            if t != self.ignore_index && !(0..self.c as i64).contains(&t) {
                return Err(Error::Invalid(format!(
                    "{}: target {t} at row {n} is out of range for {} classes (ignoreIndex {})",
                    self.api, self.c, self.ignore_index
                )));
            }
            ts.push(t);
        }
        Ok(ts)
    }
    /// Weight c (1 without weightOptional).
    fn weights(&self, b: &Bindings) -> Result<Vec<f64>> {
        match self.weight {
            None => Ok(vec![1.0; self.c]),
            Some(w) => {
                let wa = b.addr(2)?;
                // SAFETY: inside weight's checked view of C f32 values.
                Ok((0..self.c)
                    .map(|c| unsafe { load::<f32>(wa, at1(w, c)) })
                    .collect())
            }
        }
    }
    /// Σ m_n·w_t over the rows.
    fn total_weight(&self, ts: &[i64], w: &[f64]) -> f64 {
        ts.iter()
            .filter(|&&t| t != self.ignore_index)
            .map(|&t| w[t as usize])
            .sum()
    }
    /// A row's (nll, smooth) from its log-probabilities `(x − shift) − log_sum` (the f64
    /// row buffer holds them with shift and log_sum 0; an f32 row holds x).
    fn terms<X: Copy + Into<f64>>(
        &self,
        x: &[X],
        shift: f64,
        log_sum: f64,
        t: i64,
        w: &[f64],
    ) -> (f64, f64) {
        if t == self.ignore_index {
            return (0.0, 0.0);
        }
        let logp = |x: X| x.into() - shift - log_sum;
        let nll = -w[t as usize] * logp(x[t as usize]);
        let smooth = if self.smoothing == 0.0 {
            0.0
        } else if self.weight.is_none() {
            -lane_sum_map(x, logp)
        } else {
            -x.iter().zip(w).map(|(&p, w)| w * logp(p)).sum::<f64>()
        };
        (nll, smooth)
    }

    /// (rows per task, tasks): the rows in contiguous blocks.
    fn blocks(&self) -> (usize, usize) {
        let per = self
            .n
            .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
            .max(1);
        (per, self.n.div_ceil(per))
    }
    /// Calls `f(row buffer, row)` for every row, one task per block of rows, each task with
    /// its buffer of C f64 values in the workspace from `at`.
    fn rows(&self, at: usize, f: impl Fn(&mut [f64], usize) + Sync) {
        let (per, tasks) = self.blocks();
        let at = align_up(at);
        crate::engine::run_tasks(tasks, |k| {
            // SAFETY: task k's buffer, inside the workspace `buffer_bytes` sized.
            let buf = unsafe {
                std::slice::from_raw_parts_mut((at + k * align_up(self.c * 8)) as *mut f64, self.c)
            };
            for n in k * per..((k + 1) * per).min(self.n) {
                f(buf, n)
            }
        });
    }
    /// The workspace bytes of the row buffers (with room to align their start).
    fn buffer_bytes(&self) -> usize {
        self.blocks().1 * align_up(self.c * 8) + ALIGN
    }
}

/// Reads row n of a 2-D view of dtype `T` into `buf` as f64 (exact).
///
/// # Safety
/// The view lies inside its checked storage at `base`.
unsafe fn read_row<T: Element>(base: usize, v: M2, n: usize, buf: &mut [f64]) {
    let src = (base as isize + at2(v, n, 0) * T::DTYPE.size() as isize) as *const u8;
    // SAFETY: as the caller guarantees; buf holds the row's C values.
    unsafe {
        convert::run(
            src,
            T::DTYPE,
            v.2,
            buf.as_mut_ptr() as *mut u8,
            F64,
            1,
            buf.len(),
        )
    }
}

/// Writes `buf` into row n of a 2-D view of dtype `T`, each value rounded once.
///
/// # Safety
/// The view lies inside its checked storage at `base`.
unsafe fn write_row<T: Element>(base: usize, v: M2, n: usize, buf: &[f64]) {
    let dst = (base as isize + at2(v, n, 0) * T::DTYPE.size() as isize) as *mut u8;
    // SAFETY: as the caller guarantees.
    unsafe {
        convert::run(
            buf.as_ptr() as *const u8,
            F64,
            1,
            dst,
            T::DTYPE,
            v.2,
            buf.len(),
        )
    }
}

/// Forward: bindings input, target, weight, lossOut, logProbOut.
struct Forward {
    cls: Classes,
    dtype: DType,
    x: M2,
    logp: M2,
    loss: M1,
}

impl Forward {
    fn run_typed<T: Element>(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let cls = &self.cls;
        let ts = cls.targets(b)?;
        let w = cls.weights(b)?;
        let (xa, la, pa) = (b.addr(0)?, b.addr(3)?, b.addr(4)?);
        let c = cls.c;
        let eps = cls.smoothing;
        // (1 − ε)·nll/div + ε/C·smooth/div (each term normalised apart, as torch: a mean
        // with Σ weights 0 is NaN); without smoothing the smoothing term does not exist.
        let combine = |nll: f64, smooth: f64, div: f64| {
            if eps == 0.0 {
                nll / div
            } else {
                (1.0 - eps) * (nll / div) + eps / c as f64 * (smooth / div)
            }
        };
        // per-row (nll, smooth) pairs (f64) in the workspace, for the reductions; the rows'
        // buffers after them
        let lrow = ws.addr as *mut f64;
        let lrow_addr = lrow as usize;
        // f32 rows of unit stride are read and written where they lie (see `f32_row`).
        let in_place_f32 = T::DTYPE == F32 && self.x.2 == 1 && self.logp.2 == 1;
        cls.rows(ws.addr + self.pairs_bytes(), |buf, n| {
            // SAFETY (every read/write): rows of views checked against their storage; the
            // workspace holds N f64 pairs for mean and sum. The whole row is read before
            // logProb is written, so a logProbOut that is input's own view works.
            let t = ts[n];
            let (nll, smooth) = if in_place_f32 {
                unsafe { self.f32_row(xa, pa, n, t, &w) }
            } else {
                unsafe { read_row::<T>(xa, self.x, n, buf) };
                log_softmax_row(buf);
                let terms = cls.terms(buf, 0.0, 0.0, t, &w);
                unsafe { write_row::<T>(pa, self.logp, n, buf) };
                terms
            };
            if cls.reduction == Reduction::None {
                let l = combine(nll, smooth, 1.0);
                unsafe { store::<T>(la, at1(self.loss, n), l) };
            } else {
                unsafe { *(lrow_addr as *mut [f64; 2]).add(n) = [nll, smooth] };
            }
        });
        if cls.reduction != Reduction::None {
            // SAFETY: the N pairs written above.
            let (mut s_nll, mut s_smooth) = (0.0, 0.0);
            for n in 0..cls.n {
                let [a, b] = unsafe { *(lrow as *const [f64; 2]).add(n) };
                s_nll += a;
                s_smooth += b;
            }
            let div = if cls.reduction == Reduction::Mean {
                cls.total_weight(&ts, &w)
            } else {
                1.0
            };
            let v = combine(s_nll, s_smooth, div);
            // SAFETY: lossOut's one element.
            unsafe { store::<T>(la, self.loss.0 as isize, v) };
        }
        Ok(())
    }
}

impl Forward {
    /// Row n of an f32 input and logProbOut of unit column stride, without the f64 row
    /// buffer: the same log-softmax values (`log_softmax_terms`), terms and bits, from the
    /// f32 values widened as they are read. Returns the row's (nll, smooth).
    ///
    /// # Safety
    /// Both rows lie inside their checked views at `xa` and `pa`.
    unsafe fn f32_row(&self, xa: usize, pa: usize, n: usize, t: i64, w: &[f64]) -> (f64, f64) {
        let c = self.cls.c;
        let x = (xa as isize + at2(self.x, n, 0) * 4) as *const f32;
        let y = (pa as isize + at2(self.logp, n, 0) * 4) as *mut f32;
        // SAFETY: as the caller guarantees; the slice is gone before logProb is written
        // (which may be the input's own row).
        let (shift, log_sum, terms) = unsafe {
            let row = std::slice::from_raw_parts(x, c);
            let (shift, log_sum) = log_softmax_terms(row);
            (shift, log_sum, self.cls.terms(row, shift, log_sum, t, w))
        };
        for j in 0..c {
            // SAFETY: element j of both rows.
            unsafe { *y.add(j) = (f64::from(*x.add(j)) - shift - log_sum) as f32 };
        }
        terms
    }

    /// The workspace bytes of the per-row (nll, smooth) pairs.
    fn pairs_bytes(&self) -> usize {
        if self.cls.reduction == Reduction::None {
            0
        } else {
            self.cls.n.max(1) * 16
        }
    }
}

impl Work for Forward {
    fn workspace_size(&self) -> u64 {
        (self.pairs_bytes() + self.cls.buffer_bytes()) as u64
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        match self.dtype {
            F16 => self.run_typed::<half::f16>(b, ws),
            BF16 => self.run_typed::<half::bf16>(b, ws),
            _ => self.run_typed::<f32>(b, ws),
        }
    }
}

/// Refuses the zloss mode (documented as not supported on the device).
fn refuse_zloss(api: &str, scale: f64, return_zloss: bool) -> Result<()> {
    crate::ensure!(
        scale == 0.0,
        "{api}: lseSquareScaleForZloss is {scale}: the zloss mode is not supported (it must be 0)"
    );
    crate::ensure!(
        !return_zloss,
        "{api}: returnZloss is true: the zloss outputs are not supported (it must be false)"
    );
    Ok(())
}

/// `t` is (N, C) with at least one class: its (N, C).
fn rows_of_classes(name: &str, t: &TensorDesc) -> Result<(usize, usize)> {
    crate::ensure!(
        t.rank() == 2,
        "{name} has shape {:?}: it must be 2-D (N, C)",
        t.shape
    );
    crate::ensure!(
        t.shape[1] > 0,
        "{name} has shape {:?}: the number of classes C must be positive",
        t.shape
    );
    Ok((t.shape[0], t.shape[1]))
}

/// Checks target (N) and weightOptional (C) against rows and classes.
fn check_classes(
    target: &TensorDesc,
    weight: Option<&TensorDesc>,
    n: usize,
    c: usize,
    what: &str,
) -> Result<()> {
    crate::ensure!(
        target.rank() == 1 && target.shape[0] == n,
        "target has shape {:?} but {what} has {n} rows: target must be ({n})",
        target.shape
    );
    if let Some(w) = weight {
        crate::ensure!(
            w.rank() == 1 && w.shape[0] == c,
            "weightOptional has shape {:?}: it must be ({c}), one weight per class",
            w.shape
        );
    }
    Ok(())
}

fn check_smoothing(api: &str, eps: f64) -> Result<()> {
    crate::ensure!(
        (0.0..=1.0).contains(&eps),
        "{api}: labelSmoothing is {eps}: it must be in [0, 1]"
    );
    Ok(())
}

fn no_overlap(outs: &[(&str, &TensorDesc)], ins: &[(&str, Option<&TensorDesc>)]) -> Result<()> {
    for (on, o) in outs {
        for (inn, i) in ins {
            if let Some(i) = i {
                crate::ensure!(
                    !overlap(o, i),
                    "{on} overlaps {inn} in memory: the outputs must be apart from the inputs"
                );
            }
        }
    }
    Ok(())
}

fn same_view(a: &TensorDesc, b: &TensorDesc) -> bool {
    a.addr == b.addr && a.offset == b.offset && a.strides == b.strides && a.shape == b.shape
}

/// aclnnCrossEntropyLoss: input (N, C) f32/f16/bf16, target (N) int64, weightOptional (C)
/// f32; lossOut ((N) for "none", else one element) and logProbOut (N, C) of input's dtype;
/// zlossOut and lseForZlossOut of input's dtype, not written. See the module comment.
#[allow(clippy::too_many_arguments)]
pub fn cross_entropy_loss(
    input: &TensorDesc,
    target: &TensorDesc,
    weight: Option<&TensorDesc>,
    reduction_s: &str,
    ignore_index: i64,
    label_smoothing: f64,
    lse_square_scale_for_zloss: f64,
    return_zloss: bool,
    loss_out: &TensorDesc,
    log_prob_out: &TensorDesc,
    zloss_out: &TensorDesc,
    lse_for_zloss_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnCrossEntropyLoss";
    ew::check_tensor("input", input, LIST)?;
    ew::check_tensor("target", target, TARGET)?;
    if let Some(w) = weight {
        ew::check_tensor("weightOptional", w, WEIGHT)?;
    }
    for (name, t) in [
        ("lossOut", loss_out),
        ("logProbOut", log_prob_out),
        ("zlossOut", zloss_out),
        ("lseForZlossOut", lse_for_zloss_out),
    ] {
        ew::check_tensor(name, t, LIST)?;
        ew::check_dtype_of(name, t, "input", input)?;
    }
    refuse_zloss(API, lse_square_scale_for_zloss, return_zloss)?;
    let red = reduction(API, reduction_s)?;
    check_smoothing(API, label_smoothing)?;
    let (n, c) = rows_of_classes("input", input)?;
    check_classes(target, weight, n, c, "input")?;
    ew::check_result_shape("logProbOut", log_prob_out, &input.shape)?;
    if red == Reduction::None {
        ew::check_result_shape("lossOut", loss_out, &[n])?;
    } else {
        crate::ensure!(
            loss_out.rank() <= 1 && loss_out.numel() == 1,
            "lossOut has shape {:?}: with reduction {reduction_s:?} it must be one element ([1])",
            loss_out.shape
        );
        loss_out.check_output("lossOut")?;
    }
    crate::ensure!(
        !overlap(loss_out, log_prob_out),
        "lossOut and logProbOut overlap in memory"
    );
    no_overlap(
        &[("lossOut", loss_out)],
        &[
            ("input", Some(input)),
            ("target", Some(target)),
            ("weightOptional", weight),
        ],
    )?;
    if !same_view(log_prob_out, input) {
        no_overlap(
            &[("logProbOut", log_prob_out)],
            &[
                ("input", Some(input)),
                ("target", Some(target)),
                ("weightOptional", weight),
            ],
        )?;
    } else {
        no_overlap(
            &[("logProbOut", log_prob_out)],
            &[("target", Some(target)), ("weightOptional", weight)],
        )?;
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(input.clone()),
            Some(target.clone()),
            weight.cloned(),
            Some(loss_out.clone()),
            Some(log_prob_out.clone()),
        ]),
        n_inputs: 3,
        outputs: smallvec::smallvec![3, 4],
    };
    if n == 0 && red == Reduction::None {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let plan = Forward {
        cls: Classes {
            api: API,
            n,
            c,
            target: m1(target),
            weight: weight.map(m1),
            ignore_index,
            smoothing: label_smoothing,
            reduction: red,
        },
        dtype: input.dtype,
        x: m2(input),
        logp: m2(log_prob_out),
        loss: m1(loss_out),
    };
    Ok(Executor::new(API, bindings, plan))
}

/// Backward: bindings gradLoss, target, weight, logProb, out.
struct Backward {
    cls: Classes,
    dtype: DType,
    grad: M1,
    logp: M2,
    out: M2,
}

impl Backward {
    fn run_typed<T: Element>(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let cls = &self.cls;
        let ts = cls.targets(b)?;
        let w = cls.weights(b)?;
        let (ga, pa, oa) = (b.addr(0)?, b.addr(3)?, b.addr(4)?);
        let c = cls.c;
        let eps = cls.smoothing;
        let sum_w: f64 = w.iter().sum();
        let div = if cls.reduction == Reduction::Mean {
            cls.total_weight(&ts, &w)
        } else {
            1.0
        };
        // SAFETY: gradLoss's one element (mean, sum).
        let g1 = unsafe { load::<T>(ga, self.grad.0 as isize) };
        cls.rows(ws.addr, |buf, n| {
            let t = ts[n];
            // SAFETY (every read/write): rows of views checked against their storage. The
            // whole row is read before out is written, so an out that is logProb's own view
            // works.
            let g = if cls.reduction == Reduction::None {
                unsafe { load::<T>(ga, at1(self.grad, n)) }
            } else {
                g1
            };
            if t == cls.ignore_index {
                buf.fill(0.0);
                unsafe { write_row::<T>(oa, self.out, n, buf) };
                return;
            }
            let t = t as usize;
            let a = g * (1.0 - eps) * w[t] / div;
            let bs = g * eps / c as f64 / div;
            unsafe { read_row::<T>(pa, self.logp, n, buf) };
            exp_in_place(buf);
            if eps == 0.0 {
                buf.iter_mut().for_each(|p| *p *= a);
            } else {
                buf.iter_mut()
                    .zip(&w)
                    .for_each(|(p, w)| *p = a * *p + bs * (*p * sum_w - w));
            }
            // the target's class: a·(p − 1)
            buf[t] -= a;
            unsafe { write_row::<T>(oa, self.out, n, buf) };
        });
        Ok(())
    }
}

impl Work for Backward {
    fn workspace_size(&self) -> u64 {
        self.cls.buffer_bytes() as u64
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        match self.dtype {
            F16 => self.run_typed::<half::f16>(b, ws),
            BF16 => self.run_typed::<half::bf16>(b, ws),
            _ => self.run_typed::<f32>(b, ws),
        }
    }
}

/// aclnnCrossEntropyLossGrad: gradLoss ((N) for "none", 0-D for "mean"/"sum"), logProb
/// (N, C) and out (N, C) of one dtype f32/f16/bf16, target (N) int64, weightOptional (C)
/// f32; the zloss inputs are accepted (dtype-checked) and have no effect, as
/// lseSquareScaleForZloss must be 0. See the module comment.
#[allow(clippy::too_many_arguments)]
pub fn cross_entropy_loss_grad(
    grad_loss: &TensorDesc,
    log_prob: &TensorDesc,
    target: &TensorDesc,
    weight: Option<&TensorDesc>,
    grad_zloss: Option<&TensorDesc>,
    lse_for_zloss: Option<&TensorDesc>,
    reduction_s: &str,
    ignore_index: i64,
    label_smoothing: f64,
    lse_square_scale_for_zloss: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnCrossEntropyLossGrad";
    ew::check_tensor("gradLoss", grad_loss, LIST)?;
    ew::check_tensor("logProb", log_prob, LIST)?;
    ew::check_tensor("target", target, TARGET)?;
    if let Some(w) = weight {
        ew::check_tensor("weightOptional", w, WEIGHT)?;
    }
    for (name, t) in [
        ("gradZlossOptional", grad_zloss),
        ("lseForZlossOptional", lse_for_zloss),
    ] {
        if let Some(t) = t {
            ew::check_tensor(name, t, LIST)?;
        }
    }
    ew::check_tensor("out", out, LIST)?;
    for (name, t) in [("logProb", log_prob), ("out", out)] {
        ew::check_dtype_of(name, t, "gradLoss", grad_loss)?;
    }
    refuse_zloss(API, lse_square_scale_for_zloss, false)?;
    let red = reduction(API, reduction_s)?;
    check_smoothing(API, label_smoothing)?;
    let (n, c) = rows_of_classes("logProb", log_prob)?;
    check_classes(target, weight, n, c, "logProb")?;
    if red == Reduction::None {
        crate::ensure!(
            grad_loss.shape[..] == [n],
            "gradLoss has shape {:?}: with reduction \"none\" it must be ({n})",
            grad_loss.shape
        );
    } else {
        crate::ensure!(
            grad_loss.rank() == 0 || grad_loss.shape[..] == [1],
            "gradLoss has shape {:?}: with reduction {reduction_s:?} it must be 0-D",
            grad_loss.shape
        );
    }
    ew::check_result_shape("out", out, &log_prob.shape)?;
    let ins = [
        ("gradLoss", Some(grad_loss)),
        ("target", Some(target)),
        ("weightOptional", weight),
    ];
    no_overlap(&[("out", out)], &ins)?;
    if !same_view(out, log_prob) {
        no_overlap(&[("out", out)], &[("logProb", Some(log_prob))])?;
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(grad_loss.clone()),
            Some(target.clone()),
            weight.cloned(),
            Some(log_prob.clone()),
            Some(out.clone()),
        ]),
        n_inputs: 4,
        outputs: smallvec::smallvec![4],
    };
    if n == 0 {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let plan = Backward {
        cls: Classes {
            api: API,
            n,
            c,
            target: m1(target),
            weight: weight.map(m1),
            ignore_index,
            smoothing: label_smoothing,
            reduction: red,
        },
        dtype: grad_loss.dtype,
        grad: m1(grad_loss),
        logp: m2(log_prob),
        out: m2(out),
    };
    Ok(Executor::new(API, bindings, plan))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "CrossEntropyLoss",
        a: LIST,
        b: TARGET,
        out: LIST,
        rule: "logProb = log_softmax(input); (1−ε)·nll + ε/C·smooth per row (weight f32, ignoreIndex), none/mean/sum; zloss refused",
    },
    Entry {
        ops: "CrossEntropyLossGrad",
        a: LIST,
        b: TARGET,
        out: LIST,
        rule: "∂ CrossEntropyLoss / ∂ input from logProb and gradLoss (weight f32, ignoreIndex, label smoothing)",
    },
];
