//! The foreach operators (CANN's `aclnnForeach*`, torch's `_foreach_*`): one element-wise
//! operation applied to every member of tensor lists, as one operator.
//!
//! One engine for every list: phase 1 validates the whole call once — every list has the
//! same length; each member has the list's one dtype (CANN: "all tensors of a list keep one
//! dtype"), from the operator's Atlas A2 list, at most 8 dims; the members of x2/x3/weight
//! and out have x1's dtype and shape; scalars have the dtype CANN pairs with x's; no output
//! member overlaps another output member, an input member or a scalar tensor, except that a
//! member may be written in place (out[i] the very view of an input's member i: the
//! element-wise engine reads each element before it writes it) — then it plans every
//! member with the element-wise engine (`elementwise::planned`, the same kernels as the
//! single-tensor operators: `add::compute`, `mul::compute`, `unary::kernel`, ...) and
//! returns ONE executor whose ONE work (`ListWork`) runs all the members, in parallel
//! over members and, for a large member, within it. A list of 1,000 tensors is one
//! phase-2 call, one stream task and one wake-up of the pool.
//!
//! Scalars: CANN passes them three ways. An `aclScalar` (the V2 forms) and an
//! `aclScalarList` are known at phase 1 and become engine constants. An `aclTensor` scalar
//! (alpha of AddList, scalar of AddScalar, the scalars tensor of AddcdivList, roundMode of
//! RoundOffNumber) lives in device memory, written by earlier work on the stream: a
//! binary operation reads it as a broadcast (0-d) input; otherwise (alpha, the value of
//! Addcdiv/Addcmul, roundMode) it is read when the work runs and handed to the kernel as its
//! parameter (`engine::Plan::run_with_params`).
//!
//! Numbers are PyTorch's (the device's golden, torch 1.13's CPU `_foreach_*`): a scalar
//! is converted to x's dtype first (an f32 alpha of a bf16 list is rounded to bf16), then
//! f16/bf16 compute in f32 and round once; integers wrap. Add/Sub compute
//! `x1 ± alpha·x2` as a multiply then an add, Addcdiv/Addcmul `x1 + (v·x2) / x3` and
//! `x1 + (v·x2)·x3` (torch's order), Lerp torch's two-sided formula
//! (`w < 0.5 ? a + w(b − a) : b − (b − a)(1 − w)`), Norm is aclnnNorm's (accumulated
//! in f64). Arithmetic is exact against torch (f16/bf16 against torch computing in f32 and
//! rounding once); Lerp and Pow within 2 ulp of f32 (torch's vector code fuses them) and
//! 1 ulp of f16/bf16; unary functions are the C library's, as the single-tensor operators
//! (within 2 ulp of torch's f32 vector routines).
//!
//! Documented and not done: integer x of ForeachExp/ForeachExpm1 (the device's rounding of
//! an integer exponential is not documented) is refused; out members must have x's shape
//! exactly (CANN asks "shape size ≥ x's").

use super::add::{self, Sign};
use super::binary::Compute;
use super::catalog::Entry;
use super::copy::convert_into;
use super::elementwise::{self as ew, Arg};
use super::llm::pointwise::{addc_kernel, Combine};
use super::unary::{self, f};
use crate::dtype::DType;
use crate::engine::kernel::{binary as binary_kernel, ternary, unary as unary_kernel};
use crate::engine::kernel::{BinaryOp, TernaryOp, UnaryOp};
use crate::engine::{self, Kernels, Params, Plan, Via};
use crate::error::{Error, Result};
use crate::executor::{rebind, Bindings, Executor, ListParam, Outputs, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{Dims, Strides, TensorDesc};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::sync::Arc;

use DType::*;

// ---------------------------------------------------------------------------------------
// The list engine: bindings of list parameters, one step per member, one work.

/// The bindings of a list operator, in CANN's parameter order (inputs first, then outputs),
/// and its list parameters for aclSetDynamic*TensorAddr.
pub(crate) struct Layout {
    views: Vec<Option<TensorDesc>>,
    n_inputs: Option<usize>,
    outputs: Outputs,
    lists: Vec<ListParam>,
    in_params: usize,
    out_params: usize,
}

impl Layout {
    pub(crate) fn new() -> Layout {
        Layout {
            views: Vec::new(),
            n_inputs: None,
            outputs: Outputs::new(),
            lists: Vec::new(),
            in_params: 0,
            out_params: 0,
        }
    }

    fn push_list(&mut self, members: &[&TensorDesc], output: bool) -> usize {
        let first = self.views.len();
        self.views
            .extend(members.iter().map(|t| Some((*t).clone())));
        let (ir_index, any_index) = if output {
            (self.out_params, self.in_params + self.out_params)
        } else {
            (self.in_params, self.in_params)
        };
        self.lists.push(ListParam {
            output,
            ir_index,
            any_index,
            first,
            len: members.len(),
        });
        first
    }

    /// An input list: the binding of its first member (member i is `first + i`).
    pub(crate) fn input_list(&mut self, members: &[&TensorDesc]) -> usize {
        debug_assert!(self.n_inputs.is_none(), "inputs come before outputs");
        let first = self.push_list(members, false);
        self.in_params += 1;
        first
    }

    /// A list written in place (an optimizer's paramsRef): inputs that are also outputs.
    pub(crate) fn inout_list(&mut self, members: &[&TensorDesc]) -> usize {
        let first = self.input_list(members);
        self.outputs.extend(first..first + members.len());
        first
    }

    /// One input tensor (None: an optional one passed as NULL).
    pub(crate) fn input(&mut self, t: Option<&TensorDesc>) -> usize {
        debug_assert!(self.n_inputs.is_none(), "inputs come before outputs");
        self.views.push(t.cloned());
        self.in_params += 1;
        self.views.len() - 1
    }

    /// One tensor written in place (None: an optional one passed as NULL).
    pub(crate) fn inout(&mut self, t: Option<&TensorDesc>) -> usize {
        let b = self.input(t);
        if t.is_some() {
            self.outputs.push(b);
        }
        b
    }

    /// An output list: the binding of its first member.
    pub(crate) fn output_list(&mut self, members: &[&TensorDesc]) -> usize {
        if self.n_inputs.is_none() {
            self.n_inputs = Some(self.views.len());
        }
        let first = self.push_list(members, true);
        self.out_params += 1;
        self.outputs.extend(first..first + members.len());
        first
    }

    /// One output tensor (an out-of-place optimizer's varOut): its binding.
    pub(crate) fn output(&mut self, t: &TensorDesc) -> usize {
        if self.n_inputs.is_none() {
            self.n_inputs = Some(self.views.len());
        }
        self.views.push(Some(t.clone()));
        self.out_params += 1;
        let b = self.views.len() - 1;
        self.outputs.push(b);
        b
    }

    /// The executor running `steps` (one work for the whole list).
    pub(crate) fn executor(self, api: &'static str, steps: Vec<Step>) -> Executor {
        self.executor_with(api, ListWork::new(steps))
    }

    /// The executor running `work` over these bindings (an optimizer's own engine).
    pub(crate) fn executor_with(self, api: &'static str, work: impl Work + 'static) -> Executor {
        let n = self.views.len();
        let bindings = Bindings {
            tensors: Arc::new(self.views),
            n_inputs: self.n_inputs.unwrap_or(n),
            outputs: self.outputs,
        };
        let mut e = Executor::new(api, bindings, work);
        e.lists = self.lists;
        e
    }
}

/// A scalar in device memory that a step's kernel takes as parameter `slot`: element
/// `element` (row-major) of the operator's binding `binding`, converted to `via` (x's
/// dtype, as torch converts a scalar) and then to the kernel's dtype `kernel`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DeviceScalar {
    pub binding: usize,
    pub element: usize,
    pub slot: usize,
    pub via: DType,
    pub kernel: DType,
}

