//! Random operators (hicann/ops-math `random/`): InplaceUniform, InplaceNormal, the Normal
//! out forms, Bernoulli, InplaceRandom, Randperm, Multinomial and the dropout family
//! (GenMask, DoMask, Dropout, DropoutV3, DropoutBackward, DropoutV3Grad).
//!
//! Every draw comes from Philox4x32-10 (`engine::philox`) keyed by the call's seed, with the
//! call's offset as the high half of the counter. Element `e` of a tensor (its row-major
//! position) draws block `e` — four words — so a value depends only on (seed, offset, e):
//! the same bits on any number of threads, in any order. The tensor forms read seed and
//! offset from one-element device tensors at run time, the offset being
//! `offsetTensor[0] + offset` (CANN adds the host increment; offsetTensor is not written).
//! Results are not the device's bits (its kernels' draw order is not documented); the
//! laws are, and the tests check them statistically (src/tests/random_stats.rs).
//!
//! - Uniform: `from + (to − from)·u`, u a 53-bit uniform in [0, 1), in f64, rounded once
//!   into selfRef's dtype (integers truncate toward zero).
//! - Normal: Box–Muller on two 53-bit uniforms, `mean + std·z` in f64, rounded once.
//! - Bernoulli: 1 when u < p. Random: `from + r mod (to − from)`, r 64 bits.
//! - Dropout masks: one bit per element, element `i` in bit `i % 8` (least significant
//!   first) of byte `i / 8`, the bit count padded to a multiple of 128 (so the mask has
//!   `align(n, 128) / 8` bytes; the padding bits are drawn too). A bit is 1 (keep) with
//!   probability 1 − p: word `i` of the stream below `(1 − p)·2³²`, p first rounded to the
//!   probability dtype as the device does.
//! - SetPytorchRandom / GetPytorchRandom: the process's random mode, 0 (the default:
//!   numbers compatible with Atlas A2/A3) or 1 (PyTorch's generators). CANN's random
//!   operators consult it only on the Ascend 950 (its op_api branches on that arch alone);
//!   on the Atlas A2 this library is, both modes draw the same numbers, so the mode is
//!   kept and reported and changes nothing else.
//! - DoMask / DropoutBackward / DropoutV3Grad compute `x · bit · scale` in f32 (f64 for
//!   none: their dtypes are f32/f16/bf16) and round once.

use super::catalog::Entry;
use super::elementwise as ew;
use crate::dtype::DType;
use crate::engine::philox::{unit_f64, Philox};
use crate::engine::{convert, pool, run_tasks};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Sequence, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{Strides, TensorDesc};
use std::sync::Arc;

use DType::*;

/// aclnnInplaceUniform(Tensor).md, Atlas A2.
const UNIFORM: &[DType] = &[F32, S32, S64, BF16, F16, S16, S8, U8, F64];
/// aclnnInplaceNormal(Tensor).md and the Normal out forms, Atlas A2 (no integer dtypes).
const NORMAL: &[DType] = &[F32, F16, BF16, F64];
/// aclnnBernoulli / aclnnInplaceBernoulli(Tensor) self and out.
const BERNOULLI: &[DType] = &[F16, F32, F64, U8, S8, S16, S32, S64, Bool, BF16];
/// aclnnBernoulli's prob scalar.
const BERNOULLI_PROB: &[DType] = &[F16, F32, F64, BF16];
/// aclnnBernoulliTensor on Atlas A2: self, out and prob (no integer or bf16 dtypes).
const BERNOULLI_TENSOR: &[DType] = &[F16, F32, F64];
/// aclnnInplaceBernoulliTensor selfRef.
const INPLACE_BERNOULLI_TENSOR: &[DType] = &[F16, F32, F64, U8, S8, S16, S32, S64, Bool];
/// aclnnInplaceRandom(Tensor).
const RANDOM: &[DType] = &[BF16, F16, F32, F64, S32, S64, S16, S8, U8, Bool, C64, C128];
/// aclnnInplaceRandomWithoutFromTo(Tensor).
const RANDOM_FULL: &[DType] = &[BF16, F16, F32, S32, S64, S16, S8, U8, Bool];
/// aclnnRandperm's out.
const RANDPERM: &[DType] = &[S64, S32, S16, U8, S8, F32, F16, F64, BF16];
/// aclnnMultinomial's self.
const MULTINOMIAL: &[DType] = &[BF16, F16, F32, F64];
/// The dropout family's data tensors.
const DROPOUT: &[DType] = &[F32, F16, BF16];
const MASK: &[DType] = &[U8];
const KEY_S64: &[DType] = &[S64];
/// aclnnInplaceUniformTensor documents UINT64 seed/offset tensors; INT64 is what torch_npu
/// passes for every other random operator: both are read as 64-bit integers.
const KEY_UNIFORM: &[DType] = &[U64, S64];
const CHUNK: usize = 512;

/// Where a call's generator key comes from.
#[derive(Clone, Copy, Debug)]
enum Key {
    Fixed(Philox),
    /// seedTensor and offsetTensor, read at run time, plus the host increment.
    Tensors {
        seed: usize,
        offset: usize,
        add: u64,
    },
}

/// A one-element 64-bit integer tensor's value.
fn read_word(b: &Bindings, i: usize) -> Result<u64> {
    let v = b.view(i)?;
    let p = b.addr(i)? + v.offset * 8;
    // SAFETY: phase 2 checked the bound one-element view lies in device memory.
    Ok(unsafe { (p as *const u64).read_unaligned() })
}

impl Key {
    fn resolve(&self, b: &Bindings) -> Result<Philox> {
        Ok(match *self {
            Key::Fixed(p) => p,
            Key::Tensors { seed, offset, add } => {
                Philox::new(read_word(b, seed)?, read_word(b, offset)?.wrapping_add(add))
            }
        })
    }
}

/// A view read or written by the row walker: its first element's address, dtype, and
/// strides aligned to the output's dims (0 along broadcast dims).
#[derive(Clone)]
struct Port {
    base: usize,
    dtype: DType,
    strides: Strides,
}

impl Port {
    fn of(b: &Bindings, i: usize, shape: &[usize]) -> Result<Port> {
        let v = b.view(i)?;
        let base = if v.is_empty() {
            0
        } else {
            b.addr(i)? + v.offset * v.dtype.size()
        };
        let lead = shape.len() - v.rank();
        let mut strides: Strides = smallvec::smallvec![0isize; shape.len()];
        for (a, s) in strides.iter_mut().enumerate().skip(lead) {
            if v.shape[a - lead] != 1 {
                *s = v.strides[a - lead];
            }
        }
        Ok(Port {
            base,
            dtype: v.dtype,
            strides,
        })
    }

    /// Byte address of element `lo` of row `row` (row-major over all dims but the last).
    fn at(&self, shape: &[usize], row: usize, lo: usize) -> *mut u8 {
        let k = shape.len();
        let (mut rest, mut off) = (row, 0isize);
        for a in (0..k.saturating_sub(1)).rev() {
            off += (rest % shape[a]) as isize * self.strides[a];
            rest /= shape[a];
        }
        if k > 0 {
            off += lo as isize * self.strides[k - 1];
        }
        (self.base as isize + off * self.dtype.size() as isize) as *mut u8
    }

