//! Addr: `out = beta·self + alpha·(vec1 ⊗ vec2)`, the outer product of two vectors added to
//! a matrix, as an element-wise operation over views: vec1 seen as a column (n, 1) and
//! vec2 as a row (1, m), self broadcasting to (n, m).
//!
//! self, vec1 and vec2 promote by the tensor-tensor table; the product is computed in the
//! promoted dtype as torch does, `(alpha·vec1)·vec2 + beta·self` (integers wrap; f16/bf16 in
//! f32, rounded once; bool: or of ands). With beta = 0, self is not read (NaN and inf in it
//! do not propagate). alpha and beta (NULL: 1) must convert to the promoted dtype: a float
//! to an integer or bool result, or a bool scalar to a non-bool result, is refused.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, DType};
use crate::element::Wide;
use crate::engine::kernel::{ternary, Arith, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;

const ADDR: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];

/// `(alpha·v1)·v2 + beta·s`.
struct Addr<T> {
    alpha: T,
    beta: T,
}
impl<T: Arith> TernaryOp for Addr<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(p: &Params) -> Self {
        Addr {
            alpha: p.scalars[0].get::<T>(),
            beta: p.scalars[1].get::<T>(),
        }
    }
    #[inline(always)]
    fn apply(&self, s: T, v1: T, v2: T) -> T {
        self.alpha.mul(v1).mul(v2).add(self.beta.mul(s))
    }
}

/// beta = 0: `(alpha·v1)·v2`, self unread.
struct Outer<T>(T);
impl<T: Arith> TernaryOp for Outer<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(p: &Params) -> Self {
        Outer(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, _: T, v1: T, v2: T) -> T {
        self.0.mul(v1).mul(v2)
    }
}

fn is_zero(s: &Scalar) -> bool {
    match s.wide() {
        Wide::Bool(b) => !b,
        Wide::Int(i) => i == 0,
        Wide::Float(f) => f == 0.0,
        Wide::Complex(re, im) => re == 0.0 && im == 0.0,
    }
}

fn check_factor(name: &str, s: &Scalar, p: DType) -> Result<()> {
    ew::check_scalar_dtype(name, s.dtype, ADDR)?;
    crate::ensure!(
        !(s.dtype == Bool && p != Bool),
        "{name} is bool, which needs self, vec1 and vec2 to be bool; their promoted dtype is {p}"
    );
    crate::ensure!(
        !(s.dtype.is_float() && p.is_integral_or_bool()),
        "{name} of dtype {} cannot apply to the integer or bool promoted dtype {p}",
        s.dtype
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn build(
    api: &'static str,
    self_name: &'static str,
    self_: &TensorDesc,
    vec1: &TensorDesc,
    vec2: &TensorDesc,
    beta: Option<&Scalar>,
    alpha: Option<&Scalar>,
    out: Option<&TensorDesc>,
    v2: bool,
) -> Result<Executor> {
    ew::check_tensor(self_name, self_, ADDR)?;
    ew::check_tensor("vec1", vec1, ADDR)?;
    ew::check_tensor("vec2", vec2, ADDR)?;
    let p = promote(self_.dtype, vec1.dtype)
        .and_then(|d| promote(d, vec2.dtype))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{self_name} dtype {}, vec1 dtype {} and vec2 dtype {} cannot be promoted to a common dtype",
                self_.dtype, vec1.dtype, vec2.dtype
            ))
        })?;
    let one = Scalar::from_value(1i64);
    let (beta, alpha) = (beta.unwrap_or(&one), alpha.unwrap_or(&one));
    check_factor("betaOptional", beta, p)?;
    check_factor("alphaOptional", alpha, p)?;
    crate::ensure!(
        vec1.rank() == 1 && vec2.rank() == 1,
        "vec1 {:?} and vec2 {:?} must be 1-D",
        vec1.shape,
        vec2.shape
    );
    crate::ensure!(
        self_.rank() <= 2,
        "{self_name} has {} dims; at most 2 are supported",
        self_.rank()
    );
    let (out_name, out_desc) = match out {
        Some(o) => {
            ew::check_tensor("out", o, ADDR)?;
            ("out", o)
        }
        None => {
            crate::ensure!(
                self_.rank() == 2 && (v2 || !self_.is_empty()),
                "selfRef {:?} must be a {}2-D tensor",
                self_.shape,
                if v2 { "" } else { "non-empty " }
            );
            (self_name, self_)
        }
    };
    ew::check_out_cast(p, out_name, out_desc)?;
    let (n, m) = (vec1.shape[0], vec2.shape[0]);
    let mut column = vec1.clone();
    column.shape = smallvec::smallvec![n, 1];
    column.strides = smallvec::smallvec![vec1.strides[0], 0];
    let mut row = vec2.clone();
    row.shape = smallvec::smallvec![1, m];
    row.strides = smallvec::smallvec![0, vec2.strides[0]];
    crate::ensure!(
        out_desc.shape[..] == [n, m],
        "'{out_name}' has shape {:?} but vec1 {:?} and vec2 {:?} give [{n}, {m}]",
        out_desc.shape,
        vec1.shape,
        vec2.shape
    );
    ew::check_out_shape(
        p,
        &[
            (self_name, &self_.shape),
            ("vec1", &column.shape),
            ("vec2", &row.shape),
        ],
        out_name,
        out_desc,
    )?;
    let c = p.compute();
    let (a, b) = (alpha.cast(p).cast(c), beta.cast(p).cast(c));
    let k = if is_zero(beta) {
        crate::with_compute_dtype!(c, T => ternary::<Outer<T>> as KernelFn)
    } else {
        crate::with_compute_dtype!(c, T => ternary::<Addr<T>> as KernelFn)
    };
    let v = Via::of(p);
    ew::executor(
        api,
        &[
            Arg::Tensor(self_name, self_),
            Arg::Tensor("vec1", &column),
            Arg::Tensor("vec2", &row),
        ],
        &[v, v, v],
        out_name,
        out_desc,
        v,
        k,
        Params {
            scalars: smallvec::smallvec![a, b],
            ints: smallvec::smallvec![],
        },
        out.is_none(),
    )
}

