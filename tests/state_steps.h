/*
 * state_steps.h — state carried between calls, the test shared by tests/unit/test_state.c (CPU)
 * and tests/gpu/test_gpu_state.c (GPU). A context keeps scratch space between calls (the engines'
 * workspaces, sized for the largest graph seen, and what they hold between calls), so one context
 * is run through a long, seeded sequence of steps — every algorithm and mg_advance programs of
 * every value type and combine, on graphs that grow and shrink in size, weighted and not, directed
 * and not, in every mode and engine of the configurations given — and each step's result is
 * compared with the same step on a fresh context configured alike. A step is repeated on another
 * graph half the time, so a program meets the workspace a different graph and program left (the
 * bug of issue 13: the CPU engine's accumulator kept the identity only for the previous graph's n).
 */
#ifndef MG_TEST_STATE_STEPS_H
#define MG_TEST_STATE_STEPS_H

#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    mg_backend backend;
    mg_mode mode;
    mg_engine engine;
} state_config;

/* ---- the graphs: sizes up and down, every weight type, both directednesses ------------------- */

#define STATE_GRAPHS 9

static mg_graph state_tiny(mg_context ctx, uint32_t n, bool directed, mg_weight_type wt) {
    /* a path 0 - 1 - ... - n-1 with a chord 0 -> n-1 */
    uint32_t src[8], dst[8];
    int32_t wi[8];
    float wf[8];
    uint64_t m = 0;
    for (uint32_t v = 0; v + 1 < n; v++, m++) {
        src[m] = v;
        dst[m] = v + 1;
        wi[m] = (int32_t)(3 + v);
        wf[m] = 0.5f + (float)v;
    }
    if (n > 2) {
        src[m] = 0;
        dst[m] = n - 1;
        wi[m] = 20;
        wf[m] = 9.25f;
        m++;
    }
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst,
                                           wt == MG_WEIGHT_INT32 ? (const void *)wi
                                           : wt == MG_WEIGHT_FLOAT ? (const void *)wf : NULL,
                                           wt, &o));
    return g;
}

static mg_graph state_generated(mg_context ctx, mg_generator kind, int scale, uint32_t width,
                                uint32_t height, bool directed, mg_weight_type wt) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = kind;
    go.scale = scale;
    go.width = width;
    go.height = height;
    go.weights = wt;
    go.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    return g;
}

static void state_graphs(mg_context ctx, mg_graph g[STATE_GRAPHS]) {
    g[0] = state_generated(ctx, MG_GEN_RMAT, 10, 0, 0, false, MG_WEIGHT_NONE);       /* 1024 */
    g[1] = state_tiny(ctx, 2, false, MG_WEIGHT_INT32);
    g[2] = state_tiny(ctx, 6, true, MG_WEIGHT_FLOAT);
    g[3] = state_generated(ctx, MG_GEN_KRONECKER, 12, 0, 0, true, MG_WEIGHT_INT32);  /* 4096 */
    g[4] = state_generated(ctx, MG_GEN_GRID, 0, 7, 9, false, MG_WEIGHT_FLOAT);      /* 63   */
    g[5] = state_generated(ctx, MG_GEN_UNIFORM, 8, 0, 0, true, MG_WEIGHT_NONE);     /* 256  */
    g[6] = state_tiny(ctx, 1, true, MG_WEIGHT_NONE);
    g[7] = state_generated(ctx, MG_GEN_GEOMETRIC, 11, 0, 0, false, MG_WEIGHT_INT32); /* 2048 */
    g[8] = state_tiny(ctx, 5, false, MG_WEIGHT_NONE);
}

/* ---- typed host values ------------------------------------------------------------------------ */

static void state_put(void *buf, mg_type t, uint32_t i, double v) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: ((int32_t *)buf)[i] = (int32_t)v; break;
    case MG_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case MG_FLOAT: ((float *)buf)[i] = (float)v; break;
    case MG_DOUBLE: ((double *)buf)[i] = v; break;
    }
}

static double state_at(const void *buf, mg_type t, uint32_t i) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: return ((const int32_t *)buf)[i];
    case MG_INT64: return (double)((const int64_t *)buf)[i];
    case MG_FLOAT: return ((const float *)buf)[i];
    case MG_DOUBLE: return ((const double *)buf)[i];
    }
    return NAN;
}

