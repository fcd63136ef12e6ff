/*
 * mgraph.c — the `mgraph` command: subcommand dispatch, the help texts, the option table and parser
 * with strict number parsing, and the small shared pieces (timing, JSON strings, refusing an output
 * that is the input, checking that stdout was written). The algorithm harness is in cli_algo.c;
 * info, gen and convert are in cli_graph.c; spmv, cg, spmm, sddmm and probe in cli_sparse.c. Exit codes: 0
 * success, 1 run-time failure, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef MG_HAVE_MPI
#include <mpi.h>
#include "mgraph_mpi.h"
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Help                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

static const char HELP_MAIN[] =
    "mgraph — graph analytics and sparse linear algebra from the shell over the mgraph library.\n"
    "\n"
    "Usage: mgraph COMMAND [ARGS] [OPTIONS]\n"
    "\n"
    "Algorithms (the same harness and output lines for each):\n"
    "  bfs FILE       breadth-first search depths from a source\n"
    "  sssp FILE      single-source shortest paths (delta-stepping)\n"
    "  cc FILE        connected components (weakly connected on directed graphs)\n"
    "  pr FILE        PageRank\n"
    "  bc FILE        betweenness centrality (Brandes) from one, several or all sources\n"
    "  tc FILE        triangle counting (masked SpGEMM), the total and per vertex\n"
    "  lcc FILE       local clustering coefficient (LDBC Graphalytics' definition)\n"
    "  cdlp FILE      community detection by label propagation (LDBC Graphalytics' CDLP)\n"
    "Graph tools:\n"
    "  info FILE      size, directedness, weights, degree statistics, in-degree groups\n"
    "  gen KIND       generate a graph (rmat, kronecker, uniform, geometric, grid) into a file\n"
    "  convert IN OUT convert between formats (by extension: .mtx, .mgb, .properties)\n"
    "  bench FILE     every algorithm on every engine (CPU, GPU modes, baseline) from one load,\n"
    "                 each run validated\n"
    "  graphalytics NAME.properties  an LDBC Graphalytics dataset's algorithms, validated\n"
    "Sparse matrices (the same harness and output lines):\n"
    "  spmv FILE      y = A x (or A^T x) over a semiring; GFLOP/s and GB/s\n"
    "  cg FILE        solve A x = b by conjugate gradients (A symmetric positive definite)\n"
    "  spmm FILE      C = A B (or A^T B), B dense with K columns; GFLOP/s and GB/s\n"
    "  sddmm FILE     C = S .* (A B^T) on S's pattern, A and B dense with K columns\n"
    "  spgemm A [B]   C = A B (A A without B), sparse, over a semiring, optionally masked\n"
    "  chain DIR      the product of a chain of block-CSR matrices in order (MPI ranks: mpirun)\n"
    "  probe          measure the GPU: PCIe, launch latency, memory bandwidth, atomics, FMA rate\n"
    "  help [COMMAND] this text, or a command's options\n"
    "\n"
    "  mgraph --version    the version and what of the CUDA backend is compiled in\n"
    "  mgraph CMD --help   the options of one command\n"
    "\n"
    "Over MPI ranks: mpirun -np P mgraph bfs|sssp|cc|pr|bc FILE [OPTIONS] splits the graph over\n"
    "P processes (one per GPU, or per share of the CPUs) and prints rank 0's lines with\n"
    "'ranks: P (MPI)'; see 'mgraph help bfs'. chain runs over ranks its own way; the other\n"
    "commands are refused under mpirun with more than one rank (exit 2).\n"
    "\n"
    "File formats (by extension, or --format): .mtx Matrix Market (1-based), .txt/.el/.wel/.edges\n"
    "SNAP edge lists (0-based), .gr DIMACS (1-based), .mgb mgraph binary (fast reload).\n"
    "Vertex ids on the command line and in output files use the input file's own numbering.\n"
    "\n"
    "Exit codes: 0 success; 1 run-time failure (unreadable or malformed file, library error,\n"
    "failed --validate, unavailable backend, a failed write, stdout included); 2 bad usage\n"
    "(unknown option, bad value, an output that is the input or has no writable extension).\n";

#define HELP_COMMON_ALGO                                                                           \
    "Common options:\n"                                                                            \
    "  --runs N           run N timed times after an untimed warm-up (on a GPU, repeated for\n"   \
    "                     0.25 s, so its clock is up); report the median (1)\n"                   \
    "  --validate         check the last run against a serial reference (mg_check_*)\n"           \
    "  --output FILE      write '<vertex id> <value>' per vertex (ids in the file's numbering);\n"\
    "                     the file appears whole or not at all (not written on any failure),\n"  \
    "                     a new file with the umask's mode; a link's target is replaced, a\n"     \
    "                     device or FIFO written through; the input file itself is refused\n"     \
    "  --json             print one JSON object on stdout instead of the text lines\n"           \
    "  --backend B        cpu, gpu or auto (default). auto: the GPU where one is usable and the\n"\
    "                     graph has at least 2^25 edges (pr), 2^26 (sssp), 2^27 (cc, bc) or\n"  \
    "                     2^28 (bfs), else the CPU; the 'backend:' line says which ran and\n"  \
    "                     why. The GPU starts while the file loads\n"                            \
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n"          \
    "  --mode M           auto, hybrid, sparse, pull or dense: how each step runs (auto: the\n" \
    "                     engines' own push/pull/dense rules; hybrid: on the GPU the mode whose\n"\
    "                     sampled cost is least, auto on the CPU; sparse: push from the\n"       \
    "                     frontier; pull: into the destinations; dense: the GPU's 2D-block\n"    \
    "                     engine, pull on the CPU)\n"                                            \
    "  --sample F         the fraction of a frontier (or of the destinations) the GPU hybrid\n" \
    "                     runs to estimate a step's cost, in (0, 1] (0.0625)\n"                 \
    "  --engine E         multigraph or baseline: the GPU engine (multigraph; baseline: a\n"     \
    "                     Gunrock-style load-balanced CSR engine, for comparison)\n"            \
    "  --trace            one line per advance of the last timed run on stderr: step, mode\n"   \
    "                     (sparse, pull, dense), frontier vertices and edges, edges scanned,\n" \
    "                     vertices out, milliseconds, and the GPU hybrid's estimates for\n"     \
    "                     sparse, pull and dense (ms; '-' where it did not sample)\n"           \
    "  --undirected       symmetrise the graph (store every edge both ways)\n"                   \
    "  --directed         keep edges directed even where the file says symmetric\n"              \
    "  --keep-self-loops  keep self-loops (dropped by default)\n"                                \
    "  --keep-duplicates  keep parallel edges (by default one is kept, with the least weight)\n" \
    "  --format F         mtx, snap, dimacs or binary (default: by the file's extension)\n"      \
    "  --max-vertices N   the most vertices a text file may make (default 2^22 + 4 per byte of\n" \
    "                     the file, against corrupt headers)\n"                                  \
    "\n"                                                                                           \
    "Output lines: load: X s / preprocess: X s / run: X s (median of N) / MTEPS: X /\n"         \
    "validation: PASS|FAIL|skipped / backend: cpu|gpu (auto: why). 'load' is reading the file;\n"\
    "'preprocess' is building the engine's structures (CSR and CSC) from its edges, 0 for a .mgb\n"\
    "file that stores them built. MTEPS = traversed edges / median run time / 1e6, where\n"     \
    "traversed edges are the stored directed edges out of the vertices the run\n"\
    "reached (BFS, SSSP, BC: the reached vertices' out-degrees summed, per source for BC); CC:\n" \
    "all stored edges; PR: all stored edges x iterations. An undirected edge is stored twice.\n"  \
    "--json keys: algorithm, file, vertices, edges, directed, weights, index_base, load_s,\n"     \
    "preprocess_s, warmup_s, run_s (median), run_min_s, run_max_s, runs, traversed_edges, mteps,\n"\
    "validated (true/false/null), backend, backend_reason, threads, mode, and per algorithm\n"  \
    "source, iterations, converged, sources; over MPI ranks, ranks.\n"                        \
    "\n"                                                                                           \
    "Several ranks: mpirun -np P mgraph ALGO FILE [OPTIONS] (a build with MPI). Every rank reads\n"\
    "FILE and keeps its share: the vertices in P ranges of about equal work (in-edges), rank r\n"\
    "holding the edges into its range; vectors stay whole on every rank, and after each step\n"  \
    "every range goes from its owner to all (MPI on the CPU, NCCL between GPUs). Rank 0 prints\n"\
    "the lines above and 'ranks: P (MPI)'; load, preprocess, warm-up and run times are the\n"   \
    "slowest rank's; the gpu lines and --trace are rank 0's (its share); rank 0 writes --output;\n"\
    "--validate reads FILE again on rank 0, whole, and runs the serial checker there. Every rank\n"\
    "exits with the same status; an error is printed once (per rank, after 'rank R:', where the\n"\
    "ranks differ). --backend cpu runs anywhere; gpu needs a CUDA build with NCCL and a GPU per\n"\
    "rank (rank r takes GPU local-rank modulo the devices; two ranks on one GPU fail, exit 1);\n"\
    "auto takes the GPUs only where the rule above picks the GPU and every rank has a usable\n"  \
    "one of its own, else the CPU on every rank; no GPU starts beside the load. Limits (P > 1):\n"\
    "cc and bc need an undirected graph (--undirected: cc's weakly connected components are\n"  \
    "the same); a directed one fails, exit 1. Open MPI binds a rank to one core unless told\n"    \
    "(mpirun --bind-to none): OpenMP then has one thread a rank.\n"

static const char HELP_BFS[] =
    "Usage: mgraph bfs FILE [--source N] [OPTIONS]\n"
    "\n"
    "Breadth-first search: the depth (hops) of every vertex from the source.\n"
    "  --source N         the source vertex, in the file's numbering (default: the first vertex\n"
    "                     with at least one out-edge)\n"
    "--output values: the depth, or 'inf' for a vertex the search did not reach.\n"
    "\n" HELP_COMMON_ALGO;

static const char HELP_SSSP[] =
    "Usage: mgraph sssp FILE [--source N] [--delta D] [OPTIONS]\n"
    "\n"
    "Single-source shortest paths over non-negative weights (1 per edge when unweighted); a file\n"
    "with a negative weight is refused.\n"
    "  --source N         the source vertex, in the file's numbering (default: the first vertex\n"
    "                     with at least one out-edge)\n"
    "  --delta D          bucket width of the delta-stepping schedule (0: chosen from the weights,\n"
    "                     the mean degree and the backend)\n"
    "--output values: the distance, or 'inf' for a vertex the source does not reach.\n"
    "\n" HELP_COMMON_ALGO;

static const char HELP_CC[] =
    "Usage: mgraph cc FILE [OPTIONS]\n"
    "\n"
    "Connected components (weakly connected on a directed graph).\n"
    "--output values: the component label, the smallest vertex id in the component (file numbering).\n"
    "\n" HELP_COMMON_ALGO;

static const char HELP_PR[] =
    "Usage: mgraph pr FILE [--damping D] [--tolerance T] [--max-iter N] [--data-driven]\n"
    "                 [--precision single|double] [OPTIONS]\n"
    "\n"
    "PageRank: ranks sum to 1; a dangling vertex's rank is spread over all vertices.\n"
    "  --damping D        damping factor in [0, 1) (0.85)\n"
    "  --tolerance T      stop when one iteration changes the ranks by less than T in L1 (1e-4);\n"
    "                     0 runs exactly --max-iter iterations (topology-driven only)\n"
    "  --max-iter N       iteration limit (100); reaching it prints a warning, not an error, and\n"
    "                     --validate holds the ranks to the last iteration's change\n"
    "  --data-driven      push residuals from changed vertices instead of full power iterations\n"
    "  --precision P      the iterates' type: double (default) or single (float, as GAPBS and\n"
    "                     LAGraph iterate: half the bytes; topology-driven only, --tolerance 0 or\n"
    "                     at least 1e-6); the ranks are written as doubles either way\n"
    "--output values: the rank.\n"
    "\n" HELP_COMMON_ALGO;

static const char HELP_BC[] =
    "Usage: mgraph bc FILE [--source N | --sources N1,N2,... | --all] [OPTIONS]\n"
    "\n"
    "Betweenness centrality (Brandes). One source gives that source's dependencies; several or all\n"
    "give the unnormalised centrality summed over them (halved on undirected graphs, as networkx).\n"
    "  --source N         one source (default: the first vertex with at least one out-edge)\n"
    "  --sources LIST     comma-separated sources, in the file's numbering\n"
    "  --all              every vertex as a source (exact centrality; slow on large graphs)\n"
    "--output values: the centrality.\n"
    "\n" HELP_COMMON_ALGO;

static const char HELP_INFO[] =
    "Usage: mgraph info FILE [OPTIONS]\n"
    "\n"
    "Loads a graph and prints its vertices, stored edges (an undirected edge counts twice), whether\n"
    "it is directed, its weights, the index base of its file, degree statistics, the six in-degree\n"
    "groups (1: >= 2048, 2: [1024,2048), 3: [512,1024), 4: [256,512), 5: [128,256), 6: < 128)\n"
    "and the load time.\n"
    "  --json             one JSON object on stdout\n"
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n"
    "  --allow-negative-weights  accept negative weights (refused by default)\n"
    "  --undirected | --directed | --keep-self-loops | --keep-duplicates | --format F\n"
    "                     as for the algorithms (see 'mgraph help bfs')\n";

static const char HELP_GEN[] =
    "Usage: mgraph gen KIND --output FILE [OPTIONS]\n"
    "\n"
    "Generates a graph, deterministically for a seed whatever the thread count, and writes it in the\n"
    "format of FILE's extension (.mtx Matrix Market, .mgb binary, .properties an LDBC Graphalytics\n"
    "dataset, as for convert). KIND: rmat, kronecker, uniform, geometric, grid.\n"
    "  --output FILE      where to write it (required; checked before generating), as the\n"
    "                     algorithms' --output: whole or not at all, not over a device\n"
    "  --scale N          2^N vertices (16)\n"
    "  --edge-factor F    edges = F * vertices for rmat, kronecker, uniform (16)\n"
    "  --seed S           random seed (1)\n"
    "  --weights W        none, int (1..255) or float (none)\n"
    "  --directed         a directed graph (default: undirected)\n"
    "  --width W --height H  grid size (default: a square of 2^scale vertices)\n"
    "  --a A --b B --c C  R-MAT probabilities (0.57 0.19 0.19; d = 1 - a - b - c)\n"
    "  --source N         .properties: the bfs and sssp source (see 'mgraph help convert')\n"
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n";

static const char HELP_CONVERT[] =
    "Usage: mgraph convert IN OUT [OPTIONS]\n"
    "\n"
    "Reads IN and writes OUT, each in the format of its extension (write: .mtx, .mgb or\n"
    ".properties). Use .mgb, the binary format, for fast reloads of a large text graph. OUT\n"
    "appears whole or not at all (as the algorithms' --output); OUT may not be IN.\n"
    "OUT = DIR/NAME.properties writes an LDBC Graphalytics dataset for 'mgraph graphalytics':\n"
    "NAME.v (every vertex) and NAME.e ('source destination', then the weight when IN is weighted;\n"
    "an undirected edge once) beside NAME.properties, with ids in IN's numbering (1-based for\n"
    ".mtx and .gr). The properties list bfs, cdlp, lcc, pr, wcc and, when weighted, sssp: pr\n"
    "damping 0.85 and 10 iterations, cdlp 10 iterations, the bfs and sssp source the first\n"
    "vertex with the most out-edges (or --source). The three files are made before any is\n"
    "written and NAME.properties is put in place last: a failed write leaves no new dataset.\n"
    "  --format F         the input's format: mtx, snap, dimacs or binary (default: by extension)\n"
    "  --max-vertices N   the most vertices a text file may make (default 2^22 + 4 per byte)\n"
    "  --undirected | --directed | --keep-self-loops | --keep-duplicates\n"
    "                     as for the algorithms (see 'mgraph help bfs')\n"
    "  --renumber random  rename the vertices by a pseudo-random permutation (the renumbering\n"
    "                     experiments: same graph, no locality left in the ids)\n"
    "  --seed S           the permutation's seed (1)\n"
    "  --source N         .properties: the bfs and sssp source, in IN's numbering\n"
    "  --allow-negative-weights  accept negative weights (refused by default)\n"
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n";

static const char HELP_BENCH[] =
    "Usage: mgraph bench FILE [--algos LIST] [--engines LIST] [--runs N] [OPTIONS]\n"
    "\n"
    "Loads FILE once (and once more with its weights, for sssp) and runs each algorithm on each\n"
    "engine: an untimed warm-up (on a GPU, repeated for 0.25 s), N timed runs, the median; every\n"
    "case is validated against the serial reference, which is computed once per algorithm and\n"
    "reused for every engine.\n"
    "  --algos LIST       comma-separated, of bfs, sssp, cc, pr, bc (all five)\n"
    "  --engines LIST     comma-separated, of cpu (the CPU engine, OpenMP), auto (GPU, the\n"
    "                     engines' own rules: mgraph's default), hybrid (GPU, sampled per step),\n"
    "                     sparse, pull, dense (GPU, one mode forced), baseline (GPU, the\n"
    "                     Gunrock-style CSR engine) (default: cpu, and every GPU engine where a\n"
    "                     GPU is usable; one named without a usable GPU is reported 'skipped')\n"
    "  --runs N           timed runs per case after a warm-up (1)\n"
    "  --json             one JSON object per case on stdout: the keys of 'mgraph bfs --json' and\n"
    "                     bench_engine and status (ok, invalid, failed, skipped; error says why)\n"
    "  --trace            each case's steps on stderr as for the algorithms, after a line\n"
    "                     'trace: case ALGO ENGINE'\n"
    "  --source N, --delta D, --damping D, --tolerance T, --max-iter N, --data-driven,\n"
    "  --sources LIST, --all, --sample F, --threads N, and the reading options of 'mgraph help bfs'\n"
    "                     as for the algorithms\n"
    "Text output: one line per case: algo, engine, status, median, min and max seconds, MTEPS.\n"
    "Exit status 1 if any case failed or did not validate (skipped cases do not count).\n"
    "Under mpirun -np P every case runs over the P ranks as 'mgraph ALGO' does (see 'mgraph help\n"
    "bfs'): times are the slowest rank's, rank 0 validates and prints, a GPU engine is skipped\n"
    "unless every rank has a usable GPU.\n";

#define HELP_COMMON_SPARSE                                                                         \
    "Common options:\n"                                                                            \
    "  --precision P      single or double (default): the arithmetic, the vectors' type and how\n" \
    "                     the matrix's values are stored\n"                                       \
    "  --runs N           run N timed times after one untimed warm-up; report the median (1)\n"   \
    "  --validate         check the last run against a serial reference (see below)\n"           \
    "  --output FILE      write the result vector as a Matrix Market array file (one column);\n" \
    "                     whole or not at all, as the algorithms' --output (see 'mgraph help\n"  \
    "                     bfs'); not written on any failure; an input file itself is refused\n"  \
    "  --json             print one JSON object on stdout instead of the text lines\n"           \
    "  --backend B        cpu, gpu or auto (default). auto: the GPU where one is usable and the\n"\
    "                     matrix has at least 2^22 stored nonzeros (cg; an estimate) or, for\n" \
    "                     spmv, at least 2^24 and 2^29 / passes (warm-up and --runs: one pass\n"  \
    "                     cannot repay the upload, which moves the bytes the CPU reads once;\n"   \
    "                     measured on an H100 against 16 cores), else the CPU. The 'backend:'\n"  \
    "                     line says which ran and why\n"                                          \
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n"          \
    "\n"                                                                                           \
    "FILE is Matrix Market coordinate (real, integer or pattern; general, symmetric or skew-\n"   \
    "symmetric), gzipped if its name ends in .gz. Explicit zeros are kept and duplicates summed\n"\
    "(a pattern's duplicates merge into one entry of 1).\n"                                          \
    "Vector files (--x, --y, --b) are Matrix Market array files or plain text, one value per\n"   \
    "line; a length that does not fit the matrix is a usage error (exit 2) naming the file.\n"    \
    "Output lines: matrix: FILE (R x C, N nonzeros, values T) / load: X s / preprocess: X s\n"    \
    "(building the CSR) / on the GPU gpu preprocess: X s (after a X s upload), device memory,\n"  \
    "kernel / run: X s (median of N) / GFLOP/s / GB/s / validation: PASS|FAIL|skipped /\n"       \
    "backend: cpu|gpu (auto: why). --json keys: algorithm, file, rows, cols, nnz, values,\n"     \
    "symmetric, precision, load_s, preprocess_s, warmup_s, run_s (median), run_min_s, run_max_s,\n"\
    "runs, gflops, gbs, bytes, validated (true/false/null), backend, backend_reason, threads;\n" \
    "on the GPU gpu_preprocess_s, gpu_upload_s, device_bytes, csr_bytes, kernel.\n"

static const char HELP_SPMV[] =
    "Usage: mgraph spmv FILE [--x FILE] [--semiring S] [--transpose] [OPTIONS]\n"
    "\n"
    "y = alpha * (A x) + beta * y over a semiring, A from FILE.\n"
    "  --x FILE           the vector x (default: all ones), cols entries (rows with --transpose)\n"
    "  --semiring S       plus-times (default), min-plus, max-times or or-and (an entry of A or x\n"
    "                     is true when non-zero; y is 1 or 0: one BFS step)\n"
    "  --transpose        y = A^T x\n"
    "  --alpha A          scales A x (1); plus-times only\n"
    "  --beta B           scales the initial y, read from --y (0: y is not read). Other semirings\n"
    "                     take --beta 1 only: y = y (+) A x with the semiring's add\n"
    "  --y FILE           the initial y, rows entries (cols with --transpose); needs a non-zero\n"
    "                     --beta; every run starts from it\n"
    "--validate: mg_check_spmv, a serial SpMV in double; each entry within rtol * (the sum of its\n"
    "terms' magnitudes), rtol 1e-5 (single) or 1e-12 (double).\n"
    "GFLOP/s = 2 * nonzeros / median run time / 1e9. GB/s counts the fewest bytes an SpMV must\n"
    "move: the row offsets (column offsets with --transpose, 8 bytes each), the column indices (4)\n"
    "and values (the stored type) once, x once and y once (twice when --beta reads it).\n"
    "\n" HELP_COMMON_SPARSE;

static const char HELP_CG[] =
    "Usage: mgraph cg FILE [--b FILE] [--tolerance T] [--max-iter N] [--jacobi] [OPTIONS]\n"
    "\n"
    "Solves A x = b by conjugate gradients from x = 0, A symmetric positive definite (a square\n"
    "matrix that is not symmetric is refused; a breakdown, e.g. on an indefinite A, stops it).\n"
    "Not converging within --max-iter, or a breakdown, is an error (exit 1, no --output).\n"
    "  --b FILE           the right-hand side (default: all ones), rows entries\n"
    "  --tolerance T      stop when ||b - A x|| <= T ||b|| (1e-8 double, 1e-5 single)\n"
    "  --max-iter N       iteration limit (1000)\n"
    "  --jacobi           precondition with diag(A)^-1 (every diagonal entry must be > 0)\n"
    "  --history          print each iteration's relative residual ('history: K R'; in --json,\n"
    "                     history: [...])\n"
    "--output values: the solution x. --validate recomputes ||b - A x|| / ||b|| for the last\n"
    "run's x on the host (mg_spmv on a CPU context, in double; 'true residual: R (at most B)')\n"
    "and requires at most B = 1.1 T + 8 u || |A| |x| || / ||b||, u the unit roundoff of the\n"
    "precision: rounding x to single alone can leave more than T.\n"
    "Lines added: iterations: K / residual: R (tolerance T) / per iteration: X s (the loop\n"
    "time / K, median over the runs). GFLOP/s and GB/s are per iteration over that time: flops\n"
    "2 * nonzeros + 10 n (+ n with --jacobi); bytes the matrix once and 11 vectors of n (the\n"
    "SpMV reads p and writes A p; x, r and p are each updated from two vectors), 13 with\n"
    "--jacobi (its diagonal read, z written). --json adds tolerance, max_iter, jacobi,\n"
    "iterations, residual, loop_s, iteration_s, true_residual and validation_bound (with\n"
    "--validate) and history.\n"
    "\n" HELP_COMMON_SPARSE;

#define HELP_COMMON_PRODUCT                                                                        \
    "  --k K              the dense operands' columns, 1 to 1024; required unless an operand file\n"\
    "                     gives them (then it must agree)\n"                                       \
    "  --seed S           the generator of the operands no file gives (1): values of magnitude\n"  \
    "                     in [0.5, 1.5) with random signs, never zero\n"                           \
    "  --alpha A          scales the product (1)\n"                                              \
    "  --beta B           scales the initial C, read from --c (0: C is not read); every run\n"     \
    "                     starts from it\n"                                                      \
    "Common options:\n"                                                                            \
    "  --precision P      single or double (default): the arithmetic, the operands' type and how\n"\
    "                     the matrix's values are stored\n"                                       \
    "  --runs N           run N timed times after one untimed warm-up; report the median (1);\n"  \
    "                     each run waits for the device (mg_context_finish) inside its time\n"    \
    "  --validate         check the last run against a serial reference in double: each entry\n"  \
    "                     within rtol * (the sum of its terms' magnitudes), rtol 1e-5 (single)\n"\
    "                     or 1e-12 (double)\n"                                                    \
    "  --json             print one JSON object on stdout instead of the text lines\n"           \
    "  --backend B        cpu, gpu or auto (default). auto: the GPU where one is usable and\n"   \
    "                     nonzeros x K is at least 2^27 (an estimate, not yet measured end to\n" \
    "                     end), else the CPU. On the GPU the matrix's SpMM form (row panels,\n"  \
    "                     dense tiles) is built as preprocessing. The 'backend:' line says\n"     \
    "                     which ran and why\n"                                                   \
    "  --threads N        CPU threads, at most 8 per processor (0: OpenMP's default)\n"          \
    "\n"                                                                                           \
    "FILE is Matrix Market coordinate, as for spmv. Dense operand files are Matrix Market array\n"\
    "files or plain text, one row per line; a shape that does not fit the matrix or K is a usage\n"\
    "error (exit 2) naming the file. --output is written whole or not at all, never after a\n"    \
    "failed run or --validate; an input file itself is refused.\n"                               \
    "GFLOP/s = 2 * nonzeros * K / median run time / 1e9. GB/s counts the fewest bytes a call\n"   \
    "must move: the CSR (8-byte offsets, 4-byte indices, values) and each dense operand once, C\n"\
    "once (twice when --beta reads it).\n"                                                         \
    "Output lines: as spmv's (see 'mgraph help spmv'), with K: K / the operands' sizes and\n"     \
    "sources / product: ...; on the GPU 'gpu preprocess' is the SpMM form's build. --json adds\n" \
    "k, seed, the operand sources (a file or \"random\"), alpha, beta.\n"

static const char HELP_SPMM[] =
    "Usage: mgraph spmm FILE [--k K] [--b FILE] [--transpose] [--beta B --c FILE] [--tf32]\n"
    "                   [OPTIONS]\n"
    "\n"
    "C = alpha * (A B) + beta * C, A sparse from FILE, B dense with K columns.\n"
    "  --b FILE           B: A's cols rows (rows with --transpose) and K columns (default:\n"
    "                     generated, see --seed)\n"
    "  --transpose        C = A^T B\n"
    "  --c FILE           the initial C, A's rows x K (cols x K with --transpose); needs a\n"
    "                     non-zero --beta\n"
    "  --tf32             with --precision single on the GPU, allow TF32 tensor cores where\n"
    "                     they are faster: products of values rounded to 10-bit mantissas, an\n"
    "                     entry within about 1e-3 of its products' magnitudes (--validate\n"
    "                     allows 1.25e-3); the kernel line says whether they were taken\n"
    "  --output FILE      C as a Matrix Market array file\n"
    HELP_COMMON_PRODUCT;

static const char HELP_SDDMM[] =
    "Usage: mgraph sddmm FILE [--k K] [--a FILE] [--b FILE] [--beta B --c FILE] [OPTIONS]\n"
    "\n"
    "Sampled dense-dense product: C = alpha * (S .* (A B^T)) + beta * C on the pattern of S from\n"
    "FILE: for every stored entry (i, j), S(i, j) times row i of A dot row j of B (S's values\n"
    "read as 1 for a pattern file).\n"
    "  --a FILE           A: S's rows x K (default: generated, see --seed)\n"
    "  --b FILE           B: S's cols x K (default: generated)\n"
    "  --c FILE           the initial C: a Matrix Market coordinate file with S's pattern (as\n"
    "                     --output writes); needs a non-zero --beta\n"
    "  --output FILE      C as a Matrix Market coordinate file with S's pattern\n"
    HELP_COMMON_PRODUCT;

static const char HELP_SPGEMM[] =
    "Usage: mgraph spgemm A.mtx [B.mtx] -o|--output C.mtx [--mask M.mtx [--complement]]\n"
    "                     [--semiring S] [OPTIONS]\n"
    "\n"
    "C = A B of two sparse Matrix Market files (A A when B is not given): Gustavson's row-by-row\n"
    "product, columns sorted in each row. A's columns must equal B's rows (else a usage error,\n"
    "exit 2, naming both files).\n"
    "  --output, -o FILE  C as a Matrix Market coordinate file (written whole or not at all,\n"
    "                     never after a failed run or --validate)\n"
    "  --mask FILE        compute only the entries M stores (C<M> = A B); M has C's shape\n"
    "  --complement       with --mask: only the entries M does not store\n"
    "  --semiring S       plus-times (default), min-plus, max-times, or-and (values 1)\n"
    "  --precision P      single (both read as float: float arithmetic) or double (default)\n"
    "  --backend B        cpu, gpu or auto (default: auto, which picks the CPU: on an H100\n"
    "                     beside 16 cores the GPU SpGEMM was not faster end to end in the\n"
    "                     products measured)\n"
    "  --runs N           timed runs after one warm-up; the median is reported (default 1)\n"
    "  --validate         check C against a serial product in double (mg_check_spgemm)\n"
    "  --json             one JSON object instead of the lines\n"
    "  --threads T        OpenMP threads\n"
    "Output lines: as spmv's (see 'mgraph help spmv'), with B: and mask: (the operands), product:\n"
    "C's shape and stored entries, and GFLOP/s = 2 * multiply-adds / median run time / 1e9\n"
    "(multiply-adds: the sum over A's entries (i, k) of B's row k's length, the unmasked work).\n";

static const char HELP_CHAIN[] =
    "Usage: mgraph chain DIR -o|--output OUT [OPTIONS]\n"
    "       mgraph chain A1 A2 ... AN -o|--output OUT [--k K] [OPTIONS]\n"
    "       mpirun -np P mgraph chain ...\n"
    "\n"
    "C = A1 A2 ... AN, the matrices multiplied in order as block-CSR (square blocks of side k,\n"
    "Gustavson over block rows). DIR holds a size file \"N k\" and matrix1 .. matrixN in mgraph's\n"
    "BCSR text format; or list the files in order (.mtx Matrix Market, converted in blocks of --k;\n"
    "any other name: the BCSR text format with --k). docs/CHAIN.md describes both formats. Under\n"
    "MPI each rank reads and multiplies a contiguous segment of the chain, then a binary tree of\n"
    "point-to-point messages combines the partial products in order on rank 0, which writes C. A\n"
    "missing or malformed file, or a matrix whose rows are not the previous one's columns, stops\n"
    "every rank with one message naming the file (and line), exit 1.\n"
    "  --output, -o OUT   C in the BCSR text format, or Matrix Market when OUT ends in .mtx\n"
    "                     (written whole or not at all, never after a failed run or --validate)\n"
    "  --k K              the block side for a list of files, 2..32 (default 4; a folder's size\n"
    "                     file gives it)\n"
    "  --values V         uint64 (default: products and sums wrap modulo 2^64; a .mtx file's values\n"
    "                     must be integers), float or double\n"
    "  --backend B        cpu, gpu or auto (default: the GPU where one is usable); under MPI rank r\n"
    "                     uses GPU r modulo the visible ones\n"
    "  --runs N           timed products (each the local segments and the tree); the median is\n"
    "                     reported (default 1)\n"
    "  --validate         check C against the serial product of the whole chain on rank 0 (CPU)\n"
    "  --json             one JSON object instead of the lines\n"
    "  --threads T        OpenMP threads per rank\n"
    "Output lines (rank 0): chain:, ranks:, load: (the slowest rank's reading), product: C's shape\n"
    "and blocks, run: (median, seconds), one line per rank (its matrices, its load, its local and\n"
    "tree products, its time in messages, waiting included, and that time's share of its run),\n"
    "validation:, backend:.\n";

static const char HELP_PROBE[] =
    "Usage: mgraph probe [--json]\n"
    "\n"
    "Measures the GPU (a few seconds): PCIe bandwidth both ways, pinned and pageable (64 MiB\n"
    "copies), and latency (a 4-byte copy); kernel launch latency; device memory read and copy\n"
    "bandwidth; global (distinct and contended) and shared atomics throughput; peak FMA rate, fp32\n"
    "and fp64. One line per parameter with its unit (GB/s = 1e9 bytes/s). Without a usable GPU it\n"
    "fails (exit 1) saying why.\n"
    "  --json             one JSON object: name, l2_bytes and the fields of mg_gpu_probe_result\n"
    "                     (h2d_pinned_gbs, ..., fp64_gflops)\n";

#define HELP_COMMON_COUNTS                                                                         \
    "Options, as for the other algorithms (see 'mgraph help bfs'): --runs N, --validate (against\n"\
    "a serial neighbour-set intersection), --output FILE, --json, --threads N, and the reading\n" \
    "options --undirected, --directed, --keep-self-loops, --keep-duplicates, --format F,\n"     \
    "--max-vertices N (self loops, parallel edges and directions never change the counts).\n"   \
    "  --backend B        cpu, gpu or auto (default). auto: the GPU where one is usable and the\n"\
    "                     graph has at least 2^22 stored edges (measured end to end against 16\n"\
    "                     cores: R-MAT of 7.6M edges 2.2x faster on the GPU, 1.8M slower)\n"     \
    "Output lines: those of 'mgraph help bfs' (MTEPS: stored edges / median run time / 1e6).\n"

static const char HELP_TC[] =
    "Usage: mgraph tc FILE [OPTIONS]\n"
    "\n"
    "Triangle counting on the undirected simple graph underlying the file (directions, self loops\n"
    "and parallel edges ignored): C<L> = L L with L its strictly lower triangle (masked SpGEMM).\n"
    "Prints 'triangles: N' (--json: \"triangles\").\n"
    "--output values: the triangles each vertex is in (each triangle counts at its three\n"
    "vertices); asking for them adds a second product, D<L> = L^T L, to every run.\n"
    "\n" HELP_COMMON_COUNTS;

static const char HELP_LCC[] =
    "Usage: mgraph lcc FILE [OPTIONS]\n"
    "\n"
    "Local clustering coefficient as LDBC Graphalytics defines it. Undirected: the edges among a\n"
    "vertex's d neighbours over d(d-1)/2. Directed: the neighbours are the union of in- and\n"
    "out-neighbours and the arcs among them count by direction, over d(d-1). 0 where d < 2.\n"
    "--output values: the coefficient.\n"
    "\n" HELP_COMMON_COUNTS;

static const char HELP_CDLP[] =
    "Usage: mgraph cdlp FILE [--iterations N] [OPTIONS]\n"
    "\n"
    "Community detection by label propagation as LDBC Graphalytics defines it: labels start as\n"
    "the vertex ids; in each of N synchronous rounds (--iterations, default 10) every vertex takes\n"
    "the most frequent label among its neighbours, ties to the smallest (in- and out-neighbours\n"
    "on a directed graph, an arc both ways counting twice). A user-defined program with a mode\n"
    "combine, on the GPU compiled there by NVRTC; auto takes the GPU from 2^21 stored edges.\n"
    "--output values: the label, a vertex id in the file's numbering. --validate: against a\n"
    "serial run of the same rounds (exact).\n"
    "Options otherwise as for tc and lcc: --runs N, --validate, --output FILE, --json,\n"
    "--threads N and the reading options (see 'mgraph help bfs').\n";
static const char HELP_GRAPHALYTICS[] =
    "Usage: mgraph graphalytics NAME.properties --output-dir D [OPTIONS]\n"
    "\n"
    "LDBC Graphalytics: loads the dataset NAME.properties names (NAME.v, NAME.e: any 64-bit ids),\n"
    "runs each algorithm it lists with its parameters as the benchmark defines them (BFS depth,\n"
    "unreached 9223372036854775807; PR a fixed number of iterations; WCC; SSSP, unreached\n"
    "Infinity; LCC; CDLP where the build has it), writes D/NAME-ALGO ('<id> <value>' per vertex,\n"
    "each file whole or not at all) and validates it against NAME-ALGO beside the properties\n"
    "file when there is one: exact for BFS and CDLP, the same partition for WCC, relative 1e-4\n"
    "for PR, LCC and SSSP ('PASS'); else with the library's serial checker, which the table\n"
    "names ('PASS (mg_check_bfs, no reference)'; a dataset 'mgraph convert' wrote has no\n"
    "reference). Prints load time, processing time and EVPS ((|V|+|E|) per second of\n"
    "processing) per algorithm; exit 1 when a validation fails.\n"
    "\n"
    "Options:\n"
    "  --output-dir D     where the outputs go (made if missing; required)\n"
    "  --algos L          a comma-separated subset of the file's algorithms (bfs,pr,...)\n"
    "  --backend B        cpu, gpu or auto (default: the GPU where one is usable)\n"
    "  --threads N        CPU threads (0: OpenMP's default)\n"
    "  --no-check         no serial checker where there is no reference (they are serial:\n"
    "                     on a large graph they take far longer than the run)\n"
    "  --json             one JSON object on stdout instead of the table\n";

static const struct {
    const char *name;
    const char *help;
} COMMANDS[] = {
    {"bfs", HELP_BFS},   {"sssp", HELP_SSSP}, {"cc", HELP_CC},           {"pr", HELP_PR},
    {"bc", HELP_BC},     {"info", HELP_INFO}, {"gen", HELP_GEN},         {"convert", HELP_CONVERT},
    {"bench", HELP_BENCH}, {"spmv", HELP_SPMV},   {"cg", HELP_CG},           {"probe", HELP_PROBE},
    {"spmm", HELP_SPMM},   {"sddmm", HELP_SDDMM}, {"spgemm", HELP_SPGEMM},
    {"tc", HELP_TC},       {"lcc", HELP_LCC},     {"chain", HELP_CHAIN},     {"cdlp", HELP_CDLP},
    {"graphalytics", HELP_GRAPHALYTICS},
};

bool cli_print_help(FILE *f, const char *name) {
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
        if (strcmp(COMMANDS[i].name, name) == 0) {
            fputs(COMMANDS[i].help, f);
            if (f == stdout) cli_flush_stdout();
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------ */
/* Options                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    bool takes_value;
    int commands;
} OPTIONS[OPT_COUNT] = {
    [OPT_HELP] = {"--help", false, CMD_ALL},
    [OPT_SOURCE] = {"--source", true, CMD_BFS | CMD_SSSP | CMD_BC | CMD_BENCH | CMD_GEN | CMD_CONVERT},
    [OPT_BACKEND] = {"--backend", true, CMD_ALGOS | CMD_COUNTS | CMD_SPARSE | CMD_CHAIN | CMD_GRAPHALYTICS},
    [OPT_RUNS] = {"--runs", true, CMD_ALGOS | CMD_COUNTS | CMD_BENCH | CMD_SPARSE | CMD_CHAIN},
    [OPT_VALIDATE] = {"--validate", false, CMD_ALGOS | CMD_COUNTS | CMD_SPARSE | CMD_CHAIN},
    [OPT_OUTPUT] = {"--output", true, CMD_ALGOS | CMD_COUNTS | CMD_GEN | CMD_SPARSE | CMD_CHAIN},
    [OPT_JSON] = {"--json", false, CMD_ALGOS | CMD_COUNTS | CMD_INFO | CMD_BENCH | CMD_SPARSE | CMD_PROBE | CMD_CHAIN | CMD_GRAPHALYTICS},
    [OPT_THREADS] = {"--threads", true, CMD_ALL & ~CMD_PROBE},
    [OPT_MODE] = {"--mode", true, CMD_ALGOS},
    [OPT_ENGINE] = {"--engine", true, CMD_ALGOS},
    [OPT_TRACE] = {"--trace", false, CMD_ALGOS | CMD_BENCH},
    [OPT_SAMPLE] = {"--sample", true, CMD_ALGOS | CMD_BENCH},
    [OPT_UNDIRECTED] = {"--undirected", false, CMD_READERS},
    [OPT_DIRECTED] = {"--directed", false, CMD_READERS | CMD_GEN},
    [OPT_KEEP_SELF_LOOPS] = {"--keep-self-loops", false, CMD_READERS},
    [OPT_KEEP_DUPLICATES] = {"--keep-duplicates", false, CMD_READERS},
    [OPT_FORMAT] = {"--format", true, CMD_READERS},
    [OPT_MAX_VERTICES] = {"--max-vertices", true, CMD_READERS},
    [OPT_ALLOW_NEGATIVE] = {"--allow-negative-weights", false, CMD_INFO | CMD_CONVERT},
    [OPT_TOLERANCE] = {"--tolerance", true, CMD_PR | CMD_BENCH | CMD_CG},
    [OPT_MAX_ITER] = {"--max-iter", true, CMD_PR | CMD_BENCH | CMD_CG},
    [OPT_DAMPING] = {"--damping", true, CMD_PR | CMD_BENCH},
    [OPT_DATA_DRIVEN] = {"--data-driven", false, CMD_PR | CMD_BENCH},
    [OPT_SOURCES] = {"--sources", true, CMD_BC | CMD_BENCH},
    [OPT_ALL] = {"--all", false, CMD_BC | CMD_BENCH},
    [OPT_DELTA] = {"--delta", true, CMD_SSSP | CMD_BENCH},
    [OPT_ITERATIONS] = {"--iterations", true, CMD_CDLP},
    [OPT_ALGOS] = {"--algos", true, CMD_BENCH | CMD_GRAPHALYTICS},
    [OPT_ENGINES] = {"--engines", true, CMD_BENCH},
    [OPT_SCALE] = {"--scale", true, CMD_GEN},
    [OPT_EDGE_FACTOR] = {"--edge-factor", true, CMD_GEN},
    [OPT_SEED] = {"--seed", true, CMD_GEN | CMD_CONVERT | CMD_SPMM | CMD_SDDMM},
    [OPT_RENUMBER] = {"--renumber", true, CMD_CONVERT},
    [OPT_WEIGHTS] = {"--weights", true, CMD_GEN},
    [OPT_WIDTH] = {"--width", true, CMD_GEN},
    [OPT_HEIGHT] = {"--height", true, CMD_GEN},
    /* gen: R-MAT a, b, c; cg: the right-hand side; spmm, sddmm: the dense operands */
    [OPT_A] = {"--a", true, CMD_GEN | CMD_SDDMM},
    [OPT_B] = {"--b", true, CMD_GEN | CMD_CG | CMD_SPMM | CMD_SDDMM},
    [OPT_C] = {"--c", true, CMD_GEN | CMD_SPMM | CMD_SDDMM},
    [OPT_X] = {"--x", true, CMD_SPMV},
    [OPT_Y] = {"--y", true, CMD_SPMV},
    [OPT_SEMIRING] = {"--semiring", true, CMD_SPMV | CMD_SPGEMM},
    [OPT_TRANSPOSE] = {"--transpose", false, CMD_SPMV | CMD_SPMM},
    [OPT_TF32] = {"--tf32", false, CMD_SPMM},
    [OPT_ALPHA] = {"--alpha", true, CMD_SPMV | CMD_SPMM | CMD_SDDMM},
    [OPT_BETA] = {"--beta", true, CMD_SPMV | CMD_SPMM | CMD_SDDMM},
    [OPT_PRECISION] = {"--precision", true, CMD_SPARSE | CMD_PR},
    [OPT_JACOBI] = {"--jacobi", false, CMD_CG},
    [OPT_HISTORY] = {"--history", false, CMD_CG},
    [OPT_K] = {"--k", true, CMD_SPMM | CMD_SDDMM | CMD_CHAIN},
    [OPT_MASK] = {"--mask", true, CMD_SPGEMM},
    [OPT_COMPLEMENT] = {"--complement", false, CMD_SPGEMM},
    [OPT_VALUES] = {"--values", true, CMD_CHAIN},
    [OPT_OUTPUT_DIR] = {"--output-dir", true, CMD_GRAPHALYTICS},
    [OPT_NO_CHECK] = {"--no-check", false, CMD_GRAPHALYTICS},
};

