/*
 * test_gpu_preprocess.c — GPU preprocessing (preprocess/gpu_preprocess.cu) against the CPU build
 * (core/graph.c): for generated and hand-made edge lists, in every combination of directed /
 * undirected, weights none / int / float, self-loops and parallel edges kept or dropped, the GPU
 * graph must hold exactly the CPU graph's out- and in-edges (and weights) once un-permuted, its
 * permutation must be a bijection and its in-degree groups (Table 3.1) contiguous and right.
 *
 * Exits 77 (ctest: skipped) when no GPU can be used. MG_GPU_TEST_SMALL=1 keeps only small graphs
 * (for compute-sanitizer).
 */
#include "mg_internal.h"
#include "../../preprocess/gpu_preprocess.h"
#include "check.h"
#include "gpu_test.h"

#include <math.h>
#include <omp.h>

/* ---- helpers ----------------------------------------------------------------------------------- */

/* The CPU builder's order-preserving weight image (core/graph.c), so rows sort the same way. */
static uint32_t wkey(mg_weight_type t, uint32_t bits) {
    if (t == MG_WEIGHT_NONE) return 0;
    if (t == MG_WEIGHT_INT32) return bits ^ 0x80000000u;
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A raw edge list from a generator: generated as a directed multigraph with loops, so the graph's
 * CSR holds exactly the generator's edges, which are then read back as a coo. */
static bool coo_from_generator(mg_generator kind, int scale, double ef, mg_weight_type wt,
                               mg__coo *coo) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.edge_factor = ef;
    o.weights = wt;
    o.weight_min = 1;
    o.weight_max = 8; /* few values: parallel edges often tie or differ in weight */
    o.seed = 42;
    o.graph.directed = true;
    o.graph.keep_self_loops = true;
    o.graph.keep_duplicates = true;
    mg_graph g = NULL;
    mg_status st = mg_generate(ctx, &g, &o);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    mg_graph_csr(g, &off, &idx, &w);
    st = mg__coo_init(ctx, coo, g->m, wt != MG_WEIGHT_NONE, wt);
    CHECK_OK(ctx, st);
    if (st == MG_SUCCESS) {
        coo->n = g->n;
        coo->m = g->m;
        for (uint32_t v = 0; v < g->n; v++)
            for (uint64_t e = off[v]; e < off[v + 1]; e++) {
                coo->src[e] = v;
                coo->dst[e] = idx[e];
            }
        if (wt != MG_WEIGHT_NONE) memcpy(coo->weights, w, (size_t)g->m * 4);
    }
    mg_graph_free(&g);
    return st == MG_SUCCESS;
}

typedef struct {
    uint64_t *off;
    uint32_t *idx;
    uint32_t *w;
} host_csr;

static void host_csr_free(host_csr *h) {
    free(h->off);
    free(h->idx);
    free(h->w);
    memset(h, 0, sizeof *h);
}

static bool fetch_csr(const mg__gpu_graph *g, const uint64_t *d_off, const uint32_t *d_idx,
                      const void *d_w, host_csr *h) {
    memset(h, 0, sizeof *h);
    h->off = malloc(((size_t)g->n + 1) * 8);
    h->idx = malloc((size_t)g->m * 4 + 4);
    h->w = malloc((size_t)g->m * 4 + 4);
    if (!h->off || !h->idx || !h->w) return false;
    mg_status st = mg__gpu_copy_to_host(ctx, h->off, d_off, ((size_t)g->n + 1) * 8);
    if (st == MG_SUCCESS) st = mg__gpu_copy_to_host(ctx, h->idx, d_idx, (size_t)g->m * 4);
    if (st == MG_SUCCESS && d_w != NULL)
        st = mg__gpu_copy_to_host(ctx, h->w, d_w, (size_t)g->m * 4);
    CHECK_OK(ctx, st);
    return st == MG_SUCCESS;
}

/* Every old vertex's edges (one direction) agree between the CPU graph and the GPU graph once the
 * GPU's ids are mapped back; the GPU rows are also sorted by new neighbour id, then weight. */
