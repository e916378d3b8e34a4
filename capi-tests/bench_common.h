/*
 * What the C benchmarks share: a monotonic clock and a comparison for qsort (medians).
 */
#ifndef ACLNN_CPU_CAPI_TESTS_BENCH_COMMON_H
#define ACLNN_CPU_CAPI_TESTS_BENCH_COMMON_H

#include <string.h>
#include <time.h>

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* ACLNN_CPU_CAPI_TESTS_BENCH_COMMON_H */

/* Whether case `key` is in `only`, a comma-separated list of case names (NULL or empty:
 * every case runs). */
static inline int bench_wanted(const char *only, const char *key)
{
    if (only == NULL || *only == 0) return 1;
    size_t k = strlen(key);
    for (const char *p = only; *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == k && strncmp(p, key, k) == 0) return 1;
        if (!q) break;
        p = q + 1;
    }
    return 0;
}
