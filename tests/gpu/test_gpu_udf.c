/*
 * test_gpu_udf.c — user-defined programs on the GPU (issue 18) against the same programs on the
 * CPU (frontier/udf.c, the reference), vertex by vertex: BFS parents, a PageRank-style sum with
 * apply_all, an int64 min (SSSP-like, weighted), a float max along MG_EDGES_IN, a mode combine
 * (CDLP) along MG_EDGES_BOTH, an int64 sum along MG_EDGES_BOTH, a float sum with apply_all, ANY
 * combines (BFS parents; int64 with apply_all, values in both halves of the word; double along
 * MG_EDGES_BOTH), whose results may differ from the CPU's but must each be the contribution of an
 * active neighbour, and source_only contributions (PageRank's, pulled; an int64 sum, pushed); each
 * on a directed and an undirected R-MAT graph and one with hubs (a block per destination), in every
 * engine mode, from all vertices or random frontiers, without a mask, with one and with its
 * complement. Then whole loops (a BFS by a min and by an ANY, whose parents must form a BFS tree of
 * the CPU's depths, mg_cdlp),
 * a snippet NVRTC rejects (MG_COMPILE_ERROR naming the snippet's line), a host-only definition
 * (MG_UNAVAILABLE), and the caches: the first use compiles, a second definition finds it loaded,
 * and a second process (this program run again with --cache-child) loads the CUBIN from the disk
 * cache without compiling. Every mismatch names the case and the vertex. Exits 77 (skipped) where
 * no GPU is usable.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "mgraph.h"
#include "temp_dir.h"

#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>

extern char **environ;

static mg_context ctx;

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

typedef struct {
    const char *name;
    mg_type type;
    mg_udf_combine_kind kind;
    bool apply_all;
    const char *contribution, *combine, *identity, *apply;
    mg_edges edges;
    double tolerance; /* relative, for sums of floating-point values (0: exact) */
    bool source_only;
    /* an ANY: the contribution of an edge from src (it reads only src and src_value), and where
     * found the apply makes y the combined value */
    double (*any_value)(uint32_t src, double src_value);
} prog;

static double any_src(uint32_t src, double src_value) { return (void)src_value, (double)(int32_t)src; }
static double any_int64(uint32_t src, double src_value) { return src_value * 4294967296.0 + (double)src; }
static double any_double(uint32_t src, double src_value) { return src_value + (double)src * 0.0009765625; }

