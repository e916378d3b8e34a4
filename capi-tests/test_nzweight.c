/*
 * aclnn_trans_matmul_weight.h as ggml's CANN back-end uses it: the weight buffer sized with
 * aclnnCalculateMatmulWeightSizeV2, the (n, k) ND weight copied in, converted in place by
 * aclnnTransMatmulWeight, then multiplied by aclnnMm through the transposed (k, n)
 * ACL_FORMAT_FRACTAL_NZ view of the same memory: x @ W^T. Also the NZ bytes themselves
 * (fractals of 16 x 16 f16, zero padding), the size functions' documented examples, and the
 * documented errors. Values are small integers: every product is exact.
 *
 * Then CANN's own sample shape for the *WeightNz matmuls: a (batch..., k, n) ND weight
 * tensor converted by aclnnTransMatmulWeight, which makes that tensor itself FRACTAL_NZ
 * (storage (batch..., n1, k1, 16, 16)), passed as it is to aclnnMatmulWeightNz,
 * aclnnAddmmWeightNz and aclnnBatchMatMulWeightNz.
 */
#include "ops_common.h"

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
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

/* A (batch, k, n) f16 weight (batch 0: 2-D) in a buffer sized by
 * aclnnCalculateMatmulWeightSize, converted in place; the tensor handle is returned NZ. */
static aclTensor *converted_weight(int64_t batch, int64_t k, int64_t n, void **dev)
{
    int64_t shape[3] = {batch, k, n}, *sh = batch > 0 ? shape : shape + 1;
    uint64_t rank = batch > 0 ? 3 : 2, b = batch > 0 ? (uint64_t)batch : 1;
    aclIntArray *acl_shape = aclCreateIntArray(sh, rank);
    uint64_t elems = 0;
    CHECK_OK(aclnnCalculateMatmulWeightSize(acl_shape, &elems));
    CHECK_OK(aclDestroyIntArray(acl_shape));
    CHECK_OK(aclrtMalloc(dev, elems * 2, ACL_MEM_MALLOC_HUGE_FIRST));
    uint16_t *w = malloc((size_t)(b * k * n) * 2);
    for (int64_t i = 0; i < (int64_t)b * k * n; i++) w[i] = f16_of_small(wv(i));
    CHECK_OK(aclrtMemcpy(*dev, elems * 2, w, (size_t)(b * k * n) * 2, ACL_MEMCPY_HOST_TO_DEVICE));
    free(w);
    int64_t strides[3] = {k * n, n, 1}, storage[] = {(int64_t)b * k * n};
    aclTensor *t = aclCreateTensor(sh, rank, H, strides + (3 - rank), 0, ACL_FORMAT_ND, storage, 1, *dev);
    uint64_t ws_size = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnTransMatmulWeightGetWorkspaceSize(t, &ws_size, &ex));
    /* The tensor is FRACTAL_NZ from phase 1 on, stored (batch..., n1, k1, k0, n0). */
    aclFormat f = ACL_FORMAT_ND;
    CHECK_OK(aclGetFormat(t, &f));
    CHECK(f == ACL_FORMAT_FRACTAL_NZ);
    int64_t *dims = NULL;
    uint64_t nd = 0;
    CHECK_OK(aclGetStorageShape(t, &dims, &nd));
    CHECK(nd == rank + 2);
    if (nd == rank + 2) {
        int64_t *d = dims + (rank - 2);
        CHECK(d[0] == (n + 15) / 16 && d[1] == (k + 15) / 16 && d[2] == 16 && d[3] == 16);
        if (batch > 0) CHECK(dims[0] == batch);
    }
    free(dims);
    void *ws = NULL;
    if (ws_size > 0) CHECK_OK(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclnnTransMatmulWeight(ws, ws_size, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    if (ws != NULL) CHECK_OK(aclrtFree(ws));
    return t;
}

/* want[b][i][j] = alpha * sum_q x[b][i][q] * w[b][q][j] + (bias ? bias[j] : 0) */
static void reference(int64_t batch, int64_t m, int64_t k, int64_t n, double alpha, const double *bias,
                      const double *x, double *want)
{
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t q = 0; q < k; q++) acc += x[(b * m + i) * k + q] * wv((b * k + q) * n + j);
                want[(b * m + i) * n + j] = alpha * acc + (bias != NULL ? bias[j] : 0);
            }
}

