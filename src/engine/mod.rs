//! The element-wise engine: every element-wise operator is planned and run here.
//!
//! Phase 1 (`plan`): broadcast every input to the output's shape (stride 0 where
//! stretched), drop size-1 axes, order axes by the output's strides, merge axes that are
//! contiguous for every operand, decide per operand whether the kernel can read/write its
//! memory directly (same dtype, unit or zero inner stride) or goes through a chunk buffer
//! in the workspace (a conversion or a strided gather/scatter), decide which inputs
//! overlap the output and must be copied first, and size the workspace exactly.
//!
//! Phase 2 (`run`): split the iteration space into at most one task per thread (above a
//! grain size), and in each task walk row segments, converting chunks in and out of the
//! task's buffers around the operator's contiguous kernel. No heap allocation.

/// Runs `$body` compiled for AVX2 when the CPU has it (4 f64 lanes per instruction, and
/// f32 -> f64 conversions straight from memory), else for the baseline x86-64.
macro_rules! with_avx2 {
    ($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        fn $name($($arg: $ty),*) -> $ret {
            #[inline(always)]
            fn body($($arg: $ty),*) -> $ret $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn avx2($($arg: $ty),*) -> $ret {
                    body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has the feature the function is compiled for.
                    return unsafe { avx2($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

pub mod convert;
pub mod kernel;
pub mod linalg;
pub mod narrow;
pub mod philox;
pub mod reduce;
pub mod remap;
pub mod vmath;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Views, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{contiguous_strides, Dims, Strides, TensorDesc};
pub use kernel::{KernelFn, Params, Src};
pub use narrow::Narrow;
use smallvec::SmallVec;
use std::sync::{Arc, OnceLock};

/// Most operands (inputs + the output) an element-wise operator has.
pub const MAX_OPERANDS: usize = 4;
/// Most dims a planned iteration can have (operators accept at most 8).
pub const MAX_RANK: usize = 8;
/// Elements per kernel call when going through buffers.
const CHUNK: usize = 1024;
/// Rows shorter than this are processed in chunks that span rows (all operands buffered).
const SHORT_ROW: usize = 64;
/// Tiles of the tiled traversal: rows taken together, and elements of each row per step.
/// An input read across rows is gathered TILE_ROWS elements (four cache lines of f32) at a
/// time along its memory; the other operands stream whole rows of up to TILE_COLS.
/// Measured on a 4096^2 transposed add (E5) with huge-page device memory: 16 x 4096
/// 28-30 ms, 32 x 1024 27-31, 64 x 1024 21-29, 64 x 2048 21-24, 64 x 4096 20-23 (twice
/// the buffer), 128 x 512 48-51. (With 4 KiB pages, taller tiles had gained nothing: each
/// gathered row costs a TLB miss either way.)
const TILE_ROWS: usize = 64;
const TILE_COLS: usize = 2048;
/// Elements from one row of a tile buffer to the next: not a power of two, so a column's
/// elements (written one per row) fall in different cache sets.
const TILE_PITCH: usize = TILE_COLS + 64;
/// How many columns ahead the tile gather prefetches.
const TILE_PREFETCH: isize = 8;
/// How many rows ahead a copy moved view to view prefetches its input's rows, when they are
/// at most MOVE_PREFETCH_MAX bytes.
const MOVE_PREFETCH: isize = 16;
const MOVE_PREFETCH_MAX: usize = 1024;
/// Bytes of rows a tile of a moved copy takes along each of its two axes (see `MoveTile`).
const MOVE_TILE_BYTES: usize = 4096;
/// Fewest elements worth a task of their own.
const GRAIN: usize = 64 * 1024;
/// Work of at most this many output elements runs on the calling thread when its stream is
/// idle (see `Work::small`): a few microseconds, less than waking the stream worker costs.
const SMALL_WORK: usize = 64 * 1024;
/// Outputs of at least this many bytes, written contiguously in their own dtype from inputs
/// of at most a quarter of their size (broadcasts, fills), are written with non-temporal
/// stores through the output's chunk buffer: such an output is larger than the caches, and a
/// normal store first reads each line it fills, doubling a write stream's memory traffic.
/// Measured here: (N,1)+(1,M) at 16M elements 6.4 -> 4.2 ms; where inputs are streamed too
/// (a+b, a>b, where) the same stores were no faster or slower, so those keep normal stores.
pub(crate) const STREAM_MIN_BYTES: usize = 16 << 20;
/// Alignment of every buffer the engines carve out of a workspace.
pub(crate) const ALIGN: usize = 64;

/// The library's compute thread pool (`ACLNN_CPU_NUM_THREADS`, default: all cores).
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let n = std::env::var("ACLNN_CPU_NUM_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("aclnn-cpu-{i}"))
            .build()
            .expect("cannot start the compute thread pool")
    })
}

/// The dtypes one operand's values pass through. Inputs are converted to `value` (the
/// operator's computation dtype: where rounding happens) and then to `kernel` (what the
/// kernel reads; exact from `value`); results go from `kernel` to `value` to the output.
/// For an f16 computation: value f16, kernel f32 — inputs round to f16 first, the f32
/// result rounds once to f16, and only then is it cast to the output's dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Via {
    pub value: DType,
    pub kernel: DType,
}

impl Via {
    /// Computing in `d`: f16/bf16 through f32, complex32 through complex64.
    pub fn of(d: DType) -> Via {
        Via {
            value: d,
            kernel: d.compute(),
        }
    }
    /// The kernel takes `d` itself.
    pub fn exact(d: DType) -> Via {
        Via {
            value: d,
            kernel: d,
        }
    }
    /// Whether storage of dtype `d` needs the two-step conversion through `value`.
    fn two_step(&self, d: DType) -> bool {
        self.value != self.kernel && d != self.value
    }
}

/// An operand of an element-wise operator.
#[derive(Clone, Debug)]
pub enum Input<'a> {
    /// A tensor: `binding` is its index among the executor's tensors.
    Tensor {
        name: &'static str,
        binding: usize,
        view: &'a TensorDesc,
    },
    /// A constant (an aclScalar), in any dtype: the engine converts it once, in phase 1.
    Scalar(Scalar),
}

/// An operator's kernel, and its kernels for f16/bf16 storage if it has them (`narrow`).
#[derive(Clone, Copy, Debug)]
pub struct Kernels {
    pub main: KernelFn,
    pub narrow: Option<Narrow>,
    /// `main` only moves its one input's bytes to the output (a copy or a conversion:
    /// Permute, Slice, InplaceCopy, Cast, ...): the engine then moves (and converts) the
    /// values itself, straight from view to view (see `Plan::moves`).
    pub moves: bool,
}

impl Kernels {
    /// A copy kernel (see `moves`).
    pub fn moving(main: KernelFn) -> Kernels {
        Kernels {
            main,
            narrow: None,
            moves: true,
        }
    }
}

impl From<KernelFn> for Kernels {
    fn from(main: KernelFn) -> Kernels {
        Kernels {
            main,
            narrow: None,
            moves: false,
        }
    }
}

impl PartialEq for Kernels {
    fn eq(&self, o: &Kernels) -> bool {
        self.main as usize == o.main as usize && self.narrow == o.narrow && self.moves == o.moves
    }
}

/// What an operator asks the engine to compute: `out = kernel(inputs...)`, where the
/// kernel reads input i in dtype `kernel_in[i]` and writes dtype `kernel_out`.
pub struct Spec<'a> {
    pub api: &'static str,
    pub inputs: &'a [Input<'a>],
    pub kernel_in: &'a [Via],
    pub out_name: &'static str,
    pub out_binding: usize,
    pub out: &'a TensorDesc,
    pub kernel_out: Via,
    pub kernel: Kernels,
    pub params: Params,
}

