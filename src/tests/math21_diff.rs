//! Differential tests of issue 21's small math operators, through their C entry points:
//! IsInTensorScalar, IsInScalarTensor (ops/compare.rs), AsinhV2 (ops/math.rs), AddrV2 and
//! InplaceAddrV2 (ops/addr.rs).
//!
//! Random cases over rank 0-4 shapes (empty ones included), a random view for every tensor
//! (axes in a random order, gaps, an offset), every dtype of the operator's list and special
//! values (NaN, ±inf, ±0, quarters; integers near the scalar and of any bits). References:
//!
//! - IsIn: each value and the scalar converted to the dtype CANN's A2 rule compares in (a
//!   float tensor's dtype; a float scalar with an integer tensor: the promoted dtype; else
//!   the tensor's, the integer scalar wrapping; IsInScalarTensor with 10 or more test
//!   elements: the tensor-tensor promotion), compared in f64 / as integers (NaN equals
//!   nothing): exact. torch.isin checks the cases whose scalar has the tensor's dtype (where
//!   torch's wrapped-number rule and CANN's agree).
//! - AsinhV2: asinh in f64 of the value rounded to f32, rounded to out's dtype: within 2 f32
//!   ulps (f16 out: 1 f16 ulp); torch.asinh of the f32 tensor checks a sample.
//! - AddrV2 / InplaceAddrV2: byte-equal to aclnnAddr / aclnnInplaceAddr on the same call
//!   (the same rule), and torch.addr checks a sample (f32/f64 within 1e-6 relative).

use super::add_diff::Rng;
use super::shape_diff::{
    call, convert_elem, dec, enc, err, nice, pick, rand_shape, untouched, Dev, View,
};
use super::torch_ref::{Array, Batch};
use crate::capi::ops;
use crate::dtype::DType::{self, *};

const ND: i32 = 2;
const INVALID: i32 = 161002;
const NULLPTR: i32 = 161001;

const ISIN: &[DType] = &[F32, F16, BF16, F64, S8, S16, S32, S64, U8];

/// A value for an IsIn tensor: specials for floats, small integers (or any bits) otherwise.
fn isin_value(rng: &mut Rng, d: DType) -> Vec<u8> {
    if d.is_float() || rng.pct(15) {
        return nice(rng, d);
    }
    let v = rng.below(12) as i64 - if d == U8 { 0 } else { 6 };
    v.to_le_bytes()[..d.size()].to_vec()
}

fn isin_fill(rng: &mut Rng, v: &View) -> Vec<u8> {
    (0..v.storage)
        .flat_map(|_| isin_value(rng, v.dtype))
        .collect()
}

/// The tensor-tensor promotion of the dtypes these tests use.
fn promote2(a: DType, b: DType) -> DType {
    crate::dtype::promote(a, b).unwrap()
}

/// CANN's A2 compare dtype of IsIn.
fn isin_dtype(tensor: DType, scalar: DType, full: bool) -> DType {
    if full || (!tensor.is_float() && scalar.is_float()) {
        promote2(tensor, scalar)
    } else {
        tensor
    }
}

fn equal_in(p: DType, a: (DType, &[u8]), b: (DType, &[u8])) -> bool {
    let (x, y) = (convert_elem(a.0, p, a.1), convert_elem(b.0, p, b.1));
    if p.is_float() {
        dec(p, &x) == dec(p, &y)
    } else {
        x == y
    }
}

/// The scalar: often one of the tensor's values (converted), else a value of its own dtype.
fn isin_scalar(rng: &mut Rng, sd: DType, tv: &View, tm: &[u8]) -> Vec<u8> {
    let idx = tv.indices();
    if !idx.is_empty() && rng.pct(60) {
        let i = &idx[rng.below(idx.len() as u64) as usize];
        let b = tv.elem(tm, tv.at(i));
        if tv.dtype.is_float() && !sd.is_float() {
            let v = dec(tv.dtype, b);
            if v.is_finite() {
                return convert_elem(F64, sd, &enc(F64, v.trunc()));
            }
        }
        return convert_elem(tv.dtype, sd, b);
    }
    if sd.is_float() && rng.pct(20) {
        return enc(sd, 0.1);
    }
    if !sd.is_float() && rng.pct(15) {
        return enc(sd, if sd == U8 { 200.0 } else { 100.0 });
    }
    isin_value(rng, sd)
}

