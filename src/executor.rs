//! Executors: what phase 1 produces and phase 2 runs. An executor owns copies of the
//! tensor views it was planned with (callers may destroy their aclTensor objects right
//! after phase 1) and the planned work.

use crate::error::{Error, Result};
use crate::tensor::TensorDesc;
use std::sync::Arc;

/// The views an executor was planned with, in binding order.
pub type Views = Arc<Vec<Option<TensorDesc>>>;

/// Binding indexes of an executor's outputs: inline, as operators have one or two.
pub type Outputs = smallvec::SmallVec<[usize; 2]>;

/// The tensors an executor was planned with: its inputs, then its outputs, flattened as
/// aclSetInputTensorAddr / aclSetOutputTensorAddr / aclSetTensorAddr index them. `None`
/// is an optional tensor the caller passed as NULL.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// Shared (an executor re-planned from an identical call shares its views); an executor
    /// whose addresses are re-pointed gets its own copy.
    pub tensors: Views,
    pub n_inputs: usize,
    /// The binding index of each output (an in-place operator's output is its selfRef input).
    pub outputs: Outputs,
}

/// Bindings `inputs` then `outputs` (an optional tensor passed as NULL is None), every
/// output listed: the layout of most operators' executors.
pub fn bindings(inputs: &[Option<&TensorDesc>], outputs: &[Option<&TensorDesc>]) -> Bindings {
    let views: Vec<Option<TensorDesc>> = inputs.iter().chain(outputs).map(|t| t.cloned()).collect();
    Bindings {
        tensors: std::sync::Arc::new(views),
        n_inputs: inputs.len(),
        outputs: (inputs.len()..inputs.len() + outputs.len()).collect(),
    }
}

impl Bindings {
    pub fn view(&self, i: usize) -> Result<&TensorDesc> {
        self.tensors
            .get(i)
            .and_then(|t| t.as_ref())
            .ok_or_else(|| Error::Internal(format!("no tensor bound at index {i}")))
    }

    /// "input 0" / "output 1": binding `i` as messages name it.
    fn describe(&self, i: usize) -> String {
        if i < self.n_inputs {
            format!("input {i}")
        } else {
            format!("output {}", i - self.n_inputs)
        }
    }

    /// The storage address of binding `i`, checked to be usable: not NULL and aligned to its
    /// element type for a non-empty view (an empty one is never read: ggml hands over empty
    /// views at any address).
    pub fn addr(&self, i: usize) -> Result<usize> {
        let v = self.view(i)?;
        if v.addr == 0 && !v.is_empty() {
            return Err(Error::Invalid(format!(
                "tensor {} has a NULL data address",
                self.describe(i)
            )));
        }
        let align = v.dtype.align();
        if v.addr % align != 0 && !v.is_empty() {
            return Err(Error::Invalid(format!(
                "tensor {} data address {:#x} is not aligned to {align} bytes ({})",
                self.describe(i),
                v.addr,
                v.dtype
            )));
        }
        Ok(v.addr)
    }
}

impl Bindings {
    /// The bindings whose data address is not aligned to their element type (ggml hands over
    /// f32 views at any byte offset; the device's DMA reads them). Empty for nearly every call.
    pub fn misaligned(&self) -> smallvec::SmallVec<[usize; 2]> {
        self.tensors
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let t = t.as_ref()?;
                (t.addr % t.dtype.align() != 0 && !t.is_empty()).then_some(i)
            })
            .collect()
    }

    /// Runs `work` with each binding of `which` replaced by an aligned copy of the bytes its
    /// view touches, copied back afterwards for outputs: the kernels read and write typed,
    /// aligned memory, whatever address the caller gave. Every input is copied before the work
    /// runs and every output after it, so overlaps between them behave as in place.
    pub fn run_aligned(&self, work: &dyn Work, ws: Workspace, which: &[usize]) -> Result<()> {
        let mut tensors: Vec<Option<TensorDesc>> = self.tensors.as_ref().clone();
        // (binding, first byte, bytes, buffer)
        let mut staged: Vec<(usize, usize, Vec<u64>)> = Vec::with_capacity(which.len());
        for &i in which {
            let t = self.view(i)?;
            let Some((lo, hi)) = t.byte_span() else {
                continue;
            };
            let len = hi - lo + 1;
            let mut buf = vec![0u64; len.div_ceil(8)];
            // SAFETY: phase 2 checked [lo, hi] lies in the tensor's device memory; buf holds len bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(lo as *const u8, buf.as_mut_ptr() as *mut u8, len)
            };
            let mut c = t.clone();
            // The copy starts at the view's first element: address it there.
            c.addr = (buf.as_ptr() as usize).wrapping_sub(t.offset * t.dtype.size());
            tensors[i] = Some(c);
            staged.push((i, lo, buf));
        }
        let aligned = Bindings {
            tensors: Arc::new(tensors),
            n_inputs: self.n_inputs,
            outputs: self.outputs.clone(),
        };
        work.run(&aligned, ws)?;
        for (i, lo, buf) in &staged {
            if self.outputs.contains(i) {
                let len = {
                    let (l, h) = self.view(*i)?.byte_span().expect("staged: not empty");
                    h - l + 1
                };
                // SAFETY: as above, in the other direction.
                unsafe {
                    std::ptr::copy_nonoverlapping(buf.as_ptr() as *const u8, *lo as *mut u8, len)
                };
            }
        }
        Ok(())
    }
}

