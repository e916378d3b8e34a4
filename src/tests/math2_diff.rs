//! Differential tests of the whole-tensor and list operators of the math library:
//! AminmaxAll, AminmaxDim (ops/extrema.rs), MaxN, MinN, AddN (ops/nary.rs), Trace, Dot,
//! Equal, InplaceOne (ops/whole.rs), through their C entry points.
//!
//! Random cases: shapes of rank 0-3 (empty ones where the operator allows them), a random
//! view for every tensor (axes in a random order, gaps, an offset), every dtype of the
//! operator's list, "nice" values (NaN, ±inf, ±0, small multiples of 1/4; integers of any
//! bits). References are f64/i128 loops written here from the definitions:
//!
//! - extremes: NaN is the maximum and the minimum; between −0 and +0 any zero (Aminmax) or
//!   torch.maximum's +0 / torch.minimum's −0 (MaxN/MinN, byte exact);
//! - AddN: ((t₀ + t₁) + t₂) …, each partial sum rounded to f32 then to the dtype (f16/bf16
//!   add in f32), integers wrapping: byte exact;
//! - Trace and Dot: the f64 sum (of the diagonal; of the products, in index order) rounded
//!   once to out's dtype, integers wrapping (Dot truncated to its dtype): byte exact;
//! - Equal: values compared after promotion (NaN equals nothing), shapes first.
//!
//! torch checks a sample of AminmaxDim, MaxN, AddN, Trace and Dot (float cases without
//! NaN: torch's rounding of f16 dot products is its own, so Dot within 1e-3 relative). Every
//! output leaves the storage outside its view untouched.

use super::add_diff::Rng;
use super::shape_diff::{
    call, dec, enc, err, fill, int_value, pick, rand_shape, untouched, Dev, View,
};
use super::torch_ref::{Array, Batch};
use crate::capi::meta::{aclCreateTensorList, aclTensor, aclTensorList};
use crate::capi::ops;
use crate::dtype::DType::{self, *};

const ND: i32 = 2;
const INVALID: i32 = 161002;
const NULLPTR: i32 = 161001;

/// A value for the references: a float or an integer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    F(f64),
    I(i128),
}

fn val(d: DType, b: &[u8]) -> V {
    if d.is_float() {
        V::F(dec(d, b))
    } else if d == Bool {
        V::I((b[0] != 0) as i128)
    } else {
        V::I(int_value(d, b))
    }
}

/// The bytes of `v` in `d` (integers truncated to d's width, floats rounded).
fn bytes(d: DType, v: V) -> Vec<u8> {
    match v {
        V::F(x) => enc(d, x),
        V::I(i) if d == Bool => vec![(i != 0) as u8],
        V::I(i) => (i as i64).to_le_bytes()[..d.size()].to_vec(),
    }
}

/// Equal bytes, or two NaNs.
fn same(d: DType, got: &[u8], want: &[u8]) -> bool {
    got == want || (d.is_float() && dec(d, got).is_nan() && dec(d, want).is_nan())
}

/// Elements of a view in row-major order.
fn elems(v: &View, mem: &[u8]) -> Vec<V> {
    v.indices()
        .iter()
        .map(|i| val(v.dtype, v.elem(mem, v.at(i))))
        .collect()
}

fn list(ts: &[*mut aclTensor]) -> *mut aclTensorList {
    let hs: Vec<*const aclTensor> = ts.iter().map(|&t| t as *const _).collect();
    // SAFETY: hs holds hs.len() live tensors (the list is leaked: Dev destroys them).
    let l = unsafe { aclCreateTensorList(hs.as_ptr(), hs.len() as u64) };
    assert!(!l.is_null(), "{}", err());
    l
}

