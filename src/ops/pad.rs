//! Padding (aclnn_constant_pad_nd.h, aclnn_reflection_pad{1,2,3}d.h,
//! aclnn_replication_pad{1,2,3}d.h, aclnn_circular_pad{2,3}d.h), as torch.nn.functional.pad:
//! pads come in (before, after) pairs from the last dim backwards; a negative pad crops.
//! Along a padded axis of n elements with pads (lo, hi), output index i reads source index
//! `x = i − lo` when it is inside [0, n), else, by mode:
//!
//! - constant: the value (converted to self's dtype by the library's conversion rule);
//! - reflection: the mirror image without repeating the edge (`−x`, or `2(n−1) − x`);
//! - replication: the nearest edge element;
//! - circular: `x mod n`.
//!
//! Each is one remap-engine plan (`engine::remap`), per-axis index maps; exact.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::remap::{self, FILL};
use crate::error::Result;
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnConstantPadNd, Atlas A2 (DTYPE_SUPPORT_910B_LIST of aclnn_constant_pad_nd.cpp).
const CONSTANT: &[DType] = &[
    F32, S32, F16, S8, F64, S16, S64, U64, U32, U16, U8, Bool, C64, C128, BF16,
];
/// Reflection and replication pads, Atlas A2 (no u16/u32/u64 there).
const MIRROR: &[DType] = &[Bool, S8, U8, S16, F16, BF16, S32, F32, S64, F64, C64, C128];
/// aclnnCircularPad2d/3d.
const CIRCULAR: &[DType] = &[F16, BF16, F32, S8, S32];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Constant,
    Reflection,
    Replication,
    Circular,
}

/// The source index along an axis of `n` elements for output index `i` with the leading
/// pad `lo` (FILL for a constant pad's padding).
fn source(mode: Mode, i: i64, lo: i64, n: i64) -> i64 {
    let x = i - lo;
    if (0..n).contains(&x) {
        return x;
    }
    match mode {
        Mode::Constant => FILL,
        // Pads are < n (checked), so one reflection lands inside.
        Mode::Reflection => {
            if x < 0 {
                -x
            } else {
                2 * (n - 1) - x
            }
        }
        Mode::Replication => x.clamp(0, n - 1),
        Mode::Circular => x.rem_euclid(n),
    }
}

/// The per-axis maps of a pad of `self_` by `pad` (pairs from the last axis), and the
/// output shape. Sizes are checked by the caller.
fn maps(mode: Mode, shape: &[usize], pad: &[i64]) -> (Vec<Vec<i64>>, Vec<usize>) {
    let k = shape.len();
    let mut maps = Vec::with_capacity(k);
    let mut out_shape = Vec::with_capacity(k);
    for a in 0..k {
        let p = k - 1 - a; // pair index of axis a
        let (lo, hi) = if 2 * p + 1 < pad.len() {
            (pad[2 * p], pad[2 * p + 1])
        } else {
            (0, 0)
        };
        let n = shape[a] as i64;
        let m = (n + lo + hi).max(0);
        maps.push((0..m).map(|i| source(mode, i, lo, n)).collect());
        out_shape.push(m as usize);
    }
    (maps, out_shape)
}

fn executor(
    api: &'static str,
    mode: Mode,
    self_: &TensorDesc,
    pad: &[i64],
    fill: &[u8],
    out: &TensorDesc,
) -> Result<Executor> {
    let (maps, shape) = maps(mode, &self_.shape, pad);
    ew::check_result_shape("out", out, &shape)?;
    Ok(remap::executor(api, self_, out, maps, fill))
}

fn same_dtype(self_: &TensorDesc, out: &TensorDesc) -> Result<()> {
    ew::check_same_dtype("out", out, self_)?;
    crate::ensure!(
        out.rank() == self_.rank(),
        "out has {} dims but self has {}: they must have the same number",
        out.rank(),
        self_.rank()
    );
    Ok(())
}

