//! Linear algebra over the last dims: LinalgCross (torch.linalg.cross), the vector
//! product of 3-vectors along a dim, with broadcasting.
//!
//! - LinalgCross: `out[.., i, ..] = self[j]·other[k] − self[k]·other[j]` for the cyclic
//!   (i, j, k) of (0, 1, 2) along `dim`. self, other and out share one dtype of the A2
//!   list of aclnnLinalgCross.md (s8, s16, s32, s64, u8, f16, bf16, f32, f64, c64, c128);
//!   self and other broadcast to out's shape; `dim` is in [-rank(self), rank(self)) and
//!   names an axis of self (the op_api shifts a non-negative dim by the dims other adds in
//!   front, so it is self's axis also when other has more dims; torch wraps a
//!   non-negative dim on the broadcast shape instead: the two agree when self has the
//!   broadcast rank or dim is negative). That axis of out must be 3. Run on the
//!   element-wise engine as six steps into the three slices of out along dim:
//!   `out_i = self_j·other_k`, then `out_i = out_i − self_k·other_j`, each in the dtype's
//!   arithmetic (integers wrap; f16/bf16 compute in f32 and round to the dtype after each
//!   step, as torch's Half/BFloat16 arithmetic rounds each product and difference but
//!   the second product). f32/f64/integers/complex: torch's formula op for op.
//!
//! Phase 1 checks in the op_api's order (aclnn_linalg_cross.cpp): null; self's dtype in
//! the list; other and out of self's dtype; at most 8 dims each; self and other
//! broadcast, to out's shape; dim in self's range; then an empty out returns (nothing
//! written) before the check that dim's extent is 3. Beyond the op_api: out may not
//! overlap self or other (its slices are written one after another).

use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::engine::kernel::{binary, ternary, Arith, BinaryOp, TernaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Sequence};
use crate::tensor::TensorDesc;
use std::marker::PhantomData;

use DType::*;

/// aclnnLinalgCross's A2 list (DTYPE_SUPPORT_LIST_910B of aclnn_linalg_cross.cpp).
const CROSS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, C64, C128, U8, BF16];

/// `a·b` in the kernel type.
struct Product<T>(PhantomData<T>);
impl<T: Arith> BinaryOp for Product<T> {
    type A = T;
    type B = T;
    type O = T;
    fn new(_: &Params) -> Self {
        Product(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        a.mul(b)
    }
}

/// `acc − a·b` in the kernel type.
struct LessProduct<T>(PhantomData<T>);
impl<T: Arith> TernaryOp for LessProduct<T> {
    type A = T;
    type B = T;
    type C = T;
    type O = T;
    fn new(_: &Params) -> Self {
        LessProduct(PhantomData)
    }
    #[inline(always)]
    fn apply(&self, acc: T, a: T, b: T) -> T {
        acc.sub(a.mul(b))
    }
}

/// `t` at index `i` of its axis `axis` (or as it is when that axis broadcasts: extent 1,
/// or `axis` None — a dim t lacks), that axis removed.
fn component(t: &TensorDesc, axis: Option<usize>, i: usize) -> TensorDesc {
    let mut v = t.clone();
    if let Some(a) = axis {
        if t.shape[a] != 1 {
            v.offset += i * t.strides[a] as usize;
        }
        v.shape.remove(a);
        v.strides.remove(a);
    }
    v
}

/// aclnnLinalgCross: out = self × other along dim.
pub fn linalg_cross(
    self_: &TensorDesc,
    other: &TensorDesc,
    dim: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnLinalgCross";
    ew::check_tensor("self", self_, CROSS)?;
    ew::check_dtype_of("other", other, "self", self_)?;
    ew::check_dtype_of("out", out, "self", self_)?;
    for (name, t) in [("other", other), ("out", out)] {
        ew::check_tensor(name, t, CROSS)?;
    }
    let shape =
        crate::broadcast::broadcast_shapes(&[("self", &self_.shape), ("other", &other.shape)])?;
    crate::ensure!(
        shape[..] == out.shape[..],
        "{API}: out has shape {:?} but self {:?} and other {:?} broadcast to {shape:?}",
        out.shape,
        self_.shape,
        other.shape
    );
    let rs = self_.rank();
    let axis = ew::axis("dim", dim, rs, "self")?;
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(self_.clone()),
            Some(other.clone()),
            Some(out.clone()),
        ]),
        n_inputs: 2,
        outputs: smallvec::smallvec![2],
    };
    if out.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    // The axis of out (and of other, if it has it) that is self's axis `axis`.
    let ro = out.rank();
    let d = axis + (ro - rs);
    crate::ensure!(
        out.shape[d] == 3,
        "{API}: dimension {dim} does not have size 3 (self {:?}, other {:?} broadcast to {:?})",
        self_.shape,
        other.shape,
        out.shape
    );
    out.check_output("out")?;
    for (name, t) in [("self", self_), ("other", other)] {
        crate::ensure!(
            !super::pool::overlap(out, t),
            "{API}: out overlaps {name} in memory; the output must be apart from the inputs"
        );
    }
    let other_axis = d.checked_sub(ro - other.rank());
    let (mul, fms): (KernelFn, KernelFn) = crate::with_compute_dtype!(self_.dtype, T => (
        binary::<Product<T>> as KernelFn,
        ternary::<LessProduct<T>> as KernelFn,
    ));
    let v = Via::of(self_.dtype);
    let mut seq = Sequence::new();
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let o = component(out, Some(d), i);
        let (sj, sk) = (
            component(self_, Some(axis), j),
            component(self_, Some(axis), k),
        );
        let (oj, ok) = (
            component(other, other_axis, j),
            component(other, other_axis, k),
        );
        let first = ew::executor(
            API,
            &[Arg::Tensor("self", &sj), Arg::Tensor("other", &ok)],
            &[v, v],
            "out",
            &o,
            v,
            mul,
            Params::default(),
            false,
        )?;
        seq.push(first, &[0, 1, 2]);
        let second = ew::executor(
            API,
            &[
                Arg::Tensor("out", &o),
                Arg::Tensor("self", &sk),
                Arg::Tensor("other", &oj),
            ],
            &[v, v, v],
            "out",
            &o,
            v,
            fms,
            Params::default(),
            false,
        )?;
        seq.push(second, &[2, 0, 1, 2]);
    }
    Ok(Executor::new(API, bindings, seq))
}

pub const CATALOG: &[Entry] = &[Entry {
    ops: "LinalgCross",
    a: CROSS,
    b: CROSS,
    out: CROSS,
    rule:
        "out_i = self_j·other_k − self_k·other_j along dim (broadcast), in the dtype's arithmetic",
}];