impl DeviceScalar {
    /// Reads the value now (phase 2 checked the view lies in device memory).
    fn read(&self, outer: &Bindings) -> Result<Scalar> {
        let v = outer.view(self.binding)?;
        let addr = outer.addr(self.binding)?;
        let at = element_offset(v, self.element);
        let size = v.dtype.size();
        // SAFETY: phase 2 checked every element of the view lies in its device memory.
        let bytes = unsafe { std::slice::from_raw_parts((addr + at * size) as *const u8, size) };
        Ok(Scalar::from_bytes(v.dtype, bytes)
            .cast(self.via)
            .cast(self.kernel))
    }
}

/// The storage offset (elements) of element `i` (row-major) of view `t`.
fn element_offset(t: &TensorDesc, i: usize) -> usize {
    let mut off = t.offset as isize;
    let mut rem = i;
    for d in (0..t.rank()).rev() {
        off += (rem % t.shape[d]) as isize * t.strides[d];
        rem /= t.shape[d];
    }
    off as usize
}

/// Element `i` (row-major) of `t` as a 0-d view (a scalar tensor read as a broadcast input).
pub(crate) fn element(t: &TensorDesc, i: usize) -> TensorDesc {
    let mut v = t.clone();
    v.offset = element_offset(t, i);
    v.shape = Dims::new();
    v.strides = Strides::new();
    v.format = crate::format::Format::ND;
    v
}

/// What a step runs.
enum Run {
    /// Planned work (an engine plan, a reduction, ...).
    Work(Arc<dyn Work>),
    /// An engine plan whose parameters take device scalars read at run time.
    Plan {
        plan: Arc<Plan>,
        params: Params,
        scalars: SmallVec<[DeviceScalar; 1]>,
    },
}

/// One member's work, planned over its own views; binding `j` of the step takes the
/// address of the operator's binding `map[j]` at run time.
pub(crate) struct Step {
    run: Run,
    bindings: Bindings,
    map: Vec<usize>,
    ws_offset: u64,
    ws_size: u64,
}

impl Step {
    /// A step running another rule's executor (a copy, a norm) whose binding `j` is the
    /// operator's binding `map[j]`.
    pub(crate) fn of(e: Executor, map: &[usize]) -> Step {
        debug_assert_eq!(e.bindings.tensors.len(), map.len());
        Step {
            ws_size: e.work.workspace_size(),
            run: Run::Work(e.work),
            bindings: e.bindings,
            map: map.to_vec(),
            ws_offset: 0,
        }
    }

    fn work(&self) -> &dyn Work {
        match &self.run {
            Run::Work(w) => w.as_ref(),
            Run::Plan { plan, .. } => plan.as_ref(),
        }
    }
}

/// Every member of a list operator, run as one work.
pub(crate) struct ListWork {
    steps: Vec<Step>,
    workspace: u64,
}

/// Steps of at most this many in total run on the calling thread (see `Work::small`).
const SMALL_STEPS: usize = 4;

impl ListWork {
    /// Members run in parallel, so each gets its own slice of the workspace.
    fn new(mut steps: Vec<Step>) -> ListWork {
        let mut total = 0u64;
        for s in &mut steps {
            if s.ws_size > 0 {
                s.ws_offset = total;
                // Each slice starts aligned whatever the caller's alignment (plans align up).
                total += engine::align_up(s.ws_size as usize) as u64 + engine::ALIGN as u64;
            }
        }
        ListWork {
            steps,
            workspace: total,
        }
    }

    fn run_step(&self, s: &Step, outer: &Bindings, ws: Workspace) -> Result<()> {
        let b = rebind(&s.bindings, &s.map, outer)?;
        let ws = Workspace {
            addr: if s.ws_size > 0 {
                ws.addr + s.ws_offset as usize
            } else {
                0
            },
            size: s.ws_size,
        };
        match &s.run {
            Run::Work(w) => w.run(&b, ws),
            Run::Plan {
                plan,
                params,
                scalars,
            } => {
                let mut p = params.clone();
                for d in scalars {
                    p.scalars[d.slot] = d.read(outer)?;
                }
                plan.run_with_params(&b, ws, &p)
            }
        }
    }
}

impl Work for ListWork {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }
    fn check(&self, outer: &Bindings) -> Result<()> {
        for s in &self.steps {
            s.work().check(&*rebind(&s.bindings, &s.map, outer)?)?;
        }
        Ok(())
    }
    fn run(&self, outer: &Bindings, ws: Workspace) -> Result<()> {
        if self.steps.len() <= 1 {
            return self
                .steps
                .iter()
                .try_for_each(|s| self.run_step(s, outer, ws));
        }
        engine::pool().install(|| {
            self.steps
                .par_iter()
                .try_for_each(|s| self.run_step(s, outer, ws))
        })
    }
    fn small(&self) -> bool {
        self.steps.len() <= SMALL_STEPS && self.steps.iter().all(|s| s.work().small())
    }
    fn describe(&self) -> String {
        format!("foreach: {} member(s)", self.steps.len())
    }
}

/// Plans one member's element-wise step `out = kernel(args)`: `args` pairs each argument
/// with the operator's binding of a tensor (None for a constant); the output is the
/// operator's binding `out.2`. None when the member is empty (nothing to run).
#[allow(clippy::too_many_arguments)]
pub(crate) fn ew_step(
    api: &'static str,
    args: &[(Arg, Option<usize>)],
    kernel_in: &[Via],
    out: (&'static str, &TensorDesc, usize),
    kernel_out: Via,
    kernels: Kernels,
    params: Params,
    scalars: &[DeviceScalar],
) -> Result<Option<Step>> {
    let plain: SmallVec<[Arg; 3]> = args
        .iter()
        .map(|(a, _)| match a {
            Arg::Tensor(n, t) => Arg::Tensor(n, t),
            Arg::Scalar(s) => Arg::Scalar(*s),
        })
        .collect();
    let (bindings, plan) = ew::planned(
        api,
        &plain,
        kernel_in,
        out.0,
        out.1,
        kernel_out,
        kernels,
        params.clone(),
        false,
    )?;
    let Some(plan) = plan else {
        return Ok(None);
    };
    let mut map: Vec<usize> = args.iter().filter_map(|(_, b)| *b).collect();
    map.push(out.2);
    let ws_size = plan.workspace_size();
    let run = if scalars.is_empty() {
        Run::Work(plan)
    } else {
        Run::Plan {
            plan,
            params,
            scalars: scalars.iter().copied().collect(),
        }
    };
    Ok(Some(Step {
        run,
        bindings,
        map,
        ws_offset: 0,
        ws_size,
    }))
}

// ---------------------------------------------------------------------------------------
// Validation shared by every list operator.

/// Every list has the same number of members as the first.
pub(crate) fn check_lengths(lists: &[(&str, usize)]) -> Result<()> {
    let (first, n) = lists[0];
    for &(name, len) in &lists[1..] {
        crate::ensure!(
            len == n,
            "tensor list '{name}' has {len} tensors but '{first}' has {n}: every list must have the same length"
        );
    }
    Ok(())
}

/// Each member of `list` is a tensor of `allowed` dtype (all the same dtype), at most 8
/// dims, a public format. Returns the list's dtype (None for an empty list).
pub(crate) fn check_list(
    name: &str,
    list: &[&TensorDesc],
    allowed: &[DType],
) -> Result<Option<DType>> {
    for (i, t) in list.iter().enumerate() {
        ew::check_tensor(&format!("{name}[{i}]"), t, allowed)?;
        crate::ensure!(
            t.dtype == list[0].dtype,
            "tensor '{name}[{i}]' has dtype {} but '{name}[0]' has {}: the tensors of a list must have one dtype",
            t.dtype,
            list[0].dtype
        );
    }
    Ok(list.first().map(|t| t.dtype))
}

/// Each member of `list` has the dtype and shape of `like`'s member (x1's).
pub(crate) fn check_like(
    name: &str,
    list: &[&TensorDesc],
    like_name: &str,
    like: &[&TensorDesc],
) -> Result<()> {
    for (i, (t, l)) in list.iter().zip(like).enumerate() {
        crate::ensure!(
            t.dtype == l.dtype,
            "tensor '{name}[{i}]' has dtype {} but '{like_name}[{i}]' has {}: they must be equal",
            t.dtype,
            l.dtype
        );
        crate::ensure!(
            t.shape == l.shape,
            "tensor '{name}[{i}]' has shape {:?} but '{like_name}[{i}]' has {:?}: they must be equal",
            &t.shape[..],
            &l.shape[..]
        );
        crate::ensure!(
            t.rank() <= ew::MAX_DIMS,
            "tensor '{name}[{i}]' has {} dims; at most {} are supported",
            t.rank(),
            ew::MAX_DIMS
        );
        t.format
            .check_for_elementwise(&format!("{name}[{i}]"), t.rank())
            .map_err(Error::Invalid)?;
    }
    Ok(())
}

/// out's members: x's dtype and shape, and writable.
pub(crate) fn check_out(out: &[&TensorDesc], x_name: &str, x: &[&TensorDesc]) -> Result<()> {
    check_like("out", out, x_name, x)?;
    for (i, o) in out.iter().enumerate() {
        o.check_output(&format!("out[{i}]"))?;
    }
    Ok(())
}

/// No output member shares memory with another output member, an input member or a
/// scalar tensor — except an input member i that is exactly output member i's view (an
/// element-wise member written in place). Outputs are sorted by address, so the check costs
/// O(n log n) for lists of thousands.
pub(crate) fn check_aliasing(
    inputs: &[(&str, &[&TensorDesc])],
    outputs: &[(&str, &[&TensorDesc])],
    in_place_ok: bool,
) -> Result<()> {
    struct Span<'a> {
        lo: usize,
        hi: usize,
        name: &'a str,
        i: usize,
        t: &'a TensorDesc,
    }
    let mut outs: Vec<Span> = Vec::new();
    for (name, list) in outputs {
        for (i, t) in list.iter().enumerate() {
            if let Some((lo, hi)) = t.byte_span() {
                outs.push(Span { lo, hi, name, i, t });
            }
        }
    }
    outs.sort_by_key(|s| s.lo);
    for w in outs.windows(2) {
        crate::ensure!(
            w[1].lo > w[0].hi,
            "output tensors '{}[{}]' and '{}[{}]' share memory: output members must be apart",
            w[0].name,
            w[0].i,
            w[1].name,
            w[1].i
        );
    }
    for (name, list) in inputs {
        for (i, t) in list.iter().enumerate() {
            let Some((lo, hi)) = t.byte_span() else {
                continue;
            };
            // The outputs are disjoint and sorted: those ending at or after lo, from the first.
            let from = outs.partition_point(|o| o.hi < lo);
            for o in outs[from..].iter().take_while(|o| o.lo <= hi) {
                let same = in_place_ok && o.i == i && *o.t == **t;
                crate::ensure!(
                    same,
                    "output tensor '{}[{}]' shares memory with input '{name}[{i}]': an output member may only be \
                     its own input member's exact view (in place)",
                    o.name,
                    o.i
                );
            }
        }
    }
    Ok(())
}

