//! The linear-algebra operators (src/ops/linalg.rs) against torch 1.13: random shapes,
//! broadcast batches, strided/offset/transposed views, every listed dtype, empty
//! tensors, nothing written outside out's view, and the refusals (status and message
//! words, nothing written).
//!
//! LinalgCross: integers, complex (real grid values), f32 and f64 are torch's
//! `torch.linalg.cross` in the dtype byte for byte (values on a 1/16 grid: every product
//! is exact, so contraction cannot differ); f16/bf16 are within one ulp of the dtype at
//! |self_j·other_k| + |self_k·other_j| of torch's float64 result (two roundings: the
//! first product and the difference).

use super::add_diff::Rng;
use super::llm_diff::{layout, out_unwritten, Buf};
use super::masked_softmax_diff::{buf, refused};
use super::reduce_diff::run;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::{self, *};
use crate::ops::linalg;

/// The spacing of dtype `d` at magnitude `v` (0 for exact dtypes).
fn ulp(d: DType, v: f64) -> f64 {
    let bits = match d {
        F16 => 11,
        BF16 => 8,
        F32 => 24,
        _ => return 0.0,
    };
    let e = v.abs().max(f64::MIN_POSITIVE).log2().floor();
    let floor = if d == F16 { 2f64.powi(-24) } else { 0.0 };
    2f64.powf(e + 1.0 - bits as f64).max(floor)
}

const CROSS: &str = "\
x, y, d = a[0], a[1], a[2].item()
if x.dtype in (torch.float16, torch.bfloat16):
    xb, yb = torch.broadcast_tensors(x.double(), y.double())
    o = torch.linalg.cross(xb, yb, dim=d)
    mag = (xb.roll(-1, d) * yb.roll(-2, d)).abs() + (xb.roll(-2, d) * yb.roll(-1, d)).abs()
    out = (o, mag)
else:
    x, y = torch.broadcast_tensors(x, y)
    out = (torch.linalg.cross(x, y, dim=d),)";

const CROSS_DTYPES: &[DType] = &[S8, S16, S32, S64, U8, F16, BF16, F32, F64, C64, C128];

#[test]
fn linalg_cross_matches_torch() {
    let mut rng = Rng::new(0xc055);
    let mut batch = Batch::new();
    let prog = batch.program(CROSS);
    let mut pending = vec![];
    for case in 0..300 {
        let dt = rng.pick(CROSS_DTYPES);
        let r = 1 + rng.below(4) as usize;
        let d = rng.below(r as u64) as usize;
        let full: Vec<usize> = (0..r)
            .map(|k| if k == d { 3 } else { 1 + rng.below(4) as usize })
            .collect();
        // self has the axis d; other may lack it (fewer dims) or broadcast along it.
        let rs = r - rng.below((d + 1) as u64) as usize;
        let ro = if rs < r {
            r
        } else {
            rng.below(r as u64 + 1) as usize
        };
        let pick = |rng: &mut Rng, rank: usize| -> Vec<usize> {
            full[r - rank..]
                .iter()
                .map(|&n| if rng.pct(25) { 1 } else { n })
                .collect()
        };
        let mut s1 = pick(&mut rng, rs);
        let mut s2 = pick(&mut rng, ro);
        // Make the broadcast shape `full` exactly (dim d of 3 from at least one side).
        for k in 0..r {
            let (i1, i2) = (k.checked_sub(r - rs), k.checked_sub(r - ro));
            let has = i1.is_some_and(|i| s1[i] == full[k]) || i2.is_some_and(|i| s2[i] == full[k]);
            if !has {
                match (i1, i2) {
                    (Some(i), _) => s1[i] = full[k],
                    (None, Some(i)) => s2[i] = full[k],
                    _ => unreachable!("self or other has every dim"),
                }
            }
        }
        let value = |rng: &mut Rng| -> f64 {
            if dt == U8 {
                rng.below(256) as f64
            } else if dt.is_float() || matches!(dt, C64 | C128) {
                (rng.below(256) as f64 - 128.0) / 16.0
            } else {
                rng.below(256) as f64 - 128.0
            }
        };
        let x = Buf::new(dt, &s1, layout(&mut rng), || value(&mut rng));
        let y = Buf::new(dt, &s2, layout(&mut rng), || value(&mut rng));
        let out = Buf::new(dt, &full, layout(&mut rng), || 7.0);
        let before = out.outside();
        // dim as an axis of self: negative, or non-negative counted in self's dims.
        let dim = if rng.pct(50) {
            d as i64 - r as i64
        } else {
            (d - (r - rs)) as i64
        };
        let what = format!("case {case} {dt} self {s1:?} other {s2:?} dim {dim}");
        run(
            &linalg::linalg_cross(&x.desc(), &y.desc(), dim, &out.desc())
                .unwrap_or_else(|e| panic!("{what}: {e}")),
        )
        .unwrap();
        out_unwritten(&what, &before, &out);
        let i = batch.case(
            prog,
            vec![
                Some(x.array()),
                Some(y.array()),
                Some(Array::int(d as i64 - r as i64)),
            ],
        );
        pending.push((what, i, out));
    }
    let Some(results) = batch.run("LinalgCross") else {
        return;
    };
    for (what, i, o) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        if matches!(o.d, F16 | BF16) {
            let (w, mag) = (want[0].to_f64s(), want[1].to_f64s());
            for (k, g) in o.values().iter().enumerate() {
                let bound = ulp(o.d, mag[k]);
                assert!(
                    (g - w[k]).abs() <= bound,
                    "{what}: element {k}: got {g}, torch {} (bound {bound})",
                    w[k]
                );
            }
        } else {
            assert_eq!(
                o.array().bytes,
                want[0].bytes,
                "{what}: got {:?}",
                o.values()
            );
        }
    }
}

