/*
 * The other GroupedMatmul versions as MoE code calls them: aclnnGroupedMatmul (V1) and
 * V2 with the groupList a host aclIntArray (V2 also with separated y), V4 with
 * groupListType 1 (group sizes in device memory), V5 with a tuning hint, and WeightNz
 * with FRACTAL_NZ f16 weights packed as the device lays them out. Small integers: every
 * product is exact. Then each version's refusals.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_grouped_matmul.h"
#include "aclnnop/aclnn_grouped_matmul_v2.h"
#include "aclnnop/aclnn_grouped_matmul_v4.h"
#include "aclnnop/aclnn_grouped_matmul_v5.h"
#include "aclnnop/aclnn_grouped_matmul_weight_nz.h"

#include <string.h>

/* A new handle over t's storage with `shape` (contiguous) and `format`. */
static aclTensor *alias_f(const DevTensor *t, const int64_t *shape, size_t n, aclFormat format)
{
    int64_t st[8];
    contiguous_strides(shape, n, st);
    aclTensor *a = aclCreateTensor(shape, n, t->dtype, st, 0, format, shape, n, t->dev);
    CHECK(a != NULL);
    return a;
}

static aclTensorList *list1(aclTensor *t) { return aclCreateTensorList((const aclTensor *const *)&t, 1); }
static aclTensorList *list2(aclTensor *a, aclTensor *b)
{
    aclTensor *m[] = {a, b};
    return aclCreateTensorList((const aclTensor *const *)m, 2);
}

