/*
 * The SyncBN pieces, called as torch_npu's SyncBatchNorm calls them on each device:
 *
 * - aclnn_batch_norm_stats.h: per-channel mean and invstd of the local batch;
 * - aclnn_batch_norm_gather_stats_with_counts.h: the devices' (mean, invstd, count) merged,
 *   running statistics updated in place;
 * - aclnn_batch_norm_reduce.h and aclnn_sync_batch_norm_gather_stats.h: the sum / square
 *   sum form of the same (INT32 sample counts);
 * - aclnn_batch_norm_elemt.h: the normalisation with the gathered statistics;
 * - aclnn_group_norm_swish.h: GroupNorm then y * sigmoid(swishScale * y), an f16 x with
 *   FLOAT gamma/beta and FLOAT statistics.
 *
 * Expected values come from a double-precision formula here (never from the library).
 * Documented errors are checked for their status (161001 NULL, 161002 invalid), a message
 * naming the API and the parameter, and outputs left untouched. The random differential
 * tests are in src/tests/norm2_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_group_norm_swish.h"
#include "aclnnop/aclnn_sync_batch_norm_gather_stats.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16

static void free_all(DevTensor **ts, size_t n)
{
    for (size_t k = 0; k < n; k++) dev_free(ts[k]);
}

/* Two "devices": x0 (2, 2, 2) and x1 (1, 2, 2), channel 0 of both {1, 3, 5, 7} + {9, 11},
 * channel 1 {0, 0, 4, -4} + {2, 2}. */
static const double X0[8] = {1, 3, 0, 0, 5, 7, 4, -4};
static const double X1[4] = {9, 11, 2, 2};

static void whole_stats(double mean[2], double var[2])
{
    const double c0[6] = {1, 3, 5, 7, 9, 11}, c1[6] = {0, 0, 4, -4, 2, 2};
    const double *c[2] = {c0, c1};
    for (int k = 0; k < 2; k++) {
        double s = 0, q = 0;
        for (int i = 0; i < 6; i++) s += c[k][i];
        mean[k] = s / 6;
        for (int i = 0; i < 6; i++) q += (c[k][i] - mean[k]) * (c[k][i] - mean[k]);
        var[k] = q / 6;
    }
}

