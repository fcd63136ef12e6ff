/*
 * test_gpu_dense.c — the dense-frontier engine (MultiGraphD: preprocess/dense_blocks.cu builds the form,
 * frontier/dense_engine.cu advances on it) against the brute-force meaning of every edge program
 * (tests/program_reference.h, the approach of test_gpu_advance.c): every value type, contribution,
 * combine and apply, along out- and in-edges, with the full frontier and a partial one, with and
 * without mask and complement, on a skewed directed graph and an undirected one, each under three
 * layouts: small forced panels (several column and row panels, heavy and light blocks, heavy blocks
 * cut into several units, a band per row panel), forced all-light blocks (a few bands, light items
 * cut inside a band), and the parameters derived from the device. Every case runs on a form whose
 * slots the previous case left behind (and phase 2 dropped from L2). Then the same on two graphs
 * whose destinations sit in clusters far apart, in one row panel (slot codes escaped inside blocks,
 * up to every slot of a window; the escapes counted on the host from the layout's definition), every
 * block light and every block heavy.
 * Then BFS and PageRank loops on an R-MAT graph against mg_bfs and the CPU engine.
 *
 * Exits 77 (ctest: skipped) when no GPU can be used. MG_GPU_TEST_SMALL=1 runs a sample of the
 * configurations, the directed graph only and a small R-MAT graph (for compute-sanitizer).
 */
#include "../../preprocess/dense_blocks.h"
#include "../../preprocess/dense_blocks_layout.h" /* the slot codes' escapes, checked here */
#include "check.h"
#include "gpu_test.h"

#include <math.h>

enum { N = 1000, M = 12000 };

/* One configuration through the dense engine on form d, compared with brute force; returns the
 * mismatches. */
static int run_case(pair *P, const mg__gpu_dense *d, mg_type type, const mg_program *p, bool use_in,
                    bool use_mask) {
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
    /* stale output from an earlier case must not survive: the engine clears what it writes */
    memset(out_bm, 0xa5, sizeof out_bm);
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_out_bm, out_bm, words * 8));
    mg__gpu_advance_args a = {
        .g = &P->dev, .program = p, .type = type,
        .d_in_list = use_in ? P->d_in : NULL, .in_count = k.count,
        .d_x = p->contribution == MG_CONTRIB_SRC_ID ? NULL : P->d_x, .d_y = P->d_y,
        .d_mask = use_mask ? P->d_mask : NULL,
        .d_out_list = P->d_out_list, .d_out_bitmap = P->d_out_bm,
    };
    mg_advance_info info;
    mg_status st = mg__gpu_dense_advance(ctx, d, &a, &info);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return 1;
    CHECK(!info.pulled && info.frontier_vertices == (use_in ? k.count : n));
    CHECK(a.out_count <= n && info.output_vertices == a.out_count);
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, ybuf, P->d_y, n * ts));
    const uint32_t listed = a.out_count < n ? a.out_count : n;
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_list, P->d_out_list, (size_t)listed * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, out_bm, P->d_out_bm, words * 8));
    const int bad = read_joined(n, a.out_count, out_list, out_bm, OUT_BOTH, joined);

    const uint64_t *off, *ioff;
    mg_graph_csr(P->host, &off, NULL, NULL);
    mg_graph_csc(P->host, &ioff, NULL, NULL);
    const bool along_out = p->edges == MG_EDGES_OUT;
    uint64_t frontier_edges = 0;
    for (uint32_t s = 0; s < n; s++)
        if (in_set[s]) frontier_edges += along_out ? off[s + 1] - off[s] : ioff[s + 1] - ioff[s];
    CHECK(info.frontier_edges == frontier_edges);
    return bad + reference_mismatches(P, &k, ybuf, joined, "dense");
}

/* Every configuration test_gpu_advance.c covers, each with the full frontier and a partial one;
 * forms[e] serves direction e. */
