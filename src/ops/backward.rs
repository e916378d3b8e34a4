//! Element-wise gradients of activations, from the forward result: TanhBackward
//! (aclnn_tanh_backward.h), `gradInput = gradOutput · (1 − output²)`.
//!
//! gradOutput and output broadcast to gradInput's shape; all three have one dtype. f16,
//! bf16 and f32 compute in f32 and f64 in f64, each product and difference rounded (no
//! fused multiply-add), the result rounded once to the dtype.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::kernel::{binary as binary_kernel, BinaryOp};
use crate::engine::Params;
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;

/// aclnnTanhBackward, Atlas A2 (the op_api's 910B list).
const TANH_BACKWARD: &[DType] = &[F32, F16, F64, BF16];

/// `g · (1 − y²)` in the kernel's type.
struct TanhGrad<T>(std::marker::PhantomData<T>);

macro_rules! tanh_grad {
    ($t:ty) => {
        impl BinaryOp for TanhGrad<$t> {
            type A = $t;
            type B = $t;
            type O = $t;
            fn new(_: &Params) -> Self {
                TanhGrad(std::marker::PhantomData)
            }
            #[inline(always)]
            fn apply(&self, g: $t, y: $t) -> $t {
                g * (1.0 - y * y)
            }
        }
    };
}
tanh_grad!(f32);
tanh_grad!(f64);

/// aclnnTanhBackward.
pub fn tanh_backward(
    grad_output: &TensorDesc,
    output: &TensorDesc,
    grad_input: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("gradOutput", grad_output, TANH_BACKWARD)?;
    ew::check_tensor("output", output, TANH_BACKWARD)?;
    ew::check_tensor("gradInput", grad_input, TANH_BACKWARD)?;
    for (name, t) in [("output", output), ("gradInput", grad_input)] {
        ew::check_dtype_of(name, t, "gradOutput", grad_output)?;
    }
    binary::build(
        "aclnnTanhBackward",
        &Dtypes {
            a: TANH_BACKWARD,
            b: TANH_BACKWARD,
            out: TANH_BACKWARD,
        },
        Operand::Tensor("gradOutput", grad_output),
        Operand::Tensor("output", output),
        Some(("gradInput", grad_input)),
        |d| {
            Ok(if d == F64 {
                Compute::same(F64, binary_kernel::<TanhGrad<f64>>)
            } else {
                Compute::with(d, F32, binary_kernel::<TanhGrad<f32>>)
            })
        },
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "TanhBackward",
    a: TANH_BACKWARD,
    b: TANH_BACKWARD,
    out: TANH_BACKWARD,
    rule: "gradOutput·(1 − output²), broadcast, one dtype, in f32 (f64 for DOUBLE)",
}];
