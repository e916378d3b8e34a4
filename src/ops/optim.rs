//! The fused optimizers over tensor lists (CANN's optim/ headers): aclnnFusedAdamw,
//! aclnnFusedSgd and aclnnApplyAdamWV2 (one tensor), PyTorch's `torch.optim.AdamW` / `torch.optim.SGD` steps for every
//! parameter of the lists in one launch.
//!
//! One engine (`UpdateWork`): phase 1 validates the lists (the same length; paramsRef,
//! grads and the state lists of one dtype, f32/f16/bf16, and member i of each of the same
//! shape; no list member overlaps another, so the in-place updates are independent) and
//! records each member's views; phase 2 runs every element of every member, in parallel
//! over blocks of members' elements, reading its values in f32 (f16/bf16 widened exactly),
//! updating them with the optimizer's formula in f32 and writing each state back rounded
//! once. Scalars in device memory (stateSteps, gradScale, foundInf) are read when the work
//! runs. Views of any strides and offsets.
//!
//! AdamW (aclnnFusedAdamw.md, the device kernel's order, which is torch's): with the step
//! t from stateSteps (read, not incremented: torch increments it before the kernel),
//! `g = grad / gradScale` (when given), `g = −g` (maximize), `θ = θ(1 − lr·λ)`,
//! `m = β1·m + (1 − β1)·g`, `v = β2·v + (1 − β2)·g²`, with amsgrad `v̂max = max(v̂max, v)`,
//! `denom = √v / √(1 − β2^t) + eps`, `θ = θ − lr/(1 − β1^t) · m / denom`; nothing changes
//! when foundInf is 1. The bias corrections are computed in f64 and used in f32, as torch
//! uses its Python floats. Within 2e-6 relative of torch's AdamW in f32 (the device's and
//! torch's roundings of one formula differ at the last bits).
//!
//! SGD (aclnnFusedSgd.md): `g = grad / gradScale`, `−g` (maximize), `g += λθ`; with a
//! momentum buffer `b = g` on the first step, else `b = μb + (1 − dampening)g`; then
//! `g = g + μb` (nesterov) or `b`; `θ = θ − lr·g`; the unscaled gradient is written back to
//! gradsRef. lr, momentum, weightDecay, dampening must be ≥ 0 and gradScale ≠ 0 (read at
//! run time: a zero scale fails the run as the device's trap).

use super::catalog::Entry;
use super::foreach::{check_aliasing, check_lengths, check_like, check_list, Layout};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::tensor::{contiguous_strides, TensorDesc};
use rayon::prelude::*;
use smallvec::SmallVec;

use DType::*;

const FLOATS: &[DType] = &[F32, F16, BF16];

/// Elements of one task (a block of one member).
const BLOCK: usize = 64 * 1024;

/// Most tensors one element's update reads or writes.
const MAX_STATE: usize = 5;

/// Where element i of a view lives.
#[derive(Clone, Debug)]
struct Access {
    binding: usize,
    dtype: DType,
    contiguous: bool,
    offset: usize,
    shape: SmallVec<[usize; 8]>,
    strides: SmallVec<[isize; 8]>,
}

impl Access {
    fn of(binding: usize, t: &TensorDesc) -> Access {
        let contiguous = t.shape.iter().filter(|&&d| d > 1).count() == 0
            || t.shape
                .iter()
                .zip(&t.strides)
                .zip(contiguous_strides(&t.shape).iter())
                .all(|((&d, &s), &c)| d <= 1 || s == c);
        Access {
            binding,
            dtype: t.dtype,
            contiguous,
            offset: t.offset,
            shape: t.shape.iter().copied().collect(),
            strides: t.strides.iter().copied().collect(),
        }
    }

    /// The storage offset (elements) of element i.
    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        if self.contiguous {
            return self.offset + i;
        }
        let mut off = self.offset as isize;
        let mut rem = i;
        for d in (0..self.shape.len()).rev() {
            off += (rem % self.shape[d]) as isize * self.strides[d];
            rem /= self.shape[d];
        }
        off as usize
    }
}

