/*
 * The quantized operators as a CANN user (and llama.cpp's CANN back-end) calls them:
 * ACL_INT4 tensors (two signed 4-bit values a byte, the even element in the low nibble),
 * WeightQuantBatchMatmulV2 on a Q4_0 weight laid out as ggml lays it (int4 rows, then the
 * f16 group scales, both seen transposed, the second split at an element offset),
 * ConvertWeightToINT4Pack feeding it, and the refusal of ACL_INT4 by operators that do
 * not unpack it; AscendQuant (V3), AscendAntiQuant and DynamicQuant (V2) into int8 and
 * int4; TransQuantParamV2; QuantMatmulV3/V4 with float and TransQuantParam (UINT64) scales. Expected values
 * are computed here in double or worked out by hand.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_ascend_anti_quant.h"
#include "aclnnop/aclnn_ascend_quant.h"
#include "aclnnop/aclnn_ascend_quant_v3.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_convert_weight_to_int4_pack.h"
#include "aclnnop/aclnn_dynamic_quant.h"
#include "aclnnop/aclnn_dynamic_quant_v2.h"
#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "aclnnop/aclnn_trans_quant_param_v2.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"

#include <math.h>
#include <string.h>

#define H ACL_FLOAT16

/* The int4 value of element e of a packed buffer. */
static int nib(const uint8_t *b, int64_t e)
{
    int v = (e % 2) ? (b[e / 2] >> 4) : (b[e / 2] & 15);
    return v >= 8 ? v - 16 : v;
}

/* An f16 device buffer's values as doubles. */
static double h2d(uint16_t h) { return (double)aclFloat16ToFloat(h); }

enum { N = 5, K = 64, M = 2, G = 32 };

/* ggml's Q4_0 block for MUL_MAT: N rows of K int4 (row-major, K/2 bytes a row), then the
 * N * K/32 f16 scales; the weight is passed as the (K, n) view of strides (1, K). */
static void test_q4_0_weight_like_ggml(void)
{
    uint8_t host_w[N * K / 2];
    uint16_t host_s[N * K / G], host_x[M * K];
    for (int i = 0; i < N * K / 2; i++) host_w[i] = (uint8_t)(i * 37 + 11);
    for (int i = 0; i < N * K / G; i++) host_s[i] = aclFloatToFloat16(0.125f * (float)(1 + i % 5));
    for (int i = 0; i < M * K; i++) host_x[i] = aclFloatToFloat16((float)((i * 7) % 9 - 4) / 4.0f);
    size_t wbytes = sizeof host_w, sbytes = sizeof host_s;
    void *dev = NULL, *dx = NULL, *dy = NULL;
    /* Exactly the bytes ggml allocates: the int4 half-bytes and the scales, nothing more. */
    CHECK_OK(aclrtMalloc(&dev, wbytes + sbytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dev, wbytes, host_w, wbytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy((char *)dev + wbytes, sbytes, host_s, sbytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMalloc(&dx, sizeof host_x, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dx, sizeof host_x, host_x, sizeof host_x, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMalloc(&dy, M * N * 2, ACL_MEM_MALLOC_HUGE_FIRST));

    int64_t xs[] = {M, K}, xst[] = {K, 1};
    int64_t xlen = M * K;
    aclTensor *x = aclCreateTensor(xs, 2, H, xst, 0, ACL_FORMAT_ND, &xlen, 1, dx);
    CHECK(x != NULL);
    /* Two splits as ggml makes them when n is large: rows [0, 3) then [3, 5), the second at
     * an element offset of 3 * K (its byte offset 1.5 * K divided by the element size 0.5). */
    int64_t first[] = {0, 3}, rows[] = {3, N - 3};
    uint16_t out[M * N];
    for (int part = 0; part < 2; part++) {
        int64_t n = rows[part], r0 = first[part];
        int64_t ws[] = {K, n}, wst[] = {1, K}, wlen = 1 + (n - 1) * K + (K - 1) + r0 * K;
        aclTensor *w = aclCreateTensor(ws, 2, ACL_INT4, wst, r0 * K, ACL_FORMAT_ND, &wlen, 1, dev);
        CHECK(w != NULL);
        int64_t ss[] = {K / G, n}, sst[] = {1, K / G}, slen = 1 + (n - 1) * (K / G) + (K / G - 1) + r0 * (K / G);
        aclTensor *s = aclCreateTensor(ss, 2, H, sst, r0 * (K / G), ACL_FORMAT_ND, &slen, 1, (char *)dev + wbytes);
        CHECK(s != NULL);
        int64_t ys[] = {M, n}, yst[] = {n, 1}, ylen = M * n;
        aclTensor *y = aclCreateTensor(ys, 2, H, yst, 0, ACL_FORMAT_ND, &ylen, 1, (char *)dy + r0 * M * 2);
        CHECK(y != NULL);
        uint64_t wsz = 0;
        aclOpExecutor *ex = NULL;
        CHECK_OK(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x, w, s, NULL, NULL, NULL, NULL, G, y, &wsz, &ex));
        run_phase2(aclnnWeightQuantBatchMatmulV2, wsz, ex);
        uint16_t part_out[M * N];
        CHECK_OK(aclrtMemcpy(part_out, M * n * 2, (char *)dy + r0 * M * 2, M * n * 2, ACL_MEMCPY_DEVICE_TO_HOST));
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < n; j++) out[i * N + r0 + j] = part_out[i * n + j];
        aclDestroyTensor(w);
        aclDestroyTensor(s);
        aclDestroyTensor(y);
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double want = 0, mag = 0;
            for (int kk = 0; kk < K; kk++) {
                double sc = h2d(host_s[j * (K / G) + kk / G]);
                /* the dequantized weight is rounded to f16 before the product */
                double wq = (double)aclFloat16ToFloat(aclFloatToFloat16((float)(nib(host_w, j * K + kk) * sc)));
                double t = h2d(host_x[i * K + kk]) * wq;
                want += t;
                mag += fabs(t);
            }
            double got = h2d(out[i * N + j]);
            CHECK(fabs(got - want) <= mag * 1e-6 + fabs(want) * 1e-3 + 1e-3);
        }
    }
    aclDestroyTensor(x);
    aclrtFree(dev);
    aclrtFree(dx);
    aclrtFree(dy);
}

