/*
 * test_generators.c — mg_generate: sizes, symmetry, no self-loops, weight ranges, the same graph
 * for 1 and 2 threads, seeds that matter, R-MAT skew against uniform flatness, Kronecker as a
 * relabelled R-MAT, grid shape and connectivity, option validation and allocation failures.
 */
#include "mg_internal.h"
#include "check.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

/* ---- helpers ----------------------------------------------------------------------------------- */

static mg_graph make(const mg_gen_options *o) {
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, o));
    return g;
}

static mg_gen_options base(mg_generator kind, int scale, double edge_factor) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.edge_factor = edge_factor;
    return o;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32_desc(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x > y ? -1 : x < y;
}

/* The weight of edge e as a double (1 when unweighted). */
static double weight_at(const mg_graph g, const void *w, uint64_t e) {
    if (w == NULL) return 1.0;
    if (mg_graph_weight_type(g) == MG_WEIGHT_INT32) return ((const int32_t *)w)[e];
    return ((const float *)w)[e];
}

/* Undirected and simple: every u->v has v->u with the same weight, no u->u, no repeated edge,
 * ids < n, and weights (when wanted) within [lo, hi] (hi excluded for floats). Returns the
 * number of violations. */
static int check_simple_symmetric(const mg_graph g, mg_weight_type wt, double lo, double hi) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    int bad = 0;
    uint32_t n = mg_graph_num_vertices(g);
    uint64_t m = mg_graph_num_edges(g);
    if (mg_graph_csr(g, &off, &idx, &w) != MG_SUCCESS) return 1;
    if (mg_graph_is_directed(g)) bad++;
    if (mg_graph_weight_type(g) != wt) bad++;
    if ((wt == MG_WEIGHT_NONE) != (w == NULL)) bad++;
    if (off[0] != 0 || off[n] != m) return bad + 1;
    uint64_t *pairs = malloc((m ? m : 1) * sizeof *pairs);
    for (uint32_t u = 0; u < n; u++) {
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            uint32_t v = idx[e];
            if (v >= n || v == u) bad++;
            double x = weight_at(g, w, e);
            if (wt == MG_WEIGHT_INT32 && (x < lo || x > hi)) bad++;
            if (wt == MG_WEIGHT_FLOAT && (x < (float)lo || x >= (float)hi)) bad++;
            pairs[e] = ((uint64_t)u << 32) | v;
        }
    }
    /* sorted (u, v) keys: repeats sit side by side, reverse edges are found by bsearch */
    qsort(pairs, m, sizeof *pairs, cmp_u64);
    for (uint64_t e = 1; e < m; e++)
        if (pairs[e] == pairs[e - 1]) bad++; /* a duplicate survived */
    for (uint32_t u = 0; u < n && bad < 10; u++) {
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            uint32_t v = idx[e];
            uint64_t back = ((uint64_t)v << 32) | u;
            if (bsearch(&back, pairs, m, sizeof *pairs, cmp_u64) == NULL) {
                bad++;
                continue;
            }
            /* the reverse edge's weight: scan v's row (short rows in these tests) */
            for (uint64_t f = off[v]; f < off[v + 1]; f++)
                if (idx[f] == u && weight_at(g, w, f) != weight_at(g, w, e)) bad++;
        }
    }
    free(pairs);
    return bad;
}

static bool same_csr(const mg_graph g1, const mg_graph g2) {
    const uint64_t *o1, *o2;
    const uint32_t *i1, *i2;
    const void *w1, *w2;
    uint32_t n = mg_graph_num_vertices(g1);
    uint64_t m = mg_graph_num_edges(g1);
    if (n != mg_graph_num_vertices(g2) || m != mg_graph_num_edges(g2)) return false;
    mg_graph_csr(g1, &o1, &i1, &w1);
    mg_graph_csr(g2, &o2, &i2, &w2);
    if (memcmp(o1, o2, ((size_t)n + 1) * sizeof *o1) != 0) return false;
    if (memcmp(i1, i2, m * sizeof *i1) != 0) return false;
    if ((w1 == NULL) != (w2 == NULL)) return false;
    return w1 == NULL || memcmp(w1, w2, m * 4) == 0;
}

