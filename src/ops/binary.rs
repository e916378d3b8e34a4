//! The shape every binary element-wise operator shares — `out = f(a, b)` where either
//! operand may be a tensor or a scalar, written to `out` or in place into `a`:
//!
//! 1. each operand's dtype is in the operator's list (out's too);
//! 2. the operands promote: two tensors by the tensor-tensor table, a tensor and a scalar
//!    by the tensor-scalar relation;
//! 3. the operator chooses its computation for the promoted dtype (and checks its own
//!    attributes: alpha, a rounding mode, ...);
//! 4. the result dtype casts to out's dtype (SEMANTICS §5);
//! 5. at most 8 dims, and the broadcast shape of the tensor operands is out's shape
//!    (for in-place operators: selfRef's shape); the device's merged-axes limit applies.

use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, promote_with_scalar, DType};
use crate::engine::{KernelFn, Kernels, Narrow, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use smallvec::SmallVec;

/// One operand of a binary operator, with its parameter name.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    Tensor(&'static str, &'a TensorDesc),
    Scalar(&'static str, &'a Scalar),
}

impl Operand<'_> {
    fn name(&self) -> &'static str {
        match self {
            Operand::Tensor(n, _) | Operand::Scalar(n, _) => n,
        }
    }
    fn dtype(&self) -> DType {
        match self {
            Operand::Tensor(_, t) => t.dtype,
            Operand::Scalar(_, s) => s.dtype,
        }
    }
    fn check(&self, allowed: &[DType]) -> Result<()> {
        match self {
            Operand::Tensor(n, t) => ew::check_tensor(n, t, allowed),
            Operand::Scalar(n, s) => ew::check_scalar_dtype(n, s.dtype, allowed),
        }
    }
    fn arg(&self) -> Arg<'_> {
        match self {
            Operand::Tensor(n, t) => Arg::Tensor(n, t),
            Operand::Scalar(_, s) => Arg::Scalar(**s),
        }
    }
}

/// The dtypes an operator accepts.
pub struct Dtypes {
    pub a: &'static [DType],
    pub b: &'static [DType],
    pub out: &'static [DType],
}

/// What an operator computes for one call.
pub struct Compute {
    /// The dtype whose conversion to out's dtype must be allowed (SEMANTICS §5): the
    /// promoted dtype, or bool for a predicate. The kernel's own result is then converted
    /// to out by the conversion rule (Div computes integer inputs in f32, for example).
    pub checked: DType,
    /// Both operands are converted to this before the kernel runs.
    pub input: Via,
    /// What the kernel writes; it is then cast to out's dtype.
    pub result: Via,
    pub kernel: KernelFn,
    /// Its kernels for f16/bf16 storage, if it has them (float arithmetic).
    pub narrow: Option<Narrow>,
    pub params: Params,
}

impl Compute {
    /// A kernel reading and writing the promoted dtype's compute type (f16/bf16 in f32).
    pub fn same(promoted: DType, kernel: KernelFn) -> Compute {
        Self::with(promoted, promoted, kernel)
    }

    /// A kernel computing in `compute` for inputs that promoted to `promoted`.
    pub fn with(promoted: DType, compute: DType, kernel: KernelFn) -> Compute {
        Compute {
            checked: promoted,
            input: Via::of(compute),
            result: Via::of(compute),
            kernel,
            narrow: None,
            params: Params::default(),
        }
    }

    /// The same, with kernels for f16/bf16 storage.
    pub fn narrowed(self, narrow: Narrow) -> Compute {
        Compute {
            narrow: Some(narrow),
            ..self
        }
    }

    /// A predicate computed in `compute`: bool results.
    pub fn predicate(compute: DType, kernel: KernelFn) -> Compute {
        Compute {
            checked: DType::Bool,
            input: Via::of(compute),
            result: Via::exact(DType::Bool),
            kernel,
            narrow: None,
            params: Params::default(),
        }
    }
}

/// The promoted dtype of two operands (error names both).
pub fn promoted(a: &Operand, b: &Operand) -> Result<DType> {
    let p = match (a, b) {
        (Operand::Tensor(..), Operand::Tensor(..)) | (Operand::Scalar(..), Operand::Scalar(..)) => {
            promote(a.dtype(), b.dtype())
        }
        (Operand::Tensor(..), Operand::Scalar(..)) => promote_with_scalar(a.dtype(), b.dtype()),
        (Operand::Scalar(..), Operand::Tensor(..)) => promote_with_scalar(b.dtype(), a.dtype()),
    };
    p.ok_or_else(|| {
        Error::Invalid(format!(
            "{} dtype {} and {} dtype {} cannot be promoted to a common dtype",
            a.name(),
            a.dtype(),
            b.name(),
            b.dtype()
        ))
    })
}

/// Builds the executor of a binary operator. `out == None` writes in place into `a`
/// (which must then be a tensor). `choose` receives the promoted dtype.
pub fn build(
    api: &'static str,
    dtypes: &Dtypes,
    a: Operand,
    b: Operand,
    out: Option<(&'static str, &TensorDesc)>,
    choose: impl FnOnce(DType) -> Result<Compute>,
) -> Result<Executor> {
    a.check(dtypes.a)?;
    b.check(dtypes.b)?;
    let p = promoted(&a, &b)?;
    let c = choose(p)?;
    let (out_name, out_desc, inplace) = match (out, a) {
        (Some((name, t)), _) => {
            ew::check_tensor(name, t, dtypes.out)?;
            (name, t, false)
        }
        (None, Operand::Tensor(name, t)) => (name, t, true),
        (None, Operand::Scalar(..)) => {
            return Err(Error::Internal(
                "an in-place operator needs a tensor".into(),
            ))
        }
    };
    ew::check_out_cast(c.checked, out_name, out_desc)?;
    let shapes: SmallVec<[(&str, &[usize]); 2]> = [a, b]
        .iter()
        .filter_map(|o| match o {
            Operand::Tensor(n, t) => Some((*n, &t.shape[..])),
            Operand::Scalar(..) => None,
        })
        .collect();
    ew::check_out_shape(c.input.value, &shapes, out_name, out_desc)?;
    ew::executor(
        api,
        &[a.arg(), b.arg()],
        &[c.input, c.input],
        out_name,
        out_desc,
        c.result,
        Kernels {
            main: c.kernel,
            narrow: c.narrow,
            moves: false,
        },
        c.params,
        inplace,
    )
}