static void all_configs(pair *P, const mg__gpu_dense *const forms[2], const char *name, int *cases,
                        int *failed) {
    int here = 0, bad_here = 0, combo = 0;
    for (int i = 0; i < PROGRAMS; i++) {
        mg_type t;
        mg_program p;
        if (!test_program(i, &t, &p)) continue;
        if (small_mode && combo++ % 23 != 0) continue;
        for (int partial = 0; partial < 2; partial++) {
            const bool use_mask = (*cases % 3) != 0;
            (*cases)++;
            here++;
            const int bad = run_case(P, forms[p.edges], t, &p, partial, use_mask);
            CHECK(bad == 0);
            *failed += bad != 0;
            bad_here += bad != 0;
        }
    }
    printf("dense advance %s: %d configurations, %d with mismatches\n", name, here, bad_here);
}

/* Prints a form's figures and checks what holds for every form: each window of slots starts with
 * an escaped slot, and there are no more escapes than slots. */
static void print_stats(const char *name, const mg__gpu_dense *d) {
    mg__gpu_dense_stats s;
    mg__gpu_dense_get_stats(d, &s);
    CHECK(s.escapes >= MG__DENSE_SLOT_WINDOWS(s.slots) && s.escapes <= s.slots);
    printf("  %s: W=%u H=%u threshold=%u unit=%u band=%u: %u x %u panels, heavy %llu blocks %llu "
           "edges (%llu units), light %llu blocks %llu edges (%llu items), %llu slots in %u bands, "
           "%llu escaped, %.2fx CSR, %.2f ms\n",
           name, s.params.panel_width, s.params.panel_height, s.params.heavy_threshold,
           s.params.unit_edges, s.params.band_slots, s.col_panels, s.row_panels,
           (unsigned long long)s.heavy_blocks, (unsigned long long)s.heavy_edges,
           (unsigned long long)s.heavy_units, (unsigned long long)s.light_blocks,
           (unsigned long long)s.light_edges, (unsigned long long)s.light_items,
           (unsigned long long)s.slots, s.bands, (unsigned long long)s.escapes,
           (double)s.bytes / (double)s.csr_bytes, s.seconds * 1e3);
}

