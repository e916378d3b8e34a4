/*
 * The LLM family as a CANN user (and llama.cpp's CANN back-end) calls it: Mv, Ger,
 * Addcdiv/Addcmul (+ in place), Sum over a tensor list, TriangularSolve, the rotary
 * position embedding, WeightQuantBatchMatmulV2 on a transposed int8 weight view, the
 * fused attention in BSND with a broadcast pseShift, and RecurrentGatedDeltaRule's
 * refusal. Expected values are worked out by hand here.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_addcmul.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_ger.h"
#include "aclnnop/aclnn_mv.h"
#include "aclnnop/aclnn_recurrent_gated_delta_rule.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_sum.h"
#include "aclnnop/aclnn_triangular_solve.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"

#include <math.h>

#define F ACL_FLOAT
#define H ACL_FLOAT16

/* A new contiguous tensor handle over t's storage (for a tensor list, which owns its members). */
static aclTensor *alias(const DevTensor *t, const int64_t *shape, size_t n)
{
    int64_t st[8];
    contiguous_strides(shape, n, st);
    aclTensor *a = aclCreateTensor(shape, n, t->dtype, st, 0, ACL_FORMAT_ND, shape, n, t->dev);
    CHECK(a != NULL);
    return a;
}

static void test_mv_and_ger(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s2[] = {2};
    DevTensor a = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), x = mk(F, s3, 1, V(1, 0, -1)), y = mk(F, s2, 1, NULL);
    RUN2(aclnnMvGetWorkspaceSize(a.tensor, x.tensor, y.tensor, 1, &ews, &eex), aclnnMv);
    EXPECT_T(y, -2, -2);
    EXPECT_ERR(aclnnMvGetWorkspaceSize(NULL, x.tensor, y.tensor, 1, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnMvGetWorkspaceSize", "self", &y);
    DevTensor xh = mk(H, s3, 1, V(1, 0, -1));
    EXPECT_ERR(aclnnMvGetWorkspaceSize(a.tensor, xh.tensor, y.tensor, 1, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMvGetWorkspaceSize", "vec", &y);

    DevTensor u = mk(F, s2, 1, V(1, 2)), v = mk(F, s3, 1, V(3, 4, 5)), o = mk(F, s23, 2, NULL);
    RUN2(aclnnGerGetWorkspaceSize(u.tensor, v.tensor, o.tensor, &ews, &eex), aclnnGer);
    EXPECT_T(o, 3, 4, 5, 6, 8, 10);
    EXPECT_ERR(aclnnGerGetWorkspaceSize(u.tensor, v.tensor, y.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGerGetWorkspaceSize", "out", &y);
    dev_free(&a);
    dev_free(&x);
    dev_free(&y);
    dev_free(&xh);
    dev_free(&u);
    dev_free(&v);
    dev_free(&o);
}

static void test_addcdiv_addcmul_sum(void)
{
    int64_t s2[] = {2}, s1[] = {1}, s3[] = {3};
    DevTensor s = mk(F, s2, 1, V(1, 2)), t1 = mk(F, s2, 1, V(2, 4)), t2 = mk(F, s2, 1, V(4, 8)), out = mk(F, s2, 1, NULL);
    aclScalar *two = sc(F, 2), *half = sc(F, 0.5);
    RUN2(aclnnAddcdivGetWorkspaceSize(s.tensor, t1.tensor, t2.tensor, two, out.tensor, &ews, &eex), aclnnAddcdiv);
    EXPECT_T(out, 2, 3);
    RUN2(aclnnAddcmulGetWorkspaceSize(s.tensor, t1.tensor, t2.tensor, half, out.tensor, &ews, &eex), aclnnAddcmul);
    EXPECT_T(out, 5, 18);
    RUN2(aclnnInplaceAddcmulGetWorkspaceSize(s.tensor, t1.tensor, t2.tensor, half, &ews, &eex), aclnnInplaceAddcmul);
    EXPECT_T(s, 5, 18);
    RUN2(aclnnInplaceAddcdivGetWorkspaceSize(s.tensor, t1.tensor, t2.tensor, two, &ews, &eex), aclnnInplaceAddcdiv);
    EXPECT_T(s, 6, 19);

    DevTensor a = mk(F, s3, 1, V(1, 2, 3)), b = mk(F, s1, 1, V(10)), c = mk(F, s3, 1, V(100, 200, 300)),
              sum = mk(F, s3, 1, NULL);
    aclTensor *members[] = {alias(&a, s3, 1), alias(&b, s1, 1), alias(&c, s3, 1)};
    aclTensorList *list = aclCreateTensorList((const aclTensor *const *)members, 3);
    CHECK(list != NULL);
    RUN2(aclnnSumGetWorkspaceSize(list, sum.tensor, &ews, &eex), aclnnSum);
    EXPECT_T(sum, 111, 212, 313);
    CHECK_OK(aclDestroyTensorList(list));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(half));
    dev_free(&s);
    dev_free(&t1);
    dev_free(&t2);
    dev_free(&out);
    dev_free(&a);
    dev_free(&b);
    dev_free(&c);
    dev_free(&sum);
}

static void test_triangular_solve(void)
{
    /* as ggml's SOLVE_TRI: lower, not transposed, not unit: [[2, 0], [1, 1]] x = [2, 3] */
    int64_t s22[] = {2, 2}, s21[] = {2, 1};
    DevTensor a = mk(F, s22, 2, V(2, 99, 1, 1)), b = mk(F, s21, 2, V(2, 3)), x = mk(F, s21, 2, NULL),
              m = mk(F, s22, 2, NULL);
    RUN2(aclnnTriangularSolveGetWorkspaceSize(b.tensor, a.tensor, false, false, false, x.tensor, m.tensor, &ews, &eex),
         aclnnTriangularSolve);
    EXPECT_T(x, 1, 2);
    EXPECT_T(m, 2, 99, 1, 1);
    /* upper, transposed: Aᵀ of the upper triangle [[2, 99], [0, 1]] is [[2, 0], [99, 1]] */
    RUN2(aclnnTriangularSolveGetWorkspaceSize(b.tensor, a.tensor, true, true, false, x.tensor, NULL, &ews, &eex),
         aclnnTriangularSolve);
    EXPECT_T(x, 1, -96);
    DevTensor bad = mk(F, s22, 2, NULL);
    EXPECT_ERR(aclnnTriangularSolveGetWorkspaceSize(b.tensor, a.tensor, false, false, false, bad.tensor, NULL, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnTriangularSolveGetWorkspaceSize", "xOut", &bad);
    dev_free(&a);
    dev_free(&b);
    dev_free(&x);
    dev_free(&m);
    dev_free(&bad);
}

static void test_rope(void)
{
    int64_t s[] = {1, 1, 1, 4};
    DevTensor x = mk(F, s, 4, V(1, 2, 3, 4)), c = mk(F, s, 4, V(1, 1, 1, 1)), sn = mk(F, s, 4, V(1, 1, 1, 1)),
              out = mk(F, s, 4, NULL);
    /* half: rotate = (-3, -4, 1, 2) */
    RUN2(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.tensor, c.tensor, sn.tensor, 0, out.tensor, &ews, &eex),
         aclnnRotaryPositionEmbedding);
    EXPECT_T(out, -2, -2, 4, 6);
    /* interleave: rotate = (-2, 1, -4, 3) */
    RUN2(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.tensor, c.tensor, sn.tensor, 1, out.tensor, &ews, &eex),
         aclnnRotaryPositionEmbedding);
    EXPECT_T(out, -1, 3, -1, 7);
    EXPECT_ERR(aclnnRotaryPositionEmbeddingGetWorkspaceSize(x.tensor, c.tensor, sn.tensor, 7, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRotaryPositionEmbeddingGetWorkspaceSize", "mode", &out);
    dev_free(&x);
    dev_free(&c);
    dev_free(&sn);
    dev_free(&out);
}

static void test_weight_quant_matmul(void)
{
    /* ggml's Q8_0 layout: the (n, k) int8 rows [[1, 2], [3, 4]] seen as a (k, n) view */
    int64_t sx[] = {1, 2}, store[] = {2, 2}, wshape[] = {2, 2}, wstr[] = {1, 2}, s2[] = {2}, sy[] = {1, 2};
    DevTensor x = mk(H, sx, 2, V(1, 2));
    DevTensor w = mkv(ACL_INT8, store, 2, V(1, 2, 3, 4), wshape, 2, wstr, 0);
    DevTensor scale = mk(H, s2, 1, V(0.5, 1)), y = mk(H, sy, 2, NULL);
    /* weight = [[1, 3], [2, 4]], dequantized per channel [[0.5, 3], [1, 4]] */
    RUN2(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.tensor, w.tensor, scale.tensor, NULL, NULL, NULL, NULL, 0,
                                                       y.tensor, &ews, &eex),
         aclnnWeightQuantBatchMatmulV2);
    EXPECT_T(y, 2.5, 11);
    /* with an offset of -1: [[0, 2], [0.5, 3]] */
    DevTensor off = mk(H, s2, 1, V(-1, -1));
    RUN2(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.tensor, w.tensor, scale.tensor, off.tensor, NULL, NULL, NULL,
                                                       0, y.tensor, &ews, &eex),
         aclnnWeightQuantBatchMatmulV2);
    EXPECT_T(y, 1, 8);
    EXPECT_ERR(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.tensor, w.tensor, scale.tensor, NULL, NULL, NULL, NULL,
                                                             48, y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize", "antiquantGroupSize", &y);
    dev_free(&x);
    dev_free(&w);
    dev_free(&scale);
    dev_free(&y);
    dev_free(&off);
}

static void test_attention(void)
{
    /* BSND, one head: q = (1, 0), keys (1, 0) and (0, 1), values (1, 2) and (3, 4), scale 1 */
    int64_t sq[] = {1, 1, 1, 2}, skv[] = {1, 2, 1, 2}, spse[] = {1, 1, 1, 2};
    DevTensor q = mk(H, sq, 4, V(1, 0)), k = mk(H, skv, 4, V(1, 0, 0, 1)), v = mk(H, skv, 4, V(1, 2, 3, 4)),
              out = mk(H, sq, 4, NULL), pse = mk(H, spse, 4, V(0, 1));
    aclTensor *km[] = {alias(&k, skv, 4)}, *vm[] = {alias(&v, skv, 4)};
    aclTensorList *kl = aclCreateTensorList((const aclTensor *const *)km, 1);
    aclTensorList *vl = aclCreateTensorList((const aclTensor *const *)vm, 1);
    char layout[] = "BSND";
    RUN2(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
             q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1, 0, 0, 0, 0, false, 0, 0,
             out.tensor, NULL, &ews, &eex),
         aclnnFusedInferAttentionScoreV2);
    /* softmax(1, 0) = (p, 1 - p), p = 1 / (1 + e^-1) */
    double p = 1.0 / (1.0 + exp(-1.0));
    EXPECT_T(out, 3 - 2 * p, 4 - 2 * p);
    /* a pseShift of (0, 1) makes the scores equal: the mean of the values */
    RUN2(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
             q.tensor, kl, vl, pse.tensor, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1, 0, 0, 0, 0, false, 0, 0,
             out.tensor, NULL, &ews, &eex),
         aclnnFusedInferAttentionScoreV2);
    EXPECT_T(out, 2, 3);
    char tnd[] = "TND";
    EXPECT_ERR(aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
                   q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, tnd, 1, 0, 0, 0, 0, false, 0, 0,
                   out.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnFusedInferAttentionScoreV2GetWorkspaceSize", "inputLayout", &out);
    CHECK_OK(aclDestroyTensorList(kl));
    CHECK_OK(aclDestroyTensorList(vl));
    dev_free(&q);
    dev_free(&k);
    dev_free(&v);
    dev_free(&out);
    dev_free(&pse);
}

static void test_recurrent_gated_delta_rule_is_refused(void)
{
    int64_t sqk[] = {1, 1, 2}, sb[] = {1, 1}, sst[] = {1, 1, 2, 2}, s1[] = {1};
    DevTensor q = mk(ACL_BF16, sqk, 3, NULL), b = mk(ACL_BF16, sb, 2, NULL), st = mk(ACL_BF16, sst, 4, NULL),
              len = mk(ACL_INT32, s1, 1, V(1)), idx = mk(ACL_INT32, s1, 1, V(0)), acc = mk(ACL_INT32, s1, 1, V(1)),
              out = mk(ACL_BF16, sqk, 3, NULL);
    EXPECT_ERR(aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(q.tensor, q.tensor, q.tensor, b.tensor, st.tensor,
                                                            len.tensor, idx.tensor, NULL, NULL, acc.tensor, 0.5f,
                                                            out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRecurrentGatedDeltaRuleGetWorkspaceSize", NULL, &out);
    dev_free(&q);
    dev_free(&b);
    dev_free(&st);
    dev_free(&len);
    dev_free(&idx);
    dev_free(&acc);
    dev_free(&out);
}

int main(void)
{
    device_init();
    RUN_TEST(test_mv_and_ger);
    RUN_TEST(test_addcdiv_addcmul_sum);
    RUN_TEST(test_triangular_solve);
    RUN_TEST(test_rope);
    RUN_TEST(test_weight_quant_matmul);
    RUN_TEST(test_attention);
    RUN_TEST(test_recurrent_gated_delta_rule_is_refused);
    device_teardown();
    return capi_finish();
}
