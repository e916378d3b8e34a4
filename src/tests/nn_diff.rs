//! Differential tests of the activation, pooling and loss operators (src/ops/activation.rs,
//! pool.rs, loss.rs), called through their rules on random views.
//!
//! Each case draws a dtype (mostly from the operator's list), a shape (0-d and empty
//! included), views for every tensor (permuted, padded, offset: `rand_view`) and values
//! with specials mixed in (NaN, ±inf, ±0, large, tiny). The reference is PyTorch computing
//! in f64 on the exact input values (`torch_ref`); where the device's documented behaviour
//! differs from torch's (Elu with a non-finite alpha, Hardsigmoid of int32) a plain f64
//! model written here from the rule is the reference.
//!
//! Bound (every float op): |got − want| ≤ 1 ulp of out's dtype at `want` + 1e-15·(1 + |x|)
//! (the absolute term covers results below f64's resolution of the torch formula, e.g.
//! 1 + tanh(u) → 0 where the rule's form is exact); NaN must be NaN, infinities equal.
//! Integer results exact.

use super::add_diff::Rng;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::error::Result;
use crate::executor::{Executor, Workspace};
use crate::ops::activation as act;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

// ---------------------------------------------------------------------------------------
// Views over host storage, element access, running an executor
// ---------------------------------------------------------------------------------------

/// A tensor's storage (8-byte aligned words) and a view over it.
pub(super) struct T {
    pub store: Vec<u64>,
    pub desc: TensorDesc,
}

impl T {
    /// A view of `shape` with given element strides and offset over fresh storage.
    pub(super) fn with_strides(
        dtype: DType,
        shape: &[usize],
        strides: &[usize],
        offset: usize,
        format: i32,
    ) -> T {
        let span = if shape.iter().any(|&d| d == 0) {
            0
        } else {
            offset
                + shape
                    .iter()
                    .zip(strides)
                    .map(|(d, s)| (d - 1) * s)
                    .sum::<usize>()
                + 1
        };
        let n = span.max(1);
        let mut store = vec![0u64; (n * dtype.size()).div_ceil(8) + 1];
        // Storage the view does not cover holds a marker the checks look for.
        for w in store.iter_mut() {
            *w = 0x5a5a_5a5a_5a5a_5a5a;
        }
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let st: Vec<i64> = strides.iter().map(|&d| d as i64).collect();
        let desc = TensorDesc::new(
            &dims,
            dtype as i32,
            Some(&st),
            offset as i64,
            format,
            &[n as i64],
            store.as_mut_ptr() as usize,
        )
        .unwrap();
        T { store, desc }
    }
    pub(super) fn contiguous(dtype: DType, shape: &[usize]) -> T {
        let strides = crate::tensor::contiguous_strides(shape);
        let s: Vec<usize> = strides.iter().map(|&x| x as usize).collect();
        T::with_strides(dtype, shape, &s, 0, 2)
    }
    fn numel(&self) -> usize {
        self.desc.shape.iter().product()
    }
    /// Storage element index of row-major element `i`.
    fn index(&self, mut i: usize) -> usize {
        let mut at = self.desc.offset;
        for d in (0..self.desc.rank()).rev() {
            let n = self.desc.shape[d];
            at += (i % n) * self.desc.strides[d] as usize;
            i /= n;
        }
        at
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.store.len() * 8;
        // SAFETY: the words are plain memory of n bytes.
        unsafe { std::slice::from_raw_parts_mut(self.store.as_mut_ptr() as *mut u8, n) }
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: as above.
        unsafe {
            std::slice::from_raw_parts(self.store.as_ptr() as *const u8, self.store.len() * 8)
        }
    }
    /// Sets row-major element `i` to `v` converted to the dtype.
    pub(super) fn set(&mut self, i: usize, v: f64) {
        let d = self.desc.dtype;
        let at = self.index(i) * d.size();
        let s = Scalar::from_value(v).cast(d);
        self.bytes_mut()[at..at + d.size()].copy_from_slice(s.bytes());
    }
    /// Row-major element `i` as f64 (integers exactly up to 2^53).
    pub(super) fn get(&self, i: usize) -> f64 {
        let d = self.desc.dtype;
        let at = self.index(i) * d.size();
        Scalar::from_bytes(d, &self.bytes()[at..at + d.size()])
            .cast(F64)
            .get::<f64>()
    }
    pub(super) fn values(&self) -> Vec<f64> {
        (0..self.numel()).map(|i| self.get(i)).collect()
    }
    /// Whether every storage byte outside the view still holds the marker.
    pub(super) fn outside_untouched(&self) -> bool {
        let sz = self.desc.dtype.size();
        let mut inside = vec![false; self.store.len() * 8];
        for i in 0..self.numel() {
            let at = self.index(i) * sz;
            inside[at..at + sz].iter_mut().for_each(|b| *b = true);
        }
        self.bytes()
            .iter()
            .zip(&inside)
            .all(|(&b, &ins)| ins || b == 0x5a)
    }
}

