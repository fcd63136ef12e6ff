/*
 * bench_common.h — what the benchmarks (bench_gpu.c, bench_baseline.c, bench_dense.c, bench_spmv.c,
 * bench_spmv_cpu.c) share: the context and a DIE_IF that exits naming the benchmark and line, the
 * start of a GPU benchmark's main (skipped, exit 0, where no GPU can be used; the memory pool kept
 * as a GPU context keeps it), medians, and a generated graph on the host and, as the directed list
 * of its stored edges, on the device. Define BENCH_NAME (the executable's name) before including
 * it.
 */
#ifndef MG_BENCH_COMMON_H
#define MG_BENCH_COMMON_H

#include "../frontier/gpu_engine.h"
#include "mg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

#define DIE_IF(st)                                                                                 \
    do {                                                                                           \
        if ((st) != MG_SUCCESS) {                                                                  \
            fprintf(stderr, BENCH_NAME ": %s (" BENCH_NAME ".c:%d)\n", mg_context_error(ctx), __LINE__); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, BENCH_NAME ": out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* Runs of one measurement: at most BENCH_MAX_RUNS. */
enum { BENCH_MAX_RUNS = 63 };

static inline int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline double median(const double *t, int n) {
    double c[BENCH_MAX_RUNS];
    memcpy(c, t, (size_t)n * sizeof *t);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    return c[n / 2];
}

/* The start of main after its arguments: the context and the device (gi). Returns -1 to go on,
 * else main's exit code (0 when no GPU can be used: the benchmark says it skipped). */
static inline int bench_start(mg__gpu_info *gi) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    const mg_status st = mg__gpu_query(ctx, 0, gi);
    if (st == MG_UNAVAILABLE) {
        printf(BENCH_NAME ": skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 0;
    }
    DIE_IF(st);
    /* as a GPU context does: the memory pool keeps freed memory (the engines' temporaries) */
    DIE_IF(mg__gpu_keep_pool(ctx, 0));
    return -1;
}

/* A generated graph on the host and, as a directed edge list of its stored edges, on the device,
 * with the device buffers of the runs. */
typedef struct {
    char name[64];
    mg_graph host;
    mg__gpu_graph dev;
    uint32_t *new_of_old;
    void *d_x, *d_y, *d_in, *d_out;
} bench_graph;

static inline void graph_build(bench_graph *B, const char *name, const mg_gen_options *o) {
    memset(B, 0, sizeof *B);
    snprintf(B->name, sizeof B->name, "%s", name);
    DIE_IF(mg_generate(ctx, &B->host, o));
    const uint32_t n = B->host->n;
    const uint64_t m = B->host->m;
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(B->host, &off, &idx, NULL);
    mg__coo coo;
    DIE_IF(mg__coo_init(ctx, &coo, m, false, MG_WEIGHT_NONE));
    coo.n = n;
    coo.m = m;
#pragma omp parallel for schedule(dynamic, 4096)
    for (uint32_t v = 0; v < n; v++)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            coo.src[e] = v;
            coo.dst[e] = idx[e];
        }
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = true; /* the stored edges already go both ways */
    go.keep_self_loops = true;
    go.keep_duplicates = true;
    DIE_IF(mg__gpu_graph_build(ctx, &coo, &go, &B->dev));
    mg__coo_free(&coo);
    if (B->dev.n != n || B->dev.m != m) {
        fprintf(stderr, BENCH_NAME ": device graph %s has n=%u m=%llu, host n=%u m=%llu\n", name,
                B->dev.n, (unsigned long long)B->dev.m, n, (unsigned long long)m);
        exit(1);
    }
    B->new_of_old = xmalloc((size_t)n * 4);
    DIE_IF(mg__gpu_copy_to_host(ctx, B->new_of_old, B->dev.d_new_of_old, (size_t)n * 4));
    DIE_IF(mg__gpu_alloc(ctx, &B->d_x, (size_t)n * 8 + 8));
    DIE_IF(mg__gpu_alloc(ctx, &B->d_y, (size_t)n * 8 + 8));
    DIE_IF(mg__gpu_alloc(ctx, &B->d_in, (size_t)n * 4 + 4));
    DIE_IF(mg__gpu_alloc(ctx, &B->d_out, (size_t)n * 4 + 4));
}

static inline void graph_free(bench_graph *B) {
    mg_graph_free(&B->host);
    mg__gpu_graph_free(&B->dev);
    free(B->new_of_old);
    mg__gpu_free(B->d_x);
    mg__gpu_free(B->d_y);
    mg__gpu_free(B->d_in);
    mg__gpu_free(B->d_out);
}

/* The graphs the BFS benchmarks run on, seed 1: R-MAT of scale size (edge factor 16) or a size x
 * size grid; name (len bytes) says which. */
static inline void bench_generator(mg_gen_options *o, char *name, size_t len, bool grid, int size) {
    mg_gen_options_init(o);
    o->seed = 1;
    if (grid) {
        o->kind = MG_GEN_GRID;
        o->width = o->height = (uint32_t)size;
        snprintf(name, len, "grid%dx%d", size, size);
    } else {
        o->kind = MG_GEN_RMAT;
        o->scale = size;
        o->edge_factor = 16;
        snprintf(name, len, "rmat%d", size);
    }
}

/* The BFS the benchmarks time: from a vertex of largest degree (in the giant component of these
 * graphs), whose depths by mg_bfs (caller numbering) come back in want (n entries). Returns the
 * source. */
static inline uint32_t bfs_reference(bench_graph *B, int32_t *want) {
    const uint32_t n = B->host->n;
    const uint64_t *off;
    mg_graph_csr(B->host, &off, NULL, NULL);
    uint32_t source = 0;
    for (uint32_t v = 1; v < n; v++)
        if (off[v + 1] - off[v] > off[source + 1] - off[source]) source = v;
    mg_vector depth = NULL;
    DIE_IF(mg_vector_create(ctx, &depth, B->host, MG_INT32));
    DIE_IF(mg_bfs(ctx, B->host, source, depth, NULL));
    DIE_IF(mg_vector_extract(ctx, depth, want));
    mg_vector_free(&depth);
    return source;
}

/* A device BFS's first level: depths -1 but the source's 0 in B->d_y (buf: n scratch entries), the
 * source alone in B->d_in, and the program depth[d] = depth[s] + 1 for unset d. */
static inline void bfs_start(bench_graph *B, uint32_t source, int32_t *buf, mg_program *p) {
    const uint32_t n = B->host->n;
    for (uint32_t i = 0; i < n; i++) buf[i] = -1;
    const uint32_t s_new = B->new_of_old[source];
    buf[s_new] = 0;
    DIE_IF(mg__gpu_copy_to_device(ctx, B->d_y, buf, (size_t)n * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, B->d_in, &s_new, 4));
    mg_program_init(p);
    p->contribution = MG_CONTRIB_SRC_PLUS_ONE;
    p->combine = MG_COMBINE_ANY;
    p->apply = MG_APPLY_IF_UNSET;
}

/* The device BFS's depths (in B->d_y; buf: n scratch entries) against want; exits naming the
 * variant when one differs. */
static inline void bfs_check(bench_graph *B, const int32_t *want, int32_t *buf, const char *variant) {
    const uint32_t n = B->host->n;
    DIE_IF(mg__gpu_copy_to_host(ctx, buf, B->d_y, (size_t)n * 4));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++) wrong += buf[B->new_of_old[i]] != want[i];
    if (wrong) {
        fprintf(stderr, BENCH_NAME ": %s BFS by %s: %u depths differ from mg_bfs\n", B->name, variant,
                wrong);
        exit(1);
    }
}

