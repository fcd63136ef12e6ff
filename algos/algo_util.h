/*
 * algo_util.h — the few helpers the built-in algorithms and their verifiers share: recording an
 * error message in the context (there is no public mg__error), argument checks that name the call,
 * and host allocations that go through the library's allocator (so failure injection reaches them).
 * Algorithms include only mgraph.h and this header: they must run unchanged on any backend.
 */
#ifndef MG_ALGO_UTIL_H
#define MG_ALGO_UTIL_H

#include "mgraph.h"

/* Records a printf-style message in ctx and returns status. */
mg_status mg__algo_error(mg_context ctx, mg_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* LAGraph-style cleanup path: a local `mg_status status` and a `cleanup:` label. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        status = (call);                                                                           \
        if (status != MG_SUCCESS) goto cleanup;                                                    \
    } while (0)

#define FAIL(ctx, st, ...)                                                                         \
    do {                                                                                           \
        status = mg__algo_error((ctx), (st), __VA_ARGS__);                                         \
        goto cleanup;                                                                              \
    } while (0)

/* g is a live graph (what names the call and argument, e.g. "mg_bfs: g"). */
mg_status mg__algo_check_graph(mg_context ctx, const mg_graph g, const char *what);
/* The same, and g whole: a share of a graph split over ranks (mg_graph_is_share) is refused,
 * MG_UNAVAILABLE, by the calls that walk the graph's CSR or CSC themselves (the verifiers,
 * triangle counting), which would see only this rank's edges. */
mg_status mg__algo_check_whole_graph(mg_context ctx, const mg_graph g, const char *what);
/* v is a live vector of g's size and of the given type (MG_INT32 and MG_VERTEX are not
 * interchangeable here: the API documents which one each result is). */
mg_status mg__algo_check_vector(mg_context ctx, const mg_graph g, const mg_vector v, mg_type type,
                                const char *what);

/* The verifiers' serial results are kept on the graph, the last one of each verifier, so that
 * checking several results of one call (a benchmark validating every engine) costs one serial run.
 * key holds the arguments that decide the result (compared byte for byte). */
enum { MG__REFERENCE_BFS, MG__REFERENCE_SSSP, MG__REFERENCE_CC, MG__REFERENCE_PAGERANK, MG__REFERENCE_BC };
/* The kept result for this key, or NULL. */
const void *mg__algo_reference(const mg_graph g, int slot, const void *key, size_t key_bytes);
/* Keeps values (from mg__algo_malloc; the graph owns them from here on, even on failure). */
mg_status mg__algo_keep_reference(mg_context ctx, const mg_graph g, int slot, const void *key,
                                  size_t key_bytes, void *values);

/* Which part of the simple graph underlying g (directions kept or not; self loops and parallel
 * edges dropped) mg__algo_simple_matrix gives. */
typedef enum {
    MG__SIMPLE_LOWER,     /* (i, j) for each undirected edge {i, j}, i > j: the strictly lower triangle */
    MG__SIMPLE_UPPER,     /* (j, i) for the same edges: its transpose                              */
    MG__SIMPLE_SYMMETRIC, /* both: the undirected simple graph                                     */
    MG__SIMPLE_DIRECTED   /* (u, v) for each stored arc u -> v, u != v: the directed simple graph  */
} mg__simple_part;
/* *M = that part of g as an n x n pattern matrix (through mg_matrix_create_from_coo, whose pattern
 * duplicates merge: that is what drops parallel edges and the second direction of an edge). */
mg_status mg__algo_simple_matrix(mg_context ctx, const mg_graph g, mg__simple_part part,
                                 mg_matrix *M);
/* The serial verifiers' own simple graph (written apart from the SpGEMM path's): sorted, repeat-free
 * neighbour lists without v itself, *off (n+1) and *adj from mg__algo_malloc (the caller frees
 * both). out_only: the out-neighbours of a directed graph; else in- and out-neighbours. */
mg_status mg__check_simple_neighbours(mg_context ctx, const mg_graph g, bool out_only,
                                      const char *what, uint64_t **off, uint32_t **adj);

/* Host memory through the library allocator; NULL on failure. */
void *mg__algo_malloc(size_t count, size_t size);
void mg__algo_free(void *p);

#endif
