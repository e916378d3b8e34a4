//! The single-tensor optimizers of CANN's optim/ (ApplyAdamW, ApplyAdamD, ApplyAdamax,
//! ApplyAdadelta, ApplyFtrl, ApplyGradientDescent) through their C entry points, against
//! a plain f64 loop of each documented formula (the inputs as the tensors hold them):
//! random shapes (0-d and empty too), strided, transposed and offset views on every side,
//! every dtype of each list, in-place and separate outputs, the attributes (amsgrad,
//! maximize, useNesterov). The library computes in f32 in the device kernel's order and
//! rounds each state once: within 1e-5 relative (of max(|x|, 1), the inputs' scale) of the
//! f64 formula in f32, 2 ulp of f16 (2e-3) and bf16 (1.6e-2). Also the documented errors.

use super::add_diff::Rng;
use super::foreach_diff::{device, err, random_shape, run, value_of, View};
use crate::capi::meta::*;
use crate::capi::ops::*;
use crate::dtype::DType;
use std::ffi::c_void;
use std::ptr::null_mut;

use DType::*;

/// `x` as a tensor of `d` holds it.
pub(super) fn rnd(d: DType, x: f64) -> f64 {
    match d {
        F16 => half::f16::from_f64(x).to_f64(),
        BF16 => half::bf16::from_f64(x).to_f64(),
        _ => x as f32 as f64,
    }
}

/// `n` values in [lo, hi] (steps of 1/512), as `d` holds them.
pub(super) fn gen(rng: &mut Rng, d: DType, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    let steps = ((hi - lo) * 512.0) as u64;
    (0..n)
        .map(|_| rnd(d, lo + rng.below(steps + 1) as f64 / 512.0))
        .collect()
}

pub(super) fn tol(d: DType) -> f64 {
    match d {
        F32 => 1e-5,
        F16 => 2e-3,
        _ => 1.6e-2,
    }
}

/// The view's elements against `want`, and nothing written outside it.
pub(super) fn check(what: &str, v: &View, want: &[f64]) {
    let (a, kept) = v.read();
    assert!(kept, "{what}: wrote outside the view");
    assert_eq!(a.numel(), want.len(), "{what}: element count");
    let rel = tol(v.dtype);
    for (i, &w) in want.iter().enumerate() {
        let g = value_of(v.dtype, a.elem(i));
        assert!(
            (g - w).abs() <= rel * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g} but the formula gives {w}"
        );
    }
}

/// A one-element tensor holding `x` as `d` does, and that value.
fn scalar(rng: &mut Rng, d: DType, x: f64) -> (View, f64) {
    let v = rnd(d, x);
    let shape: &[usize] = if rng.pct(30) { &[] } else { &[1] };
    (View::new(rng, d, shape, &[v]), v)
}

fn acl_scalar(x: f32) -> *mut aclScalar {
    let b = x.to_le_bytes();
    let s = unsafe { aclCreateScalar(b.as_ptr() as *mut c_void, F32 as i32) };
    assert!(!s.is_null());
    s
}

pub(super) fn shape_of(rng: &mut Rng, min_rank: usize) -> Vec<usize> {
    let mut s = random_shape(rng);
    while s.len() < min_rank {
        s.push(1 + rng.below(4) as usize);
    }
    s
}

pub(super) fn destroy(ts: &[*mut aclTensor]) {
    for &t in ts {
        aclDestroyTensor(t);
    }
}

