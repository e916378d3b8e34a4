//! The pieces of synchronised BatchNorm (SyncBN, issue 18): BatchNormStats (per-channel
//! mean and invstd of one device's batch), BatchNormReduce (per-channel sum and sum of
//! squares), BatchNormGatherStatsWithCounts (the devices' means and invstds merged with
//! their counts), SyncBatchNormGatherStats (the devices' sums and square sums merged with
//! their counts) and BatchNormElemt (the normalisation with given mean and invstd).
//! PyTorch's `torch.batch_norm_stats`, `batch_norm_gather_stats_with_counts` and
//! `batch_norm_elemt` (CUDA-only in torch) are the semantics.
//!
//! The per-channel reductions (Stats, Reduce) and Elemt run on the row-normalisation
//! engine (`rows.rs`) with the channels as rows: f64 two-pass statistics (stable at mean
//! 1e4 with variance 1e-4), every output rounded once. The two gathers combine a few
//! values per channel (one per device) in f64 in a small kernel here. Bound: every output
//! is its f64 formula of the stored inputs rounded once to its dtype (within one ulp).
//! CANN passes eps and momentum to its kernels as float: both are rounded to f32 here too.

use super::catalog::Entry;
use super::elementwise as ew;
use super::rows::{Emit, Operand, PerRow, Rows, Running, Stat};
use crate::dtype::DType;
use crate::engine::convert;
use crate::error::Result;
use crate::executor::{bindings, Bindings, Executor, Nothing, Work, Workspace};
use crate::format::Format;
use crate::tensor::TensorDesc;

use DType::*;
/// Atlas A2's list for Elemt, GatherStatsWithCounts and Reduce's x.
const FLOATS: &[DType] = &[F32, F16, BF16];
/// Atlas A2's list for Stats' input and SyncBatchNormGatherStats (no BFLOAT16).
const F32_F16: &[DType] = &[F32, F16];
/// SyncBatchNormGatherStats' sampleCount.
const COUNTS: &[DType] = &[F32, F16, S32];
/// Stats' and Reduce's outputs.
const ONLY_F32: &[DType] = &[F32];

/// `t` must be a vector of `c` elements.
fn check_channels(api: &str, name: &str, t: &TensorDesc, c: usize) -> Result<()> {
    crate::ensure!(
        t.rank() == 1 && t.shape[0] == c,
        "{api}: '{name}' has shape {:?} but must be a vector of the C = {c} channels",
        t.shape
    );
    Ok(())
}

/// An (N, C, *) input: 2 to 8 dims, a public format, C not 0.
fn check_nc(api: &str, name: &str, t: &TensorDesc) -> Result<usize> {
    crate::ensure!(
        (2..=8).contains(&t.rank()),
        "{api}: '{name}' has {} dims; it must have 2 to 8 (N, C, ...)",
        t.rank()
    );
    crate::ensure!(
        t.shape[1] != 0,
        "{api}: '{name}' has shape {:?}; its channel dim (dim 1) must not be 0",
        t.shape
    );
    Ok(t.shape[1])
}

/// The channels of an (N, C, *) tensor as rows, the other dims as elements.
fn channel_rows(binding: usize, t: &TensorDesc, channel: usize) -> Operand {
    let elems = (0..t.rank())
        .filter(|&d| d != channel)
        .map(|d| t.strides[d])
        .collect();
    Operand::with_strides(binding, t, vec![t.strides[channel]], elems)
}

fn elems_of(t: &TensorDesc, channel: usize) -> Vec<usize> {
    (0..t.rank())
        .filter(|&d| d != channel)
        .map(|d| t.shape[d])
        .collect()
}

/// A channel statistics plan over `input` (binding 0) with channel dim `channel`.
fn stats_plan(
    input: &TensorDesc,
    channel: usize,
    stat: Stat,
    eps: f64,
    outs: Vec<(PerRow, Emit)>,
) -> Rows {
    Rows {
        rows: vec![input.shape[channel]],
        elems: elems_of(input, channel),
        terms: vec![(channel_rows(0, input, channel), 1.0)],
        round: None,
        stat,
        eps,
        weight: None,
        weight_offset: 0.0,
        bias: None,
        silu: None,
        sum_out: None,
        y_out: None,
        stat_outs: outs,
        running: None,
    }
}