/* The layouts one graph is tested under. */
static void test_graph(pair *P, const char *gname, int *cases, int *failed) {
    const bool undirected = P->dev.in_shares_out;
    char name[96];
    /* 1. small forced panels: 16 column panels, row panels of at most 32 destinations, blocks of
     * 24 edges and more heavy, heavy blocks cut every 64 edges, a band per row panel */
    {
        const mg__gpu_dense_params prm = {.panel_width = 64, .panel_height = 32,
                                          .heavy_threshold = 24, .unit_edges = 64, .band_slots = 1};
        mg__gpu_dense *f[2] = {NULL, NULL};
        CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P->dev, MG_EDGES_OUT, &prm, &f[0]));
        if (!undirected) CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P->dev, MG_EDGES_IN, &prm, &f[1]));
        else f[1] = f[0]; /* the undirected rows are the same either way: one form serves both */
        if (f[0] != NULL && f[1] != NULL) {
            for (int e = 0; e < (undirected ? 1 : 2); e++) {
                mg__gpu_dense_stats s;
                mg__gpu_dense_get_stats(f[e], &s);
                CHECK(s.col_panels == (N + 63) / 64 && s.row_panels >= (N + 31) / 32);
                CHECK(s.heavy_blocks > 0 && s.light_blocks > 0 && s.heavy_units > s.heavy_blocks);
                CHECK(s.heavy_edges + s.light_edges == P->dev.m);
                CHECK(s.bands == s.row_panels);
                print_stats(e ? "in-edges, small panels" : "out-edges, small panels", f[e]);
            }
            const mg__gpu_dense *forms[2] = {f[0], f[1]};
            snprintf(name, sizeof name, "%s, small panels", gname);
            all_configs(P, forms, name, cases, failed);
        }
        mg__gpu_dense_free(&f[0]);
        if (!undirected) mg__gpu_dense_free(&f[1]);
        CHECK(f[0] == NULL);
    }
    /* 2. every block light, in bands of at most a third of the slots; the skewed column panel's
     * light entries in a band (over a thousand) are cut into items of at most 512 */
    if (!small_mode) {
        const mg__gpu_dense_params prm = {.panel_width = 128, .panel_height = 64,
                                          .heavy_threshold = UINT32_MAX,
                                          .band_slots = (uint32_t)(P->dev.m / 3)};
        mg__gpu_dense *f[2] = {NULL, NULL};
        for (int e = 0; e < 2; e++) {
            CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P->dev, (mg_edges)e, &prm, &f[e]));
            mg__gpu_dense_stats s;
            mg__gpu_dense_get_stats(f[e], &s);
            CHECK(s.heavy_blocks == 0 && s.light_edges == P->dev.m && s.slots == P->dev.m);
            CHECK(s.bands >= 3 && s.light_items > (uint64_t)s.bands * s.col_panels);
        }
        if (f[0] != NULL && f[1] != NULL) {
            print_stats("out-edges, all light", f[0]);
            const mg__gpu_dense *forms[2] = {f[0], f[1]};
            snprintf(name, sizeof name, "%s, all light", gname);
            all_configs(P, forms, name, cases, failed);
        }
        mg__gpu_dense_free(&f[0]);
        mg__gpu_dense_free(&f[1]);
    }
    /* 3. the parameters derived from the device, built and cached with the graph */
    {
        const mg__gpu_dense *f[2] = {NULL, NULL};
        CHECK_OK(ctx, mg__gpu_dense_get(ctx, &P->dev, MG_EDGES_OUT, &f[0]));
        CHECK_OK(ctx, mg__gpu_dense_get(ctx, &P->dev, MG_EDGES_IN, &f[1]));
        if (f[0] != NULL && f[1] != NULL) {
            const mg__gpu_dense *again = NULL;
            CHECK_OK(ctx, mg__gpu_dense_get(ctx, &P->dev, MG_EDGES_OUT, &again));
            CHECK(again == f[0] && P->dev.dense[MG_EDGES_OUT] == f[0]);
            CHECK(undirected ? f[1] == f[0] : f[1] != f[0]);
            mg__gpu_dense_stats s;
            mg__gpu_dense_get_stats(f[0], &s);
            CHECK(s.params.panel_width % 64 == 0 && s.params.panel_height > 0 &&
                  s.params.heavy_threshold > 0 && s.params.unit_edges >= s.params.panel_width &&
                  s.params.band_slots == UINT32_MAX && s.bands == 1); /* derived: one band */
            print_stats("out-edges, derived", f[0]);
            snprintf(name, sizeof name, "%s, derived", gname);
            all_configs(P, f, name, cases, failed);
        }
    }
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The slots and escapes of P's form along dir with one row panel (every destination), column panels
 * of W sources and every block light or every block heavy, from dense_blocks_layout.h's definitions:
 * the blocks' slots in column panel order, a light block's one per edge by destination, a heavy
 * block's one per destination; a slot is escaped at the start of a window, and where its destination
 * is below the previous slot's or 255 and more above it (*long_steps counts the escapes for that
 * last reason alone). */
static uint64_t expected_escapes(const pair *P, mg_edges dir, uint32_t W, bool heavy, uint64_t *slots,
                                 uint64_t *long_steps) {
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(P->host, &off, &idx, NULL);
    const uint64_t m = P->host->m;
    uint64_t *key = malloc((size_t)m * 8 + 8);
    *slots = *long_steps = 0;
    if (key == NULL) return 0;
    for (uint32_t s = 0; s < P->host->n; s++)
        for (uint64_t e = off[s]; e < off[s + 1]; e++) {
            const uint32_t ns = P->new_of_old[s], nd = P->new_of_old[idx[e]];
            const uint32_t row = dir == MG_EDGES_OUT ? nd : ns, col = dir == MG_EDGES_OUT ? ns : nd;
            key[e] = (uint64_t)(col / W) << 32 | row;
        }
    qsort(key, (size_t)m, sizeof *key, cmp_u64);
    uint64_t escapes = 0;
    uint32_t prev = 0;
    for (uint64_t e = 0; e < m; e++) {
        if (heavy && e > 0 && key[e] == key[e - 1]) continue; /* the same destination, block */
        const uint32_t d = (uint32_t)key[e];
        const bool window_start = *slots % MG__DENSE_SLOT_WINDOW == 0;
        const bool long_step = d >= prev && d - prev >= MG__DENSE_ESCAPE;
        escapes += window_start || d < prev || long_step;
        *long_steps += !window_start && long_step;
        prev = d;
        (*slots)++;
    }
    free(key);
    return escapes;
}

