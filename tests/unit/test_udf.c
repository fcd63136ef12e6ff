/*
 * test_udf.c — user-defined edge programs (issue 18) on the CPU: BFS and PageRank rewritten as
 * user-defined programs, through host functions and through the JIT, give the built-in results (BFS
 * depths exactly, PageRank to 1e-9) in every mode; the JIT's disk cache spares a second process the
 * compiler; compile errors, a missing compiler and bad definitions fail cleanly; the mode combine
 * and CDLP against the serial checker and against the LDBC Graphalytics example outputs (when
 * ../shared/datasets/graphalytics is there). An ANY combine gives each destination the contribution
 * of some active in-neighbour (64-bit values whole), in pull and push, with apply_all and along both
 * directions, and BFS by ANY the built-in depths; a source_only contribution runs once per active
 * source and step and gives the results of the same program without the flag.
 */
#define _POSIX_C_SOURCE 200809L
#include "mgraph.h"

#include "check.h"
#include "temp_dir.h"

#include "mg_internal.h" /* mg__inject_alloc_failure */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static mg_context ctx_for_failures;

/* ---- the programs -------------------------------------------------------------------------------- */

static void bfs_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                             double weight, uint64_t src_degree, void *user) {
    (void)dst, (void)src_value, (void)weight, (void)src_degree, (void)user;
    *(int32_t *)value = (int32_t)src;
}
static void min_i32(void *a, const void *b, void *user) {
    (void)user;
    if (*(const int32_t *)b < *(int32_t *)a) *(int32_t *)a = *(const int32_t *)b;
}
static bool if_unset(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst, (void)user;
    if (*(int32_t *)dst_value != -1) return false;
    *(int32_t *)dst_value = *(const int32_t *)combined;
    return true;
}
static const int32_t i32_max = INT32_MAX;

static void pr_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                            double weight, uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)user;
    *(double *)value = src_degree ? *(const double *)src_value / (double)src_degree : 0.0;
}
static void sum_f64(void *a, const void *b, void *user) {
    (void)user;
    *(double *)a += *(const double *)b;
}
static bool affine(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst;
    const double *ab = user;
    *(double *)dst_value = ab[0] * *(const double *)combined + ab[1];
    return true;
}
static const double zero = 0.0;

static mg_status define_bfs(mg_context ctx, mg_udf_runner runner, mg_udf *u) {
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_VERTEX;
    def.runner = runner;
    def.contribution = "(int32_t)src";
    def.combine = "a < b ? a : b";
    def.identity = "INT32_MAX";
    def.apply = "if (dst_value == -1) { dst_value = combined; joins = 1; }";
    def.contribution_fn = bfs_contribution;
    def.combine_fn = min_i32;
    def.identity_value = &i32_max;
    def.apply_fn = if_unset;
    return mg_program_define(ctx, &def, u);
}

/* BFS parents as a user would write them: any frontier parent will do (GraphBLAS's ANY_SECONDI). */
static mg_status define_bfs_any(mg_context ctx, mg_udf_runner runner, mg_udf *u) {
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_VERTEX;
    def.runner = runner;
    def.combine_kind = MG_UDF_ANY;
    def.contribution = "(int32_t)src";
    def.apply = "if (dst_value == -1) { dst_value = combined; joins = 1; }";
    def.contribution_fn = bfs_contribution;
    def.apply_fn = if_unset;
    return mg_program_define(ctx, &def, u);
}

static mg_status define_pr(mg_context ctx, mg_udf_runner runner, bool source_only, double *ab, mg_udf *u) {
    char apply[200];
    snprintf(apply, sizeof apply, "dst_value = %.17g * combined + %.17g; joins = 1;", ab[0], ab[1]);
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_DOUBLE;
    def.runner = runner;
    def.apply_all = true;
    def.source_only = source_only;
    def.contribution = "src_degree ? src_value / (double)src_degree : 0.0";
    def.combine = "a + b";
    def.identity = "0.0";
    def.apply = apply;
    def.contribution_fn = pr_contribution;
    def.combine_fn = sum_f64;
    def.identity_value = &zero;
    def.apply_fn = affine;
    def.user = ab;
    return mg_program_define(ctx, &def, u);
}

