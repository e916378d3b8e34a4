/* Shared helpers for the aclnn-cpu C API tests (see common.h). */
#include "common.h"

#include <math.h>

aclrtStream g_stream = NULL;

static int g_passed = 0;
static const char *g_current_test = "(none)";

/* ---------------------------------------------------------------- checks */

/* aclGetRecentErrMsg obtains *and clears* the message (as CANN documents), while a test
   looks at one failure's message several times: keep the last one fetched until another
   failure on this thread replaces it. */
static _Thread_local char g_errmsg[8192];

const char *errmsg(void)
{
    const char *m = aclGetRecentErrMsg();
    if (m == NULL) return "<NULL>";
    if (m[0] != '\0') snprintf(g_errmsg, sizeof(g_errmsg), "%s", m);
    return g_errmsg;
}

bool errmsg_has(const char *needle)
{
    return strstr(errmsg(), needle) != NULL;
}

bool errmsg_has_shape(const int64_t *dims, size_t n)
{
    const char *m = errmsg();
    /* strip blanks so "[2, 3]" and "[2,3]" compare the same */
    size_t len = strlen(m);
    char *s = (char *)malloc(len + 1);
    if (s == NULL) return false;
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (m[i] != ' ' && m[i] != '\t') s[k++] = m[i];
    s[k] = '\0';

    char body[256];
    size_t pos = 0;
    body[0] = '\0';
    for (size_t i = 0; i < n && pos < sizeof(body) - 32; i++)
        pos += (size_t)snprintf(body + pos, sizeof(body) - pos, "%s%lld", i ? "," : "", (long long)dims[i]);

    char cand[4][300];
    snprintf(cand[0], sizeof(cand[0]), "[%s]", body);
    snprintf(cand[1], sizeof(cand[1]), "(%s)", body);
    snprintf(cand[2], sizeof(cand[2]), "(%s,)", body);
    snprintf(cand[3], sizeof(cand[3]), "[%s,]", body);
    bool found = false;
    for (int c = 0; c < 4 && !found; c++)
        if ((c < 2 || n == 1) && strstr(s, cand[c]) != NULL) found = true;
    free(s);
    return found;
}

CAPI_NORETURN void capi_fail_status(const char *file, int line, const char *expr, long long got, long long expected)
{
    fprintf(stderr, "%s:%d: [%s] FAILED: %s\n    returned %lld, expected %lld\n    aclGetRecentErrMsg: \"%s\"\n",
            file, line, g_current_test, expr, got, expected, errmsg());
    fflush(stderr);
    exit(1);
}

CAPI_NORETURN void capi_fail_cond(const char *file, int line, const char *expr)
{
    fprintf(stderr, "%s:%d: [%s] CHECK FAILED: %s\n    aclGetRecentErrMsg: \"%s\"\n", file, line,
            g_current_test, expr, errmsg());
    fflush(stderr);
    exit(1);
}

CAPI_NORETURN void capi_fail_errmsg(const char *file, int line, const char *needle)
{
    fprintf(stderr, "%s:%d: [%s] ERROR MESSAGE CHECK FAILED: expected it to contain \"%s\"\n"
                    "    aclGetRecentErrMsg: \"%s\"\n",
            file, line, g_current_test, needle, errmsg());
    fflush(stderr);
    exit(1);
}

/* ---------------------------------------------------------------- runner */

void capi_run_test(const char *name, capi_test_fn fn)
{
    g_current_test = name;
    printf("%s ...\n", name);
    fflush(stdout);
    fn();
    printf("%s ok\n", name);
    fflush(stdout);
    g_passed++;
    g_current_test = "(none)";
}

int capi_finish(void)
{
    printf("%d passed, 0 failed\n", g_passed);
    fflush(stdout);
    return 0;
}

/* ---------------------------------------------------------------- device */

void device_init(void)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&g_stream));
}

void device_teardown(void)
{
    CHECK_OK(aclrtDestroyStream(g_stream));
    g_stream = NULL;
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

/* ---------------------------------------------------------------- tensors */

size_t dtype_size(aclDataType dt)
{
    switch ((int)dt) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
        return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64:
        return 8;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 1;
    }
}

int64_t shape_numel(const int64_t *shape, size_t n)
{
    int64_t p = 1;
    for (size_t i = 0; i < n; i++) p *= shape[i];
    return p;
}

void contiguous_strides(const int64_t *shape, size_t n, int64_t *strides)
{
    int64_t s = 1;
    for (size_t i = n; i-- > 0;) {
        strides[i] = s;
        s *= shape[i] > 0 ? shape[i] : 1;
    }
}

