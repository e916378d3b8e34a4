/* aclnnCdist as a CANN user calls it: x1 (2, 3, 4) f32 and x2 (4, 4) broadcast over the
 * batch, out (2, 3, 4) checked against the direct p-norm for p = 2 (compute_mode 2), 1 and
 * inf; then p = 2 with compute_mode 0 and a negative p (161002) and a NULL x2 (161001). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_cdist.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, const void *host, void **dev)
{
    int64_t n = 1, strides[3];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * 4, host, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static double norm(const float *a, const float *b, float p)
{
    double s = 0;
    for (int k = 0; k < 4; k++) {
        double d = fabs((double)a[k] - b[k]);
        if (isinf(p)) s = d > s ? d : s;
        else s += pow(d, p);
    }
    return isinf(p) ? s : pow(s, 1.0 / p);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int64_t s1[3] = {2, 3, 4}, s2[2] = {4, 4}, so[3] = {2, 3, 4};
    float x1[24], x2[16];
    for (int i = 0; i < 24; i++) x1[i] = (float)((i * 7) % 11) / 4.0f - 1.0f;
    for (int i = 0; i < 16; i++) x2[i] = (float)((i * 5) % 13) / 8.0f - 0.5f;
    void *d1, *d2, *dout;
    aclTensor *t1 = mk(s1, 3, x1, &d1), *t2 = mk(s2, 2, x2, &d2), *tout = mk(so, 3, NULL, &dout);
    int fails = 0;
    const float ps[3] = {2.0f, 1.0f, INFINITY};
    for (int c = 0; c < 3; c++) {
        uint64_t wsz = 0;
        aclOpExecutor *ex = NULL;
        aclnnStatus st = aclnnCdistGetWorkspaceSize(t1, t2, ps[c], 2, tout, &wsz, &ex);
        if (st != 0) { printf("FAIL phase 1 (p %g): %d %s\n", ps[c], st, aclGetRecentErrMsg()); return 1; }
        void *ws = NULL;
        if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
        st = aclnnCdist(ws, wsz, ex, stream);
        if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); fails++; }
        aclrtSynchronizeStream(stream);
        if (ws) aclrtFree(ws);
        float out[24];
        aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    double want = norm(&x1[(b * 3 + i) * 4], &x2[j * 4], ps[c]);
                    float got = out[(b * 3 + i) * 4 + j];
                    if (fabs(got - want) > 1e-6 * (want + 1.0)) {
                        printf("FAIL p %g out[%d][%d][%d] = %.9g, want %.9g\n", ps[c], b, i, j, got, want);
                        fails++;
                    }
                }
    }
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnCdistGetWorkspaceSize(t1, t2, 2.0f, 0, tout, &wsz, &ex);
    if (st != 161002) { printf("FAIL p 2 with compute_mode 0 gave %d\n", st); fails++; }
    st = aclnnCdistGetWorkspaceSize(t1, t2, -1.0f, 0, tout, &wsz, &ex);
    if (st != 161002) { printf("FAIL p -1 gave %d\n", st); fails++; }
    st = aclnnCdistGetWorkspaceSize(t1, NULL, 1.0f, 0, tout, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL x2 gave %d\n", st); fails++; }
    aclDestroyTensor(t1); aclDestroyTensor(t2); aclDestroyTensor(tout);
    aclrtFree(d1); aclrtFree(d2); aclrtFree(dout);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_cdist: ok\n");
    return 0;
}
