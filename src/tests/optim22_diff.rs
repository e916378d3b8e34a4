//! aclnnApplyFusedEmaAdam through its C entry points against a plain f64 loop of the
//! documented formula (the inputs and attributes as the device holds them: tensors as
//! stored, the double attributes as f32): random shapes (empty too), strided, transposed
//! and offset views, f32/f16/bf16, both modes, with and without bias correction, a 0-d or
//! [1] step. The library computes in f32 in the kernel's order and rounds each state once:
//! within 1e-5 relative (of max(|x|, 1)) for f32, 2e-3 for f16, 1.6e-2 for bf16. Also the
//! documented errors.

use super::add_diff::Rng;
use super::foreach_diff::{device, err, run, View};
use super::optim_diff::{check, destroy, gen, shape_of};
use crate::capi::meta::*;
use crate::capi::ops::*;
use crate::dtype::DType;
use std::ptr::null_mut;

use DType::*;

#[test]
fn apply_fused_ema_adam_matches_the_formula() {
    device();
    let mut rng = Rng::new(0xe3a0);
    for case in 0..48 {
        let d = [F32, F16, BF16][case % 3];
        let mode = ((case / 3) % 2) as i64;
        let bias = case % 4 < 2;
        let shape = shape_of(&mut rng, 1);
        let n: usize = shape.iter().product();
        let (var, grad, m, s) = (
            gen(&mut rng, d, n, -2.0, 2.0),
            gen(&mut rng, d, n, -2.0, 2.0),
            gen(&mut rng, d, n, -2.0, 2.0),
            gen(&mut rng, d, n, -2.0, 2.0),
        );
        let v = gen(&mut rng, d, n, 0.0, 1.0);
        let step = 1 + rng.below(20) as i64;
        let lr = [1e-3, 0.25, 0.1][rng.below(3) as usize];
        let ema = [0.5, 0.999, 0.9][rng.below(3) as usize];
        let b1 = [0.9, 0.8][rng.below(2) as usize];
        let b2 = [0.999, 0.95][rng.below(2) as usize];
        let eps = [1e-8, 1e-3][rng.below(2) as usize];
        let wd = [0.0, 0.5, 0.01][rng.below(3) as usize];
        let mk = |rng: &mut Rng, x: &[f64]| View::new(rng, d, &shape, x);
        let views = [
            mk(&mut rng, &grad),
            mk(&mut rng, &var),
            mk(&mut rng, &m),
            mk(&mut rng, &v),
            mk(&mut rng, &s),
        ];
        let st_shape: &[usize] = if rng.pct(30) { &[] } else { &[1] };
        let stv = View::new(&mut rng, S64, st_shape, &[step as f64]);
        let t: Vec<*mut aclTensor> = views.iter().map(|x| x.tensor()).collect();
        let ts = stv.tensor();
        let what = format!(
            "case {case} {d} {shape:?} mode {mode} bias {bias} step {step} lr {lr} ema {ema} b1 {b1} b2 {b2} eps {eps} wd {wd}"
        );
        let (mut ws, mut ex) = (0u64, null_mut());
        let st = unsafe {
            apply_fused_ema_adam::aclnnApplyFusedEmaAdamGetWorkspaceSize(
                t[0], t[1], t[2], t[3], t[4], ts, lr, ema, b1, b2, eps, mode, bias, wd, &mut ws,
                &mut ex,
            )
        };
        run(
            st,
            ws,
            ex,
            apply_fused_ema_adam::aclnnApplyFusedEmaAdam,
            &what,
        );
        // The attributes as the device uses them (f32).
        let f = |x: f64| x as f32 as f64;
        let (lr, ema, b1, b2, eps, wd) = (f(lr), f(ema), f(b1), f(b2), f(eps), f(wd));
        let (c1, c2) = if bias {
            (1.0 - b1.powi(step as i32), 1.0 - b2.powi(step as i32))
        } else {
            (1.0, 1.0)
        };
        let (mut wv, mut wm, mut wsq, mut we) =
            (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            let g = if mode == 0 {
                grad[i] + wd * var[i]
            } else {
                grad[i]
            };
            let m1 = b1 * m[i] + (1.0 - b1) * g;
            let v1 = b2 * v[i] + (1.0 - b2) * g * g;
            let mut u = (m1 / c1) / ((v1 / c2).sqrt() + eps);
            if mode == 1 {
                u += wd * var[i];
            }
            wv[i] = var[i] - lr * u;
            wm[i] = m1;
            wsq[i] = v1;
            we[i] = ema * s[i] + (1.0 - ema) * wv[i];
        }
        check(&format!("{what} varRef"), &views[1], &wv);
        check(&format!("{what} mRef"), &views[2], &wm);
        check(&format!("{what} vRef"), &views[3], &wsq);
        check(&format!("{what} sRef"), &views[4], &we);
        destroy(&t);
        destroy(&[ts]);
    }
}

