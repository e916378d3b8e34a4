//! Differential tests of the statistical and logical reductions (ops/reduce_stats.rs): All,
//! Any, Prod, ProdDim, Var, VarCorrection, Std, VarMean, StdMeanCorrection, LogSumExp,
//! ReduceLogSum, ReduceNansum, MaxV2, against plain f64 loops written here from the
//! documented formulas, over random shapes (0-d and empty included), dims (negative, empty
//! = every axis), keepdim, dtypes, views (permuted, strided, offset) for self and out, and
//! special values (NaN, ±inf); plus the error cases.
//!
//! The model:
//! - values enter through the op's value dtype (Prod/ReduceNansum: `dtype`; All/Any: bool,
//!   x ≠ 0 with NaN true; LogSumExp: f32);
//! - Var/Std: the two-pass Σ(x − mean)² / max(0, n − correction) in f64 (sqrt for Std),
//!   rounded to self's dtype then to out's; the means as Mean;
//! - LogSumExp: max-shifted ln Σ exp in f64 (a NaN → NaN, every value −inf or none → −inf);
//! - ReduceLogSum: ln Σ; empty data fills 0. Prod: product (integers wrap as i64);
//!   ReduceNansum: Σ with NaN as 0; MaxV2: max, NaN propagating.
//!
//! Bound: floats within 1 ulp of the out dtype of the reference (each result rounds once
//! from f64, twice when the value dtype differs from out's), integers and bools exact.
//! Outputs never write outside their view: the rest of their storage keeps its sentinel.

use super::add_diff::Rng;
use crate::dtype::DType;
use crate::element::Wide;
use crate::executor::{Executor, Workspace};
use crate::ops::reduce_stats as rs;
use crate::tensor::TensorDesc;

use DType::*;

const SENTINEL: u8 = 0xA5;

/// A view over its own storage (sentinel bytes outside the elements written).
struct Buf {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
    mem: Vec<u64>,
    elems: usize,
}

impl Buf {
    /// A view of `shape`: contiguous, or (`layout`) dims in a random order, some strided by
    /// 2, at a random offset.
    fn new(rng: &mut Rng, d: DType, shape: &[usize], layout: bool) -> Buf {
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).collect();
        let mut steps = vec![1usize; r];
        let mut offset = 0;
        if layout {
            for i in (1..r).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            for s in steps.iter_mut() {
                *s = if rng.pct(30) { 2 } else { 1 };
            }
            offset = rng.below(4) as usize;
        }
        let mut strides = vec![0; r];
        let mut acc = 1;
        for &dim in order.iter().rev() {
            strides[dim] = acc * steps[dim];
            acc = strides[dim] * shape[dim].max(1);
        }
        let elems = offset + acc + 2;
        let mut mem = vec![0u64; (elems * d.size()) / 8 + 2];
        // SAFETY: the words hold at least elems·size bytes.
        unsafe { std::ptr::write_bytes(mem.as_mut_ptr() as *mut u8, SENTINEL, mem.len() * 8) };
        Buf {
            dtype: d,
            shape: shape.to_vec(),
            strides,
            offset,
            mem,
            elems,
        }
    }

    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The storage index of logical (row-major) element `i`.
    fn index(&self, mut i: usize) -> usize {
        let mut at = self.offset;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            at += (i % n) * s;
            i /= n;
        }
        at
    }

    fn ptr(&mut self, at: usize) -> *mut u8 {
        // SAFETY: callers pass indices below `elems`.
        unsafe { (self.mem.as_mut_ptr() as *mut u8).add(at * self.dtype.size()) }
    }

    /// Writes logical element `i` (converted to the dtype by the library's rule).
    fn put(&mut self, i: usize, w: Wide) {
        let p = self.ptr(self.index(i));
        // SAFETY: p is an element of the storage.
        crate::with_dtype!(self.dtype, T => unsafe { (p as *mut T).write_unaligned(T::from_wide(w)) })
    }

    /// Logical element `i` as stored.
    fn get(&mut self, i: usize) -> Wide {
        let p = self.ptr(self.index(i));
        // SAFETY: as above.
        crate::with_dtype!(self.dtype, T => unsafe { (p as *const T).read_unaligned().to_wide() })
    }

    fn desc(&mut self) -> TensorDesc {
        let shape: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let strides: Vec<i64> = self.strides.iter().map(|&d| d as i64).collect();
        let addr = self.mem.as_mut_ptr() as usize;
        TensorDesc::new(
            &shape,
            self.dtype as i32,
            Some(&strides),
            self.offset as i64,
            2,
            &[self.elems as i64],
            addr,
        )
        .expect("a valid view")
    }

    /// Whether every storage byte outside the view still holds the sentinel.
    fn untouched_outside(&mut self) -> bool {
        let s = self.dtype.size();
        let mut inside = vec![false; self.elems];
        for i in 0..self.numel() {
            inside[self.index(i)] = true;
        }
        // SAFETY: the words hold at least elems·size bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(self.mem.as_ptr() as *const u8, self.elems * s) };
        (0..self.elems)
            .all(|e| inside[e] || bytes[e * s..(e + 1) * s].iter().all(|&b| b == SENTINEL))
    }
}

