/*
 * Tuple indexing and data-sized outputs as CANN users call them: Nonzero and NonzeroV2
 * (out allocated at the maximum, the real shape read back with aclGetViewShape after
 * synchronizing, as CANN's sample does), MaskedSelect (CANN's sample), InplaceMaskedScatter,
 * Index and IndexPutImpl (advanced indexing through an aclTensorList, an empty tensor
 * leaving a dim whole), InplacePut, IndexFill, GatherNd (CANN's documented examples),
 * ScatterNd (ONNX's example), ScatterNdUpdate, TfScatterAdd, GatherV3 (the doc's example),
 * ScatterReduce (Atlas A2's FLOAT32 add) and InplaceScatterUpdate (a KV-cache write). An index out of range
 * fails the run at aclrtSynchronizeStream and writes nothing.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_gather_nd.h"
#include "aclnnop/aclnn_gather_v3.h"
#include "aclnnop/aclnn_index.h"
#include "aclnnop/aclnn_index_fill.h"
#include "aclnnop/aclnn_index_put_impl.h"
#include "aclnnop/aclnn_masked_scatter.h"
#include "aclnnop/aclnn_masked_select.h"
#include "aclnnop/aclnn_nonzero.h"
#include "aclnnop/aclnn_nonzero_v2.h"
#include "aclnnop/aclnn_put.h"
#include "aclnnop/aclnn_scatter_nd.h"
#include "aclnnop/aclnn_scatter_nd_update.h"
#include "aclnnop/aclnn_scatter_reduce.h"
#include "aclnnop/aclnn_scatter_update.h"
#include "aclnnop/aclnn_tf_scatter_add.h"

#include <stdlib.h>

#define F ACL_FLOAT
#define I64 ACL_INT64

/* The view shape `t` reports now must be `want` (n dims). */
static void expect_view_shape(const aclTensor *t, const int64_t *want, uint64_t n)
{
    int64_t *dims = NULL;
    uint64_t got = 0;
    CHECK_OK(aclGetViewShape(t, &dims, &got));
    CHECK(got == n);
    for (uint64_t i = 0; i < n; i++) CHECK(dims[i] == want[i]);
    free(dims);
}

/* A new contiguous tensor handle over `t`'s storage (a list owns and destroys its members). */
static aclTensor *member(const DevTensor *t, const int64_t *shape, size_t n)
{
    int64_t strides[8];
    contiguous_strides(shape, n, strides);
    aclTensor *m = aclCreateTensor(shape, n, t->dtype, strides, 0, ACL_FORMAT_ND, shape, n, t->dev);
    CHECK(m != NULL);
    return m;
}

