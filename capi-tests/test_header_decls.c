/*
 * Every function of the CANN aclnn/ACL API subset that aclnn programs use (reference
 * sections 3.1 and 4) is declared by the public headers with CANN's exact signature, and
 * exported by the library: each one is assigned to a function pointer of the exact type
 * (an incompatible or missing declaration is a compile error under -Werror; a missing
 * export is a link error).
 */
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#include <stdio.h>

/* The compound literal converts `name` implicitly: a signature mismatch is a diagnostic. */
#define DECL(name, type) \
    { #name, (void (*)(void))(type){name} }

typedef struct {
    const char *name;
    void (*fn)(void);
} Entry;

/* acl_meta.h / aclnn_base.h */
typedef aclTensor *(*CreateTensorFn)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t, aclFormat,
                                     const int64_t *, uint64_t, void *);
typedef aclScalar *(*CreateScalarFn)(void *, aclDataType);
typedef aclIntArray *(*CreateIntArrayFn)(const int64_t *, uint64_t);
typedef aclFloatArray *(*CreateFloatArrayFn)(const float *, uint64_t);
typedef aclBoolArray *(*CreateBoolArrayFn)(const bool *, uint64_t);
typedef aclTensorList *(*CreateTensorListFn)(const aclTensor *const *, uint64_t);
typedef aclScalarList *(*CreateScalarListFn)(const aclScalar *const *, uint64_t);
typedef aclnnStatus (*DestroyTensorFn)(const aclTensor *);
typedef aclnnStatus (*DestroyScalarFn)(const aclScalar *);
typedef aclnnStatus (*DestroyIntArrayFn)(const aclIntArray *);
typedef aclnnStatus (*DestroyFloatArrayFn)(const aclFloatArray *);
typedef aclnnStatus (*DestroyBoolArrayFn)(const aclBoolArray *);
typedef aclnnStatus (*DestroyTensorListFn)(const aclTensorList *);
typedef aclnnStatus (*DestroyScalarListFn)(const aclScalarList *);
typedef aclnnStatus (*GetDimsFn)(const aclTensor *, int64_t **, uint64_t *);
typedef aclnnStatus (*GetOffsetFn)(const aclTensor *, int64_t *);
typedef aclnnStatus (*GetFormatFn)(const aclTensor *, aclFormat *);
typedef aclnnStatus (*GetDataTypeFn)(const aclTensor *, aclDataType *);
typedef aclnnStatus (*GetIntArraySizeFn)(const aclIntArray *, uint64_t *);
typedef aclnnStatus (*GetFloatArraySizeFn)(const aclFloatArray *, uint64_t *);
typedef aclnnStatus (*GetBoolArraySizeFn)(const aclBoolArray *, uint64_t *);
typedef aclnnStatus (*GetTensorListSizeFn)(const aclTensorList *, uint64_t *);
typedef aclnnStatus (*GetScalarListSizeFn)(const aclScalarList *, uint64_t *);
typedef aclnnStatus (*InitTensorFn)(aclTensor *, const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t,
                                    aclFormat, const int64_t *, uint64_t, void *);
typedef aclnnStatus (*ExecutorFn)(aclOpExecutor *);
typedef aclnnStatus (*SetTensorAddrFn)(aclOpExecutor *, const size_t, aclTensor *, void *);
typedef aclnnStatus (*SetDynamicTensorAddrFn)(aclOpExecutor *, size_t, const size_t, aclTensorList *, void *);
typedef aclnnStatus (*SetRawTensorAddrFn)(aclTensor *, void *);
typedef aclnnStatus (*GetRawTensorAddrFn)(const aclTensor *, void **);
typedef aclnnStatus (*AclnnInitFn)(const char *);
typedef aclnnStatus (*AclnnFinalizeFn)(void);

