//! DequantBias against an f64 loop of its formula. Bound: the f32 steps (at most four
//! roundings of 2^-24) and the final rounding to out (f16 2^-11, bf16 2^-8 relative)
//! stay within one ulp of out's dtype: |got − ref| ≤ 2^-10 (f16) / 2^-7 (bf16) · |ref|
//! plus out's smallest subnormal step.

use super::add_diff::Rng;
use super::llm_diff::{layout, out_unwritten, Buf};
use super::reduce_diff::run;
use crate::dtype::DType::*;
use crate::ops::quant;

#[test]
fn dequant_bias_matches_an_f64_loop_within_one_ulp_of_out() {
    let mut rng = Rng::new(0x519);
    for case in 0..80 {
        let bf = rng.pct(50);
        let (wd, od, odt) = if bf { (BF16, BF16, 27) } else { (F32, F16, 1) };
        let (m, n) = (rng.below(7) as usize, 1 + rng.below(40) as usize);
        let m = if case == 0 { 0 } else { m };
        let x = Buf::new(S32, &[m, n], layout(&mut rng), || {
            rng.below(20001) as f64 - 10000.0
        });
        let ws = Buf::new(wd, &[n], layout(&mut rng), || {
            (1 + rng.below(64)) as f64 / 1024.0
        });
        let asc = rng.pct(60).then(|| {
            Buf::new(F32, &[m], layout(&mut rng), || {
                (1 + rng.below(32)) as f64 / 8.0
            })
        });
        let bdt = rng.pick(&[F32, BF16, F16, S32]);
        let bias = rng.pct(60).then(|| {
            Buf::new(bdt, &[n], layout(&mut rng), || {
                rng.below(200) as f64 - 100.0
            })
        });
        let y = Buf::new(od, &[m, n], layout(&mut rng), || 3.0);
        let before = y.outside();
        let (ad, bd) = (
            asc.as_ref().map(|b| b.desc()),
            bias.as_ref().map(|b| b.desc()),
        );
        let e = quant::dequant_bias(
            &x.desc(),
            &ws.desc(),
            ad.as_ref(),
            bd.as_ref(),
            odt,
            &y.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(e.api, "aclnnDequantBias");
        run(&e).unwrap();
        out_unwritten(&format!("dequant bias {case}"), &before, &y);
        let (xv, wv, yv) = (x.values(), ws.values(), y.values());
        let av = asc.as_ref().map(|a| a.values());
        let bv = bias.as_ref().map(|b| b.values());
        let (rel, tiny) = if bf {
            (2f64.powi(-7), 1e-38)
        } else {
            (2f64.powi(-10), 2f64.powi(-24))
        };
        for r in 0..m {
            for c in 0..n {
                let mut a = xv[r * n + c];
                if bdt == S32 {
                    a += bv.as_ref().map_or(0.0, |b| b[c]);
                }
                let mut p = a * wv[c] * av.as_ref().map_or(1.0, |s| s[r]);
                if bdt != S32 {
                    p += bv.as_ref().map_or(0.0, |b| b[c]);
                }
                let g = yv[r * n + c];
                assert!(
                    (g - p).abs() <= rel * p.abs() + tiny,
                    "case {case} ({r},{c}) ws {wd} bias {:?}: got {g}, want {p}",
                    bias.as_ref().map(|_| bdt)
                );
            }
        }
    }
}

#[test]
fn dequant_bias_errors_name_the_problem() {
    let mut rng = Rng::new(0x51a);
    let x = Buf::new(S32, &[3, 4], layout(&mut rng), || 1.0);
    let ws = Buf::new(F32, &[4], layout(&mut rng), || 0.5);
    let y = Buf::new(F16, &[3, 4], layout(&mut rng), || 3.0);
    let bad_ws = Buf::new(F32, &[5], layout(&mut rng), || 0.5);
    let bad_as = Buf::new(F32, &[2], layout(&mut rng), || 0.5);
    let f16_as = Buf::new(F16, &[3], layout(&mut rng), || 0.5);
    let y_bf = Buf::new(BF16, &[3, 4], layout(&mut rng), || 3.0);
    let x_f = Buf::new(F32, &[3, 4], layout(&mut rng), || 1.0);
    let err = |x: &Buf, w: &Buf, a: Option<&Buf>, dt: i64, y: &Buf| {
        let ad = a.map(|a| a.desc());
        match quant::dequant_bias(&x.desc(), &w.desc(), ad.as_ref(), None, dt, &y.desc()) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    };
    assert!(err(&x_f, &ws, None, 1, &y).contains("'x'"));
    assert!(err(&x, &ws, None, 2, &y).contains("outputDtype 2"));
    assert!(err(&x, &ws, None, 27, &y_bf).contains("weightScale is"));
    assert!(err(&x, &bad_ws, None, 1, &y).contains("weightScale has length 5"));
    assert!(err(&x, &ws, Some(&bad_as), 1, &y).contains("activateScaleOptional has length 2"));
    assert!(err(&x, &ws, Some(&f16_as), 1, &y).contains("activateScaleOptional"));
}
