/*
 * test_binary_validation.c — a .mgb file whose checksum matches is not thereby a graph: anyone can
 * write one (here the library's own writer, fed tampered arrays, computes it). Each kind of damage
 * the checksum cannot see is written this way and must be refused with MG_PARSE_ERROR, a message
 * naming the file and what is wrong: NaN and infinite weights, offsets that decrease or do not end
 * at m, an id out of range, a row out of order (CSR or CSC), a CSC that is not the CSR transposed
 * (ids, weights, row lengths), an undirected flag over an asymmetric CSR, bad header fields. Graphs the builder
 * makes — parallel edges with different weights, self-loops, isolated vertices, no edges at all,
 * generated ones — must still load unchanged. On 1, 2, 3 and 7 threads (the exact check that
 * names the vertex of a transpose mismatch splits the destinations between threads).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "check.h"
#include "temp_dir.h"
#include "mg_internal.h" /* the graph's arrays, to tamper with before writing */
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mg_context ctx;


static mg_graph from_edges(uint32_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                           const void *w, mg_weight_type wt, bool directed, bool keep_all) {
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    o.keep_self_loops = keep_all;
    o.keep_duplicates = keep_all;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, w, wt, &o));
    return g;
}

/* Writes g (tampered or not) as name: the writer computes the checksum of what it is given. */
static void write_as(mg_graph g, const char *name) {
    CHECK_OK(ctx, mg_graph_write(ctx, g, tmp(name), MG_FORMAT_BINARY));
}

/* g written as name must be refused with a message naming the file and holding words. */
static void expect_refused(mg_graph g, const char *name, const char *words) {
    write_as(g, name);
    mg_graph back = NULL;
    const mg_status st = mg_graph_read(ctx, &back, tmp(name), NULL);
    const char *msg = mg_context_error(ctx);
    const bool ok = st == MG_PARSE_ERROR && back == NULL && strstr(msg, name) != NULL &&
                    strstr(msg, words) != NULL;
    if (!ok)
        fprintf(stderr, "%s: expected MG_PARSE_ERROR with \"%s\", got %s: \"%s\"\n", name, words,
                mg_status_string(st), msg);
    CHECK(ok);
    mg_graph_free(&back);
    unlink(tmp(name));
}

static bool same_csr(const mg__csr *a, const mg__csr *b, uint32_t n, uint64_t m, bool weighted) {
    return memcmp(a->offsets, b->offsets, ((size_t)n + 1) * sizeof *a->offsets) == 0 &&
           memcmp(a->indices, b->indices, (size_t)m * sizeof *a->indices) == 0 &&
           (!weighted || memcmp(a->weights, b->weights, (size_t)m * 4) == 0);
}

/* g written and read back must load, the same in every array. */
static void expect_loads(mg_graph g, const char *name) {
    write_as(g, name);
    mg_graph back = NULL;
    CHECK_OK(ctx, mg_graph_read(ctx, &back, tmp(name), NULL));
    if (back != NULL) {
        const bool weighted = g->weight_type != MG_WEIGHT_NONE;
        const bool ok = back->n == g->n && back->m == g->m && back->directed == g->directed &&
                        back->weight_type == g->weight_type &&
                        same_csr(&back->out, &g->out, g->n, g->m, weighted) &&
                        same_csr(&back->in, &g->in, g->n, g->m, weighted);
        if (!ok) fprintf(stderr, "%s: read back differs from what was written\n", name);
        CHECK(ok);
    }
    mg_graph_free(&back);
    unlink(tmp(name));
}

/* ---- a directed graph with float weights ------------------------------------------------------
 * out (CSR): 0: 1 2 | 1: 2 5 | 2: 3 | 3: 0 | 4: 5 | 5: -        edges 0..6
 * in  (CSC): 0: 3 | 1: 0 | 2: 0 1 | 3: 2 | 4: - | 5: 1 4        edges 0..6 */
