/*
 * cli_algo.c — the benchmark harness behind `mgraph bfs|sssp|cc|pr|bc|tc|lcc`: one flow for every
 * algorithm (GAPBS's habit): load, an untimed warm-up (on a GPU, repeated for 0.25 s), N timed
 * runs, the median, traversed edges and MTEPS, --validate with the library's serial checkers,
 * --output in the file's own vertex numbering, and the same grep-able lines (or one JSON object)
 * for every algorithm.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Everything one run of the harness needs, parsed and checked before the file is read. */
typedef struct {
    cli_args a;
    const char *file;
    mg_backend backend;
    mg_mode mode;
    mg_engine engine;
    double sample_fraction;
    uint64_t runs;
    bool validate, json, trace;
    const char *output;
    bool has_source;
    uint64_t source_arg;       /* --source as typed (file numbering)                           */
    double delta;              /* sssp                                                         */
    int iterations;            /* cdlp                                                         */
    mg_pagerank_options pr;    /* pr                                                           */
    bool bc_all;               /* bc --all                                                     */
    uint64_t *bc_list;         /* bc --sources as typed (file numbering), bc_count entries     */
    uint32_t bc_count;
} algo_opts;

/* "3,17,4" -> numbers; each a plain non-negative integer. */
static int parse_source_list(algo_opts *o) {
    const char *s = o->a.value[OPT_SOURCES];
    size_t count = 1;
    for (const char *p = s; *p; p++) count += *p == ',';
    if (count > UINT32_MAX)
        return cli_usage_error(o->a.name, "bc: --sources lists too many vertices");
    o->bc_list = malloc(count * sizeof *o->bc_list);
    if (o->bc_list == NULL) {
        fprintf(cli_err(), "mgraph: out of memory\n");
        return CLI_FAIL;
    }
    const char *p = s;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char word[32];
        bool ok = len > 0 && len < sizeof word;
        if (ok) {
            memcpy(word, p, len);
            word[len] = '\0';
            for (size_t k = 0; k < len; k++) ok = ok && word[k] >= '0' && word[k] <= '9';
        }
        if (ok) {
            cli_args one = o->a;
            one.value[OPT_SOURCES] = word;
            /* Reuse the strict parser for the message if the number overflows. */
            if (cli_u64(&one, OPT_SOURCES, 0, UINT32_MAX, &o->bc_list[i]) != CLI_OK)
                return CLI_USAGE;
        } else {
            return cli_usage_error(o->a.name,
                                   "bc: invalid value '%s' for --sources: expected comma-separated "
                                   "vertex ids (e.g. 1,5,9)",
                                   s);
        }
        p = comma ? comma + 1 : p + len;
    }
    o->bc_count = (uint32_t)count;
    return CLI_OK;
}

static int parse_algo_opts(int argc, char **argv, const char *name, int cmd, algo_opts *o) {
    int rc = cli_parse(argc, argv, 2, name, cmd, 1, &o->a);
    if (rc != CLI_OK) return rc;
    const cli_args *a = &o->a;
    if (a->npositional != 1) return cli_usage_error(name, "%s: missing the graph FILE", name);
    o->file = a->positional[0];
    o->runs = 1;
    o->validate = a->value[OPT_VALIDATE] != NULL;
    o->json = a->value[OPT_JSON] != NULL;
    o->trace = a->value[OPT_TRACE] != NULL;
    o->output = a->value[OPT_OUTPUT];
    o->mode = MG_MODE_AUTO;
    o->engine = MG_ENGINE_MULTIGRAPH;
    o->sample_fraction = MG_DEFAULT_SAMPLE_FRACTION;
    mg_pagerank_options_init(&o->pr);

    if (a->value[OPT_RUNS] && (rc = cli_u64(a, OPT_RUNS, 1, 100000, &o->runs)) != CLI_OK) return rc;
    if (a->value[OPT_SOURCE]) {
        if ((rc = cli_u64(a, OPT_SOURCE, 0, UINT32_MAX, &o->source_arg)) != CLI_OK) return rc;
        o->has_source = true;
    }
    if ((rc = cli_backend_option(a, &o->backend)) != CLI_OK) return rc;
    if (a->value[OPT_MODE]) {
        static const char *const names[] = {"auto", "hybrid", "sparse", "pull", "dense"};
        static const int values[] = {MG_MODE_AUTO, MG_MODE_HYBRID, MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_DENSE};
        int v = 0;
        if ((rc = cli_choice(a, OPT_MODE, names, values, 5, &v)) != CLI_OK) return rc;
        o->mode = (mg_mode)v;
    }
    if (a->value[OPT_ENGINE]) {
        static const char *const names[] = {"multigraph", "baseline"};
        static const int values[] = {MG_ENGINE_MULTIGRAPH, MG_ENGINE_BASELINE};
        int v = 0;
        if ((rc = cli_choice(a, OPT_ENGINE, names, values, 2, &v)) != CLI_OK) return rc;
        o->engine = (mg_engine)v;
    }
    if (a->value[OPT_SAMPLE] &&
        (rc = cli_double(a, OPT_SAMPLE, 0, 1, true, false, &o->sample_fraction)) != CLI_OK)
        return rc;
    if (a->value[OPT_DELTA] &&
        (rc = cli_double(a, OPT_DELTA, 0, DBL_MAX, false, false, &o->delta)) != CLI_OK)
        return rc;
    if (a->value[OPT_DAMPING] &&
        (rc = cli_double(a, OPT_DAMPING, 0, 1, false, true, &o->pr.damping)) != CLI_OK)
        return rc;
    if (a->value[OPT_TOLERANCE] &&
        (rc = cli_double(a, OPT_TOLERANCE, 0, 1e9, false, false, &o->pr.tolerance)) != CLI_OK)
        return rc;
    if (a->value[OPT_MAX_ITER]) {
        uint64_t it;
        if ((rc = cli_u64(a, OPT_MAX_ITER, 1, 10000000, &it)) != CLI_OK) return rc;
        o->pr.max_iterations = (int)it;
    }
    o->iterations = 10;
    if (a->value[OPT_ITERATIONS]) {
        uint64_t it;
        if ((rc = cli_u64(a, OPT_ITERATIONS, 0, 1000000, &it)) != CLI_OK) return rc;
        o->iterations = (int)it;
    }
    o->pr.data_driven = a->value[OPT_DATA_DRIVEN] != NULL;
    if (a->value[OPT_PRECISION]) {
        static const char *const names[] = {"single", "double"};
        static const int values[] = {1, 0};
        int v = 0;
        if ((rc = cli_choice(a, OPT_PRECISION, names, values, 2, &v)) != CLI_OK) return rc;
        o->pr.single_precision = v != 0;
        if (o->pr.single_precision && o->pr.data_driven)
            return cli_usage_error(name, "pr: --precision single is for the topology-driven mode, "
                                         "not --data-driven");
        if (o->pr.single_precision && o->pr.tolerance > 0 && o->pr.tolerance < 1e-6)
            return cli_usage_error(name, "pr: --tolerance %g is below what float iterates reach "
                                         "(--precision single: 0 or at least 1e-6)", o->pr.tolerance);
    }
    o->bc_all = a->value[OPT_ALL] != NULL;
    int picked = (a->value[OPT_SOURCE] != NULL) + (a->value[OPT_SOURCES] != NULL) + o->bc_all;
    if (picked > 1)
        return cli_usage_error(name, "bc: --source, --sources and --all exclude each other");
    if (a->value[OPT_SOURCES] && (rc = parse_source_list(o)) != CLI_OK) return rc;
    return CLI_OK;
}

