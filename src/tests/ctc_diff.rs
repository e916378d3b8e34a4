//! Differential tests of CtcLoss and CtcLossBackward (src/ops/ctc_loss.rs), called through
//! their rules on random views.
//!
//! The reference is torch 1.13's CPU kernels, `torch._ctc_loss` and
//! `aten._ctc_loss_backward`, in f32 (FLOAT, and FLOAT16/BFLOAT16 widened exactly, as the
//! device's kernel computes) or f64 (DOUBLE), their results rounded into the output dtype.
//! Cases: random T, N, C, blank, both target layouts (padded with spare columns, and
//! concatenated), few classes (repeated labels, labels equal to blank), target lengths 0 and
//! longer than the input (impossible alignments: +inf), log-probabilities with −inf and NaN,
//! every logProbs dtype and every targets dtype (float targets with a fraction: truncated),
//! the 2-D (T, C) form, zeroInfinity both ways (the device zeroes an infinite forward loss,
//! torch's `_ctc_loss` does not: the reference applies it). Bound: bit for bit (the same
//! operations in the same order on the same C library's exp and log); logAlpha compared where
//! torch defines it (t < L, s ≤ 2S), −inf elsewhere. The backward runs on the forward's own
//! outputs (the device-padded logAlpha), zeroInfinity over a forward without it.
//! Also L = 0, the errors in the op_api's order, and that nothing is written on error.

use super::add_diff::Rng;
use super::nn_diff::{close, rand_view, round_to, run, torch_values, T};
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::error::Error;
use crate::ops::ctc_loss::{ctc_loss, ctc_loss_backward};

const FLOATS: [DType; 4] = [F32, F64, F16, BF16];
const TARGETS: [DType; 5] = [S64, S32, Bool, F32, F16];

/// A random case's inputs.
struct Case {
    d: DType,
    t: usize,
    n: usize,
    c: usize,
    two_d: bool,
    blank: i64,
    il: Vec<i64>,
    tl: Vec<i64>,
    /// Row-major logProbs values (as the dtype holds them).
    lp: Vec<f64>,
    /// The labels as int64 (what the rule reads after conversion), targets' shape.
    labels: Vec<i64>,
    tshape: Vec<usize>,
    td: DType,
}

fn random_case(rng: &mut Rng, k: usize) -> Case {
    let d = FLOATS[k % 4];
    let two_d = rng.pct(15);
    let t = 1 + rng.below(7) as usize;
    let n = if two_d { 1 } else { 1 + rng.below(4) as usize };
    let c = 1 + rng.below(5) as usize;
    let blank = rng.below(c as u64) as i64;
    let il: Vec<i64> = (0..n).map(|_| 1 + rng.below(t as u64) as i64).collect();
    let tl: Vec<i64> = il
        .iter()
        .map(|&l| match rng.below(6) {
            0 => 0,
            1 => l + 1 + rng.below(2) as i64,
            _ => rng.below(l as u64 + 1) as i64,
        })
        .collect();
    let td = match rng.pick(&TARGETS) {
        Bool if c < 2 => S64, // labels 0/1
        td => td,
    };
    let label = |rng: &mut Rng| {
        if td == Bool {
            rng.below(2) as i64
        } else if rng.pct(70) && c > 1 {
            // mostly not blank, as CTC targets are
            let v = rng.below(c as u64 - 1) as i64;
            if v >= blank {
                v + 1
            } else {
                v
            }
        } else {
            rng.below(c as u64) as i64
        }
    };
    let max_tl = *tl.iter().max().unwrap() as usize;
    let (tshape, labels) = if rng.pct(50) {
        let s = max_tl + rng.below(3) as usize;
        let v: Vec<i64> = (0..n * s).map(|_| label(rng)).collect();
        (vec![n, s], v)
    } else {
        let sum = tl.iter().sum::<i64>() as usize;
        let v: Vec<i64> = (0..sum).map(|_| label(rng)).collect();
        (vec![sum], v)
    };
    let numel = t * n * c;
    let lp: Vec<f64> = (0..numel)
        .map(|_| match rng.below(60) {
            0 => f64::NEG_INFINITY,
            1 => f64::NAN,
            _ => round_to(d, -(rng.below(1 << 16) as f64) / 8192.0),
        })
        .collect();
    Case {
        d,
        t,
        n,
        c,
        two_d,
        blank,
        il,
        tl,
        lp,
        labels,
        tshape,
        td,
    }
}

