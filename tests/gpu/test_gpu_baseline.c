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
#include "../../frontier/baseline_engine.h"
#define GPU_TEST_SEED 0x9e3779b97f4a7c15ull
#include "check.h"
#include "gpu_test.h"

#include <math.h>

enum { N = 3000, M = 24000 };

static int pushes, pulls;

/* Runs one configuration and compares with brute force; returns the mismatches. empty: an empty
 * frontier list. */
static int run_case(pair *P, mg_type type, const mg_program *p, bool use_in, bool empty, bool use_mask,
                    mg_mode mode, int outs) {
    const uint32_t n = P->host->n;
    const size_t words = mg__bitmap_words(n), ts = mg__type_size(type);
    static double xv[N], y0[N];
    static bool in_set[N], mask_set[N], joined[N];
    static uint8_t xbuf[N * 8], ybuf[N * 8];
    static uint32_t list[N], out_list[N];
    static uint64_t mask_bm[(N + 63) / 64], out_bm[(N + 63) / 64];
    gpu_case k = {.type = type, .p = p, .use_in = use_in, .use_mask = use_mask, .x = xv, .y0 = y0,
                  .in = in_set, .mask = mask_set, .xbuf = xbuf, .ybuf = ybuf, .list = list,
                  .mask_bm = mask_bm};
    case_inputs(P, &k, empty);
    mg__gpu_advance_args a = {
        .g = &P->dev, .program = p, .type = type,
        .d_in_list = use_in ? P->d_in : NULL, .in_count = k.count,
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
    mg_graph_csr(P->host, &off, NULL, NULL);
    mg_graph_csc(P->host, &ioff, NULL, NULL);
    const uint64_t *soff = p->edges == MG_EDGES_OUT ? off : ioff;
    uint64_t fe = 0;
    for (uint32_t v = 0; v < n; v++)
        if (in_set[v]) fe += soff[v + 1] - soff[v];
    CHECK(info.frontier_vertices == (use_in ? k.count : n));
    CHECK(info.frontier_edges == fe);
    if (!info.pulled) CHECK(info.edges_scanned == fe);
    else CHECK(info.edges_scanned <= P->host->m);

    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, ybuf, P->d_y, n * ts));
    const uint32_t listed = a.out_count < n ? a.out_count : n;
    if (outs != OUT_BITMAP)
        CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_list, P->d_out_list, (size_t)listed * 4));
    if (outs != OUT_LIST) CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_bm, P->d_out_bm, words * 8));
    const int bad = read_joined(n, a.out_count, out_list, out_bm, outs, joined);
    char what[64];
    snprintf(what, sizeof what, "empty %d mode %d outs %d pulled %d", empty, mode, outs, info.pulled);
    return bad + reference_mismatches(P, &k, ybuf, joined, what);
}

/* Every configuration test_gpu_advance.c covers (with its skips), on one graph. */
static void all_configs(pair *P, const char *name, int *cases, int *failed) {
    const mg_mode modes[] = {MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    int here = 0, bad_here = 0, combo = 0;
    for (int i = 0; i < PROGRAMS; i++) {
        mg_type t;
        mg_program p;
        if (!test_program(i, &t, &p)) continue;
        /* the sanitizer runs see a sample that still reaches every kernel family */
        if (small_mode && combo++ % 17 != 0) continue;
        for (int mi = 0; mi < 3; mi++) {
            /* frontier: a list (2 in 3, one in 8 of those empty) or all active; mask: every other
             * case; outputs: both, list only, bitmap only */
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
    mg__gpu_info ginfo;
    const int early = gpu_test_start(&ginfo);
    if (early >= 0) return early;

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
