/*
 * cli_graphalytics.c — `mgraph graphalytics NAME.properties`: the LDBC Graphalytics harness. Loads
 * the dataset the properties file names (mg_graphalytics_read), runs each algorithm it lists with
 * its parameters as the specification defines them, writes D/NAME-ALGO ("id value" per vertex, in
 * the file's ids), validates against the reference output beside the properties file when there
 * is one (exact for BFS and CDLP, equivalence for WCC, relative 1e-4 for PR, LCC and SSSP), else
 * with the library's serial checker (mg_check_bfs, ...: a dataset mgraph wrote has no reference;
 * --no-check skips them, which on a large graph take longer than the run), and reports load time,
 * processing time and EVPS ((|V| + |E|) / processing time).
 *
 * Where the specification differs from the library's defaults: BFS's unreached vertices are
 * 9223372036854775807 (mg_bfs: -1); PageRank runs exactly pr.num-iterations iterations
 * (tolerance 0), each spreading the dangling vertices' rank (spread_each_iteration); WCC's label is the
 * component's smallest id (mg_cc's smallest vertex, the same since vertices are ordered by id).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef enum { KIND_EXACT, KIND_EQUIVALENT, KIND_EPSILON } check_kind;

static const struct {
    const char *name; /* as in output file names (NAME-BFS) */
    unsigned bit;
    check_kind check;
    const char *checker; /* the serial checker used without a reference */
} ALGOS[] = {{"BFS", MG_GA_BFS, KIND_EXACT, "mg_check_bfs"},
             {"CDLP", MG_GA_CDLP, KIND_EXACT, "mg_check_cdlp"},
             {"LCC", MG_GA_LCC, KIND_EPSILON, "mg_check_lcc"},
             {"PR", MG_GA_PR, KIND_EPSILON, "mg_check_pagerank"},
             {"SSSP", MG_GA_SSSP, KIND_EPSILON, "mg_check_sssp"},
             {"WCC", MG_GA_WCC, KIND_EQUIVALENT, "mg_check_cc"}};
enum { NALGOS = sizeof ALGOS / sizeof ALGOS[0] };

/* One algorithm's outcome, for the table and --json. */
typedef struct {
    bool ran;
    double processing_s;
    const char *validation; /* "PASS", "FAIL", "no reference", "not available ..." */
    const char *validated_by; /* "reference", a checker's name, or NULL */
    char output[4200];
} algo_result;

/* One run's values per vertex: integers (depths, labels as file ids) or reals. */
typedef struct {
    uint64_t *ival;
    double *rval;
} values;

/* ---- running ----------------------------------------------------------------------------------- */

/* Runs algorithm a on g; values in the benchmark's terms (file ids, its unreached markers). With
 * *check set, the result is then checked by the serial checker: *check becomes 1 when it holds,
 * 0 (the checker's message on stderr) when not. */
