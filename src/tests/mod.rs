//! Tests of the core rules, by topic.

mod add_diff;
mod engine_views;
mod rules_convert;
mod rules_dtype;
mod rules_tensor;
