/*
 * cli_sparse.c — `mgraph spmv`, `cg`, `spmm`, `sddmm`, `spgemm` and `probe`: the sparse layer from the
 * shell, through the same harness as the graph algorithms (cli_algo.c): load, the device form's
 * build as preprocessing, one untimed warm-up, N timed runs and their median, --validate against a
 * serial reference, --output (a Matrix Market array file through mg_dense_write's atomic writer;
 * sddmm's sampled matrix and spgemm's C coordinate files through mg_matrix_write's), the backend line with auto's
 * reason, and the same lines or one JSON object.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What spmv and cg share, parsed and checked before the file is read. */
typedef struct {
    cli_args a;
    const char *file;
    mg_backend backend;
    mg_type type; /* --precision */
    uint64_t runs;
    bool validate, json;
    const char *output;
    mg_spmv_options spmv;
    mg_cg_options cg; /* tolerance, max_iterations, jacobi */
    bool history;
    mg_spmm_options spmm;
    mg_sddmm_options sddmm;
    uint64_t k;       /* spmm, sddmm: --k (0: from the operand files)                            */
    uint64_t seed;    /* spmm, sddmm: the generator of the dense operands no file gives          */
    mg_spgemm_options spgemm; /* semiring and complement; the mask is set once it is read     */
    const char *file_b;       /* spgemm: B's file (NULL: C = A A)                              */
} sparse_opts;

/* The dense operands' columns the kernels are built for (issue 15: K from 1 to 1024). */
#define MAX_K 1024

/* Everything a run holds, freed on one path. */
typedef struct {
    mg_context ctx;
    mg_matrix A;
    mg_dense operand;    /* spmv's x, cg's b, spmm's and sddmm's B                         */
    mg_dense left;       /* sddmm's A                                                      */
    mg_dense result;     /* spmv's y, cg's x, spmm's and sddmm's C                         */
    mg_dense y_in;       /* spmv, spmm, sddmm with --beta: y (C) before the call           */
    void *y_host;        /* y_in's values, loaded into result before every run             */
    double *times, *loop_times, *history;
    cli_gpu_start gpu_start;
    double load_s, preprocess_s, warmup_s;
    bool on_gpu;
    bool spmm_form;      /* spmm, sddmm: the device form is mg_matrix_gpu_prepare_spmm's   */
    uint32_t spmm_k;     /* the K it is built for                                          */
    mg_spmm_options spmm_opts; /* and the orientation and TF32 (spmm's options; sddmm's defaults) */
    mg_gpu_matrix_info gpu;
    char backend_why[512];
} sparse_run;

static const char *const SEMIRING_NAMES[] = {"plus-times", "min-plus", "max-times", "or-and"};

static const char *values_name(mg_values v) {
    return v == MG_VALUES_FLOAT ? "float" : v == MG_VALUES_DOUBLE ? "double" : "none";
}

static size_t type_bytes(mg_type t) { return t == MG_FLOAT ? sizeof(float) : sizeof(double); }

static int parse_sparse_opts(int argc, char **argv, const char *name, int cmd, sparse_opts *o) {
    int rc = cli_parse(argc, argv, 2, name, cmd, cmd == CMD_SPGEMM ? 2 : 1, &o->a);
    if (rc != CLI_OK) return rc;
    const cli_args *a = &o->a;
    if (a->npositional < 1) return cli_usage_error(name, "%s: missing the matrix FILE", name);
    o->file = a->positional[0];
    o->file_b = a->npositional > 1 ? a->positional[1] : NULL;
    o->runs = 1;
    o->validate = a->value[OPT_VALIDATE] != NULL;
    o->json = a->value[OPT_JSON] != NULL;
    o->output = a->value[OPT_OUTPUT];
    o->history = a->value[OPT_HISTORY] != NULL;
    mg_spmv_options_init(&o->spmv);
    mg_cg_options_init(&o->cg);
    if ((rc = cli_backend_option(a, &o->backend)) != CLI_OK) return rc;
    if (a->value[OPT_RUNS] && (rc = cli_u64(a, OPT_RUNS, 1, 100000, &o->runs)) != CLI_OK) return rc;
    int v = MG_DOUBLE;
    static const char *const precisions[] = {"single", "double"};
    static const int types[] = {MG_FLOAT, MG_DOUBLE};
    if (a->value[OPT_PRECISION] &&
        (rc = cli_choice(a, OPT_PRECISION, precisions, types, 2, &v)) != CLI_OK)
        return rc;
    o->type = (mg_type)v;

    static const int semirings[] = {MG_SEMIRING_PLUS_TIMES, MG_SEMIRING_MIN_PLUS,
                                    MG_SEMIRING_MAX_TIMES, MG_SEMIRING_OR_AND};
    v = MG_SEMIRING_PLUS_TIMES;
    if (a->value[OPT_SEMIRING] &&
        (rc = cli_choice(a, OPT_SEMIRING, SEMIRING_NAMES, semirings, 4, &v)) != CLI_OK)
        return rc;
    if (cmd == CMD_SPGEMM) {
        mg_spgemm_options_init(&o->spgemm);
        o->spgemm.semiring = (mg_semiring)v;
        o->spgemm.complement = a->value[OPT_COMPLEMENT] != NULL;
        if (o->spgemm.complement && a->value[OPT_MASK] == NULL)
            return cli_usage_error(name, "spgemm: --complement needs --mask FILE, the mask it "
                                   "complements");
        if (o->output == NULL)
            return cli_usage_error(name, "spgemm: --output FILE (-o) is required: C goes there");
        if (o->file_b != NULL &&
            (rc = cli_check_not_input(name, "--output", o->output, o->file_b)) != CLI_OK)
            return rc;
    } else if (cmd == CMD_SPMV) {
        o->spmv.semiring = (mg_semiring)v;
        o->spmv.transpose = a->value[OPT_TRANSPOSE] != NULL;
        if (a->value[OPT_ALPHA] &&
            (rc = cli_double(a, OPT_ALPHA, -DBL_MAX, DBL_MAX, false, false, &o->spmv.alpha)) != CLI_OK)
            return rc;
        if (a->value[OPT_BETA] &&
            (rc = cli_double(a, OPT_BETA, -DBL_MAX, DBL_MAX, false, false, &o->spmv.beta)) != CLI_OK)
            return rc;
        if (o->spmv.semiring != MG_SEMIRING_PLUS_TIMES &&
            (o->spmv.alpha != 1 || (o->spmv.beta != 0 && o->spmv.beta != 1)))
            return cli_usage_error(name, "spmv: --semiring %s takes --alpha 1 and --beta 0 or 1 "
                                   "(y = y (+) A x with the semiring's add); only plus-times "
                                   "scales", SEMIRING_NAMES[o->spmv.semiring]);
        if (o->spmv.beta != 0 && a->value[OPT_Y] == NULL)
            return cli_usage_error(name, "spmv: --beta %s needs --y FILE, the y it applies to",
                                   a->value[OPT_BETA]);
        if (o->spmv.beta == 0 && a->value[OPT_Y] != NULL)
            return cli_usage_error(name, "spmv: --y '%s' is read only with a non-zero --beta",
                                   a->value[OPT_Y]);
    } else if (cmd & (CMD_SPMM | CMD_SDDMM)) {
        mg_spmm_options_init(&o->spmm);
        mg_sddmm_options_init(&o->sddmm);
        double alpha = 1, beta = 0;
        o->seed = 1;
        o->spmm.transpose = a->value[OPT_TRANSPOSE] != NULL;
        o->spmm.tf32 = a->value[OPT_TF32] != NULL;
        if (o->spmm.tf32 && o->type != MG_FLOAT)
            return cli_usage_error(name, "spmm: --tf32 needs --precision single (TF32 rounds float "
                                   "values)");
        if (a->value[OPT_ALPHA] &&
            (rc = cli_double(a, OPT_ALPHA, -DBL_MAX, DBL_MAX, false, false, &alpha)) != CLI_OK)
            return rc;
        if (a->value[OPT_BETA] &&
            (rc = cli_double(a, OPT_BETA, -DBL_MAX, DBL_MAX, false, false, &beta)) != CLI_OK)
            return rc;
        if (a->value[OPT_K] && (rc = cli_u64(a, OPT_K, 1, MAX_K, &o->k)) != CLI_OK) return rc;
        if (a->value[OPT_SEED] && (rc = cli_u64(a, OPT_SEED, 0, UINT64_MAX, &o->seed)) != CLI_OK)
            return rc;
        o->spmm.alpha = o->sddmm.alpha = alpha;
        o->spmm.beta = o->sddmm.beta = beta;
        if (beta != 0 && a->value[OPT_C] == NULL)
            return cli_usage_error(name, "%s: --beta %s needs --c FILE, the C it applies to", name,
                                   a->value[OPT_BETA]);
        if (beta == 0 && a->value[OPT_C] != NULL)
            return cli_usage_error(name, "%s: --c '%s' is read only with a non-zero --beta", name,
                                   a->value[OPT_C]);
        const bool any_file = a->value[OPT_B] != NULL || (cmd == CMD_SDDMM && a->value[OPT_A] != NULL);
        if (o->k == 0 && !any_file)
            return cli_usage_error(name, "%s: --k K is required when no %s gives the dense "
                                   "operands' columns", name,
                                   cmd == CMD_SDDMM ? "--a or --b FILE" : "--b FILE");
    } else {
        /* single precision cannot reach the double default (1e-8) on most matrices */
        o->cg.tolerance = o->type == MG_FLOAT ? 1e-5 : o->cg.tolerance;
        if (a->value[OPT_TOLERANCE] &&
            (rc = cli_double(a, OPT_TOLERANCE, 0, 1, true, true, &o->cg.tolerance)) != CLI_OK)
            return rc;
        if (a->value[OPT_MAX_ITER]) {
            uint64_t it = 0;
            if ((rc = cli_u64(a, OPT_MAX_ITER, 1, 10000000, &it)) != CLI_OK) return rc;
            o->cg.max_iterations = (int)it;
        }
        o->cg.jacobi = a->value[OPT_JACOBI] != NULL;
    }
    /* An output over any input would replace that input. */
    static const cli_opt_id inputs[] = {OPT_X, OPT_Y, OPT_A, OPT_B, OPT_C, OPT_MASK};
    if (o->output != NULL) {
        if ((rc = cli_check_not_input(name, "--output", o->output, o->file)) != CLI_OK) return rc;
        for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
            if (a->value[inputs[i]] != NULL &&
                (rc = cli_check_not_input(name, "--output", o->output, a->value[inputs[i]])) != CLI_OK)
                return rc;
    }
    return CLI_OK;
}

