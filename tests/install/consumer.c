/* consumer.c — a program outside the tree, built against an installed mgraph: BFS on a 4-vertex
 * path given as COO, and the depth of the last vertex printed (3 when the library works). */
#include <stdio.h>

#include "mgraph.h"

int main(void) {
    const uint32_t src[] = {0, 1, 2}, dst[] = {1, 2, 3};
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector depth = NULL;
    mg_status st = mg_context_create(&ctx);
    if (st == MG_SUCCESS) st = mg_graph_create_from_coo(ctx, &g, 4, 3, src, dst, NULL, MG_WEIGHT_NONE, NULL);
    if (st == MG_SUCCESS) st = mg_vector_create(ctx, &depth, g, MG_INT32);
    if (st == MG_SUCCESS) st = mg_bfs(ctx, g, 0, depth, NULL);
    double d = -1;
    if (st == MG_SUCCESS) st = mg_vector_get(ctx, depth, 3, &d);
    if (st == MG_SUCCESS)
        printf("depth of vertex 3: %g\n", d);
    else
        fprintf(stderr, "%s: %s\n", mg_status_string(st), mg_context_error(ctx));
    mg_vector_free(&depth);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return st == MG_SUCCESS && d == 3 ? 0 : 1;
}
