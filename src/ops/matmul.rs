//! Mm, BatchMatMul, Matmul, Addmm, InplaceAddmm (reference §5.5); Baddbmm, InplaceBaddbmm
//! and Addmv (hicann/ops-nn aclnn_baddbmm.h, aclnn_addmv.h).
//!
//! Shapes: Mm takes (m,k)@(k,n); BatchMatMul (b,m,k)@(b,k,n) where a batch of 1 broadcasts;
//! Matmul follows torch.matmul (a 1-D operand is promoted to a matrix and that dim removed
//! from the result; batch dims broadcast; at most 6 dims); Addmm computes
//! `beta*self + alpha*(mat1@mat2)` where self broadcasts unidirectionally to (m,n) (the
//! ONNX Gemm rule) and is not read when beta is 0. Baddbmm is Addmm over batches:
//! (b,n,m)@(b,m,p) with a batch of 1 broadcasting (not in InplaceBaddbmm) and self of 1-3
//! dims broadcasting one way to (b,n,p). Addmv is `beta*self + alpha*(mat@vec)` with mat
//! (m,k), vec (k), self 0-D or (m) or (1).
//!
//! Addmv also takes integer and bool tensors (s8 s16 s32 s64 u8 bool, CANN's
//! `addmvDtypeSupportList`): those are computed as CANN's A2 code computes them when the
//! product's dtype is not a cube dtype (Mul + ReduceSum, bool: LogicalAnd + ReduceAny): see
//! `IntAddmv`.
//!
//! Dtypes: f32, f16, bf16, in any mix (bf16 with f16/f32 promotes to f32, as on A2). f64 is refused by Mm,
//! BatchMatMul, Matmul, Addmm and Baddbmm (and their in-place forms), as on Atlas A2, whose
//! cube matmul rule (`Dav2201MatMulRule`) and operator lists take f32/f16/bf16 only; Addmv
//! takes it (its A2 code computes f64 with Mul + ReduceSum). f16/bf16 inputs are
//! converted to f32 in the workspace and accumulate in f32; f32 in f32, f64 (Addmv) in f64;
//! the result is then converted to out's dtype. cubeMathType 0..4 is accepted (every value
//! computes at least in f32 here). Strided and transposed views go to the GEMM as they are
//! (no copy) when their dtype is the computation dtype and they do not overlap out. A large
//! f16/bf16 mat2 (an LLM's weight) is not converted whole: the panel product (`panel`)
//! converts it a panel of columns at a time, in parallel, as the product reads it.

use super::catalog::Entry;
use super::elementwise as ew;
use super::gemm::{self, Mat};
use crate::broadcast::{broadcast_shapes, broadcasts_to};
use crate::dtype::{promote, DType};
use crate::engine::{align_up, broadcast_strides, convert, pool, ALIGN};
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::scalar::Scalar;
use crate::tensor::{contiguous_strides, TensorDesc};

use DType::*;
/// The cube matmul's dtypes on Atlas A2 (`Dav2201MatMulRule::GetSupportedDTypes` and the
/// operators' own lists in ops-nn's aclnn_mm/matmul/batch_matmul/addmm/baddbmm.cpp).
const LIST: &[DType] = &[F32, F16, BF16];
const SCALARS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8];
/// Baddbmm's beta and alpha also accept bool.
const BMM_SCALARS: &[DType] = &[F32, F16, F64, S8, S16, S32, S64, U8, Bool];
/// Addmv's self, mat, vec, out, alpha and beta (the A2 code's `addmvDtypeSupportList`; its
/// doc omits bool for out and bf16/bool for alpha and beta, which the code accepts).
const ADDMV: &[DType] = &[F32, F16, BF16, F64, S8, S16, S32, S64, U8, Bool];

/// One matrix operand, seen as a batch of (rows, cols) matrices over the result's batch shape.
#[derive(Clone, Debug)]
struct Matrix {
    binding: usize,
    dtype: DType,
    /// Element offset of the view's first element.
    offset: usize,
    /// Strides over the result's batch dims (0 where broadcast).
    batch_strides: Vec<isize>,
    rs: isize,
    cs: isize,
    /// Where a converted or overlap-free copy lives in the workspace (None: used in place).
    staged: Option<usize>,
    /// Elements of one matrix (for staging).
    rows: usize,
    cols: usize,
    /// Distinct matrices to stage (its own batch count).
    own_batches: Vec<usize>,
    own_strides: Vec<isize>,
    /// A weight in ACL_FORMAT_FRACTAL_NZ: its stored layout and whether the logical matrix
    /// is the stored one transposed (always staged: unpacked into the workspace).
    nz: Option<(crate::format::Nz, bool)>,
}

/// A planned batched product `out = alpha*(a@b) + beta*bias`.
struct Plan {
    batch: Vec<usize>,
    m: usize,
    n: usize,
    k: usize,
    a: Matrix,
    b: Matrix,
    bias: Option<Matrix>,
    out: Matrix,
    compute: DType,
    alpha: f64,
    beta: f64,
    workspace: u64,
    /// b is read panel by panel, converted on the fly (`panel`), instead of staged whole.
    b_panel: bool,
}

/// A weight of at least this many elements that needs converting to f32 is read by the
/// panel product rather than staged whole in the workspace. (Lower in the tests, so the
/// random differential tests run both paths.)
#[cfg(not(test))]
const PANEL_MIN: usize = 1 << 16;
#[cfg(test)]
const PANEL_MIN: usize = 256;

pub(crate) fn check_cube_math_type(t: i64) -> Result<()> {
    crate::ensure!(
        (0..=4).contains(&t),
        "cubeMathType {t} is not one of 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16), 3 (USE_HF32), 4 (USE_FP32_ADD)"
    );
    Ok(())
}

/// A weight operand (mat2, batch2): as `check_input`, and it may also be in
/// ACL_FORMAT_FRACTAL_NZ (what aclnnTransMatmulWeight produces; ggml's default for matmul
/// weights), with at least 2 dims.
fn check_weight(api: &str, name: &str, t: &TensorDesc) -> Result<()> {
    if t.format != crate::format::Format::FRACTAL_NZ {
        return check_input(api, name, t);
    }
    crate::ensure!(
        LIST.contains(&t.dtype),
        "tensor '{name}' in ACL_FORMAT_FRACTAL_NZ has dtype {}, which {api} does not support; supported: \
         ACL_FLOAT, ACL_FLOAT16, ACL_BF16",
        t.dtype
    );
    crate::ensure!(
        t.rank() >= 2,
        "tensor '{name}' in ACL_FORMAT_FRACTAL_NZ has {} dims; a fractal weight has at least 2",
        t.rank()
    );
    Ok(())
}

/// A tensor of a cube matmul operator (`api`): f32, f16 or bf16; f64 with its own message.
fn check_input(api: &str, name: &str, t: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.dtype != F64,
        "tensor '{name}' has dtype ACL_DOUBLE, which {api} does not support: on Atlas A2 its cube \
         matmul takes ACL_FLOAT, ACL_FLOAT16 and ACL_BF16 only"
    );
    ew::check_tensor(name, t, LIST)
}

