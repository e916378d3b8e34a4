/*
 * aclnnWeightQuantBatchMatmulV3 as a CANN user calls it: f16 x, int8 weight with a
 * per-channel scale and offset, f16 bias, innerPrecise 0 and 1 (which compute alike for
 * ND weights); then innerPrecise out of range and a FRACTAL_NZ weight refused by name.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_weight_quant_batch_matmul_v3.h"

static void test_wqbmm_v3(void)
{
    int64_t s22[] = {2, 2}, s2[] = {2};
    /* y = x @ ((w + offset) * scale) + bias, small values: exact in f16. */
    DevTensor x = mk(ACL_FLOAT16, s22, 2, V(1, 2, -1, 3)), w = mk(ACL_INT8, s22, 2, V(1, -2, 3, 4)),
              sc = mk(ACL_FLOAT16, s2, 1, V(0.5, 2)), off = mk(ACL_FLOAT16, s2, 1, V(1, 0)),
              b = mk(ACL_FLOAT16, s2, 1, V(0.25, -1)), y = mk(ACL_FLOAT16, s22, 2, NULL);
    /* dequantized: [[1, -4], [2, 8]] */
    for (int ip = 0; ip < 2; ip++) {
        RUN2(aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(x.tensor, w.tensor, sc.tensor, off.tensor, NULL, NULL,
                                                           b.tensor, 0, ip, y.tensor, &ews, &eex),
             aclnnWeightQuantBatchMatmulV3);
        EXPECT_T(y, 5.25, 11, 5.25, 27);
    }
    EXPECT_ERR(aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(x.tensor, w.tensor, sc.tensor, off.tensor, NULL, NULL,
                                                             b.tensor, 0, 2, y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnWeightQuantBatchMatmulV3", "innerPrecise", &y);
    int64_t st[] = {2, 1}, s512[] = {512};
    DevTensor wbig = mk(ACL_INT8, s512, 1, NULL);
    aclTensor *wnz = aclCreateTensor(s22, 2, ACL_INT8, st, 0, ACL_FORMAT_FRACTAL_NZ, s512, 1, wbig.dev);
    CHECK(wnz != NULL);
    EXPECT_ERR(aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(x.tensor, wnz, sc.tensor, off.tensor, NULL, NULL,
                                                             b.tensor, 0, 1, y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnWeightQuantBatchMatmulV3", "FRACTAL_NZ", &y);
    CHECK_OK(aclDestroyTensor(wnz));
    dev_free(&wbig);
    dev_free(&x);
    dev_free(&w);
    dev_free(&sc);
    dev_free(&off);
    dev_free(&b);
    dev_free(&y);
}

int main(void)
{
    device_init();
    RUN_TEST(test_wqbmm_v3);
    device_teardown();
    return capi_finish();
}
