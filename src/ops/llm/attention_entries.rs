//! The attention entry points, each an adapter onto the one attention engine (`attention.rs`, whose doc lists what is implemented, the numbers
//! and what is refused):
//! - FusedInferAttentionScore V1-V4 (hicann/ops-transformer
//!   aclnnFusedInferAttentionScore*.md): V2, and V2 with fewer (V1) or more (V3: the
//!   MLA rope split queryRope/keyRope; V4: also dequantScaleQuery, learnableSink and
//!   queryQuantMode) inputs; the added inputs are refused when given;
//! - PromptFlashAttention V1-V3 (aclnnPromptFlashAttention*.md): key and value are single
//!   tensors; V1 has neither actualSeqLengthsKv nor sparseMode (0), and its pseShift is
//!   documented as reserved and forced to NULL, so it is ignored here as on the device;
//! - IncreFlashAttention V1-V4 (aclnnIncreFlashAttention*.md): one query token (S = 1),
//!   layouts BSH, BSND, BNSD; `actualSeqLengths` are the key/value lengths; no band
//!   (preTokens/nextTokens); a mask (B or 1, 1 or N, 1, Skv); V3/V4 page the cache by
//!   `blocktable`/`blockSize`; V1/V2's pseShift is reserved (ignored), V3/V4's is used.
//!
//! The quantization inputs of every version (dequant/quant scales, antiquant scales and
//! offsets, int8 query/key/value/attentionOut) and kvPaddingSize are refused with
//! ACLNN_ERR_PARAM_INVALID naming them.

use super::attention::{attention, Names, Request};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

/// FusedInferAttentionScoreV2-V4's names.
pub(crate) const OPTIONAL_NAMES: Names = Names {
    pse: "pseShiftOptional",
    mask: "attenMaskOptional",
    q_lens: "actualSeqLengthsOptional",
    kv_lens: "actualSeqLengthsKvOptional",
    block_table: "blockTableOptional",
};

/// The names of FusedInferAttentionScore (V1)'s and PromptFlashAttention's inputs.
pub(crate) const PLAIN_NAMES: Names = Names {
    pse: "pseShift",
    mask: "attenMask",
    q_lens: "actualSeqLengths",
    kv_lens: "actualSeqLengthsKv",
    block_table: "blockTable",
};

/// IncreFlashAttention's: its actualSeqLengths are the key/value lengths.
const INCRE_NAMES: Names = Names {
    pse: "pseShift",
    mask: "attenMask",
    q_lens: "(the query length)",
    kv_lens: "actualSeqLengths",
    block_table: "blocktable",
};

/// aclnnFusedInferAttentionScoreV2.
#[allow(clippy::too_many_arguments)]
pub fn fused_infer_attention_score_v2(
    query: &TensorDesc,
    key: &[&TensorDesc],
    value: &[&TensorDesc],
    pse_shift: Option<&TensorDesc>,
    atten_mask: Option<&TensorDesc>,
    actual_seq_lengths: Option<&[i64]>,
    actual_seq_lengths_kv: Option<&[i64]>,
    block_table: Option<&TensorDesc>,
    unsupported: &[(&str, bool)],
    num_heads: i64,
    scale_value: f64,
    pre_tokens: i64,
    next_tokens: i64,
    input_layout: &str,
    num_key_value_heads: i64,
    sparse_mode: i64,
    inner_precise: i64,
    block_size: i64,
    softmax_lse_flag: bool,
    attention_out: &TensorDesc,
    softmax_lse: Option<&TensorDesc>,
) -> Result<Executor> {
    fused_infer_attention_score(
        "aclnnFusedInferAttentionScoreV2",
        false,
        query,
        key,
        value,
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
    )
}

