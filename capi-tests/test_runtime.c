/*
 * Runtime (aclInit / aclrt*) functions used by aclnn programs. Bad arguments give
 * ACL_ERROR_INVALID_PARAM, destroyed streams/events ACL_ERROR_RT_INVALID_HANDLE.
 */
#include "common.h"

static void test_init_twice(void)
{
    /* main() already called aclInit */
    CHECK_STATUS(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclInit");
}

static void test_device(void)
{
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK(count >= 1);
    CHECK_OK(aclrtSetDevice(0));
    int32_t dev = -1;
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK(dev == 0);
    /* setting the same device again is fine */
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtSynchronizeDevice());
    /* out of range */
    CHECK_FAILS(aclrtSetDevice((int32_t)count + 100));
    CHECK_FAILS(aclrtSetDevice(-1));
    CHECK_STATUS(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
    aclrtRunMode mode;
    CHECK_OK(aclrtGetRunMode(&mode));
    CHECK(mode == ACL_HOST || mode == ACL_DEVICE);
    int32_t ma = -1, mi = -1, pa = -1;
    CHECK_OK(aclrtGetVersion(&ma, &mi, &pa));
    CHECK(ma >= 1 && mi >= 0 && pa >= 0);
}

static void test_streams(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK(s != NULL);
    CHECK_OK(aclrtSynchronizeStream(s));
    aclrtStream s2 = NULL;
    CHECK_OK(aclrtCreateStream(&s2));
    CHECK(s2 != NULL && s2 != s);
    CHECK_OK(aclrtDestroyStream(s2));
    CHECK_OK(aclrtDestroyStream(s));
    /* destroyed streams are stale handles */
    CHECK_STATUS(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK(strlen(errmsg()) > 0);
    CHECK_STATUS(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_STATUS(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    /* the default stream */
    CHECK_OK(aclrtSynchronizeStream(NULL));

    aclrtStream s3 = NULL;
    CHECK_OK(aclrtCreateStreamWithConfig(&s3, 0, 0));
    CHECK(s3 != NULL);
    CHECK_OK(aclrtSynchronizeStream(s3));
    CHECK_OK(aclrtDestroyStream(s3));
}

/* NULL stream = the current device's default stream, for aclnn phase 2 too. */
static void test_default_stream_add(void)
{
    int64_t s[] = {4};
    float a[] = {1, 2, 3, 4}, b[] = {4, 3, 2, 1};
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnAdd(wsp, ws, ex, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_OK(aclrtSynchronizeDevice());
    float got[4];
    dev_read(&to, got);
    for (int i = 0; i < 4; i++) CHECK(got[i] == 5.0f);
    if (wsp) CHECK_OK(aclrtFree(wsp));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

#define BIG (8u << 20) /* 8 MiB */

/* Events order work across two streams. */
static void test_events(void)
{
    aclrtStream s1 = NULL, s2 = NULL;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclrtCreateStream(&s2));
    aclrtEvent ev = NULL, start = NULL, end = NULL;
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtCreateEvent(&start));
    CHECK_OK(aclrtCreateEvent(&end));
    CHECK(ev != NULL && start != NULL && end != NULL);

    unsigned char *host = (unsigned char *)malloc(BIG);
    unsigned char *back = (unsigned char *)malloc(BIG);
    CHECK(host && back);
    for (size_t i = 0; i < BIG; i++) host[i] = (unsigned char)(i * 7 + 3);
    void *d1 = NULL, *d2 = NULL, *d3 = NULL;
    CHECK_OK(aclrtMalloc(&d1, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&d2, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&d3, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(d2, BIG, 0, BIG));
    CHECK_OK(aclrtMemset(d3, BIG, 0, BIG));

    for (int round = 0; round < 3; round++) {
        host[0] = (unsigned char)round;
        /* s1: host -> d1 -> d2, then record; s2: wait, then d2 -> d3 */
        CHECK_OK(aclrtRecordEvent(start, s1));
        CHECK_OK(aclrtMemcpyAsync(d1, BIG, host, BIG, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        CHECK_OK(aclrtMemcpyAsync(d2, BIG, d1, BIG, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
        CHECK_OK(aclrtRecordEvent(ev, s1));
        CHECK_OK(aclrtRecordEvent(end, s1));
        CHECK_OK(aclrtStreamWaitEvent(s2, ev));
        CHECK_OK(aclrtMemcpyAsync(d3, BIG, d2, BIG, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
        CHECK_OK(aclrtSynchronizeStream(s2));
        CHECK_OK(aclrtMemcpy(back, BIG, d3, BIG, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(memcmp(back, host, BIG) == 0);

        CHECK_OK(aclrtSynchronizeEvent(ev));
        aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        CHECK_OK(aclrtQueryEventStatus(ev, &st));
        CHECK(st == ACL_EVENT_RECORDED_STATUS_COMPLETE);
        CHECK_OK(aclrtSynchronizeEvent(end));
        float ms = -1.0f;
        CHECK_OK(aclrtEventElapsedTime(&ms, start, end));
        CHECK(ms >= 0.0f);
    }

    /* waiting for an event on the default stream */
    CHECK_OK(aclrtRecordEvent(ev, s1));
    CHECK_OK(aclrtStreamWaitEvent(NULL, ev));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_OK(aclrtResetEvent(ev, s1));
    CHECK_OK(aclrtSynchronizeStream(s1));

    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_STATUS(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_STATUS(aclrtDestroyEvent(ev), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_STATUS(aclrtRecordEvent(ev, s1), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_STATUS(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtDestroyEvent(start));
    CHECK_OK(aclrtDestroyEvent(end));
    CHECK_OK(aclrtFree(d1));
    CHECK_OK(aclrtFree(d2));
    CHECK_OK(aclrtFree(d3));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
    free(host);
    free(back);
}

static void test_memcpy_kinds(void)
{
    int32_t src[16], dst[16], back[16];
    for (int i = 0; i < 16; i++) src[i] = i * i - 7;
    memset(dst, 0, sizeof(dst));
    CHECK_OK(aclrtMemcpy(dst, sizeof(dst), src, sizeof(src), ACL_MEMCPY_HOST_TO_HOST));
    CHECK(memcmp(dst, src, sizeof(src)) == 0);

    void *d1 = NULL, *d2 = NULL;
    CHECK_OK(aclrtMalloc(&d1, sizeof(src), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&d2, sizeof(src), ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(d1 != NULL && d2 != NULL && d1 != d2);
    CHECK_OK(aclrtMemcpy(d1, sizeof(src), src, sizeof(src), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(d2, sizeof(src), d1, sizeof(src), ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(back, 0, sizeof(back));
    CHECK_OK(aclrtMemcpy(back, sizeof(back), d2, sizeof(src), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, src, sizeof(src)) == 0);

    /* partial copy into a larger destination */
    memset(back, 0, sizeof(back));
    CHECK_OK(aclrtMemcpy(back, sizeof(back), d2, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == src[0] && back[1] == src[1] && back[2] == 0);

    /* count > destMax: refused, destination untouched */
    memset(back, 0x5A, sizeof(back));
    CHECK_STATUS(aclrtMemcpy(back, 8, d2, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    CHECK(strlen(errmsg()) > 0);
    CHECK(((unsigned char *)back)[0] == 0x5A);
    CHECK_STATUS(aclrtMemcpy(d1, 4, src, sizeof(src), ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    /* NULL pointers */
    CHECK_STATUS(aclrtMemcpy(NULL, 16, src, 16, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtMemcpy(dst, 16, NULL, 16, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);

    /* async copy + sync */
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t src2[16];
    for (int i = 0; i < 16; i++) src2[i] = -i;
    CHECK_OK(aclrtMemcpyAsync(d1, sizeof(src2), src2, sizeof(src2), ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_OK(aclrtMemcpyAsync(d2, sizeof(src2), d1, sizeof(src2), ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtMemcpy(back, sizeof(back), d2, sizeof(src2), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, src2, sizeof(src2)) == 0);
    CHECK_STATUS(aclrtMemcpyAsync(d1, 4, src2, sizeof(src2), ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));

    CHECK_OK(aclrtFree(d1));
    CHECK_OK(aclrtFree(d2));
}

static void test_memset(void)
{
    unsigned char back[64];
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, sizeof(back), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(d, sizeof(back), 0x3C, sizeof(back)));
    CHECK_OK(aclrtMemset(d, sizeof(back), 0x1FF, 10)); /* value is taken as a byte */
    CHECK_OK(aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) CHECK(back[i] == (i < 10 ? 0xFF : 0x3C));
    CHECK_STATUS(aclrtMemset(d, 8, 0, 16), ACL_ERROR_INVALID_PARAM); /* count > maxCount */
    CHECK_STATUS(aclrtMemset(NULL, 8, 0, 8), ACL_ERROR_INVALID_PARAM);

    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMemsetAsync(d, sizeof(back), 0x77, 32, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) CHECK(back[i] == (i < 32 ? 0x77 : 0x3C));
    CHECK_STATUS(aclrtMemsetAsync(d, 8, 0, 16, s), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtFree(d));
}

static void test_host_memory(void)
{
    void *h = NULL;
    CHECK_OK(aclrtMallocHost(&h, 256));
    CHECK(h != NULL);
    memset(h, 0x42, 256); /* host memory is directly usable */
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(d, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    unsigned char back[256];
    CHECK_OK(aclrtMemcpy(back, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 256; i++) CHECK(back[i] == 0x42);
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtFreeHost(h));
    CHECK_STATUS(aclrtMallocHost(NULL, 16), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_mem_info(void)
{
    size_t free_b = 0, total = 0;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
    CHECK(total > 0);
    CHECK(free_b <= total);
    CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free_b, &total));
    CHECK(free_b <= total);
    CHECK_STATUS(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total), ACL_ERROR_INVALID_PARAM);
}

static void test_bad_frees(void)
{
    CHECK_STATUS(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    int on_stack = 0;
    CHECK_STATUS(aclrtFree(&on_stack), ACL_ERROR_INVALID_PARAM);
    CHECK(strlen(errmsg()) > 0);
    void *heap = malloc(64);
    CHECK_STATUS(aclrtFree(heap), ACL_ERROR_INVALID_PARAM);
    free(heap);
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_STATUS(aclrtFree((char *)d + 8), ACL_ERROR_INVALID_PARAM); /* not the start of an allocation */
    CHECK_OK(aclrtFree(d));
    CHECK_STATUS(aclrtFree(d), ACL_ERROR_INVALID_PARAM); /* double free */
    CHECK_STATUS(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

/* Calls after aclFinalize must not crash (their status is not specified). */
static void test_after_finalize(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    int64_t shape[] = {4};
    aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, d);
    CHECK(t != NULL);
    aclrtEvent ev = NULL;
    CHECK_OK(aclrtCreateEvent(&ev));

    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());

    aclError e1 = aclrtFree(d);
    aclError e2 = aclrtDestroyStream(s);
    aclError e3 = aclDestroyTensor(t);
    aclError e4 = aclrtDestroyEvent(ev);
    aclError e5 = aclrtSynchronizeStream(s);
    aclError e6 = aclFinalize();
    printf("    after aclFinalize: aclrtFree=%d aclrtDestroyStream=%d aclDestroyTensor=%d aclrtDestroyEvent=%d "
           "aclrtSynchronizeStream=%d aclFinalize=%d\n",
           e1, e2, e3, e4, e5, e6);
    CHECK(e6 != 0); /* a second aclFinalize is an error */
    CHECK(aclGetRecentErrMsg() != NULL);
}

int main(void)
{
    /* a thread that never failed sees "" */
    const char *m = aclGetRecentErrMsg();
    CHECK(m != NULL && m[0] == '\0');

    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    RUN_TEST(test_init_twice);
    RUN_TEST(test_device);
    RUN_TEST(test_streams);
    g_stream = NULL;
    RUN_TEST(test_default_stream_add);
    RUN_TEST(test_events);
    RUN_TEST(test_memcpy_kinds);
    RUN_TEST(test_memset);
    RUN_TEST(test_host_memory);
    RUN_TEST(test_mem_info);
    RUN_TEST(test_bad_frees);
    RUN_TEST(test_after_finalize);
    return capi_finish();
}