const char *cli_opt_name(cli_opt_id id) { return OPTIONS[id].name; }

int cli_usage_error(const char *name, const char *fmt, ...) {
    va_list ap;
    FILE *err = cli_err();
    fputs("mgraph: ", err);
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
    if (name != NULL)
        fprintf(err, "\nTry 'mgraph %s --help'.\n", name);
    else
        fputs("\nTry 'mgraph --help'.\n", err);
    return CLI_USAGE;
}

int cli_parse(int argc, char **argv, int first, const char *name, int cmd, int max_positional,
              cli_args *args) {
    memset(args, 0, sizeof *args);
    args->name = name;
    args->cmd = cmd;
    bool options_done = false; /* after "--" every word is positional */
    for (int i = first; i < argc; i++) {
        const char *word = argv[i];
        if (!options_done && strcmp(word, "--") == 0) {
            options_done = true;
            continue;
        }
        if (options_done || word[0] != '-' || word[1] == '\0') {
            if (args->npositional >= max_positional)
                return cli_usage_error(name, "%s: unexpected argument '%s'", name, word);
            args->positional[args->npositional++] = word;
            continue;
        }
        if (strcmp(word, "-h") == 0) word = "--help";
        if (strcmp(word, "-o") == 0) word = "--output";
        const char *eq = strchr(word, '=');
        size_t len = eq ? (size_t)(eq - word) : strlen(word);
        int id = -1;
        for (int k = 0; k < OPT_COUNT; k++) {
            if (strlen(OPTIONS[k].name) == len && strncmp(OPTIONS[k].name, word, len) == 0) {
                id = k;
                break;
            }
        }
        if (id < 0)
            return cli_usage_error(name, "%s: unknown option '%.*s'", name, (int)len, word);
        if (!(OPTIONS[id].commands & cmd))
            return cli_usage_error(name, "%s: option '%s' does not apply to '%s'", name,
                                   OPTIONS[id].name, name);
        if (id == OPT_HELP) {
            /* Help wins over everything else on the line, even over later mistakes. Over
             * several ranks rank 0 prints it. */
            if (cli_rank() == 0) cli_print_help(stdout, name);
            cli_mpi_end();
            exit(CLI_OK);
        }
        if (OPTIONS[id].takes_value) {
            if (eq != NULL) {
                args->value[id] = eq + 1;
            } else {
                if (i + 1 >= argc)
                    return cli_usage_error(name, "%s: option '%s' needs a value", name,
                                           OPTIONS[id].name);
                args->value[id] = argv[++i];
            }
            if (args->value[id][0] == '\0')
                return cli_usage_error(name, "%s: option '%s' needs a value, got ''", name,
                                       OPTIONS[id].name);
        } else {
            if (eq != NULL)
                return cli_usage_error(name, "%s: option '%s' takes no value (got '%s')", name,
                                       OPTIONS[id].name, word);
            args->value[id] = "";
        }
    }
    return CLI_OK;
}

