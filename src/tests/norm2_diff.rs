//! Differential tests of the SyncBN pieces (ops/sync_bn.rs) against plain f64 loops of
//! their documented formulas (torch's batch_norm_stats / batch_norm_elemt /
//! batch_norm_gather_stats_with_counts are CUDA-only, so torch cannot serve here), over
//! random shapes, views (permuted, strided, offset), dtypes, optional tensors, empty
//! tensors and far-from-zero data (mean 1e4, variance 1e-4); plus the error cases and an
//! end-to-end check: the gathered statistics of a batch split across "devices" are the
//! statistics of the whole batch.
//!
//! Bound: every output is the f64 formula of the stored inputs rounded once to its dtype,
//! within 1 ulp of that dtype (the engines compute in f64).

use super::add_diff::Rng;
use super::norm_diff::{
    check_all, check_within, half_slack, invalid, quant, random_shape, run, values, T,
};
use crate::dtype::DType;
use crate::error::Error;
use crate::format::Format;
use crate::ops::sync_bn;

use DType::*;

const FLOATS: [DType; 3] = [F32, F16, BF16];

/// Per channel (dim `ch_dim` of `shape`), the values of row-major `xs`.
fn channels(xs: &[f64], shape: &[usize], ch_dim: usize) -> Vec<Vec<f64>> {
    let c = shape[ch_dim];
    let inner: usize = shape[ch_dim + 1..].iter().product();
    let mut out = vec![Vec::new(); c];
    for (i, &x) in xs.iter().enumerate() {
        out[(i / inner.max(1)) % c].push(x);
    }
    out
}

/// (mean, biased variance) of `v`; (0, NaN) when empty.
fn mean_var(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
}

/// Values near `shift` with variance about `spread`².
fn near(rng: &mut Rng, n: usize, shift: f64, spread: f64) -> Vec<f64> {
    (0..n)
        .map(|_| shift + spread * (rng.below(2001) as f64 - 1000.0) / 1000.0)
        .collect()
}

#[test]
fn batch_norm_stats_matches_the_f64_formula() {
    let mut rng = Rng::new(7);
    for case in 0..200 {
        let rank = 2 + rng.below(4) as usize;
        let mut shape = random_shape(&mut rng, rank, 4);
        shape[1] = shape[1].max(1);
        let dt = rng.pick(&[F32, F16]);
        let layout = rng.pct(60);
        let n: usize = shape.iter().product();
        let far = dt == F32 && rng.pct(30);
        let mut x = T::new(&mut rng, dt, &shape, layout);
        let xs = if far {
            x.fill(&near(&mut rng, n, 1e4, 1e-2))
        } else {
            let shift = if rng.pct(30) { 50.0 } else { 0.0 };
            x.fill(&values(&mut rng, n, shift))
        };
        let c = shape[1];
        let mut mean = T::new(&mut rng, F32, &[c], layout);
        let mut invstd = T::new(&mut rng, F32, &[c], layout);
        let eps = rng.pick(&[1e-5, 1e-3, 0.0]);
        let e = sync_bn::batch_norm_stats(&x.desc(), eps, &mean.desc(), &invstd.desc())
            .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let eps32 = eps as f32 as f64;
        let st: Vec<(f64, f64)> = channels(&xs, &shape, 1)
            .iter()
            .map(|v| mean_var(v))
            .collect();
        let what = format!("case {case}: BatchNormStats {shape:?} {dt} far {far}");
        check_all(
            &format!("{what} mean"),
            F32,
            &mean.read(),
            &st.iter().map(|s| s.0).collect::<Vec<_>>(),
        );
        check_all(
            &format!("{what} invstd"),
            F32,
            &invstd.read(),
            &st.iter()
                .map(|s| 1.0 / (s.1 + eps32).sqrt())
                .collect::<Vec<_>>(),
        );
        assert!(
            mean.untouched_outside() && invstd.untouched_outside(),
            "{what}: outside"
        );
    }
}

