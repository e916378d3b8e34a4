//! Differential tests of Baddbmm, InplaceBaddbmm and Addmv against the f64 scalar-loop
//! reference of matmul_diff.rs (its model, reference and accuracy bound; self is indexed
//! right-aligned over the result, size-1 dims repeated).
//!
//! Rules (hicann/ops-nn aclnnBaddbmm&aclnnInplaceBaddbmm.md and aclnnAddmv.md, written here
//! from the docs, not from ops/matmul.rs):
//! - Baddbmm: `beta*self + alpha*(batch1@batch2)`, batch1 (b,n,m), batch2 (b,m,p), both 3-D,
//!   a batch of 1 broadcasting (not in InplaceBaddbmm); self of 1-3 dims broadcasting one way
//!   to (b,n,p); self and the product both empty or both non-empty; out (b,n,p); selfRef
//!   (b,n,p) (or (n,p) when b is 1); beta/alpha f32 f16 f64 s8 s16 s32 s64 u8 bool; tensors
//!   f32 f16 bf16 (no f64 on Atlas A2).
//! - Addmv: `beta*self + alpha*(mat@vec)`, mat (m,k) 2-D, vec (k) 1-D, out (m) 1-D, self 0-D
//!   or (m), or (1) when alpha is not 0; beta/alpha without bool; bf16 mixes with f16/f32.
//! - Addmv with integer or bool mat/vec (CANN's A2 `GetMulResult` path, `addmv_integer_*`):
//!   P1 = mat x vec, P2 = alpha x P1 unless alpha is 1, P3 = beta x self unless beta is 1,
//!   P = P2 x P3 must cast to out; prod = sum(mat*vec) in P1 wrapping (bool: any(mat and
//!   vec)), times alpha in P2 unless alpha is 1, present when alpha is not 0 and k > 0; the
//!   self term (beta*self in P3, or self; 0 in P3 when beta is 0) when there is no product
//!   or beta is not 0; their
//!   sum in P (bool: or), or the one term; converted to out.
//! - beta == 0: self is not read (NaN/inf there do not leak). f16/bf16 accumulate in f32:
//!   every element within (k+2)·2^-23·S plus one rounding into out (matmul_diff.rs).
//! - Errors are invalid-parameter errors (161002) whose message names the shapes.

use super::add_diff::{
    conv, decode, desc, kind, nice_bytes, ref_can_cast, ref_promote, round_float, run_exec, size,
    wrap, Buf, Rng, Sc, View, K, V,
};
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
            Some(contig(&[3, 1], F16, 2)),
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
        ([F32, F32, F32, S32], "f32 into an int out"),
        ([S64, F32, F32, F32], "int self"),
        ([F32, F32, F32, C64], "complex out"),
        ([F64, F32, F32, F32], "f64 self (no f64 on the A2 cube)"),
        ([F32, F64, F64, F32], "f64 batches"),
        ([F32, F32, F32, F64], "f64 out"),
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
    // bf16 throughout, bf16 mixed with f32/f16 (promoted to f32, as Atlas A2's cube rule
    // promotes it), and f16 batches into f32: accepted.
    assert_ok(run(&mut p, [BF16; 4], &f1, 0), "bf16");
    assert_ok(run(&mut p, [F32, BF16, F32, F32], &f1, 0), "bf16 with f32");
    assert_ok(
        run(&mut p, [F16, BF16, BF16, F32], &f1, 0),
        "f16 self with bf16 batches",
    );
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
    // Dtypes (the A2 code's list: floats, s8 s16 s32 s64 u8 and bool, for the tensors and
    // for alpha/beta); bf16 mixes with f16 (promoted to f32); alpha/beta join the promotion
    // when they are not 1.
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
        ([S8, S32, S16, S32], "int self, mat, vec, out"),
        ([Bool, Bool, Bool, Bool], "bool"),
        ([Bool, F32, F32, F32], "bool self"),
    ] {
        assert_ok(run(&mut p, ds, &f1, 0), what);
    }
    assert_ok(run(&mut p, [F32; 4], &Sc::int(Bool, 1), 0), "bool beta");
    assert_ok(run(&mut p, [F32; 4], &Sc::int(BF16, 2), 0), "bf16 beta");
    for (ds, what) in [
        ([F32, F32, F32, S32], "f32 into an int out"),
        ([S32, S32, S32, Bool], "s32 into a bool out"),
        ([F32, C64, C64, C64], "complex mat/vec"),
        ([F32, U16, U16, F32], "u16 mat/vec"),
        ([U32, F32, F32, F32], "u32 self"),
    ] {
        invalid(run(&mut p, ds, &f1, 0), what);
    }
    // A float beta (not 1) makes an integer self term float: an integer out is refused.
    invalid(
        run(&mut p, [S32, S32, S32, S32], &Sc::f64(F32, 0.5), 0),
        "f32 beta with an s32 out",
    );
    invalid(run(&mut p, [F32; 4], &Sc::int(U16, 1), 0), "u16 beta");
    invalid(run(&mut p, [F32; 4], &f1, 5), "cubeMathType 5");
}