int cli_u64(const cli_args *a, cli_opt_id id, uint64_t min, uint64_t max, uint64_t *out) {
    const char *s = a->value[id] ? a->value[id] : "";
    /* Say what is wrong: '-0' is zero with a sign, not a negative number. */
    const char *why = NULL;
    uint64_t v = 0;
    if (s[0] == '-' || s[0] == '+') {
        why = "a sign is not allowed";
    } else if (s[0] < '0' || s[0] > '9') {
        why = "not a whole number";
    } else {
        char *end = NULL;
        errno = 0;
        v = (uint64_t)strtoull(s, &end, 10);
        if (*end != '\0')
            why = "not a whole number";
        else if (errno == ERANGE || v > max)
            why = "too large";
        else if (v < min)
            why = "too small";
    }
    if (why != NULL)
        return cli_usage_error(a->name,
                               "%s: invalid value '%s' for %s (%s): expected an integer from %llu "
                               "to %llu",
                               a->name, s, OPTIONS[id].name, why, (unsigned long long)min,
                               (unsigned long long)max);
    *out = v;
    return CLI_OK;
}

int cli_double(const cli_args *a, cli_opt_id id, double min, double max, bool min_open,
               bool max_open, double *out) {
    const char *s = a->value[id];
    bool ok = s != NULL && s[0] != '\0';
    double v = 0;
    if (ok) {
        char *end = NULL;
        errno = 0;
        v = strtod(s, &end);
        ok = errno == 0 && *end == '\0' && isfinite(v);
    }
    if (ok) ok = (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max);
    if (!ok)
        return cli_usage_error(a->name, "%s: invalid value '%s' for %s: expected a number in %c%g, %g%c",
                               a->name, s ? s : "", OPTIONS[id].name, min_open ? '(' : '[', min,
                               max, max_open ? ')' : ']');
    *out = v;
    return CLI_OK;
}

