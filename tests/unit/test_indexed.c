/*
 * test_indexed.c — mg_vector_gather and mg_vector_scatter on the CPU engine: every value type and
 * both index widths against a plain serial loop, with and without a mask, on 1 and 2 threads,
 * targets named many times over (the scatter's combine); and their bad input: vectors of another
 * graph, an index out of range (named with its position and value, nothing written), wrong types,
 * a combine other than min or max, an output that is also an input. Also mg_vector_affine's plain
 * copy (a = 1, b = 0), which FastSV runs every iteration, masked and not, between int32 types.
 */
#include "check.h"
#include "mgraph.h"

#include <stdlib.h>
#include <string.h>

static mg_context ctx;
static mg_graph G, OTHER;
static uint32_t N;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static size_t tsize(mg_type t) { return t == MG_INT64 || t == MG_DOUBLE ? 8 : 4; }

/* Element i of a host array of type t, as double. */
static double at(mg_type t, const void *a, uint32_t i) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: return ((const int32_t *)a)[i];
    case MG_INT64: return (double)((const int64_t *)a)[i];
    case MG_FLOAT: return ((const float *)a)[i];
    case MG_DOUBLE: return ((const double *)a)[i];
    }
    return 0;
}

static void put(mg_type t, void *a, uint32_t i, double v) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: ((int32_t *)a)[i] = (int32_t)v; break;
    case MG_INT64: ((int64_t *)a)[i] = (int64_t)v; break;
    case MG_FLOAT: ((float *)a)[i] = (float)v; break;
    case MG_DOUBLE: ((double *)a)[i] = v; break;
    }
}

/* A vector of type t with random values below `range` (negative ones too for signed data),
 * its host copy in *host (malloc'd). */
static mg_vector make(mg_type t, uint32_t range, bool negative, void **host) {
    mg_vector v = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &v, G, t));
    *host = malloc((size_t)N * 8);
    for (uint32_t i = 0; i < N; i++) {
        double x = rnd() % range;
        if (negative && rnd() % 3 == 0) x = -x - 0.5 * (t == MG_FLOAT || t == MG_DOUBLE);
        put(t, *host, i, x);
    }
    CHECK_OK(ctx, mg_vector_load(ctx, v, *host));
    return v;
}

/* A mask of about a third of the vertices and its membership. */
static mg_frontier make_mask(bool *in) {
    mg_frontier f = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &f, G));
    for (uint32_t i = 0; i < N; i++) {
        in[i] = rnd() % 3 == 0;
        if (in[i]) CHECK_OK(ctx, mg_frontier_add(ctx, f, i));
    }
    return f;
}

static bool equal(mg_vector v, mg_type t, const void *want) {
    char *got = malloc((size_t)N * 8);
    CHECK_OK(ctx, mg_vector_extract(ctx, v, got));
    bool same = memcmp(got, want, (size_t)N * tsize(t)) == 0;
    free(got);
    return same;
}

static void test_gather(void) {
    const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE, MG_VERTEX};
    const mg_type index_types[] = {MG_VERTEX, MG_INT32, MG_INT64};
    bool *in = malloc(N);
    mg_frontier mask = make_mask(in);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 3; b++)
            for (int masked = 0; masked < 2; masked++) {
                const mg_type t = types[a], it = index_types[b];
                void *xh, *yh, *zh;
                mg_vector x = make(t, 1000000, true, &xh), y = make(it, N, false, &yh);
                mg_vector z = make(t, 1000, true, &zh);
                for (uint32_t i = 0; i < N; i++)
                    if (!masked || in[i]) put(t, zh, i, at(t, xh, (uint32_t)at(it, yh, i)));
                CHECK_OK(ctx, mg_vector_gather(ctx, z, masked ? mask : NULL, x, y));
                if (!equal(z, t, zh))
                    fprintf(stderr, "gather: value type %d, index type %d, masked %d differs\n",
                            (int)t, (int)it, masked);
                CHECK(equal(z, t, zh));
                free(zh);
                free(xh);
                free(yh);
                mg_vector_free(&x);
                mg_vector_free(&y);
                mg_vector_free(&z);
            }
    mg_frontier_free(&mask);
    free(in);
}

