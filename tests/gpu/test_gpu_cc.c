/*
 * test_gpu_cc.c — FastSV's vector primitives and mg_cc on the GPU backend. mg_vector_gather and
 * mg_vector_scatter on a GPU context against the same call on a CPU context (every value type for
 * the gather, the integer types and min / max for the scatter, 32- and 64-bit indices, with and
 * without a mask, targets named many times over), on an R-MAT graph whose in-degree groups renumber
 * the device positions; a bad index named as the host names it, with nothing written. Then mg_cc
 * on grids (one of 4000 x 2), R-MAT, shuffled paths directed and not, and a graph of many
 * components and isolated vertices, in every GPU mode and on the baseline engine: checked by
 * mg_check_cc, equal to the CPU's labels, and in a number of steps that grows with log(diameter).
 * Exits 77 (skipped) where no GPU is usable.
 */
#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mg_context gpu, cpu;
static mg_graph G;
static uint32_t N;
static uint64_t rng = 0x2545F4914F6CDD1Dull;
static unsigned steps; /* mg_advance calls on the GPU context (its trace hook) */

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void count_step(const mg_advance_info *info, void *user) {
    (void)info;
    (void)user;
    steps++;
}

static size_t tsize(mg_type t) { return t == MG_INT64 || t == MG_DOUBLE ? 8 : 4; }

/* The same random values (below range; some negative) on both contexts. */
typedef struct {
    mg_vector g, c;
} vpair;

static vpair vmake(mg_type t, uint32_t range, bool negative) {
    vpair p = {NULL, NULL};
    CHECK_OK(gpu, mg_vector_create(gpu, &p.g, G, t));
    CHECK_OK(cpu, mg_vector_create(cpu, &p.c, G, t));
    char *buf = malloc((size_t)N * 8);
    for (uint32_t i = 0; i < N; i++) {
        double v = rnd() % range;
        if (negative && rnd() % 3 == 0) v = -v;
        switch (t) {
        case MG_INT32: case MG_VERTEX: ((int32_t *)buf)[i] = (int32_t)v; break;
        case MG_INT64: ((int64_t *)buf)[i] = (int64_t)v * (negative ? 4096 : 1); break; /* data beyond int32 */
        case MG_FLOAT: ((float *)buf)[i] = (float)(v / 3); break;
        case MG_DOUBLE: ((double *)buf)[i] = v / 3; break;
        }
    }
    CHECK_OK(gpu, mg_vector_load(gpu, p.g, buf));
    CHECK_OK(cpu, mg_vector_load(cpu, p.c, buf));
    free(buf);
    return p;
}

static void vfree(vpair *p) {
    mg_vector_free(&p->g);
    mg_vector_free(&p->c);
}

static bool vsame(vpair p, const char *what) {
    const size_t es = tsize(mg_vector_type(p.c));
    char *a = malloc((size_t)N * es), *b = malloc((size_t)N * es);
    CHECK_OK(gpu, mg_vector_extract(gpu, p.g, a));
    CHECK_OK(cpu, mg_vector_extract(cpu, p.c, b));
    bool same = memcmp(a, b, (size_t)N * es) == 0;
    if (!same) fprintf(stderr, "  %s: GPU and CPU differ\n", what);
    free(a);
    free(b);
    return same;
}

/* The same mask (about a third of the vertices) on both contexts. */
typedef struct {
    mg_frontier g, c;
} fpair;

static fpair fmake(void) {
    fpair f = {NULL, NULL};
    CHECK_OK(gpu, mg_frontier_create(gpu, &f.g, G));
    CHECK_OK(cpu, mg_frontier_create(cpu, &f.c, G));
    for (uint32_t i = 0; i < N; i++)
        if (rnd() % 3 == 0) {
            CHECK_OK(gpu, mg_frontier_add(gpu, f.g, i));
            CHECK_OK(cpu, mg_frontier_add(cpu, f.c, i));
        }
    return f;
}

