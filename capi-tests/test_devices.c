/*
 * Several devices, device memory capacity, peer access and virtual memory (reserve, physical
 * allocation, map, unmap), written the way ggml's CANN back-end and other clients use them.
 * Runs with ACLNN_CPU_DEVICE_COUNT=2 and ACLNN_CPU_DEVICE_MEMORY=64M (set before the first call).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "common.h"
#include "aclnnop/aclnn_index_copy.h"

#include <pthread.h>

#define MiB ((size_t)1 << 20)

static aclrtPhysicalMemProp prop_of(int32_t device)
{
    aclrtPhysicalMemProp p;
    memset(&p, 0, sizeof(p));
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.memAttr = ACL_HBM_MEM_HUGE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = (uint32_t)device;
    p.reserve = 0;
    return p;
}

static aclTensor *vec_f32(void *data, int64_t n)
{
    int64_t s[] = {n};
    aclTensor *t = aclCreateTensor(s, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 1, data);
    CHECK(t != NULL);
    return t;
}

/* out = a + b over n floats at the given device addresses; returns the phase-1 status. */
static aclnnStatus add_at(void *a, void *b, void *out, int64_t n)
{
    aclTensor *ta = vec_f32(a, n), *tb = vec_f32(b, n), *to = vec_f32(out, n);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex);
    if (st == ACLNN_SUCCESS) {
        CHECK(ws == 0);
        CHECK_OK(aclnnAdd(NULL, 0, ex, NULL));
        CHECK_OK(aclrtSynchronizeStream(NULL));
    }
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
    return st;
}

static void test_runtime_facts(void)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetDeviceCount(&n));
    CHECK(n == 2);
    CHECK(strcmp(aclrtGetSocName(), "Ascend910B3") == 0);
    void *p = NULL;
    for (size_t size = 1; size < 5000; size = size * 3 + 1) {
        CHECK_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(((uintptr_t)p % 512) == 0); /* clients assume at least 128 */
        CHECK_OK(aclrtFree(p));
    }
    /* aclGetRecentErrMsg obtains and clears: a second call returns "" */
    CHECK_STATUS(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    const char *m = aclGetRecentErrMsg();
    CHECK(m != NULL && strstr(m, "aclInit") != NULL);
    m = aclGetRecentErrMsg();
    CHECK(m != NULL && m[0] == '\0');
}