/// A random view of `shape`: any dim order, sometimes padded, sometimes offset.
pub(super) fn rand_view(rng: &mut Rng, dtype: DType, shape: &[usize], format: i32) -> T {
    let r = shape.len();
    let mut order: Vec<usize> = (0..r).collect();
    if rng.pct(40) {
        for i in (1..r).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let padded = rng.pct(40);
    let mut strides = vec![0usize; r];
    let mut acc = 1usize;
    for &d in order.iter().rev() {
        strides[d] = acc;
        acc *= shape[d].max(1) + if padded { rng.below(3) as usize } else { 0 };
    }
    let offset = if rng.pct(40) {
        rng.below(7) as usize
    } else {
        0
    };
    T::with_strides(dtype, shape, &strides, offset, format)
}

/// A random shape of 0 to `max_rank` dims, sizes 0..=5 (rarely 0).
pub(super) fn rand_shape(rng: &mut Rng, max_rank: usize) -> Vec<usize> {
    let r = rng.below(max_rank as u64 + 1) as usize;
    (0..r)
        .map(|_| {
            if rng.pct(4) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect()
}

/// A value for a `dtype` input: mostly in [-8, 8], sometimes special.
pub(super) fn rand_value(rng: &mut Rng, dtype: DType) -> f64 {
    if dtype.is_int() {
        return rng.below(21) as f64 - 10.0;
    }
    match rng.below(40) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 0.0,
        4 => -0.0,
        5 => 100.0 * (rng.below(200) as f64 - 100.0),
        6 => 1e-6 * (rng.below(200) as f64 - 100.0),
        _ => (rng.below(1 << 20) as f64 / (1 << 16) as f64) - 8.0,
    }
}

pub(super) fn fill(rng: &mut Rng, t: &mut T) {
    for i in 0..t.numel() {
        let v = rand_value(rng, t.desc.dtype);
        t.set(i, v);
    }
}

/// Runs an executor's work on a workspace of the size it asked for.
pub(super) fn run(e: Executor) {
    let mut ws = vec![0u64; (e.workspace_size() as usize).div_ceil(8) + 1];
    e.work
        .run(
            &e.bindings,
            Workspace {
                addr: ws.as_mut_ptr() as usize,
                size: e.workspace_size(),
            },
        )
        .unwrap();
}

/// One ulp of `d` at magnitude |v| (the subnormal spacing below the normal range).
pub(super) fn ulp(d: DType, v: f64) -> f64 {
    let (mant, min_exp) = match d {
        F32 => (23, -126),
        F16 => (10, -14),
        BF16 => (7, -126),
        _ => (52, -1022),
    };
    let e = if v == 0.0 || !v.is_finite() {
        min_exp
    } else {
        (v.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

/// Checks `got` against `want` within `ulps` of `d` plus `abs[i]`.
pub(super) fn close(what: &str, d: DType, got: &[f64], want: &[f64], ulps: f64, abs: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for i in 0..got.len() {
        let (g, w) = (got[i], want[i]);
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() || d.is_int() {
            g == w
        } else {
            // (a NaN input gives a NaN allowance: none)
            g == w || (g - w).abs() <= ulps * ulp(d, w) + if abs[i].is_nan() { 0.0 } else { abs[i] }
        };
        assert!(ok, "{what}: element {i}: got {g:e}, want {w:e} (dtype {d})");
    }
}

/// `v` rounded into dtype `d` (by the library's conversion rule), as f64.
pub(super) fn round_to(d: DType, v: f64) -> f64 {
    Scalar::from_value(v).cast(d).cast(F64).get::<f64>()
}

/// A torch result's values as f64 (float or integer arrays).
pub(super) fn torch_values(a: &Array) -> Vec<f64> {
    match a.dtype {
        S64 => (0..a.numel())
            .map(|i| i64::from_le_bytes(a.elem(i).try_into().unwrap()) as f64)
            .collect(),
        Bool => (0..a.numel()).map(|i| a.elem(i)[0] as f64).collect(),
        _ => a.to_f64s(),
    }
}

pub(super) fn f32s(v: f64) -> Scalar {
    Scalar::from_value(v as f32)
}

/// Arrays for torch's scalar attributes.
pub(super) fn num(v: f64) -> Option<Array> {
    Some(Array::f64s(&[1], &[v]))
}

// ---------------------------------------------------------------------------------------
// Point-wise activations
// ---------------------------------------------------------------------------------------

/// A point-wise case: the operator (out-of-place or in place), its torch program (over
/// `a[0]` and the attributes) or a model, the attributes.
struct Pointwise {
    name: &'static str,
    dtypes: &'static [DType],
    torch: &'static str,
}

const POINTWISE: &[Pointwise] = &[
    Pointwise {
        name: "elu",
        dtypes: &[F32, F16, BF16, F64],
        torch: "out = torch.ops.aten.elu(a[0], a[1].item(), a[2].item(), a[3].item())",
    },
    Pointwise {
        name: "leaky_relu",
        dtypes: &[F32, F16, BF16, F64],
        torch: "out = F.leaky_relu(a[0], a[1].item())",
    },
    Pointwise {
        name: "softplus",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.softplus(a[0], a[1].item(), a[2].item())",
    },
    Pointwise {
        name: "hardsigmoid",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.hardsigmoid(a[0])",
    },
    Pointwise {
        name: "hardswish",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.hardswish(a[0])",
    },
    Pointwise {
        name: "threshold",
        dtypes: &[F32, F16, BF16, S8, U8, S16, S32, S64],
        torch: "out = F.threshold(a[0], a[1].item(), a[2].item())",
    },
    Pointwise {
        name: "gelu_none",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.gelu(a[0], approximate='none')",
    },
    Pointwise {
        name: "gelu_tanh",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.gelu(a[0], approximate='tanh')",
    },
    Pointwise {
        name: "celu",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.celu(a[0], a[1].item())",
    },
    Pointwise {
        name: "mish",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.mish(a[0])",
    },
    Pointwise {
        name: "softshrink",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.softshrink(a[0], a[1].item())",
    },
    Pointwise {
        name: "hardshrink",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.hardshrink(a[0], max(a[1].item(), 0.0))",
    },
    Pointwise {
        name: "swish",
        dtypes: &[F32, F16, BF16],
        torch: "out = a[0] * torch.sigmoid(a[1].item() * a[0])",
    },
    Pointwise {
        name: "fast_gelu",
        dtypes: &[F32, F16, BF16],
        torch: "out = a[0] * torch.sigmoid(1.702 * a[0])",
    },
    // The V2 forms: EluV2 selects on x >= 0 (the same numbers as aten.elu but at −0).
    Pointwise {
        name: "elu_v2",
        dtypes: &[F32, F16, BF16],
        torch: "out = torch.ops.aten.elu(a[0], a[1].item(), a[2].item(), a[3].item())",
    },
    Pointwise {
        name: "hardsigmoid_v2",
        dtypes: &[F32, F16, BF16],
        torch: "out = F.hardsigmoid(a[0])",
    },
    // ThresholdV2: torch.where(x > threshold, x, value) (a NaN x gives value, unlike F.threshold).
    Pointwise {
        name: "threshold_v2",
        dtypes: &[F32, F16, BF16],
        torch: "out = torch.where(a[0] > a[1].item(), a[0], torch.full_like(a[0], a[2].item()))",
    },
    // FastGeluV2: aclnnFastGeluV2.md's formula in f64, sgn(x) = (x + 1e-12)/|x + 1e-12| in f32.
    Pointwise {
        name: "fast_gelu_v2",
        dtypes: &[F32, F16, BF16],
        torch: "t = a[0].float() + 1e-12\nsg = (t / t.abs()).double()\nc = torch.clamp(torch.abs(0.7071 * a[0]), max=1.769) - 1.769\nout = a[0] * (sg * (-0.1444 * c * c + 0.5) + 0.5)",
    },
];

/// The point-wise operators with an in-place form.
const HAS_INPLACE: &[&str] = &[
    "elu",
    "leaky_relu",
    "hardsigmoid",
    "hardswish",
    "threshold",
    "celu",
    "mish",
    "hardsigmoid_v2",
];
/// The point-wise operators whose out must have self's dtype.
const SAME_DTYPE: &[&str] = &[
    "hardsigmoid",
    "gelu_none",
    "gelu_tanh",
    "mish",
    "fast_gelu",
    "elu_v2",
    "hardsigmoid_v2",
    "threshold_v2",
    "fast_gelu_v2",
];

/// Plans operator `name` with attributes `at`, out of place or in place.
fn plan_pointwise(
    name: &str,
    x: &TensorDesc,
    at: &[f64],
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let s: Vec<Scalar> = at.iter().map(|&v| f32s(v)).collect();
    match (name, out) {
        ("elu", Some(o)) => act::elu(x, &s[0], &s[1], &s[2], o),
        ("elu", None) => act::inplace_elu(x, &s[0], &s[1], &s[2]),
        ("leaky_relu", Some(o)) => act::leaky_relu(x, &s[0], o),
        ("leaky_relu", None) => act::inplace_leaky_relu(x, &s[0]),
        ("softplus", Some(o)) => act::softplus(x, &s[0], &s[1], o),
        ("hardsigmoid", Some(o)) => act::hardsigmoid(x, o),
        ("hardsigmoid", None) => act::inplace_hardsigmoid(x),
        ("hardswish", Some(o)) => act::hardswish(x, o),
        ("hardswish", None) => act::inplace_hardswish(x),
        ("threshold", Some(o)) => act::threshold(x, &s[0], &s[1], o),
        ("threshold", None) => act::inplace_threshold(x, &s[0], &s[1]),
        ("gelu_none", Some(o)) => act::gelu_v2(x, 0, o),
        ("gelu_tanh", Some(o)) => act::gelu_v2(x, 1, o),
        ("celu", Some(o)) => act::celu(x, &s[0], o),
        ("celu", None) => act::inplace_celu(x, &s[0]),
        ("mish", Some(o)) => act::mish(x, o),
        ("mish", None) => act::inplace_mish(x),
        ("softshrink", Some(o)) => act::softshrink(x, &s[0], o),
        ("hardshrink", Some(o)) => act::hardshrink(x, &s[0], o),
        ("swish", Some(o)) => act::swish(x, Some(&s[0]), o),
        ("fast_gelu", Some(o)) => act::fast_gelu(x, o),
        ("elu_v2", Some(o)) => act::elu_v2(x, &s[0], &s[1], &s[2], o),
        ("hardsigmoid_v2", Some(o)) => act::hardsigmoid_v2(x, o),
        ("hardsigmoid_v2", None) => act::inplace_hardsigmoid_v2(x),
        ("threshold_v2", Some(o)) => act::threshold_v2(x, &s[0], &s[1], o),
        ("fast_gelu_v2", Some(o)) => act::fast_gelu_v2(x, o),
        _ => unreachable!("{name} has no in-place form"),
    }
}

/// Random attributes of operator `name` (f32 values).
fn rand_attrs(rng: &mut Rng, name: &str, dtype: DType) -> Vec<f64> {
    let mut r = |lo: f64, hi: f64| lo + (hi - lo) * (rng.below(1024) as f64 / 1024.0);
    match name {
        "elu" | "elu_v2" => vec![r(-2.0, 3.0), r(0.25, 2.0), r(0.25, 2.0)],
        "leaky_relu" => vec![r(-1.0, 1.0)],
        "softplus" => vec![r(0.25, 3.0), r(1.0, 25.0)],
        "celu" => vec![r(-2.0, 3.0)],
        "softshrink" => vec![r(0.0, 2.0)],
        "hardshrink" => vec![r(-0.5, 2.0)],
        "swish" => vec![r(-2.0, 3.0)],
        // Thresholds the narrow dtypes hold exactly (the device converts them to self's).
        // (u8: non-negative, a negative scalar has no u8 value torch and the rule agree on)
        "threshold" if dtype == U8 => vec![(r(0.0, 5.0)).round(), (r(0.0, 9.0)).round()],
        "threshold" if dtype.is_int() => vec![(r(-5.0, 5.0)).round(), (r(-9.0, 9.0)).round()],
        "threshold" | "threshold_v2" => vec![
            (r(-5.0, 5.0) * 8.0).round() / 8.0,
            (r(-9.0, 9.0) * 8.0).round() / 8.0,
        ],
        _ => vec![],
    }
}

#[test]
fn pointwise_activations_match_torch() {
    let mut rng = Rng::new(0x6e6e_0001);
    let mut batch = Batch::new();
    // (operator, out dtype, out values, input values): compared after torch runs.
    let mut checks = Vec::new();
    for op in POINTWISE {
        let prog = batch.program(&format!(
            "a = [x.double() if x is not None and x.is_floating_point() else x for x in a]\n{}",
            op.torch
        ));
        for case in 0..60 {
            let d = rng.pick(op.dtypes);
            let shape = rand_shape(&mut rng, 4);
            let mut x = rand_view(&mut rng, d, &shape, 2);
            fill(&mut rng, &mut x);
            let at = rand_attrs(&mut rng, op.name, d);
            let xs = x.values();
            let inplace = case % 3 == 0 && HAS_INPLACE.contains(&op.name);
            let out_d = match op.name {
                n if SAME_DTYPE.contains(&n) => d,
                _ if d.is_int() => d,
                _ => rng.pick(&[d, d, F32]),
            };
            let got = if inplace {
                run(plan_pointwise(op.name, &x.desc, &at, None).unwrap());
                x.values()
            } else {
                let mut o = rand_view(&mut rng, out_d, &shape, 2);
                run(plan_pointwise(op.name, &x.desc, &at, Some(&o.desc)).unwrap());
                assert!(
                    o.outside_untouched(),
                    "{}: wrote outside out's view",
                    op.name
                );
                let v = o.values();
                o.store.clear();
                v
            };
            let mut inputs = vec![Some(if d.is_int() {
                Array::i64s(&shape, &xs.iter().map(|&v| v as i64).collect::<Vec<_>>())
            } else {
                Array::f64s(&shape, &xs)
            })];
            inputs.extend(at.iter().map(|&v| num(v as f32 as f64)));
            let c = batch.case(prog, inputs);
            let out_dtype = if inplace { d } else { out_d };
            checks.push((c, op.name, d, out_dtype, got, xs));
        }
    }
    let Some(results) = batch.run("pointwise_activations_match_torch") else {
        return;
    };
    for (c, name, d, out_d, got, xs) in checks {
        let want = results[c]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name}: torch: {e}"));
        // The result is computed in self's dtype and then converted to out's: torch's f64
        // result goes the same way, and the bound is an ulp of self's dtype.
        let want: Vec<f64> = torch_values(&want[0])
            .iter()
            .map(|&w| round_to(out_d, round_to(d, w)))
            .collect();
        let abs: Vec<f64> = xs.iter().map(|x| 1e-15 * (1.0 + x.abs())).collect();
        close(name, d, &got, &want, 1.0, &abs);
    }
}

/// Elu with a non-finite alpha or inputScale: the device's `(x <= 0 ? −alpha : x)·scale`;
/// Hardsigmoid of int32: 1 for x ≥ 3, else 0 (integer division of relu6(x + 3) by 6).
#[test]
fn device_forms_elu_nonfinite_and_int_hardsigmoid() {
    let mut x = T::contiguous(F32, &[6]);
    let xs = [-2.0, -0.0, 0.0, 1.5, f64::NAN, f64::NEG_INFINITY];
    for (i, &v) in xs.iter().enumerate() {
        x.set(i, v);
    }
    for alpha in [f64::INFINITY, f64::NAN] {
        let o = T::contiguous(F32, &[6]);
        run(act::elu(&x.desc, &f32s(alpha), &f32s(2.0), &f32s(1.0), &o.desc).unwrap());
        let got = o.values();
        for (i, &v) in xs.iter().enumerate() {
            let want = if v <= 0.0 { -alpha * 2.0 } else { v * 2.0 };
            assert!(
                got[i] == want || (got[i].is_nan() && want.is_nan()),
                "elu({v}) alpha {alpha}: {}",
                got[i]
            );
        }
    }
    let mut xi = T::contiguous(S32, &[7]);
    for (i, v) in [-5, -3, 0, 2, 3, 4, 100].iter().enumerate() {
        xi.set(i, *v as f64);
    }
    run(act::inplace_hardsigmoid(&xi.desc).unwrap());
    assert_eq!(xi.values(), [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let mut xi = T::contiguous(S32, &[7]);
    for (i, v) in [-5, -3, 0, 2, 3, 4, 100].iter().enumerate() {
        xi.set(i, *v as f64);
    }
    run(act::inplace_hardsigmoid_v2(&xi.desc).unwrap());
    assert_eq!(xi.values(), [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    // EluV2 with an infinite alpha: x >= 0 takes scale·x (0 at 0), x < 0 gives −inf.
    let o = T::contiguous(F32, &[6]);
    run(act::elu_v2(
        &x.desc,
        &f32s(f64::INFINITY),
        &f32s(2.0),
        &f32s(1.0),
        &o.desc,
    )
    .unwrap());
    let got = o.values();
    assert_eq!(got[..4], [f64::NEG_INFINITY, 0.0, 0.0, 3.0]);
    assert!(got[4].is_nan() && got[5] == f64::NEG_INFINITY);
    // ThresholdV2: NaN gives value; FastGeluV2 at ±inf, 0 and −1e-12 (x + 1e-12 = 0 in f32: NaN).
    let o = T::contiguous(F32, &[6]);
    run(act::threshold_v2(&x.desc, &f32s(0.0), &f32s(7.0), &o.desc).unwrap());
    assert_eq!(o.values(), [7.0, 7.0, 7.0, 1.5, 7.0, 7.0]);
    let mut g = T::contiguous(F32, &[5]);
    for (i, v) in [
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -1e-12f32 as f64,
        10.0,
    ]
    .iter()
    .enumerate()
    {
        g.set(i, *v);
    }
    let o = T::contiguous(F32, &[5]);
    run(act::fast_gelu_v2(&g.desc, &o.desc).unwrap());
    let got = o.values();
    // (±inf: sgn = ±inf/inf is NaN in the kernel's f32/f16 formula, so the result is NaN)
    assert!(
        got[0].is_nan() && got[1].is_nan() && got[2] == 0.0,
        "{got:?}"
    );
    assert!(got[3].is_nan() && got[4] == 10.0, "{got:?}");
}

/// What the point-wise rules refuse: dtypes off the lists, out dtypes that self cannot
/// convert to (or, for Hardsigmoid/GeluV2, that differ), shapes that differ, scalars of
/// dtypes that do not convert.
#[test]
fn pointwise_activations_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[2, 3]);
    let xi = T::contiguous(S32, &[2, 3]);
    let o16 = T::contiguous(F16, &[2, 3]);
    let oi = T::contiguous(S32, &[2, 3]);
    let o_shape = T::contiguous(F32, &[3, 2]);
    let one = f32s(1.0);
    let c = Scalar::from_value(num_complex::Complex::new(1.0f32, 0.0));
    assert!(act::elu(&xi.desc, &one, &one, &one, &oi.desc).is_err());
    assert!(act::elu(&x.desc, &c, &one, &one, &x.desc).is_err());
    assert!(act::elu(&x.desc, &one, &one, &one, &o_shape.desc).is_err());
    assert!(act::elu(&x.desc, &one, &one, &one, &oi.desc).is_err()); // float -> int
    assert!(act::leaky_relu(&x.desc, &one, &o16.desc).is_ok());
    assert!(act::softplus(&x.desc, &c, &one, &x.desc).is_err());
    assert!(act::hardsigmoid(&x.desc, &o16.desc).is_err());
    assert!(act::hardsigmoid(&xi.desc, &oi.desc).is_ok());
    assert!(act::hardswish(&xi.desc, &oi.desc).is_err());
    assert!(act::gelu_v2(&x.desc, 0, &o16.desc).is_err());
    assert!(act::threshold(&xi.desc, &one, &one, &x.desc).is_ok()); // int -> float
    assert!(act::threshold(&x.desc, &one, &one, &oi.desc).is_err());
    let b = T::contiguous(Bool, &[2, 3]);
    assert!(act::threshold(&b.desc, &one, &one, &b.desc).is_err());
    // The V2 forms: f32/f16/bf16 (HardsigmoidV2 int32 too), out of self's dtype and shape.
    let o64 = T::contiguous(F64, &[2, 3]);
    assert!(act::elu_v2(&x.desc, &one, &one, &one, &o16.desc).is_err());
    assert!(act::elu_v2(&o64.desc, &one, &one, &one, &o64.desc).is_err());
    assert!(act::elu_v2(&x.desc, &c, &one, &one, &x.desc).is_err());
    assert!(act::elu_v2(&x.desc, &one, &one, &one, &o_shape.desc).is_err());
    assert!(act::fast_gelu_v2(&x.desc, &o16.desc).is_err());
    assert!(act::fast_gelu_v2(&xi.desc, &oi.desc).is_err());
    assert!(act::fast_gelu_v2(&x.desc, &o_shape.desc).is_err());
    assert!(act::hardsigmoid_v2(&x.desc, &o16.desc).is_err());
    assert!(act::hardsigmoid_v2(&xi.desc, &oi.desc).is_ok());
    assert!(act::inplace_hardsigmoid_v2(&o64.desc).is_err());
    assert!(act::threshold_v2(&xi.desc, &one, &one, &oi.desc).is_err());
    assert!(act::threshold_v2(&x.desc, &one, &one, &o16.desc).is_err());
    assert!(act::threshold_v2(&x.desc, &one, &one, &o_shape.desc).is_err());
    // Empty tensors: nothing to do, success.
    let e = T::contiguous(F32, &[0, 3]);
    run(act::fast_gelu_v2(&e.desc, &e.desc).unwrap());
    run(act::threshold_v2(&e.desc, &one, &one, &e.desc).unwrap());
    run(act::elu(&e.desc, &one, &one, &one, &e.desc).unwrap());
}

// ---------------------------------------------------------------------------------------
// Gated activations
// ---------------------------------------------------------------------------------------

/// SwiGlu, GeGlu, GeGluV3 against torch (chunk along dim, the activation in f64): random
/// ranks, dims (negative too), even split sizes, views for self and both outputs.
#[test]
fn gated_activations_match_torch() {
    let mut rng = Rng::new(0x6e6e_0002);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); d = a[1].item(); kind = a[2].item(); left = a[3].item()\n\
         A, B = x.chunk(2, d)\n\
         if not left: A, B = B, A\n\
         g = F.silu(A) if kind == 2 else torch.sigmoid(A) if kind == 3 else F.gelu(A, approximate=('tanh' if kind == 1 else 'none'))\n\
         out = (g * B, g)",
    );
    let mut checks = Vec::new();
    for case in 0..200 {
        // kind: 0 GeGlu(V3) none, 1 GeGlu(V3) tanh, 2 SwiGlu, 3 Glu.
        let kind = case % 4;
        let d = if kind == 3 {
            rng.pick(&[F32, F16, BF16, F64])
        } else {
            rng.pick(&[F32, F16, BF16])
        };
        let mut shape = rand_shape(&mut rng, 4);
        if shape.is_empty() {
            shape.push(2);
        }
        let r = shape.len();
        let axis = rng.below(r as u64) as usize;
        shape[axis] = 2
            * (if rng.pct(5) {
                0
            } else {
                1 + rng.below(3) as usize
            });
        let dim = if rng.pct(50) {
            axis as i64 - r as i64
        } else {
            axis as i64
        };
        let mut half = shape.clone();
        half[axis] /= 2;
        let mut x = rand_view(&mut rng, d, &shape, 2);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &half, 2);
        let og = rand_view(&mut rng, d, &half, 2);
        let (left, with_gelu) = match (kind, (case / 4) % 2) {
            (2, _) => (true, false),
            (3, _) => (false, false), // Glu: A·sigmoid(B), the right half activated
            (_, 0) => (false, true),  // GeGlu: the right half
            _ => (rng.pct(50), true),
        };
        let e = match (kind, (case / 4) % 2) {
            (2, _) => act::swi_glu(&x.desc, dim, &o.desc),
            (3, _) => act::glu(&x.desc, dim, &o.desc),
            (k, 0) => act::geglu(&x.desc, dim, k as i64, &o.desc, &og.desc),
            (k, _) => act::geglu_v3(&x.desc, dim, k as i64, left, &o.desc, &og.desc),
        };
        run(e.unwrap());
        assert!(o.outside_untouched() && og.outside_untouched());
        let xs = x.values();
        let c = batch.case(
            prog,
            vec![
                Some(Array::f64s(&shape, &xs)),
                Some(Array::int(dim)),
                Some(Array::int(kind as i64)),
                Some(Array::int(left as i64)),
            ],
        );
        checks.push((c, d, o.values(), with_gelu.then(|| og.values()), xs));
    }
    let Some(results) = batch.run("gated_activations_match_torch") else {
        return;
    };
    for (c, d, got, got_gelu, xs) in checks {
        let want = results[c].as_ref().unwrap();
        let mut w: Vec<f64> = want[0].to_f64s().iter().map(|&v| round_to(d, v)).collect();
        // Where torch's f64 activation underflows to 0 (1 + tanh(u) → 0) and the gate is
        // infinite, torch's 0·inf is NaN and the rule's tiny·inf is ±inf: the rule's stands.
        for (i, g) in want[1].to_f64s().iter().enumerate() {
            if *g == 0.0 && w[i].is_nan() && got[i].is_infinite() {
                w[i] = got[i];
            }
        }
        // |a·b| ≤ max|x|²: the absolute term scales with the largest input.
        let m = xs
            .iter()
            .filter(|v| v.is_finite())
            .fold(1.0f64, |m, v| m.max(v.abs()));
        close("gated out", d, &got, &w, 1.0, &vec![1e-15 * m * m; w.len()]);
        if let Some(g) = got_gelu {
            let w: Vec<f64> = want[1].to_f64s().iter().map(|&v| round_to(d, v)).collect();
            close("outGelu", d, &g, &w, 1.0, &vec![1e-15 * m; w.len()]);
        }
    }
}

#[test]
fn gated_activations_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[2, 6]);
    let o = T::contiguous(F32, &[2, 3]);
    let og = T::contiguous(F32, &[2, 3]);
    let odd = T::contiguous(F32, &[3, 6]);
    let o16 = T::contiguous(F16, &[2, 3]);
    assert!(act::swi_glu(&x.desc, -1, &o.desc).is_ok());
    assert!(act::swi_glu(&x.desc, 2, &o.desc).is_err()); // dim out of range
    assert!(act::swi_glu(&x.desc, 0, &o.desc).is_err()); // out shape (1, 6) expected
    assert!(act::swi_glu(&odd.desc, 0, &o.desc).is_err()); // odd split dim
    assert!(act::swi_glu(&x.desc, 1, &o16.desc).is_err()); // dtype differs
    assert!(act::geglu(&x.desc, 1, 2, &o.desc, &og.desc).is_err()); // approximate 2
    assert!(act::geglu(&x.desc, 1, 0, &o.desc, &o16.desc).is_err());
    assert!(act::geglu_v3(&x.desc, -1, 1, true, &o.desc, &og.desc).is_ok());
    // Outputs that overlap self or each other.
    assert!(act::geglu(&x.desc, 1, 0, &o.desc, &o.desc).is_err());
    let xi = T::contiguous(S32, &[2, 6]);
    assert!(act::swi_glu(&xi.desc, 1, &o.desc).is_err());
}

// ---------------------------------------------------------------------------------------
// Pooling
// ---------------------------------------------------------------------------------------

use crate::ops::{loss as lossop, pool};

const NCHW: i32 = 0;
const NCL: i32 = 47;
const ND: i32 = 2;

/// AvgPool2d and MaxPool (symmetric pads) against torch's avg_pool2d / max_pool2d in f64:
/// random CHW/NCHW shapes (batch 0 too), kernels, strides (or none), paddings up to half
/// the kernel, ceil mode, countIncludePad, divisorOverride, views.
#[test]
fn pooling_matches_torch() {
    let mut rng = Rng::new(0x6e6e_0003);
    let mut batch = Batch::new();
    let avg = batch.program(
        "x = a[0].double(); k = a[1].tolist(); s = a[2].tolist(); p = a[3].tolist()\n\
         o = a[4].tolist()\n\
         out = F.avg_pool2d(x, k, s, p, ceil_mode=bool(o[0]), count_include_pad=bool(o[1]), divisor_override=(o[2] or None))",
    );
    let max = batch.program(
        "x = a[0].double(); k = a[1].tolist(); s = a[2].tolist(); p = a[3].tolist()\n\
         out = F.max_pool2d(x, k, s, p, ceil_mode=bool(a[4].tolist()[0]))",
    );
    let mut checks = Vec::new();
    for case in 0..200 {
        let is_avg = case % 2 == 0;
        let d = if is_avg {
            rng.pick(&[F32, F16, BF16])
        } else {
            rng.pick(&[F32, F16])
        };
        let four = rng.pct(60);
        let (hh, ww) = (1 + rng.below(7) as usize, 1 + rng.below(7) as usize);
        let c = 1 + rng.below(3) as usize;
        let shape: Vec<usize> = if four {
            vec![
                if rng.pct(5) {
                    0
                } else {
                    1 + rng.below(2) as usize
                },
                c,
                hh,
                ww,
            ]
        } else {
            vec![c, hh, ww]
        };
        let k = [1 + rng.below(3) as i64, 1 + rng.below(3) as i64];
        let p = [
            rng.below(k[0] as u64 / 2 + 1) as i64,
            rng.below(k[1] as u64 / 2 + 1) as i64,
        ];
        let s = [1 + rng.below(3) as i64, 1 + rng.below(3) as i64];
        let ceil = rng.pct(50);
        // The output size by torch's formula; skip shapes it leaves empty (checked below).
        let osize = |n: usize, k: i64, s: i64, p: i64| -> i64 {
            let mut o = (n as i64 + 2 * p - k + if ceil { s - 1 } else { 0 }).div_euclid(s) + 1;
            if ceil && (o - 1) * s >= n as i64 + p {
                o -= 1;
            }
            o
        };
        let (oh, ow) = (osize(hh, k[0], s[0], p[0]), osize(ww, k[1], s[1], p[1]));
        if oh <= 0 || ow <= 0 || (hh as i64 + 2 * p[0]) < k[0] || (ww as i64 + 2 * p[1]) < k[1] {
            continue;
        }
        let mut oshape = shape.clone();
        let r = shape.len();
        oshape[r - 2] = oh as usize;
        oshape[r - 1] = ow as usize;
        let fmt = if is_avg {
            if four {
                NCHW
            } else {
                NCL
            }
        } else if four {
            rng.pick(&[NCHW, ND])
        } else {
            ND
        };
        let mut x = rand_view(&mut rng, d, &shape, fmt);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &oshape, fmt);
        let xs = x.values();
        // Strides given as 0 values (= kernel for AvgPool2d, 1 for MaxPool) or 1 or 2.
        let s_arg: Vec<i64> = match rng.below(3) {
            0 if is_avg && s == k => vec![],
            0 if !is_avg && s == [1, 1] => vec![],
            1 if s[0] == s[1] => vec![s[0]],
            _ => s.to_vec(),
        };
        let (incl, div) = (
            rng.pct(50),
            if rng.pct(25) {
                1 + rng.below(9) as i64
            } else {
                0
            },
        );
        let e = if is_avg {
            pool::avg_pool2d(&x.desc, &k, &s_arg, &p, ceil, incl, div, 0, &o.desc)
        } else {
            pool::max_pool(&x.desc, &k, &s_arg, 0, &p, &[1, 1], ceil as i64, &o.desc)
        };
        run(e.unwrap_or_else(|e| panic!("case {case}: {e:?}")));
        assert!(o.outside_untouched());
        let ints = |v: &[i64]| Some(Array::i64s(&[v.len()], v));
        let cid = if is_avg {
            batch.case(
                avg,
                vec![
                    Some(Array::f64s(&shape, &xs)),
                    ints(&k),
                    ints(&s),
                    ints(&p),
                    ints(&[ceil as i64, incl as i64, div]),
                ],
            )
        } else {
            batch.case(
                max,
                vec![
                    Some(Array::f64s(&shape, &xs)),
                    ints(&k),
                    ints(&s),
                    ints(&p),
                    ints(&[ceil as i64]),
                ],
            )
        };
        let m = xs
            .iter()
            .filter(|v| v.is_finite())
            .fold(1.0f64, |m, v| m.max(v.abs()));
        checks.push((cid, d, is_avg, o.values(), m));
    }
    assert!(checks.len() > 120, "{} cases", checks.len());
    let Some(results) = batch.run("pooling_matches_torch") else {
        return;
    };
    for (c, d, is_avg, got, m) in checks {
        let want = results[c].as_ref().unwrap_or_else(|e| panic!("torch: {e}"));
        let w: Vec<f64> = want[0].to_f64s().iter().map(|&v| round_to(d, v)).collect();
        let (ulps, abs) = if is_avg { (1.0, 1e-14 * m) } else { (0.0, 0.0) };
        close(
            if is_avg { "AvgPool2d" } else { "MaxPool" },
            d,
            &got,
            &w,
            ulps,
            &vec![abs; w.len()],
        );
    }
}

