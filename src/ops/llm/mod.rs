//! The LLM and quantized operators llama.cpp's CANN back-end calls (issue 19): the
//! matrix-vector and outer products and the triangular solve (`linalg`), the element-wise
//! rules of several tensors (`pointwise`), the rotary position embedding (`rope`), the
//! weight-quantized product (`quant_matmul`), the attention (`attention`), and
//! the staging they share (`dense`).

pub mod advance_step;
pub mod attention;
pub mod attention_entries;
pub mod dense;
pub mod full_quant_matmul;
pub mod grouped_matmul;
pub mod int4;
pub mod linalg;
pub mod moe;
pub mod pointwise;
pub mod quant_matmul;
pub mod rope;

pub use advance_step::{advance_step, advance_step_v2};
pub use attention::recurrent_gated_delta_rule;
pub use attention_entries::{
    fused_infer_attention_score, fused_infer_attention_score_v2, incre_flash_attention,
    prompt_flash_attention,
};
pub use full_quant_matmul::{quant_matmul_v3, quant_matmul_v4};
pub use grouped_matmul::{
    grouped_matmul_v1, grouped_matmul_v2, grouped_matmul_v3, grouped_matmul_v4, grouped_matmul_v5,
    grouped_matmul_weight_nz,
};
pub use int4::convert_weight_to_int4_pack;
pub use linalg::{ger, mv, triangular_solve};
pub use pointwise::{addcdiv, addcmul, inplace_addcdiv, inplace_addcmul, sum};
pub use quant_matmul::{weight_quant_batch_matmul_v2, weight_quant_batch_matmul_v3};
pub use rope::{
    apply_rotary_pos_emb, interleave_rope, rope_with_sin_cos_cache, rotary_position_embedding,
};