/* int32-held int4 values packed by ConvertWeightToINT4Pack, then multiplied: into
 * ACL_INT4 and into INT32 (eight a word); both products match the unpacked values. */
static void test_convert_weight_to_int4_pack(void)
{
    enum { KK = 16, NN = 8 };
    int32_t vals[KK * NN];
    for (int i = 0; i < KK * NN; i++) vals[i] = (i * 5) % 16 - 8;
    int64_t ws[] = {KK, NN};
    DevTensor w = dev_tensor(vals, ACL_INT32, ws, 2);
    for (int variant = 0; variant < 2; variant++) {
        aclDataType pd = variant == 0 ? ACL_INT4 : ACL_INT32;
        int64_t ps[] = {KK, variant == 0 ? NN : NN / 8}, pst[] = {ps[1], 1}, plen = ps[0] * ps[1];
        void *dp = NULL;
        CHECK_OK(aclrtMalloc(&dp, KK * NN / 2, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemset(dp, KK * NN / 2, 0xee, KK * NN / 2));
        aclTensor *p = aclCreateTensor(ps, 2, pd, pst, 0, ACL_FORMAT_ND, &plen, 1, dp);
        CHECK(p != NULL);
        uint64_t wsz = 0;
        aclOpExecutor *ex = NULL;
        CHECK_OK(aclnnConvertWeightToINT4PackGetWorkspaceSize(w.tensor, p, &wsz, &ex));
        run_phase2(aclnnConvertWeightToINT4Pack, wsz, ex);
        uint8_t packed[KK * NN / 2];
        CHECK_OK(aclrtMemcpy(packed, sizeof packed, dp, sizeof packed, ACL_MEMCPY_DEVICE_TO_HOST));
        for (int i = 0; i < KK * NN; i++) CHECK(nib(packed, i) == vals[i]);
        /* y = x @ weight with x = e_0 + 2 e_1: rows 0 and 1 of the weight, scale 1 */
        int64_t xs[] = {1, KK}, ss[] = {1}, ys[] = {1, NN};
        double xv[KK] = {1, 2};
        DevTensor x = mk(H, xs, 2, xv), s = mk(H, ss, 1, V(1)), y = mk(H, ys, 2, NULL);
        CHECK_OK(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.tensor, p, s.tensor, NULL, NULL, NULL, NULL, 0,
                                                               y.tensor, &wsz, &ex));
        run_phase2(aclnnWeightQuantBatchMatmulV2, wsz, ex);
        double got[NN];
        rd(&y, got);
        for (int j = 0; j < NN; j++) CHECK(got[j] == vals[j] + 2.0 * vals[NN + j]);
        dev_free(&x);
        dev_free(&s);
        dev_free(&y);
        aclDestroyTensor(p);
        aclrtFree(dp);
    }
    /* An odd last dim cannot pack two a byte. */
    int64_t os[] = {4, 3};
    DevTensor odd = dev_tensor(vals, ACL_INT32, os, 2);
    int64_t olen = 12;
    void *dp = NULL;
    CHECK_OK(aclrtMalloc(&dp, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    int64_t ost[] = {3, 1};
    aclTensor *p = aclCreateTensor(os, 2, ACL_INT4, ost, 0, ACL_FORMAT_ND, &olen, 1, dp);
    EXPECT_ERR(aclnnConvertWeightToINT4PackGetWorkspaceSize(odd.tensor, p, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnConvertWeightToINT4PackGetWorkspaceSize", "multiple of 2", NULL);
    EXPECT_ERR(aclnnConvertWeightToINT4PackGetWorkspaceSize(NULL, p, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnConvertWeightToINT4PackGetWorkspaceSize", "weight", NULL);
    aclDestroyTensor(p);
    aclrtFree(dp);
    dev_free(&odd);
    dev_free(&w);
}

/* An ACL_INT4 tensor reaching an operator that does not unpack it is refused at phase 1. */
static void test_int4_refused_elsewhere(void)
{
    int64_t s[] = {4, 6}, st[] = {6, 1}, len = 24;
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 12, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *t = aclCreateTensor(s, 2, ACL_INT4, st, 0, ACL_FORMAT_ND, &len, 1, d);
    CHECK(t != NULL);
    int64_t sh[] = {4, 6};
    DevTensor out = mk(ACL_INT8, sh, 2, NULL);
    EXPECT_ERR(aclnnCastGetWorkspaceSize(t, ACL_INT8, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "ACL_INT4", &out);
    /* ACL_INT4 is no dtype argument either. */
    EXPECT_ERR(aclnnCastGetWorkspaceSize(out.tensor, ACL_INT4, t, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCastGetWorkspaceSize", "ACL_INT4", NULL);
    /* A (k, n) int4 weight whose inner axis is odd is refused by WeightQuantBatchMatmulV2. */
    int64_t ws[] = {6, 3}, wst[] = {3, 1}, wlen = 18, xs[] = {1, 6}, ss[] = {3}, ys[] = {1, 3};
    aclTensor *w = aclCreateTensor(ws, 2, ACL_INT4, wst, 0, ACL_FORMAT_ND, &wlen, 1, d);
    DevTensor x = mk(H, xs, 2, NULL), sc = mk(H, ss, 1, NULL), y = mk(H, ys, 2, NULL);
    EXPECT_ERR(aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x.tensor, w, sc.tensor, NULL, NULL, NULL, NULL, 0,
                                                             y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnWeightQuantBatchMatmulV2GetWorkspaceSize", "even", &y);
    aclDestroyTensor(w);
    aclDestroyTensor(t);
    aclrtFree(d);
    dev_free(&x);
    dev_free(&sc);
    dev_free(&y);
    dev_free(&out);
}

/* AscendQuant / V3 into int8 and int4, then AscendAntiQuant back. */
static void test_ascend_quant_round_trip(void)
{
    int64_t sx[] = {2, 4}, s4[] = {4}, s2[] = {2};
    DevTensor x = mk(H, sx, 2, V(1.5, -2.5, 0.25, 100, -3, 2.5, 7.75, -200));
    DevTensor scale = mk(H, s4, 1, V(1, 1, 2, 2)), off = mk(H, s4, 1, V(0, 0, 0, 1));
    DevTensor y = mk(ACL_INT8, sx, 2, NULL);
    char rnd[] = "round", flr[] = "floor";
    /* x * scale + offset: 1.5, -2.5, 0.5, 201 | -3, 2.5, 15.5, -399; half to even, saturated */
    RUN2(aclnnAscendQuantGetWorkspaceSize(x.tensor, scale.tensor, off.tensor, false, rnd, ACL_INT8, y.tensor, &ews,
                                          &eex),
         aclnnAscendQuant);
    EXPECT_T(y, 2, -2, 0, 127, -3, 2, 16, -128);
    RUN2(aclnnAscendQuantGetWorkspaceSize(x.tensor, scale.tensor, NULL, false, flr, ACL_INT8, y.tensor, &ews, &eex),
         aclnnAscendQuant);
    EXPECT_T(y, 1, -3, 0, 127, -3, 2, 15, -128);
    /* V3 along axis -2: one scale a row (1 and 0.5), into int4 (two a byte, saturated to [-8, 7]) */
    DevTensor srow = mk(H, s2, 1, V(1, 0.5));
    void *d4 = NULL;
    CHECK_OK(aclrtMalloc(&d4, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    int64_t st[] = {4, 1}, len = 8;
    aclTensor *y4 = aclCreateTensor(sx, 2, ACL_INT4, st, 0, ACL_FORMAT_ND, &len, 1, d4);
    RUN2(aclnnAscendQuantV3GetWorkspaceSize(x.tensor, srow.tensor, NULL, false, rnd, ACL_INT4, -2, y4, &ews, &eex),
         aclnnAscendQuantV3);
    uint8_t b[4];
    CHECK_OK(aclrtMemcpy(b, 4, d4, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    /* row 0: 1.5 -2.5 0.25 100 -> 2 -2 0 7; row 1 (x0.5): -1.5 1.25 3.875 -100 -> -2 1 4 -8 */
    const int want4[] = {2, -2, 0, 7, -2, 1, 4, -8};
    for (int i = 0; i < 8; i++) CHECK(nib(b, i) == want4[i]);
    /* AscendAntiQuant of the int4 back, scale 0.5 and offset 1: (q + 1) * 0.5 */
    int64_t sc1[] = {1};
    DevTensor as = mk(ACL_FLOAT, sc1, 1, V(0.5)), ao = mk(ACL_FLOAT, sc1, 1, V(1)), yh = mk(H, sx, 2, NULL);
    RUN2(aclnnAscendAntiQuantGetWorkspaceSize(y4, as.tensor, ao.tensor, ACL_FLOAT16, false, yh.tensor, &ews, &eex),
         aclnnAscendAntiQuant);
    EXPECT_T(yh, 1.5, -0.5, 0.5, 4, -0.5, 1, 2.5, -3.5);
    EXPECT_ERR(aclnnAscendQuantGetWorkspaceSize(x.tensor, scale.tensor, NULL, false, "hybrid", ACL_INT8, y.tensor,
                                                &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAscendQuantGetWorkspaceSize", "hybrid", &y);
    EXPECT_ERR(aclnnAscendQuantGetWorkspaceSize(NULL, scale.tensor, NULL, false, rnd, ACL_INT8, y.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnAscendQuantGetWorkspaceSize", "x", &y);
    aclDestroyTensor(y4);
    aclrtFree(d4);
    dev_free(&x);
    dev_free(&scale);
    dev_free(&off);
    dev_free(&y);
    dev_free(&srow);
    dev_free(&as);
    dev_free(&ao);
    dev_free(&yh);
}

/* DynamicQuant: per-row scale max|x| / 127; V2 asymmetric with offsetOut. */
static void test_dynamic_quant(void)
{
    int64_t sx[] = {2, 4}, s2[] = {2};
    DevTensor x = mk(H, sx, 2, V(1, -2, 0.5, 127, 0, 0, 0, 0));
    DevTensor y = mk(ACL_INT8, sx, 2, NULL), sc = mk(ACL_FLOAT, s2, 1, NULL), of = mk(ACL_FLOAT, s2, 1, NULL);
    RUN2(aclnnDynamicQuantGetWorkspaceSize(x.tensor, NULL, y.tensor, sc.tensor, &ews, &eex), aclnnDynamicQuant);
    /* row 0: scale 1 -> 1 -2 0 (0.5 to even) 127; row 1 all zero: scale 0, y 0 */
    EXPECT_T(y, 1, -2, 0, 127, 0, 0, 0, 0);
    EXPECT_T(sc, 1, 0);
    /* asymmetric: row 0 max 127, min -2: scale 129 / 255, offset 127 - 127 / scale */
    RUN2(aclnnDynamicQuantV2GetWorkspaceSize(x.tensor, NULL, NULL, ACL_INT8, y.tensor, sc.tensor, of.tensor, &ews,
                                             &eex),
         aclnnDynamicQuantV2);
    double got[2], q[8];
    rd(&sc, got);
    CHECK(fabs(got[0] - 129.0 / 255.0) < 1e-6);
    rd(&y, q);
    CHECK(q[3] == 127 && q[1] == -128);
    EXPECT_ERR(aclnnDynamicQuantV2GetWorkspaceSize(x.tensor, NULL, NULL, ACL_INT4, y.tensor, sc.tensor, NULL, &ews,
                                                   &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnDynamicQuantV2GetWorkspaceSize", "dstType", &y);
    dev_free(&x);
    dev_free(&y);
    dev_free(&sc);
    dev_free(&of);
}

/* The UINT64 word aclnnTransQuantParam makes of a scale (and a 9-bit offset). */
static uint64_t quant_param(float scale, int offset)
{
    uint32_t bits;
    memcpy(&bits, &scale, 4);
    return ((uint64_t)(bits & 0xFFFFE000u)) | (1ull << 46) | ((uint64_t)(offset & 0x1ff) << 37);
}

static void test_quant_matmul(void)
{
    /* x1 (2, 3) int8, x2 given transposed as (n = 2, k = 3) */
    int64_t s1[] = {2, 3}, s2[] = {2, 3}, sn[] = {2}, sm[] = {2}, so[] = {2, 2};
    DevTensor a = mk(ACL_INT8, s1, 2, V(1, 2, 3, -4, 5, -6)), b = mk(ACL_INT8, s2, 2, V(1, 0, -1, 2, 2, 2));
    /* x1 @ x2^T = [[1 - 3, 2 + 4 + 6], [-4 + 6, -8 + 10 - 12]] = [[-2, 12], [2, -10]] */
    DevTensor scale = mk(ACL_FLOAT, sn, 1, V(0.5, 2)), tok = mk(ACL_FLOAT, sm, 1, V(1, 3));
    DevTensor out = mk(H, so, 2, NULL);
    RUN2(aclnnQuantMatmulV4GetWorkspaceSize(a.tensor, b.tensor, scale.tensor, NULL, tok.tensor, NULL, false, true,
                                            out.tensor, &ews, &eex),
         aclnnQuantMatmulV4);
    EXPECT_T(out, -1, 24, 3, -60);
    /* UINT64 scale 0.25 with a packed offset of 3 into int8: -2/4+3 = 2.5 -> 2 (to even), 6, 3.5 -> 4, 0.5 -> 0 */
    uint64_t w = quant_param(0.25f, 3);
    int64_t s1d[] = {1};
    aclTensor *q = NULL;
    void *dq = NULL;
    CHECK_OK(aclrtMalloc(&dq, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dq, 8, &w, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t one = 1;
    q = aclCreateTensor(s1d, 1, ACL_UINT64, &one, 0, ACL_FORMAT_ND, s1d, 1, dq);
    /* TransQuantParamV2 makes the same word on the device */
    DevTensor fs = mk(ACL_FLOAT, s1d, 1, V(0.25)), fo = mk(ACL_FLOAT, s1d, 1, V(2.6));
    DevTensor word = mk(ACL_UINT64, s1d, 1, NULL);
    RUN2(aclnnTransQuantParamV2GetWorkspaceSize(fs.tensor, fo.tensor, word.tensor, &ews, &eex),
         aclnnTransQuantParamV2);
    uint64_t made = 0;
    CHECK_OK(aclrtMemcpy(&made, 8, word.dev, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(made == w);
    dev_free(&fs);
    dev_free(&fo);
    dev_free(&word);
    DevTensor o8 = mk(ACL_INT8, so, 2, NULL);
    RUN2(aclnnQuantMatmulV3GetWorkspaceSize(a.tensor, b.tensor, q, NULL, NULL, false, true, o8.tensor, &ews, &eex),
         aclnnQuantMatmulV3);
    EXPECT_T(o8, 2, 6, 4, 0);
    /* f16 out needs a per-token scale with a float scale (Atlas A2's combinations) */
    EXPECT_ERR(aclnnQuantMatmulV3GetWorkspaceSize(a.tensor, b.tensor, scale.tensor, NULL, NULL, false, true,
                                                  out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnQuantMatmulV3GetWorkspaceSize", "combinations", &out);
    EXPECT_ERR(aclnnQuantMatmulV3GetWorkspaceSize(a.tensor, b.tensor, scale.tensor, NULL, NULL, false, false,
                                                  out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnQuantMatmulV3GetWorkspaceSize", "k", &out);
    aclDestroyTensor(q);
    aclrtFree(dq);
    dev_free(&a);
    dev_free(&b);
    dev_free(&scale);
    dev_free(&tok);
    dev_free(&out);
    dev_free(&o8);
}

int main(void)
{
    device_init();
    RUN_TEST(test_q4_0_weight_like_ggml);
    RUN_TEST(test_convert_weight_to_int4_pack);
    RUN_TEST(test_int4_refused_elsewhere);
    RUN_TEST(test_ascend_quant_round_trip);
    RUN_TEST(test_dynamic_quant);
    RUN_TEST(test_quant_matmul);
    device_teardown();
    return capi_finish();
}
