//! Activations that are more than a function of one element.
//!
//! GeluMul (aclnnGeluMul.md): input's last dim (even, ≤ 1024) splits into halves x1, x2;
//! `out = gelu(x1) · x2`, out of input's dtype with the last dim halved. `approximate` is
//! "none" (erf: `0.5·x·(1 + erf(x/√2))`, the default for NULL) or "tanh"
//! (`0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`). Inputs of 2 to 8 dims whose other dims
//! multiply to at most 200000, f32/f16/bf16. Both halves are views of input (no copy);
//! the product is computed in f64 from the f32 values and rounded once (≤ 0.5 ulp of
//! out's dtype plus the C library's erf/tanh error, < 1 ulp of f32).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use super::unary::erf64;
use crate::dtype::DType;
use crate::engine::kernel::{binary, BinaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Sequence};
use crate::tensor::TensorDesc;

use DType::*;
const HALFS: &[DType] = &[F32, F16, BF16];

/// gelu(a)·b; `tanh` picks the approximation.
struct GeluMul {
    tanh: bool,
}
impl BinaryOp for GeluMul {
    type A = f32;
    type B = f32;
    type O = f32;
    fn new(p: &Params) -> Self {
        GeluMul {
            tanh: p.ints[0] != 0,
        }
    }
    #[inline(always)]
    fn apply(&self, a: f32, b: f32) -> f32 {
        let x = a as f64;
        let g = if self.tanh {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
        } else {
            0.5 * x * (1.0 + erf64(x / std::f64::consts::SQRT_2))
        };
        (g * b as f64) as f32
    }
}

/// aclnnGeluMul.
pub fn gelu_mul(
    input: &TensorDesc,
    approximate: Option<&str>,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnGeluMul";
    ew::check_tensor("input", input, HALFS)?;
    ew::check_tensor("out", out, HALFS)?;
    let tanh = match approximate.unwrap_or("none") {
        "none" => false,
        "tanh" => true,
        other => crate::bail!("approximateOptional is {other:?}: {API} takes \"none\" or \"tanh\""),
    };
    crate::ensure!(
        out.dtype == input.dtype,
        "out has dtype {} but must have input's dtype {}",
        out.dtype,
        input.dtype
    );
    let rank = input.rank();
    crate::ensure!(
        (2..=8).contains(&rank),
        "input has {rank} dims {:?}; {API} takes 2 to 8",
        input.shape
    );
    let last = input.shape[rank - 1];
    crate::ensure!(
        last % 2 == 0 && last <= 1024,
        "input's last dim is {last}: it must be even and at most 1024"
    );
    let rows: usize = input.shape[..rank - 1].iter().product();
    crate::ensure!(
        rows <= 200_000,
        "input's dims but the last multiply to {rows}; {API} takes at most 200000"
    );
    let mut want = input.shape.clone();
    want[rank - 1] = last / 2;
    crate::ensure!(
        out.shape == want,
        "out has shape {:?} but must be input's shape with the last dim halved, {want:?}",
        out.shape
    );
    out.check_output("out")?;
    let (x1, x2) = (
        input.narrowed(rank - 1, 0, last / 2),
        input.narrowed(rank - 1, last / 2, last / 2),
    );
    let v = Via::of(input.dtype);
    let mut params = Params::default();
    params.ints.push(tanh as i64);
    // The halves are two views of input: planned as two operands, bound to input's one
    // binding (so re-pointing input moves both).
    let step = ew::executor(
        API,
        &[Arg::Tensor("input", &x1), Arg::Tensor("input", &x2)],
        &[v, v],
        "out",
        out,
        v,
        binary::<GeluMul> as KernelFn,
        params,
        false,
    )?;
    let mut seq = Sequence::new();
    seq.push(step, &[0, 0, 1]);
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(input.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "GeluMul",
    a: HALFS,
    b: &[],
    out: HALFS,
    rule: "gelu(x1)·x2 of input's last-dim halves (approximate \"none\"/\"tanh\")",
}];
