//! GroupedMatmul (V1), V2, V4, V5 and WeightNz against GroupedMatmulV3 (which gmm_diff
//! checks against an f64 loop): each version runs the same random problem through its
//! own parameters — a host groupList (V1/V2), groupListType 1 sizes (V4/V5), FRACTAL_NZ
//! weights packed here from CANN's layout description (WeightNz) — and must give V3's
//! bits. The split-m layout only V1/V2 have (one x, e weights, e separated y) is checked
//! against V3's one-y rows. Then each version's own errors.

use super::add_diff::{Buf as Raw, Rng};
use super::llm_diff::{grid, Buf, Layout};
use super::reduce_diff::run;
use crate::dtype::DType::{self, *};
use crate::executor::Executor;
use crate::ops::llm;
use crate::ops::llm::grouped_matmul::Extra;
use crate::tensor::TensorDesc;

fn descs(b: &[Buf]) -> Vec<TensorDesc> {
    b.iter().map(|b| b.desc()).collect()
}

fn refs(d: &[TensorDesc]) -> Vec<&TensorDesc> {
    d.iter().collect()
}

/// A contiguous int64 tensor holding `v`.
fn ints(v: &[i64]) -> Buf {
    let mut i = 0;
    Buf::new(S64, &[v.len()], Layout::Contiguous, || {
        i += 1;
        v.get(i - 1).copied().unwrap_or(0) as f64
    })
}

fn extra(group_list_type: i64, act_type: i64) -> Extra<'static> {
    Extra {
        per_token_scale: None,
        activation_input: None,
        activation_quant_scale: None,
        activation_quant_offset: None,
        group_list_type,
        act_type,
        activation_feature_out: None,
        dyn_quant_scale_out: None,
    }
}

/// Which entry point a case runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ver {
    V1,
    V2,
    V4,
    V5,
    Nz,
}

/// Runs `ver` on the problem; `host` is the groupList as V1/V2 take it, `sizes` selects
/// groupListType 1 for V4/V5/Nz (`gl` then holds sizes).
#[allow(clippy::too_many_arguments)]
fn call(
    ver: Ver,
    x: &[&TensorDesc],
    w: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    host: Option<&[i64]>,
    gl: Option<&TensorDesc>,
    sizes: bool,
    split_item: i64,
    group_type: i64,
    y: &[&TensorDesc],
) -> crate::Result<Executor> {
    let ex = extra(sizes as i64, 0);
    match ver {
        Ver::V1 => llm::grouped_matmul_v1(x, w, bias, None, None, None, None, host, split_item, y),
        Ver::V2 => llm::grouped_matmul_v2(
            x, w, bias, None, None, None, None, host, split_item, group_type, y,
        ),
        Ver::V4 => llm::grouped_matmul_v4(
            x, w, bias, None, None, None, None, gl, split_item, group_type, &ex, y,
        ),
        Ver::V5 => llm::grouped_matmul_v5(
            x, w, bias, None, None, None, None, gl, split_item, group_type, &ex, y,
        ),
        Ver::Nz => llm::grouped_matmul_weight_nz(
            x, w, bias, None, None, None, None, gl, split_item, group_type, &ex, y,
        ),
    }
}

/// The FRACTAL_NZ bytes of `w` ((…, k, n) values of dtype d, k and n multiples of 16):
/// each stored matrix — (k, n), or (n, k) when `transposed` — as ⌈cols/16⌉ column blocks
/// of rows × 16 elements, one matrix after another.
fn pack_nz(d: DType, w: &Buf, transposed: bool) -> Raw {
    let r = w.shape.len();
    let (k, n) = (w.shape[r - 2], w.shape[r - 1]);
    let batches: usize = w.shape[..r - 2].iter().product();
    let vals = w.values();
    let mut raw = Raw::new(vals.len() * 2 + 64);
    let (rows, cols) = if transposed { (n, k) } else { (k, n) };
    for b in 0..batches {
        for i in 0..k {
            for j in 0..n {
                let (sr, sc) = if transposed { (j, i) } else { (i, j) };
                let at = b * k * n + ((sc / 16) * rows + sr) * 16 + sc % 16;
                debug_assert!(cols % 16 == 0);
                let v = crate::scalar::Scalar::from_value(vals[(b * k + i) * n + j]).cast(d);
                raw.bytes_mut()[at * 2..at * 2 + 2].copy_from_slice(v.bytes());
            }
        }
    }
    raw
}

