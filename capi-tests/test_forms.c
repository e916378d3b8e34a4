/*
 * The entry points of CANN's whole aclnn_clamp.h, aclnn_round.h and the aclnn_convolution.h
 * additions, called as a CANN program calls them:
 *
 * - ClampTensor (CANN's own sample first, as its doc writes it), ClampMinTensor,
 *   ClampMaxTensor and their in-place forms (broadcast tensor bounds, promotion, bool
 *   bounds, NaN), ClampMin, ClampMax, InplaceClampMax (scalar bounds);
 * - RoundDecimals / InplaceRoundDecimals (halves to even, decimals < 0, integers);
 * - ConvTbc (a (T, B, C) 1-D convolution, T = 0 giving the bias) and ConvDepthwise2d;
 *
 * Every expected value is computed by hand in the comments; clamp and round must match
 * exactly (sign of zero included), the small-integer convolutions too. Each documented
 * error is checked for its status (161001 for NULL, 161002 otherwise), a message naming
 * the API and the parameter, and an output left untouched. The random differential tests
 * are in src/tests/forms_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_round.h"

#define F ACL_FLOAT
#define H ACL_FLOAT16
#define D ACL_DOUBLE
#define BF ACL_BF16
#define I ACL_INT32
#define I8 ACL_INT8

/* `t` must hold exactly the listed values: same value, same sign of zero, NaN for NaN. */
#define EXPECT_EXACT(t, ...)                                                   \
    do {                                                                       \
        const double w_[] = {__VA_ARGS__};                                     \
        int64_t n_ = (t).numel;                                                \
        double *g_ = dbl(n_);                                                  \
        rd(&(t), g_);                                                          \
        CHECK((int64_t)ARRAY_LEN(w_) == n_);                                   \
        bool ok_ = true;                                                       \
        for (int64_t k_ = 0; k_ < n_; k_++)                                    \
            if (!exact_match((t).dtype, g_[k_], w_[k_])) {                     \
                fprintf(stderr, "    " #t "[%lld]: got %.17g, want %.17g\n", (long long)k_, g_[k_], w_[k_]); \
                ok_ = false;                                                   \
            }                                                                  \
        free(g_);                                                              \
        if (!ok_) capi_fail_cond(__FILE__, __LINE__, "exact values of " #t);   \
    } while (0)

/* Re-creates t's tensor as a contiguous tensor of format `fmt`. */
static void set_format(DevTensor *t, const int64_t *shape, size_t n, aclFormat fmt)
{
    int64_t st[8];
    contiguous_strides(shape, n, st);
    CHECK_OK(aclDestroyTensor(t->tensor));
    t->tensor = aclCreateTensor(shape, n, t->dtype, st, 0, fmt, shape, n, t->dev);
    CHECK(t->tensor != NULL);
}
static DevTensor mk_nchw(aclDataType dt, const int64_t *shape, const double *v)
{
    DevTensor t = mk(dt, shape, 4, v);
    set_format(&t, shape, 4, ACL_FORMAT_NCHW);
    return t;
}

static void free_all(DevTensor **ts, size_t n)
{
    for (size_t k = 0; k < n; k++) dev_free(ts[k]);
}

/* ================================================================ Clamp, tensor bounds */

/*
 * CANN's aclnnClampTensor sample (aclnnClampTensor.md), written as its doc writes it:
 * aclrtMalloc + aclrtMemcpy + aclCreateTensor per operand, phase 1, a workspace if asked
 * for, phase 2 on the stream, synchronize, copy back, destroy, free.
 */
static void test_clamp_tensor_cann_sample(void)
{
    int64_t shape[] = {4, 2};
    int64_t strides[] = {2, 1};
    int8_t selfHost[] = {0, 1, 0, 3, 0, 5, 0, 7};
    int8_t minHost[] = {1, 3, 0, 0, 0, 0, 0, 0};
    int8_t maxHost[] = {5, 5, 3, 3, 4, 5, 6, 6};
    int8_t outHost[8] = {0};
    void *addr[4] = {NULL};
    aclTensor *t[4] = {NULL};
    const int8_t *host[4] = {selfHost, minHost, maxHost, outHost};
    for (int k = 0; k < 4; k++) {
        CHECK_OK(aclrtMalloc(&addr[k], sizeof selfHost, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemcpy(addr[k], sizeof selfHost, host[k], sizeof selfHost, ACL_MEMCPY_HOST_TO_DEVICE));
        t[k] = aclCreateTensor(shape, 2, ACL_INT8, strides, 0, ACL_FORMAT_ND, shape, 2, addr[k]);
        CHECK(t[k] != NULL);
    }
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    CHECK_OK(aclnnClampTensorGetWorkspaceSize(t[0], t[1], t[2], t[3], &workspaceSize, &executor));
    void *workspaceAddr = NULL;
    if (workspaceSize > 0) CHECK_OK(aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnClampTensor(workspaceAddr, workspaceSize, executor, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    int8_t result[8];
    CHECK_OK(aclrtMemcpy(result, sizeof result, addr[3], sizeof result, ACL_MEMCPY_DEVICE_TO_HOST));
    /* max(min(x, max), min) as the doc's formula, min(max(x, min), max) as its golden: the
       bounds are ordered here, so both give this */
    const int8_t want[] = {1, 3, 0, 3, 0, 5, 0, 6};
    for (int k = 0; k < 8; k++) CHECK(result[k] == want[k]);
    for (int k = 0; k < 4; k++) {
        CHECK_OK(aclDestroyTensor(t[k]));
        CHECK_OK(aclrtFree(addr[k]));
    }
    if (workspaceAddr != NULL) CHECK_OK(aclrtFree(workspaceAddr));
}

static void test_clamp_tensor_forms(void)
{
    const char *api = "aclnnClampTensorGetWorkspaceSize";
    /* self (3, 4) = 4i + j - 5; min (3, 1) = [-4, 0, 10]; max (4,) = [-3, 1, 100, NaN]:
       min(max(x, min_i), max_j), NaN in the NaN column */
    int64_t s34[] = {3, 4}, s31[] = {3, 1}, s4[] = {4}, s2[] = {2};
    DevTensor x = mk(F, s34, 2, V(-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6));
    DevTensor lo = mk(F, s31, 2, V(-4, 0, 10)), hi = mk(F, s4, 1, V(-3, 1, 100, NAN));
    DevTensor o = mk(F, s34, 2, NULL);
    RUN2(aclnnClampTensorGetWorkspaceSize(x.tensor, lo.tensor, hi.tensor, o.tensor, &ews, &eex), aclnnClampTensor);
    EXPECT_EXACT(o, -4, -4, -3, NAN, -3, 0, 1, NAN, -3, 1, 10, NAN);
    /* max NULL: min only */
    RUN2(aclnnClampTensorGetWorkspaceSize(x.tensor, lo.tensor, NULL, o.tensor, &ews, &eex), aclnnClampTensor);
    EXPECT_EXACT(o, -4, -4, -3, -2, 0, 0, 1, 2, 10, 10, 10, 10);

    /* bool bounds: an s32 self (3, 2) with min (2,) = [false, true] -> max(x, 0 | 1) */
    int64_t s32_[] = {3, 2};
    DevTensor xi = mk(I, s32_, 2, V(-2, -1, 0, 1, 2, 3)), oi = mk(I, s32_, 2, NULL);
    DevTensor lb = mk(ACL_BOOL, s2, 1, V(0, 1));
    RUN2(aclnnClampMinTensorGetWorkspaceSize(xi.tensor, lb.tensor, oi.tensor, &ews, &eex), aclnnClampMinTensor);
    EXPECT_EXACT(oi, 0, 1, 0, 1, 2, 3);

    /* an f16 self with a 0-d f32 max: promoted to f32, so the out is f32 */
    DevTensor xh = mk(H, s4, 1, V(0.5, 1.5, 65504, -65504)), m0 = mk(F, NULL, 0, V(1.25));
    DevTensor of = mk(F, s4, 1, NULL);
    RUN2(aclnnClampMaxTensorGetWorkspaceSize(xh.tensor, m0.tensor, of.tensor, &ews, &eex), aclnnClampMaxTensor);
    EXPECT_EXACT(of, 0.5, 1.25, 1.25, -65504);

    /* in place on a transposed view: selfRef (2, 3) with strides (1, 2) over 6 floats,
       min (3,) = [0, +0, 1]: storage k is element (k % 2, k / 2); -0 against +0 gives +0 */
    int64_t st6[] = {6}, s23[] = {2, 3}, str[] = {1, 2}, s3[] = {3};
    DevTensor v = mkv(F, st6, 1, V(-3, 2, -0.0, 4, 0.5, NAN), s23, 2, str, 0);
    DevTensor l3 = mk(F, s3, 1, V(0, 0, 1));
    RUN2(aclnnInplaceClampMinTensorGetWorkspaceSize(v.tensor, l3.tensor, &ews, &eex), aclnnInplaceClampMinTensor);
    EXPECT_EXACT(v, 0, 2, 0, 4, 1, NAN);

    /* in place, s8 selfRef with an s32 max: computed in s32, written back as s8 */
    DevTensor v8 = mk(I8, s3, 1, V(-128, 127, 5)), m32 = mk(I, NULL, 0, V(100));
    RUN2(aclnnInplaceClampMaxTensorGetWorkspaceSize(v8.tensor, m32.tensor, &ews, &eex), aclnnInplaceClampMaxTensor);
    EXPECT_EXACT(v8, -128, 100, 5);

    /* errors */
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(x.tensor, NULL, NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               api, "clipValueMin", &o);
    CHECK_ERRMSG("clipValueMax");
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(NULL, lo.tensor, hi.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "self", &o);
    DevTensor lo2 = mk(F, s2, 1, V(0, 1));
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(x.tensor, lo2.tensor, hi.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "clipValueMin", &o);
    CHECK_ERRMSG("broadcast");
    DevTensor ob = mk(ACL_BOOL, s34, 2, NULL), os = mk(I, s34, 2, NULL);
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(x.tensor, lo.tensor, hi.tensor, ob.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "out", &ob);
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(x.tensor, lo.tensor, hi.tensor, os.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "out", &os);
    CHECK_ERRMSG("cannot be cast");
    DevTensor xu = mk(ACL_UINT16, s34, 2, NULL);
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(xu.tensor, lo.tensor, hi.tensor, o.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "self", &o);
    EXPECT_ERR(aclnnClampMaxTensorGetWorkspaceSize(xh.tensor, NULL, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampMaxTensorGetWorkspaceSize", "max", &of);
    EXPECT_ERR(aclnnClampMinTensorGetWorkspaceSize(xi.tensor, NULL, oi.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampMinTensorGetWorkspaceSize", "clipValueMin", &oi);
    /* in place, a bound that would grow selfRef: (3,) with a (3, 1) min broadcasts to (3, 3) */
    EXPECT_ERR(aclnnInplaceClampMinTensorGetWorkspaceSize(l3.tensor, lo.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceClampMinTensorGetWorkspaceSize", "selfRef", NULL);
    DevTensor *all[] = {&x, &lo, &hi, &o, &xi, &oi, &lb, &xh, &m0, &of, &v, &l3, &v8, &m32, &lo2, &ob, &os, &xu};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ Clamp, scalar bounds */

static void test_clamp_scalar_forms(void)
{
    int64_t s4[] = {4}, s3[] = {3}, s2[] = {2};
    /* ClampMin: f32 with an s32 bound 0 (computed in f32); NaN stays NaN */
    DevTensor x = mk(F, s4, 1, V(-2, 0.5, NAN, 3)), o = mk(F, s4, 1, NULL);
    aclScalar *zero = sc(I, 0), *nan = sc(F, NAN), *pz = sc(F, 0.0), *nz = sc(F, -0.0);
    RUN2(aclnnClampMinGetWorkspaceSize(x.tensor, zero, o.tensor, &ews, &eex), aclnnClampMin);
    EXPECT_EXACT(o, 0, 0.5, NAN, 3);
    /* a NaN bound gives NaN, as a NaN bound tensor does (one kernel on the device) */
    RUN2(aclnnClampMinGetWorkspaceSize(x.tensor, nan, o.tensor, &ews, &eex), aclnnClampMin);
    EXPECT_EXACT(o, NAN, NAN, NAN, NAN);
    RUN2(aclnnClampGetWorkspaceSize(x.tensor, zero, nan, o.tensor, &ews, &eex), aclnnClamp);
    EXPECT_EXACT(o, NAN, NAN, NAN, NAN);
    /* signed zeros: max(-0, +0) = +0, min(+0, -0) = -0 */
    DevTensor z = mk(F, s2, 1, V(-0.0, 0.0)), oz = mk(F, s2, 1, NULL);
    RUN2(aclnnClampMinGetWorkspaceSize(z.tensor, pz, oz.tensor, &ews, &eex), aclnnClampMin);
    EXPECT_EXACT(oz, 0.0, 0.0);
    RUN2(aclnnClampMaxGetWorkspaceSize(z.tensor, nz, oz.tensor, &ews, &eex), aclnnClampMax);
    EXPECT_EXACT(oz, -0.0, -0.0);

    /* ClampMax on s8 with an s32 bound: computed in s8; a bound past s8 saturates to 127 */
    DevTensor x8 = mk(I8, s3, 1, V(-128, 100, 127)), o8 = mk(I8, s3, 1, NULL);
    aclScalar *b100 = sc(I, 100), *b1000 = sc(I, 1000);
    RUN2(aclnnClampMaxGetWorkspaceSize(x8.tensor, b100, o8.tensor, &ews, &eex), aclnnClampMax);
    EXPECT_EXACT(o8, -128, 100, 100);
    RUN2(aclnnClampMaxGetWorkspaceSize(x8.tensor, b1000, o8.tensor, &ews, &eex), aclnnClampMax);
    EXPECT_EXACT(o8, -128, 100, 127);

    /* an s32 self with a float bound computes in f32: out f32 */
    DevTensor xi = mk(I, s3, 1, V(-3, 1, 4)), of3 = mk(F, s3, 1, NULL);
    aclScalar *half = sc(F, 0.5);
    RUN2(aclnnClampMinGetWorkspaceSize(xi.tensor, half, of3.tensor, &ews, &eex), aclnnClampMin);
    EXPECT_EXACT(of3, 0.5, 1, 4);

    /* InplaceClampMax on a transposed f64 view (strides (1, 2) over 6): storage k is (k % 2, k / 2) */
    int64_t st6[] = {6}, s23[] = {2, 3}, str[] = {1, 2};
    DevTensor v = mkv(D, st6, 1, V(1, 7, -0.0, 2.5, INFINITY, -INFINITY), s23, 2, str, 0);
    aclScalar *b25 = sc(D, 2.5);
    RUN2(aclnnInplaceClampMaxGetWorkspaceSize(v.tensor, b25, &ews, &eex), aclnnInplaceClampMax);
    EXPECT_EXACT(v, 1, 2.5, -0.0, 2.5, 2.5, -INFINITY);

    /* errors */
    EXPECT_ERR(aclnnClampMinGetWorkspaceSize(x.tensor, NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampMinGetWorkspaceSize", "clipValueMin", &o);
    EXPECT_ERR(aclnnClampMaxGetWorkspaceSize(x.tensor, NULL, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampMaxGetWorkspaceSize", "clipValueMax", &o);
    EXPECT_ERR(aclnnInplaceClampMaxGetWorkspaceSize(v.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceClampMaxGetWorkspaceSize", "clipValueMax", NULL);
    aclScalar *bt = sc(ACL_BOOL, 1);
    EXPECT_ERR(aclnnClampMinGetWorkspaceSize(x.tensor, bt, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnClampMinGetWorkspaceSize", "clipValueMin", &o);
    /* an s32 selfRef cannot hold the f32 result of a float bound */
    EXPECT_ERR(aclnnInplaceClampMaxGetWorkspaceSize(xi.tensor, half, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceClampMaxGetWorkspaceSize", "selfRef", NULL);
    DevTensor o2 = mk(F, s2, 1, NULL);
    EXPECT_ERR(aclnnClampMaxGetWorkspaceSize(x.tensor, b25, o2.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnClampMaxGetWorkspaceSize", "out", &o2);
    aclScalar *scs[] = {zero, nan, pz, nz, b100, b1000, half, b25, bt};
    for (size_t k = 0; k < ARRAY_LEN(scs); k++) CHECK_OK(aclDestroyScalar(scs[k]));
    DevTensor *all[] = {&x, &o, &z, &oz, &x8, &o8, &xi, &of3, &v, &o2};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ RoundDecimals */

static void test_round_decimals(void)
{
    const char *api = "aclnnRoundDecimalsGetWorkspaceSize";
    int64_t s8[] = {8}, s2[] = {2}, s6[] = {6};
    DevTensor x = mk(F, s8, 1, V(2.5, 3.5, -0.5, 1.25, 0.125, 1234.5678, NAN, INFINITY));
    DevTensor o = mk(F, s8, 1, NULL);
    /* halves to even, the sign kept */
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, 0, o.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(o, 2, 4, -0.0, 1, 0, 1235, NAN, INFINITY);
    /* one decimal, in f32: 12.5 -> 12 -> 1.2f, 1.25 -> 1 -> 0.1f, 12345.678 -> 12346 -> 1234.6f */
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, 1, o.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(o, 2.5, 3.5, -0.5, 1.2, 0.1, 1234.6, NAN, INFINITY);
    /* to tens: 0.25 -> 0, 123.45678 -> 123 -> 1230; -0.05 -> -0 */
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, -1, o.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(o, 0, 0, -0.0, 0, 0, 1230, NAN, INFINITY);
    /* 10^39 overflows f32: inf/inf and 0·inf are NaN */
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, 39, o.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(o, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN);

    /* f16 computes in f32 and rounds once: 1.25 -> 1.2f -> f16 1.2001953125;
       2.675 is f16 2.67578125 -> 26.7578125 -> 27 -> 2.7f -> f16 2.69921875 */
    DevTensor xh = mk(H, s2, 1, V(1.25, 2.675)), oh = mk(H, s2, 1, NULL);
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(xh.tensor, 1, oh.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(oh, 1.2001953125, 2.69921875);

    /* integers: unchanged for decimals >= 0; to tens, halves to even, wrapping:
       2147483647 -> 214748365 * 10 = 2147483650 -> -2147483646 */
    DevTensor xi = mk(I, s6, 1, V(15, 25, -15, -25, 149, 2147483647)), oi = mk(I, s6, 1, NULL);
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(xi.tensor, 2, oi.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(oi, 15, 25, -15, -25, 149, 2147483647);
    RUN2(aclnnRoundDecimalsGetWorkspaceSize(xi.tensor, -1, oi.tensor, &ews, &eex), aclnnRoundDecimals);
    EXPECT_EXACT(oi, 20, 20, -20, -20, 150, -2147483646);

    /* in place on a transposed f64 view: 12.5 -> 12 -> 0.12, 37.5 -> 38 -> 0.38, a
       subnormal -> 0 */
    int64_t s23[] = {2, 3}, str[] = {1, 2};
    DevTensor v = mkv(D, s6, 1, V(0.125, 0.375, 2.5, -2.5, 5e-324, 7), s23, 2, str, 0);
    RUN2(aclnnInplaceRoundDecimalsGetWorkspaceSize(v.tensor, 2, &ews, &eex), aclnnInplaceRoundDecimals);
    EXPECT_EXACT(v, 0.12, 0.38, 2.5, -2.5, 0, 7);

    /* errors: out of another dtype or shape, an int8 self, NULL */
    DevTensor oh8 = mk(H, s8, 1, NULL), o2 = mk(F, s2, 1, NULL), x8 = mk(I8, s2, 1, NULL);
    EXPECT_ERR(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, 1, oh8.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, api,
               "out", &oh8);
    EXPECT_ERR(aclnnRoundDecimalsGetWorkspaceSize(x.tensor, 1, o2.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, api,
               "out", &o2);
    EXPECT_ERR(aclnnRoundDecimalsGetWorkspaceSize(x8.tensor, 1, x8.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID, api,
               "self", &x8);
    EXPECT_ERR(aclnnRoundDecimalsGetWorkspaceSize(NULL, 1, o.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR, api, "self",
               &o);
    EXPECT_ERR(aclnnInplaceRoundDecimalsGetWorkspaceSize(NULL, 1, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceRoundDecimalsGetWorkspaceSize", "selfRef", NULL);
    DevTensor *all[] = {&x, &o, &xh, &oh, &xi, &oi, &v, &oh8, &o2, &x8};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ ConvTbc */

static void test_conv_tbc(void)
{
    const char *api = "aclnnConvTbcGetWorkspaceSize";
    /* self (T 3, B 2, Cin 2), weight (K 2, Cin 2, Cout 1) = k0 [1, 0], k1 [0.5, -1], bias [10],
       pad 1 -> output (3 + 2 - 2 + 1 = 4, 2, 1):
       y[t, b] = 10 + sum_k sum_c x[t + k - 1, b, c] * w[k, c]
       b0: t0 10 + (0.5 - 2) = 8.5, t1 10 + 1 + (1.5 - 4) = 8.5, t2 10 + 3 - 0.5 = 12.5, t3 10 - 1 = 9
       b1: t0 10 - 1 = 9, t1 10 + 0 + 0.5 = 10.5, t2 10 + 1 - 1 = 10, t3 10 + 2 = 12 */
    int64_t sx[] = {3, 2, 2}, sw[] = {2, 2, 1}, sb[] = {1}, sy[] = {4, 2, 1};
    DevTensor x = mk(F, sx, 3, V(1, 2, 0, 1, 3, 4, 1, 0, -1, 0, 2, 2));
    DevTensor w = mk(F, sw, 3, V(1, 0, 0.5, -1)), b = mk(F, sb, 1, V(10)), y = mk(F, sy, 3, NULL);
    RUN2(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, 1, y.tensor, 0, &ews, &eex), aclnnConvTbc);
    EXPECT_EXACT(y, 8.5, 9, 8.5, 10.5, 12.5, 10, 9, 12);

    /* T = 0 with pad 1 and K 1: 2 output steps, each the bias (f16 self/weight/output, f32 bias) */
    int64_t sx0[] = {0, 1, 2}, sw0[] = {1, 2, 2}, sb0[] = {2}, sy0[] = {2, 1, 2};
    DevTensor x0 = mk(H, sx0, 3, NULL), w0 = mk(H, sw0, 3, V(1, 1, 1, 1)), b0 = mk(F, sb0, 1, V(1.5, -2));
    DevTensor y0 = mk(H, sy0, 3, NULL);
    RUN2(aclnnConvTbcGetWorkspaceSize(x0.tensor, w0.tensor, b0.tensor, 1, y0.tensor, 0, &ews, &eex), aclnnConvTbc);
    EXPECT_EXACT(y0, 1.5, -2, 1.5, -2);

    /* errors */
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, 256, y.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "pad", &y);
    CHECK_ERRMSG("[0, 255]");
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, -1, y.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "pad", &y);
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, NULL, 1, y.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "bias", &y);
    int64_t sw3[] = {2, 3, 1}, sy3[] = {3, 2, 1};
    DevTensor w3 = mk(F, sw3, 3, NULL), y3 = mk(F, sy3, 3, NULL), yh = mk(H, sy, 3, NULL);
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w3.tensor, b.tensor, 1, y.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "weight", &y);
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, 1, y3.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "output", &y3);
    /* self, weight and output must share one dtype */
    EXPECT_ERR(aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, 1, yh.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, api, "output", &yh);
    DevTensor *all[] = {&x, &w, &b, &y, &x0, &w0, &b0, &y0, &w3, &y3, &yh};
    free_all(all, ARRAY_LEN(all));
}

/* ================================================================ ConvDepthwise2d */

static void test_conv_depthwise2d(void)
{
    const char *api = "aclnnConvDepthwise2dGetWorkspaceSize";
    /* self (1, 2, 3, 3): channel 0 = 1..9, channel 1 = the identity; weight (2, 1, 2, 2):
       w0 = [1, 0; 0, 1], w1 = all ones; bias [0.5, -1]; stride 1, no padding -> (1, 2, 2, 2):
       c0: x(i, j) + x(i+1, j+1) + 0.5 = 6.5, 8.5, 12.5, 14.5; c1: 2x2 window sums - 1 = 1, 0, 0, 1 */
    int64_t sx[] = {1, 2, 3, 3}, sw[] = {2, 1, 2, 2}, sb[] = {2}, sy[] = {1, 2, 2, 2};
    DevTensor x = mk_nchw(F, sx, V(1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0, 0, 1, 0, 0, 0, 1));
    DevTensor w = mk_nchw(F, sw, V(1, 0, 0, 1, 1, 1, 1, 1));
    DevTensor b = mk(F, sb, 1, V(0.5, -1)), y = mk_nchw(F, sy, NULL);
    int64_t k22[] = {2, 2}, one[] = {1, 1}, zero[] = {0, 0}, two[] = {2, 2}, k23[] = {2, 3}, pad4[] = {1, 1, 1, 1};
    aclIntArray *ks = aclCreateIntArray(k22, 2), *s1 = aclCreateIntArray(one, 2), *p0 = aclCreateIntArray(zero, 2);
    aclIntArray *s2 = aclCreateIntArray(two, 2), *ksb = aclCreateIntArray(k23, 2), *p4 = aclCreateIntArray(pad4, 4);
    RUN2(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w.tensor, ks, b.tensor, s1, p0, s1, y.tensor, 0, &ews, &eex),
         aclnnConvDepthwise2d);
    EXPECT_EXACT(y, 6.5, 8.5, 12.5, 14.5, 1, 0, 0, 1);
    /* no bias, stride 2, padding 1 (padded 5x5, out (3 + 2 - 2) / 2 + 1 = 2):
       c0: xp(2i, 2j) + xp(2i+1, 2j+1) = 1, 3, 7, 14; c1: window sums at (2i-1, 2j-1) = 1, 0, 0, 2 */
    RUN2(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w.tensor, ks, NULL, s2, s1, s1, y.tensor, 1, &ews, &eex),
         aclnnConvDepthwise2d);
    EXPECT_EXACT(y, 1, 3, 7, 14, 1, 0, 0, 2);

    /* errors: kernelSize not weight's (H, W), a weight second dim of 2, NULL kernelSize,
       4-value padding, output channels not a multiple of self's */
    EXPECT_ERR(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w.tensor, ksb, b.tensor, s1, p0, s1, y.tensor, 0, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, api, "kernelSize", &y);
    int64_t sw2[] = {2, 2, 2, 2}, sw3[] = {3, 1, 2, 2};
    DevTensor w2 = mk_nchw(F, sw2, NULL), w3 = mk_nchw(F, sw3, NULL);
    EXPECT_ERR(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w2.tensor, ks, b.tensor, s1, p0, s1, y.tensor, 0, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, api, "weight", &y);
    EXPECT_ERR(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w.tensor, NULL, b.tensor, s1, p0, s1, y.tensor, 0, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_NULLPTR, api, "kernelSize", &y);
    EXPECT_ERR(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w.tensor, ks, b.tensor, s1, p4, s1, y.tensor, 0, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, api, "padding", &y);
    EXPECT_ERR(aclnnConvDepthwise2dGetWorkspaceSize(x.tensor, w3.tensor, ks, NULL, s1, p0, s1, y.tensor, 0, &ews,
                                                    &eex),
               ACLNN_ERR_PARAM_INVALID, api, "weight", &y);
    aclIntArray *arrs[] = {ks, s1, p0, s2, ksb, p4};
    for (size_t k = 0; k < ARRAY_LEN(arrs); k++) CHECK_OK(aclDestroyIntArray(arrs[k]));
    DevTensor *all[] = {&x, &w, &b, &y, &w2, &w3};
    free_all(all, ARRAY_LEN(all));
}

int main(void)
{
    device_init();
    RUN_TEST(test_clamp_tensor_cann_sample);
    RUN_TEST(test_clamp_tensor_forms);
    RUN_TEST(test_clamp_scalar_forms);
    RUN_TEST(test_round_decimals);
    RUN_TEST(test_conv_tbc);
    RUN_TEST(test_conv_depthwise2d);
    device_teardown();
    return capi_finish();
}