static uint32_t *degrees(const mg_graph g) {
    const uint64_t *off;
    uint32_t n = mg_graph_num_vertices(g);
    mg_graph_csr(g, &off, NULL, NULL);
    uint32_t *d = malloc(((size_t)n + 1) * sizeof *d);
    for (uint32_t v = 0; v < n; v++) d[v] = (uint32_t)(off[v + 1] - off[v]);
    return d;
}

static uint32_t max_degree(const mg_graph g, uint32_t *argmax) {
    uint32_t *d = degrees(g), best = 0, at = 0;
    for (uint32_t v = 0; v < mg_graph_num_vertices(g); v++)
        if (d[v] > best) best = d[v], at = v;
    free(d);
    if (argmax) *argmax = at;
    return best;
}

/* Vertices reachable from 0 (breadth-first over the CSR). */
static uint32_t reachable_from_0(const mg_graph g) {
    const uint64_t *off;
    const uint32_t *idx;
    uint32_t n = mg_graph_num_vertices(g), head = 0, tail = 0;
    mg_graph_csr(g, &off, &idx, NULL);
    uint32_t *queue = malloc(n * sizeof *queue);
    char *seen = calloc(n, 1);
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint64_t e = off[u]; e < off[u + 1]; e++)
            if (!seen[idx[e]]) seen[idx[e]] = 1, queue[tail++] = idx[e];
    }
    free(queue);
    free(seen);
    return tail;
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void test_defaults(void) {
    mg_gen_options o;
    memset(&o, 0xab, sizeof o);
    mg_gen_options_init(&o);
    CHECK(o.kind == MG_GEN_RMAT && o.scale == 16 && o.edge_factor == 16.0);
    CHECK(o.a == 0.57 && o.b == 0.19 && o.c == 0.19);
    CHECK(o.width == 0 && o.height == 0 && o.seed == 1);
    CHECK(o.weights == MG_WEIGHT_NONE && o.weight_min == 1.0 && o.weight_max == 255.0);
    CHECK(!o.graph.directed && !o.graph.keep_self_loops && !o.graph.keep_duplicates);
}

/* Sizes and structure of each kind at scale 12, edge factor 8 (raw edges: 32768). */
static void test_shapes(void) {
    const int scale = 12;
    const uint32_t n = 1u << scale;
    const double ef = 8, raw = ef * n;
    mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_KRONECKER, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 4; k++) {
        mg_gen_options o = base(kinds[k], scale, ef);
        mg_graph g = make(&o);
        if (g == NULL) continue;
        uint64_t m = mg_graph_num_edges(g);
        CHECK(mg_graph_num_vertices(g) == n);
        CHECK(mg_graph_index_base(g) == 0);
        CHECK(check_simple_symmetric(g, MG_WEIGHT_NONE, 0, 0) == 0);
        switch (kinds[k]) {
        case MG_GEN_RMAT:
        case MG_GEN_KRONECKER: /* duplicates at the hubs cost R-MAT a good share of its edges */
            CHECK(m >= (uint64_t)(0.5 * 2 * raw) && m < (uint64_t)(2 * raw));
            break;
        case MG_GEN_UNIFORM: /* 32768 draws among 8M pairs: a handful of repeats at most */
            CHECK(m >= (uint64_t)(0.99 * 2 * raw) && m <= (uint64_t)(2 * raw));
            break;
        default: /* expected degree edge_factor, a little less near the border */
            CHECK(m >= (uint64_t)(0.85 * n * ef) && m <= (uint64_t)(1.02 * n * ef));
            break;
        }
        printf("  %-10s n=%u stored edges=%llu max degree=%u\n",
               kinds[k] == MG_GEN_RMAT ? "rmat" : kinds[k] == MG_GEN_KRONECKER ? "kronecker"
               : kinds[k] == MG_GEN_UNIFORM ? "uniform" : "geometric",
               n, (unsigned long long)m, max_degree(g, NULL));
        mg_graph_free(&g);
        CHECK(g == NULL);
    }
    /* a fractional edge factor rounds edge_factor * n */
    mg_gen_options o = base(MG_GEN_UNIFORM, 14, 0.25);
    mg_graph g = make(&o);
    if (g) {
        uint64_t m = mg_graph_num_edges(g);
        CHECK(m <= 2 * 4096 && m >= 2 * 4090);
        mg_graph_free(&g);
    }
    /* edge factor 0: isolated vertices */
    mg_generator all[] = {MG_GEN_RMAT, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 3; k++) {
        o = base(all[k], 6, 0);
        g = make(&o);
        if (g) {
            CHECK(mg_graph_num_vertices(g) == 64 && mg_graph_num_edges(g) == 0);
            mg_graph_free(&g);
        }
    }
}

