/*
 * The gather/scatter family as CANN users call it: IndexSelect, GatherV2 (the way
 * llama.cpp's get_rows does, written out call by call), Embedding, Scatter and its
 * value/in-place forms, IndexCopy (llama.cpp's set_rows), IndexFillTensor, the five
 * RepeatInterleave forms, Gather, Take, ScatterAdd and IndexAdd(V2), with CANN's documented examples as expected values; an index
 * out of range fails the run at aclrtSynchronizeStream and writes nothing.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_gather.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_index_add.h"
#include "aclnnop/aclnn_index_add_v2.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_index_fill_tensor.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_repeat_interleave.h"
#include "aclnnop/aclnn_scatter.h"
#include "aclnnop/aclnn_scatter_add.h"
#include "aclnnop/aclnn_take.h"

#include <string.h>

#define F ACL_FLOAT
#define I64 ACL_INT64

/* GatherV2 over strided views, as a CANN program writes every step. */
static void test_gather_v2_by_hand(void)
{
    /* src: 4 rows of 3 floats, rows 5 apart, from element 2 of a 22-element storage. */
    float host_src[22];
    for (int i = 0; i < 22; i++) host_src[i] = (float)(100 + i);
    void *src_dev = NULL, *idx_dev = NULL, *dst_dev = NULL;
    CHECK_OK(aclrtMalloc(&src_dev, sizeof host_src, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(src_dev, sizeof host_src, host_src, sizeof host_src, ACL_MEMCPY_HOST_TO_DEVICE));
    int32_t host_idx[3] = {2, 0, -1}; /* GatherV2 wraps negative indices: -1 is row 3 */
    CHECK_OK(aclrtMalloc(&idx_dev, sizeof host_idx, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(idx_dev, sizeof host_idx, host_idx, sizeof host_idx, ACL_MEMCPY_HOST_TO_DEVICE));
    float host_dst[12];
    for (int i = 0; i < 12; i++) host_dst[i] = -1.0f;
    CHECK_OK(aclrtMalloc(&dst_dev, sizeof host_dst, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dst_dev, sizeof host_dst, host_dst, sizeof host_dst, ACL_MEMCPY_HOST_TO_DEVICE));

    int64_t src_shape[] = {4, 3}, src_strides[] = {5, 1}, src_storage[] = {22};
    int64_t idx_shape[] = {3}, idx_strides[] = {1};
    int64_t dst_shape[] = {3, 3}, dst_strides[] = {4, 1}, dst_storage[] = {12}; /* rows 4 apart */
    aclTensor *src = aclCreateTensor(src_shape, 2, F, src_strides, 2, ACL_FORMAT_ND, src_storage, 1, src_dev);
    aclTensor *idx = aclCreateTensor(idx_shape, 1, ACL_INT32, idx_strides, 0, ACL_FORMAT_ND, idx_shape, 1, idx_dev);
    aclTensor *dst = aclCreateTensor(dst_shape, 2, F, dst_strides, 0, ACL_FORMAT_ND, dst_storage, 1, dst_dev);
    CHECK(src != NULL && idx != NULL && dst != NULL);

    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnGatherV2GetWorkspaceSize(src, 0, idx, dst, &ws, &ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnGatherV2(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    CHECK_OK(aclrtMemcpy(host_dst, sizeof host_dst, dst_dev, sizeof host_dst, ACL_MEMCPY_DEVICE_TO_HOST));
    /* row r of src starts at storage element 2 + 5r */
    const float want[12] = {112, 113, 114, -1, 102, 103, 104, -1, 117, 118, 119, -1};
    CHECK(memcmp(host_dst, want, sizeof want) == 0);
    if (wsp != NULL) CHECK_OK(aclrtFree(wsp));

    /* An index past the rows: phase 1 cannot know it; the run fails and writes nothing. */
    host_idx[1] = 4;
    CHECK_OK(aclrtMemcpy(idx_dev, sizeof host_idx, host_idx, sizeof host_idx, ACL_MEMCPY_HOST_TO_DEVICE));
    for (int i = 0; i < 12; i++) host_dst[i] = -1.0f;
    CHECK_OK(aclrtMemcpy(dst_dev, sizeof host_dst, host_dst, sizeof host_dst, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclnnGatherV2GetWorkspaceSize(src, 0, idx, dst, &ws, &ex));
    CHECK(ws == 0);
    CHECK_OK(aclnnGatherV2(NULL, 0, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "aclnnGatherV2") != NULL && strstr(msg, "value 4") != NULL);
    float after[12];
    CHECK_OK(aclrtMemcpy(after, sizeof after, dst_dev, sizeof after, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(after, host_dst, sizeof after) == 0);
    CHECK_OK(aclrtSynchronizeStream(g_stream)); /* the failure was reported once */

    CHECK_OK(aclDestroyTensor(src));
    CHECK_OK(aclDestroyTensor(idx));
    CHECK_OK(aclDestroyTensor(dst));
    CHECK_OK(aclrtFree(src_dev));
    CHECK_OK(aclrtFree(idx_dev));
    CHECK_OK(aclrtFree(dst_dev));
}

static void test_index_select(void)
{
    /* aclnnIndexSelect.md's example */
    int64_t s33[] = {3, 3}, s2[] = {2}, s23[] = {2, 3}, s32[] = {3, 2};
    DevTensor x = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9));
    DevTensor idx = mk(I64, s2, 1, V(1, 0));
    DevTensor o0 = mk(F, s23, 2, NULL), o1 = mk(F, s32, 2, NULL);
    RUN2(aclnnIndexSelectGetWorkspaceSize(x.tensor, 0, idx.tensor, o0.tensor, &ews, &eex), aclnnIndexSelect);
    EXPECT_T(o0, 4, 5, 6, 1, 2, 3);
    RUN2(aclnnIndexSelectGetWorkspaceSize(x.tensor, -1, idx.tensor, o1.tensor, &ews, &eex), aclnnIndexSelect);
    EXPECT_T(o1, 2, 1, 5, 4, 8, 7);
    EXPECT_ERR(aclnnIndexSelectGetWorkspaceSize(x.tensor, 2, idx.tensor, o0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIndexSelectGetWorkspaceSize", "dim", &o0);
    EXPECT_ERR(aclnnIndexSelectGetWorkspaceSize(x.tensor, 0, NULL, o0.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnIndexSelectGetWorkspaceSize", "index", &o0);
    EXPECT_ERR(aclnnIndexSelectGetWorkspaceSize(x.tensor, 0, idx.tensor, o1.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIndexSelectGetWorkspaceSize", "out", &o1);
    dev_free(&x);
    dev_free(&idx);
    dev_free(&o0);
    dev_free(&o1);
}

static void test_embedding(void)
{
    int64_t s42[] = {4, 2}, s22[] = {2, 2}, s222[] = {2, 2, 2};
    DevTensor w = mk(F, s42, 2, V(0, 1, 10, 11, 20, 21, 30, 31));
    DevTensor idx = mk(ACL_INT32, s22, 2, V(0, 2, 3, 3));
    DevTensor out = mk(F, s222, 3, NULL);
    RUN2(aclnnEmbeddingGetWorkspaceSize(w.tensor, idx.tensor, out.tensor, &ews, &eex), aclnnEmbedding);
    EXPECT_T(out, 0, 1, 20, 21, 30, 31, 30, 31);
    dev_free(&w);
    dev_free(&idx);
    dev_free(&out);
}

static void test_scatter(void)
{
    /* aclnnScatterAdd.md's example through aclnnScatter with reduce 1 (add), dim 1 */
    int64_t s33[] = {3, 3}, s24[] = {2, 4}, s25[] = {2, 5};
    DevTensor x = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9));
    DevTensor idx = mk(I64, s24, 2, V(0, 1, 2, 0, 0, 0, 1, 2));
    DevTensor src = mk(F, s25, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    DevTensor out = mk(F, s33, 2, NULL);
    RUN2(aclnnScatterGetWorkspaceSize(x.tensor, 1, idx.tensor, src.tensor, 1, out.tensor, &ews, &eex), aclnnScatter);
    EXPECT_T(out, 6, 4, 6, 17, 13, 15, 7, 8, 9);
    /* reduce 2 multiplies, in place */
    RUN2(aclnnInplaceScatterGetWorkspaceSize(x.tensor, 1, idx.tensor, src.tensor, 2, &ews, &eex), aclnnInplaceScatter);
    EXPECT_T(x, 4, 4, 9, 4 * 6 * 7, 5 * 8, 6 * 9, 7, 8, 9);
    /* a value, replacing (reduce 0) */
    int64_t s23[] = {2, 3}, s21[] = {2, 1};
    DevTensor z = mk(F, s23, 2, NULL), i2 = mk(I64, s21, 2, V(1, 2)), o = mk(F, s23, 2, NULL);
    aclScalar *v = sc(F, 5);
    RUN2(aclnnScatterValueGetWorkspaceSize(z.tensor, 1, i2.tensor, v, 0, o.tensor, &ews, &eex), aclnnScatterValue);
    EXPECT_T(o, 0, 5, 0, 0, 0, 5);
    DevTensor i3 = mk(I64, s21, 2, V(1, 0));
    RUN2(aclnnInplaceScatterValueGetWorkspaceSize(z.tensor, 0, i3.tensor, v, 1, &ews, &eex), aclnnInplaceScatterValue);
    EXPECT_T(z, 5, 0, 0, 5, 0, 0);
    EXPECT_ERR(aclnnScatterGetWorkspaceSize(x.tensor, 1, idx.tensor, src.tensor, 4, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnScatterGetWorkspaceSize", "reduce", &out);
    EXPECT_ERR(aclnnScatterGetWorkspaceSize(x.tensor, 1, idx.tensor, NULL, 0, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnScatterGetWorkspaceSize", "src", &out);
    CHECK_OK(aclDestroyScalar(v));
    dev_free(&x);
    dev_free(&idx);
    dev_free(&src);
    dev_free(&out);
    dev_free(&z);
    dev_free(&i2);
    dev_free(&i3);
    dev_free(&o);
}

static void test_index_copy(void)
{
    /* llama.cpp's set_rows: rows of src into dst at the index, dim 0, in place */
    int64_t s42[] = {4, 2}, s22[] = {2, 2}, s2[] = {2};
    DevTensor dst = mk(F, s42, 2, NULL), src = mk(F, s22, 2, V(1, 2, 3, 4)), idx = mk(I64, s2, 1, V(2, 0));
    RUN2(aclnnInplaceIndexCopyGetWorkspaceSize(dst.tensor, 0, idx.tensor, src.tensor, &ews, &eex),
         aclnnInplaceIndexCopy);
    EXPECT_T(dst, 3, 4, 0, 0, 1, 2, 0, 0);
    /* out of place, along dim 1 */
    int64_t s24[] = {2, 4};
    DevTensor x = mk(F, s24, 2, V(0, 0, 0, 0, 0, 0, 0, 0)), out = mk(F, s24, 2, NULL);
    DevTensor c = mk(F, s22, 2, V(1, 2, 3, 4)), i1 = mk(ACL_INT32, s2, 1, V(3, 1));
    RUN2(aclnnIndexCopyGetWorkspaceSize(x.tensor, 1, i1.tensor, c.tensor, out.tensor, &ews, &eex), aclnnIndexCopy);
    EXPECT_T(out, 0, 2, 0, 1, 0, 4, 0, 3);
    EXPECT_ERR(aclnnInplaceIndexCopyGetWorkspaceSize(dst.tensor, 0, idx.tensor, x.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplaceIndexCopyGetWorkspaceSize", "source", NULL);
    dev_free(&dst);
    dev_free(&src);
    dev_free(&idx);
    dev_free(&x);
    dev_free(&out);
    dev_free(&c);
    dev_free(&i1);
}

static void test_index_fill(void)
{
    /* aclnnIndexFillTensor.md's example: dim 0 and dim 1, index [0, 2], value 0 */
    int64_t s33[] = {3, 3}, ix[] = {0, 2}, neg[] = {-1};
    DevTensor x = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), out = mk(F, s33, 2, NULL);
    aclIntArray *index = aclCreateIntArray(ix, 2), *last = aclCreateIntArray(neg, 1);
    aclScalar *zero = sc(F, 0), *nine = sc(ACL_INT64, 9);
    RUN2(aclnnIndexFillTensorGetWorkspaceSize(x.tensor, 0, index, zero, out.tensor, &ews, &eex), aclnnIndexFillTensor);
    EXPECT_T(out, 0, 0, 0, 4, 5, 6, 0, 0, 0);
    RUN2(aclnnInplaceIndexFillTensorGetWorkspaceSize(x.tensor, 1, index, zero, &ews, &eex), aclnnInplaceIndexFillTensor);
    EXPECT_T(x, 0, 2, 0, 0, 5, 0, 0, 8, 0);
    /* a negative index counts from the end */
    RUN2(aclnnInplaceIndexFillTensorGetWorkspaceSize(x.tensor, 0, last, nine, &ews, &eex), aclnnInplaceIndexFillTensor);
    EXPECT_T(x, 0, 2, 0, 0, 5, 0, 9, 9, 9);
    int64_t big[] = {3};
    aclIntArray *past = aclCreateIntArray(big, 1);
    EXPECT_ERR(aclnnInplaceIndexFillTensorGetWorkspaceSize(x.tensor, 0, past, zero, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplaceIndexFillTensorGetWorkspaceSize", "index", NULL);
    CHECK_OK(aclDestroyIntArray(index));
    CHECK_OK(aclDestroyIntArray(last));
    CHECK_OK(aclDestroyIntArray(past));
    CHECK_OK(aclDestroyScalar(zero));
    CHECK_OK(aclDestroyScalar(nine));
    dev_free(&x);
    dev_free(&out);
}

static void test_repeat_interleave(void)
{
    /* llama.cpp's rope cache: each value twice along the last dim */
    int64_t s13[] = {1, 3}, s16[] = {1, 6}, s6[] = {6}, s3[] = {3}, s2[] = {2}, s4[] = {4};
    DevTensor x = mk(F, s13, 2, V(1, 2, 3)), o = mk(F, s16, 2, NULL), flat = mk(F, s6, 1, NULL);
    RUN2(aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(x.tensor, 2, 1, 6, o.tensor, &ews, &eex),
         aclnnRepeatInterleaveIntWithDim);
    EXPECT_T(o, 1, 1, 2, 2, 3, 3);
    RUN2(aclnnRepeatInterleaveIntGetWorkspaceSize(x.tensor, 2, 6, flat.tensor, &ews, &eex), aclnnRepeatInterleaveInt);
    EXPECT_T(flat, 1, 1, 2, 2, 3, 3);
    /* tensor repeats, read at run time */
    DevTensor r = mk(I64, s3, 1, V(1, 0, 2)), o3 = mk(F, s3, 1, NULL), o13 = mk(F, s13, 2, NULL);
    RUN2(aclnnRepeatInterleaveGetWorkspaceSize(x.tensor, r.tensor, 3, o3.tensor, &ews, &eex), aclnnRepeatInterleave);
    EXPECT_T(o3, 1, 3, 3);
    RUN2(aclnnRepeatInterleaveWithDimGetWorkspaceSize(x.tensor, r.tensor, -1, 3, o13.tensor, &ews, &eex),
         aclnnRepeatInterleaveWithDim);
    EXPECT_T(o13, 1, 3, 3);
    /* aclnnRepeatInterleaveTensor.md's example: [1, 3] gives [0, 1, 1, 1] */
    DevTensor rep = mk(I64, s2, 1, V(1, 3)), pos = mk(I64, s4, 1, NULL);
    RUN2(aclnnRepeatInterleaveTensorGetWorkspaceSize(rep.tensor, 4, pos.tensor, &ews, &eex), aclnnRepeatInterleaveTensor);
    EXPECT_T(pos, 0, 1, 1, 1);
    EXPECT_ERR(aclnnRepeatInterleaveIntGetWorkspaceSize(x.tensor, -2, 6, flat.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnRepeatInterleaveIntGetWorkspaceSize", "repeats", &flat);
    dev_free(&x);
    dev_free(&o);
    dev_free(&flat);
    dev_free(&r);
    dev_free(&o3);
    dev_free(&o13);
    dev_free(&rep);
    dev_free(&pos);
}

static void test_gather_take_and_adds(void)
{
    /* torch.gather's example: [[1,2],[3,4]] with index [[0,0],[1,0]] along dim 1 */
    int64_t s22[] = {2, 2}, s3[] = {3}, s2[] = {2}, s32[] = {3, 2};
    DevTensor x = mk(F, s22, 2, V(1, 2, 3, 4)), idx = mk(I64, s22, 2, V(0, 0, 1, -2)), out = mk(F, s22, 2, NULL);
    RUN2(aclnnGatherGetWorkspaceSize(x.tensor, 1, idx.tensor, out.tensor, &ews, &eex), aclnnGather);
    EXPECT_T(out, 1, 1, 4, 3);
    /* torch.take's example: [[4,3,5],[6,7,8]] at [0, 2, 5] */
    int64_t s23[] = {2, 3};
    DevTensor y = mk(F, s23, 2, V(4, 3, 5, 6, 7, 8)), ti = mk(ACL_INT32, s3, 1, V(0, 2, 5)), to = mk(F, s3, 1, NULL);
    RUN2(aclnnTakeGetWorkspaceSize(y.tensor, ti.tensor, to.tensor, &ews, &eex), aclnnTake);
    EXPECT_T(to, 4, 5, 8);
    /* ScatterAdd: ones scattered into zeros along dim 0 */
    DevTensor z = mk(F, s22, 2, NULL), si = mk(I64, s22, 2, V(1, 0, 1, 1)), ones = mk(F, s22, 2, V(1, 1, 1, 1));
    DevTensor so = mk(F, s22, 2, NULL);
    RUN2(aclnnScatterAddGetWorkspaceSize(z.tensor, 0, si.tensor, ones.tensor, so.tensor, &ews, &eex), aclnnScatterAdd);
    EXPECT_T(so, 0, 1, 2, 1);
    /* IndexAdd: rows 2·source added at rows [2, 0] of a 3x2 self */
    DevTensor s = mk(F, s32, 2, V(1, 1, 1, 1, 1, 1)), ai = mk(I64, s2, 1, V(2, 0)), src = mk(F, s22, 2, V(1, 2, 3, 4));
    DevTensor ao = mk(F, s32, 2, NULL);
    aclScalar *two = sc(F, 2);
    RUN2(aclnnIndexAddGetWorkspaceSize(s.tensor, 0, ai.tensor, src.tensor, two, ao.tensor, &ews, &eex), aclnnIndexAdd);
    EXPECT_T(ao, 7, 9, 1, 1, 3, 5);
    RUN2(aclnnIndexAddV2GetWorkspaceSize(s.tensor, 0, ai.tensor, src.tensor, two, 1, ao.tensor, &ews, &eex),
         aclnnIndexAddV2);
    EXPECT_T(ao, 7, 9, 1, 1, 3, 5);
    EXPECT_ERR(aclnnIndexAddGetWorkspaceSize(s.tensor, 0, ai.tensor, src.tensor, NULL, ao.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_NULLPTR, "aclnnIndexAddGetWorkspaceSize", "alpha", &ao);
    CHECK_OK(aclDestroyScalar(two));
    DevTensor *all[] = {&x, &idx, &out, &y, &ti, &to, &z, &si, &ones, &so, &s, &ai, &src, &ao};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_gather_v2_by_hand);
    RUN_TEST(test_index_select);
    RUN_TEST(test_embedding);
    RUN_TEST(test_scatter);
    RUN_TEST(test_index_copy);
    RUN_TEST(test_index_fill);
    RUN_TEST(test_repeat_interleave);
    RUN_TEST(test_gather_take_and_adds);
    device_teardown();
    return capi_finish();
}
