/*
 * The random operators as a CANN user calls them: InplaceUniform, InplaceNormal(Tensor), the
 * Normal out forms, (Inplace)Bernoulli, InplaceRandom, Randperm, Multinomial, the dropout
 * family (GenMask, DoMask, Dropout, DropoutV3, DropoutBackward, DropoutV3Grad). Checked:
 * ranges, moments and densities at fixed seeds, determinism (same seed and offset, same
 * bytes), the documented mask layout (align(n, 128) / 8 bytes, element i in bit i % 8 of
 * byte i / 8), and the phase-1 errors.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_bernoulli.h"
#include "aclnnop/aclnn_dropout.h"
#include "aclnnop/aclnn_dropout_backward.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "aclnnop/aclnn_dropout_v3.h"
#include "aclnnop/aclnn_dropout_v3_grad.h"
#include "aclnnop/aclnn_multinomial.h"
#include "aclnnop/aclnn_normal.h"
#include "aclnnop/aclnn_normal_out.h"
#include "aclnnop/aclnn_random.h"
#include "aclnnop/aclnn_randperm.h"
#include "aclnnop/aclnn_set_pytorch_random.h"
#include "aclnnop/aclnn_uniform.h"

#include <math.h>
#include <string.h>

#define F ACL_FLOAT
#define N 10000

static double *values(const DevTensor *t)
{
    double *v = dbl(t->numel);
    rd(t, v);
    return v;
}

static void moments(const double *v, int64_t n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    *mean = s / n;
    for (int64_t i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
    *sd = sqrt(q / n);
}

static void test_uniform_and_normal(void)
{
    int64_t s[] = {100, 100};
    DevTensor a = mk(F, s, 2, NULL), b = mk(F, s, 2, NULL);
    RUN2(aclnnInplaceUniformGetWorkspaceSize(a.tensor, -2.0, 6.0, 42, 0, &ews, &eex), aclnnInplaceUniform);
    double *v = values(&a), m, sd;
    for (int i = 0; i < N; i++) CHECK(v[i] >= -2.0 && v[i] < 6.0);
    moments(v, N, &m, &sd);
    CHECK(fabs(m - 2.0) < 0.1 && fabs(sd - 8.0 / sqrt(12.0)) < 0.05);
    /* the same seed and offset: the same bits */
    RUN2(aclnnInplaceUniformGetWorkspaceSize(b.tensor, -2.0, 6.0, 42, 0, &ews, &eex), aclnnInplaceUniform);
    double *w = values(&b);
    CHECK(memcmp(v, w, N * sizeof(double)) == 0);
    free(v);
    free(w);
    EXPECT_ERR(aclnnInplaceUniformGetWorkspaceSize(a.tensor, 3.0, 1.0, 42, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceUniformGetWorkspaceSize", "from", NULL);

    RUN2(aclnnInplaceNormalGetWorkspaceSize(a.tensor, 1.0f, 3.0f, 7, 0, &ews, &eex), aclnnInplaceNormal);
    v = values(&a);
    moments(v, N, &m, &sd);
    CHECK(fabs(m - 1.0) < 0.15 && fabs(sd - 3.0) < 0.1);
    free(v);
    EXPECT_ERR(aclnnInplaceNormalGetWorkspaceSize(a.tensor, 0.0f, -1.0f, 7, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceNormalGetWorkspaceSize", "std", NULL);
    EXPECT_ERR(aclnnInplaceNormalGetWorkspaceSize(NULL, 0.0f, 1.0f, 7, 0, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceNormalGetWorkspaceSize", NULL, NULL);

    /* the tensor form: seed and offset (offsetTensor + offset) read from the device */
    int64_t one[] = {1}, seed = 7, off = -4;
    DevTensor st = dev_tensor(&seed, ACL_INT64, one, 1), ot = dev_tensor(&off, ACL_INT64, one, 1);
    RUN2(aclnnInplaceNormalTensorGetWorkspaceSize(b.tensor, 1.0f, 3.0f, st.tensor, ot.tensor, 4, &ews, &eex),
         aclnnInplaceNormalTensor);
    v = values(&a);
    w = values(&b);
    CHECK(memcmp(v, w, N * sizeof(double)) == 0);
    free(v);
    free(w);

    /* NormalTensorTensor: a row of means, a column of stds */
    int64_t sm[] = {1, 4}, ss[] = {2000, 1}, so[] = {2000, 4};
    double *sv = dbl(2000);
    for (int i = 0; i < 2000; i++) sv[i] = 0.5;
    DevTensor mean = mk(F, sm, 2, V(-10, 0, 10, 20)), std = mk(F, ss, 2, sv), out = mk(F, so, 2, NULL);
    RUN2(aclnnNormalTensorTensorGetWorkspaceSize(mean.tensor, std.tensor, 3, 0, out.tensor, &ews, &eex),
         aclnnNormalTensorTensor);
    v = values(&out);
    for (int c = 0; c < 4; c++) {
        double col[2000];
        for (int r = 0; r < 2000; r++) col[r] = v[r * 4 + c];
        moments(col, 2000, &m, &sd);
        CHECK(fabs(m - (c * 10 - 10)) < 0.06 && fabs(sd - 0.5) < 0.04);
    }
    free(v);
    free(sv);
    RUN2(aclnnNormalFloatFloatGetWorkspaceSize(5.0f, 0.0f, 3, 0, out.tensor, &ews, &eex), aclnnNormalFloatFloat);
    v = values(&out);
    for (int i = 0; i < 8000; i++) CHECK(v[i] == 5.0);
    free(v);
    dev_free(&a);
    dev_free(&b);
    dev_free(&st);
    dev_free(&ot);
    dev_free(&mean);
    dev_free(&std);
    dev_free(&out);
}

static void test_bernoulli_random_randperm(void)
{
    int64_t s[] = {N};
    DevTensor a = mk(ACL_INT32, s, 1, NULL), o = mk(ACL_INT32, s, 1, NULL);
    aclScalar *p = scalar_f32(0.25f);
    RUN2(aclnnBernoulliGetWorkspaceSize(a.tensor, p, 1, 0, o.tensor, &ews, &eex), aclnnBernoulli);
    double *v = values(&o);
    int ones = 0;
    for (int i = 0; i < N; i++) {
        CHECK(v[i] == 0 || v[i] == 1);
        ones += v[i] == 1;
    }
    CHECK(abs(ones - N / 4) < 200);
    free(v);
    EXPECT_ERR(aclnnInplaceBernoulliGetWorkspaceSize(a.tensor, p, 1, 3, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceBernoulliGetWorkspaceSize", "offset", NULL);
    aclDestroyScalar(p);

    RUN2(aclnnInplaceRandomGetWorkspaceSize(a.tensor, -3, 4, 9, 0, &ews, &eex), aclnnInplaceRandom);
    v = values(&a);
    int counts[7] = {0};
    for (int i = 0; i < N; i++) {
        CHECK(v[i] >= -3 && v[i] < 4);
        counts[(int)v[i] + 3]++;
    }
    for (int k = 0; k < 7; k++) CHECK(abs(counts[k] - N / 7) < 200);
    free(v);
    EXPECT_ERR(aclnnInplaceRandomGetWorkspaceSize(a.tensor, 4, 4, 9, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceRandomGetWorkspaceSize", "from", NULL);

    int64_t s50[] = {50};
    DevTensor perm = mk(ACL_INT64, s50, 1, NULL);
    RUN2(aclnnRandpermGetWorkspaceSize(50, 5, 0, perm.tensor, &ews, &eex), aclnnRandperm);
    v = values(&perm);
    int seen[50] = {0};
    for (int i = 0; i < 50; i++) {
        CHECK(v[i] >= 0 && v[i] < 50);
        seen[(int)v[i]]++;
    }
    for (int i = 0; i < 50; i++) CHECK(seen[i] == 1);
    free(v);
    EXPECT_ERR(aclnnRandpermGetWorkspaceSize(49, 5, 0, perm.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnRandpermGetWorkspaceSize", "out", NULL);

    /* Multinomial without replacement: each row's two non-zero categories, once each */
    int64_t sw[] = {3, 4}, sd[] = {3, 2};
    DevTensor wts = mk(F, sw, 2, V(0, 1, 0, 2, 5, 0, 5, 0, 1, 1, 0, 0)), idx = mk(ACL_INT64, sd, 2, NULL);
    RUN2(aclnnMultinomialGetWorkspaceSize(wts.tensor, 2, false, 11, 0, idx.tensor, &ews, &eex), aclnnMultinomial);
    v = values(&idx);
    CHECK((v[0] == 1 && v[1] == 3) || (v[0] == 3 && v[1] == 1));
    CHECK((v[2] == 0 && v[3] == 2) || (v[2] == 2 && v[3] == 0));
    CHECK((v[4] == 0 && v[5] == 1) || (v[4] == 1 && v[5] == 0));
    free(v);
    EXPECT_ERR(aclnnMultinomialGetWorkspaceSize(wts.tensor, 5, false, 11, 0, idx.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMultinomialGetWorkspaceSize", "numsamples", NULL);
    dev_free(&a);
    dev_free(&o);
    dev_free(&perm);
    dev_free(&wts);
    dev_free(&idx);
}

static int bit_of(const uint8_t *m, int64_t i) { return (m[i / 8] >> (i % 8)) & 1; }

static void test_dropout(void)
{
    /* 1111 elements: a mask of align(1111, 128) / 8 = 144 bytes */
    int64_t s[] = {11, 101}, sm[] = {144};
    double *xv = dbl(1111);
    for (int i = 0; i < 1111; i++) xv[i] = (i % 13) - 6;
    DevTensor x = mk(F, s, 2, xv), out = mk(F, s, 2, NULL), mask = mk(ACL_UINT8, sm, 1, NULL);
    aclIntArray *shape = aclCreateIntArray(s, 2);
    RUN2(aclnnDropoutGenMaskGetWorkspaceSize(shape, 0.4, 3, 0, mask.tensor, &ews, &eex), aclnnDropoutGenMask);
    uint8_t m[144];
    dev_read(&mask, m);
    int kept = 0;
    for (int i = 0; i < 144 * 8; i++) kept += bit_of(m, i);
    CHECK(abs(kept - (int)(0.6 * 1152)) < 80);
    RUN2(aclnnDropoutDoMaskGetWorkspaceSize(x.tensor, mask.tensor, 0.4, out.tensor, &ews, &eex), aclnnDropoutDoMask);
    double *v = values(&out);
    for (int i = 0; i < 1111; i++) CHECK(v[i] == (double)((float)xv[i] * bit_of(m, i) * (float)(1.0 / 0.6)));
    free(v);
    /* DropoutBackward with scale 1/(1-p) gives the same */
    DevTensor g = mk(F, s, 2, NULL);
    RUN2(aclnnDropoutBackwardGetWorkspaceSize(x.tensor, mask.tensor, 1.0 / 0.6, g.tensor, &ews, &eex),
         aclnnDropoutBackward);
    double *gv = values(&g);
    v = values(&out);
    CHECK(memcmp(v, gv, 1111 * sizeof(double)) == 0);
    free(gv);
    RUN2(aclnnDropoutV3GradGetWorkspaceSize(x.tensor, mask.tensor, 1.0 / 0.6, g.tensor, &ews, &eex),
         aclnnDropoutV3Grad);
    gv = values(&g);
    CHECK(memcmp(v, gv, 1111 * sizeof(double)) == 0);
    free(gv);
    free(v);
    /* Dropout draws the mask GenMask draws for the same seed and offset, and applies it */
    DevTensor m2 = mk(ACL_UINT8, sm, 1, NULL), o2 = mk(F, s, 2, NULL);
    RUN2(aclnnDropoutGetWorkspaceSize(x.tensor, 0.4, true, 3, 0, o2.tensor, m2.tensor, &ews, &eex), aclnnDropout);
    uint8_t mm[144];
    dev_read(&m2, mm);
    CHECK(memcmp(m, mm, 144) == 0);
    v = values(&out);
    double *v2 = values(&o2);
    CHECK(memcmp(v, v2, 1111 * sizeof(double)) == 0);
    free(v2);
    /* DropoutV3 (offset % 4 == 0), and train = false: out = input, maskOut untouched */
    RUN2(aclnnDropoutV3GetWorkspaceSize(x.tensor, NULL, 0.4, 3, 0, o2.tensor, m2.tensor, &ews, &eex), aclnnDropoutV3);
    v2 = values(&o2);
    CHECK(memcmp(v, v2, 1111 * sizeof(double)) == 0);
    free(v2);
    free(v);
    dev_fill_bytes(&m2, SENT);
    RUN2(aclnnDropoutGetWorkspaceSize(x.tensor, 0.4, false, 3, 0, o2.tensor, m2.tensor, &ews, &eex), aclnnDropout);
    v2 = values(&o2);
    for (int i = 0; i < 1111; i++) CHECK(v2[i] == xv[i]);
    free(v2);
    check_untouched_at(__FILE__, __LINE__, &m2);
    /* errors */
    int64_t bad[] = {143};
    DevTensor short_mask = mk(ACL_UINT8, bad, 1, NULL);
    EXPECT_ERR(aclnnDropoutGetWorkspaceSize(x.tensor, 0.4, true, 3, 0, o2.tensor, short_mask.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDropoutGetWorkspaceSize", "maskOut", NULL);
    EXPECT_ERR(aclnnDropoutV3GetWorkspaceSize(x.tensor, NULL, 0.4, 3, 2, o2.tensor, m2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDropoutV3GetWorkspaceSize", "offset", NULL);
    EXPECT_ERR(aclnnDropoutGenMaskGetWorkspaceSize(shape, 1.5, 3, 0, mask.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDropoutGenMaskGetWorkspaceSize", "prob", NULL);
    EXPECT_ERR(aclnnDropoutBackwardGetWorkspaceSize(x.tensor, mask.tensor, 0.5, g.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDropoutBackwardGetWorkspaceSize", "scale", NULL);
    EXPECT_ERR(aclnnDropoutDoMaskGetWorkspaceSize(x.tensor, NULL, 0.4, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnDropoutDoMaskGetWorkspaceSize", NULL, NULL);
    CHECK_OK(aclDestroyIntArray(shape));
    free(xv);
    dev_free(&x);
    dev_free(&out);
    dev_free(&mask);
    dev_free(&g);
    dev_free(&m2);
    dev_free(&o2);
    dev_free(&short_mask);
}

/* The random mode: 0 until set, 0 or 1 only. */
static void test_set_pytorch_random(void)
{
    CHECK(aclnnGetPytorchRandom() == 0);
    CHECK_OK(aclnnSetPytorchRandom(1));
    CHECK(aclnnGetPytorchRandom() == 1);
    CHECK_STATUS(aclnnSetPytorchRandom(7), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("pytorchRandom");
    CHECK(aclnnGetPytorchRandom() == 1);
    CHECK_OK(aclnnSetPytorchRandom(0));
    CHECK(aclnnGetPytorchRandom() == 0);
}

int main(void)
{
    device_init();
    RUN_TEST(test_uniform_and_normal);
    RUN_TEST(test_bernoulli_random_randperm);
    RUN_TEST(test_dropout);
    RUN_TEST(test_set_pytorch_random);
    device_teardown();
    return capi_finish();
}
