//! CtcLoss and CtcLossBackward: the connectionist temporal classification loss of
//! log-probabilities logProbs (T, N, C) against label sequences, and its gradient.
//!
//! Per batch b with input length L = inputLengths[b] and target length S = targetLengths[b]
//! the extended target l' has 2S + 1 symbols: blank at even positions, label i at 2i + 1
//! (labels read from targets (N, S_max) row b, or from the concatenated targets
//! (Σ targetLengths) at Σ_{i<b} targetLengths[i]). The forward variables are torch's:
//! α_0(0) = lp_0(blank), α_0(1) = lp_0(l'_1), every other α_0 = −inf, and for t in [1, L)
//! α_t(s) = lse(α_{t−1}(s), α_{t−1}(s−1), α_{t−1}(s−2) if l'_s ≠ l'_{s−2}) + lp_t(l'_s),
//! with lse(a, b, c) = ln(e^(a−m) + e^(b−m) + e^(c−m)) + m, m the largest (0 when all are
//! −inf). negLogLikelihood = −lse(α_{L−1}(2S), α_{L−1}(2S − 1)) (−α_{L−1}(0) when S = 0);
//! L = 0 (outside the documented [1, T]: the device's kernel writes no loss, torch 1.13 reads
//! an unwritten row) gives 0 when S = 0 and +inf otherwise, the probability of aligning
//! nothing. With zeroInfinity an infinite loss is 0: the device's kernel and CANN's
//! documented formula do that in the forward, where torch's `_ctc_loss` leaves the +inf
//! for its `ctc_loss` wrapper. A 2-D logProbs (T, C) is one batch (N = 1) whose
//! negLogLikelihoodOut is 0-D.
//!
//! logAlphaOut is the device's (N, T, W) with W = (2·max(targetLengths) + 8)/8·8 (the
//! Atlas A2 kernel aligns the last dim to 8; torch's is 2·max + 1): row t < L holds
//! α_t(0..2S] and −inf in the columns past 2S (as the device's row buffer); the rows the
//! device's kernel does not reach (t ≥ L) are −inf here.
//!
//! Backward: β is torch's backward recursion from t = L − 1 (β_{L−1}(2S) = lp_{L−1}(blank),
//! β_{L−1}(2S − 1) = lp_{L−1}(l'_{2S−1})), the collected log Σ α·β per class is gathered in
//! torch's order (at t = L − 1 assigned, before it log-added), and
//! out_t(c) = (e^lp_t(c) − e^(collected_t(c) + nll − lp_t(c)))·gradOut[b] for t < L, 0 for
//! t ≥ L; a batch whose given negLogLikelihood is +inf gets 0 everywhere with zeroInfinity.
//! logAlpha may have any last dim W ≥ 2·max(targetLengths) + 1 (the device's or torch's).
//!
//! Outside the documented ranges (the device leaves these undefined; nothing crashes): a
//! label outside [0, C), or one read outside a concatenated targets (only a negative
//! targetLength shifts the offsets there), has log-probability NaN; a batch with a negative
//! length has loss NaN and logAlpha −inf, and gradient NaN for t < L and 0 after.
//!
//! Numbers: as torch's CPU kernels, operation for operation, in f64 for DOUBLE and f32 for
//! FLOAT/FLOAT16/BFLOAT16 (the half types widened exactly, the results rounded once into
//! the output dtype, as the device's kernel computes in f32): bit for bit torch's f32/f64
//! results with the same C library's exp and log. targets of dtype BOOL/FLOAT/FLOAT16 are
//! converted to int64 first (the op_api's Cast; truncation toward zero). Batches run in
//! parallel.

use super::catalog::Entry;
use super::elementwise as ew;
use super::llm::dense::{bindings, load_view, store_view};
use super::pool::overlap;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;
use rayon::prelude::*;

use DType::*;
/// logProbs (and every float tensor of both operators) on Atlas A2.
const LIST: &[DType] = &[F32, F16, BF16, F64];
/// targets' dtypes.
const TARGETS: &[DType] = &[S64, S32, Bool, F32, F16];
/// The Atlas A2 kernel's limits for FLOAT16/BFLOAT16 (the op_api refuses past them).
const HALF_MAX_C: i64 = 200_000;
const HALF_MAX_N: i64 = 8180;
const HALF_MAX_S: i64 = 1000;

