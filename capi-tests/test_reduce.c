/*
 * Reductions through the C ABI (reference 5.6): ReduceSum, Mean, MeanV2, Amax, Amin, ArgMax,
 * ArgMin, Softmax, LogSoftmax. dims are aclIntArrays (aclCreateIntArray; an empty array means
 * every axis). Hand-computed values for each rule: keepDims both ways, negative dims,
 * transposed input, a non-contiguous output whose other storage bytes stay untouched, the
 * dtype parameter (conversion first, one rounding, bool counting, integer wrapping), empty
 * and 0-d tensors, NaN rules, stable softmax; then every documented error with its status,
 * the message naming the API and the parameter, and the output untouched.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_amin.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argmin.h"
#include "aclnnop/aclnn_log_softmax.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"

#include <math.h>

#define F ACL_FLOAT

/* An aclIntArray of the listed dims (destroyed with aclDestroyIntArray). */
static aclIntArray *ia(const int64_t *v, uint64_t n)
{
    aclIntArray *a = aclCreateIntArray(v, n);
    CHECK(a != NULL);
    return a;
}
#define DIMS(...) ia((const int64_t[]){__VA_ARGS__}, ARRAY_LEN(((const int64_t[]){__VA_ARGS__})))
#define NO_DIMS() ia(NULL, 0)

static void sum_run(const DevTensor *s, const aclIntArray *d, bool keep, aclDataType dt, const DevTensor *o)
{
    RUN2(aclnnReduceSumGetWorkspaceSize(s->tensor, d, keep, dt, o->tensor, &ews, &eex), aclnnReduceSum);
}
static void mean_run(const DevTensor *s, const aclIntArray *d, bool keep, aclDataType dt, const DevTensor *o)
{
    RUN2(aclnnMeanGetWorkspaceSize(s->tensor, d, keep, dt, o->tensor, &ews, &eex), aclnnMean);
}
/* One value of a 1-element (or first-element) output. */
static double first(const DevTensor *t)
{
    double *g = dbl(t->numel * comps(t->dtype));
    rd(t, g);
    double v = g[0];
    free(g);
    return v;
}

/* ================================================================ ReduceSum */

static void test_reduce_sum_dims_and_keep(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2}, s3[] = {3}, s11[] = {1, 1}, s21[] = {2, 1}, s0d[1] = {0};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6));
    DevTensor o2 = mk(F, s2, 1, NULL), o3 = mk(F, s3, 1, NULL), o11 = mk(F, s11, 2, NULL);
    DevTensor o21 = mk(ACL_DOUBLE, s21, 2, NULL), o0 = mk(F, s0d, 0, NULL);
    aclIntArray *d1 = DIMS(1), *dm2 = DIMS(-2), *none = NO_DIMS(), *both = DIMS(-1, 0);
    sum_run(&x, d1, false, F, &o2);
    EXPECT_T(o2, 6, 15);
    sum_run(&x, dm2, false, F, &o3);
    EXPECT_T(o3, 5, 7, 9);
    sum_run(&x, none, true, F, &o11); /* empty dims: every axis */
    EXPECT_T(o11, 21);
    sum_run(&x, both, false, F, &o0); /* both axes, out 0-d */
    EXPECT_T(o0, 21);
    sum_run(&x, d1, true, ACL_DOUBLE, &o21); /* dtype f64 = out dtype */
    EXPECT_T(o21, 6, 15);
    /* A transposed input: the (2,3) view, strides (1,2), of the 3x2 buffer [[1,2],[3,4],[5,6]]. */
    int64_t st32[] = {3, 2}, tstr[] = {1, 2};
    DevTensor t = mkv(F, st32, 2, V(1, 2, 3, 4, 5, 6), s23, 2, tstr, 0);
    sum_run(&t, d1, false, F, &o2);
    EXPECT_T(o2, 9, 12);
    sum_run(&t, dm2, false, F, &o3);
    EXPECT_T(o3, 3, 7, 11);
    /* A stride-0 (expanded) input: (4,3) with strides (0,1) over 3 elements. */
    int64_t s43[] = {4, 3}, st3[] = {3}, estr[] = {0, 1};
    DevTensor e = mkv(F, st3, 1, V(1, 2, 3), s43, 2, estr, 0);
    aclIntArray *d0 = DIMS(0);
    sum_run(&e, d0, false, F, &o3);
    EXPECT_T(o3, 4, 8, 12);
    aclIntArray *all[] = {d1, dm2, none, both, d0};
    for (size_t k = 0; k < ARRAY_LEN(all); k++) CHECK_OK(aclDestroyIntArray(all[k]));
    DevTensor *ts[] = {&x, &o2, &o3, &o11, &o21, &o0, &t, &e};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* out is the (4,3) seed view of a 10x10 storage: only its 12 elements are written. */