/* The PageRank-style step y = 0.85 * sum x[s] / outdeg(s) + 0.15 / n, every vertex active, on B:
 * its program p, source values x (not uniform: ids matter) on the device in B->d_x (through
 * scratch, n doubles), and the CPU engine's step in cpu, the reference the variants are checked
 * against (caller numbering). */
static inline void pagerank_step(bench_graph *B, mg_program *p, double *x, double *scratch, double *cpu) {
    const uint32_t n = B->host->n;
    for (uint32_t v = 0; v < n; v++) x[v] = (1.0 + (v % 7)) / n;
    mg_program_init(p);
    p->contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p->combine = MG_COMBINE_SUM;
    p->apply = MG_APPLY_AFFINE;
    p->alpha = 0.85;
    p->beta = 0.15 / n;
    mg_vector vx = NULL, vy = NULL;
    DIE_IF(mg_vector_create(ctx, &vx, B->host, MG_DOUBLE));
    DIE_IF(mg_vector_create(ctx, &vy, B->host, MG_DOUBLE));
    DIE_IF(mg_vector_load(ctx, vx, x));
    DIE_IF(mg_advance(ctx, B->host, p, NULL, vx, vy, NULL, NULL));
    DIE_IF(mg_vector_extract(ctx, vy, cpu));
    mg_vector_free(&vx);
    mg_vector_free(&vy);
    for (uint32_t v = 0; v < n; v++) scratch[B->new_of_old[v]] = x[v];
    DIE_IF(mg__gpu_copy_to_device(ctx, B->d_x, scratch, (size_t)n * 8));
}

#endif
