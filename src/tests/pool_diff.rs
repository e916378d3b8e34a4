//! Differential tests of the pooling engine's new entries (src/ops/pool.rs): the indexed
//! max pools (MaxPool2dWithIndices, MaxPool3dWithArgmax), AvgPool3d, the adaptive pools
//! and the global pools, called through their rules on random views, against torch 1.13
//! computing in f64 on the exact input values.
//!
//! Bounds: max values and every index exact (torch's choice: first maximum, last NaN);
//! averages within 1 ulp of out's dtype at torch's f64 mean + 1e-14·max|x| (the f64 sum's
//! error); values include NaN, ±inf, ±0 and large magnitudes.

use super::add_diff::Rng;
use super::nn_diff::{close, fill, rand_view, round_to, run, T};
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::ops::pool;

const NCHW: i32 = 0;
const NHWC: i32 = 1;
const ND: i32 = 2;
const NCDHW: i32 = 30;
const NCL: i32 = 47;

/// torch's pooling output size (symmetric padding, dilation 1).
fn osize(n: usize, k: i64, s: i64, p: i64, ceil: bool) -> i64 {
    let mut o = (n as i64 + 2 * p - k + if ceil { s - 1 } else { 0 }).div_euclid(s) + 1;
    if ceil && (o - 1) * s >= n as i64 + p {
        o -= 1;
    }
    o
}

fn ints(v: &[i64]) -> Option<Array> {
    Some(Array::i64s(&[v.len()], v))
}

/// The largest finite magnitude among `xs` (at least 1): the scale of the averages' bound.
fn scale(xs: &[f64]) -> f64 {
    xs.iter()
        .filter(|v| v.is_finite())
        .fold(1.0f64, |m, v| m.max(v.abs()))
}

/// A case's results to compare: torch's case id, dtype, out's values, indices' values,
/// whether out is an average (rounded, bounded) and the input's scale.
struct Check {
    case: usize,
    what: &'static str,
    dtype: DType,
    out: Vec<f64>,
    indices: Option<Vec<f64>>,
    avg: bool,
    scale: f64,
}

fn compare(batch: &Batch, name: &str, checks: Vec<Check>) {
    let Some(results) = batch.run(name) else {
        return;
    };
    for c in checks {
        let want = results[c.case]
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: torch: {e}", c.what));
        let w: Vec<f64> = want[0]
            .to_f64s()
            .iter()
            .map(|&v| round_to(c.dtype, v))
            .collect();
        let (ulps, abs) = if c.avg {
            (1.0, 1e-14 * c.scale)
        } else {
            (0.0, 0.0)
        };
        close(c.what, c.dtype, &c.out, &w, ulps, &vec![abs; w.len()]);
        if let Some(got) = c.indices {
            let wi = super::nn_diff::torch_values(&want[1]);
            assert_eq!(got, wi, "{}: indices", c.what);
        }
    }
}

/// A random (batch?, C, spatial..) shape with `n` spatial dims of 1..=max.
fn shape(rng: &mut Rng, n: usize, max: u64, batched: bool) -> Vec<usize> {
    let mut s = Vec::new();
    if batched {
        s.push(if rng.pct(5) {
            0
        } else {
            1 + rng.below(2) as usize
        });
    }
    s.push(1 + rng.below(3) as usize);
    for _ in 0..n {
        s.push(1 + rng.below(max) as usize);
    }
    s
}

