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
