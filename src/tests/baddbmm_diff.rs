//! Differential tests of Baddbmm, InplaceBaddbmm and Addmv against the f64 scalar-loop
//! reference of matmul_diff.rs (its model, reference and accuracy bound; self is indexed
//! right-aligned over the result, size-1 dims repeated).
//!
//! Rules (hicann/ops-nn aclnnBaddbmm&aclnnInplaceBaddbmm.md and aclnnAddmv.md, written here
//! from the docs, not from ops/matmul.rs):
//! - Baddbmm: `beta*self + alpha*(batch1@batch2)`, batch1 (b,n,m), batch2 (b,m,p), both 3-D,
//!   a batch of 1 broadcasting (not in InplaceBaddbmm); self of 1-3 dims broadcasting one way
//!   to (b,n,p); self and the product both empty or both non-empty; out (b,n,p); selfRef
//!   (b,n,p) (or (n,p) when b is 1); beta/alpha f32 f16 f64 s8 s16 s32 s64 u8 bool.
//! - Addmv: `beta*self + alpha*(mat@vec)`, mat (m,k) 2-D, vec (k) 1-D, out (m) 1-D, self 0-D
//!   or (m), or (1) when alpha is not 0; beta/alpha without bool; bf16 mixes with f16/f32.
//! - beta == 0: self is not read (NaN/inf there do not leak). f16/bf16 accumulate in f32:
//!   every element within (k+2)·2^-23·S plus one rounding into out (matmul_diff.rs).
//! - Errors are invalid-parameter errors (161002) whose message names the shapes.

use super::add_diff::{Rng, Sc};
use super::matmul_diff::{
    assert_ok, contig, gen_case, gen_view, invalid, model_dims, must, new_case, run_random, scal,
    sh, Op, Pool,
};
use crate::dtype::DType::*;
use crate::ops::matmul::{addmv, baddbmm, inplace_baddbmm};

#[test]
fn baddbmm_random() {
    run_random(0xbadd_0001, Op::Baddbmm, 400);
}

#[test]
fn inplace_baddbmm_random() {
    run_random(0xbadd_0002, Op::InplaceBaddbmm, 300);
}

#[test]
fn addmv_random() {
    run_random(0xbadd_0003, Op::Addmv, 400);
}

/// Every self shape that broadcasts one way to (3,2,4) works; the others are refused.
#[test]
fn baddbmm_self_broadcast_shapes() {
    let mut rng = Rng::new(41);
    let (b, n, m, p) = (3, 2, 5, 4);
    let good: &[&[usize]] = &[
        &[1],
        &[4],
        &[1, 4],
        &[2, 1],
        &[2, 4],
        &[1, 1, 1],
        &[3, 1, 4],
        &[1, 2, 4],
        &[3, 2, 1],
        &[3, 2, 4],
    ];
    for &s in good {
        for beta in [0.0, 1.5] {
            let mut case = new_case(
                Op::Baddbmm,
                gen_view(&mut rng, &[b, n, m], F32, 0, true),
                gen_view(&mut rng, &[1, m, p], F32, 1, true),
                Some(gen_view(&mut rng, s, F32, 2, true)),
                Some(contig(&[b, n, p], F32, 3)),
            );
            case.beta = scal(F32, beta);
            case.alpha = scal(S32, -2.0);
            assert_eq!(must(&case, &mut rng).elements, b * n * p, "self {s:?}");
        }
    }
    let mut pool = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let (b1, b2, out) = (
        pool.t(&[b, n, m], F32),
        pool.t(&[b, m, p], F32),
        pool.t(&[b, n, p], F32),
    );
    let bad: &[&[usize]] = &[
        &[3],
        &[2],
        &[2, 2, 4],
        &[3, 2, 4, 1],
        &[1, 3, 2, 4],
        &[3, 4],
        &[],
    ];
    for &s in bad {
        let m = invalid(
            baddbmm(&pool.t(s, F32), &b1, &b2, &one, &one, &out, 0),
            &format!("self {s:?}"),
        );
        assert!(m.contains(&sh(s)) && m.contains("[3, 2, 4]"), "{m}");
    }
    // The doc's example: self [2,3,5] does not broadcast to a [1,1,1] product.
    let m = invalid(
        baddbmm(
            &pool.t(&[2, 3, 5], F32),
            &pool.t(&[1, 1, 7], F32),
            &pool.t(&[1, 7, 1], F32),
            &one,
            &one,
            &pool.t(&[2, 3, 5], F32),
            0,
        ),
        "bidirectional broadcast",
    );
    assert!(m.contains("[2, 3, 5]"), "{m}");
}