fn scalar_array(d: DType, b: &[u8]) -> Array {
    Array {
        dtype: d,
        shape: vec![],
        bytes: b.to_vec(),
    }
}

#[test]
fn isin_tensor_scalar_compares_in_canns_dtype() {
    let mut rng = Rng::new(0x2121);
    let mut torch = Batch::new();
    let prog = torch.program("out = torch.isin(a[0], a[1].item(), invert=bool(a[2].item()))");
    let mut tcases = vec![];
    for case in 0..500 {
        let td = pick(&mut rng, ISIN);
        let sd = if rng.pct(40) {
            td
        } else {
            pick(&mut rng, ISIN)
        };
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 4, 8);
        let (invert, unique) = (rng.pct(50), rng.pct(50));
        let tv = View::random(&mut rng, td, &shape);
        let tm = isin_fill(&mut rng, &tv);
        let sb = isin_scalar(&mut rng, sd, &tv, &tm);
        let ov = View::random(&mut rng, Bool, &shape);
        let om: Vec<u8> = (0..ov.storage).map(|_| 7).collect();
        let mut dev = Dev::new();
        let (t, o) = (dev.upload(&tm), dev.upload(&om));
        let (tt, ot) = (dev.tensor(&tv, t, ND), dev.tensor(&ov, o, ND));
        let st = dev.scalar(sd, &sb);
        let what = format!("case {case}: {td} {shape:?} scalar {sd} {sb:?} invert {invert}");
        call(
            |w, e| unsafe {
                ops::isin_tensor_scalar::aclnnIsInTensorScalarGetWorkspaceSize(
                    tt, st, unique, invert, ot, w, e,
                )
            },
            ops::isin_tensor_scalar::aclnnIsInTensorScalar,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let p = isin_dtype(td, sd, false);
        for i in tv.indices() {
            let eq = equal_in(p, (td, tv.elem(&tm, tv.at(&i))), (sd, &sb));
            let g = ov.elem(&og, ov.at(&i))[0];
            assert_eq!(
                g,
                (eq != invert) as u8,
                "{what}: out{i:?} (compared in {p})"
            );
        }
        if sd == td && td != BF16 && tv.numel() > 0 && tcases.len() < 80 {
            let k = torch.case(
                prog,
                vec![
                    Some(tv.array(&tm)),
                    Some(scalar_array(sd, &sb)),
                    Some(Array::int(invert as i64)),
                ],
            );
            let got: Vec<u8> = tv
                .indices()
                .iter()
                .map(|i| ov.elem(&og, ov.at(i))[0])
                .collect();
            tcases.push((k, got, what));
        }
    }
    if let Some(res) = torch.run("isin tensor scalar") {
        for (k, got, what) in tcases {
            let want = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            let w: Vec<u8> = (0..want[0].numel()).map(|i| want[0].elem(i)[0]).collect();
            assert_eq!(got, w, "{what}: torch.isin");
        }
    }
}

