//! Differential tests of the remaining neural-network operators (issue 18): the point-wise
//! and binary activations (Selu, LogSigmoid, Shrink, Erfinv, RReluWithNoise, Hardtanh,
//! AddRelu, Heaviside, FatreluMul), called through their rules on random views.
//!
//! The reference is PyTorch computing in f64 on the exact input values (`torch_ref`), or a
//! plain f64 model where the device's documented behaviour is not torch's (integer Selu,
//! AddRelu's f32 arithmetic). Bounds as in nn_diff.rs: 1 ulp of the compute dtype at the
//! reference (+ a tiny absolute term for results below f64's resolution of the formula);
//! NaN must be NaN, infinities equal, integers exact.

use super::add_diff::Rng;
use super::nn_diff::{
    close, f32s, fill, num, rand_shape, rand_value, rand_view, round_to, run, torch_values, ulp, T,
};
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::error::Result;
use crate::executor::Executor;
use crate::ops::activation as act;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

// ---------------------------------------------------------------------------------------
// Point-wise activations
// ---------------------------------------------------------------------------------------

struct Op {
    name: &'static str,
    dtypes: &'static [DType],
    inplace: bool,
    torch: &'static str,
}

const OPS: &[Op] = &[
    Op {
        name: "selu",
        dtypes: &[F32, F16, BF16],
        inplace: true,
        torch: "out = F.selu(a[0])",
    },
    Op {
        name: "log_sigmoid",
        dtypes: &[F32, F16, BF16],
        inplace: false,
        torch: "out = F.logsigmoid(a[0])",
    },
    Op {
        name: "shrink",
        dtypes: &[F32, F16],
        inplace: false,
        torch: "l = a[1].item(); b = a[2].item(); x = a[0]\n\
                out = torch.where(x > l, x - b, torch.where(x < -l, x + b, torch.zeros_like(x)))",
    },
    Op {
        name: "erfinv",
        dtypes: &[F32, F16, BF16, S32, S8, U8, Bool],
        inplace: true,
        torch: "out = torch.erfinv(a[0].double())",
    },
    Op {
        name: "rrelu",
        dtypes: &[F32, F16, BF16],
        inplace: true,
        torch: "out = F.leaky_relu(a[0], a[1].item())",
    },
    Op {
        name: "hardtanh",
        dtypes: &[F32, F16, BF16, F64, S8, U8, S16, S32, S64],
        inplace: true,
        torch: "out = torch.clamp(a[0], a[1].item(), a[2].item())",
    },
];

fn plan(name: &str, x: &TensorDesc, at: &[f64], out: Option<&TensorDesc>) -> Result<Executor> {
    let s: Vec<Scalar> = at.iter().map(|&v| f32s(v)).collect();
    match (name, out) {
        ("selu", Some(o)) => act::selu(x, o),
        ("selu", None) => act::inplace_selu(x),
        ("log_sigmoid", Some(o)) => act::log_sigmoid(x, o),
        ("shrink", Some(o)) => act::shrink(x, &s[0], &s[1], o),
        ("erfinv", Some(o)) => act::erfinv(x, o),
        ("erfinv", None) => act::inplace_erfinv(x),
        ("rrelu", o) => {
            // (the noise is not read in the inference form: any view of the dtype will do)
            let noise = T::contiguous(x.dtype, &[1]);
            match o {
                Some(o) => act::rrelu_with_noise(x, &noise.desc, &s[0], &s[1], false, 0, 0, o),
                None => act::inplace_rrelu_with_noise(x, &noise.desc, &s[0], &s[1], false, 0, 0),
            }
        }
        ("hardtanh", Some(o)) => act::hardtanh(x, &s[0], &s[1], o),
        ("hardtanh", None) => act::inplace_hardtanh(x, &s[0], &s[1]),
        _ => unreachable!("{name}"),
    }
}

fn attrs(rng: &mut Rng, name: &str, d: DType) -> Vec<f64> {
    let mut r = |lo: f64, hi: f64| lo + (hi - lo) * (rng.below(1024) as f64 / 1024.0);
    match name {
        "shrink" => vec![r(0.0, 2.0), r(-1.0, 1.0)],
        "rrelu" => vec![r(0.0, 0.5), r(0.25, 1.0)],
        "hardtanh" if d == U8 => {
            let lo = r(0.0, 4.0).round();
            vec![lo, lo + r(0.0, 5.0).round()]
        }
        "hardtanh" if d.is_int() => {
            let lo = r(-5.0, 2.0).round();
            vec![lo, lo + r(0.0, 6.0).round()]
        }
        "hardtanh" => {
            let lo = (r(-3.0, 1.0) * 8.0).round() / 8.0;
            vec![lo, lo + (r(0.0, 3.0) * 8.0).round() / 8.0]
        }
        _ => vec![],
    }
}

/// A value of `d` for Erfinv: mostly inside (−1, 1), sometimes ±1 or beyond.
fn erfinv_value(rng: &mut Rng, d: DType) -> f64 {
    if d == Bool {
        return rng.below(2) as f64;
    }
    if d.is_int() {
        return rng.below(5) as f64 - 2.0;
    }
    match rng.below(20) {
        0 => 1.0,
        1 => -1.0,
        2 => 1.5,
        3 => f64::NAN,
        4 => 1.0 - 1e-7 * rng.below(100) as f64,
        _ => (rng.below(1 << 20) as f64 / (1 << 19) as f64) - 1.0,
    }
}