static void directed_float(void) {
    const uint32_t src[] = {0, 0, 1, 2, 3, 4, 1}, dst[] = {1, 2, 2, 3, 0, 5, 5};
    const float w[] = {1.5f, 2.5f, 0.5f, 1, 2, 3, 4};
    mg_graph g = from_edges(6, 7, src, dst, w, MG_WEIGHT_FLOAT, true, false);
    if (g == NULL) return;
    float *ow = g->out.weights, *iw = g->in.weights;
    uint64_t *oo = g->out.offsets, *io = g->in.offsets;
    uint32_t *oi = g->out.indices, *ii = g->in.indices;
    expect_loads(g, "directed.mgb");

    const float bad[3] = {NAN, INFINITY, -INFINITY};
    const char *const names[3] = {"nan.mgb", "inf.mgb", "minus_inf.mgb"};
    for (int k = 0; k < 3; k++) {
        ow[2] = bad[k]; /* the edge 1 -> 2 */
        expect_refused(g, names[k], "1 -> 2 has the weight");
        ow[2] = 0.5f;
    }
    iw[3] = NAN; /* in the CSC only: it no longer matches the CSR */
    expect_refused(g, "csc_nan.mgb", "CSC does not match the CSR transposed (vertex 2)");
    iw[3] = 0.5f;

    oo[2] = 6; /* row 1 now ends after row 2 does */
    expect_refused(g, "decreasing.mgb", "invalid CSR: offsets decrease after vertex 2");
    oo[2] = 4;
    oo[6] = 6;
    expect_refused(g, "last_offset.mgb", "the last offset is 6, not the edge count 7");
    oo[6] = 7;
    io[3] = 1;
    expect_refused(g, "csc_decreasing.mgb", "invalid CSC: offsets decrease after vertex 2");
    io[3] = 4;

    oi[3] = 6; /* 1 -> 6 in a graph of 6 vertices */
    expect_refused(g, "id_range.mgb", "edge 3 (of vertex 1) has destination 6, not below n = 6");
    oi[3] = 0xffffffffu;
    expect_refused(g, "id_max.mgb", "has destination 4294967295");
    oi[3] = 5;
    ii[1] = 9; /* the CSC's ids are checked too */
    expect_refused(g, "csc_id_range.mgb", "invalid CSC: edge 1 (of vertex 1) has source 9");
    ii[1] = 0;

    oi[0] = 2; /* row 0 as 2 1: out of order (and so no longer the CSC's transpose either) */
    oi[1] = 1;
    expect_refused(g, "unsorted.mgb", "edges of vertex 0 are not sorted");
    oi[0] = 1;
    oi[1] = 2;

    ii[2] = 1; /* the CSC's row 2 as 1 0: the right edges, out of order */
    ii[3] = 0;
    expect_refused(g, "csc_unsorted.mgb", "invalid CSC: the edges of vertex 2 are not sorted");
    ii[2] = 0;
    ii[3] = 4; /* the CSC's row 2 as 0 4 instead of 0 1 */
    expect_refused(g, "csc_id.mgb", "CSC does not match the CSR transposed (vertex 2)");
    ii[3] = 1;
    io[2] = 1; /* row 1 of the CSC empty, row 2 one longer: lengths, not ids, differ */
    expect_refused(g, "csc_lengths.mgb", "CSC does not match the CSR transposed (vertex 1)");
    io[2] = 2;
    ii[0] = 4; /* 4 -> 0 in the CSC has no 4 -> 0 in the CSR */
    expect_refused(g, "csc_extra.mgb", "CSC does not match the CSR transposed (vertex 0)");
    ii[0] = 3;

    /* the undirected flag over this asymmetric CSR: the writer then stores the CSR alone */
    g->directed = false;
    g->in = g->out;
    expect_refused(g, "flag_undirected.mgb",
                   "flagged undirected, but its CSR is not symmetric (the in-edges of vertex 0");
    g->directed = true;
    g->in = (mg__csr){io, ii, iw};

    const mg_weight_type wt = g->weight_type;
    g->weight_type = (mg_weight_type)7;
    expect_refused(g, "weight_type.mgb", "corrupt header");
    g->weight_type = wt;
    g->index_base = 3;
    expect_refused(g, "index_base.mgb", "corrupt header");
    g->index_base = 0;
    expect_loads(g, "restored.mgb"); /* every change above was undone */
    mg_graph_free(&g);
}

