//! Operators driven by where a tensor is true (non-zero), whose output size is in the
//! data:
//!
//! - Nonzero (aclnnNonzero.md): the coordinates of self's non-zero elements, N rows of
//!   D = rank(self) int64 values, in row-major order of the elements.
//! - NonzeroV2 (aclnnNonzeroV2.md): the same, transposed: D rows of N.
//! - MaskedSelect (aclnnMaskedSelect.md): self's elements where mask (broadcast with
//!   self) is true, in row-major order, as a 1-D out.
//! - InplaceMaskedScatter (aclnnInplaceMaskedScatter.md): selfRef's elements where mask
//!   (broadcast to selfRef) is true take source's leading elements, in row-major order.
//!
//! Output size (CANN's contract, followed exactly): the caller allocates out at its
//! maximum (Nonzero: numel(self) × D elements; MaskedSelect: the broadcast shape's numel,
//! checked at phase 1), the run writes the result compactly from out's first element, and
//! out's aclTensor then takes the real view ([N, D], [D, N], [N]) as CANN's framework
//! refreshes it: `aclGetViewShape(out)` after synchronizing returns it (see
//! capi/reported.rs). A Nonzero out too small for the count found fails the run (nothing
//! written); so does a MaskedScatter source with fewer elements than mask has true ones.
//!
//! "Non-zero": a float is non-zero unless it is ±0 (NaN is non-zero), a complex unless both
//! parts are, an integer or bool unless all its bits are 0; a UINT8 mask is true where
//! non-zero. Moves are bit copies (a bool is written as 0/1).

use super::advanced_index::walk_offsets;
use super::catalog::Entry;
use super::elementwise as ew;
use super::gather::{Axis, Index, IndexSource, Plan, Reduce, Side, Values, Walk};
use super::index::{apart, as_1d, bindings, same_dtype};
use crate::dtype::DType;
use crate::engine::{broadcast_strides, pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, ShapeReport, Work, Workspace};
use crate::format::Format;
use crate::tensor::{contiguous_strides, Dims, Strides, TensorDesc};
use std::sync::Mutex;

use DType::*;

/// aclnnNonzero.md, Atlas A2.
const NONZERO: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
/// aclnnNonzeroV2.md (the unsigned types too on A2).
const NONZERO_V2: &[DType] = &[
    F32, F64, S8, U8, S16, U16, S32, U32, S64, U64, F16, Bool, BF16,
];
/// aclnnMaskedSelect.md.
const MASKED_SELECT: &[DType] = &[BF16, F16, F32, F64, S8, S16, S32, S64, U8, Bool];
/// aclnnInplaceMaskedScatter.md.
const MASKED_SCATTER: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool, BF16];
const MASK: &[DType] = &[U8, Bool];

/// Fewest elements worth a task of their own.
const GRAIN: usize = 64 * 1024;

/// Whether the element at a pointer is non-zero.
type TestFn = unsafe fn(*const u8) -> bool;

/// # Safety
/// `p` addresses `size_of::<T>()` readable bytes.
unsafe fn bits_nonzero<
    T: Copy + PartialEq + Default + std::ops::BitAnd<Output = T>,
    const MASK: u64,
>(
    p: *const u8,
) -> bool
where
    T: TryFrom<u64>,
{
    let m: T = T::try_from(MASK).ok().unwrap_or_default();
    // SAFETY: the caller's contract.
    let v = unsafe { (p as *const T).read_unaligned() };
    v & m != T::default()
}

/// # Safety
/// `p` addresses two elements of `N` bytes each (a complex value).
unsafe fn pair_nonzero<const N: usize>(p: *const u8) -> bool {
    // SAFETY: the caller's contract.
    unsafe { test_fn_of_size(N)(p) || test_fn_of_size(N)(p.add(N)) }
}

/// The float test of an `n`-byte float (sign bit ignored).
fn test_fn_of_size(n: usize) -> TestFn {
    match n {
        2 => bits_nonzero::<u16, 0x7fff>,
        4 => bits_nonzero::<u32, 0x7fff_ffff>,
        _ => bits_nonzero::<u64, 0x7fff_ffff_ffff_ffff>,
    }
}

fn test_fn(dtype: DType) -> TestFn {
    match dtype {
        F16 | BF16 | F32 | F64 => test_fn_of_size(dtype.size()),
        C32 => pair_nonzero::<2>,
        C64 => pair_nonzero::<4>,
        C128 => pair_nonzero::<8>,
        _ => match dtype.size() {
            1 => bits_nonzero::<u8, 0xff>,
            2 => bits_nonzero::<u16, 0xffff>,
            4 => bits_nonzero::<u32, 0xffff_ffff>,
            _ => bits_nonzero::<u64, { u64::MAX }>,
        },
    }
}

