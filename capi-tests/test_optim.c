/*
 * The single-tensor optimizers of CANN's optim/ headers as a CANN user calls them:
 * aclInit, aclrtSetDevice, a stream, aclrtMalloc'd f32 tensors (var, its state, grad), the
 * hyper-parameters as one-element device tensors (ApplyAdamW, ApplyAdamD, ApplyFtrl,
 * ApplyGradientDescent) or aclScalars (ApplyAdamax, ApplyAdadelta), phase 1, phase 2,
 * synchronize, copy back. Expected values are the documented formulas in double
 * (f32 within 1e-5 relative). Also a documented error of each.
 */
#include "common.h"

#include <math.h>

#include "aclnnop/aclnn_apply_adadelta.h"
#include "aclnnop/aclnn_apply_adam_d.h"
#include "aclnnop/aclnn_apply_adam_w.h"
#include "aclnnop/aclnn_apply_adamax.h"
#include "aclnnop/aclnn_apply_ftrl.h"
#include "aclnnop/aclnn_apply_gradient_descent.h"

#define N 6
static const int64_t SHAPE[] = {2, 3};
static const float VAR[N] = {1.0f, -2.0f, 0.5f, 3.0f, -0.25f, 0.0f};
static const float GRAD[N] = {0.5f, 0.25f, -1.0f, 2.0f, -0.125f, 1.5f};
static const float M[N] = {0.1f, -0.2f, 0.0f, 0.3f, 0.05f, -0.4f};
static const float V[N] = {0.01f, 0.2f, 0.0f, 0.5f, 0.125f, 0.3f};

static DevTensor t6(const float *v) { return dev_tensor(v, ACL_FLOAT, SHAPE, 2); }
static DevTensor s1(float v)
{
    static const int64_t one[] = {1};
    return dev_tensor(&v, ACL_FLOAT, one, 1);
}
static void got6(const DevTensor *t, float *out) { dev_read(t, out); }
static void expect6(const char *what, const DevTensor *t, const double *want)
{
    float g[N];
    got6(t, g);
    for (int i = 0; i < N; i++) {
        if (!near_f32(g[i], (float)want[i])) {
            fprintf(stderr, "%s: element %d is %.9g, want %.9g\n", what, i, g[i], want[i]);
            CHECK(near_f32(g[i], (float)want[i]));
        }
    }
}

static void test_apply_adam_w(void)
{
    DevTensor var = t6(VAR), m = t6(M), v = t6(V), g = t6(GRAD);
    const double b1p = 0.9, b2p = 0.999, lr = 0.1, wd = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    DevTensor sc[7] = {s1((float)b1p), s1((float)b2p), s1((float)lr), s1((float)wd),
                       s1((float)b1),  s1((float)b2),  s1((float)eps)};
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnApplyAdamWGetWorkspaceSize(var.tensor, m.tensor, v.tensor, sc[0].tensor, sc[1].tensor,
                                             sc[2].tensor, sc[3].tensor, sc[4].tensor, sc[5].tensor, sc[6].tensor,
                                             g.tensor, NULL, false, false, &ws, &ex));
    run_phase2(aclnnApplyAdamW, ws, ex);
    double wv[N], wm[N], wsq[N];
    for (int i = 0; i < N; i++) {
        double f[7];
        for (int k = 0; k < 7; k++) f[k] = (double)(float)((double[]){b1p, b2p, lr, wd, b1, b2, eps})[k];
        double gi = GRAD[i];
        wm[i] = f[4] * M[i] + (1 - f[4]) * gi;
        wsq[i] = f[5] * V[i] + (1 - f[5]) * gi * gi;
        wv[i] = VAR[i] * (1 - f[2] * f[3]) -
                f[2] / (1 - f[0] * f[4]) * wm[i] / (sqrt(wsq[i] / (1 - f[1] * f[5])) + f[6]);
    }
    expect6("aclnnApplyAdamW var", &var, wv);
    expect6("aclnnApplyAdamW m", &m, wm);
    expect6("aclnnApplyAdamW v", &v, wsq);
    /* amsgrad without maxGradNormOptional: a NULL parameter. */
    CHECK_STATUS(aclnnApplyAdamWGetWorkspaceSize(var.tensor, m.tensor, v.tensor, sc[0].tensor, sc[1].tensor,
                                                 sc[2].tensor, sc[3].tensor, sc[4].tensor, sc[5].tensor,
                                                 sc[6].tensor, g.tensor, NULL, true, false, &ws, &ex),
                 ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("maxGradNormOptional");
    DevTensor *all[] = {&var, &m, &v, &g};
    for (int k = 0; k < 4; k++) dev_free(all[k]);
    for (int k = 0; k < 7; k++) dev_free(&sc[k]);
}

