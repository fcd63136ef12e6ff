/*
 * context.c — contexts, status names, the per-context error message and handle checks.
 */
#include "dist.h"

#include <omp.h>

const char *mg_status_string(mg_status status) {
    switch (status) {
    case MG_SUCCESS: return "MG_SUCCESS";
    case MG_INVALID_ARGUMENT: return "MG_INVALID_ARGUMENT";
    case MG_INVALID_OBJECT: return "MG_INVALID_OBJECT";
    case MG_OUT_OF_MEMORY: return "MG_OUT_OF_MEMORY";
    case MG_IO_ERROR: return "MG_IO_ERROR";
    case MG_PARSE_ERROR: return "MG_PARSE_ERROR";
    case MG_UNAVAILABLE: return "MG_UNAVAILABLE";
    case MG_DEVICE_ERROR: return "MG_DEVICE_ERROR";
    case MG_NOT_CONVERGED: return "MG_NOT_CONVERGED";
    case MG_INTERNAL_ERROR: return "MG_INTERNAL_ERROR";
    case MG_RANGE_ERROR: return "MG_RANGE_ERROR";
    case MG_BREAKDOWN: return "MG_BREAKDOWN";
    case MG_COMPILE_ERROR: return "MG_COMPILE_ERROR";
    }
    return "MG_UNKNOWN_STATUS";
}

mg_status mg__error(mg_context ctx, mg_status status, const char *fmt, ...) {
    if (ctx != NULL && ctx->magic == MG__MAGIC_CONTEXT) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
    }
    return status;
}

mg_status mg__check_context(const mg_context ctx) {
    if (ctx == NULL) return MG_INVALID_ARGUMENT;
    if (ctx->magic != MG__MAGIC_CONTEXT) return MG_INVALID_OBJECT;
    ctx->error[0] = '\0';
    return MG_SUCCESS;
}

