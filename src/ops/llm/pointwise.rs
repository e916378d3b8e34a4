//! Addcdiv, Addcmul (+ Inplace) and Sum: element-wise rules of several tensors
//! (hicann/ops-math aclnn_addcdiv.h, aclnn_addcmul.h, aclnn_sum.h).
//!
//! - Addcdiv: `out = self + value * tensor1 / tensor2`, Addcmul: `out = self + value *
//!   tensor1 * tensor2`, the three tensors broadcast together and promoted
//!   (`promote(self, promote(tensor1, tensor2))`), value converted to the promoted dtype
//!   (to f32 when self is f16/bf16 and value is a float, as the device does). Evaluated as
//!   PyTorch's CPU kernels do, `self + (value * t1) / t2` and `self + (value * t1) * t2`,
//!   f16/bf16 in f32 rounded once: exact against torch.addcdiv/torch.addcmul. Integers
//!   wrap (Addcmul); an integer Addcdiv (s64, which the device lists and PyTorch refuses)
//!   is computed in f32 like Div and converted to out.
//! - Sum: the element-wise sum of a tensor list (AccumulateNV2), broadcast together,
//!   promoted; f16 accumulates in f32 and is rounded once; floats are added in the device's
//!   order (each run of the last 16 operands summed first while 16 or more remain),
//!   integers wrap.

use super::dense::load;
use crate::broadcast::broadcast_shapes;
use crate::dtype::{promote, DType};
use crate::engine::kernel::{ternary, Arith, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, ListParam, Nothing, Work, Workspace};
use crate::ops::elementwise::{self as ew, Arg};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// Addcdiv's dtypes on Atlas A2 (`DTYPE_SUPPORT_LIST_910B`).
pub(crate) const ADDCDIV: &[DType] = &[F32, S64, F16, F64, BF16];
/// Addcmul's dtypes on Atlas A2.
pub(crate) const ADDCMUL: &[DType] = &[F32, S32, S64, F16, S8, U8, F64, BF16];
/// Sum's dtypes.
pub(crate) const SUM: &[DType] = &[F16, F32, S8, S32, U8];

/// `s + (v * a) / b`.
struct Cdiv<T>(T);
impl<T: Arith + std::ops::Div<Output = T>> TernaryOp for Cdiv<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(p: &Params) -> Self {
        Cdiv(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, s: T, a: T, b: T) -> T {
        s.add(self.0.mul(a) / b)
    }
}

