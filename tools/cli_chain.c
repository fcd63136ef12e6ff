/*
 * cli_chain.c — `mgraph chain`: the product A1 A2 ... AN of a chain of block-CSR matrices, in order
 * (seed report 001). The matrices come from a folder (a size file "N k" and files matrix1 ..
 * matrixN in our BCSR text format, docs/CHAIN.md) or from a list of files (.mtx, or BCSR text with
 * --k).
 *
 * Under MPI (`mpirun -np P mgraph chain ...`; a build without MPI is one rank) rank r reads and
 * multiplies only its contiguous segment of the chain, matrices [N r / P, N (r + 1) / P), then the
 * seed's binary tree combines the partial products in order: at step s = 1, 2, 4, ... a rank with
 * r % 2s == s sends its product to r - s and is done, a rank with r % 2s == 0 receives from r + s
 * (when there is one) and multiplies its product by the one received (left times right keeps the
 * order). Rank 0 ends with the whole product and writes it. A matrix is sent as its BCSR arrays
 * after a header; the receiver acknowledges the header before the arrays come, so a receiver that
 * cannot hold them never leaves its sender blocked. Every phase ends with an agreement (an
 * allreduce of the first failing rank, then that rank's message broadcast), so a missing or
 * malformed file, a shape mismatch or a failed product stops every rank with the same message and
 * exit status 1, never a hang. With a GPU, rank r multiplies on device r modulo the visible ones.
 * MPI lives here, in the tool; the library knows nothing of it.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef MG_HAVE_MPI
#include <mpi.h>
#endif

#define MESSAGE_SIZE 1024
#define MAX_LIST 256 /* files on the command line (cli_args' positionals); a folder has no limit */

typedef struct {
    int rank, size;
} world;

static double now(const world *w) {
#ifdef MG_HAVE_MPI
    (void)w;
    return MPI_Wtime();
#else
    (void)w;
    return cli_now();
#endif
}

/* True when every rank is ok; otherwise every rank gets (in msg) the message of the first rank that
 * was not, and *who that rank. */
static bool agree(const world *w, bool ok, char *msg, int *who) {
    *who = w->rank;
#ifdef MG_HAVE_MPI
    int mine = ok ? w->size : w->rank, first = w->size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == w->size) return true;
    MPI_Bcast(msg, MESSAGE_SIZE, MPI_CHAR, first, MPI_COMM_WORLD);
    *who = first;
    return false;
#else
    (void)msg; /* one rank: msg already holds its own message */
    return ok;
#endif
}

typedef struct {
    const char **files;           /* the chain, in order (n names; a folder's point into names) */
    char *names;
    uint32_t n, k;
    mg_bcsr_values type;
    const char *source;           /* the folder, or the first file                          */
    bool folder;
    mg_backend backend;
    uint64_t runs;
    bool validate, json;
    const char *output;
    cli_args a;
} chain_opts;

static const char *const TYPE_NAMES[] = {"uint64", "float", "double"};

static bool is_mtx(const char *path) {
    const size_t n = strlen(path);
    return (n >= 4 && strcmp(path + n - 4, ".mtx") == 0) ||
           (n >= 7 && strcmp(path + n - 7, ".mtx.gz") == 0);
}

/* Reads matrix i of the chain (0-based) as BCSR: a .mtx file converted in blocks of k, else our
 * text format. On failure msg says why, naming the file (and line). */
static bool read_matrix(mg_context ctx, const chain_opts *o, uint32_t i, mg_bcsr *B, char *msg) {
    const char *path = o->files[i];
    mg_status st;
    if (is_mtx(path)) {
        mg_matrix A = NULL;
        mg_matrix_read_options ro;
        mg_matrix_read_options_init(&ro);
        ro.values = o->type == MG_BCSR_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
        st = mg_matrix_read(ctx, &A, path, &ro);
        if (st == MG_SUCCESS) {
            st = mg_bcsr_from_matrix(ctx, A, o->k, o->type, B);
            if (st != MG_SUCCESS)
                snprintf(msg, MESSAGE_SIZE, "%s: %s", path, mg_context_error(ctx));
            mg_matrix_free(&A);
            return st == MG_SUCCESS;
        }
    } else {
        st = mg_bcsr_read(ctx, B, path, o->k, o->type);
    }
    if (st != MG_SUCCESS) snprintf(msg, MESSAGE_SIZE, "%s", mg_context_error(ctx));
    return st == MG_SUCCESS;
}

