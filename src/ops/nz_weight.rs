//! TransMatmulWeight and CalculateMatmulWeightSize(V2) (aclnn_trans_matmul_weight.h): a
//! matmul weight rewritten in place into ACL_FORMAT_FRACTAL_NZ, the layout `format::Nz`
//! defines and the matmul reads (`matmul.rs` gather_nz), and the element count that layout
//! needs. The conversion is a byte permutation plus zero padding: exact for every dtype.
//!
//! The weight's last two dims are the stored matrix (rows = dim -2, cols = dim -1: ggml
//! passes its (N, K) weight so), leading dims are a batch of consecutive NZ blocks. After
//! the call the memory from the view's first element holds those blocks; a FRACTAL_NZ
//! tensor over it — (N, K), or the transposed (K, N) view a matmul takes as mat2 — reads
//! the same matrix back.

use super::catalog::Entry;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::format::{Format, Nz};
use crate::tensor::{contiguous_strides, Dims, TensorDesc};

use DType::*;
/// Atlas A2 (op_api's support list for ASCEND910B; the doc lists F16, BF16, INT8, and the
/// device also takes UINT8; its FLOAT8_E4M3FN/HIFLOAT8 are dtypes this library lacks).
const WEIGHT: &[DType] = &[F16, BF16, S8, U8];

/// Ranks the NZ conversion and the size functions take (op_api: 2-6 on Atlas A2).
const RANKS: std::ops::RangeInclusive<usize> = 2..=6;

/// aclnnTransMatmulWeight: `mmWeightRef` (ND) rewritten in place as FRACTAL_NZ. An empty
/// tensor is left as it is (the device returns success with no work for it, before its
/// rank check). The workspace holds the ND matrix, read whole before the blocks are written.
pub fn trans_matmul_weight(weight: &TensorDesc) -> Result<Executor> {
    const API: &str = "aclnnTransMatmulWeight";
    crate::ensure!(
        WEIGHT.contains(&weight.dtype),
        "tensor 'mmWeightRef' has dtype {}, which {API} does not support; supported: ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_UINT8",
        weight.dtype
    );
    crate::ensure!(
        weight.format == Format::ND,
        "tensor 'mmWeightRef' has format {}; {API} converts ACL_FORMAT_ND weights only",
        weight.format
    );
    crate::ensure!(
        weight.rank() <= crate::ops::elementwise::MAX_DIMS,
        "tensor 'mmWeightRef' has {} dims; at most {} are supported",
        weight.rank(),
        crate::ops::elementwise::MAX_DIMS
    );
    // Binding 0 reads the ND view, binding 1 (the output) is its FRACTAL_NZ form.
    let bindings = |tensors: Vec<Option<TensorDesc>>| Bindings {
        tensors: std::sync::Arc::new(tensors),
        n_inputs: 1,
        outputs: smallvec::smallvec![1],
    };
    if weight.is_empty() {
        return Ok(Executor::new(
            API,
            bindings(vec![Some(weight.clone()), Some(weight.clone())]),
            Nothing,
        ));
    }
    crate::ensure!(
        RANKS.contains(&weight.rank()),
        "tensor 'mmWeightRef' has {} dims (shape {:?}); {API} takes 2 to 6 (batch..., n, k)",
        weight.rank(),
        weight.shape
    );
    // The blocks are longer than the ND view (padding): the entry point checks at phase 1
    // that the allocation holds this output binding (`args::outputs_in_memory`).
    let nz_view = nz_view(weight)?;
    Ok(Executor::new(
        API,
        bindings(vec![Some(weight.clone()), Some(nz_view)]),
        ToNz {
            staging: (weight.numel() * weight.dtype.size()) as u64,
        },
    ))
}

