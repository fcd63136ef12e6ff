/* example.h — what the examples share, over the installed mgraph.h only: a TRY macro that jumps to
 * the one cleanup label of the calling function (with `mg_status st` and `mg_context ctx` in scope),
 * and the graph every example starts from (a file named on the command line, else a small
 * generated one). Copy it along with the example you take. */
#ifndef MG_EXAMPLE_H
#define MG_EXAMPLE_H

#include <stdio.h>

#include "mgraph.h"

#define TRY(call)                                                                                  \
    do {                                                                                           \
        st = (call);                                                                               \
        if (st != MG_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, mg_status_string(st),           \
                    mg_context_error(ctx));                                                        \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* *g = the graph in path (undirected: symmetrised, whatever the file says, when `undirected`),
 * or, with path NULL, an R-MAT graph of 2^10 vertices and about 8 edges per vertex. */
static inline mg_status example_graph(mg_context ctx, const char *path, bool undirected, mg_graph *g) {
    if (path != NULL) {
        mg_read_options ro;
        mg_read_options_init(&ro);
        ro.ignore_weights = true;
        if (undirected) ro.undirected = 1;
        return mg_graph_read(ctx, g, path, &ro);
    }
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = 10;
    go.edge_factor = 8;
    go.graph.directed = !undirected;
    return mg_generate(ctx, g, &go);
}

#endif