#[test]
fn inplace_baddbmm_self_ref_shapes() {
    let mut rng = Rng::new(42);
    // (n,p) is accepted when the batch is 1.
    for beta in [0.0, -1.0] {
        let mut case = new_case(
            Op::InplaceBaddbmm,
            gen_view(&mut rng, &[1, 3, 6], F16, 0, true),
            gen_view(&mut rng, &[1, 6, 2], F16, 1, true),
            Some(gen_view(&mut rng, &[3, 2], F16, 2, false)),
            None,
        );
        case.beta = scal(F32, beta);
        assert_eq!(must(&case, &mut rng).elements, 6);
    }
    let mut pool = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let (b1, b2) = (pool.t(&[2, 3, 6], F32), pool.t(&[2, 6, 4], F32));
    for s in [&[3, 4][..], &[1, 3, 4], &[2, 1, 4], &[4], &[2, 3, 4, 1]] {
        let m = invalid(
            inplace_baddbmm(&pool.t(s, F32), &b1, &b2, &one, &one, 0),
            &format!("selfRef {s:?}"),
        );
        assert!(m.contains(&sh(s)), "{m}");
    }
    // No batch broadcast in place.
    let m = invalid(
        inplace_baddbmm(
            &pool.t(&[2, 3, 4], F32),
            &pool.t(&[1, 3, 6], F32),
            &b2,
            &one,
            &one,
            0,
        ),
        "inplace batch broadcast",
    );
    assert!(m.contains("[1, 3, 6]") && m.contains("[2, 6, 4]"), "{m}");
}

/// beta = 0: self full of NaN/inf is never read, whatever its dtype or shape.
#[test]
fn beta_zero_does_not_read_self() {
    let mut rng = Rng::new(43);
    for op in [Op::Baddbmm, Op::InplaceBaddbmm, Op::Addmv] {
        for _ in 0..40 {
            let mut case = gen_case(&mut rng, op);
            case.beta = scal(rng.pick(&[F32, S32, F64]), 0.0);
            // must() fills a beta-0 self with NaN and ±inf; the result must still match.
            must(&case, &mut rng);
        }
    }
}

/// f16/bf16 operands accumulate in f32: with k = 3000 an f16 (or bf16) running sum would miss
/// the bound of matmul_diff.rs by orders of magnitude.
#[test]
fn f16_bf16_accumulate_in_f32() {
    let mut rng = Rng::new(44);
    for d in [F16, BF16] {
        for od in [F32, d] {
            let mut case = new_case(
                Op::Baddbmm,
                gen_view(&mut rng, &[2, 3, 3000], d, 0, true),
                gen_view(&mut rng, &[2, 3000, 2], d, 1, true),
                Some(gen_view(&mut rng, &[2], d, 2, true)),
                Some(contig(&[2, 3, 2], od, 3)),
            );
            case.alpha = scal(F32, 0.75);
            must(&case, &mut rng);
            let mut case = new_case(
                Op::Addmv,
                gen_view(&mut rng, &[5, 3000], d, 0, true),
                gen_view(&mut rng, &[3000], d, 1, true),
                Some(gen_view(&mut rng, &[5], d, 2, true)),
                Some(contig(&[5], od, 3)),
            );
            case.beta = scal(F16, 0.5);
            must(&case, &mut rng);
        }
    }
}