/* BFS depths from source through the user-defined parents program, as mg_bfs does with its own. */
static mg_status udf_bfs(mg_context ctx, mg_graph g, mg_udf u, uint32_t source, int32_t *depth) {
    mg_status status = MG_SUCCESS;
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector parent = NULL, dv = NULL;
    mg_frontier front = NULL, next = NULL, visited = NULL;
    if ((status = mg_vector_create(ctx, &parent, g, MG_VERTEX)) || (status = mg_vector_create(ctx, &dv, g, MG_INT32)) ||
        (status = mg_frontier_create(ctx, &front, g)) || (status = mg_frontier_create(ctx, &next, g)) ||
        (status = mg_frontier_create(ctx, &visited, g)) || (status = mg_vector_assign(ctx, parent, NULL, -1)) ||
        (status = mg_vector_assign(ctx, dv, NULL, -1)) || (status = mg_vector_set(ctx, dv, source, 0)) ||
        (status = mg_vector_set(ctx, parent, source, source)) || (status = mg_frontier_add(ctx, front, source)) ||
        (status = mg_frontier_add(ctx, visited, source)))
        goto done;
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.mask_complement = true;
    for (int32_t level = 1;; level++) {
        uint32_t count = 0;
        if ((status = mg_advance(ctx, g, &p, front, parent, parent, visited, next)) ||
            (status = mg_frontier_count(ctx, next, &count)))
            goto done;
        if (count == 0) break;
        if ((status = mg_vector_assign(ctx, dv, next, level)) || (status = mg_frontier_union(ctx, visited, next)))
            goto done;
        mg_frontier t = front;
        front = next;
        next = t;
    }
    status = mg_vector_extract(ctx, dv, depth);
    (void)n;
done:
    mg_vector_free(&parent);
    mg_vector_free(&dv);
    mg_frontier_free(&front);
    mg_frontier_free(&next);
    mg_frontier_free(&visited);
    return status;
}

static void check_bfs(mg_context ctx, mg_graph g, mg_udf u) {
    const uint32_t n = mg_graph_num_vertices(g);
    int32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    mg_vector depth = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, g, 0, depth, NULL));
    CHECK_OK(ctx, mg_vector_extract(ctx, depth, want));
    const mg_mode modes[3] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
    for (int m = 0; m < 3; m++) {
        CHECK_OK(ctx, mg_context_set_mode(ctx, modes[m]));
        memset(got, 0, n * sizeof *got);
        CHECK_OK(ctx, udf_bfs(ctx, g, u, 0, got));
        CHECK(memcmp(want, got, n * sizeof *got) == 0);
    }
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    mg_vector_free(&depth);
    free(want);
    free(got);
}

/* PageRank of `iters` power iterations, normalised, against mg_pagerank's (tolerance 0). */
static void check_pagerank(mg_context ctx, mg_graph g, mg_udf_runner runner, bool source_only) {
    const uint32_t n = mg_graph_num_vertices(g);
    const int iters = 20;
    double ab[2] = {0.85, 0.15 / n};
    double *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    mg_vector r = NULL, a = NULL, b = NULL;
    mg_udf u = NULL;
    mg_pagerank_options o;
    mg_pagerank_options_init(&o);
    o.tolerance = 0;
    o.max_iterations = iters;
    CHECK_OK(ctx, mg_vector_create(ctx, &r, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_pagerank(ctx, g, &o, r));
    CHECK_OK(ctx, mg_vector_extract(ctx, r, want));
    CHECK_OK(ctx, define_pr(ctx, runner, source_only, ab, &u));
    CHECK_OK(ctx, mg_vector_create(ctx, &a, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &b, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_assign(ctx, a, NULL, 1.0 / n));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    for (int i = 0; i < iters; i++) {
        CHECK_OK(ctx, mg_advance(ctx, g, &p, NULL, i % 2 ? b : a, i % 2 ? a : b, NULL, NULL));
    }
    CHECK_OK(ctx, mg_vector_extract(ctx, iters % 2 ? b : a, got));
    double sum = 0, worst = 0;
    for (uint32_t v = 0; v < n; v++) sum += got[v];
    for (uint32_t v = 0; v < n; v++) worst = fmax(worst, fabs(got[v] / sum - want[v]));
    if (worst > 1e-9)
        fprintf(stderr, "pagerank (runner %d, source_only %d): worst difference %g\n", (int)runner, (int)source_only,
                worst);
    CHECK(worst <= 1e-9);
    mg_udf_free(&u);
    mg_vector_free(&r);
    mg_vector_free(&a);
    mg_vector_free(&b);
    free(want);
    free(got);
}

static mg_graph generate(mg_context ctx, mg_generator kind, int scale, bool directed) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.edge_factor = 8;
    o.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &o));
    return g;
}

