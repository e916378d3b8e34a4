//! ACL_INT4 storage: two signed 4-bit values a byte, the element of even index in the low
//! nibble, as CANN stores int4 (ggml's Q4_0 weights reach aclnnWeightQuantBatchMatmulV2 in
//! it). A view of it counts elements: element `e` of the storage is nibble `e % 2` of byte
//! `e / 2`. This module reads and writes such views nibble by nibble (writing one element
//! keeps the other nibble of its byte), re-expresses INT32-packed int4 (eight values an
//! int32, lowest nibble first) as the int4 view of the same bytes, and holds
//! aclnnConvertWeightToINT4Pack.

use super::dense::{bindings, for_each_row};
use crate::dtype::DType;
use crate::error::Result;
use crate::executor::{Bindings, Executor, Work, Workspace};
use crate::tensor::TensorDesc;

/// The value of a 4-bit two's-complement nibble.
fn nibble_value(byte: u8, high: bool) -> i8 {
    let n = if high { byte >> 4 } else { byte & 0x0f };
    ((n << 4) as i8) >> 4
}

/// The element offsets (from the storage start) of `v`'s elements broadcast to `shape`,
/// in row-major order, handed to `f` with their position.
fn for_each_element(v: &TensorDesc, shape: &[usize], mut f: impl FnMut(usize, usize)) {
    let strides = crate::engine::broadcast_strides(shape, &v.shape, &v.strides);
    let len = shape.last().copied().unwrap_or(1);
    let inner = strides.last().copied().unwrap_or(0);
    for_each_row(shape, &strides, |row, off| {
        for j in 0..len {
            let e = v.offset as isize + off + j as isize * inner;
            f(row * len + j, e as usize);
        }
    });
}

/// `v` — binding `b`'s int4 view, or the int4 view of its bytes (`unpacked_view`); its
/// geometry is used with the binding's address — broadcast to `shape`, as row-major i8 values in [-8, 7].
pub(crate) fn load(t: &Bindings, b: usize, v: &TensorDesc, shape: &[usize]) -> Result<Vec<i8>> {
    debug_assert!(v.dtype.is_packed());
    let n: usize = shape.iter().product();
    let mut out = vec![0i8; n];
    if n == 0 {
        return Ok(out);
    }
    let base = t.addr(b)? as *const u8;
    for_each_element(v, shape, |i, e| {
        // SAFETY: phase 2 checked the bytes the view spans (`TensorDesc::byte_span`) lie in
        // its device memory, and e is one of the view's elements.
        let byte = unsafe { *base.add(e / 2) };
        out[i] = nibble_value(byte, e % 2 == 1);
    });
    Ok(out)
}

/// Writes row-major `values` (each taken modulo 16, as a nibble) into binding `b`'s int4
/// view `v`; the other nibble of each byte written is kept.
pub(crate) fn store(t: &Bindings, b: usize, v: &TensorDesc, values: &[i8]) -> Result<()> {
    debug_assert!(v.dtype.is_packed() && values.len() == v.numel());
    if v.is_empty() {
        return Ok(());
    }
    let base = t.addr(b)? as *mut u8;
    for_each_element(v, &v.shape, |i, e| {
        let nib = values[i] as u8 & 0x0f;
        // SAFETY: as in `load`, for the output view.
        unsafe {
            let p = base.add(e / 2);
            *p = if e % 2 == 1 {
                (*p & 0x0f) | nib << 4
            } else {
                (*p & 0xf0) | nib
            };
        }
    });
    Ok(())
}

/// The dim a 2-D-or-more weight's storage runs along: the last when its stride is 1 (or
/// it is the only candidate), else the one of stride 1 and length > 1 (a transposed view).
pub(crate) fn inner_dim(v: &TensorDesc) -> usize {
    let r = v.rank();
    if r == 0 || v.strides[r - 1] == 1 {
        return r.saturating_sub(1);
    }
    (0..r)
        .rev()
        .find(|&d| v.strides[d] == 1 && v.shape[d] > 1)
        .unwrap_or(r - 1)
}

