/*
 * cli_graph.c — the graph tools of the `mgraph` command: `info` (size, degrees, the six in-degree
 * groups of MultiGraph's Table 3.1), `gen` (the library's deterministic generators into a file) and
 * `convert` (any readable format into Matrix Market, the binary format or an LDBC Graphalytics
 * dataset).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* In-degree bounds of the six groups, for the printout: group g holds [lo, hi). */
static const unsigned GROUP_LO[6] = {2048, 1024, 512, 256, 128, 0};
static const unsigned GROUP_HI[6] = {0 /* unbounded */, 2048, 1024, 512, 256, 128};

/* Reads args' single FILE with the shared read options; prints errors. */
static int load(const cli_args *a, const char *path, mg_context ctx, mg_graph *g, double *seconds) {
    mg_read_options ro;
    cli_progress progress = {0, path, false};
    int rc = cli_read_options(a, &ro, &progress);
    if (rc != CLI_OK) return rc;
    double t0 = cli_now();
    mg_status st = mg_graph_read(ctx, g, path, &ro);
    *seconds = cli_now() - t0;
    cli_progress_done(&progress);
    return st == MG_SUCCESS ? CLI_OK : cli_lib_error(ctx, st);
}

/* What gen and convert write: a graph file (format) or a Graphalytics dataset (NAME.properties,
 * with NAME.v and NAME.e beside it, and --source for its traversals). */
typedef struct {
    mg_format format;
    bool graphalytics;
    char vertex_file[4096], edge_file[4096];
    uint64_t source; /* --source, in the graph's numbering */
} output_kind;

/* The output's kind from its extension, and --source: checked before a long generation or load,
 * which a name the writer cannot use would otherwise waste. */
static int output_format(const cli_args *a, const char *path, output_kind *out) {
    const char *name = a->name, *dot = strrchr(path, '.');
    memset(out, 0, sizeof *out);
    if (dot != NULL && strchr(dot, '/') == NULL && strcasecmp(dot, ".mtx") == 0) {
        out->format = MG_FORMAT_MATRIX_MARKET;
    } else if (dot != NULL && strchr(dot, '/') == NULL && strcasecmp(dot, ".mgb") == 0) {
        out->format = MG_FORMAT_BINARY;
    } else if (dot != NULL && strchr(dot, '/') == NULL && strcmp(dot, ".properties") == 0) {
        out->graphalytics = true;
        const int stem = (int)(dot - path) + 1;
        if (stem + 1 >= (int)sizeof out->vertex_file)
            return cli_usage_error(name, "%s: '%s': the path is too long", name, path);
        snprintf(out->vertex_file, sizeof out->vertex_file, "%.*sv", stem, path);
        snprintf(out->edge_file, sizeof out->edge_file, "%.*se", stem, path);
    } else {
        return cli_usage_error(name, "%s: cannot write '%s': the output's extension must be .mtx "
                               "(Matrix Market), .mgb (binary) or .properties (an LDBC Graphalytics "
                               "dataset)", name, path);
    }
    if (a->value[OPT_SOURCE] != NULL && !out->graphalytics)
        return cli_usage_error(name, "%s: --source is for a Graphalytics output (NAME.properties)",
                               name);
    if (a->value[OPT_SOURCE] != NULL)
        return cli_u64(a, OPT_SOURCE, 0, UINT64_MAX, &out->source);
    return CLI_OK;
}

/* Writes g as out says; a Graphalytics dataset gets --source (checked against g's ids) as its bfs
 * and sssp source, else the library's default, which is printed. */
static int write_graph(const cli_args *a, mg_context ctx, const mg_graph g, const char *path,
                       const output_kind *out, double *seconds) {
    mg_graphalytics_properties props;
    mg_status st = MG_SUCCESS;
    double t0 = cli_now();
    if (!out->graphalytics) {
        st = mg_graph_write(ctx, g, path, out->format);
    } else if ((st = mg_graphalytics_default_properties(ctx, g, &props)) == MG_SUCCESS) {
        const uint64_t base = (uint64_t)mg_graph_index_base(g), n = mg_graph_num_vertices(g);
        if (a->value[OPT_SOURCE] != NULL) {
            if (out->source - base >= n)
                return cli_usage_error(a->name, "%s: --source %llu is not a vertex (ids %llu to "
                                       "%llu)", a->name, (unsigned long long)out->source,
                                       (unsigned long long)base,
                                       (unsigned long long)(base + n - 1));
            props.bfs_source = props.sssp_source = out->source;
        }
        st = mg_graphalytics_write(ctx, g, path, &props);
    }
    *seconds = cli_now() - t0;
    if (st != MG_SUCCESS) return cli_lib_error(ctx, st);
    if (out->graphalytics)
        printf("graphalytics: %s and %s beside it; bfs and sssp source %llu\n", out->vertex_file,
               out->edge_file, (unsigned long long)props.bfs_source);
    return CLI_OK;
}

