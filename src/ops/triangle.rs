//! Tril and Triu (aclnn_tril.h, aclnn_triu.h): the lower / upper triangle of each matrix
//! of the last two dims, as torch.tril / torch.triu. Element (i, j) of a matrix is kept
//! when `j − i <= diagonal` (Tril) or `j − i >= diagonal` (Triu), else it is zero. One
//! remap-engine plan (`engine::remap`): the identity map with a band over the last two
//! axes; in place (InplaceTril/InplaceTriu) it reads each element where it writes it.
//! Exact: values are moved, never computed on.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::remap::{self, Band, Remap};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnTril / aclnnTriu, Atlas A2 (the op_api's 910B lists; no complex there).
const TRIANGLE: &[DType] = &[
    F64, F32, F16, BF16, S64, S32, S16, U8, S8, Bool, U64, U32, U16,
];

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Lower,
    Upper,
}

fn build(
    api: &'static str,
    part: Part,
    self_: &TensorDesc,
    diagonal: i64,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    ew::check_tensor(self_name, self_, TRIANGLE)?;
    let target = out.unwrap_or(self_);
    if let Some(o) = out {
        ew::check_tensor("out", o, TRIANGLE)?;
        ew::check_same_dtype("out", o, self_)?;
        crate::ensure!(
            o.format == self_.format,
            "out has format {} but must have self's format {}",
            o.format,
            self_.format
        );
    }
    // Tril needs a matrix; Triu accepts an empty tensor of any rank (aclnn_triu.cpp).
    crate::ensure!(
        self_.rank() >= 2 || (part == Part::Upper && self_.is_empty()),
        "{self_name} has {} dims but {api} needs at least 2 (a matrix in the last two dims)",
        self_.rank()
    );
    ew::check_result_shape(
        if out.is_some() { "out" } else { "selfRef" },
        target,
        &self_.shape,
    )?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(match out {
            Some(o) => vec![Some(self_.clone()), Some(o.clone())],
            None => vec![Some(self_.clone())],
        }),
        n_inputs: 1,
        outputs: smallvec::smallvec![if out.is_some() { 1 } else { 0 }],
    };
    if self_.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    // A diagonal past every matrix keeps everything or nothing; clamped so the band's
    // arithmetic cannot overflow.
    let k = self_.rank();
    let reach = (self_.shape[k - 2] + self_.shape[k - 1]) as i64;
    let d = diagonal.clamp(-reach, reach);
    let band = match part {
        Part::Lower => Band {
            lo: -reach - 1,
            hi: d,
        },
        Part::Upper => Band {
            lo: d,
            hi: reach + 1,
        },
    };
    let maps = self_
        .shape
        .iter()
        .map(|&n| (0..n as i64).collect())
        .collect();
    let plan = Remap::new(
        self_,
        0,
        target,
        if out.is_some() { 1 } else { 0 },
        maps,
        Some(band),
        remap::zero(self_.dtype),
    );
    Ok(Executor::new(api, bindings, plan))
}

/// aclnnTril: `out = tril(self, diagonal)`.
pub fn tril(self_: &TensorDesc, diagonal: i64, out: &TensorDesc) -> Result<Executor> {
    build("aclnnTril", Part::Lower, self_, diagonal, Some(out))
}

/// aclnnInplaceTril: `selfRef = tril(selfRef, diagonal)`.
pub fn inplace_tril(self_ref: &TensorDesc, diagonal: i64) -> Result<Executor> {
    build("aclnnInplaceTril", Part::Lower, self_ref, diagonal, None)
}

/// aclnnTriu: `out = triu(self, diagonal)`.
pub fn triu(self_: &TensorDesc, diagonal: i64, out: &TensorDesc) -> Result<Executor> {
    build("aclnnTriu", Part::Upper, self_, diagonal, Some(out))
}

/// aclnnInplaceTriu: `selfRef = triu(selfRef, diagonal)`.
pub fn inplace_triu(self_ref: &TensorDesc, diagonal: i64) -> Result<Executor> {
    build("aclnnInplaceTriu", Part::Upper, self_ref, diagonal, None)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Tril, Triu (+ Inplace)",
    a: TRIANGLE,
    b: &[],
    out: TRIANGLE,
    rule: "lower (j − i ≤ diagonal) / upper (j − i ≥ diagonal) triangle of the last two dims, the rest 0",
}];
