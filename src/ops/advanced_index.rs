//! Tuple indexing, as rules on the gather engine (`gather.rs`): an element is addressed by
//! several index values at once, one per indexed dim of the target, read from index
//! tensors at phase 2.
//!
//! - Index (aclnnIndex.md, PyTorch's `self[indices]`): one index tensor per leading dim
//!   (an empty tensor leaves its dim whole), broadcast together; their dims replace the
//!   indexed ones where those are adjacent, else they come first (PyTorch's rule).
//! - IndexPutImpl (aclnnIndexPutImpl.md, `self[indices] = values` or `+=` with
//!   accumulate): the same addressing, scattering values broadcast to Index's result.
//! - InplacePut (aclnnInplacePut.md, `torch.put_`): selfRef seen as 1-D, index and source
//!   read in row-major order.
//! - IndexFill (aclnnIndexFill.md): IndexFillTensor's fill with the index in a tensor;
//!   as the doc says, negative values count from the end and values out of range are
//!   skipped.
//!
//! How: the index tensors' values at each point of the tuple space are combined at phase
//! 2 into one flat position over the indexed dims (row-major), every value checked first;
//! that host index then drives one gather-engine plan whose axis is the indexed dims seen
//! as one (`Axis::Flat`). A bad value fails the run before anything is written (the
//! stream reports it at synchronize), out-of-place forms included (`out = self` is copied
//! only after the check). Moves are bit copies; accumulation adds in the compute dtype
//! (f16/bf16 in f32, rounded once per addition) in index order, as PyTorch's CPU kernel.

use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use super::gather::{Axis, Index, IndexSource, Plan, Reduce, Side, Values, Walk};
use super::index::{apart, as_1d, bindings, same_dtype, same_shape, scatter_plan, INDEX};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, ListParam, Nothing, Sequence, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{contiguous_strides, Dims, Strides, TensorDesc};

use DType::*;

/// aclnnIndex.md, Atlas A2 (no complex there).
const INDEX_DTYPES: &[DType] = &[F32, F16, BF16, F64, S32, S64, S16, S8, U8, Bool];
/// aclnnIndexPutImpl.md.
const INDEX_PUT: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16];
/// aclnnInplacePut.md.
const PUT: &[DType] = &[F32, F16, F64, S32, S64, S16, S8, U8, Bool, BF16, C64, C128];
/// aclnnIndexFill.md, Atlas A2.
const INDEX_FILL: &[DType] = &[F16, F32, S32, S64, Bool, BF16];

/// Calls `f(k, offset)` for the elements `lo..hi` (row-major order) of the view
/// `(shape, strides)`, `offset` in elements from the view's first element.
pub(crate) fn walk_offsets(
    shape: &[usize],
    strides: &[isize],
    lo: usize,
    hi: usize,
    mut f: impl FnMut(usize, isize),
) {
    let rank = shape.len();
    let mut pos: Dims = smallvec::smallvec![0; rank];
    let mut rest = lo;
    let mut off = 0isize;
    for d in (0..rank).rev() {
        pos[d] = rest % shape[d].max(1);
        rest /= shape[d].max(1);
        off += pos[d] as isize * strides[d];
    }
    for k in lo..hi {
        f(k, off);
        let mut d = rank;
        while d > 0 {
            d -= 1;
            pos[d] += 1;
            off += strides[d];
            if pos[d] < shape[d] {
                break;
            }
            off -= pos[d] as isize * strides[d];
            pos[d] = 0;
        }
    }
}

/// Reads an s32/s64 index element at `base` + `off` elements.
///
/// # Safety
/// That element lies in the bound tensor's storage.
unsafe fn read_int(base: usize, dtype: DType, off: isize) -> i64 {
    // SAFETY: the caller's contract.
    unsafe {
        if dtype == S32 {
            (base as *const i32).offset(off).read_unaligned() as i64
        } else {
            (base as *const i64).offset(off).read_unaligned()
        }
    }
}

/// Every element of the s32/s64 view `(shape, strides)` from element `offset` of the
/// storage bound at `binding`, in row-major order.
pub(crate) fn read_ints(
    b: &Bindings,
    binding: usize,
    dtype: DType,
    offset: usize,
    shape: &[usize],
    strides: &[isize],
) -> Result<Vec<i64>> {
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(Vec::new());
    }
    let base = b.addr(binding)?;
    let mut v = Vec::with_capacity(n);
    walk_offsets(shape, strides, 0, n, |_, off| {
        // SAFETY: an element of the view, inside its storage (phase 2 checks).
        v.push(unsafe { read_int(base, dtype, offset as isize + off) })
    });
    Ok(v)
}

