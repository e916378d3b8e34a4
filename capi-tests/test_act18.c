/* aclnnEluV2, aclnnFastGeluV2, aclnnHardsigmoidV2/aclnnInplaceHardsigmoidV2 and
 * aclnnThresholdV2 as a CANN user calls them: f32 (6) tensors, values checked against the
 * documented formulas, then error statuses. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_elu_v2.h"
#include "aclnnop/aclnn_fast_gelu_v2.h"
#include "aclnnop/aclnn_hardsigmoid_v2.h"
#include "aclnnop/aclnn_threshold_v2.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static int fails = 0;

static void check(const char *what, void *dev, const double *want)
{
    float got[6];
    aclrtMemcpy(got, sizeof got, dev, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 6; i++)
        if (fabs(got[i] - want[i]) > 1e-6 * (1 + fabs(want[i]))) {
            printf("FAIL %s[%d] = %g, want %g\n", what, i, got[i], want[i]);
            fails++;
        }
}

#define RUN(name, phase1)                                                        \
    do {                                                                         \
        uint64_t wsz = 0;                                                        \
        aclOpExecutor *ex = NULL;                                                \
        aclnnStatus st = phase1;                                                 \
        if (st != 0) { printf("FAIL %s phase 1: %d %s\n", #name, st, aclGetRecentErrMsg()); fails++; break; } \
        st = name(NULL, wsz, ex, stream);                                        \
        aclrtSynchronizeStream(stream);                                          \
        if (st != 0) { printf("FAIL %s: %d\n", #name, st); fails++; }          \
    } while (0)

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int64_t s[1] = {6};
    float x[6] = {-2.0f, -0.5f, 0.0f, 0.5f, 3.0f, 4.0f};
    void *dx, *dy, *dh, *dz;
    aclTensor *tx = mk(s, 1, ACL_FLOAT, 4, x, &dx), *ty = mk(s, 1, ACL_FLOAT, 4, NULL, &dy);
    aclTensor *th = mk(s, 1, ACL_FLOAT, 4, x, &dh), *tz = mk(s, 1, ACL_FLOAT16, 2, NULL, &dz);
    float one = 1.0f, two = 2.0f, half = 0.5f, minus1 = -1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT), *scale = aclCreateScalar(&two, ACL_FLOAT);
    aclScalar *inScale = aclCreateScalar(&half, ACL_FLOAT), *value = aclCreateScalar(&minus1, ACL_FLOAT);
    double want[6];

    RUN(aclnnEluV2, aclnnEluV2GetWorkspaceSize(tx, alpha, scale, inScale, ty, &wsz, &ex));
    for (int i = 0; i < 6; i++) want[i] = x[i] >= 0 ? 2.0 * x[i] : 2.0 * expm1(0.5 * x[i]);
    check("EluV2", dy, want);

    RUN(aclnnFastGeluV2, aclnnFastGeluV2GetWorkspaceSize(tx, ty, &wsz, &ex));
    for (int i = 0; i < 6; i++) {
        double sg = x[i] + 1e-12 >= 0 ? 1.0 : -1.0, c = fmin(fabs(0.7071 * x[i]), 1.769) - 1.769;
        want[i] = x[i] * (sg * (-0.1444 * c * c + 0.5) + 0.5);
    }
    check("FastGeluV2", dy, want);

    RUN(aclnnHardsigmoidV2, aclnnHardsigmoidV2GetWorkspaceSize(tx, ty, &wsz, &ex));
    for (int i = 0; i < 6; i++) want[i] = fmin(fmax(x[i] + 3.0, 0.0), 6.0) / 6.0;
    check("HardsigmoidV2", dy, want);
    RUN(aclnnInplaceHardsigmoidV2, aclnnInplaceHardsigmoidV2GetWorkspaceSize(th, &wsz, &ex));
    check("InplaceHardsigmoidV2", dh, want);

    RUN(aclnnThresholdV2, aclnnThresholdV2GetWorkspaceSize(tx, inScale, value, ty, &wsz, &ex));
    for (int i = 0; i < 6; i++) want[i] = x[i] > 0.5 ? x[i] : -1.0;
    check("ThresholdV2", dy, want);

    /* out of another dtype than self's; NULL self. */
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnThresholdV2GetWorkspaceSize(tx, inScale, value, tz, &wsz, &ex);
    if (st != 161002) { printf("FAIL ThresholdV2 f16 out gave %d\n", st); fails++; }
    st = aclnnFastGeluV2GetWorkspaceSize(tx, tz, &wsz, &ex);
    if (st != 161002) { printf("FAIL FastGeluV2 f16 out gave %d\n", st); fails++; }
    st = aclnnEluV2GetWorkspaceSize(NULL, alpha, scale, inScale, ty, &wsz, &ex);
    if (st != 161001) { printf("FAIL EluV2 NULL self gave %d\n", st); fails++; }
    st = aclnnEluV2GetWorkspaceSize(tx, alpha, NULL, inScale, ty, &wsz, &ex);
    if (st != 161001) { printf("FAIL EluV2 NULL scale gave %d\n", st); fails++; }

    aclDestroyTensor(tx); aclDestroyTensor(ty); aclDestroyTensor(th); aclDestroyTensor(tz);
    aclDestroyScalar(alpha); aclDestroyScalar(scale); aclDestroyScalar(inScale); aclDestroyScalar(value);
    aclrtFree(dx); aclrtFree(dy); aclrtFree(dh); aclrtFree(dz);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf(fails ? "test_act18: %d failures\n" : "test_act18: ok\n", fails);
    return fails != 0;
}