fn run(e: &Executor) -> crate::Result<()> {
    let n = e.workspace_size() as usize;
    let mut ws = vec![0u64; n / 8 + 16];
    let addr = (ws.as_mut_ptr() as usize).div_ceil(64) * 64;
    e.work.run(
        &e.bindings,
        Workspace {
            addr,
            size: n as u64,
        },
    )
}

fn as_f64(w: Wide) -> f64 {
    match w {
        Wide::Bool(b) => b as u8 as f64,
        Wide::Int(i) => i as f64,
        Wide::Float(f) => f,
        Wide::Complex(re, _) => re,
    }
}

/// `w` converted to `d` by the library's rule (the reference's rounding).
fn to(d: DType, w: Wide) -> Wide {
    crate::with_dtype!(d, T => T::from_wide(w).to_wide())
}

/// One unit in the last place of `d` at |x| (x finite, a value of d).
fn ulp(d: DType, x: f64) -> f64 {
    let (mant, min_exp) = match d {
        F32 => (23, -126),
        F16 => (10, -14),
        BF16 => (7, -126),
        _ => (52, -1022),
    };
    let e = if x == 0.0 {
        min_exp
    } else {
        (x.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

/// Whether `got` is within 1 ulp of `want` (both values of the float dtype `d`).
fn close(d: DType, got: f64, want: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= ulp(d, want)
}

/// The reduced axes (sorted) of a dims list, as the rule normalises it.
fn norm_axes(dims: &[i64], rank: usize) -> Vec<usize> {
    if dims.is_empty() {
        return (0..rank).collect();
    }
    let r = rank.max(1) as i64;
    let mut a: Vec<usize> = dims
        .iter()
        .map(|&d| d.rem_euclid(r) as usize)
        .filter(|&a| a < rank)
        .collect();
    a.sort_unstable();
    a
}

fn out_shape(shape: &[usize], axes: &[usize], keep: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|d| match (axes.contains(&d), keep) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(shape[d]),
        })
        .collect()
}

/// The input values of each output position (row-major over the kept dims).
fn groups(vals: &[Wide], shape: &[usize], axes: &[usize]) -> Vec<Vec<Wide>> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    let outs: usize = kept.iter().map(|&d| shape[d]).product();
    let mut g = vec![Vec::new(); outs];
    for (i, &v) in vals.iter().enumerate() {
        let mut rem = i;
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        let o = kept.iter().fold(0, |a, &d| a * shape[d] + idx[d]);
        g[o].push(v);
    }
    g
}