/// ggml's MaxPool call (a pre-padded NCHW input, pads 0, dilations 1, strides given) and
/// an asymmetric 4-value pad, by hand; in place (out over self's memory) from the copy.
#[test]
fn max_pool_asymmetric_pads_and_aliasing() {
    let mut x = T::contiguous(F32, &[1, 1, 3, 4]);
    for i in 0..12 {
        x.set(i, i as f64);
    }
    // pads [top, left, bottom, right] = [1, 0, 0, 1], kernel 2, stride 2: out 2×2 over
    // rows {-1,0},{1,2} and cols {0,1},{2,3}.
    let o = T::contiguous(F32, &[1, 1, 2, 2]);
    run(pool::max_pool(
        &x.desc,
        &[2],
        &[2, 2],
        0,
        &[1, 0, 0, 1],
        &[1, 1],
        0,
        &o.desc,
    )
    .unwrap());
    assert_eq!(o.values(), [1.0, 3.0, 9.0, 11.0]);
    // Out over the first elements of self's storage: every input read first.
    let mut alias = x.desc.clone();
    alias.shape = smallvec::smallvec![1, 1, 2, 2];
    alias.strides = smallvec::smallvec![4, 4, 2, 1];
    let e = pool::max_pool(&x.desc, &[2, 2], &[], 0, &[], &[], 1, &alias);
    // stride 1 (empty strides), ceil: out 2×3; the 2×2 alias does not match.
    assert!(e.is_err());
    let e = pool::max_pool(&x.desc, &[2, 3], &[1, 1], 0, &[], &[], 0, &alias).unwrap();
    run(e);
    assert_eq!(
        [x.get(0), x.get(1), x.get(2), x.get(3)],
        [6.0, 7.0, 10.0, 11.0]
    );
}

