//! vLLM's advance step (aclnnAdvanceStep, aclnnAdvanceStepV2): between two decode steps,
//! the per-sequence bookkeeping tensors are moved on by one step in place — the next input
//! tokens, their positions, the sequence lengths and the KV-cache slots the new tokens go
//! to (`slot = blockTables[seq][pos / blockSize]·blockSize + pos % blockSize`).
//!
//! Every tensor is INT64 and read as its elements in row-major order (CANN's kernel reads
//! flat device memory; the tiling checks only dim 0, so `[n]` and `[n, 1]` are alike).
//! Any view is accepted here.
//!
//! Two kernels run on the device, and each has facts that differ from vLLM's CUDA code;
//! they are kept because they are the device's numbers (CANN's own golden scripts compute
//! them the same way):
//! - V1, and V2 with an empty specToken or acceptedNum ("legacy"): one pass over
//!   `min(numQueries, 40)` queries — 40 is the vector-core count of the Ascend910B3 this
//!   library presents — and its slot is `(blockTables_flat[pos / blockSize] +
//!   stride·i)·blockSize + pos % blockSize`: the table's *first* row, offset by value.
//!   Padding (`numQueries ≤ i < numSeqs`) writes inputTokens 0, inputPositions 0 and
//!   slotMapping −1 only at every 40th entry (`numQueries + 40·k`).
//! - V2 with speculative tokens (`specNum = specToken.dim(1)`, `t = 1 + specNum` tokens per
//!   sequence): for every sequence i and token j, in 32-bit integers as on the device,
//!   `pos' = pos + acceptedNum[i] + 1`, `seqLens = pos' + 1` (the old seqLens is not read),
//!   `slot = blockTables[i·stride + pos'/blockSize]·blockSize + pos' % blockSize`;
//!   `inputTokens[i·t] = ` the sampled token before the row's first minimum (the row, in
//!   f32, with −1 appended: the token before the first rejected −1, or the last one), and
//!   `inputTokens[i·t + 1 + k] = specToken[i, k]`.
//!
//! The device reports its shape checks as tiling errors (561002); here they are
//! ACLNN_ERR_PARAM_INVALID at phase 1. A blockTables entry the rule would read outside
//! the table (the device reads whatever memory is there) fails the run, before anything
//! is written.

use super::dense::{bindings, load, store};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::tensor::TensorDesc;

/// The only dtype of every tensor (the op's definition and its tiling).
pub(crate) const DTYPES: &[DType] = &[DType::S64];
/// The vector cores of the Ascend910B3: the legacy kernel's loop bound and pad step.
const LEGACY_CORES: usize = 40;
/// numSeqs must be below this (the tiling's MAX_NUMSEQS).
const MAX_NUM_SEQS: i64 = 200_000_000;
/// The workspace CANN's tiling reserves for the op (32 MiB), asked for here too.
const RESERVED_WORKSPACE: u64 = 32 << 20;
/// Unified-buffer bytes of one 910B vector core, and the tiling's reserve: bound the
/// tokens per sequence of the speculative kernel.
const UB_BYTES: i64 = 192 << 10;
const UB_RESERVED: i64 = 768;

// The six shared tensors, in the prototype's order.
const TOKENS: usize = 0;
const SAMPLED: usize = 1;
const POSITIONS: usize = 2;
const SEQ_LENS: usize = 3;
const SLOTS: usize = 4;
const TABLES: usize = 5;

// The bindings: the inputs (specToken and acceptedNum absent for the legacy kernel), then
// the four tensors rewritten in place.
const B_SAMPLED: usize = 0;
const B_TABLES: usize = 1;
const B_SPEC: usize = 2;
const B_ACCEPTED: usize = 3;
const B_TOKENS: usize = 4;
const B_POSITIONS: usize = 5;
const B_SEQ_LENS: usize = 6;
const B_SLOTS: usize = 7;

/// The bindings of a step (see the B_ constants).
fn step_bindings(t: &[&TensorDesc; 6], spec: Option<(&TensorDesc, &TensorDesc)>) -> Bindings {
    bindings(
        &[
            Some(t[SAMPLED]),
            Some(t[TABLES]),
            spec.map(|s| s.0),
            spec.map(|s| s.1),
        ],
        &[
            Some(t[TOKENS]),
            Some(t[POSITIONS]),
            Some(t[SEQ_LENS]),
            Some(t[SLOTS]),
        ],
    )
}

fn check_dtype(api: &str, name: &str, t: &TensorDesc) -> Result<()> {
    crate::ensure!(
        t.dtype == DType::S64,
        "{api}: {name} has dtype {}; it must be INT64",
        t.dtype
    );
    crate::ensure!(
        t.format.is_public(),
        "{api}: {name} has format {}; it must be ND",
        t.format
    );
    Ok(())
}