/// The promoted dtype and the computation dtype (f64 if either is f64, else f32). Every mix of
/// f32, f16 and bf16 is accepted, as Atlas A2's cube rule (`Dav2201MatMulRule`'s promotion
/// table, and Convolution's `GetUpperFloatDataType`) accepts it: bf16 with f32 or f16
/// computes in f32 (ggml's MUL_MAT passes bf16 weights with f32 activations).
pub(crate) fn computation(a: (&str, DType), b: (&str, DType)) -> Result<(DType, DType)> {
    let p = promote(a.1, b.1).ok_or_else(|| {
        Error::Invalid(format!(
            "{} dtype {} and {} dtype {} cannot be promoted",
            a.0, a.1, b.0, b.1
        ))
    })?;
    Ok((p, if p == F64 { F64 } else { F32 }))
}

/// Strides of the matrix part and of the batch dims (right-aligned to `batch`, 0 where broadcast).
fn matrix(
    binding: usize,
    t: &TensorDesc,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    batch: &[usize],
) -> Matrix {
    let own_rank = t.rank().saturating_sub(2);
    let own: Vec<usize> = t.shape[..own_rank].to_vec();
    let own_strides: Vec<isize> = t.strides[..own_rank].to_vec();
    let batch_strides = broadcast_strides(batch, &own, &own_strides).to_vec();
    Matrix {
        binding,
        dtype: t.dtype,
        offset: t.offset,
        batch_strides,
        rs,
        cs,
        staged: None,
        rows,
        cols,
        own_batches: own,
        own_strides,
        nz: t.nz(),
    }
}

fn overlaps(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
}

impl Plan {
    /// Decides which operands are staged (converted or copied) in the workspace and sizes it.
    fn stage(&mut self, tensors: &[TensorDesc], out_view: &TensorDesc) {
        let mut ws = 0usize;
        let compute = self.compute;
        let mut place = |m: &mut Matrix, view: &TensorDesc, is_bias: bool| {
            let aliased = !is_bias && overlaps(view, out_view);
            if m.dtype != compute || aliased || is_bias || m.nz.is_some() {
                let count: usize = m.own_batches.iter().product::<usize>() * m.rows * m.cols;
                m.staged = Some(ws);
                ws += align_up(count * compute.size());
            }
        };
        let (ai, bi) = (self.a.binding, self.b.binding);
        place(&mut self.a, &tensors[ai], false);
        let b = &self.b;
        // (A FRACTAL_NZ weight is read in place too, one matrix of it.)
        let one_nz = b.own_batches.iter().product::<usize>() == 1;
        self.b_panel = compute == DType::F32
            && (b.dtype != compute && b.nz.is_none() || b.nz.is_some() && one_nz)
            && !overlaps(&tensors[bi], out_view)
            && self.k * self.n >= PANEL_MIN;
        if !self.b_panel {
            place(&mut self.b, &tensors[bi], false);
        }
        if let Some(bias) = self.bias.as_mut() {
            let i = bias.binding;
            place(bias, &tensors[i], true);
        }
        // The product is accumulated in the workspace unless out is itself in the computation dtype.
        if self.out.dtype != compute {
            let count = self.batch.iter().product::<usize>() * self.m * self.n;
            self.out.staged = Some(ws);
            ws += align_up(count * compute.size());
        }
        self.workspace = if ws == 0 { 0 } else { (ws + ALIGN) as u64 };
    }
}

/// Unpacks a (batch of) FRACTAL_NZ matrices into a contiguous row-major block of `dtype`:
/// each stored row of a column block is a run of up to c0 elements, which lands in a row of
/// the logical matrix, or in a column of it when the view is transposed.
unsafe fn gather_nz(
    src: usize,
    m: &Matrix,
    nz: crate::format::Nz,
    transposed: bool,
    dst: usize,
    dtype: DType,
) {
    let batches: usize = m.own_batches.iter().product();
    let (size, dsize) = (m.dtype.size(), dtype.size());
    let block = nz.elements();
    for bi in 0..batches {
        let s0 = src + (m.offset + bi * block) * size;
        let d0 = dst + bi * m.rows * m.cols * dsize;
        for c1 in 0..nz.cols.div_ceil(nz.c0) {
            let c = c1 * nz.c0;
            let len = nz.c0.min(nz.cols - c);
            for r in 0..nz.rows {
                let s = s0 + nz.index(r, c) * size;
                // stored (r, c..c+len) is logical (r, c..) or, transposed, (c.., r)
                let (d, ds) = if transposed {
                    (d0 + (c * m.cols + r) * dsize, m.cols as isize)
                } else {
                    (d0 + (r * m.cols + c) * dsize, 1)
                };
                // SAFETY: the run lies in the NZ block phase 1 checked (`TensorDesc::byte_span`);
                // dst holds the staged block.
                unsafe { convert::run(s as *const u8, m.dtype, 1, d as *mut u8, dtype, ds, len) };
            }
        }
    }
}

/// Converts a (batch of) strided matrices into a contiguous block of `dst` dtype.
unsafe fn gather(src: usize, m: &Matrix, dst: usize, dtype: DType) {
    if let Some((nz, transposed)) = m.nz {
        // SAFETY: forwarded from the caller.
        return unsafe { gather_nz(src, m, nz, transposed, dst, dtype) };
    }
    let batches: usize = m.own_batches.iter().product();
    let size = m.dtype.size();
    for bi in 0..batches {
        let mut rem = bi;
        let mut off = m.offset as isize;
        for d in (0..m.own_batches.len()).rev() {
            off += (rem % m.own_batches[d]) as isize * m.own_strides[d];
            rem /= m.own_batches[d];
        }
        for r in 0..m.rows {
            let s = src as isize + (off + r as isize * m.rs) * size as isize;
            let d = dst + (bi * m.rows * m.cols + r * m.cols) * dtype.size();
            // SAFETY: the row lies inside the operand's view; dst holds the staged block.
            unsafe {
                convert::run(
                    s as *const u8,
                    m.dtype,
                    m.cs,
                    d as *mut u8,
                    dtype,
                    1,
                    m.cols,
                )
            };
        }
    }
}

/// Batch strides of contiguous blocks of `block` elements laid out in `batch` order.
fn block_strides(batch: &[usize], block: usize) -> Vec<isize> {
    contiguous_strides(batch)
        .iter()
        .map(|s| s * block as isize)
        .collect()
}

/// Offset (elements) of batch `bi` of the result's batch shape in a matrix.
fn batch_offset(batch: &[usize], strides: &[isize], mut bi: usize) -> isize {
    let mut off = 0;
    for d in (0..batch.len()).rev() {
        off += (bi % batch[d]) as isize * strides[d];
        bi /= batch[d];
    }
    off
}

