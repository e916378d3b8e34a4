//! The optimizers of CANN's optim/ headers: aclnnFusedAdamw, aclnnFusedSgd over tensor
//! lists and aclnnApplyAdamWV2 (one tensor), PyTorch's `torch.optim.AdamW` / `torch.optim.SGD` steps for every
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
//!
//! The single-tensor optimizers (TensorFlow's ApplyXxx, CANN's optim/ and
//! experimental/optim/), on the same engine: one member whose state is read in f32 and
//! written rounded once, in place (`...Ref`) or to separate outputs (`varOut`, ...; an
//! output may be its input's very view). Hyper-parameters given as one-element tensors
//! (of var's dtype) are read when the work runs; aclScalars are checked at phase 1. Each
//! follows the device kernel's order of f32 operations:
//! - ApplyAdamW (aclnnApplyAdamW.md, apply_adam_w_dag.h): beta1Power/beta2Power are
//!   β^(t−1), `θ(1 − lr·λ) + lr/(β1Power·β1 − 1) · m / (√(−v/(β2Power·β2 − 1)) + eps)`;
//!   with amsgrad the denominator uses max(v, maxGradNormOptional) and vRef keeps v (the
//!   kernel writes v, not the maximum; maxGradNormOptional is an input). Atlas A2's
//!   dtypes (f32/f16/bf16).
//! - ApplyAdamD: `lr' = lr·√(1 − β2Power)/(1 − β1Power)`, Nesterov optional.
//! - ApplyAdamax: `v = max(β2·v, |g|)`, `θ −= lr/(1 − β1Power) · m/(v + eps)`, with the
//!   kernel's guards (eps at least FLT_MIN, 1 − β1Power at least 1e-30). f32/f16: its only
//!   kernel is the Ascend 950's (Atlas A2 has none; CANN refuses the call there).
//! - ApplyAdadelta: torch.optim.Adadelta's step; f32/f16 (Ascend 950 only, as Adamax).
//! - ApplyFtrl: TensorFlow's FTRL-proximal; the powers `accum^(−lrPower)` as
//!   exp(ln(accum)·(−lrPower)) in f64 rounded to f32 (the device's f32 Ln/Exp differ in
//!   the last bits).
//! - ApplyGradientDescent: `var −= alpha·delta`.
//! - ApplyFusedEmaAdam (aclnnApplyFusedEmaAdam.md): with `c1, c2 = 1 − β1^t, 1 − β2^t`
//!   (1 without bias correction; t the INT64 step as f32), `g += λ·var` (mode 0, L2),
//!   `m = β1·m + (1 − β1)·g`, `v = β2·v + (1 − β2)·g²`,
//!   `u = m·(1/c1) / (√(v·(1/c2)) + eps)` `+ λ·var` (mode 1, AdamW), `var −= lr·u`, then
//!   `s = emaDecay·s + (1 − emaDecay)·var`; the double attributes used as f32, as the
//!   device's tiling passes them.

use super::catalog::Entry;
use super::foreach::{check_aliasing, check_lengths, check_like, check_list, Layout};
use crate::dtype::DType;
use crate::engine::convert;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{contiguous_strides, TensorDesc};
use rayon::prelude::*;
use smallvec::SmallVec;

use DType::*;

const FLOATS: &[DType] = &[F32, F16, BF16];

/// Elements of one task (a block of one member).
const BLOCK: usize = 64 * 1024;

/// Elements of one member updated together, each state entry staged in f32 (5 × 2 KiB:
/// in L1).
const CHUNK: usize = 512;

/// Most tensors one element's update reads or writes.
const MAX_STATE: usize = 5;

/// Where element i of a view lives.
#[derive(Clone, Debug)]
pub(super) struct Access {
    pub(super) binding: usize,
    dtype: DType,
    contiguous: bool,
    offset: usize,
    shape: SmallVec<[usize; 8]>,
    strides: SmallVec<[isize; 8]>,
}

