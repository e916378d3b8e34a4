//! Normalisations (issue 18): LayerNorm (+ WithImplMode, Fast), RmsNorm, AddRmsNorm,
//! GemmaRmsNorm, GroupNorm, GroupNormSilu (+ V2), DeepNorm, AddLayerNorm, Norm and
//! LinalgVectorNorm (p-norms), Renorm (+ Inplace),
//! each a rule on the row-normalisation engine (`rows.rs`): which dims are rows, which are
//! normalised together, which operands broadcast how. Checks follow CANN's op_api code and
//! its Atlas A2 dtype lists, in its order (dtypes, then ranks and shapes, then attributes).
//!
//! Numbers: statistics in f64 two-pass (stable for any mean), outputs rounded once from f64
//! to their dtype: within one ulp of the exact result for every output dtype (`rows`);
//! rows whose input and y are one f16/bf16 dtype compute in f32 as the device does, within
//! `rows::half`'s bound.
//! CANN's device computes in f32 with its own summation order; results agree with it within
//! its own f32 error, and ours is the more accurate.
//!
//! Per-row outputs (mean, rstd, a norm) may have any shape whose element count is the number
//! of rows; the documented [A1..Ai, 1..1] (CANN checks its dims only on newer chips) and the
//! row dims alone ([A1..Ai], what llama.cpp's CANN back-end passes RmsNorm) both work.

use super::catalog::Entry;
use super::elementwise as ew;
use super::reduce::{axes, reduced_shape};
use super::rows::{Emit, Operand, PerRow, Rows, Running, Stat};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{bindings, Bindings, Executor, Nothing};
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;

use DType::*;
/// The Atlas A2 list of every normalisation here.
const FLOATS: &[DType] = &[F32, F16, BF16];
/// RmsNorm's and AddRmsNorm's rstdOut.
const RSTD: &[DType] = &[F32];
/// aclnnFastLayerNorm: the normalised size the kernel handles (R1·…·Rj).
const FAST_MAX_ROW: usize = 583_705_600;

/// `t`'s dtype must be `want`'s.
fn same_dtype(name: &str, t: &TensorDesc, other: &str, want: DType) -> Result<()> {
    crate::ensure!(
        t.dtype == want,
        "tensor '{name}' has dtype {} but must have {other}'s dtype {want}",
        t.dtype
    );
    Ok(())
}

/// A per-row output: writable, at most 8 dims, as many elements as there are rows.
fn check_per_row(
    api: &str,
    name: &str,
    t: &TensorDesc,
    rows: &[usize],
    documented: &[usize],
) -> Result<()> {
    let count: usize = rows.iter().product();
    crate::ensure!(
        t.numel() == count,
        "{api}: '{name}' has shape {:?} ({} elements) but must hold one value per row: shape {documented:?} \
         ({count} elements)",
        t.shape,
        t.numel()
    );
    t.check_output(name)
}

/// The normalised dims of LayerNorm and friends: the last `len` dims of `x`, which
/// `normalized` must equal (CANN: right-aligned, equal sizes).
fn trailing(api: &str, x: &TensorDesc, normalized: &[i64]) -> Result<usize> {
    crate::ensure!(
        normalized.len() <= ew::MAX_DIMS,
        "{api}: normalizedShape has {} elements; at most {} are supported",
        normalized.len(),
        ew::MAX_DIMS
    );
    crate::ensure!(
        !normalized.is_empty(),
        "{api}: normalizedShape is empty; it must name at least 1 dim"
    );
    crate::ensure!(
        x.rank() >= normalized.len(),
        "{api}: input has {} dims, fewer than normalizedShape's {} ({normalized:?})",
        x.rank(),
        normalized.len()
    );
    let begin = x.rank() - normalized.len();
    for (i, &n) in normalized.iter().enumerate() {
        crate::ensure!(
            n >= 0 && n as usize == x.shape[begin + i],
            "{api}: normalizedShape {normalized:?} does not match the trailing dims of input {:?}: element {i} is {n}, \
             input dim {} is {}",
            x.shape,
            begin + i,
            x.shape[begin + i]
        );
    }
    Ok(begin)
}

/// A weight-like parameter of the normalised dims' shape.
fn check_param_shape(api: &str, name: &str, t: &TensorDesc, want: &[usize]) -> Result<()> {
    crate::ensure!(
        t.shape[..] == want[..],
        "{api}: '{name}' has shape {:?} but must have the normalised shape {want:?}",
        t.shape
    );
    Ok(())
}

/// The fused adds (AddRmsNorm, AddLayerNorm): x2, yOut and xOut (when given) have x1's shape.
fn check_sum_shapes(
    api: &str,
    x1: &TensorDesc,
    x2: &TensorDesc,
    y: &TensorDesc,
    x_out: Option<&TensorDesc>,
) -> Result<()> {
    crate::ensure!(
        x1.shape == x2.shape,
        "{api}: x2 has shape {:?} but must have x1's shape {:?}",
        x2.shape,
        x1.shape
    );
    ew::check_result_shape("yOut", y, &x1.shape)?;
    if let Some(x) = x_out {
        ew::check_result_shape("xOut", x, &x1.shape)?;
    }
    Ok(())
}

/// [A1..Ai, 1..1]: the documented shape of a per-row output.
fn keep_shape(shape: &[usize], begin: usize) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .map(|(d, &n)| if d < begin { n } else { 1 })
        .collect()
}

// ---------------------------------------------------------------------------------------
// LayerNorm, LayerNormWithImplMode, FastLayerNorm
// ---------------------------------------------------------------------------------------

/// The three entries of aclnn_layer_norm.h.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerNormForm {
    /// aclnnLayerNorm.
    Plain,
    /// aclnnLayerNormWithImplMode: implMode 0 (high precision), 1 (high performance), 2
    /// (keep f16: all inputs f16). All three compute as mode 0 does: the others trade
    /// accuracy CANN documents as lost, which this implementation does not need to.
    ImplMode(i32),
    /// aclnnFastLayerNorm: CANN's faster kernel (the normalised size at most 583705600);
    /// the same numbers here.
    Fast,
}

impl LayerNormForm {
    fn api(self) -> &'static str {
        match self {
            LayerNormForm::Plain => "aclnnLayerNorm",
            LayerNormForm::ImplMode(_) => "aclnnLayerNormWithImplMode",
            LayerNormForm::Fast => "aclnnFastLayerNorm",
        }
    }
}

