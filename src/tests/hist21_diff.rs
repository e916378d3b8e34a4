//! Differential tests of issue 21's counting operators (ops/histogram.rs), through their C
//! entry points: Bincount and Histc.
//!
//! Bincount: random 1-D selves (every self dtype, lengths 0-40, values in [0, 12)), a
//! random view for every tensor (gaps, offsets), no weights or weights of every dtype with
//! special values (NaN, ±inf, ±0, quarters; integers of any bits), every out dtype, out
//! longer than needed, minlength in [-2, out's length]. Reference: a plain loop (counts in
//! i64, f32 weights summed in f32 in element order, others in f64), the result converted to
//! out's dtype: byte-equal (NaN: any NaN); torch.bincount checks a sample the same way.
//! Error cases: phase 1's checks in CANN's order, and the values only the run sees
//! (negative, past out's end) refused with out untouched.
//!
//! Histc: random selves of rank 0-3 (views, empty ones), every self dtype, values on bin
//! edges, at min and max, just outside, NaN and ±inf (floats), bins 1-70 (multiples of 8
//! and 16 less one often: torch's vectorised linspace end), min < max or min == max (the
//! data's range), every out dtype castable to self's. Reference: torch.histc, exact, of
//! the f32 self (f16: widened to f32, min/max rounded to f16; integers: as f64, which is
//! how CANN-cpu computes them; torch has no integer histc), counts converted to out's
//! dtype. NaN is left out (torch 1.13's CPU histc counts it in bin 0: torch is given the
//! self without its NaNs). Error cases in CANN's order; a data range that is not finite fails the run.

use super::add_diff::Rng;
use super::shape_diff::{
    convert_elem, dec, enc, err, nice, pick, rand_shape, untouched, Dev, Phase2, View,
};
use super::torch_ref::{Array, Batch};
use crate::capi::meta::aclOpExecutor;
use crate::capi::ops;
use crate::capi::runtime::{
    aclrtCreateStream, aclrtDestroyStream, aclrtFree, aclrtMalloc, aclrtSynchronizeStream,
};
use crate::dtype::DType::{self, *};
use std::ptr::null_mut;

const ND: i32 = 2;
const INVALID: i32 = 161002;
const NULLPTR: i32 = 161001;

const SELF: &[DType] = &[S8, S16, S32, S64, U8];
const WEIGHTS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool];
const OUT: &[DType] = &[F32, F64, S32, S64];

/// Phase 1, then phase 2 on a new stream and its synchronisation: Err((status, message)) of the first that fails.
fn run(
    p1: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> i32,
    p2: Phase2,
) -> Result<(), (i32, String)> {
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
    // A stream of its own: a failed run's error is reported to its stream's synchronisation,
    // and tests run in parallel.
    let mut stream = null_mut();
    // SAFETY: valid out-parameter.
    assert_eq!(unsafe { aclrtCreateStream(&mut stream) }, 0);
    let mut st = p2(w, ws, ex, stream);
    let sync = aclrtSynchronizeStream(stream);
    aclrtDestroyStream(stream);
    if st == 0 {
        st = sync;
    }
    let msg = err();
    if !w.is_null() {
        aclrtFree(w);
    }
    if st != 0 {
        return Err((st, msg));
    }
    Ok(())
}

/// Same value: bytes equal, or both NaN.
fn same(d: DType, a: &[u8], b: &[u8]) -> bool {
    a == b || (d.is_float() && dec(d, a).is_nan() && dec(d, b).is_nan())
}

/// The reference histogram of `vals` (weights as raw elements of `wd`), in the
/// accumulation dtype, as out-dtype bytes per bin.
fn reference(
    vals: &[i64],
    w: Option<(DType, Vec<Vec<u8>>)>,
    bins: usize,
    od: DType,
) -> Vec<Vec<u8>> {
    match w {
        None => {
            let mut h = vec![0i64; bins];
            for &v in vals {
                h[v as usize] += 1;
            }
            h.iter()
                .map(|c| convert_elem(S64, od, &c.to_le_bytes()))
                .collect()
        }
        Some((F32, ws)) => {
            let mut h = vec![0f32; bins];
            for (k, &v) in vals.iter().enumerate() {
                h[v as usize] += f32::from_le_bytes(ws[k][..4].try_into().unwrap());
            }
            h.iter()
                .map(|c| convert_elem(F32, od, &c.to_le_bytes()))
                .collect()
        }
        Some((wd, ws)) => {
            let mut h = vec![0f64; bins];
            for (k, &v) in vals.iter().enumerate() {
                h[v as usize] +=
                    f64::from_le_bytes(convert_elem(wd, F64, &ws[k])[..8].try_into().unwrap());
            }
            h.iter()
                .map(|c| convert_elem(F64, od, &c.to_le_bytes()))
                .collect()
        }
    }
}

