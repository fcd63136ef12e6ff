/*
 * test_core.c — graph construction (CSR/CSC, symmetrising, self-loops, parallel edges and their
 * weights), frontiers, vector operations, argument errors, and a failure-injection sweep over
 * graph construction (every allocation failing in turn must give MG_OUT_OF_MEMORY and no leak).
 */
#include "check.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>

static bool has_edge(const uint64_t *off, const uint32_t *idx, uint32_t u, uint32_t v) {
    for (uint64_t e = off[u]; e < off[u + 1]; e++)
        if (idx[e] == v) return true;
    return false;
}

static void test_build(mg_context ctx) {
    /* 0->1 twice (weights 7 and 3), 1->1 self-loop, 2->0, 3 isolated, 4->2 */
    uint32_t src[] = {0, 0, 1, 2, 4};
    uint32_t dst[] = {1, 1, 1, 0, 2};
    int32_t w[] = {7, 3, 5, -2, 9};
    mg_graph_options opts;
    mg_graph_options_init(&opts);
    CHECK(opts.directed && !opts.keep_self_loops && !opts.keep_duplicates);
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, w, MG_WEIGHT_INT32, &opts));
    CHECK(mg_graph_num_vertices(g) == 5);
    CHECK(mg_graph_num_edges(g) == 3); /* duplicate and self-loop dropped */
    const uint64_t *off, *ioff;
    const uint32_t *idx, *iidx;
    const void *wv, *iwv;
    CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, &wv));
    CHECK_OK(ctx, mg_graph_csc(g, &ioff, &iidx, &iwv));
    CHECK(off[1] - off[0] == 1 && idx[off[0]] == 1);
    CHECK(((const int32_t *)wv)[off[0]] == 3); /* the least weight of the parallel edges */
    CHECK(off[2] - off[1] == 0);               /* self-loop gone */
    CHECK(has_edge(ioff, iidx, 0, 2) && has_edge(ioff, iidx, 2, 4) && has_edge(ioff, iidx, 1, 0));
    CHECK(((const int32_t *)iwv)[ioff[0]] == -2);
    mg_graph_stats st;
    CHECK_OK(ctx, mg_graph_get_stats(ctx, g, &st));
    CHECK(st.isolated == 1 && st.zero_out_degree == 2 && st.max_in_degree == 1);
    CHECK(st.group_vertices[5] == 5 && st.group_edges[5] == 3);
    mg_graph_free(&g);
    CHECK(g == NULL);

    opts.keep_self_loops = true;
    opts.keep_duplicates = true;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, w, MG_WEIGHT_INT32, &opts));
    CHECK(mg_graph_num_edges(g) == 5);
    CHECK_OK(ctx, mg_graph_get_stats(ctx, g, &st));
    CHECK(st.self_loops == 1);
    mg_graph_free(&g);

    /* undirected: every edge both ways, CSC is the CSR */
    mg_graph_options_init(&opts);
    opts.directed = false;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, NULL, MG_WEIGHT_NONE, &opts));
    CHECK(mg_graph_num_edges(g) == 6);
    CHECK(!mg_graph_is_directed(g));
    CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, &wv));
    CHECK(wv == NULL);
    for (uint32_t u = 0; u < 5; u++)
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            CHECK(has_edge(off, idx, idx[e], u));
            if (e > off[u]) CHECK(idx[e - 1] < idx[e]); /* rows sorted, no duplicates */
        }
    mg_graph_free(&g);

    /* float weights */
    float fw[] = {1.5f, 0.25f, 2, 3, 4};
    mg_graph_options_init(&opts);
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, fw, MG_WEIGHT_FLOAT, &opts));
    CHECK(mg_graph_weight_type(g) == MG_WEIGHT_FLOAT);
    CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, &wv));
    CHECK(((const float *)wv)[off[0]] == 0.25f);
    mg_graph_free(&g);

    /* bad arguments */
    uint32_t bad_dst[] = {1, 1, 1, 0, 5};
    CHECK(mg_graph_create_from_coo(ctx, &g, 5, 5, src, bad_dst, NULL, MG_WEIGHT_NONE, NULL) ==
          MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "edge 4") != NULL);
    CHECK(g == NULL);
    CHECK(mg_graph_create_from_coo(ctx, &g, 5, 5, NULL, dst, NULL, MG_WEIGHT_NONE, NULL) ==
          MG_INVALID_ARGUMENT);
    CHECK(mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, NULL, MG_WEIGHT_INT32, NULL) ==
          MG_INVALID_ARGUMENT);
    float nan_w[] = {1, NAN, 1, 1, 1};
    CHECK(mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, nan_w, MG_WEIGHT_FLOAT, NULL) ==
          MG_INVALID_ARGUMENT);
    CHECK(mg_graph_create_from_coo(NULL, &g, 5, 5, src, dst, NULL, MG_WEIGHT_NONE, NULL) ==
          MG_INVALID_ARGUMENT);
    /* an empty graph is fine */
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 0, 0, NULL, NULL, NULL, MG_WEIGHT_NONE, NULL));
    CHECK(mg_graph_num_vertices(g) == 0);
    mg_graph_free(&g);
}

