/*
 * The attention and rotary-embedding entry points as a CANN user (vLLM-Ascend-style code,
 * llama.cpp's CANN back-end) calls them: FusedInferAttentionScore V1/V3/V4,
 * PromptFlashAttention V1-V3 (single key/value tensors), IncreFlashAttention V1-V4 (one
 * query token, key/value lists, a paged cache by blocktable), ApplyRotaryPosEmb(V2),
 * InterleaveRope and RopeWithSinCosCache, each with one refusal. Expected values are
 * worked out by hand here.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_apply_rotary_pos_emb.h"
#include "aclnnop/aclnn_apply_rotary_pos_emb_v2.h"
#include "aclnnop/aclnn_fused_infer_attention_score.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v3.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v4.h"
#include "aclnnop/aclnn_incre_flash_attention.h"
#include "aclnnop/aclnn_incre_flash_attention_v2.h"
#include "aclnnop/aclnn_incre_flash_attention_v3.h"
#include "aclnnop/aclnn_incre_flash_attention_v4.h"
#include "aclnnop/aclnn_interleave_rope.h"
#include "aclnnop/aclnn_prompt_flash_attention.h"
#include "aclnnop/aclnn_prompt_flash_attention_v2.h"
#include "aclnnop/aclnn_prompt_flash_attention_v3.h"
#include "aclnnop/aclnn_rope_with_sin_cos_cache.h"

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

static aclTensorList *list_of(const DevTensor *t, const int64_t *shape, size_t n)
{
    aclTensor *m[] = {alias(t, shape, n)};
    aclTensorList *l = aclCreateTensorList((const aclTensor *const *)m, 1);
    CHECK(l != NULL);
    return l;
}

/*
 * One head, BSND: q = (1, 0), keys (1, 0) and (0, 1), values (1, 2) and (3, 4), scale 1.
 * softmax(1, 0) = (p, 1 - p) with p = 1 / (1 + e^-1): out = (3 - 2p, 4 - 2p). A pseShift
 * of (0, 1) makes the scores equal (out = the mean (2, 3)); masking the second key, or a
 * key length of 1, gives the first value (1, 2).
 */
static int64_t sq[] = {1, 1, 1, 2}, skv[] = {1, 2, 1, 2}, spse[] = {1, 1, 1, 2};