/// A one-element scalar tensor (alpha, scalar, roundMode) of a dtype in `allowed`.
fn check_scalar_tensor(name: &str, t: &TensorDesc, allowed: &[DType], x: DType) -> Result<()> {
    crate::ensure!(
        t.numel() == 1,
        "tensor '{name}' has {} elements (shape {:?}); it must hold exactly one",
        t.numel(),
        &t.shape[..]
    );
    crate::ensure!(
        allowed.contains(&t.dtype),
        "tensor '{name}' has dtype {} but with x of dtype {x} it must be one of: {}",
        t.dtype,
        names(allowed)
    );
    Ok(())
}

fn names(d: &[DType]) -> String {
    d.iter()
        .map(|d| d.acl_name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_scalar(name: &str, s: &Scalar, allowed: &[DType], x: DType) -> Result<()> {
    crate::ensure!(
        allowed.contains(&s.dtype),
        "scalar '{name}' has dtype {} but with x of dtype {x} it must be one of: {}",
        s.dtype,
        names(allowed)
    );
    Ok(())
}

/// How CANN pairs a scalar's dtype with x's.
#[derive(Clone, Copy)]
enum Pairing {
    /// A scalar aclTensor: x's own dtype (f32, f16, s32); f32 for bf16; s32 for s16/s8/u8.
    Tensor,
    /// An aclScalar (V2 forms): f32 or f64 for f32/bf16, f16 or f64 for f16, s32 or s64
    /// for integers.
    V2,
    /// An aclScalarList: f32 (and f64 where `f64` says so) for floats, s64 for s32.
    List { f64: bool },
}

fn paired(p: Pairing, x: DType) -> &'static [DType] {
    match (p, x) {
        (Pairing::Tensor, F32 | BF16) => &[F32],
        (Pairing::Tensor, F16) => &[F16],
        (Pairing::Tensor, _) => &[S32],
        (Pairing::V2, F32 | BF16) => &[F32, F64],
        (Pairing::V2, F16) => &[F16, F64],
        (Pairing::V2, _) => &[S32, S64],
        (Pairing::List { f64: true }, F32 | F16 | BF16) => &[F32, F64],
        (Pairing::List { f64: false }, F32 | F16 | BF16) => &[F32],
        (Pairing::List { .. }, _) => &[S64],
    }
}

// ---------------------------------------------------------------------------------------
// Binary operators: x1 op x2, x op scalar.

/// The binary operations of the foreach family.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
}

/// The computation of `op` on dtype `d` (alpha: Add/Sub's, 1 when None), from the
/// single-tensor operator's own rule.
fn bin_compute(op: Bin, d: DType, alpha: Option<&Scalar>) -> Result<Compute> {
    let one = Scalar::from_value(1i64).cast(d);
    let alpha = alpha.unwrap_or(&one);
    match op {
        Bin::Add => add::compute(Sign::Plus, alpha, d),
        Bin::Sub => add::compute(Sign::Minus, alpha, d),
        Bin::Mul => super::mul::compute(d),
        Bin::Div => super::div::true_div(d),
        Bin::Max => Ok(super::extremum::max_compute(d)),
        Bin::Min => Ok(super::extremum::min_compute(d)),
        Bin::Pow => super::pow::compute(d),
    }
}