#[test]
fn bincount_matches_a_loop_and_torch() {
    let mut rng = Rng::new(0x2131);
    let mut torch = Batch::new();
    let plain = torch.program("out = torch.bincount(a[0], minlength=a[1].item())");
    let weighted = torch.program("out = torch.bincount(a[0], a[2], minlength=a[1].item())");
    let mut tcases = vec![];
    for case in 0..600 {
        let sd = pick(&mut rng, SELF);
        let n = if rng.pct(8) {
            0
        } else {
            rng.below(41) as usize
        };
        let sv = View::random(&mut rng, sd, &[n]);
        let top = 1 + rng.below(12) as i64;
        let mut sm = vec![0u8; sv.bytes()];
        for i in 0..sv.storage {
            let v = rng.below(top as u64) as i64;
            sm[i * sd.size()..(i + 1) * sd.size()].copy_from_slice(&v.to_le_bytes()[..sd.size()]);
        }
        let vals: Vec<i64> = (0..n)
            .map(|i| {
                let b = sv.elem(&sm, sv.at(&[i]));
                i64::from_le_bytes(convert_elem(sd, S64, b)[..8].try_into().unwrap())
            })
            .collect();
        let need = vals.iter().max().map_or(0, |m| m + 1) as usize;
        let wd = if rng.pct(30) {
            None
        } else {
            Some(pick(&mut rng, WEIGHTS))
        };
        let od = pick(&mut rng, OUT);
        let minlength = rng.below(need as u64 + 6) as i64 - 2;
        let len = need.max(minlength.max(0) as usize)
            + if rng.pct(30) {
                rng.below(3) as usize
            } else {
                0
            };
        let ov = View::random(&mut rng, od, &[len]);
        let om: Vec<u8> = (0..ov.bytes()).map(|_| 0x5a).collect();
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let (st, ot) = (dev.tensor(&sv, s, ND), dev.tensor(&ov, o, ND));
        let (wt, wv, wm) = match wd {
            Some(d) => {
                let v = View::random(&mut rng, d, &[n]);
                let m: Vec<u8> = (0..v.storage).flat_map(|_| nice(&mut rng, d)).collect();
                let w = dev.upload(&m);
                (dev.tensor(&v, w, ND), Some(v), m)
            }
            None => (null_mut(), None, vec![]),
        };
        let what = format!(
            "case {case}: self {sd} {vals:?} weights {wd:?} minlength {minlength} out {od}[{len}]"
        );
        run(
            |w, e| unsafe {
                ops::bincount::aclnnBincountGetWorkspaceSize(st, wt, minlength, ot, w, e)
            },
            ops::bincount::aclnnBincount,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let got: Vec<Vec<u8>> = (0..len)
            .map(|i| ov.elem(&og, ov.at(&[i])).to_vec())
            .collect();
        if n == 0 && minlength <= 0 {
            assert!(
                got.iter().all(|g| g.iter().all(|&b| b == 0x5a)),
                "{what}: out was written"
            );
            continue;
        }
        let welems = wv.as_ref().map(|v| {
            (
                v.dtype,
                (0..n)
                    .map(|i| v.elem(&wm, v.at(&[i])).to_vec())
                    .collect::<Vec<_>>(),
            )
        });
        let want = reference(&vals, welems, len, od);
        for i in 0..len {
            assert!(
                same(od, &got[i], &want[i]),
                "{what}: out[{i}] is {:?}, want {:?}",
                got[i],
                want[i]
            );
        }
        if n > 0 && minlength >= 0 && tcases.len() < 150 {
            let mut inputs = vec![Some(sv.array(&sm)), Some(Array::int(minlength))];
            let prog = match &wv {
                Some(v) => {
                    inputs.push(Some(v.array(&wm)));
                    weighted
                }
                None => plain,
            };
            tcases.push((torch.case(prog, inputs), got, od, what));
        }
    }
    if let Some(res) = torch.run("bincount") {
        for (k, got, od, what) in tcases {
            let want = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            let t = &want[0];
            assert!(
                t.numel() <= got.len(),
                "{what}: torch gave {} bins",
                t.numel()
            );
            for (i, g) in got.iter().enumerate() {
                let w = if i < t.numel() {
                    convert_elem(t.dtype, od, t.elem(i))
                } else {
                    vec![0; od.size()]
                };
                assert!(
                    same(od, g, &w),
                    "{what}: out[{i}] is {g:?}, torch.bincount {w:?}"
                );
            }
        }
    }
}

#[test]
fn bincount_errors() {
    let mut dev = Dev::new();
    let one = |dev: &mut Dev, d: DType, shape: &[usize], vals: &[i64]| {
        let v = View::contiguous(d, shape);
        let m: Vec<u8> = (0..v.storage)
            .flat_map(|i| convert_elem(S64, d, &vals.get(i).copied().unwrap_or(0).to_le_bytes()))
            .collect();
        let k = dev.upload(&m);
        (dev.tensor(&v, k, ND), k, m)
    };
    let (s, _, _) = one(&mut dev, S32, &[4], &[0, 1, 3, 1]);
    let (sf, _, _) = one(&mut dev, F32, &[4], &[]);
    let (s2, _, _) = one(&mut dev, S32, &[2, 2], &[]);
    let (w, _, _) = one(&mut dev, F32, &[4], &[1, 2, 3, 4]);
    let (wb, _, _) = one(&mut dev, BF16, &[4], &[]);
    let (w3, _, _) = one(&mut dev, F32, &[3], &[]);
    let (o, _, _) = one(&mut dev, S64, &[4], &[]);
    let (os, _, _) = one(&mut dev, S16, &[4], &[]);
    let (o2, _, _) = one(&mut dev, S64, &[2, 2], &[]);
    let p1 = |s, w, m, o| {
        let (mut ws, mut e) = (0u64, null_mut());
        let st =
            unsafe { ops::bincount::aclnnBincountGetWorkspaceSize(s, w, m, o, &mut ws, &mut e) };
        (st, err())
    };
    let nt = null_mut();
    assert_eq!(p1(nt, w, 0, o).0, NULLPTR);
    assert_eq!(p1(s, w, 0, nt).0, NULLPTR);
    assert_eq!(p1(s, nt, 0, o).0, 0, "{}", err());
    for (a, b, m, c, needle) in [
        (sf, w, 0, o, "self"),
        (s, w, 0, os, "out"),
        (s, wb, 0, o, "weights"),
        (s2, nt, 0, o, "self"),
        (s, w3, 0, o, "weights"),
        (s, w, 0, o2, "out"),
        (s, w, 5, o, "minlength"),
        (sf, wb, 0, os, "self"), // self's dtype is checked first
        (s, wb, 0, os, "out"),   // then out's
    ] {
        let (code, msg) = p1(a, b, m, c);
        assert_eq!(code, INVALID, "{needle}: {msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnBincount"),
            "{needle}: {msg}"
        );
    }
    // Values only the run sees: refused, out untouched.
    for vals in [&[0i64, -1, 2, 1][..], &[0, 4, 1, 1]] {
        let (sv, _, _) = one(&mut dev, S64, &[4], vals);
        let (ov, ok, om) = one(&mut dev, F32, &[4], &[7, 7, 7, 7]);
        let r = run(
            |ws, e| unsafe { ops::bincount::aclnnBincountGetWorkspaceSize(sv, w, 0, ov, ws, e) },
            ops::bincount::aclnnBincount,
        );
        let (code, msg) = r.expect_err("a value outside [0, out's length) must fail the run");
        assert_ne!(code, 0);
        assert!(
            msg.contains("self[1]") && msg.contains("nothing was written"),
            "{msg}"
        );
        assert_eq!(dev.download(ok), om, "{vals:?}: out was written");
    }
}

