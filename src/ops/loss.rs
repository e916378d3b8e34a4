//! Losses: SoftmaxCrossEntropyWithLogits, and the element-wise losses MseLoss and
//! SmoothL1Loss with their reductions; MseLossOut, L1Loss, SoftMarginLoss, KlDiv,
//! BinaryCrossEntropy and BinaryCrossEntropyWithLogits run on the element-wise loss engine
//! (`LossPlan`, below): up to four broadcast operands, reduced over leading dims, the same
//! f64 terms and sums and bound as described next.
//!
//! Element-wise losses: self and target broadcast and promote; per element
//! ℓ(x, y) = (x − y)² (MseLoss) or, with d = |x − y|, d < beta ? 0.5·d²/beta : d − 0.5·beta
//! (SmoothL1Loss; beta 0 gives d). reduction 0 (none) writes ℓ into out of the broadcast
//! shape through the element-wise engine; 1 (mean) and 2 (sum) write one 0-d out: the f64
//! sum of ℓ over fixed blocks of 4096 elements, the blocks' partial sums added in order (the
//! result does not depend on the thread count), divided by the count for the mean (an empty
//! input gives NaN for the mean, 0 for the sum, as the device), rounded once into the
//! promoted dtype and then converted to out. Bound: ≤ 1 ulp of the promoted dtype plus the
//! sum's n·2⁻⁵³ relative error.
//!
//! Per row n of the (N, C) features x and labels y, in f64 from the exact values:
//! m = max_j x_j, lse = m + ln Σ_j e^(x_j − m) (max-subtracted, so no overflow),
//! loss_n = −Σ_j y_j·(x_j − lse), backprop_nj = e^(x_j − lse) − y_j, each rounded once into
//! the features' dtype: within 0.5 ulp plus the f64 sums' error (≤ C·2⁻⁵² relative to
//! Σ|y_j·(x_j − lse)|), i.e. ≤ 1 ulp for rows of moderate cancellation. Rows run in parallel.

use super::activation::Real;
use super::catalog::Entry;
use super::elementwise::{self as ew, Arg};
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::{Element, Wide};
use crate::engine::kernel::{binary, BinaryOp};
use crate::engine::{KernelFn, Params, Via};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// The A2 list (aclnn_softmax_cross_entropy_with_logits.cpp).
const LIST: &[DType] = &[F32, F16, BF16];

/// A planned SoftmaxCrossEntropyWithLogits: bindings features, labels, loss, backprop.
struct Plan {
    dtype: DType,
    rows: usize,
    cols: usize,
    /// (offset, row stride, column stride) of features, labels and backprop; loss (offset, stride).
    x: (usize, isize, isize),
    y: (usize, isize, isize),
    bp: (usize, isize, isize),
    loss: (usize, isize),
}

impl Plan {
    fn run_typed<T: Element>(&self, a: [usize; 4]) {
        let [xa, ya, la, ba] = a;
        let at = |v: (usize, isize, isize), n: usize, j: usize| {
            v.0 as isize + n as isize * v.1 + j as isize * v.2
        };
        // Rows in blocks, one task per block.
        let per = self
            .rows
            .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
            .max(1);
        crate::engine::run_tasks(self.rows.div_ceil(per), |t| {
            for n in t * per..((t + 1) * per).min(self.rows) {
                // SAFETY (every load/store): indexes inside views checked against their storage.
                let x = |j| unsafe { load::<T>(xa, at(self.x, n, j)) };
                let y = |j| unsafe { load::<T>(ya, at(self.y, n, j)) };
                let m = (0..self.cols).map(x).fold(f64::NEG_INFINITY, |m, v| {
                    if v > m || v.is_nan() {
                        v
                    } else {
                        m
                    }
                });
                let lse = m + (0..self.cols).map(|j| (x(j) - m).exp()).sum::<f64>().ln();
                let loss = -(0..self.cols).map(|j| y(j) * (x(j) - lse)).sum::<f64>();
                // backprop last, element by element: a backprop that is features' or labels'
                // own view reads each element before writing it.
                for j in 0..self.cols {
                    let v = (x(j) - lse).exp() - y(j);
                    unsafe { store::<T>(ba, at(self.bp, n, j), v) };
                }
                unsafe { store::<T>(la, self.loss.0 as isize + n as isize * self.loss.1, loss) };
            }
        });
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let a = [t.addr(0)?, t.addr(1)?, t.addr(2)?, t.addr(3)?];
        match self.dtype {
            F16 => self.run_typed::<half::f16>(a),
            BF16 => self.run_typed::<half::bf16>(a),
            _ => self.run_typed::<f32>(a),
        }
        Ok(())
    }
}

