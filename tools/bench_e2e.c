/*
 * bench_e2e.c — where a one-off GPU run's time goes, end to end, phase by phase and in the order a
 * user's program meets them: the device's start-up, reading the file, building the device form
 * (the host's edge list, its upload and the device build, as mg_graph_gpu_prepare reports them),
 * the first run (anything built lazily included), a second run, and freeing the graph and the
 * context. The CPU backend's load and first run are timed in the same process for comparison.
 * Everything is wall time on the host clock after the call returns (every GPU call here
 * synchronises before it returns).
 *
 *   bench_e2e FILE [bfs|pr]      (default bfs, from vertex 0)
 */
#define _POSIX_C_SOURCE 200809L
#include "mgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static mg_context ctx;

static void check(mg_status st, const char *what) {
    if (st == MG_SUCCESS) return;
    fprintf(stderr, "bench_e2e: %s: %s\n", what, mg_context_error(ctx));
    exit(1);
}

static double run(bool pr, mg_graph g, mg_vector v) {
    const double t = now();
    check(pr ? mg_pagerank(ctx, g, NULL, v) : mg_bfs(ctx, g, 0, v, NULL), "run");
    return now() - t;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "bfs") != 0 && strcmp(argv[2], "pr") != 0)) {
        fprintf(stderr, "usage: bench_e2e FILE [bfs|pr]\n");
        return 2;
    }
    const bool pr = argc == 3 && strcmp(argv[2], "pr") == 0;
    const mg_type type = pr ? MG_DOUBLE : MG_INT32;
    double t = now();
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    check(mg_context_set_backend(ctx, MG_BACKEND_GPU), "the GPU backend");
    const double start_s = now() - t;

    t = now();
    mg_graph g = NULL;
    check(mg_graph_read(ctx, &g, argv[1], NULL), "reading the file");
    const double load_s = now() - t;

    t = now();
    mg_gpu_graph_info info;
    check(mg_graph_gpu_prepare(ctx, g, &info), "the device form");
    const double prepare_s = now() - t;

    mg_vector v = NULL;
    t = now();
    check(mg_vector_create(ctx, &v, g, type), "the result vector");
    const double vector_s = now() - t;
    const double first_s = run(pr, g, v), second_s = run(pr, g, v);

    /* the CPU backend on the same graph, in the same process */
    mg_vector c = NULL;
    check(mg_context_set_backend(ctx, MG_BACKEND_CPU), "the CPU backend");
    check(mg_vector_create(ctx, &c, g, type), "the CPU result vector");
    const double cpu_first_s = run(pr, g, c), cpu_second_s = run(pr, g, c);
    mg_vector_free(&c);

    t = now();
    mg_vector_free(&v);
    mg_graph_free(&g);
    const double free_graph_s = now() - t;
    t = now();
    mg_context_free(&ctx);
    const double free_ctx_s = now() - t;

    const double host_edges_s = prepare_s - info.upload_seconds - info.seconds;
    printf("%-34s %9s\n", "phase", "seconds");
    printf("%-34s %9.4f\n", "GPU start-up (set_backend)", start_s);
    printf("%-34s %9.4f\n", "load (file -> host CSR/CSC)", load_s);
    printf("%-34s %9.4f\n", "  host edge list (prepare - rest)", host_edges_s);
    printf("%-34s %9.4f\n", "  upload", info.upload_seconds);
    printf("%-34s %9.4f\n", "  device build", info.seconds);
    printf("%-34s %9.4f\n", "prepare, all", prepare_s);
    printf("%-34s %9.4f\n", "result vector", vector_s);
    printf("%-34s %9.4f\n", pr ? "first pr (lazy builds in it)" : "first bfs (lazy builds in it)", first_s);
    printf("%-34s %9.4f\n", "second run", second_s);
    printf("%-34s %9.4f\n", "free vector + graph", free_graph_s);
    printf("%-34s %9.4f\n", "free context", free_ctx_s);
    printf("%-34s %9.4f\n", "CPU first run / second", cpu_first_s);
    printf("%-34s %9.4f\n", "", cpu_second_s);
    return 0;
}
