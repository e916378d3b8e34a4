/*
 * Baddbmm, InplaceBaddbmm and Addmv through the C ABI (hicann/ops-nn aclnn_baddbmm.h and
 * aclnn_addmv.h): values for every self broadcast shape, batch broadcast, transposed views,
 * alpha/beta (Addmv takes alpha before beta), beta = 0 not reading a NaN self, and the
 * documented errors (161001 for NULL, 161002 otherwise; the message names the API and the
 * parameter; outputs untouched).
 *
 * Operand values are small integers, so every product and sum is exact in every float dtype
 * and the expected values (plain double loops) must match after one rounding to out's dtype.
 * The differential, random and accuracy tests are in src/tests/baddbmm_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_addmv.h"
#include "aclnnop/aclnn_baddbmm.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define BF ACL_BF16
#define D ACL_DOUBLE

/* Destroys two scalars and frees n tensors. */
static void release(aclScalar *x, aclScalar *y, DevTensor **t, size_t n)
{
    CHECK_OK(aclDestroyScalar(x));
    CHECK_OK(aclDestroyScalar(y));
    for (size_t i = 0; i < n; i++) dev_free(t[i]);
}

static double *ints(int seed, int64_t n)
{
    double *v = dbl(n);
    for (int64_t i = 0; i < n; i++) v[i] = (double)((i * (3 + seed) + seed) % 7) - 3;
    return v;
}

/*
 * out (b,n,p) = beta*self + alpha*(b1 @ b2); b1 (b1b,n,m), b2 (b2b,m,p) contiguous, a batch of 1
 * broadcasting; self (shape ss, rank sn) broadcast to (b,n,p).
 */
static void ref_baddbmm(const double *self, const int64_t *ss, size_t sn, const double *b1, int64_t b1b,
                        const double *b2, int64_t b2b, int64_t b, int64_t n, int64_t m, int64_t p, double beta,
                        double alpha, double *out)
{
    int64_t os[] = {b, n, p};
    for (int64_t q = 0; q < b; q++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < p; j++) {
                const double *x = b1 + (b1b == 1 ? 0 : q) * n * m, *y = b2 + (b2b == 1 ? 0 : q) * m * p;
                double s = 0;
                for (int64_t k = 0; k < m; k++) s += x[i * m + k] * y[k * p + j];
                int64_t o = (q * n + i) * p + j;
                out[o] = alpha * s + (beta == 0 ? 0 : beta * self[bidx(o, os, 3, ss, sn)]);
            }
}

static void test_baddbmm_self_shapes(void)
{
    const int64_t b = 2, n = 3, m = 4, p = 2;
    int64_t s1[] = {b, n, m}, s2[] = {b, m, p}, s21[] = {1, m, p}, so[] = {b, n, p};
    struct {
        int64_t s[3];
        size_t n;
    } self[] = {{{1}, 1},       {{p}, 1},       {{1, p}, 2},    {{n, 1}, 2},    {{n, p}, 2},
                {{1, 1, 1}, 3}, {{b, 1, p}, 3}, {{1, n, p}, 3}, {{b, n, 1}, 3}, {{b, n, p}, 3}};
    double *v1 = ints(0, b * n * m), *v2 = ints(1, b * m * p), *vs = ints(2, b * n * p), want[12], got[12];
    const aclDataType dts[][2] = {{F, F}, {H, H}, {BF, F}, {BF, BF}, {H, F}};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++)
        for (size_t i = 0; i < ARRAY_LEN(self); i++)
            for (int bb = 0; bb < 2; bb++) {
                aclDataType dt = dts[d][0], od = dts[d][1];
                DevTensor A = mk(dt, s1, 3, v1), B = mk(dt, bb ? s21 : s2, 3, v2);
                DevTensor S = mk(dt, self[i].s, self[i].n, vs), O = mk(od, so, 3, NULL);
                aclScalar *beta = sc(D, 0.5), *alpha = sc(ACL_INT32, -3);
                RUN2(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, O.tensor, 1, &ews, &eex),
                     aclnnBaddbmm);
                ref_baddbmm(vs, self[i].s, self[i].n, v1, b, v2, bb ? 1 : b, b, n, m, p, 0.5, -3, want);
                rd(&O, got);
                CHECK_VALS("baddbmm out", od, got, want, 12);
                DevTensor *all[] = {&A, &B, &S, &O};
                release(beta, alpha, all, ARRAY_LEN(all));
            }
    free(v1);
    free(v2);
    free(vs);
}

