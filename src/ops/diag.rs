//! Diagonals: Diag (aclnn_diag.h), DiagFlat (aclnn_diag_flat.h) and InplaceFillDiagonal
//! (aclnn_fill_diagonal.h), as torch.diag, torch.diagflat and Tensor.fill_diagonal_.
//!
//! A diagonal of a strided matrix is itself a strided view (stride = row stride + column
//! stride), so each operator is one or two copies planned by the element-wise engine:
//! the matrix out of Diag/DiagFlat is zero-filled, then self is copied into its diagonal
//! view; Diag of a matrix copies the diagonal view of self into out; FillDiagonal fills the
//! diagonal views of selfRef (with `wrap`, one more view: the diagonals that restart
//! every (cols + 1) rows of a tall matrix). Values are moved or converted by the
//! library's one conversion rule: exact.

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::element::Wide;
use crate::engine::remap::overlaps;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Sequence};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnn_diag.cpp / aclnn_diag_flat.cpp, Atlas A2.
const DIAG: &[DType] = &[F16, F32, S64, S32, S16, S8, U8, F64, Bool, C64, BF16];
/// aclnn_fill_diagonal.cpp, Atlas A2.
const FILL_DIAGONAL: &[DType] = &[F16, F32, F64, S8, S16, S32, S64, U8, Bool, BF16];

/// The view of `m`'s (a 2-D view) diagonal `k` (> 0 above the main one), of `len` elements.
fn diagonal(m: &TensorDesc, k: i64, len: usize) -> TensorDesc {
    let mut v = m.clone();
    let (s0, s1) = (m.strides[0], m.strides[1]);
    if len > 0 {
        v.offset += if k >= 0 {
            k as usize * s1 as usize
        } else {
            k.unsigned_abs() as usize * s0 as usize
        };
    }
    v.shape = smallvec::smallvec![len];
    v.strides = smallvec::smallvec![s0 + s1];
    v
}

/// out (n + |k|)², zero but for diagonal k, which is the n elements of `src`, a 1-D view
/// of self (converted to out's dtype).
fn embed(
    api: &'static str,
    self_: &TensorDesc,
    src: &TensorDesc,
    k: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let n = src.numel();
    let side = (n as u128 + k.unsigned_abs() as u128) as usize;
    ew::check_result_shape("out", out, &[side, side])?;
    crate::ensure!(
        !overlaps(self_, out),
        "self and out share memory: {api} writes out before it has read all of self"
    );
    let mut seq = Sequence::new();
    let zero = convert_into(api, Arg::Scalar(Scalar::from_value(0u8)), "out", out)?;
    seq.push(zero, &[1]);
    if n > 0 {
        let d = diagonal(out, k, n);
        seq.push(
            convert_into(api, Arg::Tensor("self", src), "out", &d)?,
            &[0, 1],
        );
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(api, bindings, seq))
}

/// aclnnDiag: a 1-D self becomes the matrix with self on diagonal `diagonal`; a 2-D self
/// gives its diagonal `diagonal` (empty past the matrix's corner).
pub fn diag(self_: &TensorDesc, diagonal_: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnDiag";
    ew::check_tensor("self", self_, DIAG)?;
    ew::check_tensor("out", out, DIAG)?;
    ew::check_same_dtype("out", out, self_)?;
    crate::ensure!(
        self_.rank() <= 2,
        "self has {} dims but {API} takes a 1-D or 2-D self",
        self_.rank()
    );
    if self_.rank() < 2 {
        let v = crate::engine::remap::at_least_1d(self_);
        return embed(API, self_, &v, diagonal_, out);
    }
    let (r, c) = (self_.shape[0] as i128, self_.shape[1] as i128);
    let k = diagonal_ as i128;
    let len = if k >= 0 { r.min(c - k) } else { (r + k).min(c) }.max(0) as usize;
    ew::check_result_shape("out", out, &[len])?;
    let d = diagonal(self_, diagonal_, len);
    convert_into(API, Arg::Tensor("self", &d), "out", out)
}