/// max (`hi`) or min with NaN propagating and torch's ±0 rule.
fn extreme(a: V, b: V, hi: bool) -> V {
    match (a, b) {
        (V::F(x), V::F(y)) => V::F(if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x == y {
            if (x.is_sign_negative() && hi) || (!x.is_sign_negative() && !hi) {
                y
            } else {
                x
            }
        } else if (x > y) == hi {
            x
        } else {
            y
        }),
        (V::I(x), V::I(y)) => V::I(if hi { x.max(y) } else { x.min(y) }),
        _ => unreachable!(),
    }
}

fn to_f64(v: V) -> f64 {
    match v {
        V::F(x) => x,
        V::I(i) => i as f64,
    }
}

/// Runs a torch batch and checks each case's first output with `check`.
fn torch_check(torch: &Batch, what: &str, cases: &[(usize, Vec<u8>, DType, String)], rel: f64) {
    let Some(res) = torch.run(what) else { return };
    for (k, got, d, what) in cases {
        let outs = match &res[*k] {
            Ok(o) => o,
            Err(e) => panic!("{what}: torch raised {e}"),
        };
        let want = &outs[0];
        let (g, w) = (dec(*d, got), dec(want.dtype, want.elem(0)));
        let ok = if rel == 0.0 {
            g == w || (g.is_nan() && w.is_nan())
        } else {
            (g - w).abs() <= rel * w.abs().max(1.0) || (g.is_nan() && w.is_nan())
        };
        assert!(ok, "{what}: {g} vs torch {w}");
    }
}

const AMINMAX: &[DType] = &[F32, BF16, F16, F64, S8, S16, S32, S64, U8, Bool];

#[test]
fn aminmax_all_and_dim_give_each_lines_extremes() {
    let mut rng = Rng::new(0x2101);
    let mut torch = Batch::new();
    let prog =
        torch.program("out = torch.aminmax(a[0], dim=a[1].item(), keepdim=bool(a[2].item()))[0]");
    let mut tcases = vec![];
    for case in 0..400 {
        let d = pick(&mut rng, AMINMAX);
        let all = rng.pct(40);
        let rank = rng.below(4) as usize;
        let mut shape = rand_shape(&mut rng, rank, 5, if all { 8 } else { 4 });
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            None
        } else {
            Some(dim.rem_euclid(rank as i64) as usize)
        };
        if let (false, Some(a)) = (all, axis) {
            shape[a] = shape[a].max(1);
        }
        let keep = rng.pct(50);
        let out_shape: Vec<usize> = if all {
            if rng.pct(50) {
                vec![]
            } else {
                vec![1; rng.below(3) as usize]
            }
        } else {
            let mut s = shape.clone();
            if let Some(a) = axis {
                if keep {
                    s[a] = 1
                } else {
                    s.remove(a);
                }
            }
            s
        };
        let sv = View::random(&mut rng, d, &shape);
        let sm = fill(&mut rng, &sv);
        let (nv, xv) = (
            View::random(&mut rng, d, &out_shape),
            View::random(&mut rng, d, &out_shape),
        );
        let (nm, xm) = (fill(&mut rng, &nv), fill(&mut rng, &xv));
        let mut dev = Dev::new();
        let (s, n, x) = (dev.upload(&sm), dev.upload(&nm), dev.upload(&xm));
        let (st, nt, xt) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&nv, n, ND),
            dev.tensor(&xv, x, ND),
        );
        let r = if all {
            call(
                |w, e| unsafe {
                    ops::aminmax_all::aclnnAminmaxAllGetWorkspaceSize(st, nt, xt, w, e)
                },
                ops::aminmax_all::aclnnAminmaxAll,
            )
        } else {
            call(
                |w, e| unsafe {
                    ops::aminmax_dim::aclnnAminmaxDimGetWorkspaceSize(st, dim, keep, nt, xt, w, e)
                },
                ops::aminmax_dim::aclnnAminmaxDim,
            )
        };
        let what = format!("case {case} {d} {shape:?} all {all} dim {dim} keep {keep}");
        r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let (ng, xg) = (dev.download(n), dev.download(x));
        untouched(&nv, &nm, &ng)
            .and_then(|_| untouched(&xv, &xm, &xg))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        if sv.numel() == 0 {
            assert_eq!(
                (&ng, &xg),
                (&nm, &xm),
                "{what}: an empty self writes nothing"
            );
            continue;
        }
        // Lines: every element (all, or a 0-d self), else the lines along the axis.
        let lines: Vec<(Vec<usize>, Vec<V>)> = match (all, axis) {
            (false, Some(a)) => sv
                .indices()
                .into_iter()
                .filter(|i| i[a] == 0)
                .map(|start| {
                    let vals = (0..shape[a])
                        .map(|k| {
                            let mut i = start.clone();
                            i[a] = k;
                            val(d, sv.elem(&sm, sv.at(&i)))
                        })
                        .collect();
                    let mut o = start.clone();
                    if !keep {
                        o.remove(a);
                    }
                    (o, vals)
                })
                .collect(),
            _ => vec![(vec![0; out_shape.len()], elems(&sv, &sm))],
        };
        for (o, vals) in lines {
            for (hi, view, got) in [(false, &nv, &ng), (true, &xv, &xg)] {
                let want = vals
                    .iter()
                    .copied()
                    .reduce(|a, b| extreme(a, b, hi))
                    .unwrap();
                let g = val(d, view.elem(got, view.at(&o)));
                let ok = match (g, want) {
                    (V::F(a), V::F(b)) => a == b || (a.is_nan() && b.is_nan()),
                    _ => g == want,
                };
                assert!(
                    ok,
                    "{what}: {} at {o:?} is {g:?}, want {want:?}",
                    if hi { "max" } else { "min" }
                );
            }
        }
        if !all && rank > 0 && tcases.len() < 60 && matches!(d, F32 | F64 | S32 | S64) {
            let k = torch.case(
                prog,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::int(dim)),
                    Some(Array::int(keep as i64)),
                ],
            );
            let o0 = vec![0; out_shape.len()];
            if nv.numel() > 0 {
                tcases.push((k, nv.elem(&ng, nv.at(&o0)).to_vec(), d, what));
            }
        }
    }
    torch_check(&torch, "aminmax", &tcases, 0.0);
}

