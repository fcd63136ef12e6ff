/*
 * test_udf_nvrtc.c — the GPU half of user-defined programs without a GPU (issue 18): NVRTC needs no
 * device, so each value type's generated kernels (udf_gpu.cuh with a reduce's, a mode's and an
 * ANY's snippets, each also with source_only, the limits and math a snippet may use) are compiled
 * here for sm_90 without a launch,
 * and a snippet that does not compile comes back as MG_COMPILE_ERROR with NVRTC's log naming the
 * snippet and its line. A build without CUDA (no NVRTC) reports skipped (77).
 */
#include "check.h"
#include "mg_internal.h"
#include "../../frontier/gpu_engine.h"

#include <string.h>

/* Host functions the definitions need beside their snippets (never called: nothing runs here). */
static void contribution(void *value, uint32_t src, uint32_t dst, const void *src_value, double weight,
                         uint64_t src_degree, void *user) {
    (void)value, (void)src, (void)dst, (void)src_value, (void)weight, (void)src_degree, (void)user;
}
static void combine(void *a, const void *b, void *user) { (void)a, (void)b, (void)user; }
static bool apply(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)dst_value, (void)combined, (void)found, (void)dst, (void)user;
    return false;
}
static const int64_t identity = 0;

static mg_status define(mg_context ctx, mg_type type, mg_udf_combine_kind kind, bool source_only,
                        const char *contribution_src, const char *combine_src, const char *identity_src,
                        const char *apply_src, mg_udf *u) {
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = type;
    def.combine_kind = kind;
    def.source_only = source_only;
    def.runner = MG_UDF_HOST;
    def.contribution = contribution_src;
    def.combine = combine_src;
    def.identity = identity_src;
    def.apply = apply_src;
    def.contribution_fn = contribution;
    def.combine_fn = combine;
    def.identity_value = &identity;
    def.apply_fn = apply;
    return mg_program_define(ctx, &def, u);
}

int main(void) {
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_udf u = NULL;
    size_t bytes = 0;
    CHECK_OK(ctx, define(ctx, MG_DOUBLE, MG_UDF_REDUCE, false, "src_value", "a + b", "0.0", "dst_value = combined;", &u));
    mg_status st = mg__gpu_udf_compile(ctx, u, 90, &bytes);
    mg_udf_free(&u);
    if (st == MG_UNAVAILABLE) {
        printf("skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 77;
    }
    CHECK_OK(ctx, st);

    /* every value type, a reduce, a mode and an ANY, each with and without source_only (then a
     * contribution of the source alone), with what the header promises a snippet may use */
    static const struct {
        mg_type type;
        const char *name, *identity, *contribution;
    } types[] = {
        {MG_VERTEX, "int32", "INT32_MAX", "(int32_t)(src ^ dst) + (int32_t)(src_degree & 1) + (INT32_MIN < 0)"},
        {MG_INT64, "int64", "INT64_MAX", "src_value + (int64_t)weight + (int64_t)(UINT32_MAX > 0)"},
        {MG_FLOAT, "float", "INFINITY", "src_value * (float)weight + (float)sqrt((double)src_degree) * 0.0f"},
        {MG_DOUBLE, "double", "HUGE_VAL", "fmin(src_value + weight, DBL_MAX) + (isnan(NAN) ? 0.0 : 1.0)"},
    };
    static const mg_udf_combine_kind kinds[3] = {MG_UDF_REDUCE, MG_UDF_MODE, MG_UDF_ANY};
    static const char *const kind_names[3] = {"reduce", "mode", "any"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        for (int kind = 0; kind < 3; kind++)
            for (int so = 0; so < 2; so++) {
                const bool reduce = kinds[kind] == MG_UDF_REDUCE;
                CHECK_OK(ctx, define(ctx, types[i].type, kinds[kind], so,
                                     so ? "(src & 1) && src_degree ? src_value : src_value + src_value" : types[i].contribution,
                                     reduce ? "a < b ? a : b" : NULL, reduce ? types[i].identity : NULL,
                                     "if (combined < dst_value || !found) { dst_value = combined; joins = 1; }", &u));
                bytes = 0;
                st = mg__gpu_udf_compile(ctx, u, 90, &bytes);
                if (st != MG_SUCCESS || bytes == 0)
                    fprintf(stderr, "%s %s%s: %s (%zu bytes)\n", types[i].name, kind_names[kind],
                            so ? " source_only" : "", mg_context_error(ctx), bytes);
                CHECK(st == MG_SUCCESS && bytes > 0);
                mg_udf_free(&u);
            }
    }

    /* a snippet that is not device code: NVRTC's log, its line named after the snippet */
    CHECK_OK(ctx, define(ctx, MG_DOUBLE, MG_UDF_REDUCE, false, "src_value", "a + b", "0.0",
                         "dst_value = combined;\njoins = no_such_name;", &u));
    CHECK(mg__gpu_udf_compile(ctx, u, 90, &bytes) == MG_COMPILE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "apply(2)") != NULL);
    CHECK(strstr(mg_context_error(ctx), "no_such_name") != NULL);
    CHECK(strstr(mg_context_error(ctx), "sm_90") != NULL);
    if (strstr(mg_context_error(ctx), "apply(2)") == NULL) fprintf(stderr, "message: %s\n", mg_context_error(ctx));
    mg_udf_free(&u);

    /* a definition without snippets has nothing to compile */
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.runner = MG_UDF_HOST;
    def.contribution_fn = contribution;
    def.combine_fn = combine;
    def.identity_value = &identity;
    def.apply_fn = apply;
    CHECK_OK(ctx, mg_program_define(ctx, &def, &u));
    CHECK(mg__gpu_udf_compile(ctx, u, 90, &bytes) == MG_INVALID_ARGUMENT);
    mg_udf_free(&u);
    mg_context_free(&ctx);
    return check_report();
}
