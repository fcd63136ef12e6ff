/*
 * test_gpu_advance.c — the GPU advance kernels (frontier/sparse_engine.cu) against a brute-force
 * evaluation of the same edge program in the caller's numbering (the approach of
 * tests/unit/test_engine.c): every value type, contribution, combine and apply that test covers,
 * with and without frontier, mask and complement, along out- and in-edges, forced push, forced pull
 * and automatic choice, and the plain baseline kernel (mg__gpu_advance_baseline), on a skewed directed graph and an undirected one. Values and frontiers go to
 * the device in the device numbering and come back un-permuted. Then BFS-like and PageRank-like
 * loops on an R-MAT graph against mg_bfs and the CPU engine.
 *
 * Exits 77 (ctest: skipped) when no GPU can be used. MG_GPU_TEST_SMALL=1 runs a sample of the
 * configurations and a small R-MAT graph (for compute-sanitizer).
 */
#include "mg_internal.h"
#include "../../preprocess/gpu_preprocess.h"
#include "../../frontier/gpu_engine.h"
#include "check.h"
#include "program_reference.h"

#include <math.h>
#include <omp.h>

/* Large enough that some sources have >= 256 out-edges (the push's block stage) and some
 * destinations >= 128 in-edges (degree groups 1-5: the pull's warp per destination). */
enum { N = 1000, M = 12000 };

static mg_context ctx;
static bool small_mode;

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* A graph in both forms: the host graph (caller numbering, for brute force) and the device form
 * with its permutation copied back. Device buffers for one case are kept here and reused. */
typedef struct {
    mg_graph host;
    mg__gpu_graph dev;
    uint32_t *new_of_old, *old_of_new;
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
    P->old_of_new = malloc((size_t)n * 4 + 4);
    st = mg__gpu_copy_to_host(ctx, P->new_of_old, P->dev.d_new_of_old, (size_t)n * 4);
    if (st == MG_SUCCESS) st = mg__gpu_copy_to_host(ctx, P->old_of_new, P->dev.d_old_of_new, (size_t)n * 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_x, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_y, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_mask, words * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_in, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_list, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_bm, words * 8 + 8);
    CHECK_OK(ctx, st);
    return st == MG_SUCCESS;
}

static void pair_free(pair *P) {
    mg_graph_free(&P->host);
    mg__gpu_graph_free(&P->dev);
    free(P->new_of_old);
    free(P->old_of_new);
    mg__gpu_free(P->d_x);
    mg__gpu_free(P->d_y);
    mg__gpu_free(P->d_mask);
    mg__gpu_free(P->d_in);
    mg__gpu_free(P->d_out_list);
    mg__gpu_free(P->d_out_bm);
}

/* Host value arrays of the type's C type <-> doubles. */
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

static int pushes, pulls, baselines;

