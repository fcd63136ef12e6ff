/*
 * mgraph.h — the public C API of mgraph, a graph analytics framework (MultiGraph design).
 *
 * Model: a graph is a sparse edge matrix; an algorithm is a loop of mg_advance() calls, each running
 * an *edge program* (contribution / combine / apply) from the vertices of an input frontier along
 * their edges, producing new destination values and an output frontier.  Vectors and frontiers are
 * bound to one graph and indexed by the caller's vertex ids (0-based, in the graph's numbering);
 * whatever reordering an engine does internally never shows through this API.
 *
 * Conventions (after SuiteSparse:GraphBLAS and cuGraph's C API):
 *  - every call returns an mg_status; on failure mg_context_error(ctx) says which call, which
 *    argument and, for files, which file and line;
 *  - handles are opaque; mg_x_free(&h) frees and sets h to NULL (freeing NULL is fine);
 *  - the library never prints and never exits.
 */
#ifndef MGRAPH_H
#define MGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MG_VERSION_MAJOR 0
#define MG_VERSION_MINOR 1
#define MG_VERSION_PATCH 0

/* ------------------------------------------------------------------------------------------------ */
/* Status and errors                                                                                */
/* ------------------------------------------------------------------------------------------------ */

typedef enum {
    MG_SUCCESS = 0,
    MG_INVALID_ARGUMENT,   /* a NULL handle, a value out of range, mismatched objects           */
    MG_INVALID_OBJECT,     /* a freed or garbage handle (caught by the object's magic number)   */
    MG_OUT_OF_MEMORY,      /* host or device allocation failed                                  */
    MG_IO_ERROR,           /* a file could not be opened, read or written                       */
    MG_PARSE_ERROR,        /* a file's content is malformed (the message names file and line)   */
    MG_UNAVAILABLE,        /* the requested backend is not built or no device is present        */
    MG_DEVICE_ERROR,       /* a CUDA call failed (the message names the call)                   */
    MG_NOT_CONVERGED,      /* an iterative algorithm hit its iteration limit before tolerance   */
    MG_INTERNAL_ERROR,
    MG_RANGE_ERROR,        /* a result does not fit its value type (BC's path counts)           */
    MG_BREAKDOWN,          /* an iterative solver cannot go on (CG: A not positive definite)    */
    MG_COMPILE_ERROR       /* a user-defined program's source did not compile (the message holds
                              the compiler's output)                                            */
} mg_status;

/* A short, static name for a status ("MG_PARSE_ERROR"). */
const char *mg_status_string(mg_status status);

/* ------------------------------------------------------------------------------------------------ */
/* Context: the backend, its threads or device, and the last error message                          */
/* ------------------------------------------------------------------------------------------------ */

typedef struct mg_context_s *mg_context;

typedef enum {
    MG_BACKEND_AUTO = 0, /* the GPU if one is present and the library was built with CUDA, else CPU */
    MG_BACKEND_CPU,
    MG_BACKEND_GPU
} mg_backend;

/* How an engine runs each step: pushing from the frontier, pulling into destinations, or (GPU) the
 * dense-frontier engine. */
typedef enum {
    MG_MODE_AUTO = 0, /* per call, by the engine's cost estimate (direction optimisation) */
    MG_MODE_SPARSE,   /* always push: scan the frontier's edges (MultiGraphS on the GPU) */
    MG_MODE_PULL,     /* always scan the eligible destinations' edges (bottom-up)        */
    MG_MODE_DENSE,    /* the GPU's dense-frontier engine (MultiGraphD: 2D edge blocks,
                         every source's edges streamed, inactive ones skipped); on the CPU
                         the same as MG_MODE_PULL                                       */
    MG_MODE_HYBRID    /* GPU: per step, the mode whose cost measured on a sample is least
                         (frontier/gpu_hybrid.cu); on the CPU the same as MG_MODE_AUTO.
                         Not the default yet: its samples cost more than its choices save
                         (docs/PERFORMANCE.md)                                           */
} mg_mode;

/* Which GPU engine runs mg_advance. MultiGraph's sparse- and dense-frontier engines are the product;
 * the baseline is a Gunrock-style engine on plain CSR (load-balanced advance over the frontier's
 * edges, global atomics, fused filter; direction-optimising for MG_COMBINE_ANY), kept as the honest
 * comparison. The CPU backend has one engine and ignores this. */
typedef enum { MG_ENGINE_MULTIGRAPH = 0, MG_ENGINE_BASELINE } mg_engine;

/* Creates a context on the CPU backend (only MG_OUT_OF_MEMORY can fail); pick another backend with
 * mg_context_set_backend. */
mg_status mg_context_create(mg_context *ctx);
mg_status mg_context_free(mg_context *ctx);

/* MG_BACKEND_AUTO resolves at once: the GPU where the library has CUDA and a device is usable, else
 * the CPU (not an error). Asking for MG_BACKEND_GPU where it is unavailable fails with
 * MG_UNAVAILABLE and leaves the context as it was. Starting a device takes a few tenths of a second
 * (the driver, the context, the memory pool): for small graphs the CPU finishes first (the mgraph
 * command's auto rule, README). */
mg_status mg_context_set_backend(mg_context ctx, mg_backend backend);
mg_backend mg_context_backend(const mg_context ctx);
/* Number of CPU threads (0: OpenMP's default). */
mg_status mg_context_set_threads(mg_context ctx, int threads);
mg_status mg_context_set_mode(mg_context ctx, mg_mode mode);
mg_status mg_context_set_engine(mg_context ctx, mg_engine engine);
/* The fraction of a frontier (push) or of the destinations (pull) the GPU hybrid runs to estimate
 * a step's cost, in (0, 1]; default MG_DEFAULT_SAMPLE_FRACTION. */
#define MG_DEFAULT_SAMPLE_FRACTION 0.0625
mg_status mg_context_set_sample_fraction(mg_context ctx, double fraction);
/* Waits until the device work that calls on ctx queued has finished: the sparse kernels (mg_spmv,
 * mg_spmm, mg_sddmm) return once their kernels are queued, leaving results on the device, so calls
 * follow each other without a host round trip. Reading a result (mg_dense_extract, _get, _write)
 * waits by itself; this is for timing a call, or for learning of a device fault (MG_DEVICE_ERROR,
 * named) before reading. Nothing to wait for on the CPU backend. */
mg_status mg_context_finish(mg_context ctx);
/* The message of the last failed call on this context ("" if none). Valid until the next call. */
const char *mg_context_error(const mg_context ctx);
/* True when this build of the library contains the CUDA backend. */
bool mg_built_with_cuda(void);

/*
 * Several ranks: one process per GPU (or per share of the CPUs), started by mpirun, all making the
 * same calls in the same order on their own context (SPMD, as MPI programs are written). The library
 * does not link MPI: the caller hands it the collectives below, and <mgraph_mpi.h> (installed beside
 * this header) fills them from an MPI communicator in one call, mg_context_set_mpi(ctx, comm).
 *
 * Once set, graphs made on ctx (mg_graph_read, mg_generate, mg_graph_create_from_coo) are split in
 * one dimension: the vertices into `size` contiguous ranges of about equal cost (in-edges, and a
 * fixed part per vertex with any; each range a multiple of 64 vertices), rank r holding the stored edges INTO its range (destination-owned), with CSR and
 * CSC of those. From a binary file each rank reads only its share; a text file's lines are parsed
 * in parts, one a rank, and the R-MAT, Kronecker and uniform generators make a part of the edge
 * list on each rank, parts the ranks then hand round; grids and geometric graphs are made whole on
 * every rank, which keeps its share. The graph each rank builds holds only that share. Vectors and frontiers stay whole on every rank and hold the same
 * values everywhere: mg_advance runs each rank's edges, which complete its own destinations, then
 * hands each range from its owner to every rank (the CPU through allgatherv; GPU contexts through
 * NCCL between the devices, each rank on device local_rank % devices). Vector and frontier
 * operations run on each rank's whole copy, without communication, but for mg_vector_l1_distance,
 * each rank's own vertices' part summed over the ranks in rank order (the same bits on every
 * rank), and the reductions, rank 0's result taken by all; the algorithms (algos/) run unchanged. mg_graph_num_edges and mg_graph_is_directed describe the whole graph, mg_graph_csr /
 * mg_graph_csc the rank's share; MG_CONTRIB_SRC_DIV_OUTDEG, mg_vector_degree and
 * mg_frontier_out_edges count whole-graph degrees (mg_graph_is_share tells a share). Not (yet) on a
 * split graph, MG_UNAVAILABLE on every rank: user-defined programs (so CDLP), MG_EDGES_IN programs
 * on a directed graph (a share holds in-edges only: CC and BC need the graph undirected), and what
 * needs every edge on one rank: mg_graph_write, mg_graph_permute, mg_graph_get_stats, triangle
 * counting and LCC, the verifiers (mg_check_*: check a split run's result, whole on every rank, on
 * the graph made again on a context without ranks, as `mgraph ALGO --validate` does under mpirun),
 * and of the sparse layer all but mg_spmv. mg_graph_matrix of a share is a view of it (its CSR and
 * CSC the share's, mg_matrix_nnz the whole graph's) on which mg_spmv runs over the ranks: y = A^T x
 * on any graph and y = A x on an undirected one, each rank its own rows, then every range from its
 * owner to all, as an advance (A x on a directed graph: MG_UNAVAILABLE, its rows' arcs are spread
 * over the ranks). With size 1 nothing is split and nothing is exchanged.
 *
 * Failures: the calls that make a graph, mg_advance, mg_spmv, the reductions and the exchanges
 * agree on their status before every collective, so where one rank fails (out of memory, a bad
 * file) all return an error, the others' naming "other rank". Calls without communication (vector
 * and frontier operations) fail on their rank alone; the algorithms (algos/) end in one more
 * agreement, so a failure inside one fails it on every rank, and an algorithm of the caller's own
 * gets the same with mg_ranks_begin and mg_ranks_end.
 *
 * Each collective returns 0 on success, else a nonzero code (reported as MG_IO_ERROR naming it).
 */