/// aclnnLayerNorm and its forms: `out = (x − E[x]) / √(Var[x] + eps) · weight + bias` over
/// the trailing `normalizedShape` dims; weight/bias NULL mean 1/0; mean and rstd written
/// when given.
#[allow(clippy::too_many_arguments)]
pub fn layer_norm(
    form: LayerNormForm,
    input: &TensorDesc,
    normalized: &[i64],
    weight: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    eps: f64,
    out: &TensorDesc,
    mean: Option<&TensorDesc>,
    rstd: Option<&TensorDesc>,
) -> Result<Executor> {
    let api = form.api();
    // Dtypes (CANN: CheckInputDtype, CheckOutputDtype).
    ew::check_tensor("input", input, FLOATS)?;
    for (name, t) in [("weightOptional", weight), ("biasOptional", bias)] {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
            if t.dtype != F32 {
                same_dtype(name, t, "input (or FLOAT)", input.dtype)?;
            }
        }
    }
    if let (Some(w), Some(b)) = (weight, bias) {
        same_dtype("biasOptional", b, "weightOptional", w.dtype)?;
    }
    ew::check_tensor("out", out, FLOATS)?;
    for (name, t) in [("meanOutOptional", mean), ("rstdOutOptional", rstd)] {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
        }
    }
    // Shapes (CheckShape).
    let begin = trailing(api, input, normalized)?;
    let norm_shape = &input.shape[begin..];
    for (name, t) in [("weightOptional", weight), ("biasOptional", bias)] {
        if let Some(t) = t {
            check_param_shape(api, name, t, norm_shape)?;
        }
    }
    ew::check_result_shape("out", out, &input.shape)?;
    let documented = keep_shape(&input.shape, begin);
    for (name, t) in [("meanOutOptional", mean), ("rstdOutOptional", rstd)] {
        if let Some(t) = t {
            check_per_row(api, name, t, &input.shape[..begin], &documented)?;
        }
    }
    match form {
        LayerNormForm::ImplMode(mode) => {
            crate::ensure!(
                (0..=2).contains(&mode),
                "{api}: implMode is {mode}; it must be 0 (high precision), 1 (high performance) or 2 (keep FLOAT16)"
            );
            crate::ensure!(
                mode != 2
                    || (input.dtype == F16
                        && weight.is_none_or(|w| w.dtype == F16)
                        && bias.is_none_or(|b| b.dtype == F16)),
                "{api}: implMode 2 (keep FLOAT16) needs input, weightOptional and biasOptional all FLOAT16, \
                 got input {}",
                input.dtype
            );
        }
        LayerNormForm::Fast => {
            let row: usize = norm_shape.iter().product();
            crate::ensure!(
                row <= FAST_MAX_ROW,
                "{api}: the normalised size {row} (normalizedShape {normalized:?}) exceeds the {FAST_MAX_ROW} the kernel \
                 supports"
            );
        }
        LayerNormForm::Plain => {}
    }
    let b = bindings(&[Some(input), weight, bias], &[Some(out), mean, rstd]);
    let mut stat_outs = Vec::new();
    if let Some(m) = mean {
        stat_outs.push((PerRow::of(4, m), Emit::Mean));
    }
    if let Some(r) = rstd {
        stat_outs.push((PerRow::of(5, r), Emit::Rstd));
    }
    let plan = Rows {
        rows: input.shape[..begin].to_vec(),
        elems: norm_shape.to_vec(),
        terms: vec![(Operand::split(0, input, begin), 1.0)],
        round: None,
        stat: Stat::Center,
        eps,
        weight: weight.map(|w| Operand::per_elem(1, w, begin)),
        weight_offset: 0.0,
        bias: bias.map(|t| Operand::per_elem(2, t, begin)),
        silu: None,
        sum_out: None,
        y_out: Some(Operand::split(3, out, begin)),
        stat_outs,
        running: None,
    }
    .plan();
    Ok(Executor::new(api, b, plan))
}

// ---------------------------------------------------------------------------------------
// RmsNorm, GemmaRmsNorm, AddRmsNorm
// ---------------------------------------------------------------------------------------

/// gamma's dims are x's trailing dims: the normalised ones.
fn gamma_dims(api: &str, x_name: &str, x: &TensorDesc, gamma: &TensorDesc) -> Result<usize> {
    crate::ensure!(
        gamma.rank() >= 1 && gamma.rank() <= x.rank() && x.shape[x.rank() - gamma.rank()..] == gamma.shape[..],
        "{api}: gamma has shape {:?}, which must be the trailing dims of {x_name} {:?} (the normalised ones)",
        gamma.shape,
        x.shape
    );
    Ok(x.rank() - gamma.rank())
}

/// x, gamma dtype pairs of RmsNorm on Atlas A2: gamma is x's dtype, or FLOAT32 for a 16-bit x.
fn check_rms_gamma(gamma: &TensorDesc, x: &TensorDesc) -> Result<()> {
    crate::ensure!(
        gamma.dtype == x.dtype || (gamma.dtype == F32 && x.dtype != F32),
        "tensor 'gamma' has dtype {} but must have x's dtype {} (or FLOAT32 for a FLOAT16/BFLOAT16 x)",
        gamma.dtype,
        x.dtype
    );
    Ok(())
}

fn rms_norm_impl(
    api: &'static str,
    weight_offset: f64,
    x: &TensorDesc,
    gamma: &TensorDesc,
    eps: f64,
    y: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("x", x, FLOATS)?;
    ew::check_tensor("gamma", gamma, FLOATS)?;
    check_rms_gamma(gamma, x)?;
    ew::check_tensor("yOut", y, FLOATS)?;
    same_dtype("yOut", y, "x", x.dtype)?;
    ew::check_tensor("rstdOut", rstd, RSTD)?;
    let begin = gamma_dims(api, "x", x, gamma)?;
    ew::check_result_shape("yOut", y, &x.shape)?;
    check_per_row(
        api,
        "rstdOut",
        rstd,
        &x.shape[..begin],
        &keep_shape(&x.shape, begin),
    )?;
    let b = bindings(&[Some(x), Some(gamma)], &[Some(y), Some(rstd)]);
    let plan = Rows {
        rows: x.shape[..begin].to_vec(),
        elems: x.shape[begin..].to_vec(),
        terms: vec![(Operand::split(0, x, begin), 1.0)],
        round: None,
        stat: Stat::Rms,
        eps,
        weight: Some(Operand::per_elem(1, gamma, begin)),
        weight_offset,
        bias: None,
        silu: None,
        sum_out: None,
        y_out: Some(Operand::split(2, y, begin)),
        stat_outs: vec![(PerRow::of(3, rstd), Emit::Rstd)],
        running: None,
    }
    .plan();
    Ok(Executor::new(api, b, plan))
}

