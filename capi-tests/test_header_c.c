/*
 * Header hygiene, C side: every public header together, compiled as C11 with -Wpedantic,
 * plus compile-time checks of the types and enum values CANN programs rely on and a tiny
 * run-time check. (CMake also compiles each header alone, see CMakeLists.txt.)
 */
#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"
#include "aclnnop/aclnn_add.h"

#include <stdio.h>
#include <string.h>

/* types */
_Static_assert(_Generic((aclrtStream)0, void *: 1, default: 0), "aclrtStream is void*");
_Static_assert(_Generic((aclrtEvent)0, void *: 1, default: 0), "aclrtEvent is void*");
_Static_assert(_Generic((aclrtContext)0, void *: 1, default: 0), "aclrtContext is void*");
_Static_assert(_Generic((aclnnStatus)0, int32_t: 1, default: 0), "aclnnStatus is int32_t");
_Static_assert(_Generic((aclError)0, int: 1, default: 0), "aclError is int");
_Static_assert(_Generic((aclFloat16)0, uint16_t: 1, default: 0), "aclFloat16 is uint16_t");
_Static_assert(sizeof(aclDataType) == sizeof(int), "aclDataType is an int-sized enum");
_Static_assert(sizeof(aclFormat) == sizeof(int), "aclFormat is an int-sized enum");

/* aclDataType */
_Static_assert(ACL_DT_UNDEFINED == -1, "");
_Static_assert(ACL_FLOAT == 0 && ACL_FLOAT16 == 1 && ACL_INT8 == 2 && ACL_INT32 == 3 && ACL_UINT8 == 4, "");
_Static_assert(ACL_INT16 == 6 && ACL_UINT16 == 7 && ACL_UINT32 == 8 && ACL_INT64 == 9 && ACL_UINT64 == 10, "");
_Static_assert(ACL_DOUBLE == 11 && ACL_BOOL == 12 && ACL_STRING == 13, "");
_Static_assert(ACL_COMPLEX64 == 16 && ACL_COMPLEX128 == 17 && ACL_BF16 == 27, "");
_Static_assert(ACL_INT4 == 29 && ACL_UINT1 == 30 && ACL_COMPLEX32 == 33, "");

/* aclFormat */
_Static_assert(ACL_FORMAT_UNDEFINED == -1 && ACL_FORMAT_NCHW == 0 && ACL_FORMAT_NHWC == 1, "");
_Static_assert(ACL_FORMAT_ND == 2 && ACL_FORMAT_NC1HWC0 == 3 && ACL_FORMAT_FRACTAL_Z == 4, "");
_Static_assert(ACL_FORMAT_NC1HWC0_C04 == 12 && ACL_FORMAT_HWCN == 16 && ACL_FORMAT_NDHWC == 27, "");
_Static_assert(ACL_FORMAT_FRACTAL_NZ == 29 && ACL_FORMAT_NCDHW == 30 && ACL_FORMAT_NDC1HWC0 == 32, "");
_Static_assert(ACL_FRACTAL_Z_3D == 33 && ACL_FORMAT_NC == 35 && ACL_FORMAT_NCL == 47, "");

/* runtime enums */
_Static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 && ACL_MEMCPY_HOST_TO_DEVICE == 1, "");
_Static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2 && ACL_MEMCPY_DEVICE_TO_DEVICE == 3, "");
_Static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0 && ACL_MEM_MALLOC_NORMAL_ONLY == 2, "");
_Static_assert(ACL_DDR_MEM == 0 && ACL_HBM_MEM == 1, "");
_Static_assert(ACL_DEVICE == 0 && ACL_HOST == 1, "");
_Static_assert(ACL_EVENT_RECORDED_STATUS_NOT_READY == 0 && ACL_EVENT_RECORDED_STATUS_COMPLETE == 1, "");

/* status codes */
_Static_assert(ACL_SUCCESS == 0 && ACL_ERROR_NONE == 0, "");
_Static_assert(ACL_ERROR_INVALID_PARAM == 100000 && ACL_ERROR_UNINITIALIZE == 100001, "");
_Static_assert(ACL_ERROR_REPEAT_INITIALIZE == 100002 && ACL_ERROR_REPEAT_FINALIZE == 100037, "");
_Static_assert(ACL_ERROR_BAD_ALLOC == 200000 && ACL_ERROR_INTERNAL_ERROR == 500000, "");
_Static_assert(ACL_ERROR_FAILURE == 500001, "");
_Static_assert(ACL_ERROR_RT_PARAM_INVALID == 107000 && ACL_ERROR_RT_INVALID_HANDLE == 107017, "");
_Static_assert(ACLNN_SUCCESS == 0 && ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002, "");
_Static_assert(ACLNN_ERR_RUNTIME_ERROR == 361001 && ACLNN_ERR_INNER == 561000 && ACLNN_ERR_INNER_NULLPTR == 561103, "");

/* function signatures as CANN declares them (assignments to typed pointers) */
static void check_signatures(void)
{
    aclTensor *(*create)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t, aclFormat,
                         const int64_t *, uint64_t, void *) = aclCreateTensor;
    aclnnStatus (*phase1)(const aclTensor *, const aclTensor *, const aclScalar *, aclTensor *, uint64_t *,
                          aclOpExecutor **) = aclnnAddGetWorkspaceSize;
    aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream) = aclnnAdd;
    aclError (*memcpy_fn)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = aclrtMemcpy;
    aclError (*malloc_fn)(void **, size_t, aclrtMemMallocPolicy) = aclrtMalloc;
    const char *(*errmsg_fn)(void) = aclGetRecentErrMsg;
    (void)create;
    (void)phase1;
    (void)phase2;
    (void)memcpy_fn;
    (void)malloc_fn;
    (void)errmsg_fn;
}

int main(void)
{
    check_signatures();
    const char *m = aclGetRecentErrMsg();
    if (m == NULL || m[0] != '\0') {
        fprintf(stderr, "aclGetRecentErrMsg() on a fresh thread: expected \"\", got %s\n", m ? m : "NULL");
        return 1;
    }
    if (aclInit(NULL) != ACL_SUCCESS) return 1;
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    int64_t shape[] = {2, 3};
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, NULL);
    if (t == NULL) return 1;
    aclDataType dt = ACL_DT_UNDEFINED;
    if (aclGetDataType(t, &dt) != ACLNN_SUCCESS || dt != ACL_FLOAT) return 1;
    if (aclDestroyTensor(t) != ACLNN_SUCCESS) return 1;
    if (aclrtResetDevice(0) != ACL_SUCCESS) return 1;
    if (aclFinalize() != ACL_SUCCESS) return 1;
    printf("1 passed, 0 failed\n");
    return 0;
}
