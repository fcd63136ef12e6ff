/*
 * test_gpu_baseline.c — the Gunrock-style baseline engine (frontier/baseline_engine.cu) against a
 * brute-force evaluation of the same edge program in the caller's numbering (tests/
 * program_reference.h, as tests/gpu/test_gpu_advance.c does for mg__gpu_advance): every value
 * type, contribution, combine and apply, with and without frontier, mask and complement, along out-
 * and in-edges, in forced push, forced pull and automatic mode, with the output wanted as list and
 * bitmap, list only or bitmap only, on a skewed graph (sources of ~1650 edges, which span several
 * merge-path tiles) and a flat one (no degree above 32: the thread-per-destination pull for every
 * combine), each directed and undirected; the info fields are checked too. Then BFS loops
 * on R-MAT and a grid with and without direction optimisation (and all-pull) against mg_bfs, and
 * PageRank-like steps (pulled and pushed) against the CPU engine.
 *
 * Exits 77 (ctest: skipped) when no GPU can be used. MG_GPU_TEST_SMALL=1 runs a sample of the
 * configurations and small graphs (for compute-sanitizer).
 */
#include "mg_internal.h"
#include "../../preprocess/gpu_preprocess.h"
#include "../../frontier/baseline_engine.h"
#include "check.h"
#include "program_reference.h"

#include <math.h>

enum { N = 3000, M = 24000 };

static mg_context ctx;
static bool small_mode;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* A graph in both forms: the host graph (caller numbering, for brute force) and the device form
 * with its permutation copied back, plus the device buffers of one case. */
typedef struct {
    mg_graph host;
    mg__gpu_graph dev;
    uint32_t *new_of_old;
    void *d_x, *d_y, *d_mask, *d_in, *d_out_list, *d_out_bm;
} pair;

static bool pair_build(pair *P, const mg__coo *coo, const mg_graph_options *opts) {
    memset(P, 0, sizeof *P);
    mg_status st = mg_graph_create_from_coo(ctx, &P->host, coo->n, coo->m, coo->src, coo->dst,
                                            coo->weights, coo->weight_type, opts);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    st = mg__gpu_graph_build(ctx, coo, opts, &P->dev);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    CHECK(P->dev.n == P->host->n && P->dev.m == P->host->m);
    const uint32_t n = coo->n;
    const size_t words = mg__bitmap_words(n);
    P->new_of_old = malloc((size_t)n * 4 + 4);
    if (P->new_of_old == NULL) return false;
    st = mg__gpu_copy_to_host(ctx, P->new_of_old, P->dev.d_new_of_old, (size_t)n * 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_x, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_y, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_mask, words * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_in, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_list, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_bm, words * 8 + 8);
    CHECK_OK(ctx, st);
    return st == MG_SUCCESS;
}

/* The host graph g (stored edges, both ways when undirected) as a directed device graph. */
static bool pair_from_graph(pair *P, mg_graph g) {
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(g, &off, &idx, NULL);
    mg__coo coo;
    mg_status st = mg__coo_init(ctx, &coo, g->m, false, MG_WEIGHT_NONE);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    coo.n = g->n;
    coo.m = g->m;
    for (uint32_t v = 0; v < g->n; v++)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            coo.src[e] = v;
            coo.dst[e] = idx[e];
        }
    mg_graph_options go;
    mg_graph_options_init(&go);
    const bool ok = pair_build(P, &coo, &go);
    mg__coo_free(&coo);
    return ok;
}

static void pair_free(pair *P) {
    mg_graph_free(&P->host);
    mg__gpu_graph_free(&P->dev);
    free(P->new_of_old);
    mg__gpu_free(P->d_x);
    mg__gpu_free(P->d_y);
    mg__gpu_free(P->d_mask);
    mg__gpu_free(P->d_in);
    mg__gpu_free(P->d_out_list);
    mg__gpu_free(P->d_out_bm);
}