#[test]
fn nnrest_pointwise_activations_match_torch() {
    let mut rng = Rng::new(0x6e72_0001);
    let mut batch = Batch::new();
    let mut checks = Vec::new();
    for op in OPS {
        let prog = batch.program(&format!(
            "a = [x.double() if x is not None and x.is_floating_point() else x for x in a]\n{}",
            op.torch
        ));
        for case in 0..60 {
            let d = rng.pick(op.dtypes);
            let shape = rand_shape(&mut rng, 4);
            let mut x = rand_view(&mut rng, d, &shape, 2);
            if op.name == "erfinv" {
                for i in 0..shape.iter().product::<usize>() {
                    let v = erfinv_value(&mut rng, d);
                    x.set(i, v);
                }
            } else {
                fill(&mut rng, &mut x);
            }
            let at = attrs(&mut rng, op.name, d);
            let xs = x.values();
            let inplace = op.inplace && case % 3 == 0 && (op.name != "erfinv" || d.is_float());
            let out_d = match op.name {
                "log_sigmoid" | "rrelu" | "hardtanh" => d,
                "erfinv" if !d.is_float() => rng.pick(&[F32, F16, BF16]),
                "shrink" => rng.pick(&[F32, F16]),
                _ => rng.pick(&[d, d, F32]),
            };
            let got = if inplace {
                run(plan(op.name, &x.desc, &at, None).unwrap());
                x.values()
            } else {
                let o = rand_view(&mut rng, out_d, &shape, 2);
                run(plan(op.name, &x.desc, &at, Some(&o.desc)).unwrap());
                assert!(o.outside_untouched(), "{}: wrote outside out", op.name);
                o.values()
            };
            let mut inputs = vec![Some(if d.is_int() || d == Bool {
                Array::i64s(&shape, &xs.iter().map(|&v| v as i64).collect::<Vec<_>>())
            } else {
                Array::f64s(&shape, &xs)
            })];
            let at_torch: Vec<f64> = if op.name == "rrelu" {
                vec![((at[0] as f32 + at[1] as f32) / 2.0) as f64]
            } else {
                at.iter().map(|&v| v as f32 as f64).collect()
            };
            inputs.extend(at_torch.iter().map(|&v| num(v)));
            let c = batch.case(prog, inputs);
            let out_d = if inplace { d } else { out_d };
            checks.push((c, op.name, d, out_d, got, xs));
        }
    }
    let Some(results) = batch.run("nnrest_pointwise_activations_match_torch") else {
        return;
    };
    for (c, name, d, out_d, got, xs) in checks {
        let want = results[c]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: torch: {e}"));
        // Computed in self's dtype (integers and bool: f32 for Erfinv), then converted.
        let cd = if d.is_float() { d } else { F32 };
        let cd = if name == "hardtanh" { d } else { cd };
        let want: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&w| round_to(out_d, round_to(cd, w)))
            .collect();
        let abs: Vec<f64> = xs.iter().map(|x| 1e-15 * (1.0 + x.abs())).collect();
        close(name, cd, &got, &want, 1.0, &abs);
    }
}

/// Selu of int8/int32: the f32 result truncated into self's dtype, then converted.
#[test]
fn nnrest_selu_of_integers_truncates() {
    for d in [S32, S8] {
        let mut x = T::contiguous(d, &[7]);
        let xs = [-10.0, -2.0, -1.0, 0.0, 1.0, 3.0, 100.0];
        for (i, &v) in xs.iter().enumerate() {
            x.set(i, v);
        }
        let o = T::contiguous(F32, &[7]);
        run(act::selu(&x.desc, &o.desc).unwrap());
        let scale = 1.050_700_987_355_480_5f64;
        let alpha = 1.673_263_242_354_377_3f64;
        let want: Vec<f64> = xs
            .iter()
            .map(|&v: &f64| {
                let y = if v > 0.0 {
                    scale * v
                } else {
                    scale * alpha * v.exp_m1()
                };
                (y as f32).trunc() as f64
            })
            .collect();
        assert_eq!(o.values(), want, "selu of {d}");
    }
}

unsafe extern "C" {
    fn erf(x: f64) -> f64;
}

/// Erfinv at its special points, and against erf over (−1, 1): erf at the result's two f32
/// neighbours brackets the input (the result is within 1 ulp of the exact erf⁻¹).
#[test]
fn nnrest_erfinv_special_points() {
    let mut x = T::contiguous(F32, &[6]);
    for (i, v) in [1.0, -1.0, 0.0, -0.0, 2.0, f64::NAN].iter().enumerate() {
        x.set(i, *v);
    }
    let o = T::contiguous(F32, &[6]);
    run(act::erfinv(&x.desc, &o.desc).unwrap());
    let g = o.values();
    assert_eq!(g[0], f64::INFINITY);
    assert_eq!(g[1], f64::NEG_INFINITY);
    assert!(g[2] == 0.0 && g[2].is_sign_positive());
    assert!(g[3] == 0.0 && g[3].is_sign_negative());
    assert!(g[4].is_nan() && g[5].is_nan());
    let n = 4001;
    let mut t = T::contiguous(F32, &[n]);
    let vs: Vec<f64> = (0..n)
        .map(|k| {
            let v = -1.0 + 2.0 * (k as f64 + 0.5) / n as f64;
            // and some very close to ±1
            let v = if k % 10 == 0 {
                v.signum() * (1.0 - 1e-7 * k as f64 / n as f64)
            } else {
                v
            };
            v as f32 as f64
        })
        .collect();
    for (i, &v) in vs.iter().enumerate() {
        t.set(i, v);
    }
    let o = T::contiguous(F32, &[n]);
    run(act::erfinv(&t.desc, &o.desc).unwrap());
    for (i, y) in o.values().into_iter().enumerate() {
        let u = ulp(F32, y);
        // SAFETY: libm's erf.
        let (lo, hi) = unsafe { (erf(y - u), erf(y + u)) };
        assert!(lo <= vs[i] && vs[i] <= hi, "erfinv({}) = {y}", vs[i]);
    }
}

