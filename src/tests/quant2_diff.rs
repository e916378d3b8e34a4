//! WeightQuantBatchMatmulV3 against an f64 loop (llm_diff's check_wqbmm, the bound of
//! WeightQuantBatchMatmulV2's doc comment) for both innerPrecise values, and its own
//! refusals (innerPrecise out of range, FRACTAL_NZ weights).

use super::add_diff::Rng;
use super::llm_diff::{check_wqbmm, grid, layout, out_unwritten, Buf};
use super::reduce_diff::run;
use crate::dtype::DType::*;
use crate::ops::llm;

#[test]
fn weight_quant_batch_matmul_v3_matches_an_f64_loop() {
    let mut rng = Rng::new(0x7c1);
    for case in 0..60 {
        let d = rng.pick(&[F16, BF16]);
        let (m, k, n) = (
            1 + rng.below(6) as usize,
            1 + rng.below(80) as usize,
            1 + rng.below(20) as usize,
        );
        let group = if k > 32 && rng.pct(40) {
            32 * (1 + rng.below(((k - 1) / 32) as u64) as usize)
        } else {
            0
        };
        let s_shape: Vec<usize> = if group > 0 {
            vec![k.div_ceil(group), n]
        } else if rng.pct(30) {
            vec![1]
        } else {
            vec![n]
        };
        let x = Buf::new(d, &[m, k], layout(&mut rng), || grid(&mut rng));
        let w = Buf::new(S8, &[k, n], layout(&mut rng), || {
            rng.below(256) as f64 - 128.0
        });
        let sc = Buf::new(d, &s_shape, layout(&mut rng), || {
            (1 + rng.below(64)) as f64 / 512.0
        });
        let off = rng
            .pct(40)
            .then(|| Buf::new(d, &s_shape, layout(&mut rng), || rng.below(16) as f64 - 8.0));
        let bias = rng.pct(40).then(|| {
            Buf::new(
                if d == BF16 { F32 } else { F16 },
                &[n],
                layout(&mut rng),
                || grid(&mut rng),
            )
        });
        let y = Buf::new(d, &[m, n], layout(&mut rng), || 3.0);
        let before = y.outside();
        let (od, bd) = (
            off.as_ref().map(|b| b.desc()),
            bias.as_ref().map(|b| b.desc()),
        );
        let inner_precise = (case % 2) as i64;
        let e = llm::weight_quant_batch_matmul_v3(
            &x.desc(),
            &w.desc(),
            &sc.desc(),
            od.as_ref(),
            None,
            None,
            bd.as_ref(),
            group as i64,
            inner_precise,
            &y.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(e.api, "aclnnWeightQuantBatchMatmulV3");
        run(&e).unwrap();
        out_unwritten(&format!("wqbmm v3 {case}"), &before, &y);
        let ov = off.as_ref().map(|o| o.values());
        let bv = bias.as_ref().map(|b| b.values());
        let what =
            format!("case {case} {d} group {group} scale {s_shape:?} innerPrecise {inner_precise}");
        let (xv, wv, sv) = (x.values(), w.values(), sc.values());
        check_wqbmm(
            &what,
            d,
            (m, k, n, group),
            (&xv, &wv, &sv),
            (&ov, &bv),
            &y.values(),
        );
    }
}

#[test]
fn weight_quant_batch_matmul_v3_errors_name_the_problem() {
    let mut rng = Rng::new(0x7c2);
    let x = Buf::new(F16, &[2, 32], layout(&mut rng), || grid(&mut rng));
    let w = Buf::new(S8, &[32, 32], layout(&mut rng), || 1.0);
    let sc = Buf::new(F16, &[32], layout(&mut rng), || 0.5);
    let y = Buf::new(F16, &[2, 32], layout(&mut rng), || 3.0);
    for bad in [2, -1] {
        let m = match llm::weight_quant_batch_matmul_v3(
            &x.desc(),
            &w.desc(),
            &sc.desc(),
            None,
            None,
            None,
            None,
            0,
            bad,
            &y.desc(),
        ) {
            Ok(_) => panic!("innerPrecise {bad} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(m.contains(&format!("innerPrecise is {bad}")), "{m}");
    }
    let mut wd = w.desc();
    wd.format = crate::format::Format::FRACTAL_NZ;
    let m = match llm::weight_quant_batch_matmul_v3(
        &x.desc(),
        &wd,
        &sc.desc(),
        None,
        None,
        None,
        None,
        0,
        1,
        &y.desc(),
    ) {
        Ok(_) => panic!("NZ accepted"),
        Err(e) => e.to_string(),
    };
    assert!(m.contains("FRACTAL_NZ") && m.contains("V3"), "{m}");
}