static DevTensor dev_alloc(const void *host, aclDataType dt, const int64_t *storage, size_t sndim)
{
    DevTensor t;
    memset(&t, 0, sizeof(t));
    t.dtype = dt;
    t.numel = shape_numel(storage, sndim);
    t.bytes = (size_t)t.numel * dtype_size(dt);
    t.alloc = t.bytes < 32 ? 32 : t.bytes;
    CHECK_OK(aclrtMalloc(&t.dev, t.alloc, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(t.dev != NULL);
    CHECK_OK(aclrtMemset(t.dev, t.alloc, 0, t.alloc));
    if (host != NULL && t.bytes > 0)
        CHECK_OK(aclrtMemcpy(t.dev, t.alloc, host, t.bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return t;
}

DevTensor dev_tensor(const void *host, aclDataType dt, const int64_t *shape, size_t ndim)
{
    DevTensor t = dev_alloc(host, dt, shape, ndim);
    int64_t strides[16];
    CHECK(ndim <= 16);
    contiguous_strides(shape, ndim, strides);
    t.tensor = aclCreateTensor(shape, ndim, dt, ndim ? strides : NULL, 0, ACL_FORMAT_ND, shape, ndim, t.dev);
    CHECK(t.tensor != NULL);
    return t;
}

DevTensor dev_view(const void *host_storage, aclDataType dt, const int64_t *storage, size_t sndim,
                   const int64_t *shape, size_t ndim, const int64_t *strides, int64_t offset)
{
    DevTensor t = dev_alloc(host_storage, dt, storage, sndim);
    t.tensor = aclCreateTensor(shape, ndim, dt, strides, offset, ACL_FORMAT_ND, storage, sndim, t.dev);
    CHECK(t.tensor != NULL);
    return t;
}

void dev_read(const DevTensor *t, void *host)
{
    if (t->bytes == 0) return;
    CHECK_OK(aclrtMemcpy(host, t->bytes, t->dev, t->bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

void dev_write(const DevTensor *t, const void *host)
{
    if (t->bytes == 0) return;
    CHECK_OK(aclrtMemcpy(t->dev, t->alloc, host, t->bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

void dev_fill_bytes(const DevTensor *t, int byte)
{
    CHECK_OK(aclrtMemset(t->dev, t->alloc, byte, t->alloc));
}

void dev_free(DevTensor *t)
{
    if (t->tensor != NULL) CHECK_OK(aclDestroyTensor(t->tensor));
    if (t->dev != NULL) CHECK_OK(aclrtFree(t->dev));
    memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------------- scalars */

aclScalar *scalar_f32(float v)
{
    aclScalar *s = aclCreateScalar(&v, ACL_FLOAT);
    CHECK(s != NULL);
    return s;
}

aclScalar *scalar_f64(double v)
{
    aclScalar *s = aclCreateScalar(&v, ACL_DOUBLE);
    CHECK(s != NULL);
    return s;
}

aclScalar *scalar_i32(int32_t v)
{
    aclScalar *s = aclCreateScalar(&v, ACL_INT32);
    CHECK(s != NULL);
    return s;
}

aclScalar *scalar_i64(int64_t v)
{
    aclScalar *s = aclCreateScalar(&v, ACL_INT64);
    CHECK(s != NULL);
    return s;
}

aclScalar *scalar_bool(bool v)
{
    aclScalar *s = aclCreateScalar(&v, ACL_BOOL);
    CHECK(s != NULL);
    return s;
}

/* ---------------------------------------------------------------- running ops */

void run_phase2(phase2_fn fn, uint64_t workspaceSize, aclOpExecutor *executor)
{
    void *ws = NULL;
    if (workspaceSize > 0) CHECK_OK(aclrtMalloc(&ws, (size_t)workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(fn(ws, workspaceSize, executor, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    if (ws != NULL) CHECK_OK(aclrtFree(ws));
}

aclnnStatus add_run(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out)
{
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &ex);
    if (st != ACLNN_SUCCESS) return st;
    CHECK(ex != NULL);
    run_phase2(aclnnAdd, ws, ex);
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- numbers */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

uint16_t f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t man = x & 0x7FFFFFu;
    if (exp == 0xFF) return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* may carry into the exponent: correct */
    return (uint16_t)(sign | h);
}

float f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1Fu;
    uint32_t man = (uint32_t)h & 0x3FFu;
    if (exp == 0) {
        float v = (float)man * (1.0f / 16777216.0f); /* man * 2^-24 */
        return sign ? -v : v;
    }
    if (exp == 31) return bits_f32(sign | 0x7F800000u | (man << 13));
    return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u);
    uint32_t rounding = 0x7FFFu + ((x >> 16) & 1u);
    return (uint16_t)((x + rounding) >> 16);
}

float bf16_to_f32(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}

bool near_f32(float got, float want)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    float tol = 1e-5f * (fabsf(want) > 1.0f ? fabsf(want) : 1.0f);
    return fabsf(got - want) <= tol;
}

bool near_f64(double got, double want)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    double tol = 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
    return fabs(got - want) <= tol;
}

bool broadcast_shape(const int64_t *as, size_t an, const int64_t *bs, size_t bn, int64_t *out, size_t *on)
{
    size_t n = an > bn ? an : bn;
    for (size_t i = 0; i < n; i++) {
        /* i counts from the right */
        int64_t a = i < an ? as[an - 1 - i] : 1;
        int64_t b = i < bn ? bs[bn - 1 - i] : 1;
        int64_t o;
        if (a == b) o = a;
        else if (a == 1) o = b;
        else if (b == 1) o = a;
        else return false;
        out[n - 1 - i] = o;
    }
    *on = n;
    return true;
}

/* Index into a broadcast operand (contiguous, shape `s` of rank `sn`) for output index `idx`. */
static int64_t bcast_index(const int64_t *idx, size_t on, const int64_t *s, size_t sn)
{
    int64_t lin = 0;
    for (size_t k = 0; k < sn; k++) {
        size_t od = on - sn + k;
        int64_t i = s[k] == 1 ? 0 : idx[od];
        lin = lin * s[k] + i;
    }
    return lin;
}

void ref_add_f32(const float *a, const int64_t *as, size_t an, const float *b, const int64_t *bs, size_t bn,
                 float alpha, float *out, const int64_t *os, size_t on)
{
    int64_t total = shape_numel(os, on);
    int64_t idx[16] = {0};
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t r = lin;
        for (size_t k = on; k-- > 0;) {
            idx[k] = r % os[k];
            r /= os[k];
        }
        float x = a[bcast_index(idx, on, as, an)];
        float y = b[bcast_index(idx, on, bs, bn)];
        float prod = alpha * y;
        out[lin] = x + prod;
    }
}
