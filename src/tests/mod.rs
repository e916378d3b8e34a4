//! Tests of the core rules, by topic.

mod rules_convert;
mod rules_dtype;
mod rules_tensor;
