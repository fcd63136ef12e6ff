/*
 * cli_backend.c — which backend an algorithm runs on, and the GPU's start-up beside the load.
 *
 * Starting a CUDA device (driver, context, memory pool) takes a few tenths of a second, about what
 * loading a graph of tens of millions of edges takes. So where the GPU may be used, a thread starts
 * it while the main thread reads the file, and its cost hides behind the load. `--backend auto`
 * then decides on the loaded graph: the GPU when it is usable and the graph has at least the
 * algorithm's edge threshold, else the CPU. The thresholds are where, measured end to end on an
 * H100 against its host's 16 cores (tools/backend-rule.sh, docs/PERFORMANCE.md), the GPU's upload
 * and device build are repaid by its faster run; a file too small to hold that many edges never
 * touches the GPU at all, so small runs stay as quick as on a machine without one.
 *
 * A matrix (spmv, cg) follows the same rule by its stored nonzeros. One SpMV reads each nonzero
 * once, and the upload moves those same bytes over PCIe, slower than 16 host cores read them: the
 * GPU repays its start-up and upload only over several passes, so spmv's threshold is on passes x
 * nonzeros. Measured end to end on the H100's host (docs/PERFORMANCE.md, session 12): 2^25 nonzeros
 * and 8 passes ran 0.83 s on the GPU against 0.77 s on the CPU, one CPU pass taking 23 ms, so the
 * GPU pays from about twice that work. CG's threshold is an estimate (its hundreds of iterations
 * repay the upload within a few), not yet measured end to end. SpMM and SDDMM meet each nonzero
 * with K columns of the dense operands in one call, so their rule is on the work nonzeros x K
 * (SPMM_GPU_MIN_WORK), an estimate too.
 *
 * tc, lcc and cdlp were measured the same way (session 16, tools/backend-rule.sh with ALGOS): on
 * R-MAT the GPU lost at 1.8M stored edges and won from 7.6M (tc 1.16 s against 2.59 s, lcc 3.45
 * against 6.54), on the 1024^2 grid's 4.19M it lost tc and lcc (0.73 s against 0.23) but won
 * cdlp (0.53 s against 0.74). A plain spgemm stays on the CPU: A A of R-MAT 14 (425k nonzeros, 40M
 * out) took 0.40 s on the GPU against 0.28 s on 16 cores, Dubcova1 and bcsstk33 about as long or
 * twice; larger products were cut by writing C before they showed a crossover.
 */
