/*
 * binary.c — mgraph's binary graph format (.mgb): a built graph, loaded at file-read speed.
 *
 * Layout (native little-endian; a byte-order field rejects a file from a big-endian machine):
 *   64-byte header (struct mgb_header below)
 *   out CSR: offsets[n+1] (uint64), indices[m] (uint32), weights[m] (int32/float, if weighted)
 *   in CSC:  the same three arrays, for directed graphs only (an undirected graph's CSC is its CSR)
 * The header's sizes are checked against the file's length before anything is allocated; the
 * checksum (header with checksum 0, then every array) is verified, then the arrays are validated
 * as a graph (see "validation" below) before the graph is handed out.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include "dist.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

#define MGB_MAGIC "MGRAPHB"   /* 7 characters and the terminating NUL: 8 bytes */
#define MGB_VERSION 1u
#define MGB_BYTE_ORDER 0x01020304u
#define MGB_FLAG_DIRECTED 1u

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;
    uint32_t byte_order;
    uint32_t flags;
    uint64_t n;
    uint64_t m;
    int32_t weight_type;
    int32_t index_base;
    uint64_t payload_bytes;
    uint64_t checksum;
} mgb_header;
_Static_assert(sizeof(mgb_header) == 64, "the .mgb header is 64 bytes");

/* ---- checksum ---------------------------------------------------------------------------------- */

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define HASH_BLOCK (1u << 20)

static inline uint64_t mix64(uint64_t h) { /* MurmurHash3's finaliser: a bijection */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t load64(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* Four independent lanes of (lane ^ word) * odd: each step is a bijection of the word, so any
 * single changed word changes the result, and the lanes keep four multipliers busy. */
static uint64_t block_hash(const unsigned char *p, size_t len) {
    uint64_t a = P1, b = P2, c = ~P1, d = ~P2;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        a = (a ^ load64(p + i)) * P1;
        b = (b ^ load64(p + i + 8)) * P1;
        c = (c ^ load64(p + i + 16)) * P1;
        d = (d ^ load64(p + i + 24)) * P1;
    }
    for (; i + 8 <= len; i += 8) a = (a ^ load64(p + i)) * P2;
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i);
        d = (d ^ w) * P2;
    }
    uint64_t h = mix64(a);
    h = (h ^ b) * P2;
    h = (h ^ c) * P2;
    h = (h ^ d) * P2;
    return mix64(h ^ len);
}

/* Blocks hash in parallel; a sum of position-keyed block hashes combines them in any order (so
 * ranks can each add up some of them: mg__read_binary_share). */
static inline uint64_t block_term(const unsigned char *block, size_t bytes, int64_t k) {
    return mix64(block_hash(block, bytes) ^ ((uint64_t)k * P1));
}
static inline uint64_t array_finish(uint64_t sum, uint64_t len) { return mix64(sum ^ (len * P2)); }

static uint64_t array_hash(const void *data, size_t len) {
    const unsigned char *p = data;
    const int64_t blocks = (int64_t)((len + HASH_BLOCK - 1) / HASH_BLOCK);
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) if (blocks > 1)
    for (int64_t k = 0; k < blocks; k++) {
        size_t lo = (size_t)k * HASH_BLOCK, hi = lo + HASH_BLOCK < len ? lo + HASH_BLOCK : len;
        sum += block_term(p + lo, hi - lo, k);
    }
    return array_finish(sum, len);
}

static inline uint64_t chain(uint64_t h, uint64_t section) { return mix64(h ^ section) * P1; }

/* ---- sections ---------------------------------------------------------------------------------- */

typedef struct {
    void *data;
    uint64_t bytes;
} section;

/* The arrays in file order; returns how many. */
static int sections_of(uint32_t n, uint64_t m, bool directed, bool weighted, const mg__csr *out,
                       const mg__csr *in, section s[6]) {
    int k = 0;
    const mg__csr *csr[2] = {out, in};
    for (int c = 0; c < (directed ? 2 : 1); c++) {
        s[k++] = (section){csr[c]->offsets, ((uint64_t)n + 1) * 8};
        s[k++] = (section){csr[c]->indices, m * 4};
        if (weighted) s[k++] = (section){csr[c]->weights, m * 4};
    }
    return k;
}

