//! Operators that copy self's elements in row-major order into an out of another shape,
//! possibly with axes reordered on the way: Flatten (aclnn_flatten.h), ChannelShuffle
//! (aclnn_channel_shuffle.h), ConfusionTranspose (aclnn_confusion_transpose.h).
//!
//! One engine, `reshape_copy`: a reshape of a view is a view again wherever the two
//! shapes have a common refinement (each axis of one splits into whole axes of the
//! other's pieces: (6, 4) -> (2, 3, 4) -> (2, 12)); splitting an axis is always a view, so
//! both sides become views of that refined shape and the element-wise engine copies one
//! into the other at copy speed (`views::copy_pair`). Shapes without a common refinement
//! ((2, 3) -> (3, 2)) are copied element by element in row-major order through a staging
//! buffer (`RowMajorCopy`), which also makes any overlap of self and out safe. Values are
//! moved, never computed on: exact.

use super::catalog::Entry;
use super::elementwise as ew;
use super::views::copy_pair;
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// aclnnFlatten.md / aclnn_flatten.cpp, Atlas A2.
const FLATTEN: &[DType] = &[F32, F16, S32, S8, U8, S64, S16, U16, U32, U64, Bool, BF16];
/// aclnn_channel_shuffle.cpp's list.
const CHANNEL_SHUFFLE: &[DType] = &[F16, F32, F64, S8, U8, S16, S32, S64, Bool, C64, C128, BF16];
/// aclnnConfusionTranspose.md.
const CONFUSION_TRANSPOSE: &[DType] = &[S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, BF16];

/// Both views refined to one shape (see the module doc), or None when the shapes have no
/// common refinement. Size-1 axes are dropped; both views must have the same numel (> 0).
fn refine(a: &TensorDesc, b: &TensorDesc) -> Option<(TensorDesc, TensorDesc)> {
    let axes = |t: &TensorDesc| -> Vec<(usize, isize)> {
        t.shape
            .iter()
            .zip(&t.strides)
            .filter(|(&n, _)| n != 1)
            .map(|(&n, &s)| (n, s))
            .collect()
    };
    let (xa, xb) = (axes(a), axes(b));
    let (mut fa, mut fb) = (a.clone(), b.clone());
    for f in [&mut fa, &mut fb] {
        f.shape.clear();
        f.strides.clear();
    }
    let (mut i, mut j) = (0, 0);
    let (mut ra, mut rb) = (xa.first()?.0, xb.first()?.0);
    while i < xa.len() && j < xb.len() {
        let k = if ra % rb == 0 {
            rb
        } else if rb % ra == 0 {
            ra
        } else {
            return None;
        };
        // The next piece of k elements of each current axis: its outer part.
        ra /= k;
        rb /= k;
        fa.shape.push(k);
        fa.strides.push(xa[i].1 * ra as isize);
        fb.shape.push(k);
        fb.strides.push(xb[j].1 * rb as isize);
        if ra == 1 {
            i += 1;
            ra = xa.get(i).map_or(1, |x| x.0);
        }
        if rb == 1 {
            j += 1;
            rb = xb.get(j).map_or(1, |x| x.0);
        }
    }
    (i == xa.len() && j == xb.len()).then_some((fa, fb))
}

/// Copies self's elements, in row-major order, into out's elements in row-major order
/// (same numel, any shapes; out's dtype may differ only where a refinement exists, which
/// callers that convert guarantee by shape). Bindings: self, out.
pub(crate) fn reshape_copy(
    api: &'static str,
    self_: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    debug_assert_eq!(self_.numel(), out.numel());
    if self_.numel() == 0 {
        // Nothing moves: a zero-stride view of self in out's shape.
        let mut v = self_.clone();
        v.shape = out.shape.clone();
        v.strides = smallvec::smallvec![0; out.rank()];
        return copy_pair(api, self_, out, v, out.clone());
    }
    if let Some((s, d)) = refine(self_, out) {
        return copy_pair(api, self_, out, s, d);
    }
    debug_assert_eq!(self_.dtype, out.dtype);
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(api, bindings, RowMajorCopy))
}