/* The input file's vertex range, for messages ("1..34"). */
static int source_in_range(const algo_opts *o, const char *what, uint64_t id, uint32_t n, int base,
                           uint32_t *out) {
    if (id < (uint64_t)base || id - (uint64_t)base >= n) {
        fprintf(cli_err(),
                "mgraph: %s: %s %llu is out of range: %s has vertices %d..%llu (the file's own "
                "numbering)\n",
                o->a.name, what, (unsigned long long)id, o->file, base,
                (unsigned long long)n - 1 + (unsigned long long)base);
        return CLI_USAGE;
    }
    *out = (uint32_t)(id - (uint64_t)base);
    return CLI_OK;
}

/* Stored edges out of the vertices in { v : values[v] <cmp> threshold }. */
static mg_status reached_edges(mg_context ctx, const mg_graph g, const mg_vector values,
                               mg_compare cmp, double threshold, uint64_t *edges) {
    mg_frontier f = NULL;
    mg_status st = mg_frontier_create(ctx, &f, g);
    if (st == MG_SUCCESS) st = mg_frontier_select(ctx, f, NULL, values, cmp, threshold);
    if (st == MG_SUCCESS) st = mg_frontier_out_edges(ctx, f, edges);
    mg_frontier_free(&f);
    return st;
}

/* A hybrid estimate for --trace: milliseconds, "-" when not sampled, "n/a" when the mode could not
 * be tried (the dense form did not fit). */
static const char *estimate_text(bool sampled, double ms, char *buf, size_t size) {
    if (!sampled) return "-";
    if (ms < 0) return "n/a";
    snprintf(buf, size, "%.3f", ms);
    return buf;
}

/* --trace: one line per advance (mg_context_set_trace's hook). */
static void print_step(const mg_advance_info *info, void *user) {
    uint32_t *step = user;
    char sparse[32], pull[32], dense[32];
    fprintf(stderr, "trace: %u %s %u %llu %llu %u %.3f %s %s %s\n", ++*step,
            info->dense ? "dense" : info->pulled ? "pull" : "sparse", info->frontier_vertices,
            (unsigned long long)info->frontier_edges, (unsigned long long)info->edges_scanned,
            info->output_vertices, info->seconds * 1e3,
            estimate_text(info->sampled, info->est_sparse_ms, sparse, sizeof sparse),
            estimate_text(info->sampled, info->est_pull_ms, pull, sizeof pull),
            estimate_text(info->sampled, info->est_dense_ms, dense, sizeof dense));
}

static const char *mode_name(mg_mode m) {
    return m == MG_MODE_SPARSE ? "sparse" : m == MG_MODE_PULL ? "pull" : m == MG_MODE_DENSE ? "dense"
           : m == MG_MODE_HYBRID ? "hybrid" : "auto";
}

/* Writes "<id> <value>" per vertex in the file's numbering. */
static int write_output(mg_context ctx, mg_output *out, FILE *f, int cmd, const mg_graph g,
                        const mg_vector result) {
    uint32_t n = mg_graph_num_vertices(g);
    int64_t base = mg_graph_index_base(g);
    mg_type type = mg_vector_type(result);
    size_t elem = (type == MG_INT64 || type == MG_DOUBLE) ? 8 : 4;
    void *values = malloc((size_t)n * elem + 1);
    if (values == NULL) {
        fprintf(cli_err(), "mgraph: out of memory for --output (%u values)\n", n);
        return CLI_FAIL;
    }
    mg_status st = mg_vector_extract(ctx, result, values);
    if (st != MG_SUCCESS) {
        free(values);
        return cli_lib_error(ctx, st);
    }
    for (uint32_t v = 0; v < n; v++) {
        long long id = (long long)v + base;
        if (type == MG_INT32 || type == MG_VERTEX) {
            int32_t x = ((const int32_t *)values)[v];
            if (cmd == CMD_CC || cmd == CMD_CDLP)
                fprintf(f, "%lld %lld\n", id, (long long)x + base); /* a label is a vertex id */
            else if (x < 0)
                fprintf(f, "%lld inf\n", id);
            else
                fprintf(f, "%lld %d\n", id, (int)x);
        } else if (type == MG_INT64) {
            int64_t x = ((const int64_t *)values)[v];
            if (x == INT64_MAX)
                fprintf(f, "%lld inf\n", id);
            else
                fprintf(f, "%lld %lld\n", id, (long long)x);
        } else {
            double x = type == MG_DOUBLE ? ((const double *)values)[v]
                                         : (double)((const float *)values)[v];
            if (isinf(x))
                fprintf(f, "%lld inf\n", id);
            else
                fprintf(f, "%lld %.10g\n", id, x);
        }
    }
    free(values);
    st = mg_output_commit(ctx, out);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(ctx, st);
}

/* The first vertex with an out-edge in the whole graph (0 if none), from its out-degrees: on a
 * split graph mg_vector_degree counts the whole graph's, with no exchange. */
