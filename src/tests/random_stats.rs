//! The random operators through their C entry points, tested statistically at fixed seeds
//! (Kolmogorov–Smirnov for continuous laws at α = 0.001, chi-square for discrete ones at
//! α ≈ 0.001, moments, mask densities) and for determinism: every value is checked bit
//! for bit against the Philox stream of its row-major index (so it cannot depend on the
//! thread count or the view's layout), the same seed and offset give the same bytes, and
//! the tensor forms (seed and offset read from device tensors) agree with the host forms
//! at offsetTensor + offset. Views are random (permuted, padded, offset); the storage
//! outside a view is checked untouched. Error cases return 161001/161002.

use super::add_diff::Rng;
use super::gather_diff::{
    decode_f, device, err, esize, indices, ok, run, BF16, BOOL, F16, F32, F64, S16, S32, S64, S8,
    T, U8,
};
use crate::capi::meta::*;
use crate::capi::ops::{
    bernoulli, dropout, dropout_backward, dropout_do_mask, dropout_gen_mask, dropout_v3,
    dropout_v3_grad, multinomial, normal, normal_out, random, randperm, uniform,
};
use crate::engine::philox::{unit_f64, Philox};
use std::ffi::c_void;
use std::ptr::{null, null_mut};

extern "C" {
    fn erfc(x: f64) -> f64;
}

fn round_to(d: i32, v: f64) -> f64 {
    match d {
        F32 => v as f32 as f64,
        F16 => half::f16::from_f64(v).to_f64(),
        BF16 => half::bf16::from_f64(v).to_f64(),
        F64 => v,
        _ => v.trunc(),
    }
}

/// A view of `shape` in dtype `d` with a random layout, its storage filled with 0x5a bytes.
fn view(rng: &mut Rng, d: i32, shape: &[usize]) -> T {
    T::new(rng, d, shape, &mut |_| vec![0x5a; esize(d)])
}

/// The view's elements in row-major order, and a check that the rest of the storage
/// still holds the 0x5a fill.
fn read(t: &T) -> Vec<f64> {
    let bytes = t.bytes();
    let e = esize(t.dtype);
    let idx = indices(&t.shape);
    let mut inside = vec![false; t.storage];
    let vals = idx
        .iter()
        .map(|i| {
            inside[t.pos(i)] = true;
            decode_f(t.dtype, t.elem(&bytes, i))
        })
        .collect();
    for (k, &is) in inside.iter().enumerate() {
        if !is {
            assert!(
                bytes[k * e..(k + 1) * e].iter().all(|&b| b == 0x5a),
                "written outside the view at {k}"
            );
        }
    }
    vals
}

/// A one-element S64 device tensor holding `v`.
fn word(rng: &mut Rng, v: i64) -> T {
    T::index(rng, S64, &[1], &[v])
}

/// Kolmogorov–Smirnov statistic of `xs` against `cdf`.
fn ks(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    s.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// KS critical value at α = 0.001.
fn ks_bound(n: usize) -> f64 {
    1.95 / (n as f64).sqrt()
}

/// Chi-square statistic of `counts` against `expected` probabilities, and the α ≈ 0.001
/// bound for its degrees of freedom (Wilson–Hilferty).
fn chi2(counts: &[u64], expected: &[f64]) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    let mut stat = 0.0;
    let mut df: f64 = -1.0;
    for (c, p) in counts.iter().zip(expected) {
        if *p > 0.0 {
            let e = p * n as f64;
            stat += (*c as f64 - e).powi(2) / e;
            df += 1.0;
        } else {
            assert_eq!(*c, 0, "a category of probability 0 was drawn");
        }
    }
    let z = 3.09;
    let k = 2.0 / (9.0 * df);
    (stat, df * (1.0 - k + z * k.sqrt()).powi(3))
}

fn phi(x: f64) -> f64 {
    0.5 * unsafe { erfc(-x / std::f64::consts::SQRT_2) }
}

/// The 53-bit uniform [0, 1) of element `e`, as the operators draw it.
fn unit(g: &Philox, e: usize) -> f64 {
    let w = g.block(e as u64);
    unit_f64(w[0], w[1])
}

fn normal_z(g: &Philox, e: usize) -> f64 {
    let w = g.block(e as u64);
    let u2 = 1.0 - unit_f64(w[2], w[3]);
    (-2.0 * u2.ln()).sqrt() * (std::f64::consts::TAU * unit_f64(w[0], w[1])).cos()
}