/* The checksum from the header and the sections' hashes (array_hash of each, in file order). */
static uint64_t checksum_from(const mgb_header *h, const uint64_t *hashes, int count) {
    mgb_header zeroed = *h;
    zeroed.checksum = 0;
    uint64_t sum = chain(P2, array_hash(&zeroed, sizeof zeroed));
    for (int i = 0; i < count; i++) sum = chain(sum, hashes[i]);
    return sum;
}

static uint64_t checksum_of(const mgb_header *h, const section *s, int count) {
    uint64_t hashes[6];
    for (int i = 0; i < count; i++) hashes[i] = array_hash(s[i].data, (size_t)s[i].bytes);
    return checksum_from(h, hashes, count);
}

/* ---- writer ------------------------------------------------------------------------------------ */

mg_status mg__write_binary(mg_context ctx, const mg_graph g, const char *path) {
    mg_status status = MG_SUCCESS;
    mg__atomic_file af = {0};
    const bool weighted = g->weight_type != MG_WEIGHT_NONE && g->out.weights != NULL;
    section s[6];
    const int count = sections_of(g->n, g->m, g->directed, weighted, &g->out, &g->in, s);

    mgb_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MGB_MAGIC, sizeof h.magic);
    h.version = MGB_VERSION;
    h.header_bytes = sizeof h;
    h.byte_order = MGB_BYTE_ORDER;
    h.flags = g->directed ? MGB_FLAG_DIRECTED : 0;
    h.n = g->n;
    h.m = g->m;
    h.weight_type = weighted ? (int32_t)g->weight_type : (int32_t)MG_WEIGHT_NONE;
    h.index_base = g->index_base;
    for (int i = 0; i < count; i++) h.payload_bytes += s[i].bytes;
    h.checksum = checksum_of(&h, s, count);

    MG__TRY(mg__atomic_open(ctx, path, "mg_graph_write", &af));
    MG__TRY(mg__atomic_write(ctx, &af, &h, sizeof h));
    for (int i = 0; i < count; i++)
        MG__TRY(mg__atomic_write(ctx, &af, s[i].data, (size_t)s[i].bytes));
    MG__TRY(mg__atomic_commit(ctx, &af));

cleanup:
    mg__atomic_abort(&af);
    return status;
}

/* ---- reader ------------------------------------------------------------------------------------ */

/* bytes at file offset at, whole (a rank's reader takes its own pieces) */
static bool pread_full(int fd, void *data, uint64_t bytes, uint64_t at) {
    char *p = data;
    while (bytes > 0) {
        size_t want = bytes > (1u << 30) ? (1u << 30) : (size_t)bytes;
        ssize_t got = pread(fd, p, want, (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        at += (uint64_t)got;
        bytes -= (uint64_t)got;
    }
    return true;
}

/* ---- validation ------------------------------------------------------------------------------ */

/* The checksum only tells a damaged file from the one that was written: anyone can write a file
 * with a matching checksum. So the arrays are checked as the graph the engines assume: offsets
 * from 0 to m, never decreasing; ids below n; rows sorted by (neighbour, weight) as the builder
 * leaves them; weights finite; the CSC exactly the CSR transposed, or, for an undirected graph,
 * the CSR its own transpose.
 *
 * The transpose is checked in the same streaming pass over the rows, by a multiset hash: the sum of
 * a keyed hash of every edge (source, destination, weight bits), over the CSR and over the CSC.
 * Rows sorted on both sides make each array the one sorted order of its multiset, so equal
 * multisets mean equal arrays. The key is drawn for each read, so a file cannot be made to collide
 * (a false match has probability about 2^-64). Comparing positions instead (each thread walking
 * the CSR for its share of destinations) reads the CSC at random: on R-MAT 20, 15 times the
 * file's read time, where the hashes add a third to a page-cached load. That exact walk still runs
 * when the sums differ, to name the vertex. */

#define READ_FAIL(...) mg__error(ctx, MG_PARSE_ERROR, "mg_graph_read: " __VA_ARGS__)

/* A key the file cannot know: the clock, the process and an address of this run. */
static uint64_t read_key(const void *p) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return mix64((uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)p ^
                 (uint64_t)getpid() << 20);
}

/* Edge s -> d of weight bits w as hashed: the source's key (source_key below, once per row of the
 * CSR) with the destination and weight, mixed (sums of separate hashes of the pair and of the
 * weight would not see weights swapped between edges). For one source the (d, w) are distinct, so
 * are the hashes; across sources the keys differ unpredictably. */
static inline uint64_t source_key(uint64_t key, uint32_t s) { return mix64(s ^ key); }
static inline uint64_t edge_hash(uint64_t source, uint32_t d, uint32_t w) {
    return mix64(source ^ ((uint64_t)d << 32 | w));
}

static mg_status check_offsets(mg_context ctx, const char *path, const char *name, uint32_t n,
                               uint64_t m, const uint64_t *off) {
    if (off[0] != 0) return READ_FAIL("%s: invalid %s: the first offset is not 0", path, name);
    if (off[n] != m)
        return READ_FAIL("%s: invalid %s: the last offset is %llu, not the edge count %llu", path,
                         name, (unsigned long long)off[n], (unsigned long long)m);
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad) schedule(static)
    for (int64_t v = 0; v < (int64_t)n; v++)
        if (off[v] > off[v + 1] && v < bad) bad = v;
    if (bad != INT64_MAX)
        return READ_FAIL("%s: invalid %s: offsets decrease after vertex %lld", path, name,
                         (long long)bad);
    return MG_SUCCESS;
}

