//! MultilabelMarginLoss: the multi-class multi-label hinge loss (torch's
//! F.multilabel_margin_loss).
//!
//! self is (N, C), (C) or a 0-D value (one sample of one class); target has self's shape
//! (0-D/1-D: any view of C elements) and lists each sample's classes, up to the first −1.
//! Per sample n with targets T_n (the classes before the first −1):
//! isTarget_nc = [c ∈ T_n], l_n = Σ_{j ∈ T_n} Σ_{i ∉ T_n} max(0, 1 − (x_nj − x_ni)) / C.
//! reduction 0 (none) writes l ((N), or one element for a 1-D self), 1 (mean) Σ l_n / N and
//! any other value (as the device, which maps it to "sum") Σ l_n into one element.
//! isTarget has target's shape and self's dtype. An empty self (N = 0) succeeds and writes
//! nothing (as CANN's op_api, also for mean and sum). A class outside [−1, C) is refused
//! when the work runs, before anything is written.
//!
//! Numbers: each hinge term and the sums in f64 from the exact inputs (in class order), the
//! result rounded once into self's dtype: within 0.5 ulp plus the f64 sums' relative error
//! (C²·2⁻⁵³ per sample, N·2⁻⁵³ over samples) and the cancellation in 1 − x_j + x_i.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap, store};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// self, out and isTarget (aclnn_multilabel_margin_loss.cpp's 910B list).
const LIST: &[DType] = &[F32, F16, BF16];
/// target's dtypes.
const TARGET: &[DType] = &[S64, S32];

/// (offset, sample stride, class stride) of self, target and isTarget; out (offset, stride).
type M2 = (usize, isize, isize);

fn at(v: M2, n: usize, c: usize) -> isize {
    v.0 as isize + n as isize * v.1 + c as isize * v.2
}

/// Bindings self, target, out, isTarget.
struct Plan {
    n: usize,
    c: usize,
    dtype: DType,
    target_dtype: DType,
    x: M2,
    t: M2,
    is_target: M2,
    out: (usize, isize),
    /// 0 none, 1 mean, 2 sum.
    reduction: u8,
}

impl Plan {
    unsafe fn class(&self, ta: usize, n: usize, j: usize) -> i64 {
        let i = at(self.t, n, j);
        // SAFETY: forwarded (inside target's checked view).
        unsafe {
            match self.target_dtype {
                S32 => *(ta as *const i32).offset(i) as i64,
                _ => *(ta as *const i64).offset(i),
            }
        }
    }

    fn run_typed<T: Element>(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let (xa, ta, oa, ia) = (b.addr(0)?, b.addr(1)?, b.addr(2)?, b.addr(3)?);
        let (nn, c) = (self.n, self.c);
        // Every class first (up to each sample's first −1): a bad one writes nothing.
        for n in 0..nn {
            for j in 0..c {
                // SAFETY: inside target's view.
                let t = unsafe { self.class(ta, n, j) };
                if t == -1 {
                    break;
                }
                if !(0..c as i64).contains(&t) {
                    return Err(Error::Invalid(format!(
                        "aclnnMultilabelMarginLoss: target {t} at sample {n}, position {j} is out of range [-1, {c})"
                    )));
                }
            }
        }
        let per = nn
            .div_ceil(crate::engine::pool().current_num_threads().max(1) * 4)
            .max(1);
        let wsa = ws.addr;
        crate::engine::run_tasks(nn.div_ceil(per), |k| {
            let mut is_t = vec![false; c];
            let mut ts = Vec::with_capacity(c);
            for n in k * per..((k + 1) * per).min(nn) {
                is_t.iter_mut().for_each(|v| *v = false);
                ts.clear();
                for j in 0..c {
                    // SAFETY (every load/store): indexes inside checked views.
                    let t = unsafe { self.class(ta, n, j) };
                    if t < 0 {
                        break;
                    }
                    ts.push(t as usize);
                    is_t[t as usize] = true;
                }
                let x = |i| unsafe { load::<T>(xa, at(self.x, n, i)) };
                let mut s = 0.0;
                for &j in &ts {
                    let xj = x(j);
                    for (i, &skip) in is_t.iter().enumerate() {
                        if !skip {
                            let z = 1.0 - xj + x(i);
                            if z > 0.0 {
                                s += z;
                            }
                        }
                    }
                }
                let l = s / c as f64;
                for (i, &v) in is_t.iter().enumerate() {
                    unsafe { store::<T>(ia, at(self.is_target, n, i), v as u8 as f64) };
                }
                if self.reduction == 0 {
                    unsafe { store::<T>(oa, self.out.0 as isize + n as isize * self.out.1, l) };
                } else {
                    // SAFETY: the workspace holds N f64 values.
                    unsafe { *(wsa as *mut f64).add(n) = l };
                }
            }
        });
        if self.reduction != 0 {
            // SAFETY: the N values written above.
            let s: f64 = (0..nn)
                .map(|n| unsafe { *(wsa as *const f64).add(n) })
                .sum();
            let v = if self.reduction == 1 {
                s / nn as f64
            } else {
                s
            };
            // SAFETY: out's one element.
            unsafe { store::<T>(oa, self.out.0 as isize, v) };
        }
        Ok(())
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        if self.reduction == 0 {
            0
        } else {
            (self.n * 8) as u64
        }
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        match self.dtype {
            F16 => self.run_typed::<half::f16>(b, ws),
            BF16 => self.run_typed::<half::bf16>(b, ws),
            _ => self.run_typed::<f32>(b, ws),
        }
    }
}

