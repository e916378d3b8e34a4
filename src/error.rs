//! The library's one error type. Its `Display` text is what `aclGetRecentErrMsg` returns
//! (prefixed with the API name by the FFI guard), so every variant names the parameter,
//! the rule that was broken and the values involved.

use thiserror::Error;

/// aclnn status codes (`aclnn/opdev/op_errno.h`).
pub mod status {
    pub const ACLNN_SUCCESS: i32 = 0;
    pub const ACLNN_ERR_PARAM_NULLPTR: i32 = 161001;
    pub const ACLNN_ERR_PARAM_INVALID: i32 = 161002;
    pub const ACLNN_ERR_RUNTIME_ERROR: i32 = 361001;
    pub const ACLNN_ERR_INNER: i32 = 561000;
    pub const ACLNN_ERR_INNER_NULLPTR: i32 = 561103;
}

/// Runtime (`aclError`) codes the runtime functions return.
pub mod acl {
    pub const ACL_SUCCESS: i32 = 0;
    pub const ACL_ERROR_INVALID_PARAM: i32 = 100000;
    pub const ACL_ERROR_UNINITIALIZE: i32 = 100001;
    pub const ACL_ERROR_REPEAT_INITIALIZE: i32 = 100002;
    pub const ACL_ERROR_REPEAT_FINALIZE: i32 = 100037;
    pub const ACL_ERROR_BAD_ALLOC: i32 = 200000;
    pub const ACL_ERROR_INVALID_DEVICE: i32 = 200002;
    pub const ACL_ERROR_INTERNAL_ERROR: i32 = 500000;
    pub const ACL_ERROR_RT_PARAM_INVALID: i32 = 107000;
    pub const ACL_ERROR_RT_INVALID_DEVICEID: i32 = 107001;
    pub const ACL_ERROR_RT_CONTEXT_NULL: i32 = 107002;
    pub const ACL_ERROR_RT_INVALID_HANDLE: i32 = 107017;
    pub const ACL_ERROR_RT_MEMORY_ALLOCATION: i32 = 207001;
    pub const ACL_ERROR_RT_INTERNAL_ERROR: i32 = 507000;
    /// What synchronize returns on the device when a kernel traps on the data it finds
    /// (an index out of range).
    pub const ACL_ERROR_RT_AICORE_EXCEPTION: i32 = 507015;
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A pointer argument that must not be NULL was NULL.
    #[error("argument '{0}' is NULL")]
    NullPtr(&'static str),
    /// A handle argument is not a live object of the expected kind (destroyed, or never created here).
    #[error("argument '{name}' is not a live {kind} (already destroyed, or not created by this library)")]
    BadHandle {
        name: &'static str,
        kind: &'static str,
    },
    /// A NULL where the operator needs something that is not one parameter ("both bounds
    /// are NULL"): ACLNN_ERR_PARAM_NULLPTR with the message.
    #[error("{0}")]
    Null(String),
    /// Any other invalid parameter: the message says which and why.
    #[error("{0}")]
    Invalid(String),
    /// An executor handle that must not be NULL (aclSetAclOpExecutorRepeatable & co. report 561103).
    #[error("argument '{0}' is NULL")]
    InnerNull(&'static str),
    /// A runtime (aclrt*) failure with its aclError code.
    #[error("{msg}")]
    Runtime { code: i32, msg: String },
    /// Something that should not happen: a bug in this library.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The aclnnStatus for this error.
    pub fn status(&self) -> i32 {
        match self {
            Error::NullPtr(_) | Error::Null(_) => status::ACLNN_ERR_PARAM_NULLPTR,
            Error::BadHandle { .. } | Error::Invalid(_) => status::ACLNN_ERR_PARAM_INVALID,
            Error::InnerNull(_) => status::ACLNN_ERR_INNER_NULLPTR,
            Error::Runtime { .. } => status::ACLNN_ERR_RUNTIME_ERROR,
            Error::Internal(_) => status::ACLNN_ERR_INNER,
        }
    }

    /// The aclError for this error, for the runtime (aclrt*) entry points.
    pub fn acl_error(&self) -> i32 {
        match self {
            Error::Runtime { code, .. } => *code,
            Error::Internal(_) => acl::ACL_ERROR_INTERNAL_ERROR,
            Error::BadHandle { .. } => acl::ACL_ERROR_RT_INVALID_HANDLE,
            _ => acl::ACL_ERROR_INVALID_PARAM,
        }
    }

    pub fn runtime(code: i32, msg: impl Into<String>) -> Self {
        Error::Runtime {
            code,
            msg: msg.into(),
        }
    }
}

/// `bail!("fmt", args..)` returns `Err(Error::Invalid(format!(..)))`.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::error::Error::Invalid(format!($($arg)*))) };
}

/// `ensure!(cond, "fmt", args..)` bails with an invalid-parameter error when `cond` is false.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => { if !$cond { $crate::bail!($($arg)*); } };
}
