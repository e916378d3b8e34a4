/* aclnnTanhBackward as a CANN user calls it: gradOutput (2, 3) f32 and output (3) broadcast
 * along the rows, gradInput (2, 3) checked against gradOutput·(1 − output²); then a dtype
 * mismatch (161002) and a NULL output (161001). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_tanh_backward.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int64_t s23[2] = {2, 3}, s3[1] = {3};
    float g[6] = {1, 2, 3, -1, 0.5f, 4}, y[3] = {0.5f, -0.25f, 0.9f};
    void *dg, *dy, *dout, *dh;
    aclTensor *tg = mk(s23, 2, ACL_FLOAT, 4, g, &dg), *ty = mk(s3, 1, ACL_FLOAT, 4, y, &dy);
    aclTensor *tout = mk(s23, 2, ACL_FLOAT, 4, NULL, &dout), *th = mk(s3, 1, ACL_FLOAT16, 2, NULL, &dh);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnTanhBackwardGetWorkspaceSize(tg, ty, tout, &wsz, &ex);
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    void *ws = NULL;
    if (wsz > 0) aclrtMalloc(&ws, wsz, ACL_MEM_MALLOC_HUGE_FIRST);
    st = aclnnTanhBackward(ws, wsz, ex, stream);
    if (st != 0) { printf("FAIL phase 2: %d %s\n", st, aclGetRecentErrMsg()); fails++; }
    aclrtSynchronizeStream(stream);
    float out[6];
    aclrtMemcpy(out, sizeof out, dout, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 6; i++) {
        double want = (double)g[i] * (1.0 - (double)y[i % 3] * y[i % 3]);
        if (fabs(out[i] - want) > 1e-6 * (fabs(want) + 1.0)) {
            printf("FAIL gradInput[%d] = %.9g, want %.9g\n", i, out[i], want);
            fails++;
        }
    }
    st = aclnnTanhBackwardGetWorkspaceSize(tg, th, tout, &wsz, &ex);
    if (st != 161002) { printf("FAIL an f16 output gave %d\n", st); fails++; }
    st = aclnnTanhBackwardGetWorkspaceSize(tg, NULL, tout, &wsz, &ex);
    if (st != 161001) { printf("FAIL a NULL output gave %d\n", st); fails++; }
    if (ws) aclrtFree(ws);
    aclDestroyTensor(tg); aclDestroyTensor(ty); aclDestroyTensor(tout); aclDestroyTensor(th);
    aclrtFree(dg); aclrtFree(dy); aclrtFree(dout); aclrtFree(dh);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (fails) return 1;
    printf("test_backward: ok\n");
    return 0;
}