#include "cli.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Stored edges (nonzeros) from which auto picks the GPU, per algorithm, for a run of `passes`
 * passes over them (warm-up and runs; see the banner; measured on R-MAT and grids,
 * docs/PERFORMANCE.md). PageRank makes many passes over the edges per upload and repays it first;
 * SSSP next; a one-off BFS on 16 cores takes about as long as the upload alone (16 ms on R-MAT
 * 22's 128M edges), so it goes to the GPU only beyond what was measured. CG's iterations each make
 * a pass (usually hundreds), repaying a 2^22-nonzero upload (about 50 MB, 2-4 ms) within a few; an
 * SpMV run makes only the passes --runs asks for: 2^29 nonzero-passes, and never under 2^24
 * nonzeros. The graph thresholds were measured at the default run count and ignore passes. */
/* SpMM, SDDMM: the nonzeros x K from which auto picks the GPU. An ESTIMATE pending a measurement
 * end to end on the device (tools/backend-rule.sh's way): spmv's measured 2^29 nonzero-passes,
 * less a factor 4 because an SpMM call uploads the matrix once for K columns of work and the GPU's
 * margin grows with the arithmetic per byte. */
static const uint64_t SPMM_GPU_MIN_WORK = (uint64_t)1 << 27;

static uint64_t gpu_min_edges(int cmd, uint64_t passes) {
    switch (cmd) {
    case CMD_SPMM:
    case CMD_SDDMM: { /* passes: K */
        const uint64_t k = passes ? passes : 1;
        return (SPMM_GPU_MIN_WORK + k - 1) / k;
    }
    case CMD_CG: return (uint64_t)1 << 22;
    case CMD_SPMV: {
        const uint64_t work = (uint64_t)1 << 29, floor = (uint64_t)1 << 24;
        const uint64_t per_pass = (work + passes - 1) / (passes ? passes : 1);
        return per_pass > floor ? per_pass : floor;
    }
    case CMD_TC:
    case CMD_LCC: return (uint64_t)1 << 22;
    case CMD_CDLP: return (uint64_t)1 << 21;
    case CMD_PR: return (uint64_t)1 << 25;
    case CMD_SSSP: return (uint64_t)1 << 26;
    case CMD_CC:
    case CMD_BC: return (uint64_t)1 << 27;
    default: return (uint64_t)1 << 28;
    }
}

static bool ends_with(const char *s, const char *tail) {
    const size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The smallest file that can hold a graph of the algorithm's threshold: a binary file stores at
 * least a 4-byte index per stored edge (an undirected, unweighted one its CSR alone); a text edge
 * is at least 4 bytes ("1 2\n") and a symmetric file stores one line for two stored directions. A
 * gzipped file may be up to 1032 times smaller than its text (deflate's largest ratio). */
static uint64_t auto_min_file_bytes(int cmd, uint64_t passes, const char *file) {
    const uint64_t least = gpu_min_edges(cmd, passes);
    if (ends_with(file, ".gz")) return least * 2 / 1032;
    return ends_with(file, ".mgb") ? least * 4 : least * 2;
}

int cli_backend_option(const cli_args *a, mg_backend *out) {
    static const char *const names[] = {"cpu", "gpu", "auto"};
    static const int values[] = {MG_BACKEND_CPU, MG_BACKEND_GPU, MG_BACKEND_AUTO};
    int v = MG_BACKEND_AUTO;
    int rc = a->value[OPT_BACKEND] ? cli_choice(a, OPT_BACKEND, names, values, 3, &v) : CLI_OK;
    *out = (mg_backend)v;
    return rc;
}

static void *start_device(void *unused) {
    (void)unused;
    mg_context ctx = NULL;
    /* The result is not kept: choosing the backend afterwards asks again, at no cost once the
     * device is started, and reports a failure with the library's own message. */
    if (mg_context_create(&ctx) == MG_SUCCESS) (void)mg_context_set_backend(ctx, MG_BACKEND_GPU);
    mg_context_free(&ctx);
    return NULL;
}

void cli_gpu_start_begin(cli_gpu_start *s, mg_backend requested, int cmd, uint64_t passes,
                         const char *file) {
    memset(s, 0, sizeof *s);
    s->requested = requested;
    s->passes = passes;
    struct stat sb;
    /* a file that cannot be read fails the load at once: no start-up to wait for on the way out */
    if (requested == MG_BACKEND_CPU || !mg_built_with_cuda() || stat(file, &sb) != 0) return;
    /* auto keeps a plain SpGEMM on the CPU (see the banner; --backend gpu runs it): nothing to start */
    if (requested == MG_BACKEND_AUTO && cmd == CMD_SPGEMM) return;
    if (requested == MG_BACKEND_AUTO) {
        s->min_file_bytes = auto_min_file_bytes(cmd, passes, file);
        if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size < s->min_file_bytes) {
            s->small_file = true;
            return;
        }
    }
    /* Under mpirun the rank's device is chosen on the main thread by mg_context_set_mpi (local
     * rank modulo the devices); a start-up thread would start device 0 on every rank. */
    if (cli_mpi()) return;
    /* Without a thread the start-up runs when the backend is chosen, after the load. */
    s->started = pthread_create(&s->thread, NULL, start_device, NULL) == 0;
}

static void join(cli_gpu_start *s) {
    if (!s->started) return;
    pthread_join(s->thread, NULL);
    s->started = false;
}

void cli_gpu_start_end(cli_gpu_start *s) { join(s); }

/* Several ranks: all on their GPUs or all on the CPU (a rank on the CPU exchanges through MPI, one
 * on a GPU through NCCL, and the two never meet), and each on a GPU no other rank on its host has
 * (NCCL refuses two ranks on one device). --backend gpu fails where that does not hold; auto then
 * takes the CPU on every rank. Collective: every rank calls it (requested is the same everywhere). */
static int ranks_agree(cli_gpu_start *s, mg_context ctx, int rc, char *why, size_t why_size) {
    const bool gpu = rc == CLI_OK && mg_context_backend(ctx) == MG_BACKEND_GPU;
    int device = -1;
    mg_gpu_info info;
    if (gpu && mg_gpu_query(ctx, &info) == MG_SUCCESS && info.available) device = info.device;
    char clash[512];
    if (cli_ranks_own_devices(device, clash, sizeof clash)) return rc;
    if (s->requested == MG_BACKEND_GPU) {
        /* a rank without a GPU has said why already; one whose GPU another rank has says so */
        if (clash[0] != '\0') fprintf(cli_err(), "mgraph: --backend gpu: %s\n", clash);
        return clash[0] != '\0' ? CLI_FAIL : rc;
    }
    /* auto */
    if (gpu) {
        snprintf(why, why_size, "auto: not every rank has a usable GPU of its own%s%s",
                 clash[0] ? ": " : "", clash);
        mg_status st = mg_context_set_backend(ctx, MG_BACKEND_CPU);
        if (st != MG_SUCCESS) return cli_lib_error(ctx, st);
    }
    return rc;
}

int cli_backend_select(cli_gpu_start *s, mg_context ctx, int cmd, uint64_t stored, char *why,
                       size_t why_size) {
    why[0] = '\0';
    join(s);
    mg_status st = MG_SUCCESS;
    if (s->requested == MG_BACKEND_CPU) {
        st = mg_context_set_backend(ctx, MG_BACKEND_CPU);
    } else if (s->requested == MG_BACKEND_GPU) {
        /* After a failed start-up this fails again, with the library's message. */
        st = mg_context_set_backend(ctx, MG_BACKEND_GPU);
    } else {
        const uint64_t m = stored, least = gpu_min_edges(cmd, s->passes);
        const char *unit = cmd & CMD_SPARSE ? "nonzeros" : "edges";
        bool gpu = false;
        if (cmd == CMD_SPGEMM)
            snprintf(why, why_size, "auto: the CPU, where the GPU SpGEMM was not faster end to end "
                     "in the products measured (--backend gpu runs it)");
        else if (!mg_built_with_cuda())
            snprintf(why, why_size, "auto: this build has no CUDA backend");
        else if (s->small_file)
            snprintf(why, why_size, "auto: the file is under %llu %s, too small for the GPU's "
                     "start-up and upload to pay",
                     (unsigned long long)(s->min_file_bytes >> (s->min_file_bytes >> 20 ? 20 : 10)),
                     s->min_file_bytes >> 20 ? "MiB" : "KiB");
        else if (m < least && (cmd & (CMD_SPMM | CMD_SDDMM)))
            snprintf(why, why_size, "auto: %llu %s x K %llu, under the %llu from which the GPU "
                     "pays (an estimate)", (unsigned long long)m, unit,
                     (unsigned long long)s->passes, (unsigned long long)SPMM_GPU_MIN_WORK);
        else if (m < least && cmd == CMD_SPMV)
            snprintf(why, why_size, "auto: %llu %s, under the %llu from which the GPU pays over "
                     "%llu passes (warm-up and --runs)", (unsigned long long)m, unit,
                     (unsigned long long)least, (unsigned long long)s->passes);
        else if (m < least)
            snprintf(why, why_size, "auto: %llu %s, under the %llu from which the GPU pays",
                     (unsigned long long)m, unit, (unsigned long long)least);
        else
            gpu = true;
        if (gpu && mg_context_set_backend(ctx, MG_BACKEND_GPU) == MG_SUCCESS) {
            if (cmd & (CMD_SPMM | CMD_SDDMM))
                snprintf(why, why_size, "auto: %llu %s x K %llu, at least the %llu from which the "
                         "GPU pays (an estimate)", (unsigned long long)m, unit,
                         (unsigned long long)s->passes, (unsigned long long)SPMM_GPU_MIN_WORK);
            else
                snprintf(why, why_size, "auto: %llu %s, at least the %llu from which the GPU pays",
                         (unsigned long long)m, unit, (unsigned long long)least);
        } else {
            if (gpu) snprintf(why, why_size, "auto: no usable GPU: %s", mg_context_error(ctx));
            st = mg_context_set_backend(ctx, MG_BACKEND_CPU);
        }
    }
    int rc = st == MG_SUCCESS ? CLI_OK : cli_lib_error(ctx, st);
    return cli_ranks() > 1 && s->requested != MG_BACKEND_CPU ? ranks_agree(s, ctx, rc, why, why_size)
                                                             : rc;
}