/// aclnnSoftmaxCrossEntropyWithLogits: features and labels (N, C) of one dtype, loss (N)
/// and backprop (N, C) of the features' dtype; f32/f16/bf16; empty tensors do nothing.
/// loss and backprop may not overlap the inputs (but backprop may be exactly features' or
/// labels' view) or each other.
pub fn softmax_cross_entropy_with_logits(
    features: &TensorDesc,
    labels: &TensorDesc,
    loss: &TensorDesc,
    backprop: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnSoftmaxCrossEntropyWithLogits";
    for (name, t) in [
        ("features", features),
        ("labels", labels),
        ("loss", loss),
        ("backprop", backprop),
    ] {
        ew::check_tensor(name, t, LIST)?;
    }
    for (name, t) in [("loss", loss), ("backprop", backprop), ("labels", labels)] {
        crate::ensure!(
            t.dtype == features.dtype,
            "{name} has dtype {} but must have features' dtype {}",
            t.dtype,
            features.dtype
        );
    }
    crate::ensure!(
        features.rank() == 2 && labels.rank() == 2,
        "features has {} dims and labels {}: both must be 2-D (batch, classes)",
        features.rank(),
        labels.rank()
    );
    crate::ensure!(
        labels.shape == features.shape,
        "labels has shape {:?} but must have features' shape {:?}",
        labels.shape,
        features.shape
    );
    let (rows, cols) = (features.shape[0], features.shape[1]);
    ew::check_result_shape("loss", loss, &[rows])?;
    ew::check_result_shape("backprop", backprop, &features.shape)?;
    let same = |a: &TensorDesc, b: &TensorDesc| {
        a.addr == b.addr && a.offset == b.offset && a.strides == b.strides
    };
    for (an, a) in [("loss", loss), ("backprop", backprop)] {
        for (bn, b) in [("features", features), ("labels", labels)] {
            crate::ensure!(
                !overlap(a, b) || (an == "backprop" && same(a, b)),
                "{an} overlaps {bn} in memory: {API} needs outputs apart from its inputs (or backprop exactly an input's view)"
            );
        }
    }
    crate::ensure!(
        !overlap(loss, backprop),
        "loss and backprop overlap in memory"
    );
    let bindings = Bindings {
        tensors: std::sync::Arc::new(
            [features, labels, loss, backprop]
                .iter()
                .map(|t| Some((*t).clone()))
                .collect(),
        ),
        n_inputs: 2,
        outputs: smallvec::smallvec![2, 3],
    };
    if features.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let m = |t: &TensorDesc| (t.offset, t.strides[0], t.strides[1]);
    let plan = Plan {
        dtype: features.dtype,
        rows,
        cols,
        x: m(features),
        y: m(labels),
        bp: m(backprop),
        loss: (loss.offset, loss.strides[0]),
    };
    Ok(Executor::new(API, bindings, plan))
}

// ---------------------------------------------------------------------------------------
// Element-wise losses and their reductions
// ---------------------------------------------------------------------------------------

/// The per-element losses.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pointwise {
    Mse,
    SmoothL1 { beta: f64 },
}

impl Pointwise {
    #[inline(always)]
    fn eval(self, x: f64, y: f64) -> f64 {
        match self {
            Pointwise::Mse => (x - y) * (x - y),
            Pointwise::SmoothL1 { beta } => {
                let d = (x - y).abs();
                if d < beta {
                    0.5 * d * d / beta
                } else {
                    d - 0.5 * beta
                }
            }
        }
    }
}

/// ℓ(a, b) for reduction "none" on the element-wise engine: `SMOOTH` picks SmoothL1 (beta
/// in `Params::scalars[0]`, f64).
struct LossOp<T, const SMOOTH: bool> {
    f: Pointwise,
    _t: std::marker::PhantomData<T>,
}
impl<T: Real, const SMOOTH: bool> BinaryOp for LossOp<T, SMOOTH> {
    type A = T;
    type B = T;
    type O = T;
    fn new(p: &Params) -> Self {
        let f = if SMOOTH {
            Pointwise::SmoothL1 {
                beta: p.scalars[0].get::<f64>(),
            }
        } else {
            Pointwise::Mse
        };
        LossOp {
            f,
            _t: std::marker::PhantomData,
        }
    }
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::narrow(self.f.eval(a.widen(), b.widen()))
    }
}

/// Elements per block of a reduced loss's sum.
const BLOCK: usize = 4096;

/// A reduced (mean or sum) element-wise loss into a 0-d out: bindings self, target, out.
struct Reduced {
    f: Pointwise,
    mean: bool,
    shape: Vec<usize>,
    /// Broadcast strides and offsets of self and target; their dtypes.
    strides: [Vec<isize>; 2],
    offsets: [usize; 2],
    dtypes: [DType; 2],
    /// The promoted dtype (the result rounds into it first) and out's.
    promoted: DType,
    out_dtype: DType,
    out_offset: usize,
}

/// The reader of one element of a float dtype, as f64.
fn loader(d: DType) -> unsafe fn(usize, isize) -> f64 {
    match d {
        F16 => load::<half::f16>,
        BF16 => load::<half::bf16>,
        F64 => load::<f64>,
        _ => load::<f32>,
    }
}

