//! OneHot and ChunkCat against plain loops of their definitions, on random shapes, axes,
//! views (row gaps, transposed storage, offsets) and dtypes. Both move values: exact (the
//! values are on a 1/64 grid, exact in every dtype here, so ChunkCat's casts are too).
//! Outputs are checked not to be written outside their views.

use super::add_diff::Rng;
use super::llm_diff::{grid, layout, out_unwritten, Buf};
use super::reduce_diff::run;
use crate::dtype::DType::*;
use crate::ops::{create, join};

#[test]
fn one_hot_matches_a_loop_over_classes_with_out_of_range_classes_all_off() {
    let mut rng = Rng::new(0x0e17);
    for case in 0..120 {
        let rank = rng.below(4) as usize;
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(5) as usize).collect();
        let classes = rng.below(7) as i32 + (case == 0) as i32;
        let sd = rng.pick(&[S32, S64]);
        // Classes from -2 to classes + 1: some outside the range.
        let self_ = Buf::new(sd, &shape, layout(&mut rng), || {
            rng.below(classes as u64 + 4) as f64 - 2.0
        });
        let od = rng.pick(&[F16, F32, S32, S64]);
        let on_shape: Vec<usize> = (0..rng.below(3))
            .map(|_| 1 + rng.below(3) as usize)
            .collect();
        let on = Buf::new(od, &on_shape, layout(&mut rng), || 7.0);
        let off = Buf::new(od, &[2], layout(&mut rng), || -3.0);
        let axis = rng.below(rank as u64 + 2) as i64 - 1;
        let ax = if axis < 0 { rank } else { axis as usize };
        let mut oshape = shape.clone();
        oshape.insert(ax, classes as usize);
        let out = Buf::new(od, &oshape, layout(&mut rng), || 99.0);
        let before = out.outside();
        let e = create::one_hot(
            &self_.desc(),
            classes,
            &on.desc(),
            &off.desc(),
            axis,
            &out.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(e.api, "aclnnOneHot");
        run(&e).unwrap();
        out_unwritten(&format!("one hot {case}"), &before, &out);
        if classes == 0 {
            continue;
        }
        let (sv, ov) = (self_.values(), out.values());
        let (onv, offv) = (on.values()[0], off.values()[0]);
        let inner: usize = shape[ax..].iter().product();
        for (k, &g) in ov.iter().enumerate() {
            // out index (outer, j, inner) ↔ self index (outer, inner).
            let (o, rest) = (
                k / (classes as usize * inner),
                k % (classes as usize * inner),
            );
            let (j, i) = (rest / inner, rest % inner);
            let want = if sv[o * inner + i] == j as f64 {
                onv
            } else {
                offv
            };
            assert_eq!(
                g,
                want,
                "case {case} out[{k}] (class {j}) self {}",
                sv[o * inner + i]
            );
        }
    }
}

#[test]
fn one_hot_errors_name_the_problem() {
    let mut rng = Rng::new(0x0e18);
    let s = Buf::new(S64, &[3], layout(&mut rng), || 1.0);
    let on = Buf::new(F32, &[1], layout(&mut rng), || 1.0);
    let off = Buf::new(F32, &[1], layout(&mut rng), || 0.0);
    let on16 = Buf::new(F16, &[1], layout(&mut rng), || 1.0);
    let empty_on = Buf::new(F32, &[0], layout(&mut rng), || 1.0);
    let out = Buf::new(F32, &[3, 4], layout(&mut rng), || 0.0);
    let bad = Buf::new(F32, &[3, 5], layout(&mut rng), || 0.0);
    let fs = Buf::new(F32, &[3], layout(&mut rng), || 1.0);
    let flat = Buf::new(F32, &[12], layout(&mut rng), || 0.0);
    let err = |s: &Buf, n: i32, on: &Buf, axis: i64, out: &Buf| match create::one_hot(
        &s.desc(),
        n,
        &on.desc(),
        &off.desc(),
        axis,
        &out.desc(),
    ) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(err(&fs, 4, &on, -1, &out).contains("'self'"));
    assert!(err(&s, 4, &on16, -1, &out).contains("onValue has dtype"));
    assert!(err(&s, 4, &empty_on, -1, &out).contains("onValue is empty"));
    assert!(err(&s, -1, &on, -1, &out).contains("numClasses is -1"));
    assert!(err(&s, 4, &on, -2, &out).contains("axis is -2"));
    assert!(err(&s, 4, &on, 2, &out).contains("axis is 2"));
    assert!(err(&s, 4, &on, -1, &bad).contains("numClasses 4 inserted"));
    assert!(err(&s, 4, &on, -1, &flat).contains("dims but must have one more"));
}