int cli_choice(const cli_args *a, cli_opt_id id, const char *const *names, const int *values,
               int count, int *out) {
    const char *s = a->value[id];
    for (int i = 0; i < count; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = values[i];
            return CLI_OK;
        }
    }
    char expected[128] = "";
    for (int i = 0; i < count; i++) {
        strcat(expected, names[i]);
        if (i + 1 < count) strcat(expected, i + 2 == count ? " or " : ", ");
    }
    return cli_usage_error(a->name, "%s: invalid value '%s' for %s: expected %s", a->name, s,
                           cli_opt_name(id), expected);
}

/* ------------------------------------------------------------------------------------------------ */
/* Shared helpers                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double cli_median(double *times, uint64_t n) {
    qsort(times, n, sizeof *times, cmp_double);
    return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

int cli_threads(const cli_args *a) {
    int threads = a->value[OPT_THREADS] ? atoi(a->value[OPT_THREADS]) : 0;
#ifdef _OPENMP
    if (threads == 0) threads = omp_get_max_threads();
#endif
    return threads;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_lib_error(mg_context ctx, mg_status status) {
    const char *msg = ctx ? mg_context_error(ctx) : NULL;
    if (msg != NULL && msg[0] != '\0')
        fprintf(cli_err(), "mgraph: %s\n", msg);
    else
        fprintf(cli_err(), "mgraph: %s\n", mg_status_string(status));
    return CLI_FAIL;
}

const char *cli_weight_name(mg_weight_type t) {
    switch (t) {
    case MG_WEIGHT_NONE: return "none";
    case MG_WEIGHT_INT32: return "int32";
    case MG_WEIGHT_FLOAT: return "float";
    }
    return "unknown";
}

void cli_print_graph(const char *label, const char *name, const mg_graph g) {
    printf("%s: %s (%u vertices, %llu edges, %s, weights %s)\n", label, name,
           mg_graph_num_vertices(g), (unsigned long long)mg_graph_num_edges(g),
           mg_graph_is_directed(g) ? "directed" : "undirected",
           cli_weight_name(mg_graph_weight_type(g)));
}

void cli_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Progress on stderr: only on a terminal, only once the load has taken a second. The reader may
 * call from several threads, hence the critical section. */