/// A random shape of rank 0..=4 (sizes 0..=5, an empty dim now and then) and a dims list
/// for it (empty, or distinct axes, some negative).
fn shape_and_dims(rng: &mut Rng) -> (Vec<usize>, Vec<i64>) {
    let rank = rng.below(5) as usize;
    let shape: Vec<usize> = (0..rank)
        .map(|_| {
            if rng.pct(5) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect();
    let mut dims = Vec::new();
    if rank > 0 && !rng.pct(20) {
        for d in 0..rank {
            if rng.pct(50) {
                dims.push(if rng.pct(50) {
                    d as i64 - rank as i64
                } else {
                    d as i64
                });
            }
        }
    }
    (shape, dims)
}

/// A random value for `d`: small numbers, with NaN and ±inf now and then when `special`.
fn value(rng: &mut Rng, d: DType, special: bool, near_one: bool) -> Wide {
    if d == Bool {
        return Wide::Bool(rng.pct(70));
    }
    if !d.is_float() {
        return Wide::Int(rng.below(7) as i128 - 3);
    }
    if special && rng.pct(4) {
        return Wide::Float(rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0]));
    }
    if near_one {
        let m = 0.5 + rng.below(257) as f64 / 256.0;
        return Wide::Float(if rng.pct(50) { -m } else { m });
    }
    Wide::Float((rng.below(2001) as f64 - 1000.0) / 256.0)
}

/// What one case computes: the rule's call and the reference for a group of values
/// (already converted to the value dtype), giving the value before the final rounding.
struct Case<'a> {
    name: &'a str,
    self_dtypes: &'a [DType],
    /// The out dtype for a self dtype.
    out_dtype: &'a dyn Fn(&mut Rng, DType) -> DType,
    /// The dtype values pass through (and the result is rounded to before out's).
    value: &'a dyn Fn(DType, DType) -> DType,
    special: bool,
    /// Values of magnitude 0.5..1.5 (products that neither overflow nor underflow f64).
    near_one: bool,
    call: &'a dyn Fn(&TensorDesc, &[i64], bool, &TensorDesc, DType) -> crate::Result<Executor>,
    reference: &'a dyn Fn(&[Wide]) -> Wide,
}

fn var_ref(v: &[Wide], correction: i64, root: bool) -> Wide {
    let x: Vec<f64> = v.iter().map(|&w| as_f64(w)).collect();
    let n = x.len() as f64;
    if x.is_empty() {
        // An empty set has no variance whatever the correction (torch, and CANN's fill).
        return Wide::Float(f64::NAN);
    }
    let mean = x.iter().sum::<f64>() / n;
    let ss: f64 = x.iter().map(|&a| (a - mean) * (a - mean)).sum();
    let var = ss / (n - correction as f64).max(0.0);
    Wide::Float(if root { var.sqrt() } else { var })
}

fn lse_ref(v: &[Wide]) -> Wide {
    let x: Vec<f64> = v.iter().map(|&w| as_f64(w)).collect();
    if x.iter().any(|a| a.is_nan()) {
        return Wide::Float(f64::NAN);
    }
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let shift = if m.is_infinite() { 0.0 } else { m };
    Wide::Float(x.iter().map(|&a| (a - shift).exp()).sum::<f64>().ln() + shift)
}

fn check_case(c: &Case, seed: u64, cases: usize) {
    let mut rng = Rng::new(seed);
    for k in 0..cases {
        let (shape, mut dims) = shape_and_dims(&mut rng);
        if c.name == "ProdDim" {
            // ProdDim takes one dim; Prod (dims empty here) every axis.
            dims.truncate(1);
        }
        let keep = rng.pct(50);
        let sd = rng.pick(c.self_dtypes);
        let od = (c.out_dtype)(&mut rng, sd);
        let vd = (c.value)(sd, od);
        let axes = norm_axes(&dims, shape.len());
        let oshape = out_shape(&shape, &axes, keep);
        let layout = rng.pct(60);
        let mut x = Buf::new(&mut rng, sd, &shape, layout);
        for i in 0..x.numel() {
            let v = value(&mut rng, sd, c.special, c.near_one);
            x.put(i, v);
        }
        let stored: Vec<Wide> = (0..x.numel()).map(|i| to(vd, x.get(i))).collect();
        let layout = rng.pct(60);
        let mut out = Buf::new(&mut rng, od, &oshape, layout);
        let e = (c.call)(&x.desc(), &dims, keep, &out.desc(), od).unwrap_or_else(|e| {
            panic!(
                "{} case {k}: {shape:?} dims {dims:?} {sd}->{od}: {e}",
                c.name
            )
        });
        run(&e).unwrap();
        let g = groups(&stored, &shape, &axes);
        for (o, vals) in g.iter().enumerate() {
            let want = to(od, to(vd, (c.reference)(vals)));
            let got = out.get(o);
            let ok = if od.is_float() {
                close(od, as_f64(got), as_f64(want))
            } else {
                as_f64(got) == as_f64(want)
            };
            assert!(
                ok,
                "{} case {k}: self {shape:?} {sd} dims {dims:?} keep {keep} out {od}: [{o}] = {got:?}, want {want:?} from {vals:?}",
                c.name
            );
        }
        assert!(
            out.untouched_outside(),
            "{} case {k}: wrote outside out",
            c.name
        );
    }
}

