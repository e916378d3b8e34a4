//! Differential tests of issue 18's remaining losses: CrossEntropyLoss, CrossEntropyLossGrad
//! and MultilabelMarginLoss, called through their rules on random views.
//!
//! The reference is torch 1.13 in f64 on the exact input values (`torch_ref`):
//! F.cross_entropy / F.log_softmax (with weight = ones when the weight is absent, which
//! is the device's documented normalisation of the smoothing term), torch autograd of the
//! same loss for the gradient (split at the log-softmax so that it runs from the given
//! logProb: `_log_softmax_backward_data`), F.multilabel_margin_loss (isTarget from a plain
//! loop). Bounds: 1 ulp of the output dtype at the reference plus 1e-12 of the case's
//! magnitude (f64 summation order); NaN must be NaN, infinities equal.

use super::add_diff::Rng;
use super::nn_diff::{close, fill, rand_view, round_to, run, torch_values, T};
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::*;
use crate::ops::{cross_entropy as ce, margin};

const REDS: [&str; 3] = ["none", "mean", "sum"];

fn scale(v: &[f64]) -> f64 {
    1e-12
        * v.iter()
            .map(|v| v.abs())
            .filter(|v| v.is_finite())
            .sum::<f64>()
}

fn i64s(t: &T, shape: &[usize]) -> Option<Array> {
    Some(Array::i64s(
        shape,
        &t.values().iter().map(|&v| v as i64).collect::<Vec<_>>(),
    ))
}

/// Random targets in [0, C), about 20% of them ignoreIndex when it is a class or negative
/// but not −100.
fn targets(rng: &mut Rng, t: &mut T, n: usize, c: usize, ignore: i64) {
    for i in 0..n {
        let v = if ignore != -100 && rng.pct(20) {
            ignore
        } else {
            rng.below(c as u64) as i64
        };
        t.set(i, v as f64);
    }
}

/// CrossEntropyLoss against torch: random (N, C) views (N may be 0), f32/f16/bf16 with
/// special values, with and without weight, ignoreIndex hits (a class, or a negative value
/// other than −100), label smoothing 0..1, every reduction; logProbOut against
/// F.log_softmax; in-place logProbOut (input's own view).
#[test]
fn loss18_cross_entropy_matches_torch() {
    let mut rng = Rng::new(0x6c31_3801);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); t = a[1].long(); r = a[3].item(); ig = a[4].item(); eps = a[5].item()\n\
         w = a[2].double() if a[2] is not None else torch.ones(x.shape[1], dtype=torch.float64)\n\
         red = ['none', 'mean', 'sum'][r]\n\
         out = (F.cross_entropy(x, t, w, ignore_index=ig, reduction=red, label_smoothing=eps), F.log_softmax(x, 1))",
    );
    let mut checks = Vec::new();
    for case in 0..200 {
        let d = rng.pick(&[F32, F16, BF16]);
        let n = if case % 25 == 0 {
            0
        } else {
            1 + rng.below(5) as usize
        };
        let c = 1 + rng.below(6) as usize;
        let mut x = rand_view(&mut rng, d, &[n, c], 2);
        fill(&mut rng, &mut x);
        let ignore = match rng.below(3) {
            0 => -100,
            1 => rng.below(c as u64) as i64,
            _ => -1 - rng.below(3) as i64,
        };
        let mut t = rand_view(&mut rng, S64, &[n], 2);
        targets(&mut rng, &mut t, n, c, ignore);
        let weight = if rng.pct(50) {
            let mut w = rand_view(&mut rng, F32, &[c], 2);
            for i in 0..c {
                w.set(i, rng.below(9) as f64 / 4.0);
            }
            Some(w)
        } else {
            None
        };
        let r = rng.below(3) as usize;
        let eps = match rng.below(4) {
            0 | 1 => 0.0,
            2 => 1.0 / (1 + rng.below(8)) as f64,
            _ => rng.below(1000) as f64 / 999.0,
        };
        let lshape: Vec<usize> = if r == 0 { vec![n] } else { vec![1] };
        let loss = rand_view(&mut rng, d, &lshape, 2);
        let inplace = n > 0 && rng.pct(15);
        let lp = if inplace {
            None
        } else {
            Some(rand_view(&mut rng, d, &[n, c], 2))
        };
        let z = T::contiguous(d, &[1]);
        let lz = T::contiguous(d, &[n]);
        let xv = x.values();
        let lpd = lp.as_ref().map_or(&x.desc, |l| &l.desc);
        let e = ce::cross_entropy_loss(
            &x.desc,
            &t.desc,
            weight.as_ref().map(|w| &w.desc),
            REDS[r],
            ignore,
            eps,
            0.0,
            false,
            &loss.desc,
            lpd,
            &z.desc,
            &lz.desc,
        )
        .unwrap();
        run(e);
        assert!(loss.outside_untouched());
        let marker = |t: &T| t.store.iter().all(|&w| w == 0x5a5a_5a5a_5a5a_5a5a);
        assert!(marker(&z) && marker(&lz), "zloss outputs written");
        let got_lp = match &lp {
            Some(l) => {
                assert!(l.outside_untouched());
                l.values()
            }
            None => x.values(),
        };
        let k = batch.case(
            prog,
            vec![
                Some(Array::f64s(&[n, c], &xv)),
                i64s(&t, &[n]),
                weight.as_ref().map(|w| Array::f64s(&[c], &w.values())),
                Some(Array::int(r as i64)),
                Some(Array::int(ignore)),
                Some(Array::f64s(&[1], &[eps])),
            ],
        );
        let what = format!(
            "x {xv:?} t {:?} w {:?} {} ignore {ignore} eps {eps}",
            t.values(),
            weight.as_ref().map(|w| w.values()),
            REDS[r]
        );
        checks.push((k, d, loss.values(), got_lp, what));
    }
    let Some(results) = batch.run("loss18_cross_entropy_matches_torch") else {
        return;
    };
    for (k, d, got, got_lp, what) in checks {
        let want = results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let wl: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(d, v))
            .collect();
        let what = format!("cross_entropy loss of {d} {what}");
        close(&what, d, &got, &wl, 1.0, &vec![scale(&got); wl.len()]);
        let wp: Vec<f64> = torch_values(&want[1])
            .iter()
            .map(|&v| round_to(d, v))
            .collect();
        let s = scale(&got_lp);
        close(
            &format!("logProb: {what}"),
            d,
            &got_lp,
            &wp,
            1.0,
            &vec![s; wp.len()],
        );
    }
}