#[derive(Clone, Debug)]
enum Base {
    /// A bound tensor's storage address plus this byte offset.
    Tensor { binding: usize, byte_offset: usize },
    /// The constant, already in the kernel dtype.
    Const(Scalar),
    /// The contiguous copy `copies[i]` in the workspace.
    Copy(usize),
}

#[derive(Clone, Debug)]
struct Operand {
    base: Base,
    dtype: DType,
    kdtype: DType,
    /// Values convert through this dtype first (see `Via`).
    via: Option<DType>,
    strides: [isize; MAX_RANK],
    /// Every stride is 0: one value, converted once per task.
    uniform: bool,
    /// The kernel reads/writes memory directly in row mode (no conversion, unit/zero inner stride).
    direct: bool,
    /// Offset of this operand's chunk buffer inside a task's region.
    buf: usize,
    /// Offset of its buffer for the `via` dtype.
    via_buf: usize,
    /// Offset of its tile buffer (TILE_ROWS x TILE_PITCH kernel elements) when the tiled
    /// traversal gathers it a tile at a time along its memory (an input read across rows).
    tile_buf: Option<usize>,
}

/// An input that overlaps the output: copied (as is, contiguous) into the workspace first.
#[derive(Clone, Debug)]
struct Copy {
    binding: usize,
    ws_offset: usize,
}

/// A moved copy whose rows are short and whose input steps least along an outer axis other
/// than the rows' own (a permute of the outer axes: (0, 2, 1, 3)): rows are taken in tiles,
/// `rows` consecutive rows (axis rank - 2, along the output) by `across` along `axis` (along
/// the input), the input's rows innermost. Output order would read one short run per page
/// (rows MOVE_TILE_BYTES and more apart), input order write one; a tile reads and writes
/// runs of about MOVE_TILE_BYTES each. Tasks split the tiles, not the elements.
#[derive(Clone, Copy, Debug)]
struct MoveTile {
    axis: usize,
    rows: usize,
    across: usize,
    count: usize,
}

/// A planned element-wise computation.
pub struct Plan {
    api: &'static str,
    shape: [usize; MAX_RANK],
    rank: usize,
    total: usize,
    ops: SmallVec<[Operand; MAX_OPERANDS]>, // inputs, then the output last
    copies: Vec<Copy>,
    flat: bool,
    /// Rows are processed in tiles (see `run_range`).
    tiled: bool,
    /// A copy moved from view to view without the kernel or buffers (see `plan`).
    moves: bool,
    move_tile: Option<MoveTile>,
    /// The output is written with non-temporal stores (see `STREAM_MIN_BYTES`).
    stream_out: bool,
    tasks: usize,
    task_bytes: usize,
    copies_bytes: usize,
    workspace: u64,
    kernel: KernelFn,
    params: Params,
    out_binding: usize,
    /// One task, one contiguous row, every input a constant or read in place, the output
    /// written in place: `run` calls the kernel once, without the traversal.
    single_run: bool,
    /// (binding, address) of every tensor as planned: phase 2 repeats the overlap check
    /// only when a binding has been re-pointed since.
    planned_addrs: SmallVec<[(usize, usize); MAX_OPERANDS]>,
}

/// Asks the CPU to start loading the cache lines of [addr, addr + bytes): the next chunk of a
/// gathered input, so memory keeps streaming while the current chunk is converted and computed.
/// A prefetch never faults, so the range may run past the operand's memory.
#[inline(always)]
fn prefetch(addr: usize, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mut a = addr & !63;
        while a < addr + bytes {
            // SAFETY: prefetching is a hint; any address is allowed.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(a as *const i8) };
            a += 64;
        }
    }
}

/// Runs `task(0)` .. `task(tasks - 1)` in parallel: task 0 on the calling thread (the
/// stream's worker, already running), the others on the pool. Handing every task to the
/// pool instead woke one more thread per call and left the caller idle, and a pool thread
/// took 30-120 us (sometimes 1.5 ms) to start its task: E1 at 1M 206 -> 150 us.
pub(crate) fn run_tasks(tasks: usize, task: impl Fn(usize) + Sync) {
    let task = &task;
    pool().in_place_scope(|scope| {
        for i in 1..tasks {
            scope.spawn(move |_| task(i));
        }
        task(0);
    });
}

pub(crate) fn align_up(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

/// Strides of `view` broadcast to `shape` (0 where stretched or missing).
pub(crate) fn broadcast_strides(shape: &[usize], vshape: &[usize], vstrides: &[isize]) -> Strides {
    let lead = shape.len() - vshape.len();
    (0..shape.len())
        .map(|j| {
            if j < lead || vshape[j - lead] == 1 {
                0
            } else {
                vstrides[j - lead]
            }
        })
        .collect()
}

fn spans_overlap(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.0 <= b.1 && b.0 <= a.1)
}

/// Whether input `view` must be copied before the output is written: it shares memory
/// with the output and is not exactly the output's own view (element i read, then written).
/// `out_span` is `out.byte_span()`, computed once for all inputs.
fn needs_copy(view: &TensorDesc, out: &TensorDesc, out_span: Option<(usize, usize)>) -> bool {
    if !spans_overlap(view.byte_span(), out_span) {
        return false;
    }
    let same = view.addr + view.offset * view.dtype.size()
        == out.addr + out.offset * out.dtype.size()
        && view.dtype == out.dtype
        && view.shape == out.shape
        && view
            .shape
            .iter()
            .zip(view.strides.iter().zip(&out.strides))
            .all(|(&d, (a, b))| d <= 1 || a == b);
    !same
}