/// Phase 2: the row-major positions over `shape` where the tensor bound at `binding`,
/// walked with `strides` (its own, or broadcast to `shape`), is non-zero.
fn true_positions(
    b: &Bindings,
    binding: usize,
    shape: &[usize],
    strides: &[isize],
) -> Result<Vec<usize>> {
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(Vec::new());
    }
    let v = b.view(binding)?;
    let es = v.dtype.size() as isize;
    let base = b.addr(binding)? as isize + v.offset as isize * es;
    let test = test_fn(v.dtype);
    let tasks = pool().current_num_threads().min(n.div_ceil(GRAIN)).max(1);
    let parts: Vec<Mutex<Vec<usize>>> = (0..tasks).map(|_| Mutex::new(Vec::new())).collect();
    let base = base as usize;
    run_tasks(tasks, |t| {
        let (lo, hi) = (n * t / tasks, n * (t + 1) / tasks);
        let mut found = Vec::new();
        walk_offsets(shape, strides, lo, hi, |k, off| {
            // SAFETY: an element of the view (strides 0 where broadcast), inside its storage.
            if unsafe { test((base as isize + off * es) as *const u8) } {
                found.push(k);
            }
        });
        *parts[t].lock().unwrap_or_else(|e| e.into_inner()) = found;
    });
    let mut all = Vec::new();
    for p in parts {
        all.extend(p.into_inner().unwrap_or_else(|e| e.into_inner()));
    }
    Ok(all)
}

/// Whether `t`'s elements lie in row-major order with no gaps (size-1 dims aside).
fn is_contiguous(t: &TensorDesc) -> bool {
    let mut want = 1isize;
    for d in (0..t.rank()).rev() {
        if t.shape[d] != 1 && t.strides[d] != want {
            return false;
        }
        want *= t.shape[d] as isize;
    }
    true
}

/// The one stride that walks all of `t` in row-major order, if there is one.
fn flat_stride(t: &TensorDesc) -> Option<isize> {
    let dims: Vec<usize> = (0..t.rank()).filter(|&d| t.shape[d] != 1).collect();
    let Some(&last) = dims.last() else {
        return Some(1);
    };
    let s = t.strides[last];
    dims.windows(2)
        .all(|w| t.strides[w[0]] == t.strides[w[1]] * t.shape[w[1]] as isize)
        .then_some(s)
}

/// Nonzero's work: positions found, then their coordinates written compactly.
struct NonzeroWork {
    api: &'static str,
    /// V2: D rows of N (else N rows of D).
    transposed: bool,
    report: ShapeReport,
}

impl Work for NonzeroWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let s = b.view(0)?;
        let out = b.view(1)?;
        let found = true_positions(b, 0, &s.shape, &s.strides)?;
        let (n, d) = (found.len(), s.rank());
        crate::ensure!(
            n * d <= out.numel(),
            "{}: self has {n} non-zero elements, whose {n} × {d} coordinates do not fit out's {} elements: nothing was written",
            self.api,
            out.numel()
        );
        let dst = (b.addr(1)? + out.offset * 8) as *mut i64;
        let (row, col) = if self.transposed { (1, n) } else { (d, 1) };
        let dst = dst as usize;
        let tasks = pool()
            .current_num_threads()
            .min((n * d).div_ceil(GRAIN))
            .max(1);
        run_tasks(tasks, |t| {
            let dst = dst as *mut i64;
            for (i, &f) in found[n * t / tasks..n * (t + 1) / tasks].iter().enumerate() {
                let i = n * t / tasks + i;
                let mut rest = f;
                for k in (0..d).rev() {
                    let c = rest % s.shape[k];
                    rest /= s.shape[k];
                    // SAFETY: i < n and k < d, so the element is among out's first n·d (checked above),
                    // which lie in out's contiguous view.
                    unsafe { dst.add(i * row + k * col).write_unaligned(c as i64) };
                }
            }
        });
        let shape: Dims = if self.transposed {
            smallvec::smallvec![d, n]
        } else {
            smallvec::smallvec![n, d]
        };
        let strides = contiguous_strides(&shape);
        self.report.publish(shape, strides);
        Ok(())
    }
}

fn nonzero_rule(
    api: &'static str,
    dtypes: &[DType],
    self_: &TensorDesc,
    out: &TensorDesc,
    transposed: bool,
) -> Result<Executor> {
    ew::check_tensor("self", self_, dtypes)?;
    ew::check_tensor("out", out, &[S64])?;
    for (k, &n) in self_.shape.iter().enumerate() {
        crate::ensure!(
            n <= i32::MAX as usize,
            "self's dim {k} has size {n}: the device's indices are int32, so a dim may have at most {} elements",
            i32::MAX
        );
    }
    let b = bindings(&[self_], Some(out));
    if self_.is_empty() || out.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    out.check_output("out")?;
    crate::ensure!(
        is_contiguous(out),
        "out ({}) must be contiguous: the coordinates are written compactly and out's view becomes their shape",
        out.describe()
    );
    apart(api, "self", self_, "out", out)?;
    let report = ShapeReport::default();
    let work = NonzeroWork {
        api,
        transposed,
        report: report.clone(),
    };
    Ok(Executor::new(api, b, work).reporting(out, report))
}