impl Work for Plan {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }

    /// Addresses may have changed since phase 1 (a repeatable executor): an operand read in
    /// place must still not overlap the output.
    fn check(&self, t: &Bindings) -> Result<()> {
        let out_view = t.view(self.out.binding)?;
        for m in [&self.a, &self.b] {
            if m.staged.is_none()
                && m.binding != self.out.binding
                && overlaps(t.view(m.binding)?, out_view)
            {
                return Err(Error::Invalid(
                    "an input now overlaps the output, which it did not when the executor was planned; plan again".into(),
                ));
            }
        }
        Ok(())
    }

    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        self.check(t)?;
        let base = if self.workspace > 0 {
            ws.addr.div_ceil(ALIGN) * ALIGN
        } else {
            0
        };
        let c = self.compute;
        let csize = c.size() as isize;
        // Where each operand is read from: (address, batch strides, row stride, col stride).
        let resolve = |m: &Matrix| -> Result<(usize, Vec<isize>, isize, isize)> {
            let addr = t.addr(m.binding)?;
            Ok(match m.staged {
                None => (
                    addr + m.offset * m.dtype.size(),
                    m.batch_strides.clone(),
                    m.rs,
                    m.cs,
                ),
                Some(off) => {
                    // SAFETY: the view was validated; the staged block was sized in phase 1.
                    unsafe { gather(addr, m, base + off, c) };
                    // The staged block is contiguous in the operand's own batch shape.
                    let bs = broadcast_strides(
                        &self.batch,
                        &m.own_batches,
                        &block_strides(&m.own_batches, m.rows * m.cols),
                    )
                    .to_vec();
                    (base + off, bs, m.cols as isize, 1)
                }
            })
        };
        let a = resolve(&self.a)?;
        let b = resolve(&self.b)?;
        let bias = match (&self.bias, self.beta != 0.0) {
            (Some(m), true) => Some(resolve(m)?),
            _ => None,
        };
        let out_addr = t.addr(self.out.binding)?;
        let (dst, dst_bs, dst_rs, dst_cs) = match self.out.staged {
            None => (
                out_addr + self.out.offset * self.out.dtype.size(),
                self.out.batch_strides.clone(),
                self.out.rs,
                self.out.cs,
            ),
            Some(off) => (
                base + off,
                block_strides(&self.batch, self.m * self.n),
                self.n as isize,
                1,
            ),
        };
        let batches: usize = self.batch.iter().product();
        let threads = pool().current_num_threads();
        let big = self.m * self.n * self.k >= 64 * 64 * 64;
        let one = |bi: usize, threads: usize| {
            let at = |p: &(usize, Vec<isize>, isize, isize)| {
                p.0 as isize + batch_offset(&self.batch, &p.1, bi) * csize
            };
            let d = dst as isize + batch_offset(&self.batch, &dst_bs, bi) * csize;
            // The bias, broadcast to (m, n), is written into dst first; the GEMM then adds to it.
            if let Some(bs) = &bias {
                let src = at(bs);
                for r in 0..self.m {
                    // SAFETY: rows within the staged bias block and the destination.
                    unsafe {
                        convert::run(
                            (src + r as isize * bs.2 * csize) as *const u8,
                            c,
                            bs.3,
                            (d + r as isize * dst_rs * csize) as *mut u8,
                            c,
                            dst_cs,
                            self.n,
                        )
                    };
                }
            }
            // Written bias is scaled by beta; without one, dst is overwritten.
            let scale = bias.is_some().then_some(self.beta);
            let mat = |p: isize, rs: isize, cs: isize| Mat {
                ptr: p as usize,
                rs,
                cs,
            };
            if self.b_panel {
                // SAFETY: as below; b is read in place, in its own dtype.
                return unsafe { self.panel_product(&a, &b, bi, d, (dst_rs, dst_cs), scale) };
            }
            // SAFETY: every pointer and stride describes memory validated in phase 1 (views
            // inside their storage) or staged in the workspace phase 1 sized.
            unsafe {
                gemm::product_in(
                    c,
                    &gemm::ByAddress {
                        m: self.m,
                        n: self.n,
                        k: self.k,
                        dst: mat(d, dst_rs, dst_cs),
                        scale,
                        lhs: mat(at(&a), a.2, a.3),
                        rhs: mat(at(&b), b.2, b.3),
                        alpha: self.alpha,
                        threads,
                    },
                )
            }
        };
        pool().install(|| {
            if big || batches == 1 || self.b_panel {
                let par = if big { threads } else { 1 };
                (0..batches).for_each(|bi| one(bi, par));
            } else {
                use rayon::prelude::*;
                (0..batches).into_par_iter().for_each(|bi| one(bi, 1));
            }
        });
        // A staged result is converted into out.
        if let Some(off) = self.out.staged {
            let o = &self.out;
            for bi in 0..batches {
                let ob = o.offset as isize + batch_offset(&self.batch, &o.batch_strides, bi);
                for r in 0..self.m {
                    let src = base + off + ((bi * self.m + r) * self.n) * c.size();
                    let dst =
                        out_addr as isize + (ob + r as isize * o.rs) * o.dtype.size() as isize;
                    // SAFETY: the row lies inside out's view.
                    unsafe {
                        convert::run(
                            src as *const u8,
                            c,
                            1,
                            dst as *mut u8,
                            o.dtype,
                            o.cs,
                            self.n,
                        )
                    };
                }
            }
        }
        Ok(())
    }
}