/// Plans `spec`. Checks what is common to every element-wise output: no internally
/// overlapping output elements, and inputs that broadcast to the output's shape.
fn plan(spec: Spec) -> Result<Plan> {
    let (narrow_via, narrow_kernel) = narrowed(&spec).unzip();
    let kernel_in: SmallVec<[Via; MAX_OPERANDS]> = match narrow_via {
        Some(v) => smallvec::smallvec![v; spec.inputs.len()],
        None => spec.kernel_in.iter().copied().collect(),
    };
    let kernel_out = narrow_via.unwrap_or(spec.kernel_out);
    let out = spec.out;
    out.check_output(spec.out_name)?;
    crate::ensure!(
        out.rank() <= MAX_RANK,
        "output '{}' has {} dims; at most {MAX_RANK} are supported",
        spec.out_name,
        out.rank()
    );
    let shape = &out.shape[..];
    let total = out.numel();

    // Operands with their strides over the full output shape.
    let out_span = out.byte_span();
    let mut copies = Vec::new();
    let mut copies_bytes = 0usize;
    let mut full: SmallVec<[(Base, DType, Via, Strides); MAX_OPERANDS]> = SmallVec::new();
    for (i, input) in spec.inputs.iter().enumerate() {
        let kd = kernel_in[i];
        match input {
            Input::Scalar(s) => {
                let v = s.cast(kd.value).cast(kd.kernel);
                full.push((
                    Base::Const(v),
                    kd.kernel,
                    Via::exact(kd.kernel),
                    smallvec::smallvec![0; shape.len()],
                ))
            }
            Input::Tensor {
                name,
                binding,
                view,
            } => {
                crate::ensure!(
                    crate::broadcast::broadcasts_to(&view.shape, &shape),
                    "input '{name}' of shape {:?} does not broadcast to the output shape {shape:?}",
                    view.shape
                );
                if total > 0 && needs_copy(view, out, out_span) {
                    let bytes = view.numel() * view.dtype.size();
                    copies.push(Copy {
                        binding: *binding,
                        ws_offset: copies_bytes,
                    });
                    let strides =
                        broadcast_strides(&shape, &view.shape, &contiguous_strides(&view.shape));
                    full.push((Base::Copy(copies.len() - 1), view.dtype, kd, strides));
                    copies_bytes += align_up(bytes);
                } else {
                    let byte_offset = view.offset * view.dtype.size();
                    let strides = broadcast_strides(&shape, &view.shape, &view.strides);
                    full.push((
                        Base::Tensor {
                            binding: *binding,
                            byte_offset,
                        },
                        view.dtype,
                        kd,
                        strides,
                    ));
                }
            }
        }
    }
    full.push((
        Base::Tensor {
            binding: spec.out_binding,
            byte_offset: out.offset * out.dtype.size(),
        },
        out.dtype,
        kernel_out,
        out.strides.clone(),
    ));

    // Axes: drop size 1, order by the output's stride (largest outermost), merge.
    let mut axes: Dims = (0..shape.len()).filter(|&j| shape[j] != 1).collect();
    let out_strides = &out.strides[..];
    axes.sort_by_key(|&j| std::cmp::Reverse(out_strides[j]));
    let mut dims = Dims::new();
    let mut strides: SmallVec<[Strides; MAX_OPERANDS]> =
        smallvec::smallvec![Strides::new(); full.len()];
    for &j in &axes {
        let mergeable = !dims.is_empty()
            && full
                .iter()
                .enumerate()
                .all(|(k, f)| strides[k][dims.len() - 1] == f.3[j] * shape[j] as isize);
        if mergeable {
            let last = dims.len() - 1;
            dims[last] *= shape[j];
            for (k, f) in full.iter().enumerate() {
                strides[k][last] = f.3[j];
            }
        } else {
            dims.push(shape[j]);
            for (k, f) in full.iter().enumerate() {
                strides[k].push(f.3[j]);
            }
        }
    }
    if dims.is_empty() {
        // One element: its stride is irrelevant; 1 lets every operand be read directly.
        dims.push(1);
        for s in &mut strides {
            s.push(1);
        }
    }
    let rank = dims.len();
    let inner = dims[rank - 1];
    let flat = inner < SHORT_ROW && total > inner;

    let threads = pool().current_num_threads();
    let tasks = if total == 0 {
        0
    } else {
        total.div_ceil(GRAIN).clamp(1, threads)
    };

    // Per operand: direct or buffered, and its buffer inside a task's region.
    let n_ops = full.len();
    let mut task_bytes = 0usize;
    let mut stream_out = false;
    let input_bytes: usize = spec
        .inputs
        .iter()
        .map(|i| match i {
            Input::Tensor { view, .. } => view.numel() * view.dtype.size(),
            Input::Scalar(_) => 0,
        })
        .sum();
    let mut ops: SmallVec<[Operand; MAX_OPERANDS]> = SmallVec::new();
    for (k, (base, dtype, via, _)) in full.into_iter().enumerate() {
        let is_out = k == n_ops - 1;
        let kdtype = via.kernel;
        let two_step = via.two_step(dtype);
        let mut st = [0isize; MAX_RANK];
        st[..rank].copy_from_slice(&strides[k]);
        let uniform = !is_out && st[..rank].iter().all(|&s| s == 0);
        let inner_stride = st[rank - 1];
        let mut direct = !flat
            && !two_step
            && dtype == kdtype
            && !matches!(base, Base::Const(_))
            && (inner_stride == 1 || (!is_out && inner_stride == 0));
        let out_bytes = total * dtype.size();
        if is_out && direct && out_bytes >= STREAM_MIN_BYTES && input_bytes <= out_bytes / 4 {
            // Computed into the chunk buffer, then streamed out (see `scatter`).
            direct = false;
            stream_out = true;
        }
        let needs_buf = !matches!(base, Base::Const(_)) && (uniform || !direct);
        let buf = task_bytes;
        if needs_buf {
            task_bytes += align_up(CHUNK * kdtype.size());
        }
        let via_buf = task_bytes;
        if needs_buf && two_step {
            task_bytes += align_up(CHUNK * via.value.size());
        }
        ops.push(Operand {
            base,
            dtype,
            kdtype,
            via: two_step.then_some(via.value),
            strides: st,
            uniform,
            direct: direct && !uniform,
            buf,
            via_buf,
            tile_buf: None,
        });
    }
    let mut shape_arr = [1usize; MAX_RANK];
    shape_arr[..rank].copy_from_slice(&dims);
    // An input that steps far along the rows but little across them: traverse in tiles.
    let across_rows = |op: &Operand| {
        !op.uniform
            && !matches!(op.base, Base::Const(_))
            && op.strides[rank - 1].unsigned_abs() >= 16
            && op.strides[rank - 2].unsigned_abs() < op.strides[rank - 1].unsigned_abs()
    };
    let tiled = !flat && rank >= 2 && ops[..n_ops - 1].iter().any(across_rows);
    if tiled {
        for op in ops[..n_ops - 1].iter_mut() {
            if across_rows(op) {
                op.tile_buf = Some(task_bytes);
                task_bytes += align_up(TILE_ROWS * TILE_PITCH * op.kdtype.size());
            }
        }
    }
    // A copy whose input is read along rows (not tiled): each row segment is moved straight
    // from the input view to the output view by one strided conversion (`convert::run`:
    // a memcpy for unit strides, a vector gather for a small input stride), instead of a
    // gather into a chunk buffer, the kernel's copy and a scatter (and, for rows shorter than
    // SHORT_ROW, a buffered chunk per few rows). A broadcast fill (a uniform input) and a
    // non-temporal output keep the kernel's path.
    let moves = spec.kernel.moves
        && narrow_kernel.is_none()
        && n_ops == 2
        && !tiled
        && !stream_out
        && ops
            .iter()
            .all(|op| op.via.is_none() && !matches!(op.base, Base::Const(_)))
        && !ops[0].uniform
        && ops[0].kdtype == ops[1].kdtype
        && ops[1].kdtype == ops[1].dtype;
    if moves {
        // Nothing goes through a task's buffers.
        task_bytes = 0;
    }
    let move_tile = if moves && rank >= 3 {
        let st = &ops[0].strides;
        let row_bytes = shape_arr[rank - 1] * ops[0].dtype.size();
        (0..rank - 2)
            .filter(|&a| st[a] != 0)
            .min_by_key(|&a| st[a].unsigned_abs())
            .filter(|&a| {
                row_bytes <= MOVE_TILE_BYTES / 2
                    && st[a].unsigned_abs() < st[rank - 2].unsigned_abs()
            })
            .map(|axis| {
                let rows = (MOVE_TILE_BYTES / row_bytes).min(shape_arr[rank - 2]);
                let across = (MOVE_TILE_BYTES / row_bytes).min(shape_arr[axis]);
                let outer: usize = (0..rank - 2)
                    .filter(|&a| a != axis)
                    .map(|a| shape_arr[a])
                    .product();
                MoveTile {
                    axis,
                    rows,
                    across,
                    count: outer
                        * shape_arr[rank - 2].div_ceil(rows)
                        * shape_arr[axis].div_ceil(across),
                }
            })
    } else {
        None
    };
    let tasks = match move_tile {
        Some(t) => tasks.min(t.count),
        None => tasks,
    };
    let needed = copies_bytes + tasks * task_bytes;
    let workspace = if needed == 0 {
        0
    } else {
        (needed + ALIGN) as u64
    };
    let single_run = tasks == 1
        && !moves
        && copies.is_empty()
        && rank == 1
        && !flat
        && !tiled
        && !stream_out
        && ops
            .iter()
            .all(|op: &Operand| op.direct || matches!(op.base, Base::Const(_)));
    Ok(Plan {
        api: spec.api,
        shape: shape_arr,
        rank,
        total,
        ops,
        copies,
        flat,
        tiled,
        moves,
        move_tile,
        stream_out,
        tasks,
        task_bytes,
        copies_bytes,
        workspace,
        kernel: narrow_kernel.unwrap_or(spec.kernel.main),
        single_run,
        params: spec.params,
        out_binding: spec.out_binding,
        planned_addrs: spec
            .inputs
            .iter()
            .filter_map(|i| match i {
                Input::Tensor { binding, view, .. } => Some((*binding, view.addr)),
                Input::Scalar(_) => None,
            })
            .chain([(spec.out_binding, out.addr)])
            .collect(),
    })
}

