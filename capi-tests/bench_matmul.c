/*
 * Matrix-multiply benchmark through the C ABI, as a user would call it: aclnnMatmul on
 * device memory and a stream, f32 n x n @ n x n, median of repeated runs of the whole
 * two-phase call plus synchronize. Prints "n time_us GFLOP/s" lines.
 * Run with .ci/bench (which also times NumPy on the same sizes in the same run).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_common.h"

#include "acl/acl.h"
#include "aclnnop/aclnn_matmul.h"


int main(int argc, char **argv)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    aclrtStream stream = NULL;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 1;
    int sizes[8] = {512, 1024, 2048};
    int count = 3;
    if (argc > 1) {
        count = 0;
        for (int i = 1; i < argc && count < 8; i++) sizes[count++] = atoi(argv[i]);
    }
    for (int s = 0; s < count; s++) {
        int64_t n = sizes[s];
        int64_t shape[2] = {n, n};
        size_t bytes = (size_t)(n * n) * sizeof(float);
        float *host = malloc(bytes);
        for (int64_t i = 0; i < n * n; i++) host[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
        void *a = NULL, *b = NULL, *c = NULL;
        aclrtMalloc(&a, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&b, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&c, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(a, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(b, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
        aclTensor *ta = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, a);
        aclTensor *tb = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, b);
        aclTensor *tc = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, c);
        int reps = n <= 512 ? 21 : (n <= 1024 ? 11 : 5);
        double t[32];
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            uint64_t ws = 0;
            aclOpExecutor *e = NULL;
            double t0 = now();
            if (aclnnMatmulGetWorkspaceSize(ta, tb, tc, 1, &ws, &e) != ACLNN_SUCCESS) {
                fprintf(stderr, "%s\n", aclGetRecentErrMsg());
                return 1;
            }
            void *w = NULL;
            if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
            aclnnMatmul(w, ws, e, stream);
            aclrtSynchronizeStream(stream);
            if (r >= 0) t[r] = now() - t0;
            if (w != NULL) aclrtFree(w);
        }
        qsort(t, (size_t)reps, sizeof t[0], cmp);
        double med = t[reps / 2];
        printf("%lld %.1f %.1f\n", (long long)n, med * 1e6, 2.0 * (double)n * n * n / med * 1e-9);
        fflush(stdout);
        aclDestroyTensor(ta);
        aclDestroyTensor(tb);
        aclDestroyTensor(tc);
        aclrtFree(a);
        aclrtFree(b);
        aclrtFree(c);
        free(host);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
