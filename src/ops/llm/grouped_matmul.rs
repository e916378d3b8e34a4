//! GroupedMatmulV3 (CANN aclnnGroupedMatmulV3, ops-transformer gmm/grouped_matmul): g
//! products `y_i = x_i @ weight_i (+ bias_i)` in one call, the expert layer of MoE models.
//! Its non-quantized mode on Atlas A2, with the checks of CANN's op_api in its order:
//!
//! - x, weight, y are tensor lists of at most 128 members; x, weight, y (and bias) of one
//!   dtype, F16, BF16 or F32; bias F32 with a BF16 x, else x's dtype.
//! - groupType -1 (no split): x, weight, y lists of g members, x_i (…, k) with 2-6 dims,
//!   weight_i (k, n), y_i (…, n); splitItem 0/1; no groupList.
//! - groupType 0 (split m): splitItem 2/3 and one y (m, n), with one x (m, k) and one weight
//!   (e, k, n) or e weights (k, n) (groupList required: e cumulative row ends, int64), or
//!   e x_i (m_i, k) and e weights (groupList optional, then it must match the x_i).
//! - groupType 2 (split k): one x (m, k) stored transposed (strides [1, m]), one weight
//!   (k, n), one y (e, m, n), groupList of e cumulative k ends; no bias.
//! - Weight transposed (strides [1, k] over a (k, n) view) is accepted for every member;
//!   any other view works too (the GEMM takes strides), x transposed only for split k.
//!
//! groupList lives in device memory and is read at phase 2: its values must be
//! non-decreasing, non-negative and at most the split dim (m or k), else the run fails with
//! a message naming the entry; nothing is written then. Rows of y (split m) past the last
//! value belong to no group and are not written (CANN leaves them undefined).
//!
//! Numbers: each group's product accumulates in f32 on the GEMM (f16/bf16 widen exactly),
//! the bias is added in f32 and the sum rounded once to y: within (k+1)·2^-24 of the f64
//! product relative to Σ|x·w| + |bias|, plus half an ulp of y's dtype. An empty k gives
//! the bias (or zeros).
//!
//! Not implemented, refused with ACLNN_ERR_PARAM_INVALID naming them: the quantized
//! (scaleOptional, offsetOptional, int8 x and weight) and pseudo-quantized
//! (antiquantScaleOptional, antiquantOffsetOptional, int8 weight) modes, FRACTAL_NZ
//! weights, and split k with separated weight or y (which CANN's checks leave undefined).

use super::dense::{bindings, load, load_view, store_view};
use super::linalg::product_f32;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, ListParam, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
pub(crate) const FLOATS: &[DType] = &[F16, BF16, F32];
const API: &str = "aclnnGroupedMatmulV3";
/// Longest tensor list (CANN's MAX_GROUP_LIST_SIZE_ARRAY).
const MAX_LIST: usize = 128;
/// Longest groupList tensor.
const MAX_GROUP_LIST: usize = 1024;
/// k (and n of a weight not transposed) are at most this.
const MAX_INNER: usize = 65535;

/// groupType values.
const NO_SPLIT: i64 = -1;
const SPLIT_M: i64 = 0;
const SPLIT_N: i64 = 1;
const SPLIT_K: i64 = 2;

/// The layout of the call, fixed at phase 1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    /// g separate x, weight, y (groupType -1).
    Separate,
    /// One x, one weight (e, k, n), one y; rows from groupList.
    RowsOneWeight,
    /// One x, e weights, one y; rows from groupList.
    RowsWeights,
    /// e x, e weights, one y; rows from the x_i (groupList, when given, checked against them).
    RowsXs,
    /// One x (m, k), one weight (k, n), one y (e, m, n); k ranges from groupList.
    Cols,
}