/* x may be y: gp = f[f], pointer jumping. */
static void test_gather_self(void) {
    void *fh, *zh;
    mg_vector f = make(MG_VERTEX, N, false, &fh), z = make(MG_VERTEX, 5, false, &zh);
    for (uint32_t i = 0; i < N; i++) put(MG_VERTEX, zh, i, at(MG_VERTEX, fh, (uint32_t)at(MG_VERTEX, fh, i)));
    CHECK_OK(ctx, mg_vector_gather(ctx, z, NULL, f, f));
    CHECK(equal(z, MG_VERTEX, zh));
    free(fh);
    free(zh);
    mg_vector_free(&f);
    mg_vector_free(&z);
}

static void test_scatter(void) {
    const mg_type types[] = {MG_INT32, MG_INT64, MG_VERTEX};
    const mg_type index_types[] = {MG_VERTEX, MG_INT64};
    bool *in = malloc(N);
    mg_frontier mask = make_mask(in);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int op = 0; op < 2; op++)
                for (int masked = 0; masked < 2; masked++) {
                    const mg_type t = types[a], it = index_types[b];
                    const mg_binary_op bop = op ? MG_OP_MAX : MG_OP_MIN;
                    void *xh, *yh, *zh;
                    /* targets among the first 50 ids: each named many times */
                    mg_vector x = make(t, 1000000, true, &xh), y = make(it, 50, false, &yh);
                    mg_vector z = make(t, 1000000, true, &zh);
                    for (uint32_t i = 0; i < N; i++) {
                        if (masked && !in[i]) continue;
                        const uint32_t k = (uint32_t)at(it, yh, i);
                        const double v = at(t, xh, i), old = at(t, zh, k);
                        put(t, zh, k, op ? (v > old ? v : old) : (v < old ? v : old));
                    }
                    CHECK_OK(ctx, mg_vector_scatter(ctx, z, masked ? mask : NULL, bop, x, y));
                    if (!equal(z, t, zh))
                        fprintf(stderr, "scatter: type %d, index type %d, op %d, masked %d differs\n",
                                (int)t, (int)it, op, masked);
                    CHECK(equal(z, t, zh));
                    free(xh);
                    free(yh);
                    free(zh);
                    mg_vector_free(&x);
                    mg_vector_free(&y);
                    mg_vector_free(&z);
                }
    mg_frontier_free(&mask);
    free(in);
}

static void test_affine_copy(void) {
    const mg_type pairs[][2] = {{MG_VERTEX, MG_VERTEX}, {MG_INT32, MG_VERTEX}, {MG_VERTEX, MG_INT32},
                                {MG_INT64, MG_VERTEX}, {MG_FLOAT, MG_INT32}};
    bool *in = malloc(N);
    mg_frontier mask = make_mask(in);
    for (int p = 0; p < 5; p++)
        for (int masked = 0; masked < 2; masked++) {
            const mg_type zt = pairs[p][0], xt = pairs[p][1];
            void *xh, *zh;
            mg_vector x = make(xt, 1u << 30, true, &xh), z = make(zt, 1000, true, &zh);
            for (uint32_t i = 0; i < N; i++)
                if (!masked || in[i]) put(zt, zh, i, at(xt, xh, i));
            CHECK_OK(ctx, mg_vector_affine(ctx, z, masked ? mask : NULL, 1, x, 0));
            CHECK(equal(z, zt, zh));
            CHECK_OK(ctx, mg_vector_affine(ctx, z, masked ? mask : NULL, 1, z, 0)); /* onto itself */
            CHECK(equal(z, zt, zh));
            free(xh);
            free(zh);
            mg_vector_free(&x);
            mg_vector_free(&z);
        }
    mg_frontier_free(&mask);
    free(in);
}