/// The f16 or bf16 kernel of `spec` and the dtype it reads and writes, when the operator
/// has one and every tensor operand is stored in the dtype it computes in (f16 or bf16,
/// through f32): the kernel then reads and writes the operands' memory directly.
fn narrowed(spec: &Spec) -> Option<(Via, KernelFn)> {
    let narrow = spec.kernel.narrow?;
    let via = spec.kernel_out;
    let kernel = match via.value {
        DType::F16 => narrow.f16,
        DType::BF16 => narrow.bf16,
        _ => return None,
    };
    let stored = |v: &TensorDesc| v.dtype == via.value;
    let fits = via.kernel == DType::F32
        && stored(spec.out)
        && spec.kernel_in.iter().all(|k| *k == via)
        && spec.inputs.iter().all(|i| match i {
            Input::Tensor { view, .. } => stored(view),
            Input::Scalar(_) => true,
        });
    fits.then_some((Via::exact(via.value), kernel))
}

/// What a plan was made from: everything `plan` reads (the names it reads only for error
/// messages aside), so an equal spec gets an equal plan. The views are the executor's
/// bindings, in binding order (`views[b]` is the tensor bound at `b`).
struct PlanKey {
    api: &'static str,
    kernel: Kernels,
    params: Params,
    kernel_in: SmallVec<[Via; MAX_OPERANDS]>,
    kernel_out: Via,
    out_binding: usize,
    views: Views,
    /// Per input: its binding, or the scalar.
    inputs: SmallVec<[Result<usize, Scalar>; MAX_OPERANDS]>,
}

impl PlanKey {
    fn of(spec: &Spec, views: Views) -> PlanKey {
        PlanKey {
            api: spec.api,
            kernel: spec.kernel,
            params: spec.params.clone(),
            kernel_in: spec.kernel_in.iter().copied().collect(),
            kernel_out: spec.kernel_out,
            out_binding: spec.out_binding,
            views,
            inputs: spec
                .inputs
                .iter()
                .map(|i| match i {
                    Input::Tensor { binding, .. } => Ok(*binding),
                    Input::Scalar(s) => Err(*s),
                })
                .collect(),
        }
    }

    fn matches(&self, spec: &Spec) -> bool {
        let bound = |b: usize, view: &TensorDesc| {
            self.views.get(b).is_some_and(|v| v.as_ref() == Some(view))
        };
        self.kernel == spec.kernel
            && self.api == spec.api
            && self.out_binding == spec.out_binding
            && self.kernel_out == spec.kernel_out
            && self.kernel_in[..] == spec.kernel_in[..]
            && self.params == spec.params
            && self.inputs.len() == spec.inputs.len()
            && self
                .inputs
                .iter()
                .zip(spec.inputs)
                .all(|(k, i)| match (k, i) {
                    (Ok(b), Input::Tensor { binding, view, .. }) => b == binding && bound(*b, view),
                    (Err(a), Input::Scalar(b)) => a == b,
                    _ => false,
                })
            && bound(spec.out_binding, spec.out)
    }
}

/// Plans each thread keeps (the calls of a model's loop body, say).
const KEPT_PLANS: usize = 8;

/// The plans this thread made last and what from, replaced in turn.
#[derive(Default)]
struct KeptPlans {
    plans: Vec<(PlanKey, Arc<Plan>)>,
    next: usize,
}

thread_local! {
    /// A loop calling operators on the same buffers (the common case) plans each call once.
    /// Executors share a plan (it is immutable) and its views (copied on write).
    static KEPT: std::cell::RefCell<KeptPlans> = std::cell::RefCell::default();
}

