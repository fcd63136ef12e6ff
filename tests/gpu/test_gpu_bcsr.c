/*
 * test_gpu_bcsr.c — mg_bcsr_multiply on a GPU context (sparse/bcsr_gpu.cu) against the CPU product:
 * every block side 2..32 (non-powers of two and k = 32's 1024 threads too), uint64 (values near
 * 2^40, so sums wrap modulo 2^64: equal bit for bit), float and double (within mg_check_bcsr's
 * rounding), shapes that are not multiples of k, an empty product, block rows longer than a thread
 * block, dense block rows, a larger matrix, the device option taken modulo the devices, and a
 * 4-matrix chain. Exits 77 (skipped) without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu_test.h"

#include <stdlib.h>
#include <string.h>

/* rows x cols, each entry present with probability percent / 100, integer values in [1, span]. */
static mg_matrix random_matrix(uint32_t rows, uint32_t cols, int percent, uint64_t span) {
    const uint64_t most = (uint64_t)rows * cols * (uint64_t)percent / 50 + 16;
    uint32_t *r = malloc(most * sizeof *r), *c = malloc(most * sizeof *c);
    double *v = malloc(most * sizeof *v);
    uint64_t n = 0;
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols && n < most; j++)
            if ((int)(next_rand() % 100) < percent) {
                r[n] = i;
                c[n] = j;
                v[n] = (double)(1 + (((uint64_t)next_rand() << 32 | next_rand()) % span));
                n++;
            }
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, n, r, c, v, MG_VALUES_DOUBLE));
    free(r);
    free(c);
    free(v);
    return A;
}

/* C = A B on the CPU and on the device, compared; returns the GPU's block count (0 on failure). */
static uint64_t compare(const mg_matrix A, const mg_matrix B, uint32_t k, mg_bcsr_values t,
                        int device) {
    mg_bcsr a = NULL, b = NULL, cpu = NULL, gpu = NULL;
    uint64_t blocks = 0;
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, A, k, t, &a));
    CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, B, k, t, &b));
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_bcsr_multiply(ctx, a, b, &cpu, NULL));
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    mg_bcsr_multiply_options o;
    mg_bcsr_multiply_options_init(&o);
    o.device = device;
    CHECK_OK(ctx, mg_bcsr_multiply(ctx, a, b, &gpu, &o));
    if (cpu != NULL && gpu != NULL) {
        mg_status st = mg_check_bcsr(ctx, cpu, gpu);
        if (st != MG_SUCCESS)
            fprintf(stderr, "k = %u, type %d, %u x %u x %u: %s\n", k, (int)t, mg_matrix_rows(A),
                    mg_matrix_cols(A), mg_matrix_cols(B), mg_context_error(ctx));
        CHECK(st == MG_SUCCESS);
        CHECK(mg_bcsr_nblocks(cpu) == mg_bcsr_nblocks(gpu));
        if (t == MG_BCSR_UINT64) {
            const void *vc, *vg;
            mg_bcsr_arrays(cpu, NULL, NULL, &vc);
            mg_bcsr_arrays(gpu, NULL, NULL, &vg);
            CHECK(memcmp(vc, vg, mg_bcsr_nblocks(cpu) * k * k * 8) == 0);
        }
        blocks = mg_bcsr_nblocks(gpu);
    }
    mg_bcsr_free(&a);
    mg_bcsr_free(&b);
    mg_bcsr_free(&cpu);
    mg_bcsr_free(&gpu);
    return blocks;
}

int main(void) {
    mg__gpu_info info;
    const int rc = gpu_test_start(&info);
    if (rc >= 0) return rc;
    const mg_bcsr_values types[] = {MG_BCSR_UINT64, MG_BCSR_FLOAT, MG_BCSR_DOUBLE};
    const uint64_t spans[] = {(uint64_t)1 << 40, 100, 1000};
    for (uint32_t k = MG_BCSR_MIN_BLOCK; k <= MG_BCSR_MAX_BLOCK; k += small_mode ? 5 : 1)
        for (int t = 0; t < 3; t++) {
            mg_matrix A = random_matrix(3 * k + 1, 2 * k + 3, 25, spans[t]);
            mg_matrix B = random_matrix(2 * k + 3, 4 * k - 1, 25, spans[t]);
            CHECK(compare(A, B, k, types[t], 0) > 0);
            mg_matrix_free(&A);
            mg_matrix_free(&B);
        }
    /* an empty product: A's columns meet none of B's rows */
    const uint32_t r1[] = {0}, c1[] = {0}, r2[] = {5}, c2[] = {1};
    const double one[] = {3};
    mg_matrix A = NULL, B = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 4, 6, 1, r1, c1, one, MG_VALUES_DOUBLE));
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &B, 6, 4, 1, r2, c2, one, MG_VALUES_DOUBLE));
    CHECK(compare(A, B, 2, MG_BCSR_UINT64, 0) == 0);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    /* block rows of A longer than a thread block (k = 2: 32 threads; 200 blocks a row), so the
     * kernel looks B's blocks up in several chunks */
    A = random_matrix(8, 400, 60, (uint64_t)1 << 40);
    B = random_matrix(400, 6, 60, (uint64_t)1 << 40);
    for (int t = 0; t < 3; t++) CHECK(compare(A, B, 2, types[t], 0) > 0);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    /* dense block rows, a larger sparse product, and the device taken modulo the devices */
    A = random_matrix(200, 300, 60, (uint64_t)1 << 40);
    B = random_matrix(300, 100, 60, (uint64_t)1 << 40);
    for (int t = 0; t < 3; t++) CHECK(compare(A, B, 7, types[t], 0) > 0);
    mg_matrix_free(&A);
    mg_matrix_free(&B);
    const uint32_t n = small_mode ? 400 : 3000;
    A = random_matrix(n, n, 1, 1000);
    for (int t = 0; t < 3; t++) CHECK(compare(A, A, 4, types[t], 13) > 0);
    mg_matrix_free(&A);

    /* a chain of 4 on the device, against the CPU's */
    mg_bcsr m[4] = {0}, cpu = NULL, gpu = NULL;
    const uint32_t dim[5] = {50, 61, 47, 50, 33};
    for (int i = 0; i < 4; i++) {
        mg_matrix M = random_matrix(dim[i], dim[i + 1], 10, (uint64_t)1 << 40);
        CHECK_OK(ctx, mg_bcsr_from_matrix(ctx, M, 5, MG_BCSR_UINT64, &m[i]));
        mg_matrix_free(&M);
    }
    for (int backend = 0; backend < 2; backend++) {
        mg_bcsr *out = backend ? &gpu : &cpu;
        CHECK_OK(ctx, mg_context_set_backend(ctx, backend ? MG_BACKEND_GPU : MG_BACKEND_CPU));
        CHECK_OK(ctx, mg_bcsr_multiply(ctx, m[0], m[1], out, NULL));
        for (int i = 2; i < 4; i++) {
            mg_bcsr next = NULL;
            CHECK_OK(ctx, mg_bcsr_multiply(ctx, *out, m[i], &next, NULL));
            mg_bcsr_free(out);
            *out = next;
        }
    }
    CHECK_OK(ctx, mg_check_bcsr(ctx, cpu, gpu));
    mg_bcsr_free(&cpu);
    mg_bcsr_free(&gpu);
    for (int i = 0; i < 4; i++) mg_bcsr_free(&m[i]);
    mg_context_free(&ctx);
    return check_report();
}
