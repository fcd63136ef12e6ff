/*
 * mg_internal.h — object layouts, error handling and memory helpers shared inside the library.
 * Nothing here is installed; every name is prefixed mg__ (internal) or MG__ (macros).
 */
#ifndef MG_INTERNAL_H
#define MG_INTERNAL_H

#include "mgraph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Magic numbers catch a freed or garbage handle (GraphBLAS style). */
#define MG__MAGIC_CONTEXT  0x6d67637478ULL
#define MG__MAGIC_GRAPH    0x6d67677268ULL
#define MG__MAGIC_VECTOR   0x6d67766563ULL
#define MG__MAGIC_FRONTIER 0x6d6766726eULL
#define MG__MAGIC_MATRIX   0x6d676d6174ULL
#define MG__MAGIC_DENSE    0x6d67646e73ULL
#define MG__MAGIC_FREED    0xdeadbeefULL

#define MG__ERROR_SIZE 1024

struct mg_context_s {
    uint64_t magic;
    mg_backend backend;
    mg_mode mode;
    mg_engine engine;
    int threads;
    char error[MG__ERROR_SIZE];
    mg_advance_info last_advance;
    mg_trace_fn trace;
    void *trace_user;
    /* Scratch space an engine keeps between calls (owned and freed by that engine). */
    void *engine_workspace;
    void (*free_engine_workspace)(void *workspace);
    /* The same for the GPU engine (device scratch and pinned counters, frontier/sparse_engine.cu). */
    void *gpu_workspace;
    void (*free_gpu_workspace)(void *workspace);
    /* The GPU hybrid's scratch (frontier/gpu_hybrid.cu) and its sample fraction. */
    void *gpu_hybrid;
    void (*free_gpu_hybrid)(void *hybrid);
    /* The scratch of user-defined programs' CPU steps (frontier/udf.c). */
    void *cpu_udf;
    void (*free_cpu_udf)(void *workspace);
    /* The scratch of user-defined programs' GPU steps (frontier/udf_gpu.cu). */
    void *gpu_udf;
    void (*free_gpu_udf)(void *workspace);
    double sample_fraction;
    /* The ranks this context is one of (mg_context_set_ranks; core/dist.c), or NULL. */
    struct mg__dist *dist;
};

/* Compressed sparse rows: offsets[n+1], indices[m], weights[m] (NULL when unweighted). */
typedef struct {
    uint64_t *offsets;
    uint32_t *indices;
    void *weights;
} mg__csr;

/* A verifier's serial result and the arguments it was computed for (compared byte for byte). */
#define MG__REFERENCE_SLOTS 5
struct mg__reference {
    void *key;
    size_t key_bytes;
    void *values;
};

/* slot's reference when it was computed for this key, else NULL. */
const void *mg__graph_reference(const struct mg_graph_s *g, int slot, const void *key, size_t key_bytes);
/* Keeps values (from mg__malloc; owned by the graph from here on, freed with it even on failure) as
 * slot's reference for key, replacing the one before. Only MG_OUT_OF_MEMORY can fail. */
mg_status mg__graph_keep_reference(struct mg_graph_s *g, int slot, const void *key, size_t key_bytes,
                                   void *values);

struct mg_graph_s {
    uint64_t magic;
    uint32_t n;
    uint64_t m;
    bool directed;
    int index_base;
    mg_weight_type weight_type;
    double weight_min, weight_max; /* cached by mg__graph_finish                          */
    double build_seconds;          /* CSR/CSC construction time                            */
    mg__csr out;   /* by source: out-edges                                          */
    mg__csr in;    /* by destination: in-edges; shares out's arrays when undirected */
    /* The device form (preprocess/), built on demand and owned by the graph. */
    void *gpu;
    void (*free_gpu)(void *gpu);
    /* The verifiers' serial results (algos/check_*.c), the last one of each, kept so that checking
     * several engines' results of one call costs one serial run. */
    struct mg__reference *reference[MG__REFERENCE_SLOTS];
    /* A rank's share of a graph split over ranks (core/dist.h): NULL for a whole graph. Then out and
     * in hold only the edges into the rank's vertices, and n, m, directed describe the share. */
    struct mg__graph_dist *dist;
};