impl Reduced {
    fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// The sum of ℓ over flat elements [from, to).
    fn block_sum(&self, from: usize, to: usize, addr: [usize; 2]) -> f64 {
        let r = self.shape.len();
        let lx = loader(self.dtypes[0]);
        let ly = loader(self.dtypes[1]);
        // The N-d index of `from`, then counted up.
        let mut idx = vec![0usize; r];
        let mut rest = from;
        for d in (0..r).rev() {
            idx[d] = rest % self.shape[d];
            rest /= self.shape[d];
        }
        let at = |k: usize, idx: &[usize]| -> isize {
            self.offsets[k] as isize
                + idx
                    .iter()
                    .zip(&self.strides[k])
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>()
        };
        let mut s = 0.0;
        for _ in from..to {
            // SAFETY: the indexes are inside the views, checked against their storage.
            let (x, y) = unsafe { (lx(addr[0], at(0, &idx)), ly(addr[1], at(1, &idx))) };
            s += self.f.eval(x, y);
            for d in (0..r).rev() {
                idx[d] += 1;
                if idx[d] < self.shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        s
    }
}

impl Work for Reduced {
    fn workspace_size(&self) -> u64 {
        (self.numel().div_ceil(BLOCK) * 8) as u64
    }
    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        let addr = [t.addr(0)?, t.addr(1)?];
        let out = t.addr(2)?;
        let n = self.numel();
        let blocks = n.div_ceil(BLOCK);
        let partial = ws.addr as *mut f64;
        let partial_addr = partial as usize;
        // (run_tasks always runs task 0: an empty input has no block to run)
        crate::engine::run_tasks(blocks.max(1), |b| {
            if b >= blocks {
                return;
            }
            let v = self.block_sum(b * BLOCK, ((b + 1) * BLOCK).min(n), addr);
            // SAFETY: block b's own slot of the workspace (blocks·8 bytes).
            unsafe { *(partial_addr as *mut f64).add(b) = v };
        });
        // SAFETY: the blocks wrote every slot; run_tasks returned after all of them.
        let sum: f64 = (0..blocks).map(|b| unsafe { *partial.add(b) }).sum();
        let v = if self.mean { sum / n as f64 } else { sum };
        let v = crate::scalar::Scalar::from_value(v)
            .cast(self.promoted)
            .cast(self.out_dtype);
        // SAFETY: out's one element.
        unsafe {
            std::ptr::copy_nonoverlapping(
                v.bytes().as_ptr(),
                (out as *mut u8).add(self.out_offset * self.out_dtype.size()),
                self.out_dtype.size(),
            )
        };
        Ok(())
    }
}

/// MseLoss / SmoothL1Loss: checks and the plan for the reduction.
fn pointwise_loss(
    api: &'static str,
    f: Pointwise,
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out_name: &'static str,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, LIST)?;
    ew::check_tensor("target", target, LIST)?;
    ew::check_tensor(out_name, out, LIST)?;
    let p = crate::dtype::promote(self_.dtype, target.dtype).ok_or_else(|| {
        crate::Error::Invalid(format!(
            "self dtype {} and target dtype {} cannot be promoted",
            self_.dtype, target.dtype
        ))
    })?;
    ew::check_out_cast(p, out_name, out)?;
    crate::ensure!(
        (0..=2).contains(&reduction),
        "reduction is {reduction}: it must be 0 (none), 1 (mean) or 2 (sum)"
    );
    let shape =
        crate::broadcast::broadcast_shapes(&[("self", &self_.shape), ("target", &target.shape)])?;
    if reduction == 0 {
        ew::check_out_shape(
            p,
            &[("self", &self_.shape), ("target", &target.shape)],
            out_name,
            out,
        )?;
        out.check_output(out_name)?;
        let v = Via::of(p);
        let (k, params) = match (f, p.compute()) {
            (Pointwise::Mse, F64) => (binary::<LossOp<f64, false>> as KernelFn, Params::default()),
            (Pointwise::Mse, _) => (binary::<LossOp<f32, false>> as KernelFn, Params::default()),
            (Pointwise::SmoothL1 { beta }, c) => {
                let params = Params {
                    scalars: smallvec::smallvec![crate::scalar::Scalar::from_value(beta)],
                    ints: Default::default(),
                };
                let k = if c == F64 {
                    binary::<LossOp<f64, true>> as KernelFn
                } else {
                    binary::<LossOp<f32, true>>
                };
                (k, params)
            }
        };
        return ew::executor(
            api,
            &[Arg::Tensor("self", self_), Arg::Tensor("target", target)],
            &[v, v],
            out_name,
            out,
            v,
            k,
            params,
            false,
        );
    }
    crate::ensure!(
        out.rank() == 0,
        "{out_name} has shape {:?}: a mean or sum is a 0-d tensor",
        out.shape
    );
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(self_.clone()),
            Some(target.clone()),
            Some(out.clone()),
        ]),
        n_inputs: 2,
        outputs: smallvec::smallvec![2],
    };
    let strides = [
        crate::engine::broadcast_strides(&shape, &self_.shape, &self_.strides).to_vec(),
        crate::engine::broadcast_strides(&shape, &target.shape, &target.strides).to_vec(),
    ];
    let plan = Reduced {
        f,
        mean: reduction == 1,
        shape: shape.to_vec(),
        strides,
        offsets: [self_.offset, target.offset],
        dtypes: [self_.dtype, target.dtype],
        promoted: p,
        out_dtype: out.dtype,
        out_offset: out.offset,
    };
    Ok(Executor::new(api, bindings, plan))
}

/// aclnnMseLoss: (self − target)², reduced by `reduction` (0 none, 1 mean, 2 sum).
pub fn mse_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    pointwise_loss(
        "aclnnMseLoss",
        Pointwise::Mse,
        self_,
        target,
        reduction,
        "out",
        out,
    )
}