impl Access {
    pub(super) fn of(binding: usize, t: &TensorDesc) -> Access {
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

impl Access {
    /// Reads elements `first..first + out.len()` (row-major) of the view whose binding
    /// lives at `base` into `out`, as f32 (f16/bf16 exactly).
    ///
    /// # Safety
    /// The view must lie in the device memory at `base`.
    pub(super) unsafe fn read(&self, base: usize, first: usize, out: &mut [f32]) {
        let z = self.dtype.size();
        if self.contiguous {
            // SAFETY: the caller's view holds these elements; `out` holds out.len() f32.
            unsafe {
                convert::run(
                    (base + (self.offset + first) * z) as *const u8,
                    self.dtype,
                    1,
                    out.as_mut_ptr() as *mut u8,
                    F32,
                    1,
                    out.len(),
                )
            };
            return;
        }
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: as above.
            *o = unsafe { load(self.dtype, base + self.at(first + i) * z) };
        }
    }

    /// Writes `vals` to elements `first..` of the view, rounded once to its dtype.
    ///
    /// # Safety
    /// As `read`.
    pub(super) unsafe fn write(&self, base: usize, first: usize, vals: &[f32]) {
        let z = self.dtype.size();
        if self.contiguous {
            // SAFETY: as `read`.
            unsafe {
                convert::run(
                    vals.as_ptr() as *const u8,
                    F32,
                    1,
                    (base + (self.offset + first) * z) as *mut u8,
                    self.dtype,
                    1,
                    vals.len(),
                )
            };
            return;
        }
        for (i, &v) in vals.iter().enumerate() {
            // SAFETY: as above.
            unsafe { store(self.dtype, base + self.at(first + i) * z, v) };
        }
    }
}

/// Reads element at `p` of `d` as f32 (f16/bf16 and UINT8 codes exactly).
#[inline(always)]
unsafe fn load(d: DType, p: usize) -> f32 {
    // SAFETY: the caller's address is inside the view's device memory.
    unsafe {
        match d {
            U8 => (p as *const u8).read() as f32,
            F16 => half::f16::from_bits((p as *const u16).read_unaligned()).to_f32(),
            BF16 => half::bf16::from_bits((p as *const u16).read_unaligned()).to_f32(),
            _ => (p as *const f32).read_unaligned(),
        }
    }
}

/// Writes `v` rounded once (to nearest even) to `d` at `p` (UINT8: a code in 0..=255).
#[inline(always)]
unsafe fn store(d: DType, p: usize, v: f32) {
    // SAFETY: as `load`.
    unsafe {
        match d {
            U8 => (p as *mut u8).write(v as u8),
            F16 => (p as *mut u16).write_unaligned(half::f16::from_f32(v).to_bits()),
            BF16 => (p as *mut u16).write_unaligned(half::bf16::from_f32(v).to_bits()),
            _ => (p as *mut f32).write_unaligned(v),
        }
    }
}

/// Reads the one element of a scalar tensor as f64 (f32, f16, bf16, f64 or s64).
pub(super) fn read_scalar(b: &Bindings, binding: usize) -> Result<f64> {
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

/// One member: its state views (in the order the rule takes them), where each written
/// entry goes (`out[k]` receives entry `written()[k]`: the entry's own view when the
/// operator updates in place, an output tensor otherwise) and its step.
struct Member {
    state: SmallVec<[Access; MAX_STATE]>,
    out: SmallVec<[Access; MAX_STATE]>,
    numel: usize,
    step: Option<usize>,
}

impl Member {
    /// A member updated in place: the written entries go back to their own views.
    fn in_place(
        state: SmallVec<[Access; MAX_STATE]>,
        written: &[usize],
        numel: usize,
        step: Option<usize>,
    ) -> Member {
        let out = written.iter().map(|&j| state[j].clone()).collect();
        Member {
            state,
            out,
            numel,
            step,
        }
    }
}

/// Per-member constants of a rule.
const NK: usize = 8;

/// An optimizer's update of one element: `vals` holds the member's state in f32 (the
/// order of `Member::state`), `k` the member's constants.
trait Rule: Send + Sync + 'static {
    /// Per-member constants from the step, the run's gradient scale and the scalars in
    /// device memory (`UpdateWork::scalars`, read as f64 when the work runs).
    fn constants(&self, step: f64, scale: Option<f32>, scalars: &[f64]) -> [f32; NK];
    fn update(&self, vals: &mut [f32; MAX_STATE], k: &[f32; NK]);
    /// Which state entries are written back.
    fn written(&self) -> &'static [usize];
}

/// The work of a fused optimizer: every member's elements, updated in place.
struct UpdateWork<R: Rule> {
    rule: R,
    members: Vec<Member>,
    grad_scale: Option<usize>,
    found_inf: Option<usize>,
    /// One-element tensors read when the work runs and handed to `Rule::constants`.
    scalars: SmallVec<[usize; 8]>,
    api: &'static str,
}

impl<R: Rule> UpdateWork<R> {
    fn new(rule: R, members: Vec<Member>, api: &'static str) -> UpdateWork<R> {
        UpdateWork {
            rule,
            members,
            grad_scale: None,
            found_inf: None,
            scalars: SmallVec::new(),
            api,
        }
    }
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
        let scalars: SmallVec<[f64; 8]> = self
            .scalars
            .iter()
            .map(|&s| read_scalar(b, s))
            .collect::<Result<_>>()?;
        // Per member: constants and base addresses (state, then outputs).
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
            let outs: SmallVec<[usize; MAX_STATE]> = m
                .out
                .iter()
                .map(|a| b.addr(a.binding))
                .collect::<Result<_>>()?;
            prepared.push((self.rule.constants(step, scale, &scalars), bases, outs));
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
            let (consts, bases, outs) = &prepared[k];
            // Structure of arrays: a chunk of every state entry in f32, updated element by
            // element (a loop the compiler vectorizes: no dtype or address work in it),
            // then written back. In place, an output is its input's very view, so each
            // chunk is read whole before any of it is written.
            let mut buf = [[0f32; CHUNK]; MAX_STATE];
            for c in (s..e).step_by(CHUNK) {
                let n = CHUNK.min(e - c);
                for (j, a) in m.state.iter().enumerate() {
                    // SAFETY: phase 2 checked every member lies in its device memory.
                    unsafe { a.read(bases[j], c, &mut buf[j][..n]) };
                }
                for i in 0..n {
                    let mut vals: [f32; MAX_STATE] = std::array::from_fn(|j| buf[j][i]);
                    self.rule.update(&mut vals, consts);
                    for (j, row) in buf.iter_mut().enumerate() {
                        row[i] = vals[j];
                    }
                }
                for (o, &j) in written.iter().enumerate() {
                    // SAFETY: as above; outputs do not overlap (phase 1).
                    unsafe { m.out[o].write(outs[o], c, &buf[j][..n]) };
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
    fn constants(&self, step: f64, scale: Option<f32>, _: &[f64]) -> [f32; NK] {
        let bc1 = 1.0 - self.beta1_f64.powf(step);
        let bc2 = 1.0 - self.beta2_f64.powf(step);
        [
            (self.lr / bc1) as f32,
            bc2.sqrt() as f32,
            scale.map_or(1.0, |s| 1.0 / s),
            scale.is_some() as u8 as f32,
            0.0,
            0.0,
            0.0,
            0.0,
        ]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
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
    let rule = AdamW::new(
        lr as f64,
        beta1 as f64,
        beta2 as f64,
        weight_decay as f64,
        eps as f64,
        amsgrad,
        maximize,
    );
    let members = vec![Member::in_place(
        state,
        rule.written(),
        var.numel(),
        Some(bs),
    )];
    let work = UpdateWork::new(rule, members, API);
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
    let rule = AdamW::new(lr, beta1, beta2, weight_decay, eps, amsgrad, maximize);
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
            Member::in_place(state, rule.written(), params[i].numel(), Some(bs + i))
        })
        .collect();
    let mut work = UpdateWork::new(rule, members, API);
    work.grad_scale = bscale;
    work.found_inf = binf;
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
    fn constants(&self, _: f64, scale: Option<f32>, _: &[f64]) -> [f32; NK] {
        let mut k = [0.0; NK];
        k[0] = scale.unwrap_or(1.0);
        k[1] = scale.is_some() as u8 as f32;
        k
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
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
    let members = (0..params.len())
        .map(|i| {
            let mut state: SmallVec<[Access; MAX_STATE]> =
                smallvec::smallvec![Access::of(bp + i, params[i]), Access::of(bg + i, grads[i]),];
            if let Some(b) = bufs {
                state.push(Access::of(bb + i, b[i]));
            }
            Member::in_place(state, rule.written(), params[i].numel(), None)
        })
        .collect();
    let mut work = UpdateWork::new(rule, members, API);
    work.grad_scale = bscale;
    Ok(layout.executor_with(API, work))
}

// ---------------------------------------------------------------------------------------
// The single-tensor optimizers of CANN's optim/ (TensorFlow's ApplyXxx): the update of one
// parameter tensor and its state, computed in f32 in the device kernel's order.

/// Checks shared by the single-tensor optimizers: `var` of a dtype in `allowed` (at most
/// 8 dims; at least 1 with `min_rank`), each of `like` with var's dtype and shape.
fn check_single(
    var_name: &str,
    var: &TensorDesc,
    allowed: &[DType],
    min_rank: usize,
    like: &[(&str, &TensorDesc)],
) -> Result<()> {
    super::elementwise::check_tensor(var_name, var, allowed)?;
    crate::ensure!(
        var.rank() >= min_rank,
        "tensor '{var_name}' has {} dims; 0-d tensors are not supported (1 to 8 dims)",
        var.rank()
    );
    for (name, t) in like {
        crate::ensure!(
            t.dtype == var.dtype,
            "tensor '{name}' has dtype {} but '{var_name}' has {}: they must be equal",
            t.dtype,
            var.dtype
        );
        crate::ensure!(
            t.shape == var.shape,
            "tensor '{name}' has shape {:?} but '{var_name}' has {:?}: they must be equal",
            &t.shape[..],
            &var.shape[..]
        );
        t.format
            .check_for_elementwise(name, t.rank())
            .map_err(Error::Invalid)?;
    }
    Ok(())
}

/// Scalar tensors of one element with var's dtype.
fn check_scalars(scalars: &[(&str, &TensorDesc)], dtype: DType) -> Result<()> {
    for (name, t) in scalars {
        check_scalar_tensor(name, t, &[dtype])?;
    }
    Ok(())
}

/// Outputs writable and apart; an input may be an output only as its very view.
fn check_outputs(inputs: &[(&str, &TensorDesc)], outputs: &[(&str, &TensorDesc)]) -> Result<()> {
    for (name, t) in outputs {
        t.check_output(name)?;
    }
    let ins: SmallVec<[[&TensorDesc; 1]; 12]> = inputs.iter().map(|(_, t)| [*t]).collect();
    let outs: SmallVec<[[&TensorDesc; 1]; 4]> = outputs.iter().map(|(_, t)| [*t]).collect();
    let ins: SmallVec<[(&str, &[&TensorDesc]); 12]> = inputs
        .iter()
        .zip(&ins)
        .map(|((n, _), t)| (*n, &t[..]))
        .collect();
    let outs: SmallVec<[(&str, &[&TensorDesc]); 4]> = outputs
        .iter()
        .zip(&outs)
        .map(|((n, _), t)| (*n, &t[..]))
        .collect();
    check_aliasing(&ins, &outs, true)
}

// ApplyAdamW (aclnnApplyAdamW.md; the device kernel's order of operations).

struct ApplyAdamW {
    amsgrad: bool,
    maximize: bool,
}

// State: var, grad, m, v, (maxGradNorm). Scalars: beta1Power, beta2Power, lr,
// weightDecay, beta1, beta2, eps.
impl Rule for ApplyAdamW {
    fn constants(&self, _: f64, _: Option<f32>, s: &[f64]) -> [f32; NK] {
        let [b1p, b2p, lr, wd, b1, b2, eps] =
            [s[0], s[1], s[2], s[3], s[4], s[5], s[6]].map(|x| x as f32);
        [
            1.0 + -(wd * lr),
            b1,
            b2,
            b2p * b2 - 1.0,
            lr / (b1p * b1 - 1.0),
            eps,
            b1 - 1.0,
            b2 - 1.0,
        ]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
        let g = if self.maximize { -v[1] } else { v[1] };
        let var_t = v[0] * k[0];
        let m = v[2] * k[1] - k[6] * g;
        let sq = k[2] * v[3] - k[7] * g * g;
        let vm = if self.amsgrad { nan_max(sq, v[4]) } else { sq };
        let denom = (-vm / k[3]).sqrt() + k[5];
        v[0] = var_t + k[4] * m / denom;
        v[2] = m;
        v[3] = sq;
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3]
    }
}

/// max(a, b), NaN when either is.
#[inline(always)]
fn nan_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// aclnnApplyAdamW: varRef, mRef, vRef updated in place; the hyper-parameters are
/// one-element tensors of var's dtype read when the step runs.
#[allow(clippy::too_many_arguments)]
pub fn apply_adam_w(
    var: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    beta1_power: &TensorDesc,
    beta2_power: &TensorDesc,
    lr: &TensorDesc,
    weight_decay: &TensorDesc,
    beta1: &TensorDesc,
    beta2: &TensorDesc,
    eps: &TensorDesc,
    grad: &TensorDesc,
    max_grad_norm: Option<&TensorDesc>,
    amsgrad: bool,
    maximize: bool,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdamW";
    if amsgrad && max_grad_norm.is_none() {
        return Err(Error::Null(
            "maxGradNormOptional is NULL but amsgrad is true: it is required then".into(),
        ));
    }
    let mut like: SmallVec<[(&str, &TensorDesc); 4]> =
        smallvec::smallvec![("mRef", m), ("vRef", v), ("grad", grad)];
    if let Some(x) = max_grad_norm {
        like.push(("maxGradNormOptional", x));
    }
    check_single("varRef", var, FLOATS, 0, &like)?;
    let scalars = [
        ("beta1Power", beta1_power),
        ("beta2Power", beta2_power),
        ("lr", lr),
        ("weightDecay", weight_decay),
        ("beta1", beta1),
        ("beta2", beta2),
        ("eps", eps),
    ];
    check_scalars(&scalars, var.dtype)?;
    let mut ins: SmallVec<[(&str, &TensorDesc); 12]> = scalars.iter().copied().collect();
    ins.push(("grad", grad));
    if let Some(x) = max_grad_norm {
        ins.push(("maxGradNormOptional", x));
    }
    in_place_apart(&ins, &[("varRef", var), ("mRef", m), ("vRef", v)])?;
    let mut layout = Layout::new();
    let bp = layout.inout(Some(var));
    let bm = layout.inout(Some(m));
    let bv = layout.inout(Some(v));
    let bs: SmallVec<[usize; 8]> = scalars.iter().map(|(_, t)| layout.input(Some(t))).collect();
    let bg = layout.input(Some(grad));
    let bmax = layout.input(max_grad_norm);
    let mut state: SmallVec<[Access; MAX_STATE]> = smallvec::smallvec![
        Access::of(bp, var),
        Access::of(bg, grad),
        Access::of(bm, m),
        Access::of(bv, v),
    ];
    let amsgrad = amsgrad && max_grad_norm.is_some();
    if let (true, Some(x)) = (amsgrad, max_grad_norm) {
        state.push(Access::of(bmax, x));
    }
    let rule = ApplyAdamW { amsgrad, maximize };
    let members = vec![Member::in_place(state, rule.written(), var.numel(), None)];
    let mut work = UpdateWork::new(rule, members, API);
    work.scalars = bs;
    Ok(layout.executor_with(API, work))
}

// ApplyAdamD (aclnnApplyAdamD.md): TensorFlow's ApplyAdam with varOut/mOut/vOut.

struct AdamD {
    nesterov: bool,
}

// State: var, grad, m, v. Scalars: beta1Power, beta2Power, lr, beta1, beta2, epsilon.
impl Rule for AdamD {
    fn constants(&self, _: f64, _: Option<f32>, s: &[f64]) -> [f32; NK] {
        let [b1p, b2p, lr, b1, b2, eps] = [s[0], s[1], s[2], s[3], s[4], s[5]].map(|x| x as f32);
        [
            b1,
            1.0 - b1,
            b2,
            1.0 - b2,
            eps,
            lr * (1.0 - b2p).sqrt() / (1.0 - b1p),
            0.0,
            0.0,
        ]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
        let g = v[1];
        let m = v[2] * k[0] + g * k[1];
        let sq = g * g * k[3] + v[3] * k[2];
        let num = if self.nesterov {
            (m * k[0] + g * k[1]) * k[5]
        } else {
            m * k[5]
        };
        v[0] -= num / (sq.sqrt() + k[4]);
        v[2] = m;
        v[3] = sq;
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3]
    }
}

/// aclnnApplyAdamD: varOut, mOut, vOut from var, m, v (an output may be its input's very
/// view, the in-place use); useLocking changes nothing.
#[allow(clippy::too_many_arguments)]
pub fn apply_adam_d(
    var: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    beta1_power: &TensorDesc,
    beta2_power: &TensorDesc,
    lr: &TensorDesc,
    beta1: &TensorDesc,
    beta2: &TensorDesc,
    epsilon: &TensorDesc,
    grad: &TensorDesc,
    _use_locking: bool,
    use_nesterov: bool,
    var_out: &TensorDesc,
    m_out: &TensorDesc,
    v_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdamD";
    check_single(
        "var",
        var,
        FLOATS,
        0,
        &[
            ("m", m),
            ("v", v),
            ("grad", grad),
            ("varOut", var_out),
            ("mOut", m_out),
            ("vOut", v_out),
        ],
    )?;
    let scalars = [
        ("beta1Power", beta1_power),
        ("beta2Power", beta2_power),
        ("lr", lr),
        ("beta1", beta1),
        ("beta2", beta2),
        ("epsilon", epsilon),
    ];
    check_scalars(&scalars, var.dtype)?;
    let mut ins: SmallVec<[(&str, &TensorDesc); 12]> =
        smallvec::smallvec![("var", var), ("m", m), ("v", v)];
    ins.extend(scalars.iter().copied());
    ins.push(("grad", grad));
    let outs = [("varOut", var_out), ("mOut", m_out), ("vOut", v_out)];
    check_outputs(&ins, &outs)?;
    let mut layout = Layout::new();
    let b: SmallVec<[usize; 12]> = ins.iter().map(|(_, t)| layout.input(Some(t))).collect();
    let o: SmallVec<[usize; 3]> = outs.iter().map(|(_, t)| layout.output(t)).collect();
    let state = smallvec::smallvec![
        Access::of(b[0], var),
        Access::of(b[9], grad),
        Access::of(b[1], m),
        Access::of(b[2], v),
    ];
    let out = smallvec::smallvec![
        Access::of(o[0], var_out),
        Access::of(o[1], m_out),
        Access::of(o[2], v_out),
    ];
    let members = vec![Member {
        state,
        out,
        numel: var.numel(),
        step: None,
    }];
    let mut work = UpdateWork::new(
        AdamD {
            nesterov: use_nesterov,
        },
        members,
        API,
    );
    work.scalars = b[3..9].iter().copied().collect();
    Ok(layout.executor_with(API, work))
}

// ApplyAdamax (the README of experimental/optim/apply_adamax: TensorFlow's ApplyAdaMax).

struct Adamax {
    beta1: f32,
    one_minus_beta1: f32,
    beta2: f32,
    eps: f32,
    lr_adj: f32,
}

// State: var, grad, m, v.
impl Rule for Adamax {
    fn constants(&self, _: f64, _: Option<f32>, _: &[f64]) -> [f32; NK] {
        [0.0; NK]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], _: &[f32; NK]) {
        let g = v[1];
        let m = v[2] * self.beta1 + g * self.one_minus_beta1;
        let u = nan_max(v[3] * self.beta2, g.abs());
        v[0] -= m * self.lr_adj / (u + self.eps);
        v[2] = m;
        v[3] = u;
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3]
    }
}

