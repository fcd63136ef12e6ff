/*
 * spgemm.c — mg_spgemm, the sparse x sparse product: checks every argument, naming the one that is
 * wrong, then hands the checked call to the context's engine (spgemm_cpu.c, spgemm_gpu.cu). The checks are shared with the verifier (check_spgemm.c).
 */
#include "sparse/sparse_internal.h"

void mg_spgemm_options_init(mg_spgemm_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->semiring = MG_SEMIRING_PLUS_TIMES;
    opts->mask = NULL;
    opts->complement = false;
    opts->device_bytes = NULL;
}

mg_status mg__spgemm_check_args(mg_context ctx, const char *who, const mg_matrix A,
                                const mg_matrix B, const mg_spgemm_options *opts) {
    char what[96];
    mg_status status;
    snprintf(what, sizeof what, "%s: A", who);
    if ((status = mg__check_matrix(ctx, A, what)) != MG_SUCCESS) return status;
    snprintf(what, sizeof what, "%s: B", who);
    if ((status = mg__check_matrix(ctx, B, what)) != MG_SUCCESS) return status;
    if (A->cols != B->rows)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: A has %u columns but B has %u rows", who,
                         A->cols, B->rows);
    if ((unsigned)opts->semiring > (unsigned)MG_SEMIRING_OR_AND)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->semiring = %d is not an mg_semiring",
                         who, (int)opts->semiring);
    if (opts->mask != NULL) {
        snprintf(what, sizeof what, "%s: opts->mask", who);
        if ((status = mg__check_matrix(ctx, opts->mask, what)) != MG_SUCCESS) return status;
        if (opts->mask->rows != A->rows || opts->mask->cols != B->cols)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->mask is %u x %u but C = A B is %u x %u (the mask has C's "
                             "shape)",
                             who, opts->mask->rows, opts->mask->cols, A->rows, B->cols);
    }
    return MG_SUCCESS;
}

mg_status mg_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                    const mg_spgemm_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (C == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_spgemm: C is NULL");
    *C = NULL;
    mg_spgemm_options defaults;
    if (opts == NULL) {
        mg_spgemm_options_init(&defaults);
        opts = &defaults;
    }
    status = mg__spgemm_check_args(ctx, "mg_spgemm", A, B, opts);
    if (status != MG_SUCCESS) return status;
    if (opts->device_bytes != NULL) *opts->device_bytes = 0;
    if (mg_context_backend(ctx) == MG_BACKEND_GPU) return mg__gpu_spgemm(ctx, A, B, C, opts);
    return mg__cpu_spgemm(ctx, A, B, C, opts);
}
