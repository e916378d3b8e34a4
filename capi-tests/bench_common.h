/*
 * What the C benchmarks share: a monotonic clock and a comparison for qsort (medians).
 */
#ifndef ACLNN_CPU_CAPI_TESTS_BENCH_COMMON_H
#define ACLNN_CPU_CAPI_TESTS_BENCH_COMMON_H

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