/* A directed graph of `edges` random sources and destinations drawn from clusters of `width`
 * vertices starting at starts[] (far apart, each of in-degree below 128, so the device numbering
 * keeps them in place): in one row panel a block's destinations step up by 255 and more from one
 * cluster to the next, so slots are escaped inside blocks, not only where blocks and windows start
 * (with single-vertex clusters, a heavy block's every slot: a window of more than 32 escapes and
 * chunks of 8 slots with more than two, phase 2's path through memory). Every block light, then
 * every block heavy; the escapes against the host's count. */
static void test_clustered(const char *gname, const uint32_t *starts, uint32_t clusters, uint32_t width,
                           uint32_t edges, int *cases, int *failed) {
    const uint32_t W = 64;
    char name[96];
    mg__coo coo;
    CHECK_OK(ctx, mg__coo_init(ctx, &coo, edges, true, MG_WEIGHT_INT32));
    coo.n = N;
    coo.m = edges;
    for (uint32_t e = 0; e < edges; e++) {
        coo.src[e] = next_rand() % N;
        coo.dst[e] = starts[next_rand() % clusters] + next_rand() % width;
        ((int32_t *)coo.weights)[e] = 1 + (int32_t)(next_rand() % 50);
    }
    mg_graph_options opts;
    mg_graph_options_init(&opts);
    opts.directed = true;
    pair P;
    if (pair_build(&P, &coo, &opts)) {
        printf("dense advance graph %s: n=%u m=%llu\n", gname, N, (unsigned long long)P.dev.m);
        for (int heavy = 0; heavy < 2 && !(small_mode && heavy); heavy++) {
            const mg__gpu_dense_params prm = {.panel_width = W, .panel_height = 1024,
                                              .heavy_threshold = heavy ? 1 : UINT32_MAX};
            mg__gpu_dense *f[2] = {NULL, NULL};
            for (int e = 0; e < 2; e++) {
                CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P.dev, (mg_edges)e, &prm, &f[e]));
                if (f[e] == NULL) continue;
                mg__gpu_dense_stats s;
                mg__gpu_dense_get_stats(f[e], &s);
                uint64_t slots, long_steps;
                const uint64_t want = expected_escapes(&P, (mg_edges)e, W, heavy, &slots, &long_steps);
                CHECK(s.row_panels == 1 && (heavy ? s.light_blocks == 0 : s.heavy_blocks == 0));
                CHECK(s.slots == slots && s.escapes == want);
                if (e == MG_EDGES_OUT) CHECK(long_steps > 0);
                printf("  %s, %s: %llu slots, %llu escaped; on the host %llu slots, %llu escaped "
                       "(%llu for a step of 255 or more)\n", e ? "in-edges" : "out-edges",
                       heavy ? "all heavy" : "all light", (unsigned long long)s.slots,
                       (unsigned long long)s.escapes, (unsigned long long)slots,
                       (unsigned long long)want, (unsigned long long)long_steps);
                print_stats(e ? "in-edges" : "out-edges", f[e]);
            }
            if (f[0] != NULL && f[1] != NULL) {
                const mg__gpu_dense *forms[2] = {f[0], f[1]};
                snprintf(name, sizeof name, "%s, %s", gname, heavy ? "all heavy" : "all light");
                all_configs(&P, forms, name, cases, failed);
            }
            mg__gpu_dense_free(&f[0]);
            mg__gpu_dense_free(&f[1]);
        }
    }
    pair_free(&P);
    mg__coo_free(&coo);
}