/* ---- the ANY combine --------------------------------------------------------------------------- */

/* Each source's value: distinct per source, and for 64-bit types with bits in both halves, so a
 * store torn between two contributions would match none. */
static double any_value(mg_type t, uint32_t s) {
    return t == MG_INT64 ? (double)(((int64_t)(s + 1) << 33) | (int64_t)(s + 7)) : (double)s * 1.0000001 + 0.25;
}

static uint64_t any_calls;
static void any_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value, double weight,
                             uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)src_degree;
    __atomic_fetch_add(&any_calls, 1, __ATOMIC_RELAXED);
    memcpy(value, src_value, *(const mg_type *)user == MG_INT64 ? sizeof(int64_t) : sizeof(double));
}
/* dst_value = combined where found, else combined - 1 (-1: ANY's combined is 0 where none arrived) */
static bool any_apply(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)dst;
    if (*(const mg_type *)user == MG_INT64) *(int64_t *)dst_value = *(const int64_t *)combined - !found;
    else *(double *)dst_value = *(const double *)combined - !found;
    return found;
}

/* One step of an ANY program on g (directed; along both directions when both), from a random
 * frontier into destinations outside a random mask, in the given engine mode and runner: every
 * eligible destination with an active neighbour holds one of their values and joined; with
 * apply_all, the others hold -1 (combined 0, minus one) and did not join; the ineligible kept
 * their value. A pull by the host runner evaluates one contribution per destination that got one
 * (it stopped at the first active source). */