    fn last_stride(&self) -> isize {
        self.strides.last().copied().unwrap_or(0)
    }
}

/// The one engine of this module: runs `compute` over chunks of `out` (of `shape`) in
/// parallel, each chunk given its first row-major index, the chunk of every input
/// converted to f64, and a buffer of `T` (dtype `td`) that is then converted into out.
fn walk<T: Copy + Default>(
    shape: &[usize],
    out: Option<&Port>,
    td: DType,
    inputs: &[Port],
    compute: impl Fn(usize, &[&[f64]], &mut [T]) + Sync,
) {
    let k = shape.len();
    let last = if k == 0 { 1 } else { shape[k - 1] };
    let numel: usize = shape.iter().product();
    if numel == 0 {
        return;
    }
    let rows = numel / last;
    let pieces = last.div_ceil(CHUNK);
    let jobs = rows * pieces;
    let threads = pool().current_num_threads().min(jobs.div_ceil(8)).max(1);
    run_tasks(threads, |t| {
        let mut ins = vec![[0f64; CHUNK]; inputs.len()];
        let mut vals = [T::default(); CHUNK];
        for job in (t..jobs).step_by(threads) {
            let (row, piece) = (job / pieces, job % pieces);
            let lo = piece * CHUNK;
            let len = CHUNK.min(last - lo);
            for (buf, p) in ins.iter_mut().zip(inputs) {
                // SAFETY: `len` elements of one row of a bound input view.
                unsafe {
                    convert::run(
                        p.at(shape, row, lo),
                        p.dtype,
                        p.last_stride(),
                        buf.as_mut_ptr() as *mut u8,
                        F64,
                        1,
                        len,
                    )
                };
            }
            let views: smallvec::SmallVec<[&[f64]; 3]> = ins.iter().map(|b| &b[..len]).collect();
            compute(row * last + lo, &views, &mut vals[..len]);
            if let Some(o) = out {
                // SAFETY: `len` elements of one row of the bound output view.
                unsafe {
                    convert::run(
                        vals.as_ptr() as *const u8,
                        td,
                        1,
                        o.at(shape, row, lo),
                        o.dtype,
                        o.last_stride(),
                        len,
                    )
                };
            }
        }
    });
}

/// Every element of binding `i` as f64, in row-major order.
fn read_all(b: &Bindings, i: usize) -> Result<Vec<f64>> {
    let v = b.view(i)?;
    let shape = v.shape.clone();
    let port = Port::of(b, i, &shape)?;
    let mut all = vec![0f64; v.numel()];
    let dst = all.as_mut_ptr() as usize;
    walk::<u8>(&shape, None, U8, &[port], |first, ins, _| {
        // SAFETY: disjoint chunks of `all` (one per row-major range).
        let d =
            unsafe { std::slice::from_raw_parts_mut((dst as *mut f64).add(first), ins[0].len()) };
        d.copy_from_slice(ins[0]);
    });
    Ok(all)
}

/// A uniform in [0, 1) and (for Box–Muller) a second one in (0, 1], from one block.
#[inline]
fn uniforms(w: [u32; 4]) -> (f64, f64) {
    (unit_f64(w[0], w[1]), 1.0 - unit_f64(w[2], w[3]))
}

/// What an element of a filled tensor is.
#[derive(Clone, Copy, Debug)]
enum Law {
    Uniform {
        from: f64,
        to: f64,
    },
    /// mean and std, each replaced by the element of an input when one is bound.
    Normal {
        mean: f64,
        std: f64,
    },
    /// prob, replaced by the element of the input when one is bound.
    Bernoulli {
        p: f64,
    },
    /// `from + r mod span`.
    Integer {
        from: i128,
        span: u128,
    },
}

/// Fills the view bound at `out` with draws of `law`; `inputs` are bindings broadcast to
/// out's shape that the law reads (Normal's mean then std, Bernoulli's prob).
struct Fill {
    law: Law,
    key: Key,
    out: usize,
    /// (binding, what it stands for) of each input.
    inputs: Vec<(usize, Role)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Mean,
    Std,
    Prob,
}

impl Work for Fill {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let g = self.key.resolve(b)?;
        let shape = b.view(self.out)?.shape.clone();
        let out = Port::of(b, self.out, &shape)?;
        let ports: Vec<Port> = self
            .inputs
            .iter()
            .map(|&(i, _)| Port::of(b, i, &shape))
            .collect::<Result<_>>()?;
        if let Some(&(i, Role::Prob)) = self.inputs.first() {
            // torch and the device refuse a probability outside [0, 1]: nothing is written.
            if let Some(p) = read_all(b, i)?
                .into_iter()
                .find(|p| !(0.0..=1.0).contains(p))
            {
                return Err(Error::Invalid(format!("prob holds {p}, outside [0, 1]")));
            }
        }
        let role = |r: Role| self.inputs.iter().position(|&(_, x)| x == r);
        let (mean_at, std_at, prob_at) = (role(Role::Mean), role(Role::Std), role(Role::Prob));
        match self.law {
            Law::Integer { from, span } => {
                walk::<i64>(&shape, Some(&out), S64, &[], |first, _, vals| {
                    for (j, v) in vals.iter_mut().enumerate() {
                        let w = g.block((first + j) as u64);
                        let r = (w[0] as u64) << 32 | w[1] as u64;
                        let r = if span <= 1 << 32 {
                            (w[0] as u128) % span
                        } else {
                            r as u128 % span
                        };
                        *v = (from + r as i128) as i64;
                    }
                })
            }
            law => walk::<f64>(&shape, Some(&out), F64, &ports, |first, ins, vals| {
                for (j, v) in vals.iter_mut().enumerate() {
                    let (u, u2) = uniforms(g.block((first + j) as u64));
                    *v = match law {
                        Law::Uniform { from, to } => from + (to - from) * u,
                        Law::Normal { mean, std } => {
                            let m = mean_at.map_or(mean, |i| ins[i][j]);
                            let s = std_at.map_or(std, |i| ins[i][j]);
                            let z = (-2.0 * u2.ln()).sqrt() * (std::f64::consts::TAU * u).cos();
                            m + s * z
                        }
                        Law::Bernoulli { p } => {
                            let p = prob_at.map_or(p, |i| ins[i][j]);
                            (u < p) as u8 as f64
                        }
                        Law::Integer { .. } => unreachable!("integers are drawn above"),
                    };
                }
            }),
        }
        Ok(())
    }
}

fn bindings(inputs: Vec<Option<TensorDesc>>, outputs: Vec<TensorDesc>) -> Bindings {
    let n_inputs = inputs.len();
    let n_out = outputs.len();
    let mut all = inputs;
    all.extend(outputs.into_iter().map(Some));
    Bindings {
        tensors: Arc::new(all),
        n_inputs,
        outputs: (n_inputs..n_inputs + n_out).collect(),
    }
}

/// An in-place operator's bindings: selfRef is its only tensor, and the output.
fn inplace(self_ref: &TensorDesc, extra: Vec<TensorDesc>) -> Bindings {
    let mut all: Vec<Option<TensorDesc>> = vec![Some(self_ref.clone())];
    all.extend(extra.into_iter().map(Some));
    Bindings {
        n_inputs: all.len(),
        tensors: Arc::new(all),
        outputs: smallvec::smallvec![0],
    }
}