/// The (sample, class) strides of a tensor of `rank` ≤ 2 dims seen as (N, C).
fn m2(t: &TensorDesc) -> M2 {
    match t.rank() {
        0 => (t.offset, 0, 0),
        1 => (t.offset, 0, t.strides[0]),
        _ => (t.offset, t.strides[0], t.strides[1]),
    }
}

/// aclnnMultilabelMarginLoss: see the module comment.
pub fn multilabel_margin_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    reduction: i64,
    out: &TensorDesc,
    is_target: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnMultilabelMarginLoss";
    ew::check_tensor("self", self_, LIST)?;
    ew::check_tensor("target", target, TARGET)?;
    for (name, t) in [("out", out), ("isTarget", is_target)] {
        ew::check_tensor(name, t, LIST)?;
        crate::ensure!(
            t.dtype == self_.dtype,
            "{name} has dtype {} but must have self's dtype {}",
            t.dtype,
            self_.dtype
        );
    }
    let r = self_.rank();
    crate::ensure!(
        (r == 2 && self_.shape[1] != 0) || (r == 1 && self_.shape[0] != 0) || r == 0,
        "self has shape {:?}: {API} takes a non-empty vector (C) or a matrix (N, C) with C > 0 (N may be 0)",
        self_.shape
    );
    let (n, c) = match r {
        0 => (1, 1),
        1 => (1, self_.shape[0]),
        _ => (self_.shape[0], self_.shape[1]),
    };
    if r <= 1 {
        crate::ensure!(
            target.rank() <= 1 && target.numel() == c,
            "target has shape {:?} but self {:?}: target must hold {c} classes",
            target.shape,
            self_.shape
        );
    } else {
        crate::ensure!(
            target.shape == self_.shape,
            "target has shape {:?} but must have self's shape {:?}",
            target.shape,
            self_.shape
        );
    }
    if reduction == 0 && r == 2 {
        ew::check_result_shape("out", out, &[n])?;
    } else {
        crate::ensure!(
            out.rank() <= 1 && out.numel() == 1,
            "out has shape {:?}: it must be one element",
            out.shape
        );
        out.check_output("out")?;
    }
    if r == 2 && n == 0 {
        crate::ensure!(
            is_target.rank() <= 2 && is_target.numel() == 0,
            "isTarget has shape {:?} but self {:?}: it must be empty",
            is_target.shape,
            self_.shape
        );
    } else {
        ew::check_result_shape("isTarget", is_target, &target.shape)?;
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(
            [self_, target, out, is_target]
                .iter()
                .map(|t| Some((*t).clone()))
                .collect(),
        ),
        n_inputs: 2,
        outputs: smallvec::smallvec![2, 3],
    };
    if self_.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    for (on, o) in [("out", out), ("isTarget", is_target)] {
        for (inn, i) in [("self", self_), ("target", target)] {
            crate::ensure!(
                !overlap(o, i),
                "{on} overlaps {inn} in memory: the outputs must be apart from the inputs"
            );
        }
    }
    crate::ensure!(
        !overlap(out, is_target),
        "out and isTarget overlap in memory"
    );
    let plan = Plan {
        n,
        c,
        dtype: self_.dtype,
        target_dtype: target.dtype,
        x: m2(self_),
        t: m2(target),
        is_target: m2(is_target),
        out: (
            out.offset,
            if reduction == 0 && r == 2 {
                out.strides[0]
            } else {
                0
            },
        ),
        reduction: match reduction {
            0 => 0,
            1 => 1,
            _ => 2,
        },
    };
    Ok(Executor::new(API, bindings, plan))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "MultilabelMarginLoss",
    a: LIST,
    b: TARGET,
    out: LIST,
    rule: "Σ_{j∈targets} Σ_{i∉targets} max(0, 1 − x_j + x_i) / C per sample (targets up to the first −1), isTarget; 0 none / 1 mean / else sum",
}];
