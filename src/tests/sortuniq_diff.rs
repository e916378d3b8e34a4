//! Differential tests of the order statistics (Kthvalue, Median, MedianDim, NanMedian,
//! NanMedianDim), the deduplications (Unique, Unique2, UniqueConsecutive, UniqueDim) and
//! the searches (SearchSorted, SearchSorteds, Bucketize), through their C entry points.
//!
//! Every random case has random shapes (empty and 0-d where the operator allows them),
//! random views for every tensor (axes in a random order, gaps, an offset), dtypes of the
//! operator's list, "nice" values (NaN, ±inf, ±0, small numbers; integers with many
//! ties). References, written here from the definitions:
//!
//! - order statistics: a stable comparison sort of each line with torch's order (NaN
//!   largest, −0 = +0), then the documented position (k − 1; (n − 1) / 2; the first NaN of a
//!   line holding one; the lower median of the non-NaN values), value and index compared
//!   byte for byte (a NaN as any NaN); storage outside the outputs untouched;
//! - deduplication: groups of `==`-equal elements (or slices) after a stable sort, or of
//!   equal neighbours; the reported view shapes (aclGetViewShape) and the compact run;
//! - searches: torch's binary search over the values converted to the promoted dtype.
//!
//! torch (`torch_ref`) checks values on a sample: torch.kthvalue / median / nanmedian
//! (values: torch leaves the index of ties open), torch.unique / unique_consecutive
//! (without NaN: torch's CPU sort of NaN is unspecified), torch.searchsorted / bucketize.

use super::add_diff::Rng;
use super::index_diff::view_shape;
use super::shape_diff::{
    call, dec, err, fill, init, nice, pick, rand_shape, torch_cmp, untouched, Dev, Phase2, View,
};
use super::torch_ref::{Array, Batch};
use crate::capi::meta::aclOpExecutor;
use crate::capi::ops;
use crate::capi::runtime::{
    aclrtCreateStream, aclrtDestroyStream, aclrtFree, aclrtMalloc, aclrtSynchronizeStream,
};
use crate::dtype::DType::{self, *};
use std::cmp::Ordering;
use std::ptr::null_mut;

const ND: i32 = 2;
const NULLPTR: i32 = 161001;
const INVALID: i32 = 161002;
const RUN_FAILED: i32 = 507015;

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/// An element's value: a float, an integer (any width, signed or not) or a complex.
#[derive(Clone, Copy, Debug)]
enum Val {
    F(f64),
    I(i128),
    C(f64, f64),
}

fn val(d: DType, b: &[u8]) -> Val {
    let mut b8 = [0u8; 8];
    match d {
        F16 | BF16 | F32 | F64 => Val::F(dec(d, b)),
        C64 => Val::C(
            f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
            f32::from_le_bytes(b[4..8].try_into().unwrap()) as f64,
        ),
        C128 => Val::C(
            f64::from_le_bytes(b[..8].try_into().unwrap()),
            f64::from_le_bytes(b[8..16].try_into().unwrap()),
        ),
        Bool => Val::I((b[0] != 0) as i128),
        U8 | U16 | U32 | U64 => {
            b8[..d.size()].copy_from_slice(b);
            Val::I(u64::from_le_bytes(b8) as i128)
        }
        _ => {
            b8[..d.size()].copy_from_slice(b);
            let sh = 64 - 8 * d.size() as u32;
            Val::I((i64::from_le_bytes(b8) << sh >> sh) as i128)
        }
    }
}

/// torch's sort order (NaN largest, −0 = +0).
fn order(a: Val, b: Val) -> Ordering {
    match (a, b) {
        (Val::F(x), Val::F(y)) => torch_cmp(x, y),
        (Val::I(x), Val::I(y)) => x.cmp(&y),
        (Val::C(a, b), Val::C(c, d)) => torch_cmp(a, c).then(torch_cmp(b, d)),
        _ => unreachable!(),
    }
}

/// torch's `==` (NaN equals nothing, −0 = +0).
fn equal(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::F(x), Val::F(y)) => x == y,
        (Val::I(x), Val::I(y)) => x == y,
        (Val::C(a, b), Val::C(c, d)) => a == c && b == d,
        _ => unreachable!(),
    }
}

fn is_nan(v: Val) -> bool {
    matches!(v, Val::F(x) if x.is_nan())
}

/// The same element: equal bytes, or two NaNs.
fn same_elem(d: DType, got: &[u8], want: &[u8]) -> bool {
    got == want || (d.is_float() && is_nan(val(d, got)) && is_nan(val(d, want)))
}

/// Integers with many ties (half the time), else nice values.
fn fill_ties(rng: &mut Rng, v: &View) -> Vec<u8> {
    if v.dtype.is_float() || v.dtype == Bool || rng.pct(50) {
        return fill(rng, v);
    }
    (0..v.storage)
        .flat_map(|_| {
            let x = rng.below(5) as i64 - 2;
            let bytes = x.to_le_bytes();
            bytes[..v.dtype.size()].to_vec()
        })
        .collect()
}

/// The positions (logical indices) of each line of `v` along `axis` (a 0-d view: one line).
fn lines(v: &View, axis: usize) -> Vec<Vec<Vec<usize>>> {
    if v.shape.is_empty() {
        return vec![vec![vec![]]];
    }
    v.indices()
        .into_iter()
        .filter(|i| i[axis] == 0)
        .map(|start| {
            (0..v.shape[axis])
                .map(|k| {
                    let mut i = start.clone();
                    i[axis] = k;
                    i
                })
                .collect()
        })
        .collect()
}

/// Phase 1, then phase 2 on a stream of its own: the synchronize status (a run failing
/// on purpose must not reach another test's stream).
fn run_status(
    p1: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> i32,
    p2: Phase2,
) -> Result<i32, (i32, String)> {
    init();
    let (mut ws, mut ex) = (0u64, null_mut());
    let st = p1(&mut ws, &mut ex);
    if st != 0 {
        return Err((st, err()));
    }
    let mut w = null_mut();
    if ws > 0 {
        // SAFETY: valid out-parameter.
        assert_eq!(unsafe { aclrtMalloc(&mut w, ws as usize, 0) }, 0);
    }
    let mut stream = null_mut();
    // SAFETY: valid out-parameter.
    assert_eq!(unsafe { aclrtCreateStream(&mut stream) }, 0);
    assert_eq!(p2(w, ws, ex, stream), 0, "phase 2: {}", err());
    let r = aclrtSynchronizeStream(stream);
    let msg = err();
    assert_eq!(aclrtDestroyStream(stream), 0);
    if !w.is_null() {
        aclrtFree(w);
    }
    if r != 0 {
        return Err((r, msg));
    }
    Ok(r)
}