static void test_grid(void) {
    /* the default square: scale 12 is 64 x 64, scale 11 is 64 x 32 */
    int scales[] = {12, 11};
    uint32_t widths[] = {64, 64}, heights[] = {64, 32};
    for (int s = 0; s < 2; s++) {
        mg_gen_options o = base(MG_GEN_GRID, scales[s], 16);
        mg_graph g = make(&o);
        if (g == NULL) continue;
        uint64_t w = widths[s], h = heights[s];
        CHECK(mg_graph_num_vertices(g) == w * h);
        CHECK(mg_graph_num_edges(g) == 2 * ((w - 1) * h + w * (h - 1)));
        CHECK(max_degree(g, NULL) == 4);
        CHECK(reachable_from_0(g) == w * h);
        CHECK(check_simple_symmetric(g, MG_WEIGHT_NONE, 0, 0) == 0);
        mg_graph_free(&g);
    }
    /* an explicit 7 x 5 lattice with integer weights; the corner has 2 neighbours */
    mg_gen_options o = base(MG_GEN_GRID, 0, 0); /* scale and edge_factor unused */
    o.width = 7;
    o.height = 5;
    o.weights = MG_WEIGHT_INT32;
    o.weight_min = 1;
    o.weight_max = 9;
    mg_graph g = make(&o);
    if (g) {
        const uint64_t *off;
        const uint32_t *idx;
        mg_graph_csr(g, &off, &idx, NULL);
        CHECK(mg_graph_num_vertices(g) == 35);
        CHECK(mg_graph_num_edges(g) == 2 * (6 * 5 + 7 * 4));
        CHECK(off[1] - off[0] == 2 && off[35] - off[34] == 2);
        CHECK(off[9] - off[8] == 4); /* (1, 1) is interior */
        CHECK(reachable_from_0(g) == 35);
        CHECK(check_simple_symmetric(g, MG_WEIGHT_INT32, 1, 9) == 0);
        /* vertex 8 = (1, 1): neighbours 1, 7, 9, 15 */
        uint32_t want[4] = {1, 7, 9, 15}, got[4] = {0};
        for (int e = 0; e < 4 && off[8] + (uint64_t)e < off[9]; e++) got[e] = idx[off[8] + e];
        qsort(got, 4, sizeof *got, cmp_u32_desc);
        CHECK(got[0] == want[3] && got[1] == want[2] && got[2] == want[1] && got[3] == want[0]);
        mg_graph_free(&g);
    }
    /* a 1 x 1 grid: one vertex, no edges */
    o.width = o.height = 1;
    g = make(&o);
    if (g) {
        CHECK(mg_graph_num_vertices(g) == 1 && mg_graph_num_edges(g) == 0);
        mg_graph_free(&g);
    }
}