/// MaxPool2dWithIndices (int32/int64 indices) and MaxPool3dWithArgmax (int32) against
/// torch's max_pool2d/3d(return_indices=True): random shapes (batch 0 too), kernels,
/// strides (or none), paddings up to half the kernel, ceil mode, views.
#[test]
fn indexed_max_pools_match_torch() {
    let mut rng = Rng::new(0x9001_0001);
    let mut batch = Batch::new();
    let progs = [2, 3].map(|n| {
        batch.program(&format!(
            "x = a[0].double(); k = a[1].tolist(); s = a[2].tolist(); p = a[3].tolist()\n\
             out = F.max_pool{n}d(x, k, s, p, ceil_mode=bool(a[4].item()), return_indices=True)"
        ))
    });
    let mut checks = Vec::new();
    for case in 0..240 {
        let n = if case % 2 == 0 { 2 } else { 3 };
        let d = rng.pick(&[F32, F16, BF16]);
        let batched = rng.pct(60);
        let sh = shape(&mut rng, n, if n == 2 { 7 } else { 5 }, batched);
        let r = sh.len();
        let k: Vec<i64> = (0..n).map(|_| 1 + rng.below(3) as i64).collect();
        let p: Vec<i64> = k
            .iter()
            .map(|&k| rng.below(k as u64 / 2 + 1) as i64)
            .collect();
        let s: Vec<i64> = (0..n).map(|_| 1 + rng.below(3) as i64).collect();
        let ceil = rng.pct(50);
        let mut oshape = sh.clone();
        let mut ok = true;
        for i in 0..n {
            let o = osize(sh[r - n + i], k[i], s[i], p[i], ceil);
            ok &= o > 0;
            oshape[r - n + i] = o.max(0) as usize;
        }
        if !ok {
            continue;
        }
        let fmt = match (n, batched) {
            (2, true) => rng.pick(&[NCHW, ND]),
            (3, true) => rng.pick(&[NCDHW, ND]),
            (3, false) => rng.pick(&[NCHW, ND]),
            _ => ND,
        };
        let idt = if n == 2 { rng.pick(&[S32, S64]) } else { S32 };
        let mut x = rand_view(&mut rng, d, &sh, fmt);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &oshape, fmt);
        let ix = rand_view(&mut rng, idt, &oshape, fmt);
        let s_arg = if s == k && rng.pct(50) {
            vec![]
        } else if s.iter().all(|&v| v == s[0]) && rng.pct(50) {
            vec![s[0]]
        } else {
            s.clone()
        };
        let k_arg = if k.iter().all(|&v| v == k[0]) && rng.pct(50) {
            vec![k[0]]
        } else {
            k.clone()
        };
        let dil = if rng.pct(50) { vec![1] } else { vec![1; n] };
        let e = if n == 2 {
            pool::max_pool2d_with_indices(
                &x.desc, &k_arg, &s_arg, &p, &dil, ceil, &o.desc, &ix.desc,
            )
        } else {
            pool::max_pool3d_with_argmax(&x.desc, &k_arg, &s_arg, &p, &dil, ceil, &o.desc, &ix.desc)
        };
        run(e.unwrap_or_else(|e| panic!("case {case}: {e:?}")));
        assert!(o.outside_untouched() && ix.outside_untouched());
        let xs = x.values();
        let id = batch.case(
            progs[n - 2],
            vec![
                Some(Array::f64s(&sh, &xs)),
                ints(&k),
                ints(&s),
                ints(&p),
                ints(&[ceil as i64]),
            ],
        );
        checks.push(Check {
            case: id,
            what: if n == 2 {
                "MaxPool2dWithIndices"
            } else {
                "MaxPool3dWithArgmax"
            },
            dtype: d,
            out: o.values(),
            indices: Some(ix.values()),
            avg: false,
            scale: 1.0,
        });
    }
    assert!(checks.len() > 150, "{} cases", checks.len());
    compare(&batch, "indexed_max_pools_match_torch", checks);
}

/// AvgPool3d against torch's avg_pool3d: kernels up to the input size, strides, paddings,
/// ceil mode, countIncludePad, divisorOverride, views.
#[test]
fn avg_pool3d_matches_torch() {
    let mut rng = Rng::new(0x9001_0002);
    let mut batch = Batch::new();
    let prog = batch.program(
        "x = a[0].double(); k = a[1].tolist(); s = a[2].tolist(); p = a[3].tolist()\n\
         o = a[4].tolist()\n\
         out = F.avg_pool3d(x, k, s, p, ceil_mode=bool(o[0]), count_include_pad=bool(o[1]), divisor_override=(o[2] or None))",
    );
    let mut checks = Vec::new();
    for case in 0..150 {
        let d = rng.pick(&[F32, F16, BF16]);
        let batched = rng.pct(60);
        let sh = shape(&mut rng, 3, 5, batched);
        let r = sh.len();
        let k: Vec<i64> = (0..3)
            .map(|i| 1 + rng.below(sh[r - 3 + i].min(3) as u64) as i64)
            .collect();
        let p: Vec<i64> = k
            .iter()
            .map(|&k| rng.below(k as u64 / 2 + 1) as i64)
            .collect();
        let s: Vec<i64> = (0..3).map(|_| 1 + rng.below(3) as i64).collect();
        let ceil = rng.pct(50);
        let mut oshape = sh.clone();
        for i in 0..3 {
            oshape[r - 3 + i] = osize(sh[r - 3 + i], k[i], s[i], p[i], ceil) as usize;
        }
        let fmt = rng.pick(&[ND, if batched { NCDHW } else { NCHW }]);
        let mut x = rand_view(&mut rng, d, &sh, fmt);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &oshape, fmt);
        let s_arg = if s == k && rng.pct(50) {
            vec![]
        } else {
            s.clone()
        };
        let (incl, div) = (
            rng.pct(50),
            if rng.pct(25) {
                1 + rng.below(9) as i64
            } else {
                0
            },
        );
        let e = pool::avg_pool3d(&x.desc, &k, &s_arg, &p, ceil, incl, div, &o.desc);
        run(e.unwrap_or_else(|e| panic!("case {case}: {e:?}")));
        assert!(o.outside_untouched());
        let xs = x.values();
        let id = batch.case(
            prog,
            vec![
                Some(Array::f64s(&sh, &xs)),
                ints(&k),
                ints(&s),
                ints(&p),
                ints(&[ceil as i64, incl as i64, div]),
            ],
        );
        checks.push(Check {
            case: id,
            what: "AvgPool3d",
            dtype: d,
            out: o.values(),
            indices: None,
            avg: true,
            scale: scale(&xs),
        });
    }
    compare(&batch, "avg_pool3d_matches_torch", checks);
}

