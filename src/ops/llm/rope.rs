//! RotaryPositionEmbedding (hicann/ops-transformer aclnnRotaryPositionEmbedding.md):
//! `out = x * cos + rotate(x) * sin` over the last dim D of a 4-D x, cos and sin of x's
//! dtype and of one shape broadcasting over x's first three dims ((1,1,1,D), (B,S,N,D),
//! (B,1,N,D), (B,S,1,D), ... each dim 1 or x's). The modes rotate the last dim:
//! - 0 half: `cat(-x2, x1)` of the halves x1 = x[:D/2], x2 = x[D/2:];
//! - 1 interleave: each pair (x[2i], x[2i+1]) becomes (-x[2i+1], x[2i]);
//! - 2 quarter: `cat(-x2, x1, -x4, x3)` of the four quarters;
//! - 3 interleave-half: with x1 = x[::2], x2 = x[1::2], `out = cat(x1, x2) * cos +
//!   cat(-x2, x1) * sin`.
//!
//! D is even (a multiple of 4 in quarter mode) and below 896, as on Atlas A2. Computed in
//! f32 (two products and a sum, not fused) and rounded once to out's dtype: exact against
//! the formula evaluated in f32. x may be any view, out too (it may be x itself).
//! The device reports a shape mismatch as a tiling error (561002); here it is
//! ACLNN_ERR_PARAM_INVALID at phase 1.

use super::dense::{bindings, load, store};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Nothing, Work, Workspace};
use crate::ops::elementwise as ew;
use crate::tensor::TensorDesc;

use DType::*;
pub(crate) const ROPE: &[DType] = &[BF16, F16, F32];
/// D must be below this on Atlas A2.
const MAX_D: usize = 896;

/// aclnnRotaryPositionEmbedding.
pub fn rotary_position_embedding(
    x: &TensorDesc,
    cos: &TensorDesc,
    sin: &TensorDesc,
    mode: i64,
    out: &TensorDesc,
) -> Result<Executor> {
    for (name, t) in [("x", x), ("cos", cos), ("sin", sin), ("out", out)] {
        ew::check_tensor(name, t, ROPE)?;
        crate::ensure!(
            t.dtype == x.dtype,
            "{name} has dtype {} but x has {}: they must be the same",
            t.dtype,
            x.dtype
        );
    }
    crate::ensure!(
        (0..=3).contains(&mode),
        "mode {mode} is not one of 0 (half), 1 (interleave), 2 (quarter), 3 (interleave-half)"
    );
    ew::check_result_shape("out", out, &x.shape)?;
    let b = bindings(&[Some(x), Some(cos), Some(sin)], &[Some(out)]);
    if x.is_empty() {
        return Ok(Executor::new("aclnnRotaryPositionEmbedding", b, Nothing));
    }
    for (name, t) in [("x", x), ("cos", cos), ("sin", sin)] {
        crate::ensure!(
            t.rank() == 4,
            "{name} has shape {:?}; it must have 4 dims",
            t.shape
        );
    }
    crate::ensure!(
        cos.shape == sin.shape,
        "cos of shape {:?} and sin of shape {:?} must have the same shape",
        cos.shape,
        sin.shape
    );
    let d = x.shape[3];
    crate::ensure!(
        cos.shape[3] == d && (0..3).all(|i| cos.shape[i] == 1 || cos.shape[i] == x.shape[i]),
        "cos and sin of shape {:?} do not fit x of shape {:?}: the last dims must be equal and each other dim 1 or x's",
        cos.shape,
        x.shape
    );
    let multiple = if mode == 2 { 4 } else { 2 };
    crate::ensure!(
        d.is_multiple_of(multiple) && d < MAX_D,
        "the last dim D = {d} must be a multiple of {multiple} (mode {mode}) and below {MAX_D}"
    );
    Ok(Executor::new(
        "aclnnRotaryPositionEmbedding",
        b,
        Rope {
            mode,
            jobs: vec![(0, 3, x.shape.to_vec())],
            cos: 1,
            sin: 2,
        },
    ))
}

/// A rotation by one cos/sin pair of one or more tensors: each job `(x, out, shape)`
/// rotates binding `x` into binding `out`, cos and sin (bindings `cos`, `sin`) broadcast
/// to its shape.
struct Rope {
    mode: i64,
    jobs: Vec<(usize, usize, Vec<usize>)>,
    cos: usize,
    sin: usize,
}

