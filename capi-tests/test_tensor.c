/* aclTensor / aclScalar / arrays / lists: creation, validation, getters, destruction. */
#include "common.h"

/* Reads every getter of `t` and compares with the expected description. */
static void check_tensor_meta(const aclTensor *t, const int64_t *shape, size_t ndim, const int64_t *strides,
                              int64_t offset, aclDataType dt, aclFormat fmt, const int64_t *storage, size_t sndim)
{
    int64_t *dims = NULL;
    uint64_t n = 12345;
    CHECK_OK(aclGetViewShape(t, &dims, &n));
    CHECK(n == ndim);
    for (size_t i = 0; i < ndim; i++) CHECK(dims[i] == shape[i]);
    free(dims); /* malloc-compatible (the C++ test uses delete[]) */

    int64_t *st = NULL;
    n = 12345;
    CHECK_OK(aclGetViewStrides(t, &st, &n));
    CHECK(n == ndim);
    for (size_t i = 0; i < ndim; i++) CHECK(st[i] == strides[i]);
    free(st);

    int64_t *sd = NULL;
    n = 12345;
    CHECK_OK(aclGetStorageShape(t, &sd, &n));
    CHECK(n == sndim);
    for (size_t i = 0; i < sndim; i++) CHECK(sd[i] == storage[i]);
    free(sd);

    int64_t off = -1;
    CHECK_OK(aclGetViewOffset(t, &off));
    CHECK(off == offset);

    aclFormat f = ACL_FORMAT_UNDEFINED;
    CHECK_OK(aclGetFormat(t, &f));
    CHECK(f == fmt);

    aclDataType d = ACL_DT_UNDEFINED;
    CHECK_OK(aclGetDataType(t, &d));
    CHECK(d == dt);
}

static void test_create_contiguous_null_stride(void)
{
    int64_t shape[] = {2, 3, 4};
    int64_t expect_strides[] = {12, 4, 1};
    float data[24] = {0};
    aclTensor *t = aclCreateTensor(shape, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 3, data);
    CHECK(t != NULL);
    check_tensor_meta(t, shape, 3, expect_strides, 0, ACL_FLOAT, ACL_FORMAT_ND, shape, 3);
    CHECK_OK(aclDestroyTensor(t));

    /* explicit strides, other dtypes and formats */
    int64_t s4[] = {1, 2, 3, 4};
    int64_t st4[] = {24, 12, 4, 1};
    t = aclCreateTensor(s4, 4, ACL_FLOAT16, st4, 0, ACL_FORMAT_NCHW, s4, 4, NULL);
    CHECK(t != NULL);
    check_tensor_meta(t, s4, 4, st4, 0, ACL_FLOAT16, ACL_FORMAT_NCHW, s4, 4);
    CHECK_OK(aclDestroyTensor(t));

    /* tensorData may be NULL */
    t = aclCreateTensor(shape, 3, ACL_INT64, NULL, 0, ACL_FORMAT_ND, shape, 3, NULL);
    CHECK(t != NULL);
    void *addr = (void *)1;
    CHECK_OK(aclGetRawTensorAddr(t, &addr));
    CHECK(addr == NULL);
    CHECK_OK(aclDestroyTensor(t));
}

static void test_create_every_public_dtype(void)
{
    const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16,
                               ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_BOOL,
                               ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16};
    int64_t shape[] = {2, 2};
    for (size_t i = 0; i < ARRAY_LEN(dts); i++) {
        aclTensor *t = aclCreateTensor(shape, 2, dts[i], NULL, 0, ACL_FORMAT_ND, shape, 2, NULL);
        if (t == NULL) fprintf(stderr, "dtype %d rejected\n", (int)dts[i]);
        CHECK(t != NULL);
        aclDataType d = ACL_DT_UNDEFINED;
        CHECK_OK(aclGetDataType(t, &d));
        CHECK(d == dts[i]);
        CHECK_OK(aclDestroyTensor(t));
    }
}