#[test]
fn isin_scalar_tensor_is_any_of_the_comparison() {
    let mut rng = Rng::new(0x2122);
    let mut torch = Batch::new();
    let prog =
        torch.program("out = torch.isin(a[1].item(), a[0], invert=bool(a[2].item())).reshape([])");
    let mut tcases = vec![];
    for case in 0..500 {
        let td = pick(&mut rng, ISIN);
        let sd = if rng.pct(40) {
            td
        } else {
            pick(&mut rng, ISIN)
        };
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 4, 8);
        let (invert, unique) = (rng.pct(50), rng.pct(50));
        let tv = View::random(&mut rng, td, &shape);
        let tm = isin_fill(&mut rng, &tv);
        let sb = isin_scalar(&mut rng, sd, &tv, &tm);
        let ov = View::random(&mut rng, Bool, &[]);
        let om: Vec<u8> = (0..ov.storage).map(|_| 7).collect();
        let mut dev = Dev::new();
        let (t, o) = (dev.upload(&tm), dev.upload(&om));
        let (tt, ot) = (dev.tensor(&tv, t, ND), dev.tensor(&ov, o, ND));
        let st = dev.scalar(sd, &sb);
        let what = format!("case {case}: {td} {shape:?} element {sd} {sb:?} invert {invert}");
        call(
            |w, e| unsafe {
                ops::isin::aclnnIsInScalarTensorGetWorkspaceSize(st, tt, unique, invert, ot, w, e)
            },
            ops::isin::aclnnIsInScalarTensor,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        let p = isin_dtype(td, sd, tv.numel() >= 10);
        let any = tv
            .indices()
            .iter()
            .any(|i| equal_in(p, (td, tv.elem(&tm, tv.at(i))), (sd, &sb)));
        let g = ov.elem(&og, ov.at(&[]))[0];
        assert_eq!(g, (any != invert) as u8, "{what}: compared in {p}");
        if sd == td && !matches!(td, BF16 | F16) && tcases.len() < 80 {
            let k = torch.case(
                prog,
                vec![
                    Some(tv.array(&tm)),
                    Some(scalar_array(sd, &sb)),
                    Some(Array::int(invert as i64)),
                ],
            );
            tcases.push((k, g, what));
        }
    }
    if let Some(res) = torch.run("isin scalar tensor") {
        for (k, got, what) in tcases {
            let want = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            assert_eq!(got, want[0].elem(0)[0], "{what}: torch.isin");
        }
    }
}

#[test]
fn isin_refusals() {
    let mut dev = Dev::new();
    let t = dev.zeros(F32, &[3]);
    let tb = dev.zeros(Bool, &[3]);
    let tc = dev.zeros(C64, &[3]);
    let o3 = dev.zeros(Bool, &[3]);
    let o2 = dev.zeros(Bool, &[2]);
    let of = dev.zeros(F32, &[3]);
    let o0 = dev.zeros(Bool, &[]);
    let o1 = dev.zeros(Bool, &[1]);
    let s = dev.scalar(F32, &enc(F32, 1.0));
    let sb = dev.scalar(Bool, &[1]);
    let big = dev.zeros(F32, &[1; 9]);
    let ts = |a, b, o| {
        let (mut w, mut e) = (0u64, std::ptr::null_mut());
        let st = unsafe {
            ops::isin_tensor_scalar::aclnnIsInTensorScalarGetWorkspaceSize(
                a, b, false, false, o, &mut w, &mut e,
            )
        };
        (st, err())
    };
    let st = |a, b, o| {
        let (mut w, mut e) = (0u64, std::ptr::null_mut());
        let st = unsafe {
            ops::isin::aclnnIsInScalarTensorGetWorkspaceSize(a, b, false, true, o, &mut w, &mut e)
        };
        (st, err())
    };
    let null_t = std::ptr::null_mut();
    let null_s = std::ptr::null_mut();
    assert_eq!(ts(null_t, s, o3).0, NULLPTR);
    assert_eq!(ts(t, null_s, o3).0, NULLPTR);
    assert_eq!(ts(t, s, null_t).0, NULLPTR);
    for (a, b, o, needle) in [
        (tb, s, o3, "element"),
        (tc, s, o3, "element"),
        (t, sb, o3, "testElement"),
        (t, s, of, "out"),
        (t, s, o2, "out"),
        (big, s, o3, "dims"),
    ] {
        let (code, msg) = ts(a, b, o);
        assert_eq!(code, INVALID, "{msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnIsInTensorScalar"),
            "{msg}"
        );
    }
    assert_eq!(st(null_s, t, o0).0, NULLPTR);
    assert_eq!(st(s, null_t, o0).0, NULLPTR);
    assert_eq!(st(s, t, null_t).0, NULLPTR);
    for (a, b, o, needle) in [
        (s, tb, o0, "testElements"),
        (sb, t, o0, "element"),
        (s, t, o1, "0-d"),
        (s, t, of, "out"),
        (s, big, o0, "dims"),
    ] {
        let (code, msg) = st(a, b, o);
        assert_eq!(code, INVALID, "{msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnIsInScalarTensor"),
            "{msg}"
        );
    }
}