typedef struct {
    int rank, size;   /* this process's rank, 0 .. size - 1, and the number of ranks              */
    int local_rank;   /* its rank among those on its host (which GPU it takes)                    */
    /* In place: rank r's count[r] bytes at buffer + offset[r] reach every rank's same place. */
    int (*allgatherv)(void *user, void *buffer, const uint64_t *offset, const uint64_t *count);
    /* bytes at buffer on rank root reach every rank's buffer */
    int (*broadcast)(void *user, void *buffer, uint64_t bytes, int root);
    /* In place: values[i] becomes the sum over ranks of values[i], i < count. */
    int (*allreduce_sum_u64)(void *user, uint64_t *values, uint64_t count);
    void *user;
} mg_ranks;
/* Makes ctx one rank of `ranks` (copied). Call it before making the graphs, vectors and frontiers
 * the ranks share, and on a GPU context before its first device work (it picks the device).
 * MG_INVALID_ARGUMENT for a missing collective or rank out of range; MG_UNAVAILABLE when the ranks'
 * GPUs are asked for (MG_BACKEND_GPU) in a build without NCCL. */
mg_status mg_context_set_ranks(mg_context ctx, const mg_ranks *ranks);
/* This rank and the number of ranks (0 and 1 for a context without ranks). */
mg_status mg_context_get_ranks(const mg_context ctx, int *rank, int *size);
/* An algorithm over several ranks, its calls made alike on every rank (as the built-in ones are):
 * begin it with mg_ranks_begin and end it with mg_ranks_end, whatever its status. Where a call
 * failed on one rank alone (a vector or frontier operation, which has no collective), the other
 * ranks meet it in their next agreement (every collective starts with one) or in this one, and
 * every rank returns a failure: its own, or MG_IO_ERROR naming `what` and how many other ranks
 * failed. Without ranks, mg_ranks_end returns status. */
mg_status mg_ranks_begin(mg_context ctx);
mg_status mg_ranks_end(mg_context ctx, mg_status status, const char *what);

/* ------------------------------------------------------------------------------------------------ */
/* Graphs                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct mg_graph_s *mg_graph;

typedef enum { MG_WEIGHT_NONE = 0, MG_WEIGHT_INT32, MG_WEIGHT_FLOAT } mg_weight_type;

typedef struct {
    bool directed;         /* false: every edge is stored in both directions (symmetrised)        */
    bool keep_self_loops;  /* default false: self-loops are dropped                               */
    bool keep_duplicates;  /* default false: of parallel edges one is kept, with the least weight */
} mg_graph_options;

/* Defaults: directed, self-loops and duplicates dropped. */
void mg_graph_options_init(mg_graph_options *opts);

/* Builds a graph of n vertices from m edges src[i] -> dst[i] (0-based ids < n). weights is NULL or
 * an array of m int32_t (MG_WEIGHT_INT32) or float (MG_WEIGHT_FLOAT). The arrays are copied. */
mg_status mg_graph_create_from_coo(mg_context ctx, mg_graph *g, uint32_t n, uint64_t m,
                                   const uint32_t *src, const uint32_t *dst, const void *weights,
                                   mg_weight_type weight_type, const mg_graph_options *opts);
mg_status mg_graph_free(mg_graph *g);

typedef enum {
    MG_FORMAT_AUTO = 0, /* by extension: .mtx, .txt/.el/.wel/.edges (SNAP), .gr (DIMACS), .mgb */
    MG_FORMAT_MATRIX_MARKET,
    MG_FORMAT_SNAP,
    MG_FORMAT_DIMACS,
    MG_FORMAT_BINARY
} mg_format;

typedef struct {
    mg_format format;
    /* Directedness: -1 as the file says (a symmetric Matrix Market file is undirected, everything
     * else directed), 0 force directed, 1 force undirected (symmetrise). */
    int undirected;
    bool keep_self_loops;
    bool keep_duplicates;
    bool ignore_weights;   /* load only the structure                                   */
    bool allow_negative_weights; /* default false: a negative weight is a parse error    */
    /* Called now and then while a large file loads (fraction in [0,1]); may be NULL. */
    void (*progress)(double fraction, void *user);
    void *progress_user;
    /* The most vertices a text file (Matrix Market, SNAP, DIMACS) may make: a header's count or a
     * SNAP file's largest id + 1. 0 (the default): 2^22 + 4 per byte of the file, which no real
     * graph file reaches but which stops a corrupt header from costing gigabytes (about 24 bytes
     * per vertex) before anything fails. Set it to allow a file with more isolated vertices. A
     * binary file stores its offsets, so its size already bounds its vertices. */
    uint64_t max_vertices;
} mg_read_options;

void mg_read_options_init(mg_read_options *opts);

/* Reads a graph file. Errors name the file and the line. */
mg_status mg_graph_read(mg_context ctx, mg_graph *g, const char *path, const mg_read_options *opts);
/* Writes Matrix Market (MG_FORMAT_MATRIX_MARKET) or the binary format (MG_FORMAT_BINARY); with
 * MG_FORMAT_AUTO the extension decides. The file is written as mg_output writes (below), so a
 * failed write never leaves a partial file at path. */
mg_status mg_graph_write(mg_context ctx, const mg_graph g, const char *path, mg_format format);

/* An output file that appears whole or not at all. mg_output_open creates a new temporary file
 * "<path>.tmp.<random>" beside path, exclusively (an existing name, a planted symbolic link
 * included, is never opened) with mode 0666 less the umask, and gives the stream to write to;
 * mg_output_commit flushes it, syncs it to disk and renames it over path; mg_output_free before a
 * commit removes it, leaving path as it was. Where path is a symbolic link, its target is the file
 * replaced (the link stays); a link to nothing is refused. A character device or a FIFO
 * (/dev/null, a pipe) is written through, not replaced: its write errors (ENOSPC on /dev/full)
 * come from the writes and the commit, and there is nothing to take back. A directory or any
 * other kind of file is refused. Errors name the path. */
typedef struct mg_output_s *mg_output;
mg_status mg_output_open(mg_context ctx, mg_output *out, const char *path, FILE **stream);
/* Commits the file and frees *out (set to NULL), also on failure, which leaves no temporary. */
mg_status mg_output_commit(mg_context ctx, mg_output *out);
/* Discards an uncommitted output (its temporary is removed); *out becomes NULL. NULL is fine. */
mg_status mg_output_free(mg_output *out);

/* LDBC Graphalytics datasets (the benchmark's specification, "Data format"): NAME.properties, Java
 * properties naming a vertex file (one id per line) and an edge file ("source destination" and,
 * when the graph has an edge property, its value) beside it, with arbitrary, non-contiguous
 * 64-bit ids; directedness, the algorithms to run and their parameters. */
typedef enum {
    MG_GA_BFS = 1 << 0,
    MG_GA_CDLP = 1 << 1,
    MG_GA_LCC = 1 << 2,
    MG_GA_PR = 1 << 3,
    MG_GA_SSSP = 1 << 4,
    MG_GA_WCC = 1 << 5
} mg_graphalytics_algorithm;

typedef struct {
    char name[256];          /* NAME: the properties file's name less ".properties"              */
    char vertex_file[4096];  /* graph.NAME.vertex-file, relative to the properties file's folder */
    char edge_file[4096];    /* graph.NAME.edge-file, the same                                   */
    bool directed;           /* graph.NAME.directed                                              */
    bool weighted;           /* graph.NAME.edge-properties.names lists a property (the weight)   */
    unsigned algorithms;     /* graph.NAME.algorithms: mg_graphalytics_algorithm bits            */
    uint64_t bfs_source;     /* graph.NAME.bfs.source-vertex (a file id)                          */
    uint64_t sssp_source;    /* graph.NAME.sssp.source-vertex                                     */
    uint32_t cdlp_iterations;/* graph.NAME.cdlp.max-iterations                                   */
    uint32_t pr_iterations;  /* graph.NAME.pr.num-iterations                                     */
    double pr_damping;       /* graph.NAME.pr.damping-factor                                     */
} mg_graphalytics_properties;

/* Parses path; every parameter an algorithm it lists needs must be there. Errors name the file
 * and the line (a line that is not "key = value", a repeated key, a bad value, an unknown
 * algorithm) or the key that is missing. */
mg_status mg_graphalytics_read_properties(mg_context ctx, const char *path,
                                          mg_graphalytics_properties *props);
/* Loads the graph props describes: vertex v (0..n-1) is the v-th smallest id of the vertex file, so
 * *ids (n entries, ascending, malloc'ed: free with free()) gives each vertex's file id and
 * orders like it (the smallest id of a component is its smallest vertex). Weights are read as
 * float, finite and non-negative; self loops are kept. *edges (may be NULL) gets the edge
 * lines, the |E| of the benchmark's EVPS. Errors name file and line: a bad line, a repeated vertex
 * id, an edge naming an id the vertex file lacks. */
mg_status mg_graphalytics_read(mg_context ctx, const mg_graphalytics_properties *props, mg_graph *g,
                               uint64_t **ids, uint64_t *edges);
/* *vertex = the vertex whose file id is id (a binary search of the ascending ids), or
 * MG_INVALID_ARGUMENT naming id when there is none. */
mg_status mg_graphalytics_vertex(mg_context ctx, const uint64_t *ids, uint32_t n, uint64_t id,
                                 uint32_t *vertex);
/* The parameters mg_graphalytics_write writes for g when given none: directed and weighted as g is;
 * every algorithm (sssp only when g is weighted: the benchmark's SSSP needs the weight property);
 * the bfs and sssp source the first vertex with the most out-edges, as a file id (vertex +
 * mg_graph_index_base(g)); pr damping 0.85 and 10 iterations; cdlp 10 iterations. name and the
 * file names are left empty (the writer takes them from its path). */
mg_status mg_graphalytics_default_properties(mg_context ctx, const mg_graph g,
                                             mg_graphalytics_properties *props);
/* Writes g as the Graphalytics dataset NAME: path is DIR/NAME.properties, and NAME.v (every vertex)
 * and NAME.e ("source destination", then the weight when g is weighted; an undirected edge once,
 * source <= destination) go beside it. Ids are g's vertices in its file's numbering (vertex +
 * mg_graph_index_base(g)), so mg_graphalytics_read gives back g's numbering. props (NULL:
 * mg_graphalytics_default_properties) gives the algorithms and their parameters, sources as file
 * ids; its name, file names, directed and weighted are path's and g's, not read. Each file is
 * written as mg_output writes (whole or not at all); all three are created before any is written
 * and the properties file, which names the other two, is renamed into place last, so a failed
 * write leaves no new dataset behind. Refused: a name that is not NAME.properties or holds
 * spaces, '=' or ':' (a properties key could not hold it); a graph with no vertices or a negative
 * weight (the reader takes neither); sssp on an unweighted graph; a source that is no vertex. */
mg_status mg_graphalytics_write(mg_context ctx, const mg_graph g, const char *path,
                                const mg_graphalytics_properties *props);