/// One coordinate of a tuple index: an s32/s64 view read in row-major order of its
/// `shape` (the tuple space, with stride 0 where it broadcasts), bounding a dim of `size`.
#[derive(Clone, Debug)]
pub(crate) struct Coordinate {
    pub binding: usize,
    pub dtype: DType,
    /// First element, in elements from the storage start.
    pub offset: usize,
    pub shape: Dims,
    pub strides: Strides,
    pub size: usize,
    /// What messages call it ("indices[1]").
    pub name: String,
}

/// How a tuple index treats values outside [0, size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Range {
    /// Only [0, size).
    NonNegative,
    /// [-size, size), negatives counting from the end.
    Wrapping,
}

/// Several coordinates read together: point k of the tuple space addresses the flat
/// position `sum_i c_i(k) · prod(size_{i+1..})` over the indexed dims.
#[derive(Clone, Debug)]
pub(crate) struct Tuple {
    pub coords: Vec<Coordinate>,
    pub points: usize,
    pub range: Range,
    /// What messages call the addressed operand ("dim 0 of self").
    pub target: &'static str,
}

impl Tuple {
    /// Phase 2: every point's flat position, or the first bad value as the run's error.
    pub fn positions(&self, api: &str, b: &Bindings) -> Result<Vec<i64>> {
        let mut flat = vec![0i64; self.points];
        for c in &self.coords {
            let n = c.size as i64;
            let mut bad = None;
            let values = read_ints(b, c.binding, c.dtype, c.offset, &c.shape, &c.strides)?;
            for (k, (&v, f)) in values.iter().zip(flat.iter_mut()).enumerate() {
                let w = if self.range == Range::Wrapping && v < 0 {
                    v + n
                } else {
                    v
                };
                if !(0..n).contains(&w) {
                    bad = Some((k, v));
                    break;
                }
                *f = *f * n + w;
            }
            if let Some((k, v)) = bad {
                let range = match self.range {
                    Range::Wrapping => format!("[{}, {n})", -n),
                    Range::NonNegative => format!("[0, {n})"),
                };
                return Err(Error::Invalid(format!(
                    "{api}: {} value {v} at element {k} is out of range {range} for {}: nothing was written",
                    c.name, self.target
                )));
            }
        }
        Ok(flat)
    }
}

/// A plan whose host index is computed at phase 2 from a tuple, optionally after
/// `before` (an out-of-place operator's `out = self`), which runs only once every value
/// has been checked.
pub(crate) struct TupleWork {
    pub api: &'static str,
    pub tuple: Tuple,
    pub plan: Plan,
    pub before: Option<Sequence>,
}

impl TupleWork {
    /// The executor of `plan` driven by `tuple` (after `before`, if any).
    pub fn executor(
        api: &'static str,
        b: Bindings,
        tuple: Tuple,
        plan: Plan,
        before: Option<Sequence>,
    ) -> Executor {
        Executor::new(
            api,
            b,
            TupleWork {
                api,
                tuple,
                plan,
                before,
            },
        )
    }
}

impl Work for TupleWork {
    fn workspace_size(&self) -> u64 {
        self.before.as_ref().map_or(0, |s| s.workspace_size())
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        self.before.as_ref().map_or(Ok(()), |s| s.check(b))
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let values = self.tuple.positions(self.api, b)?;
        if let Some(s) = &self.before {
            s.run(b, ws)?;
        }
        let mut plan = self.plan.clone();
        if let IndexSource::Host { values: v, .. } = &mut plan.index.source {
            *v = values;
        }
        plan.execute(b)
    }
    fn small(&self) -> bool {
        self.tuple.points <= 4096
    }
}

/// The copy `out = self` (bindings `self_at`, `out_at` of `b`) as a one-step sequence.
pub(crate) fn copy_step(
    api: &'static str,
    b: &Bindings,
    self_: &TensorDesc,
    self_at: usize,
    out: &TensorDesc,
) -> Result<Sequence> {
    let mut s = Sequence::new();
    s.push(
        convert_into(api, Arg::Tensor("self", self_), "out", out)?,
        &[self_at, b.outputs[0]],
    );
    Ok(s)
}