static void test_gather_scatter(void) {
    const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE, MG_VERTEX};
    const mg_type index_types[] = {MG_VERTEX, MG_INT32, MG_INT64};
    fpair mask = fmake();
    char what[96];
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 3; b++)
            for (int masked = 0; masked < 2; masked++) {
                const mg_type t = types[a], it = index_types[b];
                vpair x = vmake(t, 1000000, true), y = vmake(it, N, false), z = vmake(t, 1000, true);
                CHECK_OK(gpu, mg_vector_gather(gpu, z.g, masked ? mask.g : NULL, x.g, y.g));
                CHECK_OK(cpu, mg_vector_gather(cpu, z.c, masked ? mask.c : NULL, x.c, y.c));
                snprintf(what, sizeof what, "gather type %d index %d masked %d", (int)t, (int)it, masked);
                CHECK(vsame(z, what));
                if (t != MG_FLOAT && t != MG_DOUBLE)
                    for (int op = 0; op < 2; op++) {
                        const mg_binary_op bop = op ? MG_OP_MAX : MG_OP_MIN;
                        vpair few = vmake(it, 37, false); /* each target named many times */
                        CHECK_OK(gpu, mg_vector_scatter(gpu, z.g, masked ? mask.g : NULL, bop, x.g, few.g));
                        CHECK_OK(cpu, mg_vector_scatter(cpu, z.c, masked ? mask.c : NULL, bop, x.c, few.c));
                        snprintf(what, sizeof what, "scatter type %d index %d op %d masked %d",
                                 (int)t, (int)it, op, masked);
                        CHECK(vsame(z, what));
                        vfree(&few);
                    }
                vfree(&x);
                vfree(&y);
                vfree(&z);
            }
    /* pointer jumping: x is y */
    vpair f = vmake(MG_VERTEX, N, false), gp = vmake(MG_VERTEX, 5, false);
    CHECK_OK(gpu, mg_vector_gather(gpu, gp.g, NULL, f.g, f.g));
    CHECK_OK(cpu, mg_vector_gather(cpu, gp.c, NULL, f.c, f.c));
    CHECK(vsame(gp, "gather f[f]"));

    /* a bad index: the least position named as the host names it, nothing written */
    vpair x = vmake(MG_VERTEX, N, false), z = vmake(MG_VERTEX, 9, false);
    const uint32_t bad[2] = {N / 2, N / 3};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(gpu, mg_vector_set(gpu, f.g, bad[k], k ? -1 : (double)N));
        CHECK_OK(cpu, mg_vector_set(cpu, f.c, bad[k], k ? -1 : (double)N));
    }
    CHECK(mg_vector_gather(gpu, z.g, NULL, x.g, f.g) == MG_INVALID_ARGUMENT);
    CHECK(mg_vector_gather(cpu, z.c, NULL, x.c, f.c) == MG_INVALID_ARGUMENT);
    CHECK(strcmp(mg_context_error(gpu), mg_context_error(cpu)) == 0);
    printf("bad index: %s\n", mg_context_error(gpu));
    CHECK(mg_vector_scatter(gpu, z.g, NULL, MG_OP_MIN, x.g, f.g) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(gpu), "mg_vector_scatter: y[") != NULL);
    CHECK(vsame(z, "z after a failed call"));
    vfree(&x);
    vfree(&z);
    vfree(&f);
    vfree(&gp);
    mg_frontier_free(&mask.g);
    mg_frontier_free(&mask.c);
}

/* mg_cc on g in every GPU mode and on the baseline engine: checked, equal to the CPU's labels,
 * in at most max_steps edge-program steps. */
static void check_cc(mg_graph g, const char *what, unsigned max_steps) {
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_DENSE, MG_MODE_HYBRID};
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector want = NULL, got = NULL;
    CHECK_OK(cpu, mg_vector_create(cpu, &want, g, MG_VERTEX));
    CHECK_OK(cpu, mg_cc(cpu, g, want));
    CHECK_OK(cpu, mg_check_cc(cpu, g, want));
    int32_t *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
    CHECK_OK(cpu, mg_vector_extract(cpu, want, a));
    CHECK_OK(gpu, mg_vector_create(gpu, &got, g, MG_VERTEX));
    for (int m = 0; m < 6; m++) {
        CHECK_OK(gpu, mg_context_set_engine(gpu, m == 5 ? MG_ENGINE_BASELINE : MG_ENGINE_MULTIGRAPH));
        CHECK_OK(gpu, mg_context_set_mode(gpu, m == 5 ? MG_MODE_AUTO : modes[m]));
        steps = 0;
        CHECK_OK(gpu, mg_cc(gpu, g, got));
        CHECK_OK(gpu, mg_check_cc(gpu, g, got));
        CHECK_OK(gpu, mg_vector_extract(gpu, got, b));
        const bool same = memcmp(a, b, (size_t)n * 4) == 0;
        printf("cc %s (n=%u), %s: %u steps (at most %u), %s\n", what, n,
               m == 5 ? "baseline" : (const char *[]){"auto", "sparse", "pull", "dense", "hybrid"}[m],
               steps, max_steps, same ? "equal to the CPU's" : "DIFFERENT from the CPU's");
        CHECK(same);
        CHECK(steps <= max_steps);
    }
    CHECK_OK(gpu, mg_context_set_engine(gpu, MG_ENGINE_MULTIGRAPH));
    CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_AUTO));
    free(a);
    free(b);
    mg_vector_free(&want);
    mg_vector_free(&got);
}