/* *out = g with vertex v renamed new_of_old[v] (a permutation of 0..n-1, checked: MG_INVALID_ARGUMENT
 * naming the first id out of range or repeated): the same edges, weights and directedness. For the
 * renumbering experiments (thesis Table 3.6) with mg_random_permutation. */
mg_status mg_graph_permute(mg_context ctx, const mg_graph g, const uint32_t *new_of_old, mg_graph *out);

uint32_t mg_graph_num_vertices(const mg_graph g);
/* Stored directed edges (an undirected edge counts twice, once per direction). */
uint64_t mg_graph_num_edges(const mg_graph g);
bool mg_graph_is_directed(const mg_graph g);
/* Whether g is one rank's share of a graph split over several ranks (see mg_ranks): mg_graph_csr
 * and mg_graph_csc then hold only the edges into this rank's vertices. */
bool mg_graph_is_share(const mg_graph g);
mg_weight_type mg_graph_weight_type(const mg_graph g);
/* Seconds spent building the graph's engine structures (the CSR and CSC, from the edge list) when
 * it was created; 0 for a graph loaded from the binary format, which stores them built. Front ends
 * report it as preprocessing, apart from reading the file. */
double mg_graph_build_seconds(const mg_graph g);
/* The least and largest stored edge weight (1 and 1 for an unweighted graph, 0 and 0 with no edges),
 * computed once when the graph is built. */
mg_status mg_graph_weight_range(const mg_graph g, double *min_weight, double *max_weight);
/* The numbering the graph's source file used: 1 for Matrix Market and DIMACS, 0 otherwise.
 * The API is 0-based; front ends add this to print ids as the file wrote them. */
int mg_graph_index_base(const mg_graph g);

/* Read-only views of the host CSR (out-edges, by source) and CSC (in-edges, by destination):
 * offsets has n+1 entries, indices m, weights m (NULL when unweighted). Valid while g lives. */
mg_status mg_graph_csr(const mg_graph g, const uint64_t **offsets, const uint32_t **indices,
                       const void **weights);
mg_status mg_graph_csc(const mg_graph g, const uint64_t **offsets, const uint32_t **indices,
                       const void **weights);

/* Degree statistics and the in-degree groups of MultiGraph (Table 3.1: group 1 in-degree >= 2048,
 * 2: [1024,2048), 3: [512,1024), 4: [256,512), 5: [128,256), 6: < 128). */
typedef struct {
    uint32_t n;
    uint64_t m;
    uint32_t max_out_degree, max_in_degree;
    double mean_degree;
    uint32_t isolated;          /* no in- and no out-edges */
    uint32_t zero_out_degree;   /* sinks (dangling in PageRank) */
    uint64_t self_loops;
    uint32_t group_vertices[6]; /* vertices in in-degree group 1..6 */
    uint64_t group_edges[6];    /* in-edges of those vertices      */
} mg_graph_stats;

mg_status mg_graph_get_stats(mg_context ctx, const mg_graph g, mg_graph_stats *stats);

/* ------------------------------------------------------------------------------------------------ */
/* The GPU: what device there is, and a graph's preprocessed device form                            */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    bool available;           /* false: no device, no usable driver, or a build without CUDA    */
    char reason[256];         /* why not, when unavailable                                      */
    char name[256];
    int device;               /* CUDA device ordinal                                            */
    size_t total_memory, free_memory;   /* bytes                                                */
    int sm_count;
    size_t shared_per_block, shared_per_sm; /* shared memory a block may use (opt-in), per SM   */
    int cc_major, cc_minor;   /* compute capability                                             */
} mg_gpu_info;

/* Describes the GPU the library would use (device 0). Succeeds whether or not there is one: see
 * info->available and info->reason. */
mg_status mg_gpu_query(mg_context ctx, mg_gpu_info *info);

typedef struct {
    double seconds;           /* preprocessing from the edge list on the device (CUDA events)   */
    double upload_seconds;    /* copying the edge list to the device first (not in seconds)     */
    double phase_seconds[5];  /* seconds by phase: symmetrise and filter, sort, renumber by     */
                              /* in-degree group, CSC, CSR (0 for an undirected graph)          */
    size_t device_bytes;      /* device memory the preprocessed graph holds                     */
    size_t csr_bytes;         /* a plain CSR of the same graph: (n+1)*8 + m*4 (+ m*4 weights)   */
    uint32_t group_vertices[6]; /* vertices in in-degree group 1..6 (Table 3.1)                 */
    double dense_seconds;     /* the dense-frontier engine's 2D blocks, built on first use (0:  */
    size_t dense_bytes;       /* not built yet): build time and device memory, both directions  */
} mg_gpu_graph_info;

/* Builds g's device form (CSR, CSC, in-degree groups made contiguous by renumbering) on the GPU
 * and keeps it with g (built once; freed with g), reporting its time and size. MG_UNAVAILABLE
 * without a usable GPU. */
mg_status mg_graph_gpu_prepare(mg_context ctx, const mg_graph g, mg_gpu_graph_info *info);

/* ------------------------------------------------------------------------------------------------ */
/* Vectors: one value per vertex of a graph                                                         */
/* ------------------------------------------------------------------------------------------------ */

typedef struct mg_vector_s *mg_vector;

typedef enum {
    MG_INT32 = 0,
    MG_INT64,
    MG_FLOAT,
    MG_DOUBLE,
    MG_VERTEX   /* int32 vertex ids (-1 for none); translated to the caller's numbering on read */
} mg_type;

mg_status mg_vector_create(mg_context ctx, mg_vector *v, const mg_graph g, mg_type type);
mg_status mg_vector_free(mg_vector *v);
mg_type mg_vector_type(const mg_vector v);
uint32_t mg_vector_size(const mg_vector v);

/* Scalars cross the API as double; integer types convert exactly within +-2^53 and saturate beyond
 * their range (so +infinity stores INT32_MAX / INT64_MAX, and INT64_MAX reads back as 2^63). */
mg_status mg_vector_get(mg_context ctx, const mg_vector v, uint32_t vertex, double *value);
mg_status mg_vector_set(mg_context ctx, mg_vector v, uint32_t vertex, double value);
/* Copies all values to/from a host array of the vector's C type (int32_t, int64_t, float, double). */
mg_status mg_vector_extract(mg_context ctx, const mg_vector v, void *values);
mg_status mg_vector_load(mg_context ctx, mg_vector v, const void *values);

/* ------------------------------------------------------------------------------------------------ */
/* Frontiers: sets of vertices; the engine converts between list and bitmap forms as it needs       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct mg_frontier_s *mg_frontier;

mg_status mg_frontier_create(mg_context ctx, mg_frontier *f, const mg_graph g);
mg_status mg_frontier_free(mg_frontier *f);
mg_status mg_frontier_clear(mg_context ctx, mg_frontier f);
mg_status mg_frontier_fill(mg_context ctx, mg_frontier f);  /* all vertices */
mg_status mg_frontier_add(mg_context ctx, mg_frontier f, uint32_t vertex);
mg_status mg_frontier_contains(mg_context ctx, const mg_frontier f, uint32_t vertex, bool *in);
mg_status mg_frontier_count(mg_context ctx, const mg_frontier f, uint32_t *count);
/* dst = src; dst then holds memory for src's vertices only, so keeping one copy per BFS level costs
 * O(n) in all, not O(n) per level. */
mg_status mg_frontier_copy(mg_context ctx, mg_frontier dst, const mg_frontier src);
mg_status mg_frontier_union(mg_context ctx, mg_frontier dst, const mg_frontier src); /* dst |= src */
/* Sum of the out-degrees of the frontier's vertices (the edges a push from it would scan). */
mg_status mg_frontier_out_edges(mg_context ctx, const mg_frontier f, uint64_t *edges);

typedef enum { MG_LT = 0, MG_LE, MG_GT, MG_GE, MG_EQ, MG_NE } mg_compare;

/* out = { v in in (all vertices when in is NULL) : values[v] <cmp> threshold }. out may be in. */
mg_status mg_frontier_select(mg_context ctx, mg_frontier out, const mg_frontier in,
                             const mg_vector values, mg_compare cmp, double threshold);

/* ------------------------------------------------------------------------------------------------ */
/* Vector operations (each over the vertices of mask, or all vertices when mask is NULL)            */
/* ------------------------------------------------------------------------------------------------ */

typedef enum { MG_OP_ADD = 0, MG_OP_SUB, MG_OP_MUL, MG_OP_DIV, MG_OP_MIN, MG_OP_MAX } mg_binary_op;

/* v[i] = value (saturating for integer types, see mg_vector_set; NaN is rejected for them) */
mg_status mg_vector_assign(mg_context ctx, mg_vector v, const mg_frontier mask, double value);
/* v[i] = i, the vertex's own id (an integer or MG_VERTEX vector) */
mg_status mg_vector_assign_ids(mg_context ctx, mg_vector v, const mg_frontier mask);
/* z[i] = a * x[i] + b   (z may be x; x may have another type: the result converts to z's, which
 * makes this also the conversion between vector types) */
mg_status mg_vector_affine(mg_context ctx, mg_vector z, const mg_frontier mask, double a,
                           const mg_vector x, double b);
/* z[i] = x[i] op y[i]   (z may be x or y; all of one type) */
mg_status mg_vector_ewise(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                          const mg_vector x, const mg_vector y);
/* sum (MG_OP_ADD), min or max of v over mask, as double */
mg_status mg_vector_reduce(mg_context ctx, const mg_vector v, const mg_frontier mask,
                           mg_binary_op op, double *result);
/* sum over i of |x[i] - y[i]| (in double: 0 exactly when the vectors are equal, for integers within
 * +-2^53) */
mg_status mg_vector_l1_distance(mg_context ctx, const mg_vector x, const mg_vector y,
                                double *result);
/* Indexed access (GraphBLAS's extract and assign with an index vector). y holds vertex ids in the
 * caller's numbering (on any backend): an integer or MG_VERTEX vector whose every value read must
 * lie in [0, n), else the call fails with MG_INVALID_ARGUMENT naming the least bad position and its
 * value, and changes nothing (a GPU context brings one word back to learn it). z must be another
 * object than x and y; x and z have one type (MG_VERTEX counts as int32). */
/* z[i] = x[y[i]]   (a gather; any value type) */
mg_status mg_vector_gather(mg_context ctx, mg_vector z, const mg_frontier mask, const mg_vector x,
                           const mg_vector y);
