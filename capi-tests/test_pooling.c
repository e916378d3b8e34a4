/*
 * The pooling headers as a CANN program calls them: MaxPool2dWithIndices (int64 and int32
 * indices, a strided view of 1-D storage), MaxPool2dWithMask (refused), MaxPool3dWithArgmax,
 * AvgPool3d, AdaptiveAvgPool2d/3d, AdaptiveMaxPool2d/3d, GlobalAveragePool and
 * GlobalMaxPool; expected values computed here, errors with their status and message.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_adaptive_avg_pool2d.h"
#include "aclnnop/aclnn_adaptive_avg_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_avgpool3d.h"
#include "aclnnop/aclnn_global_average_pool.h"
#include "aclnnop/aclnn_global_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"

#define F ACL_FLOAT

/* A contiguous tensor in `format` (mk() makes ND ones). */
static DevTensor mk_fmt(aclDataType dt, const int64_t *shape, size_t n, const double *v, aclFormat format)
{
    DevTensor t = mk(dt, shape, n, v);
    int64_t st[8];
    contiguous_strides(shape, n, st);
    CHECK_OK(aclDestroyTensor(t.tensor));
    t.tensor = aclCreateTensor(shape, n, dt, st, 0, format, shape, n, t.dev);
    CHECK(t.tensor != NULL);
    return t;
}

static aclIntArray *ia(const int64_t *v, uint64_t n)
{
    aclIntArray *a = aclCreateIntArray(v, n);
    CHECK(a != NULL);
    return a;
}