fn scalar_f32(name: &str, s: &Scalar) -> Result<f32> {
    crate::ensure!(
        s.dtype.is_float() || s.dtype.is_int(),
        "scalar '{name}' has dtype {}; it must be a number",
        s.dtype
    );
    Ok(s.cast(F32).get::<f32>())
}

/// aclnnApplyAdamax: varOut, mOut, vOut from var, m, v (f32/f16; the hyper-parameters
/// aclScalars, checked: beta1Power, beta1, beta2 in [0, 1), epsilon ≥ 0).
#[allow(clippy::too_many_arguments)]
pub fn apply_adamax(
    var: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    beta1_power: Scalar,
    lr: Scalar,
    beta1: Scalar,
    beta2: Scalar,
    epsilon: Scalar,
    grad: &TensorDesc,
    var_out: &TensorDesc,
    m_out: &TensorDesc,
    v_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdamax";
    check_single(
        "var",
        var,
        &[F32, F16],
        1,
        &[
            ("m", m),
            ("v", v),
            ("grad", grad),
            ("varOut", var_out),
            ("mOut", m_out),
            ("vOut", v_out),
        ],
    )?;
    let b1p = scalar_f32("beta1Power", &beta1_power)?;
    let lr = scalar_f32("lr", &lr)?;
    let b1 = scalar_f32("beta1", &beta1)?;
    let b2 = scalar_f32("beta2", &beta2)?;
    let mut eps = scalar_f32("epsilon", &epsilon)?;
    crate::ensure!(eps >= 0.0, "epsilon is {eps}; it must be >= 0");
    for (name, x) in [("beta1Power", b1p), ("beta1", b1), ("beta2", b2)] {
        crate::ensure!(
            (0.0..1.0).contains(&x),
            "{name} is {x}; it must be in [0, 1)"
        );
    }
    let ins = [("var", var), ("m", m), ("v", v), ("grad", grad)];
    let outs = [("varOut", var_out), ("mOut", m_out), ("vOut", v_out)];
    check_outputs(&ins, &outs)?;
    // The device's guards: epsilon at least FLT_MIN, 1 − beta1Power at least 1e-30.
    if eps < f32::MIN_POSITIVE {
        eps = f32::MIN_POSITIVE;
    }
    let denom = (1.0 - b1p).max(1e-30);
    let rule = Adamax {
        beta1: b1,
        one_minus_beta1: 1.0 - b1,
        beta2: b2,
        eps,
        lr_adj: lr / denom,
    };
    Ok(single_out_of_place(API, rule, &ins, &outs, var.numel()))
}

