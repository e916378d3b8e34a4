/*
 * Stream capture and replay (acl/acl_mdl.h: aclmdlRICaptureBegin/End, aclmdlRIExecuteAsync,
 * aclmdlRIDestroy), as ggml's CANN back-end uses it with USE_ACL_GRAPH: capture the launches of
 * a graph once, replay it many times without phase 1.
 */
#include "common.h"

#define N 1000

static void *dev_vec(const float *host)
{
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    if (host) CHECK_OK(aclrtMemcpy(d, N * sizeof(float), host, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
    return d;
}

static aclTensor *vec(void *d)
{
    int64_t s[] = {N};
    aclTensor *t = aclCreateTensor(s, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 1, d);
    CHECK(t != NULL);
    return t;
}

static void read_back(void *d, float *host)
{
    CHECK_OK(aclrtMemcpy(host, N * sizeof(float), d, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
}

/* x += alpha * b, phase 1 and phase 2 on `s` (a one-shot executor). */
static aclnnStatus inplace_add(aclTensor *x, aclTensor *b, float alpha, aclrtStream s)
{
    aclScalar *a = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnInplaceAddGetWorkspaceSize(x, b, a, &ws, &ex);
    if (st == ACLNN_SUCCESS) st = aclnnInplaceAdd(NULL, 0, ex, s);
    aclDestroyScalar(a);
    return st;
}

static void test_capture_and_replay(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    float hx[N], hb[N], got[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hb[i] = (float)(i % 7);
    }
    void *dx = dev_vec(hx), *db = dev_vec(hb), *dy = dev_vec(NULL);
    aclTensor *x = vec(dx), *b = vec(db);

    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    CHECK_OK(aclmdlRICaptureGetInfo(s, &status, NULL));
    CHECK(status == ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STATUS(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclmdlRICaptureGetInfo(s, &status, NULL));
    CHECK(status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    /* the graph: x += 2b; y = x (a device copy); x += -1 * b */
    CHECK_OK(inplace_add(x, b, 2.0f, s));
    CHECK_OK(aclrtMemcpyAsync(dy, N * sizeof(float), dx, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(inplace_add(x, b, -1.0f, s));
    CHECK_STATUS(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM); /* not while captured */
    CHECK_ERRMSG("captured");
    /* nothing ran during the capture */
    read_back(dx, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == hx[i]);
    aclmdlRI graph = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &graph));
    CHECK(graph != NULL);
    CHECK_STATUS(aclmdlRICaptureEnd(s, &graph), ACL_ERROR_INVALID_PARAM);
    CHECK_OK(aclrtSynchronizeStream(s));

    /* three replays: x = x0 + 3b, y = x0 + 3b + b */
    for (int r = 0; r < 3; r++) CHECK_OK(aclmdlRIExecuteAsync(graph, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    read_back(dx, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == hx[i] + 3.0f * hb[i]);
    read_back(dy, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == hx[i] + 4.0f * hb[i]);
    /* a replay on another stream works the same */
    aclrtStream s2 = NULL;
    CHECK_OK(aclrtCreateStream(&s2));
    CHECK_OK(aclmdlRIExecuteAsync(graph, s2));
    CHECK_OK(aclrtSynchronizeStream(s2));
    read_back(dx, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == hx[i] + 4.0f * hb[i]);

    /* memory freed since the capture: the replay is refused and writes nothing */
    CHECK_OK(aclrtFree(dy));
    CHECK_STATUS(aclmdlRIExecuteAsync(graph, s), ACL_ERROR_INVALID_PARAM);
    CHECK_ERRMSG("aclrtMemcpyAsync");
    CHECK_OK(aclrtSynchronizeStream(s));
    read_back(dx, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == hx[i] + 4.0f * hb[i]);

    CHECK_OK(aclmdlRIDebugPrint(graph));
    CHECK_OK(aclmdlRIDestroy(graph));
    CHECK_STATUS(aclmdlRIDestroy(graph), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_STATUS(aclmdlRIExecuteAsync(graph, s), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_OK(aclDestroyTensor(x));
    CHECK_OK(aclDestroyTensor(b));
    CHECK_OK(aclrtFree(dx));
    CHECK_OK(aclrtFree(db));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(s2));
}

static void test_capture_errors(void)
{
    CHECK_STATUS(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_INVALID_PARAM);
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_STATUS(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)9), ACL_ERROR_INVALID_PARAM);
    aclmdlRI g = NULL;
    CHECK_STATUS(aclmdlRICaptureEnd(s, &g), ACL_ERROR_INVALID_PARAM);
    CHECK_STATUS(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_INVALID_PARAM);
    /* an empty capture replays as nothing */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclmdlRICaptureEnd(s, &g));
    CHECK_OK(aclmdlRIExecuteAsync(g, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclmdlRIDestroy(g));
    aclmdlRICaptureMode m = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&m));
    CHECK(m == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&m));
    CHECK(m == ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    CHECK_OK(aclrtDestroyStream(s));
}

int main(void)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    RUN_TEST(test_capture_and_replay);
    RUN_TEST(test_capture_errors);
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    return capi_finish();
}