/// aclnnDiagFlat: self flattened (row-major) on diagonal `diagonal` of a zero matrix,
/// converted to out's dtype.
pub fn diag_flat(self_: &TensorDesc, diagonal_: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnDiagFlat";
    ew::check_tensor("self", self_, DIAG)?;
    ew::check_tensor("out", out, DIAG)?;
    crate::ensure!(
        !(self_.dtype.is_complex() && !out.dtype.is_complex()),
        "self dtype {} cannot be cast to out dtype {}: the imaginary part would be lost",
        self_.dtype,
        out.dtype
    );
    if self_.rank() <= 1 {
        let v = crate::engine::remap::at_least_1d(self_);
        return embed(API, self_, &v, diagonal_, out);
    }
    // A self that is not one run: its row-major elements reach out's diagonal through a
    // reshape of that diagonal view in self's shape.
    let n = self_.numel();
    let side = (n as u128 + diagonal_.unsigned_abs() as u128) as usize;
    ew::check_result_shape("out", out, &[side, side])?;
    crate::ensure!(
        !overlaps(self_, out),
        "self and out share memory: {API} writes out before it has read all of self"
    );
    let mut seq = Sequence::new();
    let zero = convert_into(API, Arg::Scalar(Scalar::from_value(0u8)), "out", out)?;
    seq.push(zero, &[1]);
    if n > 0 {
        // The diagonal view in self's shape: a split of one axis is always a view.
        let d = diagonal(out, diagonal_, n);
        let mut dv = d.clone();
        dv.shape = self_.shape.clone();
        let mut acc = d.strides[0];
        dv.strides = smallvec::smallvec![0; self_.rank()];
        for a in (0..self_.rank()).rev() {
            dv.strides[a] = acc;
            acc *= self_.shape[a] as isize;
        }
        seq.push(
            super::views::copy_pair(API, self_, out, self_.clone(), dv)?,
            &[0, 1],
        );
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// Whether `v` does not fit `d` (c10's overflow rule, as CANN checks fillValue): an
/// integer outside d's range, a finite float outside d's finite range; bool and bf16
/// targets are not checked.
fn overflows(v: &Scalar, d: DType) -> bool {
    let (lo, hi): (f64, f64) = match d {
        F16 => (-65504.0, 65504.0),
        F32 => (f32::MIN as f64, f32::MAX as f64),
        F64 => return false,
        S8 => (i8::MIN as f64, i8::MAX as f64),
        S16 => (i16::MIN as f64, i16::MAX as f64),
        S32 => (i32::MIN as f64, i32::MAX as f64),
        S64 => {
            return match v.wide() {
                Wide::Int(i) => i < i64::MIN as i128 || i > i64::MAX as i128,
                Wide::Float(f) => {
                    f.is_infinite() || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18
                }
                _ => false,
            }
        }
        U8 => (0.0, 255.0),
        _ => return false,
    };
    match v.wide() {
        Wide::Int(i) => (i as f64) < lo || (i as f64) > hi,
        Wide::Float(f) if d.is_float() => f.is_finite() && (f < lo || f > hi),
        Wide::Float(f) => f < lo || f > hi,
        _ => false,
    }
}

/// aclnnInplaceFillDiagonal: selfRef[i, i, ...] = fillValue (all dims equal past 2-D); with
/// `wrap`, a tall matrix's diagonal restarts after every (cols + 1) rows
/// (Tensor.fill_diagonal_).
pub fn inplace_fill_diagonal(
    self_ref: &TensorDesc,
    fill_value: &Scalar,
    wrap: bool,
) -> Result<Executor> {
    const API: &str = "aclnnInplaceFillDiagonal";
    ew::check_tensor("selfRef", self_ref, FILL_DIAGONAL)?;
    let r = self_ref.rank();
    crate::ensure!(r >= 2, "selfRef has {r} dims but {API} needs at least 2");
    crate::ensure!(
        r == 2 || self_ref.shape.iter().all(|&d| d == self_ref.shape[0]),
        "selfRef {:?} has {r} dims: all dimensions of input must be of equal length",
        self_ref.shape
    );
    crate::ensure!(
        !fill_value.dtype.is_complex(),
        "fillValue {fill_value} cannot be converted to float"
    );
    crate::ensure!(
        !overflows(fill_value, self_ref.dtype),
        "fillValue {fill_value} cannot be converted to type {} without overflow",
        self_ref.dtype
    );
    let m = *self_ref.shape.iter().min().unwrap();
    // The main diagonal (every axis's index equal).
    let mut d = self_ref.clone();
    d.shape = smallvec::smallvec![m];
    d.strides = smallvec::smallvec![self_ref.strides.iter().sum::<isize>()];
    let fill = |v: &TensorDesc| convert_into(API, Arg::Scalar(*fill_value), "selfRef", v);
    let (rows, cols) = (self_ref.shape[0], self_ref.shape[1]);
    if !(wrap && r == 2 && rows > cols + 1 && cols > 0) {
        return fill(&d);
    }
    // Tall and wrapped: the element k of the flat (row-major) walk with step cols + 1 is
    // at row k + k / cols, column k % cols: blocks of `cols` diagonals starting at rows
    // j * (cols + 1). Full blocks are one 2-D view, the last partial block another.
    let period = cols + 1;
    let full = rows / period; // blocks whose cols rows all exist (rows j*period .. +cols)
    let (s0, s1) = (self_ref.strides[0], self_ref.strides[1]);
    let mut seq = Sequence::new();
    let mut blocks = self_ref.clone();
    blocks.shape = smallvec::smallvec![full, cols];
    blocks.strides = smallvec::smallvec![s0 * period as isize, s0 + s1];
    seq.push(fill(&blocks)?, &[0]);
    let rest = (rows - full * period).min(cols);
    if rest > 0 {
        let mut last = self_ref.clone();
        last.offset += full * period * s0 as usize;
        last.shape = smallvec::smallvec![rest];
        last.strides = smallvec::smallvec![s0 + s1];
        seq.push(fill(&last)?, &[0]);
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_ref.clone())]),
        n_inputs: 0,
        outputs: smallvec::smallvec![0],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Diag",
        a: DIAG,
        b: &[],
        out: DIAG,
        rule: "vector to diagonal matrix, or a matrix's diagonal",
    },
    Entry {
        ops: "DiagFlat",
        a: DIAG,
        b: &[],
        out: DIAG,
        rule: "flattened self on a diagonal (converted to out)",
    },
    Entry {
        ops: "InplaceFillDiagonal",
        a: FILL_DIAGONAL,
        b: &[],
        out: FILL_DIAGONAL,
        rule: "selfRef's diagonal = fillValue (wrap: restarts in tall matrices)",
    },
];