static bool same_edges(const char *which, const mg__csr *cpu, const host_csr *gpu, uint32_t n,
                       mg_weight_type wt, const uint32_t *new_of_old, const uint32_t *old_of_new) {
    uint64_t maxdeg = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t d = cpu->offsets[v + 1] - cpu->offsets[v];
        if (d > maxdeg) maxdeg = d;
    }
    uint64_t *a = malloc((size_t)maxdeg * 8 + 8), *b = malloc((size_t)maxdeg * 8 + 8);
    bool ok = a != NULL && b != NULL;
    const uint32_t *cw = cpu->weights;
    for (uint32_t v = 0; ok && v < n; v++) {
        const uint32_t nv = new_of_old[v];
        const uint64_t clo = cpu->offsets[v], clen = cpu->offsets[v + 1] - clo;
        const uint64_t glo = gpu->off[nv], glen = gpu->off[nv + 1] - glo;
        if (clen != glen) {
            fprintf(stderr, "  %s: vertex %u (new %u): %llu edges on the CPU, %llu on the GPU\n",
                    which, v, nv, (unsigned long long)clen, (unsigned long long)glen);
            ok = false;
            break;
        }
        for (uint64_t i = 0; i < clen; i++) {
            a[i] = (uint64_t)cpu->indices[clo + i] << 32 | (cw ? wkey(wt, cw[clo + i]) : 0);
            const uint32_t u = gpu->idx[glo + i];
            const uint64_t wk = wt != MG_WEIGHT_NONE ? wkey(wt, gpu->w[glo + i]) : 0;
            if (u >= n) {
                fprintf(stderr, "  %s: new vertex %u has neighbour %u >= n\n", which, nv, u);
                ok = false;
                break;
            }
            if (i > 0) {
                const uint32_t pu = gpu->idx[glo + i - 1];
                const uint64_t pw = wt != MG_WEIGHT_NONE ? wkey(wt, gpu->w[glo + i - 1]) : 0;
                if (pu > u || (pu == u && pw > wk)) {
                    fprintf(stderr, "  %s: new vertex %u's row is not sorted at position %llu\n",
                            which, nv, (unsigned long long)i);
                    ok = false;
                    break;
                }
            }
            b[i] = (uint64_t)old_of_new[u] << 32 | wk;
        }
        if (!ok) break;
        qsort(b, (size_t)clen, 8, cmp_u64);
        for (uint64_t i = 0; i < clen; i++)
            if (a[i] != b[i]) {
                fprintf(stderr, "  %s: vertex %u edge %llu: CPU (%u, key %08x), GPU (%u, key %08x)\n",
                        which, v, (unsigned long long)i, (uint32_t)(a[i] >> 32), (uint32_t)a[i],
                        (uint32_t)(b[i] >> 32), (uint32_t)b[i]);
                ok = false;
                break;
            }
    }
    free(a);
    free(b);
    return ok;
}