/* batch2 a transposed view ((b,p,m) buffer seen as (b,m,p)), bool alpha; InplaceBaddbmm. */
static void test_baddbmm_views_inplace(void)
{
    const int64_t b = 2, n = 2, m = 3, p = 2;
    int64_t s1[] = {b, n, m}, st[] = {b, p, m}, sv[] = {b, m, p}, tstr[] = {p * m, 1, m}, so[] = {b, n, p};
    double *v1 = ints(3, b * n * m), *vt = ints(4, b * p * m), *vs = ints(5, b * n * p), want[8], got[8];
    double v2[12]; /* batch2 as a contiguous (b,m,p) */
    for (int64_t q = 0; q < b; q++)
        for (int64_t k = 0; k < m; k++)
            for (int64_t j = 0; j < p; j++) v2[(q * m + k) * p + j] = vt[(q * p + j) * m + k];
    DevTensor A = mk(F, s1, 3, v1), B = mkv(F, st, 3, vt, sv, 3, tstr, 0), S = mk(F, so, 3, vs);
    DevTensor O = mk(F, so, 3, NULL);
    aclScalar *beta = sc(F, -1), *alpha = sc(ACL_BOOL, 1);
    RUN2(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, O.tensor, 3, &ews, &eex),
         aclnnBaddbmm);
    ref_baddbmm(vs, so, 3, v1, b, v2, b, b, n, m, p, -1, 1, want);
    rd(&O, got);
    CHECK_VALS("baddbmm transposed batch2", F, got, want, 8);
    /* InplaceBaddbmm: selfRef = -1*selfRef + (batch1@batch2) */
    RUN2(aclnnInplaceBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, beta, alpha, 4, &ews, &eex),
         aclnnInplaceBaddbmm);
    rd(&S, got);
    CHECK_VALS("inplace baddbmm", F, got, want, 8);
    free(v1);
    free(vt);
    free(vs);
    DevTensor *all[] = {&A, &B, &S, &O};
    release(beta, alpha, all, ARRAY_LEN(all));
}

/* out (m) = beta*self + alpha*(mat @ vec); self of shape ss (rank sn: 0 or 1). */
static void ref_addmv(const double *self, const int64_t *ss, size_t sn, const double *mat, const double *vec,
                      int64_t m, int64_t k, double alpha, double beta, double *out)
{
    int64_t os[] = {m};
    for (int64_t i = 0; i < m; i++) {
        double s = 0;
        for (int64_t j = 0; j < k; j++) s += mat[i * k + j] * vec[j];
        out[i] = alpha * s + (beta == 0 ? 0 : beta * self[bidx(i, os, 1, ss, sn)]);
    }
}

static void test_addmv_values(void)
{
    const int64_t m = 3, k = 4;
    int64_t sm[] = {m, k}, smt[] = {k, m}, tstr[] = {1, m}, sk[] = {k}, so[] = {m}, s1[] = {1};
    struct {
        const int64_t *s;
        size_t n;
    } self[] = {{so, 1}, {s1, 1}, {so, 0}};
    double *vm = ints(6, m * k), *vv = ints(7, k), *vs = ints(8, m), want[3], got[3];
    double vmt[12]; /* mat stored transposed: a (k,m) buffer seen as (m,k) */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) vmt[j * m + i] = vm[i * k + j];
    const aclDataType dts[][2] = {{F, F}, {H, H}, {BF, BF}, {D, D}, {BF, F}};
    for (size_t d = 0; d < ARRAY_LEN(dts); d++)
        for (size_t i = 0; i < ARRAY_LEN(self); i++)
            for (int tr = 0; tr < 2; tr++) {
                aclDataType dt = dts[d][0], od = dts[d][1];
                DevTensor M = tr ? mkv(dt, smt, 2, vmt, sm, 2, tstr, 0) : mk(dt, sm, 2, vm);
                DevTensor V = mk(dt == BF && od == F ? H : dt, sk, 1, vv); /* bf16 mat with f16 vec */
                DevTensor S = mk(dt, self[i].s, self[i].n, vs), O = mk(od, so, 1, NULL);
                aclScalar *alpha = sc(ACL_INT8, 2), *beta = sc(F, -0.5);
                RUN2(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, V.tensor, alpha, beta, O.tensor, 1, &ews, &eex),
                     aclnnAddmv);
                ref_addmv(vs, self[i].s, self[i].n, vm, vv, m, k, 2, -0.5, want);
                rd(&O, got);
                CHECK_VALS("addmv out", od, got, want, 3);
                DevTensor *all[] = {&M, &V, &S, &O};
                release(alpha, beta, all, ARRAY_LEN(all));
            }
    free(vm);
    free(vv);
    free(vs);
}