/* runtime */
typedef aclError (*InitFn)(const char *);
typedef aclError (*VoidFn)(void);
typedef const char *(*StrFn)(void);
typedef aclError (*GetVersionFn)(int32_t *, int32_t *, int32_t *);
typedef aclError (*DeviceFn)(int32_t);
typedef aclError (*GetDeviceFn)(int32_t *);
typedef aclError (*GetDeviceCountFn)(uint32_t *);
typedef aclError (*GetRunModeFn)(aclrtRunMode *);
typedef aclError (*CreateContextFn)(aclrtContext *, int32_t);
typedef aclError (*ContextFn)(aclrtContext);
typedef aclError (*GetContextFn)(aclrtContext *);
typedef aclError (*CreateStreamFn)(aclrtStream *);
typedef aclError (*CreateStreamWithConfigFn)(aclrtStream *, uint32_t, uint32_t);
typedef aclError (*StreamFn)(aclrtStream);
typedef aclError (*StreamTimeoutFn)(aclrtStream, int32_t);
typedef aclError (*StreamFailureModeFn)(aclrtStream, uint64_t);
typedef aclError (*MallocFn)(void **, size_t, aclrtMemMallocPolicy);
typedef aclError (*MallocHostFn)(void **, size_t);
typedef aclError (*FreeFn)(void *);
typedef aclError (*MemcpyFn)(void *, size_t, const void *, size_t, aclrtMemcpyKind);
typedef aclError (*MemcpyAsyncFn)(void *, size_t, const void *, size_t, aclrtMemcpyKind, aclrtStream);
typedef aclError (*MemsetFn)(void *, size_t, int32_t, size_t);
typedef aclError (*MemsetAsyncFn)(void *, size_t, int32_t, size_t, aclrtStream);
typedef aclError (*GetMemInfoFn)(aclrtMemAttr, size_t *, size_t *);
typedef aclError (*CreateEventFn)(aclrtEvent *);
typedef aclError (*CreateEventWithFlagFn)(aclrtEvent *, uint32_t);
typedef aclError (*EventFn)(aclrtEvent);
typedef aclError (*EventStreamFn)(aclrtEvent, aclrtStream);
typedef aclError (*StreamWaitEventFn)(aclrtStream, aclrtEvent);
typedef aclError (*ElapsedFn)(float *, aclrtEvent, aclrtEvent);
typedef aclError (*QueryEventStatusFn)(aclrtEvent, aclrtEventRecordedStatus *);
typedef aclError (*QueryEventFn)(aclrtEvent, aclrtEventStatus *);
typedef float (*F16ToF32Fn)(aclFloat16);
typedef aclFloat16 (*F32ToF16Fn)(float);
typedef size_t (*DataTypeSizeFn)(aclDataType);

/* aclnn_add.h */
typedef aclnnStatus (*AddWsFn)(const aclTensor *, const aclTensor *, const aclScalar *, aclTensor *, uint64_t *,
                               aclOpExecutor **);
typedef aclnnStatus (*AddsWsFn)(const aclTensor *, const aclScalar *, const aclScalar *, aclTensor *, uint64_t *,
                                aclOpExecutor **);
typedef aclnnStatus (*InplaceAddWsFn)(const aclTensor *, const aclTensor *, const aclScalar *, uint64_t *,
                                      aclOpExecutor **);
typedef aclnnStatus (*InplaceAddsWsFn)(const aclTensor *, const aclScalar *, const aclScalar *, uint64_t *,
                                       aclOpExecutor **);