/// FusedInferAttentionScore V1-V4 (`api` names the entry, `v1` selects V1's parameter
/// names, which lack the "Optional" suffix).
#[allow(clippy::too_many_arguments)]
pub fn fused_infer_attention_score(
    api: &'static str,
    v1: bool,
    query: &TensorDesc,
    key: &[&TensorDesc],
    value: &[&TensorDesc],
    pse_shift: Option<&TensorDesc>,
    atten_mask: Option<&TensorDesc>,
    actual_seq_lengths: Option<&[i64]>,
    actual_seq_lengths_kv: Option<&[i64]>,
    block_table: Option<&TensorDesc>,
    unsupported: &[(&str, bool)],
    num_heads: i64,
    scale_value: f64,
    pre_tokens: i64,
    next_tokens: i64,
    input_layout: &str,
    num_key_value_heads: i64,
    sparse_mode: i64,
    inner_precise: i64,
    block_size: i64,
    softmax_lse_flag: bool,
    attention_out: &TensorDesc,
    softmax_lse: Option<&TensorDesc>,
) -> Result<Executor> {
    attention(&Request {
        api,
        names: if v1 { &PLAIN_NAMES } else { &OPTIONAL_NAMES },
        query,
        key,
        value,
        kv_lists: true,
        one_token: false,
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
    })
}

/// PromptFlashAttention V1-V3 (V1: no actualSeqLengthsKv, sparseMode 0, pseShift NULL;
/// V1/V2: innerPrecise 1, the high-precision mode, which computes as every mode here).
#[allow(clippy::too_many_arguments)]
pub fn prompt_flash_attention(
    api: &'static str,
    query: &TensorDesc,
    key: &TensorDesc,
    value: &TensorDesc,
    pse_shift: Option<&TensorDesc>,
    atten_mask: Option<&TensorDesc>,
    actual_seq_lengths: Option<&[i64]>,
    actual_seq_lengths_kv: Option<&[i64]>,
    unsupported: &[(&str, bool)],
    num_heads: i64,
    scale_value: f64,
    pre_tokens: i64,
    next_tokens: i64,
    input_layout: &str,
    num_key_value_heads: i64,
    sparse_mode: i64,
    inner_precise: i64,
    attention_out: &TensorDesc,
) -> Result<Executor> {
    attention(&Request {
        api,
        names: &PLAIN_NAMES,
        query,
        key: &[key],
        value: &[value],
        kv_lists: false,
        one_token: false,
        pse_shift,
        atten_mask,
        actual_seq_lengths,
        actual_seq_lengths_kv,
        block_table: None,
        unsupported,
        num_heads,
        scale_value,
        pre_tokens,
        next_tokens,
        input_layout,
        num_key_value_heads,
        sparse_mode,
        inner_precise,
        block_size: 0,
        softmax_lse_flag: false,
        attention_out,
        softmax_lse: None,
    })
}

/// IncreFlashAttention V1-V4 (V1/V2: no paging, innerPrecise 1).
#[allow(clippy::too_many_arguments)]
pub fn incre_flash_attention(
    api: &'static str,
    query: &TensorDesc,
    key: &[&TensorDesc],
    value: &[&TensorDesc],
    pse_shift: Option<&TensorDesc>,
    atten_mask: Option<&TensorDesc>,
    actual_seq_lengths: Option<&[i64]>,
    block_table: Option<&TensorDesc>,
    unsupported: &[(&str, bool)],
    num_heads: i64,
    scale_value: f64,
    input_layout: &str,
    num_key_value_heads: i64,
    block_size: i64,
    inner_precise: i64,
    attention_out: &TensorDesc,
) -> Result<Executor> {
    attention(&Request {
        api,
        names: &INCRE_NAMES,
        query,
        key,
        value,
        kv_lists: true,
        one_token: true,
        pse_shift,
        atten_mask,
        actual_seq_lengths: None,
        actual_seq_lengths_kv: actual_seq_lengths,
        block_table,
        unsupported,
        num_heads,
        scale_value,
        // One query token: no band, the mask alone.
        pre_tokens: i64::MAX,
        next_tokens: i64::MAX,
        input_layout,
        num_key_value_heads,
        sparse_mode: 0,
        inner_precise,
        block_size,
        softmax_lse_flag: false,
        attention_out,
        softmax_lse: None,
    })
}