use super::catalog::Entry;

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Mv",
        a: linalg::MV,
        b: linalg::MV,
        out: linalg::MV,
        rule: "self @ vec, f32 accumulation on the GEMM (one dtype; an empty self gives zeros)",
    },
    Entry {
        ops: "Ger",
        a: linalg::GER,
        b: linalg::GER,
        out: crate::ops::elementwise::ALL12,
        rule: "outer product self[i]·vec2[j], promoted, cast to out",
    },
    Entry {
        ops: "TriangularSolve",
        a: linalg::SOLVE,
        b: linalg::SOLVE,
        out: linalg::SOLVE,
        rule: "X of op(A)·X = self, A triangular (upper/lower, transpose, unitriangular), batches broadcast; mOut = A (complex refused)",
    },
    Entry {
        ops: "Addcdiv, InplaceAddcdiv",
        a: pointwise::ADDCDIV,
        b: pointwise::ADDCDIV,
        out: pointwise::ADDCDIV,
        rule: "self + value·tensor1/tensor2, broadcast, promoted",
    },
    Entry {
        ops: "Addcmul, InplaceAddcmul",
        a: pointwise::ADDCMUL,
        b: pointwise::ADDCMUL,
        out: pointwise::ADDCMUL,
        rule: "self + value·tensor1·tensor2, broadcast, promoted (integers wrap)",
    },
    Entry {
        ops: "Sum",
        a: pointwise::SUM,
        b: &[],
        out: pointwise::SUM,
        rule: "element-wise sum of a tensor list, broadcast (f16 in f32, the device's order)",
    },
    Entry {
        ops: "RotaryPositionEmbedding",
        a: rope::ROPE,
        b: rope::ROPE,
        out: rope::ROPE,
        rule: "x·cos + rotate(x)·sin along the last dim (modes half, interleave, quarter, interleave-half), in f32",
    },
    Entry {
        ops: "ApplyRotaryPosEmb, ApplyRotaryPosEmbV2",
        a: rope::ROPE,
        b: rope::ROPE,
        out: rope::ROPE,
        rule: "queryRef and keyRef rotated in place by cos/sin (N = 1): V1 BSND, D 128, half; V2 BSND/SBND/BNSD, half/interleave/quarter; in f32",
    },
    Entry {
        ops: "InterleaveRope",
        a: rope::INTERLEAVE,
        b: rope::INTERLEAVE,
        out: rope::INTERLEAVE,
        rule: "x (B, N, S, 64) de-interleaved, then rotated by halves with cos/sin (B, 1, S|1, 64), in f32",
    },
    Entry {
        ops: "RopeWithSinCosCache",
        a: rope::ROPE,
        b: &[crate::dtype::DType::S32, crate::dtype::DType::S64],
        out: rope::ROPE,
        rule: "each head's first rotaryDim of queryIn/keyIn rotated by cosSinCache[positions] (neox halves or interleaved pairs), in f32 (mropeSection refused)",
    },
    Entry {
        ops: "WeightQuantBatchMatmulV2, WeightQuantBatchMatmulV3",
        a: quant_matmul::X,
        b: quant_matmul::WEIGHT,
        out: quant_matmul::X,
        rule: "x @ ((weight + offset)·scale) + bias, weight int8, int4 (ACL_INT4) or int4 packed in INT32, scale per tensor/channel/group, f32 accumulation (NZ, fixed-point scale and output quantization refused)",
    },
    Entry {
        ops: "ConvertWeightToINT4Pack",
        a: int4::PACK_IN,
        b: &[],
        out: int4::PACK_OUT,
        rule: "INT32-held int4 values packed two a byte (ACL_INT4) or eight an INT32, lowest nibble first (ND; NZ output refused)",
    },
    Entry {
        ops: "QuantMatmulV3, QuantMatmulV4",
        a: full_quant_matmul::OPERANDS,
        b: full_quant_matmul::SCALES,
        out: full_quant_matmul::OUTS,
        rule: "x1 @ x2 exact in int32 (+ int32 bias), then ·scale (·pertokenScale) (+ float bias) (+ offset) in f32, rounded once; scale f32/bf16 or TransQuantParam's UINT64/INT64 (batched operands, NZ x2 and INT32 out refused)",
    },
    Entry {
        ops: "GroupedMatmulV3",
        a: grouped_matmul::FLOATS,
        b: grouped_matmul::FLOATS,
        out: grouped_matmul::FLOATS,
        rule: "per group x_i @ weight_i + bias_i, groupType -1/0/2 (split m or k by an int64 groupList read at run time), f32 accumulation (quantized modes refused)",
    },
    Entry {
        ops: "GroupedMatmul",
        a: grouped_matmul::HALVES,
        b: grouped_matmul::HALVES,
        out: grouped_matmul::HALVES,
        rule: "GroupedMatmulV3 with a host int-array groupList and groupType implied (-1 or 0); FLOAT32 refused as on the device",
    },
    Entry {
        ops: "GroupedMatmulV2, GroupedMatmulV4, GroupedMatmulV5",
        a: grouped_matmul::FLOATS,
        b: grouped_matmul::FLOATS,
        out: grouped_matmul::FLOATS,
        rule: "GroupedMatmulV3 with a host int-array groupList (V2) or groupListType 0/1 (cumulative ends or sizes, V4/V5); actType 0 (activations, quantized modes refused)",
    },
    Entry {
        ops: "GroupedMatmulWeightNz",
        a: grouped_matmul::HALVES,
        b: grouped_matmul::HALVES,
        out: grouped_matmul::HALVES,
        rule: "GroupedMatmulV5 with FRACTAL_NZ weights (k, n multiples of 16), groupType -1/0 (quantized modes refused)",
    },
    Entry {
        ops: "FusedInferAttentionScore, FusedInferAttentionScoreV2, FusedInferAttentionScoreV3, FusedInferAttentionScoreV4",
        a: attention::QKV,
        b: attention::QKV,
        out: attention::QKV,
        rule: "softmax(scale·QKᵀ + pse, masked)·V in f32 (BSH/BSND/BNSD, GQA, sparseMode 0-4, actual lengths, paged KV, softmaxLse; quantized KV refused)",
    },
    Entry {
        ops: "PromptFlashAttention, PromptFlashAttentionV2, PromptFlashAttentionV3",
        a: attention::QKV,
        b: attention::QKV,
        out: attention::QKV,
        rule: "FusedInferAttentionScore's engine with key and value single tensors (V1: pseShift reserved and ignored; quantization refused)",
    },
    Entry {
        ops: "IncreFlashAttention, IncreFlashAttentionV2, IncreFlashAttentionV3, IncreFlashAttentionV4",
        a: attention::QKV,
        b: attention::QKV,
        out: attention::QKV,
        rule: "FusedInferAttentionScore's engine for one query token, actualSeqLengths of key/value, paged KV (V3/V4); antiquant, quantization, kvPaddingSize refused",
    },
    Entry {
        ops: "RecurrentGatedDeltaRule",
        a: &[crate::dtype::DType::BF16],
        b: &[crate::dtype::DType::BF16],
        out: &[crate::dtype::DType::BF16],
        rule: "declared so that programs compile; not implemented: phase 1 refuses with ACLNN_ERR_PARAM_INVALID",
    },
    Entry {
        ops: "AdvanceStep, AdvanceStepV2",
        a: advance_step::DTYPES,
        b: advance_step::DTYPES,
        out: advance_step::DTYPES,
        rule: "vLLM's step in place: tokens, positions, seqLens + 1, KV slots from blockTables; V1 the device's legacy kernel (40 queries, first table row), V2 speculative (32-bit, acceptedNum)",
    },
];