static const prog progs[] = {
    {"bfs-parents", MG_VERTEX, MG_UDF_REDUCE, false, "(int32_t)src", "a < b ? a : b", "INT32_MAX",
     "if (dst_value == -1) { dst_value = combined; joins = 1; }", MG_EDGES_OUT, 0, false, NULL},
    {"pagerank-sum", MG_DOUBLE, MG_UDF_REDUCE, true, "src_degree ? src_value / (double)src_degree : 0.0",
     "a + b", "0.0", "double v = 0.15 / 2048.0 + 0.85 * combined; joins = fabs(v - dst_value) > 0.25; dst_value = v;",
     MG_EDGES_OUT, 1e-9, false, NULL},
    {"sssp-int64", MG_INT64, MG_UDF_REDUCE, false, "src_value + (int64_t)weight", "a < b ? a : b", "INT64_MAX",
     "if (combined < dst_value) { dst_value = combined; joins = 1; }", MG_EDGES_OUT, 0, false, NULL},
    {"float-max-in", MG_FLOAT, MG_UDF_REDUCE, false, "src_value * (float)weight * 0.5f", "a > b ? a : b",
     "-INFINITY", "if (combined > dst_value) { dst_value = combined; joins = 1; }", MG_EDGES_IN, 0, false, NULL},
    {"cdlp-mode-both", MG_VERTEX, MG_UDF_MODE, true, "src_value", NULL, NULL,
     "dst_value = found ? combined : (int32_t)dst; joins = found && (dst & 1);", MG_EDGES_BOTH, 0, false, NULL},
    {"int64-sum-both", MG_INT64, MG_UDF_REDUCE, false, "(int64_t)src + src_value", "a + b", "0",
     "dst_value = combined + (int64_t)found; joins = (combined & 1) == 0;", MG_EDGES_BOTH, 0, false, NULL},
    {"float-sum-all", MG_FLOAT, MG_UDF_REDUCE, true, "src_value / 8.0f", "a + b", "0.0f",
     "dst_value = found ? combined : -1.0f; joins = combined > 4.0f;", MG_EDGES_OUT, 0, false, NULL},
    {"bfs-any", MG_VERTEX, MG_UDF_ANY, false, "(int32_t)src", NULL, NULL,
     "if (dst_value == -1) { dst_value = combined; joins = 1; }", MG_EDGES_OUT, 0, false, any_src},
    {"int64-any-all", MG_INT64, MG_UDF_ANY, true, "src_value * 4294967296ll + (int64_t)src", NULL, NULL,
     "dst_value = found ? combined : combined - 1; joins = found;", MG_EDGES_OUT, 0, false, any_int64},
    {"double-any-both", MG_DOUBLE, MG_UDF_ANY, false, "src_value + (double)src * 0.0009765625", NULL, NULL,
     "dst_value = combined; joins = 1;", MG_EDGES_BOTH, 0, false, any_double},
    {"pagerank-source-only", MG_DOUBLE, MG_UDF_REDUCE, true, "src_degree ? src_value / (double)src_degree : 0.0",
     "a + b", "0.0", "double v = 0.15 / 2048.0 + 0.85 * combined; joins = fabs(v - dst_value) > 0.25; dst_value = v;",
     MG_EDGES_OUT, 1e-9, true, NULL},
    {"int64-sum-source-only", MG_INT64, MG_UDF_REDUCE, false, "src_value / (int64_t)(src_degree + 1) + (int64_t)src",
     "a + b", "0", "dst_value += combined; joins = (combined & 1) == 0;", MG_EDGES_OUT, 0, true, NULL},
};
#define NPROGS (sizeof progs / sizeof progs[0])
enum { BFS_ANY = 7 }; /* progs[BFS_ANY] is bfs-any */

static mg_status define(const prog *p, mg_udf *u) {
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = p->type;
    def.combine_kind = p->kind;
    def.apply_all = p->apply_all;
    def.source_only = p->source_only;
    def.contribution = p->contribution;
    def.combine = p->combine;
    def.identity = p->identity;
    def.apply = p->apply;
    return mg_program_define(ctx, &def, u);
}

/* value v of a host array of type t, as a double */
static double at(mg_type t, const void *a, uint32_t v) {
    switch (t) {
    case MG_INT64: return (double)((const int64_t *)a)[v];
    case MG_FLOAT: return ((const float *)a)[v];
    case MG_DOUBLE: return ((const double *)a)[v];
    default: return ((const int32_t *)a)[v];
    }
}
static void put(mg_type t, void *a, uint32_t v, double x) {
    switch (t) {
    case MG_INT64: ((int64_t *)a)[v] = (int64_t)x; break;
    case MG_FLOAT: ((float *)a)[v] = (float)x; break;
    case MG_DOUBLE: ((double *)a)[v] = x; break;
    default: ((int32_t *)a)[v] = (int32_t)x; break;
    }
}

/* Random inputs for program p: labels with ties for a mode, unset parents for BFS, sums that
 * floats hold exactly (multiples of 1/8). */
static void random_values(const prog *p, uint32_t n, void *x, void *y) {
    for (uint32_t v = 0; v < n; v++) {
        double xv, yv;
        if (p->kind == MG_UDF_MODE) xv = next_rand() % 6, yv = next_rand() % 6;
        else if (p->type == MG_VERTEX) xv = next_rand() % n, yv = next_rand() % 2 ? -1.0 : (double)(next_rand() % n);
        else if (p->type == MG_INT64) xv = next_rand() % 1000, yv = next_rand() % 1500;
        else if (p->type == MG_FLOAT) xv = (next_rand() % 64) / 8.0, yv = (next_rand() % 64) / 8.0;
        else xv = (next_rand() % 1000) / 1000.0, yv = (next_rand() % 1000) / 1000.0;
        put(p->type, x, v, xv);
        put(p->type, y, v, yv);
    }
}

