/* aclnn-cpu: HCCL's public types (CANN's hccl/hccl_types.h), for libhccl.so.
 * Written by hand from the values of CANN's header; compiles as C11 and C++11/17
 * (CANN's own header is C++ only: it sizes arrays with const variables). */
#ifndef ACLNN_CPU_HCCL_TYPES_H_
#define ACLNN_CPU_HCCL_TYPES_H_
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** HCCL functions return value definition */
typedef enum {
    HCCL_SUCCESS = 0,              /**< success */
    HCCL_E_PARA = 1,               /**< parameter error */
    HCCL_E_PTR = 2,                /**< empty pointer */
    HCCL_E_MEMORY = 3,             /**< memory error */
    HCCL_E_INTERNAL = 4,           /**< internal error */
    HCCL_E_NOT_SUPPORT = 5,        /**< not supported feature */
    HCCL_E_NOT_FOUND = 6,          /**< specific resource not found */
    HCCL_E_UNAVAIL = 7,            /**< resource unavailable */
    HCCL_E_SYSCALL = 8,            /**< system call failed */
    HCCL_E_TIMEOUT = 9,            /**< timeout */
    HCCL_E_OPEN_FILE_FAILURE = 10, /**< cannot open file */
    HCCL_E_TCP_CONNECT = 11,       /**< tcp connect failed */
    HCCL_E_ROCE_CONNECT = 12,      /**< roce connect failed */
    HCCL_E_TCP_TRANSFER = 13,      /**< tcp transfer failed */
    HCCL_E_ROCE_TRANSFER = 14,     /**< roce transfer failed */
    HCCL_E_RUNTIME = 15,           /**< runtime api failed */
    HCCL_E_DRV = 16,               /**< driver api failed */
    HCCL_E_PROFILING = 17,         /**< profiling api failed */
    HCCL_E_CCE = 18,               /**< cce api failed */
    HCCL_E_NETWORK = 19,           /**< network api failed */
    HCCL_E_AGAIN = 20,             /**< try again */
    HCCL_E_REMOTE = 21,            /**< error cqe */
    HCCL_E_SUSPENDING = 22,        /**< communicator suspending */
    HCCL_E_RESERVED                /**< reserved */
} HcclResult;

/** handle to an HCCL communicator */
typedef void *HcclComm;

/** HCCL reduction operation */
typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

/** HCCL data type */
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

typedef enum {
    HCCL_DETERMINISTIC = 0, /**< 0: non-deterministic, 1: deterministic */
    HCCL_CONFIG_RESERVED
} HcclConfig;

union HcclConfigValue {
    int32_t value;
};
typedef union HcclConfigValue HcclConfigValue;

#ifdef __cplusplus
const uint32_t HCCL_ROOT_INFO_BYTES = 4108; /* root info length */
const uint32_t COMM_NAME_MAX_LENGTH = 128;  /* group name max length */
const uint32_t UDI_MAX_LENGTH = 128;        /* UDI max length */
const uint32_t HCCL_COMM_CONFIG_INFO_BYTES = 24;
const uint32_t HCCL_COMM_CONFIG_MAGIC_WORD = 0xf0f0f0f0;
const uint32_t HCCL_COMM_CONFIG_VERSION = 5;
const uint32_t HCCL_COMM_DEFAULT_BUFFSIZE = 200;
const uint32_t HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_DEFAULT_DETERMINISTIC = 0;
const uint32_t HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_DEFAULT_OP_EXPANSION_MODE = 0;
const uint32_t HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET = 0xffffffff;
#else
/* C has no constant variables: the same values as macros. */
#define HCCL_ROOT_INFO_BYTES 4108u
#define COMM_NAME_MAX_LENGTH 128u
#define UDI_MAX_LENGTH 128u
#define HCCL_COMM_CONFIG_INFO_BYTES 24u
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u
#define HCCL_COMM_CONFIG_VERSION 5u
#define HCCL_COMM_DEFAULT_BUFFSIZE 200u
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_DETERMINISTIC 0u
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0u
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu
#endif

/** HCCL root info: what HcclGetRootInfo makes and every rank passes to HcclCommInitRootInfo */
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

typedef struct HcclCommConfigDef {
    char reserved[HCCL_COMM_CONFIG_INFO_BYTES];
    uint32_t hcclBufferSize;
    uint32_t hcclDeterministic;
    char hcclCommName[COMM_NAME_MAX_LENGTH];
    char hcclUdi[UDI_MAX_LENGTH];
    uint32_t hcclOpExpansionMode; /* 0: default, 1: host, 2: aicpu, 3: aiv */
    uint32_t hcclRdmaTrafficClass;
    uint32_t hcclRdmaServiceLevel;
} HcclCommConfig;

typedef enum {
    HCCL_COMM_CONFIG_BUFFER_SIZE = 0,
    HCCL_COMM_CONFIG_DETERMINISTIC = 1,
    HCCL_COMM_CONFIG_COMM_NAME = 2,
    HCCL_COMM_CONFIG_OP_EXPANSION_MODE = 3,
    HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV = 4,
    HCCL_COMM_CONFIG_RESERVED
} HcclCommConfigCapability;

typedef enum {
    HCCL_SEND = 0,
    HCCL_RECV = 1,
    HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

typedef struct HcclSendRecvItemDef {
    HcclSendRecvType sendRecvType;
    void *buf;
    uint64_t count;
    HcclDataType dataType;
    uint32_t remoteRank;
} HcclSendRecvItem;

#ifdef __cplusplus
}
#endif
#endif /* HCCL_TYPES_H_ */
#endif /* ACLNN_CPU_HCCL_TYPES_H_ */
