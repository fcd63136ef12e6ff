/*
 * memory.c — the library's allocation wrappers, with a failure-injection hook so tests can fail
 * the k-th allocation and check for a clean error and no leak (LAGraph's "brutal" tests).
 */
#include "mg_internal.h"

#include <stdatomic.h>

static _Atomic uint64_t alloc_count = 0;
static _Atomic uint64_t fail_at = 0; /* the alloc_count value that fails; 0: never */

uint64_t mg__inject_alloc_failure(uint64_t k) {
    uint64_t done = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_at, k);
    return done;
}

static bool injected_failure(void) {
    uint64_t now = atomic_fetch_add(&alloc_count, 1) + 1;
    uint64_t target = atomic_load(&fail_at);
    return target != 0 && now == target;
}

size_t mg__mul_size(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return SIZE_MAX;
    return count * size;
}

void *mg__malloc(size_t bytes) {
    if (bytes == SIZE_MAX || injected_failure()) return NULL;
    return malloc(bytes ? bytes : 1);
}

void *mg__calloc(size_t count, size_t size) {
    if (mg__mul_size(count, size) == SIZE_MAX || injected_failure()) return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *mg__realloc(void *p, size_t bytes) {
    if (bytes == SIZE_MAX || injected_failure()) return NULL;
    return realloc(p, bytes ? bytes : 1);
}

void mg__free(void *p) { free(p); }