typedef struct {
    void *y;
    bool *joined;
    mg_status status;
    mg_advance_info info;
} outcome;

/* One step of u on backend b from the given inputs; the results read back on the host. */
static void run_step(mg_backend b, mg_mode mode, mg_graph g, const prog *pr, mg_udf u, const void *x0,
                     const void *y0, const uint32_t *in_list, uint32_t in_count, const uint32_t *mask_list,
                     uint32_t mask_count, bool complement, outcome *o) {
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector x = NULL, y = NULL;
    mg_frontier in = NULL, mask = NULL, out = NULL;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_vector_create(ctx, &x, g, pr->type));
    CHECK_OK(ctx, mg_vector_create(ctx, &y, g, pr->type));
    CHECK_OK(ctx, mg_vector_load(ctx, x, x0));
    CHECK_OK(ctx, mg_vector_load(ctx, y, y0));
    CHECK_OK(ctx, mg_frontier_create(ctx, &out, g));
    if (in_list != NULL) {
        CHECK_OK(ctx, mg_frontier_create(ctx, &in, g));
        for (uint32_t i = 0; i < in_count; i++) CHECK_OK(ctx, mg_frontier_add(ctx, in, in_list[i]));
    }
    if (mask_list != NULL) {
        CHECK_OK(ctx, mg_frontier_create(ctx, &mask, g));
        for (uint32_t i = 0; i < mask_count; i++) CHECK_OK(ctx, mg_frontier_add(ctx, mask, mask_list[i]));
    }
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.edges = pr->edges;
    p.mask_complement = complement;
    CHECK_OK(ctx, mg_context_set_backend(ctx, b));
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    o->status = mg_advance(ctx, g, &p, in, x, y, mask, out);
    if (o->status == MG_SUCCESS) CHECK_OK(ctx, mg_context_last_advance(ctx, &o->info));
    else fprintf(stderr, "    (%s backend: %s)\n", b == MG_BACKEND_GPU ? "gpu" : "cpu", mg_context_error(ctx));
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_vector_extract(ctx, y, o->y));
    for (uint32_t v = 0; v < n; v++) CHECK_OK(ctx, mg_frontier_contains(ctx, out, v, &o->joined[v]));
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_frontier_free(&in);
    mg_frontier_free(&mask);
    mg_frontier_free(&out);
}

static const char *mode_names[] = {"auto", "sparse", "pull", "dense"};

/* An ANY program's step: whether y (after it) is the contribution of one of d's active neighbours
 * along the program's edges (sources of d's in-edges; for MG_EDGES_IN of its out-edges; both for
 * MG_EDGES_BOTH), i.e. one of the values the combine may pick; *count: how many there are. */
static bool any_candidate(mg_graph g, const prog *pr, const bool *active, const void *x, uint32_t d, double y,
                          uint32_t *count) {
    const uint64_t *off[2];
    const uint32_t *idx[2];
    CHECK_OK(ctx, mg_graph_csc(g, &off[0], &idx[0], NULL));
    CHECK_OK(ctx, mg_graph_csr(g, &off[1], &idx[1], NULL));
    bool hit = false;
    *count = 0;
    for (int dir = 0; dir < 2; dir++) {
        if ((dir == 0 && pr->edges == MG_EDGES_IN) || (dir == 1 && pr->edges == MG_EDGES_OUT)) continue;
        for (uint64_t e = off[dir][d]; e < off[dir][d + 1]; e++) {
            const uint32_t s = idx[dir][e];
            if (!active[s]) continue;
            ++*count;
            hit |= pr->any_value(s, at(pr->type, x, s)) == y;
        }
    }
    return hit;
}

