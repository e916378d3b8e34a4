/* Executors: one-shot semantics, repeatable executors, address updates, lifetimes. */
#include "common.h"

#include <pthread.h>

#define N 6

static void fill(float *v, float base)
{
    for (int i = 0; i < N; i++) v[i] = base + (float)i;
}

static void check_sum(const DevTensor *out, const float *a, const float *b, float alpha)
{
    float got[N];
    dev_read(out, got);
    for (int i = 0; i < N; i++) {
        if (!near_f32(got[i], a[i] + alpha * b[i]))
            fprintf(stderr, "[%d] got %g want %g\n", i, got[i], a[i] + alpha * b[i]);
        CHECK(near_f32(got[i], a[i] + alpha * b[i]));
    }
}

/* GetWorkspaceSize; Add; Add: the second call fails cleanly and does not run again. */
static void test_run_twice_is_an_error(void)
{
    int64_t s[] = {2, 3};
    float a[N], b[N];
    fill(a, 1);
    fill(b, 10);
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b, 1.0f);

    /* change the inputs: a second run would be visible in out */
    float a2[N];
    fill(a2, 100);
    dev_write(&ta, a2);
    CHECK_STATUS(aclnnAdd(wsp, ws, ex, g_stream), ACLNN_ERR_PARAM_INVALID);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclnnAdd");
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b, 1.0f);
    /* a third time, and the other operators' phase 2 with the stale executor */
    CHECK_STATUS(aclnnAdd(wsp, ws, ex, g_stream), ACLNN_ERR_PARAM_INVALID);
    CHECK_FAILS(aclnnAdds(wsp, ws, ex, g_stream));
    /* the stale executor cannot be made repeatable or destroyed either */
    CHECK_FAILS(aclSetAclOpExecutorRepeatable(ex));
    CHECK_FAILS(aclDestroyAclOpExecutor(ex));
    CHECK_FAILS(aclSetInputTensorAddr(ex, 0, ta.tensor, ta.dev));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b, 1.0f);

    if (wsp) CHECK_OK(aclrtFree(wsp));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/* A repeatable executor runs many times, reads the current data and follows address updates. */
static void test_repeatable(void)
{
    int64_t s[] = {2, 3};
    float a[N], b[N];
    fill(a, 1);
    fill(b, 10);
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 2);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(2.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));

    /* run 1 */
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b, 2.0f);

    /* run 2: new data in the same buffers */
    fill(a, -50);
    dev_write(&ta, a);
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b, 2.0f);

    /* run 3: new buffers for both inputs and the output */
    float a3[N], b3[N];
    fill(a3, 1000);
    fill(b3, 0.5f);
    DevTensor na = dev_tensor(a3, ACL_FLOAT, s, 2);
    DevTensor nb = dev_tensor(b3, ACL_FLOAT, s, 2);
    DevTensor no = dev_tensor(NULL, ACL_FLOAT, s, 2);
    CHECK_OK(aclSetInputTensorAddr(ex, 0, ta.tensor, na.dev));
    CHECK_OK(aclSetInputTensorAddr(ex, 1, tb.tensor, nb.dev));
    CHECK_OK(aclSetOutputTensorAddr(ex, 0, to.tensor, no.dev));
    /* the tensors themselves now point at the new storage */
    void *addr = NULL;
    CHECK_OK(aclGetRawTensorAddr(ta.tensor, &addr));
    CHECK(addr == na.dev);
    CHECK_OK(aclGetRawTensorAddr(to.tensor, &addr));
    CHECK(addr == no.dev);
    float before[N];
    dev_read(&to, before); /* the old output buffer */
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&no, a3, b3, 2.0f);
    float after[N];
    dev_read(&to, after);
    CHECK(memcmp(before, after, sizeof(before)) == 0); /* the old output buffer is not written */

    /* run 4: aclSetTensorAddr counts inputs then outputs: 2 = out */
    CHECK_OK(aclSetTensorAddr(ex, 2, to.tensor, to.dev));
    CHECK_OK(aclSetTensorAddr(ex, 0, ta.tensor, ta.dev));
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b3, 2.0f); /* other still reads the buffer set in run 3 */

    /* bad indices and NULLs */
    CHECK_STATUS(aclSetInputTensorAddr(ex, 2, ta.tensor, ta.dev), ACLNN_ERR_PARAM_INVALID);
    CHECK(strlen(errmsg()) > 0);
    CHECK_STATUS(aclSetOutputTensorAddr(ex, 1, to.tensor, to.dev), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclSetTensorAddr(ex, 3, to.tensor, to.dev), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclSetInputTensorAddr(NULL, 0, ta.tensor, ta.dev), ACLNN_ERR_INNER_NULLPTR);
    CHECK_STATUS(aclSetInputTensorAddr(ex, 0, NULL, ta.dev), ACLNN_ERR_INNER_NULLPTR);
    CHECK_STATUS(aclSetOutputTensorAddr(NULL, 0, to.tensor, to.dev), ACLNN_ERR_INNER_NULLPTR);

    /* still usable after the refused updates */
    CHECK_OK(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    check_sum(&to, a, b3, 2.0f);

    CHECK_OK(aclDestroyAclOpExecutor(ex));
    /* destroyed: phase 2 and a second destroy fail without crashing */
    CHECK_FAILS(aclnnAdd(wsp, ws, ex, g_stream));
    CHECK_FAILS(aclDestroyAclOpExecutor(ex));

    if (wsp) CHECK_OK(aclrtFree(wsp));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&na);
    dev_free(&nb);
    dev_free(&no);
}