#[test]
fn batch_norm_stats_is_stable_far_from_zero() {
    // Mean 1e4, variance 1e-4 exactly representable: 1e4 ± 2⁻⁷ (f32 holds both).
    let mut rng = Rng::new(3);
    let shape = [64, 3, 17];
    let n: usize = shape.iter().product();
    let d = 2f64.powi(-7);
    let vals: Vec<f64> = (0..n)
        .map(|i| 1e4 + if i % 2 == 0 { d } else { -d })
        .collect();
    let mut x = T::new(&mut rng, F32, &shape, false);
    x.fill(&vals);
    let mut mean = T::new(&mut rng, F32, &[3], false);
    let mut invstd = T::new(&mut rng, F32, &[3], false);
    run(&sync_bn::batch_norm_stats(&x.desc(), 0.0, &mean.desc(), &invstd.desc()).unwrap());
    // 17 per (n, c) row is odd, but the channel holds 64·17 values alternating by the
    // global index: count the exact mean and variance.
    for (ch, v) in channels(&vals, &shape, 1).iter().enumerate() {
        let (m, var) = mean_var(v);
        assert_eq!(mean.read()[ch], quant(F32, m), "channel {ch} mean");
        assert_eq!(
            invstd.read()[ch],
            quant(F32, 1.0 / var.sqrt()),
            "channel {ch} invstd"
        );
        assert!(
            (var - d * d).abs() < 1e-3 * d * d,
            "the test's variance is about 6e-5"
        );
    }
}

#[test]
fn batch_norm_reduce_matches_the_f64_formula() {
    let mut rng = Rng::new(11);
    for case in 0..150 {
        let shape = random_shape(&mut rng, 4, 4);
        let nhwc = rng.pct(40);
        let dt = rng.pick(&FLOATS);
        let layout = rng.pct(60);
        let n: usize = shape.iter().product();
        let mut x = T::new(&mut rng, dt, &shape, layout);
        let shift = if rng.pct(30) { 20.0 } else { 0.0 };
        let xs = x.fill(&values(&mut rng, n, shift));
        let ch_dim = if nhwc { 3 } else { 1 };
        let c = shape[ch_dim];
        let mut sum = T::new(&mut rng, F32, &[c], layout);
        let mut sq = T::new(&mut rng, F32, &[c], layout);
        let mut xd = x.desc();
        xd.format = if nhwc { Format::NHWC } else { Format::NCHW };
        let e = sync_bn::batch_norm_reduce(&xd, &sum.desc(), &sq.desc())
            .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let per = channels(&xs, &shape, ch_dim);
        let what = format!("case {case}: BatchNormReduce {shape:?} nhwc {nhwc} {dt}");
        check_all(
            &format!("{what} sum"),
            F32,
            &sum.read(),
            &per.iter().map(|v| v.iter().sum()).collect::<Vec<_>>(),
        );
        check_all(
            &format!("{what} squareSum"),
            F32,
            &sq.read(),
            &per.iter()
                .map(|v| v.iter().map(|x| x * x).sum())
                .collect::<Vec<_>>(),
        );
        assert!(
            sum.untouched_outside() && sq.untouched_outside(),
            "{what}: outside"
        );
    }
}

#[test]
fn batch_norm_elemt_matches_the_f64_formula() {
    let mut rng = Rng::new(13);
    for case in 0..200 {
        let rank = 2 + rng.below(4) as usize;
        let mut shape = random_shape(&mut rng, rank, 4);
        shape[1] = shape[1].max(1);
        let c = shape[1];
        let dt = rng.pick(&FLOATS);
        let sdt = rng.pick(&FLOATS);
        let layout = rng.pct(60);
        let n: usize = shape.iter().product();
        let mut x = T::new(&mut rng, dt, &shape, layout);
        let xs = x.fill(&values(&mut rng, n, 0.0));
        let mut w = rng.pct(70).then(|| {
            let d = rng.pick(&FLOATS);
            T::new(&mut rng, d, &[c], layout)
        });
        let mut b = rng.pct(70).then(|| {
            let d = rng.pick(&FLOATS);
            T::new(&mut rng, d, &[c], layout)
        });
        let ws = w.as_mut().map(|t| t.fill(&values(&mut rng, c, 1.0)));
        let bs = b.as_mut().map(|t| t.fill(&values(&mut rng, c, 0.0)));
        let mut mean = T::new(&mut rng, sdt, &[c], layout);
        let ms = mean.fill(&values(&mut rng, c, 0.0));
        let mut invstd = T::new(&mut rng, sdt, &[c], layout);
        let is = invstd.fill(&near(&mut rng, c, 1.0, 0.9));
        let mut out = T::new(&mut rng, dt, &shape, layout);
        let (wd, bd) = (w.as_mut().map(|t| t.desc()), b.as_mut().map(|t| t.desc()));
        let e = sync_bn::batch_norm_elemt(
            &x.desc(),
            wd.as_ref(),
            bd.as_ref(),
            &mean.desc(),
            &invstd.desc(),
            1e-5,
            &out.desc(),
        )
        .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let inner: usize = shape[2..].iter().product();
        let want: Vec<f64> = (0..n)
            .map(|i| {
                let ch = (i / inner.max(1)) % c;
                (xs[i] - ms[ch]) * is[ch] * ws.as_ref().map_or(1.0, |w| w[ch])
                    + bs.as_ref().map_or(0.0, |b| b[ch])
            })
            .collect();
        let what = format!("case {case}: BatchNormElemt {shape:?} {dt} stats {sdt}");
        check_all(&what, dt, &out.read(), &want);
        assert!(out.untouched_outside(), "{what}: outside");
    }
}