/* The matrix: reading the file is load, building the CSR preprocessing (as for a graph). */
static int load_matrix(sparse_run *r, const sparse_opts *o) {
    mg_matrix_read_options ro;
    mg_matrix_read_options_init(&ro);
    ro.values = o->type == MG_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    double t0 = cli_now();
    mg_status st = mg_matrix_read(r->ctx, &r->A, o->file, &ro);
    if (st != MG_SUCCESS) return cli_lib_error(r->ctx, st);
    r->preprocess_s = mg_matrix_build_seconds(r->A);
    r->load_s = cli_now() - t0 - r->preprocess_s;
    return CLI_OK;
}

/* A usage error naming the option and its file at v's first NaN (or, with `finite`, its first NaN
 * or infinity), counting values row by row; CLI_OK when there is none. No semiring gives a NaN a meaning, so it would only
 * spread through the result; infinity is min-plus's "unreached", but a solve needs a finite
 * right-hand side (CG would stop at iteration 0 with a residual of NaN, naming no file). */
static int check_vector_values(sparse_run *r, const sparse_opts *o, cli_opt_id id, const mg_dense v,
                               bool finite) {
    const uint64_t n = (uint64_t)mg_dense_rows(v) * mg_dense_cols(v);
    const bool single = mg_dense_type(v) == MG_FLOAT;
    void *values = malloc((size_t)n * type_bytes(mg_dense_type(v)) + 1);
    if (values == NULL) {
        fprintf(stderr, "mgraph: out of memory for the %llu values of %s\n", (unsigned long long)n,
                o->a.value[id]);
        return CLI_FAIL;
    }
    mg_status st = mg_dense_extract(r->ctx, v, values);
    int rc = st == MG_SUCCESS ? CLI_OK : cli_lib_error(r->ctx, st);
    for (uint64_t i = 0; rc == CLI_OK && i < n; i++) {
        const double x = single ? ((const float *)values)[i] : ((const double *)values)[i];
        if (isnan(x) || (finite && isinf(x)))
            rc = cli_usage_error(o->a.name, "%s: %s file '%s': value %llu of %llu is %s: %s",
                                 o->a.name, cli_opt_name(id), o->a.value[id],
                                 (unsigned long long)i + 1, (unsigned long long)n,
                                 isnan(x) ? "NaN" : "infinite",
                                 finite ? "the right-hand side must be finite"
                                        : "a NaN is no value for any semiring");
    }
    free(values);
    return rc;
}

/* A vector operand: from the option's file (one column of `want` values with no NaN, and no
 * infinity either when `finite`; else a usage error naming the file), or all ones when the option
 * is not given. */
static int vector_operand(sparse_run *r, const sparse_opts *o, cli_opt_id id, uint32_t want,
                          const char *needs, bool finite, mg_dense *v) {
    const char *path = o->a.value[id];
    mg_status st = MG_SUCCESS;
    if (path == NULL) {
        st = mg_dense_create(r->ctx, v, want, 1, o->type);
        if (st == MG_SUCCESS) st = mg_dense_fill(r->ctx, *v, 1.0);
        return st == MG_SUCCESS ? CLI_OK : cli_lib_error(r->ctx, st);
    }
    if ((st = mg_dense_read(r->ctx, v, path, o->type)) != MG_SUCCESS)
        return cli_lib_error(r->ctx, st);
    const uint32_t rows = mg_dense_rows(*v), cols = mg_dense_cols(*v);
    if (cols != 1)
        return cli_usage_error(o->a.name, "%s: %s file '%s' is %u x %u: a vector is one column "
                               "(one value per line)", o->a.name, cli_opt_name(id), path, rows, cols);
    if (rows != want)
        return cli_usage_error(o->a.name, "%s: %s file '%s' has %u values; %s (%u x %u) needs %u, "
                               "%s", o->a.name, cli_opt_name(id), path, rows, o->file,
                               mg_matrix_rows(r->A), mg_matrix_cols(r->A), want, needs);
    return check_vector_values(r, o, id, *v, finite);
}

/* The device form, built (as preprocessing, before the warm-up) or as the runs left it (a form
 * built lazily in the warm-up is counted too). */
static int gpu_info_after_runs(sparse_run *r) {
    if (!r->on_gpu) return CLI_OK;
    mg_status st = r->spmm_form ? mg_matrix_gpu_prepare_spmm(r->ctx, r->A, r->spmm_k, &r->spmm_opts, &r->gpu)
                                : mg_matrix_gpu_prepare(r->ctx, r->A, &r->gpu);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(r->ctx, st);
}

/* One call of a timed product (spmv, spmm, sddmm), into r->result. */
typedef mg_status (*timed_call)(sparse_run *r, const sparse_opts *o, int cmd);

/* The warm-up (r->warmup_s), then o->runs timed calls (r->times): each starts from the same result
 * (reloaded from r->y_host when beta reads it, outside the timing), and the GPU, which returns once
 * its kernels are queued, is waited for inside the timed region. */
