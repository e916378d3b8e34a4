//! `aclnn/acl_meta.h`: tensors, scalars, arrays, lists and executors.
//!
//! Every object is an opaque handle, validated on each use: a NULL where one is required
//! is ACLNN_ERR_PARAM_NULLPTR, a destroyed or foreign pointer is ACLNN_ERR_PARAM_INVALID.

use super::arg;
use super::base::{aclDataTypeRaw, aclFormatRaw};
use super::guard;
use super::handle::{self, Handle};
use crate::dtype::DType;
use crate::error::{status, Error, Result};
use crate::executor::Executor;
use crate::scalar::Scalar;
use crate::tensor::TensorDesc;
use std::ffi::c_void;

/// Status of aclnn functions: 0 is success (ACLNN_SUCCESS).
pub type aclnnStatus = i32;

/// A tensor: a view (shape, strides, offset in elements) over device storage.
/// Create with aclCreateTensor; destroy with aclDestroyTensor.
pub struct aclTensor {
    pub(crate) desc: TensorDesc,
}
/// A host scalar of any dtype. Create with aclCreateScalar; destroy with aclDestroyScalar.
pub struct aclScalar {
    pub(crate) value: Scalar,
}
/// An array of int64 values (dims, axes, ...). Destroy with aclDestroyIntArray.
pub struct aclIntArray {
    pub(crate) values: Vec<i64>,
}
/// An array of floats. Destroy with aclDestroyFloatArray.
pub struct aclFloatArray {
    pub(crate) values: Vec<f32>,
}
/// An array of bools. Destroy with aclDestroyBoolArray.
pub struct aclBoolArray {
    pub(crate) values: Vec<bool>,
}
/// A list of tensors; destroying it destroys its tensors.
pub struct aclTensorList {
    pub(crate) tensors: Vec<usize>,
}
/// A list of scalars; destroying it destroys its scalars.
pub struct aclScalarList {
    pub(crate) scalars: Vec<usize>,
}
/// Planned work from an aclnnXxxGetWorkspaceSize call, run by aclnnXxx.
pub struct aclOpExecutor {
    pub(crate) exec: Executor,
}

impl Handle for aclTensor {
    const KIND: &'static str = "aclTensor";
}
impl Handle for aclScalar {
    const KIND: &'static str = "aclScalar";
}
impl Handle for aclIntArray {
    const KIND: &'static str = "aclIntArray";
}
impl Handle for aclFloatArray {
    const KIND: &'static str = "aclFloatArray";
}
impl Handle for aclBoolArray {
    const KIND: &'static str = "aclBoolArray";
}
impl Handle for aclTensorList {
    const KIND: &'static str = "aclTensorList";
}
impl Handle for aclScalarList {
    const KIND: &'static str = "aclScalarList";
}
impl Handle for aclOpExecutor {
    const KIND: &'static str = "aclOpExecutor";
}

/// Builds a tensor description from aclCreateTensor/aclInitTensor arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn desc_from_args(
    viewDims: *const i64,
    viewDimsNum: u64,
    dataType: aclDataTypeRaw,
    stride: *const i64,
    offset: i64,
    format: aclFormatRaw,
    storageDims: *const i64,
    storageDimsNum: u64,
    tensorData: *mut c_void,
) -> Result<TensorDesc> {
    // SAFETY: the caller passes arrays of the stated lengths.
    let view = unsafe { arg::slice(viewDims, viewDimsNum, "viewDims")? };
    let storage = unsafe { arg::slice(storageDims, storageDimsNum, "storageDims")? };
    let strides = if stride.is_null() {
        None
    } else {
        Some(unsafe { arg::slice(stride, viewDimsNum, "stride")? })
    };
    TensorDesc::new(
        view,
        dataType,
        strides,
        offset,
        format,
        storage,
        tensorData as usize,
    )
}