static mg_status first_with_out_edges(mg_context ctx, const mg_graph g, uint32_t *first) {
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector degree = NULL;
    int64_t *d = malloc(((size_t)n + 1) * sizeof *d);
    mg_status st = d != NULL ? mg_vector_create(ctx, &degree, g, MG_INT64) : MG_OUT_OF_MEMORY;
    if (st == MG_SUCCESS) st = mg_vector_degree(ctx, degree, MG_EDGES_OUT);
    if (st == MG_SUCCESS) st = mg_vector_extract(ctx, degree, d);
    *first = 0;
    for (uint32_t v = 0; st == MG_SUCCESS && v < n; v++)
        if (d[v] > 0) {
            *first = v;
            break;
        }
    mg_vector_free(&degree);
    free(d);
    return st;
}

/* What the serial checkers need besides the graph and the result. */
typedef struct {
    int cmd, iterations;
    uint32_t source;
    const uint32_t *sources; /* bc: NULL for --all */
    uint32_t nsources;
    uint64_t triangles;
    mg_vector per_vertex;
    const mg_pagerank_options *pr;
} checked_case;

/* The library's serial checker for the case (mg_check_*): MG_SUCCESS when the result holds,
 * MG_INVALID_ARGUMENT (the message says where) when it does not. */
static mg_status check_result(mg_context ctx, const mg_graph g, const checked_case *c,
                              const mg_vector result) {
    switch (c->cmd) {
    case CMD_BFS: return mg_check_bfs(ctx, g, c->source, result, NULL);
    case CMD_SSSP: return mg_check_sssp(ctx, g, c->source, result);
    case CMD_CC: return mg_check_cc(ctx, g, result);
    case CMD_TC: return mg_check_triangle_count(ctx, g, c->triangles, c->per_vertex);
    case CMD_LCC: return mg_check_lcc(ctx, g, result);
    case CMD_CDLP: return mg_check_cdlp(ctx, g, c->iterations, result);
    case CMD_PR: return mg_check_pagerank(ctx, g, c->pr, result);
    default: return mg_check_bc(ctx, g, c->sources, c->nsources, result);
    }
}

static int load_graph(mg_context ctx, const algo_opts *o, bool keep_weights, mg_graph *g,
                      double *load_s, double *preprocess_s);

/* --validate over several ranks (rank 0): a share is not a graph the checkers can walk, so the
 * whole graph is read again, with the same options, into a context of its own (no ranks, the
 * CPU), and the result, whole on every rank, is checked there. *validated: 1 PASS, 0 FAIL (why
 * says where). CLI_OK, or CLI_FAIL with the message printed. */
static int check_on_whole_graph(mg_context ctx, const algo_opts *o, const checked_case *c,
                                const mg_vector result, int *validated, char *why, size_t why_size) {
    mg_context plain = NULL;
    mg_graph whole = NULL;
    mg_vector copy = NULL;
    const uint32_t n = mg_vector_size(result);
    void *values = malloc(((size_t)n + 1) * 8);
    double load_s = 0, preprocess_s = 0;
    int rc = CLI_OK;
    mg_status st = values != NULL ? mg_context_create(&plain) : MG_OUT_OF_MEMORY;
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(NULL, st);
        goto done;
    }
    if ((rc = cli_apply_threads(&o->a, plain)) != CLI_OK ||
        (rc = load_graph(plain, o, c->cmd == CMD_SSSP, &whole, &load_s, &preprocess_s)) != CLI_OK)
        goto done;
    if ((st = mg_vector_extract(ctx, result, values)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto done;
    }
    if ((st = mg_vector_create(plain, &copy, whole, mg_vector_type(result))) != MG_SUCCESS ||
        (st = mg_vector_load(plain, copy, values)) != MG_SUCCESS) {
        rc = cli_lib_error(plain, st);
        goto done;
    }
    st = check_result(plain, whole, c, copy);
    if (st == MG_SUCCESS) {
        *validated = 1;
    } else if (st == MG_INVALID_ARGUMENT) {
        *validated = 0;
        snprintf(why, why_size, "%s", mg_context_error(plain));
    } else {
        rc = cli_lib_error(plain, st);
    }
done:
    mg_vector_free(&copy);
    mg_graph_free(&whole);
    mg_context_free(&plain);
    free(values);
    return rc;
}

/* One algorithm's measured run on a loaded graph: what `mgraph ALGO` does after the load, and what
 * `mgraph bench` does per algorithm and engine. */
typedef struct {
    const char *file;
    mg_graph g;
    double load_s, preprocess_s;
    const char *bench_engine; /* bench: the engine's name in its list; NULL for `mgraph ALGO`      */
    mg_output *out;           /* --output, or NULL                                              */
    FILE *out_file;           /* where --output is written                                      */
    bool reported;            /* set once the case's result line or object is printed           */
    char why[512];            /* the library's message when the case failed before that         */
    char backend_why[256];    /* why --backend auto chose the backend it did ("" otherwise)     */
} run_setup;

/* Runs the warm-up and the timed runs, counts traversed edges, validates, writes --output and
 * prints the text lines or the JSON object. CLI_OK, CLI_FAIL (a library error or a failed
 * validation, printed) or CLI_USAGE (a source out of range). */