/// The f32 rows read and written where they lie (unit column stride) give the bits of the
/// f64-row-buffer path (the same values in a column-strided view): loss and logProb, with
/// special values, weights, ignoreIndex, smoothing, every reduction and in-place logProb.
#[test]
fn loss18_cross_entropy_f32_rows_give_the_buffer_path_bits() {
    let mut rng = Rng::new(0x6c31_3802);
    for case in 0..120 {
        let n = 1 + rng.below(6) as usize;
        let c = 1 + rng.below(300) as usize;
        let vals: Vec<f64> = (0..n * c)
            .map(|_| super::nn_diff::rand_value(&mut rng, F32))
            .collect();
        let mut t = T::contiguous(S64, &[n]);
        let ignore = rng.below(c as u64) as i64;
        targets(&mut rng, &mut t, n, c, ignore);
        let weight = rng.pct(50).then(|| {
            let mut w = T::contiguous(F32, &[c]);
            for i in 0..c {
                w.set(i, rng.below(9) as f64 / 4.0);
            }
            w
        });
        let r = rng.below(3) as usize;
        let eps = if rng.pct(50) { 0.0 } else { 0.25 };
        let inplace = rng.pct(30);
        let mut results = Vec::new();
        for col_stride in [1usize, 2] {
            let mut x = T::with_strides(F32, &[n, c], &[c * col_stride, col_stride], 1, 2);
            for (i, &v) in vals.iter().enumerate() {
                x.set(i, v);
            }
            let lshape = if r == 0 { [n] } else { [1] };
            let loss = T::contiguous(F32, &lshape);
            let lp = T::with_strides(F32, &[n, c], &[c * col_stride, col_stride], 3, 2);
            let (z, lz) = (T::contiguous(F32, &[1]), T::contiguous(F32, &[n]));
            let e = ce::cross_entropy_loss(
                &x.desc,
                &t.desc,
                weight.as_ref().map(|w| &w.desc),
                REDS[r],
                ignore,
                eps,
                0.0,
                false,
                &loss.desc,
                if inplace { &x.desc } else { &lp.desc },
                &z.desc,
                &lz.desc,
            )
            .unwrap();
            run(e);
            let bits = |v: Vec<f64>| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            let logp = if inplace { x.values() } else { lp.values() };
            results.push((bits(loss.values()), bits(logp)));
        }
        assert!(
            results[0] == results[1],
            "case {case}: ({n}, {c}) {} eps {eps} in place {inplace}: the paths differ",
            REDS[r]
        );
    }
}

