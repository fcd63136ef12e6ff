/*
 * test_dist.c — a context over MPI ranks (mg_context_set_mpi), run by ctest under mpirun with 1, 2
 * and 3 ranks (oversubscribed on a 2-core machine): on graphs split over the ranks, BFS, SSSP, CC,
 * PageRank and BC from algos/, unchanged, give on every rank what one whole-graph context gives
 * (exactly, or PageRank and BC to rounding); the split is real (the shares' edges add up to the
 * graph's, each under it with several ranks); degrees and frontier edges count the whole graph;
 * every way of making a graph splits (generated, each rank making a part of the edges; from COO;
 * text files, each rank parsing a part of the lines, an error named at its line of the whole file;
 * a binary file, each rank reading its rows, and a damaged one refused on every rank); what a share
 * cannot do yet is refused with a message, on every rank (what needs every edge: the verifiers,
 * triangle counting, statistics, the sparse calls but mg_spmv); mg_spmv on a view of a share gives
 * the whole product; bad mg_ranks are refused.
 *
 * `test_dist gpu` runs the split contexts on the GPU backend, one device a rank (NCCL between
 * them); it exits 77 (skipped) on every rank where there are fewer devices than ranks.
 */
#define _POSIX_C_SOURCE 200809L /* truncate */
#include <mpi.h>

#include "check.h"
#include "dist.h"
#include "mg_internal.h"
#include "mgraph.h"
#include "mgraph_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mg_context ctx, ref;
static int rank, size;

/* the values of v (any type) as doubles */
static double *values(mg_context c, mg_vector v, mg_type t, uint32_t n) {
    double *out = malloc(((size_t)n + 1) * sizeof *out);
    void *raw = malloc(((size_t)n + 1) * 8);
    CHECK_OK(c, mg_vector_extract(c, v, raw));
    for (uint32_t i = 0; i < n; i++) {
        switch (t) {
        case MG_INT32: case MG_VERTEX: out[i] = ((int32_t *)raw)[i]; break;
        case MG_INT64: out[i] = (double)((int64_t *)raw)[i]; break;
        case MG_FLOAT: out[i] = ((float *)raw)[i]; break;
        case MG_DOUBLE: out[i] = ((double *)raw)[i]; break;
        }
    }
    free(raw);
    return out;
}

/* Every value within tol (relative, or absolute under 1), equal infinities. */
static void same(const char *what, const char *name, const double *a, const double *b, uint32_t n,
                 double tol) {
    uint32_t bad = 0, first = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double scale = fabs(b[i]) > 1 ? fabs(b[i]) : 1;
        const bool ok = a[i] == b[i] || fabs(a[i] - b[i]) <= tol * scale;
        if (!ok && bad++ == 0) first = i;
    }
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "rank %d/%d: %s on %s: %u values differ, first at %u: %.17g against %.17g\n",
                rank, size, what, name, bad, first, a[first], b[first]);
}

/* Whether st succeeded here; checks that every rank's call succeeded or every rank's failed. */
static bool succeeded_alike(mg_status st) {
    int ok = st == MG_SUCCESS, all = 0, any = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(all == any);
    return ok;
}

typedef enum { BFS, SSSP, CC, PR, BC } algo;
static const char *algo_name[] = {"bfs", "sssp", "cc", "pagerank", "bc"};

/* One algorithm on the split graph and on the whole one, compared. */
static void run(algo a, mg_graph split, mg_graph whole, const char *name) {
    const uint32_t n = mg_graph_num_vertices(whole);
    const mg_type t = a == BFS    ? MG_INT32
                      : a == CC   ? MG_VERTEX
                      : a == SSSP ? (mg_graph_weight_type(whole) == MG_WEIGHT_INT32 ? MG_INT64 : MG_DOUBLE)
                                  : MG_DOUBLE;
    mg_vector vs = NULL, vw = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vs, split, t));
    CHECK_OK(ref, mg_vector_create(ref, &vw, whole, t));
    const uint32_t source = n / 3;
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    po.tolerance = 1e-9;
    po.max_iterations = 1000;
    const uint32_t sources[3] = {0, n / 2, n - 1};
    double tol = 0;
    switch (a) {
    case BFS:
        CHECK_OK(ctx, mg_bfs(ctx, split, source, vs, NULL));
        CHECK_OK(ref, mg_bfs(ref, whole, source, vw, NULL));
        break;
    case SSSP:
        CHECK_OK(ctx, mg_sssp(ctx, split, source, 0, vs));
        CHECK_OK(ref, mg_sssp(ref, whole, source, 0, vw));
        tol = 1e-12;
        break;
    case CC:
        CHECK_OK(ctx, mg_cc(ctx, split, vs));
        CHECK_OK(ref, mg_cc(ref, whole, vw));
        break;
    case PR:
        CHECK_OK(ctx, mg_pagerank(ctx, split, &po, vs));
        CHECK_OK(ref, mg_pagerank(ref, whole, &po, vw));
        tol = 1e-9;
        break;
    case BC:
        CHECK_OK(ctx, mg_bc(ctx, split, sources, 3, vs));
        CHECK_OK(ref, mg_bc(ref, whole, sources, 3, vw));
        tol = 1e-9;
        break;
    }
    double *x = values(ctx, vs, t, n), *y = values(ref, vw, t, n);
    same(algo_name[a], name, x, y, n, tol);
    free(x);
    free(y);
    mg_vector_free(&vs);
    mg_vector_free(&vw);
}