/// The float type a rule computes in (f32 for the 2-byte floats and f32, f64 for f64).
trait Real:
    Element
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const NEG_INF: Self;
    const INF: Self;
    const NAN: Self;
    const ZERO: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    /// C++'s std::max(a, b): `a < b ? b : a` (which argument a NaN gives matters).
    fn std_max(a: Self, b: Self) -> Self {
        if a < b {
            b
        } else {
            a
        }
    }
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const NEG_INF: Self = <$t>::NEG_INFINITY;
            const INF: Self = <$t>::INFINITY;
            const NAN: Self = <$t>::NAN;
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
        }
    };
}
real!(f32);
real!(f64);

/// ln(e^(a−m) + e^(b−m) + e^(c−m)) + m with m the largest of a, b, c (0 when all are
/// −inf), compared and summed in torch's order.
#[inline(always)]
fn lse3<R: Real>(a: R, b: R, c: R) -> R {
    let mut m = a;
    if b > m {
        m = b;
    }
    if c > m {
        m = c;
    }
    if m == R::NEG_INF {
        m = R::ZERO;
    }
    ((a - m).exp() + (b - m).exp() + (c - m).exp()).ln() + m
}

/// What both rules know of the batch: sizes, lengths, where each batch's labels are.
struct Problem {
    t: usize,
    n: usize,
    c: usize,
    blank: i64,
    zero_infinity: bool,
    input_lengths: Vec<i64>,
    target_lengths: Vec<i64>,
    /// targets is (N, S_max): its row length; None: concatenated.
    padded: Option<usize>,
}

impl Problem {
    fn new(
        log_probs: &TensorDesc,
        targets: &TensorDesc,
        input_lengths: &[i64],
        target_lengths: &[i64],
        blank: i64,
        zero_infinity: bool,
    ) -> Problem {
        let (t, n, c) = tnc(log_probs);
        Problem {
            t,
            n,
            c,
            blank,
            zero_infinity,
            input_lengths: input_lengths.to_vec(),
            target_lengths: target_lengths.to_vec(),
            padded: (targets.rank() == 2).then(|| targets.shape[1]),
        }
    }

    /// Batch b's extended target l' (2S + 1 labels, blank at even positions; a label read
    /// outside targets is i64::MIN), from targets converted to int64 (row-major).
    fn extended(&self, labels: &[i64], offsets: &[i128], b: usize) -> Vec<i64> {
        let s = self.target_lengths[b].max(0) as usize;
        let start = match self.padded {
            Some(row) => (b * row) as i128,
            None => offsets[b],
        };
        let mut ext = vec![self.blank; 2 * s + 1];
        for i in 0..s {
            let at = start + i as i128;
            ext[2 * i + 1] = if (0..labels.len() as i128).contains(&at) {
                labels[at as usize]
            } else {
                i64::MIN
            };
        }
        ext
    }

    /// Where each batch's labels start in a concatenated targets: Σ of the earlier
    /// targetLengths (torch's offsets, negative lengths included).
    fn offsets(&self) -> Vec<i128> {
        let mut pos = 0i128;
        self.target_lengths
            .iter()
            .map(|&l| {
                let at = pos;
                pos += l as i128;
                at
            })
            .collect()
    }

    /// The log-probability of class k in row `lp` (NaN for a class outside [0, C)).
    #[inline(always)]
    fn lp<R: Real>(&self, row: &[R], k: i64) -> R {
        if (0..self.c as i64).contains(&k) {
            row[k as usize]
        } else {
            R::NAN
        }
    }
}

/// (T, N, C) of a logProbs (T, N, C) or (T, C) (N = 1).
fn tnc(log_probs: &TensorDesc) -> (usize, usize, usize) {
    let s = &log_probs.shape;
    if s.len() == 3 {
        (s[0], s[1], s[2])
    } else {
        (s[0], 1, s[1])
    }
}

/// logProbs as (N, T, C), batch-major, converted to R.
fn batch_major<R: Real>(b: &Bindings, i: usize, p: &Problem) -> Result<Vec<R>> {
    let v = b.view(i)?;
    let v = if v.rank() == 3 {
        v.permuted(&[1, 0, 2], Format::ND)
    } else {
        v.clone()
    };
    load_view(b, i, &v, &[p.n, p.t, p.c])
}