/// CrossEntropyLossGrad against torch autograd of the same loss from the given logProb:
/// random views, dtypes, weights, ignoreIndex hits, label smoothing, reductions, an
/// in-place out (logProb's own view).
#[test]
fn loss18_cross_entropy_grad_matches_torch() {
    let mut rng = Rng::new(0x6c31_3802);
    let mut batch = Batch::new();
    let prog = batch.program(
        "lp = a[0].double(); t = a[1].long(); g = a[3].double(); r = a[4].item(); ig = a[5].item(); eps = a[6].item()\n\
         C = lp.shape[1]\n\
         w = a[2].double() if a[2] is not None else torch.ones(C, dtype=torch.float64)\n\
         red = ['none', 'mean', 'sum'][r]\n\
         y = lp.clone().requires_grad_()\n\
         nll = F.nll_loss(y, t, w, ignore_index=ig, reduction=red)\n\
         m = t == ig\n\
         sm = -(y * w.unsqueeze(0)).sum(1)\n\
         sm = sm.masked_fill(m, 0.0)\n\
         if red == 'mean': sm = sm.sum() / w[t[~m]].sum()\n\
         elif red == 'sum': sm = sm.sum()\n\
         L = (1 - eps) * nll + sm * (eps / C)\n\
         G, = torch.autograd.grad(L, y, g.reshape(L.shape))\n\
         out = torch._log_softmax_backward_data(G, lp, 1, torch.float64)",
    );
    let mut checks = Vec::new();
    for case in 0..160 {
        let d = rng.pick(&[F32, F16, BF16]);
        let n = 1 + rng.below(5) as usize;
        let c = 1 + rng.below(6) as usize;
        // logProb: the log-softmax of random logits, rounded to d (sometimes −inf)
        let mut lp = rand_view(&mut rng, d, &[n, c], 2);
        for row in 0..n {
            let xs: Vec<f64> = (0..c)
                .map(|_| rng.below(1 << 12) as f64 / 256.0 - 8.0)
                .collect();
            let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let lse = m + xs.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
            for (j, v) in xs.iter().enumerate() {
                let v = if c > 1 && rng.pct(3) {
                    f64::NEG_INFINITY
                } else {
                    v - lse
                };
                lp.set(row * c + j, v);
            }
        }
        let ignore = match rng.below(3) {
            0 => -100,
            1 => rng.below(c as u64) as i64,
            _ => -1,
        };
        let mut t = rand_view(&mut rng, S64, &[n], 2);
        targets(&mut rng, &mut t, n, c, ignore);
        let weight = if rng.pct(50) {
            let mut w = rand_view(&mut rng, F32, &[c], 2);
            for i in 0..c {
                w.set(i, rng.below(9) as f64 / 4.0);
            }
            Some(w)
        } else {
            None
        };
        let r = rng.below(3) as usize;
        let eps = if rng.pct(50) {
            0.0
        } else {
            rng.below(1000) as f64 / 999.0
        };
        let gshape: Vec<usize> = if r == 0 { vec![n] } else { vec![] };
        let mut g = rand_view(&mut rng, d, &gshape, 2);
        for i in 0..gshape.iter().product::<usize>() {
            g.set(i, rng.below(64) as f64 / 16.0 - 2.0);
        }
        let inplace = case % 7 == 3;
        let out = if inplace {
            None
        } else {
            Some(rand_view(&mut rng, d, &[n, c], 2))
        };
        let lpv = lp.values();
        let od = out.as_ref().map_or(&lp.desc, |o| &o.desc);
        let e = ce::cross_entropy_loss_grad(
            &g.desc,
            &lp.desc,
            &t.desc,
            weight.as_ref().map(|w| &w.desc),
            None,
            None,
            REDS[r],
            ignore,
            eps,
            0.0,
            od,
        )
        .unwrap();
        run(e);
        let got = match &out {
            Some(o) => {
                assert!(o.outside_untouched());
                o.values()
            }
            None => lp.values(),
        };
        let k = batch.case(
            prog,
            vec![
                Some(Array::f64s(&[n, c], &lpv)),
                i64s(&t, &[n]),
                weight.as_ref().map(|w| Array::f64s(&[c], &w.values())),
                Some(Array::f64s(&gshape, &g.values())),
                Some(Array::int(r as i64)),
                Some(Array::int(ignore)),
                Some(Array::f64s(&[1], &[eps])),
            ],
        );
        checks.push((k, d, got));
    }
    let Some(results) = batch.run("loss18_cross_entropy_grad_matches_torch") else {
        return;
    };
    for (k, d, got) in checks {
        let want = results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let w: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(d, v))
            .collect();
        let s = scale(&w);
        close("cross_entropy_grad", d, &got, &w, 1.0, &vec![s; w.len()]);
    }
}

