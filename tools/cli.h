/*
 * cli.h — what the parts of the `mgraph` command share: the exit codes, the option parser (one table
 * of options, each allowed for a set of subcommands), strict number parsing that names the option
 * and the value it rejects, timing, JSON string output and the check that an output file is not
 * the input. The CLI is written against the public API (mgraph.h) only, as a user's program would
 * be.
 */
#ifndef MG_CLI_H
#define MG_CLI_H

#include "mgraph.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: 0 success, 1 a run-time failure (library error, failed validation, I/O), 2 bad usage. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Subcommands, as bits so an option can say where it is allowed. */
enum {
    CMD_BFS = 1 << 0,
    CMD_SSSP = 1 << 1,
    CMD_CC = 1 << 2,
    CMD_PR = 1 << 3,
    CMD_BC = 1 << 4,
    CMD_INFO = 1 << 5,
    CMD_GEN = 1 << 6,
    CMD_CONVERT = 1 << 7,
    CMD_BENCH = 1 << 8,
    CMD_SPMV = 1 << 9,
    CMD_CG = 1 << 10,
    CMD_PROBE = 1 << 11,
    CMD_SPMM = 1 << 12,
    CMD_SDDMM = 1 << 13,
    CMD_SPGEMM = 1 << 14,
    CMD_TC = 1 << 15,
    CMD_LCC = 1 << 16,
    CMD_CHAIN = 1 << 17,
    CMD_CDLP = 1 << 18,
    CMD_GRAPHALYTICS = 1 << 19,
    CMD_ALGOS = CMD_BFS | CMD_SSSP | CMD_CC | CMD_PR | CMD_BC,
    /* The algorithms over the sparse layer (SpGEMM), and CDLP (a user-defined program, CPU only
     * for now): the harness of CMD_ALGOS without its traversal options (--mode, --engine, --trace,
     * --sample). */
    CMD_COUNTS = CMD_TC | CMD_LCC | CMD_CDLP,
    CMD_READERS = CMD_ALGOS | CMD_COUNTS | CMD_INFO | CMD_CONVERT | CMD_BENCH,
    CMD_SPARSE = CMD_SPMV | CMD_CG | CMD_SPMM | CMD_SDDMM | CMD_SPGEMM,
    CMD_ALL = CMD_READERS | CMD_GEN | CMD_SPARSE | CMD_PROBE | CMD_CHAIN | CMD_GRAPHALYTICS
};

/* Option ids (the table in mgraph.c maps names to them). */
typedef enum {
    OPT_HELP = 0,
    OPT_SOURCE, OPT_BACKEND, OPT_RUNS, OPT_VALIDATE, OPT_OUTPUT, OPT_JSON, OPT_THREADS, OPT_MODE, OPT_ENGINE, OPT_TRACE, OPT_SAMPLE, OPT_RENUMBER,
    OPT_UNDIRECTED, OPT_DIRECTED, OPT_KEEP_SELF_LOOPS, OPT_KEEP_DUPLICATES, OPT_FORMAT,
    OPT_ALLOW_NEGATIVE, OPT_MAX_VERTICES,
    OPT_TOLERANCE, OPT_MAX_ITER, OPT_DAMPING, OPT_DATA_DRIVEN, OPT_SOURCES, OPT_ALL, OPT_DELTA,
    OPT_ALGOS, OPT_ENGINES, OPT_SCALE, OPT_EDGE_FACTOR, OPT_SEED, OPT_WEIGHTS, OPT_WIDTH, OPT_HEIGHT, OPT_A, OPT_B, OPT_C,
    OPT_X, OPT_Y, OPT_SEMIRING, OPT_TRANSPOSE, OPT_TF32, OPT_ALPHA, OPT_BETA, OPT_PRECISION, OPT_JACOBI, OPT_HISTORY,
    OPT_K, OPT_MASK, OPT_COMPLEMENT, OPT_VALUES, OPT_ITERATIONS,
    OPT_OUTPUT_DIR, OPT_NO_CHECK,
    OPT_COUNT
} cli_opt_id;

/* One parsed command line: the options seen (value or "" for a flag) and the positional words. */
typedef struct {
    const char *name;              /* the subcommand as typed ("bfs")                        */
    int cmd;                       /* its CMD_ bit                                           */
    const char *value[OPT_COUNT];  /* NULL: not given; a later repetition overrides          */
    const char *positional[256]; /* chain takes a list of files; the others at most 4 */
    int npositional;
} cli_args;

/* Parses argv[first..argc) for subcommand cmd. On a usage error prints the message and the hint
 * and returns CLI_USAGE; else CLI_OK. Extra positionals are an error past max_positional. */
int cli_parse(int argc, char **argv, int first, const char *name, int cmd, int max_positional,
              cli_args *args);

/* Prints "mgraph: <fmt>" and "Try 'mgraph <name> --help'." to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Strict numbers: the whole word must be the number, in [min, max]; no sign on unsigned values.
 * On failure print an error naming the option and the value and return CLI_USAGE. */
int cli_u64(const cli_args *a, cli_opt_id id, uint64_t min, uint64_t max, uint64_t *out);
int cli_double(const cli_args *a, cli_opt_id id, double min, double max, bool min_open,
               bool max_open, double *out);
/* The option's name as typed on the command line ("--runs"). */
const char *cli_opt_name(cli_opt_id id);
/* One of `count` names (values[i] for names[i]); otherwise a usage error listing them. */
int cli_choice(const cli_args *a, cli_opt_id id, const char *const *names, const int *values,
               int count, int *out);