const FLOATS: &[DType] = &[F32, F16, BF16];

#[test]
fn var_std_and_their_means_match_an_f64_two_pass_loop() {
    let same = |_: &mut Rng, d: DType| d;
    let float_out = |r: &mut Rng, _: DType| r.pick(FLOATS);
    let value_self = |s: DType, _: DType| s;
    for correction in [0i64, 1, 2, -1, 7] {
        let var = move |v: &[Wide]| var_ref(v, correction, false);
        let std = move |v: &[Wide]| var_ref(v, correction, true);
        let cases: [Case; 2] = [
            Case {
                name: "VarCorrection",
                self_dtypes: FLOATS,
                out_dtype: &float_out,
                value: &value_self,
                special: true,
                near_one: false,
                call: &|x, d, k, o, _| rs::var_correction(x, Some(d), correction, k, o),
                reference: &var,
            },
            Case {
                name: "Std",
                self_dtypes: FLOATS,
                out_dtype: &same,
                value: &value_self,
                special: true,
                near_one: false,
                call: &|x, d, k, o, _| {
                    let dim = if d.is_empty() && correction == 1 {
                        None
                    } else {
                        Some(d)
                    };
                    rs::std_dev(x, dim, correction, k, o)
                },
                reference: &std,
            },
        ];
        for (i, c) in cases.iter().enumerate() {
            check_case(c, 100 + correction as u64 * 7 + i as u64, 150);
        }
    }
    // Var's unbiased flag is correction 1 or 0.
    for unbiased in [false, true] {
        let var = move |v: &[Wide]| var_ref(v, unbiased as i64, false);
        let c = Case {
            name: "Var",
            self_dtypes: FLOATS,
            out_dtype: &same,
            value: &value_self,
            special: false,
            near_one: false,
            call: &|x, d, k, o, _| rs::var(x, Some(d), unbiased, k, o),
            reference: &var,
        };
        check_case(&c, 7 + unbiased as u64, 150);
    }
}