/* The whole graph's counts from a share; the shares' edges add up to the graph's. */
static void shape(mg_graph split, mg_graph whole, const char *name) {
    const uint32_t n = mg_graph_num_vertices(whole);
    CHECK(mg_graph_num_vertices(split) == n);
    CHECK(mg_graph_num_edges(split) == mg_graph_num_edges(whole));
    CHECK(mg_graph_is_directed(split) == mg_graph_is_directed(whole));
    /* also on a rank whose share holds no edges (4 ranks on the small graphs) */
    CHECK(mg_graph_weight_type(split) == mg_graph_weight_type(whole));
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    CHECK_OK(ctx, mg_graph_csr(split, &off, &idx, &w));
    unsigned long long mine = off[n], total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    /* an undirected graph's share holds both arcs of an edge whose ends are both its own, one
     * arc of the others: arcs in all, as the whole graph stores them */
    CHECK(total == mg_graph_num_edges(whole));
    if (size > 1 && mg_graph_num_edges(whole) > 100) CHECK(mine < mg_graph_num_edges(whole));
    double wlo, whi, rlo, rhi;
    CHECK(mg_graph_weight_range(split, &wlo, &whi) == MG_SUCCESS);
    CHECK(mg_graph_weight_range(whole, &rlo, &rhi) == MG_SUCCESS);
    CHECK(wlo == rlo && whi == rhi);
    /* the L1 distance: every rank adds its own vertices' part; the sum is the whole one's, and
     * the same bits on every rank (loops branch on it) */
    {
        double *va = malloc((size_t)n * sizeof *va + 1), *vb = malloc((size_t)n * sizeof *vb + 1);
        for (uint32_t i = 0; i < n; i++) {
            va[i] = (double)(i % 7u) * 0.5 + 1e-3 * (double)i;
            vb[i] = (double)((i * 3u) % 11u) * 0.25;
        }
        mg_vector a = NULL, b = NULL, aw = NULL, bw = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &a, split, MG_DOUBLE));
        CHECK_OK(ctx, mg_vector_create(ctx, &b, split, MG_DOUBLE));
        CHECK_OK(ref, mg_vector_create(ref, &aw, whole, MG_DOUBLE));
        CHECK_OK(ref, mg_vector_create(ref, &bw, whole, MG_DOUBLE));
        CHECK_OK(ctx, mg_vector_load(ctx, a, va));
        CHECK_OK(ctx, mg_vector_load(ctx, b, vb));
        CHECK_OK(ref, mg_vector_load(ref, aw, va));
        CHECK_OK(ref, mg_vector_load(ref, bw, vb));
        double ls = -1, lw = -2, lo = 0, hi = 0;
        CHECK_OK(ctx, mg_vector_l1_distance(ctx, a, b, &ls));
        CHECK_OK(ref, mg_vector_l1_distance(ref, aw, bw, &lw));
        CHECK(fabs(ls - lw) <= 1e-12 * lw);
        MPI_Allreduce(&ls, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&ls, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(lo == hi);
        mg_vector_free(&a);
        mg_vector_free(&b);
        mg_vector_free(&aw);
        mg_vector_free(&bw);
        free(va);
        free(vb);
    }
    for (int e = 0; e < 2; e++) {
        mg_vector ds = NULL, dw = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &ds, split, MG_INT64));
        CHECK_OK(ref, mg_vector_create(ref, &dw, whole, MG_INT64));
        CHECK_OK(ctx, mg_vector_degree(ctx, ds, e ? MG_EDGES_IN : MG_EDGES_OUT));
        CHECK_OK(ref, mg_vector_degree(ref, dw, e ? MG_EDGES_IN : MG_EDGES_OUT));
        double *x = values(ctx, ds, MG_INT64, n), *y = values(ref, dw, MG_INT64, n);
        same(e ? "in-degrees" : "out-degrees", name, x, y, n, 0);
        free(x);
        free(y);
        mg_vector_free(&ds);
        mg_vector_free(&dw);
    }
    /* every rank's high vertices (dist.h: what the device forms number first): the whole graph's
     * in-degree groups 1-5, rank by rank, by group, then id, then the first low ones to make a
     * multiple of MG__DIST_HIGH_MULTIPLE */
    if (split->dist != NULL) {
        const struct mg__graph_dist *d = split->dist;
        mg_vector dw = NULL;
        CHECK_OK(ref, mg_vector_create(ref, &dw, whole, MG_INT64));
        CHECK_OK(ref, mg_vector_degree(ref, dw, MG_EDGES_IN));
        double *in = values(ref, dw, MG_INT64, n);
        uint64_t k = 0, bad = 0, hubs = 0;
        CHECK(d->high_start[0] == 0);
        for (int r = 0; r < size; r++) {
            uint64_t fill = 0;
            for (int grp = 1; grp <= MG__DEGREE_GROUPS; grp++)
                for (uint32_t v = d->first[r]; v < d->first[r + 1]; v++) {
                    if (mg__degree_group((uint64_t)in[v]) != grp) continue;
                    if (grp == MG__DEGREE_GROUPS) {
                        if ((k - d->high_start[r]) % MG__DIST_HIGH_MULTIPLE == 0) break;
                        fill++;
                    }
                    bad += k >= d->high_start[r + 1] || d->high[k] != v;
                    k++;
                }
            bad += k != d->high_start[r + 1];
            hubs += k - d->high_start[r] - fill;
            /* a multiple, unless the range has too few low vertices */
            bad += (k - d->high_start[r]) % MG__DIST_HIGH_MULTIPLE != 0 && k - d->high_start[r] < d->first[r + 1] - d->first[r];
        }
        uint64_t whole_hubs = 0;
        for (uint32_t v = 0; v < n; v++) whole_hubs += mg__degree_group((uint64_t)in[v]) < MG__DEGREE_GROUPS;
        CHECK(bad == 0);
        CHECK(hubs == whole_hubs);
        free(in);
        mg_vector_free(&dw);
    }
    mg_frontier fs = NULL, fw = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &fs, split));
    CHECK_OK(ref, mg_frontier_create(ref, &fw, whole));
    for (uint32_t v = 0; v < n; v += 7) {
        CHECK_OK(ctx, mg_frontier_add(ctx, fs, v));
        CHECK_OK(ref, mg_frontier_add(ref, fw, v));
    }
    uint64_t es = 0, ew = 1;
    CHECK_OK(ctx, mg_frontier_out_edges(ctx, fs, &es));
    CHECK_OK(ref, mg_frontier_out_edges(ref, fw, &ew));
    CHECK(es == ew);
    mg_frontier_free(&fs);
    mg_frontier_free(&fw);
}

static void split_spmv(mg_graph split, mg_graph whole, const char *name);

static void all(mg_graph split, mg_graph whole, const char *name) {
    shape(split, whole, name);
    split_spmv(split, whole, name);
    run(BFS, split, whole, name);
    run(PR, split, whole, name);
    if (mg_graph_weight_type(whole) != MG_WEIGHT_NONE) run(SSSP, split, whole, name);
    if (!mg_graph_is_directed(whole)) {
        run(CC, split, whole, name);
        run(BC, split, whole, name);
    } else {
        /* CC on a directed graph follows in-edges, which a share does not hold */
        mg_vector l = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &l, split, MG_VERTEX));
        CHECK(mg_cc(ctx, split, l) == (size > 1 ? MG_UNAVAILABLE : MG_SUCCESS));
        if (size > 1) CHECK(strstr(mg_context_error(ctx), "MG_EDGES_IN") != NULL);
        mg_vector_free(&l);
    }
}