/// CrossEntropyLoss(Grad) refusals: dtypes, shapes, reduction, labelSmoothing, the zloss
/// mode; a target out of range refused when the work runs, before anything is written.
#[test]
fn loss18_cross_entropy_refusals() {
    let x = T::contiguous(F32, &[2, 3]);
    let mut t = T::contiguous(S64, &[2]);
    let t32 = T::contiguous(S32, &[2]);
    let w = T::contiguous(F32, &[3]);
    let w16 = T::contiguous(F16, &[3]);
    let w4 = T::contiguous(F32, &[4]);
    let l1 = T::contiguous(F32, &[1]);
    let l2 = T::contiguous(F32, &[2]);
    let lp = T::contiguous(F32, &[2, 3]);
    let lp16 = T::contiguous(F16, &[2, 3]);
    let z = T::contiguous(F32, &[1]);
    let x1 = T::contiguous(F32, &[3]);
    let x0 = T::contiguous(F32, &[2, 0]);
    let f = |x: &T, t: &T, w: Option<&T>, red: &str, eps: f64, sc: f64, rz: bool, l: &T, p: &T| {
        ce::cross_entropy_loss(
            &x.desc,
            &t.desc,
            w.map(|w| &w.desc),
            red,
            -100,
            eps,
            sc,
            rz,
            &l.desc,
            &p.desc,
            &z.desc,
            &z.desc,
        )
    };
    assert!(f(&x, &t, Some(&w), "mean", 0.0, 0.0, false, &l1, &lp).is_ok());
    assert!(f(&x, &t, None, "none", 0.0, 0.0, false, &l2, &lp).is_ok());
    let bad = [
        f(&x, &t32, None, "mean", 0.0, 0.0, false, &l1, &lp), // int32 target (A2: int64)
        f(&x, &t, Some(&w16), "mean", 0.0, 0.0, false, &l1, &lp), // f16 weight
        f(&x, &t, Some(&w4), "mean", 0.0, 0.0, false, &l1, &lp), // weight not (C)
        f(&x, &t, None, "avg", 0.0, 0.0, false, &l1, &lp),    // reduction
        f(&x, &t, None, "mean", 1.5, 0.0, false, &l1, &lp),   // labelSmoothing > 1
        f(&x, &t, None, "mean", -0.1, 0.0, false, &l1, &lp),  // labelSmoothing < 0
        f(&x, &t, None, "mean", 0.0, 0.5, false, &l1, &lp),   // zloss scale
        f(&x, &t, None, "mean", 0.0, 0.0, true, &l1, &lp),    // returnZloss
        f(&x, &t, None, "none", 0.0, 0.0, false, &l1, &lp),   // lossOut not (N)
        f(&x, &t, None, "mean", 0.0, 0.0, false, &l2, &lp),   // lossOut not one element
        f(&x, &t, None, "mean", 0.0, 0.0, false, &l1, &lp16), // logProbOut dtype
        f(&x1, &t, None, "mean", 0.0, 0.0, false, &l1, &lp),  // 1-D input
        f(&x0, &t, None, "mean", 0.0, 0.0, false, &l1, &x0),  // C = 0
        f(&x, &l2, None, "mean", 0.0, 0.0, false, &l1, &lp),  // f32 target
        f(&x, &t, None, "mean", 0.0, 0.0, false, &l1, &l2),   // logProbOut shape
    ];
    for (i, r) in bad.into_iter().enumerate() {
        assert!(
            matches!(r, Err(crate::Error::Invalid(_))),
            "case {i}: {:?}",
            r.map(|_| ())
        );
    }
    let e = f(&x, &t, None, "mean", 0.0, 0.5, false, &l1, &lp)
        .err()
        .unwrap();
    assert!(e.to_string().contains("lseSquareScaleForZloss"), "{e}");
    // out of range: refused at run time, nothing written
    t.set(0, 1.0);
    t.set(1, 3.0);
    let mut ll = T::contiguous(F32, &[1]);
    ll.set(0, 42.0);
    let e = f(&x, &t, None, "sum", 0.0, 0.0, false, &ll, &lp).unwrap();
    let mut ws = vec![0u64; 8];
    let r = e.work.run(
        &e.bindings,
        crate::executor::Workspace {
            addr: ws.as_mut_ptr() as usize,
            size: 64,
        },
    );
    assert!(matches!(r, Err(crate::Error::Invalid(_))));
    assert_eq!(ll.get(0), 42.0);
    // the grad
    t.set(1, 2.0);
    let g0 = T::contiguous(F32, &[]);
    let g2 = T::contiguous(F32, &[2]);
    let gr = |g: &T, p: &T, red: &str, eps: f64, sc: f64, o: &T| {
        ce::cross_entropy_loss_grad(
            &g.desc, &p.desc, &t.desc, None, None, None, red, -100, eps, sc, &o.desc,
        )
    };
    let o = T::contiguous(F32, &[2, 3]);
    assert!(gr(&g0, &lp, "mean", 0.0, 0.0, &o).is_ok());
    assert!(gr(&g2, &lp, "none", 0.3, 0.0, &o).is_ok());
    for (i, r) in [
        gr(&g0, &lp, "none", 0.0, 0.0, &o),   // gradLoss not (N)
        gr(&g2, &lp, "sum", 0.0, 0.0, &o),    // gradLoss not 0-D
        gr(&g0, &lp, "mean", 0.0, 0.1, &o),   // zloss
        gr(&g0, &lp16, "mean", 0.0, 0.0, &o), // logProb dtype
        gr(&g0, &lp, "mean", 2.0, 0.0, &o),   // labelSmoothing
        gr(&g0, &lp, "x", 0.0, 0.0, &o),      // reduction
        gr(&g0, &lp, "mean", 0.0, 0.0, &l2),  // out shape
    ]
    .into_iter()
    .enumerate()
    {
        assert!(matches!(r, Err(crate::Error::Invalid(_))), "grad case {i}");
    }
}