static void test_stats_gather_elemt(void)
{
    int64_t s0[] = {2, 2, 2}, s1[] = {1, 2, 2}, sc2[] = {2}, sw[] = {2, 2};
    DevTensor x0 = mk(F, s0, 3, X0), x1 = mk(F, s1, 3, X1);
    DevTensor m0 = mk(F, sc2, 1, NULL), i0 = mk(F, sc2, 1, NULL);
    DevTensor m1 = mk(F, sc2, 1, NULL), i1 = mk(F, sc2, 1, NULL);
    const double eps = 1e-5;
    RUN2(aclnnBatchNormStatsGetWorkspaceSize(x0.tensor, eps, m0.tensor, i0.tensor, &ews, &eex), aclnnBatchNormStats);
    RUN2(aclnnBatchNormStatsGetWorkspaceSize(x1.tensor, eps, m1.tensor, i1.tensor, &ews, &eex), aclnnBatchNormStats);
    /* device 0: channel 0 mean 4 var 5, channel 1 mean 0 var 8; device 1: 10 var 1, 2 var 0 */
    const float e32 = (float)eps;
    EXPECT_T(m0, 4, 0);
    EXPECT_T(i0, 1 / sqrt(5 + e32), 1 / sqrt(8 + e32));
    EXPECT_T(m1, 10, 2);
    EXPECT_T(i1, 1 / sqrt(1 + e32), 1 / sqrt(0 + e32));
    /* all-gathered (2 devices, C) as the collective would leave them */
    double mv[4], iv[4];
    rd(&m0, mv);
    rd(&m1, mv + 2);
    rd(&i0, iv);
    rd(&i1, iv + 2);
    DevTensor mean = mk(F, sw, 2, mv), invstd = mk(F, sw, 2, iv), counts = mk(F, sc2, 1, V(4, 2));
    DevTensor rm = mk(F, sc2, 1, V(0, 0)), rv = mk(F, sc2, 1, V(1, 1));
    DevTensor ma = mk(F, sc2, 1, NULL), ia = mk(F, sc2, 1, NULL);
    RUN2(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x0.tensor, mean.tensor, invstd.tensor, rm.tensor,
                                                             rv.tensor, 0.1, eps, counts.tensor, ma.tensor,
                                                             ia.tensor, &ews, &eex),
         aclnnBatchNormGatherStatsWithCounts);
    double wm[2], wv[2];
    whole_stats(wm, wv);
    const float mo = 0.1f;
    EXPECT_T(ma, wm[0], wm[1]);
    EXPECT_T(ia, 1 / sqrt(wv[0] + e32), 1 / sqrt(wv[1] + e32));
    EXPECT_T(rm, mo * wm[0], mo * wm[1]);
    EXPECT_T(rv, (1 - mo) + mo * wv[0] * 6 / 5, (1 - mo) + mo * wv[1] * 6 / 5);
    /* runningMean/runningVar NULL: only meanAll/invstdAll */
    RUN2(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x0.tensor, mean.tensor, invstd.tensor, NULL, NULL, 0.1,
                                                             eps, counts.tensor, ma.tensor, ia.tensor, &ews, &eex),
         aclnnBatchNormGatherStatsWithCounts);
    EXPECT_T(ma, wm[0], wm[1]);
    /* Elemt on device 0 with the gathered statistics, weight and bias */
    DevTensor w = mk(F, sc2, 1, V(2, 1)), b = mk(F, sc2, 1, V(0, 1)), y = mk(F, s0, 3, NULL);
    RUN2(aclnnBatchNormElemtGetWorkspaceSize(x0.tensor, w.tensor, b.tensor, ma.tensor, ia.tensor, eps, y.tensor,
                                             &ews, &eex),
         aclnnBatchNormElemt);
    double want[8], got[8], iav[2];
    rd(&ia, iav);
    const double wv2[2] = {2, 1}, bv[2] = {0, 1};
    for (int k = 0; k < 8; k++) {
        int c = (k / 2) % 2;
        want[k] = (X0[k] - wm[c]) * iav[c] * wv2[c] + bv[c];
    }
    rd(&y, got);
    CHECK_VALS("BatchNormElemt", F, got, want, 8);
    /* an f16 input with FLOAT statistics (torch's SyncBN with half activations) */
    DevTensor xh = mk(H, s0, 3, X0), yh = mk(H, s0, 3, NULL);
    RUN2(aclnnBatchNormElemtGetWorkspaceSize(xh.tensor, NULL, NULL, ma.tensor, ia.tensor, eps, yh.tensor, &ews, &eex),
         aclnnBatchNormElemt);
    for (int k = 0; k < 8; k++) want[k] = (X0[k] - wm[(k / 2) % 2]) * iav[(k / 2) % 2];
    rd(&yh, got);
    CHECK_VALS("BatchNormElemt f16", H, got, want, 8);

    /* errors */
    const char *api = "aclnnBatchNormStatsGetWorkspaceSize";
    EXPECT_ERR(aclnnBatchNormStatsGetWorkspaceSize(x0.tensor, eps, NULL, i0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "mean", &i0);
    DevTensor mh = mk(H, sc2, 1, NULL);
    EXPECT_ERR(aclnnBatchNormStatsGetWorkspaceSize(x0.tensor, eps, mh.tensor, i0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "mean", &i0);
    DevTensor xb = mk(ACL_BF16, s0, 3, X0);
    EXPECT_ERR(aclnnBatchNormStatsGetWorkspaceSize(xb.tensor, eps, m0.tensor, i0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "input", &m0);
    api = "aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize";
    EXPECT_ERR(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x0.tensor, mean.tensor, invstd.tensor, NULL, NULL,
                                                                   0.1, eps, NULL, ma.tensor, ia.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "counts", &ma);
    DevTensor c3 = mk(F, (int64_t[]){3}, 1, V(1, 1, 1));
    EXPECT_ERR(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(x0.tensor, mean.tensor, invstd.tensor, NULL, NULL,
                                                                   0.1, eps, c3.tensor, ma.tensor, ia.tensor, &ews,
                                                                   &eex),
               ACLNN_ERR_PARAM_INVALID, api, "counts", &ma);
    api = "aclnnBatchNormElemtGetWorkspaceSize";
    EXPECT_ERR(aclnnBatchNormElemtGetWorkspaceSize(x0.tensor, NULL, NULL, ma.tensor, ia.tensor, eps, yh.tensor, &ews,
                                                   &eex),
               ACLNN_ERR_PARAM_INVALID, api, "output", &yh);
    EXPECT_ERR(aclnnBatchNormElemtGetWorkspaceSize(x0.tensor, NULL, NULL, ma.tensor, NULL, eps, y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "invstd", &y);
    DevTensor *all[] = {&x0, &x1, &m0, &i0, &m1, &i1, &mean, &invstd, &counts, &rm, &rv, &ma,
                        &ia, &w,  &b,  &y,  &xh, &yh, &mh,   &xb,     &c3};
    free_all(all, ARRAY_LEN(all));
}

/* A 4-D tensor re-created with a layout format. */
static void set_format(DevTensor *t, const int64_t *shape, aclFormat fmt)
{
    CHECK_OK(aclDestroyTensor(t->tensor));
    t->tensor = aclCreateTensor(shape, 4, t->dtype, NULL, 0, fmt, shape, 4, t->dev);
    CHECK(t->tensor != NULL);
}

static void test_reduce_and_sync_gather(void)
{
    /* the same two devices as (N, C, 1, 2) NCHW */
    int64_t s0[] = {2, 2, 1, 2}, s1[] = {1, 2, 1, 2}, sc2[] = {2}, sw[] = {2, 2};
    DevTensor x0 = mk(F, s0, 4, X0), x1 = mk(F, s1, 4, X1);
    set_format(&x0, s0, ACL_FORMAT_NCHW);
    set_format(&x1, s1, ACL_FORMAT_NCHW);
    DevTensor su0 = mk(F, sc2, 1, NULL), sq0 = mk(F, sc2, 1, NULL);
    DevTensor su1 = mk(F, sc2, 1, NULL), sq1 = mk(F, sc2, 1, NULL);
    RUN2(aclnnBatchNormReduceGetWorkspaceSize(x0.tensor, su0.tensor, sq0.tensor, &ews, &eex), aclnnBatchNormReduce);
    RUN2(aclnnBatchNormReduceGetWorkspaceSize(x1.tensor, su1.tensor, sq1.tensor, &ews, &eex), aclnnBatchNormReduce);
    EXPECT_T(su0, 16, 0);
    EXPECT_T(sq0, 1 + 9 + 25 + 49, 16 + 16);
    EXPECT_T(su1, 20, 4);
    EXPECT_T(sq1, 81 + 121, 8);
    /* NHWC: the channel is the last dim; x0 seen as (1, 2, 2, 2) gives channels {1,0,5,4}, {3,0,7,-4} */
    int64_t sh[] = {1, 2, 2, 2};
    DevTensor xh = mk(F, sh, 4, X0);
    set_format(&xh, sh, ACL_FORMAT_NHWC);
    RUN2(aclnnBatchNormReduceGetWorkspaceSize(xh.tensor, su1.tensor, sq1.tensor, &ews, &eex), aclnnBatchNormReduce);
    EXPECT_T(su1, 10, 6);
    EXPECT_T(sq1, 1 + 25 + 16, 9 + 49 + 16);
    /* gathered (2 devices, C) sums; INT32 sample counts */
    DevTensor ts = mk(F, sw, 2, V(16, 0, 20, 4)), tq = mk(F, sw, 2, V(84, 32, 202, 8));
    DevTensor cnt = mk(ACL_INT32, sc2, 1, V(4, 2));
    DevTensor rm = mk(F, sc2, 1, V(0, 0)), rv = mk(F, sc2, 1, V(1, 1));
    DevTensor bm = mk(F, sc2, 1, NULL), bi = mk(F, sc2, 1, NULL);
    RUN2(aclnnSyncBatchNormGatherStatsGetWorkspaceSize(ts.tensor, tq.tensor, cnt.tensor, rm.tensor, rv.tensor, 0.1f,
                                                       1e-5f, bm.tensor, bi.tensor, &ews, &eex),
         aclnnSyncBatchNormGatherStats);
    double wm[2], wv[2];
    whole_stats(wm, wv);
    const float mo = 0.1f, e32 = 1e-5f;
    EXPECT_T(bm, wm[0], wm[1]);
    EXPECT_T(bi, 1 / sqrt(wv[0] + e32), 1 / sqrt(wv[1] + e32));
    EXPECT_T(rm, mo * wm[0], mo * wm[1]);
    EXPECT_T(rv, (1 - mo) + mo * wv[0] * 6 / 5, (1 - mo) + mo * wv[1] * 6 / 5);

    const char *api = "aclnnBatchNormReduceGetWorkspaceSize";
    DevTensor xnd = mk(F, s0, 4, X0);
    EXPECT_ERR(aclnnBatchNormReduceGetWorkspaceSize(xnd.tensor, su0.tensor, sq0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "x", &su0);
    EXPECT_ERR(aclnnBatchNormReduceGetWorkspaceSize(x0.tensor, su0.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               api, "squareSum", &su0);
    api = "aclnnSyncBatchNormGatherStatsGetWorkspaceSize";
    DevTensor rvh = mk(H, sc2, 1, V(1, 1));
    EXPECT_ERR(aclnnSyncBatchNormGatherStatsGetWorkspaceSize(ts.tensor, tq.tensor, cnt.tensor, rm.tensor, rvh.tensor,
                                                             0.1f, 1e-5f, bm.tensor, bi.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "variance", &bm);
    EXPECT_ERR(aclnnSyncBatchNormGatherStatsGetWorkspaceSize(ts.tensor, tq.tensor, NULL, rm.tensor, rv.tensor, 0.1f,
                                                             1e-5f, bm.tensor, bi.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "sampleCount", &bm);
    DevTensor *all[] = {&x0, &x1, &su0, &sq0, &su1, &sq1, &xh, &ts, &tq, &cnt, &rm, &rv, &bm, &bi, &xnd, &rvh};
    free_all(all, ARRAY_LEN(all));
}

static void test_group_norm_swish(void)
{
    /* x (1, 2, 2), 2 groups: group 0 {1, 3}, group 1 {0, 4}; each mean m, var 1 or 4 */
    int64_t sx[] = {1, 2, 2}, sc2[] = {2}, ss[] = {1, 2};
    DevTensor x = mk(H, sx, 3, V(1, 3, 0, 4)), y = mk(H, sx, 3, NULL);
    DevTensor g = mk(F, sc2, 1, V(1, 2)), b = mk(F, sc2, 1, V(0, 1));
    DevTensor m = mk(F, ss, 2, NULL), r = mk(F, ss, 2, NULL);
    char fmt[] = "NCHW";
    RUN2(aclnnGroupNormSwishGetWorkspaceSize(x.tensor, g.tensor, b.tensor, 2, fmt, 1e-5, true, 2.0, y.tensor, m.tensor,
                                             r.tensor, &ews, &eex),
         aclnnGroupNormSwish);
    const double xs[4] = {1, 3, 0, 4}, mv[2] = {2, 2}, vv[2] = {1, 4}, gv[2] = {1, 2}, bv[2] = {0, 1};
    double want[4], got[4];
    for (int k = 0; k < 4; k++) {
        int c = k / 2;
        double z = (xs[k] - mv[c]) / sqrt(vv[c] + 1e-5) * gv[c] + bv[c];
        want[k] = z / (1 + exp(-2.0 * z));
    }
    rd(&y, got);
    CHECK_VALS("GroupNormSwish", H, got, want, 4);
    EXPECT_T(m, 2, 2);
    EXPECT_T(r, 1 / sqrt(1 + 1e-5), 1 / sqrt(4 + 1e-5));
    DevTensor mh = mk(H, ss, 2, NULL);
    EXPECT_ERR(aclnnGroupNormSwishGetWorkspaceSize(x.tensor, g.tensor, b.tensor, 2, NULL, 1e-5, true, 1.0, y.tensor,
                                                   mh.tensor, r.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGroupNormSwishGetWorkspaceSize", "meanOut", &y);
    EXPECT_ERR(aclnnGroupNormSwishGetWorkspaceSize(x.tensor, NULL, b.tensor, 2, NULL, 1e-5, true, 1.0, y.tensor,
                                                   m.tensor, r.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnGroupNormSwishGetWorkspaceSize", "gamma", &y);
    DevTensor *all[] = {&x, &y, &g, &b, &m, &r, &mh};
    free_all(all, ARRAY_LEN(all));
}

int main(void)
{
    device_init();
    RUN_TEST(test_stats_gather_elemt);
    RUN_TEST(test_reduce_and_sync_gather);
    RUN_TEST(test_group_norm_swish);
    device_teardown();
    return capi_finish();
}