const ASINH_V2: &[DType] = &[F16, F32, F64, S8, S16, S32, S64, U8, Bool];

/// The f32 ulp of `x` (its spacing; the smallest subnormal's at 0).
fn ulp32(x: f64) -> f64 {
    let a = (x.abs() as f32).max(f32::MIN_POSITIVE);
    (f32::from_bits(a.to_bits() + 1) - a) as f64
}

#[test]
fn asinh_v2_is_asinh_in_f32() {
    let mut rng = Rng::new(0x2123);
    let mut torch = Batch::new();
    let prog = torch.program("out = torch.asinh(a[0].float())");
    let mut tcases = vec![];
    for case in 0..400 {
        let d = pick(&mut rng, ASINH_V2);
        let od = if d == F16 { F16 } else { F32 };
        let rank = rng.below(5) as usize;
        let shape = rand_shape(&mut rng, rank, 4, 8);
        let xv = View::random(&mut rng, d, &shape);
        let xm: Vec<u8> = (0..xv.storage)
            .flat_map(|_| {
                if d.is_float() && rng.pct(40) {
                    // wide magnitudes: tiny, huge, f64 values that round in f32
                    let e = rng.below(60) as i32 - 30;
                    let m = 1.0 + rng.below(1 << 20) as f64 / (1 << 20) as f64 + 1e-12;
                    enc(d, if rng.pct(50) { -m } else { m } * 2f64.powi(e))
                } else {
                    nice(&mut rng, d)
                }
            })
            .collect();
        let ov = View::random(&mut rng, od, &shape);
        let om: Vec<u8> = (0..ov.storage).flat_map(|_| enc(od, 7.0)).collect();
        let mut dev = Dev::new();
        let (x, o) = (dev.upload(&xm), dev.upload(&om));
        let (xt, ot) = (dev.tensor(&xv, x, ND), dev.tensor(&ov, o, ND));
        let what = format!("case {case}: {d} {shape:?}");
        call(
            |w, e| unsafe { ops::asinh_v2::aclnnAsinhV2GetWorkspaceSize(xt, ot, w, e) },
            ops::asinh_v2::aclnnAsinhV2,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let og = dev.download(o);
        untouched(&ov, &om, &og).unwrap_or_else(|e| panic!("{what}: {e}"));
        for i in xv.indices() {
            let b = xv.elem(&xm, xv.at(&i));
            let v = if d.is_float() {
                dec(d, b)
            } else {
                super::shape_diff::int_value(d, b) as f64
            };
            let want = (v as f32 as f64).asinh();
            let g = dec(od, ov.elem(&og, ov.at(&i)));
            let ok = if want.is_nan() {
                g.is_nan()
            } else if od == F16 {
                let w16 = dec(F16, &enc(F16, want));
                g == w16 || (g - w16).abs() <= (dec(F16, &enc(F16, w16.abs())) * 2f64.powi(-10))
            } else {
                g == want || (g - want).abs() <= 2.0 * ulp32(want)
            };
            assert!(ok, "{what}: asinh({v}) gave {g}, want {want}");
        }
        if od == F32 && d != Bool && xv.numel() > 0 && tcases.len() < 60 {
            let k = torch.case(prog, vec![Some(xv.array(&xm))]);
            let got: Vec<f64> = xv
                .indices()
                .iter()
                .map(|i| dec(F32, ov.elem(&og, ov.at(i))))
                .collect();
            tcases.push((k, got, what));
        }
    }
    if let Some(res) = torch.run("asinh v2") {
        for (k, got, what) in tcases {
            let want = res[k]
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: torch raised {e}"));
            for (j, (g, w)) in got.iter().zip(want[0].to_f64s()).enumerate() {
                assert!(
                    g == &w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= 2.0 * ulp32(w),
                    "{what}: element {j} {g} vs torch {w}"
                );
            }
        }
    }
}

#[test]
fn asinh_v2_refusals() {
    let mut dev = Dev::new();
    let x64 = dev.zeros(F64, &[2]);
    let x16 = dev.zeros(F16, &[2]);
    let xb16 = dev.zeros(BF16, &[2]);
    let xc = dev.zeros(C64, &[2]);
    let o32 = dev.zeros(F32, &[2]);
    let o64 = dev.zeros(F64, &[2]);
    let o16 = dev.zeros(F16, &[2]);
    let o3 = dev.zeros(F32, &[3]);
    let run = |x, o| {
        let (mut w, mut e) = (0u64, std::ptr::null_mut());
        let st = unsafe { ops::asinh_v2::aclnnAsinhV2GetWorkspaceSize(x, o, &mut w, &mut e) };
        (st, err())
    };
    assert_eq!(run(std::ptr::null_mut(), o32).0, NULLPTR);
    assert_eq!(run(x64, std::ptr::null_mut()).0, NULLPTR);
    assert_eq!(run(x64, o32).0, 0);
    for (x, o, needle) in [
        (x64, o64, "out"),
        (x16, o32, "out"),
        (x64, o16, "out"),
        (xb16, o32, "x"),
        (xc, o32, "x"),
        (x64, o3, "out"),
    ] {
        let (code, msg) = run(x, o);
        assert_eq!(code, INVALID, "{msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnAsinhV2"),
            "{msg}"
        );
    }
}