static void generated(mg_generator kind, int scale, bool directed, mg_weight_type w, const char *name) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.edge_factor = 8;
    o.weights = w;
    o.seed = 7;
    o.graph.directed = directed;
    if (kind == MG_GEN_GRID) {
        o.width = 37;
        o.height = 23;
    }
    mg_graph split = NULL, whole = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &split, &o));
    CHECK_OK(ref, mg_generate(ref, &whole, &o));
    if (split != NULL && whole != NULL) all(split, whole, name);
    mg_graph_free(&split);
    mg_graph_free(&whole);
}

/* n = 200 (not a multiple of 64), isolated vertices, a self-loop and a parallel edge dropped */
static void from_coo(bool directed) {
    enum { N = 200, M = 400 };
    uint32_t src[M], dst[M];
    int32_t w[M];
    uint64_t s = 12345;
    for (int i = 0; i < M; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        src[i] = (uint32_t)(s >> 33) % 150;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        dst[i] = (uint32_t)(s >> 33) % 150;
        w[i] = 1 + (int32_t)((s >> 20) % 9);
    }
    src[0] = dst[0] = 5;
    src[1] = src[2] = 3;
    dst[1] = dst[2] = 140;
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = directed;
    mg_graph split = NULL, whole = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &split, N, M, src, dst, w, MG_WEIGHT_INT32, &go));
    CHECK_OK(ref, mg_graph_create_from_coo(ref, &whole, N, M, src, dst, w, MG_WEIGHT_INT32, &go));
    if (split != NULL && whole != NULL) all(split, whole, directed ? "coo directed" : "coo undirected");
    mg_graph_free(&split);
    mg_graph_free(&whole);
}

static void from_files(void) {
    const char *samples = getenv("MG_SAMPLES");
    if (samples == NULL) samples = "datasets/samples";
    char path[4096], bin[256];
    snprintf(path, sizeof path, "%s/roadNet-CA-sample.txt", samples);
    mg_read_options ro;
    mg_read_options_init(&ro);
    ro.undirected = 1;
    mg_graph split = NULL, whole = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &split, path, &ro));
    CHECK_OK(ref, mg_graph_read(ref, &whole, path, &ro));
    if (split != NULL && whole != NULL) all(split, whole, "roadNet-CA-sample");
    /* a binary file: each rank reads its share of it (binary_shares below) */
    snprintf(bin, sizeof bin, "/tmp/mg_test_dist_%d_%d.mgb", (int)getpid(), rank);
    if (whole != NULL) CHECK_OK(ref, mg_graph_write(ref, whole, bin, MG_FORMAT_BINARY));
    mg_graph split_bin = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &split_bin, bin, NULL));
    if (split_bin != NULL && whole != NULL) all(split_bin, whole, "roadNet-CA-sample.mgb");
    unlink(bin);
    /* a share cannot be written or permuted: only a part of the graph is there */
    if (size > 1 && split != NULL) {
        CHECK(mg_graph_write(ctx, split, bin, MG_FORMAT_BINARY) == MG_UNAVAILABLE);
        CHECK(strstr(mg_context_error(ctx), "share") != NULL);
        CHECK(access(bin, F_OK) != 0);
        const uint32_t n = mg_graph_num_vertices(split);
        uint32_t *perm = malloc((size_t)n * sizeof *perm);
        for (uint32_t i = 0; i < n; i++) perm[i] = n - 1 - i;
        mg_graph p = NULL;
        CHECK(mg_graph_permute(ctx, split, perm, &p) == MG_UNAVAILABLE);
        CHECK(p == NULL);
        free(perm);
    }
    mg_graph_free(&split_bin);
    mg_graph_free(&split);
    mg_graph_free(&whole);
}

/* y (n x 1, doubles) on every rank: x[i] and y[i] from i alone, so alike everywhere. */
static mg_dense dense_of(mg_context c, uint32_t n, mg_type t, int salt) {
    mg_dense d = NULL;
    CHECK_OK(c, mg_dense_create(c, &d, n, 1, t));
    double *v = malloc((size_t)n * sizeof *v + 1);
    float *f = malloc((size_t)n * sizeof *f + 1);
    for (uint32_t i = 0; i < n; i++) f[i] = (float)(v[i] = 1.0 + (double)((i * 7u + (uint32_t)salt) % 13u) / 8.0);
    if (d != NULL) CHECK_OK(c, mg_dense_load(c, d, t == MG_FLOAT ? (void *)f : (void *)v));
    free(v);
    free(f);
    return d;
}

/* d's n values as doubles */
static double *dense_values(mg_context c, mg_dense d, uint32_t n) {
    double *out = malloc((size_t)n * sizeof *out + 1);
    float *f = malloc((size_t)n * sizeof *f + 1);
    const bool single = mg_dense_type(d) == MG_FLOAT;
    CHECK_OK(c, mg_dense_extract(c, d, single ? (void *)f : (void *)out));
    if (single)
        for (uint32_t i = 0; i < n; i++) out[i] = f[i];
    free(f);
    return out;
}

/* mg_spmv on a view of a share gives every rank the whole graph's product: A^T x on any graph and
 * A x on an undirected one, every semiring, alpha and beta, float and double; A x on a directed
 * graph's share is refused, as are the sparse calls that need every entry; a failure on one rank
 * fails all and leaves y as it was. */
