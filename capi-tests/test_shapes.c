/*
 * The prototype shapes the operator declarations support, each called as a CANN user calls
 * it: a tensor list in (aclnnCat, aclnnStack), a tensor list out (aclnnSplitTensor,
 * aclnnSplitWithSize), a `char *` attribute with NULL meaning its default (aclnnGeluMul),
 * an `aclDataType` and an int-array attribute (aclnnReduceSum), optional tensors passed as
 * NULL (aclnnClampTensor, aclnnConvDepthwise2d's bias), several outputs (aclnnMaxDim's out
 * and indices), and list members re-pointed on a
 * repeatable executor (aclSetDynamicInputTensorAddr). Expected values are written here.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_gelu_mul.h"
#include "aclnnop/aclnn_max_dim.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_split_tensor.h"
#include "aclnnop/aclnn_split_with_size.h"
#include "aclnnop/aclnn_stack.h"

#include <math.h>
#include <string.h>

#define F ACL_FLOAT

/* A list of new tensor handles over the storage of `ts` (the list owns its tensors). */
static aclTensorList *list_of(const DevTensor *ts, size_t n, const int64_t (*shapes)[2], const size_t *ranks)
{
    aclTensor *hs[8];
    for (size_t i = 0; i < n; i++) {
        int64_t strides[2];
        contiguous_strides(shapes[i], ranks[i], strides);
        int64_t storage = shape_numel(shapes[i], ranks[i]);
        hs[i] = aclCreateTensor(shapes[i], ranks[i], ts[i].dtype, strides, 0, ACL_FORMAT_ND, &storage, 1, ts[i].dev);
        CHECK(hs[i] != NULL);
    }
    aclTensorList *l = aclCreateTensorList((const aclTensor *const *)hs, n);
    CHECK(l != NULL);
    return l;
}