/* A larger random build must give the same CSR on 1 and 2 threads. */
static void test_build_deterministic(mg_context ctx) {
    enum { n = 5000, m = 60000 };
    static uint32_t src[m], dst[m];
    static int32_t w[m];
    uint64_t s = 12345;
    for (int e = 0; e < m; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        src[e] = (uint32_t)(s >> 33) % n;
        dst[e] = (uint32_t)(s >> 17) % n;
        w[e] = (int32_t)(s >> 50) % 100;
    }
    mg_graph g1 = NULL, g2 = NULL;
    omp_set_num_threads(1);
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g1, n, m, src, dst, w, MG_WEIGHT_INT32, NULL));
    omp_set_num_threads(2);
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g2, n, m, src, dst, w, MG_WEIGHT_INT32, NULL));
    const uint64_t *o1, *o2;
    const uint32_t *i1, *i2;
    const void *w1, *w2;
    mg_graph_csc(g1, &o1, &i1, &w1);
    mg_graph_csc(g2, &o2, &i2, &w2);
    CHECK(mg_graph_num_edges(g1) == mg_graph_num_edges(g2));
    CHECK(memcmp(o1, o2, (n + 1) * sizeof *o1) == 0);
    CHECK(memcmp(i1, i2, mg_graph_num_edges(g1) * sizeof *i1) == 0);
    CHECK(memcmp(w1, w2, mg_graph_num_edges(g1) * sizeof(int32_t)) == 0);
    mg_graph_free(&g1);
    mg_graph_free(&g2);
}

static void test_frontier_and_vectors(mg_context ctx) {
    uint32_t src[] = {0, 1, 2, 3};
    uint32_t dst[] = {1, 2, 3, 0};
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 200, 4, src, dst, NULL, MG_WEIGHT_NONE, NULL));
    mg_frontier a = NULL, b = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &a, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &b, g));
    uint32_t count;
    CHECK_OK(ctx, mg_frontier_add(ctx, a, 3));
    CHECK_OK(ctx, mg_frontier_add(ctx, a, 3));
    CHECK_OK(ctx, mg_frontier_add(ctx, a, 150));
    CHECK_OK(ctx, mg_frontier_count(ctx, a, &count));
    CHECK(count == 2);
    CHECK(mg_frontier_add(ctx, a, 200) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "200") != NULL);
    uint64_t edges;
    CHECK_OK(ctx, mg_frontier_out_edges(ctx, a, &edges));
    CHECK(edges == 1);
    CHECK_OK(ctx, mg_frontier_fill(ctx, b));
    CHECK_OK(ctx, mg_frontier_count(ctx, b, &count));
    CHECK(count == 200);
    CHECK_OK(ctx, mg_frontier_union(ctx, a, b));
    CHECK_OK(ctx, mg_frontier_count(ctx, a, &count));
    CHECK(count == 200);
    CHECK_OK(ctx, mg_frontier_clear(ctx, b));
    CHECK_OK(ctx, mg_frontier_add(ctx, b, 7));
    CHECK_OK(ctx, mg_frontier_copy(ctx, a, b));
    bool in;
    CHECK_OK(ctx, mg_frontier_contains(ctx, a, 7, &in));
    CHECK(in);
    CHECK_OK(ctx, mg_frontier_contains(ctx, a, 3, &in));
    CHECK(!in);

    mg_vector x = NULL, y = NULL, d = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &x, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &y, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &d, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_assign(ctx, x, NULL, 2.0));
    CHECK_OK(ctx, mg_vector_assign(ctx, x, b, 5.0));
    double r;
    CHECK_OK(ctx, mg_vector_reduce(ctx, x, NULL, MG_OP_ADD, &r));
    CHECK(r == 199 * 2.0 + 5.0);
    CHECK_OK(ctx, mg_vector_reduce(ctx, x, NULL, MG_OP_MAX, &r));
    CHECK(r == 5.0);
    CHECK_OK(ctx, mg_vector_affine(ctx, y, NULL, 3.0, x, 1.0));
    CHECK_OK(ctx, mg_vector_get(ctx, y, 7, &r));
    CHECK(r == 16.0);
    CHECK_OK(ctx, mg_vector_ewise(ctx, y, NULL, MG_OP_DIV, y, x));
    CHECK_OK(ctx, mg_vector_get(ctx, y, 0, &r));
    CHECK(r == 3.5);
    CHECK_OK(ctx, mg_vector_l1_distance(ctx, x, x, &r));
    CHECK(r == 0);
    CHECK_OK(ctx, mg_vector_degree(ctx, d, MG_EDGES_IN));
    CHECK_OK(ctx, mg_vector_reduce(ctx, d, NULL, MG_OP_ADD, &r));
    CHECK(r == 4);
    mg_frontier sel = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &sel, g));
    CHECK_OK(ctx, mg_frontier_select(ctx, sel, NULL, d, MG_EQ, 1));
    CHECK_OK(ctx, mg_frontier_count(ctx, sel, &count));
    CHECK(count == 4);
    CHECK_OK(ctx, mg_frontier_select(ctx, sel, sel, x, MG_GT, 1e9));
    CHECK_OK(ctx, mg_frontier_count(ctx, sel, &count));
    CHECK(count == 0);
    CHECK(mg_vector_ewise(ctx, y, NULL, MG_OP_ADD, x, d) == MG_INVALID_ARGUMENT);
    CHECK(mg_vector_set(ctx, x, 1000, 1) == MG_INVALID_ARGUMENT);
    CHECK(mg_vector_reduce(ctx, x, NULL, MG_OP_DIV, &r) == MG_INVALID_ARGUMENT);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_vector_free(&d);
    mg_frontier_free(&a);
    mg_frontier_free(&b);
    mg_frontier_free(&sel);
    mg_graph_free(&g);
}

