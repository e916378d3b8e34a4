//! `acl/acl_base.h`: the runtime's base types, the aclDataType / aclFormat enums with
//! their exact values, the aclError codes, and small helpers.
//!
//! The enums exist for the C header only. Functions never take them as Rust enums (a C
//! caller can pass any integer, and an out-of-range Rust enum is undefined behaviour):
//! they take the `*Raw` integer aliases, which the header spells as the enum type.

use crate::dtype::DType;
use std::ffi::{c_int, c_void};

/// A stream: an in-order queue of asynchronous work. NULL means the default stream.
pub type aclrtStream = *mut c_void;
/// An event: a marker recorded on a stream.
pub type aclrtEvent = *mut c_void;
/// A context (this CPU device has one implicit context).
pub type aclrtContext = *mut c_void;
/// Status of runtime (acl, aclrt) functions: 0 is ACL_SUCCESS.
pub type aclError = c_int;
/// The bits of an IEEE half-precision value.
pub type aclFloat16 = u16;

/// An aclDataType value as it arrives from C (validated before use).
pub type aclDataTypeRaw = i32;
/// An aclFormat value as it arrives from C (validated before use).
pub type aclFormatRaw = i32;

/// Element types.
#[repr(C)]
#[allow(dead_code)]
pub enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
}

/// Tensor layouts. Element-wise operators accept every public one (ND, NCHW, NHWC, HWCN,
/// NDHWC, NCDHW, NC, NCL) whose rank agrees with the tensor's.
#[repr(C)]
#[allow(dead_code)]
pub enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54,
}

/// Log levels (kept for source compatibility).
#[repr(C)]
#[allow(dead_code)]
pub enum aclLogLevel {
    ACL_DEBUG = 0,
    ACL_INFO = 1,
    ACL_WARNING = 2,
    ACL_ERROR = 3,
}

/// Memory kinds (kept for source compatibility).
#[repr(C)]
#[allow(dead_code)]
pub enum aclMemType {
    ACL_MEMTYPE_DEVICE = 0,
    ACL_MEMTYPE_HOST = 1,
    ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2,
}