/// The second operand of a binary foreach operator.
pub enum Other<'a> {
    /// x2: a list (AddList, MulList, ...).
    List(&'a [&'a TensorDesc]),
    /// A one-element tensor in device memory (AddScalar, ...).
    Tensor(&'a TensorDesc),
    /// An aclScalar (the V2 forms).
    Scalar(&'a Scalar),
    /// One aclScalar per member (the ScalarList forms).
    Scalars(&'a [Scalar]),
}

/// alpha of AddList/SubList (a tensor) and of their V2 forms (an aclScalar).
pub enum Alpha<'a> {
    None,
    Tensor(&'a TensorDesc),
    Scalar(&'a Scalar),
}

/// The dtype lists and scalar pairing of one binary foreach entry point.
pub struct BinRule {
    pub api: &'static str,
    pub op: Bin,
    pub x: &'static [DType],
    /// How its scalar (or alpha) pairs with x's dtype.
    pairing: Pairing,
    /// Pow: |scalar| ≤ 2^31 − 1.
    pow_limit: bool,
}

/// Builds a binary foreach operator: `out[i] = x[i] op other[i]` (Add/Sub: `x ± alpha·other`).
pub fn binary(
    rule: &BinRule,
    x: &[&TensorDesc],
    other: Other,
    alpha: Alpha,
    out: &[&TensorDesc],
) -> Result<Executor> {
    let api = rule.api;
    let x_name = if matches!(other, Other::List(_)) {
        "x1"
    } else {
        "x"
    };
    let mut lengths: SmallVec<[(&str, usize); 3]> = smallvec::smallvec![(x_name, x.len())];
    match &other {
        Other::List(x2) => lengths.push(("x2", x2.len())),
        Other::Scalars(s) => lengths.push(("scalars", s.len())),
        _ => {}
    }
    lengths.push(("out", out.len()));
    check_lengths(&lengths)?;
    let Some(d) = check_list(x_name, x, rule.x)? else {
        return Ok(Layout::new().executor(api, Vec::new()));
    };
    let allowed = paired(rule.pairing, d);
    let limit = |name: &str, s: &Scalar| -> Result<()> {
        if rule.pow_limit {
            let v = s.cast(F64).get::<f64>();
            crate::ensure!(
                v.abs() <= i32::MAX as f64,
                "scalar '{name}' is {s}: its absolute value must be at most 2^31 - 1"
            );
        }
        Ok(())
    };
    match &other {
        Other::List(x2) => check_like("x2", x2, x_name, x)?,
        Other::Tensor(t) => check_scalar_tensor("scalar", t, allowed, d)?,
        Other::Scalar(s) => {
            check_scalar("scalar", s, allowed, d)?;
            limit("scalar", s)?;
        }
        Other::Scalars(ss) => {
            for (i, s) in ss.iter().enumerate() {
                check_scalar(&format!("scalars[{i}]"), s, allowed, d)?;
                limit(&format!("scalars[{i}]"), s)?;
            }
        }
    }
    match &alpha {
        Alpha::None => {}
        Alpha::Tensor(t) => check_scalar_tensor("alpha", t, allowed, d)?,
        Alpha::Scalar(s) => check_scalar("alpha", s, allowed, d)?,
    }
    check_out(out, x_name, x)?;
    let scalar_list: [&TensorDesc; 1];
    let alpha_list: [&TensorDesc; 1];
    let mut inputs: SmallVec<[(&str, &[&TensorDesc]); 3]> = smallvec::smallvec![(x_name, x)];
    match &other {
        Other::List(x2) => inputs.push(("x2", x2)),
        Other::Tensor(t) => {
            scalar_list = [*t];
            inputs.push(("scalar", &scalar_list));
        }
        _ => {}
    }
    if let Alpha::Tensor(t) = &alpha {
        alpha_list = [*t];
        inputs.push(("alpha", &alpha_list));
    }
    check_aliasing(&inputs, &[("out", out)], true)?;

    // Bindings: x, then x2 / scalar, then alpha, then out.
    let mut layout = Layout::new();
    let bx = layout.input_list(x);
    let b_other = match &other {
        Other::List(x2) => Some(layout.input_list(x2)),
        Other::Tensor(t) => Some(layout.input(Some(t))),
        _ => None,
    };
    let b_alpha = match &alpha {
        Alpha::Tensor(t) => Some(layout.input(Some(t))),
        _ => None,
    };
    let bo = layout.output_list(out);

    // The alpha the kernel is planned with: a device alpha's placeholder (not one, so the
    // scaled kernel is chosen) is replaced by its value at run time.
    let placeholder = Scalar::from_value(2i64).cast(d);
    let planned_alpha = match &alpha {
        Alpha::None => None,
        Alpha::Tensor(_) => Some(placeholder),
        Alpha::Scalar(s) => Some(**s),
    };
    let device_alpha: SmallVec<[DeviceScalar; 1]> = match b_alpha {
        Some(b) => smallvec::smallvec![DeviceScalar {
            binding: b,
            element: 0,
            slot: 0,
            via: d,
            kernel: d.compute(),
        }],
        None => SmallVec::new(),
    };
    let c = bin_compute(rule.op, d, planned_alpha.as_ref())?;
    let kernels = Kernels {
        main: c.kernel,
        narrow: c.narrow,
        moves: false,
    };
    let scalar_view = match &other {
        Other::Tensor(t) => Some(element(t, 0)),
        _ => None,
    };
    let mut steps = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        let second = match &other {
            Other::List(x2) => (Arg::Tensor("x2", x2[i]), Some(b_other.unwrap() + i)),
            Other::Tensor(_) => (
                Arg::Tensor("scalar", scalar_view.as_ref().unwrap()),
                b_other,
            ),
            Other::Scalar(s) => (Arg::Scalar(**s), None),
            Other::Scalars(ss) => (Arg::Scalar(ss[i]), None),
        };
        let step = ew_step(
            api,
            &[(Arg::Tensor(x_name, x[i]), Some(bx + i)), second],
            &[c.input, c.input],
            ("out", out[i], bo + i),
            c.result,
            kernels,
            c.params.clone(),
            &device_alpha,
        )?;
        steps.extend(step);
    }
    Ok(layout.executor(api, steps))
}

const ADD_X: &[DType] = &[F32, F16, BF16, S32, S16, S8, U8];
const FLOAT_S32: &[DType] = &[F32, F16, BF16, S32];
const FLOATS: &[DType] = &[F32, F16, BF16];

macro_rules! bin_rule {
    ($name:ident, $api:literal, $op:ident, $x:expr, $pairing:expr) => {
        bin_rule!($name, $api, $op, $x, $pairing, false);
    };
    ($name:ident, $api:literal, $op:ident, $x:expr, $pairing:expr, $pow:expr) => {
        #[doc = concat!("The rule of ", $api, ".")]
        pub const $name: BinRule = BinRule {
            api: $api,
            op: Bin::$op,
            x: $x,
            pairing: $pairing,
            pow_limit: $pow,
        };
    };
}

// The Atlas A2 lists of CANN's docs (ops-nn foreach/*/docs and the 8.1.RC1 toolkit's).
bin_rule!(ADD_LIST, "aclnnForeachAddList", Add, ADD_X, Pairing::Tensor);
bin_rule!(
    ADD_LIST_V2,
    "aclnnForeachAddListV2",
    Add,
    ADD_X,
    Pairing::V2
);
bin_rule!(
    ADD_SCALAR,
    "aclnnForeachAddScalar",
    Add,
    ADD_X,
    Pairing::Tensor
);
bin_rule!(
    ADD_SCALAR_V2,
    "aclnnForeachAddScalarV2",
    Add,
    ADD_X,
    Pairing::V2
);
bin_rule!(
    ADD_SCALAR_LIST,
    "aclnnForeachAddScalarList",
    Add,
    FLOAT_S32,
    Pairing::List { f64: false }
);
bin_rule!(SUB_LIST, "aclnnForeachSubList", Sub, ADD_X, Pairing::Tensor);
bin_rule!(
    SUB_LIST_V2,
    "aclnnForeachSubListV2",
    Sub,
    ADD_X,
    Pairing::V2
);
bin_rule!(
    SUB_SCALAR,
    "aclnnForeachSubScalar",
    Sub,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    SUB_SCALAR_V2,
    "aclnnForeachSubScalarV2",
    Sub,
    FLOAT_S32,
    Pairing::V2
);
bin_rule!(
    SUB_SCALAR_LIST,
    "aclnnForeachSubScalarList",
    Sub,
    FLOAT_S32,
    Pairing::List { f64: false }
);
bin_rule!(MUL_LIST, "aclnnForeachMulList", Mul, ADD_X, Pairing::Tensor);
bin_rule!(
    MUL_SCALAR,
    "aclnnForeachMulScalar",
    Mul,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    MUL_SCALAR_V2,
    "aclnnForeachMulScalarV2",
    Mul,
    FLOAT_S32,
    Pairing::V2
);
bin_rule!(
    MUL_SCALAR_LIST,
    "aclnnForeachMulScalarList",
    Mul,
    FLOAT_S32,
    Pairing::List { f64: true }
);
bin_rule!(
    DIV_LIST,
    "aclnnForeachDivList",
    Div,
    FLOATS,
    Pairing::Tensor
);
bin_rule!(
    DIV_SCALAR,
    "aclnnForeachDivScalar",
    Div,
    FLOATS,
    Pairing::Tensor
);
bin_rule!(
    DIV_SCALAR_V2,
    "aclnnForeachDivScalarV2",
    Div,
    FLOATS,
    Pairing::V2
);
bin_rule!(
    DIV_SCALAR_LIST,
    "aclnnForeachDivScalarList",
    Div,
    FLOATS,
    Pairing::List { f64: false }
);
bin_rule!(
    MAXIMUM_LIST,
    "aclnnForeachMaximumList",
    Max,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    MAXIMUM_SCALAR,
    "aclnnForeachMaximumScalar",
    Max,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    MAXIMUM_SCALAR_V2,
    "aclnnForeachMaximumScalarV2",
    Max,
    FLOAT_S32,
    Pairing::V2
);
bin_rule!(
    MAXIMUM_SCALAR_LIST,
    "aclnnForeachMaximumScalarList",
    Max,
    FLOAT_S32,
    Pairing::List { f64: true }
);
bin_rule!(
    MINIMUM_LIST,
    "aclnnForeachMinimumList",
    Min,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    MINIMUM_SCALAR,
    "aclnnForeachMinimumScalar",
    Min,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    MINIMUM_SCALAR_V2,
    "aclnnForeachMinimumScalarV2",
    Min,
    FLOAT_S32,
    Pairing::V2
);
bin_rule!(
    MINIMUM_SCALAR_LIST,
    "aclnnForeachMinimumScalarList",
    Min,
    FLOAT_S32,
    Pairing::List { f64: true }
);
bin_rule!(
    POW_LIST,
    "aclnnForeachPowList",
    Pow,
    FLOAT_S32,
    Pairing::Tensor
);
bin_rule!(
    POW_SCALAR,
    "aclnnForeachPowScalar",
    Pow,
    FLOAT_S32,
    Pairing::Tensor,
    true
);
bin_rule!(
    POW_SCALAR_V2,
    "aclnnForeachPowScalarV2",
    Pow,
    FLOATS,
    Pairing::V2,
    true
);
bin_rule!(
    POW_SCALAR_LIST,
    "aclnnForeachPowScalarList",
    Pow,
    FLOAT_S32,
    Pairing::List { f64: false },
    true
);

/// `x1 op x2` (Add/Sub: alpha a one-element device tensor).
pub fn list(
    rule: &BinRule,
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    alpha: Option<&TensorDesc>,
    out: &[&TensorDesc],
) -> Result<Executor> {
    let alpha = alpha.map_or(Alpha::None, Alpha::Tensor);
    binary(rule, x1, Other::List(x2), alpha, out)
}

/// AddListV2/SubListV2: `x1 ± alpha·x2` with an aclScalar alpha.
pub fn list_v2(
    rule: &BinRule,
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    alpha: &Scalar,
    out: &[&TensorDesc],
) -> Result<Executor> {
    binary(rule, x1, Other::List(x2), Alpha::Scalar(alpha), out)
}

/// `x op scalar`, scalar a one-element device tensor.
pub fn scalar_tensor(
    rule: &BinRule,
    x: &[&TensorDesc],
    scalar: &TensorDesc,
    out: &[&TensorDesc],
) -> Result<Executor> {
    binary(rule, x, Other::Tensor(scalar), Alpha::None, out)
}

/// `x op scalar` (V2: an aclScalar).
pub fn scalar(
    rule: &BinRule,
    x: &[&TensorDesc],
    scalar: &Scalar,
    out: &[&TensorDesc],
) -> Result<Executor> {
    binary(rule, x, Other::Scalar(scalar), Alpha::None, out)
}

/// `x[i] op scalars[i]`.
pub fn scalar_list(
    rule: &BinRule,
    x: &[&TensorDesc],
    scalars: &[Scalar],
    out: &[&TensorDesc],
) -> Result<Executor> {
    binary(rule, x, Other::Scalars(scalars), Alpha::None, out)
}

/// aclnnForeachPowScalarAndTensor: `out[i] = scalar ^ x[i]` (scalar f32/f64 for float x,
/// s64 for s32 x, |scalar| ≤ 2^31 − 1).
pub fn pow_scalar_and_tensor(
    scalar: &Scalar,
    x: &[&TensorDesc],
    out: &[&TensorDesc],
) -> Result<Executor> {
    const API: &str = "aclnnForeachPowScalarAndTensor";
    check_lengths(&[("x", x.len()), ("out", out.len())])?;
    let Some(d) = check_list("x", x, FLOAT_S32)? else {
        return Ok(Layout::new().executor(API, Vec::new()));
    };
    let allowed: &[DType] = if d == S32 { &[S64] } else { &[F32, F64] };
    check_scalar("scalar", scalar, allowed, d)?;
    let v = scalar.cast(F64).get::<f64>();
    crate::ensure!(
        v.abs() <= i32::MAX as f64,
        "scalar 'scalar' is {scalar}: its absolute value must be at most 2^31 - 1"
    );
    check_out(out, "x", x)?;
    check_aliasing(&[("x", x)], &[("out", out)], true)?;
    let mut layout = Layout::new();
    let bx = layout.input_list(x);
    let bo = layout.output_list(out);
    let c = bin_compute(Bin::Pow, d, None)?;
    let mut steps = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        steps.extend(ew_step(
            API,
            &[
                (Arg::Scalar(*scalar), None),
                (Arg::Tensor("x", x[i]), Some(bx + i)),
            ],
            &[c.input, c.input],
            ("out", out[i], bo + i),
            c.result,
            c.kernel.into(),
            c.params.clone(),
            &[],
        )?);
    }
    Ok(layout.executor(API, steps))
}

// ---------------------------------------------------------------------------------------
// Unary operators: out[i] = f(x[i]).

/// The dtype list and function of a unary foreach entry point.
pub struct UnaryRule {
    pub api: &'static str,
    pub x: &'static [DType],
    /// Documented dtypes this library refuses (with a message), not computes.
    pub refused: &'static [DType],
    kernel: fn(DType) -> Result<engine::KernelFn>,
}

macro_rules! unary_rule {
    ($name:ident, $api:literal, $x:expr, $f:expr) => {
        unary_rule!($name, $api, $x, &[], $f);
    };
    ($name:ident, $api:literal, $x:expr, $refused:expr, $f:expr) => {
        #[doc = concat!("The rule of ", $api, ".")]
        pub const $name: UnaryRule = UnaryRule {
            api: $api,
            x: $x,
            refused: $refused,
            kernel: unary::kernel::<{ $f }>,
        };
    };
}

const NEG_X: &[DType] = &[F32, F16, S32, BF16, S16, S8, U8];
const SIGN_X: &[DType] = &[F32, F16, BF16, S8, S32, S64];
const EXP_X: &[DType] = &[BF16, F16, F32, S16, S8, U8];

unary_rule!(ABS, "aclnnForeachAbs", FLOATS, f::ABS);
unary_rule!(ACOS, "aclnnForeachAcos", FLOATS, f::ACOS);
unary_rule!(ASIN, "aclnnForeachAsin", FLOATS, f::ASIN);
unary_rule!(ATAN, "aclnnForeachAtan", FLOATS, f::ATAN);
unary_rule!(COS, "aclnnForeachCos", FLOATS, f::COS);
unary_rule!(COSH, "aclnnForeachCosh", FLOATS, f::COSH);
unary_rule!(ERF, "aclnnForeachErf", FLOATS, f::ERF);
unary_rule!(ERFC, "aclnnForeachErfc", FLOATS, f::ERFC);
unary_rule!(EXP, "aclnnForeachExp", EXP_X, &[S16, S8, U8], f::EXP);
unary_rule!(EXPM1, "aclnnForeachExpm1", EXP_X, &[S16, S8, U8], f::EXPM1);
unary_rule!(LOG, "aclnnForeachLog", FLOATS, f::LOG);
unary_rule!(LOG10, "aclnnForeachLog10", FLOATS, f::LOG10);
unary_rule!(LOG1P, "aclnnForeachLog1p", FLOATS, f::LOG1P);
unary_rule!(LOG2, "aclnnForeachLog2", FLOATS, f::LOG2);
unary_rule!(NEG, "aclnnForeachNeg", NEG_X, f::NEG);
unary_rule!(RECIPROCAL, "aclnnForeachReciprocal", FLOATS, f::RECIPROCAL);
unary_rule!(SIGMOID, "aclnnForeachSigmoid", FLOATS, f::SIGMOID);
unary_rule!(SIGN, "aclnnForeachSign", SIGN_X, f::SIGN);
unary_rule!(SIN, "aclnnForeachSin", FLOATS, f::SIN);
unary_rule!(SINH, "aclnnForeachSinh", FLOATS, f::SINH);
unary_rule!(SQRT, "aclnnForeachSqrt", FLOATS, f::SQRT);
unary_rule!(TAN, "aclnnForeachTan", FLOATS, f::TAN);
unary_rule!(TANH, "aclnnForeachTanh", FLOATS, f::TANH);

/// `out[i] = f(x[i])`, computed as the single-tensor function (f16/bf16 in f32, rounded once).
pub fn unary_op(rule: &UnaryRule, x: &[&TensorDesc], out: &[&TensorDesc]) -> Result<Executor> {
    let api = rule.api;
    check_lengths(&[("x", x.len()), ("out", out.len())])?;
    let Some(d) = check_list("x", x, rule.x)? else {
        return Ok(Layout::new().executor(api, Vec::new()));
    };
    crate::ensure!(
        !rule.refused.contains(&d),
        "x has dtype {d}: CANN documents it for {api} but not how the device rounds the integer result; \
         aclnn-cpu does not implement it (supported: {})",
        names(&rule.x.iter().copied().filter(|t| !rule.refused.contains(t)).collect::<Vec<_>>())
    );
    check_out(out, "x", x)?;
    check_aliasing(&[("x", x)], &[("out", out)], true)?;
    let c = Compute::same(d, (rule.kernel)(d)?);
    map_unary(api, x, out, c, &[], false)
}

/// Plans `out[i] = kernel(x[i])` for every member (bindings x, then the `extra` scalar
/// tensors, then out); with `read_extra` the kernel's parameter is read from the extra
/// tensor at run time (as s64).
fn map_unary(
    api: &'static str,
    x: &[&TensorDesc],
    out: &[&TensorDesc],
    c: Compute,
    extra: &[&TensorDesc],
    read_extra: bool,
) -> Result<Executor> {
    let mut layout = Layout::new();
    let bx = layout.input_list(x);
    let extras: SmallVec<[usize; 1]> = extra.iter().map(|t| layout.input(Some(t))).collect();
    let bo = layout.output_list(out);
    let scalars: SmallVec<[DeviceScalar; 1]> = extras
        .iter()
        .filter(|_| read_extra)
        .map(|&b| DeviceScalar {
            binding: b,
            element: 0,
            slot: 0,
            via: S64,
            kernel: S64,
        })
        .collect();
    let mut steps = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        steps.extend(ew_step(
            api,
            &[(Arg::Tensor("x", x[i]), Some(bx + i))],
            &[c.input],
            ("out", out[i], bo + i),
            c.result,
            c.kernel.into(),
            c.params.clone(),
            &scalars,
        )?);
    }
    Ok(layout.executor(api, steps))
}