static void check_any_step(mg_context ctx, mg_graph g, mg_type t, mg_udf_runner runner, bool apply_all,
                           bool both, mg_mode mode) {
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t *off;
    const uint32_t *idx;
    CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, NULL));
    mg_type type = t;
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = t;
    def.runner = runner;
    def.combine_kind = MG_UDF_ANY;
    def.apply_all = apply_all;
    def.contribution = "src_value";
    def.apply = "dst_value = found ? combined : combined - 1; joins = found;";
    def.contribution_fn = any_contribution;
    def.apply_fn = any_apply;
    def.user = &type;
    mg_udf u = NULL;
    CHECK_OK(ctx, mg_program_define(ctx, &def, &u));
    const double sentinel = -5;
    double *xv = malloc(n * sizeof *xv), *yv = malloc(n * sizeof *yv);
    void *x = malloc(n * 8), *y = malloc(n * 8);
    bool *active = calloc(n, 1), *eligible = calloc(n, 1), *has = calloc(n, 1), *ok = calloc(n, 1);
    mg_vector vx = NULL, vy = NULL;
    mg_frontier in = NULL, mask = NULL, out = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vx, g, t));
    CHECK_OK(ctx, mg_vector_create(ctx, &vy, g, t));
    CHECK_OK(ctx, mg_frontier_create(ctx, &in, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &mask, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &out, g));
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (uint32_t v = 0; v < n; v++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        active[v] = (r >> 60) < 5;          /* about 5 in 16 */
        eligible[v] = ((r >> 50) & 3) != 0; /* 3 in 4: the mask holds the others, complemented */
        if (active[v]) CHECK_OK(ctx, mg_frontier_add(ctx, in, v));
        if (!eligible[v]) CHECK_OK(ctx, mg_frontier_add(ctx, mask, v));
        if (t == MG_INT64) {
            ((int64_t *)x)[v] = (int64_t)any_value(t, v);
            ((int64_t *)y)[v] = (int64_t)sentinel;
        } else {
            ((double *)x)[v] = any_value(t, v);
            ((double *)y)[v] = sentinel;
        }
    }
    CHECK_OK(ctx, mg_vector_load(ctx, vx, x));
    CHECK_OK(ctx, mg_vector_load(ctx, vy, y));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.mask_complement = true;
    p.edges = both ? MG_EDGES_BOTH : MG_EDGES_OUT;
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    any_calls = 0;
    CHECK_OK(ctx, mg_advance(ctx, g, &p, in, vx, vy, mask, out));
    const uint64_t calls = any_calls;
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    CHECK_OK(ctx, mg_vector_extract(ctx, vy, y));
    for (uint32_t v = 0; v < n; v++) {
        xv[v] = t == MG_INT64 ? (double)((int64_t *)x)[v] : ((double *)x)[v];
        yv[v] = t == MG_INT64 ? (double)((int64_t *)y)[v] : ((double *)y)[v];
    }
    /* the 64-bit integers compared exactly, not through doubles */
    for (uint32_t s = 0; s < n; s++)
        for (uint64_t e = off[s]; e < off[s + 1]; e++) {
            const uint32_t d = idx[e];
            for (int dir = 0; dir < (both ? 2 : 1); dir++) {
                const uint32_t from = dir ? d : s, to = dir ? s : d;
                if (!active[from]) continue;
                has[to] = true;
                if (t == MG_INT64 ? ((int64_t *)y)[to] == ((int64_t *)x)[from] : yv[to] == xv[from]) ok[to] = true;
            }
        }
    uint32_t wrong = 0, joined = 0, want_joined = 0;
    for (uint32_t v = 0; v < n; v++) {
        bool in_out = false;
        CHECK_OK(ctx, mg_frontier_contains(ctx, out, v, &in_out));
        joined += in_out;
        bool good;
        if (!eligible[v]) good = yv[v] == sentinel && !in_out;
        else if (has[v]) good = ok[v] && in_out;
        else good = yv[v] == (apply_all ? -1 : sentinel) && !in_out;
        want_joined += eligible[v] && has[v];
        if (!good && wrong++ < 5)
            fprintf(stderr, "ANY (%s, %s, %s%s, mode %d): vertex %u: eligible %d, an active neighbour %d, "
                    "joined %d, value %.17g (none of its active neighbours' values)\n",
                    t == MG_INT64 ? "int64" : "double", runner == MG_UDF_JIT ? "jit" : "host",
                    apply_all ? "apply_all" : "arrived only", both ? ", both directions" : "", (int)mode, v,
                    (int)eligible[v], (int)has[v], (int)in_out, yv[v]);
    }
    CHECK(wrong == 0);
    CHECK(joined == want_joined && want_joined > 0);
    if (runner == MG_UDF_HOST && mode == MG_MODE_PULL && calls != want_joined)
        fprintf(stderr, "ANY pull: %llu contributions evaluated for %u destinations\n", (unsigned long long)calls,
                want_joined);
    CHECK(runner != MG_UDF_HOST || mode != MG_MODE_PULL || calls == want_joined);
    mg_udf_free(&u);
    mg_vector_free(&vx);
    mg_vector_free(&vy);
    mg_frontier_free(&in);
    mg_frontier_free(&mask);
    mg_frontier_free(&out);
    free(xv), free(yv), free(x), free(y), free(active), free(eligible), free(has), free(ok);
}

static void test_any(mg_context ctx) {
    mg_graph g = generate(ctx, MG_GEN_KRONECKER, 10, true);
    const mg_type types[2] = {MG_INT64, MG_DOUBLE};
    const mg_mode modes[3] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < 2; r++) {
            const mg_udf_runner runner = r ? MG_UDF_HOST : MG_UDF_JIT;
            for (int m = 0; m < 3; m++) check_any_step(ctx, g, types[t], runner, false, false, modes[m]);
            /* apply_all and both directions pull only */
            check_any_step(ctx, g, types[t], runner, true, false, MG_MODE_PULL);
            check_any_step(ctx, g, types[t], runner, false, true, MG_MODE_AUTO);
            check_any_step(ctx, g, types[t], runner, true, true, MG_MODE_PULL);
        }
    mg_graph_free(&g);
}

