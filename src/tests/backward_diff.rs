//! TanhBackward (src/ops/backward.rs) against an f64 loop over random shapes, broadcasts,
//! views and dtypes, special values included; nothing outside gradInput's view written;
//! its refusals.
//!
//! Bound: the f32 (f64) computation rounds y², 1 − y², the product and the final dtype:
//! |got − want| ≤ one ulp of want in the dtype + 4·ε·|g|·(1 + y²), ε of the compute type.

use super::add_diff::Rng;
use super::llm_diff::{half_ulp, indices, layout, out_unwritten, Buf};
use super::reduce_diff::run;
use crate::dtype::DType::*;
use crate::ops::backward;

/// A value on a 1/64 grid in [-2, 2), or sometimes a special one.
fn value(rng: &mut Rng) -> f64 {
    if rng.pct(5) {
        return rng.pick(&[
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
        ]);
    }
    (rng.below(256) as f64 - 128.0) / 64.0
}

/// Index of `out_idx` in an operand of `shape` right-aligned and broadcast to out.
fn broadcast_index(out_idx: &[usize], shape: &[usize]) -> usize {
    let skip = out_idx.len() - shape.len();
    let mut k = 0;
    for (d, &n) in shape.iter().enumerate() {
        k = k * n + if n == 1 { 0 } else { out_idx[skip + d] };
    }
    k
}

#[test]
fn tanh_backward_matches_an_f64_loop() {
    let mut rng = Rng::new(0x7a9b);
    for case in 0..300 {
        let d = rng.pick(&[F32, F16, BF16, F64]);
        let rank = rng.below(5) as usize;
        let shape: Vec<usize> = (0..rank)
            .map(|_| rng.below(5) as usize + usize::from(rng.pct(80)))
            .collect();
        let operand = |rng: &mut Rng| -> Vec<usize> {
            let keep = rank - rng.below(rank as u64 + 1) as usize;
            shape[rank - keep..]
                .iter()
                .map(|&n| if rng.pct(25) { 1 } else { n })
                .collect()
        };
        let (gs, ys) = (operand(&mut rng), operand(&mut rng));
        let g = Buf::new(d, &gs, layout(&mut rng), || value(&mut rng));
        let y = Buf::new(d, &ys, layout(&mut rng), || value(&mut rng));
        // gradInput has the broadcast shape, of the larger operand rank.
        let r = gs.len().max(ys.len());
        let out_shape: Vec<usize> = (0..r)
            .map(|i| {
                let at = |s: &[usize]| (i + s.len()).checked_sub(r).map_or(1, |j| s[j]);
                let (p, q) = (at(&gs), at(&ys));
                if p == 1 {
                    q
                } else {
                    p
                }
            })
            .collect();
        let out = Buf::new(d, &out_shape, layout(&mut rng), || 7.0);
        let before = out.outside();
        run(&backward::tanh_backward(&g.desc(), &y.desc(), &out.desc()).unwrap()).unwrap();
        let (gv, yv, got) = (g.values(), y.values(), out.values());
        let eps = if d == F64 {
            f64::EPSILON
        } else {
            f32::EPSILON as f64
        };
        for (k, idx) in indices(&out_shape).iter().enumerate() {
            let (a, b) = (gv[broadcast_index(idx, &gs)], yv[broadcast_index(idx, &ys)]);
            let want = a * (1.0 - b * b);
            let c =
                format!("case {case} {d} {gs:?}·{ys:?} → {out_shape:?} at {idx:?}: g {a}, y {b}");
            if want.is_nan() {
                assert!(got[k].is_nan(), "{c}: got {}, want NaN", got[k]);
                continue;
            }
            let bound = 2.0 * half_ulp(d, want) + 4.0 * eps * a.abs() * (1.0 + b * b);
            assert!(
                got[k] == want || (got[k] - want).abs() <= bound,
                "{c}: got {}, want {want} (bound {bound})",
                got[k]
            );
        }
        out_unwritten(&format!("case {case}"), &before, &out);
    }
}

#[test]
fn tanh_backward_refusals() {
    let b = |d, s: &[usize]| Buf::new(d, s, super::llm_diff::Layout::Contiguous, || 0.5);
    let msg = |g: &Buf, y: &Buf, o: &Buf| match backward::tanh_backward(
        &g.desc(),
        &y.desc(),
        &o.desc(),
    ) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let (g, y, o) = (b(F32, &[2, 3]), b(F32, &[2, 3]), b(F32, &[2, 3]));
    assert!(msg(&g, &b(F16, &[2, 3]), &o).contains("output has dtype"));
    assert!(msg(&g, &y, &b(F64, &[2, 3])).contains("gradInput has dtype"));
    assert!(msg(&b(S32, &[2, 3]), &b(S32, &[2, 3]), &b(S32, &[2, 3])).contains("gradOutput"));
    assert!(msg(&g, &b(F32, &[4, 3]), &o).contains("broadcast"));
    assert!(msg(&g, &y, &b(F32, &[3, 3])).contains("gradInput"));
}
