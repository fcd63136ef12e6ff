/*
 * test_gpu_algos.c — the five algorithms, unchanged, on the GPU backend: every result checked by its
 * serial verifier (mg_check_*) and, where the answer is unique, compared with the CPU engine's.
 * Graphs: every generator family, directed and undirected, unweighted / int / float weights, and the
 * bundled real sample(s), in the default mode (and in MG_MODE_HYBRID at three sample fractions,
 * checking that it samples and runs what its estimates rank first); then forced push, pull, the dense-frontier engine (MG_MODE_DENSE) and the
 * Gunrock-style baseline engine (MG_ENGINE_BASELINE). Prints
 * one line per algorithm and graph: validated, GPU and CPU seconds.
 * Exits 77 (skipped) where no GPU is usable.
 */
#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mg_context gpu, cpu;

static bool same_vectors(mg_vector a, mg_vector b, double rel) {
    uint32_t n = mg_vector_size(a);
    for (uint32_t v = 0; v < n; v++) {
        double x, y;
        mg_vector_get(gpu, a, v, &x);
        mg_vector_get(cpu, b, v, &y);
        if (!(x == y || fabs(x - y) <= rel * fmax(fabs(x), fabs(y)))) {
            fprintf(stderr, "  vertex %u: gpu %.17g cpu %.17g\n", v, x, y);
            return false;
        }
    }
    return true;
}

/* First vertex with an out-edge (the CLI's default source). */
static uint32_t first_source(mg_graph g) {
    const uint64_t *off;
    mg_graph_csr(g, &off, NULL, NULL);
    for (uint32_t v = 0; v < mg_graph_num_vertices(g); v++)
        if (off[v + 1] > off[v]) return v;
    return 0;
}

typedef enum { BFS, SSSP, CC, PR, PR_DD, PR_F32, BC1, BC3 } algo;
static const char *const NAMES[] = {"bfs", "sssp", "cc", "pr", "pr-dd", "pr-f32", "bc", "bc-3src"};

static void run(mg_graph g, const char *graph, algo a) {
    const uint32_t s = first_source(g), n = mg_graph_num_vertices(g);
    const uint32_t three[3] = {s, n / 2, n - 1};
    mg_type type = a == BFS ? MG_INT32 : a == CC ? MG_VERTEX : MG_DOUBLE;
    if (a == SSSP) type = mg_graph_weight_type(g) == MG_WEIGHT_FLOAT ? MG_DOUBLE : MG_INT64;
    mg_vector r[2] = {NULL, NULL}, parent = NULL;
    mg_pagerank_options po[2];
    double secs[2] = {0, 0};
    mg_status st[2] = {MG_SUCCESS, MG_SUCCESS};
    for (int k = 0; k < 2; k++) {
        mg_context ctx = k == 0 ? gpu : cpu;
        CHECK_OK(ctx, mg_vector_create(ctx, &r[k], g, type));
        mg_pagerank_options_init(&po[k]);
        po[k].data_driven = a == PR_DD;
        po[k].single_precision = a == PR_F32;
        double t0 = omp_get_wtime();
        switch (a) {
        case BFS:
            if (k == 0) CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
            st[k] = mg_bfs(ctx, g, s, r[k], k == 0 ? parent : NULL);
            break;
        case SSSP: st[k] = mg_sssp(ctx, g, s, 0, r[k]); break;
        case CC: st[k] = mg_cc(ctx, g, r[k]); break;
        case PR: case PR_DD: case PR_F32: st[k] = mg_pagerank(ctx, g, &po[k], r[k]); break;
        case BC1: st[k] = mg_bc(ctx, g, &s, 1, r[k]); break;
        case BC3: st[k] = mg_bc(ctx, g, three, 3, r[k]); break;
        }
        secs[k] = omp_get_wtime() - t0;
        CHECK_OK(ctx, st[k]);
    }
    mg_status v = MG_INTERNAL_ERROR;
    switch (a) {
    case BFS: v = mg_check_bfs(gpu, g, s, r[0], parent); break;
    case SSSP: v = mg_check_sssp(gpu, g, s, r[0]); break;
    case CC: v = mg_check_cc(gpu, g, r[0]); break;
    case PR: case PR_DD: case PR_F32: v = mg_check_pagerank(gpu, g, &po[0], r[0]); break;
    case BC1: v = mg_check_bc(gpu, g, &s, 1, r[0]); break;
    case BC3: v = mg_check_bc(gpu, g, three, 3, r[0]); break;
    }
    CHECK_OK(gpu, v);
    /* Unique answers must match the CPU engine's exactly (BC and SSSP on doubles up to rounding). */
    if (a == BFS || a == CC || a == SSSP || a == BC1 || a == BC3)
        CHECK(same_vectors(r[0], r[1], (a == BC1 || a == BC3 || type == MG_DOUBLE) ? 1e-9 : 0));
    printf("%-8s %-26s validated %-3s gpu %9.4f s  cpu %9.4f s\n", NAMES[a], graph,
           v == MG_SUCCESS ? "yes" : "NO", secs[0], secs[1]);
    mg_vector_free(&r[0]);
    mg_vector_free(&r[1]);
    mg_vector_free(&parent);
}

