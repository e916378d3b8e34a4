//! Operators: each file states an operator's rules (dtypes, promotion, shapes, errors)
//! and hands the computation to the engine. Pure Rust: tensors arrive as `TensorDesc`s.

pub mod activation;
pub mod add;
pub mod binary;
pub mod bitwise;
pub mod catalog;
pub mod clamp;
pub mod compare;
pub mod conv;
pub mod copy;
pub mod create;
pub mod div;
pub mod elementwise;
pub mod extrema;
pub mod extremum;
pub mod gemm;
pub mod join;
pub mod llm;
pub mod logical;
pub mod math;
pub mod matmul;
pub mod mul;
pub mod pow;
pub mod prelu;
pub mod reduce;
pub mod round;
pub mod select;
pub mod unary;
pub mod views;
