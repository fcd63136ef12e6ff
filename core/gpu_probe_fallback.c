/*
 * gpu_probe_fallback.c — mg_gpu_probe in a build without CUDA: there is no device to measure
 * (core/gpu_probe.cu is the real one).
 */
#include "mg_internal.h"

#ifndef MG_HAVE_CUDA

mg_status mg_gpu_probe(mg_context ctx, mg_gpu_probe_result *probe) {
    const mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (probe == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_gpu_probe: probe is NULL");
    return mg__error(ctx, MG_UNAVAILABLE, "mg_gpu_probe: this build has no CUDA backend");
}

#endif