static void split_spmv(mg_graph split, mg_graph whole, const char *name) {
    const uint32_t n = mg_graph_num_vertices(whole);
    const bool directed = mg_graph_is_directed(whole);
    mg_matrix As = NULL, Aw = NULL;
    CHECK_OK(ctx, mg_graph_matrix(ctx, split, &As));
    CHECK_OK(ref, mg_graph_matrix(ref, whole, &Aw));
    if (As == NULL || Aw == NULL) goto done;
    CHECK(mg_matrix_nnz(As) == mg_matrix_nnz(Aw));
    CHECK(mg_matrix_rows(As) == n && mg_matrix_cols(As) == n);
    CHECK(mg_matrix_declared_symmetric(As) == !directed);
    static const struct {
        mg_semiring sr;
        bool transpose;
        double alpha, beta;
        mg_type type;
    } cases[] = {
        {MG_SEMIRING_PLUS_TIMES, true, 1, 0, MG_DOUBLE},   {MG_SEMIRING_PLUS_TIMES, true, 2, 0.5, MG_DOUBLE},
        {MG_SEMIRING_PLUS_TIMES, false, 1, 0, MG_DOUBLE},  {MG_SEMIRING_MIN_PLUS, true, 1, 0, MG_DOUBLE},
        {MG_SEMIRING_MIN_PLUS, true, 1, 1, MG_DOUBLE},     {MG_SEMIRING_MAX_TIMES, false, 1, 0, MG_DOUBLE},
        {MG_SEMIRING_OR_AND, true, 1, 0, MG_FLOAT},        {MG_SEMIRING_PLUS_TIMES, true, 1, 1, MG_FLOAT},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        mg_spmv_options o;
        mg_spmv_options_init(&o);
        o.semiring = cases[k].sr;
        o.transpose = cases[k].transpose;
        o.alpha = cases[k].alpha;
        o.beta = cases[k].beta;
        const mg_type t = cases[k].type;
        mg_dense xs = dense_of(ctx, n, t, 0), ys = dense_of(ctx, n, t, 5);
        mg_dense xw = dense_of(ref, n, t, 0), yw = dense_of(ref, n, t, 5);
        const mg_status st = mg_spmv(ctx, As, xs, ys, &o);
        if (directed && !o.transpose && size > 1) {
            CHECK(st == MG_UNAVAILABLE);
            CHECK(strstr(mg_context_error(ctx), "A^T") != NULL);
        } else {
            CHECK_OK(ctx, st);
            CHECK_OK(ref, mg_spmv(ref, Aw, xw, yw, &o));
            double *a = dense_values(ctx, ys, n), *b = dense_values(ref, yw, n);
            char what[64];
            snprintf(what, sizeof what, "spmv case %zu", k);
            same(what, name, a, b, n, t == MG_FLOAT ? 1e-5 : 1e-12);
            free(a);
            free(b);
        }
        mg_dense_free(&xs);
        mg_dense_free(&ys);
        mg_dense_free(&xw);
        mg_dense_free(&yw);
    }
    /* a failure on one rank: every rank fails, y unchanged everywhere */
    if (size > 1) {
        mg_spmv_options o;
        mg_spmv_options_init(&o);
        o.transpose = true;
        static const uint64_t ks[] = {1, 2, 3, 4, 5, 6, 8};
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            mg_dense x = dense_of(ctx, n, MG_DOUBLE, 0), y = dense_of(ctx, n, MG_DOUBLE, 5);
            if (rank == 1) mg__inject_alloc_failure(ks[i]);
            const mg_status st = mg_spmv(ctx, As, x, y, &o);
            if (rank == 1) mg__inject_alloc_failure(0);
            if (!succeeded_alike(st)) {
                if (rank != 1) CHECK(strstr(mg_context_error(ctx), "other rank") != NULL);
                double *got = dense_values(ctx, y, n);
                uint32_t changed = 0;
                for (uint32_t v = 0; v < n; v++) changed += got[v] != 1.0 + (double)((v * 7u + 5u) % 13u) / 8.0;
                CHECK(changed == 0);
                free(got);
            }
            mg_dense_free(&x);
            mg_dense_free(&y);
        }
        /* what needs every entry refuses the view, naming it */
        mg_dense B = dense_of(ctx, n, MG_DOUBLE, 0), C = dense_of(ctx, n, MG_DOUBLE, 1);
        CHECK(mg_spmm(ctx, As, B, C, NULL) == MG_UNAVAILABLE);
        CHECK(strstr(mg_context_error(ctx), "split over ranks") != NULL);
        CHECK(mg_check_spmv(ctx, As, B, NULL, C, NULL) == MG_UNAVAILABLE);
        mg_matrix P = NULL;
        CHECK(mg_spgemm(ctx, As, As, &P, NULL) == MG_UNAVAILABLE);
        CHECK(P == NULL);
        mg_dense_free(&B);
        mg_dense_free(&C);
    }
done:
    mg_matrix_free(&As);
    mg_matrix_free(&Aw);
}

/* R-MAT 9 (edge factor 8, seed 11) made on c: whole on ref, split on ctx */
static mg_graph rmat9(mg_context c, bool directed, mg_weight_type w) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = 9;
    o.edge_factor = 8;
    o.weights = w;
    o.seed = 11;
    o.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(c, mg_generate(c, &g, &o));
    return g;
}

/* One step old into new (PageRank's program, t values), with and without a mask of every third
 * destination (the others keep y's values), on the share and the whole graph. */
static void pull_step(mg_graph split, mg_graph whole, mg_type t, const char *name) {
    const uint32_t n = mg_graph_num_vertices(whole);
    void *raw = malloc(((size_t)n + 1) * 8);
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_AFFINE;
    p.alpha = 0.85;
    p.beta = 0.15 / n;
    for (int masked = 0; masked < 2; masked++) {
        mg_vector xs = NULL, ys = NULL, xw = NULL, yw = NULL;
        mg_frontier ms = NULL, mw = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &xs, split, t));
        CHECK_OK(ctx, mg_vector_create(ctx, &ys, split, t));
        CHECK_OK(ref, mg_vector_create(ref, &xw, whole, t));
        CHECK_OK(ref, mg_vector_create(ref, &yw, whole, t));
        for (int k = 0; k < 2; k++) {
            for (uint32_t i = 0; i < n; i++) {
                const double v = k ? 2 + (double)(i % 5) : 1 + (double)(i % 13) * 0.25;
                if (t == MG_FLOAT) ((float *)raw)[i] = (float)v;
                else ((double *)raw)[i] = v;
            }
            CHECK_OK(ctx, mg_vector_load(ctx, k ? ys : xs, raw));
            CHECK_OK(ref, mg_vector_load(ref, k ? yw : xw, raw));
        }
        if (masked) {
            CHECK_OK(ctx, mg_frontier_create(ctx, &ms, split));
            CHECK_OK(ref, mg_frontier_create(ref, &mw, whole));
            for (uint32_t v = 0; v < n; v += 3) {
                CHECK_OK(ctx, mg_frontier_add(ctx, ms, v));
                CHECK_OK(ref, mg_frontier_add(ref, mw, v));
            }
        }
        CHECK_OK(ctx, mg_advance(ctx, split, &p, NULL, xs, ys, ms, NULL));
        CHECK_OK(ref, mg_advance(ref, whole, &p, NULL, xw, yw, mw, NULL));
        double *a = values(ctx, ys, t, n), *b = values(ref, yw, t, n);
        same(masked ? "a masked step" : "a step", name, a, b, n, t == MG_FLOAT ? 1e-5 : 1e-12);
        free(a);
        free(b);
        mg_vector_free(&xs);
        mg_vector_free(&ys);
        mg_vector_free(&xw);
        mg_vector_free(&yw);
        mg_frontier_free(&ms);
        mg_frontier_free(&mw);
    }
    free(raw);
}