/// An INT32 tensor carrying packed int4 (eight values an int32, the first in its lowest
/// nibble: on a little-endian machine, the int4 layout of the same bytes) as the int4 view
/// of its bytes: the packed dim (`inner_dim`)
/// grows eightfold and every other stride and the offset count nibbles.
pub(crate) fn unpacked_view(v: &TensorDesc) -> Result<TensorDesc> {
    debug_assert_eq!(v.dtype, DType::S32);
    let r = v.rank();
    crate::ensure!(r >= 1, "an INT32-packed int4 tensor needs at least one dim");
    let packed = inner_dim(v);
    let mut u = v.clone();
    u.dtype = DType::S4;
    for d in 0..r {
        if d == packed {
            u.shape[d] = v.shape[d].checked_mul(8).ok_or_else(|| {
                crate::error::Error::Invalid("the packed dim is too large".into())
            })?;
            u.strides[d] = 1;
        } else {
            u.strides[d] = v.strides[d].saturating_mul(8);
        }
    }
    u.offset = v.offset.saturating_mul(8);
    u.storage_shape = v.storage_shape.clone();
    if let Some(last) = u.storage_shape.last_mut() {
        *last = last.saturating_mul(8);
    }
    Ok(u)
}

pub(crate) const PACK_IN: &[DType] = &[DType::S32];
pub(crate) const PACK_OUT: &[DType] = &[DType::S4, DType::S32];

/// aclnnConvertWeightToINT4Pack: INT32 weights holding int4 values ([-8, 7]) packed
/// tightly, into an ACL_INT4 tensor of the same shape or an INT32 tensor of the last dim
/// divided by 8 (eight values an int32, the first in the lowest nibble). Values outside
/// [-8, 7] keep their low four bits, as a bit-field conversion does. The FRACTAL_NZ output
/// layout is refused (not implemented).
pub fn convert_weight_to_int4_pack(weight: &TensorDesc, pack: &TensorDesc) -> Result<Executor> {
    crate::ops::elementwise::check_tensor("weight", weight, PACK_IN)?;
    crate::ensure!(
        pack.format != crate::format::Format::FRACTAL_NZ,
        "weightInt4Pack in ACL_FORMAT_FRACTAL_NZ (the ND-to-NZ conversion) is not implemented by aclnn-cpu"
    );
    crate::ops::elementwise::check_tensor("weightInt4Pack", pack, PACK_OUT)?;
    pack.check_output("weightInt4Pack")?;
    crate::ensure!(
        (2..=3).contains(&weight.rank()),
        "weight has {} dims; it must have 2 or 3",
        weight.rank()
    );
    crate::ensure!(
        !weight.is_empty(),
        "weight of shape {:?} is empty (empty tensors are not supported)",
        weight.shape
    );
    let r = weight.rank();
    let last = weight.shape[r - 1];
    let (align, want_last) = if pack.dtype == DType::S4 {
        (2, last)
    } else {
        (8, last / 8)
    };
    crate::ensure!(
        last % align == 0,
        "weight of shape {:?}: its last dim {last} must be a multiple of {align} for a weightInt4Pack of dtype {}",
        weight.shape,
        pack.dtype
    );
    let mut want = weight.shape.clone();
    want[r - 1] = want_last;
    crate::ensure!(
        pack.shape == want,
        "weightInt4Pack has shape {:?}; for weight {:?} and dtype {} it must be {:?}",
        pack.shape,
        weight.shape,
        pack.dtype,
        &want[..]
    );
    let out_view = if pack.dtype == DType::S32 {
        unpacked_view(pack)?
    } else {
        pack.clone()
    };
    let bd = bindings(&[Some(weight)], &[Some(pack)]);
    Ok(Executor::new(
        "aclnnConvertWeightToINT4Pack",
        bd,
        Pack { out_view },
    ))
}

struct Pack {
    /// The output as an int4 view (an INT32 output re-expressed).
    out_view: TensorDesc,
}

impl Work for Pack {
    fn workspace_size(&self) -> u64 {
        0
    }
    fn accepts_int4(&self) -> bool {
        true
    }
    fn run(&self, t: &Bindings, _: Workspace) -> Result<()> {
        let shape = t.view(0)?.shape.clone();
        let w = super::dense::load::<i32>(t, 0, &shape)?;
        let nibbles: Vec<i8> = w.iter().map(|&v| v as i8).collect();
        store(t, 1, &self.out_view, &nibbles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nibbles_are_signed_low_first() {
        assert_eq!(nibble_value(0x7f, false), -1);
        assert_eq!(nibble_value(0x7f, true), 7);
        assert_eq!(nibble_value(0x80, true), -8);
        assert_eq!(nibble_value(0x08, false), -8);
    }
}