/* ---- the steps -------------------------------------------------------------------------------- */

/* The algorithms, then one mg_advance program per (value type, combine), then three more. */
enum { ST_BFS, ST_SSSP, ST_CC, ST_PR, ST_PR_DD, ST_BC1, ST_BC3, ST_PROGRAMS };
#define STATE_TYPES 5
#define ST_AFFINE (ST_PROGRAMS + STATE_TYPES * 4)
#define ST_DIRECT_MIN (ST_AFFINE + 1)
#define ST_DIRECT_ADD (ST_AFFINE + 2)
#define STATE_OPS (ST_AFFINE + 3)
static const mg_type STATE_TYPE[STATE_TYPES] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE, MG_VERTEX};

typedef struct {
    int op;
    uint32_t graph;
    uint32_t source;
    int config;
} state_step;

/* The program of op (>= ST_PROGRAMS) and its value type. Every result is exact whatever the order
 * of the contributions: sums add small integers, min and max pick one value, and any gets one
 * constant. Apply ASSIGN and AFFINE go through the engines' accumulators; the last two are direct. */
static void state_program(int op, mg_program *p, mg_type *type, bool *masked, bool *constant_x) {
    mg_program_init(p);
    *masked = false;
    *constant_x = false;
    if (op < ST_AFFINE) {
        const int k = op - ST_PROGRAMS;
        *type = STATE_TYPE[k / 4];
        p->combine = (mg_combine)(k % 4);
        p->apply = MG_APPLY_ASSIGN;
        p->edges = k % 2 ? MG_EDGES_IN : MG_EDGES_OUT;
        p->contribution = p->combine == MG_COMBINE_SUM ? MG_CONTRIB_SRC_PLUS_ONE
                          : p->combine == MG_COMBINE_ANY ? MG_CONTRIB_SRC
                                                          : MG_CONTRIB_SRC_PLUS_WEIGHT;
        *constant_x = p->combine == MG_COMBINE_ANY;
        *masked = k % 3 == 0;
        return;
    }
    if (op == ST_AFFINE) { /* BC's backward gather: every eligible destination gets its sum or 0 */
        *type = MG_DOUBLE;
        p->combine = MG_COMBINE_SUM;
        p->apply = MG_APPLY_AFFINE;
        p->edges = MG_EDGES_IN;
        p->alpha = 2;
        p->beta = 1;
        *masked = true;
    } else if (op == ST_DIRECT_MIN) {
        *type = MG_INT64;
        p->contribution = MG_CONTRIB_SRC_PLUS_WEIGHT;
    } else {
        *type = MG_FLOAT;
        p->contribution = MG_CONTRIB_SRC_PLUS_ONE;
        p->combine = MG_COMBINE_SUM;
        p->apply = MG_APPLY_ADD;
    }
}

/* A step's result: the output values (and the output frontier's size for a program). */
typedef struct {
    mg_type type;
    uint32_t n;
    void *values;
    uint32_t out_count;
    mg_status status;
} state_result;

static mg_status state_configure(mg_context ctx, const state_config *c) {
    mg_status st = mg_context_set_backend(ctx, c->backend);
    if (st == MG_SUCCESS) st = mg_context_set_mode(ctx, c->mode);
    if (st == MG_SUCCESS) st = mg_context_set_engine(ctx, c->engine);
    return st;
}

/* Runs one step on ctx; with verify, also checks an algorithm's result with its serial verifier
 * (whose cached reference on the graph is keyed by the arguments: another state to exercise). */