#[test]
fn empty_dims() {
    let mut rng = Rng::new(45);
    // An empty product (b, n or p = 0) with an empty self: nothing written, no workspace.
    for (a, b, s) in [
        (&[0, 2, 3][..], &[0, 3, 4][..], &[0, 2, 4][..]),
        (&[2, 0, 3], &[2, 3, 4], &[2, 0, 4]),
        (&[2, 2, 3], &[1, 3, 0], &[0]),
        (&[1, 0, 3], &[0, 3, 4], &[1, 0, 1]),
    ] {
        let dims = model_dims(Op::Baddbmm, a, b).unwrap();
        let case = new_case(
            Op::Baddbmm,
            contig(a, F32, 0),
            contig(b, F16, 1),
            Some(contig(s, F32, 2)),
            Some(contig(&dims.out_shape(), BF16, 3)),
        );
        let o = must(&case, &mut rng);
        assert_eq!((o.workspace, o.elements), (0, 0), "{a:?}@{b:?}");
    }
    // k = 0: out = beta*self.
    for beta in [0.0, 2.0] {
        let mut case = new_case(
            Op::Baddbmm,
            contig(&[2, 3, 0], F32, 0),
            contig(&[2, 0, 4], F32, 1),
            Some(contig(&[3, 1], F64, 2)),
            Some(contig(&[2, 3, 4], F16, 3)),
        );
        case.beta = scal(F32, beta);
        assert_eq!(must(&case, &mut rng).elements, 24);
        let mut case = new_case(
            Op::InplaceBaddbmm,
            contig(&[2, 3, 0], F32, 0),
            contig(&[2, 0, 4], F32, 1),
            Some(contig(&[2, 3, 4], F32, 2)),
            None,
        );
        case.beta = scal(F32, beta);
        assert_eq!(must(&case, &mut rng).elements, 24);
        let mut case = new_case(
            Op::Addmv,
            contig(&[3, 0], F32, 0),
            contig(&[0], F32, 1),
            Some(contig(&[3], F32, 2)),
            Some(contig(&[3], F32, 3)),
        );
        case.beta = scal(F32, beta);
        assert_eq!(must(&case, &mut rng).elements, 3);
    }
    // Addmv with m = 0.
    let case = new_case(
        Op::Addmv,
        contig(&[0, 4], F32, 0),
        contig(&[4], F32, 1),
        Some(contig(&[0], F32, 2)),
        Some(contig(&[0], F32, 3)),
    );
    assert_eq!(must(&case, &mut rng).elements, 0);
    // Baddbmm: self must be empty exactly when the product is.
    let mut pool = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let m = invalid(
        baddbmm(
            &pool.t(&[1, 1, 1], F32),
            &pool.t(&[0, 2, 3], F32),
            &pool.t(&[0, 3, 4], F32),
            &one,
            &one,
            &pool.t(&[0, 2, 4], F32),
            0,
        ),
        "empty product, non-empty self",
    );
    assert!(m.contains("[1, 1, 1]") && m.contains("[0, 2, 4]"), "{m}");
}

/// An input that shares memory with InplaceBaddbmm's selfRef is read before it is written.
#[test]
fn inplace_baddbmm_reads_aliased_inputs_first() {
    let mut rng = Rng::new(46);
    for beta in [0.0, 1.0] {
        let mut case = new_case(
            Op::InplaceBaddbmm,
            contig(&[2, 4, 4], F32, 0),
            contig(&[2, 4, 4], F32, 1),
            Some(contig(&[2, 4, 4], F32, 0)),
            None,
        );
        case.beta = scal(F32, beta);
        must(&case, &mut rng);
    }
}

#[test]
fn baddbmm_errors_name_the_shapes() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let t = |p: &mut Pool, s: &[usize]| p.t(s, F32);
    // (self, batch1, batch2, out): each invalid for a shape reason.
    let cases: &[(&[usize], &[usize], &[usize], &[usize])] = &[
        (&[4], &[2, 3], &[2, 3, 4], &[2, 2, 4]),       // batch1 2-D
        (&[4], &[2, 2, 3], &[3, 4], &[2, 2, 4]),       // batch2 2-D
        (&[4], &[1, 2, 2, 3], &[2, 3, 4], &[2, 2, 4]), // batch1 4-D
        (&[4], &[2, 2, 3], &[2, 5, 4], &[2, 2, 4]),    // k mismatch
        (&[4], &[2, 2, 3], &[3, 3, 4], &[3, 2, 4]),    // batch sizes 2 and 3
        (&[4], &[2, 2, 3], &[2, 3, 4], &[2, 2, 5]),    // out shape
        (&[4], &[2, 2, 3], &[2, 3, 4], &[2, 4]),       // out rank
        (&[4], &[2, 2, 3], &[1, 3, 4], &[1, 2, 4]),    // out batch not broadcast
    ];
    for &(s, a, b, o) in cases {
        let m = invalid(
            baddbmm(
                &t(&mut p, s),
                &t(&mut p, a),
                &t(&mut p, b),
                &one,
                &one,
                &t(&mut p, o),
                0,
            ),
            &format!("{s:?} {a:?} {b:?} {o:?}"),
        );
        assert!(
            m.contains(&sh(a)) || m.contains(&sh(o)),
            "message names no shape: {m}"
        );
    }
    // A batch of 1 broadcasts (out of place).
    assert_ok(
        baddbmm(
            &t(&mut p, &[4]),
            &t(&mut p, &[1, 2, 3]),
            &t(&mut p, &[5, 3, 4]),
            &one,
            &one,
            &t(&mut p, &[5, 2, 4]),
            0,
        ),
        "batch1 of 1",
    );
}

