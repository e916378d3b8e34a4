//! `aclnn/opdev/op_errno.h`: the aclnnStatus codes operators return.

/// Success.
pub const ACLNN_SUCCESS: i32 = 0;
/// A required pointer argument is NULL.
pub const ACLNN_ERR_PARAM_NULLPTR: i32 = 161001;
/// Any other invalid argument: dtype, format, shape, broadcast, attribute, misuse.
pub const ACLNN_ERR_PARAM_INVALID: i32 = 161002;
/// A runtime call failed.
pub const ACLNN_ERR_RUNTIME_ERROR: i32 = 361001;
/// Internal error (a bug in this library).
pub const ACLNN_ERR_INNER: i32 = 561000;
pub const ACLNN_ERR_INNER_INFERSHAPE_ERROR: i32 = 561001;
pub const ACLNN_ERR_INNER_TILING_ERROR: i32 = 561002;
pub const ACLNN_ERR_INNER_FIND_KERNEL_ERROR: i32 = 561003;
pub const ACLNN_ERR_INNER_CREATE_EXECUTOR: i32 = 561101;
pub const ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR: i32 = 561102;
/// An executor argument of an executor function is NULL.
pub const ACLNN_ERR_INNER_NULLPTR: i32 = 561103;
pub const ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE: i32 = 561104;
pub const ACLNN_ERR_INNER_KEY_CONFILICT: i32 = 561105;
pub const ACLNN_ERR_INNER_KEY_CONFLICT: i32 = 561105;
pub const ACLNN_ERR_INNER_INVALID_IMPL_MODE: i32 = 561106;
pub const ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND: i32 = 561107;
pub const ACLNN_ERR_INNER_LOAD_JSON_FAILED: i32 = 561108;
pub const ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND: i32 = 561109;
pub const ACLNN_ERR_INNER_JSON_FORMAT_INVALID: i32 = 561110;
pub const ACLNN_ERR_INNER_JSON_DTYPE_INVALID: i32 = 561111;
pub const ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND: i32 = 561112;
pub const ACLNN_ERR_INNER_OP_FILE_INVALID: i32 = 561113;
pub const ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND: i32 = 561114;
pub const ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH: i32 = 561115;
pub const ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE: i32 = 561116;
pub const ACLNN_ERR_INNER_INPUT_JSON_IS_NULL: i32 = 561117;
pub const ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID: i32 = 561118;
pub const ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID: i32 = 561119;

#[cfg(test)]
mod tests {
    use crate::error::status;

    #[test]
    fn header_constants_match_the_codes_the_library_returns() {
        assert_eq!(
            super::ACLNN_ERR_PARAM_NULLPTR,
            status::ACLNN_ERR_PARAM_NULLPTR
        );
        assert_eq!(
            super::ACLNN_ERR_PARAM_INVALID,
            status::ACLNN_ERR_PARAM_INVALID
        );
        assert_eq!(
            super::ACLNN_ERR_INNER_NULLPTR,
            status::ACLNN_ERR_INNER_NULLPTR
        );
        assert_eq!(super::ACLNN_ERR_INNER, status::ACLNN_ERR_INNER);
        assert_eq!(
            super::ACLNN_ERR_RUNTIME_ERROR,
            status::ACLNN_ERR_RUNTIME_ERROR
        );
    }
}
