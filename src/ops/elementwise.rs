//! Rules shared by the element-wise operators: supported dtypes, rank and format checks,
//! the output shape and cast rules, and the hand-off to the engine.

use crate::broadcast;
use crate::dtype::{can_cast, DType};
use crate::engine::{self, Input, Kernels, Params, Spec, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing};
use crate::tensor::TensorDesc;
use smallvec::SmallVec;

/// Most dims an element-wise operator accepts per tensor.
pub const MAX_DIMS: usize = 8;

/// The "ALL12" list the reference gives Add/Sub/Mul/Div on Atlas A2/A3.
pub const ALL12: &[DType] = &[
    DType::F32,
    DType::F16,
    DType::F64,
    DType::BF16,
    DType::S8,
    DType::U8,
    DType::S16,
    DType::S32,
    DType::S64,
    DType::Bool,
    DType::C64,
    DType::C128,
];

fn list(dtypes: &[DType]) -> String {
    dtypes
        .iter()
        .map(|d| d.acl_name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A tensor parameter of an element-wise operator: dtype in `allowed`, at most 8 dims, a
/// public format whose rank agrees.
pub fn check_tensor(name: &str, t: &TensorDesc, allowed: &[DType]) -> Result<()> {
    crate::ensure!(
        allowed.contains(&t.dtype),
        "tensor '{name}' has dtype {}, which this operator does not support; supported: {}",
        t.dtype,
        list(allowed)
    );
    crate::ensure!(
        t.rank() <= MAX_DIMS,
        "tensor '{name}' has {} dims; at most {MAX_DIMS} are supported",
        t.rank()
    );
    t.format
        .check_for_elementwise(name, t.rank())
        .map_err(crate::Error::Invalid)
}

/// A scalar parameter's dtype must be in `allowed`.
pub fn check_scalar_dtype(name: &str, dtype: DType, allowed: &[DType]) -> Result<()> {
    crate::ensure!(
        allowed.contains(&dtype),
        "scalar '{name}' has dtype {dtype}, which this operator does not support; supported: {}",
        list(allowed)
    );
    Ok(())
}

/// The computed dtype must convert to the output's dtype (SEMANTICS §5).
pub fn check_out_cast(computed: DType, out_name: &str, out: &TensorDesc) -> Result<()> {
    crate::ensure!(
        can_cast(computed, out.dtype),
        "the result dtype {computed} cannot be cast to '{out_name}' dtype {}: only float<->float, int<->int, \
         int->float, bool->int/float and complex<->complex conversions are allowed",
        out.dtype
    );
    Ok(())
}

/// The broadcast shape of the inputs must be the output's shape exactly, and the device's
/// merged-axes limit applies for `computed`.
pub fn check_out_shape(
    computed: DType,
    inputs: &[(&str, &[usize])],
    out_name: &str,
    out: &TensorDesc,
) -> Result<()> {
    // Inputs of the output's own shape (the common case) broadcast to it as they are.
    if inputs.is_empty() || !inputs.iter().all(|(_, s)| *s == &out.shape[..]) {
        let shape = broadcast::broadcast_shapes(inputs)?;
        crate::ensure!(
            shape[..] == out.shape[..],
            "'{out_name}' has shape {:?} but the broadcast shape of the inputs is {shape:?}",
            out.shape
        );
    }
    broadcast::check_device_axis_limit(computed, inputs, &out.shape)
}

/// `dim` in [-rank, rank) as an axis; `what` names the tensor(s) for the message.
pub fn axis(name: &str, dim: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    crate::ensure!(
        (-r..r).contains(&dim),
        "{name} {dim} is out of range for {what} of {rank} dims: it must be in [{}, {}]",
        -r,
        r - 1
    );
    Ok(dim.rem_euclid(r.max(1)) as usize)
}

/// An output whose shape the operator computed: exactly `want`, and writable.
pub fn check_result_shape(name: &str, t: &TensorDesc, want: &[usize]) -> Result<()> {
    crate::ensure!(
        t.shape[..] == want[..],
        "{name} has shape {:?} but the result has shape {want:?}",
        t.shape
    );
    t.check_output(name)
}

/// `name` must have self's dtype (an operator that moves or reorders self's elements).
pub fn check_same_dtype(name: &str, t: &TensorDesc, self_: &TensorDesc) -> Result<()> {
    check_dtype_of(name, t, "self", self_)
}

/// `name` must have `of_name`'s dtype (operators whose tensors share one dtype).
pub fn check_dtype_of(name: &str, t: &TensorDesc, of_name: &str, of: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.dtype == of.dtype,
        "{name} has dtype {} but must have {of_name}'s dtype {}",
        t.dtype,
        of.dtype
    );
    Ok(())
}

/// An input of an element-wise executor: a tensor bound at `binding`, or a scalar.
pub enum Arg<'a> {
    Tensor(&'static str, &'a TensorDesc),
    Scalar(crate::scalar::Scalar),
}

