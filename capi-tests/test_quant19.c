/* aclnnDequantBias as a CANN user calls it: int32 x (2, 3), f32 weightScale, f32
 * activateScale, int32 bias, f16 out; values checked, then one error status. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_dequant_bias.h"

static aclTensor *mk(const int64_t *shape, int64_t rank, aclDataType dt, size_t esz, const void *host, void **dev)
{
    int64_t n = 1, strides[2];
    for (int64_t i = rank - 1; i >= 0; i--) { strides[i] = n; n *= shape[i]; }
    aclrtMalloc(dev, (size_t)n * esz + 1, ACL_MEM_MALLOC_HUGE_FIRST);
    if (host) aclrtMemcpy(*dev, (size_t)n * esz, host, (size_t)n * esz, ACL_MEMCPY_HOST_TO_DEVICE);
    return aclCreateTensor(shape, (uint64_t)rank, dt, strides, 0, ACL_FORMAT_ND, shape, (uint64_t)rank, *dev);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? m / 16777216.0f : (float)(1024 + m) * (float)(1u << e) / 33554432.0f;
    return s ? -v : v;
}

int main(void)
{
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    int64_t xs[2] = {2, 3}, ns[1] = {3}, ms[1] = {2};
    int32_t x[6] = {1, -2, 300, 40, 5, -6};
    float ws[3] = {0.5f, 0.25f, 2.0f}, as[2] = {1.0f, 4.0f};
    int32_t bias[3] = {1, 2, -100};
    void *dx, *dw, *da, *db, *dy;
    aclTensor *tx = mk(xs, 2, ACL_INT32, 4, x, &dx), *tw = mk(ns, 1, ACL_FLOAT, 4, ws, &dw);
    aclTensor *ta = mk(ms, 1, ACL_FLOAT, 4, as, &da), *tb = mk(ns, 1, ACL_INT32, 4, bias, &db);
    aclTensor *ty = mk(xs, 2, ACL_FLOAT16, 2, NULL, &dy);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    int fails = 0;
    aclnnStatus st = aclnnDequantBiasGetWorkspaceSize(tx, tw, ta, tb, 1, ty, &wsz, &ex);
    if (st != 0) { printf("FAIL phase 1: %d %s\n", st, aclGetRecentErrMsg()); return 1; }
    st = aclnnDequantBias(NULL, wsz, ex, stream);
    aclrtSynchronizeStream(stream);
    uint16_t y[6];
    aclrtMemcpy(y, sizeof y, dy, sizeof y, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) {
            float want = (float)(x[r * 3 + c] + bias[c]) * ws[c] * as[r];
            if (st != 0 || f16_to_f32(y[r * 3 + c]) != want) {
                printf("FAIL y[%d][%d] = %g, want %g\n", r, c, f16_to_f32(y[r * 3 + c]), want);
                fails++;
            }
        }
    /* outputDtype 27 (BFLOAT16) does not go with a FLOAT weightScale and FLOAT16 out. */
    st = aclnnDequantBiasGetWorkspaceSize(tx, tw, ta, tb, 27, ty, &wsz, &ex);
    if (st != 161002) { printf("FAIL outputDtype 27 gave %d\n", st); fails++; }
    st = aclnnDequantBiasGetWorkspaceSize(NULL, tw, ta, tb, 1, ty, &wsz, &ex);
    if (st != 161001) { printf("FAIL NULL x gave %d\n", st); fails++; }
    printf(fails ? "test_quant19: %d failures\n" : "test_quant19: ok\n", fails);
    return fails != 0;
}