/// The executor of an out-of-place single-tensor rule whose inputs are (var, s1, s2,
/// grad) and state (var, grad, s1, s2), outputs (varOut, s1Out, s2Out).
fn single_out_of_place<R: Rule>(
    api: &'static str,
    rule: R,
    ins: &[(&str, &TensorDesc); 4],
    outs: &[(&str, &TensorDesc); 3],
    numel: usize,
) -> Executor {
    let mut layout = Layout::new();
    let b: SmallVec<[usize; 4]> = ins.iter().map(|(_, t)| layout.input(Some(t))).collect();
    let o: SmallVec<[usize; 3]> = outs.iter().map(|(_, t)| layout.output(t)).collect();
    let state = smallvec::smallvec![
        Access::of(b[0], ins[0].1),
        Access::of(b[3], ins[3].1),
        Access::of(b[1], ins[1].1),
        Access::of(b[2], ins[2].1),
    ];
    let out = (0..3).map(|k| Access::of(o[k], outs[k].1)).collect();
    let members = vec![Member {
        state,
        out,
        numel,
        step: None,
    }];
    layout.executor_with(api, UpdateWork::new(rule, members, api))
}

// ApplyAdadelta (the README of experimental/optim/apply_adadelta; torch.optim.Adadelta).

struct Adadelta {
    lr: f32,
    rho: f32,
    one_minus_rho: f32,
    eps: f32,
}