static void test_weights(void) {
    mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_KRONECKER, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC,
                            MG_GEN_GRID};
    for (int k = 0; k < 5; k++) {
        mg_gen_options o = base(kinds[k], 10, 8);
        o.weights = MG_WEIGHT_INT32;
        o.weight_min = 3;
        o.weight_max = 17;
        mg_graph g = make(&o);
        if (g) {
            CHECK(check_simple_symmetric(g, MG_WEIGHT_INT32, 3, 17) == 0);
            /* both ends of the inclusive range occur */
            const void *w;
            mg_graph_csr(g, NULL, NULL, &w);
            bool lo = false, hi = false;
            for (uint64_t e = 0; e < mg_graph_num_edges(g); e++) {
                lo |= ((const int32_t *)w)[e] == 3;
                hi |= ((const int32_t *)w)[e] == 17;
            }
            CHECK(lo && hi);
            mg_graph_free(&g);
        }
        o.weights = MG_WEIGHT_FLOAT;
        o.weight_min = 0.5;
        o.weight_max = 2.5;
        g = make(&o);
        if (g) {
            CHECK(check_simple_symmetric(g, MG_WEIGHT_FLOAT, 0.5, 2.5) == 0);
            mg_graph_free(&g);
        }
    }
    /* an empty float range gives the one value; a zero weight is allowed */
    mg_gen_options o = base(MG_GEN_UNIFORM, 8, 4);
    o.weights = MG_WEIGHT_FLOAT;
    o.weight_min = o.weight_max = 0;
    mg_graph g = make(&o);
    if (g) {
        const void *w;
        mg_graph_csr(g, NULL, NULL, &w);
        bool all_zero = true;
        for (uint64_t e = 0; e < mg_graph_num_edges(g); e++) all_zero &= ((const float *)w)[e] == 0;
        CHECK(all_zero);
        mg_graph_free(&g);
    }
}

/* Same seed: the same CSR with 1 and 2 threads; another seed: another graph. */
static void test_determinism(void) {
    mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_KRONECKER, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC,
                            MG_GEN_GRID};
    const int saved = omp_get_max_threads();
    for (int k = 0; k < 5; k++) {
        mg_gen_options o = base(kinds[k], 13, 8);
        o.weights = k % 2 ? MG_WEIGHT_FLOAT : MG_WEIGHT_INT32;
        o.seed = 42;
        omp_set_num_threads(1);
        mg_graph g1 = make(&o);
        omp_set_num_threads(2);
        mg_graph g2 = make(&o);
        o.seed = 43;
        mg_graph g3 = make(&o);
        if (g1 && g2 && g3) {
            CHECK(same_csr(g1, g2));
            if (kinds[k] == MG_GEN_GRID) {
                /* the lattice is fixed; only its weights follow the seed */
                const void *w1, *w3;
                mg_graph_csr(g1, NULL, NULL, &w1);
                mg_graph_csr(g3, NULL, NULL, &w3);
                CHECK(mg_graph_num_edges(g1) == mg_graph_num_edges(g3));
                CHECK(memcmp(w1, w3, mg_graph_num_edges(g1) * 4) != 0);
            } else {
                CHECK(!same_csr(g1, g3));
            }
        }
        mg_graph_free(&g1);
        mg_graph_free(&g2);
        mg_graph_free(&g3);
    }
    omp_set_num_threads(saved);
}

/* R-MAT's degrees are heavy-tailed, uniform's are not; Kronecker is R-MAT relabelled. */
static void test_skew(void) {
    mg_gen_options o = base(MG_GEN_RMAT, 14, 16);
    mg_graph rmat = make(&o);
    o.kind = MG_GEN_KRONECKER;
    mg_graph kron = make(&o);
    o.kind = MG_GEN_UNIFORM;
    mg_graph uni = make(&o);
    if (rmat && kron && uni) {
        uint32_t n = 1u << 14, at = 1;
        double mean_r = (double)mg_graph_num_edges(rmat) / n;
        double mean_u = (double)mg_graph_num_edges(uni) / n;
        uint32_t max_r = max_degree(rmat, &at);
        uint32_t max_u = max_degree(uni, NULL);
        printf("  skew: rmat max %u mean %.1f; uniform max %u mean %.1f\n", max_r, mean_r, max_u,
               mean_u);
        CHECK(max_r > 20 * mean_r);
        CHECK(max_u < 2.5 * mean_u);
        CHECK(at == 0); /* a > b, c, d: vertex 0 is R-MAT's hub */
        /* Kronecker: the same degree multiset, other labels (the hub moved) */
        uint32_t *dr = degrees(rmat), *dk = degrees(kron), kat = 0;
        qsort(dr, n, sizeof *dr, cmp_u32_desc);
        qsort(dk, n, sizeof *dk, cmp_u32_desc);
        CHECK(memcmp(dr, dk, n * sizeof *dr) == 0);
        CHECK(mg_graph_num_edges(rmat) == mg_graph_num_edges(kron));
        max_degree(kron, &kat);
        CHECK(kat != 0);
        CHECK(!same_csr(rmat, kron));
        free(dr);
        free(dk);
    }
    mg_graph_free(&rmat);
    mg_graph_free(&kron);
    mg_graph_free(&uni);
    /* a = 1: every edge is 0 -> 0, all dropped as self-loops */
    o = base(MG_GEN_RMAT, 8, 4);
    o.a = 1;
    o.b = o.c = 0;
    mg_graph g = make(&o);
    if (g) {
        CHECK(mg_graph_num_edges(g) == 0);
        mg_graph_free(&g);
    }
    /* b = 1: every edge is 0 -> n-1 */
    o.a = 0;
    o.b = 1;
    g = make(&o);
    if (g) {
        const uint64_t *off;
        const uint32_t *idx;
        mg_graph_csr(g, &off, &idx, NULL);
        CHECK(mg_graph_num_edges(g) == 2 && off[1] == 1 && idx[0] == 255);
        mg_graph_free(&g);
    }
}

