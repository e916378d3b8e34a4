//! NLLLoss and NLLLoss2d: the negative log-likelihood of class-indexed targets.
//!
//! self holds log-probabilities (N, C), (C) or (N, C, H, W); target the class of every
//! position ((N), (), (N, H, W)); weight the per-class weights (C). Per position p with
//! class t = target[p]: w_p = t == ignoreIndex ? 0 : weight[t], l_p = −w_p·self[n, t, h, w].
//! Reduction none writes l (of target's shape; a 1-D self gives one element), sum writes
//! Σ l_p, mean writes Σ l_p / Σ w_p (NaN when every weight is 0, as torch); totalWeightOut
//! gets Σ w_p for mean and sum (for none it is not written, as CANN's code). A target
//! outside [0, C) that is not ignoreIndex is refused when the work runs (the stream reports
//! ACL_ERROR_RT_AICORE_EXCEPTION) before anything is written.
//!
//! Numbers: every term is exact in f64 (a product of two values of at most 24 bits); the
//! sums run in f64 in position order and round once into self's dtype (then out's): the
//! result is within 0.5 ulp plus the f64 sum's n·2⁻⁵³ relative error.

use super::catalog::Entry;
use super::elementwise as ew;
use super::pool::{load, overlap};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::tensor::TensorDesc;

use DType::*;
/// self, weight, out and totalWeightOut (aclnn_nll_loss.cpp's A2 list).
const LIST: &[DType] = &[F32, F16, BF16];
/// target's dtypes.
const TARGET: &[DType] = &[S64, U8, S32];

/// self seen as (N, C, H, W) and target as (N, H, W): element offsets and strides.
struct Plan {
    api: &'static str,
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    /// self: offset, strides of N, C, H, W.
    x: (usize, [isize; 4]),
    /// target: offset, strides of N, H, W.
    t: (usize, [isize; 3]),
    weight: (usize, isize),
    reduction: i64,
    ignore_index: i64,
    dtypes: [DType; 3], // self/weight, target, out
    total_dtype: DType,
    /// out: offset, strides over target's (N, H, W) (none only).
    out: (usize, [isize; 3]),
    total_offset: usize,
    staged: bool,
}

unsafe fn load_class(d: DType, base: usize, i: isize) -> i64 {
    // SAFETY: forwarded (an index inside target's checked view).
    unsafe {
        match d {
            U8 => *(base as *const u8).offset(i) as i64,
            S32 => *(base as *const i32).offset(i) as i64,
            _ => *(base as *const i64).offset(i),
        }
    }
}

unsafe fn load_float(d: DType, base: usize, i: isize) -> f64 {
    // SAFETY: forwarded (an index inside a checked view).
    unsafe {
        match d {
            F16 => load::<half::f16>(base, i),
            BF16 => load::<half::bf16>(base, i),
            _ => load::<f32>(base, i),
        }
    }
}

/// `v` rounded once into `through` (self's dtype), then converted to `d`, written at `i`.
unsafe fn store_float(d: DType, through: DType, base: usize, i: isize, v: f64) {
    let v = match through {
        F16 => half::f16::from_f64(v).to_f64(),
        BF16 => half::bf16::from_f64(v).to_f64(),
        _ => v as f32 as f64,
    };
    // SAFETY: forwarded (an index inside an output view or the staging buffer).
    unsafe {
        match d {
            F16 => *(base as *mut half::f16).offset(i) = half::f16::from_f64(v),
            BF16 => *(base as *mut half::bf16).offset(i) = half::bf16::from_f64(v),
            _ => *(base as *mut f32).offset(i) = v as f32,
        }
    }
}