/// aclnnNonzero: out [N, D].
pub fn nonzero(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    nonzero_rule("aclnnNonzero", NONZERO, self_, out, false)
}

/// aclnnNonzeroV2: out [D, N].
pub fn nonzero_v2(self_: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    nonzero_rule("aclnnNonzeroV2", NONZERO_V2, self_, out, true)
}

/// A one-stride run of `positions.len()` elements meeting `t` (bound at `binding`) at the
/// row-major `positions` of its shape: gathered from t into `run` (Side::Source) or
/// scattered from `run` into t (Side::Destination).
fn flat_plan(
    side: Side,
    run: Walk,
    binding: usize,
    t: &TensorDesc,
    positions: Vec<i64>,
    what: &'static str,
) -> Plan {
    let at = Walk::new(binding, t, smallvec::smallvec![0]);
    let (dst, values) = match side {
        Side::Source => (run, at),
        Side::Destination => (at, run),
    };
    Plan {
        shape: smallvec::smallvec![positions.len()],
        parallel: 1,
        dst,
        values: Values::Tensor(values),
        index: Index {
            source: IndexSource::Host {
                values: positions,
                strides: smallvec::smallvec![1],
            },
            side,
            axis: Axis::Flat {
                shape: t.shape.clone(),
                strides: t.strides.clone(),
            },
            wrap: false,
            skip_outside: false,
            name: what,
            target: String::new(),
        },
        dtype: t.dtype,
        reduce: Reduce::Copy,
    }
}

/// MaskedSelect's work: mask's true positions over the broadcast shape, then a gather of
/// self's elements there.
struct SelectWork {
    shape: Dims,
    mask_strides: Strides,
    self_strides: Strides,
    report: ShapeReport,
}

impl Work for SelectWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let found = true_positions(b, 1, &self.shape, &self.mask_strides)?;
        let (s, out) = (b.view(0)?, as_1d(b.view(2)?));
        let n = found.len();
        let mut seen = s.clone();
        seen.shape = self.shape.clone();
        seen.strides = self.self_strides.clone();
        let positions = found.into_iter().map(|f| f as i64).collect();
        let run = Walk::new(2, &out, out.strides.clone());
        let plan = flat_plan(Side::Source, run, 0, &seen, positions, "mask");
        plan.execute(b)?;
        self.report
            .publish(smallvec::smallvec![n], smallvec::smallvec![out.strides[0]]);
        Ok(())
    }
}

/// aclnnMaskedSelect: out [N] = self's elements where mask is true.
pub fn masked_select(self_: &TensorDesc, mask: &TensorDesc, out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnMaskedSelect";
    ew::check_tensor("self", self_, MASKED_SELECT)?;
    ew::check_tensor("mask", mask, MASK)?;
    ew::check_tensor("out", out, MASKED_SELECT)?;
    same_dtype("out", out, "self", self_)?;
    let shape =
        crate::broadcast::broadcast_shapes(&[("self", &self_.shape), ("mask", &mask.shape)])?;
    crate::ensure!(
        out.rank() == 1,
        "out has {} dims; it must be 1-D",
        out.rank()
    );
    let n: usize = shape.iter().product();
    crate::ensure!(
        out.numel() == n,
        "out has {} elements but must have the broadcast shape {shape:?}'s {n} (the most mask can select)",
        out.numel()
    );
    let b = bindings(&[self_, mask], Some(out));
    if n == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    out.check_output("out")?;
    apart(API, "self", self_, "out", out)?;
    apart(API, "mask", mask, "out", out)?;
    let report = ShapeReport::default();
    let work = SelectWork {
        mask_strides: broadcast_strides(&shape, &mask.shape, &mask.strides),
        self_strides: broadcast_strides(&shape, &self_.shape, &self_.strides),
        shape,
        report: report.clone(),
    };
    Ok(Executor::new(API, b, work).reporting(out, report))
}

/// MaskedScatter's work: mask's true positions, then source's leading elements scattered
/// there (through the workspace when source cannot be walked with one stride).
struct ScatterWork {
    mask_strides: Strides,
    /// Source's one stride, or None: gathered into the workspace first.
    source_stride: Option<isize>,
}

