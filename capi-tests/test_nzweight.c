/*
 * aclnn_trans_matmul_weight.h as ggml's CANN back-end uses it: the weight buffer sized with
 * aclnnCalculateMatmulWeightSizeV2, the (n, k) ND weight copied in, converted in place by
 * aclnnTransMatmulWeight, then multiplied by aclnnMm through the transposed (k, n)
 * ACL_FORMAT_FRACTAL_NZ view of the same memory: x @ W^T. Also the NZ bytes themselves
 * (fractals of 16 x 16 f16, zero padding), the size functions' documented examples, and the
 * documented errors. Values are small integers: every product is exact.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"

#include <string.h>

#define H ACL_FLOAT16

static uint16_t f16_of_small(int v) /* |v| <= 2048 */
{
    if (v == 0) return 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((a >> (e + 1)) != 0) e++;
    return (uint16_t)(s | ((e + 15) << 10) | ((a << (10 - e)) & 0x3ff));
}

static int wv(int64_t i) { return (int)((i * 5 + 2) % 7) - 3; }
static int xv(int64_t i) { return (int)((i * 3 + 1) % 5) - 2; }

/* ggml's weight path for an (n, k) f16 weight and an (m, k) activation. */
static void nz_mm_case(int64_t m, int64_t k, int64_t n)
{
    /* Buffer size: the ND bytes or the NZ element count, whichever is larger (as ggml). */
    int64_t shape[] = {n, k};
    aclIntArray *acl_shape = aclCreateIntArray(shape, 2);
    uint64_t nz_elems = 0;
    CHECK_OK(aclnnCalculateMatmulWeightSizeV2(acl_shape, H, &nz_elems));
    CHECK(nz_elems == (uint64_t)(((n + 15) / 16 * 16) * ((k + 15) / 16 * 16)));
    CHECK_OK(aclDestroyIntArray(acl_shape));
    size_t bytes = (size_t)nz_elems * 2;
    void *wdev = NULL;
    CHECK_OK(aclrtMalloc(&wdev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

    uint16_t *w = malloc((size_t)(n * k) * 2);
    for (int64_t i = 0; i < n * k; i++) w[i] = f16_of_small(wv(i));
    CHECK_OK(aclrtMemcpy(wdev, bytes, w, (size_t)(n * k) * 2, ACL_MEMCPY_HOST_TO_DEVICE));

    /* TransMatmulWeight on the ND (n, k) tensor, storage as ggml describes it (n * k). */
    int64_t nd_strides[] = {k, 1}, storage[] = {n * k};
    aclTensor *nd = aclCreateTensor(shape, 2, H, nd_strides, 0, ACL_FORMAT_ND, storage, 1, wdev);
    uint64_t ws_size = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnTransMatmulWeightGetWorkspaceSize(nd, &ws_size, &ex));
    void *ws = NULL;
    if (ws_size > 0) CHECK_OK(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnTransMatmulWeight(ws, ws_size, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    if (ws != NULL) CHECK_OK(aclrtFree(ws));
    CHECK_OK(aclDestroyTensor(nd));

    /* The bytes: element (r, c) of W at ((c / 16) * n16 + r) * 16 + c % 16, zeros elsewhere. */
    uint16_t *nzb = malloc(bytes);
    CHECK_OK(aclrtMemcpy(nzb, bytes, wdev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int64_t n16 = (n + 15) / 16 * 16, bad = 0;
    for (int64_t c1 = 0; c1 < (k + 15) / 16; c1++)
        for (int64_t r = 0; r < n16; r++)
            for (int64_t j = 0; j < 16; j++) {
                int64_t c = c1 * 16 + j;
                uint16_t want = (r < n && c < k) ? w[r * k + c] : 0;
                if (nzb[(c1 * n16 + r) * 16 + j] != want) bad++;
            }
    CHECK(bad == 0);

    /* Mm(x (m, k), the (k, n) FRACTAL_NZ view with strides (1, k)) into out (m, n). */
    int64_t xs[] = {m, k}, os[] = {m, n}, wt_shape[] = {k, n}, wt_strides[] = {1, k}, nz_storage[] = {(int64_t)nz_elems};
    double *x = dbl(m * k), *want = dbl(m * n), *got = dbl(m * n);
    for (int64_t i = 0; i < m * k; i++) x[i] = xv(i);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t q = 0; q < k; q++) acc += x[i * k + q] * wv(j * k + q);
            want[i * n + j] = acc;
        }
    DevTensor X = mk(H, xs, 2, x), O = mk(H, os, 2, NULL);
    aclTensor *wt = aclCreateTensor(wt_shape, 2, H, wt_strides, 0, ACL_FORMAT_FRACTAL_NZ, nz_storage, 1, wdev);
    CHECK(wt != NULL);
    RUN2(aclnnMmGetWorkspaceSize(X.tensor, wt, O.tensor, 1, &ews, &eex), aclnnMm);
    rd(&O, got);
    CHECK_VALS("x @ W^T through the NZ weight", H, got, want, m * n);
    CHECK_OK(aclDestroyTensor(wt));
    dev_free(&X);
    dev_free(&O);
    free(x);
    free(want);
    free(got);
    free(w);
    free(nzb);
    CHECK_OK(aclrtFree(wdev));
}

static void test_ggml_weight_path(void)
{
    nz_mm_case(3, 40, 20);
    nz_mm_case(1, 16, 16);
    nz_mm_case(5, 33, 17);
    nz_mm_case(2, 64, 48);
}

static void test_weight_sizes(void)
{
    int64_t a[] = {510, 510}, b[] = {510, 270}, c[] = {2, 3, 17, 33};
    aclIntArray *sa = aclCreateIntArray(a, 2), *sb = aclCreateIntArray(b, 2), *sc_ = aclCreateIntArray(c, 4);
    uint64_t size = 0;
    CHECK_OK(aclnnCalculateMatmulWeightSize(sa, &size));
    CHECK(size == 262144); /* CANN's example */
    CHECK_OK(aclnnCalculateMatmulWeightSizeV2(sb, ACL_INT8, &size));
    CHECK(size == 147456); /* CANN's example */
    CHECK_OK(aclnnCalculateMatmulWeightSizeV2(sc_, ACL_BF16, &size));
    CHECK(size == 6 * 32 * 48);
    /* errors: NULL (161001), too few dims, a zero dim in V2 (161002); the result untouched */
    size = 7;
    CHECK_STATUS(aclnnCalculateMatmulWeightSize(NULL, &size), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("tensorShape");
    CHECK_STATUS(aclnnCalculateMatmulWeightSizeV2(sa, H, NULL), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("weightTensorSize");
    aclIntArray *one = aclCreateIntArray(a, 1);
    CHECK_STATUS(aclnnCalculateMatmulWeightSizeV2(one, H, &size), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("aclnnCalculateMatmulWeightSizeV2");
    int64_t z[] = {0, 16};
    aclIntArray *zero = aclCreateIntArray(z, 2);
    CHECK_STATUS(aclnnCalculateMatmulWeightSizeV2(zero, H, &size), ACLNN_ERR_PARAM_INVALID);
    CHECK(size == 7);
    CHECK_OK(aclDestroyIntArray(sa));
    CHECK_OK(aclDestroyIntArray(sb));
    CHECK_OK(aclDestroyIntArray(sc_));
    CHECK_OK(aclDestroyIntArray(one));
    CHECK_OK(aclDestroyIntArray(zero));
}

static void test_errors(void)
{
    int64_t s[] = {20, 40}, s1[] = {40};
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_STATUS(aclnnTransMatmulWeightGetWorkspaceSize(NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_ERRMSG("mmWeightRef");
    /* f32 is not a dtype the device converts */
    DevTensor f = mk(ACL_FLOAT, s, 2, NULL);
    CHECK_STATUS(aclnnTransMatmulWeightGetWorkspaceSize(f.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("aclnnTransMatmulWeight");
    dev_free(&f);
    /* one dim */
    DevTensor v = mk(H, s1, 1, NULL);
    CHECK_STATUS(aclnnTransMatmulWeightGetWorkspaceSize(v.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("dims");
    dev_free(&v);
    /* memory for the ND elements only: the padded NZ blocks (32 x 48) do not fit */
    DevTensor t = mk(H, s, 2, NULL);
    CHECK_STATUS(aclnnTransMatmulWeightGetWorkspaceSize(t.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
    CHECK_ERRMSG("FRACTAL_NZ");
    CHECK(ex == NULL);
    dev_free(&t);
}

int main(void)
{
    device_init();
    RUN_TEST(test_ggml_weight_path);
    RUN_TEST(test_weight_sizes);
    RUN_TEST(test_errors);
    device_teardown();
    return capi_finish();
}