/// dim `d` of `t` (which must have it) must be `want`.
fn check_dim(api: &str, name: &str, t: &TensorDesc, d: usize, want: i64, what: &str) -> Result<()> {
    crate::ensure!(
        t.rank() > d && t.shape[d] as i64 == want,
        "{api}: {name} has shape {:?}; its dim {d} must be {what} ({want})",
        t.shape
    );
    Ok(())
}

/// The attribute checks of the tiling, in its order.
fn check_attrs(api: &str, num_seqs: i64, num_queries: i64, block_size: i64) -> Result<()> {
    crate::ensure!(
        num_seqs >= 1,
        "{api}: numSeqs is {num_seqs}; it must be positive"
    );
    crate::ensure!(
        num_queries >= 1,
        "{api}: numQueries is {num_queries}; it must be positive"
    );
    crate::ensure!(
        block_size >= 1,
        "{api}: blockSize is {block_size}; it must be positive"
    );
    Ok(())
}

/// What the legacy kernel is given: the tiling's checks, in its order.
fn check_legacy(api: &str, t: &[&TensorDesc; 6], num_seqs: i64, num_queries: i64) -> Result<()> {
    crate::ensure!(
        num_seqs > num_queries,
        "{api}: numSeqs ({num_seqs}) must be greater than numQueries ({num_queries})"
    );
    crate::ensure!(
        num_seqs < MAX_NUM_SEQS,
        "{api}: numSeqs is {num_seqs}; it must be below {MAX_NUM_SEQS}"
    );
    for (name, b) in [
        ("inputTokens", TOKENS),
        ("inputPositions", POSITIONS),
        ("seqLens", SEQ_LENS),
        ("slotMapping", SLOTS),
        ("blockTables", TABLES),
    ] {
        check_dim(api, name, t[b], 0, num_seqs, "numSeqs")?;
    }
    check_dim(
        api,
        "sampledTokenIds",
        t[SAMPLED],
        0,
        num_queries,
        "numQueries",
    )?;
    check_dim(api, "sampledTokenIds", t[SAMPLED], 1, 1, "1")
}

/// The six tensors both versions share: dtypes, and the rewritten ones' overlap.
fn check_common(api: &str, t: &[&TensorDesc; 6]) -> Result<()> {
    const NAMES: [&str; 6] = [
        "inputTokens",
        "sampledTokenIds",
        "inputPositions",
        "seqLens",
        "slotMapping",
        "blockTables",
    ];
    for (name, t) in NAMES.iter().zip(t) {
        check_dtype(api, name, t)?;
    }
    for b in [TOKENS, POSITIONS, SEQ_LENS, SLOTS] {
        t[b].check_output(NAMES[b])?;
    }
    Ok(())
}

/// aclnnAdvanceStep: the legacy kernel (see the module's notes).
#[allow(clippy::too_many_arguments)]
pub fn advance_step(
    input_tokens: &TensorDesc,
    sampled_token_ids: &TensorDesc,
    input_positions: &TensorDesc,
    seq_lens: &TensorDesc,
    slot_mapping: &TensorDesc,
    block_tables: &TensorDesc,
    num_seqs: i64,
    num_queries: i64,
    block_size: i64,
) -> Result<Executor> {
    const API: &str = "aclnnAdvanceStep";
    let t = [
        input_tokens,
        sampled_token_ids,
        input_positions,
        seq_lens,
        slot_mapping,
        block_tables,
    ];
    check_common(API, &t)?;
    check_attrs(API, num_seqs, num_queries, block_size)?;
    check_legacy(API, &t, num_seqs, num_queries)?;
    Ok(legacy_executor(API, &t, num_seqs, num_queries, block_size))
}

fn legacy_executor(
    api: &'static str,
    t: &[&TensorDesc; 6],
    num_seqs: i64,
    num_queries: i64,
    block_size: i64,
) -> Executor {
    let tables = t[TABLES];
    Executor::new(
        api,
        step_bindings(t, None),
        Step {
            api,
            num_seqs: num_seqs as usize,
            num_queries: num_queries as usize,
            block_size,
            // The tiling's stride: the table's elements per first-dim entry.
            stride: (tables.numel() / tables.shape[0]) as i64,
            spec: None,
        },
    )
}