#[test]
fn baddbmm_dtype_scalar_and_cube_errors() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let run = |p: &mut Pool, ds: [crate::dtype::DType; 4], beta: &Sc, cube: i64| {
        baddbmm(
            &p.t(&[4], ds[0]),
            &p.t(&[2, 2, 3], ds[1]),
            &p.t(&[2, 3, 4], ds[2]),
            &beta.to_scalar(),
            &one,
            &p.t(&[2, 2, 4], ds[3]),
            cube,
        )
    };
    let f1 = Sc::int(F32, 1);
    for (ds, what) in [
        ([F32, S32, S32, F32], "int batches"),
        ([F32, BF16, F32, F32], "bf16 with f32"),
        ([F16, BF16, BF16, F32], "f16 self with bf16 batches"),
        ([F32, F32, F32, S32], "f32 into an int out"),
        ([S64, F32, F32, F32], "int self"),
        ([F32, F32, F32, C64], "complex out"),
    ] {
        invalid(run(&mut p, ds, &f1, 0), what);
    }
    for cube in [-1, 5, 127] {
        let m = invalid(run(&mut p, [F32; 4], &f1, cube), "cubeMathType");
        assert!(m.contains("cubeMathType"), "{m}");
    }
    for d in [F32, F16, F64, S8, S16, S32, S64, U8, Bool] {
        assert_ok(
            run(&mut p, [F32; 4], &Sc::int(d, 1), 4),
            &format!("beta {d:?}"),
        );
    }
    for d in [U16, U32, U64, C64] {
        invalid(
            run(&mut p, [F32; 4], &Sc::int(d, 1), 0),
            &format!("beta {d:?}"),
        );
    }
    // bf16 throughout, and f16 batches into f32: accepted.
    assert_ok(run(&mut p, [BF16; 4], &f1, 0), "bf16");
    assert_ok(run(&mut p, [F16, F16, F16, F32], &f1, 0), "f16 into f32");
}

#[test]
fn addmv_errors() {
    let mut p = Pool(vec![]);
    let one = Sc::int(F32, 1).to_scalar();
    let zero = Sc::int(F32, 0).to_scalar();
    let t = |p: &mut Pool, s: &[usize]| p.t(s, F32);
    // (self, mat, vec, out, alpha is 0)
    let cases: &[(&[usize], &[usize], &[usize], &[usize], bool)] = &[
        (&[3, 1], &[3, 4], &[4], &[3], false), // self 2-D
        (&[3], &[1, 3, 4], &[4], &[3], false), // mat 3-D
        (&[3], &[3, 4], &[4, 1], &[3], false), // vec 2-D
        (&[3], &[3, 4], &[4], &[3, 1], false), // out 2-D
        (&[3], &[3, 4], &[5], &[3], false),    // k mismatch
        (&[2], &[3, 4], &[4], &[3], false),    // self size
        (&[1], &[3, 4], &[4], &[3], true),     // size-1 self with alpha 0
        (&[3], &[3, 4], &[4], &[4], false),    // out size
    ];
    for &(s, m_, v, o, alpha0) in cases {
        let alpha = if alpha0 { &zero } else { &one };
        let msg = invalid(
            addmv(
                &t(&mut p, s),
                &t(&mut p, m_),
                &t(&mut p, v),
                alpha,
                &one,
                &t(&mut p, o),
                0,
            ),
            &format!("{s:?} {m_:?} {v:?} {o:?}"),
        );
        assert!(
            msg.contains(&sh(m_)) || msg.contains(&sh(s)) || msg.contains(&sh(o)),
            "message names no shape: {msg}"
        );
    }
    for (s, alpha) in [(&[1][..], &one), (&[][..], &zero), (&[3][..], &zero)] {
        assert_ok(
            addmv(
                &t(&mut p, s),
                &t(&mut p, &[3, 4]),
                &t(&mut p, &[4]),
                alpha,
                &one,
                &t(&mut p, &[3]),
                0,
            ),
            &format!("self {s:?}"),
        );
    }
    // Dtypes: floats only here; bf16 mixes with f16 (promoted to f32); scalars without bool.
    let run = |p: &mut Pool, ds: [crate::dtype::DType; 4], beta: &Sc, cube: i64| {
        addmv(
            &p.t(&[3], ds[0]),
            &p.t(&[3, 4], ds[1]),
            &p.t(&[4], ds[2]),
            &one,
            &beta.to_scalar(),
            &p.t(&[3], ds[3]),
            cube,
        )
    };
    let f1 = Sc::int(F32, 1);
    assert_ok(run(&mut p, [F16, BF16, F16, F32], &f1, 1), "bf16 with f16");
    assert_ok(run(&mut p, [BF16, BF16, BF16, BF16], &f1, 0), "bf16");
    for (ds, what) in [
        ([F32, S32, S32, F32], "int mat/vec"),
        ([F32, F32, F32, S32], "f32 into an int out"),
        ([Bool, F32, F32, F32], "bool self"),
    ] {
        invalid(run(&mut p, ds, &f1, 0), what);
    }
    invalid(run(&mut p, [F32; 4], &Sc::int(Bool, 1), 0), "bool beta");
    invalid(run(&mut p, [F32; 4], &f1, 5), "cubeMathType 5");
}