/// What these activations refuse.
#[test]
fn nnrest_activations_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[2, 3]);
    let x16 = T::contiguous(F16, &[2, 3]);
    let xi = T::contiguous(S32, &[2, 3]);
    let xb = T::contiguous(BF16, &[2, 3]);
    let bad_shape = T::contiguous(F32, &[3, 2]);
    let one = f32s(1.0);
    let two = f32s(2.0);
    let neg = f32s(-1.0);
    // Selu: int64 off the list; shapes must match.
    let x64 = T::contiguous(S64, &[2, 3]);
    assert!(act::selu(&x64.desc, &x64.desc).is_err());
    assert!(act::selu(&x.desc, &bad_shape.desc).is_err());
    assert!(act::selu(&xi.desc, &x.desc).is_ok());
    // LogSigmoid: out's dtype is self's.
    assert!(act::log_sigmoid(&x.desc, &x16.desc).is_err());
    assert!(act::log_sigmoid_forward(&x.desc, &x.desc, None).is_ok());
    // Shrink: lambd < 0; bf16.
    assert!(act::shrink(&x.desc, &neg, &one, &x.desc).is_err());
    assert!(act::shrink(&xb.desc, &one, &one, &xb.desc).is_err());
    // Erfinv: integer out; integer selfRef.
    assert!(act::erfinv(&x.desc, &xi.desc).is_err());
    assert!(act::inplace_erfinv(&xi.desc).is_err());
    assert!(act::erfinv(&xi.desc, &x.desc).is_ok());
    // RReluWithNoise: training refused; dtypes must agree.
    let noise = T::contiguous(F32, &[2, 3]);
    let e = act::rrelu_with_noise(&x.desc, &noise.desc, &one, &two, true, 1, 0, &x.desc);
    assert!(matches!(e, Err(crate::Error::Invalid(ref m)) if m.contains("training")));
    assert!(
        act::rrelu_with_noise(&x16.desc, &noise.desc, &one, &two, false, 1, 0, &x16.desc).is_err()
    );
    // Hardtanh: min > max; out dtype differs; bool scalar.
    assert!(act::hardtanh(&x.desc, &two, &one, &x.desc).is_err());
    assert!(act::hardtanh(&x.desc, &one, &two, &x16.desc).is_err());
    let b = Scalar::from_value(crate::element::Bool8::new(true));
    assert!(act::hardtanh(&x.desc, &b, &two, &x.desc).is_err());
    // AddRelu: out not the broadcast shape; float alpha on an integer result.
    let o = T::contiguous(F32, &[2]);
    assert!(act::add_relu(&x.desc, &x.desc, &one, &o.desc).is_err());
    assert!(act::add_relu(&xi.desc, &xi.desc, &f32s(1.5), &xi.desc).is_err());
    let row = T::contiguous(F32, &[3]);
    assert!(act::inplace_add_relu(&row.desc, &x.desc, &one).is_err());
    // Heaviside: mixed dtypes.
    assert!(act::heaviside(&x.desc, &x16.desc, &x.desc).is_err());
    // FatreluMul: odd last dim, threshold of two elements, 1-D input.
    let t = T::contiguous(F32, &[1]);
    let t2 = T::contiguous(F32, &[2]);
    let o = T::contiguous(F32, &[2, 1]);
    assert!(act::fatrelu_mul(&x.desc, &t.desc, &o.desc).is_err());
    let x4 = T::contiguous(F32, &[2, 4]);
    let o2 = T::contiguous(F32, &[2, 2]);
    assert!(act::fatrelu_mul(&x4.desc, &t.desc, &o2.desc).is_ok());
    assert!(act::fatrelu_mul(&x4.desc, &t2.desc, &o2.desc).is_err());
    let x1 = T::contiguous(F32, &[4]);
    assert!(act::fatrelu_mul(&x1.desc, &t.desc, &t2.desc).is_err());
}

// ---------------------------------------------------------------------------------------
// Binary activations: AddRelu, Heaviside, FatreluMul
// ---------------------------------------------------------------------------------------

/// Row-major element `i` of `shape` read from `b` of `bshape` (broadcast, right-aligned).
fn bcast(shape: &[usize], bshape: &[usize], mut i: usize) -> usize {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    let lead = shape.len() - bshape.len();
    let mut j = 0;
    for (k, &n) in bshape.iter().enumerate() {
        j = j * n + if n == 1 { 0 } else { idx[lead + k] };
    }
    j
}

