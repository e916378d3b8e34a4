//! The attention engine, and FusedInferAttentionScoreV2 (hicann/ops-transformer
//! aclnnFusedInferAttentionScoreV2.md) on it:
//! `attentionOut = softmax(scaleValue · Q Kᵀ + pseShift, masked) · V` per batch and head,
//! the flash-attention llama.cpp's CANN back-end runs (BSND, a broadcast f16 pseShift as
//! its mask, no attenMask). Every other attention entry point (FusedInferAttentionScore
//! V1/V3/V4, PromptFlashAttention, IncreFlashAttention) is a `Request` to the same engine
//! (`attention_entries.rs`).
//!
//! Implemented:
//! - layouts BSH (H = numHeads·D), BSND, BNSD and BNSD_BSND (BNSD in, BSND out); query,
//!   key and value f16 or bf16 of one dtype, any views (one key and one value tensor);
//! - GQA: numKeyValueHeads (0: numHeads) divides numHeads, at most 64 query heads per
//!   key/value head; head h reads key/value head h / (numHeads / numKeyValueHeads);
//! - pseShift (B or 1, N, ≥S, ≥Skv) of query's dtype, added after the scaling;
//! - attenMask bool/int8/uint8, non-zero = not attended, of shape (S, Skv), (B or 1, S,
//!   Skv) or (B or 1, 1 or N, S, Skv) (the last two dims may be padded larger);
//! - sparseMode 0 (the mask and, with a mask, the band preTokens/nextTokens around the
//!   diagonal), 1 (the whole mask), 2 (causal from the top left), 3 (causal from the bottom
//!   right), 4 (a band of preTokens/nextTokens around the bottom-right diagonal); modes 2-4
//!   require the 2048×2048 template mask the device requires and compute the pattern it
//!   stands for;
//! - actualSeqLengths/actualSeqLengthsKv (one value for all batches or one per batch):
//!   query rows past the length give zeros, key positions past it are not attended;
//! - a paged cache: blockTableOptional (B, maxBlocks) int32 gathers blocks of blockSize
//!   positions (1-512, a multiple of 128 when S > 1) from key/value (blockNum, blockSize,
//!   H), or (blockNum, KV_N, blockSize, D) with a BNSD query; actualSeqLengthsKv is then
//!   required, and a block id outside the cache is refused when the work runs;
//! - softmaxLse (B, N, S, 1) f32 with softmaxLseFlag: `max + ln Σ exp(s - max)`, -inf for
//!   a row with nothing to attend; without the flag softmaxLse is left as it is;
//! - innerPrecise 0-3: a row with nothing to attend gives zeros in every mode (the device's
//!   row-invalid correction).
//!
//! Numbers: Q Kᵀ and P·V run on the GEMM in f32 (f16/bf16 inputs widened exactly), the
//! scaling, pseShift and the softmax (max subtracted) in f32, and the result is rounded
//! once to attentionOut's dtype: within (Skv + D)·2^-22 of the f64 formula relative to
//! max|V| (f32 rounding of the scores, exponentials and sums) plus half an ulp of the
//! output dtype.
//!
//! Refused with ACLNN_ERR_PARAM_INVALID naming them: the TND/NTD_TND layouts, every
//! quantization input (deqScale1/2, quantScale1/2,
//! quantOffset2, antiquant*, key/valueAntiquant*), the padding sizes, the shared prefix,
//! key/value lists of more than one tensor, int8 query/key/value/output (named as the
//! quantized or antiquant mode).

use super::dense::{bindings, load_view, store_view};
use super::linalg::product_f32;
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, ListParam, Nothing, Work, Workspace};
use crate::ops::elementwise as ew;
use crate::tensor::TensorDesc;

use DType::*;
pub(crate) const QKV: &[DType] = &[F16, BF16];
const MASK: &[DType] = &[Bool, S8, U8];
/// The template mask sparse modes 2-4 take.
const TEMPLATE: usize = 2048;