#[test]
fn apply_adam_w_and_adam_d_match_the_formula() {
    device();
    let mut rng = Rng::new(0x0ad0);
    for case in 0..36 {
        let d = [F32, F16, BF16][case % 3];
        let adam_w = case % 2 == 0;
        let shape = shape_of(&mut rng, 0);
        let n: usize = shape.iter().product();
        let (var, grad, m) = (
            gen(&mut rng, d, n, -2.0, 2.0),
            gen(&mut rng, d, n, -2.0, 2.0),
            gen(&mut rng, d, n, -2.0, 2.0),
        );
        let (v, mx) = (gen(&mut rng, d, n, 0.0, 1.0), gen(&mut rng, d, n, 0.0, 1.0));
        let k = 1 + rng.below(5) as i32;
        let (b1p_v, b1p) = scalar(&mut rng, d, 0.9f64.powi(k));
        let (b2p_v, b2p) = scalar(&mut rng, d, 0.999f64.powi(k));
        let (lr_v, lr) = scalar(&mut rng, d, 0.25);
        let (wd_v, wd) = {
            let x = [0.0, 0.1][rng.below(2) as usize];
            scalar(&mut rng, d, x)
        };
        let (b1_v, b1) = scalar(&mut rng, d, 0.9);
        let (b2_v, b2) = {
            let x = [0.999, 0.95][rng.below(2) as usize];
            scalar(&mut rng, d, x)
        };
        let (eps_v, eps) = scalar(&mut rng, d, 1e-3);
        let mk = |rng: &mut Rng, x: &[f64]| View::new(rng, d, &shape, x);
        let views = [
            mk(&mut rng, &var),
            mk(&mut rng, &m),
            mk(&mut rng, &v),
            mk(&mut rng, &grad),
            mk(&mut rng, &mx),
        ];
        let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
        let sc: Vec<*mut aclTensor> = [&b1p_v, &b2p_v, &lr_v, &wd_v, &b1_v, &b2_v, &eps_v]
            .iter()
            .map(|x| x.tensor())
            .collect();
        let (ams, maxi, nest) = (rng.pct(50), rng.pct(30), rng.pct(50));
        let (mut ws, mut ex) = (0u64, null_mut());
        let what = format!(
            "case {case} {} {d} {shape:?} amsgrad {ams} maximize {maxi} nesterov {nest}",
            if adam_w { "ApplyAdamW" } else { "ApplyAdamD" }
        );
        // The outputs of ApplyAdamD: the inputs themselves (in place) or separate views.
        let in_place = rng.pct(40);
        let outs: Vec<View> = if adam_w || in_place {
            Vec::new()
        } else {
            (0..3).map(|_| mk(&mut rng, &vec![0.0; n])).collect()
        };
        let ot: Vec<*mut aclTensor> = if outs.is_empty() {
            views[..3].iter().map(|x| x.tensor()).collect()
        } else {
            outs.iter().map(|x| x.tensor()).collect()
        };
        if adam_w {
            let st = unsafe {
                apply_adam_w::aclnnApplyAdamWGetWorkspaceSize(
                    t[0],
                    t[1],
                    t[2],
                    sc[0],
                    sc[1],
                    sc[2],
                    sc[3],
                    sc[4],
                    sc[5],
                    sc[6],
                    t[3],
                    if ams { t[4] } else { null_mut() },
                    ams,
                    maxi,
                    &mut ws,
                    &mut ex,
                )
            };
            run(st, ws, ex, apply_adam_w::aclnnApplyAdamW, &what);
        } else {
            let st = unsafe {
                apply_adam_d::aclnnApplyAdamDGetWorkspaceSize(
                    t[0], t[1], t[2], sc[0], sc[1], sc[2], sc[4], sc[5], sc[6], t[3], false, nest,
                    ot[0], ot[1], ot[2], &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, apply_adam_d::aclnnApplyAdamD, &what);
        }
        let (mut wv, mut wm, mut wsq) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            if adam_w {
                let g = if maxi { -grad[i] } else { grad[i] };
                let m1 = b1 * m[i] + (1.0 - b1) * g;
                let v1 = b2 * v[i] + (1.0 - b2) * g * g;
                let vm = if ams { v1.max(mx[i]) } else { v1 };
                let (bc1, bc2) = (1.0 - b1p * b1, 1.0 - b2p * b2);
                wv[i] = var[i] * (1.0 - lr * wd) - lr / bc1 * m1 / ((vm / bc2).sqrt() + eps);
                wm[i] = m1;
                wsq[i] = v1;
            } else {
                let m1 = b1 * m[i] + (1.0 - b1) * grad[i];
                let v1 = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
                let lrt = lr * (1.0 - b2p).sqrt() / (1.0 - b1p);
                let num = if nest {
                    m1 * b1 + (1.0 - b1) * grad[i]
                } else {
                    m1
                };
                wv[i] = var[i] - lrt * num / (eps + v1.sqrt());
                wm[i] = m1;
                wsq[i] = v1;
            }
        }
        let read = |k: usize| if outs.is_empty() { &views[k] } else { &outs[k] };
        check(&format!("{what} var"), read(0), &wv);
        check(&format!("{what} m"), read(1), &wm);
        check(&format!("{what} v"), read(2), &wsq);
        if adam_w {
            check(&format!("{what} maxGradNorm unchanged"), &views[4], &mx);
        }
        check(&format!("{what} grad unchanged"), &views[3], &grad);
        destroy(&t);
        destroy(&sc);
        destroy(&ot);
    }
}

