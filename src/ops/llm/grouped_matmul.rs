//! GroupedMatmul, V2, V3, V4, V5 and WeightNz (CANN aclnnGroupedMatmul*, ops-transformer
//! gmm/grouped_matmul), one rule with each version's parameters:
//! - V1 and V2 take the groupList as a host aclIntArray of cumulative ends, checked at
//!   phase 1 (non-decreasing from 0, at most 128 entries; its last value is m, or k for
//!   split k; with separated x or y its steps are their rows), and then also allow one x,
//!   e weights and e separated y (splitItem 0/1). V1 has no groupType: it is -1 when x
//!   and y are both lists (or x, weight, y each one tensor), else 0; V1 refuses FLOAT32,
//!   one weight with several x or y, and transposed weights when everything is separated.
//! - V4, V5 and WeightNz add groupListType (0: cumulative ends, 1: group sizes, both read
//!   at phase 2; 2, the sparse (e, 2) form, refused as not implemented) and actType (0 to
//!   5 but not 3; the non-quantized mode takes only 0, as on the device), and
//!   perTokenScale / activation inputs and outputs that must be absent (quantized modes).
//!   V5's tuningConfigOptional is a tiling hint and ignored; so is WeightNz's
//!   quantGroupSize (per-group quantization only).
//! - WeightNz takes FRACTAL_NZ FLOAT16/BFLOAT16 weights, (k, n) multiples of 16 (the
//!   device's alignment), groupType -1 or 0; other versions refuse NZ weights.
//! - out/y's aclSetDynamicTensorAddr irIndex counts the prototype's tensor parameters
//!   before it (7 for V1/V2, 8 for V3, 12 for V4 on).
//!
//! The shared rule, GroupedMatmulV3's (aclnnGroupedMatmulV3): g
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
use crate::engine::convert;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, ListParam, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
pub(crate) const FLOATS: &[DType] = &[F16, BF16, F32];
/// GroupedMatmul (V1) and WeightNz take no FLOAT32.
pub(crate) const HALVES: &[DType] = &[F16, BF16];
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
    /// One x, e weights, e y (V1/V2's host groupList only); rows from groupList, which
    /// must step by the y_i's rows.
    RowsYs,
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

/// Which entry point a call comes from: the rules that differ between CANN's versions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Api {
    V1,
    V2,
    V3,
    V4,
    V5,
    WeightNz,
}

/// A version's groupList argument.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GroupList<'a> {
    /// A device INT64 tensor, read at phase 2 (V3, V4, V5, WeightNz).
    Tensor(Option<&'a TensorDesc>),
    /// A host aclIntArray of cumulative ends (V1, V2), checked at phase 1.
    Host(Option<&'a [i64]>),
}

/// The parameters one version adds to the shared rule.
pub(crate) struct Version<'a> {
    pub api: Api,
    /// The entry point, for messages ("aclnnGroupedMatmulV4").
    pub name: &'static str,
    pub group_list: GroupList<'a>,
    /// 0: groupList holds cumulative ends; 1: group sizes (V4, V5, WeightNz).
    pub group_list_type: i64,
    /// The tensor parameters before y/out in the prototype (aclSetDynamicTensorAddr's
    /// irIndex of out): 7 for V1/V2 (their groupList is an aclIntArray), 8 for V3, 12 after.
    pub out_any_index: usize,
}

impl Version<'_> {
    fn tensor_list(&self) -> Option<&TensorDesc> {
        match self.group_list {
            GroupList::Tensor(t) => t,
            GroupList::Host(_) => None,
        }
    }
    fn host_list(&self) -> Option<&[i64]> {
        match self.group_list {
            GroupList::Host(h) => h,
            GroupList::Tensor(_) => None,
        }
    }
    fn has_group_list(&self) -> bool {
        self.tensor_list().is_some() || self.host_list().is_some()
    }
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
    let v = Version {
        api: Api::V3,
        name: "aclnnGroupedMatmulV3",
        group_list: GroupList::Tensor(group_list),
        group_list_type: 0,
        out_any_index: 8,
    };
    grouped_matmul(
        &v,
        x,
        weight,
        bias,
        [
            ("scaleOptional", scale),
            ("offsetOptional", offset),
            ("antiquantScaleOptional", antiquant_scale),
            ("antiquantOffsetOptional", antiquant_offset),
        ],
        split_item,
        group_type,
        y,
    )
}