static void test_reduce_sum_noncontiguous_out(void)
{
    int64_t s432[] = {4, 3, 2};
    double v[24];
    for (int k = 0; k < 24; k++) v[k] = k;
    DevTensor x = mk(F, s432, 3, v);
    DevTensor o = mkv(F, VSTORE, 2, NULL, VSHAPE, 2, VSTRIDES, VOFF);
    aclIntArray *d = DIMS(2);
    sum_run(&x, d, false, F, &o);
    float host[100];
    dev_read(&o, host);
    const unsigned char *b = (const unsigned char *)host;
    for (int64_t k = 0; k < 100; k++) {
        if (in_view(k)) continue;
        for (int j = 0; j < 4; j++) CHECK(b[4 * k + j] == SENT);
    }
    for (int64_t lin = 0; lin < 12; lin++) CHECK(host[view_pos(lin)] == (float)(4 * lin + 1));
    CHECK_OK(aclDestroyIntArray(d));
    dev_free(&x);
    dev_free(&o);
}

static void test_reduce_sum_dtype_param(void)
{
    int64_t s3[] = {3}, s5[] = {5}, s2[] = {2}, s0[] = {0}, s4096[] = {4096};
    aclIntArray *none = NO_DIMS(), *d0 = DIMS(0);
    /* self converted to f16 first, summed, rounded once: 3 x f16(0.1) = 0.2998046875 (a tie,
       to even); summing first would give f16(0.3) = 0.300048828125. */
    DevTensor x = mk(ACL_DOUBLE, s3, 1, V(0.1, 0.1, 0.1)), h = mk(ACL_FLOAT16, s0, 0, NULL);
    sum_run(&x, none, false, ACL_FLOAT16, &h);
    CHECK(first(&h) == 0.2998046875);
    /* 4096 ones summed into f16: 4096 (an f16 accumulator would stop at 2048). */
    double *ones = dbl(4096);
    for (int k = 0; k < 4096; k++) ones[k] = 1;
    DevTensor o4k = mk(F, s4096, 1, ones);
    sum_run(&o4k, d0, false, ACL_FLOAT16, &h);
    CHECK(first(&h) == 4096);
    free(ones);
    /* bool self (bytes 0, 1, 2, 255, 1) with dtype s64: counting. */
    const uint8_t bytes[5] = {0, 1, 2, 255, 1};
    DevTensor b = dev_tensor(bytes, ACL_BOOL, s5, 1), c = mk(ACL_INT64, s0, 0, NULL);
    sum_run(&b, none, false, ACL_INT64, &c);
    CHECK(first(&c) == 4);
    /* ... and with dtype bool: any, stored as 1. */
    DevTensor bo = mk(ACL_BOOL, s0, 0, NULL);
    sum_run(&b, d0, false, ACL_BOOL, &bo);
    CHECK(first(&bo) == 1);
    /* integers wrap in dtype: s8 100 + 100 + 100 = 44; f32 -> s32 truncates each element. */
    DevTensor i8 = mk(ACL_INT8, s3, 1, V(100, 100, 100)), o8 = mk(ACL_INT8, s0, 0, NULL);
    sum_run(&i8, none, false, ACL_INT8, &o8);
    CHECK(first(&o8) == 44);
    DevTensor f = mk(F, s3, 1, V(1.9, 1.9, -0.9)), o32 = mk(ACL_INT32, s0, 0, NULL);
    sum_run(&f, none, false, ACL_INT32, &o32);
    CHECK(first(&o32) == 2);
    /* complex: per component */
    DevTensor z = mk(ACL_COMPLEX64, s2, 1, V(1, -2, 0.5, 4)), oz = mk(ACL_COMPLEX64, s0, 0, NULL);
    sum_run(&z, d0, false, ACL_COMPLEX64, &oz);
    EXPECT_T(oz, 1.5, 2);
    /* an empty self sums to 0 (keepDims: shape (1,)) */
    DevTensor em = mk(F, s0, 1, NULL), om = mk(F, (int64_t[]){1}, 1, V(7));
    sum_run(&em, none, true, F, &om);
    EXPECT_T(om, 0);
    /* a 0-d self: its value, dims {} / {0} / {-1} alike */
    DevTensor s = mk(F, s0, 0, V(2.5)), os = mk(ACL_DOUBLE, s0, 0, NULL);
    aclIntArray *dm1 = DIMS(-1);
    sum_run(&s, none, false, ACL_DOUBLE, &os);
    CHECK(first(&os) == 2.5);
    sum_run(&s, dm1, true, ACL_DOUBLE, &os);
    CHECK(first(&os) == 2.5);
    CHECK_OK(aclDestroyIntArray(none));
    CHECK_OK(aclDestroyIntArray(d0));
    CHECK_OK(aclDestroyIntArray(dm1));
    DevTensor *ts[] = {&x, &h, &o4k, &b, &c, &bo, &i8, &o8, &f, &o32, &z, &oz, &em, &om, &s, &os};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* ================================================================ Mean, MeanV2 */

static void test_mean(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s0[] = {0}, s04[] = {0, 4}, s14[] = {1, 4}, s2[] = {2};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o3 = mk(ACL_DOUBLE, s3, 1, NULL);
    aclIntArray *d0 = DIMS(0), *dm1 = DIMS(-1), *none = NO_DIMS();
    mean_run(&x, d0, false, ACL_DOUBLE, &o3);
    EXPECT_T(o3, 2.5, 3.5, 4.5);
    DevTensor o = mk(F, s0, 0, NULL);
    mean_run(&x, none, false, F, &o);
    CHECK(first(&o) == 3.5);
    /* empty self: NaN */
    DevTensor e = mk(F, s04, 2, NULL), on = mk(F, s14, 2, NULL);
    mean_run(&e, d0, true, F, &on);
    EXPECT_T(on, NAN, NAN, NAN, NAN);
    /* integer mean truncates toward zero */
    DevTensor i = mk(ACL_INT32, (int64_t[]){2, 2}, 2, V(-1, -2, 1, 2)), oi = mk(ACL_INT32, s2, 1, NULL);
    mean_run(&i, dm1, false, ACL_INT32, &oi);
    EXPECT_T(oi, -1, 1);
    /* MeanV2: noopWithEmptyAxes true with no dims: a copy; false: every axis. out must have
       self's dtype (CANN's A2 code and doc), even for the copy. */
    DevTensor c = mk(F, s23, 2, NULL), cd = mk(ACL_DOUBLE, s23, 2, NULL);
    RUN2(aclnnMeanV2GetWorkspaceSize(x.tensor, none, false, true, c.tensor, &ews, &eex), aclnnMeanV2);
    EXPECT_T(c, 1, 2, 3, 4, 5, 6);
    EXPECT_ERR(aclnnMeanV2GetWorkspaceSize(x.tensor, none, false, true, cd.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMeanV2GetWorkspaceSize", "out", &cd);
    dev_free(&cd);
    RUN2(aclnnMeanV2GetWorkspaceSize(x.tensor, none, false, false, o.tensor, &ews, &eex), aclnnMeanV2);
    CHECK(first(&o) == 3.5);
    DevTensor o2 = mk(F, (int64_t[]){2, 1}, 2, NULL);
    RUN2(aclnnMeanV2GetWorkspaceSize(x.tensor, dm1, true, true, o2.tensor, &ews, &eex), aclnnMeanV2);
    EXPECT_T(o2, 2, 5);
    /* Computed in dtype, then cast to out: in f16 the mean of (1, 1, 1 + 2^-9) is 1 + 2^-10
       (2/3 of an f16 ulp above 1 rounds up); in s32 the mean of (1, 2) is 1. */
    DevTensor h = mk(F, s3, 1, V(1, 1, 1 + ldexp(1, -9)));
    mean_run(&h, none, false, ACL_FLOAT16, &o);
    CHECK(first(&o) == 1 + ldexp(1, -10));
    DevTensor i2 = mk(ACL_INT32, s2, 1, V(1, 2));
    mean_run(&i2, none, false, ACL_INT32, &o);
    CHECK(first(&o) == 1);
    CHECK_OK(aclDestroyIntArray(d0));
    CHECK_OK(aclDestroyIntArray(dm1));
    CHECK_OK(aclDestroyIntArray(none));
    DevTensor *ts[] = {&x, &o3, &o, &e, &on, &i, &oi, &c, &o2, &h, &i2};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* ================================================================ Amax, Amin, ArgMax, ArgMin */

static void test_amax_amin_argmax_argmin(void)
{
    int64_t s34[] = {3, 4}, s3[] = {3}, s31[] = {3, 1}, s14[] = {1, 4};
    const aclDataType dts[] = {F, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16};
    for (size_t k = 0; k < ARRAY_LEN(dts); k++) {
        DevTensor x = mk(dts[k], s34, 2, V(1, NAN, 3, -1, 5, 5, -2, -2, 0, -0.0, 7, NAN));
        DevTensor o = mk(dts[k], s3, 1, NULL), o14 = mk(dts[k], s14, 2, NULL);
        aclIntArray *d1 = DIMS(1), *d0 = DIMS(-2);
        RUN2(aclnnAmaxGetWorkspaceSize(x.tensor, d1, false, o.tensor, &ews, &eex), aclnnAmax);
        EXPECT_T(o, NAN, 5, NAN);
        RUN2(aclnnAminGetWorkspaceSize(x.tensor, d1, false, o.tensor, &ews, &eex), aclnnAmin);
        EXPECT_T(o, NAN, -2, NAN);
        RUN2(aclnnAmaxGetWorkspaceSize(x.tensor, d0, true, o14.tensor, &ews, &eex), aclnnAmax);
        EXPECT_T(o14, 5, NAN, 7, NAN);
        /* first NaN; first of two equal maxima / minima */
        DevTensor ix = mk(ACL_INT64, s31, 2, NULL);
        RUN2(aclnnArgMaxGetWorkspaceSize(x.tensor, 1, true, ix.tensor, &ews, &eex), aclnnArgMax);
        EXPECT_T(ix, 1, 0, 3);
        RUN2(aclnnArgMinGetWorkspaceSize(x.tensor, -1, true, ix.tensor, &ews, &eex), aclnnArgMin);
        EXPECT_T(ix, 1, 2, 3);
        CHECK_OK(aclDestroyIntArray(d1));
        CHECK_OK(aclDestroyIntArray(d0));
        dev_free(&x);
        dev_free(&o);
        dev_free(&o14);
        dev_free(&ix);
    }
    /* integers and bool; s32 indices */
    int64_t s4[] = {4}, s0[] = {0};
    DevTensor i = mk(ACL_INT8, s4, 1, V(-128, 127, 127, -128)), oi = mk(ACL_INT8, s0, 0, NULL);
    DevTensor ai = mk(ACL_INT32, s0, 0, NULL);
    aclIntArray *none = NO_DIMS();
    RUN2(aclnnAmaxGetWorkspaceSize(i.tensor, none, false, oi.tensor, &ews, &eex), aclnnAmax);
    CHECK(first(&oi) == 127);
    RUN2(aclnnArgMaxGetWorkspaceSize(i.tensor, 0, false, ai.tensor, &ews, &eex), aclnnArgMax);
    CHECK(first(&ai) == 1);
    RUN2(aclnnArgMinGetWorkspaceSize(i.tensor, 0, false, ai.tensor, &ews, &eex), aclnnArgMin);
    CHECK(first(&ai) == 0);
    DevTensor b = mk(ACL_BOOL, s4, 1, V(0, 1, 1, 0)), ob = mk(ACL_BOOL, s0, 0, NULL);
    RUN2(aclnnAmaxGetWorkspaceSize(b.tensor, none, false, ob.tensor, &ews, &eex), aclnnAmax);
    CHECK(first(&ob) == 1);
    RUN2(aclnnAminGetWorkspaceSize(b.tensor, none, false, ob.tensor, &ews, &eex), aclnnAmin);
    CHECK(first(&ob) == 0);
    CHECK_OK(aclDestroyIntArray(none));
    DevTensor *ts[] = {&i, &oi, &ai, &b, &ob};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* ================================================================ Softmax, LogSoftmax */

static void test_softmax(void)
{
    int64_t s24[] = {2, 4}, s23[] = {2, 3};
    /* large inputs: stable (no inf/NaN), rows sum to 1 */
    DevTensor x = mk(F, s24, 2, V(1e4, -1e4, 1e4 - 1, 0, -1e4, 1e4, 1e4, -0.5));
    DevTensor o = mk(F, s24, 2, NULL);
    RUN2(aclnnSoftmaxGetWorkspaceSize(x.tensor, 1, o.tensor, &ews, &eex), aclnnSoftmax);
    double e1 = exp(-1.0), p = 1 / (1 + e1);
    EXPECT_T(o, p, 0, e1 * p, 0, 0, 0.5, 0.5, 0);
    double g[8];
    rd(&o, g);
    for (int r = 0; r < 2; r++) {
        double s = 0;
        for (int k = 0; k < 4; k++) {
            CHECK(isfinite(g[4 * r + k]));
            s += g[4 * r + k];
        }
        CHECK(fabs(s - 1) < 1e-6);
    }
    RUN2(aclnnLogSoftmaxGetWorkspaceSize(x.tensor, -1, o.tensor, &ews, &eex), aclnnLogSoftmax);
    double l = log(p), l2 = -log(2.0);
    EXPECT_T(o, l, -2e4 + l, -1 + l, -1e4 + l, -2e4 + l2, l2, l2, -1e4 - 0.5 + l2);
    /* a NaN makes its row NaN, the other row is untouched by it */
    DevTensor n = mk(F, s23, 2, V(1, NAN, 2, 0, 0, 0)), on = mk(F, s23, 2, NULL);
    RUN2(aclnnSoftmaxGetWorkspaceSize(n.tensor, 1, on.tensor, &ews, &eex), aclnnSoftmax);
    EXPECT_T(on, NAN, NAN, NAN, 1.0 / 3, 1.0 / 3, 1.0 / 3);
    /* f16 in, f32 out, along dim 0 */
    DevTensor h = mk(ACL_FLOAT16, s23, 2, V(0, 1, 2, 0, 1, 2)), oh = mk(F, s23, 2, NULL);
    RUN2(aclnnSoftmaxGetWorkspaceSize(h.tensor, 0, oh.tensor, &ews, &eex), aclnnSoftmax);
    EXPECT_T(oh, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
    DevTensor *ts[] = {&x, &o, &n, &on, &h, &oh};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* ================================================================ errors */

static void test_reduce_errors(void)
{
    const long long NUL = ACLNN_ERR_PARAM_NULLPTR, INV = ACLNN_ERR_PARAM_INVALID;
    int64_t s23[] = {2, 3}, s2[] = {2}, s03[] = {0, 3}, s3[] = {3};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o2 = mk(F, s2, 1, NULL), o23 = mk(F, s23, 2, NULL);
    DevTensor od2 = mk(ACL_DOUBLE, s2, 1, NULL), ou2 = mk(ACL_UINT16, s2, 1, NULL), oi2 = mk(ACL_INT64, s2, 1, NULL);
    aclIntArray *d1 = DIMS(1), *d2 = DIMS(2), *dm3 = DIMS(-3), *rep = DIMS(1, -1), *d0 = DIMS(0);
    const char *RS = "aclnnReduceSumGetWorkspaceSize";
    /* NULL arguments: 161001 naming the parameter */
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(NULL, d1, false, F, o2.tensor, &ews, &eex), NUL, RS, "self", &o2);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, NULL, false, F, o2.tensor, &ews, &eex), NUL, RS, "dims", &o2);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, d1, false, F, NULL, &ews, &eex), NUL, RS, "out", NULL);
    EXPECT_ERR(aclnnMeanGetWorkspaceSize(x.tensor, NULL, false, F, o2.tensor, &ews, &eex), NUL,
               "aclnnMeanGetWorkspaceSize", "dim", &o2);
    EXPECT_ERR(aclnnAmaxGetWorkspaceSize(x.tensor, NULL, false, o2.tensor, &ews, &eex), NUL,
               "aclnnAmaxGetWorkspaceSize", "dim", &o2);
    EXPECT_ERR(aclnnSoftmaxGetWorkspaceSize(NULL, 1, o23.tensor, &ews, &eex), NUL, "aclnnSoftmaxGetWorkspaceSize",
               "self", &o23);
    EXPECT_ERR(aclnnLogSoftmaxGetWorkspaceSize(x.tensor, 1, NULL, &ews, &eex), NUL,
               "aclnnLogSoftmaxGetWorkspaceSize", "out", NULL);
    /* dims out of range, repeated; out shape wrong */
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, d2, false, F, o2.tensor, &ews, &eex), INV, RS, "dims", &o2);
    CHECK_ERRMSG("[-2, 1]");
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, dm3, false, F, o2.tensor, &ews, &eex), INV, RS, "-3", &o2);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, rep, false, F, o2.tensor, &ews, &eex), INV, RS, "repeats",
               &o2);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, d1, true, F, o2.tensor, &ews, &eex), INV, RS, "shape", &o2);
    EXPECT_ERR(aclnnMeanGetWorkspaceSize(x.tensor, rep, false, F, o2.tensor, &ews, &eex), INV,
               "aclnnMeanGetWorkspaceSize", "repeats", &o2);
    EXPECT_ERR(aclnnAminGetWorkspaceSize(x.tensor, d2, false, o2.tensor, &ews, &eex), INV,
               "aclnnAminGetWorkspaceSize", "dim", &o2);
    EXPECT_ERR(aclnnArgMaxGetWorkspaceSize(x.tensor, 2, false, oi2.tensor, &ews, &eex), INV,
               "aclnnArgMaxGetWorkspaceSize", "dim", &oi2);
    EXPECT_ERR(aclnnSoftmaxGetWorkspaceSize(x.tensor, -3, o23.tensor, &ews, &eex), INV,
               "aclnnSoftmaxGetWorkspaceSize", "dim", &o23);
    EXPECT_ERR(aclnnSoftmaxGetWorkspaceSize(x.tensor, 1, o2.tensor, &ews, &eex), INV,
               "aclnnSoftmaxGetWorkspaceSize", "shape", &o2);
    /* dtypes: ReduceSum dtype != out dtype, unsupported dtype; Amax out dtype != self dtype;
       Mean of bool; Softmax of s32; ArgMax out not s32/s64 */
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, d1, false, ACL_DOUBLE, o2.tensor, &ews, &eex), INV, RS,
               "dtype", &o2);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, d1, false, ACL_UINT16, ou2.tensor, &ews, &eex), INV, RS,
               "dtype", &ou2);
    EXPECT_ERR(aclnnAmaxGetWorkspaceSize(x.tensor, d1, false, od2.tensor, &ews, &eex), INV,
               "aclnnAmaxGetWorkspaceSize", "out", &od2);
    CHECK_ERRMSG("self's dtype");
    DevTensor b = mk(ACL_BOOL, s23, 2, V(1, 0, 1, 0, 1, 0));
    EXPECT_ERR(aclnnMeanGetWorkspaceSize(b.tensor, d1, false, F, o2.tensor, &ews, &eex), INV,
               "aclnnMeanGetWorkspaceSize", "self", &o2);
    DevTensor i = mk(ACL_INT32, s23, 2, V(1, 2, 3, 4, 5, 6));
    EXPECT_ERR(aclnnSoftmaxGetWorkspaceSize(i.tensor, 1, o23.tensor, &ews, &eex), INV,
               "aclnnSoftmaxGetWorkspaceSize", "self", &o23);
    EXPECT_ERR(aclnnLogSoftmaxGetWorkspaceSize(i.tensor, 1, o23.tensor, &ews, &eex), INV,
               "aclnnLogSoftmaxGetWorkspaceSize", "self", &o23);
    EXPECT_ERR(aclnnArgMinGetWorkspaceSize(x.tensor, 1, false, o2.tensor, &ews, &eex), INV,
               "aclnnArgMinGetWorkspaceSize", "out", &o2);
    /* Amax/Amin/ArgMin over a reduced axis of size 0 */
    DevTensor e = mk(F, s03, 2, NULL), o3 = mk(F, s3, 1, NULL), oi3 = mk(ACL_INT64, s3, 1, NULL);
    EXPECT_ERR(aclnnAmaxGetWorkspaceSize(e.tensor, d0, false, o3.tensor, &ews, &eex), INV,
               "aclnnAmaxGetWorkspaceSize", "size 0", &o3);
    EXPECT_ERR(aclnnAminGetWorkspaceSize(e.tensor, d0, false, o3.tensor, &ews, &eex), INV,
               "aclnnAminGetWorkspaceSize", "size 0", &o3);
    EXPECT_ERR(aclnnArgMinGetWorkspaceSize(e.tensor, 0, false, oi3.tensor, &ews, &eex), INV,
               "aclnnArgMinGetWorkspaceSize", "size 0", &oi3);
    /* ArgMax over it succeeds and writes nothing (CANN's A2 code returns for an empty self) */
    dev_fill_bytes(&oi3, SENT);
    RUN2(aclnnArgMaxGetWorkspaceSize(e.tensor, 0, false, oi3.tensor, &ews, &eex), aclnnArgMax);
    check_untouched_at(__FILE__, __LINE__, &oi3);
    /* bool is no ArgMax/ArgMin dtype (CANN's A2 list); Amax/Amin take it */
    EXPECT_ERR(aclnnArgMaxGetWorkspaceSize(b.tensor, 1, false, oi2.tensor, &ews, &eex), INV,
               "aclnnArgMaxGetWorkspaceSize", "self", &oi2);
    EXPECT_ERR(aclnnArgMinGetWorkspaceSize(b.tensor, 1, false, oi2.tensor, &ews, &eex), INV,
               "aclnnArgMinGetWorkspaceSize", "self", &oi2);
    /* an empty mean is NaN, not allowed for a complex out */
    DevTensor z = mk(ACL_COMPLEX64, s03, 2, NULL), oz = mk(ACL_COMPLEX64, s3, 1, NULL);
    EXPECT_ERR(aclnnMeanGetWorkspaceSize(z.tensor, d0, false, ACL_COMPLEX64, oz.tensor, &ews, &eex), INV,
               "aclnnMeanGetWorkspaceSize", "complex", &oz);
    dev_free(&z);
    dev_free(&oz);
    aclIntArray *arrs[] = {d1, d2, dm3, rep, d0};
    for (size_t k = 0; k < ARRAY_LEN(arrs); k++) CHECK_OK(aclDestroyIntArray(arrs[k]));
    DevTensor *ts[] = {&x, &o2, &o23, &od2, &ou2, &oi2, &b, &i, &e, &o3, &oi3};
    for (size_t k = 0; k < ARRAY_LEN(ts); k++) dev_free(ts[k]);
}