/// seedTensor / offsetTensor: one element of a 64-bit integer dtype.
fn check_key_tensor(name: &str, t: &TensorDesc, allowed: &[DType]) -> Result<()> {
    ew::check_tensor(name, t, allowed)?;
    crate::ensure!(
        t.numel() == 1 && t.rank() <= 1,
        "{name} has shape {:?}; it must hold one value (shape [1])",
        t.shape
    );
    Ok(())
}

/// The key of the tensor forms: seedTensor and offsetTensor are the bindings `seed` and
/// `seed + 1`.
fn tensor_key(
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: u64,
    at: usize,
    allowed: &[DType],
) -> Result<Key> {
    check_key_tensor("seedTensor", seed, allowed)?;
    check_key_tensor("offsetTensor", offset_t, allowed)?;
    Ok(Key::Tensors {
        seed: at,
        offset: at + 1,
        add: offset,
    })
}

fn check_offset4(offset: i64) -> Result<()> {
    crate::ensure!(
        offset % 4 == 0,
        "offset {offset} must be a multiple of 4 (offset % 4 == 0)"
    );
    Ok(())
}

/// The range of values a dtype holds, as f64 (complex: its component's).
fn dtype_range(d: DType) -> (f64, f64) {
    match d {
        Bool => (0.0, 1.0),
        U8 => (0.0, 255.0),
        S8 => (-128.0, 127.0),
        S16 => (-32768.0, 32767.0),
        S32 => (i32::MIN as f64, i32::MAX as f64),
        S64 => (i64::MIN as f64, i64::MAX as f64),
        F16 => (-65504.0, 65504.0),
        BF16 | F32 | C64 => (-(f32::MAX as f64), f32::MAX as f64),
        _ => (f64::MIN, f64::MAX),
    }
}

fn fill_executor(
    api: &'static str,
    b: Bindings,
    out: usize,
    law: Law,
    key: Key,
    inputs: Vec<(usize, Role)>,
) -> Executor {
    if b.view(out).map(|o| o.is_empty()).unwrap_or(true) {
        return Executor::new(api, b, Nothing);
    }
    Executor::new(
        api,
        b,
        Fill {
            law,
            key,
            out,
            inputs,
        },
    )
}

fn key(seed: i64, offset: i64) -> Key {
    Key::Fixed(Philox::new(seed as u64, offset as u64))
}

// ---- Uniform ------------------------------------------------------------------------

fn uniform_law(self_ref: &TensorDesc, from: f64, to: f64) -> Result<Law> {
    ew::check_tensor("selfRef", self_ref, UNIFORM)?;
    self_ref.check_output("selfRef")?;
    crate::ensure!(from <= to, "from {from} must not be greater than to {to}");
    let (lo, hi) = dtype_range(self_ref.dtype);
    crate::ensure!(
        from >= lo && to <= hi,
        "from {from} and to {to} must lie in the range [{lo}, {hi}] of selfRef's dtype {}",
        self_ref.dtype
    );
    Ok(Law::Uniform { from, to })
}

/// aclnnInplaceUniform: selfRef filled with uniform draws in [from, to).
pub fn inplace_uniform(
    self_ref: &TensorDesc,
    from: f64,
    to: f64,
    seed: u64,
    offset: u64,
) -> Result<Executor> {
    let law = uniform_law(self_ref, from, to)?;
    let k = Key::Fixed(Philox::new(seed, offset));
    Ok(fill_executor(
        "aclnnInplaceUniform",
        inplace(self_ref, vec![]),
        0,
        law,
        k,
        vec![],
    ))
}

/// aclnnInplaceUniformTensor: as InplaceUniform, seed and offset read from device tensors.
pub fn inplace_uniform_tensor(
    self_ref: &TensorDesc,
    from: f64,
    to: f64,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: u64,
) -> Result<Executor> {
    let law = uniform_law(self_ref, from, to)?;
    let k = tensor_key(seed, offset_t, offset, 1, KEY_UNIFORM)?;
    let b = inplace(self_ref, vec![seed.clone(), offset_t.clone()]);
    Ok(fill_executor(
        "aclnnInplaceUniformTensor",
        b,
        0,
        law,
        k,
        vec![],
    ))
}

// ---- Normal ---------------------------------------------------------------------------

fn check_std(std: f32) -> Result<()> {
    crate::ensure!(std >= 0.0, "std {std} must be greater than or equal to 0");
    Ok(())
}

/// aclnnInplaceNormal: selfRef filled with N(mean, std²) draws.
pub fn inplace_normal(
    self_ref: &TensorDesc,
    mean: f32,
    std: f32,
    seed: i64,
    offset: i64,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, NORMAL)?;
    self_ref.check_output("selfRef")?;
    check_std(std)?;
    let law = Law::Normal {
        mean: mean as f64,
        std: std as f64,
    };
    Ok(fill_executor(
        "aclnnInplaceNormal",
        inplace(self_ref, vec![]),
        0,
        law,
        key(seed, offset),
        vec![],
    ))
}

/// aclnnInplaceNormalTensor: as InplaceNormal, seed and offset read from device tensors.
pub fn inplace_normal_tensor(
    self_ref: &TensorDesc,
    mean: f32,
    std: f32,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: i64,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, NORMAL)?;
    self_ref.check_output("selfRef")?;
    check_std(std)?;
    let k = tensor_key(seed, offset_t, offset as u64, 1, KEY_S64)?;
    let law = Law::Normal {
        mean: mean as f64,
        std: std as f64,
    };
    let b = inplace(self_ref, vec![seed.clone(), offset_t.clone()]);
    Ok(fill_executor(
        "aclnnInplaceNormalTensor",
        b,
        0,
        law,
        k,
        vec![],
    ))
}

/// aclnnNormalFloatFloat: out filled with N(mean, std²) draws.
pub fn normal_float_float(
    mean: f32,
    std: f32,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("out", out, NORMAL)?;
    out.check_output("out")?;
    check_std(std)?;
    let law = Law::Normal {
        mean: mean as f64,
        std: std as f64,
    };
    let b = bindings(vec![], vec![out.clone()]);
    Ok(fill_executor(
        "aclnnNormalFloatFloat",
        b,
        0,
        law,
        key(seed, offset),
        vec![],
    ))
}