/// One row of D: `y = x * c + rotate(x) * s` (mode 3: `gather(x) * c + rotate(x) * s`).
fn rotate_row(mode: i64, x: &[f32], c: &[f32], s: &[f32], y: &mut [f32]) {
    let d = x.len();
    let (h, q) = (d / 2, d / 4);
    for i in 0..d {
        let (first, rotated) = match mode {
            0 => (x[i], if i < h { -x[i + h] } else { x[i - h] }),
            1 => (x[i], if i % 2 == 0 { -x[i + 1] } else { x[i - 1] }),
            2 => {
                let r = match i / q {
                    0 => -x[i + q],
                    1 => x[i - q],
                    2 => -x[i + q],
                    _ => x[i - q],
                };
                (x[i], r)
            }
            // x1 = x[::2], x2 = x[1::2]: cat(x1, x2)[i] and cat(-x2, x1)[i].
            _ => {
                if i < h {
                    (x[2 * i], -x[2 * i + 1])
                } else {
                    (x[2 * (i - h) + 1], x[2 * (i - h)])
                }
            }
        };
        y[i] = first * c[i] + rotated * s[i];
    }
}

impl Work for Rope {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        use rayon::prelude::*;
        // Every input is read before an output (which may be an input) is written.
        let mut results = vec![];
        for (x_at, out_at, shape) in &self.jobs {
            let x = load::<f32>(t, *x_at, shape)?;
            let c = load::<f32>(t, self.cos, shape)?;
            let s = load::<f32>(t, self.sin, shape)?;
            let d = shape[shape.len() - 1];
            let mut y = vec![0f32; x.len()];
            crate::engine::pool().install(|| {
                y.par_chunks_mut(d * 64).enumerate().for_each(|(k, rows)| {
                    for (j, row) in rows.chunks_mut(d).enumerate() {
                        let at = (k * 64 + j) * d;
                        let r = at..at + d;
                        rotate_row(self.mode, &x[r.clone()], &c[r.clone()], &s[r], row);
                    }
                })
            });
            results.push((*out_at, y));
        }
        for (out_at, y) in results {
            store(t, out_at, &y)?;
        }
        Ok(())
    }
}

/// aclnnApplyRotaryPosEmb (`v2` false: layout 1 only, mode "half", D = 128) and
/// aclnnApplyRotaryPosEmbV2 (layouts 1 BSND, 2 SBND, 3 BNSD; rotaryMode "half",
/// "interleave" or "quarter"; D a multiple of 2, of 4 for "quarter", below 896): queryRef
/// and keyRef rotated in place by cos and sin, which have their shape with N = 1. The
/// V2 document's parameter table also says D = 128 while its constraints only ask D to
/// divide by 2 or 4; the latter is implemented.
pub fn apply_rotary_pos_emb(
    v2: bool,
    query_ref: &TensorDesc,
    key_ref: &TensorDesc,
    cos: &TensorDesc,
    sin: &TensorDesc,
    layout: i64,
    rotary_mode: &str,
) -> Result<Executor> {
    let api = if v2 {
        "aclnnApplyRotaryPosEmbV2"
    } else {
        "aclnnApplyRotaryPosEmb"
    };
    for (name, t) in [
        ("queryRef", query_ref),
        ("keyRef", key_ref),
        ("cos", cos),
        ("sin", sin),
    ] {
        ew::check_tensor(name, t, ROPE)?;
        crate::ensure!(
            t.dtype == query_ref.dtype,
            "{name} has dtype {} but queryRef has {}: they must be the same",
            t.dtype,
            query_ref.dtype
        );
        crate::ensure!(
            t.rank() == 4 && !t.is_empty(),
            "{name} has shape {:?}; it must have 4 dims and not be empty",
            t.shape
        );
    }
    // Where N sits: BSND and SBND keep it third, BNSD second.
    let n_axis = match (layout, v2) {
        (1, _) | (2, true) => 2,
        (3, true) => 1,
        (l, false) => crate::bail!("layout {l} is not supported: only 1 (BSND) is"),
        (l, true) => crate::bail!("layout {l} is not one of 1 (BSND), 2 (SBND), 3 (BNSD)"),
    };
    let mode = match rotary_mode {
        "half" => 0,
        "interleave" => 1,
        "quarter" => 2,
        m => crate::bail!("rotaryMode \"{m}\" is not one of \"half\", \"interleave\", \"quarter\""),
    };
    let (q, k) = (&query_ref.shape, &key_ref.shape);
    let mut trig = q.to_vec();
    trig[n_axis] = 1;
    crate::ensure!(
        (0..4).all(|i| i == n_axis || q[i] == k[i]),
        "queryRef of shape {q:?} and keyRef of shape {k:?} must be equal but for N (dim {n_axis})"
    );
    crate::ensure!(
        cos.shape[..] == trig[..] && sin.shape == cos.shape,
        "cos of shape {:?} and sin of shape {:?} must both be {trig:?} (queryRef's shape with N = 1)",
        cos.shape,
        sin.shape
    );
    let d = q[3];
    let multiple = if mode == 2 { 4 } else { 2 };
    crate::ensure!(
        if v2 {
            d.is_multiple_of(multiple) && d < MAX_D
        } else {
            d == 128
        },
        "the last dim D = {d} must be {}",
        if v2 {
            format!("a multiple of {multiple} (rotaryMode {rotary_mode}) below {MAX_D}")
        } else {
            "128".to_string()
        }
    );
    let b = bindings(
        &[Some(query_ref), Some(key_ref), Some(cos), Some(sin)],
        &[Some(query_ref), Some(key_ref)],
    );
    Ok(Executor::new(
        api,
        b,
        Rope {
            mode,
            jobs: vec![(0, 4, q.to_vec()), (1, 5, k.to_vec())],
            cos: 2,
            sin: 3,
        },
    ))
}