/// targets converted to int64, row-major.
fn labels(b: &Bindings, i: usize) -> Result<Vec<i64>> {
    let v = b.view(i)?;
    load_view(b, i, v, &v.shape.clone())
}

/// Forward: bindings logProbs, targets, negLogLikelihoodOut, logAlphaOut.
struct Forward {
    p: Problem,
    /// logAlphaOut's last dim.
    width: usize,
    dtype: DType,
}

impl Forward {
    /// Batch b's α rows into `alpha` (T × width, −inf on entry); its loss.
    fn batch<R: Real>(&self, lp: &[R], ext: &[i64], b: usize, alpha: &mut [R]) -> R {
        let p = &self.p;
        let (il, tl) = (p.input_lengths[b], p.target_lengths[b]);
        let w = self.width;
        let nll = if il < 0 || tl < 0 {
            R::NAN
        } else if il == 0 {
            if tl == 0 {
                R::ZERO
            } else {
                R::INF
            }
        } else {
            let (il, tl) = (il as usize, tl as usize);
            let row = |t: usize| &lp[t * p.c..(t + 1) * p.c];
            alpha[0] = p.lp(row(0), p.blank);
            if tl > 0 {
                alpha[1] = p.lp(row(0), ext[1]);
            }
            for t in 1..il {
                let (prev, cur) = alpha[(t - 1) * w..(t + 1) * w].split_at_mut(w);
                let lpt = row(t);
                for s in 0..2 * tl + 1 {
                    let la1 = prev[s];
                    let la2 = if s > 0 { prev[s - 1] } else { R::NEG_INF };
                    let la3 = if s > 1 && ext[s - 2] != ext[s] {
                        prev[s - 2]
                    } else {
                        R::NEG_INF
                    };
                    cur[s] = lse3(la1, la2, la3) + p.lp(lpt, ext[s]);
                }
            }
            let last = &alpha[(il - 1) * w..il * w];
            if tl == 0 {
                -last[0]
            } else {
                let (l1, l2) = (last[2 * tl], last[2 * tl - 1]);
                let mut m = R::std_max(l1, l2);
                if m == R::NEG_INF {
                    m = R::ZERO;
                }
                -(((l1 - m).exp() + (l2 - m).exp()).ln() + m)
            }
        };
        if p.zero_infinity && nll == R::INF {
            R::ZERO
        } else {
            nll
        }
    }

    fn run_typed<R: Real>(&self, b: &Bindings) -> Result<()> {
        let p = &self.p;
        let lp = batch_major::<R>(b, 0, p)?;
        let labels = labels(b, 1)?;
        let offsets = p.offsets();
        let plane = p.t * self.width;
        let mut alpha = vec![R::NEG_INF; p.n * plane];
        let mut nll = vec![R::ZERO; p.n];
        crate::engine::pool().install(|| {
            alpha
                .par_chunks_mut(plane.max(1))
                .zip(nll.par_iter_mut())
                .enumerate()
                .for_each(|(bi, (a, l))| {
                    let ext = p.extended(&labels, &offsets, bi);
                    *l = self.batch(&lp[bi * p.t * p.c..(bi + 1) * p.t * p.c], &ext, bi, a);
                })
        });
        store_view(b, 2, b.view(2)?, &nll)?;
        store_view(b, 3, b.view(3)?, &alpha)
    }
}

impl Work for Forward {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        if self.dtype == F64 {
            self.run_typed::<f64>(b)
        } else {
            self.run_typed::<f32>(b)
        }
    }
}

/// The largest of the lengths and 0 (the op_api's max, which starts from 0).
fn max_of(v: &[i64]) -> i64 {
    v.iter().copied().fold(0, i64::max)
}

/// The op_api's "start (0) + length (1) exceeds dimension size (0)" (T = 0), first of all.
fn check_time(log_probs: &TensorDesc) -> Result<()> {
    crate::ensure!(
        log_probs.rank() == 0 || log_probs.shape[0] != 0,
        "logProbs has shape {:?}: start (0) + length (1) exceeds dimension size (0) (T must be positive)",
        log_probs.shape
    );
    Ok(())
}