/// aclnnRmsNorm: `y = x / √(mean(x²) + eps) · gamma` over gamma's dims (x's trailing ones),
/// and rstd = 1/√(mean(x²) + eps) per row (FLOAT32).
pub fn rms_norm(
    x: &TensorDesc,
    gamma: &TensorDesc,
    eps: f64,
    y: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<Executor> {
    rms_norm_impl("aclnnRmsNorm", 0.0, x, gamma, eps, y, rstd)
}

/// aclnnGemmaRmsNorm: RmsNorm with the scale `1 + gamma` (Gemma's convention).
pub fn gemma_rms_norm(
    x: &TensorDesc,
    gamma: &TensorDesc,
    eps: f64,
    y: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<Executor> {
    rms_norm_impl("aclnnGemmaRmsNorm", 1.0, x, gamma, eps, y, rstd)
}

/// aclnnAddRmsNorm: `x = x1 + x2` (rounded to x1's dtype: what xOut holds and what is
/// normalised, as CANN's golden does), then RmsNorm of x with gamma. CANN's three modes,
/// chosen by which outputs are NULL: rstdOut and xOut given (FLOAT32/FLOAT16/BFLOAT16),
/// only xOut (FLOAT16/BFLOAT16), neither (FLOAT16/BFLOAT16); rstdOut without xOut is a
/// NULL error. An empty x1 or gamma writes nothing.
#[allow(clippy::too_many_arguments)]
pub fn add_rms_norm(
    x1: &TensorDesc,
    x2: &TensorDesc,
    gamma: &TensorDesc,
    eps: f64,
    y: &TensorDesc,
    rstd: Option<&TensorDesc>,
    x_out: Option<&TensorDesc>,
) -> Result<Executor> {
    const API: &str = "aclnnAddRmsNorm";
    if rstd.is_some() && x_out.is_none() {
        // CANN reports this as a NULL argument (161001).
        return Err(crate::Error::Null(format!(
            "{API}: argument 'xOut' is NULL but rstdOut is given; with rstdOut, xOut is required"
        )));
    }
    let full = rstd.is_some();
    let allowed: &[DType] = if full { FLOATS } else { &[F16, BF16] };
    let mode = if full {
        "rstdOut and xOut given"
    } else if x_out.is_some() {
        "rstdOut NULL"
    } else {
        "rstdOut and xOut NULL"
    };
    for (name, t) in [("x1", x1), ("x2", x2), ("gamma", gamma)] {
        ew::check_tensor(name, t, allowed)
            .map_err(|e| crate::Error::Invalid(format!("{e} ({mode})")))?;
    }
    same_dtype("x2", x2, "x1", x1.dtype)?;
    same_dtype("gamma", gamma, "x1", x1.dtype)?;
    ew::check_tensor("yOut", y, allowed)?;
    same_dtype("yOut", y, "x1", x1.dtype)?;
    if let Some(x) = x_out {
        ew::check_tensor("xOut", x, allowed)?;
        same_dtype("xOut", x, "yOut", y.dtype)?;
    }
    if let Some(r) = rstd {
        ew::check_tensor("rstdOut", r, RSTD)?;
    }
    crate::ensure!(
        x1.rank() >= 1 && gamma.rank() >= 1,
        "{API}: x1 and gamma need at least 1 dim, got {:?} and {:?}",
        x1.shape,
        gamma.shape
    );
    check_sum_shapes(API, x1, x2, y, x_out)?;
    // With rstdOut, gamma is x1's trailing dims; without it, the last dim only ([D] or [1, D]).
    let begin = if full {
        gamma_dims(API, "x1", x1, gamma)?
    } else {
        let d = *x1.shape.last().unwrap();
        crate::ensure!(
            gamma.rank() <= 2 && gamma.shape.last() == Some(&d) && gamma.numel() == d,
            "{API}: without rstdOut gamma must have shape [{d}] or [1, {d}] (x1's last dim), got {:?}",
            gamma.shape
        );
        x1.rank() - 1
    };
    if let Some(r) = rstd {
        check_per_row(
            API,
            "rstdOut",
            r,
            &x1.shape[..begin],
            &keep_shape(&x1.shape, begin),
        )?;
    }
    let b = bindings(&[Some(x1), Some(x2), Some(gamma)], &[Some(y), rstd, x_out]);
    if x1.is_empty() || gamma.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    // gamma of [1, D] without rstdOut: its last dim's stride is what the rows need.
    let gamma_op = if full {
        Operand::per_elem(2, gamma, begin)
    } else {
        Operand::with_strides(
            2,
            gamma,
            vec![0; begin],
            vec![*gamma.strides.last().unwrap()],
        )
    };
    let plan = Rows {
        rows: x1.shape[..begin].to_vec(),
        elems: x1.shape[begin..].to_vec(),
        terms: vec![
            (Operand::split(0, x1, begin), 1.0),
            (Operand::split(1, x2, begin), 1.0),
        ],
        round: Some(x1.dtype),
        stat: Stat::Rms,
        eps,
        weight: Some(gamma_op),
        weight_offset: 0.0,
        bias: None,
        silu: None,
        sum_out: x_out.map(|x| Operand::split(5, x, begin)),
        y_out: Some(Operand::split(3, y, begin)),
        stat_outs: rstd
            .map(|r| (PerRow::of(4, r), Emit::Rstd))
            .into_iter()
            .collect(),
        running: None,
    }
    .plan();
    Ok(Executor::new(API, b, plan))
}

// ---------------------------------------------------------------------------------------
// GroupNorm, GroupNormSilu
// ---------------------------------------------------------------------------------------

/// GroupNorm's geometry: self (N, C, *) as rows (N, group) of (C/group, spatial...) values;
/// gamma/beta (C) indexed by the channel.
struct Groups {
    rows: Vec<usize>,
    elems: Vec<usize>,
    /// self's (or out's) strides along rows and elems.
    split: fn(&TensorDesc, usize) -> (Vec<isize>, Vec<isize>),
}

fn group_strides(t: &TensorDesc, group: usize) -> (Vec<isize>, Vec<isize>) {
    let c = t.shape[1] / group;
    let rows = vec![t.strides[0], t.strides[1] * c as isize];
    let mut elems = vec![t.strides[1]];
    elems.extend_from_slice(&t.strides[2..]);
    (rows, elems)
}

impl Groups {
    fn new(x: &TensorDesc, group: usize) -> Groups {
        let mut elems = vec![x.shape[1] / group];
        elems.extend_from_slice(&x.shape[2..]);
        Groups {
            rows: vec![x.shape[0], group],
            elems,
            split: group_strides,
        }
    }
    fn operand(&self, binding: usize, t: &TensorDesc, group: usize) -> Operand {
        let (r, e) = (self.split)(t, group);
        Operand::with_strides(binding, t, r, e)
    }
    /// A (C) vector over the rows: the channel is group·(C/group) + the first element index.
    fn per_channel(&self, binding: usize, t: &TensorDesc) -> Operand {
        let s = t.strides[0];
        let c = self.elems[0] as isize;
        let mut elems = vec![s];
        elems.extend(std::iter::repeat_n(0, self.elems.len() - 1));
        Operand::with_strides(binding, t, vec![0, s * c], elems)
    }
}

/// The checks of aclnnGroupNorm / aclnnGroupNormSilu (in CANN's order: dtypes, attributes,
/// shapes, formats).
#[allow(clippy::too_many_arguments)]
fn check_group_norm(
    form: GroupNormForm,
    x: &TensorDesc,
    gamma: Option<&TensorDesc>,
    beta: Option<&TensorDesc>,
    group: i64,
    eps: f64,
    out: &TensorDesc,
    mean: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<()> {
    let api = form.api();
    ew::check_tensor("self", x, FLOATS)?;
    for (name, t) in [("gamma", gamma), ("beta", beta)] {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
            // GroupNorm: self's dtype. The Silu forms also take FLOAT32 gamma/beta for a
            // 16-bit self (mixed precision).
            let mixed = !matches!(form, GroupNormForm::Plain { .. }) && t.dtype == F32;
            if !mixed {
                same_dtype(name, t, "self", x.dtype)?;
            }
        }
    }
    if let (Some(g), Some(b)) = (gamma, beta) {
        same_dtype("beta", b, "gamma", g.dtype)?;
    }
    let swish = matches!(form, GroupNormForm::Swish { .. });
    for (name, t) in [("out", out), ("meanOut", mean), ("rstdOut", rstd)] {
        ew::check_tensor(name, t, FLOATS)?;
        match gamma {
            // GroupNormSwish: the statistics have gamma's dtype.
            Some(g) if swish && name != "out" => same_dtype(name, t, "gamma", g.dtype)?,
            _ => same_dtype(name, t, "self", x.dtype)?,
        }
    }
    crate::ensure!(
        x.rank() >= 2,
        "{api}: self has {} dims; it needs at least 2 (N, C, ...)",
        x.rank()
    );
    let c = x.shape[1] as i64;
    crate::ensure!(
        group > 0,
        "{api}: group is {group}; it must be greater than 0"
    );
    if !matches!(form, GroupNormForm::Plain { .. }) {
        crate::ensure!(
            x.shape[0] > 0 && c > 0,
            "{api}: self has shape {:?}; N and C (dims 0 and 1) must be greater than 0",
            x.shape
        );
    }
    crate::ensure!(
        c % group == 0,
        "{api}: C = {c} (self dim 1) is not divisible by group = {group}"
    );
    if !swish {
        crate::ensure!(eps > 0.0, "{api}: eps is {eps}; it must be greater than 0");
    }
    ew::check_result_shape("out", out, &x.shape)?;
    let stats = [x.shape[0], group as usize];
    for (name, t) in [("meanOut", mean), ("rstdOut", rstd)] {
        crate::ensure!(
            t.shape[..] == stats[..],
            "{api}: '{name}' has shape {:?} but must be (N, group) = {stats:?}",
            t.shape
        );
        t.check_output(name)?;
    }
    for (name, t) in [("gamma", gamma), ("beta", beta)] {
        if let Some(t) = t {
            crate::ensure!(
                t.rank() == 1 && t.shape[0] as i64 == c,
                "{api}: '{name}' has shape {:?} but must be a vector of C = {c} elements",
                t.shape
            );
        }
    }
    use crate::format::Format;
    crate::ensure!(
        x.format == out.format,
        "{api}: self has format {} but out has {}; they must be equal",
        x.format,
        out.format
    );
    crate::ensure!(
        !matches!(x.format, Format::NHWC | Format::HWCN | Format::NDHWC),
        "{api}: self has format {}; channels-last formats are not supported (ND, NC, NCL, NCHW, NCDHW are)",
        x.format
    );
    Ok(())
}

/// The entries of aclnn_group_norm.h and aclnn_group_norm_silu.h.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GroupNormForm {
    /// aclnnGroupNorm, whose N, C and HxW must describe self.
    Plain { n: i64, c: i64, hxw: i64 },
    /// aclnnGroupNormSilu: then SiLU.
    Silu,
    /// aclnnGroupNormSiluV2: then SiLU when activateSilu.
    SiluV2 { activate_silu: bool },
    /// aclnnGroupNormSwish: then y·sigmoid(scale·y) when activate; meanOut/rstdOut have
    /// gamma's dtype.
    Swish { activate: bool, scale: f64 },
}

impl GroupNormForm {
    fn api(self) -> &'static str {
        match self {
            GroupNormForm::Plain { .. } => "aclnnGroupNorm",
            GroupNormForm::Silu => "aclnnGroupNormSilu",
            GroupNormForm::SiluV2 { .. } => "aclnnGroupNormSiluV2",
            GroupNormForm::Swish { .. } => "aclnnGroupNormSwish",
        }
    }
    /// The scale of the sigmoid gate, when there is one.
    fn silu(self) -> Option<f64> {
        match self {
            GroupNormForm::Plain { .. } => None,
            GroupNormForm::Silu => Some(1.0),
            GroupNormForm::SiluV2 { activate_silu } => activate_silu.then_some(1.0),
            GroupNormForm::Swish { activate, scale } => activate.then_some(scale),
        }
    }
}