impl Plan {
    fn positions(&self) -> usize {
        self.n * self.h * self.w
    }
    /// (n, h, w) of position p.
    fn split(&self, p: usize) -> [usize; 3] {
        [p / (self.h * self.w), (p / self.w) % self.h, p % self.w]
    }
    fn target_at(&self, p: usize) -> isize {
        let [n, h, w] = self.split(p);
        self.t.0 as isize
            + n as isize * self.t.1[0]
            + h as isize * self.t.1[1]
            + w as isize * self.t.1[2]
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        if self.staged && self.reduction == 0 {
            (self.positions() * 8) as u64
        } else {
            0
        }
    }
    fn run(&self, b: &Bindings, ws: Workspace) -> Result<()> {
        let (xa, ta, wa, oa) = (b.addr(0)?, b.addr(1)?, b.addr(2)?, b.addr(3)?);
        let np = self.positions();
        let [xd, td, od] = self.dtypes;
        // Every class first: a bad one refuses the work before anything is written.
        for p in 0..np {
            // SAFETY: inside target's view.
            let t = unsafe { load_class(td, ta, self.target_at(p)) };
            if t != self.ignore_index && !(0..self.c as i64).contains(&t) {
                return Err(Error::Invalid(format!(
                    "{}: target {t} at position {p} is out of range for {} classes (ignoreIndex {})",
                    self.api, self.c, self.ignore_index
                )));
            }
        }
        let term = |p: usize| -> (f64, f64) {
            // SAFETY: every index below is inside its view (the class was checked above).
            unsafe {
                let t = load_class(td, ta, self.target_at(p));
                if t == self.ignore_index {
                    return (0.0, 0.0);
                }
                let [n, h, w] = self.split(p);
                let wt = load_float(xd, wa, self.weight.0 as isize + t as isize * self.weight.1);
                let xi = self.x.0 as isize
                    + n as isize * self.x.1[0]
                    + t as isize * self.x.1[1]
                    + h as isize * self.x.1[2]
                    + w as isize * self.x.1[3];
                (-wt * load_float(xd, xa, xi), wt)
            }
        };
        if self.reduction == 0 {
            let out_at = |p: usize| {
                let [n, h, w] = self.split(p);
                self.out.0 as isize
                    + n as isize * self.out.1[0]
                    + h as isize * self.out.1[1]
                    + w as isize * self.out.1[2]
            };
            if self.staged {
                for p in 0..np {
                    // SAFETY: the workspace holds np f64 values.
                    unsafe { *(ws.addr as *mut f64).add(p) = term(p).0 };
                }
                for p in 0..np {
                    // SAFETY: staged value p; out's element p.
                    let v = unsafe { *(ws.addr as *const f64).add(p) };
                    unsafe { store_float(od, xd, oa, out_at(p), v) };
                }
            } else {
                for p in 0..np {
                    // SAFETY: out's element p.
                    unsafe { store_float(od, xd, oa, out_at(p), term(p).0) };
                }
            }
            return Ok(());
        }
        let (mut s, mut sw) = (0.0, 0.0);
        for p in 0..np {
            let (l, w) = term(p);
            s += l;
            sw += w;
        }
        let v = if self.reduction == 1 { s / sw } else { s };
        let ta_out = b.addr(4)?;
        // SAFETY: out's and totalWeightOut's one element.
        unsafe {
            store_float(od, xd, oa, self.out.0 as isize, v);
            store_float(self.total_dtype, xd, ta_out, self.total_offset as isize, sw);
        }
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn nll(
    api: &'static str,
    two_d: bool,
    self_: &TensorDesc,
    target: &TensorDesc,
    weight: &TensorDesc,
    reduction: i64,
    ignore_index: i64,
    out: &TensorDesc,
    total_weight: &TensorDesc,
) -> Result<Executor> {
    for (n, t) in [
        ("self", self_),
        ("weight", weight),
        ("out", out),
        ("totalWeightOut", total_weight),
    ] {
        ew::check_tensor(n, t, LIST)?;
    }
    ew::check_tensor("target", target, TARGET)?;
    crate::ensure!(
        weight.dtype == self_.dtype,
        "weight has dtype {} but must have self's dtype {}",
        weight.dtype,
        self_.dtype
    );
    if two_d {
        for (n, t) in [("out", out), ("totalWeightOut", total_weight)] {
            crate::ensure!(
                t.dtype == self_.dtype,
                "{n} has dtype {} but must have self's dtype {}",
                t.dtype,
                self_.dtype
            );
        }
    }
    crate::ensure!(
        (0..=2).contains(&reduction),
        "reduction is {reduction}: it must be 0 (none), 1 (mean) or 2 (sum)"
    );
    // self as (N, C, H, W), target as (N, H, W).
    let (dims, xs, ts): ([usize; 4], [isize; 4], [isize; 3]) = if two_d {
        crate::ensure!(
            self_.rank() == 4,
            "self has shape {:?}: {api} takes a 4-D self (N, C, H, W)",
            self_.shape
        );
        crate::ensure!(
            target.rank() == 3,
            "target has shape {:?}: {api} takes a 3-D target (N, H, W)",
            target.shape
        );
        let s = &self_.shape;
        crate::ensure!(
            target.shape[..] == [s[0], s[2], s[3]],
            "target has shape {:?} but self {:?}: target must be (N, H, W) of self's (N, C, H, W)",
            target.shape,
            self_.shape
        );
        let x = &self_.strides;
        let t = &target.strides;
        (
            [s[0], s[1], s[2], s[3]],
            [x[0], x[1], x[2], x[3]],
            [t[0], t[1], t[2]],
        )
    } else {
        crate::ensure!(
            (1..=2).contains(&self_.rank()),
            "self has shape {:?}: {api} takes (N, C) or (C)",
            self_.shape
        );
        crate::ensure!(
            target.rank() <= 1,
            "target has shape {:?}: a 0-D or 1-D target is expected (multi-target is not supported)",
            target.shape
        );
        if self_.rank() == 2 {
            crate::ensure!(
                target.rank() == 1 && target.shape[0] == self_.shape[0],
                "target has shape {:?} but self {:?}: target must be (N)",
                target.shape,
                self_.shape
            );
            (
                [self_.shape[0], self_.shape[1], 1, 1],
                [self_.strides[0], self_.strides[1], 0, 0],
                [target.strides[0], 0, 0],
            )
        } else {
            crate::ensure!(
                target.rank() == 0,
                "target has shape {:?} but self {:?}: a 1-D self takes a 0-D target",
                target.shape,
                self_.shape
            );
            (
                [1, self_.shape[0], 1, 1],
                [0, self_.strides[0], 0, 0],
                [0, 0, 0],
            )
        }
    };
    let c = dims[1];
    crate::ensure!(
        weight.rank() == 1 && weight.shape[0] == c,
        "weight has shape {:?}: it must be ({c}), one weight per class",
        weight.shape
    );
    let none_shape: Vec<usize> = if two_d || self_.rank() == 2 {
        target.shape.to_vec()
    } else {
        vec![]
    };
    if reduction == 0 && !none_shape.is_empty() {
        ew::check_result_shape("out", out, &none_shape)?;
    } else {
        crate::ensure!(
            out.rank() <= 1 && out.numel() == 1,
            "out has shape {:?}: it must be one element ([] or [1])",
            out.shape
        );
        out.check_output("out")?;
    }
    crate::ensure!(
        total_weight.numel() == 1,
        "totalWeightOut has shape {:?}: it must be one element ([1])",
        total_weight.shape
    );
    let positions = dims[0] * dims[2] * dims[3];
    crate::ensure!(
        !(self_.is_empty() && c == 0 && positions > 0),
        "self has no classes (C = 0) but target has {positions} positions: every target is out of bounds"
    );
    if reduction != 0 {
        total_weight.check_output("totalWeightOut")?;
        crate::ensure!(
            !overlap(out, total_weight),
            "out and totalWeightOut overlap in memory"
        );
    }
    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(self_.clone()),
            Some(target.clone()),
            Some(weight.clone()),
            Some(out.clone()),
            Some(total_weight.clone()),
        ]),
        n_inputs: 3,
        outputs: if reduction == 0 {
            smallvec::smallvec![3]
        } else {
            smallvec::smallvec![3, 4]
        },
    };
    if reduction == 0 && positions == 0 {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    // (none: out's strides over target's dims; a 1-D self's one element has none)
    let os = |k: usize| -> isize {
        if reduction != 0 || none_shape.is_empty() {
            0
        } else if two_d {
            out.strides[k]
        } else if k == 0 {
            out.strides[0]
        } else {
            0
        }
    };
    let staged = [self_, target, weight].iter().any(|t| overlap(t, out))
        || (reduction != 0
            && [self_, target, weight]
                .iter()
                .any(|t| overlap(t, total_weight)));
    let plan = Plan {
        api,
        n: dims[0],
        c,
        h: dims[2],
        w: dims[3],
        x: (self_.offset, xs),
        t: (target.offset, ts),
        weight: (weight.offset, weight.strides[0]),
        reduction,
        ignore_index,
        dtypes: [self_.dtype, target.dtype, out.dtype],
        total_dtype: total_weight.dtype,
        out: (out.offset, [os(0), os(1), os(2)]),
        total_offset: total_weight.offset,
        staged,
    };
    Ok(Executor::new(api, bindings, plan))
}