impl Plan {
    /// Batch `bi` of the product with b converted panel by panel: `a` is where a is read
    /// from (f32), `b` where b is (its own dtype), d the batch's dst (f32).
    ///
    /// # Safety
    /// As `gemm::Product::run`: every operand valid for its shape and strides.
    unsafe fn panel_product(
        &self,
        a: &(usize, Vec<isize>, isize, isize),
        b: &(usize, Vec<isize>, isize, isize),
        bi: usize,
        d: isize,
        (dst_rs, dst_cs): (isize, isize),
        scale: Option<f64>,
    ) {
        use super::panel::{Layout, PanelProduct};
        let (k, dtype) = (self.k, self.b.dtype);
        let size = dtype.size() as isize;
        let base = b.0 as isize + batch_offset(&self.batch, &b.1, bi) * size;
        let (rs, cs) = (b.2, b.3);
        let layout = match self.b.nz {
            // Stored rows are the logical columns, or the logical rows.
            Some((_, transposed)) if transposed => Layout::Columns,
            Some(_) => Layout::Rows,
            None => Layout::for_strides(rs, cs),
        };
        let fill = |j0: usize, w: usize, buf: &mut [f32]| {
            let run = |at: isize, stride: isize, out: &mut [f32]| {
                // SAFETY: the run lies in b's view (validated); out holds its values.
                unsafe {
                    convert::run(
                        (base + at * size) as *const u8,
                        dtype,
                        stride,
                        out.as_mut_ptr() as *mut u8,
                        DType::F32,
                        1,
                        out.len(),
                    )
                }
            };
            if let Some((nz, _)) = self.b.nz {
                // A column block of the stored matrix is contiguous (rows r.. of block c1
                // are c0-element runs one after another): each block a panel touches is
                // converted in one call into a scratch buffer, then its runs are placed.
                thread_local!(static BLOCK: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) });
                let c0 = nz.c0;
                return BLOCK.with(|scratch| {
                    let mut tmp = scratch.borrow_mut();
                    match layout {
                        // Stored rows j0.. are the panel's columns; stored columns are k.
                        Layout::Columns => {
                            tmp.resize(w * c0, 0.0);
                            for start in (0..k).step_by(c0) {
                                let len = c0.min(k - start);
                                run(nz.index(j0, start) as isize, 1, &mut tmp[..w * c0]);
                                for (c, col) in buf.chunks_exact_mut(k).enumerate() {
                                    col[start..start + len].copy_from_slice(&tmp[c * c0..][..len]);
                                }
                            }
                        }
                        // Stored rows are the panel's k rows; stored columns j0.. its columns.
                        Layout::Rows => {
                            tmp.resize(k * c0, 0.0);
                            let mut j = j0;
                            while j < j0 + w {
                                let first = j % c0;
                                let len = (c0 - first).min(j0 + w - j);
                                run(nz.index(0, j - first) as isize, 1, &mut tmp[..k * c0]);
                                for (p, row) in buf.chunks_exact_mut(w).enumerate() {
                                    row[j - j0..][..len]
                                        .copy_from_slice(&tmp[p * c0 + first..][..len]);
                                }
                                j += len;
                            }
                        }
                    }
                });
            }
            match layout {
                Layout::Columns => buf
                    .chunks_exact_mut(k)
                    .enumerate()
                    .for_each(|(c, col)| run((j0 + c) as isize * cs, rs, col)),
                Layout::Rows => buf
                    .chunks_exact_mut(w)
                    .enumerate()
                    .for_each(|(p, row)| run(p as isize * rs + j0 as isize * cs, cs, row)),
            }
        };
        // Columns of 16-bit floats in runs of 16 (a FRACTAL_NZ weight read transposed,
        // or a transposed row-major one): small m reads them directly.
        use super::weight_dot::{self, HalfRuns};
        let runs = match self.b.nz {
            _ if !matches!(dtype, F16 | BF16) || layout != Layout::Columns => None,
            Some((nz, _)) if nz.c0 == 16 => Some((16, (nz.padded_rows() * 16) as isize)),
            Some(_) => None,
            None if rs == 1 => Some((cs, 16)),
            None => None,
        };
        let direct = |x: &[f32], j0: usize, sums: &mut [f32]| {
            let (col_stride, run_stride) = runs.unwrap_or_default();
            let w = HalfRuns {
                base: base as usize,
                bf16: dtype == BF16,
                col_stride,
                run_stride,
            };
            // SAFETY: the kernels run (checked below); the runs lie in b's view.
            unsafe { weight_dot::half_runs(w, x, j0, sums) }
        };
        let direct: Option<&super::panel::Direct> =
            (runs.is_some() && weight_dot::available()).then_some(&direct);
        let csize = self.compute.size() as isize;
        let lhs = a.0 as isize + batch_offset(&self.batch, &a.1, bi) * csize;
        let product = PanelProduct {
            m: self.m,
            n: self.n,
            k,
            lhs: Mat {
                ptr: lhs as *const f32,
                rs: a.2,
                cs: a.3,
            },
            dst: Mat {
                ptr: d as *mut f32,
                rs: dst_rs,
                cs: dst_cs,
            },
            scale: scale.map(|s| s as f32),
            alpha: self.alpha as f32,
            layout,
            fill: &fill,
            direct,
        };
        // SAFETY: forwarded.
        unsafe { product.run() }
    }
}

/// Builds a product executor from validated shapes. `a`/`b` are (.., rows, cols) views
/// with the given matrix strides; `bias` broadcasts to (batch.., m, n).
#[allow(clippy::too_many_arguments)]
fn product(
    api: &'static str,
    tensors: Vec<TensorDesc>,
    ab: [usize; 2],
    batch: Vec<usize>,
    (m, n, k): (usize, usize, usize),
    strides: [(isize, isize); 2],
    bias: Option<usize>,
    out: usize,
    compute: DType,
    alpha: f64,
    beta: f64,
    inplace: bool,
) -> Result<Executor> {
    let out_view = &tensors[out];
    let n_inputs = if inplace {
        tensors.len()
    } else {
        tensors.len() - 1
    };
    let bindings = Bindings {
        tensors: std::sync::Arc::new(tensors.iter().cloned().map(Some).collect()),
        n_inputs,
        outputs: smallvec::smallvec![out],
    };
    if out_view.is_empty() {
        return Ok(Executor::new(api, bindings, Nothing));
    }
    let a = matrix(
        ab[0],
        &tensors[ab[0]],
        m,
        k,
        strides[0].0,
        strides[0].1,
        &batch,
    );
    let b = matrix(
        ab[1],
        &tensors[ab[1]],
        k,
        n,
        strides[1].0,
        strides[1].1,
        &batch,
    );
    let out_rank = out_view.rank();
    // out's matrix strides; a removed m or n dim (Matmul with 1-D operands) has stride 0.
    let (ors, ocs) = match (m, n) {
        _ if out_rank >= 2 && out_view.shape[out_rank - 2..] == [m, n] => (
            out_view.strides[out_rank - 2],
            out_view.strides[out_rank - 1],
        ),
        (1, _) if out_rank >= 1 => (0, out_view.strides[out_rank - 1]),
        (_, 1) if out_rank >= 1 => (out_view.strides[out_rank - 1], 0),
        _ => (0, 0),
    };
    let mut o = matrix(out, out_view, m, n, ors, ocs, &batch);
    let out_batch_rank = batch.len();
    o.batch_strides = out_view.strides[..out_batch_rank.min(out_view.rank())].to_vec();
    o.batch_strides.resize(out_batch_rank, 0);
    let bias_m = bias.map(|i| {
        let t = &tensors[i];
        // The bias as an (m, n) matrix: trailing dims broadcast (stride 0 where size 1 or missing).
        let r = t.rank();
        let cs = if r >= 1 && t.shape[r - 1] != 1 {
            t.strides[r - 1]
        } else {
            0
        };
        let rs = if r >= 2 && t.shape[r - 2] != 1 {
            t.strides[r - 2]
        } else {
            0
        };
        // Its leading dims (Baddbmm's self) broadcast over the batch like an operand's.
        matrix(i, t, m, n, rs, cs, &batch)
    });
    let mut plan = Plan {
        batch,
        m,
        n,
        k,
        a,
        b,
        bias: bias_m,
        out: o,
        compute,
        alpha,
        beta,
        workspace: 0,
        b_panel: false,
    };
    plan.stage(&tensors, out_view);
    Ok(Executor::new(api, bindings, plan))
}

fn check_out(api: &str, name: &str, out: &TensorDesc, shape: &[usize], p: DType) -> Result<()> {
    check_input(api, name, out)?;
    out.check_output(name)?;
    ew::check_out_cast(p, name, out)?;
    crate::ensure!(
        out.shape[..] == shape[..],
        "'{name}' has shape {:?} but the product has shape {shape:?}",
        out.shape
    );
    Ok(())
}

fn k_mismatch(a: &TensorDesc, b: &TensorDesc, an: &str, bn: &str) -> Error {
    Error::Invalid(format!(
        "{an} of shape {:?} and {bn} of shape {:?} cannot be multiplied: {an}'s last dim differs from {bn}'s second-to-last",
        a.shape, b.shape
    ))
}

/// Matrix strides of a 2-D-or-more view (its last two dims).
fn mat_strides(t: &TensorDesc) -> (isize, isize) {
    let r = t.rank();
    (t.strides[r - 2], t.strides[r - 1])
}

