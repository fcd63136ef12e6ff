/*
 * algo_util.c — the helpers of algo_util.h. This is the one file of algos/ that sees the library's
 * internals: the error buffer (mg__error), the allocator (mg__malloc & co., so failure injection
 * reaches the verifiers' arrays) and a vector's handle check and graph (the public API cannot tell
 * which graph a vector belongs to). The algorithms themselves stay on the public API.
 */
#include "algo_util.h"

#include "mg_internal.h"

mg_status mg__algo_error(mg_context ctx, mg_status status, const char *fmt, ...) {
    char msg[MG__ERROR_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mg__error(ctx, status, "%s", msg);
}

mg_status mg__algo_check_graph(mg_context ctx, const mg_graph g, const char *what) {
    if (g == NULL) return mg__algo_error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    /* mg_graph_csr checks the handle's magic: a public way to catch a freed or garbage graph. */
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    if (mg_graph_csr(g, &off, &idx, &w) != MG_SUCCESS)
        return mg__algo_error(ctx, MG_INVALID_OBJECT, "%s is not a live mg_graph", what);
    return MG_SUCCESS;
}

mg_status mg__algo_check_whole_graph(mg_context ctx, const mg_graph g, const char *what) {
    mg_status status = mg__algo_check_graph(ctx, g, what);
    if (status == MG_SUCCESS && mg_graph_is_share(g))
        status = mg__algo_error(ctx, MG_UNAVAILABLE,
                                "%s is split over ranks (this rank holds only its share), which this "
                                "call cannot use yet: make the graph on a context without ranks",
                                what);
    return status;
}

static const char *type_name(mg_type t) {
    switch (t) {
    case MG_INT32: return "MG_INT32";
    case MG_INT64: return "MG_INT64";
    case MG_FLOAT: return "MG_FLOAT";
    case MG_DOUBLE: return "MG_DOUBLE";
    case MG_VERTEX: return "MG_VERTEX";
    }
    return "an unknown type";
}

mg_status mg__algo_check_vector(mg_context ctx, const mg_graph g, const mg_vector v, mg_type type,
                                const char *what) {
    if (v == NULL) return mg__algo_error(ctx, MG_INVALID_ARGUMENT, "%s is NULL", what);
    mg_status status = mg__check_vector(ctx, v, what);
    if (status != MG_SUCCESS) return status;
    if (v->graph != g)
        return mg__algo_error(ctx, MG_INVALID_ARGUMENT, "%s belongs to another graph", what);
    if (v->type != type)
        return mg__algo_error(ctx, MG_INVALID_ARGUMENT, "%s must be %s, not %s", what,
                              type_name(type), type_name(v->type));
    return MG_SUCCESS;
}

void *mg__algo_malloc(size_t count, size_t size) { return mg__malloc(mg__mul_size(count, size)); }
void mg__algo_free(void *p) { mg__free(p); }

const void *mg__algo_reference(const mg_graph g, int slot, const void *key, size_t key_bytes) {
    return mg__graph_reference(g, slot, key, key_bytes);
}

mg_status mg__algo_keep_reference(mg_context ctx, const mg_graph g, int slot, const void *key,
                                  size_t key_bytes, void *values) {
    if (mg__graph_keep_reference(g, slot, key, key_bytes, values) != MG_SUCCESS)
        return mg__algo_error(ctx, MG_OUT_OF_MEMORY, "out of memory keeping a serial reference");
    return MG_SUCCESS;
}

mg_status mg__algo_simple_matrix(mg_context ctx, const mg_graph g, mg__simple_part part,
                                 mg_matrix *M) {
    mg_status status = MG_SUCCESS;
    uint32_t *rows = NULL, *cols = NULL;
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    TRY(mg_graph_csr(g, &off, &idx, &w));
    /* An undirected graph stores each edge both ways, so its arcs alone give every part. */
    const uint64_t arcs = off[n], per_arc = part == MG__SIMPLE_SYMMETRIC ? 2 : 1;
    rows = mg__algo_malloc(arcs * per_arc + 1, sizeof *rows);
    cols = mg__algo_malloc(arcs * per_arc + 1, sizeof *cols);
    if (rows == NULL || cols == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory for the %llu entries of a simple graph's matrix",
             (unsigned long long)(arcs * per_arc));
    uint64_t k = 0;
    for (uint32_t u = 0; u < n; u++)
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            const uint32_t v = idx[e];
            if (u == v) continue;
            uint32_t r = u, c = v;
            if (part == MG__SIMPLE_LOWER || part == MG__SIMPLE_UPPER) {
                const uint32_t hi = u > v ? u : v, lo = u > v ? v : u;
                r = part == MG__SIMPLE_LOWER ? hi : lo;
                c = part == MG__SIMPLE_LOWER ? lo : hi;
            }
            rows[k] = r;
            cols[k++] = c;
            if (part == MG__SIMPLE_SYMMETRIC) {
                rows[k] = v;
                cols[k++] = u;
            }
        }
    TRY(mg_matrix_create_from_coo(ctx, M, n, n, k, rows, cols, NULL, MG_VALUES_NONE));

cleanup:
    mg__algo_free(rows);
    mg__algo_free(cols);
    return status;
}
