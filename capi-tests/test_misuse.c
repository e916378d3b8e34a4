/*
 * Bad-input and misuse classes (README "Bad input and misuse"): each class gets its
 * documented status and a message naming what is wrong, writes no output byte, and leaks
 * nothing (live handles, device bytes and queued tasks are back to where they were).
 *
 *   test_misuse             run every class
 *   test_misuse --markdown  also print the README table (class, status, message seen)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "common.h"

#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sub.h"

#define SENTINEL 0xA5
#define NO_STATUS (-1) /* constructor returned NULL */

static bool g_markdown = false;

/* ------------------------------------------------------------------ harness */

typedef struct {
    uint64_t handles, device_bytes, pending;
} Counts;

static Counts counts_now(void)
{
    Counts c;
    CHECK_OK(aclnnCpuDebugCounts(&c.handles, &c.device_bytes, &c.pending, NULL));
    return c;
}

/* The standard operands: f32 [2,3] self/other, an out filled with SENTINEL, alpha 1. */
typedef struct {
    DevTensor a, b, out;
    aclScalar *alpha;
} Fix;

static Fix fix_make(void)
{
    int64_t s[] = {2, 3};
    float v[6] = {1, 2, 3, 4, 5, 6};
    Fix f;
    f.a = dev_tensor(v, ACL_FLOAT, s, 2);
    f.b = dev_tensor(v, ACL_FLOAT, s, 2);
    f.out = dev_tensor(NULL, ACL_FLOAT, s, 2);
    dev_fill_bytes(&f.out, SENTINEL);
    f.alpha = scalar_f32(1.0f);
    return f;
}

static void check_untouched(const DevTensor *t)
{
    unsigned char buf[64];
    CHECK(t->alloc <= sizeof(buf));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtMemcpy(buf, sizeof(buf), t->dev, t->alloc, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < t->alloc; i++) {
        if (buf[i] != SENTINEL) fprintf(stderr, "output byte %zu was written (0x%02x)\n", i, buf[i]);
        CHECK(buf[i] == SENTINEL);
    }
}

static void fix_free(Fix *f)
{
    check_untouched(&f->out);
    dev_free(&f->a);
    dev_free(&f->b);
    dev_free(&f->out);
    CHECK_OK(aclDestroyScalar(f->alpha));
}

/* What the class observed, checked against what it expects, printed for the README. */
static void expect(const char *file, int line, const char *cls, long long got, long long want, const char *needle)
{
    char msg[400];
    snprintf(msg, sizeof(msg), "%s", errmsg());
    if (got != want) capi_fail_status(file, line, cls, got, want);
    if (needle != NULL && strstr(msg, needle) == NULL) capi_fail_errmsg(file, line, needle);
    if (!g_markdown) return;
    char status[32];
    if (want == NO_STATUS)
        snprintf(status, sizeof(status), "NULL");
    else
        snprintf(status, sizeof(status), "%lld", want);
    /* addresses differ from run to run: show them as 0x… */
    char clean[400];
    size_t j = 0;
    for (size_t i = 0; msg[i] != '\0' && j + 4 < sizeof(clean); i++) {
        if (msg[i] == '0' && msg[i + 1] == 'x') {
            clean[j++] = '0';
            clean[j++] = 'x';
            clean[j++] = '.';
            clean[j++] = '.';
            i += 2;
            while ((msg[i] >= '0' && msg[i] <= '9') || (msg[i] >= 'a' && msg[i] <= 'f')) i++;
            i--;
        } else if (msg[i] == '|') {
            clean[j++] = '/';
        } else {
            clean[j++] = msg[i];
        }
    }
    clean[j] = '\0';
    printf("| %s | %s | %s |\n", cls, status, want == 0 ? "(no error; see the class)" : clean);
}
#define EXPECT(cls, got, want, needle) expect(__FILE__, __LINE__, cls, (long long)(got), (long long)(want), needle)
#define EXPECT_NULL(cls, ptr, needle)                                                            \
    do {                                                                                         \
        void *p_ = (void *)(ptr);                                                                \
        expect(__FILE__, __LINE__, cls, p_ == NULL ? NO_STATUS : 0, NO_STATUS, needle);          \
    } while (0)