// ---------------------------------------------------------------------------------------
// Kthvalue, Median, NanMedian
// ---------------------------------------------------------------------------------------

const KTHVALUE: &[DType] = &[BF16, F16, F32, S8, S16, S32, S64, U8];
const MEDIAN: &[DType] = &[F32, F16, U8, S8, S16, S32, S64, BF16];
/// The dtypes torch 1.13's CPU median / kthvalue take.
const TORCH_ORDER: &[DType] = &[F32, S8, S16, S32, S64, U8];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stat {
    Kth,
    MedianDim,
    NanMedianDim,
    Median,
    NanMedian,
}

/// The sorted position a statistic takes in a line of `n` values, `nan` of them NaN.
fn ref_position(stat: Stat, k: usize, n: usize, nan: usize) -> usize {
    match stat {
        Stat::Kth => k - 1,
        Stat::Median | Stat::MedianDim if nan > 0 => n - nan,
        Stat::Median | Stat::MedianDim => (n - 1) / 2,
        Stat::NanMedian | Stat::NanMedianDim => (n - nan).saturating_sub(1) / 2,
    }
}

/// (value bytes, index) of the statistic of `line`.
fn ref_stat(stat: Stat, d: DType, k: usize, line: &[Vec<u8>]) -> (Vec<u8>, i64) {
    let vals: Vec<Val> = line.iter().map(|b| val(d, b)).collect();
    let mut o: Vec<usize> = (0..line.len()).collect();
    o.sort_by(|&a, &b| order(vals[a], vals[b]));
    let nan = vals.iter().filter(|v| is_nan(**v)).count();
    let p = o[ref_position(stat, k, line.len(), nan)];
    (line[p].clone(), p as i64)
}

#[test]
fn kthvalue_and_medians_take_the_stable_sorts_position() {
    let mut rng = Rng::new(0x5017);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let stats = [
        Stat::Kth,
        Stat::MedianDim,
        Stat::NanMedianDim,
        Stat::Median,
        Stat::NanMedian,
    ];
    for case in 0..500 {
        let stat = stats[rng.below(5) as usize];
        let whole = matches!(stat, Stat::Median | Stat::NanMedian);
        let dtype = pick(&mut rng, if stat == Stat::Kth { KTHVALUE } else { MEDIAN });
        let rank = rng.below(4) as usize;
        let mut shape = rand_shape(&mut rng, rank, 6, 6);
        let dim = if rank == 0 {
            rng.below(2) as i64 - 1
        } else {
            rng.below(2 * rank as u64) as i64 - rank as i64
        };
        let axis = if rank == 0 {
            0
        } else {
            dim.rem_euclid(rank as i64) as usize
        };
        if rank > 0 && matches!(stat, Stat::Kth | Stat::NanMedianDim) && shape[axis] == 0 {
            shape[axis] = 1;
        }
        if dtype == BF16 && rank > 0 {
            let a = if whole { rank - 1 } else { axis };
            if shape[a] == 1 {
                shape[a] = 2;
            }
        }
        let n = if rank == 0 { 1 } else { shape[axis] };
        let k = 1 + rng.below(n.max(1) as u64) as usize;
        let keep = rng.pct(50);
        let out_shape: Vec<usize> = if whole {
            if rng.pct(50) {
                vec![]
            } else {
                vec![1]
            }
        } else {
            let mut s = shape.clone();
            if rank > 0 {
                if keep {
                    s[axis] = 1;
                } else {
                    s.remove(axis);
                }
            }
            s
        };
        let sv = View::random(&mut rng, dtype, &shape);
        let sm = fill_ties(&mut rng, &sv);
        let vv = View::random(&mut rng, dtype, &out_shape);
        let iv = View::random(&mut rng, S64, &out_shape);
        let (vm, im) = (fill(&mut rng, &vv), fill(&mut rng, &iv));
        let mut dev = Dev::new();
        let (s, v, i) = (dev.upload(&sm), dev.upload(&vm), dev.upload(&im));
        let (st, vt, it) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&vv, v, ND),
            dev.tensor(&iv, i, ND),
        );
        let r = match stat {
            Stat::Kth => call(
                |w, e| unsafe {
                    ops::kthvalue::aclnnKthvalueGetWorkspaceSize(
                        st, k as i64, dim, keep, vt, it, w, e,
                    )
                },
                ops::kthvalue::aclnnKthvalue,
            ),
            Stat::MedianDim => call(
                |w, e| unsafe {
                    ops::median::aclnnMedianDimGetWorkspaceSize(st, dim, keep, vt, it, w, e)
                },
                ops::median::aclnnMedianDim,
            ),
            Stat::NanMedianDim => call(
                |w, e| unsafe {
                    ops::median::aclnnNanMedianDimGetWorkspaceSize(st, dim, keep, vt, it, w, e)
                },
                ops::median::aclnnNanMedianDim,
            ),
            Stat::Median => call(
                |w, e| unsafe { ops::median::aclnnMedianGetWorkspaceSize(st, vt, w, e) },
                ops::median::aclnnMedian,
            ),
            Stat::NanMedian => call(
                |w, e| unsafe { ops::median::aclnnNanMedianGetWorkspaceSize(st, vt, w, e) },
                ops::median::aclnnNanMedian,
            ),
        };
        let what = format!("case {case} {stat:?} {dtype} {shape:?} dim {dim} k {k} keep {keep}");
        r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let (vg, ig) = (dev.download(v), dev.download(i));
        untouched(&vv, &vm, &vg)
            .and_then(|_| untouched(&iv, &im, &ig))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let elem = |idx: &[usize]| sv.elem(&sm, sv.at(idx)).to_vec();
        if whole {
            let all: Vec<Vec<u8>> = sv.indices().iter().map(|i| elem(i)).collect();
            let want = if all.is_empty() {
                let fill_value = match (stat, dtype) {
                    (_, d) if d.is_float() => f64::NAN,
                    (Stat::Median, S64) => i64::MIN as f64,
                    (Stat::Median, S32) => i32::MIN as f64,
                    _ => 0.0,
                };
                super::shape_diff::enc(dtype, fill_value)
            } else {
                ref_stat(stat, dtype, 0, &all).0
            };
            let got = vv.elem(&vg, vv.at(&vec![0; out_shape.len()]));
            assert!(
                same_elem(dtype, got, &want),
                "{what}: {got:?}, want {want:?}"
            );
            assert_eq!(ig, im, "{what}: no indices output");
        } else if sv.numel() == 0 {
            assert_eq!(
                (&vg, &ig),
                (&vm, &im),
                "{what}: an empty self writes nothing"
            );
        } else {
            for line in lines(&sv, axis) {
                let raw: Vec<Vec<u8>> = line.iter().map(|i| elem(i)).collect();
                let (wv, wi) = ref_stat(stat, dtype, k, &raw);
                let mut o = line[0].clone();
                if rank > 0 && !keep {
                    o.remove(axis);
                }
                let gv = vv.elem(&vg, vv.at(&o));
                let gi = iv.elem(&ig, iv.at(&o));
                assert!(
                    same_elem(dtype, gv, &wv),
                    "{what}: value at {o:?} is {gv:?}, want {wv:?}"
                );
                assert_eq!(gi, &wi.to_le_bytes(), "{what}: index at {o:?}");
            }
        }
        if TORCH_ORDER.contains(&dtype) && sv.numel() > 0 && torch_cases.len() < 150 {
            let p = torch.program(match stat {
                Stat::Kth => "out = torch.kthvalue(a[0], a[1].item(), dim=a[2].item(), keepdim=bool(a[3].item()))[0]",
                Stat::MedianDim => "out = torch.median(a[0], dim=a[2].item(), keepdim=bool(a[3].item()))[0]",
                Stat::NanMedianDim => "out = torch.nanmedian(a[0], dim=a[2].item(), keepdim=bool(a[3].item()))[0]",
                Stat::Median => "out = torch.median(a[0])",
                Stat::NanMedian => "out = torch.nanmedian(a[0])",
            });
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::int(k as i64)),
                    Some(Array::int(dim)),
                    Some(Array::int(keep as i64)),
                ],
            );
            torch_cases.push((what, vv.array(&vg)));
        }
    }
    if let Some(res) = torch.run("order statistics") {
        for (k, (what, got)) in torch_cases.iter().enumerate() {
            let t = &res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"))[0];
            assert_eq!(t.numel(), got.numel(), "{what}");
            for e in 0..t.numel() {
                // By value: torch may pick another of tied elements (−0 for +0).
                let (g, w) = (val(got.dtype, got.elem(e)), val(t.dtype, t.elem(e)));
                assert!(
                    equal(g, w) || (is_nan(g) && is_nan(w)),
                    "{what}: element {e} is {:?}, torch gives {:?}",
                    got.elem(e),
                    t.elem(e)
                );
            }
        }
    }
}