/// aclnnSmoothL1Loss: the Huber-like loss with threshold beta (≥ 0), reduced by `reduction`.
pub fn smooth_l1_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    beta: f32,
    result: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(beta >= 0.0, "beta is {beta}: it must be >= 0");
    pointwise_loss(
        "aclnnSmoothL1Loss",
        Pointwise::SmoothL1 { beta: beta as f64 },
        self_,
        target,
        reduction,
        "result",
        result,
    )
}

// ---------------------------------------------------------------------------------------
// The element-wise loss engine: ℓ over broadcast operands, reduced over leading dims
// ---------------------------------------------------------------------------------------

/// The per-element losses of the engine below: ℓ(x, y, w, pw) with x = self, y = target,
/// w the weight (1 when absent), pw the positive-class weight (BCEWithLogits; 1 when absent).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elementwise {
    Mse,
    L1,
    /// ln(1 + e^(−y·x)).
    SoftMargin,
    /// logTarget: e^y·(y − x); else y·(ln y − x) for y > 0 and NaN for y ≤ 0 (aclnnKlDiv.md:
    /// the device's kernel, unlike torch's xlogy, gives NaN at y = 0).
    KlDiv {
        log_target: bool,
    },
    /// −w·(y·max(ln x, −100) + (1 − y)·max(ln(1 − x), −100)) (torch's clamp of the logs).
    Bce,
    /// w·((1 − y)·x + (1 + (pw − 1)·y)·(ln(1 + e^(−|x|)) + max(−x, 0))); without a pw the
    /// factor is exactly 1 (so an infinite y gives what torch gives).
    BceLogits {
        pos_weight: bool,
    },
}

impl Elementwise {
    #[inline(always)]
    fn eval(self, x: f64, y: f64, w: f64, pw: f64) -> f64 {
        match self {
            Elementwise::Mse => (x - y) * (x - y),
            Elementwise::L1 => (x - y).abs(),
            Elementwise::SoftMargin => {
                let z = -y * x;
                if z > 0.0 {
                    z + (-z).exp().ln_1p()
                } else {
                    z.exp().ln_1p()
                }
            }
            Elementwise::KlDiv { log_target: true } => y.exp() * (y - x),
            Elementwise::KlDiv { log_target: false } => {
                if y > 0.0 {
                    y * (y.ln() - x)
                } else {
                    f64::NAN
                }
            }
            Elementwise::Bce => {
                let lx = x.ln().max(-100.0);
                let l1x = (-x).ln_1p().max(-100.0);
                -w * (y * lx + (1.0 - y) * l1x)
            }
            Elementwise::BceLogits { pos_weight } => {
                if x == f64::NEG_INFINITY {
                    // torch's form, log(e^(−m) + e^(−x−m)) + m with m = max(−x, 0), is
                    // inf − inf there: NaN, whatever y and the weights.
                    return f64::NAN;
                }
                let lw = if pos_weight {
                    1.0 + (pw - 1.0) * y
                } else {
                    1.0
                };
                w * ((1.0 - y) * x + lw * ((-x.abs()).exp().ln_1p() + (-x).max(0.0)))
            }
        }
    }
    /// ℓ in wrapping i64 arithmetic (L1Loss of int64).
    #[inline(always)]
    fn eval_i64(self, x: i64, y: i64) -> i64 {
        x.wrapping_sub(y).wrapping_abs()
    }
}

/// One operand of the loss engine: where its elements are (broadcast strides over the
/// engine's shape) and its dtype.
#[derive(Clone, Debug)]
struct LossOperand {
    binding: usize,
    dtype: DType,
    offset: usize,
    strides: Vec<isize>,
}

/// A planned element-wise loss: out[j] = Σ_i ℓ(operands at (i, j)) / divisor, i over the
/// first `lead` dims of `shape` (none: 0 dims, one term; MseLossOut: dim 0; mean/sum: all
/// dims) and j over the rest, which are out's dims. Every term is evaluated in f64 from the
/// operands' values converted to `promoted`, summed in f64 in index order (a full reduction
/// in fixed blocks of `BLOCK` whose partial sums are added in order: the result does not
/// depend on the thread count), divided, rounded once into `promoted` and then converted to
/// out. int64 (L1Loss) computes in wrapping i64. Where out overlaps an operand the results
/// are staged in the workspace and copied after every input was read.
struct LossPlan {
    f: Elementwise,
    shape: Vec<usize>,
    lead: usize,
    divisor: Option<f64>,
    /// x, y and, when present, w and pw.
    ops: Vec<LossOperand>,
    has_w: bool,
    promoted: DType,
    out_binding: usize,
    out_dtype: DType,
    out_offset: usize,
    /// out's strides over shape[lead..].
    out_strides: Vec<isize>,
    staged: bool,
}

