//! Operators whose result is another view of self's elements: Permute, Slice, SliceV2,
//! Expand, Repeat. Each describes self (and, for Repeat, out) as a strided view and hands
//! the copy to the element-wise engine, which converts nothing here (out has self's dtype)
//! and moves the bytes at copy speed. The views stay bound to self's and out's own
//! bindings (same storage, same address), so re-pointing an executor's tensors works as
//! for any operator.

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Sequence};
use crate::tensor::TensorDesc;

use DType::*;
/// The Atlas A2 lists of aclnnPermute.md, aclnnSlice.md / aclnnSliceV2.md, aclnnExpand.md
/// and aclnnRepeat.md.
const PERMUTE: &[DType] = &[
    F32, F16, F64, U64, S64, U32, S32, U16, S16, U8, S8, Bool, C64, C128, BF16,
];
const SLICE: &[DType] = &[F32, F16, BF16, S32, S64, S8, U8, Bool];
const EXPAND: &[DType] = &[F16, F32, U8, S8, S32, S64, Bool, BF16];
const ROLL: &[DType] = &[BF16, F16, F32, S8, U8, S32, S64, U32, Bool, S16, C64];
const REPEAT: &[DType] = &[
    F32, F64, F16, C64, C128, U8, S8, S16, S32, S64, U16, U32, U64, Bool, BF16,
];

/// self and out of one of `list`'s dtypes, out of self's.
pub(super) fn check(list: &[DType], self_: &TensorDesc, out: &TensorDesc) -> Result<()> {
    ew::check_tensor("self", self_, list)?;
    ew::check_tensor("out", out, list)?;
    crate::ensure!(
        out.dtype == self_.dtype,
        "out has dtype {} but must have self's dtype {}",
        out.dtype,
        self_.dtype
    );
    Ok(())
}

fn check_shape(out: &TensorDesc, want: &[usize]) -> Result<()> {
    ew::check_result_shape("out", out, want)
}

/// `dim` in [-rank, rank) of self.
fn axis(name: &str, dim: i64, rank: usize) -> Result<usize> {
    ew::axis(name, dim, rank, "self")
}

/// Copies the view `src` of self into out.
fn copy(api: &'static str, src: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    convert_into(api, Arg::Tensor("self", src), "out", out)
}

/// aclnnPermute: out's axis i is self's axis dims[i].
pub fn permute(self_: &TensorDesc, dims: &[i64], out: &TensorDesc) -> Result<Executor> {
    check(PERMUTE, self_, out)?;
    let rank = self_.rank();
    crate::ensure!(
        dims.len() == rank,
        "dims {dims:?} has {} values but self has {rank} dims",
        dims.len()
    );
    let mut perm = Vec::with_capacity(rank);
    for &d in dims {
        let a = axis("dims value", d, rank)?;
        crate::ensure!(
            !perm.contains(&a),
            "dims {dims:?} names axis {a} twice: it must be a permutation"
        );
        perm.push(a);
    }
    let view = self_.permuted(&perm, self_.format);
    check_shape(out, &view.shape)?;
    copy("aclnnPermute", &view, out)
}

/// One axis sliced as aclnnSlice.md normalises `start`/`end` (CANN's rule, which clamps
/// out-of-range values); returns (start, len).
fn slice_range(n: usize, start: i64, end: i64, step: i64) -> (usize, usize) {
    let n = n as i64;
    let s = if start < -n {
        0
    } else if start >= n {
        n
    } else {
        (start + n) % n.max(1)
    };
    let e = if end < -n {
        s
    } else if end >= n {
        n
    } else {
        s.max((end + n) % n.max(1))
    };
    let len = if e > s { (e - s + step - 1) / step } else { 0 };
    (s as usize, len as usize)
}

/// self with `axis` restricted to `len` elements from `start`, every `step`-th.
fn stepped(t: &TensorDesc, axis: usize, start: usize, len: usize, step: usize) -> TensorDesc {
    let mut v = t.narrowed(axis, start.min(t.shape[axis]), 0);
    v.shape[axis] = len;
    if len > 0 {
        v.offset = t.offset + start * t.strides[axis] as usize;
        v.strides[axis] = t.strides[axis] * step as isize;
    }
    v
}