/* z[y[i]] = z[y[i]] op x[i] for each i of mask (a scatter with a combine: where several i name the
 * same target, all of them are combined into it, in any order). op MG_OP_MIN or MG_OP_MAX, and
 * z, x of an integer type (MG_INT32, MG_INT64, MG_VERTEX): the combines are atomic, and these are
 * the ones whose result does not depend on the order. The mask selects the positions i, not the
 * targets. */
mg_status mg_vector_scatter(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                            const mg_vector x, const mg_vector y);
/* v[i] = the out-degree (MG_EDGES_OUT) or in-degree (MG_EDGES_IN) of i */
/* MG_EDGES_BOTH: user-defined programs only (pull): a destination hears from its in- and
 * out-neighbours, an arc both ways counting twice; the same as MG_EDGES_OUT on an undirected graph. */
typedef enum { MG_EDGES_OUT = 0, MG_EDGES_IN, MG_EDGES_BOTH } mg_edges;
mg_status mg_vector_degree(mg_context ctx, mg_vector v, mg_edges which);

/* Union-find forests over a graph's vertices (Afforest's links and compression: Sutton, Ben-Nun and
 * Barak, "Optimizing Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS 2018).
 * parent is an MG_VERTEX or MG_INT32 vector holding a forest: every parent[v] is a vertex no larger
 * than v, the roots their own parents (mg_vector_assign_ids makes one tree a vertex). Both calls
 * check that first and fail naming the least vertex that breaks it, changing nothing.
 * mg_forest_link: for each vertex u of mask (all when NULL), the edges (u, v) at positions
 * first .. first + count - 1 of u's out-list (MG_EDGES_OUT) or in-list (MG_EDGES_IN) in the order
 * the graph stores them (fewer where the list ends; count UINT32_MAX: all from first) join the trees
 * of u and v: the larger root is hooked under the smaller, so every tree's root stays its least
 * vertex. Links run concurrently (compare-and-swap); which vertices end in one tree does not depend
 * on their order, the trees' shapes do.
 * mg_forest_compress: parent[v] = the root of v's tree, for each v of mask (all when NULL).
 * CPU contexts and whole graphs: a GPU context or a graph split over ranks gets MG_UNAVAILABLE. */
mg_status mg_forest_link(mg_context ctx, mg_vector parent, const mg_frontier mask, mg_edges which,
                         uint32_t first, uint32_t count);
mg_status mg_forest_compress(mg_context ctx, mg_vector parent, const mg_frontier mask);

/* ------------------------------------------------------------------------------------------------ */
/* Edge programs and the advance                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* What an active source s sends along an edge (s, d, w). x is the source vector. */
typedef enum {
    MG_CONTRIB_SRC = 0,        /* x[s]                                                 */
    MG_CONTRIB_SRC_PLUS_ONE,   /* x[s] + 1                                             */
    MG_CONTRIB_SRC_PLUS_WEIGHT,/* x[s] + w            (1 per edge when unweighted)     */
    MG_CONTRIB_SRC_TIMES_WEIGHT,/* x[s] * w           (1 per edge when unweighted)     */
    MG_CONTRIB_SRC_DIV_OUTDEG, /* x[s] / outdeg(s)    (along MG_EDGES_OUT only)        */
    MG_CONTRIB_SRC_ID          /* s                   (no source vector needed)        */
} mg_contribution;

/* How the contributions reaching one destination are merged. */
typedef enum {
    MG_COMBINE_MIN = 0,
    MG_COMBINE_MAX,
    MG_COMBINE_SUM,
    MG_COMBINE_ANY   /* any one of them: lets an engine stop at the first (BFS parents) */
} mg_combine;

/* How the combined value c merges into the destination value y[d], and when d joins the output
 * frontier. Except MG_APPLY_AFFINE, only destinations that received a contribution are touched. */
typedef enum {
    MG_APPLY_MIN = 0,  /* y = min(y, c);            joins if y decreased                        */
    MG_APPLY_MAX,      /* y = max(y, c);            joins if y increased                        */
    MG_APPLY_IF_UNSET, /* if y == unset: y = c;     joins if it was unset                       */
    MG_APPLY_ASSIGN,   /* y = c;                    joins                                       */
    MG_APPLY_ADD,      /* y = y + c;                joins if |y| > epsilon                      */
    MG_APPLY_AFFINE    /* y = alpha * c + beta for every eligible destination (c = 0 when none
                          arrived); joins if |y_new - y_old| > epsilon                         */
} mg_apply;

typedef struct {
    mg_contribution contribution;
    mg_combine combine;
    mg_apply apply;
    mg_edges edges;        /* MG_EDGES_OUT: s -> d along stored edges; MG_EDGES_IN: reversed    */
    double alpha, beta;    /* MG_APPLY_AFFINE                                                   */
    double epsilon;        /* MG_APPLY_ADD and MG_APPLY_AFFINE                                  */
    double unset;          /* MG_APPLY_IF_UNSET (default -1)                                    */
    bool mask_complement;  /* destinations eligible when NOT in the mask                        */
    /* A user-defined program (mg_program_define, below): when not NULL it replaces contribution,
     * combine, apply and their constants; edges and mask_complement still hold. */
    const struct mg_udf_s *udf;
} mg_program;

/* Defaults: MG_CONTRIB_SRC, MG_COMBINE_MIN, MG_APPLY_MIN, MG_EDGES_OUT, alpha 1, beta 0,
 * epsilon 0, unset -1, no complement. */
void mg_program_init(mg_program *p);

/*
 * One step of an edge program.
 *   in    the active sources (NULL: every vertex);
 *   x     the source values (NULL only for MG_CONTRIB_SRC_ID);
 *   y     the destination values, updated in place; may be x, in which case updates may be seen
 *         by later edges of the same step (allowed for the monotone MG_APPLY_MIN / MAX / IF_UNSET);
 *   mask  the eligible destinations (NULL: all; see mask_complement);
 *   out   receives the destinations that joined (NULL: not needed); must differ from in and mask.
 * x and y have one type (MG_VERTEX counts as int32); MG_CONTRIB_SRC_ID needs an integer y.
 */
mg_status mg_advance(mg_context ctx, const mg_graph g, const mg_program *program,
                     const mg_frontier in, const mg_vector x, mg_vector y, const mg_frontier mask,
                     mg_frontier out);

/* What mg_advance_loop does with each step's output besides making it the next frontier
 * (mg_loop_options_init: nothing, no step limit). */
typedef struct {
    uint32_t max_steps;   /* stop after this many steps (0: only when the frontier is empty)      */
    mg_vector step_of;    /* NULL, or an MG_INT32 / MG_INT64 vector: a vertex that joins in step k
                             (k = 0, 1, ...) gets first_step + k (BFS depths)                       */
    int64_t first_step;
    bool mask_grows;      /* the mask gains each step's output (a visited set)                     */
    mg_frontier far;      /* NULL, or: a joining vertex whose y >= far_from is added here instead of
                             to the next frontier (the far pile of near-far delta-stepping)        */
    double far_from;
} mg_loop_options;
void mg_loop_options_init(mg_loop_options *o);

/*
 * Steps of one edge program until the frontier runs dry: each step is mg_advance(frontier, x, y,
 * mask) and its output, less what opts sends to far, is the next frontier. Exactly the loop
 *     for (k = 0; frontier not empty && (max_steps == 0 || k < max_steps); k++) {
 *         mg_advance(ctx, g, program, frontier, x, y, mask, out);
 *         step_of[out] = first_step + k;  if (mask_grows) mask |= out;
 *         far |= { v in out : y[v] >= far_from };  frontier = { v in out : y[v] < far_from };
 *     }
 * (each clause only when its option is set), with *steps = k (may be NULL). On return frontier
 * holds what is left: empty, unless max_steps stopped the loop. The point is speed on graphs of
 * thousands of small steps (road networks, meshes): a GPU context runs stretches of steps whose
 * frontiers are cheap to push without returning to the host between them, which a loop of
 * mg_advance calls cannot (each call reports its output's size, so each waits for the device).
 * frontier, mask and far must be distinct; mask_grows needs a mask; step_of must differ from y.
 * With x = y (in place), the number of steps and what passes through far depend on the order the
 * engine runs in, as for mg_advance; the values once the frontier runs dry do not. Arguments are
 * checked before the first step; a step that fails (out of memory, a device error) ends the call
 * with the steps before it done. The trace hook still sees every step.
 */
mg_status mg_advance_loop(mg_context ctx, const mg_graph g, const mg_program *program,
                          mg_frontier frontier, const mg_vector x, mg_vector y, mg_frontier mask,
                          const mg_loop_options *opts, uint32_t *steps);