/// The rule every version shares, with `quant` the quantization parameters (which must
/// be absent).
#[allow(clippy::too_many_arguments)]
pub(crate) fn grouped_matmul<const Q: usize>(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    quant: [(&str, Option<&[&TensorDesc]>); Q],
    split_item: i64,
    group_type: i64,
    y: &[&TensorDesc],
) -> Result<Executor> {
    let api = v.name;
    for (name, l) in [("x", x), ("weight", weight), ("y", y)] {
        crate::ensure!(
            !l.is_empty(),
            "{api}: {name} must not be an empty tensor list"
        );
    }
    crate::ensure!(
        group_type != SPLIT_N,
        "{api}: groupType 1 (split n) is not supported; groupType must be -1, 0 or 2"
    );
    crate::ensure!(
        matches!(group_type, NO_SPLIT | SPLIT_M | SPLIT_K),
        "{api}: groupType is {group_type}; it must be -1 (no split), 0 (split m) or 2 (split k)"
    );
    crate::ensure!(
        (0..=3).contains(&split_item),
        "{api}: splitItem is {split_item}; it must be 0, 1 (y separated), 2 or 3 (y one tensor)"
    );
    crate::ensure!(
        !(split_item >= 2 && group_type == NO_SPLIT),
        "{api}: splitItem {split_item} (one y) needs a split: groupType cannot be -1"
    );
    if let Some(g) = v.tensor_list() {
        crate::ensure!(
            g.rank() == 1,
            "{api}: groupListOptional has {} dims ({:?}); it must have 1",
            g.rank(),
            g.shape
        );
    }
    let bias = present(bias);
    for (name, l) in quant {
        crate::ensure!(
            present(l).is_none(),
            "{api}: {name} is given: the quantized and pseudo-quantized modes are not implemented by aclnn-cpu (only the non-quantized one, with {name} NULL)"
        );
    }
    check_dtypes(v, x, weight, bias, y)?;
    let nz = v.api == Api::WeightNz;
    for (name, l) in [("x", x), ("weight", weight), ("y", y)] {
        for (i, t) in l.iter().enumerate() {
            if name == "weight" && nz {
                check_nz_weight(api, i, t)?;
                continue;
            }
            crate::ensure!(
                !(name == "weight" && t.nz().is_some()),
                "{api}: weight[{i}] has format FRACTAL_NZ, which this entry point does not take (use ND here, or aclnnGroupedMatmulWeightNz)"
            );
            crate::ensure!(
                t.format.is_public(),
                "{api}: {name}[{i}] has format {}; it must be ND",
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
    crate::ensure!(!(tx && tw), "{api}: x and weight cannot both be transposed");
    crate::ensure!(
        !(nz && group_type == SPLIT_K),
        "{api}: groupType 2 (split k) is not supported with FRACTAL_NZ weights; groupType must be -1 or 0"
    );
    let layout = match group_type {
        NO_SPLIT => check_no_split(v, x, weight, y, split_item, tx, tw)?,
        SPLIT_M => check_split_m(v, x, weight, y, split_item, tx, tw)?,
        _ => {
            crate::ensure!(
                bias.is_none(),
                "{api}: biasOptional must be NULL with groupType 2 (split k)"
            );
            check_split_k(v, x, weight, y)?
        }
    };
    let groups = match layout {
        Layout::Separate | Layout::RowsWeights | Layout::RowsXs | Layout::RowsYs => weight.len(),
        Layout::RowsOneWeight => weight[0].shape[0],
        Layout::Cols => y[0].shape[0],
    };
    if let Some(b) = bias {
        check_bias(v, b, weight, layout, groups)?;
    }
    crate::ensure!(
        x.len() <= MAX_LIST && weight.len() <= MAX_LIST,
        "{api}: x has {} and weight {} tensors; a list holds at most {MAX_LIST}",
        x.len(),
        weight.len()
    );
    let host_ends = match v.host_list() {
        Some(h) if layout != Layout::Separate => Some(h.iter().map(|&e| e as usize).collect()),
        _ => None,
    };
    // Bindings: x, weight, bias lists, groupList, then y.
    let mut inputs: Vec<Option<&TensorDesc>> = x.iter().chain(weight).map(|t| Some(*t)).collect();
    inputs.extend(bias.unwrap_or(&[]).iter().map(|t| Some(*t)));
    inputs.push(v.tensor_list());
    let outputs: Vec<Option<&TensorDesc>> = y.iter().map(|t| Some(*t)).collect();
    let n_bias = bias.map_or(0, |b| b.len());
    let mut e = Executor::new(
        api,
        bindings(&inputs, &outputs),
        Grouped {
            api,
            layout,
            groups,
            n_x: x.len(),
            n_w: weight.len(),
            n_bias,
            has_group_list: v.tensor_list().is_some(),
            sizes: v.group_list_type == 1,
            host_ends,
            nz,
        },
    );
    // The lists aclSetDynamic*TensorAddr re-points: x, weight, bias are inputs 0-2, y
    // output 0.
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
        list(
            true,
            0,
            v.out_any_index,
            x.len() + weight.len() + n_bias + 1,
            y.len(),
        ),
    ];
    Ok(e)
}

/// A WeightNz weight: FRACTAL_NZ, its (k, n) both multiples of 16 (CANN's alignment for
/// FLOAT16/BFLOAT16; transposed, the stored (n, k) alike), 2 or 3 dims.
fn check_nz_weight(api: &str, i: usize, t: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.nz().is_some(),
        "{api}: weight[{i}] has format {}; aclnnGroupedMatmulWeightNz takes FRACTAL_NZ weights (aclnnTransMatmulWeight converts one)",
        t.format
    );
    let r = t.rank();
    let (k, n) = (t.shape[r - 2], t.shape[r - 1]);
    crate::ensure!(
        k % 16 == 0 && n % 16 == 0,
        "{api}: weight[{i}] is FRACTAL_NZ of (k, n) = ({k}, {n}); both must be multiples of 16 for FLOAT16/BFLOAT16"
    );
    Ok(())
}

/// The non-quantized dtype rule: x, weight and y of one float dtype, bias F32 for BF16.
fn check_dtypes(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    y: &[&TensorDesc],
) -> Result<()> {
    let api = v.name;
    let (xd, wd) = (x[0].dtype, weight[0].dtype);
    crate::ensure!(
        !(matches!(xd, S8 | F16 | BF16) && wd == S8),
        "{api}: x of dtype {xd} with weight of dtype {wd} is the quantized or pseudo-quantized mode, which aclnn-cpu does not implement"
    );
    crate::ensure!(
        FLOATS.contains(&xd) && xd == wd,
        "{api}: x has dtype {xd} and weight {wd}; the non-quantized mode takes both FLOAT16, BFLOAT16 or FLOAT32"
    );
    crate::ensure!(
        !(xd == F32 && matches!(v.api, Api::V1 | Api::WeightNz)),
        "{api}: x and weight of dtype FLOAT32 are not supported by this entry point (FLOAT16 or BFLOAT16)"
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
                "{api}: {name}[{i}] has dtype {}; with x of dtype {xd} it must be {want}",
                t.dtype
            );
        }
    }
    Ok(())
}