/// aclnnMm: (m,k) @ (k,n).
pub fn mm(
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    fixed_rank_product("aclnnMm", 2, self_, mat2, out, cube_math_type)
}

/// aclnnBatchMatMul: (b,m,k) @ (b,k,n), a batch of 1 broadcasting.
pub fn batch_matmul(
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    fixed_rank_product("aclnnBatchMatMul", 3, self_, mat2, out, cube_math_type)
}

/// Mm (rank 2) and BatchMatMul (rank 3, the batch dim broadcasting from 1): both operands
/// of exactly `rank` dims.
fn fixed_rank_product(
    api: &'static str,
    rank: usize,
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    check_input(api, "self", self_)?;
    check_weight(api, "mat2", mat2)?;
    let (p, c) = computation(("self", self_.dtype), ("mat2", mat2.dtype))?;
    check_cube_math_type(cube_math_type)?;
    crate::ensure!(
        self_.rank() == rank && mat2.rank() == rank,
        "self {:?} and mat2 {:?} must both be {rank}-D",
        self_.shape,
        mat2.shape
    );
    let b = rank - 2;
    let (m, k, n) = (self_.shape[b], self_.shape[b + 1], mat2.shape[b + 1]);
    if mat2.shape[b] != k {
        return Err(k_mismatch(self_, mat2, "self", "mat2"));
    }
    let batch =
        broadcast_shapes(&[("self", &self_.shape[..b]), ("mat2", &mat2.shape[..b])])?.to_vec();
    let out_shape: Vec<usize> = batch.iter().copied().chain([m, n]).collect();
    check_out(api, "out", out, &out_shape, p)?;
    let s = [mat_strides(self_), mat_strides(mat2)];
    product(
        api,
        vec![self_.clone(), mat2.clone(), out.clone()],
        [0, 1],
        batch,
        (m, n, k),
        s,
        None,
        2,
        c,
        1.0,
        0.0,
        false,
    )
}

/// aclnnMatmul: torch.matmul semantics, 1 to 6 dims.
pub fn matmul(
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    check_input("aclnnMatmul", "self", self_)?;
    check_weight("aclnnMatmul", "mat2", mat2)?;
    let (p, c) = computation(("self", self_.dtype), ("mat2", mat2.dtype))?;
    let (ra, rb) = (self_.rank(), mat2.rank());
    crate::ensure!(
        (1..=6).contains(&ra) && (1..=6).contains(&rb),
        "self {:?} and mat2 {:?} must have 1 to 6 dims",
        self_.shape,
        mat2.shape
    );
    if !(ra == 1 && rb == 1) {
        check_cube_math_type(cube_math_type)?;
    }
    // Promote 1-D operands to matrices: (k) -> (1,k) for self, (k) -> (k,1) for mat2.
    let (m, k, sa) = if ra == 1 {
        (1, self_.shape[0], (0, self_.strides[0]))
    } else {
        (self_.shape[ra - 2], self_.shape[ra - 1], mat_strides(self_))
    };
    let (k2, n, sb) = if rb == 1 {
        (mat2.shape[0], 1, (mat2.strides[0], 0))
    } else {
        (mat2.shape[rb - 2], mat2.shape[rb - 1], mat_strides(mat2))
    };
    if k2 != k {
        return Err(k_mismatch(self_, mat2, "self", "mat2"));
    }
    let ba = &self_.shape[..ra.saturating_sub(2)];
    let bb = &mat2.shape[..rb.saturating_sub(2)];
    let batch = broadcast_shapes(&[("self batch", ba), ("mat2 batch", bb)])?.to_vec();
    let mut shape = batch.clone();
    if ra > 1 {
        shape.push(m);
    }
    if rb > 1 {
        shape.push(n);
    }
    check_out("aclnnMatmul", "out", out, &shape, p)?;
    product(
        "aclnnMatmul",
        vec![self_.clone(), mat2.clone(), out.clone()],
        [0, 1],
        batch,
        (m, n, k),
        [sa, sb],
        None,
        2,
        c,
        1.0,
        0.0,
        false,
    )
}

fn scalar_value(name: &str, s: &Scalar, allowed: &[DType]) -> Result<f64> {
    ew::check_scalar_dtype(name, s.dtype, allowed)?;
    Ok(match s.wide() {
        crate::element::Wide::Int(i) => i as f64,
        crate::element::Wide::Float(f) => f,
        crate::element::Wide::Bool(b) => b as u8 as f64,
        other => {
            return Err(Error::Invalid(format!(
                "{name} {other:?} is not a real number"
            )))
        }
    })
}

/// The two forms of `beta*self + alpha*(a@b)`: Addmm's 2-D matrices and Baddbmm's 3-D
/// batches (batch1 (b,n,m) @ batch2 (b,m,p); out (b,n,p); self 1-3 dims broadcasting one way).
#[derive(Clone, Copy, PartialEq)]
enum Biased {
    Addmm,
    /// Addmm whose mat2 is a FRACTAL_NZ weight (aclnnAddmmWeightNz).
    AddmmWeightNz,
    Baddbmm,
}

#[allow(clippy::too_many_arguments)]
fn addmm_impl(
    api: &'static str,
    kind: Biased,
    self_: &TensorDesc,
    mat1: &TensorDesc,
    mat2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    out: Option<&TensorDesc>,
    cube_math_type: i64,
) -> Result<Executor> {
    let (n1, n2, rank, scalars) = match kind {
        Biased::Addmm | Biased::AddmmWeightNz => ("mat1", "mat2", 2, SCALARS),
        Biased::Baddbmm => ("batch1", "batch2", 3, BMM_SCALARS),
    };
    let self_name = if out.is_some() { "self" } else { "selfRef" };
    check_input(api, self_name, self_)?;
    check_input(api, n1, mat1)?;
    if kind == Biased::AddmmWeightNz {
        check_weight_nz(api, rank, n1, mat1, mat2)?;
    } else {
        check_input(api, n2, mat2)?;
    }
    let (p1, c) = computation((n1, mat1.dtype), (n2, mat2.dtype))?;
    let product_name = format!("{n1} @ {n2}");
    let (p, _) = computation((self_name, self_.dtype), (&product_name, p1))?;
    check_cube_math_type(cube_math_type)?;
    let beta_v = scalar_value("beta", beta, scalars)?;
    let alpha_v = scalar_value("alpha", alpha, scalars)?;
    crate::ensure!(
        mat1.rank() == rank && mat2.rank() == rank,
        "{n1} {:?} and {n2} {:?} must both be {rank}-D",
        mat1.shape,
        mat2.shape
    );
    let (m, k, n) = (
        mat1.shape[rank - 2],
        mat1.shape[rank - 1],
        mat2.shape[rank - 1],
    );
    if mat2.shape[rank - 2] != k {
        return Err(k_mismatch(mat1, mat2, n1, n2));
    }
    let batch = if kind == Biased::Baddbmm {
        let (b1, b2) = (mat1.shape[0], mat2.shape[0]);
        crate::ensure!(
            b1 == b2 || (out.is_some() && (b1 == 1 || b2 == 1)),
            "{n1} {:?} and {n2} {:?} must have the same batch size{}",
            mat1.shape,
            mat2.shape,
            if out.is_some() {
                ", or one of them 1"
            } else {
                ": InplaceBaddbmm does not broadcast it"
            }
        );
        vec![if b1 == 1 { b2 } else { b1 }]
    } else {
        vec![]
    };
    let mut shape = batch.clone();
    shape.extend([m, n]);
    crate::ensure!(
        (1..=rank).contains(&self_.rank()) && broadcasts_to(&self_.shape, &shape),
        "{self_name} of shape {:?} does not broadcast to the product's shape {shape:?} (self broadcasts one way only, as ONNX Gemm's C)",
        self_.shape
    );
    let (tensors, out_i, inplace) = match out {
        Some(o) => {
            crate::ensure!(
                kind != Biased::Baddbmm || self_.is_empty() == shape.contains(&0),
                "self of shape {:?} and the product of shape {shape:?} must both be empty or both non-empty",
                self_.shape
            );
            check_out(api, "out", o, &shape, p)?;
            (
                vec![self_.clone(), mat1.clone(), mat2.clone(), o.clone()],
                3,
                false,
            )
        }
        None => {
            // selfRef holds the result: the product's shape, or its matrix when the batch is 1.
            crate::ensure!(
                self_.shape[..] == shape[..] || (batch == [1] && self_.shape[..] == [m, n]),
                "selfRef has shape {:?} but must be the product's shape {shape:?}",
                self_.shape
            );
            check_out(api, "selfRef", self_, &self_.shape, p)?;
            (vec![self_.clone(), mat1.clone(), mat2.clone()], 0, true)
        }
    };
    let s = [mat_strides(mat1), mat_strides(mat2)];
    product(
        api,
        tensors,
        [1, 2],
        batch,
        (m, n, k),
        s,
        Some(0),
        out_i,
        c,
        alpha_v,
        beta_v,
        inplace,
    )
}