/// The caller's workspace for one run.
#[derive(Clone, Copy, Debug)]
pub struct Workspace {
    pub addr: usize,
    pub size: u64,
}

/// Planned work: runs with the executor's (possibly re-addressed) tensors and a workspace
/// of at least `workspace_size()` bytes.
pub trait Work: Send + Sync {
    fn workspace_size(&self) -> u64;
    /// Checks, before the run is queued, what can have changed since phase 1 (tensor
    /// addresses of a repeatable executor): phase 2 then refuses instead of queuing.
    fn check(&self, _tensors: &Bindings) -> Result<()> {
        Ok(())
    }
    fn run(&self, tensors: &Bindings, ws: Workspace) -> Result<()>;
    /// Work of a few microseconds at most: phase 2 runs it on the calling thread when the
    /// stream is idle rather than paying a thread wake-up that costs more than the work.
    fn small(&self) -> bool {
        false
    }
    /// Whether the work reads or writes ACL_INT4 views itself (nibble by nibble). Phase 1
    /// refuses an executor with an ACL_INT4 binding whose work does not say so: no other
    /// kernel knows an element can be half a byte.
    fn accepts_int4(&self) -> bool {
        false
    }
    /// The plan in a few words, for the debug log (what the engine merged and chose); empty
    /// where an engine does not say. Called only when debug logging is on.
    fn describe(&self) -> String {
        String::new()
    }
}

/// Work that does nothing (an operator whose output is empty).
pub struct Nothing;
impl Work for Nothing {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, _: &Bindings, _: Workspace) -> Result<()> {
        Ok(())
    }
    fn small(&self) -> bool {
        true
    }
}

/// A tensor-list parameter of an operator: its members are bindings `first..first+len`.
/// aclSetDynamic{Input,Output}TensorAddr name it by `ir_index`, its position among the
/// operator's input (or output) parameters, and a member by its position in the list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListParam {
    pub output: bool,
    pub ir_index: usize,
    /// Its position among all the operator's parameters, inputs first
    /// (aclSetDynamicTensorAddr's irIndex).
    pub any_index: usize,
    pub first: usize,
    pub len: usize,
}

pub struct Executor {
    /// The phase-2 function this executor belongs to ("aclnnAdd").
    pub api: &'static str,
    pub bindings: Bindings,
    pub work: Arc<dyn Work>,
    pub repeatable: bool,
    /// The operator's tensor-list parameters (none for most).
    pub lists: Vec<ListParam>,
    /// Outputs whose real shape only the run finds (Nonzero, MaskedSelect): the address of
    /// the view the rule was given, and where the run leaves the shape (see `ShapeReport`).
    pub reports: Vec<(usize, ShapeReport)>,
}

/// The view an output takes after a run that found its size in the data. CANN sizes such
/// an output at its maximum and refreshes the output tensor's view shape when the kernel
/// has run (aclGetViewShape then returns the real one): the work publishes the new view
/// here, and the C layer gives it to the caller's aclTensor when that is next read.
#[derive(Clone, Debug, Default)]
pub struct ShapeReport(
    Arc<std::sync::Mutex<Option<(crate::tensor::Dims, crate::tensor::Strides)>>>,
);