/// Builds the executor for `out = kernel(args...)`: binds the tensors (inputs first, the
/// output last) and plans the engine run (nothing to run when the output is empty).
#[allow(clippy::too_many_arguments)]
pub fn executor(
    api: &'static str,
    args: &[Arg],
    kernel_in: &[Via],
    out_name: &'static str,
    out: &TensorDesc,
    kernel_out: Via,
    kernel: impl Into<Kernels>,
    params: Params,
    inplace: bool,
) -> Result<Executor> {
    let (bindings, plan) = planned(
        api, args, kernel_in, out_name, out, kernel_out, kernel, params, inplace,
    )?;
    Ok(match plan {
        Some(plan) => Executor::shared(api, bindings, plan),
        None => Executor::new(api, bindings, Nothing),
    })
}

/// `executor`'s bindings and engine plan (None: the output is empty, nothing to run), for
/// an operator that runs the plan itself (the foreach operators run it with parameters
/// read at run time).
#[allow(clippy::too_many_arguments)]
pub fn planned(
    api: &'static str,
    args: &[Arg],
    kernel_in: &[Via],
    out_name: &'static str,
    out: &TensorDesc,
    kernel_out: Via,
    kernel: impl Into<Kernels>,
    params: Params,
    inplace: bool,
) -> Result<(Bindings, Option<std::sync::Arc<engine::Plan>>)> {
    let n_inputs = args.iter().filter(|a| matches!(a, Arg::Tensor(..))).count();
    // An in-place operator's selfRef is input 0 and also its output: one binding.
    let out_binding = if inplace { 0 } else { n_inputs };
    // The executor's own copies of the views, in binding order (inputs, then out).
    let views = || {
        let mut tensors: Vec<Option<TensorDesc>> = Vec::with_capacity(n_inputs + 1);
        for a in args {
            if let Arg::Tensor(_, t) = a {
                tensors.push(Some((*t).clone()));
            }
        }
        if !inplace {
            tensors.push(Some(out.clone()));
        }
        std::sync::Arc::new(tensors)
    };
    let bindings = |tensors| Bindings {
        tensors,
        n_inputs,
        outputs: smallvec::smallvec![out_binding],
    };
    if out.is_empty() {
        return Ok((bindings(views()), None));
    }
    let mut inputs: SmallVec<[Input; engine::MAX_OPERANDS]> = SmallVec::new();
    let mut binding = 0;
    for a in args {
        match a {
            Arg::Tensor(name, t) => {
                inputs.push(Input::Tensor {
                    name,
                    binding,
                    view: t,
                });
                binding += 1;
            }
            Arg::Scalar(s) => inputs.push(Input::Scalar(*s)),
        }
    }
    let spec = Spec {
        api,
        inputs: &inputs,
        kernel_in,
        out_name,
        out_binding,
        out,
        kernel_out,
        kernel: kernel.into(),
        params,
    };
    let (plan, tensors) = engine::plan_shared(spec, views)?;
    Ok((bindings(tensors), Some(plan)))
}
