/*
 * test_gpu_state.c — no state carried between calls changes a result on the GPU backend: the
 * sequence of tests/unit/test_state.c (every algorithm and mg_advance programs of every value type
 * and combine, on graphs growing and shrinking, interleaved in one context), with each step in one
 * of the configurations a context can select — the GPU backend in every mode with MultiGraph's
 * engines and with the baseline engine, and the CPU backend between them — each result compared
 * with the same call on a fresh context configured alike (tests/state_steps.h).
 * Exits 77 (skipped) where no GPU is usable.
 */
#include "state_steps.h"

int main(void) {
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_gpu_info info;
    CHECK_OK(ctx, mg_gpu_query(ctx, &info));
    if (!info.available) {
        printf("skipped: %s\n", info.reason);
        mg_context_free(&ctx);
        return 77;
    }
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_HYBRID, MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_DENSE};
    state_config configs[12];
    int count = 0;
    for (int e = 0; e < 2; e++)
        for (int m = 0; m < 5; m++)
            configs[count++] = (state_config){MG_BACKEND_GPU, modes[m],
                                              e == 0 ? MG_ENGINE_MULTIGRAPH : MG_ENGINE_BASELINE};
    configs[count++] = (state_config){MG_BACKEND_CPU, MG_MODE_AUTO, MG_ENGINE_MULTIGRAPH};
    configs[count++] = (state_config){MG_BACKEND_CPU, MG_MODE_SPARSE, MG_ENGINE_MULTIGRAPH};
    mg_graph g[STATE_GRAPHS];
    state_graphs(ctx, g);
    const int steps = getenv("MG_GPU_TEST_SMALL") != NULL ? 200 : 600;
    const int differed = state_sequence(ctx, g, configs, count, steps, 1);
    printf("%d of %d steps differed from a fresh context\n", differed, steps);
    for (int i = 0; i < STATE_GRAPHS; i++) mg_graph_free(&g[i]);
    mg_context_free(&ctx);
    return check_report();
}