/// torch's batch_norm_gather_stats_with_counts, from its CUDA kernel's formulas (f64).
#[allow(clippy::type_complexity)]
fn gather_ref(
    mean: &[f64],
    invstd: &[f64],
    counts: &[f64],
    c: usize,
    eps: f64,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let w = counts.len();
    let n: f64 = counts.iter().sum();
    let mut out = (vec![0.0; c], vec![0.0; c], vec![0.0; c]);
    for ch in 0..c {
        // The Welford merge of torch's kernel.
        let (mut avg, mut var_n, mut k) = (0.0, 0.0, 0.0);
        for i in 0..w {
            let m = mean[i * c + ch];
            let s = 1.0 / invstd[i * c + ch];
            let cnt = counts[i];
            let factor = 1.0 / (k + cnt);
            var_n += (s * s - eps) * cnt + (avg - m) * (avg - m) * k * cnt * factor;
            avg = k * factor * avg + cnt * factor * m;
            k += cnt;
        }
        out.0[ch] = avg;
        out.1[ch] = 1.0 / (var_n / n + eps).sqrt();
        out.2[ch] = var_n / (n - 1.0);
    }
    out
}

/// Results within `rel` of the reference (the reference merges in another order).
fn near_all(what: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * w.abs().max(1e-30) || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g}, want {w}"
        );
    }
}

#[test]
fn batch_norm_gather_stats_with_counts_matches_torch_formula() {
    let mut rng = Rng::new(17);
    for case in 0..150 {
        let world = 1 + rng.below(4) as usize;
        let c = rng.below(6) as usize + usize::from(rng.pct(90));
        let dt = rng.pick(&FLOATS);
        let layout = rng.pct(60);
        let mut input = T::new(&mut rng, dt, &[2, c, 3], layout);
        let mut mean = T::new(&mut rng, dt, &[world, c], layout);
        let ms = mean.fill(&values(&mut rng, world * c, 0.0));
        let mut invstd = T::new(&mut rng, dt, &[world, c], layout);
        let is = invstd.fill(&near(&mut rng, world * c, 1.0, 0.8));
        let mut counts = T::new(&mut rng, dt, &[world], layout);
        let cs: Vec<f64> = (0..world).map(|_| 1.0 + rng.below(40) as f64).collect();
        let cs = counts.fill(&cs);
        let mut rm = rng.pct(70).then(|| T::new(&mut rng, dt, &[c], layout));
        let mut rv = rng.pct(70).then(|| T::new(&mut rng, dt, &[c], layout));
        let rms = rm.as_mut().map(|t| t.fill(&values(&mut rng, c, 0.0)));
        let rvs = rv.as_mut().map(|t| t.fill(&near(&mut rng, c, 1.0, 0.5)));
        let odt = rng.pick(&FLOATS);
        let mut mean_all = T::new(&mut rng, odt, &[c], layout);
        let mut invstd_all = T::new(&mut rng, odt, &[c], layout);
        let (momentum, eps) = (rng.pick(&[0.1, 0.3]), rng.pick(&[1e-5, 1e-3]));
        let (rmd, rvd) = (rm.as_mut().map(|t| t.desc()), rv.as_mut().map(|t| t.desc()));
        let e = sync_bn::batch_norm_gather_stats_with_counts(
            &input.desc(),
            &mean.desc(),
            &invstd.desc(),
            rmd.as_ref(),
            rvd.as_ref(),
            momentum,
            eps,
            &counts.desc(),
            &mean_all.desc(),
            &invstd_all.desc(),
        )
        .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let (m32, e32) = (momentum as f32 as f64, eps as f32 as f64);
        let (wm, wi, wv) = gather_ref(&ms, &is, &cs, c, e32);
        let what = format!("case {case}: GatherStatsWithCounts world {world} C {c} {dt}->{odt}");
        // Within the output dtype's rounding (the reference merges in another order).
        let tol = match odt {
            F32 => 2f64.powi(-23),
            F16 => 2f64.powi(-10),
            _ => 2f64.powi(-7),
        };
        near_all(&format!("{what} meanAll"), &mean_all.read(), &wm, tol);
        near_all(&format!("{what} invstdAll"), &invstd_all.read(), &wi, tol);
        let rtol = match dt {
            F32 => 2f64.powi(-23),
            F16 => 2f64.powi(-10),
            _ => 2f64.powi(-7),
        };
        if let (Some(rm), Some(m0)) = (rm.as_mut(), rms.as_ref()) {
            let want: Vec<f64> = (0..c)
                .map(|ch| (1.0 - m32) * m0[ch] + m32 * wm[ch])
                .collect();
            let got = rm.read();
            for ch in 0..c {
                assert!(
                    (got[ch] - want[ch]).abs()
                        <= rtol * (want[ch].abs() + m0[ch].abs() + wm[ch].abs()),
                    "{what} runningMean {ch}: {} want {}",
                    got[ch],
                    want[ch]
                );
            }
        }
        if let (Some(rv), Some(v0)) = (rv.as_mut(), rvs.as_ref()) {
            let want: Vec<f64> = (0..c)
                .map(|ch| (1.0 - m32) * v0[ch] + m32 * wv[ch])
                .collect();
            near_all(&format!("{what} runningVar"), &rv.read(), &want, rtol);
        }
        assert!(
            mean_all.untouched_outside() && invstd_all.untouched_outside(),
            "{what}: outside"
        );
    }
}