#[test]
fn linalg_cross_empty_and_refusals() {
    // An empty out: success, nothing written, before the size-3 check.
    let out = buf(F32, &[0, 2]);
    run(&linalg::linalg_cross(
        &buf(F32, &[0, 2]).desc(),
        &buf(F32, &[1, 2]).desc(),
        -1,
        &out.desc(),
    )
    .unwrap())
    .unwrap();
    let (x, y, o) = (buf(F32, &[4, 3]), buf(F32, &[3]), buf(F32, &[4, 3]));
    let f = |x: &Buf, y: &Buf, dim: i64, o: &Buf| {
        let before = o.array().bytes;
        let r = linalg::linalg_cross(&x.desc(), &y.desc(), dim, &o.desc());
        assert_eq!(before, o.array().bytes);
        r
    };
    assert!(f(&x, &y, 1, &o).is_ok());
    assert!(f(&x, &y, -1, &o).is_ok());
    // other with more dims: a non-negative dim counts in self's dims (the op_api's shift).
    assert!(f(&y, &x, 0, &o).is_ok());
    refused(f(&buf(Bool, &[4, 3]), &y, 1, &o), &["'self'", "dtype"]);
    refused(f(&x, &buf(F16, &[3]), 1, &o), &["other", "self's dtype"]);
    refused(f(&x, &y, 1, &buf(F64, &[4, 3])), &["out", "self's dtype"]);
    refused(
        f(&buf(F32, &[1; 9]), &y, 1, &buf(F32, &[1; 9])),
        &["'self'", "at most 8"],
    );
    refused(f(&x, &buf(F32, &[2]), 1, &o), &["broadcast"]);
    refused(f(&x, &y, 1, &buf(F32, &[4, 4])), &["out", "broadcast to"]);
    refused(f(&x, &y, 2, &o), &["dim 2", "[-2, 1]"]);
    refused(f(&x, &y, -3, &o), &["dim -3"]);
    refused(f(&x, &y, 0, &o), &["dimension 0", "size 3"]);
    let z = buf(F32, &[]);
    refused(f(&z, &z, 0, &z), &["dim 0"]);
    // out over self's storage.
    let od = x.desc();
    refused(
        linalg::linalg_cross(&x.desc(), &y.desc(), 1, &od),
        &["overlaps self"],
    );
}

/// Batch dims: 0 to 3 of extent 1 to 3.
fn batch_dims(rng: &mut Rng) -> Vec<usize> {
    (0..rng.below(4))
        .map(|_| 1 + rng.below(3) as usize)
        .collect()
}

/// Fills a [batch.., n, n] buffer: grid values in [-2, 2) plus `diag` (of a random sign
/// when `signed`) on the diagonal, which keeps the matrices well conditioned.
fn square(rng: &mut Rng, d: DType, batch: &[usize], n: usize, diag: f64, signed: bool) -> Buf {
    let mut s = batch.to_vec();
    s.extend([n, n]);
    let mut b = Buf::new(d, &s, layout(rng), || 0.0);
    let count: usize = batch.iter().product();
    let mut vals = vec![0.0; count * n * n];
    for m in 0..count {
        for i in 0..n {
            let sign = if signed && rng.pct(50) { -1.0 } else { 1.0 };
            for j in 0..n {
                let v = super::llm_diff::grid(rng);
                vals[(m * n + i) * n + j] = if i == j { v + sign * diag } else { v };
            }
        }
    }
    b.set_values(&vals);
    b
}

/// `g` within one ulp of dtype `d` at |w| plus `rel`·`scale` (the f64 computation's error
/// on a well-conditioned matrix) of torch's float64 `w`.
fn close(what: &str, d: DType, g: &[f64], w: &[f64], rel: f64) {
    assert_eq!(g.len(), w.len(), "{what}: element count");
    let scale = w.iter().fold(1f64, |m, v| m.max(v.abs()));
    for (k, (g, w)) in g.iter().zip(w).enumerate() {
        if w.is_infinite() || w.is_nan() {
            assert!(
                g == w || (g.is_nan() && w.is_nan()),
                "{what}: element {k}: got {g}, torch {w}"
            );
            continue;
        }
        let bound = ulp(d, *w) + rel * scale;
        assert!(
            (g - w).abs() <= bound,
            "{what}: element {k}: got {g}, torch {w} (bound {bound})"
        );
    }
}