static void test_create_0d(void)
{
    float v = 3.0f;
    int64_t one[] = {1};
    /* 0-d view, storage of one element */
    aclTensor *t = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, one, 1, &v);
    CHECK(t != NULL);
    int64_t *dims = NULL;
    uint64_t n = 99;
    CHECK_OK(aclGetViewShape(t, &dims, &n));
    CHECK(n == 0);
    free(dims);
    int64_t *st = NULL;
    n = 99;
    CHECK_OK(aclGetViewStrides(t, &st, &n));
    CHECK(n == 0);
    free(st);
    int64_t *sd = NULL;
    n = 99;
    CHECK_OK(aclGetStorageShape(t, &sd, &n));
    CHECK(n == 1);
    CHECK(sd != NULL && sd[0] == 1);
    free(sd);
    CHECK_OK(aclDestroyTensor(t));

    /* 0-d view over a 0-d storage (one element) */
    t = aclCreateTensor(NULL, 0, ACL_DOUBLE, NULL, 0, ACL_FORMAT_ND, NULL, 0, &v);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
}

static void test_create_empty(void)
{
    int64_t shape[] = {2, 0, 3};
    aclTensor *t = aclCreateTensor(shape, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 3, NULL);
    CHECK(t != NULL);
    int64_t *dims = NULL;
    uint64_t n = 0;
    CHECK_OK(aclGetViewShape(t, &dims, &n));
    CHECK(n == 3 && dims[0] == 2 && dims[1] == 0 && dims[2] == 3);
    free(dims);
    CHECK_OK(aclDestroyTensor(t));

    int64_t e1[] = {0};
    t = aclCreateTensor(e1, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, e1, 1, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
}

static void test_seed_views(void)
{
    int64_t storage[] = {10, 10};
    float data[100];
    for (int i = 0; i < 100; i++) data[i] = (float)i;

    int64_t s1[] = {6, 5}, st1[] = {10, 1};
    aclTensor *a = aclCreateTensor(s1, 2, ACL_FLOAT, st1, 22, ACL_FORMAT_ND, storage, 2, data);
    CHECK(a != NULL);
    check_tensor_meta(a, s1, 2, st1, 22, ACL_FLOAT, ACL_FORMAT_ND, storage, 2);

    int64_t s2[] = {4, 3}, st2[] = {20, 2};
    aclTensor *b = aclCreateTensor(s2, 2, ACL_FLOAT, st2, 22, ACL_FORMAT_ND, storage, 2, data);
    CHECK(b != NULL);
    check_tensor_meta(b, s2, 2, st2, 22, ACL_FLOAT, ACL_FORMAT_ND, storage, 2);

    /* largest reachable index exactly 99: still inside */
    aclTensor *c = aclCreateTensor(s1, 2, ACL_FLOAT, st1, 45, ACL_FORMAT_ND, storage, 2, data);
    CHECK(c != NULL);
    /* a transposed view and a stride-0 (expanded) view */
    int64_t s3[] = {10, 10}, st3[] = {1, 10};
    aclTensor *d = aclCreateTensor(s3, 2, ACL_FLOAT, st3, 0, ACL_FORMAT_ND, storage, 2, data);
    CHECK(d != NULL);
    int64_t s4[] = {7, 10}, st4[] = {0, 1};
    aclTensor *e = aclCreateTensor(s4, 2, ACL_FLOAT, st4, 90, ACL_FORMAT_ND, storage, 2, data);
    CHECK(e != NULL);

    CHECK_OK(aclDestroyTensor(a));
    CHECK_OK(aclDestroyTensor(b));
    CHECK_OK(aclDestroyTensor(c));
    CHECK_OK(aclDestroyTensor(d));
    CHECK_OK(aclDestroyTensor(e));
}

/* CANN's aclCreateTensor checks only for NULL arrays: views reaching past their storageDims are
 * created (ggml sizes the storage of a view with an offset without the offset). What bounds a
 * view is the aclrtMalloc allocation holding it, at phase 1 (test_misuse: view_outside_storage). */
static void test_view_outside_storage(void)
{
    int64_t storage[] = {10, 10};
    int64_t s1[] = {6, 5}, st1[] = {10, 1};
    /* offset 46: largest index 46 + 50 + 4 = 100 >= 100 */
    aclTensor *t = aclCreateTensor(s1, 2, ACL_FLOAT, st1, 46, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
    /* strides too large for the storage, a contiguous view bigger than it, a view over none */
    int64_t s2[] = {4, 3}, st2[] = {30, 2}, big[] = {11, 10}, s3[] = {2}, empty_storage[] = {0};
    t = aclCreateTensor(s2, 2, ACL_FLOAT, st2, 22, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
    t = aclCreateTensor(big, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
    t = aclCreateTensor(s3, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, empty_storage, 1, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
    /* a view that reaches past any addressable memory is still refused */
    int64_t huge[] = {4, 3}, sthuge[] = {INT64_MAX / 2, 1};
    t = aclCreateTensor(huge, 2, ACL_FLOAT, sthuge, 0, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t == NULL);
    CHECK_ERRMSG("reaches past any addressable memory");
}

static void test_negative_values_rejected(void)
{
    int64_t storage[] = {10, 10};
    int64_t s[] = {4, 3};
    int64_t neg_stride[] = {10, -1};
    aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, neg_stride, 30, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t == NULL);
    CHECK(strlen(errmsg()) > 0);

    int64_t neg_dim[] = {4, -3};
    t = aclCreateTensor(neg_dim, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t == NULL);
    CHECK(strlen(errmsg()) > 0);

    /* CANN's aclCreateTensor does not look at storageDims' signs (ggml passes a negative
       storage length for an empty view); such a dim describes no memory. */
    int64_t neg_storage[] = {-10, 10};
    t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, neg_storage, 2, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));

    t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, -1, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t == NULL);
    CHECK(strlen(errmsg()) > 0);

    /* NULL dims with a non-zero count */
    t = aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, storage, 2, NULL);
    CHECK(t == NULL);
    t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 2, NULL);
    CHECK(t == NULL);
}