/// aclnnAddmm: `out = beta*self + alpha*(mat1@mat2)`.
#[allow(clippy::too_many_arguments)]
pub fn addmm(
    self_: &TensorDesc,
    mat1: &TensorDesc,
    mat2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    addmm_impl(
        "aclnnAddmm",
        Biased::Addmm,
        self_,
        mat1,
        mat2,
        beta,
        alpha,
        Some(out),
        cube_math_type,
    )
}

/// aclnnInplaceAddmm: `selfRef = beta*selfRef + alpha*(mat1@mat2)`.
pub fn inplace_addmm(
    self_ref: &TensorDesc,
    mat1: &TensorDesc,
    mat2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    cube_math_type: i64,
) -> Result<Executor> {
    addmm_impl(
        "aclnnInplaceAddmm",
        Biased::Addmm,
        self_ref,
        mat1,
        mat2,
        beta,
        alpha,
        None,
        cube_math_type,
    )
}

/// aclnnAddmmWeightNz: Addmm with mat2 a FRACTAL_NZ weight (`check_weight_nz`).
#[allow(clippy::too_many_arguments)]
pub fn addmm_weight_nz(
    self_: &TensorDesc,
    mat1: &TensorDesc,
    mat2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    addmm_impl(
        "aclnnAddmmWeightNz",
        Biased::AddmmWeightNz,
        self_,
        mat1,
        mat2,
        beta,
        alpha,
        Some(out),
        cube_math_type,
    )
}

/// aclnnMatmulWeightNz: (m,k) @ (k,n) with mat2 a FRACTAL_NZ weight (`check_weight_nz`).
pub fn matmul_weight_nz(
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    const API: &str = "aclnnMatmulWeightNz";
    check_input(API, "self", self_)?;
    check_weight_nz(API, 2, "self", self_, mat2)?;
    fixed_rank_product(API, 2, self_, mat2, out, cube_math_type)
}

/// aclnnBatchMatMulWeightNz: (b,m,k) @ (b,k,n) with mat2 a FRACTAL_NZ weight.
pub fn batch_matmul_weight_nz(
    self_: &TensorDesc,
    mat2: &TensorDesc,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    const API: &str = "aclnnBatchMatMulWeightNz";
    check_input(API, "self", self_)?;
    check_weight_nz(API, 3, "self", self_, mat2)?;
    fixed_rank_product(API, 3, self_, mat2, out, cube_math_type)
}

/// The `*WeightNz` matmuls' rules for mat2, in op_api's order: FLOAT16 and BFLOAT16 do not
/// mix; mat2 is ACL_FORMAT_FRACTAL_NZ (aclnnTransMatmulWeight makes it so), with the rank of
/// `lhs` and a fractal storage shape of two more dims (batch..., n1, k1, k0, n0); neither of
/// its matrix dims is 1; its k is lhs's.
fn check_weight_nz(
    api: &str,
    rank: usize,
    lhs_name: &str,
    lhs: &TensorDesc,
    mat2: &TensorDesc,
) -> Result<()> {
    crate::ensure!(
        !matches!((lhs.dtype, mat2.dtype), (F16, BF16) | (BF16, F16)),
        "{api}: {lhs_name} has dtype {} and mat2 {}: with a FRACTAL_NZ weight both must be \
         ACL_FLOAT16 or both ACL_BF16",
        lhs.dtype,
        mat2.dtype
    );
    crate::ensure!(
        mat2.format == crate::format::Format::FRACTAL_NZ,
        "tensor 'mat2' has format {}; {api} takes a FRACTAL_NZ mat2 only (convert it with \
         aclnnTransMatmulWeight)",
        mat2.format
    );
    check_weight(api, "mat2", mat2)?;
    crate::ensure!(
        lhs.rank() == rank && mat2.rank() == rank,
        "{lhs_name} {:?} and mat2 {:?} must both be {rank}-D",
        lhs.shape,
        mat2.shape
    );
    crate::ensure!(
        mat2.storage_shape.len() == rank + 2,
        "{api}: mat2's storage shape {:?} has {} dims; a FRACTAL_NZ weight of {rank} dims is \
         stored in {} (..., n1, k1, k0, n0)",
        mat2.storage_shape,
        mat2.storage_shape.len(),
        rank + 2
    );
    let (k, n) = (mat2.shape[rank - 2], mat2.shape[rank - 1]);
    crate::ensure!(
        k != 1 && n != 1,
        "{api}: mat2 has shape {:?}; a FRACTAL_NZ mat2 with k = 1 or n = 1 is not supported",
        mat2.shape
    );
    if lhs.shape[rank - 1] != k {
        return Err(k_mismatch(lhs, mat2, lhs_name, "mat2"));
    }
    Ok(())
}

/// aclnnBaddbmm: `out = beta*self + alpha*(batch1@batch2)`, batch1 (b,n,m) @ batch2 (b,m,p)
/// (a batch of 1 broadcasts), self (1-3 dims) broadcasting one way to (b,n,p).
#[allow(clippy::too_many_arguments)]
pub fn baddbmm(
    self_: &TensorDesc,
    batch1: &TensorDesc,
    batch2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    addmm_impl(
        "aclnnBaddbmm",
        Biased::Baddbmm,
        self_,
        batch1,
        batch2,
        beta,
        alpha,
        Some(out),
        cube_math_type,
    )
}

