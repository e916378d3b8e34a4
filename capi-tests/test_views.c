/*
 * Permute, Slice, SliceV2, Expand, Repeat, Roll (the result as another view of self), the masked
 * fills, Arange, MinDim and
 * Aminmax (several outputs), and the float functions Expm1, Log1p, Log10, Cosh, Sinh, Tan,
 * Trunc, Erfc, each called as a CANN user calls it, with expected values written here.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_aminmax.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_cosh.h"
#include "aclnnop/aclnn_erfc.h"
#include "aclnnop/aclnn_expand.h"
#include "aclnnop/aclnn_expm1.h"
#include "aclnnop/aclnn_log10.h"
#include "aclnnop/aclnn_log1p.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_tensor.h"
#include "aclnnop/aclnn_min_dim.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_repeat.h"
#include "aclnnop/aclnn_roll.h"
#include "aclnnop/aclnn_sinh.h"
#include "aclnnop/aclnn_slice.h"
#include "aclnnop/aclnn_slice_v2.h"
#include "aclnnop/aclnn_tan.h"
#include "aclnnop/aclnn_trunc.h"

#include <math.h>

#define F ACL_FLOAT

static void test_permute(void)
{
    int64_t s23[] = {2, 3}, s32[] = {3, 2}, d[] = {1, 0};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), out = mk(F, s32, 2, NULL);
    aclIntArray *dims = aclCreateIntArray(d, 2);
    RUN2(aclnnPermuteGetWorkspaceSize(x.tensor, dims, out.tensor, &ews, &eex), aclnnPermute);
    EXPECT_T(out, 1, 4, 2, 5, 3, 6);
    int64_t bad[] = {0, 0};
    aclIntArray *b = aclCreateIntArray(bad, 2);
    EXPECT_ERR(aclnnPermuteGetWorkspaceSize(x.tensor, b, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnPermuteGetWorkspaceSize", "dims", &out);
    CHECK_OK(aclDestroyIntArray(dims));
    CHECK_OK(aclDestroyIntArray(b));
    dev_free(&x);
    dev_free(&out);
}

static void test_slices(void)
{
    int64_t s6[] = {6}, s2[] = {2};
    DevTensor x = mk(F, s6, 1, V(0, 1, 2, 3, 4, 5)), out = mk(F, s2, 1, NULL);
    /* start -5 is 1; end 100 clamps to 6; step 3: elements 1 and 4 */
    RUN2(aclnnSliceGetWorkspaceSize(x.tensor, 0, -5, 100, 3, out.tensor, &ews, &eex), aclnnSlice);
    EXPECT_T(out, 1, 4);
    EXPECT_ERR(aclnnSliceGetWorkspaceSize(x.tensor, 0, 0, 6, 0, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSliceGetWorkspaceSize", "step", &out);
    int64_t s23[] = {2, 3}, s12[] = {1, 2};
    DevTensor m = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6)), o2 = mk(F, s12, 2, NULL);
    int64_t st[] = {1, 0}, en[] = {2, 3}, ax[] = {0, 1}, sp[] = {1, 2};
    aclIntArray *a = aclCreateIntArray(st, 2), *b = aclCreateIntArray(en, 2), *c = aclCreateIntArray(ax, 2),
                *d = aclCreateIntArray(sp, 2);
    RUN2(aclnnSliceV2GetWorkspaceSize(m.tensor, a, b, c, d, o2.tensor, &ews, &eex), aclnnSliceV2);
    EXPECT_T(o2, 4, 6);
    CHECK_OK(aclDestroyIntArray(a));
    CHECK_OK(aclDestroyIntArray(b));
    CHECK_OK(aclDestroyIntArray(c));
    CHECK_OK(aclDestroyIntArray(d));
    dev_free(&x);
    dev_free(&out);
    dev_free(&m);
    dev_free(&o2);
}

static void test_expand_repeat(void)
{
    int64_t s21[] = {2, 1}, s23[] = {2, 3}, sz[] = {-1, 3};
    DevTensor x = mk(F, s21, 2, V(7, 8)), out = mk(F, s23, 2, NULL);
    aclIntArray *size = aclCreateIntArray(sz, 2);
    RUN2(aclnnExpandGetWorkspaceSize(x.tensor, size, out.tensor, &ews, &eex), aclnnExpand);
    EXPECT_T(out, 7, 7, 7, 8, 8, 8);
    int64_t s12[] = {1, 2}, s24[] = {2, 4}, r[] = {2, 2};
    DevTensor y = mk(F, s12, 2, V(1, 2)), o = mk(F, s24, 2, NULL);
    aclIntArray *reps = aclCreateIntArray(r, 2);
    RUN2(aclnnRepeatGetWorkspaceSize(y.tensor, reps, o.tensor, &ews, &eex), aclnnRepeat);
    EXPECT_T(o, 1, 2, 1, 2, 1, 2, 1, 2);
    CHECK_OK(aclDestroyIntArray(size));
    CHECK_OK(aclDestroyIntArray(reps));
    dev_free(&x);
    dev_free(&out);
    dev_free(&y);
    dev_free(&o);
}