/* --backend cpu|gpu|auto (auto when not given). */
int cli_backend_option(const cli_args *a, mg_backend *out);
/* Sorts the n > 0 times and returns their median. */
double cli_median(double *times, uint64_t n);
/* The CPU threads a run used, for --json: --threads, or OpenMP's default for 0 or none. */
int cli_threads(const cli_args *a);

/* Library failure: prints "mgraph: <mg_context_error(ctx)>" (or the status name) to stderr. */
int cli_lib_error(mg_context ctx, mg_status status);

/* Builds read options from --format, --undirected/--directed, --keep-*; a progress line on stderr
 * for loads past a second when stderr is a terminal. */
typedef struct {
    double start;
    const char *path;
    bool shown;
} cli_progress;
int cli_read_options(const cli_args *a, mg_read_options *ro, cli_progress *progress);
/* Call after the load finishes to end the progress line, if one was shown. */
void cli_progress_done(cli_progress *progress);
/* Applies --threads (and reports usage errors) to ctx. */
int cli_apply_threads(const cli_args *a, mg_context ctx);

double cli_now(void);
const char *cli_weight_name(mg_weight_type t);
/* "<label>: <name> (N vertices, M edges, directed, weights int32)" on stdout. */
void cli_print_graph(const char *label, const char *name, const mg_graph g);
/* fflush(stdout), keeping the reason of a failure for the message at exit (stdout is checked
 * there: a failed write makes the exit status 1). */
void cli_flush_stdout(void);
/* Writes s as a JSON string literal (quotes and escapes included). */
void cli_json_string(FILE *f, const char *s);

/* Output files go through mg_output (mgraph.h): whole or not at all, devices written through. */
/* Usage error, naming the option or argument (`what`), when out is the same file as in. */
int cli_check_not_input(const char *name, const char *what, const char *out, const char *in);

/* The GPU's start-up, run on a thread while the graph or matrix loads (tools/cli_backend.c), and
 * the choice of backend once it is known: --backend cpu, gpu, or auto by the command's threshold in
 * stored edges (nonzeros for a matrix) and, for spmv, the passes over them (warm-up + --runs); for
 * spmm and sddmm `passes` is K, the dense operands' columns (each nonzero meets K of them per call;
 * the most, MAX_K, until the operand files are read, then set to K before the choice). */
typedef struct {
    mg_backend requested;
    bool started;     /* a start-up thread is running                                    */
    bool small_file;  /* auto: the file is too small to reach the threshold: GPU untouched */
    uint64_t passes;
    uint64_t min_file_bytes;
    pthread_t thread;
} cli_gpu_start;
void cli_gpu_start_begin(cli_gpu_start *s, mg_backend requested, int cmd, uint64_t passes,
                         const char *file);
/* Waits for the start-up (if any) and sets ctx's backend; why gets "auto: ..." when auto chose by
 * `stored` (the graph's stored edges, the matrix's nonzeros). CLI_OK, or CLI_FAIL with the
 * library's message printed (--backend gpu where none is usable). */
int cli_backend_select(cli_gpu_start *s, mg_context ctx, int cmd, uint64_t stored, char *why,
                       size_t why_size);
/* Waits for a start-up still running (on every exit path: the process must not end under it). */
void cli_gpu_start_end(cli_gpu_start *s);

/* Several ranks: `mpirun -np P mgraph bfs|sssp|cc|pr|bc` in a build with MPI (tools/mgraph.c says
 * how they agree). Outside mpirun: cli_mpi() false, rank 0 of 1, and each call below a no-op
 * returning its argument (cli_err() is stderr). */
bool cli_mpi(void);
int cli_rank(void);
int cli_ranks(void);
/* Where a message goes: stderr, or under MPI this rank's messages until the next cli_agree. */
FILE *cli_err(void);
/* Every rank calls it at the same points: returns the worst (largest) rc of all ranks, after rank
 * 0 printed the ranks' messages (once when alike, else each after "rank R:"). */
int cli_agree(int rc);
/* The largest v of all ranks; in place, each v[i]'s largest over the ranks. */
int cli_ranks_max(int v);
void cli_ranks_max_doubles(double *v, uint64_t n);
/* Collective: true when every rank has a device (device >= 0) that no other rank on its host has;
 * why says which rank this one's device clashes with, if it does. */
bool cli_ranks_own_devices(int device, char *why, size_t why_size);
/* Makes ctx one rank of MPI_COMM_WORLD (mg_context_set_mpi) under MPI; else nothing. */
mg_status cli_context_set_ranks(mg_context ctx);
/* Prints what is left of this rank's messages and ends MPI (MPI_Finalize); a no-op if not begun. */
void cli_mpi_end(void);

/* Subcommands. */
int cli_algo_main(int argc, char **argv, const char *name, int cmd);
int cli_bench_main(int argc, char **argv);
int cli_info_main(int argc, char **argv);
int cli_gen_main(int argc, char **argv);
int cli_convert_main(int argc, char **argv);
int cli_spmv_main(int argc, char **argv);
int cli_cg_main(int argc, char **argv);
int cli_probe_main(int argc, char **argv);
int cli_spmm_main(int argc, char **argv);
int cli_sddmm_main(int argc, char **argv);
int cli_spgemm_main(int argc, char **argv);
int cli_chain_main(int argc, char **argv);
int cli_graphalytics_main(int argc, char **argv);
/* Prints the help text of a subcommand to f; false if there is no such subcommand. */
bool cli_print_help(FILE *f, const char *name);

#endif