fn check_blank(blank: i64, c: usize) -> Result<()> {
    crate::ensure!(
        (0..c as i64).contains(&blank),
        "blank is {blank}: it must be in [0, C) = [0, {c})"
    );
    Ok(())
}

/// targets is (N, ≥ max targetLengths) or (Σ targetLengths).
fn check_targets(targets: &TensorDesc, n: usize, target_lengths: &[i64]) -> Result<()> {
    if targets.rank() == 2 {
        let max = max_of(target_lengths);
        crate::ensure!(
            targets.shape[0] == n && targets.shape[1] as i64 >= max,
            "targets has shape {:?}: padded targets must be (N, S) = ({n}, ≥ {max}), S at least the largest targetLengths",
            targets.shape
        );
    } else {
        let sum: i128 = target_lengths.iter().map(|&l| l as i128).sum();
        crate::ensure!(
            targets.shape[0] as i128 == sum,
            "targets has shape {:?}: concatenated targets must be (Σ targetLengths) = ({sum})",
            targets.shape
        );
    }
    Ok(())
}

/// The A2 kernel's size limits for FLOAT16/BFLOAT16: the op_api reads N and C as dims 1
/// and 2 of logProbs (so for a 2-D logProbs its C is taken as N) and S as (W − 1)/2 of
/// logAlpha.
fn check_half_limits(log_probs: &TensorDesc, alpha_width: usize) -> Result<()> {
    if !matches!(log_probs.dtype, F16 | BF16) {
        return Ok(());
    }
    let n = log_probs.shape.get(1).map_or(0, |&d| d as i64);
    let c = log_probs.shape.get(2).map_or(0, |&d| d as i64);
    let s = (alpha_width as i64 - 1) / 2;
    crate::ensure!(
        c <= HALF_MAX_C && n <= HALF_MAX_N && s <= HALF_MAX_S,
        "logProbs is {} with C {c}, N {n} and (logAlpha's last dim − 1)/2 = {s}: {} supports at most C {HALF_MAX_C}, N {HALF_MAX_N} and S {HALF_MAX_S} (not supported now)",
        log_probs.dtype,
        log_probs.dtype
    );
    Ok(())
}

/// Outputs may not overlap each other or an input (every input is read before the first
/// output is written, but two outputs would race).
fn check_apart(outs: &[(&str, &TensorDesc)], ins: &[(&str, &TensorDesc)]) -> Result<()> {
    for (i, (on, o)) in outs.iter().enumerate() {
        for (pn, q) in outs[i + 1..].iter().chain(ins) {
            crate::ensure!(
                !overlap(o, q),
                "{on} overlaps {pn} in memory: the outputs must be apart from each other and from the inputs"
            );
        }
    }
    Ok(())
}

