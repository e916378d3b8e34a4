/*
 * The conversion headers of issue 17 as a CANN user calls them: Flatten, Diag, DiagFlat,
 * InplaceFillDiagonal, InplaceFillTensor, ChannelShuffle, ConfusionTranspose,
 * StridedSlice and StridedSliceAssignV2, with expected values written here (CANN's
 * documented examples where it gives one), on contiguous tensors and on the strided seed
 * view with an offset; and the documented errors.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_channel_shuffle.h"
#include "aclnnop/aclnn_confusion_transpose.h"
#include "aclnnop/aclnn_diag.h"
#include "aclnnop/aclnn_diag_flat.h"
#include "aclnnop/aclnn_fill_diagonal.h"
#include "aclnnop/aclnn_fill_tensor.h"
#include "aclnnop/aclnn_flatten.h"
#include "aclnnop/aclnn_strided_slice.h"
#include "aclnnop/aclnn_strided_slice_assign_v2.h"

#define F ACL_FLOAT

static void test_flatten(void)
{
    int64_t s[] = {2, 3, 2}, so[] = {2, 6}, so0[] = {1, 12};
    DevTensor x = mk(F, s, 3, V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    DevTensor out = mk(F, so, 2, NULL), out0 = mk(F, so0, 2, NULL);
    RUN2(aclnnFlattenGetWorkspaceSize(x.tensor, 1, out.tensor, &ews, &eex), aclnnFlatten);
    EXPECT_T(out, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    RUN2(aclnnFlattenGetWorkspaceSize(x.tensor, 0, out0.tensor, &ews, &eex), aclnnFlatten);
    EXPECT_T(out0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    /* the strided seed view (4, 3) flattened at axis -1: (4, 3) in row-major order */
    double *st = dbl(100);
    for (int k = 0; k < 100; k++) st[k] = k;
    DevTensor v = mkv(F, VSTORE, 2, st, VSHAPE, 2, VSTRIDES, VOFF);
    int64_t s43[] = {4, 3};
    DevTensor o43 = mk(F, s43, 2, NULL);
    RUN2(aclnnFlattenGetWorkspaceSize(v.tensor, -1, o43.tensor, &ews, &eex), aclnnFlatten);
    EXPECT_T(o43, 22, 24, 26, 42, 44, 46, 62, 64, 66, 82, 84, 86);
    EXPECT_ERR(aclnnFlattenGetWorkspaceSize(x.tensor, 3, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnFlattenGetWorkspaceSize", "axis", &out);
    EXPECT_ERR(aclnnFlattenGetWorkspaceSize(x.tensor, 2, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnFlattenGetWorkspaceSize", "out", &out);
    EXPECT_ERR(aclnnFlattenGetWorkspaceSize(NULL, 1, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnFlattenGetWorkspaceSize", "self", &out);
    free(st);
}

static void test_diag(void)
{
    int64_t s3[] = {3}, s44[] = {4, 4}, s33[] = {3, 3}, s2[] = {2};
    DevTensor v = mk(F, s3, 1, V(1, 2, 3)), m = mk(F, s44, 2, NULL);
    RUN2(aclnnDiagGetWorkspaceSize(v.tensor, 1, m.tensor, &ews, &eex), aclnnDiag);
    EXPECT_T(m, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0);
    DevTensor a = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), d = mk(F, s2, 1, NULL), d3 = mk(F, s3, 1, NULL);
    RUN2(aclnnDiagGetWorkspaceSize(a.tensor, -1, d.tensor, &ews, &eex), aclnnDiag);
    EXPECT_T(d, 4, 8);
    RUN2(aclnnDiagGetWorkspaceSize(a.tensor, 0, d3.tensor, &ews, &eex), aclnnDiag);
    EXPECT_T(d3, 1, 5, 9);
    /* DiagFlat of a (2, 2) into an int32 (4, 4) on the diagonal below the main one */
    int64_t s22[] = {2, 2}, s55[] = {5, 5};
    DevTensor x = mk(F, s22, 2, V(1.5, 2, 3, 4)), o = mk(ACL_INT32, s55, 2, NULL);
    RUN2(aclnnDiagFlatGetWorkspaceSize(x.tensor, -1, o.tensor, &ews, &eex), aclnnDiagFlat);
    EXPECT_T(o, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0);
    int64_t s222[] = {2, 2, 2};
    DevTensor t3 = mk(F, s222, 3, NULL);
    EXPECT_ERR(aclnnDiagGetWorkspaceSize(t3.tensor, 0, d.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnDiagGetWorkspaceSize", "self", &d);
    EXPECT_ERR(aclnnDiagGetWorkspaceSize(v.tensor, 0, m.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnDiagGetWorkspaceSize", "out", &m);
    EXPECT_ERR(aclnnDiagFlatGetWorkspaceSize(x.tensor, 0, NULL, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnDiagFlatGetWorkspaceSize", "out", NULL);
}

static void test_fills(void)
{
    /* fill_diagonal_ of a tall (7, 3) matrix with wrap: rows 0-2 and 4-6 */
    int64_t s73[] = {7, 3};
    DevTensor m = mk(F, s73, 2, NULL);
    aclScalar *five = sc(ACL_INT64, 5);
    RUN2(aclnnInplaceFillDiagonalGetWorkspaceSize(m.tensor, five, true, &ews, &eex), aclnnInplaceFillDiagonal);
    EXPECT_T(m, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5);
    DevTensor m2 = mk(F, s73, 2, NULL);
    RUN2(aclnnInplaceFillDiagonalGetWorkspaceSize(m2.tensor, five, false, &ews, &eex), aclnnInplaceFillDiagonal);
    EXPECT_T(m2, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    /* on the seed view: (4, 3) -> elements (0,0), (1,1), (2,2) */
    double *st = dbl(100);
    DevTensor v = mkv(F, VSTORE, 2, st, VSHAPE, 2, VSTRIDES, VOFF);
    aclScalar *neg = sc(F, -2);
    RUN2(aclnnInplaceFillDiagonalGetWorkspaceSize(v.tensor, neg, false, &ews, &eex), aclnnInplaceFillDiagonal);
    double *got = dbl(100);
    rd(&v, got);
    for (int k = 0; k < 100; k++) {
        bool on = k == view_pos(0) || k == view_pos(4) || k == view_pos(8);
        CHECK(got[k] == (on ? -2 : 0));
    }
    int64_t s8[] = {2, 2};
    DevTensor i8 = mk(ACL_INT8, s8, 2, NULL);
    aclScalar *big = sc(ACL_INT64, 300);
    EXPECT_ERR(aclnnInplaceFillDiagonalGetWorkspaceSize(i8.tensor, big, false, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceFillDiagonalGetWorkspaceSize", "fillValue", NULL);
    EXPECT_ERR(aclnnInplaceFillDiagonalGetWorkspaceSize(i8.tensor, NULL, false, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnInplaceFillDiagonalGetWorkspaceSize", "fillValue", NULL);
    /* FillTensor: a one-element int32 tensor fills an f32 view */
    int64_t s1[] = {1};
    DevTensor val = mk(ACL_INT32, s1, 1, V(7));
    RUN2(aclnnInplaceFillTensorGetWorkspaceSize(m.tensor, val.tensor, &ews, &eex), aclnnInplaceFillTensor);
    EXPECT_T(m, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7);
    int64_t s2[] = {2};
    DevTensor two = mk(ACL_INT32, s2, 1, V(1, 2));
    EXPECT_ERR(aclnnInplaceFillTensorGetWorkspaceSize(m.tensor, two.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnInplaceFillTensorGetWorkspaceSize", "value", NULL);
    free(st);
    free(got);
}

static void test_shuffle_transpose(void)
{
    /* (1, 6, 1) with 2 groups: channels 0 3 1 4 2 5 */
    int64_t s[] = {1, 6, 1};
    DevTensor x = mk(F, s, 3, V(0, 1, 2, 3, 4, 5)), out = mk(F, s, 3, NULL);
    RUN2(aclnnChannelShuffleGetWorkspaceSize(x.tensor, 2, out.tensor, &ews, &eex), aclnnChannelShuffle);
    EXPECT_T(out, 0, 3, 1, 4, 2, 5);
    EXPECT_ERR(aclnnChannelShuffleGetWorkspaceSize(x.tensor, 4, out.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnChannelShuffleGetWorkspaceSize", "groups", &out);
    /* ConfusionTranspose: (2, 6) reshaped to (2, 3, 2), permuted (1, 0, 2) */
    int64_t s26[] = {2, 6}, s322[] = {3, 2, 2};
    DevTensor y = mk(F, s26, 2, V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)), yo = mk(F, s322, 3, NULL);
    int64_t p[] = {1, 0, 2}, sh[] = {2, 3, 2};
    aclIntArray *perm = aclCreateIntArray(p, 3), *shape = aclCreateIntArray(sh, 3);
    RUN2(aclnnConfusionTransposeGetWorkspaceSize(y.tensor, perm, shape, false, yo.tensor, &ews, &eex),
         aclnnConfusionTranspose);
    EXPECT_T(yo, 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11);
    /* transpose first: (2, 6) -> (6, 2) -> (3, 4) */
    int64_t p2[] = {1, 0}, sh2[] = {3, 4}, s34[] = {3, 4};
    aclIntArray *perm2 = aclCreateIntArray(p2, 2), *shape2 = aclCreateIntArray(sh2, 2);
    DevTensor zo = mk(F, s34, 2, NULL);
    RUN2(aclnnConfusionTransposeGetWorkspaceSize(y.tensor, perm2, shape2, true, zo.tensor, &ews, &eex),
         aclnnConfusionTranspose);
    EXPECT_T(zo, 0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11);
    EXPECT_ERR(aclnnConfusionTransposeGetWorkspaceSize(y.tensor, perm, shape2, false, zo.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnConfusionTransposeGetWorkspaceSize", "perm", &zo);
    aclDestroyIntArray(perm);
    aclDestroyIntArray(shape);
    aclDestroyIntArray(perm2);
    aclDestroyIntArray(shape2);
}

static void test_strided_slice(void)
{
    /* x = arange(12).reshape(3, 4); x[::2, ::-1] and x[1] (shrink) */
    int64_t s[] = {3, 4}, so[] = {2, 4}, s4[] = {4};
    DevTensor x = mk(ACL_INT32, s, 2, V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    DevTensor out = mk(ACL_INT32, so, 2, NULL), row = mk(ACL_INT32, s4, 1, NULL);
    int64_t b[] = {0, 0}, e[] = {0, 0}, st[] = {2, -1};
    aclIntArray *ba = aclCreateIntArray(b, 2), *ea = aclCreateIntArray(e, 2), *sa = aclCreateIntArray(st, 2);
    RUN2(aclnnStridedSliceGetWorkspaceSize(x.tensor, ba, ea, sa, 3, 3, 0, 0, 0, out.tensor, &ews, &eex),
         aclnnStridedSlice);
    EXPECT_T(out, 3, 2, 1, 0, 11, 10, 9, 8);
    int64_t b1[] = {1}, e1[] = {2}, s1[] = {1};
    aclIntArray *b1a = aclCreateIntArray(b1, 1), *e1a = aclCreateIntArray(e1, 1), *s1a = aclCreateIntArray(s1, 1);
    RUN2(aclnnStridedSliceGetWorkspaceSize(x.tensor, b1a, e1a, s1a, 0, 0, 0, 0, 1, row.tensor, &ews, &eex),
         aclnnStridedSlice);
    EXPECT_T(row, 4, 5, 6, 7);
    int64_t z[] = {0};
    aclIntArray *za = aclCreateIntArray(z, 1);
    EXPECT_ERR(aclnnStridedSliceGetWorkspaceSize(x.tensor, b1a, e1a, za, 0, 0, 0, 0, 0, row.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnStridedSliceGetWorkspaceSize", "strides", &row);
    /* StridedSliceAssignV2: x[0:3:2, 1:3] = [[-1, -2], [-3, -4]] */
    int64_t s22[] = {2, 2};
    DevTensor val = mk(ACL_INT32, s22, 2, V(-1, -2, -3, -4));
    int64_t ab[] = {0, 1}, ae[] = {3, 3}, as[] = {2, 1};
    aclIntArray *aba = aclCreateIntArray(ab, 2), *aea = aclCreateIntArray(ae, 2), *asa = aclCreateIntArray(as, 2);
    RUN2(aclnnStridedSliceAssignV2GetWorkspaceSize(x.tensor, val.tensor, aba, aea, asa, NULL, &ews, &eex),
         aclnnStridedSliceAssignV2);
    EXPECT_T(x, 0, -1, -2, 3, 4, 5, 6, 7, 8, -3, -4, 11);
    /* along axes (-1): columns 2..4 of every row */
    int64_t s32[] = {3, 2}, cb[] = {2}, ce[] = {100}, cs[] = {1}, cax[] = {-1};
    DevTensor cv = mk(ACL_INT32, s32, 2, V(1, 1, 1, 1, 1, 1));
    aclIntArray *cba = aclCreateIntArray(cb, 1), *cea = aclCreateIntArray(ce, 1), *csa = aclCreateIntArray(cs, 1),
                *caa = aclCreateIntArray(cax, 1);
    RUN2(aclnnStridedSliceAssignV2GetWorkspaceSize(x.tensor, cv.tensor, cba, cea, csa, caa, &ews, &eex),
         aclnnStridedSliceAssignV2);
    EXPECT_T(x, 0, -1, 1, 1, 4, 5, 1, 1, 8, -3, 1, 1);
    EXPECT_ERR(aclnnStridedSliceAssignV2GetWorkspaceSize(x.tensor, val.tensor, aba, aea, aba, NULL, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnStridedSliceAssignV2GetWorkspaceSize", "strides", NULL);
    aclIntArray *arrs[] = {ba, ea, sa, b1a, e1a, s1a, za, aba, aea, asa, cba, cea, csa, caa};
    for (size_t k = 0; k < ARRAY_LEN(arrs); k++) aclDestroyIntArray(arrs[k]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_flatten);
    RUN_TEST(test_diag);
    RUN_TEST(test_fills);
    RUN_TEST(test_shuffle_transpose);
    RUN_TEST(test_strided_slice);
    device_teardown();
    return capi_finish();
}
