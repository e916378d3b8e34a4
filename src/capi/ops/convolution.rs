//! `aclnnop/aclnn_convolution.h`: Convolution — 1-D/2-D/3-D convolution and transposed
//! convolution (NCL/NCHW/NCDHW), grouped and dilated, with an optional bias.

use super::{int_array, opt_tensor, phase1, phase2, tensor};
use crate::capi::base::aclrtStream;
use crate::capi::meta::{aclIntArray, aclOpExecutor, aclTensor, aclnnStatus};
use crate::ops::conv;
use std::ffi::c_void;

/// Phase 1 of the convolution; bias may be NULL; outputPadding is used when transposed; cubeMathType 0..4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclnnConvolutionGetWorkspaceSize(
    input: *const aclTensor,
    weight: *const aclTensor,
    bias: *const aclTensor,
    stride: *const aclIntArray,
    padding: *const aclIntArray,
    dilation: *const aclIntArray,
    transposed: bool,
    outputPadding: *const aclIntArray,
    groups: i64,
    output: *mut aclTensor,
    cubeMathType: i8,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    unsafe {
        phase1(
            "aclnnConvolutionGetWorkspaceSize",
            workspaceSize,
            executor,
            || {
                let input = tensor(input, "input")?;
                let weight = tensor(weight, "weight")?;
                let bias = opt_tensor(bias, "bias")?;
                let stride = int_array(stride, "stride")?;
                let padding = int_array(padding, "padding")?;
                let dilation = int_array(dilation, "dilation")?;
                let output_padding = int_array(outputPadding, "outputPadding")?;
                conv::convolution(
                    &input,
                    &weight,
                    bias,
                    &stride,
                    &padding,
                    &dilation,
                    transposed,
                    &output_padding,
                    groups,
                    tensor(output, "output")?,
                    cubeMathType as i64,
                )
            },
        )
    }
}

/// Phase 2 of Convolution: queues the planned work on `stream`.
#[unsafe(no_mangle)]
pub extern "C" fn aclnnConvolution(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    phase2(
        "aclnnConvolution",
        workspace,
        workspaceSize,
        executor,
        stream,
    )
}