// ---------------------------------------------------------------------------------------
// Addmv with integer and bool mat/vec, against a plain loop
// ---------------------------------------------------------------------------------------

/// `a op b` in dtype `p` (both converted to p first): integers wrap, floats are the exact
/// result rounded once to p (f16/bf16/f32 products and sums of two values of p are
/// correctly rounded when computed in f32 or f64), bool as or (add) / and (mul).
fn mv_op(p: crate::dtype::DType, a: V, b: V, add: bool) -> V {
    match (conv(a, p), conv(b, p)) {
        (V::B(x), V::B(y)) => V::B(if add { x || y } else { x && y }),
        (V::I(x), V::I(y)) => V::I(wrap(if add { x + y } else { x * y }, p)),
        (V::F(x), V::F(y)) => V::F(round_float(if add { x + y } else { x * y }, p)),
        (x, y) => panic!("mv_op {x:?} {y:?} in {p:?}"),
    }
}

fn as_f32(v: V) -> f32 {
    match v {
        V::B(b) => b as u8 as f32,
        V::I(i) => i as f32,
        V::F(x) => x as f32,
        V::C(..) => panic!("complex scalar"),
    }
}

/// The expected out of an integer/bool Addmv (None: refused), from the rules in the module
/// comment. `self_v` holds self's values (1 or m of them), `mat_v` m*k row-major.
#[allow(clippy::too_many_arguments)]
fn ref_int_addmv(
    dt: [crate::dtype::DType; 4],
    (m, k): (usize, usize),
    self_v: &[V],
    mat_v: &[V],
    vec_v: &[V],
    alpha: &Sc,
    beta: &Sc,
) -> Option<Vec<V>> {
    let [ds, dm, dv, dout] = dt;
    let (al, be) = (alpha.value(), beta.value());
    let one = |v: V| (as_f32(v) - 1.0).abs() <= f32::EPSILON;
    let zero = |v: V| as_f32(v).abs() <= f32::EPSILON;
    let p1 = ref_promote(dm, dv)?;
    let p2 = if one(al) {
        p1
    } else {
        ref_promote(alpha.dtype, p1)?
    };
    let p3 = if one(be) {
        ds
    } else {
        ref_promote(beta.dtype, ds)?
    };
    let p = ref_promote(p3, p2)?;
    if !ref_can_cast(p, dout) {
        return None;
    }
    let has_prod = !zero(al) && k > 0;
    let has_self = !has_prod || !zero(be);
    Some(
        (0..m)
            .map(|i| {
                let prod = has_prod.then(|| {
                    let x = if p1 == Bool {
                        V::B((0..k).any(|j| {
                            conv(mat_v[i * k + j], Bool) == V::B(true)
                                && conv(vec_v[j], Bool) == V::B(true)
                        }))
                    } else {
                        let sum: i128 = (0..k)
                            .map(|j| match (conv(mat_v[i * k + j], p1), conv(vec_v[j], p1)) {
                                (V::I(a), V::I(b)) => a * b,
                                other => panic!("{other:?}"),
                            })
                            .sum();
                        V::I(wrap(sum, p1))
                    };
                    if one(al) {
                        x
                    } else {
                        mv_op(p2, x, al, false)
                    }
                });
                let term = has_self.then(|| {
                    let x = self_v[if self_v.len() == 1 { 0 } else { i }];
                    if zero(be) {
                        // beta 0 without a product: 0, self not read (a NaN there stays out)
                        conv(V::I(0), p3)
                    } else if one(be) {
                        x
                    } else {
                        mv_op(p3, x, be, false)
                    }
                });
                let r = match (prod, term) {
                    (Some(a), Some(b)) => mv_op(p, b, a, true),
                    (Some(a), None) => a,
                    (None, Some(b)) => b,
                    (None, None) => unreachable!(),
                };
                conv(r, dout)
            })
            .collect(),
    )
}