/* The engines' modes on shares, the ranks alike or not: on the GPU a pull sends its values while
 * it runs where every rank pulls, and where one rank pushes or runs the dense engine all exchange
 * after the step. Even ranks take a pair's first mode, odd ones its second. */
static void engine_modes(void) {
    static const mg_mode modes[][2] = {{MG_MODE_PULL, MG_MODE_PULL},
                                       {MG_MODE_PULL, MG_MODE_SPARSE},
                                       {MG_MODE_DENSE, MG_MODE_PULL},
                                       {MG_MODE_HYBRID, MG_MODE_HYBRID}};
    static const char *names[] = {"rmat9, every rank pulling", "rmat9, pulling and pushing",
                                  "rmat9, dense and pulling", "rmat9, the hybrid"};
    mg_graph su = rmat9(ctx, false, MG_WEIGHT_INT32), wu = rmat9(ref, false, MG_WEIGHT_INT32);
    mg_graph sd = rmat9(ctx, true, MG_WEIGHT_FLOAT), wd = rmat9(ref, true, MG_WEIGHT_FLOAT);
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        CHECK_OK(ctx, mg_context_set_mode(ctx, modes[i][rank % 2]));
        pull_step(su, wu, MG_DOUBLE, names[i]);
        pull_step(sd, wd, MG_FLOAT, names[i]);
        run(PR, su, wu, names[i]);
        run(PR, sd, wd, names[i]);
        run(CC, su, wu, names[i]);
        run(SSSP, su, wu, names[i]);
    }
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    mg_graph_free(&su);
    mg_graph_free(&wu);
    mg_graph_free(&sd);
    mg_graph_free(&wd);
}

/* What needs every edge refuses a share, on every rank alike (MG_UNAVAILABLE, naming the split),
 * instead of answering from this rank's edges: the verifiers, triangle counting, the statistics.
 * With one rank the graph is whole and all of them run. */
static void whole_only(void) {
    mg_graph g = rmat9(ctx, false, MG_WEIGHT_INT32);
    if (g == NULL) return;
    CHECK(mg_graph_is_share(g) == (size > 1));
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector depth = NULL, label = NULL, dist = NULL, rank_ = NULL, bc = NULL, lcc = NULL, tri = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &rank_, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &lcc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &tri, g, MG_INT64));
    CHECK_OK(ctx, mg_bfs(ctx, g, 0, depth, NULL));
    CHECK_OK(ctx, mg_cc(ctx, g, label));
    CHECK_OK(ctx, mg_sssp(ctx, g, 0, 0, dist));
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank_));
    const uint32_t sources[1] = {0};
    CHECK_OK(ctx, mg_bc(ctx, g, sources, 1, bc));
    const mg_status want = size > 1 ? MG_UNAVAILABLE : MG_SUCCESS;
    uint64_t total = 0;
    mg_graph_stats st;
    mg_status got[14];
    int k = 0;
    got[k++] = mg_check_bfs(ctx, g, 0, depth, NULL);
    got[k++] = mg_check_cc(ctx, g, label);
    got[k++] = mg_check_sssp(ctx, g, 0, dist);
    got[k++] = mg_check_pagerank(ctx, g, &po, rank_);
    got[k++] = mg_check_bc(ctx, g, sources, 1, bc);
    got[k++] = mg_triangle_count(ctx, g, &total, tri);
    got[k++] = mg_check_triangle_count(ctx, g, total, size > 1 ? NULL : tri);
    got[k++] = mg_lcc(ctx, g, lcc);
    got[k++] = mg_check_lcc(ctx, g, lcc);
    got[k++] = mg_graph_get_stats(ctx, g, &st);
    for (int i = 0; i < k; i++) {
        CHECK(got[i] == want);
        if (got[i] != want) fprintf(stderr, "rank %d/%d: whole_only: call %d gave %d\n", rank, size, i, (int)got[i]);
    }
    if (size > 1) {
        CHECK(strstr(mg_context_error(ctx), "split over ranks") != NULL);
    } else {
        CHECK(total > 0);
        CHECK(st.n == n);
    }
    mg_vector_free(&depth);
    mg_vector_free(&label);
    mg_vector_free(&dist);
    mg_vector_free(&rank_);
    mg_vector_free(&bc);
    mg_vector_free(&lcc);
    mg_vector_free(&tri);
    mg_graph_free(&g);
}

/* A path every rank names alike (rank 0's process id in it). */
static void shared_path(char *path, size_t size_, const char *name) {
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, size_, "/tmp/mg_test_dist_%d_%s", pid, name);
}

/* g written by rank 0 (its own context), then read by every rank on the split context. */
static mg_status write_then_read(mg_graph g, const char *path, const mg_read_options *ro, mg_graph *split) {
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    return mg_graph_read(ctx, split, path, ro);
}

/* Each rank reads its own rows of a binary file (mg__read_binary_share): the share and every
 * algorithm as from the whole graph, directed or not, weighted or not, weights ignored, and a
 * file read as the other directedness (read whole, rebuilt, split). */
static void binary_shares(void) {
    static const struct { bool directed; mg_weight_type w; const char *name; } kinds[] = {
        {true, MG_WEIGHT_INT32, "rmat9 directed int"},
        {false, MG_WEIGHT_FLOAT, "rmat9 undirected float"},
        {true, MG_WEIGHT_NONE, "rmat9 directed"},
    };
    char path[256];
    shared_path(path, sizeof path, "share.mgb");
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        mg_graph whole = rmat9(ref, kinds[k].directed, kinds[k].w), split = NULL;
        if (whole == NULL) continue;
        CHECK_OK(ctx, write_then_read(whole, path, NULL, &split));
        if (split != NULL) all(split, whole, kinds[k].name);
        mg_graph_free(&split);
        mg_read_options ro;
        mg_read_options_init(&ro);
        ro.ignore_weights = true;
        mg_graph light = NULL;
        CHECK_OK(ctx, mg_graph_read(ctx, &split, path, &ro));
        CHECK_OK(ref, mg_graph_read(ref, &light, path, &ro));
        if (split != NULL) CHECK(mg_graph_weight_type(split) == MG_WEIGHT_NONE);
        if (split != NULL && light != NULL) all(split, light, "weights ignored");
        mg_graph_free(&split);
        mg_graph_free(&light);
        ro.ignore_weights = false;
        ro.undirected = kinds[k].directed ? 1 : 0; /* the other directedness */
        mg_graph other = NULL;
        CHECK_OK(ctx, mg_graph_read(ctx, &split, path, &ro));
        CHECK_OK(ref, mg_graph_read(ref, &other, path, &ro));
        if (split != NULL && other != NULL) all(split, other, "read as the other directedness");
        mg_graph_free(&split);
        mg_graph_free(&other);
        mg_graph_free(&whole);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) unlink(path);
    }
}

