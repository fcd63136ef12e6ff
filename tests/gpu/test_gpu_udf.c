/*
 * test_gpu_udf.c — a user-defined program on a GPU context is refused with MG_UNAVAILABLE and a
 * message naming what is missing (the NVRTC compilation, issue 18), leaving y untouched; the same
 * program runs on a CPU context. Exits 77 (skipped) where no GPU is usable.
 */
#include "check.h"
#include "mgraph.h"

#include <stdio.h>
#include <string.h>

static void contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                         double weight, uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)src_degree, (void)user;
    *(double *)value = *(const double *)src_value;
}
static void sum(void *a, const void *b, void *user) {
    (void)user;
    *(double *)a += *(const double *)b;
}
static bool assign(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst, (void)user;
    *(double *)dst_value = *(const double *)combined;
    return true;
}
static const double zero = 0;

int main(void) {
    mg_context gpu = NULL;
    if (mg_context_create(&gpu) != MG_SUCCESS) return 1;
    if (mg_context_set_backend(gpu, MG_BACKEND_GPU) != MG_SUCCESS) {
        printf("skipped: %s\n", mg_context_error(gpu));
        mg_context_free(&gpu);
        return 77;
    }
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.scale = 8;
    mg_graph g = NULL;
    mg_vector x = NULL, y = NULL;
    mg_udf u = NULL;
    CHECK_OK(gpu, mg_generate(gpu, &g, &o));
    CHECK_OK(gpu, mg_vector_create(gpu, &x, g, MG_DOUBLE));
    CHECK_OK(gpu, mg_vector_create(gpu, &y, g, MG_DOUBLE));
    CHECK_OK(gpu, mg_vector_assign(gpu, x, NULL, 1));
    CHECK_OK(gpu, mg_vector_assign(gpu, y, NULL, -5));
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.runner = MG_UDF_HOST;
    def.contribution_fn = contribution;
    def.combine_fn = sum;
    def.identity_value = &zero;
    def.apply_fn = assign;
    CHECK_OK(gpu, mg_program_define(gpu, &def, &u));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    CHECK(mg_advance(gpu, g, &p, NULL, x, y, NULL, NULL) == MG_UNAVAILABLE);
    CHECK(strstr(mg_context_error(gpu), "NVRTC") != NULL);
    double v = 0;
    CHECK_OK(gpu, mg_vector_get(gpu, y, 0, &v));
    CHECK(v == -5);
    CHECK_OK(gpu, mg_context_set_backend(gpu, MG_BACKEND_CPU));
    CHECK_OK(gpu, mg_advance(gpu, g, &p, NULL, x, y, NULL, NULL));
    mg_udf_free(&u);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_graph_free(&g);
    mg_context_free(&gpu);
    return check_report();
}