/// An index-list parameter, as the rule sees it.
struct Indexing {
    /// Index tensor of each dim listed (None: an empty tensor, the dim taken whole).
    defined: Vec<Option<usize>>,
    /// The broadcast shape of the defined index tensors.
    space: Dims,
    /// The result: self's dims with the indexed ones replaced by the space's.
    result: Dims,
    /// For each result dim: Some(self dim) or None (a space dim).
    from_self: Vec<Option<usize>>,
}

/// PyTorch's advanced-indexing shape rule for `self[indices]` (self, called `name`; 0-d
/// seen as 1-D, which takes one index tensor at most).
fn indexing(
    api: &str,
    name: &str,
    self_: &TensorDesc,
    indices: &[&TensorDesc],
) -> Result<Indexing> {
    crate::ensure!(
        self_.rank() > 0 || indices.len() <= 1,
        "{name} is a scalar (0 dims), so indices may hold one tensor, but it holds {}",
        indices.len()
    );
    let s1 = as_1d(self_);
    let r = s1.rank();
    crate::ensure!(
        indices.len() <= r,
        "indices has {} tensors but self has {r} dims: at most one index per dim",
        indices.len()
    );
    let mut defined = Vec::with_capacity(indices.len());
    let mut shapes: Vec<(String, &[usize])> = Vec::new();
    for (k, t) in indices.iter().enumerate() {
        if t.is_empty() {
            defined.push(None);
            continue;
        }
        crate::ensure!(
            t.dtype != Bool,
            "indices[{k}] is a BOOL mask: {api} here takes INT32 and INT64 indices only (pass the mask's Nonzero positions instead)"
        );
        ew::check_tensor(&format!("indices[{k}]"), t, INDEX)?;
        defined.push(Some(k));
        shapes.push((format!("indices[{k}]"), &t.shape));
    }
    let named: Vec<(&str, &[usize])> = shapes.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let space = crate::broadcast::broadcast_shapes(&named)?;
    let dims: Vec<usize> = defined.iter().flatten().copied().collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let at = if adjacent {
        dims.first().copied().unwrap_or(0)
    } else {
        0
    };
    let mut result = Dims::new();
    let mut from_self = Vec::new();
    let mut placed = dims.is_empty();
    for d in 0..r {
        if d == at && !placed {
            result.extend_from_slice(&space);
            from_self.extend(std::iter::repeat_n(None, space.len()));
            placed = true;
        }
        if !dims.contains(&d) {
            result.push(s1.shape[d]);
            from_self.push(Some(d));
        }
    }
    crate::ensure!(
        result.len() <= ew::MAX_DIMS,
        "the result would have {} dims ({result:?}); at most {} are supported",
        result.len(),
        ew::MAX_DIMS
    );
    Ok(Indexing {
        defined,
        space,
        result,
        from_self,
    })
}

impl Indexing {
    /// The tuple of the defined index tensors (bound from binding `first` on) over self.
    fn tuple(&self, s1: &TensorDesc, indices: &[&TensorDesc], first: usize) -> Tuple {
        let coords = self
            .defined
            .iter()
            .flatten()
            .map(|&k| {
                let t = indices[k];
                Coordinate {
                    binding: first + k,
                    dtype: t.dtype,
                    offset: t.offset,
                    shape: self.space.clone(),
                    strides: crate::engine::broadcast_strides(&self.space, &t.shape, &t.strides),
                    size: s1.shape[k],
                    name: format!("indices[{k}]"),
                }
            })
            .collect();
        Tuple {
            coords,
            points: self.space.iter().product(),
            range: Range::Wrapping,
            target: "the indexed dims of self",
        }
    }

    /// The indexed dims of self as one flat axis.
    fn axis(&self, s1: &TensorDesc) -> Axis {
        let dims: Vec<usize> = self.defined.iter().flatten().copied().collect();
        Axis::Flat {
            shape: dims.iter().map(|&d| s1.shape[d]).collect(),
            strides: dims.iter().map(|&d| s1.strides[d]).collect(),
        }
    }

    /// Strides over the result dims: self's (or `t`'s, of self's shape) at self dims, 0 at
    /// space dims; and the host index's (row-major over the space) at space dims.
    fn result_strides(&self, self_strides: &[isize]) -> (Strides, Strides) {
        let space = contiguous_strides(&self.space);
        let mut j = 0;
        let mut a = Strides::new();
        let mut h = Strides::new();
        for f in &self.from_self {
            match f {
                Some(d) => {
                    a.push(self_strides[*d]);
                    h.push(0);
                }
                None => {
                    a.push(0);
                    h.push(space[j]);
                    j += 1;
                }
            }
        }
        (a, h)
    }
}