static void test_bad_enums_rejected(void)
{
    int64_t s[] = {2, 2};
    const int bad_dtypes[] = {5, 99, 14, 28};
    for (size_t i = 0; i < ARRAY_LEN(bad_dtypes); i++) {
        aclTensor *t = aclCreateTensor(s, 2, (aclDataType)bad_dtypes[i], NULL, 0, ACL_FORMAT_ND, s, 2, NULL);
        if (t != NULL) fprintf(stderr, "dtype value %d accepted\n", bad_dtypes[i]);
        CHECK(t == NULL);
        CHECK(strlen(errmsg()) > 0);
    }
    const int bad_formats[] = {5, 99, 6, 1000};
    for (size_t i = 0; i < ARRAY_LEN(bad_formats); i++) {
        aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, (aclFormat)bad_formats[i], s, 2, NULL);
        if (t != NULL) fprintf(stderr, "format value %d accepted\n", bad_formats[i]);
        CHECK(t == NULL);
        CHECK(strlen(errmsg()) > 0);
    }
}

static void test_getters_null_args(void)
{
    int64_t s[] = {2, 3};
    aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, NULL);
    CHECK(t != NULL);
    int64_t *arr = NULL;
    uint64_t n = 0;
    int64_t off = 0;
    aclFormat f;
    aclDataType d;

    CHECK_STATUS(aclGetViewShape(NULL, &arr, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclGetViewShape");
    CHECK_STATUS(aclGetViewShape(t, NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewShape(t, &arr, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetStorageShape(NULL, &arr, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetStorageShape(t, NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetStorageShape(t, &arr, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewStrides(NULL, &arr, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewStrides(t, NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewStrides(t, &arr, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewOffset(NULL, &off), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetViewOffset(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetFormat(NULL, &f), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetFormat(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetDataType(NULL, &d), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetDataType(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetRawTensorAddr(NULL, (void **)&arr), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetRawTensorAddr(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclSetRawTensorAddr(NULL, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetIntArraySize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetFloatArraySize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetBoolArraySize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetTensorListSize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_STATUS(aclGetScalarListSize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_OK(aclDestroyTensor(t));
}

static void test_stale_tensor_handles(void)
{
    int64_t s[] = {2, 3};
    aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, NULL);
    CHECK(t != NULL);
    CHECK_OK(aclDestroyTensor(t));
    /* destroying twice: an error, never a crash */
    CHECK_STATUS(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclDestroyTensor");
    /* getters on a destroyed tensor */
    aclDataType d;
    int64_t *arr = NULL;
    uint64_t n = 0;
    CHECK_STATUS(aclGetDataType(t, &d), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclGetViewShape(t, &arr, &n), ACLNN_ERR_PARAM_INVALID);
    CHECK(strlen(errmsg()) > 0);
    /* a pointer that never was a tensor */
    int64_t junk[8] = {0};
    CHECK_STATUS(aclDestroyTensor((const aclTensor *)(void *)junk), ACLNN_ERR_PARAM_INVALID);
}

static void test_destroy_null_ok(void)
{
    CHECK_OK(aclDestroyTensor(NULL));
    CHECK_OK(aclDestroyScalar(NULL));
    CHECK_OK(aclDestroyIntArray(NULL));
    CHECK_OK(aclDestroyFloatArray(NULL));
    CHECK_OK(aclDestroyBoolArray(NULL));
    CHECK_OK(aclDestroyTensorList(NULL));
    CHECK_OK(aclDestroyScalarList(NULL));
}

/* The scalar's value is copied at creation: changing the source later has no effect. */
static void test_scalar_copies_value(void)
{
    float vals[] = {1, 2, 3, 4};
    int64_t shape[] = {4};
    DevTensor x = dev_tensor(vals, ACL_FLOAT, shape, 1);
    DevTensor out = dev_tensor(NULL, ACL_FLOAT, shape, 1);
    float source = 1.5f;
    aclScalar *other = aclCreateScalar(&source, ACL_FLOAT);
    CHECK(other != NULL);
    source = 1000.0f;
    double alpha_src = 2.0;
    aclScalar *alpha = aclCreateScalar(&alpha_src, ACL_DOUBLE);
    CHECK(alpha != NULL);
    alpha_src = -7.0;

    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddsGetWorkspaceSize(x.tensor, other, alpha, out.tensor, &ws, &ex));
    run_phase2(aclnnAdds, ws, ex);
    float got[4];
    dev_read(&out, got);
    for (int i = 0; i < 4; i++) CHECK(near_f32(got[i], vals[i] + 3.0f));

    CHECK_OK(aclDestroyScalar(other));
    CHECK_OK(aclDestroyScalar(alpha));
    dev_free(&x);
    dev_free(&out);
}

static void test_scalar_dtypes(void)
{
    uint64_t raw[2] = {0, 0};
    const aclDataType ok[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_UINT16,
                              ACL_UINT32, ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_BOOL, ACL_COMPLEX64,
                              ACL_COMPLEX128, ACL_BF16};
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        aclScalar *s = aclCreateScalar(raw, ok[i]);
        if (s == NULL) fprintf(stderr, "scalar dtype %d rejected\n", (int)ok[i]);
        CHECK(s != NULL);
        CHECK_OK(aclDestroyScalar(s));
    }
    aclScalar *s = aclCreateScalar(raw, ACL_STRING);
    CHECK(s == NULL);
    CHECK(strlen(errmsg()) > 0);
    CHECK_ERRMSG("aclCreateScalar");
    s = aclCreateScalar(raw, (aclDataType)99);
    CHECK(s == NULL);
    CHECK(strlen(errmsg()) > 0);
    s = aclCreateScalar(NULL, ACL_FLOAT);
    CHECK(s == NULL);
    CHECK(strlen(errmsg()) > 0);

    /* destroying a scalar twice */
    s = scalar_f32(1.0f);
    CHECK_OK(aclDestroyScalar(s));
    CHECK_STATUS(aclDestroyScalar(s), ACLNN_ERR_PARAM_INVALID);
}

static void test_arrays(void)
{
    int64_t iv[] = {1, -2, 3};
    aclIntArray *ia = aclCreateIntArray(iv, 3);
    CHECK(ia != NULL);
    uint64_t n = 0;
    CHECK_OK(aclGetIntArraySize(ia, &n));
    CHECK(n == 3);
    CHECK_STATUS(aclGetIntArraySize(ia, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_OK(aclDestroyIntArray(ia));
    CHECK_STATUS(aclDestroyIntArray(ia), ACLNN_ERR_PARAM_INVALID);

    float fv[] = {0.5f, 1.5f};
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    CHECK(fa != NULL);
    CHECK_OK(aclGetFloatArraySize(fa, &n));
    CHECK(n == 2);
    CHECK_OK(aclDestroyFloatArray(fa));

    bool bv[] = {true, false, true, true};
    aclBoolArray *ba = aclCreateBoolArray(bv, 4);
    CHECK(ba != NULL);
    CHECK_OK(aclGetBoolArraySize(ba, &n));
    CHECK(n == 4);
    CHECK_OK(aclDestroyBoolArray(ba));

    /* size 0 gives an empty array */
    ia = aclCreateIntArray(iv, 0);
    CHECK(ia != NULL);
    n = 99;
    CHECK_OK(aclGetIntArraySize(ia, &n));
    CHECK(n == 0);
    CHECK_OK(aclDestroyIntArray(ia));

    /* a handle of the wrong kind is not accepted */
    ia = aclCreateIntArray(iv, 3);
    CHECK(ia != NULL);
    CHECK_STATUS(aclGetFloatArraySize((const aclFloatArray *)(const void *)ia, &n), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclDestroyTensor((const aclTensor *)(const void *)ia), ACLNN_ERR_PARAM_INVALID);
    CHECK_OK(aclDestroyIntArray(ia));
}

static void test_lists_destroy_elements(void)
{
    int64_t s[] = {2};
    aclTensor *t1 = aclCreateTensor(s, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 1, NULL);
    aclTensor *t2 = aclCreateTensor(s, 1, ACL_INT32, NULL, 0, ACL_FORMAT_ND, s, 1, NULL);
    CHECK(t1 != NULL && t2 != NULL);
    const aclTensor *ts[] = {t1, t2};
    aclTensorList *tl = aclCreateTensorList(ts, 2);
    CHECK(tl != NULL);
    uint64_t n = 0;
    CHECK_OK(aclGetTensorListSize(tl, &n));
    CHECK(n == 2);
    CHECK_OK(aclDestroyTensorList(tl));
    /* the elements were destroyed with the list: they are stale now */
    CHECK_STATUS(aclDestroyTensor(t1), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclDestroyTensor(t2), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclDestroyTensorList(tl), ACLNN_ERR_PARAM_INVALID);

    aclScalar *s1 = scalar_f32(1.0f);
    aclScalar *s2 = scalar_i64(2);
    aclScalar *s3 = scalar_bool(true);
    const aclScalar *ss[] = {s1, s2, s3};
    aclScalarList *sl = aclCreateScalarList(ss, 3);
    CHECK(sl != NULL);
    CHECK_OK(aclGetScalarListSize(sl, &n));
    CHECK(n == 3);
    CHECK_OK(aclDestroyScalarList(sl));
    CHECK_STATUS(aclDestroyScalar(s1), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclDestroyScalar(s2), ACLNN_ERR_PARAM_INVALID);
    CHECK_STATUS(aclDestroyScalar(s3), ACLNN_ERR_PARAM_INVALID);

    /* empty lists */
    tl = aclCreateTensorList(NULL, 0);
    CHECK(tl != NULL);
    CHECK_OK(aclGetTensorListSize(tl, &n));
    CHECK(n == 0);
    CHECK_OK(aclDestroyTensorList(tl));
}

static void test_init_tensor(void)
{
    int64_t s[] = {2, 3};
    float a[6] = {0}, b[12] = {0};
    aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, a);
    CHECK(t != NULL);
    int64_t storage[] = {3, 4};
    int64_t vs[] = {2, 2}, vst[] = {4, 2};
    CHECK_OK(aclInitTensor(t, vs, 2, ACL_INT16, vst, 3, ACL_FORMAT_NC, storage, 2, b));
    check_tensor_meta(t, vs, 2, vst, 3, ACL_INT16, ACL_FORMAT_NC, storage, 2);
    void *addr = NULL;
    CHECK_OK(aclGetRawTensorAddr(t, &addr));
    CHECK(addr == (void *)b);

    /* NULL strides = contiguous */
    int64_t v3[] = {2, 2, 3}, st3[] = {6, 3, 1};
    CHECK_OK(aclInitTensor(t, v3, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, v3, 3, a));
    check_tensor_meta(t, v3, 3, st3, 0, ACL_FLOAT, ACL_FORMAT_ND, v3, 3);

    CHECK_STATUS(aclInitTensor(NULL, s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, a), ACLNN_ERR_PARAM_NULLPTR);
    /* an invalid description (a negative dim) is refused and leaves the tensor usable */
    int64_t s2[] = {4, -4};
    CHECK_FAILS(aclInitTensor(t, s2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, a));
    CHECK(strlen(errmsg()) > 0);
    aclDataType d;
    CHECK_OK(aclGetDataType(t, &d));
    CHECK_OK(aclDestroyTensor(t));
}

static void test_raw_tensor_addr(void)
{
    int64_t s[] = {4};
    float a[4] = {1, 2, 3, 4}, b[4] = {0};
    aclTensor *t = aclCreateTensor(s, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 1, a);
    CHECK(t != NULL);
    void *addr = NULL;
    CHECK_OK(aclGetRawTensorAddr(t, &addr));
    CHECK(addr == (void *)a);
    CHECK_OK(aclSetRawTensorAddr(t, b));
    CHECK_OK(aclGetRawTensorAddr(t, &addr));
    CHECK(addr == (void *)b);
    CHECK_OK(aclSetRawTensorAddr(t, NULL));
    CHECK_OK(aclGetRawTensorAddr(t, &addr));
    CHECK(addr == NULL);
    CHECK_OK(aclDestroyTensor(t));
    CHECK_STATUS(aclSetRawTensorAddr(t, a), ACLNN_ERR_PARAM_INVALID);
}

/* A tensor rebound with aclSetRawTensorAddr computes on the new storage. */
static void test_raw_addr_used_by_op(void)
{
    int64_t s[] = {3};
    float x[] = {1, 2, 3}, y[] = {10, 20, 30};
    DevTensor a = dev_tensor(x, ACL_FLOAT, s, 1);
    DevTensor b = dev_tensor(y, ACL_FLOAT, s, 1);
    DevTensor o = dev_tensor(NULL, ACL_FLOAT, s, 1);
    void *other_dev = NULL;
    float y2[] = {100, 200, 300};
    CHECK_OK(aclrtMalloc(&other_dev, sizeof(y2), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(other_dev, sizeof(y2), y2, sizeof(y2), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclSetRawTensorAddr(b.tensor, other_dev));
    aclScalar *alpha = scalar_f32(1.0f);
    CHECK_OK(add_run(a.tensor, b.tensor, alpha, o.tensor));
    float got[3];
    dev_read(&o, got);
    for (int i = 0; i < 3; i++) CHECK(near_f32(got[i], x[i] + y2[i]));
    CHECK_OK(aclSetRawTensorAddr(b.tensor, b.dev));
    CHECK_OK(aclDestroyScalar(alpha));
    CHECK_OK(aclrtFree(other_dev));
    dev_free(&a);
    dev_free(&b);
    dev_free(&o);
}

int main(void)
{
    device_init();
    RUN_TEST(test_create_contiguous_null_stride);
    RUN_TEST(test_create_every_public_dtype);
    RUN_TEST(test_create_0d);
    RUN_TEST(test_create_empty);
    RUN_TEST(test_seed_views);
    RUN_TEST(test_view_outside_storage);
    RUN_TEST(test_negative_values_rejected);
    RUN_TEST(test_bad_enums_rejected);
    RUN_TEST(test_getters_null_args);
    RUN_TEST(test_stale_tensor_handles);
    RUN_TEST(test_destroy_null_ok);
    RUN_TEST(test_scalar_copies_value);
    RUN_TEST(test_scalar_dtypes);
    RUN_TEST(test_arrays);
    RUN_TEST(test_lists_destroy_elements);
    RUN_TEST(test_init_tensor);
    RUN_TEST(test_raw_tensor_addr);
    RUN_TEST(test_raw_addr_used_by_op);
    device_teardown();
    return capi_finish();
}