static void test_apply_adam_d(void)
{
    DevTensor var = t6(VAR), m = t6(M), v = t6(V), g = t6(GRAD);
    DevTensor vo = t6(NULL), mo = t6(NULL), so = t6(NULL);
    const float b1p = 0.81f, b2p = 0.998f, lr = 0.1f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    DevTensor sc[6] = {s1(b1p), s1(b2p), s1(lr), s1(b1), s1(b2), s1(eps)};
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnApplyAdamDGetWorkspaceSize(var.tensor, m.tensor, v.tensor, sc[0].tensor, sc[1].tensor,
                                             sc[2].tensor, sc[3].tensor, sc[4].tensor, sc[5].tensor, g.tensor, false,
                                             true, vo.tensor, mo.tensor, so.tensor, &ws, &ex));
    run_phase2(aclnnApplyAdamD, ws, ex);
    double wv[N], wm[N], wsq[N];
    double lrt = (double)lr * sqrt(1 - (double)b2p) / (1 - (double)b1p);
    for (int i = 0; i < N; i++) {
        wm[i] = b1 * (double)M[i] + (1 - (double)b1) * GRAD[i];
        wsq[i] = b2 * (double)V[i] + (1 - (double)b2) * GRAD[i] * GRAD[i];
        double num = wm[i] * b1 + (1 - (double)b1) * GRAD[i];
        wv[i] = VAR[i] - lrt * num / (eps + sqrt(wsq[i]));
    }
    expect6("aclnnApplyAdamD varOut", &vo, wv);
    expect6("aclnnApplyAdamD mOut", &mo, wm);
    expect6("aclnnApplyAdamD vOut", &so, wsq);
    double same[N];
    for (int i = 0; i < N; i++) same[i] = VAR[i];
    expect6("aclnnApplyAdamD var unchanged", &var, same);
    /* A two-element lr. */
    static const int64_t two[] = {2};
    DevTensor lr2 = dev_tensor(NULL, ACL_FLOAT, two, 1);
    CHECK_STATUS(aclnnApplyAdamDGetWorkspaceSize(var.tensor, m.tensor, v.tensor, sc[0].tensor, sc[1].tensor,
                                                 lr2.tensor, sc[3].tensor, sc[4].tensor, sc[5].tensor, g.tensor,
                                                 false, false, vo.tensor, mo.tensor, so.tensor, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("lr");
    DevTensor *all[] = {&var, &m, &v, &g, &vo, &mo, &so, &lr2};
    for (int k = 0; k < 8; k++) dev_free(all[k]);
    for (int k = 0; k < 6; k++) dev_free(&sc[k]);
}

static void test_apply_adamax_adadelta(void)
{
    /* ApplyAdamax in place: the outputs are the inputs. */
    DevTensor var = t6(VAR), m = t6(M), v = t6(V), g = t6(GRAD);
    aclScalar *b1p = scalar_f32(0.9f), *lr = scalar_f32(0.1f), *b1 = scalar_f32(0.9f), *b2 = scalar_f32(0.99f),
              *eps = scalar_f32(1e-3f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnApplyAdamaxGetWorkspaceSize(var.tensor, m.tensor, v.tensor, b1p, lr, b1, b2, eps, g.tensor,
                                              var.tensor, m.tensor, v.tensor, &ws, &ex));
    run_phase2(aclnnApplyAdamax, ws, ex);
    double wv[N], wm[N], wu[N];
    for (int i = 0; i < N; i++) {
        wm[i] = 0.9f * (double)M[i] + (1 - (double)0.9f) * GRAD[i];
        wu[i] = fmax((double)0.99f * V[i], fabs((double)GRAD[i]));
        wv[i] = VAR[i] - (double)0.1f / (1 - (double)0.9f) * wm[i] / (wu[i] + (double)1e-3f);
    }
    expect6("aclnnApplyAdamax var", &var, wv);
    expect6("aclnnApplyAdamax m", &m, wm);
    expect6("aclnnApplyAdamax v", &v, wu);
    aclScalar *bad = scalar_f32(1.0f);
    CHECK_STATUS(aclnnApplyAdamaxGetWorkspaceSize(var.tensor, m.tensor, v.tensor, b1p, lr, bad, b2, eps, g.tensor,
                                                  var.tensor, m.tensor, v.tensor, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("beta1");
    /* ApplyAdadelta into separate outputs. */
    DevTensor a = t6(V), au = t6(V), vo = t6(NULL), ao = t6(NULL), auo = t6(NULL), x = t6(VAR);
    aclScalar *rho = scalar_f32(0.9f), *e2 = scalar_f32(1e-6f), *lr2 = scalar_f32(1.0f);
    CHECK_OK(aclnnApplyAdadeltaGetWorkspaceSize(x.tensor, a.tensor, au.tensor, lr2, rho, e2, g.tensor, vo.tensor,
                                                ao.tensor, auo.tensor, &ws, &ex));
    run_phase2(aclnnApplyAdadelta, ws, ex);
    double wa[N], wau[N], wx[N];
    double r = 0.9f, ep = 1e-6f;
    for (int i = 0; i < N; i++) {
        wa[i] = r * V[i] + (1 - r) * GRAD[i] * GRAD[i];
        double up = sqrt(V[i] + ep) / sqrt(wa[i] + ep) * GRAD[i];
        wx[i] = VAR[i] - up;
        wau[i] = r * V[i] + (1 - r) * up * up;
    }
    expect6("aclnnApplyAdadelta varOut", &vo, wx);
    expect6("aclnnApplyAdadelta accumOut", &ao, wa);
    expect6("aclnnApplyAdadelta accumUpdateOut", &auo, wau);
    CHECK_STATUS(aclnnApplyAdadeltaGetWorkspaceSize(x.tensor, a.tensor, au.tensor, lr2, bad, e2, g.tensor, vo.tensor,
                                                    ao.tensor, auo.tensor, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("rho");
    aclScalar *ss[] = {b1p, lr, b1, b2, eps, bad, rho, e2, lr2};
    for (size_t k = 0; k < ARRAY_LEN(ss); k++) CHECK_OK(aclDestroyScalar(ss[k]));
    DevTensor *all[] = {&var, &m, &v, &g, &a, &au, &vo, &ao, &auo, &x};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

static void test_apply_ftrl_gradient_descent(void)
{
    DevTensor var = t6(VAR), acc = t6(V), lin = t6(M), g = t6(GRAD);
    /* accum must be positive for the power: shift it. */
    float accv[N];
    for (int i = 0; i < N; i++) accv[i] = V[i] + 0.25f;
    dev_write(&acc, accv);
    DevTensor lr = s1(0.5f), l1 = s1(0.25f), l2 = s1(0.125f), p = s1(-0.5f);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnApplyFtrlGetWorkspaceSize(var.tensor, acc.tensor, lin.tensor, g.tensor, lr.tensor, l1.tensor,
                                            l2.tensor, p.tensor, false, &ws, &ex));
    run_phase2(aclnnApplyFtrl, ws, ex);
    double wv[N], wa[N], wl[N];
    for (int i = 0; i < N; i++) {
        wa[i] = (double)accv[i] + (double)GRAD[i] * GRAD[i];
        double pn = pow(wa[i], 0.5), po = pow(accv[i], 0.5);
        wl[i] = M[i] + GRAD[i] - (pn - po) / 0.5 * VAR[i];
        double q = pn / 0.5 + 2 * 0.125;
        wv[i] = fabs(wl[i]) > 0.25 ? ((wl[i] > 0 ? 1 : -1) * 0.25 - wl[i]) / q : 0;
    }
    expect6("aclnnApplyFtrl var", &var, wv);
    expect6("aclnnApplyFtrl accum", &acc, wa);
    expect6("aclnnApplyFtrl linear", &lin, wl);
    /* grad sharing var (updated in place) is refused. */
    CHECK_STATUS(aclnnApplyFtrlGetWorkspaceSize(var.tensor, acc.tensor, lin.tensor, var.tensor, lr.tensor, l1.tensor,
                                                l2.tensor, p.tensor, false, &ws, &ex),
                 ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("grad");
    /* ApplyGradientDescent: var -= alpha * delta. */
    DevTensor x = t6(VAR), alpha = s1(0.375f);
    CHECK_OK(aclnnApplyGradientDescentGetWorkspaceSize(x.tensor, alpha.tensor, g.tensor, &ws, &ex));
    run_phase2(aclnnApplyGradientDescent, ws, ex);
    double wx[N];
    for (int i = 0; i < N; i++) wx[i] = VAR[i] - 0.375 * GRAD[i];
    expect6("aclnnApplyGradientDescent var", &x, wx);
    CHECK_STATUS(aclnnApplyGradientDescentGetWorkspaceSize(x.tensor, NULL, g.tensor, &ws, &ex),
                 ACLNN_ERR_PARAM_NULLPTR);
    DevTensor *all[] = {&var, &acc, &lin, &g, &lr, &l1, &l2, &p, &x, &alpha};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) dev_free(all[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_apply_adam_w);
    RUN_TEST(test_apply_adam_d);
    RUN_TEST(test_apply_adamax_adadelta);
    RUN_TEST(test_apply_ftrl_gradient_descent);
    device_teardown();
    return capi_finish();
}