static void progress_cb(double fraction, void *user) {
    cli_progress *p = user;
#pragma omp critical(mgraph_cli_progress)
    {
        if (cli_now() - p->start >= 1.0) {
            if (fraction < 0) fraction = 0;
            if (fraction > 1) fraction = 1;
            fprintf(stderr, "\rloading %s: %3.0f%%", p->path, 100.0 * fraction);
            fflush(stderr);
            p->shown = true;
        }
    }
}

void cli_progress_done(cli_progress *progress) {
    if (progress != NULL && progress->shown) {
        fputs("\n", stderr);
        progress->shown = false;
    }
}

int cli_read_options(const cli_args *a, mg_read_options *ro, cli_progress *progress) {
    mg_read_options_init(ro);
    if (a->value[OPT_UNDIRECTED] && a->value[OPT_DIRECTED])
        return cli_usage_error(a->name, "%s: --undirected and --directed exclude each other",
                               a->name);
    if (a->value[OPT_UNDIRECTED]) ro->undirected = 1;
    if (a->value[OPT_DIRECTED]) ro->undirected = 0;
    ro->keep_self_loops = a->value[OPT_KEEP_SELF_LOOPS] != NULL;
    ro->keep_duplicates = a->value[OPT_KEEP_DUPLICATES] != NULL;
    ro->allow_negative_weights = a->value[OPT_ALLOW_NEGATIVE] != NULL;
    if (a->value[OPT_MAX_VERTICES] != NULL) {
        uint64_t mv = 0;
        int rc = cli_u64(a, OPT_MAX_VERTICES, 1, UINT32_MAX - 1, &mv);
        if (rc != CLI_OK) return rc;
        ro->max_vertices = mv;
    }
    const char *f = a->value[OPT_FORMAT];
    if (f != NULL) {
        if (strcmp(f, "mtx") == 0)
            ro->format = MG_FORMAT_MATRIX_MARKET;
        else if (strcmp(f, "snap") == 0)
            ro->format = MG_FORMAT_SNAP;
        else if (strcmp(f, "dimacs") == 0)
            ro->format = MG_FORMAT_DIMACS;
        else if (strcmp(f, "binary") == 0)
            ro->format = MG_FORMAT_BINARY;
        else
            return cli_usage_error(a->name,
                                   "%s: invalid value '%s' for --format: expected mtx, snap, "
                                   "dimacs or binary",
                                   a->name, f);
    }
    if (progress != NULL && cli_rank() == 0 && isatty(STDERR_FILENO)) {
        progress->start = cli_now();
        progress->shown = false;
        ro->progress = progress_cb;
        ro->progress_user = progress;
    }
    return CLI_OK;
}

