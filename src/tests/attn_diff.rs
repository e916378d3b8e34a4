//! The attention entry points (src/ops/llm/attention_entries.rs:
//! FusedInferAttentionScore V1-V4, PromptFlashAttention V1-V3,
//! IncreFlashAttention V1-V4) against attention written out in PyTorch 1.13 (f64), over
//! random layouts, views, GQA, masks, sparse modes and actual lengths, with the bound of
//! the engine's doc comment; and what each refuses, by message.

use super::add_diff::Rng;
use super::llm_diff::{grid, half_ulp, layout, out_unwritten, Buf, Layout};
use super::reduce_diff::run;
use super::torch_ref::{Array, Batch};
use crate::dtype::DType::*;
use crate::executor::Executor;
use crate::ops::llm;
use crate::tensor::TensorDesc;

/// An entry point and its version.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Entry {
    Fia(u8),
    Pfa(u8),
    Ifa(u8),
}
use Entry::*;

const ENTRIES: &[Entry] = &[
    Fia(1),
    Fia(2),
    Fia(3),
    Fia(4),
    Pfa(1),
    Pfa(2),
    Pfa(3),
    Ifa(1),
    Ifa(2),
    Ifa(3),
    Ifa(4),
];

impl Entry {
    fn api(self) -> &'static str {
        match self {
            Fia(1) => "aclnnFusedInferAttentionScore",
            Fia(2) => "aclnnFusedInferAttentionScoreV2",
            Fia(3) => "aclnnFusedInferAttentionScoreV3",
            Fia(_) => "aclnnFusedInferAttentionScoreV4",
            Pfa(1) => "aclnnPromptFlashAttention",
            Pfa(2) => "aclnnPromptFlashAttentionV2",
            Pfa(_) => "aclnnPromptFlashAttentionV3",
            Ifa(1) => "aclnnIncreFlashAttention",
            Ifa(2) => "aclnnIncreFlashAttentionV2",
            Ifa(3) => "aclnnIncreFlashAttentionV3",
            Ifa(_) => "aclnnIncreFlashAttentionV4",
        }
    }
    /// Takes a pseShift (the others' is reserved or absent).
    fn pse(self) -> bool {
        !matches!(self, Pfa(1) | Ifa(1) | Ifa(2))
    }
    /// Takes sparseMode, preTokens/nextTokens and actualSeqLengthsKv.
    fn sparse(self) -> bool {
        !matches!(self, Pfa(1) | Ifa(_))
    }
}

/// The arguments a case varies.
struct Call<'a> {
    q: &'a TensorDesc,
    k: &'a TensorDesc,
    v: &'a TensorDesc,
    pse: Option<&'a TensorDesc>,
    mask: Option<&'a TensorDesc>,
    /// Query lengths (IncreFlashAttention: none).
    ql: Option<&'a [i64]>,
    /// Key/value lengths (IncreFlashAttention's actualSeqLengths).
    kl: Option<&'a [i64]>,
    table: Option<&'a TensorDesc>,
    unsupported: &'a [(&'a str, bool)],
    n: i64,
    nkv: i64,
    scale: f64,
    pre: i64,
    next: i64,
    layout: &'a str,
    sparse: i64,
    inner: i64,
    block_size: i64,
    lse: Option<&'a TensorDesc>,
    out: &'a TensorDesc,
}

impl Call<'_> {
    fn to(&self, e: Entry) -> crate::Result<Executor> {
        let c = self;
        match e {
            Fia(2) => llm::fused_infer_attention_score_v2(
                c.q,
                &[c.k],
                &[c.v],
                c.pse,
                c.mask,
                c.ql,
                c.kl,
                c.table,
                c.unsupported,
                c.n,
                c.scale,
                c.pre,
                c.next,
                c.layout,
                c.nkv,
                c.sparse,
                c.inner,
                c.block_size,
                c.lse.is_some(),
                c.out,
                c.lse,
            ),
            Fia(version) => llm::fused_infer_attention_score(
                e.api(),
                version == 1,
                c.q,
                &[c.k],
                &[c.v],
                c.pse,
                c.mask,
                c.ql,
                c.kl,
                c.table,
                c.unsupported,
                c.n,
                c.scale,
                c.pre,
                c.next,
                c.layout,
                c.nkv,
                c.sparse,
                c.inner,
                c.block_size,
                c.lse.is_some(),
                c.out,
                c.lse,
            ),
            Pfa(_) => llm::prompt_flash_attention(
                e.api(),
                c.q,
                c.k,
                c.v,
                c.pse,
                c.mask,
                c.ql,
                c.kl,
                c.unsupported,
                c.n,
                c.scale,
                c.pre,
                c.next,
                c.layout,
                c.nkv,
                c.sparse,
                c.inner,
                c.out,
            ),
            Ifa(_) => llm::incre_flash_attention(
                e.api(),
                c.q,
                &[c.k],
                &[c.v],
                c.pse,
                c.mask,
                c.kl,
                c.table,
                c.unsupported,
                c.n,
                c.scale,
                c.layout,
                c.nkv,
                c.block_size,
                c.inner,
                c.out,
            ),
        }
    }
}