static mg_status run_algo(mg_context ctx, const mg_graph g, const uint64_t *ids,
                          const mg_graphalytics_properties *p, unsigned bit, values *out,
                          double *seconds, int *check) {
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector v = NULL;
    int32_t *tmp = NULL;
    uint32_t source = 0;
    mg_status st = MG_SUCCESS;
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    const bool integer = bit == MG_GA_BFS || bit == MG_GA_WCC || bit == MG_GA_CDLP;
    const mg_type type = bit == MG_GA_BFS ? MG_INT32 : integer ? MG_VERTEX : MG_DOUBLE;
    if (bit == MG_GA_BFS || bit == MG_GA_SSSP)
        st = mg_graphalytics_vertex(ctx, ids, n, bit == MG_GA_BFS ? p->bfs_source : p->sssp_source,
                                    &source);
    if (st == MG_SUCCESS) st = mg_vector_create(ctx, &v, g, type);
    if (st != MG_SUCCESS) goto done;
    double t0 = cli_now();
    if (bit == MG_GA_BFS) {
        st = mg_bfs(ctx, g, source, v, NULL);
    } else if (bit == MG_GA_WCC) {
        st = mg_cc(ctx, g, v);
    } else if (bit == MG_GA_PR) {
        po.damping = p->pr_damping;
        po.tolerance = 0; /* the specification's fixed iteration count */
        po.max_iterations = (int)p->pr_iterations;
        po.spread_each_iteration = true; /* the specification's iterates */
        st = mg_pagerank(ctx, g, &po, v);
    } else if (bit == MG_GA_LCC) {
        st = mg_lcc(ctx, g, v);
    } else if (bit == MG_GA_SSSP) {
        st = mg_sssp(ctx, g, source, 0, v);
    } else if (bit == MG_GA_CDLP) {
        st = mg_cdlp(ctx, g, (int)p->cdlp_iterations, v);
    }
    if (st == MG_SUCCESS) st = mg_context_finish(ctx);
    *seconds = cli_now() - t0;
    if (st != MG_SUCCESS) goto done;
    if (*check) {
        /* PR is held to what its last iteration's change guarantees (po.change, set by the run). */
        st = bit == MG_GA_BFS    ? mg_check_bfs(ctx, g, source, v, NULL)
             : bit == MG_GA_WCC  ? mg_check_cc(ctx, g, v)
             : bit == MG_GA_PR   ? mg_check_pagerank(ctx, g, &po, v)
             : bit == MG_GA_LCC  ? mg_check_lcc(ctx, g, v)
             : bit == MG_GA_SSSP ? mg_check_sssp(ctx, g, source, v)
                                 : mg_check_cdlp(ctx, g, (int)p->cdlp_iterations, v);
        *check = st == MG_SUCCESS;
        if (st == MG_INVALID_ARGUMENT) {
            fprintf(stderr, "mgraph: %s\n", mg_context_error(ctx));
            st = MG_SUCCESS;
        }
        if (st != MG_SUCCESS) goto done;
    }
    if (integer) {
        out->ival = malloc((size_t)n * sizeof *out->ival);
        tmp = malloc((size_t)n * sizeof *tmp);
        if (out->ival == NULL || tmp == NULL) {
            st = MG_OUT_OF_MEMORY;
            goto done;
        }
        if ((st = mg_vector_extract(ctx, v, tmp)) != MG_SUCCESS) goto done;
        for (uint32_t i = 0; i < n; i++)
            out->ival[i] = bit == MG_GA_BFS ? (tmp[i] < 0 ? (uint64_t)INT64_MAX : (uint64_t)tmp[i])
                                            : ids[tmp[i]];
    } else {
        out->rval = malloc((size_t)n * sizeof *out->rval);
        if (out->rval == NULL) {
            st = MG_OUT_OF_MEMORY;
            goto done;
        }
        st = mg_vector_extract(ctx, v, out->rval);
    }
done:
    free(tmp);
    mg_vector_free(&v);
    return st;
}

/* ---- output and validation --------------------------------------------------------------------- */

static mg_status write_output(mg_context ctx, const char *path, const uint64_t *ids, uint32_t n,
                              const values *val) {
    mg_output out = NULL;
    FILE *f = NULL;
    mg_status st = mg_output_open(ctx, &out, path, &f);
    if (st != MG_SUCCESS) return st;
    for (uint32_t i = 0; i < n; i++) {
        if (val->ival != NULL)
            fprintf(f, "%llu %llu\n", (unsigned long long)ids[i], (unsigned long long)val->ival[i]);
        else if (isinf(val->rval[i]))
            fprintf(f, "%llu %sInfinity\n", (unsigned long long)ids[i], val->rval[i] < 0 ? "-" : "");
        else
            fprintf(f, "%llu %.15e\n", (unsigned long long)ids[i], val->rval[i]);
    }
    st = mg_output_commit(ctx, &out);
    return st;
}

typedef struct {
    uint64_t a, b;
} pair;

