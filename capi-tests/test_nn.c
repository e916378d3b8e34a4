/*
 * The activation, pooling and loss headers as a CANN program calls them (llama.cpp's CANN
 * back-end first): Elu, LeakyRelu, Softplus, Hardsigmoid, Hardswish, Threshold (in place,
 * as ggml's rope ramp), GeluV2, Celu, Mish, Softshrink, Hardshrink, Swish, FastGelu, Glu,
 * SwiGlu (ggml's 3-D view), GeGlu/GeGluV3 (two outputs),
 * LogSoftmax through aclnn_logsoftmax.h, AvgPool2d and MaxPool on NCHW tensors,
 * SoftmaxCrossEntropyWithLogits, MseLoss and SmoothL1Loss (reductions); expected values computed here in double, errors with
 * their status and message.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_celu.h"
#include "aclnnop/aclnn_fast_gelu.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_hardshrink.h"
#include "aclnnop/aclnn_mish.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_smooth_l1_loss.h"
#include "aclnnop/aclnn_softshrink.h"
#include "aclnnop/aclnn_swish.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "aclnnop/aclnn_threshold.h"

#include <math.h>

#define F ACL_FLOAT
#define PI 3.14159265358979323846

static const double X6[] = {-3.5, -1, -0.25, 0, 0.5, 4};

/* `t`'s values must be f(X6[k]) for its 6 elements. */
static void expect_fn(const DevTensor *t, double (*f)(double, const double *), const double *a)
{
    double got[6], want[6];
    rd(t, got);
    for (int k = 0; k < 6; k++) want[k] = f(X6[k], a);
    CHECK_VALS("activation", t->dtype, got, want, 6);
}

