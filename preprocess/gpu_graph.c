/*
 * gpu_graph.c — the public face of the GPU preprocessing: mg_gpu_query (what device there is) and
 * mg_graph_gpu_prepare (a graph's device form, built once from its edges and kept with the graph as
 * a cached property, LAGraph style). Works in every build: without CUDA or without a device the
 * query says why, and preparing answers MG_UNAVAILABLE.
 */
#include "preprocess/dense_blocks.h"
#include "preprocess/gpu_preprocess.h"
#include "core/dist.h"

#include <omp.h>

mg_status mg_gpu_query(mg_context ctx, mg_gpu_info *info) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (info == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_gpu_query: info is NULL");
    memset(info, 0, sizeof *info);
    mg__gpu_info dev;
    status = mg__gpu_query(ctx, -1, &dev); /* the current device: 0, or a rank's */
    if (status == MG_UNAVAILABLE) {
        /* Not an error for the caller: there is simply no GPU to describe. */
        const char *why = mg_context_error(ctx);
        const char *prefix = "mg_gpu_query: ";
        if (strncmp(why, prefix, strlen(prefix)) == 0) why += strlen(prefix);
        snprintf(info->reason, sizeof info->reason, "%s", why);
        ctx->error[0] = '\0';
        return MG_SUCCESS;
    }
    if (status != MG_SUCCESS) return status;
    info->available = true;
    snprintf(info->name, sizeof info->name, "%s", dev.name);
    info->device = dev.device;
    info->total_memory = dev.total_memory;
    info->free_memory = dev.free_memory;
    info->sm_count = dev.sm_count;
    info->shared_per_block = dev.shared_per_block_optin;
    info->shared_per_sm = dev.shared_per_sm;
    info->cc_major = dev.cc_major;
    info->cc_minor = dev.cc_minor;
    return MG_SUCCESS;
}

static void free_device_form(void *p) {
    mg__gpu_graph *gg = p;
    mg__gpu_graph_free(gg);
    mg__free(gg);
}


_Static_assert(sizeof(((mg_gpu_graph_info *)0)->phase_seconds) == MG__GPU_BUILD_PHASES * sizeof(double),
               "mg_gpu_graph_info.phase_seconds holds the build's phases");

/* The graph's edge list, made a chunk at a time for the device build's upload. */
typedef struct {
    mg_graph g;
    const uint64_t *start;
} edge_list;

static void fill_edges(const void *arg, uint64_t first, uint64_t count, uint32_t *src,
                       uint32_t *dst, uint32_t *w) {
    const edge_list *l = arg;
    mg__graph_edges_fill(l->g, l->start, first, count, src, dst, w);
}

/* A share's front (mg__gpu_front): its own fill (its list's low vertices, core/dist.h), then the
 * other ranks' high vertices, rank by rank. */