#[test]
fn apply_adamax_and_adadelta_match_the_formula() {
    device();
    let mut rng = Rng::new(0x0ada);
    for case in 0..24 {
        let d = [F32, F16][case % 2];
        let adamax = (case / 2) % 2 == 0;
        let shape = shape_of(&mut rng, 1);
        let n: usize = shape.iter().product();
        let var = gen(&mut rng, d, n, -2.0, 2.0);
        let grad = gen(&mut rng, d, n, -2.0, 2.0);
        let s1 = gen(&mut rng, d, n, if adamax { -2.0 } else { 0.0 }, 1.0);
        let s2 = gen(&mut rng, d, n, 0.0, 1.0);
        let mk = |rng: &mut Rng, x: &[f64]| View::new(rng, d, &shape, x);
        let views = [
            mk(&mut rng, &var),
            mk(&mut rng, &s1),
            mk(&mut rng, &s2),
            mk(&mut rng, &grad),
        ];
        let in_place = rng.pct(40);
        let outs: Vec<View> = if in_place {
            Vec::new()
        } else {
            (0..3).map(|_| mk(&mut rng, &vec![0.0; n])).collect()
        };
        let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
        let ot: Vec<*mut aclTensor> = if in_place {
            views[..3].iter().map(|x| x.tensor()).collect()
        } else {
            outs.iter().map(|x| x.tensor()).collect()
        };
        let what = format!(
            "case {case} {} {d} {shape:?} in place {in_place}",
            if adamax {
                "ApplyAdamax"
            } else {
                "ApplyAdadelta"
            }
        );
        let (mut ws, mut ex) = (0u64, null_mut());
        let (mut w0, mut w1, mut w2) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        if adamax {
            let k = 1 + rng.below(5) as i32;
            let (b1p, lr, b1, b2, eps) = (0.9f32.powi(k), 0.25f32, 0.9f32, 0.99f32, 1e-3f32);
            let s: Vec<*mut aclScalar> = [b1p, lr, b1, b2, eps].map(acl_scalar).to_vec();
            let st = unsafe {
                apply_adamax::aclnnApplyAdamaxGetWorkspaceSize(
                    t[0], t[1], t[2], s[0], s[1], s[2], s[3], s[4], t[3], ot[0], ot[1], ot[2],
                    &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, apply_adamax::aclnnApplyAdamax, &what);
            for x in s {
                aclDestroyScalar(x);
            }
            let [b1p, lr, b1, b2, eps] = [b1p, lr, b1, b2, eps].map(|x| x as f64);
            for i in 0..n {
                let m1 = b1 * s1[i] + (1.0 - b1) * grad[i];
                let u = (b2 * s2[i]).max(grad[i].abs());
                w0[i] = var[i] - lr / (1.0 - b1p) * m1 / (u + eps);
                w1[i] = m1;
                w2[i] = u;
            }
        } else {
            let (lr, rho, eps) = (0.5f32, [0.9f32, 0.5][rng.below(2) as usize], 1e-2f32);
            let s: Vec<*mut aclScalar> = [lr, rho, eps].map(acl_scalar).to_vec();
            let st = unsafe {
                apply_adadelta::aclnnApplyAdadeltaGetWorkspaceSize(
                    t[0], t[1], t[2], s[0], s[1], s[2], t[3], ot[0], ot[1], ot[2], &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, apply_adadelta::aclnnApplyAdadelta, &what);
            for x in s {
                aclDestroyScalar(x);
            }
            let [lr, rho, eps] = [lr, rho, eps].map(|x| x as f64);
            for i in 0..n {
                let acc = rho * s1[i] + (1.0 - rho) * grad[i] * grad[i];
                let upd = (s2[i] + eps).sqrt() / (acc + eps).sqrt() * grad[i];
                w0[i] = var[i] - lr * upd;
                w1[i] = acc;
                w2[i] = rho * s2[i] + (1.0 - rho) * upd * upd;
            }
        }
        let read = |k: usize| if in_place { &views[k] } else { &outs[k] };
        check(&format!("{what} var"), read(0), &w0);
        check(&format!("{what} state 1"), read(1), &w1);
        check(&format!("{what} state 2"), read(2), &w2);
        if !in_place {
            check(&format!("{what} var unchanged"), &views[0], &var);
        }
        destroy(&t);
        destroy(&ot);
    }
}

#[test]
fn apply_ftrl_and_gradient_descent_match_the_formula() {
    device();
    let mut rng = Rng::new(0xf721);
    for case in 0..30 {
        let d = [F32, F16, BF16][case % 3];
        let ftrl = (case / 3) % 2 == 0;
        let shape = shape_of(&mut rng, if ftrl { 0 } else { 1 });
        let n: usize = shape.iter().product();
        let var = gen(&mut rng, d, n, -2.0, 2.0);
        let grad = gen(&mut rng, d, n, -2.0, 2.0);
        let mk = |rng: &mut Rng, x: &[f64]| View::new(rng, d, &shape, x);
        let what = format!(
            "case {case} {} {d} {shape:?}",
            if ftrl {
                "ApplyFtrl"
            } else {
                "ApplyGradientDescent"
            }
        );
        let (mut ws, mut ex) = (0u64, null_mut());
        if ftrl {
            let accum = gen(&mut rng, d, n, 0.125, 1.0);
            let linear = gen(&mut rng, d, n, -2.0, 2.0);
            let views = [
                mk(&mut rng, &var),
                mk(&mut rng, &accum),
                mk(&mut rng, &linear),
                mk(&mut rng, &grad),
            ];
            let (lr_v, lr) = scalar(&mut rng, d, 0.5);
            let (l1_v, l1) = {
                let x = [0.0, 0.25, 1.5][rng.below(3) as usize];
                scalar(&mut rng, d, x)
            };
            let (l2_v, l2) = {
                let x = [0.0, 0.125][rng.below(2) as usize];
                scalar(&mut rng, d, x)
            };
            let (p_v, p) = {
                let x = [-0.5, -0.25][rng.below(2) as usize];
                scalar(&mut rng, d, x)
            };
            let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
            let sc: Vec<*mut aclTensor> = [&lr_v, &l1_v, &l2_v, &p_v]
                .iter()
                .map(|x| x.tensor())
                .collect();
            let st = unsafe {
                apply_ftrl::aclnnApplyFtrlGetWorkspaceSize(
                    t[0], t[1], t[2], t[3], sc[0], sc[1], sc[2], sc[3], false, &mut ws, &mut ex,
                )
            };
            run(st, ws, ex, apply_ftrl::aclnnApplyFtrl, &what);
            let (mut w0, mut w1, mut w2) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            for i in 0..n {
                let acc = accum[i] + grad[i] * grad[i];
                let (pn, po) = (acc.powf(-p), accum[i].powf(-p));
                let lin = linear[i] + grad[i] - (pn - po) / lr * var[i];
                let quad = pn / lr + 2.0 * l2;
                w0[i] = if lin.abs() > l1 {
                    (lin.signum() * l1 - lin) / quad
                } else {
                    0.0
                };
                w1[i] = acc;
                w2[i] = lin;
            }
            check(&format!("{what} var"), &views[0], &w0);
            check(&format!("{what} accum"), &views[1], &w1);
            check(&format!("{what} linear"), &views[2], &w2);
            destroy(&t);
            destroy(&sc);
        } else {
            let views = [mk(&mut rng, &var), mk(&mut rng, &grad)];
            let (a_v, alpha) = scalar(&mut rng, d, 0.375);
            let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
            let at = a_v.tensor();
            let st = unsafe {
                apply_gradient_descent::aclnnApplyGradientDescentGetWorkspaceSize(
                    t[0], at, t[1], &mut ws, &mut ex,
                )
            };
            run(
                st,
                ws,
                ex,
                apply_gradient_descent::aclnnApplyGradientDescent,
                &what,
            );
            let want: Vec<f64> = (0..n).map(|i| var[i] - alpha * grad[i]).collect();
            check(&format!("{what} var"), &views[0], &want);
            destroy(&t);
            destroy(&[at]);
        }
    }
}

#[test]
fn single_tensor_optimizers_refuse_bad_calls_with_a_message() {
    device();
    let mut rng = Rng::new(0xe770);
    let mk = |rng: &mut Rng, d: DType, shape: &[usize]| {
        let n: usize = shape.iter().product();
        View::new(rng, d, shape, &vec![0.5; n])
    };
    let (mut ws, mut ex) = (0u64, null_mut());
    let x: Vec<View> = (0..5).map(|_| mk(&mut rng, F32, &[2, 3])).collect();
    let t: Vec<*mut aclTensor> = x.iter().map(|v| v.tensor()).collect();
    let s: Vec<View> = (0..7).map(|_| mk(&mut rng, F32, &[1])).collect();
    let sc: Vec<*mut aclTensor> = s.iter().map(|v| v.tensor()).collect();
    let h16 = mk(&mut rng, F16, &[2, 3]);
    let t16 = h16.tensor();
    let wide = mk(&mut rng, F32, &[2]);
    let tw = wide.tensor();
    let other = mk(&mut rng, F32, &[3, 2]);
    let to = other.tensor();
    let expect = |st: aclnnStatus, code: aclnnStatus, words: &[&str]| {
        assert_eq!(st, code, "{}", err());
        let e = err();
        for w in words {
            assert!(e.contains(w), "'{w}' not in: {e}");
        }
    };
    // ApplyAdamW: amsgrad without maxGradNormOptional (NULLPTR), grad of another dtype,
    // a two-element lr, mRef of another shape, grad sharing varRef.
    let adam_w = |a: [*mut aclTensor; 12], ams: bool, ws: &mut u64, ex: &mut *mut aclOpExecutor| unsafe {
        apply_adam_w::aclnnApplyAdamWGetWorkspaceSize(
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], ams, false,
            ws, ex,
        )
    };
    let base = [
        t[0], t[1], t[2], sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6], t[3], t[4],
    ];
    let mut a = base;
    a[11] = null_mut();
    expect(
        adam_w(a, true, &mut ws, &mut ex),
        161001,
        &["maxGradNormOptional", "amsgrad"],
    );
    let mut a = base;
    a[10] = t16;
    expect(
        adam_w(a, false, &mut ws, &mut ex),
        161002,
        &["grad", "dtype"],
    );
    let mut a = base;
    a[5] = tw;
    expect(
        adam_w(a, false, &mut ws, &mut ex),
        161002,
        &["lr", "one element"],
    );
    let mut a = base;
    a[1] = to;
    expect(
        adam_w(a, false, &mut ws, &mut ex),
        161002,
        &["mRef", "shape"],
    );
    let mut a = base;
    a[10] = t[0];
    expect(
        adam_w(a, false, &mut ws, &mut ex),
        161002,
        &["grad", "shares memory"],
    );
    // ApplyAdamD: two outputs on one tensor.
    let st = unsafe {
        apply_adam_d::aclnnApplyAdamDGetWorkspaceSize(
            t[0], t[1], t[2], sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], t[3], false, false, t[4],
            t[4], t[2], &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["share memory"]);
    // ApplyAdamax: beta1 out of [0, 1), a 0-d var, bf16.
    let sv = |v: f32| acl_scalar(v);
    let (b1p, lr, b1, b2, eps) = (sv(0.5), sv(0.1), sv(1.0), sv(0.9), sv(1e-3));
    let st = unsafe {
        apply_adamax::aclnnApplyAdamaxGetWorkspaceSize(
            t[0], t[1], t[2], b1p, lr, b1, b2, eps, t[3], t[0], t[1], t[2], &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["beta1", "[0, 1)"]);
    let z = mk(&mut rng, F32, &[]);
    let zt = z.tensor();
    let st = unsafe {
        apply_adamax::aclnnApplyAdamaxGetWorkspaceSize(
            zt, zt, zt, b1p, lr, b2, b2, eps, zt, zt, zt, zt, &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["var", "0-d"]);
    let hb = mk(&mut rng, BF16, &[2, 3]);
    let tb = hb.tensor();
    let st = unsafe {
        apply_adamax::aclnnApplyAdamaxGetWorkspaceSize(
            tb, tb, tb, b1p, lr, b2, b2, eps, tb, tb, tb, tb, &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["var", "ACL_BF16"]);
    // ApplyAdadelta: epsilon 0.
    let zero = sv(0.0);
    let st = unsafe {
        apply_adadelta::aclnnApplyAdadeltaGetWorkspaceSize(
            t[0], t[1], t[2], lr, b2, zero, t[3], t[0], t[1], t[2], &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["epsilon", "> 0"]);
    for p in [b1p, lr, b1, b2, eps, zero] {
        aclDestroyScalar(p);
    }
    // ApplyFtrl: an f16 lr for f32 var; ApplyGradientDescent: a NULL alpha, delta of
    // another shape.
    let h1 = mk(&mut rng, F16, &[1]);
    let th1 = h1.tensor();
    let st = unsafe {
        apply_ftrl::aclnnApplyFtrlGetWorkspaceSize(
            t[0], t[1], t[2], t[3], th1, sc[1], sc[2], sc[3], false, &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["lr", "FLOAT"]);
    let st = unsafe {
        apply_gradient_descent::aclnnApplyGradientDescentGetWorkspaceSize(
            t[0],
            null_mut(),
            t[1],
            &mut ws,
            &mut ex,
        )
    };
    expect(st, 161001, &["alpha"]);
    let st = unsafe {
        apply_gradient_descent::aclnnApplyGradientDescentGetWorkspaceSize(
            t[0], sc[0], to, &mut ws, &mut ex,
        )
    };
    expect(st, 161002, &["delta", "shape"]);
    destroy(&t);
    destroy(&sc);
    destroy(&[t16, tw, to, zt, tb, th1]);
}