/// The adaptive pools against torch's adaptive_{avg,max}_pool{2,3}d: output sizes below,
/// equal to and above the input's, NHWC for AdaptiveMaxPool2d, f64 there too, views.
#[test]
fn adaptive_pools_match_torch() {
    let mut rng = Rng::new(0x9001_0003);
    let mut batch = Batch::new();
    let avg = [2, 3].map(|n| {
        batch.program(&format!(
            "out = F.adaptive_avg_pool{n}d(a[0].double(), a[1].tolist())"
        ))
    });
    let max = [2, 3].map(|n| {
        batch.program(&format!(
            "out = F.adaptive_max_pool{n}d(a[0].double(), a[1].tolist(), return_indices=True)"
        ))
    });
    let max_nhwc = batch.program(
        "v, i = F.adaptive_max_pool2d(a[0].double().permute(0, 3, 1, 2), a[1].tolist(), return_indices=True)\n\
         out = (v.permute(0, 2, 3, 1), i.permute(0, 2, 3, 1))",
    );
    let mut checks = Vec::new();
    for case in 0..240 {
        let n = 2 + (case / 2) % 2;
        let is_max = case % 2 == 1;
        let batched = rng.pct(60);
        let nhwc = is_max && n == 2 && batched && rng.pct(30);
        let d = if is_max && n == 2 {
            rng.pick(&[F32, F16, BF16, F64])
        } else {
            rng.pick(&[F32, F16, BF16])
        };
        let mut sh = shape(&mut rng, n, if n == 2 { 9 } else { 6 }, batched);
        let size: Vec<i64> = (0..n).map(|_| 1 + rng.below(6) as i64).collect();
        let r = sh.len();
        let mut oshape = sh.clone();
        for i in 0..n {
            oshape[r - n + i] = size[i] as usize;
        }
        if nhwc {
            // (N, C, H, W) drawn; the tensors are (N, H, W, C).
            sh = vec![sh[0], sh[2], sh[3], sh[1]];
            oshape = vec![oshape[0], oshape[2], oshape[3], oshape[1]];
        }
        let fmt = match (n, batched, nhwc) {
            (_, _, true) => NHWC,
            (2, true, _) => NCHW,
            (2, false, _) => {
                if is_max {
                    rng.pick(&[NCL, ND])
                } else {
                    NCL
                }
            }
            (3, true, _) => rng.pick(&[NCDHW, ND]),
            _ => rng.pick(&[NCHW, ND]),
        };
        let mut x = rand_view(&mut rng, d, &sh, fmt);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &oshape, fmt);
        let idt = if n == 2 { S64 } else { S32 };
        let ix = rand_view(&mut rng, idt, &oshape, fmt);
        let e = match (is_max, n) {
            (false, 2) => pool::adaptive_avg_pool2d(&x.desc, &size, &o.desc),
            (false, _) => pool::adaptive_avg_pool3d(&x.desc, &size, &o.desc),
            (true, 2) => pool::adaptive_max_pool2d(&x.desc, &size, &o.desc, &ix.desc),
            (true, _) => pool::adaptive_max_pool3d(&x.desc, &size, &o.desc, &ix.desc),
        };
        run(e.unwrap_or_else(|e| panic!("case {case}: {e:?}")));
        assert!(o.outside_untouched() && ix.outside_untouched());
        let xs = x.values();
        let prog = match (is_max, nhwc) {
            (false, _) => avg[n - 2],
            (true, false) => max[n - 2],
            (true, true) => max_nhwc,
        };
        let id = batch.case(prog, vec![Some(Array::f64s(&sh, &xs)), ints(&size)]);
        checks.push(Check {
            case: id,
            what: match (is_max, n) {
                (false, 2) => "AdaptiveAvgPool2d",
                (false, _) => "AdaptiveAvgPool3d",
                (true, 2) => "AdaptiveMaxPool2d",
                (true, _) => "AdaptiveMaxPool3d",
            },
            dtype: d,
            out: o.values(),
            indices: is_max.then(|| ix.values()),
            avg: !is_max,
            scale: scale(&xs),
        });
    }
    compare(&batch, "adaptive_pools_match_torch", checks);
}