/// `s + (v * a) * b`.
struct Cmul<T>(T);
impl<T: Arith> TernaryOp for Cmul<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(p: &Params) -> Self {
        Cmul(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, s: T, a: T, b: T) -> T {
        s.add(self.0.mul(a).mul(b))
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Combine {
    Div,
    Mul,
}

/// The kernel `s + (v * a) / b` or `s + (v * a) * b` in kernel dtype `kc`, v being
/// `params.scalars[0]` (the foreach operators reuse it).
pub(crate) fn addc_kernel(how: Combine, kc: DType) -> KernelFn {
    match (how, kc) {
        (Combine::Div, F64) => ternary::<Cdiv<f64>> as KernelFn,
        (Combine::Div, _) => ternary::<Cdiv<f32>>,
        (Combine::Mul, _) => crate::with_compute_dtype!(kc, T => ternary::<Cmul<T>> as KernelFn),
    }
}

/// Addcdiv and Addcmul (`out` None: in place into self).
fn addc(
    api: &'static str,
    how: Combine,
    self_: &TensorDesc,
    tensor1: &TensorDesc,
    tensor2: &TensorDesc,
    value: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let list = if how == Combine::Div {
        ADDCDIV
    } else {
        ADDCMUL
    };
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    ew::check_tensor(self_name, self_, list)?;
    ew::check_tensor("tensor1", tensor1, list)?;
    ew::check_tensor("tensor2", tensor2, list)?;
    let cannot = |a: DType, b: DType| {
        Error::Invalid(format!(
            "dtypes {a} and {b} cannot be promoted to a common dtype"
        ))
    };
    let p12 = promote(tensor1.dtype, tensor2.dtype)
        .ok_or_else(|| cannot(tensor1.dtype, tensor2.dtype))?;
    let p = promote(self_.dtype, p12).ok_or_else(|| cannot(self_.dtype, p12))?;
    let (out_name, out_t) = match out {
        Some(o) => ("out", o),
        None => ("selfRef", self_),
    };
    ew::check_out_cast(p, out_name, out_t)?;
    ew::check_out_shape(
        p,
        &[
            (self_name, &self_.shape),
            ("tensor1", &tensor1.shape),
            ("tensor2", &tensor2.shape),
        ],
        out_name,
        out_t,
    )?;
    // value in the dtype the device makes it: f32 for an f16/bf16 self and a float value.
    let mixed = matches!(self_.dtype, F16 | BF16) && value.dtype == F32 && p != F64;
    let value = value.cast(if mixed { F32 } else { p });
    // Integer Addcdiv divides in f32 (as Div does).
    let c = if how == Combine::Div && !p.is_float() {
        F32
    } else {
        p
    };
    let kc = c.compute();
    let kernel = addc_kernel(how, kc);
    let mut params = Params::default();
    params.scalars.push(value.cast(kc));
    let v = Via::of(c);
    // An empty input makes out empty (0 broadcasts only with 1): nothing to run.
    ew::executor(
        api,
        &[
            Arg::Tensor(self_name, self_),
            Arg::Tensor("tensor1", tensor1),
            Arg::Tensor("tensor2", tensor2),
        ],
        &[v, v, v],
        out_name,
        out_t,
        v,
        kernel,
        params,
        out.is_none(),
    )
}

/// aclnnAddcdiv.
pub fn addcdiv(
    s: &TensorDesc,
    t1: &TensorDesc,
    t2: &TensorDesc,
    v: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    addc("aclnnAddcdiv", Combine::Div, s, t1, t2, v, Some(out))
}

/// aclnnInplaceAddcdiv.
pub fn inplace_addcdiv(
    s: &TensorDesc,
    t1: &TensorDesc,
    t2: &TensorDesc,
    v: &Scalar,
) -> Result<Executor> {
    addc("aclnnInplaceAddcdiv", Combine::Div, s, t1, t2, v, None)
}

/// aclnnAddcmul.
pub fn addcmul(
    s: &TensorDesc,
    t1: &TensorDesc,
    t2: &TensorDesc,
    v: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    addc("aclnnAddcmul", Combine::Mul, s, t1, t2, v, Some(out))
}

/// aclnnInplaceAddcmul.
pub fn inplace_addcmul(
    s: &TensorDesc,
    t1: &TensorDesc,
    t2: &TensorDesc,
    v: &Scalar,
) -> Result<Executor> {
    addc("aclnnInplaceAddcmul", Combine::Mul, s, t1, t2, v, None)
}

/// aclnnSum.
pub fn sum(tensors: &[&TensorDesc], out: &TensorDesc) -> Result<Executor> {
    crate::ensure!(
        !tensors.is_empty(),
        "tensors is an empty list; it needs at least one tensor"
    );
    for (i, t) in tensors.iter().enumerate() {
        crate::ensure!(
            SUM.contains(&t.dtype),
            "tensors[{i}] has dtype {}, which aclnnSum does not support; supported: ACL_FLOAT16, ACL_FLOAT, ACL_INT8, ACL_INT32, ACL_UINT8",
            t.dtype
        );
    }
    ew::check_tensor("out", out, SUM)?;
    let mut p = tensors[0].dtype;
    for t in &tensors[1..] {
        p = promote(p, t.dtype).ok_or_else(|| {
            Error::Invalid(format!("dtypes {p} and {} cannot be promoted", t.dtype))
        })?;
    }
    ew::check_out_cast(p, "out", out)?;
    let names: Vec<String> = (0..tensors.len())
        .map(|i| format!("tensors[{i}]"))
        .collect();
    let shapes: Vec<(&str, &[usize])> = tensors
        .iter()
        .zip(&names)
        .map(|(t, n)| (n.as_str(), &t.shape[..]))
        .collect();
    for (n, s) in &shapes {
        crate::ensure!(
            s.len() <= 8,
            "{n} has {} dims; at most 8 are supported",
            s.len()
        );
    }
    let shape = broadcast_shapes(&shapes)?.to_vec();
    ew::check_result_shape("out", out, &shape)?;
    let n = tensors.len();
    let mut views: Vec<Option<TensorDesc>> = tensors.iter().map(|t| Some((*t).clone())).collect();
    views.push(Some(out.clone()));
    let b = Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: n,
        outputs: smallvec::smallvec![n],
    };
    let work: Box<dyn Work> = if tensors[0].is_empty() || out.is_empty() {
        Box::new(Nothing)
    } else {
        Box::new(SumWork {
            n,
            shape,
            float: p.is_float(),
        })
    };
    let mut e = Executor::shared("aclnnSum", b, std::sync::Arc::from(work));
    e.lists = vec![ListParam {
        output: false,
        ir_index: 0,
        any_index: 0,
        first: 0,
        len: n,
    }];
    Ok(e)
}

struct SumWork {
    n: usize,
    shape: Vec<usize>,
    float: bool,
}

/// Adds `terms` element by element, first to last.
fn add_all<T: Arith>(terms: &[Vec<T>]) -> Vec<T> {
    let mut acc = terms[0].clone();
    for t in &terms[1..] {
        for (a, x) in acc.iter_mut().zip(t) {
            *a = a.add(*x);
        }
    }
    acc
}

impl SumWork {
    fn total<T: Arith>(&self, t: &Bindings) -> Result<Vec<T>> {
        let mut terms = (0..self.n)
            .map(|i| load::<T>(t, i, &self.shape))
            .collect::<Result<Vec<_>>>()?;
        // The device's grouping: while 16 or more operands remain, the last 16 are summed
        // into one that takes their place at the end.
        while terms.len() >= 16 {
            let tail = terms.split_off(terms.len() - 16);
            terms.push(add_all(&tail));
        }
        Ok(add_all(&terms))
    }
}

impl Work for SumWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        if self.float {
            super::dense::store(t, self.n, &self.total::<f32>(t)?)
        } else {
            super::dense::store(t, self.n, &self.total::<i64>(t)?)
        }
    }
}

/// Addcdiv's and Addcmul's dtypes the torch reference exercises.
#[cfg(test)]
pub(crate) const ADDCDIV_TESTED: &[DType] = ADDCDIV;
#[cfg(test)]
pub(crate) const ADDCMUL_TESTED: &[DType] = ADDCMUL;