/* An invalid option gives MG_INVALID_ARGUMENT, a message naming the field, and no graph. */
static void expect_invalid(const mg_gen_options *o, const char *field, int line) {
    mg_graph g = (mg_graph)(uintptr_t)1; /* must be reset to NULL */
    mg_status st = mg_generate(ctx, &g, o);
    const char *msg = mg_context_error(ctx);
    if (st != MG_INVALID_ARGUMENT || strstr(msg, field) == NULL || g != NULL) {
        fprintf(stderr, "line %d: expected MG_INVALID_ARGUMENT naming %s, got %s: %s\n", line,
                field, mg_status_string(st), msg);
        CHECK(0);
        if (st == MG_SUCCESS) mg_graph_free(&g);
    } else {
        CHECK(1);
    }
}
#define EXPECT_INVALID(o, field) expect_invalid(&(o), field, __LINE__)

static void test_invalid(void) {
    mg_gen_options o = base(MG_GEN_RMAT, 0, 16);
    EXPECT_INVALID(o, "opts->scale");
    o.scale = 40;
    EXPECT_INVALID(o, "opts->scale");
    o = base(MG_GEN_KRONECKER, -3, 16);
    EXPECT_INVALID(o, "opts->scale");
    o = base(MG_GEN_GEOMETRIC, 32, 16);
    EXPECT_INVALID(o, "opts->scale");
    o = base(MG_GEN_RMAT, 10, 16);
    o.a = 0.6;
    o.b = 0.3;
    o.c = 0.2;
    EXPECT_INVALID(o, "opts->a + opts->b + opts->c");
    o.a = -0.1;
    EXPECT_INVALID(o, "opts->a");
    o.a = 0.5;
    o.b = 1.5;
    EXPECT_INVALID(o, "opts->b");
    o.b = 0.1;
    o.c = 0.0 / 0.0;
    EXPECT_INVALID(o, "opts->c");
    o = base(MG_GEN_UNIFORM, 10, -1);
    EXPECT_INVALID(o, "opts->edge_factor");
    o.edge_factor = 1.0 / 0.0;
    EXPECT_INVALID(o, "opts->edge_factor");
    o.edge_factor = 1e12; /* 2^10 * 1e12 edges: refused before any allocation */
    EXPECT_INVALID(o, "opts->edge_factor");
    o = base(MG_GEN_UNIFORM, 10, 16);
    o.weights = MG_WEIGHT_INT32;
    o.weight_min = -1;
    EXPECT_INVALID(o, "opts->weight_min");
    o.weight_min = 10;
    o.weight_max = 5;
    EXPECT_INVALID(o, "opts->weight_max");
    o.weight_min = 0.2;
    o.weight_max = 0.8; /* no integer inside */
    EXPECT_INVALID(o, "opts->weight_min");
    o.weight_min = 1;
    o.weight_max = 3e9;
    EXPECT_INVALID(o, "opts->weight_max");
    o.weights = (mg_weight_type)7;
    EXPECT_INVALID(o, "opts->weights");
    o = base(MG_GEN_GRID, 10, 16);
    o.width = 65536;
    o.height = 65536;
    EXPECT_INVALID(o, "opts->width * opts->height");
    o.width = 100;
    o.height = 0;
    EXPECT_INVALID(o, "opts->height");
    o = base((mg_generator)9, 10, 16);
    EXPECT_INVALID(o, "opts->kind");
    /* NULL arguments */
    mg_graph g = NULL;
    CHECK(mg_generate(ctx, &g, NULL) == MG_INVALID_ARGUMENT && g == NULL);
    o = base(MG_GEN_RMAT, 10, 16);
    CHECK(mg_generate(ctx, NULL, &o) == MG_INVALID_ARGUMENT);
    CHECK(mg_generate(NULL, &g, &o) == MG_INVALID_ARGUMENT && g == NULL);
}

