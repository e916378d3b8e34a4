//! aclnn-cpu: Huawei CANN's two-phase `aclnn` operator API on the CPU.
//!
//! Layout: the pure-Rust core (`dtype`, `element`, `format`, `tensor`, `scalar`,
//! `broadcast`, `engine`, `ops`) never sees a raw C pointer; `runtime` is the CPU
//! "device" (memory, streams, events); `executor` holds planned work; `capi` is the only
//! place with `extern "C"` exports and C names.

pub mod broadcast;
pub mod capi;
pub mod dtype;
pub mod element;
pub mod engine;
pub mod error;
pub mod executor;
pub mod format;
pub mod ops;
pub mod plog;
pub mod profile;
pub mod runtime;
pub mod scalar;
pub mod tensor;

pub use error::{Error, Result};

#[cfg(test)]
mod tests;