#[test]
fn uniform_is_uniform_and_a_function_of_seed_offset_and_index() {
    device();
    let mut rng = Rng::new(0x51f0);
    for case in 0..24 {
        let d = [F32, F64, F16, BF16, S32, S64, S16, S8, U8][case % 9];
        let big = case < 4;
        let shape: Vec<usize> = if big {
            vec![50, 400]
        } else {
            vec![1 + rng.below(5) as usize, rng.below(7) as usize, 3]
        };
        let t = view(&mut rng, d, &shape);
        let (from, to) = if d == U8 { (0.0, 200.0) } else { (-3.5, 7.25) };
        let (seed, offset) = (rng.next(), rng.next() & 0xffff);
        let tensor_form = case % 2 == 1;
        let (mut ws, mut ex) = (0u64, null_mut());
        let (st, phase2): (i32, super::gather_diff::Phase2) = if tensor_form {
            let s = T::index(&mut rng, S64, &[1], &[seed as i64]);
            let o = T::index(&mut rng, S64, &[1], &[offset as i64 - 3]);
            let st = unsafe {
                uniform::aclnnInplaceUniformTensorGetWorkspaceSize(
                    t.t, from, to, s.t, o.t, 3, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, uniform::aclnnInplaceUniformTensor);
            (-1, uniform::aclnnInplaceUniformTensor)
        } else {
            let st = unsafe {
                uniform::aclnnInplaceUniformGetWorkspaceSize(
                    t.t, from, to, seed, offset, &mut ws, &mut ex,
                )
            };
            (st, uniform::aclnnInplaceUniform)
        };
        if st != -1 {
            ok(st, ws, ex, phase2);
        }
        let got = read(&t);
        let g = Philox::new(seed, offset);
        for (e, v) in got.iter().enumerate() {
            let want = round_to(d, from + (to - from) * unit(&g, e)) + 0.0;
            assert_eq!(
                v.to_bits(),
                want.to_bits(),
                "case {case} dtype {d} element {e}"
            );
            let lo = if [F32, F64, F16, BF16].contains(&d) {
                from
            } else {
                from.trunc()
            };
            assert!(*v >= lo && *v <= to, "{v} outside [{from}, {to}]");
        }
        if big && (d == F32 || d == F64) {
            let dks = ks(&got, |x| ((x - from) / (to - from)).clamp(0.0, 1.0));
            assert!(dks < ks_bound(got.len()), "KS {dks}");
        }
    }
}

#[test]
fn normal_forms_follow_their_laws() {
    device();
    let mut rng = Rng::new(0x2b0b);
    let n = 20000;
    for case in 0..8 {
        let d = [F32, F64, F16, BF16][case % 4];
        let (mean, std) = (1.5f32, 2.25f32);
        let (seed, offset) = (rng.next() as i64, (rng.below(1000) * 4) as i64);
        let t = view(&mut rng, d, &[n / 100, 100]);
        let (mut ws, mut ex) = (0u64, null_mut());
        if case < 4 {
            let st = unsafe {
                normal::aclnnInplaceNormalGetWorkspaceSize(
                    t.t, mean, std, seed, offset, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, normal::aclnnInplaceNormal);
        } else {
            let st = unsafe {
                normal_out::aclnnNormalFloatFloatGetWorkspaceSize(
                    mean, std, seed, offset, t.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, normal_out::aclnnNormalFloatFloat);
        }
        let got = read(&t);
        let g = Philox::new(seed as u64, offset as u64);
        for (e, v) in got.iter().enumerate().step_by(97) {
            let want = round_to(d, mean as f64 + std as f64 * normal_z(&g, e));
            assert_eq!(v.to_bits(), want.to_bits(), "element {e}");
        }
        if d == F32 || d == F64 {
            let dks = ks(&got, |x| phi((x - mean as f64) / std as f64));
            assert!(dks < ks_bound(n), "KS {dks}");
        }
        let m = got.iter().sum::<f64>() / n as f64;
        let var = got.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64;
        assert!((m - 1.5).abs() < 5.0 * 2.25 / (n as f64).sqrt(), "mean {m}");
        assert!((var.sqrt() / 2.25 - 1.0).abs() < 0.03, "std {}", var.sqrt());
    }
    // Tensor means and stds (broadcast): each element is mean[i] + std[i]·z_i.
    for case in 0..6 {
        let d = [F32, F64, F16][case % 3];
        let shape = [3usize, 4, 5];
        let mean_shape: Vec<usize> = if case % 2 == 0 {
            vec![3, 4, 1]
        } else {
            vec![3, 4, 5]
        };
        let mvals: Vec<i64> = (0..mean_shape.iter().product::<usize>() as i64)
            .map(|i| i - 7)
            .collect();
        let svals: Vec<i64> = (0..5).map(|i| i + 1).collect();
        let m = T::index(&mut rng, d, &mean_shape, &mvals);
        let s = T::index(&mut rng, d, &[5], &svals);
        let out = view(&mut rng, d, &shape);
        let (seed, offset) = (rng.next() as i64, 8i64);
        let (mut ws, mut ex) = (0u64, null_mut());
        let form = case % 3;
        let st = unsafe {
            match form {
                0 => normal_out::aclnnNormalTensorTensorGetWorkspaceSize(
                    m.t, s.t, seed, offset, out.t, &mut ws, &mut ex,
                ),
                1 => normal_out::aclnnNormalTensorFloatGetWorkspaceSize(
                    m.t, 2.0, seed, offset, out.t, &mut ws, &mut ex,
                ),
                _ => {
                    let s_full = T::index(
                        &mut rng,
                        d,
                        &shape,
                        &(0..60).map(|i| i % 5 + 1).collect::<Vec<_>>(),
                    );
                    let st = normal_out::aclnnNormalFloatTensorGetWorkspaceSize(
                        0.5, s_full.t, seed, offset, out.t, &mut ws, &mut ex,
                    );
                    ok(st, ws, ex, normal_out::aclnnNormalFloatTensor);
                    -1
                }
            }
        };
        match form {
            0 => ok(st, ws, ex, normal_out::aclnnNormalTensorTensor),
            1 => ok(st, ws, ex, normal_out::aclnnNormalTensorFloat),
            _ => {}
        }
        let got = read(&out);
        let g = Philox::new(seed as u64, offset as u64);
        for (e, idx) in indices(&shape).iter().enumerate() {
            let mi = if mean_shape[2] == 1 {
                idx[0] * 4 + idx[1]
            } else {
                e
            };
            let mean = if form == 2 {
                0.5
            } else {
                round_to(d, mvals[mi] as f64)
            };
            let std = if form == 1 { 2.0 } else { (idx[2] + 1) as f64 };
            let want = round_to(d, mean + std * normal_z(&g, e));
            assert_eq!(got[e].to_bits(), want.to_bits(), "form {form} element {e}");
        }
    }
}

#[test]
fn bernoulli_forms_have_the_asked_density() {
    device();
    let mut rng = Rng::new(0xbe51);
    for case in 0..10 {
        let d = [F32, F16, F64, U8, S8, S16, S32, S64, BOOL, BF16][case];
        let shape = [40usize, 250];
        let t = view(&mut rng, d, &shape);
        let p = [0.0, 0.3, 1.0, 0.75, 0.5][case % 5];
        let mut pv = p as f32;
        let prob = unsafe { aclCreateScalar(&mut pv as *mut f32 as *mut c_void, F32) };
        let (seed, offset) = (rng.next() as i64, 4 * rng.below(100) as i64);
        let (mut ws, mut ex) = (0u64, null_mut());
        if case % 2 == 0 {
            let st = unsafe {
                bernoulli::aclnnInplaceBernoulliGetWorkspaceSize(
                    t.t, prob, seed, offset, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, bernoulli::aclnnInplaceBernoulli);
        } else {
            let st = unsafe {
                bernoulli::aclnnBernoulliGetWorkspaceSize(
                    t.t, prob, seed, offset, t.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, bernoulli::aclnnBernoulli);
        }
        aclDestroyScalar(prob);
        let got = read(&t);
        assert!(got.iter().all(|v| *v == 0.0 || *v == 1.0));
        let ones = got.iter().filter(|v| **v == 1.0).count() as u64;
        let pf = p as f32 as f64;
        let (stat, bound) = chi2(&[got.len() as u64 - ones, ones], &[1.0 - pf, pf]);
        assert!(
            pf == 0.0 || pf == 1.0 || stat < bound,
            "case {case}: chi2 {stat} >= {bound}"
        );
    }
    // A probability tensor broadcast over rows: row r has density p[r].
    for case in 0..4 {
        let d = [F32, F16, F64][case % 3];
        let ps = [0.1, 0.5, 0.9, 0.0];
        let prob = T::new(&mut rng, F32, &[4, 1], &mut |_| 0f32.to_le_bytes().to_vec());
        let mut bytes = prob.bytes();
        for (r, p) in ps.iter().enumerate() {
            prob.set(&mut bytes, &[r, 0], &(*p as f32).to_le_bytes());
        }
        let mut prob = prob;
        prob.upload(&bytes);
        let t = view(&mut rng, d, &[4, 5000]);
        let (mut ws, mut ex) = (0u64, null_mut());
        if case % 2 == 0 {
            let st = unsafe {
                bernoulli::aclnnInplaceBernoulliTensorGetWorkspaceSize(
                    t.t, prob.t, 7, 0, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, bernoulli::aclnnInplaceBernoulliTensor);
        } else {
            let st = unsafe {
                bernoulli::aclnnBernoulliTensorGetWorkspaceSize(
                    t.t, prob.t, 7, 0, t.t, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, bernoulli::aclnnBernoulliTensor);
        }
        let got = read(&t);
        for (r, p) in ps.iter().enumerate() {
            let p = *p as f32 as f64;
            let ones = got[r * 5000..(r + 1) * 5000]
                .iter()
                .filter(|v| **v == 1.0)
                .count() as u64;
            if p > 0.0 {
                let (stat, bound) = chi2(&[5000 - ones, ones], &[1.0 - p, p]);
                assert!(stat < bound, "row {r}: chi2 {stat}");
            } else {
                assert_eq!(ones, 0);
            }
        }
    }
    // A probability outside [0, 1] fails the run, writing nothing.
    let prob = T::index(&mut rng, F32, &[2], &[0, 2]);
    let t = view(&mut rng, F32, &[3, 2]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        bernoulli::aclnnInplaceBernoulliTensorGetWorkspaceSize(t.t, prob.t, 7, 0, &mut ws, &mut ex)
    };
    assert_eq!(
        run(st, ws, ex, bernoulli::aclnnInplaceBernoulliTensor),
        507015
    );
    let bytes = t.bytes();
    assert!(bytes.iter().all(|&b| b == 0x5a));
}

#[test]
fn random_draws_integers_uniformly_in_range() {
    device();
    let mut rng = Rng::new(0x7a4d);
    for case in 0..12 {
        let d = [S32, S64, F32, F16, BF16, F64, S16, S8, U8, BOOL, S64, F32][case];
        let (from, to) = match d {
            BOOL => (0i64, 2i64),
            U8 => (3, 13),
            S64 if case == 10 => (-(1i64 << 40), 1i64 << 40),
            _ => (-5, 5),
        };
        let t = view(&mut rng, d, &[20, 1000]);
        let (seed, offset) = (rng.next() as i64, rng.below(9) as i64);
        let (mut ws, mut ex) = (0u64, null_mut());
        if case % 2 == 0 {
            let st = unsafe {
                random::aclnnInplaceRandomGetWorkspaceSize(
                    t.t, from, to, seed, offset, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, random::aclnnInplaceRandom);
        } else {
            let s = word(&mut rng, seed);
            let o = word(&mut rng, offset + 5);
            let st = unsafe {
                random::aclnnInplaceRandomTensorGetWorkspaceSize(
                    t.t, from, to, s.t, o.t, -5, &mut ws, &mut ex,
                )
            };
            ok(st, ws, ex, random::aclnnInplaceRandomTensor);
        }
        let got = read(&t);
        assert!(
            got.iter()
                .all(|v| *v >= from as f64 && *v < to as f64 && v.fract() == 0.0),
            "case {case}"
        );
        if to - from <= 16 {
            let k = (to - from) as usize;
            let mut counts = vec![0u64; k];
            for v in &got {
                counts[(*v as i64 - from) as usize] += 1;
            }
            let (stat, bound) = chi2(&counts, &vec![1.0 / k as f64; k]);
            assert!(stat < bound, "case {case}: chi2 {stat} >= {bound}");
        } else {
            let dks = ks(&got, |x| {
                ((x - from as f64) / (to - from) as f64).clamp(0.0, 1.0)
            });
            assert!(dks < ks_bound(got.len()), "KS {dks}");
        }
    }
    // Without from/to: [0, the largest exact integer] (bool: 0/1; f16: 2^11).
    for (d, max) in [
        (F16, 2048.0),
        (BOOL, 1.0),
        (U8, 255.0),
        (BF16, 256.0),
        (S8, 127.0),
    ] {
        let t = view(&mut rng, d, &[8000]);
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            random::aclnnInplaceRandomWithoutFromToGetWorkspaceSize(t.t, 11, 0, &mut ws, &mut ex)
        };
        ok(st, ws, ex, random::aclnnInplaceRandomWithoutFromTo);
        let got = read(&t);
        assert!(got.iter().all(|v| *v >= 0.0 && *v <= max), "dtype {d}");
        let top = got.iter().cloned().fold(0.0, f64::max);
        assert!(top > max * 0.9, "dtype {d}: max {top}");
        let s = word(&mut rng, 11);
        let o = word(&mut rng, 0);
        let t2 = view(&mut rng, d, &[8000]);
        let st = unsafe {
            random::aclnnInplaceRandomWithoutFromToTensorGetWorkspaceSize(
                t2.t, s.t, o.t, 0, &mut ws, &mut ex,
            )
        };
        ok(st, ws, ex, random::aclnnInplaceRandomWithoutFromToTensor);
        assert_eq!(
            read(&t2),
            got,
            "the tensor form draws what the host form does"
        );
    }
}

#[test]
fn randperm_is_a_uniform_permutation() {
    device();
    let mut rng = Rng::new(0x9e53);
    for (n, d) in [
        (0usize, S64),
        (1, S32),
        (1000, S64),
        (300, F32),
        (256, U8),
        (2000, F16),
        (57, BF16),
    ] {
        let t = view(&mut rng, d, &[n]);
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            randperm::aclnnRandpermGetWorkspaceSize(n as i64, 3, 0, t.t, &mut ws, &mut ex)
        };
        ok(st, ws, ex, randperm::aclnnRandperm);
        let mut got: Vec<i64> = read(&t).iter().map(|v| *v as i64).collect();
        got.sort();
        assert_eq!(got, (0..n as i64).collect::<Vec<_>>(), "n {n} dtype {d}");
    }
    // Where 0 lands over many seeds: uniform over the 8 positions.
    let mut counts = [0u64; 8];
    let t = view(&mut rng, S64, &[8]);
    for seed in 0..4000 {
        let (mut ws, mut ex) = (0u64, null_mut());
        let st =
            unsafe { randperm::aclnnRandpermGetWorkspaceSize(8, seed, 0, t.t, &mut ws, &mut ex) };
        ok(st, ws, ex, randperm::aclnnRandperm);
        let v = read(&t);
        counts[v.iter().position(|x| *x == 0.0).unwrap()] += 1;
    }
    let (stat, bound) = chi2(&counts, &[0.125; 8]);
    assert!(stat < bound, "chi2 {stat}");
    // n too large for the dtype, a negative n, a wrong shape.
    let (mut ws, mut ex) = (0u64, null_mut());
    let t = view(&mut rng, U8, &[300]);
    assert_eq!(
        unsafe { randperm::aclnnRandpermGetWorkspaceSize(300, 0, 0, t.t, &mut ws, &mut ex) },
        161002
    );
    assert!(err().contains("too large"), "{}", err());
    assert_eq!(
        unsafe { randperm::aclnnRandpermGetWorkspaceSize(-1, 0, 0, t.t, &mut ws, &mut ex) },
        161002
    );
    assert_eq!(
        unsafe { randperm::aclnnRandpermGetWorkspaceSize(299, 0, 0, t.t, &mut ws, &mut ex) },
        161002
    );
    assert_eq!(
        unsafe { randperm::aclnnRandpermGetWorkspaceSize(3, 0, 0, null_mut(), &mut ws, &mut ex) },
        161001
    );
}

#[test]
fn multinomial_draws_by_the_weights() {
    device();
    let mut rng = Rng::new(0x3a17);
    let w = [1i64, 0, 3, 6, 0, 2];
    let total = 12.0;
    for case in 0..6 {
        let d = [F32, F16, F64, BF16][case % 4];
        let rows = 3usize;
        let vals: Vec<i64> = (0..rows).flat_map(|_| w).collect();
        let x = T::index(&mut rng, d, &[rows, 6], &vals);
        let replacement = case % 2 == 0;
        let ns = if replacement { 3000 } else { 4 };
        let out = view(&mut rng, S64, &[rows, ns]);
        let (mut ws, mut ex) = (0u64, null_mut());
        if case < 3 {
            let st = unsafe {
                multinomial::aclnnMultinomialGetWorkspaceSize(
                    x.t,
                    ns as i64,
                    replacement,
                    5,
                    0,
                    out.t,
                    &mut ws,
                    &mut ex,
                )
            };
            ok(st, ws, ex, multinomial::aclnnMultinomial);
        } else {
            let s = word(&mut rng, 5);
            let o = word(&mut rng, 0);
            let st = unsafe {
                multinomial::aclnnMultinomialTensorGetWorkspaceSize(
                    x.t,
                    ns as i64,
                    replacement,
                    s.t,
                    o.t,
                    0,
                    out.t,
                    &mut ws,
                    &mut ex,
                )
            };
            ok(st, ws, ex, multinomial::aclnnMultinomialTensor);
        }
        let got: Vec<usize> = read(&out).iter().map(|v| *v as usize).collect();
        let expected: Vec<f64> = w.iter().map(|x| *x as f64 / total).collect();
        for r in 0..rows {
            let row = &got[r * ns..(r + 1) * ns];
            if replacement {
                let mut counts = [0u64; 6];
                for &i in row {
                    counts[i] += 1;
                }
                let (stat, bound) = chi2(&counts, &expected);
                assert!(stat < bound, "case {case} row {r}: chi2 {stat}");
            } else {
                let mut s = row.to_vec();
                s.sort();
                assert_eq!(
                    s,
                    vec![0, 2, 3, 5],
                    "case {case}: the four non-zero categories, once each"
                );
            }
        }
    }
    // Without replacement, the first draw follows the weights.
    let x = T::index(
        &mut rng,
        F32,
        &[2000, 6],
        &(0..2000).flat_map(|_| w).collect::<Vec<_>>(),
    );
    let out = view(&mut rng, S64, &[2000, 1]);
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = unsafe {
        multinomial::aclnnMultinomialGetWorkspaceSize(x.t, 1, false, 9, 0, out.t, &mut ws, &mut ex)
    };
    ok(st, ws, ex, multinomial::aclnnMultinomial);
    let mut counts = [0u64; 6];
    for v in read(&out) {
        counts[v as usize] += 1;
    }
    let (stat, bound) = chi2(
        &counts,
        &w.iter().map(|x| *x as f64 / total).collect::<Vec<_>>(),
    );
    assert!(stat < bound, "first draws: chi2 {stat}");
    // Errors: more samples than categories without replacement; a negative weight at run time.
    let out = view(&mut rng, S64, &[2000, 7]);
    assert_eq!(
        unsafe {
            multinomial::aclnnMultinomialGetWorkspaceSize(
                x.t, 7, false, 9, 0, out.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    let neg = T::index(&mut rng, F32, &[3], &[1, -1, 2]);
    let out = view(&mut rng, S64, &[2]);
    let st = unsafe {
        multinomial::aclnnMultinomialGetWorkspaceSize(neg.t, 2, true, 9, 0, out.t, &mut ws, &mut ex)
    };
    assert_eq!(run(st, ws, ex, multinomial::aclnnMultinomial), 507015);
    assert!(out.bytes().iter().all(|&b| b == 0x5a));
}

/// The mask's bit of element `e`.
fn bit(mask: &[f64], e: usize) -> u8 {
    (mask[e / 8] as u8 >> (e % 8)) & 1
}

#[test]
fn dropout_masks_have_the_documented_layout_and_density() {
    device();
    let mut rng = Rng::new(0xd809);
    for (case, (n, p)) in [
        (1111usize, 0.3f64),
        (128, 0.5),
        (1, 0.9),
        (40000, 0.1),
        (5000, 0.0),
        (5000, 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let bytes = n.div_ceil(128) * 16;
        let out = view(&mut rng, U8, &[bytes]);
        let shape = [n as i64];
        let arr = unsafe { aclCreateIntArray(shape.as_ptr(), 1) };
        let (mut ws, mut ex) = (0u64, null_mut());
        let form = case % 3;
        let st = unsafe {
            match form {
                0 => dropout_gen_mask::aclnnDropoutGenMaskGetWorkspaceSize(
                    arr, p, 17, 4, out.t, &mut ws, &mut ex,
                ),
                1 => dropout_gen_mask::aclnnDropoutGenMaskV2GetWorkspaceSize(
                    arr, p, 17, 4, F32, out.t, &mut ws, &mut ex,
                ),
                _ => {
                    let s = word(&mut rng, 17);
                    let o = word(&mut rng, 1);
                    let st = dropout_gen_mask::aclnnDropoutGenMaskV2TensorGetWorkspaceSize(
                        arr, p, s.t, o.t, 3, F32, out.t, &mut ws, &mut ex,
                    );
                    ok(st, ws, ex, dropout_gen_mask::aclnnDropoutGenMaskV2Tensor);
                    -1
                }
            }
        };
        match form {
            0 => ok(st, ws, ex, dropout_gen_mask::aclnnDropoutGenMask),
            1 => ok(st, ws, ex, dropout_gen_mask::aclnnDropoutGenMaskV2),
            _ => {}
        }
        aclDestroyIntArray(arr);
        let mask = read(&out);
        // Bit i of the stream is word i of (seed 17, offset 4) below (1 − p)·2³².
        let g = Philox::new(17, 4);
        let keep = ((1.0 - p as f32 as f64) * 4294967296.0).round() as u64;
        for e in 0..bytes * 8 {
            assert_eq!(
                bit(&mask, e),
                ((g.word(e as u64) as u64) < keep) as u8,
                "case {case} bit {e}"
            );
        }
        let kept = (0..bytes * 8).filter(|&e| bit(&mask, e) == 1).count() as u64;
        let all = (bytes * 8) as u64;
        if p > 0.0 && p < 1.0 {
            let (stat, bound) = chi2(&[all - kept, kept], &[p, 1.0 - p]);
            assert!(stat < bound, "case {case}: chi2 {stat}");
        } else {
            assert_eq!(kept, if p == 0.0 { all } else { 0 });
        }
    }
    // The mask length is checked.
    let out = view(&mut rng, U8, &[16]);
    let shape = [129i64];
    let arr = unsafe { aclCreateIntArray(shape.as_ptr(), 1) };
    let (mut ws, mut ex) = (0u64, null_mut());
    assert_eq!(
        unsafe {
            dropout_gen_mask::aclnnDropoutGenMaskGetWorkspaceSize(
                arr, 0.5, 1, 0, out.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    assert!(err().contains("align(129, 128) / 8"), "{}", err());
    assert_eq!(
        unsafe {
            dropout_gen_mask::aclnnDropoutGenMaskGetWorkspaceSize(
                arr, 1.5, 1, 0, out.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    assert_eq!(
        unsafe {
            dropout_gen_mask::aclnnDropoutGenMaskV2GetWorkspaceSize(
                arr, 0.5, 1, 0, S32, out.t, &mut ws, &mut ex,
            )
        },
        161002
    );
    aclDestroyIntArray(arr);
}

#[test]
fn dropout_and_the_mask_appliers_match_a_loop() {
    device();
    let mut rng = Rng::new(0xd0d0);
    for case in 0..24 {
        let d = [F32, F16, BF16][case % 3];
        let od = [F32, F16, BF16][(case / 3) % 3];
        let shape = vec![1 + rng.below(6) as usize, 1 + rng.below(40) as usize];
        let n: usize = shape.iter().product();
        let vals: Vec<i64> = (0..n as i64).map(|i| i % 17 - 8).collect();
        let x = T::index(&mut rng, d, &shape, &vals);
        let out = view(&mut rng, od, &shape);
        let mask = view(&mut rng, U8, &[n.div_ceil(128) * 16]);
        let p = [0.25, 0.5, 0.0, 1.0][case % 4];
        let (mut ws, mut ex) = (0u64, null_mut());
        let train = case % 5 != 0;
        match case % 2 {
            0 => {
                let st = unsafe {
                    dropout::aclnnDropoutGetWorkspaceSize(
                        x.t, p, train, 21, 8, out.t, mask.t, &mut ws, &mut ex,
                    )
                };
                ok(st, ws, ex, dropout::aclnnDropout);
            }
            _ => {
                let st = unsafe {
                    dropout_v3::aclnnDropoutV3GetWorkspaceSize(
                        x.t,
                        null(),
                        p,
                        21,
                        8,
                        out.t,
                        mask.t,
                        &mut ws,
                        &mut ex,
                    )
                };
                ok(st, ws, ex, dropout_v3::aclnnDropoutV3);
            }
        }
        let train = train || case % 2 == 1;
        let got = read(&out);
        let mbytes = mask.bytes();
        let untouched = mbytes.iter().all(|&b| b == 0x5a);
        let m = read(&mask);
        for e in 0..n {
            let xv = round_to(d, vals[e] as f64) as f32;
            let want = if !train || p == 0.0 {
                xv
            } else if p == 1.0 {
                0.0
            } else {
                xv * bit(&m, e) as f32 * (1.0 / (1.0 - p)) as f32
            };
            assert_eq!(got[e], round_to(od, want as f64), "case {case} element {e}");
        }
        assert_eq!(
            untouched,
            !train || p == 0.0 || p == 1.0,
            "case {case}: maskOut written only when drawn"
        );
        // DoMask, DropoutBackward and DropoutV3Grad with this mask (a drawn one).
        if !untouched {
            for op in 0..3 {
                let o2 = view(&mut rng, od, &shape);
                let scale = 1.0 / (1.0 - p);
                let st = unsafe {
                    match op {
                        0 => dropout_do_mask::aclnnDropoutDoMaskGetWorkspaceSize(
                            x.t, mask.t, p, o2.t, &mut ws, &mut ex,
                        ),
                        1 => dropout_backward::aclnnDropoutBackwardGetWorkspaceSize(
                            x.t, mask.t, scale, o2.t, &mut ws, &mut ex,
                        ),
                        _ => dropout_v3_grad::aclnnDropoutV3GradGetWorkspaceSize(
                            x.t, mask.t, scale, o2.t, &mut ws, &mut ex,
                        ),
                    }
                };
                let phase2: super::gather_diff::Phase2 = [
                    dropout_do_mask::aclnnDropoutDoMask,
                    dropout_backward::aclnnDropoutBackward,
                    dropout_v3_grad::aclnnDropoutV3Grad,
                ][op];
                ok(st, ws, ex, phase2);
                let again = read(&o2);
                assert_eq!(
                    again, got,
                    "case {case} op {op} applies the mask as Dropout did"
                );
            }
        }
    }
    // Errors: p out of range, a wrong mask length, V3's offset % 4, DropoutBackward's scale.
    let x = T::index(&mut rng, F32, &[10], &[1; 10]);
    let out = view(&mut rng, F32, &[10]);
    let mask = view(&mut rng, U8, &[16]);
    let bad = view(&mut rng, U8, &[8]);
    let (mut ws, mut ex) = (0u64, null_mut());
    unsafe {
        assert_eq!(
            dropout::aclnnDropoutGetWorkspaceSize(
                x.t, 1.5, true, 0, 0, out.t, mask.t, &mut ws, &mut ex
            ),
            161002
        );
        assert_eq!(
            dropout::aclnnDropoutGetWorkspaceSize(
                x.t, 0.5, true, 0, 0, out.t, bad.t, &mut ws, &mut ex
            ),
            161002
        );
        assert_eq!(
            dropout::aclnnDropoutGetWorkspaceSize(
                x.t,
                0.5,
                true,
                0,
                0,
                out.t,
                null_mut(),
                &mut ws,
                &mut ex
            ),
            161001
        );
        assert_eq!(
            dropout_v3::aclnnDropoutV3GetWorkspaceSize(
                x.t,
                null(),
                0.5,
                0,
                2,
                out.t,
                mask.t,
                &mut ws,
                &mut ex
            ),
            161002
        );
        assert!(err().contains("multiple of 4"), "{}", err());
        assert_eq!(
            dropout_backward::aclnnDropoutBackwardGetWorkspaceSize(
                x.t, mask.t, 0.5, out.t, &mut ws, &mut ex
            ),
            161002
        );
        assert_eq!(
            dropout_do_mask::aclnnDropoutDoMaskGetWorkspaceSize(
                x.t, bad.t, 0.5, out.t, &mut ws, &mut ex
            ),
            161002
        );
    }
}

#[test]
fn same_seed_and_offset_give_the_same_bits_and_other_offsets_others() {
    device();
    let mut rng = Rng::new(0x5eed);
    let a = view(&mut rng, F32, &[64, 64]);
    let b = view(&mut rng, F32, &[64, 64]);
    let c = view(&mut rng, F32, &[64, 64]);
    let (mut ws, mut ex) = (0u64, null_mut());
    for (t, off) in [(&a, 8i64), (&b, 8), (&c, 12)] {
        let st = unsafe {
            normal::aclnnInplaceNormalGetWorkspaceSize(t.t, 0.0, 1.0, 99, off, &mut ws, &mut ex)
        };
        ok(st, ws, ex, normal::aclnnInplaceNormal);
    }
    let (ra, rb, rc) = (read(&a), read(&b), read(&c));
    assert_eq!(
        ra, rb,
        "same seed and offset, different layouts: same values"
    );
    assert!(
        ra.iter().zip(&rc).filter(|(x, y)| x == y).count() < 4,
        "another offset draws other values"
    );
    // The tensor form reads seed and offsetTensor + offset at run time.
    let s = word(&mut rng, 99);
    let o = word(&mut rng, 5);
    let st = unsafe {
        normal::aclnnInplaceNormalTensorGetWorkspaceSize(
            c.t, 0.0, 1.0, s.t, o.t, 3, &mut ws, &mut ex,
        )
    };
    ok(st, ws, ex, normal::aclnnInplaceNormalTensor);
    assert_eq!(read(&c), ra);
    // Errors of the normal forms.
    unsafe {
        assert_eq!(
            normal::aclnnInplaceNormalGetWorkspaceSize(a.t, 0.0, -1.0, 0, 0, &mut ws, &mut ex),
            161002
        );
        assert_eq!(
            normal::aclnnInplaceNormalGetWorkspaceSize(null(), 0.0, 1.0, 0, 0, &mut ws, &mut ex),
            161001
        );
        let i = view(&mut rng, S32, &[4]);
        assert_eq!(
            normal::aclnnInplaceNormalGetWorkspaceSize(i.t, 0.0, 1.0, 0, 0, &mut ws, &mut ex),
            161002
        );
        let two = T::index(&mut rng, S64, &[2], &[1, 2]);
        assert_eq!(
            normal::aclnnInplaceNormalTensorGetWorkspaceSize(
                a.t, 0.0, 1.0, two.t, o.t, 0, &mut ws, &mut ex
            ),
            161002
        );
        let m = view(&mut rng, F32, &[3]);
        assert_eq!(
            normal_out::aclnnNormalTensorFloatGetWorkspaceSize(
                m.t, 1.0, 0, 0, a.t, &mut ws, &mut ex
            ),
            161002
        );
        assert_eq!(
            uniform::aclnnInplaceUniformGetWorkspaceSize(a.t, 2.0, 1.0, 0, 0, &mut ws, &mut ex),
            161002
        );
        let u8t = view(&mut rng, U8, &[4]);
        assert_eq!(
            uniform::aclnnInplaceUniformGetWorkspaceSize(u8t.t, -1.0, 1.0, 0, 0, &mut ws, &mut ex),
            161002
        );
        assert_eq!(
            random::aclnnInplaceRandomGetWorkspaceSize(u8t.t, 0, 300, 0, 0, &mut ws, &mut ex),
            161002
        );
        assert_eq!(
            random::aclnnInplaceRandomGetWorkspaceSize(u8t.t, 5, 5, 0, 0, &mut ws, &mut ex),
            161002
        );
        let mut pv = 0.5f32;
        let prob = aclCreateScalar(&mut pv as *mut f32 as *mut c_void, F32);
        assert_eq!(
            bernoulli::aclnnInplaceBernoulliGetWorkspaceSize(a.t, prob, 0, 2, &mut ws, &mut ex),
            161002
        );
        assert_eq!(
            bernoulli::aclnnBernoulliGetWorkspaceSize(a.t, prob, 0, 0, u8t.t, &mut ws, &mut ex),
            161002
        );
        aclDestroyScalar(prob);
    }
}

/// aclnnSetPytorchRandom keeps the mode aclnnGetPytorchRandom reports (0 until set) and
/// refuses anything but 0 and 1, the mode unchanged.
#[test]
fn set_pytorch_random_keeps_the_mode() {
    use crate::capi::ops::set_pytorch_random::{aclnnGetPytorchRandom, aclnnSetPytorchRandom};
    device();
    assert_eq!(unsafe { aclnnSetPytorchRandom(1) }, 0);
    assert_eq!(unsafe { aclnnGetPytorchRandom() }, 1);
    assert_eq!(unsafe { aclnnSetPytorchRandom(2) }, 161002);
    assert!(err().contains("pytorchRandom is 2"), "{}", err());
    assert_eq!(unsafe { aclnnGetPytorchRandom() }, 1);
    assert_eq!(unsafe { aclnnSetPytorchRandom(-1) }, 161002);
    assert_eq!(unsafe { aclnnSetPytorchRandom(0) }, 0);
    assert_eq!(unsafe { aclnnGetPytorchRandom() }, 0);
}