/* Arguments the engine must refuse, with a message. */
static void test_refusals(pair *P) {
    mg__gpu_dense *f = NULL;
    const mg__gpu_dense_params odd = {.panel_width = 100};
    CHECK(mg__gpu_dense_build(ctx, &P->dev, MG_EDGES_OUT, &odd, &f) == MG_INVALID_ARGUMENT && f == NULL);
    CHECK(strstr(mg_context_error(ctx), "panel width") != NULL);
    /* one panel of 32768 sources: 4-byte values fit a block's shared memory, 8-byte ones do not */
    const mg__gpu_dense_params wide = {.panel_width = 32768, .panel_height = 32768,
                                       .heavy_threshold = 1};
    CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P->dev, MG_EDGES_OUT, &wide, &f));
    if (f != NULL) {
        mg_program p;
        mg_program_init(&p);
        p.combine = MG_COMBINE_SUM;
        p.apply = MG_APPLY_ASSIGN;
        mg_advance_info info;
        mg__gpu_advance_args a = {.g = &P->dev, .program = &p, .type = MG_FLOAT, .d_x = P->d_x,
                                  .d_y = P->d_y};
        CHECK_OK(ctx, mg__gpu_dense_advance(ctx, f, &a, &info));
        a.type = MG_DOUBLE;
        CHECK(mg__gpu_dense_advance(ctx, f, &a, &info) == MG_INVALID_ARGUMENT);
        CHECK(strstr(mg_context_error(ctx), "shared memory") != NULL);
        /* a form used for the other direction of a directed graph */
        p.edges = MG_EDGES_IN;
        a.type = MG_FLOAT;
        CHECK(mg__gpu_dense_advance(ctx, f, &a, &info) == MG_INVALID_ARGUMENT);
        mg__gpu_dense_free(&f);
    }
}