/// aclnnAddr.
pub fn addr(
    self_: &TensorDesc,
    vec1: &TensorDesc,
    vec2: &TensorDesc,
    beta: Option<&Scalar>,
    alpha: Option<&Scalar>,
    out: &TensorDesc,
) -> Result<Executor> {
    build(
        "aclnnAddr",
        "self",
        self_,
        vec1,
        vec2,
        beta,
        alpha,
        Some(out),
        false,
    )
}

/// aclnnInplaceAddr: into selfRef, a non-empty 2-D tensor.
pub fn inplace_addr(
    self_ref: &TensorDesc,
    vec1: &TensorDesc,
    vec2: &TensorDesc,
    beta: Option<&Scalar>,
    alpha: Option<&Scalar>,
) -> Result<Executor> {
    build(
        "aclnnInplaceAddr",
        "selfRef",
        self_ref,
        vec1,
        vec2,
        beta,
        alpha,
        None,
        false,
    )
}

/// aclnnAddrV2 (CANN's experimental addr_v2): Addr's rule, dtypes and checks.
pub fn addr_v2(
    self_: &TensorDesc,
    vec1: &TensorDesc,
    vec2: &TensorDesc,
    beta: Option<&Scalar>,
    alpha: Option<&Scalar>,
    out: &TensorDesc,
) -> Result<Executor> {
    build(
        "aclnnAddrV2",
        "self",
        self_,
        vec1,
        vec2,
        beta,
        alpha,
        Some(out),
        true,
    )
}

/// aclnnInplaceAddrV2: into selfRef, a 2-D tensor (empty ones too: nothing is written).
pub fn inplace_addr_v2(
    self_ref: &TensorDesc,
    vec1: &TensorDesc,
    vec2: &TensorDesc,
    beta: Option<&Scalar>,
    alpha: Option<&Scalar>,
) -> Result<Executor> {
    build(
        "aclnnInplaceAddrV2",
        "selfRef",
        self_ref,
        vec1,
        vec2,
        beta,
        alpha,
        None,
        true,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Addr, InplaceAddr, AddrV2, InplaceAddrV2",
    a: ADDR,
    b: ADDR,
    out: ADDR,
    rule: "beta·self + alpha·(vec1 ⊗ vec2) (beta = 0: self unread)",
}];