/// Where a tensor of the operator sits among its bindings.
mod at {
    pub const QUERY: usize = 0;
    pub const KEY: usize = 1;
    pub const VALUE: usize = 2;
    pub const PSE: usize = 3;
    pub const MASK: usize = 4;
    pub const BLOCK_TABLE: usize = 5;
    pub const OUT: usize = 6;
    pub const LSE: usize = 7;
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    Bsh,
    Bsnd,
    Bnsd,
}

/// The view `t` (in `layout`, `heads` heads) seen as (B, N, S, D).
fn bnsd(t: &TensorDesc, layout: Layout, heads: usize) -> TensorDesc {
    let mut v = t.clone();
    let (sh, st) = (&t.shape, &t.strides);
    match layout {
        Layout::Bnsd => {}
        Layout::Bsnd => {
            v.shape = smallvec::smallvec![sh[0], sh[2], sh[1], sh[3]];
            v.strides = smallvec::smallvec![st[0], st[2], st[1], st[3]];
        }
        Layout::Bsh => {
            let d = sh[2] / heads.max(1);
            v.shape = smallvec::smallvec![sh[0], heads, sh[1], d];
            v.strides = smallvec::smallvec![st[0], st[2] * d as isize, st[1], st[2]];
        }
    }
    v
}

/// The first `s` x `skv` block of the mask/pse view `t`'s last two dims, with its
/// leading dims made (B-or-1, N-or-1).
fn block(t: &TensorDesc, s: usize, skv: usize) -> TensorDesc {
    let r = t.rank();
    let mut v = t.clone();
    v.shape[r - 2] = s;
    v.shape[r - 1] = skv;
    // (S, Skv) -> (1, 1, S, Skv); (B, S, Skv) -> (B, 1, S, Skv).
    while v.rank() < 4 {
        let at = if v.rank() == 3 { 1 } else { 0 };
        v.shape.insert(at, 1);
        v.strides.insert(at, 0);
    }
    v
}

/// The actual lengths: none (the full length), one for every batch, or one per batch.
fn lengths(name: &str, v: Option<&[i64]>, batch: usize, full: usize) -> Result<Vec<usize>> {
    let Some(v) = v else {
        return Ok(vec![full; batch]);
    };
    crate::ensure!(
        v.len() == 1 || v.len() >= batch,
        "{name} has {} values; it needs 1 or at least the batch size {batch}",
        v.len()
    );
    (0..batch)
        .map(|b| {
            let l = if v.len() == 1 { v[0] } else { v[b] };
            crate::ensure!(
                (0..=full as i64).contains(&l),
                "{name}[{b}] = {l} is not in [0, {full}] (the sequence length)"
            );
            Ok(l as usize)
        })
        .collect()
}

/// The parameter names an entry point's header gives the engine's optional inputs, so
/// that messages name what the caller passed.
pub(crate) struct Names {
    pub pse: &'static str,
    pub mask: &'static str,
    pub q_lens: &'static str,
    pub kv_lens: &'static str,
    pub block_table: &'static str,
}

/// One call of the attention engine: what every entry point (FusedInferAttentionScore
/// V1-V4, PromptFlashAttention V1-V3, IncreFlashAttention V1-V4) reduces to.
pub(crate) struct Request<'a> {
    /// The phase-2 function ("aclnnFusedInferAttentionScoreV2").
    pub api: &'static str,
    pub names: &'a Names,
    pub query: &'a TensorDesc,
    pub key: &'a [&'a TensorDesc],
    pub value: &'a [&'a TensorDesc],
    /// key and value are aclTensorLists (bound as lists of one tensor), not aclTensors.
    pub kv_lists: bool,
    /// IncreFlashAttention: the query has one token.
    pub one_token: bool,
    pub pse_shift: Option<&'a TensorDesc>,
    pub atten_mask: Option<&'a TensorDesc>,
    pub actual_seq_lengths: Option<&'a [i64]>,
    pub actual_seq_lengths_kv: Option<&'a [i64]>,
    pub block_table: Option<&'a TensorDesc>,
    /// Inputs and modes not implemented: (what, given); a given one is refused.
    pub unsupported: &'a [(&'a str, bool)],
    pub num_heads: i64,
    pub scale_value: f64,
    pub pre_tokens: i64,
    pub next_tokens: i64,
    pub input_layout: &'a str,
    pub num_key_value_heads: i64,
    pub sparse_mode: i64,
    pub inner_precise: i64,
    pub block_size: i64,
    pub softmax_lse_flag: bool,
    pub attention_out: &'a TensorDesc,
    pub softmax_lse: Option<&'a TensorDesc>,
}