/// The Normal out forms with tensor parameters: `tensors` (mean and/or std) of out's dtype
/// broadcasting to out's shape.
fn normal_tensors(
    api: &'static str,
    tensors: &[(&'static str, &TensorDesc, Role)],
    law: Law,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for &(name, t, _) in tensors {
        ew::check_tensor(name, t, NORMAL)?;
    }
    ew::check_tensor("out", out, NORMAL)?;
    for &(name, t, _) in tensors {
        ew::check_same_dtype("out", out, t).map_err(|_| {
            Error::Invalid(format!(
                "out has dtype {} but {name} has dtype {}: they must be the same",
                out.dtype, t.dtype
            ))
        })?;
    }
    let mut shapes: Vec<(&str, &[usize])> =
        tensors.iter().map(|&(n, t, _)| (n, &t.shape[..])).collect();
    if tensors.len() == 1 {
        // NormalTensorFloat: out is mean broadcast with out (NormalFloatTensor's std has
        // out's shape, checked before).
        shapes.push(("out", &out.shape[..]));
    }
    ew::check_out_shape(out.dtype, &shapes, "out", out)?;
    out.check_output("out")?;
    let b = bindings(
        tensors.iter().map(|&(_, t, _)| Some(t.clone())).collect(),
        vec![out.clone()],
    );
    let roles = tensors
        .iter()
        .enumerate()
        .map(|(i, &(_, _, r))| (i, r))
        .collect();
    Ok(fill_executor(
        api,
        b,
        tensors.len(),
        law,
        key(seed, offset),
        roles,
    ))
}

/// aclnnNormalTensorFloat: out = mean + std·z, mean a tensor broadcast to out.
pub fn normal_tensor_float(
    mean: &TensorDesc,
    std: f32,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_std(std)?;
    let law = Law::Normal {
        mean: 0.0,
        std: std as f64,
    };
    normal_tensors(
        "aclnnNormalTensorFloat",
        &[("mean", mean, Role::Mean)],
        law,
        seed,
        offset,
        out,
    )
}

/// aclnnNormalFloatTensor: out = mean + std·z, std a tensor of out's shape (not empty).
pub fn normal_float_tensor(
    mean: f32,
    std: &TensorDesc,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(
        !std.is_empty(),
        "std has shape {:?}: it must not be empty",
        std.shape
    );
    crate::ensure!(
        std.shape == out.shape,
        "out has shape {:?} but std has shape {:?}: they must be equal",
        out.shape,
        std.shape
    );
    let law = Law::Normal {
        mean: mean as f64,
        std: 0.0,
    };
    normal_tensors(
        "aclnnNormalFloatTensor",
        &[("std", std, Role::Std)],
        law,
        seed,
        offset,
        out,
    )
}

/// aclnnNormalTensorTensor: out = mean + std·z, mean and std broadcast to out.
pub fn normal_tensor_tensor(
    mean: &TensorDesc,
    std: &TensorDesc,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let law = Law::Normal {
        mean: 0.0,
        std: 0.0,
    };
    normal_tensors(
        "aclnnNormalTensorTensor",
        &[("mean", mean, Role::Mean), ("std", std, Role::Std)],
        law,
        seed,
        offset,
        out,
    )
}

// ---- Bernoulli ------------------------------------------------------------------------

fn scalar_prob(prob: &Scalar) -> Result<f64> {
    ew::check_scalar_dtype("prob", prob.dtype, BERNOULLI_PROB)?;
    let p = super::pattern::as_f64(prob);
    crate::ensure!(
        (0.0..=1.0).contains(&p),
        "prob {p} must satisfy 0 <= prob <= 1"
    );
    Ok(p)
}

/// aclnnBernoulli: out (self's shape and dtype) holds 1 with probability prob, else 0.
pub fn bernoulli(
    self_: &TensorDesc,
    prob: &Scalar,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, BERNOULLI)?;
    ew::check_tensor("out", out, BERNOULLI)?;
    let p = scalar_prob(prob)?;
    ew::check_same_dtype("out", out, self_)?;
    ew::check_result_shape("out", out, &self_.shape)?;
    check_offset4(offset)?;
    let b = bindings(vec![], vec![out.clone()]);
    Ok(fill_executor(
        "aclnnBernoulli",
        b,
        0,
        Law::Bernoulli { p },
        key(seed, offset),
        vec![],
    ))
}

/// aclnnInplaceBernoulli: selfRef holds 1 with probability prob, else 0.
pub fn inplace_bernoulli(
    self_ref: &TensorDesc,
    prob: &Scalar,
    seed: i64,
    offset: i64,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, BERNOULLI)?;
    let p = scalar_prob(prob)?;
    self_ref.check_output("selfRef")?;
    check_offset4(offset)?;
    let b = inplace(self_ref, vec![]);
    Ok(fill_executor(
        "aclnnInplaceBernoulli",
        b,
        0,
        Law::Bernoulli { p },
        key(seed, offset),
        vec![],
    ))
}

/// prob of the tensor forms: broadcasting to the filled shape (CANN leaves other shapes
/// undefined; they are refused). Its values are checked to lie in [0, 1] at run time.
fn check_prob_tensor(prob: &TensorDesc, shape: &[usize]) -> Result<()> {
    ew::check_tensor("prob", prob, BERNOULLI_TENSOR)?;
    crate::ensure!(
        crate::broadcast::broadcasts_to(&prob.shape, shape),
        "prob has shape {:?}, which does not broadcast to the shape {shape:?} of the result",
        prob.shape
    );
    Ok(())
}

/// aclnnBernoulliTensor: out[i] is 1 with probability prob[i] (prob broadcast to self).
pub fn bernoulli_tensor(
    self_: &TensorDesc,
    prob: &TensorDesc,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("self", self_, BERNOULLI_TENSOR)?;
    ew::check_tensor("out", out, BERNOULLI_TENSOR)?;
    check_prob_tensor(prob, &self_.shape)?;
    ew::check_same_dtype("out", out, self_)?;
    ew::check_result_shape("out", out, &self_.shape)?;
    check_offset4(offset)?;
    let b = bindings(vec![Some(prob.clone())], vec![out.clone()]);
    let law = Law::Bernoulli { p: 0.0 };
    Ok(fill_executor(
        "aclnnBernoulliTensor",
        b,
        1,
        law,
        key(seed, offset),
        vec![(0, Role::Prob)],
    ))
}

/// aclnnInplaceBernoulliTensor: selfRef[i] is 1 with probability prob[i].
pub fn inplace_bernoulli_tensor(
    self_ref: &TensorDesc,
    prob: &TensorDesc,
    seed: i64,
    offset: i64,
) -> Result<Executor> {
    ew::check_tensor("selfRef", self_ref, INPLACE_BERNOULLI_TENSOR)?;
    check_prob_tensor(prob, &self_ref.shape)?;
    self_ref.check_output("selfRef")?;
    check_offset4(offset)?;
    let b = inplace(self_ref, vec![prob.clone()]);
    let law = Law::Bernoulli { p: 0.0 };
    Ok(fill_executor(
        "aclnnInplaceBernoulliTensor",
        b,
        0,
        law,
        key(seed, offset),
        vec![(1, Role::Prob)],
    ))
}

// ---- Random ---------------------------------------------------------------------------

fn random_law(self_ref: &TensorDesc, from: i64, to: i64) -> Result<Law> {
    ew::check_tensor("selfRef", self_ref, RANDOM)?;
    self_ref.check_output("selfRef")?;
    crate::ensure!(from < to, "from {from} must be less than to {to}");
    let (lo, hi) = dtype_range(self_ref.dtype);
    crate::ensure!(
        from as f64 >= lo && (to - 1) as f64 <= hi,
        "from {from} and to - 1 = {} must lie in the range [{lo}, {hi}] of selfRef's dtype {}",
        to - 1,
        self_ref.dtype
    );
    Ok(Law::Integer {
        from: from as i128,
        span: (to as i128 - from as i128) as u128,
    })
}