static mg_status timed_runs(sparse_run *r, const sparse_opts *o, int cmd, timed_call call) {
    mg_status st = MG_SUCCESS;
    for (int64_t k = -1; k < (int64_t)o->runs; k++) {
        if (r->y_host != NULL && (st = mg_dense_load(r->ctx, r->result, r->y_host)) != MG_SUCCESS)
            break;
        const double start = cli_now();
        if ((st = call(r, o, cmd)) != MG_SUCCESS || (st = mg_context_finish(r->ctx)) != MG_SUCCESS)
            break;
        const double elapsed = cli_now() - start;
        if (k < 0)
            r->warmup_s = elapsed;
        else
            r->times[k] = elapsed;
    }
    return st;
}

/* A --validate check's outcome: 1 PASS, 0 FAIL (why says what differs), or -2 for an error that is
 * no verdict on the result (reported, *rc set). */
static int validation_outcome(const sparse_run *r, mg_status st, char *why, size_t why_size,
                              int *rc) {
    if (st == MG_SUCCESS) return 1;
    if (st == MG_INVALID_ARGUMENT) {
        snprintf(why, why_size, "%s", mg_context_error(r->ctx));
        return 0;
    }
    *rc = cli_lib_error(r->ctx, st);
    return -2;
}

/* The start every sparse command shares: o and r zeroed, the command line read into o. */
static int sparse_begin(int argc, char **argv, const char *name, int cmd, sparse_opts *o, sparse_run *r) {
    memset(o, 0, sizeof *o);
    memset(r, 0, sizeof *r);
    r->gpu_start.requested = MG_BACKEND_CPU;
    return parse_sparse_opts(argc, argv, name, cmd, o);
}

/* The first steps of every sparse command: context, threads, the --output check, GPU start-up
 * beside the load, the matrix. `passes`: the work per nonzero auto's rule counts (cli.h). */
static int sparse_setup(sparse_run *r, const sparse_opts *o, int cmd, uint64_t passes) {
    mg_status st = mg_context_create(&r->ctx);
    if (st != MG_SUCCESS) return cli_lib_error(NULL, st);
    /* A build without CUDA fails --backend gpu before the load. */
    if (o->backend == MG_BACKEND_GPU && !mg_built_with_cuda() &&
        (st = mg_context_set_backend(r->ctx, o->backend)) != MG_SUCCESS)
        return cli_lib_error(r->ctx, st);
    int rc = cli_apply_threads(&o->a, r->ctx);
    if (rc != CLI_OK) return rc;
    /* A bad --output fails now, as the graph commands' does, not after a long load and run: a
     * temporary made and removed beside it (mg_output) proves the path writable, and
     * mg_dense_write puts the result there at the end, whole or not at all. A FIFO is left to
     * that write: opening it twice would end its reader's input after the first. */
    struct stat sb;
    if (o->output != NULL && !(stat(o->output, &sb) == 0 && S_ISFIFO(sb.st_mode))) {
        mg_output probe = NULL;
        FILE *f = NULL;
        if ((st = mg_output_open(r->ctx, &probe, o->output, &f)) != MG_SUCCESS)
            return cli_lib_error(r->ctx, st);
        mg_output_free(&probe);
    }
    cli_gpu_start_begin(&r->gpu_start, o->backend, cmd, passes, o->file);
    return load_matrix(r, o);
}

/* The backend (auto's rule on the nonzeros and r->gpu_start.passes), the device form (spmm and
 * sddmm: mg_matrix_gpu_prepare_spmm's), the run times' storage. */
