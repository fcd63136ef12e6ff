/*
 * test_gpu_probe.c — mg_gpu_probe: every figure measured and physically plausible (bandwidths
 * above 0 and under 10 TB/s, device memory faster than PCIe, latencies of microseconds, rates
 * above 0 and under what any GPU reaches), a NULL result refused, and without a usable GPU
 * MG_UNAVAILABLE naming the call and the result left untouched (then exit 77: skipped).
 */
#include "check.h"
#include "mgraph.h"

#include <stdio.h>
#include <string.h>

/* x within (lo, hi), printed when not */
static bool within(const char *what, double x, double lo, double hi) {
    const bool ok = x > lo && x < hi;
    if (!ok) fprintf(stderr, "%s = %g, outside (%g, %g)\n", what, x, lo, hi);
    return ok;
}

int main(void) {
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    CHECK(mg_gpu_probe(ctx, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_gpu_probe") != NULL);
    mg_gpu_info gpu;
    CHECK_OK(ctx, mg_gpu_query(ctx, &gpu));
    mg_gpu_probe_result p;
    memset(&p, 0x5a, sizeof p);
    if (!gpu.available) {
        CHECK(mg_gpu_probe(ctx, &p) == MG_UNAVAILABLE);
        CHECK(strstr(mg_context_error(ctx), "mg_gpu_probe") != NULL);
        unsigned char untouched[sizeof p];
        memset(untouched, 0x5a, sizeof untouched);
        CHECK(memcmp(&p, untouched, sizeof p) == 0);
        printf("skipped: %s\n", gpu.reason);
        mg_context_free(&ctx);
        return check_report() ? 1 : 77;
    }
    CHECK_OK(ctx, mg_gpu_probe(ctx, &p));
    printf("%s: L2 %zu bytes\n"
           "PCIe pinned h2d %.2f GB/s d2h %.2f GB/s, pageable h2d %.2f GB/s d2h %.2f GB/s\n"
           "latency h2d %.2f us d2h %.2f us, launch %.2f us\n"
           "memory read %.1f GB/s copy %.1f GB/s\n"
           "atomics global %.2f Gops/s, contended %.2f Gops/s, shared %.2f Gops/s\n"
           "FMA fp32 %.0f GFLOP/s fp64 %.0f GFLOP/s\n",
           p.name, p.l2_bytes, p.h2d_pinned_gbs, p.d2h_pinned_gbs, p.h2d_pageable_gbs,
           p.d2h_pageable_gbs, p.h2d_latency_us, p.d2h_latency_us, p.launch_latency_us, p.read_gbs,
           p.copy_gbs, p.global_atomics_gops, p.global_atomics_contended_gops, p.shared_atomics_gops,
           p.fp32_gflops, p.fp64_gflops);
    CHECK(strncmp(p.name, gpu.name, sizeof p.name) == 0);
    CHECK(p.l2_bytes >= (1u << 20) && p.l2_bytes <= (1024u << 20));
    CHECK(within("h2d_pinned_gbs", p.h2d_pinned_gbs, 0.1, 10000));
    CHECK(within("d2h_pinned_gbs", p.d2h_pinned_gbs, 0.1, 10000));
    CHECK(within("h2d_pageable_gbs", p.h2d_pageable_gbs, 0.1, 10000));
    CHECK(within("d2h_pageable_gbs", p.d2h_pageable_gbs, 0.1, 10000));
    CHECK(within("h2d_latency_us", p.h2d_latency_us, 0, 1000));
    CHECK(within("d2h_latency_us", p.d2h_latency_us, 0, 1000));
    CHECK(within("launch_latency_us", p.launch_latency_us, 0, 1000));
    CHECK(within("read_gbs", p.read_gbs, 10, 10000));
    CHECK(within("copy_gbs", p.copy_gbs, 10, 10000));
    /* device memory outruns the bus; a copy's read + write is of the read's order */
    CHECK(p.read_gbs > p.h2d_pinned_gbs && p.read_gbs > p.d2h_pinned_gbs);
    CHECK(within("copy_gbs / read_gbs", p.copy_gbs / p.read_gbs, 0.25, 2));
    CHECK(within("global_atomics_gops", p.global_atomics_gops, 0, 10000));
    CHECK(within("global_atomics_contended_gops", p.global_atomics_contended_gops, 0, 10000));
    CHECK(within("shared_atomics_gops", p.shared_atomics_gops, 0, 100000));
    CHECK(within("fp32_gflops", p.fp32_gflops, 10, 1e6));
    CHECK(within("fp64_gflops", p.fp64_gflops, 1, 1e6));
    /* no GPU's plain FP64 pipes outrun its FP32 ones */
    CHECK(p.fp64_gflops < 1.5 * p.fp32_gflops);
    mg_context_free(&ctx);
    return check_report();
}