/* Builds both graphs from coo and compares them; prints one summary line. */
static void compare(const char *name, const mg__coo *coo, bool directed, bool keep_loops,
                    bool keep_dups) {
    mg_graph_options opts;
    mg_graph_options_init(&opts);
    opts.directed = directed;
    opts.keep_self_loops = keep_loops;
    opts.keep_duplicates = keep_dups;
    char label[160];
    snprintf(label, sizeof label, "%s %s%s%s", name, directed ? "dir" : "undir",
             keep_loops ? " +loops" : "", keep_dups ? " +dups" : "");

    mg_graph cpu = NULL;
    mg__gpu_graph gpu;
    host_csr in = {0}, out = {0};
    uint32_t *new_of_old = NULL, *old_of_new = NULL;
    uint8_t *seen = NULL;
    const double t0 = omp_get_wtime();
    mg_status st = mg__graph_from_coo(ctx, &cpu, coo, &opts);
    const double cpu_s = omp_get_wtime() - t0;
    CHECK_OK(ctx, st);
    st = mg__gpu_graph_build(ctx, coo, &opts, &gpu);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS || cpu == NULL) goto done;

    /* the phases add up to the reported time; the upload is timed apart */
    double phases = 0;
    bool phases_ok = gpu.upload_seconds >= 0;
    for (int k = 0; k < MG__GPU_BUILD_PHASES; k++) {
        phases_ok = phases_ok && gpu.phase_seconds[k] >= 0;
        phases += gpu.phase_seconds[k];
    }
    CHECK(phases_ok && gpu.seconds > 0 && fabs(phases - gpu.seconds) <= 1e-9 * (1 + gpu.seconds));

    const uint32_t n = gpu.n;
    CHECK(gpu.n == cpu->n);
    CHECK(gpu.m == cpu->m);
    CHECK(gpu.directed == directed);
    CHECK(gpu.weight_type == cpu->weight_type);
    CHECK(gpu.in_shares_out == !directed);
    if (gpu.n != cpu->n || gpu.m != cpu->m) {
        fprintf(stderr, "  %s: CPU n=%u m=%llu, GPU n=%u m=%llu\n", label, cpu->n,
                (unsigned long long)cpu->m, gpu.n, (unsigned long long)gpu.m);
        goto done;
    }

    /* the permutation is a bijection, inverse both ways */
    new_of_old = malloc((size_t)n * 4 + 4);
    old_of_new = malloc((size_t)n * 4 + 4);
    seen = calloc((size_t)n + 1, 1);
    CHECK(new_of_old && old_of_new && seen);
    if (!new_of_old || !old_of_new || !seen) goto done;
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, new_of_old, gpu.d_new_of_old, (size_t)n * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, old_of_new, gpu.d_old_of_new, (size_t)n * 4));
    bool bij = true;
    for (uint32_t v = 0; v < n && bij; v++) {
        if (new_of_old[v] >= n || seen[new_of_old[v]] || old_of_new[new_of_old[v]] != v) bij = false;
        else seen[new_of_old[v]] = 1;
    }
    CHECK(bij);
    if (!bij) goto done;

    CHECK(fetch_csr(&gpu, gpu.d_in_offsets, gpu.d_in_indices, gpu.d_in_weights, &in));
    CHECK(fetch_csr(&gpu, gpu.d_out_offsets, gpu.d_out_indices, gpu.d_out_weights, &out));
    if (!in.off || !out.off) goto done;
    CHECK(in.off[0] == 0 && in.off[n] == gpu.m);
    CHECK(out.off[0] == 0 && out.off[n] == gpu.m);

    /* groups: contiguous, in order, each vertex's in-degree in its group's range, old ids rising
     * within a group (the stable renumbering) */
    bool groups_ok = gpu.group_start[0] == 0 && gpu.group_start[MG__GPU_GROUPS] == n;
    uint64_t edges_sum = 0;
    for (int g = 1; g <= MG__GPU_GROUPS && groups_ok; g++) {
        const uint32_t lo = gpu.group_start[g - 1], hi = gpu.group_start[g];
        if (lo > hi) { groups_ok = false; break; }
        uint64_t edges = 0;
        for (uint32_t i = lo; i < hi; i++) {
            const uint64_t d = in.off[i + 1] - in.off[i];
            edges += d;
            const uint32_t v = old_of_new[i];
            if (mg__degree_group(d) != g || d != cpu->in.offsets[v + 1] - cpu->in.offsets[v] ||
                (i > lo && old_of_new[i - 1] >= v)) {
                fprintf(stderr, "  %s: new vertex %u (old %u, in-degree %llu) in group %d\n",
                        label, i, v, (unsigned long long)d, g);
                groups_ok = false;
                break;
            }
        }
        if (edges != gpu.group_edges[g - 1]) groups_ok = false;
        edges_sum += edges;
    }
    CHECK(groups_ok);
    CHECK(edges_sum == gpu.m);

    CHECK(same_edges("out-edges", &cpu->out, &out, n, gpu.weight_type, new_of_old, old_of_new));
    CHECK(same_edges("in-edges", &cpu->in, &in, n, gpu.weight_type, new_of_old, old_of_new));

    const size_t wbytes = gpu.weight_type != MG_WEIGHT_NONE ? 4 : 0;
    const size_t expect_csr = ((size_t)n + 1) * 8 + (size_t)gpu.m * (4 + wbytes);
    CHECK(gpu.csr_bytes == expect_csr);
    CHECK(gpu.device_bytes >= expect_csr);
    CHECK(gpu.seconds > 0);

    printf("%-34s n=%-8u m=%-9llu gpu %8.2f ms  cpu %8.2f ms  device %8.2f MiB = %.2f x CSR  "
           "groups %u/%u/%u/%u/%u/%u\n",
           label, n, (unsigned long long)gpu.m, gpu.seconds * 1e3, cpu_s * 1e3,
           gpu.device_bytes / 1048576.0, (double)gpu.device_bytes / (double)gpu.csr_bytes,
           gpu.group_start[1] - gpu.group_start[0], gpu.group_start[2] - gpu.group_start[1],
           gpu.group_start[3] - gpu.group_start[2], gpu.group_start[4] - gpu.group_start[3],
           gpu.group_start[5] - gpu.group_start[4], gpu.group_start[6] - gpu.group_start[5]);
    fflush(stdout);