/// aclnnAdvanceStepV2: the speculative kernel, or the legacy one when specToken or
/// acceptedNum is empty (as the device's tiling chooses).
#[allow(clippy::too_many_arguments)]
pub fn advance_step_v2(
    input_tokens: &TensorDesc,
    sampled_token_ids: &TensorDesc,
    input_positions: &TensorDesc,
    seq_lens: &TensorDesc,
    slot_mapping: &TensorDesc,
    block_tables: &TensorDesc,
    spec_token: &TensorDesc,
    accepted_num: &TensorDesc,
    num_seqs: i64,
    num_queries: i64,
    block_size: i64,
) -> Result<Executor> {
    const API: &str = "aclnnAdvanceStepV2";
    let t = [
        input_tokens,
        sampled_token_ids,
        input_positions,
        seq_lens,
        slot_mapping,
        block_tables,
    ];
    check_common(API, &t)?;
    check_dtype(API, "specToken", spec_token)?;
    check_dtype(API, "acceptedNum", accepted_num)?;
    check_attrs(API, num_seqs, num_queries, block_size)?;
    let has_spec = spec_token.numel() > 0;
    let has_accepted = accepted_num.numel() > 0;
    if has_spec {
        crate::ensure!(
            spec_token.rank() == 2 && spec_token.shape[0] as i64 == num_seqs,
            "{API}: specToken has shape {:?}; it must be [numSeqs ({num_seqs}), specNum]",
            spec_token.shape
        );
    }
    if has_accepted {
        crate::ensure!(
            accepted_num.rank() == 1 && accepted_num.shape[0] as i64 == num_seqs,
            "{API}: acceptedNum has shape {:?}; it must be [numSeqs ({num_seqs})]",
            accepted_num.shape
        );
    }
    if !(has_spec && has_accepted) {
        check_legacy(API, &t, num_seqs, num_queries)?;
        return Ok(legacy_executor(API, &t, num_seqs, num_queries, block_size));
    }
    let spec_num = spec_token.shape[1] as i64;
    let per_seq = spec_num + 1;
    crate::ensure!(
        t[TOKENS].rank() == 1 && t[TOKENS].shape[0] as i64 == num_seqs * per_seq,
        "{API}: inputTokens has shape {:?}; it must be [numSeqs·(1 + specNum)] ([{}])",
        t[TOKENS].shape,
        num_seqs * per_seq
    );
    crate::ensure!(
        t[SAMPLED].rank() == 2
            && t[SAMPLED].shape[0] as i64 == num_seqs
            && t[SAMPLED].shape[1] as i64 == per_seq,
        "{API}: sampledTokenIds has shape {:?}; it must be [numSeqs, 1 + specNum] ([{num_seqs}, {per_seq}])",
        t[SAMPLED].shape
    );
    for (name, b) in [
        ("inputPositions", POSITIONS),
        ("seqLens", SEQ_LENS),
        ("slotMapping", SLOTS),
    ] {
        crate::ensure!(
            t[b].shape == t[TOKENS].shape,
            "{API}: {name} has shape {:?}; it must be inputTokens' shape {:?}",
            t[b].shape,
            t[TOKENS].shape
        );
    }
    crate::ensure!(
        t[TABLES].rank() == 2 && t[TABLES].shape[0] as i64 == num_seqs,
        "{API}: blockTables has shape {:?}; it must be [numSeqs ({num_seqs}), blocks]",
        t[TABLES].shape
    );
    // The tiling's unified-buffer budget for one sequence's t tokens (full load only).
    let align = |n: i64, bytes: i64| (n * bytes + 31) / 32 * 32;
    let per_seq_buffers = 4 * align(per_seq + 4, 8) + align(per_seq + 4, 4);
    let available = UB_BYTES - align(per_seq + 1, 4) - UB_RESERVED;
    crate::ensure!(
        available > per_seq_buffers,
        "{API}: specNum is {spec_num}; 1 + specNum tokens per sequence do not fit the device's unified buffer"
    );
    crate::ensure!(
        block_size <= i32::MAX as i64,
        "{API}: blockSize is {block_size}; the speculative kernel computes in 32 bits (at most {})",
        i32::MAX
    );
    Ok(Executor::new(
        API,
        step_bindings(&t, Some((spec_token, accepted_num))),
        Step {
            api: API,
            num_seqs: num_seqs as usize,
            num_queries: num_queries as usize,
            block_size,
            stride: t[TABLES].shape[1] as i64,
            spec: Some(spec_num as usize),
        },
    ))
}

/// One advance step; `spec` is specNum for the speculative kernel, None for the legacy one.
struct Step {
    api: &'static str,
    num_seqs: usize,
    num_queries: usize,
    block_size: i64,
    /// blockTables' elements per sequence.
    stride: i64,
    spec: Option<usize>,
}