/* Writes text to path on rank 0; every rank waits for it. */
static void put_file(const char *path, const char *text) {
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f != NULL) {
            fputs(text, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void expect_refused_split(const char *path, const char *words);

/* Text files over the ranks, each parsing a part of the lines (mg__text_body.split): the graph
 * the whole file gives, weights that turn real in one part only (SNAP), and each error named at
 * its line of the whole file. */
static void text_parts(void) {
    enum { LINES = 3000 };
    char path[256];
    char *text = malloc((size_t)LINES * 40 + 200);
    for (int kind = 0; kind < 2; kind++) {
        /* kind 0: Matrix Market with int weights; 1: SNAP whose last line's weight is real */
        size_t at = 0;
        if (kind == 0) at += (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate integer general\n%% c\n500 500 %d\n", LINES);
        else at += (size_t)sprintf(text, "# a SNAP list\n");
        uint64_t x = 99;
        for (int i = 0; i < LINES; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const unsigned u = (unsigned)(x >> 40) % 500 + (kind == 0), v = (unsigned)(x >> 20) % 500 + (kind == 0);
            if (kind == 1 && i == LINES - 1) at += (size_t)sprintf(text + at, "%u %u 2.5\n", u, v);
            else at += (size_t)sprintf(text + at, "%u %u %u\n", u, v, 1 + (unsigned)(x % 9));
        }
        shared_path(path, sizeof path, kind == 0 ? "parts.mtx" : "parts.txt");
        put_file(path, text);
        mg_graph split = NULL, whole = NULL;
        CHECK_OK(ctx, mg_graph_read(ctx, &split, path, NULL));
        CHECK_OK(ref, mg_graph_read(ref, &whole, path, NULL));
        if (split != NULL && whole != NULL) {
            CHECK(mg_graph_weight_type(split) == (kind == 0 ? MG_WEIGHT_INT32 : MG_WEIGHT_FLOAT));
            all(split, whole, kind == 0 ? "text parts (Matrix Market)" : "text parts (SNAP, real weights)");
        }
        mg_graph_free(&split);
        mg_graph_free(&whole);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) unlink(path);
    }
    /* errors, at their line in the whole file (the size line is line 2, entries from line 3) */
    size_t at = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate pattern general\n10 10 %d\n", LINES);
    for (int i = 0; i < LINES; i++) at += (size_t)sprintf(text + at, i == 2400 ? "3 x\n" : "%d %d\n", 1 + i % 10, 1 + i % 7);
    shared_path(path, sizeof path, "bad_line.mtx");
    put_file(path, text);
    expect_refused_split(path, ":2403: column index 'x' is not a non-negative integer");
    at = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate pattern general\n10 10 %d\n", LINES - 5);
    for (int i = 0; i < LINES; i++) at += (size_t)sprintf(text + at, "%d %d\n", 1 + i % 10, 1 + i % 7);
    put_file(path, text);
    expect_refused_split(path, ":2998: more entries than the 2995 declared on line 2");
    at = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate pattern general\n10 10 %d\n", LINES + 5);
    for (int i = 0; i < LINES; i++) at += (size_t)sprintf(text + at, "%d %d\n", 1 + i % 10, 1 + i % 7);
    put_file(path, text);
    expect_refused_split(path, ":3002: the file ends after 3000 entries, but line 2 declares 3005");
    free(text);
}

/* One rank alone failing (out of memory at its k-th allocation) while the ranks read a text file,
 * then a binary one, in parts: every rank fails, none waits for ever. */
static void one_rank_fails_reading(void) {
    if (size < 2) return;
    char mtx[256], mgb[256], text[4096];
    size_t at = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate integer general\n40 40 200\n");
    for (int i = 0; i < 200; i++) at += (size_t)sprintf(text + at, "%d %d %d\n", 1 + i % 40, 1 + (i * 7) % 40, 1 + i % 5);
    shared_path(mtx, sizeof mtx, "fail.mtx");
    shared_path(mgb, sizeof mgb, "fail.mgb");
    put_file(mtx, text);
    mg_graph whole = NULL;
    CHECK_OK(ref, mg_graph_read(ref, &whole, mtx, NULL));
    if (rank == 0 && whole != NULL) CHECK_OK(ref, mg_graph_write(ref, whole, mgb, MG_FORMAT_BINARY));
    mg_graph_free(&whole);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int file = 0; file < 2; file++)
        for (uint64_t k = 1; k <= 40; k++) {
            mg_graph g = NULL;
            if (rank == 1) mg__inject_alloc_failure(k);
            const mg_status st = mg_graph_read(ctx, &g, file ? mgb : mtx, NULL);
            if (rank == 1) mg__inject_alloc_failure(0);
            if (!succeeded_alike(st)) CHECK(g == NULL);
            mg_graph_free(&g);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(mtx);
        unlink(mgb);
    }
}

/* Shares with nothing in them: a generated graph of fewer edges than ranks (some parts empty), a
 * binary file without edges (every share empty). */
static void empty_parts(void) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = 1;
    o.edge_factor = 1; /* 2 edges */
    o.graph.directed = true;
    o.weights = MG_WEIGHT_INT32; /* a rank with no edges has no weight array, the others do */
    mg_graph split = NULL, whole = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &split, &o));
    CHECK_OK(ref, mg_generate(ref, &whole, &o));
    if (split != NULL && whole != NULL) all(split, whole, "rmat1 (2 edges)");
    mg_graph_free(&split);
    mg_graph_free(&whole);
    const uint32_t none = 0;
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = true;
    CHECK_OK(ref, mg_graph_create_from_coo(ref, &whole, 5, 0, &none, &none, NULL, MG_WEIGHT_NONE, &go));
    char path[256];
    shared_path(path, sizeof path, "empty.mgb");
    if (whole != NULL) CHECK_OK(ctx, write_then_read(whole, path, NULL, &split));
    if (split != NULL) {
        CHECK(mg_graph_num_vertices(split) == 5 && mg_graph_num_edges(split) == 0);
        all(split, whole, "no edges (binary)");
    }
    mg_graph_free(&split);
    mg_graph_free(&whole);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
}