/// aclnnConstantPadNd: `pad` holds (before, after) pairs from the last dim, at most one per
/// dim; negative values crop. aclnn_constant_pad_nd.cpp's shape rules: no pad may make a
/// dim negative (`n + min(lo, hi, lo + hi) >= 0`), and with any positive pad no padded
/// dim may become 0.
pub fn constant_pad_nd(
    self_: &TensorDesc,
    pad: &[i64],
    value: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, CONSTANT)?;
    ew::check_tensor("out", out, CONSTANT)?;
    same_dtype(self_, out)?;
    crate::ensure!(
        CONSTANT.contains(&value.dtype),
        "scalar 'value' has dtype {}, which aclnnConstantPadNd does not support",
        value.dtype
    );
    crate::ensure!(
        self_.format == out.format || self_.format == crate::format::Format::ND,
        "out has format {} but self's format is {}: a non-ND self needs out in the same format",
        out.format,
        self_.format
    );
    crate::ensure!(
        pad.len() % 2 == 0,
        "pad {pad:?} has {} values: it must hold (before, after) pairs",
        pad.len()
    );
    let k = self_.rank();
    crate::ensure!(
        pad.len() <= 2 * k,
        "pad {pad:?} has {} values, more than twice self's {k} dims",
        pad.len()
    );
    let mut positive = false;
    let mut zero_dim = false;
    for p in 0..pad.len() / 2 {
        let a = k - 1 - p;
        let (lo, hi, n) = (pad[2 * p], pad[2 * p + 1], self_.shape[a] as i64);
        let smallest = lo.min(hi).min(lo.saturating_add(hi));
        crate::ensure!(
            n.saturating_add(smallest) >= 0,
            "pad ({lo}, {hi}) of dim {a} (size {n}) gives a negative size"
        );
        crate::ensure!(
            n.saturating_add(lo).saturating_add(hi) <= 1 << 40,
            "pad ({lo}, {hi}) of dim {a} (size {n}) gives a dim too large for memory"
        );
        positive |= lo > 0 || hi > 0;
        zero_dim |= n + lo + hi == 0;
    }
    crate::ensure!(
        !(positive && zero_dim),
        "pad {pad:?} pads self {:?} but leaves a padded dim of size 0: the device refuses an empty result with padding",
        self_.shape
    );
    let v = value.cast(self_.dtype);
    executor(
        "aclnnConstantPadNd",
        Mode::Constant,
        self_,
        pad,
        v.bytes(),
        out,
    )
}

/// The rules shared by the reflection/replication/circular pads of `dims` trailing dims
/// (1, 2 or 3): self has `dims + 1` or `dims + 2` dims, `padding` 2·dims values, each pad
/// smaller than its dim, and the empty-tensor rules of the device.
fn edge_pad(
    api: &'static str,
    mode: Mode,
    list: &[DType],
    dims: usize,
    self_: &TensorDesc,
    padding: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, list)?;
    ew::check_tensor("out", out, list)?;
    same_dtype(self_, out)?;
    let k = self_.rank();
    crate::ensure!(
        k == dims + 1 || k == dims + 2,
        "self has {k} dims but {api} pads {dims}-d data: it needs {} or {} dims",
        dims + 1,
        dims + 2
    );
    crate::ensure!(
        padding.len() == 2 * dims,
        "padding {padding:?} has {} values but {api} needs {} ((left, right{}) pairs from the last dim)",
        padding.len(),
        2 * dims,
        if dims > 1 { ", top, bottom" } else { "" }
    );
    if self_.is_empty() {
        match mode {
            // "self or out empty and one of the padded dims is 0".
            Mode::Replication => crate::ensure!(
                self_.shape[k - dims..].iter().all(|&n| n > 0),
                "self {:?} is empty in a padded dim: {api} cannot pad it",
                self_.shape
            ),
            _ => {
                crate::ensure!(
                    k == dims + 2,
                    "self {:?} is empty: {api} accepts an empty self only with a batch dim",
                    self_.shape
                );
                crate::ensure!(
                    self_.shape[1..].iter().all(|&n| n > 0),
                    "self {:?} is empty in a dim other than the first: {api} cannot pad it",
                    self_.shape
                );
            }
        }
    }
    for p in 0..dims {
        let a = k - 1 - p;
        let n = self_.shape[a] as i64;
        for &x in &padding[2 * p..2 * p + 2] {
            crate::ensure!(
                x < n || self_.is_empty(),
                "padding {padding:?}: value {x} for dim {a} must be smaller than its size {n}"
            );
            crate::ensure!(
                x > -n || (x == 0 && n == 0) || self_.is_empty(),
                "padding {padding:?}: value {x} for dim {a} crops all of its {n} elements"
            );
        }
        crate::ensure!(
            n + padding[2 * p] + padding[2 * p + 1] >= 1 || self_.is_empty(),
            "padding {padding:?} leaves dim {a} (size {n}) with no element"
        );
    }
    executor(api, mode, self_, padding, remap::zero(self_.dtype), out)
}