/* ---- R-MAT: BFS and PageRank loops -------------------------------------------------------------- */

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
    /* the derived layout (few panels at these sizes) and small panels (many of both) */
    const mg__gpu_dense *derived = NULL;
    mg__gpu_dense *small = NULL;
    const mg__gpu_dense_params prm = {.panel_width = 1024, .panel_height = 512, .heavy_threshold = 256,
                                      .unit_edges = 4096, .band_slots = 1u << 16};
    CHECK_OK(ctx, mg__gpu_dense_get(ctx, &P.dev, MG_EDGES_OUT, &derived));
    CHECK_OK(ctx, mg__gpu_dense_build(ctx, &P.dev, MG_EDGES_OUT, &prm, &small));
    if (derived == NULL || small == NULL) {
        mg__gpu_dense_free(&small);
        pair_free(&P);
        return;
    }
    print_stats("rmat derived", derived);
    print_stats("rmat small panels", small);
    const mg__gpu_dense *forms[2] = {derived, small};
    const char *form_names[2] = {"derived", "small panels"};

    /* BFS: depth[d] = depth[s] + 1 for unset d, level by level (a partial frontier every step) */
    uint32_t source = 0; /* the first vertex with edges */
    {
        const uint64_t *hoff;
        mg_graph_csr(P.host, &hoff, NULL, NULL);
        while (source + 1 < n && hoff[source + 1] == hoff[source]) source++;
    }
    mg_vector depth = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, P.host, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, P.host, source, depth, NULL));
    int32_t *want = malloc((size_t)n * 4), *init = malloc((size_t)n * 4);
    CHECK_OK(ctx, mg_vector_extract(ctx, depth, want));
    mg_vector_free(&depth);
    for (int fi = 0; fi < 2; fi++) {
        for (uint32_t v = 0; v < n; v++) init[v] = -1;
        const uint32_t s_new = P.new_of_old[source];
        init[s_new] = 0;
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_y, init, (size_t)n * 4));
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_in, &s_new, 4));
        mg_program p;
        mg_program_init(&p);
        p.contribution = MG_CONTRIB_SRC_PLUS_ONE;
        p.combine = MG_COMBINE_ANY;
        p.apply = MG_APPLY_IF_UNSET;
        void *in = P.d_in, *out = P.d_out_list;
        uint32_t count = 1;
        int levels = 0;
        while (count > 0 && levels <= (int)n) {
            mg__gpu_advance_args a = {.g = &P.dev, .program = &p, .type = MG_INT32, .d_in_list = in,
                                      .in_count = count, .d_x = P.d_y, .d_y = P.d_y, .d_out_list = out};
            mg_advance_info info;
            const mg_status st = mg__gpu_dense_advance(ctx, forms[fi], &a, &info);
            CHECK_OK(ctx, st);
            if (st != MG_SUCCESS) break;
            count = a.out_count;
            void *t = in;
            in = out;
            out = t;
            levels++;
        }
        CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, init, P.d_y, (size_t)n * 4));
        uint32_t wrong = 0;
        for (uint32_t v = 0; v < n; v++) wrong += init[P.new_of_old[v]] != want[v];
        CHECK(wrong == 0);
        printf("rmat%d bfs, dense %s: %d levels, %u depths differ from mg_bfs\n", scale,
               form_names[fi], levels, wrong);
    }
    free(want);
    free(init);

    /* PageRank-like: y = 0.85 * sum x[s]/outdeg(s) + 0.15/n, 10 steps, against the CPU engine */
    double *rank = malloc((size_t)n * 8), *buf = malloc((size_t)n * 8), *cpu = malloc((size_t)n * 8);
    for (uint32_t v = 0; v < n; v++) rank[v] = (1.0 + v % 7) / n; /* not uniform: ids matter */
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_AFFINE;
    p.alpha = 0.85;
    p.beta = 0.15 / n;
    mg_vector vx = NULL, vy = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vx, P.host, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &vy, P.host, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_load(ctx, vx, rank));
    for (int it = 0; it < 10; it++) {
        CHECK_OK(ctx, mg_advance(ctx, P.host, &p, NULL, vx, vy, NULL, NULL));
        mg_vector t = vx;
        vx = vy;
        vy = t;
    }
    CHECK_OK(ctx, mg_vector_extract(ctx, vx, cpu));
    mg_vector_free(&vx);
    mg_vector_free(&vy);
    for (int fi = 0; fi < 2; fi++) {
        for (uint32_t v = 0; v < n; v++) buf[P.new_of_old[v]] = rank[v];
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_x, buf, (size_t)n * 8));
        CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P.d_y, buf, (size_t)n * 8));
        void *dx = P.d_x, *dy = P.d_y;
        for (int it = 0; it < 10; it++) {
            mg__gpu_advance_args a = {.g = &P.dev, .program = &p, .type = MG_DOUBLE, .d_x = dx, .d_y = dy};
            mg_advance_info info;
            CHECK_OK(ctx, mg__gpu_dense_advance(ctx, forms[fi], &a, &info));
            void *t = dx;
            dx = dy;
            dy = t;
        }
        CHECK_OK(ctx, mg__gpu_copy_to_host(ctx, buf, dx, (size_t)n * 8));
        double worst = 0;
        uint32_t wrong = 0;
        for (uint32_t v = 0; v < n; v++) {
            const double rel = fabs(buf[P.new_of_old[v]] - cpu[v]) / fabs(cpu[v]);
            if (!(rel <= worst)) worst = rel;
            wrong += !(rel <= 1e-9);
        }
        CHECK(wrong == 0);
        printf("rmat%d pagerank, dense %s: 10 steps, largest relative difference from the CPU "
               "engine %.2e, %u vertices off by more than 1e-9\n", scale, form_names[fi], worst, wrong);
    }
    free(rank);
    free(buf);
    free(cpu);
    mg__gpu_dense_free(&small);
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
            printf("dense advance graph %s: n=%u m=%llu\n", undirected ? "undirected" : "directed", N,
                   (unsigned long long)P.dev.m);
            test_graph(&P, undirected ? "undirected" : "directed", &cases, &failed);
            if (!undirected) test_refusals(&P);
        }
        pair_free(&P);
    }
    mg__coo_free(&coo);
    const uint32_t clustered[] = {0, 500, 990}, spread[] = {0, 300, 600, 900};
    test_clustered("clustered", clustered, 3, 10, 1500, &cases, &failed);
    test_clustered("spread", spread, 4, 1, 400, &cases, &failed);
    printf("dense advance: %d configurations, %d with mismatches\n", cases, failed);

    rmat_loops(small_mode ? 10 : 16);
    mg_context_free(&ctx);
    return check_report();
}