// ---------------------------------------------------------------------------------------
// BatchNormStats, BatchNormReduce
// ---------------------------------------------------------------------------------------

/// aclnnBatchNormStats: per channel of input (N, C, *), mean and invstd = 1/√(var + eps)
/// (biased variance) over every other dim, into FLOAT vectors of C. An empty input (N or a
/// spatial dim 0) gives mean 0 and invstd NaN; C = 0 is refused, as CANN does.
pub fn batch_norm_stats(
    input: &TensorDesc,
    eps: f64,
    mean: &TensorDesc,
    invstd: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnBatchNormStats";
    ew::check_tensor("input", input, F32_F16)?;
    ew::check_tensor("mean", mean, ONLY_F32)?;
    ew::check_tensor("invstd", invstd, ONLY_F32)?;
    let c = check_nc(API, "input", input)?;
    check_channels(API, "mean", mean, c)?;
    check_channels(API, "invstd", invstd, c)?;
    mean.check_output("mean")?;
    invstd.check_output("invstd")?;
    let b = bindings(&[Some(input)], &[Some(mean), Some(invstd)]);
    let plan = stats_plan(
        input,
        1,
        Stat::Center,
        eps as f32 as f64,
        vec![
            (PerRow::of(1, mean), Emit::Mean),
            (PerRow::of(2, invstd), Emit::Rstd),
        ],
    )
    .plan();
    Ok(Executor::new(API, b, plan))
}

/// aclnnBatchNormReduce: per channel of x (4 dims, NCHW; C the last dim when x's format is
/// NHWC), the sum and the sum of squares over the other dims, into FLOAT vectors of C
/// (accumulated in f64, rounded once). An empty x gives zeros.
pub fn batch_norm_reduce(
    x: &TensorDesc,
    sum: &TensorDesc,
    square_sum: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnBatchNormReduce";
    ew::check_tensor("x", x, FLOATS)?;
    ew::check_tensor("sum", sum, ONLY_F32)?;
    ew::check_tensor("squareSum", square_sum, ONLY_F32)?;
    crate::ensure!(
        matches!(x.format, Format::NCHW | Format::NHWC),
        "{API}: x has format {}; only NCHW and NHWC are supported",
        x.format
    );
    for (name, t) in [("sum", sum), ("squareSum", square_sum)] {
        crate::ensure!(
            t.format == Format::ND,
            "{API}: '{name}' has format {}; only ND is supported",
            t.format
        );
    }
    crate::ensure!(
        x.rank() == 4,
        "{API}: x has {} dims; it must have 4 (N, C, H, W)",
        x.rank()
    );
    let channel = if x.format == Format::NHWC { 3 } else { 1 };
    let c = x.shape[channel];
    check_channels(API, "sum", sum, c)?;
    check_channels(API, "squareSum", square_sum, c)?;
    sum.check_output("sum")?;
    square_sum.check_output("squareSum")?;
    let b = bindings(&[Some(x)], &[Some(sum), Some(square_sum)]);
    let plan = stats_plan(
        x,
        channel,
        Stat::Sums,
        0.0,
        vec![
            (PerRow::of(1, sum), Emit::Sum),
            (PerRow::of(2, square_sum), Emit::SquareSum),
        ],
    )
    .plan();
    Ok(Executor::new(API, b, plan))
}

// ---------------------------------------------------------------------------------------
// BatchNormElemt
// ---------------------------------------------------------------------------------------

