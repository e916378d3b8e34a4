/*
 * Matrix products through the C ABI (reference 5.5): Mm, BatchMatMul, Matmul (torch.matmul
 * shapes), Addmm and InplaceAddmm (bias broadcast one way, alpha/beta, beta = 0 not reading
 * self), strided and transposed views for operands and out, mixed and narrow dtypes, empty
 * dimensions, out overlapping an input, and the documented errors (161001 for NULL, 161002
 * otherwise; the message names the API and the parameter; outputs untouched).
 *
 * Operand values are small integers, so every product and sum here is exact in f16, bf16,
 * f32 and f64 and the expected values (plain double loops) must match after one rounding to
 * out's dtype (vals_match). The differential, random and accuracy tests are in
 * src/tests/matmul_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define BF ACL_BF16
#define D ACL_DOUBLE

/* ================================================================ the three product forms */

enum Prod { MM, BMM, MATMUL };
static const char *const PROD_API[] = {"aclnnMmGetWorkspaceSize", "aclnnBatchMatMulGetWorkspaceSize",
                                       "aclnnMatmulGetWorkspaceSize"};
static const phase2_fn PROD_RUN[] = {aclnnMm, aclnnBatchMatMul, aclnnMatmul};

static aclnnStatus prod_ws(enum Prod p, const aclTensor *a, const aclTensor *b, aclTensor *o, int8_t cube,
                           uint64_t *w, aclOpExecutor **e)
{
    switch (p) {
    case MM: return aclnnMmGetWorkspaceSize(a, b, o, cube, w, e);
    case BMM: return aclnnBatchMatMulGetWorkspaceSize(a, b, o, cube, w, e);
    default: return aclnnMatmulGetWorkspaceSize(a, b, o, cube, w, e);
    }
}

/* Operand values: small integers of both signs (exact everywhere). */
static double gv(int which, int64_t i)
{
    return which == 0 ? (double)((i * 7) % 5) - 2 : (double)((i * 3 + 1) % 7) - 3;
}
static double *vals(int which, int64_t n)
{
    double *v = dbl(n);
    for (int64_t i = 0; i < n; i++) v[i] = gv(which, i);
    return v;
}

/*
 * torch.matmul of contiguous a (shape as) and b (shape bs) into contiguous `out` (may be NULL
 * to get the shape only); writes the result shape to os/on and returns its element count.
 */
static int64_t ref_matmul(const double *a, const int64_t *as, size_t an, const double *b, const int64_t *bs,
                          size_t bn, double *out, int64_t *os, size_t *on)
{
    int64_t m = an == 1 ? 1 : as[an - 2], k = as[an - 1];
    int64_t n = bn == 1 ? 1 : bs[bn - 1];
    size_t abn = an >= 2 ? an - 2 : 0, bbn = bn >= 2 ? bn - 2 : 0;
    int64_t batch[8];
    size_t nb = 0;
    CHECK(broadcast_shape(as, abn, bs, bbn, batch, &nb));
    *on = 0;
    for (size_t i = 0; i < nb; i++) os[(*on)++] = batch[i];
    if (an > 1) os[(*on)++] = m;
    if (bn > 1) os[(*on)++] = n;
    int64_t batches = shape_numel(batch, nb);
    if (out != NULL)
        for (int64_t t = 0; t < batches; t++) {
            int64_t ao = bidx(t, batch, nb, as, abn) * m * k, bo = bidx(t, batch, nb, bs, bbn) * k * n;
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double s = 0;
                    for (int64_t p = 0; p < k; p++) s += a[ao + i * k + p] * b[bo + p * n + j];
                    out[(t * m + i) * n + j] = s;
                }
        }
    return batches * m * n;
}

/* The product form `p` on contiguous operands; out SENT-filled beforehand; checks the values. */
static void prod_case(enum Prod p, aclDataType da, const int64_t *as, size_t an, aclDataType db, const int64_t *bs,
                      size_t bn, aclDataType dout, int8_t cube)
{
    int64_t na = shape_numel(as, an), nbv = shape_numel(bs, bn), os[8], ost[8];
    size_t on = 0;
    double *va = vals(0, na), *vb = vals(1, nbv);
    int64_t no = ref_matmul(va, as, an, vb, bs, bn, NULL, os, &on);
    double *want = dbl(no);
    ref_matmul(va, as, an, vb, bs, bn, want, os, &on);
    contiguous_strides(os, on, ost);
    DevTensor A = mk(da, as, an, va), B = mk(db, bs, bn, vb);
    DevTensor O = mkv(dout, os, on, NULL, os, on, ost, 0);
    RUN2(prod_ws(p, A.tensor, B.tensor, O.tensor, cube, &ews, &eex), PROD_RUN[p]);
    double *got = dbl(no);
    rd(&O, got);
    CHECK_VALS("out", dout, got, want, no);
    free(va);
    free(vb);
    free(want);
    free(got);
    dev_free(&A);
    dev_free(&B);
    dev_free(&O);
}

/* ================================================================ Mm, BatchMatMul, Matmul */