/// aclnnForeachZeroInplace: every member of x becomes 0.
pub fn zero_inplace(x: &[&TensorDesc]) -> Result<Executor> {
    const API: &str = "aclnnForeachZeroInplace";
    check_list("x", x, &[F32, F16, BF16, S16, S32])?;
    for (i, t) in x.iter().enumerate() {
        t.check_output(&format!("x[{i}]"))?;
    }
    check_aliasing(&[], &[("x", x)], false)?;
    let mut layout = Layout::new();
    let bx = layout.inout_list(x);
    let mut steps = Vec::with_capacity(x.len());
    for (i, t) in x.iter().enumerate() {
        if t.is_empty() {
            continue;
        }
        let e = convert_into(API, Arg::Scalar(Scalar::from_value(0u8)), "x", t)?;
        steps.push(Step::of(e, &[bx + i]));
    }
    Ok(layout.executor(API, steps))
}

const COPY_X: &[DType] = &[F32, F16, BF16, S8, U8, S16, U16, S32, U32, S64, F64, Bool];

/// aclnnForeachCopy: `out[i] = x[i]` (same dtype and shape; any views).
pub fn copy(x: &[&TensorDesc], out: &[&TensorDesc]) -> Result<Executor> {
    const API: &str = "aclnnForeachCopy";
    check_lengths(&[("x", x.len()), ("out", out.len())])?;
    check_list("x", x, COPY_X)?;
    check_out(out, "x", x)?;
    check_aliasing(&[("x", x)], &[("out", out)], true)?;
    let mut layout = Layout::new();
    let bx = layout.input_list(x);
    let bo = layout.output_list(out);
    let mut steps = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        if out[i].is_empty() {
            continue;
        }
        let e = convert_into(API, Arg::Tensor("x", x[i]), "out", out[i])?;
        steps.push(Step::of(e, &[bx + i, bo + i]));
    }
    Ok(layout.executor(API, steps))
}