static void test_cat_tensor_list_in(void)
{
    const int64_t shapes[3][2] = {{2, 2}, {0}, {1, 2}};
    const size_t ranks[3] = {2, 1, 2};
    int64_t s32[] = {3, 2};
    DevTensor ins[3] = {mk(F, shapes[0], 2, V(1, 2, 3, 4)), mk(F, shapes[1], 1, NULL), mk(ACL_INT32, shapes[2], 2, V(7, 8))};
    DevTensor out = mk(F, s32, 2, NULL);
    aclTensorList *l = list_of(ins, 3, shapes, ranks);
    /* the 1-D empty member is skipped; the int32 member is converted to out's float */
    RUN2(aclnnCatGetWorkspaceSize(l, 0, out.tensor, &ews, &eex), aclnnCat);
    EXPECT_T(out, 1, 2, 3, 4, 7, 8);
    /* dim -1 would join columns: the rows differ, refused naming the dim */
    EXPECT_ERR(aclnnCatGetWorkspaceSize(l, -1, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnCatGetWorkspaceSize", "dim 0 of tensors[2]", &out);
    EXPECT_ERR(aclnnCatGetWorkspaceSize(NULL, 0, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnCatGetWorkspaceSize", "tensors", &out);
    CHECK_OK(aclDestroyTensorList(l));

    /* Stack: two (2,) into (2,2) along dim 1 */
    const int64_t s2[2][2] = {{2}, {2}};
    const size_t r1[2] = {1, 1};
    DevTensor a[2] = {mk(F, s2[0], 1, V(1, 2)), mk(F, s2[1], 1, V(3, 4))};
    int64_t s22[] = {2, 2};
    DevTensor st = mk(F, s22, 2, NULL);
    aclTensorList *l2 = list_of(a, 2, s2, r1);
    RUN2(aclnnStackGetWorkspaceSize(l2, 1, st.tensor, &ews, &eex), aclnnStack);
    EXPECT_T(st, 1, 3, 2, 4);
    CHECK_OK(aclDestroyTensorList(l2));
    for (int i = 0; i < 3; i++) dev_free(&ins[i]);
    dev_free(&a[0]);
    dev_free(&a[1]);
    dev_free(&out);
    dev_free(&st);
}

static void test_split_tensor_list_out(void)
{
    int64_t s5[] = {5};
    DevTensor x = mk(F, s5, 1, V(1, 2, 3, 4, 5));
    const int64_t shapes[3][2] = {{2}, {2}, {1}};
    const size_t ranks[3] = {1, 1, 1};
    DevTensor o[3] = {mk(F, shapes[0], 1, NULL), mk(F, shapes[1], 1, NULL), mk(F, shapes[2], 1, NULL)};
    aclTensorList *l = list_of(o, 3, shapes, ranks);
    RUN2(aclnnSplitTensorGetWorkspaceSize(x.tensor, 2, 0, l, &ews, &eex), aclnnSplitTensor);
    EXPECT_T(o[0], 1, 2);
    EXPECT_T(o[1], 3, 4);
    EXPECT_T(o[2], 5);
    CHECK_OK(aclDestroyTensorList(l));

    const int64_t sh2[2][2] = {{1}, {4}};
    DevTensor p[2] = {mk(F, sh2[0], 1, NULL), mk(F, sh2[1], 1, NULL)};
    aclTensorList *l2 = list_of(p, 2, sh2, ranks);
    int64_t sizes[] = {1, 4};
    aclIntArray *sz = aclCreateIntArray(sizes, 2);
    RUN2(aclnnSplitWithSizeGetWorkspaceSize(x.tensor, sz, -1, l2, &ews, &eex), aclnnSplitWithSize);
    EXPECT_T(p[0], 1);
    EXPECT_T(p[1], 2, 3, 4, 5);
    int64_t bad[] = {2, 2};
    aclIntArray *bz = aclCreateIntArray(bad, 2);
    EXPECT_ERR(aclnnSplitWithSizeGetWorkspaceSize(x.tensor, bz, 0, l2, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnSplitWithSizeGetWorkspaceSize", "splitSize", NULL);
    CHECK_ERRMSG("sums to 4");
    CHECK_OK(aclDestroyIntArray(sz));
    CHECK_OK(aclDestroyIntArray(bz));
    CHECK_OK(aclDestroyTensorList(l2));
    dev_free(&x);
    for (int i = 0; i < 3; i++) dev_free(&o[i]);
    dev_free(&p[0]);
    dev_free(&p[1]);
}

static double gelu_erf(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double gelu_tanh(double x)
{
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}

static void test_gelu_mul_string_attribute(void)
{
    int64_t s14[] = {1, 4}, s12[] = {1, 2};
    DevTensor x = mk(F, s14, 2, V(0.5, -1, 2, 3));
    DevTensor out = mk(F, s12, 2, NULL);
    /* NULL is "none", the erf form */
    RUN2(aclnnGeluMulGetWorkspaceSize(x.tensor, NULL, out.tensor, &ews, &eex), aclnnGeluMul);
    EXPECT_T(out, (float)(gelu_erf(0.5) * 2), (float)(gelu_erf(-1) * 3));
    char tanh_mode[] = "tanh";
    RUN2(aclnnGeluMulGetWorkspaceSize(x.tensor, tanh_mode, out.tensor, &ews, &eex), aclnnGeluMul);
    EXPECT_T(out, (float)(gelu_tanh(0.5) * 2), (float)(gelu_tanh(-1) * 3));
    char bad[] = "exact";
    EXPECT_ERR(aclnnGeluMulGetWorkspaceSize(x.tensor, bad, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnGeluMulGetWorkspaceSize", "approximateOptional", &out);
    dev_free(&x);
    dev_free(&out);
}

static void test_dtype_and_int_array_attributes(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2};
    DevTensor x = mk(F, s23, 2, V(1, 2, 3, 4, 5, 6));
    DevTensor out = mk(ACL_DOUBLE, s2, 1, NULL);
    int64_t d[] = {-1};
    aclIntArray *dims = aclCreateIntArray(d, 1);
    RUN2(aclnnReduceSumGetWorkspaceSize(x.tensor, dims, false, ACL_DOUBLE, out.tensor, &ews, &eex), aclnnReduceSum);
    EXPECT_T(out, 6, 15);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, dims, false, (aclDataType)99, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnReduceSumGetWorkspaceSize", "dtype", &out);
    EXPECT_ERR(aclnnReduceSumGetWorkspaceSize(x.tensor, NULL, false, ACL_DOUBLE, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnReduceSumGetWorkspaceSize", "dims", &out);
    CHECK_OK(aclDestroyIntArray(dims));
    dev_free(&x);
    dev_free(&out);
}

static void test_optional_tensors_as_null(void)
{
    int64_t s4[] = {4}, s1[] = {1};
    DevTensor x = mk(F, s4, 1, V(-2, 0.5, 3, NAN));
    DevTensor lo = mk(F, s1, 1, V(0));
    DevTensor out = mk(F, s4, 1, NULL);
    /* clipValueMax NULL: only the lower bound */
    RUN2(aclnnClampTensorGetWorkspaceSize(x.tensor, lo.tensor, NULL, out.tensor, &ews, &eex), aclnnClampTensor);
    EXPECT_T(out, 0, 0.5, 3, NAN);
    EXPECT_ERR(aclnnClampTensorGetWorkspaceSize(x.tensor, NULL, NULL, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnClampTensorGetWorkspaceSize", "clipValueMin", &out);

    /* ConvDepthwise2d with a NULL bias: two channels, a 1x1 kernel each (scale by 2 and 3) */
    int64_t xs[] = {1, 2, 1, 2}, ws_[] = {2, 1, 1, 1};
    DevTensor in = mk(F, xs, 4, V(1, 2, 3, 4));
    DevTensor w = mk(F, ws_, 4, V(2, 3));
    DevTensor y = mk(F, xs, 4, NULL);
    CHECK_OK(aclDestroyTensor(in.tensor));
    CHECK_OK(aclDestroyTensor(w.tensor));
    CHECK_OK(aclDestroyTensor(y.tensor));
    int64_t st4[4];
    contiguous_strides(xs, 4, st4);
    int64_t n4 = 4, n2 = 2;
    in.tensor = aclCreateTensor(xs, 4, F, st4, 0, ACL_FORMAT_NCHW, &n4, 1, in.dev);
    y.tensor = aclCreateTensor(xs, 4, F, st4, 0, ACL_FORMAT_NCHW, &n4, 1, y.dev);
    int64_t wst[4];
    contiguous_strides(ws_, 4, wst);
    w.tensor = aclCreateTensor(ws_, 4, F, wst, 0, ACL_FORMAT_NCHW, &n2, 1, w.dev);
    int64_t k[] = {1, 1}, one[] = {1, 1}, zero[] = {0, 0};
    aclIntArray *ks = aclCreateIntArray(k, 2), *stride = aclCreateIntArray(one, 2), *pad = aclCreateIntArray(zero, 2),
                *dil = aclCreateIntArray(one, 2);
    RUN2(aclnnConvDepthwise2dGetWorkspaceSize(in.tensor, w.tensor, ks, NULL, stride, pad, dil, y.tensor, 0, &ews, &eex),
         aclnnConvDepthwise2d);
    EXPECT_T(y, 2, 4, 9, 12);
    CHECK_OK(aclDestroyIntArray(ks));
    CHECK_OK(aclDestroyIntArray(stride));
    CHECK_OK(aclDestroyIntArray(pad));
    CHECK_OK(aclDestroyIntArray(dil));
    dev_free(&in);
    dev_free(&w);
    dev_free(&y);
    dev_free(&x);
    dev_free(&lo);
    dev_free(&out);
}

static void test_several_outputs(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2};
    DevTensor x = mk(F, s23, 2, V(1, 5, 5, -1, NAN, 2));
    DevTensor out = mk(F, s2, 1, NULL), idx = mk(ACL_INT64, s2, 1, NULL);
    RUN2(aclnnMaxDimGetWorkspaceSize(x.tensor, 1, false, out.tensor, idx.tensor, &ews, &eex), aclnnMaxDim);
    /* ties give the first index; a NaN is the maximum */
    EXPECT_T(out, 5, NAN);
    EXPECT_T(idx, 1, 1);
    EXPECT_ERR(aclnnMaxDimGetWorkspaceSize(x.tensor, 1, false, out.tensor, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnMaxDimGetWorkspaceSize", "indices", &out);
    dev_free(&x);
    dev_free(&out);
    dev_free(&idx);
}

static void test_list_member_re_pointed(void)
{
    const int64_t shapes[2][2] = {{2}, {2}};
    const size_t ranks[2] = {1, 1};
    DevTensor ins[2] = {mk(F, shapes[0], 1, V(1, 2)), mk(F, shapes[1], 1, V(3, 4))};
    DevTensor other = mk(F, shapes[1], 1, V(30, 40));
    int64_t s4[] = {4};
    DevTensor out = mk(F, s4, 1, NULL);
    aclTensorList *l = list_of(ins, 2, shapes, ranks);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnCatGetWorkspaceSize(l, 0, out.tensor, &ws, &ex));
    CHECK_OK(aclSetAclOpExecutorRepeatable(ex));
    CHECK_OK(aclnnCat(NULL, 0, ex, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    EXPECT_T(out, 1, 2, 3, 4);
    CHECK_OK(aclSetDynamicInputTensorAddr(ex, 0, 1, l, other.dev));
    CHECK_OK(aclnnCat(NULL, 0, ex, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    EXPECT_T(out, 1, 2, 30, 40);
    CHECK_STATUS(aclSetDynamicInputTensorAddr(ex, 3, 0, l, other.dev), ACLNN_ERR_PARAM_INVALID);
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    CHECK_OK(aclDestroyTensorList(l));
    dev_free(&ins[0]);
    dev_free(&ins[1]);
    dev_free(&other);
    dev_free(&out);
}

int main(void)
{
    device_init();
    RUN_TEST(test_cat_tensor_list_in);
    RUN_TEST(test_split_tensor_list_out);
    RUN_TEST(test_gelu_mul_string_attribute);
    RUN_TEST(test_dtype_and_int_array_attributes);
    RUN_TEST(test_optional_tensors_as_null);
    RUN_TEST(test_several_outputs);
    RUN_TEST(test_list_member_re_pointed);
    device_teardown();
    return capi_finish();
}