// State: var, grad, accum, accumUpdate.
impl Rule for Adadelta {
    fn constants(&self, _: f64, _: Option<f32>, _: &[f64]) -> [f32; NK] {
        [0.0; NK]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], _: &[f32; NK]) {
        let g = v[1];
        let accum = v[2] * self.rho + g * g * self.one_minus_rho;
        let update = (v[3] + self.eps).sqrt() / (accum + self.eps).sqrt() * g;
        v[0] -= update * self.lr;
        v[3] = v[3] * self.rho + update * update * self.one_minus_rho;
        v[2] = accum;
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3]
    }
}

/// aclnnApplyAdadelta: varOut, accumOut, accumUpdateOut from var, accum, accumUpdate
/// (f32/f16; lr ≥ 0, rho in [0, 1), epsilon > 0).
#[allow(clippy::too_many_arguments)]
pub fn apply_adadelta(
    var: &TensorDesc,
    accum: &TensorDesc,
    accum_update: &TensorDesc,
    lr: Scalar,
    rho: Scalar,
    epsilon: Scalar,
    grad: &TensorDesc,
    var_out: &TensorDesc,
    accum_out: &TensorDesc,
    accum_update_out: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnApplyAdadelta";
    check_single(
        "var",
        var,
        &[F32, F16],
        1,
        &[
            ("accum", accum),
            ("accumUpdate", accum_update),
            ("grad", grad),
            ("varOut", var_out),
            ("accumOut", accum_out),
            ("accumUpdateOut", accum_update_out),
        ],
    )?;
    let lr = scalar_f32("lr", &lr)?;
    let rho = scalar_f32("rho", &rho)?;
    let eps = scalar_f32("epsilon", &epsilon)?;
    crate::ensure!(lr >= 0.0, "lr is {lr}; it must be >= 0");
    crate::ensure!(eps > 0.0, "epsilon is {eps}; it must be > 0");
    crate::ensure!(
        (0.0..1.0).contains(&rho),
        "rho is {rho}; it must be in [0, 1)"
    );
    let ins = [
        ("var", var),
        ("accum", accum),
        ("accumUpdate", accum_update),
        ("grad", grad),
    ];
    let outs = [
        ("varOut", var_out),
        ("accumOut", accum_out),
        ("accumUpdateOut", accum_update_out),
    ];
    check_outputs(&ins, &outs)?;
    let rule = Adadelta {
        lr,
        rho,
        one_minus_rho: 1.0 - rho,
        eps,
    };
    Ok(single_out_of_place(API, rule, &ins, &outs, var.numel()))
}

