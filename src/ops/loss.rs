//! Losses: SoftmaxCrossEntropyWithLogits.
//!
//! Per row n of the (N, C) features x and labels y, in f64 from the exact values:
//! m = max_j x_j, lse = m + ln Σ_j e^(x_j − m) (max-subtracted, so no overflow),
//! loss_n = −Σ_j y_j·(x_j − lse), backprop_nj = e^(x_j − lse) − y_j, each rounded once into
//! the features' dtype: within 0.5 ulp plus the f64 sums' error (≤ C·2⁻⁵² relative to
//! Σ|y_j·(x_j − lse)|), i.e. ≤ 1 ulp for rows of moderate cancellation. Rows run in parallel.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::Element;
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
        let at = |v: (usize, isize, isize), n: usize, j: usize| v.0 as isize + n as isize * v.1 + j as isize * v.2;
        // Rows in blocks, one task per block.
        let per = self.rows.div_ceil(crate::engine::pool().current_num_threads().max(1) * 4).max(1);
        crate::engine::run_tasks(self.rows.div_ceil(per), |t| {
            for n in t * per..((t + 1) * per).min(self.rows) {
                // SAFETY (every load/store): indexes inside views checked against their storage.
                let x = |j| unsafe { load::<T>(xa, at(self.x, n, j)) };
                let y = |j| unsafe { load::<T>(ya, at(self.y, n, j)) };
                let m = (0..self.cols).map(x).fold(f64::NEG_INFINITY, |m, v| if v > m || v.is_nan() { v } else { m });
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
    for (name, t) in [("features", features), ("labels", labels), ("loss", loss), ("backprop", backprop)] {
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
    let same = |a: &TensorDesc, b: &TensorDesc| a.addr == b.addr && a.offset == b.offset && a.strides == b.strides;
    for (an, a) in [("loss", loss), ("backprop", backprop)] {
        for (bn, b) in [("features", features), ("labels", labels)] {
            crate::ensure!(
                !overlap(a, b) || (an == "backprop" && same(a, b)),
                "{an} overlaps {bn} in memory: {API} needs outputs apart from its inputs (or backprop exactly an input's view)"
            );
        }
    }
    crate::ensure!(!overlap(loss, backprop), "loss and backprop overlap in memory");
    let bindings = Bindings {
        tensors: std::sync::Arc::new(
            [features, labels, loss, backprop].iter().map(|t| Some((*t).clone())).collect(),
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

/// Supported dtypes, for the README's operator table.
pub const CATALOG: &[Entry] = &[Entry {
    ops: "SoftmaxCrossEntropyWithLogits",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "loss = −Σ labels·log_softmax(features), backprop = softmax − labels, per row (max-subtracted)",
}];