/// aclnnSlice: elements start, start+step, ... before end along `dim`.
pub fn slice(
    self_: &TensorDesc,
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    check(SLICE, self_, out)?;
    crate::ensure!(
        self_.rank() >= 1,
        "self is a scalar (0 dims): aclnnSlice slices along a dim"
    );
    let ax = axis("dim", dim, self_.rank())?;
    crate::ensure!(step > 0, "step {step} must be positive");
    let (s, len) = slice_range(self_.shape[ax], start, end, step);
    let view = stepped(self_, ax, s, len, step as usize);
    check_shape(out, &view.shape)?;
    copy("aclnnSlice", &view, out)
}

/// aclnnSliceV2: Slice along each of `axes` (distinct) with its start, end and step.
pub fn slice_v2(
    self_: &TensorDesc,
    starts: &[i64],
    ends: &[i64],
    axes: &[i64],
    steps: &[i64],
    out: &TensorDesc,
) -> Result<Executor> {
    check(SLICE, self_, out)?;
    crate::ensure!(
        starts.len() == axes.len() && ends.len() == axes.len() && steps.len() == axes.len(),
        "starts {starts:?}, ends {ends:?}, axes {axes:?} and steps {steps:?} must have one value per axis"
    );
    let mut view = self_.clone();
    let mut seen = vec![];
    for i in 0..axes.len() {
        let ax = axis("axes value", axes[i], self_.rank())?;
        crate::ensure!(!seen.contains(&ax), "axes {axes:?} names axis {ax} twice");
        seen.push(ax);
        crate::ensure!(
            steps[i] > 0,
            "steps {steps:?}: value {} must be positive",
            steps[i]
        );
        // aclnnSliceV2.md: an end before start gives an empty slice.
        let (s, len) = slice_range(
            self_.shape[ax],
            starts[i],
            ends[i].max(-(self_.shape[ax] as i64)),
            steps[i],
        );
        view = stepped(&view, ax, s, len, steps[i] as usize);
    }
    check_shape(out, &view.shape)?;
    copy("aclnnSliceV2", &view, out)
}

/// aclnnExpand: self broadcast to `size` (-1 keeps a dim; new dims lead).
pub fn expand(self_: &TensorDesc, size: &[i64], out: &TensorDesc) -> Result<Executor> {
    check(EXPAND, self_, out)?;
    let (r, m) = (self_.rank(), size.len());
    crate::ensure!(
        m >= r,
        "size {size:?} has {m} values but self {:?} has {r} dims: it needs at least as many",
        self_.shape
    );
    let mut want = Vec::with_capacity(m);
    for (i, &s) in size.iter().enumerate() {
        let own = (i + r >= m).then(|| self_.shape[i + r - m]);
        let d = match (s, own) {
            (-1, Some(n)) => n,
            (s, Some(n)) if s >= 0 && (n == s as usize || n == 1) => s as usize,
            (s, None) if s >= 0 => s as usize,
            _ => crate::bail!(
                "size {size:?}: value {s} at {i} cannot expand self {:?} (a dim expands from 1, or keeps its size; -1 keeps it, and only for an existing dim)",
                self_.shape
            ),
        };
        want.push(d);
    }
    check_shape(out, &want)?;
    copy("aclnnExpand", self_, out)
}