const ADDR: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];

#[test]
fn addr_v2_is_addr() {
    let mut rng = Rng::new(0x2124);
    for case in 0..300 {
        let d = pick(&mut rng, ADDR);
        let (n, m) = (rng.below(4) as usize, rng.below(4) as usize);
        let inplace = rng.pct(30);
        let self_shape = if inplace {
            vec![n, m]
        } else {
            match rng.below(3) {
                0 => vec![n, m],
                1 => vec![m],
                _ => vec![],
            }
        };
        let sd = if d == Bool {
            Bool
        } else if d.is_float() {
            F64
        } else {
            S64
        };
        let sc = |rng: &mut Rng| -> Vec<u8> {
            match sd {
                Bool => vec![rng.below(2) as u8],
                S64 => (rng.below(5) as i64 - 2).to_le_bytes().to_vec(),
                _ => enc(F64, [0.0, 1.0, -0.5, 2.0, 1.25][rng.below(5) as usize]),
            }
        };
        let (beta, alpha) = (sc(&mut rng), sc(&mut rng));
        let (null_beta, null_alpha) = (rng.pct(20), rng.pct(20));
        let sv = View::random(&mut rng, d, &self_shape);
        let v1 = View::random(&mut rng, d, &[n]);
        let v2 = View::random(&mut rng, d, &[m]);
        let ov = View::random(&mut rng, d, &[n, m]);
        let fill = |rng: &mut Rng, v: &View| -> Vec<u8> {
            (0..v.storage).flat_map(|_| nice(rng, d)).collect()
        };
        let (sm, m1, m2, om) = (
            fill(&mut rng, &sv),
            fill(&mut rng, &v1),
            fill(&mut rng, &v2),
            fill(&mut rng, &ov),
        );
        let what = format!("case {case}: {d} self {self_shape:?} n {n} m {m} inplace {inplace}");
        let mut outs = vec![];
        for v2_api in [false, true] {
            let mut dev = Dev::new();
            let (s, a, b, o) = (
                dev.upload(&sm),
                dev.upload(&m1),
                dev.upload(&m2),
                dev.upload(&om),
            );
            let (st, at, bt, ot) = (
                dev.tensor(&sv, s, ND),
                dev.tensor(&v1, a, ND),
                dev.tensor(&v2, b, ND),
                dev.tensor(&ov, o, ND),
            );
            let be = if null_beta {
                std::ptr::null_mut()
            } else {
                dev.scalar(sd, &beta)
            };
            let al = if null_alpha {
                std::ptr::null_mut()
            } else {
                dev.scalar(sd, &alpha)
            };
            let r = match (inplace, v2_api) {
                (false, false) => call(
                    |w, e| unsafe {
                        ops::addr::aclnnAddrGetWorkspaceSize(st, at, bt, be, al, ot, w, e)
                    },
                    ops::addr::aclnnAddr,
                ),
                (false, true) => call(
                    |w, e| unsafe {
                        ops::addr_v2::aclnnAddrV2GetWorkspaceSize(st, at, bt, be, al, ot, w, e)
                    },
                    ops::addr_v2::aclnnAddrV2,
                ),
                (true, false) => call(
                    |w, e| unsafe {
                        ops::addr::aclnnInplaceAddrGetWorkspaceSize(st, at, bt, be, al, w, e)
                    },
                    ops::addr::aclnnInplaceAddr,
                ),
                (true, true) => call(
                    |w, e| unsafe {
                        ops::addr_v2::aclnnInplaceAddrV2GetWorkspaceSize(st, at, bt, be, al, w, e)
                    },
                    ops::addr_v2::aclnnInplaceAddrV2,
                ),
            };
            outs.push(r.map(|_| (dev.download(s), dev.download(o))));
        }
        match (&outs[0], &outs[1]) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{what}: AddrV2 differs from Addr"),
            // InplaceAddr refuses an empty selfRef; InplaceAddrV2 takes it and writes nothing.
            (Err((161002, _)), Ok((s, _))) if inplace && n * m == 0 => {
                assert_eq!(s, &sm, "{what}: an empty selfRef is not written")
            }
            (Err(a), Err(b)) => assert_eq!(a.0, b.0, "{what}: {} / {}", a.1, b.1),
            (a, b) => panic!(
                "{what}: Addr {:?} vs AddrV2 {:?}",
                a.as_ref().err(),
                b.as_ref().err()
            ),
        }
    }
}