/// VarMean and StdMeanCorrection write both outputs, each to its own view.
#[test]
fn var_mean_and_std_mean_write_both_outputs() {
    let mut rng = Rng::new(31);
    for k in 0..120 {
        let (shape, dims) = shape_and_dims(&mut rng);
        let keep = rng.pct(50);
        let sd = rng.pick(FLOATS);
        let correction = rng.below(3) as i64;
        let root = rng.pct(50);
        let axes = norm_axes(&dims, shape.len());
        let oshape = out_shape(&shape, &axes, keep);
        let mut x = Buf::new(&mut rng, sd, &shape, true);
        for i in 0..x.numel() {
            let v = value(&mut rng, sd, false, false);
            x.put(i, v);
        }
        let stored: Vec<Wide> = (0..x.numel()).map(|i| x.get(i)).collect();
        let (vo, mo) = (rng.pick(FLOATS), rng.pick(FLOATS));
        let mut a = Buf::new(&mut rng, vo, &oshape, true);
        let mut m = Buf::new(&mut rng, mo, &oshape, true);
        let e = if root {
            rs::std_mean_correction(
                &x.desc(),
                Some(&dims),
                correction,
                keep,
                &a.desc(),
                &m.desc(),
            )
        } else {
            rs::var_mean(
                &x.desc(),
                Some(&dims),
                correction,
                keep,
                &a.desc(),
                &m.desc(),
            )
        }
        .unwrap();
        run(&e).unwrap();
        for (o, vals) in groups(&stored, &shape, &axes).iter().enumerate() {
            let want = to(vo, to(sd, var_ref(vals, correction, root)));
            let mean = vals.iter().map(|&w| as_f64(w)).sum::<f64>() / vals.len() as f64;
            let want_mean = to(mo, to(sd, Wide::Float(mean)));
            assert!(
                close(vo, as_f64(a.get(o)), as_f64(want)),
                "case {k}: {shape:?} dims {dims:?} var/std[{o}] {:?} want {want:?}",
                a.get(o)
            );
            assert!(
                close(mo, as_f64(m.get(o)), as_f64(want_mean)),
                "case {k}: mean[{o}] {:?} want {want_mean:?}",
                m.get(o)
            );
        }
        assert!(a.untouched_outside() && m.untouched_outside(), "case {k}");
    }
}

/// Var is stable where the mean is large against the spread: f32 values 1e4 + δ with
/// variance about 1e-4 (a one-pass Σx² − n·mean² in f32 or even f64 loses every digit).
#[test]
fn var_is_stable_at_a_large_mean() {
    let mut rng = Rng::new(5);
    let n = 10_000;
    let mut x = Buf::new(&mut rng, F32, &[n], false);
    for i in 0..n {
        let d = (rng.below(2001) as f64 - 1000.0) * 1e-5;
        x.put(i, Wide::Float(1e4 + d));
    }
    let vals: Vec<Wide> = (0..n).map(|i| x.get(i)).collect();
    let mut out = Buf::new(&mut rng, F32, &[], false);
    run(&rs::var_correction(&x.desc(), None, 1, false, &out.desc()).unwrap()).unwrap();
    let want = as_f64(to(F32, var_ref(&vals, 1, false)));
    let got = as_f64(out.get(0));
    assert!(
        want > 1e-5 && close(F32, got, want),
        "var {got} want {want}"
    );
}