pub const ACL_ERROR_NONE: aclError = 0;
pub const ACL_SUCCESS: aclError = 0;
pub const ACL_ERROR_INVALID_PARAM: aclError = 100000;
pub const ACL_ERROR_UNINITIALIZE: aclError = 100001;
pub const ACL_ERROR_REPEAT_INITIALIZE: aclError = 100002;
pub const ACL_ERROR_INVALID_FILE: aclError = 100003;
pub const ACL_ERROR_WRITE_FILE: aclError = 100004;
pub const ACL_ERROR_INVALID_FILE_SIZE: aclError = 100005;
pub const ACL_ERROR_PARSE_FILE: aclError = 100006;
pub const ACL_ERROR_FILE_MISSING_ATTR: aclError = 100007;
pub const ACL_ERROR_FILE_ATTR_INVALID: aclError = 100008;
pub const ACL_ERROR_INVALID_DUMP_CONFIG: aclError = 100009;
pub const ACL_ERROR_INVALID_PROFILING_CONFIG: aclError = 100010;
pub const ACL_ERROR_INVALID_MODEL_ID: aclError = 100011;
pub const ACL_ERROR_DESERIALIZE_MODEL: aclError = 100012;
pub const ACL_ERROR_PARSE_MODEL: aclError = 100013;
pub const ACL_ERROR_READ_MODEL_FAILURE: aclError = 100014;
pub const ACL_ERROR_MODEL_SIZE_INVALID: aclError = 100015;
pub const ACL_ERROR_MODEL_MISSING_ATTR: aclError = 100016;
pub const ACL_ERROR_MODEL_INPUT_NOT_MATCH: aclError = 100017;
pub const ACL_ERROR_MODEL_OUTPUT_NOT_MATCH: aclError = 100018;
pub const ACL_ERROR_MODEL_NOT_DYNAMIC: aclError = 100019;
pub const ACL_ERROR_OP_TYPE_NOT_MATCH: aclError = 100020;
pub const ACL_ERROR_OP_INPUT_NOT_MATCH: aclError = 100021;
pub const ACL_ERROR_OP_OUTPUT_NOT_MATCH: aclError = 100022;
pub const ACL_ERROR_OP_ATTR_NOT_MATCH: aclError = 100023;
pub const ACL_ERROR_OP_NOT_FOUND: aclError = 100024;
pub const ACL_ERROR_OP_LOAD_FAILED: aclError = 100025;
pub const ACL_ERROR_UNSUPPORTED_DATA_TYPE: aclError = 100026;
pub const ACL_ERROR_FORMAT_NOT_MATCH: aclError = 100027;
pub const ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED: aclError = 100028;
pub const ACL_ERROR_KERNEL_NOT_FOUND: aclError = 100029;
pub const ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED: aclError = 100030;
pub const ACL_ERROR_KERNEL_ALREADY_REGISTERED: aclError = 100031;
pub const ACL_ERROR_INVALID_QUEUE_ID: aclError = 100032;
pub const ACL_ERROR_REPEAT_SUBSCRIBE: aclError = 100033;
pub const ACL_ERROR_STREAM_NOT_SUBSCRIBE: aclError = 100034;
pub const ACL_ERROR_THREAD_NOT_SUBSCRIBE: aclError = 100035;
pub const ACL_ERROR_WAIT_CALLBACK_TIMEOUT: aclError = 100036;
pub const ACL_ERROR_REPEAT_FINALIZE: aclError = 100037;
pub const ACL_ERROR_NOT_STATIC_AIPP: aclError = 100038;
pub const ACL_ERROR_COMPILING_STUB_MODE: aclError = 100039;
pub const ACL_ERROR_GROUP_NOT_SET: aclError = 100040;
pub const ACL_ERROR_GROUP_NOT_CREATE: aclError = 100041;
pub const ACL_ERROR_PROF_ALREADY_RUN: aclError = 100042;
pub const ACL_ERROR_PROF_NOT_RUN: aclError = 100043;
pub const ACL_ERROR_DUMP_ALREADY_RUN: aclError = 100044;
pub const ACL_ERROR_DUMP_NOT_RUN: aclError = 100045;
pub const ACL_ERROR_PROF_REPEAT_SUBSCRIBE: aclError = 148046;
pub const ACL_ERROR_PROF_API_CONFLICT: aclError = 148047;
pub const ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG: aclError = 148048;
pub const ACL_ERROR_INVALID_OPP_PATH: aclError = 148049;
pub const ACL_ERROR_OP_UNSUPPORTED_DYNAMIC: aclError = 148050;
pub const ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED: aclError = 148051;
pub const ACL_ERROR_UNSUPPORTED_JPEG: aclError = 148052;
pub const ACL_ERROR_INVALID_BUNDLE_MODEL_ID: aclError = 148053;
pub const ACL_ERROR_BAD_ALLOC: aclError = 200000;
pub const ACL_ERROR_API_NOT_SUPPORT: aclError = 200001;
pub const ACL_ERROR_INVALID_DEVICE: aclError = 200002;
pub const ACL_ERROR_MEMORY_ADDRESS_UNALIGNED: aclError = 200003;
pub const ACL_ERROR_RESOURCE_NOT_MATCH: aclError = 200004;
pub const ACL_ERROR_INVALID_RESOURCE_HANDLE: aclError = 200005;
pub const ACL_ERROR_FEATURE_UNSUPPORTED: aclError = 200006;
pub const ACL_ERROR_PROF_MODULES_UNSUPPORTED: aclError = 200007;
pub const ACL_ERROR_STORAGE_OVER_LIMIT: aclError = 300000;
pub const ACL_ERROR_INTERNAL_ERROR: aclError = 500000;
pub const ACL_ERROR_FAILURE: aclError = 500001;
pub const ACL_ERROR_GE_FAILURE: aclError = 500002;
pub const ACL_ERROR_RT_FAILURE: aclError = 500003;
pub const ACL_ERROR_DRV_FAILURE: aclError = 500004;
pub const ACL_ERROR_PROFILING_FAILURE: aclError = 500005;

