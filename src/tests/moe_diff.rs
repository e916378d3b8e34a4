//! The MoE routing operators (src/ops/llm/moe.rs) on host memory through their rules:
//! random shapes, dtypes and views (row gaps, transposed storage, offsets) against plain
//! f64 loops written from CANN's formulas, with the bounds the module states; outputs
//! checked not to write outside their views; run-time index refusals write nothing;
//! error cases name the problem.

use super::add_diff::Rng;
use super::llm_diff::{grid, half_ulp, layout, out_unwritten, Buf, Layout};
use super::reduce_diff::run;
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm::moe;

fn float(rng: &mut Rng) -> DType {
    rng.pick(&[F32, F16, BF16])
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// A view of `shape` in `layout` holding `values` (row-major), -7 in its gaps.
pub(super) fn holding(d: DType, shape: &[usize], layout: Layout, values: &[f64]) -> Buf {
    // The same layout filled with storage positions tells where each element lives.
    let mut next = 0.0;
    let probe = Buf::new(F64, shape, layout, || {
        next += 1.0;
        next - 1.0
    });
    let mut storage = vec![-7.0; probe.strides.len() + 1];
    for (v, at) in values.iter().zip(probe.values()) {
        let at = at as usize;
        if storage.len() <= at {
            storage.resize(at + 1, -7.0);
        }
        storage[at] = *v;
    }
    let mut i = 0;
    Buf::new(d, shape, layout, || {
        i += 1;
        storage.get(i - 1).copied().unwrap_or(-7.0)
    })
}

/// An index buffer holding `values` (row-major) in a random layout.
fn ints(rng: &mut Rng, shape: &[usize], values: &[i64]) -> Buf {
    let v: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    holding(S32, shape, layout(rng), &v)
}

fn ints_at(shape: &[usize], values: &[i64]) -> Buf {
    let v: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    holding(S32, shape, Layout::Contiguous, &v)
}

/// f64 softmax of a row.
fn softmax64(v: &[f64]) -> Vec<f64> {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = v.iter().map(|x| (x - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

/// The indices of the k largest, largest first, ties in index order.
fn top_k64(v: &[f64], k: usize) -> Vec<usize> {
    let mut o: Vec<usize> = (0..v.len()).collect();
    o.sort_by(|&a, &b| v[b].partial_cmp(&v[a]).unwrap());
    o.truncate(k);
    o
}

/// Distinct logits: a shuffled grid, so the top k is unambiguous.
fn distinct_logits(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = (0..n).map(|i| (i as f64 - n as f64 / 2.0) / 8.0).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

#[test]
fn gating_top_k_softmax_matches_an_f64_softmax_and_top_k() {
    let mut rng = Rng::new(0x6a7e);
    for case in 0..160 {
        let d = float(&mut rng);
        let v2 = rng.pct(50);
        let three = rng.pct(30);
        let e = 1 + rng.below(40) as usize;
        let k = 1 + rng.below(e as u64) as usize;
        let lead: Vec<usize> = if three {
            vec![rng.below(4) as usize, 1 + rng.below(5) as usize]
        } else {
            vec![rng.below(9) as usize]
        };
        let rows: usize = lead.iter().product();
        let mut xshape = lead.clone();
        xshape.push(e);
        let mut oshape = lead.clone();
        oshape.push(k);
        let logits: Vec<f64> = (0..rows)
            .flat_map(|_| distinct_logits(&mut rng, e))
            .collect();
        let x = holding(d, &xshape, layout(&mut rng), &logits);
        let fin: Vec<i64> = (0..rows).map(|_| rng.pct(25) as i64).collect();
        let fin_f: Vec<f64> = fin.iter().map(|&v| v as f64).collect();
        let finished = rng
            .pct(50)
            .then(|| holding(Bool, &lead, layout(&mut rng), &fin_f));
        let y = Buf::new(d, &oshape, layout(&mut rng), || 9.0);
        let idx = Buf::new(S32, &oshape, layout(&mut rng), || 9.0);
        let third_f = Buf::new(F32, &xshape, layout(&mut rng), || 9.0);
        let third_i = Buf::new(S32, &oshape, layout(&mut rng), || 9.0);
        let renorm = v2 && rng.pct(50);
        let flag = v2 && rng.pct(50);
        let before = [
            y.outside(),
            idx.outside(),
            third_f.outside(),
            third_i.outside(),
        ];
        let fd = finished.as_ref().map(|b| b.desc());
        let ex = if v2 {
            moe::gating_top_k_softmax_v2(
                &x.desc(),
                fd.as_ref(),
                k as i64,
                renorm as i64,
                flag,
                &y.desc(),
                &idx.desc(),
                Some(&third_f.desc()),
            )
        } else {
            moe::gating_top_k_softmax(
                &x.desc(),
                fd.as_ref(),
                k as i64,
                &y.desc(),
                &idx.desc(),
                &third_i.desc(),
            )
        }
        .unwrap();
        run(&ex).unwrap();
        let what = format!("case {case} {d} v2 {v2} renorm {renorm} {xshape:?} k {k}");
        let xv = x.values();
        let (yv, iv) = (y.values(), idx.values());
        for r in 0..rows {
            let row = &xv[r * e..(r + 1) * e];
            let p = softmax64(row);
            let top = top_k64(row, k);
            let want: Vec<f64> = if renorm {
                softmax64(&top.iter().map(|&i| row[i]).collect::<Vec<_>>())
            } else {
                top.iter().map(|&i| p[i]).collect()
            };
            let done = finished.is_some() && fin[r] != 0;
            for j in 0..k {
                let got = yv[r * k + j];
                let tol = want[j] * 2f64.powi(-21) + half_ulp(d, want[j]) * 1.01;
                assert!(
                    (got - want[j]).abs() <= tol,
                    "{what}: y[{r}][{j}] = {got}, want {} ± {tol}",
                    want[j]
                );
                let want_i = if done { e } else { top[j] };
                assert_eq!(iv[r * k + j], want_i as f64, "{what}: expertIdx[{r}][{j}]");
                if !v2 {
                    assert_eq!(
                        third_i.values()[r * k + j],
                        (j * rows + r) as f64,
                        "{what}: rowIdx[{r}][{j}]"
                    );
                }
            }
            if v2 && flag && !renorm {
                let s = third_f.values();
                for c in 0..e {
                    assert!(
                        (s[r * e + c] - p[c]).abs() <= p[c] * 2f64.powi(-21),
                        "{what}: softmax[{r}][{c}] = {}, want {}",
                        s[r * e + c],
                        p[c]
                    );
                }
            }
        }
        out_unwritten(&what, &before[0], &y);
        out_unwritten(&what, &before[1], &idx);
        out_unwritten(&what, &before[2], &third_f);
        out_unwritten(&what, &before[3], &third_i);
        if !(v2 && flag && !renorm) {
            assert!(
                third_f.values().iter().all(|&v| v == 9.0),
                "{what}: softmax written"
            );
        }
    }
}

#[test]
fn gating_top_k_breaks_ties_by_expert_and_takes_nan_first() {
    let x = holding(
        F32,
        &[2, 4],
        Layout::Contiguous,
        &[1.0, 2.0, 2.0, 1.0, 0.5, f64::NAN, 0.5, 3.0],
    );
    let y = Buf::new(F32, &[2, 3], Layout::Contiguous, || 0.0);
    let idx = Buf::new(S32, &[2, 3], Layout::Contiguous, || 0.0);
    let e =
        moe::gating_top_k_softmax_v2(&x.desc(), None, 3, 1, false, &y.desc(), &idx.desc(), None)
            .unwrap();
    run(&e).unwrap();
    assert_eq!(idx.values(), [1.0, 2.0, 0.0, 1.0, 3.0, 0.0]);
}

/// The stable sort by expert, written out: for each expert ascending, its positions in order.
fn dispatch_order(experts: &[i64]) -> Vec<usize> {
    let mut distinct: Vec<i64> = experts.to_vec();
    distinct.sort();
    distinct.dedup();
    distinct
        .iter()
        .flat_map(|&e| (0..experts.len()).filter(move |&p| experts[p] == e))
        .collect()
}

#[test]
fn init_routing_sorts_stably_and_gathers_rows_bit_for_bit() {
    let mut rng = Rng::new(0x1417);
    for case in 0..150 {
        let d = float(&mut rng);
        let (n, k, h) = (
            rng.below(12) as usize,
            1 + rng.below(4) as usize,
            rng.below(9) as usize,
        );
        let experts_n = 1 + rng.below(6) as i64;
        let x = Buf::new(d, &[n, h], layout(&mut rng), || grid(&mut rng));
        let expert: Vec<i64> = (0..n * k)
            .map(|_| rng.below(experts_n as u64) as i64)
            .collect();
        // The gating's slot-major rowIdx, or any permutation of 0..n·k.
        let mut row: Vec<i64> = (0..n * k).map(|p| ((p % k) * n + p / k) as i64).collect();
        if rng.pct(40) {
            for i in (1..row.len()).rev() {
                row.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        let ei = ints(&mut rng, &[n, k], &expert);
        let ri = ints(&mut rng, &[n, k], &row);
        let active = rng.pick(&[0, 1, n as i64 / 2, n as i64, n as i64 + 3]);
        let rows_out = n.min(active as usize) * k;
        let ex = Buf::new(d, &[rows_out, h], layout(&mut rng), || 9.0);
        let er = Buf::new(S32, &[n * k], layout(&mut rng), || 9.0);
        let ee = Buf::new(S32, &[n * k], layout(&mut rng), || 9.0);
        let before = [ex.outside(), er.outside(), ee.outside()];
        let e = moe::init_routing(
            &x.desc(),
            &ri.desc(),
            &ei.desc(),
            active,
            &ex.desc(),
            &er.desc(),
            &ee.desc(),
        )
        .unwrap();
        run(&e).unwrap();
        let what = format!("case {case} {d} n {n} k {k} h {h} active {active}");
        let order = dispatch_order(&expert);
        let xv = x.values();
        let (exv, erv, eev) = (ex.values(), er.values(), ee.values());
        for (i, &p) in order.iter().enumerate() {
            let src = row[p] as usize;
            assert_eq!(eev[i], expert[p] as f64, "{what}: expandedExpertIdx[{i}]");
            assert_eq!(erv[src], i as f64, "{what}: expandedRowIdx[{src}]");
            if i < rows_out {
                let r = src % n;
                for c in 0..h {
                    let (got, want) = (exv[i * h + c], xv[r * h + c]);
                    assert!(
                        got.to_bits() == want.to_bits(),
                        "{what}: expandedX[{i}][{c}]"
                    );
                }
            }
        }
        out_unwritten(&what, &before[0], &ex);
        out_unwritten(&what, &before[1], &er);
        out_unwritten(&what, &before[2], &ee);
    }
}

#[test]
fn init_routing_refuses_a_row_idx_that_is_not_a_permutation_and_writes_nothing() {
    let x = Buf::new(F32, &[2, 3], Layout::Contiguous, || 1.0);
    for bad in [[0i64, 1, 1, 3], [0, 1, 2, 4], [0, -1, 2, 3]] {
        let ri = ints_at(&[2, 2], &bad);
        let ei = ints_at(&[2, 2], &[1, 0, 0, 1]);
        let ex = Buf::new(F32, &[4, 3], Layout::Contiguous, || 9.0);
        let er = Buf::new(S32, &[4], Layout::Contiguous, || 9.0);
        let ee = Buf::new(S32, &[4], Layout::Contiguous, || 9.0);
        let e = moe::init_routing(
            &x.desc(),
            &ri.desc(),
            &ei.desc(),
            2,
            &ex.desc(),
            &er.desc(),
            &ee.desc(),
        )
        .unwrap();
        let err = run(&e).unwrap_err().to_string();
        assert!(err.contains("rowIdx"), "{err}");
        assert!(ex
            .values()
            .iter()
            .chain(&er.values())
            .chain(&ee.values())
            .all(|&v| v == 9.0));
    }
}

#[test]
fn compute_expert_tokens_counts_each_experts_end() {
    let mut rng = Rng::new(0xce7);
    for case in 0..80 {
        let len = rng.below(50) as usize;
        let experts = 1 + rng.below(12) as i64;
        let mut v: Vec<i64> = (0..len)
            .map(|_| rng.below(experts as u64 + 2) as i64)
            .collect();
        v.sort();
        let s = ints(&mut rng, &[len], &v);
        let out = Buf::new(S32, &[experts as usize], layout(&mut rng), || 9.0);
        let before = out.outside();
        run(&moe::compute_expert_tokens(&s.desc(), experts, &out.desc()).unwrap()).unwrap();
        let want: Vec<f64> = (0..experts)
            .map(|e| v.iter().filter(|&&x| x <= e).count() as f64)
            .collect();
        assert_eq!(out.values(), want, "case {case} {v:?}");
        out_unwritten(&format!("case {case}"), &before, &out);
    }
}

#[test]
fn finalize_routing_matches_the_f64_combine_in_every_drop_pad_mode() {
    let mut rng = Rng::new(0xf1a1);
    for case in 0..200 {
        let d = float(&mut rng);
        let v1 = rng.pct(30);
        let mode = if v1 { 0 } else { rng.below(4) as i64 };
        let padded = mode % 2 == 1;
        let (n, k, h) = (
            rng.below(7) as usize,
            1 + rng.below(4) as usize,
            rng.below(9) as usize,
        );
        let experts = k + rng.below(3) as usize;
        let cap = 1 + rng.below(4) as usize;
        let rows = if padded { experts * cap } else { n * k };
        let xshape: Vec<usize> = if padded {
            vec![experts, cap, h]
        } else {
            vec![rows, h]
        };
        let ex = Buf::new(d, &xshape, layout(&mut rng), || grid(&mut rng));
        // Each slot's row: a permutation of the expanded rows (dropless), or any row or -1.
        let mut perm: Vec<i64> = (0..rows as i64).collect();
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let idx: Vec<i64> = (0..n * k)
            .map(|p| {
                if padded {
                    if rng.pct(30) {
                        -1
                    } else {
                        rng.below(rows as u64) as i64
                    }
                } else {
                    perm[p]
                }
            })
            .collect();
        let ri = ints(&mut rng, &[n * k], &idx);
        let has = |rng: &mut Rng| v1 || rng.pct(60);
        let x1 = has(&mut rng).then(|| Buf::new(d, &[n, h], layout(&mut rng), || grid(&mut rng)));
        let x2 = (x1.is_some() && rng.pct(50))
            .then(|| Buf::new(d, &[n, h], layout(&mut rng), || grid(&mut rng)));
        let bias =
            has(&mut rng).then(|| Buf::new(d, &[experts, h], layout(&mut rng), || grid(&mut rng)));
        let scales_present = has(&mut rng) || k > 1;
        let sd = if !v1 && d == BF16 && rng.pct(50) {
            F32
        } else {
            d
        };
        let scales =
            scales_present.then(|| Buf::new(sd, &[n, k], layout(&mut rng), || grid(&mut rng)));
        let eidx: Vec<i64> = (0..n * k)
            .map(|_| rng.below(experts as u64) as i64)
            .collect();
        let expert = (bias.is_some() || has(&mut rng)).then(|| ints(&mut rng, &[n, k], &eidx));
        let out = Buf::new(d, &[n, h], layout(&mut rng), || 9.0);
        let before = out.outside();
        let desc = |b: &Option<Buf>| b.as_ref().map(|b| b.desc());
        let e = if v1 {
            moe::finalize_routing(
                &ex.desc(),
                &x1.as_ref().unwrap().desc(),
                desc(&x2).as_ref(),
                &bias.as_ref().unwrap().desc(),
                &scales.as_ref().unwrap().desc(),
                &ri.desc(),
                &expert.as_ref().unwrap().desc(),
                &out.desc(),
            )
        } else {
            moe::finalize_routing_v2(
                &ex.desc(),
                &ri.desc(),
                desc(&x1).as_ref(),
                desc(&x2).as_ref(),
                desc(&bias).as_ref(),
                desc(&scales).as_ref(),
                desc(&expert).as_ref(),
                mode,
                &out.desc(),
            )
        }
        .unwrap();
        run(&e).unwrap();
        let what = format!("case {case} {d} v1 {v1} mode {mode} n {n} k {k} h {h}");
        let exv = ex.values();
        let vals = |b: &Option<Buf>| b.as_ref().map(|b| b.values());
        let (x1v, x2v, bv, sv) = (vals(&x1), vals(&x2), vals(&bias), vals(&scales));
        let got = out.values();
        for i in 0..n {
            for c in 0..h {
                let (mut want, mut mag) = (0f64, 0f64);
                for j in 0..k {
                    let p = if mode < 2 { i + j * n } else { i * k + j };
                    let x = if idx[p] < 0 {
                        0.0
                    } else {
                        exv[idx[p] as usize * h + c]
                    };
                    let b = bv
                        .as_ref()
                        .map_or(0.0, |b| b[eidx[i * k + j] as usize * h + c]);
                    let s = sv.as_ref().map_or(1.0, |s| s[i * k + j]);
                    want += s * (x + b);
                    mag += (s * x).abs() + (s * b).abs();
                }
                for skip in [&x1v, &x2v].into_iter().flatten() {
                    want += skip[i * h + c];
                    mag += skip[i * h + c].abs();
                }
                let tol = mag * (k + 2) as f64 * 2f64.powi(-24) + half_ulp(d, want) * 1.01;
                assert!(
                    (got[i * h + c] - want).abs() <= tol,
                    "{what}: out[{i}][{c}] = {}, want {want} ± {tol}",
                    got[i * h + c]
                );
            }
        }
        out_unwritten(&what, &before, &out);
    }
}

#[test]
fn finalize_routing_refuses_out_of_range_indices_at_run_time() {
    let ex = Buf::new(F32, &[4, 2], Layout::Contiguous, || 1.0);
    let out = Buf::new(F32, &[2, 2], Layout::Contiguous, || 9.0);
    let bias = Buf::new(F32, &[2, 2], Layout::Contiguous, || 1.0);
    let scales = Buf::new(F32, &[2, 2], Layout::Contiguous, || 1.0);
    for (rows, experts, mode, want) in [
        (
            [0i64, 1, 2, 4],
            [0i64, 1, 0, 1],
            0,
            "expandedRowIdx[3] is 4",
        ),
        ([0, 1, -1, 3], [0, 1, 0, 1], 2, "expandedRowIdx[2] is -1"),
        ([0, 1, 2, 3], [0, 1, 2, 1], 0, "expert index [1][0] is 2"),
    ] {
        let ri = ints_at(&[4], &rows);
        let ei = ints_at(&[2, 2], &experts);
        let e = moe::finalize_routing_v2(
            &ex.desc(),
            &ri.desc(),
            None,
            None,
            Some(&bias.desc()),
            Some(&scales.desc()),
            Some(&ei.desc()),
            mode,
            &out.desc(),
        )
        .unwrap();
        let err = run(&e).unwrap_err().to_string();
        assert!(err.contains(want), "{err}");
        assert!(out.values().iter().all(|&v| v == 9.0));
    }
}

#[test]
fn moe_routing_errors_name_the_problem() {
    let f = |s: &[usize]| Buf::new(F32, s, Layout::Contiguous, || 0.0);
    let i = |s: &[usize]| Buf::new(S32, s, Layout::Contiguous, || 0.0);
    let (x, y, idx, row) = (f(&[3, 8]), f(&[3, 2]), i(&[3, 2]), i(&[3, 2]));
    let g = |k: i64, x: &Buf, y: &Buf, idx: &Buf| {
        message(moe::gating_top_k_softmax(
            &x.desc(),
            None,
            k,
            &y.desc(),
            &idx.desc(),
            &row.desc(),
        ))
    };
    assert!(g(0, &x, &y, &idx).contains("k is 0"));
    assert!(g(9, &x, &y, &idx).contains("k is 9"));
    assert!(g(2, &f(&[8]), &y, &idx).contains("2 or 3"));
    assert!(g(
        2,
        &x,
        &Buf::new(F16, &[3, 2], Layout::Contiguous, || 0.0),
        &idx
    )
    .contains("same"));
    assert!(g(2, &x, &y, &f(&[3, 2])).contains("expertIdxOut has dtype"));
    assert!(g(2, &x, &f(&[3, 3]), &idx).contains("yOut has shape [3, 3]"));
    let v2 = |renorm: i64, flag: bool, s: Option<&Buf>| {
        message(moe::gating_top_k_softmax_v2(
            &x.desc(),
            None,
            2,
            renorm,
            flag,
            &y.desc(),
            &idx.desc(),
            s.map(|s| s.desc()).as_ref(),
        ))
    };
    assert!(v2(2, false, None).contains("renorm is 2"));
    assert!(v2(0, true, None).contains("softmaxResultOutOptional is NULL"));
    assert!(v2(
        0,
        true,
        Some(&Buf::new(F16, &[3, 8], Layout::Contiguous, || 0.0))
    )
    .contains("softmaxResultOutOptional has dtype"));
    let ir = |active: i64, ex: &Buf| {
        message(moe::init_routing(
            &x.desc(),
            &row.desc(),
            &idx.desc(),
            active,
            &ex.desc(),
            &i(&[6]).desc(),
            &i(&[6]).desc(),
        ))
    };
    assert!(ir(-1, &f(&[6, 8])).contains("activeNum is -1"));
    assert!(ir(2, &f(&[6, 8])).contains("expandedXOut has shape [6, 8]; it must be [4, 8]"));
    let cet =
        |n: i64, out: &Buf| message(moe::compute_expert_tokens(&i(&[5]).desc(), n, &out.desc()));
    assert!(cet(0, &i(&[0])).contains("numExperts is 0"));
    assert!(cet(2049, &i(&[2049])).contains("numExperts is 2049"));
    assert!(cet(3, &i(&[4])).contains("out has shape [4]"));
    let ex = f(&[6, 8]);
    let fr = |mode: i64, bias: Option<&Buf>, expert: Option<&Buf>, x2: Option<&Buf>| {
        message(moe::finalize_routing_v2(
            &ex.desc(),
            &i(&[6]).desc(),
            None,
            x2.map(|b| b.desc()).as_ref(),
            bias.map(|b| b.desc()).as_ref(),
            Some(&f(&[3, 2]).desc()),
            expert.map(|b| b.desc()).as_ref(),
            mode,
            &y.desc(),
        ))
    };
    assert!(fr(4, None, None, None).contains("dropPadMode is 4"));
    assert!(fr(1, None, None, None).contains("must have 3 (E, C, H)"));
    assert!(fr(0, Some(&f(&[4, 8])), None, None).contains("expertIdx is NULL"));
    assert!(fr(0, None, None, Some(&f(&[3, 8]))).contains("x2 needs x1"));
    assert!(fr(0, Some(&f(&[1, 8])), Some(&idx), None).contains("fewer than K = 2"));
}

#[test]
fn init_routing_v2_matches_the_sort_dropless_and_with_a_capacity() {
    let mut rng = Rng::new(0x1472);
    for case in 0..200 {
        let d = float(&mut rng);
        let (n, k, h) = (
            1 + rng.below(10) as usize,
            1 + rng.below(4) as usize,
            rng.below(6) as usize,
        );
        let e = 1 + rng.below(5) as usize;
        let drop = rng.pct(40);
        let c = 1 + rng.below(n as u64) as usize;
        let flag = if drop { 0 } else { rng.below(3) as i64 };
        let before_flag = drop && rng.pct(70);
        let active = if drop {
            0
        } else {
            rng.pick(&[0i64, 1, 3, 100])
        };
        let nk = n * k;
        let rows_out = if active > 0 {
            nk.min(active as usize)
        } else {
            nk
        };
        let x = Buf::new(d, &[n, h], layout(&mut rng), || grid(&mut rng));
        let expert: Vec<i64> = (0..nk).map(|_| rng.below(e as u64) as i64).collect();
        let ei = ints(&mut rng, &[n, k], &expert);
        let xshape: Vec<usize> = if drop {
            vec![e, c, h]
        } else {
            vec![rows_out, h]
        };
        let ex = Buf::new(d, &xshape, layout(&mut rng), || 9.0);
        let er = Buf::new(S32, &[nk], layout(&mut rng), || 9.0);
        let counts = Buf::new(S32, &[e], layout(&mut rng), || 9.0);
        let before = [ex.outside(), er.outside(), counts.outside()];
        let run_it = moe::init_routing_v2(
            &x.desc(),
            &ei.desc(),
            active,
            if drop { c as i64 } else { 0 },
            e as i64,
            drop as i64,
            flag,
            before_flag,
            &ex.desc(),
            &er.desc(),
            (!drop).then(|| counts.desc()).as_ref(),
            drop.then(|| counts.desc()).as_ref(),
        )
        .unwrap();
        run(&run_it).unwrap();
        let what =
            format!("case {case} {d} n {n} k {k} h {h} e {e} drop {drop} c {c} active {active}");
        let order = dispatch_order(&expert);
        let (xv, exv, erv) = (x.values(), ex.values(), er.values());
        let hist: Vec<usize> = (0..e as i64)
            .map(|v| expert.iter().filter(|&&x| x == v).count())
            .collect();
        if drop {
            let mut rank = vec![0usize; e];
            let mut filled = vec![false; e * c];
            for &p in &order {
                let ex_ = expert[p] as usize;
                let r = rank[ex_];
                rank[ex_] += 1;
                if r < c {
                    let row = ex_ * c + r;
                    assert_eq!(erv[p], row as f64, "{what}: expandedRowIdx[{p}]");
                    filled[row] = true;
                    for col in 0..h {
                        assert_eq!(
                            exv[row * h + col],
                            xv[(p / k) * h + col],
                            "{what}: row {row}"
                        );
                    }
                } else {
                    assert_eq!(erv[p], -1.0, "{what}: dropped slot {p}");
                }
            }
            for (row, f) in filled.iter().enumerate() {
                if !f {
                    assert!(
                        (0..h).all(|col| exv[row * h + col] == 0.0),
                        "{what}: pad row {row}"
                    );
                }
            }
        } else {
            for (i, &p) in order.iter().enumerate() {
                assert_eq!(erv[p], i as f64, "{what}: expandedRowIdx[{p}]");
                if i < rows_out {
                    for col in 0..h {
                        assert_eq!(exv[i * h + col], xv[(p / k) * h + col], "{what}: row {i}");
                    }
                }
            }
        }
        let want_counts: Vec<f64> = match (drop, flag, before_flag) {
            (true, _, true) | (false, 2, _) => hist.iter().map(|&v| v as f64).collect(),
            (false, 1, _) => hist
                .iter()
                .scan(0, |s, &v| {
                    *s += v;
                    Some(*s as f64)
                })
                .collect(),
            _ => vec![9.0; e],
        };
        assert_eq!(counts.values(), want_counts, "{what}: counts");
        out_unwritten(&what, &before[0], &ex);
        out_unwritten(&what, &before[1], &er);
        out_unwritten(&what, &before[2], &counts);
    }
}

#[test]
fn init_routing_v2_errors_name_the_problem() {
    let f = |s: &[usize]| Buf::new(F32, s, Layout::Contiguous, || 0.0);
    let i = |s: &[usize]| Buf::new(S32, s, Layout::Contiguous, || 0.0);
    let (x, ei) = (f(&[4, 3]), i(&[4, 2]));
    let call = |cap: i64, en: i64, mode: i64, flag: i64, ex: &Buf, c: Option<&Buf>| {
        message(moe::init_routing_v2(
            &x.desc(),
            &ei.desc(),
            0,
            cap,
            en,
            mode,
            flag,
            false,
            &ex.desc(),
            &i(&[8]).desc(),
            c.map(|c| c.desc()).as_ref(),
            None,
        ))
    };
    assert!(call(0, 4, 2, 0, &f(&[8, 3]), None).contains("dropPadMode is 2"));
    assert!(call(0, 4, 1, 0, &f(&[8, 3]), None).contains("must be positive"));
    assert!(call(5, 4, 1, 0, &f(&[4, 5, 3]), None).contains("exceeds x's 4 rows"));
    assert!(call(0, 4, 0, 3, &f(&[8, 3]), None).contains("expertTokensCountOrCumsumFlag is 3"));
    assert!(call(0, 4, 0, 1, &f(&[8, 3]), None).contains("is NULL but its flag"));
    assert!(call(0, 4, 0, 1, &f(&[8, 3]), Some(&i(&[3]))).contains("has shape [3]; it must be [4]"));
    assert!(call(2, 4, 1, 0, &f(&[8, 3]), None).contains("it must be [4, 2, 3]"));
    assert!(call(0, -1, 0, 0, &f(&[8, 3]), None).contains("expertNum is -1"));
    // An expert outside [0, expertNum) is refused at run time when the experts are counted.
    let ei = {
        let v: Vec<f64> = vec![0.0, 1.0, 2.0, 5.0, 0.0, 0.0, 1.0, 1.0];
        holding(S32, &[4, 2], Layout::Contiguous, &v)
    };
    let ex = Buf::new(F32, &[8, 3], Layout::Contiguous, || 9.0);
    let c = i(&[4]);
    let e = moe::init_routing_v2(
        &x.desc(),
        &ei.desc(),
        0,
        0,
        4,
        0,
        2,
        false,
        &ex.desc(),
        &i(&[8]).desc(),
        Some(&c.desc()),
        None,
    )
    .unwrap();
    let err = run(&e).unwrap_err().to_string();
    assert!(err.contains("expertIdx[1][1] is 5"), "{err}");
    assert!(ex.values().iter().all(|&v| v == 9.0));
}