/// Creates a tensor: the view `viewDims` with `stride` (elements; NULL = contiguous) and
/// `offset` (elements) over a storage of shape `storageDims` at `tensorData` (may be NULL
/// until set with aclSetRawTensorAddr). The arrays are copied. Returns NULL on invalid
/// arguments (see aclGetRecentErrMsg): unknown dtype or format, negative dims, strides or
/// offset, or a view that reaches outside its storage. Destroy with aclDestroyTensor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateTensor(
    viewDims: *const i64,
    viewDimsNum: u64,
    dataType: aclDataTypeRaw,
    stride: *const i64,
    offset: i64,
    format: aclFormatRaw,
    storageDims: *const i64,
    storageDimsNum: u64,
    tensorData: *mut c_void,
) -> *mut aclTensor {
    guard::ptr("aclCreateTensor", || {
        let desc = unsafe {
            desc_from_args(
                viewDims,
                viewDimsNum,
                dataType,
                stride,
                offset,
                format,
                storageDims,
                storageDimsNum,
                tensorData,
            )?
        };
        Ok(handle::into_raw(aclTensor { desc }))
    })
}

/// Creates a scalar by copying one element of `dataType` from `value`. Returns NULL if
/// `value` is NULL or the dtype is not supported. Destroy with aclDestroyScalar.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateScalar(
    value: *mut c_void,
    dataType: aclDataTypeRaw,
) -> *mut aclScalar {
    guard::ptr("aclCreateScalar", || {
        let dtype = DType::from_raw(dataType).map_err(Error::Invalid)?;
        // SAFETY: the caller passes one element of `dataType`.
        let bytes = unsafe { arg::slice(value as *const u8, dtype.size() as u64, "value")? };
        Ok(handle::into_raw(aclScalar {
            value: Scalar::from_bytes(dtype, bytes),
        }))
    })
}

/// Creates an int64 array by copying `size` values (NULL or 0 gives an empty array).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateIntArray(value: *const i64, size: u64) -> *mut aclIntArray {
    guard::ptr("aclCreateIntArray", || {
        let v = if value.is_null() {
            &[][..]
        } else {
            unsafe { arg::slice(value, size, "value")? }
        };
        Ok(handle::into_raw(aclIntArray { values: v.to_vec() }))
    })
}

/// Creates a float array by copying `size` values (NULL or 0 gives an empty array).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateFloatArray(value: *const f32, size: u64) -> *mut aclFloatArray {
    guard::ptr("aclCreateFloatArray", || {
        let v = if value.is_null() {
            &[][..]
        } else {
            unsafe { arg::slice(value, size, "value")? }
        };
        Ok(handle::into_raw(aclFloatArray { values: v.to_vec() }))
    })
}

/// Creates a bool array by copying `size` values (NULL or 0 gives an empty array).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateBoolArray(value: *const bool, size: u64) -> *mut aclBoolArray {
    guard::ptr("aclCreateBoolArray", || {
        // Read bytes, not Rust bools: a C bool byte other than 0/1 must not be UB.
        let v = if value.is_null() {
            &[][..]
        } else {
            unsafe { arg::slice(value as *const u8, size, "value")? }
        };
        Ok(handle::into_raw(aclBoolArray {
            values: v.iter().map(|b| *b != 0).collect(),
        }))
    })
}

/// Creates a list holding the given tensors (the pointers are copied; the tensors are
/// now owned by the list: aclDestroyTensorList destroys them).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateTensorList(
    value: *const *const aclTensor,
    size: u64,
) -> *mut aclTensorList {
    guard::ptr("aclCreateTensorList", || {
        let v = if value.is_null() {
            &[][..]
        } else {
            unsafe { arg::slice(value, size, "value")? }
        };
        for (i, t) in v.iter().enumerate() {
            if !handle::is_live(*t) {
                crate::bail!("value[{i}] is not a live aclTensor");
            }
        }
        Ok(handle::into_raw(aclTensorList {
            tensors: v.iter().map(|p| *p as usize).collect(),
        }))
    })
}