const INV: &str = "out = torch.linalg.inv(a[0].double())";
const SLOGDET: &str = "out = tuple(torch.linalg.slogdet(a[0].double()))";
const LOGDET: &str = "out = torch.logdet(a[0].double())";
const CHOL: &str = "out = torch.linalg.cholesky(a[0].double(), upper=bool(a[1].item()))";

#[test]
fn inverse_matches_torch() {
    let mut rng = Rng::new(0x1a7);
    let mut batch = Batch::new();
    let prog = batch.program(INV);
    let mut pending = vec![];
    for case in 0..200 {
        let d = rng.pick(&[F32, F64, F16]);
        let od = if rng.pct(20) {
            rng.pick(&[F32, F64, F16, BF16])
        } else {
            d
        };
        let bd = batch_dims(&mut rng);
        let n = if rng.pct(5) {
            0
        } else {
            1 + rng.below(8) as usize
        };
        let x = square(&mut rng, d, &bd, n, 2.0 + n as f64, true);
        let out = Buf::new(od, &x.shape, layout(&mut rng), || 7.0);
        let before = out.outside();
        let what = format!("case {case} {d} -> {od} {:?}", x.shape);
        run(&linalg::inverse(&x.desc(), &out.desc()).unwrap_or_else(|e| panic!("{what}: {e}")))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        out_unwritten(&what, &before, &out);
        if x.shape.contains(&0) {
            continue;
        }
        let i = batch.case(prog, vec![Some(x.array())]);
        pending.push((what, i, out));
    }
    let Some(results) = batch.run("Inverse") else {
        return;
    };
    for (what, i, o) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        close(&what, o.d, &o.values(), &want[0].to_f64s(), 1e-13);
    }
}

#[test]
fn slogdet_and_logdet_match_torch() {
    let mut rng = Rng::new(0x5109);
    let mut batch = Batch::new();
    let (ps, pl) = (batch.program(SLOGDET), batch.program(LOGDET));
    let mut pending = vec![];
    for case in 0..200 {
        let d = rng.pick(&[F32, F64]);
        let bd = batch_dims(&mut rng);
        let n = if rng.pct(5) {
            0
        } else {
            1 + rng.below(8) as usize
        };
        let mut x = square(&mut rng, d, &bd, n, 2.0 + n as f64, true);
        // Some exactly singular matrices: a zero row (exactly 0 in every LU; two equal
        // rows are not: LAPACK's blocked order leaves torch a tiny pivot).
        if n >= 2 && rng.pct(20) {
            let mut v = x.values();
            let r = rng.below(n as u64) as usize;
            for m in 0..v.len() / (n * n) {
                for j in 0..n {
                    v[(m * n + r) * n + j] = 0.0;
                }
            }
            x.set_values(&v);
        }
        let (sd, ld) = (rng.pick(&[F32, F64]), rng.pick(&[F32, F64]));
        let sign = Buf::new(sd, &bd, layout(&mut rng), || 7.0);
        let log = Buf::new(ld, &bd, layout(&mut rng), || 7.0);
        let what = format!("case {case} {d} {:?} -> {sd}, {ld}", x.shape);
        let (bs, bl) = (sign.outside(), log.outside());
        if rng.pct(50) {
            run(&linalg::slogdet(&x.desc(), &sign.desc(), &log.desc())
                .unwrap_or_else(|e| panic!("{what}: {e}")))
            .unwrap();
            out_unwritten(&what, &bs, &sign);
            out_unwritten(&what, &bl, &log);
            if n == 0 {
                assert_eq!(sign.values(), vec![7.0; sign.values().len()], "{what}");
                continue;
            }
            let i = batch.case(ps, vec![Some(x.array())]);
            pending.push((what, i, vec![sign, log]));
        } else {
            run(&linalg::logdet(&x.desc(), &log.desc()).unwrap_or_else(|e| panic!("{what}: {e}")))
                .unwrap();
            out_unwritten(&what, &bl, &log);
            if n == 0 {
                continue;
            }
            let i = batch.case(pl, vec![Some(x.array())]);
            pending.push((what, i, vec![log]));
        }
    }
    let Some(results) = batch.run("Slogdet") else {
        return;
    };
    for (what, i, outs) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        for (o, w) in outs.iter().zip(want) {
            close(&what, o.d, &o.values(), &w.to_f64s(), 1e-13);
        }
    }
}