/// `v` rounded into the float dtype `d` (f64 stays), as f64.
#[inline(always)]
fn round_into(d: DType, v: f64) -> f64 {
    match d {
        F32 => v as f32 as f64,
        F16 => half::f16::from_f64(v).to_f64(),
        BF16 => half::bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// Reads element `i` of a float or integer dtype as f64 (integers exactly up to 2^53).
#[inline(always)]
unsafe fn load_any(d: DType, base: usize, i: isize) -> f64 {
    // SAFETY: forwarded from the caller (an index inside a checked view).
    unsafe {
        match d {
            F16 => load::<half::f16>(base, i),
            BF16 => load::<half::bf16>(base, i),
            F64 => load::<f64>(base, i),
            F32 => load::<f32>(base, i),
            _ => *(base as *const i64).offset(i) as f64,
        }
    }
}

/// Writes `v` (already in the computation's dtype) into out's dtype at element `i`.
#[inline(always)]
unsafe fn store_any(d: DType, base: usize, i: isize, v: Wide) {
    // SAFETY: forwarded from the caller (an index inside out's view or the staging buffer).
    unsafe {
        match d {
            F16 => *(base as *mut half::f16).offset(i) = half::f16::from_wide(v),
            BF16 => *(base as *mut half::bf16).offset(i) = half::bf16::from_wide(v),
            F64 => *(base as *mut f64).offset(i) = f64::from_wide(v),
            F32 => *(base as *mut f32).offset(i) = f32::from_wide(v),
            _ => *(base as *mut i64).offset(i) = i64::from_wide(v),
        }
    }
}

impl LossPlan {
    fn reduced(&self) -> usize {
        self.shape[..self.lead].iter().product()
    }
    fn kept(&self) -> usize {
        self.shape[self.lead..].iter().product()
    }
    /// Element offsets of every operand at reduced index i and kept index j.
    #[inline(always)]
    fn at(&self, i: usize, j: usize, k: usize) -> isize {
        let op = &self.ops[k];
        let mut off = op.offset as isize;
        let mut rest = j;
        for d in (self.lead..self.shape.len()).rev() {
            off += (rest % self.shape[d]) as isize * op.strides[d];
            rest /= self.shape[d];
        }
        let mut rest = i;
        for d in (0..self.lead).rev() {
            off += (rest % self.shape[d]) as isize * op.strides[d];
            rest /= self.shape[d];
        }
        off
    }
    /// ℓ at (i, j) in f64, from the operands' values in the promoted dtype.
    #[inline(always)]
    fn term(&self, i: usize, j: usize, addr: &[usize]) -> f64 {
        let mut v = [0.0, 0.0, 1.0, 1.0];
        for k in 0..self.ops.len() {
            let op = &self.ops[k];
            // SAFETY: the index is inside the operand's view, checked against its storage.
            let x = unsafe { load_any(op.dtype, addr[k], self.at(i, j, k)) };
            let x = if op.dtype.is_float() {
                x
            } else {
                round_into(self.promoted, x)
            };
            // (operands are x, y, then w if present, then pw if present)
            let slot = match k {
                0 | 1 => k,
                2 if self.has_w => 2,
                _ => 3,
            };
            v[slot] = x;
        }
        self.f.eval(v[0], v[1], v[2], v[3])
    }
    fn term_i64(&self, i: usize, j: usize, addr: &[usize]) -> i64 {
        // SAFETY: as in `term`; both operands are int64 when the computation is.
        let (x, y) = unsafe {
            (
                *(addr[0] as *const i64).offset(self.at(i, j, 0)),
                *(addr[1] as *const i64).offset(self.at(i, j, 1)),
            )
        };
        self.f.eval_i64(x, y)
    }
    /// The value of out element j as the computation's dtype.
    fn value(&self, j: usize, addr: &[usize]) -> Wide {
        let r = self.reduced();
        if self.promoted == S64 {
            let s = (0..r).fold(0i64, |s, i| s.wrapping_add(self.term_i64(i, j, addr)));
            return Wide::Int(s as i128);
        }
        let s: f64 = (0..r).map(|i| self.term(i, j, addr)).sum();
        self.finish(s)
    }
    fn finish(&self, s: f64) -> Wide {
        let v = match self.divisor {
            Some(d) => s / d,
            None => s,
        };
        Wide::Float(round_into(self.promoted, v))
    }
    /// A full reduction (one out element): blocks of BLOCK terms in parallel, their sums
    /// added in order.
    fn full(&self, addr: &[usize], ws: usize) -> Wide {
        let r = self.reduced();
        let blocks = r.div_ceil(BLOCK);
        if self.promoted == S64 {
            let s = (0..r).fold(0i64, |s, i| s.wrapping_add(self.term_i64(i, 0, addr)));
            return Wide::Int(s as i128);
        }
        crate::engine::run_tasks(blocks.max(1), |b| {
            if b >= blocks {
                return;
            }
            let s: f64 = (b * BLOCK..((b + 1) * BLOCK).min(r))
                .map(|i| self.term(i, 0, addr))
                .sum();
            // SAFETY: block b's own slot of the workspace (blocks·8 bytes).
            unsafe { *(ws as *mut f64).add(b) = s };
        });
        // SAFETY: every block wrote its slot before run_tasks returned.
        let s: f64 = (0..blocks)
            .map(|b| unsafe { *(ws as *const f64).add(b) })
            .sum();
        self.finish(s)
    }
    fn out_index(&self, j: usize) -> isize {
        let mut off = self.out_offset as isize;
        let mut rest = j;
        for d in (self.lead..self.shape.len()).rev() {
            off += (rest % self.shape[d]) as isize * self.out_strides[d - self.lead];
            rest /= self.shape[d];
        }
        off
    }
    fn partial_bytes(&self) -> usize {
        if self.kept() == 1 {
            crate::engine::align_up(self.reduced().div_ceil(BLOCK) * 8)
        } else {
            0
        }
    }
}

impl Work for LossPlan {
    fn workspace_size(&self) -> u64 {
        let staging = if self.staged {
            self.kept() * self.out_dtype.size()
        } else {
            0
        };
        (self.partial_bytes() + staging) as u64
    }
    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        let addr: smallvec::SmallVec<[usize; 4]> = self
            .ops
            .iter()
            .map(|o| t.addr(o.binding))
            .collect::<Result<_>>()?;
        let out = t.addr(self.out_binding)?;
        let m = self.kept();
        let staging = ws.addr + self.partial_bytes();
        // Where results go first: out itself, or (staged) a contiguous buffer.
        let (dst, index): (usize, &(dyn Fn(usize) -> isize + Sync)) = if self.staged {
            (staging, &|j| j as isize)
        } else {
            (out, &|j| self.out_index(j))
        };
        if m == 1 {
            let v = self.full(&addr, ws.addr);
            // SAFETY: out's (or the staging buffer's) one element.
            unsafe { store_any(self.out_dtype, dst, index(0), v) };
        } else {
            let per = m
                .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
                .max(1024.min(m));
            crate::engine::run_tasks(m.div_ceil(per), |t| {
                for j in t * per..((t + 1) * per).min(m) {
                    let v = self.value(j, &addr);
                    // SAFETY: element j of out's view (or of the staging buffer).
                    unsafe { store_any(self.out_dtype, dst, index(j), v) };
                }
            });
        }
        if self.staged {
            let sz = self.out_dtype.size();
            for j in 0..m {
                // SAFETY: staging holds m elements; out's index j is inside its view.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (staging as *const u8).add(j * sz),
                        (out as *mut u8).offset(self.out_index(j) * sz as isize),
                        sz,
                    )
                };
            }
        }
        Ok(())
    }
}

