/*
 * The entry points of CANN's aclnn_kthvalue.h, aclnn_median.h, aclnn_unique.h,
 * aclnn_unique2.h, aclnn_unique_consecutive.h, aclnn_unique_dim.h, aclnn_searchsorted.h
 * and aclnn_bucketize.h, called as a CANN program calls them:
 *
 * - Kthvalue (CANN's sample first, written as its doc writes it), MedianDim and
 *   NanMedianDim on a strided view (ties give the first index; NaN), Median / NanMedian
 *   of a whole tensor and of an empty one;
 * - Unique / Unique2 / UniqueConsecutive / UniqueDim with outputs sized at their maximum,
 *   the real shape read back with aclGetViewShape after synchronizing;
 * - SearchSorted (left / right, a sorter), SearchSorteds, Bucketize;
 * - each documented error: 161001 for NULL, 161002 otherwise, a message naming the API
 *   and the parameter, the output untouched.
 *
 * Every expected value is worked out by hand in the comments. The random differential
 * tests are in src/tests/sortuniq_diff.rs.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_bucketize.h"
#include "aclnnop/aclnn_kthvalue.h"
#include "aclnnop/aclnn_median.h"
#include "aclnnop/aclnn_searchsorted.h"
#include "aclnnop/aclnn_unique.h"
#include "aclnnop/aclnn_unique2.h"
#include "aclnnop/aclnn_unique_consecutive.h"
#include "aclnnop/aclnn_unique_dim.h"

#define F ACL_FLOAT
#define L ACL_INT64
#define I ACL_INT32

/* The view shape `t` reports now, into `dims` (at most 8); its rank. */
static uint64_t view_shape(const aclTensor *t, int64_t *dims)
{
    int64_t *p = NULL;
    uint64_t n = 0;
    CHECK_OK(aclGetViewShape(t, &p, &n));
    CHECK(n <= 8);
    for (uint64_t k = 0; k < n; k++) dims[k] = p[k];
    free(p);
    return n;
}

#define EXPECT_SHAPE(t, ...)                                                   \
    do {                                                                       \
        const int64_t w_[] = {__VA_ARGS__};                                    \
        int64_t g_[8];                                                         \
        uint64_t n_ = view_shape((t), g_);                                     \
        CHECK(n_ == ARRAY_LEN(w_));                                            \
        for (uint64_t k_ = 0; k_ < n_; k_++) CHECK(g_[k_] == w_[k_]);          \
    } while (0)

/* ================================================================ Kthvalue */

/*
 * aclnnKthvalue as its doc's sample writes it: self [2, 3] float, k 2 along dim 1,
 * keepdim false. Rows {5, 1, 3} and {2, 2, 0}: the 2nd smallest are 3 (index 2) and 2
 * (index 0: the first of the tied 2s).
 */