static int sparse_select(sparse_run *r, const sparse_opts *o, int cmd) {
    int rc = cli_backend_select(&r->gpu_start, r->ctx, cmd, mg_matrix_nnz(r->A), r->backend_why,
                                sizeof r->backend_why);
    if (rc != CLI_OK) return rc;
    r->on_gpu = mg_context_backend(r->ctx) == MG_BACKEND_GPU;
    r->spmm_form = (cmd & (CMD_SPMM | CMD_SDDMM)) != 0;
    /* The device form is built here, as preprocessing, not inside the warm-up. */
    if ((rc = gpu_info_after_runs(r)) != CLI_OK) return rc;
    r->times = malloc(o->runs * sizeof *r->times);
    r->loop_times = malloc(o->runs * sizeof *r->loop_times);
    if (r->times == NULL || r->loop_times == NULL) {
        fprintf(stderr, "mgraph: out of memory\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

static void sparse_free(sparse_run *r) {
    cli_gpu_start_end(&r->gpu_start);
    mg_dense_free(&r->operand);
    mg_dense_free(&r->left);
    mg_dense_free(&r->result);
    mg_dense_free(&r->y_in);
    mg_matrix_free(&r->A);
    mg_context_free(&r->ctx);
    free(r->y_host);
    free(r->times);
    free(r->loop_times);
    free(r->history);
}


/* The lines and JSON keys every sparse command starts with. */
static void print_head(const sparse_run *r, const sparse_opts *o, const char *name) {
    const mg_matrix A = r->A;
    if (o->json) {
        printf("{\"algorithm\": \"%s\", \"file\": ", name);
        cli_json_string(stdout, o->file);
        printf(", \"rows\": %u, \"cols\": %u, \"nnz\": %llu, \"values\": \"%s\", \"symmetric\": %s, "
               "\"precision\": \"%s\", \"load_s\": %.9f, \"preprocess_s\": %.9f, \"warmup_s\": %.9f",
               mg_matrix_rows(A), mg_matrix_cols(A), (unsigned long long)mg_matrix_nnz(A),
               values_name(mg_matrix_values(A)), mg_matrix_declared_symmetric(A) ? "true" : "false",
               o->type == MG_FLOAT ? "single" : "double", r->load_s, r->preprocess_s, r->warmup_s);
        if (r->on_gpu) {
            printf(", \"gpu_preprocess_s\": %.9f, \"gpu_upload_s\": %.9f, \"device_bytes\": %zu, "
                   "\"csr_bytes\": %zu, \"kernel\": ", r->gpu.seconds, r->gpu.upload_seconds,
                   r->gpu.device_bytes, r->gpu.csr_bytes);
            cli_json_string(stdout, r->gpu.kernel);
        }
        return;
    }
    printf("matrix: %s (%u x %u, %llu nonzeros, values %s%s)\n", o->file, mg_matrix_rows(A),
           mg_matrix_cols(A), (unsigned long long)mg_matrix_nnz(A), values_name(mg_matrix_values(A)),
           mg_matrix_declared_symmetric(A) ? ", symmetric" : "");
    printf("load: %.6f s\n", r->load_s);
    printf("preprocess: %.6f s\n", r->preprocess_s);
    if (r->on_gpu)
        printf("gpu preprocess: %.6f s (after a %.6f s upload), device memory %.1f MiB = %.2f x "
               "CSR, kernel %s\n", r->gpu.seconds, r->gpu.upload_seconds,
               r->gpu.device_bytes / 1048576.0,
               r->gpu.csr_bytes ? (double)r->gpu.device_bytes / (double)r->gpu.csr_bytes : 0.0,
               r->gpu.kernel);
}

/* The keys and lines every sparse command ends with. */
static void print_tail(const sparse_run *r, const sparse_opts *o, int validated) {
    const char *backend = r->on_gpu ? "gpu" : "cpu";
    if (o->json) {
        printf(", \"validated\": %s, \"backend\": \"%s\", \"threads\": %d, \"backend_reason\": ",
               validated < 0 ? "null" : validated ? "true" : "false", backend, cli_threads(&o->a));
        cli_json_string(stdout, r->backend_why);
        printf("}\n");
    } else {
        printf("validation: %s\n", validated < 0 ? "skipped" : validated ? "PASS" : "FAIL");
        printf("backend: %s", backend);
        if (r->backend_why[0] != '\0') printf(" (%s)", r->backend_why);
        printf("\n");
    }
    cli_flush_stdout();
}

/* ---- mgraph spmv -------------------------------------------------------------------------------- */

static mg_status spmv_call(sparse_run *r, const sparse_opts *o, int cmd) {
    (void)cmd;
    return mg_spmv(r->ctx, r->A, r->operand, r->result, &o->spmv);
}

int cli_spmv_main(int argc, char **argv) {
    sparse_opts o;
    sparse_run r;
    mg_status st = MG_SUCCESS;
    int rc = sparse_begin(argc, argv, "spmv", CMD_SPMV, &o, &r);
    if (rc != CLI_OK || (rc = sparse_setup(&r, &o, CMD_SPMV, o.runs + 1)) != CLI_OK ||
        (rc = sparse_select(&r, &o, CMD_SPMV)) != CLI_OK)
        goto cleanup;

    const bool t = o.spmv.transpose;
    const uint32_t rows = mg_matrix_rows(r.A), cols = mg_matrix_cols(r.A);
    const uint32_t xlen = t ? rows : cols, ylen = t ? cols : rows;
    const char *xneeds = t ? "its rows (--transpose)" : "its columns";
    const char *yneeds = t ? "its columns (--transpose)" : "its rows";
    if ((rc = vector_operand(&r, &o, OPT_X, xlen, xneeds, false, &r.operand)) != CLI_OK) goto cleanup;
    if (o.spmv.beta != 0) {
        if ((rc = vector_operand(&r, &o, OPT_Y, ylen, yneeds, false, &r.y_in)) != CLI_OK) goto cleanup;
        r.y_host = malloc((size_t)ylen * type_bytes(o.type) + 1);
        if (r.y_host == NULL) {
            fprintf(stderr, "mgraph: out of memory\n");
            rc = CLI_FAIL;
            goto cleanup;
        }
        if ((st = mg_dense_extract(r.ctx, r.y_in, r.y_host)) != MG_SUCCESS) {
            rc = cli_lib_error(r.ctx, st);
            goto cleanup;
        }
    }
    if ((st = mg_dense_create(r.ctx, &r.result, ylen, 1, o.type)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }

    /* (on the GPU a reloaded y's upload is inside the timed call: the API has no device copy) */
    if ((st = timed_runs(&r, &o, CMD_SPMV, spmv_call)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }
    const double median = cli_median(r.times, o.runs);
    if ((rc = gpu_info_after_runs(&r)) != CLI_OK) goto cleanup;

    int validated = -1; /* -1 skipped, 0 FAIL, 1 PASS */
    char why[1024] = "";
    if (o.validate) {
        st = mg_check_spmv(r.ctx, r.A, r.operand, r.y_in, r.result, &o.spmv);
        if ((validated = validation_outcome(&r, st, why, sizeof why, &rc)) < -1) goto cleanup;
    }
    /* Never a known-wrong result in an output file. */
    if (o.output != NULL && validated != 0 &&
        (st = mg_dense_write(r.ctx, r.result, o.output)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }

    const uint64_t nnz = mg_matrix_nnz(r.A);
    const size_t vb = type_bytes(o.type);
    const mg_values mv = mg_matrix_values(r.A);
    const size_t ab = mv == MG_VALUES_NONE ? 0 : mv == MG_VALUES_FLOAT ? sizeof(float) : sizeof(double);
    const double bytes = (double)((uint64_t)(t ? cols : rows) + 1) * sizeof(uint64_t) +
                         (double)nnz * (sizeof(uint32_t) + ab) + (double)xlen * vb +
                         (double)ylen * vb * (o.spmv.beta != 0 ? 2 : 1);
    const double gflops = median > 0 ? 2.0 * (double)nnz / median / 1e9 : 0;
    const double gbs = median > 0 ? bytes / median / 1e9 : 0;
    print_head(&r, &o, "spmv");
    if (o.json) {
        printf(", \"semiring\": \"%s\", \"transpose\": %s, \"alpha\": %.17g, \"beta\": %.17g, "
               "\"run_s\": %.9f, \"run_min_s\": %.9f, \"run_max_s\": %.9f, \"runs\": %llu, "
               "\"gflops\": %.6f, \"gbs\": %.6f, \"bytes\": %.0f",
               SEMIRING_NAMES[o.spmv.semiring], t ? "true" : "false", o.spmv.alpha, o.spmv.beta,
               median, r.times[0], r.times[o.runs - 1], (unsigned long long)o.runs, gflops, gbs,
               bytes);
    } else {
        printf("semiring: %s%s\n", SEMIRING_NAMES[o.spmv.semiring], t ? " (transposed)" : "");
        printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o.runs);
        printf("GFLOP/s: %.3f\n", gflops);
        printf("GB/s: %.3f\n", gbs);
    }
    print_tail(&r, &o, validated);
    if (validated == 0) {
        fprintf(stderr, "mgraph: spmv: validation failed: %s\n", why);
        rc = CLI_FAIL;
    }

cleanup:
    sparse_free(&r);
    return rc;
}

/* ---- mgraph cg ---------------------------------------------------------------------------------- */

/* A vector's values as doubles, whatever its type (scratch: room for its values as floats). */
static mg_status dense_as_double(mg_context ctx, const mg_dense v, float *scratch, double *out) {
    if (mg_dense_type(v) == MG_DOUBLE) return mg_dense_extract(ctx, v, out);
    mg_status st = mg_dense_extract(ctx, v, scratch);
    for (uint32_t i = 0; st == MG_SUCCESS && i < mg_dense_rows(v); i++) out[i] = scratch[i];
    return st;
}

/* ||b - A x|| / ||b|| (||b - A x|| when b is 0), independently of the solver: on the host, in
 * double, with mg_spmv on a CPU context of its own. *rounding, on the same scale: || |A| |x| || times
 * the solution type's unit roundoff, what rounding the exact x to that type alone may leave. */
static int true_residual(const sparse_run *r, const sparse_opts *o, double *residual,
                         double *rounding) {
    const uint32_t n = mg_matrix_rows(r->A);
    mg_context cpu = NULL, failed = r->ctx; /* whose message says what went wrong */
    mg_dense xd = NULL, rd = NULL;
    int rc = CLI_OK;
    double *xv = malloc((size_t)n * sizeof *xv + 1), *bv = malloc((size_t)n * sizeof *bv + 1);
    double *rv = malloc((size_t)n * sizeof *rv + 1);
    float *scratch = malloc((size_t)n * sizeof *scratch + 1);
    if (xv == NULL || bv == NULL || rv == NULL || scratch == NULL) {
        fprintf(stderr, "mgraph: out of memory\n");
        rc = CLI_FAIL;
        goto cleanup;
    }
    mg_status st = dense_as_double(r->ctx, r->result, scratch, xv);
    if (st == MG_SUCCESS) st = dense_as_double(r->ctx, r->operand, scratch, bv);
    if (st == MG_SUCCESS) {
        st = mg_context_create(&cpu);
        failed = cpu;
    }
    if (st == MG_SUCCESS) st = mg_context_set_backend(cpu, MG_BACKEND_CPU);
    if (st == MG_SUCCESS && o->a.value[OPT_THREADS] != NULL)
        st = mg_context_set_threads(cpu, cli_threads(&o->a));
    if (st == MG_SUCCESS) st = mg_dense_create(cpu, &xd, n, 1, MG_DOUBLE);
    if (st == MG_SUCCESS) st = mg_dense_create(cpu, &rd, n, 1, MG_DOUBLE);
    if (st == MG_SUCCESS) st = mg_dense_load(cpu, xd, xv);
    if (st == MG_SUCCESS) st = mg_dense_load(cpu, rd, bv);
    mg_spmv_options so;
    mg_spmv_options_init(&so);
    so.alpha = -1; /* rd = b - A x */
    so.beta = 1;
    if (st == MG_SUCCESS) st = mg_spmv(cpu, r->A, xd, rd, &so);
    if (st == MG_SUCCESS) st = mg_dense_extract(cpu, rd, rv);
    const uint64_t *off = NULL;
    const uint32_t *col = NULL;
    const void *val = NULL;
    if (st == MG_SUCCESS) st = mg_matrix_csr(r->A, &off, &col, &val);
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(failed, st);
        goto cleanup;
    }
    const mg_values vt = mg_matrix_values(r->A);
    double rr = 0, bb = 0, ax = 0;
    for (uint32_t i = 0; i < n; i++) {
        double sum = 0; /* (|A| |x|)_i */
        for (uint64_t k = off[i]; k < off[i + 1]; k++) {
            const double a = vt == MG_VALUES_NONE    ? 1
                             : vt == MG_VALUES_FLOAT ? ((const float *)val)[k]
                                                     : ((const double *)val)[k];
            sum += fabs(a) * fabs(xv[col[k]]);
        }
        rr += rv[i] * rv[i];
        bb += bv[i] * bv[i];
        ax += sum * sum;
    }
    const double unit = o->type == MG_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    *residual = bb > 0 ? sqrt(rr / bb) : sqrt(rr);
    *rounding = unit * (bb > 0 ? sqrt(ax / bb) : sqrt(ax));

cleanup:
    mg_dense_free(&xd);
    mg_dense_free(&rd);
    mg_context_free(&cpu);
    free(xv);
    free(bv);
    free(rv);
    free(scratch);
    return rc;
}

int cli_cg_main(int argc, char **argv) {
    sparse_opts o;
    sparse_run r;
    mg_status st = MG_SUCCESS;
    int rc = sparse_begin(argc, argv, "cg", CMD_CG, &o, &r);
    if (rc != CLI_OK || (rc = sparse_setup(&r, &o, CMD_CG, o.runs + 1)) != CLI_OK ||
        (rc = sparse_select(&r, &o, CMD_CG)) != CLI_OK)
        goto cleanup;
    const uint32_t n = mg_matrix_rows(r.A);
    if (mg_matrix_cols(r.A) != n) {
        rc = cli_usage_error("cg", "cg: %s is %u x %u: conjugate gradients needs a square matrix",
                             o.file, n, mg_matrix_cols(r.A));
        goto cleanup;
    }
    if ((rc = vector_operand(&r, &o, OPT_B, n, "its rows", true, &r.operand)) != CLI_OK) goto cleanup;
    if ((st = mg_dense_create(r.ctx, &r.result, n, 1, o.type)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }
    if (o.history) {
        r.history = malloc(((size_t)o.cg.max_iterations + 1) * sizeof *r.history);
        if (r.history == NULL) {
            fprintf(stderr, "mgraph: out of memory\n");
            rc = CLI_FAIL;
            goto cleanup;
        }
    }

    mg_cg_options used = o.cg;
    for (int64_t k = -1; k < (int64_t)o.runs; k++) {
        mg_cg_options cg = o.cg;
        cg.residuals = r.history;
        if ((st = mg_dense_fill(r.ctx, r.result, 0.0)) != MG_SUCCESS) break; /* every run from x = 0 */
        double start = cli_now();
        if ((st = mg_cg(r.ctx, r.A, r.operand, r.result, &cg)) != MG_SUCCESS) break;
        double elapsed = cli_now() - start;
        if (k < 0) {
            r.warmup_s = elapsed;
        } else {
            r.times[k] = elapsed;
            r.loop_times[k] = cg.iterations > 0 ? cg.seconds / cg.iterations : cg.seconds;
        }
        used = cg;
    }
    if (st != MG_SUCCESS) { /* MG_NOT_CONVERGED and MG_BREAKDOWN included: no answer to give */
        rc = cli_lib_error(r.ctx, st);
        if (st == MG_NOT_CONVERGED)
            fprintf(stderr, "mgraph: cg: no solution within --max-iter %d to --tolerance %.3g; "
                    "raise either, or try --jacobi\n", o.cg.max_iterations, o.cg.tolerance);
        goto cleanup;
    }
    const double median = cli_median(r.times, o.runs);
    const double iteration_s = cli_median(r.loop_times, o.runs);
    if ((rc = gpu_info_after_runs(&r)) != CLI_OK) goto cleanup;

    /* The true residual may exceed the solver's recurrence by what rounding x to its type leaves
     * (single precision, Poisson 2D 64 x 64: 1.8e-4, about 2 x that, against a recurrence 1e-5);
     * 8 x it allows for that and the iterations' own rounding, nothing in double. */
    int validated = -1;
    double true_res = NAN, rounding = 0, bound = NAN;
    if (o.validate) {
        if ((rc = true_residual(&r, &o, &true_res, &rounding)) != CLI_OK) goto cleanup;
        bound = 1.1 * o.cg.tolerance + 8 * rounding;
        validated = true_res <= bound;
    }
    if (o.output != NULL && validated != 0 &&
        (st = mg_dense_write(r.ctx, r.result, o.output)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }

    const uint64_t nnz = mg_matrix_nnz(r.A);
    const mg_values mv = mg_matrix_values(r.A);
    const size_t ab = mv == MG_VALUES_NONE ? 0 : mv == MG_VALUES_FLOAT ? sizeof(float) : sizeof(double);
    const double flops = 2.0 * (double)nnz + (o.cg.jacobi ? 11.0 : 10.0) * n;
    const double bytes = (double)((uint64_t)n + 1) * sizeof(uint64_t) +
                         (double)nnz * (sizeof(uint32_t) + ab) +
                         (o.cg.jacobi ? 13.0 : 11.0) * n * (double)type_bytes(o.type);
    const double gflops = iteration_s > 0 ? flops / iteration_s / 1e9 : 0;
    const double gbs = iteration_s > 0 ? bytes / iteration_s / 1e9 : 0;
    print_head(&r, &o, "cg");
    if (o.json) {
        printf(", \"tolerance\": %.9g, \"max_iter\": %d, \"jacobi\": %s, \"iterations\": %d, "
               "\"residual\": %.9g, \"run_s\": %.9f, \"run_min_s\": %.9f, \"run_max_s\": %.9f, "
               "\"runs\": %llu, \"loop_s\": %.9f, \"iteration_s\": %.9g, \"gflops\": %.6f, "
               "\"gbs\": %.6f, \"bytes\": %.0f",
               o.cg.tolerance, o.cg.max_iterations, o.cg.jacobi ? "true" : "false", used.iterations,
               used.residual, median, r.times[0], r.times[o.runs - 1], (unsigned long long)o.runs,
               used.seconds, iteration_s, gflops, gbs, bytes);
        if (o.validate)
            printf(", \"true_residual\": %.9g, \"validation_bound\": %.9g", true_res, bound);
        if (o.history) {
            printf(", \"history\": [");
            for (int k = 0; k <= used.iterations; k++)
                printf("%s%.9g", k ? ", " : "", r.history[k]);
            printf("]");
        }
    } else {
        printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o.runs);
        printf("iterations: %d%s\n", used.iterations, o.cg.jacobi ? " (jacobi)" : "");
        printf("residual: %.6e (tolerance %.3g)\n", used.residual, o.cg.tolerance);
        printf("per iteration: %.9f s\n", iteration_s);
        printf("GFLOP/s: %.3f\n", gflops);
        printf("GB/s: %.3f\n", gbs);
        if (o.history)
            for (int k = 0; k <= used.iterations; k++) printf("history: %d %.6e\n", k, r.history[k]);
        if (o.validate) printf("true residual: %.6e (at most %.3e)\n", true_res, bound);
    }
    print_tail(&r, &o, validated);
    if (validated == 0) {
        fprintf(stderr, "mgraph: cg: validation failed: ||b - A x|| / ||b|| = %.6e on the host, over "
                "%.3e (1.1 x the tolerance %.3g + 8 x the rounding floor %.3e)\n", true_res, bound,
                o.cg.tolerance, rounding);
        rc = CLI_FAIL;
    }

cleanup:
    sparse_free(&r);
    return rc;
}

/* ---- mgraph spmm and sddmm ---------------------------------------------------------------------- */

/* splitmix64 (Steele, Lea and Flood 2014): one value per (seed, operand, index), so the operands
 * are the same for any order of generation. */
static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A rows x cols operand of --seed's generator: magnitudes uniform in [0.5, 1.5), signs random.
 * Never zero (an all-zero operand would pass a kernel that writes zeros), and the signs make the
 * sums cancel as real data does. `stream` tells the operands of one run apart. */
static int random_dense(sparse_run *r, const sparse_opts *o, uint32_t rows, uint32_t cols,
                        uint64_t stream, mg_dense *X) {
    const size_t n = (size_t)rows * cols;
    const bool single = o->type == MG_FLOAT;
    void *values = malloc(n * type_bytes(o->type) + 1);
    if (values == NULL) {
        fprintf(stderr, "mgraph: %s: out of memory for a %u x %u dense operand\n", o->a.name, rows,
                cols);
        return CLI_FAIL;
    }
    const uint64_t base = splitmix64(o->seed) ^ splitmix64(stream);
    for (size_t i = 0; i < n; i++) {
        const uint64_t bits = splitmix64(base + i);
        const double v = (0.5 + (double)(bits >> 11) * 0x1p-53) * ((bits & 1) ? -1 : 1);
        if (single)
            ((float *)values)[i] = (float)v;
        else
            ((double *)values)[i] = v;
    }
    mg_status st = mg_dense_create(r->ctx, X, rows, cols, o->type);
    if (st == MG_SUCCESS) st = mg_dense_load(r->ctx, *X, values);
    free(values);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(r->ctx, st);
}

/* The dense operand of option id from its file, when given: `want` rows (the matrix's `what`) and
 * K columns, K from --k or an earlier file (*k 0: this file sets it; k_from says who set it), no
 * NaN; else a usage error naming the file and both sizes. */
static int read_dense(sparse_run *r, const sparse_opts *o, cli_opt_id id, uint32_t want,
                      const char *what, uint32_t *k, char *k_from, size_t k_from_size, mg_dense *X) {
    const char *path = o->a.value[id];
    if (path == NULL) return CLI_OK;
    mg_status st = mg_dense_read(r->ctx, X, path, o->type);
    if (st != MG_SUCCESS) return cli_lib_error(r->ctx, st);
    const uint32_t rows = mg_dense_rows(*X), cols = mg_dense_cols(*X);
    if (rows != want)
        return cli_usage_error(o->a.name, "%s: %s file '%s' has %u rows but %s (%u x %u) has %u %s",
                               o->a.name, cli_opt_name(id), path, rows, o->file,
                               mg_matrix_rows(r->A), mg_matrix_cols(r->A), want, what);
    if (*k != 0 && cols != *k)
        return cli_usage_error(o->a.name, "%s: %s file '%s' has %u columns but %s gives K = %u",
                               o->a.name, cli_opt_name(id), path, cols, k_from, *k);
    if (*k == 0) {
        *k = cols;
        snprintf(k_from, k_from_size, "%s file '%s'", cli_opt_name(id), path);
    }
    return check_vector_values(r, o, id, *X, false);
}

/* sddmm's --c: a Matrix Market coordinate file with S's pattern (as sddmm --output writes), its
 * values in the order of S's CSR into C_in (nnz x 1). */
static int read_sampled(sparse_run *r, const sparse_opts *o, mg_dense *c_in) {
    const char *path = o->a.value[OPT_C];
    mg_matrix M = NULL;
    mg_matrix_read_options ro;
    mg_matrix_read_options_init(&ro);
    ro.values = o->type == MG_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    const uint64_t *so = NULL, *mo = NULL;
    const uint32_t *si = NULL, *mi = NULL;
    const void *sv = NULL, *mv = NULL;
    int rc = CLI_OK;
    mg_status st = mg_matrix_read(r->ctx, &M, path, &ro);
    if (st == MG_SUCCESS) st = mg_matrix_csr(r->A, &so, &si, &sv);
    if (st == MG_SUCCESS) st = mg_matrix_csr(M, &mo, &mi, &mv);
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(r->ctx, st);
        goto cleanup;
    }
    const uint32_t rows = mg_matrix_rows(r->A);
    const uint64_t nnz = mg_matrix_nnz(r->A);
    bool same = mg_matrix_rows(M) == rows && mg_matrix_cols(M) == mg_matrix_cols(r->A) &&
                mg_matrix_nnz(M) == nnz && memcmp(so, mo, ((size_t)rows + 1) * sizeof *so) == 0 &&
                memcmp(si, mi, nnz * sizeof *si) == 0;
    if (!same) {
        rc = cli_usage_error(o->a.name, "sddmm: --c file '%s' (%u x %u, %llu nonzeros) does not have "
                             "the pattern of %s (%u x %u, %llu nonzeros): C is sampled on S's "
                             "entries", path, mg_matrix_rows(M), mg_matrix_cols(M),
                             (unsigned long long)mg_matrix_nnz(M), o->file, rows,
                             mg_matrix_cols(r->A), (unsigned long long)nnz);
        goto cleanup;
    }
    if ((st = mg_dense_create(r->ctx, c_in, (uint32_t)nnz, 1, o->type)) != MG_SUCCESS ||
        (st = mg_dense_load(r->ctx, *c_in, mv)) != MG_SUCCESS) {
        rc = cli_lib_error(r->ctx, st);
        goto cleanup;
    }
    rc = check_vector_values(r, o, OPT_C, *c_in, false);

cleanup:
    mg_matrix_free(&M);
    return rc;
}

/* spmm and sddmm: the dense operands (files, else the generator), C, the runs, the checker, the
 * output, the lines. */
static mg_status product_call(sparse_run *r, const sparse_opts *o, int cmd) {
    return cmd == CMD_SDDMM ? mg_sddmm(r->ctx, r->A, r->left, r->operand, r->result, &o->sddmm)
                            : mg_spmm(r->ctx, r->A, r->operand, r->result, &o->spmm);
}

static int product_main(int argc, char **argv, const char *name, int cmd) {
    sparse_opts o;
    sparse_run r;
    mg_status st = MG_SUCCESS;
    mg_matrix sampled = NULL; /* sddmm --output: C as a matrix of S's pattern */
    const bool sddmm = cmd == CMD_SDDMM;
    int rc = sparse_begin(argc, argv, name, cmd, &o, &r);
    /* Until the operand files are read, auto's rule assumes the largest K: a small file is then
     * one that no K could make worth the GPU. */
    if (rc != CLI_OK || (rc = sparse_setup(&r, &o, cmd, o.k ? o.k : MAX_K)) != CLI_OK) goto cleanup;

    const bool t = !sddmm && o.spmm.transpose;
    const uint32_t rows = mg_matrix_rows(r.A), cols = mg_matrix_cols(r.A);
    const uint64_t nnz = mg_matrix_nnz(r.A);
    uint32_t k = (uint32_t)o.k;
    char k_from[1200] = "--k";
    /* spmm: B is op(A)'s cols x K, C op(A)'s rows x K; sddmm: A rows x K, B cols x K, C nnz x 1. */
    const uint32_t b_rows = sddmm || !t ? cols : rows, c_rows = t ? cols : rows;
    if (sddmm && (rc = read_dense(&r, &o, OPT_A, rows, "rows", &k, k_from, sizeof k_from,
                                  &r.left)) != CLI_OK)
        goto cleanup;
    if ((rc = read_dense(&r, &o, OPT_B, b_rows, t ? "rows (--transpose)" : "columns", &k, k_from,
                         sizeof k_from, &r.operand)) != CLI_OK)
        goto cleanup;
    if (sddmm && r.left == NULL && (rc = random_dense(&r, &o, rows, k, 1, &r.left)) != CLI_OK)
        goto cleanup;
    if (r.operand == NULL && (rc = random_dense(&r, &o, b_rows, k, 2, &r.operand)) != CLI_OK)
        goto cleanup;
    if (sddmm && nnz > UINT32_MAX) {
        fprintf(stderr, "mgraph: sddmm: %s has %llu nonzeros; its result, one value per nonzero, "
                "holds at most %u\n", o.file, (unsigned long long)nnz, UINT32_MAX);
        rc = CLI_FAIL;
        goto cleanup;
    }
    const uint32_t c_len = sddmm ? (uint32_t)nnz : c_rows, c_cols = sddmm ? 1 : k;
    if (o.a.value[OPT_C] != NULL) {
        if (sddmm) {
            rc = read_sampled(&r, &o, &r.y_in);
        } else {
            uint32_t c_k = k;
            rc = read_dense(&r, &o, OPT_C, c_rows, t ? "columns (--transpose)" : "rows", &c_k,
                            k_from, sizeof k_from, &r.y_in);
        }
        if (rc != CLI_OK) goto cleanup;
        r.y_host = malloc((size_t)c_len * c_cols * type_bytes(o.type) + 1);
        if (r.y_host == NULL) {
            fprintf(stderr, "mgraph: out of memory\n");
            rc = CLI_FAIL;
            goto cleanup;
        }
        if ((st = mg_dense_extract(r.ctx, r.y_in, r.y_host)) != MG_SUCCESS) {
            rc = cli_lib_error(r.ctx, st);
            goto cleanup;
        }
    }
    if ((st = mg_dense_create(r.ctx, &r.result, c_len, c_cols, o.type)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }
    r.gpu_start.passes = k;
    r.spmm_k = k;
    mg_spmm_options_init(&r.spmm_opts);
    if (!sddmm) r.spmm_opts = o.spmm;
    if ((rc = sparse_select(&r, &o, cmd)) != CLI_OK) goto cleanup;

    if ((st = timed_runs(&r, &o, cmd, product_call)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }
    const double median = cli_median(r.times, o.runs);
    if ((rc = gpu_info_after_runs(&r)) != CLI_OK) goto cleanup;

    int validated = -1; /* -1 skipped, 0 FAIL, 1 PASS */
    char why[1024] = "";
    if (o.validate) {
        st = sddmm ? mg_check_sddmm(r.ctx, r.A, r.left, r.operand, r.y_in, r.result, &o.sddmm)
                   : mg_check_spmm(r.ctx, r.A, r.operand, r.y_in, r.result, &o.spmm);
        if ((validated = validation_outcome(&r, st, why, sizeof why, &rc)) < -1) goto cleanup;
    }
    /* Never a known-wrong result in an output file. */
    if (o.output != NULL && validated != 0) {
        if (sddmm) {
            st = mg_matrix_with_values(r.ctx, r.A, r.result, &sampled);
            if (st == MG_SUCCESS) st = mg_matrix_write(r.ctx, sampled, o.output);
        } else {
            st = mg_dense_write(r.ctx, r.result, o.output);
        }
        if (st != MG_SUCCESS) {
            rc = cli_lib_error(r.ctx, st);
            goto cleanup;
        }
    }

    /* The fewest bytes a call moves: the CSR (offsets of op(A)'s rows) and every dense operand
     * once, C twice when beta reads it. */
    const size_t vb = type_bytes(o.type);
    const mg_values mv = mg_matrix_values(r.A);
    const size_t ab = mv == MG_VALUES_NONE ? 0 : mv == MG_VALUES_FLOAT ? sizeof(float) : sizeof(double);
    const double beta = sddmm ? o.sddmm.beta : o.spmm.beta;
    const double dense_in = sddmm ? ((double)rows + cols) * k : (double)b_rows * k;
    const double bytes = (double)((uint64_t)(t ? cols : rows) + 1) * sizeof(uint64_t) +
                         (double)nnz * (sizeof(uint32_t) + ab) + dense_in * (double)vb +
                         (double)c_len * c_cols * (double)vb * (beta != 0 ? 2 : 1);
    const double gflops = median > 0 ? 2.0 * (double)nnz * k / median / 1e9 : 0;
    const double gbs = median > 0 ? bytes / median / 1e9 : 0;
    const char *const labels[2] = {sddmm ? "a" : NULL, "b"};
    const cli_opt_id ids[2] = {OPT_A, OPT_B};
    print_head(&r, &o, name);
    if (o.json) {
        printf(", \"k\": %u, \"seed\": %llu", k, (unsigned long long)o.seed);
        for (int i = 0; i < 2; i++) {
            if (labels[i] == NULL) continue;
            printf(", \"%s\": ", labels[i]);
            cli_json_string(stdout, o.a.value[ids[i]] ? o.a.value[ids[i]] : "random");
        }
        if (!sddmm)
            printf(", \"transpose\": %s, \"tf32\": %s", t ? "true" : "false",
                   o.spmm.tf32 ? "true" : "false");
        printf(", \"alpha\": %.17g, \"beta\": %.17g, \"run_s\": %.9f, \"run_min_s\": %.9f, "
               "\"run_max_s\": %.9f, \"runs\": %llu, \"gflops\": %.6f, \"gbs\": %.6f, "
               "\"bytes\": %.0f", sddmm ? o.sddmm.alpha : o.spmm.alpha, beta, median, r.times[0],
               r.times[o.runs - 1], (unsigned long long)o.runs, gflops, gbs, bytes);
    } else {
        printf("K: %u\n", k);
        for (int i = 0; i < 2; i++) {
            if (labels[i] == NULL) continue;
            const uint32_t n = i == 0 ? rows : b_rows;
            if (o.a.value[ids[i]] != NULL)
                printf("%c: %u x %u from %s\n", labels[i][0] - 'a' + 'A', n, k, o.a.value[ids[i]]);
            else
                printf("%c: %u x %u random (seed %llu)\n", labels[i][0] - 'a' + 'A', n, k,
                       (unsigned long long)o.seed);
        }
        if (sddmm)
            printf("product: C = S .* (A B^T), %llu values\n", (unsigned long long)nnz);
        else
            printf("product: C = A%s B, %u x %u%s\n", t ? "^T" : "", c_rows, k,
                   o.spmm.tf32 ? " (TF32 allowed)" : "");
        printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o.runs);
        printf("GFLOP/s: %.3f\n", gflops);
        printf("GB/s: %.3f\n", gbs);
    }
    print_tail(&r, &o, validated);
    if (validated == 0) {
        fprintf(stderr, "mgraph: %s: validation failed: %s\n", name, why);
        rc = CLI_FAIL;
    }

cleanup:
    mg_matrix_free(&sampled);
    sparse_free(&r);
    return rc;
}

int cli_spmm_main(int argc, char **argv) { return product_main(argc, argv, "spmm", CMD_SPMM); }

int cli_sddmm_main(int argc, char **argv) { return product_main(argc, argv, "sddmm", CMD_SDDMM); }

/* ---- mgraph probe ------------------------------------------------------------------------------- */

int cli_probe_main(int argc, char **argv) {
    cli_args a;
    mg_context ctx = NULL;
    mg_gpu_probe_result p;
    int rc = cli_parse(argc, argv, 2, "probe", CMD_PROBE, 0, &a);
    if (rc != CLI_OK) return rc;
    mg_status st = mg_context_create(&ctx);
    if (st == MG_SUCCESS) st = mg_gpu_probe(ctx, &p);
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        mg_context_free(&ctx);
        return rc;
    }
    mg_context_free(&ctx);
    const struct {
        const char *key, *label, *unit;
        double value;
    } rows[] = {
        {"h2d_pinned_gbs", "PCIe host to device, pinned", "GB/s", p.h2d_pinned_gbs},
        {"d2h_pinned_gbs", "PCIe device to host, pinned", "GB/s", p.d2h_pinned_gbs},
        {"h2d_pageable_gbs", "PCIe host to device, pageable", "GB/s", p.h2d_pageable_gbs},
        {"d2h_pageable_gbs", "PCIe device to host, pageable", "GB/s", p.d2h_pageable_gbs},
        {"h2d_latency_us", "PCIe host to device latency", "us", p.h2d_latency_us},
        {"d2h_latency_us", "PCIe device to host latency", "us", p.d2h_latency_us},
        {"launch_latency_us", "kernel launch latency", "us", p.launch_latency_us},
        {"read_gbs", "device memory read", "GB/s", p.read_gbs},
        {"copy_gbs", "device memory copy", "GB/s", p.copy_gbs},
        {"global_atomics_gops", "global atomics, distinct words", "Gop/s", p.global_atomics_gops},
        {"global_atomics_contended_gops", "global atomics, contended", "Gop/s",
         p.global_atomics_contended_gops},
        {"shared_atomics_gops", "shared atomics", "Gop/s", p.shared_atomics_gops},
        {"fp32_gflops", "fp32 FMA peak", "GFLOP/s", p.fp32_gflops},
        {"fp64_gflops", "fp64 FMA peak", "GFLOP/s", p.fp64_gflops},
    };
    if (a.value[OPT_JSON] != NULL) {
        printf("{\"name\": ");
        cli_json_string(stdout, p.name);
        printf(", \"l2_bytes\": %zu", p.l2_bytes);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            printf(", \"%s\": %.6g", rows[i].key, rows[i].value);
        printf("}\n");
    } else {
        printf("device: %s\n", p.name);
        printf("L2 cache: %.1f MiB\n", p.l2_bytes / 1048576.0);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            printf("%s: %.2f %s\n", rows[i].label, rows[i].value, rows[i].unit);
    }
    cli_flush_stdout();
    return CLI_OK;
}

/* ---- mgraph spgemm ------------------------------------------------------------------------------ */

/* A second sparse operand (B or the mask) read as A was; a shape that does not fit is a usage
 * error naming both files. */
static int read_operand(sparse_run *r, const sparse_opts *o, const char *path, mg_matrix *M) {
    mg_matrix_read_options ro;
    mg_matrix_read_options_init(&ro);
    ro.values = o->type == MG_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    mg_status st = mg_matrix_read(r->ctx, M, path, &ro);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(r->ctx, st);
}

int cli_spgemm_main(int argc, char **argv) {
    sparse_opts o;
    sparse_run r;
    mg_status st = MG_SUCCESS;
    mg_matrix B = NULL, M = NULL, C = NULL;
    int rc = sparse_begin(argc, argv, "spgemm", CMD_SPGEMM, &o, &r);
    if (rc != CLI_OK || (rc = sparse_setup(&r, &o, CMD_SPGEMM, o.runs + 1)) != CLI_OK) goto cleanup;
    const char *b_file = o.file_b != NULL ? o.file_b : o.file;
    if (o.file_b != NULL && (rc = read_operand(&r, &o, o.file_b, &B)) != CLI_OK) goto cleanup;
    const mg_matrix right = B != NULL ? B : r.A;
    if (mg_matrix_cols(r.A) != mg_matrix_rows(right)) {
        rc = cli_usage_error(o.a.name, "spgemm: A (%s) is %u x %u but B (%s) is %u x %u: A's "
                             "columns must equal B's rows", o.file, mg_matrix_rows(r.A),
                             mg_matrix_cols(r.A), b_file, mg_matrix_rows(right),
                             mg_matrix_cols(right));
        goto cleanup;
    }
    const char *mask_file = o.a.value[OPT_MASK];
    if (mask_file != NULL) {
        if ((rc = read_operand(&r, &o, mask_file, &M)) != CLI_OK) goto cleanup;
        if (mg_matrix_rows(M) != mg_matrix_rows(r.A) || mg_matrix_cols(M) != mg_matrix_cols(right)) {
            rc = cli_usage_error(o.a.name, "spgemm: --mask %s is %u x %u but C = A B (%s, %s) is "
                                 "%u x %u", mask_file, mg_matrix_rows(M), mg_matrix_cols(M),
                                 o.file, b_file, mg_matrix_rows(r.A), mg_matrix_cols(right));
            goto cleanup;
        }
        o.spgemm.mask = M;
    }
    if ((rc = sparse_select(&r, &o, CMD_SPGEMM)) != CLI_OK) goto cleanup;

    /* Warm-up (run -1), then the timed runs; each makes a new C, the last one is kept. */
    for (int64_t k = -1; k < (int64_t)o.runs; k++) {
        mg_matrix_free(&C);
        double start = cli_now();
        if ((st = mg_spgemm(r.ctx, r.A, right, &C, &o.spgemm)) != MG_SUCCESS) break;
        double elapsed = cli_now() - start;
        if (k < 0)
            r.warmup_s = elapsed;
        else
            r.times[k] = elapsed;
    }
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }
    const double median = cli_median(r.times, o.runs);

    int validated = -1; /* -1 skipped, 0 FAIL, 1 PASS */
    char why[1024] = "";
    if (o.validate) {
        st = mg_check_spgemm(r.ctx, r.A, right, C, &o.spgemm);
        if ((validated = validation_outcome(&r, st, why, sizeof why, &rc)) < -1) goto cleanup;
    }
    /* Never a known-wrong result in an output file. */
    if (validated != 0 && (st = mg_matrix_write(r.ctx, C, o.output)) != MG_SUCCESS) {
        rc = cli_lib_error(r.ctx, st);
        goto cleanup;
    }

    /* multiply-adds: B's row length summed over A's entries (the unmasked work) */
    const uint64_t *a_off, *b_off;
    const uint32_t *a_idx;
    mg_matrix_csr(r.A, &a_off, &a_idx, NULL);
    mg_matrix_csr(right, &b_off, NULL, NULL);
    uint64_t madds = 0;
    for (uint64_t e = 0; e < mg_matrix_nnz(r.A); e++) madds += b_off[a_idx[e] + 1] - b_off[a_idx[e]];
    const double gflops = median > 0 ? 2.0 * (double)madds / median / 1e9 : 0;
    const char *sr = SEMIRING_NAMES[o.spgemm.semiring];
    print_head(&r, &o, "spgemm");
    if (o.json) {
        printf(", \"b\": ");
        cli_json_string(stdout, b_file);
        printf(", \"mask\": ");
        if (mask_file != NULL) cli_json_string(stdout, mask_file);
        else printf("null");
        printf(", \"complement\": %s, \"semiring\": \"%s\", \"c_rows\": %u, \"c_cols\": %u, "
               "\"c_nnz\": %llu, \"multiply_adds\": %llu, \"run_s\": %.9f, \"run_min_s\": %.9f, "
               "\"run_max_s\": %.9f, \"runs\": %llu, \"gflops\": %.6f",
               o.spgemm.complement ? "true" : "false", sr, mg_matrix_rows(C), mg_matrix_cols(C),
               (unsigned long long)mg_matrix_nnz(C), (unsigned long long)madds, median,
               r.times[0], r.times[o.runs - 1], (unsigned long long)o.runs, gflops);
    } else {
        printf("B: %s (%u x %u, %llu nonzeros)%s\n", b_file, mg_matrix_rows(right),
               mg_matrix_cols(right), (unsigned long long)mg_matrix_nnz(right),
               B == NULL ? " (C = A A)" : "");
        if (mask_file != NULL)
            printf("mask: %s (%llu entries%s)\n", mask_file, (unsigned long long)mg_matrix_nnz(M),
                   o.spgemm.complement ? ", complemented" : "");
        printf("semiring: %s\n", sr);
        printf("product: C %u x %u, %llu nonzeros (%s)\n", mg_matrix_rows(C), mg_matrix_cols(C),
               (unsigned long long)mg_matrix_nnz(C), values_name(mg_matrix_values(C)));
        printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o.runs);
        printf("GFLOP/s: %.3f (%llu multiply-adds)\n", gflops, (unsigned long long)madds);
    }
    print_tail(&r, &o, validated);
    if (validated == 0) {
        fprintf(stderr, "mgraph: spgemm: validation failed: %s\n", why);
        rc = CLI_FAIL;
    }

cleanup:
    mg_matrix_free(&C);
    mg_matrix_free(&B);
    mg_matrix_free(&M);
    sparse_free(&r);
    return rc;
}