/// How a reduced loss's out must be shaped.
#[derive(Clone, Copy, PartialEq)]
enum ReducedOut {
    /// 0-d (L1Loss, SoftMarginLoss).
    Scalar,
    /// One element: 0-d or [1] (BinaryCrossEntropy(WithLogits), KlDiv: CANN writes "[1]").
    One,
    /// The broadcast shape without dim 0 (MseLossOut reduces dim 0 only).
    DropDim0,
}

/// The loss engine's request: operands named for messages; `reduction` 0 none, 1 mean,
/// 2 sum, 3 batchmean (KlDiv: the sum over self's dim 0 size).
struct LossCall<'a> {
    api: &'static str,
    f: Elementwise,
    x: &'a TensorDesc,
    y: &'a TensorDesc,
    w: Option<(&'static str, &'a TensorDesc)>,
    pw: Option<(&'static str, &'a TensorDesc)>,
    reduction: i64,
    promoted: DType,
    reduced_out: ReducedOut,
    out: &'a TensorDesc,
}

/// Plans a loss on the engine (the caller has checked dtypes and the reduction's range).
fn plan_loss(c: LossCall) -> Result<Executor> {
    let mut named: Vec<(&str, &TensorDesc)> = vec![("self", c.x), ("target", c.y)];
    named.extend(c.w);
    named.extend(c.pw);
    let shapes: Vec<(&str, &[usize])> = named.iter().map(|(n, t)| (*n, &t.shape[..])).collect();
    let shape = crate::broadcast::broadcast_shapes(&shapes)?.to_vec();
    let lead = match (c.reduction, c.reduced_out) {
        (0, _) => 0,
        (_, ReducedOut::DropDim0) => shape.len().min(1),
        _ => shape.len(),
    };
    let want: Vec<usize> = shape[lead..].to_vec();
    match (c.reduction, c.reduced_out) {
        (0, _) | (_, ReducedOut::DropDim0) | (_, ReducedOut::Scalar) => crate::ensure!(
            c.out.shape[..] == want[..],
            "out has shape {:?} but the {} result has shape {want:?}",
            c.out.shape,
            ["none", "mean", "sum", "batchmean"][c.reduction as usize]
        ),
        (_, ReducedOut::One) => crate::ensure!(
            c.out.rank() <= 1 && c.out.numel() == 1,
            "out has shape {:?}: a reduced loss is one element ([] or [1])",
            c.out.shape
        ),
    }
    c.out.check_output("out")?;
    let reduced: usize = shape[..lead].iter().product();
    let divisor = match c.reduction {
        1 => Some(reduced as f64),
        3 => Some(c.x.shape.first().copied().unwrap_or(1) as f64),
        _ => None,
    };
    let mut tensors: Vec<Option<TensorDesc>> =
        named.iter().map(|(_, t)| Some((*t).clone())).collect();
    let ops: Vec<LossOperand> = named
        .iter()
        .enumerate()
        .map(|(k, (_, t))| LossOperand {
            binding: k,
            dtype: t.dtype,
            offset: t.offset,
            strides: crate::engine::broadcast_strides(&shape, &t.shape, &t.strides).to_vec(),
        })
        .collect();
    let out_binding = tensors.len();
    tensors.push(Some(c.out.clone()));
    let bindings = Bindings {
        tensors: std::sync::Arc::new(tensors),
        n_inputs: out_binding,
        outputs: smallvec::smallvec![out_binding],
    };
    if c.out.is_empty() {
        return Ok(Executor::new(c.api, bindings, Nothing));
    }
    let out_strides: Vec<isize> = if c.out.shape[..] == want[..] {
        c.out.strides.to_vec()
    } else {
        // (a [1] out of a full reduction: its one element)
        vec![]
    };
    let staged = named.iter().any(|(_, t)| overlap(t, c.out));
    let plan = LossPlan {
        f: c.f,
        shape,
        lead,
        divisor,
        ops,
        has_w: c.w.is_some(),
        promoted: c.promoted,
        out_binding,
        out_dtype: c.out.dtype,
        out_offset: c.out.offset,
        out_strides,
        staged,
    };
    Ok(Executor::new(c.api, bindings, plan))
}