/// The engine's phase 1: checks `r` and builds the executor.
pub(crate) fn attention(r: &Request) -> Result<Executor> {
    let Request {
        api,
        names,
        query,
        key,
        value,
        kv_lists,
        one_token,
        pse_shift,
        atten_mask,
        actual_seq_lengths,
        actual_seq_lengths_kv,
        block_table,
        unsupported,
        num_heads,
        scale_value,
        pre_tokens,
        next_tokens,
        input_layout,
        num_key_value_heads,
        sparse_mode,
        inner_precise,
        block_size,
        softmax_lse_flag,
        attention_out,
        softmax_lse,
    } = *r;
    for (name, given) in unsupported {
        crate::ensure!(!given, "{name} is not implemented by aclnn-cpu (pass NULL)");
    }
    let (layout, out_layout) = match input_layout {
        "BSH" => (Layout::Bsh, Layout::Bsh),
        "BSND" => (Layout::Bsnd, Layout::Bsnd),
        "BNSD" => (Layout::Bnsd, Layout::Bnsd),
        "BNSD_BSND" if !one_token => (Layout::Bnsd, Layout::Bsnd),
        "TND" | "NTD_TND" if !one_token => {
            crate::bail!("inputLayout \"{input_layout}\" is not implemented by aclnn-cpu")
        }
        l if one_token => crate::bail!("inputLayout \"{l}\" is not one of BSH, BSND, BNSD"),
        l => crate::bail!(
            "inputLayout \"{l}\" is not one of BSH, BSND, BNSD, BNSD_BSND, TND, NTD_TND"
        ),
    };
    crate::ensure!(
        key.len() == 1 && value.len() == 1,
        "key and value have {} and {} tensors: lists of one tensor each are implemented by aclnn-cpu",
        key.len(),
        value.len()
    );
    let (k, v) = (key[0], value[0]);
    // Quantized attention (int8 query/output) and int8 key/value (antiquant) are the
    // documented modes not implemented: name them rather than the dtype list.
    for (name, t) in [
        ("query", query),
        ("key", k),
        ("value", v),
        ("attentionOut", attention_out),
    ] {
        crate::ensure!(
            t.dtype != S8,
            "{name} of dtype INT8 (quantized attention or an antiquant KV cache) is not implemented by aclnn-cpu"
        );
    }
    ew::check_tensor("query", query, QKV)?;
    let pse_named = pse_shift.map(|p| (names.pse, p));
    for (name, t) in [("key", k), ("value", v), ("attentionOut", attention_out)]
        .into_iter()
        .chain(pse_named)
    {
        ew::check_tensor(name, t, QKV)?;
        crate::ensure!(
            t.dtype == query.dtype,
            "{name} has dtype {} but query has {}: they must be the same",
            t.dtype,
            query.dtype
        );
    }
    if let Some(m) = atten_mask {
        ew::check_tensor(names.mask, m, MASK)?;
    }
    let rank = if layout == Layout::Bsh { 3 } else { 4 };
    for (name, t) in [("query", query), ("attentionOut", attention_out)]
        .into_iter()
        .chain(
            block_table
                .is_none()
                .then_some([("key", k), ("value", v)])
                .into_iter()
                .flatten(),
        )
    {
        crate::ensure!(
            t.rank() == rank,
            "{name} has shape {:?}; layout {input_layout} needs {rank} dims",
            t.shape
        );
    }
    let q_seq = query.shape[if layout == Layout::Bnsd { 2 } else { 1 }];
    crate::ensure!(
        !one_token || q_seq == 1,
        "query of shape {:?} has {q_seq} tokens; it must have one (S = 1)",
        query.shape
    );
    // A paged cache: key and value are blocks (blockNum, blockSize, H) or, with a BNSD
    // query, (blockNum, KV_N, blockSize, D), gathered by blockTable (B, maxBlocks).
    let paged = match block_table {
        None => None,
        Some(bt) => {
            ew::check_tensor(names.block_table, bt, &[S32])?;
            crate::ensure!(
                k.rank() == 3 || (k.rank() == 4 && layout == Layout::Bnsd),
                "key of shape {:?} is not a paged cache (blockNum, blockSize, H), or (blockNum, KV_N, blockSize, D) with a BNSD query",
                k.shape
            );
            crate::ensure!(
                (1..=512).contains(&block_size) && (q_seq == 1 || block_size % 128 == 0),
                "blockSize {block_size} must be in [1, 512] (a multiple of 128 when the query has more than one token)"
            );
            crate::ensure!(
                bt.rank() == 2,
                "{} has shape {:?}; it must have 2 dims (B, maxBlockNumPerSeq)",
                names.block_table,
                bt.shape
            );
            crate::ensure!(
                actual_seq_lengths_kv.is_some(),
                "a paged cache ({}) needs {}",
                names.block_table,
                names.kv_lens
            );
            Some((block_size as usize, bt.shape[1]))
        }
    };
    crate::ensure!(
        (1..=256).contains(&num_heads),
        "numHeads {num_heads} must be in [1, 256]"
    );
    let n = num_heads as usize;
    let nkv = if num_key_value_heads == 0 {
        n
    } else {
        num_key_value_heads as usize
    };
    crate::ensure!(
        num_key_value_heads >= 0 && n.is_multiple_of(nkv) && n / nkv <= 64,
        "numKeyValueHeads {num_key_value_heads} must divide numHeads {n} with a ratio of at most 64"
    );
    if layout == Layout::Bsh {
        crate::ensure!(
            query.shape[2].is_multiple_of(n) && k.shape[2].is_multiple_of(nkv) && query.shape[2] / n == k.shape[2] / nkv,
            "query H = {} and key H = {} must be numHeads {n} and numKeyValueHeads {nkv} times one D",
            query.shape[2],
            k.shape[2]
        );
    }
    let q4 = bnsd(query, layout, n);
    // A paged cache's (blockNum, blockSize, H) splits H as BSH does.
    let kv_layout = match (paged, k.rank()) {
        (Some(_), 3) => Layout::Bsh,
        (Some(_), _) => Layout::Bnsd,
        (None, _) => layout,
    };
    let k4 = bnsd(k, kv_layout, nkv);
    let v4 = bnsd(v, kv_layout, nkv);
    let (b, s, d) = (q4.shape[0], q4.shape[2], q4.shape[3]);
    crate::ensure!(
        q4.shape[1] == n,
        "query has {} heads but numHeads is {n}",
        q4.shape[1]
    );
    let (kv_batch, skv) = match paged {
        Some((bs, blocks)) => {
            crate::ensure!(
                block_table.is_some_and(|t| t.shape[0] == b) && k4.shape[2] == bs,
                "{} {:?} and key {:?} do not fit a batch of {b} with blockSize {bs}",
                names.block_table,
                block_table.map(|t| t.shape.to_vec()),
                k.shape
            );
            (k4.shape[0], bs * blocks)
        }
        None => (b, k4.shape[2]),
    };
    crate::ensure!(
        k4.shape[..] == [kv_batch, nkv, k4.shape[2], d]
            && (kv_layout != Layout::Bsh || k.shape[2] == nkv * d)
            && v.shape == k.shape,
        "key {:?} and value {:?} do not fit query {:?} with {nkv} key/value heads in layout {input_layout}",
        k.shape,
        v.shape,
        query.shape
    );
    crate::ensure!(d <= 512, "D = {d} is above 512");
    let out_shape: Vec<usize> = match out_layout {
        Layout::Bsh => vec![b, s, n * d],
        Layout::Bsnd => vec![b, s, n, d],
        Layout::Bnsd => vec![b, n, s, d],
    };
    ew::check_result_shape("attentionOut", attention_out, &out_shape)?;
    let o4 = bnsd(attention_out, out_layout, n);
    crate::ensure!(
        (0..=4).contains(&sparse_mode),
        "sparseMode {sparse_mode} is not supported: only 0 (default), 1 (all), 2 (left-up causal), 3 (right-down causal) and 4 (band) are"
    );
    crate::ensure!(
        (0..=3).contains(&inner_precise),
        "innerPrecise {inner_precise} is not one of 0, 1, 2, 3"
    );
    let pse = match pse_shift {
        Some(p) => {
            crate::ensure!(
                p.rank() == 4
                    && (p.shape[0] == b || p.shape[0] == 1)
                    && p.shape[1] == n
                    && p.shape[2] >= s
                    && p.shape[3] >= skv,
                "{} has shape {:?}; it must be ({b} or 1, {n}, {s}, {skv})",
                names.pse,
                p.shape
            );
            Some(block(p, s, skv))
        }
        None => None,
    };
    let mask = match atten_mask {
        Some(m) => {
            let r = m.rank();
            let ok = if sparse_mode >= 2 {
                (2..=4).contains(&r)
                    && m.shape[r - 2..] == [TEMPLATE, TEMPLATE]
                    && m.shape[..r - 2].iter().all(|&x| x == 1)
            } else {
                (2..=4).contains(&r)
                    && m.shape[r - 2] >= s
                    && m.shape[r - 1] >= skv
                    && (r < 3 || m.shape[0] == b || m.shape[0] == 1)
                    && (r < 4 || m.shape[1] == 1 || m.shape[1] == n)
            };
            crate::ensure!(
                ok,
                "{} has shape {:?}; with sparseMode {sparse_mode} it must be {}",
                names.mask,
                m.shape,
                if sparse_mode >= 2 {
                    "(2048, 2048), (1, 2048, 2048) or (1, 1, 2048, 2048)".to_string()
                } else {
                    format!(
                        "({s}, {skv}), ({b} or 1, {s}, {skv}) or ({b} or 1, 1 or {n}, {s}, {skv})"
                    )
                }
            );
            (sparse_mode < 2).then(|| block(m, s, skv))
        }
        None => {
            crate::ensure!(
                sparse_mode == 0,
                "sparseMode {sparse_mode} needs {}",
                names.mask
            );
            None
        }
    };
    let lse = match (softmax_lse_flag, softmax_lse) {
        (true, None) => crate::bail!("softmaxLseFlag is true but softmaxLse is NULL"),
        (true, Some(l)) => {
            crate::ensure!(
                l.dtype == F32,
                "softmaxLse has dtype {}; it must be ACL_FLOAT",
                l.dtype
            );
            ew::check_result_shape("softmaxLse", l, &[b, n, s, 1])?;
            true
        }
        (false, _) => false,
    };
    let q_len = lengths(names.q_lens, actual_seq_lengths, b, s)?;
    let kv_len = lengths(names.kv_lens, actual_seq_lengths_kv, b, skv)?;
    let band = match sparse_mode {
        0 if atten_mask.is_some() => Band::TopLeft(pre_tokens, next_tokens),
        2 => Band::TopLeft(i64::MAX, 0),
        3 => Band::BottomRight(i64::MAX, 0),
        4 => Band::BottomRight(pre_tokens, next_tokens),
        _ => Band::All,
    };
    let mut bd = bindings(
        &[
            Some(query),
            Some(k),
            Some(v),
            pse_shift,
            atten_mask,
            block_table,
        ],
        &[Some(attention_out), softmax_lse],
    );
    if !lse {
        // softmaxLse is not written without the flag.
        bd.outputs.truncate(1);
    }
    // key and value as one-tensor lists: parameters 1 and 2, bindings KEY and VALUE.
    let list = |ir: usize, first: usize| ListParam {
        output: false,
        ir_index: ir,
        any_index: ir,
        first,
        len: 1,
    };
    let lists = if kv_lists {
        vec![list(1, at::KEY), list(2, at::VALUE)]
    } else {
        vec![]
    };
    let work: std::sync::Arc<dyn Work> = if attention_out.is_empty() {
        std::sync::Arc::new(Nothing)
    } else {
        std::sync::Arc::new(Attention {
            b,
            n,
            nkv,
            s,
            skv,
            d,
            views: [q4, k4, v4, o4],
            pse,
            mask,
            band,
            scale: scale_value as f32,
            q_len,
            kv_len,
            lse,
            paged,
            block_table: names.block_table,
        })
    };
    let mut e = Executor::shared(api, bd, work);
    e.lists = lists;
    Ok(e)
}

