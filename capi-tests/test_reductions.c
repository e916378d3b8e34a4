/*
 * The reductions of CANN's math library through the C ABI, called as a CANN program calls
 * them: aclnn_all.h, aclnn_any.h, aclnn_prod.h (Prod, ProdDim), aclnn_var.h (Var,
 * VarCorrection), aclnn_std.h, aclnn_var_mean.h, aclnn_std_mean_correction.h,
 * aclnn_logsumexp.h, aclnn_reduce_log_sum.h, aclnn_reduce_nansum.h, aclnn_max_v2.h.
 *
 * Hand-computed values (in the comments), a transposed input and a strided output whose
 * other storage bytes stay untouched, NULL dims where CANN accepts it, empty and special
 * values; then the documented errors with their status (161001 for NULL, 161002
 * otherwise), the message naming the API and the parameter, and the output untouched. The
 * random differential tests are in src/tests/reduce_stats_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_all.h"
#include "aclnnop/aclnn_any.h"
#include "aclnnop/aclnn_logsumexp.h"
#include "aclnnop/aclnn_max_v2.h"
#include "aclnnop/aclnn_prod.h"
#include "aclnnop/aclnn_reduce_log_sum.h"
#include "aclnnop/aclnn_reduce_nansum.h"
#include "aclnnop/aclnn_std.h"
#include "aclnnop/aclnn_std_mean_correction.h"
#include "aclnnop/aclnn_var.h"
#include "aclnnop/aclnn_var_mean.h"

#include <math.h>

#define F ACL_FLOAT
#define H ACL_FLOAT16

static aclIntArray *ia(const int64_t *v, uint64_t n)
{
    aclIntArray *a = aclCreateIntArray(v, n);
    CHECK(a != NULL);
    return a;
}
#define DIMS(...) ia((const int64_t[]){__VA_ARGS__}, ARRAY_LEN(((const int64_t[]){__VA_ARGS__})))
#define NO_DIMS() ia(NULL, 0)

/* The first element of an output. */
static double first_value(const DevTensor *t)
{
    double *g = dbl(t->numel * comps(t->dtype));
    rd(t, g);
    double v = g[0];
    free(g);
    return v;
}

/*
 * aclnnVarCorrection as CANN's sample writes it: aclrtMalloc + aclrtMemcpy + aclCreateTensor
 * per operand, phase 1, a workspace if asked for, phase 2 on the stream, synchronize, copy
 * back, destroy, free. x = [[1, 2, 3, 4], [2, 4, 6, 8]], dim 1, correction 1:
 * means 2.5 and 5, Σd² = 5 and 20, variances 5/3 and 20/3.
 */