/// The promoted dtype of self and target, which must be in `list`.
fn promote_in(self_: &TensorDesc, target: &TensorDesc, list: &[DType]) -> Result<DType> {
    let p = crate::dtype::promote(self_.dtype, target.dtype).ok_or_else(|| {
        crate::Error::Invalid(format!(
            "self dtype {} and target dtype {} cannot be promoted",
            self_.dtype, target.dtype
        ))
    })?;
    crate::ensure!(
        list.contains(&p),
        "self dtype {} and target dtype {} promote to {p}, which this operator does not support",
        self_.dtype,
        target.dtype
    );
    Ok(p)
}

fn check_reduction(reduction: i64, max: i64) -> Result<()> {
    crate::ensure!(
        (0..=max).contains(&reduction),
        "reduction is {reduction}: it must be 0 (none), 1 (mean), 2 (sum){}",
        if max == 3 { " or 3 (batchmean)" } else { "" }
    );
    Ok(())
}

/// aclnnMseLossOut: (self − target)², and for mean/sum reduced over dim 0 only (CANN's
/// aclnn_mse_loss_out.cpp reduces axis 0: out has the broadcast shape without dim 0).
pub fn mse_loss_out(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, LIST)?;
    }
    let p = promote_in(self_, target, LIST)?;
    ew::check_out_cast(p, "out", out)?;
    check_reduction(reduction, 2)?;
    plan_loss(LossCall {
        api: "aclnnMseLossOut",
        f: Elementwise::Mse,
        x: self_,
        y: target,
        w: None,
        pw: None,
        reduction,
        promoted: p,
        reduced_out: ReducedOut::DropDim0,
        out,
    })
}

/// L1Loss's list (aclnn_l1_loss.cpp): int64 too, computed in wrapping int64.
const L1_LIST: &[DType] = &[F32, F16, BF16, S64];

/// aclnnL1Loss: |self − target|, reduced (mean and sum into a 0-d out). A mean needs a
/// float input; reduction none refuses an integer self with a float target (as CANN).
pub fn l1_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, L1_LIST)?;
    }
    check_reduction(reduction, 2)?;
    let (fs, ft) = (self_.dtype.is_float(), target.dtype.is_float());
    crate::ensure!(
        !(reduction == 0 && !fs && ft),
        "self has dtype {} and target {}: with reduction none an integer self needs an integer target",
        self_.dtype,
        target.dtype
    );
    crate::ensure!(
        !(reduction == 1 && !fs && !ft),
        "self and target are int64: a mean needs a floating-point input"
    );
    let p = promote_in(self_, target, L1_LIST)?;
    ew::check_out_cast(p, "out", out)?;
    plan_loss(LossCall {
        api: "aclnnL1Loss",
        f: Elementwise::L1,
        x: self_,
        y: target,
        w: None,
        pw: None,
        reduction,
        promoted: p,
        reduced_out: ReducedOut::Scalar,
        out,
    })
}

/// aclnnSoftMarginLoss: ln(1 + e^(−target·self)), reduced (mean and sum into a 0-d out).
pub fn soft_margin_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, LIST)?;
    }
    check_reduction(reduction, 2)?;
    let p = promote_in(self_, target, LIST)?;
    ew::check_out_cast(p, "out", out)?;
    plan_loss(LossCall {
        api: "aclnnSoftMarginLoss",
        f: Elementwise::SoftMargin,
        x: self_,
        y: target,
        w: None,
        pw: None,
        reduction,
        promoted: p,
        reduced_out: ReducedOut::Scalar,
        out,
    })
}

/// aclnnKlDiv: the pointwise KL term (see `Elementwise::KlDiv`), reduced by 0 none,
/// 1 mean, 2 sum or 3 batchmean (the sum over self's dim 0 size; 1 for a 0-d self).
pub fn kl_div(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    log_target: bool,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, LIST)?;
    }
    check_reduction(reduction, 3)?;
    let p = promote_in(self_, target, LIST)?;
    ew::check_out_cast(p, "out", out)?;
    plan_loss(LossCall {
        api: "aclnnKlDiv",
        f: Elementwise::KlDiv { log_target },
        x: self_,
        y: target,
        w: None,
        pw: None,
        reduction,
        promoted: p,
        reduced_out: ReducedOut::One,
        out,
    })
}