/// MultilabelMarginLoss against torch's F.multilabel_margin_loss: 0-D, 1-D and 2-D self
/// (views), int64/int32 targets with a −1 terminator (or none) and garbage after it,
/// duplicate classes, special values, every reduction (values above 2 behave as sum);
/// isTarget against a loop.
#[test]
fn loss18_multilabel_margin_matches_torch() {
    let mut rng = Rng::new(0x6c31_3803);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); t = a[1].long(); r = a[2].item()\n\
         red = ['none', 'mean', 'sum'][min(r, 2)]\n\
         out = F.multilabel_margin_loss(x, t, reduction=red)",
    );
    let mut checks = Vec::new();
    for _ in 0..200 {
        let d = rng.pick(&[F32, F16, BF16]);
        let td = rng.pick(&[S64, S32]);
        let form = rng.below(6);
        let c = 1 + rng.below(6) as usize;
        let (xs, n, c) = match form {
            0 => (vec![], 1, 1),
            1 => (vec![c], 1, c),
            _ => {
                let n = 1 + rng.below(4) as usize;
                (vec![n, c], n, c)
            }
        };
        let mut x = rand_view(&mut rng, d, &xs, 2);
        fill(&mut rng, &mut x);
        let mut t = rand_view(&mut rng, td, &xs, 2);
        let mut is_t = vec![0.0; n * c];
        for s in 0..n {
            let k = rng.below(c as u64 + 1) as usize; // targets before −1
            let mut ended = false;
            for j in 0..c {
                let v = if ended {
                    rng.below(c as u64 + 1) as i64 - 1 // any class or −1 (torch refuses others)
                } else if j == k {
                    ended = true;
                    -1
                } else {
                    let v = rng.below(c as u64) as i64;
                    is_t[s * c + v as usize] = 1.0;
                    v
                };
                t.set(s * c + j, v as f64);
            }
        }
        let r = rng.pick(&[0i64, 1, 2, 3, 7]);
        let oshape: Vec<usize> = if r == 0 && xs.len() == 2 {
            vec![n]
        } else if rng.pct(50) {
            vec![1]
        } else {
            vec![]
        };
        let o = rand_view(&mut rng, d, &oshape, 2);
        let it = rand_view(&mut rng, d, &xs, 2);
        let e = margin::multilabel_margin_loss(&x.desc, &t.desc, r, &o.desc, &it.desc).unwrap();
        run(e);
        assert!(o.outside_untouched() && it.outside_untouched());
        assert_eq!(it.values(), is_t, "isTarget");
        let k = batch.case(
            prog,
            vec![
                Some(Array::f64s(&xs, &x.values())),
                i64s(&t, &xs),
                Some(Array::int(r)),
            ],
        );
        checks.push((k, d, o.values()));
    }
    let Some(results) = batch.run("loss18_multilabel_margin_matches_torch") else {
        return;
    };
    for (k, d, got) in checks {
        let want = results[k].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let w: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(d, v))
            .collect();
        close(
            "multilabel_margin",
            d,
            &got,
            &w,
            1.0,
            &vec![scale(&got); w.len()],
        );
    }
}