static void test_mm_dtypes(void)
{
    int64_t s23[] = {2, 3}, s34[] = {3, 4}, s1[] = {1, 1};
    /* same dtype, every mix (bf16 with f16/f32 computes in f32, as on Atlas A2; ggml's MUL_MAT
       passes bf16 weights with f32 activations), every out dtype (no f64 on the Atlas A2 cube) */
    const aclDataType pairs[][2] = {{F, F}, {H, H}, {BF, BF}, {H, F}, {F, H}, {BF, F}, {F, BF}, {BF, H}, {H, BF}};
    const aclDataType outs[] = {F, H, BF};
    for (size_t i = 0; i < ARRAY_LEN(pairs); i++)
        for (size_t o = 0; o < ARRAY_LEN(outs); o++) {
            prod_case(MM, pairs[i][0], s23, 2, pairs[i][1], s34, 2, outs[o], (int8_t)(o % 5));
            prod_case(MATMUL, pairs[i][0], s23, 2, pairs[i][1], s34, 2, outs[o], 1);
        }
    /* every cubeMathType 0..4 */
    for (int8_t c = 0; c <= 4; c++) prod_case(MM, F, s23, 2, F, s34, 2, F, c);
    prod_case(MM, F, s1, 2, F, s1, 2, F, 0);
}

/* Transposed and sliced operands, out a strided window of a 10x10 storage. */
static void test_mm_views(void)
{
    /* mat1 (4,5) as the transpose of a (5,4) storage; mat2 (5,3) every other column of a
       (5,6) storage, offset 1; out (4,3) the seed view (strides (20,2), offset 22). */
    int64_t st_a[] = {5, 4}, sh_a[] = {4, 5}, str_a[] = {1, 4};
    int64_t st_b[] = {5, 6}, sh_b[] = {5, 3}, str_b[] = {6, 2};
    double *sa = vals(0, 20), *sb = vals(1, 30);
    const aclDataType dts[] = {F, H, BF};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++) {
        aclDataType dt = dts[d];
        DevTensor A = mkv(dt, st_a, 2, sa, sh_a, 2, str_a, 0);
        DevTensor B = mkv(dt, st_b, 2, sb, sh_b, 2, str_b, 1);
        DevTensor O = mkv(F, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
        RUN2(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 1, &ews, &eex), aclnnMm);
        double got[100];
        rd(&O, got);
        for (int64_t i = 0; i < 4; i++)
            for (int64_t j = 0; j < 3; j++) {
                double s = 0;
                for (int64_t p = 0; p < 5; p++) s += sa[i * 1 + p * 4] * sb[1 + p * 6 + j * 2];
                CHECK_VALS("out view", O.dtype, &got[view_pos(i * 3 + j)], &s, 1);
            }
        for (int64_t k = 0; k < 100; k++)
            if (!in_view(k)) CHECK(got[k] == get_c(O.dtype, (unsigned char[]){SENT, SENT, SENT, SENT, SENT, SENT, SENT, SENT}, 0));
        dev_free(&A);
        dev_free(&B);
        dev_free(&O);
    }
    free(sa);
    free(sb);
}

static void test_batch_matmul(void)
{
    int64_t a223[] = {2, 2, 3}, b132[] = {1, 3, 2}, a123[] = {1, 2, 3}, b332[] = {3, 3, 2}, b232[] = {2, 3, 2};
    prod_case(BMM, F, a223, 3, F, b232, 3, F, 0);
    prod_case(BMM, F, a223, 3, F, b132, 3, F, 1);
    prod_case(BMM, H, a123, 3, H, b332, 3, H, 2);
    prod_case(BMM, BF, a123, 3, BF, b332, 3, F, 3);
    prod_case(BMM, H, a223, 3, F, b132, 3, BF, 4);
}

static void test_matmul_shapes(void)
{
    struct {
        int64_t a[6], b[6];
        size_t an, bn;
        int64_t want[6];
        size_t wn;
    } c[] = {
        {{4}, {4}, 1, 1, {0}, 0},                                      /* (K)@(K) -> 0-d */
        {{4}, {4, 3}, 1, 2, {3}, 1},                                   /* (K)@(K,N) -> (N) */
        {{2, 4}, {4}, 2, 1, {2}, 1},                                   /* (M,K)@(K) -> (M) */
        {{2, 2, 4}, {4, 3}, 3, 2, {2, 2, 3}, 3},                       /* (B,M,K)@(K,N) */
        {{4}, {2, 4, 3}, 1, 3, {2, 3}, 2},                             /* (K)@(B,K,N) -> (B,N) */
        {{2, 2, 4}, {4}, 3, 1, {2, 2}, 2},                             /* (B,M,K)@(K) -> (B,M) */
        {{2, 1, 3, 2, 4}, {4, 1, 4, 3}, 5, 4, {2, 4, 3, 2, 3}, 5},     /* batch broadcast */
        {{1, 2, 1, 2, 2, 4}, {2, 1, 2, 1, 4, 3}, 6, 6, {2, 2, 2, 2, 2, 3}, 6}, /* 6-D */
    };
    const aclDataType dts[][3] = {{F, F, F}, {H, H, H}, {BF, BF, BF}, {H, F, F}, {BF, BF, F}};
    for (size_t i = 0; i < ARRAY_LEN(c); i++) {
        int64_t os[8];
        size_t on;
        ref_matmul(NULL, c[i].a, c[i].an, NULL, c[i].b, c[i].bn, NULL, os, &on);
        CHECK(on == c[i].wn);
        for (size_t k = 0; k < on; k++) CHECK(os[k] == c[i].want[k]);
        for (size_t d = 0; d < ARRAY_LEN(dts); d++)
            prod_case(MATMUL, dts[d][0], c[i].a, c[i].an, dts[d][1], c[i].b, c[i].bn, dts[d][2], 1);
    }
    /* (K)@(K) ignores cubeMathType (reference 5.5) */
    int64_t s4[] = {4};
    prod_case(MATMUL, F, s4, 1, F, s4, 1, F, 9);
}