pub const ACL_RT_SUCCESS: aclError = 0;
pub const ACL_ERROR_RT_PARAM_INVALID: aclError = 107000;
pub const ACL_ERROR_RT_INVALID_DEVICEID: aclError = 107001;
pub const ACL_ERROR_RT_CONTEXT_NULL: aclError = 107002;
pub const ACL_ERROR_RT_STREAM_CONTEXT: aclError = 107003;
pub const ACL_ERROR_RT_MODEL_CONTEXT: aclError = 107004;
pub const ACL_ERROR_RT_STREAM_MODEL: aclError = 107005;
pub const ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID: aclError = 107006;
pub const ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL: aclError = 107007;
pub const ACL_ERROR_RT_ADDR_UNALIGNED: aclError = 107008;
pub const ACL_ERROR_RT_FILE_OPEN: aclError = 107009;
pub const ACL_ERROR_RT_FILE_WRITE: aclError = 107010;
pub const ACL_ERROR_RT_INVALID_MEMORY_TYPE: aclError = 107016;
pub const ACL_ERROR_RT_INVALID_HANDLE: aclError = 107017;
pub const ACL_ERROR_RT_INVALID_MALLOC_TYPE: aclError = 107018;
pub const ACL_ERROR_RT_WAIT_TIMEOUT: aclError = 107019;
pub const ACL_ERROR_RT_TASK_TIMEOUT: aclError = 107020;
pub const ACL_ERROR_RT_FEATURE_NOT_SUPPORT: aclError = 207000;
pub const ACL_ERROR_RT_MEMORY_ALLOCATION: aclError = 207001;
pub const ACL_ERROR_RT_MEMORY_FREE: aclError = 207002;
pub const ACL_ERROR_RT_AICORE_OVER_FLOW: aclError = 207003;
pub const ACL_ERROR_RT_NO_DEVICE: aclError = 207004;
pub const ACL_ERROR_RT_RESOURCE_ALLOC_FAIL: aclError = 207005;
pub const ACL_ERROR_RT_NO_PERMISSION: aclError = 207006;
pub const ACL_ERROR_RT_NO_EVENT_RESOURCE: aclError = 207007;
pub const ACL_ERROR_RT_NO_STREAM_RESOURCE: aclError = 207008;
pub const ACL_ERROR_RT_OVER_LIMIT: aclError = 207012;
pub const ACL_ERROR_RT_DEVICE_OOM: aclError = 207018;
pub const ACL_ERROR_RT_INTERNAL_ERROR: aclError = 507000;
pub const ACL_ERROR_RT_TS_ERROR: aclError = 507001;
pub const ACL_ERROR_RT_STREAM_NOT_COMPLETE: aclError = 507004;
pub const ACL_ERROR_RT_EVENT_NOT_COMPLETE: aclError = 507006;
pub const ACL_ERROR_RT_CONTEXT_RELEASE_ERROR: aclError = 507007;
pub const ACL_ERROR_RT_AICORE_EXCEPTION: aclError = 507015;
pub const ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: aclError = 507046;
pub const ACL_ERROR_RT_EVENT_SYNC_TIMEOUT: aclError = 507047;

/// Size in bytes of one element of `dataType`; 0 for values that are not supported dtypes.
#[unsafe(no_mangle)]
pub extern "C" fn aclDataTypeSize(dataType: aclDataTypeRaw) -> usize {
    DType::from_raw(dataType).map(|d| d.size()).unwrap_or(0)
}

/// Converts half-precision bits to a float.
#[unsafe(no_mangle)]
pub extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    half::f16::from_bits(value).to_f32()
}

/// Converts a float to half-precision bits (round to nearest even).
#[unsafe(no_mangle)]
pub extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    half::f16::from_f32(value).to_bits()
}