/*
 * User-defined programs: the contribution, combine and apply of an edge program written by the user,
 * the GraphBLAS way (its user-defined operators and GxB JIT). Defined once with mg_program_define,
 * then run by mg_advance like a built-in program (program.udf = the handle). T below is the value
 * type: int32_t (MG_INT32 and MG_VERTEX), int64_t, float or double; x and y are of that type and x
 * is required (it may be y; then the step may see its own updates, as for the built-in programs).
 *
 * Operands, for one edge s -> d (w the edge's weight, 1 when unweighted):
 *   contribution  a C expression of type T over  src, dst (uint32_t), src_value (T, x[s]),
 *                 weight (double) and src_degree (uint64_t: s's edges along the program's direction)
 *   combine       MG_UDF_REDUCE: a C expression of type T over a, b (T); associative and commutative,
 *                 with `identity` (an expression of type T) as its neutral element.
 *                 MG_UDF_ANY: no snippet; the combined value is one of the contributions that
 *                 arrived, which one unspecified (GraphBLAS's GxB_ANY monoid): a pull stops at a
 *                 destination's first active source, a push stores without a read-modify-write
 *                 (some whole contribution wins). What BFS needs: any parent will do.
 *                 MG_UDF_MODE: no snippet; the combined value is the most frequent contribution,
 *                 ties to the smallest (what label propagation needs)
 *   apply         C statements over dst (uint32_t), dst_value (T, y[d]: assign to change it),
 *                 combined (T) and found (int: a contribution arrived); set joins = 1 for d to join
 *                 the output frontier. Runs for each eligible destination that received a
 *                 contribution, or for every eligible destination when apply_all is set (combined
 *                 then is the identity, or 0 for a mode or ANY, where none arrived)
 *   source_only   the user's promise (as GraphBLAS's operator properties) that the contribution
 *                 reads only src, src_value and src_degree, not dst or weight (PageRank's
 *                 src_value / src_degree): the engine then evaluates it once per active source and
 *                 step into scratch kept on the context, and a pull reads one value per edge, as the
 *                 built-in MG_CONTRIB_SRC_DIV_OUTDEG does. dst and weight are meaningless then.
 *
 * Two ways to run it on the CPU, chosen by `runner`:
 *   MG_UDF_JIT   the snippets are compiled with the system C compiler ($CC, else cc, gcc or clang
 *                on PATH; CC names one program, no arguments) together with the engine's loops,
 *                so they inline, into a shared object loaded with dlopen. Objects are cached in
 *                memory (per process) and on disk in $MG_JIT_CACHE, else $XDG_CACHE_HOME/mgraph,
 *                else ~/.cache/mgraph, named by a hash of the generated source (snippets and type)
 *                and the compiler's path: a later process loads the object without compiling
 *                (mg_udf_get_info's jit_seconds is then 0). A snippet that does not compile gives
 *                MG_COMPILE_ERROR with the compiler's messages in mg_context_error (lines are
 *                counted within each snippet, named "contribution", "combine", "identity" and
 *                "apply"); no compiler gives MG_UNAVAILABLE. Constants belong in the source.
 *   MG_UDF_HOST  the function pointers below are called for each edge and destination: no compiler
 *                needed, at the cost of a call per edge; `user` is passed to each.
 * On a GPU context (MG_BACKEND_GPU) the snippets are compiled with NVRTC, at the program's first
 * mg_advance on a device, together with the GPU engine's loops for that device's architecture, and
 * cached like the CPU's objects: in memory for the process and in the same folder as a CUBIN named
 * by a hash of the generated source (snippets and type), the architecture and NVRTC's version, so a
 * later process loads it without compiling (mg_udf_get_info's gpu_ fields). The snippets are
 * compiled as CUDA C++ device code with no system headers: the <stdint.h> types and limits,
 * INFINITY, NAN, HUGE_VAL, FLT_MAX and DBL_MAX are defined, and the CUDA math functions (fabs,
 * sqrt, fmin, ...) are there; src and dst are the caller's vertex ids, as on the CPU. A snippet
 * that does not compile there gives MG_COMPILE_ERROR at that mg_advance with NVRTC's log (lines
 * named as above). An MG_UDF_HOST definition runs on the GPU only if its snippets were given too
 * (they are compiled there; the functions run on the CPU): without them mg_advance on a GPU context
 * is MG_UNAVAILABLE. A build without CUDA, or no GPU, is MG_UNAVAILABLE as for every GPU call.
 * Sums of floating-point values may differ in the last bits between the backends (the order of
 * the contributions differs).
 * The engine (either backend) pulls (each eligible destination scans its in-edges) or, for
 * MG_UDF_REDUCE or MG_UDF_ANY without apply_all, may push (atomic compare-and-swap of the combine,
 * or for ANY a plain store, into an accumulator); a mode combine only pulls, so MG_MODE_SPARSE with
 * one is MG_UNAVAILABLE. The CPU chooses as for the built-in programs (MG_UDF_ANY as
 * MG_COMBINE_ANY, pulling sooner since a pull stops early); the GPU with the same factors.
 *
 * Example: BFS parents (the built-in MG_CONTRIB_SRC_ID / MG_COMBINE_ANY / MG_APPLY_IF_UNSET
 * program; GraphBLAS's BFS uses the ANY_SECONDI semiring) on int32:
 *     mg_udf_def def;
 *     mg_udf_def_init(&def);
 *     def.type = MG_VERTEX;
 *     def.combine_kind = MG_UDF_ANY;
 *     def.contribution = "(int32_t)src";
 *     def.apply = "if (dst_value == -1) { dst_value = combined; joins = 1; }";
 *     mg_udf bfs;
 *     if (mg_program_define(ctx, &def, &bfs) != MG_SUCCESS) puts(mg_context_error(ctx));
 *     mg_program p;
 *     mg_program_init(&p);
 *     p.udf = bfs;
 *     p.mask_complement = true;
 *     mg_advance(ctx, g, &p, frontier, parent, parent, visited, next);  ...  mg_udf_free(&bfs);
 */
typedef struct mg_udf_s *mg_udf;

typedef enum { MG_UDF_REDUCE = 0, MG_UDF_MODE, MG_UDF_ANY } mg_udf_combine_kind;
typedef enum { MG_UDF_JIT = 0, MG_UDF_HOST } mg_udf_runner;

typedef struct {
    mg_type type;
    mg_udf_combine_kind combine_kind;
    mg_udf_runner runner;
    bool apply_all;
    bool source_only; /* the contribution reads only src, src_value and src_degree (see above) */
    /* MG_UDF_JIT: the snippets (copied by mg_program_define; combine and identity only for a
     * reduce). Also kept for MG_UDF_HOST when given: the GPU compiles them (see above). */
    const char *contribution, *combine, *identity, *apply;
    /* MG_UDF_HOST: the same operations as functions over pointers to T values. */
    void (*contribution_fn)(void *value, uint32_t src, uint32_t dst, const void *src_value,
                            double weight, uint64_t src_degree, void *user);
    void (*combine_fn)(void *a, const void *b, void *user);   /* *a = *a (+) *b (reduce only) */
    bool (*apply_fn)(void *dst_value, const void *combined, bool found, uint32_t dst, void *user);
    const void *identity_value; /* one T (reduce only), copied */
    void *user;
} mg_udf_def;

/* Defaults: MG_DOUBLE, MG_UDF_REDUCE, MG_UDF_JIT, apply_all and source_only false, everything
 * else NULL. */
void mg_udf_def_init(mg_udf_def *def);
/* Checks def and, for MG_UDF_JIT, compiles or loads it (see above); *udf is NULL on failure. */
mg_status mg_program_define(mg_context ctx, const mg_udf_def *def, mg_udf *udf);
mg_status mg_udf_free(mg_udf *udf);

typedef struct {
    double jit_seconds;  /* compiling the object at definition (0: loaded from a cache)   */
    bool memory_hit;     /* found already loaded in this process                           */
    bool disk_hit;       /* loaded from the cache folder without compiling                 */
    char object_path[1024]; /* the shared object (empty for MG_UDF_HOST)                    */
    /* The GPU's kernels, from the definition's first mg_advance on a GPU context (on a device
     * it had not run on yet); all 0 and empty before that. */
    double gpu_jit_seconds;  /* NVRTC's compilation (0: loaded from a cache)                  */
    bool gpu_memory_hit;     /* already loaded in this process                                */
    bool gpu_disk_hit;       /* the CUBIN read from the cache folder without compiling        */
    char gpu_object_path[1024]; /* the cached CUBIN                                           */
} mg_udf_info;
mg_status mg_udf_get_info(mg_context ctx, const mg_udf udf, mg_udf_info *info);

/* What the last mg_advance on this context did (for --trace and the TEPS figures). */
typedef struct {
    uint32_t frontier_vertices; /* active sources                              */
    uint64_t frontier_edges;    /* their edges along the program's direction    */
    uint64_t edges_scanned;     /* edges the engine actually looked at          */
    uint32_t output_vertices;   /* vertices that joined out                     */
    bool pulled;                /* the engine pulled into destinations          */
    bool dense;                 /* the GPU's dense-frontier engine ran the step */
    /* The GPU hybrid's costs for this step, in milliseconds, the least of which it ran: a mode's
     * time when it last ran a step of this frontier size on this graph, else its sampled estimate
     * halved (an estimate not yet checked by a run gets the benefit of the doubt). sampled false
     * and all 0 when the step needed none: a frontier too small to pull, or a forced mode. A mode
     * the hybrid could not try (the dense form did not fit) costs -1. */
    bool sampled;
    double est_sparse_ms, est_pull_ms, est_dense_ms;
    double seconds;             /* the whole call, sampling included                         */
} mg_advance_info;

mg_status mg_context_last_advance(const mg_context ctx, mg_advance_info *info);

/* Calls trace(info, user) after every mg_advance on this context (NULL turns it off): the hook
 * behind `--trace`, which prints one line per step. */
typedef void (*mg_trace_fn)(const mg_advance_info *info, void *user);
mg_status mg_context_set_trace(mg_context ctx, mg_trace_fn trace, void *user);

/* ------------------------------------------------------------------------------------------------ */
/* Built-in algorithms (algos/): each a short loop over the calls above                             */
/* ------------------------------------------------------------------------------------------------ */

/* BFS from source: depth (MG_INT32, -1 unreached) and, if parent is not NULL, a BFS-tree parent
 * (MG_VERTEX, the source is its own parent, -1 unreached). */
mg_status mg_bfs(mg_context ctx, const mg_graph g, uint32_t source, mg_vector depth,
                 mg_vector parent);

/* Single-source shortest paths over non-negative, finite weights (an unweighted graph has weight 1
 * per edge). dist is MG_INT64 for integer weights and unweighted graphs, MG_DOUBLE for float
 * weights; unreached vertices hold INT64_MAX or +infinity. delta: the bucket width of the
 * near-far (delta-stepping) schedule, 0 for a default from the weights, the mean degree and the
 * backend (wider on a GPU: algos/sssp.c). */
mg_status mg_sssp(mg_context ctx, const mg_graph g, uint32_t source, double delta, mg_vector dist);

/* Connected components (weakly connected on directed graphs): label (MG_VERTEX) = the smallest
 * vertex id in the component. */
mg_status mg_cc(mg_context ctx, const mg_graph g, mg_vector label);

typedef struct {
    double damping;        /* default 0.85                                                    */
    double tolerance;      /* default 1e-4: stop when the L1 change of one iteration is below;
                              0: run exactly max_iterations iterations (topology-driven only) */
    int max_iterations;    /* default 100                                                     */
    bool data_driven;      /* default false: topology-driven power iteration                  */
    bool spread_each_iteration; /* default false: iterate the leaking system and normalise at
                              the end (the same limit); true: every iteration hands the dangling
                              vertices' rank to all vertices, so each iterate is LDBC
                              Graphalytics' (what a fixed iteration count returns differs).
                              Topology-driven only                                            */
    bool single_precision; /* default false: iterate in double; true: in float (as GAPBS,
                              LAGraph and Gunrock do), half the bytes a gather moves. rank is
                              still MG_DOUBLE, normalised in double; float's rounding moves the
                              L1 change by about 1e-7, so a tolerance in (0, 1e-6) is refused.
                              Topology-driven only                                            */
    int iterations;        /* out: iterations (topology) or vertex pushes / n (data-driven)   */
    double change;         /* out: the L1 change of the last iteration (topology-driven), or
                              the residual left (data-driven); mg_check_pagerank's bound for a
                              fixed-iteration run follows from it                             */
} mg_pagerank_options;

