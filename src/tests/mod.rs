//! Tests of the core rules, by topic.

mod add_diff;
mod baddbmm_diff;
mod cast_matrix;
mod conv_diff;
mod coverage;
mod declared;
mod engine_views;
mod forms_diff;
mod gather_diff;
mod gmm_diff;
mod llm_diff;
mod matmul_diff;
mod miri;
mod movement_diff;
mod narrow_diff;
mod nn_diff;
mod norm_diff;
mod nz_weight_diff;
mod ops_capi_diff;
mod reduce_diff;
mod rules_convert;
mod rules_dtype;
mod rules_tensor;
mod shape_diff;
mod torch_ref;
mod unary_diff;