/// A FRACTAL_NZ view of `raw` with the logical shape of `w`.
fn nz_view(raw: &Raw, d: DType, shape: &[usize], transposed: bool) -> TensorDesc {
    let r = shape.len();
    let (k, n) = (shape[r - 2], shape[r - 1]);
    let mut strides: Vec<i64> = vec![0; r];
    if transposed {
        strides[r - 2] = 1;
        strides[r - 1] = k as i64;
    } else {
        strides[r - 2] = n as i64;
        strides[r - 1] = 1;
    }
    if r == 3 {
        strides[0] = (k * n) as i64;
    }
    let dims: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    TensorDesc::new(
        &dims,
        d as i32,
        Some(&strides),
        0,
        29,
        &[(raw.bytes().len() / 2) as i64],
        raw.addr(),
    )
    .unwrap()
}

fn cumsum(sizes: &[usize]) -> Vec<i64> {
    sizes
        .iter()
        .scan(0i64, |s, r| {
            *s += *r as i64;
            Some(*s)
        })
        .collect()
}

#[test]
fn grouped_matmul_versions_give_v3_bits() {
    let mut rng = Rng::new(0x6b1);
    for case in 0..150 {
        let ver = [Ver::V1, Ver::V2, Ver::V4, Ver::V5, Ver::Nz][case % 5];
        let halves = matches!(ver, Ver::V1 | Ver::Nz);
        let d = if halves {
            rng.pick(&[F16, BF16])
        } else {
            rng.pick(&[F16, BF16, F32])
        };
        // 0: one x, one (e, k, n) weight; 1: one x, e weights; 2: everything separated;
        // 3: e xs, e weights, one y.
        let kind = rng.below(4) as usize;
        let one_weight = kind == 0;
        if one_weight && ver == Ver::V1 {
            continue; // V1 takes only separated weights
        }
        let e = 2 + rng.below(3) as usize;
        let (k, n) = if ver == Ver::Nz {
            (
                16 * (1 + rng.below(3) as usize),
                16 * (1 + rng.below(2) as usize),
            )
        } else {
            (1 + rng.below(30) as usize, 1 + rng.below(20) as usize)
        };
        let tw = rng.pct(50) && !(ver == Ver::V1 && kind == 2);
        let wl = if tw {
            Layout::Transposed
        } else if ver == Ver::Nz {
            Layout::Contiguous
        } else {
            rng.pick(&[Layout::Contiguous, Layout::Padded])
        };
        let xl = rng.pick(&[Layout::Contiguous, Layout::Padded]);
        let bd = if d == BF16 { F32 } else { d };
        let with_bias = rng.pct(50);
        let sizes: Vec<usize> = (0..e).map(|_| rng.below(6) as usize).collect();
        let m: usize = sizes.iter().sum();
        let tag = format!("case {case} {ver:?} kind {kind} {d} e {e} k {k} n {n} sizes {sizes:?} tw {tw} bias {with_bias}");
        let w: Vec<Buf> = if one_weight {
            vec![Buf::new(
                d,
                &[e, k, n],
                if tw { wl } else { Layout::Contiguous },
                || grid(&mut rng),
            )]
        } else {
            (0..e)
                .map(|_| Buf::new(d, &[k, n], wl, || grid(&mut rng)))
                .collect()
        };
        let bias: Vec<Buf> = match (with_bias, one_weight) {
            (false, _) => vec![],
            (true, true) => vec![Buf::new(bd, &[e, n], Layout::Contiguous, || grid(&mut rng))],
            (true, false) => (0..e)
                .map(|_| Buf::new(bd, &[n], Layout::Contiguous, || grid(&mut rng)))
                .collect(),
        };
        let xs: Vec<Buf> = if kind >= 2 {
            sizes
                .iter()
                .map(|&r| Buf::new(d, &[r.max(1), k], xl, || grid(&mut rng)))
                .collect()
        } else {
            vec![Buf::new(d, &[m, k], xl, || grid(&mut rng))]
        };
        let xsizes: Vec<usize> = if kind >= 2 {
            sizes.iter().map(|r| r.max(&1)).copied().collect()
        } else {
            sizes.clone()
        };
        let ys: Vec<Buf> = if kind == 2 {
            xsizes
                .iter()
                .map(|&r| Buf::new(d, &[r, n], Layout::Contiguous, || 3.0))
                .collect()
        } else {
            vec![Buf::new(
                d,
                &[xsizes.iter().sum(), n],
                Layout::Contiguous,
                || 3.0,
            )]
        };
        let (group_type, split_item) = if kind == 2 { (-1, 0) } else { (0, 3) };
        let ends = cumsum(&xsizes);
        // The reference: V3 on ND weights.
        let yref: Vec<Buf> = ys
            .iter()
            .map(|y| Buf::new(d, &y.shape, Layout::Contiguous, || 3.0))
            .collect();
        let (xd, wd, bdv, yd, rd) = (
            descs(&xs),
            descs(&w),
            descs(&bias),
            descs(&ys),
            descs(&yref),
        );
        let br = refs(&bdv);
        let bias_opt = (!bias.is_empty()).then_some(&br[..]);
        let gl3 = (kind != 2).then(|| ints(&ends));
        let gl3d = gl3.as_ref().map(|g| g.desc());
        let ex = llm::grouped_matmul_v3(
            &refs(&xd),
            &refs(&wd),
            bias_opt,
            None,
            None,
            None,
            None,
            gl3d.as_ref(),
            split_item,
            group_type,
            &refs(&rd),
        )
        .unwrap_or_else(|err| panic!("{tag}: V3: {err}"));
        run(&ex).unwrap_or_else(|err| panic!("{tag}: V3: {err}"));
        // The version under test.
        let sizes_mode = matches!(ver, Ver::V4 | Ver::V5 | Ver::Nz) && rng.pct(50);
        let glv: Vec<i64> = if sizes_mode {
            xsizes.iter().map(|&s| s as i64).collect()
        } else {
            ends.clone()
        };
        let gl = (kind != 2).then(|| ints(&glv));
        let gld = gl.as_ref().map(|g| g.desc());
        let host = (kind != 2).then_some(&ends[..]);
        let raws: Vec<Raw> = if ver == Ver::Nz {
            w.iter().map(|b| pack_nz(d, b, tw)).collect()
        } else {
            vec![]
        };
        let wnz: Vec<TensorDesc> = raws
            .iter()
            .zip(&w)
            .map(|(r, b)| nz_view(r, d, &b.shape, tw))
            .collect();
        let wtest = if ver == Ver::Nz { &wnz } else { &wd };
        let ex = call(
            ver,
            &refs(&xd),
            &refs(wtest),
            bias_opt,
            host,
            gld.as_ref(),
            sizes_mode,
            split_item,
            group_type,
            &refs(&yd),
        )
        .unwrap_or_else(|err| panic!("{tag}: {err}"));
        run(&ex).unwrap_or_else(|err| panic!("{tag}: {err}"));
        for (g, (y, r)) in ys.iter().zip(&yref).enumerate() {
            let (got, want) = (y.values(), r.values());
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    a.to_bits() == b.to_bits(),
                    "{tag}: y[{g}] element {i} is {a}, V3 gives {b}"
                );
            }
        }
    }
}