const EXTREME: &[DType] = &[F16, F32, S8, S32, S64, BF16];
const ADDN: &[DType] = &[S32, S64, F16, BF16, F32];

/// Shapes that broadcast to `out` (a dim kept, set to 1, or leading dims dropped).
fn broadcastable(rng: &mut Rng, out: &[usize]) -> Vec<usize> {
    let drop = rng.below(out.len() as u64 + 1) as usize;
    out[drop..]
        .iter()
        .map(|&n| if rng.pct(30) { 1 } else { n })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum List {
    Max,
    Min,
    Add,
}

/// ((a + b) rounded to f32, then to d), integers wrapping to d.
fn add_in(d: DType, a: V, b: V) -> V {
    match (a, b) {
        (V::F(x), V::F(y)) => V::F(dec(d, &enc(d, (x + y) as f32 as f64))),
        (V::I(x), V::I(y)) => V::I(int_value(d, &bytes(d, V::I(x.wrapping_add(y))))),
        _ => unreachable!(),
    }
}

#[test]
fn maxn_minn_addn_fold_the_list() {
    let mut rng = Rng::new(0x2102);
    let mut torch = Batch::new();
    let progs = [
        torch.program("import functools\nout = functools.reduce(torch.maximum, a).flatten()[:1]"),
        torch.program("import functools\nout = functools.reduce(torch.minimum, a).flatten()[:1]"),
        torch.program("import functools\nout = functools.reduce(torch.add, a).flatten()[:1]"),
    ];
    let mut tcases = vec![];
    for case in 0..400 {
        let op = [List::Max, List::Min, List::Add][rng.below(3) as usize];
        let d = pick(&mut rng, if op == List::Add { ADDN } else { EXTREME });
        let rank = rng.below(4) as usize;
        let out_shape = rand_shape(&mut rng, rank, 4, 5);
        let count = 1 + rng.below(4) as usize;
        let shapes: Vec<Vec<usize>> = (0..count)
            .map(|_| {
                if op == List::Add {
                    out_shape.clone()
                } else {
                    broadcastable(&mut rng, &out_shape)
                }
            })
            .collect();
        // At least one member has out's full shape (else the broadcast shape is smaller).
        let mut shapes = shapes;
        shapes[rng.below(count as u64) as usize] = out_shape.clone();
        let views: Vec<View> = shapes
            .iter()
            .map(|s| View::random(&mut rng, d, s))
            .collect();
        let mems: Vec<Vec<u8>> = views.iter().map(|v| fill(&mut rng, v)).collect();
        let ov = View::random(&mut rng, d, &out_shape);
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let ts: Vec<*mut aclTensor> = views
            .iter()
            .zip(&mems)
            .map(|(v, m)| {
                let k = dev.upload(m);
                dev.tensor(v, k, ND)
            })
            .collect();
        let o = dev.upload(&om);
        let ot = dev.tensor(&ov, o, ND);
        let l = list(&ts);
        let r = match op {
            List::Max => call(
                |w, e| unsafe { ops::maxn::aclnnMaxNGetWorkspaceSize(l, ot, w, e) },
                ops::maxn::aclnnMaxN,
            ),
            List::Min => call(
                |w, e| unsafe { ops::minn::aclnnMinNGetWorkspaceSize(l, ot, w, e) },
                ops::minn::aclnnMinN,
            ),
            List::Add => call(
                |w, e| unsafe { ops::add_n::aclnnAddNGetWorkspaceSize(l, ot, w, e) },
                ops::add_n::aclnnAddN,
            ),
        };
        let what = format!("case {case} {op:?} {d} {shapes:?} -> {out_shape:?}");
        r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        for idx in ov.indices() {
            let vals: Vec<V> = views
                .iter()
                .zip(&mems)
                .map(|(v, m)| {
                    let off = out_shape.len() - v.shape.len();
                    let i: Vec<usize> = v
                        .shape
                        .iter()
                        .enumerate()
                        .map(|(k, &n)| if n == 1 { 0 } else { idx[off + k] })
                        .collect();
                    val(d, v.elem(m, v.at(&i)))
                })
                .collect();
            let want = match op {
                List::Max => vals.iter().copied().reduce(|a, b| extreme(a, b, true)),
                List::Min => vals.iter().copied().reduce(|a, b| extreme(a, b, false)),
                List::Add => vals.iter().copied().reduce(|a, b| add_in(d, a, b)),
            }
            .unwrap();
            let g = ov.elem(&og, ov.at(&idx));
            assert!(
                same(d, g, &bytes(d, want)),
                "{what}: out{idx:?} is {:?}, want {want:?}",
                val(d, g)
            );
        }
        let finite = mems.iter().zip(&views).all(|(m, v)| {
            elems(v, m)
                .iter()
                .all(|x| !matches!(x, V::F(f) if !f.is_finite()))
        });
        if ov.numel() > 0 && tcases.len() < 90 && finite && d != BF16 {
            let k = torch.case(
                progs[op as usize],
                views
                    .iter()
                    .zip(&mems)
                    .map(|(v, m)| Some(v.array(m)))
                    .collect(),
            );
            let first = ov.elem(&og, ov.at(&vec![0; out_shape.len()])).to_vec();
            tcases.push((k, first, d, what));
        }
    }
    torch_check(&torch, "maxn/minn/addn", &tcases, 0.0);
}

const TRACE: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
const DOT: &[DType] = &[F32, F16, BF16, S8, S32, U8];

#[test]
fn trace_and_dot_round_the_exact_sum_once() {
    let mut rng = Rng::new(0x2103);
    let mut torch = Batch::new();
    let ptrace = torch.program("out = torch.trace(a[0].double())");
    let pdot = torch.program("out = torch.dot(a[0].double(), a[1].double())");
    let mut tcases = vec![];
    for case in 0..400 {
        let is_dot = rng.pct(50);
        let d = pick(&mut rng, if is_dot { DOT } else { TRACE });
        let od = if is_dot || d.is_float() { d } else { S64 };
        let mut dev = Dev::new();
        let ov = View::random(&mut rng, od, &[]);
        let om = fill(&mut rng, &ov);
        let o = dev.upload(&om);
        let ot = dev.tensor(&ov, o, ND);
        let (want, what, tin) = if is_dot {
            let n = if rng.pct(5) {
                0
            } else {
                {
                    let long = rng.pct(10);
                    1 + rng.below(if long { 3000 } else { 20 }) as usize
                }
            };
            let (xv, yv) = (
                View::random(&mut rng, d, &[n]),
                View::random(&mut rng, d, &[n]),
            );
            let (xm, ym) = (fill(&mut rng, &xv), fill(&mut rng, &yv));
            let (x, y) = (dev.upload(&xm), dev.upload(&ym));
            let (xt, yt) = (dev.tensor(&xv, x, ND), dev.tensor(&yv, y, ND));
            let what = format!("case {case} dot {d} n {n}");
            call(
                |w, e| unsafe { ops::dot::aclnnDotGetWorkspaceSize(xt, yt, ot, w, e) },
                ops::dot::aclnnDot,
            )
            .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            let (xs, ys) = (elems(&xv, &xm), elems(&yv, &ym));
            let want = if d.is_float() {
                V::F(
                    xs.iter()
                        .zip(&ys)
                        .map(|(a, b)| to_f64(*a) * to_f64(*b))
                        .fold(0.0, |s, x| s + x),
                )
            } else {
                let s = xs.iter().zip(&ys).fold(0i64, |acc, (a, b)| match (a, b) {
                    (V::I(a), V::I(b)) => acc.wrapping_add((*a as i64).wrapping_mul(*b as i64)),
                    _ => unreachable!(),
                });
                V::I(s as i128)
            };
            (want, what, vec![Some(xv.array(&xm)), Some(yv.array(&ym))])
        } else {
            let shape = rand_shape(&mut rng, 2, 6, 8);
            let sv = View::random(&mut rng, d, &shape);
            let sm = fill(&mut rng, &sv);
            let s = dev.upload(&sm);
            let st = dev.tensor(&sv, s, ND);
            let what = format!("case {case} trace {d} {shape:?}");
            call(
                |w, e| unsafe { ops::trace::aclnnTraceGetWorkspaceSize(st, ot, w, e) },
                ops::trace::aclnnTrace,
            )
            .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            let diag: Vec<V> = (0..shape[0].min(shape[1]))
                .map(|i| val(d, sv.elem(&sm, sv.at(&[i, i]))))
                .collect();
            let want = if d.is_float() {
                V::F(diag.iter().fold(0.0, |s, v| s + to_f64(*v)))
            } else {
                V::I(diag.iter().fold(0i64, |a, v| match v {
                    V::I(i) => a.wrapping_add(*i as i64),
                    _ => unreachable!(),
                }) as i128)
            };
            (want, what, vec![Some(sv.array(&sm))])
        };
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let g = ov.elem(&og, ov.at(&[]));
        assert!(
            same(od, g, &bytes(od, want)),
            "{what}: {:?}, want {want:?}",
            val(od, g)
        );
        let finite = d.is_float()
            && tin
                .iter()
                .all(|a| a.as_ref().unwrap().to_f64s().iter().all(|x| x.is_finite()));
        if d.is_float() && finite && tcases.len() < 80 {
            let k = torch.case(if is_dot { pdot } else { ptrace }, tin);
            tcases.push((k, g.to_vec(), od, what));
        }
    }
    // torch sums in f64 here too; the difference is the final rounding to the dtype.
    torch_check(&torch, "trace/dot", &tcases, 1e-2);
}

const EQUAL: &[DType] = &[F32, S32, S64, F16, S16, S8, U8, Bool, F64, BF16];

#[test]
fn equal_compares_shapes_then_promoted_values() {
    let mut rng = Rng::new(0x2104);
    for case in 0..400 {
        let d1 = pick(&mut rng, EQUAL);
        let d2 = if rng.pct(60) {
            d1
        } else {
            pick(&mut rng, EQUAL)
        };
        let p = super::add_diff::ref_promote(d1, d2).unwrap();
        let rank = rng.below(4) as usize;
        let s1 = rand_shape(&mut rng, rank, 4, 8);
        let s2 = if rng.pct(85) {
            s1.clone()
        } else {
            {
                let r2 = rng.below(4) as usize;
                rand_shape(&mut rng, r2, 4, 8)
            }
        };
        let (v1, v2) = (
            View::random(&mut rng, d1, &s1),
            View::random(&mut rng, d2, &s2),
        );
        // Small integers and quarters: exact in every dtype, so promotion keeps them.
        let small = |rng: &mut Rng, d: DType| -> f64 {
            match rng.below(12) {
                0 if d.is_float() => f64::NAN,
                1 if d.is_float() => -0.0,
                _ if d == Bool => rng.below(2) as f64,
                _ if d == U8 => rng.below(8) as f64,
                _ if d.is_float() => (rng.below(16) as f64 - 8.0) * 0.25,
                _ => rng.below(16) as f64 - 8.0,
            }
        };
        let vals: Vec<f64> = (0..v1.numel()).map(|_| small(&mut rng, d1)).collect();
        let mut m1 = vec![0u8; v1.bytes()];
        let mut m2 = vec![0u8; v2.bytes()];
        let mut vals2 = vals.clone();
        let mut k = 0;
        for i in v1.indices() {
            let at = v1.at(&i) * d1.size();
            m1[at..at + d1.size()].copy_from_slice(&enc(d1, vals[k]));
            k += 1;
        }
        if s1 == s2 && !vals2.is_empty() && rng.pct(40) {
            let j = rng.below(vals2.len() as u64) as usize;
            vals2[j] = small(&mut rng, d2);
        }
        // Integer views of a fractional value, as the device's cast: what d2 holds.
        let held = |d: DType, x: f64| dec(d, &enc(d, x));
        if s1 == s2 {
            for (k, i) in v2.indices().iter().enumerate() {
                let at = v2.at(i) * d2.size();
                m2[at..at + d2.size()].copy_from_slice(&enc(d2, vals2[k]));
            }
        }
        let want = s1 == s2
            && vals.iter().zip(&vals2).all(|(a, b)| {
                let (a, b) = (held(d1, *a), held(d2, *b));
                held(p, a) == held(p, b)
            });
        let ov = View::random(&mut rng, Bool, &[1]);
        let om = vec![7u8; ov.bytes()];
        let mut dev = Dev::new();
        let (a, b, o) = (dev.upload(&m1), dev.upload(&m2), dev.upload(&om));
        let (at, bt, ot) = (
            dev.tensor(&v1, a, ND),
            dev.tensor(&v2, b, ND),
            dev.tensor(&ov, o, ND),
        );
        let what = format!("case {case} {d1} {s1:?} vs {d2} {s2:?}");
        call(
            |w, e| unsafe { ops::equal::aclnnEqualGetWorkspaceSize(at, bt, ot, w, e) },
            ops::equal::aclnnEqual,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(og[ov.at(&[0])], want as u8, "{what}");
    }
}

#[test]
fn inplace_one_writes_ones_inside_the_view() {
    let mut rng = Rng::new(0x2105);
    const ONE: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, U16, Bool, BF16];
    for case in 0..100 {
        let d = pick(&mut rng, ONE);
        let rank = rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 5, 5);
        let v = View::random(&mut rng, d, &shape);
        let m = vec![0xA5u8; v.bytes()];
        let mut dev = Dev::new();
        let k = dev.upload(&m);
        let t = dev.tensor(&v, k, ND);
        call(
            |w, e| unsafe { ops::ones::aclnnInplaceOneGetWorkspaceSize(t, w, e) },
            ops::ones::aclnnInplaceOne,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        let g = dev.download(k);
        untouched(&v, &m, &g).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let one = if d == U16 {
            1u16.to_le_bytes().to_vec()
        } else {
            enc(d, 1.0)
        };
        for i in v.indices() {
            assert_eq!(v.elem(&g, v.at(&i)), &one[..], "case {case} {d} at {i:?}");
        }
    }
}

/// Phase 1's status and message for the given call.
fn refused(
    p1: impl FnOnce(*mut u64, *mut *mut crate::capi::meta::aclOpExecutor) -> i32,
) -> (i32, String) {
    let mut ws = 0u64;
    let mut ex = std::ptr::null_mut();
    let st = p1(&mut ws, &mut ex);
    (st, err())
}

#[test]
fn whole_tensor_and_list_errors_name_the_rule() {
    let mut dev = Dev::new();
    let f = |dev: &mut Dev, d: DType, s: &[usize]| dev.zeros(d, s);
    let x23 = f(&mut dev, F32, &[2, 3]);
    let x3 = f(&mut dev, F32, &[3]);
    let x4 = f(&mut dev, F32, &[4]);
    let s0 = f(&mut dev, F32, &[]);
    let s0i = f(&mut dev, S32, &[]);
    let i3 = f(&mut dev, S32, &[3]);
    let d3 = f(&mut dev, F64, &[3]);
    let b1 = f(&mut dev, Bool, &[1]);
    let b2 = f(&mut dev, Bool, &[2]);
    let x20 = f(&mut dev, F32, &[2, 0]);
    let o2 = f(&mut dev, F32, &[2]);
    let o1 = f(&mut dev, F32, &[1]);
    let cases: Vec<(&str, (i32, String), i32, &str)> = vec![
        (
            "trace 1-D",
            refused(|w, e| unsafe { ops::trace::aclnnTraceGetWorkspaceSize(x3, s0, w, e) }),
            INVALID,
            "expects a matrix",
        ),
        (
            "trace out 1-D",
            refused(|w, e| unsafe { ops::trace::aclnnTraceGetWorkspaceSize(x23, x3, w, e) }),
            INVALID,
            "0-d out",
        ),
        (
            "trace out dtype",
            refused(|w, e| unsafe { ops::trace::aclnnTraceGetWorkspaceSize(x23, s0i, w, e) }),
            INVALID,
            "ACL_INT32",
        ),
        (
            "trace null",
            refused(|w, e| unsafe {
                ops::trace::aclnnTraceGetWorkspaceSize(std::ptr::null(), s0, w, e)
            }),
            NULLPTR,
            "self",
        ),
        (
            "dot lengths",
            refused(|w, e| unsafe { ops::dot::aclnnDotGetWorkspaceSize(x3, x4, s0, w, e) }),
            INVALID,
            "must be equal",
        ),
        (
            "dot dtypes",
            refused(|w, e| unsafe { ops::dot::aclnnDotGetWorkspaceSize(x3, i3, s0, w, e) }),
            INVALID,
            "dtype",
        ),
        (
            "dot f64",
            refused(|w, e| unsafe {
                ops::dot::aclnnDotGetWorkspaceSize(d3, d3, f(&mut Dev::new(), F64, &[]), w, e)
            }),
            INVALID,
            "DOUBLE",
        ),
        (
            "dot 2-D",
            refused(|w, e| unsafe { ops::dot::aclnnDotGetWorkspaceSize(x23, x23, s0, w, e) }),
            INVALID,
            "1-D",
        ),
        (
            "dot out",
            refused(|w, e| unsafe { ops::dot::aclnnDotGetWorkspaceSize(x3, x3, x3, w, e) }),
            INVALID,
            "0-d out",
        ),
        (
            "equal out shape",
            refused(|w, e| unsafe { ops::equal::aclnnEqualGetWorkspaceSize(x3, x3, b2, w, e) }),
            INVALID,
            "out",
        ),
        (
            "equal out dtype",
            refused(|w, e| unsafe { ops::equal::aclnnEqualGetWorkspaceSize(x3, x3, o1, w, e) }),
            INVALID,
            "out",
        ),
        (
            "aminmaxdim empty dim",
            refused(|w, e| unsafe {
                ops::aminmax_dim::aclnnAminmaxDimGetWorkspaceSize(x20, 1, false, o2, o2, w, e)
            }),
            INVALID,
            "size 0",
        ),
        (
            "aminmaxdim dim range",
            refused(|w, e| unsafe {
                ops::aminmax_dim::aclnnAminmaxDimGetWorkspaceSize(x23, 2, false, o2, o2, w, e)
            }),
            INVALID,
            "outside",
        ),
        (
            "aminmaxdim dtype",
            refused(|w, e| unsafe {
                ops::aminmax_dim::aclnnAminmaxDimGetWorkspaceSize(x23, 1, false, i3, o2, w, e)
            }),
            INVALID,
            "minOut",
        ),
        (
            "aminmaxall out",
            refused(|w, e| unsafe {
                ops::aminmax_all::aclnnAminmaxAllGetWorkspaceSize(x23, x3, s0, w, e)
            }),
            INVALID,
            "one element",
        ),
        (
            "maxn empty",
            refused(|w, e| unsafe { ops::maxn::aclnnMaxNGetWorkspaceSize(list(&[]), x3, w, e) }),
            INVALID,
            "empty",
        ),
        (
            "maxn dtypes",
            refused(|w, e| unsafe {
                ops::maxn::aclnnMaxNGetWorkspaceSize(
                    list(&[f(&mut dev, F32, &[3]), f(&mut dev, S32, &[3])]),
                    x3,
                    w,
                    e,
                )
            }),
            INVALID,
            "out's dtype",
        ),
        (
            "maxn broadcast",
            refused(|w, e| unsafe {
                ops::maxn::aclnnMaxNGetWorkspaceSize(
                    list(&[f(&mut dev, F32, &[3]), f(&mut dev, F32, &[4])]),
                    x3,
                    w,
                    e,
                )
            }),
            INVALID,
            "broadcast",
        ),
        (
            "minn out shape",
            refused(|w, e| unsafe {
                ops::minn::aclnnMinNGetWorkspaceSize(
                    list(&[f(&mut dev, F32, &[2, 3]), f(&mut dev, F32, &[3])]),
                    x3,
                    w,
                    e,
                )
            }),
            INVALID,
            "out",
        ),
        (
            "minn f64",
            refused(|w, e| unsafe {
                ops::minn::aclnnMinNGetWorkspaceSize(list(&[f(&mut dev, F64, &[3])]), d3, w, e)
            }),
            INVALID,
            "DOUBLE",
        ),
        (
            "addn shapes",
            refused(|w, e| unsafe {
                ops::add_n::aclnnAddNGetWorkspaceSize(
                    list(&[f(&mut dev, F32, &[3]), f(&mut dev, F32, &[1])]),
                    x3,
                    w,
                    e,
                )
            }),
            INVALID,
            "one shape",
        ),
        (
            "addn int8",
            refused(|w, e| unsafe {
                ops::add_n::aclnnAddNGetWorkspaceSize(
                    list(&[f(&mut dev, S8, &[3])]),
                    f(&mut Dev::new(), S8, &[3]),
                    w,
                    e,
                )
            }),
            INVALID,
            "INT8",
        ),
        (
            "one complex",
            refused(|w, e| unsafe {
                ops::ones::aclnnInplaceOneGetWorkspaceSize(f(&mut Dev::new(), C64, &[2]), w, e)
            }),
            INVALID,
            "selfRef",
        ),
    ];
    let _ = b1;
    for (what, (st, msg), want, needle) in cases {
        assert_eq!(st, want, "{what}: status {st}, message {msg}");
        assert!(
            msg.contains(needle),
            "{what}: message {msg:?} lacks {needle:?}"
        );
    }
}