/// InterleaveRope dtypes: f16 and bf16.
pub(crate) const INTERLEAVE: &[DType] = &[F16, BF16];

/// aclnnInterleaveRope (hicann/ops-transformer posembedding/interleave_rope): x (B, N, S,
/// 64) with its pairs de-interleaved, then rotated by halves: RotaryPositionEmbedding's
/// mode 3; cos and sin (B, 1, S or 1, 64).
pub fn interleave_rope(
    x: &TensorDesc,
    cos: &TensorDesc,
    sin: &TensorDesc,
    out: &TensorDesc,
) -> Result<Executor> {
    for (name, t) in [("x", x), ("cos", cos), ("sin", sin), ("out", out)] {
        ew::check_tensor(name, t, INTERLEAVE)?;
        crate::ensure!(
            t.dtype == x.dtype,
            "{name} has dtype {} but x has {}: they must be the same",
            t.dtype,
            x.dtype
        );
        crate::ensure!(
            t.rank() == 4,
            "{name} has shape {:?}; it must have 4 dims (B, N, S, D)",
            t.shape
        );
    }
    ew::check_result_shape("out", out, &x.shape)?;
    let xs = &x.shape;
    crate::ensure!(xs[3] == 64, "x has shape {xs:?}; its last dim D must be 64");
    let c = &cos.shape;
    crate::ensure!(
        c[0] == xs[0]
            && c[1] == 1
            && (c[2] == 1 || c[2] == xs[2])
            && c[3] == 64
            && sin.shape == cos.shape,
        "cos of shape {c:?} and sin of shape {:?} must both be ({}, 1, 1 or {}, 64)",
        sin.shape,
        xs[0],
        xs[2]
    );
    let b = bindings(&[Some(x), Some(cos), Some(sin)], &[Some(out)]);
    if x.is_empty() {
        return Ok(Executor::new("aclnnInterleaveRope", b, Nothing));
    }
    Ok(Executor::new(
        "aclnnInterleaveRope",
        b,
        Rope {
            mode: 3,
            jobs: vec![(0, 3, xs.to_vec())],
            cos: 1,
            sin: 2,
        },
    ))
}