#[test]
fn chunk_cat_matches_torch_chunk_cat_definition_with_zero_padding() {
    let mut rng = Rng::new(0xc4c);
    for case in 0..120 {
        let n = 1 + rng.below(5) as usize;
        let d = rng.pick(&[F32, F16, BF16]);
        let od = if d == F32 {
            F32
        } else {
            rng.pick(&[F32, F16, BF16])
        };
        let members: Vec<Buf> = (0..rng.below(4) as usize + (case == 0) as usize)
            .map(|_| {
                let rank = 1 + rng.below(3) as usize;
                let mut shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(6) as usize).collect();
                if rng.pct(10) {
                    shape[0] = 0;
                }
                Buf::new(d, &shape, layout(&mut rng), || grid(&mut rng))
            })
            .collect();
        let live: Vec<&Buf> = members.iter().filter(|m| !m.shape.contains(&0)).collect();
        let width: usize = live
            .iter()
            .map(|m| m.shape[0].div_ceil(n) * m.shape[1..].iter().product::<usize>())
            .sum();
        let out = Buf::new(od, &[n, width], layout(&mut rng), || 99.0);
        let before = out.outside();
        let descs: Vec<_> = members.iter().map(|m| m.desc()).collect();
        let refs: Vec<_> = descs.iter().collect();
        let e = join::chunk_cat(&refs, 0, n as i64, &out.desc())
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        out_unwritten(&format!("chunk cat {case}"), &before, &out);
        if members.is_empty() || live.is_empty() {
            continue;
        }
        let got = out.values();
        let mut col = 0;
        for m in &live {
            let v = m.values();
            let r: usize = m.shape[1..].iter().product();
            let rows = m.shape[0].div_ceil(n);
            for c in 0..n {
                for k in 0..rows * r {
                    let row = c * rows + k / r;
                    let want = if row < m.shape[0] {
                        v[row * r + k % r]
                    } else {
                        0.0
                    };
                    assert_eq!(
                        got[c * width + col + k],
                        want,
                        "case {case} chunk {c} element {k} of a member of shape {:?}",
                        m.shape
                    );
                }
            }
            col += rows * r;
        }
    }
}

#[test]
fn chunk_cat_errors_name_the_problem() {
    let mut rng = Rng::new(0xc4d);
    let a = Buf::new(F16, &[4, 2], layout(&mut rng), || 1.0);
    let b = Buf::new(F32, &[4, 2], layout(&mut rng), || 1.0);
    let i = Buf::new(S32, &[4, 2], layout(&mut rng), || 1.0);
    let out = Buf::new(F16, &[2, 4], layout(&mut rng), || 0.0);
    let out_bad = Buf::new(F16, &[2, 5], layout(&mut rng), || 0.0);
    let err = |t: &[&Buf], dim: i64, n: i64, out: &Buf| {
        let d: Vec<_> = t.iter().map(|m| m.desc()).collect();
        let r: Vec<_> = d.iter().collect();
        match join::chunk_cat(&r, dim, n, &out.desc()) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    };
    assert!(err(&[&a], 1, 2, &out).contains("only dim 0"));
    assert!(err(&[&i], 0, 2, &out).contains("tensors[0] has dtype"));
    assert!(err(&[&a, &b], 0, 2, &out).contains("tensors[1] has dtype"));
    assert!(err(&[&b], 0, 2, &out).contains("must be FLOAT"));
    assert!(err(&[&a], 0, 0, &out).contains("numChunks is 0"));
    assert!(err(&[&a], 0, 2, &out_bad).contains("give [2, 4]"));
}