/// The list parameter `indices` at bindings `first..first + n`.
fn index_list(first: usize, n: usize) -> ListParam {
    ListParam {
        output: false,
        ir_index: 1,
        any_index: 1,
        first,
        len: n,
    }
}

/// aclnnIndex: `out = self[indices]`.
pub fn index(self_: &TensorDesc, indices: &[&TensorDesc], out: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnIndex";
    ew::check_tensor("self", self_, INDEX_DTYPES)?;
    ew::check_tensor("out", out, INDEX_DTYPES)?;
    same_dtype("out", out, "self", self_)?;
    let s1 = as_1d(self_);
    let ix = indexing(API, "self", self_, indices)?;
    let want: Dims = if self_.rank() == 0 && ix.space.is_empty() {
        Dims::new()
    } else {
        ix.result.clone()
    };
    ew::check_result_shape("out", out, &want)?;
    let mut all: Vec<&TensorDesc> = vec![self_];
    all.extend_from_slice(indices);
    let mut b = bindings(&all, Some(out));
    let lists = vec![index_list(1, indices.len())];
    if out.is_empty() {
        let mut e = Executor::new(API, b, Nothing);
        e.lists = lists;
        return Ok(e);
    }
    apart(API, "self", self_, "out", out)?;
    for t in indices {
        apart(API, "indices", t, "out", out)?;
    }
    let out_at = b.outputs[0];
    let o1 = as_1d(out);
    let mut e = {
        let (src, host) = ix.result_strides(&s1.strides);
        let (src, host, shape, dst) = if want.len() != ix.result.len() {
            // A 0-d self taken whole: one element.
            (
                smallvec::smallvec![0],
                smallvec::smallvec![0],
                smallvec::smallvec![1],
                o1.strides.clone(),
            )
        } else {
            (src, host, ix.result.clone(), out.strides.clone())
        };
        let plan = Plan {
            parallel: shape.len(),
            shape,
            dst: Walk::new(out_at, &o1, dst),
            values: Values::Tensor(Walk::new(0, &s1, src)),
            index: Index {
                source: IndexSource::Host {
                    values: Vec::new(),
                    strides: host,
                },
                side: Side::Source,
                axis: ix.axis(&s1),
                wrap: false,
                skip_outside: false,
                name: "indices",
                target: "self".into(),
            },
            dtype: self_.dtype,
            reduce: Reduce::Copy,
        };
        let tuple = ix.tuple(&s1, indices, 1);
        TupleWork::executor(API, std::mem::take(&mut b), tuple, plan, None)
    };
    e.lists = lists;
    Ok(e)
}