static int run_case(mg_context ctx, run_setup *su, int cmd, const char *name, algo_opts *o) {
    const mg_graph g = su->g;
    mg_vector result = NULL, scratch = NULL;
    uint32_t *sources = NULL;
    double *times = NULL;
    mg_status st = MG_SUCCESS;
    int rc = CLI_OK;

    /* On the GPU the device form is built here, so its time and size are reported on their own
     * rather than hidden in the warm-up run. tc and lcc run on the sparse layer's matrices, not on
     * the graph's device form. */
    mg_gpu_graph_info gpu_pre;
    memset(&gpu_pre, 0, sizeof gpu_pre);
    bool on_gpu = mg_context_backend(ctx) == MG_BACKEND_GPU;
    const bool graph_on_gpu = on_gpu && !(cmd & CMD_COUNTS);
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t m = mg_graph_num_edges(g);
    const int base = mg_graph_index_base(g);
    /* Sources, in 0-based ids. */
    uint32_t source = 0, nsources = 0;
    const bool uses_source = cmd == CMD_BFS || cmd == CMD_SSSP ||
                             (cmd == CMD_BC && !o->bc_all && !o->bc_count);
    mg_type type = MG_DOUBLE;
    if (cmd == CMD_BFS) type = MG_INT32;
    if (cmd == CMD_SSSP) type = mg_graph_weight_type(g) == MG_WEIGHT_FLOAT ? MG_DOUBLE : MG_INT64;
    if (cmd == CMD_CC || cmd == CMD_CDLP) type = MG_VERTEX;
    if (cmd == CMD_TC) type = MG_INT64;
    /* Per-vertex triangles cost a second product: counted only when --output asks for them. */
    mg_vector per_vertex = NULL;
    uint64_t triangles = 0;
    /* Over several ranks (cli_agree, tools/mgraph.c) a failure until the agreement after the
     * set-up, after the runs and after counting the edges goes to that agreement, never past it:
     * every rank reaches each one, and all stop or go on together. */
    if (graph_on_gpu && (st = mg_graph_gpu_prepare(ctx, g, &gpu_pre)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto set_up;
    }
    if (n == 0) {
        fprintf(cli_err(), "mgraph: %s: %s has no vertices\n", name, su->file);
        rc = CLI_FAIL;
        goto set_up;
    }
    const uint64_t *offsets = NULL;
    const uint32_t *indices = NULL;
    const void *weights = NULL;
    if ((st = mg_graph_csr(g, &offsets, &indices, &weights)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto set_up;
    }

    if (uses_source) {
        if (o->has_source) {
            if ((rc = source_in_range(o, "--source", o->source_arg, n, base, &source)) != CLI_OK)
                goto set_up;
        } else if (cli_ranks() > 1) {
            /* A share's CSR holds only the edges into its own vertices: the whole graph's
             * out-degrees pick the same source on every rank. */
            if ((st = first_with_out_edges(ctx, g, &source)) != MG_SUCCESS) {
                rc = cli_lib_error(ctx, st);
                goto set_up;
            }
        } else {
            /* The first vertex with an out-edge: a source with none would measure nothing. */
            while (source + 1 < n && offsets[source + 1] == offsets[source]) source++;
            if (offsets[source + 1] == offsets[source]) source = 0;
        }
    }
    if (cmd == CMD_BC) {
        nsources = o->bc_all ? n : o->bc_count ? o->bc_count : 1;
        if (!o->bc_all) {
            sources = malloc((size_t)nsources * sizeof *sources);
            if (sources == NULL) {
                fprintf(cli_err(), "mgraph: out of memory\n");
                rc = CLI_FAIL;
                goto set_up;
            }
            if (o->bc_count == 0) sources[0] = source;
            for (uint32_t i = 0; i < o->bc_count; i++)
                if ((rc = source_in_range(o, "--sources vertex", o->bc_list[i], n, base,
                                          &sources[i])) != CLI_OK)
                    goto set_up;
        }
    }

    if ((st = mg_vector_create(ctx, &result, g, type)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto set_up;
    }
    if (cmd == CMD_TC && su->out != NULL) per_vertex = result;
    times = malloc(o->runs * sizeof *times);
    if (times == NULL) {
        fprintf(cli_err(), "mgraph: out of memory\n");
        rc = CLI_FAIL;
        goto set_up;
    }
set_up:
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;

    /* Warm-up (run -1), then the timed runs; the last run's result is what is checked and written. */
    bool converged = true;
    double warmup_s = 0, warm_total = 0;
    int warm_runs = 0;
    enum { kWarmRunsMax = 200 };
    const double kWarmSeconds = 0.25;
    uint32_t trace_step = 0;
    mg_pagerank_options pr_used = o->pr;
    for (int64_t r = -1; r < (int64_t)o->runs; r++) {
        mg_pagerank_options pr = o->pr;
        if (o->trace && r + 1 == (int64_t)o->runs && cli_rank() == 0) {
            if (su->bench_engine != NULL)
                fprintf(stderr, "trace: case %s %s\n", name, su->bench_engine);
            fprintf(stderr, "trace: step mode frontier-vertices frontier-edges edges-scanned "
                            "vertices-out ms est-sparse-ms est-pull-ms est-dense-ms (the last timed "
                            "run; estimates: the GPU hybrid's samples)\n");
            mg_context_set_trace(ctx, print_step, &trace_step);
        }
        double start = cli_now();
        switch (cmd) {
        case CMD_BFS: st = mg_bfs(ctx, g, source, result, NULL); break;
        case CMD_SSSP: st = mg_sssp(ctx, g, source, o->delta, result); break;
        case CMD_CC: st = mg_cc(ctx, g, result); break;
        case CMD_PR: st = mg_pagerank(ctx, g, &pr, result); break;
        case CMD_TC: st = mg_triangle_count(ctx, g, &triangles, per_vertex); break;
        case CMD_LCC: st = mg_lcc(ctx, g, result); break;
        case CMD_CDLP: st = mg_cdlp(ctx, g, o->iterations, result); break;
        default: st = mg_bc(ctx, g, sources, nsources, result); break;
        }
        double elapsed = cli_now() - start;
        if (st == MG_NOT_CONVERGED && cmd == CMD_PR) {
            /* The ranks are still the best the iteration limit allowed: warn, report, go on. */
            if (r + 1 == (int64_t)o->runs)
                fprintf(cli_err(), "mgraph: warning: %s\n", mg_context_error(ctx));
            converged = false;
            st = MG_SUCCESS;
        } else if (cmd == CMD_PR) {
            converged = true;
        }
        if (st != MG_SUCCESS) rc = cli_lib_error(ctx, st);
        if (st == MG_UNAVAILABLE && cli_ranks() > 1 && mg_graph_is_directed(g) &&
            (cmd == CMD_CC || cmd == CMD_BC))
            fprintf(cli_err(), "mgraph: %s: over several ranks the graph must be undirected: %s\n",
                    name, cmd == CMD_CC ? "--undirected gives the same (weakly connected) components"
                                        : "--undirected, or run a directed graph's bc on one rank");
        bool again = false;
        if (rc == CLI_OK && r < 0) {
            /* A GPU idles at a low clock and raises it only under sustained work: right after
             * idling, a run of microsecond steps (road graphs) took up to 10x its warm time
             * (docs/PERFORMANCE.md, session 17). So on a GPU the warm-up repeats until it has
             * lasted kWarmSeconds; warmup_s stays the first run's (it holds the lazy builds). */
            if (warm_runs++ == 0) warmup_s = elapsed;
            warm_total += elapsed;
            again = graph_on_gpu && warm_total < kWarmSeconds && warm_runs < kWarmRunsMax;
        } else if (rc == CLI_OK) {
            times[r] = elapsed;
        }
        if (cli_ranks() > 1) {
            /* Every rank runs as many times: all stop at a failure, and the warm-up repeats
             * while any rank's has not lasted kWarmSeconds. */
            const int all = cli_ranks_max(2 * (rc != CLI_OK) + again);
            if (all >= 2 && rc == CLI_OK) rc = CLI_FAIL; /* the failed rank says why */
            again = all == 1;
        }
        if (rc != CLI_OK) goto ran;
        if (again) r--;
        if (cmd == CMD_PR) pr_used = pr;
    }
ran:
    mg_context_set_trace(ctx, NULL, NULL);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    /* Over several ranks each time is the slowest rank's. */
    cli_ranks_max_doubles(times, o->runs);
    cli_ranks_max_doubles(&warmup_s, 1);
    double median = cli_median(times, o->runs);
    uint64_t traversed = 0; /* see below */
    /* The dense engine's blocks are built by the first call that needs them (the warm-up): report
     * that build with the other preprocessing rather than leave it inside the warm-up time. */
    if (graph_on_gpu && (st = mg_graph_gpu_prepare(ctx, g, &gpu_pre)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto counted;
    }

    /* Traversed edges (see --help): counted after the timing, with the public frontier calls. */
    if (cmd == CMD_BFS) {
        st = reached_edges(ctx, g, result, MG_GE, 0, &traversed);
    } else if (cmd == CMD_SSSP) {
        st = reached_edges(ctx, g, result, MG_LT,
                           type == MG_DOUBLE ? INFINITY : (double)INT64_MAX, &traversed);
    } else if (cmd == CMD_CDLP) {
        traversed = m * (uint64_t)o->iterations;
    } else if (cmd == CMD_CC || (cmd & CMD_COUNTS)) {
        traversed = m;
    } else if (cmd == CMD_PR) {
        traversed = m * (uint64_t)(pr_used.iterations > 0 ? pr_used.iterations : 0);
    } else {
        st = mg_vector_create(ctx, &scratch, g, MG_INT32);
        for (uint32_t i = 0; i < nsources && st == MG_SUCCESS; i++) {
            uint64_t e = 0;
            st = mg_bfs(ctx, g, sources ? sources[i] : i, scratch, NULL);
            if (st == MG_SUCCESS) st = reached_edges(ctx, g, scratch, MG_GE, 0, &e);
            traversed += e;
        }
    }
    if (st != MG_SUCCESS) rc = cli_lib_error(ctx, st);
counted:
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    double mteps = median > 0 ? (double)traversed / median / 1e6 : 0;

    /* From here on rank 0 alone validates, writes and reports (every rank holds the result); the
     * others are done. Its verdict reaches them in the last agreement (tools/mgraph.c). */
    if (cli_rank() != 0) {
        su->reported = true;
        goto cleanup;
    }
    /* Validation of the last run. Reaching --max-iter is a warning, not an error (README): the
     * ranks are then held to what their last iteration's change guarantees, as a fixed-iteration
     * run's are, not to a tolerance the iteration limit kept them from. */
    int validated = -1; /* -1 skipped, 0 FAIL, 1 PASS */
    char why[1024] = "";
    mg_pagerank_options held = pr_used;
    if (!converged) held.tolerance = 0;
    const checked_case checked = {cmd, o->iterations, source, sources, nsources, triangles,
                                  per_vertex, &held};
    if (o->validate && cli_ranks() > 1) {
        rc = check_on_whole_graph(ctx, o, &checked, result, &validated, why, sizeof why);
        if (rc != CLI_OK) goto cleanup;
    } else if (o->validate) {
        st = check_result(ctx, g, &checked, result);
        if (st == MG_SUCCESS) {
            validated = 1;
        } else if (st == MG_INVALID_ARGUMENT) {
            validated = 0;
            snprintf(why, sizeof why, "%s", mg_context_error(ctx));
        } else {
            rc = cli_lib_error(ctx, st);
            goto cleanup;
        }
    }
    /* A result that failed validation is not written: --output files hold checked or unchecked
     * results, never known-wrong ones. */
    if (su->out != NULL && validated != 0) {
        if ((rc = write_output(ctx, su->out, su->out_file, cmd, g, result)) != CLI_OK) goto cleanup;
    }

    const char *backend = on_gpu ? "gpu" : "cpu";
    const int threads = cli_threads(&o->a);
    if (o->json) {
        printf("{\"algorithm\": ");
        cli_json_string(stdout, name);
        if (su->bench_engine != NULL) printf(", \"bench_engine\": \"%s\", \"status\": \"%s\"",
                                             su->bench_engine, validated == 0 ? "invalid" : "ok");
        printf(", \"file\": ");
        cli_json_string(stdout, su->file);
        printf(", \"vertices\": %u, \"edges\": %llu, \"directed\": %s, \"weights\": \"%s\", "
               "\"index_base\": %d",
               n, (unsigned long long)m, mg_graph_is_directed(g) ? "true" : "false",
               cli_weight_name(mg_graph_weight_type(g)), base);
        if (cli_mpi()) printf(", \"ranks\": %d", cli_ranks());
        if (uses_source) printf(", \"source\": %llu", (unsigned long long)source + (unsigned)base);
        if (cmd == CMD_BC) printf(", \"sources\": %u", nsources);
        if (cmd == CMD_TC) printf(", \"triangles\": %llu", (unsigned long long)triangles);
        if (cmd == CMD_PR)
            printf(", \"iterations\": %d, \"converged\": %s, \"damping\": %.9g, \"tolerance\": %.9g, "
                   "\"data_driven\": %s, \"precision\": \"%s\"",
                   pr_used.iterations, converged ? "true" : "false", pr_used.damping,
                   pr_used.tolerance, pr_used.data_driven ? "true" : "false",
                   pr_used.single_precision ? "single" : "double");
        if (graph_on_gpu)
            printf(", \"gpu_preprocess_s\": %.9f, \"gpu_upload_s\": %.9f, \"device_bytes\": %zu, "
                   "\"csr_bytes\": %zu, \"dense_preprocess_s\": %.9f, \"dense_bytes\": %zu",
                   gpu_pre.seconds, gpu_pre.upload_seconds, gpu_pre.device_bytes, gpu_pre.csr_bytes,
                   gpu_pre.dense_seconds, gpu_pre.dense_bytes);
        printf(", \"load_s\": %.9f, \"preprocess_s\": %.9f, \"warmup_s\": %.9f, \"run_s\": %.9f, "
               "\"run_min_s\": %.9f, \"run_max_s\": %.9f, \"runs\": %llu, \"traversed_edges\": %llu, "
               "\"mteps\": %.6f, \"validated\": %s, \"backend\": \"%s\", \"threads\": %d, "
               "\"mode\": \"%s\", \"engine\": \"%s\", \"backend_reason\": ",
               su->load_s, su->preprocess_s, warmup_s, median, times[0], times[o->runs - 1],
               (unsigned long long)o->runs, (unsigned long long)traversed, mteps,
               validated < 0 ? "null" : validated ? "true" : "false", backend, threads,
               mode_name(o->mode), o->engine == MG_ENGINE_BASELINE ? "baseline" : "multigraph");
        cli_json_string(stdout, su->backend_why);
        printf("}\n");
    } else if (su->bench_engine != NULL) {
        printf("%-5s %-9s %-8s %12.6f %12.6f %12.6f %14.2f\n", name, su->bench_engine,
               validated == 0 ? "INVALID" : "ok", median, times[0], times[o->runs - 1], mteps);
    } else {
        cli_print_graph("graph", su->file, g);
        if (cli_mpi()) printf("ranks: %d (MPI)\n", cli_ranks());
        if (uses_source) printf("source: %llu\n", (unsigned long long)source + (unsigned)base);
        if (cmd == CMD_BC && !uses_source) printf("sources: %u\n", nsources);
        if (cmd == CMD_TC) printf("triangles: %llu\n", (unsigned long long)triangles);
        printf("load: %.6f s\n", su->load_s);
        printf("preprocess: %.6f s\n", su->preprocess_s);
        if (graph_on_gpu)
            printf("gpu preprocess: %.6f s (after a %.6f s upload), device memory %.1f MiB = %.2f x "
                   "CSR\n", gpu_pre.seconds, gpu_pre.upload_seconds, gpu_pre.device_bytes / 1048576.0,
                   gpu_pre.csr_bytes ? (double)gpu_pre.device_bytes / (double)gpu_pre.csr_bytes : 0.0);
        if (on_gpu && gpu_pre.dense_bytes > 0)
            printf("gpu dense blocks: %.6f s, device memory %.1f MiB = %.2f x CSR\n",
                   gpu_pre.dense_seconds, gpu_pre.dense_bytes / 1048576.0,
                   gpu_pre.csr_bytes ? (double)gpu_pre.dense_bytes / (double)gpu_pre.csr_bytes : 0.0);
        printf("run: %.6f s (median of %llu)\n", median, (unsigned long long)o->runs);
        printf("MTEPS: %.2f\n", mteps);
        if (cmd == CMD_PR)
            printf("iterations: %d%s%s\n", pr_used.iterations, converged ? "" : " (not converged)",
                   pr_used.single_precision ? " (single precision)" : "");
        printf("validation: %s\n", validated < 0 ? "skipped" : validated ? "PASS" : "FAIL");
        printf("backend: %s%s", backend,
               on_gpu && o->engine == MG_ENGINE_BASELINE ? " (baseline engine)" : "");
        if (su->backend_why[0] != '\0') printf(" (%s)", su->backend_why);
        printf("\n");
    }
    cli_flush_stdout();
    su->reported = true;
    if (validated == 0) {
        fprintf(cli_err(), "mgraph: %s: validation failed: %s\n", name, why);
        rc = CLI_FAIL;
    }

cleanup:
    if (rc != CLI_OK && !su->reported) snprintf(su->why, sizeof su->why, "%s", mg_context_error(ctx));
    mg_context_set_trace(ctx, NULL, NULL);
    mg_vector_free(&scratch);
    mg_vector_free(&result);
    free(sources);
    free(times);
    return rc;
}

/* Reads o->file (with weights only if keep_weights): the graph, load and preprocessing seconds. */
static int load_graph(mg_context ctx, const algo_opts *o, bool keep_weights, mg_graph *g,
                      double *load_s, double *preprocess_s) {
    mg_read_options ro;
    cli_progress progress = {0, o->file, false};
    int rc = cli_read_options(&o->a, &ro, &progress);
    if (rc != CLI_OK) return rc;
    /* Only SSSP uses weights; the others load the structure alone (less memory, faster). A
     * negative weight is left to mg_sssp to refuse: its message says why (shortest paths need
     * weights >= 0), where the reader's would point at an option that cannot help. */
    ro.ignore_weights = !keep_weights;
    ro.allow_negative_weights = keep_weights;
    double t0 = cli_now();
    mg_status st = mg_graph_read(ctx, g, o->file, &ro);
    /* Reading the file is load; building the CSR/CSC from its edges is preprocessing. */
    *preprocess_s = mg_graph_build_seconds(*g);
    *load_s = cli_now() - t0 - *preprocess_s;
    cli_progress_done(&progress);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(ctx, st);
}

int cli_algo_main(int argc, char **argv, const char *name, int cmd) {
    algo_opts o;
    memset(&o, 0, sizeof o);
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_status st = MG_SUCCESS;
    mg_output out = NULL;
    FILE *out_file = NULL;
    cli_gpu_start gpu_start = {.requested = MG_BACKEND_CPU};
    /* Over several ranks each step below ends in an agreement (cli_agree): a usage error, a
     * missing file or an unusable backend stops every rank there, with one message. */
    int rc = parse_algo_opts(argc, argv, name, cmd, &o);
    if (rc == CLI_OK && o.output != NULL)
        rc = cli_check_not_input(name, "--output", o.output, o.file);
    if (rc == CLI_OK && (st = mg_context_create(&ctx)) != MG_SUCCESS) rc = cli_lib_error(NULL, st);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    /* Under mpirun the context joins the ranks first: graphs made on it are split, and
     * mg_context_set_mpi picks the rank's GPU (local rank modulo the devices) before anything
     * else could start a device. */
    if ((st = cli_context_set_ranks(ctx)) != MG_SUCCESS) rc = cli_lib_error(ctx, st);
    /* The output file now, so a bad path fails before a long load and run; it is put in place
     * only once everything has succeeded, and removed otherwise. Rank 0 writes it. */
    if (rc == CLI_OK && o.output != NULL && cli_rank() == 0 &&
        (st = mg_output_open(ctx, &out, o.output, &out_file)) != MG_SUCCESS)
        rc = cli_lib_error(ctx, st);
    /* A build without CUDA fails --backend gpu before a long load; otherwise the device starts
     * beside the load and the backend is chosen once the graph is known. */
    if (rc == CLI_OK &&
        ((o.backend == MG_BACKEND_GPU && !mg_built_with_cuda() &&
          (st = mg_context_set_backend(ctx, o.backend)) != MG_SUCCESS) ||
         (st = mg_context_set_mode(ctx, o.mode)) != MG_SUCCESS ||
         (st = mg_context_set_engine(ctx, o.engine)) != MG_SUCCESS ||
         (st = mg_context_set_sample_fraction(ctx, o.sample_fraction)) != MG_SUCCESS))
        rc = cli_lib_error(ctx, st);
    if (rc == CLI_OK) rc = cli_apply_threads(&o.a, ctx);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    run_setup su = {o.file, NULL, 0, 0, NULL, out != NULL ? &out : NULL, out_file, false, "", ""};
    cli_gpu_start_begin(&gpu_start, o.backend, cmd, o.runs + 1, o.file);
    rc = load_graph(ctx, &o, cmd == CMD_SSSP, &g, &su.load_s, &su.preprocess_s);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    /* over several ranks, the slowest rank's */
    double load_times[2] = {su.load_s, su.preprocess_s};
    cli_ranks_max_doubles(load_times, 2);
    su.load_s = load_times[0];
    su.preprocess_s = load_times[1];
    rc = cli_backend_select(&gpu_start, ctx, cmd, mg_graph_num_edges(g), su.backend_why,
                            sizeof su.backend_why);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    su.g = g;
    rc = run_case(ctx, &su, cmd, name, &o);

cleanup:
    cli_gpu_start_end(&gpu_start);
    mg_output_free(&out); /* a no-op once committed */
    mg_graph_free(&g);
    mg_context_free(&ctx);
    free(o.bc_list);
    return rc;
}

/* ---- mgraph bench: every algorithm x engine on one load ----------------------------------------- */

static const struct {
    const char *name;
    mg_backend backend;
    mg_mode mode;
    mg_engine engine;
} BENCH_ENGINES[] = {
    {"cpu", MG_BACKEND_CPU, MG_MODE_AUTO, MG_ENGINE_MULTIGRAPH},
    {"auto", MG_BACKEND_GPU, MG_MODE_AUTO, MG_ENGINE_MULTIGRAPH},
    {"hybrid", MG_BACKEND_GPU, MG_MODE_HYBRID, MG_ENGINE_MULTIGRAPH},
    {"sparse", MG_BACKEND_GPU, MG_MODE_SPARSE, MG_ENGINE_MULTIGRAPH},
    {"pull", MG_BACKEND_GPU, MG_MODE_PULL, MG_ENGINE_MULTIGRAPH},
    {"dense", MG_BACKEND_GPU, MG_MODE_DENSE, MG_ENGINE_MULTIGRAPH},
    {"baseline", MG_BACKEND_GPU, MG_MODE_AUTO, MG_ENGINE_BASELINE},
};
#define BENCH_ENGINE_COUNT (int)(sizeof BENCH_ENGINES / sizeof BENCH_ENGINES[0])

static const struct {
    const char *name;
    int cmd;
} BENCH_ALGOS[] = {{"bfs", CMD_BFS}, {"sssp", CMD_SSSP}, {"cc", CMD_CC}, {"pr", CMD_PR}, {"bc", CMD_BC}};
#define BENCH_ALGO_COUNT (int)(sizeof BENCH_ALGOS / sizeof BENCH_ALGOS[0])

/* "a,b,c" -> indices into a table of names, in the order given (repeats dropped). */
static int parse_name_list(const cli_args *a, cli_opt_id id, const char *const *names, int count,
                           int *picked, int *npicked) {
    const char *s = a->value[id];
    *npicked = 0;
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int found = -1;
        for (int i = 0; i < count && found < 0; i++)
            if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0) found = i;
        if (found < 0) {
            char expected[160] = "";
            for (int i = 0; i < count; i++) {
                strcat(expected, names[i]);
                if (i + 1 < count) strcat(expected, ", ");
            }
            return cli_usage_error(a->name, "bench: invalid value '%s' for %s: '%.*s' is not one of %s",
                                   s, cli_opt_name(id), (int)len, p, expected);
        }
        bool seen = false;
        for (int i = 0; i < *npicked; i++) seen = seen || picked[i] == found;
        if (!seen) picked[(*npicked)++] = found;
        if (!comma) break;
        p = comma + 1;
    }
    return CLI_OK;
}

/* A case that has no measurement: skipped (no usable GPU) or failed before it printed one. */
static void bench_report_missing(const algo_opts *o, const char *algo, const char *engine,
                                 const char *status, const char *why) {
    if (cli_rank() != 0) return;
    if (o->json) {
        printf("{\"algorithm\": \"%s\", \"bench_engine\": \"%s\", \"status\": \"%s\", \"file\": ", algo,
               engine, status);
        cli_json_string(stdout, o->file);
        printf(", \"error\": ");
        cli_json_string(stdout, why);
        printf("}\n");
    } else {
        printf("%-5s %-9s %-8s %s\n", algo, engine, status, why);
    }
    cli_flush_stdout();
}

int cli_bench_main(int argc, char **argv) {
    algo_opts o;
    memset(&o, 0, sizeof o);
    mg_context ctx = NULL;
    mg_graph graphs[2] = {NULL, NULL}; /* [1]: with weights, for SSSP */
    double load_s[2] = {0, 0}, preprocess_s[2] = {0, 0};
    mg_status st = MG_SUCCESS;
    int algos[BENCH_ALGO_COUNT], engines[BENCH_ENGINE_COUNT], nalgos = 0, nengines = 0, failed = 0;
    /* Over several ranks (mpirun) every step ends in an agreement, as in cli_algo_main, and rank 0
     * prints; each case runs over the ranks (run_case). */
    int rc = parse_algo_opts(argc, argv, "bench", CMD_BENCH, &o);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    o.validate = true; /* every case is checked against the serial reference */
    const char *algo_names[BENCH_ALGO_COUNT], *engine_names[BENCH_ENGINE_COUNT];
    for (int i = 0; i < BENCH_ALGO_COUNT; i++) algo_names[i] = BENCH_ALGOS[i].name;
    for (int i = 0; i < BENCH_ENGINE_COUNT; i++) engine_names[i] = BENCH_ENGINES[i].name;
    if (o.a.value[OPT_ALGOS] != NULL) {
        rc = parse_name_list(&o.a, OPT_ALGOS, algo_names, BENCH_ALGO_COUNT, algos, &nalgos);
    } else {
        for (int i = 0; i < BENCH_ALGO_COUNT; i++) algos[nalgos++] = i;
    }
    if (rc == CLI_OK && o.a.value[OPT_ENGINES] != NULL)
        rc = parse_name_list(&o.a, OPT_ENGINES, engine_names, BENCH_ENGINE_COUNT, engines, &nengines);
    if (rc == CLI_OK && (st = mg_context_create(&ctx)) != MG_SUCCESS) rc = cli_lib_error(NULL, st);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    if ((st = cli_context_set_ranks(ctx)) != MG_SUCCESS) rc = cli_lib_error(ctx, st);
    if (rc == CLI_OK) rc = cli_apply_threads(&o.a, ctx);
    if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
    if (o.a.value[OPT_ENGINES] == NULL) {
        /* By default the CPU engine, and every GPU engine where a GPU can be used (on every rank) */
        const bool gpu = !cli_ranks_max(mg_context_set_backend(ctx, MG_BACKEND_GPU) != MG_SUCCESS);
        for (int i = 0; i < BENCH_ENGINE_COUNT; i++)
            if (gpu || BENCH_ENGINES[i].backend == MG_BACKEND_CPU) engines[nengines++] = i;
    }
    /* SSSP's graph (with weights) first: if the file has none it serves the others too. */
    bool header = false;
    for (int pass = 0; pass < 2; pass++)
        for (int ai = 0; ai < nalgos; ai++) {
            const int which = BENCH_ALGOS[algos[ai]].cmd == CMD_SSSP;
            if (which != (pass == 0) || graphs[which] != NULL) continue;
            if (which == 0 && graphs[1] != NULL && mg_graph_weight_type(graphs[1]) == MG_WEIGHT_NONE) {
                graphs[0] = graphs[1];
                load_s[0] = load_s[1];
                preprocess_s[0] = preprocess_s[1];
                continue;
            }
            rc = load_graph(ctx, &o, which, &graphs[which], &load_s[which], &preprocess_s[which]);
            if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
            /* over several ranks, the slowest rank's */
            double times[2] = {load_s[which], preprocess_s[which]};
            cli_ranks_max_doubles(times, 2);
            load_s[which] = times[0];
            preprocess_s[which] = times[1];
            if (!o.json && cli_rank() == 0) {
                cli_print_graph(which ? "graph (with weights, for sssp)" : "graph", o.file,
                                graphs[which]);
                printf("load: %.6f s, preprocess: %.6f s\n", load_s[which], preprocess_s[which]);
            }
        }
    for (int ai = 0; ai < nalgos; ai++) {
        const int cmd = BENCH_ALGOS[algos[ai]].cmd;
        const char *algo = BENCH_ALGOS[algos[ai]].name;
        const int which = cmd == CMD_SSSP;
        if (!o.json && !header && cli_rank() == 0) {
            if (cli_mpi()) printf("ranks: %d (MPI)\n", cli_ranks());
            printf("%-5s %-9s %-8s %12s %12s %12s %14s\n", "algo", "engine", "status", "median s",
                   "min s", "max s", "MTEPS");
            header = true;
        }
        for (int ei = 0; ei < nengines; ei++) {
            const int e = engines[ei];
            st = mg_context_set_backend(ctx, BENCH_ENGINES[e].backend);
            /* a GPU missing on any rank skips the case on every rank */
            if (cli_ranks_max(st == MG_UNAVAILABLE)) {
                bench_report_missing(&o, algo, BENCH_ENGINES[e].name, "skipped",
                                     st == MG_UNAVAILABLE ? mg_context_error(ctx)
                                                          : "another rank has no usable GPU");
                continue;
            }
            if (st != MG_SUCCESS || (st = mg_context_set_mode(ctx, BENCH_ENGINES[e].mode)) != MG_SUCCESS ||
                (st = mg_context_set_engine(ctx, BENCH_ENGINES[e].engine)) != MG_SUCCESS ||
                (st = mg_context_set_sample_fraction(ctx, o.sample_fraction)) != MG_SUCCESS)
                rc = cli_lib_error(ctx, st);
            if ((rc = cli_agree(rc)) != CLI_OK) goto cleanup;
            o.backend = BENCH_ENGINES[e].backend;
            o.mode = BENCH_ENGINES[e].mode;
            o.engine = BENCH_ENGINES[e].engine;
            run_setup su = {o.file, graphs[which], load_s[which], preprocess_s[which],
                            BENCH_ENGINES[e].name, NULL, NULL, false, "", ""};
            int case_rc = run_case(ctx, &su, cmd, algo, &o);
            if (case_rc == CLI_USAGE) { /* a source out of range: the same for every engine */
                rc = CLI_USAGE;
                goto cleanup;
            }
            if (case_rc != CLI_OK) {
                failed++;
                if (!su.reported) bench_report_missing(&o, algo, BENCH_ENGINES[e].name, "failed", su.why);
            }
        }
    }
    rc = failed ? CLI_FAIL : CLI_OK;
    /* rank 0 validates, so it alone knows every case that failed */
    if (failed && cli_rank() == 0) fprintf(stderr, "mgraph: bench: %d case%s failed\n", failed, failed == 1 ? "" : "s");

cleanup:
    if (graphs[0] == graphs[1]) graphs[0] = NULL;
    mg_graph_free(&graphs[0]);
    mg_graph_free(&graphs[1]);
    mg_context_free(&ctx);
    free(o.bc_list);
    return rc;
}