/// aclnnInplaceBaddbmm: `selfRef = beta*selfRef + alpha*(batch1@batch2)`; the batch sizes
/// must be equal and selfRef must be (b,n,p), or (n,p) when b is 1.
pub fn inplace_baddbmm(
    self_ref: &TensorDesc,
    batch1: &TensorDesc,
    batch2: &TensorDesc,
    beta: &Scalar,
    alpha: &Scalar,
    cube_math_type: i64,
) -> Result<Executor> {
    addmm_impl(
        "aclnnInplaceBaddbmm",
        Biased::Baddbmm,
        self_ref,
        batch1,
        batch2,
        beta,
        alpha,
        None,
        cube_math_type,
    )
}

/// Whether a scalar is `v` as CANN's Addmv tests it: `|ToFloat() - v| <= FLT_EPSILON`.
fn near_f32(s: &Scalar, v: f32) -> bool {
    (s.cast(F32).get::<f32>() - v).abs() <= f32::EPSILON
}

/// aclnnAddmv: `out = beta*self + alpha*(mat@vec)`, mat (m,k), vec (k), out (m); self is 0-D
/// or 1-D of size m (or 1, which broadcasts, except when alpha is 0). Floats are computed as
/// the (1,k)@(k,m) product vec^T @ mat^T so that self broadcasts along the product's row;
/// integer and bool products as `IntAddmv`.
///
/// The dtypes promote as CANN's A2 code promotes them (`CheckPromoteType`): P1 = mat x vec;
/// P2 = alpha x P1 when alpha is not 1, else P1; P3 = beta x self when beta is not 1, else
/// self's dtype; the result dtype P2 x P3 must cast to out.
#[allow(clippy::too_many_arguments)]
pub fn addmv(
    self_: &TensorDesc,
    mat: &TensorDesc,
    vec: &TensorDesc,
    alpha: &Scalar,
    beta: &Scalar,
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    ew::check_tensor("self", self_, ADDMV)?;
    ew::check_tensor("mat", mat, ADDMV)?;
    ew::check_tensor("vec", vec, ADDMV)?;
    let alpha_v = scalar_value("alpha", alpha, ADDMV)?;
    let beta_v = scalar_value("beta", beta, ADDMV)?;
    let promote_named = |a: (&str, DType), b: (&str, DType)| {
        promote(a.1, b.1).ok_or_else(|| {
            Error::Invalid(format!(
                "{} dtype {} and {} dtype {} cannot be promoted",
                a.0, a.1, b.0, b.1
            ))
        })
    };
    let p1 = promote_named(("mat", mat.dtype), ("vec", vec.dtype))?;
    let alpha_one = near_f32(alpha, 1.0);
    let beta_one = near_f32(beta, 1.0);
    let p2 = if alpha_one {
        p1
    } else {
        promote_named(("alpha", alpha.dtype), ("mat @ vec", p1))?
    };
    let p3 = if beta_one {
        self_.dtype
    } else {
        promote_named(("beta", beta.dtype), ("self", self_.dtype))?
    };
    let p = promote_named(("beta*self", p3), ("alpha*(mat @ vec)", p2))?;
    check_cube_math_type(cube_math_type)?;
    crate::ensure!(
        self_.rank() <= 1 && mat.rank() == 2 && vec.rank() == 1 && out.rank() == 1,
        "self {:?}, mat {:?}, vec {:?} and out {:?} must have 0 or 1, 2, 1 and 1 dims",
        self_.shape,
        mat.shape,
        vec.shape,
        out.shape
    );
    let (m, k) = (mat.shape[0], mat.shape[1]);
    crate::ensure!(
        vec.shape[0] == k,
        "mat of shape {:?} and vec of shape {:?} cannot be multiplied: mat's last dim differs from vec's length",
        mat.shape,
        vec.shape
    );
    crate::ensure!(
        self_.rank() == 0 || self_.shape[0] == m || (self_.shape[0] == 1 && alpha_v != 0.0),
        "self of shape {:?} does not fit the product's shape [{m}] (a size-1 self broadcasts only when alpha is not 0)",
        self_.shape
    );
    ew::check_tensor("out", out, ADDMV)?;
    out.check_output("out")?;
    ew::check_out_cast(p, "out", out)?;
    crate::ensure!(
        out.shape[..] == [m],
        "'out' has shape {:?} but the product has shape [{m}]",
        out.shape
    );
    let tensors = vec![self_.clone(), mat.clone(), vec.clone(), out.clone()];
    if !p1.is_float() {
        let bindings = Bindings {
            tensors: std::sync::Arc::new(tensors.into_iter().map(Some).collect()),
            n_inputs: 3,
            outputs: smallvec::smallvec![3],
        };
        if out.is_empty() {
            return Ok(Executor::new("aclnnAddmv", bindings, Nothing));
        }
        let plan = IntAddmv::new(m, k, p1, (alpha, alpha_one, p2), (beta, beta_one, p3), p);
        return Ok(Executor::new("aclnnAddmv", bindings, plan));
    }
    // The product is computed in f64 if mat or vec is f64, else in f32.
    let c = if p1 == F64 { F64 } else { F32 };
    product(
        "aclnnAddmv",
        tensors,
        [2, 1],
        vec![],
        (1, m, k),
        [(0, vec.strides[0]), (mat.strides[1], mat.strides[0])],
        Some(0),
        3,
        c,
        alpha_v,
        beta_v,
        false,
    )
}

/// `a + b` (or `a * b`) in dtype `d`: both converted to `d` first, f16/bf16 computed in f32
/// and rounded once to `d`, integers wrapping, bool as or (and).
fn arith(a: Scalar, b: Scalar, d: DType, add: bool) -> Scalar {
    use crate::engine::kernel::Arith;
    let c = d.compute();
    let (x, y) = (a.cast(d).cast(c), b.cast(d).cast(c));
    let r = crate::with_compute_dtype!(c, T => {
        let (x, y) = (x.get::<T>(), y.get::<T>());
        Scalar::from_value(if add { x.add(y) } else { x.mul(y) })
    });
    r.cast(d)
}

/// Addmv of an integer or bool product (P1 = mat x vec not a float), as CANN's A2 code
/// computes it (`GetMulResult`, then `MulScalar` and `Add`):
/// - `prod[i] = sum_j mat[i,j]*vec[j]` in P1, wrapping (bool: `any_j (mat[i,j] and vec[j])`),
///   when alpha is not 0 and k > 0; then `alpha*prod` in P2 when alpha is not 1;
/// - the self term when there is no product or beta is not 0: self as it is when beta is 1,
///   else `beta*self` in P3 (with beta 0 and no product: 0 in P3, self not read, as the float
///   path and the header say; the device multiplies, so a NaN self stays NaN there);
/// - both terms added in P (bool: or), or the one term alone; then converted to out.
///
/// Mat's rows and vec are converted to P1 in the workspace, the m results are kept there
/// (in the result dtype) and written to out at the end, so out may overlap the inputs.
struct IntAddmv {
    m: usize,
    k: usize,
    p1: DType,
    /// alpha converted to P2, when alpha is not 1 (and there is a product).
    alpha: Option<(Scalar, DType)>,
    has_prod: bool,
    /// beta converted to P3, when beta is not 1.
    beta: Option<(Scalar, DType)>,
    beta_zero: bool,
    has_self: bool,
    /// The dtype of the result before out: P, or the dtype of the one term.
    result: DType,
    /// Workspace offsets: vec in P1 (at 0), one row of mat in P1, the m products in P1, the
    /// m results.
    row_at: usize,
    prod_at: usize,
    res_at: usize,
    workspace: u64,
}