#[test]
fn order_statistics_refusals() {
    let mut dev = Dev::new();
    let a = dev.zeros(F32, &[2, 3]);
    let v = dev.zeros(F32, &[2]);
    let i = dev.zeros(S64, &[2]);
    let v1 = dev.zeros(F32, &[2, 1]);
    let i1 = dev.zeros(S64, &[2, 1]);
    let bad_i = dev.zeros(S32, &[2]);
    let bad_v = dev.zeros(F16, &[2]);
    let f64_ = dev.zeros(F64, &[2, 3]);
    let b1 = dev.zeros(BF16, &[3, 1]);
    let b1o = dev.zeros(BF16, &[3]);
    let one = dev.zeros(F32, &[1]);
    let two = dev.zeros(F32, &[2]);
    let empty = dev.zeros(F32, &[0, 3]);
    let kth = |s, k, dim, keep, v, i| {
        call(
            |w, e| unsafe {
                ops::kthvalue::aclnnKthvalueGetWorkspaceSize(s, k, dim, keep, v, i, w, e)
            },
            ops::kthvalue::aclnnKthvalue,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(kth(a, 1, 1, false, v, i), None);
    assert_eq!(kth(a, 1, 1, true, v1, i1), None);
    assert_eq!(kth(a, 0, 1, false, v, i), Some(INVALID), "k 0");
    assert_eq!(kth(a, 4, 1, false, v, i), Some(INVALID), "k past the dim");
    assert_eq!(kth(a, 1, 2, false, v, i), Some(INVALID), "dim out of range");
    assert_eq!(
        kth(a, 1, 1, false, v, bad_i),
        Some(INVALID),
        "int32 indices"
    );
    assert_eq!(kth(a, 1, 1, false, bad_v, i), Some(INVALID), "values dtype");
    assert_eq!(kth(a, 1, 1, true, v, i), Some(INVALID), "keepdim shape");
    assert_eq!(
        kth(f64_, 1, 1, false, v, i),
        Some(INVALID),
        "f64 is not on A2"
    );
    assert_eq!(kth(std::ptr::null_mut(), 1, 1, false, v, i), Some(NULLPTR));
    assert_eq!(kth(a, 1, 1, false, v, std::ptr::null_mut()), Some(NULLPTR));
    let msg = call(
        |w, e| unsafe { ops::kthvalue::aclnnKthvalueGetWorkspaceSize(a, 9, 1, false, v, i, w, e) },
        ops::kthvalue::aclnnKthvalue,
    )
    .unwrap_err()
    .1;
    assert!(
        msg.contains("aclnnKthvalue") && msg.contains("k 9"),
        "{msg}"
    );
    assert_eq!(
        kth(empty, 1, 1, false, v, i),
        None,
        "an empty self writes nothing"
    );
    let mdim = |s, dim, keep, v, i, nan: bool| {
        let r = if nan {
            call(
                |w, e| unsafe {
                    ops::median::aclnnNanMedianDimGetWorkspaceSize(s, dim, keep, v, i, w, e)
                },
                ops::median::aclnnNanMedianDim,
            )
        } else {
            call(
                |w, e| unsafe {
                    ops::median::aclnnMedianDimGetWorkspaceSize(s, dim, keep, v, i, w, e)
                },
                ops::median::aclnnMedianDim,
            )
        };
        r.err().map(|e| e.0)
    };
    for nan in [false, true] {
        assert_eq!(mdim(a, -1, false, v, i, nan), None);
        assert_eq!(mdim(a, 2, false, v, i, nan), Some(INVALID), "dim");
        assert_eq!(
            mdim(a, 1, true, v, i, nan),
            Some(INVALID),
            "rank with keepDim"
        );
        assert_eq!(
            mdim(a, 1, false, v, bad_i, nan),
            Some(INVALID),
            "indices dtype"
        );
        assert_eq!(
            mdim(b1, 1, false, b1o, dev.zeros(S64, &[3]), nan),
            Some(INVALID),
            "bf16 dim of 1"
        );
        assert_eq!(
            mdim(a, 1, false, std::ptr::null_mut(), i, nan),
            Some(NULLPTR)
        );
    }
    assert_eq!(
        mdim(
            empty,
            0,
            false,
            dev.zeros(F32, &[3]),
            dev.zeros(S64, &[3]),
            true
        ),
        Some(INVALID),
        "NanMedianDim of an empty dim"
    );
    assert_eq!(
        mdim(
            empty,
            0,
            false,
            dev.zeros(F32, &[3]),
            dev.zeros(S64, &[3]),
            false
        ),
        None,
        "MedianDim of an empty dim writes nothing"
    );
    let whole = |s, v, nan: bool| {
        let r = if nan {
            call(
                |w, e| unsafe { ops::median::aclnnNanMedianGetWorkspaceSize(s, v, w, e) },
                ops::median::aclnnNanMedian,
            )
        } else {
            call(
                |w, e| unsafe { ops::median::aclnnMedianGetWorkspaceSize(s, v, w, e) },
                ops::median::aclnnMedian,
            )
        };
        r.err().map(|e| e.0)
    };
    for nan in [false, true] {
        assert_eq!(whole(a, one, nan), None);
        assert_eq!(whole(a, two, nan), Some(INVALID), "out of 2 elements");
        assert_eq!(
            whole(a, dev.zeros(F16, &[1]), nan),
            Some(INVALID),
            "out dtype"
        );
        assert_eq!(
            whole(b1, dev.zeros(BF16, &[1]), nan),
            Some(INVALID),
            "bf16 last dim of 1"
        );
        assert_eq!(whole(f64_, dev.zeros(F64, &[1]), nan), Some(INVALID), "f64");
        assert_eq!(whole(std::ptr::null_mut(), one, nan), Some(NULLPTR));
    }
}

// ---------------------------------------------------------------------------------------
// Unique, Unique2, UniqueConsecutive, UniqueDim
// ---------------------------------------------------------------------------------------

const UNIQUE: &[DType] = &[
    Bool, U8, S8, U16, S16, U32, S32, U64, S64, F64, F32, F16, BF16,
];
const CONSECUTIVE: &[DType] = &[
    U8, S8, U16, S16, U32, S32, U64, S64, F64, F32, F16, C64, C128, Bool, BF16,
];
/// The dtypes torch 1.13's CPU unique takes.
const TORCH_UNIQUE: &[DType] = &[F32, F64, S8, U8, S16, S32, S64, Bool];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dedup {
    Unique,
    Unique2,
    Consecutive,
    Dim,
}

/// (representatives, inverse, counts) of `n` slices, `slice(j)` the values of slice j.
fn ref_groups(
    n: usize,
    slice: &dyn Fn(usize) -> Vec<Val>,
    sorted: bool,
) -> (Vec<usize>, Vec<i64>, Vec<i64>) {
    let mut o: Vec<usize> = (0..n).collect();
    if sorted {
        o.sort_by(|&a, &b| {
            let (x, y) = (slice(a), slice(b));
            x.iter()
                .zip(&y)
                .map(|(p, q)| order(*p, *q))
                .find(|c| c.is_ne())
                .unwrap_or(Ordering::Equal)
        });
    }
    let (mut reps, mut inv, mut counts) = (vec![], vec![0; n], vec![]);
    for (p, &j) in o.iter().enumerate() {
        let same = p > 0
            && slice(o[p - 1])
                .iter()
                .zip(&slice(j))
                .all(|(x, y)| equal(*x, *y));
        if !same {
            reps.push(j);
            counts.push(0);
        }
        *counts.last_mut().unwrap() += 1;
        inv[j] = reps.len() as i64 - 1;
    }
    (reps, inv, counts)
}

/// A 1-D view of `n` elements with a random stride and offset.
fn strided_1d(rng: &mut Rng, dtype: DType, n: usize) -> View {
    let stride = 1 + rng.below(2) as usize;
    let offset = rng.below(3) as usize;
    View {
        dtype,
        shape: vec![n],
        strides: vec![stride],
        offset,
        storage: offset + n.max(1) * stride,
    }
}

/// A contiguous view of `shape` after an offset.
fn contiguous_at(rng: &mut Rng, dtype: DType, shape: &[usize]) -> View {
    let mut v = View::contiguous(dtype, shape);
    v.offset = rng.below(3) as usize;
    v.storage += v.offset;
    v
}

#[test]
fn unique_family_matches_the_group_definition() {
    let mut rng = Rng::new(0x0417);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    let kinds = [
        Dedup::Unique,
        Dedup::Unique2,
        Dedup::Consecutive,
        Dedup::Dim,
    ];
    for case in 0..400 {
        let kind = kinds[rng.below(4) as usize];
        let dtype = pick(
            &mut rng,
            if kind == Dedup::Consecutive {
                CONSECUTIVE
            } else {
                UNIQUE
            },
        );
        let rank = if kind == Dedup::Dim {
            1 + rng.below(3) as usize
        } else {
            rng.below(4) as usize
        };
        let shape = rand_shape(&mut rng, rank, 5, 5);
        let along = match kind {
            Dedup::Dim => true,
            Dedup::Consecutive => rank > 0 && rng.pct(50),
            _ => false,
        };
        let axis = if rank == 0 {
            0
        } else {
            rng.below(rank as u64) as usize
        };
        let dim = if along {
            if rng.pct(50) {
                axis as i64 - rank as i64
            } else {
                axis as i64
            }
        } else {
            ops_dim_none()
        };
        let (ret_inv, ret_cnt) = (rng.pct(70), rng.pct(70));
        let sv = View::random(&mut rng, dtype, &shape);
        // Few distinct values, so that groups form (slices too).
        let sm: Vec<u8> = (0..sv.storage)
            .flat_map(|_| {
                if rng.pct(50) {
                    nice(&mut rng, dtype)
                } else {
                    super::shape_diff::enc(dtype, rng.below(3) as f64)
                }
            })
            .collect();
        let numel = sv.numel();
        let (n, m) = if along {
            (shape[axis], numel / shape[axis].max(1))
        } else {
            (numel, 1)
        };
        let inner: usize = if along {
            shape[axis + 1..].iter().product()
        } else {
            1
        };
        let pos_of = |j: usize, t: usize| -> Vec<usize> {
            // slice j's element t: (outer, inner) = (t / inner, t % inner).
            let flat = ((t / inner.max(1)) * n + j) * inner + t % inner.max(1);
            let mut idx = vec![0; rank];
            let mut rest = flat;
            for d in (0..rank).rev() {
                idx[d] = rest % shape[d];
                rest /= shape[d];
            }
            idx
        };
        let elem = |j: usize, t: usize| sv.elem(&sm, sv.at(&pos_of(j, t))).to_vec();
        let slice = |j: usize| (0..m).map(|t| val(dtype, &elem(j, t))).collect::<Vec<_>>();
        let sorted = kind != Dedup::Consecutive;
        let (reps, inv, counts) = if numel == 0 {
            (vec![], vec![], vec![])
        } else {
            ref_groups(n, &slice, sorted)
        };
        let u = reps.len();
        // Outputs: at their maximum (numel of self), as CANN's examples size them.
        let value_shape: Vec<usize> = if along { shape.clone() } else { vec![numel] };
        let vv = if value_shape.len() == 1 {
            strided_1d(&mut rng, dtype, value_shape[0])
        } else {
            contiguous_at(&mut rng, dtype, &value_shape)
        };
        let idx_dtype = if kind == Dedup::Consecutive && rng.pct(50) {
            S32
        } else {
            S64
        };
        let cv = strided_1d(
            &mut rng,
            idx_dtype,
            if kind == Dedup::Unique2 {
                value_shape[0]
            } else {
                n.max(numel)
            },
        );
        let cv = if kind == Dedup::Unique2 {
            let mut c = vv.clone();
            c.dtype = idx_dtype;
            c
        } else {
            cv
        };
        let iv = if along {
            strided_1d(&mut rng, idx_dtype, n)
        } else {
            View::random(&mut rng, idx_dtype, &shape)
        };
        let (vm, cm, im) = (
            fill(&mut rng, &vv),
            fill(&mut rng, &cv),
            fill(&mut rng, &iv),
        );
        let mut dev = Dev::new();
        let (s, v, c, i) = (
            dev.upload(&sm),
            dev.upload(&vm),
            dev.upload(&cm),
            dev.upload(&im),
        );
        let (st, vt, ct, it) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&vv, v, ND),
            dev.tensor(&cv, c, ND),
            dev.tensor(&iv, i, ND),
        );
        let what = format!(
            "case {case} {kind:?} {dtype} {shape:?} dim {dim} inverse {ret_inv} counts {ret_cnt}"
        );
        let r = match kind {
            Dedup::Unique => call(
                |w, e| unsafe {
                    ops::unique::aclnnUniqueGetWorkspaceSize(st, true, ret_inv, vt, it, w, e)
                },
                ops::unique::aclnnUnique,
            ),
            Dedup::Unique2 => call(
                |w, e| unsafe {
                    ops::unique2::aclnnUnique2GetWorkspaceSize(
                        st, false, ret_inv, ret_cnt, vt, it, ct, w, e,
                    )
                },
                ops::unique2::aclnnUnique2,
            ),
            Dedup::Consecutive => call(
                |w, e| unsafe {
                    ops::unique_consecutive::aclnnUniqueConsecutiveGetWorkspaceSize(
                        st, ret_inv, ret_cnt, dim, vt, it, ct, w, e,
                    )
                },
                ops::unique_consecutive::aclnnUniqueConsecutive,
            ),
            Dedup::Dim => call(
                |w, e| unsafe {
                    ops::unique_dim::aclnnUniqueDimGetWorkspaceSize(
                        st, true, ret_inv, dim, vt, it, ct, w, e,
                    )
                },
                ops::unique_dim::aclnnUniqueDim,
            ),
        };
        r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let (vg, cg, ig) = (dev.download(v), dev.download(c), dev.download(i));
        for (view, before, after) in [(&vv, &vm, &vg), (&cv, &cm, &cg), (&iv, &im, &ig)] {
            untouched(view, before, after).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        let wrote_counts = match kind {
            Dedup::Unique => false,
            Dedup::Dim => true,
            _ => ret_cnt,
        };
        let wrote_inverse = ret_inv || (kind == Dedup::Unique2 && ret_cnt);
        if numel == 0 {
            assert_eq!(
                (&vg, &cg, &ig),
                (&vm, &cm, &im),
                "{what}: an empty self writes nothing"
            );
            continue;
        }
        // valueOut: the compact run of the representatives, and its reported view.
        let mut want_shape = value_shape.clone();
        if along {
            want_shape[axis] = u
        } else {
            want_shape[0] = u
        }
        assert_eq!(
            view_shape(vt),
            want_shape.iter().map(|&x| x as i64).collect::<Vec<_>>(),
            "{what}: valueOut's view"
        );
        let run_at = |view: &View, p: usize| {
            if view.shape.len() == 1 {
                view.offset + p * view.strides[0]
            } else {
                view.offset + p
            }
        };
        let outer = m / inner.max(1);
        let mut got_values = vec![];
        for o in 0..outer {
            for (g, &j) in reps.iter().enumerate() {
                for ii in 0..inner.max(1) {
                    let p = (o * u + g) * inner.max(1) + ii;
                    let got = vv.elem(&vg, run_at(&vv, p));
                    let want = elem(j, o * inner.max(1) + ii);
                    let want = if dtype == Bool {
                        vec![(want[0] != 0) as u8]
                    } else {
                        want
                    };
                    assert!(
                        same_elem(dtype, got, &want),
                        "{what}: valueOut[{p}] is {got:?}, want {want:?}"
                    );
                    got_values.push(p);
                }
            }
        }
        for p in u * m..vv.numel() {
            let at = run_at(&vv, p);
            assert_eq!(
                vv.elem(&vg, at),
                vv.elem(&vm, at),
                "{what}: valueOut[{p}] past the result was written"
            );
        }
        let index = |view: &View, mem: &[u8], at: usize| -> i64 {
            let b = view.elem(mem, at);
            if view.dtype == S32 {
                i32::from_le_bytes(b.try_into().unwrap()) as i64
            } else {
                i64::from_le_bytes(b.try_into().unwrap())
            }
        };
        if wrote_counts {
            assert_eq!(view_shape(ct), vec![u as i64], "{what}: countsOut's view");
            for (g, &want) in counts.iter().enumerate() {
                assert_eq!(index(&cv, &cg, run_at(&cv, g)), want, "{what}: counts[{g}]");
            }
        } else {
            assert_eq!(cg, cm, "{what}: countsOut not asked for");
        }
        if wrote_inverse {
            if along {
                assert_eq!(view_shape(it), vec![n as i64], "{what}: inverseOut's view");
                for (j, &want) in inv.iter().enumerate() {
                    assert_eq!(
                        index(&iv, &ig, run_at(&iv, j)),
                        want,
                        "{what}: inverse[{j}]"
                    );
                }
            } else {
                for (j, idx) in iv.indices().iter().enumerate() {
                    assert_eq!(
                        index(&iv, &ig, iv.at(idx)),
                        inv[j],
                        "{what}: inverse{idx:?}"
                    );
                }
            }
        } else {
            assert_eq!(ig, im, "{what}: inverseOut not asked for");
        }
        let has_nan = (0..n).any(|j| {
            slice(j)
                .iter()
                .any(|x| is_nan(*x) || matches!(x, Val::C(a, b) if a.is_nan() || b.is_nan()))
        });
        if TORCH_UNIQUE.contains(&dtype) && !has_nan && torch_cases.len() < 150 {
            let p = torch.program(
                "d = a[1].item()\n\
                 if a[2].item() == 1:\n    out = torch.unique_consecutive(a[0], return_inverse=True, return_counts=True, dim=None if d == 1000 else d)\n\
                 elif d == 1000:\n    out = torch.unique(a[0], sorted=True, return_inverse=True, return_counts=True)\n\
                 else:\n    out = torch.unique(a[0], sorted=True, return_inverse=True, return_counts=True, dim=d)",
            );
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(Array::int(dim)),
                    Some(Array::int((kind == Dedup::Consecutive) as i64)),
                ],
            );
            let values: Vec<Val> = got_values
                .iter()
                .map(|&p| val(dtype, vv.elem(&vg, run_at(&vv, p))))
                .collect();
            torch_cases.push((what, values, inv.clone(), counts.clone()));
        }
    }
    if let Some(res) = torch.run("unique") {
        for (k, (what, values, inv, counts)) in torch_cases.iter().enumerate() {
            let t = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            let tv: Vec<Val> = (0..t[0].numel())
                .map(|e| val(t[0].dtype, t[0].elem(e)))
                .collect();
            assert_eq!(tv.len(), values.len(), "{what}: torch's value count");
            for (x, y) in tv.iter().zip(values) {
                assert!(
                    equal(*x, *y),
                    "{what}: torch's values {tv:?}, ours {values:?}"
                );
            }
            let ti: Vec<i64> = (0..t[1].numel())
                .map(|e| i64::from_le_bytes(t[1].elem(e).try_into().unwrap()))
                .collect();
            let tc: Vec<i64> = (0..t[2].numel())
                .map(|e| i64::from_le_bytes(t[2].elem(e).try_into().unwrap()))
                .collect();
            assert_eq!(&ti, inv, "{what}: torch's inverse");
            assert_eq!(&tc, counts, "{what}: torch's counts");
        }
    }
}

