/*
 * The normalisations, called as a CANN program (and llama.cpp's CANN back-end) calls them:
 *
 * - aclnn_layer_norm.h: LayerNorm the way ggml_cann_norm calls it (weight, bias, mean and
 *   rstd NULL), written out in full as a CANN sample does (aclrtMalloc, aclCreateTensor,
 *   phase 1, workspace, phase 2, synchronize, copy back, destroy); with weight, bias, mean
 *   and rstd; on a strided view; LayerNormWithImplMode and FastLayerNorm;
 * - aclnn_rms_norm.h / aclnn_gemma_rms_norm.h: RmsNorm as ggml_cann_rms_norm calls it (an
 *   f32 gamma, a 3-D rstd for a 4-D x), an f16 x with an f32 gamma, GemmaRmsNorm;
 * - aclnn_add_rms_norm.h: the fused add as ggml calls it (rstd (.., 1), xOut), and the
 *   16-bit modes with NULL outputs;
 * - aclnn_group_norm.h / aclnn_group_norm_silu.h: GroupNorm as ggml_cann_group_norm calls
 *   it (gamma/beta NULL, (N, group) mean/rstd), GroupNormSilu and V2;
 * - aclnn_norm.h: Norm as ggml_cann_l2_norm calls it (p = 2 over the last dim, keepdim),
 *   and p = 0, 1, inf, -inf, 3; aclnn_linalg_vector_norm.h;
 * - aclnn_deep_norm.h, aclnn_add_layer_norm.h, aclnn_batch_norm.h (training with running
 *   statistics, inference), aclnn_renorm.h (and in place).
 *
 * Expected values come from a double-precision formula here (never from the library) and
 * must match within the dtype's tolerance. Documented errors are checked for their status
 * (161001 NULL, 161002 invalid), a message naming the API and the parameter, and outputs
 * left untouched. The random differential tests are in src/tests/norm_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_deep_norm.h"
#include "aclnnop/aclnn_gemma_rms_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_silu.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_linalg_vector_norm.h"
#include "aclnnop/aclnn_norm.h"
#include "aclnnop/aclnn_renorm.h"
#include "aclnnop/aclnn_rms_norm.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16

static void free_all(DevTensor **ts, size_t n)
{
    for (size_t k = 0; k < n; k++) dev_free(ts[k]);
}

/* LayerNorm of `rows` rows of `len` values (w, b may be NULL): y, and mean/rstd per row. */
static void ln_ref(const double *x, int64_t rows, int64_t len, const double *w, const double *b, double eps,
                   double *y, double *mean, double *rstd)
{
    for (int64_t r = 0; r < rows; r++) {
        const double *v = x + r * len;
        double m = 0, var = 0;
        for (int64_t k = 0; k < len; k++) m += v[k];
        m /= (double)len;
        for (int64_t k = 0; k < len; k++) var += (v[k] - m) * (v[k] - m);
        var /= (double)len;
        double rs = 1.0 / sqrt(var + eps);
        for (int64_t k = 0; k < len; k++)
            y[r * len + k] = (v[k] - m) * rs * (w ? w[k] : 1.0) + (b ? b[k] : 0.0);
        if (mean) mean[r] = m;
        if (rstd) rstd[r] = rs;
    }
}

/* RmsNorm: y = x·rstd·(gamma + offset). */
static void rms_ref(const double *x, int64_t rows, int64_t len, const double *g, double offset, double eps,
                    double *y, double *rstd)
{
    for (int64_t r = 0; r < rows; r++) {
        double ss = 0;
        for (int64_t k = 0; k < len; k++) ss += x[r * len + k] * x[r * len + k];
        double rs = 1.0 / sqrt(ss / (double)len + eps);
        for (int64_t k = 0; k < len; k++) y[r * len + k] = x[r * len + k] * rs * (g[k] + offset);
        if (rstd) rstd[r] = rs;
    }
}

/* ================================================================ LayerNorm */