void mg_pagerank_options_init(mg_pagerank_options *opts);
/* PageRank into rank (MG_DOUBLE): ranks sum to 1, a dangling vertex's rank is spread over all
 * vertices (the definition networkx uses). opts may be NULL. */
mg_status mg_pagerank(mg_context ctx, const mg_graph g, mg_pagerank_options *opts, mg_vector rank);

/* Betweenness centrality (Brandes) into bc (MG_DOUBLE). With nsources == 1, bc is the source's
 * dependency delta_s(v); otherwise the unnormalised centrality summed over the given sources
 * (sources == NULL: all vertices), halved on undirected graphs as networkx does. */
mg_status mg_bc(mg_context ctx, const mg_graph g, const uint32_t *sources, uint32_t nsources,
                mg_vector bc);

/* Triangles, over the masked SpGEMM (C<L> = L L with L the strictly lower triangle of the
 * undirected simple graph underlying g: directions, self loops and duplicate edges ignored).
 * *total: the number of triangles; per_vertex (MG_INT64, optional, NULL for none): the triangles
 * each vertex is in. */
mg_status mg_triangle_count(mg_context ctx, const mg_graph g, uint64_t *total, mg_vector per_vertex);
/* The local clustering coefficient into lcc (MG_DOUBLE), as LDBC Graphalytics defines it: for an
 * undirected graph the edges among v's neighbours over d(d-1)/2; for a directed graph the
 * neighbours are the union of in- and out-neighbours and the arcs among them count by direction,
 * over d(d-1); 0 where d < 2. */
mg_status mg_lcc(mg_context ctx, const mg_graph g, mg_vector lcc);
/* Community detection by label propagation as LDBC Graphalytics defines it (CDLP): every vertex
 * starts with its own id as label; in each of `iterations` synchronous rounds it takes the most
 * frequent label among its neighbours, ties to the smallest (in- and out-neighbours on a directed
 * graph, an arc both ways counting twice); a vertex without neighbours keeps its label. labels is
 * MG_VERTEX. Runs as a user-defined program with a mode combine (host functions: no compiler
 * needed), so CPU contexts only for now. */
mg_status mg_cdlp(mg_context ctx, const mg_graph g, int iterations, mg_vector labels);

/* ------------------------------------------------------------------------------------------------ */
/* Generators (datasets/): deterministic for a seed, whatever the thread count                      */
/* ------------------------------------------------------------------------------------------------ */

typedef enum {
    MG_GEN_RMAT = 0,   /* R-MAT, parameters a b c (d = 1-a-b-c), ids as generated            */
    MG_GEN_KRONECKER,  /* Graph500 Kronecker: R-MAT a=0.57 b=c=0.19 and a random permutation */
    MG_GEN_UNIFORM,    /* Erdos-Renyi style: uniformly random endpoints                      */
    MG_GEN_GEOMETRIC,  /* 2D random geometric: points in the unit square, radius neighbours  */
    MG_GEN_GRID        /* 2D grid, road-like: 4-neighbour lattice with random weights        */
} mg_generator;

typedef struct {
    mg_generator kind;
    int scale;            /* n = 2^scale (RMAT, KRONECKER, UNIFORM, GEOMETRIC); default 16    */
    double edge_factor;   /* edges = edge_factor * n (RMAT, KRONECKER, UNIFORM); default 16   */
    double a, b, c;       /* R-MAT probabilities; defaults 0.57 0.19 0.19                     */
    uint32_t width, height; /* GRID; default: square of 2^scale vertices                     */
    uint64_t seed;        /* default 1                                                        */
    mg_weight_type weights; /* default MG_WEIGHT_NONE                                         */
    double weight_min, weight_max; /* default 1 and 255 (integers, inclusive, for INT32)      */
    mg_graph_options graph; /* default: undirected, no self-loops or duplicates               */
} mg_gen_options;

void mg_gen_options_init(mg_gen_options *opts);
mg_status mg_generate(mg_context ctx, mg_graph *g, const mg_gen_options *opts);
/* perm[0..n) = a pseudo-random permutation of 0..n-1 fixed by seed (the same for any thread count). */
mg_status mg_random_permutation(mg_context ctx, uint32_t n, uint64_t seed, uint32_t *perm);

/* ------------------------------------------------------------------------------------------------ */
/* Sparse matrices (the sparse layer, sparse/): a graph is a matrix                                */
/* ------------------------------------------------------------------------------------------------ */

/* A rows x cols sparse matrix (rows and cols below 2^31), CSR with 64-bit row offsets and 32-bit
 * column indices sorted within each row, values float, double or none (a pattern: every stored
 * entry reads as 1). Unlike a graph, a matrix keeps what its input says: explicit zeros stay stored
 * entries and duplicate entries are summed (as scipy and GraphBLAS's build with PLUS do); a
 * pattern's duplicates merge into one entry that reads as 1 (a pattern has no values to sum, where
 * scipy would count 2). The CSC
 * (mg_matrix_csc) is built on first use and kept. Device forms (mg_matrix_gpu_prepare) are built
 * once, kept with the matrix and freed with it. */
typedef struct mg_matrix_s *mg_matrix;

typedef enum { MG_VALUES_NONE = 0, MG_VALUES_FLOAT, MG_VALUES_DOUBLE } mg_values;

/* From 0-based coordinates: entry k is (row_ids[k], col_ids[k]) with values[k] (a float or double
 * array as `type` says; NULL with MG_VALUES_NONE). Ids out of range fail naming the entry. */
mg_status mg_matrix_create_from_coo(mg_context ctx, mg_matrix *A, uint32_t rows, uint32_t cols,
                                    uint64_t nnz, const uint32_t *row_ids, const uint32_t *col_ids,
                                    const void *values, mg_values type);

typedef struct {
    /* How a real or integer file's values are stored: MG_VALUES_DOUBLE (the default) or
     * MG_VALUES_FLOAT; MG_VALUES_NONE drops them (the pattern only). A pattern file is a pattern
     * whatever this says. */
    mg_values values;
    /* The largest rows or cols a file may declare; 0 (the default): 2^22 + 4 per byte of the file,
     * as mg_read_options.max_vertices, so a corrupt size line cannot cost gigabytes. */
    uint64_t max_dimension;
} mg_matrix_read_options;

void mg_matrix_read_options_init(mg_matrix_read_options *opts);
/* Reads a Matrix Market coordinate file (real, integer or pattern; general, symmetric or
 * skew-symmetric: the other triangle is stored explicitly, negated for skew-symmetric), gzipped
 * when its name ends in .gz. Errors name the file and line. opts may be NULL. */
mg_status mg_matrix_read(mg_context ctx, mg_matrix *A, const char *path,
                         const mg_matrix_read_options *opts);
/* Writes Matrix Market coordinate general (real, or pattern for MG_VALUES_NONE), 1-based, values
 * with enough digits to read back exactly; whole or not at all, as mg_output. */
mg_status mg_matrix_write(mg_context ctx, const mg_matrix A, const char *path);
/* *A = g's adjacency as a matrix that shares g's arrays (no copy of the structure): n x n, entry
 * (u, v) for each stored arc u -> v (both directions of an undirected edge), its weight as the
 * value (float weights shared; int32 weights converted to a double array the view owns; an
 * unweighted graph is a pattern). The view must be freed before g. Of a share of a graph split
 * over ranks, a view that mg_spmv alone takes (see mg_ranks). */
mg_status mg_graph_matrix(mg_context ctx, const mg_graph g, mg_matrix *A);
mg_status mg_matrix_free(mg_matrix *A);

uint32_t mg_matrix_rows(const mg_matrix A);
uint32_t mg_matrix_cols(const mg_matrix A);
uint64_t mg_matrix_nnz(const mg_matrix A);
mg_values mg_matrix_values(const mg_matrix A);
/* Whether the source file declared the matrix symmetric or skew-symmetric (false for a matrix made
 * from coordinates; a view of an undirected graph is symmetric). */
bool mg_matrix_declared_symmetric(const mg_matrix A);
/* Seconds spent building the CSR when the matrix was made (not reading the file). */
double mg_matrix_build_seconds(const mg_matrix A);
/* Read-only views of the host CSR and CSC: offsets rows+1 (cols+1) entries, indices nnz, values
 * nnz of the value type (NULL for a pattern). mg_matrix_csc builds the CSC on first use. */
mg_status mg_matrix_csr(const mg_matrix A, const uint64_t **offsets, const uint32_t **indices,
                        const void **values);
mg_status mg_matrix_csc(mg_context ctx, const mg_matrix A, const uint64_t **offsets,
                        const uint32_t **indices, const void **values);

typedef struct {
    double seconds;        /* building the device form on the device (CUDA events)              */
    double upload_seconds; /* copying the host CSR to the device                                */
    size_t device_bytes;   /* device memory the matrix's device forms hold                      */
    size_t csr_bytes;      /* a plain CSR: (rows+1)*8 + nnz*4 + nnz*value bytes                 */
    char kernel[64];       /* the SpMV kernel the per-matrix rule chose ("csr-stream",
                              "csr-pipelined", "csr-vector", "diagonal (5)", "profile"), or
                              mg_matrix_gpu_prepare_spmm's                                      */
} mg_gpu_matrix_info;

/* Builds A's device form once (MG_UNAVAILABLE without a usable GPU); later SpMV and CG calls on a
 * GPU context reuse it. */
mg_status mg_matrix_gpu_prepare(mg_context ctx, const mg_matrix A, mg_gpu_matrix_info *info);

/* ------------------------------------------------------------------------------------------------ */
/* Dense matrices and vectors (operands of the sparse kernels)                                      */
/* ------------------------------------------------------------------------------------------------ */

/* rows x cols values of MG_FLOAT or MG_DOUBLE, row-major; a vector is one column. On a GPU context
 * the sparse kernels leave their results on the device; extract, get and the writers bring them
 * back. */
typedef struct mg_dense_s *mg_dense;