/* f16 and bf16 accumulate in f32: 4096 f16 ones sum to 4096 (an f16 sum stalls at 2048). */
static void test_accumulate_in_f32(void)
{
    int64_t sa[] = {1, 4096}, sb[] = {4096, 1}, so[] = {1, 1}, ba[] = {1, 512}, bb[] = {512, 1};
    double *ones = dbl(4096);
    for (int i = 0; i < 4096; i++) ones[i] = 1;
    DevTensor A = mk(H, sa, 2, ones), B = mk(H, sb, 2, ones), O = mk(H, so, 2, NULL);
    RUN2(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 0, &ews, &eex), aclnnMm);
    EXPECT_T(O, 4096);
    DevTensor A2 = mk(BF, ba, 2, ones), B2 = mk(BF, bb, 2, ones), O2 = mk(BF, so, 2, NULL);
    RUN2(aclnnMatmulGetWorkspaceSize(A2.tensor, B2.tensor, O2.tensor, 2, &ews, &eex), aclnnMatmul);
    EXPECT_T(O2, 512);
    free(ones);
    DevTensor *all[] = {&A, &B, &O, &A2, &B2, &O2};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* ================================================================ Addmm, InplaceAddmm */

/* out = beta*bias + alpha*(mat1@mat2), bias (shape bs) broadcast to (m,n). */
static void ref_addmm(const double *bias, const int64_t *bs, size_t bn, const double *a, const double *b, int64_t m,
                      int64_t k, int64_t n, double beta, double alpha, double *out)
{
    int64_t mn[] = {m, n};
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
            out[i * n + j] = alpha * s + (beta == 0 ? 0 : beta * bias[bidx(i * n + j, mn, 2, bs, bn)]);
        }
}

static void test_addmm_bias_shapes(void)
{
    const int64_t m = 3, k = 4, n = 2;
    int64_t sa[] = {m, k}, sb[] = {k, n}, so[] = {m, n};
    struct {
        int64_t s[2];
        size_t n;
    } bias[] = {{{1}, 1}, {{n}, 1}, {{1, n}, 2}, {{m, 1}, 2}, {{m, n}, 2}, {{1, 1}, 2}};
    double *va = vals(0, m * k), *vb = vals(1, k * n), *vc = vals(1, m * n), want[6], got[6];
    const aclDataType dts[][2] = {{F, F}, {H, H}, {BF, F}, {H, F}};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++)
        for (size_t i = 0; i < ARRAY_LEN(bias); i++) {
            aclDataType dt = dts[d][0], od = dts[d][1];
            DevTensor A = mk(dt, sa, 2, va), B = mk(dt, sb, 2, vb), S = mk(dt, bias[i].s, bias[i].n, vc);
            DevTensor O = mk(od, so, 2, NULL);
            aclScalar *beta = sc(D, 0.5), *alpha = sc(F, 1.5);
            RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, O.tensor, 1, &ews, &eex),
                 aclnnAddmm);
            ref_addmm(vc, bias[i].s, bias[i].n, va, vb, m, k, n, 0.5, 1.5, want);
            rd(&O, got);
            CHECK_VALS("addmm out", od, got, want, 6);
            CHECK_OK(aclDestroyScalar(beta));
            CHECK_OK(aclDestroyScalar(alpha));
            /* integer scalars */
            beta = sc(ACL_INT32, -2);
            alpha = sc(ACL_INT64, 3);
            RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, O.tensor, 0, &ews, &eex),
                 aclnnAddmm);
            ref_addmm(vc, bias[i].s, bias[i].n, va, vb, m, k, n, -2, 3, want);
            rd(&O, got);
            CHECK_VALS("addmm out (int scalars)", od, got, want, 6);
            CHECK_OK(aclDestroyScalar(beta));
            CHECK_OK(aclDestroyScalar(alpha));
            dev_free(&A);
            dev_free(&B);
            dev_free(&S);
            dev_free(&O);
        }
    free(va);
    free(vb);
    free(vc);
}