#[test]
fn cholesky_matches_torch() {
    let mut rng = Rng::new(0xc401);
    let mut batch = Batch::new();
    let prog = batch.program(CHOL);
    let mut pending = vec![];
    for case in 0..200 {
        let d = rng.pick(&[F32, F16, BF16]);
        let bd = batch_dims(&mut rng);
        let n = if rng.pct(5) {
            0
        } else {
            1 + rng.below(8) as usize
        };
        // A = B·Bᵀ + n·I: symmetric positive-definite.
        let b = square(&mut rng, F64, &bd, n, 0.0, false);
        let bv = b.values();
        let mut av = vec![0.0; bv.len()];
        for m in 0..bv.len() / (n * n).max(1) {
            for i in 0..n {
                for j in 0..n {
                    let mut s = if i == j { n as f64 } else { 0.0 };
                    for k in 0..n {
                        s += bv[(m * n + i) * n + k] * bv[(m * n + j) * n + k];
                    }
                    av[(m * n + i) * n + j] = s;
                }
            }
        }
        let mut x = Buf::new(d, &b.shape, layout(&mut rng), || 0.0);
        x.set_values(&av);
        let upper = rng.pct(50);
        let out = Buf::new(d, &x.shape, layout(&mut rng), || 7.0);
        let before = out.outside();
        let what = format!("case {case} {d} {:?} upper {upper}", x.shape);
        run(&linalg::linalg_cholesky(&x.desc(), upper, &out.desc())
            .unwrap_or_else(|e| panic!("{what}: {e}")))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        out_unwritten(&what, &before, &out);
        if n == 0 {
            continue;
        }
        let i = batch.case(prog, vec![Some(x.array()), Some(Array::int(upper as i64))]);
        pending.push((what, i, out));
    }
    let Some(results) = batch.run("LinalgCholesky") else {
        return;
    };
    for (what, i, o) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        close(&what, o.d, &o.values(), &want[0].to_f64s(), 1e-13);
    }
}

#[test]
fn decompositions_fail_at_phase_2_on_singular_input() {
    // A zero row: singular. Phase 2 fails and out keeps its bytes.
    let mut x = buf(F32, &[2, 3, 3]);
    let mut v = vec![0.0; 18];
    for i in 0..3 {
        v[i * 4] = 1.0;
        v[9 + i * 4] = 2.0;
    }
    v[9 + 8] = 0.0;
    x.set_values(&v);
    let out = buf(F32, &[2, 3, 3]);
    let before = out.array().bytes;
    let e = run(&linalg::inverse(&x.desc(), &out.desc()).unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("matrix 1") && e.to_string().contains("singular"),
        "{e}"
    );
    assert_eq!(before, out.array().bytes);
    // Not positive-definite (a negative diagonal).
    let mut a = buf(F16, &[2, 2]);
    a.set_values(&[1.0, 0.0, 0.0, -1.0]);
    let o = buf(F16, &[2, 2]);
    let before = o.array().bytes;
    let e = run(&linalg::linalg_cholesky(&a.desc(), false, &o.desc()).unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("order 2") && e.to_string().contains("positive-definite"),
        "{e}"
    );
    assert_eq!(before, o.array().bytes);
}

#[test]
fn decompositions_refusals() {
    let x = buf(F32, &[2, 3, 3]);
    let inv = |x: &Buf, o: &Buf| linalg::inverse(&x.desc(), &o.desc());
    assert!(inv(&x, &buf(F64, &[2, 3, 3])).is_ok());
    refused(
        inv(&buf(BF16, &[3, 3]), &buf(BF16, &[3, 3])),
        &["'self'", "dtype"],
    );
    refused(inv(&x, &buf(S32, &[2, 3, 3])), &["'out'", "dtype"]);
    refused(inv(&x, &buf(F32, &[3, 3])), &["self's shape"]);
    refused(inv(&buf(F32, &[3]), &buf(F32, &[3])), &["at least 2"]);
    refused(
        inv(&buf(F32, &[2, 3]), &buf(F32, &[2, 3])),
        &["square", "2 by 3"],
    );
    assert!(inv(&buf(C64, &[3, 3]), &buf(C128, &[3, 3])).is_ok());
    refused(
        inv(&buf(C64, &[3, 3]), &buf(F32, &[3, 3])),
        &["cannot be cast"],
    );
    refused(
        inv(&buf(F32, &[1; 9]), &buf(F32, &[1; 9])),
        &["'self'", "at most 8"],
    );
    // An empty self: accepted, even of one dim (the op_api checks ranks of non-empty self only).
    assert!(inv(&buf(F32, &[0]), &buf(F32, &[0])).is_ok());

    let s = |x: &Buf, a: &Buf, b: &Buf| linalg::slogdet(&x.desc(), &a.desc(), &b.desc());
    let (b1, b2) = (buf(F32, &[2]), buf(F64, &[2]));
    assert!(s(&x, &b1, &b2).is_ok());
    refused(s(&buf(F16, &[2, 3, 3]), &b1, &b2), &["'self'", "dtype"]);
    refused(s(&x, &buf(F16, &[2]), &b2), &["'signOut'", "dtype"]);
    refused(s(&x, &b1, &buf(S64, &[2])), &["'logOut'", "dtype"]);
    refused(
        s(&buf(C64, &[2, 3, 3]), &b1, &buf(C64, &[2])),
        &["signOut must be complex"],
    );
    refused(s(&buf(F32, &[3]), &b1, &b2), &["at least 2"]);
    refused(s(&buf(F32, &[2, 3, 2]), &b1, &b2), &["3 by 2"]);
    refused(s(&x, &buf(F32, &[3]), &b2), &["signOut", "[2]"]);
    refused(s(&x, &b1, &buf(F32, &[])), &["logOut", "[2]"]);
    assert!(s(&buf(C128, &[2, 3, 3]), &buf(C128, &[2]), &buf(C64, &[2])).is_ok());
    let l = |x: &Buf, o: &Buf| linalg::logdet(&x.desc(), &o.desc());
    assert!(l(&x, &b2).is_ok());
    refused(l(&x, &buf(BF16, &[2])), &["'out'", "dtype"]);
    refused(l(&buf(C64, &[2, 3, 3]), &b1), &["out must be complex"]);
    refused(l(&x, &buf(F32, &[2, 1])), &["out", "[2]"]);

    let c = |x: &Buf, o: &Buf| linalg::linalg_cholesky(&x.desc(), true, &o.desc());
    let h = buf(BF16, &[2, 3, 3]);
    assert!(c(&h, &buf(BF16, &[2, 3, 3])).is_ok());
    refused(c(&h, &buf(F32, &[2, 3, 3])), &["out", "self's dtype"]);
    refused(
        c(&buf(F64, &[3, 3]), &buf(F64, &[3, 3])),
        &["'self'", "dtype"],
    );
    refused(c(&buf(F32, &[3]), &buf(F32, &[3])), &["at least 2"]);
    refused(c(&h, &buf(BF16, &[3, 3])), &["self's shape"]);
    refused(
        c(&buf(F32, &[3, 2]), &buf(F32, &[3, 2])),
        &["square", "3 by 2"],
    );
    // Empty: accepted before the square check.
    assert!(c(&buf(F32, &[0, 2]), &buf(F32, &[0, 2])).is_ok());
}