/* ggml_cann_norm: x (2, 4) f32, normalizedShape [4], weight/bias/mean/rstd NULL. */
static void test_layer_norm_cann_sample(void)
{
    int64_t shape[] = {2, 4};
    int64_t strides[] = {4, 1};
    float xHost[] = {1, 2, 3, 4, -1, 0, 0, 7};
    float outHost[8] = {0};
    void *xAddr = NULL, *outAddr = NULL;
    CHECK_OK(aclrtMalloc(&xAddr, sizeof xHost, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&outAddr, sizeof outHost, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(xAddr, sizeof xHost, xHost, sizeof xHost, ACL_MEMCPY_HOST_TO_DEVICE));
    aclTensor *x = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, xAddr);
    aclTensor *out = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, outAddr);
    CHECK(x != NULL && out != NULL);
    int64_t normData[] = {4};
    aclIntArray *norm = aclCreateIntArray(normData, 1);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    CHECK_OK(aclnnLayerNormGetWorkspaceSize(x, norm, NULL, NULL, 1e-5, out, NULL, NULL, &workspaceSize, &executor));
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) CHECK_OK(aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnLayerNorm(workspaceAddr, workspaceSize, executor, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    CHECK_OK(aclrtMemcpy(outHost, sizeof outHost, outAddr, sizeof outHost, ACL_MEMCPY_DEVICE_TO_HOST));
    double xd[8], want[8];
    for (int k = 0; k < 8; k++) xd[k] = xHost[k];
    /* row 0: mean 2.5, var 1.25; row 1: mean 1.5, var 10.25 */
    ln_ref(xd, 2, 4, NULL, NULL, 1e-5, want, NULL, NULL);
    for (int k = 0; k < 8; k++) CHECK(close_to(F, outHost[k], want[k]));
    CHECK_OK(aclDestroyTensor(x));
    CHECK_OK(aclDestroyTensor(out));
    CHECK_OK(aclDestroyIntArray(norm));
    CHECK_OK(aclrtFree(xAddr));
    CHECK_OK(aclrtFree(outAddr));
    if (workspaceAddr != NULL) CHECK_OK(aclrtFree(workspaceAddr));
}

/* Weight, bias, mean and rstd; the three entries of the header. */
static void test_layer_norm_forms(void)
{
    int64_t s234[] = {2, 3, 4}, s34[] = {3, 4}, s211[] = {2, 1, 1};
    double xv[24], wv[12], bv[12];
    for (int k = 0; k < 24; k++) xv[k] = (double)((k * 7) % 11) - 4.5;
    for (int k = 0; k < 12; k++) {
        wv[k] = 0.5 + 0.25 * k;
        bv[k] = k % 3 - 1;
    }
    DevTensor x = mk(F, s234, 3, xv), w = mk(F, s34, 2, wv), b = mk(F, s34, 2, bv);
    DevTensor o = mk(F, s234, 3, NULL), m = mk(F, s211, 3, NULL), r = mk(F, s211, 3, NULL);
    int64_t nd[] = {3, 4};
    aclIntArray *ns = aclCreateIntArray(nd, 2);
    double y[24], mw[2], rw[2];
    ln_ref(xv, 2, 12, wv, bv, 1e-5, y, mw, rw);
    RUN2(aclnnLayerNormGetWorkspaceSize(x.tensor, ns, w.tensor, b.tensor, 1e-5, o.tensor, m.tensor, r.tensor, &ews,
                                        &eex),
         aclnnLayerNorm);
    double got[24];
    rd(&o, got);
    CHECK_VALS("LayerNorm out", F, got, y, 24);
    rd(&m, got);
    CHECK_VALS("LayerNorm mean", F, got, mw, 2);
    rd(&r, got);
    CHECK_VALS("LayerNorm rstd", F, got, rw, 2);
    for (int32_t mode = 0; mode < 2; mode++) {
        dev_fill_bytes(&o, 0);
        RUN2(aclnnLayerNormWithImplModeGetWorkspaceSize(x.tensor, ns, w.tensor, b.tensor, 1e-5, o.tensor, NULL,
                                                        r.tensor, mode, &ews, &eex),
             aclnnLayerNormWithImplMode);
        rd(&o, got);
        CHECK_VALS("LayerNormWithImplMode out", F, got, y, 24);
    }
    dev_fill_bytes(&o, 0);
    RUN2(aclnnFastLayerNormGetWorkspaceSize(x.tensor, ns, w.tensor, b.tensor, 1e-5, o.tensor, m.tensor, NULL, &ews,
                                            &eex),
         aclnnFastLayerNorm);
    rd(&o, got);
    CHECK_VALS("FastLayerNorm out", F, got, y, 24);

    /* f16 input with f32 weight and bias, an f16 out */
    DevTensor xh = mk(H, s234, 3, xv), oh = mk(H, s234, 3, NULL);
    RUN2(aclnnLayerNormGetWorkspaceSize(xh.tensor, ns, w.tensor, b.tensor, 1e-5, oh.tensor, NULL, NULL, &ews, &eex),
         aclnnLayerNorm);
    rd(&oh, got);
    CHECK_VALS("LayerNorm f16 out", H, got, y, 24);

    /* errors */
    const char *api = "aclnnLayerNormGetWorkspaceSize";
    EXPECT_ERR(aclnnLayerNormGetWorkspaceSize(NULL, ns, NULL, NULL, 1e-5, o.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "input", &o);
    EXPECT_ERR(aclnnLayerNormGetWorkspaceSize(x.tensor, NULL, NULL, NULL, 1e-5, o.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "normalizedShape", &o);
    EXPECT_ERR(aclnnLayerNormGetWorkspaceSize(x.tensor, ns, NULL, NULL, 1e-5, NULL, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "out", NULL);
    int64_t bad[] = {4, 3};
    aclIntArray *nsb = aclCreateIntArray(bad, 2);
    EXPECT_ERR(aclnnLayerNormGetWorkspaceSize(x.tensor, nsb, NULL, NULL, 1e-5, o.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "normalizedShape", &o);
    EXPECT_ERR(aclnnLayerNormGetWorkspaceSize(xh.tensor, ns, oh.tensor, NULL, 1e-5, oh.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "weightOptional", NULL);
    EXPECT_ERR(aclnnLayerNormWithImplModeGetWorkspaceSize(x.tensor, ns, NULL, NULL, 1e-5, o.tensor, NULL, NULL, 3,
                                                          &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnLayerNormWithImplModeGetWorkspaceSize", "implMode", &o);
    CHECK_OK(aclDestroyIntArray(ns));
    CHECK_OK(aclDestroyIntArray(nsb));
    DevTensor *all[] = {&x, &w, &b, &o, &m, &r, &xh, &oh};
    free_all(all, ARRAY_LEN(all));
}

/* LayerNorm over the seed view (4, 3) strides (20, 2) offset 22 of a 10x10 storage, into
   the same view of another storage: nothing outside the view changes. */
static void test_layer_norm_view(void)
{
    double sv[100], xs[12];
    for (int k = 0; k < 100; k++) sv[k] = (double)(k % 13) - 6;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) xs[i * 3 + j] = sv[VOFF + i * 20 + j * 2];
    DevTensor x = mkv(F, VSTORE, 2, sv, VSHAPE, 2, VSTRIDES, VOFF);
    DevTensor o = mkv(F, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
    int64_t nd[] = {3};
    aclIntArray *ns = aclCreateIntArray(nd, 1);
    RUN2(aclnnLayerNormGetWorkspaceSize(x.tensor, ns, NULL, NULL, 1e-5, o.tensor, NULL, NULL, &ews, &eex),
         aclnnLayerNorm);
    double want[12], got[100];
    ln_ref(xs, 4, 3, NULL, NULL, 1e-5, want, NULL, NULL);
    rd(&o, got);
    unsigned char sent[4];
    memset(sent, SENT, 4);
    double sentv = get_c(F, sent, 0);
    for (int k = 0; k < 100; k++) {
        int in = 0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                if (k == VOFF + i * 20 + j * 2) {
                    CHECK(close_to(F, got[k], want[i * 3 + j]));
                    in = 1;
                }
        if (!in) CHECK(got[k] == sentv);
    }
    CHECK_OK(aclDestroyIntArray(ns));
    DevTensor *all[] = {&x, &o};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ RmsNorm */

/* ggml_cann_rms_norm: x (1, 2, 3, 4) f32, gamma (4) f32, rstd (1, 2, 3) f32. */
static void test_rms_norm(void)
{
    int64_t sx[] = {1, 2, 3, 4}, sg[] = {4}, sr[] = {1, 2, 3};
    double xv[24], gv[4] = {1, 0.5, 2, -1};
    for (int k = 0; k < 24; k++) xv[k] = (double)((k * 5) % 9) - 3.25;
    DevTensor x = mk(F, sx, 4, xv), g = mk(F, sg, 1, gv), y = mk(F, sx, 4, NULL), r = mk(F, sr, 3, NULL);
    RUN2(aclnnRmsNormGetWorkspaceSize(x.tensor, g.tensor, 1e-6, y.tensor, r.tensor, &ews, &eex), aclnnRmsNorm);
    double want[24], rw[6], got[24];
    rms_ref(xv, 6, 4, gv, 0, 1e-6, want, rw);
    rd(&y, got);
    CHECK_VALS("RmsNorm y", F, got, want, 24);
    rd(&r, got);
    CHECK_VALS("RmsNorm rstd", F, got, rw, 6);

    /* f16 x with an f32 gamma; rstd (1, 2, 3, 1) as documented */
    int64_t sr4[] = {1, 2, 3, 1};
    DevTensor xh = mk(H, sx, 4, xv), yh = mk(H, sx, 4, NULL), r4 = mk(F, sr4, 4, NULL);
    RUN2(aclnnRmsNormGetWorkspaceSize(xh.tensor, g.tensor, 1e-6, yh.tensor, r4.tensor, &ews, &eex), aclnnRmsNorm);
    rd(&yh, got);
    CHECK_VALS("RmsNorm f16 y", H, got, want, 24);

    /* GemmaRmsNorm: the scale is 1 + gamma */
    RUN2(aclnnGemmaRmsNormGetWorkspaceSize(x.tensor, g.tensor, 1e-6, y.tensor, r.tensor, &ews, &eex),
         aclnnGemmaRmsNorm);
    rms_ref(xv, 6, 4, gv, 1, 1e-6, want, NULL);
    rd(&y, got);
    CHECK_VALS("GemmaRmsNorm y", F, got, want, 24);

    const char *api = "aclnnRmsNormGetWorkspaceSize";
    EXPECT_ERR(aclnnRmsNormGetWorkspaceSize(NULL, g.tensor, 1e-6, y.tensor, r.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "x", &y);
    EXPECT_ERR(aclnnRmsNormGetWorkspaceSize(x.tensor, g.tensor, 1e-6, y.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "rstdOut", &y);
    int64_t sg5[] = {5};
    DevTensor rh = mk(H, sr, 3, NULL), g5 = mk(F, sg5, 1, NULL);
    EXPECT_ERR(aclnnRmsNormGetWorkspaceSize(x.tensor, g.tensor, 1e-6, y.tensor, rh.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "rstdOut", &y);
    EXPECT_ERR(aclnnRmsNormGetWorkspaceSize(x.tensor, g5.tensor, 1e-6, y.tensor, r.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "gamma", &y);
    DevTensor *all[] = {&x, &g, &y, &r, &xh, &yh, &r4, &rh, &g5};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ AddRmsNorm */

/* ggml's fused ADD + RMS_NORM: x1, x2 (1, 2, 2, 4) f32, gamma (4), rstd (1, 2, 2, 1), xOut. */
static void test_add_rms_norm(void)
{
    int64_t sx[] = {1, 2, 2, 4}, sg[] = {4}, sr[] = {1, 2, 2, 1};
    double a[16], b[16], s[16], gv[4] = {2, 1, 0.5, 1};
    for (int k = 0; k < 16; k++) {
        a[k] = (double)(k % 5) - 2;
        b[k] = 0.25 * (double)(k % 3);
        s[k] = a[k] + b[k];
    }
    DevTensor x1 = mk(F, sx, 4, a), x2 = mk(F, sx, 4, b), g = mk(F, sg, 1, gv);
    DevTensor y = mk(F, sx, 4, NULL), r = mk(F, sr, 4, NULL), xo = mk(F, sx, 4, NULL);
    RUN2(aclnnAddRmsNormGetWorkspaceSize(x1.tensor, x2.tensor, g.tensor, 1e-6, y.tensor, r.tensor, xo.tensor, &ews,
                                         &eex),
         aclnnAddRmsNorm);
    double want[16], rw[4], got[16];
    rms_ref(s, 4, 4, gv, 0, 1e-6, want, rw);
    rd(&y, got);
    CHECK_VALS("AddRmsNorm y", F, got, want, 16);
    rd(&r, got);
    CHECK_VALS("AddRmsNorm rstd", F, got, rw, 4);
    rd(&xo, got);
    CHECK_VALS("AddRmsNorm xOut", F, got, s, 16);

    /* f16 without rstdOut (and without xOut): gamma (1, 4) */
    int64_t sg2[] = {1, 4};
    DevTensor h1 = mk(H, sx, 4, a), h2 = mk(H, sx, 4, b), hg = mk(H, sg2, 2, gv), hy = mk(H, sx, 4, NULL);
    DevTensor hx = mk(H, sx, 4, NULL);
    RUN2(aclnnAddRmsNormGetWorkspaceSize(h1.tensor, h2.tensor, hg.tensor, 1e-6, hy.tensor, NULL, hx.tensor, &ews,
                                         &eex),
         aclnnAddRmsNorm);
    rd(&hy, got);
    CHECK_VALS("AddRmsNorm f16 y", H, got, want, 16);
    rd(&hx, got);
    CHECK_VALS("AddRmsNorm f16 xOut", H, got, s, 16);
    RUN2(aclnnAddRmsNormGetWorkspaceSize(h1.tensor, h2.tensor, hg.tensor, 1e-6, hy.tensor, NULL, NULL, &ews, &eex),
         aclnnAddRmsNorm);

    const char *api = "aclnnAddRmsNormGetWorkspaceSize";
    EXPECT_ERR(aclnnAddRmsNormGetWorkspaceSize(x1.tensor, NULL, g.tensor, 1e-6, y.tensor, r.tensor, xo.tensor, &ews,
                                               &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "x2", &y);
    EXPECT_ERR(aclnnAddRmsNormGetWorkspaceSize(x1.tensor, x2.tensor, g.tensor, 1e-6, y.tensor, r.tensor, NULL, &ews,
                                               &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "xOut", &y);
    EXPECT_ERR(aclnnAddRmsNormGetWorkspaceSize(x1.tensor, x2.tensor, g.tensor, 1e-6, y.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "x1", &y);
    EXPECT_ERR(aclnnAddRmsNormGetWorkspaceSize(x1.tensor, h2.tensor, g.tensor, 1e-6, y.tensor, r.tensor, xo.tensor,
                                               &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "x2", &y);
    DevTensor *all[] = {&x1, &x2, &g, &y, &r, &xo, &h1, &h2, &hg, &hy, &hx};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ GroupNorm */

/* ggml_cann_group_norm: x (N=2, C=4, 1, 3) f32, 2 groups, gamma/beta NULL, mean/rstd (2, 2). */
static void test_group_norm(void)
{
    int64_t sx[] = {2, 4, 1, 3}, ss[] = {2, 2}, sc4[] = {4};
    double xv[24];
    for (int k = 0; k < 24; k++) xv[k] = (double)((k * 7) % 10) - 4;
    DevTensor x = mk(F, sx, 4, xv), o = mk(F, sx, 4, NULL), m = mk(F, ss, 2, NULL), r = mk(F, ss, 2, NULL);
    RUN2(aclnnGroupNormGetWorkspaceSize(x.tensor, NULL, NULL, 2, 4, 3, 2, 1e-5, o.tensor, m.tensor, r.tensor, &ews,
                                        &eex),
         aclnnGroupNorm);
    /* a group is 2 channels x 3 values: 6 contiguous values */
    double want[24], mw[4], rw[4], got[24];
    ln_ref(xv, 4, 6, NULL, NULL, 1e-5, want, mw, rw);
    rd(&o, got);
    CHECK_VALS("GroupNorm out", F, got, want, 24);
    rd(&m, got);
    CHECK_VALS("GroupNorm mean", F, got, mw, 4);
    rd(&r, got);
    CHECK_VALS("GroupNorm rstd", F, got, rw, 4);

    /* GroupNormSilu with per-channel gamma and beta */
    double gv[4] = {1, 2, -1, 0.5}, bv[4] = {0, 1, 0, -1};
    DevTensor gm = mk(F, sc4, 1, gv), bt = mk(F, sc4, 1, bv);
    RUN2(aclnnGroupNormSiluGetWorkspaceSize(x.tensor, gm.tensor, bt.tensor, 2, 1e-5, o.tensor, m.tensor, r.tensor,
                                            &ews, &eex),
         aclnnGroupNormSilu);
    for (int k = 0; k < 24; k++) {
        int c = (k / 3) % 4;
        double z = want[k] * gv[c] + bv[c];
        want[k] = z / (1 + exp(-z));
    }
    rd(&o, got);
    CHECK_VALS("GroupNormSilu out", F, got, want, 24);
    /* V2 without the activation is GroupNorm */
    RUN2(aclnnGroupNormSiluV2GetWorkspaceSize(x.tensor, NULL, NULL, 2, 1e-5, false, o.tensor, m.tensor, r.tensor,
                                              &ews, &eex),
         aclnnGroupNormSiluV2);
    ln_ref(xv, 4, 6, NULL, NULL, 1e-5, want, NULL, NULL);
    rd(&o, got);
    CHECK_VALS("GroupNormSiluV2 out", F, got, want, 24);

    const char *api = "aclnnGroupNormGetWorkspaceSize";
    EXPECT_ERR(aclnnGroupNormGetWorkspaceSize(NULL, NULL, NULL, 2, 4, 3, 2, 1e-5, o.tensor, m.tensor, r.tensor, &ews,
                                              &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "self", &o);
    EXPECT_ERR(aclnnGroupNormGetWorkspaceSize(x.tensor, NULL, NULL, 2, 4, 3, 3, 1e-5, o.tensor, m.tensor, r.tensor,
                                              &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "group", &o);
    EXPECT_ERR(aclnnGroupNormGetWorkspaceSize(x.tensor, NULL, NULL, 2, 4, 5, 2, 1e-5, o.tensor, m.tensor, r.tensor,
                                              &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "HxW", &o);
    EXPECT_ERR(aclnnGroupNormGetWorkspaceSize(x.tensor, NULL, NULL, 2, 4, 3, 2, 0.0, o.tensor, m.tensor, r.tensor,
                                              &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "eps", &o);
    DevTensor *all[] = {&x, &o, &m, &r, &gm, &bt};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ Norm */

/* ggml_cann_l2_norm: p = 2 over dim 3 of (1, 1, 2, 4), keepdim, into (1, 1, 2, 1). */
static void test_norm(void)
{
    int64_t sx[] = {1, 1, 2, 4}, so[] = {1, 1, 2, 1}, s2[] = {2};
    DevTensor x = mk(F, sx, 4, V(3, 4, 0, 0, -1, 2, -2, 4)), o = mk(F, so, 4, NULL);
    int64_t d3[] = {3}, d1[] = {-1};
    aclIntArray *dims = aclCreateIntArray(d3, 1), *dm1 = aclCreateIntArray(d1, 1);
    aclScalar *p2 = sc(F, 2);
    RUN2(aclnnNormGetWorkspaceSize(x.tensor, p2, dims, true, o.tensor, &ews, &eex), aclnnNorm);
    EXPECT_T(o, 5, 5);
    /* p = 0, 1, inf, -inf, 3 over the last dim, keepdim false */
    DevTensor o2 = mk(F, s2, 1, NULL);
    int64_t sx2[] = {2, 4};
    DevTensor x2 = mk(F, sx2, 2, V(3, 4, 0, 0, -1, 2, -2, 4));
    const double ps[] = {0, 1, INFINITY, -INFINITY, 3};
    const double want[][2] = {{2, 4}, {7, 9}, {4, 4}, {0, 1}, {0, 0}};
    for (int k = 0; k < 5; k++) {
        aclScalar *p = sc(F, ps[k]);
        RUN2(aclnnNormGetWorkspaceSize(x2.tensor, p, dm1, false, o2.tensor, &ews, &eex), aclnnNorm);
        double got[2];
        rd(&o2, got);
        double w0 = want[k][0], w1 = want[k][1];
        if (k == 4) {
            w0 = cbrt(27.0 + 64.0);
            w1 = cbrt(1.0 + 8 + 8 + 64);
        }
        CHECK(close_to(F, got[0], w0) && close_to(F, got[1], w1));
        CHECK_OK(aclDestroyScalar(p));
    }
    const char *api = "aclnnNormGetWorkspaceSize";
    EXPECT_ERR(aclnnNormGetWorkspaceSize(x.tensor, NULL, dims, true, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               api, "pScalar", &o);
    EXPECT_ERR(aclnnNormGetWorkspaceSize(x.tensor, p2, NULL, true, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               api, "dim", &o);
    EXPECT_ERR(aclnnNormGetWorkspaceSize(x.tensor, p2, dims, false, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               api, "out", &o);
    int64_t d4[] = {4};
    aclIntArray *bad = aclCreateIntArray(d4, 1);
    EXPECT_ERR(aclnnNormGetWorkspaceSize(x.tensor, p2, bad, true, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, api,
               "dim", &o);
    CHECK_OK(aclDestroyIntArray(dims));
    CHECK_OK(aclDestroyIntArray(dm1));
    CHECK_OK(aclDestroyIntArray(bad));
    CHECK_OK(aclDestroyScalar(p2));
    DevTensor *all[] = {&x, &o, &o2, &x2};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ DeepNorm, AddLayerNorm */

static void test_deep_and_add_layer_norm(void)
{
    int64_t sx[] = {2, 4}, sg[] = {4}, sr[] = {2, 1};
    double a[8] = {1, 2, 3, 4, -2, 0, 2, 8}, b[8] = {0.5, 0, -0.5, 1, 1, 1, 1, 1};
    double gv[4] = {1, 2, 0.5, -1}, bv[4] = {0, 0.25, 0, 1};
    DevTensor x = mk(F, sx, 2, a), gx = mk(F, sx, 2, b), g = mk(F, sg, 1, gv), be = mk(F, sg, 1, bv);
    DevTensor y = mk(F, sx, 2, NULL), m = mk(F, sr, 2, NULL), r = mk(F, sr, 2, NULL), xo = mk(F, sx, 2, NULL);
    /* DeepNorm: x' = 0.5·x + gx */
    RUN2(aclnnDeepNormGetWorkspaceSize(x.tensor, gx.tensor, be.tensor, g.tensor, 0.5, 1e-5, m.tensor, r.tensor,
                                       y.tensor, &ews, &eex),
         aclnnDeepNorm);
    double xs[8], want[8], mw[2], rw[2], got[8];
    for (int k = 0; k < 8; k++) xs[k] = 0.5 * a[k] + b[k];
    ln_ref(xs, 2, 4, gv, bv, 1e-5, want, mw, rw);
    rd(&y, got);
    CHECK_VALS("DeepNorm y", F, got, want, 8);
    rd(&m, got);
    CHECK_VALS("DeepNorm mean", F, got, mw, 2);
    rd(&r, got);
    CHECK_VALS("DeepNorm rstd", F, got, rw, 2);
    /* AddLayerNorm: x = x1 + x2 + bias (of gamma's shape), xOut written */
    double biasv[4] = {1, -1, 0, 0.5};
    DevTensor bias = mk(F, sg, 1, biasv);
    RUN2(aclnnAddLayerNormGetWorkspaceSize(x.tensor, gx.tensor, g.tensor, be.tensor, bias.tensor, 1e-5, true,
                                           y.tensor, m.tensor, r.tensor, xo.tensor, &ews, &eex),
         aclnnAddLayerNorm);
    for (int k = 0; k < 8; k++) xs[k] = a[k] + b[k] + biasv[k % 4];
    ln_ref(xs, 2, 4, gv, bv, 1e-5, want, mw, rw);
    rd(&y, got);
    CHECK_VALS("AddLayerNorm y", F, got, want, 8);
    rd(&xo, got);
    CHECK_VALS("AddLayerNorm xOut", F, got, xs, 8);
    rd(&r, got);
    CHECK_VALS("AddLayerNorm rstd", F, got, rw, 2);
    EXPECT_ERR(aclnnAddLayerNormGetWorkspaceSize(x.tensor, gx.tensor, g.tensor, be.tensor, NULL, 1e-5, true, y.tensor,
                                                 m.tensor, r.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnAddLayerNormGetWorkspaceSize", "xOut", &y);
    DevTensor mh = mk(H, sr, 2, NULL);
    EXPECT_ERR(aclnnDeepNormGetWorkspaceSize(x.tensor, gx.tensor, be.tensor, g.tensor, 0.5, 1e-5, mh.tensor, r.tensor,
                                             y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDeepNormGetWorkspaceSize", "meanOut", &y);
    DevTensor *all[] = {&x, &gx, &g, &be, &y, &m, &r, &xo, &bias, &mh};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ BatchNorm */

/* input (2, 2, 2): channel 0 holds {1, 3, 5, 7}, channel 1 {0, 0, 4, -4}. */
static void test_batch_norm(void)
{
    int64_t sx[] = {2, 2, 2}, sc2[] = {2};
    double xv[8] = {1, 3, 0, 0, 5, 7, 4, -4};
    DevTensor x = mk(F, sx, 3, xv), o = mk(F, sx, 3, NULL);
    DevTensor w = mk(F, sc2, 1, V(2, 1)), b = mk(F, sc2, 1, V(0, 1));
    DevTensor rm = mk(F, sc2, 1, V(0, 1)), rv = mk(F, sc2, 1, V(1, 1));
    DevTensor sm = mk(F, sc2, 1, NULL), sv = mk(F, sc2, 1, NULL);
    RUN2(aclnnBatchNormGetWorkspaceSize(x.tensor, w.tensor, b.tensor, rm.tensor, rv.tensor, true, 0.1, 1e-5, o.tensor,
                                        sm.tensor, sv.tensor, &ews, &eex),
         aclnnBatchNorm);
    /* channel 0: mean 4, var 5 (unbiased 20/3); channel 1: mean 0, var 8 (unbiased 32/3) */
    double want[8], got[8];
    const double mean[2] = {4, 0}, var[2] = {5, 8}, wv[2] = {2, 1}, bv[2] = {0, 1};
    for (int k = 0; k < 8; k++) {
        int c = (k / 2) % 2;
        want[k] = (xv[k] - mean[c]) / sqrt(var[c] + 1e-5) * wv[c] + bv[c];
    }
    rd(&o, got);
    CHECK_VALS("BatchNorm out", F, got, want, 8);
    EXPECT_T(sm, 4, 0);
    EXPECT_T(sv, 5, 8); /* Atlas A2: saveInvstd holds the variance */
    EXPECT_T(rm, 0.1 * 4, 0.9 * 1 + 0.1 * 0);
    EXPECT_T(rv, 0.9 + 0.1 * 20.0 / 3, 0.9 + 0.1 * 32.0 / 3);
    /* inference with the updated running statistics */
    double rmv[2], rvv[2];
    rd(&rm, rmv);
    rd(&rv, rvv);
    RUN2(aclnnBatchNormGetWorkspaceSize(x.tensor, NULL, NULL, rm.tensor, rv.tensor, false, 0.1, 1e-5, o.tensor, NULL,
                                        NULL, &ews, &eex),
         aclnnBatchNorm);
    for (int k = 0; k < 8; k++) {
        int c = (k / 2) % 2;
        want[k] = (xv[k] - rmv[c]) / sqrt(rvv[c] + 1e-5);
    }
    rd(&o, got);
    CHECK_VALS("BatchNorm inference", F, got, want, 8);
    const char *api = "aclnnBatchNormGetWorkspaceSize";
    EXPECT_ERR(aclnnBatchNormGetWorkspaceSize(x.tensor, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, o.tensor, NULL,
                                              sv.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "saveMean", &o);
    EXPECT_ERR(aclnnBatchNormGetWorkspaceSize(x.tensor, NULL, NULL, NULL, NULL, false, 0.1, 1e-5, o.tensor, NULL,
                                              NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "runningMean", &o);
    DevTensor *all[] = {&x, &o, &w, &b, &rm, &rv, &sm, &sv};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ Renorm, LinalgVectorNorm */

static void test_renorm_and_vector_norm(void)
{
    /* rows along dim 0: [3, 4] (2-norm 5) and [0.3, 0.4] (0.5); maxNorm 1 scales the first */
    int64_t s22[] = {2, 2}, s2[] = {2};
    DevTensor x = mk(F, s22, 2, V(3, 4, 0.3, 0.4)), o = mk(F, s22, 2, NULL);
    aclScalar *p2 = sc(F, 2), *one = sc(F, 1);
    RUN2(aclnnRenormGetWorkspaceSize(x.tensor, p2, 0, one, o.tensor, &ews, &eex), aclnnRenorm);
    double f = 1.0 / (5 + 1e-7);
    EXPECT_T(o, 3 * f, 4 * f, 0.3, 0.4);
    RUN2(aclnnInplaceRenormGetWorkspaceSize(x.tensor, p2, -2, one, &ews, &eex), aclnnInplaceRenorm);
    EXPECT_T(x, 3 * f, 4 * f, 0.3, 0.4);
    /* LinalgVectorNorm: ord 1 over dim 1 into an f32 (2,) */
    DevTensor y = mk(F, s22, 2, V(-1, 2, 3, -4)), n = mk(F, s2, 1, NULL);
    int64_t d1[] = {1};
    aclIntArray *dims = aclCreateIntArray(d1, 1);
    RUN2(aclnnLinalgVectorNormGetWorkspaceSize(y.tensor, one, dims, false, ACL_FLOAT, n.tensor, &ews, &eex),
         aclnnLinalgVectorNorm);
    EXPECT_T(n, 3, 7);
    EXPECT_ERR(aclnnLinalgVectorNormGetWorkspaceSize(y.tensor, one, dims, false, ACL_FLOAT16, n.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnLinalgVectorNormGetWorkspaceSize", "dtype", &n);
    aclScalar *neg = sc(F, -1);
    EXPECT_ERR(aclnnRenormGetWorkspaceSize(y.tensor, neg, 0, one, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnRenormGetWorkspaceSize", "p", &o);
    CHECK_OK(aclDestroyIntArray(dims));
    CHECK_OK(aclDestroyScalar(p2));
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(neg));
    DevTensor *all[] = {&x, &o, &y, &n};
    free_all(all, ARRAY_LEN(all));
}

int main(void)
{
    device_init();
    RUN_TEST(test_layer_norm_cann_sample);
    RUN_TEST(test_layer_norm_forms);
    RUN_TEST(test_layer_norm_view);
    RUN_TEST(test_rms_norm);
    RUN_TEST(test_add_rms_norm);
    RUN_TEST(test_group_norm);
    RUN_TEST(test_norm);
    RUN_TEST(test_deep_and_add_layer_norm);
    RUN_TEST(test_batch_norm);
    RUN_TEST(test_renorm_and_vector_norm);
    device_teardown();
    return capi_finish();
}