/* A damaged or forged file read over the ranks: refused on every rank with MG_PARSE_ERROR, the
 * rank that saw the damage naming it (words) and the others saying another rank failed, no
 * graph made. */
static void expect_refused_split(const char *path, const char *words) {
    mg_graph split = NULL;
    const mg_status st = mg_graph_read(ctx, &split, path, NULL);
    const char *msg = mg_context_error(ctx);
    int named = strstr(msg, words) != NULL && strstr(msg, path) != NULL, any_named = 0;
    CHECK(split == NULL);
    CHECK(named ? st == MG_PARSE_ERROR : st != MG_SUCCESS && strstr(msg, "other rank") != NULL);
    MPI_Allreduce(&named, &any_named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(any_named);
    if (!any_named && rank == 0) fprintf(stderr, "%s: no rank said \"%s\"; rank 0: %s\n", path, words, msg);
    mg_graph_free(&split);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
}

static void binary_shares_refused(void) {
    char path[256];
    shared_path(path, sizeof path, "bad.mgb");
    mg_graph g = rmat9(ref, true, MG_WEIGHT_FLOAT);
    if (g == NULL) return;
    float *ow = g->out.weights, *iw = g->in.weights;
    const uint32_t n = g->n;
    /* a weight that is no number, in the CSR (which some rank streams) */
    const float saved = ow[g->m / 2];
    ow[g->m / 2] = NAN;
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "has the weight");
    ow[g->m / 2] = saved;
    /* the CSC no longer the CSR transposed: one weight, then one id */
    iw[g->m / 3] += 1;
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "CSC does not match the CSR transposed");
    iw[g->m / 3] -= 1;
    const uint32_t id = g->in.indices[g->m - 1];
    g->in.indices[g->m - 1] = n + 3;
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "not below n");
    g->in.indices[g->m - 1] = id;
    /* offsets that end beside m */
    g->in.offsets[n] += 1;
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "not the edge count");
    g->in.offsets[n] -= 1;
    /* a byte changed after writing (the checksum's part is every rank's), then the file cut */
    if (rank == 0) {
        CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
        FILE *f = fopen(path, "r+b");
        CHECK(f != NULL);
        if (f != NULL) {
            fseek(f, 64 + 8 * ((long)n + 1) + 4 * (long)(g->m / 2), SEEK_SET);
            const int c = fgetc(f);
            fseek(f, -1, SEEK_CUR);
            fputc(c ^ 0x20, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "checksum mismatch");
    if (rank == 0) {
        CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
        CHECK(truncate(path, 64 + 8 * ((off_t)n + 1)) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "truncated");
    mg_graph_free(&g);
    /* an undirected flag over a CSR that is not symmetric */
    g = rmat9(ref, false, MG_WEIGHT_NONE);
    if (g == NULL) return;
    uint32_t v = 0;
    while (v < g->n && g->out.offsets[v + 1] - g->out.offsets[v] < 2) v++;
    if (v < g->n) { /* a row's last neighbour moved to a vertex above it, the row still sorted */
        uint32_t *last = &g->out.indices[g->out.offsets[v + 1] - 1];
        if (*last + 1 < g->n) *last += 1;
    }
    if (rank == 0) CHECK_OK(ref, mg_graph_write(ref, g, path, MG_FORMAT_BINARY));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_refused_split(path, "not symmetric");
    mg_graph_free(&g);
}

/* One rank alone failing to make a graph (out of memory at its k-th allocation): every rank fails,
 * none waits for ever, the others' messages say another rank failed. */
static void one_rank_fails(void) {
    if (size < 2) return;
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = 8;
    static const uint64_t ks[] = {1, 2, 3, 4, 6, 9, 14, 20, 30};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        mg_graph g = NULL;
        if (rank == 1) mg__inject_alloc_failure(ks[i]);
        const mg_status st = mg_generate(ctx, &g, &o);
        if (rank == 1) mg__inject_alloc_failure(0);
        /* all succeed (k past the call's allocations) or all fail */
        if (!succeeded_alike(st)) {
            CHECK(g == NULL);
            if (rank == 1) CHECK(st == MG_OUT_OF_MEMORY);
            else CHECK(strstr(mg_context_error(ctx), "other rank") != NULL);
        }
        mg_graph_free(&g);
    }
}

/* A failure on one rank inside an algorithm (its k-th allocation, in a vector operation or a step)
 * fails it on every rank, and none waits for another (mg_ranks_end); the next call runs. */
static void one_rank_fails_running(void) {
    if (size < 2) return;
    mg_graph g = rmat9(ctx, false, MG_WEIGHT_INT32);
    const uint32_t n = mg_graph_num_vertices(g), sources[2] = {0, n / 2};
    static const uint64_t ks[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144};
    for (int a = BFS; a <= BC; a++) {
        bool failed_somewhere = false;
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            mg_vector v = NULL;
            CHECK_OK(ctx, mg_vector_create(ctx, &v, g, a == BFS ? MG_INT32 : a == CC ? MG_VERTEX : a == SSSP ? MG_INT64 : MG_DOUBLE));
            if (rank == 1) mg__inject_alloc_failure(ks[i]);
            mg_status st = MG_SUCCESS;
            switch ((algo)a) {
            case BFS: st = mg_bfs(ctx, g, 3, v, NULL); break;
            case SSSP: st = mg_sssp(ctx, g, 3, 0, v); break;
            case CC: st = mg_cc(ctx, g, v); break;
            case PR: st = mg_pagerank(ctx, g, NULL, v); break;
            case BC: st = mg_bc(ctx, g, sources, 2, v); break;
            }
            if (rank == 1) mg__inject_alloc_failure(0);
            if (!succeeded_alike(st)) {
                failed_somewhere = true;
                if (rank != 1) CHECK(strstr(mg_context_error(ctx), "other rank") != NULL);
            }
            mg_vector_free(&v);
        }
        /* the injection reached the algorithms' own calls */
        CHECK(failed_somewhere);
    }
    mg_graph_free(&g);
}

/* A caller's own algorithm between mg_ranks_begin and mg_ranks_end: a vector made on rank 1 alone
 * fails, the others go on into a step, and every rank returns a failure. */