/// The dims of `t` must number `want`.
fn rank_is(api: &str, name: &str, i: usize, t: &TensorDesc, want: usize) -> Result<()> {
    crate::ensure!(
        t.rank() == want,
        "{api}: {name}[{i}] has {} dims ({:?}); it must have {want} here",
        t.rank(),
        t.shape
    );
    Ok(())
}

/// Every weight transposed alike.
fn same_transpose(api: &str, weight: &[&TensorDesc], tw: bool) -> Result<()> {
    let state = |t: bool| if t { "transposed" } else { "not transposed" };
    for (i, w) in weight.iter().enumerate() {
        crate::ensure!(
            transposed(w) == tw,
            "{api}: weight[{i}] is {} but weight[0] is {}: every weight must be stored alike (a (1, 1) matrix counts as transposed, as on the device)",
            state(!tw),
            state(tw)
        );
    }
    Ok(())
}

/// The inner (contiguous) dim `v` of `what` must be at most 65535.
fn inner_ok(api: &str, what: &str, v: usize) -> Result<()> {
    crate::ensure!(
        v <= MAX_INNER,
        "{api}: {what} is {v}; it must be at most {MAX_INNER}"
    );
    Ok(())
}

/// How a host groupList (V1/V2) must agree with the tensors, checked at phase 1.
enum HostRule<'a> {
    /// Its last value is this (the split dim of the one x).
    Last(usize, &'static str),
    /// Its steps are these tensors' dim-0 sizes.
    Steps(&'static str, &'a [&'a TensorDesc]),
}

/// groupList must be given (when `required`), of `groups` entries; a tensor one int64 and
/// at most 1024 long, a host one at most 128 long, non-decreasing from 0 and agreeing with
/// the tensors by `rule`.
fn check_group_list(v: &Version, required: bool, groups: usize, rule: HostRule) -> Result<()> {
    let api = v.name;
    if !v.has_group_list() {
        crate::ensure!(
            !required,
            "{api}: groupListOptional is NULL but this layout needs it (the cumulative ends of the groups)"
        );
        return Ok(());
    }
    let (len, max) = match (v.tensor_list(), v.host_list()) {
        (Some(g), _) => (g.shape[0], MAX_GROUP_LIST),
        (_, Some(h)) => (h.len(), MAX_LIST),
        _ => unreachable!(),
    };
    crate::ensure!(
        len >= 1,
        "{api}: groupListOptional is empty; for one group pass NULL"
    );
    crate::ensure!(
        len <= max,
        "{api}: groupListOptional has {len} entries; at most {max}"
    );
    crate::ensure!(
        len == groups,
        "{api}: groupListOptional has {len} entries but there are {groups} groups: they must be equal"
    );
    if let Some(g) = v.tensor_list() {
        crate::ensure!(
            g.dtype == S64,
            "{api}: groupListOptional has dtype {}; it must be INT64",
            g.dtype
        );
    }
    let Some(h) = v.host_list() else {
        return Ok(());
    };
    let mut prev = 0i64;
    for (i, &e) in h.iter().enumerate() {
        crate::ensure!(
            e >= prev,
            "{api}: groupListOptional[{i}] is {e}; the values must be non-negative and non-decreasing (previous {prev})"
        );
        match rule {
            HostRule::Steps(name, ts) => {
                let rows = ts[i].shape[0] as i64;
                crate::ensure!(
                    e - prev == rows,
                    "{api}: groupListOptional[{i}] is {e} after {prev} but {name}[{i}] has {rows} rows: it must be {}",
                    prev + rows
                );
            }
            HostRule::Last(..) => {}
        }
        prev = e;
    }
    if let HostRule::Last(want, dim) = rule {
        crate::ensure!(
            prev == want as i64,
            "{api}: the last value of groupListOptional is {prev}; it must equal {dim} of x[0] ({want})"
        );
    }
    Ok(())
}

fn check_no_split(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    split_item: i64,
    tx: bool,
    tw: bool,
) -> Result<Layout> {
    let api = v.name;
    crate::ensure!(!tx, "{api}: with groupType -1, x cannot be transposed");
    crate::ensure!(
        !(tw && v.api == Api::V1),
        "{api}: with x, weight and y all separated, weight cannot be transposed in this version (aclnnGroupedMatmulV2 and later take it)"
    );
    crate::ensure!(
        split_item <= 1,
        "{api}: with groupType -1 y is separated: splitItem must be 0 or 1, not {split_item}"
    );
    crate::ensure!(
        x.len() == y.len() && x.len() == weight.len(),
        "{api}: with groupType -1, x ({}), weight ({}) and y ({}) must have as many tensors",
        x.len(),
        weight.len(),
        y.len()
    );
    if let (Api::V1, Some(h)) = (v.api, v.host_list()) {
        // V1 takes the row ends of the separated x here, and ignores them.
        crate::ensure!(
            h.len() == x.len(),
            "{api}: groupListOptional has {} entries but x has {} tensors: they must be equal",
            h.len(),
            x.len()
        );
    } else {
        crate::ensure!(
            !v.has_group_list(),
            "{api}: groupListOptional must be NULL when groupType is -1"
        );
    }
    same_transpose(api, weight, tw)?;
    for i in 0..x.len() {
        let (xi, wi, yi) = (x[i], weight[i], y[i]);
        crate::ensure!(
            (2..=6).contains(&xi.rank()),
            "{api}: x[{i}] has {} dims; it must have 2 to 6",
            xi.rank()
        );
        rank_is(api, "weight", i, wi, 2)?;
        crate::ensure!(
            yi.rank() == xi.rank(),
            "{api}: y[{i}] has {} dims but x[{i}] has {}: they must be equal",
            yi.rank(),
            xi.rank()
        );
        let r = xi.rank();
        crate::ensure!(
            xi.shape[..r - 1] == yi.shape[..r - 1],
            "{api}: y[{i}] {:?} and x[{i}] {:?} must agree in every dim but the last",
            yi.shape,
            xi.shape
        );
        let (k, n) = (wi.shape[0], wi.shape[1]);
        inner_ok(api, &format!("k of x[{i}]"), xi.shape[r - 1])?;
        crate::ensure!(
            xi.shape[r - 1] == k,
            "{api}: x[{i}] {:?} and weight[{i}] {:?} differ in k",
            xi.shape,
            wi.shape
        );
        if !tw {
            inner_ok(api, &format!("n of weight[{i}]"), n)?;
        }
        crate::ensure!(
            yi.shape[r - 1] == n,
            "{api}: y[{i}] {:?} and weight[{i}] {:?} differ in n",
            yi.shape,
            wi.shape
        );
    }
    Ok(Layout::Separate)
}

fn check_split_m(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    split_item: i64,
    tx: bool,
    tw: bool,
) -> Result<Layout> {
    let api = v.name;
    crate::ensure!(
        !tx,
        "{api}: with groupType 0 (split m), x cannot be transposed"
    );
    let (nx, nw, ny) = (x.len(), weight.len(), y.len());
    if ny > 1 {
        return check_split_m_ys(v, x, weight, y, split_item, tw);
    }
    crate::ensure!(
        nx == 1 || nx == nw,
        "{api}: with groupType 0, x has {nx} tensors and weight {nw}: x must be one tensor or one per weight"
    );
    crate::ensure!(
        split_item >= 2,
        "{api}: y is one tensor: splitItem must be 2 or 3, not {split_item}"
    );
    for (i, t) in x.iter().enumerate() {
        rank_is(api, "x", i, t, 2)?;
    }
    let w_rank = if nw == 1 && nx == 1 { 3 } else { 2 };
    for (i, t) in weight.iter().enumerate() {
        rank_is(api, "weight", i, t, w_rank)?;
    }
    same_transpose(api, weight, tw)?;
    rank_is(api, "y", 0, y[0], 2)?;
    let (kd, nd) = (w_rank - 2, w_rank - 1);
    let y0 = y[0];
    for (i, w) in weight.iter().enumerate() {
        let xi = x[i.min(nx - 1)];
        inner_ok(api, &format!("k of x[{}]", i.min(nx - 1)), xi.shape[1])?;
        crate::ensure!(
            w.shape[kd] == xi.shape[1],
            "{api}: weight[{i}] {:?} and x[{}] {:?} differ in k",
            w.shape,
            i.min(nx - 1),
            xi.shape
        );
        if !tw {
            inner_ok(api, &format!("n of weight[{i}]"), w.shape[nd])?;
        }
        crate::ensure!(
            w.shape[nd] == y0.shape[1],
            "{api}: weight[{i}] {:?} and y[0] {:?} differ in n",
            w.shape,
            y0.shape
        );
    }
    let rows: usize = x.iter().map(|t| t.shape[0]).sum();
    crate::ensure!(
        rows == y0.shape[0],
        "{api}: x has {rows} rows in all but y[0] {:?} has {}: they must be equal",
        y0.shape,
        y0.shape[0]
    );
    let m = HostRule::Last(x[0].shape[0], "dim 0 (m)");
    if nx == 1 && nw == 1 {
        check_group_list(v, true, weight[0].shape[0], m)?;
        Ok(Layout::RowsOneWeight)
    } else if nx == 1 {
        check_group_list(v, true, nw, m)?;
        Ok(Layout::RowsWeights)
    } else {
        check_group_list(v, false, nw, HostRule::Steps("x", x))?;
        Ok(Layout::RowsXs)
    }
}

/// Split m with one x, e weights and e y (V1/V2: their groupList is on the host).
fn check_split_m_ys(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
    split_item: i64,
    tw: bool,
) -> Result<Layout> {
    let api = v.name;
    let (nx, nw, ny) = (x.len(), weight.len(), y.len());
    crate::ensure!(
        matches!(v.api, Api::V1 | Api::V2),
        "{api}: with groupType 0 and a groupList tensor, y must be one tensor (x {nx}, weight {nw}, y {ny} tensors): separated y is not supported"
    );
    crate::ensure!(
        nx == 1 && nw == ny,
        "{api}: with groupType 0 and y separated, x must be one tensor and y one per weight (x {nx}, weight {nw}, y {ny} tensors)"
    );
    crate::ensure!(
        split_item <= 1,
        "{api}: y is separated: splitItem must be 0 or 1, not {split_item}"
    );
    rank_is(api, "x", 0, x[0], 2)?;
    for (i, t) in weight.iter().enumerate() {
        rank_is(api, "weight", i, t, 2)?;
    }
    same_transpose(api, weight, tw)?;
    let k = x[0].shape[1];
    inner_ok(api, "k of x[0]", k)?;
    for (i, (w, yi)) in weight.iter().zip(y).enumerate() {
        rank_is(api, "y", i, yi, 2)?;
        crate::ensure!(
            w.shape[0] == k,
            "{api}: weight[{i}] {:?} and x[0] {:?} differ in k",
            w.shape,
            x[0].shape
        );
        if !tw {
            inner_ok(api, &format!("n of weight[{i}]"), w.shape[1])?;
        }
        crate::ensure!(
            w.shape[1] == yi.shape[1],
            "{api}: weight[{i}] {:?} and y[{i}] {:?} differ in n",
            w.shape,
            yi.shape
        );
    }
    let rows: usize = y.iter().map(|t| t.shape[0]).sum();
    crate::ensure!(
        rows <= x[0].shape[0],
        "{api}: y has {rows} rows in all but x[0] {:?} only {}",
        x[0].shape,
        x[0].shape[0]
    );
    check_group_list(v, true, nw, HostRule::Steps("y", y))?;
    Ok(Layout::RowsYs)
}

fn check_split_k(
    v: &Version,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    y: &[&TensorDesc],
) -> Result<Layout> {
    let api = v.name;
    crate::ensure!(
        x.len() == 1,
        "{api}: with groupType 2 (split k), x must be one tensor, not {}",
        x.len()
    );
    crate::ensure!(
        weight.len() == 1 && y.len() == 1,
        "{api}: groupType 2 with weight of {} and y of {} tensors is not implemented by aclnn-cpu (only one weight and one y)",
        weight.len(),
        y.len()
    );
    let (x0, w0, y0) = (x[0], weight[0], y[0]);
    rank_is(api, "x", 0, x0, 2)?;
    crate::ensure!(
        transposed(x0),
        "{api}: with groupType 2 and one x, x must be stored transposed (shape (m, k), strides [1, m]), but its strides are {:?}",
        x0.strides
    );
    rank_is(api, "weight", 0, w0, 2)?;
    rank_is(api, "y", 0, y0, 3)?;
    let (m, k, n) = (x0.shape[0], x0.shape[1], w0.shape[1]);
    inner_ok(api, "m of x[0]", m)?;
    crate::ensure!(
        w0.shape[0] == k,
        "{api}: x[0] {:?} and weight[0] {:?} differ in k",
        x0.shape,
        w0.shape
    );
    crate::ensure!(
        y0.shape[1] == m,
        "{api}: x[0] {:?} and y[0] {:?} differ in m",
        x0.shape,
        y0.shape
    );
    inner_ok(api, "n of weight[0]", n)?;
    crate::ensure!(
        y0.shape[2] == n,
        "{api}: weight[0] {:?} and y[0] {:?} differ in n",
        w0.shape,
        y0.shape
    );
    check_group_list(v, true, y0.shape[0], HostRule::Last(k, "dim 1 (k)"))?;
    Ok(Layout::Cols)
}

/// bias: one (e, n) tensor for one weight (e, k, n), else one (n,) per weight.
fn check_bias(
    v: &Version,
    b: &[&TensorDesc],
    weight: &[&TensorDesc],
    layout: Layout,
    groups: usize,
) -> Result<()> {
    let api = v.name;
    crate::ensure!(
        b.len() == weight.len(),
        "{api}: biasOptional has {} tensors but weight has {}: they must be equal",
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
            "{api}: biasOptional[{i}] has shape {:?}; it must be {want:?}",
            t.shape
        );
    }
    Ok(())
}

struct Grouped {
    api: &'static str,
    layout: Layout,
    groups: usize,
    n_x: usize,
    n_w: usize,
    n_bias: usize,
    /// A groupList tensor is bound (read at phase 2).
    has_group_list: bool,
    /// It holds group sizes (groupListType 1), not cumulative ends.
    sizes: bool,
    /// V1/V2's host groupList, checked at phase 1.
    host_ends: Option<Vec<usize>>,
    /// The weights are FRACTAL_NZ (WeightNz).
    nz: bool,
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
        let api = self.api;
        if let Some(h) = &self.host_ends {
            return Ok(Some(h.clone()));
        }
        if !self.has_group_list {
            return Ok(None);
        }
        let v = load::<i64>(t, self.group_list_binding(), &[self.groups])?;
        let mut prev = 0i64;
        let mut ends = Vec::with_capacity(v.len());
        for (i, &e) in v.iter().enumerate() {
            if self.sizes {
                let end = prev
                    .checked_add(e)
                    .filter(|s| e >= 0 && *s as u64 <= limit as u64);
                let Some(end) = end else {
                    return Err(Error::Invalid(format!(
                        "{api}: groupListOptional[{i}] is {e}; with groupListType 1 the values are group sizes: non-negative, summing to at most {dim} = {limit} (sum before it {prev})"
                    )));
                };
                prev = end;
                ends.push(end as usize);
                continue;
            }
            if e < prev || e as u64 > limit as u64 {
                return Err(Error::Invalid(format!(
                    "{api}: groupListOptional[{i}] is {e}; the values must be non-decreasing, non-negative cumulative ends of at most {dim} = {limit} (previous {prev})"
                )));
            }
            prev = e;
            ends.push(e as usize);
        }
        Ok(Some(ends))
    }

    /// The products of this run (groupList read and checked first).
    fn jobs(&self, t: &Bindings) -> Result<Vec<Job>> {
        let api = self.api;
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
            Layout::RowsOneWeight | Layout::RowsWeights | Layout::RowsXs | Layout::RowsYs => {
                let one_y = self.layout != Layout::RowsYs;
                let y = view(self.y_binding(0))?;
                let m = if one_y {
                    y.1.shape[0]
                } else {
                    t.view(self.x_binding(0))?.shape[0]
                };
                let ends = self.ends(t, m, "m")?;
                let mut start = 0;
                for g in 0..self.groups {
                    let (x, rows) = if self.layout == Layout::RowsXs {
                        let x = view(self.x_binding(g))?;
                        let rows = x.1.shape[0];
                        if let Some(e) = &ends {
                            if e[g] != start + rows {
                                return Err(Error::Invalid(format!(
                                    "{api}: groupListOptional[{g}] is {} but x[{g}] has {rows} rows after {start}: it must be {}",
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
                    let y = if one_y {
                        (y.0, y.1.narrowed(0, start, rows))
                    } else {
                        view(self.y_binding(g))?
                    };
                    jobs.push(Job { x, w, y, bias });
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
                let b = if self.nz {
                    load_nz(t, *wb, wv)?
                } else {
                    load_view::<f32>(t, *wb, wv, &[k, n])?
                };
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

/// A FRACTAL_NZ weight view (k, n) — one stored matrix, the view's offset at its start —
/// read into a row-major f32 (k, n) buffer (f16/bf16 widen exactly).
fn load_nz(t: &Bindings, b: usize, v: &TensorDesc) -> Result<Vec<f32>> {
    let (nz, tr) = v.nz().expect("checked at phase 1");
    let (k, n) = (v.shape[0], v.shape[1]);
    let mut out = vec![0f32; k * n];
    let size = v.dtype.size();
    let base = t.addr(b)? + v.offset * size;
    // Stored (r, c..c+len) runs are contiguous; logical (r, c) or, transposed, (c, r).
    for c in (0..nz.cols).step_by(nz.c0) {
        let len = nz.c0.min(nz.cols - c);
        for r in 0..nz.rows {
            let src = base + nz.index(r, c) * size;
            let (at, stride) = if tr { (c * n + r, n) } else { (r * n + c, 1) };
            // SAFETY: the run lies inside the NZ block phase 1 checked
            // (`TensorDesc::byte_span`); `out` holds (k, n) f32.
            unsafe {
                convert::run(
                    src as *const u8,
                    v.dtype,
                    1,
                    out.as_mut_ptr().add(at) as *mut u8,
                    F32,
                    stride as isize,
                    len,
                )
            };
        }
    }
    Ok(out)
}

/// aclnnGroupedMatmul (V1): groupList a host aclIntArray of cumulative row ends, groupType
/// implied: -1 when x and y are both lists (or x, weight and y all one tensor), else 0
/// (split m). FLOAT32 and, with everything separated, transposed weights are refused (as
/// CANN's V1 checks do).
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_v1(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    scale: Option<&[&TensorDesc]>,
    offset: Option<&[&TensorDesc]>,
    antiquant_scale: Option<&[&TensorDesc]>,
    antiquant_offset: Option<&[&TensorDesc]>,
    group_list: Option<&[i64]>,
    split_item: i64,
    y: &[&TensorDesc],
) -> Result<Executor> {
    let api = "aclnnGroupedMatmul";
    for (name, l) in [("x", x), ("weight", weight), ("y", y)] {
        crate::ensure!(
            !l.is_empty(),
            "{api}: {name} must not be an empty tensor list"
        );
    }
    let (nx, nw, ny) = (x.len(), weight.len(), y.len());
    crate::ensure!(
        nw > 1 || nx == 1 && ny == 1,
        "{api}: weight is one tensor but x has {nx} and y {ny}: this version only takes separated weights (one per group), or x, weight and y each one tensor"
    );
    let separated = (nx > 1 && ny > 1) || (nx == 1 && ny == 1 && nw == 1);
    let group_type = if separated { NO_SPLIT } else { SPLIT_M };
    let v = Version {
        api: Api::V1,
        name: api,
        group_list: GroupList::Host(group_list),
        group_list_type: 0,
        out_any_index: 7,
    };
    grouped_matmul(
        &v,
        x,
        weight,
        bias,
        quant4(scale, offset, antiquant_scale, antiquant_offset),
        split_item,
        group_type,
        y,
    )
}

/// The four quantization lists of every version, named.
fn quant4<'a>(
    scale: Option<&'a [&'a TensorDesc]>,
    offset: Option<&'a [&'a TensorDesc]>,
    antiquant_scale: Option<&'a [&'a TensorDesc]>,
    antiquant_offset: Option<&'a [&'a TensorDesc]>,
) -> [(&'static str, Option<&'a [&'a TensorDesc]>); 4] {
    [
        ("scaleOptional", scale),
        ("offsetOptional", offset),
        ("antiquantScaleOptional", antiquant_scale),
        ("antiquantOffsetOptional", antiquant_offset),
    ]
}

/// aclnnGroupedMatmulV2: V3 with the groupList a host aclIntArray of cumulative ends
/// (checked at phase 1: its last value is m, or k for split k; with separated x or y its
/// steps are their rows), which also allows one x, e weights and e separated y.
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_v2(
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    scale: Option<&[&TensorDesc]>,
    offset: Option<&[&TensorDesc]>,
    antiquant_scale: Option<&[&TensorDesc]>,
    antiquant_offset: Option<&[&TensorDesc]>,
    group_list: Option<&[i64]>,
    split_item: i64,
    group_type: i64,
    y: &[&TensorDesc],
) -> Result<Executor> {
    let v = Version {
        api: Api::V2,
        name: "aclnnGroupedMatmulV2",
        group_list: GroupList::Host(group_list),
        group_list_type: 0,
        out_any_index: 7,
    };
    grouped_matmul(
        &v,
        x,
        weight,
        bias,
        quant4(scale, offset, antiquant_scale, antiquant_offset),
        split_item,
        group_type,
        y,
    )
}

/// The parameters V4, V5 and WeightNz add to V3's.
pub struct Extra<'a> {
    pub per_token_scale: Option<&'a [&'a TensorDesc]>,
    pub activation_input: Option<&'a [&'a TensorDesc]>,
    pub activation_quant_scale: Option<&'a [&'a TensorDesc]>,
    pub activation_quant_offset: Option<&'a [&'a TensorDesc]>,
    pub group_list_type: i64,
    pub act_type: i64,
    pub activation_feature_out: Option<&'a [&'a TensorDesc]>,
    pub dyn_quant_scale_out: Option<&'a [&'a TensorDesc]>,
}