#[test]
fn addr_v2_refusals() {
    let mut dev = Dev::new();
    let s = dev.zeros(F32, &[2, 3]);
    let s3 = dev.zeros(F32, &[2, 2, 3]);
    let si = dev.zeros(S32, &[2, 3]);
    let v1 = dev.zeros(F32, &[2]);
    let v2 = dev.zeros(F32, &[3]);
    let v1i = dev.zeros(S32, &[2]);
    let v2i = dev.zeros(S32, &[3]);
    let v2m = dev.zeros(F32, &[2, 3]);
    let o = dev.zeros(F32, &[2, 3]);
    let ow = dev.zeros(F32, &[3, 2]);
    let oc = dev.zeros(C64, &[2, 3]);
    let sf = dev.scalar(F32, &enc(F32, 0.5));
    let null = std::ptr::null_mut();
    let run = |s, a, b, be, o| {
        let (mut w, mut e) = (0u64, std::ptr::null_mut());
        let st = unsafe {
            ops::addr_v2::aclnnAddrV2GetWorkspaceSize(s, a, b, be, null, o, &mut w, &mut e)
        };
        (st, err())
    };
    let (nt, nm) = (std::ptr::null_mut(), std::ptr::null_mut());
    assert_eq!(run(nt, v1, v2, null, o).0, NULLPTR);
    assert_eq!(run(s, nt, v2, null, o).0, NULLPTR);
    assert_eq!(run(s, v1, v2, null, nm).0, NULLPTR);
    for (a, b, c, be, o, needle) in [
        (s, v1, v2m, null, o, "1-D"),
        (s3, v1, v2, null, o, "dims"),
        (s, v1, v2, null, ow, "shape"),
        (s, v1, v2, null, oc, "out"),
        (si, v1i, v2i, sf, o, "beta"),
    ] {
        let (code, msg) = run(a, b, c, be, o);
        assert_eq!(code, INVALID, "{msg}");
        assert!(msg.contains(needle) && msg.contains("aclnnAddrV2"), "{msg}");
    }
    let (mut w, mut e) = (0u64, std::ptr::null_mut());
    let v = dev.zeros(F32, &[3]);
    let st = unsafe {
        ops::addr_v2::aclnnInplaceAddrV2GetWorkspaceSize(v, v1, v2, null, null, &mut w, &mut e)
    };
    assert_eq!(st, INVALID, "a 1-D selfRef: {}", err());
}