#[test]
fn logsumexp_logsum_nansum_prod_all_any_maxv2_match_f64_loops() {
    let float_out = |r: &mut Rng, _: DType| r.pick(&[F32, F16, BF16]);
    let same = |_: &mut Rng, d: DType| d;
    let value_self = |s: DType, _: DType| s;
    let value_out = |_: DType, o: DType| o;
    let lse_in = [F32, F16, BF16, S32, S64, S16, S8, U8, Bool];
    let nansum_dt = [F16, F32, S8, S16, S32, S64, U8, Bool, BF16];
    let prod_dt = [F16, F32, F64, S8, U8, S16, S32, S64, Bool, BF16];
    let logical_in = [Bool, U8, S8, S16, S32, S64, F32, F16, BF16, F64];
    let max_dt = [F32, F16, S8, S16, S32, S64, U8, F64, Bool, BF16];
    let nansum_out = |r: &mut Rng, s: DType| {
        // out must take self's values: float self, float out; integer self, any.
        if s.is_float() {
            r.pick(&[F16, F32, BF16])
        } else {
            r.pick(&[F16, F32, S8, S16, S32, S64, U8, BF16])
        }
    };
    let prod_out =
        |r: &mut Rng, _: DType| r.pick(&[F16, F32, F64, S8, U8, S16, S32, S64, Bool, BF16]);
    let sum = |v: &[Wide]| -> Wide {
        match v.first() {
            Some(Wide::Float(_)) => Wide::Float(v.iter().map(|&w| as_f64(w)).sum()),
            _ => Wide::Int(v.iter().map(|&w| as_f64(w) as i128).sum()),
        }
    };
    let nansum = |v: &[Wide]| -> Wide {
        let kept: Vec<Wide> = v
            .iter()
            .copied()
            .filter(|w| !matches!(w, Wide::Float(f) if f.is_nan()))
            .collect();
        if kept.is_empty() && matches!(v.first(), Some(Wide::Float(_))) {
            return Wide::Float(0.0);
        }
        sum(&kept)
    };
    let cases: Vec<Case> = vec![
        Case {
            name: "LogSumExp",
            self_dtypes: &lse_in,
            out_dtype: &float_out,
            value: &|_: DType, _: DType| F32,
            special: true,
            near_one: false,
            call: &|x, d, k, o, _| rs::log_sum_exp(x, d, k, o),
            reference: &lse_ref,
        },
        Case {
            name: "ReduceLogSum",
            self_dtypes: FLOATS,
            out_dtype: &same,
            value: &value_self,
            special: false,
            near_one: false,
            call: &|x, d, k, o, _| rs::reduce_log_sum(x, d, k, false, o),
            reference: &|v| {
                if v.is_empty() {
                    // Only when data is empty: CANN fills 0.
                    Wide::Float(0.0)
                } else {
                    Wide::Float(v.iter().map(|&w| as_f64(w)).sum::<f64>().ln())
                }
            },
        },
        Case {
            name: "ReduceNansum",
            self_dtypes: &nansum_dt,
            out_dtype: &nansum_out,
            value: &value_out,
            special: true,
            near_one: false,
            call: &|x, d, k, o, od| rs::reduce_nansum(x, d, k, od as i32, o),
            reference: &nansum,
        },
        Case {
            name: "ProdDim",
            self_dtypes: &prod_dt,
            out_dtype: &prod_out,
            value: &value_out,
            special: true,
            near_one: true,
            call: &|x, d, k, o, od| {
                if d.len() == 1 {
                    rs::prod_dim(x, d[0], k, od as i32, o)
                } else {
                    // Prod reduces everything: the case's dims were every axis.
                    rs::prod(x, od as i32, o)
                }
            },
            reference: &|v| match v.first() {
                Some(Wide::Float(_)) => Wide::Float(v.iter().map(|&w| as_f64(w)).product()),
                _ => Wide::Int(
                    v.iter()
                        .fold(1i64, |a, &w| a.wrapping_mul(as_f64(w) as i64))
                        as i128,
                ),
            },
        },
        Case {
            name: "All",
            self_dtypes: &logical_in,
            out_dtype: &|r: &mut Rng, _: DType| r.pick(&[Bool, U8]),
            value: &|_: DType, _: DType| Bool,
            special: true,
            near_one: false,
            call: &|x, d, k, o, _| rs::all(x, d, k, o),
            reference: &|v| Wide::Bool(v.iter().all(|&w| as_f64(w) != 0.0)),
        },
        Case {
            name: "Any",
            self_dtypes: &logical_in,
            out_dtype: &|_: &mut Rng, _: DType| Bool,
            value: &|_: DType, _: DType| Bool,
            special: true,
            near_one: false,
            call: &|x, d, k, o, _| rs::any(x, d, k, o),
            reference: &|v| Wide::Bool(v.iter().any(|&w| as_f64(w) != 0.0)),
        },
    ];
    for (i, c) in cases.iter().enumerate() {
        check_case(c, 1000 + i as u64, 300);
    }
    // MaxV2 refuses a zero-size reduced axis: only non-empty shapes here.
    let mut rng = Rng::new(77);
    for k in 0..200 {
        let (mut shape, dims) = shape_and_dims(&mut rng);
        shape.iter_mut().for_each(|s| *s = (*s).max(1));
        let keep = rng.pct(50);
        let sd = rng.pick(&max_dt);
        let axes = norm_axes(&dims, shape.len());
        let oshape = out_shape(&shape, &axes, keep);
        let mut x = Buf::new(&mut rng, sd, &shape, true);
        for i in 0..x.numel() {
            let v = value(&mut rng, sd, true, false);
            x.put(i, v);
        }
        let vals: Vec<Wide> = (0..x.numel()).map(|i| x.get(i)).collect();
        let mut out = Buf::new(&mut rng, sd, &oshape, true);
        run(&rs::max_v2(&x.desc(), &dims, keep, false, &out.desc()).unwrap()).unwrap();
        for (o, g) in groups(&vals, &shape, &axes).iter().enumerate() {
            let f: Vec<f64> = g.iter().map(|&w| as_f64(w)).collect();
            let want = if f.iter().any(|a| a.is_nan()) {
                f64::NAN
            } else {
                f.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            };
            let got = as_f64(out.get(o));
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "MaxV2 case {k}: {shape:?} {sd} dims {dims:?}: [{o}] {got} want {want}"
            );
        }
        assert!(out.untouched_outside());
    }
}

