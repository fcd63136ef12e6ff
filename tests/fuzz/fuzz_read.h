/*
 * fuzz_read.h — what the fuzz targets share: each input is written to a file in a private
 * temporary directory (the readers take a path, and mapping a file is part of what they do) and
 * read there. A failure must be a clean status with a message; a crash, a leak or a sanitizer
 * report is the bug. What loads is checked for the invariants its structure must keep, so a reader
 * that accepts garbage silently is caught too. fuzz_read is the graph targets' read (mg_graph_read
 * in the target's format, named, so the file needs no extension).
 */
#ifndef MG_FUZZ_READ_H
#define MG_FUZZ_READ_H
#define _POSIX_C_SOURCE 200809L
#include "mgraph.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mg_context fuzz_ctx;
static char fuzz_dir[64];
/* The names a target may use in fuzz_dir: the input, the input as gzip, a file it writes. */
static const char *const fuzz_names[] = {"in", "in.gz", "out.mtx"};

static void fuzz_cleanup(void) {
    char path[128];
    for (size_t i = 0; i < sizeof fuzz_names / sizeof fuzz_names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, fuzz_names[i]);
        unlink(path);
    }
    rmdir(fuzz_dir);
}

static void fuzz_setup(void) {
    if (fuzz_ctx != NULL) return;
    /* /dev/shm keeps the per-input write off the disk where it exists. */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/mg_fuzz_XXXXXX", dir);
    if (mkdtemp(fuzz_dir) == NULL || mg_context_create(&fuzz_ctx) != MG_SUCCESS) abort();
    atexit(fuzz_cleanup);
    /* One thread: inputs are small (one parser chunk), and libFuzzer runs one input at a time. */
    mg_context_set_threads(fuzz_ctx, 1);
}

/* fuzz_dir/name (one of fuzz_names). */
static const char *fuzz_path(const char *name) {
    static char path[128];
    fuzz_setup();
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    return path;
}

/* Writes the input to fuzz_dir/name and returns that path. */
static const char *fuzz_input(const uint8_t *data, size_t size, const char *name) {
    const char *path = fuzz_path(name);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size) || close(fd) != 0) abort();
    return path;
}

/* A failed read left no object and said why, in a message that starts with the call's name and
 * names the file. */
static void fuzz_check_failure(const void *object, const char *call, const char *path) {
    const char *msg = mg_context_error(fuzz_ctx);
    if (object != NULL || msg == NULL || strncmp(msg, call, strlen(call)) != 0 ||
        strstr(msg, path) == NULL)
        abort();
}

static inline void fuzz_read(const uint8_t *data, size_t size, mg_format format) {
    const char *path = fuzz_input(data, size, "in");
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
    mg_status st = mg_graph_read(fuzz_ctx, &g, path, &opts);
    if (st != MG_SUCCESS) {
        fuzz_check_failure(g, "mg_graph_read: ", path);
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