static void all(mg_graph g, const char *graph) {
    for (int a = BFS; a <= BC3; a++) run(g, graph, (algo)a);
}

static void generated(mg_generator kind, const char *name, int scale, bool directed,
                      mg_weight_type w) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = kind;
    go.scale = scale;
    go.weights = w;
    go.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(cpu, mg_generate(cpu, &g, &go));
    char label[64];
    snprintf(label, sizeof label, "%s%d %s %s", name, scale, directed ? "dir" : "undir",
             w == MG_WEIGHT_NONE ? "" : w == MG_WEIGHT_INT32 ? "int" : "float");
    all(g, label);
    mg_graph_free(&g);
}

/* A real sample bundled in datasets/samples (MG_SAMPLES, set by ctest): missing is a failure. */
static void from_file(const char *file) {
    const char *dir = getenv("MG_SAMPLES");
    CHECK(dir != NULL);
    if (dir == NULL) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    mg_graph g = NULL;
    CHECK_OK(cpu, mg_graph_read(cpu, &g, path, NULL));
    if (g == NULL) return;
    all(g, file);
    mg_graph_free(&g);
}

/* The hybrid's steps (mg_context_set_trace's hook): how many were sampled, and how many of those
 * ran the mode with the least estimate, every estimate positive. */
typedef struct {
    int steps, sampled, least_ran, positive;
} hybrid_tally;

static void tally_step(const mg_advance_info *info, void *user) {
    hybrid_tally *t = user;
    t->steps++;
    if (!info->sampled) return;
    t->sampled++;
    const double est[3] = {info->est_sparse_ms, info->est_pull_ms, info->est_dense_ms};
    int least = 0;
    for (int i = 1; i < 3; i++)
        if (est[i] >= 0 && est[i] < est[least]) least = i;
    const int ran = info->dense ? 2 : info->pulled ? 1 : 0;
    t->least_ran += ran == least;
    t->positive += est[0] > 0 && est[1] > 0 && est[2] > 0;
}