/// The FRACTAL_NZ tensor the conversion writes: the weight's shape, row-major (so
/// `TensorDesc::nz` sees the stored matrix untransposed), from the view's first element,
/// over a storage holding exactly its padded blocks.
fn nz_view(weight: &TensorDesc) -> Result<TensorDesc> {
    let r = weight.rank();
    let nz = Nz::new(
        weight.shape[r - 2],
        weight.shape[r - 1],
        weight.dtype.size(),
    );
    let batches: usize = weight.shape[..r - 2].iter().product();
    let elements = batches
        .checked_mul(nz.elements())
        .and_then(|n| n.checked_add(weight.offset))
        .ok_or_else(|| Error::Invalid("mmWeightRef: its FRACTAL_NZ form is too large".into()))?;
    Ok(TensorDesc {
        dtype: weight.dtype,
        format: Format::FRACTAL_NZ,
        shape: weight.shape.clone(),
        strides: contiguous_strides(&weight.shape),
        offset: weight.offset,
        storage_shape: Dims::from_slice(&[elements]),
        addr: weight.addr,
    })
}

/// The tensor `weight` becomes at phase 1 of its conversion (as the device's op_api sets
/// it): FRACTAL_NZ, its view row-major, its storage shape the fractal one (batch..., n1,
/// k1, k0, n0) for the stored matrix (k, n) = its last two dims. None for an empty weight,
/// which stays ND.
pub fn stored_form(weight: &TensorDesc) -> Option<TensorDesc> {
    if weight.is_empty() {
        return None;
    }
    let r = weight.rank();
    let nz = Nz::new(
        weight.shape[r - 2],
        weight.shape[r - 1],
        weight.dtype.size(),
    );
    let mut storage: Vec<usize> = weight.shape[..r - 2].to_vec();
    storage.extend([nz.cols.div_ceil(nz.c0), nz.padded_rows() / 16, 16, nz.c0]);
    Some(TensorDesc {
        format: Format::FRACTAL_NZ,
        strides: contiguous_strides(&weight.shape),
        storage_shape: Dims::from_slice(&storage),
        ..weight.clone()
    })
}

/// Binding 0: the ND weight; binding 1: its FRACTAL_NZ form over the same memory. The
/// workspace holds the ND matrix, `staging` bytes, read out before the blocks overwrite it.
struct ToNz {
    staging: u64,
}

impl Work for ToNz {
    fn workspace_size(&self) -> u64 {
        self.staging
    }
    fn run(&self, tensors: &Bindings, ws: Workspace) -> Result<()> {
        let nd = tensors.view(0)?;
        let out = tensors.view(1)?;
        // SAFETY: phase 2 checked both views lie in device memory and the workspace holds
        // the `staging` bytes the ND matrix takes.
        unsafe { to_nz(nd, out, ws.addr) };
        Ok(())
    }
}

/// Runs `task(0..n)` on the pool in a few contiguous ranges (one task per range).
fn par_for(n: usize, task: impl Fn(usize) + Sync) {
    let ranges = crate::engine::pool()
        .current_num_threads()
        .min(n.div_ceil(64))
        .max(1);
    let per = n.div_ceil(ranges);
    crate::engine::run_tasks(ranges, |t| {
        for i in t * per..((t + 1) * per).min(n) {
            task(i);
        }
    });
}

