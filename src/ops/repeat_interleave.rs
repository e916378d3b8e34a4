//! RepeatInterleave, RepeatInterleaveWithDim, RepeatInterleaveInt,
//! RepeatInterleaveIntWithDim, RepeatInterleaveTensor (aclnnRepeatInterleave*.md,
//! torch.repeat_interleave): element i of self (flattened, or along dim) repeated
//! repeats[i] times — a gather whose index (`j -> i`) is planned from the repeats.
//!
//! Shapes follow CANN: the caller states the result's size in `outputSize` (out is
//! `[outputSize]` without a dim, self's shape with dim's size replaced by it with one).
//! Int repeats are known at phase 1, where outputSize is checked against them. Tensor
//! repeats live in device memory: phase 2 reads them and fails the run (before writing)
//! when one is negative or they do not add up to outputSize.

use super::catalog::Entry;
use super::elementwise as ew;
use super::gather::{
    read_all, Axis, ComputedIndexWork, GatherWork, Index, IndexSource, Plan, Reduce, Side, Values,
    Walk,
};
use super::index::{apart, as_1d, bindings, same_dtype, INDEX};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::{Dims, Strides, TensorDesc};

use DType::*;
/// aclnnRepeatInterleave.md (Atlas A2): self and out.
const SELF: &[DType] = &[U8, S8, S16, S32, S64, Bool, F16, F32, BF16];

/// What the repeats are.
#[derive(Clone, Copy)]
enum Repeats<'a> {
    Int(i64),
    /// Bound at binding 1 (self is 0, out 2).
    Tensor(&'a TensorDesc),
}

/// The gather index of `n` source elements each repeated by `counts` (one count for all
/// when `counts` has one value), checked to fill `output` positions.
fn expand(counts: &[i64], n: usize, output: usize) -> std::result::Result<Vec<i64>, String> {
    if let Some(i) = counts.iter().position(|&c| c < 0) {
        return Err(format!("repeats[{i}] = {} is negative", counts[i]));
    }
    let total: i128 = if counts.len() == 1 {
        counts[0] as i128 * n as i128
    } else {
        counts.iter().map(|&c| c as i128).sum()
    };
    if total != output as i128 {
        return Err(format!(
            "the repeats add up to {total} elements but outputSize is {output}: nothing was written"
        ));
    }
    let mut idx = Vec::with_capacity(output);
    for i in 0..n {
        let c = if counts.len() == 1 {
            counts[0]
        } else {
            counts[i]
        };
        idx.extend(std::iter::repeat_n(i as i64, c as usize));
    }
    Ok(idx)
}

#[allow(clippy::too_many_arguments)]
fn rule(
    api: &'static str,
    self_: &TensorDesc,
    repeats: Repeats,
    dim: Option<i64>,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, SELF)?;
    if let Repeats::Tensor(r) = repeats {
        ew::check_tensor("repeats", r, INDEX)?;
    }
    same_dtype("out", out, "self", self_)?;
    match repeats {
        Repeats::Int(r) => crate::ensure!(r >= 0, "repeats {r} can not be negative"),
        Repeats::Tensor(r) => crate::ensure!(
            r.rank() <= 1,
            "repeats has {} dims; it must be 0-D or 1-D",
            r.rank()
        ),
    }
    let ax = match dim {
        Some(d) => {
            crate::ensure!(
                self_.rank() > 0,
                "dim {d} is specified but self has no dimensions"
            );
            Some(ew::axis("dim", d, self_.rank(), "self")?)
        }
        None => None,
    };
    // Elements repeated: self's along dim, or all of them.
    let n = ax.map_or(self_.numel(), |a| self_.shape[a]);
    if let Repeats::Tensor(r) = repeats {
        let k = r.numel();
        crate::ensure!(
            r.rank() == 0 || k == 1 || k == n,
            "repeats has {k} values but must have 1 or {n} ({})",
            if ax.is_some() {
                "the size of self along dim"
            } else {
                "the number of elements of self"
            }
        );
        if ax.is_none() && self_.is_empty() {
            crate::ensure!(
                k <= 1,
                "self is empty, so repeats must be empty or have one value, but it has shape {:?}",
                r.shape
            );
        }
    }
    crate::ensure!(output_size >= 0, "outputSize {output_size} is negative");
    let m = output_size as usize;
    let b = bindings(
        &match repeats {
            Repeats::Tensor(r) => vec![self_, r],
            Repeats::Int(_) => vec![self_],
        },
        Some(out),
    );
    let out_binding = b.outputs[0];
    if self_.is_empty() || out.is_empty() || (ax.is_some() && m == 0) {
        return Ok(Executor::new(api, b, Nothing));
    }
    if let Repeats::Tensor(r) = repeats {
        crate::ensure!(
            !r.is_empty(),
            "repeats is empty but self is not: repeats must have the same size as self along dim"
        );
    }
    let want: Dims = match ax {
        Some(a) => {
            let mut w = self_.shape.clone();
            w[a] = m;
            w
        }
        None => smallvec::smallvec![m],
    };
    ew::check_result_shape("out", out, &want)?;
    apart(api, "self", self_, "out", out)?;
    if let Repeats::Int(r) = repeats {
        crate::ensure!(
            r as i128 * n as i128 == m as i128,
            "outputSize {m} must be the repeated size {} ({n} elements repeated {r} times)",
            r as i128 * n as i128
        );
    }
    let s1 = as_1d(self_);
    let o1 = as_1d(out);
    let rank = o1.rank();
    let (axis, src_strides, idx_at) = match ax {
        Some(a) => {
            let mut s = s1.strides.clone();
            s[a] = 0;
            (
                Axis::Dim {
                    size: n,
                    stride: s1.strides[a],
                },
                s,
                a,
            )
        }
        None => (
            Axis::Flat {
                shape: s1.shape.clone(),
                strides: s1.strides.clone(),
            },
            smallvec::smallvec![0],
            0,
        ),
    };
    let mut idx_strides: Strides = smallvec::smallvec![0; rank];
    idx_strides[idx_at] = 1;
    let plan = |values: Vec<i64>| Plan {
        shape: o1.shape.clone(),
        parallel: rank,
        dst: Walk::new(out_binding, &o1, o1.strides.clone()),
        values: Values::Tensor(Walk::new(0, &s1, src_strides.clone())),
        index: Index {
            source: IndexSource::Host {
                values,
                strides: idx_strides.clone(),
            },
            side: Side::Source,
            axis: axis.clone(),
            wrap: false,
            skip_outside: false,
            name: "repeats",
            target: "self".into(),
        },
        dtype: self_.dtype,
        reduce: Reduce::Copy,
    };
    match repeats {
        Repeats::Int(r) => {
            let idx = expand(&[r], n, m).map_err(Error::Invalid)?;
            Ok(Executor::new(
                api,
                b,
                GatherWork {
                    api,
                    plan: plan(idx),
                },
            ))
        }
        Repeats::Tensor(_) => Ok(Executor::new(
            api,
            b,
            ComputedIndexWork {
                api,
                plan: plan(Vec::new()),
                make: move |b: &Bindings| {
                    let counts = read_all(b, 1)?;
                    expand(&counts, n, m).map_err(Error::Invalid)
                },
            },
        )),
    }
}

