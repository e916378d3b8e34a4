//! LogicalAnd, LogicalOr, LogicalXor, LogicalNot and the in-place And/Or/Not (reference
//! §5.3). Inputs of any listed dtype are read as truth values (non-zero is true; a complex
//! value with either part non-zero is true); no promotion is needed. The 1/0 result is
//! converted to out's dtype.

use super::binary::{self, Compute, Dtypes, Operand};
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::Bool8;
use crate::engine::kernel::{binary as kernel, unary, BinaryOp, UnaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;
const LIST: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, C64, C128, BF16];
const NOT_LIST: &[DType] = &[Bool, U8, S8, S16, S32, S64, F32, F16, F64, BF16];
const DTYPES: Dtypes = Dtypes {
    a: LIST,
    b: LIST,
    out: LIST,
};

/// The three binary connectives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Connective {
    And,
    Or,
    Xor,
}

struct Logic<const C: u8>;
impl<const C: u8> BinaryOp for Logic<C> {
    type A = Bool8;
    type B = Bool8;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Logic
    }
    #[inline(always)]
    fn apply(&self, a: Bool8, b: Bool8) -> Bool8 {
        let (a, b) = (a.get(), b.get());
        Bool8::new(match C {
            0 => a && b,
            1 => a || b,
            _ => a != b,
        })
    }
}

struct Not;
impl UnaryOp for Not {
    type A = Bool8;
    type O = Bool8;
    fn new(_: &Params) -> Self {
        Not
    }
    #[inline(always)]
    fn apply(&self, a: Bool8) -> Bool8 {
        Bool8::new(!a.get())
    }
}

fn truth(kernel: KernelFn) -> Compute {
    Compute {
        checked: Bool,
        input: Via::exact(Bool),
        result: Via::exact(Bool),
        kernel,
        narrow: None,
        params: Params::default(),
    }
}

/// `out = self C other`; `out == None` writes into selfRef.
pub fn binary(
    api: &'static str,
    c: Connective,
    self_: &TensorDesc,
    other: &TensorDesc,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let k = match c {
        Connective::And => kernel::<Logic<0>> as KernelFn,
        Connective::Or => kernel::<Logic<1>>,
        Connective::Xor => kernel::<Logic<2>>,
    };
    let name = if out.is_some() { "self" } else { "selfRef" };
    binary::build(
        api,
        &DTYPES,
        Operand::Tensor(name, self_),
        Operand::Tensor("other", other),
        out.map(|o| ("out", o)),
        |_| Ok(truth(k)),
    )
}

/// `out = !self`; `out == None` writes into selfRef. out has self's shape.
pub fn not(api: &'static str, self_: &TensorDesc, out: Option<&TensorDesc>) -> Result<Executor> {
    let (name, out_name, out_desc) = match out {
        Some(o) => ("self", "out", o),
        None => ("selfRef", "selfRef", self_),
    };
    ew::check_tensor(name, self_, NOT_LIST)?;
    ew::check_tensor(out_name, out_desc, NOT_LIST)?;
    ew::check_out_cast(Bool, out_name, out_desc)?;
    ew::check_out_shape(Bool, &[(name, &self_.shape)], out_name, out_desc)?;
    let c = truth(unary::<Not> as KernelFn);
    ew::executor(
        api,
        &[Arg::Tensor(name, self_)],
        &[c.input],
        out_name,
        out_desc,
        c.result,
        c.kernel,
        c.params,
        out.is_none(),
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "LogicalAnd, LogicalOr, LogicalXor, InplaceLogicalAnd, InplaceLogicalOr",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "truth values (x ≠ 0)",
    },
    Entry {
        ops: "LogicalNot, InplaceLogicalNot",
        a: NOT_LIST,
        b: &[],
        out: NOT_LIST,
        rule: "!x",
    },
];