/// aclnnCtcLoss: logProbs (T, N, C) or (T, C) FLOAT/FLOAT16/BFLOAT16/DOUBLE, targets
/// INT64/INT32/BOOL/FLOAT/FLOAT16 (N, S) or (Σ targetLengths); negLogLikelihoodOut (N)
/// (0-D for a 2-D logProbs) and logAlphaOut (N, T, (2·max + 8)/8·8) of logProbs' dtype.
/// The checks run in the op_api's order. See the module comment.
#[allow(clippy::too_many_arguments)]
pub fn ctc_loss(
    log_probs: &TensorDesc,
    targets: &TensorDesc,
    input_lengths: &[i64],
    target_lengths: &[i64],
    blank: i64,
    zero_infinity: bool,
    nll_out: &TensorDesc,
    log_alpha_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnCtcLoss";
    check_time(log_probs)?;
    crate::ensure!(
        matches!(log_probs.rank(), 2 | 3),
        "logProbs has shape {:?}: it must be 3-D (T, N, C) or 2-D (T, C)",
        log_probs.shape
    );
    let (t, n, c) = tnc(log_probs);
    check_blank(blank, c)?;
    let max_il = max_of(input_lengths);
    crate::ensure!(
        input_lengths.len() == n && max_il <= t as i64,
        "inputLengths has {} values, largest {max_il}: it must have N = {n}, each at most T = {t}",
        input_lengths.len()
    );
    crate::ensure!(
        target_lengths.len() == n,
        "targetLengths has {} values: it must have N = {n}",
        target_lengths.len()
    );
    crate::ensure!(
        matches!(targets.rank(), 1 | 2),
        "targets has shape {:?}: it must be 1-D (concatenated) or 2-D (padded)",
        targets.shape
    );
    check_targets(targets, n, target_lengths)?;
    let max_tl = max_of(target_lengths);
    let nll_shape: &[usize] = if log_probs.rank() == 3 { &[n] } else { &[] };
    crate::ensure!(
        nll_out.shape[..] == nll_shape[..],
        "negLogLikelihoodOut has shape {:?}: it must be {nll_shape:?}",
        nll_out.shape
    );
    // The A2 kernel's logAlpha: 2·max + 1 aligned up to 8 (in i128: negative lengths can
    // make the largest one huge while the concatenated sum still matches).
    let width = (2 * max_tl as i128 + 8) / 8 * 8;
    crate::ensure!(
        log_alpha_out.rank() == 3
            && log_alpha_out.shape[..2] == [n, t]
            && log_alpha_out.shape[2] as i128 == width,
        "logAlphaOut has shape {:?}: it must be (N, T, (2·max(targetLengths) + 8)/8·8) = [{n}, {t}, {width}]",
        log_alpha_out.shape
    );
    let width = log_alpha_out.shape[2];
    ew::check_tensor("logProbs", log_probs, LIST)?;
    check_half_limits(log_probs, width)?;
    ew::check_tensor("targets", targets, TARGETS)?;
    for (name, o) in [
        ("negLogLikelihoodOut", nll_out),
        ("logAlphaOut", log_alpha_out),
    ] {
        ew::check_tensor(name, o, LIST)?;
        ew::check_dtype_of(name, o, "logProbs", log_probs)?;
        o.check_output(name)?;
    }
    check_apart(
        &[
            ("negLogLikelihoodOut", nll_out),
            ("logAlphaOut", log_alpha_out),
        ],
        &[("logProbs", log_probs), ("targets", targets)],
    )?;
    let b = bindings(
        &[Some(log_probs), Some(targets)],
        &[Some(nll_out), Some(log_alpha_out)],
    );
    if n == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    let p = Problem::new(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        zero_infinity,
    );
    Ok(Executor::new(
        API,
        b,
        Forward {
            p,
            width,
            dtype: log_probs.dtype,
        },
    ))
}

/// Backward: bindings gradOut, logProbs, targets, negLogLikelihood, logAlpha, out.
struct Backward {
    p: Problem,
    /// logAlpha's last dim.
    width: usize,
    dtype: DType,
}