int cli_apply_threads(const cli_args *a, mg_context ctx) {
    if (a->value[OPT_THREADS] == NULL) return CLI_OK;
    uint64_t t = 0;
    /* At most 8 per processor: enough oversubscription for experiments, while thousands of
     * threads only cost memory (a stack each) and make libgomp abort under a memory limit before
     * any message of ours. */
    long procs = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t most = 8 * (uint64_t)(procs > 0 ? procs : 1);
    int rc = cli_u64(a, OPT_THREADS, 0, most, &t);
    if (rc != CLI_OK) return rc;
    mg_status st = mg_context_set_threads(ctx, (int)t);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(ctx, st);
}

int cli_check_not_input(const char *name, const char *what, const char *out, const char *in) {
    struct stat so, si;
    /* The same file under another name or through a link counts: compare the files, not names. */
    if (stat(out, &so) == 0 && stat(in, &si) == 0 && so.st_dev == si.st_dev &&
        so.st_ino == si.st_ino)
        return cli_usage_error(name, "%s: %s '%s' is the input file '%s': writing it would replace "
                               "the input; choose another name", name, what, out, in);
    return CLI_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Several ranks: `mpirun -np P mgraph bfs|sssp|cc|pr|bc` (issue 19)                                */
/* ------------------------------------------------------------------------------------------------ */

/*
 * Under mpirun the five algorithms run as one MPI program: every rank parses the same command line,
 * reads the same file into a context over MPI_COMM_WORLD (mg_context_set_mpi: the graph is split,
 * the result whole on every rank) and makes the same calls. What may differ between ranks is kept
 * from blocking a rank in a collective the others never reach: between two agreement points
 * (cli_agree) no rank takes a path with a collective that another rank skips, and each agreement
 * ends with every rank holding the worst status of all, so all go on or all stop together.
 *
 * Messages: a rank's messages (cli_err()) are kept until the next agreement, where rank 0 prints
 * them: once when every rank said the same (a missing file, a bad --source) or only rank 0 spoke
 * (its --output, its --validate), else each rank's lines after "rank R:". The --trace lines and
 * the output lines are rank 0's, printed as they come.
 */

static struct {
    bool active;   /* MPI_Init_thread was called here (not after cli_mpi_end)              */
    int rank, size;
    FILE *err;     /* this rank's messages since the last agreement (open_memstream)       */
    char *err_text;
    size_t err_len;
} ranks_world = {false, 0, 1, NULL, NULL, 0};

bool cli_mpi(void) { return ranks_world.active; }
int cli_rank(void) { return ranks_world.rank; }
int cli_ranks(void) { return ranks_world.size; }
FILE *cli_err(void) { return ranks_world.err != NULL ? ranks_world.err : stderr; }

/* The environment mpirun (Open MPI), MPICH's and Intel MPI's hydra, or a PMIx launcher (srun
 * --mpi=pmix, prterun) gives each process it starts: the number of ranks where it says (0 when
 * unknown), or -1 outside such a launch. */
static int launched_ranks(void) {
    static const char *const SIZES[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        const char *v = getenv(SIZES[i]);
        if (v != NULL && v[0] != '\0') return atoi(v) > 0 ? atoi(v) : 0;
    }
    const char *pmix = getenv("PMIX_RANK");
    return pmix != NULL && pmix[0] != '\0' ? 0 : -1;
}

/* This process's rank from the launcher's environment (0 where it does not say). */
static int launched_rank(void) {
    static const char *const RANKS[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof RANKS / sizeof RANKS[0]; i++) {
        const char *v = getenv(RANKS[i]);
        if (v != NULL && v[0] != '\0') return atoi(v);
    }
    return 0;
}

static void open_capture(void) {
    ranks_world.err_text = NULL;
    ranks_world.err_len = 0;
    /* Without a memory stream (no memory) messages go straight to stderr, one copy per rank. */
    ranks_world.err = open_memstream(&ranks_world.err_text, &ranks_world.err_len);
}

/* Takes what this rank wrote to cli_err() since the last call (malloc'ed, *len bytes; the caller
 * frees it) and starts afresh. */
static char *take_capture(size_t *len) {
    *len = 0;
    if (ranks_world.err == NULL) return NULL;
    fclose(ranks_world.err); /* sets err_text and err_len for the last time */
    char *text = ranks_world.err_text;
    *len = ranks_world.err_len;
    open_capture();
    return text;
}

#ifdef MG_HAVE_MPI
/* Rank 0 prints the ranks' messages (see above): lens[r] bytes at all + at[r] from rank r. */
static void print_messages(const char *all, const int *lens, const int *at, int size) {
    int first = -1, speakers = 0;
    bool same = true;
    for (int r = 0; r < size; r++) {
        if (lens[r] == 0) continue;
        speakers++;
        if (first < 0)
            first = r;
        else if (lens[r] != lens[first] || memcmp(all + at[r], all + at[first], (size_t)lens[r]) != 0)
            same = false;
    }
    if (speakers == 0) return;
    if (same && (speakers == size || (speakers == 1 && first == 0))) {
        fwrite(all + at[first], 1, (size_t)lens[first], stderr);
        if (all[at[first] + lens[first] - 1] != '\n') fputc('\n', stderr);
    } else {
        for (int r = 0; r < size; r++) {
            const char *p = all + at[r], *end = p + lens[r];
            while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *stop = nl != NULL ? nl : end;
                if (stop - p >= 8 && strncmp(p, "mgraph: ", 8) == 0)
                    fprintf(stderr, "mgraph: rank %d: %.*s\n", r, (int)(stop - p - 8), p + 8);
                else
                    fprintf(stderr, "rank %d: %.*s\n", r, (int)(stop - p), p);
                p = stop + (nl != NULL);
            }
        }
    }
    fflush(stderr);
}
#endif