/// `plan`, reusing one of this thread's last plans when `spec` is the same as the one it
/// was made from (same views and addresses, dtypes, scalars and kernel). Only successful
/// plans are kept, so errors are always found again. `views` makes the executor's copies of
/// the views in binding order (every binding is an input of `spec` or its output); on a
/// reuse, the copies made with the plan are returned instead.
pub fn plan_shared(spec: Spec, views: impl FnOnce() -> Views) -> Result<(Arc<Plan>, Views)> {
    let hit = KEPT.with(|kept| {
        kept.borrow()
            .plans
            .iter()
            .find(|(key, _)| key.matches(&spec))
            .map(|(key, p)| (p.clone(), key.views.clone()))
    });
    if let Some(found) = hit {
        return Ok(found);
    }
    let views = views();
    let key = PlanKey::of(&spec, views.clone());
    let p = Arc::new(plan(spec)?);
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let entry = (key, p.clone());
        if kept.plans.len() < KEPT_PLANS {
            kept.plans.push(entry);
        } else {
            let i = kept.next;
            kept.plans[i] = entry;
            kept.next = (i + 1) % KEPT_PLANS;
        }
    });
    Ok((p, views))
}

/// Resolved operand addresses for one run.
struct Ctx<'a> {
    plan: &'a Plan,
    bases: [usize; MAX_OPERANDS],
    ws: usize,
    /// The kernel's parameters for this run (the plan's, or a foreach op's read at run time).
    params: &'a Params,
}

impl Plan {
    pub fn workspace_size(&self) -> u64 {
        self.workspace
    }

    /// Calls `f(pos, offsets, len)` for each row segment of linear indices [s, e), where
    /// `offsets[k]` is operand k's element offset at the segment start and `pos` counts
    /// from `s`.
    #[inline]
    fn for_segments(
        &self,
        s: usize,
        e: usize,
        mut f: impl FnMut(usize, &[isize; MAX_OPERANDS], usize),
    ) {
        let rank = self.rank;
        let n_ops = self.ops.len();
        let inner = self.shape[rank - 1];
        let mut idx = [0usize; MAX_RANK];
        let mut rem = s;
        for d in (0..rank).rev() {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut offs = [0isize; MAX_OPERANDS];
        for (k, op) in self.ops.iter().enumerate() {
            offs[k] = (0..rank).map(|d| idx[d] as isize * op.strides[d]).sum();
        }
        let mut cur = s;
        while cur < e {
            let len = (inner - idx[rank - 1]).min(e - cur);
            f(cur - s, &offs, len);
            cur += len;
            idx[rank - 1] += len;
            for k in 0..n_ops {
                offs[k] += len as isize * self.ops[k].strides[rank - 1];
            }
            let mut d = rank - 1;
            while idx[d] == self.shape[d] && d > 0 {
                idx[d] = 0;
                for k in 0..n_ops {
                    offs[k] -= self.shape[d] as isize * self.ops[k].strides[d];
                }
                d -= 1;
                idx[d] += 1;
                for k in 0..n_ops {
                    offs[k] += self.ops[k].strides[d];
                }
            }
        }
    }
}

impl Ctx<'_> {
    fn elem_ptr(&self, k: usize, off: isize) -> *mut u8 {
        let op = &self.plan.ops[k];
        (self.bases[k] as isize + off * op.dtype.size() as isize) as *mut u8
    }

    /// Converts `n` elements of input `k` from memory (`src`, element stride `stride`) into
    /// its kernel buffer at element `pos`, through its `via` dtype when it has one.
    unsafe fn gather(
        &self,
        k: usize,
        region: usize,
        src: *const u8,
        stride: isize,
        pos: usize,
        n: usize,
    ) {
        let op = &self.plan.ops[k];
        let dst = (region + op.buf + pos * op.kdtype.size()) as *mut u8;
        // SAFETY: `src` runs within the operand's view; buffers hold CHUNK elements.
        unsafe { self.gather_to(k, region, src, stride, dst, 1, pos, n) }
    }