/// aclnnBatchNormElemt: output = (input − mean)·invstd·weight + bias per channel of input
/// (N, C, *), with the given mean and invstd (vectors of C; weight/bias NULL: 1/0). eps is
/// not used: invstd already holds 1/√(var + eps) (CANN turns it into a variance and back).
/// output has input's dtype, shape and format; the per-channel vectors may have any of
/// the float dtypes (torch passes FLOAT statistics with a FLOAT16 input).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_elemt(
    input: &TensorDesc,
    weight: Option<&TensorDesc>,
    bias: Option<&TensorDesc>,
    mean: &TensorDesc,
    invstd: &TensorDesc,
    eps: f64,
    output: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnBatchNormElemt";
    let _ = eps;
    ew::check_tensor("input", input, FLOATS)?;
    let vectors = [
        ("weight", weight),
        ("bias", bias),
        ("mean", Some(mean)),
        ("invstd", Some(invstd)),
    ];
    for (name, t) in vectors {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
        }
    }
    ew::check_tensor("output", output, FLOATS)?;
    crate::ensure!(
        output.dtype == input.dtype,
        "{API}: output has dtype {} but must have input's dtype {}",
        output.dtype,
        input.dtype
    );
    crate::ensure!(
        input.format == output.format,
        "{API}: input has format {} but output has {}; they must be equal",
        input.format,
        output.format
    );
    let c = check_nc(API, "input", input)?;
    ew::check_result_shape("output", output, &input.shape)?;
    for (name, t) in vectors {
        if let Some(t) = t {
            check_channels(API, name, t, c)?;
        }
    }
    let b = bindings(
        &[Some(input), weight, bias, Some(mean), Some(invstd)],
        &[Some(output)],
    );
    if input.is_empty() {
        return Ok(Executor::new(API, b, Nothing));
    }
    let elems = elems_of(input, 1);
    let per_row = |binding: usize, t: &TensorDesc| {
        Operand::with_strides(binding, t, vec![t.strides[0]], vec![0; elems.len()])
    };
    let plan = Rows {
        rows: vec![c],
        elems: elems.clone(),
        terms: vec![(channel_rows(0, input, 1), 1.0)],
        round: None,
        stat: Stat::Center,
        eps: 0.0,
        weight: weight.map(|t| per_row(1, t)),
        weight_offset: 0.0,
        bias: bias.map(|t| per_row(2, t)),
        silu: None,
        sum_out: None,
        y_out: Some(channel_rows(5, output, 1)),
        stat_outs: Vec::new(),
        running: Some(Running {
            mean: PerRow::of(3, mean),
            var: PerRow::of(4, invstd),
            momentum: 0.0,
            use_for_stats: true,
            invstd: true,
        }),
    }
    .plan();
    Ok(Executor::new(API, b, plan))
}

// ---------------------------------------------------------------------------------------
// The gathers: a few values per channel, combined in f64
// ---------------------------------------------------------------------------------------

/// Every element of the view bound at `i`, in row-major order, as f64.
fn read_view(b: &Bindings, i: usize) -> Result<Vec<f64>> {
    let v = b.view(i)?;
    if v.is_empty() {
        return Ok(Vec::new());
    }
    let addr = b.addr(i)?;
    let size = v.dtype.size() as isize;
    let mut out = vec![0f64; v.numel()];
    for (k, o) in out.iter_mut().enumerate() {
        let p = (addr as isize + element(v, k) * size) as *const u8;
        // SAFETY: element k of the view lies inside its validated storage.
        unsafe { convert::run(p, v.dtype, 1, o as *mut f64 as *mut u8, F64, 1, 1) };
    }
    Ok(out)
}

/// Writes `vals` (row-major) into the view bound at `i`, each rounded once.
fn write_view(b: &Bindings, i: usize, vals: &[f64]) -> Result<()> {
    let v = b.view(i)?;
    if v.is_empty() {
        return Ok(());
    }
    let addr = b.addr(i)?;
    let size = v.dtype.size() as isize;
    for (k, x) in vals.iter().enumerate() {
        let p = (addr as isize + element(v, k) * size) as *mut u8;
        // SAFETY: element k of the validated output view.
        unsafe { convert::run(x as *const f64 as *const u8, F64, 1, p, v.dtype, 1, 1) };
    }
    Ok(())
}

/// The element offset of row-major element `k` of `v`.
fn element(v: &TensorDesc, mut k: usize) -> isize {
    let mut off = v.offset as isize;
    for (&n, &s) in v.shape.iter().zip(&v.strides).rev() {
        off += (k % n) as isize * s;
        k /= n;
    }
    off
}

/// Which gather, with its attributes and the bindings of its tensors.
#[derive(Clone, Copy, Debug)]
enum Gather {
    /// Bindings: input 0, mean 1, invstd 2, runningMean 3, runningVar 4, counts 5,
    /// meanAll 6, invstdAll 7.
    WithCounts {
        running_mean: bool,
        running_var: bool,
    },
    /// Bindings: totalSum 0, totalSquareSum 1, sampleCount 2, mean 3, variance 4,
    /// batchMean 5, batchInvstd 6.
    Sums,
}

struct GatherWork {
    kind: Gather,
    world: usize,
    c: usize,
    momentum: f64,
    eps: f64,
}

