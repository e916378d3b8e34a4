//! A tensor is a view: (shape, strides, offset) in elements over a storage of
//! `product(storage_shape)` elements starting at a device address (SEMANTICS §2).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::format::Format;

/// Dims of a view: inline up to rank 8 (the operators' limit), on the heap beyond.
pub type Dims = smallvec::SmallVec<[usize; 8]>;
/// Element strides of a view, inline up to rank 8.
pub type Strides = smallvec::SmallVec<[isize; 8]>;

#[derive(Debug)]
pub struct TensorDesc {
    pub dtype: DType,
    pub format: Format,
    pub shape: Dims,
    /// Element strides, one per view dim; never negative.
    pub strides: Strides,
    /// Offset of the view's first element from the storage start, in elements.
    pub offset: usize,
    pub storage_shape: Dims,
    /// Start of the storage (0 when the caller passed NULL).
    pub addr: usize,
}

/// Executors copy the views they are planned with on every phase 1: `from_slice` copies
/// the dims as one block, where the derived clone would go element by element.
impl Clone for TensorDesc {
    fn clone(&self) -> TensorDesc {
        TensorDesc {
            dtype: self.dtype,
            format: self.format,
            shape: Dims::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
            offset: self.offset,
            storage_shape: Dims::from_slice(&self.storage_shape),
            addr: self.addr,
        }
    }
}

/// Field by field, cheapest first, with the dims compared inline (plans are looked up by
/// view equality on every phase 1).
impl PartialEq for TensorDesc {
    fn eq(&self, o: &TensorDesc) -> bool {
        fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
        }
        self.addr == o.addr
            && self.offset == o.offset
            && self.dtype == o.dtype
            && self.format == o.format
            && same(&self.shape, &o.shape)
            && same(&self.strides, &o.strides)
            && same(&self.storage_shape, &o.storage_shape)
    }
}

/// Largest rank aclCreateTensor accepts; operators have their own, smaller limits.
pub const MAX_CREATE_RANK: usize = 64;

fn dims_of(v: &[i64], what: &str) -> Result<Dims> {
    if v.len() > MAX_CREATE_RANK {
        crate::bail!(
            "{what} has {} dims; at most {MAX_CREATE_RANK} are supported",
            v.len()
        );
    }
    v.iter()
        .enumerate()
        .map(|(i, &d)| {
            usize::try_from(d).map_err(|_| Error::Invalid(format!("{what}[{i}] = {d} is negative")))
        })
        .collect()
}

/// Row-major strides for `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut s: Strides = smallvec::smallvec![0isize; shape.len()];
    let mut acc: isize = 1;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1) as isize);
    }
    s
}

/// Product of dims, or None on overflow past isize::MAX.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|n| *n <= isize::MAX as usize)
}