/// x rounded to an integral value by CANN's roundMode (`params.scalars[0]`, s64): 1 half
/// to even, 2 toward −inf, 3 toward +inf, 4 half away from zero, 5 toward zero, 6 to the
/// odd neighbour when inexact; any other mode rounds half to even (CANN: "other values round
/// half to even when precision is lost").
struct RoundOff(i64);
impl UnaryOp for RoundOff {
    type A = f32;
    type O = f32;
    fn new(p: &Params) -> Self {
        RoundOff(p.scalars[0].get::<i64>())
    }
    #[inline(always)]
    fn apply(&self, x: f32) -> f32 {
        match self.0 {
            2 => x.floor(),
            3 => x.ceil(),
            4 => x.round(),
            5 => x.trunc(),
            6 => {
                let fl = x.floor();
                if fl == x || !x.is_finite() {
                    x
                } else if (fl as f64).rem_euclid(2.0) == 1.0 {
                    fl
                } else {
                    fl + 1.0
                }
            }
            _ => x.round_ties_even(),
        }
    }
}

const ROUND_X: &[DType] = &[F32, F16, BF16, S16];

fn round_off(
    api: &'static str,
    x: &[&TensorDesc],
    mode: Result<&TensorDesc, i64>,
    out: &[&TensorDesc],
) -> Result<Executor> {
    check_lengths(&[("x", x.len()), ("out", out.len())])?;
    let Some(d) = check_list("x", x, ROUND_X)? else {
        return Ok(Layout::new().executor(api, Vec::new()));
    };
    if let Ok(t) = mode {
        check_scalar_tensor("roundMode", t, &[S8], d)?;
    }
    check_out(out, "x", x)?;
    let mode_list: [&TensorDesc; 1];
    let mut inputs: SmallVec<[(&str, &[&TensorDesc]); 2]> = smallvec::smallvec![("x", x)];
    if let Ok(t) = mode {
        mode_list = [t];
        inputs.push(("roundMode", &mode_list));
    }
    check_aliasing(&inputs, &[("out", out)], true)?;
    let value = Scalar::from_value(mode.err().unwrap_or(1));
    let c = if d == S16 {
        // Integers are integral already: a copy.
        Compute::same(d, unary::kernel::<{ f::ROUND }>(d)?)
    } else {
        Compute {
            params: Params {
                scalars: smallvec::smallvec![value],
                ints: SmallVec::new(),
            },
            ..Compute::same(d, unary_kernel::<RoundOff>)
        }
    };
    // The roundMode tensor is bound (aclSetInputTensorAddr counts it) and read by the float
    // kernels; integers are integral already.
    let extra: SmallVec<[&TensorDesc; 1]> = mode.iter().copied().collect();
    map_unary(api, x, out, c, &extra, d != S16)
}

/// aclnnForeachRoundOffNumber: roundMode a one-element int8 device tensor.
pub fn round_off_number(
    x: &[&TensorDesc],
    round_mode: &TensorDesc,
    out: &[&TensorDesc],
) -> Result<Executor> {
    round_off("aclnnForeachRoundOffNumber", x, Ok(round_mode), out)
}

/// aclnnForeachRoundOffNumberV2: roundMode an aclScalar (int8 or int64).
pub fn round_off_number_v2(
    x: &[&TensorDesc],
    round_mode: &Scalar,
    out: &[&TensorDesc],
) -> Result<Executor> {
    const API: &str = "aclnnForeachRoundOffNumberV2";
    if let Some(d) = x.first().map(|t| t.dtype) {
        check_scalar("roundMode", round_mode, &[S8, S64], d)?;
    }
    let m = round_mode.cast(S64).get::<i64>();
    round_off(API, x, Err(m), out)
}