/* beta = 0: self is not read (NaN and inf there do not reach out); beta != 0: NaN propagates. */
static void test_addmm_beta_zero(void)
{
    int64_t sa[] = {2, 3}, sb[] = {3, 2}, so[] = {2, 2}, s2[] = {2};
    double *va = vals(0, 6), *vb = vals(1, 6), want[4], got[4];
    DevTensor A = mk(F, sa, 2, va), B = mk(F, sb, 2, vb), O = mk(F, so, 2, NULL);
    DevTensor S = mk(F, s2, 1, V(NAN, INFINITY)), SM = mk(F, so, 2, V(NAN, NAN, -INFINITY, NAN));
    aclScalar *zero = sc(F, 0), *zi = sc(ACL_INT32, 0), *one = sc(F, 1), *two = sc(D, 2);
    ref_addmm(NULL, s2, 1, va, vb, 2, 3, 2, 0, 2, want);
    RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, zero, two, O.tensor, 1, &ews, &eex), aclnnAddmm);
    rd(&O, got);
    CHECK_VALS("beta 0, bias (2,)", F, got, want, 4);
    RUN2(aclnnAddmmGetWorkspaceSize(SM.tensor, A.tensor, B.tensor, zi, two, O.tensor, 1, &ews, &eex), aclnnAddmm);
    rd(&O, got);
    CHECK_VALS("beta 0 (s32), bias (2,2)", F, got, want, 4);
    RUN2(aclnnInplaceAddmmGetWorkspaceSize(SM.tensor, A.tensor, B.tensor, zero, two, 1, &ews, &eex),
         aclnnInplaceAddmm);
    rd(&SM, got);
    CHECK_VALS("inplace, beta 0", F, got, want, 4);
    /* beta 1: NaN and inf in self do propagate, column by column */
    RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 1, &ews, &eex), aclnnAddmm);
    rd(&O, got);
    CHECK(isnan(got[0]) && isnan(got[2]) && got[1] == INFINITY && got[3] == INFINITY);
    free(va);
    free(vb);
    CHECK_OK(aclDestroyScalar(zero));
    CHECK_OK(aclDestroyScalar(zi));
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(two));
    DevTensor *all[] = {&A, &B, &O, &S, &SM};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* Gemm with a transposed mat2 (a (n,k) buffer seen as (k,n)), out a strided view; InplaceAddmm. */
static void test_addmm_views_inplace(void)
{
    const int64_t m = 2, k = 3, n = 4;
    int64_t sa[] = {m, k}, stb[] = {n, k}, shb[] = {k, n}, strb[] = {1, k}, sbias[] = {n}, so[] = {m, n};
    int64_t sto[] = {m, 2 * n}, stro[] = {2 * n, 2};
    double *va = vals(0, m * k), *bt = vals(1, n * k), *vc = vals(1, n), b[12], want[8];
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++) b[p * n + j] = bt[j * k + p];
    ref_addmm(vc, sbias, 1, va, b, m, k, n, -1, 0.5, want);
    const aclDataType dts[] = {F, H, BF};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++) {
        aclDataType dt = dts[d];
        DevTensor A = mk(dt, sa, 2, va), B = mkv(dt, stb, 2, bt, shb, 2, strb, 0), S = mk(dt, sbias, 1, vc);
        DevTensor O = mkv(F, sto, 2, NULL, so, 2, stro, 1);
        aclScalar *beta = sc(ACL_INT8, -1), *alpha = sc(H, 0.5);
        RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, O.tensor, 3, &ews, &eex),
             aclnnAddmm);
        double got[16];
        rd(&O, got);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) CHECK_VALS("out view", F, &got[1 + i * 2 * n + j * 2], &want[i * n + j], 1);
        for (int64_t e = 0; e < 16; e++)
            if (e % 2 == 0) CHECK(get_c(F, (unsigned char[]){SENT, SENT, SENT, SENT}, 0) == got[e]);
        /* InplaceAddmm: selfRef (m,n) = -1*selfRef + 0.5*(mat1@mat2) */
        double vs[8], win[8];
        for (int i = 0; i < 8; i++) vs[i] = vc[i % n] - (double)(i / n);
        int64_t smn[] = {m, n};
        ref_addmm(vs, smn, 2, va, b, m, k, n, -1, 0.5, win);
        DevTensor R = mk(dt, so, 2, vs);
        RUN2(aclnnInplaceAddmmGetWorkspaceSize(R.tensor, A.tensor, B.tensor, beta, alpha, 4, &ews, &eex),
             aclnnInplaceAddmm);
        rd(&R, got);
        CHECK_VALS("inplace", dt, got, win, 8);
        CHECK_OK(aclDestroyScalar(beta));
        CHECK_OK(aclDestroyScalar(alpha));
        DevTensor *all[] = {&A, &B, &S, &O, &R};
        for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
    }
    free(va);
    free(bt);
    free(vc);
}

/* ================================================================ empty dims, overlap */