    /// Converts `n` elements of input `k` from `src` (element stride `stride`) to `dst`
    /// (kernel dtype, element stride `dst_stride`), through element `pos` of its `via`
    /// buffer when it has one.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gather_to(
        &self,
        k: usize,
        region: usize,
        src: *const u8,
        stride: isize,
        dst: *mut u8,
        dst_stride: isize,
        pos: usize,
        n: usize,
    ) {
        let op = &self.plan.ops[k];
        // SAFETY: forwarded from the caller; the via buffer holds CHUNK elements.
        unsafe {
            match op.via {
                None => convert::run(src, op.dtype, stride, dst, op.kdtype, dst_stride, n),
                Some(v) => {
                    let mid = (region + op.via_buf + pos * v.size()) as *mut u8;
                    convert::run(src, op.dtype, stride, mid, v, 1, n);
                    convert::run(mid, v, 1, dst, op.kdtype, dst_stride, n);
                }
            }
        }
    }

    /// Converts `n` results at element `pos` of the output's kernel buffer into memory.
    unsafe fn scatter(&self, region: usize, pos: usize, dst: *mut u8, stride: isize, n: usize) {
        let op = self.plan.ops.last().expect("an output");
        let src = (region + op.buf + pos * op.kdtype.size()) as *const u8;
        // SAFETY: `dst` runs within the output view; buffers hold CHUNK elements.
        unsafe {
            match op.via {
                None if self.plan.stream_out && stride == 1 => {
                    convert::stream_copy(src, dst, n * op.dtype.size())
                }
                None => convert::run(src, op.kdtype, 1, dst, op.dtype, stride, n),
                Some(v) => {
                    let mid = (region + op.via_buf + pos * v.size()) as *mut u8;
                    convert::run(src, op.kdtype, 1, mid, v, 1, n);
                    convert::run(mid, v, 1, dst, op.dtype, stride, n);
                }
            }
        }
    }

    /// Moves the `len` elements of the row segment at `offs` from the input to the output.
    ///
    /// # Safety
    /// The segment lies within both views, which do not overlap unless identical (an
    /// overlapping input was copied to the workspace first).
    #[inline(always)]
    unsafe fn move_segment(&self, offs: [isize; 2], len: usize) {
        let (src, dst) = (&self.plan.ops[0], &self.plan.ops[1]);
        let inner = self.plan.rank - 1;
        let (from, to) = (self.elem_ptr(0, offs[0]), self.elem_ptr(1, offs[1]));
        let (ss, ds) = (src.strides[inner], dst.strides[inner]);
        // SAFETY: the caller's.
        unsafe {
            if ss == 1 && ds == 1 && src.dtype == dst.dtype {
                // A short run is a call of its own per segment: skip the dtype dispatch.
                std::ptr::copy(from, to, len * src.dtype.size());
            } else {
                convert::run(from, src.dtype, ss, to, dst.dtype, ds, len);
            }
        }
    }

    /// The moved copy of linear indices [s, e) (or of tiles [s, e) when `move_tile`).
    ///
    /// # Safety
    /// As `run_range`.
    unsafe fn move_range(&self, s: usize, e: usize) {
        let plan = self.plan;
        let (src, dst) = (&plan.ops[0], &plan.ops[1]);
        let rank = plan.rank;
        if let Some(t) = &plan.move_tile {
            let (rows, inner) = (rank - 2, rank - 1);
            let (n_rows, n_across) = (plan.shape[rows], plan.shape[t.axis]);
            let blocks = (n_rows.div_ceil(t.rows), n_across.div_ceil(t.across));
            for tile in s..e {
                let mut rem = tile;
                let jb = rem % blocks.1;
                rem /= blocks.1;
                let bb = rem % blocks.0;
                rem /= blocks.0;
                let mut base = [0isize; 2];
                for a in (0..rows).rev().filter(|&a| a != t.axis) {
                    let i = (rem % plan.shape[a]) as isize;
                    rem /= plan.shape[a];
                    base[0] += i * src.strides[a];
                    base[1] += i * dst.strides[a];
                }
                for b in bb * t.rows..((bb + 1) * t.rows).min(n_rows) {
                    let b = b as isize;
                    for c in jb * t.across..((jb + 1) * t.across).min(n_across) {
                        let c = c as isize;
                        let offs = [
                            base[0] + b * src.strides[rows] + c * src.strides[t.axis],
                            base[1] + b * dst.strides[rows] + c * dst.strides[t.axis],
                        ];
                        // SAFETY: the segment is one of the output's rows.
                        unsafe { self.move_segment(offs, plan.shape[inner]) };
                    }
                }
            }
            return;
        }
        let ahead = if rank >= 2 {
            MOVE_PREFETCH * src.strides[rank - 2]
        } else {
            0
        };
        let seg_bytes = plan.shape[rank - 1] * src.dtype.size();
        let prefetching = rank >= 2 && seg_bytes <= MOVE_PREFETCH_MAX && src.strides[rank - 1] == 1;
        plan.for_segments(s, e, |_, offs, len| {
            // Short rows spread over the input each start where no hardware prefetcher
            // looks: ask for the one MOVE_PREFETCH rows ahead (where the next rows start
            // unless an outer index carries).
            if prefetching {
                prefetch(self.elem_ptr(0, offs[0] + ahead) as usize, seg_bytes);
            }
            // SAFETY: the segment lies within both views.
            unsafe { self.move_segment([offs[0], offs[1]], len) };
        });
    }

    /// Runs linear indices [s, e) (tiles [s, e) of a moved copy with `move_tile`) using task
    /// region `region`.
    unsafe fn run_range(&self, s: usize, e: usize, region: usize) {
        let plan = self.plan;
        let n_in = plan.ops.len() - 1;
        let out_k = n_in;
        let out = &plan.ops[out_k];
        let is_const = |op: &Operand| matches!(op.base, Base::Const(_));
        let mut srcs = [Src::Scalar(std::ptr::null()); MAX_OPERANDS - 1];
        // Constants and uniform inputs: one value for the whole task.
        for (k, op) in plan.ops[..n_in].iter().enumerate() {
            if is_const(op) {
                srcs[k] = Src::Scalar(self.bases[k] as *const u8);
            } else if op.uniform {
                // SAFETY: the operand's first element is valid.
                unsafe { self.gather(k, region, self.bases[k] as *const u8, 0, 0, 1) };
                srcs[k] = Src::Scalar((region + op.buf) as *const u8);
            }
        }
        let inner = plan.rank - 1;
        if plan.moves {
            // SAFETY: forwarded from the caller.
            unsafe { self.move_range(s, e) };
            return;
        }
        let kernel = plan.kernel;
        let params = self.params;
        let streamed = |op: &Operand| !op.uniform && !is_const(op);
        if plan.flat {
            // Short rows: chunks span rows; every streamed operand goes through its buffer.
            for (k, op) in plan.ops[..n_in].iter().enumerate() {
                if streamed(op) {
                    srcs[k] = Src::Slice((region + op.buf) as *const u8);
                }
            }
            let mut c = s;
            while c < e {
                let n = CHUNK.min(e - c);
                plan.for_segments(c, c + n, |pos, offs, len| {
                    for (k, op) in plan.ops[..n_in].iter().enumerate() {
                        if streamed(op) {
                            // SAFETY: the segment lies within the operand's view.
                            unsafe {
                                self.gather(
                                    k,
                                    region,
                                    self.elem_ptr(k, offs[k]),
                                    op.strides[inner],
                                    pos,
                                    len,
                                )
                            };
                        }
                    }
                });
                // SAFETY: buffers hold n elements of the kernel dtypes.
                unsafe { kernel(n, &srcs[..n_in], (region + out.buf) as *mut u8, params) };
                plan.for_segments(c, c + n, |pos, offs, len| {
                    // SAFETY: the segment lies within the output view.
                    unsafe {
                        self.scatter(
                            region,
                            pos,
                            self.elem_ptr(out_k, offs[out_k]),
                            out.strides[inner],
                            len,
                        )
                    };
                });
                c += n;
            }
            return;
        }
        let all_direct = plan.ops.iter().all(|op| op.direct || !streamed(op));
        // Elements [from, to) of the row segment at `offs`; `tile` = (row r of the current
        // tile, its first column, the row step of each operand gathered into its tile buffer).
        let mut part =
            |offs: &[isize; MAX_OPERANDS],
             from: usize,
             to: usize,
             tile: Option<(usize, usize, &[Option<isize>; MAX_OPERANDS])>| {
                let step = if all_direct { to - from } else { CHUNK };
                let mut p = from;
                while p < to {
                    let n = step.min(to - p);
                    for (k, op) in plan.ops[..n_in].iter().enumerate() {
                        if !streamed(op) {
                            continue;
                        }
                        if let (Some((r, col0, gathered)), Some(tb)) = (tile, op.tile_buf) {
                            if gathered[k].is_some() {
                                let at = (r * TILE_PITCH + p - col0) * op.kdtype.size();
                                srcs[k] = Src::Slice((region + tb + at) as *const u8);
                                continue;
                            }
                        }
                        let ptr = self.elem_ptr(k, offs[k] + p as isize * op.strides[inner]);
                        srcs[k] = match (op.direct, op.strides[inner]) {
                            (true, 0) => Src::Scalar(ptr),
                            (true, _) => Src::Slice(ptr),
                            (false, stride) => {
                                if stride == 1 {
                                    let size = op.dtype.size();
                                    prefetch(ptr as usize + n * size, CHUNK * size);
                                }
                                // SAFETY: the run lies within the operand's view.
                                unsafe { self.gather(k, region, ptr, stride, 0, n) };
                                Src::Slice((region + op.buf) as *const u8)
                            }
                        };
                    }
                    let at = self.elem_ptr(out_k, offs[out_k] + p as isize * out.strides[inner]);
                    // SAFETY: n elements in each buffer; the run lies within the output view.
                    unsafe {
                        if out.direct {
                            kernel(n, &srcs[..n_in], at, params);
                        } else {
                            kernel(n, &srcs[..n_in], (region + out.buf) as *mut u8, params);
                            self.scatter(region, 0, at, out.strides[inner], n);
                        }
                    }
                    p += n;
                }
            };
        if !plan.tiled {
            plan.for_segments(s, e, |_, offs, seg| part(offs, 0, seg, None));
            return;
        }
        // Tiled: an input read across rows (a transposed view) touches a new cache line and
        // page per element of a row; taking TILE_ROWS rows a column block at a time uses
        // each of its lines for all the rows it holds.
        let mut rows = [([0isize; MAX_OPERANDS], 0usize); TILE_ROWS];
        let mut n_rows = 0;
        // An input read across rows is moreover gathered a tile at a time in the order of
        // its own memory (down the tile's rows, then across), into a tile buffer the rows then
        // read contiguously: each of its cache lines is read once, whole, instead of one
        // element per line per row (at a large power-of-two row pitch every such line falls
        // in the same cache set, so lines were evicted before their next element was used).
        // That needs the tile's rows evenly spaced in the input, which holds except where a
        // tile starts or ends part-way through a row.
        let mut flush = |rows: &[([isize; MAX_OPERANDS], usize)]| {
            let widest = rows.iter().map(|r| r.1).max().unwrap_or(0);
            // The row step of each operand gathered into its tile buffer for these rows.
            let mut gathered = [None; MAX_OPERANDS];
            if rows.len() > 1 && rows.iter().all(|r| r.1 == widest) {
                for (k, op) in plan.ops[..n_in].iter().enumerate() {
                    let step = rows[1].0[k] - rows[0].0[k];
                    let even = rows
                        .iter()
                        .enumerate()
                        .all(|(r, row)| row.0[k] == rows[0].0[k] + r as isize * step);
                    gathered[k] = (op.tile_buf.is_some() && even).then_some(step);
                }
            }
            let mut from = 0;
            while from < widest {
                let to = (from + TILE_COLS).min(widest);
                for (k, op) in plan.ops[..n_in].iter().enumerate() {
                    let (Some(tb), Some(step)) = (op.tile_buf, gathered[k]) else {
                        continue;
                    };
                    let size = op.kdtype.size();
                    let run_bytes = (rows.len() - 1) * step.unsigned_abs() * op.dtype.size();
                    let stride = op.strides[inner] * op.dtype.size() as isize;
                    // Unconverted 4-byte elements, each column's run contiguous (a transposed
                    // f32/i32 view): eight columns at a time, transposed in registers.
                    let mut c = from;
                    if op.via.is_none() && op.dtype == op.kdtype && size == 4 && step == 1 {
                        while c + 8 <= to {
                            let src =
                                self.elem_ptr(k, rows[0].0[k] + c as isize * op.strides[inner]);
                            for j in 8..16 {
                                prefetch((src as isize + j * stride) as usize, run_bytes + size);
                            }
                            let dst = (region + tb + (c - from) * size) as *mut u8;
                            // SAFETY: columns c..c+8 of the tile's rows lie within the operand's
                            // view; the tile buffer holds TILE_ROWS rows of TILE_PITCH elements.
                            unsafe {
                                convert::transpose8x4(
                                    src,
                                    stride,
                                    rows.len(),
                                    dst,
                                    TILE_PITCH * size,
                                )
                            };
                            c += 8;
                        }
                    }
                    for c in c..to {
                        let src = self.elem_ptr(k, rows[0].0[k] + c as isize * op.strides[inner]);
                        // Each column's run is in its own part of memory (its own page, for a
                        // transpose), which no hardware prefetcher predicts: ask for the run
                        // a few columns ahead.
                        if step > 0 && run_bytes <= 256 {
                            let ahead = src as isize
                                + TILE_PREFETCH * op.strides[inner] * op.dtype.size() as isize;
                            prefetch(ahead as usize, run_bytes + op.dtype.size());
                        }
                        let dst = (region + tb + (c - from) * size) as *mut u8;
                        // SAFETY: column c of the tile's rows lies within the operand's view;
                        // the tile buffer holds TILE_ROWS rows of TILE_PITCH elements.
                        unsafe {
                            self.gather_to(
                                k,
                                region,
                                src,
                                step,
                                dst,
                                TILE_PITCH as isize,
                                0,
                                rows.len(),
                            )
                        };
                    }
                }
                for (r, (offs, len)) in rows.iter().enumerate() {
                    if from < *len {
                        part(offs, from, to.min(*len), Some((r, from, &gathered)));
                    }
                }
                from = to;
            }
        };
        plan.for_segments(s, e, |_, offs, seg| {
            rows[n_rows] = (*offs, seg);
            n_rows += 1;
            if n_rows == TILE_ROWS {
                flush(&rows);
                n_rows = 0;
            }
        });
        flush(&rows[..n_rows]);
    }
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }

    fn describe(&self) -> String {
        format!(
            "elementwise: merged shape {:?}, {} operands, {}{}{}{}{} task(s), {} staging copies",
            &self.shape[..self.rank],
            self.ops.len(),
            if self.flat {
                "short rows gathered across rows, "
            } else {
                ""
            },
            if self.tiled { "tiled rows, " } else { "" },
            match (self.moves, self.move_tile) {
                (true, Some(_)) => "moved view to view in tiles, ",
                (true, None) => "moved view to view, ",
                _ => "",
            },
            if self.stream_out {
                "non-temporal output, "
            } else {
                ""
            },
            self.tasks,
            self.copies.len()
        )
    }

    /// Inputs that overlap the output now (new addresses) but were not planned as copies: refuse.
    fn check(&self, t: &Bindings) -> Result<()> {
        let moved = |&(b, addr): &(usize, usize)| t.view(b).map_or(true, |v| v.addr != addr);
        if !self.planned_addrs.iter().any(moved) {
            return Ok(());
        }
        let out_view = t.view(self.out_binding)?;
        let out_span = out_view.byte_span();
        for op in &self.ops[..self.ops.len() - 1] {
            if let Base::Tensor { binding, .. } = op.base {
                if needs_copy(t.view(binding)?, out_view, out_span) {
                    return Err(Error::Invalid(format!(
                        "{}: an input now overlaps the output, which it did not when the executor was planned; plan again",
                        self.api
                    )));
                }
            }
        }
        Ok(())
    }

    fn small(&self) -> bool {
        self.tasks <= 1 && self.total <= SMALL_WORK
    }

    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        self.run_with_params(t, ws, &self.params)
    }
}