static void to_typed(mg_type t, void *dst, size_t i, double v) {
    switch (t) {
    case MG_INT64: ((int64_t *)dst)[i] = (int64_t)v; break;
    case MG_FLOAT: ((float *)dst)[i] = (float)v; break;
    case MG_DOUBLE: ((double *)dst)[i] = v; break;
    default: ((int32_t *)dst)[i] = (int32_t)v; break;
    }
}
static double from_typed(mg_type t, const void *src, size_t i) {
    switch (t) {
    case MG_INT64: return (double)((const int64_t *)src)[i];
    case MG_FLOAT: return ((const float *)src)[i];
    case MG_DOUBLE: return ((const double *)src)[i];
    default: return ((const int32_t *)src)[i];
    }
}

static int pushes, pulls;

/* The output forms a case asks for. */
enum { OUT_BOTH = 0, OUT_LIST, OUT_BITMAP };

/* Runs one configuration and compares with brute force; returns the mismatches. empty: an empty
 * frontier list. */
static int run_case(pair *P, mg_type type, const mg_program *p, bool use_in, bool empty, bool use_mask,
                    mg_mode mode, int outs) {
    int bad = 0;
    const bool fp = type == MG_FLOAT || type == MG_DOUBLE;
    const uint32_t n = P->host->n;
    const size_t words = mg__bitmap_words(n), ts = mg__type_size(type);
    static double xv[N], y0[N];
    static bool in_set[N], mask_set[N], joined[N];
    static uint8_t xbuf[N * 8], ybuf[N * 8];
    static uint32_t list[N], out_list[N];
    static uint64_t mask_bm[(N + 63) / 64], out_bm[(N + 63) / 64];
    uint32_t count = 0;
    memset(mask_bm, 0, sizeof mask_bm);
    for (uint32_t v = 0; v < n; v++) {
        xv[v] = fp ? (next_rand() % 1000) / 8.0 : (double)(next_rand() % 1000);
        y0[v] = (p->apply == MG_APPLY_IF_UNSET && next_rand() % 2) ? p->unset : (double)(next_rand() % 1200);
        in_set[v] = use_in ? !empty && next_rand() % 3 == 0 : true;
        mask_set[v] = next_rand() % 2;
        const uint32_t nv = P->new_of_old[v];
        to_typed(type, xbuf, nv, xv[v]);
        to_typed(type, ybuf, nv, y0[v]);
        if (use_in && in_set[v]) list[count++] = nv;
        if (mask_set[v]) mask_bm[nv >> 6] |= 1ull << (nv & 63);
    }
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_x, xbuf, n * ts));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_y, ybuf, n * ts));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_in, list, count * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_mask, mask_bm, words * 8));
    mg__gpu_advance_args a = {
        .g = &P->dev, .program = p, .type = type,
        .d_in_list = use_in ? P->d_in : NULL, .in_count = count,
        .d_x = p->contribution == MG_CONTRIB_SRC_ID ? NULL : P->d_x, .d_y = P->d_y,
        .d_mask = use_mask ? P->d_mask : NULL,
        .d_out_list = outs != OUT_BITMAP ? P->d_out_list : NULL,
        .d_out_bitmap = outs != OUT_LIST ? P->d_out_bm : NULL,
    };
    mg_advance_info info;
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    mg_status st = mg__gpu_lb_advance(ctx, &a, &info);
    CHECK_OK(ctx, st);
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    if (st != MG_SUCCESS) return 1;
    if (mode == MG_MODE_SPARSE) CHECK(!info.pulled);
    else if (mode == MG_MODE_PULL) CHECK(info.pulled);
    if (info.pulled) pulls++;
    else pushes++;
    CHECK(a.out_count <= n && info.output_vertices == a.out_count);

    /* the info fields: the frontier and its edges along the program's direction */
    const uint64_t *off, *ioff;
    const uint32_t *idx, *iidx;
    const void *w, *iw;
    mg_graph_csr(P->host, &off, &idx, &w);
    mg_graph_csc(P->host, &ioff, &iidx, &iw);
    const bool along_out = p->edges == MG_EDGES_OUT;
    const uint64_t *soff = along_out ? off : ioff;
    uint64_t fe = 0;
    for (uint32_t v = 0; v < n; v++)
        if (in_set[v]) fe += soff[v + 1] - soff[v];
    CHECK(info.frontier_vertices == (use_in ? count : n));
    CHECK(info.frontier_edges == fe);
    if (!info.pulled) CHECK(info.edges_scanned == fe);
    else CHECK(info.edges_scanned <= P->host->m);

    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, ybuf, P->d_y, n * ts));
    const uint32_t listed = a.out_count < n ? a.out_count : n;
    if (outs != OUT_BITMAP) CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_list, P->d_out_list, (size_t)listed * 4));
    if (outs != OUT_LIST) CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_bm, P->d_out_bm, words * 8));

    /* The joined set, from the list (each member once) and/or the bitmap; both agree. */
    memset(joined, 0, sizeof joined);
    uint32_t members = 0;
    if (outs != OUT_LIST) {
        for (size_t i = 0; i < words; i++) members += (uint32_t)__builtin_popcountll(out_bm[i]);
        CHECK(members == a.out_count);
    }
    if (outs != OUT_BITMAP) {
        for (uint32_t i = 0; i < listed; i++) {
            const uint32_t d = out_list[i];
            if (d >= n || joined[d] || (outs == OUT_BOTH && !mg__bit_test(out_bm, d))) {
                if (bad < 3) fprintf(stderr, "  bad output list entry %u (position %u)\n", d, i);
                bad++;
                continue;
            }
            joined[d] = true;
        }
    } else {
        for (uint32_t d = 0; d < n; d++) joined[d] = mg__bit_test(out_bm, d);
    }

    /* along MG_EDGES_OUT a destination's sources are its in-neighbours (CSC); along IN, the CSR */
    const uint64_t *doff = along_out ? ioff : off;
    const uint32_t *didx = along_out ? iidx : idx;
    const int32_t *dw = along_out ? iw : w;
    for (uint32_t d = 0; d < n; d++) {
        double c = 0;
        bool found = false, any_ok = false;
        const bool eligible = !use_mask || (mask_set[d] != p->mask_complement);
        const uint32_t nd = P->new_of_old[d];
        const double got = from_typed(type, ybuf, nd);
        for (uint64_t e = doff[d]; e < doff[d + 1] && eligible; e++) {
            const uint32_t s = didx[e];
            if (!in_set[s]) continue;
            const double cv = ref_contribution(p, type, xv[s], s, dw ? dw[e] : 1, (double)(off[s + 1] - off[s]));
            ref_combine(p, cv, got, &c, &found, &any_ok);
        }
        double expect;
        const bool joins = ref_apply(p, fp, found, eligible, c, y0[d], &expect);
        const bool value_ok = ref_value_ok(p, fp, found, joins, any_ok, got, expect);
        if (!value_ok || joined[nd] != joins) {
            if (bad < 3)
                fprintf(stderr,
                        "  mismatch type %d contrib %d combine %d apply %d edges %d compl %d in %d "
                        "empty %d mask %d mode %d outs %d pulled %d: vertex %u got %g expected %g, "
                        "joined %d expected %d\n",
                        type, p->contribution, p->combine, p->apply, p->edges, p->mask_complement,
                        use_in, empty, use_mask, mode, outs, info.pulled, d, got, expect, joined[nd], joins);
            bad++;
        }
    }
    return bad;
}