/// aclnnNLLLoss: self (N, C) or (C), target (N) or (); see the module comment.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss(
    self_: &TensorDesc,
    target: &TensorDesc,
    weight: &TensorDesc,
    reduction: i64,
    ignore_index: i64,
    out: &TensorDesc,
    total_weight: &TensorDesc,
) -> Result<Executor> {
    nll(
        "aclnnNLLLoss",
        false,
        self_,
        target,
        weight,
        reduction,
        ignore_index,
        out,
        total_weight,
    )
}

/// aclnnNLLLoss2d: self (N, C, H, W), target (N, H, W); out, weight and totalWeightOut of
/// self's dtype.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss2d(
    self_: &TensorDesc,
    target: &TensorDesc,
    weight: &TensorDesc,
    reduction: i64,
    ignore_index: i64,
    out: &TensorDesc,
    total_weight: &TensorDesc,
) -> Result<Executor> {
    nll(
        "aclnnNLLLoss2d",
        true,
        self_,
        target,
        weight,
        reduction,
        ignore_index,
        out,
        total_weight,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "NLLLoss, NLLLoss2d",
    a: LIST,
    b: TARGET,
    out: LIST,
    rule: "−weight[t]·self[.., t, ..] per position (ignoreIndex skipped), none/mean (÷ Σ weights)/sum, totalWeightOut",
}];