/* A repeatable in-place executor accumulates. */
static void test_repeatable_inplace(void)
{
    int64_t s[] = {N};
    float a[N], b[N];
    fill(a, 0);
    fill(b, 1);
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    for (int r = 0; r < 3; r++) run_phase2(aclnnInplaceAdd, ws, ex);
    float got[N];
    dev_read(&ta, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == a[i] + 3.0f * b[i]);
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
}

static void test_null_executor_calls(void)
{
    CHECK_STATUS(aclSetAclOpExecutorRepeatable(NULL), ACLNN_ERR_INNER_NULLPTR);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclSetAclOpExecutorRepeatable");
    CHECK_STATUS(aclDestroyAclOpExecutor(NULL), ACLNN_ERR_INNER_NULLPTR);
    CHECK_ERRMSG("aclDestroyAclOpExecutor");
}

/* The executor keeps its own copy of the tensor/scalar descriptions. */
static void test_destroy_inputs_after_phase1(void)
{
    int64_t s[] = {2, 3}, s3[] = {3};
    float a[N], b[3] = {5, 6, 7};
    fill(a, 1);
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 2);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s3, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclScalar *alpha = scalar_f32(3.0f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws, &ex));
    CHECK_OK(aclDestroyTensor(ta.tensor));
    CHECK_OK(aclDestroyTensor(tb.tensor));
    CHECK_OK(aclDestroyTensor(to.tensor));
    CHECK_OK(aclDestroyScalar(alpha));
    ta.tensor = tb.tensor = to.tensor = NULL;
    /* reuse the freed memory for other objects */
    aclTensor *junk[8];
    for (int i = 0; i < 8; i++) {
        int64_t js[] = {7, 7, 7};
        junk[i] = aclCreateTensor(js, 3, ACL_INT8, NULL, 0, ACL_FORMAT_ND, js, 3, NULL);
        CHECK(junk[i] != NULL);
    }
    aclScalar *junk_s = scalar_f64(-99.0);
    run_phase2(aclnnAdd, ws, ex);
    float got[N];
    dev_read(&to, got);
    for (int i = 0; i < N; i++) CHECK(near_f32(got[i], a[i] + 3.0f * b[i % 3]));
    for (int i = 0; i < 8; i++) CHECK_OK(aclDestroyTensor(junk[i]));
    CHECK_OK(aclDestroyScalar(junk_s));

    /* Adds with its scalars destroyed before phase 2 */
    DevTensor tx = dev_tensor(a, ACL_FLOAT, s, 2);
    aclScalar *other = scalar_f32(0.5f);
    alpha = scalar_f32(4.0f);
    to.tensor = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, to.dev);
    CHECK(to.tensor != NULL);
    CHECK_OK(aclnnAddsGetWorkspaceSize(tx.tensor, other, alpha, to.tensor, &ws, &ex));
    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));
    CHECK_OK(aclDestroyTensor(tx.tensor));
    tx.tensor = NULL;
    run_phase2(aclnnAdds, ws, ex);
    dev_read(&to, got);
    for (int i = 0; i < N; i++) CHECK(got[i] == a[i] + 2.0f);

    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
    dev_free(&tx);
}