#[test]
fn pooling_refuses_bad_parameters() {
    let x = T::with_strides(F32, &[1, 2, 4, 4], &[32, 16, 4, 1], 0, NCHW);
    let o = T::with_strides(F32, &[1, 2, 2, 2], &[8, 4, 2, 1], 0, NCHW);
    let o_nd = T::contiguous(F32, &[1, 2, 2, 2]);
    let avg = |k: &[i64], s: &[i64], p: &[i64], out: &T, cube: i64| {
        pool::avg_pool2d(&x.desc, k, s, p, false, true, 0, cube, &out.desc)
    };
    assert!(avg(&[2], &[], &[0], &o, 0).is_ok());
    assert!(avg(&[2], &[], &[0], &o_nd, 0).is_err()); // out not NCHW
    assert!(avg(&[], &[], &[0], &o, 0).is_err()); // no kernel
    assert!(avg(&[2, 2, 2], &[], &[0], &o, 0).is_err());
    assert!(avg(&[2], &[0], &[0], &o, 0).is_err()); // stride 0
    assert!(avg(&[2], &[], &[], &o, 0).is_err()); // no padding
    assert!(avg(&[2], &[], &[2], &o, 0).is_err()); // padding above half the kernel
    assert!(avg(&[2], &[], &[0], &o, 9).is_err()); // cubeMathType
    assert!(avg(&[3], &[], &[0], &o, 0).is_err()); // out shape (1, 2, 1, 1) expected
    let xi = T::with_strides(BF16, &[1, 2, 4, 4], &[32, 16, 4, 1], 0, NCHW);
    let oi = T::with_strides(BF16, &[1, 2, 2, 2], &[8, 4, 2, 1], 0, NCHW);
    assert!(pool::max_pool(&xi.desc, &[2], &[2], 0, &[], &[], 0, &oi.desc).is_err()); // bf16
    let mp = |auto: i64, pads: &[i64], dil: &[i64]| {
        pool::max_pool(&x.desc, &[2], &[2], auto, pads, dil, 0, &o.desc)
    };
    assert!(mp(0, &[], &[]).is_ok());
    assert!(mp(1, &[], &[]).is_err()); // autoPad
    assert!(mp(0, &[], &[2]).is_err()); // dilation
    assert!(mp(0, &[1, 1, 1], &[]).is_err()); // 3 pads
    assert!(mp(0, &[2, 0, 1, 0], &[]).is_err()); // top + bottom > kernel
    let x2 = T::contiguous(F32, &[4, 4]);
    assert!(pool::max_pool(&x2.desc, &[2], &[2], 0, &[], &[], 0, &o.desc).is_err()); // 2-D
    let x0 = T::with_strides(F32, &[1, 0, 4, 4], &[0, 16, 4, 1], 0, NCHW);
    assert!(pool::avg_pool2d(&x0.desc, &[2], &[], &[0], false, true, 0, 0, &o.desc).is_err());
    // C = 0
}