/// Whether the last two dims are stored transposed (CANN's IsTransposeLastTwoDims: strides
/// [.., 1, rows] with the batch dims dense above them).
fn transposed(t: &TensorDesc) -> bool {
    let r = t.rank();
    if r < 2 {
        return false;
    }
    if t.strides[r - 2] != 1 || t.strides[r - 1] != t.shape[r - 2] as isize {
        return false;
    }
    let mut span = t.shape[r - 1] * t.shape[r - 2];
    for d in (0..r - 2).rev() {
        if t.strides[d] != span as isize {
            return false;
        }
        span *= t.shape[d];
    }
    true
}

/// `transposed` over a list, ignoring members whose last two dims hold one element (which
/// look transposed under any strides; CANN's CheckSpecialTranspose).
fn list_transposed(list: &[&TensorDesc]) -> bool {
    list.iter().any(|t| {
        let r = t.rank();
        let last: usize = t.shape[r.saturating_sub(2)..].iter().product();
        transposed(t) && last != 1
    })
}

/// An optional list CANN treats as absent: NULL, empty, or one 1-D empty tensor.
fn present<'a>(list: Option<&'a [&'a TensorDesc]>) -> Option<&'a [&'a TensorDesc]> {
    list.filter(|l| !(l.is_empty() || l.len() == 1 && l[0].shape[..] == [0]))
}

/// aclnnGroupedMatmulV3.
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_v3(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    scale: Option<&[&TensorDesc]>,
    offset: Option<&[&TensorDesc]>,
    antiquant_scale: Option<&[&TensorDesc]>,
    antiquant_offset: Option<&[&TensorDesc]>,
    group_list: Option<&TensorDesc>,
    split_item: i64,
    group_type: i64,
    y: &[&TensorDesc],
) -> Result<Executor> {
    for (name, l) in [("x", x), ("weight", weight), ("y", y)] {
        crate::ensure!(
            !l.is_empty(),
            "{API}: {name} must not be an empty tensor list"
        );
    }
    crate::ensure!(
        group_type != SPLIT_N,
        "{API}: groupType 1 (split n) is not supported; groupType must be -1, 0 or 2"
    );
    crate::ensure!(
        matches!(group_type, NO_SPLIT | SPLIT_M | SPLIT_K),
        "{API}: groupType is {group_type}; it must be -1 (no split), 0 (split m) or 2 (split k)"
    );
    crate::ensure!(
        (0..=3).contains(&split_item),
        "{API}: splitItem is {split_item}; it must be 0, 1 (y separated), 2 or 3 (y one tensor)"
    );
    crate::ensure!(
        !(split_item >= 2 && group_type == NO_SPLIT),
        "{API}: splitItem {split_item} (one y) needs a split: groupType cannot be -1"
    );
    if let Some(g) = group_list {
        crate::ensure!(
            g.rank() == 1,
            "{API}: groupListOptional has {} dims ({:?}); it must have 1",
            g.rank(),
            g.shape
        );
    }
    let bias = present(bias);
    for (name, l) in [
        ("scaleOptional", scale),
        ("offsetOptional", offset),
        ("antiquantScaleOptional", antiquant_scale),
        ("antiquantOffsetOptional", antiquant_offset),
    ] {
        crate::ensure!(
            present(l).is_none(),
            "{API}: {name} is given: the quantized and pseudo-quantized modes are not implemented by aclnn-cpu (only the non-quantized one, with {name} NULL)"
        );
    }
    check_dtypes(x, weight, bias, y)?;
    for (name, l) in [("x", x), ("weight", weight), ("y", y)] {
        for (i, t) in l.iter().enumerate() {
            crate::ensure!(
                !(name == "weight" && t.nz().is_some()),
                "{API}: weight[{i}] has format FRACTAL_NZ, which aclnn-cpu does not implement here (use ND)"
            );
            crate::ensure!(
                t.format.is_public(),
                "{API}: {name}[{i}] has format {}; it must be ND",
                t.format
            );
        }
    }
    for (i, t) in y.iter().enumerate() {
        t.check_output(&format!("y[{i}]"))?;
    }
    let (tx, tw) = if group_type == SPLIT_K {
        (transposed(x[0]), list_transposed(weight))
    } else {
        (list_transposed(x), transposed(weight[0]))
    };
    crate::ensure!(!(tx && tw), "{API}: x and weight cannot both be transposed");
    let layout = match group_type {
        NO_SPLIT => check_no_split(x, weight, y, group_list, split_item, tx, tw)?,
        SPLIT_M => check_split_m(x, weight, y, group_list, split_item, tx, tw)?,
        _ => {
            crate::ensure!(
                bias.is_none(),
                "{API}: biasOptional must be NULL with groupType 2 (split k)"
            );
            check_split_k(x, weight, y, group_list)?
        }
    };
    let groups = match layout {
        Layout::Separate | Layout::RowsWeights | Layout::RowsXs => weight.len(),
        Layout::RowsOneWeight => weight[0].shape[0],
        Layout::Cols => y[0].shape[0],
    };
    if let Some(b) = bias {
        check_bias(b, weight, layout, groups)?;
    }
    crate::ensure!(
        x.len() <= MAX_LIST && weight.len() <= MAX_LIST,
        "{API}: x has {} and weight {} tensors; a list holds at most {MAX_LIST}",
        x.len(),
        weight.len()
    );
    // Bindings: x, weight, bias lists, groupList, then y.
    let mut inputs: Vec<Option<&TensorDesc>> = x.iter().chain(weight).map(|t| Some(*t)).collect();
    inputs.extend(bias.unwrap_or(&[]).iter().map(|t| Some(*t)));
    inputs.push(group_list);
    let outputs: Vec<Option<&TensorDesc>> = y.iter().map(|t| Some(*t)).collect();
    let n_bias = bias.map_or(0, |b| b.len());
    let mut e = Executor::new(
        API,
        bindings(&inputs, &outputs),
        Grouped {
            layout,
            groups,
            n_x: x.len(),
            n_w: weight.len(),
            n_bias,
            has_group_list: group_list.is_some(),
        },
    );
    // The lists aclSetDynamic*TensorAddr re-points: x, weight, bias are inputs 0-2 of the
    // prototype's 8 (groupList is the 8th), y output 0.
    let list =
        |output: bool, ir_index: usize, any_index: usize, first: usize, len: usize| ListParam {
            output,
            ir_index,
            any_index,
            first,
            len,
        };
    e.lists = vec![
        list(false, 0, 0, 0, x.len()),
        list(false, 1, 1, x.len(), weight.len()),
        list(false, 2, 2, x.len() + weight.len(), n_bias),
        list(true, 0, 8, x.len() + weight.len() + n_bias + 1, y.len()),
    ];
    Ok(e)
}

/// The non-quantized dtype rule: x, weight and y of one float dtype, bias F32 for BF16.
fn check_dtypes(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    y: &[&TensorDesc],
) -> Result<()> {
    let (xd, wd) = (x[0].dtype, weight[0].dtype);
    crate::ensure!(
        !(matches!(xd, S8 | F16 | BF16) && wd == S8),
        "{API}: x of dtype {xd} with weight of dtype {wd} is the quantized or pseudo-quantized mode, which aclnn-cpu does not implement"
    );
    crate::ensure!(
        FLOATS.contains(&xd) && xd == wd,
        "{API}: x has dtype {xd} and weight {wd}; the non-quantized mode takes both FLOAT16, BFLOAT16 or FLOAT32"
    );
    let bias_dtype = if xd == BF16 { F32 } else { xd };
    let lists = [("x", x, xd), ("weight", weight, xd), ("y", y, xd)];
    for (name, l, want) in lists
        .into_iter()
        .chain(bias.map(|b| ("biasOptional", b, bias_dtype)))
    {
        for (i, t) in l.iter().enumerate() {
            crate::ensure!(
                t.dtype == want,
                "{API}: {name}[{i}] has dtype {}; with x of dtype {xd} it must be {want}",
                t.dtype
            );
        }
    }
    Ok(())
}

/// The dims of `t` must number `want`.
fn rank_is(name: &str, i: usize, t: &TensorDesc, want: usize) -> Result<()> {
    crate::ensure!(
        t.rank() == want,
        "{API}: {name}[{i}] has {} dims ({:?}); it must have {want} here",
        t.rank(),
        t.shape
    );
    Ok(())
}

/// Every weight transposed alike.
fn same_transpose(weight: &[&TensorDesc], tw: bool) -> Result<()> {
    let state = |t: bool| if t { "transposed" } else { "not transposed" };
    for (i, w) in weight.iter().enumerate() {
        crate::ensure!(
            transposed(w) == tw,
            "{API}: weight[{i}] is {} but weight[0] is {}: every weight must be stored alike (a (1, 1) matrix counts as transposed, as on the device)",
            state(!tw),
            state(tw)
        );
    }
    Ok(())
}

/// The inner (contiguous) dim `v` of `what` must be at most 65535.
fn inner_ok(what: &str, v: usize) -> Result<()> {
    crate::ensure!(
        v <= MAX_INNER,
        "{API}: {what} is {v}; it must be at most {MAX_INNER}"
    );
    Ok(())
}

/// groupList must be given (when `required`), int64 and of `groups` entries (or any number
/// when groups is 1), at most 1024.
fn check_group_list(g: Option<&TensorDesc>, required: bool, groups: usize) -> Result<()> {
    let Some(g) = g else {
        crate::ensure!(
            !required,
            "{API}: groupListOptional is NULL but this layout needs it (the cumulative ends of the groups)"
        );
        return Ok(());
    };
    let len = g.shape[0];
    crate::ensure!(
        len >= 1,
        "{API}: groupListOptional is empty; for one group pass NULL"
    );
    crate::ensure!(
        len <= MAX_GROUP_LIST,
        "{API}: groupListOptional has {len} entries; at most {MAX_GROUP_LIST}"
    );
    crate::ensure!(
        len == groups,
        "{API}: groupListOptional has {len} entries but there are {groups} groups: they must be equal"
    );
    crate::ensure!(
        g.dtype == S64,
        "{API}: groupListOptional has dtype {}; it must be INT64",
        g.dtype
    );
    Ok(())
}

fn check_no_split(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    group_list: Option<&TensorDesc>,
    split_item: i64,
    tx: bool,
    tw: bool,
) -> Result<Layout> {
    crate::ensure!(!tx, "{API}: with groupType -1, x cannot be transposed");
    crate::ensure!(
        split_item <= 1,
        "{API}: with groupType -1 y is separated: splitItem must be 0 or 1, not {split_item}"
    );
    crate::ensure!(
        x.len() == y.len() && x.len() == weight.len(),
        "{API}: with groupType -1, x ({}), weight ({}) and y ({}) must have as many tensors",
        x.len(),
        weight.len(),
        y.len()
    );
    crate::ensure!(
        group_list.is_none(),
        "{API}: groupListOptional must be NULL when groupType is -1"
    );
    same_transpose(weight, tw)?;
    for i in 0..x.len() {
        let (xi, wi, yi) = (x[i], weight[i], y[i]);
        crate::ensure!(
            (2..=6).contains(&xi.rank()),
            "{API}: x[{i}] has {} dims; it must have 2 to 6",
            xi.rank()
        );
        rank_is("weight", i, wi, 2)?;
        crate::ensure!(
            yi.rank() == xi.rank(),
            "{API}: y[{i}] has {} dims but x[{i}] has {}: they must be equal",
            yi.rank(),
            xi.rank()
        );
        let r = xi.rank();
        crate::ensure!(
            xi.shape[..r - 1] == yi.shape[..r - 1],
            "{API}: y[{i}] {:?} and x[{i}] {:?} must agree in every dim but the last",
            yi.shape,
            xi.shape
        );
        let (k, n) = (wi.shape[0], wi.shape[1]);
        inner_ok(&format!("k of x[{i}]"), xi.shape[r - 1])?;
        crate::ensure!(
            xi.shape[r - 1] == k,
            "{API}: x[{i}] {:?} and weight[{i}] {:?} differ in k",
            xi.shape,
            wi.shape
        );
        if !tw {
            inner_ok(&format!("n of weight[{i}]"), n)?;
        }
        crate::ensure!(
            yi.shape[r - 1] == n,
            "{API}: y[{i}] {:?} and weight[{i}] {:?} differ in n",
            yi.shape,
            wi.shape
        );
    }
    Ok(Layout::Separate)
}

fn check_split_m(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    group_list: Option<&TensorDesc>,
    split_item: i64,
    tx: bool,
    tw: bool,
) -> Result<Layout> {
    crate::ensure!(
        !tx,
        "{API}: with groupType 0 (split m), x cannot be transposed"
    );
    let (nx, nw, ny) = (x.len(), weight.len(), y.len());
    crate::ensure!(
        ny == 1,
        "{API}: with groupType 0, y must be one tensor (x {nx}, weight {nw}, y {ny} tensors): separated y is not supported with a groupList tensor"
    );
    crate::ensure!(
        nx == 1 || nx == nw,
        "{API}: with groupType 0, x has {nx} tensors and weight {nw}: x must be one tensor or one per weight"
    );
    crate::ensure!(
        split_item >= 2,
        "{API}: y is one tensor: splitItem must be 2 or 3, not {split_item}"
    );
    for (i, t) in x.iter().enumerate() {
        rank_is("x", i, t, 2)?;
    }
    let w_rank = if nw == 1 && nx == 1 { 3 } else { 2 };
    for (i, t) in weight.iter().enumerate() {
        rank_is("weight", i, t, w_rank)?;
    }
    same_transpose(weight, tw)?;
    rank_is("y", 0, y[0], 2)?;
    let (kd, nd) = (w_rank - 2, w_rank - 1);
    let y0 = y[0];
    for (i, w) in weight.iter().enumerate() {
        let xi = x[i.min(nx - 1)];
        inner_ok(&format!("k of x[{}]", i.min(nx - 1)), xi.shape[1])?;
        crate::ensure!(
            w.shape[kd] == xi.shape[1],
            "{API}: weight[{i}] {:?} and x[{}] {:?} differ in k",
            w.shape,
            i.min(nx - 1),
            xi.shape
        );
        if !tw {
            inner_ok(&format!("n of weight[{i}]"), w.shape[nd])?;
        }
        crate::ensure!(
            w.shape[nd] == y0.shape[1],
            "{API}: weight[{i}] {:?} and y[0] {:?} differ in n",
            w.shape,
            y0.shape
        );
    }
    let rows: usize = x.iter().map(|t| t.shape[0]).sum();
    crate::ensure!(
        rows == y0.shape[0],
        "{API}: x has {rows} rows in all but y[0] {:?} has {}: they must be equal",
        y0.shape,
        y0.shape[0]
    );
    if nx == 1 && nw == 1 {
        check_group_list(group_list, true, weight[0].shape[0])?;
        Ok(Layout::RowsOneWeight)
    } else if nx == 1 {
        check_group_list(group_list, true, nw)?;
        Ok(Layout::RowsWeights)
    } else {
        check_group_list(group_list, false, nw)?;
        Ok(Layout::RowsXs)
    }
}

fn check_split_k(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    group_list: Option<&TensorDesc>,
) -> Result<Layout> {
    crate::ensure!(
        x.len() == 1,
        "{API}: with groupType 2 (split k), x must be one tensor, not {}",
        x.len()
    );
    crate::ensure!(
        weight.len() == 1 && y.len() == 1,
        "{API}: groupType 2 with weight of {} and y of {} tensors is not implemented by aclnn-cpu (only one weight and one y)",
        weight.len(),
        y.len()
    );
    let (x0, w0, y0) = (x[0], weight[0], y[0]);
    rank_is("x", 0, x0, 2)?;
    crate::ensure!(
        transposed(x0),
        "{API}: with groupType 2 and one x, x must be stored transposed (shape (m, k), strides [1, m]), but its strides are {:?}",
        x0.strides
    );
    rank_is("weight", 0, w0, 2)?;
    rank_is("y", 0, y0, 3)?;
    let (m, k, n) = (x0.shape[0], x0.shape[1], w0.shape[1]);
    inner_ok("m of x[0]", m)?;
    crate::ensure!(
        w0.shape[0] == k,
        "{API}: x[0] {:?} and weight[0] {:?} differ in k",
        x0.shape,
        w0.shape
    );
    crate::ensure!(
        y0.shape[1] == m,
        "{API}: x[0] {:?} and y[0] {:?} differ in m",
        x0.shape,
        y0.shape
    );
    inner_ok("n of weight[0]", n)?;
    crate::ensure!(
        y0.shape[2] == n,
        "{API}: weight[0] {:?} and y[0] {:?} differ in n",
        w0.shape,
        y0.shape
    );
    check_group_list(group_list, true, y0.shape[0])?;
    Ok(Layout::Cols)
}

/// bias: one (e, n) tensor for one weight (e, k, n), else one (n,) per weight.
fn check_bias(
    b: &[&TensorDesc],
    weight: &[&TensorDesc],
    layout: Layout,
    groups: usize,
) -> Result<()> {
    crate::ensure!(
        b.len() == weight.len(),
        "{API}: biasOptional has {} tensors but weight has {}: they must be equal",
        b.len(),
        weight.len()
    );
    for (i, (t, w)) in b.iter().zip(weight).enumerate() {
        let n = w.shape[w.rank() - 1];
        let want: Vec<usize> = if layout == Layout::RowsOneWeight {
            vec![groups, n]
        } else {
            vec![n]
        };
        crate::ensure!(
            t.shape[..] == want[..],
            "{API}: biasOptional[{i}] has shape {:?}; it must be {want:?}",
            t.shape
        );
    }
    Ok(())
}

struct Grouped {
    layout: Layout,
    groups: usize,
    n_x: usize,
    n_w: usize,
    n_bias: usize,
    has_group_list: bool,
}

/// One product of a run: the views of x (…, k), weight (k, n), y (…, n) and bias (n) it
/// reads and writes, with their bindings.
struct Job {
    x: (usize, TensorDesc),
    w: (usize, TensorDesc),
    y: (usize, TensorDesc),
    bias: Option<(usize, TensorDesc)>,
}

impl Grouped {
    fn x_binding(&self, i: usize) -> usize {
        i
    }
    fn w_binding(&self, i: usize) -> usize {
        self.n_x + i
    }
    fn bias_binding(&self, i: usize) -> Option<usize> {
        (self.n_bias > 0).then_some(self.n_x + self.n_w + i)
    }
    fn group_list_binding(&self) -> usize {
        self.n_x + self.n_w + self.n_bias
    }
    fn y_binding(&self, i: usize) -> usize {
        self.group_list_binding() + 1 + i
    }

    /// The groupList's cumulative ends, checked against `limit` (the split dim's size).
    fn ends(&self, t: &Bindings, limit: usize, dim: &str) -> Result<Option<Vec<usize>>> {
        if !self.has_group_list {
            return Ok(None);
        }
        let v = load::<i64>(t, self.group_list_binding(), &[self.groups])?;
        let mut prev = 0i64;
        let mut ends = Vec::with_capacity(v.len());
        for (i, &e) in v.iter().enumerate() {
            if e < prev || e as u64 > limit as u64 {
                return Err(Error::Invalid(format!(
                    "{API}: groupListOptional[{i}] is {e}; the values must be non-decreasing, non-negative cumulative ends of at most {dim} = {limit} (previous {prev})"
                )));
            }
            prev = e;
            ends.push(e as usize);
        }
        Ok(Some(ends))
    }

    /// The products of this run (groupList read and checked first).
    fn jobs(&self, t: &Bindings) -> Result<Vec<Job>> {
        let view = |b: usize| -> Result<(usize, TensorDesc)> { Ok((b, t.view(b)?.clone())) };
        let mut jobs = Vec::with_capacity(self.groups);
        match self.layout {
            Layout::Separate => {
                for i in 0..self.groups {
                    jobs.push(Job {
                        x: view(self.x_binding(i))?,
                        w: view(self.w_binding(i))?,
                        y: view(self.y_binding(i))?,
                        bias: self.bias_binding(i).map(view).transpose()?,
                    });
                }
            }
            Layout::RowsOneWeight | Layout::RowsWeights | Layout::RowsXs => {
                let y = view(self.y_binding(0))?;
                let m = y.1.shape[0];
                let ends = self.ends(t, m, "m")?;
                let mut start = 0;
                for g in 0..self.groups {
                    let (x, rows) = if self.layout == Layout::RowsXs {
                        let x = view(self.x_binding(g))?;
                        let rows = x.1.shape[0];
                        if let Some(e) = &ends {
                            if e[g] != start + rows {
                                return Err(Error::Invalid(format!(
                                    "{API}: groupListOptional[{g}] is {} but x[{g}] has {rows} rows after {start}: it must be {}",
                                    e[g],
                                    start + rows
                                )));
                            }
                        }
                        (x, rows)
                    } else {
                        let end = ends.as_ref().expect("required at phase 1")[g];
                        let (b, v) = view(self.x_binding(0))?;
                        ((b, v.narrowed(0, start, end - start)), end - start)
                    };
                    let (w, bias) = if self.layout == Layout::RowsOneWeight {
                        let (b, v) = view(self.w_binding(0))?;
                        let bias = self
                            .bias_binding(0)
                            .map(|bb| view(bb).map(|(bb, bv)| (bb, bv.selected(0, g))))
                            .transpose()?;
                        ((b, v.selected(0, g)), bias)
                    } else {
                        (
                            view(self.w_binding(g))?,
                            self.bias_binding(g).map(view).transpose()?,
                        )
                    };
                    jobs.push(Job {
                        x,
                        w,
                        y: (y.0, y.1.narrowed(0, start, rows)),
                        bias,
                    });
                    start += rows;
                }
            }
            Layout::Cols => {
                let (xb, xv) = view(self.x_binding(0))?;
                let (wb, wv) = view(self.w_binding(0))?;
                let (yb, yv) = view(self.y_binding(0))?;
                let ends = self
                    .ends(t, xv.shape[1], "k")?
                    .expect("required at phase 1");
                let mut start = 0;
                for (g, &end) in ends.iter().enumerate() {
                    jobs.push(Job {
                        x: (xb, xv.narrowed(1, start, end - start)),
                        w: (wb, wv.narrowed(0, start, end - start)),
                        y: (yb, yv.selected(0, g)),
                        bias: None,
                    });
                    start = end;
                }
            }
        }
        Ok(jobs)
    }
}

impl Work for Grouped {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        // Every check first: a bad groupList writes nothing.
        let jobs = self.jobs(t)?;
        for job in &jobs {
            let (xb, xv) = &job.x;
            let (wb, wv) = &job.w;
            let (yb, yv) = &job.y;
            let (k, n) = (wv.shape[0], wv.shape[1]);
            if n == 0 || yv.numel() == 0 {
                continue;
            }
            // x (…, k) and y (…, n) hold the same rows.
            let m = yv.numel() / n;
            let mut out = vec![0f32; m * n];
            if k > 0 {
                let a = load_view::<f32>(t, *xb, xv, &xv.shape)?;
                let b = load_view::<f32>(t, *wb, wv, &[k, n])?;
                product_f32(m, n, k, &a, (k as isize, 1), &b, (n as isize, 1), &mut out);
            }
            if let Some((bb, bv)) = &job.bias {
                let bias = load_view::<f32>(t, *bb, bv, &[n])?;
                for row in out.chunks_mut(n) {
                    for (v, b) in row.iter_mut().zip(&bias) {
                        *v += b;
                    }
                }
            }
            store_view(t, *yb, yv, &out)?;
        }
        Ok(())
    }
}