static mg_status share_front(mg_context ctx, const mg_graph g, mg__gpu_front *front) {
    const struct mg__graph_dist *d = g->dist;
    const uint64_t *hs = d->high_start, *in = g->in.offsets;
    const uint64_t before = hs[d->rank], mine = hs[d->rank + 1] - before;
    uint64_t fill = 0;
    while (fill < mine) {
        const uint32_t v = d->high[before + mine - 1 - fill];
        if (mg__degree_group(in[v + 1] - in[v]) < MG__DEGREE_GROUPS) break;
        fill++;
    }
    const uint64_t count = fill + hs[d->size] - mine;
    uint32_t *ids = mg__malloc((size_t)(count > 0 ? count : 1) * sizeof *ids);
    if (ids == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_gpu_prepare: out of memory");
    memcpy(ids, d->high + before + mine - fill, fill * sizeof *ids);
    memcpy(ids + fill, d->high, before * sizeof *ids);
    memcpy(ids + fill + before, d->high + before + mine, (hs[d->size] - before - mine) * sizeof *ids);
    front->ids = ids;
    front->count = count;
    front->own = fill;
    return MG_SUCCESS;
}

/* A share's device form: its own high vertices and fill [0, H) as core/dist.h lists them (so that
 * another rank's front holds them in this order), its own low ones [own_from, own_to) after every
 * rank's high vertices and every lower range's low ones; the whole graph's out-degrees (what
 * MG_CONTRIB_SRC_DIV_OUTDEG divides by). */
static mg_status share_form(mg_context ctx, const mg_graph g, mg__gpu_graph *gg) {
    const struct mg__graph_dist *d = g->dist;
    const uint64_t *hs = d->high_start;
    const uint32_t high = gg->group_start[MG__GPU_GROUPS - 1];
    if (high != hs[d->rank + 1] - hs[d->rank])
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_graph_gpu_prepare: a share's form has %u high vertices, "
                         "its graph %llu", high, (unsigned long long)(hs[d->rank + 1] - hs[d->rank]));
    uint32_t *ids = mg__malloc((size_t)(high > 0 ? high : 1) * sizeof *ids);
    if (ids == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_gpu_prepare: out of memory");
    mg_status status = mg__gpu_copy_to_host(ctx, ids, gg->d_old_of_new, (size_t)high * sizeof *ids);
    if (status == MG_SUCCESS && memcmp(ids, d->high + hs[d->rank], (size_t)high * sizeof *ids) != 0)
        status = mg__error(ctx, MG_INTERNAL_ERROR, "mg_graph_gpu_prepare: a share's form orders its high "
                           "vertices unlike its graph");
    mg__free(ids);
    if (status != MG_SUCCESS) return status;
    gg->own_from = (uint32_t)(hs[d->size] + d->first[d->rank] - hs[d->rank]);
    gg->own_to = (uint32_t)(hs[d->size] + d->first[d->rank + 1] - hs[d->rank + 1]);
    return mg__dist_gpu_degree_offsets(ctx, g, gg->d_old_of_new, &gg->d_degree_offsets);
}

mg_status mg_graph_gpu_prepare(mg_context ctx, const mg_graph cg, mg_gpu_graph_info *info) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_graph(ctx, cg, "mg_graph_gpu_prepare: g")) != MG_SUCCESS) return status;
    mg_graph g = (mg_graph)cg; /* the device form is a cached property of a const graph */
    uint64_t *start = NULL;
    mg__gpu_graph *gg = g->gpu;
    if (gg == NULL) {
        MG__TRY(mg__graph_edge_starts(ctx, g, &start));
        gg = mg__calloc(1, sizeof *gg);
        if (gg == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_graph_gpu_prepare: out of memory");
        /* the list's shape; its edges are made chunk by chunk while earlier chunks upload */
        mg__coo shape;
        memset(&shape, 0, sizeof shape);
        shape.n = g->n;
        shape.m = start[g->n];
        shape.weight_type = g->weight_type;
        shape.index_base = g->index_base;
        shape.symmetric = !g->directed;
        const edge_list list = {g, start};
        const mg__edge_producer edges = {fill_edges, &list};
        mg_graph_options opts = {.directed = g->directed, .keep_self_loops = true,
                                 .keep_duplicates = true};
        mg__gpu_front front = {NULL, 0, 0};
        if (g->dist != NULL) status = share_front(ctx, g, &front);
        if (status == MG_SUCCESS)
            status = mg__gpu_graph_build_produced(ctx, &shape, &edges, &opts, g->dist != NULL ? &front : NULL, gg);
        mg__free((void *)front.ids);
        if (status != MG_SUCCESS) {
            mg__free(gg);
            goto cleanup;
        }
        if (g->dist != NULL && (status = share_form(ctx, g, gg)) != MG_SUCCESS) {
            mg__gpu_graph_free(gg);
            mg__free(gg);
            goto cleanup;
        }
        g->gpu = gg;
        g->free_gpu = free_device_form;
    }
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->seconds = gg->seconds;
        info->upload_seconds = gg->upload_seconds;
        for (int k = 0; k < MG__GPU_BUILD_PHASES; k++) info->phase_seconds[k] = gg->phase_seconds[k];
        info->device_bytes = gg->device_bytes;
        info->csr_bytes = gg->csr_bytes;
        for (int k = 0; k < MG__GPU_GROUPS; k++)
            info->group_vertices[k] = gg->group_start[k + 1] - gg->group_start[k];
        for (int e = 0; e < 2; e++) {
            /* an undirected graph's two directions share one form */
            if (gg->dense[e] == NULL || (e == 1 && gg->dense[1] == gg->dense[0])) continue;
            mg__gpu_dense_stats ds;
            mg__gpu_dense_get_stats(gg->dense[e], &ds);
            info->dense_seconds += ds.seconds;
            info->dense_bytes += ds.bytes;
        }
    }
cleanup:
    mg__free(start);
    return status;
}