/// The element-by-element row-major copy of binding 0 into binding 1 (same dtype), read
/// whole into a buffer first.
struct RowMajorCopy;

/// Byte offsets (from the view's first element) of every element, row-major.
fn for_each_offset(t: &TensorDesc, mut f: impl FnMut(isize)) {
    let k = t.rank();
    let e = t.dtype.size() as isize;
    let mut idx = vec![0usize; k];
    let n = t.numel();
    let mut off = 0isize;
    for _ in 0..n {
        f(off * e);
        for a in (0..k).rev() {
            idx[a] += 1;
            off += t.strides[a];
            if idx[a] < t.shape[a] {
                break;
            }
            off -= t.strides[a] * t.shape[a] as isize;
            idx[a] = 0;
        }
    }
}

impl Work for RowMajorCopy {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let (s, o) = (b.view(0)?, b.view(1)?);
        let e = s.dtype.size();
        let bool_ = s.dtype == Bool;
        let base_s = b.addr(0)? + s.offset * e;
        let base_o = b.addr(1)? + o.offset * e;
        let mut buf = Vec::with_capacity(s.numel() * e);
        // SAFETY: every offset is inside the bound views (checked when they were created
        // and re-pointed); bytes are copied unaligned.
        for_each_offset(s, |off| unsafe {
            let p = (base_s as isize + off) as *const u8;
            buf.extend_from_slice(std::slice::from_raw_parts(p, e));
        });
        let mut at = 0;
        for_each_offset(o, |off| unsafe {
            let p = (base_o as isize + off) as *mut u8;
            if bool_ {
                *p = (buf[at] != 0) as u8;
            } else {
                std::ptr::copy_nonoverlapping(buf.as_ptr().add(at), p, e);
            }
            at += e;
        });
        Ok(())
    }
    fn describe(&self) -> String {
        "row-major element copy (shapes without a common refinement)".into()
    }
}

/// self and out of `list`, out of self's dtype.
fn check(list: &[DType], name: &str, x: &TensorDesc, out: &TensorDesc) -> Result<()> {
    ew::check_tensor(name, x, list)?;
    ew::check_tensor("out", out, list)?;
    crate::ensure!(
        out.dtype == x.dtype,
        "out has dtype {} but must have {name}'s dtype {}",
        out.dtype,
        x.dtype
    );
    Ok(())
}

/// aclnnFlatten: out = self as the 2-D (d0*...*d(axis-1), d(axis)*...*d(n-1)); a 0-d or
/// 1-D self takes axis 0 (or -1) only and gives (1, numel).
pub fn flatten(self_: &TensorDesc, axis: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnFlatten";
    check(FLATTEN, "self", self_, out)?;
    let r = self_.rank();
    let a = if r <= 1 {
        let w = if axis < 0 { axis + 1 } else { axis };
        crate::ensure!(
            w == 0,
            "axis {axis} is out of range for self of {r} dims (expected to be in range of [-1, 0])"
        );
        0
    } else {
        ew::axis("axis", axis, r, "self")?
    };
    let rows: usize = self_.shape[..a].iter().product();
    let cols: usize = self_.shape[a..].iter().product();
    ew::check_result_shape("out", out, &[rows, cols])?;
    reshape_copy(API, self_, out)
}