static int new_context(const cli_args *a, mg_context *ctx) {
    mg_status st = mg_context_create(ctx);
    if (st != MG_SUCCESS) return cli_lib_error(NULL, st);
    return cli_apply_threads(a, *ctx);
}

int cli_info_main(int argc, char **argv) {
    cli_args a;
    mg_context ctx = NULL;
    mg_graph g = NULL;
    int rc = cli_parse(argc, argv, 2, "info", CMD_INFO, 1, &a);
    if (rc != CLI_OK) return rc;
    if (a.npositional != 1) return cli_usage_error("info", "info: missing the graph FILE");
    const char *file = a.positional[0];
    double load_s = 0;
    mg_graph_stats s;
    if ((rc = new_context(&a, &ctx)) != CLI_OK) goto cleanup;
    if ((rc = load(&a, file, ctx, &g, &load_s)) != CLI_OK) goto cleanup;
    mg_status st = mg_graph_get_stats(ctx, g, &s);
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto cleanup;
    }
    /* The GPU, and the graph's preprocessed device form when there is one. */
    mg_gpu_info gpu;
    mg_gpu_graph_info pre;
    if ((st = mg_gpu_query(ctx, &gpu)) != MG_SUCCESS ||
        (gpu.available && (st = mg_graph_gpu_prepare(ctx, g, &pre)) != MG_SUCCESS)) {
        rc = cli_lib_error(ctx, st);
        goto cleanup;
    }
    const double gib = 1024.0 * 1024.0 * 1024.0, mib = 1024.0 * 1024.0;
    bool directed = mg_graph_is_directed(g);
    const char *weights = cli_weight_name(mg_graph_weight_type(g));
    int base = mg_graph_index_base(g);
    if (a.value[OPT_JSON]) {
        printf("{\"file\": ");
        cli_json_string(stdout, file);
        printf(", \"vertices\": %u, \"edges\": %llu, \"directed\": %s, \"weights\": \"%s\", "
               "\"index_base\": %d, \"max_out_degree\": %u, \"max_in_degree\": %u, "
               "\"mean_degree\": %.6f, \"isolated\": %u, \"zero_out_degree\": %u, "
               "\"self_loops\": %llu, \"load_s\": %.9f, \"groups\": [",
               s.n, (unsigned long long)s.m, directed ? "true" : "false", weights, base,
               s.max_out_degree, s.max_in_degree, s.mean_degree, s.isolated, s.zero_out_degree,
               (unsigned long long)s.self_loops, load_s);
        for (int i = 0; i < 6; i++) {
            printf("%s{\"group\": %d, \"in_degree_min\": %u, \"in_degree_max\": ", i ? ", " : "",
                   i + 1, GROUP_LO[i]);
            if (GROUP_HI[i])
                printf("%u", GROUP_HI[i] - 1);
            else
                printf("null");
            printf(", \"vertices\": %u, \"in_edges\": %llu}", s.group_vertices[i],
                   (unsigned long long)s.group_edges[i]);
        }
        printf("], \"gpu\": ");
        if (gpu.available) {
            printf("{\"name\": ");
            cli_json_string(stdout, gpu.name);
            printf(", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"memory_bytes\": %zu, "
                   "\"free_bytes\": %zu, \"preprocess_s\": %.9f, \"device_bytes\": %zu, "
                   "\"csr_bytes\": %zu, \"x_csr\": %.4f}",
                   gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.total_memory, gpu.free_memory,
                   pre.seconds, pre.device_bytes, pre.csr_bytes,
                   pre.csr_bytes ? (double)pre.device_bytes / (double)pre.csr_bytes : 0.0);
        } else {
            printf("null, \"gpu_unavailable\": ");
            cli_json_string(stdout, gpu.reason);
        }
        printf("}\n");
    } else {
        printf("file: %s\n", file);
        printf("vertices: %u\n", s.n);
        printf("edges: %llu (stored directed edges%s)\n", (unsigned long long)s.m,
               directed ? "" : "; each undirected edge counts twice");
        printf("directed: %s\n", directed ? "yes" : "no");
        printf("weights: %s\n", weights);
        printf("index base: %d\n", base);
        printf("max out-degree: %u\n", s.max_out_degree);
        printf("max in-degree: %u\n", s.max_in_degree);
        printf("mean degree: %.3f\n", s.mean_degree);
        printf("isolated vertices: %u\n", s.isolated);
        printf("zero out-degree vertices: %u\n", s.zero_out_degree);
        printf("self-loops: %llu\n", (unsigned long long)s.self_loops);
        printf("in-degree groups:\n");
        for (int i = 0; i < 6; i++) {
            char range[32];
            if (GROUP_HI[i])
                snprintf(range, sizeof range, "[%u, %u)", GROUP_LO[i], GROUP_HI[i]);
            else
                snprintf(range, sizeof range, ">= %u", GROUP_LO[i]);
            printf("  group %d in-degree %-12s vertices %u, in-edges %llu\n", i + 1, range,
                   s.group_vertices[i], (unsigned long long)s.group_edges[i]);
        }
        if (gpu.available) {
            printf("gpu: %s (compute %d.%d, %d SMs, %.1f GiB, %.1f GiB free)\n", gpu.name,
                   gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.total_memory / gib,
                   gpu.free_memory / gib);
            printf("gpu preprocess: %.6f s, device memory %.1f MiB = %.2f x CSR (%.1f MiB)\n",
                   pre.seconds, pre.device_bytes / mib,
                   pre.csr_bytes ? (double)pre.device_bytes / (double)pre.csr_bytes : 0.0,
                   pre.csr_bytes / mib);
            printf("gpu preprocess phases: expand %.6f s, sort %.6f s, renumber %.6f s, csc %.6f s, "
                   "csr %.6f s (upload before them: %.6f s)\n", pre.phase_seconds[0],
                   pre.phase_seconds[1], pre.phase_seconds[2], pre.phase_seconds[3],
                   pre.phase_seconds[4], pre.upload_seconds);
        } else {
            printf("gpu: none (%s)\n", gpu.reason);
        }
        printf("load: %.6f s\n", load_s);
    }