const HISTC: &[DType] = &[F32, F16, S64, S32, S16, S8, U8];

/// A Histc value: on an edge of the range, at its ends, just outside, inside, a special.
fn histc_value(rng: &mut Rng, d: DType, lo: f64, hi: f64, bins: usize) -> Vec<u8> {
    let v = match rng.below(10) {
        0 if d.is_float() => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3) as usize],
        1 => lo,
        2 => hi,
        3 => lo - 1.0 - rng.below(3) as f64,
        4 => hi + 1.0 + rng.below(3) as f64,
        5 | 6 => lo + (hi - lo) * rng.below(bins as u64 + 1) as f64 / bins as f64,
        _ => lo + (hi - lo) * (rng.below(1 << 20) as f64 / (1 << 20) as f64),
    };
    let v = if d.is_float() {
        v
    } else {
        v.round().clamp(if d == U8 { 0.0 } else { -100.0 }, 200.0)
    };
    enc(d, v)
}

#[test]
fn histc_matches_torch() {
    let mut rng = Rng::new(0x2132);
    let mut torch = Batch::new();
    let prog = torch.program(
        "x = a[0]\nx = x if x.dtype == torch.float32 else (x.float() if x.dtype == torch.float16 else x.double())\nx = x[~torch.isnan(x)]\nout = torch.histc(x, bins=a[1].item(), min=a[2].item(), max=a[3].item())",
    );
    let mut cases = vec![];
    for case in 0..700 {
        let sd = pick(&mut rng, HISTC);
        let float = sd.is_float();
        let od = loop {
            let d = pick(&mut rng, HISTC);
            if crate::dtype::can_cast(d, sd) {
                break d;
            }
        };
        let bins = if rng.pct(40) {
            pick_usize(&mut rng, &[7, 15, 31, 47, 63, 8, 16])
        } else {
            1 + rng.below(70) as usize
        };
        let rank = rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 6, 6);
        let equal = rng.pct(20);
        let (lo, hi) = if float {
            let lo = (rng.below(64) as f64 - 32.0) * 0.37;
            (
                lo,
                if equal {
                    lo
                } else {
                    lo + 0.5 + rng.below(40) as f64 * 0.29
                },
            )
        } else {
            let lo = rng.below(40) as f64 - if sd == U8 { 0.0 } else { 20.0 };
            (
                lo,
                if equal {
                    lo
                } else {
                    lo + 1.0 + rng.below(30) as f64
                },
            )
        };
        // The range in self's dtype (what CANN and torch's linspace see).
        let (lo, hi) = (dec(sd, &enc(sd, lo)), dec(sd, &enc(sd, hi)));
        let sv = View::random(&mut rng, sd, &shape);
        let sm: Vec<u8> = (0..sv.storage)
            .flat_map(|_| {
                let b = histc_value(&mut rng, sd, lo, hi, bins);
                if equal && !dec(sd, &b).is_finite() {
                    enc(sd, lo)
                } else {
                    b
                }
            })
            .collect();
        let ov = View::random(&mut rng, od, &[bins]);
        let om: Vec<u8> = (0..ov.bytes()).map(|_| 0x5a).collect();
        let mut dev = Dev::new();
        let (s, o) = (dev.upload(&sm), dev.upload(&om));
        let (st, ot) = (dev.tensor(&sv, s, ND), dev.tensor(&ov, o, ND));
        let scalar_d = if rng.pct(50) { F64 } else { F32 };
        let (mn, mx) = (
            dev.scalar(scalar_d, &enc(scalar_d, lo)),
            dev.scalar(scalar_d, &enc(scalar_d, hi)),
        );
        let vals: Vec<f64> = sv
            .indices()
            .iter()
            .map(|i| dec(sd, sv.elem(&sm, sv.at(i))))
            .collect();
        let what =
            format!("case {case}: self {sd} {shape:?} {vals:?} bins {bins} [{lo}, {hi}] out {od}");
        run(
            |w, e| unsafe {
                ops::histc::aclnnHistcGetWorkspaceSize(st, bins as i64, mn, mx, ot, w, e)
            },
            ops::histc::aclnnHistc,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let got: Vec<Vec<u8>> = (0..bins)
            .map(|i| ov.elem(&og, ov.at(&[i])).to_vec())
            .collect();
        if sv.numel() == 0 {
            assert!(
                got.iter().all(|g| g.iter().all(|&b| b == 0)),
                "{what}: out is not zero"
            );
            continue;
        }
        let k = torch.case(
            prog,
            vec![
                Some(sv.array(&sm)),
                Some(Array::int(bins as i64)),
                Some(Array::f64s(&[1], &[lo])),
                Some(Array::f64s(&[1], &[hi])),
            ],
        );
        cases.push((k, got, od, what));
    }
    if let Some(res) = torch.run("histc") {
        for (k, got, od, what) in cases {
            let want = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            let t = &want[0];
            assert_eq!(t.numel(), got.len(), "{what}");
            for (i, g) in got.iter().enumerate() {
                let w = convert_elem(t.dtype, od, t.elem(i));
                assert_eq!(
                    g,
                    &w,
                    "{what}: out[{i}] (torch.histc {})",
                    dec(t.dtype, t.elem(i))
                );
            }
        }
    }
}