/// AddRelu against a model: floats compute `a + alpha·b` in f32 (a multiply and an add,
/// each rounded; f64 reference with a bound of 1 ulp of the result plus 1 ulp of alpha·b),
/// integers exactly (small values, no wrap), then relu and the conversion to out.
#[test]
fn nnrest_add_relu_matches_model() {
    let mut rng = Rng::new(0x6e72_0002);
    let dtypes = [F32, F16, BF16, S8, U8, S16, S32, S64];
    for case in 0..300 {
        let (da, db) = (rng.pick(&dtypes), rng.pick(&dtypes));
        let p = crate::dtype::promote(da, db).unwrap();
        let shape = rand_shape(&mut rng, 4);
        let mut bshape = shape[rng.below(shape.len() as u64 + 1) as usize..].to_vec();
        for d in bshape.iter_mut() {
            if rng.pct(30) {
                *d = 1;
            }
        }
        let mut a = rand_view(&mut rng, da, &shape, 2);
        let mut b = rand_view(&mut rng, db, &bshape, 2);
        fill(&mut rng, &mut a);
        fill(&mut rng, &mut b);
        if da == U8 {
            // (u8 holds no negative value: keep the fill's in range)
            for i in 0..shape.iter().product::<usize>() {
                a.set(i, rng.below(10) as f64);
            }
        }
        if db == U8 {
            for i in 0..bshape.iter().product::<usize>() {
                b.set(i, rng.below(10) as f64);
            }
        }
        let alpha = if p.is_float() {
            f32s((rng.below(9) as f64 - 4.0) / 2.0)
        } else {
            Scalar::from_value(rng.below(3) as i32)
        };
        let (av, bv) = (a.values(), b.values());
        let inplace = case % 4 == 0 && da == p;
        let out_d = if inplace {
            p
        } else if p.is_float() {
            rng.pick(&[p, F32])
        } else {
            p
        };
        let got = if inplace {
            run(act::inplace_add_relu(&a.desc, &b.desc, &alpha).unwrap());
            a.values()
        } else {
            let o = rand_view(&mut rng, out_d, &shape, 2);
            run(act::add_relu(&a.desc, &b.desc, &alpha, &o.desc).unwrap());
            assert!(o.outside_untouched());
            o.values()
        };
        let al = alpha.cast(F64).get::<f64>();
        let n: usize = shape.iter().product();
        let mut want = Vec::with_capacity(n);
        let mut abs = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (av[i], bv[bcast(&shape, &bshape, i)]);
            let prod = al * y;
            let v = x + prod;
            let v = if v.is_nan() { v } else { v.max(0.0) };
            want.push(round_to(out_d, round_to(p, v)));
            abs.push(if p.is_float() { ulp(F32, prod) } else { 0.0 });
        }
        close("add_relu", p, &got, &want, 1.0, &abs);
    }
}

/// Heaviside against torch; FatreluMul against an f64 model.
#[test]
fn nnrest_heaviside_and_fatrelu_mul() {
    let mut rng = Rng::new(0x6e72_0003);
    let mut batch = Batch::new();
    let prog = batch.program("out = torch.heaviside(a[0].double(), a[1].double())");
    let mut checks = Vec::new();
    for _ in 0..80 {
        let d = rng.pick(&[F32, F16, BF16]);
        let shape = rand_shape(&mut rng, 4);
        let vshape = shape[rng.below(shape.len() as u64 + 1) as usize..].to_vec();
        let mut x = rand_view(&mut rng, d, &shape, 2);
        let mut v = rand_view(&mut rng, d, &vshape, 2);
        fill(&mut rng, &mut x);
        for i in 0..shape.iter().product::<usize>() {
            if rng.pct(30) {
                x.set(i, 0.0);
            }
        }
        fill(&mut rng, &mut v);
        let o = rand_view(&mut rng, d, &shape, 2);
        run(act::heaviside(&x.desc, &v.desc, &o.desc).unwrap());
        assert!(o.outside_untouched());
        let c = batch.case(
            prog,
            vec![
                Some(Array::f64s(&shape, &x.values())),
                Some(Array::f64s(&vshape, &v.values())),
            ],
        );
        checks.push((c, d, o.values()));
    }
    if let Some(results) = batch.run("nnrest_heaviside") {
        for (c, d, got) in checks {
            let want = torch_values(&results[c].as_ref().unwrap()[0]);
            close("heaviside", d, &got, &want, 0.0, &vec![0.0; want.len()]);
        }
    }
    for _ in 0..100 {
        let d = rng.pick(&[F32, F16, BF16]);
        let mut shape = rand_shape(&mut rng, 3);
        shape.insert(0, 1 + rng.below(3) as usize);
        let last = 2 * rng.below(4) as usize;
        shape.push(last);
        let mut half = shape.clone();
        *half.last_mut().unwrap() /= 2;
        let mut x = rand_view(&mut rng, d, &shape, 2);
        fill(&mut rng, &mut x);
        let tshape: Vec<usize> = vec![1; rng.below(3) as usize];
        let mut t = rand_view(&mut rng, d, &tshape, 2);
        let th = rand_value(&mut rng, F32).clamp(-4.0, 4.0);
        let th = if th.is_nan() { 0.5 } else { th };
        t.set(0, th);
        let th = t.values()[0];
        let o = rand_view(&mut rng, d, &half, 2);
        run(act::fatrelu_mul(&x.desc, &t.desc, &o.desc).unwrap());
        assert!(o.outside_untouched());
        let xs = x.values();
        let h = last / 2;
        let rows = xs.len() / last.max(1);
        let mut want = Vec::new();
        for r in 0..rows {
            for j in 0..h {
                let (x1, x2) = (xs[r * last + j], xs[r * last + h + j]);
                let a = if x1 > th { x1 } else { 0.0 };
                want.push(round_to(d, a * x2));
            }
        }
        close(
            "fatrelu_mul",
            d,
            &o.values(),
            &want,
            0.0,
            &vec![0.0; want.len()],
        );
    }
}