// ---------------------------------------------------------------------------------------
// Losses
// ---------------------------------------------------------------------------------------

/// SoftmaxCrossEntropyWithLogits against torch (log_softmax in f64): random (N, C), views,
/// values from −8 to 8 with large ones mixed in, labels any reals (soft labels).
#[test]
fn softmax_cross_entropy_matches_torch() {
    let mut rng = Rng::new(0x6e6e_0004);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); y = a[1].double(); l = F.log_softmax(x, -1)\n\
         out = (-(y * l).sum(-1), l.exp() - y)",
    );
    let mut checks = Vec::new();
    for _ in 0..80 {
        let d = rng.pick(&[F32, F16, BF16]);
        let (n, c) = (rng.below(5) as usize, 1 + rng.below(9) as usize);
        let mut x = rand_view(&mut rng, d, &[n, c], ND);
        let mut y = rand_view(&mut rng, d, &[n, c], ND);
        for i in 0..n * c {
            let v = rand_value(&mut rng, d);
            x.set(i, if v.is_finite() { v } else { 3.0 });
            y.set(i, rng.below(64) as f64 / 32.0 - 0.5);
        }
        let l = rand_view(&mut rng, d, &[n], ND);
        let bp = rand_view(&mut rng, d, &[n, c], ND);
        run(
            lossop::softmax_cross_entropy_with_logits(&x.desc, &y.desc, &l.desc, &bp.desc).unwrap(),
        );
        assert!(l.outside_untouched() && bp.outside_untouched());
        let (xs, ys) = (x.values(), y.values());
        let id = batch.case(
            prog,
            vec![
                Some(Array::f64s(&[n, c], &xs)),
                Some(Array::f64s(&[n, c], &ys)),
            ],
        );
        let m = xs.iter().fold(1.0f64, |m, v| m.max(v.abs())) * c as f64 * 2.0;
        checks.push((id, d, l.values(), bp.values(), m));
    }
    let Some(results) = batch.run("softmax_cross_entropy_matches_torch") else {
        return;
    };
    for (id, d, l, bp, m) in checks {
        let want = results[id].as_ref().unwrap();
        let wl: Vec<f64> = want[0].to_f64s().iter().map(|&v| round_to(d, v)).collect();
        let wb: Vec<f64> = want[1].to_f64s().iter().map(|&v| round_to(d, v)).collect();
        close("loss", d, &l, &wl, 1.0, &vec![1e-14 * m; wl.len()]);
        close("backprop", d, &bp, &wb, 1.0, &vec![1e-14 * m; wb.len()]);
    }
}