static state_result state_run(mg_context ctx, mg_graph g, const state_step *s, bool verify) {
    const uint32_t n = mg_graph_num_vertices(g);
    const uint32_t three[3] = {0, n / 2, n - 1};
    const uint32_t nthree = n < 3 ? n : 3;
    state_result r = {MG_DOUBLE, n, NULL, 0, MG_SUCCESS};
    mg_vector x = NULL, y = NULL;
    mg_frontier in = NULL, mask = NULL, out = NULL;
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    mg_program p;
    bool masked = false, constant_x = false;
    void *host = NULL;
    if (s->op >= ST_PROGRAMS) state_program(s->op, &p, &r.type, &masked, &constant_x);
    else if (s->op == ST_BFS) r.type = MG_INT32;
    else if (s->op == ST_CC) r.type = MG_VERTEX;
    else if (s->op == ST_SSSP) r.type = mg_graph_weight_type(g) == MG_WEIGHT_FLOAT ? MG_DOUBLE : MG_INT64;
    r.values = calloc(n, 8);
    host = calloc(n, 8);
    mg_status st = r.values && host ? mg_vector_create(ctx, &y, g, r.type) : MG_OUT_OF_MEMORY;
    switch (s->op) {
    case ST_BFS:
        if (st == MG_SUCCESS) st = mg_bfs(ctx, g, s->source, y, NULL);
        if (st == MG_SUCCESS && verify) st = mg_check_bfs(ctx, g, s->source, y, NULL);
        break;
    case ST_SSSP:
        if (st == MG_SUCCESS) st = mg_sssp(ctx, g, s->source, 0, y);
        if (st == MG_SUCCESS && verify) st = mg_check_sssp(ctx, g, s->source, y);
        break;
    case ST_CC:
        if (st == MG_SUCCESS) st = mg_cc(ctx, g, y);
        if (st == MG_SUCCESS && verify) st = mg_check_cc(ctx, g, y);
        break;
    case ST_PR: case ST_PR_DD:
        /* topology-driven: a fixed number of iterations, so both runs do the same arithmetic;
         * data-driven: to a tolerance far below the comparison's (state_compare) */
        po.data_driven = s->op == ST_PR_DD;
        po.tolerance = po.data_driven ? 1e-9 : 0;
        po.max_iterations = po.data_driven ? 1000 : 30;
        if (st == MG_SUCCESS) st = mg_pagerank(ctx, g, &po, y);
        if (st == MG_SUCCESS && verify) st = mg_check_pagerank(ctx, g, &po, y);
        break;
    case ST_BC1: case ST_BC3: {
        const uint32_t *src = s->op == ST_BC1 ? &s->source : three;
        const uint32_t count = s->op == ST_BC1 ? 1 : nthree;
        if (st == MG_SUCCESS) st = mg_bc(ctx, g, src, count, y);
        if (st == MG_SUCCESS && verify) st = mg_check_bc(ctx, g, src, count, y);
        break;
    }
    default: /* a program: x and y from the vertex ids, from every third vertex (and the step's
              * source), into the even vertices where masked */
        if (st == MG_SUCCESS) st = mg_vector_create(ctx, &x, g, r.type);
        if (st == MG_SUCCESS) st = mg_frontier_create(ctx, &in, g);
        if (st == MG_SUCCESS) st = mg_frontier_create(ctx, &out, g);
        if (st == MG_SUCCESS && masked) st = mg_frontier_create(ctx, &mask, g);
        for (uint32_t v = 0; st == MG_SUCCESS && v < n; v++) {
            if (v % 3 == 0 || v == s->source) st = mg_frontier_add(ctx, in, v);
            if (st == MG_SUCCESS && masked && v % 2 == 0) st = mg_frontier_add(ctx, mask, v);
        }
        for (uint32_t v = 0; v < n && host; v++)
            state_put(host, r.type, v, constant_x ? 5 : (double)((v * 37) % 23) - 11);
        if (st == MG_SUCCESS) st = mg_vector_load(ctx, x, host);
        for (uint32_t v = 0; v < n && host; v++) state_put(host, r.type, v, (double)(v % 5) - 2);
        if (st == MG_SUCCESS) st = mg_vector_load(ctx, y, host);
        if (st == MG_SUCCESS) st = mg_advance(ctx, g, &p, in, x, y, mask, out);
        if (st == MG_SUCCESS) st = mg_frontier_count(ctx, out, &r.out_count);
        break;
    }
    if (st == MG_SUCCESS) st = mg_vector_extract(ctx, y, host);
    if (st == MG_SUCCESS)
        for (uint32_t v = 0; v < n; v++) ((double *)r.values)[v] = state_at(host, r.type, v);
    r.status = st;
    free(host);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_frontier_free(&in);
    mg_frontier_free(&mask);
    mg_frontier_free(&out);
    return r;
}

/* Equal: exactly, except PageRank and BC (sums of doubles in any order) within 1e-9 of the larger
 * value, and data-driven PageRank within 1e-6 (both runs are within ~1e-8 of the true ranks). */