impl Case {
    fn lp_shape(&self) -> Vec<usize> {
        if self.two_d {
            vec![self.t, self.c]
        } else {
            vec![self.t, self.n, self.c]
        }
    }
    fn width(&self) -> usize {
        (2 * *self.tl.iter().max().unwrap() as usize + 8) / 8 * 8
    }
    fn log_probs(&self, rng: &mut Rng) -> T {
        let mut x = rand_view(rng, self.d, &self.lp_shape(), 2);
        for (i, &v) in self.lp.iter().enumerate() {
            x.set(i, v);
        }
        x
    }
    /// targets in its dtype (float ones get a fraction that the conversion truncates).
    fn targets(&self, rng: &mut Rng) -> T {
        let mut t = rand_view(rng, self.td, &self.tshape, 2);
        for (i, &v) in self.labels.iter().enumerate() {
            let frac = if matches!(self.td, F32 | F16) && rng.pct(30) {
                0.25
            } else {
                0.0
            };
            t.set(i, v as f64 + frac);
        }
        t
    }
    fn reference_inputs(&self) -> Vec<Option<Array>> {
        vec![
            Some(Array::f64s(&self.lp_shape(), &self.lp)),
            Some(Array::i64s(&self.tshape, &self.labels)),
            Some(Array::i64s(&[self.n], &self.il)),
            Some(Array::i64s(&[self.n], &self.tl)),
            Some(Array::int(self.blank)),
            Some(Array::int(0)),
            Some(Array::int((self.d == F64) as i64)),
        ]
    }
}

/// The forward's outputs: loss (N) and logAlpha (N, T, W) values.
fn forward(rng: &mut Rng, cs: &Case, zero_infinity: bool) -> (Vec<f64>, Vec<f64>) {
    let x = cs.log_probs(rng);
    let tg = cs.targets(rng);
    let nshape: Vec<usize> = if cs.two_d { vec![] } else { vec![cs.n] };
    let nll = rand_view(rng, cs.d, &nshape, 2);
    let la = rand_view(rng, cs.d, &[cs.n, cs.t, cs.width()], 2);
    let e = ctc_loss(
        &x.desc,
        &tg.desc,
        &cs.il,
        &cs.tl,
        cs.blank,
        zero_infinity,
        &nll.desc,
        &la.desc,
    )
    .unwrap();
    run(e);
    assert!(nll.outside_untouched() && la.outside_untouched());
    (nll.values(), la.values())
}