/* Every configuration test_gpu_advance.c covers (with its skips), on one graph. */
static void all_configs(pair *P, const char *name, int *cases, int *failed) {
    const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE};
    const mg_apply applies[] = {MG_APPLY_MIN, MG_APPLY_MAX, MG_APPLY_IF_UNSET,
                                MG_APPLY_ASSIGN, MG_APPLY_ADD, MG_APPLY_AFFINE};
    const mg_mode modes[] = {MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    int here = 0, bad_here = 0, combo = 0;
    for (int ti = 0; ti < 4; ti++)
        for (int k = MG_CONTRIB_SRC; k <= MG_CONTRIB_SRC_ID; k++)
            for (int c = MG_COMBINE_MIN; c <= MG_COMBINE_ANY; c++)
                for (int ai = 0; ai < 6; ai++)
                    for (int variant = 0; variant < 4; variant++) {
                        const mg_type t = types[ti];
                        const bool fp = t == MG_FLOAT || t == MG_DOUBLE;
                        if (k == MG_CONTRIB_SRC_DIV_OUTDEG && !fp) continue;
                        if (k == MG_CONTRIB_SRC_ID && fp) continue;
                        if (c == MG_COMBINE_ANY && applies[ai] != MG_APPLY_IF_UNSET &&
                            applies[ai] != MG_APPLY_ASSIGN)
                            continue;
                        if (c == MG_COMBINE_SUM && k == MG_CONTRIB_SRC_TIMES_WEIGHT && !fp) continue;
                        /* the sanitizer runs see a sample that still reaches every kernel family */
                        if (small_mode && combo++ % 17 != 0) continue;
                        mg_program p;
                        mg_program_init(&p);
                        p.contribution = (mg_contribution)k;
                        p.combine = (mg_combine)c;
                        p.apply = applies[ai];
                        p.edges = variant & 1 ? MG_EDGES_IN : MG_EDGES_OUT;
                        if (k == MG_CONTRIB_SRC_DIV_OUTDEG) p.edges = MG_EDGES_OUT;
                        p.mask_complement = variant & 2;
                        p.alpha = fp ? 0.5 : 2;
                        p.beta = 3;
                        p.epsilon = 2.5;
                        for (int mi = 0; mi < 3; mi++) {
                            /* frontier: a list (2 in 3, one in 8 of those empty) or all active;
                             * mask: every other case; outputs: both, list only, bitmap only */
                            const bool use_in = (*cases % 3) != 0, use_mask = (*cases % 2) == 0;
                            const bool empty = use_in && *cases % 8 == 1;
                            const int outs = (*cases / 2) % 3;
                            (*cases)++;
                            here++;
                            const int bad = run_case(P, t, &p, use_in, empty, use_mask, modes[mi], outs);
                            CHECK(bad == 0);
                            *failed += bad != 0;
                            bad_here += bad != 0;
                        }
                    }
    printf("lb advance %s: %d configurations, %d with mismatches\n", name, here, bad_here);
}

