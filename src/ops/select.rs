//! SWhere(condition, self, other, out): `out = condition ? self : other` (reference §5.3),
//! with all three broadcast together. condition is bool or u8 (non-zero is true); self
//! and other promote (tensor-tensor) and the selected value is cast to out.

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::{promote, DType};
use crate::element::Bool8;
use crate::engine::kernel::{ternary, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::tensor::TensorDesc;
use crate::with_compute_dtype;
use std::marker::PhantomData;

use DType::*;
const CONDITION: &[DType] = &[U8, Bool];
const VALUES: &[DType] = &[
    F32, S32, U64, S64, U32, F16, U16, S16, S8, U8, F64, Bool, C64, C128, BF16,
];

struct Select<T>(PhantomData<T>);
impl<T: crate::element::Element> TernaryOp for Select<T> {
    type A = Bool8;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Select(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, c: Bool8, a: T, b: T) -> T {
        // Canonical: a selected bool byte 0x27 is written as 1.
        if c.get() {
            a.canonical()
        } else {
            b.canonical()
        }
    }
}

/// aclnnSWhere.
pub fn s_where(
    condition: &TensorDesc,
    self_: &TensorDesc,
    other: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("condition", condition, CONDITION)?;
    ew::check_tensor("self", self_, VALUES)?;
    ew::check_tensor("other", other, VALUES)?;
    ew::check_tensor("out", out, VALUES)?;
    let p = promote(self_.dtype, other.dtype).ok_or_else(|| {
        Error::Invalid(format!(
            "self dtype {} and other dtype {} cannot be promoted to a common dtype",
            self_.dtype, other.dtype
        ))
    })?;
    ew::check_out_cast(p, "out", out)?;
    ew::check_out_shape(
        p,
        &[
            ("condition", &condition.shape),
            ("self", &self_.shape),
            ("other", &other.shape),
        ],
        "out",
        out,
    )?;
    // Selecting moves values: the promoted dtype's storage type is exact (no f32 detour).
    let k = with_compute_dtype!(p.compute(), T => ternary::<Select<T>> as KernelFn);
    let v = Via::of(p);
    ew::executor(
        "aclnnSWhere",
        &[
            Arg::Tensor("condition", condition),
            Arg::Tensor("self", self_),
            Arg::Tensor("other", other),
        ],
        &[Via::exact(Bool), v, v],
        "out",
        out,
        v,
        k,
        Params::default(),
        false,
    )
}

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "SWhere",
    a: VALUES,
    b: CONDITION,
    out: VALUES,
    rule: "condition ? self : other (b: condition)",
}];