/* Every program, mode, frontier and mask on g, the GPU against the CPU. */
static void compare_steps(const char *graph_name, mg_graph g, mg_udf *udfs) {
    const uint32_t n = mg_graph_num_vertices(g);
    void *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
    uint32_t *in_list = malloc((size_t)n * sizeof *in_list), *mask_list = malloc((size_t)n * sizeof *mask_list);
    bool *active = malloc(n);
    outcome go = {malloc((size_t)n * 8), malloc(n), 0, {0}}, co = {malloc((size_t)n * 8), malloc(n), 0, {0}};
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_PULL, MG_MODE_SPARSE};
    const uint32_t in_percent[] = {100, 2, 60}; /* 100: in = NULL (every vertex) */
    for (size_t pi = 0; pi < NPROGS; pi++) {
        const prog *pr = &progs[pi];
        for (int mi = 0; mi < 3; mi++)
            for (int fi = 0; fi < 3; fi++)
                for (int ki = 0; ki < 3; ki++) {
                    random_values(pr, n, x, y);
                    uint32_t in_count = 0, mask_count = 0;
                    for (uint32_t v = 0; v < n; v++) {
                        if (next_rand() % 100 < in_percent[fi]) in_list[in_count++] = v;
                        if (next_rand() % 2) mask_list[mask_count++] = v;
                    }
                    char name[200];
                    snprintf(name, sizeof name, "%s, %s, mode %s, frontier %u%%, %s", graph_name, pr->name,
                             mode_names[modes[mi]], in_percent[fi],
                             ki == 0 ? "no mask" : ki == 1 ? "mask" : "mask complement");
                    const uint32_t *il = fi == 0 ? NULL : in_list, *ml = ki == 0 ? NULL : mask_list;
                    memset(active, fi == 0, n);
                    for (uint32_t i = 0; fi != 0 && i < in_count; i++) active[in_list[i]] = true;
                    run_step(MG_BACKEND_GPU, modes[mi], g, pr, udfs[pi], x, y, il, in_count, ml, mask_count,
                             ki == 2, &go);
                    run_step(MG_BACKEND_CPU, modes[mi], g, pr, udfs[pi], x, y, il, in_count, ml, mask_count,
                             ki == 2, &co);
                    if (go.status != co.status) {
                        fprintf(stderr, "%s: gpu returned %s, cpu %s\n", name, mg_status_string(go.status),
                                mg_status_string(co.status));
                        CHECK(go.status == co.status);
                        continue;
                    }
                    if (go.status != MG_SUCCESS) continue; /* both refused (a push the program cannot run) */
                    uint32_t bad = 0;
                    for (uint32_t v = 0; v < n; v++) {
                        const double gv = at(pr->type, go.y, v), cv = at(pr->type, co.y, v);
                        const bool same = pr->tolerance > 0 ? fabs(gv - cv) <= pr->tolerance * fmax(1.0, fabs(cv))
                                                            : gv == cv;
                        if (same && go.joined[v] == co.joined[v]) continue;
                        if (!same && pr->any_value != NULL && go.joined[v] == co.joined[v]) {
                            /* an ANY may pick another neighbour than the CPU did: one of them */
                            uint32_t count = 0;
                            const bool gpu_ok = any_candidate(g, pr, active, x, v, gv, &count);
                            const bool cpu_ok = any_candidate(g, pr, active, x, v, cv, &count);
                            if (gpu_ok && cpu_ok) continue;
                            if (bad++ < 5)
                                fprintf(stderr, "%s: vertex %u: gpu y %.17g is %sthe contribution of one of its %u "
                                        "active neighbours; cpu y %.17g is %s; joined %d (y before %.17g)\n",
                                        name, v, gv, gpu_ok ? "" : "NOT ", count, cv, cpu_ok ? "one" : "NOT one",
                                        go.joined[v], at(pr->type, y, v));
                            continue;
                        }
                        if (bad++ < 5)
                            fprintf(stderr, "%s: vertex %u: gpu y %.17g joined %d, cpu y %.17g joined %d (x %.17g, y before %.17g)\n",
                                    name, v, gv, go.joined[v], cv, co.joined[v], at(pr->type, x, v), at(pr->type, y, v));
                    }
                    if (bad) fprintf(stderr, "%s: %u of %u vertices differ\n", name, bad, n);
                    CHECK(bad == 0);
                    if (go.info.frontier_vertices != co.info.frontier_vertices ||
                        go.info.output_vertices != co.info.output_vertices)
                        fprintf(stderr, "%s: info: gpu frontier %u output %u, cpu frontier %u output %u\n", name,
                                go.info.frontier_vertices, go.info.output_vertices, co.info.frontier_vertices,
                                co.info.output_vertices);
                    CHECK(go.info.frontier_vertices == co.info.frontier_vertices);
                    CHECK(go.info.output_vertices == co.info.output_vertices);
                }
    }
    free(x), free(y), free(in_list), free(mask_list), free(active);
    free(go.y), free(go.joined), free(co.y), free(co.joined);
}