static int compare_pair(const void *x, const void *y) {
    const pair *p = x, *q = y;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* Whether the labelings ours and ref partition the vertices alike: sorted by one label, equal
 * labels must meet equal others, both ways. */
static bool equivalent(const uint64_t *ours, const uint64_t *ref, uint32_t n, pair *work,
                       uint32_t *bad) {
    for (int way = 0; way < 2; way++) {
        for (uint32_t i = 0; i < n; i++)
            work[i] = way ? (pair){ref[i], ours[i]} : (pair){ours[i], ref[i]};
        qsort(work, n, sizeof *work, compare_pair);
        for (uint32_t i = 1; i < n; i++) {
            if (work[i].a == work[i - 1].a && work[i].b != work[i - 1].b) {
                const uint64_t *key = way ? ref : ours;
                for (*bad = 0; *bad < n && key[*bad] != work[i].a; ++*bad) {
                }
                return false;
            }
        }
    }
    return true;
}

/* Reads the reference ref_path and compares; false (with the reason on stderr) on a mismatch or
 * a malformed reference. */
static bool validate(mg_context ctx, const char *ref_path, const char *algo, check_kind kind,
                     const uint64_t *ids, uint32_t n, const values *val) {
    FILE *f = fopen(ref_path, "r");
    uint64_t *rint = calloc(n ? n : 1, sizeof *rint);
    double *rreal = calloc(n ? n : 1, sizeof *rreal);
    unsigned char *seen = calloc(n ? n : 1, 1);
    pair *work = NULL;
    bool ok = false;
    char line[512];
    unsigned long long number = 0;
    uint32_t count = 0;
    if (f == NULL || rint == NULL || rreal == NULL || seen == NULL) {
        fprintf(stderr, "mgraph: %s: %s\n", ref_path, f ? "out of memory" : strerror(errno));
        goto done;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        number++;
        char *p = line, *e = NULL;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\r' || *p == '\0') continue;
        errno = 0;
        unsigned long long id = strtoull(p, &e, 10);
        uint32_t v = 0;
        bool good = e != p && errno == 0 && *p != '-' &&
                    mg_graphalytics_vertex(ctx, ids, n, id, &v) == MG_SUCCESS && !seen[v];
        if (good) {
            p = e;
            errno = 0;
            if (val->ival != NULL) {
                while (*p == ' ' || *p == '\t') p++;
                rint[v] = strtoull(p, &e, 10);
                good = *p != '-';
            } else {
                rreal[v] = strtod(p, &e);
            }
            while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n') e++;
            good = good && e != p && errno == 0 && *e == '\0';
        }
        if (!good) {
            fprintf(stderr,
                    "mgraph: %s:%llu: expected '<vertex id> <value>' naming each vertex once\n",
                    ref_path, number);
            goto done;
        }
        seen[v] = 1;
        count++;
    }
    if (ferror(f) || count != n) {
        fprintf(stderr, "mgraph: %s: %s (%u of %u vertices)\n", ref_path,
                ferror(f) ? strerror(errno) : "the reference does not name every vertex", count, n);
        goto done;
    }
    uint32_t bad = n;
    if (kind == KIND_EQUIVALENT) {
        if ((work = malloc((size_t)n * sizeof *work)) == NULL) {
            fprintf(stderr, "mgraph: %s: out of memory\n", ref_path);
            goto done;
        }
        if (!equivalent(val->ival, rint, n, work, &bad)) {
            fprintf(stderr,
                    "mgraph: %s: vertex %llu: its component (label %llu) is not the "
                    "reference's (label %llu)\n",
                    algo, (unsigned long long)ids[bad], (unsigned long long)val->ival[bad],
                    (unsigned long long)rint[bad]);
            goto done;
        }
    } else {
        for (uint32_t i = 0; i < n && bad == n; i++) {
            if (kind == KIND_EXACT) {
                if (val->ival[i] != rint[i]) bad = i;
            } else {
                double a = val->rval[i], b = rreal[i];
                if (!(a == b || fabs(a - b) <= 1e-4 * fabs(b))) bad = i;
            }
        }
        if (bad < n) {
            if (kind == KIND_EXACT)
                fprintf(stderr, "mgraph: %s: vertex %llu: got %llu, the reference has %llu\n",
                        algo, (unsigned long long)ids[bad], (unsigned long long)val->ival[bad],
                        (unsigned long long)rint[bad]);
            else
                fprintf(stderr,
                        "mgraph: %s: vertex %llu: got %.15g, the reference has %.15g (relative "
                        "tolerance 1e-4)\n",
                        algo, (unsigned long long)ids[bad], val->rval[bad], rreal[bad]);
            goto done;
        }
    }
    ok = true;
done:
    if (f != NULL) fclose(f);
    free(rint);
    free(rreal);
    free(seen);
    free(work);
    return ok;
}

/* (|V| + |E|) per second of processing; 0 for a run too short for the clock. */
static double evps(uint32_t n, uint64_t edges, double seconds) {
    return seconds > 0 ? ((double)n + (double)edges) / seconds : 0;
}

/* ---- the command ------------------------------------------------------------------------------- */

/* --algos: a comma-separated subset of what the properties file lists (any case). */
static int parse_algos(const cli_args *a, unsigned listed, unsigned *chosen) {
    *chosen = listed;
    const char *s = a->value[OPT_ALGOS];
    if (s == NULL) return CLI_OK;
    *chosen = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int i = 0;
        while (i < NALGOS && !(strlen(ALGOS[i].name) == len && strncasecmp(s, ALGOS[i].name, len) == 0))
            i++;
        if (i == NALGOS)
            return cli_usage_error(a->name, "--algos: unknown algorithm '%.*s' (bfs, cdlp, lcc, "
                                   "pr, sssp, wcc)", (int)len, s);
        if (!(listed & ALGOS[i].bit))
            return cli_usage_error(a->name, "--algos: %s is not among the properties file's "
                                   "algorithms", ALGOS[i].name);
        *chosen |= ALGOS[i].bit;
        s += len + (s[len] == ',');
    }
    return CLI_OK;
}

