//! Strided slices with TensorFlow's masks: StridedSlice (aclnn_strided_slice.h) and its
//! assignment StridedSliceAssignV2 (aclnn_strided_slice_assign_v2.h).
//!
//! StridedSlice follows TensorFlow's StridedSlice (which CANN's kernel implements): the
//! sparse spec (begin/end/strides with the five masks) becomes a dense spec over self's
//! dims (an ellipsis, explicit or implied at the end, takes every dim not named; a new
//! axis adds a size-1 dim; a shrunk axis takes one index and is dropped); each dense dim
//! is normalised (negative indices count from the end; masked begin/end take the full
//! range in the stride's direction; the rest clamp to [0, N] for a positive stride, [-1,
//! N-1] for a negative one) and has ceil((end - begin) / stride) elements (0 when the
//! interval runs against the stride). The result is one remap-engine gather (`engine::
//! remap`, whose maps may run backwards): exact. CANN's op_api runs it on the Ascend 950
//! only (Atlas A2 has no kernel), so its dtypes are the 950 list less the 8-bit floats
//! this library has no dtype for.
//!
//! StridedSliceAssignV2 writes inputValue into the slice of varRef that begin/end/strides
//! (optionally along `axesOptional`, the other dims whole) select, as CANN's tiling
//! normalises them: a negative index counts from the end, then both clamp to [0, N];
//! strides positive, the last dim's 1. One strided copy into the slice's view.

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::engine::remap;
use crate::error::Result;
use crate::executor::Executor;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnStridedSlice.md (Ascend 950), less COMPLEX32 (untested here) and HIFLOAT8 / FLOAT8_E5M2 / FLOAT8_E4M3FN (no such dtype).
const STRIDED_SLICE: &[DType] = &[
    F16, F32, S32, U8, Bool, S8, S16, S64, U16, U32, U64, BF16, C64,
];
/// aclnnStridedSliceAssignV2.md.
const ASSIGN: &[DType] = &[F16, F32, BF16, S32, S64, F64, S8];

/// One output dim of the slice: a new axis, or self's `axis` read from `begin` every
/// `stride` for `len` elements (a shrunk axis is a read without an output dim).
#[derive(Debug)]
enum OutDim {
    New,
    Axis {
        axis: usize,
        begin: i64,
        stride: i64,
        len: usize,
    },
}

/// The dense spec of aclnnStridedSlice: per self dim, its (begin, stride, len) and
/// whether it is shrunk, and the output dims in order.
fn plan(
    shape: &[usize],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    masks: [i64; 5],
) -> Result<(Vec<(usize, i64)>, Vec<OutDim>)> {
    let [begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask] = masks;
    let bit = |m: i64, i: usize| i < 64 && (m >> i) & 1 == 1;
    let n = begin.len();
    let rank = shape.len();
    // An ellipsis is implied after the last entry when none is given.
    let has_ellipsis = (0..n).any(|i| bit(ellipsis_mask, i));
    let (spec_n, ellipsis_at) = if has_ellipsis {
        (n, (0..n).find(|&i| bit(ellipsis_mask, i)).unwrap())
    } else {
        (n + 1, n)
    };
    let named_after = (ellipsis_at + 1..n)
        .filter(|&i| !bit(new_axis_mask, i))
        .count();
    let named_before = (0..ellipsis_at.min(n))
        .filter(|&i| !bit(new_axis_mask, i) && !bit(ellipsis_mask, i))
        .count();
    crate::ensure!(
        named_before + named_after <= rank,
        "begin {begin:?} names {} dims but self {shape:?} has {rank}",
        named_before + named_after
    );
    let mut shrunk: Vec<(usize, i64)> = vec![];
    let mut dims: Vec<OutDim> = vec![];
    let mut full = 0usize;
    for i in 0..spec_n {
        if i == ellipsis_at {
            // The dims no entry names, whole.
            let fill = rank - named_before - named_after;
            for _ in 0..fill {
                dims.push(OutDim::Axis {
                    axis: full,
                    begin: 0,
                    stride: 1,
                    len: shape[full],
                });
                full += 1;
            }
            continue;
        }
        if bit(new_axis_mask, i) {
            dims.push(OutDim::New);
            continue;
        }
        let nn = shape[full] as i64;
        let s = strides[i];
        if bit(shrink_mask, i) {
            let mut b = begin[i];
            if b < 0 {
                b += nn;
            }
            crate::ensure!(
                (0..nn).contains(&b),
                "begin {begin:?}: index {} of shrunk dim {full} is out of bounds for its size {nn}",
                begin[i]
            );
            shrunk.push((full, b));
            full += 1;
            continue;
        }
        let canon = |x: i64, masked: bool, is_begin: bool| -> i64 {
            if masked {
                return match (s > 0, is_begin) {
                    (true, true) => 0,
                    (true, false) => nn,
                    (false, true) => nn - 1,
                    (false, false) => -1,
                };
            }
            let x = if x < 0 { x.saturating_add(nn) } else { x };
            if s > 0 {
                x.clamp(0, nn)
            } else {
                x.clamp(-1, nn - 1)
            }
        };
        let b = canon(begin[i], bit(begin_mask, i), true);
        let e = canon(end[i], bit(end_mask, i), false);
        let span = e as i128 - b as i128;
        let len = if span == 0 || (span < 0) != (s < 0) {
            0
        } else {
            let s = s as i128;
            ((span / s) + (span % s != 0) as i128) as usize
        };
        dims.push(OutDim::Axis {
            axis: full,
            begin: b,
            stride: s,
            len,
        });
        full += 1;
    }
    Ok((shrunk, dims))
}