/* Integer and bool Addmv (the A2 code's Mul + ReduceSum path): exact integer arithmetic that
 * wraps in the promoted dtype; a non-1 alpha joins the promotion; bool is logical. */
static void test_addmv_integers(void)
{
    int64_t sm[] = {2, 3}, sk[] = {3}, so[] = {2};
    DevTensor M = mk(ACL_INT8, sm, 2, V(100, 100, 100, 1, 2, 3)), Vc = mk(ACL_INT8, sk, 1, V(1, 1, 1));
    DevTensor S = mk(ACL_INT8, so, 1, V(1, -1)), O8 = mk(ACL_INT8, so, 1, NULL), O64 = mk(ACL_INT64, so, 1, NULL);
    aclScalar *one = sc(ACL_INT8, 1), *two = sc(ACL_INT64, 2), *half = sc(F, 0.5);
    /* 300 wraps to 44 in s8; + self */
    RUN2(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, one, O8.tensor, 0, &ews, &eex), aclnnAddmv);
    EXPECT_T(O8, 45, 5);
    /* an s64 alpha 2: the product becomes s64 after the s8 sum: 44*2 + 1 */
    RUN2(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, two, one, O64.tensor, 0, &ews, &eex), aclnnAddmv);
    EXPECT_T(O64, 89, 11);
    /* a float alpha 0.5 makes the result f32: an s8 out is refused */
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, half, one, O8.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnAddmvGetWorkspaceSize", "out", &O8);
    /* bool: self or any(mat and vec) */
    int64_t sb[] = {2, 2}, s2[] = {2};
    DevTensor BM = mk(ACL_BOOL, sb, 2, V(1, 0, 0, 0)), BV = mk(ACL_BOOL, s2, 1, V(1, 1));
    DevTensor BS = mk(ACL_BOOL, s2, 1, V(0, 0)), BO = mk(ACL_BOOL, s2, 1, NULL);
    aclScalar *t = sc(ACL_BOOL, 1);
    RUN2(aclnnAddmvGetWorkspaceSize(BS.tensor, BM.tensor, BV.tensor, t, t, BO.tensor, 0, &ews, &eex), aclnnAddmv);
    EXPECT_T(BO, 1, 0);
    CHECK_OK(aclDestroyScalar(one));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(half));
    CHECK_OK(aclDestroyScalar(t));
    DevTensor *all[] = {&M, &Vc, &S, &O8, &O64, &BM, &BV, &BS, &BO};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* beta = 0: a self full of NaN/inf is not read; beta = 1: NaN propagates. */
static void test_beta_zero(void)
{
    int64_t s1[] = {1, 2, 3}, s2[] = {1, 3, 2}, so[] = {1, 2, 2}, sm[] = {2, 3}, sk[] = {3}, sv[] = {2};
    double *v1 = ints(0, 6), *v2 = ints(1, 6), want[4], got[4];
    DevTensor A = mk(F, s1, 3, v1), B = mk(F, s2, 3, v2), O = mk(F, so, 3, NULL);
    DevTensor S = mk(F, so, 3, V(NAN, INFINITY, -INFINITY, NAN));
    aclScalar *zero = sc(ACL_INT32, 0), *two = sc(D, 2), *one = sc(F, 1);
    ref_baddbmm(NULL, so, 3, v1, 1, v2, 1, 1, 2, 3, 2, 0, 2, want);
    RUN2(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, zero, two, O.tensor, 0, &ews, &eex),
         aclnnBaddbmm);
    rd(&O, got);
    CHECK_VALS("baddbmm beta 0", F, got, want, 4);
    RUN2(aclnnInplaceBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, zero, two, 0, &ews, &eex),
         aclnnInplaceBaddbmm);
    rd(&S, got);
    CHECK_VALS("inplace baddbmm beta 0", F, got, want, 4);
    /* Addmv: mat (2,3) = batch1's data, vec (3) */
    DevTensor M = mk(F, sm, 2, v1), Vc = mk(F, sk, 1, v2), SV = mk(F, sv, 1, V(NAN, INFINITY)), OV = mk(F, sv, 1, NULL);
    ref_addmv(NULL, sv, 1, v1, v2, 2, 3, 2, 0, want);
    RUN2(aclnnAddmvGetWorkspaceSize(SV.tensor, M.tensor, Vc.tensor, two, zero, OV.tensor, 0, &ews, &eex), aclnnAddmv);
    rd(&OV, got);
    CHECK_VALS("addmv beta 0", F, got, want, 2);
    RUN2(aclnnAddmvGetWorkspaceSize(SV.tensor, M.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex), aclnnAddmv);
    rd(&OV, got);
    CHECK(isnan(got[0]) && got[1] == INFINITY);
    CHECK_OK(aclDestroyScalar(zero));
    CHECK_OK(aclDestroyScalar(two));
    CHECK_OK(aclDestroyScalar(one));
    free(v1);
    free(v2);
    DevTensor *all[] = {&A, &B, &O, &S, &M, &Vc, &SV, &OV};
    for (size_t t = 0; t < ARRAY_LEN(all); t++) dev_free(all[t]);
}