/// The whole-range law of InplaceRandomWithoutFromTo: [0, the largest integer of the dtype
/// up to which every integer is exact] (2^24 for f32, 2^11 f16, 2^8 bf16; the maximum for
/// integer dtypes; 1 for bool).
fn full_range(self_ref: &TensorDesc) -> Result<Law> {
    ew::check_tensor("selfRef", self_ref, RANDOM_FULL)?;
    self_ref.check_output("selfRef")?;
    let max: i128 = match self_ref.dtype {
        F32 => 1 << 24,
        F16 => 1 << 11,
        BF16 => 1 << 8,
        Bool => 1,
        U8 => 255,
        S8 => 127,
        S16 => 32767,
        S32 => i32::MAX as i128,
        _ => i64::MAX as i128,
    };
    Ok(Law::Integer {
        from: 0,
        span: (max + 1) as u128,
    })
}

/// aclnnInplaceRandom: selfRef filled with integers drawn uniformly from [from, to).
pub fn inplace_random(
    self_ref: &TensorDesc,
    from: i64,
    to: i64,
    seed: i64,
    offset: i64,
) -> Result<Executor> {
    let law = random_law(self_ref, from, to)?;
    Ok(fill_executor(
        "aclnnInplaceRandom",
        inplace(self_ref, vec![]),
        0,
        law,
        key(seed, offset),
        vec![],
    ))
}

/// aclnnInplaceRandomTensor: as InplaceRandom, seed and offset read from device tensors.
pub fn inplace_random_tensor(
    self_ref: &TensorDesc,
    from: i64,
    to: i64,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: i64,
) -> Result<Executor> {
    let law = random_law(self_ref, from, to)?;
    let k = tensor_key(seed, offset_t, offset as u64, 1, KEY_S64)?;
    let b = inplace(self_ref, vec![seed.clone(), offset_t.clone()]);
    Ok(fill_executor(
        "aclnnInplaceRandomTensor",
        b,
        0,
        law,
        k,
        vec![],
    ))
}

/// aclnnInplaceRandomWithoutFromTo: integers drawn uniformly from [0, DTYPE_MAX_VALUE].
pub fn inplace_random_without_from_to(
    self_ref: &TensorDesc,
    seed: i64,
    offset: i64,
) -> Result<Executor> {
    let law = full_range(self_ref)?;
    let b = inplace(self_ref, vec![]);
    Ok(fill_executor(
        "aclnnInplaceRandomWithoutFromTo",
        b,
        0,
        law,
        key(seed, offset),
        vec![],
    ))
}

/// aclnnInplaceRandomWithoutFromToTensor: as above, seed and offset read from device tensors.
pub fn inplace_random_without_from_to_tensor(
    self_ref: &TensorDesc,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: i64,
) -> Result<Executor> {
    let law = full_range(self_ref)?;
    let k = tensor_key(seed, offset_t, offset as u64, 1, KEY_S64)?;
    let b = inplace(self_ref, vec![seed.clone(), offset_t.clone()]);
    Ok(fill_executor(
        "aclnnInplaceRandomWithoutFromToTensor",
        b,
        0,
        law,
        k,
        vec![],
    ))
}

// ---- Randperm -------------------------------------------------------------------------

/// A random permutation of 0..n: indices sorted by a 64-bit key each (ties by index).
struct Permutation {
    key: Key,
    n: usize,
}

impl Work for Permutation {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let g = self.key.resolve(b)?;
        let mut keyed: Vec<(u64, u64)> = (0..self.n as u64)
            .map(|i| {
                let w = g.block(i);
                ((w[0] as u64) << 32 | w[1] as u64, i)
            })
            .collect();
        keyed.sort_unstable();
        let shape = b.view(0)?.shape.clone();
        let out = Port::of(b, 0, &shape)?;
        walk::<i64>(&shape, Some(&out), S64, &[], |first, _, vals| {
            for (j, v) in vals.iter_mut().enumerate() {
                *v = keyed[first + j].1 as i64;
            }
        });
        Ok(())
    }
}

/// aclnnRandperm: out [n] a random permutation of 0..n.
pub fn randperm(n: i64, seed: i64, offset: i64, out: &TensorDesc) -> Result<Executor> {
    ew::check_tensor("out", out, RANDPERM)?;
    crate::ensure!(n >= 0, "n {n} must be non-negative");
    ew::check_result_shape("out", out, &[n as usize])?;
    // Every value must be exact in out's dtype (the device would round or wrap them).
    let exact: i64 = match out.dtype {
        U8 => 256,
        S8 => 128,
        S16 => 32768,
        F16 => 2049,
        BF16 => 257,
        F32 => 1 << 24,
        S32 => 1 << 31,
        _ => i64::MAX,
    };
    crate::ensure!(
        n <= exact,
        "n {n} is too large for out's dtype {}: its values 0..{} would not all be exact (at most {exact})",
        out.dtype,
        n - 1
    );
    let b = bindings(vec![], vec![out.clone()]);
    if n == 0 {
        return Ok(Executor::new("aclnnRandperm", b, Nothing));
    }
    Ok(Executor::new(
        "aclnnRandperm",
        b,
        Permutation {
            key: key(seed, offset),
            n: n as usize,
        },
    ))
}

// ---- Multinomial ----------------------------------------------------------------------

/// Draws of category indices from the rows of binding 0 (weights, not normalised).
struct Sample {
    key: Key,
    rows: usize,
    categories: usize,
    samples: usize,
    replacement: bool,
    /// The binding of out.
    out: usize,
}

impl Sample {
    /// Row `r`'s draws into `dst`; Err when the row is not a distribution.
    fn row(&self, g: &Philox, r: usize, w: &[f64], dst: &mut [i64]) -> Result<()> {
        if let Some(x) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
            return Err(Error::Invalid(format!(
                "row {r} of self holds {x}: probabilities must be finite and non-negative"
            )));
        }
        let positive = w.iter().filter(|x| **x > 0.0).count();
        if positive == 0 || (!self.replacement && positive < self.samples) {
            return Err(Error::Invalid(format!(
                "row {r} of self has {positive} categories of non-zero probability: {} samples{} cannot be drawn",
                self.samples,
                if self.replacement { "" } else { " without replacement" }
            )));
        }
        if self.replacement {
            // Inverse of the cumulative distribution, in f64.
            let mut cdf = Vec::with_capacity(w.len());
            let mut acc = 0.0;
            for x in w {
                acc += x;
                cdf.push(acc);
            }
            for (s, d) in dst.iter_mut().enumerate() {
                let (u, _) = uniforms(g.block((r * self.samples + s) as u64));
                let t = u * acc;
                let mut i = cdf.partition_point(|c| *c <= t).min(w.len() - 1);
                // Never a zero-probability category (a rounding at the top end).
                while w[i] == 0.0 {
                    i -= 1;
                }
                *d = i as i64;
            }
        } else {
            // Exponential races (Efraimidis–Spirakis): the k smallest E_j / w_j, E_j ~ Exp(1).
            let mut keyed: Vec<(f64, usize)> = w
                .iter()
                .enumerate()
                .filter(|(_, x)| **x > 0.0)
                .map(|(j, x)| {
                    let (_, u2) = uniforms(g.block((r * self.categories + j) as u64));
                    (-u2.ln() / x, j)
                })
                .collect();
            keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for (d, k) in dst.iter_mut().zip(&keyed) {
                *d = k.1 as i64;
            }
        }
        Ok(())
    }
}