impl TensorDesc {
    /// Builds and validates a view exactly as `aclCreateTensor` describes it.
    pub fn new(
        view_dims: &[i64],
        dtype: i32,
        strides: Option<&[i64]>,
        offset: i64,
        format: i32,
        storage_dims: &[i64],
        addr: usize,
    ) -> Result<TensorDesc> {
        let dtype = DType::from_raw_storage(dtype).map_err(Error::Invalid)?;
        let format = Format::from_raw(format).map_err(Error::Invalid)?;
        let shape = dims_of(view_dims, "viewDims")?;
        // CANN's aclCreateTensor does not look at storageDims' signs (only at NULL arrays);
        // ggml sizes an empty view's storage as (n - 1) * stride + 1 and passes a negative
        // length. Such a dim describes no memory: it is kept as 0.
        let clamped: Vec<i64> = storage_dims.iter().map(|&d| d.max(0)).collect();
        let storage_shape = dims_of(&clamped, "storageDims")?;
        let strides = match strides {
            None => contiguous_strides(&shape),
            Some(s) => s
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    // A dim of size 0 or 1 never moves along its stride: CANN does not look at
                    // it, and clients leave it unset (ggml's fused AddRmsNorm passes an
                    // uninitialised outer stride for a size-1 dim). It is kept as 0.
                    if shape.get(i).is_some_and(|&d| d <= 1) && v < 0 {
                        return Ok(0);
                    }
                    if v < 0 {
                        crate::bail!(
                            "stride[{i}] = {v} is negative; views must have non-negative strides"
                        )
                    }
                    isize::try_from(v)
                        .map_err(|_| Error::Invalid(format!("stride[{i}] = {v} is too large")))
                })
                .collect::<Result<Strides>>()?,
        };
        let offset = usize::try_from(offset)
            .map_err(|_| Error::Invalid(format!("offset = {offset} is negative")))?;
        let desc = TensorDesc {
            dtype,
            format,
            shape,
            strides,
            offset,
            storage_shape,
            addr,
        };
        desc.check_addressable()?;
        Ok(desc)
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Elements `start..start + len` along `axis` (a view of the same storage).
    pub fn narrowed(&self, axis: usize, start: usize, len: usize) -> TensorDesc {
        debug_assert!(start + len <= self.shape[axis]);
        let mut t = self.clone();
        t.shape[axis] = len;
        if len > 0 {
            t.offset += start * self.strides[axis] as usize;
        }
        t
    }

    /// The elements whose index along `axis` is `index`, without that axis.
    pub fn selected(&self, axis: usize, index: usize) -> TensorDesc {
        let mut t = self.narrowed(axis, index, 1);
        t.shape.remove(axis);
        t.strides.remove(axis);
        t
    }

    /// The same elements seen with their axes reordered: axis `i` of the result is axis
    /// `perm[i]` of self (a permutation of 0..rank), with `format`.
    pub fn permuted(&self, perm: &[usize], format: crate::format::Format) -> TensorDesc {
        debug_assert_eq!(perm.len(), self.rank());
        let mut t = self.clone();
        t.shape = perm.iter().map(|&a| self.shape[a]).collect();
        t.strides = perm.iter().map(|&a| self.strides[a]).collect();
        t.format = format;
        t
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    pub fn storage_numel(&self) -> usize {
        self.storage_shape.iter().product()
    }

    /// Largest element index (from the storage start) the view reaches, or None if empty.
    /// Checked arithmetic: the caller gets an error, never a wrapped value.
    pub fn max_index(&self) -> Result<Option<usize>> {
        if self.is_empty() {
            return Ok(None);
        }
        let mut max = self.offset as u128;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            max += (d as u128 - 1) * s as u128;
        }
        usize::try_from(max)
            .ok()
            .filter(|m| *m < isize::MAX as usize / 16)
            .map(Some)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "the view {} reaches past any addressable memory",
                    self.describe()
                ))
            })
    }

    /// What aclCreateTensor checks: dims, strides and offset that describe memory that can
    /// exist. CANN's aclCreateTensor does not compare the view with storageDims (a view may
    /// reach past them, as ggml's views with an offset do); the memory a view touches is
    /// checked against its aclrtMalloc allocation at phase 1 and phase 2 instead, and
    /// against storageDims only where no allocation is known (`check_inside_storage`).
    fn check_addressable(&self) -> Result<()> {
        checked_numel(&self.storage_shape)
            .filter(|n| {
                n.checked_mul(self.dtype.size())
                    .is_some_and(|b| b <= isize::MAX as usize)
            })
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "storageDims {:?} describe more memory than can exist",
                    self.storage_shape
                ))
            })?;
        checked_numel(&self.shape).ok_or_else(|| {
            Error::Invalid(format!("viewDims {:?} have too many elements", self.shape))
        })?;
        self.max_index().map(drop)
    }

    /// SEMANTICS §2 for memory no allocation describes (host memory accepted with
    /// ACLNN_CPU_ALLOW_HOST_MEMORY): the largest element index the view reaches must be
    /// < product(storageDims), the only bound known for it.
    pub fn check_inside_storage(&self) -> Result<()> {
        let storage = self.storage_numel();
        if let Some(max) = self.max_index()? {
            crate::ensure!(
                max < storage,
                "the view {} reaches element {max}, outside its storage {:?} of {storage} elements",
                self.describe(),
                self.storage_shape
            );
        }
        Ok(())
    }

    /// "shape (6, 5) strides (10, 1) offset 22" — for messages.
    pub fn describe(&self) -> String {
        format!(
            "shape {:?} strides {:?} offset {}",
            self.shape, self.strides, self.offset
        )
    }

    /// For a tensor in ACL_FORMAT_FRACTAL_NZ (rank >= 2): the stored matrix and whether the
    /// view sees it transposed. The view's last two dims are the logical matrix; strides that
    /// run down its rows (a column-major view, as a transposed weight is passed) mean the
    /// stored matrix is its transpose. Leading dims are consecutive stored blocks.
    pub fn nz(&self) -> Option<(crate::format::Nz, bool)> {
        if self.format != crate::format::Format::FRACTAL_NZ || self.rank() < 2 {
            return None;
        }
        let r = self.rank();
        let (a, b) = (self.shape[r - 2], self.shape[r - 1]);
        let transposed = a > 1 && b > 1 && self.strides[r - 2] < self.strides[r - 1];
        let (rows, cols) = if transposed { (b, a) } else { (a, b) };
        let mut nz = crate::format::Nz::new(rows, cols, self.dtype.size());
        if self.dtype.is_packed() {
            nz.c0 = 64; // 32 bytes of int4
        }
        Some((nz, transposed))
    }

    /// The byte range [first, last] the view's elements touch, or None if it has none. An
    /// FRACTAL_NZ tensor touches its whole padded blocks (`nz`).
    pub fn byte_span(&self) -> Option<(usize, usize)> {
        if let Some((nz, _)) = self.nz() {
            if self.is_empty() {
                return None;
            }
            let batches: usize = self.shape[..self.rank() - 2].iter().product();
            let first = self.addr.saturating_add(self.dtype.bytes_for(self.offset));
            let bytes = self
                .dtype
                .bytes_for(batches.saturating_mul(nz.elements()))
                .max(1);
            return Some((first, first.saturating_add(bytes - 1)));
        }
        // Creation checked that the largest index is addressable (`check_addressable`) and
        // only the address can change afterwards, so only adding the address can overflow.
        let mut max = self.offset;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            if d == 0 {
                return None; // no elements
            }
            max += (d - 1) * s as usize;
        }
        if self.dtype.is_packed() {
            // Element i is in byte i / 2 (the low nibble holds the even one).
            return Some((
                self.addr.saturating_add(self.offset / 2),
                self.addr.saturating_add(max / 2),
            ));
        }
        let size = self.dtype.size();
        let first = self.addr.saturating_add(self.offset * size);
        Some((first, self.addr.saturating_add(max * size + size - 1)))
    }

    /// An output must not overlap itself (SEMANTICS §2): the check every operator applies.
    pub fn check_output(&self, name: &str) -> Result<()> {
        crate::ensure!(
            !self.has_internal_overlap(),
            "output '{name}' ({}) has elements that share memory; an output must not overlap itself",
            self.describe()
        );
        Ok(())
    }

    /// True when two elements of the view share memory (a stride-0 dim of size > 1, or
    /// strides that interleave onto the same element).
    ///
    /// Fast sufficient test first: sorted by stride, each stride exceeding the span of the
    /// smaller-strided dims proves the elements distinct (every usual view). Otherwise the
    /// view's elements are enumerated into a bitmap when that is affordable; views too big
    /// to enumerate that fail the fast test are reported as overlapping.
    pub fn has_internal_overlap(&self) -> bool {
        if self.is_empty() {
            return false;
        }
        let mut dims: Vec<(usize, usize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(d, _)| **d > 1)
            .map(|(&d, &s)| (s as usize, d))
            .collect();
        dims.sort_unstable();
        if dims.iter().any(|&(s, _)| s == 0) {
            return true;
        }
        let mut span = 0usize;
        let mut proven = true;
        for &(s, d) in &dims {
            if s <= span {
                proven = false;
                break;
            }
            span += s * (d - 1);
        }
        if proven {
            return false;
        }
        let span: usize = dims.iter().map(|&(s, d)| s * (d - 1)).sum();
        if self.numel() > (1 << 22) || span >= (1 << 28) {
            return true;
        }
        let mut seen = vec![0u64; span / 64 + 1];
        let mut idx = vec![0usize; dims.len()];
        let mut off = 0usize;
        loop {
            let (w, b) = (off / 64, off % 64);
            if seen[w] >> b & 1 == 1 {
                return true;
            }
            seen[w] |= 1 << b;
            let mut k = 0;
            loop {
                if k == dims.len() {
                    return false;
                }
                idx[k] += 1;
                off += dims[k].0;
                if idx[k] < dims[k].1 {
                    break;
                }
                off -= dims[k].0 * dims[k].1;
                idx[k] = 0;
                k += 1;
            }
        }
    }
}
