//! Convolution (reference §5.7): 1-D/2-D/3-D, strided, padded (2-D also asymmetrically),
//! dilated, grouped, with an optional bias, and transposed (conv_transpose, with
//! outputPadding).
//!
//! Rules:
//! - input, weight and output are 3-D NCL, 4-D NCHW or 5-D NCDHW, all of the same rank;
//!   ND or a format that disagrees with the rank is refused, and so are the channels-last
//!   layouts (NHWC, NDHWC, HWCN): a channels-last buffer can be passed as an NCHW view with
//!   permuted strides instead. bias is NULL or a 1-D tensor of Cout.
//! - stride and dilation: rank−2 values > 0. padding: values ≥ 0; conv1d 1 value or 2
//!   ([begin, end]; transposed: 1 only), conv2d 2 ([h, w]) or 4 ([top, bottom, left,
//!   right]), conv3d 3. outputPadding: required; when transposed it has rank−2 values with
//!   0 ≤ v < stride or v < dilation (it is not looked at otherwise).
//! - groups in [1, 65535]. Forward: weight (Cout, Cin/groups, k...), Cout divisible by
//!   groups. Transposed: weight (Cin, Cout/groups, k...), Cin divisible by groups, and the
//!   output has weight.shape[1]·groups channels. Kernel sizes ≥ 1.
//! - Output spatial size: forward `floor((in + pb + pe − dil·(k−1) − 1)/stride) + 1`, which
//!   needs the padded input to be at least the dilated kernel; transposed
//!   `(in − 1)·stride − pb − pe + dil·(k−1) + outputPadding + 1`, which must be ≥ 1. output's
//!   shape must be the inferred one exactly.
//! - Empty tensors: N = 0 or Cout = 0 give an empty output (success, nothing to do). A 0
//!   channel or spatial dim in input is accepted only when the output is empty as well.
//! - Dtypes f32, f16, bf16; input and weight promote (any mix: bf16 with f16/f32 gives f32,
//!   CANN's `GetUpperFloatDataType`), bias follows the same rule against their result; output is of the promoted
//!   dtype when transposed, and may be any of the three otherwise (the result is cast).
//!   cubeMathType 0..4, as for matmul. Everything is computed in f32: f16/bf16 values are
//!   converted to f32 in the workspace, accumulated in f32 and rounded once into output.
//!
//! Computation: per (batch, group) item, forward convolution is `W_g @ im2col(x)` and
//! transposed convolution `col2im(W_gᵀ @ x)` (accumulating), with the `gemm` crate. The
//! forward im2col is built in blocks of output rows small enough to stay in a core's L2
//! cache until the GEMM has read them (a 1x1, stride-1, unpadded kernel reads the input
//! directly). All temporaries (the f32 weight and bias, per-task input/col/output buffers,
//! and a copy of the input when it overlaps the output) live in the workspace sized in
//! phase 1. The (item, block) units run in parallel on the library's pool, or one after
//! another with a multi-threaded GEMM when there are fewer units than threads.

use super::catalog::Entry;
use super::elementwise as ew;
use super::gemm::{self, Mat};
use super::matmul::{check_cube_math_type, computation};
use crate::dtype::DType;
use crate::engine::{align_up, convert, pool, ALIGN};
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;

use DType::*;
const LIST: &[DType] = &[F32, F16, BF16];
const F: usize = 4; // size of f32
/// Bytes of im2col columns built before the GEMM consumes them (small in tests, so that
/// their cases go through several blocks).
const COL_BLOCK: usize = if cfg!(test) { 1024 } else { 384 * 1024 };

/// A tensor seen as 5 dims (N, C, D, H, W) — or (O, I, D, H, W) for weights — with size-1
/// spatial dims inserted in front of 1-D/2-D ones.
#[derive(Clone, Copy, Debug)]
struct V5 {
    binding: usize,
    dtype: DType,
    offset: usize,
    shape: [usize; 5],
    strides: [isize; 5],
}

impl V5 {
    fn of(binding: usize, t: &TensorDesc) -> V5 {
        let r = t.rank();
        let mut shape = [1usize; 5];
        let mut strides = [0isize; 5];
        let lead = r.min(2);
        shape[..lead].copy_from_slice(&t.shape[..lead]);
        strides[..lead].copy_from_slice(&t.strides[..lead]);
        shape[5 - (r - lead)..].copy_from_slice(&t.shape[lead..]);
        strides[5 - (r - lead)..].copy_from_slice(&t.strides[lead..]);
        V5 {
            binding,
            dtype: t.dtype,
            offset: t.offset,
            shape,
            strides,
        }
    }
}