/* ---- sending a matrix (MPI only) ----------------------------------------------------------------- */

#ifdef MG_HAVE_MPI
/* MPI counts are ints: large arrays go in pieces of at most 1 GiB. */
static void send_bytes(const void *p, uint64_t bytes, int peer) {
    for (uint64_t at = 0; at < bytes; at += (uint64_t)1 << 30) {
        const uint64_t n = bytes - at < ((uint64_t)1 << 30) ? bytes - at : (uint64_t)1 << 30;
        MPI_Send((const char *)p + at, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
    }
}

static void recv_bytes(void *p, uint64_t bytes, int peer) {
    for (uint64_t at = 0; at < bytes; at += (uint64_t)1 << 30) {
        const uint64_t n = bytes - at < ((uint64_t)1 << 30) ? bytes - at : (uint64_t)1 << 30;
        MPI_Recv((char *)p + at, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Sends B (NULL: this rank's segment was empty) to peer: a header of present, rows, cols, k, type
 * and blocks; then, once peer says it can take them, the three arrays. */
static void send_bcsr(const mg_bcsr B, int peer) {
    uint64_t h[6] = {B != NULL, mg_bcsr_rows(B), mg_bcsr_cols(B), mg_bcsr_block_size(B),
                     (uint64_t)mg_bcsr_type(B), mg_bcsr_nblocks(B)};
    MPI_Send(h, 6, MPI_UINT64_T, peer, 1, MPI_COMM_WORLD);
    if (B == NULL) return;
    int ready = 0;
    MPI_Recv(&ready, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!ready) return;
    const uint64_t *off;
    const uint32_t *cols;
    const void *vals;
    mg_bcsr_arrays(B, &off, &cols, &vals);
    const uint64_t brows = (h[1] + h[3] - 1) / h[3], kk = h[3] * h[3];
    send_bytes(off, (brows + 1) * 8, peer);
    send_bytes(cols, h[5] * 4, peer);
    send_bytes(vals, h[5] * kk * (h[4] == MG_BCSR_FLOAT ? 4 : 8), peer);
}

/* Receives what send_bcsr sent into *B (NULL for an empty segment). */
static bool recv_bcsr(mg_context ctx, mg_bcsr *B, int peer, char *msg) {
    uint64_t h[6];
    *B = NULL;
    MPI_Recv(h, 6, MPI_UINT64_T, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!h[0]) return true;
    const uint64_t brows = (h[1] + h[3] - 1) / h[3], kk = h[3] * h[3];
    const uint64_t vbytes = h[5] * kk * (h[4] == MG_BCSR_FLOAT ? 4 : 8);
    uint64_t *off = malloc((brows + 1) * 8);
    uint32_t *cols = malloc(h[5] * 4 + 4);
    void *vals = malloc(vbytes + 8);
    int ready = off != NULL && cols != NULL && vals != NULL;
    MPI_Send(&ready, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    bool ok = ready;
    if (!ready) {
        snprintf(msg, MESSAGE_SIZE, "out of memory for the %llu-block product of rank %d",
                 (unsigned long long)h[5], peer);
    } else {
        recv_bytes(off, (brows + 1) * 8, peer);
        recv_bytes(cols, h[5] * 4, peer);
        recv_bytes(vals, vbytes, peer);
        mg_status st = mg_bcsr_create(ctx, B, (uint32_t)h[1], (uint32_t)h[2], (uint32_t)h[3],
                                      (mg_bcsr_values)h[4], off, cols, vals);
        if (st != MG_SUCCESS) {
            snprintf(msg, MESSAGE_SIZE, "the product received from rank %d: %s", peer,
                     mg_context_error(ctx));
            ok = false;
        }
    }
    free(off);
    free(cols);
    free(vals);
    return ok;
}
#endif

/* *P = L R where either may be NULL (an empty segment): then the other is the product. Takes L and
 * R over (frees them). */
static bool combine(mg_context ctx, const mg_bcsr_multiply_options *mo, mg_bcsr *L, mg_bcsr *R,
                    mg_bcsr *P, char *msg) {
    *P = NULL;
    if (*L == NULL || *R == NULL) {
        *P = *L != NULL ? *L : *R;
        *L = *R = NULL;
        return true;
    }
    mg_status st = mg_bcsr_multiply(ctx, *L, *R, P, mo);
    if (st != MG_SUCCESS) snprintf(msg, MESSAGE_SIZE, "%s", mg_context_error(ctx));
    mg_bcsr_free(L);
    mg_bcsr_free(R);
    return st == MG_SUCCESS;
}

/* ---- options ------------------------------------------------------------------------------------ */

static int parse_chain_opts(int argc, char **argv, chain_opts *o) {
    int rc = cli_parse(argc, argv, 2, "chain", CMD_CHAIN, MAX_LIST, &o->a);
    if (rc != CLI_OK) return rc;
    const cli_args *a = &o->a;
    if (a->npositional == 0)
        return cli_usage_error("chain", "chain: give a folder (a size file and matrix1 .. matrixN) "
                               "or the matrix files in order");
    o->output = a->value[OPT_OUTPUT];
    if (o->output == NULL)
        return cli_usage_error("chain", "chain: --output FILE (-o) is required: the product goes "
                               "there");
    uint64_t v = 1;
    if (a->value[OPT_RUNS] && (rc = cli_u64(a, OPT_RUNS, 1, 1000000, &v)) != CLI_OK) return rc;
    o->runs = v;
    v = 4;
    if (a->value[OPT_K] && (rc = cli_u64(a, OPT_K, MG_BCSR_MIN_BLOCK, MG_BCSR_MAX_BLOCK, &v)) != CLI_OK)
        return rc;
    o->k = (uint32_t)v;
    const int type_values[] = {MG_BCSR_UINT64, MG_BCSR_FLOAT, MG_BCSR_DOUBLE};
    int t = MG_BCSR_UINT64;
    if (a->value[OPT_VALUES] && (rc = cli_choice(a, OPT_VALUES, TYPE_NAMES, type_values, 3, &t)) != CLI_OK)
        return rc;
    o->type = (mg_bcsr_values)t;
    if ((rc = cli_backend_option(a, &o->backend)) != CLI_OK) return rc;
    o->validate = a->value[OPT_VALIDATE] != NULL;
    o->json = a->value[OPT_JSON] != NULL;
    struct stat sb;
    o->source = a->positional[0];
    o->folder = a->npositional == 1 && stat(a->positional[0], &sb) == 0 && S_ISDIR(sb.st_mode);
    if (o->folder && a->value[OPT_K])
        return cli_usage_error("chain", "chain: --k is for a list of files: a folder's size file "
                               "gives k");
    if (!o->folder) {
        o->n = (uint32_t)a->npositional;
        o->files = o->a.positional;
        for (uint32_t i = 0; i < o->n; i++)
            if ((rc = cli_check_not_input("chain", "--output", o->output, o->files[i])) != CLI_OK)
                return rc;
    }
    return CLI_OK;
}

/* A folder's chain: its size file, then matrix1 .. matrixN. */
static bool folder_files(mg_context ctx, chain_opts *o, char *msg) {
    char size_path[4096];
    snprintf(size_path, sizeof size_path, "%s/size", o->source);
    uint32_t n = 0, k = 0;
    if (mg_bcsr_read_size(ctx, size_path, &n, &k) != MG_SUCCESS) {
        snprintf(msg, MESSAGE_SIZE, "%s", mg_context_error(ctx));
        return false;
    }
    const size_t each = strlen(o->source) + sizeof "/matrix4294967295";
    o->names = malloc((size_t)n * each);
    char const **files = malloc((size_t)n * sizeof *files);
    o->files = files;
    if (o->names == NULL || files == NULL) {
        snprintf(msg, MESSAGE_SIZE, "out of memory for %u file names", n);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        snprintf(o->names + i * each, each, "%s/matrix%u", o->source, i + 1);
        files[i] = o->names + i * each;
    }
    o->n = n;
    o->k = k;
    return true;
}

/* ---- the command ---------------------------------------------------------------------------------- */

/* One rank's times (seconds): reading its segment, its local products, the tree's products, and
 * the tree's messages (waiting for a partner included), summed over the runs. */
enum { T_LOAD, T_LOCAL, T_TREE, T_COMM, T_COUNT };

int cli_chain_main(int argc, char **argv) {
    chain_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_chain_opts(argc, argv, &o);
    if (rc != CLI_OK) return rc;

    world w = {0, 1};
#ifdef MG_HAVE_MPI
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
#endif
    mg_context ctx = NULL;
    mg_bcsr *mats = NULL, result = NULL;
    double times[T_COUNT] = {0}, *run_s = NULL;
    char msg[MESSAGE_SIZE] = "";
    int who = 0;
    bool ok = mg_context_create(&ctx) == MG_SUCCESS;
    if (!ok) snprintf(msg, sizeof msg, "out of memory for a context");
    if (ok && cli_apply_threads(&o.a, ctx) != CLI_OK) {
        snprintf(msg, sizeof msg, "--threads: see above");
        ok = false;
    }
    if (ok && mg_context_set_backend(ctx, o.backend) != MG_SUCCESS) {
        snprintf(msg, sizeof msg, "%s", mg_context_error(ctx));
        ok = false;
    }
    const bool on_gpu = ok && mg_context_backend(ctx) == MG_BACKEND_GPU;
    if (ok && o.folder) ok = folder_files(ctx, &o, msg);
    if (!agree(&w, ok, msg, &who)) goto fail;

    /* This rank's segment, read and checked. */
    const uint32_t first = (uint32_t)((uint64_t)o.n * w.rank / w.size);
    const uint32_t last = (uint32_t)((uint64_t)o.n * (w.rank + 1) / w.size);
    mats = calloc(o.n + 1, sizeof *mats);
    run_s = calloc(o.runs, sizeof *run_s);
    ok = mats != NULL && run_s != NULL;
    if (!ok) snprintf(msg, sizeof msg, "out of memory for %u matrices", o.n);
    double t0 = now(&w);
    for (uint32_t i = first; ok && i < last; i++) {
        ok = read_matrix(ctx, &o, i, &mats[i], msg);
        if (ok && i > first && mg_bcsr_cols(mats[i - 1]) != mg_bcsr_rows(mats[i])) {
            snprintf(msg, sizeof msg, "%s is %u x %u but the next matrix, %s, is %u x %u: each "
                     "matrix's columns must equal the next one's rows", o.files[i - 1],
                     mg_bcsr_rows(mats[i - 1]), mg_bcsr_cols(mats[i - 1]), o.files[i],
                     mg_bcsr_rows(mats[i]), mg_bcsr_cols(mats[i]));
            ok = false;
        }
    }
    times[T_LOAD] = now(&w) - t0;
    if (!agree(&w, ok, msg, &who)) goto fail;
#ifdef MG_HAVE_MPI
    /* The segments' ends must meet: every rank checks every boundary from the gathered shapes. */
    {
        uint32_t mine[3] = {first < last, first < last ? mg_bcsr_rows(mats[first]) : 0,
                            first < last ? mg_bcsr_cols(mats[last - 1]) : 0};
        uint32_t *all = malloc((size_t)w.size * 3 * sizeof *all);
        ok = all != NULL;
        if (ok) {
            MPI_Allgather(mine, 3, MPI_UINT32_T, all, 3, MPI_UINT32_T, MPI_COMM_WORLD);
            int prev = -1;
            for (int r = 0; r < w.size && ok; r++) {
                if (!all[3 * r]) continue;
                if (prev >= 0 && all[3 * prev + 2] != all[3 * r + 1]) {
                    const uint32_t a = (uint32_t)((uint64_t)o.n * (prev + 1) / w.size) - 1;
                    snprintf(msg, sizeof msg, "%s has %u columns but the next matrix, %s, has %u "
                             "rows: each matrix's columns must equal the next one's rows",
                             o.files[a], all[3 * prev + 2], o.files[a + 1], all[3 * r + 1]);
                    ok = false;
                }
                prev = r;
            }
        } else {
            snprintf(msg, sizeof msg, "out of memory");
        }
        free(all);
        /* Every rank saw the same shapes, so every rank reached the same verdict. */
        if (!agree(&w, ok, msg, &who)) goto fail;
    }
#endif

    mg_bcsr_multiply_options mo;
    mg_bcsr_multiply_options_init(&mo);
    mo.device = w.rank;
    for (uint64_t run = 0; run < o.runs; run++) {
        mg_bcsr_free(&result);
#ifdef MG_HAVE_MPI
        MPI_Barrier(MPI_COMM_WORLD);
#endif
        const double start = now(&w);
        /* the local segment, left to right */
        t0 = now(&w);
        ok = true;
        if (first < last) {
            if (last - first == 1) {
                const uint64_t *off;
                const uint32_t *cols;
                const void *vals;
                mg_bcsr_arrays(mats[first], &off, &cols, &vals);
                ok = mg_bcsr_create(ctx, &result, mg_bcsr_rows(mats[first]), mg_bcsr_cols(mats[first]),
                                    o.k, o.type, off, cols, vals) == MG_SUCCESS;
                if (!ok) snprintf(msg, sizeof msg, "%s", mg_context_error(ctx));
            }
            for (uint32_t i = first + 1; ok && i < last; i++) {
                mg_bcsr next = NULL;
                ok = mg_bcsr_multiply(ctx, i == first + 1 ? mats[first] : result, mats[i], &next,
                                      &mo) == MG_SUCCESS;
                if (!ok) snprintf(msg, sizeof msg, "%s", mg_context_error(ctx));
                mg_bcsr_free(&result);
                result = next;
            }
        }
        times[T_LOCAL] += now(&w) - t0;
        if (!agree(&w, ok, msg, &who)) goto fail;
        /* the tree */
        bool sent = false;
        for (int step = 1; step < w.size; step *= 2) {
            ok = true;
#ifdef MG_HAVE_MPI
            if (!sent && w.rank % (2 * step) == step) {
                t0 = now(&w);
                send_bcsr(result, w.rank - step);
                times[T_COMM] += now(&w) - t0;
                mg_bcsr_free(&result);
                sent = true;
            } else if (!sent && w.rank + step < w.size) {
                mg_bcsr right = NULL, product = NULL;
                t0 = now(&w);
                ok = recv_bcsr(ctx, &right, w.rank + step, msg);
                times[T_COMM] += now(&w) - t0;
                t0 = now(&w);
                if (ok) ok = combine(ctx, &mo, &result, &right, &product, msg);
                times[T_TREE] += now(&w) - t0;
                mg_bcsr_free(&right);
                if (ok) result = product;
            }
#endif
            if (!agree(&w, ok, msg, &who)) goto fail;
        }
        (void)sent;
        run_s[run] = now(&w) - start;
    }

    /* Rank 0 holds the product: validate it, write it, report. */
    int validated = -1; /* -1 skipped, 0 FAIL, 1 PASS */
    char why[MESSAGE_SIZE] = "";
    ok = true;
    if (w.rank == 0) {
        if (o.validate) {
            /* the serial product of the whole chain on one rank and the CPU */
            mg_backend b = mg_context_backend(ctx);
            mg_bcsr want = NULL, m = NULL;
            ok = mg_context_set_backend(ctx, MG_BACKEND_CPU) == MG_SUCCESS;
            for (uint32_t i = 0; ok && i < o.n; i++) {
                ok = read_matrix(ctx, &o, i, &m, msg);
                if (ok && want == NULL) {
                    want = m;
                    m = NULL;
                } else if (ok) {
                    mg_bcsr next = NULL;
                    ok = combine(ctx, NULL, &want, &m, &next, msg);
                    want = next;
                }
            }
            if (ok) {
                mg_status st = mg_check_bcsr(ctx, want, result);
                validated = st == MG_SUCCESS;
                if (st != MG_SUCCESS) snprintf(why, sizeof why, "%s", mg_context_error(ctx));
            }
            mg_bcsr_free(&want);
            mg_bcsr_free(&m);
            if (ok) ok = mg_context_set_backend(ctx, b) == MG_SUCCESS;
        }
        /* Never a known-wrong result in an output file. */
        if (ok && validated != 0 && mg_bcsr_write(ctx, result, o.output) != MG_SUCCESS) {
            snprintf(msg, sizeof msg, "%s", mg_context_error(ctx));
            ok = false;
        }
    }
    double load_max = times[T_LOAD];
    double *all_times = NULL;
#ifdef MG_HAVE_MPI
    MPI_Reduce(&times[T_LOAD], &load_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    all_times = w.rank == 0 ? malloc((size_t)w.size * T_COUNT * sizeof *all_times) : NULL;
    MPI_Gather(times, T_COUNT, MPI_DOUBLE, all_times, T_COUNT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#endif
    if (!agree(&w, ok, msg, &who)) {
        free(all_times);
        goto fail;
    }
    if (w.rank == 0) {
        const double median = cli_median(run_s, o.runs);
        const char *backend = on_gpu ? "gpu" : "cpu";
        if (o.json) {
            printf("{\"algorithm\": \"chain\", \"source\": ");
            cli_json_string(stdout, o.source);
            printf(", \"matrices\": %u, \"k\": %u, \"values\": \"%s\", \"ranks\": %d, \"mpi\": %s, "
                   "\"load_s\": %.9f, \"c_rows\": %u, \"c_cols\": %u, \"c_blocks\": %llu, "
                   "\"run_s\": %.9f, \"runs\": %llu, \"per_rank\": [",
                   o.n, o.k, TYPE_NAMES[o.type], w.size,
#ifdef MG_HAVE_MPI
                   "true",
#else
                   "false",
#endif
                   load_max, mg_bcsr_rows(result), mg_bcsr_cols(result),
                   (unsigned long long)mg_bcsr_nblocks(result), median, (unsigned long long)o.runs);
        } else {
            printf("chain: %s (%u matrices, blocks of side %u, %s values)\n", o.source, o.n, o.k,
                   TYPE_NAMES[o.type]);
            printf("ranks: %d%s\n", w.size,
#ifdef MG_HAVE_MPI
                   " (MPI)"
#else
                   " (built without MPI)"
#endif
            );
            printf("load: %.6f s (the slowest rank)\n", load_max);
            printf("product: C %u x %u, %llu blocks\n", mg_bcsr_rows(result), mg_bcsr_cols(result),
                   (unsigned long long)mg_bcsr_nblocks(result));
            printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o.runs);
        }
        for (int r = 0; r < w.size; r++) {
            const double *t = all_times != NULL ? all_times + (size_t)r * T_COUNT : times;
            const uint32_t a = (uint32_t)((uint64_t)o.n * r / w.size);
            const uint32_t b = (uint32_t)((uint64_t)o.n * (r + 1) / w.size);
            const double busy = (t[T_LOCAL] + t[T_TREE] + t[T_COMM]) / (double)o.runs;
            const double share = busy > 0 ? t[T_COMM] / (double)o.runs / busy : 0;
            if (o.json)
                printf("%s{\"rank\": %d, \"first\": %u, \"count\": %u, \"load_s\": %.9f, "
                       "\"local_s\": %.9f, \"tree_multiply_s\": %.9f, \"comm_s\": %.9f, "
                       "\"comm_share\": %.6f}", r ? ", " : "", r, a + 1, b - a, t[T_LOAD],
                       t[T_LOCAL] / (double)o.runs, t[T_TREE] / (double)o.runs,
                       t[T_COMM] / (double)o.runs, share);
            else
                printf("rank %d: matrices %u..%u (%u), load %.6f s, local products %.6f s, tree "
                       "products %.6f s, communication %.6f s (%.1f%% of its run)\n", r, a + 1, b,
                       b - a, t[T_LOAD], t[T_LOCAL] / (double)o.runs, t[T_TREE] / (double)o.runs,
                       t[T_COMM] / (double)o.runs, 100 * share);
        }
        if (o.json) {
            printf("], \"validated\": %s, \"backend\": \"%s\", \"threads\": %d}\n",
                   validated < 0 ? "null" : validated ? "true" : "false", backend,
                   cli_threads(&o.a));
        } else {
            printf("validation: %s\n", validated < 0 ? "skipped" : validated ? "PASS" : "FAIL");
            printf("backend: %s\n", backend);
        }
        cli_flush_stdout();
        if (validated == 0) {
            fprintf(stderr, "mgraph: chain: validation failed: %s\n", why);
            rc = CLI_FAIL;
        }
    }
    free(all_times);
#ifdef MG_HAVE_MPI
    /* rank 0's verdict (a failed validation) is every rank's exit status */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    goto done;

fail:
    if (w.size == 1 || who == w.rank)
        fprintf(stderr, "mgraph: chain: %s\n", msg);
    else
        fprintf(stderr, "mgraph: chain: rank %d of %d stops: rank %d failed: %s\n", w.rank, w.size,
                who, msg);
    rc = CLI_FAIL;
done:
    if (mats != NULL)
        for (uint32_t i = 0; i < o.n; i++) mg_bcsr_free(&mats[i]);
    free(mats);
    free(run_s);
    free(o.names);
    if (o.folder) free((void *)o.files);
    mg_bcsr_free(&result);
    mg_context_free(&ctx);
#ifdef MG_HAVE_MPI
    MPI_Finalize();
#endif
    return rc;
}