int cli_agree(int rc) {
    if (!ranks_world.active) return rc;
    size_t len = 0;
    char *text = take_capture(&len);
    const size_t most = (size_t)1 << 16; /* a rank's messages past 64 KiB are cut */
    int mine = len > most ? (int)most : (int)len;
#ifdef MG_HAVE_MPI
    int local[2] = {rc, mine > 0}, all[2] = {rc, 0};
    MPI_Allreduce(local, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all[1]) {
        const int size = ranks_world.size, root = ranks_world.rank == 0;
        int *lens = root ? calloc((size_t)size, sizeof *lens) : NULL;
        int *at = root ? calloc((size_t)size, sizeof *at) : NULL;
        MPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
        char *gathered = NULL;
        if (root) {
            size_t total = 0;
            for (int r = 0; r < size; r++) {
                at[r] = (int)total;
                total += (size_t)lens[r];
            }
            gathered = malloc(total + 1);
        }
        MPI_Gatherv(text, mine, MPI_CHAR, gathered, lens, at, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (root) print_messages(gathered, lens, at, size);
        free(gathered);
        free(lens);
        free(at);
    }
    rc = all[0];
#else
    if (mine > 0) fwrite(text, 1, (size_t)mine, stderr);
#endif
    free(text);
    return rc;
}

int cli_ranks_max(int v) {
#ifdef MG_HAVE_MPI
    if (ranks_world.active) {
        int all = v;
        MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return all;
    }
#endif
    return v;
}

void cli_ranks_max_doubles(double *v, uint64_t n) {
#ifdef MG_HAVE_MPI
    for (uint64_t at = 0; ranks_world.active && at < n; at += (uint64_t)1 << 24) {
        const uint64_t k = n - at < ((uint64_t)1 << 24) ? n - at : (uint64_t)1 << 24;
        MPI_Allreduce(MPI_IN_PLACE, v + at, (int)k, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
#else
    (void)v;
    (void)n;
#endif
}

bool cli_ranks_own_devices(int device, char *why, size_t why_size) {
    why[0] = '\0';
#ifdef MG_HAVE_MPI
    if (ranks_world.active) {
        /* the devices of the ranks on this host, as test_dist.c compares them */
        MPI_Comm host;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ranks_world.rank, MPI_INFO_NULL,
                            &host);
        int local = 1, me = 0;
        MPI_Comm_size(host, &local);
        MPI_Comm_rank(host, &me);
        int *devices = malloc((size_t)local * 2 * sizeof *devices);
        if (devices == NULL) { /* a few ints: no way to stay in step with the others without them */
            fprintf(stderr, "mgraph: rank %d: out of memory comparing the ranks' GPUs\n",
                    ranks_world.rank);
            MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
        }
        int *world_of = devices + local;
        int ok = device >= 0;
        MPI_Allgather(&device, 1, MPI_INT, devices, 1, MPI_INT, host);
        MPI_Allgather(&ranks_world.rank, 1, MPI_INT, world_of, 1, MPI_INT, host);
        for (int i = 0; i < local && ok; i++) {
            if (i == me || devices[i] != device) continue;
            char name[MPI_MAX_PROCESSOR_NAME] = "";
            int name_len = 0;
            MPI_Get_processor_name(name, &name_len);
            snprintf(why, why_size, "GPU %d is rank %d's too (host %s): the ranks' GPUs exchange "
                     "through NCCL, which needs a GPU per rank; start at most as many ranks per "
                     "host as it has GPUs", device, world_of[i], name);
            ok = 0;
        }
        free(devices);
        MPI_Comm_free(&host);
        int all = ok;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return all != 0;
    }
#endif
    (void)why_size;
    return device >= 0;
}

mg_status cli_context_set_ranks(mg_context ctx) {
#ifdef MG_HAVE_MPI
    if (ranks_world.active) return mg_context_set_mpi(ctx, MPI_COMM_WORLD);
#else
    (void)ctx;
#endif
    return MG_SUCCESS;
}

void cli_mpi_end(void) {
    if (!ranks_world.active) return;
    size_t len = 0;
    char *text = take_capture(&len);
    if (len > 0) fwrite(text, 1, len, stderr); /* nothing is left after the last agreement */
    free(text);
    if (ranks_world.err != NULL) fclose(ranks_world.err);
    free(ranks_world.err_text);
    ranks_world.err = NULL;
    ranks_world.err_text = NULL;
#ifdef MG_HAVE_MPI
    MPI_Finalize();
#endif
    ranks_world.active = false;
}

#ifdef MG_HAVE_MPI
/* An algorithm over the launch's ranks: MPI up, the harness, one verdict for all, MPI down. */
static int run_over_ranks(int argc, char **argv, const char *name, int cmd) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks_world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_world.size);
    ranks_world.active = true;
    open_capture();
    int rc = cmd == CMD_BENCH ? cli_bench_main(argc, argv) : cli_algo_main(argc, argv, name, cmd);
    /* rank 0's stdout is part of its verdict: a failed write fails every rank */
    if (ranks_world.rank == 0) {
        cli_flush_stdout();
        if (ferror(stdout) && rc == CLI_OK) rc = CLI_FAIL;
    }
    rc = cli_agree(rc);
    cli_mpi_end();
    return rc;
}
#endif