// ApplyFtrl (aclnnApplyFtrl.md: TensorFlow's ApplyFtrl).

struct Ftrl;

// State: var, grad, accum, linear. Scalars: lr, l1, l2, lrPower.
impl Rule for Ftrl {
    fn constants(&self, _: f64, _: Option<f32>, s: &[f64]) -> [f32; NK] {
        let [lr, l1, l2, p] = [s[0], s[1], s[2], s[3]].map(|x| x as f32);
        [1.0 / lr, l1, 2.0 * l2, -p, 0.0, 0.0, 0.0, 0.0]
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
        let (var, g, accum, linear) = (v[0], v[1], v[2], v[3]);
        let accum_new = accum + g * g;
        let pow = |x: f32| ((x as f64).ln() * k[3] as f64).exp() as f32;
        let (pn, po) = (pow(accum_new), pow(accum));
        let lin = linear + g - (pn - po) * k[0] * var;
        let quadratic = pn * k[0] + k[2];
        let sign = if lin > 0.0 {
            1.0
        } else if lin < 0.0 {
            -1.0
        } else {
            0.0
        };
        v[0] = if lin.abs() > k[1] {
            (sign * k[1] - lin) / quadratic
        } else {
            0.0
        };
        v[2] = accum_new;
        v[3] = lin;
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3]
    }
}