/* ---- BFS and PageRank loops --------------------------------------------------------------------- */

/* BFS depths level by level (depth[d] = depth[s] + 1 for unset d) in one mode; returns the levels
 * and counts the pulled ones; the depths are compared with want (caller numbering). */
static int bfs_loop(pair *P, uint32_t source, mg_mode mode, const int32_t *want, int *pulled,
                    uint32_t *wrong) {
    const uint32_t n = P->host->n;
    int32_t *buf = malloc((size_t)n * 4);
    if (buf == NULL) return -1;
    for (uint32_t v = 0; v < n; v++) buf[v] = -1;
    const uint32_t s_new = P->new_of_old[source];
    buf[s_new] = 0;
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_y, buf, (size_t)n * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_in, &s_new, 4));
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_PLUS_ONE;
    p.combine = MG_COMBINE_ANY;
    p.apply = MG_APPLY_IF_UNSET;
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    void *in = P->d_in, *out = P->d_out_list;
    uint32_t count = 1;
    int levels = 0;
    *pulled = 0;
    while (count > 0 && levels <= (int)n) {
        mg__gpu_advance_args a = {.g = &P->dev, .program = &p, .type = MG_INT32, .d_in_list = in,
                                  .in_count = count, .d_x = P->d_y, .d_y = P->d_y, .d_out_list = out};
        mg_advance_info info;
        const mg_status st = mg__gpu_lb_advance(ctx, &a, &info);
        CHECK_OK(ctx, st);
        if (st != MG_SUCCESS) break;
        count = a.out_count;
        *pulled += info.pulled;
        void *t = in;
        in = out;
        out = t;
        levels++;
    }
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, buf, P->d_y, (size_t)n * 4));
    *wrong = 0;
    for (uint32_t v = 0; v < n; v++) *wrong += buf[P->new_of_old[v]] != want[v];
    free(buf);
    return levels;
}

/* expect_pulls: 1 direction optimisation must switch to pull and back, 0 it must never pull (a
 * grid's frontiers stay under m / 32 edges), -1 either (the small graphs of the sanitizer runs). */