/// Empty inputs, the noop forms, and the documented special cases.
#[test]
fn empty_inputs_noop_forms_and_special_values() {
    let mut rng = Rng::new(3);
    let mut x = Buf::new(&mut rng, F32, &[0, 3], false);
    // Var over an empty axis: NaN (CANN fills NaN); LogSumExp: −inf; ReduceLogSum: 0.
    let mut o = Buf::new(&mut rng, F32, &[3], false);
    run(&rs::var(&x.desc(), Some(&[0]), true, false, &o.desc()).unwrap()).unwrap();
    assert!((0..3).all(|i| as_f64(o.get(i)).is_nan()));
    run(&rs::log_sum_exp(&x.desc(), &[0], false, &o.desc()).unwrap()).unwrap();
    assert!((0..3).all(|i| as_f64(o.get(i)) == f64::NEG_INFINITY));
    run(&rs::reduce_log_sum(&x.desc(), &[0], false, false, &o.desc()).unwrap()).unwrap();
    assert!((0..3).all(|i| as_f64(o.get(i)) == 0.0));
    let mut b = Buf::new(&mut rng, Bool, &[3], false);
    run(&rs::all(&x.desc(), &[0], false, &b.desc()).unwrap()).unwrap();
    assert!((0..3).all(|i| as_f64(b.get(i)) == 1.0));
    run(&rs::any(&x.desc(), &[0], false, &b.desc()).unwrap()).unwrap();
    assert!((0..3).all(|i| as_f64(b.get(i)) == 0.0));
    // A single element with correction 1: NaN; Prod of an empty tensor: 1 in a [1] out.
    let mut one = Buf::new(&mut rng, F32, &[1], false);
    one.put(0, Wide::Float(2.5));
    let mut s = Buf::new(&mut rng, F32, &[], false);
    run(&rs::std_dev(&one.desc(), None, 1, false, &s.desc()).unwrap()).unwrap();
    assert!(as_f64(s.get(0)).is_nan());
    let mut p = Buf::new(&mut rng, F32, &[1], false);
    run(&rs::prod(&x.desc(), F32 as i32, &p.desc()).unwrap()).unwrap();
    assert_eq!(as_f64(p.get(0)), 1.0);
    // Prod of an empty tensor into a complex out is refused (aclnnProd.md).
    let mut pc = Buf::new(&mut rng, C64, &[1], false);
    assert!(rs::prod(&x.desc(), C64 as i32, &pc.desc()).is_err());
    // LogSumExp: +inf gives +inf, all −inf gives −inf, large values do not overflow.
    let mut v = Buf::new(&mut rng, F32, &[2, 3], false);
    for (i, f) in [
        f64::INFINITY,
        1.0,
        2.0,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ]
    .into_iter()
    .enumerate()
    {
        v.put(i, Wide::Float(f));
    }
    let mut l = Buf::new(&mut rng, F32, &[2], false);
    run(&rs::log_sum_exp(&v.desc(), &[1], false, &l.desc()).unwrap()).unwrap();
    assert_eq!(as_f64(l.get(0)), f64::INFINITY);
    assert_eq!(as_f64(l.get(1)), f64::NEG_INFINITY);
    for (i, f) in [1e30f64, 1e30, 0.0, 88.0, 89.0, 90.0]
        .into_iter()
        .enumerate()
    {
        v.put(i, Wide::Float(f));
    }
    run(&rs::log_sum_exp(&v.desc(), &[1], false, &l.desc()).unwrap()).unwrap();
    let want = (1e30f32 as f64) + 2f64.ln();
    assert_eq!(as_f64(l.get(0)), want as f32 as f64);
    let want = 90.0 + (1.0 + (-1f64).exp() + (-2f64).exp()).ln();
    assert!(close(F32, as_f64(l.get(1)), want as f32 as f64));
    // noop forms copy (converted) when the axis list is empty.
    let mut src = Buf::new(&mut rng, F16, &[2, 2], true);
    for i in 0..4 {
        src.put(i, Wide::Float(i as f64 - 1.5));
    }
    let mut dst = Buf::new(&mut rng, F16, &[2, 2], true);
    run(&rs::reduce_log_sum(&src.desc(), &[], false, true, &dst.desc()).unwrap()).unwrap();
    assert!((0..4).all(|i| as_f64(dst.get(i)) == i as f64 - 1.5));
    let mut dst = Buf::new(&mut rng, F16, &[2, 2], true);
    run(&rs::max_v2(&src.desc(), &[], false, true, &dst.desc()).unwrap()).unwrap();
    assert!((0..4).all(|i| as_f64(dst.get(i)) == i as f64 - 1.5));
}