/* ---- source_only --------------------------------------------------------------------------------- */

static uint64_t contribution_calls;
static void counted_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value, double weight,
                                 uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)user;
    __atomic_fetch_add(&contribution_calls, 1, __ATOMIC_RELAXED);
    *(double *)value = *(const double *)src_value / (double)(src_degree + 1);
}
static bool add_apply(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst, (void)user;
    *(double *)dst_value += *(const double *)combined;
    return true;
}

/* A sum of src_value / (src_degree + 1) from a frontier, pulled and pushed, by both runners, with
 * and without source_only: the same sums (to rounding: the order differs), and with the flag the
 * host runner's contribution called once per active source rather than once per edge. */
static void test_source_only(mg_context ctx) {
    mg_graph g = generate(ctx, MG_GEN_KRONECKER, 10, true);
    const uint32_t n = mg_graph_num_vertices(g);
    double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    mg_vector vx = NULL, vy = NULL;
    mg_frontier in = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vx, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &vy, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_frontier_create(ctx, &in, g));
    uint32_t nf = 0;
    for (uint32_t v = 0; v < n; v++) {
        x[v] = 1.0 + (v % 97) * 0.125;
        if (v % 3 == 0) {
            CHECK_OK(ctx, mg_frontier_add(ctx, in, v));
            nf++;
        }
    }
    CHECK_OK(ctx, mg_vector_load(ctx, vx, x));
    const mg_mode modes[2] = {MG_MODE_PULL, MG_MODE_SPARSE};
    for (int r = 0; r < 2; r++)
        for (int m = 0; m < 2; m++)
            for (int so = 0; so < 2; so++) {
                mg_udf_def def;
                mg_udf_def_init(&def);
                def.runner = r ? MG_UDF_HOST : MG_UDF_JIT;
                def.source_only = so;
                def.contribution = "src_value / (double)(src_degree + 1)";
                def.combine = "a + b";
                def.identity = "0.0";
                def.apply = "dst_value += combined; joins = 1;";
                def.contribution_fn = counted_contribution;
                def.combine_fn = sum_f64;
                def.identity_value = &zero;
                def.apply_fn = add_apply;
                mg_udf u = NULL;
                CHECK_OK(ctx, mg_program_define(ctx, &def, &u));
                mg_program p;
                mg_program_init(&p);
                p.udf = u;
                CHECK_OK(ctx, mg_vector_assign(ctx, vy, NULL, 0.5));
                CHECK_OK(ctx, mg_context_set_mode(ctx, modes[m]));
                contribution_calls = 0;
                CHECK_OK(ctx, mg_advance(ctx, g, &p, in, vx, vy, NULL, NULL));
                CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
                if (r == 1 && so) {
                    if (contribution_calls != nf)
                        fprintf(stderr, "source_only (%s): %llu contribution calls for %u active sources\n",
                                m ? "push" : "pull", (unsigned long long)contribution_calls, nf);
                    CHECK(contribution_calls == nf);
                }
                CHECK_OK(ctx, mg_vector_extract(ctx, vy, so ? got : want));
                if (so) {
                    uint32_t wrong = 0;
                    for (uint32_t v = 0; v < n; v++)
                        if (!(fabs(got[v] - want[v]) <= 1e-12 * fabs(want[v])) && wrong++ < 3) /* NaN too */
                            fprintf(stderr, "source_only (%s, %s): vertex %u: %.17g, without the flag %.17g\n",
                                    r ? "host" : "jit", m ? "push" : "pull", v, got[v], want[v]);
                    CHECK(wrong == 0);
                }
                mg_udf_free(&u);
            }
    mg_vector_free(&vx);
    mg_vector_free(&vy);
    mg_frontier_free(&in);
    free(x), free(want), free(got);
    mg_graph_free(&g);
}

/* ---- the JIT's cache, in a second process ------------------------------------------------------ */

/* Run as `test_udf --second`: defines the BFS program with the JIT; exit 0 when it came from the
 * disk cache without compiling. */