/// CtcLoss and CtcLossBackward against torch 1.13, bit for bit (see the module comment).
#[test]
fn ctc_loss_and_backward_match_torch() {
    let mut rng = Rng::new(0xc7c0_0001);
    let mut batch = Batch::new();
    let fwd = batch.program(
        "f = torch.float64 if a[6].item() else torch.float32\n\
         x = a[0].to(f)\n\
         if x.dim() == 2: x = x.unsqueeze(1)\n\
         out = torch._ctc_loss(x, a[1].long(), a[2].tolist(), a[3].tolist(), a[4].item(), False)",
    );
    let bwd = batch.program(
        "f = torch.float64 if a[6].item() else torch.float32\n\
         out = torch.ops.aten._ctc_loss_backward(a[7].to(f), a[0].to(f), a[1].long(), a[2].tolist(), a[3].tolist(), a[8].to(f), a[9].to(f), a[4].item(), bool(a[5].item()))",
    );
    let mut checks = Vec::new();
    for k in 0..400 {
        let cs = random_case(&mut rng, k);
        let zi = rng.pct(50);
        let (nll, la) = forward(&mut rng, &cs, zi);
        let kf = batch.case(fwd, cs.reference_inputs());
        let mut kb = None;
        let mut grad = vec![];
        if !cs.two_d {
            // the backward from a forward without zeroInfinity (whose +inf losses it sees)
            let (nll0, la0) = if zi {
                forward(&mut rng, &cs, false)
            } else {
                (nll.clone(), la.clone())
            };
            let mut g = rand_view(&mut rng, cs.d, &[cs.n], 2);
            let gv: Vec<f64> = (0..cs.n)
                .map(|_| round_to(cs.d, rng.below(64) as f64 / 16.0 - 2.0))
                .collect();
            for (i, &v) in gv.iter().enumerate() {
                g.set(i, v);
            }
            let x = cs.log_probs(&mut rng);
            let tg = cs.targets(&mut rng);
            let mut nt = rand_view(&mut rng, cs.d, &[cs.n], 2);
            for (i, &v) in nll0.iter().enumerate() {
                nt.set(i, v);
            }
            let shape = [cs.n, cs.t, cs.width()];
            let mut lt = rand_view(&mut rng, cs.d, &shape, 2);
            for (i, &v) in la0.iter().enumerate() {
                lt.set(i, v);
            }
            let out = rand_view(&mut rng, cs.d, &[cs.t, cs.n, cs.c], 2);
            let e = ctc_loss_backward(
                &g.desc, &x.desc, &tg.desc, &cs.il, &cs.tl, &nt.desc, &lt.desc, cs.blank, zi,
                &out.desc,
            )
            .unwrap();
            run(e);
            assert!(out.outside_untouched());
            grad = out.values();
            let mut inputs = cs.reference_inputs();
            inputs[5] = Some(Array::int(zi as i64));
            inputs.push(Some(Array::f64s(&[cs.n], &gv)));
            inputs.push(Some(Array::f64s(&[cs.n], &nll0)));
            inputs.push(Some(Array::f64s(&shape, &la0)));
            kb = Some(batch.case(bwd, inputs));
        }
        let what = format!(
            "{} T {} N {} C {} 2-D {} blank {} il {:?} tl {:?} targets {:?} {:?} ({}) zeroInfinity {zi} lp {:?}",
            cs.d, cs.t, cs.n, cs.c, cs.two_d, cs.blank, cs.il, cs.tl, cs.tshape, cs.labels, cs.td, cs.lp
        );
        checks.push((cs, zi, nll, la, kf, kb, grad, what));
    }
    let Some(results) = batch.run("ctc_loss_and_backward_match_torch") else {
        return;
    };
    let (mut n_alpha, mut n_grad) = (0, 0);
    for (cs, zi, nll, la, kf, kb, grad, what) in checks {
        let want = results[kf]
            .as_ref()
            .unwrap_or_else(|e| panic!("torch: {e}: {what}"));
        let d = cs.d;
        let wn: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(d, if zi && v == f64::INFINITY { 0.0 } else { v }))
            .collect();
        close(
            &format!("loss: {what}"),
            d,
            &nll,
            &wn,
            0.0,
            &vec![0.0; wn.len()],
        );
        // logAlpha where torch defines it; −inf elsewhere
        let wa = torch_values(&want[1]);
        let tw = want[1].shape[2];
        let w = cs.width();
        for b in 0..cs.n {
            for t in 0..cs.t {
                for s in 0..w {
                    let got = la[(b * cs.t + t) * w + s];
                    let defined = (t as i64) < cs.il[b] && (s as i64) <= 2 * cs.tl[b];
                    let want = if defined {
                        n_alpha += 1;
                        round_to(d, wa[(b * cs.t + t) * tw + s])
                    } else {
                        f64::NEG_INFINITY
                    };
                    close(
                        &format!("logAlpha[{b}, {t}, {s}]: {what}"),
                        d,
                        &[got],
                        &[want],
                        0.0,
                        &[0.0],
                    );
                }
            }
        }
        if let Some(kb) = kb {
            let want = results[kb]
                .as_ref()
                .unwrap_or_else(|e| panic!("torch backward: {e}: {what}"));
            let wg: Vec<f64> = torch_values(&want[0])
                .iter()
                .map(|&v| round_to(d, v))
                .collect();
            n_grad += wg.len();
            close(
                &format!("grad: {what}"),
                d,
                &grad,
                &wg,
                0.0,
                &vec![0.0; wg.len()],
            );
        }
    }
    assert!(n_alpha > 2000 && n_grad > 2000, "{n_alpha} {n_grad}");
}