/// An optional weight that must broadcast to `to`'s shape (not beyond it).
fn check_weight_broadcast(
    name: &str,
    w: &TensorDesc,
    to_name: &str,
    to: &TensorDesc,
) -> Result<()> {
    let s = crate::broadcast::broadcast_shapes(&[(name, &w.shape), (to_name, &to.shape)])?;
    crate::ensure!(
        s[..] == to.shape[..],
        "{name} has shape {:?}, which does not broadcast to {to_name}'s shape {:?}",
        w.shape,
        to.shape
    );
    Ok(())
}

/// aclnnBinaryCrossEntropy: −weight·(target·ln(self) + (1 − target)·ln(1 − self)), the
/// logs clamped at −100 (torch); self and target of one shape, weight (NULL: 1)
/// broadcasting to it; with a weight all dtypes are self's.
pub fn binary_cross_entropy(
    self_: &TensorDesc,
    target: &TensorDesc,
    weight: Option<&TensorDesc>,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, LIST)?;
    }
    if let Some(w) = weight {
        ew::check_tensor("weight", w, LIST)?;
        for (n, t) in [("target", target), ("weight", w), ("out", out)] {
            crate::ensure!(
                t.dtype == self_.dtype,
                "{n} has dtype {} but must have self's dtype {} when weight is given",
                t.dtype,
                self_.dtype
            );
        }
        check_weight_broadcast("weight", w, "self", self_)?;
    }
    crate::ensure!(
        self_.shape == target.shape,
        "self has shape {:?} and target {:?}: they must be equal",
        self_.shape,
        target.shape
    );
    check_reduction(reduction, 2)?;
    let p = promote_in(self_, target, LIST)?;
    ew::check_out_cast(p, "out", out)?;
    plan_loss(LossCall {
        api: "aclnnBinaryCrossEntropy",
        f: Elementwise::Bce,
        x: self_,
        y: target,
        w: weight.map(|w| ("weight", w)),
        pw: None,
        reduction,
        promoted: p,
        reduced_out: ReducedOut::One,
        out,
    })
}

/// aclnnBinaryCrossEntropyWithLogits: weight·((1 − y)·x + (1 + (posWeight − 1)·y)·
/// (ln(1 + e^(−|x|)) + max(−x, 0))), the stable form of BCE on sigmoid(x); self and target
/// of one shape, the weights broadcasting to it; out has target's dtype.
pub fn binary_cross_entropy_with_logits(
    self_: &TensorDesc,
    target: &TensorDesc,
    weight: Option<&TensorDesc>,
    pos_weight: Option<&TensorDesc>,
    reduction: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [("self", self_), ("target", target), ("out", out)] {
        ew::check_tensor(n, t, LIST)?;
    }
    crate::ensure!(
        out.dtype == target.dtype,
        "out has dtype {} but must have target's dtype {}",
        out.dtype,
        target.dtype
    );
    check_reduction(reduction, 2)?;
    crate::ensure!(
        self_.shape == target.shape,
        "self has shape {:?} and target {:?}: they must be equal",
        self_.shape,
        target.shape
    );
    for (n, w) in [
        ("weightOptional", weight),
        ("posWeightOptional", pos_weight),
    ] {
        if let Some(w) = w {
            ew::check_tensor(n, w, LIST)?;
            check_weight_broadcast(n, w, "target", target)?;
        }
    }
    let p = promote_in(self_, target, LIST)?;
    plan_loss(LossCall {
        api: "aclnnBinaryCrossEntropyWithLogits",
        f: Elementwise::BceLogits {
            pos_weight: pos_weight.is_some(),
        },
        x: self_,
        y: target,
        w: weight.map(|w| ("weightOptional", w)),
        pw: pos_weight.map(|w| ("posWeightOptional", w)),
        reduction,
        promoted: p,
        reduced_out: ReducedOut::One,
        out,
    })
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "SoftmaxCrossEntropyWithLogits",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "loss = −Σ labels·log_softmax(features), backprop = softmax − labels, per row (max-subtracted)",
    },
    Entry {
        ops: "MseLoss, SmoothL1Loss",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "(x − y)² / smooth L1 with beta, broadcast, reduction none/mean/sum (f64 sum)",
    },
    Entry {
        ops: "MseLossOut",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "(x − y)², broadcast; mean/sum over dim 0 only (f64 sum)",
    },
    Entry {
        ops: "L1Loss",
        a: L1_LIST,
        b: L1_LIST,
        out: L1_LIST,
        rule: "|x − y|, broadcast, reduction none/mean/sum (int64 in wrapping int64)",
    },
    Entry {
        ops: "SoftMarginLoss",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "ln(1 + e^(−y·x)), broadcast, reduction none/mean/sum",
    },
    Entry {
        ops: "KlDiv",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "y·(ln y − x) (NaN for y ≤ 0) or e^y·(y − x) (logTarget); none/mean/sum/batchmean",
    },
    Entry {
        ops: "BinaryCrossEntropy, BinaryCrossEntropyWithLogits",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "BCE on probabilities (logs ≥ −100) / on logits (stable form, posWeight), weights broadcast",
    },
];