impl Plan {
    /// `run` with the kernel's parameters replaced by `params` (of the same shape and dtypes
    /// as the planned ones): the foreach operators' scalars that live in device memory
    /// (an alpha tensor) are read when the work runs, not when it is planned.
    pub fn run_with_params(&self, t: &Bindings, ws: Workspace, params: &Params) -> Result<()> {
        if self.total == 0 {
            return Ok(());
        }
        let ws_base = if self.workspace > 0 {
            (ws.addr).div_ceil(ALIGN) * ALIGN
        } else {
            0
        };
        // Bases for this run (addresses can change between runs of a repeatable executor).
        let mut bases = [0usize; MAX_OPERANDS];
        for (k, op) in self.ops.iter().enumerate() {
            bases[k] = match &op.base {
                Base::Tensor {
                    binding,
                    byte_offset,
                } => t.addr(*binding)? + byte_offset,
                Base::Const(s) => s.bytes().as_ptr() as usize,
                Base::Copy(i) => ws_base + self.copies[*i].ws_offset,
            };
        }
        // Phase 2 ran `check` on these bindings before queuing the run.
        for c in &self.copies {
            let mut v = t.view(c.binding)?.clone();
            v.addr = t.addr(c.binding)?;
            copy_view(&v, ws_base + c.ws_offset);
        }
        if self.single_run {
            // One contiguous run read and written in place: the kernel, once.
            let n_in = self.ops.len() - 1;
            let mut srcs = [Src::Scalar(std::ptr::null()); MAX_OPERANDS - 1];
            for (k, op) in self.ops[..n_in].iter().enumerate() {
                let p = bases[k] as *const u8;
                // Read in place with stride 1 (`direct` at rank 1), or a constant.
                srcs[k] = if op.direct {
                    Src::Slice(p)
                } else {
                    Src::Scalar(p)
                };
            }
            // SAFETY: every operand was validated for `total` elements along its stride.
            unsafe { (self.kernel)(self.total, &srcs[..n_in], bases[n_in] as *mut u8, params) };
            return Ok(());
        }
        let ctx = Ctx {
            plan: self,
            bases,
            ws: ws_base + self.copies_bytes,
            params,
        };
        // What the tasks split: the output's elements, or a moved copy's tiles.
        let units = self.move_tile.map_or(self.total, |t| t.count);
        let range = |i: usize| (units * i / self.tasks, units * (i + 1) / self.tasks);
        if self.tasks == 1 {
            // SAFETY: operands validated in phase 1, addresses in phase 2; region 0 is ours.
            unsafe { ctx.run_range(0, units, ctx.ws) };
            if self.stream_out {
                convert::store_fence();
            }
        } else {
            run_tasks(self.tasks, |i| {
                let (s, e) = range(i);
                // SAFETY: tasks cover disjoint output elements and use disjoint regions.
                unsafe { ctx.run_range(s, e, ctx.ws + i * self.task_bytes) };
                // Non-temporal stores are ordered by a fence of the storing thread,
                // before the task reports completion.
                if self.stream_out {
                    convert::store_fence();
                }
            });
        }
        Ok(())
    }
}

