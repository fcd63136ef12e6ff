/*
 * test_gpu_loop.c — mg_advance_loop on the GPU against its definition (the loop of mg_advance calls)
 * on the CPU, every case of tests/loop_cases.h: a grid and a path (thousands of levels: stretches of
 * device steps that grow to their longest and end mid-stretch), R-MAT undirected (hubs: a stretch
 * stops before a step too costly to push and the host takes it) and directed with float weights;
 * step limits inside a stretch; every value type; step_of of both types; the visited mask grown
 * with and without its device list; the far pile. Then the modes where the loop must take every step
 * from the host (forced pull, the dense engine, the baseline engine) and the hybrid.
 * Exits 77 (skipped) where no GPU is usable.
 */
#include "loop_cases.h"

#include <stdio.h>

static mg_context gpu, cpu;

static void cases(mg_graph g, const char *name, uint32_t source, bool all) {
    static const uint32_t limits[] = {0, 1, 23, 300};
    for (int l = 0; l < (all ? 4 : 1); l++) {
        loop_case(gpu, cpu, g, name, LOOP_BFS, MG_VERTEX, MG_INT32, source, limits[l]);
        loop_case(gpu, cpu, g, name, LOOP_NEAR_FAR, MG_INT64, -1, source, limits[l]);
    }
    if (!all) return;
    loop_case(gpu, cpu, g, name, LOOP_BFS, MG_VERTEX, MG_INT64, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_BFS, MG_VERTEX, -1, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_DEPTH_MIN, MG_INT32, MG_INT32, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_DEPTH_MIN, MG_FLOAT, MG_INT64, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_DEPTH_MIN, MG_DOUBLE, -1, source, 77);
    loop_case(gpu, cpu, g, name, LOOP_MAX, MG_INT64, MG_INT32, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_MAX, MG_INT32, -1, source, 0);
    loop_case(gpu, cpu, g, name, LOOP_NEAR_FAR, MG_DOUBLE, MG_INT32, source, 0);
}

int main(void) {
    if (mg_context_create(&gpu) != MG_SUCCESS || mg_context_create(&cpu) != MG_SUCCESS) return 1;
    mg_gpu_info info;
    CHECK_OK(gpu, mg_gpu_query(gpu, &info));
    if (!info.available) {
        printf("skipped: %s\n", info.reason);
        mg_context_free(&gpu);
        mg_context_free(&cpu);
        return 77;
    }
    CHECK_OK(gpu, mg_context_set_backend(gpu, MG_BACKEND_GPU));
    const bool small = getenv("MG_GPU_TEST_SMALL") != NULL;
    mg_graph grid = loop_graph(cpu, MG_GEN_GRID, 0, small ? 40 : 300, small ? 30 : 200, false, MG_WEIGHT_INT32);
    mg_graph path = loop_graph(cpu, MG_GEN_GRID, 0, small ? 600 : 3000, 1, false, MG_WEIGHT_INT32);
    mg_graph rmat = loop_graph(cpu, MG_GEN_RMAT, small ? 10 : 15, 0, 0, false, MG_WEIGHT_INT32);
    mg_graph directed = loop_graph(cpu, MG_GEN_RMAT, small ? 9 : 13, 0, 0, true, MG_WEIGHT_FLOAT);
    if (grid && path && rmat && directed) {
        const uint32_t centre = mg_graph_num_vertices(grid) / 2 + (small ? 20 : 150);
        cases(grid, "grid", centre, true);
        cases(path, "path", 0, true);
        cases(rmat, "rmat", 0, true);
        cases(directed, "rmat dir", 1, true);
        /* the modes that take every step from the host, and the hybrid */
        static const mg_mode modes[] = {MG_MODE_PULL, MG_MODE_DENSE, MG_MODE_SPARSE, MG_MODE_HYBRID};
        static const char *const names[] = {"pull", "dense", "sparse", "hybrid"};
        for (int m = 0; m < 4; m++) {
            CHECK_OK(gpu, mg_context_set_mode(gpu, modes[m]));
            printf("mode %s:\n", names[m]);
            cases(grid, "grid", centre, false);
            cases(rmat, "rmat", 0, false);
        }
        CHECK_OK(gpu, mg_context_set_mode(gpu, MG_MODE_AUTO));
        CHECK_OK(gpu, mg_context_set_engine(gpu, MG_ENGINE_BASELINE));
        printf("baseline engine:\n");
        cases(grid, "grid", centre, false);
        cases(rmat, "rmat", 0, false);
    }
    mg_graph_free(&grid);
    mg_graph_free(&path);
    mg_graph_free(&rmat);
    mg_graph_free(&directed);
    mg_context_free(&gpu);
    mg_context_free(&cpu);
    return check_report();
}