/// aclnnApplyFtrl: varRef, accumRef, linearRef updated in place (f32/f16/bf16; lr, l1,
/// l2, lrPower one-element tensors of var's dtype; useLocking, documented as false only,
/// changes nothing, as on the device).
#[allow(clippy::too_many_arguments)]
pub fn apply_ftrl(
    var: &TensorDesc,
    accum: &TensorDesc,
    linear: &TensorDesc,
    grad: &TensorDesc,
    lr: &TensorDesc,
    l1: &TensorDesc,
    l2: &TensorDesc,
    lr_power: &TensorDesc,
    _use_locking: bool,
) -> Result<Executor> {
    const API: &str = "aclnnApplyFtrl";
    check_single(
        "varRef",
        var,
        FLOATS,
        0,
        &[("accumRef", accum), ("linearRef", linear), ("grad", grad)],
    )?;
    let scalars = [("lr", lr), ("l1", l1), ("l2", l2), ("lrPower", lr_power)];
    check_scalars(&scalars, var.dtype)?;
    let outs = [("varRef", var), ("accumRef", accum), ("linearRef", linear)];
    let mut ins: SmallVec<[(&str, &TensorDesc); 12]> = smallvec::smallvec![("grad", grad)];
    ins.extend(scalars.iter().copied());
    in_place_apart(&ins, &outs)?;
    let mut layout = Layout::new();
    let bp = layout.inout(Some(var));
    let ba = layout.inout(Some(accum));
    let bl = layout.inout(Some(linear));
    let bg = layout.input(Some(grad));
    let bs: SmallVec<[usize; 8]> = scalars.iter().map(|(_, t)| layout.input(Some(t))).collect();
    let state = smallvec::smallvec![
        Access::of(bp, var),
        Access::of(bg, grad),
        Access::of(ba, accum),
        Access::of(bl, linear),
    ];
    let members = vec![Member::in_place(state, Ftrl.written(), var.numel(), None)];
    let mut work = UpdateWork::new(Ftrl, members, API);
    work.scalars = bs;
    Ok(layout.executor_with(API, work))
}

/// In-place operators: the updated tensors are writable and apart, and no input shares
/// memory with them.
pub(super) fn in_place_apart(
    ins: &[(&str, &TensorDesc)],
    outs: &[(&str, &TensorDesc)],
) -> Result<()> {
    check_outputs(&[], outs)?;
    for (name, t) in ins {
        for (oname, o) in outs {
            let (i, o) = ([*t], [*o]);
            check_aliasing(&[(name, &i[..])], &[(oname, &o[..])], false).map_err(|_| {
                Error::Invalid(format!(
                    "input tensor '{name}' shares memory with '{oname}', which is updated in place: they must be apart"
                ))
            })?;
        }
    }
    Ok(())
}

// ApplyGradientDescent (aclnnApplyGradientDescent.md).

struct GradientDescent;

// State: var, delta. Scalars: alpha.
impl Rule for GradientDescent {
    fn constants(&self, _: f64, _: Option<f32>, s: &[f64]) -> [f32; NK] {
        let mut k = [0.0; NK];
        k[0] = s[0] as f32;
        k
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
        v[0] -= v[1] * k[0];
    }
    fn written(&self) -> &'static [usize] {
        &[0]
    }
}

/// aclnnApplyGradientDescent: `var −= alpha·delta` in place (f32/f16/bf16, 1 to 8 dims;
/// alpha a one-element tensor of var's dtype).
pub fn apply_gradient_descent(
    var: &TensorDesc,
    alpha: &TensorDesc,
    delta: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnApplyGradientDescent";
    check_single("var", var, FLOATS, 1, &[("delta", delta)])?;
    check_scalars(&[("alpha", alpha)], var.dtype)?;
    in_place_apart(&[("alpha", alpha), ("delta", delta)], &[("var", var)])?;
    let mut layout = Layout::new();
    let bp = layout.inout(Some(var));
    let ba = layout.input(Some(alpha));
    let bd = layout.input(Some(delta));
    let state = smallvec::smallvec![Access::of(bp, var), Access::of(bd, delta)];
    let members = vec![Member::in_place(
        state,
        GradientDescent.written(),
        var.numel(),
        None,
    )];
    let mut work = UpdateWork::new(GradientDescent, members, API);
    work.scalars = smallvec::smallvec![ba];
    Ok(layout.executor_with(API, work))
}

