//! Losses: SoftmaxCrossEntropyWithLogits, and the element-wise losses MseLoss and
//! SmoothL1Loss with their reductions.
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
use crate::element::Element;
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
];