/// aclnnRepeat: self tiled `repeats[i]` times along each dim (self's dims align to the
/// trailing repeats): out is viewed as (repeat, dim) pairs that self broadcasts to.
pub fn repeat(self_: &TensorDesc, repeats: &[i64], out: &TensorDesc) -> Result<Executor> {
    check(REPEAT, self_, out)?;
    let (r, m) = (self_.rank(), repeats.len());
    crate::ensure!(
        m >= r,
        "repeats {repeats:?} has {m} values but self {:?} has {r} dims: it needs at least as many",
        self_.shape
    );
    crate::ensure!(
        repeats.iter().all(|&x| x >= 0),
        "repeats {repeats:?} has a negative value"
    );
    let dim = |i: usize| {
        if i + r >= m {
            self_.shape[i + r - m]
        } else {
            1
        }
    };
    let src_stride = |i: usize| {
        if i + r >= m {
            self_.strides[i + r - m]
        } else {
            0
        }
    };
    let want: Vec<usize> = (0..m).map(|i| repeats[i] as usize * dim(i)).collect();
    check_shape(out, &want)?;
    if out.is_empty() {
        return copy("aclnnRepeat", self_, out);
    }
    // One (src, dst) axis pair per axis, plus a leading (repeat) axis where repeats[i] > 1:
    // out's axis i split into (repeat, element), read from self with stride 0 on the first.
    let (mut src, mut dst) = (self_.clone(), out.clone());
    for v in [&mut src, &mut dst] {
        v.shape.clear();
        v.strides.clear();
    }
    for i in 0..m {
        let (k, n) = (repeats[i] as usize, dim(i));
        if k != 1 {
            src.shape.push(k);
            src.strides.push(0);
            dst.shape.push(k);
            dst.strides.push(out.strides[i] * n as isize);
        }
        src.shape.push(n);
        src.strides.push(src_stride(i));
        dst.shape.push(n);
        dst.strides.push(out.strides[i]);
    }
    copy_pair("aclnnRepeat", self_, out, src, dst)
}