static int second_process(void) {
    mg_context ctx = NULL;
    mg_udf u = NULL;
    mg_udf_info info;
    if (mg_context_create(&ctx) != MG_SUCCESS || define_bfs(ctx, MG_UDF_JIT, &u) != MG_SUCCESS ||
        mg_udf_get_info(ctx, u, &info) != MG_SUCCESS) {
        fprintf(stderr, "second process: %s\n", ctx ? mg_context_error(ctx) : "no context");
        return 2;
    }
    printf("second process: jit %g s, disk hit %d, %s\n", info.jit_seconds, (int)info.disk_hit,
           info.object_path);
    int rc = info.disk_hit && info.jit_seconds == 0 ? 0 : 1;
    mg_udf_free(&u);
    mg_context_free(&ctx);
    return rc;
}

static void test_cache(mg_context ctx, const char *self) {
    mg_udf u = NULL, again = NULL;
    mg_udf_info info;
    CHECK_OK(ctx, define_bfs(ctx, MG_UDF_JIT, &u));
    CHECK_OK(ctx, mg_udf_get_info(ctx, u, &info));
    CHECK(info.jit_seconds > 0 && !info.disk_hit && !info.memory_hit);
    CHECK(strncmp(info.object_path, tmpdir, strlen(tmpdir)) == 0 && access(info.object_path, R_OK) == 0);
    CHECK_OK(ctx, define_bfs(ctx, MG_UDF_JIT, &again));
    CHECK_OK(ctx, mg_udf_get_info(ctx, again, &info));
    CHECK(info.memory_hit && info.jit_seconds == 0);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' --second", self);
    CHECK(system(cmd) == 0);
    mg_udf_free(&u);
    mg_udf_free(&again);
}

/* ---- failures ------------------------------------------------------------------------------------ */

static void test_errors(mg_context ctx, mg_graph g) {
    mg_udf u = NULL;
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_DOUBLE;
    def.contribution = "src_value +* ;";
    def.combine = "a + b";
    def.identity = "0.0";
    def.apply = "dst_value = combined;";
    CHECK(mg_program_define(ctx, &def, &u) == MG_COMPILE_ERROR && u == NULL);
    CHECK(strstr(mg_context_error(ctx), "contribution:1:") != NULL); /* the compiler's own line */

    def.contribution = "src_value";
    def.apply = "dst_value = combined";   /* no semicolon */
    CHECK(mg_program_define(ctx, &def, &u) == MG_COMPILE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "apply:") != NULL);

    def.apply = "dst_value = combined + 1;";  /* a program compiled nowhere yet */
    setenv("CC", "/nonexistent/cc", 1);
    CHECK(mg_program_define(ctx, &def, &u) == MG_UNAVAILABLE && u == NULL);
    CHECK(strstr(mg_context_error(ctx), "CC=/nonexistent/cc") != NULL);
    unsetenv("CC");

    /* no CC and nothing on PATH */
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    CHECK(mg_program_define(ctx, &def, &u) == MG_UNAVAILABLE && u == NULL);
    CHECK(strstr(mg_context_error(ctx), "cc, gcc or clang not found on PATH") != NULL);
    if (saved) setenv("PATH", saved, 1);
    free(saved);

    def.contribution = NULL;
    CHECK(mg_program_define(ctx, &def, &u) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "contribution") != NULL);
    def.contribution = "src_value";
    def.type = (mg_type)99;
    CHECK(mg_program_define(ctx, &def, &u) == MG_INVALID_ARGUMENT);
    def.type = MG_DOUBLE;
    def.runner = MG_UDF_HOST; /* no functions */
    CHECK(mg_program_define(ctx, &def, &u) == MG_INVALID_ARGUMENT);
    CHECK(mg_program_define(ctx, NULL, &u) == MG_INVALID_ARGUMENT);

    /* a program of another value type than y, and a mode combine forced to push */
    CHECK_OK(ctx, define_bfs(ctx, MG_UDF_HOST, &u));
    mg_vector y = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &y, g, MG_DOUBLE));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    CHECK(mg_advance(ctx, g, &p, NULL, y, y, NULL, NULL) == MG_INVALID_ARGUMENT);
    mg_udf_free(&u);
    mg_vector_free(&y);
}

/* ---- the mode combine and CDLP ------------------------------------------------------------------ */