typedef aclnnStatus (*Phase2Fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

int main(void)
{
    const Entry entries[] = {
    DECL(aclCreateTensor, CreateTensorFn),
    DECL(aclCreateScalar, CreateScalarFn),
    DECL(aclCreateIntArray, CreateIntArrayFn),
    DECL(aclCreateFloatArray, CreateFloatArrayFn),
    DECL(aclCreateBoolArray, CreateBoolArrayFn),
    DECL(aclCreateTensorList, CreateTensorListFn),
    DECL(aclCreateScalarList, CreateScalarListFn),
    DECL(aclDestroyTensor, DestroyTensorFn),
    DECL(aclDestroyScalar, DestroyScalarFn),
    DECL(aclDestroyIntArray, DestroyIntArrayFn),
    DECL(aclDestroyFloatArray, DestroyFloatArrayFn),
    DECL(aclDestroyBoolArray, DestroyBoolArrayFn),
    DECL(aclDestroyTensorList, DestroyTensorListFn),
    DECL(aclDestroyScalarList, DestroyScalarListFn),
    DECL(aclGetViewShape, GetDimsFn),
    DECL(aclGetStorageShape, GetDimsFn),
    DECL(aclGetViewStrides, GetDimsFn),
    DECL(aclGetViewOffset, GetOffsetFn),
    DECL(aclGetFormat, GetFormatFn),
    DECL(aclGetDataType, GetDataTypeFn),
    DECL(aclGetIntArraySize, GetIntArraySizeFn),
    DECL(aclGetFloatArraySize, GetFloatArraySizeFn),
    DECL(aclGetBoolArraySize, GetBoolArraySizeFn),
    DECL(aclGetTensorListSize, GetTensorListSizeFn),
    DECL(aclGetScalarListSize, GetScalarListSizeFn),
    DECL(aclInitTensor, InitTensorFn),
    DECL(aclSetAclOpExecutorRepeatable, ExecutorFn),
    DECL(aclDestroyAclOpExecutor, ExecutorFn),
    DECL(AclSetInputTensorAddr, SetTensorAddrFn),
    DECL(AclSetOutputTensorAddr, SetTensorAddrFn),
    DECL(AclSetDynamicInputTensorAddr, SetDynamicTensorAddrFn),
    DECL(AclSetDynamicOutputTensorAddr, SetDynamicTensorAddrFn),
    DECL(AclSetTensorAddr, SetTensorAddrFn),
    DECL(AclSetDynamicTensorAddr, SetDynamicTensorAddrFn),
    DECL(aclSetInputTensorAddr, SetTensorAddrFn),
    DECL(aclSetOutputTensorAddr, SetTensorAddrFn),
    DECL(aclSetDynamicInputTensorAddr, SetDynamicTensorAddrFn),
    DECL(aclSetDynamicOutputTensorAddr, SetDynamicTensorAddrFn),
    DECL(aclSetTensorAddr, SetTensorAddrFn),
    DECL(aclSetDynamicTensorAddr, SetDynamicTensorAddrFn),
    DECL(aclSetRawTensorAddr, SetRawTensorAddrFn),
    DECL(aclGetRawTensorAddr, GetRawTensorAddrFn),
    DECL(aclnnInit, AclnnInitFn),
    DECL(aclnnFinalize, AclnnFinalizeFn),

    DECL(aclInit, InitFn),
    DECL(aclFinalize, VoidFn),
    DECL(aclGetRecentErrMsg, StrFn),
    DECL(aclrtGetVersion, GetVersionFn),
    DECL(aclrtSetDevice, DeviceFn),
    DECL(aclrtResetDevice, DeviceFn),
    DECL(aclrtGetDevice, GetDeviceFn),
    DECL(aclrtGetDeviceCount, GetDeviceCountFn),
    DECL(aclrtSynchronizeDevice, VoidFn),
    DECL(aclrtGetRunMode, GetRunModeFn),
    DECL(aclrtCreateContext, CreateContextFn),
    DECL(aclrtDestroyContext, ContextFn),
    DECL(aclrtSetCurrentContext, ContextFn),
    DECL(aclrtGetCurrentContext, GetContextFn),
    DECL(aclrtCreateStream, CreateStreamFn),
    DECL(aclrtCreateStreamWithConfig, CreateStreamWithConfigFn),
    DECL(aclrtDestroyStream, StreamFn),
    DECL(aclrtSynchronizeStream, StreamFn),
    DECL(aclrtSynchronizeStreamWithTimeout, StreamTimeoutFn),
    DECL(aclrtSetStreamFailureMode, StreamFailureModeFn),
    DECL(aclrtMalloc, MallocFn),
    DECL(aclrtMallocHost, MallocHostFn),
    DECL(aclrtFree, FreeFn),
    DECL(aclrtFreeHost, FreeFn),
    DECL(aclrtMemcpy, MemcpyFn),
    DECL(aclrtMemcpyAsync, MemcpyAsyncFn),
    DECL(aclrtMemset, MemsetFn),
    DECL(aclrtMemsetAsync, MemsetAsyncFn),
    DECL(aclrtGetMemInfo, GetMemInfoFn),
    DECL(aclrtCreateEvent, CreateEventFn),
    DECL(aclrtCreateEventWithFlag, CreateEventWithFlagFn),
    DECL(aclrtDestroyEvent, EventFn),
    DECL(aclrtRecordEvent, EventStreamFn),
    DECL(aclrtResetEvent, EventStreamFn),
    DECL(aclrtSynchronizeEvent, EventFn),
    DECL(aclrtStreamWaitEvent, StreamWaitEventFn),
    DECL(aclrtEventElapsedTime, ElapsedFn),
    DECL(aclrtQueryEventStatus, QueryEventStatusFn),
    DECL(aclrtQueryEvent, QueryEventFn),
    DECL(aclFloat16ToFloat, F16ToF32Fn),
    DECL(aclFloatToFloat16, F32ToF16Fn),
    DECL(aclDataTypeSize, DataTypeSizeFn),
    DECL(aclrtGetSocName, StrFn),

    DECL(aclnnAddGetWorkspaceSize, AddWsFn),
    DECL(aclnnAdd, Phase2Fn),
    DECL(aclnnAddsGetWorkspaceSize, AddsWsFn),
    DECL(aclnnAdds, Phase2Fn),
    DECL(aclnnInplaceAddGetWorkspaceSize, InplaceAddWsFn),
    DECL(aclnnInplaceAdd, Phase2Fn),
    DECL(aclnnInplaceAddsGetWorkspaceSize, InplaceAddsWsFn),
    DECL(aclnnInplaceAdds, Phase2Fn),
    };
    size_t n = sizeof(entries) / sizeof(entries[0]);
    for (size_t i = 0; i < n; i++) {
        if (entries[i].fn == NULL) {
            fprintf(stderr, "%s: NULL\n", entries[i].name);
            return 1;
        }
    }
    printf("%zu functions declared and exported\n1 passed, 0 failed\n", n);
    return 0;
}