/// Row-major strides of a 5-dim shape.
fn dense(shape: [usize; 5]) -> [isize; 5] {
    let mut s = [1isize; 5];
    for i in (0..4).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// The single stride the spatial dims (D, H, W) collapse to, if they do.
fn merged_stride(shape: &[usize], strides: &[isize]) -> Option<isize> {
    let mut inner: Option<(isize, usize)> = None; // (stride, size) of the next inner non-1 dim
    for i in (0..shape.len()).rev() {
        if shape[i] == 1 {
            continue;
        }
        if let Some((s, n)) = inner {
            if strides[i] != s * n as isize {
                return None;
            }
            inner = Some((s, n * shape[i]));
        } else {
            inner = Some((strides[i], shape[i]));
        }
    }
    Some(inner.map_or(1, |(s, _)| s))
}

/// Copies a 5-dim strided block between dtypes, one innermost row at a time.
///
/// # Safety
/// Both ranges must be valid for the shape and strides (in elements of their dtypes).
unsafe fn copy5(
    src: usize,
    sd: DType,
    ss: [isize; 5],
    dst: usize,
    dd: DType,
    ds: [isize; 5],
    shape: [usize; 5],
) {
    if shape.contains(&0) {
        return;
    }
    let (sz, dz) = (sd.size() as isize, dd.size() as isize);
    for a in 0..shape[0] {
        for b in 0..shape[1] {
            for c in 0..shape[2] {
                for d in 0..shape[3] {
                    let idx = [a as isize, b as isize, c as isize, d as isize];
                    let so: isize = (0..4).map(|i| idx[i] * ss[i]).sum();
                    let do_: isize = (0..4).map(|i| idx[i] * ds[i]).sum();
                    // SAFETY: the row lies inside both ranges, as the caller guarantees.
                    unsafe {
                        convert::run(
                            (src as isize + so * sz) as *const u8,
                            sd,
                            ss[4],
                            (dst as isize + do_ * dz) as *mut u8,
                            dd,
                            ds[4],
                            shape[4],
                        )
                    };
                }
            }
        }
    }
}

/// Positions p in [0, n) with 0 <= p*stride + off < limit, as a range.
fn valid(n: usize, stride: usize, off: isize, limit: usize) -> (usize, usize) {
    let s = stride as isize;
    let lo = if off >= 0 { 0 } else { (-off + s - 1) / s };
    let hi = if limit as isize - off <= 0 {
        0
    } else {
        (limit as isize - off + s - 1) / s
    };
    let lo = (lo as usize).min(n);
    (lo, (hi as usize).clamp(lo, n))
}

/// The geometry, in 3 spatial dims (missing ones are size 1, stride 1, no padding).
#[derive(Clone, Copy, Debug)]
struct Geom {
    n: usize,
    groups: usize,
    /// Channels per group of the input and of the output.
    cin_g: usize,
    cout_g: usize,
    input: [usize; 3],
    out: [usize; 3],
    k: [usize; 3],
    stride: [usize; 3],
    pad: [usize; 3],
    dil: [usize; 3],
    transposed: bool,
}

impl Geom {
    fn kk(&self) -> usize {
        self.k.iter().product()
    }
    fn pin(&self) -> usize {
        self.input.iter().product()
    }
    fn pout(&self) -> usize {
        self.out.iter().product()
    }
    /// A 1x1 kernel, stride 1, no padding: im2col is the input itself.
    fn pointwise(&self) -> bool {
        !self.transposed && self.kk() == 1 && self.stride == [1; 3] && self.input == self.out
    }
    /// Output rows (od, oh) per im2col block: the block's columns stay in a core's L2
    /// cache between im2col and the GEMM that reads them.
    fn block_rows(&self) -> usize {
        let rows = self.out[0] * self.out[1];
        if self.pointwise() {
            return rows.max(1);
        }
        let per_row = self.cin_g * self.kk() * self.out[2] * F;
        (COL_BLOCK / per_row.max(1)).clamp(1, rows.max(1))
    }
    /// Row blocks per item (a transposed convolution's item is one block).
    fn blocks(&self) -> usize {
        if self.transposed {
            1
        } else {
            (self.out[0] * self.out[1]).div_ceil(self.block_rows())
        }
    }
    /// Positions (columns of the GEMM) of a full block.
    fn block_len(&self) -> usize {
        if self.transposed {
            self.pout()
        } else {
            self.block_rows() * self.out[2]
        }
    }
    /// Calls `f(row, channel, off)` for every (channel, kd, kh, kw) row of a col matrix, in
    /// order, where off = k·dilation − padding per spatial dim.
    fn kernel_rows(&self, channels: usize, mut f: impl FnMut(usize, usize, [isize; 3])) {
        let mut row = 0;
        for c in 0..channels {
            for kd in 0..self.k[0] {
                for kh in 0..self.k[1] {
                    for kw in 0..self.k[2] {
                        let off =
                            |i: usize, k: usize| (k * self.dil[i]) as isize - self.pad[i] as isize;
                        f(row, c, [off(0, kd), off(1, kh), off(2, kw)]);
                        row += 1;
                    }
                }
            }
        }
    }
    /// (m, n, k) of one item's GEMM.
    fn gemm_dims(&self) -> (usize, usize, usize) {
        if self.transposed {
            (self.cout_g * self.kk(), self.pin(), self.cin_g)
        } else {
            (self.cout_g, self.pout(), self.cin_g * self.kk())
        }
    }
}

/// Where one item reads its input from: f32 values at `addr` with strides (C, D, H, W).
#[derive(Clone, Copy)]
struct Src {
    addr: usize,
    s: [isize; 4],
}

struct Conv {
    g: Geom,
    input: V5,
    weight: V5,
    bias: Option<V5>,
    output: V5,
    /// Workspace offsets: the f32 weight, the f32 bias, the staged input.
    w_off: usize,
    b_off: usize,
    staged_input: Option<usize>,
    /// Per-task buffers: each task's region starts at tasks_off + t*task_bytes.
    tasks_off: usize,
    task_bytes: usize,
    xin: Option<usize>,
    col: Option<usize>,
    yout: Option<usize>,
    tasks: usize,
    /// GEMM threads when units run one after another.
    gemm_threads: usize,
    /// The GEMM writes output directly (f32, spatial dims collapsible, forward).
    direct_out: Option<isize>,
    workspace: u64,
}

fn overlaps(a: &TensorDesc, b: &TensorDesc) -> bool {
    matches!((a.byte_span(), b.byte_span()), (Some(x), Some(y)) if x.0 <= y.1 && y.0 <= x.1)
}

impl Conv {
    fn plan(
        g: Geom,
        input: &TensorDesc,
        weight: &TensorDesc,
        bias: Option<&TensorDesc>,
        output: &TensorDesc,
    ) -> Conv {
        let iv = V5::of(0, input);
        let ov = V5::of(3, output);
        let mut ws = 0usize;
        let mut take = |bytes: usize| {
            let at = ws;
            ws += align_up(bytes);
            at
        };
        let w_off = take(weight.numel() * F);
        let b_off = take(bias.map_or(0, |b| b.numel() * F));
        let stage = overlaps(input, output);
        let staged_input = stage.then(|| take(input.numel() * F));
        let spatial_in = merged_stride(&iv.shape[2..], &iv.strides[2..]);
        let as_matrix = g.transposed || g.pointwise();
        let need_xin = !stage && (input.dtype != F32 || (as_matrix && spatial_in.is_none()));
        let out_sp = merged_stride(&ov.shape[2..], &ov.strides[2..]);
        let direct_out = match (output.dtype, g.transposed) {
            (F32, false) => out_sp,
            _ => None,
        };
        let mut task_bytes = 0usize;
        let mut sub = |bytes: usize| {
            let at = task_bytes;
            task_bytes += align_up(bytes);
            at
        };
        let xin = need_xin.then(|| sub(g.cin_g * g.pin() * F));
        let col = if g.transposed {
            Some(sub(g.cout_g * g.kk() * g.pin() * F))
        } else if g.pointwise() {
            None
        } else {
            Some(sub(g.cin_g * g.kk() * g.block_rows() * g.out[2] * F))
        };
        let yout = direct_out
            .is_none()
            .then(|| sub(g.cout_g * g.block_len() * F));
        let units = g.n * g.groups * g.blocks();
        let threads = pool().current_num_threads().max(1);
        let (m, n, k) = g.gemm_dims();
        let small = m * n.min(g.block_len()) * k < 64 * 64 * 64;
        let (tasks, gemm_threads) = if units >= threads || small || threads == 1 {
            (units.min(threads).max(1), 1)
        } else {
            (1, threads)
        };
        let tasks_off = ws;
        ws += tasks * task_bytes;
        Conv {
            g,
            input: iv,
            weight: V5::of(1, weight),
            bias: bias.map(|b| V5::of(2, b)),
            output: ov,
            w_off,
            b_off,
            staged_input,
            tasks_off,
            task_bytes,
            xin,
            col,
            yout,
            tasks,
            gemm_threads,
            direct_out,
            workspace: if ws == 0 { 0 } else { (ws + ALIGN) as u64 },
        }
    }

    /// Address of a view's element (n, c) with the spatial origin.
    fn at(v: &V5, addr: usize, n: usize, c: usize) -> usize {
        (addr as isize
            + (v.offset as isize + n as isize * v.strides[0] + c as isize * v.strides[1])
                * v.dtype.size() as isize) as usize
    }

    /// The input of item (n, grp) as f32, converting it into `xin` when needed.
    unsafe fn source(
        &self,
        in_addr: usize,
        base: usize,
        task: usize,
        n: usize,
        grp: usize,
        fresh: bool,
    ) -> Src {
        let g = &self.g;
        let c0 = grp * g.cin_g;
        let iv = &self.input;
        let dense_src = |addr: usize| Src {
            addr,
            s: [
                g.pin() as isize,
                (g.input[1] * g.input[2]) as isize,
                g.input[2] as isize,
                1,
            ],
        };
        if let Some(off) = self.staged_input {
            let c_all = g.cin_g * g.groups;
            return dense_src(base + off + ((n * c_all + c0) * g.pin()) * F);
        }
        match self.xin {
            None => Src {
                addr: Self::at(iv, in_addr, n, c0),
                s: [iv.strides[1], iv.strides[2], iv.strides[3], iv.strides[4]],
            },
            Some(off) => {
                let dst = base + self.tasks_off + task * self.task_bytes + off;
                let shape = [1, g.cin_g, g.input[0], g.input[1], g.input[2]];
                // SAFETY: the slice lies inside input's view; xin holds cin_g*pin f32.
                if fresh {
                    copy5(
                        Self::at(iv, in_addr, n, c0),
                        iv.dtype,
                        iv.strides,
                        dst,
                        F32,
                        dense(shape),
                        shape,
                    )
                }
                dense_src(dst)
            }
        }
    }

    /// im2col of one group for a block of output rows (od, oh): col[(c, kd, kh, kw), (row, ow)].
    unsafe fn im2col(&self, src: Src, col: *mut f32, rows: std::ops::Range<usize>) {
        let g = &self.g;
        let [_, oh_n, ow_n] = g.out;
        let p = rows.len() * ow_n;
        let s = src.s;
        g.kernel_rows(g.cin_g, |row, c, [offd, offh, offw]| {
            let (w_lo, w_hi) = valid(ow_n, g.stride[2], offw, g.input[2]);
            for (j, orow) in rows.clone().enumerate() {
                let (od, oh) = (orow / oh_n, orow % oh_n);
                let id = (od * g.stride[0]) as isize + offd;
                let ih = (oh * g.stride[1]) as isize + offh;
                // SAFETY: col holds cin_g*kk rows of p f32; src reads stay in range by the
                // valid() bounds and the id/ih checks.
                unsafe {
                    let dst = col.add(row * p + j * ow_n);
                    if id < 0 || id >= g.input[0] as isize || ih < 0 || ih >= g.input[1] as isize {
                        std::ptr::write_bytes(dst, 0, ow_n);
                        continue;
                    }
                    std::ptr::write_bytes(dst, 0, w_lo);
                    std::ptr::write_bytes(dst.add(w_hi), 0, ow_n - w_hi);
                    let line =
                        (src.addr as *const f32).offset(c as isize * s[0] + id * s[1] + ih * s[2]);
                    let step = g.stride[2] as isize * s[3];
                    let mut q = line.offset(((w_lo * g.stride[2]) as isize + offw) * s[3]);
                    if step == 1 {
                        std::ptr::copy_nonoverlapping(q, dst.add(w_lo), w_hi - w_lo);
                    } else {
                        for ow in w_lo..w_hi {
                            *dst.add(ow) = *q;
                            q = q.offset(step);
                        }
                    }
                }
            }
        });
    }

    /// col2im of one group: y[co, o] += col[(co, kd, kh, kw), (id, ih, iw)].
    unsafe fn col2im(&self, col: *const f32, y: *mut f32) {
        let g = &self.g;
        let [id_n, ih_n, iw_n] = g.input;
        let [od_n, oh_n, ow_n] = g.out;
        let pin = g.pin();
        g.kernel_rows(g.cout_g, |row, co, [offd, offh, offw]| {
            let (d_lo, d_hi) = valid(id_n, g.stride[0], offd, od_n);
            let (h_lo, h_hi) = valid(ih_n, g.stride[1], offh, oh_n);
            let (w_lo, w_hi) = valid(iw_n, g.stride[2], offw, ow_n);
            for id in d_lo..d_hi {
                let od = ((id * g.stride[0]) as isize + offd) as usize;
                for ih in h_lo..h_hi {
                    let oh = ((ih * g.stride[1]) as isize + offh) as usize;
                    // SAFETY: y holds cout_g*pout f32 and col cout_g*kk rows of pin; every
                    // index is bounded by valid().
                    unsafe {
                        let src = col.add(row * pin + (id * ih_n + ih) * iw_n);
                        let dst = y.add(co * g.pout() + (od * oh_n + oh) * ow_n);
                        for iw in w_lo..w_hi {
                            let ow = ((iw * g.stride[2]) as isize + offw) as usize;
                            *dst.add(ow) += *src.add(iw);
                        }
                    }
                }
            }
        });
    }

    /// One unit: a (batch, group) item's block of output rows (a transposed item is one
    /// block). `fresh`: the task's xin does not hold this item's input yet.
    unsafe fn unit(&self, t: &Tensors, task: usize, u: usize, fresh: bool, threads: usize) {
        let g = &self.g;
        let (item, blk) = (u / g.blocks(), u % g.blocks());
        let (n, grp) = (item / g.groups, item % g.groups);
        let region = t.base + self.tasks_off + task * self.task_bytes;
        // SAFETY (whole body): every address was validated in phase 1 (views inside their
        // storage) or lies in the workspace phase 1 sized.
        unsafe {
            let src = self.source(t.input, t.base, task, n, grp, fresh);
            let (m, nn, k) = g.gemm_dims();
            let w = (t.base + self.w_off) as *const f32;
            let bias = self
                .bias
                .map(|_| (t.base + self.b_off) as *const f32)
                .map(|b| b.add(grp * g.cout_g));
            let ov = &self.output;
            let out_at = Self::at(ov, t.output, n, grp * g.cout_g);
            if g.transposed {
                let col = (region + self.col.unwrap()) as *mut f32;
                let lhs = w.add(grp * g.cin_g * m);
                let rhs_cs = merged_stride(&g.input, &src.s[1..]).unwrap_or(1);
                gemm::Product::<f32> {
                    m,
                    n: nn,
                    k,
                    dst: Mat {
                        ptr: col,
                        rs: nn as isize,
                        cs: 1,
                    },
                    scale: None,
                    lhs: Mat {
                        ptr: lhs,
                        rs: 1,
                        cs: m as isize,
                    },
                    rhs: Mat {
                        ptr: src.addr as *const f32,
                        rs: src.s[0],
                        cs: rhs_cs,
                    },
                    alpha: 1.0,
                    threads,
                }
                .run();
                let y = region + self.yout.unwrap();
                fill_rows(
                    y as *mut f32,
                    g.cout_g,
                    g.pout(),
                    g.pout() as isize,
                    1,
                    bias,
                );
                self.col2im(col, y as *mut f32);
                let shape = [1, g.cout_g, g.out[0], g.out[1], g.out[2]];
                copy5(y, F32, dense(shape), out_at, ov.dtype, ov.strides, shape);
                return;
            }
            let lhs = w.add(grp * g.cout_g * k);
            let ow = g.out[2];
            let rows = g.out[0] * g.out[1];
            let r0 = blk * g.block_rows();
            let r1 = (r0 + g.block_rows()).min(rows);
            let nb = (r1 - r0) * ow;
            let (rhs, rhs_rs, rhs_cs) = match self.col {
                Some(off) => {
                    let col = (region + off) as *mut f32;
                    self.im2col(src, col, r0..r1);
                    (col as *const f32, nb as isize, 1)
                }
                None => {
                    let cs = merged_stride(&g.input, &src.s[1..]).unwrap_or(1);
                    (
                        (src.addr as *const f32).offset((r0 * ow) as isize * cs),
                        src.s[0],
                        cs,
                    )
                }
            };
            // The block's (channels × positions) destination: output itself, or yout.
            let (d, rs, cs) = match self.direct_out {
                Some(cs) => (
                    (out_at as *mut f32).offset((r0 * ow) as isize * cs),
                    ov.strides[1],
                    cs,
                ),
                None => ((region + self.yout.unwrap()) as *mut f32, nb as isize, 1),
            };
            if bias.is_some() {
                fill_rows(d, m, nb, rs, cs, bias);
            }
            // Computed as dᵀ (positions × channels) = colᵀ @ Wᵀ: the long dim is the GEMM's
            // m, as in a matrix product of (N·H·W, K) @ (K, Cout).
            gemm::Product::<f32> {
                m: nb,
                n: m,
                k,
                dst: Mat {
                    ptr: d,
                    rs: cs,
                    cs: rs,
                },
                scale: bias.map(|_| 1.0),
                lhs: Mat {
                    ptr: rhs,
                    rs: rhs_cs,
                    cs: rhs_rs,
                },
                rhs: Mat {
                    ptr: lhs,
                    rs: 1,
                    cs: k as isize,
                },
                alpha: 1.0,
                threads,
            }
            .run();
            if self.direct_out.is_none() {
                // yout's rows (co, block row, ow) go to output rows (co, od, oh, ow).
                let osz = ov.dtype.size() as isize;
                for co in 0..m {
                    for (j, r) in (r0..r1).enumerate() {
                        let (od, oh) = (r / g.out[1], r % g.out[1]);
                        let o = co as isize * ov.strides[1]
                            + od as isize * ov.strides[2]
                            + oh as isize * ov.strides[3];
                        convert::run(
                            d.add(co * nb + j * ow) as *const u8,
                            F32,
                            1,
                            (out_at as isize + o * osz) as *mut u8,
                            ov.dtype,
                            ov.strides[4],
                            ow,
                        );
                    }
                }
            }
        }
    }
}

/// Sets rows r of an (m, n) strided f32 matrix to bias[r], or to 0 without a bias.
unsafe fn fill_rows(
    dst: *mut f32,
    m: usize,
    n: usize,
    rs: isize,
    cs: isize,
    bias: Option<*const f32>,
) {
    for r in 0..m {
        // SAFETY: the caller passes a valid (m, n) matrix and a bias of m values.
        unsafe {
            let v = bias.map_or(0.0, |b| *b.add(r));
            let row = dst.offset(r as isize * rs);
            for c in 0..n {
                *row.offset(c as isize * cs) = v;
            }
        }
    }
}

/// The addresses of one run.
struct Tensors {
    input: usize,
    output: usize,
    base: usize,
}

impl Work for Conv {
    fn workspace_size(&self) -> u64 {
        self.workspace
    }

    /// A repeatable executor re-addressed so that output now overlaps the input it reads in
    /// place is refused (it would be read after being written).
    fn check(&self, t: &Bindings) -> Result<()> {
        // By reference: phase 2 allocates nothing outside the workspace.
        let view = |i: usize| t.tensors.get(i).and_then(|v| v.as_ref());
        let (Some(input), Some(output)) = (view(0), view(3)) else {
            return Err(crate::error::Error::Internal(
                "convolution bindings are missing".into(),
            ));
        };
        if self.staged_input.is_none() && overlaps(input, output) {
            crate::bail!(
                "input now overlaps output, which it did not when the executor was planned; plan again"
            );
        }
        Ok(())
    }

    fn run(&self, t: &Bindings, ws: Workspace) -> Result<()> {
        self.check(t)?;
        // A non-empty convolution always has a workspace (the f32 weight, at least).
        let base = align_up(ws.addr);
        let tensors = Tensors {
            input: t.addr(0)?,
            output: t.addr(3)?,
            base,
        };
        let stage = |v: &V5, off: usize| -> Result<()> {
            let addr = Self::at(v, t.addr(v.binding)?, 0, 0);
            // SAFETY: the view lies in its storage; the workspace block holds numel f32.
            unsafe {
                copy5(
                    addr,
                    v.dtype,
                    v.strides,
                    base + off,
                    F32,
                    dense(v.shape),
                    v.shape,
                )
            };
            Ok(())
        };
        stage(&self.weight, self.w_off)?;
        if let Some(b) = &self.bias {
            stage(b, self.b_off)?;
        }
        if let Some(off) = self.staged_input {
            stage(&self.input, off)?;
        }
        let units = self.g.n * self.g.groups * self.g.blocks();
        let run_units = |task: usize, range: std::ops::Range<usize>, threads: usize| {
            let blocks = self.g.blocks();
            for u in range.clone() {
                let fresh = u == range.start || u / blocks != (u - 1) / blocks;
                // SAFETY: see Conv::unit; tasks use disjoint workspace regions and write
                // disjoint output elements.
                unsafe { self.unit(&tensors, task, u, fresh, threads) };
            }
        };
        pool().install(|| {
            if self.tasks == 1 {
                run_units(0, 0..units, self.gemm_threads);
            } else {
                use rayon::prelude::*;
                let tasks = self.tasks;
                (0..tasks).into_par_iter().for_each(|task| {
                    run_units(task, task * units / tasks..(task + 1) * units / tasks, 1)
                });
            }
        });
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------

const API: &str = "aclnnConvolution";

/// The layout format a conv tensor of `rank` dims must have.
fn check_format(name: &str, t: &TensorDesc) -> Result<()> {
    let want = match t.rank() {
        3 => Format::NCL,
        4 => Format::NCHW,
        _ => Format::NCDHW,
    };
    if t.format == want {
        return Ok(());
    }
    if matches!(t.format, Format::NHWC | Format::NDHWC | Format::HWCN) {
        crate::bail!(
            "tensor '{name}' has format {}: channels-last layouts are not supported by {API}; \
             pass the data as a {want} view (permuted strides describe the same memory)",
            t.format
        );
    }
    crate::bail!(
        "tensor '{name}' has format {} and {} dims, but {API} needs {want} for a {}-D tensor \
         (ACL_FORMAT_NCL for 3-D, ACL_FORMAT_NCHW for 4-D, ACL_FORMAT_NCDHW for 5-D)",
        t.format,
        t.rank(),
        t.rank()
    );
}

/// A list attribute of rank−2 positive values.
fn positive(name: &str, v: &[i64], sp: usize) -> Result<Vec<usize>> {
    crate::ensure!(
        v.len() == sp,
        "{name} has {} values {v:?} but a {}-D convolution needs {sp} (input rank − 2)",
        v.len(),
        sp
    );
    v.iter()
        .map(|&x| {
            crate::ensure!(
                x > 0,
                "{name} {v:?} has a value {x}; every value must be > 0"
            );
            Ok(x as usize)
        })
        .collect()
}

/// Padding as (begin, end) per spatial dim.
fn paddings(v: &[i64], sp: usize, transposed: bool) -> Result<Vec<(usize, usize)>> {
    let allowed: &[usize] = match (sp, transposed) {
        (1, false) => &[1, 2],
        (1, true) => &[1],
        (2, _) => &[2, 4],
        _ => &[3],
    };
    crate::ensure!(
        allowed.contains(&v.len()),
        "padding {v:?} has {} values; a {}{}-D convolution takes {}",
        v.len(),
        if transposed { "transposed " } else { "" },
        sp,
        match allowed {
            [1, 2] => "1 ([l]) or 2 ([begin, end])",
            [1] => "1",
            [2, 4] => "2 ([h, w]) or 4 ([top, bottom, left, right])",
            _ => "3 ([d, h, w])",
        }
    );
    if let Some(x) = v.iter().find(|&&x| x < 0) {
        crate::bail!("padding {v:?} has a value {x}; every value must be >= 0");
    }
    let u: Vec<usize> = v.iter().map(|&x| x as usize).collect();
    Ok(if u.len() == sp {
        u.iter().map(|&p| (p, p)).collect()
    } else {
        u.chunks(2).map(|c| (c[0], c[1])).collect()
    })
}

/// aclnnConvolution (reference §5.7).
#[allow(clippy::too_many_arguments)]
pub fn convolution(
    input: &TensorDesc,
    weight: &TensorDesc,
    bias: Option<&TensorDesc>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
    groups: i64,
    output: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    for (name, t) in [("input", input), ("weight", weight), ("output", output)] {
        crate::ensure!(
            LIST.contains(&t.dtype),
            "tensor '{name}' has dtype {}, which {API} does not support; supported: FLOAT, FLOAT16, BFLOAT16",
            t.dtype
        );
    }
    let rank = input.rank();
    crate::ensure!(
        (3..=5).contains(&rank),
        "input has {rank} dims {:?}; {API} takes 3-D (NCL), 4-D (NCHW) or 5-D (NCDHW) input",
        input.shape
    );
    for (name, t) in [("weight", weight), ("output", output)] {
        crate::ensure!(
            t.rank() == rank,
            "{name} has {} dims {:?} but input has {rank} dims {:?}; they must have the same rank",
            t.rank(),
            t.shape,
            input.shape
        );
    }
    for (name, t) in [("input", input), ("weight", weight), ("output", output)] {
        check_format(name, t)?;
    }
    let (p, _) = computation(("input", input.dtype), ("weight", weight.dtype))?;
    if let Some(b) = bias {
        ew::check_tensor("bias", b, LIST)?;
        computation(("bias", b.dtype), ("input and weight", p))?;
    }
    if transposed {
        crate::ensure!(
            output.dtype == p,
            "output has dtype {} but a transposed convolution's output must have the dtype of input and weight, {p}",
            output.dtype
        );
    }
    check_cube_math_type(cube_math_type)?;
    output.check_output("output")?;

    let sp = rank - 2;
    let stride = positive("stride", stride, sp)?;
    let dilation = positive("dilation", dilation, sp)?;
    let pads = paddings(padding, sp, transposed)?;
    crate::ensure!(
        (1..=65535).contains(&groups),
        "groups {groups} is outside [1, 65535]"
    );
    let groups = groups as usize;
    let out_pad: Vec<usize> = if transposed {
        crate::ensure!(
            output_padding.len() == sp,
            "outputPadding has {} values {output_padding:?} but a {sp}-D transposed convolution needs {sp}",
            output_padding.len()
        );
        for (i, &v) in output_padding.iter().enumerate() {
            crate::ensure!(
                v >= 0 && (v < stride[i] as i64 || v < dilation[i] as i64),
                "outputPadding {output_padding:?}: value {v} at {i} must be >= 0 and smaller than stride ({}) or dilation ({})",
                stride[i],
                dilation[i]
            );
        }
        output_padding.iter().map(|&v| v as usize).collect()
    } else {
        vec![0; sp]
    };

    let (n, cin) = (input.shape[0], input.shape[1]);
    let ksz = &weight.shape[2..];
    let (cin_g, cout_g) = if transposed {
        crate::ensure!(
            weight.shape[0] == cin,
            "weight {:?}: a transposed convolution's weight is (Cin, Cout/groups, k...) and its first dim must be input's channels {cin}",
            weight.shape
        );
        crate::ensure!(
            cin.is_multiple_of(groups),
            "groups {groups} does not divide input's channels {cin}"
        );
        (cin / groups, weight.shape[1])
    } else {
        crate::ensure!(
            weight.shape[1] * groups == cin,
            "weight {:?} with groups {groups}: weight's channels {} × groups must equal input's channels {cin}",
            weight.shape,
            weight.shape[1]
        );
        crate::ensure!(
            weight.shape[0].is_multiple_of(groups),
            "groups {groups} does not divide weight's output channels {} (weight {:?})",
            weight.shape[0],
            weight.shape
        );
        (weight.shape[1], weight.shape[0] / groups)
    };
    let cout = cout_g * groups;
    crate::ensure!(
        ksz.iter().all(|&k| k >= 1),
        "weight {:?} has a kernel size of 0; kernel sizes must be >= 1",
        weight.shape
    );
    if let Some(b) = bias {
        crate::ensure!(
            b.rank() == 1 && b.shape[0] == cout,
            "bias has shape {:?} but must be 1-D of the output channels [{cout}]{}",
            b.shape,
            if transposed {
                " (weight.shape[1] × groups)"
            } else {
                " (weight.shape[0])"
            }
        );
    }
    let mut out_sp = Vec::with_capacity(sp);
    for i in 0..sp {
        let (inp, k, s, d) = (
            input.shape[2 + i] as i128,
            ksz[i] as i128,
            stride[i] as i128,
            dilation[i] as i128,
        );
        let (pb, pe) = (pads[i].0 as i128, pads[i].1 as i128);
        let span = d * (k - 1) + 1;
        let o = if transposed {
            let o = (inp - 1) * s - pb - pe + span + out_pad[i] as i128;
            crate::ensure!(
                o >= 1 || inp == 0,
                "spatial dim {i}: the transposed output size (({inp} − 1)·{s} − {pb} − {pe} + {span} + {}) is {o}; it must be >= 1",
                out_pad[i]
            );
            o
        } else {
            crate::ensure!(
                inp + pb + pe >= span,
                "spatial dim {i}: the padded input ({inp} + {pb} + {pe}) is smaller than the dilated kernel ({d}·({k} − 1) + 1 = {span})"
            );
            (inp + pb + pe - span) / s + 1
        };
        out_sp.push(o.max(0) as usize);
    }
    let mut want = vec![n, cout];
    want.extend(&out_sp);
    crate::ensure!(
        output.shape[..] == want[..],
        "output has shape {:?} but the convolution's output shape is {want:?}",
        output.shape
    );
    if input.is_empty() && !output.is_empty() {
        crate::bail!(
            "input {:?} has a dim of 0 but the output {:?} is not empty: a zero channel or spatial dim is accepted only with an empty output",
            input.shape,
            output.shape
        );
    }

    let bindings = Bindings {
        tensors: std::sync::Arc::new(vec![
            Some(input.clone()),
            Some(weight.clone()),
            bias.cloned(),
            Some(output.clone()),
        ]),
        n_inputs: 3,
        outputs: smallvec::smallvec![3],
    };
    if output.is_empty() {
        return Ok(Executor::new(API, bindings, Nothing));
    }
    let pad3 = |v: &[usize], fill: usize| -> [usize; 3] {
        let mut a = [fill; 3];
        a[3 - v.len()..].copy_from_slice(v);
        a
    };
    let g = Geom {
        n,
        groups,
        cin_g,
        cout_g,
        input: pad3(&input.shape[2..], 1),
        out: pad3(&out_sp, 1),
        k: pad3(ksz, 1),
        stride: pad3(&stride, 1),
        pad: pad3(&pads.iter().map(|p| p.0).collect::<Vec<_>>(), 0),
        dil: pad3(&dilation, 1),
        transposed,
    };
    let plan = Conv::plan(g, input, weight, bias, output);
    Ok(Executor::new(API, bindings, plan))
}

/// aclnnConvTbc: a 1-D convolution of a (time, batch, channel) input with a (kernel
/// width, in, out) weight and a required bias (Cout), padded by `pad` on both sides of
/// time, into a (time, batch, out) output: Convolution of the views permuted to NCL
/// (no copies), as torch.conv_tbc.
///
/// As CANN's checks (aclnn_convolution.cpp: DtypeCheckerTbc, FormatCheckerTbc,
/// ValueCheckerTbc): self, weight and output are ND or NCL and of one dtype (f32, f16 or
/// bf16; no promotion); bias is 1-D of Cout. The output is (T + 2·pad − K + 1, B, Cout);
/// a non-empty self needs T + 2·pad >= K. A self or weight with a 0 dim (T = 0 or Cin = 0)
/// and a non-empty output gives the bias in every output element (CANN broadcasts the
/// bias into the output; torch.conv_tbc the same).
pub fn conv_tbc(
    self_: &TensorDesc,
    weight: &TensorDesc,
    bias: &TensorDesc,
    pad: i64,
    output: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    const API: &str = "aclnnConvTbc";
    for (name, t) in [("self", self_), ("weight", weight), ("output", output)] {
        crate::ensure!(
            t.rank() == 3,
            "{name} has {} dims {:?}; {API} takes 3-D (time, batch, channel) tensors (weight: kernel width, in, out)",
            t.rank(),
            t.shape
        );
        crate::ensure!(
            matches!(t.format, Format::ND | Format::NCL),
            "tensor '{name}' has format {}; {API} takes ND or NCL",
            t.format
        );
    }
    crate::ensure!(
        LIST.contains(&self_.dtype),
        "tensor 'self' has dtype {}, which {API} does not support; supported: FLOAT, FLOAT16, BFLOAT16",
        self_.dtype
    );
    for (name, t) in [("weight", weight), ("output", output)] {
        crate::ensure!(
            t.dtype == self_.dtype,
            "tensor '{name}' has dtype {} but self has {}: {API} needs self, weight and output of one dtype",
            t.dtype,
            self_.dtype
        );
    }
    ew::check_tensor("bias", bias, LIST)?;
    computation(("bias", bias.dtype), ("self and weight", self_.dtype))?;
    check_cube_math_type(cube_math_type)?;
    crate::ensure!((0..=255).contains(&pad), "pad {pad} is outside [0, 255]");
    let ([t, b, cin], [k, wcin, cout]) = (
        [self_.shape[0], self_.shape[1], self_.shape[2]],
        [weight.shape[0], weight.shape[1], weight.shape[2]],
    );
    crate::ensure!(
        wcin == cin,
        "weight {:?} has {wcin} input channels but self {:?} has {cin}",
        weight.shape,
        self_.shape
    );
    crate::ensure!(
        k >= 1,
        "weight {:?} has a kernel width (weight.shape[0]) of 0; it must be >= 1",
        weight.shape
    );
    crate::ensure!(
        bias.rank() == 1 && bias.shape[0] == cout,
        "bias has shape {:?} but must be 1-D of the output channels [{cout}] (weight.shape[2])",
        bias.shape
    );
    let tout = t as i64 + 2 * pad - k as i64 + 1;
    crate::ensure!(
        tout >= 1 || (self_.is_empty() && tout >= 0),
        "self's time dim {t} with pad {pad} on both sides is shorter than the kernel width {k}: the output would have {tout} steps"
    );
    let want = [tout as usize, b, cout];
    crate::ensure!(
        output.shape[..] == want,
        "'output' has shape {:?} but aclnnConvTbc's output is (T + 2·pad − K + 1, B, Cout) = {want:?}",
        output.shape
    );
    output.check_output("output")?;
    if output.is_empty() {
        let bindings = Bindings {
            tensors: std::sync::Arc::new(vec![
                Some(self_.clone()),
                Some(weight.clone()),
                Some(bias.clone()),
                Some(output.clone()),
            ]),
            n_inputs: 3,
            outputs: smallvec::smallvec![3],
        };
        return Ok(Executor::new(API, bindings, Nothing));
    }
    if self_.is_empty() || weight.is_empty() {
        // Nothing to convolve (T = 0 or Cin = 0): every output element is the bias.
        return super::copy::inplace_copy(output, bias).map(|e| e.renamed(API));
    }
    let ncl = |t: &TensorDesc, perm: &[usize]| t.permuted(perm, Format::NCL);
    convolution(
        &ncl(self_, &[1, 2, 0]),
        &ncl(weight, &[2, 1, 0]),
        Some(bias),
        &[1],
        &[pad],
        &[1],
        false,
        &[],
        1,
        &ncl(output, &[1, 2, 0]),
        cube_math_type,
    )
    .map(|e| e.renamed(API))
}

/// aclnnConvDepthwise2d: each input channel convolved with its own kernels, weight
/// (C·multiplier, 1, kH, kW) with kernelSize = (kH, kW): Convolution with groups = C.
///
/// As CANN (aclnnConvDepthwise2d.md's error table, aclnn_convolution.cpp's
/// DtypeCheckerDepthwise2d / DimCheckerDepthwise2d): self, weight and out are of one
/// dtype, and so is bias when given; stride, padding and dilation have 2 values each
/// (padding [h, w], both sides); weight's first dim is a multiple of self's channels.
#[allow(clippy::too_many_arguments)]
pub fn conv_depthwise2d(
    self_: &TensorDesc,
    weight: &TensorDesc,
    kernel_size: &[i64],
    bias: Option<&TensorDesc>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    out: &TensorDesc,
    cube_math_type: i64,
) -> Result<Executor> {
    const API: &str = "aclnnConvDepthwise2d";
    crate::ensure!(
        self_.rank() == 4 && weight.rank() == 4,
        "self {:?} and weight {:?} must be 4-D NCHW for {API}",
        self_.shape,
        weight.shape
    );
    crate::ensure!(
        LIST.contains(&self_.dtype),
        "tensor 'self' has dtype {}, which {API} does not support; supported: FLOAT, FLOAT16, BFLOAT16",
        self_.dtype
    );
    let mut same = vec![("weight", weight), ("out", out)];
    same.extend(bias.map(|b| ("bias", b)));
    for (name, t) in same {
        crate::ensure!(
            t.dtype == self_.dtype,
            "tensor '{name}' has dtype {} but self has {}: {API} needs self, weight, out (and bias) of one dtype",
            t.dtype,
            self_.dtype
        );
    }
    for (name, v) in [
        ("stride", stride),
        ("padding", padding),
        ("dilation", dilation),
    ] {
        crate::ensure!(
            v.len() == 2,
            "{name} has {} values {v:?}; {API} takes 2 ([h, w])",
            v.len()
        );
    }
    crate::ensure!(
        weight.shape[1] == 1,
        "weight {:?}: a depthwise weight's second dim must be 1",
        weight.shape
    );
    crate::ensure!(
        kernel_size.len() == 2
            && kernel_size[0] == weight.shape[2] as i64
            && kernel_size[1] == weight.shape[3] as i64,
        "kernelSize {kernel_size:?} must be weight's (H, W) = [{}, {}]",
        weight.shape[2],
        weight.shape[3]
    );
    let groups = self_.shape[1] as i64;
    crate::ensure!(
        groups >= 1,
        "self {:?} has no channels; {API} needs C >= 1",
        self_.shape
    );
    crate::ensure!(
        weight.shape[0].is_multiple_of(self_.shape[1]),
        "weight {:?} has {} output channels, which is not a multiple of self's {} channels",
        weight.shape,
        weight.shape[0],
        self_.shape[1]
    );
    // What Convolution would report about its 'input' / 'output', named as this entry's
    // self / weight / out.
    for (name, t) in [("self", self_), ("weight", weight), ("out", out)] {
        crate::ensure!(
            t.format == Format::NCHW,
            "tensor '{name}' has format {}; {API} takes NCHW",
            t.format
        );
    }
    crate::ensure!(
        out.rank() == 4,
        "out has {} dims {:?}; {API} writes a 4-D NCHW out",
        out.rank(),
        out.shape
    );
    let stride_u = positive("stride", stride, 2)?;
    let dilation_u = positive("dilation", dilation, 2)?;
    let pads = paddings(padding, 2, false)?;
    let mut want = vec![self_.shape[0], weight.shape[0]];
    for i in 0..2 {
        let (inp, k) = (self_.shape[2 + i] as i128, weight.shape[2 + i] as i128);
        let span = dilation_u[i] as i128 * (k - 1) + 1;
        let padded = inp + 2 * pads[i].0 as i128;
        crate::ensure!(
            k < 1 || padded >= span,
            "spatial dim {i}: self's {inp} padded by {} on both sides is smaller than the dilated kernel ({span})",
            pads[i].0
        );
        want.push(((padded - span).max(0) / stride_u[i] as i128 + 1) as usize);
    }
    crate::ensure!(
        out.shape[..] == want[..],
        "'out' has shape {:?} but the depthwise convolution's output is {want:?}",
        out.shape
    );
    convolution(
        self_,
        weight,
        bias,
        stride,
        padding,
        dilation,
        false,
        &[],
        groups,
        out,
        cube_math_type,
    )
    .map(|e| e.renamed(API))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[Entry {
    ops: "Convolution, ConvTbc, ConvDepthwise2d",
    a: LIST,
    b: LIST,
    out: LIST,
    rule: "1-D/2-D/3-D convolution and transposed convolution (NCL/NCHW/NCDHW), grouped, dilated, f32 accumulation (any f32/f16/bf16 mix)",
}];