static void test_empty(void)
{
    /* k = 0: Mm gives zeros, Addmm beta*self (out pre-filled with SENT bytes) */
    int64_t s30[] = {3, 0}, s02[] = {0, 2}, s32[] = {3, 2}, s2[] = {2}, s0[] = {0}, s03[] = {0, 3}, s34[] = {3, 4};
    int64_t s04[] = {0, 4}, s240[] = {2, 4, 0};
    DevTensor A = mk(F, s30, 2, NULL), B = mk(F, s02, 2, NULL), O = mkv(H, s32, 2, NULL, s32, 2, (int64_t[]){2, 1}, 0);
    RUN2(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 0, &ews, &eex), aclnnMm);
    EXPECT_T(O, 0, 0, 0, 0, 0, 0);
    DevTensor S = mk(F, s2, 1, V(1.5, -2));
    aclScalar *beta = sc(F, 2), *alpha = sc(F, 3);
    DevTensor OF = mk(F, s32, 2, NULL);
    RUN2(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, OF.tensor, 0, &ews, &eex), aclnnAddmm);
    EXPECT_T(OF, 3, -4, 3, -4, 3, -4);
    /* (0)@(0) with Matmul: a 0-d zero */
    DevTensor V0 = mk(F, s0, 1, NULL), O0 = mkv(F, s2, 1, NULL, s2, 0, s2, 0);
    RUN2(aclnnMatmulGetWorkspaceSize(V0.tensor, V0.tensor, O0.tensor, 0, &ews, &eex), aclnnMatmul);
    double g[2];
    rd(&O0, g);
    CHECK(g[0] == 0);
    /* m = 0 or n = 0: success, workspace 0, nothing written */
    DevTensor E = mk(F, s03, 2, NULL), M34 = mk(F, s34, 2, NULL), EO = mk(F, s04, 2, NULL);
    dev_fill_bytes(&EO, SENT);
    uint64_t ws = 77;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnMmGetWorkspaceSize(E.tensor, M34.tensor, EO.tensor, 0, &ws, &ex));
    CHECK(ws == 0 && ex != NULL);
    run_phase2(aclnnMm, ws, ex);
    check_untouched_at(__FILE__, __LINE__, &EO);
    /* (2,4,0)@(0,4) batched k = 0 through Matmul: zeros */
    DevTensor B3 = mk(F, s240, 3, NULL), O3 = mk(F, (int64_t[]){2, 4, 4}, 3, NULL);
    DevTensor K0 = mk(F, (int64_t[]){0, 4}, 2, NULL);
    dev_fill_bytes(&O3, SENT);
    RUN2(aclnnMatmulGetWorkspaceSize(B3.tensor, K0.tensor, O3.tensor, 0, &ews, &eex), aclnnMatmul);
    double z[32];
    rd(&O3, z);
    for (int i = 0; i < 32; i++) CHECK(z[i] == 0);
    CHECK_OK(aclDestroyScalar(beta));
    CHECK_OK(aclDestroyScalar(alpha));
    DevTensor *all[] = {&A, &B, &O, &S, &OF, &V0, &O0, &E, &M34, &EO, &B3, &O3, &K0};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* out is mat1 (the same aclTensor), or a view shifted over it: computed as if mat1 were read first. */
static void test_out_overlaps_input(void)
{
    const int64_t n = 4;
    int64_t s[] = {n, n}, st[] = {n + 1, n}, str[] = {n, 1};
    double *va = vals(0, n * n), *vb = vals(1, n * n), want[16], got[20];
    ref_matmul(va, s, 2, vb, s, 2, want, (int64_t[8]){0}, &(size_t){0});
    const aclDataType dts[] = {F, H, BF};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++) {
        aclDataType dt = dts[d];
        DevTensor A = mk(dt, s, 2, va), B = mk(dt, s, 2, vb);
        RUN2(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, A.tensor, 0, &ews, &eex), aclnnMm);
        rd(&A, got);
        CHECK_VALS("out == self", dt, got, want, 16);
        /* Matmul with out == mat2 */
        DevTensor A2 = mk(dt, s, 2, va);
        RUN2(aclnnMatmulGetWorkspaceSize(A2.tensor, B.tensor, B.tensor, 1, &ews, &eex), aclnnMatmul);
        rd(&B, got);
        CHECK_VALS("out == mat2", dt, got, want, 16);
        /* mat1 rows 1..4 of a (5,4) storage, out rows 0..3 of the same storage */
        double sv[20];
        for (int i = 0; i < 20; i++) sv[i] = i < 4 ? 9 : va[i - 4];
        DevTensor C = mkv(dt, st, 2, sv, s, 2, str, n);
        DevTensor CO = {0};
        CO.tensor = aclCreateTensor(s, 2, dt, str, 0, ACL_FORMAT_ND, st, 2, C.dev);
        CHECK(CO.tensor != NULL);
        DevTensor B2 = mk(dt, s, 2, vb);
        RUN2(aclnnMmGetWorkspaceSize(C.tensor, B2.tensor, CO.tensor, 0, &ews, &eex), aclnnMm);
        rd(&C, got);
        CHECK_VALS("out shifted over self", dt, got, want, 16);
        CHECK_VALS("storage row 4", dt, got + 16, va + 12, 4);
        CHECK_OK(aclDestroyTensor(CO.tensor));
        DevTensor *all[] = {&A, &B, &A2, &C, &B2};
        for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
    }
    free(va);
    free(vb);
}

/* ================================================================ errors */

