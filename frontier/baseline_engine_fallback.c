/*
 * baseline_engine_fallback.c — the Gunrock-style baseline engine's entry point for a build without
 * CUDA: it reports MG_UNAVAILABLE, so C code and tests link in CPU-only builds. With CUDA the real
 * one is in baseline_engine.cu and this file is empty.
 */
#ifndef MG_HAVE_CUDA

#include "frontier/baseline_engine.h"

mg_status mg__gpu_lb_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a != NULL) a->out_count = 0;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_lb_advance: this build has no CUDA backend");
}

#else
/* The CUDA build defines it in baseline_engine.cu; keep the translation unit non-empty. */
typedef int mg__baseline_engine_fallback_unused;
#endif