fn desc_err(r: crate::error::Result<crate::executor::Executor>) -> String {
    match r {
        Err(Error::Invalid(m)) => m,
        Err(e) => panic!("expected an invalid-parameter error, got {e}"),
        Ok(_) => panic!("expected an error"),
    }
}

/// Input length 0 (undefined in torch 1.13, which reads an unwritten row): loss 0 for an
/// empty target, +inf (0 with zeroInfinity) otherwise, logAlpha −inf; negative lengths and
/// labels outside [0, C) give NaN, never a crash; N = 0 writes nothing.
#[test]
fn ctc_loss_edges() {
    let lp = T::contiguous(F32, &[2, 3, 3]);
    let mut tg = T::contiguous(S64, &[3, 2]);
    for (i, v) in [1, 2, 1, 1, 7, -3].into_iter().enumerate() {
        tg.set(i, v as f64);
    }
    for zi in [false, true] {
        let nll = T::contiguous(F32, &[3]);
        let la = T::contiguous(F32, &[3, 2, 8]);
        let e = ctc_loss(
            &lp.desc,
            &tg.desc,
            &[0, 0, 2],
            &[0, 2, 2],
            0,
            zi,
            &nll.desc,
            &la.desc,
        )
        .unwrap();
        run(e);
        let v = nll.values();
        assert_eq!(v[0], 0.0);
        assert_eq!(v[1], if zi { 0.0 } else { f64::INFINITY });
        assert!(v[2].is_nan(), "labels 7 and -3 of 3 classes: {}", v[2]);
        assert!(la.values()[..32].iter().all(|&x| x == f64::NEG_INFINITY));
        // the backward of those: nothing reached for L = 0, NaN where labels are invalid
        let g = T::contiguous(F32, &[3]);
        let out = T::contiguous(F32, &[2, 3, 3]);
        let e = ctc_loss_backward(
            &g.desc,
            &lp.desc,
            &tg.desc,
            &[0, 0, 2],
            &[0, 2, 2],
            &nll.desc,
            &la.desc,
            0,
            zi,
            &out.desc,
        )
        .unwrap();
        run(e);
        let o = out.values();
        for t in 0..2 {
            for b in 0..2 {
                assert!(o[(t * 3 + b) * 3..][..3].iter().all(|&x| x == 0.0));
            }
        }
    }
    // negative lengths: NaN loss, −inf logAlpha; the backward NaN for t < L, else 0
    let nll = T::contiguous(F32, &[3]);
    let la = T::contiguous(F32, &[3, 2, 8]);
    let cat = T::contiguous(S64, &[1]);
    let e = ctc_loss(
        &lp.desc,
        &cat.desc,
        &[2, -1, 2],
        &[-1, 2, 0],
        0,
        false,
        &nll.desc,
        &la.desc,
    )
    .unwrap();
    run(e);
    let v = nll.values();
    assert!(v[0].is_nan() && v[1].is_nan() && v[2].is_finite(), "{v:?}");
    assert!(la.values()[..32].iter().all(|&x| x == f64::NEG_INFINITY));
    let g = T::contiguous(F32, &[3]);
    let out = T::contiguous(F32, &[2, 3, 3]);
    let e = ctc_loss_backward(
        &g.desc,
        &lp.desc,
        &cat.desc,
        &[2, -1, 2],
        &[-1, 2, 0],
        &nll.desc,
        &la.desc,
        0,
        false,
        &out.desc,
    )
    .unwrap();
    run(e);
    let o = out.values();
    assert!((0..2).all(|t| o[t * 9..t * 9 + 3].iter().all(|x| x.is_nan())));
    assert!((0..2).all(|t| o[t * 9 + 3..t * 9 + 6].iter().all(|&x| x == 0.0)));
    // N = 0: an executor that writes nothing
    let lp0 = T::contiguous(F32, &[2, 0, 3]);
    let t0 = T::contiguous(S64, &[0]);
    let n0 = T::contiguous(F32, &[0]);
    let a0 = T::contiguous(F32, &[0, 2, 8]);
    run(ctc_loss(&lp0.desc, &t0.desc, &[], &[], 0, false, &n0.desc, &a0.desc).unwrap());
}