/* Nonzero's sample, written out: out sized [numel, rank], the count read back from its view. */
static void test_nonzero(void)
{
    float host[8] = {0, 1, 2, 0, 3, 0, 0, 4};
    void *self_dev = NULL, *out_dev = NULL;
    CHECK_OK(aclrtMalloc(&self_dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(self_dev, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t out_host[16];
    for (int i = 0; i < 16; i++) out_host[i] = -1;
    CHECK_OK(aclrtMalloc(&out_dev, sizeof out_host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(out_dev, sizeof out_host, out_host, sizeof out_host, ACL_MEMCPY_HOST_TO_DEVICE));
    int64_t self_shape[] = {4, 2}, self_strides[] = {2, 1};
    int64_t out_shape[] = {8, 2}, out_strides[] = {2, 1};
    aclTensor *self = aclCreateTensor(self_shape, 2, F, self_strides, 0, ACL_FORMAT_ND, self_shape, 2, self_dev);
    aclTensor *out = aclCreateTensor(out_shape, 2, I64, out_strides, 0, ACL_FORMAT_ND, out_shape, 2, out_dev);
    CHECK(self != NULL && out != NULL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnNonzeroGetWorkspaceSize(self, out, &ws, &ex));
    void *wsp = NULL;
    if (ws > 0) CHECK_OK(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnNonzero(wsp, ws, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    int64_t real[] = {4, 2};
    expect_view_shape(out, real, 2);
    CHECK_OK(aclrtMemcpy(out_host, sizeof out_host, out_dev, sizeof out_host, ACL_MEMCPY_DEVICE_TO_HOST));
    const int64_t want[16] = {0, 1, 1, 0, 2, 0, 3, 1, -1, -1, -1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 16; i++) CHECK(out_host[i] == want[i]);
    if (wsp != NULL) CHECK_OK(aclrtFree(wsp));

    /* NonzeroV2: [rank, count] */
    int64_t v2_shape[] = {2, 8};
    DevTensor o2 = mk(I64, v2_shape, 2, NULL);
    RUN2(aclnnNonzeroV2GetWorkspaceSize(self, o2.tensor, &ews, &eex), aclnnNonzeroV2);
    int64_t real2[] = {2, 4};
    expect_view_shape(o2.tensor, real2, 2);
    EXPECT_T(o2, 0, 1, 2, 3, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    /* out must be int64 */
    DevTensor of = mk(F, out_shape, 2, NULL);
    EXPECT_ERR(aclnnNonzeroGetWorkspaceSize(self, of.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnNonzeroGetWorkspaceSize", "out", &of);
    EXPECT_ERR(aclnnNonzeroGetWorkspaceSize(NULL, out, &ews, &eex), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnNonzeroGetWorkspaceSize", "self", NULL);
    CHECK_OK(aclDestroyTensor(self));
    CHECK_OK(aclDestroyTensor(out));
    CHECK_OK(aclrtFree(self_dev));
    CHECK_OK(aclrtFree(out_dev));
    dev_free(&o2);
    dev_free(&of);
}

/* MaskedSelect's sample: the last four of eight selected; MaskedScatter with a broadcast mask. */
static void test_masked(void)
{
    int64_t s42[] = {4, 2}, s8[] = {8}, s23[] = {2, 3}, s3[] = {3}, s4[] = {4};
    DevTensor self = mk(F, s42, 2, V(0, 1, 2, 3, 4, 5, 6, 7));
    DevTensor mask = mk(ACL_BOOL, s42, 2, V(0, 0, 0, 0, 1, 1, 1, 1));
    DevTensor out = mk(F, s8, 1, V(10, 10, 10, 10, 10, 10, 10, 10));
    RUN2(aclnnMaskedSelectGetWorkspaceSize(self.tensor, mask.tensor, out.tensor, &ews, &eex), aclnnMaskedSelect);
    int64_t four[] = {4};
    expect_view_shape(out.tensor, four, 1);
    EXPECT_T(out, 4, 5, 6, 7, 10, 10, 10, 10);
    /* out of the wrong element count */
    DevTensor o4 = mk(F, s4, 1, NULL);
    EXPECT_ERR(aclnnMaskedSelectGetWorkspaceSize(self.tensor, mask.tensor, o4.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMaskedSelectGetWorkspaceSize", "out", &o4);

    DevTensor dst = mk(F, s23, 2, NULL), m3 = mk(ACL_UINT8, s3, 1, V(1, 0, 1)), src = mk(F, s4, 1, V(1, 2, 3, 4));
    RUN2(aclnnInplaceMaskedScatterGetWorkspaceSize(dst.tensor, m3.tensor, src.tensor, &ews, &eex),
         aclnnInplaceMaskedScatter);
    EXPECT_T(dst, 1, 0, 2, 3, 0, 4);
    /* too few source elements: the run fails, selfRef untouched */
    DevTensor ones = mk(ACL_BOOL, s3, 1, V(1, 1, 1));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceMaskedScatterGetWorkspaceSize(dst.tensor, ones.tensor, src.tensor, &ws, &ex));
    CHECK_OK(aclnnInplaceMaskedScatter(NULL, ws, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    CHECK(errmsg_has("aclnnInplaceMaskedScatter"));
    EXPECT_T(dst, 1, 0, 2, 3, 0, 4);
    DevTensor *all[] = {&self, &mask, &out, &o4, &dst, &m3, &src, &ones};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* Index and IndexPutImpl: x[[2, 0]], x[:, [3, 1]] (an empty tensor takes dim 0 whole), x[[0, 2], [1, 3]]. */
static void test_index_and_index_put(void)
{
    int64_t s34[] = {3, 4}, s2[] = {2}, s0[] = {0}, s24[] = {2, 4}, s32[] = {3, 2};
    DevTensor x = mk(F, s34, 2, V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    DevTensor rows = mk(I64, s2, 1, V(2, 0)), cols = mk(ACL_INT32, s2, 1, V(3, -3)), none = mk(I64, s0, 1, NULL);
    DevTensor r2 = mk(I64, s2, 1, V(0, 2)), c2 = mk(I64, s2, 1, V(1, 3));

    aclTensor *l1[] = {member(&rows, s2, 1)};
    aclTensorList *pick_rows = aclCreateTensorList((const aclTensor *const *)l1, 1);
    DevTensor o1 = mk(F, s24, 2, NULL);
    RUN2(aclnnIndexGetWorkspaceSize(x.tensor, pick_rows, o1.tensor, &ews, &eex), aclnnIndex);
    EXPECT_T(o1, 8, 9, 10, 11, 0, 1, 2, 3);

    aclTensor *l2[] = {member(&none, s0, 1), member(&cols, s2, 1)};
    aclTensorList *pick_cols = aclCreateTensorList((const aclTensor *const *)l2, 2);
    DevTensor o2 = mk(F, s32, 2, NULL);
    RUN2(aclnnIndexGetWorkspaceSize(x.tensor, pick_cols, o2.tensor, &ews, &eex), aclnnIndex);
    EXPECT_T(o2, 3, 1, 7, 5, 11, 9);

    aclTensor *l3[] = {member(&r2, s2, 1), member(&c2, s2, 1)};
    aclTensorList *pairs = aclCreateTensorList((const aclTensor *const *)l3, 2);
    DevTensor o3 = mk(F, s2, 1, NULL);
    RUN2(aclnnIndexGetWorkspaceSize(x.tensor, pairs, o3.tensor, &ews, &eex), aclnnIndex);
    EXPECT_T(o3, 1, 11);

    /* x[[0, 2], [1, 3]] += [5, 6], then = 7 (a broadcast 0-d values) */
    DevTensor v = mk(F, s2, 1, V(5, 6));
    RUN2(aclnnIndexPutImplGetWorkspaceSize(x.tensor, pairs, v.tensor, true, false, &ews, &eex), aclnnIndexPutImpl);
    EXPECT_T(x, 0, 6, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17);
    DevTensor seven = mk(F, NULL, 0, V(7));
    RUN2(aclnnIndexPutImplGetWorkspaceSize(x.tensor, pick_rows, seven.tensor, false, true, &ews, &eex),
         aclnnIndexPutImpl);
    EXPECT_T(x, 7, 7, 7, 7, 4, 5, 6, 7, 7, 7, 7, 7);

    /* an index out of range: the run fails at synchronize, out untouched */
    DevTensor bad = mk(I64, s2, 1, V(1, 3));
    aclTensor *l4[] = {member(&bad, s2, 1)};
    aclTensorList *past = aclCreateTensorList((const aclTensor *const *)l4, 1);
    dev_fill_bytes(&o1, SENT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnIndexGetWorkspaceSize(x.tensor, past, o1.tensor, &ws, &ex));
    CHECK_OK(aclnnIndex(NULL, ws, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    CHECK(errmsg_has("value 3"));
    check_untouched_at(__FILE__, __LINE__, &o1);
    /* phase 1: out of another dtype; values that do not broadcast */
    DevTensor oi = mk(ACL_INT32, s24, 2, NULL);
    EXPECT_ERR(aclnnIndexGetWorkspaceSize(x.tensor, pick_rows, oi.tensor, &ews, &eex), ACLNN_ERR_PARAM_INVALID,
               "aclnnIndexGetWorkspaceSize", "out", &oi);
    int64_t s3[] = {3};
    DevTensor v3 = mk(F, s3, 1, V(1, 2, 3));
    EXPECT_ERR(aclnnIndexPutImplGetWorkspaceSize(x.tensor, pairs, v3.tensor, false, false, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIndexPutImplGetWorkspaceSize", "values", NULL);

    aclTensorList *lists[] = {pick_rows, pick_cols, pairs, past};
    for (size_t i = 0; i < ARRAY_LEN(lists); i++) CHECK_OK(aclDestroyTensorList(lists[i]));
    DevTensor *all[] = {&x, &rows, &cols, &none, &r2, &c2, &o1, &o2, &o3, &v, &seven, &bad, &oi, &v3};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* InplacePut (negative indices count from the end) and IndexFill (the doc's example). */
static void test_put_and_index_fill(void)
{
    int64_t s23[] = {2, 3}, s2[] = {2}, s33[] = {3, 3}, s3[] = {3};
    DevTensor x = mk(F, s23, 2, NULL), idx = mk(I64, s2, 1, V(-1, 0)), src = mk(F, s2, 1, V(5, 6));
    RUN2(aclnnInplacePutGetWorkspaceSize(x.tensor, idx.tensor, src.tensor, false, &ews, &eex), aclnnInplacePut);
    EXPECT_T(x, 6, 0, 0, 0, 0, 5);
    RUN2(aclnnInplacePutGetWorkspaceSize(x.tensor, idx.tensor, src.tensor, true, &ews, &eex), aclnnInplacePut);
    EXPECT_T(x, 12, 0, 0, 0, 0, 10);

    DevTensor m = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), fi = mk(I64, s3, 1, V(0, 2, 7));
    DevTensor out = mk(F, s33, 2, NULL);
    aclScalar *zero = sc(F, 0);
    /* dim 1, index [0, 2] (7 is out of range: skipped, as the doc says) */
    RUN2(aclnnIndexFillGetWorkspaceSize(m.tensor, 1, fi.tensor, zero, out.tensor, &ews, &eex), aclnnIndexFill);
    EXPECT_T(out, 0, 2, 0, 0, 5, 0, 0, 8, 0);
    RUN2(aclnnInplaceIndexFillGetWorkspaceSize(m.tensor, 0, fi.tensor, zero, &ews, &eex), aclnnInplaceIndexFill);
    EXPECT_T(m, 0, 0, 0, 4, 5, 6, 0, 0, 0);
    EXPECT_ERR(aclnnIndexFillGetWorkspaceSize(m.tensor, 2, fi.tensor, zero, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnIndexFillGetWorkspaceSize", "dim", &out);
    CHECK_OK(aclDestroyScalar(zero));
    DevTensor *all[] = {&x, &idx, &src, &m, &fi, &out};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* GatherNd (the doc's examples 1-3), ScatterNd (ONNX's example), ScatterNdUpdate, TfScatterAdd. */
static void test_nd(void)
{
    int64_t s22[] = {2, 2}, s21[] = {2, 1}, s222[] = {2, 2, 2}, s2[] = {2};
    DevTensor a = mk(F, s22, 2, V(0, 1, 2, 3)), i1 = mk(I64, s22, 2, V(0, 0, 1, 1)), o1 = mk(F, s2, 1, NULL);
    RUN2(aclnnGatherNdGetWorkspaceSize(a.tensor, i1.tensor, false, o1.tensor, &ews, &eex), aclnnGatherNd);
    EXPECT_T(o1, 0, 3);
    DevTensor i2 = mk(ACL_INT32, s21, 2, V(1, 0)), o2 = mk(F, s22, 2, NULL);
    RUN2(aclnnGatherNdGetWorkspaceSize(a.tensor, i2.tensor, false, o2.tensor, &ews, &eex), aclnnGatherNd);
    EXPECT_T(o2, 2, 3, 0, 1);
    DevTensor b = mk(F, s222, 3, V(0, 1, 2, 3, 4, 5, 6, 7)), i3 = mk(I64, s22, 2, V(0, 1, 1, 0));
    DevTensor o3 = mk(F, s22, 2, NULL);
    RUN2(aclnnGatherNdGetWorkspaceSize(b.tensor, i3.tensor, false, o3.tensor, &ews, &eex), aclnnGatherNd);
    EXPECT_T(o3, 2, 3, 4, 5);
    /* negative indices only with negativeIndexSupport */
    DevTensor in = mk(I64, s22, 2, V(-1, 0, 0, -1));
    RUN2(aclnnGatherNdGetWorkspaceSize(a.tensor, in.tensor, true, o1.tensor, &ews, &eex), aclnnGatherNd);
    EXPECT_T(o1, 2, 1);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnGatherNdGetWorkspaceSize(a.tensor, in.tensor, false, o1.tensor, &ws, &ex));
    CHECK_OK(aclnnGatherNd(NULL, ws, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_T(o1, 2, 1);

    int64_t s8[] = {8}, s41[] = {4, 1}, s4[] = {4};
    DevTensor data = mk(F, s8, 1, V(1, 2, 3, 4, 5, 6, 7, 8)), ind = mk(I64, s41, 2, V(4, 3, 1, 7));
    DevTensor upd = mk(F, s4, 1, V(9, 10, 11, 12)), out = mk(F, s8, 1, NULL);
    RUN2(aclnnScatterNdGetWorkspaceSize(data.tensor, ind.tensor, upd.tensor, out.tensor, &ews, &eex), aclnnScatterNd);
    EXPECT_T(out, 1, 11, 3, 10, 9, 6, 7, 12);
    EXPECT_T(data, 1, 2, 3, 4, 5, 6, 7, 8);
    RUN2(aclnnScatterNdUpdateGetWorkspaceSize(data.tensor, ind.tensor, upd.tensor, &ews, &eex), aclnnScatterNdUpdate);
    EXPECT_T(data, 1, 11, 3, 10, 9, 6, 7, 12);

    /* tf.scatter_add: rows 0, 2, 0 of a 4x2 var get 1s */
    int64_t s42[] = {4, 2}, s3[] = {3}, s32[] = {3, 2};
    DevTensor var = mk(F, s42, 2, NULL), ti = mk(ACL_INT32, s3, 1, V(0, 2, 0));
    DevTensor tu = mk(F, s32, 2, V(1, 1, 1, 1, 1, 1));
    RUN2(aclnnTfScatterAddGetWorkspaceSize(var.tensor, ti.tensor, tu.tensor, &ews, &eex), aclnnTfScatterAdd);
    EXPECT_T(var, 2, 2, 0, 0, 1, 1, 0, 0);
    /* updates of neither accepted shape */
    DevTensor t2 = mk(F, s22, 2, NULL);
    EXPECT_ERR(aclnnTfScatterAddGetWorkspaceSize(var.tensor, ti.tensor, t2.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnTfScatterAddGetWorkspaceSize", "updates", NULL);
    DevTensor *all[] = {&a, &i1, &o1, &i2, &o2, &b, &i3, &o3, &in, &data, &ind, &upd, &out, &var, &ti, &tu, &t2};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

/* GatherV3 (the doc's example, dim 0), ScatterReduce (Atlas A2: FLOAT32 add with includeSelf),
 * InplaceScatterUpdate (each batch of a (2, 4, 2) cache written from its own offset along axis 1). */
static void test_gather_v3_scatter_reduce_update(void)
{
    int64_t s33[] = {3, 3}, s2[] = {2}, s23[] = {2, 3};
    DevTensor x = mk(F, s33, 2, V(1, 2, 3, 4, 5, 6, 7, 8, 9)), idx = mk(I64, s2, 1, V(1, 0));
    DevTensor out = mk(F, s23, 2, NULL);
    RUN2(aclnnGatherV3GetWorkspaceSize(x.tensor, 0, idx.tensor, 0, 1, out.tensor, &ews, &eex), aclnnGatherV3);
    EXPECT_T(out, 4, 5, 6, 1, 2, 3);
    EXPECT_ERR(aclnnGatherV3GetWorkspaceSize(x.tensor, 1, idx.tensor, 0, 1, out.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnGatherV3GetWorkspaceSize", "dim", &out);

    int64_t s22[] = {2, 2};
    DevTensor z = mk(F, s22, 2, V(1, 1, 1, 1)), si = mk(I64, s22, 2, V(1, 0, 1, 1)), ones = mk(F, s22, 2, V(1, 2, 3, 4));
    DevTensor so = mk(F, s22, 2, NULL);
    RUN2(aclnnScatterReduceGetWorkspaceSize(z.tensor, 0, si.tensor, ones.tensor, 1, true, so.tensor, &ews, &eex),
         aclnnScatterReduce);
    EXPECT_T(so, 1, 3, 5, 5);
    RUN2(aclnnInplaceScatterReduceGetWorkspaceSize(z.tensor, 0, si.tensor, ones.tensor, 1, true, &ews, &eex),
         aclnnInplaceScatterReduce);
    EXPECT_T(z, 1, 3, 5, 5);
    EXPECT_ERR(aclnnScatterReduceGetWorkspaceSize(z.tensor, 0, si.tensor, ones.tensor, 3, true, so.tensor, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnScatterReduceGetWorkspaceSize", "reduce", &so);

    int64_t s242[] = {2, 4, 2}, s212[] = {2, 1, 2};
    DevTensor cache = mk(F, s242, 3, NULL), pos = mk(I64, s2, 1, V(3, 1)), kv = mk(F, s212, 3, V(1, 2, 3, 4));
    RUN2(aclnnInplaceScatterUpdateGetWorkspaceSize(cache.tensor, pos.tensor, kv.tensor, -2, &ews, &eex),
         aclnnInplaceScatterUpdate);
    EXPECT_T(cache, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0);
    /* an offset past the axis: the run fails, the cache untouched */
    DevTensor past = mk(I64, s2, 1, V(4, 0));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnInplaceScatterUpdateGetWorkspaceSize(cache.tensor, past.tensor, kv.tensor, 1, &ws, &ex));
    CHECK_OK(aclnnInplaceScatterUpdate(NULL, ws, ex, g_stream));
    CHECK(aclrtSynchronizeStream(g_stream) == ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_T(cache, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0);
    EXPECT_ERR(aclnnInplaceScatterUpdateGetWorkspaceSize(cache.tensor, pos.tensor, kv.tensor, 0, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnInplaceScatterUpdateGetWorkspaceSize", "axis", NULL);
    DevTensor *all[] = {&x, &idx, &out, &z, &si, &ones, &so, &cache, &pos, &kv, &past};
    for (size_t i = 0; i < ARRAY_LEN(all); i++) dev_free(all[i]);
}

int main(void)
{
    device_init();
    RUN_TEST(test_nonzero);
    RUN_TEST(test_masked);
    RUN_TEST(test_index_and_index_put);
    RUN_TEST(test_put_and_index_fill);
    RUN_TEST(test_nd);
    RUN_TEST(test_gather_v3_scatter_reduce_update);
    device_teardown();
    return capi_finish();
}