impl IntAddmv {
    fn new(
        m: usize,
        k: usize,
        p1: DType,
        (alpha, alpha_one, p2): (&Scalar, bool, DType),
        (beta, beta_one, p3): (&Scalar, bool, DType),
        p: DType,
    ) -> IntAddmv {
        let has_prod = !near_f32(alpha, 0.0) && k > 0;
        let has_self = !has_prod || !near_f32(beta, 0.0);
        let result = match (has_prod, has_self) {
            (true, true) => p,
            (true, false) => p2,
            _ => p3,
        };
        let buf = align_up(k * p1.size());
        let (row_at, prod_at) = (buf, 2 * buf);
        let res_at = prod_at + align_up(m * p1.size());
        let ws = res_at + align_up(m * result.size());
        IntAddmv {
            m,
            k,
            p1,
            alpha: (!alpha_one).then(|| (alpha.cast(p2), p2)),
            has_prod,
            beta: (!beta_one).then(|| (beta.cast(p3), p3)),
            beta_zero: near_f32(beta, 0.0),
            has_self,
            result,
            row_at,
            prod_at,
            res_at,
            workspace: (ws + ALIGN) as u64,
        }
    }

    /// The m products in P1 (into `pbuf`), mat's rows converted one at a time.
    ///
    /// # Safety
    /// `vbuf`/`rbuf` hold k elements of P1 (T), `pbuf` m; mat's view is valid at `mat_addr`.
    unsafe fn products<T: crate::engine::kernel::Arith>(
        &self,
        mat: &TensorDesc,
        mat_addr: usize,
        vbuf: usize,
        rbuf: usize,
        pbuf: usize,
    ) {
        let size = mat.dtype.size() as isize;
        let v = unsafe { std::slice::from_raw_parts(vbuf as *const T, self.k) };
        for i in 0..self.m {
            let row =
                mat_addr as isize + (mat.offset as isize + i as isize * mat.strides[0]) * size;
            // SAFETY: row i of mat lies inside its view; rbuf holds k elements of P1.
            unsafe {
                convert::run(
                    row as *const u8,
                    mat.dtype,
                    mat.strides[1],
                    rbuf as *mut u8,
                    self.p1,
                    1,
                    self.k,
                )
            };
            let r = unsafe { std::slice::from_raw_parts(rbuf as *const T, self.k) };
            let mut acc = T::default();
            for j in 0..self.k {
                acc = acc.add(r[j].mul(v[j]));
            }
            // SAFETY: pbuf holds m elements of T.
            unsafe { *(pbuf as *mut T).add(i) = acc };
        }
    }
}

impl Work for IntAddmv {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }

    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        let base = ws.addr.div_ceil(ALIGN) * ALIGN;
        let (self_, mat, vec, out) = (t.view(0)?, t.view(1)?, t.view(2)?, t.view(3)?);
        let pbuf = base + self.prod_at;
        if self.has_prod {
            let (mat_addr, vec_addr) = (t.addr(1)?, t.addr(2)?);
            let src = vec_addr + vec.offset * vec.dtype.size();
            // SAFETY: vec's view is valid; the workspace holds k elements of P1 at `base`.
            unsafe {
                convert::run(
                    src as *const u8,
                    vec.dtype,
                    vec.strides[0],
                    base as *mut u8,
                    self.p1,
                    1,
                    self.k,
                )
            };
            let rbuf = base + self.row_at;
            // SAFETY: as `products` requires.
            crate::with_compute_dtype!(self.p1, T => unsafe {
                self.products::<T>(mat, mat_addr, base, rbuf, pbuf)
            });
        }
        let reads_self = self.has_self && !self.beta_zero;
        let self_addr = if reads_self { t.addr(0)? } else { 0 };
        let rsize = self.result.size();
        let res = base + self.res_at;
        for i in 0..self.m {
            let prod = self.has_prod.then(|| {
                let sz = self.p1.size();
                // SAFETY: product i was written above.
                let bytes = unsafe { std::slice::from_raw_parts((pbuf + i * sz) as *const u8, sz) };
                let x = Scalar::from_bytes(self.p1, bytes);
                match &self.alpha {
                    Some((a, p2)) => arith(x, *a, *p2, false),
                    None => x,
                }
            });
            let term = self.has_self.then(|| {
                if let (true, Some((_, p3))) = (self.beta_zero, &self.beta) {
                    return Scalar::from_value(0u8).cast(*p3);
                }
                let e = if self_.rank() == 0 || self_.shape[0] == 1 {
                    self_.offset
                } else {
                    self_.offset + i * self_.strides[0] as usize
                };
                let sz = self_.dtype.size();
                // SAFETY: element e lies inside self's view.
                let bytes =
                    unsafe { std::slice::from_raw_parts((self_addr + e * sz) as *const u8, sz) };
                let x = Scalar::from_bytes(self_.dtype, bytes);
                match &self.beta {
                    Some((b, p3)) => arith(x, *b, *p3, false),
                    None => x,
                }
            });
            let r = match (prod, term) {
                (Some(a), Some(b)) => arith(b, a, self.result, true),
                (Some(a), None) => a.cast(self.result),
                (None, Some(b)) => b.cast(self.result),
                (None, None) => unreachable!("Addmv has a product or a self term"),
            };
            // SAFETY: the results block holds m elements of the result dtype.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    r.bytes().as_ptr(),
                    (res + i * rsize) as *mut u8,
                    rsize,
                )
            };
        }
        let out_addr = t.addr(3)? + out.offset * out.dtype.size();
        // SAFETY: out's view holds m elements at its stride.
        unsafe {
            convert::run(
                res as *const u8,
                self.result,
                1,
                out_addr as *mut u8,
                out.dtype,
                out.strides[0],
                self.m,
            )
        };
        Ok(())
    }
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "Mm, BatchMatMul, Matmul, MatmulWeightNz, BatchMatMulWeightNz",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "matrix product, f32 accumulation (any f32/f16/bf16 mix; no f64 on A2)",
    },
    Entry {
        ops: "Addmm, InplaceAddmm, AddmmWeightNz",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "beta·self + alpha·(mat1@mat2)",
    },
    Entry {
        ops: "Baddbmm, InplaceBaddbmm",
        a: LIST,
        b: LIST,
        out: LIST,
        rule: "beta·self + alpha·(batch1@batch2), self broadcast one way (any f32/f16/bf16 mix)",
    },
    Entry {
        ops: "Addmv",
        a: ADDMV,
        b: ADDMV,
        out: ADDMV,
        rule: "beta·self + alpha·(mat@vec); bf16 mixes (promoted to f32); integers wrap, bool is logical",
    },
];
