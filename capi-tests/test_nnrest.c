/*
 * The rest of the neural-network headers (issue 18) as a CANN program calls them:
 * Selu, AddRelu, Erfinv, Heaviside, LogSigmoid(Forward), RReluWithNoise (inference),
 * Shrink, Hardtanh, FatreluMul (activations); Logit, MseLossOut, L1Loss, SoftMarginLoss,
 * KlDiv, BinaryCrossEntropy, BinaryCrossEntropyWithLogits, NLLLoss, NLLLoss2d (losses). Expected values are
 * computed here in double; errors are checked with their status and message.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_add_relu.h"
#include "aclnnop/aclnn_binary_cross_entropy.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_erfinv.h"
#include "aclnnop/aclnn_fatrelu_mul.h"
#include "aclnnop/aclnn_hardtanh.h"
#include "aclnnop/aclnn_heaviside.h"
#include "aclnnop/aclnn_kl_div.h"
#include "aclnnop/aclnn_l1_loss.h"
#include "aclnnop/aclnn_logit.h"
#include "aclnnop/aclnn_logsigmoid.h"
#include "aclnnop/aclnn_mse_loss_out.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss2d.h"
#include "aclnnop/aclnn_rrelu_with_noise.h"
#include "aclnnop/aclnn_selu.h"
#include "aclnnop/aclnn_shrink.h"
#include "aclnnop/aclnn_soft_margin_loss.h"

#include <math.h>

#define F ACL_FLOAT

static const double X6[] = {-3.5, -1, -0.25, 0, 0.5, 4};
static const double SELU_A = 1.6732632423543772848170429916717;
static const double SELU_S = 1.0507009873554804934193349852946;

static double selu(double x) { return x > 0 ? SELU_S * x : SELU_S * SELU_A * expm1(x); }

static void test_activations(void)
{
    int64_t s23[] = {2, 3};
    DevTensor x = mk(F, s23, 2, X6), out = mk(F, s23, 2, NULL);
    double got[6], want[6];

    /* Selu on a strided view (every other element of a 2x6 storage, offset 1) */
    int64_t st[] = {2, 6}, vs[] = {2, 3}, vst[] = {6, 2};
    double sv[12];
    for (int k = 0; k < 12; k++) sv[k] = k % 2 ? X6[k / 2] : 99;
    DevTensor xv = mkv(F, st, 2, sv, vs, 2, vst, 1);
    RUN2(aclnnSeluGetWorkspaceSize(xv.tensor, out.tensor, &ews, &eex), aclnnSelu);
    for (int k = 0; k < 6; k++) want[k] = selu(X6[k]);
    rd(&out, got);
    CHECK_VALS("Selu", F, got, want, 6);
    DevTensor y = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceSeluGetWorkspaceSize(y.tensor, &ews, &eex), aclnnInplaceSelu);
    rd(&y, got);
    CHECK_VALS("InplaceSelu", F, got, want, 6);
    DevTensor i64 = mk(ACL_INT64, s23, 2, NULL);
    EXPECT_ERR(aclnnSeluGetWorkspaceSize(i64.tensor, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSeluGetWorkspaceSize", "self", &out);

    /* AddRelu: other (3) broadcasts over self (2, 3), alpha 2 */
    int64_t s3[] = {3};
    DevTensor o3 = mk(F, s3, 1, V(1, -1, 0.5));
    aclScalar *two = sc(F, 2.0), *half = sc(F, 0.5), *one = sc(F, 1.0), *neg = sc(F, -1.0);
    RUN2(aclnnAddReluGetWorkspaceSize(x.tensor, o3.tensor, two, out.tensor, &ews, &eex), aclnnAddRelu);
    for (int k = 0; k < 6; k++) want[k] = fmax(X6[k] + 2 * ((double[]){1, -1, 0.5})[k % 3], 0);
    rd(&out, got);
    CHECK_VALS("AddRelu", F, got, want, 6);
    DevTensor z = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceAddReluGetWorkspaceSize(z.tensor, o3.tensor, two, &ews, &eex), aclnnInplaceAddRelu);
    rd(&z, got);
    CHECK_VALS("InplaceAddRelu", F, got, want, 6);
    EXPECT_ERR(aclnnAddReluGetWorkspaceSize(x.tensor, o3.tensor, NULL, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnAddReluGetWorkspaceSize", "alpha", &out);

    /* Erfinv and its in-place form */
    DevTensor e = mk(F, s23, 2, V(-1, -0.5, 0, 0.25, 0.9, 1)), eo = mk(F, s23, 2, NULL);
    RUN2(aclnnErfinvGetWorkspaceSize(e.tensor, eo.tensor, &ews, &eex), aclnnErfinv);
    rd(&eo, got);
    CHECK(got[0] == -INFINITY && got[5] == INFINITY && got[2] == 0);
    for (int k = 1; k < 5; k++) CHECK(fabs(erf(got[k]) - ((double[]){-1, -0.5, 0, 0.25, 0.9, 1})[k]) < 1e-6);
    RUN2(aclnnInplaceErfinvGetWorkspaceSize(e.tensor, &ews, &eex), aclnnInplaceErfinv);
    double g2[6];
    rd(&e, g2);
    CHECK_VALS("InplaceErfinv", F, g2, got, 6);

    /* Heaviside: values where input is 0 */
    DevTensor hv = mk(F, s3, 1, V(0.5, 7, -2));
    DevTensor hx = mk(F, s23, 2, V(-1, 0, 2, 0, -0.0, 3));
    RUN2(aclnnHeavisideGetWorkspaceSize(hx.tensor, hv.tensor, out.tensor, &ews, &eex), aclnnHeaviside);
    EXPECT_T(out, 0, 7, 1, 0.5, 7, 1);

    /* LogSigmoid and LogSigmoidForward (buffer not written) */
    RUN2(aclnnLogSigmoidGetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnLogSigmoid);
    for (int k = 0; k < 6; k++) want[k] = -log1p(exp(-X6[k]));
    rd(&out, got);
    CHECK_VALS("LogSigmoid", F, got, want, 6);
    DevTensor buf = mk(F, s23, 2, NULL);
    RUN2(aclnnLogSigmoidForwardGetWorkspaceSize(x.tensor, out.tensor, buf.tensor, &ews, &eex),
         aclnnLogSigmoidForward);
    rd(&out, got);
    CHECK_VALS("LogSigmoidForward", F, got, want, 6);

    /* RReluWithNoise, inference: slope (lower + upper)/2; training is not implemented */
    DevTensor noise = mk(F, s23, 2, NULL);
    aclScalar *lo = sc(F, 0.125), *hi = sc(F, 0.375);
    RUN2(aclnnRReluWithNoiseGetWorkspaceSize(x.tensor, noise.tensor, lo, hi, false, 0, 0, out.tensor, &ews, &eex),
         aclnnRReluWithNoise);
    for (int k = 0; k < 6; k++) want[k] = X6[k] > 0 ? X6[k] : 0.25 * X6[k];
    rd(&out, got);
    CHECK_VALS("RReluWithNoise", F, got, want, 6);
    DevTensor r = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceRReluWithNoiseGetWorkspaceSize(r.tensor, noise.tensor, lo, hi, false, 0, 0, &ews, &eex),
         aclnnInplaceRReluWithNoise);
    rd(&r, got);
    CHECK_VALS("InplaceRReluWithNoise", F, got, want, 6);
    EXPECT_ERR(aclnnRReluWithNoiseGetWorkspaceSize(x.tensor, noise.tensor, lo, hi, true, 0, 0, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRReluWithNoiseGetWorkspaceSize", "training", &out);

    /* Shrink: lambd 0.5, bias 0.25 */
    aclScalar *bias = sc(F, 0.25);
    RUN2(aclnnShrinkGetWorkspaceSize(x.tensor, half, bias, out.tensor, &ews, &eex), aclnnShrink);
    EXPECT_T(out, -3.25, -0.75, 0, 0, 0, 3.75);
    EXPECT_ERR(aclnnShrinkGetWorkspaceSize(x.tensor, neg, half, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnShrinkGetWorkspaceSize", "lambd", &out);

    /* Hardtanh and its in-place form: [-1, 0.5] */
    RUN2(aclnnHardtanhGetWorkspaceSize(x.tensor, neg, half, out.tensor, &ews, &eex), aclnnHardtanh);
    EXPECT_T(out, -1, -1, -0.25, 0, 0.5, 0.5);
    DevTensor h = mk(F, s23, 2, X6);
    RUN2(aclnnInplaceHardtanhGetWorkspaceSize(h.tensor, neg, half, &ews, &eex), aclnnInplaceHardtanh);
    EXPECT_T(h, -1, -1, -0.25, 0, 0.5, 0.5);
    EXPECT_ERR(aclnnHardtanhGetWorkspaceSize(x.tensor, half, neg, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnHardtanhGetWorkspaceSize", "clipValueMin", &out);

    /* FatreluMul: (x1 > t ? x1 : 0)·x2 over the halves of the last dim, t = 0.5 */
    int64_t s24[] = {2, 4}, s22[] = {2, 2}, s1[] = {1};
    DevTensor fx = mk(F, s24, 2, V(0.25, 1, 2, 3, 0.75, -4, 5, 6)), fo = mk(F, s22, 2, NULL);
    DevTensor th = mk(F, s1, 1, V(0.5));
    RUN2(aclnnFatreluMulGetWorkspaceSize(fx.tensor, th.tensor, fo.tensor, &ews, &eex), aclnnFatreluMul);
    EXPECT_T(fo, 0, 3, 3.75, 0);
    EXPECT_ERR(aclnnFatreluMulGetWorkspaceSize(fx.tensor, NULL, fo.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnFatreluMulGetWorkspaceSize", "threshold", &fo);

    for (aclScalar **p = (aclScalar *[]){two, half, one, neg, lo, hi, bias, NULL}; *p; p++) CHECK_OK(aclDestroyScalar(*p));
    DevTensor *all[] = {&x, &out, &xv, &y, &i64, &o3, &z, &e, &eo, &hv, &hx, &buf, &noise, &r, &h, &fx, &fo, &th};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static void test_losses(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s1[] = {1};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), y = mk(F, s3, 1, V(0, 2, 5));
    DevTensor none = mk(F, s23, 2, NULL), r = mk(F, NULL, 0, NULL), r3 = mk(F, s3, 1, NULL), r1 = mk(F, s1, 1, NULL);
    /* MseLossOut: mean/sum over dim 0 only: d² = 1 0 4 / 16 9 1 */
    RUN2(aclnnMseLossOutGetWorkspaceSize(x.tensor, y.tensor, 1, r3.tensor, &ews, &eex), aclnnMseLossOut);
    EXPECT_T(r3, 8.5, 4.5, 2.5);
    RUN2(aclnnMseLossOutGetWorkspaceSize(x.tensor, y.tensor, 2, r3.tensor, &ews, &eex), aclnnMseLossOut);
    EXPECT_T(r3, 17, 9, 5);
    RUN2(aclnnMseLossOutGetWorkspaceSize(x.tensor, y.tensor, 0, none.tensor, &ews, &eex), aclnnMseLossOut);
    EXPECT_T(none, 1, 0, 4, 16, 9, 1);
    /* L1Loss: |d| = 1 0 2 / 4 3 1 */
    RUN2(aclnnL1LossGetWorkspaceSize(x.tensor, y.tensor, 1, r.tensor, &ews, &eex), aclnnL1Loss);
    EXPECT_T(r, 11 / 6.0);
    RUN2(aclnnL1LossGetWorkspaceSize(x.tensor, y.tensor, 0, none.tensor, &ews, &eex), aclnnL1Loss);
    EXPECT_T(none, 1, 0, 2, 4, 3, 1);
    EXPECT_ERR(aclnnL1LossGetWorkspaceSize(x.tensor, y.tensor, 1, r1.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnL1LossGetWorkspaceSize", "out", &r1);
    /* SoftMarginLoss with targets ±1 */
    DevTensor t = mk(F, s3, 1, V(1, -1, 1));
    RUN2(aclnnSoftMarginLossGetWorkspaceSize(x.tensor, t.tensor, 2, r.tensor, &ews, &eex), aclnnSoftMarginLoss);
    double want = 0;
    for (int k = 0; k < 6; k++) want += log1p(exp(-((double[]){1, -1, 1})[k % 3] * (k + 1)));
    double got;
    rd(&r, &got);
    CHECK_VALS("SoftMarginLoss", F, &got, &want, 1);
    /* KlDiv: plain targets, batchmean (sum / 2); a [1] out */
    DevTensor p = mk(F, s23, 2, V(-1, -2, -0.5, -1.5, -3, -0.25)), q = mk(F, s23, 2, V(0.25, 0.5, 0.25, 0.125, 0.75, 0.125));
    RUN2(aclnnKlDivGetWorkspaceSize(p.tensor, q.tensor, 3, false, r1.tensor, &ews, &eex), aclnnKlDiv);
    const double pv[] = {-1, -2, -0.5, -1.5, -3, -0.25}, qv[] = {0.25, 0.5, 0.25, 0.125, 0.75, 0.125};
    want = 0;
    for (int k = 0; k < 6; k++) want += qv[k] * (log(qv[k]) - pv[k]);
    want /= 2;
    rd(&r1, &got);
    CHECK_VALS("KlDiv", F, &got, &want, 1);
    EXPECT_ERR(aclnnKlDivGetWorkspaceSize(p.tensor, q.tensor, 4, false, r1.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnKlDivGetWorkspaceSize", "reduction", &r1);
    /* BinaryCrossEntropy with a weight row, mean */
    DevTensor w = mk(F, s3, 1, V(1, 2, 0.5));
    RUN2(aclnnBinaryCrossEntropyGetWorkspaceSize(q.tensor, q.tensor, w.tensor, 1, r.tensor, &ews, &eex),
         aclnnBinaryCrossEntropy);
    want = 0;
    for (int k = 0; k < 6; k++) want -= ((double[]){1, 2, 0.5})[k % 3] * (qv[k] * log(qv[k]) + (1 - qv[k]) * log1p(-qv[k]));
    want /= 6;
    rd(&r, &got);
    CHECK_VALS("BinaryCrossEntropy", F, &got, &want, 1);
    /* BinaryCrossEntropy without a weight, none */
    RUN2(aclnnBinaryCrossEntropyGetWorkspaceSize(q.tensor, q.tensor, NULL, 0, none.tensor, &ews, &eex),
         aclnnBinaryCrossEntropy);
    /* BinaryCrossEntropyWithLogits with posWeight, sum */
    RUN2(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(p.tensor, q.tensor, NULL, w.tensor, 2, r.tensor, &ews, &eex),
         aclnnBinaryCrossEntropyWithLogits);
    want = 0;
    for (int k = 0; k < 6; k++) {
        double xk = pv[k], yk = qv[k], lw = 1 + (((double[]){1, 2, 0.5})[k % 3] - 1) * yk;
        want += (1 - yk) * xk + lw * (log1p(exp(-fabs(xk))) + fmax(-xk, 0));
    }
    rd(&r, &got);
    CHECK_VALS("BinaryCrossEntropyWithLogits", F, &got, &want, 1);
    EXPECT_ERR(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(p.tensor, q.tensor, NULL, NULL, 0, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize", "out", NULL);
    /* Logit with eps 0.25: z clamped to [0.25, 0.75] */
    DevTensor lz = mk(F, s3, 1, V(0, 0.5, 0.9));
    RUN2(aclnnLogitGetWorkspaceSize(lz.tensor, 0.25, r3.tensor, &ews, &eex), aclnnLogit);
    EXPECT_T(r3, log(1 / 3.0), 0, log(3.0));
    DevTensor *all[] = {&x, &y, &none, &r, &r3, &r1, &t, &p, &q, &w, &lz};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static void test_nll(void)
{
    /* NLLLoss of (2, 3) log-probabilities, targets {2, 0}, weights {1, 2, 0.5} */
    int64_t s23[] = {2, 3}, s2[] = {2}, s3[] = {3}, s1[] = {1};
    DevTensor x = mk(F, s23, 2, V(-1, -2, -3, -4, -5, -6)), t = mk(ACL_INT64, s2, 1, V(2, 0));
    DevTensor w = mk(F, s3, 1, V(1, 2, 0.5)), o = mk(F, s2, 1, NULL), r = mk(F, s1, 1, NULL), tw = mk(F, s1, 1, NULL);
    RUN2(aclnnNLLLossGetWorkspaceSize(x.tensor, t.tensor, w.tensor, 0, -100, o.tensor, tw.tensor, &ews, &eex),
         aclnnNLLLoss);
    EXPECT_T(o, 1.5, 4);
    RUN2(aclnnNLLLossGetWorkspaceSize(x.tensor, t.tensor, w.tensor, 1, -100, r.tensor, tw.tensor, &ews, &eex),
         aclnnNLLLoss);
    EXPECT_T(r, 5.5 / 1.5);
    EXPECT_T(tw, 1.5);
    /* ignoreIndex 0 drops the second row */
    RUN2(aclnnNLLLossGetWorkspaceSize(x.tensor, t.tensor, w.tensor, 2, 0, r.tensor, tw.tensor, &ews, &eex),
         aclnnNLLLoss);
    EXPECT_T(r, 1.5);
    EXPECT_T(tw, 0.5);
    EXPECT_ERR(aclnnNLLLossGetWorkspaceSize(x.tensor, t.tensor, NULL, 0, -100, o.tensor, tw.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnNLLLossGetWorkspaceSize", "weight", &o);
    /* NLLLoss2d: (1, 3, 1, 2) and targets (1, 1, 2) = {1, 2}, sum */
    int64_t s4[] = {1, 3, 1, 2}, st[] = {1, 1, 2};
    DevTensor x4 = mk(F, s4, 4, V(-1, -2, -3, -4, -5, -6)), t3 = mk(ACL_INT32, st, 3, V(1, 2));
    RUN2(aclnnNLLLoss2dGetWorkspaceSize(x4.tensor, t3.tensor, w.tensor, 2, -100, r.tensor, tw.tensor, &ews, &eex),
         aclnnNLLLoss2d);
    /* position 0: class 1 -> -2·(-3); position 1: class 2 -> -0.5·(-6) */
    EXPECT_T(r, 9);
    EXPECT_T(tw, 2.5);
    EXPECT_ERR(aclnnNLLLoss2dGetWorkspaceSize(x.tensor, t.tensor, w.tensor, 2, -100, r.tensor, tw.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnNLLLoss2dGetWorkspaceSize", "self", &r);
    DevTensor *all[] = {&x, &t, &w, &o, &r, &tw, &x4, &t3};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_activations);
    RUN_TEST(test_losses);
    RUN_TEST(test_nll);
    device_teardown();
    return capi_finish();
}
