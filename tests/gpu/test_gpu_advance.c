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
#include "check.h"
#include "gpu_test.h"

#include <math.h>
#include <omp.h>

/* Large enough that some sources have >= 256 out-edges (the push's block stage) and some
 * destinations >= 128 in-edges (degree groups 1-5: the pull's warp per destination). */
enum { N = 1000, M = 12000 };

static int pushes, pulls, baselines;

/* Runs one configuration on the device and compares with brute force; returns the mismatches. */
static int run_case(pair *P, mg_type type, const mg_program *p, bool use_in, bool use_mask,
                    mg_mode mode, bool baseline) {
    const uint32_t n = P->host->n;
    const size_t words = mg__bitmap_words(n), ts = mg__type_size(type);
    double xv[N], y0[N];
    bool in_set[N], mask_set[N], joined[N];
    uint8_t xbuf[N * 8], ybuf[N * 8];
    uint32_t list[N], out_list[N];
    uint64_t mask_bm[(N + 63) / 64], out_bm[(N + 63) / 64];
    gpu_case k = {.type = type, .p = p, .use_in = use_in, .use_mask = use_mask, .x = xv, .y0 = y0,
                  .in = in_set, .mask = mask_set, .xbuf = xbuf, .ybuf = ybuf, .list = list,
                  .mask_bm = mask_bm};
    case_inputs(P, &k, false);
    mg__gpu_advance_args a = {
        .g = &P->dev, .program = p, .type = type,
        .d_in_list = use_in ? P->d_in : NULL, .in_count = k.count,
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
    int bad = read_joined(n, a.out_count, out_list, out_bm, OUT_BOTH, joined);
    char what[64];
    snprintf(what, sizeof what, "mode %d pulled %d", mode, info.pulled);
    return bad + reference_mismatches(P, &k, ybuf, joined, what);
}

/* Every configuration test_engine.c covers (with its skips), on one graph. */
static void all_configs(pair *P, const char *name, int *cases, int *failed) {
    const mg_mode modes[] = {MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    int here = 0, bad_here = 0, combo = 0;
    for (int i = 0; i < PROGRAMS; i++) {
        mg_type t;
        mg_program p;
        if (!test_program(i, &t, &p)) continue;
        /* the sanitizer runs see a sample that still reaches every kernel family */
        if (small_mode && combo++ % 23 != 0) continue;
        /* mi 3: the baseline kernel, under a forced pull it must ignore */
        for (int mi = 0; mi < 4; mi++) {
            bool use_in = (*cases % 3) != 0, use_mask = (*cases % 2) == 0;
            (*cases)++;
            here++;
            int bad = run_case(P, t, &p, use_in, use_mask, mi < 3 ? modes[mi] : MG_MODE_PULL, mi == 3);
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
    pair P;
    const bool built = pair_from_graph(&P, g); /* the edges are already both ways: kept as they are */
    mg_graph_free(&g);
    if (!built) {
        pair_free(&P);
        return;
    }
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
    mg__gpu_info ginfo;
    const int early = gpu_test_start(&ginfo);
    if (early >= 0) return early;

    mg__coo coo;
    if (!skewed_coo(&coo, N, M)) return check_report();
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
