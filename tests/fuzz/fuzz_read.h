/*
 * fuzz_read.h — what the four fuzz targets share: each input is written to one temporary file
 * (the readers take a path, and mapping a file is part of what they do) and read with
 * mg_graph_read in the target's format (named, so the file needs no extension). A failure must be a clean status with a message; a crash,
 * a leak or a sanitizer report is the bug. A graph that loads is checked for the invariants its
 * CSR must keep, so a reader that accepts garbage silently is caught too.
 */
#ifndef MG_FUZZ_READ_H
#define MG_FUZZ_READ_H
#define _POSIX_C_SOURCE 200809L
#include "mgraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mg_context fuzz_ctx;
static int fuzz_fd = -1;
static char fuzz_path[64];

static void fuzz_setup(void) {
    if (fuzz_ctx != NULL) return;
    /* /dev/shm keeps the per-input write off the disk where it exists. */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_path, sizeof fuzz_path, "%s/mg_fuzz_XXXXXX", dir);
    fuzz_fd = mkstemp(fuzz_path);
    if (fuzz_fd < 0 || mg_context_create(&fuzz_ctx) != MG_SUCCESS) abort();
    /* One thread: inputs are small (one parser chunk), and libFuzzer runs one input at a time. */
    mg_context_set_threads(fuzz_ctx, 1);
}

static void fuzz_cleanup(void) {
    if (fuzz_fd >= 0) unlink(fuzz_path);
}

static void fuzz_read(const uint8_t *data, size_t size, mg_format format) {
    if (fuzz_ctx == NULL) {
        fuzz_setup();
        atexit(fuzz_cleanup);
    }
    if (ftruncate(fuzz_fd, 0) != 0 || pwrite(fuzz_fd, data, size, 0) != (ssize_t)size) abort();
    mg_read_options opts;
    mg_read_options_init(&opts);
    opts.format = format;
    /* Keeps every input fast: the default limit lets a few bytes build 4M vertices (0.1 s), which
     * would slow the search without reaching new code. */
    opts.max_vertices = 1u << 16;
    /* Let the reader's options vary with the input too. */
    if (size > 0) {
        opts.undirected = (int)(data[size - 1] % 3) - 1;
        opts.ignore_weights = (data[0] & 1) != 0;
        opts.allow_negative_weights = (data[0] & 2) != 0;
        opts.keep_self_loops = (data[0] & 4) != 0;
        opts.keep_duplicates = (data[0] & 8) != 0;
    }
    mg_graph g = NULL;
    mg_status st = mg_graph_read(fuzz_ctx, &g, fuzz_path, &opts);
    if (st != MG_SUCCESS) {
        const char *msg = mg_context_error(fuzz_ctx);
        if (g != NULL || msg == NULL || msg[0] == '\0') abort();
        return;
    }
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t m = mg_graph_num_edges(g);
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    if (mg_graph_csr(g, &off, &idx, &w) != MG_SUCCESS || off[0] != 0 || off[n] != m) abort();
    for (uint32_t u = 0; u < n; u++) {
        if (off[u] > off[u + 1]) abort();
        for (uint64_t e = off[u]; e < off[u + 1]; e++)
            if (idx[e] >= n) abort();
    }
    mg_graph_free(&g);
}

#endif