static void test_errors_null(void)
{
    int64_t s23[] = {2, 3}, s34[] = {3, 4}, s24[] = {2, 4}, s4[] = {4}, a3[] = {1, 2, 3}, b3[] = {1, 3, 4};
    int64_t o3[] = {1, 2, 4};
    DevTensor A = mk(F, s23, 2, NULL), B = mk(F, s34, 2, NULL), O = mk(F, s24, 2, NULL), S = mk(F, s4, 1, NULL);
    DevTensor A3 = mk(F, a3, 3, NULL), B3 = mk(F, b3, 3, NULL), O3 = mk(F, o3, 3, NULL);
    aclScalar *one = sc(F, 1);
    for (int p = MM; p <= MATMUL; p++) {
        const aclTensor *a = p == BMM ? A3.tensor : A.tensor, *b = p == BMM ? B3.tensor : B.tensor;
        aclTensor *o = p == BMM ? O3.tensor : O.tensor;
        const DevTensor *ob = p == BMM ? &O3 : &O;
        EXPECT_ERR(prod_ws((enum Prod)p, NULL, b, o, 0, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR, PROD_API[p], "self", ob);
        EXPECT_ERR(prod_ws((enum Prod)p, a, NULL, o, 0, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR, PROD_API[p], "mat2", ob);
        EXPECT_ERR(prod_ws((enum Prod)p, a, b, NULL, 0, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR, PROD_API[p], "out", ob);
        EXPECT_ERR(prod_ws((enum Prod)p, a, b, o, 0, NULL, &eex), ACLNN_ERR_PARAM_NULLPTR, PROD_API[p],
                   "workspaceSize", ob);
        EXPECT_ERR(prod_ws((enum Prod)p, a, b, o, 0, &ews, NULL), ACLNN_ERR_PARAM_NULLPTR, PROD_API[p], "executor",
                   ob);
    }
    const char *api = "aclnnAddmmGetWorkspaceSize";
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(NULL, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "self", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, NULL, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "mat1", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, NULL, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "mat2", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, NULL, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "beta", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, NULL, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "alpha", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, NULL, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "out", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, NULL, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "workspaceSize", &O);
    api = "aclnnInplaceAddmmGetWorkspaceSize";
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(NULL, A.tensor, B.tensor, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "selfRef", &O);
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(O.tensor, NULL, B.tensor, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "mat1", &O);
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(O.tensor, A.tensor, B.tensor, one, NULL, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "alpha", &O);
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(O.tensor, A.tensor, B.tensor, one, one, 0, &ews, NULL),
               ACLNN_ERR_PARAM_NULLPTR, api, "executor", &O);
    /* phase 2: NULL executor */
    CHECK_STATUS(aclnnMm(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnMm");
    CHECK_OK(aclDestroyScalar(one));
    DevTensor *all[] = {&A, &B, &O, &S, &A3, &B3, &O3};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

static void test_errors_invalid(void)
{
    int64_t s23[] = {2, 3}, s43[] = {4, 3}, s34[] = {3, 4}, s24[] = {2, 4}, s25[] = {2, 5}, s4[] = {4}, s3[] = {3};
    int64_t a3[] = {2, 2, 3}, b3[] = {3, 3, 4}, o3[] = {2, 2, 4}, s124[] = {1, 2, 4}, s1234[] = {1, 1, 2, 3};
    DevTensor A = mk(F, s23, 2, NULL), B = mk(F, s34, 2, NULL), O = mk(F, s24, 2, NULL), S = mk(F, s4, 1, NULL);
    DevTensor B43 = mk(F, s43, 2, NULL), O25 = mk(F, s25, 2, NULL), S3 = mk(F, s3, 1, NULL);
    DevTensor A3 = mk(F, a3, 3, NULL), B3 = mk(F, b3, 3, NULL), O3 = mk(F, o3, 3, NULL), O124 = mk(F, s124, 3, NULL);
    DevTensor A4 = mk(F, s1234, 4, NULL);
    DevTensor AI = mk(ACL_INT32, s23, 2, NULL), OI = mk(ACL_INT32, s24, 2, NULL), AB = mk(BF, s23, 2, NULL);
    DevTensor BH = mk(H, s34, 2, NULL);
    aclScalar *one = sc(F, 1), *cb = mks(ACL_COMPLEX64, 1, 0);
    /* K mismatch: the message names both shapes */
    for (int p = MM; p <= MATMUL; p += 2) {
        EXPECT_ERR(prod_ws((enum Prod)p, A.tensor, B43.tensor, O.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   PROD_API[p], "mat2", &O);
        CHECK(errmsg_has_shape(s23, 2) && errmsg_has_shape(s43, 2));
    }
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B43.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "mat1", &O);
    CHECK(errmsg_has_shape(s23, 2) && errmsg_has_shape(s43, 2));
    /* ranks: Mm 2-D only, BatchMatMul 3-D only, Matmul at most 6 */
    EXPECT_ERR(aclnnMmGetWorkspaceSize(A4.tensor, B.tensor, O.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMmGetWorkspaceSize", "self", &O);
    EXPECT_ERR(aclnnBatchMatMulGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulGetWorkspaceSize", "self", &O);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A3.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "mat1", &O);
    /* out shape */
    EXPECT_ERR(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O25.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMmGetWorkspaceSize", "out", &O25);
    EXPECT_ERR(aclnnMatmulGetWorkspaceSize(A.tensor, B.tensor, O124.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMatmulGetWorkspaceSize", "out", &O124);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O25.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "out", &O25);
    /* BatchMatMul batches 2 and 3 */
    EXPECT_ERR(aclnnBatchMatMulGetWorkspaceSize(A3.tensor, B3.tensor, O3.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulGetWorkspaceSize", "mat2", &O3);
    /* bias not broadcastable one way to (2,4); InplaceAddmm selfRef must be (2,4) */
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S3.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "self", &O);
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplaceAddmmGetWorkspaceSize", "selfRef", &S);
    /* cubeMathType outside 0..4 */
    const int8_t bad_cube[] = {-1, 5, 127, -128};
    for (size_t i = 0; i < ARRAY_LEN(bad_cube); i++) {
        for (int p = MM; p <= MATMUL; p += 2)
            EXPECT_ERR(prod_ws((enum Prod)p, A.tensor, B.tensor, O.tensor, bad_cube[i], &ews, &eex),
                       ACLNN_ERR_PARAM_INVALID, PROD_API[p], "cubeMathType", &O);
        DevTensor a1 = mk(F, (int64_t[]){1, 2, 3}, 3, NULL), b1 = mk(F, (int64_t[]){1, 3, 4}, 3, NULL);
        EXPECT_ERR(aclnnBatchMatMulGetWorkspaceSize(a1.tensor, b1.tensor, O124.tensor, bad_cube[i], &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulGetWorkspaceSize", "cubeMathType", &O124);
        EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, bad_cube[i], &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "cubeMathType", &O);
        EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(O.tensor, A.tensor, B.tensor, one, one, bad_cube[i], &ews, &eex),
                   ACLNN_ERR_PARAM_INVALID, "aclnnInplaceAddmmGetWorkspaceSize", "cubeMathType", &O);
        dev_free(&a1);
        dev_free(&b1);
    }
    /* dtypes: s32 inputs, an s32 out, a complex scalar */
    EXPECT_ERR(aclnnMmGetWorkspaceSize(AI.tensor, B.tensor, O.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMmGetWorkspaceSize", "self", &O);
    CHECK_ERRMSG("ACL_INT32");
    EXPECT_ERR(aclnnMatmulGetWorkspaceSize(A.tensor, B.tensor, OI.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMatmulGetWorkspaceSize", "out", &OI);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, cb, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "beta", &O);
    /* f64: the Atlas A2 cube matmul takes f32/f16/bf16 only; the message names ACL_DOUBLE and the operator */
    DevTensor AD = mk(D, s23, 2, NULL), OD = mk(D, s24, 2, NULL), SD = mk(D, s4, 1, NULL), A3D = mk(D, a3, 3, NULL);
    for (int p = MM; p <= MATMUL; p += 2) {
        EXPECT_ERR(prod_ws((enum Prod)p, AD.tensor, B.tensor, O.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   PROD_API[p], "self", &O);
        CHECK_ERRMSG("ACL_DOUBLE");
        EXPECT_ERR(prod_ws((enum Prod)p, A.tensor, B.tensor, OD.tensor, 0, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
                   PROD_API[p], "out", &OD);
    }
    EXPECT_ERR(aclnnBatchMatMulGetWorkspaceSize(A3D.tensor, A3.tensor, O3.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulGetWorkspaceSize", "ACL_DOUBLE", &O3);
    EXPECT_ERR(aclnnAddmmGetWorkspaceSize(SD.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmmGetWorkspaceSize", "ACL_DOUBLE", &O);
    EXPECT_ERR(aclnnInplaceAddmmGetWorkspaceSize(OD.tensor, A.tensor, B.tensor, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplaceAddmmGetWorkspaceSize", "ACL_DOUBLE", &OD);
    dev_free(&AD);
    dev_free(&OD);
    dev_free(&SD);
    dev_free(&A3D);
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(cb));
    DevTensor *all[] = {&A, &B, &O, &S, &B43, &O25, &S3, &A3, &B3, &O3, &O124, &A4, &AI, &OI, &AB, &BH};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* ================================================================ known bugs (non-fatal, counted) */

/* SEMANTICS section 2: an output whose elements overlap each other is invalid (161002). */
static void test_out_overlapping_itself(void)
{
    int64_t s23[] = {2, 3}, s34[] = {3, 4}, s24[] = {2, 4}, st[] = {4}, str0[] = {0, 1};
    DevTensor A = mk(F, s23, 2, NULL), B = mk(F, s34, 2, NULL);
    DevTensor O = mkv(F, st, 1, NULL, s24, 2, str0, 0);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st1 = aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 0, &ws, &ex);
    CHECK(st1 == ACLNN_ERR_PARAM_INVALID);
    if (st1 == ACLNN_SUCCESS) CHECK_OK(aclDestroyAclOpExecutor(ex));
    dev_free(&A);
    dev_free(&B);
    dev_free(&O);
}

/*
 * Reference 6.2: aclSetInputTensorAddr's index is the position among the op's inputs in its
 * parameter order: Addmm (self=0, mat1=1, mat2=2). Re-pointing input 0 must change the bias.
 */
static void test_addmm_input_index(void)
{
    int64_t s22[] = {2, 2}, s2[] = {2};
    DevTensor A = mk(F, s22, 2, V(1, 0, 0, 1)), B = mk(F, s22, 2, V(1, 2, 3, 4)), O = mk(F, s22, 2, NULL);
    DevTensor S = mk(F, s2, 1, V(10, 20)), S2 = mk(F, s2, 1, V(100, 200));
    aclScalar *one = sc(F, 1);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    run_phase2(aclnnAddmm, ws, ex);
    EXPECT_T(O, 11, 22, 13, 24);
    CHECK_OK(aclSetInputTensorAddr(ex, 0, S.tensor, S2.dev));
    run_phase2(aclnnAddmm, ws, ex);
    double got[4];
    rd(&O, got);
    CHECK(got[0] == 101 && got[1] == 202 && got[2] == 103 && got[3] == 204);
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    CHECK_OK(aclDestroyScalar(one));
    DevTensor *all[] = {&A, &B, &O, &S, &S2};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/*
 * A repeatable Mm executor re-addressed so that out is mat1's memory: phase 2 must refuse (as
 * the element-wise operators do) or compute as if mat1 were read first.
 */
static void test_readdressed_overlap(void)
{
    const int64_t n = 6;
    int64_t s[] = {n, n}, st[] = {n, n}, strt[] = {1, n};
    double *va = vals(0, n * n), *vb = vals(1, n * n), want[36], bt[36], got[36];
    /* mat2 is the transpose view of bt (so that mat2 = vb) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) bt[j * n + i] = vb[i * n + j];
    ref_matmul(va, s, 2, vb, s, 2, want, (int64_t[8]){0}, &(size_t){0});
    DevTensor A = mk(F, s, 2, va), B = mkv(F, st, 2, bt, s, 2, strt, 0), O = mk(F, s, 2, NULL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnMmGetWorkspaceSize(A.tensor, B.tensor, O.tensor, 0, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    CHECK_OK(aclSetOutputTensorAddr(ex, 0, O.tensor, A.dev));
    void *w = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&w, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
    aclnnStatus st2 = aclnnMm(w, ws, ex, g_stream);
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    if (w != NULL) CHECK_OK(aclrtFree(w));
    if (st2 == ACLNN_SUCCESS) {
        rd(&A, got);
        bool ok = true;
        for (int i = 0; i < 36; i++) ok = ok && got[i] == want[i];
        CHECK(ok);
    }
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    dev_free(&A);
    dev_free(&B);
    dev_free(&O);
    free(va);
    free(vb);
}

/*
 * FRACTAL_NZ weights, as ggml's CANN back-end passes them by default: a stored matrix packed in
 * 16 x c0 fractals (c0 = 32 bytes of elements), column blocks outermost, rows padded to 16 and
 * columns to c0. `transposed`: the stored matrix is W (n x k) and mat2 is its transposed (k, n)
 * view (strides (1, k)), ggml's case; otherwise the stored matrix is mat2 (k x n) itself.
 */
static void nz_case(enum Prod p, aclDataType dt, int64_t m, int64_t k, int64_t n, int transposed)
{
    const int64_t c0 = 32 / (int64_t)dtype_size(dt);
    const int64_t R = transposed ? n : k, C = transposed ? k : n;
    const int64_t R16 = (R + 15) / 16 * 16, C1 = (C + c0 - 1) / c0, elems = C1 * R16 * c0;
    double *packed = dbl(elems), *logical = dbl(k * n), *a = vals(0, m * k), *want = dbl(m * n), *got = dbl(m * n);
    for (int64_t i = 0; i < elems; i++) packed[i] = 99; /* padding: never read into the product */
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < C; c++) {
            double v = gv(1, r * C + c);
            packed[((c / c0) * R16 + r) * c0 + c % c0] = v;
            if (transposed)
                logical[c * n + r] = v;
            else
                logical[r * n + c] = v;
        }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t q = 0; q < k; q++) acc += a[i * k + q] * logical[q * n + j];
            want[i * n + j] = acc;
        }
    int64_t flat[] = {elems}, ws_[] = {k, n}, as_[] = {m, k}, os_[] = {m, n};
    int64_t st[2] = {transposed ? 1 : n, transposed ? k : 1};
    DevTensor P = mk(dt, flat, 1, packed), A = mk(dt, as_, 2, a), O = mk(F, os_, 2, NULL);
    aclTensor *w = aclCreateTensor(ws_, 2, dt, st, 0, ACL_FORMAT_FRACTAL_NZ, flat, 1, P.dev);
    CHECK(w != NULL);
    RUN2(prod_ws(p, A.tensor, w, O.tensor, 1, &ews, &eex), PROD_RUN[p]);
    rd(&O, got);
    CHECK_VALS("NZ weight product", F, got, want, m * n);
    CHECK_OK(aclDestroyTensor(w));
    /* memory for the logical k x n elements only: the padded fractals do not fit, refused */
    if (elems > k * n) {
        int64_t small[] = {k * n};
        DevTensor S = mk(dt, small, 1, NULL);
        aclTensor *ws2 = aclCreateTensor(ws_, 2, dt, st, 0, ACL_FORMAT_FRACTAL_NZ, small, 1, S.dev);
        uint64_t wsz = 0;
        aclOpExecutor *ex = NULL;
        CHECK_STATUS(prod_ws(p, A.tensor, ws2, O.tensor, 1, &wsz, &ex), ACLNN_ERR_PARAM_INVALID);
        CHECK_ERRMSG("past the end");
        CHECK_OK(aclDestroyTensor(ws2));
        dev_free(&S);
    }
    free(packed);
    free(logical);
    free(a);
    free(want);
    free(got);
    dev_free(&P);
    dev_free(&A);
    dev_free(&O);
}

static void test_nz_weights(void)
{
    for (int t = 0; t <= 1; t++) {
        nz_case(MM, H, 3, 40, 20, t);
        nz_case(MM, BF, 5, 16, 33, t);
        nz_case(MM, F, 2, 9, 17, t);
        nz_case(MATMUL, H, 4, 64, 48, t);
    }
    /* Addmm does not take NZ weights (CANN's Addmm is ND only): refused as a private format */
}

int main(void)
{
    device_init();
    RUN_TEST(test_mm_dtypes);
    RUN_TEST(test_mm_views);
    RUN_TEST(test_batch_matmul);
    RUN_TEST(test_matmul_shapes);
    RUN_TEST(test_accumulate_in_f32);
    RUN_TEST(test_addmm_bias_shapes);
    RUN_TEST(test_addmm_beta_zero);
    RUN_TEST(test_addmm_views_inplace);
    RUN_TEST(test_empty);
    RUN_TEST(test_out_overlaps_input);
    RUN_TEST(test_errors_null);
    RUN_TEST(test_errors_invalid);
    RUN_TEST(test_out_overlapping_itself);
    RUN_TEST(test_addmm_input_index);
    RUN_TEST(test_readdressed_overlap);
    RUN_TEST(test_nz_weights);
    device_teardown();
    return capi_finish();
}
