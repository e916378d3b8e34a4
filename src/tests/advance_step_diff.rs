//! aclnnAdvanceStep / aclnnAdvanceStepV2 (src/ops/llm/advance_step.rs) against plain loops
//! written from CANN's documentation and its golden scripts (the legacy kernel's 40-query
//! bound, first-row table read and every-40th padding; the speculative kernel's 32-bit
//! arithmetic and "token before the first -1"), on random sizes and views. Everything is
//! INT64 and exact. Refused runs must write nothing.

use super::add_diff::Rng;
use super::llm_diff::{layout, out_unwritten, Buf, Layout};
use super::moe_diff::holding;
use super::reduce_diff::run;
use crate::dtype::DType::*;
use crate::executor::Executor;
use crate::ops::llm;

fn tensor(rng: &mut Rng, shape: &[usize], values: &[i64]) -> Buf {
    let v: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    holding(S64, shape, layout(rng), &v)
}

fn ints(b: &Buf) -> Vec<i64> {
    b.values().iter().map(|&v| v as i64).collect()
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// CANN's golden for the legacy kernel, on flat row-major vectors.
#[allow(clippy::too_many_arguments)]
fn legacy_reference(
    n_seqs: usize,
    n_queries: usize,
    bs: i64,
    tokens: &mut [i64],
    sampled: &[i64],
    positions: &mut [i64],
    seq_lens: &mut [i64],
    slots: &mut [i64],
    tables: &[i64],
) {
    const CORES: usize = 40;
    let stride = (tables.len() / n_seqs) as i64;
    let mut k = 0;
    while n_queries + k < n_seqs {
        tokens[n_queries + k] = 0;
        positions[n_queries + k] = 0;
        slots[n_queries + k] = -1;
        k += CORES;
    }
    for q in 0..n_queries.min(CORES) {
        tokens[q] = sampled[q];
        let p = seq_lens[q];
        seq_lens[q] = p + 1;
        positions[q] = p;
        slots[q] = (tables[(p / bs) as usize] + stride * q as i64) * bs + p % bs;
    }
}

#[test]
fn advance_step_matches_the_devices_legacy_kernel() {
    let mut rng = Rng::new(0xad5);
    for case in 0..150 {
        let span = if rng.pct(30) { 130 } else { 12 };
        let n_seqs = 2 + rng.below(span) as usize;
        let n_queries = 1 + rng.below(n_seqs as u64 - 1) as usize;
        let bs = 1 + rng.below(16) as i64;
        let blocks = 1 + rng.below(6) as usize;
        // 1-D or [n, 1], as CANN's own example passes them.
        let col = |rng: &mut Rng, n: usize| if rng.pct(50) { vec![n] } else { vec![n, 1] };
        let cap = (n_seqs * blocks) as i64 * bs;
        let seq_lens: Vec<i64> = (0..n_seqs).map(|_| rng.below(cap as u64) as i64).collect();
        let pos0: Vec<i64> = (0..n_seqs).map(|_| rng.below(1000) as i64).collect();
        let tok0: Vec<i64> = (0..n_seqs).map(|_| 5 + rng.below(1000) as i64).collect();
        let slot0: Vec<i64> = (0..n_seqs).map(|_| rng.below(1000) as i64).collect();
        let sampled: Vec<i64> = (0..n_queries)
            .map(|_| 1 + rng.below(50_000) as i64)
            .collect();
        let tables: Vec<i64> = (0..n_seqs * blocks)
            .map(|_| rng.below(500) as i64)
            .collect();
        let s = [
            col(&mut rng, n_seqs),
            col(&mut rng, n_seqs),
            col(&mut rng, n_seqs),
            col(&mut rng, n_seqs),
        ];
        let it = tensor(&mut rng, &s[0], &tok0);
        let st = tensor(&mut rng, &[n_queries, 1], &sampled);
        let ip = tensor(&mut rng, &s[1], &pos0);
        let sl = tensor(&mut rng, &s[2], &seq_lens);
        let sm = tensor(&mut rng, &s[3], &slot0);
        let bt = tensor(&mut rng, &[n_seqs, blocks], &tables);
        let before: Vec<_> = [&it, &ip, &sl, &sm].iter().map(|b| b.outside()).collect();
        let e = llm::advance_step(
            &it.desc(),
            &st.desc(),
            &ip.desc(),
            &sl.desc(),
            &sm.desc(),
            &bt.desc(),
            n_seqs as i64,
            n_queries as i64,
            bs,
        )
        .unwrap();
        assert_eq!(
            e.workspace_size(),
            32 << 20,
            "the device's reserved workspace"
        );
        run(&e).unwrap();
        let (mut t, mut p, mut l, mut m) =
            (tok0.clone(), pos0.clone(), seq_lens.clone(), slot0.clone());
        legacy_reference(
            n_seqs, n_queries, bs, &mut t, &sampled, &mut p, &mut l, &mut m, &tables,
        );
        let c = format!("case {case}: {n_seqs} seqs, {n_queries} queries, bs {bs}");
        assert_eq!(ints(&it), t, "{c}: inputTokens");
        assert_eq!(ints(&ip), p, "{c}: inputPositions");
        assert_eq!(ints(&sl), l, "{c}: seqLens");
        assert_eq!(ints(&sm), m, "{c}: slotMapping");
        for (b, buf) in before.iter().zip([&it, &ip, &sl, &sm]) {
            out_unwritten(&c, b, buf);
        }
    }
}

/// The speculative kernel from its documented steps, in 32-bit integers.
#[allow(clippy::too_many_arguments)]
fn speculative_reference(
    spec: usize,
    bs: i64,
    tokens: &mut [i64],
    sampled: &[i64],
    positions: &mut [i64],
    seq_lens: &mut [i64],
    slots: &mut [i64],
    tables: &[i64],
    spec_tokens: &[i64],
    accepted: &[i64],
) {
    let t = spec + 1;
    let stride = tables.len() / accepted.len();
    for i in 0..accepted.len() {
        // The token before the first -1; the last one when there is none.
        let row = &sampled[i * t..(i + 1) * t];
        let last = row.iter().position(|&v| v == -1).unwrap_or(t);
        tokens[i * t] = row[last - 1];
        tokens[i * t + 1..(i + 1) * t].copy_from_slice(&spec_tokens[i * spec..(i + 1) * spec]);
        for j in i * t..(i + 1) * t {
            let p = positions[j] as i32 + accepted[i] as i32 + 1;
            positions[j] = p as i64;
            seq_lens[j] = p as i64 + 1;
            let b = tables[i * stride + (p as i64 / bs) as usize] as i32;
            slots[j] = (b * bs as i32 + p % bs as i32) as i64;
        }
    }
}

#[test]
fn advance_step_v2_matches_the_speculative_kernel() {
    let mut rng = Rng::new(0xad52);
    for case in 0..150 {
        let span = if rng.pct(20) { 90 } else { 10 };
        let n = 1 + rng.below(span) as usize;
        let spec = 1 + rng.below(5) as usize;
        let t = spec + 1;
        let bs = 1 + rng.below(32) as i64;
        let blocks = 1 + rng.below(8) as usize;
        let accepted: Vec<i64> = (0..n).map(|_| rng.below(t as u64) as i64).collect();
        // Positions leave room for the step inside each sequence's table row.
        let room = blocks as i64 * bs - t as i64 - 1;
        let pos0: Vec<i64> = (0..n * t)
            .map(|_| {
                if room > 0 {
                    rng.below(room as u64) as i64
                } else {
                    0
                }
            })
            .collect();
        let blocks = if room > 0 {
            blocks
        } else {
            blocks + (t as i64 * 2 / bs) as usize + 2
        };
        let mut sampled = vec![];
        for i in 0..n {
            let good = 1 + accepted[i] as usize;
            for j in 0..t {
                sampled.push(if j < good || (rng.pct(10) && j < t) {
                    1 + rng.below(150_000) as i64
                } else {
                    -1
                });
            }
        }
        let tok0: Vec<i64> = (0..n * t).map(|_| rng.below(100) as i64).collect();
        let len0: Vec<i64> = (0..n * t).map(|_| rng.below(100) as i64).collect();
        let slot0: Vec<i64> = (0..n * t).map(|_| rng.below(100) as i64).collect();
        let spec_tokens: Vec<i64> = (0..n * spec)
            .map(|_| 1 + rng.below(150_000) as i64)
            .collect();
        let tables: Vec<i64> = (0..n * blocks).map(|_| rng.below(10_000) as i64).collect();
        let it = tensor(&mut rng, &[n * t], &tok0);
        let st = tensor(&mut rng, &[n, t], &sampled);
        let ip = tensor(&mut rng, &[n * t], &pos0);
        let sl = tensor(&mut rng, &[n * t], &len0);
        let sm = tensor(&mut rng, &[n * t], &slot0);
        let bt = tensor(&mut rng, &[n, blocks], &tables);
        let sp = tensor(&mut rng, &[n, spec], &spec_tokens);
        let an = tensor(&mut rng, &[n], &accepted);
        let before: Vec<_> = [&it, &ip, &sl, &sm].iter().map(|b| b.outside()).collect();
        let queries = 1 + rng.below(n as u64) as i64;
        let e = llm::advance_step_v2(
            &it.desc(),
            &st.desc(),
            &ip.desc(),
            &sl.desc(),
            &sm.desc(),
            &bt.desc(),
            &sp.desc(),
            &an.desc(),
            n as i64,
            queries,
            bs,
        )
        .unwrap();
        run(&e).unwrap();
        let (mut tk, mut p, mut l, mut m) =
            (tok0.clone(), pos0.clone(), len0.clone(), slot0.clone());
        speculative_reference(
            spec,
            bs,
            &mut tk,
            &sampled,
            &mut p,
            &mut l,
            &mut m,
            &tables,
            &spec_tokens,
            &accepted,
        );
        let c = format!("case {case}: {n} seqs, spec {spec}, bs {bs}");
        assert_eq!(ints(&it), tk, "{c}: inputTokens");
        assert_eq!(ints(&ip), p, "{c}: inputPositions");
        assert_eq!(ints(&sl), l, "{c}: seqLens");
        assert_eq!(ints(&sm), m, "{c}: slotMapping");
        for (b, buf) in before.iter().zip([&it, &ip, &sl, &sm]) {
            out_unwritten(&c, b, buf);
        }
    }
}

/// CANN's V2 example: 8 sequences, one speculative token each, tables all 7.
#[test]
fn advance_step_v2_gives_canns_example() {
    let c = |shape: &[usize], v: &[i64]| {
        let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        holding(S64, shape, Layout::Contiguous, &f)
    };
    let flat: Vec<i64> = (0..16).map(|i| i % 8).collect();
    let (it, ip, sl, sm) = (
        c(&[16], &flat),
        c(&[16], &flat),
        c(&[16], &flat),
        c(&[16], &flat),
    );
    let st = c(&[8, 2], &flat);
    let bt = c(&[8, 1000], &[7; 8000]);
    let sp = c(&[8, 1], &(0..8).collect::<Vec<_>>());
    let an = c(&[8], &(0..8).collect::<Vec<_>>());
    run(&llm::advance_step_v2(
        &it.desc(),
        &st.desc(),
        &ip.desc(),
        &sl.desc(),
        &sm.desc(),
        &bt.desc(),
        &sp.desc(),
        &an.desc(),
        8,
        8,
        8,
    )
    .unwrap())
    .unwrap();
    // Row i of sampled is (2i mod 8, 2i+1 mod 8): no -1, so its last token is taken.
    let tokens: Vec<i64> = (0..8).flat_map(|i| [(2 * i + 1) % 8, i]).collect();
    assert_eq!(ints(&it), tokens);
    let pos: Vec<i64> = (0..16).map(|j| j % 8 + j / 2 + 1).collect();
    assert_eq!(ints(&ip), pos);
    assert_eq!(ints(&sl), pos.iter().map(|p| p + 1).collect::<Vec<_>>());
    assert_eq!(
        ints(&sm),
        pos.iter().map(|p| 7 * 8 + p % 8).collect::<Vec<_>>()
    );
}

#[test]
fn advance_step_v2_with_an_empty_spec_token_runs_the_legacy_kernel() {
    let mut rng = Rng::new(0xad53);
    let (n, q, bs) = (6usize, 4usize, 4i64);
    let lens: Vec<i64> = vec![3, 9, 0, 17, 2, 5];
    let tables: Vec<i64> = (0..n as i64 * 6).collect();
    let mk = |rng: &mut Rng, v: &[i64]| tensor(rng, &[n], v);
    let (it, ip, sl, sm) = (
        mk(&mut rng, &[1; 6]),
        mk(&mut rng, &[2; 6]),
        mk(&mut rng, &lens),
        mk(&mut rng, &[3; 6]),
    );
    let st = tensor(&mut rng, &[q, 1], &[11, 12, 13, 14]);
    let bt = tensor(&mut rng, &[n, 6], &tables);
    let sp = tensor(&mut rng, &[n, 0], &[]);
    let an = tensor(&mut rng, &[n], &[1; 6]);
    run(&llm::advance_step_v2(
        &it.desc(),
        &st.desc(),
        &ip.desc(),
        &sl.desc(),
        &sm.desc(),
        &bt.desc(),
        &sp.desc(),
        &an.desc(),
        n as i64,
        q as i64,
        bs,
    )
    .unwrap())
    .unwrap();
    let (mut t, mut p, mut l, mut m) = (vec![1; 6], vec![2; 6], lens.clone(), vec![3; 6]);
    legacy_reference(
        n,
        q,
        bs,
        &mut t,
        &[11, 12, 13, 14],
        &mut p,
        &mut l,
        &mut m,
        &tables,
    );
    assert_eq!((ints(&it), ints(&ip), ints(&sl), ints(&sm)), (t, p, l, m));
}

#[test]
fn advance_step_refuses_what_the_device_refuses() {
    let z = |shape: &[usize]| Buf::new(S64, shape, Layout::Contiguous, || 1.0);
    let (it, st, ip, sl, sm, bt) = (z(&[8]), z(&[4, 1]), z(&[8]), z(&[8]), z(&[8]), z(&[8, 3]));
    let v1 = |it: &Buf, st: &Buf, bt: &Buf, ns: i64, nq: i64, bs: i64| {
        message(llm::advance_step(
            &it.desc(),
            &st.desc(),
            &ip.desc(),
            &sl.desc(),
            &sm.desc(),
            &bt.desc(),
            ns,
            nq,
            bs,
        ))
    };
    assert!(v1(&it, &st, &bt, 8, 4, 0).contains("blockSize is 0"));
    assert!(v1(&it, &st, &bt, 0, 4, 2).contains("numSeqs is 0"));
    assert!(v1(&it, &st, &bt, 8, 8, 2).contains("greater than numQueries"));
    assert!(v1(&z(&[7]), &st, &bt, 8, 4, 2).contains("inputTokens has shape [7]"));
    assert!(v1(&it, &z(&[4, 2]), &bt, 8, 4, 2).contains("sampledTokenIds has shape [4, 2]"));
    assert!(v1(&it, &z(&[3, 1]), &bt, 8, 4, 2).contains("numQueries"));
    assert!(v1(&it, &st, &z(&[7, 3]), 8, 4, 2).contains("blockTables"));
    let f = Buf::new(S32, &[8], Layout::Contiguous, || 1.0);
    assert!(v1(&f, &st, &bt, 8, 4, 2).contains("inputTokens has dtype"));
    // A position whose block is past the table fails the run and writes nothing.
    let far = Buf::new(S64, &[8], Layout::Contiguous, || 1000.0);
    let probe = Buf::new(S64, &[8], Layout::Padded, || 5.0);
    let before = probe.values();
    let e = llm::advance_step(
        &probe.desc(),
        &st.desc(),
        &ip.desc(),
        &far.desc(),
        &sm.desc(),
        &bt.desc(),
        8,
        4,
        2,
    )
    .unwrap();
    assert!(run(&e)
        .unwrap_err()
        .to_string()
        .contains("outside its 24 elements"));
    assert_eq!(probe.values(), before);
    assert_eq!(far.values(), vec![1000.0; 8]);
}

#[test]
fn advance_step_v2_refuses_what_the_device_refuses() {
    let z = |shape: &[usize]| Buf::new(S64, shape, Layout::Contiguous, || 1.0);
    let (n, t) = (4usize, 3usize);
    let v2 = |it: &Buf, st: &Buf, ip: &Buf, bt: &Buf, sp: &Buf, an: &Buf, bs: i64| {
        message(llm::advance_step_v2(
            &it.desc(),
            &st.desc(),
            &ip.desc(),
            &z(&ip.shape).desc(),
            &z(&ip.shape).desc(),
            &bt.desc(),
            &sp.desc(),
            &an.desc(),
            n as i64,
            n as i64,
            bs,
        ))
    };
    let (it, st, ip, bt, sp, an) = (
        z(&[n * t]),
        z(&[n, t]),
        z(&[n * t]),
        z(&[n, 4]),
        z(&[n, t - 1]),
        z(&[n]),
    );
    assert!(v2(&z(&[n, t]), &st, &ip, &bt, &sp, &an, 2).contains("inputTokens has shape [4, 3]"));
    assert!(v2(&it, &z(&[n, t + 1]), &ip, &bt, &sp, &an, 2).contains("sampledTokenIds"));
    assert!(v2(&it, &st, &z(&[n * t + 1]), &bt, &sp, &an, 2).contains("inputPositions"));
    assert!(v2(&it, &st, &ip, &z(&[n + 1, 4]), &sp, &an, 2).contains("blockTables"));
    assert!(v2(&it, &st, &ip, &bt, &z(&[n + 1, 2]), &an, 2).contains("specToken has shape"));
    assert!(v2(&it, &st, &ip, &bt, &sp, &z(&[n, 1]), 2).contains("acceptedNum has shape"));
    assert!(v2(&it, &st, &ip, &bt, &sp, &an, 1 << 31).contains("32 bits"));
    let big = 6000;
    assert!(v2(
        &z(&[n * (big + 1)]),
        &z(&[n, big + 1]),
        &z(&[n * (big + 1)]),
        &bt,
        &z(&[n, big]),
        &an,
        2
    )
    .contains("unified buffer"));
    // A row that starts with its minimum (-1 first) is refused at run time, nothing written.
    let rows = holding(
        S64,
        &[n, t],
        Layout::Contiguous,
        &[
            5.0, -1.0, -1.0, -1.0, 3.0, 4.0, 1.0, 2.0, 3.0, 1.0, 1.0, 1.0,
        ],
    );
    let tok = Buf::new(S64, &[n * t], Layout::Padded, || 9.0);
    let e = llm::advance_step_v2(
        &tok.desc(),
        &rows.desc(),
        &ip.desc(),
        &z(&[n * t]).desc(),
        &z(&[n * t]).desc(),
        &z(&[n, 40]).desc(),
        &sp.desc(),
        &an.desc(),
        n as i64,
        n as i64,
        2,
    )
    .unwrap();
    assert!(run(&e)
        .unwrap_err()
        .to_string()
        .contains("row 1 starts with its minimum"));
    assert_eq!(tok.values(), vec![9.0; n * t]);
}