done:
    host_csr_free(&in);
    host_csr_free(&out);
    free(new_of_old);
    free(old_of_new);
    free(seen);
    mg__gpu_graph_free(&gpu);
    mg_graph_free(&cpu);
}

static void compare_variants(const char *name, const mg__coo *coo, bool all_flags) {
    for (int directed = 0; directed < 2; directed++)
        for (int flags = 0; flags < (all_flags ? 4 : 1); flags++)
            compare(name, coo, directed, flags & 1, flags & 2);
}

/* ---- cases ------------------------------------------------------------------------------------- */

/* Parallel edges with different and equal weights, -0.0 beside +0.0, self-loops twice, a reversed
 * pair, negative int weights, an isolated vertex. */
static void hand_made(mg_weight_type wt) {
    static const uint32_t src[] = {0, 0, 0, 1, 2, 2, 3, 4, 5, 0, 3, 3, 1};
    static const uint32_t dst[] = {1, 1, 1, 0, 2, 2, 4, 3, 0, 1, 4, 4, 0};
    static const int32_t wi[] = {5, 3, 3, 2, 7, 1, -1, 4, 9, 8, -6, 2, 2};
    static const float wf[] = {5.5f, 3.0f, 3.0f, 2.0f, 7.0f, 1.0f, 0.0f, 4.0f, 9.0f, 8.0f,
                               -0.0f, 2.0f, -1.5f};
    const uint64_t m = sizeof src / sizeof src[0];
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, m, wt != MG_WEIGHT_NONE, wt));
    coo.n = 7; /* vertex 6 isolated */
    coo.m = m;
    memcpy(coo.src, src, sizeof src);
    memcpy(coo.dst, dst, sizeof dst);
    if (wt == MG_WEIGHT_INT32) memcpy(coo.weights, wi, sizeof wi);
    if (wt == MG_WEIGHT_FLOAT) memcpy(coo.weights, wf, sizeof wf);
    const char *name = wt == MG_WEIGHT_NONE ? "hand" : wt == MG_WEIGHT_INT32 ? "hand int" : "hand float";
    compare_variants(name, &coo, true);
    mg__coo_free(&coo);
}

/* Every group non-empty: in-degrees 3000, 1500, 600, 300, 150 and small ones. */
static void all_groups(void) {
    static const uint32_t degs[] = {3000, 1500, 600, 300, 150, 100, 2048, 2047, 1024, 128, 127};
    const uint32_t k = sizeof degs / sizeof degs[0];
    uint64_t m = 0;
    for (uint32_t i = 0; i < k; i++) m += degs[i];
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, m, true, MG_WEIGHT_INT32));
    coo.n = 5000;
    coo.m = m;
    uint64_t e = 0;
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < degs[i]; j++, e++) {
            /* targets spread over the id range, so the renumbering really moves vertices */
            coo.dst[e] = (i * 433 + 17) % coo.n;
            coo.src[e] = (j * 7 + i) % coo.n;
            ((int32_t *)coo.weights)[e] = (int32_t)(j % 5);
        }
    compare_variants("groups", &coo, false);
    mg__coo_free(&coo);
}

static void generated(const char *name, mg_generator kind, int scale, double ef, mg_weight_type wt,
                      bool all_flags) {
    mg__coo coo;
    memset(&coo, 0, sizeof coo);
    if (coo_from_generator(kind, scale, ef, wt, &coo)) compare_variants(name, &coo, all_flags);
    mg__coo_free(&coo);
}

/* Bad ids are refused with a message, not a crash. */
static void bad_ids(void) {
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, 3, false, MG_WEIGHT_NONE));
    coo.n = 4;
    coo.m = 3;
    coo.src[0] = 0, coo.dst[0] = 1;
    coo.src[1] = 2, coo.dst[1] = 9;
    coo.src[2] = 3, coo.dst[2] = 0;
    mg__gpu_graph g;
    mg_status st = mg__gpu_graph_build(ctx, &coo, NULL, &g);
    CHECK(st == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "edge 1 (2 -> 9)") != NULL);
    printf("bad ids: %s: %s\n", mg_status_string(st), mg_context_error(ctx));
    CHECK(g.d_out_offsets == NULL);
    mg__coo_free(&coo);
}

/* 2^31 vertices and 10 edges: the per-vertex arrays need tens of GiB. Success or a clean
 * MG_OUT_OF_MEMORY, never a crash; afterwards the device still works. */