/* Fail each allocation of a graph build in turn: always a clean MG_OUT_OF_MEMORY, never a crash
 * (the sanitizer build checks that nothing leaks). */
static void test_alloc_failures(mg_context ctx) {
    uint32_t src[] = {0, 0, 1, 2, 4, 3};
    uint32_t dst[] = {1, 1, 1, 0, 2, 4};
    int32_t w[] = {7, 3, 5, -2, 9, 1};
    int failures = 0;
    for (uint64_t k = 1; k < 200; k++) {
        mg_graph g = NULL;
        mg__inject_alloc_failure(k);
        mg_status st = mg_graph_create_from_coo(ctx, &g, 5, 6, src, dst, w, MG_WEIGHT_INT32, NULL);
        mg__inject_alloc_failure(0);
        if (st == MG_SUCCESS) {
            CHECK(g != NULL && mg_graph_num_edges(g) == 4);
            mg_graph_free(&g);
            break;
        }
        failures++;
        CHECK(st == MG_OUT_OF_MEMORY);
        CHECK(g == NULL);
        CHECK(strstr(mg_context_error(ctx), "out of memory") != NULL);
    }
    CHECK(failures >= 5);
}

/* mg_graph_permute: arc (u, v, w) of g is arc (p[u], p[v], w) of the result and nothing else is,
 * directed and undirected, with a self-loop and a parallel pair kept; bad permutations refused. */
static void test_permute(mg_context ctx) {
    const uint32_t src[] = {0, 0, 1, 2, 3, 3, 4, 4}, dst[] = {1, 2, 2, 0, 3, 4, 0, 0};
    const int32_t w[] = {5, 6, 7, 8, 9, 10, 11, 12};
    const uint32_t p[] = {3, 0, 4, 1, 2};
    for (int directed = 0; directed < 2; directed++) {
        mg_graph_options go;
        mg_graph_options_init(&go);
        go.directed = directed;
        go.keep_self_loops = go.keep_duplicates = true;
        mg_graph g = NULL, h = NULL;
        CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 8, src, dst, w, MG_WEIGHT_INT32, &go));
        CHECK_OK(ctx, mg_graph_permute(ctx, g, p, &h));
        if (g == NULL || h == NULL) continue;
        CHECK(mg_graph_num_vertices(h) == 5 && mg_graph_num_edges(h) == mg_graph_num_edges(g));
        CHECK(mg_graph_is_directed(h) == (bool)directed);
        const uint64_t *go_, *ho;
        const uint32_t *gi, *hi;
        const void *gw, *hw;
        mg_graph_csr(g, &go_, &gi, &gw);
        mg_graph_csr(h, &ho, &hi, &hw);
        for (uint32_t u = 0; u < 5; u++) {
            /* the same multiset of (neighbour, weight): every arc of u found once under p[u] */
            CHECK(go_[u + 1] - go_[u] == ho[p[u] + 1] - ho[p[u]]);
            bool used[16] = {false};
            for (uint64_t e = go_[u]; e < go_[u + 1]; e++) {
                bool found = false;
                for (uint64_t f = ho[p[u]]; f < ho[p[u] + 1] && !found; f++)
                    if (!used[f - ho[p[u]]] && hi[f] == p[gi[e]] &&
                        ((const int32_t *)hw)[f] == ((const int32_t *)gw)[e])
                        found = used[f - ho[p[u]]] = true;
                CHECK(found);
            }
        }
        mg_graph_free(&h);
        const uint32_t repeat[] = {3, 0, 4, 0, 2}, big[] = {3, 0, 5, 1, 2};
        CHECK(mg_graph_permute(ctx, g, repeat, &h) == MG_INVALID_ARGUMENT && h == NULL);
        CHECK(strstr(mg_context_error(ctx), "new_of_old[3] = 0 repeats") != NULL);
        CHECK(mg_graph_permute(ctx, g, big, &h) == MG_INVALID_ARGUMENT && h == NULL);
        CHECK(strstr(mg_context_error(ctx), "new_of_old[2] = 5 is out of range") != NULL);
        mg_graph_free(&g);
    }
}