/// UniqueConsecutive's "no dim".
fn ops_dim_none() -> i64 {
    crate::ops::unique::NO_DIM
}

#[test]
fn unique_family_refusals_and_small_outputs() {
    let mut dev = Dev::new();
    let a = dev.zeros(F32, &[2, 3]);
    let v = dev.zeros(F32, &[6]);
    let inv = dev.zeros(S64, &[2, 3]);
    let cnt = dev.zeros(S64, &[6]);
    let small = dev.zeros(F32, &[0]);
    let c64 = dev.zeros(C64, &[2, 3]);
    let u = |s, ri, v, i| {
        run_status(
            |w, e| unsafe { ops::unique::aclnnUniqueGetWorkspaceSize(s, true, ri, v, i, w, e) },
            ops::unique::aclnnUnique,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(u(a, true, v, inv), None);
    assert_eq!(
        u(a, true, v, cnt),
        Some(INVALID),
        "inverse of another shape"
    );
    assert_eq!(
        u(a, false, v, cnt),
        None,
        "inverse's shape unchecked when not asked for"
    );
    assert_eq!(
        u(a, true, v, dev.zeros(S32, &[2, 3])),
        Some(INVALID),
        "int32 inverse"
    );
    assert_eq!(
        u(c64, true, dev.zeros(C64, &[6]), inv),
        Some(INVALID),
        "complex"
    );
    assert_eq!(u(std::ptr::null_mut(), true, v, inv), Some(NULLPTR));
    // All-zero self has one unique value: a 0-element valueOut cannot hold it.
    let msg = run_status(
        |w, e| unsafe {
            ops::unique::aclnnUniqueGetWorkspaceSize(a, true, false, small, inv, w, e)
        },
        ops::unique::aclnnUnique,
    )
    .unwrap_err();
    assert_eq!(msg.0, RUN_FAILED, "a valueOut too small fails the run");
    assert!(
        msg.1.contains("aclnnUnique") && msg.1.contains("valueOut"),
        "{}",
        msg.1
    );
    // A successful run gives valueOut and countsOut the result's view ([1] here), so each
    // call takes fresh ones.
    let u2 = |ri, rc, v, c| {
        run_status(
            |w, e| unsafe {
                ops::unique2::aclnnUnique2GetWorkspaceSize(a, true, ri, rc, v, inv, c, w, e)
            },
            ops::unique2::aclnnUnique2,
        )
        .err()
        .map(|e| e.0)
    };
    let (v6, c6) = (dev.zeros(F32, &[6]), dev.zeros(S64, &[6]));
    assert_eq!(u2(false, true, v6, c6), None);
    assert_eq!(view_shape(c6), vec![1], "countsOut's reported view");
    let (v6, c5) = (dev.zeros(F32, &[6]), dev.zeros(S64, &[5]));
    assert_eq!(
        u2(false, true, v6, c5),
        Some(INVALID),
        "counts of another shape than valueOut"
    );
    assert_eq!(u2(false, false, v6, c5), None);
    let v8 = dev.zeros(F32, &[6]);
    let uc = |dim, i, c| {
        run_status(
            |w, e| unsafe {
                ops::unique_consecutive::aclnnUniqueConsecutiveGetWorkspaceSize(
                    a, true, true, dim, v8, i, c, w, e,
                )
            },
            ops::unique_consecutive::aclnnUniqueConsecutive,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(uc(1000, inv, cnt), None);
    assert_eq!(uc(2, inv, cnt), Some(INVALID), "dim out of range");
    assert_eq!(
        uc(1000, inv, dev.zeros(S32, &[6])),
        Some(INVALID),
        "inverse and counts dtypes differ"
    );
    assert_eq!(
        uc(1000, dev.zeros(S32, &[2, 3]), dev.zeros(S32, &[6])),
        None,
        "int32 inverse and counts"
    );
    let i3 = dev.zeros(S64, &[3]);
    let c3 = dev.zeros(S64, &[3]);
    let v23 = dev.zeros(F32, &[2, 3]);
    let dim_call = |dim, v, i, c| {
        run_status(
            |w, e| unsafe {
                ops::unique_dim::aclnnUniqueDimGetWorkspaceSize(a, true, true, dim, v, i, c, w, e)
            },
            ops::unique_dim::aclnnUniqueDim,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(dim_call(1, v23, i3, c3), None);
    assert_eq!(view_shape(v23), vec![2, 1], "three equal columns are one");
    assert_eq!(dim_call(-3, v23, i3, c3), Some(INVALID), "dim out of range");
    assert_eq!(
        dim_call(1, dev.zeros(F16, &[2, 3]), i3, c3),
        Some(INVALID),
        "valueOut dtype"
    );
    assert_eq!(
        dim_call(1, v23, dev.zeros(S32, &[3]), c3),
        Some(INVALID),
        "int32 inverse"
    );
    assert_eq!(
        dim_call(1, v23, dev.zeros(S64, &[2]), c3),
        Some(RUN_FAILED),
        "an inverseOut too small fails the run"
    );
}

// ---------------------------------------------------------------------------------------
// SearchSorted, SearchSorteds, Bucketize
// ---------------------------------------------------------------------------------------

const SEARCH: &[DType] = &[F16, F32, S16, S8, U8, S32, S64, F64];
const BUCKETIZE: &[DType] = &[F32, F16, S32, S16, BF16, S8, U8, S64];

/// A value exact in every dtype of the lists (non-negative for u8), NaN sometimes.
fn search_value(rng: &mut Rng, d: DType, nan: bool) -> f64 {
    if d.is_float() && nan && rng.pct(10) {
        return f64::NAN;
    }
    let x = rng.below(24) as f64;
    if d == U8 {
        x
    } else {
        x - 12.0
    }
}

/// The value `b` of dtype `d` converted to `via`: an integer to an integer wraps; the
/// values here are exact in every float dtype (−0 and NaN kept).
fn as_via(d: DType, b: &[u8], via: DType) -> Val {
    match val(d, b) {
        Val::I(i) if !via.is_float() => val(via, &(i as i64).to_le_bytes()[..via.size()]),
        Val::I(i) => val(via, &super::shape_diff::enc(via, i as f64)),
        Val::F(x) => val(via, &super::shape_diff::enc(via, x)),
        Val::C(..) => unreachable!(),
    }
}

/// torch's binary search (the lower bound, or the upper when `right`).
fn ref_bound(row: &[Val], v: Val, right: bool) -> i64 {
    let cmp_ge = |x: Val, y: Val| match (x, y) {
        (Val::F(a), Val::F(b)) => a >= b,
        (Val::I(a), Val::I(b)) => a >= b,
        _ => unreachable!(),
    };
    let cmp_gt = |x: Val, y: Val| match (x, y) {
        (Val::F(a), Val::F(b)) => a > b,
        (Val::I(a), Val::I(b)) => a > b,
        _ => unreachable!(),
    };
    let (mut lo, mut hi) = (0, row.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let stop = if right {
            cmp_gt(row[mid], v)
        } else {
            cmp_ge(row[mid], v)
        };
        if stop {
            hi = mid
        } else {
            lo = mid + 1
        }
    }
    lo as i64
}

#[test]
fn searches_match_torchs_binary_search() {
    let mut rng = Rng::new(0x5ea6);
    let mut torch = Batch::new();
    let mut torch_cases = vec![];
    for case in 0..300 {
        let bucketize = rng.pct(25);
        let list = if bucketize { BUCKETIZE } else { SEARCH };
        let (sd, xd) = (pick(&mut rng, list), pick(&mut rng, list));
        let via = match crate::dtype::promote(sd, xd) {
            Some(v) if bucketize || SEARCH.contains(&v) => v,
            _ => continue,
        };
        let rank = if bucketize {
            rng.below(4) as usize
        } else {
            1 + rng.below(3) as usize
        };
        let xshape = rand_shape(&mut rng, rank, 5, 5);
        let nd_seq = !bucketize && rank > 1 && rng.pct(50);
        let row_len = rng.below(7) as usize;
        let sshape: Vec<usize> = if nd_seq {
            let mut s = xshape.clone();
            *s.last_mut().unwrap() = row_len;
            s
        } else {
            vec![row_len]
        };
        let via = if bucketize && rank == 0 {
            if sd.is_float() || !xd.is_float() {
                sd
            } else {
                via
            }
        } else {
            via
        };
        let right = rng.pct(50);
        let out_int32 = rng.pct(30);
        let with_sorter = !bucketize && rng.pct(30);
        let nan = rng.pct(30);
        // Each row sorted (NaN last), then stored permuted when a sorter is given.
        let sv = View::random(&mut rng, sd, &sshape);
        let rows: usize = if nd_seq {
            xshape[..rank - 1].iter().product()
        } else {
            1
        };
        let mut sm = fill(&mut rng, &sv);
        let mut perm_all = vec![];
        let ssv = View::random(&mut rng, S64, &sshape);
        let mut ssm = fill(&mut rng, &ssv);
        let sidx = sv.indices();
        for r in 0..rows {
            let mut vals: Vec<f64> = (0..row_len)
                .map(|_| search_value(&mut rng, sd, nan))
                .collect();
            vals.sort_by(|a, b| torch_cmp(*a, *b));
            let mut perm: Vec<usize> = (0..row_len).collect();
            if with_sorter {
                for i in (1..row_len).rev() {
                    perm.swap(i, rng.below(i as u64 + 1) as usize);
                }
            }
            // stored[perm[i]] = sorted[i]; sorter[i] = perm[i].
            for i in 0..row_len {
                let at = sv.at(&sidx[r * row_len + perm[i]]);
                sm[at * sd.size()..(at + 1) * sd.size()]
                    .copy_from_slice(&super::shape_diff::enc(sd, vals[i]));
                let sat = ssv.at(&sidx[r * row_len + i]);
                ssm[sat * 8..sat * 8 + 8].copy_from_slice(&(perm[i] as i64).to_le_bytes());
            }
            perm_all.push(perm);
        }
        let xv = View::random(&mut rng, xd, &xshape);
        let xm: Vec<u8> = (0..xv.storage)
            .flat_map(|_| super::shape_diff::enc(xd, search_value(&mut rng, xd, nan)))
            .collect();
        let od = if out_int32 { S32 } else { S64 };
        let ov = View::random(&mut rng, od, &xshape);
        let om = fill(&mut rng, &ov);
        let mut dev = Dev::new();
        let (s, x, o, ss) = (
            dev.upload(&sm),
            dev.upload(&xm),
            dev.upload(&om),
            dev.upload(&ssm),
        );
        let (st, xt, ot) = (
            dev.tensor(&sv, s, ND),
            dev.tensor(&xv, x, ND),
            dev.tensor(&ov, o, ND),
        );
        let sorter = if with_sorter {
            dev.tensor(&ssv, ss, ND)
        } else {
            null_mut()
        };
        let what = format!("case {case} bucketize {bucketize} seq {sd} {sshape:?} self {xd} {xshape:?} right {right} sorter {with_sorter}");
        let r = if bucketize {
            call(
                |w, e| unsafe {
                    ops::bucketize::aclnnBucketizeGetWorkspaceSize(
                        xt, st, out_int32, right, ot, w, e,
                    )
                },
                ops::bucketize::aclnnBucketize,
            )
        } else {
            call(
                |w, e| unsafe {
                    ops::searchsorted::aclnnSearchSortedGetWorkspaceSize(
                        st, xt, out_int32, right, sorter, ot, w, e,
                    )
                },
                ops::searchsorted::aclnnSearchSorted,
            )
        };
        r.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let per_row = if nd_seq {
            *xshape.last().unwrap()
        } else {
            xv.numel()
        };
        for (k, idx) in xv.indices().iter().enumerate() {
            let r = k / per_row.max(1);
            let row: Vec<Val> = (0..row_len)
                .map(|i| {
                    let at = sv.at(&sidx[r * row_len + perm_all[r][i]]);
                    as_via(sd, sv.elem(&sm, at), via)
                })
                .collect();
            let want = ref_bound(&row, as_via(xd, xv.elem(&xm, xv.at(idx)), via), right);
            let b = ov.elem(&og, ov.at(idx));
            let got = if od == S32 {
                i32::from_le_bytes(b.try_into().unwrap()) as i64
            } else {
                i64::from_le_bytes(b.try_into().unwrap())
            };
            assert_eq!(got, want, "{what}: out{idx:?}");
        }
        let torch_ok = |d: DType| d != BF16 && d != F16;
        if torch_ok(sd) && torch_ok(xd) && torch_cases.len() < 120 {
            let p = torch.program(if bucketize {
                "p = torch.promote_types(a[0].dtype, a[1].dtype) if a[1].dim() > 0 else a[0].dtype if a[0].is_floating_point() or not a[1].is_floating_point() else torch.promote_types(a[0].dtype, a[1].dtype)\n\
                 out = torch.bucketize(a[1].to(p), a[0].to(p), right=bool(a[2].item())).to(torch.int64)"
            } else {
                "p = torch.promote_types(a[0].dtype, a[1].dtype)\n\
                 out = torch.searchsorted(a[0].to(p), a[1].to(p), right=bool(a[2].item()), sorter=a[3]).to(torch.int64)"
            });
            let sorter_arr = with_sorter.then(|| ssv.array(&ssm));
            torch.case(
                p,
                vec![
                    Some(sv.array(&sm)),
                    Some(xv.array(&xm)),
                    Some(Array::int(right as i64)),
                    sorter_arr,
                ],
            );
            let got: Vec<i64> = xv
                .indices()
                .iter()
                .map(|idx| {
                    let b = ov.elem(&og, ov.at(idx));
                    if od == S32 {
                        i32::from_le_bytes(b.try_into().unwrap()) as i64
                    } else {
                        i64::from_le_bytes(b.try_into().unwrap())
                    }
                })
                .collect();
            torch_cases.push((what, got));
        }
    }
    if let Some(res) = torch.run("searchsorted") {
        for (k, (what, got)) in torch_cases.iter().enumerate() {
            let t = &res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"))[0];
            let tv: Vec<i64> = (0..t.numel())
                .map(|e| i64::from_le_bytes(t.elem(e).try_into().unwrap()))
                .collect();
            assert_eq!(&tv, got, "{what}: torch");
        }
    }
}

#[test]
fn search_refusals_and_the_scalar_form() {
    let mut dev = Dev::new();
    let seq_v = View::contiguous(F32, &[4]);
    let sm: Vec<u8> = [1.0f32, 2.0, 2.0, 5.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let s = dev.upload(&sm);
    let seq = dev.tensor(&seq_v, s, ND);
    let x = dev.zeros(F32, &[2, 3]);
    let out = dev.zeros(S64, &[2, 3]);
    let search = |seq, x, i32_, sorter, out| {
        run_status(
            |w, e| unsafe {
                ops::searchsorted::aclnnSearchSortedGetWorkspaceSize(
                    seq, x, i32_, false, sorter, out, w, e,
                )
            },
            ops::searchsorted::aclnnSearchSorted,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(search(seq, x, false, null_mut(), out), None);
    assert_eq!(
        search(seq, x, true, null_mut(), out),
        Some(INVALID),
        "outInt32 with an int64 out"
    );
    assert_eq!(
        search(seq, x, false, null_mut(), dev.zeros(S64, &[3])),
        Some(INVALID),
        "out shape"
    );
    assert_eq!(
        search(dev.zeros(F32, &[3, 4]), x, false, null_mut(), out),
        Some(INVALID),
        "leading dims"
    );
    assert_eq!(
        search(dev.zeros(BF16, &[4]), x, false, null_mut(), out),
        Some(INVALID),
        "bf16"
    );
    assert_eq!(
        search(seq, x, false, dev.zeros(S64, &[3]), out),
        Some(INVALID),
        "sorter shape"
    );
    assert_eq!(
        search(seq, x, false, dev.zeros(S32, &[4]), out),
        Some(INVALID),
        "sorter dtype"
    );
    assert_eq!(search(null_mut(), x, false, null_mut(), out), Some(NULLPTR));
    // A sorter entry out of range fails the run and writes nothing.
    let bad: Vec<u8> = [0i64, 1, 7, 2]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let b = dev.upload(&bad);
    let bad_sorter = dev.tensor(&View::contiguous(S64, &[4]), b, ND);
    assert_eq!(search(seq, x, false, bad_sorter, out), Some(RUN_FAILED));
    // SearchSorteds: 2.0 goes before the first 2 (left) or after the last (right).
    for (right, want) in [(false, 1i64), (true, 3)] {
        let ov = View::contiguous(S64, &[1]);
        let o = dev.upload(&[0u8; 8]);
        let ot = dev.tensor(&ov, o, ND);
        let sc = dev.scalar(F64, &2.0f64.to_le_bytes());
        call(
            |w, e| unsafe {
                ops::searchsorted::aclnnSearchSortedsGetWorkspaceSize(
                    seq,
                    sc,
                    false,
                    right,
                    null_mut(),
                    ot,
                    w,
                    e,
                )
            },
            ops::searchsorted::aclnnSearchSorteds,
        )
        .unwrap();
        assert_eq!(
            i64::from_le_bytes(dev.download(o).try_into().unwrap()),
            want,
            "right {right}"
        );
    }
    let sc = dev.scalar(F32, &2.0f32.to_le_bytes());
    let empty_out = dev.zeros(S64, &[0]);
    let r = call(
        |w, e| unsafe {
            ops::searchsorted::aclnnSearchSortedsGetWorkspaceSize(
                seq,
                sc,
                false,
                false,
                null_mut(),
                empty_out,
                w,
                e,
            )
        },
        ops::searchsorted::aclnnSearchSorteds,
    );
    assert_eq!(r.err().map(|e| e.0), Some(INVALID), "an empty out");
    let bucket = |x, b, out| {
        call(
            |w, e| unsafe {
                ops::bucketize::aclnnBucketizeGetWorkspaceSize(x, b, false, false, out, w, e)
            },
            ops::bucketize::aclnnBucketize,
        )
        .err()
        .map(|e| e.0)
    };
    assert_eq!(bucket(x, seq, out), None);
    assert_eq!(
        bucket(x, dev.zeros(F32, &[2, 2]), out),
        Some(INVALID),
        "2-D boundaries"
    );
    assert_eq!(
        bucket(x, dev.zeros(F64, &[4]), out),
        Some(INVALID),
        "f64 boundaries"
    );
    assert_eq!(
        bucket(x, seq, dev.zeros(S32, &[2, 3])),
        Some(INVALID),
        "int32 out without outInt32"
    );
}