#[test]
fn softmax_cross_entropy_refuses_bad_parameters() {
    let x = T::contiguous(F32, &[2, 3]);
    let y = T::contiguous(F32, &[2, 3]);
    let y16 = T::contiguous(F16, &[2, 3]);
    let l = T::contiguous(F32, &[2]);
    let bp = T::contiguous(F32, &[2, 3]);
    let f = lossop::softmax_cross_entropy_with_logits;
    assert!(f(&x.desc, &y.desc, &l.desc, &bp.desc).is_ok());
    assert!(f(&x.desc, &y16.desc, &l.desc, &bp.desc).is_err());
    assert!(f(&x.desc, &y.desc, &bp.desc, &bp.desc).is_err()); // loss shape
    let l3 = T::contiguous(F32, &[3]);
    assert!(f(&x.desc, &y.desc, &l3.desc, &bp.desc).is_err());
    let x3 = T::contiguous(F32, &[2, 3, 1]);
    assert!(f(&x3.desc, &x3.desc, &l.desc, &bp.desc).is_err()); // 3-D
    assert!(f(&x.desc, &y.desc, &l.desc, &x.desc).is_ok()); // backprop over features
    let xi = T::contiguous(S32, &[2, 3]);
    assert!(f(&xi.desc, &xi.desc, &l.desc, &bp.desc).is_err());
    // Empty: nothing to do.
    let e = T::contiguous(F32, &[0, 3]);
    let le = T::contiguous(F32, &[0]);
    run(f(
        &e.desc,
        &e.desc,
        &le.desc,
        &T::contiguous(F32, &[0, 3]).desc,
    )
    .unwrap());
}

