//! Add, Adds, InplaceAdd, InplaceAdds: `out = self + alpha * other` (reference §5.1); and
//! Sub, Subs, InplaceSub, InplaceSubs: `out = self - alpha * other`.
//!
//! Rules beyond the binary shape (`binary.rs`): dtypes are ALL12; alpha applies to the
//! promoted dtype — a bool result takes only an integral or bool alpha; otherwise alpha
//! must not be complex for a real result, nor float for an integer one. alpha is
//! converted to the promoted dtype first (as the device does), then the result is
//! computed as a multiply and an add (not fused), f16/bf16 in f32 rounded once.
//! InplaceAdds does not take complex tensors (its doc omits them); InplaceSubs does (its doc
//! and CANN's A2 code list COMPLEX64/COMPLEX128). Sub of two bools is computed as
//! on the device (the Sub kernel runs on bool; CANN's tests take it as logical xor): a
//! bool alpha (or an integer one, converted to bool: non-zero is true) applies as a
//! logical and, so `out = self xor (alpha and other)`.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::{self as ew, ALL12};
use crate::dtype::{can_cast_value, DType};
use crate::engine::kernel::{binary as binary_kernel, Arith, BinaryOp};
use crate::engine::{KernelFn, Narrow, Params};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use crate::with_compute_dtype;
use std::marker::PhantomData;

const DTYPES: Dtypes = Dtypes {
    a: ALL12,
    b: ALL12,
    out: ALL12,
};

/// `a + b`.
struct Plus<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Plus<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Plus(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.add(b)
    }
}

/// `a + alpha*b`, alpha being `params.scalars[0]` in the kernel dtype.
struct PlusScaled<T>(T);
impl<T: Arith> BinaryOp for PlusScaled<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(p: &Params) -> Self {
        PlusScaled(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.add(self.0.mul(b))
    }
}

/// `a - alpha*b`.
struct MinusScaled<T>(T);
impl<T: Arith> BinaryOp for MinusScaled<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(p: &Params) -> Self {
        MinusScaled(p.scalars[0].get::<T>())
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.sub(self.0.mul(b))
    }
}