impl GatherWork {
    /// (meanAll, invstdAll, runningMean, runningVar) with counts as given.
    fn with_counts(&self, b: &Bindings, rm: bool, rv: bool) -> Result<()> {
        let (w, c, eps, m) = (self.world, self.c, self.eps, self.momentum);
        let mean = read_view(b, 1)?;
        let invstd = read_view(b, 2)?;
        let counts = read_view(b, 5)?;
        let old_mean = if rm { read_view(b, 3)? } else { Vec::new() };
        let old_var = if rv { read_view(b, 4)? } else { Vec::new() };
        let n: f64 = counts.iter().sum();
        let mut mean_all = vec![0f64; c];
        let mut invstd_all = vec![0f64; c];
        let mut run_mean = vec![0f64; c];
        let mut run_var = vec![0f64; c];
        for ch in 0..c {
            let avg = (0..w).map(|i| counts[i] * mean[i * c + ch]).sum::<f64>() / n;
            // Each device's biased variance recovered from its invstd, then merged
            // (Chan et al.): Σ countᵢ·(varᵢ + (meanᵢ − avg)²).
            let var_n: f64 = (0..w)
                .map(|i| {
                    let s = 1.0 / invstd[i * c + ch];
                    let d = mean[i * c + ch] - avg;
                    counts[i] * (s * s - eps + d * d)
                })
                .sum();
            mean_all[ch] = avg;
            invstd_all[ch] = 1.0 / (var_n / n + eps).sqrt();
            if rm {
                run_mean[ch] = (1.0 - m) * old_mean[ch] + m * avg;
            }
            if rv {
                run_var[ch] = (1.0 - m) * old_var[ch] + m * var_n / (n - 1.0);
            }
        }
        write_view(b, 6, &mean_all)?;
        write_view(b, 7, &invstd_all)?;
        if rm {
            write_view(b, 3, &run_mean)?;
        }
        if rv {
            write_view(b, 4, &run_var)?;
        }
        Ok(())
    }

    /// (batchMean, batchInvstd, mean, variance) from the sums; counts truncated to integers.
    fn sums(&self, b: &Bindings) -> Result<()> {
        let (w, c, eps, m) = (self.world, self.c, self.eps, self.momentum);
        let sum = read_view(b, 0)?;
        let sq = read_view(b, 1)?;
        let counts = read_view(b, 2)?;
        let old_mean = read_view(b, 3)?;
        let old_var = read_view(b, 4)?;
        let n: f64 = counts
            .iter()
            .map(|&k| k.trunc().clamp(i32::MIN as f64, i32::MAX as f64))
            .sum();
        let mut bm = vec![0f64; c];
        let mut bi = vec![0f64; c];
        let mut rm = vec![0f64; c];
        let mut rv = vec![0f64; c];
        for ch in 0..c {
            let mean = (0..w).map(|i| sum[i * c + ch]).sum::<f64>() / n;
            let var = (0..w).map(|i| sq[i * c + ch]).sum::<f64>() / n - mean * mean;
            bm[ch] = mean;
            bi[ch] = 1.0 / (var + eps).sqrt();
            rm[ch] = (1.0 - m) * old_mean[ch] + m * mean;
            rv[ch] = (1.0 - m) * old_var[ch] + m * var * n / (n - 1.0);
        }
        write_view(b, 5, &bm)?;
        write_view(b, 6, &bi)?;
        write_view(b, 3, &rm)?;
        write_view(b, 4, &rv)?;
        Ok(())
    }
}

impl Work for GatherWork {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        match self.kind {
            Gather::WithCounts {
                running_mean,
                running_var,
            } => self.with_counts(b, running_mean, running_var),
            Gather::Sums => self.sums(b),
        }
    }
    fn small(&self) -> bool {
        self.world * self.c <= 4096
    }
}