/// The elements of a c64/c128 array as (re, im).
fn complex_values(a: &Array) -> Vec<(f64, f64)> {
    (0..a.numel())
        .map(|i| {
            let b = a.elem(i);
            if a.dtype == C64 {
                let f = |k: usize| f32::from_le_bytes(b[k..k + 4].try_into().unwrap()) as f64;
                (f(0), f(4))
            } else {
                let f = |k: usize| f64::from_le_bytes(b[k..k + 8].try_into().unwrap());
                (f(0), f(8))
            }
        })
        .collect()
}

/// Complex `g` within one ulp of its part dtype (f32 for c64) at each part of `w`, plus
/// `rel` of the largest |part| of `w`.
fn close_complex(what: &str, d: DType, g: &[(f64, f64)], w: &[(f64, f64)], rel: f64) {
    assert_eq!(g.len(), w.len(), "{what}: element count");
    let part = if d == C64 { F32 } else { F64 };
    let scale = w.iter().fold(1f64, |m, v| m.max(v.0.abs()).max(v.1.abs()));
    for (k, (g, w)) in g.iter().zip(w).enumerate() {
        for (a, b) in [(g.0, w.0), (g.1, w.1)] {
            if b.is_infinite() {
                assert_eq!(a, b, "{what}: element {k}: got {g:?}, torch {w:?}");
                continue;
            }
            let bound = ulp(part, b) + rel * scale;
            assert!(
                (a - b).abs() <= bound,
                "{what}: element {k}: got {g:?}, torch {w:?} (bound {bound})"
            );
        }
    }
}

const CINV: &str = "out = torch.linalg.inv(a[0].cdouble())";
const CSLOGDET: &str = "out = tuple(torch.linalg.slogdet(a[0].cdouble()))";
const CLOGDET: &str = "out = torch.logdet(a[0].cdouble())";

#[test]
fn complex_inverse_slogdet_logdet_match_torch() {
    let mut rng = Rng::new(0xc0de);
    let mut batch = Batch::new();
    let progs = [
        batch.program(CINV),
        batch.program(CSLOGDET),
        batch.program(CLOGDET),
    ];
    let mut pending = vec![];
    for case in 0..150 {
        let d = rng.pick(&[C64, C128]);
        let bd = batch_dims(&mut rng);
        let n = 1 + rng.below(7) as usize;
        let mut s = bd.clone();
        s.extend([n, n]);
        let count: usize = bd.iter().product();
        let mut vals = vec![(0.0, 0.0); count * n * n];
        for (k, v) in vals.iter_mut().enumerate() {
            let diag = if (k % (n * n)) % (n + 1) == 0 {
                2.0 + n as f64
            } else {
                0.0
            };
            let re = super::llm_diff::grid(&mut rng) + diag * if rng.pct(50) { -1.0 } else { 1.0 };
            *v = (re, super::llm_diff::grid(&mut rng));
        }
        let mut x = Buf::new(d, &s, layout(&mut rng), || 0.0);
        x.set_complex(&vals);
        let op = rng.below(3) as usize;
        let what = format!("case {case} op {op} {d} {s:?}");
        let outs = match op {
            0 => {
                let o = Buf::new(d, &s, layout(&mut rng), || 7.0);
                run(&linalg::inverse(&x.desc(), &o.desc()).unwrap()).unwrap();
                vec![o]
            }
            1 => {
                let sign = Buf::new(d, &bd, layout(&mut rng), || 7.0);
                let log = Buf::new(rng.pick(&[C64, C128]), &bd, layout(&mut rng), || 7.0);
                run(&linalg::slogdet(&x.desc(), &sign.desc(), &log.desc()).unwrap()).unwrap();
                vec![sign, log]
            }
            _ => {
                let o = Buf::new(d, &bd, layout(&mut rng), || 7.0);
                run(&linalg::logdet(&x.desc(), &o.desc()).unwrap()).unwrap();
                vec![o]
            }
        };
        let i = batch.case(progs[op], vec![Some(x.array())]);
        pending.push((what, i, outs));
    }
    let Some(results) = batch.run("complex Inverse/Slogdet/Logdet") else {
        return;
    };
    for (what, i, outs) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        for (o, w) in outs.iter().zip(want) {
            let g = complex_values(&o.array());
            let w: Vec<(f64, f64)> = if w.dtype == F64 {
                w.to_f64s().into_iter().map(|v| (v, 0.0)).collect()
            } else {
                complex_values(w)
            };
            close_complex(&what, o.d, &g, &w, 1e-13);
        }
    }
}

