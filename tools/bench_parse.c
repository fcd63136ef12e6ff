/*
 * bench_parse.c — how fast graph files load: Matrix Market parsing (the text into an edge list)
 * and mg_graph_read (parse + graph build) with 1 and 2 threads, then the binary format's write
 * and load. Median of 3 runs each; MB/s counts the file's bytes.
 *
 *   bench_parse [file.mtx | --generate MB] [--runs R] [--keep] [--parse-only] [--threads T]
 * Without a file it writes /tmp/mg_bench_parse.mtx: MB megabytes (default 300) of random
 * integer-weighted edges from a fixed seed, and removes it afterwards unless --keep.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/io_internal.h"
#include "mg_internal.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Random edges, xorshift from a fixed seed: the same file on every machine. */
static int generate(const char *path, double megabytes) {
    const uint32_t n = 1u << 24;
    const uint64_t target = (uint64_t)(megabytes * 1e6);
    const uint64_t m = target / 20; /* about 20 bytes a line for 8-digit ids and small weights */
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    fprintf(f, "%%%%MatrixMarket matrix coordinate integer general\n"
               "%% bench_parse: %llu random edges on %u vertices, seed 88172645463325252\n"
               "%u %u %llu\n",
            (unsigned long long)m, n, n, n, (unsigned long long)m);
    static char buf[1 << 20];
    size_t p = 0;
    uint64_t x = 88172645463325252ull;
    for (uint64_t i = 0; i < m; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p += (size_t)snprintf(buf + p, 64, "%u %u %u\n", (uint32_t)(x % n) + 1,
                              (uint32_t)((x >> 32) % n) + 1, (uint32_t)(x >> 54) % 100 + 1);
        if (p > sizeof buf - 64) {
            fwrite(buf, 1, p, f);
            p = 0;
        }
    }
    fwrite(buf, 1, p, f);
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    double megabytes = 300;
    int runs = 3;
    bool keep = false, parse_only = false;
    int max_threads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--generate") == 0 && i + 1 < argc) megabytes = atof(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--keep") == 0) keep = true;
        else if (strcmp(argv[i], "--parse-only") == 0) parse_only = true;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) max_threads = atoi(argv[++i]);
        else path = argv[i];
    }
    if (runs < 1 || runs > 99) runs = 3;
    bool generated = false;
    if (path == NULL) {
        path = "/tmp/mg_bench_parse.mtx";
        if (file_size(path) < (uint64_t)(megabytes * 1e6 * 0.9)) {
            double t0 = now();
            if (generate(path, megabytes)) return 1;
            printf("generated %s in %.2f s\n", path, now() - t0);
        }
        generated = !keep;
    }
    const double mb = (double)file_size(path) / 1e6;
    printf("file: %s, %.1f MB\n", path, mb);

    mg_context ctx;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_read_options opts;
    mg_read_options_init(&opts);
    double t[100];
    mg_graph g = NULL;
    int status = 0;

    /* Warm the page cache so every run reads from memory, as the later runs would anyway. */
    {
        mg__coo coo;
        if (mg__read_matrix_market(ctx, path, &opts, &coo) != MG_SUCCESS) {
            fprintf(stderr, "%s\n", mg_context_error(ctx));
            return 1;
        }
        printf("edges in file: %llu, vertices: %u\n", (unsigned long long)coo.m, coo.n);
        mg__coo_free(&coo);
    }
    if (max_threads < 1) max_threads = 2;
    for (int threads = 1; threads <= max_threads; threads *= 2) {
        omp_set_num_threads(threads);
        for (int r = 0; r < runs; r++) {
            mg__coo coo;
            double t0 = now();
            mg_status st = mg__read_matrix_market(ctx, path, &opts, &coo);
            t[r] = now() - t0;
            mg__coo_free(&coo);
            if (st != MG_SUCCESS) {
                fprintf(stderr, "%s\n", mg_context_error(ctx));
                return 1;
            }
        }
        double s = median(t, runs);
        printf("parse .mtx -> edge list, %d thread%s: %.3f s  %.0f MB/s  (%.0f MB/s per core)\n",
               threads, threads == 1 ? " " : "s", s, mb / s, mb / s / threads);
        if (parse_only) continue;
        for (int r = 0; r < runs; r++) {
            double t0 = now();
            mg_status st = mg_graph_read(ctx, &g, path, &opts);
            t[r] = now() - t0;
            if (st != MG_SUCCESS) {
                fprintf(stderr, "%s\n", mg_context_error(ctx));
                return 1;
            }
            if (r + 1 < runs || threads * 2 <= max_threads) mg_graph_free(&g);
        }
        s = median(t, runs);
        printf("mg_graph_read (parse + build CSR/CSC), %d thread%s: %.3f s  %.0f MB/s  (%.0f MB/s "
               "per core)\n",
               threads, threads == 1 ? " " : "s", s, mb / s, mb / s / threads);
    }

    if (parse_only || g == NULL) {
        mg_context_free(&ctx);
        if (generated) unlink(path);
        return status;
    }
    const char *bin = "/tmp/mg_bench_parse.mgb";
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        if (mg_graph_write(ctx, g, bin, MG_FORMAT_BINARY) != MG_SUCCESS) {
            fprintf(stderr, "%s\n", mg_context_error(ctx));
            return 1;
        }
        t[r] = now() - t0;
    }
    const double bmb = (double)file_size(bin) / 1e6;
    double s = median(t, runs);
    printf("binary write (.mgb, %.1f MB): %.3f s  %.0f MB/s\n", bmb, s, bmb / s);
    mg_graph back = NULL;
    for (int threads = 1; threads <= max_threads; threads *= 2) {
        omp_set_num_threads(threads);
        for (int r = 0; r < runs; r++) {
            double t0 = now();
            if (mg_graph_read(ctx, &back, bin, &opts) != MG_SUCCESS) {
                fprintf(stderr, "%s\n", mg_context_error(ctx));
                return 1;
            }
            t[r] = now() - t0;
            if (back->m != g->m || memcmp(back->out.indices, g->out.indices, g->m * 4) != 0) {
                fprintf(stderr, "binary round trip differs\n");
                status = 1;
            }
            mg_graph_free(&back);
        }
        s = median(t, runs);
        printf("binary load (read + checksum + validate), %d thread%s: %.3f s  %.0f MB/s\n",
               threads, threads == 1 ? " " : "s", s, bmb / s);
    }
    mg_graph_free(&g);
    mg_context_free(&ctx);
    unlink(bin);
    if (generated) unlink(path);
    return status;
}