/// V4, V5, WeightNz: groupListType 0 (cumulative ends) or 1 (group sizes); actType in
/// 0..=5 but not 3 (GELU_ERR_FUNC), and only 0 (none) for non-quantized inputs; the
/// activation and per-token parameters absent.
#[allow(clippy::too_many_arguments)]
fn grouped_matmul_v4_family(
    api: Api,
    name: &'static str,
    x: &[&TensorDesc],
    weight: &[&TensorDesc],
    bias: Option<&[&TensorDesc]>,
    quant: [(&'static str, Option<&[&TensorDesc]>); 4],
    group_list: Option<&TensorDesc>,
    split_item: i64,
    group_type: i64,
    extra: &Extra,
    out: &[&TensorDesc],
) -> Result<Executor> {
    let (glt, act) = (extra.group_list_type, extra.act_type);
    crate::ensure!(
        !(x.is_empty() || weight.is_empty() || out.is_empty()),
        "{name}: x, weight and out must not be empty tensor lists"
    );
    crate::ensure!(act >= 0, "{name}: actType is {act}; it must be at least 0");
    crate::ensure!(
        act != 3,
        "{name}: actType 3 (GELU_ERR_FUNC) is not supported"
    );
    crate::ensure!(
        act < 6,
        "{name}: actType is {act}; the activations are 0 (none), 1 (RELU), 2 (GELU_TANH), 4 (FAST_GELU), 5 (SILU)"
    );
    crate::ensure!(
        glt != 2,
        "{name}: groupListType 2 (sparse m: a groupList of (group, size) pairs) is not implemented by aclnn-cpu; use 0 (cumulative ends) or 1 (group sizes)"
    );
    crate::ensure!(
        glt == 0 || glt == 1,
        "{name}: groupListType is {glt}; it must be 0 (cumulative ends) or 1 (group sizes)"
    );
    crate::ensure!(
        !(act != 0 && FLOATS.contains(&x[0].dtype) && x[0].dtype == weight[0].dtype),
        "{name}: actType {act} is given but the non-quantized mode (x and weight {}) does not support an activation: actType must be 0",
        x[0].dtype
    );
    crate::ensure!(
        act == 0,
        "{name}: actType {act} applies only to the quantized modes, which aclnn-cpu does not implement"
    );
    for (what, l) in [
        ("activationFeatureOutOptional", extra.activation_feature_out),
        ("dynQuantScaleOutOptional", extra.dyn_quant_scale_out),
    ] {
        crate::ensure!(
            present(l).is_none(),
            "{name}: {what} is given, but only an activation (actType, quantized modes) writes it: pass NULL"
        );
    }
    let [q0, q1, q2, q3] = quant;
    let v = Version {
        api,
        name,
        group_list: GroupList::Tensor(group_list),
        group_list_type: glt,
        out_any_index: 12,
    };
    grouped_matmul(
        &v,
        x,
        weight,
        bias,
        [
            q0,
            q1,
            q2,
            q3,
            ("perTokenScaleOptional", extra.per_token_scale),
            ("activationInputOptional", extra.activation_input),
            ("activationQuantScaleOptional", extra.activation_quant_scale),
            (
                "activationQuantOffsetOptional",
                extra.activation_quant_offset,
            ),
        ],
        split_item,
        group_type,
        out,
    )
}

/// aclnnGroupedMatmulV4.
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_v4(
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
    extra: &Extra,
    out: &[&TensorDesc],
) -> Result<Executor> {
    grouped_matmul_v4_family(
        Api::V4,
        "aclnnGroupedMatmulV4",
        x,
        weight,
        bias,
        quant4(scale, offset, antiquant_scale, antiquant_offset),
        group_list,
        split_item,
        group_type,
        extra,
        out,
    )
}

/// aclnnGroupedMatmulV5: V4 with tuningConfigOptional, a tiling hint (the expected rows a
/// group) that changes no number and is ignored.
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_v5(
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
    extra: &Extra,
    out: &[&TensorDesc],
) -> Result<Executor> {
    grouped_matmul_v4_family(
        Api::V5,
        "aclnnGroupedMatmulV5",
        x,
        weight,
        bias,
        quant4(scale, offset, antiquant_scale, antiquant_offset),
        group_list,
        split_item,
        group_type,
        extra,
        out,
    )
}

/// aclnnGroupedMatmulWeightNz: V5 with FRACTAL_NZ FLOAT16/BFLOAT16 weights ((k, n) both
/// multiples of 16, any batch of consecutive blocks for an (e, k, n) weight, transposed
/// views read as the stored (n, k)); groupType -1 or 0. quantGroupSize only concerns the
/// per-group quantized modes and is ignored.
#[allow(clippy::too_many_arguments)]
pub fn grouped_matmul_weight_nz(
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
    extra: &Extra,
    out: &[&TensorDesc],
) -> Result<Executor> {
    grouped_matmul_v4_family(
        Api::WeightNz,
        "aclnnGroupedMatmulWeightNz",
        x,
        weight,
        bias,
        quant4(scale, offset, antiquant_scale, antiquant_offset),
        group_list,
        split_item,
        group_type,
        extra,
        out,
    )
}