/// aclnnChannelShuffle: self (N, C, *) of 3 to 7 dims seen as (N, groups, C/groups, *),
/// the two group axes swapped, back to (N, C, *) (torch.nn.ChannelShuffle).
pub fn channel_shuffle(self_: &TensorDesc, groups: i64, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnChannelShuffle";
    check(CHANNEL_SHUFFLE, "self", self_, out)?;
    crate::ensure!(
        groups > 0,
        "groups {groups}: the number of groups to divide channels in must be positive"
    );
    crate::ensure!(
        (3..=7).contains(&self_.rank()),
        "self has {} dims but {API} takes 3 to 7",
        self_.rank()
    );
    let c = self_.shape[1];
    crate::ensure!(
        c as u64 % groups as u64 == 0,
        "self has {c} channels, which groups {groups} does not divide"
    );
    ew::check_result_shape("out", out, &self_.shape)?;
    let g = groups as usize;
    let per = c / g;
    // out[n, j*g + i, ...] = self[n, i*per + j, ...]: split both channel axes, then read
    // self's (groups, per) pair transposed.
    let split = |t: &TensorDesc, outer: usize, inner: usize, swap: bool| {
        let mut v = t.clone();
        let s = t.strides[1];
        v.shape.remove(1);
        v.strides.remove(1);
        let (mut d, mut st) = ([outer, inner], [s * inner as isize, s]);
        if swap {
            d.swap(0, 1);
            st.swap(0, 1);
        }
        v.shape.insert(1, d[1]);
        v.strides.insert(1, st[1]);
        v.shape.insert(1, d[0]);
        v.strides.insert(1, st[0]);
        v
    };
    let src = split(self_, g, per, true);
    let dst = split(out, per, g, false);
    copy_pair(API, self_, out, src, dst)
}

/// aclnnConfusionTranspose: `transpose(reshape(x, shape), perm)`, or with transposeFirst
/// `reshape(transpose(x, perm), shape)`.
pub fn confusion_transpose(
    x: &TensorDesc,
    perm: &[i64],
    shape: &[i64],
    transpose_first: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnConfusionTranspose";
    check(CONFUSION_TRANSPOSE, "x", x, out)?;
    crate::ensure!(
        (1..=8).contains(&x.rank()),
        "x has {} dims but {API} takes 1 to 8",
        x.rank()
    );
    crate::ensure!(
        !shape.is_empty() && shape.len() <= 8 && shape.iter().all(|&d| d >= 0),
        "shape {shape:?} must have 1 to 8 non-negative sizes"
    );
    let new_shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    crate::ensure!(
        crate::tensor::checked_numel(&new_shape) == Some(x.numel()),
        "shape {shape:?} has not the {} elements of x {:?}",
        x.numel(),
        x.shape
    );
    let want = if transpose_first {
        x.rank()
    } else {
        shape.len()
    };
    crate::ensure!(
        perm.len() == want,
        "perm {perm:?} has {} values but the {} it permutes has {want} dims",
        perm.len(),
        if transpose_first { "x" } else { "reshaped x" }
    );
    let mut p = Vec::with_capacity(want);
    for &d in perm {
        crate::ensure!(
            (0..want as i64).contains(&d) && !p.contains(&(d as usize)),
            "perm {perm:?} is not a permutation of 0..{want}"
        );
        p.push(d as usize);
    }
    if transpose_first {
        // out (of `shape`) takes the permuted x's elements in row-major order.
        ew::check_result_shape("out", out, &new_shape)?;
        let v = x.permuted(&p, x.format);
        return reshape_copy(API, &v, out);
    }
    // out is the permuted reshape of x: out viewed back through the inverse permutation
    // has the reshaped shape and takes x's elements in row-major order.
    let want_out: Vec<usize> = p.iter().map(|&a| new_shape[a]).collect();
    ew::check_result_shape("out", out, &want_out)?;
    let mut inv = vec![0; p.len()];
    for (i, &a) in p.iter().enumerate() {
        inv[a] = i;
    }
    let o = out.permuted(&inv, out.format);
    reshape_copy(API, x, &o)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Flatten",
        a: FLATTEN,
        b: &[],
        out: FLATTEN,
        rule: "self as 2-D around axis (a copy)",
    },
    Entry {
        ops: "ChannelShuffle",
        a: CHANNEL_SHUFFLE,
        b: &[],
        out: CHANNEL_SHUFFLE,
        rule: "channels regrouped (torch.nn.ChannelShuffle)",
    },
    Entry {
        ops: "ConfusionTranspose",
        a: CONFUSION_TRANSPOSE,
        b: &[],
        out: CONFUSION_TRANSPOSE,
        rule: "reshape then transpose, or transpose then reshape (a copy)",
    },
];