int main(void) {
    mg_context ctx = NULL;
    CHECK(mg_context_create(&ctx) == MG_SUCCESS);
    CHECK(mg_context_backend(ctx) == MG_BACKEND_CPU);
    {
        /* the GPU backend: chosen only where a device is usable, else a clear MG_UNAVAILABLE;
         * auto takes the GPU exactly where it is usable, and is no error where it is not */
        mg_gpu_info gpu;
        CHECK_OK(ctx, mg_gpu_query(ctx, &gpu));
        CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_AUTO));
        CHECK(mg_context_backend(ctx) == (gpu.available ? MG_BACKEND_GPU : MG_BACKEND_CPU));
        CHECK(mg_context_error(ctx)[0] == '\0');
        CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
        if (gpu.available) {
            CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_GPU));
            CHECK(mg_context_backend(ctx) == MG_BACKEND_GPU);
            CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));
        } else {
            CHECK(mg_context_set_backend(ctx, MG_BACKEND_GPU) == MG_UNAVAILABLE);
            CHECK(strstr(mg_context_error(ctx), "GPU backend is unavailable") != NULL);
            CHECK(mg_context_backend(ctx) == MG_BACKEND_CPU);
        }
    }
    CHECK(mg_context_set_threads(ctx, -1) == MG_INVALID_ARGUMENT);
    CHECK(mg_context_set_mode(ctx, (mg_mode)99) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "unknown mode 99") != NULL);
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_DENSE));
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    CHECK(mg_context_set_engine(ctx, (mg_engine)7) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "unknown engine 7") != NULL);
    CHECK_OK(ctx, mg_context_set_engine(ctx, MG_ENGINE_BASELINE));
    CHECK_OK(ctx, mg_context_set_engine(ctx, MG_ENGINE_MULTIGRAPH));
    CHECK(mg_context_set_sample_fraction(ctx, 0) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "fraction 0 is not in (0, 1]") != NULL);
    CHECK(mg_context_set_sample_fraction(ctx, NAN) == MG_INVALID_ARGUMENT);
    CHECK(mg_context_set_sample_fraction(ctx, 1.0001) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_context_set_sample_fraction(ctx, 1));
    CHECK_OK(ctx, mg_context_set_sample_fraction(ctx, MG_DEFAULT_SAMPLE_FRACTION));
    CHECK(strcmp(mg_status_string(MG_PARSE_ERROR), "MG_PARSE_ERROR") == 0);
    test_build(ctx);
    test_build_deterministic(ctx);
    test_frontier_and_vectors(ctx);
    test_permute(ctx);
    test_alloc_failures(ctx);

    /* Without a usable GPU the query still succeeds and says why; preparing a device form fails
     * cleanly. (tests/gpu covers the machine with a GPU.) */
    mg_gpu_info gpu;
    CHECK_OK(ctx, mg_gpu_query(ctx, &gpu));
    if (!gpu.available) {
        CHECK(gpu.reason[0] != '\0');
        uint32_t src[] = {0}, dst[] = {1};
        mg_graph g = NULL;
        CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 2, 1, src, dst, NULL, MG_WEIGHT_NONE, NULL));
        mg_gpu_graph_info pre;
        CHECK(mg_graph_gpu_prepare(ctx, g, &pre) == MG_UNAVAILABLE);
        CHECK(mg_context_error(ctx)[0] != '\0');
        mg_graph_free(&g);
    }
    CHECK(mg_gpu_query(ctx, NULL) == MG_INVALID_ARGUMENT);
    mg_context_free(&ctx);
    CHECK(ctx == NULL);
    return check_report();
}