/// aclnnBatchNormGatherStatsWithCounts: the statistics of all devices merged, per channel:
/// meanAll = Σ countsᵢ·meanᵢ / N (N = Σ counts), the merged biased variance
/// var = Σ countsᵢ·(1/invstdᵢ² − eps + (meanᵢ − meanAll)²) / N, invstdAll = 1/√(var + eps);
/// runningMean/runningVar (each when given) = (1 − momentum)·running + momentum·(meanAll,
/// var·N/(N − 1)). mean, invstd (world, C); counts (world); input (N, C, *) gives C.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_gather_stats_with_counts(
    input: &TensorDesc,
    mean: &TensorDesc,
    invstd: &TensorDesc,
    running_mean: Option<&TensorDesc>,
    running_var: Option<&TensorDesc>,
    momentum: f64,
    eps: f64,
    counts: &TensorDesc,
    mean_all: &TensorDesc,
    invstd_all: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnBatchNormGatherStatsWithCounts";
    let all = [
        ("input", Some(input)),
        ("mean", Some(mean)),
        ("invstd", Some(invstd)),
        ("runningMean", running_mean),
        ("runningVar", running_var),
        ("counts", Some(counts)),
        ("meanAll", Some(mean_all)),
        ("invstdAll", Some(invstd_all)),
    ];
    for (name, t) in all {
        if let Some(t) = t {
            ew::check_tensor(name, t, FLOATS)?;
        }
    }
    crate::ensure!(
        (2..=8).contains(&input.rank()),
        "{API}: 'input' has {} dims; it must have 2 to 8 (N, C, ...)",
        input.rank()
    );
    for (name, t) in [("mean", mean), ("invstd", invstd)] {
        crate::ensure!(
            t.rank() == 2,
            "{API}: '{name}' has shape {:?}; it must have 2 dims (devices, C)",
            t.shape
        );
    }
    crate::ensure!(
        counts.rank() == 1,
        "{API}: 'counts' has shape {:?}; it must have 1 dim (devices)",
        counts.shape
    );
    crate::ensure!(
        mean.shape[0] == invstd.shape[0] && counts.shape[0] == mean.shape[0],
        "{API}: the first dims of mean {:?}, invstd {:?} and counts {:?} (the devices) must be equal",
        mean.shape,
        invstd.shape,
        counts.shape
    );
    let c = input.shape[1];
    crate::ensure!(
        mean.shape[1] == c && invstd.shape[1] == c,
        "{API}: the second dims of mean {:?} and invstd {:?} must be input's channel count {c}",
        mean.shape,
        invstd.shape
    );
    for (name, t) in [("runningMean", running_mean), ("runningVar", running_var)] {
        if let Some(t) = t {
            check_channels(API, name, t, c)?;
            t.check_output(name)?;
        }
    }
    check_channels(API, "meanAll", mean_all, c)?;
    check_channels(API, "invstdAll", invstd_all, c)?;
    mean_all.check_output("meanAll")?;
    invstd_all.check_output("invstdAll")?;
    let mut b = bindings(
        &[
            Some(input),
            Some(mean),
            Some(invstd),
            running_mean,
            running_var,
            Some(counts),
        ],
        &[Some(mean_all), Some(invstd_all)],
    );
    // The running statistics are updated in place.
    if running_mean.is_some() {
        b.outputs.push(3);
    }
    if running_var.is_some() {
        b.outputs.push(4);
    }
    if c == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    let work = GatherWork {
        kind: Gather::WithCounts {
            running_mean: running_mean.is_some(),
            running_var: running_var.is_some(),
        },
        world: mean.shape[0],
        c,
        momentum: momentum as f32 as f64,
        eps: eps as f32 as f64,
    };
    Ok(Executor::new(API, b, work))
}