static void test_fused_infer_attention_score_v1_v3_v4(void)
{
    DevTensor q = mk(H, sq, 4, V(1, 0)), k = mk(H, skv, 4, V(1, 0, 0, 1)), v = mk(H, skv, 4, V(1, 2, 3, 4)),
              out = mk(H, sq, 4, NULL), pse = mk(H, spse, 4, V(0, 1));
    aclTensorList *kl = list_of(&k, skv, 4), *vl = list_of(&v, skv, 4);
    char layout[] = "BSND";
    double p = 1.0 / (1.0 + exp(-1.0));
    int64_t slse[] = {1, 1, 1, 1};
    DevTensor l = mk(F, slse, 4, NULL);
    RUN2(aclnnFusedInferAttentionScoreGetWorkspaceSize(q.tensor, kl, vl, pse.tensor, NULL, NULL, NULL, NULL, NULL,
                                                       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535,
                                                       65535, layout, 1, 0, 0, 0, 0, true, out.tensor, l.tensor, &ews,
                                                       &eex),
         aclnnFusedInferAttentionScore);
    EXPECT_T(out, 2, 3);
    /* softmaxLse = max + ln(e^0 + e^0) = 1 + ln 2 */
    EXPECT_T(l, 1 + log(2.0));
    RUN2(aclnnFusedInferAttentionScoreV3GetWorkspaceSize(
             q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1, 0, 0, 0, 0,
             false, 0, 0, out.tensor, NULL, &ews, &eex),
         aclnnFusedInferAttentionScoreV3);
    EXPECT_T(out, 3 - 2 * p, 4 - 2 * p);
    int64_t kvlen[] = {1};
    aclIntArray *one = aclCreateIntArray(kvlen, 1);
    RUN2(aclnnFusedInferAttentionScoreV4GetWorkspaceSize(
             q.tensor, kl, vl, NULL, NULL, NULL, one, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1,
             0, 0, 0, 0, false, 0, 0, 0, out.tensor, NULL, &ews, &eex),
         aclnnFusedInferAttentionScoreV4);
    EXPECT_T(out, 1, 2);
    /* the MLA rope split (queryRope) and the learnable sinks are refused, named */
    EXPECT_ERR(aclnnFusedInferAttentionScoreV3GetWorkspaceSize(
                   q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, q.tensor, NULL, NULL, 1, 1.0, 65535, 65535,
                   layout, 1, 0, 0, 0, 0, false, 0, 0, out.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnFusedInferAttentionScoreV3GetWorkspaceSize", "queryRopeOptional", &out);
    EXPECT_ERR(aclnnFusedInferAttentionScoreV4GetWorkspaceSize(
                   q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, pse.tensor, 1, 1.0, 65535,
                   65535, layout, 1, 0, 0, 0, 0, false, 0, 0, 0, out.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnFusedInferAttentionScoreV4GetWorkspaceSize", "learnableSinkOptional",
               &out);
    EXPECT_ERR(aclnnFusedInferAttentionScoreGetWorkspaceSize(NULL, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                             NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535,
                                                             65535, layout, 1, 0, 0, 0, 0, false, out.tensor, NULL,
                                                             &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnFusedInferAttentionScoreGetWorkspaceSize", "query", &out);
    CHECK_OK(aclDestroyIntArray(one));
    CHECK_OK(aclDestroyTensorList(kl));
    CHECK_OK(aclDestroyTensorList(vl));
    dev_free(&q);
    dev_free(&k);
    dev_free(&v);
    dev_free(&out);
    dev_free(&pse);
    dev_free(&l);
}

static void test_prompt_flash_attention(void)
{
    DevTensor q = mk(H, sq, 4, V(1, 0)), k = mk(H, skv, 4, V(1, 0, 0, 1)), v = mk(H, skv, 4, V(1, 2, 3, 4)),
              out = mk(H, sq, 4, NULL), pse = mk(H, spse, 4, V(0, 1)), mask = mk(ACL_BOOL, spse, 4, V(0, 1));
    char layout[] = "BSND";
    double p = 1.0 / (1.0 + exp(-1.0));
    /* V1's pseShift is reserved: ignored */
    RUN2(aclnnPromptFlashAttentionGetWorkspaceSize(q.tensor, k.tensor, v.tensor, pse.tensor, NULL, NULL, 1, 1.0,
                                                   65535, 65535, layout, 1, out.tensor, &ews, &eex),
         aclnnPromptFlashAttention);
    EXPECT_T(out, 3 - 2 * p, 4 - 2 * p);
    RUN2(aclnnPromptFlashAttentionV2GetWorkspaceSize(q.tensor, k.tensor, v.tensor, pse.tensor, NULL, NULL, NULL, NULL,
                                                     NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1, 0,
                                                     out.tensor, &ews, &eex),
         aclnnPromptFlashAttentionV2);
    EXPECT_T(out, 2, 3);
    /* the mask hides the second key (sparseMode 1: the whole mask) */
    RUN2(aclnnPromptFlashAttentionV3GetWorkspaceSize(q.tensor, k.tensor, v.tensor, NULL, mask.tensor, NULL, NULL,
                                                     NULL, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535, layout, 1, 1,
                                                     1, out.tensor, &ews, &eex),
         aclnnPromptFlashAttentionV3);
    EXPECT_T(out, 1, 2);
    EXPECT_ERR(aclnnPromptFlashAttentionV3GetWorkspaceSize(q.tensor, k.tensor, v.tensor, NULL, NULL, NULL, NULL,
                                                           pse.tensor, NULL, NULL, NULL, NULL, 1, 1.0, 65535, 65535,
                                                           layout, 1, 0, 1, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnPromptFlashAttentionV3GetWorkspaceSize", "deqScale1", &out);
    char tnd[] = "TND";
    EXPECT_ERR(aclnnPromptFlashAttentionGetWorkspaceSize(q.tensor, k.tensor, v.tensor, NULL, NULL, NULL, 1, 1.0, 65535,
                                                         65535, tnd, 1, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnPromptFlashAttentionGetWorkspaceSize", "inputLayout", &out);
    dev_free(&q);
    dev_free(&k);
    dev_free(&v);
    dev_free(&out);
    dev_free(&pse);
    dev_free(&mask);
}

static void test_incre_flash_attention(void)
{
    DevTensor q = mk(H, sq, 4, V(1, 0)), k = mk(H, skv, 4, V(1, 0, 0, 1)), v = mk(H, skv, 4, V(1, 2, 3, 4)),
              out = mk(H, sq, 4, NULL), pse = mk(H, spse, 4, V(0, 1)), mask = mk(ACL_BOOL, spse, 4, V(0, 1));
    aclTensorList *kl = list_of(&k, skv, 4), *vl = list_of(&v, skv, 4);
    char layout[] = "BSND", bsh[] = "BSH";
    double p = 1.0 / (1.0 + exp(-1.0));
    RUN2(aclnnIncreFlashAttentionGetWorkspaceSize(q.tensor, kl, vl, NULL, NULL, NULL, 1, 1.0, layout, 1, out.tensor,
                                                  &ews, &eex),
         aclnnIncreFlashAttention);
    EXPECT_T(out, 3 - 2 * p, 4 - 2 * p);
    /* actualSeqLengths are the key/value lengths */
    int64_t len1[] = {1}, len2[] = {2};
    aclIntArray *one = aclCreateIntArray(len1, 1), *two = aclCreateIntArray(len2, 1);
    RUN2(aclnnIncreFlashAttentionV2GetWorkspaceSize(q.tensor, kl, vl, NULL, NULL, one, NULL, NULL, NULL, NULL, NULL, 1,
                                                    1.0, layout, 1, out.tensor, &ews, &eex),
         aclnnIncreFlashAttentionV2);
    EXPECT_T(out, 1, 2);
    RUN2(aclnnIncreFlashAttentionV3GetWorkspaceSize(q.tensor, kl, vl, pse.tensor, NULL, NULL, NULL, NULL, NULL, NULL,
                                                    NULL, NULL, NULL, NULL, 1, 1.0, layout, 1, 0, 1, out.tensor, &ews,
                                                    &eex),
         aclnnIncreFlashAttentionV3);
    EXPECT_T(out, 2, 3);
    RUN2(aclnnIncreFlashAttentionV4GetWorkspaceSize(q.tensor, kl, vl, NULL, mask.tensor, NULL, NULL, NULL, NULL, NULL,
                                                    NULL, NULL, NULL, NULL, NULL, 1, 1.0, layout, 1, 0, 1, out.tensor,
                                                    &ews, &eex),
         aclnnIncreFlashAttentionV4);
    EXPECT_T(out, 1, 2);
    /* a paged cache (2 blocks of 2 positions, H = 2): block 1 holds the keys and values */
    int64_t scache[] = {2, 2, 2}, stable[] = {1, 1}, sq3[] = {1, 1, 2};
    DevTensor kc = mk(H, scache, 3, V(9, 9, 9, 9, 1, 0, 0, 1)), vc = mk(H, scache, 3, V(9, 9, 9, 9, 1, 2, 3, 4)),
              table = mk(ACL_INT32, stable, 2, V(1)), q3 = mk(H, sq3, 3, V(1, 0)), out3 = mk(H, sq3, 3, NULL);
    aclTensorList *kcl = list_of(&kc, scache, 3), *vcl = list_of(&vc, scache, 3);
    RUN2(aclnnIncreFlashAttentionV4GetWorkspaceSize(q3.tensor, kcl, vcl, NULL, NULL, two, NULL, NULL, NULL, NULL, NULL,
                                                    NULL, NULL, table.tensor, NULL, 1, 1.0, bsh, 1, 2, 1, out3.tensor,
                                                    &ews, &eex),
         aclnnIncreFlashAttentionV4);
    EXPECT_T(out3, 3 - 2 * p, 4 - 2 * p);
    /* the antiquant (int8 KV) inputs are refused, named */
    EXPECT_ERR(aclnnIncreFlashAttentionV3GetWorkspaceSize(q.tensor, kl, vl, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                          NULL, pse.tensor, NULL, NULL, 1, 1.0, layout, 1, 0, 1,
                                                          out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIncreFlashAttentionV3GetWorkspaceSize", "antiquantScale", &out);
    /* one query token only */
    int64_t sq2[] = {1, 2, 1, 2};
    DevTensor q2 = mk(H, sq2, 4, V(1, 0, 1, 0)), out2 = mk(H, sq2, 4, NULL);
    EXPECT_ERR(aclnnIncreFlashAttentionGetWorkspaceSize(q2.tensor, kl, vl, NULL, NULL, NULL, 1, 1.0, layout, 1,
                                                        out2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIncreFlashAttentionGetWorkspaceSize", "query", &out2);
    CHECK_OK(aclDestroyIntArray(one));
    CHECK_OK(aclDestroyIntArray(two));
    CHECK_OK(aclDestroyTensorList(kl));
    CHECK_OK(aclDestroyTensorList(vl));
    CHECK_OK(aclDestroyTensorList(kcl));
    CHECK_OK(aclDestroyTensorList(vcl));
    dev_free(&q);
    dev_free(&k);
    dev_free(&v);
    dev_free(&out);
    dev_free(&pse);
    dev_free(&mask);
    dev_free(&kc);
    dev_free(&vc);
    dev_free(&table);
    dev_free(&q3);
    dev_free(&out3);
    dev_free(&q2);
    dev_free(&out2);
}

static void test_apply_rotary_pos_emb(void)
{
    /* V1: BSND, D = 128, cos = sin = 1: x + rotate_half(x), x[i] = i / 64 */
    int64_t s[] = {1, 1, 1, 128};
    double x[128], want[128];
    for (int i = 0; i < 128; i++) x[i] = i / 64.0;
    for (int i = 0; i < 128; i++) want[i] = x[i] + (i < 64 ? -x[i + 64] : x[i - 64]);
    double ones[128];
    for (int i = 0; i < 128; i++) ones[i] = 1;
    DevTensor q = mk(H, s, 4, x), k = mk(H, s, 4, x), c = mk(H, s, 4, ones), sn = mk(H, s, 4, ones);
    RUN2(aclnnApplyRotaryPosEmbGetWorkspaceSize(q.tensor, k.tensor, c.tensor, sn.tensor, 1, &ews, &eex),
         aclnnApplyRotaryPosEmb);
    double *got = dbl(128);
    rd(&q, got);
    CHECK_VALS("queryRef", H, got, want, 128);
    rd(&k, got);
    CHECK_VALS("keyRef", H, got, want, 128);
    free(got);
    EXPECT_ERR(aclnnApplyRotaryPosEmbGetWorkspaceSize(q.tensor, k.tensor, c.tensor, sn.tensor, 3, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnApplyRotaryPosEmbGetWorkspaceSize", "layout", NULL);
    /* V2, interleave, BNSD, D = 4: pairs (x0, x1) -> x + (-x1, x0) */
    int64_t s4[] = {1, 1, 1, 4};
    DevTensor q4 = mk(F, s4, 4, V(1, 2, 3, 4)), k4 = mk(F, s4, 4, V(1, 0, 0, 1)), c4 = mk(F, s4, 4, V(1, 1, 1, 1)),
              s44 = mk(F, s4, 4, V(1, 1, 1, 1));
    char interleave[] = "interleave", bad[] = "spiral";
    RUN2(aclnnApplyRotaryPosEmbV2GetWorkspaceSize(q4.tensor, k4.tensor, c4.tensor, s44.tensor, 3, interleave, &ews,
                                                  &eex),
         aclnnApplyRotaryPosEmbV2);
    EXPECT_T(q4, -1, 3, -1, 7);
    EXPECT_T(k4, 1, 1, -1, 1);
    EXPECT_ERR(aclnnApplyRotaryPosEmbV2GetWorkspaceSize(q4.tensor, k4.tensor, c4.tensor, s44.tensor, 1, bad, &ews,
                                                        &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnApplyRotaryPosEmbV2GetWorkspaceSize", "rotaryMode", NULL);
    dev_free(&q);
    dev_free(&k);
    dev_free(&c);
    dev_free(&sn);
    dev_free(&q4);
    dev_free(&k4);
    dev_free(&c4);
    dev_free(&s44);
}

static void test_interleave_rope(void)
{
    /* x (1, 1, 1, 64), x[i] = i / 32; q = cat(x[::2], x[1::2]); out = q + rotate_half(q) (cos = sin = 1) */
    int64_t s[] = {1, 1, 1, 64};
    double x[64], ones[64], q[64], want[64];
    for (int i = 0; i < 64; i++) x[i] = i / 32.0, ones[i] = 1;
    for (int i = 0; i < 32; i++) q[i] = x[2 * i], q[i + 32] = x[2 * i + 1];
    for (int i = 0; i < 64; i++) want[i] = q[i] + (i < 32 ? -q[i + 32] : q[i - 32]);
    DevTensor xt = mk(H, s, 4, x), c = mk(H, s, 4, ones), out = mk(H, s, 4, NULL);
    RUN2(aclnnInterleaveRopeGetWorkspaceSize(xt.tensor, c.tensor, c.tensor, out.tensor, &ews, &eex),
         aclnnInterleaveRope);
    double *got = dbl(64);
    rd(&out, got);
    CHECK_VALS("out", H, got, want, 64);
    free(got);
    int64_t s32[] = {1, 1, 1, 32};
    DevTensor x32 = mk(H, s32, 4, NULL);
    EXPECT_ERR(aclnnInterleaveRopeGetWorkspaceSize(x32.tensor, x32.tensor, x32.tensor, x32.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInterleaveRopeGetWorkspaceSize", "x", NULL);
    dev_free(&xt);
    dev_free(&c);
    dev_free(&out);
    dev_free(&x32);
}

static void test_rope_with_sin_cos_cache(void)
{
    /*
     * Two tokens at positions 1 and 0, one head of 4 with rotary dim 2: the cache rows
     * [cos | sin] are (1 | 0) at 0 and (0 | 1) at 1, a quarter turn: (a, b) -> (-b, a).
     */
    int64_t sp[] = {2}, sx[] = {2, 4}, sc2[] = {2, 2};
    DevTensor pos = mk(ACL_INT64, sp, 1, V(1, 0)), q = mk(F, sx, 2, V(1, 2, 3, 4, 5, 6, 7, 8)),
              k = mk(F, sx, 2, V(1, 0, 9, 9, 0, 1, 9, 9)), cache = mk(F, sc2, 2, V(1, 0, 0, 1)),
              qo = mk(F, sx, 2, NULL), ko = mk(F, sx, 2, NULL);
    RUN2(aclnnRopeWithSinCosCacheGetWorkspaceSize(pos.tensor, q.tensor, k.tensor, cache.tensor, NULL, 4, true,
                                                  qo.tensor, ko.tensor, &ews, &eex),
         aclnnRopeWithSinCosCache);
    EXPECT_T(qo, -2, 1, 3, 4, 5, 6, 7, 8);
    EXPECT_T(ko, 0, 1, 9, 9, 0, 1, 9, 9);
    int64_t sections[] = {1, 1};
    aclIntArray *m = aclCreateIntArray(sections, 2);
    EXPECT_ERR(aclnnRopeWithSinCosCacheGetWorkspaceSize(pos.tensor, q.tensor, k.tensor, cache.tensor, m, 4, true,
                                                        qo.tensor, ko.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRopeWithSinCosCacheGetWorkspaceSize", "mropeSection", &qo);
    CHECK_OK(aclDestroyIntArray(m));
    dev_free(&pos);
    dev_free(&q);
    dev_free(&k);
    dev_free(&cache);
    dev_free(&qo);
    dev_free(&ko);
}

int main(void)
{
    device_init();
    RUN_TEST(test_fused_infer_attention_score_v1_v3_v4);
    RUN_TEST(test_prompt_flash_attention);
    RUN_TEST(test_incre_flash_attention);
    RUN_TEST(test_apply_rotary_pos_emb);
    RUN_TEST(test_interleave_rope);
    RUN_TEST(test_rope_with_sin_cos_cache);
    device_teardown();
    return capi_finish();
}