static void bfs_modes(pair *P, const char *name, int expect_pulls) {
    const uint32_t n = P->host->n;
    const uint64_t *off;
    mg_graph_csr(P->host, &off, NULL, NULL);
    uint32_t source = 0; /* a vertex of largest degree */
    for (uint32_t v = 1; v < n; v++)
        if (off[v + 1] - off[v] > off[source + 1] - off[source]) source = v;
    mg_vector depth = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, P->host, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, P->host, source, depth, NULL));
    int32_t *want = malloc((size_t)n * 4);
    if (want == NULL) return;
    CHECK_OK(ctx, mg_vector_extract(ctx, depth, want));
    mg_vector_free(&depth);
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
    const char *mode_names[] = {"direction-optimised", "push only", "pull only"};
    for (int mi = 0; mi < 3; mi++) {
        int pulled = 0;
        uint32_t wrong = 0;
        const int levels = bfs_loop(P, source, modes[mi], want, &pulled, &wrong);
        CHECK(wrong == 0);
        if (modes[mi] == MG_MODE_SPARSE) CHECK(pulled == 0);
        if (modes[mi] == MG_MODE_PULL) CHECK(pulled == levels);
        if (modes[mi] == MG_MODE_AUTO && expect_pulls == 1) CHECK(pulled > 0 && pulled < levels);
        if (modes[mi] == MG_MODE_AUTO && expect_pulls == 0) CHECK(pulled == 0);
        printf("%s bfs %s: n=%u m=%llu, %d levels (%d pulled), %u depths differ from mg_bfs\n", name,
               mode_names[mi], n, (unsigned long long)P->host->m, levels, pulled, wrong);
    }
    free(want);
}

/* PageRank-like: y = 0.85 * sum x[s]/outdeg(s) + 0.15/n, 10 steps pulled (auto) and 10 pushed,
 * each beside the CPU engine. */
static void pagerank_steps(pair *P, const char *name) {
    const uint32_t n = P->host->n;
    double *x = malloc((size_t)n * 8), *buf = malloc((size_t)n * 8), *cpu = malloc((size_t)n * 8);
    if (!x || !buf || !cpu) return;
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_AFFINE;
    p.alpha = 0.85;
    p.beta = 0.15 / n;
    for (int mi = 0; mi < 2; mi++) {
        const mg_mode mode = mi == 0 ? MG_MODE_AUTO : MG_MODE_SPARSE;
        for (uint32_t v = 0; v < n; v++) x[v] = (1.0 + v % 7) / n; /* not uniform: ids matter */
        mg_vector vx = NULL, vy = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &vx, P->host, MG_DOUBLE));
        CHECK_OK(ctx, mg_vector_create(ctx, &vy, P->host, MG_DOUBLE));
        CHECK_OK(ctx, mg_vector_load(ctx, vx, x));
        for (uint32_t v = 0; v < n; v++) buf[P->new_of_old[v]] = x[v];
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_x, buf, (size_t)n * 8));
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_y, buf, (size_t)n * 8));
        void *dx = P->d_x, *dy = P->d_y;
        int pulled = 0;
        for (int it = 0; it < 10; it++) {
            mg__gpu_advance_args a = {.g = &P->dev, .program = &p, .type = MG_DOUBLE, .d_x = dx, .d_y = dy};
            mg_advance_info info;
            CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
            CHECK_OK(ctx, mg__gpu_lb_advance(ctx, &a, &info));
            CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
            pulled += info.pulled;
            CHECK_OK(ctx, mg_advance(ctx, P->host, &p, NULL, vx, vy, NULL, NULL));
            void *t = dx;
            dx = dy;
            dy = t;
            mg_vector tv = vx;
            vx = vy;
            vy = tv;
        }
        CHECK(pulled == (mi == 0 ? 10 : 0));
        CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, buf, dx, (size_t)n * 8));
        CHECK_OK(ctx, mg_vector_extract(ctx, vx, cpu));
        double worst = 0;
        uint32_t wrong = 0;
        for (uint32_t v = 0; v < n; v++) {
            const double rel = fabs(buf[P->new_of_old[v]] - cpu[v]) / fabs(cpu[v]);
            if (!(rel <= worst)) worst = rel;
            wrong += !(rel <= 1e-9);
        }
        CHECK(wrong == 0);
        printf("%s pagerank %s: 10 steps, largest relative difference from the CPU engine %.2e, %u "
               "vertices off by more than 1e-9\n", name, mi == 0 ? "pulled" : "pushed", worst, wrong);
        mg_vector_free(&vx);
        mg_vector_free(&vy);
    }
    free(x);
    free(buf);
    free(cpu);
}