static void test_roll(void)
{
    /* CANN's own example: [[1,2],[3,4],[5,6],[7,8]] rolled by 1 along dim 0 */
    int64_t s42[] = {4, 2}, sh[] = {1}, d[] = {0};
    DevTensor x = mk(F, s42, 2, V(1, 2, 3, 4, 5, 6, 7, 8)), out = mk(F, s42, 2, NULL);
    aclIntArray *shifts = aclCreateIntArray(sh, 1), *dims = aclCreateIntArray(d, 1);
    RUN2(aclnnRollGetWorkspaceSize(x.tensor, shifts, dims, out.tensor, &ews, &eex), aclnnRoll);
    EXPECT_T(out, 7, 8, 1, 2, 3, 4, 5, 6);
    /* no dims: the flattened tensor */
    RUN2(aclnnRollGetWorkspaceSize(x.tensor, shifts, NULL, out.tensor, &ews, &eex), aclnnRoll);
    EXPECT_T(out, 8, 1, 2, 3, 4, 5, 6, 7);
    EXPECT_ERR(aclnnRollGetWorkspaceSize(x.tensor, NULL, dims, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnRollGetWorkspaceSize", "shifts", &out);
    CHECK_OK(aclDestroyIntArray(shifts));
    CHECK_OK(aclDestroyIntArray(dims));
    dev_free(&x);
    dev_free(&out);
}

static void test_masked_fill(void)
{
    int64_t s23[] = {2, 3}, s3[] = {3}, s1[] = {1};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6));
    DevTensor m = mk(ACL_BOOL, s3, 1, V(1, 0, 1));
    aclScalar *v = aclCreateScalar(&(float){-1.0f}, F);
    /* the mask row broadcasts over both rows */
    RUN2(aclnnInplaceMaskedFillScalarGetWorkspaceSize(x.tensor, m.tensor, v, &ews, &eex), aclnnInplaceMaskedFillScalar);
    EXPECT_T(x, -1, 2, -1, -1, 5, -1);
    DevTensor t = mk(F, s1, 1, V(9));
    DevTensor m2 = mk(ACL_BOOL, s3, 1, V(0, 1, 0));
    RUN2(aclnnInplaceMaskedFillTensorGetWorkspaceSize(x.tensor, m2.tensor, t.tensor, &ews, &eex),
         aclnnInplaceMaskedFillTensor);
    EXPECT_T(x, -1, 9, -1, -1, 9, -1);
    /* the mask must be bool */
    EXPECT_ERR(aclnnInplaceMaskedFillScalarGetWorkspaceSize(x.tensor, t.tensor, v, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceMaskedFillScalarGetWorkspaceSize", "mask", NULL);
    CHECK_OK(aclDestroyScalar(v));
    dev_free(&x);
    dev_free(&m);
    dev_free(&t);
    dev_free(&m2);
}

static void test_arange(void)
{
    int64_t s4[] = {4};
    DevTensor out = mk(F, s4, 1, NULL);
    aclScalar *start = aclCreateScalar(&(double){1.0}, ACL_DOUBLE), *end = aclCreateScalar(&(double){3.0}, ACL_DOUBLE),
              *step = aclCreateScalar(&(double){0.5}, ACL_DOUBLE);
    RUN2(aclnnArangeGetWorkspaceSize(start, end, step, out.tensor, &ews, &eex), aclnnArange);
    EXPECT_T(out, 1, 1.5, 2, 2.5);
    EXPECT_ERR(aclnnArangeGetWorkspaceSize(end, start, step, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnArangeGetWorkspaceSize", "step", &out);
    /* any out with the range's count, as ggml passes it: [1, 1, 1, 4] */
    int64_t s1114[] = {1, 1, 1, 4}, s22[] = {2, 2};
    DevTensor out4 = mk(F, s1114, 4, NULL);
    RUN2(aclnnArangeGetWorkspaceSize(start, end, step, out4.tensor, &ews, &eex), aclnnArange);
    EXPECT_T(out4, 1, 1.5, 2, 2.5);
    DevTensor out22 = mk(F, s22, 2, NULL);
    RUN2(aclnnArangeGetWorkspaceSize(start, end, step, out22.tensor, &ews, &eex), aclnnArange);
    EXPECT_T(out22, 1, 1.5, 2, 2.5);
    int64_t s3[] = {3};
    DevTensor out3 = mk(F, s3, 1, NULL);
    EXPECT_ERR(aclnnArangeGetWorkspaceSize(start, end, step, out3.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnArangeGetWorkspaceSize", "out", &out3);
    dev_free(&out4);
    dev_free(&out22);
    dev_free(&out3);
    CHECK_OK(aclDestroyScalar(start));
    CHECK_OK(aclDestroyScalar(end));
    CHECK_OK(aclDestroyScalar(step));
    dev_free(&out);
}

static void test_min_dim_and_aminmax(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2};
    DevTensor x = mk(F, s23, 2, V(3, -1, -1, 2, 9, 0));
    DevTensor v = mk(F, s2, 1, NULL), i = mk(ACL_INT32, s2, 1, NULL);
    RUN2(aclnnMinDimGetWorkspaceSize(x.tensor, -1, false, v.tensor, i.tensor, &ews, &eex), aclnnMinDim);
    EXPECT_T(v, -1, 0);
    EXPECT_T(i, 1, 2);
    int64_t d0[] = {0};
    aclIntArray *dim = aclCreateIntArray(d0, 1);
    int64_t s13[] = {1, 3};
    DevTensor lo = mk(F, s13, 2, NULL), hi = mk(F, s13, 2, NULL);
    RUN2(aclnnAminmaxGetWorkspaceSize(x.tensor, dim, true, lo.tensor, hi.tensor, &ews, &eex), aclnnAminmax);
    EXPECT_T(lo, 2, -1, -1);
    EXPECT_T(hi, 3, 9, 0);
    CHECK_OK(aclDestroyIntArray(dim));
    dev_free(&x);
    dev_free(&v);
    dev_free(&i);
    dev_free(&lo);
    dev_free(&hi);
}

typedef aclnnStatus (*unary_ws)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);

static void unary_case(const char *name, unary_ws ws_fn, phase2_fn run, double (*ref)(double))
{
    int64_t s4[] = {4};
    const double in[4] = {-0.75, 0.0, 0.5, 1.25};
    DevTensor x = mk(F, s4, 1, in), out = mk(F, s4, 1, NULL);
    RUN2(ws_fn(x.tensor, out.tensor, &ews, &eex), run);
    double got[4];
    rd(&out, got);
    for (int k = 0; k < 4; k++) {
        double want = (float)ref(in[k]);
        if (!(fabs(got[k] - want) <= 2e-7 * fabs(want) + 1e-30)) {
            fprintf(stderr, "%s(%g): got %.9g, want %.9g\n", name, in[k], got[k], want);
            CHECK(false);
        }
    }
    dev_free(&x);
    dev_free(&out);
}

static void test_float_functions(void)
{
    unary_case("Expm1", aclnnExpm1GetWorkspaceSize, aclnnExpm1, expm1);
    unary_case("Cosh", aclnnCoshGetWorkspaceSize, aclnnCosh, cosh);
    unary_case("Sinh", aclnnSinhGetWorkspaceSize, aclnnSinh, sinh);
    unary_case("Tan", aclnnTanGetWorkspaceSize, aclnnTan, tan);
    unary_case("Trunc", aclnnTruncGetWorkspaceSize, aclnnTrunc, trunc);
    unary_case("Erfc", aclnnErfcGetWorkspaceSize, aclnnErfc, erfc);
    /* log1p and log10 of the positive ones; -0.75 gives a finite log1p */
    unary_case("Log1p", aclnnLog1pGetWorkspaceSize, aclnnLog1p, log1p);
    int64_t s2[] = {2};
    DevTensor x = mk(F, s2, 1, V(100, 0.001)), out = mk(F, s2, 1, NULL);
    RUN2(aclnnLog10GetWorkspaceSize(x.tensor, out.tensor, &ews, &eex), aclnnLog10);
    EXPECT_T(out, 2, -3);
    /* in place: Trunc of selfRef */
    DevTensor t = mk(F, s2, 1, V(-1.5, 2.75));
    RUN2(aclnnInplaceTruncGetWorkspaceSize(t.tensor, &ews, &eex), aclnnInplaceTrunc);
    EXPECT_T(t, -1, 2);
    /* Trunc keeps self's dtype: an f16 out for f32 self is refused */
    DevTensor h = mk(ACL_FLOAT16, s2, 1, NULL);
    EXPECT_ERR(aclnnTruncGetWorkspaceSize(x.tensor, h.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnTruncGetWorkspaceSize", "out", &h);
    dev_free(&x);
    dev_free(&out);
    dev_free(&t);
    dev_free(&h);
}

int main(void)
{
    device_init();
    RUN_TEST(test_permute);
    RUN_TEST(test_slices);
    RUN_TEST(test_expand_repeat);
    RUN_TEST(test_roll);
    RUN_TEST(test_masked_fill);
    RUN_TEST(test_arange);
    RUN_TEST(test_min_dim_and_aminmax);
    RUN_TEST(test_float_functions);
    device_teardown();
    return capi_finish();
}