/// Creates a list holding the given scalars (owned by the list from now on).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateScalarList(
    value: *const *const aclScalar,
    size: u64,
) -> *mut aclScalarList {
    guard::ptr("aclCreateScalarList", || {
        let v = if value.is_null() {
            &[][..]
        } else {
            unsafe { arg::slice(value, size, "value")? }
        };
        for (i, s) in v.iter().enumerate() {
            if !handle::is_live(*s) {
                crate::bail!("value[{i}] is not a live aclScalar");
            }
        }
        Ok(handle::into_raw(aclScalarList {
            scalars: v.iter().map(|p| *p as usize).collect(),
        }))
    })
}

/// Destroys a tensor. NULL is fine; a destroyed or foreign pointer returns ACLNN_ERR_PARAM_INVALID.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyTensor(tensor: *const aclTensor) -> aclnnStatus {
    guard::status("aclDestroyTensor", || {
        super::reported::forget(tensor);
        handle::destroy(tensor as *mut aclTensor, "tensor")
    })
}

/// Destroys a scalar. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyScalar(scalar: *const aclScalar) -> aclnnStatus {
    guard::status("aclDestroyScalar", || {
        handle::destroy(scalar as *mut aclScalar, "scalar")
    })
}

/// Destroys an int array. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyIntArray(array: *const aclIntArray) -> aclnnStatus {
    guard::status("aclDestroyIntArray", || {
        handle::destroy(array as *mut aclIntArray, "array")
    })
}

/// Destroys a float array. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyFloatArray(array: *const aclFloatArray) -> aclnnStatus {
    guard::status("aclDestroyFloatArray", || {
        handle::destroy(array as *mut aclFloatArray, "array")
    })
}

/// Destroys a bool array. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyBoolArray(array: *const aclBoolArray) -> aclnnStatus {
    guard::status("aclDestroyBoolArray", || {
        handle::destroy(array as *mut aclBoolArray, "array")
    })
}

/// Destroys a tensor list and every tensor in it. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyTensorList(array: *const aclTensorList) -> aclnnStatus {
    guard::status("aclDestroyTensorList", || {
        if array.is_null() {
            return Ok(());
        }
        let list = handle::take(array as *mut aclTensorList, "array")?;
        for t in list.tensors {
            // An element the caller already destroyed is skipped rather than freed twice.
            super::reported::forget(t as *const aclTensor);
            let _ = handle::destroy(t as *mut aclTensor, "array[i]");
        }
        Ok(())
    })
}

/// Destroys a scalar list and every scalar in it. NULL is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclDestroyScalarList(array: *const aclScalarList) -> aclnnStatus {
    guard::status("aclDestroyScalarList", || {
        if array.is_null() {
            return Ok(());
        }
        let list = handle::take(array as *mut aclScalarList, "array")?;
        for s in list.scalars {
            let _ = handle::destroy(s as *mut aclScalar, "array[i]");
        }
        Ok(())
    })
}

/// Memory for arrays handed to C, which callers release with `delete[]` (CANN's contract)
/// or, in C, `free`: C++'s nothrow `operator new[]` when the program has the C++ runtime
/// loaded, `malloc` otherwise.
fn alloc_for_caller(bytes: usize) -> *mut u8 {
    type NewArray = unsafe extern "C" fn(usize, *const c_void) -> *mut c_void;
    static NEW: std::sync::OnceLock<Option<(NewArray, usize)>> = std::sync::OnceLock::new();
    let new = NEW.get_or_init(|| {
        // SAFETY: dlopen with RTLD_NOLOAD only looks a loaded library up (its reference is
        // dropped again); dlsym with RTLD_DEFAULT only looks symbols up.
        unsafe {
            // Only a C++ program releases with delete[]: one whose executable links the C++
            // runtime. (A C program under ASan or valgrind also finds their operator new[]
            // replacements, and UBSan loads libstdc++: its free() must get malloc'd memory.)
            if !executable_links_cxx() {
                return None;
            }
            let f = libc::dlsym(libc::RTLD_DEFAULT, c"_ZnamRKSt9nothrow_t".as_ptr());
            let tag = libc::dlsym(libc::RTLD_DEFAULT, c"_ZSt7nothrow".as_ptr());
            (!f.is_null() && !tag.is_null()).then(|| {
                (
                    std::mem::transmute::<*mut c_void, NewArray>(f),
                    tag as usize,
                )
            })
        }
    });
    match new {
        // SAFETY: operator new[](size_t, const std::nothrow_t&) returns NULL on failure, never throws.
        Some((f, tag)) => unsafe { f(bytes, *tag as *const c_void) as *mut u8 },
        // SAFETY: plain malloc.
        None => unsafe { libc::malloc(bytes) as *mut u8 },
    }
}

