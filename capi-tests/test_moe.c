/*
 * The MoE routing operators as an MoE layer calls them, one output feeding the next on
 * the device: MoeGatingTopKSoftmax (over a transposed view of the logits) -> MoeInitRouting
 * -> MoeComputeExpertTokens -> MoeFinalizeRoutingV2, then MoeFinalizeRouting (V1, with
 * bias and skip inputs), MoeGatingTopKSoftmaxV2 (renorm 1), a bad index failing the run at
 * synchronize with nothing written, phase-1 refusals (NULL, k, dropPadMode), and
 * MoeInitRoutingV2 dropless (with the cumsum) and with a capacity (drop/pad).
 * Expected values are worked out by hand or with double-precision loops here.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_moe_compute_expert_tokens.h"
#include "aclnnop/aclnn_moe_finalize_routing.h"
#include "aclnnop/aclnn_moe_finalize_routing_v2.h"
#include "aclnnop/aclnn_moe_gating_top_k_softmax.h"
#include "aclnnop/aclnn_moe_gating_top_k_softmax_v2.h"
#include "aclnnop/aclnn_moe_init_routing.h"
#include "aclnnop/aclnn_moe_init_routing_v2.h"

#include <math.h>
#include <string.h>

enum { N = 3, E = 4, K = 2, H = 2 };

/* The gate logits, token-major. Row 2 ties experts 0 and 1: the lower expert comes first. */
static const double LOGITS[N * E] = {1, 3, 2, 0, 0, -1, 4, 2, 2, 2, 0, 1};
static const double TOKENS[N * H] = {10, 11, 20, 21, 30, 31};

/* softmax(LOGITS[r])[e] in double. */
static double prob(int r, int e)
{
    double m = -INFINITY, s = 0;
    for (int c = 0; c < E; c++) m = fmax(m, LOGITS[r * E + c]);
    for (int c = 0; c < E; c++) s += exp(LOGITS[r * E + c] - m);
    return exp(LOGITS[r * E + e] - m) / s;
}

static void expect_close(const char *what, const DevTensor *t, const double *want, int64_t n)
{
    double *got = dbl(n);
    rd(t, got);
    for (int64_t i = 0; i < n; i++) {
        if (!close_to(t->dtype, got[i], want[i])) {
            fprintf(stderr, "%s[%lld] = %.9g, want %.9g\n", what, (long long)i, got[i], want[i]);
            CHECK(false);
        }
    }
    free(got);
}