struct mg_vector_s {
    uint64_t magic;
    const struct mg_graph_s *graph; /* for size and (later) the engine's vertex numbering */
    mg_type type;
    uint32_t n;
    void *data;                      /* host values, n elements of the type's C type      */
    /* Device residency (core/gpu_vector.cu, CUDA builds only): d_data holds n values in the
     * engine's numbering (preprocess/gpu_preprocess.h); on_device says the current values are
     * there and `data` is stale. d_data stays allocated once made, until the vector is freed. */
    void *d_data;
    bool on_device;
};

/* A frontier keeps a vertex list, a bitmap, or both; each is valid only when its flag says so. */
struct mg_frontier_s {
    uint64_t magic;
    const struct mg_graph_s *graph;
    uint32_t n;
    uint32_t count;        /* number of vertices (always valid)        */
    uint32_t *list;        /* list_capacity entries (n, except copies) */
    uint32_t list_capacity;
    bool list_valid;
    uint64_t *bitmap;      /* (n + 63) / 64 words                      */
    bool bitmap_valid;
    /* Device residency (core/gpu_frontier.cu, CUDA builds only): when on_device the set lives in
     * d_list / d_bitmap (engine ids, each valid when its flag says so) and the host forms above are
     * stale; count stays valid on the host either way. */
    bool on_device;
    uint32_t *d_list;      /* d_list_capacity entries                  */
    uint32_t d_list_capacity;
    uint32_t *d_spare;     /* d_spare_capacity entries: an in-place selection's output, swapped
                              with d_list (no allocation per call)      */
    uint32_t d_spare_capacity;
    bool d_list_valid;
    uint64_t *d_bitmap;    /* (n + 63) / 64 words                      */
    bool d_bitmap_valid;
    unsigned long long *d_counter; /* one device word for counts computed on the device */
};

/* A sparse matrix (core/matrix.c). A view of a graph (mg_graph_matrix) points at the graph's arrays
 * and owns none of them, except `converted` (int32 weights as doubles). */
struct mg_matrix_s {
    uint64_t magic;
    uint32_t rows, cols;
    uint64_t nnz;
    mg_values values;
    bool declared_symmetric;
    int index_base;              /* the source file's numbering (1 for Matrix Market), for output */
    double build_seconds;
    mg__csr csr;                 /* rows + 1 offsets; weights holds the values (NULL: pattern)   */
    bool owns_csr;
    mg__csr csc;                 /* built on first use (offsets NULL until then)                 */
    bool owns_csc;
    void *converted;             /* a view's own value array, or NULL                             */
    const struct mg_graph_s *graph; /* the graph a view looks at, or NULL                        */
    int symmetric_checked;       /* CG's symmetry check, cached: 0 not yet, 1 yes, -1 no          */
    /* Device forms (sparse/spmv_gpu.cu), built on first use and owned by the matrix. */
    void *gpu;
    void (*free_gpu)(void *gpu);
};

/* A dense row-major matrix (core/dense.c). On a GPU context the sparse kernels keep values on the
 * device: d_data (rows * cols values, same layout) is current when on_device, and `data` then is
 * stale until mg__dense_need_host. */
struct mg_dense_s {
    uint64_t magic;
    uint32_t rows, cols;
    mg_type type;                /* MG_FLOAT or MG_DOUBLE */
    void *data;
    void *d_data;
    bool on_device;
};

/* Edge lists as read from a file or made by a generator, before the graph is built. */
typedef struct {
    uint32_t n;
    uint64_t m;
    uint64_t capacity;
    uint32_t *src;
    uint32_t *dst;
    void *weights;          /* int32_t or float per edge, or NULL */
    mg_weight_type weight_type;
    int index_base;         /* numbering of the source file       */
    bool symmetric;         /* the file declared itself undirected */
} mg__coo;

/* ---- errors ------------------------------------------------------------------------------------ */