static void test_var_correction_cann_sample(void)
{
    aclrtStream stream = NULL;
    CHECK_OK(aclrtCreateStream(&stream));
    int64_t xs[] = {2, 4}, os[] = {2}, xst[] = {4, 1}, ost[] = {1};
    float host[8] = {1, 2, 3, 4, 2, 4, 6, 8}, res[2] = {0, 0};
    void *xd = NULL, *od = NULL;
    CHECK_OK(aclrtMalloc(&xd, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&od, sizeof res, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(xd, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    aclTensor *x = aclCreateTensor(xs, 2, F, xst, 0, ACL_FORMAT_ND, xs, 2, xd);
    aclTensor *o = aclCreateTensor(os, 1, F, ost, 0, ACL_FORMAT_ND, os, 1, od);
    aclIntArray *dim = DIMS(1);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnVarCorrectionGetWorkspaceSize(x, dim, 1, false, o, &ws, &ex));
    void *wsd = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsd, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnVarCorrection(wsd, ws, ex, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclrtMemcpy(res, sizeof res, od, sizeof res, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(res[0] == (float)(5.0 / 3.0) && res[1] == (float)(20.0 / 3.0));
    CHECK_OK(aclDestroyTensor(x));
    CHECK_OK(aclDestroyTensor(o));
    CHECK_OK(aclDestroyIntArray(dim));
    if (wsd) CHECK_OK(aclrtFree(wsd));
    CHECK_OK(aclrtFree(xd));
    CHECK_OK(aclrtFree(od));
    CHECK_OK(aclrtDestroyStream(stream));
}

/* Var (unbiased flag), Std, VarMean, StdMeanCorrection; NULL dim means every axis. */
static void test_moments(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s0d[1] = {0}, s11[] = {1, 1};
    /* x = [[1, 2, 6], [3, 4, 2]]; over dim 0: means 2, 3, 4; Σd² = 2, 2, 8 */
    DevTensor x = mk(F, s23, 2, V(1, 2, 6, 3, 4, 2));
    DevTensor v3 = mk(F, s3, 1, NULL), m3 = mk(H, s3, 1, NULL), s0 = mk(F, s0d, 0, NULL);
    DevTensor k11 = mk(F, s11, 2, NULL), mk11 = mk(F, s11, 2, NULL);
    aclIntArray *d0 = DIMS(0), *dm1 = DIMS(-1);
    RUN2(aclnnVarGetWorkspaceSize(x.tensor, d0, false, false, v3.tensor, &ews, &eex), aclnnVar);
    EXPECT_T(v3, 1, 1, 4);
    RUN2(aclnnVarGetWorkspaceSize(x.tensor, d0, true, false, v3.tensor, &ews, &eex), aclnnVar);
    EXPECT_T(v3, 2, 2, 8);
    /* Std over every axis (dim NULL), correction 0: mean 3, Σd² = 4+1+9+0+1+1 = 16, std √(16/6) */
    RUN2(aclnnStdGetWorkspaceSize(x.tensor, NULL, 0, false, s0.tensor, &ews, &eex), aclnnStd);
    CHECK(close_to(F, first_value(&s0), sqrt(16.0 / 6.0)));
    /* VarMean along dim 0, correction 2: divisor 0 → +inf (Σd² > 0); the mean in an f16 out */
    RUN2(aclnnVarMeanGetWorkspaceSize(x.tensor, d0, 2, false, v3.tensor, m3.tensor, &ews, &eex), aclnnVarMean);
    EXPECT_T(v3, INFINITY, INFINITY, INFINITY);
    EXPECT_T(m3, 2, 3, 4);
    /* StdMeanCorrection over every axis with keepdim: [1, 1] outs; std √(16/5), mean 3 */
    RUN2(aclnnStdMeanCorrectionGetWorkspaceSize(x.tensor, NULL, 1, true, k11.tensor, mk11.tensor, &ews, &eex),
         aclnnStdMeanCorrection);
    CHECK(close_to(F, first_value(&k11), sqrt(16.0 / 5.0)));
    CHECK(first_value(&mk11) == 3.0);
    /* Stable at a large mean: 1e4 + {−0.01, 0, 0.01} (f32 values) has variance ≈ 1e-4 */
    int64_t s3b[] = {3};
    DevTensor big = mk(F, s3b, 1, V(1e4 - 0.01, 1e4, 1e4 + 0.01));
    RUN2(aclnnVarCorrectionGetWorkspaceSize(big.tensor, NULL, 1, false, s0.tensor, &ews, &eex), aclnnVarCorrection);
    double a = (float)(1e4 - 0.01), c = (float)(1e4 + 0.01), mean = (a + 1e4 + c) / 3;
    double want = ((a - mean) * (a - mean) + (1e4 - mean) * (1e4 - mean) + (c - mean) * (c - mean)) / 2;
    CHECK(close_to(F, first_value(&s0), want));
    /* Along the last dim of a transposed view: x^T is [[1, 3], [2, 4], [6, 2]]; var over dim −1,
       correction 0: 1, 1, 4 */
    int64_t s32[] = {3, 2}, st[] = {1, 3};
    DevTensor xt = mkv(F, s23, 2, V(1, 2, 6, 3, 4, 2), s32, 2, st, 0);
    RUN2(aclnnVarCorrectionGetWorkspaceSize(xt.tensor, dm1, 0, false, v3.tensor, &ews, &eex), aclnnVarCorrection);
    EXPECT_T(v3, 1, 1, 4);
    CHECK_OK(aclDestroyIntArray(d0));
    CHECK_OK(aclDestroyIntArray(dm1));
    DevTensor *all[] = {&x, &v3, &m3, &s0, &k11, &mk11, &big, &xt};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* All, Any (NaN is true; empty: true / false), Prod / ProdDim (dtype), ReduceNansum, MaxV2. */
static void test_logical_prod_nansum_max(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2}, s3[] = {3}, s1[] = {1}, s0[] = {0}, s03[] = {0, 3};
    DevTensor x = mk(F, s23, 2, V(1, 0, NAN, 2, 3, -4));
    DevTensor b2 = mk(ACL_BOOL, s2, 1, NULL), u3 = mk(ACL_UINT8, s3, 1, NULL), b3 = mk(ACL_BOOL, s3, 1, NULL);
    aclIntArray *d1 = DIMS(1), *d0 = DIMS(0), *none = NO_DIMS();
    RUN2(aclnnAllGetWorkspaceSize(x.tensor, d1, false, b2.tensor, &ews, &eex), aclnnAll);
    EXPECT_T(b2, 0, 1);
    RUN2(aclnnAllGetWorkspaceSize(x.tensor, d0, false, u3.tensor, &ews, &eex), aclnnAll);
    EXPECT_T(u3, 1, 0, 1);
    RUN2(aclnnAnyGetWorkspaceSize(x.tensor, d0, false, b3.tensor, &ews, &eex), aclnnAny);
    EXPECT_T(b3, 1, 1, 1);
    DevTensor e = mk(F, s03, 2, NULL);
    RUN2(aclnnAllGetWorkspaceSize(e.tensor, d0, false, b3.tensor, &ews, &eex), aclnnAll);
    EXPECT_T(b3, 1, 1, 1);
    RUN2(aclnnAnyGetWorkspaceSize(e.tensor, d0, false, b3.tensor, &ews, &eex), aclnnAny);
    EXPECT_T(b3, 0, 0, 0);
    /* Prod of every element of an int tensor in s32: 2·3·(−4)·5 = −120; ProdDim in f32 */
    DevTensor xi = mk(ACL_INT32, s23, 2, V(2, 3, -4, 5, 1, 1)), p1 = mk(ACL_INT32, s1, 1, NULL);
    RUN2(aclnnProdGetWorkspaceSize(xi.tensor, ACL_INT32, p1.tensor, &ews, &eex), aclnnProd);
    EXPECT_T(p1, -120);
    DevTensor p2 = mk(F, s2, 1, NULL);
    RUN2(aclnnProdDimGetWorkspaceSize(xi.tensor, -1, false, F, p2.tensor, &ews, &eex), aclnnProdDim);
    EXPECT_T(p2, -24, 5);
    /* ReduceNansum over dim 1 of x: 1 + 0 (NaN skipped), 2 + 3 − 4 */
    RUN2(aclnnReduceNansumGetWorkspaceSize(x.tensor, d1, false, F, p2.tensor, &ews, &eex), aclnnReduceNansum);
    EXPECT_T(p2, 1, 1);
    /* MaxV2: NaN propagates; noopWithEmptyDims copies */
    DevTensor m2 = mk(F, s2, 1, NULL), m23 = mk(F, s23, 2, NULL);
    RUN2(aclnnMaxV2GetWorkspaceSize(x.tensor, d1, false, false, m2.tensor, &ews, &eex), aclnnMaxV2);
    EXPECT_T(m2, NAN, 3);
    RUN2(aclnnMaxV2GetWorkspaceSize(x.tensor, none, false, true, m23.tensor, &ews, &eex), aclnnMaxV2);
    EXPECT_T(m23, 1, 0, NAN, 2, 3, -4);
    (void)s0;
    CHECK_OK(aclDestroyIntArray(d1));
    CHECK_OK(aclDestroyIntArray(d0));
    CHECK_OK(aclDestroyIntArray(none));
    DevTensor *all[] = {&x, &b2, &u3, &b3, &e, &xi, &p1, &p2, &m2, &m23};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

/* LogSumExp (into a strided out view) and ReduceLogSum. */
static void test_log_sums(void)
{
    int64_t s43[] = {4, 3};
    /* rows [0, ln 2, ln 3] → ln 6; [1000, 1000, 1000] → 1000 + ln 3 (no overflow);
       [−inf ×3] → −inf; [NaN, 0, 0] → NaN */
    double l2 = log(2.0), l3 = log(3.0);
    DevTensor x = mk(F, s43, 2, V(0, l2, l3, 1000, 1000, 1000, -INFINITY, -INFINITY, -INFINITY, NAN, 0, 0));
    /* out: the seed view's column of 4 ([4] with stride 20 at offset 22 over 10x10) */
    int64_t s4[] = {4}, st[] = {20};
    DevTensor o = mkv(F, VSTORE, 2, NULL, s4, 1, st, VOFF);
    aclIntArray *d1 = DIMS(1), *none = NO_DIMS();
    RUN2(aclnnLogSumExpGetWorkspaceSize(x.tensor, d1, false, o.tensor, &ews, &eex), aclnnLogSumExp);
    float host[100];
    dev_read(&o, host);
    CHECK(close_to(F, host[22], log(6.0)));
    CHECK(close_to(F, host[42], 1000 + l3));
    CHECK(host[62] == -INFINITY);
    CHECK(isnan(host[82]));
    const unsigned char *b = (const unsigned char *)host;
    for (int k = 0; k < 100; k++) {
        if (k == 22 || k == 42 || k == 62 || k == 82) continue;
        for (int j = 0; j < 4; j++) CHECK(b[4 * k + j] == SENT);
    }
    /* ReduceLogSum over every axis (empty axes, noop false) of [[1, 2], [3, 4]]: ln 10 */
    int64_t s22[] = {2, 2}, s0d[1] = {0};
    DevTensor y = mk(F, s22, 2, V(1, 2, 3, 4)), r = mk(F, s0d, 0, NULL);
    RUN2(aclnnReduceLogSumGetWorkspaceSize(y.tensor, none, false, false, r.tensor, &ews, &eex), aclnnReduceLogSum);
    CHECK(close_to(F, first_value(&r), log(10.0)));
    CHECK_OK(aclDestroyIntArray(d1));
    CHECK_OK(aclDestroyIntArray(none));
    dev_free(&x);
    dev_free(&o);
    dev_free(&y);
    dev_free(&r);
}

static void test_errors(void)
{
    const long long NUL = ACLNN_ERR_PARAM_NULLPTR, INV = ACLNN_ERR_PARAM_INVALID;
    int64_t s23[] = {2, 3}, s2[] = {2}, s3[] = {3}, s03[] = {0, 3};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o2 = mk(F, s2, 1, NULL), o3 = mk(F, s3, 1, NULL);
    DevTensor xi = mk(ACL_INT32, s23, 2, NULL), i2 = mk(ACL_INT32, s2, 1, NULL), e = mk(F, s03, 2, NULL);
    aclIntArray *d1 = DIMS(1), *d2 = DIMS(2), *rep = DIMS(1, -1), *d0 = DIMS(0);
    /* NULLs: self, out, and dims where CANN requires them */
    EXPECT_ERR(aclnnVarGetWorkspaceSize(NULL, d1, true, false, o2.tensor, &ews, &eex), NUL, "aclnnVarGetWorkspaceSize",
               "self", &o2);
    EXPECT_ERR(aclnnStdGetWorkspaceSize(x.tensor, d1, 1, false, NULL, &ews, &eex), NUL, "aclnnStdGetWorkspaceSize",
               "out", NULL);
    EXPECT_ERR(aclnnAllGetWorkspaceSize(x.tensor, NULL, false, o2.tensor, &ews, &eex), NUL, "aclnnAllGetWorkspaceSize",
               "dim", &o2);
    EXPECT_ERR(aclnnLogSumExpGetWorkspaceSize(x.tensor, NULL, false, o2.tensor, &ews, &eex), NUL,
               "aclnnLogSumExpGetWorkspaceSize", "dim", &o2);
    EXPECT_ERR(aclnnReduceLogSumGetWorkspaceSize(x.tensor, NULL, false, false, o2.tensor, &ews, &eex), NUL,
               "aclnnReduceLogSumGetWorkspaceSize", "axes", &o2);
    EXPECT_ERR(aclnnVarMeanGetWorkspaceSize(x.tensor, d1, 1, false, o2.tensor, NULL, &ews, &eex), NUL,
               "aclnnVarMeanGetWorkspaceSize", "meanOut", &o2);
    /* dims out of range, repeated; out shape */
    EXPECT_ERR(aclnnVarCorrectionGetWorkspaceSize(x.tensor, d2, 1, false, o2.tensor, &ews, &eex), INV,
               "aclnnVarCorrectionGetWorkspaceSize", "dim", &o2);
    EXPECT_ERR(aclnnStdGetWorkspaceSize(x.tensor, rep, 1, false, o2.tensor, &ews, &eex), INV,
               "aclnnStdGetWorkspaceSize", "repeats", &o2);
    EXPECT_ERR(aclnnAnyGetWorkspaceSize(x.tensor, d1, false, o3.tensor, &ews, &eex), INV, "aclnnAnyGetWorkspaceSize",
               "out", &o3);
    EXPECT_ERR(aclnnStdMeanCorrectionGetWorkspaceSize(x.tensor, d1, 1, false, o2.tensor, o3.tensor, &ews, &eex), INV,
               "aclnnStdMeanCorrectionGetWorkspaceSize", "meanOut", &o3);
    /* dtypes */
    EXPECT_ERR(aclnnVarGetWorkspaceSize(xi.tensor, d1, true, false, o2.tensor, &ews, &eex), INV,
               "aclnnVarGetWorkspaceSize", "self", &o2);
    EXPECT_ERR(aclnnLogSumExpGetWorkspaceSize(x.tensor, d1, false, i2.tensor, &ews, &eex), INV,
               "aclnnLogSumExpGetWorkspaceSize", "out", &i2);
    EXPECT_ERR(aclnnProdDimGetWorkspaceSize(x.tensor, 1, false, ACL_INT32, o2.tensor, &ews, &eex), INV,
               "aclnnProdDimGetWorkspaceSize", "dtype", &o2);
    EXPECT_ERR(aclnnReduceNansumGetWorkspaceSize(x.tensor, d1, false, ACL_INT32, i2.tensor, &ews, &eex), INV,
               "aclnnReduceNansumGetWorkspaceSize", "out", &i2);
    EXPECT_ERR(aclnnAnyGetWorkspaceSize(x.tensor, d1, false, o2.tensor, &ews, &eex), INV, "aclnnAnyGetWorkspaceSize",
               "out", &o2);
    EXPECT_ERR(aclnnMaxV2GetWorkspaceSize(e.tensor, d0, false, false, o3.tensor, &ews, &eex), INV,
               "aclnnMaxV2GetWorkspaceSize", "size 0", &o3);
    CHECK_OK(aclDestroyIntArray(d1));
    CHECK_OK(aclDestroyIntArray(d2));
    CHECK_OK(aclDestroyIntArray(rep));
    CHECK_OK(aclDestroyIntArray(d0));
    DevTensor *all[] = {&x, &o2, &o3, &xi, &i2, &e};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_var_correction_cann_sample);
    RUN_TEST(test_moments);
    RUN_TEST(test_logical_prod_nansum_max);
    RUN_TEST(test_log_sums);
    RUN_TEST(test_errors);
    device_teardown();
    return capi_finish();
}