static void test_moe_layer_pipeline(void)
{
    /* The logits live transposed: storage (E, N), the (N, E) view has strides [1, N]. */
    double store[E * N];
    for (int r = 0; r < N; r++)
        for (int e = 0; e < E; e++) store[e * N + r] = LOGITS[r * E + e];
    int64_t xstore[] = {E, N}, xs[] = {N, E}, xst[] = {1, N};
    DevTensor logits = mkv(ACL_FLOAT, xstore, 2, store, xs, 2, xst, 0);
    int64_t nk[] = {N, K}, flat[] = {N * K}, nh[] = {N, H}, kh[] = {N * K, H}, es[] = {E};
    DevTensor y = mk(ACL_FLOAT, nk, 2, NULL), expert = mk(ACL_INT32, nk, 2, NULL), row = mk(ACL_INT32, nk, 2, NULL);
    RUN2(aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(logits.tensor, NULL, K, y.tensor, expert.tensor, row.tensor, &ews,
                                                   &eex),
         aclnnMoeGatingTopKSoftmax);
    EXPECT_T(expert, 1, 2, 2, 3, 0, 1);
    EXPECT_T(row, 0, 3, 1, 4, 2, 5); /* rowIdx[r][j] = j * N + r */
    double want_y[N * K] = {prob(0, 1), prob(0, 2), prob(1, 2), prob(1, 3), prob(2, 0), prob(2, 1)};
    expect_close("yOut", &y, want_y, N * K);

    /* Dispatch: the pairs stably sorted by expert, the tokens' rows gathered in that order. */
    DevTensor x = mk(ACL_FLOAT, nh, 2, TOKENS);
    DevTensor ex = mk(ACL_FLOAT, kh, 2, NULL), er = mk(ACL_INT32, flat, 1, NULL), ee = mk(ACL_INT32, flat, 1, NULL);
    RUN2(aclnnMoeInitRoutingGetWorkspaceSize(x.tensor, row.tensor, expert.tensor, N, ex.tensor, er.tensor, ee.tensor,
                                             &ews, &eex),
         aclnnMoeInitRouting);
    EXPECT_T(ee, 0, 1, 1, 2, 2, 3);
    EXPECT_T(er, 1, 4, 0, 3, 5, 2);
    EXPECT_T(ex, 30, 31, 10, 11, 30, 31, 10, 11, 20, 21, 20, 21);

    /* Each expert's end in the sorted list: the groupList of the expert matmul. */
    DevTensor ends = mk(ACL_INT32, es, 1, NULL);
    RUN2(aclnnMoeComputeExpertTokensGetWorkspaceSize(ee.tensor, E, ends.tensor, &ews, &eex),
         aclnnMoeComputeExpertTokens);
    EXPECT_T(ends, 1, 3, 5, 6);

    /* Combine (the expert layer here is the identity): out[i] = (y[i][0] + y[i][1]) * x[i]. */
    DevTensor out = mk(ACL_FLOAT, nh, 2, NULL);
    RUN2(aclnnMoeFinalizeRoutingV2GetWorkspaceSize(ex.tensor, er.tensor, NULL, NULL, NULL, y.tensor, expert.tensor, 0,
                                                   out.tensor, &ews, &eex),
         aclnnMoeFinalizeRoutingV2);
    double want_out[N * H];
    for (int i = 0; i < N; i++)
        for (int c = 0; c < H; c++)
            want_out[i * H + c] = (want_y[i * K] + want_y[i * K + 1]) * TOKENS[i * H + c];
    expect_close("out", &out, want_out, N * H);

    /* V1 with a bias per expert and the skip inputs x1, x2. */
    int64_t eh[] = {E, H};
    DevTensor bias = mk(ACL_FLOAT, eh, 2, V(1, 2, 3, 4, 5, 6, 7, 8));
    DevTensor x1 = mk(ACL_FLOAT, nh, 2, V(0.5, 0.5, 1, 1, 2, 2)), x2 = mk(ACL_FLOAT, nh, 2, V(1, 1, 1, 1, 1, 1));
    RUN2(aclnnMoeFinalizeRoutingGetWorkspaceSize(ex.tensor, x1.tensor, x2.tensor, bias.tensor, y.tensor, er.tensor,
                                                 expert.tensor, out.tensor, &ews, &eex),
         aclnnMoeFinalizeRouting);
    static const int EXPERT[N * K] = {1, 2, 2, 3, 0, 1};
    static const double X1[N * H] = {0.5, 0.5, 1, 1, 2, 2}, BIAS[E * H] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < N; i++)
        for (int c = 0; c < H; c++) {
            double s = X1[i * H + c] + 1;
            for (int j = 0; j < K; j++)
                s += want_y[i * K + j] * (TOKENS[i * H + c] + BIAS[EXPERT[i * K + j] * H + c]);
            want_out[i * H + c] = s;
        }
    expect_close("out (V1)", &out, want_out, N * H);

    /* A row index out of range is read at run time: the run fails, out keeps its bytes. */
    DevTensor bad = mk(ACL_INT32, flat, 1, V(1, 4, 0, 3, 9, 2));
    uint64_t ws = 0;
    aclOpExecutor *exe = NULL;
    CHECK_OK(aclnnMoeFinalizeRoutingV2GetWorkspaceSize(ex.tensor, bad.tensor, NULL, NULL, NULL, y.tensor, NULL, 0,
                                                       out.tensor, &ws, &exe));
    dev_fill_bytes(&out, SENT);
    CHECK(ws == 0);
    CHECK_OK(aclnnMoeFinalizeRoutingV2(NULL, 0, exe, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) != ACL_SUCCESS);
    CHECK_ERRMSG("expandedRowIdx[4] is 9");
    check_untouched_at(__FILE__, __LINE__, &out);
    CHECK_OK(aclrtSynchronizeStream(g_stream)); /* reported once */

    /* Phase-1 refusals. */
    EXPECT_ERR(aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(NULL, NULL, K, y.tensor, expert.tensor, row.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnMoeGatingTopKSoftmaxGetWorkspaceSize", "x", NULL);
    EXPECT_ERR(aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(logits.tensor, NULL, 5, y.tensor, expert.tensor, row.tensor,
                                                         &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeGatingTopKSoftmaxGetWorkspaceSize", "k is 5", &y);
    EXPECT_ERR(aclnnMoeFinalizeRoutingV2GetWorkspaceSize(ex.tensor, er.tensor, NULL, NULL, NULL, y.tensor, NULL, 4,
                                                         out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeFinalizeRoutingV2GetWorkspaceSize", "dropPadMode is 4", &out);
    EXPECT_ERR(aclnnMoeComputeExpertTokensGetWorkspaceSize(ee.tensor, 0, ends.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeComputeExpertTokensGetWorkspaceSize", "numExperts", &ends);
    EXPECT_ERR(aclnnMoeInitRoutingGetWorkspaceSize(x.tensor, row.tensor, expert.tensor, -1, ex.tensor, er.tensor,
                                                   ee.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeInitRoutingGetWorkspaceSize", "activeNum", &ex);

    DevTensor *all[] = {&logits, &y, &expert, &row, &x, &ex, &er, &ee, &ends, &out, &bias, &x1, &x2, &bad};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

static void test_gating_v2_renorm_and_finished(void)
{
    int64_t xs[] = {N, E}, nk[] = {N, K}, ns[] = {N};
    DevTensor x = mk(ACL_FLOAT16, xs, 2, LOGITS);
    DevTensor finished = mk(ACL_BOOL, ns, 1, V(0, 1, 0));
    DevTensor y = mk(ACL_FLOAT16, nk, 2, NULL), expert = mk(ACL_INT32, nk, 2, NULL);
    /* renorm 1: the top k logits, then their softmax; a finished row goes to expert E. */
    RUN2(aclnnMoeGatingTopKSoftmaxV2GetWorkspaceSize(x.tensor, finished.tensor, K, 1, false, y.tensor, expert.tensor,
                                                     NULL, &ews, &eex),
         aclnnMoeGatingTopKSoftmaxV2);
    EXPECT_T(expert, 1, 2, E, E, 0, 1);
    double want[N * K];
    static const int TOP[N * K] = {1, 2, 2, 3, 0, 1};
    for (int r = 0; r < N; r++) {
        double a = LOGITS[r * E + TOP[r * K]], b = LOGITS[r * E + TOP[r * K + 1]];
        want[r * K] = 1 / (1 + exp(b - a));
        want[r * K + 1] = 1 / (1 + exp(a - b));
    }
    expect_close("yOut", &y, want, N * K);
    /* renorm 0 with the f32 softmax written. */
    int64_t soft_shape[] = {N, E};
    DevTensor soft = mk(ACL_FLOAT, soft_shape, 2, NULL);
    RUN2(aclnnMoeGatingTopKSoftmaxV2GetWorkspaceSize(x.tensor, NULL, K, 0, true, y.tensor, expert.tensor, soft.tensor,
                                                     &ews, &eex),
         aclnnMoeGatingTopKSoftmaxV2);
    double probs[N * E];
    for (int r = 0; r < N; r++)
        for (int e = 0; e < E; e++) probs[r * E + e] = prob(r, e);
    expect_close("softmaxResultOutOptional", &soft, probs, N * E);
    EXPECT_T(expert, 1, 2, 2, 3, 0, 1);
    EXPECT_ERR(aclnnMoeGatingTopKSoftmaxV2GetWorkspaceSize(x.tensor, NULL, K, 2, false, y.tensor, expert.tensor, NULL,
                                                           &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeGatingTopKSoftmaxV2GetWorkspaceSize", "renorm", &y);
    dev_free(&x);
    dev_free(&finished);
    dev_free(&y);
    dev_free(&expert);
    dev_free(&soft);
}

static void test_init_routing_v2(void)
{
    /* Experts of each token's slots, token-major; slot p is token p / K. */
    int64_t nh[] = {N, H}, nk[] = {N, K}, flat[] = {N * K}, es[] = {E};
    DevTensor x = mk(ACL_BF16, nh, 2, TOKENS);
    DevTensor expert = mk(ACL_INT32, nk, 2, V(1, 2, 2, 1, 1, 0));
    /* Dropless: slots sorted by expert: 5 (e0), 0, 3, 4 (e1), 1, 2 (e2). */
    int64_t kh[] = {N * K, H};
    DevTensor ex = mk(ACL_BF16, kh, 2, NULL), er = mk(ACL_INT32, flat, 1, NULL), counts = mk(ACL_INT32, es, 1, NULL);
    RUN2(aclnnMoeInitRoutingV2GetWorkspaceSize(x.tensor, expert.tensor, 0, 0, E, 0, 1, false, ex.tensor, er.tensor,
                                               counts.tensor, NULL, &ews, &eex),
         aclnnMoeInitRoutingV2);
    EXPECT_T(er, 1, 4, 5, 2, 3, 0);
    EXPECT_T(ex, 30, 31, 10, 11, 20, 21, 30, 31, 10, 11, 20, 21);
    EXPECT_T(counts, 1, 4, 6, 6);
    /* Capacity 2: expert 1's third slot (4) is dropped; expert 3's rows are zeros. */
    int64_t ech[] = {E, 2, H};
    DevTensor padded = mk(ACL_BF16, ech, 3, NULL), before = mk(ACL_INT32, es, 1, NULL);
    RUN2(aclnnMoeInitRoutingV2GetWorkspaceSize(x.tensor, expert.tensor, 0, 2, E, 1, 0, true, padded.tensor, er.tensor,
                                               NULL, before.tensor, &ews, &eex),
         aclnnMoeInitRoutingV2);
    EXPECT_T(er, 2, 4, 5, 3, -1, 0);
    EXPECT_T(padded, 30, 31, 0, 0, 10, 11, 20, 21, 10, 11, 20, 21, 0, 0, 0, 0);
    EXPECT_T(before, 1, 3, 2, 0);
    EXPECT_ERR(aclnnMoeInitRoutingV2GetWorkspaceSize(x.tensor, expert.tensor, 0, 0, E, 1, 0, false, padded.tensor,
                                                     er.tensor, NULL, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMoeInitRoutingV2GetWorkspaceSize", "expertCapacity", &padded);
    DevTensor *all[] = {&x, &expert, &ex, &er, &counts, &padded, &before};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_moe_layer_pipeline);
    RUN_TEST(test_gating_v2_renorm_and_finished);
    RUN_TEST(test_init_routing_v2);
    device_teardown();
    return capi_finish();
}
