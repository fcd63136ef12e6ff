/*
 * bcsr_internal.h — the block-CSR object's layout and the product's engines (internal): the public
 * calls in sparse/bcsr.c check their arguments, build C's block structure on the host, and hand the
 * values to the CPU engine (sparse/bcsr.c) or the GPU engine (sparse/bcsr_gpu.cu).
 */
#ifndef MG_BCSR_INTERNAL_H
#define MG_BCSR_INTERNAL_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MG__MAGIC_BCSR 0x6d67626373ULL

struct mg_bcsr_s {
    uint64_t magic;
    uint32_t rows, cols, k;
    uint32_t block_rows, block_cols; /* ceil(rows / k), ceil(cols / k)                        */
    mg_bcsr_values type;
    uint64_t nblocks;
    uint64_t *offsets;               /* block_rows + 1                                        */
    uint32_t *bcols;                 /* nblocks, sorted within each block row                 */
    void *values;                    /* nblocks * k * k values of the type, each block row-major */
};

/* Bytes of one value of type t (8 or 4). */
static inline size_t mg__bcsr_value_size(mg_bcsr_values t) { return t == MG_BCSR_FLOAT ? 4 : 8; }

mg_status mg__check_bcsr(mg_context ctx, const mg_bcsr B, const char *what);
/* An empty matrix of the shape with room for nblocks blocks (offsets zeroed, values zeroed). */
mg_status mg__bcsr_alloc(mg_context ctx, const char *call, uint32_t rows, uint32_t cols, uint32_t k,
                         mg_bcsr_values type, uint64_t nblocks, mg_bcsr *B);

/* C's values from its block structure (C's offsets and bcols set, values zero; A and B checked,
 * compatible): C's block (i, j) = sum over l of A(i, l) B(l, j), l ascending. On the device
 * (opts->device modulo the visible devices); MG_UNAVAILABLE in a build without CUDA. */
mg_status mg__gpu_bcsr_values(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr C,
                              const mg_bcsr_multiply_options *opts);

#ifdef __cplusplus
}
#endif
#endif /* MG_BCSR_INTERNAL_H */