static void weight_nz_case(int64_t m, int64_t k, int64_t n)
{
    void *wdev = NULL;
    aclTensor *w = converted_weight(0, k, n, &wdev);
    int64_t xs[] = {m, k}, os[] = {m, n}, bs[] = {n};
    double *x = dbl(m * k), *want = dbl(m * n), *got = dbl(m * n), *bias = dbl(n);
    for (int64_t i = 0; i < m * k; i++) x[i] = xv(i);
    for (int64_t j = 0; j < n; j++) bias[j] = (double)(j % 5) - 2;
    DevTensor X = mk(H, xs, 2, x), O = mk(H, os, 2, NULL), B = mk(H, bs, 1, bias);

    reference(1, m, k, n, 1, NULL, x, want);
    RUN2(aclnnMatmulWeightNzGetWorkspaceSize(X.tensor, w, O.tensor, 1, &ews, &eex), aclnnMatmulWeightNz);
    rd(&O, got);
    CHECK_VALS("MatmulWeightNz", H, got, want, m * n);

    /* out = 1 * bias + 2 * (x @ W) */
    reference(1, m, k, n, 2, bias, x, want);
    aclScalar *beta = sc(ACL_FLOAT, 1), *alpha = sc(ACL_FLOAT, 2);
    RUN2(aclnnAddmmWeightNzGetWorkspaceSize(B.tensor, X.tensor, w, beta, alpha, O.tensor, 1, &ews, &eex),
         aclnnAddmmWeightNz);
    rd(&O, got);
    CHECK_VALS("AddmmWeightNz", H, got, want, m * n);
    CHECK_OK(aclDestroyScalar(beta));
    CHECK_OK(aclDestroyScalar(alpha));

    CHECK_OK(aclDestroyTensor(w));
    CHECK_OK(aclrtFree(wdev));
    dev_free(&X);
    dev_free(&O);
    dev_free(&B);
    free(x);
    free(want);
    free(got);
    free(bias);
}

static void test_weight_nz_entries(void)
{
    weight_nz_case(16, 32, 16); /* CANN's sample shape */
    weight_nz_case(3, 40, 20);
    weight_nz_case(1, 33, 17);

    /* BatchMatMulWeightNz: (2, m, k) @ the converted (2, k, n) weight */
    int64_t batch = 2, m = 3, k = 24, n = 18;
    void *wdev = NULL;
    aclTensor *w = converted_weight(batch, k, n, &wdev);
    int64_t xs[] = {batch, m, k}, os[] = {batch, m, n};
    double *x = dbl(batch * m * k), *want = dbl(batch * m * n), *got = dbl(batch * m * n);
    for (int64_t i = 0; i < batch * m * k; i++) x[i] = xv(i);
    reference(batch, m, k, n, 1, NULL, x, want);
    DevTensor X = mk(H, xs, 3, x), O = mk(H, os, 3, NULL);
    RUN2(aclnnBatchMatMulWeightNzGetWorkspaceSize(X.tensor, w, O.tensor, 1, &ews, &eex), aclnnBatchMatMulWeightNz);
    rd(&O, got);
    CHECK_VALS("BatchMatMulWeightNz", H, got, want, batch * m * n);

    /* Errors: an ND mat2; a 3-D self for MatmulWeightNz; f16 with bf16; k mismatch. */
    int64_t ws2[] = {k, n}, xs2[] = {m, k}, xs3[] = {m, k + 1}, os2[] = {m, n};
    DevTensor W2 = mk(H, ws2, 2, NULL), X2 = mk(H, xs2, 2, NULL), X3 = mk(H, xs3, 2, NULL),
              XB = mk(ACL_BF16, xs2, 2, NULL), O2 = mk(H, os2, 2, NULL);
    EXPECT_ERR(aclnnMatmulWeightNzGetWorkspaceSize(X2.tensor, W2.tensor, O2.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMatmulWeightNz", "FRACTAL_NZ", &O2);
    EXPECT_ERR(aclnnMatmulWeightNzGetWorkspaceSize(X.tensor, w, O.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnMatmulWeightNz", "2-D", &O);
    EXPECT_ERR(aclnnBatchMatMulWeightNzGetWorkspaceSize(XB.tensor, w, O.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulWeightNz", "ACL_BF16", &O);
    EXPECT_ERR(aclnnBatchMatMulWeightNzGetWorkspaceSize(X3.tensor, w, O.tensor, 1, &ews, &eex),
               ACLNN_ERR_PARAM_INVALID, "aclnnBatchMatMulWeightNz", "3-D", &O);
    CHECK_OK(aclDestroyTensor(w));
    CHECK_OK(aclrtFree(wdev));
    dev_free(&X);
    dev_free(&O);
    dev_free(&W2);
    dev_free(&X2);
    dev_free(&X3);
    dev_free(&XB);
    dev_free(&O2);
    free(x);
    free(want);
    free(got);
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
    RUN_TEST(test_weight_nz_entries);
    RUN_TEST(test_weight_sizes);
    RUN_TEST(test_errors);
    device_teardown();
    return capi_finish();
}