fn check_alpha(alpha: &Scalar, promoted: DType) -> Result<()> {
    ew::check_scalar_dtype("alpha", alpha.dtype, ALL12)?;
    let ok = if promoted == DType::Bool {
        alpha.dtype.is_integral_or_bool()
    } else {
        can_cast_value(alpha.dtype, promoted)
    };
    crate::ensure!(
        ok,
        "alpha of dtype {} cannot be applied to the promoted dtype {promoted}: {}",
        alpha.dtype,
        if promoted.is_integral_or_bool() {
            "integer and bool results need an integer or bool alpha"
        } else {
            "a real result cannot take a complex alpha"
        }
    );
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Sign {
    Plus,
    Minus,
}

/// The computation for a promoted dtype: alpha checked, converted to the promoted dtype,
/// then to the kernel's.
pub(crate) fn compute(sign: Sign, alpha: &Scalar, promoted: DType) -> Result<Compute> {
    check_alpha(alpha, promoted)?;
    let c = promoted.compute();
    let a = alpha.cast(promoted).cast(c);
    let (kernel, narrow) = match sign {
        Sign::Plus if a.is_one() => (
            with_compute_dtype!(c, T => binary_kernel::<Plus<T>> as KernelFn),
            Narrow::binary::<Plus<f32>>(),
        ),
        Sign::Plus => (
            with_compute_dtype!(c, T => binary_kernel::<PlusScaled<T>> as KernelFn),
            Narrow::binary::<PlusScaled<f32>>(),
        ),
        Sign::Minus => (
            with_compute_dtype!(c, T => binary_kernel::<MinusScaled<T>> as KernelFn),
            Narrow::binary::<MinusScaled<f32>>(),
        ),
    };
    Ok(Compute {
        params: Params {
            scalars: smallvec::smallvec![a],
            ints: smallvec::smallvec![],
        },
        ..Compute::same(promoted, kernel).narrowed(narrow)
    })
}

fn no_complex(api: &str, t: &TensorDesc) -> Result<()> {
    crate::ensure!(
        !t.dtype.is_complex(),
        "tensor 'selfRef' has dtype {}; {api} does not support complex tensors",
        t.dtype
    );
    Ok(())
}

macro_rules! family {
    ($sign:expr, $complex_its:expr, $tt:ident, $ts:ident, $itt:ident, $its:ident, $n_tt:literal, $n_ts:literal, $n_itt:literal, $n_its:literal) => {
        #[doc = concat!($n_tt, ": `out = self ± alpha * other`.")]
        pub fn $tt(
            self_: &TensorDesc,
            other: &TensorDesc,
            alpha: &Scalar,
            out: &TensorDesc,
        ) -> Result<Executor> {
            binary::build(
                $n_tt,
                &DTYPES,
                Operand::Tensor("self", self_),
                Operand::Tensor("other", other),
                Some(("out", out)),
                |p| compute($sign, alpha, p),
            )
        }
        #[doc = concat!($n_ts, ": as the tensor form with a scalar `other`.")]
        pub fn $ts(
            self_: &TensorDesc,
            other: &Scalar,
            alpha: &Scalar,
            out: &TensorDesc,
        ) -> Result<Executor> {
            binary::build(
                $n_ts,
                &DTYPES,
                Operand::Tensor("self", self_),
                Operand::Scalar("other", other),
                Some(("out", out)),
                |p| compute($sign, alpha, p),
            )
        }
        #[doc = concat!($n_itt, ": in place into `selfRef`.")]
        pub fn $itt(self_ref: &TensorDesc, other: &TensorDesc, alpha: &Scalar) -> Result<Executor> {
            binary::build(
                $n_itt,
                &DTYPES,
                Operand::Tensor("selfRef", self_ref),
                Operand::Tensor("other", other),
                None,
                |p| compute($sign, alpha, p),
            )
        }
        #[doc = concat!($n_its, ": in place into `selfRef` with a scalar `other`.")]
        pub fn $its(self_ref: &TensorDesc, other: &Scalar, alpha: &Scalar) -> Result<Executor> {
            if !$complex_its {
                no_complex($n_its, self_ref)?;
            }
            binary::build(
                $n_its,
                &DTYPES,
                Operand::Tensor("selfRef", self_ref),
                Operand::Scalar("other", other),
                None,
                |p| compute($sign, alpha, p),
            )
        }
    };
}

family!(
    Sign::Plus,
    false,
    add,
    adds,
    inplace_add,
    inplace_adds,
    "aclnnAdd",
    "aclnnAdds",
    "aclnnInplaceAdd",
    "aclnnInplaceAdds"
);
family!(
    Sign::Minus,
    true,
    sub,
    subs,
    inplace_sub,
    inplace_subs,
    "aclnnSub",
    "aclnnSubs",
    "aclnnInplaceSub",
    "aclnnInplaceSubs"
);

/// Rsub's lists (CANN's aclnnRsub.md: ALL12 but bool).
const RSUB: &[DType] = &[
    DType::S8,
    DType::U8,
    DType::S16,
    DType::S32,
    DType::S64,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
    DType::BF16,
];
const RSUB_DTYPES: Dtypes = Dtypes {
    a: RSUB,
    b: RSUB,
    out: RSUB,
};

/// aclnnRsub: `out = other − alpha·self`, Sub with its operands exchanged.
pub fn rsub(
    self_: &TensorDesc,
    other: &TensorDesc,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnRsub",
        &RSUB_DTYPES,
        Operand::Tensor("other", other),
        Operand::Tensor("self", self_),
        Some(("out", out)),
        |p| compute(Sign::Minus, alpha, p),
    )
}

/// aclnnRsubs: `out = other − alpha·self` with a scalar `other`.
pub fn rsubs(
    self_: &TensorDesc,
    other: &Scalar,
    alpha: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    binary::build(
        "aclnnRsubs",
        &RSUB_DTYPES,
        Operand::Scalar("other", other),
        Operand::Tensor("self", self_),
        Some(("out", out)),
        |p| compute(Sign::Minus, alpha, p),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Add, Adds, InplaceAdd, InplaceAdds",
        a: ALL12,
        b: ALL12,
        out: ALL12,
        rule: "self + alpha·other",
    },
    Entry {
        ops: "Sub, Subs, InplaceSub, InplaceSubs",
        a: ALL12,
        b: ALL12,
        out: ALL12,
        rule: "self − alpha·other (bool: self xor (alpha and other))",
    },
    Entry {
        ops: "Rsub, Rsubs",
        a: RSUB,
        b: RSUB,
        out: RSUB,
        rule: "other − alpha·self",
    },
];