const QR: &str = "\
mode = ('reduced', 'complete', 'r')[a[1].item()]
q, r = torch.linalg.qr(a[0].double(), mode=mode)
out = (q, r)";

/// A [batch.., m, n] buffer of grid values, with (sometimes) a zero column or a column
/// already zero below the diagonal (reflectors with τ = 0).
fn general(rng: &mut Rng, d: DType, batch: &[usize], m: usize, n: usize) -> Buf {
    let mut s = batch.to_vec();
    s.extend([m, n]);
    let mut b = Buf::new(d, &s, layout(rng), || 0.0);
    let count: usize = batch.iter().product();
    let mut vals: Vec<f64> = (0..count * m * n)
        .map(|_| super::llm_diff::grid(rng))
        .collect();
    if n > 0 && m > 0 && rng.pct(20) {
        let c = rng.below(n as u64) as usize;
        let from = if rng.pct(50) { 0 } else { c.min(m - 1) + 1 };
        for mat in 0..count {
            for i in from..m {
                vals[(mat * m + i) * n + c] = 0.0;
            }
        }
    }
    b.set_values(&vals);
    b
}

#[test]
fn linalg_qr_and_qr_match_torch() {
    let mut rng = Rng::new(0x9e);
    let mut batch = Batch::new();
    let prog = batch.program(QR);
    let mut pending = vec![];
    for case in 0..300 {
        let d = rng.pick(&[F32, F64, F16]);
        let bd = batch_dims(&mut rng);
        let dim = |rng: &mut Rng| {
            if rng.pct(5) {
                0
            } else {
                1 + rng.below(7) as usize
            }
        };
        let (m, n) = (dim(&mut rng), dim(&mut rng));
        let k = m.min(n);
        let x = general(&mut rng, d, &bd, m, n);
        // 0 reduced, 1 complete, 2 r; aclnnQr for 0 and 1 half the time.
        let mode = rng.below(3) as i64;
        let legacy = mode < 2 && rng.pct(50);
        let od = |rng: &mut Rng| {
            if rng.pct(20) {
                rng.pick(&[F32, F64, F16])
            } else {
                d
            }
        };
        let (qd, rd) = (od(&mut rng), od(&mut rng));
        let mut qs = bd.clone();
        let mut rs = bd.clone();
        match mode {
            1 => {
                qs.extend([m, m]);
                rs.extend([m, n]);
            }
            0 => {
                qs.extend([m, k]);
                rs.extend([k, n]);
            }
            _ => {
                qs = vec![0];
                rs.extend([k, n]);
            }
        }
        let q = Buf::new(qd, &qs, layout(&mut rng), || 7.0);
        let r = Buf::new(rd, &rs, layout(&mut rng), || 7.0);
        let (bq, br) = (q.outside(), r.outside());
        let what = format!(
            "case {case} {d} {:?} mode {mode} legacy {legacy} -> Q {qd} {qs:?}, R {rd}",
            x.shape
        );
        let exec = if legacy {
            linalg::qr(&x.desc(), mode == 0, &q.desc(), &r.desc())
        } else {
            linalg::linalg_qr(&x.desc(), mode, &q.desc(), &r.desc())
        };
        run(&exec.unwrap_or_else(|e| panic!("{what}: {e}")))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        out_unwritten(&what, &bq, &q);
        out_unwritten(&what, &br, &r);
        if bd.contains(&0) || (x.shape.contains(&0) && q.values().is_empty()) {
            continue;
        }
        let i = batch.case(prog, vec![Some(x.array()), Some(Array::int(mode))]);
        pending.push((what, i, mode, q, r));
    }
    let Some(results) = batch.run("LinalgQr") else {
        return;
    };
    for (what, i, mode, q, r) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        if mode != 2 {
            close(
                &format!("{what} Q"),
                q.d,
                &q.values(),
                &want[0].to_f64s(),
                1e-12,
            );
        }
        close(
            &format!("{what} R"),
            r.d,
            &r.values(),
            &want[1].to_f64s(),
            1e-12,
        );
    }
}