static void generated_loops(const mg_gen_options *o, const char *name, int expect_pulls) {
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, o));
    if (g == NULL) return;
    pair P;
    const bool ok = pair_from_graph(&P, g);
    mg_graph_free(&g);
    if (ok) {
        bfs_modes(&P, name, expect_pulls);
        pagerank_steps(&P, name);
    }
    pair_free(&P);
}

int main(void) {
    small_mode = getenv("MG_GPU_TEST_SMALL") != NULL && atoi(getenv("MG_GPU_TEST_SMALL")) != 0;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg__gpu_info ginfo;
    mg_status st = mg__gpu_query(ctx, 0, &ginfo);
    if (st == MG_UNAVAILABLE) {
        printf("skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 77;
    }
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return check_report();

    /* skewed: two sources of ~1650 distinct out-edges (rows across merge-path tiles), four
     * destinations of ~1000 in-edges (runs across warps in the pull, the merge-path pull); flat:
     * 3 edges per vertex at random, every in-degree within 32 (the thread-per-destination pull
     * for every combine) */
    int cases = 0, failed = 0;
    for (int flat = 0; flat <= 1; flat++) {
        const int m = flat ? 3 * N : M;
        mg__coo coo;
        CHECK_OK(ctx, mg__coo_init(ctx, &coo, (uint64_t)m, true, MG_WEIGHT_INT32));
        coo.n = N;
        coo.m = (uint64_t)m;
        for (int e = 0; e < m; e++) {
            coo.src[e] = !flat && next_rand() % 4 == 0 ? next_rand() % 2 : next_rand() % N;
            coo.dst[e] = !flat && next_rand() % 5 == 0 ? 8 + next_rand() % 4 : next_rand() % N;
            ((int32_t *)coo.weights)[e] = 1 + (int32_t)(next_rand() % 50);
        }
        for (int undirected = 0; undirected <= 1; undirected++) {
            if (small_mode && undirected) break;
            char name[64];
            snprintf(name, sizeof name, "%s %s", flat ? "flat" : "skewed", undirected ? "undirected" : "directed");
            mg_graph_options opts;
            mg_graph_options_init(&opts);
            opts.directed = !undirected;
            pair P;
            if (pair_build(&P, &coo, &opts)) {
                /* skewed: a source spans more than one tile of 1024 merged items and the pulls
                 * take merge-path tiles; flat: no in- or out-degree passes 32 */
                if (flat) CHECK(P.dev.max_in_degree <= 32 && P.dev.max_out_degree <= 32);
                else CHECK(P.dev.max_out_degree > 1024 && P.dev.max_in_degree > 32);
                printf("lb advance graph %s: n=%u m=%llu, max out-degree %u, max in-degree %u\n", name, N,
                       (unsigned long long)P.host->m, P.dev.max_out_degree, P.dev.max_in_degree);
                all_configs(&P, name, &cases, &failed);
            }
            pair_free(&P);
        }
        mg__coo_free(&coo);
    }
    printf("lb advance: %d configurations (%d pushed, %d pulled), %d with mismatches\n", cases, pushes,
           pulls, failed);

    /* bad arguments are refused with a message */
    {
        mg_program p;
        mg_program_init(&p);
        mg_advance_info info;
        mg__gpu_advance_args a = {.program = &p, .type = MG_INT32};
        CHECK(mg__gpu_lb_advance(ctx, &a, &info) == MG_INVALID_ARGUMENT);
        CHECK(strstr(mg_context_error(ctx), "mg__gpu_lb_advance") != NULL);
    }

    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = small_mode ? 10 : 16;
    o.seed = 7;
    generated_loops(&o, small_mode ? "rmat10" : "rmat16", small_mode ? -1 : 1);
    mg_gen_options_init(&o);
    o.kind = MG_GEN_GRID;
    o.width = o.height = small_mode ? 16 : 128;
    generated_loops(&o, small_mode ? "grid16" : "grid128", small_mode ? -1 : 0);
    mg_context_free(&ctx);
    return check_report();
}