/* Several one-shot executors alive at once, run in reverse order of creation. */
static void test_many_executors(void)
{
    int64_t s[] = {N};
    float a[N], b[N];
    fill(a, 1);
    fill(b, 2);
    DevTensor ta = dev_tensor(a, ACL_FLOAT, s, 1);
    DevTensor tb = dev_tensor(b, ACL_FLOAT, s, 1);
    DevTensor to = dev_tensor(NULL, ACL_FLOAT, s, 1);
    aclScalar *alpha = scalar_f32(1.0f);
    aclOpExecutor *ex[5];
    uint64_t ws[5];
    for (int k = 0; k < 5; k++) CHECK_OK(aclnnAddGetWorkspaceSize(ta.tensor, tb.tensor, alpha, to.tensor, &ws[k], &ex[k]));
    for (int k = 0; k < 5; k++)
        for (int j = k + 1; j < 5; j++) CHECK(ex[k] != ex[j]);
    for (int k = 4; k >= 0; k--) run_phase2(aclnnAdd, ws[k], ex[k]);
    check_sum(&to, a, b, 1.0f);
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&ta);
    dev_free(&tb);
    dev_free(&to);
}

/* Worker for test_threads: its own stream, tensors and executors; returns non-NULL on error. */
static void *thread_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    aclrtStream stream = NULL;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return (void *)"aclrtCreateStream";
    int64_t s[] = {64, 33};
    enum { M = 64 * 33 };
    static _Thread_local float a[M], b[M], o[M];
    const char *err = NULL;
    for (int round = 0; round < 40 && err == NULL; round++) {
        for (int i = 0; i < M; i++) {
            a[i] = (float)(i + id);
            b[i] = (float)round;
        }
        void *da = NULL, *db = NULL, *dout = NULL;
        if (aclrtMalloc(&da, sizeof(a), ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&db, sizeof(b), ACL_MEM_MALLOC_HUGE_FIRST) ||
            aclrtMalloc(&dout, sizeof(o), ACL_MEM_MALLOC_HUGE_FIRST))
            return (void *)"aclrtMalloc";
        aclrtMemcpy(da, sizeof(a), a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(db, sizeof(b), b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE);
        aclTensor *ta = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, da);
        aclTensor *tb = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, db);
        aclTensor *to = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, dout);
        float alpha_v = 2.0f;
        aclScalar *alpha = aclCreateScalar(&alpha_v, ACL_FLOAT);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        if (!ta || !tb || !to || !alpha) {
            err = "create";
        } else if (aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex) != ACLNN_SUCCESS || ws != 0) {
            err = "aclnnAddGetWorkspaceSize";
        } else if (aclnnAdd(NULL, 0, ex, stream) != ACLNN_SUCCESS) {
            err = "aclnnAdd";
        } else if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
            err = "aclrtSynchronizeStream";
        } else {
            aclrtMemcpy(o, sizeof(o), dout, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST);
            for (int i = 0; i < M; i++)
                if (o[i] != a[i] + 2.0f * b[i]) {
                    err = "wrong result";
                    break;
                }
        }
        /* a failing call on this thread: its message must be this thread's */
        aclnnAddGetWorkspaceSize(NULL, tb, alpha, to, &ws, &ex);
        const char *m = aclGetRecentErrMsg();
        if (err == NULL && (m == NULL || strstr(m, "self") == NULL)) err = "error message";
        aclDestroyTensor(ta);
        aclDestroyTensor(tb);
        aclDestroyTensor(to);
        aclDestroyScalar(alpha);
        aclrtFree(da);
        aclrtFree(db);
        aclrtFree(dout);
    }
    aclrtDestroyStream(stream);
    return (void *)err;
}

/* Several threads create objects, run operators and fail calls at the same time. */
static void test_threads(void)
{
    enum { T = 4 };
    pthread_t th[T];
    for (int i = 0; i < T; i++) CHECK(pthread_create(&th[i], NULL, thread_worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < T; i++) {
        void *r = NULL;
        CHECK(pthread_join(th[i], &r) == 0);
        if (r != NULL) fprintf(stderr, "thread %d: %s\n", i, (const char *)r);
        CHECK(r == NULL);
    }
}

int main(void)
{
    device_init();
    RUN_TEST(test_run_twice_is_an_error);
    RUN_TEST(test_repeatable);
    RUN_TEST(test_repeatable_inplace);
    RUN_TEST(test_null_executor_calls);
    RUN_TEST(test_destroy_inputs_after_phase1);
    RUN_TEST(test_many_executors);
    RUN_TEST(test_threads);
    device_teardown();
    return capi_finish();
}