/* All zeros. */
mg_status mg_dense_create(mg_context ctx, mg_dense *X, uint32_t rows, uint32_t cols, mg_type type);
mg_status mg_dense_free(mg_dense *X);
uint32_t mg_dense_rows(const mg_dense X);
uint32_t mg_dense_cols(const mg_dense X);
mg_type mg_dense_type(const mg_dense X);
/* Copies all rows*cols values, row-major, from/to a host array of the type's C type. */
mg_status mg_dense_load(mg_context ctx, mg_dense X, const void *values);
mg_status mg_dense_extract(mg_context ctx, const mg_dense X, void *values);
mg_status mg_dense_fill(mg_context ctx, mg_dense X, double value);
mg_status mg_dense_get(mg_context ctx, const mg_dense X, uint32_t row, uint32_t col, double *value);
mg_status mg_dense_set(mg_context ctx, mg_dense X, uint32_t row, uint32_t col, double value);
/* Reads a Matrix Market array file ("%%MatrixMarket matrix array real|integer general", values
 * column by column as the format says) or plain text, one row per line, values separated by
 * spaces, tabs or commas ('#' and '%' start comments); gzipped when the name ends in .gz. Errors
 * name the file and line. */
mg_status mg_dense_read(mg_context ctx, mg_dense *X, const char *path, mg_type type);
/* Writes a Matrix Market array file (real general), whole or not at all, as mg_output. */
mg_status mg_dense_write(mg_context ctx, const mg_dense X, const char *path);
/* *out = a new matrix with S's pattern and the values of v (nnz(S) x 1, in the order of S's CSR:
 * an SDDMM's result), float or double as v is. */
mg_status mg_matrix_with_values(mg_context ctx, const mg_matrix S, const mg_dense v, mg_matrix *out);

/* ------------------------------------------------------------------------------------------------ */
/* Sparse kernels                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/* The semiring (add, multiply) of a product and the add's identity, which an empty row gives. */
typedef enum {
    MG_SEMIRING_PLUS_TIMES = 0, /* (+, *), identity 0: linear algebra                           */
    MG_SEMIRING_MIN_PLUS,       /* (min, +), identity +inf: one relaxation of shortest paths   */
    MG_SEMIRING_MAX_TIMES,      /* (max, *), identity -inf: most reliable path                 */
    MG_SEMIRING_OR_AND          /* (or, and) on non-zero = true, identity 0: a BFS step; values
                                   of the result are 1 or 0                                     */
} mg_semiring;

typedef struct {
    mg_semiring semiring;  /* default MG_SEMIRING_PLUS_TIMES                                    */
    bool transpose;        /* y = A^T x instead of A x                                          */
    /* y = alpha * (A x) + beta * y for plus-times (defaults 1 and 0; beta 0 never reads y, so a
     * NaN there does not spread). Other semirings take alpha 1 and beta 0 (y = A x) or 1 (y =
     * y (+) A x: the semiring's add accumulates into y); anything else is MG_INVALID_ARGUMENT. */
    double alpha, beta;
} mg_spmv_options;

void mg_spmv_options_init(mg_spmv_options *opts);
/* y = A x over the semiring: A rows x cols, x cols x 1 and y rows x 1 (A^T: x rows x 1, y
 * cols x 1), x and y of one type (MG_FLOAT or MG_DOUBLE), which is the arithmetic's; A's values
 * are converted to it. x and y must be distinct objects. opts may be NULL (the defaults). Fails
 * naming the argument for a mismatch; a failed call leaves y as it was. */
mg_status mg_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                  const mg_spmv_options *opts);
/* Checks y (computed as mg_spmv(A, x, y_in, opts)) against a plain serial SpMV in double: each
 * entry within rtol * (sum of |terms|) + atol, rtol 1e-5 for float and 1e-12 for double; the
 * message names the first row off, with both values. y_in: y before the call (NULL when beta is
 * 0). */
mg_status mg_check_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, const mg_dense y_in,
                        const mg_dense y, const mg_spmv_options *opts);

typedef struct {
    bool transpose;        /* C = op(A) B with op(A) = A^T instead of A                          */
    /* C = alpha * (op(A) B) + beta * C (defaults 1 and 0; beta 0 never reads C). */
    double alpha, beta;
    /* Float products on a GPU context may use TF32 tensor cores (default false): A's and B's
     * values are rounded to 10-bit mantissas before they are multiplied, so an entry of C is
     * within about 2^-10 of the sum of its products' magnitudes instead of float's 1e-5
     * (mg_check_spmm allows 1.25e-3). Taken where the per-matrix rule finds it faster (see
     * mg_matrix_gpu_prepare_spmm's kernel name); ignored for double and on the CPU. */
    bool tf32;
} mg_spmm_options;

void mg_spmm_options_init(mg_spmm_options *opts);
/* C = op(A) B (plus-times): A rows x cols (op(A) = A^T: cols x rows), B dense op(A)'s cols x K,
 * C dense op(A)'s rows x K, K >= 1, B and C of one type (MG_FLOAT or MG_DOUBLE), which is the
 * arithmetic's; A's values are converted to it. B and C must be distinct objects. opts may be NULL.
 * Fails naming the argument for a mismatch; a failed call leaves C as it was. On a GPU context A's
 * SpMM form is built on first use and cached on A, and C is left on the device. */
mg_status mg_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                  const mg_spmm_options *opts);
/* Checks C (computed as mg_spmm(A, B, C_in, opts)) against a plain serial SpMM in double, entry by
 * entry with mg_check_spmv's tolerance rule (rtol 1.25e-3 for float with opts->tf32); the message
 * names the first (row, column) off. C_in:
 * C before the call (NULL when beta is 0). */
mg_status mg_check_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, const mg_dense C_in,
                        const mg_dense C, const mg_spmm_options *opts);
/* Builds what SpMM calls of k dense columns with opts (NULL: the defaults) need of A's device
 * forms, once each (MG_UNAVAILABLE without a usable GPU): the CSR's (with transpose the CSC's)
 * upload and longest row; with tf32 the TF32 windows where the rule considers them; and where k
 * takes the panel kernels (or k is 0: every k and SDDMM) the row panels, dense tiles and long
 * rows' segments, else the list of rows over 128 entries. A later call that needs more (an SDDMM
 * of over 16 16-byte vectors a row takes the panels) builds it then. info: the build time of
 * every device form A holds (seconds), the upload, their bytes, and the kernel a product of k
 * columns in A's value type (float with tf32) runs ("csr-groups (8 lanes x4)": groups of 8 lanes,
 * 4 a row, every row whole; "csr-groups (8 lanes of 4 vectors x2)": each lane 4 vectors of 16
 * bytes, where k is over 16 of them; "csr-groups (8 lanes; 12 rows a block)": the 12 rows over
 * 128 entries take a thread block each; "aspt-tiles+rows", with "+split" where long rows are cut;
 * "tc-windows (tf32; 6.5 entries a column)": 16-row windows on the tensor cores, each window's
 * distinct columns once, each serving 6.5 entries on average; for k 0 the parts built). */
mg_status mg_matrix_gpu_prepare_spmm(mg_context ctx, const mg_matrix A, uint32_t k,
                                     const mg_spmm_options *opts, mg_gpu_matrix_info *info);

typedef struct {
    /* C = alpha * (S .* (A B^T)) + beta * C (defaults 1 and 0; beta 0 never reads C). */
    double alpha, beta;
} mg_sddmm_options;

void mg_sddmm_options_init(mg_sddmm_options *opts);
/* Sampled dense-dense product: for every stored entry (i, j) of S (rows x cols), in the order of
 * S's CSR (mg_matrix_csr), C[k] = S(i, j) * (row i of A) . (row j of B), S's values read as 1 for a
 * pattern. A dense rows x K, B dense cols x K, C dense nnz(S) x 1; A, B and C of one type, which is
 * the arithmetic's. mg_matrix_with_values turns C into a matrix of S's pattern. opts may be NULL.
 * Fails naming the argument for a mismatch; a failed call leaves C as it was. */
mg_status mg_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B, mg_dense C,
                   const mg_sddmm_options *opts);
/* Checks C (computed as mg_sddmm(S, A, B, C_in, opts)) against a plain serial SDDMM in double, as
 * mg_check_spmm; the message names the first entry off by its (row, column). */
mg_status mg_check_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                         const mg_dense C_in, const mg_dense C, const mg_sddmm_options *opts);

typedef struct {
    mg_semiring semiring;  /* MG_SEMIRING_PLUS_TIMES (default), MIN_PLUS or OR_AND (MAX_TIMES too) */
    /* Optional mask M (rows x cols of C): only the entries (i, j) that M stores are computed (C<M> =
     * A B), or with complement only those it does not store; NULL: all. M's values are not read. */
    mg_matrix mask;
    bool complement;
    /* Out (optional, NULL for none; a pointer so opts stays const): on a GPU context, the peak
     * device memory the call held for its work and C's device arrays, in bytes (the operands'
     * device forms, cached on the matrices, not counted); when the product did not fit, what it
     * needed at once (its MG_OUT_OF_MEMORY message says the same); 0 on a CPU context. */
    size_t *device_bytes;
} mg_spgemm_options;

void mg_spgemm_options_init(mg_spgemm_options *opts);
/* *C = A B over the semiring (Gustavson, row by row): A rows x k, B k x cols; a new matrix with
 * sorted columns and no explicit entries beyond those some path produced (an entry whose sum is
 * zero stays: it was computed). C's values are double, or float when A and B both are float, or a
 * pattern for OR_AND on two patterns; a pattern operand reads as 1. opts may be NULL. On failure *C
 * is left NULL; a product too large for memory is MG_OUT_OF_MEMORY saying how much it needed. */
mg_status mg_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                    const mg_spgemm_options *opts);
/* Checks C against a plain serial product in double: the same pattern (naming the first entry one
 * has and the other lacks) and each value within mg_check_spmv's tolerance. */
mg_status mg_check_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, const mg_matrix C,
                          const mg_spgemm_options *opts);

/* ------------------------------------------------------------------------------------------------ */
/* Block-CSR matrices and their product (sparse/bcsr.c; the matrix-chain product, docs/CHAIN.md)    */
/* ------------------------------------------------------------------------------------------------ */

/* A rows x cols matrix stored as square k x k blocks (k = MG_BCSR_MIN_BLOCK..MG_BCSR_MAX_BLOCK):
 * block_offsets (ceil(rows / k) + 1 entries) delimit each block row's blocks, block_cols (nblocks)
 * holds their block columns, sorted and distinct within a block row, and values nblocks * k * k
 * values, each block row-major. The last block row and column overhang a matrix whose sides are
 * not multiples of k; their entries outside rows x cols are zero. Values are typed on their own
 * (not mg_values): MG_BCSR_UINT64 is unsigned 64-bit integers whose products and sums wrap modulo
 * 2^64 (the seed report's arithmetic, exact whatever the chain's length), which no other kernel
 * takes, so mg_matrix and its kernels are not made to carry it. */