/// Whether the running executable names the C++ runtime among the libraries it needs (its
/// dynamic string table, near the start of the file, holds "libstdc++.so" / "libc++.so").
fn executable_links_cxx() -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read =
        std::fs::File::open("/proc/self/exe").and_then(|f| f.take(16 << 20).read_to_end(&mut head));
    read.is_ok()
        && [&b"libstdc++.so"[..], &b"libc++.so"[..]]
            .iter()
            .any(|n| head.windows(n.len()).any(|w| w == *n))
}

/// Hands an int64 array to C (see `alloc_for_caller`).
unsafe fn give_i64_array(
    values: &[i64],
    out: *mut *mut i64,
    out_name: &'static str,
    n: *mut u64,
    n_name: &'static str,
) -> Result<()> {
    arg::non_null(out, out_name)?;
    arg::non_null(n, n_name)?;
    let p = alloc_for_caller((values.len() * 8).max(8)) as *mut i64;
    if p.is_null() {
        return Err(Error::InnerNull("out of memory"));
    }
    // SAFETY: p holds at least values.len() elements; the out-params were checked non-NULL.
    unsafe {
        std::ptr::copy_nonoverlapping(values.as_ptr(), p, values.len());
        arg::write(out, out_name, p)?;
        arg::write(n, n_name, values.len() as u64)
    }
}

unsafe fn tensor<'a>(t: *const aclTensor) -> Result<&'a TensorDesc> {
    unsafe { super::reported::refresh(t) };
    Ok(unsafe { &handle::borrow(t, "tensor")?.desc })
}

/// The view shape. `*viewDims` is allocated by the library; release it with `delete[]`
/// (C++, as CANN documents) or `free` (C).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetViewShape(
    tensor: *const aclTensor,
    viewDims: *mut *mut i64,
    viewDimsNum: *mut u64,
) -> aclnnStatus {
    guard::status("aclGetViewShape", || unsafe {
        let d: Vec<i64> = self::tensor(tensor)?
            .shape
            .iter()
            .map(|&x| x as i64)
            .collect();
        give_i64_array(&d, viewDims, "viewDims", viewDimsNum, "viewDimsNum")
    })
}

/// The storage shape. Release `*storageDims` with `delete[]` or `free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetStorageShape(
    tensor: *const aclTensor,
    storageDims: *mut *mut i64,
    storageDimsNum: *mut u64,
) -> aclnnStatus {
    guard::status("aclGetStorageShape", || unsafe {
        let d: Vec<i64> = self::tensor(tensor)?
            .storage_shape
            .iter()
            .map(|&x| x as i64)
            .collect();
        give_i64_array(
            &d,
            storageDims,
            "storageDims",
            storageDimsNum,
            "storageDimsNum",
        )
    })
}

/// The view strides (elements). Release `*stridesValue` with `delete[]` or `free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetViewStrides(
    tensor: *const aclTensor,
    stridesValue: *mut *mut i64,
    stridesNum: *mut u64,
) -> aclnnStatus {
    guard::status("aclGetViewStrides", || unsafe {
        let d: Vec<i64> = self::tensor(tensor)?
            .strides
            .iter()
            .map(|&x| x as i64)
            .collect();
        give_i64_array(&d, stridesValue, "stridesValue", stridesNum, "stridesNum")
    })
}

/// The view offset (elements).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetViewOffset(
    tensor: *const aclTensor,
    offset: *mut i64,
) -> aclnnStatus {
    guard::status("aclGetViewOffset", || unsafe {
        arg::non_null(offset, "offset")?;
        let v = self::tensor(tensor)?.offset as i64;
        arg::write(offset, "offset", v)
    })
}