macro_rules! edge_pads {
    ($($(#[$doc:meta])* $name:ident: $api:literal, $mode:ident, $list:ident, $dims:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(self_: &TensorDesc, padding: &[i64], out: &TensorDesc) -> Result<Executor> {
            edge_pad($api, Mode::$mode, $list, $dims, self_, padding, out)
        }
    )*};
}

edge_pads! {
    /// aclnnReflectionPad1d: the last dim mirrored (padding (left, right)).
    reflection_pad1d: "aclnnReflectionPad1d", Reflection, MIRROR, 1;
    /// aclnnReflectionPad2d: the last two dims mirrored (left, right, top, bottom).
    reflection_pad2d: "aclnnReflectionPad2d", Reflection, MIRROR, 2;
    /// aclnnReflectionPad3d: the last three dims mirrored (left, right, top, bottom, front, back).
    reflection_pad3d: "aclnnReflectionPad3d", Reflection, MIRROR, 3;
    /// aclnnReplicationPad1d: the edge element repeated along the last dim.
    replication_pad1d: "aclnnReplicationPad1d", Replication, MIRROR, 1;
    /// aclnnReplicationPad2d: the edge elements repeated along the last two dims.
    replication_pad2d: "aclnnReplicationPad2d", Replication, MIRROR, 2;
    /// aclnnReplicationPad3d: the edge elements repeated along the last three dims.
    replication_pad3d: "aclnnReplicationPad3d", Replication, MIRROR, 3;
    /// aclnnCircularPad2d: the last two dims wrapped around.
    circular_pad2d: "aclnnCircularPad2d", Circular, CIRCULAR, 2;
    /// aclnnCircularPad3d: the last three dims wrapped around.
    circular_pad3d: "aclnnCircularPad3d", Circular, CIRCULAR, 3;
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "ConstantPadNd",
        a: CONSTANT,
        b: &[],
        out: CONSTANT,
        rule: "padded with value by (before, after) pairs from the last dim; negative pads crop",
    },
    Entry {
        ops: "ReflectionPad1d, ReflectionPad2d, ReflectionPad3d",
        a: MIRROR,
        b: &[],
        out: MIRROR,
        rule: "last 1/2/3 dims padded with their mirror image (pads < dim)",
    },
    Entry {
        ops: "ReplicationPad1d, ReplicationPad2d, ReplicationPad3d",
        a: MIRROR,
        b: &[],
        out: MIRROR,
        rule: "last 1/2/3 dims padded with their edge elements (pads < dim)",
    },
    Entry {
        ops: "CircularPad2d, CircularPad3d",
        a: CIRCULAR,
        b: &[],
        out: CIRCULAR,
        rule: "last 2/3 dims padded by wrapping around (pads < dim)",
    },
];