// ---------------------------------------------------------------------------------------
// Element-wise losses: MseLossOut, L1Loss, SoftMarginLoss, KlDiv, BinaryCrossEntropy,
// BinaryCrossEntropyWithLogits; Logit
// ---------------------------------------------------------------------------------------

use crate::ops::loss as lossop;

/// A broadcast partner of `shape`: some leading dims dropped, some dims set to 1.
fn partner(rng: &mut Rng, shape: &[usize]) -> Vec<usize> {
    let mut s = shape[rng.below(shape.len() as u64 + 1) as usize..].to_vec();
    for d in s.iter_mut() {
        if rng.pct(30) {
            *d = 1;
        }
    }
    s
}

/// The torch side of every element-wise loss: `l` is the unreduced loss (broadcast), then
/// reduced as the operator does; the second output is the same reduction of |l|, which
/// scales the bound of a reduced result (cancellation between terms of mixed sign).
const LOSS_TORCH: &str = "\
kind = a[-2].item(); r = a[-1].item(); x, y = a[0], a[1]
w = a[2] if len(a) > 4 else None; pw = a[3] if len(a) > 5 else None
x, y = torch.broadcast_tensors(x, y)
if kind == 0: l = (x - y) ** 2
elif kind == 1: l = (x - y).abs()
elif kind == 2: l = F.softplus(-y * x, 1, 20)
elif kind == 3: l = torch.exp(y) * (y - x)
elif kind == 4: l = torch.where(y > 0, y * (torch.log(y) - x), torch.full_like(y, float('nan')))
elif kind == 5: l = F.binary_cross_entropy(x, y, w, reduction='none')
elif kind == 6: l = F.binary_cross_entropy_with_logits(x, y, w, reduction='none', pos_weight=pw)
dim0 = kind == 0
def red(t):
    if r == 0: return t
    if dim0 and t.dim() > 0: return t.mean(0) if r == 1 else t.sum(0)
    if r == 1: return t.mean()
    if r == 2: return t.sum()
    return t.sum() / (a[0].shape[0] if a[0].dim() > 0 else 1)
out = (red(l), red(l.abs()))";