/// The tensor's format.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetFormat(
    tensor: *const aclTensor,
    format: *mut aclFormatRaw,
) -> aclnnStatus {
    guard::status("aclGetFormat", || unsafe {
        arg::non_null(format, "format")?;
        let v = self::tensor(tensor)?.format.raw();
        arg::write(format, "format", v)
    })
}

/// The tensor's dtype.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetDataType(
    tensor: *const aclTensor,
    dataType: *mut aclDataTypeRaw,
) -> aclnnStatus {
    guard::status("aclGetDataType", || unsafe {
        arg::non_null(dataType, "dataType")?;
        let v = self::tensor(tensor)?.dtype as i32;
        arg::write(dataType, "dataType", v)
    })
}

/// Writes the element count of the array or list `p` to `size`.
unsafe fn element_count<T: Handle>(
    api: &str,
    p: *const T,
    name: &'static str,
    size: *mut u64,
    len: impl FnOnce(&T) -> usize,
) -> aclnnStatus {
    guard::status(api, || unsafe {
        arg::non_null(size, "size")?;
        let n = len(handle::borrow(p, name)?) as u64;
        arg::write(size, "size", n)
    })
}

/// Number of elements of the int array.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetIntArraySize(
    array: *const aclIntArray,
    size: *mut u64,
) -> aclnnStatus {
    unsafe {
        element_count("aclGetIntArraySize", array, "array", size, |h| {
            h.values.len()
        })
    }
}

/// Number of elements of the float array.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetFloatArraySize(
    array: *const aclFloatArray,
    size: *mut u64,
) -> aclnnStatus {
    unsafe {
        element_count("aclGetFloatArraySize", array, "array", size, |h| {
            h.values.len()
        })
    }
}

/// Number of elements of the bool array.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetBoolArraySize(
    array: *const aclBoolArray,
    size: *mut u64,
) -> aclnnStatus {
    unsafe {
        element_count("aclGetBoolArraySize", array, "array", size, |h| {
            h.values.len()
        })
    }
}

/// Number of elements of the tensor list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetTensorListSize(
    tensorList: *const aclTensorList,
    size: *mut u64,
) -> aclnnStatus {
    unsafe {
        element_count(
            "aclGetTensorListSize",
            tensorList,
            "tensorList",
            size,
            |h| h.tensors.len(),
        )
    }
}

/// Number of elements of the scalar list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetScalarListSize(
    scalarList: *const aclScalarList,
    size: *mut u64,
) -> aclnnStatus {
    unsafe {
        element_count(
            "aclGetScalarListSize",
            scalarList,
            "scalarList",
            size,
            |h| h.scalars.len(),
        )
    }
}

/// Re-initialises an existing tensor with the same meaning as aclCreateTensor's arguments.
/// On error the tensor is unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclInitTensor(
    tensor: *mut aclTensor,
    viewDims: *const i64,
    viewDimsNum: u64,
    dataType: aclDataTypeRaw,
    stride: *const i64,
    offset: i64,
    format: aclFormatRaw,
    storageDims: *const i64,
    storageDimsNum: u64,
    tensorDataAddr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclInitTensor", || unsafe {
        let t = handle::borrow_mut(tensor, "tensor")?;
        t.desc = desc_from_args(
            viewDims,
            viewDimsNum,
            dataType,
            stride,
            offset,
            format,
            storageDims,
            storageDimsNum,
            tensorDataAddr,
        )?;
        Ok(())
    })
}

/// Sets the tensor's storage address (not between phase 1 and phase 2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetRawTensorAddr(
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetRawTensorAddr", || unsafe {
        handle::borrow_mut(tensor, "tensor")?.desc.addr = addr as usize;
        Ok(())
    })
}

