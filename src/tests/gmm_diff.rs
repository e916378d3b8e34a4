//! GroupedMatmulV3 against an f64 loop: every layout (groupType -1, 0 with one or many
//! weights or xs, 2), random group sizes (empty groups included), views (padded, offset,
//! transposed weights), dtypes and bias; groupList errors at phase 2 and phase-1 errors.

use super::add_diff::Rng;
use super::llm_diff::{grid, half_ulp, layout, Buf, Layout};
use super::reduce_diff::run;
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm;
use crate::tensor::TensorDesc;

/// A contiguous int64 groupList holding `ends`.
fn group_list(ends: &[usize]) -> Buf {
    let mut i = 0;
    Buf::new(S64, &[ends.len()], Layout::Contiguous, || {
        i += 1;
        ends.get(i - 1).copied().unwrap_or(0) as f64
    })
}

/// `count` cumulative ends of random group sizes summing to at most `total` (some empty).
fn random_ends(rng: &mut Rng, count: usize, total: usize, exact: bool) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..count - 1)
        .map(|_| rng.below(total as u64 + 1) as usize)
        .collect();
    cuts.sort();
    let last = if exact || rng.pct(60) {
        total
    } else {
        cuts.last()
            .copied()
            .unwrap_or(0)
            .max(rng.below(total as u64 + 1) as usize)
    };
    cuts.push(last);
    cuts
}

/// Checks `y_got[r][j]` (row-major rows of n) against the f64 sum of `terms` (+ bias).
#[allow(clippy::too_many_arguments)]
fn expect_row(
    case: &str,
    d: DType,
    got: &[f64],
    r: usize,
    n: usize,
    xrow: &[f64],
    w: &dyn Fn(usize, usize) -> f64,
    bias: Option<&[f64]>,
) {
    let k = xrow.len();
    for j in 0..n {
        let terms: Vec<f64> = (0..k).map(|i| xrow[i] * w(i, j)).collect();
        let b = bias.map_or(0.0, |b| b[j]);
        let want = terms.iter().sum::<f64>() + b;
        let mag: f64 = terms.iter().map(|t| t.abs()).sum::<f64>() + b.abs();
        let tol = mag * (k + 1) as f64 * 2f64.powi(-24) + half_ulp(d, want) * 1.01;
        let g = got[r * n + j];
        assert!(
            (g - want).abs() <= tol,
            "{case}: y[{r}][{j}] = {g}, want {want} ± {tol}"
        );
    }
}

fn bias_dtype(d: DType) -> DType {
    if d == BF16 {
        F32
    } else {
        d
    }
}

/// A weight layout: contiguous, padded, or transposed (strides [1, k]).
fn weight_layout(rng: &mut Rng) -> Layout {
    rng.pick(&[
        Layout::Contiguous,
        Layout::Transposed,
        Layout::Transposed,
        Layout::Padded,
    ])
}

/// An x layout for groupType -1 and 0 (which refuse a transposed x).
fn x_layout(rng: &mut Rng) -> Layout {
    rng.pick(&[Layout::Contiguous, Layout::Padded])
}

fn descs(b: &[Buf]) -> Vec<TensorDesc> {
    b.iter().map(|b| b.desc()).collect()
}

fn refs(d: &[TensorDesc]) -> Vec<&TensorDesc> {
    d.iter().collect()
}

#[allow(clippy::too_many_arguments)]
fn call(
    x: &[Buf],
    w: &[Buf],
    bias: &[Buf],
    gl: Option<&Buf>,
    split_item: i64,
    group_type: i64,
    y: &[Buf],
) -> crate::Result<Executor> {
    let (xd, wd, bd, yd) = (descs(x), descs(w), descs(bias), descs(y));
    let gd = gl.map(|g| g.desc());
    let br = refs(&bd);
    llm::grouped_matmul_v3(
        &refs(&xd),
        &refs(&wd),
        (!bias.is_empty()).then_some(&br[..]),
        None,
        None,
        None,
        None,
        gd.as_ref(),
        split_item,
        group_type,
        &refs(&yd),
    )
}

