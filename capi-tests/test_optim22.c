/* aclnnApplyFusedEmaAdam as a CANN user calls it (the values of CANN's example: grad, var,
 * m, v, s all 1..8 in a (2, 2, 2) f32 tensor, step 10, AdamW mode with bias correction);
 * the four updated tensors checked against the documented formula, then error statuses. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_apply_fused_ema_adam.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[3];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int close_to(float got, double want)
{
    return fabs((double)got - want) <= 1e-5 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int64_t shape[3] = {2, 2, 2}, sshape[1] = {1};
    float init[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t step = 10;
    void *d[6];
    aclTensor *t[6];
    for (int k = 0; k < 5; k++) t[k] = mk(shape, 3, ACL_FLOAT, 4, init, &d[k]);
    t[5] = mk(sshape, 1, ACL_INT64, 8, &step, &d[5]);
    double lr = 0.001, ema = 0.5, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.5;
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnApplyFusedEmaAdamGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], lr, ema, b1, b2,
                                                            eps, 1, true, wd, &wsz, &ex);
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = aclnnApplyFusedEmaAdam(NULL, wsz, ex, stream);
    if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); fails++; }
    aclrtSynchronizeStream(stream);
    float out[4][8];
    for (int k = 0; k < 4; k++)
        aclrtMemcpy(out[k], sizeof out[k], d[k + 1], sizeof out[k], ACL_MEMCPY_DEVICE_TO_HOST);
    double c1 = 1.0 - pow((double)(float)b1, 10.0), c2 = 1.0 - pow((double)(float)b2, 10.0);
    for (int i = 0; i < 8; i++) {
        double x = init[i], g = x;
        double m = (float)b1 * x + (1.0 - (float)b1) * g;
        double v = (float)b2 * x + (1.0 - (float)b2) * g * g;
        double u = (m / c1) / (sqrt(v / c2) + (float)eps) + wd * x;
        double var = x - (float)lr * u;
        double s = ema * x + (1.0 - ema) * var;
        double want[4] = {var, m, v, s};
        for (int k = 0; k < 4; k++)
            if (!close_to(out[k][i], want[k])) {
                printf("FAIL tensor %d element %d = %.9g, want %.9g\n", k, i, out[k][i], want[k]);
                fails++;
            }
    }
    /* mode 2 is neither L2 nor AdamW; a NULL sRef. */
    st = aclnnApplyFusedEmaAdamGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], lr, ema, b1, b2, eps, 2, true,
                                                wd, &wsz, &ex);
    if (st != 161002) { printf("FAIL mode 2 gave %d\n", st); fails++; }
    st = aclnnApplyFusedEmaAdamGetWorkspaceSize(t[0], t[1], t[2], t[3], NULL, t[5], lr, ema, b1, b2, eps, 1, true,
                                                wd, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL sRef gave %d\n", st); fails++; }
    for (int k = 0; k < 6; k++) { aclDestroyTensor(t[k]); aclrtFree(d[k]); }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_optim22: ok\n");
    return 0;
}