static void test_max_pool2d_with_indices(void)
{
    /* (1, 1, 3, 4): 0..11, with a NaN at (1, 1) and a tie at (2, 2) = (2, 3) = 11 */
    int64_t s[] = {1, 1, 3, 4}, so[] = {1, 1, 2, 2}, so3[] = {1, 1, 2, 3};
    double xv[12];
    for (int k = 0; k < 12; k++) xv[k] = k;
    xv[5] = NAN;
    xv[10] = 11;
    DevTensor x = mk_fmt(F, s, 4, xv, ACL_FORMAT_NCHW);
    DevTensor out = mk_fmt(F, so3, 4, NULL, ACL_FORMAT_NCHW), idx = mk_fmt(ACL_INT64, so3, 4, NULL, ACL_FORMAT_NCHW);
    int64_t k2[] = {2, 2}, st[] = {2, 2}, p1[] = {1}, one[] = {1};
    aclIntArray *ks = ia(k2, 2), *ss = ia(st, 2), *ps = ia(p1, 1), *dil = ia(one, 1);
    /* padding 1: out (2, 3), windows rows {-1, 0}, {1, 2}; cols {-1, 0}, {1, 2}, {3, 4} */
    RUN2(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.tensor, ks, ss, ps, dil, false, out.tensor, idx.tensor, &ews,
                                                   &eex),
         aclnnMaxPool2dWithIndices);
    EXPECT_T(out, 0, 2, 3, 8, NAN, 11);
    EXPECT_T(idx, 0, 2, 3, 8, 5, 11);
    /* ceil mode, no padding, int32 indices over a strided view of a 1-D storage (offset 3,
       every other element): out (1, 1, 2, 2), the tie at (2, 2)/(2, 3) gives the first */
    int64_t p0[] = {0}, st1[] = {2};
    aclIntArray *ps0 = ia(p0, 1), *ss2 = ia(st1, 1);
    int64_t storage[] = {16}, vst[] = {8, 8, 4, 2};
    DevTensor iv = mkv(ACL_INT32, storage, 1, NULL, so, 4, vst, 3), out2 = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW);
    RUN2(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.tensor, ks, ss2, ps0, dil, true, out2.tensor, iv.tensor, &ews,
                                                   &eex),
         aclnnMaxPool2dWithIndices);
    EXPECT_T(out2, NAN, 7, 9, 11);
    double got[16];
    rd(&iv, got);
    const double wi[] = {5, 7, 9, 10};
    for (int k = 0; k < 16; k++) {
        int lin = (k - 3) % 2 == 0 && k >= 3 && k < 3 + 4 * 2 ? (k - 3) / 2 : -1;
        if (lin >= 0) CHECK(got[k] == wi[lin]);
    }
    dev_free(&out2);
    /* dilation 2 is refused on A2; a float indices; NULL kernel; the mask form */
    int64_t two[] = {2};
    aclIntArray *dil2 = ia(two, 1);
    EXPECT_ERR(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.tensor, ks, ss, ps, dil2, false, out.tensor, idx.tensor,
                                                         &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndicesGetWorkspaceSize", "dilation", &out);
    DevTensor fidx = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW);
    EXPECT_ERR(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.tensor, ks, ss, ps, dil, false, out.tensor, fidx.tensor,
                                                         &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndicesGetWorkspaceSize", "indices", &out);
    EXPECT_ERR(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.tensor, NULL, ss, ps, dil, false, out.tensor, idx.tensor,
                                                         &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnMaxPool2dWithIndicesGetWorkspaceSize", "kernelSize", &out);
    int64_t sm[] = {1, 1, 4, 64};
    DevTensor mask = mk_fmt(ACL_INT8, sm, 4, NULL, ACL_FORMAT_NCHW);
    EXPECT_ERR(aclnnMaxPool2dWithMaskGetWorkspaceSize(x.tensor, ks, ss, ps, dil, false, out.tensor, mask.tensor, &ews,
                                                      &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithMaskGetWorkspaceSize", "mask", &out);
    for (aclIntArray **p = (aclIntArray *[]){ks, ss, ps, dil, ps0, ss2, dil2, NULL}; *p; p++)
        CHECK_OK(aclDestroyIntArray(*p));
    dev_free(&x);
    dev_free(&out);
    dev_free(&idx);
    dev_free(&iv);
    dev_free(&fidx);
    dev_free(&mask);
}

static void test_pool3d(void)
{
    /* (1, 1, 2, 2, 4): 0..15 */
    int64_t s[] = {1, 1, 2, 2, 4}, so[] = {1, 1, 1, 1, 2};
    double xv[16];
    for (int k = 0; k < 16; k++) xv[k] = k % 5 == 3 ? -k : k;
    DevTensor x = mk_fmt(F, s, 5, xv, ACL_FORMAT_NCDHW);
    DevTensor out = mk_fmt(F, so, 5, NULL, ACL_FORMAT_NCDHW), idx = mk_fmt(ACL_INT32, so, 5, NULL, ACL_FORMAT_NCDHW);
    int64_t k2[] = {2}, z[] = {0}, one[] = {1};
    aclIntArray *ks = ia(k2, 1), *none = ia(z, 0), *ps = ia(z, 1), *dil = ia(one, 1);
    RUN2(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.tensor, ks, none, ps, dil, false, out.tensor, idx.tensor, &ews,
                                                  &eex),
         aclnnMaxPool3dWithArgmax);
    /* window 0: elements {0, 1, 4, 5, 8, 9, 12, 13} (-8 at 8, -13 at 13); window 1: {2, 3, 6, 7, 10, 11, 14, 15} */
    EXPECT_T(out, 12, 15);
    EXPECT_T(idx, 12, 15);
    DevTensor i64 = mk_fmt(ACL_INT64, so, 5, NULL, ACL_FORMAT_NCDHW);
    EXPECT_ERR(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.tensor, ks, none, ps, dil, false, out.tensor, i64.tensor,
                                                        &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool3dWithArgmaxGetWorkspaceSize", "indices", &out);
    /* AvgPool3d: the same windows, then a divisor */
    RUN2(aclnnAvgPool3dGetWorkspaceSize(x.tensor, ks, none, ps, false, true, 0, out.tensor, &ews, &eex),
         aclnnAvgPool3d);
    double w0 = (0 + 1 + 4 + 5 - 8 + 9 + 12 - 13) / 8.0, w1 = (2 - 3 + 6 + 7 + 10 + 11 + 14 + 15) / 8.0;
    EXPECT_T(out, w0, w1);
    RUN2(aclnnAvgPool3dGetWorkspaceSize(x.tensor, ks, none, ps, false, true, 4, out.tensor, &ews, &eex),
         aclnnAvgPool3d);
    EXPECT_T(out, w0 * 2, w1 * 2);
    int64_t k3[] = {3};
    aclIntArray *big = ia(k3, 1);
    EXPECT_ERR(aclnnAvgPool3dGetWorkspaceSize(x.tensor, big, none, ps, false, true, 0, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAvgPool3dGetWorkspaceSize", "kernelSize", &out);
    /* AdaptiveAvgPool3d / AdaptiveMaxPool3d to (1, 1, 2): the same two windows */
    int64_t os[] = {1, 1, 2};
    aclIntArray *osz = ia(os, 3);
    RUN2(aclnnAdaptiveAvgPool3dGetWorkspaceSize(x.tensor, osz, out.tensor, &ews, &eex), aclnnAdaptiveAvgPool3d);
    EXPECT_T(out, w0, w1);
    RUN2(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.tensor, osz, out.tensor, idx.tensor, &ews, &eex),
         aclnnAdaptiveMaxPool3d);
    EXPECT_T(out, 12, 15);
    EXPECT_T(idx, 12, 15);
    EXPECT_ERR(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.tensor, ks, out.tensor, idx.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAdaptiveMaxPool3dGetWorkspaceSize", "outputSize", &out);
    for (aclIntArray **p = (aclIntArray *[]){ks, none, ps, dil, big, osz, NULL}; *p; p++)
        CHECK_OK(aclDestroyIntArray(*p));
    dev_free(&x);
    dev_free(&out);
    dev_free(&idx);
    dev_free(&i64);
}

static void test_adaptive2d(void)
{
    /* (1, 1, 3, 5) to (2, 3): rows {0, 1}, {1, 2}; cols {0, 1}, {1, 2, 3}, {3, 4} */
    int64_t s[] = {1, 1, 3, 5}, so[] = {1, 1, 2, 3};
    double xv[15];
    for (int k = 0; k < 15; k++) xv[k] = (k * 7) % 15;
    DevTensor x = mk_fmt(F, s, 4, xv, ACL_FORMAT_NCHW);
    DevTensor out = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW), idx = mk_fmt(ACL_INT64, so, 4, NULL, ACL_FORMAT_NCHW);
    int64_t os[] = {2, 3};
    aclIntArray *osz = ia(os, 2);
    const int r0[2] = {0, 1}, r1[2] = {2, 3}, c0[3] = {0, 1, 3}, c1[3] = {2, 4, 5};
    double wa[6], wm[6], wi[6];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0, m = -INFINITY;
            int at = -1;
            for (int y = r0[i]; y < r1[i]; y++)
                for (int c = c0[j]; c < c1[j]; c++) {
                    double v = xv[y * 5 + c];
                    sum += v;
                    if (v > m) m = v, at = y * 5 + c;
                }
            wa[i * 3 + j] = sum / ((r1[i] - r0[i]) * (c1[j] - c0[j]));
            wm[i * 3 + j] = m;
            wi[i * 3 + j] = at;
        }
    RUN2(aclnnAdaptiveAvgPool2dGetWorkspaceSize(x.tensor, osz, out.tensor, &ews, &eex), aclnnAdaptiveAvgPool2d);
    double got[6];
    rd(&out, got);
    CHECK_VALS("adaptive avg", F, got, wa, 6);
    RUN2(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.tensor, osz, out.tensor, idx.tensor, &ews, &eex),
         aclnnAdaptiveMaxPool2d);
    rd(&out, got);
    CHECK_VALS("adaptive max", F, got, wm, 6);
    rd(&idx, got);
    CHECK_VALS("adaptive max indices", ACL_INT64, got, wi, 6);
    int64_t bad[] = {2, 0};
    aclIntArray *osb = ia(bad, 2);
    EXPECT_ERR(aclnnAdaptiveAvgPool2dGetWorkspaceSize(x.tensor, osb, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnAdaptiveAvgPool2dGetWorkspaceSize", "outputSize", &out);
    EXPECT_ERR(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.tensor, osz, out.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnAdaptiveMaxPool2dGetWorkspaceSize", "indicesOut", &out);
    CHECK_OK(aclDestroyIntArray(osz));
    CHECK_OK(aclDestroyIntArray(osb));
    dev_free(&x);
    dev_free(&out);
    dev_free(&idx);
}

static void test_global(void)
{
    /* (2, 2, 2, 3): per (n, c) plane of 6 */
    int64_t s[] = {2, 2, 2, 3}, so[] = {2, 2, 1, 1};
    double xv[24];
    for (int k = 0; k < 24; k++) xv[k] = (k * 5) % 24 - 10;
    DevTensor x = mk_fmt(F, s, 4, xv, ACL_FORMAT_NCHW), out = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW);
    double wa[4], wm[4], got[4];
    for (int p = 0; p < 4; p++) {
        double sum = 0, m = -INFINITY;
        for (int k = 0; k < 6; k++) sum += xv[p * 6 + k], m = fmax(m, xv[p * 6 + k]);
        wa[p] = sum / 6, wm[p] = m;
    }
    RUN2(aclnnGlobalAveragePoolGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnGlobalAveragePool);
    rd(&out, got);
    CHECK_VALS("global avg", F, got, wa, 4);
    RUN2(aclnnGlobalMaxPoolGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnGlobalMaxPool);
    rd(&out, got);
    CHECK_VALS("global max", F, got, wm, 4);
    int64_t sb[] = {2, 2, 1, 3};
    DevTensor bad = mk_fmt(F, sb, 4, NULL, ACL_FORMAT_NCHW);
    EXPECT_ERR(aclnnGlobalMaxPoolGetWorkspaceSize(x.tensor, bad.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGlobalMaxPoolGetWorkspaceSize", "out", &bad);
    EXPECT_ERR(aclnnGlobalAveragePoolGetWorkspaceSize(NULL, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnGlobalAveragePoolGetWorkspaceSize", "self", &out);
    dev_free(&x);
    dev_free(&out);
    dev_free(&bad);
}

int main(void)
{
    device_init();
    RUN_TEST(test_max_pool2d_with_indices);
    RUN_TEST(test_pool3d);
    RUN_TEST(test_adaptive2d);
    RUN_TEST(test_global);
    device_teardown();
    return capi_finish();
}