/// V1/V2's one x, e weights, e separated y: y_i is V3's rows of group i.
#[test]
fn grouped_matmul_v1_v2_separated_y_are_v3_rows() {
    let mut rng = Rng::new(0x6b2);
    for case in 0..40 {
        let v1 = case % 2 == 0;
        let d = rng.pick(&[F16, BF16]);
        let e = 2 + rng.below(3) as usize;
        let (k, n) = (1 + rng.below(20) as usize, 1 + rng.below(12) as usize);
        let sizes: Vec<usize> = (0..e).map(|_| rng.below(5) as usize).collect();
        let m: usize = sizes.iter().sum::<usize>() + rng.below(3) as usize;
        let x = Buf::new(d, &[m, k], Layout::Padded, || grid(&mut rng));
        let w: Vec<Buf> = (0..e)
            .map(|_| Buf::new(d, &[k, n], Layout::Transposed, || grid(&mut rng)))
            .collect();
        let ys: Vec<Buf> = sizes
            .iter()
            .map(|&r| Buf::new(d, &[r, n], Layout::Padded, || 3.0))
            .collect();
        let yref = Buf::new(d, &[m, n], Layout::Contiguous, || 3.0);
        let ends = cumsum(&sizes);
        let (xd, wd, yd, rd) = (x.desc(), descs(&w), descs(&ys), yref.desc());
        let gl = ints(&ends);
        let gld = gl.desc();
        let ex = llm::grouped_matmul_v3(
            &[&xd],
            &refs(&wd),
            None,
            None,
            None,
            None,
            None,
            Some(&gld),
            3,
            0,
            &[&rd],
        )
        .unwrap();
        run(&ex).unwrap();
        let befores: Vec<_> = ys.iter().map(|y| y.outside()).collect();
        let ex = if v1 {
            llm::grouped_matmul_v1(
                &[&xd],
                &refs(&wd),
                None,
                None,
                None,
                None,
                None,
                Some(&ends),
                1,
                &refs(&yd),
            )
        } else {
            llm::grouped_matmul_v2(
                &[&xd],
                &refs(&wd),
                None,
                None,
                None,
                None,
                None,
                Some(&ends),
                0,
                0,
                &refs(&yd),
            )
        }
        .unwrap_or_else(|err| panic!("case {case}: {err}"));
        run(&ex).unwrap();
        let want = yref.values();
        let mut row = 0;
        for (g, y) in ys.iter().enumerate() {
            assert_eq!(
                befores[g],
                y.outside(),
                "case {case}: y[{g}] written outside its view"
            );
            let got = y.values();
            assert_eq!(
                got[..],
                want[row * n..(row + sizes[g]) * n],
                "case {case}: y[{g}]"
            );
            row += sizes[g];
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
fn grouped_matmul_versions_errors_name_the_problem() {
    let mut rng = Rng::new(0x6b3);
    let mut b = |d: DType, shape: &[usize], l: Layout| Buf::new(d, shape, l, || grid(&mut rng));
    let c = Layout::Contiguous;
    let (x, w0, w1, y) = (
        b(F16, &[6, 16], c),
        b(F16, &[16, 16], c),
        b(F16, &[16, 16], c),
        b(F16, &[6, 16], c),
    );
    let (xd, wd, yd) = (x.desc(), [w0.desc(), w1.desc()], y.desc());
    let w = refs(&wd);
    let ends = [2i64, 6];
    let gl = ints(&ends);
    let gld = gl.desc();
    let v4 = |ex: &Extra, gl: Option<&TensorDesc>| {
        llm::grouped_matmul_v4(
            &[&xd],
            &w,
            None,
            None,
            None,
            None,
            None,
            gl,
            3,
            0,
            ex,
            &[&yd],
        )
    };
    // V1: FLOAT32, one weight with lists, a host groupList not ending at m.
    let (xf, wf, yf) = (b(F32, &[2, 3], c), b(F32, &[3, 4], c), b(F32, &[2, 4], c));
    let (xfd, wfd, yfd) = (xf.desc(), wf.desc(), yf.desc());
    let m = message(llm::grouped_matmul_v1(
        &[&xfd],
        &[&wfd],
        None,
        None,
        None,
        None,
        None,
        None,
        0,
        &[&yfd],
    ));
    assert!(
        m.contains("aclnnGroupedMatmul:") && m.contains("FLOAT32"),
        "{m}"
    );
    let m = message(llm::grouped_matmul_v1(
        &[&xd],
        &w,
        None,
        None,
        None,
        None,
        None,
        Some(&[2, 5]),
        2,
        &[&yd],
    ));
    assert!(
        m.contains("last value of groupListOptional is 5") && m.contains("(6)"),
        "{m}"
    );
    let m = message(llm::grouped_matmul_v2(
        &[&xd],
        &w,
        None,
        None,
        None,
        None,
        None,
        Some(&[3, 2]),
        2,
        0,
        &[&yd],
    ));
    assert!(
        m.contains("aclnnGroupedMatmulV2") && m.contains("groupListOptional[1] is 2"),
        "{m}"
    );
    let m = message(llm::grouped_matmul_v2(
        &[&xd],
        &w,
        None,
        None,
        None,
        None,
        None,
        None,
        2,
        0,
        &[&yd],
    ));
    assert!(m.contains("groupListOptional is NULL"), "{m}");
    // V1 with everything separated refuses a transposed weight.
    let (wt, x2, y2) = (
        b(F16, &[16, 16], Layout::Transposed),
        b(F16, &[2, 16], c),
        b(F16, &[2, 16], c),
    );
    let (wtd, x2d, y2d) = (wt.desc(), x2.desc(), y2.desc());
    let m = message(llm::grouped_matmul_v1(
        &[&xd, &x2d],
        &[&wtd, &wtd],
        None,
        None,
        None,
        None,
        None,
        None,
        0,
        &[&yd, &y2d],
    ));
    assert!(m.contains("cannot be transposed"), "{m}");
    // V4: actType, groupListType, quantization lists, activation outputs.
    for (act, want) in [
        (1, "actType 1"),
        (3, "GELU_ERR_FUNC"),
        (6, "actType is 6"),
        (-1, "actType is -1"),
    ] {
        let m = message(v4(&extra(0, act), Some(&gld)));
        assert!(
            m.contains("aclnnGroupedMatmulV4") && m.contains(want),
            "{act}: {m}"
        );
    }
    let m = message(v4(&extra(2, 0), Some(&gld)));
    assert!(m.contains("groupListType 2"), "{m}");
    let m = message(v4(&extra(3, 0), Some(&gld)));
    assert!(m.contains("groupListType is 3"), "{m}");
    let pts = b(F32, &[6], c);
    let ptsd = pts.desc();
    let pl = [&ptsd];
    let mut ex = extra(0, 0);
    ex.per_token_scale = Some(&pl);
    let m = message(v4(&ex, Some(&gld)));
    assert!(m.contains("perTokenScaleOptional"), "{m}");
    let mut ex = extra(0, 0);
    ex.activation_feature_out = Some(&pl);
    let m = message(v4(&ex, Some(&gld)));
    assert!(m.contains("activationFeatureOutOptional"), "{m}");
    // V4 refuses separated y with its groupList tensor.
    let (ya, yb) = (b(F16, &[2, 16], c), b(F16, &[4, 16], c));
    let (yad, ybd) = (ya.desc(), yb.desc());
    let m = message(llm::grouped_matmul_v4(
        &[&xd],
        &w,
        None,
        None,
        None,
        None,
        None,
        Some(&gld),
        0,
        0,
        &extra(0, 0),
        &[&yad, &ybd],
    ));
    assert!(m.contains("separated y is not supported"), "{m}");
    // groupListType 1: sizes checked at phase 2, nothing written.
    let bad = ints(&[4, 3]);
    let badd = bad.desc();
    let e = v4(&extra(1, 0), Some(&badd)).unwrap();
    let before = y.values();
    let m = run(&e).unwrap_err().to_string();
    assert!(
        m.contains("groupListOptional[1] is 3") && m.contains("group sizes"),
        "{m}"
    );
    assert_eq!(before, y.values(), "y written despite a bad groupList");
    let neg = ints(&[-1, 3]);
    let negd = neg.desc();
    let m = run(&v4(&extra(1, 0), Some(&negd)).unwrap())
        .unwrap_err()
        .to_string();
    assert!(m.contains("groupListOptional[0] is -1"), "{m}");
    // WeightNz: ND weight, NZ weight not a multiple of 16, split k, FLOAT32.
    let nz = |ws: &[&TensorDesc], gt: i64, xs: &[&TensorDesc], ys: &[&TensorDesc]| {
        llm::grouped_matmul_weight_nz(
            xs,
            ws,
            None,
            None,
            None,
            None,
            None,
            Some(&gld),
            3,
            gt,
            &extra(0, 0),
            ys,
        )
    };
    let m = message(nz(&w, 0, &[&xd], &[&yd]));
    assert!(
        m.contains("aclnnGroupedMatmulWeightNz") && m.contains("FRACTAL_NZ"),
        "{m}"
    );
    let odd = b(F16, &[16, 8], c);
    let raw = pack_nz_any(&odd);
    let oddnz = nz_view(&raw, F16, &[16, 8], false);
    let y8 = b(F16, &[6, 8], c);
    let y8d = y8.desc();
    let m = message(nz(&[&oddnz, &oddnz], 0, &[&xd], &[&y8d]));
    assert!(m.contains("multiples of 16"), "{m}");
    // The other versions refuse an NZ weight.
    let raw16 = pack_nz(F16, &w0, false);
    let w16 = nz_view(&raw16, F16, &[16, 16], false);
    let m = message(llm::grouped_matmul_v4(
        &[&xd],
        &[&w16, &w16],
        None,
        None,
        None,
        None,
        None,
        Some(&gld),
        3,
        0,
        &extra(0, 0),
        &[&yd],
    ));
    assert!(m.contains("aclnnGroupedMatmulWeightNz"), "{m}");
}

/// Storage for an NZ view whose dims need no packing to be refused.
fn pack_nz_any(w: &Buf) -> Raw {
    Raw::new(w.values().len() * 2 + 4096)
}