fn same_v(a: V, b: V) -> bool {
    match (a, b) {
        (V::F(x), V::F(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// Integer and bool Addmv (hicann/ops-nn aclnnAddmv.md lists s8 s16 s32 s64 u8 bool; the
/// A2 code computes them with Mul + ReduceSum, or LogicalAnd + ReduceAny for bool) against
/// the plain loop above: random dtypes of mat, vec, self, out, alpha and beta (alpha/beta
/// 0, 1 or other values, folded into the promotion when not 1), full-range integer values
/// (wrapping), strided and transposed views, 0-d and size-1 self, k = 0.
#[test]
fn addmv_integer_and_bool_match_a_plain_loop() {
    use crate::dtype::DType;
    let mut rng = Rng::new(0xadd_0a11);
    const INTS: [DType; 6] = [S8, U8, S16, S32, S64, Bool];
    const ALL: [DType; 10] = [F32, F16, BF16, F64, S8, U8, S16, S32, S64, Bool];
    let (mut ran, mut refused) = (0, 0);
    for case in 0..1500 {
        let (m, k) = (1 + rng.below(6) as usize, rng.below(7) as usize);
        let dm = rng.pick(&INTS);
        let dv = if rng.pct(60) { dm } else { rng.pick(&INTS) };
        let ds = if rng.pct(70) {
            rng.pick(&INTS)
        } else {
            rng.pick(&ALL)
        };
        let dout = rng.pick(&ALL);
        let scalar = |rng: &mut Rng| {
            let d = rng.pick(&[S32, S64, S8, U8, S16, Bool, F32, F64, F16, BF16]);
            match rng.below(5) {
                0 => Sc::int(d, 0),
                1 | 2 => Sc::int(d, 1),
                _ if d == Bool => Sc::int(d, rng.below(2) as i64),
                _ if d == U8 => Sc::int(d, 3),
                _ => Sc::int(d, rng.pick(&[2, -3, 5])),
            }
        };
        let (alpha, beta) = (scalar(&mut rng), scalar(&mut rng));
        let self_shape: Vec<usize> = match rng.below(4) {
            0 => vec![],
            1 if as_f32(alpha.value()) != 0.0 => vec![1],
            _ => vec![m],
        };
        let transposed = rng.pct(40);
        // Views: mat (m,k) row-major or transposed; vec and out with a stride of 1 or 2.
        let mat_view = View {
            shape: vec![m, k],
            strides: if transposed { vec![1, m] } else { vec![k, 1] },
            offset: rng.below(3) as usize,
            dtype: dm,
            storage: 0,
        };
        let vs = 1 + rng.below(2) as usize;
        let vec_view = View {
            shape: vec![k],
            strides: vec![vs],
            offset: 0,
            dtype: dv,
            storage: 1,
        };
        let self_view = View::contiguous(&self_shape, ds, 2);
        let os = 1 + rng.below(2) as usize;
        let out_view = View {
            shape: vec![m],
            strides: vec![os],
            offset: 1,
            dtype: dout,
            storage: 3,
        };
        let elems = |v: &View| {
            v.offset
                + v.shape
                    .iter()
                    .zip(&v.strides)
                    .map(|(d, s)| d.saturating_sub(1) * s)
                    .sum::<usize>()
                + 1
        };
        let mut bufs: Vec<Buf> = [&mat_view, &vec_view, &self_view, &out_view]
            .iter()
            .map(|v| Buf::new(elems(v) * size(v.dtype) + 8))
            .collect();
        let fill = |b: &mut Buf, d: DType, rng: &mut Rng| {
            let n = b.bytes().len() / size(d);
            for e in 0..n {
                let x = if kind(d) == K::Float {
                    // small halves: exact in every float format
                    let v = (rng.below(17) as f64 - 8.0) * 0.5;
                    crate::scalar::Scalar::from_value(v).cast(d)
                } else {
                    crate::scalar::Scalar::from_bytes(d, &nice_bytes(rng, d))
                };
                b.bytes_mut()[e * size(d)..(e + 1) * size(d)].copy_from_slice(x.bytes());
            }
        };
        fill(&mut bufs[0], dm, &mut rng);
        fill(&mut bufs[1], dv, &mut rng);
        fill(&mut bufs[2], ds, &mut rng);
        let read = |b: &Buf, v: &View, e: usize| decode(v.dtype, &b.bytes()[e * size(v.dtype)..]);
        let mat_v: Vec<V> = (0..m * k)
            .map(|x| {
                let (i, j) = (x / k, x % k);
                read(
                    &bufs[0],
                    &mat_view,
                    mat_view.offset + i * mat_view.strides[0] + j * mat_view.strides[1],
                )
            })
            .collect();
        let vec_v: Vec<V> = (0..k).map(|j| read(&bufs[1], &vec_view, j * vs)).collect();
        let self_v: Vec<V> = (0..self_view.numel().max(1))
            .map(|i| read(&bufs[2], &self_view, i))
            .collect();
        let want = ref_int_addmv(
            [ds, dm, dv, dout],
            (m, k),
            &self_v,
            &mat_v,
            &vec_v,
            &alpha,
            &beta,
        );
        let r = addmv(
            &desc(&self_view, &bufs[2]).unwrap(),
            &desc(&mat_view, &bufs[0]).unwrap(),
            &desc(&vec_view, &bufs[1]).unwrap(),
            &alpha.to_scalar(),
            &beta.to_scalar(),
            &desc(&out_view, &bufs[3]).unwrap(),
            rng.below(5) as i64,
        );
        let what = format!(
            "case {case}: self {ds:?} {self_shape:?}, mat {dm:?} ({m},{k}) transposed {transposed}, vec {dv:?}, \
             out {dout:?}, alpha {:?} {:?}, beta {:?} {:?}",
            alpha.dtype,
            alpha.value(),
            beta.dtype,
            beta.value()
        );
        let Some(want) = want else {
            invalid(r, &what);
            refused += 1;
            continue;
        };
        let exec = r.unwrap_or_else(|e| panic!("{what}: refused: {e}"));
        run_exec(&exec).unwrap();
        for i in 0..m {
            let got = read(&bufs[3], &out_view, out_view.offset + i * os);
            assert!(
                same_v(got, want[i]),
                "{what}: out[{i}] = {got:?}, want {:?}\n mat {mat_v:?}\n vec {vec_v:?}\n self {self_v:?}",
                want[i]
            );
        }
        ran += 1;
    }
    assert!(ran > 600 && refused > 100, "ran {ran}, refused {refused}");
}

/// Hand-computed integer and bool Addmv values: wrapping in s8, alpha/beta folded into
/// the promotion (an s64 alpha makes an s8 product s64; a float alpha makes it float and
/// an integer out is then refused), bool as logical or/and, beta = 0 without reading self.
#[test]
fn addmv_integer_named_cases() {
    use crate::dtype::DType;
    fn t(
        keep: &mut Vec<Buf>,
        d: DType,
        shape: &[usize],
        vals: &[f64],
    ) -> (crate::tensor::TensorDesc, usize) {
        let v = View::contiguous(shape, d, 0);
        let mut b = Buf::new(v.numel().max(1) * size(d) + 8);
        for (e, &x) in vals.iter().enumerate() {
            let s = crate::scalar::Scalar::from_value(x).cast(d);
            b.bytes_mut()[e * size(d)..(e + 1) * size(d)].copy_from_slice(s.bytes());
        }
        let desc = desc(&v, &b).unwrap();
        keep.push(b);
        (desc, keep.len() - 1)
    }
    let mut keep = Vec::new();
    // mat s8 (2,3), vec s8 (3): row sums 100*1 + 100*1 + 100*1 = 300 -> 44 in s8.
    let (mat, _) = t(
        &mut keep,
        S8,
        &[2, 3],
        &[100.0, 100.0, 100.0, 1.0, 2.0, 3.0],
    );
    let (vec, _) = t(&mut keep, S8, &[3], &[1.0, 1.0, 1.0]);
    let (self8, _) = t(&mut keep, S8, &[2], &[1.0, -1.0]);
    let (out8, o8) = t(&mut keep, S8, &[2], &[0.0, 0.0]);
    let (out64, o64) = t(&mut keep, S64, &[2], &[0.0, 0.0]);
    let (outf, of) = t(&mut keep, F32, &[2], &[0.0, 0.0]);
    let one = Sc::int(S8, 1).to_scalar();
    let e = addmv(&self8, &mat, &vec, &one, &one, &out8, 0).unwrap();
    run_exec(&e).unwrap();
    drop(e);
    let rd = |keep: &Vec<Buf>, i: usize, d: DType| -> Vec<V> {
        (0..2)
            .map(|e| decode(d, &keep[i].bytes()[e * size(d)..]))
            .collect()
    };
    assert_eq!(
        rd(&keep, o8, S8),
        vec![V::I(45), V::I(5)],
        "s8 wraps: 300 + 1 = 45"
    );
    // An s64 alpha 2 (not 1): the product is s64 (300 -> 44 first, in s8), 44*2 + 1 = 89.
    let e = addmv(
        &self8,
        &mat,
        &vec,
        &Sc::int(S64, 2).to_scalar(),
        &one,
        &out64,
        0,
    )
    .unwrap();
    run_exec(&e).unwrap();
    assert_eq!(rd(&keep, o64, S64), vec![V::I(89), V::I(11)]);
    // A float alpha 0.5: the product is f32 (44 * 0.5), an s8 out is refused.
    let half = Sc::f64(F32, 0.5).to_scalar();
    let e = addmv(&self8, &mat, &vec, &half, &one, &outf, 0).unwrap();
    run_exec(&e).unwrap();
    assert_eq!(rd(&keep, of, F32), vec![V::F(23.0), V::F(2.0)]);
    invalid(
        addmv(&self8, &mat, &vec, &half, &one, &out8, 0),
        "f32 result into s8",
    );
    // beta = 0: self is not used; alpha = 0: only beta*self.
    let zero = Sc::int(S32, 0).to_scalar();
    let e = addmv(&self8, &mat, &vec, &one, &zero, &out64, 0).unwrap();
    run_exec(&e).unwrap();
    assert_eq!(rd(&keep, o64, S64), vec![V::I(44), V::I(6)]);
    let e = addmv(
        &self8,
        &mat,
        &vec,
        &zero,
        &Sc::int(S32, -3).to_scalar(),
        &out64,
        0,
    )
    .unwrap();
    run_exec(&e).unwrap();
    assert_eq!(rd(&keep, o64, S64), vec![V::I(-3), V::I(3)]);
    // bool: out = self or any(mat and vec).
    let (bm, _) = t(&mut keep, Bool, &[2, 2], &[1.0, 0.0, 0.0, 0.0]);
    let (bv, _) = t(&mut keep, Bool, &[2], &[1.0, 1.0]);
    let (bs, _) = t(&mut keep, Bool, &[2], &[0.0, 0.0]);
    let (bo, ob) = t(&mut keep, Bool, &[2], &[0.0, 0.0]);
    let tr = Sc::int(Bool, 1).to_scalar();
    let e = addmv(&bs, &bm, &bv, &tr, &tr, &bo, 0).unwrap();
    run_exec(&e).unwrap();
    assert_eq!(rd(&keep, ob, Bool), vec![V::B(true), V::B(false)]);
    // An s32 alpha 2 on a bool product makes it s32: a bool out is refused.
    invalid(
        addmv(&bs, &bm, &bv, &Sc::int(S32, 2).to_scalar(), &tr, &bo, 0),
        "s32 result into bool",
    );
}