static double elu(double x, const double *a) { return x > 0 ? a[1] * x : a[0] * a[1] * expm1(x * a[2]); }
static double leaky(double x, const double *a) { return x > 0 ? x : a[0] * x; }
static double softplus(double x, const double *a) { return x * a[0] > a[1] ? x : log1p(exp(a[0] * x)) / a[0]; }
static double relu6(double v) { return v < 0 ? 0 : v > 6 ? 6 : v; }
static double hsig(double x, const double *a) { (void)a; return relu6(x + 3) / 6; }
static double hswish(double x, const double *a) { (void)a; return x * relu6(x + 3) / 6; }
static double thresh(double x, const double *a) { return x <= a[0] ? a[1] : x; }
static double gelu(double x, const double *a) { (void)a; return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double gelu_tanh(double x, const double *a)
{
    (void)a;
    return 0.5 * x * (1 + tanh(sqrt(2 / PI) * (x + 0.044715 * x * x * x)));
}
static double silu(double x) { return x / (1 + exp(-x)); }

static void test_pointwise(void)
{
    int64_t s23[] = {2, 3};
    DevTensor x = mk(F, s23, 2, X6), out = mk(F, s23, 2, NULL);
    /* Elu as ggml calls it: alpha, scale and inputScale the same scalar */
    aclScalar *one = sc(F, 1.0), *a = sc(F, 0.5), *s = sc(F, 2.0), *is = sc(F, 1.5);
    RUN2(aclnnEluGetWorkspaceSize(x.tensor, one, one, one, out.tensor, &ews, &eex), aclnnElu);
    expect_fn(&out, elu, V(1, 1, 1));
    RUN2(aclnnEluGetWorkspaceSize(x.tensor, a, s, is, out.tensor, &ews, &eex), aclnnElu);
    expect_fn(&out, elu, V(0.5, 2, 1.5));
    EXPECT_ERR(aclnnEluGetWorkspaceSize(x.tensor, NULL, s, is, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnEluGetWorkspaceSize", "alpha", &out);
    DevTensor y = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceEluGetWorkspaceSize(y.tensor, a, s, is, &ews, &eex), aclnnInplaceElu);
    expect_fn(&y, elu, V(0.5, 2, 1.5));

    aclScalar *slope = sc(F, 0.125);
    RUN2(aclnnLeakyReluGetWorkspaceSize(x.tensor, slope, out.tensor, &ews, &eex), aclnnLeakyRelu);
    expect_fn(&out, leaky, V(0.125));
    DevTensor z = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceLeakyReluGetWorkspaceSize(z.tensor, slope, &ews, &eex), aclnnInplaceLeakyRelu);
    expect_fn(&z, leaky, V(0.125));

    aclScalar *beta = sc(F, 2.0), *thr = sc(F, 3.0);
    RUN2(aclnnSoftplusGetWorkspaceSize(x.tensor, beta, thr, out.tensor, &ews, &eex), aclnnSoftplus);
    expect_fn(&out, softplus, V(2, 3));

    RUN2(aclnnHardsigmoidGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnHardsigmoid);
    expect_fn(&out, hsig, NULL);
    RUN2(aclnnHardswishGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnHardswish);
    expect_fn(&out, hswish, NULL);
    DevTensor w = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceHardswishGetWorkspaceSize(w.tensor, &ews, &eex), aclnnInplaceHardswish);
    expect_fn(&w, hswish, NULL);
    DevTensor v = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceHardsigmoidGetWorkspaceSize(v.tensor, &ews, &eex), aclnnInplaceHardsigmoid);
    expect_fn(&v, hsig, NULL);
    /* Hardsigmoid keeps self's dtype */
    DevTensor h = mk(ACL_FLOAT16, s23, 2, NULL);
    EXPECT_ERR(aclnnHardsigmoidGetWorkspaceSize(x.tensor, h.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnHardsigmoidGetWorkspaceSize", "out", &h);

    /* Threshold in place with zero threshold and value, as ggml's rope ramp does */
    aclScalar *zero = sc(F, 0.0);
    DevTensor u = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceThresholdGetWorkspaceSize(u.tensor, zero, zero, &ews, &eex), aclnnInplaceThreshold);
    expect_fn(&u, thresh, V(0, 0));
    aclScalar *t1 = sc(F, 0.5), *t2 = sc(F, -7);
    RUN2(aclnnThresholdGetWorkspaceSize(x.tensor, t1, t2, out.tensor, &ews, &eex), aclnnThreshold);
    expect_fn(&out, thresh, V(0.5, -7));

    RUN2(aclnnGeluV2GetWorkspaceSize(x.tensor, 0, out.tensor, &ews, &eex), aclnnGeluV2);
    expect_fn(&out, gelu, NULL);
    RUN2(aclnnGeluV2GetWorkspaceSize(x.tensor, 1, out.tensor, &ews, &eex), aclnnGeluV2);
    expect_fn(&out, gelu_tanh, NULL);

    /* a strided view in, the seed view of SEMANTICS section 2 out */
    double *sv = dbl(100);
    for (int k = 0; k < 6; k++) sv[view_pos(k)] = X6[k];
    DevTensor xv = mkv(F, VSTORE, 2, sv, s23, 2, VSTRIDES, VOFF);
    DevTensor ov = mkv(F, VSTORE, 2, NULL, s23, 2, VSTRIDES, VOFF);
    RUN2(aclnnLeakyReluGetWorkspaceSize(xv.tensor, slope, ov.tensor, &ews, &eex), aclnnLeakyRelu);
    double got[100], before[100];
    DevTensor sentinel = mkv(F, VSTORE, 2, NULL, s23, 2, VSTRIDES, VOFF);
    rd(&sentinel, before);
    rd(&ov, got);
    for (int64_t k = 0; k < 100; k++) {
        int64_t lin = -1;
        for (int64_t j = 0; j < 6; j++)
            if (view_pos(j) == k) lin = j;
        if (lin >= 0)
            CHECK(close_to(F, got[k], leaky(X6[lin], V(0.125))));
        else
            CHECK(memcmp(&got[k], &before[k], sizeof(double)) == 0 || (isnan(got[k]) && isnan(before[k])));
    }
    dev_free(&sentinel);
    free(sv);
    for (aclScalar **p = (aclScalar *[]){one, a, s, is, slope, beta, thr, zero, t1, t2, NULL}; *p; p++)
        CHECK_OK(aclDestroyScalar(*p));
    DevTensor *all[] = {&x, &out, &y, &z, &w, &v, &h, &u, &xv, &ov};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static double celu(double x, const double *a) { return x > 0 ? x : a[0] * expm1(x / a[0]); }
static double mish(double x, const double *a) { (void)a; return x * tanh(log1p(exp(x))); }
static double softshrink(double x, const double *a) { return x > a[0] ? x - a[0] : x < -a[0] ? x + a[0] : 0; }
static double hardshrink(double x, const double *a) { return x >= -a[0] && x <= a[0] ? 0 : x; }
static double swish(double x, const double *a) { return x / (1 + exp(-a[0] * x)); }

/* The rest of the activation headers: Celu, Mish, Softshrink, Hardshrink, Swish, FastGelu, Glu. */
static void test_more_activations(void)
{
    int64_t s23[] = {2, 3};
    DevTensor x = mk(F, s23, 2, X6), out = mk(F, s23, 2, NULL), y = mk(F, s23, 2, X6);
    aclScalar *alpha = sc(F, 1.5), *lambd = sc(F, 0.5), *beta = sc(F, 2.0), *zero = sc(F, 0.0);
    RUN2(aclnnCeluGetWorkspaceSize(x.tensor, alpha, out.tensor, &ews, &eex), aclnnCelu);
    expect_fn(&out, celu, V(1.5));
    EXPECT_ERR(aclnnCeluGetWorkspaceSize(x.tensor, zero, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCeluGetWorkspaceSize", "alpha", &out);
    RUN2(aclnnInplaceMishGetWorkspaceSize(y.tensor, &ews, &eex), aclnnInplaceMish);
    expect_fn(&y, mish, NULL);
    RUN2(aclnnSoftshrinkGetWorkspaceSize(x.tensor, lambd, out.tensor, &ews, &eex), aclnnSoftshrink);
    expect_fn(&out, softshrink, V(0.5));
    RUN2(aclnnHardshrinkGetWorkspaceSize(x.tensor, lambd, out.tensor, &ews, &eex), aclnnHardshrink);
    expect_fn(&out, hardshrink, V(0.5));
    RUN2(aclnnSwishGetWorkspaceSize(x.tensor, beta, out.tensor, &ews, &eex), aclnnSwish);
    expect_fn(&out, swish, V(2));
    RUN2(aclnnSwishGetWorkspaceSize(x.tensor, NULL, out.tensor, &ews, &eex), aclnnSwish);
    expect_fn(&out, swish, V(1));
    RUN2(aclnnFastGeluGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnFastGelu);
    expect_fn(&out, swish, V(1.702));
    /* Glu along dim 0: rows A = X6[0..3], B = X6[3..6] */
    int64_t s13[] = {1, 3};
    DevTensor g = mk(F, s13, 2, NULL);
    RUN2(aclnnGluGetWorkspaceSize(x.tensor, 0, g.tensor, &ews, &eex), aclnnGlu);
    double got[3], want[3];
    for (int j = 0; j < 3; j++) want[j] = X6[j] / (1 + exp(-X6[3 + j]));
    rd(&g, got);
    CHECK_VALS("Glu", F, got, want, 3);
    EXPECT_ERR(aclnnGluGetWorkspaceSize(x.tensor, 1, g.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGluGetWorkspaceSize", "self", &g);
    for (aclScalar **p = (aclScalar *[]){alpha, lambd, beta, zero, NULL}; *p; p++) CHECK_OK(aclDestroyScalar(*p));
    dev_free(&x);
    dev_free(&out);
    dev_free(&y);
    dev_free(&g);
}

static void test_gated(void)
{
    /* SwiGlu as ggml calls it: a 3-D view, split along the last dim */
    int64_t s[] = {1, 2, 4}, h[] = {1, 2, 2};
    const double xv[] = {-1, 0.5, 2, -3, 1.5, -0.25, 0.75, 4};
    DevTensor x = mk(F, s, 3, xv), out = mk(F, h, 3, NULL), og = mk(F, h, 3, NULL);
    RUN2(aclnnSwiGluGetWorkspaceSize(x.tensor, 2, out.tensor, &ews, &eex), aclnnSwiGlu);
    double want[4], wg[4], got[4];
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 2; j++) want[r * 2 + j] = silu(xv[r * 4 + j]) * xv[r * 4 + 2 + j];
    rd(&out, got);
    CHECK_VALS("SwiGlu", F, got, want, 4);
    /* GeGluV3 with activateLeft (ggml), tanh: out = gelu(A)·B, outGelu = gelu(A) */
    RUN2(aclnnGeGluV3GetWorkspaceSize(x.tensor, -1, 1, true, out.tensor, og.tensor, &ews, &eex), aclnnGeGluV3);
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 2; j++) {
            wg[r * 2 + j] = gelu_tanh(xv[r * 4 + j], NULL);
            want[r * 2 + j] = wg[r * 2 + j] * xv[r * 4 + 2 + j];
        }
    rd(&out, got);
    CHECK_VALS("GeGluV3 out", F, got, want, 4);
    rd(&og, got);
    CHECK_VALS("GeGluV3 outGelu", F, got, wg, 4);
    /* GeGlu activates the right half: out = A·gelu(B) */
    RUN2(aclnnGeGluGetWorkspaceSize(x.tensor, 2, 0, out.tensor, og.tensor, &ews, &eex), aclnnGeGlu);
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < 2; j++) {
            wg[r * 2 + j] = gelu(xv[r * 4 + 2 + j], NULL);
            want[r * 2 + j] = wg[r * 2 + j] * xv[r * 4 + j];
        }
    rd(&out, got);
    CHECK_VALS("GeGlu out", F, got, want, 4);
    EXPECT_ERR(aclnnGeGluGetWorkspaceSize(x.tensor, 2, 2, out.tensor, og.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGeGluGetWorkspaceSize", "approximate", &out);
    EXPECT_ERR(aclnnSwiGluGetWorkspaceSize(x.tensor, 3, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSwiGluGetWorkspaceSize", "dim", &out);
    EXPECT_ERR(aclnnGeGluGetWorkspaceSize(x.tensor, 2, 0, out.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnGeGluGetWorkspaceSize", "outGelu", &out);
    dev_free(&x);
    dev_free(&out);
    dev_free(&og);
}

static void test_log_softmax(void)
{
    int64_t s23[] = {2, 3};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 1000, 1000, 1000)), out = mk(F, s23, 2, NULL);
    RUN2(aclnnLogSoftmaxGetWorkspaceSize(x.tensor, -1, out.tensor, &ews, &eex), aclnnLogSoftmax);
    double l = log(exp(-2.0) + exp(-1.0) + 1);
    EXPECT_T(out, -2 - l, -1 - l, -l, -log(3.0), -log(3.0), -log(3.0));
    dev_free(&x);
    dev_free(&out);
}

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

static void test_pooling(void)
{
    /* AvgPool2d as ggml calls it: NCHW, kernel (2, 2), stride (2, 2), padding (1, 0),
       count_include_pad, no ceil mode, no divisor */
    int64_t s[] = {1, 1, 3, 4}, so[] = {1, 1, 2, 2};
    double xv[12];
    for (int k = 0; k < 12; k++) xv[k] = k;
    DevTensor x = mk_fmt(F, s, 4, xv, ACL_FORMAT_NCHW), out = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW);
    int64_t k2[] = {2, 2}, st[] = {2, 2}, pd[] = {1, 0};
    aclIntArray *ks = aclCreateIntArray(k2, 2), *ss = aclCreateIntArray(st, 2), *ps = aclCreateIntArray(pd, 2);
    RUN2(aclnnAvgPool2dGetWorkspaceSize(x.tensor, ks, ss, ps, false, true, 0, 0, out.tensor, &ews, &eex),
         aclnnAvgPool2d);
    /* windows rows {-1, 0} and {1, 2}, cols {0, 1} and {2, 3}; the padded row counts */
    EXPECT_T(out, (0 + 1) / 4.0, (2 + 3) / 4.0, (4 + 5 + 8 + 9) / 4.0, (6 + 7 + 10 + 11) / 4.0);
    /* without the padding in the count, and with a divisor */
    RUN2(aclnnAvgPool2dGetWorkspaceSize(x.tensor, ks, ss, ps, false, false, 0, 0, out.tensor, &ews, &eex),
         aclnnAvgPool2d);
    EXPECT_T(out, 0.5, 2.5, 6.5, 8.5);
    RUN2(aclnnAvgPool2dGetWorkspaceSize(x.tensor, ks, ss, ps, false, true, 3, 0, out.tensor, &ews, &eex),
         aclnnAvgPool2d);
    EXPECT_T(out, 1 / 3.0, 5 / 3.0, 26 / 3.0, 34 / 3.0);
    DevTensor nd = mk(F, so, 4, NULL);
    EXPECT_ERR(aclnnAvgPool2dGetWorkspaceSize(x.tensor, ks, ss, ps, false, true, 0, 0, nd.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAvgPool2dGetWorkspaceSize", "out", &nd);

    /* MaxPool as ggml calls it: pads {0, 0, 0, 0}, dilations {1, 1}, ceil mode 0 */
    int64_t p4[] = {0, 0, 0, 0}, d2[] = {1, 1}, so2[] = {1, 1, 1, 2};
    aclIntArray *pads = aclCreateIntArray(p4, 4), *dil = aclCreateIntArray(d2, 2);
    DevTensor mo = mk_fmt(F, so2, 4, NULL, ACL_FORMAT_NCHW);
    RUN2(aclnnMaxPoolGetWorkspaceSize(x.tensor, ks, ss, 0, pads, dil, 0, mo.tensor, &ews, &eex), aclnnMaxPool);
    EXPECT_T(mo, 5, 7);
    /* ceil mode: a second row of windows starting inside the input */
    DevTensor mo2 = mk_fmt(F, so, 4, NULL, ACL_FORMAT_NCHW);
    RUN2(aclnnMaxPoolGetWorkspaceSize(x.tensor, ks, ss, 0, pads, dil, 1, mo2.tensor, &ews, &eex), aclnnMaxPool);
    EXPECT_T(mo2, 5, 7, 9, 11);
    int64_t d22[] = {2, 2};
    aclIntArray *dil2 = aclCreateIntArray(d22, 2);
    EXPECT_ERR(aclnnMaxPoolGetWorkspaceSize(x.tensor, ks, ss, 0, pads, dil2, 0, mo.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPoolGetWorkspaceSize", "dilations", &mo);
    EXPECT_ERR(aclnnMaxPoolGetWorkspaceSize(x.tensor, ks, ss, 1, pads, dil, 0, mo.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaxPoolGetWorkspaceSize", "autoPad", &mo);
    EXPECT_ERR(aclnnMaxPoolGetWorkspaceSize(x.tensor, NULL, ss, 0, pads, dil, 0, mo.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnMaxPoolGetWorkspaceSize", "kernelShape", &mo);
    for (aclIntArray **p = (aclIntArray *[]){ks, ss, ps, pads, dil, dil2, NULL}; *p; p++)
        CHECK_OK(aclDestroyIntArray(*p));
    dev_free(&x);
    dev_free(&out);
    dev_free(&nd);
    dev_free(&mo);
    dev_free(&mo2);
}

static void test_softmax_cross_entropy(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2};
    const double xv[] = {1, 2, 3, 100, 0, -100}, yv[] = {0, 0, 1, 0.5, 0.5, 0};
    DevTensor x = mk(F, s23, 2, xv), y = mk(F, s23, 2, yv), loss = mk(F, s2, 1, NULL), bp = mk(F, s23, 2, NULL);
    RUN2(aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(x.tensor, y.tensor, loss.tensor, bp.tensor, &ews, &eex),
         aclnnSoftmaxCrossEntropyWithLogits);
    double wl[2], wb[6], got[6];
    for (int n = 0; n < 2; n++) {
        const double *r = xv + 3 * n, *l = yv + 3 * n;
        double m = fmax(r[0], fmax(r[1], r[2]));
        double lse = m + log(exp(r[0] - m) + exp(r[1] - m) + exp(r[2] - m));
        wl[n] = 0;
        for (int j = 0; j < 3; j++) {
            wl[n] -= l[j] * (r[j] - lse);
            wb[3 * n + j] = exp(r[j] - lse) - l[j];
        }
    }
    rd(&loss, got);
    CHECK_VALS("loss", F, got, wl, 2);
    rd(&bp, got);
    CHECK_VALS("backprop", F, got, wb, 6);
    EXPECT_ERR(aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(x.tensor, y.tensor, bp.tensor, bp.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize", "loss", NULL);
    dev_free(&x);
    dev_free(&y);
    dev_free(&loss);
    dev_free(&bp);
}

static void test_elementwise_losses(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), y = mk(F, s3, 1, V(0, 2, 5));
    DevTensor none = mk(F, s23, 2, NULL), r = mk(F, NULL, 0, NULL);
    RUN2(aclnnMseLossGetWorkspaceSize(x.tensor, y.tensor, 0, none.tensor, &ews, &eex), aclnnMseLoss);
    EXPECT_T(none, 1, 0, 4, 16, 9, 1);
    RUN2(aclnnMseLossGetWorkspaceSize(x.tensor, y.tensor, 1, r.tensor, &ews, &eex), aclnnMseLoss);
    EXPECT_T(r, 31 / 6.0);
    RUN2(aclnnMseLossGetWorkspaceSize(x.tensor, y.tensor, 2, r.tensor, &ews, &eex), aclnnMseLoss);
    EXPECT_T(r, 31);
    /* smooth L1 with beta 1: d = 1, 0, 2, 4, 3, 1 -> 0.5, 0, 1.5, 3.5, 2.5, 0.5 */
    RUN2(aclnnSmoothL1LossGetWorkspaceSize(x.tensor, y.tensor, 2, 1.0f, r.tensor, &ews, &eex), aclnnSmoothL1Loss);
    EXPECT_T(r, 8.5);
    EXPECT_ERR(aclnnMseLossGetWorkspaceSize(x.tensor, y.tensor, 3, r.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossGetWorkspaceSize", "reduction", &r);
    EXPECT_ERR(aclnnSmoothL1LossGetWorkspaceSize(x.tensor, y.tensor, 1, 1.0f, none.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnSmoothL1LossGetWorkspaceSize", "result", &none);
    dev_free(&x);
    dev_free(&y);
    dev_free(&none);
    dev_free(&r);
}

int main(void)
{
    device_init();
    RUN_TEST(test_pointwise);
    RUN_TEST(test_more_activations);
    RUN_TEST(test_gated);
    RUN_TEST(test_log_softmax);
    RUN_TEST(test_pooling);
    RUN_TEST(test_softmax_cross_entropy);
    RUN_TEST(test_elementwise_losses);
    device_teardown();
    return capi_finish();
}