/// aclnnGroupNorm and the GroupNormSilu forms: self (N, C, *) normalised per (sample, group
/// of C/group channels), then SiLU (y·sigmoid(y)) for the Silu forms; gamma/beta (C) may be
/// NULL (1/0); meanOut/rstdOut (N, group). An empty group has mean 0 and rstd NaN (CANN
/// fills those for an empty self).
#[allow(clippy::too_many_arguments)]
pub fn group_norm(
    form: GroupNormForm,
    x: &TensorDesc,
    gamma: Option<&TensorDesc>,
    beta: Option<&TensorDesc>,
    group: i64,
    eps: f64,
    out: &TensorDesc,
    mean: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<Executor> {
    let api = form.api();
    check_group_norm(form, x, gamma, beta, group, eps, out, mean, rstd)?;
    if let GroupNormForm::Plain { n, c, hxw } = form {
        let spatial: usize = x.shape[2..].iter().product();
        crate::ensure!(
            x.shape[0] as i64 == n && x.shape[1] as i64 == c,
            "{api}: self has shape {:?} but N = {n} and C = {c}: self's dims 0 and 1 must be N and C",
            x.shape
        );
        crate::ensure!(
            spatial as i64 == hxw,
            "{api}: self {:?} has {spatial} elements per channel but HxW = {hxw}",
            x.shape
        );
    }
    let group = group as usize;
    let b = bindings(
        &[Some(x), gamma, beta],
        &[Some(out), Some(mean), Some(rstd)],
    );
    let g = Groups::new(x, group);
    let plan = Rows {
        rows: g.rows.clone(),
        elems: g.elems.clone(),
        terms: vec![(g.operand(0, x, group), 1.0)],
        round: None,
        stat: Stat::Center,
        eps,
        weight: gamma.map(|t| g.per_channel(1, t)),
        weight_offset: 0.0,
        bias: beta.map(|t| g.per_channel(2, t)),
        silu: form.silu(),
        sum_out: None,
        y_out: Some(g.operand(3, out, group)),
        stat_outs: vec![
            (PerRow::of(4, mean), Emit::Mean),
            (PerRow::of(5, rstd), Emit::Rstd),
        ],
        running: None,
    }
    .plan();
    Ok(Executor::new(api, b, plan))
}

/// aclnnGroupNormSwish: GroupNorm of x (N, C, *) with gamma/beta (C; x's dtype, or FLOAT
/// for a 16-bit x), then y·sigmoid(swishScale·y) when activateSwish; meanOut/rstdOut
/// (N, numGroups) in gamma's dtype. dataFormatOptional (CANN suggests "NCHW") does not
/// change the layout: C is dim 1, as CANN's kernel reads it.
#[allow(clippy::too_many_arguments)]
pub fn group_norm_swish(
    x: &TensorDesc,
    gamma: &TensorDesc,
    beta: &TensorDesc,
    num_groups: i64,
    data_format: Option<&str>,
    eps: f64,
    activate_swish: bool,
    swish_scale: f64,
    y: &TensorDesc,
    mean: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<Executor> {
    let _ = data_format;
    let form = GroupNormForm::Swish {
        activate: activate_swish,
        scale: swish_scale,
    };
    group_norm(
        form,
        x,
        Some(gamma),
        Some(beta),
        num_groups,
        eps,
        y,
        mean,
        rstd,
    )
}

// ---------------------------------------------------------------------------------------
// Norm
// ---------------------------------------------------------------------------------------

/// The p of aclnnNorm, read as CANN does (a FLOAT value; ±inf for the max/min norms).
fn p_value(api: &str, p: &Scalar) -> Result<f64> {
    crate::ensure!(
        p.dtype.is_float() || p.dtype.is_int(),
        "{api}: pScalar has dtype {}; it must be a real number (FLOAT)",
        p.dtype
    );
    Ok(p.cast(F32).get::<f32>() as f64)
}

/// aclnnNorm: the p-norm of self over `dim` (empty: every dim), torch.norm's semantics:
/// p = 0 counts non-zeros, ±inf is the max/min |x|, p = 1, 2 and any other p is
/// (Σ|x|^p)^(1/p); accumulated in f64 and rounded once to out (FLOAT32/FLOAT16/BFLOAT16, any
/// of them for any self). An empty self gives 0 everywhere (CANN fills out with 0).
pub fn norm(
    self_: &TensorDesc,
    p: &Scalar,
    dims: &[i64],
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    norm_impl("aclnnNorm", self_, p, dims, keep, out)
}

fn norm_impl(
    api: &'static str,
    self_: &TensorDesc,
    p: &Scalar,
    dims: &[i64],
    keep: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, FLOATS)?;
    ew::check_tensor("out", out, FLOATS)?;
    let p = p_value(api, p)?;
    let ax = axes("dim", dims, self_.rank(), true)?;
    ew::check_result_shape("out", out, &reduced_shape(&self_.shape, &ax, keep))?;
    let kept: Vec<usize> = (0..self_.rank()).filter(|d| !ax.contains(d)).collect();
    let pick = |t: &TensorDesc, dims: &[usize]| -> Vec<isize> {
        dims.iter().map(|&d| t.strides[d]).collect()
    };
    let b = bindings(&[Some(self_)], &[Some(out)]);
    if out.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    let plan = Rows {
        rows: kept.iter().map(|&d| self_.shape[d]).collect(),
        elems: ax.iter().map(|&d| self_.shape[d]).collect(),
        terms: vec![(
            Operand::with_strides(0, self_, pick(self_, &kept), pick(self_, &ax)),
            1.0,
        )],
        round: None,
        stat: Stat::PNorm(p),
        eps: 0.0,
        weight: None,
        weight_offset: 0.0,
        bias: None,
        silu: None,
        sum_out: None,
        y_out: None,
        stat_outs: vec![(PerRow::of(1, out), Emit::Norm)],
        running: None,
    }
    .plan();
    Ok(Executor::new(api, b, plan))
}

// ---------------------------------------------------------------------------------------
// DeepNorm, AddLayerNorm
// ---------------------------------------------------------------------------------------

/// The trailing dims `gamma` spans, and the checks DeepNorm and AddLayerNorm share: beta has
/// gamma's shape, mean and rstd (FLOAT32) hold one value per row.
fn check_affine_rows(
    api: &str,
    x: &TensorDesc,
    gamma: &TensorDesc,
    beta: &TensorDesc,
    mean: &TensorDesc,
    rstd: &TensorDesc,
) -> Result<usize> {
    let begin = gamma_dims(api, "x", x, gamma)?;
    crate::ensure!(
        beta.shape == gamma.shape,
        "{api}: beta has shape {:?} but must have gamma's shape {:?}",
        beta.shape,
        gamma.shape
    );
    let doc = keep_shape(&x.shape, begin);
    check_per_row(api, "meanOut", mean, &x.shape[..begin], &doc)?;
    check_per_row(api, "rstdOut", rstd, &x.shape[..begin], &doc)?;
    Ok(begin)
}

/// aclnnDeepNorm: LayerNorm of `x' = alpha·x + gx` over gamma's dims with gamma and beta;
/// meanOut and rstdOut (FLOAT32) per row.
#[allow(clippy::too_many_arguments)]
pub fn deep_norm(
    x: &TensorDesc,
    gx: &TensorDesc,
    beta: &TensorDesc,
    gamma: &TensorDesc,
    alpha: f64,
    eps: f64,
    mean: &TensorDesc,
    rstd: &TensorDesc,
    y: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnDeepNorm";
    ew::check_tensor("x", x, FLOATS)?;
    for (name, t) in [("gx", gx), ("beta", beta), ("gamma", gamma), ("yOut", y)] {
        ew::check_tensor(name, t, FLOATS)?;
        same_dtype(name, t, "x", x.dtype)?;
    }
    ew::check_tensor("meanOut", mean, RSTD)?;
    ew::check_tensor("rstdOut", rstd, RSTD)?;
    crate::ensure!(
        gx.shape == x.shape,
        "{API}: gx has shape {:?} but must have x's shape {:?}",
        gx.shape,
        x.shape
    );
    ew::check_result_shape("yOut", y, &x.shape)?;
    let begin = check_affine_rows(API, x, gamma, beta, mean, rstd)?;
    let b = bindings(
        &[Some(x), Some(gx), Some(beta), Some(gamma)],
        &[Some(mean), Some(rstd), Some(y)],
    );
    let plan = Rows {
        rows: x.shape[..begin].to_vec(),
        elems: x.shape[begin..].to_vec(),
        terms: vec![
            (Operand::split(0, x, begin), alpha),
            (Operand::split(1, gx, begin), 1.0),
        ],
        round: None,
        stat: Stat::Center,
        eps,
        weight: Some(Operand::per_elem(3, gamma, begin)),
        weight_offset: 0.0,
        bias: Some(Operand::per_elem(2, beta, begin)),
        silu: None,
        sum_out: None,
        y_out: Some(Operand::split(6, y, begin)),
        stat_outs: vec![
            (PerRow::of(4, mean), Emit::Mean),
            (PerRow::of(5, rstd), Emit::Rstd),
        ],
        running: None,
    }
    .plan();
    Ok(Executor::new(API, b, plan))
}

/// AddLayerNorm's dtype combinations on Atlas A2 (x1, x2, gamma = beta, bias, yOut = xOut).
const ADD_LAYER_NORM_DTYPES: &[(DType, DType, DType, DType, DType)] = &[
    (F32, F16, F32, F32, F32),
    (F32, BF16, F32, F32, F32),
    (F16, F32, F32, F32, F32),
    (BF16, F32, F32, F32, F32),
    (F16, F16, F32, F16, F16),
    (BF16, BF16, F32, BF16, BF16),
    (F16, F16, F16, F16, F16),
    (BF16, BF16, BF16, BF16, BF16),
    (F32, F32, F32, F32, F32),
];

/// aclnnAddLayerNorm: `x = x1 + x2 + biasOptional` (bias of gamma's or x1's shape), then
/// LayerNorm of x over gamma's dims; xOut receives x when additionalOutput (it may be NULL
/// otherwise). x is not rounded before it is normalised: one rounding per output. An empty
/// x1 writes nothing.
#[allow(clippy::too_many_arguments)]
pub fn add_layer_norm(
    x1: &TensorDesc,
    x2: &TensorDesc,
    gamma: &TensorDesc,
    beta: &TensorDesc,
    bias: Option<&TensorDesc>,
    eps: f64,
    additional_output: bool,
    y: &TensorDesc,
    mean: &TensorDesc,
    rstd: &TensorDesc,
    x_out: Option<&TensorDesc>,
) -> Result<Executor> {
    const API: &str = "aclnnAddLayerNorm";
    let x_out = if additional_output {
        Some(x_out.ok_or_else(|| {
            crate::Error::Null(format!(
                "{API}: argument 'xOut' is NULL but additionalOutput is true"
            ))
        })?)
    } else {
        None
    };
    for (name, t) in [
        ("x1", x1),
        ("x2", x2),
        ("gamma", gamma),
        ("beta", beta),
        ("yOut", y),
    ] {
        ew::check_tensor(name, t, FLOATS)?;
    }
    if let Some(t) = bias {
        ew::check_tensor("biasOptional", t, FLOATS)?;
    }
    if let Some(t) = x_out {
        ew::check_tensor("xOut", t, FLOATS)?;
        same_dtype("xOut", t, "yOut", y.dtype)?;
    }
    ew::check_tensor("meanOut", mean, RSTD)?;
    ew::check_tensor("rstdOut", rstd, RSTD)?;
    same_dtype("beta", beta, "gamma", gamma.dtype)?;
    let bias_dt = bias.map_or(y.dtype, |b| b.dtype);
    crate::ensure!(
        ADD_LAYER_NORM_DTYPES.contains(&(x1.dtype, x2.dtype, gamma.dtype, bias_dt, y.dtype)),
        "{API}: the dtypes x1 {}, x2 {}, gamma/beta {}, biasOptional {bias_dt}, yOut {} are not a supported combination \
         (same 16-bit dtype throughout, optionally FLOAT32 gamma/beta; or FLOAT32 with one 16-bit x1/x2)",
        x1.dtype,
        x2.dtype,
        gamma.dtype,
        y.dtype
    );
    check_sum_shapes(API, x1, x2, y, x_out)?;
    let begin = check_affine_rows(API, x1, gamma, beta, mean, rstd)?;
    let bias_op = match bias {
        None => None,
        Some(t) if t.shape == x1.shape => Some(Operand::split(2, t, begin)),
        Some(t) if t.shape == gamma.shape => Some(Operand::per_elem(2, t, begin)),
        Some(t) => crate::bail!(
            "{API}: biasOptional has shape {:?}; it must have gamma's shape {:?} or x1's {:?}",
            t.shape,
            gamma.shape,
            x1.shape
        ),
    };
    let b = bindings(
        &[Some(x1), Some(x2), bias, Some(gamma), Some(beta)],
        &[Some(y), Some(mean), Some(rstd), x_out],
    );
    if x1.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    let mut terms = vec![
        (Operand::split(0, x1, begin), 1.0),
        (Operand::split(1, x2, begin), 1.0),
    ];
    terms.extend(bias_op.map(|o| (o, 1.0)));
    let plan = Rows {
        rows: x1.shape[..begin].to_vec(),
        elems: x1.shape[begin..].to_vec(),
        terms,
        round: None,
        stat: Stat::Center,
        eps,
        weight: Some(Operand::per_elem(3, gamma, begin)),
        weight_offset: 0.0,
        bias: Some(Operand::per_elem(4, beta, begin)),
        silu: None,
        sum_out: x_out.map(|t| Operand::split(8, t, begin)),
        y_out: Some(Operand::split(5, y, begin)),
        stat_outs: vec![
            (PerRow::of(6, mean), Emit::Mean),
            (PerRow::of(7, rstd), Emit::Rstd),
        ],
        running: None,
    }
    .plan();
    Ok(Executor::new(API, b, plan))
}

// ---------------------------------------------------------------------------------------
// BatchNorm
// ---------------------------------------------------------------------------------------

/// aclnnBatchNorm: input (N, C, *) normalised per channel. Training: with the batch's mean
/// and biased variance; saveMean receives the mean and saveInvstd, as CANN documents for
/// Atlas A2, the variance (not its inverse square root); runningMean/runningVar (when
/// given) are updated as `(1 − momentum)·running + momentum·batch`, the variance unbiased.
/// Inference: with runningMean and runningVar (both required here), saveMean/saveInvstd
/// untouched. weight/bias may be NULL (1/0). An empty input writes 0 into saveMean and NaN
/// into saveInvstd.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    input: &TensorDesc,
    weight: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    running_mean: Option<&TensorDesc>,
    running_var: Option<&TensorDesc>,
    training: bool,
    momentum: f64,
    eps: f64,
    output: &TensorDesc,
    save_mean: Option<&TensorDesc>,
    save_invstd: Option<&TensorDesc>,
) -> Result<Executor> {
    const API: &str = "aclnnBatchNorm";
    if training {
        for (name, t) in [("saveMean", save_mean), ("saveInvstd", save_invstd)] {
            if t.is_none() {
                return Err(crate::Error::Null(format!(
                    "{API}: argument '{name}' is NULL; training needs saveMean and saveInvstd"
                )));
            }
        }
    }
    ew::check_tensor("input", input, FLOATS)?;
    ew::check_tensor("output", output, FLOATS)?;
    if training {
        for (name, t) in [("saveMean", save_mean), ("saveInvstd", save_invstd)] {
            ew::check_tensor(name, t.unwrap(), FLOATS)?;
        }
    }
    let params = [
        ("weight", weight),
        ("bias", bias),
        ("runningMean", running_mean),
        ("runningVar", running_var),
    ];
    for (name, t) in params {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
        }
    }
    use crate::format::Format;
    crate::ensure!(
        input.format == output.format,
        "{API}: input has format {} but output has {}; they must be equal",
        input.format,
        output.format
    );
    crate::ensure!(
        !matches!(input.format, Format::NHWC | Format::NDHWC | Format::HWCN),
        "{API}: input has format {}; only ND, NC, NCL, NCHW and NCDHW are supported",
        input.format
    );
    crate::ensure!(
        (2..=8).contains(&input.rank()),
        "{API}: input has {} dims; it must have 2 to 8 (N, C, ...)",
        input.rank()
    );
    ew::check_result_shape("output", output, &input.shape)?;
    let c = input.shape[1];
    let per_channel = params.iter().copied().chain(if training {
        vec![("saveMean", save_mean), ("saveInvstd", save_invstd)]
    } else {
        vec![]
    });
    for (name, t) in per_channel {
        if let Some(t) = t {
            crate::ensure!(
                t.rank() == 1 && t.shape[0] == c,
                "{API}: '{name}' has shape {:?} but must be a vector of the C = {c} channels",
                t.shape
            );
        }
    }
    let running = match (running_mean, running_var) {
        (Some(m), Some(v)) => {
            m.check_output("runningMean")?;
            v.check_output("runningVar")?;
            Some(Running {
                mean: PerRow::of(3, m),
                var: PerRow::of(4, v),
                momentum,
                use_for_stats: !training,
                invstd: false,
            })
        }
        (None, None) if training => None,
        _ if !training => crate::bail!(
            "{API}: inference (training false) normalises with runningMean and runningVar, which must both be given"
        ),
        _ => crate::bail!("{API}: runningMean and runningVar must be given together or both be NULL"),
    };
    let (save_mean, save_invstd) = if training {
        (save_mean, save_invstd)
    } else {
        (None, None)
    };
    for (name, t) in [("saveMean", save_mean), ("saveInvstd", save_invstd)] {
        if let Some(t) = t {
            t.check_output(name)?;
        }
    }
    let mut b = bindings(
        &[Some(input), weight, bias, running_mean, running_var],
        &[Some(output), save_mean, save_invstd],
    );
    if training && running.is_some() {
        // Training writes the running statistics in place: outputs too.
        b.outputs.extend([3, 4]);
    }
    // Rows are the channels, each over (N, spatial...).
    let rows_of = |t: &TensorDesc| vec![t.strides[1]];
    let elems_of = |t: &TensorDesc| {
        let mut e = vec![t.strides[0]];
        e.extend_from_slice(&t.strides[2..]);
        e
    };
    let mut elems = vec![input.shape[0]];
    elems.extend_from_slice(&input.shape[2..]);
    let per_row = |binding: usize, t: &TensorDesc| {
        Operand::with_strides(binding, t, vec![t.strides[0]], vec![0; elems.len()])
    };
    let mut stat_outs = Vec::new();
    if let Some(t) = save_mean {
        stat_outs.push((PerRow::of(6, t), Emit::Mean));
    }
    if let Some(t) = save_invstd {
        stat_outs.push((PerRow::of(7, t), Emit::Var));
    }
    let plan = Rows {
        rows: vec![c],
        elems: elems.clone(),
        terms: vec![(
            Operand::with_strides(0, input, rows_of(input), elems_of(input)),
            1.0,
        )],
        round: None,
        stat: Stat::Center,
        eps,
        weight: weight.map(|t| per_row(1, t)),
        weight_offset: 0.0,
        bias: bias.map(|t| per_row(2, t)),
        silu: None,
        sum_out: None,
        y_out: Some(Operand::with_strides(
            5,
            output,
            rows_of(output),
            elems_of(output),
        )),
        stat_outs,
        // An empty batch has no statistics to fold into the running ones.
        running: if input.is_empty() && training {
            None
        } else {
            running
        },
    }
    .plan();
    Ok(Executor::new(API, b, plan))
}

