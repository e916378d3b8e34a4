/*
 * GroupedMatmulV3 as MoE code calls it: one x (tokens sorted by expert), one weight
 * (E, K, N) stored transposed, the cumulative int64 groupList in device memory, one y.
 * Also: groupType -1 over separate bf16 tensors with bias, a bad groupList failing the
 * run at synchronize (nothing written), and phase-1 refusals (NULL, quantized modes,
 * groupType 1).
 */
#include "ops_common.h"

#include "aclnnop/aclnn_grouped_matmul_v3.h"

#include <string.h>

enum { M = 5, K = 3, N = 2, E = 3 };

/* x[r][i] and weight[e][i][j] of the MoE case (small integers: every product is exact). */
static float xv(int r, int i) { return (float)(r + 1) * (i == 1 ? -1.0f : 1.0f) + (float)i; }
static float wv(int e, int i, int j) { return (float)(e + 1) * (float)(i + 1) - (float)j; }

/* Runs phase 2 on the stream like a CANN user: workspace, launch, synchronize. */
static aclError launch_gmm(uint64_t ws, aclOpExecutor *ex)
{
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnGroupedMatmulV3(wsp, ws, ex, g_stream));
    aclError st = aclrtSynchronizeStream(g_stream);
    if (wsp != NULL) CHECK_OK(aclrtFree(wsp));
    return st;
}