static void test_capacity(void)
{
    size_t free0 = 0, total = 0;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    CHECK(total == 64 * MiB && free0 == total);
    void *a = NULL, *b = NULL;
    CHECK_OK(aclrtMalloc(&a, 48 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
    size_t free1 = 0;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 == 16 * MiB);
    CHECK_STATUS(aclrtMalloc(&b, 32 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    CHECK_ERRMSG("out of memory");
    /* the other device has its own memory */
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtMalloc(&b, 32 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 == total);
}

static void test_peer_access(void)
{
    int32_t can = -1;
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK(can == 1);
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 1, 1));
    CHECK(can == 0);
    CHECK_STATUS(aclrtDeviceCanAccessPeer(&can, 0, 2), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK_STATUS(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_INVALID_PARAM);

    const int64_t n = 1024;
    void *on0 = NULL, *on1 = NULL, *out1 = NULL;
    CHECK_OK(aclrtMalloc(&on0, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtMalloc(&on1, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&out1, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    /* device 1 cannot copy from device 0's memory until peer access is enabled */
    CHECK_STATUS(aclrtMemcpy(on1, n * 4, on0, n * 4, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    CHECK_ERRMSG("aclrtDeviceEnablePeerAccess");
    /* nor can an operator on device 1 read device 0's memory */
    CHECK_STATUS(add_at(on0, on1, out1, n), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("device 0");
    CHECK_STATUS(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_OK(aclrtMemcpy(on1, n * 4, on0, n * 4, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_OK(add_at(on0, on1, out1, n));
    CHECK_OK(aclrtDeviceDisablePeerAccess(0));
    CHECK_STATUS(aclrtDeviceEnablePeerAccess(0, 7), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtFree(on1));
    CHECK_OK(aclrtFree(out1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtFree(on0));
}

typedef struct {
    int device;
    int ok;
} ThreadArg;

/* aclrtSetDevice is per thread: each thread works on its own device. */
static void *device_thread(void *p)
{
    ThreadArg *a = (ThreadArg *)p;
    if (aclrtSetDevice(a->device) != 0) return NULL;
    int32_t d = -1;
    aclrtStream s = NULL;
    void *x = NULL;
    a->ok = aclrtGetDevice(&d) == 0 && d == a->device && aclrtCreateStream(&s) == 0 &&
            aclrtMalloc(&x, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == 0 && aclrtMemsetAsync(x, 4096, 1, 4096, s) == 0 &&
            aclrtSynchronizeStream(s) == 0 && aclrtFree(x) == 0 && aclrtDestroyStream(s) == 0;
    return NULL;
}

static void test_thread_per_device(void)
{
    pthread_t th[2];
    ThreadArg args[2] = {{0, 0}, {1, 0}};
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, device_thread, &args[i]) == 0);
    for (int i = 0; i < 2; i++) CHECK(pthread_join(th[i], NULL) == 0);
    CHECK(args[0].ok && args[1].ok);
    int32_t d = -1;
    CHECK_OK(aclrtGetDevice(&d));
    CHECK(d == 0); /* this thread's device did not change */
}

static void test_virtual_memory(void)
{
    aclrtPhysicalMemProp prop = prop_of(0);
    size_t gran = 0;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran));
    CHECK(gran == 2 * MiB);
    CHECK_STATUS(aclrtMemGetAllocationGranularity(&prop, (aclrtMemGranularityOptions)7, &gran),
                 ACL_ERROR_INVALID_PARAM);

    void *va = NULL;
    CHECK_OK(aclrtReserveMemAddress(&va, 4 * gran, 0, NULL, 0));
    CHECK(((uintptr_t)va % gran) == 0);
    aclrtDrvMemHandle h1 = NULL, h2 = NULL;
    CHECK_OK(aclrtMallocPhysical(&h1, gran, &prop, 0));
    CHECK_OK(aclrtMallocPhysical(&h2, gran, &prop, 0));
    CHECK_STATUS(aclrtMallocPhysical(&h2, gran + 1, &prop, 0), ACL_ERROR_INVALID_PARAM);

    char *base = (char *)va;
    const int64_t n = (int64_t)(gran / 4);
    /* nothing mapped yet: an operator and a copy into the range are refused, no fault */
    CHECK_STATUS(add_at(base, base, base, 16), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("not mapped");
    float host[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i;
    CHECK_STATUS(aclrtMemcpy(base, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE),
                 ACL_ERROR_INVALID_PARAM);

    /* two chunks mapped next to each other: one tensor spans them */
    CHECK_OK(aclrtMapMem(base, gran, 0, h1, 0));
    CHECK_OK(aclrtMapMem(base + gran, gran, 0, h2, 0));
    CHECK_STATUS(aclrtMapMem(base + gran, gran, 0, h1, 0), ACL_ERROR_INVALID_PARAM); /* mapped twice */
    CHECK_ERRMSG("overlaps");
    float *mid = (float *)(base + gran) - 32; /* 32 floats in each chunk */
    CHECK_OK(aclrtMemcpy(mid, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(add_at(mid, mid, mid, 64));
    float back[64];
    CHECK_OK(aclrtMemcpy(back, sizeof(back), mid, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) CHECK(back[i] == 2.0f * (float)i);
    /* a tensor reaching into the unmapped third chunk is refused */
    CHECK_STATUS(add_at(base, base, base, 2 * n + 1), ACLNN_ERR_PARAM_INVALID);

    /* the same physical memory mapped twice aliases */
    CHECK_OK(aclrtMapMem(base + 3 * gran, gran, 0, h1, 0));
    float *alias = (float *)(base + 3 * gran) + (n - 32);
    CHECK_OK(aclrtMemcpy(back, sizeof(float) * 32, alias, sizeof(float) * 32, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 32; i++) CHECK(back[i] == 2.0f * (float)i);

    /* freeing or releasing what is still mapped is refused */
    CHECK_STATUS(aclrtFreePhysical(h1), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtReleaseMemAddress(va), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtFree(base), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtUnmapMem(base + 8), ACL_ERROR_INVALID_PARAM); /* not where a mapping starts */
    CHECK_OK(aclrtUnmapMem(base + 3 * gran));
    CHECK_STATUS(aclrtUnmapMem(base + 3 * gran), ACL_ERROR_INVALID_PARAM); /* unmapped already */

    /* teardown as ggml does it: synchronize, reset, then unmap and free */
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtUnmapMem(base));
    CHECK_OK(aclrtUnmapMem(base + gran));
    CHECK_OK(aclrtFreePhysical(h1));
    CHECK_OK(aclrtFreePhysical(h2));
    CHECK_STATUS(aclrtFreePhysical(h2), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_STATUS(aclrtReleaseMemAddress(va), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtSetDevice(0));
}

/* Data at any byte offset (ggml hands over f32 views at odd offsets inside a buffer): the
   operator runs on aligned copies and writes only its view. */
static void test_misaligned_data(void)
{
    const int64_t n = 37;
    char *d = NULL;
    CHECK_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    unsigned char host[4096];
    for (int i = 0; i < 4096; i++) host[i] = 0xA5;
    float a[37], b[37];
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    memcpy(host + 2, a, sizeof(a));
    memcpy(host + 1001, b, sizeof(b));
    CHECK_OK(aclrtMemcpy(d, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(add_at(d + 2, d + 1001, d + 2003, n));
    unsigned char back[4096];
    CHECK_OK(aclrtMemcpy(back, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    float got[37];
    memcpy(got, back + 2003, sizeof(got));
    for (int i = 0; i < n; i++) CHECK(got[i] == 1.5f * (float)i);
    CHECK(back[2002] == 0xA5 && back[2003 + sizeof(got)] == 0xA5); /* nothing outside the view */

    /* An empty view is never read, at whatever address: ggml's SET_ROWS of zero rows hands
       InplaceIndexCopy an empty source at an odd byte offset, with a negative storage length
       ((0 - 1) * stride + 1), which CANN's aclCreateTensor accepts. */
    int64_t self_dims[] = {5, 33}, src_dims[] = {0, 33}, src_strides[] = {16, 0}, idx_dims[] = {0};
    int64_t neg_storage[] = {-15};
    aclTensor *self = aclCreateTensor(self_dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, self_dims, 2, d + 2048);
    aclTensor *src = aclCreateTensor(src_dims, 2, ACL_FLOAT, src_strides, 0, ACL_FORMAT_ND, neg_storage, 1, d + 3);
    aclTensor *idx = aclCreateTensor(idx_dims, 1, ACL_INT64, NULL, 0, ACL_FORMAT_ND, idx_dims, 1, d + 3072);
    CHECK(self != NULL && src != NULL && idx != NULL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceIndexCopyGetWorkspaceSize(self, 0, idx, src, &ws, &ex));
    CHECK_OK(aclnnInplaceIndexCopy(NULL, 0, ex, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    unsigned char after[4096];
    CHECK_OK(aclrtMemcpy(after, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(after, back, 4096) == 0); /* nothing written */
    aclDestroyTensor(self);
    aclDestroyTensor(src);
    aclDestroyTensor(idx);
    CHECK_OK(aclrtFree(d));
}

int main(void)
{
    setenv("ACLNN_CPU_DEVICE_COUNT", "2", 1);
    setenv("ACLNN_CPU_DEVICE_MEMORY", "64M", 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    RUN_TEST(test_runtime_facts);
    RUN_TEST(test_capacity);
    RUN_TEST(test_peer_access);
    RUN_TEST(test_thread_per_device);
    RUN_TEST(test_misaligned_data);
    RUN_TEST(test_virtual_memory);
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclFinalize());
    return capi_finish();
}