/// Which key positions a query row may attend, besides the mask.
#[derive(Clone, Copy, Debug)]
enum Band {
    All,
    /// j in [i - pre, i + next].
    TopLeft(i64, i64),
    /// j in [i + (kv_len - q_len) - pre, i + (kv_len - q_len) + next].
    BottomRight(i64, i64),
}

impl Band {
    fn allows(self, i: usize, j: usize, q_len: usize, kv_len: usize) -> bool {
        let (i, j) = (i as i64, j as i64);
        let (c, pre, next) = match self {
            Band::All => return true,
            Band::TopLeft(p, n) => (i, p, n),
            Band::BottomRight(p, n) => (i + kv_len as i64 - q_len as i64, p, n),
        };
        j >= c.saturating_sub(pre) && j <= c.saturating_add(next)
    }
}

struct Attention {
    b: usize,
    n: usize,
    nkv: usize,
    s: usize,
    skv: usize,
    d: usize,
    /// query, key, value and attentionOut as (B, N, S, D) views.
    views: [TensorDesc; 4],
    /// pseShift and attenMask as (B|1, N|1, S, Skv) views.
    pse: Option<TensorDesc>,
    mask: Option<TensorDesc>,
    band: Band,
    scale: f32,
    q_len: Vec<usize>,
    kv_len: Vec<usize>,
    lse: bool,
    /// A paged cache: (blockSize, maxBlocks); the key/value views are (blockNum, KV_N,
    /// blockSize, D).
    paged: Option<(usize, usize)>,
    /// The block table's parameter name, for the run-time refusal of a block id.
    block_table: &'static str,
}