/* x (4, 2) = rows (1,2), (3,4), (5,6), (7,8); w0 = [[1,0],[0,1]], w1 = [[1,1],[2,-1]]. */
static const double XV[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const double W0[] = {1, 0, 0, 1}, W1[] = {1, 1, 2, -1};

static void test_v1_v2_host_group_list(void)
{
    int64_t s42[] = {4, 2}, s22[] = {2, 2}, s12[] = {1, 2}, s32[] = {3, 2};
    DevTensor x = mk(ACL_FLOAT16, s42, 2, XV), w0 = mk(ACL_FLOAT16, s22, 2, W0), w1 = mk(ACL_FLOAT16, s22, 2, W1),
              y = mk(ACL_FLOAT16, s42, 2, NULL), ya = mk(ACL_FLOAT16, s12, 2, NULL), yb = mk(ACL_FLOAT16, s32, 2, NULL);
    aclTensorList *xl = list1(alias_f(&x, s42, 2, ACL_FORMAT_ND));
    aclTensorList *wl = list2(alias_f(&w0, s22, 2, ACL_FORMAT_ND), alias_f(&w1, s22, 2, ACL_FORMAT_ND));
    aclTensorList *yl = list1(alias_f(&y, s42, 2, ACL_FORMAT_ND));
    aclTensorList *ysl = list2(alias_f(&ya, s12, 2, ACL_FORMAT_ND), alias_f(&yb, s32, 2, ACL_FORMAT_ND));
    CHECK(xl != NULL && wl != NULL && yl != NULL && ysl != NULL);
    int64_t ends[] = {1, 4};
    aclIntArray *gl = aclCreateIntArray(ends, 2);
    /* V1: one x, separated weights, one y: groupType 0 implied. */
    RUN2(aclnnGroupedMatmulGetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, gl, 3, yl, &ews, &eex),
         aclnnGroupedMatmul);
    /* row 0 @ w0; rows 1-3 @ w1: (a + 2b, a - b). */
    EXPECT_T(y, 1, 2, 11, -1, 17, -1, 23, -1);
    /* V2: the same rows into separated y. */
    RUN2(aclnnGroupedMatmulV2GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, gl, 0, 0, ysl, &ews, &eex),
         aclnnGroupedMatmulV2);
    EXPECT_T(ya, 1, 2);
    EXPECT_T(yb, 11, -1, 17, -1, 23, -1);
    /* The host groupList is checked at phase 1: it must end at m. */
    int64_t short_ends[] = {1, 3};
    aclIntArray *bad = aclCreateIntArray(short_ends, 2);
    EXPECT_ERR(aclnnGroupedMatmulGetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, bad, 3, yl, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmul", "groupListOptional", NULL);
    /* V1 refuses FLOAT32. */
    DevTensor xf = mk(ACL_FLOAT, s42, 2, XV), wf = mk(ACL_FLOAT, s22, 2, W0), yf = mk(ACL_FLOAT, s42, 2, NULL);
    aclTensorList *xfl = list1(alias_f(&xf, s42, 2, ACL_FORMAT_ND)), *wfl = list1(alias_f(&wf, s22, 2, ACL_FORMAT_ND)),
                  *yfl = list1(alias_f(&yf, s42, 2, ACL_FORMAT_ND));
    EXPECT_ERR(aclnnGroupedMatmulGetWorkspaceSize(xfl, wfl, NULL, NULL, NULL, NULL, NULL, NULL, 0, yfl, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmul", "FLOAT32", NULL);
    CHECK_OK(aclDestroyTensorList(xfl));
    CHECK_OK(aclDestroyTensorList(wfl));
    CHECK_OK(aclDestroyTensorList(yfl));
    CHECK_OK(aclDestroyIntArray(gl));
    CHECK_OK(aclDestroyIntArray(bad));
    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(wl));
    CHECK_OK(aclDestroyTensorList(yl));
    CHECK_OK(aclDestroyTensorList(ysl));
    dev_free(&x);
    dev_free(&w0);
    dev_free(&w1);
    dev_free(&y);
    dev_free(&ya);
    dev_free(&yb);
    dev_free(&xf);
    dev_free(&wf);
    dev_free(&yf);
}

static void test_v4_v5_group_sizes(void)
{
    int64_t s42[] = {4, 2}, s222[] = {2, 2, 2}, s2[] = {2};
    double wv[8];
    memcpy(wv, W0, sizeof W0);
    memcpy(wv + 4, W1, sizeof W1);
    DevTensor x = mk(ACL_FLOAT, s42, 2, XV), w = mk(ACL_FLOAT, s222, 3, wv), y = mk(ACL_FLOAT, s42, 2, NULL),
              sizes = mk(ACL_INT64, s2, 1, V(3, 1));
    aclTensorList *xl = list1(alias_f(&x, s42, 2, ACL_FORMAT_ND)), *wl = list1(alias_f(&w, s222, 3, ACL_FORMAT_ND)),
                  *yl = list1(alias_f(&y, s42, 2, ACL_FORMAT_ND));
    /* groupListType 1: expert 0 takes 3 rows, expert 1 one. */
    RUN2(aclnnGroupedMatmulV4GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, sizes.tensor, NULL, NULL,
                                              NULL, 3, 0, 1, 0, yl, NULL, NULL, &ews, &eex),
         aclnnGroupedMatmulV4);
    EXPECT_T(y, 1, 2, 3, 4, 5, 6, 23, -1);
    int64_t tune[] = {2};
    aclIntArray *tc = aclCreateIntArray(tune, 1);
    RUN2(aclnnGroupedMatmulV5GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, sizes.tensor, NULL, NULL,
                                              NULL, 3, 0, 1, 0, tc, yl, NULL, NULL, &ews, &eex),
         aclnnGroupedMatmulV5);
    EXPECT_T(y, 1, 2, 3, 4, 5, 6, 23, -1);
    /* An activation with non-quantized inputs, groupListType 2: refused by name. */
    EXPECT_ERR(aclnnGroupedMatmulV4GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, sizes.tensor, NULL,
                                                    NULL, NULL, 3, 0, 1, 5, yl, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmulV4", "actType", NULL);
    EXPECT_ERR(aclnnGroupedMatmulV5GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, sizes.tensor, NULL,
                                                    NULL, NULL, 3, 0, 2, 0, tc, yl, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmulV5", "groupListType 2", NULL);
    /* Sizes summing past m fail the run and write nothing. */
    double before[8], after[8];
    rd(&y, before);
    int64_t big[] = {3, 2};
    CHECK_OK(aclrtMemcpy(sizes.dev, sizeof big, big, sizeof big, ACL_MEMCPY_HOST_TO_DEVICE));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnGroupedMatmulV4GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, sizes.tensor, NULL,
                                                  NULL, NULL, 3, 0, 1, 0, yl, NULL, NULL, &ws, &ex));
    CHECK_OK(aclnnGroupedMatmulV4(NULL, ws, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) != ACL_SUCCESS);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "groupListOptional[1]") != NULL);
    rd(&y, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    CHECK_OK(aclDestroyIntArray(tc));
    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(wl));
    CHECK_OK(aclDestroyTensorList(yl));
    dev_free(&x);
    dev_free(&w);
    dev_free(&y);
    dev_free(&sizes);
}

