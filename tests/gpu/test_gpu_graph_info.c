/*
 * test_gpu_graph_info.c — the public GPU entry points: mg_gpu_query describes the device, and
 * mg_graph_gpu_prepare builds a graph's device form once, keeps it with the graph (a second call
 * reuses it), reports sizes that agree with the CPU graph, and releases the device memory when the
 * graph is freed. Exits 77 (skipped) where no GPU is usable.
 */
#include "check.h"
#include "mgraph.h"

#include <stdio.h>
#include <string.h>

static void check_graph(mg_context ctx, bool directed, mg_weight_type weights) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_KRONECKER;
    go.scale = 14;
    go.weights = weights;
    go.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    mg_gpu_info before, after;
    CHECK_OK(ctx, mg_gpu_query(ctx, &before));

    mg_gpu_graph_info a, b;
    CHECK_OK(ctx, mg_graph_gpu_prepare(ctx, g, &a));
    CHECK_OK(ctx, mg_graph_gpu_prepare(ctx, g, &b));
    CHECK(a.seconds > 0 && a.seconds == b.seconds); /* built once, then reused */
    const uint64_t n = mg_graph_num_vertices(g), m = mg_graph_num_edges(g);
    const size_t csr = (n + 1) * 8 + m * 4 + (weights != MG_WEIGHT_NONE ? m * 4 : 0);
    CHECK(a.csr_bytes == csr);
    CHECK(a.device_bytes >= csr); /* at least the CSR itself */
    mg_graph_stats st;
    CHECK_OK(ctx, mg_graph_get_stats(ctx, g, &st));
    for (int k = 0; k < 6; k++) CHECK(a.group_vertices[k] == st.group_vertices[k]);
    printf("kron14 %s %s: n %llu m %llu, %.3f ms, device %zu bytes = %.2f x CSR\n",
           directed ? "directed" : "undirected", weights == MG_WEIGHT_NONE ? "unweighted" : "weighted",
           (unsigned long long)n, (unsigned long long)m, a.seconds * 1e3, a.device_bytes,
           (double)a.device_bytes / (double)a.csr_bytes);

    mg_graph_free(&g);
    CHECK_OK(ctx, mg_gpu_query(ctx, &after));
    /* the device form went with the graph (allow the allocator's slack of a few MiB) */
    CHECK(after.free_memory + (8u << 20) >= before.free_memory);
}

int main(void) {
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_gpu_info gpu;
    CHECK_OK(ctx, mg_gpu_query(ctx, &gpu));
    if (!gpu.available) {
        printf("skipped: %s\n", gpu.reason);
        mg_context_free(&ctx);
        return 77;
    }
    printf("gpu: %s, compute %d.%d, %d SMs, %zu bytes, %zu shared per block\n", gpu.name,
           gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.total_memory, gpu.shared_per_block);
    CHECK(gpu.sm_count > 0 && gpu.total_memory > 0 && gpu.shared_per_block > 0);
    check_graph(ctx, false, MG_WEIGHT_NONE);
    check_graph(ctx, true, MG_WEIGHT_NONE);
    check_graph(ctx, false, MG_WEIGHT_INT32);
    check_graph(ctx, true, MG_WEIGHT_FLOAT);
    mg_context_free(&ctx);
    return check_report();
}