impl Attention {
    /// Key or value (binding `at`) as (B, KV_N, Skv, D): the view itself, or the blocks of
    /// a paged cache gathered by blockTable (positions past a batch's length are zeros).
    fn key_or_value(&self, t: &Bindings, at: usize, view: &TensorDesc) -> Result<Vec<f32>> {
        let blocks = load_view::<f32>(t, at, view, &view.shape)?;
        let Some((bs, max_blocks)) = self.paged else {
            return Ok(blocks);
        };
        let table = super::dense::load::<i32>(t, at::BLOCK_TABLE, &[self.b, max_blocks])?;
        let (nkv, d, skv) = (self.nkv, self.d, self.skv);
        let block_num = view.shape[0];
        let mut out = vec![0f32; self.b * nkv * skv * d];
        for bi in 0..self.b {
            for j in 0..self.kv_len[bi].div_ceil(bs) {
                let id = table[bi * max_blocks + j];
                crate::ensure!(
                    (0..block_num as i64).contains(&(id as i64)),
                    "{}[{bi}][{j}] = {id} is not a block of the cache (it has {block_num})",
                    self.block_table
                );
                for h in 0..nkv {
                    let src = ((id as usize * nkv + h) * bs) * d;
                    let dst = ((bi * nkv + h) * skv + j * bs) * d;
                    out[dst..dst + bs * d].copy_from_slice(&blocks[src..src + bs * d]);
                }
            }
        }
        Ok(out)
    }
}