/// Attention written out in PyTorch (f64): softmax(Q Kᵀ · scale + pse, masked) · V.
const ATTENTION_PY: &str = "q, k, v, pse, mask, meta, ql, kl = a
L, OL, n, nkv, band, pre, nxt = [int(x) for x in meta.tolist()[:7]]
scale = float(meta.tolist()[7])
def to4(t, heads):
    if L == 0:
        B, S, H = t.shape
        return t.reshape(B, S, heads, H // heads).permute(0, 2, 1, 3)
    return t.permute(0, 2, 1, 3) if L == 1 else t
Q, K, V = to4(q.double(), n), to4(k.double(), nkv), to4(v.double(), nkv)
B, N, S, D = Q.shape
Skv = K.shape[2]
K = K.repeat_interleave(n // nkv, 1)
V = V.repeat_interleave(n // nkv, 1)
s = torch.matmul(Q, K.transpose(-1, -2)) * scale
if pse is not None:
    s = s + pse.double()[..., :S, :Skv]
ok = torch.ones(B, N, S, Skv, dtype=torch.bool)
if mask is not None:
    m = mask[..., :S, :Skv] == 0
    if m.dim() == 2:
        m = m[None, None]
    elif m.dim() == 3:
        m = m[:, None]
    ok = ok & m
for b in range(B):
    qb, kb = int(ql[b]), int(kl[b])
    i = torch.arange(S)[:, None]
    j = torch.arange(Skv)[None, :]
    allow = (i < qb) & (j < kb)
    if band == 1:
        allow = allow & (j >= i - pre) & (j <= i + nxt)
    elif band == 2:
        c = i + kb - qb
        allow = allow & (j >= c - pre) & (j <= c + nxt)
    ok[b] = ok[b] & allow
s = s.masked_fill(~ok, float('-inf'))
lse = torch.logsumexp(s, -1, keepdim=True)
p = torch.nan_to_num(torch.softmax(s, -1), 0.0)
o = torch.matmul(p, V)
if OL == 0:
    o = o.permute(0, 2, 1, 3).reshape(B, S, N * D)
elif OL == 1:
    o = o.permute(0, 2, 1, 3)
out = [o, lse]";

const TEMPLATE_SIDE: usize = 2048;

#[test]
fn attention_entries_match_attention_in_torch() {
    let mut rng = Rng::new(0xa7e);
    let mut batch = Batch::new();
    let prog = batch.program(ATTENTION_PY);
    let mut pending = vec![];
    for case in 0..110 {
        let entry = ENTRIES[case % ENTRIES.len()];
        let incre = matches!(entry, Ifa(_));
        let d = rng.pick(&[F16, BF16]);
        // BSH, BSND, BNSD, BNSD_BSND (not IncreFlashAttention's).
        let layout_code = rng.below(if incre { 3 } else { 4 }) as usize;
        let layout_name = ["BSH", "BSND", "BNSD", "BNSD_BSND"][layout_code];
        let (b, s, skv, dd) = (
            1 + rng.below(2) as usize,
            if incre { 1 } else { 1 + rng.below(6) as usize },
            1 + rng.below(9) as usize,
            1 + rng.below(20) as usize,
        );
        let nkv = 1 + rng.below(2) as usize;
        let n = nkv * (1 + rng.below(3) as usize);
        let shape = |seq: usize, heads: usize, code: usize| -> Vec<usize> {
            match code {
                0 => vec![b, seq, heads * dd],
                1 | 4 => vec![b, seq, heads, dd],
                _ => vec![b, heads, seq, dd],
            }
        };
        let q = Buf::new(d, &shape(s, n, layout_code), layout(&mut rng), || {
            grid(&mut rng)
        });
        let k = Buf::new(d, &shape(skv, nkv, layout_code), layout(&mut rng), || {
            grid(&mut rng)
        });
        let v = Buf::new(d, &shape(skv, nkv, layout_code), layout(&mut rng), || {
            grid(&mut rng)
        });
        let out_code = if layout_code == 3 { 4 } else { layout_code };
        let o = Buf::new(d, &shape(s, n, out_code), layout(&mut rng), || 5.0);
        let pse = (entry.pse() && rng.pct(40)).then(|| {
            Buf::new(
                d,
                &[
                    if rng.pct(50) { b } else { 1 },
                    n,
                    s + rng.below(2) as usize,
                    skv + rng.below(3) as usize,
                ],
                layout(&mut rng),
                || grid(&mut rng),
            )
        });
        let sparse = if entry.sparse() {
            rng.pick(&[0, 0, 0, 1, 2, 3, 4])
        } else {
            0
        };
        let mask = if sparse >= 2 {
            Some(Buf::new(
                Bool,
                &[TEMPLATE_SIDE, TEMPLATE_SIDE],
                Layout::Contiguous,
                || 0.0,
            ))
        } else if sparse == 1 || rng.pct(50) {
            let (ms, mk) = (s + rng.below(2) as usize, skv + rng.below(2) as usize);
            // IncreFlashAttention documents (B or 1, N, 1, Skv).
            let sh = match rng.pick(&[0, 1, 2, 3]) {
                0 => vec![ms, mk],
                1 => vec![b, ms, mk],
                2 => vec![1, 1, ms, mk],
                _ => vec![if rng.pct(50) { b } else { 1 }, n, ms, mk],
            };
            let dt = rng.pick(&[Bool, S8, U8]);
            Some(Buf::new(dt, &sh, layout(&mut rng), || {
                rng.pct(25) as u8 as f64
            }))
        } else {
            None
        };
        let (pre, next) = (rng.below(6) as i64 - 1, rng.below(6) as i64 - 1);
        let (pre, next) = if incre || (sparse == 0 && rng.pct(50)) {
            (2147483647, 2147483647)
        } else {
            (pre, next)
        };
        let ql: Option<Vec<i64>> = (!incre && rng.pct(30))
            .then(|| (0..b).map(|_| rng.below(s as u64 + 1) as i64).collect());
        let kl: Option<Vec<i64>> = (!matches!(entry, Pfa(1)) && rng.pct(40))
            .then(|| (0..b).map(|_| rng.below(skv as u64 + 1) as i64).collect());
        let with_lse = matches!(entry, Fia(_)) && rng.pct(50);
        let lse = Buf::new(F32, &[b, n, s, 1], layout(&mut rng), || 7.0);
        let scale = 1.0 / (dd as f64).sqrt();
        let (qd, kd, vd, od, ld) = (q.desc(), k.desc(), v.desc(), o.desc(), lse.desc());
        let (pd, md) = (
            pse.as_ref().map(|p| p.desc()),
            mask.as_ref().map(|m| m.desc()),
        );
        let before = o.outside();
        let call = Call {
            q: &qd,
            k: &kd,
            v: &vd,
            pse: pd.as_ref(),
            mask: md.as_ref(),
            ql: ql.as_deref(),
            kl: kl.as_deref(),
            table: None,
            unsupported: &[],
            n: n as i64,
            nkv: if rng.pct(30) && n == nkv {
                0
            } else {
                nkv as i64
            },
            scale,
            pre,
            next,
            layout: layout_name,
            sparse,
            inner: rng.below(2) as i64,
            block_size: 0,
            lse: with_lse.then_some(&ld),
            out: &od,
        };
        let e = call
            .to(entry)
            .unwrap_or_else(|e| panic!("case {case} {entry:?}: {e}"));
        assert_eq!(e.api, entry.api());
        run(&e).unwrap();
        out_unwritten(&format!("{entry:?} {case}"), &before, &o);
        let band = match sparse {
            0 if mask.is_some() => (1, pre, next),
            0 | 1 => (0, 0, 0),
            2 => (1, i64::MAX / 4, 0),
            3 => (2, i64::MAX / 4, 0),
            _ => (2, pre, next),
        };
        let meta = [
            layout_code.min(2) as f64,
            [0, 1, 2, 1][layout_code] as f64,
            n as f64,
            nkv as f64,
            band.0 as f64,
            band.1 as f64,
            band.2 as f64,
            scale,
        ];
        let lens = |l: &Option<Vec<i64>>, full: usize| {
            Array::i64s(&[b], &l.clone().unwrap_or(vec![full as i64; b]))
        };
        let i = batch.case(
            prog,
            vec![
                Some(q.array()),
                Some(k.array()),
                Some(v.array()),
                pse.as_ref().map(|p| p.array()),
                mask.as_ref().filter(|_| sparse < 2).map(|m| m.array()),
                Some(Array::f64s(&[8], &meta)),
                Some(lens(&ql, s)),
                Some(lens(&kl, skv)),
            ],
        );
        let vmax = v.values().iter().fold(0f64, |a, x| a.max(x.abs()));
        pending.push((
            format!("case {case} {entry:?} {d} {layout_name} b{b} n{n}/{nkv} s{s} skv{skv} d{dd} sparse {sparse} pre {pre} next {next} ql {ql:?} kl {kl:?}"),
            i,
            o,
            d,
            skv + dd,
            vmax,
            with_lse.then_some(lse),
        ));
    }
    let Some(results) = batch.run("attention_entries") else {
        return;
    };
    for (what, i, o, d, len, vmax, lse) in pending {
        let r = results[i]
            .as_ref()
            .unwrap_or_else(|e| panic!("{what}: torch: {e}"));
        for (j, (g, w)) in o.values().iter().zip(r[0].to_f64s()).enumerate() {
            let tol = len as f64 * 2f64.powi(-22) * vmax.max(1.0) + half_ulp(d, w) * 1.01;
            assert!(
                (g - w).abs() <= tol,
                "{what}: out[{j}] = {g}, torch {w} ± {tol}"
            );
        }
        if let Some(l) = lse {
            for (j, (g, w)) in l.values().iter().zip(r[1].to_f64s()).enumerate() {
                assert!(
                    *g == w || (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{what}: lse[{j}] = {g}, torch {w}"
                );
            }
        }
    }
}

/// IncreFlashAttentionV3/V4's paged cache gives what the gathered cache gives, bit for
/// bit (the path FusedInferAttentionScoreV2's test checks against torch).
#[test]
fn incre_flash_attention_paged_cache_matches_the_gathered_cache() {
    let mut rng = Rng::new(0x1fa);
    for case in 0..8 {
        let entry = if case % 2 == 0 { Ifa(3) } else { Ifa(4) };
        let (b, nkv, dd, bs, max_blocks) = (
            1 + rng.below(2) as usize,
            1 + rng.below(2) as usize,
            1 + rng.below(8) as usize,
            1 + rng.below(6) as usize,
            1 + rng.below(3) as usize,
        );
        let n = nkv * (1 + rng.below(2) as usize);
        let block_num = b * max_blocks + 1;
        let skv = bs * max_blocks;
        let kl: Vec<i64> = (0..b).map(|_| 1 + rng.below(skv as u64) as i64).collect();
        // Block ids: the blocks in reverse order.
        let ids: Vec<usize> = (0..b * max_blocks).map(|i| block_num - 1 - i).collect();
        let mut ti = 0;
        let table = Buf::new(S32, &[b, max_blocks], Layout::Contiguous, || {
            ti += 1;
            ids.get(ti - 1).map_or(0.0, |&i| i as f64)
        });
        let h = nkv * dd;
        let kc = Buf::new(F16, &[block_num, bs, h], layout(&mut rng), || {
            grid(&mut rng)
        });
        let vc = Buf::new(F16, &[block_num, bs, h], layout(&mut rng), || {
            grid(&mut rng)
        });
        let gathered = |c: &Buf| -> Buf {
            let cv = c.values();
            let mut vals = vec![];
            for bi in 0..b {
                for t in 0..skv {
                    let id = ids[bi * max_blocks + t / bs];
                    vals.extend_from_slice(&cv[(id * bs + t % bs) * h..][..h]);
                }
            }
            let mut it = vals.into_iter();
            Buf::new(F16, &[b, skv, h], Layout::Contiguous, || {
                it.next().unwrap_or(0.0)
            })
        };
        let (kg, vg) = (gathered(&kc), gathered(&vc));
        let q = Buf::new(F16, &[b, 1, n * dd], layout(&mut rng), || grid(&mut rng));
        let outs = [0, 1].map(|_| Buf::new(F16, &[b, 1, n * dd], Layout::Contiguous, || 0.0));
        let (qd, kcd, vcd, kgd, vgd, td) = (
            q.desc(),
            kc.desc(),
            vc.desc(),
            kg.desc(),
            vg.desc(),
            table.desc(),
        );
        let (o1, o2) = (outs[0].desc(), outs[1].desc());
        let mut call = Call {
            q: &qd,
            k: &kcd,
            v: &vcd,
            pse: None,
            mask: None,
            ql: None,
            kl: Some(&kl),
            table: Some(&td),
            unsupported: &[],
            n: n as i64,
            nkv: nkv as i64,
            scale: 0.5,
            pre: 0,
            next: 0,
            layout: "BSH",
            sparse: 0,
            inner: 1,
            block_size: bs as i64,
            lse: None,
            out: &o1,
        };
        run(&call
            .to(entry)
            .unwrap_or_else(|e| panic!("case {case}: {e}")))
        .unwrap();
        (call.k, call.v, call.table, call.block_size, call.out) = (&kgd, &vgd, None, 0, &o2);
        run(&call.to(entry).unwrap()).unwrap();
        assert_eq!(
            outs[0].values(),
            outs[1].values(),
            "case {case}: b {b} n {n}/{nkv} block {bs} x {max_blocks} kv {kl:?}"
        );
    }
}

fn message(r: crate::Result<Executor>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn attention_entries_refuse_what_they_do_not_implement() {
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let (q, k, q1) = (h(&[1, 2, 2, 8]), h(&[1, 3, 2, 8]), h(&[1, 1, 2, 8]));
    let i8 = Buf::new(S8, &[1, 3, 2, 8], Layout::Contiguous, || 1.0);
    let (qd, kd, q1d, i8d) = (q.desc(), k.desc(), q1.desc(), i8.desc());
    let base = |q: &'static str| Call {
        q: if q == "one" { &q1d } else { &qd },
        k: &kd,
        v: &kd,
        pse: None,
        mask: None,
        ql: None,
        kl: None,
        table: None,
        unsupported: &[],
        n: 2,
        nkv: 2,
        scale: 0.5,
        pre: 0,
        next: 0,
        layout: "BSND",
        sparse: 0,
        inner: 0,
        block_size: 0,
        lse: None,
        out: if q == "one" { &q1d } else { &qd },
    };
    // IncreFlashAttention: one query token, no BNSD_BSND/TND layout.
    assert!(message(base("two").to(Ifa(1))).contains("has 2 tokens; it must have one"));
    let mut c = base("one");
    c.layout = "BNSD_BSND";
    assert!(message(c.to(Ifa(4))).contains("not one of BSH, BSND, BNSD"));
    // Its actualSeqLengths are the key/value lengths, named so.
    let mut c = base("one");
    c.kl = Some(&[4]);
    assert!(message(c.to(Ifa(2))).contains("actualSeqLengths[0] = 4 is not in [0, 3]"));
    // The quantized modes name themselves.
    let mut c = base("one");
    c.k = &i8d;
    c.v = &i8d;
    assert!(message(c.to(Ifa(3))).contains("key of dtype INT8"));
    let unsup = [("antiquantScale (an int8 KV cache)", true)];
    let mut c = base("one");
    c.unsupported = &unsup;
    assert!(message(c.to(Ifa(3))).contains("antiquantScale (an int8 KV cache) is not implemented"));
    let unsup = [("queryRopeOptional (the MLA rope split)", true)];
    let mut c = base("two");
    c.unsupported = &unsup;
    assert!(message(c.to(Fia(3))).contains("queryRopeOptional"));
    // Names are the entry's: V1 and PromptFlashAttention say attenMask, not ...Optional.
    let m = Buf::new(Bool, &[2, 2], Layout::Contiguous, || 0.0);
    let md = m.desc();
    for e in [Fia(1), Pfa(2)] {
        let mut c = base("two");
        c.mask = Some(&md);
        let msg = message(c.to(e));
        assert!(msg.contains("attenMask has shape [2, 2]"), "{e:?}: {msg}");
    }
    let mut c = base("two");
    c.sparse = 3;
    assert!(message(c.to(Pfa(3))).contains("sparseMode 3 needs attenMask"));
    c.sparse = 6;
    assert!(message(c.to(Pfa(3))).contains("sparseMode 6 is not supported"));
    let mut c = base("two");
    c.layout = "TND";
    assert!(message(c.to(Pfa(3))).contains("\"TND\" is not implemented"));
    // GQA: the head counts must divide.
    let mut c = base("two");
    c.n = 3;
    assert!(message(c.to(Pfa(1))).contains("numKeyValueHeads"));
    // A paged cache needs IncreFlashAttention's actualSeqLengths.
    let cache = h(&[2, 4, 16]);
    let t = Buf::new(S32, &[1, 1], Layout::Contiguous, || 0.0);
    let (cd, td) = (cache.desc(), t.desc());
    let mut c = base("one");
    (c.k, c.v, c.table, c.block_size) = (&cd, &cd, Some(&td), 4);
    assert!(message(c.to(Ifa(4))).contains("a paged cache (blocktable) needs actualSeqLengths"));
}

/// The rotation of a row by the documents' formulas (in f64): "half" cat(-x2, x1),
/// "interleave" pairs (-x[2i+1], x[2i]), "quarter" cat(-q2, q1, -q4, q3).
fn rotated(mode: &str, x: &[f64]) -> Vec<f64> {
    let d = x.len();
    match mode {
        "half" => {
            let (a, b) = x.split_at(d / 2);
            b.iter().map(|v| -v).chain(a.iter().copied()).collect()
        }
        "interleave" => x.chunks(2).flat_map(|p| [-p[1], p[0]]).collect(),
        _ => {
            let q: Vec<&[f64]> = x.chunks(d / 4).collect();
            let neg = |s: &[f64]| s.iter().map(|v| -v).collect::<Vec<_>>();
            [neg(q[1]), q[0].to_vec(), neg(q[3]), q[2].to_vec()].concat()
        }
    }
}

/// `x * c + r * s` rounded into `d` from f32 arithmetic: within a few f32 roundings of
/// the f64 value, plus half an ulp of the output dtype.
fn check_rope(what: &str, d: crate::dtype::DType, got: &[f64], terms: &[(f64, f64)]) {
    for (j, (g, (a, b))) in got.iter().zip(terms).enumerate() {
        let w = a + b;
        let tol = (a.abs() + b.abs()) * 2f64.powi(-22) + half_ulp(d, w) * 1.01;
        assert!(
            (g - w).abs() <= tol,
            "{what}: [{j}] = {g}, want {w} ± {tol}"
        );
    }
}

/// Row-major index of `idx` in `shape`, with dims of size 1 broadcast.
fn at(shape: &[usize], idx: &[usize]) -> usize {
    shape
        .iter()
        .zip(idx)
        .fold(0, |a, (&n, &i)| a * n + if n == 1 { 0 } else { i })
}

#[test]
fn apply_rotary_pos_emb_matches_the_formula() {
    let mut rng = Rng::new(0x7e);
    for case in 0..40 {
        let v2 = case % 4 != 0;
        let d = rng.pick(&[F16, BF16, F32]);
        let layout_code = if v2 { 1 + rng.below(3) as i64 } else { 1 };
        let mode = if v2 {
            rng.pick(&["half", "interleave", "quarter"])
        } else {
            "half"
        };
        let dd = if v2 {
            4 * (1 + rng.below(6) as usize)
        } else {
            128
        };
        let (b, s, nq, nk) = (
            1 + rng.below(2) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(2) as usize,
        );
        let n_axis = if layout_code == 3 { 1 } else { 2 };
        let shape = |n: usize| -> Vec<usize> {
            let mut sh = match layout_code {
                1 => vec![b, s, 0, dd],
                2 => vec![s, b, 0, dd],
                _ => vec![b, 0, s, dd],
            };
            sh[n_axis] = n;
            sh
        };
        let q = Buf::new(d, &shape(nq), layout(&mut rng), || grid(&mut rng));
        let k = Buf::new(d, &shape(nk), layout(&mut rng), || grid(&mut rng));
        let c = Buf::new(d, &shape(1), layout(&mut rng), || grid(&mut rng));
        let sn = Buf::new(d, &shape(1), layout(&mut rng), || grid(&mut rng));
        let (q0, k0, cv, sv) = (q.values(), k.values(), c.values(), sn.values());
        let (qb, kb) = (q.outside(), k.outside());
        let e = llm::apply_rotary_pos_emb(
            v2,
            &q.desc(),
            &k.desc(),
            &c.desc(),
            &sn.desc(),
            layout_code,
            mode,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        let what = format!(
            "case {case} v2 {v2} {d} layout {layout_code} {mode} q {:?} k {:?}",
            q.shape, k.shape
        );
        for (x0, buf, before) in [(&q0, &q, &qb), (&k0, &k, &kb)] {
            out_unwritten(&what, before, buf);
            let mut terms = vec![];
            for (r, row) in x0.chunks(dd).enumerate() {
                let rot = rotated(mode, row);
                let mut idx = super::llm_diff::indices(&buf.shape)[r * dd].clone();
                for j in 0..dd {
                    idx[3] = j;
                    let t = at(&c.shape, &idx);
                    terms.push((row[j] * cv[t], rot[j] * sv[t]));
                }
            }
            check_rope(&what, d, &buf.values(), &terms);
        }
    }
}

#[test]
fn interleave_rope_matches_the_formula() {
    let mut rng = Rng::new(0x1e);
    for case in 0..12 {
        let d = rng.pick(&[F16, BF16]);
        let (b, n, s) = (
            1 + rng.below(2) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(3) as usize,
        );
        let cs = if rng.pct(50) { s } else { 1 };
        let x = Buf::new(d, &[b, n, s, 64], layout(&mut rng), || grid(&mut rng));
        let c = Buf::new(d, &[b, 1, cs, 64], layout(&mut rng), || grid(&mut rng));
        let sn = Buf::new(d, &[b, 1, cs, 64], layout(&mut rng), || grid(&mut rng));
        let inplace = rng.pct(30);
        let o = Buf::new(d, &[b, n, s, 64], layout(&mut rng), || 3.0);
        let out = if inplace { &x } else { &o };
        let (x0, cv, sv, before) = (x.values(), c.values(), sn.values(), out.outside());
        let e = llm::interleave_rope(&x.desc(), &c.desc(), &sn.desc(), &out.desc())
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        out_unwritten(&format!("interleave_rope {case}"), &before, out);
        let mut terms = vec![];
        for (r, row) in x0.chunks(64).enumerate() {
            // q = cat(x[::2], x[1::2]), then rotated by halves.
            let q: Vec<f64> = row
                .iter()
                .step_by(2)
                .chain(row.iter().skip(1).step_by(2))
                .copied()
                .collect();
            let rot = rotated("half", &q);
            let (bi, si) = (r / (n * s), r % s);
            for j in 0..64 {
                let t = at(&c.shape, &[bi, 0, si, j]);
                terms.push((q[j] * cv[t], rot[j] * sv[t]));
            }
        }
        check_rope(
            &format!("interleave_rope {case} {d} {b}x{n}x{s} cos S {cs}"),
            d,
            &out.values(),
            &terms,
        );
    }
}

#[test]
fn rope_with_sin_cos_cache_matches_vllms_formula() {
    let mut rng = Rng::new(0xc05);
    for case in 0..20 {
        let d = rng.pick(&[F16, BF16, F32]);
        let (t, nq, nk, head) = (
            1 + rng.below(5) as usize,
            1 + rng.below(3) as usize,
            1 + rng.below(2) as usize,
            2 * (1 + rng.below(6) as usize),
        );
        let rot = 2 * (1 + rng.below(head as u64 / 2) as usize);
        let max_pos = 1 + rng.below(8) as usize;
        let neox = rng.pct(50);
        let pos: Vec<f64> = (0..t).map(|_| rng.below(max_pos as u64) as f64).collect();
        let mut pi = pos.iter();
        let pd = rng.pick(&[S32, S64]);
        let p = Buf::new(pd, &[t], Layout::Contiguous, || *pi.next().unwrap_or(&0.0));
        let q = Buf::new(d, &[t, nq * head], layout(&mut rng), || grid(&mut rng));
        let k = Buf::new(d, &[t, nk * head], layout(&mut rng), || grid(&mut rng));
        let cache = Buf::new(d, &[max_pos, rot], layout(&mut rng), || grid(&mut rng));
        let qo = Buf::new(d, &[t, nq * head], layout(&mut rng), || 3.0);
        let ko = Buf::new(d, &[t, nk * head], layout(&mut rng), || 3.0);
        let (before_q, before_k) = (qo.outside(), ko.outside());
        let e = llm::rope_with_sin_cos_cache(
            &p.desc(),
            &q.desc(),
            &k.desc(),
            &cache.desc(),
            None,
            head as i64,
            neox,
            &qo.desc(),
            &ko.desc(),
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}"));
        run(&e).unwrap();
        let cv = cache.values();
        let what = format!("case {case} {d} t {t} heads {nq}/{nk} x {head} rot {rot} neox {neox}");
        for (x, o, before) in [(&q, &qo, &before_q), (&k, &ko, &before_k)] {
            out_unwritten(&what, before, o);
            let xv = x.values();
            let mut terms = vec![];
            for (r, row) in xv.chunks(head).enumerate() {
                let tok = r / (x.shape[1] / head);
                let prow = &cv[pos[tok] as usize * rot..][..rot];
                let (cos, sin) = prow.split_at(rot / 2);
                let mut y = vec![(0.0, 0.0); head];
                for j in rot..head {
                    y[j] = (row[j], 0.0);
                }
                for i in 0..rot / 2 {
                    // vLLM: o1 = x1 cos - x2 sin, o2 = x2 cos + x1 sin.
                    let (a, b) = if neox {
                        (i, i + rot / 2)
                    } else {
                        (2 * i, 2 * i + 1)
                    };
                    y[a] = (row[a] * cos[i], -row[b] * sin[i]);
                    y[b] = (row[b] * cos[i], row[a] * sin[i]);
                }
                terms.extend(y);
            }
            check_rope(&what, d, &o.values(), &terms);
        }
    }
    // A position outside the cache is refused when the work runs.
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let p = Buf::new(S64, &[1], Layout::Contiguous, || 9.0);
    let (q, c) = (h(&[1, 4]), h(&[2, 4]));
    let e = llm::rope_with_sin_cos_cache(
        &p.desc(),
        &q.desc(),
        &q.desc(),
        &c.desc(),
        None,
        4,
        true,
        &q.desc(),
        &q.desc(),
    )
    .unwrap();
    assert!(run(&e)
        .unwrap_err()
        .to_string()
        .contains("positions[0] = 9"));
}

#[test]
fn rope_variants_refuse_what_they_do_not_implement() {
    let h = |shape: &[usize]| Buf::new(F16, shape, Layout::Contiguous, || 1.0);
    let (q, k, c) = (h(&[1, 2, 2, 128]), h(&[1, 2, 1, 128]), h(&[1, 2, 1, 128]));
    let (qd, kd, cd) = (q.desc(), k.desc(), c.desc());
    let apply = |v2: bool, q: &TensorDesc, layout: i64, mode: &str| {
        message(llm::apply_rotary_pos_emb(
            v2, q, &kd, &cd, &cd, layout, mode,
        ))
    };
    assert!(apply(false, &qd, 2, "half").contains("only 1 (BSND)"));
    assert!(apply(true, &qd, 4, "half").contains("not one of 1 (BSND)"));
    assert!(apply(true, &qd, 1, "rotate").contains("rotaryMode \"rotate\""));
    let q64 = h(&[1, 2, 2, 64]);
    assert!(apply(false, &q64.desc(), 1, "half").contains("must be equal but for N"));
    let (q6, k6, c6) = (h(&[1, 2, 2, 6]), h(&[1, 2, 1, 6]), h(&[1, 2, 1, 6]));
    let r = llm::apply_rotary_pos_emb(
        true,
        &q6.desc(),
        &k6.desc(),
        &c6.desc(),
        &c6.desc(),
        1,
        "quarter",
    );
    assert!(message(r).contains("multiple of 4"));
    let cb = h(&[1, 2, 2, 128]);
    let r = llm::apply_rotary_pos_emb(false, &qd, &kd, &cb.desc(), &cb.desc(), 1, "half");
    assert!(message(r).contains("with N = 1"));
    let x = h(&[1, 2, 2, 32]);
    let r = llm::interleave_rope(&x.desc(), &x.desc(), &x.desc(), &x.desc());
    assert!(message(r).contains("must be 64"));
    let x = Buf::new(F32, &[1, 1, 1, 64], Layout::Contiguous, || 1.0);
    let r = llm::interleave_rope(&x.desc(), &x.desc(), &x.desc(), &x.desc());
    assert!(message(r).contains("dtype"));
    let (p, q, cache) = (
        Buf::new(S64, &[2], Layout::Contiguous, || 0.0),
        h(&[2, 8]),
        h(&[4, 4]),
    );
    let rope = |m: Option<&[i64]>, head: i64, q: &TensorDesc| {
        message(llm::rope_with_sin_cos_cache(
            &p.desc(),
            q,
            q,
            &cache.desc(),
            m,
            head,
            true,
            q,
            q,
        ))
    };
    assert!(rope(Some(&[1, 1, 2]), 4, &q.desc()).contains("mropeSection"));
    assert!(rope(None, 3, &q.desc()).contains("headSize 3"));
    assert!(rope(None, 2, &q.desc()).contains("at most headSize 2"));
    assert!(rope(None, 4, &h(&[3, 8]).desc()).contains("one token count"));
}