#[test]
fn nnrest_elementwise_losses_match_torch() {
    let mut rng = Rng::new(0x6e72_0004);
    let mut batch = Batch::new();
    let prog = batch.program(&format!(
        "a = [x.double() if x is not None and x.is_floating_point() else x for x in a]\n{LOSS_TORCH}"
    ));
    let mut checks = Vec::new();
    for case in 0..420 {
        // kind: 0 MseLossOut, 1 L1Loss, 2 SoftMargin, 3/4 KlDiv (log/plain), 5 BCE, 6 BCEWithLogits
        let kind = case % 7;
        let floats = [F32, F16, BF16];
        let (dx, dy) = match kind {
            1 => {
                let l = [F32, F16, BF16, S64];
                let dx = rng.pick(&l);
                let dy = if dx == S64 && rng.pct(50) {
                    S64
                } else {
                    rng.pick(&floats)
                };
                if dx == S64 && dy != S64 {
                    (dy, dx) // (an int self with a float target is refused for "none")
                } else {
                    (dx, dy)
                }
            }
            5 => {
                let d = rng.pick(&floats);
                (d, d)
            }
            _ => (rng.pick(&floats), rng.pick(&floats)),
        };
        let max_red = if kind == 3 || kind == 4 { 4 } else { 3 };
        let mut reduction = rng.below(max_red) as i64;
        if kind == 1 && dx == S64 && dy == S64 && reduction == 1 {
            reduction = 2;
        }
        let mut shape = rand_shape(&mut rng, 4);
        if kind == 0 && shape.is_empty() {
            shape.push(3);
        }
        let yshape = if kind >= 5 {
            shape.clone()
        } else {
            partner(&mut rng, &shape)
        };
        // For the broadcast losses, sometimes the partner is self.
        let (xshape, yshape) = if kind < 5 && rng.pct(30) {
            (yshape, shape.clone())
        } else {
            (shape.clone(), yshape)
        };
        let mut x = rand_view(&mut rng, dx, &xshape, 2);
        let mut y = rand_view(&mut rng, dy, &yshape, 2);
        fill(&mut rng, &mut x);
        fill(&mut rng, &mut y);
        if kind == 5 {
            // probabilities (0 and 1 included: the logs clamp at −100)
            for t in [&mut x, &mut y] {
                for i in 0..xshape.iter().product::<usize>() {
                    let v = match rng.below(8) {
                        0 => 0.0,
                        1 => 1.0,
                        _ => rng.below(1025) as f64 / 1024.0,
                    };
                    t.set(i, v);
                }
            }
        }
        let mut w = None;
        let mut pw = None;
        if kind >= 5 && rng.pct(60) {
            let ws = partner(&mut rng, &xshape);
            let mut t = rand_view(&mut rng, dx, &ws, 2);
            for i in 0..t.desc.shape.iter().product::<usize>() {
                t.set(i, rng.below(17) as f64 / 4.0);
            }
            w = Some(t);
        }
        if kind == 6 && rng.pct(60) {
            let ws = partner(&mut rng, &xshape);
            let mut t = rand_view(&mut rng, dx, &ws, 2);
            for i in 0..t.desc.shape.iter().product::<usize>() {
                t.set(i, rng.below(17) as f64 / 4.0);
            }
            pw = Some(t);
        }
        let p = crate::dtype::promote(dx, dy).unwrap();
        let bshape = crate::broadcast::broadcast_shapes(&[("x", &xshape), ("y", &yshape)])
            .unwrap()
            .to_vec();
        let oshape: Vec<usize> = match (reduction, kind) {
            (0, _) => bshape.clone(),
            (_, 0) => bshape[1..].to_vec(),
            (_, k) if k >= 3 && rng.pct(50) => vec![1],
            _ => vec![],
        };
        let out_d = match kind {
            6 => dy,
            5 if w.is_some() => dx,
            _ if p == S64 => rng.pick(&[S64, F32]),
            _ => rng.pick(&[p, p, F32]),
        };
        let o = rand_view(&mut rng, out_d, &oshape, 2);
        let e = match kind {
            0 => lossop::mse_loss_out(&x.desc, &y.desc, reduction, &o.desc),
            1 => lossop::l1_loss(&x.desc, &y.desc, reduction, &o.desc),
            2 => lossop::soft_margin_loss(&x.desc, &y.desc, reduction, &o.desc),
            3 => lossop::kl_div(&x.desc, &y.desc, reduction, true, &o.desc),
            4 => lossop::kl_div(&x.desc, &y.desc, reduction, false, &o.desc),
            5 => lossop::binary_cross_entropy(
                &x.desc,
                &y.desc,
                w.as_ref().map(|t| &t.desc),
                reduction,
                &o.desc,
            ),
            _ => lossop::binary_cross_entropy_with_logits(
                &x.desc,
                &y.desc,
                w.as_ref().map(|t| &t.desc),
                pw.as_ref().map(|t| &t.desc),
                reduction,
                &o.desc,
            ),
        };
        let e = e.unwrap_or_else(|err| panic!("kind {kind} {dx} {dy} -> {out_d} r{reduction} {xshape:?} {yshape:?} {oshape:?}: {err}"));
        run(e);
        assert!(o.outside_untouched(), "kind {kind}: wrote outside out");
        let arr = |t: &T| {
            if t.desc.dtype == S64 {
                Array::i64s(
                    &t.desc.shape,
                    &t.values().iter().map(|&v| v as i64).collect::<Vec<_>>(),
                )
            } else {
                Array::f64s(&t.desc.shape, &t.values())
            }
        };
        let mut inputs = vec![Some(arr(&x)), Some(arr(&y))];
        if kind >= 5 {
            inputs.push(w.as_ref().map(arr));
            if kind == 6 {
                inputs.push(pw.as_ref().map(arr));
            }
        }
        inputs.push(Some(Array::int(kind as i64)));
        inputs.push(Some(Array::int(reduction)));
        let c = batch.case(prog, inputs);
        checks.push((c, kind, p, out_d, o.values(), reduction));
    }
    let Some(results) = batch.run("nnrest_elementwise_losses_match_torch") else {
        return;
    };
    for (c, kind, p, out_d, got, reduction) in checks {
        let want = results[c]
            .as_ref()
            .unwrap_or_else(|e| panic!("kind {kind}: torch: {e}"));
        let w: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(out_d, round_to(p, v)))
            .collect();
        let scale = torch_values(&want[1]);
        let abs: Vec<f64> = scale
            .iter()
            .map(|s| {
                if reduction == 0 {
                    1e-15 * (1.0 + s)
                } else {
                    1e-12 * s
                }
            })
            .collect();
        // (a [1] out against torch's 0-d result)
        close(
            &format!("loss kind {kind} reduction {reduction}"),
            p,
            &got,
            &w,
            1.0,
            &abs,
        );
    }
}