/// aclnnRepeatInterleave.
pub fn repeat_interleave(
    self_: &TensorDesc,
    repeats: &TensorDesc,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnRepeatInterleave",
        self_,
        Repeats::Tensor(repeats),
        None,
        output_size,
        out,
    )
}

/// aclnnRepeatInterleaveWithDim.
pub fn repeat_interleave_with_dim(
    self_: &TensorDesc,
    repeats: &TensorDesc,
    dim: i64,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnRepeatInterleaveWithDim",
        self_,
        Repeats::Tensor(repeats),
        Some(dim),
        output_size,
        out,
    )
}

/// aclnnRepeatInterleaveInt.
pub fn repeat_interleave_int(
    self_: &TensorDesc,
    repeats: i64,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnRepeatInterleaveInt",
        self_,
        Repeats::Int(repeats),
        None,
        output_size,
        out,
    )
}

/// aclnnRepeatInterleaveIntWithDim.
pub fn repeat_interleave_int_with_dim(
    self_: &TensorDesc,
    repeats: i64,
    dim: i64,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    rule(
        "aclnnRepeatInterleaveIntWithDim",
        self_,
        Repeats::Int(repeats),
        Some(dim),
        output_size,
        out,
    )
}

/// `out[j] = i` for the i-th of repeats' values repeated repeats[i] times, in repeats'
/// dtype (computed at phase 2, from repeats bound at 0 into out bound at 1).
struct Positions {
    n: usize,
    m: usize,
}

impl Work for Positions {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let counts = read_all(b, 0)?;
        let idx = expand(&counts, self.n, self.m)
            .map_err(|e| Error::Invalid(format!("aclnnRepeatInterleaveTensor: {e}")))?;
        let out = b.view(1)?;
        let base = b.addr(1)?;
        let s = out.strides[0];
        for (j, &v) in idx.iter().enumerate() {
            let at = (out.offset as isize + j as isize * s) as usize;
            // SAFETY: element j < m of out's 1-D view (its shape was checked at phase 1).
            unsafe {
                if out.dtype == S32 {
                    (base as *mut i32).add(at).write_unaligned(v as i32);
                } else {
                    (base as *mut i64).add(at).write_unaligned(v);
                }
            }
        }
        Ok(())
    }
}

/// aclnnRepeatInterleaveTensor.
pub fn repeat_interleave_tensor(
    repeats: &TensorDesc,
    output_size: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnRepeatInterleaveTensor";
    ew::check_tensor("repeats", repeats, INDEX)?;
    same_dtype("out", out, "repeats", repeats)?;
    crate::ensure!(
        repeats.is_empty() || repeats.rank() == 1,
        "repeats has shape {:?}; it must be 1-D or empty",
        repeats.shape
    );
    let b = bindings(&[repeats], Some(out));
    if repeats.is_empty() || out.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    crate::ensure!(output_size >= 0, "outputSize {output_size} is negative");
    let m = output_size as usize;
    ew::check_result_shape("out", out, &[m])?;
    apart(API, "repeats", repeats, "out", out)?;
    Ok(Executor::new(
        API,
        b,
        Positions {
            n: repeats.numel(),
            m,
        },
    ))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "RepeatInterleave, RepeatInterleaveWithDim, RepeatInterleaveInt, RepeatInterleaveIntWithDim",
        a: SELF,
        b: INDEX,
        out: SELF,
        rule: "each element (flattened, or along dim) repeated repeats[i] times; out sized by outputSize (b: repeats)",
    },
    Entry {
        ops: "RepeatInterleaveTensor",
        a: INDEX,
        b: &[],
        out: INDEX,
        rule: "i repeated repeats[i] times (a: repeats)",
    },
];
