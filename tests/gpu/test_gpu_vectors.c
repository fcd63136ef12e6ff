/*
 * test_gpu_vectors.c — device-resident vectors and frontiers (core/gpu_vector.cu,
 * core/gpu_frontier.cu): every vector and frontier operation on a GPU context against the same
 * operation on a CPU context, on random data of every type, with and without masks, on a graph with
 * skewed in-degrees (so the device numbering is not the identity); plus round trips between host
 * accessors and device-resident objects, and CPU-context operations on device-resident objects.
 * Exits 77 (skipped) where no GPU is usable.
 */
#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mg_context gpu, cpu;
static mg_graph G;
static uint32_t N;
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double uniform(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static const mg_type TYPES[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE, MG_VERTEX};
static const char *const TYPE_NAMES[] = {"int32", "int64", "float", "double", "vertex"};
static const char *tname(mg_type t) {
    for (int i = 0; i < 5; i++)
        if (TYPES[i] == t) return TYPE_NAMES[i];
    return "?";
}
static bool is_int(mg_type t) { return t == MG_INT32 || t == MG_INT64 || t == MG_VERTEX; }
static size_t tsize(mg_type t) { return t == MG_INT64 || t == MG_DOUBLE ? 8 : 4; }

/* The same vector on both contexts. */
typedef struct {
    mg_vector g, c;
} vpair;

/* Random values of type t (some zeros, small enough that integer products do not overflow). */
static vpair vmake(mg_type t) {
    vpair p = {NULL, NULL};
    CHECK_OK(gpu, mg_vector_create(gpu, &p.g, G, t));
    CHECK_OK(cpu, mg_vector_create(cpu, &p.c, G, t));
    void *buf = malloc((size_t)N * 8);
    for (uint32_t i = 0; i < N; i++) {
        double r = uniform();
        double v = r < 0.1 ? 0 : (uniform() * 40000.0 - 20000.0);
        switch (t) {
        case MG_INT32: case MG_VERTEX: ((int32_t *)buf)[i] = (int32_t)v; break;
        case MG_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
        case MG_FLOAT: ((float *)buf)[i] = (float)(v / 7.0); break;
        case MG_DOUBLE: ((double *)buf)[i] = v / 7.0; break;
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

/* Bitwise equal values (extract brings the GPU side back to the host). */
static bool vsame(vpair p, const char *what) {
    const mg_type t = mg_vector_type(p.c);
    const size_t es = tsize(t);
    char *a = malloc((size_t)N * es), *b = malloc((size_t)N * es);
    CHECK_OK(gpu, mg_vector_extract(gpu, p.g, a));
    CHECK_OK(cpu, mg_vector_extract(cpu, p.c, b));
    bool same = true;
    for (uint32_t i = 0; i < N && same; i++) {
        if (memcmp(a + i * es, b + i * es, es) != 0) {
            /* NaN payloads differ between the host and the device (0/0): any NaN matches any */
            if (t == MG_FLOAT && isnan(((float *)a)[i]) && isnan(((float *)b)[i])) continue;
            if (t == MG_DOUBLE && isnan(((double *)a)[i]) && isnan(((double *)b)[i])) continue;
            double x = 0, y = 0;
            mg_vector_get(cpu, p.c, i, &y);
            switch (t) {
            case MG_INT32: case MG_VERTEX: x = ((int32_t *)a)[i]; break;
            case MG_INT64: x = (double)((int64_t *)a)[i]; break;
            case MG_FLOAT: x = ((float *)a)[i]; break;
            case MG_DOUBLE: x = ((double *)a)[i]; break;
            }
            fprintf(stderr, "%s (%s): vertex %u gpu %.17g cpu %.17g\n", what, tname(t), i, x, y);
            same = false;
        }
    }
    free(a);
    free(b);
    CHECK(same);
    return same;
}

typedef struct {
    mg_frontier g, c;
} fpair;

/* A random set of about density * N vertices (on the host on both sides). */
static fpair fmake(double density) {
    fpair p = {NULL, NULL};
    CHECK_OK(gpu, mg_frontier_create(gpu, &p.g, G));
    CHECK_OK(cpu, mg_frontier_create(cpu, &p.c, G));
    for (uint32_t v = 0; v < N; v++)
        if (uniform() < density) {
            CHECK_OK(cpu, mg_frontier_add(cpu, p.g, v));
            CHECK_OK(cpu, mg_frontier_add(cpu, p.c, v));
        }
    return p;
}

static void ffree(fpair *p) {
    mg_frontier_free(&p->g);
    mg_frontier_free(&p->c);
}

/* Same set: count, a sample through mg_frontier_contains where the set is (the device for the GPU
 * side), then every vertex after a CPU-context copy (which brings the GPU side to the host). */
static bool fsame(fpair p, const char *what) {
    uint32_t cg = 0, cc = 0;
    CHECK_OK(gpu, mg_frontier_count(gpu, p.g, &cg));
    CHECK_OK(cpu, mg_frontier_count(cpu, p.c, &cc));
    bool same = cg == cc;
    if (!same) fprintf(stderr, "%s: count gpu %u cpu %u\n", what, cg, cc);
    for (int k = 0; k < 40 && same; k++) {
        uint32_t v = (uint32_t)(rnd() % N);
        bool a = false, b = false;
        CHECK_OK(gpu, mg_frontier_contains(gpu, p.g, v, &a));
        CHECK_OK(cpu, mg_frontier_contains(cpu, p.c, v, &b));
        if (a != b) {
            fprintf(stderr, "%s: contains(%u) gpu %d cpu %d\n", what, v, a, b);
            same = false;
        }
    }
    mg_frontier h = NULL;
    CHECK_OK(cpu, mg_frontier_create(cpu, &h, G));
    CHECK_OK(cpu, mg_frontier_copy(cpu, h, p.g));
    for (uint32_t v = 0; v < N && same; v++) {
        bool a = false, b = false;
        CHECK_OK(cpu, mg_frontier_contains(cpu, h, v, &a));
        CHECK_OK(cpu, mg_frontier_contains(cpu, p.c, v, &b));
        if (a != b) {
            fprintf(stderr, "%s: vertex %u gpu %d cpu %d\n", what, v, a, b);
            same = false;
        }
    }
    mg_frontier_free(&h);
    CHECK(same);
    return same;
}

static bool close_to(double x, double y, double rel) {
    return x == y || fabs(x - y) <= rel * fmax(fabs(x), fabs(y));
}

/* ---- vector operations ------------------------------------------------------------------------ */

static fpair masks[4];
static const char *const MASK_NAMES[] = {"no mask", "small mask", "large mask", "empty mask"};
static mg_frontier mask_g(int m) { return m == 0 ? NULL : masks[m].g; }
static mg_frontier mask_c(int m) { return m == 0 ? NULL : masks[m].c; }

static void test_vectors(void) {
    char what[160];
    for (int ti = 0; ti < 5; ti++) {
        const mg_type t = TYPES[ti];
        for (int m = 0; m < 4; m++) {
            const double values[3] = {3.7e9, -2.5, 12.75};
            for (int k = 0; k < 3; k++) {
                vpair p = vmake(t);
                CHECK_OK(gpu, mg_vector_assign(gpu, p.g, mask_g(m), values[k]));
                CHECK_OK(cpu, mg_vector_assign(cpu, p.c, mask_c(m), values[k]));
                snprintf(what, sizeof what, "assign %g, %s", values[k], MASK_NAMES[m]);
                vsame(p, what);
                vfree(&p);
            }
            if (is_int(t)) {
                vpair p = vmake(t);
                CHECK_OK(gpu, mg_vector_assign_ids(gpu, p.g, mask_g(m)));
                CHECK_OK(cpu, mg_vector_assign_ids(cpu, p.c, mask_c(m)));
                snprintf(what, sizeof what, "assign_ids, %s", MASK_NAMES[m]);
                vsame(p, what);
                vfree(&p);
            }
            for (mg_binary_op op = MG_OP_ADD; op <= MG_OP_MAX; op++) {
                vpair z = vmake(t), x = vmake(t), y = vmake(t);
                CHECK_OK(gpu, mg_vector_ewise(gpu, z.g, mask_g(m), op, x.g, y.g));
                CHECK_OK(cpu, mg_vector_ewise(cpu, z.c, mask_c(m), op, x.c, y.c));
                snprintf(what, sizeof what, "ewise op %d, %s", (int)op, MASK_NAMES[m]);
                vsame(z, what);
                /* in place (z is x) and chained on the device, then compared */
                CHECK_OK(gpu, mg_vector_ewise(gpu, x.g, mask_g(m), op, x.g, y.g));
                CHECK_OK(cpu, mg_vector_ewise(cpu, x.c, mask_c(m), op, x.c, y.c));
                CHECK_OK(gpu, mg_vector_ewise(gpu, x.g, NULL, MG_OP_MIN, x.g, z.g));
                CHECK_OK(cpu, mg_vector_ewise(cpu, x.c, NULL, MG_OP_MIN, x.c, z.c));
                snprintf(what, sizeof what, "ewise op %d in place + chain, %s", (int)op, MASK_NAMES[m]);
                vsame(x, what);
                vfree(&z);
                vfree(&x);
                vfree(&y);
            }
            {
                vpair v = vmake(t);
                const mg_binary_op ops[3] = {MG_OP_ADD, MG_OP_MIN, MG_OP_MAX};
                for (int k = 0; k < 3; k++) {
                    double a = 0, b = 0;
                    CHECK_OK(gpu, mg_vector_reduce(gpu, v.g, mask_g(m), ops[k], &a));
                    CHECK_OK(cpu, mg_vector_reduce(cpu, v.c, mask_c(m), ops[k], &b));
                    if (!close_to(a, b, 1e-12)) {
                        fprintf(stderr, "reduce op %d %s (%s): gpu %.17g cpu %.17g\n", (int)ops[k],
                                MASK_NAMES[m], tname(t), a, b);
                        CHECK(false);
                    }
                }
                vfree(&v);
            }
            const double ab[3][2] = {{1.5, -3.25}, {1e6, 0.5}, {-1e15, 7}};
            for (int xi = 0; xi < 5; xi++)
                for (int k = 0; k < 3; k++) {
                    vpair z = vmake(t), x = vmake(TYPES[xi]);
                    CHECK_OK(gpu, mg_vector_affine(gpu, z.g, mask_g(m), ab[k][0], x.g, ab[k][1]));
                    CHECK_OK(cpu, mg_vector_affine(cpu, z.c, mask_c(m), ab[k][0], x.c, ab[k][1]));
                    snprintf(what, sizeof what, "affine %g*%s+%g, %s", ab[k][0], tname(TYPES[xi]),
                             ab[k][1], MASK_NAMES[m]);
                    vsame(z, what);
                    vfree(&z);
                    vfree(&x);
                }
        }
        {
            vpair x = vmake(t), y = vmake(t);
            double a = 0, b = 0;
            CHECK_OK(gpu, mg_vector_l1_distance(gpu, x.g, y.g, &a));
            CHECK_OK(cpu, mg_vector_l1_distance(cpu, x.c, y.c, &b));
            CHECK(close_to(a, b, 1e-12));
            vfree(&x);
            vfree(&y);
        }
        for (int e = 0; e < 2; e++) {
            vpair v = vmake(t);
            const mg_edges which = e ? MG_EDGES_IN : MG_EDGES_OUT;
            CHECK_OK(gpu, mg_vector_degree(gpu, v.g, which));
            CHECK_OK(cpu, mg_vector_degree(cpu, v.c, which));
            vsame(v, e ? "degree in" : "degree out");
            vfree(&v);
        }
    }
}

/* Host accessors on device-resident vectors, and CPU-context operations on them. */
static void test_round_trips(void) {
    for (int ti = 0; ti < 5; ti++) {
        const mg_type t = TYPES[ti];
        vpair v = vmake(t), w = vmake(t);
        /* a GPU op leaves v on the device; set and get go element by element */
        CHECK_OK(gpu, mg_vector_affine(gpu, v.g, NULL, 2.0, v.g, 1.0));
        CHECK_OK(cpu, mg_vector_affine(cpu, v.c, NULL, 2.0, v.c, 1.0));
        bool same = true;
        for (int k = 0; k < 200; k++) {
            uint32_t i = (uint32_t)(rnd() % N);
            double val = k % 7 == 0 ? 5e12 : uniform() * 1000.0 - 500.0;
            CHECK_OK(gpu, mg_vector_set(gpu, v.g, i, val));
            CHECK_OK(cpu, mg_vector_set(cpu, v.c, i, val));
            uint32_t j = (uint32_t)(rnd() % N);
            double a = 0, b = 0, c = 0;
            CHECK_OK(gpu, mg_vector_get(gpu, v.g, j, &a));
            CHECK_OK(cpu, mg_vector_get(cpu, v.g, j, &c)); /* a host context reads it too */
            CHECK_OK(cpu, mg_vector_get(cpu, v.c, j, &b));
            if (a != b || c != b) same = false;
        }
        CHECK(same);
        /* more device work, then extract */
        CHECK_OK(gpu, mg_vector_ewise(gpu, w.g, NULL, MG_OP_MAX, w.g, v.g));
        CHECK_OK(cpu, mg_vector_ewise(cpu, w.c, NULL, MG_OP_MAX, w.c, v.c));
        vsame(v, "set/get round trip");
        /* w is on the device; a CPU context's op brings it back */
        CHECK_OK(cpu, mg_vector_affine(cpu, w.g, masks[2].g, -1.0, w.g, 3.0));
        CHECK_OK(cpu, mg_vector_affine(cpu, w.c, masks[2].c, -1.0, w.c, 3.0));
        vsame(w, "cpu op on a device vector");
        /* load replaces device values */
        CHECK_OK(gpu, mg_vector_assign(gpu, w.g, NULL, 1.0));
        void *buf = calloc(N, 8);
        CHECK_OK(cpu, mg_vector_extract(cpu, v.c, buf));
        CHECK_OK(gpu, mg_vector_load(gpu, w.g, buf));
        CHECK_OK(cpu, mg_vector_load(cpu, w.c, buf));
        CHECK_OK(gpu, mg_vector_affine(gpu, w.g, NULL, 1.0, w.g, 0.0));
        vsame(w, "load over a device vector");
        free(buf);
        vfree(&v);
        vfree(&w);
    }
}

/* ---- frontier operations ---------------------------------------------------------------------- */

static void test_frontiers(void) {
    char what[160];
    /* clear, add (on the device after a GPU clear), contains, fill */
    {
        fpair f = fmake(0.0);
        CHECK_OK(gpu, mg_frontier_clear(gpu, f.g));
        CHECK_OK(cpu, mg_frontier_clear(cpu, f.c));
        for (int k = 0; k < 100; k++) {
            uint32_t v = (uint32_t)(rnd() % N);
            if (k % 10 == 9) v = (uint32_t)(rnd() % 5); /* duplicates */
            CHECK_OK(gpu, mg_frontier_add(gpu, f.g, v));
            CHECK_OK(cpu, mg_frontier_add(cpu, f.c, v));
        }
        fsame(f, "clear + add");
        CHECK_OK(gpu, mg_frontier_fill(gpu, f.g));
        CHECK_OK(cpu, mg_frontier_fill(cpu, f.c));
        fsame(f, "fill");
        CHECK_OK(gpu, mg_frontier_clear(gpu, f.g));
        CHECK_OK(cpu, mg_frontier_clear(cpu, f.c));
        fsame(f, "clear");
        ffree(&f);
    }
    const double densities[4] = {0.0, 0.003, 0.1, 0.7};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            /* union: b's set in list form (small: the list path) or bitmap form (after a select) */
            fpair d = fmake(densities[a]), s = fmake(densities[b]);
            CHECK_OK(gpu, mg_frontier_union(gpu, d.g, s.g));
            CHECK_OK(cpu, mg_frontier_union(cpu, d.c, s.c));
            snprintf(what, sizeof what, "union %g |= %g", densities[a], densities[b]);
            fsame(d, what);
            vpair v = vmake(MG_DOUBLE);
            CHECK_OK(gpu, mg_frontier_select(gpu, s.g, NULL, v.g, MG_LT, 0.0));
            CHECK_OK(cpu, mg_frontier_select(cpu, s.c, NULL, v.c, MG_LT, 0.0));
            fpair d2 = fmake(densities[a]);
            CHECK_OK(gpu, mg_frontier_union(gpu, d2.g, s.g)); /* s only as a bitmap on the device */
            CHECK_OK(cpu, mg_frontier_union(cpu, d2.c, s.c));
            fsame(d2, "union with a selected (bitmap) set");
            CHECK_OK(gpu, mg_frontier_union(gpu, d2.g, d.g)); /* d2 list invalid now */
            CHECK_OK(cpu, mg_frontier_union(cpu, d2.c, d.c));
            fsame(d2, "union twice");
            vfree(&v);
            ffree(&d);
            ffree(&d2);
            ffree(&s);
        }
    for (int a = 0; a < 4; a++) {
        fpair f = fmake(densities[a]), c = fmake(0.01);
        uint64_t eg = 0, ec = 0;
        CHECK_OK(gpu, mg_frontier_out_edges(gpu, f.g, &eg));
        CHECK_OK(cpu, mg_frontier_out_edges(cpu, f.c, &ec));
        CHECK(eg == ec);
        CHECK_OK(gpu, mg_frontier_copy(gpu, c.g, f.g));
        CHECK_OK(cpu, mg_frontier_copy(cpu, c.c, f.c));
        snprintf(what, sizeof what, "copy of %g", densities[a]);
        fsame(c, what);
        CHECK_OK(gpu, mg_frontier_add(gpu, c.g, 7)); /* the copy is device-resident and sized */
        CHECK_OK(cpu, mg_frontier_add(cpu, c.c, 7));
        fsame(c, "add to a copy");
        ffree(&f);
        ffree(&c);
    }
    /* select: every type and comparison, without in, with in, and in place */
    for (int ti = 0; ti < 5; ti++)
        for (mg_compare cmp = MG_LT; cmp <= MG_NE; cmp++) {
            vpair v = vmake(TYPES[ti]);
            const double thr = cmp >= MG_EQ ? 0.0 : 100.5;
            fpair out = fmake(0.0), in = fmake(0.3);
            CHECK_OK(gpu, mg_frontier_select(gpu, out.g, NULL, v.g, cmp, thr));
            CHECK_OK(cpu, mg_frontier_select(cpu, out.c, NULL, v.c, cmp, thr));
            snprintf(what, sizeof what, "select all %s cmp %d", tname(TYPES[ti]), (int)cmp);
            fsame(out, what);
            CHECK_OK(gpu, mg_frontier_select(gpu, out.g, in.g, v.g, cmp, thr));
            CHECK_OK(cpu, mg_frontier_select(cpu, out.c, in.c, v.c, cmp, thr));
            snprintf(what, sizeof what, "select in %s cmp %d", tname(TYPES[ti]), (int)cmp);
            fsame(out, what);
            CHECK_OK(gpu, mg_frontier_select(gpu, in.g, in.g, v.g, cmp, thr));
            CHECK_OK(cpu, mg_frontier_select(cpu, in.c, in.c, v.c, cmp, thr));
            snprintf(what, sizeof what, "select in place %s cmp %d", tname(TYPES[ti]), (int)cmp);
            fsame(in, what);
            vfree(&v);
            ffree(&out);
            ffree(&in);
        }
    /* an advance leaves y and out on the device; vector and frontier ops continue there */
    {
        vpair y = vmake(MG_INT32);
        fpair in = fmake(0.01), out = fmake(0.0), visited = fmake(0.0);
        mg_program p;
        mg_program_init(&p);
        p.contribution = MG_CONTRIB_SRC_ID;
        p.combine = MG_COMBINE_MIN;
        p.apply = MG_APPLY_ASSIGN;
        CHECK_OK(gpu, mg_vector_assign(gpu, y.g, NULL, -1));
        CHECK_OK(cpu, mg_vector_assign(cpu, y.c, NULL, -1));
        for (int level = 0; level < 3; level++) {
            p.mask_complement = true;
            CHECK_OK(gpu, mg_frontier_union(gpu, visited.g, in.g));
            CHECK_OK(cpu, mg_frontier_union(cpu, visited.c, in.c));
            CHECK_OK(gpu, mg_advance(gpu, G, &p, in.g, NULL, y.g, visited.g, out.g));
            CHECK_OK(cpu, mg_advance(cpu, G, &p, in.c, NULL, y.c, visited.c, out.c));
            fsame(out, "advance output");
            CHECK_OK(gpu, mg_frontier_copy(gpu, in.g, out.g));
            CHECK_OK(cpu, mg_frontier_copy(cpu, in.c, out.c));
        }
        /* y: parents are the least in-frontier source id, the same on both */
        vsame(y, "advance y (least source id)");
        vfree(&y);
        ffree(&in);
        ffree(&out);
        ffree(&visited);
    }
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
    /* R-MAT: skewed in-degrees, so the degree groups renumber the vertices */
    const bool small = getenv("MG_GPU_TEST_SMALL") != NULL;
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = small ? 10 : 13;
    go.edge_factor = small ? 32 : 16;
    go.graph.directed = true;
    CHECK_OK(cpu, mg_generate(cpu, &G, &go));
    N = mg_graph_num_vertices(G);
    mg_gpu_graph_info gi;
    CHECK_OK(gpu, mg_graph_gpu_prepare(gpu, G, &gi));
    uint32_t renumbered = 0;
    for (int k = 0; k < 5; k++) renumbered += gi.group_vertices[k];
    printf("device vectors: n=%u, %u vertices in degree groups 1-5 (renumbered first)\n", N,
           renumbered);
    CHECK(renumbered > 0 && renumbered < N);
    masks[1] = fmake(0.003);
    masks[2] = fmake(0.3);
    masks[3] = fmake(0.0);
    test_vectors();
    test_round_trips();
    test_frontiers();
    for (int m = 1; m < 4; m++) ffree(&masks[m]);
    mg_graph_free(&G);
    mg_context_free(&gpu);
    mg_context_free(&cpu);
    return check_report();
}