/// What the element-wise losses refuse.
#[test]
fn nnrest_elementwise_losses_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[2, 3]);
    let x16 = T::contiguous(F16, &[2, 3]);
    let xi = T::contiguous(S64, &[2, 3]);
    let s = T::contiguous(F32, &[]);
    let one = T::contiguous(F32, &[1]);
    let row = T::contiguous(F32, &[3]);
    // reduction out of range; reduced out not 0-d (L1, SoftMargin) / not dim-0-reduced (MseLossOut)
    assert!(lossop::l1_loss(&x.desc, &x.desc, 3, &s.desc).is_err());
    assert!(lossop::l1_loss(&x.desc, &x.desc, 1, &one.desc).is_err());
    assert!(lossop::soft_margin_loss(&x.desc, &x.desc, 2, &one.desc).is_err());
    assert!(lossop::mse_loss_out(&x.desc, &x.desc, 1, &row.desc).is_ok());
    assert!(lossop::mse_loss_out(&x.desc, &x.desc, 1, &s.desc).is_err());
    // L1 of int64: a mean needs a float; "none" refuses int self with float target
    assert!(lossop::l1_loss(&xi.desc, &xi.desc, 1, &s.desc).is_err());
    assert!(lossop::l1_loss(&xi.desc, &xi.desc, 2, &s.desc).is_ok());
    assert!(lossop::l1_loss(&xi.desc, &x.desc, 0, &x.desc).is_err());
    // KlDiv takes batchmean (3), not 4; a [1] out is fine
    assert!(lossop::kl_div(&x.desc, &x.desc, 3, false, &one.desc).is_ok());
    assert!(lossop::kl_div(&x.desc, &x.desc, 4, false, &one.desc).is_err());
    // BCE: shapes must match; with weight one dtype
    assert!(lossop::binary_cross_entropy(&x.desc, &row.desc, None, 0, &x.desc).is_err());
    assert!(lossop::binary_cross_entropy(&x.desc, &x.desc, Some(&x16.desc), 0, &x.desc).is_err());
    assert!(lossop::binary_cross_entropy(&x.desc, &x.desc, Some(&row.desc), 1, &s.desc).is_ok());
    // BCEWithLogits: out has target's dtype; weights broadcast to target
    assert!(
        lossop::binary_cross_entropy_with_logits(&x.desc, &x16.desc, None, None, 0, &x.desc)
            .is_err()
    );
    let big = T::contiguous(F32, &[4, 2, 3]);
    assert!(lossop::binary_cross_entropy_with_logits(
        &x.desc,
        &x.desc,
        Some(&big.desc),
        None,
        0,
        &x.desc
    )
    .is_err());
    // An out that is self's own view (staged: every input read before out is written).
    let mut a = T::contiguous(F32, &[2, 3]);
    let mut b = T::contiguous(F32, &[3]);
    for i in 0..6 {
        a.set(i, i as f64);
    }
    for i in 0..3 {
        b.set(i, 10.0);
    }
    run(lossop::l1_loss(&a.desc, &b.desc, 0, &a.desc).unwrap());
    assert_eq!(a.values(), [10.0, 9.0, 8.0, 7.0, 6.0, 5.0]);
    // Empty inputs: the mean is NaN, the sum 0.
    let e = T::contiguous(F32, &[0, 3]);
    let o = T::contiguous(F32, &[]);
    run(lossop::l1_loss(&e.desc, &e.desc, 1, &o.desc).unwrap());
    assert!(o.values()[0].is_nan());
    run(lossop::soft_margin_loss(&e.desc, &e.desc, 2, &o.desc).unwrap());
    assert_eq!(o.values()[0], 0.0);
}