typedef struct mg_bcsr_s *mg_bcsr;

typedef enum { MG_BCSR_UINT64 = 0, MG_BCSR_FLOAT, MG_BCSR_DOUBLE } mg_bcsr_values;
#define MG_BCSR_MIN_BLOCK 2
#define MG_BCSR_MAX_BLOCK 32

/* *B from its arrays (copied; layout above). Fails naming the first block out of order, a column
 * out of range, or a non-zero value outside rows x cols. */
mg_status mg_bcsr_create(mg_context ctx, mg_bcsr *B, uint32_t rows, uint32_t cols, uint32_t k,
                         mg_bcsr_values type, const uint64_t *block_offsets,
                         const uint32_t *block_cols, const void *values);
/* *B = A in blocks of side k: every block holding a stored entry of A is stored (an explicit zero
 * too). A's values convert to type; for MG_BCSR_UINT64 they must be integers in [-2^63, 2^64)
 * (negative ones taken modulo 2^64), else the call fails naming the entry; a pattern reads as 1. */
mg_status mg_bcsr_from_matrix(mg_context ctx, const mg_matrix A, uint32_t k, mg_bcsr_values type,
                              mg_bcsr *B);
/* *A = B's non-zero entries as a CSR matrix: float values for MG_BCSR_FLOAT, double otherwise
 * (uint64 values rounded to the nearest double: exact below 2^53). */
mg_status mg_bcsr_to_matrix(mg_context ctx, const mg_bcsr B, mg_matrix *A);
mg_status mg_bcsr_free(mg_bcsr *B);

uint32_t mg_bcsr_rows(const mg_bcsr B);
uint32_t mg_bcsr_cols(const mg_bcsr B);
uint32_t mg_bcsr_block_size(const mg_bcsr B);
uint64_t mg_bcsr_nblocks(const mg_bcsr B);
mg_bcsr_values mg_bcsr_type(const mg_bcsr B);
/* Read-only views of B's arrays (layout above); any pointer argument may be NULL. */
mg_status mg_bcsr_arrays(const mg_bcsr B, const uint64_t **block_offsets, const uint32_t **block_cols,
                         const void **values);

typedef struct {
    /* GPU context: the product runs on CUDA device (device modulo the number of visible devices):
     * an MPI rank passes its rank to spread the ranks round robin. Default 0. */
    int device;
} mg_bcsr_multiply_options;

void mg_bcsr_multiply_options_init(mg_bcsr_multiply_options *opts);
/* *C = A B (plus-times in the values' arithmetic): A rows x n, B n x cols, one block size, one
 * value type (else MG_INVALID_ARGUMENT naming both). Gustavson over block rows with k x k block
 * multiply-adds, on OpenMP threads or, on a GPU context, a CUDA kernel with a thread block per
 * output block (sparse/bcsr_gpu.cu). C stores every block some pair of blocks produced (one whose
 * sum is zero too). On failure *C is NULL. opts may be NULL. */
mg_status mg_bcsr_multiply(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr *C,
                           const mg_bcsr_multiply_options *opts);
/* Checks got against want (e.g. a serial product): the same shape, block size and value type and,
 * entry by entry (a block one lacks reads as zeros), uint64 values equal and float/double within
 * rtol * max(|want|, |got|) + atol (rtol 1e-4 float, 1e-10 double; atol 1e-30). MG_INVALID_ARGUMENT
 * naming the first entry off, with both values. */
mg_status mg_check_bcsr(mg_context ctx, const mg_bcsr want, const mg_bcsr got);

/* Our BCSR text format (docs/CHAIN.md): '%' or '#' lines are comments; the first other line is
 * "rows cols nblocks"; then one line per block, "block-row block-col v0 ... v(k*k-1)" (0-based
 * block indices, the block's values row by row; blocks in any order, none twice). Values are
 * unsigned decimal integers for MG_BCSR_UINT64, real numbers otherwise. Errors name file and line. */
mg_status mg_bcsr_read(mg_context ctx, mg_bcsr *B, const char *path, uint32_t k, mg_bcsr_values type);
/* Writes B in that format, or as a Matrix Market coordinate file (integer for uint64, else real;
 * B's non-zero entries) when path ends in .mtx; whole or not at all, as mg_output. */
mg_status mg_bcsr_write(mg_context ctx, const mg_bcsr B, const char *path);
/* Reads a chain's size file: "N k" (N >= 1 matrices of block size k), comments as above. */
mg_status mg_bcsr_read_size(mg_context ctx, const char *path, uint32_t *count, uint32_t *k);

typedef struct {
    double tolerance;      /* stop when ||r|| <= tolerance * ||b|| (2-norms); default 1e-8     */
    int max_iterations;    /* default 1000; MG_NOT_CONVERGED when reached first                 */
    bool jacobi;           /* precondition with diag(A)^-1 (every diagonal entry must be > 0)   */
    double *residuals;     /* optional, max_iterations + 1 entries: ||r_k|| / ||b|| for k = 0.. */
    /* Out: */
    int iterations;        /* iterations run                                                   */
    double residual;       /* final ||r|| / ||b||                                              */
    double seconds;        /* the iteration loop's time (device: CUDA events)                   */
} mg_cg_options;

void mg_cg_options_init(mg_cg_options *opts);
/* Solves A x = b by conjugate gradients, A symmetric positive definite (square; a matrix that is
 * not symmetric is refused, naming an entry whose mirror differs), x holding the initial guess on
 * entry (zeros for none) and the solution on success or MG_NOT_CONVERGED (the last iterate). A
 * non-positive p'Ap or a non-finite scalar stops it with MG_BREAKDOWN naming the iteration; x is
 * then as on entry. On a GPU context every iteration stays on the device. */
mg_status mg_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x, mg_cg_options *opts);

/* Matrix generators for tests and benchmarks (deterministic for a seed). */
typedef enum {
    MG_MATGEN_POISSON2D = 0, /* 5-point Laplacian on a side x side grid (SPD): 4 on the diagonal */
    MG_MATGEN_POISSON3D,     /* 7-point Laplacian on a side^3 grid (SPD): 6 on the diagonal      */
    MG_MATGEN_BANDED,        /* rows x rows, entries within `band` of the diagonal, random values */
    MG_MATGEN_BLOCK_DIAGONAL,/* dense block x block blocks on the diagonal                       */
    MG_MATGEN_UNIFORM,       /* rows x cols, nnz_per_row uniformly random columns per row        */
    MG_MATGEN_RMAT           /* 2^scale square, R-MAT 0.57 0.19 0.19 with nnz_per_row * n entries */
} mg_matrix_generator;

typedef struct {
    mg_matrix_generator kind;
    uint32_t side;         /* POISSON2D/3D grid side; default 64                                */
    uint32_t rows, cols;   /* BANDED, BLOCK_DIAGONAL (rows), UNIFORM; default 4096 (cols: rows) */
    uint32_t band;         /* BANDED half-width; default 8                                      */
    uint32_t block;        /* BLOCK_DIAGONAL block size; default 32                             */
    double nnz_per_row;    /* UNIFORM, RMAT; default 16                                         */
    int scale;             /* RMAT; default 16                                                  */
    uint64_t seed;         /* default 1                                                         */
    mg_values values;      /* default MG_VALUES_DOUBLE; random values in [0.5, 1.5) except the
                              stencils' fixed ones                                              */
} mg_matrix_gen_options;

void mg_matrix_gen_options_init(mg_matrix_gen_options *opts);
mg_status mg_matrix_generate(mg_context ctx, mg_matrix *A, const mg_matrix_gen_options *opts);

/* ------------------------------------------------------------------------------------------------ */
/* Device parameters, measured (mgraph probe; the benchmarks' roofline)                             */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
    char name[256];
    size_t l2_bytes;
    double h2d_pinned_gbs, d2h_pinned_gbs;     /* PCIe bandwidth, 64 MiB copies (GB/s = 1e9 B/s) */
    double h2d_pageable_gbs, d2h_pageable_gbs;
    double h2d_latency_us, d2h_latency_us;     /* a 4-byte copy, pinned, round trip included   */
    double launch_latency_us;                  /* an empty kernel, launch to completion, back to
                                                  back (per launch)                              */
    double read_gbs, copy_gbs;                 /* device memory: a reduction read, a copy (read +
                                                  write bytes counted)                           */
    double global_atomics_gops;                /* atomicAdd on distinct global words, 1e9 ops/s  */
    double global_atomics_contended_gops;      /* all threads of the grid on 1024 words          */
    double shared_atomics_gops;                /* atomicAdd on shared memory                      */
    double fp32_gflops, fp64_gflops;           /* peak FMA rate (2 flops per FMA)                */
} mg_gpu_probe_result;

/* Measures the device (a few seconds); MG_UNAVAILABLE without a usable GPU. */
mg_status mg_gpu_probe(mg_context ctx, mg_gpu_probe_result *probe);

/* ------------------------------------------------------------------------------------------------ */
/* Serial references and verifiers (for --validate and the tests)                                  */
/* ------------------------------------------------------------------------------------------------ */

/* Each checks a result vector against a plain serial computation and returns MG_SUCCESS when it
 * holds, MG_INVALID_ARGUMENT with a message naming the first bad vertex otherwise. */
mg_status mg_check_bfs(mg_context ctx, const mg_graph g, uint32_t source, const mg_vector depth,
                       const mg_vector parent);
mg_status mg_check_sssp(mg_context ctx, const mg_graph g, uint32_t source, const mg_vector dist);
mg_status mg_check_cc(mg_context ctx, const mg_graph g, const mg_vector label);
/* labels equal a serial CDLP's of the same iterations exactly (the answer is unique). */
mg_status mg_check_cdlp(mg_context ctx, const mg_graph g, int iterations, const mg_vector labels);
mg_status mg_check_triangle_count(mg_context ctx, const mg_graph g, uint64_t total,
                                  const mg_vector per_vertex);
mg_status mg_check_lcc(mg_context ctx, const mg_graph g, const mg_vector lcc);
mg_status mg_check_pagerank(mg_context ctx, const mg_graph g, const mg_pagerank_options *opts,
                            const mg_vector rank);
mg_status mg_check_bc(mg_context ctx, const mg_graph g, const uint32_t *sources, uint32_t nsources,
                      const mg_vector bc);

#ifdef __cplusplus
}
#endif
#endif /* MGRAPH_H */