/* Runs one configuration on the device and compares with brute force; returns the mismatches. */
static int run_case(pair *P, mg_type type, const mg_program *p, bool use_in, bool use_mask,
                    mg_mode mode, bool baseline) {
    int bad = 0;
    const bool fp = type == MG_FLOAT || type == MG_DOUBLE;
    const uint32_t n = P->host->n;
    const size_t words = mg__bitmap_words(n), ts = mg__type_size(type);
    double xv[N], y0[N];
    bool in_set[N], mask_set[N];
    uint8_t xbuf[N * 8], ybuf[N * 8];
    uint32_t list[N], out_list[N];
    uint64_t mask_bm[(N + 63) / 64], out_bm[(N + 63) / 64];
    uint32_t count = 0;
    memset(mask_bm, 0, sizeof mask_bm);
    for (uint32_t v = 0; v < n; v++) {
        xv[v] = fp ? (next_rand() % 1000) / 8.0 : (double)(next_rand() % 1000);
        y0[v] = (p->apply == MG_APPLY_IF_UNSET && next_rand() % 2) ? p->unset
                                                                   : (double)(next_rand() % 1200);
        in_set[v] = use_in ? next_rand() % 3 == 0 : true;
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
        .d_out_list = P->d_out_list, .d_out_bitmap = P->d_out_bm,
    };
    mg_advance_info info;
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    mg_status st = baseline ? mg__gpu_advance_baseline(ctx, &a, &info) : mg__gpu_advance(ctx, &a, &info);
    CHECK_OK(ctx, st);
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    if (st != MG_SUCCESS) return 1;
    if (baseline) CHECK(!info.pulled); /* the baseline pushes whatever ctx->mode says */
    else if (mode == MG_MODE_SPARSE) CHECK(!info.pulled);
    else if (mode == MG_MODE_PULL) CHECK(info.pulled);
    if (baseline) baselines++;
    else if (info.pulled) pulls++;
    else pushes++;
    CHECK(a.out_count <= n && info.output_vertices == a.out_count);
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, ybuf, P->d_y, n * ts));
    const uint32_t listed = a.out_count < n ? a.out_count : n;
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_list, P->d_out_list, (size_t)listed * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_bm, P->d_out_bm, words * 8));

    /* The list holds each member of the bitmap once. */
    bool seen[N] = {false};
    uint32_t members = 0;
    for (size_t w = 0; w < words; w++) members += (uint32_t)__builtin_popcountll(out_bm[w]);
    CHECK(members == a.out_count);
    for (uint32_t i = 0; i < listed; i++) {
        const uint32_t d = out_list[i];
        if (d >= n || seen[d] || !mg__bit_test(out_bm, d)) {
            if (bad < 3) fprintf(stderr, "  bad output list entry %u (position %u)\n", d, i);
            bad++;
            continue;
        }
        seen[d] = true;
    }

    const uint64_t *off, *ioff;
    const uint32_t *idx, *iidx;
    const void *w, *iw;
    mg_graph_csr(P->host, &off, &idx, &w);
    mg_graph_csc(P->host, &ioff, &iidx, &iw);
    /* along MG_EDGES_OUT a destination's sources are its in-neighbours (CSC); along IN, the CSR;
     * each array's weights are those of the same edges */
    const bool along_out = p->edges == MG_EDGES_OUT;
    const uint64_t *doff = along_out ? ioff : off;
    const uint32_t *didx = along_out ? iidx : idx;
    const int32_t *dw = along_out ? iw : w;
    for (uint32_t d = 0; d < n; d++) {
        double c = 0;
        bool found = false, eligible = !use_mask || (mask_set[d] != p->mask_complement);
        bool any_ok = false;
        const uint32_t nd = P->new_of_old[d];
        const double got = from_typed(type, ybuf, nd);
        for (uint64_t e = doff[d]; e < doff[d + 1] && eligible; e++) {
            uint32_t s = didx[e];
            if (!in_set[s]) continue;
            const double wt = dw[e];
            const double cv = ref_contribution(p, type, xv[s], s, wt, (double)(off[s + 1] - off[s]));
            ref_combine(p, cv, got, &c, &found, &any_ok);
        }
        double expect;
        const bool joins = ref_apply(p, fp, found, eligible, c, y0[d], &expect);
        const bool value_ok = ref_value_ok(p, fp, found, joins, any_ok, got, expect);
        const bool in_out = mg__bit_test(out_bm, nd);
        if (!value_ok || in_out != joins) {
            if (bad < 3)
                fprintf(stderr,
                        "  mismatch type %d contrib %d combine %d apply %d edges %d compl %d in %d "
                        "mask %d mode %d pulled %d: vertex %u got %g expected %g, joined %d "
                        "expected %d\n",
                        type, p->contribution, p->combine, p->apply, p->edges, p->mask_complement,
                        use_in, use_mask, mode, info.pulled, d, got, expect, in_out, joins);
            bad++;
        }
    }
    return bad;
}