/// The four tensors a step rewrites, row-major.
struct State {
    tokens: Vec<i64>,
    positions: Vec<i64>,
    seq_lens: Vec<i64>,
    slots: Vec<i64>,
}

impl Step {
    fn table_entry(&self, tables: &[i64], at: i64, seq: usize) -> Result<i64> {
        usize::try_from(at)
            .ok()
            .and_then(|a| tables.get(a).copied())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: sequence {seq} reads blockTables element {at}, outside its {} elements",
                    self.api,
                    tables.len()
                ))
            })
    }

    fn legacy(&self, b: &Bindings, s: &mut State) -> Result<()> {
        let sampled = load::<i64>(b, B_SAMPLED, &b.view(B_SAMPLED)?.shape)?;
        let tables = load::<i64>(b, B_TABLES, &b.view(B_TABLES)?.shape)?;
        let bs = self.block_size;
        for i in 0..self.num_queries.min(LEGACY_CORES) {
            let pos = s.seq_lens[i];
            s.tokens[i] = sampled[i];
            s.seq_lens[i] = pos.wrapping_add(1);
            s.positions[i] = pos;
            let first_row = self.table_entry(&tables, pos / bs, i)?;
            s.slots[i] = first_row
                .wrapping_add(self.stride.wrapping_mul(i as i64))
                .wrapping_mul(bs)
                .wrapping_add(pos % bs);
        }
        for i in (self.num_queries..self.num_seqs).step_by(LEGACY_CORES) {
            s.tokens[i] = 0;
            s.positions[i] = 0;
            s.slots[i] = -1;
        }
        Ok(())
    }

    fn speculative(&self, b: &Bindings, s: &mut State, spec: usize) -> Result<()> {
        let per_seq = spec + 1;
        let sampled = load::<i64>(b, B_SAMPLED, &b.view(B_SAMPLED)?.shape)?;
        let tables = load::<i64>(b, B_TABLES, &b.view(B_TABLES)?.shape)?;
        let spec_tokens = load::<i64>(b, B_SPEC, &b.view(B_SPEC)?.shape)?;
        let accepted = load::<i64>(b, B_ACCEPTED, &b.view(B_ACCEPTED)?.shape)?;
        let bs = self.block_size as i32;
        for i in 0..self.num_seqs {
            let row = &sampled[i * per_seq..(i + 1) * per_seq];
            // The device's ReduceMin over the row in f32 with -1 appended: the first minimum.
            let value = |j: usize| row.get(j).map_or(-1.0, |&v| v as f32);
            let min_at = (0..=per_seq).fold(0, |m, j| if value(j) < value(m) { j } else { m });
            if min_at == 0 {
                return Err(Error::Invalid(format!(
                    "{}: sampledTokenIds row {i} starts with its minimum ({}): the device reads the token before it, outside the row",
                    self.api, row[0]
                )));
            }
            s.tokens[i * per_seq] = row[min_at - 1];
            s.tokens[i * per_seq + 1..(i + 1) * per_seq]
                .copy_from_slice(&spec_tokens[i * spec..(i + 1) * spec]);
            let step = (accepted[i] as i32).wrapping_add(1);
            for j in i * per_seq..(i + 1) * per_seq {
                let pos = (s.positions[j] as i32).wrapping_add(step);
                s.positions[j] = pos as i64;
                s.seq_lens[j] = pos.wrapping_add(1) as i64;
                let at = (i as i64) * self.stride + pos.wrapping_div(bs) as i64;
                let block = self.table_entry(&tables, at, i)? as i32;
                s.slots[j] = block.wrapping_mul(bs).wrapping_add(pos.wrapping_rem(bs)) as i64;
            }
        }
        Ok(())
    }
}

impl Work for Step {
    fn workspace_size(&self) -> u64 {
        RESERVED_WORKSPACE
    }
    fn run(&self, b: &Bindings, _: Workspace) -> Result<()> {
        let flat = |k| -> Result<Vec<i64>> { load::<i64>(b, k, &b.view(k)?.shape) };
        let mut s = State {
            tokens: flat(B_TOKENS)?,
            positions: flat(B_POSITIONS)?,
            seq_lens: flat(B_SEQ_LENS)?,
            slots: flat(B_SLOTS)?,
        };
        match self.spec {
            None => self.legacy(b, &mut s)?,
            Some(spec) => self.speculative(b, &mut s, spec)?,
        }
        // Everything is computed before the first write: a refused run writes nothing.
        store(b, B_TOKENS, &s.tokens)?;
        store(b, B_POSITIONS, &s.positions)?;
        store(b, B_SEQ_LENS, &s.seq_lens)?;
        store(b, B_SLOTS, &s.slots)
    }
}