/* ---- an undirected path 0 - 1 - 2 - 3 with int weights -----------------------------------------
 * CSR: 0: 1 | 1: 0 2 | 2: 1 3 | 3: 2 */
static void undirected_int(void) {
    const uint32_t src[] = {0, 1, 2}, dst[] = {1, 2, 3};
    const int32_t w[] = {-4, 7, 9};
    mg_graph g = from_edges(4, 3, src, dst, w, MG_WEIGHT_INT32, false, false);
    if (g == NULL) return;
    uint32_t *oi = g->out.indices;
    int32_t *ow = g->out.weights;
    expect_loads(g, "path.mgb");
    oi[0] = 2; /* 0 -> 2 without 2 -> 0, and 1 -> 0 without 0 -> 1 */
    expect_refused(g, "asymmetric.mgb", "not symmetric (the in-edges of vertex 0 differ");
    oi[0] = 1;
    ow[0] = 5; /* 0 -> 1 weighs 5, 1 -> 0 weighs -4 */
    expect_refused(g, "asymmetric_weight.mgb", "not symmetric (the in-edges of vertex 0 differ");
    ow[0] = -4;
    expect_loads(g, "path_restored.mgb");
    mg_graph_free(&g);
}

/* ---- what the builder makes must load ----------------------------------------------------------- */
static void builder_graphs(void) {
    /* parallel edges of different weights (kept, least first), self-loops (kept, repeated) */
    const uint32_t src[] = {0, 0, 0, 2, 2, 3, 3, 1, 4}, dst[] = {1, 1, 1, 2, 2, 1, 0, 0, 4};
    const int32_t wi[] = {5, 2, 9, 3, 1, 4, 4, 2, 6};
    const float wf[] = {5, 2, 9, 3, 1, 4, 4, 2, 6};
    for (int directed = 0; directed < 2; directed++) {
        mg_graph g = from_edges(6, 9, src, dst, wi, MG_WEIGHT_INT32, directed, true);
        expect_loads(g, "multi_int.mgb");
        mg_graph_free(&g);
        g = from_edges(6, 9, src, dst, wf, MG_WEIGHT_FLOAT, directed, true);
        expect_loads(g, "multi_float.mgb");
        mg_graph_free(&g);
        g = from_edges(6, 9, src, dst, NULL, MG_WEIGHT_NONE, directed, true);
        expect_loads(g, "multi_plain.mgb");
        mg_graph_free(&g);
        g = from_edges(5, 0, NULL, NULL, NULL, MG_WEIGHT_NONE, directed, false);
        expect_loads(g, "no_edges.mgb");
        mg_graph_free(&g);
    }
    const mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_GRID, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 3; k++)
        for (int directed = 0; directed < 2; directed++) {
            mg_gen_options go;
            mg_gen_options_init(&go);
            go.kind = kinds[k];
            go.scale = 10;
            go.weights = k == 1 ? MG_WEIGHT_INT32 : MG_WEIGHT_FLOAT;
            go.graph.directed = directed;
            go.graph.keep_duplicates = k == 0;
            go.graph.keep_self_loops = k == 0;
            mg_graph g = NULL;
            CHECK_OK(ctx, mg_generate(ctx, &g, &go));
            if (g != NULL) expect_loads(g, "generated.mgb");
            mg_graph_free(&g);
        }
}

int main(void) {
    if (temp_dir_make("binary") != 0) return 2;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    const int threads[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
        CHECK_OK(ctx, mg_context_set_threads(ctx, threads[t]));
        directed_float();
        undirected_int();
        builder_graphs();
    }
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