impl Work for Attention {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        use rayon::prelude::*;
        let (b, n, s, skv, d) = (self.b, self.n, self.s, self.skv, self.d);
        let [q4, k4, v4, o4] = &self.views;
        let q = load_view::<f32>(t, at::QUERY, q4, &q4.shape)?;
        let k = self.key_or_value(t, at::KEY, k4)?;
        let v = self.key_or_value(t, at::VALUE, v4)?;
        let full = [b, n, s, skv];
        let pse = match &self.pse {
            Some(p) => Some(load_view::<f32>(t, at::PSE, p, &full)?),
            None => None,
        };
        let mask = match &self.mask {
            Some(m) => Some(load_view::<u8>(t, at::MASK, m, &full)?),
            None => None,
        };
        let mut out = vec![0f32; b * n * s * d];
        let mut lse = vec![f32::NEG_INFINITY; b * n * s];
        let group = n / self.nkv;
        crate::engine::pool().install(|| {
            out.par_chunks_mut(s * d)
                .zip(lse.par_chunks_mut(s))
                .enumerate()
                .for_each(|(bh, (o, l))| {
                    let (bi, h) = (bh / n, bh % n);
                    let kvh = bi * self.nkv + h / group;
                    let qm = &q[bh * s * d..(bh + 1) * s * d];
                    let km = &k[kvh * skv * d..(kvh + 1) * skv * d];
                    let vm = &v[kvh * skv * d..(kvh + 1) * skv * d];
                    // scores (S x Skv) = Q (S x D) @ Kᵀ (D x Skv)
                    let mut p = vec![0f32; s * skv];
                    if d > 0 {
                        product_f32(s, skv, d, qm, (d as isize, 1), km, (1, d as isize), &mut p);
                    }
                    let (ql, kl) = (self.q_len[bi], self.kv_len[bi]);
                    for i in 0..s {
                        let row = &mut p[i * skv..(i + 1) * skv];
                        let at = (bh * s + i) * skv;
                        let attended = |j: usize| {
                            i < ql
                                && j < kl
                                && self.band.allows(i, j, ql, kl)
                                && mask.as_ref().is_none_or(|m| m[at + j] == 0)
                        };
                        let mut max = f32::NEG_INFINITY;
                        for (j, x) in row.iter_mut().enumerate() {
                            *x *= self.scale;
                            if let Some(ps) = &pse {
                                *x += ps[at + j];
                            }
                            if attended(j) {
                                max = max.max(*x);
                            }
                        }
                        let mut sum = 0f32;
                        for (j, x) in row.iter_mut().enumerate() {
                            *x = if attended(j) { (*x - max).exp() } else { 0.0 };
                            sum += *x;
                        }
                        if sum > 0.0 {
                            for x in row.iter_mut() {
                                *x /= sum;
                            }
                            l[i] = max + sum.ln();
                        }
                    }
                    // out (S x D) = P (S x Skv) @ V (Skv x D)
                    if skv > 0 {
                        product_f32(s, d, skv, &p, (skv as isize, 1), vm, (d as isize, 1), o);
                    }
                })
        });
        store_view(t, at::OUT, o4, &out)?;
        if self.lse {
            let l = t.view(at::LSE)?.clone();
            store_view(t, at::LSE, &l, &lse)?;
        }
        Ok(())
    }
}