/* One pass over rows [from, to) of a CSR (or with csc a CSC, whose rows are destinations) of n
 * vertices, whose edge e is at indices[e - base] (weights alike; the offsets are the whole
 * graph's): ids, order, finite weights (the CSR's: the CSC's equal them once the sums match), and
 * the multiset hashes: sums[0] of the edges as source -> destination, sums[1] (with both) of them
 * reversed. */
static mg_status check_rows(mg_context ctx, const char *path, uint32_t n, const uint64_t *offsets,
                            uint32_t from, uint32_t to, uint64_t base, const uint32_t *indices,
                            const uint32_t *w, mg_weight_type wt, bool csc, bool both, uint64_t key,
                            uint64_t sums[2]) {
    const bool weighted = wt != MG_WEIGHT_NONE, is_int = wt == MG_WEIGHT_INT32;
    int64_t bad_id = INT64_MAX, bad_weight = INT64_MAX, bad_order = INT64_MAX;
    uint64_t sum = 0, reversed = 0;
#pragma omp parallel for reduction(min : bad_id, bad_weight, bad_order) \
    reduction(+ : sum, reversed) schedule(dynamic, 1024)
    for (int64_t v = from; v < (int64_t)to; v++) {
        const uint64_t row_key = source_key(key, (uint32_t)v);
        uint64_t prev = 0;
        for (uint64_t e = offsets[v]; e < offsets[v + 1]; e++) {
            const uint32_t u = indices[e - base], wb = weighted ? w[e - base] : 0;
            if (u >= n && (int64_t)e < bad_id) bad_id = (int64_t)e;
            float f = 0;
            if (weighted && !is_int && !csc) memcpy(&f, &wb, sizeof f);
            if (!isfinite(f) && (int64_t)e < bad_weight) bad_weight = (int64_t)e;
            const uint64_t order = (uint64_t)u << 32 | (weighted ? mg__weight_key(is_int, wb) : 0);
            if (e > offsets[v] && order < prev && v < bad_order) bad_order = v;
            prev = order;
            if (csc || both) {
                const uint64_t h = edge_hash(source_key(key, u), (uint32_t)v, wb);
                if (csc) sum += h;
                else reversed += h;
            }
            if (!csc) sum += edge_hash(row_key, u, wb);
        }
    }
    const char *name = csc ? "CSC" : "CSR", *other = csc ? "source" : "destination";
    if (bad_id != INT64_MAX)
        return READ_FAIL("%s: invalid %s: edge %lld (of vertex %u) has %s %u, not below n = %u",
                         path, name, (long long)bad_id, mg__row_of_edge(offsets, n, (uint64_t)bad_id + 1) - 1,
                         other, indices[bad_id - (int64_t)base], n);
    if (bad_weight != INT64_MAX) {
        float f;
        memcpy(&f, &w[bad_weight - (int64_t)base], sizeof f);
        return READ_FAIL("%s: the edge %u -> %u has the weight %g: weights must be finite", path,
                         mg__row_of_edge(offsets, n, (uint64_t)bad_weight + 1) - 1,
                         indices[bad_weight - (int64_t)base], (double)f);
    }
    if (bad_order != INT64_MAX)
        return READ_FAIL("%s: invalid %s: the edges of vertex %lld are not sorted by %s and weight",
                         path, name, (long long)bad_order, other);
    sums[0] = sum;
    sums[1] = reversed;
    return MG_SUCCESS;
}