/* Every configuration test_engine.c covers (with its skips), on one graph. */
static void all_configs(pair *P, const char *name, int *cases, int *failed) {
    const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE};
    const mg_apply applies[] = {MG_APPLY_MIN, MG_APPLY_MAX, MG_APPLY_IF_UNSET,
                                MG_APPLY_ASSIGN, MG_APPLY_ADD, MG_APPLY_AFFINE};
    const mg_mode modes[] = {MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    int here = 0, bad_here = 0, combo = 0;
    for (int ti = 0; ti < 4; ti++)
        for (int k = MG_CONTRIB_SRC; k <= MG_CONTRIB_SRC_ID; k++)
            for (int c = MG_COMBINE_MIN; c <= MG_COMBINE_ANY; c++)
                for (int a = 0; a < 6; a++)
                    for (int variant = 0; variant < 4; variant++) {
                        mg_type t = types[ti];
                        bool fp = t == MG_FLOAT || t == MG_DOUBLE;
                        if (k == MG_CONTRIB_SRC_DIV_OUTDEG && !fp) continue;
                        if (k == MG_CONTRIB_SRC_ID && fp) continue;
                        if (c == MG_COMBINE_ANY && applies[a] != MG_APPLY_IF_UNSET &&
                            applies[a] != MG_APPLY_ASSIGN)
                            continue;
                        if (c == MG_COMBINE_SUM && k == MG_CONTRIB_SRC_TIMES_WEIGHT && !fp) continue;
                        /* the sanitizer runs see a sample that still reaches every kernel family */
                        if (small_mode && combo++ % 23 != 0) continue;
                        mg_program p;
                        mg_program_init(&p);
                        p.contribution = (mg_contribution)k;
                        p.combine = (mg_combine)c;
                        p.apply = applies[a];
                        p.edges = variant & 1 ? MG_EDGES_IN : MG_EDGES_OUT;
                        if (k == MG_CONTRIB_SRC_DIV_OUTDEG) p.edges = MG_EDGES_OUT;
                        p.mask_complement = variant & 2;
                        p.alpha = fp ? 0.5 : 2;
                        p.beta = 3;
                        p.epsilon = 2.5;
                        /* mi 3: the baseline kernel, under a forced pull it must ignore */
                        for (int mi = 0; mi < 4; mi++) {
                            bool use_in = (*cases % 3) != 0, use_mask = (*cases % 2) == 0;
                            (*cases)++;
                            here++;
                            int bad = run_case(P, t, &p, use_in, use_mask,
                                               mi < 3 ? modes[mi] : MG_MODE_PULL, mi == 3);
                            CHECK(bad == 0);
                            *failed += bad != 0;
                            bad_here += bad != 0;
                        }
                    }
    printf("device advance %s: %d configurations, %d with mismatches\n", name, here, bad_here);
}

/* ---- R-MAT: BFS-like and PageRank-like loops ---------------------------------------------------- */

