//! `aclnn/aclnn_base.h`: aclnn's own initialisation.

use super::meta::aclnnStatus;
use std::ffi::c_char;

/// Initialises the operator library. `configPath` may be NULL (a JSON debug configuration
/// on the device; ignored here). Calling it as well as aclInit is fine.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnInit(configPath: *const c_char) -> aclnnStatus {
    let _ = configPath;
    0
}

/// Counterpart of aclnnInit.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnFinalize() -> aclnnStatus {
    0
}