#[test]
fn errors_are_refused_at_phase_1() {
    let mut rng = Rng::new(9);
    let mut x = Buf::new(&mut rng, F32, &[2, 3], false);
    let mut o2 = Buf::new(&mut rng, F32, &[2], false);
    let mut o3 = Buf::new(&mut rng, F32, &[3], false);
    let mut i2 = Buf::new(&mut rng, S32, &[2], false);
    let mut b2 = Buf::new(&mut rng, Bool, &[2], false);
    let mut xi = Buf::new(&mut rng, S32, &[2, 3], false);
    let (x, o2, o3) = (x.desc(), o2.desc(), o3.desc());
    let is_invalid = |r: crate::Result<Executor>, what: &str| match r {
        Err(crate::error::Error::Invalid(_)) => {}
        Err(e) => panic!("{what}: {e:?} is not ACLNN_ERR_PARAM_INVALID"),
        Ok(_) => panic!("{what}: accepted"),
    };
    // dims out of range, repeated; out of the wrong shape.
    is_invalid(rs::var(&x, Some(&[2]), true, false, &o2), "var dim 2");
    is_invalid(
        rs::var(&x, Some(&[1, -1]), true, false, &o2),
        "var dims repeat",
    );
    is_invalid(rs::var(&x, Some(&[1]), true, false, &o3), "var out shape");
    is_invalid(
        rs::var(&x, Some(&[1]), true, true, &o2),
        "var keepdim shape",
    );
    // dtypes: integer self for Var, an integer out for LogSumExp, a dtype ≠ out's.
    is_invalid(rs::var(&xi.desc(), Some(&[1]), true, false, &o2), "var s32");
    is_invalid(rs::log_sum_exp(&x, &[1], false, &i2.desc()), "lse s32 out");
    is_invalid(
        rs::prod_dim(&x, 1, false, S32 as i32, &o2),
        "prod dtype ≠ out",
    );
    is_invalid(
        rs::reduce_nansum(&x, &[1], false, S32 as i32, &i2.desc()),
        "nansum f32→s32",
    );
    is_invalid(
        rs::reduce_log_sum(&xi.desc(), &[1], false, false, &i2.desc()),
        "logsum s32",
    );
    is_invalid(rs::any(&x, &[1], false, &o2), "any f32 out");
    is_invalid(rs::all(&x, &[1], false, &i2.desc()), "all s32 out");
    is_invalid(
        rs::max_v2(&x, &[1], false, false, &b2.desc()),
        "maxv2 out dtype",
    );
    let mut e = Buf::new(&mut rng, F32, &[0, 3], false);
    is_invalid(
        rs::max_v2(&e.desc(), &[0], false, false, &o3),
        "maxv2 empty axis",
    );
    // A bad raw dtype.
    is_invalid(rs::prod(&x, 99, &o2), "prod dtype 99");
}