/* Records a printf-style message in ctx (if not NULL) and returns status. */
mg_status mg__error(mg_context ctx, mg_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One cleanup path per function (LAGraph's TRY): on failure jump to the label `cleanup` with the
 * status in the local variable `status`. */
#define MG__TRY(call)                                                                              \
    do {                                                                                           \
        status = (call);                                                                           \
        if (status != MG_SUCCESS) goto cleanup;                                                    \
    } while (0)

#define MG__FAIL(ctx, st, ...)                                                                     \
    do {                                                                                           \
        status = mg__error((ctx), (st), __VA_ARGS__);                                              \
        goto cleanup;                                                                              \
    } while (0)

/* Checks a handle's magic; `what` names the call and argument for the message. */
mg_status mg__check_context(const mg_context ctx);
mg_status mg__check_graph(mg_context ctx, const mg_graph g, const char *what);
/* The same, and g whole: a share of a graph split over ranks is refused (MG_UNAVAILABLE) by the
 * calls that need every edge (writing, permuting, statistics, the sparse layer's view). */
mg_status mg__check_whole_graph(mg_context ctx, const mg_graph g, const char *what);
mg_status mg__check_vector(mg_context ctx, const mg_vector v, const char *what);
mg_status mg__check_frontier(mg_context ctx, const mg_frontier f, const char *what);

/* ---- memory ------------------------------------------------------------------------------------ */

/* All library allocations go through these so a test can fail the k-th one (LAGraph's brutal
 * tests). They return NULL on failure (or on an injected failure); the caller reports
 * MG_OUT_OF_MEMORY. mg__malloc(0) returns a valid pointer. */
void *mg__malloc(size_t bytes);
void *mg__calloc(size_t count, size_t size);
void *mg__realloc(void *p, size_t bytes);
void mg__free(void *p);
/* count * size, or SIZE_MAX when it overflows (so the allocation fails cleanly). */
size_t mg__mul_size(size_t count, size_t size);

/* Test hook: fail the allocation that comes `k` allocations from now (k >= 1); 0 disables.
 * Returns how many allocations happened since the last call (so a test can sweep k). */
uint64_t mg__inject_alloc_failure(uint64_t k);

/* ---- coo and graph construction ---------------------------------------------------------------- */

mg_status mg__coo_init(mg_context ctx, mg__coo *coo, uint64_t capacity, bool weighted,
                       mg_weight_type weight_type);
/* Grows the arrays to hold at least `capacity` edges. */
mg_status mg__coo_reserve(mg_context ctx, mg__coo *coo, uint64_t capacity);
void mg__coo_free(mg__coo *coo);

/* Builds g from coo (ids already 0-based and < coo->n). Consumes nothing; coo stays valid. On a
 * context with several ranks g is this rank's share (core/dist.c), else the whole graph. */
mg_status mg__graph_from_coo(mg_context ctx, mg_graph *g, const mg__coo *coo,
                             const mg_graph_options *opts);
/* The whole graph of coo, whatever the context's ranks (what a share is built with). */
mg_status mg__graph_build(mg_context ctx, mg_graph *g, const mg__coo *coo,
                          const mg_graph_options *opts);

/* g's edges as a coo that mg__graph_from_coo (or the device build) turns back into the same graph:
 * every stored arc of a directed graph, each undirected edge once (source <= destination). */
mg_status mg__graph_edges(mg_context ctx, const mg_graph g, mg__coo *coo);
/* The same list made a piece at a time: *start (n + 1 entries, mg__malloc'ed) gets the position of
 * each vertex's first edge in it and start[n] its length; mg__graph_edges_fill then writes edges
 * [first, first + count) of it into src, dst and, when w is not NULL, the 4-byte weights (w only
 * for a weighted graph). The fill runs on OpenMP threads. */
mg_status mg__graph_edge_starts(mg_context ctx, const mg_graph g, uint64_t **start);
void mg__graph_edges_fill(const mg_graph g, const uint64_t *start, uint64_t first, uint64_t count,
                          uint32_t *src, uint32_t *dst, uint32_t *w);

/* Computes the cached properties of a graph whose arrays are complete (the weight range). Every
 * constructor calls it, including the binary reader. */
void mg__graph_finish(mg_graph g);

mg_status mg__check_matrix(mg_context ctx, const mg_matrix A, const char *what);
/* The same, also taking a view of a share of a graph split over ranks (mg_graph_matrix on it),
 * which mg__check_matrix refuses (MG_UNAVAILABLE): mg_spmv runs on one, nothing else yet. */
mg_status mg__check_matrix_or_share(mg_context ctx, const mg_matrix A, const char *what);
/* Whether A views one rank's share of a split graph (its CSR: the arcs into the rank's vertices). */
static inline bool mg__matrix_is_share(const struct mg_matrix_s *A) {
    return A->graph != NULL && A->graph->dist != NULL;
}
/* *A from checked coordinates (ids in range, rows and cols below 2^31): CSR with rows sorted and
 * duplicates summed; `call` names the public call in messages (core/matrix.c). */
mg_status mg__matrix_build(mg_context ctx, const char *call, mg_matrix *A, uint32_t rows,
                           uint32_t cols, uint64_t nnz, const uint32_t *row_ids,
                           const uint32_t *col_ids, const void *values, mg_values type,
                           bool declared_symmetric, int index_base);
mg_status mg__check_dense(mg_context ctx, const mg_dense X, const char *what);

/* ---- dense residency (core/gpu_dense.cu; without CUDA, no-ops in core/dense.c) ------------------ */

/* Makes X's host values current (downloading them if on_device; on_device becomes false). Every
 * host read of a dense object's values goes through this. */
mg_status mg__dense_need_host(mg_context ctx, const mg_dense X);
/* Frees d_data (a dense object being freed). */
void mg__dense_release_device(mg_dense X);

/* ---- readers and writers (core/io) ------------------------------------------------------------- */

mg_status mg__read_matrix_market(mg_context ctx, const char *path, const mg_read_options *opts,
                                 mg__coo *coo);
mg_status mg__read_snap(mg_context ctx, const char *path, const mg_read_options *opts,
                        mg__coo *coo);
mg_status mg__read_dimacs(mg_context ctx, const char *path, const mg_read_options *opts,
                          mg__coo *coo);
/* The binary format holds a built graph, so it bypasses the coo. */
mg_status mg__read_binary(mg_context ctx, const char *path, const mg_read_options *opts,
                          mg_graph *g);
/* On a context of several ranks: this rank's share of a binary file, reading only the offsets,
 * its own rows and its part of the checksum and the transpose check (no rank holds the whole
 * graph). *whole: opts asks for the other directedness, nothing made (read it whole instead). */
mg_status mg__read_binary_share(mg_context ctx, const char *path, const mg_read_options *opts,
                                mg_graph *g, bool *whole);
mg_status mg__write_matrix_market(mg_context ctx, const mg_graph g, const char *path);
mg_status mg__write_binary(mg_context ctx, const mg_graph g, const char *path);

/* ---- parallel building blocks (core/parallel.c) ------------------------------------------------- */

/* Exclusive prefix sum of a[0..n) in place; returns the total. */
uint64_t mg__exclusive_scan_u64(uint64_t *a, size_t n);

/* ---- frontier forms (core/frontier.c) ----------------------------------------------------------- */

/* Make the list / bitmap form valid (computing it from the other form when needed). A frontier is a
 * cache of both forms, so these take a const frontier: only the representation changes. */
mg_status mg__frontier_need_list(mg_context ctx, const mg_frontier f);
mg_status mg__frontier_need_bitmap(mg_context ctx, const mg_frontier f);
/* Allocate both arrays without computing anything (for an engine about to overwrite f). */
mg_status mg__frontier_reserve(mg_context ctx, mg_frontier f);
/* Exchanges the contents of two frontiers of one graph (each handle keeps its identity). */
void mg__frontier_swap(mg_frontier a, mg_frontier b);

static inline bool mg__bit_test(const uint64_t *bitmap, uint32_t v) {
    return (bitmap[v >> 6] >> (v & 63)) & 1u;
}

/* Runs the statements (...) with T typedef'd to the C type of mg_type t. */
#define MG__WITH_TYPE(t, ...)                                                                     \
    switch (t) {                                                                                   \
    case MG_INT32: case MG_VERTEX: { typedef int32_t T; __VA_ARGS__; } break;                             \
    case MG_INT64: { typedef int64_t T; __VA_ARGS__; } break;                                             \
    case MG_FLOAT: { typedef float T; __VA_ARGS__; } break;                                               \
    case MG_DOUBLE: { typedef double T; __VA_ARGS__; } break;                                             \
    }

/* ---- the CUDA device (core/gpu_device.c; MG_UNAVAILABLE in builds without CUDA) ------------------ */

/* What the engine needs to know about a device (sizes in bytes). */
typedef struct {
    int device;                       /* CUDA device ordinal                                 */
    char name[256];
    size_t total_memory, free_memory;
    int sm_count;
    size_t shared_per_block_optin;    /* the most a block may ask for (H100: 227 KB)         */
    size_t shared_per_sm;
    int cc_major, cc_minor;           /* compute capability                                  */
} mg__gpu_info;

/* Fills info for device ordinal `device` (-1: the current device). MG_UNAVAILABLE with the reason
 * when there is no device or no usable driver, MG_INVALID_ARGUMENT for an ordinal out of range. */
mg_status mg__gpu_query(mg_context ctx, int device, mg__gpu_info *info);
/* The number of CUDA devices; MG_UNAVAILABLE with the driver's reason (named after `who`) when
 * there is none or no usable driver. */
mg_status mg__gpu_device_count(mg_context ctx, const char *who, int *count);
/* Waits for the default stream's work (mg_context_finish on a GPU context); a fault in it is
 * MG_DEVICE_ERROR naming `who`. */
mg_status mg__gpu_finish(mg_context ctx, const char *who);
/* Tells the device's default stream-ordered pool to keep the memory freed into it. By default it
 * hands freed memory back to the driver at every synchronisation, so each temporary (core's dbuf,
 * the baseline engine's scratch) became a real driver allocation again, every BFS level. */
mg_status mg__gpu_keep_pool(mg_context ctx, int device);
/* Makes device `index` modulo the device count the calling thread's current device (a rank's GPU,
 * core/dist.c) and returns it in *device; MG_UNAVAILABLE where there is no device or no CUDA. */
mg_status mg__gpu_use_device(mg_context ctx, int index, int *device);

/* ---- MultiGraph's in-degree groups (Table 3.1), for host and device code ----------------------- */

#if defined(__CUDACC__)
#define MG__HOST_DEVICE __host__ __device__
#else
#define MG__HOST_DEVICE
#endif

#define MG__DEGREE_GROUPS 6

/* Group 1..6 of a vertex with in-degree d: 1: d >= 2048, 2: [1024, 2048), 3: [512, 1024),
 * 4: [256, 512), 5: [128, 256), 6: d < 128. */
static inline MG__HOST_DEVICE int mg__degree_group(uint64_t d) {
    return d >= 2048 ? 1 : d >= 1024 ? 2 : d >= 512 ? 3 : d >= 256 ? 4 : d >= 128 ? 5 : 6;
}

/* Order-preserving unsigned images of int32 and float weight bits (for non-NaN values), so that
 * sorting packed (neighbour, weight-key) pairs puts the least of parallel edges' weights first —
 * on the CPU (core/graph.c) and the GPU (preprocess/) alike. */
static inline MG__HOST_DEVICE uint32_t mg__weight_key(bool is_int, uint32_t bits) {
    if (is_int) return bits ^ 0x80000000u;
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
static inline MG__HOST_DEVICE uint32_t mg__weight_from_key(bool is_int, uint32_t key) {
    if (is_int) return key ^ 0x80000000u;
    return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
}

/* ---- small helpers ----------------------------------------------------------------------------- */

static inline size_t mg__bitmap_words(uint32_t n) { return ((size_t)n + 63) / 64; }

/* The first row whose edges start at or after edge position e (offsets has n + 1 entries); the row
 * holding edge e is mg__row_of_edge(offsets, n, e + 1) - 1. */
static inline uint32_t mg__row_of_edge(const uint64_t *offsets, uint32_t n, uint64_t e) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] < e) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static inline size_t mg__type_size(mg_type t) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: case MG_FLOAT: return 4;
    default: return 8;
    }
}

#endif /* MG_INTERNAL_H */