int main(void) {
    if (mg_context_create(&gpu) != MG_SUCCESS || mg_context_create(&cpu) != MG_SUCCESS) return 1;
    mg_gpu_info info;
    CHECK_OK(gpu, mg_gpu_query(gpu, &info));
    if (!info.available) {
        printf("skipped: %s\n", info.reason);
        mg_context_free(&gpu);
        mg_context_free(&cpu);
        return 77;
    }
    CHECK_OK(gpu, mg_context_set_backend(gpu, MG_BACKEND_GPU));
    const bool small = getenv("MG_GPU_TEST_SMALL") != NULL;
    const int s = small ? 8 : 12;
    generated(MG_GEN_KRONECKER, "kron", s, false, MG_WEIGHT_INT32);
    generated(MG_GEN_RMAT, "rmat", s, true, MG_WEIGHT_FLOAT);
    if (!small) {
        generated(MG_GEN_UNIFORM, "uniform", s, false, MG_WEIGHT_NONE);
        generated(MG_GEN_GEOMETRIC, "geometric", s, false, MG_WEIGHT_FLOAT);
        generated(MG_GEN_GRID, "grid", s, false, MG_WEIGHT_INT32);
        generated(MG_GEN_KRONECKER, "kron", 16, true, MG_WEIGHT_INT32);
        from_file("roadNet-CA-sample.txt");
        from_file("web-Google-sample.txt");
    }
    /* the hybrid at three sample fractions: every algorithm validates, mid-size frontiers are
     * sampled, and each sampled step runs the mode its estimates rank first */
    if (!small) {
        const double fractions[] = {1.0, MG_DEFAULT_SAMPLE_FRACTION, 0.01};
        for (int f = 0; f < 3; f++) {
            hybrid_tally t = {0, 0, 0, 0};
            char name[64];
            snprintf(name, sizeof name, "rmat-hybrid-sample-%g", fractions[f]);
            CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_HYBRID));
            CHECK_OK(gpu, mg_context_set_sample_fraction(gpu, fractions[f]));
            CHECK_OK(gpu, mg_context_set_trace(gpu, tally_step, &t));
            generated(MG_GEN_RMAT, name, 14, false, MG_WEIGHT_INT32);
            CHECK_OK(gpu, mg_context_set_trace(gpu, NULL, NULL));
            printf("%s: %d steps, %d sampled, %d ran the least estimate, %d all positive\n", name,
                   t.steps, t.sampled, t.least_ran, t.positive);
            CHECK(t.sampled > 0);
            CHECK(t.least_ran == t.sampled);
            CHECK(t.positive == t.sampled);
        }
        CHECK_OK(gpu, mg_context_set_sample_fraction(gpu, MG_DEFAULT_SAMPLE_FRACTION));
        CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_AUTO));
        CHECK(mg_context_set_sample_fraction(gpu, 0) == MG_INVALID_ARGUMENT);
        CHECK(mg_context_set_sample_fraction(gpu, 1.5) == MG_INVALID_ARGUMENT);
    }
    /* forced push and pull on the GPU as well */
    for (int m = 0; m < 2 && !small; m++) {
        CHECK_OK(gpu, mg_context_set_mode(gpu, m == 0 ? MG_MODE_SPARSE : MG_MODE_PULL));
        generated(MG_GEN_KRONECKER, m == 0 ? "kron-push" : "kron-pull", 10, true, MG_WEIGHT_INT32);
    }
    /* every algorithm forced through the dense-frontier engine (MultiGraphD) */
    CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_DENSE));
    generated(MG_GEN_KRONECKER, "kron-dense", s, false, MG_WEIGHT_INT32);
    if (!small) {
        generated(MG_GEN_RMAT, "rmat-dense", s, true, MG_WEIGHT_FLOAT);
        generated(MG_GEN_UNIFORM, "uniform-dense", s, true, MG_WEIGHT_NONE);
        generated(MG_GEN_GRID, "grid-dense", s, false, MG_WEIGHT_INT32);
        generated(MG_GEN_KRONECKER, "kron-dense", 16, true, MG_WEIGHT_INT32);
        from_file("roadNet-CA-sample.txt");
        from_file("web-Google-sample.txt");
    }
    /* every algorithm on the Gunrock-style baseline engine, with its own direction choice */
    CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_AUTO));
    CHECK_OK(gpu, mg_context_set_engine(gpu, MG_ENGINE_BASELINE));
    generated(MG_GEN_KRONECKER, "kron-baseline", s, false, MG_WEIGHT_INT32);
    if (!small) {
        generated(MG_GEN_RMAT, "rmat-baseline", s, true, MG_WEIGHT_FLOAT);
        generated(MG_GEN_GRID, "grid-baseline", s, false, MG_WEIGHT_INT32);
        generated(MG_GEN_UNIFORM, "uniform-baseline", s, true, MG_WEIGHT_NONE);
        from_file("roadNet-CA-sample.txt");
        from_file("web-Google-sample.txt");
        CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_SPARSE)); /* BFS without direction optimisation */
        generated(MG_GEN_KRONECKER, "kron-baseline-push", 10, true, MG_WEIGHT_INT32);
    }
    mg_context_free(&gpu);
    mg_context_free(&cpu);
    return check_report();
}
