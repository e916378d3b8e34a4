/* aclnnApplyAdamWQuant as a CANN user calls it (the doc's sample, with data): 300 f32
 * parameters in two blocks of the 8-bit state (codes into linear maps, one scale per 256
 * elements), one step with blockSize 256 and quantMode "BLOCKWISE"; every output is
 * checked against the step written out below in f32 (dequantize, AdamW, block maxima,
 * nearest code, sign fix). Then blockSize 128 (161002) and a NULL grad (161001). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_apply_adam_w_quant.h"

#define N 300
#define NB 2

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

/* The nearest entry of an ascending map (the first on ties), then the sign fix. */
static uint8_t code_of(float x, const float *q)
{
    int best = 0;
    float bd = fabsf(x - q[0]);
    for (int j = 1; j < 256; j++) {
        float d = fabsf(x - q[j]);
        if (d < bd) { bd = d; best = j; }
    }
    if (q[0] < 0 && x * q[best] < 0) best += x > 0 ? 1 : -1;
    if (best < 0) best = 0;
    if (best > 255) best = 255;
    return (uint8_t)best;
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    static float var[N], grad[N], qm[256], qv[256], am[NB] = {0.5f, 2.0f}, av[NB] = {0.25f, 1.0f};
    static uint8_t m[N], v[N];
    int64_t step = 3;
    for (int i = 0; i < 256; i++) { qm[i] = -1.0f + 2.0f * i / 255.0f; qv[i] = i / 255.0f; }
    for (int i = 0; i < N; i++) {
        var[i] = (float)((i % 17) - 8) / 4.0f;
        grad[i] = (float)((i * 7 % 23) - 11) / 8.0f;
        m[i] = (uint8_t)(i * 37 % 256);
        v[i] = (uint8_t)(i * 11 % 256);
    }
    int64_t s1x300[2] = {3, 100}, s256[1] = {256}, s2[1] = {NB}, s1[1] = {1};
    void *dvar, *dgrad, *dm, *dv, *dqm, *dqv, *dam, *dav, *dstep;
    aclTensor *tvar = mk(s1x300, 2, ACL_FLOAT, 4, var, &dvar), *tgrad = mk(s1x300, 2, ACL_FLOAT, 4, grad, &dgrad);
    aclTensor *tm = mk(s1x300, 2, ACL_UINT8, 1, m, &dm), *tv = mk(s1x300, 2, ACL_UINT8, 1, v, &dv);
    aclTensor *tqm = mk(s256, 1, ACL_FLOAT, 4, qm, &dqm), *tqv = mk(s256, 1, ACL_FLOAT, 4, qv, &dqv);
    aclTensor *tam = mk(s2, 1, ACL_FLOAT, 4, am, &dam), *tav = mk(s2, 1, ACL_FLOAT, 4, av, &dav);
    aclTensor *tstep = mk(s1, 1, ACL_INT64, 8, &step, &dstep);
    const double lr = 0.1, beta1 = 0.9, beta2 = 0.999, weightDecay = 0.01, eps = 1e-8, gnormScale = 0.5;
    char quantMode[] = "BLOCKWISE";
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnApplyAdamWQuantGetWorkspaceSize(tvar, tgrad, tm, tv, tqm, tqv, tam, tav, tstep, lr, beta1,
        beta2, weightDecay, eps, gnormScale, quantMode, 256, &wsz, &ex);
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = aclnnApplyAdamWQuant(ws, wsz, ex, stream);
    if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); fails++; }
    aclrtSynchronizeStream(stream);
    float gvar[N], gam[NB], gav[NB];
    uint8_t gm[N], gv[N];
    aclrtMemcpy(gvar, sizeof gvar, dvar, sizeof gvar, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(gm, sizeof gm, dm, sizeof gm, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(gv, sizeof gv, dv, sizeof gv, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(gam, sizeof gam, dam, sizeof gam, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(gav, sizeof gav, dav, sizeof gav, ACL_MEMCPY_DEVICE_TO_HOST);
    /* The step in f32, as the device computes it. */
    const float flr = (float)lr, b1 = (float)beta1, b2 = (float)beta2, wd = (float)weightDecay;
    const float t = (float)step + 1.0f;
    const float c1 = 1.0f - powf(b1, t), c2 = sqrtf(1.0f - powf(b2, t)), size = -flr * c2 / c1;
    static float sm[N], sv[N];
    for (int b = 0; b < NB; b++) {
        float mx_m = 0, mx_v = 0;
        int lo = b * 256, hi = lo + 256 < N ? lo + 256 : N;
        for (int i = lo; i < hi; i++) {
            float g = grad[i] * (float)gnormScale;
            sm[i] = qm[m[i]] * am[b] * b1 + (1.0f - b1) * g;
            sv[i] = qv[v[i]] * av[b] * b2 + (1.0f - b2) * (g * g);
            float p = var[i] + size * sm[i] / (sqrtf(sv[i]) + (float)eps * c2);
            p = p * (1.0f - flr * wd);
            if (fabsf(gvar[i] - p) > 1e-6f * (fabsf(p) + 1.0f)) {
                printf("FAIL varRef[%d] = %.9g, want %.9g\n", i, gvar[i], p);
                fails++;
            }
            if (fabsf(sm[i]) > mx_m) mx_m = fabsf(sm[i]);
            if (sv[i] > mx_v) mx_v = sv[i];
        }
        if (gam[b] != mx_m || gav[b] != mx_v) {
            printf("FAIL block %d scales %.9g %.9g, want %.9g %.9g\n", b, gam[b], gav[b], mx_m, mx_v);
            fails++;
        }
        for (int i = lo; i < hi; i++) {
            uint8_t wm = code_of(sm[i] / mx_m, qm), wv = code_of(sv[i] / mx_v, qv);
            if (gm[i] != wm || gv[i] != wv) {
                printf("FAIL codes[%d] = %d %d, want %d %d\n", i, gm[i], gv[i], wm, wv);
                fails++;
            }
        }
    }
    st = aclnnApplyAdamWQuantGetWorkspaceSize(tvar, tgrad, tm, tv, tqm, tqv, tam, tav, tstep, lr, beta1, beta2,
        weightDecay, eps, gnormScale, quantMode, 128, &wsz, &ex);
    if (st != 161002) { printf("FAIL blockSize 128 gave %d\n", st); fails++; }
    st = aclnnApplyAdamWQuantGetWorkspaceSize(tvar, NULL, tm, tv, tqm, tqv, tam, tav, tstep, lr, beta1, beta2,
        weightDecay, eps, gnormScale, quantMode, 256, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL grad gave %d\n", st); fails++; }
    if (ws) aclrtFree(ws);
    aclDestroyTensor(tvar); aclDestroyTensor(tgrad); aclDestroyTensor(tm); aclDestroyTensor(tv);
    aclDestroyTensor(tqm); aclDestroyTensor(tqv); aclDestroyTensor(tam); aclDestroyTensor(tav);
    aclDestroyTensor(tstep);
    aclrtFree(dvar); aclrtFree(dgrad); aclrtFree(dm); aclrtFree(dv); aclrtFree(dqm); aclrtFree(dqv);
    aclrtFree(dam); aclrtFree(dav); aclrtFree(dstep);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_apply_adam_w_quant: ok\n");
    return 0;
}