/* Under a launch of several ranks, a command that does not run over them is refused, once. */
static int refuse_ranks(const char *name, int size, int rank) {
    if (rank == 0) {
#ifdef MG_HAVE_MPI
        fprintf(stderr, "mgraph: %s does not run over MPI ranks yet (started as %d ranks): run it "
                "without mpirun, or with -np 1; bfs, sssp, cc, pr, bc, bench and chain run over ranks\n",
                name, size);
#else
        fprintf(stderr, "mgraph: this mgraph is built without MPI, so %s cannot run over the %d "
                "ranks mpirun started: run it without mpirun, or rebuild with MPI found "
                "(-DMG_WITH_MPI=ON)\n", name, size);
#endif
        fprintf(stderr, "Try 'mgraph %s --help'.\n", name);
    }
    return CLI_USAGE;
}

/* ------------------------------------------------------------------------------------------------ */
/* main                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

static int run_command(int argc, char **argv, const char *name) {
    static const struct {
        const char *name;
        int cmd;
    } ALGOS[] = {{"bfs", CMD_BFS}, {"sssp", CMD_SSSP}, {"cc", CMD_CC}, {"pr", CMD_PR}, {"bc", CMD_BC},
                  {"tc", CMD_TC},   {"lcc", CMD_LCC}, {"cdlp", CMD_CDLP}};
    static const char *const OTHERS[] = {"info", "gen", "convert", "bench", "spmv", "cg", "spmm",
                                         "sddmm", "spgemm", "graphalytics", "probe"};
    int cmd = 0;
    for (size_t i = 0; i < sizeof ALGOS / sizeof ALGOS[0]; i++)
        if (strcmp(name, ALGOS[i].name) == 0) cmd = ALGOS[i].cmd;
    bool other = false;
    for (size_t i = 0; i < sizeof OTHERS / sizeof OTHERS[0]; i++)
        other = other || strcmp(name, OTHERS[i]) == 0;
    /* Started by mpirun (chain handles its ranks itself): the five algorithms and bench (which
     * runs them) run over the ranks; the other commands, which would each run whole P times, are
     * refused where P > 1. */
    const int launched = launched_ranks();
    if (strcmp(name, "bench") == 0) cmd = CMD_BENCH;
    if (launched >= 0 && (cmd & (CMD_ALGOS | CMD_BENCH))) {
#ifdef MG_HAVE_MPI
        return run_over_ranks(argc, argv, name, cmd);
#else
        if (launched > 1) return refuse_ranks(name, launched, launched_rank());
#endif
    } else if (launched >= 0 && (cmd != 0 || other)) {
        int size = launched, rank = launched_rank();
#ifdef MG_HAVE_MPI
        if (size == 0) { /* the launcher does not say: ask MPI */
            int provided = 0;
            MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            MPI_Finalize();
        }
#endif
        if (size > 1) return refuse_ranks(name, size, rank);
    }
    if (cmd == CMD_BENCH) return cli_bench_main(argc, argv);
    if (cmd != 0) return cli_algo_main(argc, argv, name, cmd);
    if (strcmp(name, "info") == 0) return cli_info_main(argc, argv);
    if (strcmp(name, "gen") == 0) return cli_gen_main(argc, argv);
    if (strcmp(name, "convert") == 0) return cli_convert_main(argc, argv);
    if (strcmp(name, "spmv") == 0) return cli_spmv_main(argc, argv);
    if (strcmp(name, "cg") == 0) return cli_cg_main(argc, argv);
    if (strcmp(name, "spmm") == 0) return cli_spmm_main(argc, argv);
    if (strcmp(name, "sddmm") == 0) return cli_sddmm_main(argc, argv);
    if (strcmp(name, "spgemm") == 0) return cli_spgemm_main(argc, argv);
    if (strcmp(name, "chain") == 0) return cli_chain_main(argc, argv);
    if (strcmp(name, "graphalytics") == 0) return cli_graphalytics_main(argc, argv);
    if (strcmp(name, "probe") == 0) return cli_probe_main(argc, argv);
    return cli_usage_error(NULL, "unknown command '%s'", name);
}

/* Why a write to stdout failed, kept from the flush that saw it: by exit, errno is long gone. */
static int stdout_errno = 0;

void cli_flush_stdout(void) {
    /* A write that failed inside a long fputs (past the buffer) set the error flag and errno then;
     * the flush may find the buffer empty and succeed, so the flag decides. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && stdout_errno == 0) stdout_errno = errno;
}

/* Whatever the command printed must have reached stdout: a full disk or /dev/full shows only when
 * the buffer is flushed, so the exit status is decided here (coreutils' close_stdout). */
static void close_stdout(void) {
    bool failed = ferror(stdout) != 0;
    errno = 0;
    if (fclose(stdout) != 0) failed = true;
    if (stdout_errno == 0) stdout_errno = errno;
    if (failed) {
        if (stdout_errno != 0)
            fprintf(stderr, "mgraph: write error on standard output: %s\n", strerror(stdout_errno));
        else
            fputs("mgraph: write error on standard output\n", stderr);
        _exit(CLI_FAIL);
    }
}

int main(int argc, char **argv) {
    atexit(close_stdout);
    if (argc < 2) {
        fputs(HELP_MAIN, stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(HELP_MAIN, stdout);
        cli_flush_stdout();
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("mgraph %d.%d.%d (CUDA %s)\n", MG_VERSION_MAJOR, MG_VERSION_MINOR, MG_VERSION_PATCH,
               mg_built_with_cuda() ? "compiled in: --backend gpu where a GPU is present"
                                    : "not compiled in: CPU engine only");
        return CLI_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc == 2) {
            fputs(HELP_MAIN, stdout);
            cli_flush_stdout();
            return CLI_OK;
        }
        if (argc > 3) return cli_usage_error(NULL, "help: takes one command, got %d", argc - 2);
        if (strcmp(argv[2], "help") == 0) {
            fputs(HELP_MAIN, stdout);
            cli_flush_stdout();
            return CLI_OK;
        }
        if (!cli_print_help(stdout, argv[2]))
            return cli_usage_error(NULL, "help: unknown command '%s'", argv[2]);
        return CLI_OK;
    }
    if (cmd[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", cmd);
    return run_command(argc, argv, cmd);
}
