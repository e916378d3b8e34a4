/*
 * Shared helpers for the aclnn-cpu C API tests.
 *
 * Every test program is a set of `static void test_x(void)` functions run from main()
 * through RUN_TEST. A failed check prints where it failed, the call text, the status and
 * the library's recent error message, then exits 1, so one broken case stops its own
 * executable and nothing else (ctest runs one executable per topic).
 */
#ifndef ACLNN_CPU_CAPI_TESTS_COMMON_H
#define ACLNN_CPU_CAPI_TESTS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

/* The status codes come from the generated headers (aclnn/opdev/op_errno.h is included by
   aclnn/acl_meta.h; the runtime codes are in acl/acl_base.h). */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- checks */

#ifdef __cplusplus
#define CAPI_NORETURN [[noreturn]]
#else
#define CAPI_NORETURN _Noreturn
#endif
CAPI_NORETURN void capi_fail_status(const char *file, int line, const char *expr, long long got, long long expected);
CAPI_NORETURN void capi_fail_cond(const char *file, int line, const char *expr);
CAPI_NORETURN void capi_fail_errmsg(const char *file, int line, const char *needle);

/* `call` must return 0 (ACLNN_SUCCESS / ACL_SUCCESS). */
#define CHECK_OK(call)                                                         \
    do {                                                                       \
        long long capi_st_ = (long long)(call);                                \
        if (capi_st_ != 0) capi_fail_status(__FILE__, __LINE__, #call, capi_st_, 0); \
    } while (0)

/* `call` must return exactly `expected`. */
#define CHECK_STATUS(call, expected)                                           \
    do {                                                                       \
        long long capi_st_ = (long long)(call);                                \
        long long capi_ex_ = (long long)(expected);                            \
        if (capi_st_ != capi_ex_)                                              \
            capi_fail_status(__FILE__, __LINE__, #call, capi_st_, capi_ex_);   \
    } while (0)

/* `call` must fail (any non-zero status) without crashing. */
#define CHECK_FAILS(call)                                                      \
    do {                                                                       \
        long long capi_st_ = (long long)(call);                                \
        if (capi_st_ == 0) capi_fail_cond(__FILE__, __LINE__, "(" #call ") != 0"); \
    } while (0)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) capi_fail_cond(__FILE__, __LINE__, #cond);                \
    } while (0)

/* The thread's recent error message must contain `needle`. */
#define CHECK_ERRMSG(needle)                                                   \
    do {                                                                       \
        if (!errmsg_has(needle)) capi_fail_errmsg(__FILE__, __LINE__, needle); \
    } while (0)

/* The recent error message, never NULL (NULL is reported as "<NULL>"). */
const char *errmsg(void);
/* Whether the recent error message contains `needle`. */
bool errmsg_has(const char *needle);
/*
 * Whether the recent error message, with blanks removed, names the shape `dims`
 * written as "[a,b]" or "(a,b)" (also "(a,)" for one dim, "[]" / "()" for none).
 */
bool errmsg_has_shape(const int64_t *dims, size_t n);

/*
 * aclnn-cpu's test hook (exported, not in the CANN headers): live handles of every kind,
 * bytes of device memory allocated, queued tasks still holding device memory, misuse
 * warnings printed so far. Any pointer may be NULL.
 */
aclnnStatus aclnnCpuDebugCounts(uint64_t *liveHandles, uint64_t *deviceBytes, uint64_t *pendingTasks,
                                uint64_t *warnings);

/* ---------------------------------------------------------------- runner */

typedef void (*capi_test_fn)(void);
void capi_run_test(const char *name, capi_test_fn fn);
/* Prints "N passed, 0 failed" (plus known bugs) and returns the exit code. */
int capi_finish(void);
#define RUN_TEST(fn) capi_run_test(#fn, fn)

/* ---------------------------------------------------------------- device */

/* The stream created by device_init(). */
extern aclrtStream g_stream;
/* aclInit(NULL) + aclrtSetDevice(0) + aclrtCreateStream(&g_stream). */
void device_init(void);
/* aclrtDestroyStream + aclrtResetDevice(0) + aclFinalize. */
void device_teardown(void);

/* ---------------------------------------------------------------- tensors */

size_t dtype_size(aclDataType dt);
int64_t shape_numel(const int64_t *shape, size_t n);
/* Row-major strides of `shape` into `strides`. */
void contiguous_strides(const int64_t *shape, size_t n, int64_t *strides);

/* A device tensor together with the device storage it views. */
typedef struct {
    aclTensor *tensor;
    void *dev;            /* device storage (owned) */
    size_t bytes;         /* bytes of storage in use (product(storage dims) * elem size) */
    size_t alloc;         /* bytes allocated (>= bytes, at least 32) */
    aclDataType dtype;
    int64_t numel;        /* storage elements */
} DevTensor;

/* Contiguous tensor of `shape`; `host` (may be NULL = zeros) holds numel elements. */
DevTensor dev_tensor(const void *host, aclDataType dt, const int64_t *shape, size_t ndim);
/* A view (shape, strides, offset) over a storage of `storage` dims filled from `host_storage`. */
DevTensor dev_view(const void *host_storage, aclDataType dt, const int64_t *storage, size_t sndim,
                   const int64_t *shape, size_t ndim, const int64_t *strides, int64_t offset);
/* Copies the whole storage back to the host (`bytes` bytes). */
void dev_read(const DevTensor *t, void *host);
/* Copies `bytes` bytes of host data into the storage. */
void dev_write(const DevTensor *t, const void *host);
/* Fills every byte of the storage with `byte`. */
void dev_fill_bytes(const DevTensor *t, int byte);
/* Destroys the tensor (if any) and frees the storage. */
void dev_free(DevTensor *t);

/* ---------------------------------------------------------------- scalars */

aclScalar *scalar_f32(float v);
aclScalar *scalar_f64(double v);
aclScalar *scalar_i32(int32_t v);
aclScalar *scalar_i64(int64_t v);
aclScalar *scalar_bool(bool v);

/* ---------------------------------------------------------------- running ops */

typedef aclnnStatus (*phase2_fn)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);
/* Allocates the workspace (if any), runs phase 2 on g_stream, synchronises, frees it. */
void run_phase2(phase2_fn fn, uint64_t workspaceSize, aclOpExecutor *executor);
/* aclnnAddGetWorkspaceSize + aclnnAdd + sync. Returns the phase-1 status (phase 2 must succeed). */
aclnnStatus add_run(const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out);

/* ---------------------------------------------------------------- numbers */

uint16_t f32_to_f16(float f);   /* round to nearest even */
float f16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);  /* round to nearest even */
float bf16_to_f32(uint16_t h);
/* |got - want| <= 1e-5 * max(1, |want|), NaN only equals NaN. */
bool near_f32(float got, float want);
bool near_f64(double got, double want);

/*
 * Reference broadcast add in f32: out = a + alpha * b with NumPy broadcasting,
 * `out_shape` must be the broadcast shape.
 */
void ref_add_f32(const float *a, const int64_t *as, size_t an, const float *b, const int64_t *bs, size_t bn,
                 float alpha, float *out, const int64_t *os, size_t on);
/* Broadcast shape of two shapes; returns false if they do not broadcast. */
bool broadcast_shape(const int64_t *as, size_t an, const int64_t *bs, size_t bn, int64_t *out, size_t *on);

#endif /* ACLNN_CPU_CAPI_TESTS_COMMON_H */