// ApplyFusedEmaAdam (aclnnApplyFusedEmaAdam.md; the kernel's f32 order of operations).

struct EmaAdam {
    /// 0: L2 (weightDecay·var added to the gradient); 1: AdamW (added to the update).
    mode: i64,
    bias_correction: bool,
    lr: f32,
    ema_decay: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
}

// State: var, grad, m, v, s. Constants: 1/(1 − β1^t), 1/(1 − β2^t).
impl Rule for EmaAdam {
    fn constants(&self, step: f64, _: Option<f32>, _: &[f64]) -> [f32; NK] {
        let mut k = [0.0; NK];
        // The kernel reads the INT64 step as f32 and raises the f32 betas to it.
        let (c1, c2) = if self.bias_correction {
            let t = step as f32 as f64;
            let pow = |b: f32| ((b as f64).powf(t)) as f32;
            (1.0 - pow(self.beta1), 1.0 - pow(self.beta2))
        } else {
            (1.0, 1.0)
        };
        k[0] = 1.0 / c1;
        k[1] = 1.0 / c2;
        k
    }
    #[inline(always)]
    fn update(&self, v: &mut [f32; MAX_STATE], k: &[f32; NK]) {
        let var = v[0];
        let mut g = v[1];
        if self.mode == 0 {
            g += var * self.weight_decay;
        }
        let m = v[2] * self.beta1 + g * (1.0 - self.beta1);
        let sq = v[3] * self.beta2 + g * g * (1.0 - self.beta2);
        let mut update = m * k[0] / ((sq * k[1]).sqrt() + self.eps);
        if self.mode == 1 {
            update += var * self.weight_decay;
        }
        let var_t = var - update * self.lr;
        v[0] = var_t;
        v[2] = m;
        v[3] = sq;
        v[4] = v[4] * self.ema_decay + var_t * (1.0 - self.ema_decay);
    }
    fn written(&self) -> &'static [usize] {
        &[0, 2, 3, 4]
    }
}

/// aclnnApplyFusedEmaAdam: the Adam step of varRef (mode 0: L2 regularization, mode 1:
/// AdamW's decoupled weight decay; bias correction optional, with the INT64 step read when
/// the step runs) and the exponential moving average sRef of the updated var, all updated
/// in place (f32/f16/bf16 alike, 1 to 8 dims). The double attributes are used as f32, as
/// the device's tiling passes them.
#[allow(clippy::too_many_arguments)]
pub fn apply_fused_ema_adam(
    grad: &TensorDesc,
    var: &TensorDesc,
    m: &TensorDesc,
    v: &TensorDesc,
    s: &TensorDesc,
    step: &TensorDesc,
    lr: f64,
    ema_decay: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    mode: i64,
    bias_correction: bool,
    weight_decay: f64,
) -> Result<Executor> {
    const API: &str = "aclnnApplyFusedEmaAdam";
    check_single(
        "grad",
        grad,
        FLOATS,
        1,
        &[("varRef", var), ("mRef", m), ("vRef", v), ("sRef", s)],
    )?;
    check_scalar_tensor("step", step, &[S64])?;
    crate::ensure!(
        mode == 0 || mode == 1,
        "mode is {mode}; it must be 0 (L2 regularization) or 1 (AdamW weight decay)"
    );
    in_place_apart(
        &[("grad", grad), ("step", step)],
        &[("varRef", var), ("mRef", m), ("vRef", v), ("sRef", s)],
    )?;
    // Bindings in the header's order: grad, varRef, mRef, vRef, sRef, step.
    let mut layout = Layout::new();
    let bg = layout.input(Some(grad));
    let bp = layout.inout(Some(var));
    let bm = layout.inout(Some(m));
    let bv = layout.inout(Some(v));
    let bs = layout.inout(Some(s));
    let bt = layout.input(Some(step));
    let state = smallvec::smallvec![
        Access::of(bp, var),
        Access::of(bg, grad),
        Access::of(bm, m),
        Access::of(bv, v),
        Access::of(bs, s),
    ];
    let rule = EmaAdam {
        mode,
        bias_correction,
        lr: lr as f32,
        ema_decay: ema_decay as f32,
        beta1: beta1 as f32,
        beta2: beta2 as f32,
        eps: eps as f32,
        weight_decay: weight_decay as f32,
    };
    let members = vec![Member::in_place(
        state,
        rule.written(),
        var.numel(),
        Some(bt),
    )];
    Ok(layout.executor_with(API, UpdateWork::new(rule, members, API)))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "FusedAdamw, FusedSgd, ApplyAdamWV2",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "torch.optim AdamW / SGD steps over tensor lists, in f32",
    },
    Entry {
        ops: "ApplyAdamW, ApplyAdamD, ApplyFtrl, ApplyGradientDescent",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "one tensor's optimizer step, hyper-parameters in device memory, in f32",
    },
    Entry {
        ops: "ApplyAdamax, ApplyAdadelta",
        a: &[F32, F16],
        b: &[F32, F16],
        out: &[F32, F16],
        rule: "one tensor's optimizer step (aclScalar hyper-parameters), in f32",
    },
    Entry {
        ops: "ApplyFusedEmaAdam",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "one tensor's Adam/AdamW step and the EMA of it, in f32",
    },
];