cleanup:
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return rc;
}

int cli_gen_main(int argc, char **argv) {
    cli_args a;
    mg_context ctx = NULL;
    mg_graph g = NULL;
    int rc = cli_parse(argc, argv, 2, "gen", CMD_GEN, 1, &a);
    if (rc != CLI_OK) return rc;
    if (a.npositional != 1)
        return cli_usage_error("gen", "gen: missing KIND (rmat, kronecker, uniform, geometric, grid)");
    if (a.value[OPT_OUTPUT] == NULL) return cli_usage_error("gen", "gen: missing --output FILE");
    output_kind out;
    if ((rc = output_format(&a, a.value[OPT_OUTPUT], &out)) != CLI_OK) return rc;
    mg_gen_options go;
    mg_gen_options_init(&go);
    static const struct {
        const char *name;
        mg_generator kind;
    } KINDS[] = {{"rmat", MG_GEN_RMAT},
                 {"kronecker", MG_GEN_KRONECKER},
                 {"uniform", MG_GEN_UNIFORM},
                 {"geometric", MG_GEN_GEOMETRIC},
                 {"grid", MG_GEN_GRID}};
    const char *kind = a.positional[0];
    size_t k = 0;
    while (k < 5 && strcmp(KINDS[k].name, kind) != 0) k++;
    if (k == 5)
        return cli_usage_error("gen",
                               "gen: unknown KIND '%s': expected rmat, kronecker, uniform, "
                               "geometric or grid",
                               kind);
    go.kind = KINDS[k].kind;
    uint64_t u;
    if (a.value[OPT_SCALE]) {
        if ((rc = cli_u64(&a, OPT_SCALE, 1, 31, &u)) != CLI_OK) return rc;
        go.scale = (int)u;
    }
    if (a.value[OPT_EDGE_FACTOR] &&
        (rc = cli_double(&a, OPT_EDGE_FACTOR, 0, 1e6, true, false, &go.edge_factor)) != CLI_OK)
        return rc;
    if (a.value[OPT_SEED] && (rc = cli_u64(&a, OPT_SEED, 0, UINT64_MAX, &go.seed)) != CLI_OK)
        return rc;
    if (a.value[OPT_WIDTH]) {
        if ((rc = cli_u64(&a, OPT_WIDTH, 1, UINT32_MAX, &u)) != CLI_OK) return rc;
        go.width = (uint32_t)u;
    }
    if (a.value[OPT_HEIGHT]) {
        if ((rc = cli_u64(&a, OPT_HEIGHT, 1, UINT32_MAX, &u)) != CLI_OK) return rc;
        go.height = (uint32_t)u;
    }
    if (a.value[OPT_A] && (rc = cli_double(&a, OPT_A, 0, 1, false, false, &go.a)) != CLI_OK)
        return rc;
    if (a.value[OPT_B] && (rc = cli_double(&a, OPT_B, 0, 1, false, false, &go.b)) != CLI_OK)
        return rc;
    if (a.value[OPT_C] && (rc = cli_double(&a, OPT_C, 0, 1, false, false, &go.c)) != CLI_OK)
        return rc;
    if (go.a + go.b + go.c > 1.0 + 1e-12)
        return cli_usage_error("gen", "gen: --a + --b + --c must be at most 1 (got %g)",
                               go.a + go.b + go.c);
    const char *w = a.value[OPT_WEIGHTS];
    if (w != NULL) {
        if (strcmp(w, "none") == 0)
            go.weights = MG_WEIGHT_NONE;
        else if (strcmp(w, "int") == 0)
            go.weights = MG_WEIGHT_INT32;
        else if (strcmp(w, "float") == 0)
            go.weights = MG_WEIGHT_FLOAT;
        else
            return cli_usage_error("gen",
                                   "gen: invalid value '%s' for --weights: expected none, int or "
                                   "float",
                                   w);
    }
    go.graph.directed = a.value[OPT_DIRECTED] != NULL;

    if ((rc = new_context(&a, &ctx)) != CLI_OK) goto cleanup;
    double t0 = cli_now();
    mg_status st = mg_generate(ctx, &g, &go);
    double gen_s = cli_now() - t0;
    if (st != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto cleanup;
    }
    double write_s = 0;
    if ((rc = write_graph(&a, ctx, g, a.value[OPT_OUTPUT], &out, &write_s)) != CLI_OK) goto cleanup;
    cli_print_graph("generated", kind, g);
    printf("generate: %.6f s\n", gen_s);
    printf("write: %.6f s (%s)\n", write_s, a.value[OPT_OUTPUT]);
cleanup:
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return rc;
}