static void rmat_loops(int scale) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = scale;
    o.seed = 7;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &o));
    if (g == NULL) return;
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(g, &off, &idx, NULL);
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, g->m, false, MG_WEIGHT_NONE));
    coo.n = g->n;
    coo.m = g->m;
    for (uint32_t v = 0; v < g->n; v++)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            coo.src[e] = v;
            coo.dst[e] = idx[e];
        }
    mg_graph_free(&g);
    mg_graph_options go;
    mg_graph_options_init(&go); /* the edges are already both ways: keep them as they are */
    pair P;
    if (!pair_build(&P, &coo, &go)) {
        mg__coo_free(&coo);
        pair_free(&P);
        return;
    }
    mg__coo_free(&coo);
    const uint32_t n = P.host->n;
    uint32_t source = 0; /* the first vertex with edges */
    {
        const uint64_t *hoff;
        mg_graph_csr(P.host, &hoff, NULL, NULL);
        while (source + 1 < n && hoff[source + 1] == hoff[source]) source++;
    }
    if (scale >= 16) CHECK(P.dev.group_start[4] > 0); /* high in-degree destinations exist */
    printf("rmat%d: %u destinations in groups 1-4, %u segment(s) of %u\n", scale, P.dev.group_start[4],
           P.dev.seg_count, P.dev.seg_size);

    /* BFS: depth[d] = depth[s] + 1 for unset d, level by level, in each mode. */
    mg_vector depth = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, P.host, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, P.host, source, depth, NULL));
    int32_t *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4), *init = malloc((size_t)n * 4);
    CHECK_OK(ctx, mg_vector_extract(ctx, depth, want));
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    const char *mode_names[] = {"auto", "push", "pull", "baseline"};
    for (int mi = 0; mi < 4; mi++) {
        for (uint32_t v = 0; v < n; v++) init[v] = -1;
        init[P.new_of_old[source]] = 0;
        uint32_t s_new = P.new_of_old[source];
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_y, init, (size_t)n * 4));
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_in, &s_new, 4));
        mg_program p;
        mg_program_init(&p);
        p.contribution = MG_CONTRIB_SRC_PLUS_ONE;
        p.combine = MG_COMBINE_ANY;
        p.apply = MG_APPLY_IF_UNSET;
        CHECK_OK(ctx, mg_context_set_mode(ctx, modes[mi]));
        void *in = P.d_in, *out = P.d_out_list;
        uint32_t count = 1;
        int levels = 0, pulled = 0;
        uint64_t scanned = 0;
        const double t0 = omp_get_wtime();
        while (count > 0 && levels <= (int)n) {
            mg__gpu_advance_args a = {.g = &P.dev, .program = &p, .type = MG_INT32,
                                      .d_in_list = in, .in_count = count, .d_x = P.d_y,
                                      .d_y = P.d_y, .d_out_list = out};
            mg_advance_info info;
            mg_status st = mi == 3 ? mg__gpu_advance_baseline(ctx, &a, &info)
                                   : mg__gpu_advance(ctx, &a, &info);
            CHECK_OK(ctx, st);
            if (st != MG_SUCCESS) break;
            count = a.out_count;
            pulled += info.pulled;
            scanned += info.edges_scanned;
            void *tmp = in;
            in = out;
            out = tmp;
            levels++;
        }
        const double secs = omp_get_wtime() - t0;
        CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
        CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, init, P.d_y, (size_t)n * 4));
        uint32_t wrong = 0, reached = 0;
        for (uint32_t v = 0; v < n; v++) {
            got[v] = init[P.new_of_old[v]];
            wrong += got[v] != want[v];
            reached += got[v] >= 0;
        }
        CHECK(wrong == 0);
        printf("rmat%d bfs %s: n=%u m=%llu, %d levels (%d pulled), %u reached, %llu edges scanned, "
               "%.2f ms, %u depths differ from mg_bfs\n",
               scale, mode_names[mi], n, (unsigned long long)P.host->m, levels, pulled, reached,
               (unsigned long long)scanned, secs * 1e3, wrong);
    }
    mg_vector_free(&depth);
    free(want);
    free(got);
    free(init);

    /* PageRank-like: y = 0.85 * sum x[s]/outdeg(s) + 0.15/n, 10 steps on the GPU and on the CPU. */
    double *rank = malloc((size_t)n * 8), *buf = malloc((size_t)n * 8), *cpu = malloc((size_t)n * 8);
    mg_vector vx = NULL, vy = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vx, P.host, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &vy, P.host, MG_DOUBLE));
    for (uint32_t v = 0; v < n; v++) rank[v] = 1.0 / n;
    CHECK_OK(ctx, mg_vector_load(ctx, vx, rank));
    /* uniform values need no permuting; y is set too, since AFFINE reads the old y for 'joins' */
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_x, rank, (size_t)n * 8));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_y, rank, (size_t)n * 8));
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_AFFINE;
    p.alpha = 0.85;
    p.beta = 0.15 / n;
    void *dx = P.d_x, *dy = P.d_y;
    const double t0 = omp_get_wtime();
    for (int it = 0; it < 10; it++) {
        mg__gpu_advance_args a = {.g = &P.dev, .program = &p, .type = MG_DOUBLE, .d_x = dx, .d_y = dy};
        mg_advance_info info;
        CHECK_OK(ctx, mg__gpu_advance(ctx, &a, &info));
        CHECK_OK(ctx, mg_advance(ctx, P.host, &p, NULL, vx, vy, NULL, NULL));
        void *t = dx;
        dx = dy;
        dy = t;
        mg_vector tv = vx;
        vx = vy;
        vy = tv;
    }
    const double secs = omp_get_wtime() - t0;
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, buf, dx, (size_t)n * 8));
    CHECK_OK(ctx, mg_vector_extract(ctx, vx, cpu));
    double worst = 0;
    uint32_t wrong = 0;
    for (uint32_t v = 0; v < n; v++) {
        const double gv = buf[P.new_of_old[v]], rel = fabs(gv - cpu[v]) / fabs(cpu[v]);
        if (rel > worst) worst = rel;
        wrong += !(rel <= 1e-9);
    }
    CHECK(wrong == 0);
    printf("rmat%d pagerank: 10 steps (GPU and CPU engine, %.2f ms together), largest relative "
           "difference %.2e, %u vertices off by more than 1e-9\n", scale, secs * 1e3, worst, wrong);
    mg_vector_free(&vx);
    mg_vector_free(&vy);
    free(rank);
    free(buf);
    free(cpu);
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

    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, M, true, MG_WEIGHT_INT32));
    coo.n = N;
    coo.m = M;
    for (int e = 0; e < M; e++) {
        /* skew: a few vertices get many edges, so pull and push differ in cost */
        coo.src[e] = next_rand() % 4 == 0 ? next_rand() % 8 : next_rand() % N;
        coo.dst[e] = next_rand() % 5 == 0 ? 8 + next_rand() % 4 : next_rand() % N;
        ((int32_t *)coo.weights)[e] = 1 + (int32_t)(next_rand() % 50);
    }
    int cases = 0, failed = 0;
    for (int undirected = 0; undirected <= 1; undirected++) {
        if (small_mode && undirected) break;
        mg_graph_options opts;
        mg_graph_options_init(&opts);
        opts.directed = !undirected;
        pair P;
        if (pair_build(&P, &coo, &opts)) {
            const uint64_t *o, *io;
            mg_graph_csr(P.host, &o, NULL, NULL);
            mg_graph_csc(P.host, &io, NULL, NULL);
            uint64_t max_out = 0, max_in = 0;
            for (uint32_t v = 0; v < N; v++) {
                if (o[v + 1] - o[v] > max_out) max_out = o[v + 1] - o[v];
                if (io[v + 1] - io[v] > max_in) max_in = io[v + 1] - io[v];
            }
            /* the block stage of the push and the warp pull must both be reached */
            CHECK(max_out >= 256 && P.dev.group_start[MG__GPU_GROUPS - 1] > 0);
            printf("device advance graph %s: n=%u m=%llu, max out-degree %llu, max in-degree %llu, "
                   "%u vertices in groups 1-5\n", undirected ? "undirected" : "directed", N,
                   (unsigned long long)P.host->m, (unsigned long long)max_out,
                   (unsigned long long)max_in, P.dev.group_start[MG__GPU_GROUPS - 1]);
        }
        if (P.dev.n == N) {
            /* the default build has no segments: pushes use global atomics */
            const uint32_t H = P.dev.group_start[4];
            CHECK(H > 0 && P.dev.seg_count == 0 && P.dev.d_seg_ptr == NULL);
            all_configs(&P, undirected ? "undirected" : "directed", &cases, &failed);
            /* device-sized segments (opt-in): one segment here */
            CHECK_OK(ctx, mg__gpu_graph_segment(ctx, &P.dev, 0));
            CHECK(P.dev.seg_count == (H + P.dev.seg_size - 1) / P.dev.seg_size &&
                  P.dev.d_seg_ptr != NULL);
            printf("device advance graph %s: %u destinations in groups 1-4, %u segment(s) of %u\n",
                   undirected ? "undirected" : "directed", H, P.dev.seg_count, P.dev.seg_size);
            all_configs(&P, undirected ? "undirected, segments" : "directed, segments", &cases,
                        &failed);
            /* segments of 3 destinations: several segments, the last one shorter */
            if (!undirected) {
                CHECK_OK(ctx, mg__gpu_graph_segment(ctx, &P.dev, 3));
                CHECK(P.dev.seg_size == 3 && P.dev.seg_count == (H + 2) / 3 && P.dev.seg_count >= 2);
                all_configs(&P, "directed, segments of 3", &cases, &failed);
                /* and none: global atomics only */
                P.dev.group_start[4] = 0;
                CHECK_OK(ctx, mg__gpu_graph_segment(ctx, &P.dev, 0));
                CHECK(P.dev.seg_count == 0 && P.dev.d_seg_ptr == NULL);
                P.dev.group_start[4] = H;
                all_configs(&P, "directed, no segments", &cases, &failed);
            }
        }
        pair_free(&P);
    }
    mg__coo_free(&coo);
    printf("device advance: %d configurations (%d pushed, %d pulled, %d by the baseline kernel), %d "
           "with mismatches\n", cases, pushes, pulls, baselines, failed);

    /* bad arguments are refused with a message */
    {
        mg_program p;
        mg_program_init(&p);
        mg_advance_info info;
        mg__gpu_advance_args a = {.program = &p, .type = MG_INT32};
        CHECK(mg__gpu_advance(ctx, &a, &info) == MG_INVALID_ARGUMENT);
        CHECK(strstr(mg_context_error(ctx), "mg__gpu_advance") != NULL);
        CHECK(mg__gpu_advance_baseline(ctx, &a, &info) == MG_INVALID_ARGUMENT);
    }

    rmat_loops(small_mode ? 10 : 16);
    mg_context_free(&ctx);
    return check_report();
}