/* BFS parents from source with u on backend b, one level per mg_advance (x = y = parent). */
static void bfs_loop(mg_backend b, mg_graph g, mg_udf u, uint32_t source, int32_t *parent_out) {
    mg_vector parent = NULL;
    mg_frontier front = NULL, next = NULL, visited = NULL;
    CHECK_OK(ctx, mg_context_set_backend(ctx, b));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_frontier_create(ctx, &front, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &next, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &visited, g));
    CHECK_OK(ctx, mg_vector_assign(ctx, parent, NULL, -1));
    CHECK_OK(ctx, mg_vector_set(ctx, parent, source, source));
    CHECK_OK(ctx, mg_frontier_add(ctx, front, source));
    CHECK_OK(ctx, mg_frontier_add(ctx, visited, source));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.mask_complement = true;
    uint32_t count = 1;
    for (int level = 0; count > 0 && level < 100000; level++) {
        mg_status st = mg_advance(ctx, g, &p, front, parent, parent, visited, next);
        CHECK_OK(ctx, st);
        if (st != MG_SUCCESS) break;
        CHECK_OK(ctx, mg_frontier_union(ctx, visited, next));
        CHECK_OK(ctx, mg_frontier_count(ctx, next, &count));
        mg_frontier t = front;
        front = next;
        next = t;
    }
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_vector_extract(ctx, parent, parent_out));
    mg_vector_free(&parent);
    mg_frontier_free(&front);
    mg_frontier_free(&next);
    mg_frontier_free(&visited);
}

static void compare_i32(const char *what, const int32_t *gpu, const int32_t *cpu, uint32_t n) {
    uint32_t bad = 0;
    for (uint32_t v = 0; v < n; v++)
        if (gpu[v] != cpu[v] && bad++ < 5) fprintf(stderr, "%s: vertex %u: gpu %d, cpu %d\n", what, v, gpu[v], cpu[v]);
    if (bad) fprintf(stderr, "%s: %u of %u vertices differ\n", what, bad, n);
    CHECK(bad == 0);
}

/* Parents from an ANY's BFS from source: a BFS tree of mg_bfs's depths on the CPU (each reached
 * vertex's parent an in-neighbour one level up; the unreached without one). */
static void check_bfs_tree(const char *what, mg_graph g, uint32_t source, const int32_t *parent) {
    const uint32_t n = mg_graph_num_vertices(g);
    int32_t *depth = malloc(n * sizeof *depth);
    mg_vector dv = NULL;
    const uint64_t *off;
    const uint32_t *idx;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_vector_create(ctx, &dv, g, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, g, source, dv, NULL));
    CHECK_OK(ctx, mg_vector_extract(ctx, dv, depth));
    CHECK_OK(ctx, mg_graph_csc(g, &off, &idx, NULL));
    uint32_t bad = 0;
    for (uint32_t v = 0; v < n; v++) {
        const int32_t p = parent[v];
        bool ok;
        const char *why = "";
        if (v == source) ok = p == (int32_t)source, why = "the source is not its own parent";
        else if (depth[v] < 0) ok = p == -1, why = "unreached on the CPU but has a parent";
        else if (p < 0 || (uint32_t)p >= n) ok = false, why = "reached on the CPU but has no parent";
        else {
            bool edge = false;
            for (uint64_t e = off[v]; e < off[v + 1] && !edge; e++) edge = idx[e] == (uint32_t)p;
            ok = edge && depth[p] == depth[v] - 1;
            why = !edge ? "the parent is not an in-neighbour" : "the parent is not one level up";
        }
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: vertex %u (depth %d): parent %d (depth %d): %s\n", what, v, depth[v], p,
                    p >= 0 && (uint32_t)p < n ? depth[p] : -1, why);
    }
    if (bad) fprintf(stderr, "%s: %u of %u vertices wrong\n", what, bad, n);
    CHECK(bad == 0);
    mg_vector_free(&dv);
    free(depth);
}