impl Work for ScatterWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let s = b.view(0)?.clone();
        let found = true_positions(b, 1, &s.shape, &self.mask_strides)?;
        let src = as_1d(b.view(2)?);
        let n = found.len();
        if n > src.numel() {
            return Err(Error::Invalid(format!(
                "aclnnInplaceMaskedScatter: mask has {n} true elements but source only {}: nothing was written",
                src.numel()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let s1 = as_1d(&s);
        let (b, values) = match self.source_stride {
            Some(stride) => (
                std::borrow::Cow::Borrowed(b),
                Walk::new(2, &src, smallvec::smallvec![stride]),
            ),
            None => {
                // Source's first n elements, row-major, into the workspace.
                let staged = TensorDesc {
                    dtype: s.dtype,
                    format: Format::ND,
                    shape: smallvec::smallvec![n],
                    strides: smallvec::smallvec![1],
                    offset: 0,
                    storage_shape: smallvec::smallvec![n],
                    addr: ws.addr,
                };
                let mut tensors = b.tensors.as_ref().clone();
                tensors.push(Some(staged.clone()));
                let staged_at = tensors.len() - 1;
                let with = Bindings {
                    tensors: std::sync::Arc::new(tensors),
                    n_inputs: b.n_inputs,
                    outputs: b.outputs.clone(),
                };
                let run = Walk::new(staged_at, &staged, smallvec::smallvec![1]);
                let gather = flat_plan(
                    Side::Source,
                    run,
                    2,
                    &src,
                    (0..n as i64).collect(),
                    "source",
                );
                gather.execute(&with)?;
                (
                    std::borrow::Cow::Owned(with),
                    Walk::new(staged_at, &staged, smallvec::smallvec![1]),
                )
            }
        };
        let positions = found.into_iter().map(|f| f as i64).collect();
        let plan = flat_plan(Side::Destination, values, 0, &s1, positions, "mask");
        plan.execute(&b)
    }
}

/// The workspace MaskedScatter's staging needs (source gathered when it has no one stride).
struct Staged<W> {
    work: W,
    bytes: u64,
}

impl<W: Work> Work for Staged<W> {
    fn workspace_size(&self) -> u64 {
        self.bytes
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        self.work.run(b, ws)
    }
}

/// aclnnInplaceMaskedScatter: selfRef[mask] = source's first elements, in order.
pub fn inplace_masked_scatter(
    self_ref: &TensorDesc,
    mask: &TensorDesc,
    source: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnInplaceMaskedScatter";
    ew::check_tensor("selfRef", self_ref, MASKED_SCATTER)?;
    ew::check_tensor("mask", mask, MASK)?;
    same_dtype("source", source, "selfRef", self_ref)?;
    ew::check_tensor("source", source, MASKED_SCATTER)?;
    crate::ensure!(
        mask.rank() <= self_ref.rank(),
        "mask has {} dims, more than selfRef's {}",
        mask.rank(),
        self_ref.rank()
    );
    crate::broadcast::broadcast_shapes(&[("selfRef", &self_ref.shape), ("mask", &mask.shape)])?;
    crate::ensure!(
        crate::broadcast::broadcasts_to(&mask.shape, &self_ref.shape),
        "mask {:?} must broadcast to selfRef's shape {:?} without changing it",
        mask.shape,
        self_ref.shape
    );
    let b = bindings(&[self_ref, mask, source], None);
    if self_ref.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    self_ref.check_output("selfRef")?;
    apart(API, "source", source, "selfRef", self_ref)?;
    apart(API, "mask", mask, "selfRef", self_ref)?;
    let source_stride = flat_stride(&as_1d(source));
    let bytes = if source_stride.is_some() {
        0
    } else {
        (source.numel() * source.dtype.size()) as u64
    };
    let work = ScatterWork {
        mask_strides: broadcast_strides(&self_ref.shape, &mask.shape, &mask.strides),
        source_stride,
    };
    Ok(Executor::new(API, b, Staged { work, bytes }))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Nonzero",
        a: NONZERO,
        b: &[],
        out: &[S64],
        rule: "[N, D] coordinates of self's non-zero elements; out sized [numel, D], its view becomes [N, D] after the run",
    },
    Entry {
        ops: "NonzeroV2",
        a: NONZERO_V2,
        b: &[],
        out: &[S64],
        rule: "[D, N] coordinates of self's non-zero elements; out sized at the maximum, its view becomes [D, N]",
    },
    Entry {
        ops: "MaskedSelect",
        a: MASKED_SELECT,
        b: MASK,
        out: MASKED_SELECT,
        rule: "self's elements where mask (broadcast) is true; out 1-D of the broadcast numel, its view becomes [N]",
    },
    Entry {
        ops: "InplaceMaskedScatter",
        a: MASKED_SCATTER,
        b: MASK,
        out: MASKED_SCATTER,
        rule: "selfRef[mask] = source's leading elements in row-major order (b: mask)",
    },
];