impl Backward {
    /// Batch b's gradient rows into `grad` (T × C, −inf on entry: torch's empty log-sum).
    #[allow(clippy::too_many_arguments)]
    fn batch<R: Real>(
        &self,
        lp: &[R],
        alpha: &[R],
        ext: &[i64],
        b: usize,
        nll: R,
        gr: R,
        grad: &mut [R],
    ) {
        let p = &self.p;
        let (c, w) = (p.c, self.width);
        let (il, tl) = (p.input_lengths[b], p.target_lengths[b]);
        if p.zero_infinity && nll == R::INF {
            grad.fill(R::ZERO);
            return;
        }
        if il < 0 || tl < 0 {
            let reached = il.max(0) as usize * c;
            grad[..reached].fill(R::NAN);
            grad[reached..].fill(R::ZERO);
            return;
        }
        let (il, tl) = (il as usize, tl as usize);
        let row = |t: usize| &lp[t * c..(t + 1) * c];
        let la = |t: usize, s: usize| alpha[t * w + s];
        let sw = 2 * tl + 1;
        if il > 0 {
            let mut beta = vec![R::NEG_INF; il * sw];
            let last = il - 1;
            beta[last * sw + 2 * tl] = p.lp(row(last), p.blank);
            let g = &mut grad[last * c..(last + 1) * c];
            g[p.blank as usize] = la(last, 2 * tl) + beta[last * sw + 2 * tl];
            if tl > 0 {
                let k = ext[2 * tl - 1];
                beta[last * sw + 2 * tl - 1] = p.lp(row(last), k);
                // torch writes this class's slot directly (a blank and a non-blank: no
                // log-add); a label outside [0, C) has no slot.
                if (0..c as i64).contains(&k) {
                    g[k as usize] = la(last, 2 * tl - 1) + beta[last * sw + 2 * tl - 1];
                }
            }
            for t in (0..last).rev() {
                let (cur, next) = beta[t * sw..(t + 2) * sw].split_at_mut(sw);
                let lpt = row(t);
                let g = &mut grad[t * c..(t + 1) * c];
                for s in (0..sw).rev() {
                    let lb1 = next[s];
                    let lb2 = if s < 2 * tl { next[s + 1] } else { R::NEG_INF };
                    let lb3 = if s + 1 < 2 * tl && ext[s + 2] != ext[s] {
                        next[s + 2]
                    } else {
                        R::NEG_INF
                    };
                    cur[s] = lse3(lb1, lb2, lb3) + p.lp(lpt, ext[s]);
                    let lab = la(t, s) + cur[s];
                    let k = ext[s];
                    if !(0..c as i64).contains(&k) {
                        continue;
                    }
                    let lcab = &mut g[k as usize];
                    if *lcab == R::NEG_INF {
                        *lcab = lab;
                    } else {
                        let m = R::std_max(*lcab, lab);
                        *lcab = ((*lcab - m).exp() + (lab - m).exp()).ln() + m;
                    }
                }
            }
        }
        for t in 0..il {
            let lpt = row(t);
            for (res, &l) in grad[t * c..(t + 1) * c].iter_mut().zip(lpt) {
                *res = (l.exp() - (*res + nll - l).exp()) * gr;
            }
        }
        grad[il * c..].fill(R::ZERO);
    }

    fn run_typed<R: Real>(&self, b: &Bindings) -> Result<()> {
        let p = &self.p;
        let gr = load_view::<R>(b, 0, b.view(0)?, &[p.n])?;
        let lp = batch_major::<R>(b, 1, p)?;
        let labels = labels(b, 2)?;
        let nll = load_view::<R>(b, 3, b.view(3)?, &[p.n])?;
        let alpha = load_view::<R>(b, 4, b.view(4)?, &[p.n, p.t, self.width])?;
        let offsets = p.offsets();
        let plane = p.t * p.c;
        let mut grad = vec![R::NEG_INF; p.n * plane];
        crate::engine::pool().install(|| {
            grad.par_chunks_mut(plane.max(1))
                .enumerate()
                .for_each(|(bi, g)| {
                    let ext = p.extended(&labels, &offsets, bi);
                    let a = &alpha[bi * p.t * self.width..(bi + 1) * p.t * self.width];
                    let l = &lp[bi * plane..(bi + 1) * plane];
                    self.batch(l, a, &ext, bi, nll[bi], gr[bi], g);
                })
        });
        // (N, T, C) rows into out (T, N, C).
        let out = b.view(5)?.permuted(&[1, 0, 2], Format::ND);
        store_view(b, 5, &out, &grad)
    }
}

impl Work for Backward {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        if self.dtype == F64 {
            self.run_typed::<f64>(b)
        } else {
            self.run_typed::<f32>(b)
        }
    }
}