static mg_status make_graph(mg_graph *g, int scale, bool directed, mg_weight_type w) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.scale = scale;
    o.edge_factor = 16;
    o.weights = w;
    o.graph.directed = directed;
    return mg_generate(ctx, g, &o);
}

/* R-MAT 12 (undirected) with vertices 0-2 joined to every other: in-degree 4095 each (parallel
 * edges are merged, so on 2048 vertices a hub stopped at 2047), so in-degree group 1 (2048 and
 * more, pulled by a block per destination) is not empty, which no R-MAT graph of this size has. */
static mg_status make_hub_graph(mg_graph *g) {
    mg_graph base = NULL;
    mg_status st = make_graph(&base, 12, false, MG_WEIGHT_FLOAT);
    if (st != MG_SUCCESS) return st;
    const uint32_t n = mg_graph_num_vertices(base);
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    st = mg_graph_csr(base, &off, &idx, &w);
    const uint64_t m = off[n] + 3ull * n;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    float *wt = malloc(m * sizeof *wt);
    if (st == MG_SUCCESS && src != NULL && dst != NULL && wt != NULL) {
        uint64_t k = 0;
        for (uint32_t v = 0; v < n; v++)
            for (uint64_t e = off[v]; e < off[v + 1]; e++, k++) {
                src[k] = v;
                dst[k] = idx[e];
                wt[k] = ((const float *)w)[e];
            }
        for (uint32_t h = 0; h < 3; h++)
            for (uint32_t v = 0; v < n; v++, k++) {
                src[k] = h;
                dst[k] = v; /* h -> h is a self-loop, dropped */
                wt[k] = (float)(1 + (v + h) % 5);
            }
        mg_graph_options go;
        mg_graph_options_init(&go);
        go.directed = false;
        st = mg_graph_create_from_coo(ctx, g, n, k, src, dst, wt, MG_WEIGHT_FLOAT, &go);
    } else if (st == MG_SUCCESS) {
        st = MG_OUT_OF_MEMORY;
    }
    free(src), free(dst), free(wt);
    mg_graph_free(&base);
    return st;
}

/* One step of the BFS program on the GPU; its info afterwards. */
static mg_status first_gpu_step(mg_graph g, mg_udf u, mg_udf_info *info) {
    mg_vector parent = NULL;
    mg_status st = mg_context_set_backend(ctx, MG_BACKEND_GPU);
    if (st == MG_SUCCESS) st = mg_vector_create(ctx, &parent, g, MG_VERTEX);
    if (st == MG_SUCCESS) st = mg_vector_assign(ctx, parent, NULL, -1);
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    if (st == MG_SUCCESS) st = mg_advance(ctx, g, &p, NULL, parent, parent, NULL, NULL);
    if (st == MG_SUCCESS) st = mg_udf_get_info(ctx, u, info);
    mg_vector_free(&parent);
    return st;
}

/* The second process: the cache folder holds the CUBIN the first compiled. */
static int cache_child(void) {
    mg_graph g = NULL;
    mg_udf u = NULL;
    mg_udf_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, make_graph(&g, 11, true, MG_WEIGHT_INT32));
    CHECK_OK(ctx, define(&progs[0], &u));
    CHECK_OK(ctx, first_gpu_step(g, u, &info));
    if (!info.gpu_disk_hit || info.gpu_memory_hit || info.gpu_jit_seconds != 0)
        fprintf(stderr, "cache child: gpu_disk_hit %d gpu_memory_hit %d gpu_jit_seconds %g (%s)\n", info.gpu_disk_hit,
                info.gpu_memory_hit, info.gpu_jit_seconds, info.gpu_object_path);
    CHECK(info.gpu_disk_hit && !info.gpu_memory_hit && info.gpu_jit_seconds == 0);
    mg_udf_free(&u);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return check_report();
}