// ---------------------------------------------------------------------------------------
// LinalgVectorNorm, Renorm
// ---------------------------------------------------------------------------------------

/// aclnnLinalgVectorNorm: torch.linalg.vector_norm: Norm's p-norms (ord) over `dims`
/// (empty: every dim), out's dtype `dtype`.
pub fn linalg_vector_norm(
    self_: &TensorDesc,
    ord: &Scalar,
    dims: &[i64],
    keep: bool,
    dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnLinalgVectorNorm";
    let d = DType::from_raw(dtype)
        .map_err(|e| crate::Error::Invalid(format!("argument 'dtype': {e}")))?;
    crate::ensure!(
        out.dtype == d,
        "{API}: out has dtype {} but dtype is {d}; they must be equal",
        out.dtype
    );
    crate::ensure!(
        FLOATS.contains(&d),
        "{API}: dtype {d} is not supported; supported: FLOAT, FLOAT16, BFLOAT16"
    );
    norm_impl(API, self_, ord, dims, keep, out)
}

fn renorm_impl(
    api: &'static str,
    self_: &TensorDesc,
    p: &Scalar,
    dim: i64,
    max_norm: &Scalar,
    out: Option<&TensorDesc>,
) -> Result<Executor> {
    let out_name = if out.is_some() { "out" } else { "selfRef" };
    let target = out.unwrap_or(self_);
    ew::check_tensor("self", self_, FLOATS)?;
    ew::check_tensor(out_name, target, FLOATS)?;
    same_dtype(out_name, target, "self", self_.dtype)?;
    crate::ensure!(
        self_.format == target.format,
        "{api}: self has format {} but {out_name} has {}; they must be equal",
        self_.format,
        target.format
    );
    crate::ensure!(
        self_.rank() >= 2,
        "{api}: self has {} dims; it needs at least 2",
        self_.rank()
    );
    ew::check_result_shape(out_name, target, &self_.shape)?;
    let p = p_value(api, p)?;
    crate::ensure!(
        p >= 0.0,
        "{api}: p is {p}; only non-negative p is supported"
    );
    let axis = ew::axis("dim", dim, self_.rank(), "self")?;
    let max_norm = p_value(api, max_norm)?;
    crate::ensure!(
        max_norm >= 0.0,
        "{api}: maxNorm is {max_norm}; it must not be negative"
    );
    let others: Vec<usize> = (0..self_.rank()).filter(|&d| d != axis).collect();
    let pick = |t: &TensorDesc, dims: &[usize]| -> Vec<isize> {
        dims.iter().map(|&d| t.strides[d]).collect()
    };
    let (b, out_binding) = match out {
        Some(o) => (bindings(&[Some(self_)], &[Some(o)]), 1),
        None => (
            Bindings {
                tensors: std::sync::Arc::new(vec![Some(self_.clone())]),
                n_inputs: 1,
                outputs: smallvec::smallvec![0],
            },
            0,
        ),
    };
    if self_.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    let plan = Rows {
        rows: vec![self_.shape[axis]],
        elems: others.iter().map(|&d| self_.shape[d]).collect(),
        terms: vec![(
            Operand::with_strides(0, self_, vec![self_.strides[axis]], pick(self_, &others)),
            1.0,
        )],
        round: None,
        stat: Stat::Renorm { p, max_norm },
        eps: 0.0,
        weight: None,
        weight_offset: 0.0,
        bias: None,
        silu: None,
        sum_out: None,
        y_out: Some(Operand::with_strides(
            out_binding,
            target,
            vec![target.strides[axis]],
            pick(target, &others),
        )),
        stat_outs: Vec::new(),
        running: None,
    }
    .plan();
    Ok(Executor::new(api, b, plan))
}