/* The exact check behind a mismatch of the sums, naming the least vertex whose row of `in` is not
 * that of out transposed (in == out: whose in-edges are not its out-edges). Each thread owns a
 * range of destinations (an equal share of the edges) and walks all of out in order, so each
 * destination receives its in-edges in order of source and weight, the order in's row holds them;
 * cursor is in's offsets, advanced (no atomics). */
static mg_status name_transpose_mismatch(mg_context ctx, const char *path, uint32_t n, uint64_t m,
                                         const mg__csr *out, const mg__csr *in, bool weighted,
                                         bool directed) {
    uint64_t *cursor = mg__malloc(mg__mul_size((size_t)n + 1, sizeof *cursor));
    if (cursor == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_graph_read: %s: out of memory checking the CSC (%u vertices)", path, n);
    memcpy(cursor, in->offsets, ((size_t)n + 1) * sizeof *cursor);
    const uint32_t *ow = out->weights, *iw = in->weights;
    int64_t bad = INT64_MAX;
#pragma omp parallel reduction(min : bad)
    {
        const uint32_t t = (uint32_t)omp_get_thread_num(), T = (uint32_t)omp_get_num_threads();
        const uint32_t lo = mg__row_of_edge(in->offsets, n, m * t / T);
        const uint32_t hi = t + 1 == T ? n : mg__row_of_edge(in->offsets, n, m * (t + 1) / T);
        for (uint32_t s = 0; s < n; s++)
            for (uint64_t e = out->offsets[s]; e < out->offsets[s + 1]; e++) {
                const uint32_t d = out->indices[e];
                if (d - lo >= hi - lo) continue;
                const uint64_t p = cursor[d]++;
                if ((p >= in->offsets[d + 1] || in->indices[p] != s ||
                     (weighted && iw[p] != ow[e])) && d < bad)
                    bad = d;
            }
    }
    mg__free(cursor);
    if (bad == INT64_MAX) /* the sums differ, so some row must: this is a bug of the reader */
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_graph_read: %s: the edge sums of the CSR "
                         "and the CSC differ, but no row does", path);
    if (directed)
        return READ_FAIL("%s: the CSC does not match the CSR transposed (vertex %lld)", path,
                         (long long)bad);
    return READ_FAIL("%s: flagged undirected, but its CSR is not symmetric (the in-edges of vertex "
                     "%lld differ from its out-edges)", path, (long long)bad);
}

/* The whole graph as read (offsets, rows, then the transpose). */
static mg_status check_graph(mg_context ctx, const char *path, const mg_graph g) {
    mg_status status = MG_SUCCESS;
    const uint64_t key = read_key(g);
    uint64_t out[2], in[2];
    MG__TRY(check_offsets(ctx, path, "CSR", g->n, g->m, g->out.offsets));
    MG__TRY(check_rows(ctx, path, g->n, g->out.offsets, 0, g->n, 0, g->out.indices, g->out.weights,
                       g->weight_type, false, !g->directed, key, out));
    if (g->directed) {
        MG__TRY(check_offsets(ctx, path, "CSC", g->n, g->m, g->in.offsets));
        MG__TRY(check_rows(ctx, path, g->n, g->in.offsets, 0, g->n, 0, g->in.indices, g->in.weights,
                           g->weight_type, true, false, key, in));
    }
    if (out[0] != (g->directed ? in[0] : out[1]))
        status = name_transpose_mismatch(ctx, path, g->n, g->m, &g->out, &g->in,
                                         g->weight_type != MG_WEIGHT_NONE, g->directed);
cleanup:
    return status;
}

#undef READ_FAIL

static void free_graph(mg_graph g) {
    if (g == NULL) return;
    if (g->in.offsets != g->out.offsets) {
        mg__free(g->in.offsets);
        mg__free(g->in.indices);
        mg__free(g->in.weights);
    }
    mg__free(g->out.offsets);
    mg__free(g->out.indices);
    mg__free(g->out.weights);
    g->magic = MG__MAGIC_FREED;
    mg__free(g);
}

