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
            shape: x.shape.to_vec(),
            mode,
        },
    ))
}

struct Rope {
    shape: Vec<usize>,
    mode: i64,
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
        let x = load::<f32>(t, 0, &self.shape)?;
        let c = load::<f32>(t, 1, &self.shape)?;
        let s = load::<f32>(t, 2, &self.shape)?;
        let d = self.shape[3];
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
        store(t, 3, &y)
    }
}