/// aclnnRenorm: torch.renorm: each slice along `dim` whose p-norm exceeds maxNorm is scaled
/// by maxNorm / (norm + 1e-7).
pub fn renorm(
    self_: &TensorDesc,
    p: &Scalar,
    dim: i64,
    max_norm: &Scalar,
    out: &TensorDesc,
) -> Result<Executor> {
    renorm_impl("aclnnRenorm", self_, p, dim, max_norm, Some(out))
}

/// aclnnInplaceRenorm: Renorm into selfRef.
pub fn inplace_renorm(
    self_ref: &TensorDesc,
    p: &Scalar,
    dim: i64,
    max_norm: &Scalar,
) -> Result<Executor> {
    renorm_impl("aclnnInplaceRenorm", self_ref, p, dim, max_norm, None)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "InstanceNorm",
        a: &[F32, F16],
        b: &[F32, F16],
        out: &[F32, F16],
        rule: "refused (ACLNN_ERR_PARAM_INVALID): CANN runs it on the Atlas inference series (310P) only, not on Atlas A2",
    },
    Entry {
        ops: "LayerNorm, LayerNormWithImplMode, FastLayerNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "(x − mean)·rstd·weight + bias over the trailing normalizedShape dims (b: weight/bias, NULL = 1/0); mean, rstd optional",
    },
    Entry {
        ops: "RmsNorm, GemmaRmsNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "x·rstd·gamma (Gemma: 1 + gamma) over gamma's dims, rstd = 1/√(mean(x²) + eps) (FLOAT32)",
    },
    Entry {
        ops: "AddRmsNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "x = x1 + x2 (xOut), then RmsNorm of x (yOut, rstdOut); 16-bit only without rstdOut",
    },
    Entry {
        ops: "GroupNorm, GroupNormSilu, GroupNormSiluV2, GroupNormSwish",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "normalised per (sample, group of channels), per-channel gamma/beta; (N, group) mean and rstd; Silu: then y·sigmoid(y); Swish: y·sigmoid(scale·y)",
    },
    Entry {
        ops: "DeepNorm, AddLayerNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "LayerNorm of alpha·x + gx (DeepNorm) or of x1 + x2 + bias (AddLayerNorm, xOut optional); mean, rstd FLOAT32",
    },
    Entry {
        ops: "Norm, LinalgVectorNorm",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "p-norm over dims (p = 0, ±inf, any real), f64 accumulation",
    },
    Entry {
        ops: "BatchNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "per channel over (N, *): batch statistics and running-statistics update (training) or the running ones (inference); saveInvstd holds the variance (A2)",
    },
    Entry {
        ops: "Renorm, InplaceRenorm",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "slices along dim with p-norm > maxNorm scaled by maxNorm / (norm + 1e-7)",
    },
];

/// aclnnInstanceNorm (aclnn_instance_norm.h): CANN implements it for the Atlas inference
/// series (Ascend 310P) only, and its op_api refuses every other platform right after its
/// NULL checks — Atlas A2 (Ascend910B, the platform this library presents) included. So
/// does this one: the header is whole, every call is ACLNN_ERR_PARAM_INVALID.
#[allow(clippy::too_many_arguments)]
pub fn instance_norm(
    _x: &TensorDesc,
    _gamma: &TensorDesc,
    _beta: &TensorDesc,
    _data_format: &str,
    _eps: f64,
    _y: &TensorDesc,
    _mean: &TensorDesc,
    _variance: &TensorDesc,
) -> Result<Executor> {
    crate::bail!(
        "InstanceNorm is supported on the Atlas inference series (Ascend 310P) only; CANN \
         refuses it on Atlas A2 (Ascend910B), the platform this library presents"
    )
}