static void test_cdlp_generated(mg_context ctx, mg_graph g) {
    mg_vector labels = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &labels, g, MG_VERTEX));
    for (int iters = 0; iters <= 5; iters += 5) {
        CHECK_OK(ctx, mg_cdlp(ctx, g, iters, labels));
        CHECK_OK(ctx, mg_check_cdlp(ctx, g, iters, labels));
    }
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_SPARSE));
    CHECK(mg_cdlp(ctx, g, 1, labels) == MG_UNAVAILABLE); /* a mode combine cannot push */
    CHECK(strstr(mg_context_error(ctx), "pull") != NULL);
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));

    /* the same rounds through the JIT, with the mode combine compiled in */
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.type = MG_VERTEX;
    def.combine_kind = MG_UDF_MODE;
    def.apply_all = true;
    def.contribution = "src_value";
    def.apply = "dst_value = found ? combined : (int32_t)dst;";
    mg_udf u = NULL;
    mg_vector a = NULL, b = NULL;
    CHECK_OK(ctx, mg_program_define(ctx, &def, &u));
    CHECK_OK(ctx, mg_vector_create(ctx, &a, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &b, g, MG_VERTEX));
    const uint32_t n = mg_graph_num_vertices(g);
    int32_t *ids = malloc(n * sizeof *ids);
    for (uint32_t v = 0; v < n; v++) ids[v] = (int32_t)v;
    CHECK_OK(ctx, mg_vector_load(ctx, a, ids));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.edges = MG_EDGES_BOTH;
    for (int i = 0; i < 3; i++) CHECK_OK(ctx, mg_advance(ctx, g, &p, NULL, i % 2 ? b : a, i % 2 ? a : b, NULL, NULL));
    CHECK_OK(ctx, mg_check_cdlp(ctx, g, 3, b));
    free(ids);
    mg_udf_free(&u);
    mg_vector_free(&a);
    mg_vector_free(&b);
    mg_vector_free(&labels);
}

/* Every allocation of a definition, an advance and CDLP failed in turn: MG_OUT_OF_MEMORY, never
 * a crash or a leak (the sanitizer build checks that). */
static mg_status cdlp_and_define(mg_graph g, mg_vector labels) {
    mg_udf u = NULL;
    mg_status st = define_bfs(ctx_for_failures, MG_UDF_JIT, &u);
    if (st == MG_SUCCESS) st = mg_cdlp(ctx_for_failures, g, 2, labels);
    if (st == MG_SUCCESS) st = mg_check_cdlp(ctx_for_failures, g, 2, labels);
    mg_udf_free(&u);
    return st;
}

static void test_alloc_failures(mg_graph g) {
    mg_vector labels = NULL;
    CHECK_OK(ctx_for_failures, mg_vector_create(ctx_for_failures, &labels, g, MG_VERTEX));
    int failures = 0;
    for (uint64_t k = 1; k < 100000; k++) {
        mg__inject_alloc_failure(k);
        mg_status st = cdlp_and_define(g, labels);
        mg__inject_alloc_failure(0);
        if (st == MG_SUCCESS) break;
        failures++;
        if (st != MG_OUT_OF_MEMORY) {
            fprintf(stderr, "allocation %llu failed: %s (%s)\n", (unsigned long long)k,
                    mg_status_string(st), mg_context_error(ctx_for_failures));
            CHECK(st == MG_OUT_OF_MEMORY);
            break;
        }
    }
    CHECK(failures > 3);
    mg_vector_free(&labels);
}

static int cmp_i64(const void *p, const void *q) {
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}

static uint32_t index_of(const int64_t *ids, uint32_t n, int64_t id) {
    const int64_t *at = bsearch(&id, ids, n, sizeof *ids, cmp_i64);
    return at ? (uint32_t)(at - ids) : UINT32_MAX;
}

/* CDLP on a Graphalytics example graph against its reference output; ids mapped to 0..n-1 in
 * increasing order, so the smallest label is the smallest id in both numberings. */