/* ================================================================ integer means */

/* An s64 mean keeps 64-bit precision: mean(2^53 + 1, 2^53 + 1) = 2^53 + 1 (not 2^53). */
static void test_mean_s64_precision(void)
{
    int64_t s2[] = {2}, s0[] = {0};
    aclIntArray *none = NO_DIMS();
    DevTensor l = mk(ACL_INT64, s2, 1, NULL), ol = mk(ACL_INT64, s0, 0, NULL);
    const int64_t lv[2] = {9007199254740993LL, 9007199254740993LL};
    dev_write(&l, lv);
    mean_run(&l, none, false, ACL_INT64, &ol);
    int64_t lg;
    dev_read(&ol, &lg);
    CHECK_OK(aclDestroyIntArray(none));
    dev_free(&l);
    dev_free(&ol);
    CHECK(lg == lv[0]);
}

/* A one-element out takes a one-element result whatever the two shapes (CANN's
   CheckShapeAndScalarSame): ggml sums every element into a [1] out. */
static void test_one_element_out(void)
{
    int64_t s23[] = {2, 3}, s1[] = {1}, s11[] = {1, 1}, s2[] = {2};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6));
    DevTensor o1 = mk(F, s1, 1, NULL), o11 = mk(F, s11, 2, NULL), o2 = mk(F, s2, 1, NULL);
    aclIntArray *all = DIMS(0, 1);
    sum_run(&x, all, false, F, &o1);
    CHECK(first(&o1) == 21);
    sum_run(&x, all, false, F, &o11);
    CHECK(first(&o11) == 21);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_STATUS(aclnnReduceSumGetWorkspaceSize(x.tensor, all, false, F, o2.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_OK(aclDestroyIntArray(all));
    dev_free(&x);
    dev_free(&o1);
    dev_free(&o11);
    dev_free(&o2);
}

int main(void)
{
    device_init();
    RUN_TEST(test_reduce_sum_dims_and_keep);
    RUN_TEST(test_one_element_out);
    RUN_TEST(test_reduce_sum_noncontiguous_out);
    RUN_TEST(test_reduce_sum_dtype_param);
    RUN_TEST(test_mean);
    RUN_TEST(test_amax_amin_argmax_argmin);
    RUN_TEST(test_softmax);
    RUN_TEST(test_reduce_errors);
    RUN_TEST(test_mean_s64_precision);
    device_teardown();
    return capi_finish();
}