/* As tests/unit/test_cc.c: FastSV's iterations grow with log2(diameter), one or two steps each. */
static unsigned log_bound(double diameter, bool directed) {
    return (unsigned)((2 * log2(diameter + 2) + 4) * (directed ? 2 : 1));
}

static void test_cc(bool small) {
    const uint32_t grids[][2] = {{4000, 2}, {small ? 256u : 1024u, small ? 256u : 1024u}};
    for (int k = 0; k < 2; k++) {
        mg_gen_options go;
        mg_gen_options_init(&go);
        go.kind = MG_GEN_GRID;
        go.width = grids[k][0];
        go.height = grids[k][1];
        mg_graph g = NULL;
        CHECK_OK(cpu, mg_generate(cpu, &g, &go));
        check_cc(g, "grid", log_bound(grids[k][0] + grids[k][1], false));
        mg_graph_free(&g);
    }
    for (int directed = 0; directed < 2; directed++) {
        mg_gen_options go;
        mg_gen_options_init(&go);
        go.kind = MG_GEN_RMAT;
        go.scale = small ? 12 : 16;
        go.graph.directed = directed;
        mg_graph g = NULL;
        CHECK_OK(cpu, mg_generate(cpu, &g, &go));
        check_cc(g, "R-MAT", log_bound(mg_graph_num_vertices(g), directed));
        mg_graph_free(&g);
        /* sparse uniform: many components and isolated vertices */
        go.kind = MG_GEN_UNIFORM;
        go.edge_factor = 0.6;
        CHECK_OK(cpu, mg_generate(cpu, &g, &go));
        check_cc(g, "many components", log_bound(mg_graph_num_vertices(g), directed));
        mg_graph_free(&g);
    }
    /* a path with shuffled ids, its edges in random directions when directed */
    const uint32_t n = small ? 20000 : 200000;
    uint32_t *order = malloc((size_t)n * 4), *src = malloc((size_t)n * 4), *dst = malloc((size_t)n * 4);
    CHECK_OK(cpu, mg_random_permutation(cpu, n, 11, order));
    for (int directed = 0; directed < 2; directed++) {
        for (uint32_t i = 0; i + 1 < n; i++) {
            const bool flip = directed && (order[i] ^ order[i + 1]) % 2;
            src[i] = flip ? order[i + 1] : order[i];
            dst[i] = flip ? order[i] : order[i + 1];
        }
        mg_graph_options o;
        mg_graph_options_init(&o);
        o.directed = directed;
        mg_graph g = NULL;
        CHECK_OK(cpu, mg_graph_create_from_coo(cpu, &g, n, n - 1, src, dst, NULL, MG_WEIGHT_NONE, &o));
        check_cc(g, "shuffled path", log_bound(n, directed));
        mg_graph_free(&g);
    }
    free(order);
    free(src);
    free(dst);
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
    CHECK_OK(gpu, mg_context_set_trace(gpu, count_step, NULL));
    const bool small = getenv("MG_GPU_TEST_SMALL") != NULL;
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = small ? 10 : 13;
    go.graph.directed = true;
    CHECK_OK(cpu, mg_generate(cpu, &G, &go));
    N = mg_graph_num_vertices(G);
    test_gather_scatter();
    mg_graph_free(&G);
    test_cc(small);
    mg_context_free(&gpu);
    mg_context_free(&cpu);
    return check_report();
}