/// aclnnIndexPutImpl: `selfRef[indices] = values` (accumulate: `+=`). `unsafe` only asks
/// the device to skip its range check: indices are always checked here.
pub fn index_put_impl(
    self_ref: &TensorDesc,
    indices: &[&TensorDesc],
    values: &TensorDesc,
    accumulate: bool,
    _unsafe: bool,
) -> Result<Executor> {
    const API: &str = "aclnnIndexPutImpl";
    ew::check_tensor("selfRef", self_ref, INDEX_PUT)?;
    ew::check_tensor("values", values, INDEX_PUT)?;
    same_dtype("values", values, "selfRef", self_ref)?;
    let s1 = as_1d(self_ref);
    let ix = indexing(API, "selfRef", self_ref, indices)?;
    crate::ensure!(
        crate::broadcast::broadcasts_to(&values.shape, &ix.result),
        "values {:?} does not broadcast to the indexed result {:?} (the indices' broadcast shape {:?} with selfRef's other dims)",
        values.shape,
        ix.result,
        ix.space
    );
    let mut all: Vec<&TensorDesc> = vec![self_ref];
    all.extend_from_slice(indices);
    all.push(values);
    let mut b = bindings(&all, None);
    let lists = vec![index_list(1, indices.len())];
    let points: usize = ix.result.iter().product();
    if self_ref.is_empty() || points == 0 || values.is_empty() {
        let mut e = Executor::new(API, b, Nothing);
        e.lists = lists;
        return Ok(e);
    }
    self_ref.check_output("selfRef")?;
    apart(API, "values", values, "selfRef", self_ref)?;
    for t in indices {
        apart(API, "indices", t, "selfRef", self_ref)?;
    }
    let values_at = 1 + indices.len();
    let mut e = {
        let (dst, host) = ix.result_strides(&s1.strides);
        let vals = crate::engine::broadcast_strides(&ix.result, &values.shape, &values.strides);
        // Self's own dims first (split across threads: two points there never meet), the
        // space's last, in order (duplicates combine as a sequential loop would).
        let order: Vec<usize> = (0..ix.result.len())
            .filter(|&j| ix.from_self[j].is_some())
            .chain((0..ix.result.len()).filter(|&j| ix.from_self[j].is_none()))
            .collect();
        let pick = |s: &[isize]| -> Strides { order.iter().map(|&j| s[j]).collect() };
        let own = ix.from_self.iter().filter(|f| f.is_some()).count();
        let plan = Plan {
            shape: order.iter().map(|&j| ix.result[j]).collect(),
            parallel: own,
            dst: Walk::new(0, &s1, pick(&dst)),
            values: Values::Tensor(Walk::new(values_at, values, pick(&vals))),
            index: Index {
                source: IndexSource::Host {
                    values: Vec::new(),
                    strides: pick(&host),
                },
                side: Side::Destination,
                axis: ix.axis(&s1),
                wrap: false,
                skip_outside: false,
                name: "indices",
                target: "selfRef".into(),
            },
            dtype: self_ref.dtype,
            reduce: if accumulate {
                Reduce::Add
            } else {
                Reduce::Copy
            },
        };
        let mut tuple = ix.tuple(&s1, indices, 1);
        tuple.target = "the indexed dims of selfRef";
        TupleWork::executor(API, std::mem::take(&mut b), tuple, plan, None)
    };
    e.lists = lists;
    Ok(e)
}

/// aclnnInplacePut: `selfRef.flatten()[index] = source` (accumulate: `+=`), index and
/// source read in row-major order; negative indices count from the end (torch.put_).
pub fn inplace_put(
    self_ref: &TensorDesc,
    index: &TensorDesc,
    source: &TensorDesc,
    accumulate: bool,
) -> Result<Executor> {
    const API: &str = "aclnnInplacePut";
    ew::check_tensor("selfRef", self_ref, PUT)?;
    ew::check_tensor("index", index, INDEX)?;
    same_dtype("source", source, "selfRef", self_ref)?;
    ew::check_tensor("source", source, PUT)?;
    crate::ensure!(
        source.numel() == index.numel(),
        "source has {} elements and index {}: they must have as many",
        source.numel(),
        index.numel()
    );
    crate::ensure!(
        !self_ref.is_empty() || index.is_empty(),
        "selfRef is empty but index has {} elements",
        index.numel()
    );
    let b = bindings(&[self_ref, index, source], None);
    if index.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    self_ref.check_output("selfRef")?;
    apart(API, "source", source, "selfRef", self_ref)?;
    apart(API, "index", index, "selfRef", self_ref)?;
    let (s1, i1, src) = (as_1d(self_ref), as_1d(index), as_1d(source));
    let n = src.numel();
    let plan = Plan {
        shape: src.shape.clone(),
        // Any two points may meet: in order, on one thread.
        parallel: 0,
        dst: Walk::new(0, &s1, smallvec::smallvec![0; src.rank()]),
        values: Values::Tensor(Walk::new(2, &src, src.strides.clone())),
        index: Index {
            source: IndexSource::Host {
                values: Vec::new(),
                strides: contiguous_strides(&src.shape),
            },
            side: Side::Destination,
            axis: Axis::Flat {
                shape: s1.shape.clone(),
                strides: s1.strides.clone(),
            },
            wrap: false,
            skip_outside: false,
            name: "index",
            target: "selfRef".into(),
        },
        dtype: self_ref.dtype,
        reduce: if accumulate {
            Reduce::Add
        } else {
            Reduce::Copy
        },
    };
    let tuple = Tuple {
        coords: vec![Coordinate {
            binding: 1,
            dtype: index.dtype,
            offset: i1.offset,
            shape: i1.shape.clone(),
            strides: i1.strides.clone(),
            size: self_ref.numel(),
            name: "index".into(),
        }],
        points: n,
        range: Range::Wrapping,
        target: "the elements of selfRef",
    };
    Ok(TupleWork::executor(API, b, tuple, plan, None))
}