int cli_graphalytics_main(int argc, char **argv) {
    cli_args a;
    mg_context ctx = NULL;
    mg_graph g = NULL;
    uint64_t *ids = NULL, edges = 0;
    mg_graphalytics_properties *p = calloc(1, sizeof *p);
    algo_result *res = calloc(NALGOS, sizeof *res);
    mg_status st = MG_SUCCESS;
    mg_backend backend = MG_BACKEND_AUTO;
    unsigned chosen = 0;
    int rc = cli_parse(argc, argv, 2, "graphalytics", CMD_GRAPHALYTICS, 1, &a);
    if (rc != CLI_OK || a.value[OPT_HELP] != NULL) goto cleanup;
    if (p == NULL || res == NULL) {
        rc = cli_lib_error(NULL, MG_OUT_OF_MEMORY);
        goto cleanup;
    }
    if (a.npositional != 1) {
        rc = cli_usage_error(a.name, "expected one NAME.properties file");
        goto cleanup;
    }
    const char *dir = a.value[OPT_OUTPUT_DIR];
    if (dir == NULL) {
        rc = cli_usage_error(a.name, "--output-dir D is required");
        goto cleanup;
    }
    if ((rc = cli_backend_option(&a, &backend)) != CLI_OK) goto cleanup;
    if ((st = mg_context_create(&ctx)) != MG_SUCCESS) {
        rc = cli_lib_error(NULL, st);
        goto cleanup;
    }
    if ((rc = cli_apply_threads(&a, ctx)) != CLI_OK) goto cleanup;
    if ((st = mg_context_set_backend(ctx, backend)) != MG_SUCCESS ||
        (st = mg_graphalytics_read_properties(ctx, a.positional[0], p)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto cleanup;
    }
    if ((rc = parse_algos(&a, p->algorithms, &chosen)) != CLI_OK) goto cleanup;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mgraph: --output-dir %s: %s\n", dir, strerror(errno));
        rc = CLI_FAIL;
        goto cleanup;
    }

    double t0 = cli_now();
    if ((st = mg_graphalytics_read(ctx, p, &g, &ids, &edges)) != MG_SUCCESS) {
        rc = cli_lib_error(ctx, st);
        goto cleanup;
    }
    const double load_s = cli_now() - t0;
    const uint32_t n = mg_graph_num_vertices(g);

    /* The reference outputs are NAME-ALGO beside the properties file. */
    const char *slash = strrchr(a.positional[0], '/');
    const int ref_dir = slash ? (int)(slash - a.positional[0]) + 1 : 0;
    bool failed = false, checked = false;
    for (int i = 0; i < NALGOS; i++) {
        if (!(chosen & ALGOS[i].bit)) continue;
        algo_result *r = &res[i];
        values val = {NULL, NULL};
        snprintf(r->output, sizeof r->output, "%s/%s-%s", dir, p->name, ALGOS[i].name);
        char ref[4200];
        snprintf(ref, sizeof ref, "%.*s%s-%s", ref_dir, a.positional[0], p->name, ALGOS[i].name);
        struct stat sb;
        const bool has_ref = stat(ref, &sb) == 0;
        int check = !has_ref && a.value[OPT_NO_CHECK] == NULL;
        st = run_algo(ctx, g, ids, p, ALGOS[i].bit, &val, &r->processing_s, &check);
        if (st == MG_UNAVAILABLE && ALGOS[i].bit == MG_GA_CDLP) {
            r->validation = "not available on this backend (--backend cpu)";
            continue;
        }
        if (st == MG_SUCCESS) st = write_output(ctx, r->output, ids, n, &val);
        if (st != MG_SUCCESS) {
            rc = cli_lib_error(ctx, st);
            free(val.ival);
            free(val.rval);
            goto cleanup;
        }
        r->ran = true;
        if (!has_ref && a.value[OPT_NO_CHECK] == NULL) {
            r->validated_by = ALGOS[i].checker;
            r->validation = check ? "PASS" : "FAIL";
            checked = true;
            failed |= !check;
        } else if (!has_ref) {
            r->validation = "no reference";
        } else if (validate(ctx, ref, ALGOS[i].name, ALGOS[i].check, ids, n, &val)) {
            r->validation = "PASS";
            r->validated_by = "reference";
            checked = true;
        } else {
            r->validation = "FAIL";
            r->validated_by = "reference";
            failed = true;
        }
        free(val.ival);
        free(val.rval);
    }

    /* Overall: FAIL if any failed, PASS if something was checked and nothing failed. */
    const char *overall = failed ? "FAIL" : checked ? "PASS" : "no reference";
    const char *backend_name = mg_context_backend(ctx) == MG_BACKEND_GPU ? "gpu" : "cpu";
    if (a.value[OPT_JSON] != NULL) {
        printf("{\"graph\": ");
        cli_json_string(stdout, p->name);
        printf(", \"vertices\": %u, \"edges\": %llu, \"directed\": %s, \"backend\": \"%s\", "
               "\"threads\": %d, \"load_s\": %.6f, \"algorithms\": [",
               n, (unsigned long long)edges, p->directed ? "true" : "false", backend_name,
               cli_threads(&a), load_s);
        const char *sep = "";
        for (int i = 0; i < NALGOS; i++) {
            if (!(chosen & ALGOS[i].bit)) continue;
            printf("%s{\"name\": \"%s\", ", sep, ALGOS[i].name);
            if (res[i].ran) {
                printf("\"processing_s\": %.6f, \"evps\": %.6g, \"output\": ", res[i].processing_s,
                       evps(n, edges, res[i].processing_s));
                cli_json_string(stdout, res[i].output);
                printf(", ");
            }
            printf("\"validation\": \"%s\", \"validated_by\": ", res[i].validation);
            if (res[i].validated_by != NULL)
                cli_json_string(stdout, res[i].validated_by);
            else
                printf("null");
            printf("}");
            sep = ", ";
        }
        printf("], \"validation\": \"%s\"}\n", overall);
    } else {
        printf("graph: %s (%u vertices, %llu edges, %s%s)\n", p->name, n,
               (unsigned long long)edges, p->directed ? "directed" : "undirected",
               p->weighted ? ", weighted" : "");
        printf("backend: %s\nload: %.6f s\n", backend_name, load_s);
        printf("%-6s %14s %12s  %s\n", "algo", "processing_s", "EVPS", "validation");
        for (int i = 0; i < NALGOS; i++) {
            if (!(chosen & ALGOS[i].bit)) continue;
            /* A checker's verdict names it; a reference's stays a bare PASS or FAIL. */
            const bool by_checker = res[i].validated_by != NULL &&
                                    strcmp(res[i].validated_by, "reference") != 0;
            if (res[i].ran)
                printf("%-6s %14.6f %12.4g  %s%s%s%s\n", ALGOS[i].name, res[i].processing_s,
                       ((double)n + (double)edges) / res[i].processing_s, res[i].validation,
                       by_checker ? " (" : "", by_checker ? res[i].validated_by : "",
                       by_checker ? ", no reference)" : "");
            else
                printf("%-6s %14s %12s  %s\n", ALGOS[i].name, "-", "-", res[i].validation);
        }
        printf("validation: %s\n", overall);
    }
    cli_flush_stdout();
    rc = failed ? CLI_FAIL : CLI_OK;

cleanup:
    free(ids);
    free(p);
    free(res);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return rc;
}