/// aclnnRopeWithSinCosCache (vLLM's rotary embedding; hicann/ops-transformer
/// posembedding/rope_with_sin_cos_cache, whose document is not published, so its op_api
/// checks are the contract): queryIn (T, Nq·headSize) and keyIn (T, Nk·headSize); each
/// head's first rotaryDim values rotate by the row `positions[t]` of cosSinCache
/// (maxPosition, rotaryDim) = [cos | sin], halves when isNeoxStyle, else interleaved pairs;
/// the rest of each head is copied. In f32, rounded once. A position outside the cache is
/// refused when the work runs. mropeSection (the multimodal rope, positions (3, T)) is
/// refused.
#[allow(clippy::too_many_arguments)]
pub fn rope_with_sin_cos_cache(
    positions: &TensorDesc,
    query_in: &TensorDesc,
    key_in: &TensorDesc,
    cos_sin_cache: &TensorDesc,
    mrope_section: Option<&[i64]>,
    head_size: i64,
    is_neox_style: bool,
    query_out: &TensorDesc,
    key_out: &TensorDesc,
) -> Result<Executor> {
    ew::check_tensor("positions", positions, &[S32, S64])?;
    for (name, t) in [
        ("queryIn", query_in),
        ("keyIn", key_in),
        ("cosSinCache", cos_sin_cache),
        ("queryOut", query_out),
        ("keyOut", key_out),
    ] {
        ew::check_tensor(name, t, ROPE)?;
        crate::ensure!(
            t.dtype == query_in.dtype,
            "{name} has dtype {} but queryIn has {}: they must be the same",
            t.dtype,
            query_in.dtype
        );
    }
    crate::ensure!(
        mrope_section.is_none_or(|m| m.is_empty()),
        "mropeSection (the multimodal rope) is not implemented by aclnn-cpu (pass NULL)"
    );
    for (name, t) in [
        ("queryIn", query_in),
        ("keyIn", key_in),
        ("cosSinCache", cos_sin_cache),
    ] {
        crate::ensure!(
            t.rank() == 2,
            "{name} has shape {:?}; it must have 2 dims",
            t.shape
        );
    }
    let tokens = query_in.shape[0];
    crate::ensure!(
        key_in.shape[0] == tokens && positions.rank() == 1 && positions.shape[0] == tokens,
        "positions {:?}, queryIn {:?} and keyIn {:?} must have one token count",
        positions.shape,
        query_in.shape,
        key_in.shape
    );
    ew::check_result_shape("queryOut", query_out, &query_in.shape)?;
    ew::check_result_shape("keyOut", key_out, &key_in.shape)?;
    let rot = cos_sin_cache.shape[1];
    crate::ensure!(
        head_size > 0
            && query_in.shape[1].is_multiple_of(head_size as usize)
            && key_in.shape[1].is_multiple_of(head_size as usize),
        "headSize {head_size} must be positive and divide queryIn's {} and keyIn's {} columns",
        query_in.shape[1],
        key_in.shape[1]
    );
    crate::ensure!(
        rot.is_multiple_of(2) && rot > 0 && rot <= head_size as usize,
        "cosSinCache has shape {:?}; its rotary dim {rot} must be even, positive and at most headSize {head_size}",
        cos_sin_cache.shape
    );
    let b = bindings(
        &[
            Some(positions),
            Some(query_in),
            Some(key_in),
            Some(cos_sin_cache),
        ],
        &[Some(query_out), Some(key_out)],
    );
    if query_in.is_empty() && key_in.is_empty() {
        return Ok(Executor::new("aclnnRopeWithSinCosCache", b, Nothing));
    }
    Ok(Executor::new(
        "aclnnRopeWithSinCosCache",
        b,
        CachedRope {
            tokens,
            head: head_size as usize,
            cache: cos_sin_cache.shape.to_vec(),
            widths: [query_in.shape[1], key_in.shape[1]],
            neox: is_neox_style,
        },
    ))
}

struct CachedRope {
    tokens: usize,
    head: usize,
    /// (maxPosition, rotaryDim).
    cache: Vec<usize>,
    /// queryIn's and keyIn's columns.
    widths: [usize; 2],
    neox: bool,
}

impl Work for CachedRope {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let (rot, max_pos, half) = (self.cache[1], self.cache[0], self.cache[1] / 2);
        let positions = load::<i64>(t, 0, &[self.tokens])?;
        for (i, &p) in positions.iter().enumerate() {
            crate::ensure!(
                (0..max_pos as i64).contains(&p),
                "positions[{i}] = {p} is not a row of cosSinCache (it has {max_pos})"
            );
        }
        let cache = load::<f32>(t, 3, &self.cache)?;
        // Halves (neox) rotate as RotaryPositionEmbedding's mode 0, pairs as mode 1.
        let mode = if self.neox { 0 } else { 1 };
        let mut results = vec![];
        for (x_at, width) in [(1, self.widths[0]), (2, self.widths[1])] {
            let x = load::<f32>(t, x_at, &[self.tokens, width])?;
            let mut y = x.clone();
            let (mut c, mut s) = (vec![0f32; rot], vec![0f32; rot]);
            for (tok, &p) in positions.iter().enumerate() {
                let row = &cache[p as usize * rot..][..rot];
                for i in 0..rot {
                    let at = if self.neox { i % half } else { i / 2 };
                    (c[i], s[i]) = (row[at], row[half + at]);
                }
                for h in 0..width / self.head {
                    let at = tok * width + h * self.head;
                    rotate_row(mode, &x[at..at + rot], &c, &s, &mut y[at..at + rot]);
                }
            }
            results.push((x_at + 3, y));
        }
        for (out_at, y) in results {
            store(t, out_at, &y)?;
        }
        Ok(())
    }
}