/// Logit against torch.logit (eps < 0: no clamp).
#[test]
fn nnrest_logit_matches_torch() {
    let mut rng = Rng::new(0x6e72_0005);
    let mut batch = Batch::new();
    let prog = batch.program(
        // (the clamp in f32, as the device's kernel: 1 − eps is an f32 value)
        "e = a[1].item(); z = a[0].float()\nif e >= 0: z = z.clamp(e, 1 - e)\nout = torch.logit(z.double())",
    );
    let mut checks = Vec::new();
    for _ in 0..80 {
        let d = rng.pick(&[F32, F16, BF16]);
        let shape = rand_shape(&mut rng, 4);
        let mut x = rand_view(&mut rng, d, &shape, 2);
        for i in 0..shape.iter().product::<usize>() {
            let v = match rng.below(10) {
                0 => 0.0,
                1 => 1.0,
                2 => rand_value(&mut rng, F32),
                _ => rng.below(1025) as f64 / 1024.0,
            };
            x.set(i, v);
        }
        let eps = rng.pick(&[-1.0, 0.0, 0.125, 0.25, 1e-6, 2.0]);
        let o = rand_view(&mut rng, d, &shape, 2);
        run(act::logit(&x.desc, eps, &o.desc).unwrap());
        assert!(o.outside_untouched());
        let c = batch.case(
            prog,
            vec![
                Some(Array::f64s(&shape, &x.values())),
                num(eps as f32 as f64),
            ],
        );
        checks.push((c, d, o.values()));
    }
    if let Some(results) = batch.run("nnrest_logit_matches_torch") {
        for (c, d, got) in checks {
            let w: Vec<f64> = torch_values(&results[c].as_ref().unwrap()[0])
                .iter()
                .map(|&v| round_to(d, v))
                .collect();
            close("logit", d, &got, &w, 1.0, &vec![1e-15; w.len()]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// NLLLoss, NLLLoss2d
// ---------------------------------------------------------------------------------------

use crate::ops::nll_loss;

/// NLLLoss (2-D and 1-D self) and NLLLoss2d against torch's nll_loss in f64: random
/// shapes and views, weights, ignoreIndex (inside and outside [0, C)), target dtypes,
/// every reduction; totalWeightOut against Σ of the weights taken.
#[test]
fn nnrest_nll_loss_matches_torch() {
    let mut rng = Rng::new(0x6e72_0006);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); t = a[1].long(); w = a[2].double(); r = a[3].item(); ig = a[4].item()\n\
         red = ['none', 'mean', 'sum'][r]\n\
         out = F.nll_loss(x, t, w, ignore_index=ig, reduction=red)\n\
         tw = torch.where(t == ig, torch.zeros_like(t, dtype=torch.float64), w[t.clamp(0, w.numel() - 1)]).sum()\n\
         out = (out, tw)",
    );
    let mut checks = Vec::new();
    for case in 0..150 {
        let form = case % 3; // 0: (N, C), 1: (C), 2: 2-d (N, C, H, W)
        let d = rng.pick(&[F32, F16, BF16]);
        let td = rng.pick(&[S64, S32, U8]);
        let c = 1 + rng.below(5) as usize;
        let n = rng.below(4) as usize;
        let (xs, tsh) = match form {
            0 => (vec![n, c], vec![n]),
            1 => (vec![c], vec![]),
            _ => {
                let (h, w) = (1 + rng.below(3) as usize, 1 + rng.below(3) as usize);
                (vec![n, c, h, w], vec![n, h, w])
            }
        };
        let mut x = rand_view(&mut rng, d, &xs, 2);
        fill(&mut rng, &mut x);
        let ignore = if rng.pct(50) {
            rng.below(c as u64) as i64
        } else {
            -100
        };
        let mut t = rand_view(&mut rng, td, &tsh, 2);
        for i in 0..tsh.iter().product::<usize>() {
            let v = if ignore >= 0 && rng.pct(20) {
                ignore
            } else {
                rng.below(c as u64) as i64
            };
            t.set(i, v as f64);
        }
        let mut w = rand_view(&mut rng, d, &[c], 2);
        for i in 0..c {
            w.set(i, rng.below(9) as f64 / 4.0);
        }
        let reduction = rng.below(3) as i64;
        let oshape = if reduction == 0 && form != 1 {
            tsh.clone()
        } else if rng.pct(50) {
            vec![1]
        } else {
            vec![]
        };
        let od = if form == 2 { d } else { rng.pick(&[d, F32]) };
        let o = rand_view(&mut rng, od, &oshape, 2);
        let tw = T::contiguous(d, &[1]);
        let e = if form == 2 {
            nll_loss::nll_loss2d(
                &x.desc, &t.desc, &w.desc, reduction, ignore, &o.desc, &tw.desc,
            )
        } else {
            nll_loss::nll_loss(
                &x.desc, &t.desc, &w.desc, reduction, ignore, &o.desc, &tw.desc,
            )
        };
        run(e.unwrap());
        assert!(o.outside_untouched());
        let c_ = batch.case(
            prog,
            vec![
                Some(Array::f64s(&xs, &x.values())),
                Some(Array::i64s(
                    &tsh,
                    &t.values().iter().map(|&v| v as i64).collect::<Vec<_>>(),
                )),
                Some(Array::f64s(&[c], &w.values())),
                Some(Array::int(reduction)),
                Some(Array::int(ignore)),
            ],
        );
        checks.push((c_, d, od, reduction, o.values(), tw.values()[0]));
    }
    let Some(results) = batch.run("nnrest_nll_loss_matches_torch") else {
        return;
    };
    for (c, d, od, reduction, got, tw) in checks {
        let want = results[c].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let w: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&v| round_to(od, round_to(d, v)))
            .collect();
        let scale: f64 = 1e-12
            * got
                .iter()
                .map(|v| v.abs())
                .filter(|v| v.is_finite())
                .sum::<f64>();
        close("nll_loss", d, &got, &w, 1.0, &vec![scale; w.len()]);
        if reduction != 0 {
            let wt = round_to(d, torch_values(&want[1])[0]);
            assert_eq!(tw, wt, "totalWeightOut");
        }
    }
}

/// NLLLoss refusals, and a target out of range refused when the work runs, before
/// anything is written.
#[test]
fn nnrest_nll_loss_refusals() {
    let x = T::contiguous(F32, &[2, 3]);
    let mut t = T::contiguous(S64, &[2]);
    let w = T::contiguous(F32, &[3]);
    let w4 = T::contiguous(F32, &[4]);
    let o = T::contiguous(F32, &[2]);
    let s = T::contiguous(F32, &[]);
    let tw = T::contiguous(F32, &[1]);
    assert!(nll_loss::nll_loss(&x.desc, &t.desc, &w4.desc, 0, -100, &o.desc, &tw.desc).is_err());
    assert!(nll_loss::nll_loss(&x.desc, &t.desc, &w.desc, 3, -100, &o.desc, &tw.desc).is_err());
    assert!(nll_loss::nll_loss(&x.desc, &t.desc, &w.desc, 1, -100, &o.desc, &tw.desc).is_err());
    let tf = T::contiguous(F32, &[2]);
    assert!(nll_loss::nll_loss(&x.desc, &tf.desc, &w.desc, 0, -100, &o.desc, &tw.desc).is_err());
    let w16 = T::contiguous(F16, &[3]);
    assert!(nll_loss::nll_loss(&x.desc, &t.desc, &w16.desc, 0, -100, &o.desc, &tw.desc).is_err());
    // 2-d: 4-D self and 3-D target
    assert!(nll_loss::nll_loss2d(&x.desc, &t.desc, &w.desc, 0, -100, &o.desc, &tw.desc).is_err());
    t.set(0, 1.0);
    t.set(1, 3.0);
    let mut o2 = T::contiguous(F32, &[]);
    o2.set(0, 42.0);
    let e = nll_loss::nll_loss(&x.desc, &t.desc, &w.desc, 2, -100, &s.desc, &tw.desc).unwrap();
    let mut ws = vec![0u64; 8];
    let r = e.work.run(
        &e.bindings,
        crate::executor::Workspace {
            addr: ws.as_mut_ptr() as usize,
            size: 64,
        },
    );
    assert!(matches!(r, Err(crate::Error::Invalid(_))));
    let _ = &mut o2;
}