static void test_moe_single_tensors(void)
{
    float hx[M * K], hw[E * N * K], hy[M * N];
    for (int r = 0; r < M; r++)
        for (int i = 0; i < K; i++) hx[r * K + i] = xv(r, i);
    /* The weight's storage is (E, N, K): the (E, K, N) view has strides [N*K, 1, K]. */
    for (int e = 0; e < E; e++)
        for (int i = 0; i < K; i++)
            for (int j = 0; j < N; j++) hw[(e * N + j) * K + i] = wv(e, i, j);
    for (int i = 0; i < M * N; i++) hy[i] = -7.0f;
    int64_t hg[E] = {2, 2, 4}; /* expert 1 gets no token; row 4 belongs to no expert */

    void *dx = NULL, *dw = NULL, *dy = NULL, *dg = NULL;
    CHECK_OK(aclrtMalloc(&dx, sizeof hx, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&dw, sizeof hw, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&dy, sizeof hy, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&dg, sizeof hg, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dx, sizeof hx, hx, sizeof hx, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(dw, sizeof hw, hw, sizeof hw, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(dy, sizeof hy, hy, sizeof hy, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(dg, sizeof hg, hg, sizeof hg, ACL_MEMCPY_HOST_TO_DEVICE));

    int64_t xs[] = {M, K}, xst[] = {K, 1};
    int64_t ws_[] = {E, K, N}, wst[] = {N * K, 1, K}, wstore[] = {E, N, K};
    int64_t ys[] = {M, N}, yst[] = {N, 1};
    int64_t gs[] = {E}, gst[] = {1};
    aclTensor *x = aclCreateTensor(xs, 2, ACL_FLOAT, xst, 0, ACL_FORMAT_ND, xs, 2, dx);
    aclTensor *w = aclCreateTensor(ws_, 3, ACL_FLOAT, wst, 0, ACL_FORMAT_ND, wstore, 3, dw);
    aclTensor *y = aclCreateTensor(ys, 2, ACL_FLOAT, yst, 0, ACL_FORMAT_ND, ys, 2, dy);
    aclTensor *g = aclCreateTensor(gs, 1, ACL_INT64, gst, 0, ACL_FORMAT_ND, gs, 1, dg);
    CHECK(x != NULL && w != NULL && y != NULL && g != NULL);
    aclTensorList *xl = aclCreateTensorList((const aclTensor *const *)&x, 1);
    aclTensorList *wl = aclCreateTensorList((const aclTensor *const *)&w, 1);
    aclTensorList *yl = aclCreateTensorList((const aclTensor *const *)&y, 1);
    CHECK(xl != NULL && wl != NULL && yl != NULL);

    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, g, 3, 0, yl, &ws, &ex));
    CHECK_OK(launch_gmm(ws, ex));
    float got[M * N];
    CHECK_OK(aclrtMemcpy(got, sizeof got, dy, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    int start = 0;
    for (int e = 0; e < E; e++) {
        for (int r = start; r < hg[e]; r++)
            for (int j = 0; j < N; j++) {
                double want = 0;
                for (int i = 0; i < K; i++) want += (double)xv(r, i) * wv(e, i, j);
                CHECK(got[r * N + j] == (float)want);
            }
        start = (int)hg[e];
    }
    CHECK(got[4 * N] == -7.0f && got[4 * N + 1] == -7.0f); /* the unrouted row is not written */

    /* A repeatable executor re-pointed at another y through its output list. */
    void *dy2 = NULL;
    CHECK_OK(aclrtMalloc(&dy2, sizeof hy, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dy2, sizeof hy, hy, sizeof hy, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, g, 3, 0, yl, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    CHECK_OK(aclSetDynamicOutputTensorAddr(ex, 0, 0, yl, dy2));
    CHECK_OK(launch_gmm(ws, ex));
    float got2[M * N];
    CHECK_OK(aclrtMemcpy(got2, sizeof got2, dy2, sizeof got2, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(got, got2, sizeof got) == 0);
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    CHECK_OK(aclSetRawTensorAddr(y, dy)); /* back to its own storage */
    CHECK_OK(aclrtFree(dy2));

    /* groupList is read at run time: a decreasing one fails the run and writes nothing. */
    int64_t bad[E] = {3, 1, 5};
    CHECK_OK(aclrtMemcpy(dg, sizeof bad, bad, sizeof bad, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(dy, sizeof hy, hy, sizeof hy, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, g, 3, 0, yl, &ws, &ex));
    CHECK(launch_gmm(ws, ex) != ACL_SUCCESS);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "aclnnGroupedMatmulV3") != NULL && strstr(msg, "groupListOptional[1]") != NULL);
    CHECK_OK(aclrtMemcpy(got, sizeof got, dy, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(got, hy, sizeof got) == 0);
    CHECK_OK(aclrtSynchronizeStream(g_stream)); /* reported once */

    /* Phase-1 refusals. */
    CHECK_STATUS(aclnnGroupedMatmulV3GetWorkspaceSize(NULL, wl, NULL, NULL, NULL, NULL, NULL, g, 3, 0, yl, &ws, &ex),
                 ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, g, 3, 1, yl, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("groupType 1");
    CHECK_STATUS(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, yl, NULL, NULL, NULL, g, 3, 0, yl, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("scaleOptional");
    CHECK_STATUS(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, 3, 0, yl, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("groupListOptional is NULL");

    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(wl));
    CHECK_OK(aclDestroyTensorList(yl));
    CHECK_OK(aclDestroyTensor(g));
    CHECK_OK(aclrtFree(dx));
    CHECK_OK(aclrtFree(dw));
    CHECK_OK(aclrtFree(dy));
    CHECK_OK(aclrtFree(dg));
}

/* A new contiguous tensor handle over t's storage (a tensor list owns its members). */
static aclTensor *alias(const DevTensor *t, const int64_t *shape, size_t n)
{
    int64_t st[8];
    contiguous_strides(shape, n, st);
    aclTensor *a = aclCreateTensor(shape, n, t->dtype, st, 0, ACL_FORMAT_ND, shape, n, t->dev);
    CHECK(a != NULL);
    return a;
}

static void test_separate_bf16_with_bias(void)
{
    int64_t s12[] = {1, 2}, s22[] = {2, 2}, s21[] = {2, 1}, s2[] = {2};
    /* group 0: (1, 2) @ (2, 2) + bias (f32 with a bf16 x); group 1: (2, 1) @ (1, 2) + bias. */
    DevTensor x0 = mk(ACL_BF16, s12, 2, V(1, 2)), w0 = mk(ACL_BF16, s22, 2, V(1, 2, 3, 4)),
              b0 = mk(ACL_FLOAT, s2, 1, V(0.5, -1)), y0 = mk(ACL_BF16, s12, 2, NULL);
    DevTensor x1 = mk(ACL_BF16, s21, 2, V(3, -2)), w1 = mk(ACL_BF16, s12, 2, V(4, 1)), b1 = mk(ACL_FLOAT, s2, 1, V(1, 0)),
              y1 = mk(ACL_BF16, s22, 2, NULL);
    aclTensor *xm[] = {alias(&x0, s12, 2), alias(&x1, s21, 2)}, *wm[] = {alias(&w0, s22, 2), alias(&w1, s12, 2)},
              *bm[] = {alias(&b0, s2, 1), alias(&b1, s2, 1)}, *ym[] = {alias(&y0, s12, 2), alias(&y1, s22, 2)};
    aclTensorList *xl = aclCreateTensorList((const aclTensor *const *)xm, 2),
                  *wl = aclCreateTensorList((const aclTensor *const *)wm, 2),
                  *bl = aclCreateTensorList((const aclTensor *const *)bm, 2),
                  *yl = aclCreateTensorList((const aclTensor *const *)ym, 2);
    CHECK(xl != NULL && wl != NULL && bl != NULL && yl != NULL);
    RUN2(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, bl, NULL, NULL, NULL, NULL, NULL, 0, -1, yl, &ews, &eex),
         aclnnGroupedMatmulV3);
    EXPECT_T(y0, 7.5, 9);
    EXPECT_T(y1, 13, 3, -7, -2);
    /* groupType -1 takes no groupList. */
    int64_t s1g[] = {2};
    DevTensor gl = mk(ACL_INT64, s1g, 1, V(1, 3));
    EXPECT_ERR(aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, bl, NULL, NULL, NULL, NULL, gl.tensor, 0, -1, yl, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmulV3GetWorkspaceSize", "groupListOptional", NULL);
    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(wl));
    CHECK_OK(aclDestroyTensorList(bl));
    CHECK_OK(aclDestroyTensorList(yl));
    dev_free(&x0);
    dev_free(&w0);
    dev_free(&b0);
    dev_free(&y0);
    dev_free(&x1);
    dev_free(&w1);
    dev_free(&b1);
    dev_free(&y1);
    dev_free(&gl);
}

int main(void)
{
    device_init();
    RUN_TEST(test_moe_single_tensors);
    RUN_TEST(test_separate_bf16_with_bias);
    device_teardown();
    return capi_finish();
}