mg_status mg__check_graph(mg_context ctx, const mg_graph g, const char *what) {
    if (g == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (g->magic != MG__MAGIC_GRAPH)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_graph", what);
    return MG_SUCCESS;
}

mg_status mg__check_whole_graph(mg_context ctx, const mg_graph g, const char *what) {
    mg_status status = mg__check_graph(ctx, g, what);
    if (status == MG_SUCCESS && g->dist != NULL)
        status = mg__error(ctx, MG_UNAVAILABLE,
                           "%s is split over ranks (this rank holds only its share), which this call "
                           "cannot use yet: make the graph on a context without ranks", what);
    return status;
}

mg_status mg__check_vector(mg_context ctx, const mg_vector v, const char *what) {
    if (v == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (v->magic != MG__MAGIC_VECTOR)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_vector", what);
    return MG_SUCCESS;
}

mg_status mg__check_frontier(mg_context ctx, const mg_frontier f, const char *what) {
    if (f == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    if (f->magic != MG__MAGIC_FRONTIER)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_frontier", what);
    return MG_SUCCESS;
}

mg_status mg_context_create(mg_context *ctx) {
    if (ctx == NULL) return MG_INVALID_ARGUMENT;
    *ctx = mg__calloc(1, sizeof **ctx);
    if (*ctx == NULL) return MG_OUT_OF_MEMORY;
    (*ctx)->magic = MG__MAGIC_CONTEXT;
    (*ctx)->backend = MG_BACKEND_CPU;
    (*ctx)->mode = MG_MODE_AUTO;
    (*ctx)->sample_fraction = MG_DEFAULT_SAMPLE_FRACTION;
    return MG_SUCCESS;
}

mg_status mg_context_free(mg_context *ctx) {
    if (ctx == NULL || *ctx == NULL) return MG_SUCCESS;
    if ((*ctx)->magic != MG__MAGIC_CONTEXT) return MG_INVALID_OBJECT;
    (*ctx)->magic = MG__MAGIC_FREED;
    if ((*ctx)->free_engine_workspace != NULL) (*ctx)->free_engine_workspace((*ctx)->engine_workspace);
    if ((*ctx)->free_gpu_workspace != NULL) (*ctx)->free_gpu_workspace((*ctx)->gpu_workspace);
    if ((*ctx)->free_gpu_hybrid != NULL) (*ctx)->free_gpu_hybrid((*ctx)->gpu_hybrid);
    if ((*ctx)->free_cpu_udf != NULL) (*ctx)->free_cpu_udf((*ctx)->cpu_udf);
    if ((*ctx)->free_gpu_udf != NULL) (*ctx)->free_gpu_udf((*ctx)->gpu_udf);
    mg__dist_free((*ctx)->dist);
    mg__free(*ctx);
    *ctx = NULL;
    return MG_SUCCESS;
}

bool mg_built_with_cuda(void) {
#ifdef MG_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

mg_status mg_context_set_backend(mg_context ctx, mg_backend backend) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    switch (backend) {
    case MG_BACKEND_AUTO: {
        /* The GPU where one is usable; its absence is not an error here, only a choice. The
         * size rule (a small graph is done on the CPU before the GPU has started) is the
         * caller's, who knows the graph: the mgraph command applies it (tools/cli_backend.c). */
        if (mg_context_set_backend(ctx, MG_BACKEND_GPU) != MG_SUCCESS) {
            ctx->error[0] = '\0';
            ctx->backend = MG_BACKEND_CPU;
        }
        return MG_SUCCESS;
    }
    case MG_BACKEND_CPU:
        ctx->backend = MG_BACKEND_CPU;
        return MG_SUCCESS;
    case MG_BACKEND_GPU: {
        mg__gpu_info gpu;
        /* the current device: 0, or the rank's (mg_context_set_ranks) */
        if (mg__gpu_query(ctx, -1, &gpu) != MG_SUCCESS) {
            char why[MG__ERROR_SIZE];
            const char *prefix = "mg_gpu_query: ";
            const char *msg = ctx->error;
            if (strncmp(msg, prefix, strlen(prefix)) == 0) msg += strlen(prefix);
            snprintf(why, sizeof why, "%s", msg);
            return mg__error(ctx, MG_UNAVAILABLE,
                             "mg_context_set_backend: the GPU backend is unavailable: %s", why);
        }
        if (ctx->dist != NULL && ctx->dist->ranks.size > 1 && !mg__dist_gpu_available())
            return mg__error(ctx, MG_UNAVAILABLE,
                             "mg_context_set_backend: the ranks' GPUs exchange through NCCL, which "
                             "this build lacks (configure where nccl.h and libnccl are found)");
        mg_status kept = mg__gpu_keep_pool(ctx, gpu.device);
        if (kept != MG_SUCCESS) return kept;
        ctx->backend = MG_BACKEND_GPU;
        return MG_SUCCESS;
    }
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_context_set_backend: unknown backend %d",
                     (int)backend);
}

mg_backend mg_context_backend(const mg_context ctx) {
    return (ctx != NULL && ctx->magic == MG__MAGIC_CONTEXT) ? ctx->backend : MG_BACKEND_CPU;
}

mg_status mg_context_set_threads(mg_context ctx, int threads) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (threads < 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_context_set_threads: threads must be >= 0 (got %d)", threads);
    ctx->threads = threads;
    if (threads > 0) omp_set_num_threads(threads);
    return MG_SUCCESS;
}

mg_status mg_context_set_engine(mg_context ctx, mg_engine engine) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (engine != MG_ENGINE_MULTIGRAPH && engine != MG_ENGINE_BASELINE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_context_set_engine: unknown engine %d",
                         (int)engine);
    ctx->engine = engine;
    return MG_SUCCESS;
}

mg_status mg_context_set_mode(mg_context ctx, mg_mode mode) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (mode != MG_MODE_AUTO && mode != MG_MODE_SPARSE && mode != MG_MODE_PULL && mode != MG_MODE_DENSE &&
        mode != MG_MODE_HYBRID)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_context_set_mode: unknown mode %d",
                         (int)mode);
    ctx->mode = mode;
    return MG_SUCCESS;
}

mg_status mg_context_set_sample_fraction(mg_context ctx, double fraction) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (!(fraction > 0 && fraction <= 1))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_context_set_sample_fraction: fraction %g is "
                         "not in (0, 1]", fraction);
    ctx->sample_fraction = fraction;
    return MG_SUCCESS;
}

mg_status mg_context_finish(mg_context ctx) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (mg_context_backend(ctx) != MG_BACKEND_GPU) return MG_SUCCESS;
    return mg__gpu_finish(ctx, "mg_context_finish");
}

const char *mg_context_error(const mg_context ctx) {
    if (ctx == NULL) return "context is NULL";
    if (ctx->magic != MG__MAGIC_CONTEXT) return "not a live mg_context";
    return ctx->error;
}

mg_status mg_context_last_advance(const mg_context ctx, mg_advance_info *info) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (info == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_context_last_advance: info is NULL");
    *info = ctx->last_advance;
    return MG_SUCCESS;
}

mg_status mg_context_set_trace(mg_context ctx, mg_trace_fn trace, void *user) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    ctx->trace = trace;
    ctx->trace_user = user;
    return MG_SUCCESS;
}