impl ShapeReport {
    /// Called by the work at the end of a successful run.
    pub fn publish(&self, shape: crate::tensor::Dims, strides: crate::tensor::Strides) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some((shape, strides));
    }
    /// The view published since the last call, if any.
    pub fn take(&self) -> Option<(crate::tensor::Dims, crate::tensor::Strides)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl Executor {
    pub fn new(api: &'static str, bindings: Bindings, work: impl Work + 'static) -> Executor {
        Executor::shared(api, bindings, Arc::new(work))
    }

    /// An executor running `work` that other executors may share (a reused plan).
    pub fn shared(api: &'static str, bindings: Bindings, work: Arc<dyn Work>) -> Executor {
        Executor {
            api,
            bindings,
            work,
            repeatable: false,
            lists: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// This executor with `out` (a view the rule was given) taking the shape `report`
    /// receives at each run.
    pub fn reporting(mut self, out: &TensorDesc, report: ShapeReport) -> Executor {
        self.reports
            .push((out as *const TensorDesc as usize, report));
        self
    }

    pub fn workspace_size(&self) -> u64 {
        self.work.workspace_size()
    }

    /// Phase 1's gate for ACL_INT4 (`Work::accepts_int4`): Err naming the binding when a
    /// view of it reaches work that does not unpack it.
    pub fn check_int4(&self) -> Result<()> {
        if self.work.accepts_int4() {
            return Ok(());
        }
        for (i, t) in self.bindings.tensors.iter().enumerate() {
            if let Some(t) = t.as_ref().filter(|t| t.dtype.is_packed()) {
                return Err(Error::Invalid(format!(
                    "tensor {} ({}) has dtype ACL_INT4 (two 4-bit values a byte), which {} does not accept",
                    self.bindings.describe(i),
                    t.describe(),
                    self.api
                )));
            }
        }
        Ok(())
    }

    /// The same work, run by another entry point's phase 2 (`api`): an operator that is
    /// another one's rule on other views (ConvTbc is a Convolution of permuted views).
    pub fn renamed(mut self, api: &'static str) -> Executor {
        self.api = api;
        self
    }

    /// Re-points binding `index` (aclSet*TensorAddr).
    pub fn set_addr(&mut self, index: usize, addr: usize) -> Result<()> {
        let n = self.bindings.tensors.len();
        match Arc::make_mut(&mut self.bindings.tensors).get_mut(index) {
            Some(Some(t)) => {
                t.addr = addr;
                Ok(())
            }
            Some(None) => Err(Error::Invalid(format!(
                "tensor index {index} was NULL when the executor was created"
            ))),
            None => Err(Error::Invalid(format!(
                "tensor index {index} is out of range: this executor has {n} tensors"
            ))),
        }
    }
}

/// One step of a `Sequence`: planned work with the bindings it was planned with, and for
/// each of its bindings the binding of the whole operator whose address it takes.
struct Step {
    work: Arc<dyn Work>,
    bindings: Bindings,
    map: Vec<usize>,
}

/// Several planned works run one after another as one operator's work: Cat is one copy
/// per input into a slice of out, Aminmax two reductions. Each step keeps its own views
/// (a slice of out has its own offset and shape); at run time they take the addresses of
/// the operator's bindings, so re-pointing an executor's tensors re-points its steps. The
/// steps share the workspace: it is as large as the largest step needs.
pub struct Sequence {
    steps: Vec<Step>,
}

impl Sequence {
    pub fn new() -> Sequence {
        Sequence { steps: Vec::new() }
    }

    /// Adds `step`, an executor planned over views whose binding `j` takes the address of
    /// the operator's binding `map[j]`.
    pub fn push(&mut self, step: Executor, map: &[usize]) {
        debug_assert_eq!(step.bindings.tensors.len(), map.len());
        self.steps.push(Step {
            work: step.work,
            bindings: step.bindings,
            map: map.to_vec(),
        });
    }

    /// A step's bindings at the operator's current addresses.
    fn bind<'a>(step: &'a Step, outer: &Bindings) -> Result<std::borrow::Cow<'a, Bindings>> {
        rebind(&step.bindings, &step.map, outer)
    }
}

/// `bindings` (a step's, planned over its own views) with binding `j` at the address of
/// the operator's binding `map[j]` (borrowed when every address is already the same).
pub(crate) fn rebind<'a>(
    bindings: &'a Bindings,
    map: &[usize],
    outer: &Bindings,
) -> Result<std::borrow::Cow<'a, Bindings>> {
    {
        let step = (bindings, map);
        let same = step.1.iter().enumerate().all(|(j, &o)| {
            match (
                step.0.tensors[j].as_ref(),
                outer.tensors.get(o).and_then(|t| t.as_ref()),
            ) {
                (Some(a), Some(b)) => a.addr == b.addr,
                (None, None) => true,
                _ => false,
            }
        });
        if same {
            return Ok(std::borrow::Cow::Borrowed(bindings));
        }
        let mut b = bindings.clone();
        let views = Arc::make_mut(&mut b.tensors);
        for (j, &o) in map.iter().enumerate() {
            if let Some(v) = views[j].as_mut() {
                v.addr = outer.view(o)?.addr;
            }
        }
        Ok(std::borrow::Cow::Owned(b))
    }
}

impl Default for Sequence {
    fn default() -> Self {
        Sequence::new()
    }
}

impl Work for Sequence {
    fn workspace_size(&self) -> u64 {
        self.steps
            .iter()
            .map(|s| s.work.workspace_size())
            .max()
            .unwrap_or(0)
    }
    fn check(&self, tensors: &Bindings) -> Result<()> {
        for s in &self.steps {
            s.work.check(&*Sequence::bind(s, tensors)?)?;
        }
        Ok(())
    }
    fn run(&self, tensors: &Bindings, ws: Workspace) -> Result<()> {
        for s in &self.steps {
            s.work.run(&*Sequence::bind(s, tensors)?, ws)?;
        }
        Ok(())
    }
    fn small(&self) -> bool {
        self.steps.iter().all(|s| s.work.small())
    }
    fn describe(&self) -> String {
        let steps: Vec<String> = self.steps.iter().map(|s| s.work.describe()).collect();
        format!("{} steps: [{}]", steps.len(), steps.join("; "))
    }
}
