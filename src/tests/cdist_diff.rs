//! Cdist (src/ops/cdist.rs) against torch 1.13's torch.cdist on float64 copies of the
//! inputs (compute_mode 'donot_use_mm_for_euclid_dist', CANN's compute_mode 2), rounded
//! to the dtype: random shapes with broadcast batch dims (0 to 3 each, 1s against larger
//! dims), strided, offset and transposed views, f32/f16/bf16, p = 0, 1, 2, inf and general
//! p, M = 0, NaN/±inf/−0 elements; nothing outside out's view written; the empty early
//! return; the refusals (status and message words), with nothing written.
//! For p = 0 and inf a NaN result is not compared (torch's is order-dependent).
//! Bound: ≤ 1 ulp of the dtype (both in f64, rounded once; the f64 sums' orders differ).

use super::add_diff::Rng;
use super::llm_diff::{layout, out_unwritten, Buf, Layout};
use super::masked_softmax_diff::{buf, refused, ulps};
use super::reduce_diff::run;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::*;
use crate::ops::cdist::cdist;

const CDIST: &str = "\
x1, x2, p = a[0], a[1], a[2].item()
out = torch.cdist(x1.double(), x2.double(), p=p, compute_mode='donot_use_mm_for_euclid_dist').to(x1.dtype)";

/// A value on a 1/16 grid in [-8, 8), sometimes NaN, ±inf or −0.
fn value(rng: &mut Rng, specials: bool) -> f64 {
    if specials && rng.pct(2) {
        return rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]);
    }
    (rng.below(256) as f64 - 128.0) / 16.0
}

/// Batch dims for x1 and x2 that broadcast: a common tail, 1s here and there.
fn batches(rng: &mut Rng) -> (Vec<usize>, Vec<usize>) {
    let full: Vec<usize> = (0..rng.below(4))
        .map(|_| 1 + rng.below(3) as usize)
        .collect();
    let pick = |rng: &mut Rng| -> Vec<usize> {
        let keep = rng.below(full.len() as u64 + 1) as usize;
        full[full.len() - keep..]
            .iter()
            .map(|&d| if rng.pct(30) { 1 } else { d })
            .collect()
    };
    (pick(rng), pick(rng))
}

#[test]
fn cdist_matches_torch() {
    let mut rng = Rng::new(0xcd15);
    let mut batch = Batch::new();
    let prog = batch.program(CDIST);
    let mut pending = vec![];
    for case in 0..300 {
        let d = rng.pick(&[F32, F16, BF16]);
        let p = rng.pick(&[0.0f32, 1.0, 2.0, f32::INFINITY, 0.5, 1.5, 3.0, 2.5]);
        let (b1, b2) = batches(&mut rng);
        let (pn, rn) = (1 + rng.below(9) as usize, 1 + rng.below(9) as usize);
        let m = if rng.pct(5) {
            0
        } else {
            1 + rng.below(40) as usize
        };
        let s1: Vec<usize> = b1.iter().copied().chain([pn, m]).collect();
        let s2: Vec<usize> = b2.iter().copied().chain([rn, m]).collect();
        let specials = rng.pct(30);
        let x1 = Buf::new(d, &s1, layout(&mut rng), || value(&mut rng, specials));
        let x2 = Buf::new(d, &s2, layout(&mut rng), || value(&mut rng, specials));
        let bshape = crate::broadcast::broadcast_shapes(&[("a", &b1), ("b", &b2)]).unwrap();
        let so: Vec<usize> = bshape.iter().copied().chain([pn, rn]).collect();
        let out = Buf::new(d, &so, layout(&mut rng), || 7.0);
        let before = out.outside();
        run(&cdist(&x1.desc(), &x2.desc(), p, 2, &out.desc()).unwrap()).unwrap();
        let what = format!("case {case} {d} p {p} x1 {s1:?} x2 {s2:?}");
        out_unwritten(&what, &before, &out);
        let i = batch.case(
            prog,
            vec![
                Some(x1.array()),
                Some(x2.array()),
                Some(Array::f64s(&[1], &[p as f64])),
            ],
        );
        pending.push((what, i, out, p == 0.0 || p.is_infinite()));
    }
    let Some(results) = batch.run("Cdist") else {
        return;
    };
    for (what, i, o, nan_free) in pending {
        let want = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        let w = want[0].to_f64s();
        let g = o.values();
        assert_eq!(g.len(), w.len(), "{what}: element count");
        for (k, (a, b)) in g.iter().zip(&w).enumerate() {
            // torch's p = 0 and inf kernels keep or drop a NaN by the operand order of
            // their vector min/max; here a NaN difference always gives NaN.
            if nan_free && a.is_nan() {
                continue;
            }
            let u = ulps(o.d, *a, *b);
            assert!(u <= 1, "{what}: element {k}: got {a}, torch {b} ({u} ulp)");
        }
    }
}