static void contribution_fn(void *value, uint32_t src, uint32_t dst, const void *src_value, double weight,
                            uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)src_degree, (void)user;
    *(double *)value = *(const double *)src_value;
}
static void sum_fn(void *a, const void *b, void *user) {
    (void)user;
    *(double *)a += *(const double *)b;
}
static bool assign_fn(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst, (void)user;
    *(double *)dst_value = *(const double *)combined;
    return true;
}
static const double zero = 0;

int main(int argc, char **argv) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    if (mg_context_set_backend(ctx, MG_BACKEND_GPU) != MG_SUCCESS) {
        printf("skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "--cache-child") == 0) return cache_child();
    if (temp_dir_make("gpu_udf") != 0) return 2;
    setenv("MG_JIT_CACHE", tmpdir, 1); /* a fresh cache: the first use compiles */

    mg_graph directed = NULL, undirected = NULL;
    CHECK_OK(ctx, make_graph(&directed, 11, true, MG_WEIGHT_INT32));
    CHECK_OK(ctx, make_graph(&undirected, 11, false, MG_WEIGHT_FLOAT));
    mg_udf udfs[NPROGS] = {NULL};
    CHECK(strcmp(progs[BFS_ANY].name, "bfs-any") == 0);
    for (size_t i = 0; i < NPROGS; i++) {
        CHECK_OK(ctx, define(&progs[i], &udfs[i]));
        if (udfs[i] == NULL) fprintf(stderr, "program %s: %s\n", progs[i].name, mg_context_error(ctx));
    }
    if (directed == NULL || undirected == NULL || check_failures_ > 0) return check_report();

    /* the caches: compiled at first use, then found loaded */
    mg_udf_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, first_gpu_step(directed, udfs[0], &info));
    if (!(info.gpu_jit_seconds > 0 && !info.gpu_disk_hit && !info.gpu_memory_hit && info.gpu_object_path[0]))
        fprintf(stderr, "first use: gpu_jit_seconds %g gpu_disk_hit %d gpu_memory_hit %d path '%s'\n",
                info.gpu_jit_seconds, info.gpu_disk_hit, info.gpu_memory_hit, info.gpu_object_path);
    CHECK(info.gpu_jit_seconds > 0 && !info.gpu_disk_hit && !info.gpu_memory_hit);
    CHECK(access(info.gpu_object_path, R_OK) == 0);
    printf("first GPU compilation of %s: %.3f s (%s)\n", progs[0].name, info.gpu_jit_seconds, info.gpu_object_path);
    mg_udf again = NULL;
    CHECK_OK(ctx, define(&progs[0], &again));
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, first_gpu_step(directed, again, &info));
    CHECK(info.gpu_memory_hit && info.gpu_jit_seconds == 0);
    mg_udf_free(&again);
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    if (len > 0) {
        self[len] = '\0';
        char *child_argv[] = {self, "--cache-child", NULL};
        pid_t pid;
        int ws = 0;
        CHECK(posix_spawn(&pid, self, NULL, NULL, child_argv, environ) == 0);
        CHECK(waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }

    compare_steps("directed R-MAT 11 (int32 weights)", directed, udfs);
    compare_steps("undirected R-MAT 11 (float weights)", undirected, udfs);
    mg_graph hubs = NULL;
    CHECK_OK(ctx, make_hub_graph(&hubs));
    if (hubs != NULL) {
        const uint64_t *in_off;
        CHECK_OK(ctx, mg_graph_csc(hubs, &in_off, NULL, NULL));
        CHECK(in_off[1] - in_off[0] >= 2048); /* the case this graph is for */
        compare_steps("undirected R-MAT 12 with three hubs (float weights)", hubs, udfs);
    }
    mg_graph_free(&hubs);

    /* whole loops: a BFS by the parents program, mg_cdlp (its mode program on the GPU) */
    const uint32_t n = mg_graph_num_vertices(directed);
    int32_t *gp = malloc(n * sizeof *gp), *cp = malloc(n * sizeof *cp);
    mg_graph graphs[2] = {directed, undirected};
    for (int gi = 0; gi < 2; gi++) {
        bfs_loop(MG_BACKEND_GPU, graphs[gi], udfs[0], 1, gp);
        bfs_loop(MG_BACKEND_CPU, graphs[gi], udfs[0], 1, cp);
        compare_i32(gi ? "BFS loop, undirected" : "BFS loop, directed", gp, cp, n);
        bfs_loop(MG_BACKEND_GPU, graphs[gi], udfs[BFS_ANY], 1, gp);
        check_bfs_tree(gi ? "BFS loop by ANY on the GPU, undirected" : "BFS loop by ANY on the GPU, directed",
                       graphs[gi], 1, gp);
        mg_vector labels = NULL;
        CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
        CHECK_OK(ctx, mg_vector_create(ctx, &labels, graphs[gi], MG_VERTEX));
        CHECK_OK(ctx, mg_cdlp(ctx, graphs[gi], 5, labels));
        CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
        CHECK_OK(ctx, mg_vector_extract(ctx, labels, gp));
        CHECK_OK(ctx, mg_cdlp(ctx, graphs[gi], 5, labels));
        CHECK_OK(ctx, mg_vector_extract(ctx, labels, cp));
        compare_i32(gi ? "mg_cdlp, undirected" : "mg_cdlp, directed", gp, cp, n);
        mg_vector_free(&labels);
    }
    free(gp), free(cp);

    /* a snippet NVRTC rejects, and a host-only definition: refused, y untouched */
    mg_vector x = NULL, y = NULL;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    CHECK_OK(ctx, mg_vector_create(ctx, &x, directed, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &y, directed, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_assign(ctx, x, NULL, 1));
    CHECK_OK(ctx, mg_vector_assign(ctx, y, NULL, -5));
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.runner = MG_UDF_HOST; /* the CPU compiles nothing, so only NVRTC sees the snippets */
    def.contribution_fn = contribution_fn;
    def.combine_fn = sum_fn;
    def.identity_value = &zero;
    def.apply_fn = assign_fn;
    def.contribution = "src_value";
    def.combine = "a + b";
    def.identity = "0.0";
    def.apply = "dst_value = combined;\njoins = not_a_name;";
    mg_udf bad = NULL, host_only = NULL;
    CHECK_OK(ctx, mg_program_define(ctx, &def, &bad));
    mg_program p;
    mg_program_init(&p);
    p.udf = bad;
    mg_status st = mg_advance(ctx, directed, &p, NULL, x, y, NULL, NULL);
    CHECK(st == MG_COMPILE_ERROR);
    if (st != MG_COMPILE_ERROR || strstr(mg_context_error(ctx), "apply(2)") == NULL)
        fprintf(stderr, "compile error case: %s: %s\n", mg_status_string(st), mg_context_error(ctx));
    CHECK(strstr(mg_context_error(ctx), "apply(2)") != NULL);
    double v = 0;
    CHECK_OK(ctx, mg_vector_get(ctx, y, 0, &v));
    CHECK(v == -5);
    def.contribution = def.combine = def.identity = def.apply = NULL;
    CHECK_OK(ctx, mg_program_define(ctx, &def, &host_only));
    p.udf = host_only;
    st = mg_advance(ctx, directed, &p, NULL, x, y, NULL, NULL);
    CHECK(st == MG_UNAVAILABLE && strstr(mg_context_error(ctx), "host-only") != NULL);
    if (st != MG_UNAVAILABLE) fprintf(stderr, "host-only case: %s: %s\n", mg_status_string(st), mg_context_error(ctx));
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
    CHECK_OK(ctx, mg_advance(ctx, directed, &p, NULL, x, y, NULL, NULL)); /* the CPU runs it */

    mg_udf_free(&bad);
    mg_udf_free(&host_only);
    for (size_t i = 0; i < NPROGS; i++) mg_udf_free(&udfs[i]);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_graph_free(&directed);
    mg_graph_free(&undirected);
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