impl Work for Sample {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let g = self.key.resolve(b)?;
        let w = read_all(b, 0)?;
        let mut drawn = vec![0i64; self.rows * self.samples];
        for r in 0..self.rows {
            let row = &w[r * self.categories..(r + 1) * self.categories];
            self.row(
                &g,
                r,
                row,
                &mut drawn[r * self.samples..(r + 1) * self.samples],
            )?;
        }
        let shape = b.view(self.out)?.shape.clone();
        let out = Port::of(b, self.out, &shape)?;
        walk::<i64>(&shape, Some(&out), S64, &[], |first, _, vals| {
            vals.copy_from_slice(&drawn[first..first + vals.len()]);
        });
        Ok(())
    }
}

fn multinomial_plan(
    api: &'static str,
    self_: &TensorDesc,
    numsamples: i64,
    replacement: bool,
    out: &TensorDesc,
    key: Key,
    mut extra: Vec<TensorDesc>,
) -> Result<Executor> {
    ew::check_tensor("self", self_, MULTINOMIAL)?;
    ew::check_tensor("out", out, &[S64])?;
    crate::ensure!(
        self_.rank() == 1 || self_.rank() == 2,
        "self has {} dims; it must be (C) or (N, C)",
        self_.rank()
    );
    crate::ensure!(
        out.rank() == self_.rank(),
        "out has {} dims but self has {}: they must agree",
        out.rank(),
        self_.rank()
    );
    crate::ensure!(numsamples > 0, "numsamples {numsamples} must be positive");
    let c = self_.shape[self_.rank() - 1];
    crate::ensure!(
        replacement || numsamples as usize <= c,
        "numsamples {numsamples} is larger than the {c} categories of self, without replacement"
    );
    crate::ensure!(c <= 1 << 24, "self's last dim {c} must not exceed 2^24");
    let rows = if self_.rank() == 2 { self_.shape[0] } else { 1 };
    let mut want = vec![numsamples as usize];
    if self_.rank() == 2 {
        want.insert(0, rows);
    }
    ew::check_result_shape("out", out, &want)?;
    crate::ensure!(c > 0 || rows == 0, "self has no categories (last dim 0)");
    let mut inputs = vec![Some(self_.clone())];
    inputs.extend(extra.drain(..).map(Some));
    let n_in = inputs.len();
    let b = bindings(inputs, vec![out.clone()]);
    if out.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    let work = Sample {
        key,
        rows,
        categories: c,
        samples: numsamples as usize,
        replacement,
        out: n_in,
    };
    Ok(Executor::new(api, b, work))
}

/// aclnnMultinomial: numsamples category indices per row of self (weights).
pub fn multinomial(
    self_: &TensorDesc,
    numsamples: i64,
    replacement: bool,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    multinomial_plan(
        "aclnnMultinomial",
        self_,
        numsamples,
        replacement,
        out,
        key(seed, offset),
        vec![],
    )
}

/// aclnnMultinomialTensor: as Multinomial, seed and offset read from device tensors.
#[allow(clippy::too_many_arguments)]
pub fn multinomial_tensor(
    self_: &TensorDesc,
    numsamples: i64,
    replacement: bool,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let k = tensor_key(seed, offset_t, offset as u64, 1, KEY_S64)?;
    let extra = vec![seed.clone(), offset_t.clone()];
    multinomial_plan(
        "aclnnMultinomialTensor",
        self_,
        numsamples,
        replacement,
        out,
        k,
        extra,
    )
}

// ---- Dropout --------------------------------------------------------------------------

/// Bytes of the mask of `n` elements: one bit each, the bit count padded to 128.
pub fn mask_bytes(n: usize) -> usize {
    n.div_ceil(128) * 128 / 8
}

/// Writes the keep-mask bytes into the u8 view bound at 0: bit i is 1 when word i of the
/// stream is below `keep`.
struct GenMask {
    key: Key,
    /// (1 − p)·2³², up to 2³² (keep all).
    keep: u64,
    /// The view bound at this index receives the mask.
    out: usize,
}

impl Work for GenMask {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let g = self.key.resolve(b)?;
        let shape = b.view(self.out)?.shape.clone();
        let out = Port::of(b, self.out, &shape)?;
        walk::<u8>(&shape, Some(&out), U8, &[], |first, _, vals| {
            for (j, v) in vals.iter_mut().enumerate() {
                let byte = (first + j) as u64;
                let w0 = g.block(byte * 2);
                let w1 = g.block(byte * 2 + 1);
                let mut m = 0u8;
                for (bit, w) in w0.iter().chain(&w1).enumerate() {
                    m |= (((*w as u64) < self.keep) as u8) << bit;
                }
                *v = m;
            }
        });
        Ok(())
    }
}

/// (1 − p)·2³² rounded, for GenMask.
fn keep_threshold(p: f64) -> u64 {
    ((1.0 - p) * 4294967296.0).round().clamp(0.0, 4294967296.0) as u64
}

/// `out = x · bit · scale` over self's elements (bit i of the mask), or `out = x` where
/// `ignore_mask` (a DoMask of prob 0), in f32.
struct ApplyMask {
    scale: f32,
    ignore_mask: bool,
}

impl Work for ApplyMask {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        // Bindings: 0 self, 1 mask, 2 out.
        let mask: Vec<u8> = if self.ignore_mask {
            Vec::new()
        } else {
            read_all(b, 1)?.into_iter().map(|x| x as u8).collect()
        };
        let shape = b.view(0)?.shape.clone();
        let x = Port::of(b, 0, &shape)?;
        let out = Port::of(b, 2, &shape)?;
        walk::<f32>(&shape, Some(&out), F32, &[x], |first, ins, vals| {
            for (j, v) in vals.iter_mut().enumerate() {
                let xi = ins[0][j] as f32;
                let e = first + j;
                *v = if self.ignore_mask {
                    xi
                } else {
                    let bit = (mask[e / 8] >> (e % 8)) & 1;
                    xi * bit as f32 * self.scale
                };
            }
        });
        Ok(())
    }
}

fn check_prob(name: &str, p: f64) -> Result<()> {
    crate::ensure!((0.0..=1.0).contains(&p), "{name} {p} must lie in [0, 1]");
    Ok(())
}

/// A mask of `n` elements: U8, `align(n, 128) / 8` elements (`rank1`: and 1-D).
fn check_mask(name: &str, mask: &TensorDesc, n: usize, rank1: bool) -> Result<()> {
    ew::check_tensor(name, mask, MASK)?;
    let want = mask_bytes(n);
    crate::ensure!(
        mask.numel() == want && (!rank1 || mask.rank() == 1),
        "{name} has shape {:?} but a mask of {n} elements must have (align({n}, 128) / 8) = [{want}] elements",
        mask.shape
    );
    Ok(())
}

