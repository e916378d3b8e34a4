/* aclnnCrossEntropyLoss, aclnnCrossEntropyLossGrad and aclnnMultilabelMarginLoss as a
 * CANN user calls them: f32 tensors, values checked against hand-computed numbers, then
 * the error statuses (the unsupported zloss mode, NULLs). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"
#include "aclnnop/aclnn_cross_entropy_loss_grad.h"
#include "aclnnop/aclnn_multilabel_margin_loss.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int fails = 0;
static void near(const char *what, int i, float got, double want)
{
    if (!(fabs(got - want) <= 1e-5 * (1 + fabs(want)))) {
        printf("FAIL %s[%d] = %.9g, want %.9g\n", what, i, got, want);
        fails++;
    }
}

static void run(aclnnStatus st, uint64_t wsz, aclOpExecutor *ex, aclrtStream stream,
                aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream))
{
    void *ws = NULL;
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); fails++; return; }
    if (wsz) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = phase2(ws, wsz, ex, stream);
    aclrtSynchronizeStream(stream);
    if (st != 0) { printf("FAIL phase 2: %d\n", st); fails++; }
    if (ws) aclrtFree(ws);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    /* CrossEntropyLoss: input (3, 4), targets {1, -100 (ignored), 3}, weights, mean, eps 0.1 */
    int64_t xs[2] = {3, 4}, ns[1] = {3}, cs[1] = {4}, one[1] = {1};
    float x[12] = {1, 2, 3, 4, -1, 0, 1, 0.5f, 2, -2, 0, 1};
    int64_t t[3] = {1, -100, 3};
    float w[4] = {1, 2, 0.5f, 1.5f};
    double eps = 0.1;
    void *dx, *dt, *dw, *dl, *dp, *dz, *dlse, *dg, *dgo;
    aclTensor *tx = mk(xs, 2, ACL_FLOAT, 4, x, &dx), *tt = mk(ns, 1, ACL_INT64, 8, t, &dt);
    aclTensor *tw = mk(cs, 1, ACL_FLOAT, 4, w, &dw), *tl = mk(one, 1, ACL_FLOAT, 4, NULL, &dl);
    aclTensor *tp = mk(xs, 2, ACL_FLOAT, 4, NULL, &dp), *tz = mk(one, 1, ACL_FLOAT, 4, NULL, &dz);
    aclTensor *tlse = mk(ns, 1, ACL_FLOAT, 4, NULL, &dlse);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnCrossEntropyLossGetWorkspaceSize(tx, tt, tw, "mean", -100, eps, 0.0, false,
                                                           tl, tp, tz, tlse, &wsz, &ex);
    run(st, wsz, ex, stream, aclnnCrossEntropyLoss);
    float loss, lp[12];
    aclrtMemcpy(&loss, 4, dl, 4, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(lp, sizeof lp, dp, sizeof lp, ACL_MEMCPY_DEVICE_TO_HOST);
    double lpw[12], num = 0, den = 0;
    for (int n = 0; n < 3; n++) {
        double m = -INFINITY, s = 0;
        for (int c = 0; c < 4; c++) m = fmax(m, x[n * 4 + c]);
        for (int c = 0; c < 4; c++) s += exp(x[n * 4 + c] - m);
        for (int c = 0; c < 4; c++) lpw[n * 4 + c] = x[n * 4 + c] - m - log(s);
        if (t[n] == -100) continue;
        double smooth = 0;
        for (int c = 0; c < 4; c++) smooth -= w[c] * lpw[n * 4 + c];
        num += (1 - eps) * -w[t[n]] * lpw[n * 4 + t[n]] + eps / 4 * smooth;
        den += w[t[n]];
    }
    for (int i = 0; i < 12; i++) near("logProb", i, lp[i], lpw[i]);
    near("loss", 0, loss, num / den);

    /* CrossEntropyLossGrad of that loss: gradLoss 1 (0-D), out (3, 4) */
    float g = 1.0f;
    aclTensor *tg = mk(one, 0, ACL_FLOAT, 4, &g, &dg), *tgo = mk(xs, 2, ACL_FLOAT, 4, NULL, &dgo);
    st = aclnnCrossEntropyLossGradGetWorkspaceSize(tg, tp, tt, tw, NULL, NULL, "mean", -100, eps, 0.0,
                                                   tgo, &wsz, &ex);
    run(st, wsz, ex, stream, aclnnCrossEntropyLossGrad);
    float go[12];
    aclrtMemcpy(go, sizeof go, dgo, sizeof go, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int n = 0; n < 3; n++)
        for (int c = 0; c < 4; c++) {
            double want = 0, p = exp((double)lp[n * 4 + c]);
            if (t[n] != -100) {
                double a = (1 - eps) * w[t[n]] / den, b = eps / 4 / den;
                want = a * (p - (c == t[n])) + b * (p * 5.0 - w[c]);
            }
            near("grad", n * 4 + c, go[n * 4 + c], want);
        }

    /* MultilabelMarginLoss: self (2, 4), targets {3, 0, -1, ..} and {1, -1, ..}, none */
    float mx[8] = {0.1f, 0.2f, 0.4f, 0.8f, 0.5f, -0.5f, 1.0f, 0.0f};
    int64_t mt[8] = {3, 0, -1, 1, 1, -1, 0, 0};
    int64_t ms[2] = {2, 4}, m1[1] = {2};
    void *dmx, *dmt, *dmo, *dmi;
    aclTensor *tmx = mk(ms, 2, ACL_FLOAT, 4, mx, &dmx), *tmt = mk(ms, 2, ACL_INT64, 8, mt, &dmt);
    aclTensor *tmo = mk(m1, 1, ACL_FLOAT, 4, NULL, &dmo), *tmi = mk(ms, 2, ACL_FLOAT, 4, NULL, &dmi);
    st = aclnnMultilabelMarginLossGetWorkspaceSize(tmx, tmt, 0, tmo, tmi, &wsz, &ex);
    run(st, wsz, ex, stream, aclnnMultilabelMarginLoss);
    float mo[2], mi[8];
    aclrtMemcpy(mo, sizeof mo, dmo, sizeof mo, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(mi, sizeof mi, dmi, sizeof mi, ACL_MEMCPY_DEVICE_TO_HOST);
    /* sample 0: targets {3, 0}, others {1, 2}: (1-0.8+0.2)+(1-0.8+0.4)+(1-0.1+0.2)+(1-0.1+0.4) = 3.4, /4;
     * sample 1: target {1}, others {0, 2, 3}: (1+0.5+0.5)+(1+0.5+1)+(1+0.5+0) = 6, /4 */
    near("margin", 0, mo[0], 3.4 / 4);
    near("margin", 1, mo[1], 6.0 / 4);
    float miw[8] = {1, 0, 0, 1, 0, 1, 0, 0};
    for (int i = 0; i < 8; i++) near("isTarget", i, mi[i], miw[i]);

    /* errors: the zloss mode is not supported; NULL tensors */
    st = aclnnCrossEntropyLossGetWorkspaceSize(tx, tt, tw, "mean", -100, 0.0, 0.5, false, tl, tp, tz, tlse, &wsz, &ex);
    if (st != 161002) { printf("FAIL lseSquareScaleForZloss 0.5 gave %d\n", st); fails++; }
    st = aclnnCrossEntropyLossGetWorkspaceSize(tx, tt, tw, "mean", -100, 0.0, 0.0, true, tl, tp, tz, tlse, &wsz, &ex);
    if (st != 161002) { printf("FAIL returnZloss gave %d\n", st); fails++; }
    st = aclnnCrossEntropyLossGetWorkspaceSize(tx, tt, tw, "mean", -100, 0.0, 0.0, false, tl, tp, NULL, tlse, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL zlossOut gave %d\n", st); fails++; }
    st = aclnnCrossEntropyLossGradGetWorkspaceSize(NULL, tp, tt, tw, NULL, NULL, "mean", -100, 0.0, 0.0, tgo, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL gradLoss gave %d\n", st); fails++; }
    st = aclnnMultilabelMarginLossGetWorkspaceSize(tmx, tmt, 0, tmo, NULL, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL isTarget gave %d\n", st); fails++; }
    printf(fails ? "test_loss18: %d failures\n" : "test_loss18: ok\n", fails);
    return fails != 0;
}