#[test]
fn linalg_qr_refusals_and_empty() {
    let x = buf(F32, &[2, 4, 3]);
    let lq =
        |x: &Buf, mode, q: &Buf, r: &Buf| linalg::linalg_qr(&x.desc(), mode, &q.desc(), &r.desc());
    let (q, r) = (buf(F32, &[2, 4, 3]), buf(F32, &[2, 3, 3]));
    assert!(lq(&x, 0, &q, &r).is_ok());
    // Any mode other than 1 and 2 is reduced, as the op_api.
    assert!(lq(&x, 7, &q, &r).is_ok());
    assert!(lq(&x, 1, &buf(F64, &[2, 4, 4]), &buf(F16, &[2, 4, 3])).is_ok());
    assert!(lq(&x, 2, &buf(F32, &[0]), &r).is_ok());
    refused(lq(&buf(BF16, &[4, 3]), 0, &q, &r), &["'self'", "dtype"]);
    refused(lq(&x, 0, &buf(S32, &[2, 4, 3]), &r), &["'Q'", "dtype"]);
    refused(lq(&x, 0, &q, &buf(BF16, &[2, 3, 3])), &["'R'", "dtype"]);
    refused(lq(&buf(F32, &[3]), 0, &q, &r), &["at least 2"]);
    refused(lq(&buf(F32, &[1; 9]), 0, &q, &r), &["at most 8"]);
    refused(lq(&x, 1, &q, &r), &["Q should have shape", "[2, 4, 4]"]);
    refused(
        lq(&x, 0, &q, &buf(F32, &[2, 4, 3])),
        &["R should have shape", "[2, 3, 3]"],
    );
    refused(lq(&x, 2, &q, &r), &["Q should have shape", "[0]"]);
    refused(
        lq(
            &buf(C64, &[4, 3]),
            0,
            &buf(C64, &[4, 3]),
            &buf(C64, &[3, 3]),
        ),
        &["complex QR is not implemented"],
    );
    refused(
        lq(&x, 0, &buf(C64, &[2, 4, 3]), &r),
        &["complex QR is not implemented"],
    );
    let q2 = |x: &Buf, some, q: &Buf, r: &Buf| linalg::qr(&x.desc(), some, &q.desc(), &r.desc());
    assert!(q2(&x, true, &q, &r).is_ok());
    refused(q2(&x, false, &q, &r), &["Q should have shape"]);
    // Empty: nothing written (an empty self with an empty Q), or Q = I for [m, 0] complete.
    assert!(lq(
        &buf(F32, &[0, 3, 2]),
        1,
        &buf(F32, &[0, 3, 3]),
        &buf(F32, &[0, 3, 2])
    )
    .is_ok());
    let e = buf(F32, &[2, 3, 0]);
    let qe = buf(F32, &[2, 3, 3]);
    run(&q2(&e, false, &qe, &buf(F32, &[2, 3, 0])).unwrap()).unwrap();
    let eye: Vec<f64> = (0..18)
        .map(|i| if i % 9 % 4 == 0 { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(qe.values(), eye);
    // Complex with an empty self and Q: accepted (the op_api returns before its kernel).
    assert!(lq(
        &buf(C64, &[0, 2]),
        0,
        &buf(C64, &[0, 0]),
        &buf(C64, &[0, 2])
    )
    .is_ok());
}

const SVDVALS: &str = "out = torch.linalg.svdvals(a[0].double())";

/// Column-major-free helpers: `x` [count, r, c] row-major, entry (b, i, j).
fn at(x: &[f64], r: usize, c: usize, b: usize, i: usize, j: usize) -> f64 {
    x[(b * r + i) * c + j]
}

#[test]
fn svd_matches_torch() {
    let mut rng = Rng::new(0x5fd);
    let mut batch = Batch::new();
    let prog = batch.program(SVDVALS);
    let mut pending = vec![];
    for case in 0..250 {
        let d = rng.pick(&[F32, F64]);
        let bd = batch_dims(&mut rng);
        let dim = |rng: &mut Rng| {
            if rng.pct(5) {
                0
            } else {
                1 + rng.below(7) as usize
            }
        };
        let (m, n) = (dim(&mut rng), dim(&mut rng));
        let k = m.min(n);
        let mut x = general(&mut rng, d, &bd, m, n);
        // Some rank-deficient matrices: a row repeated.
        if m >= 2 && rng.pct(20) {
            let mut v = x.values();
            for b in 0..v.len() / (m * n).max(1) {
                for j in 0..n {
                    v[(b * m + 1) * n + j] = v[b * m * n + j];
                }
            }
            x.set_values(&v);
        }
        let full = rng.pct(50);
        let uv = rng.pct(80);
        let with = |a: usize, b: Option<usize>| {
            let mut s = bd.clone();
            s.push(a);
            s.extend(b);
            s
        };
        let (us, vs) = if full {
            (with(m, Some(m)), with(n, Some(n)))
        } else {
            (with(m, Some(k)), with(n, Some(k)))
        };
        let s = Buf::new(d, &with(k, None), layout(&mut rng), || 7.0);
        let u = Buf::new(d, &us, layout(&mut rng), || 7.0);
        let v = Buf::new(d, &vs, layout(&mut rng), || 7.0);
        let (bs, bu, bv) = (s.outside(), u.outside(), v.outside());
        let what = format!("case {case} {d} {:?} full {full} uv {uv}", x.shape);
        run(
            &linalg::svd(&x.desc(), full, uv, &s.desc(), &u.desc(), &v.desc())
                .unwrap_or_else(|e| panic!("{what}: {e}")),
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        out_unwritten(&what, &bs, &s);
        out_unwritten(&what, &bu, &u);
        out_unwritten(&what, &bv, &v);
        if x.shape.contains(&0) {
            continue;
        }
        let count: usize = bd.iter().product();
        if uv {
            // u·diag(s)·vᵀ = input, uᵀu = I, vᵀv = I.
            let (a, sv, uu, vv) = (x.values(), s.values(), u.values(), v.values());
            let (uc, vc) = if full { (m, n) } else { (k, k) };
            let scale = a.iter().fold(1f64, |s, v| s.max(v.abs()));
            let tol = if d == F32 { 2e-6 * (k as f64) } else { 1e-12 };
            for b in 0..count {
                for i in 0..m {
                    for j in 0..n {
                        let g: f64 = (0..k)
                            .map(|l| {
                                at(&uu, m, uc, b, i, l) * sv[b * k + l] * at(&vv, n, vc, b, j, l)
                            })
                            .sum();
                        let w = at(&a, m, n, b, i, j);
                        assert!(
                            (g - w).abs() <= tol * scale * 4.0,
                            "{what}: matrix {b} ({i}, {j}): u·s·vᵀ {g}, input {w}"
                        );
                    }
                }
                for (x, r, c, name) in [(&uu, m, uc, "u"), (&vv, n, vc, "v")] {
                    for p in 0..c {
                        for q in 0..c {
                            let g: f64 = (0..r)
                                .map(|i| at(x, r, c, b, i, p) * at(x, r, c, b, i, q))
                                .sum();
                            let w = if p == q { 1.0 } else { 0.0 };
                            assert!(
                                (g - w).abs() <= tol * 4.0,
                                "{what}: matrix {b}: ({name}ᵀ{name})[{p}][{q}] = {g}"
                            );
                        }
                    }
                }
            }
        } else {
            assert!(u.values().iter().all(|&x| x == 7.0), "{what}: u written");
            assert!(v.values().iter().all(|&x| x == 7.0), "{what}: v written");
        }
        let i = batch.case(prog, vec![Some(x.array())]);
        pending.push((what, i, s));
    }
    let Some(results) = batch.run("Svd") else {
        return;
    };
    for (what, i, s) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        close(&what, s.d, &s.values(), &want[0].to_f64s(), 1e-12);
    }
}

#[test]
fn svd_refusals_and_empty() {
    let sv = |x: &Buf, full, uv, s: &Buf, u: &Buf, v: &Buf| {
        linalg::svd(&x.desc(), full, uv, &s.desc(), &u.desc(), &v.desc())
    };
    let x = buf(F32, &[2, 4, 3]);
    let (s, u, v) = (
        buf(F32, &[2, 3]),
        buf(F32, &[2, 4, 3]),
        buf(F32, &[2, 3, 3]),
    );
    assert!(sv(&x, false, true, &s, &u, &v).is_ok());
    assert!(sv(&x, true, true, &s, &buf(F32, &[2, 4, 4]), &v).is_ok());
    // Without computeUV, u and v's shapes are not checked.
    assert!(sv(&x, true, false, &s, &buf(F32, &[1]), &buf(F32, &[1])).is_ok());
    refused(
        sv(&buf(F16, &[4, 3]), false, true, &s, &u, &v),
        &["'input'", "dtype"],
    );
    refused(
        sv(&x, false, true, &buf(S32, &[2, 3]), &u, &v),
        &["'sigma'", "dtype"],
    );
    refused(
        sv(&x, false, true, &s, &buf(F64, &[2, 4, 3]), &v),
        &["u", "input"],
    );
    refused(
        sv(&buf(F32, &[3]), false, true, &s, &u, &v),
        &["at least 2"],
    );
    refused(
        sv(&buf(F32, &[1; 9]), false, true, &s, &u, &v),
        &["at most 8"],
    );
    refused(
        sv(&x, false, true, &buf(F32, &[2, 4]), &u, &v),
        &["sigma", "[2, 3]"],
    );
    refused(sv(&x, true, true, &s, &u, &v), &["shape of u", "[2, 4, 4]"]);
    refused(
        sv(&x, false, true, &s, &u, &buf(F32, &[2, 3, 4])),
        &["shape of v"],
    );
    refused(
        sv(
            &buf(C64, &[3, 3]),
            false,
            true,
            &buf(C64, &[3]),
            &buf(C64, &[3, 3]),
            &buf(C64, &[3, 3]),
        ),
        &["complex SVD is not implemented"],
    );
    // Empty input: nothing written.
    let (s0, u0) = (buf(F32, &[2, 0]), buf(F32, &[2, 4, 4]));
    let before = u0.array().bytes;
    run(&sv(
        &buf(F32, &[2, 4, 0]),
        true,
        true,
        &s0,
        &u0,
        &buf(F32, &[2, 0, 0]),
    )
    .unwrap())
    .unwrap();
    assert_eq!(before, u0.array().bytes);
}