/// Reads the ND view `nd` into `staging` (row-major, batch after batch), then writes every
/// padded block of `out` (zero where the matrix has no element).
///
/// # Safety
/// Both views' bytes and `staging_bytes(nd)` bytes at `staging` must be valid.
unsafe fn to_nz(nd: &TensorDesc, out: &TensorDesc, staging: usize) {
    let size = nd.dtype.size();
    let r = nd.rank();
    let (rows, cols) = (nd.shape[r - 2], nd.shape[r - 1]);
    let (row_stride, col_stride) = (nd.strides[r - 2] as usize, nd.strides[r - 1] as usize);
    let batch_shape = &nd.shape[..r - 2];
    let batches: usize = batch_shape.iter().product();
    let src_base = nd.addr + nd.offset * size;
    // Element offset of batch b's first element in the ND view.
    let batch_start = |mut b: usize| {
        let mut off = 0;
        for (d, &n) in batch_shape.iter().enumerate().rev() {
            off += (b % n) * nd.strides[d] as usize;
            b /= n;
        }
        off
    };
    // 1. Gather, one task per matrix row.
    par_for(batches * rows, |i| {
        let (b, row) = (i / rows, i % rows);
        let src = src_base + (batch_start(b) + row * row_stride) * size;
        let dst = staging + i * cols * size;
        if col_stride == 1 || cols == 1 {
            // SAFETY: the row's bytes lie in the view; the staging row is its own.
            unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, cols * size) };
        } else {
            for c in 0..cols {
                // SAFETY: as above, element by element.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (src + c * col_stride * size) as *const u8,
                        (dst + c * size) as *mut u8,
                        size,
                    )
                };
            }
        }
    });
    // 2. Scatter, one task per (batch, column block): each writes its own padded fractal
    // column, 16-row fractals stacked down the padded rows.
    let nz = Nz::new(rows, cols, size);
    let col_blocks = cols.div_ceil(nz.c0);
    let dst_base = out.addr + out.offset * size;
    par_for(batches * col_blocks, |i| {
        let (b, c1) = (i / col_blocks, i % col_blocks);
        let c = c1 * nz.c0;
        let len = nz.c0.min(cols - c);
        let block = dst_base + b * nz.elements() * size;
        for row in 0..nz.padded_rows() {
            let dst = block + nz.index(row, c) * size;
            let mut filled = 0;
            if row < rows {
                let src = staging + ((b * rows + row) * cols + c) * size;
                // SAFETY: staging row segment and the fractal row are in bounds (Nz::index).
                unsafe {
                    std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len * size)
                };
                filled = len;
            }
            // SAFETY: the rest of the fractal row (columns padding, or a padding row).
            unsafe {
                std::ptr::write_bytes((dst + filled * size) as *mut u8, 0, (nz.c0 - filled) * size)
            };
        }
    });
}

/// aclnnCalculateMatmulWeightSize (`dtype` None: f16) and ...V2: the elements the
/// FRACTAL_NZ form of a weight of `shape` takes: the leading dims times the last two
/// aligned, rows to 16 and columns to 16 for FLOAT16/BFLOAT16, to 32 for any other dtype
/// (the device computes so whatever `dataType` it is given). V2 refuses zero dims as the
/// device does; both refuse negative dims and counts beyond u64.
pub fn weight_size(api: &str, shape: &[i64], dtype: Option<i32>) -> Result<u64> {
    crate::ensure!(
        RANKS.contains(&shape.len()),
        "tensorShape has {} dims ({shape:?}); {api} takes 2 to 6 (batch..., n, k)",
        shape.len()
    );
    if let Some(&d) = shape.iter().find(|&&d| d < 0) {
        crate::bail!("tensorShape {shape:?} has the negative dim {d}");
    }
    if dtype.is_some() && shape.contains(&0) {
        crate::bail!("tensorShape {shape:?} has a zero dim; {api} takes none");
    }
    let half = dtype.is_none_or(|d| d == F16 as i32 || d == BF16 as i32);
    let col_align = if half { 16 } else { 32 };
    let n = shape.len();
    let mut total: u64 = 1;
    for (i, &d) in shape.iter().enumerate() {
        let d = d as u64;
        let d = match i {
            _ if i == n - 2 => d.div_ceil(16) * 16,
            _ if i == n - 1 => d.div_ceil(col_align) * col_align,
            _ => d,
        };
        total = total.checked_mul(d).ok_or_else(|| {
            Error::Invalid(format!(
                "tensorShape {shape:?}: the element count overflows"
            ))
        })?;
    }
    Ok(total)
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "TransMatmulWeight",
    a: WEIGHT,
    b: &[],
    out: WEIGHT,
    rule: "in place, ND -> FRACTAL_NZ of the last two dims (padded with zeros; exact)",
}];