/// GlobalAveragePool and GlobalMaxPool against torch's mean/amax over dims 2.. (keepdim),
/// 4-D to 6-D, views.
#[test]
fn global_pools_match_torch() {
    let mut rng = Rng::new(0x9001_0004);
    let mut batch = Batch::new();
    let mean = batch
        .program("x = a[0].double(); out = x.mean(dim=tuple(range(2, x.dim())), keepdim=True)");
    let amax = batch
        .program("x = a[0].double(); out = x.amax(dim=tuple(range(2, x.dim())), keepdim=True)");
    let mut checks = Vec::new();
    for case in 0..120 {
        let is_max = case % 2 == 1;
        let d = if is_max {
            rng.pick(&[F32, F16, F64])
        } else {
            rng.pick(&[F32, F16, F64, BF16])
        };
        let r = 4 + rng.below(3) as usize;
        let sh: Vec<usize> = (0..r)
            .map(|i| {
                if i == 0 && rng.pct(5) {
                    0
                } else {
                    1 + rng.below(4) as usize
                }
            })
            .collect();
        let mut oshape = sh.clone();
        oshape[2..].iter_mut().for_each(|v| *v = 1);
        let fmt = match r {
            4 => rng.pick(&[ND, NCHW]),
            5 => rng.pick(&[ND, NCDHW]),
            _ => ND,
        };
        let mut x = rand_view(&mut rng, d, &sh, fmt);
        fill(&mut rng, &mut x);
        let o = rand_view(&mut rng, d, &oshape, fmt);
        let e = if is_max {
            pool::global_max_pool(&x.desc, &o.desc)
        } else {
            pool::global_average_pool(&x.desc, &o.desc)
        };
        run(e.unwrap_or_else(|e| panic!("case {case}: {e:?}")));
        assert!(o.outside_untouched());
        let xs = x.values();
        let id = batch.case(
            if is_max { amax } else { mean },
            vec![Some(Array::f64s(&sh, &xs))],
        );
        checks.push(Check {
            case: id,
            what: if is_max {
                "GlobalMaxPool"
            } else {
                "GlobalAveragePool"
            },
            dtype: d,
            out: o.values(),
            indices: None,
            avg: !is_max,
            scale: scale(&xs),
        });
    }
    compare(&batch, "global_pools_match_torch", checks);
}