/// aclnnStridedSlice: self[begin:end:strides] with TensorFlow's masks (see the module doc).
#[allow(clippy::too_many_arguments)]
pub fn strided_slice(
    self_: &TensorDesc,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    begin_mask: i64,
    end_mask: i64,
    ellipsis_mask: i64,
    new_axis_mask: i64,
    shrink_axis_mask: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnStridedSlice";
    ew::check_tensor("self", self_, STRIDED_SLICE)?;
    ew::check_tensor("out", out, STRIDED_SLICE)?;
    ew::check_same_dtype("out", out, self_)?;
    crate::ensure!(
        begin.len() == end.len() && end.len() == strides.len(),
        "begin {begin:?}, end {end:?} and strides {strides:?} must have the same length"
    );
    if let Some(i) = strides.iter().position(|&s| s == 0) {
        crate::bail!("strides {strides:?}: value {i} is zero");
    }
    crate::ensure!(
        ellipsis_mask & ellipsis_mask.wrapping_sub(1) == 0,
        "ellipsisMask {ellipsis_mask:#x} has more than one bit set: multiple ellipses in slice spec not allowed"
    );
    for (i, &s) in strides.iter().enumerate() {
        crate::ensure!(
            !(i < 64 && (shrink_axis_mask >> i) & 1 == 1 && s <= 0),
            "strides {strides:?}: value {i} must be positive where shrinkAxisMask has its bit set"
        );
    }
    let (shrunk, dims) = plan(
        &self_.shape,
        begin,
        end,
        strides,
        [
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
        ],
    )?;
    let want: Vec<usize> = dims
        .iter()
        .map(|d| match d {
            OutDim::New => 1,
            OutDim::Axis { len, .. } => *len,
        })
        .collect();
    ew::check_result_shape("out", out, &want)?;
    if self_.is_empty() || out.is_empty() {
        return Ok(remap::executor(
            API,
            out,
            out,
            want.iter().map(|&n| (0..n as i64).collect()).collect(),
            remap::zero(out.dtype),
        ));
    }
    // The source: self at the shrunk indices, one axis per output dim (new axes of size
    // 1), each read through its map.
    let mut src = self_.clone();
    for &(a, b) in &shrunk {
        src.offset += b as usize * self_.strides[a] as usize;
    }
    src.shape.clear();
    src.strides.clear();
    let mut maps = vec![];
    for d in &dims {
        match *d {
            OutDim::New => {
                src.shape.push(1);
                src.strides.push(0);
                maps.push(vec![0]);
            }
            OutDim::Axis {
                axis,
                begin,
                stride,
                len,
            } => {
                src.shape.push(self_.shape[axis]);
                src.strides.push(self_.strides[axis]);
                maps.push((0..len as i64).map(|i| begin + i * stride).collect());
            }
        }
    }
    Ok(remap::executor(
        API,
        &src,
        out,
        maps,
        remap::zero(self_.dtype),
    ))
}