/// Reads element at `p` of `d` as f32 (f16/bf16 exactly).
#[inline(always)]
unsafe fn load(d: DType, p: usize) -> f32 {
    // SAFETY: the caller's address is inside the view's device memory.
    unsafe {
        match d {
            F16 => half::f16::from_bits((p as *const u16).read_unaligned()).to_f32(),
            BF16 => half::bf16::from_bits((p as *const u16).read_unaligned()).to_f32(),
            _ => (p as *const f32).read_unaligned(),
        }
    }
}

/// Writes `v` rounded once (to nearest even) to `d` at `p`.
#[inline(always)]
unsafe fn store(d: DType, p: usize, v: f32) {
    // SAFETY: as `load`.
    unsafe {
        match d {
            F16 => (p as *mut u16).write_unaligned(half::f16::from_f32(v).to_bits()),
            BF16 => (p as *mut u16).write_unaligned(half::bf16::from_f32(v).to_bits()),
            _ => (p as *mut f32).write_unaligned(v),
        }
    }
}

/// Reads the one element of a scalar tensor as f64 (f32, f16, bf16, f64 or s64).
fn read_scalar(b: &Bindings, binding: usize) -> Result<f64> {
    let v = b.view(binding)?;
    let p = b.addr(binding)? + v.offset * v.dtype.size();
    // SAFETY: phase 2 checked the view lies in its device memory.
    Ok(unsafe {
        match v.dtype {
            S64 => (p as *const i64).read_unaligned() as f64,
            F64 => (p as *const f64).read_unaligned(),
            d => load(d, p) as f64,
        }
    })
}

/// One member: its state views (in the order the rule takes them) and its step.
struct Member {
    state: SmallVec<[Access; MAX_STATE]>,
    numel: usize,
    step: Option<usize>,
}

/// An optimizer's update of one element: `vals` holds the member's state in f32 (the
/// order of `Member::state`), `k` the member's constants.
trait Rule: Send + Sync + 'static {
    /// Per-member constants from the step (and the run's scalars).
    fn constants(&self, step: f64, scale: Option<f32>) -> [f32; 4];
    fn update(&self, vals: &mut [f32; MAX_STATE], k: &[f32; 4]);
    /// Which state entries are written back.
    fn written(&self) -> &'static [usize];
}

/// The work of a fused optimizer: every member's elements, updated in place.
struct UpdateWork<R: Rule> {
    rule: R,
    members: Vec<Member>,
    grad_scale: Option<usize>,
    found_inf: Option<usize>,
    api: &'static str,
}

impl<R: Rule> Work for UpdateWork<R> {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        if let Some(f) = self.found_inf {
            if read_scalar(b, f)? == 1.0 {
                return Ok(());
            }
        }
        let scale = match self.grad_scale {
            Some(s) => {
                let v = read_scalar(b, s)? as f32;
                if v == 0.0 {
                    return Err(Error::Invalid(format!(
                        "{}: gradScale is 0; it must not be",
                        self.api
                    )));
                }
                Some(v)
            }
            None => None,
        };
        // Per member: constants and base addresses.
        let mut prepared = Vec::with_capacity(self.members.len());
        for m in &self.members {
            let step = match m.step {
                Some(s) => read_scalar(b, s)?,
                None => 0.0,
            };
            let bases: SmallVec<[usize; MAX_STATE]> = m
                .state
                .iter()
                .map(|a| b.addr(a.binding))
                .collect::<Result<_>>()?;
            prepared.push((self.rule.constants(step, scale), bases));
        }
        let tasks: Vec<(usize, usize, usize)> = self
            .members
            .iter()
            .enumerate()
            .flat_map(|(k, m)| {
                (0..m.numel.div_ceil(BLOCK))
                    .map(move |j| (k, j * BLOCK, ((j + 1) * BLOCK).min(m.numel)))
            })
            .collect();
        let written = self.rule.written();
        let task = |&(k, s, e): &(usize, usize, usize)| {
            let m = &self.members[k];
            let (consts, bases) = &prepared[k];
            let mut vals = [0f32; MAX_STATE];
            for i in s..e {
                for (j, a) in m.state.iter().enumerate() {
                    // SAFETY: phase 2 checked every member lies in its device memory.
                    vals[j] = unsafe { load(a.dtype, bases[j] + a.at(i) * a.dtype.size()) };
                }
                self.rule.update(&mut vals, consts);
                for &j in written {
                    let a = &m.state[j];
                    // SAFETY: as above; members do not overlap (phase 1).
                    unsafe { store(a.dtype, bases[j] + a.at(i) * a.dtype.size(), vals[j]) };
                }
            }
        };
        if tasks.len() <= 1 {
            tasks.iter().for_each(task);
        } else {
            crate::engine::pool().install(|| tasks.par_iter().for_each(task));
        }
        Ok(())
    }
    fn describe(&self) -> String {
        format!("{}: {} member(s)", self.api, self.members.len())
    }
}

