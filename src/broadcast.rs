//! Broadcasting (SEMANTICS §3): multidirectional (NumPy) and unidirectional (ONNX Gemm,
//! PRelu), and the device's limit on merged broadcast axes for some dtypes.

use crate::dtype::DType;
use crate::error::Result;

/// The broadcast shape of named shapes, or an error naming both shapes and the dim.
pub fn broadcast_shapes(shapes: &[(&str, &[usize])]) -> Result<crate::tensor::Dims> {
    let rank = shapes.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut out: crate::tensor::Dims = smallvec::smallvec![1usize; rank];
    // Which operand set each dim (for messages).
    let mut owner: crate::tensor::Dims = smallvec::smallvec![0; rank];
    for (k, (_, s)) in shapes.iter().enumerate() {
        for (i, &d) in s.iter().enumerate() {
            let j = rank - s.len() + i;
            if d == out[j] || d == 1 {
                continue;
            }
            if out[j] == 1 {
                out[j] = d;
                owner[j] = k;
                continue;
            }
            let (other_name, other_shape) = shapes[owner[j]];
            let (name, shape) = shapes[k];
            crate::bail!(
                "shapes {other_name} {other_shape:?} and {name} {shape:?} cannot broadcast: dim {} (counting from the right: {}) has sizes {} and {d}",
                j,
                -((rank - j) as i64),
                out[j]
            );
        }
    }
    Ok(out)
}

/// Whether `b` broadcasts to `a`'s shape without changing it (ONNX unidirectional rule).
pub fn broadcasts_to(b: &[usize], a: &[usize]) -> bool {
    b.len() <= a.len()
        && b.iter()
            .rev()
            .zip(a.iter().rev())
            .all(|(&x, &y)| x == y || x == 1)
}

/// The dtypes for which the device limits merged broadcast axes (cann-broadcasting.en.md).
pub fn device_limits_axes(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::C64 | DType::C128 | DType::F64 | DType::S16 | DType::U16 | DType::U64
    )
}

/// Axes left after dropping size-1 output axes and merging neighbours that every input
/// broadcasts the same way (both stretched, or both not).
pub fn merged_axes(inputs: &[&[usize]], out: &[usize]) -> usize {
    let rank = out.len();
    let pattern = |j: usize| -> Vec<bool> {
        inputs
            .iter()
            .map(|s| {
                let lead = rank - s.len();
                j < lead || s[j - lead] == 1
            })
            .collect()
    };
    let mut groups = 0;
    let mut last: Option<Vec<bool>> = None;
    for (j, &d) in out.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let p = pattern(j);
        if last.as_ref() != Some(&p) {
            groups += 1;
        }
        last = Some(p);
    }
    groups
}

/// The device's rejection: with a computation dtype of c64, c128, f64, s16, u16 or u64,
/// 6 or more merged axes fail.
pub fn check_device_axis_limit(
    dtype: DType,
    inputs: &[(&str, &[usize])],
    out: &[usize],
) -> Result<()> {
    static LIFTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let lifted =
        *LIFTED.get_or_init(|| std::env::var("ACLNN_CPU_DEVICE_AXIS_LIMIT").as_deref() == Ok("0"));
    if lifted || !device_limits_axes(dtype) || inputs.len() < 2 {
        return Ok(());
    }
    let shapes: smallvec::SmallVec<[&[usize]; 4]> = inputs.iter().map(|(_, s)| *s).collect();
    let n = merged_axes(&shapes, out);
    if n >= 6 {
        let list: Vec<String> = inputs.iter().map(|(k, s)| format!("{k} {s:?}")).collect();
        crate::bail!(
            "broadcasting {} in {dtype} leaves {n} axes after merging runs of broadcast and non-broadcast axes; \
             the device supports fewer than 6 for {dtype} (set ACLNN_CPU_DEVICE_AXIS_LIMIT=0 to lift this check)",
            list.join(" with "),
        );
    }
    Ok(())
}