#[test]
fn cdist_empty_writes_nothing() {
    // A 0 in any dim but M: success and nothing written, even before the batch check
    // (the op_api's early return).
    for (s1, s2, so) in [
        (vec![0, 3, 4], vec![2, 4], vec![0, 3, 2]),
        (vec![2, 0, 4], vec![2, 3, 4], vec![2, 0, 3]),
        (vec![3, 4], vec![0, 4], vec![3, 0]),
        (vec![2, 0, 4], vec![3, 5, 4], vec![2, 0, 5]),
    ] {
        let out = buf(F32, &so);
        run(&cdist(
            &buf(F32, &s1).desc(),
            &buf(F32, &s2).desc(),
            1.0,
            0,
            &out.desc(),
        )
        .unwrap())
        .unwrap();
    }
    // M = 0: zeros.
    let out = Buf::new(F16, &[2, 3], Layout::Padded, || 7.0);
    let before = out.outside();
    run(&cdist(
        &buf(F16, &[2, 0]).desc(),
        &buf(F16, &[3, 0]).desc(),
        2.0,
        2,
        &out.desc(),
    )
    .unwrap())
    .unwrap();
    out_unwritten("M = 0", &before, &out);
    assert_eq!(out.values(), vec![0.0; 6]);
}

#[test]
fn cdist_refusals() {
    let x1 = buf(F32, &[2, 3, 4]);
    let x2 = buf(F32, &[5, 4]);
    let o = buf(F32, &[2, 3, 5]);
    let f = |x1: &Buf, x2: &Buf, p: f32, mode: i64, o: &Buf| {
        let before = o.array().bytes;
        let r = cdist(&x1.desc(), &x2.desc(), p, mode, &o.desc());
        assert_eq!(before, o.array().bytes);
        r
    };
    assert!(f(&x1, &x2, 2.0, 2, &o).is_ok());
    assert!(f(&x1, &x2, f32::INFINITY, 0, &o).is_ok());
    assert!(f(&x1, &x2, 1.0, 1, &o).is_ok());
    refused(
        f(&buf(F64, &[2, 3, 4]), &x2, 1.0, 0, &o),
        &["'x1'", "dtype"],
    );
    refused(f(&x1, &buf(S32, &[5, 4]), 1.0, 0, &o), &["'x2'", "dtype"]);
    refused(
        f(&x1, &x2, 1.0, 0, &buf(F16, &[2, 3, 5])),
        &["x1", "out's dtype"],
    );
    refused(
        f(&x1, &buf(F16, &[5, 4]), 1.0, 0, &buf(F16, &[2, 3, 5])),
        &["x1", "out's dtype"],
    );
    refused(f(&buf(F32, &[4]), &x2, 1.0, 0, &o), &["x1", "2 to 8"]);
    refused(f(&x1, &x2, 1.0, 0, &buf(F32, &[5])), &["out", "2 to 8"]);
    refused(
        f(&x1, &buf(F32, &[5, 3]), 1.0, 0, &o),
        &["same last dim", "4 and 3"],
    );
    refused(f(&x1, &x2, -1.0, 0, &o), &["p is -1", "non-negative"]);
    refused(f(&x1, &x2, f32::NAN, 0, &o), &["p is NaN"]);
    refused(f(&x1, &x2, 2.0, 0, &o), &["compute_mode is 0", "p = 2"]);
    refused(f(&x1, &x2, 2.0000001, 1, &o), &["compute_mode is 1"]);
    refused(
        f(&x1, &buf(F32, &[3, 5, 4]), 1.0, 0, &o),
        &["batch dims", "broadcast"],
    );
    refused(
        f(&x1, &x2, 1.0, 0, &buf(F32, &[2, 3, 4])),
        &["out", "shape"],
    );
    // out over x1's storage.
    let big = buf(F32, &[2, 3, 8]);
    let xd = big.desc();
    let storage = [xd.storage_shape.iter().product::<usize>() as i64];
    let od = crate::tensor::TensorDesc::new(
        &[2, 3, 5],
        F32 as i32,
        Some(&[15, 5, 1]),
        0,
        2,
        &storage,
        xd.addr,
    )
    .unwrap();
    refused(
        cdist(&xd, &buf(F32, &[5, 8]).desc(), 1.0, 0, &od),
        &["overlaps x1"],
    );
}