/// aclnnCtcLossBackward: gradOut (N), logProbs (T, N, C), negLogLikelihood (N), logAlpha
/// (N, T, W ≥ 2·max(targetLengths) + 1) and out (T, N, C), all of one dtype
/// FLOAT/FLOAT16/BFLOAT16/DOUBLE; targets as CtcLoss's. The checks run in the op_api's
/// order. See the module comment.
#[allow(clippy::too_many_arguments)]
pub fn ctc_loss_backward(
    grad_out: &TensorDesc,
    log_probs: &TensorDesc,
    targets: &TensorDesc,
    input_lengths: &[i64],
    target_lengths: &[i64],
    nll: &TensorDesc,
    log_alpha: &TensorDesc,
    blank: i64,
    zero_infinity: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnCtcLossBackward";
    check_time(log_probs)?;
    for (name, t, rank, form) in [
        ("gradOut", grad_out, 1, "(N)"),
        ("negLogLikelihood", nll, 1, "(N)"),
        ("logProbs", log_probs, 3, "(T, N, C)"),
        ("logAlpha", log_alpha, 3, "(N, T, W)"),
    ] {
        crate::ensure!(
            t.rank() == rank,
            "{name} has shape {:?}: it must be {rank}-D {form}",
            t.shape
        );
    }
    crate::ensure!(
        matches!(targets.rank(), 1 | 2),
        "targets has shape {:?}: it must be 1-D (concatenated) or 2-D (padded)",
        targets.shape
    );
    crate::ensure!(
        out.rank() == 3,
        "out has shape {:?}: it must be 3-D (T, N, C)",
        out.shape
    );
    let (t, n, c) = tnc(log_probs);
    check_blank(blank, c)?;
    let width = log_alpha.shape[2];
    let max_tl = max_of(target_lengths);
    let max_il = max_of(input_lengths);
    crate::ensure!(
        max_tl <= (width as i64 - 1) / 2,
        "logAlpha has shape {:?}: its last dim must be at least 2·max(targetLengths) + 1 = {}",
        log_alpha.shape,
        2 * max_tl as i128 + 1
    );
    if targets.rank() == 2 {
        crate::ensure!(
            targets.shape[1] as i64 >= max_tl,
            "targets has shape {:?}: its dim 1 must be at least max(targetLengths) = {max_tl}",
            targets.shape
        );
    }
    let batch = [
        ("gradOut", grad_out.shape[0]),
        ("out", out.shape[1]),
        ("negLogLikelihood", nll.shape[0]),
        ("logAlpha", log_alpha.shape[0]),
        ("inputLengths", input_lengths.len()),
        ("targetLengths", target_lengths.len()),
    ];
    for (name, m) in batch
        .into_iter()
        .chain((targets.rank() == 2).then(|| ("targets", targets.shape[0])))
    {
        crate::ensure!(
            m == n,
            "{name} has batch size {m} but logProbs has N = {n}: the batch sizes must agree"
        );
    }
    crate::ensure!(
        out.shape[0] == t && log_alpha.shape[1] == t && max_il <= t as i64,
        "out (T {}), logAlpha (T {}) and inputLengths (largest {max_il}) must match logProbs' T = {t} (inputLengths at most T)",
        out.shape[0],
        log_alpha.shape[1]
    );
    crate::ensure!(
        out.shape[2] == c,
        "out has {} classes but logProbs has C = {c}",
        out.shape[2]
    );
    check_targets(targets, n, target_lengths)?;
    crate::ensure!(
        out.shape == log_probs.shape,
        "out has shape {:?}: it must be logProbs' {:?}",
        out.shape,
        log_probs.shape
    );
    ew::check_tensor("logProbs", log_probs, LIST)?;
    check_half_limits(log_probs, width)?;
    for (name, x) in [
        ("gradOut", grad_out),
        ("negLogLikelihood", nll),
        ("logAlpha", log_alpha),
        ("out", out),
    ] {
        ew::check_tensor(name, x, LIST)?;
        ew::check_dtype_of(name, x, "logProbs", log_probs)?;
    }
    ew::check_tensor("targets", targets, TARGETS)?;
    out.check_output("out")?;
    check_apart(
        &[("out", out)],
        &[
            ("gradOut", grad_out),
            ("logProbs", log_probs),
            ("targets", targets),
            ("negLogLikelihood", nll),
            ("logAlpha", log_alpha),
        ],
    )?;
    let b = bindings(
        &[
            Some(grad_out),
            Some(log_probs),
            Some(targets),
            Some(nll),
            Some(log_alpha),
        ],
        &[Some(out)],
    );
    if n == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    let p = Problem::new(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        zero_infinity,
    );
    Ok(Executor::new(
        API,
        b,
        Backward {
            p,
            width,
            dtype: log_probs.dtype,
        },
    ))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "CtcLoss",
        a: LIST,
        b: TARGETS,
        out: LIST,
        rule: "CTC negative log-likelihood per batch and the forward log-variables (N, T, align8(2·S+1)); zeroInfinity zeroes +inf",
    },
    Entry {
        ops: "CtcLossBackward",
        a: LIST,
        b: TARGETS,
        out: LIST,
        rule: "∂ CtcLoss / ∂ logProbs from negLogLikelihood and logAlpha (torch's β recursion), scaled by gradOut",
    },
];