static mg_status alloc_csr(mg_context ctx, const char *path, mg__csr *c, uint32_t n, uint64_t m,
                           bool weighted) {
    c->offsets = mg__malloc(mg__mul_size((size_t)n + 1, sizeof *c->offsets));
    c->indices = mg__malloc(mg__mul_size((size_t)m, sizeof *c->indices));
    if (weighted) c->weights = mg__malloc(mg__mul_size((size_t)m, 4));
    if (c->offsets == NULL || c->indices == NULL || (weighted && c->weights == NULL))
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_graph_read: %s: out of memory for a graph of %u vertices and %llu "
                         "edges",
                         path, n, (unsigned long long)m);
    return MG_SUCCESS;
}

/* Reads and checks the header of the file open on fd (size bytes): every field, and the sizes it
 * implies against the file's. */
static mg_status read_header(mg_context ctx, const char *path, int fd, uint64_t size, mgb_header *h) {
    mg_status status = MG_SUCCESS;
    if (size < sizeof *h)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: truncated binary file: %llu bytes, less than the %zu-byte "
                 "header",
                 path, (unsigned long long)size, sizeof *h);
    if (!pread_full(fd, h, sizeof *h, 0))
        MG__FAIL(ctx, MG_IO_ERROR, "mg_graph_read: %s: cannot read the header: %s", path,
                 strerror(errno));
    if (memcmp(h->magic, MGB_MAGIC, sizeof h->magic) != 0)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: not an mgraph binary file (bad magic number)", path);
    if (h->byte_order != MGB_BYTE_ORDER)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: written on a machine of the other byte order", path);
    if (h->version != MGB_VERSION)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: binary format version %u, this library reads version %u",
                 path, h->version, MGB_VERSION);
    if (h->header_bytes != sizeof *h || (h->flags & ~MGB_FLAG_DIRECTED) != 0 ||
        h->weight_type < MG_WEIGHT_NONE || h->weight_type > MG_WEIGHT_FLOAT ||
        (h->index_base != 0 && h->index_base != 1))
        MG__FAIL(ctx, MG_PARSE_ERROR, "mg_graph_read: %s: corrupt header (bad header fields)",
                 path);
    if (h->n > MG__IO_MAX_VERTICES || h->m > (UINT64_MAX >> 8))
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: corrupt header (n = %llu, m = %llu out of range)", path,
                 (unsigned long long)h->n, (unsigned long long)h->m);
    const bool directed = (h->flags & MGB_FLAG_DIRECTED) != 0;
    const bool weighted = h->weight_type != MG_WEIGHT_NONE;
    /* n < 2^32 and m < 2^56 keep these sums far from overflow */
    const uint64_t per_csr = (h->n + 1) * 8 + h->m * 4 + (weighted ? h->m * 4 : 0);
    const uint64_t payload = per_csr * (directed ? 2 : 1);
    if (payload != h->payload_bytes)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: corrupt header (payload size %llu does not match n and m)",
                 path, (unsigned long long)h->payload_bytes);
    if (size != sizeof *h + payload)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: %s binary file: the header needs %llu bytes, the file has "
                 "%llu",
                 path, size < sizeof *h + payload ? "truncated" : "oversized",
                 (unsigned long long)(sizeof *h + payload), (unsigned long long)size);

cleanup:
    return status;
}

mg_status mg__read_binary(mg_context ctx, const char *path, const mg_read_options *opts,
                          mg_graph *g) {
    mg_status status = MG_SUCCESS;
    mg_graph graph = NULL;
    int fd = -1;
    uint64_t size = 0;
    (void)opts; /* weights and directedness are applied by the caller */
    *g = NULL;
    MG__TRY(mg__io_open_regular(ctx, path, &fd, &size));

    mgb_header h;
    MG__TRY(read_header(ctx, path, fd, size, &h));
    const bool directed = (h.flags & MGB_FLAG_DIRECTED) != 0;
    const bool weighted = h.weight_type != MG_WEIGHT_NONE;
    const uint32_t n = (uint32_t)h.n;
    const uint64_t m = h.m;

    graph = mg__calloc(1, sizeof *graph);
    if (graph == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_graph_read: out of memory");
    graph->magic = MG__MAGIC_GRAPH;
    graph->n = n;
    graph->m = m;
    graph->directed = directed;
    graph->index_base = h.index_base;
    graph->weight_type = (mg_weight_type)h.weight_type;
    MG__TRY(alloc_csr(ctx, path, &graph->out, n, m, weighted));
    if (directed)
        MG__TRY(alloc_csr(ctx, path, &graph->in, n, m, weighted));
    else
        graph->in = graph->out; /* ownership as in core/graph.c: in shares out's arrays */

    section s[6];
    const int count = sections_of(n, m, directed, weighted, &graph->out, &graph->in, s);
    errno = 0;
    uint64_t at = sizeof h;
    for (int i = 0; i < count; at += s[i].bytes, i++)
        if (!pread_full(fd, s[i].data, s[i].bytes, at))
            MG__FAIL(ctx, MG_IO_ERROR, "mg_graph_read: %s: read failed: %s", path,
                     errno ? strerror(errno) : "unexpected end of file");
    if (checksum_of(&h, s, count) != h.checksum)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "mg_graph_read: %s: checksum mismatch: the file is corrupt", path);
    MG__TRY(check_graph(ctx, path, graph));
    mg__graph_finish(graph);
    *g = graph;
    graph = NULL;

cleanup:
    if (fd >= 0) close(fd);
    free_graph(graph);
    return status;
}

