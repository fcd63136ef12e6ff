/*
 * test_state.c — no state carried between calls changes a result on the CPU engine: one context
 * runs a seeded sequence of every algorithm and of mg_advance programs of every value type and
 * combine, on graphs growing and shrinking in size, weighted and not, directed and not, in every
 * mode, and each result must equal the same call's on a fresh context (tests/state_steps.h).
 * Also the sequence of issue 13, spelled out: a push on a 1000-vertex graph, BC on a 2-vertex
 * graph, then BC on a 6-vertex graph gave NaNs with MG_SUCCESS.
 */
#include "state_steps.h"

/* Issue 13's reproduction: the accumulator filled for 1000 vertices with one identity, then for 2
 * with BC's, kept the first identity for vertices 2..5. */
static void issue_13(mg_context ctx, mg_graph g[STATE_GRAPHS]) {
    mg_graph big = g[0], two = g[1], six = g[2];
    const state_config sparse = {MG_BACKEND_CPU, MG_MODE_SPARSE, MG_ENGINE_MULTIGRAPH};
    CHECK_OK(ctx, state_configure(ctx, &sparse));
    state_step push = {ST_PROGRAMS + 2 * 4 + MG_COMBINE_MIN, 0, 0, 0}; /* float min, assign */
    state_step bc = {ST_BC1, 0, 0, 0};
    state_result r = state_run(ctx, big, &push, false);
    CHECK_OK(ctx, r.status);
    free(r.values);
    r = state_run(ctx, two, &bc, true);
    CHECK_OK(ctx, r.status);
    free(r.values);
    r = state_run(ctx, six, &bc, true); /* verified against the serial reference */
    CHECK_OK(ctx, r.status);
    for (uint32_t v = 0; v < r.n && r.values; v++) CHECK(!isnan(((double *)r.values)[v]));
    free(r.values);
}

int main(void) {
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_graph g[STATE_GRAPHS];
    state_graphs(ctx, g);
    issue_13(ctx, g);
    const state_config configs[] = {
        {MG_BACKEND_CPU, MG_MODE_AUTO, MG_ENGINE_MULTIGRAPH},
        {MG_BACKEND_CPU, MG_MODE_SPARSE, MG_ENGINE_MULTIGRAPH},
        {MG_BACKEND_CPU, MG_MODE_PULL, MG_ENGINE_MULTIGRAPH},
        {MG_BACKEND_CPU, MG_MODE_DENSE, MG_ENGINE_MULTIGRAPH},
        {MG_BACKEND_CPU, MG_MODE_HYBRID, MG_ENGINE_MULTIGRAPH},
    };
    const int differed = state_sequence(ctx, g, configs, 5, 400, 1);
    printf("%d of 400 steps differed from a fresh context\n", differed);
    for (int i = 0; i < STATE_GRAPHS; i++) mg_graph_free(&g[i]);
    mg_context_free(&ctx);
    return check_report();
}