static void test_graphalytics(mg_context ctx, const char *dir, const char *name) {
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/%s.properties", dir, name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL) return;
    int iterations = -1;
    bool directed = false;
    while (fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (line[0] == '#' || eq == NULL) continue;
        if (strstr(line, ".cdlp.max-iterations")) iterations = atoi(eq + 1);
        if (strstr(line, ".directed")) directed = strstr(eq, "true") != NULL;
    }
    fclose(f);
    CHECK(iterations > 0);
    int64_t ids[4096];
    uint32_t n = 0, m = 0, src[4096], dst[4096];
    snprintf(path, sizeof path, "%s/%s.v", dir, name);
    f = fopen(path, "r");
    while (f && n < 4096 && fscanf(f, "%ld", (long *)&ids[n]) == 1) n++;
    if (f) fclose(f);
    qsort(ids, n, sizeof *ids, cmp_i64);
    snprintf(path, sizeof path, "%s/%s.e", dir, name);
    f = fopen(path, "r");
    while (f && m < 4096 && fgets(line, sizeof line, f)) {
        long u, v;
        if (sscanf(line, "%ld %ld", &u, &v) != 2) continue;
        src[m] = index_of(ids, n, u);
        dst[m] = index_of(ids, n, v);
        m++;
    }
    if (f) fclose(f);
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    mg_graph g = NULL;
    mg_vector labels = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, NULL, MG_WEIGHT_NONE, &o));
    CHECK_OK(ctx, mg_vector_create(ctx, &labels, g, MG_VERTEX));
    CHECK_OK(ctx, mg_cdlp(ctx, g, iterations, labels));
    CHECK_OK(ctx, mg_check_cdlp(ctx, g, iterations, labels));
    int32_t got[4096];
    CHECK_OK(ctx, mg_vector_extract(ctx, labels, got));
    snprintf(path, sizeof path, "%s/%s-CDLP", dir, name);
    f = fopen(path, "r");
    uint32_t compared = 0;
    long id, label;
    while (f && fscanf(f, "%ld %ld", &id, &label) == 2) {
        uint32_t v = index_of(ids, n, id);
        CHECK(v < n && ids[got[v]] == label);
        compared++;
    }
    if (f) fclose(f);
    CHECK(compared == n);
    printf("graphalytics %s: CDLP (%d iterations) compared with the reference on %u vertices\n", name,
           iterations, compared);
    mg_vector_free(&labels);
    mg_graph_free(&g);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--second") == 0) return second_process();
    if (temp_dir_make("udf")) return 2;
    setenv("MG_JIT_CACHE", tmpdir, 1);
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    CHECK_OK(ctx, mg_context_set_backend(ctx, MG_BACKEND_CPU));

    test_cache(ctx, argv[0]);
    mg_graph small = generate(ctx, MG_GEN_KRONECKER, 8, true);
    test_errors(ctx, small);
    ctx_for_failures = ctx;
    test_alloc_failures(small);
    mg_graph_free(&small);
    test_any(ctx);
    test_source_only(ctx);

    const bool directed[2] = {false, true};
    for (int d = 0; d < 2; d++) {
        mg_graph g = generate(ctx, MG_GEN_KRONECKER, 11, directed[d]);
        for (int r = 0; r < 2; r++) {
            mg_udf u = NULL;
            CHECK_OK(ctx, define_bfs(ctx, r ? MG_UDF_HOST : MG_UDF_JIT, &u));
            check_bfs(ctx, g, u);
            mg_udf_free(&u);
            CHECK_OK(ctx, define_bfs_any(ctx, r ? MG_UDF_HOST : MG_UDF_JIT, &u));
            check_bfs(ctx, g, u);
            mg_udf_free(&u);
            check_pagerank(ctx, g, r ? MG_UDF_HOST : MG_UDF_JIT, false);
            check_pagerank(ctx, g, r ? MG_UDF_HOST : MG_UDF_JIT, true);
        }
        test_cdlp_generated(ctx, g);
        mg_graph_free(&g);
    }

    const char *shared = getenv("MG_SHARED_DATASETS");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/graphalytics", shared ? shared : "../shared/datasets");
    if (access(dir, R_OK) == 0) {
        test_graphalytics(ctx, dir, "example-directed");
        test_graphalytics(ctx, dir, "example-undirected");
    } else {
        printf("graphalytics examples: skipped (%s not found)\n", dir);
    }
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