/* ---- a rank's share ------------------------------------------------------------------------------ */


#define SHARE_FAIL(st, ...) MG__FAIL(ctx, st, "mg_graph_read: " __VA_ARGS__)

/* *sum += the block terms (array_hash's) of the array of len bytes at file offset at whose block
 * number is rank modulo size: the ranks' sums add up to the array's. */
static mg_status blocks_sum(mg_context ctx, const char *path, int fd, uint64_t at, uint64_t len,
                            int rank, int size, uint64_t *sum) {
    mg_status status = MG_SUCCESS;
    const int64_t blocks = (int64_t)((len + HASH_BLOCK - 1) / HASH_BLOCK);
    uint64_t mine = 0, bad_at = UINT64_MAX;
    int no_memory = 0;
#pragma omp parallel reduction(+ : mine) reduction(min : bad_at) reduction(max : no_memory)
    {
        unsigned char *buffer = mg__malloc(HASH_BLOCK);
        if (buffer == NULL) no_memory = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t k = rank; k < blocks; k += size) {
            if (buffer == NULL || bad_at != UINT64_MAX) continue;
            const uint64_t lo = (uint64_t)k * HASH_BLOCK, hi = lo + HASH_BLOCK < len ? lo + HASH_BLOCK : len;
            if (!pread_full(fd, buffer, hi - lo, at + lo)) bad_at = at + lo;
            else mine += block_term(buffer, (size_t)(hi - lo), k);
        }
        mg__free(buffer);
    }
    if (no_memory) SHARE_FAIL(MG_OUT_OF_MEMORY, "%s: out of memory checking the checksum", path);
    if (bad_at != UINT64_MAX)
        SHARE_FAIL(MG_IO_ERROR, "%s: read failed at byte %llu (the file changed while read, or cannot be read)",
                   path, (unsigned long long)bad_at);
    *sum += mine;
cleanup:
    return status;
}

/* The CSR's rows [from, to) checked (check_rows) and their edge hashes added to sums, read a
 * piece of about 2^24 edges at a time (a row longer than that in one piece). */
static mg_status stream_rows(mg_context ctx, const char *path, int fd, uint64_t indices_at,
                             uint64_t weights_at, uint32_t n, const uint64_t *off, uint32_t from,
                             uint32_t to, mg_weight_type wt, uint64_t key, uint64_t sums[2]) {
    mg_status status = MG_SUCCESS;
    const uint64_t piece = (uint64_t)1 << 24;
    const bool weighted = wt != MG_WEIGHT_NONE;
    uint32_t *idx = NULL, *w = NULL;
    uint64_t capacity = 0;
    for (uint32_t r0 = from; r0 < to;) {
        uint32_t r1 = r0 + 1;
        while (r1 < to && off[r1 + 1] - off[r0] <= piece) r1++;
        const uint64_t a = off[r0], b = off[r1];
        if (b - a > capacity) {
            mg__free(idx);
            mg__free(w);
            capacity = b - a;
            idx = mg__malloc(mg__mul_size((size_t)capacity, 4));
            w = weighted ? mg__malloc(mg__mul_size((size_t)capacity, 4)) : NULL;
            if (idx == NULL || (weighted && w == NULL))
                SHARE_FAIL(MG_OUT_OF_MEMORY, "%s: out of memory reading %llu edges of the CSR", path,
                           (unsigned long long)capacity);
        }
        errno = 0;
        if (!pread_full(fd, idx, (b - a) * 4, indices_at + a * 4) ||
            (weighted && !pread_full(fd, w, (b - a) * 4, weights_at + a * 4)))
            SHARE_FAIL(MG_IO_ERROR, "%s: read failed: %s", path, errno ? strerror(errno) : "unexpected end of file");
        uint64_t part[2];
        MG__TRY(check_rows(ctx, path, n, off, r0, r1, a, idx, w, wt, false, false, key, part));
        sums[0] += part[0];
        r0 = r1;
    }
cleanup:
    mg__free(idx);
    mg__free(w);
    return status;
}