#[test]
fn apply_fused_ema_adam_refuses_bad_calls_with_a_message() {
    device();
    let mut rng = Rng::new(0xe3a1);
    let mk = |rng: &mut Rng, d: DType, shape: &[usize]| {
        let n: usize = shape.iter().product();
        View::new(rng, d, shape, &vec![0.5; n])
    };
    let x: Vec<View> = (0..5).map(|_| mk(&mut rng, F32, &[2, 3])).collect();
    let t: Vec<*mut aclTensor> = x.iter().map(|v| v.tensor()).collect();
    let step = mk(&mut rng, S64, &[1]);
    let ts = step.tensor();
    let fstep = mk(&mut rng, F32, &[1]);
    let tfs = fstep.tensor();
    let wide = mk(&mut rng, S64, &[2]);
    let tw = wide.tensor();
    let h16 = mk(&mut rng, F16, &[2, 3]);
    let t16 = h16.tensor();
    let other = mk(&mut rng, F32, &[3, 2]);
    let to = other.tensor();
    let i32s = mk(&mut rng, S32, &[2, 3]);
    let ti = i32s.tensor();
    let z = mk(&mut rng, F32, &[]);
    let tz = z.tensor();
    let call = |a: [*mut aclTensor; 6], mode: i64| {
        let (mut ws, mut ex) = (0u64, null_mut());
        unsafe {
            apply_fused_ema_adam::aclnnApplyFusedEmaAdamGetWorkspaceSize(
                a[0], a[1], a[2], a[3], a[4], a[5], 1e-3, 0.5, 0.9, 0.999, 1e-8, mode, true, 0.5,
                &mut ws, &mut ex,
            )
        }
    };
    let expect = |st: aclnnStatus, code: aclnnStatus, words: &[&str]| {
        assert_eq!(st, code, "{}", err());
        let e = err();
        for w in words {
            assert!(e.contains(w), "'{w}' not in: {e}");
        }
    };
    let base = [t[0], t[1], t[2], t[3], t[4], ts];
    for k in 0..6 {
        let mut a = base;
        a[k] = null_mut();
        expect(call(a, 1), 161001, &[]);
    }
    let mut a = base;
    a[3] = t16;
    expect(call(a, 1), 161002, &["vRef", "dtype"]);
    let mut a = base;
    a[4] = to;
    expect(call(a, 0), 161002, &["sRef", "shape"]);
    expect(call([ti, ti, ti, ti, ti, ts], 1), 161002, &["grad"]);
    expect(call([tz, tz, tz, tz, tz, ts], 1), 161002, &["grad", "0-d"]);
    let mut a = base;
    a[5] = tfs;
    expect(call(a, 1), 161002, &["step", "INT64"]);
    let mut a = base;
    a[5] = tw;
    expect(call(a, 1), 161002, &["step", "one element"]);
    expect(call(base, 2), 161002, &["mode", "2"]);
    let mut a = base;
    a[0] = t[1];
    expect(call(a, 1), 161002, &["grad", "shares memory"]);
    destroy(&t);
    destroy(&[ts, tfs, tw, t16, to, ti, tz]);
}
