//! The C ABI. Every exported function runs its body inside `guard`, checks its arguments
//! through `arg` and `handle`, and hands off to the pure-Rust core.
#![allow(non_camel_case_types, non_snake_case)]

pub mod aclnn_base;
pub mod arg;
pub mod base;
/// The declaration format of the operator entry points (also compiled by build.rs).
#[allow(dead_code)]
pub mod decl;
pub mod guard;
pub mod handle;
/// The private ABI libhccl.so (hccl/) reaches the runtime through.
pub mod hccl_hooks;
pub mod meta;
pub mod misuse;
pub mod model;
pub mod ops;
pub mod prof;
pub mod reported;
pub mod runtime;
pub mod status;
pub mod vmm;