/// The executor of GenMask writing the mask bound at `at` of bindings `b`.
fn gen_mask_work(key: Key, p: f64, at: usize) -> GenMask {
    GenMask {
        key,
        keep: keep_threshold(p),
        out: at,
    }
}

/// p rounded to the probability dtype of GenMaskV2 (f32, f16 or bf16), as the device
/// hands it to its kernel.
fn prob_in(api: &str, p: f64, prob_dtype: i32) -> Result<f64> {
    let d = DType::from_raw(prob_dtype)
        .map_err(|e| Error::Invalid(format!("argument 'probDataType': {e}")))?;
    crate::ensure!(
        DROPOUT.contains(&d),
        "probDataType {d} is not one {api} accepts: FLOAT, FLOAT16 or BFLOAT16"
    );
    Ok(match d {
        F16 => half::f16::from_f64(p).to_f64(),
        BF16 => half::bf16::from_f64(p).to_f64(),
        _ => p as f32 as f64,
    })
}

fn gen_mask_plan(
    api: &'static str,
    shape: &[i64],
    p: f64,
    key: Key,
    out: &TensorDesc,
    extra: Vec<TensorDesc>,
) -> Result<Executor> {
    crate::ensure!(
        (1..=8).contains(&shape.len()),
        "shape has {} elements; it must have 1 to 8",
        shape.len()
    );
    let mut n: usize = 1;
    for (i, &d) in shape.iter().enumerate() {
        crate::ensure!(d >= 0, "shape[{i}] = {d} is negative");
        n = n
            .checked_mul(d as usize)
            .ok_or_else(|| Error::Invalid(format!("shape {shape:?} has too many elements")))?;
    }
    check_prob("prob", p)?;
    check_mask("out", out, n, true)?;
    out.check_output("out")?;
    let inputs: Vec<Option<TensorDesc>> = extra.into_iter().map(Some).collect();
    let at = inputs.len();
    let b = bindings(inputs, vec![out.clone()]);
    if out.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    Ok(Executor::new(api, b, gen_mask_work(key, p, at)))
}

/// aclnnDropoutGenMask: the keep-mask of `shape`'s elements, each dropped with probability prob.
pub fn dropout_gen_mask(
    shape: &[i64],
    prob: f64,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    let p = prob as f32 as f64;
    gen_mask_plan(
        "aclnnDropoutGenMask",
        shape,
        p,
        key(seed, offset),
        out,
        vec![],
    )
}

/// aclnnDropoutGenMaskV2: as DropoutGenMask, prob rounded to probDataType first.
pub fn dropout_gen_mask_v2(
    shape: &[i64],
    prob: f64,
    seed: i64,
    offset: i64,
    prob_dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    check_prob("prob", prob)?;
    let p = prob_in("aclnnDropoutGenMaskV2", prob, prob_dtype)?;
    gen_mask_plan(
        "aclnnDropoutGenMaskV2",
        shape,
        p,
        key(seed, offset),
        out,
        vec![],
    )
}

/// aclnnDropoutGenMaskV2Tensor: as V2, seed and offset read from device tensors.
#[allow(clippy::too_many_arguments)]
pub fn dropout_gen_mask_v2_tensor(
    shape: &[i64],
    prob: f64,
    seed: &TensorDesc,
    offset_t: &TensorDesc,
    offset: i64,
    prob_dtype: i32,
    out: &TensorDesc,
) -> Result<Executor> {
    check_prob("prob", prob)?;
    let p = prob_in("aclnnDropoutGenMaskV2Tensor", prob, prob_dtype)?;
    let k = tensor_key(seed, offset_t, offset as u64, 0, KEY_S64)?;
    gen_mask_plan(
        "aclnnDropoutGenMaskV2Tensor",
        shape,
        p,
        k,
        out,
        vec![seed.clone(), offset_t.clone()],
    )
}

/// The checks shared by the mask-applying operators: `x` (data), mask, out.
fn check_masked(
    x_name: &str,
    x: &TensorDesc,
    mask: &TensorDesc,
    out_name: &str,
    out: &TensorDesc,
    min_rank: usize,
) -> Result<()> {
    ew::check_tensor(x_name, x, DROPOUT)?;
    ew::check_tensor(out_name, out, DROPOUT)?;
    crate::ensure!(
        x.rank() >= min_rank,
        "{x_name} has {} dims; it must have {min_rank} to 8",
        x.rank()
    );
    check_mask("mask", mask, x.numel(), false)?;
    ew::check_result_shape(out_name, out, &x.shape)
}

fn apply_plan(
    api: &'static str,
    x: &TensorDesc,
    mask: &TensorDesc,
    out: &TensorDesc,
    work: ApplyMask,
) -> Executor {
    let b = bindings(vec![Some(x.clone()), Some(mask.clone())], vec![out.clone()]);
    if out.is_empty() {
        return Executor::new(api, b, Nothing);
    }
    Executor::new(api, b, work)
}

/// aclnnDropoutDoMask: out = self · bit / (1 − prob) (prob 0: self; prob 1: zeros).
pub fn dropout_do_mask(
    self_: &TensorDesc,
    mask: &TensorDesc,
    prob: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_masked("self", self_, mask, "out", out, 0)?;
    check_prob("prob", prob)?;
    let work = ApplyMask {
        scale: if prob == 1.0 {
            0.0
        } else {
            (1.0 / (1.0 - prob)) as f32
        },
        ignore_mask: prob == 0.0,
    };
    Ok(apply_plan("aclnnDropoutDoMask", self_, mask, out, work))
}

/// aclnnDropoutBackward: out = gradOutput · bit · scale (scale 0: zeros; 1: gradOutput).
pub fn dropout_backward(
    grad: &TensorDesc,
    mask: &TensorDesc,
    scale: f64,
    out: &TensorDesc,
) -> Result<Executor> {
    check_masked("gradOutput", grad, mask, "out", out, 1)?;
    crate::ensure!(
        scale == 0.0 || scale >= 1.0,
        "scale {scale} must be 0 or at least 1"
    );
    crate::ensure!(
        !grad.is_empty(),
        "gradOutput has shape {:?}: it must not be empty",
        grad.shape
    );
    let work = ApplyMask {
        scale: scale as f32,
        ignore_mask: scale == 1.0,
    };
    Ok(apply_plan("aclnnDropoutBackward", grad, mask, out, work))
}

/// aclnnDropoutV3Grad: gradX = gradY · bit · scale, a plain product.
pub fn dropout_v3_grad(
    grad_y: &TensorDesc,
    mask: &TensorDesc,
    scale: f64,
    grad_x: &TensorDesc,
) -> Result<Executor> {
    check_masked("gradY", grad_y, mask, "gradX", grad_x, 0)?;
    let work = ApplyMask {
        scale: scale as f32,
        ignore_mask: false,
    };
    Ok(apply_plan("aclnnDropoutV3Grad", grad_y, mask, grad_x, work))
}