/// The tensor's storage address.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetRawTensorAddr(
    tensor: *const aclTensor,
    addr: *mut *mut c_void,
) -> aclnnStatus {
    guard::status("aclGetRawTensorAddr", || unsafe {
        arg::non_null(addr, "addr")?;
        let a = self::tensor(tensor)?.addr;
        arg::write(addr, "addr", a as *mut c_void)
    })
}

/// Executor functions report a NULL executor as ACLNN_ERR_INNER_NULLPTR and an unknown
/// one as ACLNN_ERR_INNER, as CANN does.
unsafe fn executor_mut<'a>(e: *mut aclOpExecutor) -> Result<&'a mut Executor> {
    match unsafe { handle::borrow_mut(e, "executor") } {
        Ok(x) => Ok(&mut x.exec),
        Err(Error::NullPtr(n)) => Err(Error::InnerNull(n)),
        Err(e) => Err(Error::Internal(format!(
            "{e}: one-shot executors are freed by their phase-2 call; repeatable ones by aclDestroyAclOpExecutor"
        ))),
    }
}

/// Makes an executor reusable: phase 2 may then run it any number of times, and the
/// caller destroys it with aclDestroyAclOpExecutor. Call it right after phase 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetAclOpExecutorRepeatable(
    executor: *mut aclOpExecutor,
) -> aclnnStatus {
    guard::status("aclSetAclOpExecutorRepeatable", || unsafe {
        executor_mut(executor)?.repeatable = true;
        Ok(())
    })
}

/// Destroys an executor (a repeatable one, or a one-shot one that will not be run).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclDestroyAclOpExecutor(executor: *mut aclOpExecutor) -> aclnnStatus {
    guard::status("aclDestroyAclOpExecutor", || unsafe {
        executor_mut(executor)?;
        handle::destroy(executor, "executor")
    })
}

/// Which of an executor's tensors an address update names.
#[derive(Clone, Copy)]
enum Side {
    Input,
    Output,
    Any,
}

unsafe fn set_addr(
    side: Side,
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> Result<()> {
    let exec = unsafe { executor_mut(executor)? };
    if tensor.is_null() {
        return Err(Error::InnerNull("tensor"));
    }
    let t = unsafe { handle::borrow_mut(tensor, "tensor")? };
    let n_in = exec.bindings.n_inputs;
    let outs = &exec.bindings.outputs;
    let binding = match side {
        Side::Input => (index < n_in).then_some(index),
        Side::Output => outs.get(index).copied(),
        Side::Any if index < n_in => Some(index),
        Side::Any => outs.get(index - n_in).copied(),
    };
    let count = match side {
        Side::Input => n_in,
        Side::Output => outs.len(),
        Side::Any => n_in + outs.len(),
    };
    let binding = binding.ok_or_else(|| {
        Error::Invalid(format!(
            "index {index} is out of range: the executor has {count} such tensors"
        ))
    })?;
    exec.set_addr(binding, addr as usize)?;
    t.desc.addr = addr as usize;
    Ok(())
}

unsafe fn set_dynamic_addr(
    side: Side,
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> Result<()> {
    let exec = unsafe { executor_mut(executor)? };
    if tensors.is_null() {
        return Err(Error::InnerNull("tensors"));
    }
    let list = unsafe { handle::borrow(tensors, "tensors")? };
    let param = exec
        .lists
        .iter()
        .find(|l| match side {
            Side::Input => !l.output && l.ir_index == irIndex,
            Side::Output => l.output && l.ir_index == irIndex,
            Side::Any => l.any_index == irIndex,
        })
        .copied()
        .ok_or_else(|| {
            Error::Invalid(format!(
                "irIndex {irIndex} is not a tensor-list parameter of this operator ({} has {} such parameters)",
                exec.api,
                exec.lists.len()
            ))
        })?;
    crate::ensure!(
        relativeIndex < param.len && relativeIndex < list.tensors.len(),
        "relativeIndex {relativeIndex} is out of range: the list has {} tensors",
        param.len.min(list.tensors.len())
    );
    let member = list.tensors[relativeIndex] as *mut aclTensor;
    let t = unsafe { handle::borrow_mut(member, "tensors")? };
    exec.set_addr(param.first + relativeIndex, addr as usize)?;
    t.desc.addr = addr as usize;
    Ok(())
}

/// Re-points tensor `index` (counted over the executor's inputs) of a repeatable executor,
/// and the aclTensor itself, to `addr`. NULL executor or tensor: 561103; index out of range: 161002.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetInputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetInputTensorAddr", || unsafe {
        set_addr(Side::Input, executor, index, tensor, addr)
    })
}

