//! libhccl.so: HCCL's collective communication API (`hccl/hccl.h`) on aclnn-cpu's devices.
//!
//! - `capi`: the exported entry points; they check their arguments (HCCL's codes, a message
//!   naming the API, the parameter and the values) and queue the work on the aclrtStream.
//! - `comm`: root info, communicators (HcclCommInitRootInfo, HcclCommInitAll) and the
//!   groups of ranks they belong to; timeouts.
//! - `engine`: what a queued collective does when the stream reaches it: the ranks meet
//!   (a rendezvous per collective, in each rank's stream order), then each moves or reduces
//!   its share of the data straight between the devices' memory, which is the host's.
//! - `dtype`: HcclDataType and HcclReduceOp, and the element-wise reduction kernels.
//! - `acl`: the aclnn-cpu runtime, found at run time (dlsym): stream enqueue of a host task,
//!   device memory lookups, error messages.
//!
//! docs/hccl.md describes the behaviour and what is not implemented.

pub mod acl;
pub mod capi;
pub mod comm;
pub mod dtype;
pub mod engine;
pub mod error;