/* Runs one class between two leak checks. */
static void run_class(const char *name, void (*fn)(void))
{
    Counts before = counts_now();
    capi_run_test(name, fn);
    CHECK_OK(aclrtSynchronizeDevice());
    Counts after = counts_now();
    if (after.handles != before.handles || after.device_bytes != before.device_bytes || after.pending != 0) {
        fprintf(stderr, "%s leaked: handles %llu -> %llu, device bytes %llu -> %llu, pending %llu\n", name,
                (unsigned long long)before.handles, (unsigned long long)after.handles,
                (unsigned long long)before.device_bytes, (unsigned long long)after.device_bytes,
                (unsigned long long)after.pending);
        CHECK(0);
    }
}
#define RUN_CLASS(fn) run_class(#fn, fn)

static aclnnStatus add1(const Fix *f, const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                        aclTensor *out)
{
    (void)f;
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &ex);
    CHECK(st != 0 || ex != NULL);
    if (st == 0) CHECK_OK(aclDestroyAclOpExecutor(ex));
    return st;
}

/* A tensor of `shape` over `data` (any memory): the host-memory classes. */
static aclTensor *tensor_at(void *data, const int64_t *shape, size_t n, const int64_t *storage, size_t sn)
{
    aclTensor *t = aclCreateTensor(shape, n, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, storage, sn, data);
    CHECK(t != NULL);
    return t;
}

/* ------------------------------------------------------------------ NULL in each position */

static void null_self(void)
{
    Fix f = fix_make();
    EXPECT("NULL tensor argument (self)", add1(&f, NULL, f.b.tensor, f.alpha, f.out.tensor), ACLNN_ERR_PARAM_NULLPTR,
           "argument 'self' is NULL");
    fix_free(&f);
}