#[test]
fn sync_bn_pieces_compose_to_the_whole_batch_statistics() {
    // A batch split across devices: BatchNormStats per device, then the gather with counts,
    // gives the whole batch's mean and invstd; BatchNormReduce per device then
    // SyncBatchNormGatherStats gives them too; BatchNormElemt then normalises like
    // BatchNorm in training would.
    let mut rng = Rng::new(19);
    let (c, h, w) = (3usize, 4usize, 5usize);
    let sizes = [2usize, 5, 1];
    let world = sizes.len();
    let eps = 1e-5;
    let mut dev_mean = T::new(&mut rng, F32, &[world, c], false);
    let mut dev_invstd = T::new(&mut rng, F32, &[world, c], false);
    let mut dev_sum = T::new(&mut rng, F32, &[world, c], false);
    let mut dev_sq = T::new(&mut rng, F32, &[world, c], false);
    let mut all = Vec::new();
    let (mut ms, mut is, mut ss, mut qs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &nb in &sizes {
        let shape = [nb, c, h, w];
        let n = nb * c * h * w;
        let mut x = T::new(&mut rng, F32, &shape, true);
        let xs = x.fill(&values(&mut rng, n, 3.0));
        all.push(xs);
        let mut m = T::new(&mut rng, F32, &[c], false);
        let mut i = T::new(&mut rng, F32, &[c], false);
        run(&sync_bn::batch_norm_stats(&x.desc(), eps, &m.desc(), &i.desc()).unwrap());
        ms.extend(m.read());
        is.extend(i.read());
        let mut s = T::new(&mut rng, F32, &[c], false);
        let mut q = T::new(&mut rng, F32, &[c], false);
        let mut xd = x.desc();
        xd.format = Format::NCHW;
        run(&sync_bn::batch_norm_reduce(&xd, &s.desc(), &q.desc()).unwrap());
        ss.extend(s.read());
        qs.extend(q.read());
    }
    dev_mean.fill(&ms);
    dev_invstd.fill(&is);
    dev_sum.fill(&ss);
    dev_sq.fill(&qs);
    // The whole batch, per channel.
    let mut per = vec![Vec::new(); c];
    for xs in &all {
        for (ch, v) in channels(xs, &[xs.len() / (c * h * w), c, h, w], 1)
            .into_iter()
            .enumerate()
        {
            per[ch].extend(v);
        }
    }
    let whole: Vec<(f64, f64)> = per.iter().map(|v| mean_var(v)).collect();
    let total = per[0].len() as f64;
    let input = T::new(&mut rng, F32, &[1, c, 1], false).desc();
    let mut counts = T::new(&mut rng, F32, &[world], false);
    counts.fill(
        &sizes
            .iter()
            .map(|&s| (s * h * w) as f64)
            .collect::<Vec<_>>(),
    );
    let mut mean_all = T::new(&mut rng, F32, &[c], false);
    let mut invstd_all = T::new(&mut rng, F32, &[c], false);
    let mut rv = T::new(&mut rng, F32, &[c], false);
    rv.fill(&vec![1.0; c]);
    run(&sync_bn::batch_norm_gather_stats_with_counts(
        &input,
        &dev_mean.desc(),
        &dev_invstd.desc(),
        None,
        Some(&rv.desc()),
        0.1,
        eps,
        &counts.desc(),
        &mean_all.desc(),
        &invstd_all.desc(),
    )
    .unwrap());
    let e32 = eps as f32 as f64;
    let tol = 1e-5;
    near_all(
        "gathered mean",
        &mean_all.read(),
        &whole.iter().map(|s| s.0).collect::<Vec<_>>(),
        tol,
    );
    near_all(
        "gathered invstd",
        &invstd_all.read(),
        &whole
            .iter()
            .map(|s| 1.0 / (s.1 + e32).sqrt())
            .collect::<Vec<_>>(),
        tol,
    );
    let m32 = 0.1f32 as f64;
    near_all(
        "gathered runningVar",
        &rv.read(),
        &whole
            .iter()
            .map(|s| (1.0 - m32) + m32 * s.1 * total / (total - 1.0))
            .collect::<Vec<_>>(),
        tol,
    );
    // From the sums.
    let mut counts32 = T::new(&mut rng, F32, &[world], false);
    counts32.fill(
        &sizes
            .iter()
            .map(|&s| (s * h * w) as f64)
            .collect::<Vec<_>>(),
    );
    let mut rmean = T::new(&mut rng, F32, &[c], false);
    rmean.fill(&vec![0.0; c]);
    let mut rvar = T::new(&mut rng, F32, &[c], false);
    rvar.fill(&vec![1.0; c]);
    let mut bm = T::new(&mut rng, F32, &[c], false);
    let mut bi = T::new(&mut rng, F32, &[c], false);
    run(&sync_bn::sync_batch_norm_gather_stats(
        &dev_sum.desc(),
        &dev_sq.desc(),
        &counts32.desc(),
        &rmean.desc(),
        &rvar.desc(),
        0.1,
        eps as f32,
        &bm.desc(),
        &bi.desc(),
    )
    .unwrap());
    near_all(
        "sync batchMean",
        &bm.read(),
        &whole.iter().map(|s| s.0).collect::<Vec<_>>(),
        1e-5,
    );
    near_all(
        "sync batchInvstd",
        &bi.read(),
        &whole
            .iter()
            .map(|s| 1.0 / (s.1 + e32).sqrt())
            .collect::<Vec<_>>(),
        1e-3,
    );
    near_all(
        "sync running mean",
        &rmean.read(),
        &whole.iter().map(|s| m32 * s.0).collect::<Vec<_>>(),
        1e-5,
    );
}

#[test]
fn sync_batch_norm_gather_stats_matches_the_formula() {
    let mut rng = Rng::new(23);
    for case in 0..150 {
        let world = 1 + rng.below(4) as usize;
        let c = rng.below(6) as usize + usize::from(rng.pct(90));
        let dt = rng.pick(&[F32, F16]);
        let odt = rng.pick(&[F32, F16]);
        let layout = rng.pct(60);
        let mut sum = T::new(&mut rng, dt, &[world, c], layout);
        let ss = sum.fill(&values(&mut rng, world * c, 10.0));
        let mut sq = T::new(&mut rng, dt, &[world, c], layout);
        let qs = sq.fill(&near(&mut rng, world * c, 500.0, 100.0));
        // INT32 counts are exercised by the C test (this helper stores floats); here the
        // float dtypes, with fractions that the device truncates.
        let cdt = rng.pick(&[F32, F16]);
        let mut cnt = T::new(&mut rng, cdt, &[world], layout);
        let cs: Vec<f64> = (0..world)
            .map(|_| 2.0 + rng.below(30) as f64 + 0.5)
            .collect();
        let cs = cnt.fill(&cs);
        let mut rm = T::new(&mut rng, dt, &[c], layout);
        let rms = rm.fill(&values(&mut rng, c, 0.0));
        let mut rv = T::new(&mut rng, dt, &[c], layout);
        let rvs = rv.fill(&near(&mut rng, c, 1.0, 0.5));
        let mut bm = T::new(&mut rng, odt, &[c], layout);
        let mut bi = T::new(&mut rng, odt, &[c], layout);
        let (momentum, eps) = (rng.pick(&[0.1f32, 0.25]), rng.pick(&[1e-5f32, 1e-2]));
        let e = sync_bn::sync_batch_norm_gather_stats(
            &sum.desc(),
            &sq.desc(),
            &cnt.desc(),
            &rm.desc(),
            &rv.desc(),
            momentum,
            eps,
            &bm.desc(),
            &bi.desc(),
        )
        .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let n: f64 = cs.iter().map(|x| x.trunc()).sum();
        let (m, e) = (momentum as f64, eps as f64);
        let mut want = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for ch in 0..c {
            let mean = (0..world).map(|i| ss[i * c + ch]).sum::<f64>() / n;
            let var = (0..world).map(|i| qs[i * c + ch]).sum::<f64>() / n - mean * mean;
            want.0.push(mean);
            want.1.push(1.0 / (var + e).sqrt());
            want.2.push((1.0 - m) * rms[ch] + m * mean);
            want.3.push((1.0 - m) * rvs[ch] + m * var * n / (n - 1.0));
        }
        let what = format!("case {case}: SyncBatchNormGatherStats world {world} C {c} {dt}->{odt}");
        check_all(&format!("{what} batchMean"), odt, &bm.read(), &want.0);
        check_all(&format!("{what} batchInvstd"), odt, &bi.read(), &want.1);
        check_all(&format!("{what} mean"), dt, &rm.read(), &want.2);
        check_all(&format!("{what} variance"), dt, &rv.read(), &want.3);
        assert!(
            bm.untouched_outside() && rv.untouched_outside(),
            "{what}: outside"
        );
    }
}

#[test]
fn sync_bn_errors() {
    let mut rng = Rng::new(29);
    let mut t = |d: DType, s: &[usize]| T::new(&mut rng, d, s, false).desc();
    let x = t(F32, &[2, 3, 4]);
    let xb = t(BF16, &[2, 3, 4]);
    let x0c = t(F32, &[2, 0, 4]);
    let v3 = t(F32, &[3]);
    let v4 = t(F32, &[4]);
    let v3h = t(F16, &[3]);
    let y = t(F32, &[2, 3, 4]);
    let yh = t(F16, &[2, 3, 4]);
    let x1 = t(F32, &[3]);
    // BatchNormStats
    invalid(
        "stats bf16",
        sync_bn::batch_norm_stats(&xb, 1e-5, &v3, &v3),
        "ACL_BF16",
    );
    invalid(
        "stats f16 mean",
        sync_bn::batch_norm_stats(&x, 1e-5, &v3h, &v3),
        "'mean'",
    );
    invalid(
        "stats rank 1",
        sync_bn::batch_norm_stats(&x1, 1e-5, &v3, &v3),
        "2 to 8",
    );
    invalid(
        "stats C 0",
        sync_bn::batch_norm_stats(&x0c, 1e-5, &v3, &v3),
        "channel dim",
    );
    invalid(
        "stats mean size",
        sync_bn::batch_norm_stats(&x, 1e-5, &v4, &v3),
        "C = 3",
    );
    // BatchNormElemt
    invalid(
        "elemt out dtype",
        sync_bn::batch_norm_elemt(&x, None, None, &v3, &v3, 1e-5, &yh),
        "input's dtype",
    );
    invalid(
        "elemt out shape",
        sync_bn::batch_norm_elemt(&x, None, None, &v3, &v3, 1e-5, &t(F32, &[2, 3, 5])),
        "shape",
    );
    invalid(
        "elemt weight size",
        sync_bn::batch_norm_elemt(&x, Some(&v4), None, &v3, &v3, 1e-5, &y),
        "'weight'",
    );
    invalid(
        "elemt invstd int",
        sync_bn::batch_norm_elemt(&x, None, None, &v3, &t(S32, &[3]), 1e-5, &y),
        "invstd",
    );
    let mut ync = y.clone();
    ync.format = Format::NCL;
    invalid(
        "elemt format",
        sync_bn::batch_norm_elemt(&x, None, None, &v3, &v3, 1e-5, &ync),
        "format",
    );
    // BatchNormReduce
    let mut x4 = t(F32, &[2, 3, 4, 5]);
    invalid(
        "reduce ND",
        sync_bn::batch_norm_reduce(&x4, &v3, &v3),
        "NCHW and NHWC",
    );
    x4.format = Format::NCHW;
    invalid(
        "reduce f16 sum",
        sync_bn::batch_norm_reduce(&x4, &v3h, &v3),
        "'sum'",
    );
    invalid(
        "reduce sum size",
        sync_bn::batch_norm_reduce(&x4, &v4, &v3),
        "C = 3",
    );
    x4.format = Format::NHWC;
    invalid(
        "reduce NHWC C",
        sync_bn::batch_norm_reduce(&x4, &v3, &v3),
        "C = 5",
    );
    let mut x3 = x.clone();
    x3.format = Format::NCHW;
    assert!(
        sync_bn::batch_norm_reduce(&x3, &v3, &v3).is_err(),
        "reduce rank 3"
    );
    // BatchNormGatherStatsWithCounts
    let m23 = t(F32, &[2, 3]);
    let m33 = t(F32, &[3, 3]);
    let m24 = t(F32, &[2, 4]);
    let c2 = t(F32, &[2]);
    let g = |input: &crate::tensor::TensorDesc,
             mean: &crate::tensor::TensorDesc,
             invstd: &crate::tensor::TensorDesc,
             rm: Option<&crate::tensor::TensorDesc>,
             counts: &crate::tensor::TensorDesc,
             out: &crate::tensor::TensorDesc| {
        sync_bn::batch_norm_gather_stats_with_counts(
            input, mean, invstd, rm, None, 0.1, 1e-5, counts, out, out,
        )
    };
    let out3 = t(F32, &[3]);
    invalid(
        "gather world",
        g(&x, &m23, &m33, None, &c2, &out3),
        "first dims",
    );
    invalid(
        "gather counts world",
        g(&x, &m23, &m23, None, &v3, &out3),
        "first dims",
    );
    invalid(
        "gather C",
        g(&x, &m24, &m24, None, &c2, &out3),
        "second dims",
    );
    invalid(
        "gather mean rank",
        g(&x, &v3, &m23, None, &c2, &out3),
        "2 dims",
    );
    invalid(
        "gather counts rank",
        g(&x, &m23, &m23, None, &m23, &out3),
        "1 dim",
    );
    invalid(
        "gather running",
        g(&x, &m23, &m23, Some(&v4), &c2, &out3),
        "'runningMean'",
    );
    invalid("gather out", g(&x, &m23, &m23, None, &c2, &v4), "'meanAll'");
    invalid(
        "gather int",
        g(&x, &m23, &m23, None, &t(S32, &[2]), &out3),
        "'counts'",
    );
    // SyncBatchNormGatherStats
    let s = |sum: &crate::tensor::TensorDesc,
             cnt: &crate::tensor::TensorDesc,
             run: &crate::tensor::TensorDesc,
             out: &crate::tensor::TensorDesc| {
        sync_bn::sync_batch_norm_gather_stats(sum, sum, cnt, run, run, 0.1, 1e-5, out, out)
    };
    let s23b = t(BF16, &[2, 3]);
    let s03 = t(F32, &[0, 3]);
    let c0 = t(F32, &[0]);
    invalid("sync bf16", s(&s23b, &c2, &v3, &v3), "ACL_BF16");
    invalid(
        "sync running dtype",
        s(&m23, &c2, &v3h, &v3),
        "totalSum's dtype",
    );
    invalid(
        "sync counts",
        s(&m23, &v3, &v3, &v3),
        "one count per device",
    );
    invalid("sync C", s(&m23, &c2, &v4, &v3), "C = 3");
    invalid("sync world 0", s(&s03, &c0, &v3, &v3), "must not be 0");
    invalid("sync rank", s(&v3, &c2, &v3, &v3), "2 dim");
    assert!(matches!(
        sync_bn::sync_batch_norm_gather_stats(&m23, &m23, &c2, &v3, &v3, 0.1, 1e-5, &v3h, &v3),
        Err(Error::Invalid(m)) if m.contains("batchMean's dtype")
    ));
}

#[test]
fn group_norm_swish_matches_the_f64_formula() {
    let mut rng = Rng::new(31);
    for case in 0..150 {
        let rank = 2 + rng.below(3) as usize;
        let group = 1 + rng.below(3) as usize;
        let mut shape = random_shape(&mut rng, rank, 2);
        shape[0] = shape[0].max(1);
        shape[1] = group * (1 + rng.below(3) as usize);
        let c = shape[1];
        let dt = rng.pick(&FLOATS);
        let gdt = if dt == F32 || rng.pct(50) { dt } else { F32 };
        let layout = rng.pct(60);
        let n: usize = shape.iter().product();
        let mut x = T::new(&mut rng, dt, &shape, layout);
        let shift = if rng.pct(30) { 100.0 } else { 0.0 };
        let xs = x.fill(&values(&mut rng, n, shift));
        let mut g = T::new(&mut rng, gdt, &[c], layout);
        let gs = g.fill(&values(&mut rng, c, 1.0));
        let mut b = T::new(&mut rng, gdt, &[c], layout);
        let bs = b.fill(&values(&mut rng, c, 0.0));
        let mut y = T::new(&mut rng, dt, &shape, layout);
        let mut mean = T::new(&mut rng, gdt, &[shape[0], group], layout);
        let mut rstd = T::new(&mut rng, gdt, &[shape[0], group], layout);
        let activate = rng.pct(70);
        let scale = rng.pick(&[1.0, 0.5, 2.0, -1.0]);
        let eps = rng.pick(&[1e-5, 1.0]);
        let e = crate::ops::norm::group_norm_swish(
            &x.desc(),
            &g.desc(),
            &b.desc(),
            group as i64,
            rng.pct(50).then_some("NCHW"),
            eps,
            activate,
            scale,
            &y.desc(),
            &mean.desc(),
            &rstd.desc(),
        )
        .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&e);
        let per_sample = n / shape[0];
        let per_group = per_sample / group;
        let inner = per_sample / c;
        let (mut wy, mut wm, mut wr) = (vec![0.0; n], Vec::new(), Vec::new());
        let mut slack = vec![0.0; n];
        // Without the activation, 16-bit rows may take the f32 arithmetic (rows/half.rs).
        let half = |scale: f64| {
            if activate {
                0.0
            } else {
                half_slack(dt, dt, scale)
            }
        };
        for s in 0..shape[0] {
            for k in 0..group {
                let base = s * per_sample + k * per_group;
                let (m, v) = mean_var(&xs[base..base + per_group]);
                let r = 1.0 / (v + eps).sqrt();
                wm.push(m);
                wr.push(r);
                for j in 0..per_group {
                    let ch = k * (c / group) + j / inner.max(1);
                    let mut z = (xs[base + j] - m) * r * gs[ch] + bs[ch];
                    if activate {
                        z /= 1.0 + (-scale * z).exp();
                    }
                    wy[base + j] = z;
                    slack[base + j] = half(((xs[base + j] - m).abs() * r + 1.0) * gs[ch].abs());
                }
            }
        }
        let what = format!("case {case}: GroupNormSwish {shape:?} group {group} {dt}/{gdt} swish {activate} {scale}");
        check_within(&what, dt, &y.read(), &wy, &slack);
        let mean_slack: Vec<f64> = wr.iter().map(|r| half(1.0 / r)).collect();
        let rstd_slack: Vec<f64> = wr.iter().map(|&r| half(r)).collect();
        check_within(&format!("{what} mean"), gdt, &mean.read(), &wm, &mean_slack);
        check_within(&format!("{what} rstd"), gdt, &rstd.read(), &wr, &rstd_slack);
        assert!(y.untouched_outside(), "{what}: outside");
    }
    // meanOut must have gamma's dtype, not x's.
    let mut t = |d: DType, s: &[usize]| T::new(&mut rng, d, s, false).desc();
    let (x, g) = (t(F16, &[2, 4, 3]), t(F32, &[4]));
    let (y, m16, m32) = (t(F16, &[2, 4, 3]), t(F16, &[2, 2]), t(F32, &[2, 2]));
    let call = |m: &crate::tensor::TensorDesc| {
        crate::ops::norm::group_norm_swish(&x, &g, &g, 2, None, 1e-5, true, 1.0, &y, m, &m32)
    };
    invalid("GroupNormSwish meanOut dtype", call(&m16), "gamma's dtype");
    assert!(call(&m32).is_ok());
    invalid(
        "GroupNormSwish groups",
        crate::ops::norm::group_norm_swish(&x, &g, &g, 3, None, 1e-5, true, 1.0, &y, &m32, &m32),
        "divisible",
    );
}