/// Copies the view `src` of self into the view `dst` of out (same shapes, any rank): the
/// pair's axes are merged where both are one run, and past the engine's 8 dims the
/// leading axes become steps of one operator bound to self and out.
pub(crate) fn copy_pair(
    api: &'static str,
    self_: &TensorDesc,
    out: &TensorDesc,
    mut src: TensorDesc,
    mut dst: TensorDesc,
) -> Result<Executor> {
    debug_assert_eq!(src.shape, dst.shape);
    coalesce(&mut src, &mut dst);
    let mut steps = vec![(src, dst)];
    while steps[0].0.rank() > ew::MAX_DIMS {
        steps = steps
            .iter()
            .flat_map(|(s, d)| (0..s.shape[0]).map(move |j| (s.selected(0, j), d.selected(0, j))))
            .collect();
    }
    if steps.len() == 1 {
        let (s, d) = &steps[0];
        return copy(api, s, d);
    }
    let mut seq = Sequence::new();
    for (s, d) in &steps {
        seq.push(copy(api, s, d)?, &[0, 1]);
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(self_.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(api, bindings, seq))
}

/// aclnnRoll: `out[(i + shift) mod n] = x[i]` along each of `dims` (a dim named twice adds
/// its shifts); with no dims, along x's elements in row-major order, which needs x and out
/// each to be one run (refused otherwise). Per rolled dim the elements move in two blocks,
/// so k dims are at most 2^k block copies, run as one operator.
pub fn roll(
    x: &TensorDesc,
    shifts: &[i64],
    dims: Option<&[i64]>,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnRoll";
    ew::check_tensor("x", x, ROLL)?;
    ew::check_tensor("out", out, ROLL)?;
    crate::ensure!(
        out.dtype == x.dtype,
        "out has dtype {} but must have x's dtype {}",
        out.dtype,
        x.dtype
    );
    check_shape(out, &x.shape)?;
    let dims = dims.unwrap_or(&[]);
    let (src, dst, per_axis): (TensorDesc, TensorDesc, Vec<i64>) = if dims.is_empty() {
        crate::ensure!(
            shifts.len() == 1,
            "shifts {shifts:?} must have one value when dims is empty (a roll of the flattened tensor)"
        );
        let flat = |t: &TensorDesc, name: &str| -> Result<TensorDesc> {
            let n = t.numel();
            let mut v = t.clone();
            // one run: its strides are the contiguous ones over the dims of size > 1
            let mut want = 1isize;
            for d in (0..t.rank()).rev() {
                if t.shape[d] > 1 {
                    crate::ensure!(
                        t.strides[d] == want,
                        "{API} with empty dims rolls the flattened tensor: '{name}' must be contiguous (strides {:?} for shape {:?}); this mode is not implemented for other views",
                        t.strides,
                        t.shape
                    );
                    want *= t.shape[d] as isize;
                }
            }
            v.shape = smallvec::smallvec![n];
            v.strides = smallvec::smallvec![1];
            Ok(v)
        };
        (flat(x, "x")?, flat(out, "out")?, vec![shifts[0]])
    } else {
        crate::ensure!(
            shifts.len() == dims.len(),
            "shifts {shifts:?} and dims {dims:?} must have the same length"
        );
        let mut per = vec![0i64; x.rank()];
        for (&d, &s) in dims.iter().zip(shifts) {
            let a = axis("dims value", d, x.rank())?;
            per[a] = per[a].wrapping_add(s);
        }
        (x.clone(), out.clone(), per)
    };
    // Blocks: for each axis with a non-zero shift s (mod n), [0, n-s) -> [s, n) and
    // [n-s, n) -> [0, s).
    let mut blocks = vec![(src, dst)];
    for (a, &s) in per_axis.iter().enumerate() {
        let n = blocks[0].0.shape[a] as i64;
        if n == 0 {
            continue;
        }
        let s = s.rem_euclid(n) as usize;
        if s == 0 {
            continue;
        }
        let n = n as usize;
        blocks = blocks
            .iter()
            .flat_map(|(sv, dv)| {
                [
                    (sv.narrowed(a, 0, n - s), dv.narrowed(a, s, n - s)),
                    (sv.narrowed(a, n - s, s), dv.narrowed(a, 0, s)),
                ]
            })
            .collect();
    }
    if blocks.len() == 1 {
        let (s, d) = &blocks[0];
        return copy(API, s, d);
    }
    let mut seq = Sequence::new();
    for (s, d) in &blocks {
        seq.push(copy(API, s, d)?, &[0, 1]);
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![Some(x.clone()), Some(out.clone())]),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    Ok(Executor::new(API, bindings, seq))
}

/// Merges adjacent axes that are one run in both views (same shapes), and drops size-1
/// axes, so a view pair has as few axes as the engine needs.
fn coalesce(a: &mut TensorDesc, b: &mut TensorDesc) {
    let mut shape: Vec<usize> = vec![];
    let (mut sa, mut sb): (Vec<isize>, Vec<isize>) = (vec![], vec![]);
    for i in 0..a.rank() {
        let n = a.shape[i];
        if n == 1 {
            continue;
        }
        if let Some(&last) = shape.last() {
            let k = shape.len() - 1;
            if sa[k] == a.strides[i] * n as isize && sb[k] == b.strides[i] * n as isize {
                shape[k] = last * n;
                sa[k] = a.strides[i];
                sb[k] = b.strides[i];
                continue;
            }
        }
        shape.push(n);
        sa.push(a.strides[i]);
        sb.push(b.strides[i]);
    }
    a.shape = shape.iter().copied().collect();
    b.shape = a.shape.clone();
    a.strides = sa.into_iter().collect();
    b.strides = sb.into_iter().collect();
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Permute",
        a: PERMUTE,
        b: &[],
        out: PERMUTE,
        rule: "axes reordered (a copy of the permuted view)",
    },
    Entry {
        ops: "Slice, SliceV2",
        a: SLICE,
        b: &[],
        out: SLICE,
        rule: "start:end:step along dims (CANN's clamping of start/end)",
    },
    Entry {
        ops: "Expand",
        a: EXPAND,
        b: &[],
        out: EXPAND,
        rule: "broadcast to size (-1 keeps a dim)",
    },
    Entry {
        ops: "Roll",
        a: ROLL,
        b: &[],
        out: ROLL,
        rule: "elements moved by shifts along dims (wrapping around)",
    },
    Entry {
        ops: "Repeat",
        a: REPEAT,
        b: &[],
        out: REPEAT,
        rule: "tiled repeats[i] times along each dim (torch.Tensor.repeat)",
    },
];