// ---------------------------------------------------------------------------------------
// Addcdiv, Addcmul, Lerp, Norm.

/// The value of Addcdiv/Addcmul: one per member in a device tensor (List, ScalarList), one
/// device element (Scalar), or an aclScalar (V2).
pub enum Value<'a> {
    PerMember(&'a TensorDesc),
    Tensor(&'a TensorDesc),
    Scalar(&'a Scalar),
}

fn addc(
    api: &'static str,
    how: Combine,
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    x3: &[&TensorDesc],
    value: Value,
    out: &[&TensorDesc],
) -> Result<Executor> {
    check_lengths(&[
        ("x1", x1.len()),
        ("x2", x2.len()),
        ("x3", x3.len()),
        ("out", out.len()),
    ])?;
    let allowed = if how == Combine::Div {
        FLOATS
    } else {
        FLOAT_S32
    };
    let Some(d) = check_list("x1", x1, allowed)? else {
        return Ok(Layout::new().executor(api, Vec::new()));
    };
    check_like("x2", x2, "x1", x1)?;
    check_like("x3", x3, "x1", x1)?;
    check_out(out, "x1", x1)?;
    match &value {
        Value::PerMember(t) => {
            crate::ensure!(
                t.dtype == d,
                "tensor 'scalars' has dtype {} but must have x1's dtype {d}",
                t.dtype
            );
            crate::ensure!(
                t.numel() == x1.len(),
                "tensor 'scalars' has {} elements but x1 has {} tensors: one value per tensor",
                t.numel(),
                x1.len()
            );
        }
        Value::Tensor(t) => {
            let ok: &[DType] = match d {
                BF16 => &[F32],
                _ => std::slice::from_ref(&x1[0].dtype),
            };
            check_scalar_tensor("scalar", t, ok, d)?;
        }
        Value::Scalar(s) => check_scalar("scalar", s, paired(Pairing::V2, d), d)?,
    }
    let value_list: [&TensorDesc; 1];
    let mut inputs: SmallVec<[(&str, &[&TensorDesc]); 4]> =
        smallvec::smallvec![("x1", x1), ("x2", x2), ("x3", x3)];
    if let Value::PerMember(t) | Value::Tensor(t) = &value {
        value_list = [*t];
        inputs.push(("scalars", &value_list));
    }
    check_aliasing(&inputs, &[("out", out)], true)?;

    let mut layout = Layout::new();
    let b1 = layout.input_list(x1);
    let b2 = layout.input_list(x2);
    let b3 = layout.input_list(x3);
    let bv = match &value {
        Value::PerMember(t) | Value::Tensor(t) => Some(layout.input(Some(t))),
        Value::Scalar(_) => None,
    };
    let bo = layout.output_list(out);
    let kc = d.compute();
    let kernel = addc_kernel(how, kc);
    let planned = match &value {
        Value::Scalar(s) => s.cast(d).cast(kc),
        _ => Scalar::from_value(0i64).cast(kc),
    };
    let params = Params {
        scalars: smallvec::smallvec![planned],
        ints: SmallVec::new(),
    };
    let v = Via::of(d);
    let mut steps = Vec::with_capacity(x1.len());
    for i in 0..x1.len() {
        let device: SmallVec<[DeviceScalar; 1]> = match bv {
            Some(b) => smallvec::smallvec![DeviceScalar {
                binding: b,
                element: if matches!(value, Value::PerMember(_)) {
                    i
                } else {
                    0
                },
                slot: 0,
                via: d,
                kernel: kc,
            }],
            None => SmallVec::new(),
        };
        steps.extend(ew_step(
            api,
            &[
                (Arg::Tensor("x1", x1[i]), Some(b1 + i)),
                (Arg::Tensor("x2", x2[i]), Some(b2 + i)),
                (Arg::Tensor("x3", x3[i]), Some(b3 + i)),
            ],
            &[v, v, v],
            ("out", out[i], bo + i),
            v,
            kernel.into(),
            params.clone(),
            &device,
        )?);
    }
    Ok(layout.executor(api, steps))
}

macro_rules! addc_entries {
    ($how:ident, $list:ident, $scalar:ident, $scalar_list:ident, $v2:ident, $n:literal) => {
        #[doc = concat!("aclnnForeach", $n, "List: scalars holds one value per member (x1's dtype).")]
        pub fn $list(
            x1: &[&TensorDesc],
            x2: &[&TensorDesc],
            x3: &[&TensorDesc],
            scalars: &TensorDesc,
            out: &[&TensorDesc],
        ) -> Result<Executor> {
            addc(
                concat!("aclnnForeach", $n, "List"),
                Combine::$how,
                x1,
                x2,
                x3,
                Value::PerMember(scalars),
                out,
            )
        }
        #[doc = concat!("aclnnForeach", $n, "Scalar: one value in a one-element device tensor.")]
        pub fn $scalar(
            x1: &[&TensorDesc],
            x2: &[&TensorDesc],
            x3: &[&TensorDesc],
            scalar: &TensorDesc,
            out: &[&TensorDesc],
        ) -> Result<Executor> {
            addc(
                concat!("aclnnForeach", $n, "Scalar"),
                Combine::$how,
                x1,
                x2,
                x3,
                Value::Tensor(scalar),
                out,
            )
        }
        #[doc = concat!("aclnnForeach", $n, "ScalarList: one value per member in a device tensor.")]
        pub fn $scalar_list(
            x1: &[&TensorDesc],
            x2: &[&TensorDesc],
            x3: &[&TensorDesc],
            scalars: &TensorDesc,
            out: &[&TensorDesc],
        ) -> Result<Executor> {
            addc(
                concat!("aclnnForeach", $n, "ScalarList"),
                Combine::$how,
                x1,
                x2,
                x3,
                Value::PerMember(scalars),
                out,
            )
        }
        #[doc = concat!("aclnnForeach", $n, "ScalarV2: an aclScalar value.")]
        pub fn $v2(
            x1: &[&TensorDesc],
            x2: &[&TensorDesc],
            x3: &[&TensorDesc],
            scalar: &Scalar,
            out: &[&TensorDesc],
        ) -> Result<Executor> {
            addc(
                concat!("aclnnForeach", $n, "ScalarV2"),
                Combine::$how,
                x1,
                x2,
                x3,
                Value::Scalar(scalar),
                out,
            )
        }
    };
}
addc_entries!(
    Div,
    addcdiv_list,
    addcdiv_scalar,
    addcdiv_scalar_list,
    addcdiv_scalar_v2,
    "Addcdiv"
);
addc_entries!(
    Mul,
    addcmul_list,
    addcmul_scalar,
    addcmul_scalar_list,
    addcmul_scalar_v2,
    "Addcmul"
);

/// torch's lerp: `w < 0.5 ? a + w(b − a) : b − (b − a)(1 − w)` (|w| < 0.5 for the first),
/// exact at both ends.
#[inline(always)]
fn lerp(a: f32, b: f32, w: f32) -> f32 {
    if w.abs() < 0.5 {
        a + w * (b - a)
    } else {
        b - (b - a) * (1.0 - w)
    }
}

/// Lerp with a constant weight (`params.scalars[0]`, f32).
struct LerpBy(f32);
impl BinaryOp for LerpBy {
    type A = f32;
    type B = f32;
    type O = f32;
    fn new(p: &Params) -> Self {
        LerpBy(p.scalars[0].get::<f32>())
    }
    #[inline(always)]
    fn apply(&self, a: f32, b: f32) -> f32 {
        lerp(a, b, self.0)
    }
}

/// Lerp with a weight tensor.
struct LerpWith;
impl TernaryOp for LerpWith {
    type A = f32;
    type B = f32;
    type C = f32;
    type O = f32;
    fn new(_: &Params) -> Self {
        LerpWith
    }
    #[inline(always)]
    fn apply(&self, a: f32, b: f32, w: f32) -> f32 {
        lerp(a, b, w)
    }
}

fn lerp_impl(
    api: &'static str,
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    weight: Result<&[&TensorDesc], &Scalar>,
    out: &[&TensorDesc],
) -> Result<Executor> {
    let mut lengths: SmallVec<[(&str, usize); 4]> =
        smallvec::smallvec![("x1", x1.len()), ("x2", x2.len())];
    if let Ok(w) = weight {
        lengths.push(("weight", w.len()));
    }
    lengths.push(("out", out.len()));
    check_lengths(&lengths)?;
    let Some(d) = check_list("x1", x1, FLOATS)? else {
        return Ok(Layout::new().executor(api, Vec::new()));
    };
    check_like("x2", x2, "x1", x1)?;
    match weight {
        Ok(w) => check_like("weight", w, "x1", x1)?,
        Err(s) => check_scalar("weight", s, &[F32, F64], d)?,
    }
    check_out(out, "x1", x1)?;
    let mut inputs: SmallVec<[(&str, &[&TensorDesc]); 3]> =
        smallvec::smallvec![("x1", x1), ("x2", x2)];
    if let Ok(w) = weight {
        inputs.push(("weight", w));
    }
    check_aliasing(&inputs, &[("out", out)], true)?;
    let mut layout = Layout::new();
    let b1 = layout.input_list(x1);
    let b2 = layout.input_list(x2);
    let bw = weight.ok().map(|w| layout.input_list(w));
    let bo = layout.output_list(out);
    let v = Via::of(d);
    let mut steps = Vec::with_capacity(x1.len());
    for i in 0..x1.len() {
        let a = (Arg::Tensor("x1", x1[i]), Some(b1 + i));
        let b = (Arg::Tensor("x2", x2[i]), Some(b2 + i));
        let step = match weight {
            Ok(w) => ew_step(
                api,
                &[a, b, (Arg::Tensor("weight", w[i]), Some(bw.unwrap() + i))],
                &[v, v, v],
                ("out", out[i], bo + i),
                v,
                (ternary::<LerpWith> as engine::KernelFn).into(),
                Params::default(),
                &[],
            )?,
            Err(s) => ew_step(
                api,
                &[a, b],
                &[v, v],
                ("out", out[i], bo + i),
                v,
                (binary_kernel::<LerpBy> as engine::KernelFn).into(),
                Params {
                    // torch converts the weight to x's dtype.
                    scalars: smallvec::smallvec![s.cast(d).cast(F32)],
                    ints: SmallVec::new(),
                },
                &[],
            )?,
        };
        steps.extend(step);
    }
    Ok(layout.executor(api, steps))
}

/// aclnnForeachLerpList: `out[i] = lerp(x1[i], x2[i], weight[i])`.
pub fn lerp_list(
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    weight: &[&TensorDesc],
    out: &[&TensorDesc],
) -> Result<Executor> {
    lerp_impl("aclnnForeachLerpList", x1, x2, Ok(weight), out)
}

/// aclnnForeachLerpScalar: one weight (f32/f64) for every member.
pub fn lerp_scalar(
    x1: &[&TensorDesc],
    x2: &[&TensorDesc],
    weight: &Scalar,
    out: &[&TensorDesc],
) -> Result<Executor> {
    lerp_impl("aclnnForeachLerpScalar", x1, x2, Err(weight), out)
}

/// aclnnForeachNorm: `out[i]` (one element, x's dtype) is the p-norm of all of x[i]
/// (aclnnNorm's computation: f64 accumulation, p = 0, ±inf, 1, 2 or any other).
pub fn norm(x: &[&TensorDesc], p: &Scalar, out: &[&TensorDesc]) -> Result<Executor> {
    const API: &str = "aclnnForeachNorm";
    check_lengths(&[("x", x.len()), ("out", out.len())])?;
    let Some(d) = check_list("x", x, FLOATS)? else {
        return Ok(Layout::new().executor(API, Vec::new()));
    };
    check_scalar("scalar", p, &[F32, F64, S64], d)?;
    for (i, o) in out.iter().enumerate() {
        crate::ensure!(
            o.dtype == d && o.numel() == 1,
            "tensor 'out[{i}]' has dtype {} and {} elements: it must have x's dtype {d} and one element",
            o.dtype,
            o.numel()
        );
    }
    check_aliasing(&[("x", x)], &[("out", out)], false)?;
    let mut layout = Layout::new();
    let bx = layout.input_list(x);
    let bo = layout.output_list(out);
    let mut steps = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        let e = super::norm::norm(x[i], p, &[], false, &element(out[i], 0))?;
        steps.push(Step::of(e, &[bx + i, bo + i]));
    }
    Ok(layout.executor(API, steps))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "ForeachAddList, ForeachAddListV2, ForeachAddScalar, ForeachAddScalarV2, ForeachSubList, ForeachSubListV2, ForeachMulList",
        a: ADD_X,
        b: ADD_X,
        out: ADD_X,
        rule: "x1[i] ± alpha·x2[i], x1[i]·x2[i]; scalars in x's dtype",
    },
    Entry {
        ops: "ForeachAddScalarList, ForeachSubScalar, ForeachSubScalarV2, ForeachSubScalarList, ForeachMulScalar, ForeachMulScalarV2, ForeachMulScalarList, ForeachMaximumList, ForeachMaximumScalar, ForeachMaximumScalarV2, ForeachMaximumScalarList, ForeachMinimumList, ForeachMinimumScalar, ForeachMinimumScalarV2, ForeachMinimumScalarList, ForeachPowList, ForeachPowScalar, ForeachPowScalarList",
        a: FLOAT_S32,
        b: FLOAT_S32,
        out: FLOAT_S32,
        rule: "x[i] op scalar(s); max/min propagate NaN",
    },
    Entry {
        ops: "ForeachDivList, ForeachDivScalar, ForeachDivScalarV2, ForeachDivScalarList, ForeachPowScalarV2, ForeachAddcdivList, ForeachAddcdivScalar, ForeachAddcdivScalarList, ForeachAddcdivScalarV2, ForeachLerpList, ForeachLerpScalar, ForeachNorm",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "x1 / x2; x1 + v·x2/x3; lerp; p-norm",
    },
    Entry {
        ops: "ForeachAddcmulList, ForeachAddcmulScalar, ForeachAddcmulScalarList, ForeachAddcmulScalarV2, ForeachPowScalarAndTensor",
        a: FLOAT_S32,
        b: FLOAT_S32,
        out: FLOAT_S32,
        rule: "x1 + v·x2·x3; scalar^x",
    },
    Entry {
        ops: "ForeachAbs, ForeachAcos, ForeachAsin, ForeachAtan, ForeachCos, ForeachCosh, ForeachErf, ForeachErfc, ForeachExp, ForeachExpm1, ForeachLog, ForeachLog10, ForeachLog1p, ForeachLog2, ForeachReciprocal, ForeachSigmoid, ForeachSin, ForeachSinh, ForeachSqrt, ForeachTan, ForeachTanh",
        a: FLOATS,
        b: &[],
        out: FLOATS,
        rule: "f(x[i]) (f16/bf16 in f32)",
    },
    Entry {
        ops: "ForeachNeg",
        a: NEG_X,
        b: &[],
        out: NEG_X,
        rule: "−x[i] (integers wrap)",
    },
    Entry {
        ops: "ForeachSign",
        a: SIGN_X,
        b: &[],
        out: SIGN_X,
        rule: "sign(x[i])",
    },
    Entry {
        ops: "ForeachRoundOffNumber, ForeachRoundOffNumberV2",
        a: ROUND_X,
        b: &[S8, S64],
        out: ROUND_X,
        rule: "round by roundMode 1-6",
    },
    Entry {
        ops: "ForeachCopy",
        a: COPY_X,
        b: &[],
        out: COPY_X,
        rule: "out[i] = x[i]",
    },
    Entry {
        ops: "ForeachZeroInplace",
        a: &[F32, F16, BF16, S16, S32],
        b: &[],
        out: &[F32, F16, BF16, S16, S32],
        rule: "x[i] = 0",
    },
];