/// Re-points tensor `index` (counted over the executor's outputs) of a repeatable executor,
/// and the aclTensor itself, to `addr`. NULL executor or tensor: 561103; index out of range: 161002.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetOutputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetOutputTensorAddr", || unsafe {
        set_addr(Side::Output, executor, index, tensor, addr)
    })
}

/// Re-points tensor `index` (counted over the executor's inputs then outputs) of a repeatable executor,
/// and the aclTensor itself, to `addr`. NULL executor or tensor: 561103; index out of range: 161002.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetTensorAddr", || unsafe {
        set_addr(Side::Any, executor, index, tensor, addr)
    })
}

/// Reserved alias of `aclSetInputTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetInputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetInputTensorAddr", || unsafe {
        set_addr(Side::Input, executor, index, tensor, addr)
    })
}

/// Reserved alias of `aclSetOutputTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetOutputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetOutputTensorAddr", || unsafe {
        set_addr(Side::Output, executor, index, tensor, addr)
    })
}

/// Reserved alias of `aclSetTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetTensorAddr", || unsafe {
        set_addr(Side::Any, executor, index, tensor, addr)
    })
}

/// Re-points member `relativeIndex` of the tensor-list parameter `irIndex` of a repeatable
/// executor (and that member itself). irIndex not a list parameter, relativeIndex past
/// the list: 161002; NULL executor or list: 561103.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetDynamicInputTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetDynamicInputTensorAddr", || unsafe {
        set_dynamic_addr(Side::Input, executor, irIndex, relativeIndex, tensors, addr)
    })
}

/// Re-points member `relativeIndex` of the tensor-list parameter `irIndex` of a repeatable
/// executor (and that member itself). irIndex not a list parameter, relativeIndex past
/// the list: 161002; NULL executor or list: 561103.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetDynamicOutputTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetDynamicOutputTensorAddr", || unsafe {
        set_dynamic_addr(
            Side::Output,
            executor,
            irIndex,
            relativeIndex,
            tensors,
            addr,
        )
    })
}

/// Re-points member `relativeIndex` of the tensor-list parameter `irIndex` of a repeatable
/// executor (and that member itself). irIndex not a list parameter, relativeIndex past
/// the list: 161002; NULL executor or list: 561103.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclSetDynamicTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("aclSetDynamicTensorAddr", || unsafe {
        set_dynamic_addr(Side::Any, executor, irIndex, relativeIndex, tensors, addr)
    })
}

/// Reserved alias of `aclSetDynamicInputTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetDynamicInputTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetDynamicInputTensorAddr", || unsafe {
        set_dynamic_addr(Side::Input, executor, irIndex, relativeIndex, tensors, addr)
    })
}

/// Reserved alias of `aclSetDynamicOutputTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetDynamicOutputTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetDynamicOutputTensorAddr", || unsafe {
        set_dynamic_addr(
            Side::Output,
            executor,
            irIndex,
            relativeIndex,
            tensors,
            addr,
        )
    })
}

/// Reserved alias of `aclSetDynamicTensorAddr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn AclSetDynamicTensorAddr(
    executor: *mut aclOpExecutor,
    irIndex: usize,
    relativeIndex: usize,
    tensors: *mut aclTensorList,
    addr: *mut c_void,
) -> aclnnStatus {
    guard::status("AclSetDynamicTensorAddr", || unsafe {
        set_dynamic_addr(Side::Any, executor, irIndex, relativeIndex, tensors, addr)
    })
}

/// Checks the status constants this module's doc promises.
const _: () = assert!(status::ACLNN_ERR_INNER_NULLPTR == 561103);