/// MseLoss and SmoothL1Loss against torch in f64: broadcast shapes, mixed dtypes, views,
/// reductions none/mean/sum (empty inputs: NaN mean, 0 sum), beta 0 too.
#[test]
fn elementwise_losses_match_torch() {
    let mut rng = Rng::new(0x6e6e_0005);
    let mut batch = Batch::new();
    let prog = batch.program(
        "import warnings\nwarnings.simplefilter('ignore')\n\
         x = a[0].double(); y = a[1].double(); r = ['none', 'mean', 'sum'][a[2].item()]; beta = a[3].item()\n\
         out = F.mse_loss(x, y, reduction=r) if beta < 0 else F.smooth_l1_loss(x, y, reduction=r, beta=beta)",
    );
    let mut checks = Vec::new();
    for case in 0..120 {
        let (dx, dy) = (rng.pick(&[F32, F16, BF16]), rng.pick(&[F32, F16, BF16]));
        let p = crate::dtype::promote(dx, dy).unwrap();
        let shape = rand_shape(&mut rng, 3);
        let mut ys = shape.clone();
        if !ys.is_empty() && rng.pct(40) {
            ys[0] = 1;
        }
        let mut x = rand_view(&mut rng, dx, &shape, ND);
        let mut y = rand_view(&mut rng, dy, &ys, ND);
        fill(&mut rng, &mut x);
        fill(&mut rng, &mut y);
        let reduction = (case % 3) as i64;
        let smooth = case % 2 == 1;
        let beta = if smooth {
            rng.pick(&[0.0, 0.5, 1.0, 3.0])
        } else {
            -1.0
        };
        let out_d = rng.pick(&[p, p, F32]);
        let o = if reduction == 0 {
            rand_view(&mut rng, out_d, &shape, ND)
        } else {
            T::contiguous(out_d, &[])
        };
        let e = if smooth {
            lossop::smooth_l1_loss(&x.desc, &y.desc, reduction, beta as f32, &o.desc)
        } else {
            lossop::mse_loss(&x.desc, &y.desc, reduction, &o.desc)
        };
        run(e.unwrap());
        let (xv, yv) = (x.values(), y.values());
        let id = batch.case(
            prog,
            vec![
                Some(Array::f64s(&shape, &xv)),
                Some(Array::f64s(&ys, &yv)),
                Some(Array::int(reduction)),
                num(beta),
            ],
        );
        let m = xv
            .iter()
            .chain(&yv)
            .filter(|v| v.is_finite())
            .fold(1.0f64, |m, v| m.max(v.abs()));
        let n = shape.iter().product::<usize>().max(1) as f64;
        checks.push((id, p, out_d, o.values(), 1e-14 * m * m * n));
    }
    let Some(results) = batch.run("elementwise_losses_match_torch") else {
        return;
    };
    for (id, p, out_d, got, abs) in checks {
        let want = results[id]
            .as_ref()
            .unwrap_or_else(|e| panic!("torch: {e}"));
        let w: Vec<f64> = want[0]
            .to_f64s()
            .iter()
            .map(|&v| round_to(out_d, round_to(p, v)))
            .collect();
        close("loss", p, &got, &w, 1.0, &vec![abs; w.len()]);
    }
}

#[test]
fn elementwise_losses_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[2, 3]);
    let y = T::contiguous(F16, &[3]);
    let o = T::contiguous(F32, &[2, 3]);
    let s = T::contiguous(F32, &[]);
    assert!(lossop::mse_loss(&x.desc, &y.desc, 0, &o.desc).is_ok());
    assert!(lossop::mse_loss(&x.desc, &y.desc, 1, &o.desc).is_err()); // not 0-d
    assert!(lossop::mse_loss(&x.desc, &y.desc, 3, &s.desc).is_err());
    assert!(lossop::mse_loss(&x.desc, &y.desc, 0, &s.desc).is_err());
    assert!(lossop::smooth_l1_loss(&x.desc, &y.desc, 2, -1.0, &s.desc).is_err());
    let i = T::contiguous(S32, &[2, 3]);
    assert!(lossop::mse_loss(&i.desc, &i.desc, 0, &i.desc).is_err());
    let y2 = T::contiguous(F32, &[4]);
    assert!(lossop::mse_loss(&x.desc, &y2.desc, 2, &s.desc).is_err()); // no broadcast
}