/// A value of `d` (f32/f16/bf16) for Scale: specials, quarters and wide magnitudes.
fn scale_value(rng: &mut Rng, d: DType) -> Vec<u8> {
    if rng.pct(30) {
        let m = 1.0 + rng.below(1 << 12) as f64 / 4096.0;
        let e = rng.below(16) as i32 - 8;
        return enc(d, if rng.pct(50) { -m } else { m } * 2f64.powi(e));
    }
    nice(rng, d)
}

/// The f32 result rounded to d: x·s rounded to f32, plus b rounded to f32, then to d.
fn scale_ref(d: DType, x: f64, s: f64, b: Option<f64>) -> Vec<u8> {
    let p = (x as f32) * (s as f32);
    let r = match b {
        Some(b) => p + b as f32,
        None => p,
    };
    enc(d, r as f64)
}

#[test]
fn scale_broadcasts_scale_and_bias_over_the_axes() {
    let mut rng = Rng::new(0x2125);
    let mut checked = 0;
    for case in 0..500 {
        let d = pick(&mut rng, &[F32, F16, BF16]);
        let rank = 1 + rng.below(4) as usize;
        let shape = rand_shape(&mut rng, rank, 4, 6);
        let ax = rng.below(rank as u64) as usize;
        let axis = if rng.pct(40) {
            ax as i64 - rank as i64
        } else {
            ax as i64
        };
        let from_blob = rng.pct(50);
        // (numAxes, scale shape)
        let (num_axes, sshape): (i64, Vec<usize>) = if from_blob {
            match rng.below(4) {
                0 => (0, vec![1; rng.below(3) as usize]),
                1 => (-1, shape[ax..].to_vec()),
                _ => {
                    let k = 1 + rng.below((rank - ax) as u64) as usize;
                    (k as i64, shape[ax..ax + k].to_vec())
                }
            }
        } else {
            match rng.below(3) {
                0 => (rng.below(3) as i64 - 1, vec![1; rng.below(2) as usize]),
                _ => {
                    let k = rng.below((rank - ax) as u64 + 1) as usize;
                    (rng.below(3) as i64, shape[ax..ax + k].to_vec())
                }
            }
        };
        let with_bias = rng.pct(60);
        let xv = View::random(&mut rng, d, &shape);
        let sv = View::random(&mut rng, d, &sshape);
        let bv = View::random(&mut rng, d, &sshape);
        let yv = View::random(&mut rng, d, &shape);
        let fill = |rng: &mut Rng, v: &View| -> Vec<u8> {
            (0..v.storage).flat_map(|_| scale_value(rng, d)).collect()
        };
        let (xm, sm, bm, ym) = (
            fill(&mut rng, &xv),
            fill(&mut rng, &sv),
            fill(&mut rng, &bv),
            fill(&mut rng, &yv),
        );
        let mut dev = Dev::new();
        let (x, s, b, y) = (
            dev.upload(&xm),
            dev.upload(&sm),
            dev.upload(&bm),
            dev.upload(&ym),
        );
        let (xt, st, bt, yt) = (
            dev.tensor(&xv, x, ND),
            dev.tensor(&sv, s, ND),
            dev.tensor(&bv, b, ND),
            dev.tensor(&yv, y, ND),
        );
        let bt = if with_bias { bt } else { std::ptr::null_mut() };
        let what = format!(
            "case {case}: {d} x {shape:?} scale {sshape:?} axis {axis} numAxes {num_axes} blob {from_blob} bias {with_bias}"
        );
        call(
            |w, e| unsafe {
                ops::scale::aclnnScaleGetWorkspaceSize(
                    xt, st, bt, axis, num_axes, from_blob, yt, w, e,
                )
            },
            ops::scale::aclnnScale,
        )
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let yg = dev.download(y);
        untouched(&yv, &ym, &yg).unwrap_or_else(|e| panic!("{what}: {e}"));
        let one =
            sv.numel() == 1 && (from_blob && num_axes == 0 || !from_blob && sshape.len() <= 1);
        for i in xv.indices() {
            let si: Vec<usize> = if one {
                vec![0; sshape.len()]
            } else {
                i[ax..ax + sshape.len()].to_vec()
            };
            let xval = dec(d, xv.elem(&xm, xv.at(&i)));
            let sval = dec(d, sv.elem(&sm, sv.at(&si)));
            let bval = with_bias.then(|| dec(d, bv.elem(&bm, bv.at(&si))));
            let want = scale_ref(d, xval, sval, bval);
            let got = yv.elem(&yg, yv.at(&i));
            let ok = got == &want[..] || (dec(d, got).is_nan() && dec(d, &want).is_nan());
            assert!(
                ok,
                "{what}: y{i:?} = {} want {} (x {xval} s {sval} b {bval:?})",
                dec(d, got),
                dec(d, &want)
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} elements checked");
}

#[test]
fn scale_refusals() {
    let mut dev = Dev::new();
    let x = dev.zeros(F32, &[2, 3, 4]);
    let x0 = dev.zeros(F32, &[]);
    let x16 = dev.zeros(F16, &[2, 3, 4]);
    let xi = dev.zeros(S32, &[2, 3, 4]);
    let s3 = dev.zeros(F32, &[3]);
    let s34 = dev.zeros(F32, &[3, 4]);
    let s4 = dev.zeros(F32, &[4]);
    let s1 = dev.zeros(F32, &[1]);
    let s2 = dev.zeros(F32, &[2]);
    let y = dev.zeros(F32, &[2, 3, 4]);
    let y16 = dev.zeros(F16, &[2, 3, 4]);
    let yw = dev.zeros(F32, &[2, 3, 5]);
    let null = std::ptr::null_mut();
    let run = |x, s, b, axis, n, blob, y| {
        let (mut w, mut e) = (0u64, std::ptr::null_mut());
        let st = unsafe {
            ops::scale::aclnnScaleGetWorkspaceSize(x, s, b, axis, n, blob, y, &mut w, &mut e)
        };
        (st, err())
    };
    assert_eq!(run(null, s3, null, 1, 1, true, y).0, NULLPTR);
    assert_eq!(run(x, null, null, 1, 1, true, y).0, NULLPTR);
    assert_eq!(run(x, s3, null, 1, 1, true, null).0, NULLPTR);
    assert_eq!(run(x, s3, null, 1, 1, true, y).0, 0);
    assert_eq!(run(x, s34, s34, -2, -1, true, y).0, 0);
    assert_eq!(run(x, s1, null, 2, 5, false, y).0, 0);
    for (xx, s, b, axis, n, blob, yy, needle) in [
        (xi, s3, null, 1, 1, true, y, "x"),
        (x16, s3, null, 1, 1, true, y16, "scale"),
        (x, s3, null, 1, 1, true, y16, "y"),
        (x, s3, null, 1, 1, true, yw, "shape"),
        (x, s3, s4, 1, 1, true, y, "bias"),
        (x, s3, null, 3, 1, true, y, "axis"),
        (x, s3, null, -4, 1, true, y, "axis"),
        (x0, s1, null, 0, 0, true, x0, "axis"),
        (x, s3, null, 1, -2, true, y, "numAxes"),
        (x, s3, null, 1, 0, true, y, "one element"),
        (x, s3, null, 1, 3, true, y, "numAxes"),
        (x, s4, null, 1, 1, true, y, "scale"),
        (x, s34, null, 2, 0, false, y, "dims"),
        (x, s2, null, 1, 0, false, y, "scale"),
    ] {
        let (code, msg) = run(xx, s, b, axis, n, blob, yy);
        assert_eq!(code, INVALID, "{needle}: {msg}");
        assert!(
            msg.contains(needle) && msg.contains("aclnnScale"),
            "{needle}: {msg}"
        );
    }
}