/// IndexFill's work: the index read and filtered at phase 2, then `out = self` (out of
/// place) and the fill along `ax`.
struct FillWork {
    dst: TensorDesc,
    ax: usize,
    value: Scalar,
    before: Option<Sequence>,
}

impl Work for FillWork {
    fn workspace_size(&self) -> u64 {
        self.before.as_ref().map_or(0, |s| s.workspace_size())
    }
    fn check(&self, b: &Bindings) -> Result<()> {
        self.before.as_ref().map_or(Ok(()), |s| s.check(b))
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let n = as_1d(&self.dst).shape[self.ax] as i64;
        // aclnnIndexFill.md: negatives count from the end, values out of range are skipped.
        let index = b.view(1)?;
        let kept: Vec<i64> = read_ints(
            b,
            1,
            index.dtype,
            index.offset,
            &index.shape,
            &index.strides,
        )?
        .into_iter()
        .filter_map(|v| {
            let w = if v < 0 { v + n } else { v };
            (0..n).contains(&w).then_some(w)
        })
        .collect();
        if let Some(s) = &self.before {
            s.run(b, ws)?;
        }
        if kept.is_empty() {
            return Ok(());
        }
        let mut shape = as_1d(&self.dst).shape.clone();
        shape[self.ax] = kept.len();
        let mut idx: Strides = smallvec::smallvec![0; shape.len()];
        idx[self.ax] = 1;
        let plan = scatter_plan(
            &self.dst,
            b.outputs[0],
            self.ax,
            &shape,
            Values::Constant(self.value),
            None,
            IndexSource::Host {
                values: kept,
                strides: idx,
            },
            None,
            Reduce::Copy,
            ("index", String::new()),
        );
        plan.execute(b)
    }
}

/// aclnnIndexFill and aclnnInplaceIndexFill (out None).
fn index_fill_rule(
    api: &'static str,
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    value: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    ew::check_tensor(self_name, self_, INDEX_FILL)?;
    ew::check_tensor("index", index, INDEX)?;
    crate::ensure!(
        !value.dtype.is_complex(),
        "value has dtype {}: a complex value is not supported",
        value.dtype
    );
    if let Some(o) = out {
        same_dtype("out", o, self_name, self_)?;
        same_shape("out", o, self_name, self_)?;
    }
    let ax = ew::axis("dim", dim, self_.rank().max(1), self_name)?;
    let b = bindings(&[self_, index], out);
    if self_.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    let dst = out.unwrap_or(self_);
    dst.check_output(if out.is_some() { "out" } else { "selfRef" })?;
    apart(api, "index", index, "the output", dst)?;
    let before = match out {
        Some(o) => Some(copy_step(api, &b, self_, 0, o)?),
        None => None,
    };
    Ok(Executor::new(
        api,
        b,
        FillWork {
            dst: dst.clone(),
            ax,
            value: value.cast(self_.dtype),
            before,
        },
    ))
}

/// aclnnIndexFill.
pub fn index_fill(
    self_: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    value: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    index_fill_rule("aclnnIndexFill", self_, dim, index, value, Some(out))
}

/// aclnnInplaceIndexFill.
pub fn inplace_index_fill(
    self_ref: &TensorDesc,
    dim: i64,
    index: &TensorDesc,
    value: &Scalar,
) -> Result<Executor> {
    index_fill_rule("aclnnInplaceIndexFill", self_ref, dim, index, value, None)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Index",
        a: INDEX_DTYPES,
        b: INDEX,
        out: INDEX_DTYPES,
        rule: "self[indices] (PyTorch advanced indexing; b: indices, negatives wrap, checked at run time)",
    },
    Entry {
        ops: "IndexPutImpl",
        a: INDEX_PUT,
        b: INDEX,
        out: INDEX_PUT,
        rule: "selfRef[indices] = values, or += with accumulate (in index order)",
    },
    Entry {
        ops: "InplacePut",
        a: PUT,
        b: INDEX,
        out: PUT,
        rule: "selfRef.flatten()[index] = source, or += with accumulate (negatives wrap)",
    },
    Entry {
        ops: "IndexFill, InplaceIndexFill",
        a: INDEX_FILL,
        b: INDEX,
        out: INDEX_FILL,
        rule: "out = self; out[.., index[i], ..] = value (negatives wrap, out-of-range values skipped)",
    },
];
