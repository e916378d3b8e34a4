//! HcclResult codes and the error type every fallible step returns.

use std::fmt;

pub const HCCL_SUCCESS: i32 = 0;
pub const HCCL_E_PARA: i32 = 1;
pub const HCCL_E_PTR: i32 = 2;
pub const HCCL_E_MEMORY: i32 = 3;
pub const HCCL_E_INTERNAL: i32 = 4;
pub const HCCL_E_NOT_SUPPORT: i32 = 5;
pub const HCCL_E_NOT_FOUND: i32 = 6;
pub const HCCL_E_UNAVAIL: i32 = 7;
pub const HCCL_E_SYSCALL: i32 = 8;
pub const HCCL_E_TIMEOUT: i32 = 9;
pub const HCCL_E_RUNTIME: i32 = 15;
/// One past the last code HCCL defines (HCCL_E_RESERVED).
pub const HCCL_E_RESERVED: i32 = 23;

/// A failure: the HcclResult to return and what went wrong (without the API's name, which
/// the entry point prefixes).
#[derive(Debug, Clone, PartialEq)]
pub struct HcclError {
    pub code: i32,
    pub msg: String,
}

pub type Result<T> = std::result::Result<T, HcclError>;

impl HcclError {
    pub fn new(code: i32, msg: impl Into<String>) -> HcclError {
        HcclError {
            code,
            msg: msg.into(),
        }
    }
    pub fn para(msg: impl Into<String>) -> HcclError {
        HcclError::new(HCCL_E_PARA, msg)
    }
    pub fn ptr(name: &str) -> HcclError {
        HcclError::new(HCCL_E_PTR, format!("{name} is NULL"))
    }
    pub fn not_support(msg: impl Into<String>) -> HcclError {
        HcclError::new(HCCL_E_NOT_SUPPORT, msg)
    }
    pub fn timeout(msg: impl Into<String>) -> HcclError {
        HcclError::new(HCCL_E_TIMEOUT, msg)
    }
}

impl fmt::Display for HcclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.msg, code_name(self.code))
    }
}

/// The enumerator's name of an HcclResult.
pub fn code_name(code: i32) -> &'static str {
    const NAMES: [&str; 23] = [
        "HCCL_SUCCESS",
        "HCCL_E_PARA",
        "HCCL_E_PTR",
        "HCCL_E_MEMORY",
        "HCCL_E_INTERNAL",
        "HCCL_E_NOT_SUPPORT",
        "HCCL_E_NOT_FOUND",
        "HCCL_E_UNAVAIL",
        "HCCL_E_SYSCALL",
        "HCCL_E_TIMEOUT",
        "HCCL_E_OPEN_FILE_FAILURE",
        "HCCL_E_TCP_CONNECT",
        "HCCL_E_ROCE_CONNECT",
        "HCCL_E_TCP_TRANSFER",
        "HCCL_E_ROCE_TRANSFER",
        "HCCL_E_RUNTIME",
        "HCCL_E_DRV",
        "HCCL_E_PROFILING",
        "HCCL_E_CCE",
        "HCCL_E_NETWORK",
        "HCCL_E_AGAIN",
        "HCCL_E_REMOTE",
        "HCCL_E_SUSPENDING",
    ];
    usize::try_from(code)
        .ok()
        .and_then(|c| NAMES.get(c))
        .copied()
        .unwrap_or("HCCL_E_RESERVED")
}

/// HcclGetErrorString's text for each code (NUL-terminated, static).
pub fn description(code: i32) -> &'static std::ffi::CStr {
    match code {
        0 => c"success",
        1 => c"parameter error",
        2 => c"empty pointer",
        3 => c"memory error",
        4 => c"internal error",
        5 => c"not supported feature",
        6 => c"specific resource not found",
        7 => c"resource unavailable",
        8 => c"call system interface error",
        9 => c"timeout",
        10 => c"open file failure",
        11 => c"tcp connect failure",
        12 => c"roce connect failure",
        13 => c"tcp transfer failure",
        14 => c"roce transfer failure",
        15 => c"call runtime api failure",
        16 => c"call driver api failure",
        17 => c"call profiling api failure",
        18 => c"call cce api failure",
        19 => c"call network api failure",
        20 => c"try again",
        21 => c"error cqe",
        22 => c"communicator suspending",
        _ => c"unknown error",
    }
}