/// aclnnStridedSliceAssignV2: varRef[slice] = inputValue (see the module doc).
pub fn strided_slice_assign_v2(
    var_ref: &TensorDesc,
    input_value: &TensorDesc,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    axes: Option<&[i64]>,
) -> Result<Executor> {
    const API: &str = "aclnnStridedSliceAssignV2";
    ew::check_tensor("varRef", var_ref, ASSIGN)?;
    ew::check_tensor("inputValue", input_value, ASSIGN)?;
    crate::ensure!(
        input_value.dtype == var_ref.dtype,
        "inputValue has dtype {} but must have varRef's dtype {}",
        input_value.dtype,
        var_ref.dtype
    );
    let rank = var_ref.rank();
    crate::ensure!(
        rank >= 1,
        "varRef is a scalar (0 dims): {API} slices along dims"
    );
    crate::ensure!(
        begin.len() == end.len() && end.len() == strides.len(),
        "begin {begin:?}, end {end:?} and strides {strides:?} must have the same length"
    );
    let (mut b, mut e, mut s) = (vec![0i64; rank], vec![0i64; rank], vec![1i64; rank]);
    for a in 0..rank {
        e[a] = var_ref.shape[a] as i64;
    }
    match axes {
        Some(axes) => {
            crate::ensure!(
                axes.len() == begin.len(),
                "axesOptional {axes:?} has {} values but begin {begin:?} has {}",
                axes.len(),
                begin.len()
            );
            let mut seen = vec![false; rank];
            for (i, &ax) in axes.iter().enumerate() {
                let a = ew::axis("axesOptional value", ax, rank, "varRef")?;
                crate::ensure!(!seen[a], "axesOptional {axes:?} names axis {a} twice");
                seen[a] = true;
                (b[a], e[a], s[a]) = (begin[i], end[i], strides[i]);
            }
        }
        None => {
            crate::ensure!(
                begin.len() == rank,
                "begin {begin:?} has {} values but varRef has {rank} dims (without axesOptional, one per dim)",
                begin.len()
            );
            b.copy_from_slice(begin);
            e.copy_from_slice(end);
            s.copy_from_slice(strides);
        }
    }
    crate::ensure!(
        s.iter().all(|&x| x > 0),
        "strides {strides:?} must be positive"
    );
    crate::ensure!(
        s[rank - 1] == 1,
        "strides {strides:?}: the stride of varRef's last dim must be 1, not {}",
        s[rank - 1]
    );
    let mut view = var_ref.clone();
    let mut want = vec![0usize; rank];
    for a in 0..rank {
        let n = var_ref.shape[a] as i64;
        let norm = |x: i64| (if x < 0 { x.saturating_add(n) } else { x }).clamp(0, n);
        let (lo, hi) = (norm(b[a]), norm(e[a]));
        let len = if hi > lo {
            ((hi - lo) as u64).div_ceil(s[a] as u64) as usize
        } else {
            0
        };
        want[a] = len;
        if len > 0 {
            view.offset += lo as usize * var_ref.strides[a] as usize;
        }
        view.shape[a] = len;
        view.strides[a] = var_ref.strides[a] * s[a] as isize;
    }
    crate::ensure!(
        input_value.shape.as_slice() == want.as_slice(),
        "inputValue has shape {:?} but the slice of varRef {:?} has shape {want:?}",
        input_value.shape,
        var_ref.shape
    );
    let e = convert_into(API, Arg::Tensor("inputValue", input_value), "varRef", &view)?;
    // Bound to varRef itself (input 0 and the output), inputValue input 1.
    let mut seq = crate::executor::Sequence::new();
    seq.push(e, &[1, 0]);
    let bindings = crate::executor::Bindings {
        tensors: std::sync::Arc::new(vec![Some(var_ref.clone()), Some(input_value.clone())]),
        n_inputs: 2,
        outputs: smallvec::smallvec![0],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "StridedSlice",
        a: STRIDED_SLICE,
        b: &[],
        out: STRIDED_SLICE,
        rule: "TensorFlow's strided slice with masks (Ascend 950 list)",
    },
    Entry {
        ops: "StridedSliceAssignV2",
        a: ASSIGN,
        b: ASSIGN,
        out: ASSIGN,
        rule: "varRef[begin:end:strides] = inputValue",
    },
];