/// MultilabelMarginLoss refusals, the empty self (nothing written, also for mean and sum)
/// and a class out of range refused when the work runs.
#[test]
fn loss18_multilabel_margin_refusals() {
    let x = T::contiguous(F32, &[2, 3]);
    let mut t = T::contiguous(S64, &[2, 3]);
    let o2 = T::contiguous(F32, &[2]);
    let o1 = T::contiguous(F32, &[1]);
    let it = T::contiguous(F32, &[2, 3]);
    let it16 = T::contiguous(F16, &[2, 3]);
    let t8 = T::contiguous(U8, &[2, 3]);
    let t23 = T::contiguous(S64, &[3, 2]);
    let x13 = T::contiguous(F32, &[0]);
    let x3 = T::contiguous(F32, &[2, 3, 1]);
    let f = |x: &T, t: &T, r: i64, o: &T, i: &T| {
        margin::multilabel_margin_loss(&x.desc, &t.desc, r, &o.desc, &i.desc)
    };
    assert!(f(&x, &t, 0, &o2, &it).is_ok());
    assert!(f(&x, &t, 5, &o1, &it).is_ok());
    for (i, r) in [
        f(&x, &t8, 0, &o2, &it),  // target dtype
        f(&x, &t, 0, &o2, &it16), // isTarget dtype
        f(&x, &t23, 0, &o2, &it), // target shape
        f(&x, &t, 0, &o1, &it),   // out not (N)
        f(&x, &t, 1, &o2, &it),   // out not one element
        f(&x13, &t, 1, &o1, &it), // empty vector
        f(&x3, &t, 1, &o1, &it),  // 3-D
        f(&x, &t, 0, &o2, &o2),   // isTarget shape
    ]
    .into_iter()
    .enumerate()
    {
        assert!(matches!(r, Err(crate::Error::Invalid(_))), "case {i}");
    }
    // empty self (0, C): success, nothing written
    let xe = T::contiguous(F32, &[0, 3]);
    let te = T::contiguous(S64, &[0, 3]);
    for r in [0, 1, 2] {
        let mut oe = T::contiguous(F32, if r == 0 { &[0][..] } else { &[1][..] });
        if r != 0 {
            oe.set(0, 42.0);
        }
        let e = f(&xe, &te, r, &oe, &xe).unwrap();
        run(e);
        if r != 0 {
            assert_eq!(oe.get(0), 42.0);
        }
    }
    // out of range before a −1: refused at run time, nothing written
    for (i, v) in [0.0, 3.0, -1.0, 0.0, 0.0, 0.0].iter().enumerate() {
        t.set(i, *v);
    }
    let mut o = T::contiguous(F32, &[1]);
    o.set(0, 42.0);
    let e = f(&x, &t, 2, &o, &it).unwrap();
    let mut ws = vec![0u64; 8];
    let r = e.work.run(
        &e.bindings,
        crate::executor::Workspace {
            addr: ws.as_mut_ptr() as usize,
            size: 64,
        },
    );
    assert!(matches!(r, Err(crate::Error::Invalid(_))));
    assert_eq!(o.get(0), 42.0);
    // after the −1 anything goes
    t.set(1, -1.0);
    t.set(2, 9.0);
    run(f(&x, &t, 2, &o, &it).unwrap());
}