static void null_other(void)
{
    Fix f = fix_make();
    EXPECT("NULL tensor argument (other)", add1(&f, f.a.tensor, NULL, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_NULLPTR, "'other'");
    fix_free(&f);
}

static void null_scalar(void)
{
    Fix f = fix_make();
    EXPECT("NULL scalar argument (alpha)", add1(&f, f.a.tensor, f.b.tensor, NULL, f.out.tensor),
           ACLNN_ERR_PARAM_NULLPTR, "'alpha'");
    fix_free(&f);
}

static void null_out(void)
{
    Fix f = fix_make();
    EXPECT("NULL output tensor (out)", add1(&f, f.a.tensor, f.b.tensor, f.alpha, NULL), ACLNN_ERR_PARAM_NULLPTR,
           "'out'");
    fix_free(&f);
}

static void null_workspace_size_ptr(void)
{
    Fix f = fix_make();
    aclOpExecutor *ex = NULL;
    EXPECT("NULL workspaceSize out-parameter",
           aclnnAddGetWorkspaceSize(f.a.tensor, f.b.tensor, f.alpha, f.out.tensor, NULL, &ex),
           ACLNN_ERR_PARAM_NULLPTR, "'workspaceSize'");
    CHECK(ex == NULL);
    fix_free(&f);
}

static void null_executor_ptr(void)
{
    Fix f = fix_make();
    uint64_t ws = 77;
    EXPECT("NULL executor out-parameter",
           aclnnAddGetWorkspaceSize(f.a.tensor, f.b.tensor, f.alpha, f.out.tensor, &ws, NULL),
           ACLNN_ERR_PARAM_NULLPTR, "'executor'");
    CHECK(ws == 77); /* out-parameters are written only on success */
    fix_free(&f);
}

static void null_executor_phase2(void)
{
    EXPECT("NULL executor at phase 2", aclnnAdd(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR, "'executor'");
}

static void null_dims_array(void)
{
    float dummy = 0;
    EXPECT_NULL("NULL viewDims with viewDimsNum > 0",
                aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, &dummy), "viewDims");
}

/* ------------------------------------------------------------------ invalid enums */

static void bad_dtype_enum(void)
{
    int64_t s[] = {2};
    EXPECT_NULL("invalid aclDataType (tensor)",
                aclCreateTensor(s, 1, (aclDataType)999, NULL, 0, ACL_FORMAT_ND, s, 1, NULL), "999");
}

static void bad_format_enum(void)
{
    int64_t s[] = {2};
    EXPECT_NULL("invalid aclFormat", aclCreateTensor(s, 1, ACL_FLOAT, NULL, 0, (aclFormat)1000, s, 1, NULL),
                "1000");
}

static void bad_scalar_dtype(void)
{
    double v = 1;
    EXPECT_NULL("invalid aclDataType (scalar)", aclCreateScalar(&v, (aclDataType)-7), "-7");
}

static void bad_op_enum(void)
{
    Fix f = fix_make();
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT("invalid operator enum argument (DivMod mode 7)",
           aclnnDivModGetWorkspaceSize(f.a.tensor, f.b.tensor, 7, f.out.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
           "mode");
    EXPECT("invalid dtype argument (Cast to 999)",
           aclnnCastGetWorkspaceSize(f.a.tensor, (aclDataType)999, f.out.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
           "999");
    fix_free(&f);
}

static void bad_runtime_enum(void)
{
    char a[8] = {0}, b[8] = {0};
    EXPECT("invalid aclrtMemcpyKind", aclrtMemcpy(a, 8, b, 8, (aclrtMemcpyKind)99), ACL_ERROR_INVALID_PARAM, "99");
}

/* ------------------------------------------------------------------ dims, strides, views */

static void negative_dim(void)
{
    int64_t s[] = {2, -3};
    EXPECT_NULL("negative dim", aclCreateTensor(s, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 2, NULL), "negative");
}

static void negative_stride(void)
{
    int64_t s[] = {2, 3}, st[] = {3, -1};
    EXPECT_NULL("negative stride", aclCreateTensor(s, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, s, 2, NULL), "negative");
}

static void negative_offset(void)
{
    int64_t s[] = {6};
    EXPECT_NULL("negative offset", aclCreateTensor(s, 1, ACL_FLOAT, NULL, -1, ACL_FORMAT_ND, s, 1, NULL),
                "negative");
}

static void overflowing_dims(void)
{
    int64_t s[] = {INT64_MAX / 2, INT64_MAX / 2, 4};
    EXPECT_NULL("dims whose product overflows",
                aclCreateTensor(s, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, s, 3, NULL), "storageDims");
}

static void overflowing_strides(void)
{
    int64_t s[] = {3, 3}, st[] = {INT64_MAX, 1}, storage[] = {9};
    EXPECT_NULL("strides that overflow", aclCreateTensor(s, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, storage, 1, NULL),
                "reaches");
}

/* CANN's aclCreateTensor does not compare a view with its storageDims (ggml sizes the storage of
 * a view with an offset without the offset): the view is created, and what bounds it is the
 * device memory it lies in, at phase 1. */
static void view_outside_storage(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3}, st[] = {3, 1}, storage[] = {6};
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *t = aclCreateTensor(s, 2, ACL_FLOAT, st, 1, ACL_FORMAT_ND, storage, 1, d);
    CHECK(t != NULL);
    EXPECT("view past its storageDims and its allocation", add1(&f, t, f.b.tensor, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_INVALID, "past the end of its aclrtMalloc allocation");
    CHECK_OK(aclDestroyTensor(t));
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtMalloc(&d, 7 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    t = aclCreateTensor(s, 2, ACL_FLOAT, st, 1, ACL_FORMAT_ND, storage, 1, d);
    CHECK(t != NULL);
    CHECK(add1(&f, t, f.b.tensor, f.alpha, f.out.tensor) == ACLNN_SUCCESS);
    CHECK_OK(aclDestroyTensor(t));
    CHECK_OK(aclrtFree(d));
    fix_free(&f);
}

static void rank_over_8(void)
{
    Fix f = fix_make();
    int64_t s[9] = {1, 1, 1, 1, 1, 1, 1, 2, 3};
    DevTensor big = dev_tensor(NULL, ACL_FLOAT, s, 9);
    EXPECT("rank > 8", add1(&f, big.tensor, f.b.tensor, f.alpha, f.out.tensor), ACLNN_ERR_PARAM_INVALID, "9");
    dev_free(&big);
    fix_free(&f);
}

/* aclnnAdd of the standard operands into `o` (filled with SENTINEL) must be refused; frees `o`. */
static void add_refused_into(const char *file, int line, const char *cls, DevTensor o, const char *needle)
{
    Fix f = fix_make();
    dev_fill_bytes(&o, SENTINEL);
    expect(file, line, cls, add1(&f, f.a.tensor, f.b.tensor, f.alpha, o.tensor), ACLNN_ERR_PARAM_INVALID, needle);
    check_untouched(&o);
    dev_free(&o);
    fix_free(&f);
}

static void wrong_out_shape(void)
{
    int64_t s[] = {3, 2};
    add_refused_into(__FILE__, __LINE__, "wrong out shape", dev_tensor(NULL, ACL_FLOAT, s, 2), "out");
}

static void refused_cast(void)
{
    int64_t s[] = {2, 3};
    add_refused_into(__FILE__, __LINE__, "refused cast to out (f32 result into s32 out)",
                     dev_tensor(NULL, ACL_INT32, s, 2), "out");
}

static void refused_promotion(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    DevTensor a = dev_tensor(NULL, ACL_BOOL, s, 2), b = dev_tensor(NULL, ACL_BOOL, s, 2);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    /* bool - bool is computed (a logical xor), but only with an integer or bool alpha */
    EXPECT("refused dtype combination (bool - bool with a float alpha)",
           aclnnSubGetWorkspaceSize(a.tensor, b.tensor, f.alpha, f.out.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
           "alpha");
    dev_free(&a);
    dev_free(&b);
    fix_free(&f);
}

static void unsupported_dtype(void)
{
    int64_t s[] = {2, 3};
    DevTensor a = dev_tensor(NULL, ACL_INT32, s, 2), o = dev_tensor(NULL, ACL_INT32, s, 2);
    dev_fill_bytes(&o, SENTINEL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT("dtype the operator does not support (Sigmoid of s32)",
           aclnnSigmoidGetWorkspaceSize(a.tensor, o.tensor, &ws, &ex), ACLNN_ERR_PARAM_INVALID, "self");
    check_untouched(&o);
    dev_free(&a);
    dev_free(&o);
}

static void unsupported_format(void)
{
    Fix f = fix_make();
    int64_t s[] = {1, 1, 2, 3, 16};
    DevTensor a = dev_tensor(NULL, ACL_FLOAT, s, 5);
    CHECK_OK(aclDestroyTensor(a.tensor));
    a.tensor = aclCreateTensor(s, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_NC1HWC0, s, 5, a.dev);
    CHECK(a.tensor != NULL);
    EXPECT("private device format (NC1HWC0)", add1(&f, a.tensor, f.b.tensor, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_INVALID, "format");
    dev_free(&a);
    fix_free(&f);
}

static void overlapping_out(void)
{
    int64_t s[] = {2, 3}, st[] = {0, 1}, storage[] = {3};
    add_refused_into(__FILE__, __LINE__, "output that overlaps itself (stride 0)",
                     dev_view(NULL, ACL_FLOAT, storage, 1, s, 2, st, 0), "overlap");
}

/* ------------------------------------------------------------------ memory */

static void host_malloc_tensor(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    float *h = (float *)calloc(6, sizeof(float));
    aclTensor *t = tensor_at(h, s, 2, s, 2);
    EXPECT("tensor data in malloc memory", add1(&f, t, f.b.tensor, f.alpha, f.out.tensor), ACLNN_ERR_PARAM_INVALID,
           "is host memory; device tensors must be allocated with aclrtMalloc");
    CHECK_OK(aclDestroyTensor(t));
    free(h);
    fix_free(&f);
}

static void host_stack_tensor(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    float h[6] = {0};
    aclTensor *t = tensor_at(h, s, 2, s, 2);
    EXPECT("tensor data on the stack", add1(&f, f.a.tensor, t, f.alpha, f.out.tensor), ACLNN_ERR_PARAM_INVALID,
           "tensor 'other' data 0x");
    CHECK_OK(aclDestroyTensor(t));
    fix_free(&f);
}

static void host_pinned_tensor(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    void *h = NULL;
    CHECK_OK(aclrtMallocHost(&h, 64));
    memset(h, SENTINEL, 64);
    aclTensor *t = tensor_at(h, s, 2, s, 2);
    EXPECT("output in aclrtMallocHost memory", add1(&f, f.a.tensor, f.b.tensor, f.alpha, t), ACLNN_ERR_PARAM_INVALID,
           "aclrtMallocHost");
    for (int i = 0; i < 64; i++) CHECK(((unsigned char *)h)[i] == SENTINEL);
    CHECK_OK(aclDestroyTensor(t));
    CHECK_OK(aclrtFreeHost(h));
    fix_free(&f);
}

static void view_past_allocation(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 16, ACL_MEM_MALLOC_HUGE_FIRST)); /* 4 floats: the view needs 6 */
    aclTensor *t = tensor_at(d, s, 2, s, 2);
    EXPECT("view reaching past its aclrtMalloc allocation", add1(&f, t, f.b.tensor, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_INVALID, "past the end of its aclrtMalloc allocation");
    CHECK_OK(aclDestroyTensor(t));
    CHECK_OK(aclrtFree(d));
    fix_free(&f);
}

static void freed_tensor_memory(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 24, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *t = tensor_at(d, s, 2, s, 2);
    CHECK_OK(aclrtFree(d));
    EXPECT("tensor over device memory already freed", add1(&f, t, f.b.tensor, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_INVALID, "already freed");
    CHECK_OK(aclDestroyTensor(t));
    fix_free(&f);
}

/* A phase 1 that needs a workspace: f32 + f16 into f16 converts operands in the workspace. */
static aclOpExecutor *ws_phase1(Fix *f, DevTensor *half, uint64_t *ws)
{
    int64_t s[] = {2, 3};
    *half = dev_tensor(NULL, ACL_FLOAT16, s, 2);
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(f->a.tensor, half->tensor, f->alpha, f->out.tensor, ws, &ex));
    CHECK(*ws > 0);
    return ex;
}

/* After a refused phase 2 the one-shot executor is still there: destroy it. */
static void drop_executor(aclOpExecutor *ex)
{
    CHECK_OK(aclDestroyAclOpExecutor(ex));
}

/*
 * Phase 2 of an Add that needs a workspace, given `w + shift` and `ws + delta` bytes, where w
 * holds exactly the ws bytes phase 1 asked for (aclrtMalloc'd, or malloc'd with `host`): it
 * must be refused; the executor is then destroyed.
 */
static void workspace_refused(const char *file, int line, const char *cls, bool host, size_t shift, int64_t delta,
                              const char *needle)
{
    Fix f = fix_make();
    DevTensor h;
    uint64_t ws = 0;
    aclOpExecutor *ex = ws_phase1(&f, &h, &ws);
    void *w = NULL;
    if (host)
        w = malloc((size_t)ws);
    else
        CHECK_OK(aclrtMalloc(&w, (size_t)ws, ACL_MEM_MALLOC_HUGE_FIRST));
    expect(file, line, cls, aclnnAdd((char *)w + shift, (uint64_t)((int64_t)ws + delta), ex, g_stream),
           ACLNN_ERR_PARAM_INVALID, needle);
    drop_executor(ex);
    if (host)
        free(w);
    else
        CHECK_OK(aclrtFree(w));
    dev_free(&h);
    fix_free(&f);
}

static void workspace_too_small(void)
{
    workspace_refused(__FILE__, __LINE__, "workspaceSize smaller than phase 1 asked", false, 0, -1, "smaller");
}

static void workspace_past_allocation(void)
{
    workspace_refused(__FILE__, __LINE__, "workspace larger than its allocation", false, 8, 0,
                      "past the end of its aclrtMalloc allocation");
}

static void workspace_host(void)
{
    workspace_refused(__FILE__, __LINE__, "workspace in host memory", true, 0, 0,
                      "device workspaces must be allocated with aclrtMalloc");
}

static void workspace_is_a_tensor(void)
{
    /* The workspace is the memory of an operand (clients' pools hand such memory over where the
       device would need no workspace): under ACLNN_CPU_STRICT=1 it is refused; by default a
       warning, and the work runs on scratch of its own, leaving the operand intact. */
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    void *buf = NULL;
    CHECK_OK(aclrtMalloc(&buf, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor *half = aclCreateTensor(s, 2, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND, s, 2, buf);
    CHECK(half != NULL);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnAddGetWorkspaceSize(f.a.tensor, half, f.alpha, f.out.tensor, &ws, &ex));
    if (!(ws > 0 && ws < 65536)) fprintf(stderr, "workspace size %llu\n", (unsigned long long)ws);
    CHECK(ws > 0 && ws < 65536);
    setenv("ACLNN_CPU_STRICT", "1", 1);
    aclnnStatus strict = aclnnAdd(buf, ws, ex, g_stream);
    unsetenv("ACLNN_CPU_STRICT");
    EXPECT("workspace overlapping a tensor's data (ACLNN_CPU_STRICT=1)", strict, ACLNN_ERR_PARAM_INVALID,
           "the workspace must be memory of its own");
    unsigned char before[12], after[12];
    CHECK_OK(aclrtMemcpy(before, 12, buf, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclnnAdd(buf, ws, ex, g_stream)); /* consumes the one-shot executor */
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    CHECK_OK(aclrtMemcpy(after, 12, buf, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(before, after, 12) == 0);
    dev_fill_bytes(&f.out, SENTINEL); /* the Add ran: out was written, as it should be */
    CHECK_OK(aclDestroyTensor(half));
    CHECK_OK(aclrtFree(buf));
    fix_free(&f);
}

static void workspace_null(void)
{
    Fix f = fix_make();
    DevTensor h;
    uint64_t ws = 0;
    aclOpExecutor *ex = ws_phase1(&f, &h, &ws);
    EXPECT("NULL workspace with workspaceSize > 0", aclnnAdd(NULL, ws, ex, g_stream), ACLNN_ERR_PARAM_NULLPTR,
           "'workspace'");
    /* this refusal frees the one-shot executor: destroying it again is refused */
    CHECK_FAILS(aclDestroyAclOpExecutor(ex));
    dev_free(&h);
    fix_free(&f);
}

/* ------------------------------------------------------------------ handles and executors */

static aclOpExecutor *good_phase1(Fix *f, uint64_t *ws)
{
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnMulGetWorkspaceSize(f->a.tensor, f->b.tensor, f->out.tensor, ws, &ex));
    return ex;
}

static void executor_twice(void)
{
    Fix f = fix_make();
    uint64_t ws = 0;
    aclOpExecutor *ex = good_phase1(&f, &ws);
    CHECK(ws == 0);
    CHECK_OK(aclnnMul(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    dev_fill_bytes(&f.out, SENTINEL);
    EXPECT("one-shot executor run twice", aclnnMul(NULL, 0, ex, g_stream), ACLNN_ERR_PARAM_INVALID,
           "not a live aclOpExecutor");
    fix_free(&f);
}

static void executor_destroyed_twice(void)
{
    Fix f = fix_make();
    uint64_t ws = 0;
    aclOpExecutor *ex = good_phase1(&f, &ws);
    CHECK_OK(aclDestroyAclOpExecutor(ex));
    EXPECT("executor destroyed twice", aclDestroyAclOpExecutor(ex), ACLNN_ERR_INNER, "executor");
    EXPECT("destroyed executor run", aclnnMul(NULL, 0, ex, g_stream), ACLNN_ERR_PARAM_INVALID, "executor");
    fix_free(&f);
}

static void executor_other_op(void)
{
    Fix f = fix_make();
    uint64_t ws = 0;
    aclOpExecutor *ex = good_phase1(&f, &ws);
    EXPECT("executor of another operator", aclnnAdd(NULL, 0, ex, g_stream), ACLNN_ERR_PARAM_INVALID,
           "aclnnMulGetWorkspaceSize");
    drop_executor(ex);
    fix_free(&f);
}

static void tensor_after_destroy(void)
{
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    DevTensor t = dev_tensor(NULL, ACL_FLOAT, s, 2);
    aclTensor *stale = t.tensor;
    CHECK_OK(aclDestroyTensor(stale));
    t.tensor = NULL;
    EXPECT("tensor used after aclDestroyTensor", add1(&f, stale, f.b.tensor, f.alpha, f.out.tensor),
           ACLNN_ERR_PARAM_INVALID, "not a live aclTensor");
    EXPECT("tensor destroyed twice", aclDestroyTensor(stale), ACLNN_ERR_PARAM_INVALID, "not a live aclTensor");
    dev_free(&t);
    fix_free(&f);
}

static void wrong_handle_kind(void)
{
    Fix f = fix_make();
    EXPECT("handle of the wrong kind (scalar as tensor)",
           add1(&f, (const aclTensor *)f.alpha, f.b.tensor, f.alpha, f.out.tensor), ACLNN_ERR_PARAM_INVALID,
           "not a live aclTensor");
    fix_free(&f);
}

static void destroyed_stream(void)
{
    Fix f = fix_make();
    uint64_t ws = 0;
    aclOpExecutor *ex = good_phase1(&f, &ws);
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtDestroyStream(s));
    EXPECT("destroyed stream at phase 2", aclnnMul(NULL, 0, ex, s), ACLNN_ERR_RUNTIME_ERROR, "not a live aclrtStream");
    drop_executor(ex);
    fix_free(&f);
}

/* ------------------------------------------------------------------ runtime misuse */

static void memcpy_past_allocation(void)
{
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    char h[64] = {0};
    EXPECT("copy running past its allocation", aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE),
           ACL_ERROR_INVALID_PARAM, "past the end of its allocation");
    CHECK_OK(aclrtFree(d));
}

/* Queues work writing `out` behind a long memset, so that it is still pending. */
static void queue_slow_write(Fix *f, void *big, size_t big_bytes)
{
    CHECK_OK(aclrtMemsetAsync(big, big_bytes, 1, big_bytes, g_stream));
    uint64_t ws = 0;
    aclOpExecutor *ex = good_phase1(f, &ws);
    CHECK_OK(aclnnMul(NULL, 0, ex, g_stream));
}

static void stale_read(void)
{
    const size_t big_bytes = (size_t)64 << 20;
    void *big = NULL;
    CHECK_OK(aclrtMalloc(&big, big_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    Fix f = fix_make();
    unsigned char host[24];
    bool warned = false, refused = false;
    for (int attempt = 0; attempt < 5 && !(warned && refused); attempt++) {
        /* default: a warning on stderr, and the copy happens */
        uint64_t w0 = 0, w1 = 0;
        CHECK_OK(aclnnCpuDebugCounts(NULL, NULL, NULL, &w0));
        queue_slow_write(&f, big, big_bytes);
        CHECK_OK(aclrtMemcpy(host, sizeof(host), f.out.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK_OK(aclnnCpuDebugCounts(NULL, NULL, NULL, &w1));
        warned = warned || w1 > w0;
        CHECK_OK(aclrtSynchronizeStream(g_stream));
        /* strict: an error, and nothing is copied */
        setenv("ACLNN_CPU_STRICT", "1", 1);
        queue_slow_write(&f, big, big_bytes);
        memset(host, SENTINEL, sizeof(host));
        aclError e = aclrtMemcpy(host, sizeof(host), f.out.dev, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST);
        unsetenv("ACLNN_CPU_STRICT");
        if (e != 0) {
            EXPECT("aclrtMemcpy reading memory queued work still writes (ACLNN_CPU_STRICT=1)", e,
                   ACL_ERROR_INVALID_PARAM, "stale data");
            for (size_t i = 0; i < sizeof(host); i++) CHECK(host[i] == SENTINEL);
            refused = true;
        }
        CHECK_OK(aclrtSynchronizeStream(g_stream));
    }
    CHECK(warned);
    CHECK(refused);
    dev_fill_bytes(&f.out, SENTINEL);
    fix_free(&f);
    CHECK_OK(aclrtFree(big));
}

static void free_while_queued(void)
{
    /* aclrtFree of memory queued work still uses waits for that work */
    const size_t big_bytes = (size_t)64 << 20;
    void *big = NULL;
    CHECK_OK(aclrtMalloc(&big, big_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    DevTensor o = dev_tensor(NULL, ACL_FLOAT, s, 2);
    CHECK_OK(aclrtMemsetAsync(big, big_bytes, 1, big_bytes, g_stream));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_OK(aclnnMulGetWorkspaceSize(f.a.tensor, f.b.tensor, o.tensor, &ws, &ex));
    CHECK_OK(aclnnMul(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtFree(big));   /* waits for the memset */
    CHECK_OK(aclDestroyTensor(o.tensor));
    o.tensor = NULL;
    EXPECT("aclrtFree of memory queued work still uses (waits for it)", aclrtFree(o.dev), 0, NULL);
    o.dev = NULL;
    uint64_t pending = 1;
    CHECK_OK(aclnnCpuDebugCounts(NULL, NULL, &pending, NULL));
    CHECK(pending == 0); /* the Mul had run before its output was freed */
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    fix_free(&f);
}

static void allow_host_env(void)
{
    /* ACLNN_CPU_ALLOW_HOST_MEMORY=1: host memory is accepted and computed on */
    Fix f = fix_make();
    int64_t s[] = {2, 3};
    float *h = (float *)malloc(6 * sizeof(float));
    for (int i = 0; i < 6; i++) h[i] = (float)i;
    aclTensor *t = tensor_at(h, s, 2, s, 2);
    setenv("ACLNN_CPU_ALLOW_HOST_MEMORY", "1", 1);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnAddGetWorkspaceSize(f.a.tensor, f.b.tensor, f.alpha, t, &ws, &ex);
    EXPECT("host memory with ACLNN_CPU_ALLOW_HOST_MEMORY=1 (accepted)", st, 0, NULL);
    CHECK_OK(aclnnAdd(NULL, 0, ex, g_stream));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    unsetenv("ACLNN_CPU_ALLOW_HOST_MEMORY");
    for (int i = 0; i < 6; i++) CHECK(h[i] == 2.0f * (float)(i + 1));
    CHECK_OK(aclDestroyTensor(t));
    free(h);
    fix_free(&f);
}

int main(int argc, char **argv)
{
    g_markdown = argc > 1 && strcmp(argv[1], "--markdown") == 0;
    device_init();
    if (g_markdown) printf("| class | status | message (aclGetRecentErrMsg) |\n|---|---|---|\n");
    RUN_CLASS(null_self);
    RUN_CLASS(null_other);
    RUN_CLASS(null_scalar);
    RUN_CLASS(null_out);
    RUN_CLASS(null_workspace_size_ptr);
    RUN_CLASS(null_executor_ptr);
    RUN_CLASS(null_executor_phase2);
    RUN_CLASS(null_dims_array);
    RUN_CLASS(bad_dtype_enum);
    RUN_CLASS(bad_format_enum);
    RUN_CLASS(bad_scalar_dtype);
    RUN_CLASS(bad_op_enum);
    RUN_CLASS(bad_runtime_enum);
    RUN_CLASS(negative_dim);
    RUN_CLASS(negative_stride);
    RUN_CLASS(negative_offset);
    RUN_CLASS(overflowing_dims);
    RUN_CLASS(overflowing_strides);
    RUN_CLASS(view_outside_storage);
    RUN_CLASS(rank_over_8);
    RUN_CLASS(wrong_out_shape);
    RUN_CLASS(refused_cast);
    RUN_CLASS(refused_promotion);
    RUN_CLASS(unsupported_dtype);
    RUN_CLASS(unsupported_format);
    RUN_CLASS(overlapping_out);
    RUN_CLASS(host_malloc_tensor);
    RUN_CLASS(host_stack_tensor);
    RUN_CLASS(host_pinned_tensor);
    RUN_CLASS(view_past_allocation);
    RUN_CLASS(freed_tensor_memory);
    RUN_CLASS(workspace_too_small);
    RUN_CLASS(workspace_past_allocation);
    RUN_CLASS(workspace_host);
    RUN_CLASS(workspace_is_a_tensor);
    RUN_CLASS(workspace_null);
    RUN_CLASS(executor_twice);
    RUN_CLASS(executor_destroyed_twice);
    RUN_CLASS(executor_other_op);
    RUN_CLASS(tensor_after_destroy);
    RUN_CLASS(wrong_handle_kind);
    RUN_CLASS(destroyed_stream);
    RUN_CLASS(memcpy_past_allocation);
    RUN_CLASS(stale_read);
    RUN_CLASS(free_while_queued);
    RUN_CLASS(allow_host_env);
    device_teardown();
    return capi_finish();
}