static void test_errors_null(void)
{
    int64_t s1[] = {2, 2, 3}, s2[] = {2, 3, 4}, so[] = {2, 2, 4}, s4[] = {4}, sm[] = {4, 3}, sk[] = {3};
    DevTensor A = mk(F, s1, 3, NULL), B = mk(F, s2, 3, NULL), O = mk(F, so, 3, NULL), S = mk(F, s4, 1, NULL);
    DevTensor M = mk(F, sm, 2, NULL), Vc = mk(F, sk, 1, NULL), OV = mk(F, s4, 1, NULL);
    aclScalar *one = sc(F, 1);
    const char *api = "aclnnBaddbmmGetWorkspaceSize";
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(NULL, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "self", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, NULL, B.tensor, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "batch1", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, NULL, one, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "batch2", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, NULL, one, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "beta", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, NULL, O.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "alpha", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, NULL, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "out", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, NULL, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "workspaceSize", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, NULL),
               ACLNN_ERR_PARAM_NULLPTR, api, "executor", &O);
    api = "aclnnInplaceBaddbmmGetWorkspaceSize";
    EXPECT_ERR(aclnnInplaceBaddbmmGetWorkspaceSize(NULL, A.tensor, B.tensor, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "selfRef", &O);
    EXPECT_ERR(aclnnInplaceBaddbmmGetWorkspaceSize(O.tensor, A.tensor, NULL, one, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "batch2", &O);
    EXPECT_ERR(aclnnInplaceBaddbmmGetWorkspaceSize(O.tensor, A.tensor, B.tensor, NULL, one, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "beta", &O);
    api = "aclnnAddmvGetWorkspaceSize";
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(NULL, M.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "self", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, NULL, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "mat", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, NULL, one, one, OV.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "vec", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, NULL, one, OV.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "alpha", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, NULL, OV.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "beta", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, one, NULL, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "out", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, NULL),
               ACLNN_ERR_PARAM_NULLPTR, api, "executor", &OV);
    CHECK_STATUS(aclnnBaddbmm(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnBaddbmm");
    CHECK_STATUS(aclnnAddmv(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("aclnnAddmv");
    CHECK_OK(aclDestroyScalar(one));
    DevTensor *all[] = {&A, &B, &O, &S, &M, &Vc, &OV};
    for (size_t t = 0; t < ARRAY_LEN(all); t++) dev_free(all[t]);
}

static void test_errors_invalid(void)
{
    int64_t s1[] = {2, 2, 3}, s2[] = {2, 3, 4}, so[] = {2, 2, 4}, s4[] = {4}, s23[] = {2, 3}, b3[] = {3, 3, 4};
    int64_t s3[] = {3}, s224[] = {2, 2, 4}, o5[] = {2, 2, 5}, s1224[] = {1, 2, 2, 4}, sm[] = {4, 3}, sk[] = {3};
    int64_t sk2[] = {2}, s1v[] = {1}, s41[] = {4, 1};
    DevTensor A = mk(F, s1, 3, NULL), B = mk(F, s2, 3, NULL), O = mk(F, so, 3, NULL), S = mk(F, s4, 1, NULL);
    DevTensor A2 = mk(F, s23, 2, NULL), B33 = mk(F, b3, 3, NULL), S3 = mk(F, s3, 1, NULL), O5 = mk(F, o5, 3, NULL);
    DevTensor S4 = mk(F, s1224, 4, NULL), AI = mk(ACL_INT32, s1, 3, NULL), AB = mk(BF, s1, 3, NULL);
    DevTensor OI = mk(ACL_INT32, s224, 3, NULL);
    DevTensor M = mk(F, sm, 2, NULL), Vc = mk(F, sk, 1, NULL), V2 = mk(F, sk2, 1, NULL), OV = mk(F, s4, 1, NULL);
    DevTensor S1 = mk(F, s1v, 1, NULL), S41 = mk(F, s41, 2, NULL), MI = mk(ACL_UINT16, sm, 2, NULL);
    aclScalar *one = sc(F, 1), *zero = sc(F, 0), *u16 = sc(ACL_UINT16, 1), *bl = sc(ACL_BOOL, 1);
    const long long INV = ACLNN_ERR_PARAM_INVALID;
    const char *api = "aclnnBaddbmmGetWorkspaceSize";
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A2.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex), INV,
               api, "[2, 3]", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B33.tensor, one, one, O.tensor, 0, &ews, &eex), INV,
               api, "[3, 3, 4]", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S3.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex), INV,
               api, "[3]", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S4.tensor, A.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex), INV,
               api, "[1, 2, 2, 4]", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O5.tensor, 0, &ews, &eex), INV,
               api, "[2, 2, 5]", &O5);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, AI.tensor, B.tensor, one, one, O.tensor, 0, &ews, &eex), INV,
               api, "batch1", &O);
    /* bf16 batch1 with f32 batch2 is accepted (promoted to f32, as on Atlas A2) */
    {
        uint64_t mixed_ws = 0;
        aclOpExecutor *mixed = NULL;
        CHECK_OK(aclnnBaddbmmGetWorkspaceSize(S.tensor, AB.tensor, B.tensor, one, one, O.tensor, 0, &mixed_ws, &mixed));
        CHECK_OK(aclDestroyAclOpExecutor(mixed));
    }
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, OI.tensor, 0, &ews, &eex), INV,
               api, "out", &OI);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, u16, one, O.tensor, 0, &ews, &eex), INV,
               api, "beta", &O);
    EXPECT_ERR(aclnnBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, O.tensor, 5, &ews, &eex), INV,
               api, "cubeMathType", &O);
    api = "aclnnInplaceBaddbmmGetWorkspaceSize";
    EXPECT_ERR(aclnnInplaceBaddbmmGetWorkspaceSize(S.tensor, A.tensor, B.tensor, one, one, 0, &ews, &eex), INV, api,
               "selfRef", &S);
    /* Addmv */
    api = "aclnnAddmvGetWorkspaceSize";
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, V2.tensor, one, one, OV.tensor, 0, &ews, &eex), INV,
               api, "[4, 3]", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S3.tensor, M.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex), INV,
               api, "[3]", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S41.tensor, M.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex), INV,
               api, "[4, 1]", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S1.tensor, M.tensor, Vc.tensor, zero, one, OV.tensor, 0, &ews, &eex), INV,
               api, "alpha", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, one, S3.tensor, 0, &ews, &eex), INV,
               api, "out", &S3);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, MI.tensor, Vc.tensor, one, one, OV.tensor, 0, &ews, &eex), INV,
               api, "mat", &OV);
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, u16, OV.tensor, 0, &ews, &eex), INV, api,
               "beta", &OV);
    (void)bl;
    EXPECT_ERR(aclnnAddmvGetWorkspaceSize(S.tensor, M.tensor, Vc.tensor, one, one, OV.tensor, -1, &ews, &eex), INV,
               api, "cubeMathType", &OV);
    aclScalar *all_s[] = {one, zero, u16, bl};
    for (size_t t = 0; t < ARRAY_LEN(all_s); t++) CHECK_OK(aclDestroyScalar(all_s[t]));
    DevTensor *all[] = {&A, &B, &O, &S, &A2, &B33, &S3, &O5, &S4, &AI, &AB, &OI, &M, &Vc, &V2, &OV, &S1, &S41, &MI};
    for (size_t t = 0; t < ARRAY_LEN(all); t++) dev_free(all[t]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_baddbmm_self_shapes);
    RUN_TEST(test_baddbmm_views_inplace);
    RUN_TEST(test_addmv_values);
    RUN_TEST(test_addmv_integers);
    RUN_TEST(test_beta_zero);
    RUN_TEST(test_errors_null);
    RUN_TEST(test_errors_invalid);
    device_teardown();
    return capi_finish();
}