/// A required or optional list's members must be like paramsRef's.
fn check_state(name: &str, list: &[&TensorDesc], params: &[&TensorDesc]) -> Result<()> {
    check_like(name, list, "paramsRef", params)?;
    for (i, t) in list.iter().enumerate() {
        t.check_output(&format!("{name}[{i}]"))?;
    }
    Ok(())
}

fn check_scalar_tensor(name: &str, t: &TensorDesc, allowed: &[DType]) -> Result<()> {
    crate::ensure!(
        t.numel() == 1 && allowed.contains(&t.dtype),
        "tensor '{name}' has dtype {} and {} elements: it must hold one element of {}",
        t.dtype,
        t.numel(),
        allowed
            .iter()
            .map(|d| d.acl_name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// AdamW.

struct AdamW {
    lr: f64,
    beta1: f32,
    beta2: f32,
    decay: f32,
    eps: f32,
    amsgrad: bool,
    maximize: bool,
    beta1_f64: f64,
    beta2_f64: f64,
    /// 1 − β1 and 1 − β2, computed in f64 (torch's Python floats; 1 − f32(β2) is 1e-5 off).
    one_minus_beta1: f32,
    one_minus_beta2: f32,
}

// State order: param, grad, m, v, (max v).
impl Rule for AdamW {
    fn constants(&self, step: f64, scale: Option<f32>) -> [f32; 4] {
        let bc1 = 1.0 - self.beta1_f64.powf(step);
        let bc2 = 1.0 - self.beta2_f64.powf(step);
        [
            (self.lr / bc1) as f32,
            bc2.sqrt() as f32,
            scale.map_or(1.0, |s| 1.0 / s),
            scale.is_some() as u8 as f32,
        ]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; 4]) {
        let mut g = v[1];
        if k[3] != 0.0 {
            g *= k[2];
        }
        if self.maximize {
            g = -g;
        }
        let mut p = v[0];
        if self.decay != 0.0 {
            p *= self.decay;
        }
        let m = self.beta1 * v[2] + self.one_minus_beta1 * g;
        let sq = self.beta2 * v[3] + self.one_minus_beta2 * g * g;
        let denom = if self.amsgrad {
            let mx = if v[4] > sq || v[4].is_nan() { v[4] } else { sq };
            v[4] = mx;
            mx.sqrt() / k[1] + self.eps
        } else {
            sq.sqrt() / k[1] + self.eps
        };
        v[0] = p - k[0] * m / denom;
        v[2] = m;
        v[3] = sq;
    }
    fn written(&self) -> &'static [usize] {
        if self.amsgrad {
            &[0, 2, 3, 4]
        } else {
            &[0, 2, 3]
        }
    }
}

/// aclnnApplyAdamWV2: the AdamW step of one tensor (varRef, mRef, vRef and, with amsgrad,
/// maxGradNormOptionalRef updated in place; step a one-element INT64/FLOAT32 device
/// tensor, read as it is).
#[allow(clippy::too_many_arguments)]
pub fn apply_adam_w_v2(
    var: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    max_grad_norm: Option<&TensorDesc>,
    grad: &TensorDesc,
    step: &TensorDesc,
    lr: f32,
    beta1: f32,
    beta2: f32,
    weight_decay: f32,
    eps: f32,
    amsgrad: bool,
    maximize: bool,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdamWV2";
    crate::ensure!(
        !amsgrad || max_grad_norm.is_some(),
        "maxGradNormOptionalRef is NULL but amsgrad is true: it is required then"
    );
    let maxv = if amsgrad { max_grad_norm } else { None };
    let (pv, gv, mv, vv, sv) = ([var], [grad], [m], [v], [step]);
    let xv: Option<[&TensorDesc; 1]> = maxv.map(|x| [x]);
    check_list("varRef", &pv, FLOATS)?;
    var.check_output("varRef")?;
    check_state("mRef", &mv, &pv)?;
    check_state("vRef", &vv, &pv)?;
    check_like("grad", &gv, "varRef", &pv)?;
    if let Some(x) = &xv {
        check_state("maxGradNormOptionalRef", x, &pv)?;
    }
    check_scalar_tensor("step", step, &[S64, F32])?;
    let mut outs: SmallVec<[(&str, &[&TensorDesc]); 4]> =
        smallvec::smallvec![("varRef", &pv[..]), ("mRef", &mv[..]), ("vRef", &vv[..])];
    if let Some(x) = &xv {
        outs.push(("maxGradNormOptionalRef", &x[..]));
    }
    check_aliasing(&[("grad", &gv[..]), ("step", &sv[..])], &outs, false)?;
    // Bindings in the header's order: varRef, mRef, vRef, maxGradNormOptionalRef, grad, step.
    let mut layout = Layout::new();
    let bp = layout.inout(Some(var));
    let bm = layout.inout(Some(m));
    let bv = layout.inout(Some(v));
    let bmax = layout.inout(max_grad_norm);
    let bg = layout.input(Some(grad));
    let bs = layout.input(Some(step));
    let mut state: SmallVec<[Access; MAX_STATE]> = smallvec::smallvec![
        Access::of(bp, var),
        Access::of(bg, grad),
        Access::of(bm, m),
        Access::of(bv, v),
    ];
    if let Some(x) = maxv {
        state.push(Access::of(bmax, x));
    }
    let members = vec![Member {
        state,
        numel: var.numel(),
        step: Some(bs),
    }];
    let work = UpdateWork {
        rule: AdamW::new(
            lr as f64,
            beta1 as f64,
            beta2 as f64,
            weight_decay as f64,
            eps as f64,
            amsgrad,
            maximize,
        ),
        members,
        grad_scale: None,
        found_inf: None,
        api: API,
    };
    Ok(layout.executor_with(API, work))
}

impl AdamW {
    fn new(
        lr: f64,
        beta1: f64,
        beta2: f64,
        weight_decay: f64,
        eps: f64,
        amsgrad: bool,
        maximize: bool,
    ) -> AdamW {
        AdamW {
            lr,
            beta1: beta1 as f32,
            beta2: beta2 as f32,
            decay: (1.0 - lr * weight_decay) as f32,
            eps: eps as f32,
            amsgrad,
            maximize,
            beta1_f64: beta1,
            beta2_f64: beta2,
            one_minus_beta1: (1.0 - beta1) as f32,
            one_minus_beta2: (1.0 - beta2) as f32,
        }
    }
}

/// aclnnFusedAdamw.
#[allow(clippy::too_many_arguments)]
pub fn fused_adamw(
    params: &[&TensorDesc],
    grads: &[&TensorDesc],
    exp_avgs: &[&TensorDesc],
    exp_avg_sqs: &[&TensorDesc],
    max_exp_avg_sqs: Option<&[&TensorDesc]>,
    steps: &[&TensorDesc],
    grad_scale: Option<&TensorDesc>,
    found_inf: Option<&TensorDesc>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    weight_decay: f64,
    eps: f64,
    amsgrad: bool,
    maximize: bool,
) -> Result<Executor> {
    const API: &str = "aclnnFusedAdamw";
    let maxv = if amsgrad {
        let m = max_exp_avg_sqs.filter(|m| !m.is_empty() || params.is_empty());
        Some(m.ok_or_else(|| {
            Error::Invalid(
                "maxExpAvgSqsRef is NULL or empty but amsgrad is true: it is required then".into(),
            )
        })?)
    } else {
        None
    };
    let mut lengths: SmallVec<[(&str, usize); 6]> = smallvec::smallvec![
        ("paramsRef", params.len()),
        ("grads", grads.len()),
        ("expAvgsRef", exp_avgs.len()),
        ("expAvgSqsRef", exp_avg_sqs.len()),
        ("stateSteps", steps.len()),
    ];
    if let Some(m) = maxv {
        lengths.push(("maxExpAvgSqsRef", m.len()));
    }
    check_lengths(&lengths)?;
    check_list("paramsRef", params, FLOATS)?;
    for (i, p) in params.iter().enumerate() {
        p.check_output(&format!("paramsRef[{i}]"))?;
    }
    check_like("grads", grads, "paramsRef", params)?;
    check_state("expAvgsRef", exp_avgs, params)?;
    check_state("expAvgSqsRef", exp_avg_sqs, params)?;
    if let Some(m) = maxv {
        check_state("maxExpAvgSqsRef", m, params)?;
    }
    for (i, s) in steps.iter().enumerate() {
        check_scalar_tensor(&format!("stateSteps[{i}]"), s, &[S64, F32])?;
    }
    if let Some(g) = grad_scale {
        check_scalar_tensor("gradScaleOptional", g, &[F32])?;
    }
    if let Some(f) = found_inf {
        check_scalar_tensor("foundInfOptional", f, &[F32])?;
    }
    let singles: SmallVec<[&TensorDesc; 2]> = grad_scale.into_iter().chain(found_inf).collect();
    let mut outs: SmallVec<[(&str, &[&TensorDesc]); 4]> = smallvec::smallvec![
        ("paramsRef", params),
        ("expAvgsRef", exp_avgs),
        ("expAvgSqsRef", exp_avg_sqs),
    ];
    if let Some(m) = maxv {
        outs.push(("maxExpAvgSqsRef", m));
    }
    check_aliasing(
        &[
            ("grads", grads),
            ("stateSteps", steps),
            ("scalars", &singles),
        ],
        &outs,
        false,
    )?;

    let mut layout = Layout::new();
    let bp = layout.inout_list(params);
    let bg = layout.input_list(grads);
    let bm = layout.inout_list(exp_avgs);
    let bv = layout.inout_list(exp_avg_sqs);
    let bmax = layout.inout_list(maxv.unwrap_or(&[]));
    let bs = layout.input_list(steps);
    let bscale = grad_scale.map(|t| layout.input(Some(t)));
    let binf = found_inf.map(|t| layout.input(Some(t)));
    let members = (0..params.len())
        .map(|i| {
            let mut state: SmallVec<[Access; MAX_STATE]> = smallvec::smallvec![
                Access::of(bp + i, params[i]),
                Access::of(bg + i, grads[i]),
                Access::of(bm + i, exp_avgs[i]),
                Access::of(bv + i, exp_avg_sqs[i]),
            ];
            if let Some(m) = maxv {
                state.push(Access::of(bmax + i, m[i]));
            }
            Member {
                state,
                numel: params[i].numel(),
                step: Some(bs + i),
            }
        })
        .collect();
    let rule = AdamW::new(lr, beta1, beta2, weight_decay, eps, amsgrad, maximize);
    let work = UpdateWork {
        rule,
        members,
        grad_scale: bscale,
        found_inf: binf,
        api: API,
    };
    Ok(layout.executor_with(API, work))
}

// ---------------------------------------------------------------------------------------
// SGD.

struct Sgd {
    decay: f32,
    momentum: f32,
    lr: f32,
    /// 1 − dampening in f64, then f32 (as torch's Python float).
    one_minus_dampening: f32,
    nesterov: bool,
    maximize: bool,
    first: bool,
    has_buffer: bool,
}

// State order: param, grad, (momentum buffer).
impl Rule for Sgd {
    fn constants(&self, _: f64, scale: Option<f32>) -> [f32; 4] {
        [scale.unwrap_or(1.0), scale.is_some() as u8 as f32, 0.0, 0.0]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; 4]) {
        let mut g = v[1];
        if k[1] != 0.0 {
            g /= k[0];
        }
        v[1] = g; // gradsRef gets the unscaled gradient
        if self.maximize {
            g = -g;
        }
        if self.decay != 0.0 {
            g += self.decay * v[0];
        }
        if self.has_buffer {
            let b = if self.first {
                g
            } else {
                self.momentum * v[2] + self.one_minus_dampening * g
            };
            v[2] = b;
            g = if self.nesterov {
                g + self.momentum * b
            } else {
                b
            };
        }
        v[0] -= self.lr * g;
    }
    fn written(&self) -> &'static [usize] {
        if self.has_buffer {
            &[0, 1, 2]
        } else {
            &[0, 1]
        }
    }
}

