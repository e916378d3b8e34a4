//! Flip (aclnn_flip.h): self reversed along `dims`, as torch.flip. Views here cannot have
//! negative strides, so the result is a copy: one remap-engine plan whose map runs
//! backwards along each flipped axis (`engine::remap`); exact.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::remap;
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnFlip.md, Atlas A2.
const FLIP: &[DType] = &[F16, F32, S32, S16, S64, Bool, S8, U8, F64, C64, C128, BF16];

/// aclnnFlip: `out = flip(self, dims)` (each dim named once).
pub fn flip(self_: &TensorDesc, dims: &[i64], out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnFlip";
    ew::check_tensor("self", self_, FLIP)?;
    ew::check_tensor("out", out, FLIP)?;
    ew::check_same_dtype("out", out, self_)?;
    crate::ensure!(
        self_.rank() >= 1,
        "self is a scalar (0 dims): {API} needs at least 1 dim"
    );
    let mut flipped = vec![false; self_.rank()];
    for &d in dims {
        let a = ew::axis("dims value", d, self_.rank(), "self")?;
        crate::ensure!(!flipped[a], "dims {dims:?} names axis {a} twice");
        flipped[a] = true;
    }
    ew::check_result_shape("out", out, &self_.shape)?;
    let maps = self_
        .shape
        .iter()
        .zip(&flipped)
        .map(|(&n, &f)| {
            let n = n as i64;
            (0..n).map(|i| if f { n - 1 - i } else { i }).collect()
        })
        .collect();
    Ok(remap::executor(
        API,
        self_,
        out,
        maps,
        remap::zero(self_.dtype),
    ))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Flip",
    a: FLIP,
    b: &[],
    out: FLIP,
    rule: "reversed along dims (a copy)",
}];
