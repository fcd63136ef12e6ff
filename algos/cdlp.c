/*
 * cdlp.c — community detection by label propagation, as LDBC Graphalytics specifies it (CDLP; after
 * Raghavan, Albert and Kumara, Phys. Rev. E 2007, made deterministic): labels start as the vertex
 * ids; each of a fixed number of synchronous rounds gives every vertex the most frequent label of
 * its neighbours, ties to the smallest, counting in- and out-neighbours on a directed graph (an arc
 * both ways twice). A vertex without neighbours keeps its own id.
 *
 * One round is one mg_advance of a user-defined program: contribution the source's label, a mode
 * combine, apply "take it" (every vertex, so the isolated ones write their own id back), along
 * MG_EDGES_BOTH, from the old labels into the new. On the CPU the program runs through host
 * functions rather than the JIT, so the library's algorithm never needs a C compiler at run time;
 * on a GPU context NVRTC compiles the same operations, given as snippets too (frontier/udf_gpu.cu).
 */
#include "algo_util.h"

static void contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                         double weight, uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)src_degree, (void)user;
    *(int32_t *)value = *(const int32_t *)src_value;
}

static bool apply(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)user;
    *(int32_t *)dst_value = found ? *(const int32_t *)combined : (int32_t)dst;
    return false;
}

mg_status mg_cdlp(mg_context ctx, const mg_graph g, int iterations, mg_vector labels) {
    mg_status status = MG_SUCCESS;
    mg_udf udf = NULL;
    mg_vector other = NULL;
    int32_t *ids = NULL;

    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_cdlp: g"));
    TRY(mg__algo_check_vector(ctx, g, labels, MG_VERTEX, "mg_cdlp: labels"));
    if (iterations < 0)
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cdlp: iterations is %d (must be 0 or more)", iterations);
    const uint32_t n = mg_graph_num_vertices(g);
    ids = mg__algo_malloc(n, sizeof *ids);
    if (ids == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_cdlp: out of memory for %u labels", n);
    for (uint32_t v = 0; v < n; v++) ids[v] = (int32_t)v;
    TRY(mg_vector_load(ctx, labels, ids));
    TRY(mg_vector_create(ctx, &other, g, MG_VERTEX));

    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_VERTEX;
    def.combine_kind = MG_UDF_MODE;
    def.runner = MG_UDF_HOST;
    def.apply_all = true;
    def.contribution_fn = contribution;
    def.apply_fn = apply;
    def.contribution = "src_value";
    def.apply = "dst_value = found ? combined : (int32_t)dst;";
    TRY(mg_program_define(ctx, &def, &udf));
    mg_program round;
    mg_program_init(&round);
    round.udf = udf;
    round.edges = MG_EDGES_BOTH;

    mg_vector old = labels, new_ = other;
    for (int i = 0; i < iterations; i++) {
        TRY(mg_advance(ctx, g, &round, NULL, old, new_, NULL, NULL));
        mg_vector t = old;
        old = new_;
        new_ = t;
    }
    if (old != labels) {
        TRY(mg_vector_extract(ctx, old, ids));
        TRY(mg_vector_load(ctx, labels, ids));
    }
cleanup:
    mg_udf_free(&udf);
    mg_vector_free(&other);
    mg__algo_free(ids);
    return mg_ranks_end(ctx, status, "mg_cdlp");
}