/// aclnnSyncBatchNormGatherStats: from each device's per-channel sums and square sums
/// (world, C) and sample counts (world, truncated to integers): batchMean = Σ sum / N,
/// var = Σ squareSum / N − batchMean², batchInvstd = 1/√(var + eps); mean and variance
/// (the running statistics, in place) = (1 − momentum)·running + momentum·(batchMean,
/// var·N/(N − 1)). world 0 is refused; C = 0 does nothing.
#[allow(clippy::too_many_arguments)]
pub fn sync_batch_norm_gather_stats(
    total_sum: &TensorDesc,
    total_square_sum: &TensorDesc,
    sample_count: &TensorDesc,
    mean: &TensorDesc,
    variance: &TensorDesc,
    momentum: f32,
    eps: f32,
    batch_mean: &TensorDesc,
    batch_invstd: &TensorDesc,
) -> Result<Executor> {
    const API: &str = "aclnnSyncBatchNormGatherStats";
    ew::check_tensor("totalSum", total_sum, F32_F16)?;
    ew::check_tensor("totalSquareSum", total_square_sum, F32_F16)?;
    ew::check_tensor("sampleCount", sample_count, COUNTS)?;
    ew::check_tensor("mean", mean, F32_F16)?;
    ew::check_tensor("variance", variance, F32_F16)?;
    ew::check_tensor("batchMean", batch_mean, F32_F16)?;
    ew::check_tensor("batchInvstd", batch_invstd, F32_F16)?;
    for (name, t) in [
        ("totalSquareSum", total_square_sum),
        ("mean", mean),
        ("variance", variance),
    ] {
        crate::ensure!(
            t.dtype == total_sum.dtype,
            "{API}: '{name}' has dtype {} but must have totalSum's dtype {}",
            t.dtype,
            total_sum.dtype
        );
    }
    crate::ensure!(
        batch_invstd.dtype == batch_mean.dtype,
        "{API}: 'batchInvstd' has dtype {} but must have batchMean's dtype {}",
        batch_invstd.dtype,
        batch_mean.dtype
    );
    for (name, t, rank) in [
        ("totalSum", total_sum, 2),
        ("totalSquareSum", total_square_sum, 2),
        ("sampleCount", sample_count, 1),
        ("mean", mean, 1),
        ("variance", variance, 1),
        ("batchMean", batch_mean, 1),
        ("batchInvstd", batch_invstd, 1),
    ] {
        crate::ensure!(
            t.rank() == rank,
            "{API}: '{name}' has shape {:?}; it must have {rank} dim(s)",
            t.shape
        );
    }
    crate::ensure!(
        total_square_sum.shape == total_sum.shape,
        "{API}: totalSquareSum has shape {:?} but must have totalSum's {:?}",
        total_square_sum.shape,
        total_sum.shape
    );
    let (world, c) = (total_sum.shape[0], total_sum.shape[1]);
    crate::ensure!(
        sample_count.shape[0] == world,
        "{API}: sampleCount has shape {:?} but must hold one count per device ({world})",
        sample_count.shape
    );
    for (name, t) in [
        ("mean", mean),
        ("variance", variance),
        ("batchMean", batch_mean),
        ("batchInvstd", batch_invstd),
    ] {
        check_channels(API, name, t, c)?;
        t.check_output(name)?;
    }
    crate::ensure!(
        world != 0,
        "{API}: totalSum has shape {:?}; its first dim (the devices) must not be 0",
        total_sum.shape
    );
    let mut b = bindings(
        &[
            Some(total_sum),
            Some(total_square_sum),
            Some(sample_count),
            Some(mean),
            Some(variance),
        ],
        &[Some(batch_mean), Some(batch_invstd)],
    );
    b.outputs.extend([3, 4]);
    if c == 0 {
        return Ok(Executor::new(API, b, Nothing));
    }
    let work = GatherWork {
        kind: Gather::Sums,
        world,
        c,
        momentum: momentum as f64,
        eps: eps as f64,
    };
    Ok(Executor::new(API, b, work))
}

/// Supported dtypes, for the operator table (docs/DTYPES.md).
pub const CATALOG: &[Entry] = &[
    Entry {
        ops: "BatchNormStats",
        a: F32_F16,
        b: &[],
        out: ONLY_F32,
        rule: "per channel of (N, C, *): mean and invstd = 1/√(var + eps) (FLOAT)",
    },
    Entry {
        ops: "BatchNormReduce",
        a: FLOATS,
        b: &[],
        out: ONLY_F32,
        rule: "per channel of NCHW/NHWC x: sum and sum of squares (FLOAT)",
    },
    Entry {
        ops: "BatchNormElemt",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "(x − mean)·invstd·weight + bias per channel with the given mean/invstd (b: weight, bias, mean, invstd)",
    },
    Entry {
        ops: "BatchNormGatherStatsWithCounts",
        a: FLOATS,
        b: FLOATS,
        out: FLOATS,
        rule: "devices' (mean, invstd, count) merged per channel into meanAll, invstdAll; running statistics updated",
    },
    Entry {
        ops: "SyncBatchNormGatherStats",
        a: F32_F16,
        b: COUNTS,
        out: F32_F16,
        rule: "devices' (sum, squareSum, count) merged into batchMean, batchInvstd; running mean/variance updated (b: sampleCount)",
    },
];