mg_status mg__read_binary_share(mg_context ctx, const char *path, const mg_read_options *opts,
                                mg_graph *g, bool *whole) {
    mg_status status = MG_SUCCESS;
    const mg_ranks *R = &ctx->dist->ranks;
    const int rank = R->rank, size = R->size;
    const char *what = "mg_graph_read";
    int fd = -1;
    uint64_t file_size = 0, *in_off = NULL, *out_off = NULL, *in_degree = NULL, sums[6] = {0};
    uint32_t *first = NULL;
    mg__coo own;
    memset(&own, 0, sizeof own);
    *g = NULL;
    *whole = false;

    /* 1. the header, on every rank; a file read as the other directedness is rebuilt whole */
    mgb_header h;
    status = mg__io_open_regular(ctx, path, &fd, &file_size);
    if (status == MG_SUCCESS) status = read_header(ctx, path, fd, file_size, &h);
    MG__TRY(mg__dist_agree_status(ctx, status, what));
    const bool directed = (h.flags & MGB_FLAG_DIRECTED) != 0;
    const bool weighted = h.weight_type != MG_WEIGHT_NONE;
    const mg_weight_type wt = (mg_weight_type)h.weight_type;
    const uint32_t n = (uint32_t)h.n;
    const uint64_t m = h.m;
    if (opts->undirected != -1 && (opts->undirected == 1) == directed) {
        *whole = true;
        goto cleanup;
    }

    /* 2. the offsets (the whole graph's) and this rank's part of the checksum, then the ranges */
    const uint64_t per_csr = (h.n + 1) * 8 + m * 4 + (weighted ? m * 4 : 0);
    uint64_t at[6], bytes[6];
    int count = 0;
    for (int c = 0; c < (directed ? 2 : 1); c++) {
        const uint64_t base = sizeof h + (uint64_t)c * per_csr;
        at[count] = base;
        bytes[count++] = (h.n + 1) * 8;
        at[count] = base + (h.n + 1) * 8;
        bytes[count++] = m * 4;
        if (weighted) {
            at[count] = base + (h.n + 1) * 8 + m * 4;
            bytes[count++] = m * 4;
        }
    }
    /* the rows a share takes: the CSC's (an undirected graph's CSR is its own transpose) */
    const int in_section = directed ? (weighted ? 3 : 2) : 0;
    out_off = mg__malloc(mg__mul_size((size_t)n + 1, 8));
    in_off = directed ? mg__malloc(mg__mul_size((size_t)n + 1, 8)) : out_off;
    in_degree = mg__malloc(mg__mul_size((size_t)n + 1, 8));
    first = mg__malloc(((size_t)size + 1) * sizeof *first);
    if (out_off == NULL || in_off == NULL || in_degree == NULL || first == NULL)
        status = mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_read: %s: out of memory for the offsets of %u vertices",
                           path, n);
    errno = 0;
    if (status == MG_SUCCESS &&
        (!pread_full(fd, out_off, bytes[0], at[0]) ||
         (directed && !pread_full(fd, in_off, bytes[in_section], at[in_section]))))
        status = mg__error(ctx, MG_IO_ERROR, "mg_graph_read: %s: read failed: %s", path,
                           errno ? strerror(errno) : "unexpected end of file");
    for (int i = 0; i < count && status == MG_SUCCESS; i++)
        status = blocks_sum(ctx, path, fd, at[i], bytes[i], rank, size, &sums[i]);
    MG__TRY(mg__dist_agree_status(ctx, status, what));
    /* the checksum from every rank's blocks: a damaged file is called so before anything in it
     * is looked at, as when it is read whole */
    int rc = R->allreduce_sum_u64(R->user, sums, (size_t)count);
    if (rc != 0) SHARE_FAIL(MG_IO_ERROR, "%s: the ranks' sum of the checksum failed (code %d)", path, rc);
    uint64_t hashes[6];
    for (int i = 0; i < count; i++) hashes[i] = array_finish(sums[i], bytes[i]);
    if (checksum_from(&h, hashes, count) != h.checksum)
        SHARE_FAIL(MG_PARSE_ERROR, "%s: checksum mismatch: the file is corrupt", path);
    /* every rank holds the same offsets: each finds what is wrong with them */
    MG__TRY(check_offsets(ctx, path, "CSR", n, m, out_off));
    if (directed) MG__TRY(check_offsets(ctx, path, "CSC", n, m, in_off));
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < (int64_t)n; v++) in_degree[v] = in_off[v + 1] - in_off[v];
    mg__dist_choose_ranges(in_degree, n, size, first);
    mg__free(in_degree);
    in_degree = NULL;
    const uint32_t lo = first[rank], hi = first[rank + 1];

    /* 3. rank 0's key for the edge hashes, then this rank's rows: its share's in-edges, and
     * for a directed graph the same rows of the CSR, checked and hashed, not kept */
    uint64_t key = rank == 0 ? read_key(&h) : 0;
    rc = R->broadcast(R->user, &key, sizeof key, 0);
    if (rc != 0) SHARE_FAIL(MG_IO_ERROR, "%s: the ranks' broadcast of a key failed (code %d)", path, rc);
    const uint64_t a = in_off[lo], b = in_off[hi];
    status = mg__coo_init(ctx, &own, b - a, weighted && !opts->ignore_weights,
                          weighted && !opts->ignore_weights ? wt : MG_WEIGHT_NONE);
    uint32_t *w = NULL;
    if (status == MG_SUCCESS && weighted) {
        w = own.weights != NULL ? own.weights : mg__malloc(mg__mul_size((size_t)(b - a), 4) + 4);
        if (w == NULL) status = mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_read: %s: out of memory for %llu edges",
                                          path, (unsigned long long)(b - a));
    }
    errno = 0;
    if (status == MG_SUCCESS &&
        (!pread_full(fd, own.src, (b - a) * 4, at[in_section + 1] + a * 4) ||
         (weighted && !pread_full(fd, w, (b - a) * 4, at[in_section + 2] + a * 4))))
        status = mg__error(ctx, MG_IO_ERROR, "mg_graph_read: %s: read failed: %s", path,
                           errno ? strerror(errno) : "unexpected end of file");
    uint64_t mine[2] = {0, 0}, csr[2] = {0, 0};
    if (status == MG_SUCCESS)
        status = check_rows(ctx, path, n, in_off, lo, hi, a, own.src, w, wt, directed, !directed, key, mine);
    if (status == MG_SUCCESS && directed)
        status = stream_rows(ctx, path, fd, at[1], weighted ? at[2] : 0, n, out_off, lo, hi, wt, key, csr);
    if (w != own.weights) mg__free(w);
    MG__TRY(mg__dist_agree_status(ctx, status, what));

    /* 4. the transpose, from every rank's sums of edge hashes */
    uint64_t sides[2] = {directed ? csr[0] : mine[1], mine[0]};
    rc = R->allreduce_sum_u64(R->user, sides, 2);
    if (rc != 0) SHARE_FAIL(MG_IO_ERROR, "%s: the ranks' sum of edge hashes failed (code %d)", path, rc);
    if (sides[0] != sides[1]) {
        if (directed)
            SHARE_FAIL(MG_PARSE_ERROR, "%s: the CSC does not match the CSR transposed (read on one rank, "
                       "the message names the vertex)", path);
        SHARE_FAIL(MG_PARSE_ERROR, "%s: flagged undirected, but its CSR is not symmetric (read on one "
                   "rank, the message names the vertex)", path);
    }

    /* 5. the share: the arcs into this rank's range */
    own.n = n;
    own.m = b - a;
    own.index_base = h.index_base;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = lo; v < (int64_t)hi; v++)
        for (uint64_t e = in_off[v]; e < in_off[v + 1]; e++) own.dst[e - a] = (uint32_t)v;
    status = mg__dist_build_own(ctx, g, &own, first, directed);
    first = NULL;
    MG__TRY(status);
    (*g)->index_base = h.index_base;

cleanup:
    if (fd >= 0) close(fd);
    if (in_off != out_off) mg__free(in_off);
    mg__free(out_off);
    mg__free(in_degree);
    mg__free(first);
    mg__coo_free(&own);
    return status;
}

#undef SHARE_FAIL