static void test_errors(void) {
    mg_vector z = NULL, x = NULL, y = NULL, f = NULL, foreign = NULL, i64 = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &z, G, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &x, G, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &y, G, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &f, G, MG_FLOAT));
    CHECK_OK(ctx, mg_vector_create(ctx, &i64, G, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &foreign, OTHER, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, x, NULL));
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, y, NULL));
    CHECK_OK(ctx, mg_vector_assign(ctx, z, NULL, 7));

    /* an index out of range: named by position and value, and nothing written */
    CHECK_OK(ctx, mg_vector_set(ctx, y, 5, -1));
    CHECK_OK(ctx, mg_vector_set(ctx, y, 9, N));
    CHECK(mg_vector_gather(ctx, z, NULL, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: y[5] = -1 is not a vertex id") != NULL);
    CHECK(mg_vector_scatter(ctx, z, NULL, MG_OP_MIN, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_scatter: y[5] = -1 is not a vertex id") != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, y, 5, 5));
    char want[80];
    snprintf(want, sizeof want, "y[9] = %u is not a vertex id", N);
    CHECK(mg_vector_gather(ctx, z, NULL, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), want) != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, i64, 3, 1e12));
    CHECK(mg_vector_scatter(ctx, z, NULL, MG_OP_MAX, x, i64) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "y[3] = 1000000000000 is not a vertex id") != NULL);
    double v = 0;
    for (uint32_t i = 0; i < N; i += 97) {
        CHECK_OK(ctx, mg_vector_get(ctx, z, i, &v));
        CHECK(v == 7);
    }
    /* a masked-out bad index is not read */
    mg_frontier mask = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &mask, G));
    CHECK_OK(ctx, mg_frontier_add(ctx, mask, 4));
    CHECK_OK(ctx, mg_vector_gather(ctx, z, mask, x, y));
    CHECK_OK(ctx, mg_vector_get(ctx, z, 4, &v));
    CHECK(v == 4);
    CHECK_OK(ctx, mg_vector_set(ctx, y, 9, 9));

    /* vectors of another graph (another size) */
    CHECK(mg_vector_gather(ctx, z, NULL, foreign, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: the vectors belong to different graphs") != NULL);
    CHECK(mg_vector_gather(ctx, z, NULL, x, foreign) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: y belongs to another graph") != NULL);
    CHECK(mg_vector_scatter(ctx, foreign, NULL, MG_OP_MIN, x, y) == MG_INVALID_ARGUMENT);
    /* wrong types */
    CHECK(mg_vector_gather(ctx, z, NULL, x, f) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: y must be MG_VERTEX, MG_INT32 or MG_INT64") != NULL);
    CHECK(mg_vector_gather(ctx, f, NULL, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "different types") != NULL);
    CHECK(mg_vector_gather(ctx, i64, NULL, x, y) == MG_INVALID_ARGUMENT);
    mg_vector f2 = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &f2, G, MG_FLOAT));
    CHECK(mg_vector_scatter(ctx, f, NULL, MG_OP_MIN, f2, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_scatter: z and x must be MG_VERTEX, MG_INT32 or MG_INT64") != NULL);
    CHECK_OK(ctx, mg_vector_gather(ctx, f, NULL, f2, y)); /* a float gather is fine */
    mg_vector_free(&f2);
    /* combines other than min and max */
    CHECK(mg_vector_scatter(ctx, z, NULL, MG_OP_ADD, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_scatter: op must be MG_OP_MIN or MG_OP_MAX") != NULL);
    CHECK(mg_vector_scatter(ctx, z, NULL, (mg_binary_op)42, x, y) == MG_INVALID_ARGUMENT);
    /* the output is an input */
    CHECK(mg_vector_gather(ctx, z, NULL, z, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: z must be another vector than x") != NULL);
    CHECK(mg_vector_scatter(ctx, y, NULL, MG_OP_MIN, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_scatter: z must be another vector than y") != NULL);
    /* NULLs and freed handles */
    CHECK(mg_vector_gather(ctx, NULL, NULL, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: z") != NULL);
    CHECK(mg_vector_scatter(ctx, z, NULL, MG_OP_MIN, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_scatter: y") != NULL);
    mg_frontier other_mask = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &other_mask, OTHER));
    CHECK(mg_vector_gather(ctx, z, other_mask, x, y) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_vector_gather: mask") != NULL);

    mg_frontier_free(&other_mask);
    mg_frontier_free(&mask);
    mg_vector_free(&z);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_vector_free(&f);
    mg_vector_free(&i64);
    mg_vector_free(&foreign);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = 12;
    go.edge_factor = 4;
    CHECK_OK(ctx, mg_generate(ctx, &G, &go));
    go.scale = 5;
    CHECK_OK(ctx, mg_generate(ctx, &OTHER, &go));
    N = mg_graph_num_vertices(G);
    for (int threads = 1; threads <= 2; threads++) {
        CHECK_OK(ctx, mg_context_set_threads(ctx, threads));
        test_gather();
        test_gather_self();
        test_scatter();
        test_affine_copy();
        test_errors();
    }
    mg_graph_free(&G);
    mg_graph_free(&OTHER);
    mg_context_free(&ctx);
    return check_report();
}