static void huge(void) {
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, 10, false, MG_WEIGHT_NONE));
    coo.n = UINT32_C(1) << 31;
    coo.m = 10;
    for (uint32_t i = 0; i < 10; i++) {
        coo.src[i] = i * 200000000u;
        coo.dst[i] = coo.n - 1 - i;
    }
    mg_graph_options opts;
    mg_graph_options_init(&opts);
    mg__gpu_graph g;
    const double t0 = omp_get_wtime();
    mg_status st = mg__gpu_graph_build(ctx, &coo, &opts, &g);
    CHECK(st == MG_SUCCESS || st == MG_OUT_OF_MEMORY);
    if (st == MG_SUCCESS) {
        CHECK(g.n == coo.n && g.m == 10 && g.group_start[MG__GPU_GROUPS] == coo.n);
        printf("huge n=2^31, m=10: built in %.1f ms, %.2f GiB on the device\n", g.seconds * 1e3,
               g.device_bytes / 1073741824.0);
    } else {
        printf("huge n=2^31, m=10: %s after %.2f s: %s\n", mg_status_string(st),
               omp_get_wtime() - t0, mg_context_error(ctx));
        CHECK(g.d_out_offsets == NULL && g.d_new_of_old == NULL);
    }
    mg__gpu_graph_free(&g);
    mg__coo_free(&coo);
}

int main(void) {
    mg__gpu_info info;
    const int early = gpu_test_start(&info);
    if (early >= 0) return early;
    printf("device %d: %s, cc %d.%d, %d SMs, %.1f GiB (%.1f free), shared %zu KB/block (opt-in), "
           "%zu KB/SM\n", info.device, info.name, info.cc_major, info.cc_minor, info.sm_count,
           info.total_memory / 1073741824.0, info.free_memory / 1073741824.0,
           info.shared_per_block_optin / 1024, info.shared_per_sm / 1024);
    CHECK(info.sm_count > 0 && info.total_memory > 0 && info.shared_per_block_optin > 0);
    mg__gpu_info bad;
    CHECK(mg__gpu_query(ctx, 1000, &bad) == MG_INVALID_ARGUMENT);

    hand_made(MG_WEIGHT_NONE);
    hand_made(MG_WEIGHT_INT32);
    hand_made(MG_WEIGHT_FLOAT);
    all_groups();
    bad_ids();
    {
        /* an empty graph */
        mg__coo coo;
        memset(&coo, 0, sizeof coo);
        coo.n = 3;
        compare("empty", &coo, false, false, false);
        compare("empty", &coo, true, false, false);
    }
    generated("kron10 int", MG_GEN_KRONECKER, 10, 16, MG_WEIGHT_INT32, true);
    generated("grid10 float", MG_GEN_GRID, 10, 0, MG_WEIGHT_FLOAT, false);
    if (!small_mode) {
        generated("kron12", MG_GEN_KRONECKER, 12, 16, MG_WEIGHT_NONE, true);
        generated("kron14 int", MG_GEN_KRONECKER, 14, 16, MG_WEIGHT_INT32, false);
        generated("kron14 float", MG_GEN_KRONECKER, 14, 16, MG_WEIGHT_FLOAT, false);
        generated("uniform14 float", MG_GEN_UNIFORM, 14, 8, MG_WEIGHT_FLOAT, true);
        generated("grid14 int", MG_GEN_GRID, 14, 0, MG_WEIGHT_INT32, false);
        generated("geometric13", MG_GEN_GEOMETRIC, 13, 16, MG_WEIGHT_NONE, false);
        generated("geometric13 float", MG_GEN_GEOMETRIC, 13, 16, MG_WEIGHT_FLOAT, false);
        generated("rmat20 int", MG_GEN_RMAT, 20, 16, MG_WEIGHT_INT32, false);
        huge();
        hand_made(MG_WEIGHT_INT32); /* the device still works after a failed or huge build */
    }

    mg__gpu_info after;
    CHECK_OK(ctx, mg__gpu_query(ctx, 0, &after));
    /* nothing leaked: free memory back to within 64 MiB of the start */
    CHECK(after.free_memory + ((size_t)64 << 20) >= info.free_memory);
    printf("device free memory: %.1f MiB before, %.1f MiB after\n", info.free_memory / 1048576.0,
           after.free_memory / 1048576.0);
    mg_context_free(&ctx);
    return check_report();
}