/// aclnnFusedSgd.
#[allow(clippy::too_many_arguments)]
pub fn fused_sgd(
    params: &[&TensorDesc],
    grads: &[&TensorDesc],
    momentum_buffers: Option<&[&TensorDesc]>,
    grad_scale: Option<&TensorDesc>,
    weight_decay: f32,
    momentum: f32,
    lr: f32,
    dampening: f32,
    nesterov: bool,
    maximize: bool,
    is_first_step: bool,
) -> Result<Executor> {
    const API: &str = "aclnnFusedSgd";
    for (name, v) in [
        ("lr", lr),
        ("momentum", momentum),
        ("weightDecay", weight_decay),
        ("dampening", dampening),
    ] {
        crate::ensure!(v >= 0.0, "{name} is {v}; it must be >= 0");
    }
    let bufs = momentum_buffers.filter(|b| !b.is_empty());
    let mut lengths: SmallVec<[(&str, usize); 3]> =
        smallvec::smallvec![("paramsRef", params.len()), ("gradsRef", grads.len())];
    if let Some(b) = bufs {
        lengths.push(("momentumBufferListOptionalRef", b.len()));
    }
    check_lengths(&lengths)?;
    check_list("paramsRef", params, FLOATS)?;
    for (i, p) in params.iter().enumerate() {
        p.check_output(&format!("paramsRef[{i}]"))?;
    }
    check_state("gradsRef", grads, params)?;
    if let Some(b) = bufs {
        check_state("momentumBufferListOptionalRef", b, params)?;
    }
    if let Some(g) = grad_scale {
        check_scalar_tensor("gradScaleOptional", g, &[F32])?;
    }
    let scale: SmallVec<[&TensorDesc; 1]> = grad_scale.into_iter().collect();
    let mut outs: SmallVec<[(&str, &[&TensorDesc]); 3]> =
        smallvec::smallvec![("paramsRef", params), ("gradsRef", grads)];
    if let Some(b) = bufs {
        outs.push(("momentumBufferListOptionalRef", b));
    }
    check_aliasing(&[("gradScaleOptional", &scale)], &outs, false)?;

    let mut layout = Layout::new();
    let bp = layout.inout_list(params);
    let bg = layout.inout_list(grads);
    let bb = layout.inout_list(bufs.unwrap_or(&[]));
    let bscale = grad_scale.map(|t| layout.input(Some(t)));
    let members = (0..params.len())
        .map(|i| {
            let mut state: SmallVec<[Access; MAX_STATE]> =
                smallvec::smallvec![Access::of(bp + i, params[i]), Access::of(bg + i, grads[i]),];
            if let Some(b) = bufs {
                state.push(Access::of(bb + i, b[i]));
            }
            Member {
                state,
                numel: params[i].numel(),
                step: None,
            }
        })
        .collect();
    let rule = Sgd {
        decay: weight_decay,
        momentum,
        lr,
        one_minus_dampening: (1.0 - dampening as f64) as f32,
        nesterov,
        maximize,
        first: is_first_step,
        // torch: no buffer when momentum is 0.
        has_buffer: bufs.is_some() && momentum != 0.0,
    };
    let work = UpdateWork {
        rule,
        members,
        grad_scale: bscale,
        found_inf: None,
        api: API,
    };
    Ok(layout.executor_with(API, work))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "FusedAdamw, FusedSgd, ApplyAdamWV2",
    a: FLOATS,
    b: FLOATS,
    out: FLOATS,
    rule: "torch.optim AdamW / SGD steps over tensor lists, in f32",
}];