fn pick_usize(rng: &mut Rng, v: &[usize]) -> usize {
    v[rng.below(v.len() as u64) as usize]
}

#[test]
fn histc_errors() {
    let mut dev = Dev::new();
    let t = |dev: &mut Dev, d: DType, shape: &[usize], v: f64| {
        let view = View::contiguous(d, shape);
        let m: Vec<u8> = (0..view.storage).flat_map(|_| enc(d, v)).collect();
        let k = dev.upload(&m);
        (dev.tensor(&view, k, ND), k, m)
    };
    let (s, _, _) = t(&mut dev, F32, &[3], 1.0);
    let (sd, _, _) = t(&mut dev, F64, &[3], 1.0);
    let (si, _, _) = t(&mut dev, S32, &[3], 1.0);
    let (s9, _, _) = t(&mut dev, F32, &[1; 9], 1.0);
    let (o, _, _) = t(&mut dev, F32, &[4], 0.0);
    let (ob, _, _) = t(&mut dev, BF16, &[4], 0.0);
    let (o2, _, _) = t(&mut dev, F32, &[2, 2], 0.0);
    let (o5, _, _) = t(&mut dev, F32, &[5], 0.0);
    let f = |dev: &mut Dev, v: f64| dev.scalar(F32, &enc(F32, v));
    let (zero, one, two) = (f(&mut dev, 0.0), f(&mut dev, 1.0), f(&mut dev, 2.0));
    let (nan, inf, ninf) = (
        f(&mut dev, f64::NAN),
        f(&mut dev, f64::INFINITY),
        f(&mut dev, f64::NEG_INFINITY),
    );
    let p1 = |s, bins, a, b, o| {
        let (mut ws, mut e) = (0u64, null_mut());
        let st =
            unsafe { ops::histc::aclnnHistcGetWorkspaceSize(s, bins, a, b, o, &mut ws, &mut e) };
        (st, err())
    };
    let (nt, ns) = (null_mut(), null_mut());
    assert_eq!(p1(nt, 4, zero, one, o).0, NULLPTR);
    assert_eq!(p1(s, 4, ns, one, o).0, NULLPTR);
    assert_eq!(p1(s, 4, zero, ns, o).0, NULLPTR);
    assert_eq!(p1(s, 4, zero, one, nt).0, NULLPTR);
    assert_eq!(p1(s, 4, inf, inf, o).0, 0, "{}", err());
    assert_eq!(p1(s, 4, ninf, ninf, o).0, 0, "{}", err());
    for (a, bins, mn, mx, c, needle) in [
        (sd, 4, zero, one, o, "self"),
        (s, 4, zero, one, ob, "out"),
        (s, 4, nan, one, o, "finite"),
        (s, 4, ninf, one, o, "finite"),
        (s, 4, zero, inf, o, "finite"),
        (s, 0, zero, one, o, "bins"),
        (s, 4, two, one, o, "greater"),
        (si, 4, zero, one, o, "cast"),
        (s, 4, zero, one, o2, "1-D"),
        (s9, 4, zero, one, o, "dims"),
        (s, 4, zero, one, o5, "bins"),
        (sd, 0, nan, one, ob, "self"), // dtypes come first
        (s, 0, nan, one, o, "finite"), // then the range, then bins
    ] {
        let (code, msg) = p1(a, bins, mn, mx, c);
        assert_eq!(code, INVALID, "{needle}: {msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnHistc"),
            "{needle}: {msg}"
        );
    }
    // min == max takes self's range: a NaN or inf in it fails the run, out untouched.
    for v in [f64::NAN, f64::INFINITY] {
        let (sx, _, _) = t(&mut dev, F32, &[3], v);
        let (ox, ok, om) = t(&mut dev, F32, &[4], 7.0);
        let r = run(
            |ws, e| unsafe { ops::histc::aclnnHistcGetWorkspaceSize(sx, 4, one, one, ox, ws, e) },
            ops::histc::aclnnHistc,
        );
        let (code, msg) = r.expect_err("a range that is not finite must fail the run");
        assert_ne!(code, 0);
        assert!(
            msg.contains("not finite") && msg.contains("nothing was written"),
            "{msg}"
        );
        assert_eq!(dev.download(ok), om, "{v}: out was written");
    }
}