enum { NM = 3, NK = 16, NN = 32, NE = 2 };

static double nx_(int r, int i) { return (double)((r + i) % 5) - 2; }
static double nw_(int e, int i, int j) { return (double)((e + 2 * i + j) % 7) - 3; }

static void test_weight_nz(void)
{
    /* Weights (E, K, N) f16 packed FRACTAL_NZ: per expert, N/16 column blocks of K x 16. */
    double xv[NM * NK], wv[NE * NK * NN];
    for (int r = 0; r < NM; r++)
        for (int i = 0; i < NK; i++) xv[r * NK + i] = nx_(r, i);
    for (int e = 0; e < NE; e++)
        for (int i = 0; i < NK; i++)
            for (int j = 0; j < NN; j++) wv[e * NK * NN + ((j / 16) * NK + i) * 16 + j % 16] = nw_(e, i, j);
    int64_t sx[] = {NM, NK}, sw[] = {NE, NK, NN}, sy[] = {NM, NN}, s1[] = {NE}, flat[] = {NE * NK * NN};
    DevTensor x = mk(ACL_FLOAT16, sx, 2, xv), wflat = mk(ACL_FLOAT16, flat, 1, wv), y = mk(ACL_FLOAT16, sy, 2, NULL),
              gl = mk(ACL_INT64, s1, 1, V(1, 3));
    aclTensor *w = alias_f(&wflat, sw, 3, ACL_FORMAT_FRACTAL_NZ);
    aclTensorList *xl = list1(alias_f(&x, sx, 2, ACL_FORMAT_ND)), *wl = list1(w),
                  *yl = list1(alias_f(&y, sy, 2, ACL_FORMAT_ND));
    RUN2(aclnnGroupedMatmulWeightNzGetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, gl.tensor, NULL, NULL,
                                                    NULL, 3, 0, 0, 0, NULL, 0, yl, NULL, NULL, &ews, &eex),
         aclnnGroupedMatmulWeightNz);
    double got[NM * NN], want[NM * NN];
    rd(&y, got);
    for (int r = 0; r < NM; r++) {
        int e = r < 1 ? 0 : 1;
        for (int j = 0; j < NN; j++) {
            double s = 0;
            for (int i = 0; i < NK; i++) s += nx_(r, i) * nw_(e, i, j);
            want[r * NN + j] = s;
        }
    }
    CHECK_VALS("NZ product", ACL_FLOAT16, got, want, NM * NN);
    /* ND weights are refused by WeightNz; NZ ones by V4. */
    EXPECT_ERR(aclnnGroupedMatmulWeightNzGetWorkspaceSize(xl, xl, NULL, NULL, NULL, NULL, NULL, NULL, gl.tensor,
                                                          NULL, NULL, NULL, 3, 0, 0, 0, NULL, 0, yl, NULL, NULL,
                                                          &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmulWeightNz", "FRACTAL_NZ", NULL);
    EXPECT_ERR(aclnnGroupedMatmulV4GetWorkspaceSize(xl, wl, NULL, NULL, NULL, NULL, NULL, NULL, gl.tensor, NULL, NULL,
                                                    NULL, 3, 0, 0, 0, yl, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupedMatmulV4", "FRACTAL_NZ", NULL);
    CHECK_OK(aclDestroyTensorList(xl));
    CHECK_OK(aclDestroyTensorList(wl));
    CHECK_OK(aclDestroyTensorList(yl));
    dev_free(&x);
    dev_free(&wflat);
    dev_free(&y);
    dev_free(&gl);
}

int main(void)
{
    device_init();
    RUN_TEST(test_v1_v2_host_group_list);
    RUN_TEST(test_v4_v5_group_sizes);
    RUN_TEST(test_weight_nz);
    device_teardown();
    return capi_finish();
}
