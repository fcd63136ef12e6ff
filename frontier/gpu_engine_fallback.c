/*
 * gpu_engine_fallback.c — the GPU advance entry points for a build without CUDA: each reports
 * MG_UNAVAILABLE, so C code and tests link in CPU-only builds. With CUDA the real ones are in
 * sparse_engine.cu, dense_engine.cu and udf_gpu.cu and this file is empty.
 */
#ifndef MG_HAVE_CUDA

#include "frontier/engine.h"
#include "frontier/gpu_engine.h"

mg_status mg__gpu_run_advance(const mg__advance_call *call, mg_advance_info *info) {
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(call->ctx, MG_UNAVAILABLE, "mg__gpu_run_advance: this build has no CUDA backend");
}

mg_status mg__gpu_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a != NULL) a->out_count = 0;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_advance: this build has no CUDA backend");
}

mg_status mg__gpu_dense_advance(mg_context ctx, const struct mg__gpu_dense *d, mg__gpu_advance_args *a,
                                mg_advance_info *info) {
    (void)d;
    if (a != NULL) a->out_count = 0;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_dense_advance: this build has no CUDA backend");
}

mg_status mg__gpu_advance_baseline(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a != NULL) a->out_count = 0;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_advance_baseline: this build has no CUDA backend");
}

mg_status mg__gpu_udf_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a != NULL) a->out_count = 0;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_udf_advance: this build has no CUDA backend");
}

mg_status mg__gpu_udf_compile(mg_context ctx, const struct mg_udf_s *u, int arch, size_t *cubin_bytes) {
    (void)u;
    (void)arch;
    if (cubin_bytes != NULL) *cubin_bytes = 0;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_udf_compile: this build has no CUDA backend (no NVRTC)");
}

mg_status mg__gpu_timer_create(mg_context ctx, mg__gpu_timer **out) {
    if (out != NULL) *out = NULL;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_timer_create: this build has no CUDA backend");
}

mg_status mg__gpu_timer_hold(mg_context ctx, mg__gpu_timer *t, double us) {
    (void)t;
    (void)us;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_timer_hold: this build has no CUDA backend");
}

int mg__gpu_timer_late(mg__gpu_timer *t) {
    (void)t;
    return 0;
}

mg_status mg__gpu_timer_start(mg_context ctx, mg__gpu_timer *t) {
    (void)t;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_timer_start: this build has no CUDA backend");
}

mg_status mg__gpu_timer_stop(mg_context ctx, mg__gpu_timer *t, double *ms) {
    (void)t;
    if (ms != NULL) *ms = 0;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_timer_stop: this build has no CUDA backend");
}

void mg__gpu_timer_free(mg__gpu_timer **t) {
    if (t != NULL) *t = NULL;
}

mg_status mg__gpu_alloc(mg_context ctx, void **ptr, size_t bytes) {
    (void)bytes;
    if (ptr != NULL) *ptr = NULL;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_alloc: this build has no CUDA backend");
}

void mg__gpu_free(void *ptr) { (void)ptr; }

mg_status mg__gpu_copy_to_device(mg_context ctx, void *device, const void *host, size_t bytes) {
    (void)device;
    (void)host;
    (void)bytes;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_copy_to_device: this build has no CUDA backend");
}

#else
/* The CUDA build defines these in sparse_engine.cu and dense_engine.cu; keep the translation unit
 * non-empty. */
typedef int mg__gpu_engine_fallback_unused;
#endif