static bool state_compare(const state_step *s, const state_result *got, const state_result *want,
                          const char *what) {
    if (got->out_count != want->out_count) {
        fprintf(stderr, "%s: the output frontier has %u vertices, a fresh context gives %u\n", what,
                got->out_count, want->out_count);
        return false;
    }
    for (uint32_t v = 0; v < got->n; v++) {
        const double a = ((const double *)got->values)[v], b = ((const double *)want->values)[v];
        const double tol = s->op == ST_PR_DD ? 1e-6
                           : s->op == ST_PR || s->op == ST_BC1 || s->op == ST_BC3
                               ? 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)))
                               : 0;
        if (!(a == b || fabs(a - b) <= tol)) {
            fprintf(stderr, "%s: vertex %u: %.17g, a fresh context gives %.17g\n", what, v, a, b);
            return false;
        }
    }
    return true;
}

static const char *const STATE_ALGOS[ST_PROGRAMS] = {"bfs", "sssp", "cc", "pr", "pr-dd", "bc", "bc-3"};

/* Runs `steps` seeded steps on one context ctx (already configured as needed by the caller: the
 * backend), each in configs[step.config], comparing each with a fresh context. Returns the number
 * of steps whose result differed. */
static int state_sequence(mg_context ctx, mg_graph g[STATE_GRAPHS], const state_config *configs,
                          int nconfigs, int steps, uint64_t seed) {
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1;
#define STATE_NEXT() (rng = rng * 6364136223846793005ULL + 1442695040888963407ULL, (uint32_t)(rng >> 33))
    state_step s = {ST_BC1, 0, 0, 0};
    int differed = 0;
    for (int t = 0; t < steps; t++) {
        /* half the time the same op and configuration on another graph, else a new one anywhere */
        const bool same_op = t > 0 && STATE_NEXT() % 2 == 0;
        if (!same_op) {
            s.op = (int)(STATE_NEXT() % STATE_OPS);
            s.config = (int)(STATE_NEXT() % (uint32_t)nconfigs);
        }
        const uint32_t before = s.graph;
        s.graph = STATE_NEXT() % STATE_GRAPHS;
        if (same_op && s.graph == before) s.graph = (s.graph + 1) % STATE_GRAPHS;
        const uint32_t n = mg_graph_num_vertices(g[s.graph]);
        s.source = STATE_NEXT() % n;

        char what[160];
        mg_program p;
        mg_type type = MG_DOUBLE;
        bool masked, constant_x;
        if (s.op >= ST_PROGRAMS) state_program(s.op, &p, &type, &masked, &constant_x);
        if (s.op < ST_PROGRAMS)
            snprintf(what, sizeof what, "step %d: %s on graph %u (n = %u, source %u), mode %d "
                     "engine %d", t, STATE_ALGOS[s.op], s.graph, n, s.source,
                     (int)configs[s.config].mode, (int)configs[s.config].engine);
        else
            snprintf(what, sizeof what, "step %d: program %d (type %d, combine %d, apply %d) on "
                     "graph %u (n = %u), mode %d engine %d", t, s.op - ST_PROGRAMS, (int)type,
                     (int)p.combine, (int)p.apply, s.graph, n, (int)configs[s.config].mode,
                     (int)configs[s.config].engine);

        mg_context fresh = NULL;
        CHECK_OK(ctx, state_configure(ctx, &configs[s.config]));
        CHECK_OK(fresh, mg_context_create(&fresh));
        CHECK_OK(fresh, state_configure(fresh, &configs[s.config]));
        state_result got = state_run(ctx, g[s.graph], &s, true);
        state_result want = state_run(fresh, g[s.graph], &s, false);
        if (got.status != MG_SUCCESS)
            fprintf(stderr, "%s: %s: %s\n", what, mg_status_string(got.status), mg_context_error(ctx));
        if (want.status != MG_SUCCESS)
            fprintf(stderr, "%s, fresh context: %s: %s\n", what, mg_status_string(want.status),
                    mg_context_error(fresh));
        CHECK(got.status == MG_SUCCESS);
        CHECK(want.status == MG_SUCCESS);
        const bool same = got.status == MG_SUCCESS && want.status == MG_SUCCESS &&
                          state_compare(&s, &got, &want, what);
        CHECK(same);
        differed += !same;
        free(got.values);
        free(want.values);
        mg_context_free(&fresh);
    }
#undef STATE_NEXT
    return differed;
}

#endif