/// aclnnRecurrentGatedDeltaRule (cann/ops-transformer, newer than the mirrored CANN
/// sources): declared so that programs including its header compile, and refused: its
/// document leaves open which state block each sequence starts from and which ones the
/// accepted tokens write (ssmStateIndices with numAcceptedTokens), so any numbers would
/// be a guess.
#[allow(clippy::too_many_arguments)]
pub fn recurrent_gated_delta_rule(
    query: &TensorDesc,
    key: &TensorDesc,
    value: &TensorDesc,
    beta: &TensorDesc,
    state_ref: &TensorDesc,
    actual_seq_lengths: &TensorDesc,
    ssm_state_indices: &TensorDesc,
    g: Option<&TensorDesc>,
    gk: Option<&TensorDesc>,
    num_accepted_tokens: &TensorDesc,
    _scale_value: f32,
    out: &TensorDesc,
) -> Result<Executor> {
    for (name, t) in [
        ("query", query),
        ("key", key),
        ("value", value),
        ("beta", beta),
        ("stateRef", state_ref),
        ("out", out),
    ] {
        ew::check_tensor(name, t, &[BF16])?;
    }
    for (name, t) in [
        ("actualSeqLengths", actual_seq_lengths),
        ("ssmStateIndices", ssm_state_indices),
        ("numAcceptedTokens", num_accepted_tokens),
    ] {
        ew::check_tensor(name, t, &[S32])?;
    }
    for (name, t) in [("g", g), ("gk", gk)] {
        if let Some(t) = t {
            ew::check_tensor(name, t, &[F32])?;
        }
    }
    crate::bail!(
        "aclnnRecurrentGatedDeltaRule is not implemented by aclnn-cpu (its header is declared so that programs compile)"
    )
}