static mg_status own_algorithm(mg_graph g, mg_vector out) {
    mg_status st = mg_ranks_begin(ctx);
    mg_vector t = NULL;
    if (st == MG_SUCCESS) st = mg_vector_create(ctx, &t, g, MG_DOUBLE);
    if (st == MG_SUCCESS) st = mg_vector_assign(ctx, t, NULL, 1.0);
    mg_program p;
    mg_program_init(&p);
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_ASSIGN;
    if (st == MG_SUCCESS) st = mg_advance(ctx, g, &p, NULL, t, out, NULL, NULL);
    mg_vector_free(&t);
    return mg_ranks_end(ctx, st, "own_algorithm");
}

static void own_algorithm_fails(void) {
    CHECK(mg_ranks_begin(NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_ranks_end(NULL, MG_OUT_OF_MEMORY, "x") == MG_OUT_OF_MEMORY);
    CHECK(mg_ranks_end(ref, MG_SUCCESS, "x") == MG_SUCCESS); /* no ranks: status as it is */
    mg_graph g = rmat9(ctx, false, MG_WEIGHT_NONE);
    mg_vector out = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &out, g, MG_DOUBLE));
    CHECK_OK(ctx, own_algorithm(g, out));
    if (size > 1) {
        if (rank == 1) mg__inject_alloc_failure(1);
        const mg_status st = own_algorithm(g, out);
        if (rank == 1) mg__inject_alloc_failure(0);
        CHECK(st != MG_SUCCESS);
        if (rank == 1) CHECK(st == MG_OUT_OF_MEMORY);
        else CHECK(strstr(mg_context_error(ctx), "other rank") != NULL);
        CHECK_OK(ctx, own_algorithm(g, out)); /* the ranks are in step again */
    }
    mg_vector_free(&out);
    mg_graph_free(&g);
}

/* bad mg_ranks: refused, naming what is wrong, the context unchanged */
static void bad_ranks(void) {
    mg_context c = NULL;
    CHECK_OK(c, mg_context_create(&c));
    mg_ranks r;
    memset(&r, 0, sizeof r);
    r.rank = 0;
    r.size = 2;
    CHECK(mg_context_set_ranks(c, &r) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(c), "allgatherv") != NULL);
    r.allgatherv = mg__mpi_allgatherv;
    r.broadcast = mg__mpi_broadcast;
    r.allreduce_sum_u64 = mg__mpi_allreduce_sum_u64;
    r.rank = 2;
    CHECK(mg_context_set_ranks(c, &r) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(c), "out of range") != NULL);
    CHECK(mg_context_set_ranks(c, NULL) == MG_INVALID_ARGUMENT);
    int rk = -1, sz = -1;
    CHECK_OK(c, mg_context_get_ranks(c, &rk, &sz));
    CHECK(rk == 0 && sz == 1);
    mg_context_free(&c);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    mg_context_create(&ctx);
    mg_context_create(&ref);
    mg_context_set_threads(ctx, 1);
    mg_context_set_threads(ref, 1);
    CHECK_OK(ctx, mg_context_set_mpi(ctx, MPI_COMM_WORLD));
    int rk = -1, sz = -1;
    CHECK_OK(ctx, mg_context_get_ranks(ctx, &rk, &sz));
    CHECK(rk == rank && sz == size);
    CHECK(mg_context_set_mpi(ctx, MPI_COMM_WORLD) == MG_INVALID_ARGUMENT);
    if (gpu) {
        /* every rank a device of its own (NCCL refuses two ranks on one): the devices the ranks
         * took (mg_context_set_mpi), compared between the ranks of each host */
        mg_gpu_info info;
        int mine = -1;
        if (mg_gpu_query(ctx, &info) == MG_SUCCESS && info.available) mine = info.device;
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int local = 1;
        MPI_Comm_size(node, &local);
        int *devices = calloc((size_t)local, sizeof *devices);
        MPI_Allgather(&mine, 1, MPI_INT, devices, 1, MPI_INT, node);
        MPI_Comm_free(&node);
        int enough = mine >= 0;
        for (int i = 0; i < local; i++)
            for (int j = 0; j < i; j++) enough &= devices[i] != devices[j];
        free(devices);
        int all_enough = 0;
        MPI_Allreduce(&enough, &all_enough, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_enough) {
            if (rank == 0) printf("skipped: %d ranks need a GPU each\n", size);
            mg_context_free(&ctx);
            mg_context_free(&ref);
            MPI_Finalize();
            return 77;
        }
        CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
    }

    /* TEST_DIST_TRACE=1: each rank says which test it starts (a hang then names its test) */
    const bool trace = getenv("TEST_DIST_TRACE") != NULL;
#define STEP(call)                                                                                 \
    do {                                                                                           \
        if (trace) fprintf(stderr, "test_dist: rank %d/%d: %s\n", rank, size, #call);              \
        call;                                                                                      \
    } while (0)
    STEP(bad_ranks());
    STEP(one_rank_fails());
    STEP(from_coo(true));
    STEP(from_coo(false));
    STEP(generated(MG_GEN_RMAT, 9, false, MG_WEIGHT_INT32, "rmat9 undirected"));
    STEP(generated(MG_GEN_RMAT, 9, true, MG_WEIGHT_FLOAT, "rmat9 directed"));
    /* high vertices of several degree groups on every rank (Kronecker ids are permuted) */
    STEP(generated(MG_GEN_KRONECKER, 12, true, MG_WEIGHT_FLOAT, "kronecker12 directed"));
    STEP(generated(MG_GEN_GRID, 0, false, MG_WEIGHT_INT32, "grid 37x23"));
    STEP(from_files());
    STEP(binary_shares());
    STEP(binary_shares_refused());
    STEP(empty_parts());
    STEP(text_parts());
    STEP(one_rank_fails_reading());
    STEP(whole_only());
    STEP(engine_modes());
    STEP(one_rank_fails_running());
    STEP(own_algorithm_fails());
#undef STEP

    /* one line per rank, then rank 0's summary of all */
    int failures = check_failures_, passes = check_passes_, all_failures = 0, all_passes = 0;
    MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&passes, &all_passes, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int rc = failures ? 1 : 0, any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%d ranks%s: %d passed, %d failed\n", size, gpu ? " (GPU)" : "", all_passes, all_failures);
    mg_context_free(&ctx);
    mg_context_free(&ref);
    MPI_Finalize();
    return any;
}
