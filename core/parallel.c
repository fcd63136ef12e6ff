/*
 * parallel.c — OpenMP building blocks shared by the core and the CPU engine: prefix sums.
 */
#include "mg_internal.h"

#include <omp.h>

/* Exclusive prefix sum in place; returns the total. Two passes over per-thread blocks. */
uint64_t mg__exclusive_scan_u64(uint64_t *a, size_t n) {
    if (n < (1u << 16)) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = a[i];
            a[i] = sum;
            sum += x;
        }
        return sum;
    }
    int nt = omp_get_max_threads();
    uint64_t partial[257];
    if (nt > 256) nt = 256;
    uint64_t total = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        size_t lo = n * (size_t)t / (size_t)T, hi = n * (size_t)(t + 1) / (size_t)T;
        uint64_t sum = 0;
        for (size_t i = lo; i < hi; i++) sum += a[i];
        partial[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        {
            partial[0] = 0;
            for (int k = 1; k <= T; k++) partial[k] += partial[k - 1];
            total = partial[T];
        }
        uint64_t run = partial[t];
        for (size_t i = lo; i < hi; i++) {
            uint64_t x = a[i];
            a[i] = run;
            run += x;
        }
    }
    return total;
}