/// Dropout: the mask into maskOut, then out = input · bit / (1 − p); with p = 0 (or not
/// training) out = input and p = 1 out = 0, maskOut untouched in both, as CANN does.
fn dropout_plan(
    api: &'static str,
    input: &TensorDesc,
    p: f64,
    train: bool,
    key: Key,
    out: &TensorDesc,
    mask: &TensorDesc,
) -> Result<Executor> {
    // Bindings: 0 input, 1 out, 2 maskOut.
    let b = bindings(vec![Some(input.clone())], vec![out.clone(), mask.clone()]);
    if input.is_empty() {
        return Ok(Executor::new(api, b, Nothing));
    }
    let apply = |scale: f32, ignore_mask: bool| {
        let ab = bindings(
            vec![Some(input.clone()), Some(mask.clone())],
            vec![out.clone()],
        );
        Executor::new(api, ab, ApplyMask { scale, ignore_mask })
    };
    let mut seq = Sequence::new();
    if p == 0.0 || !train {
        seq.push(apply(1.0, true), &[0, 2, 1]);
    } else if p == 1.0 {
        let ab = bindings(
            vec![Some(input.clone()), Some(mask.clone())],
            vec![out.clone()],
        );
        seq.push(Executor::new(api, ab, Zeros), &[0, 2, 1]);
    } else {
        let gb = bindings(vec![], vec![mask.clone()]);
        seq.push(
            Executor::new(api, gb, gen_mask_work(key, p as f32 as f64, 0)),
            &[2],
        );
        seq.push(apply((1.0 / (1.0 - p)) as f32, false), &[0, 2, 1]);
    }
    Ok(Executor::new(api, b, seq))
}

/// Writes zeros into out (binding 2) of an [x, mask, out] step.
struct Zeros;
impl Work for Zeros {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let shape = b.view(2)?.shape.clone();
        let out = Port::of(b, 2, &shape)?;
        walk::<f32>(&shape, Some(&out), F32, &[], |_, _, vals| vals.fill(0.0));
        Ok(())
    }
}

fn check_dropout(
    input: &TensorDesc,
    p: f64,
    out: &TensorDesc,
    mask: &TensorDesc,
    min_rank: usize,
) -> Result<()> {
    ew::check_tensor("input", input, DROPOUT)?;
    ew::check_tensor("out", out, DROPOUT)?;
    ew::check_tensor("maskOut", mask, MASK)?;
    check_prob("p", p)?;
    crate::ensure!(
        input.rank() >= min_rank,
        "input has {} dims; it must have {min_rank} to 8",
        input.rank()
    );
    ew::check_result_shape("out", out, &input.shape)?;
    check_mask("maskOut", mask, input.numel(), true)?;
    mask.check_output("maskOut")
}

/// aclnnDropout: out = input with each element zeroed with probability p and the rest
/// scaled by 1 / (1 − p); maskOut receives the keep-mask.
#[allow(clippy::too_many_arguments)]
pub fn dropout(
    input: &TensorDesc,
    p: f64,
    train: bool,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
    mask: &TensorDesc,
) -> Result<Executor> {
    check_dropout(input, p, out, mask, 1)?;
    dropout_plan(
        "aclnnDropout",
        input,
        p,
        train,
        key(seed, offset),
        out,
        mask,
    )
}

/// aclnnDropoutV3: as Dropout in training; optionalNoiseShape is reserved (must be NULL).
#[allow(clippy::too_many_arguments)]
pub fn dropout_v3(
    input: &TensorDesc,
    noise_shape: Option<&TensorDesc>,
    p: f64,
    seed: i64,
    offset: i64,
    out: &TensorDesc,
    mask: &TensorDesc,
) -> Result<Executor> {
    crate::ensure!(
        noise_shape.is_none(),
        "optionalNoiseShape is a reserved parameter: pass NULL"
    );
    check_dropout(input, p, out, mask, 0)?;
    check_offset4(offset)?;
    dropout_plan(
        "aclnnDropoutV3",
        input,
        p,
        true,
        key(seed, offset),
        out,
        mask,
    )
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "InplaceUniform, InplaceUniformTensor",
        a: UNIFORM,
        b: &[],
        out: UNIFORM,
        rule: "from + (to − from)·u, u uniform in [0, 1) (Philox4x32-10), rounded once",
    },
    Entry {
        ops: "InplaceNormal, InplaceNormalTensor, NormalFloatFloat, NormalFloatTensor, NormalTensorFloat, NormalTensorTensor",
        a: NORMAL,
        b: NORMAL,
        out: NORMAL,
        rule: "mean + std·z, z Box–Muller in f64, rounded once; b: mean/std tensors",
    },
    Entry {
        ops: "Bernoulli, InplaceBernoulli",
        a: BERNOULLI,
        b: BERNOULLI_PROB,
        out: BERNOULLI,
        rule: "1 with probability prob (u < prob); b: prob scalar",
    },
    Entry {
        ops: "BernoulliTensor, InplaceBernoulliTensor",
        a: INPLACE_BERNOULLI_TENSOR,
        b: BERNOULLI_TENSOR,
        out: INPLACE_BERNOULLI_TENSOR,
        rule: "1 with probability prob[i] (prob broadcast; outside [0, 1] refused at run time); BernoulliTensor's self/out f16/f32/f64",
    },
    Entry {
        ops: "InplaceRandom, InplaceRandomTensor",
        a: RANDOM,
        b: &[],
        out: RANDOM,
        rule: "integers uniform in [from, to)",
    },
    Entry {
        ops: "InplaceRandomWithoutFromTo, InplaceRandomWithoutFromToTensor",
        a: RANDOM_FULL,
        b: &[],
        out: RANDOM_FULL,
        rule: "integers uniform in [0, largest exact integer of the dtype]",
    },
    Entry {
        ops: "Randperm",
        a: &[],
        b: &[],
        out: RANDPERM,
        rule: "a permutation of 0..n (n must be exact in out's dtype)",
    },
    Entry {
        ops: "Multinomial, MultinomialTensor",
        a: MULTINOMIAL,
        b: &[],
        out: &[S64],
        rule: "category indices by row weights (with replacement: inverse CDF in f64; without: exponential races)",
    },
    Entry {
        ops: "DropoutGenMask, DropoutGenMaskV2, DropoutGenMaskV2Tensor",
        a: &[],
        b: &[],
        out: MASK,
        rule: "keep-bits, element i in bit i % 8 of byte i / 8, bit count padded to 128",
    },
    Entry {
        ops: "Dropout, DropoutV3, DropoutDoMask, DropoutBackward, DropoutV3Grad",
        a: DROPOUT,
        b: MASK,
        out: DROPOUT,
        rule: "x · bit · scale in f32, rounded once; b: the mask",
    },
];

/// The random mode of aclnnSetPytorchRandom (0 compatible with Atlas A2/A3, 1 PyTorch's).
static PYTORCH_RANDOM: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// aclnnSetPytorchRandom: sets the process's random mode (0 or 1).
pub fn set_pytorch_random(mode: i32) -> Result<()> {
    crate::ensure!(
        mode == 0 || mode == 1,
        "pytorchRandom is {mode}; it must be 0 (numbers compatible with Atlas A2/A3) or 1 (PyTorch's)"
    );
    PYTORCH_RANDOM.store(mode, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// aclnnGetPytorchRandom: the process's random mode (0 until set).
pub fn get_pytorch_random() -> Result<i32> {
    Ok(PYTORCH_RANDOM.load(std::sync::atomic::Ordering::Relaxed))
}