// SAFETY: the context only carries addresses; tasks touch disjoint output elements.
unsafe impl Sync for Ctx<'_> {}

/// Copies the elements of `view` (addr set) contiguously to `dst`, in its own dtype.
fn copy_view(view: &TensorDesc, dst: usize) {
    let rank = view.rank();
    if view.numel() == 0 {
        return;
    }
    let size = view.dtype.size();
    let inner = if rank == 0 { 1 } else { view.shape[rank - 1] };
    let inner_stride = if rank == 0 { 0 } else { view.strides[rank - 1] };
    let rows = view.numel() / inner;
    for r in 0..rows {
        let mut rem = r;
        let mut off = view.offset as isize;
        for d in (0..rank.saturating_sub(1)).rev() {
            off += (rem % view.shape[d]) as isize * view.strides[d];
            rem /= view.shape[d];
        }
        // SAFETY: the view lies inside its storage (checked at creation) and dst holds numel elements.
        unsafe {
            convert::run(
                (view.addr as isize + off * size as isize) as *const u8,
                view.dtype,
                inner_stride,
                (dst + r * inner * size) as *mut u8,
                view.dtype,
                1,
                inner,
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An operator's f16/bf16 kernels are used exactly when every tensor operand is stored
    /// in the dtype it computes in, through f32; otherwise its kernel runs on buffers.
    #[test]
    fn narrow_kernels_only_when_every_operand_is_stored_in_the_computation_dtype() {
        let (main, f16k, bf16k): (KernelFn, KernelFn, KernelFn) =
            (dummy::<0>, dummy::<1>, dummy::<2>);
        let narrow = Narrow {
            f16: f16k,
            bf16: bf16k,
        };
        let view = |d: DType| {
            TensorDesc::new(&[4], d as i32, None, 0, 2, &[4], 0x1000).expect("a valid view")
        };
        let pick = |a: DType, b: Option<DType>, out: DType, via: Via, narrow: Option<Narrow>| {
            let (va, vb, vo) = (view(a), view(b.unwrap_or(a)), view(out));
            let inputs = [
                Input::Tensor {
                    name: "self",
                    binding: 0,
                    view: &va,
                },
                match b {
                    Some(_) => Input::Tensor {
                        name: "other",
                        binding: 1,
                        view: &vb,
                    },
                    None => Input::Scalar(Scalar::from_value(2.0f32)),
                },
            ];
            let spec = Spec {
                api: "test",
                inputs: &inputs,
                kernel_in: &[via, via],
                out_name: "out",
                out_binding: 2,
                out: &vo,
                kernel_out: via,
                kernel: Kernels {
                    main,
                    narrow,
                    moves: false,
                },
                params: Params::default(),
            };
            narrowed(&spec).map(|(v, k)| (v, k as usize))
        };
        use DType::{BF16, F16, F32};
        let n = Some(narrow);
        let f16 = Some((Via::exact(F16), f16k as usize));
        let bf16 = Some((Via::exact(BF16), bf16k as usize));
        assert_eq!(pick(F16, Some(F16), F16, Via::of(F16), n), f16);
        assert_eq!(pick(BF16, Some(BF16), BF16, Via::of(BF16), n), bf16);
        assert_eq!(
            pick(F16, None, F16, Via::of(F16), n),
            f16,
            "a scalar operand"
        );
        assert_eq!(
            pick(F16, Some(F16), F16, Via::of(F16), None),
            None,
            "no such kernels"
        );
        assert_eq!(
            pick(F16, Some(F16), F32, Via::of(F16), n),
            None,
            "out is f32"
        );
        assert_eq!(
            pick(F16, Some(F32), F16, Via::of(F16), n),
            None,
            "an f32 input"
        );
        assert_eq!(
            pick(BF16, Some(F16), F16, Via::of(F16), n),
            None,
            "a bf16 input"
        );
        assert_eq!(
            pick(F32, Some(F32), F32, Via::of(F32), n),
            None,
            "computing in f32"
        );
        assert_eq!(
            pick(F16, Some(F16), F16, Via::exact(F16), n),
            None,
            "no f32 kernel"
        );
    }

    /// Distinct kernels (distinct bodies, so not merged into one address); never run.
    unsafe fn dummy<const K: u8>(_: usize, _: &[Src], out: *mut u8, _: &Params) {
        // SAFETY: never called.
        unsafe { out.write(K) }
    }
}