/// The op_api's checks, in its order, with the words of each message; nothing written.
#[test]
fn ctc_loss_errors() {
    let t = |d: DType, s: &[usize]| T::contiguous(d, s);
    let (lp, tg) = (t(F32, &[4, 2, 5]), t(S64, &[2, 3]));
    let (nll, la) = (t(F32, &[2]), t(F32, &[2, 4, 8]));
    let il = [4, 3];
    let tl = [3, 2];
    let fwd = |lp: &T, tg: &T, il: &[i64], tl: &[i64], blank: i64, nll: &T, la: &T| {
        desc_err(ctc_loss(
            &lp.desc, &tg.desc, il, tl, blank, false, &nll.desc, &la.desc,
        ))
    };
    let cases: Vec<(String, &str)> = vec![
        (
            fwd(&t(F32, &[0, 2, 5]), &tg, &il, &tl, 0, &nll, &la),
            "exceeds dimension size (0)",
        ),
        (
            fwd(&t(F32, &[4, 2, 5, 1]), &tg, &il, &tl, 0, &nll, &la),
            "3-D (T, N, C) or 2-D",
        ),
        (fwd(&lp, &tg, &il, &tl, 5, &nll, &la), "blank is 5"),
        (fwd(&lp, &tg, &il, &tl, -1, &nll, &la), "[0, C)"),
        (fwd(&lp, &tg, &[4], &tl, 0, &nll, &la), "inputLengths has 1"),
        (
            fwd(&lp, &tg, &[5, 1], &tl, 0, &nll, &la),
            "each at most T = 4",
        ),
        (
            fwd(&lp, &tg, &il, &[3], 0, &nll, &la),
            "targetLengths has 1",
        ),
        (
            fwd(&lp, &t(S64, &[2, 3, 1]), &il, &tl, 0, &nll, &la),
            "1-D (concatenated) or 2-D",
        ),
        (
            fwd(&lp, &t(S64, &[2, 2]), &il, &tl, 0, &nll, &la),
            "(N, S) = (2, ≥ 3)",
        ),
        (
            fwd(&lp, &t(S64, &[6]), &il, &tl, 0, &nll, &la),
            "(Σ targetLengths) = (5)",
        ),
        (
            fwd(&lp, &tg, &il, &tl, 0, &t(F32, &[]), &la),
            "negLogLikelihoodOut has shape []",
        ),
        (
            fwd(&lp, &tg, &il, &tl, 0, &nll, &t(F32, &[2, 4, 7])),
            "[2, 4, 8]",
        ),
        (
            fwd(
                &t(S32, &[4, 2, 5]),
                &tg,
                &il,
                &tl,
                0,
                &t(S32, &[2]),
                &t(S32, &[2, 4, 8]),
            ),
            "tensor 'logProbs' has dtype",
        ),
        (
            fwd(
                &t(F16, &[4, 8181, 5]),
                &t(S64, &[8181, 3]),
                &vec![1; 8181],
                &vec![0; 8181],
                0,
                &t(F16, &[8181]),
                &t(F16, &[8181, 4, 8]),
            ),
            "not supported now",
        ),
        (
            fwd(&lp, &t(S8, &[2, 3]), &il, &tl, 0, &nll, &la),
            "tensor 'targets' has dtype",
        ),
        (
            fwd(&lp, &tg, &il, &tl, 0, &t(F64, &[2]), &la),
            "negLogLikelihoodOut has dtype",
        ),
        (
            fwd(&lp, &tg, &il, &tl, 0, &nll, &t(F16, &[2, 4, 8])),
            "logAlphaOut has dtype",
        ),
    ];
    for (msg, words) in cases {
        assert!(msg.contains(words), "{msg:?} lacks {words:?}");
    }
    // outputs apart from each other and from the inputs
    let inside_alpha = la.desc.selected(0, 0).selected(0, 0).narrowed(0, 0, 2);
    let e = desc_err(ctc_loss(
        &lp.desc,
        &tg.desc,
        &il,
        &tl,
        0,
        false,
        &inside_alpha,
        &la.desc,
    ));
    assert!(
        e.contains("negLogLikelihoodOut overlaps logAlphaOut"),
        "{e}"
    );
    assert!(nll.outside_untouched() && nll.store.iter().all(|&w| w == 0x5a5a_5a5a_5a5a_5a5a));

    // backward
    let (g, out) = (t(F32, &[2]), t(F32, &[4, 2, 5]));
    let bwd =
        |g: &T, lp: &T, tg: &T, il: &[i64], tl: &[i64], nll: &T, la: &T, blank: i64, out: &T| {
            desc_err(ctc_loss_backward(
                &g.desc, &lp.desc, &tg.desc, il, tl, &nll.desc, &la.desc, blank, false, &out.desc,
            ))
        };
    let cases: Vec<(String, &str)> = vec![
        (
            bwd(&g, &t(F32, &[0, 2, 5]), &tg, &il, &tl, &nll, &la, 0, &out),
            "exceeds dimension size (0)",
        ),
        (
            bwd(&t(F32, &[2, 1]), &lp, &tg, &il, &tl, &nll, &la, 0, &out),
            "gradOut has shape [2, 1]",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &t(F32, &[]), &la, 0, &out),
            "negLogLikelihood has shape []",
        ),
        (
            bwd(&g, &t(F32, &[4, 5]), &tg, &il, &tl, &nll, &la, 0, &out),
            "logProbs has shape [4, 5]",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &t(F32, &[2, 32]), 0, &out),
            "logAlpha has shape [2, 32]",
        ),
        (
            bwd(&g, &lp, &t(S64, &[]), &il, &tl, &nll, &la, 0, &out),
            "1-D (concatenated) or 2-D",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &la, 0, &t(F32, &[40])),
            "out has shape [40]",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &la, 9, &out),
            "blank is 9",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &t(F32, &[2, 4, 6]), 0, &out),
            "at least 2·max(targetLengths) + 1 = 7",
        ),
        (
            bwd(&g, &lp, &t(S64, &[2, 2]), &il, &tl, &nll, &la, 0, &out),
            "dim 1 must be at least",
        ),
        (
            bwd(&t(F32, &[3]), &lp, &tg, &il, &tl, &nll, &la, 0, &out),
            "gradOut has batch size 3",
        ),
        (
            bwd(&g, &lp, &tg, &il, &[3, 2, 1], &nll, &la, 0, &out),
            "targetLengths has batch size 3",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &t(F32, &[2, 3, 8]), 0, &out),
            "must match logProbs' T = 4",
        ),
        (
            bwd(&g, &lp, &tg, &[5, 4], &tl, &nll, &la, 0, &out),
            "largest 5",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &la, 0, &t(F32, &[4, 2, 6])),
            "out has 6 classes",
        ),
        (
            bwd(&g, &lp, &t(S64, &[4]), &il, &tl, &nll, &la, 0, &out),
            "(Σ targetLengths) = (5)",
        ),
        (
            bwd(&g, &t(U8, &[4, 2, 5]), &tg, &il, &tl, &nll, &la, 0, &out),
            "tensor 'logProbs' has dtype",
        ),
        (
            bwd(&t(F64, &[2]), &lp, &tg, &il, &tl, &nll, &la, 0, &out),
            "gradOut has dtype",
        ),
        (
            bwd(&g, &lp, &tg, &il, &tl, &nll, &la, 0, &t(F16, &[4, 2, 5])),
            "out has dtype",
        ),
        (
            bwd(&g, &lp, &t(U8, &[2, 3]), &il, &tl, &nll, &la, 0, &out),
            "tensor 'targets' has dtype",
        ),
    ];
    for (msg, words) in cases {
        assert!(msg.contains(words), "{msg:?} lacks {words:?}");
    }
    let e = desc_err(ctc_loss_backward(
        &g.desc, &lp.desc, &tg.desc, &il, &tl, &nll.desc, &la.desc, 0, false, &lp.desc,
    ));
    assert!(e.contains("out overlaps logProbs"), "{e}");
    assert!(out.store.iter().all(|&w| w == 0x5a5a_5a5a_5a5a_5a5a));
}