int cli_convert_main(int argc, char **argv) {
    cli_args a;
    mg_context ctx = NULL;
    mg_graph g = NULL;
    int rc = cli_parse(argc, argv, 2, "convert", CMD_CONVERT, 2, &a);
    if (rc != CLI_OK) return rc;
    if (a.npositional != 2) return cli_usage_error("convert", "convert: needs IN and OUT files");
    const char *in = a.positional[0], *out = a.positional[1];
    output_kind kind;
    if ((rc = output_format(&a, out, &kind)) != CLI_OK ||
        (rc = cli_check_not_input("convert", "OUT", out, in)) != CLI_OK ||
        (kind.graphalytics &&
         ((rc = cli_check_not_input("convert", "OUT's vertex file", kind.vertex_file, in)) != CLI_OK ||
          (rc = cli_check_not_input("convert", "OUT's edge file", kind.edge_file, in)) != CLI_OK)))
        return rc;
    double load_s = 0;
    if ((rc = new_context(&a, &ctx)) != CLI_OK) goto cleanup;
    uint64_t seed = 1;
    if (a.value[OPT_RENUMBER] && strcmp(a.value[OPT_RENUMBER], "random") != 0) {
        rc = cli_usage_error("convert", "convert: invalid value '%s' for --renumber: expected random",
                             a.value[OPT_RENUMBER]);
        goto cleanup;
    }
    if (a.value[OPT_SEED] && !a.value[OPT_RENUMBER]) {
        rc = cli_usage_error("convert", "convert: --seed needs --renumber random");
        goto cleanup;
    }
    if (a.value[OPT_SEED] && (rc = cli_u64(&a, OPT_SEED, 0, UINT64_MAX, &seed)) != CLI_OK) goto cleanup;
    if ((rc = load(&a, in, ctx, &g, &load_s)) != CLI_OK) goto cleanup;
    mg_status st = MG_SUCCESS;
    if (a.value[OPT_RENUMBER]) {
        const uint32_t n = mg_graph_num_vertices(g);
        uint32_t *perm = malloc(((size_t)n + 1) * sizeof *perm);
        if (perm == NULL) {
            fprintf(stderr, "mgraph: convert: out of memory for a permutation of %u vertices\n", n);
            rc = CLI_FAIL;
            goto cleanup;
        }
        mg_graph renamed = NULL;
        st = mg_random_permutation(ctx, n, seed, perm);
        if (st == MG_SUCCESS) st = mg_graph_permute(ctx, g, perm, &renamed);
        free(perm);
        if (st != MG_SUCCESS) {
            rc = cli_lib_error(ctx, st);
            goto cleanup;
        }
        mg_graph_free(&g);
        g = renamed;
    }
    double write_s = 0;
    if ((rc = write_graph(&a, ctx, g, out, &kind, &write_s)) != CLI_OK) goto cleanup;
    cli_print_graph("read", in, g);
    printf("load: %.6f s\n", load_s);
    printf("write: %.6f s (%s)\n", write_s, out);
cleanup:
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return rc;
}