#[test]
fn grouped_matmul_v3_matches_an_f64_loop_in_every_layout() {
    let mut rng = Rng::new(0x6a1);
    for case in 0..160 {
        let d = rng.pick(&[F16, BF16, F32]);
        let kind = case % 5;
        // One x with one weight is the (e, k, n) weight case: lists need two members.
        let e = if kind == 1 || kind == 2 {
            2 + rng.below(3) as usize
        } else {
            1 + rng.below(4) as usize
        };
        let (m, k, n) = (
            rng.below(12) as usize,
            1 + rng.below(40) as usize,
            1 + rng.below(24) as usize,
        );
        let with_bias = kind != 4 && rng.pct(50);
        let tag = format!("case {case} kind {kind} {d} e {e} m {m} k {k} n {n} bias {with_bias}");
        match kind {
            // MoE: one x (m, k), one weight (e, k, n), one y, groupList of row ends.
            0 | 1 => {
                let one_weight = kind == 0;
                let x = Buf::new(d, &[m, k], x_layout(&mut rng), || grid(&mut rng));
                let wl = weight_layout(&mut rng);
                let w: Vec<Buf> = if one_weight {
                    vec![Buf::new(d, &[e, k, n], wl, || grid(&mut rng))]
                } else {
                    (0..e)
                        .map(|_| Buf::new(d, &[k, n], wl, || grid(&mut rng)))
                        .collect()
                };
                let bias: Vec<Buf> = match (with_bias, one_weight) {
                    (false, _) => vec![],
                    (true, true) => {
                        vec![Buf::new(bias_dtype(d), &[e, n], layout(&mut rng), || {
                            grid(&mut rng)
                        })]
                    }
                    (true, false) => (0..e)
                        .map(|_| Buf::new(bias_dtype(d), &[n], Layout::Padded, || grid(&mut rng)))
                        .collect(),
                };
                let ends = random_ends(&mut rng, e, m, false);
                let gl = group_list(&ends);
                let y = Buf::new(d, &[m, n], layout(&mut rng), || 3.0);
                let before = y.outside();
                let ex = call(
                    std::slice::from_ref(&x),
                    &w,
                    &bias,
                    Some(&gl),
                    rng.pick(&[2, 3]),
                    0,
                    std::slice::from_ref(&y),
                )
                .unwrap_or_else(|err| panic!("{tag}: {err}"));
                run(&ex).unwrap_or_else(|err| panic!("{tag}: {err}"));
                assert_eq!(before, y.outside(), "{tag}: y written outside its view");
                let (xv, got) = (x.values(), y.values());
                let wv: Vec<Vec<f64>> = w.iter().map(|b| b.values()).collect();
                let bv: Vec<Vec<f64>> = bias.iter().map(|b| b.values()).collect();
                let mut start = 0;
                for (g, &end) in ends.iter().enumerate() {
                    for r in start..end {
                        let wf = |i: usize, j: usize| {
                            if one_weight {
                                wv[0][(g * k + i) * n + j]
                            } else {
                                wv[g][i * n + j]
                            }
                        };
                        let b = if bias.is_empty() {
                            None
                        } else if one_weight {
                            Some(&bv[0][g * n..(g + 1) * n])
                        } else {
                            Some(&bv[g][..])
                        };
                        expect_row(&tag, d, &got, r, n, &xv[r * k..(r + 1) * k], &wf, b);
                    }
                    start = end;
                }
                // Rows past the last group are not written.
                assert!(
                    got[start * n..].iter().all(|v| *v == 3.0),
                    "{tag}: rows past groupList written"
                );
            }
            // e xs (m_i, k), e weights, one y; groupList optional.
            2 => {
                let sizes: Vec<usize> = (0..e).map(|_| rng.below(6) as usize).collect();
                let xs: Vec<Buf> = sizes
                    .iter()
                    .map(|&r| Buf::new(d, &[r, k], x_layout(&mut rng), || grid(&mut rng)))
                    .collect();
                let wl = weight_layout(&mut rng);
                let w: Vec<Buf> = (0..e)
                    .map(|_| Buf::new(d, &[k, n], wl, || grid(&mut rng)))
                    .collect();
                let bias: Vec<Buf> = if with_bias {
                    (0..e)
                        .map(|_| Buf::new(bias_dtype(d), &[n], Layout::Padded, || grid(&mut rng)))
                        .collect()
                } else {
                    vec![]
                };
                let total: usize = sizes.iter().sum();
                let ends: Vec<usize> = sizes
                    .iter()
                    .scan(0, |s, r| {
                        *s += r;
                        Some(*s)
                    })
                    .collect();
                let gl = rng.pct(50).then(|| group_list(&ends));
                let y = Buf::new(d, &[total, n], layout(&mut rng), || 3.0);
                let before = y.outside();
                let ex = call(&xs, &w, &bias, gl.as_ref(), 2, 0, std::slice::from_ref(&y))
                    .unwrap_or_else(|err| panic!("{tag}: {err}"));
                run(&ex).unwrap_or_else(|err| panic!("{tag}: {err}"));
                assert_eq!(before, y.outside(), "{tag}: y written outside its view");
                let got = y.values();
                let mut row = 0;
                for g in 0..e {
                    let (xv, wv) = (xs[g].values(), w[g].values());
                    let bv = bias.get(g).map(|b| b.values());
                    for r in 0..sizes[g] {
                        expect_row(
                            &tag,
                            d,
                            &got,
                            row,
                            n,
                            &xv[r * k..(r + 1) * k],
                            &|i, j| wv[i * n + j],
                            bv.as_deref(),
                        );
                        row += 1;
                    }
                }
            }
            // groupType -1: separate x (…, k) with 2-3 dims, weight, y.
            3 => {
                let lead: Vec<usize> = if rng.pct(50) {
                    vec![m]
                } else {
                    vec![1 + rng.below(3) as usize, rng.below(4) as usize]
                };
                let xs: Vec<Buf> = (0..e)
                    .map(|_| {
                        Buf::new(d, &[&lead[..], &[k]].concat(), Layout::Padded, || {
                            grid(&mut rng)
                        })
                    })
                    .collect();
                let wl = weight_layout(&mut rng);
                let w: Vec<Buf> = (0..e)
                    .map(|_| Buf::new(d, &[k, n], wl, || grid(&mut rng)))
                    .collect();
                let bias: Vec<Buf> = if with_bias {
                    (0..e)
                        .map(|_| {
                            Buf::new(bias_dtype(d), &[n], Layout::Contiguous, || grid(&mut rng))
                        })
                        .collect()
                } else {
                    vec![]
                };
                let ys: Vec<Buf> = (0..e)
                    .map(|_| Buf::new(d, &[&lead[..], &[n]].concat(), layout(&mut rng), || 3.0))
                    .collect();
                let before: Vec<_> = ys.iter().map(|y| y.outside()).collect();
                let ex = call(&xs, &w, &bias, None, rng.pick(&[0, 1]), -1, &ys)
                    .unwrap_or_else(|err| panic!("{tag}: {err}"));
                run(&ex).unwrap_or_else(|err| panic!("{tag}: {err}"));
                let rows: usize = lead.iter().product();
                for g in 0..e {
                    assert_eq!(
                        before[g],
                        ys[g].outside(),
                        "{tag}: y[{g}] written outside its view"
                    );
                    let (xv, wv, got) = (xs[g].values(), w[g].values(), ys[g].values());
                    let bv = bias.get(g).map(|b| b.values());
                    for r in 0..rows {
                        expect_row(
                            &tag,
                            d,
                            &got,
                            r,
                            n,
                            &xv[r * k..(r + 1) * k],
                            &|i, j| wv[i * n + j],
                            bv.as_deref(),
                        );
                    }
                }
            }
            // groupType 2: x (m, k) stored transposed, weight (k, n), y (e, m, n).
            _ => {
                let m = m.max(1);
                let x = Buf::new(d, &[m, k], Layout::Transposed, || grid(&mut rng));
                let w = Buf::new(
                    d,
                    &[k, n],
                    rng.pick(&[Layout::Contiguous, Layout::Padded]),
                    || grid(&mut rng),
                );
                let ends = random_ends(&mut rng, e, k, false);
                let gl = group_list(&ends);
                let y = Buf::new(d, &[e, m, n], layout(&mut rng), || 3.0);
                let before = y.outside();
                let ex = call(
                    std::slice::from_ref(&x),
                    std::slice::from_ref(&w),
                    &[],
                    Some(&gl),
                    3,
                    2,
                    std::slice::from_ref(&y),
                )
                .unwrap_or_else(|err| panic!("{tag}: {err}"));
                run(&ex).unwrap_or_else(|err| panic!("{tag}: {err}"));
                assert_eq!(before, y.outside(), "{tag}: y written outside its view");
                let (xv, wv, got) = (x.values(), w.values(), y.values());
                let mut start = 0;
                for (g, &end) in ends.iter().enumerate() {
                    for r in 0..m {
                        let xrow: Vec<f64> = (start..end).map(|i| xv[r * k + i]).collect();
                        let rows = &got[g * m * n..(g + 1) * m * n];
                        expect_row(
                            &tag,
                            d,
                            rows,
                            r,
                            n,
                            &xrow,
                            &|i, j| wv[(start + i) * n + j],
                            None,
                        );
                    }
                    start = end;
                }
            }
        }
    }
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn grouped_matmul_v3_checks_group_list_at_phase_2() {
    let mut rng = Rng::new(0x6a2);
    let x = Buf::new(F16, &[6, 4], Layout::Contiguous, || grid(&mut rng));
    let w = Buf::new(F16, &[3, 4, 5], Layout::Contiguous, || grid(&mut rng));
    for (ends, what) in [
        (vec![2, 1, 6], "groupListOptional[1] is 1"),
        (vec![2, 4, 7], "groupListOptional[2] is 7"),
    ] {
        let y = Buf::new(F16, &[6, 5], Layout::Contiguous, || 3.0);
        let gl = group_list(&ends);
        let ex = call(
            std::slice::from_ref(&x),
            std::slice::from_ref(&w),
            &[],
            Some(&gl),
            3,
            0,
            std::slice::from_ref(&y),
        )
        .unwrap();
        let err = run(&ex).unwrap_err().to_string();
        assert!(
            err.contains(what) && err.contains("aclnnGroupedMatmulV3"),
            "{err}"
        );
        assert!(
            y.values().iter().all(|v| *v == 3.0),
            "y written despite a bad groupList"
        );
    }
    // A negative entry.
    let gl = Buf::new(S64, &[3], Layout::Contiguous, || -1.0);
    let y = Buf::new(F16, &[6, 5], Layout::Contiguous, || 3.0);
    let ex = call(
        std::slice::from_ref(&x),
        std::slice::from_ref(&w),
        &[],
        Some(&gl),
        3,
        0,
        std::slice::from_ref(&y),
    )
    .unwrap();
    assert!(run(&ex)
        .unwrap_err()
        .to_string()
        .contains("groupListOptional[0] is -1"));
}

#[test]
fn grouped_matmul_v3_errors_name_the_problem() {
    let mut rng = Rng::new(0x6a3);
    let mut b = |d: DType, shape: &[usize], l: Layout| Buf::new(d, shape, l, || grid(&mut rng));
    let c = Layout::Contiguous;
    let (x, w3, y) = (
        b(F16, &[6, 4], c),
        b(F16, &[3, 4, 5], c),
        b(F16, &[6, 5], c),
    );
    let gl = group_list(&[1, 2, 6]);
    let xs = std::slice::from_ref(&x);
    let ws = std::slice::from_ref(&w3);
    let ys = std::slice::from_ref(&y);
    let cases: Vec<(crate::Result<Executor>, &str)> = vec![
        (
            call(xs, ws, &[], Some(&gl), 3, 1, ys),
            "groupType 1 (split n)",
        ),
        (call(xs, ws, &[], Some(&gl), 3, 5, ys), "groupType is 5"),
        (call(xs, ws, &[], Some(&gl), 4, 0, ys), "splitItem is 4"),
        (call(xs, ws, &[], Some(&gl), 2, -1, ys), "cannot be -1"),
        (
            call(xs, ws, &[], Some(&gl), 0, 0, ys),
            "splitItem must be 2 or 3",
        ),
        (
            call(xs, ws, &[], None, 3, 0, ys),
            "groupListOptional is NULL",
        ),
        (
            call(xs, ws, &[], Some(&group_list(&[1, 6])), 3, 0, ys),
            "2 entries but there are 3 groups",
        ),
        (
            call(xs, ws, &[b(F32, &[3, 5], c)], Some(&gl), 3, 0, ys),
            "biasOptional[0] has dtype",
        ),
        (
            call(xs, ws, &[b(F16, &[5], c)], Some(&gl), 3, 0, ys),
            "biasOptional[0] has shape",
        ),
        (
            call(xs, &[b(F32, &[3, 4, 5], c)], &[], Some(&gl), 3, 0, ys),
            "the non-quantized mode takes both",
        ),
        (
            call(xs, &[b(S8, &[3, 4, 5], c)], &[], Some(&gl), 3, 0, ys),
            "pseudo-quantized",
        ),
        (
            call(xs, &[b(F16, &[3, 3, 5], c)], &[], Some(&gl), 3, 0, ys),
            "differ in k",
        ),
        (
            call(xs, ws, &[], Some(&gl), 3, 0, &[b(F16, &[6, 4], c)]),
            "differ in n",
        ),
        (
            call(xs, ws, &[], Some(&gl), 3, 0, &[b(F16, &[5, 5], c)]),
            "x has 6 rows",
        ),
        (
            call(
                &[b(F16, &[6, 4], Layout::Transposed)],
                ws,
                &[],
                Some(&gl),
                3,
                0,
                ys,
            ),
            "x cannot be transposed",
        ),
        (
            call(xs, ws, &[], Some(&b(S32, &[3], c)), 3, 0, ys),
            "must be INT64",
        ),
        (
            call(xs, ws, &[], Some(&b(S64, &[3, 1], c)), 3, 0, ys),
            "must have 1",
        ),
        (
            call(
                xs,
                ws,
                &[b(F16, &[3, 5], c)],
                Some(&gl),
                3,
                2,
                &[b(F16, &[3, 6, 5], c)],
            ),
            "biasOptional must be NULL",
        ),
        (
            call(
                xs,
                &[b(F16, &[4, 5], c)],
                &[],
                Some(&gl),
                3,
                2,
                &[b(F16, &[3, 6, 5], c)],
            ),
            "stored transposed",
        ),
        (
            call(
                &[b(F16, &[6, 4], c)],
                &[b(F16, &[4, 5], c)],
                &[],
                Some(&gl),
                0,
                -1,
                ys,
            ),
            "groupListOptional must be NULL",
        ),
        (
            call(&[], ws, &[], Some(&gl), 3, 0, ys),
            "x must not be an empty tensor list",
        ),
        (
            call(
                &[b(F16, &[2, 4], c), b(F16, &[4, 4], c)],
                &[b(F16, &[4, 5], c), b(F16, &[4, 5], Layout::Transposed)],
                &[],
                None,
                2,
                0,
                ys,
            ),
            "every weight must be stored alike",
        ),
    ];
    for (i, (r, want)) in cases.into_iter().enumerate() {
        let m = message(r);
        assert!(m.contains(want), "case {i}: {m:?} should say {want:?}");
    }
    // Quantized parameters are refused by name.
    let (xd, wd, yd, sd) = (x.desc(), w3.desc(), y.desc(), b(F32, &[3, 5], c).desc());
    let r = llm::grouped_matmul_v3(
        &[&xd],
        &[&wd],
        None,
        Some(&[&sd]),
        None,
        None,
        None,
        Some(&gl.desc()),
        3,
        0,
        &[&yd],
    );
    assert!(message(r).contains("scaleOptional is given"));
    let r = llm::grouped_matmul_v3(
        &[&xd],
        &[&wd],
        None,
        None,
        None,
        None,
        Some(&[&sd]),
        Some(&gl.desc()),
        3,
        0,
        &[&yd],
    );
    assert!(message(r).contains("antiquantOffsetOptional is given"));
}