static void test_kthvalue_cann_sample(void)
{
    int64_t selfShape[] = {2, 3}, outShape[] = {2};
    float selfHost[] = {5, 1, 3, 2, 2, 0};
    float valuesHost[2] = {0};
    int64_t indicesHost[2] = {0};
    void *selfDev = NULL, *valuesDev = NULL, *indicesDev = NULL;
    CHECK_OK(aclrtMalloc(&selfDev, sizeof selfHost, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&valuesDev, sizeof valuesHost, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&indicesDev, sizeof indicesHost, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(selfDev, sizeof selfHost, selfHost, sizeof selfHost, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t selfStrides[] = {3, 1}, outStrides[] = {1};
    aclTensor *self = aclCreateTensor(selfShape, 2, ACL_FLOAT, selfStrides, 0, ACL_FORMAT_ND, selfShape, 2, selfDev);
    aclTensor *values = aclCreateTensor(outShape, 1, ACL_FLOAT, outStrides, 0, ACL_FORMAT_ND, outShape, 1, valuesDev);
    aclTensor *indices = aclCreateTensor(outShape, 1, ACL_INT64, outStrides, 0, ACL_FORMAT_ND, outShape, 1, indicesDev);
    CHECK(self != NULL && values != NULL && indices != NULL);
    aclrtStream stream = NULL;
    CHECK_OK(aclrtCreateStream(&stream));
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    CHECK_OK(aclnnKthvalueGetWorkspaceSize(self, 2, 1, false, values, indices, &workspaceSize, &executor));
    void *workspace = NULL;
    if (workspaceSize > 0) CHECK_OK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnKthvalue(workspace, workspaceSize, executor, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclrtMemcpy(valuesHost, sizeof valuesHost, valuesDev, sizeof valuesHost, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtMemcpy(indicesHost, sizeof indicesHost, indicesDev, sizeof indicesHost, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(valuesHost[0] == 3 && valuesHost[1] == 2);
    CHECK(indicesHost[0] == 2 && indicesHost[1] == 0);
    aclDestroyTensor(self);
    aclDestroyTensor(values);
    aclDestroyTensor(indices);
    if (workspace != NULL) aclrtFree(workspace);
    aclrtFree(selfDev);
    aclrtFree(valuesDev);
    aclrtFree(indicesDev);
    CHECK_OK(aclrtDestroyStream(stream));
}

static void test_kthvalue_errors(void)
{
    DevTensor s = mk(F, (int64_t[]){2, 3}, 2, NULL);
    DevTensor v = mk(F, (int64_t[]){2}, 1, NULL);
    DevTensor i = mk(L, (int64_t[]){2}, 1, NULL);
    DevTensor i32 = mk(I, (int64_t[]){2}, 1, NULL);
    EXPECT_ERR(aclnnKthvalueGetWorkspaceSize(NULL, 1, 1, false, v.tensor, i.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnKthvalue", "self", &v);
    EXPECT_ERR(aclnnKthvalueGetWorkspaceSize(s.tensor, 4, 1, false, v.tensor, i.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnKthvalue", "k", &v);
    EXPECT_ERR(aclnnKthvalueGetWorkspaceSize(s.tensor, 1, 2, false, v.tensor, i.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnKthvalue", "dim", &v);
    EXPECT_ERR(aclnnKthvalueGetWorkspaceSize(s.tensor, 1, 1, false, v.tensor, i32.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnKthvalue", "indicesOut", &v);
    EXPECT_ERR(aclnnKthvalueGetWorkspaceSize(s.tensor, 1, 1, true, v.tensor, i.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnKthvalue", "valuesOut", &v);
    dev_free(&s);
    dev_free(&v);
    dev_free(&i);
    dev_free(&i32);
}

/* ================================================================ Median */

/*
 * MedianDim and NanMedianDim along dim 0 of the (4, 3) view of SEMANTICS section 2
 * (strides (20, 2), offset 22) over a 10x10 storage. Columns: {4, 1, 4, 2} → sorted
 * {1, 2, 4, 4}, lower median 2 (index 3); {NaN, 0, 7, 3} → Median NaN at index 0,
 * NanMedian of {0, 3, 7} is 3 (index 3); {1, 1, 1, 1} → 1 at sorted position 1, which
 * the stable sort gives to index 1.
 */
static void test_median_dim_on_a_view(void)
{
    double store[100];
    for (int k = 0; k < 100; k++) store[k] = -100;
    const double col[3][4] = {{4, 1, 4, 2}, {NAN, 0, 7, 3}, {1, 1, 1, 1}};
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) store[VOFF + r * 20 + c * 2] = col[c][r];
    DevTensor s = mkv(F, VSTORE, 2, store, VSHAPE, 2, VSTRIDES, VOFF);
    DevTensor v = mk(F, (int64_t[]){3}, 1, NULL);
    DevTensor i = mk(L, (int64_t[]){3}, 1, NULL);
    RUN2(aclnnMedianDimGetWorkspaceSize(s.tensor, 0, false, v.tensor, i.tensor, &ews, &eex), aclnnMedianDim);
    EXPECT_T(v, 2, NAN, 1);
    EXPECT_T(i, 3, 0, 1);
    DevTensor vk = mk(F, (int64_t[]){1, 3}, 2, NULL);
    DevTensor ik = mk(L, (int64_t[]){1, 3}, 2, NULL);
    RUN2(aclnnNanMedianDimGetWorkspaceSize(s.tensor, -2, true, vk.tensor, ik.tensor, &ews, &eex),
         aclnnNanMedianDim);
    EXPECT_T(vk, 2, 3, 1);
    EXPECT_T(ik, 3, 3, 1);
    EXPECT_ERR(aclnnMedianDimGetWorkspaceSize(s.tensor, 0, true, v.tensor, i.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMedianDim", "valuesOut", &v);
    EXPECT_ERR(aclnnNanMedianDimGetWorkspaceSize(s.tensor, 0, false, v.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnNanMedianDim", "indicesOut", &v);
    dev_free(&s);
    dev_free(&v);
    dev_free(&i);
    dev_free(&vk);
    dev_free(&ik);
}

/*
 * Median / NanMedian of all of {3, NaN, 1, 2, 5}: Median is NaN; NanMedian of
 * {1, 2, 3, 5} is 2 (position (4 − 1) / 2 = 1). Of an empty int32 tensor: Median gives
 * INT32_MIN, NanMedian 0.
 */
static void test_median_whole(void)
{
    DevTensor s = mk(F, (int64_t[]){5}, 1, V(3, NAN, 1, 2, 5));
    DevTensor o = mk(F, (int64_t[]){1}, 1, NULL);
    RUN2(aclnnMedianGetWorkspaceSize(s.tensor, o.tensor, &ews, &eex), aclnnMedian);
    EXPECT_T(o, NAN);
    DevTensor z = mk(F, NULL, 0, NULL); /* a 0-d out holds the one value too */
    RUN2(aclnnNanMedianGetWorkspaceSize(s.tensor, z.tensor, &ews, &eex), aclnnNanMedian);
    EXPECT_T(z, 2);
    DevTensor e = mk(I, (int64_t[]){0}, 1, NULL);
    DevTensor oi = mk(I, (int64_t[]){1}, 1, NULL);
    RUN2(aclnnMedianGetWorkspaceSize(e.tensor, oi.tensor, &ews, &eex), aclnnMedian);
    EXPECT_T(oi, -2147483648.0);
    RUN2(aclnnNanMedianGetWorkspaceSize(e.tensor, oi.tensor, &ews, &eex), aclnnNanMedian);
    EXPECT_T(oi, 0);
    DevTensor two = mk(F, (int64_t[]){2}, 1, NULL);
    EXPECT_ERR(aclnnMedianGetWorkspaceSize(s.tensor, two.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnMedian", "valuesOut", &two);
    EXPECT_ERR(aclnnNanMedianGetWorkspaceSize(s.tensor, oi.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnNanMedian", "out", NULL);
    dev_free(&s);
    dev_free(&o);
    dev_free(&z);
    dev_free(&e);
    dev_free(&oi);
    dev_free(&two);
}

/* ================================================================ Unique */

/*
 * Unique2 of {2, 0, 2, 1, 0, 2} with outputs at numel(self): values {0, 1, 2}, inverse
 * {2, 0, 2, 1, 0, 2}, counts {2, 1, 3}; valueOut's and countsOut's views become [3].
 * Unique (no inverse) gives the same values.
 */
static void test_unique_and_unique2(void)
{
    DevTensor s = mk(F, (int64_t[]){2, 3}, 2, V(2, 0, 2, 1, 0, 2));
    DevTensor v = mk(F, (int64_t[]){6}, 1, NULL);
    DevTensor inv = mk(L, (int64_t[]){2, 3}, 2, NULL);
    DevTensor cnt = mk(L, (int64_t[]){6}, 1, NULL);
    RUN2(aclnnUnique2GetWorkspaceSize(s.tensor, true, true, true, v.tensor, inv.tensor, cnt.tensor, &ews, &eex),
         aclnnUnique2);
    EXPECT_SHAPE(v.tensor, 3);
    EXPECT_SHAPE(cnt.tensor, 3);
    EXPECT_T(v, 0, 1, 2, 0, 0, 0);
    EXPECT_T(inv, 2, 0, 2, 1, 0, 2);
    EXPECT_T(cnt, 2, 1, 3, 0, 0, 0);
    DevTensor v1 = mk(F, (int64_t[]){6}, 1, NULL);
    RUN2(aclnnUniqueGetWorkspaceSize(s.tensor, false, false, v1.tensor, inv.tensor, &ews, &eex), aclnnUnique);
    EXPECT_SHAPE(v1.tensor, 3);
    EXPECT_T(v1, 0, 1, 2, 0, 0, 0);
    DevTensor bad = mk(L, (int64_t[]){6}, 1, NULL);
    EXPECT_ERR(aclnnUniqueGetWorkspaceSize(s.tensor, true, true, v1.tensor, bad.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnUnique", "inverseOut", NULL);
    EXPECT_ERR(aclnnUnique2GetWorkspaceSize(s.tensor, true, true, true, v.tensor, inv.tensor, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnUnique2", "countsOut", NULL);
    dev_free(&s);
    dev_free(&v);
    dev_free(&inv);
    dev_free(&cnt);
    dev_free(&v1);
    dev_free(&bad);
}

/*
 * UniqueConsecutive of {0, 1, 1, 3, 3, 1, 1, 3} flattened (dim 1000): {0, 1, 3, 1, 3},
 * counts {1, 2, 2, 2, 1}, inverse {0, 1, 1, 2, 2, 3, 3, 4}, as int32. Along dim 0 of the
 * (4, 2) rows {0,1} {1,3} {1,3} {3,1}: rows {0,1} {1,3} {3,1}, inverse {0, 1, 1, 2}.
 */
static void test_unique_consecutive(void)
{
    DevTensor s = mk(F, (int64_t[]){4, 2}, 2, V(0, 1, 1, 3, 1, 3, 3, 1));
    DevTensor f = mk(F, (int64_t[]){8}, 1, V(0, 1, 1, 3, 3, 1, 1, 3));
    DevTensor v = mk(F, (int64_t[]){8}, 1, NULL);
    DevTensor inv = mk(I, (int64_t[]){8}, 1, NULL);
    DevTensor cnt = mk(I, (int64_t[]){8}, 1, NULL);
    RUN2(aclnnUniqueConsecutiveGetWorkspaceSize(f.tensor, true, true, 1000, v.tensor, inv.tensor, cnt.tensor, &ews,
                                                &eex),
         aclnnUniqueConsecutive);
    EXPECT_SHAPE(v.tensor, 5);
    EXPECT_T(v, 0, 1, 3, 1, 3, 0, 0, 0);
    EXPECT_T(cnt, 1, 2, 2, 2, 1, 0, 0, 0);
    EXPECT_T(inv, 0, 1, 1, 2, 2, 3, 3, 4);
    DevTensor v2 = mk(F, (int64_t[]){4, 2}, 2, NULL);
    DevTensor inv2 = mk(L, (int64_t[]){4}, 1, NULL);
    DevTensor cnt2 = mk(L, (int64_t[]){4}, 1, NULL);
    RUN2(aclnnUniqueConsecutiveGetWorkspaceSize(s.tensor, true, true, 0, v2.tensor, inv2.tensor, cnt2.tensor, &ews,
                                                &eex),
         aclnnUniqueConsecutive);
    EXPECT_SHAPE(v2.tensor, 3, 2);
    EXPECT_SHAPE(inv2.tensor, 4);
    EXPECT_T(v2, 0, 1, 1, 3, 3, 1, 0, 0);
    EXPECT_T(inv2, 0, 1, 1, 2);
    EXPECT_T(cnt2, 1, 2, 1, 0);
    EXPECT_ERR(aclnnUniqueConsecutiveGetWorkspaceSize(s.tensor, true, true, 2, v2.tensor, inv2.tensor, cnt2.tensor,
                                                      &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnUniqueConsecutive", "dim", NULL);
    EXPECT_ERR(aclnnUniqueConsecutiveGetWorkspaceSize(s.tensor, true, true, 0, v2.tensor, inv.tensor, cnt2.tensor,
                                                      &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnUniqueConsecutive", "countsOut", NULL);
    dev_free(&s);
    dev_free(&f);
    dev_free(&v);
    dev_free(&inv);
    dev_free(&cnt);
    dev_free(&v2);
    dev_free(&inv2);
    dev_free(&cnt2);
}

/*
 * UniqueDim, the doc's example: rows {2,1,2} {1,2,1} {2,1,2} along dim 0 → sorted rows
 * {1,2,1} {2,1,2}, inverse {1, 0, 1}, counts {1, 2}.
 */
static void test_unique_dim(void)
{
    DevTensor s = mk(F, (int64_t[]){3, 3}, 2, V(2, 1, 2, 1, 2, 1, 2, 1, 2));
    DevTensor v = mk(F, (int64_t[]){3, 3}, 2, NULL);
    DevTensor inv = mk(L, (int64_t[]){3}, 1, NULL);
    DevTensor cnt = mk(L, (int64_t[]){3}, 1, NULL);
    RUN2(aclnnUniqueDimGetWorkspaceSize(s.tensor, true, true, 0, v.tensor, inv.tensor, cnt.tensor, &ews, &eex),
         aclnnUniqueDim);
    EXPECT_SHAPE(v.tensor, 2, 3);
    EXPECT_SHAPE(cnt.tensor, 2);
    EXPECT_T(v, 1, 2, 1, 2, 1, 2, 0, 0, 0);
    EXPECT_T(inv, 1, 0, 1);
    EXPECT_T(cnt, 1, 2, 0);
    DevTensor i32 = mk(I, (int64_t[]){3}, 1, NULL);
    EXPECT_ERR(aclnnUniqueDimGetWorkspaceSize(s.tensor, true, true, 0, v.tensor, i32.tensor, cnt.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnUniqueDim", "inverseOut", NULL);
    dev_free(&s);
    dev_free(&v);
    dev_free(&inv);
    dev_free(&cnt);
    dev_free(&i32);
}

/* ================================================================ SearchSorted, Bucketize */

/*
 * Sequence {1, 3, 3, 5, 7}, values {0, 3, 6, 9}: left {0, 1, 4, 5}, right {0, 3, 4, 5}.
 * The same sequence stored as {5, 1, 7, 3, 3} with sorter {1, 3, 4, 0, 2} gives the same
 * answer. SearchSorteds of 3 (right): 3. Bucketize of {0, 3, 6, 9} in boundaries
 * {1, 3, 5, 7}: {0, 1, 3, 4}.
 */
static void test_search(void)
{
    DevTensor seq = mk(F, (int64_t[]){5}, 1, V(1, 3, 3, 5, 7));
    DevTensor x = mk(ACL_INT32, (int64_t[]){2, 2}, 2, V(0, 3, 6, 9));
    DevTensor out = mk(L, (int64_t[]){2, 2}, 2, NULL);
    RUN2(aclnnSearchSortedGetWorkspaceSize(seq.tensor, x.tensor, false, false, NULL, out.tensor, &ews, &eex),
         aclnnSearchSorted);
    EXPECT_T(out, 0, 1, 4, 5);
    DevTensor o32 = mk(I, (int64_t[]){2, 2}, 2, NULL);
    RUN2(aclnnSearchSortedGetWorkspaceSize(seq.tensor, x.tensor, true, true, NULL, o32.tensor, &ews, &eex),
         aclnnSearchSorted);
    EXPECT_T(o32, 0, 3, 4, 5);
    DevTensor shuffled = mk(F, (int64_t[]){5}, 1, V(5, 1, 7, 3, 3));
    DevTensor sorter = mk(L, (int64_t[]){5}, 1, V(1, 3, 4, 0, 2));
    RUN2(aclnnSearchSortedGetWorkspaceSize(shuffled.tensor, x.tensor, false, false, sorter.tensor, out.tensor, &ews,
                                           &eex),
         aclnnSearchSorted);
    EXPECT_T(out, 0, 1, 4, 5);
    aclScalar *three = sc(F, 3);
    DevTensor one = mk(L, (int64_t[]){1}, 1, NULL);
    RUN2(aclnnSearchSortedsGetWorkspaceSize(seq.tensor, three, false, true, NULL, one.tensor, &ews, &eex),
         aclnnSearchSorteds);
    EXPECT_T(one, 3);
    DevTensor bounds = mk(F, (int64_t[]){4}, 1, V(1, 3, 5, 7));
    RUN2(aclnnBucketizeGetWorkspaceSize(x.tensor, bounds.tensor, false, false, out.tensor, &ews, &eex),
         aclnnBucketize);
    EXPECT_T(out, 0, 1, 3, 4);
    EXPECT_ERR(aclnnSearchSortedGetWorkspaceSize(seq.tensor, x.tensor, true, false, NULL, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnSearchSorted", "out", &out);
    EXPECT_ERR(aclnnSearchSortedGetWorkspaceSize(NULL, x.tensor, false, false, NULL, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnSearchSorted", "sortedSequence", &out);
    EXPECT_ERR(aclnnBucketizeGetWorkspaceSize(x.tensor, x.tensor, false, false, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBucketize", "boundaries", &out);
    aclDestroyScalar(three);
    dev_free(&seq);
    dev_free(&x);
    dev_free(&out);
    dev_free(&o32);
    dev_free(&shuffled);
    dev_free(&sorter);
    dev_free(&one);
    dev_free(&bounds);
}

int main(void)
{
    device_init();
    RUN_TEST(test_kthvalue_cann_sample);
    RUN_TEST(test_kthvalue_errors);
    RUN_TEST(test_median_dim_on_a_view);
    RUN_TEST(test_median_whole);
    RUN_TEST(test_unique_and_unique2);
    RUN_TEST(test_unique_consecutive);
    RUN_TEST(test_unique_dim);
    RUN_TEST(test_search);
    device_teardown();
    return capi_finish();
}