/* Fail each allocation in turn: a clean MG_OUT_OF_MEMORY, no graph, no leak (under ASan). */
static void test_alloc_failures(void) {
    mg_gen_options opts[3];
    opts[0] = base(MG_GEN_KRONECKER, 8, 4);
    opts[1] = base(MG_GEN_GEOMETRIC, 8, 4);
    opts[2] = base(MG_GEN_GRID, 8, 0);
    for (int k = 0; k < 3; k++) opts[k].weights = MG_WEIGHT_INT32;
    for (int k = 0; k < 3; k++) {
        mg_graph g = NULL;
        mg__inject_alloc_failure(0);
        CHECK_OK(ctx, mg_generate(ctx, &g, &opts[k]));
        uint64_t allocations = mg__inject_alloc_failure(0);
        mg_graph_free(&g);
        CHECK(allocations > 2);
        int clean = 0;
        for (uint64_t fail = 1; fail <= allocations; fail++) {
            mg__inject_alloc_failure(fail);
            mg_status st = mg_generate(ctx, &g, &opts[k]);
            mg__inject_alloc_failure(0);
            if (st == MG_OUT_OF_MEMORY && g == NULL && mg_context_error(ctx)[0] != '\0') clean++;
            else fprintf(stderr, "alloc failure %llu of kind %d: %s\n", (unsigned long long)fail,
                         (int)opts[k].kind, mg_status_string(st));
            mg_graph_free(&g);
        }
        CHECK(clean == (int)allocations);
    }
}

/* mg_random_permutation: a permutation for awkward sizes, fixed by the seed whatever the threads,
 * different for another seed. */
static void test_random_permutation(void) {
    const uint32_t sizes[] = {1, 2, 3, 1000, (1u << 16) + 3};
    const int threads = omp_get_max_threads();
    for (int k = 0; k < 5; k++) {
        const uint32_t n = sizes[k];
        uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        uint8_t *seen = calloc(n, 1);
        CHECK(a && b && c && seen);
        if (!a || !b || !c || !seen) return;
        omp_set_num_threads(1);
        CHECK_OK(ctx, mg_random_permutation(ctx, n, 42, a));
        omp_set_num_threads(2);
        CHECK_OK(ctx, mg_random_permutation(ctx, n, 42, b));
        CHECK_OK(ctx, mg_random_permutation(ctx, n, 43, c));
        uint32_t bad = 0, moved = 0;
        for (uint32_t i = 0; i < n; i++) {
            bad += a[i] >= n || seen[a[i]]++;
            moved += a[i] != c[i];
        }
        CHECK(bad == 0);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        CHECK(n < 1000 || moved > n / 2);
        free(a);
        free(b);
        free(c);
        free(seen);
    }
    omp_set_num_threads(threads);
    CHECK(mg_random_permutation(ctx, 5, 1, NULL) == MG_INVALID_ARGUMENT);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_random_permutation();
    test_defaults();
    test_shapes();
    test_grid();
    test_weights();
    test_determinism();
    test_skew();
    test_invalid();
    test_alloc_failures();
    mg_context_free(&ctx);
    return check_report();
}