/// Indices by hand: torch's choices among ties (the first maximum), NaN (the last NaN)
/// and all −inf (the window's first input element), padding never chosen; an out over
/// self's memory computed from the copy.
#[test]
fn indexed_max_pool_ties_and_aliasing() {
    let mut x = T::contiguous(F32, &[1, 1, 2, 4]);
    let v = [
        1.0,
        1.0,
        f64::NAN,
        f64::NEG_INFINITY,
        1.0,
        f64::NAN,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for (i, &a) in v.iter().enumerate() {
        x.set(i, a);
    }
    let o = T::contiguous(F32, &[1, 1, 1, 2]);
    let ix = T::contiguous(S64, &[1, 1, 1, 2]);
    run(
        pool::max_pool2d_with_indices(&x.desc, &[2], &[], &[0], &[1], false, &o.desc, &ix.desc)
            .unwrap(),
    );
    assert!(o.get(0).is_nan());
    assert_eq!(ix.values(), [5.0, 2.0]);
    // Ties: the first.
    let mut y = T::contiguous(F32, &[1, 2, 2]);
    for i in 0..4 {
        y.set(i, 2.0);
    }
    let (o1, i1) = (
        T::contiguous(F32, &[1, 1, 1]),
        T::contiguous(S32, &[1, 1, 1]),
    );
    run(
        pool::max_pool2d_with_indices(&y.desc, &[2], &[], &[0], &[1], false, &o1.desc, &i1.desc)
            .unwrap(),
    );
    assert_eq!((o1.get(0), i1.get(0)), (2.0, 0.0));
    // All −inf with padding 1: the first input element of the window.
    let mut z = T::contiguous(F32, &[1, 2, 2]);
    for i in 0..4 {
        z.set(i, f64::NEG_INFINITY);
    }
    let (o2, i2) = (
        T::contiguous(F32, &[1, 3, 3]),
        T::contiguous(S32, &[1, 3, 3]),
    );
    run(
        pool::max_pool2d_with_indices(&z.desc, &[2], &[1], &[1], &[1], false, &o2.desc, &i2.desc)
            .unwrap(),
    );
    assert_eq!(i2.values(), [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 3.0]);
    assert!(o2.values().iter().all(|&v| v == f64::NEG_INFINITY));
    // Out over self's first elements: every input read first.
    let mut w = T::contiguous(F32, &[1, 1, 4]);
    for i in 0..4 {
        w.set(i, [3.0, 1.0, 4.0, 1.5][i]);
    }
    let mut alias = w.desc.clone();
    alias.shape = smallvec::smallvec![1, 1, 3];
    alias.strides = smallvec::smallvec![3, 3, 1];
    let i3 = T::contiguous(S64, &[1, 1, 3]);
    run(
        pool::max_pool2d_with_indices(&w.desc, &[1, 2], &[1], &[0], &[1], false, &alias, &i3.desc)
            .unwrap(),
    );
    assert_eq!([w.get(0), w.get(1), w.get(2)], [3.0, 4.0, 4.0]);
    assert_eq!(i3.values(), [0.0, 2.0, 2.0]);
}

#[test]
fn pools_refuse_bad_parameters() {
    let x = T::contiguous(F32, &[1, 2, 4, 4]);
    let o = T::contiguous(F32, &[1, 2, 2, 2]);
    let i64s = T::contiguous(S64, &[1, 2, 2, 2]);
    let i32s = T::contiguous(S32, &[1, 2, 2, 2]);
    let mp = |k: &[i64], s: &[i64], p: &[i64], d: &[i64], idx: &T| {
        pool::max_pool2d_with_indices(&x.desc, k, s, p, d, false, &o.desc, &idx.desc)
    };
    assert!(mp(&[2], &[], &[0], &[1], &i64s).is_ok());
    assert!(mp(&[2], &[], &[0], &[1], &i32s).is_ok());
    assert!(mp(&[2], &[], &[0], &[2], &i64s).is_err()); // dilation 2 (A2)
    assert!(mp(&[2], &[], &[0], &[], &i64s).is_err()); // no dilation
    assert!(mp(&[2], &[], &[2], &[1], &i64s).is_err()); // padding > kernel/2
    assert!(mp(&[2], &[0], &[0], &[1], &i64s).is_err()); // stride 0
    assert!(mp(&[2, 2, 2], &[], &[0], &[1], &i64s).is_err());
    assert!(mp(&[3], &[], &[0], &[1], &i64s).is_err()); // out shape
    assert!(mp(&[2], &[], &[0], &[1], &o).is_err()); // float indices
                                                     // out and indices over one memory.
    let e = pool::max_pool2d_with_indices(&x.desc, &[2], &[], &[0], &[1], false, &o.desc, &{
        let mut a = o.desc.clone();
        a.dtype = S32;
        a
    });
    assert!(e.is_err());
    let nhwc = T::with_strides(F32, &[1, 4, 4, 2], &[32, 8, 2, 1], 0, NHWC);
    let onhwc = T::with_strides(F32, &[1, 2, 2, 2], &[8, 4, 2, 1], 0, NHWC);
    let e = pool::max_pool2d_with_indices(
        &nhwc.desc,
        &[2],
        &[],
        &[0],
        &[1],
        false,
        &onhwc.desc,
        &i64s.desc,
    );
    assert!(e.is_err()); // NHWC (A2)
                         // The mask form is refused.
    let m = T::contiguous(S8, &[1, 2, 4, 64]);
    assert!(
        pool::max_pool2d_with_mask(&x.desc, &[2], &[], &[0], &[1], false, &o.desc, &m.desc)
            .is_err()
    );
    // 3-D: int32 indices only, dilation 1.
    let x3 = T::contiguous(F32, &[1, 1, 4, 4, 4]);
    let o3 = T::contiguous(F32, &[1, 1, 2, 2, 2]);
    let (a32, a64) = (
        T::contiguous(S32, &[1, 1, 2, 2, 2]),
        T::contiguous(S64, &[1, 1, 2, 2, 2]),
    );
    let m3 = |idx: &T, d: &[i64]| {
        pool::max_pool3d_with_argmax(&x3.desc, &[2], &[], &[0], d, false, &o3.desc, &idx.desc)
    };
    assert!(m3(&a32, &[1]).is_ok());
    assert!(m3(&a64, &[1]).is_err());
    assert!(m3(&a32, &[1, 2, 1]).is_err());
    assert!(m3(&a32, &[1, 1]).is_err());
    // AvgPool3d: the kernel may not exceed the input.
    let x3s = T::contiguous(F32, &[1, 1, 2, 4, 4]);
    let o3s = T::contiguous(F32, &[1, 1, 1, 1, 1]);
    assert!(pool::avg_pool3d(&x3s.desc, &[3], &[], &[1], false, true, 0, &o3s.desc).is_err());
    assert!(pool::avg_pool3d(&x3.desc, &[2], &[], &[0, 0], false, true, 0, &o3.desc).is_err());
    assert!(pool::avg_pool3d(&x3.desc, &[2], &[], &[0], false, true, 0, &o3.desc).is_ok());
    // Adaptive: outputSize length and values, formats, indices dtypes.
    let oa = T::with_strides(F32, &[1, 2, 2, 2], &[8, 4, 2, 1], 0, NCHW);
    let xa = T::with_strides(F32, &[1, 2, 4, 4], &[32, 16, 4, 1], 0, NCHW);
    assert!(pool::adaptive_avg_pool2d(&xa.desc, &[2, 2], &oa.desc).is_ok());
    assert!(pool::adaptive_avg_pool2d(&x.desc, &[2, 2], &o.desc).is_err()); // ND
    assert!(pool::adaptive_avg_pool2d(&xa.desc, &[2], &oa.desc).is_err());
    assert!(pool::adaptive_avg_pool2d(&xa.desc, &[2, 0], &oa.desc).is_err());
    assert!(pool::adaptive_max_pool2d(&x.desc, &[2, 2], &o.desc, &i64s.desc).is_ok());
    assert!(pool::adaptive_max_pool2d(&x.desc, &[2, 2], &o.desc, &i32s.desc).is_err());
    assert!(pool::adaptive_max_pool2d(&x.desc, &[2, -1], &o.desc, &i64s.desc).is_err());
    assert!(pool::adaptive_max_pool3d(&x3.desc, &[2, 2, 2], &o3.desc, &a32.desc).is_ok());
    assert!(pool::adaptive_max_pool3d(&x3.desc, &[2, 2, 2], &o3.desc, &a64.desc).is_err());
    assert!(pool::adaptive_avg_pool3d(&x3.desc, &[2, 2], &o3.desc).is_err());
    let empty_c = T::contiguous(F32, &[1, 0, 4, 4]);
    let empty_o = T::contiguous(F32, &[1, 0, 2, 2]);
    assert!(pool::adaptive_max_pool2d(
        &empty_c.desc,
        &[2, 2],
        &empty_o.desc,
        &T::contiguous(S64, &[1, 0, 2, 2]).desc
    )
    .is_err());
    // Global pools: 4-D to 8-D, out (N, C, 1, ..), GlobalMaxPool has no bf16.
    let g = T::contiguous(F32, &[2, 3, 1, 1]);
    assert!(pool::global_average_pool(&x.desc, &T::contiguous(F32, &[1, 2, 1, 1]).desc).is_ok());
    assert!(pool::global_average_pool(&x.desc, &g.desc).is_err());
    assert!(pool::global_average_pool(
        &T::contiguous(F32, &[2, 3, 4]).desc,
        &T::contiguous(F32, &[2, 3, 1]).desc
    )
    .is_err());
    let xb = T::contiguous(BF16, &[1, 2, 4, 4]);
    let ob = T::contiguous(BF16, &[1, 2, 1, 1]);
    assert!(pool::global_average_pool(&xb.desc, &ob.desc).is_ok());
    assert!(pool::global_max_pool(&xb.desc, &ob.desc).is_err());
}
