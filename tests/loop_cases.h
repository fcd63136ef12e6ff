/*
 * loop_cases.h — mg_advance_loop against its definition: the loop of mg_advance calls that mgraph.h
 * states, written out here with the public calls, run on a reference context (the CPU), and the
 * loop itself on the context under test (the CPU in tests/unit/test_advance_loop.c, the GPU in
 * tests/gpu/test_gpu_loop.c). Programs: BFS parents (ANY / IF_UNSET, depths in step_of, a growing
 * visited mask: the parents differ run to run, so they are checked to be parents), BFS depths by
 * MIN and a MAX propagation (unique answers, compared exactly), and near-far relaxation (a far pile);
 * with step limits that stop the loop on the way. BFS compares its depths (step_of), visited mask,
 * what is left of the frontier and the steps exactly; the in-place programs (x = y) their values,
 * and that step_of and the far pile hold exactly the vertices that joined (at or past far_from);
 * the trace must see every step.
 */
#ifndef MG_TEST_LOOP_CASES_H
#define MG_TEST_LOOP_CASES_H

#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LOOP_BFS = 0, LOOP_DEPTH_MIN, LOOP_MAX, LOOP_NEAR_FAR } loop_kind;
static const char *const LOOP_KIND_NAMES[] = {"bfs-parents", "depth-min", "max", "near-far"};

static unsigned long loop_traced_;
static void loop_count_trace(const mg_advance_info *info, void *user) {
    (void)info;
    (void)user;
    loop_traced_++;
}

/* A generated graph (max weight 20), built on ctx; NULL on failure (counted). */
static mg_graph loop_graph(mg_context ctx, mg_generator kind, int scale, uint32_t w, uint32_t h, bool directed,
                           mg_weight_type wt) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.width = w;
    o.height = h;
    o.weights = wt;
    o.weight_max = 20;
    o.graph.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &o));
    return g;
}

/* The definition, step by step with mg_advance (steps as the loop counts them). */
static mg_status loop_reference(mg_context ctx, mg_graph g, const mg_program *p, mg_frontier frontier,
                                mg_vector x, mg_vector y, mg_frontier mask, const mg_loop_options *o,
                                uint32_t *steps) {
    mg_frontier out = NULL, spare = NULL;
    mg_status st = mg_frontier_create(ctx, &out, g);
    if (st == MG_SUCCESS) st = mg_frontier_create(ctx, &spare, g);
    uint32_t k = 0, count = 0;
    if (st == MG_SUCCESS) st = mg_frontier_count(ctx, frontier, &count);
    while (st == MG_SUCCESS && count > 0 && (o->max_steps == 0 || k < o->max_steps)) {
        st = mg_advance(ctx, g, p, frontier, x, y, mask, out);
        if (st == MG_SUCCESS && o->step_of) st = mg_vector_assign(ctx, o->step_of, out, (double)(o->first_step + k));
        if (st == MG_SUCCESS && o->mask_grows) st = mg_frontier_union(ctx, mask, out);
        if (st == MG_SUCCESS && o->far) {
            st = mg_frontier_select(ctx, spare, out, y, MG_GE, o->far_from);
            if (st == MG_SUCCESS) st = mg_frontier_union(ctx, o->far, spare);
            if (st == MG_SUCCESS) st = mg_frontier_select(ctx, frontier, out, y, MG_LT, o->far_from);
        } else if (st == MG_SUCCESS) {
            st = mg_frontier_copy(ctx, frontier, out);
        }
        k++;
        if (st == MG_SUCCESS) st = mg_frontier_count(ctx, frontier, &count);
    }
    *steps = k;
    mg_frontier_free(&out);
    mg_frontier_free(&spare);
    return st;
}

/* A vector's values as doubles (NULL on failure). */
static double *loop_values(mg_context ctx, mg_vector v) {
    const uint32_t n = mg_vector_size(v);
    const mg_type t = mg_vector_type(v);
    const size_t es = t == MG_INT64 || t == MG_DOUBLE ? 8 : 4;
    void *raw = malloc((size_t)n * es + 8);
    double *d = malloc((size_t)n * sizeof *d + 8);
    if (raw == NULL || d == NULL || mg_vector_extract(ctx, v, raw) != MG_SUCCESS) {
        free(raw);
        free(d);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        switch (t) {
        case MG_INT32: case MG_VERTEX: d[i] = ((int32_t *)raw)[i]; break;
        case MG_INT64: d[i] = (double)((int64_t *)raw)[i]; break;
        case MG_FLOAT: d[i] = ((float *)raw)[i]; break;
        case MG_DOUBLE: d[i] = ((double *)raw)[i]; break;
        }
    }
    free(raw);
    return d;
}

/* A frontier as 0/1 per vertex. */
static double *loop_members(mg_context ctx, mg_graph g, mg_frontier f) {
    mg_vector v = NULL;
    double *d = NULL;
    if (mg_vector_create(ctx, &v, g, MG_INT32) == MG_SUCCESS && mg_vector_assign(ctx, v, NULL, 0) == MG_SUCCESS &&
        mg_vector_assign(ctx, v, f, 1) == MG_SUCCESS)
        d = loop_values(ctx, v);
    mg_vector_free(&v);
    return d;
}

static bool loop_same(const char *what, const double *a, const double *b, uint32_t n) {
    if (a == NULL || b == NULL) {
        fprintf(stderr, "  %s: could not be read\n", what);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])))) {
            fprintf(stderr, "  %s: vertex %u: loop %.17g, definition %.17g\n", what, i, a[i], b[i]);
            return false;
        }
    return true;
}

/* One case: kind with value type `type` from `source`, at most max_steps steps (0: no limit);
 * step_of of step_type (MG_INT32 / MG_INT64, or -1 for none). ctx runs mg_advance_loop, ref the
 * definition. Prints one line. */
static void loop_case(mg_context ctx, mg_context ref, mg_graph g, const char *graph, loop_kind kind, mg_type type,
                      int step_type, uint32_t source, uint32_t max_steps) {
    const uint32_t n = mg_graph_num_vertices(g);
    mg_program p;
    mg_program_init(&p);
    if (kind == LOOP_BFS) {
        p.contribution = MG_CONTRIB_SRC_ID;
        p.combine = MG_COMBINE_ANY;
        p.apply = MG_APPLY_IF_UNSET;
        p.mask_complement = true;
        type = MG_VERTEX;
    } else if (kind == LOOP_DEPTH_MIN) {
        p.contribution = MG_CONTRIB_SRC_PLUS_ONE;
    } else if (kind == LOOP_MAX) {
        p.contribution = MG_CONTRIB_SRC;
        p.combine = MG_COMBINE_MAX;
        p.apply = MG_APPLY_MAX;
    } else {
        p.contribution = MG_CONTRIB_SRC_PLUS_WEIGHT;
    }
    const int64_t first = step_type == MG_INT64 ? 5000000000ll : 3;
    mg_context cs[2] = {ctx, ref};
    mg_vector y[2] = {NULL, NULL}, step[2] = {NULL, NULL};
    mg_frontier f[2] = {NULL, NULL}, mask[2] = {NULL, NULL}, far[2] = {NULL, NULL};
    uint32_t steps[2] = {0, 0};
    mg_status st[2] = {MG_SUCCESS, MG_SUCCESS};
    for (int r = 0; r < 2; r++) {
        mg_context c = cs[r];
        CHECK_OK(c, mg_vector_create(c, &y[r], g, type));
        CHECK_OK(c, mg_frontier_create(c, &f[r], g));
        CHECK_OK(c, mg_frontier_add(c, f[r], source));
        if (kind == LOOP_BFS) {
            CHECK_OK(c, mg_vector_assign(c, y[r], NULL, -1));
            CHECK_OK(c, mg_vector_set(c, y[r], source, source));
            CHECK_OK(c, mg_frontier_create(c, &mask[r], g));
            CHECK_OK(c, mg_frontier_add(c, mask[r], source));
        } else if (kind == LOOP_MAX) {
            /* every vertex starts at its own id (an integer type), the source above them all */
            CHECK_OK(c, mg_vector_assign_ids(c, y[r], NULL));
            CHECK_OK(c, mg_vector_set(c, y[r], source, 2.0 * n));
        } else {
            CHECK_OK(c, mg_vector_assign(c, y[r], NULL, INFINITY));
            CHECK_OK(c, mg_vector_set(c, y[r], source, 0));
        }
        if (kind == LOOP_NEAR_FAR) CHECK_OK(c, mg_frontier_create(c, &far[r], g));
        if (step_type >= 0) {
            CHECK_OK(c, mg_vector_create(c, &step[r], g, (mg_type)step_type));
            CHECK_OK(c, mg_vector_assign(c, step[r], NULL, -7));
        }
        mg_loop_options o;
        mg_loop_options_init(&o);
        o.max_steps = max_steps;
        o.step_of = step[r];
        o.first_step = first;
        o.mask_grows = kind == LOOP_BFS;
        o.far = far[r];
        o.far_from = 40;
        const mg_vector x = kind == LOOP_BFS ? NULL : y[r];
        loop_traced_ = 0;
        if (r == 0) {
            CHECK_OK(c, mg_context_set_trace(c, loop_count_trace, NULL));
            st[r] = mg_advance_loop(c, g, &p, f[r], x, y[r], mask[r], &o, &steps[r]);
            CHECK_OK(c, mg_context_set_trace(c, NULL, NULL));
            CHECK(loop_traced_ == steps[r]);
        } else {
            st[r] = loop_reference(c, g, &p, f[r], x, y[r], mask[r], &o, &steps[r]);
        }
        CHECK_OK(c, st[r]);
    }
    /* x = y (in place): a step may see updates of the same step (mgraph.h allows it), so how many
     * steps the loop takes, when a vertex joins and what passes through the far pile depend on the
     * order the engine ran in; the values at the end do not. BFS's sets are exact. */
    const bool in_place = kind != LOOP_BFS;
    bool ok = st[0] == MG_SUCCESS && st[1] == MG_SUCCESS;
    if (!in_place && steps[0] != steps[1]) {
        fprintf(stderr, "  steps: loop %u, definition %u\n", steps[0], steps[1]);
        ok = false;
    }
    if (max_steps > 0 && steps[0] > max_steps) {
        fprintf(stderr, "  steps: %u past the limit %u\n", steps[0], max_steps);
        ok = false;
    }
    double *a = NULL, *b = NULL;
    if (in_place && max_steps == 0) {
        a = loop_values(ctx, y[0]), b = loop_values(ref, y[1]);
        ok = loop_same("y", a, b, n) && ok;
        /* joined at least once: y moved from its start (infinity, stored as INT32_MAX / INT64_MAX
         * in integers; the values reached here are far below 1e9) */
        double *d = step[0] ? loop_values(ctx, step[0]) : NULL;
        double *pile = far[0] ? loop_members(ctx, g, far[0]) : NULL;
        for (uint32_t v = 0; a && v < n; v++) {
            const bool joined = v != source && (kind == LOOP_MAX ? a[v] == 2.0 * n : a[v] < 1e9);
            if (d && (d[v] != -7) != joined) {
                fprintf(stderr, "  vertex %u: step_of %g, joined %d\n", v, d[v], (int)joined);
                ok = false;
                break;
            }
            if (d && joined && !(d[v] >= first && d[v] < first + steps[0])) {
                fprintf(stderr, "  vertex %u: step_of %g outside the %u steps\n", v, d[v], steps[0]);
                ok = false;
                break;
            }
            if (pile && (pile[v] != 0) != (pile[v] != 0 && joined)) {
                fprintf(stderr, "  vertex %u in the far pile without joining\n", v);
                ok = false;
                break;
            }
            if (far[0] && (!pile || (joined && a[v] >= 40 && pile[v] == 0))) {
                fprintf(stderr, "  vertex %u: y %g >= far_from but not in the far pile\n", v, a[v]);
                ok = false;
                break;
            }
        }
        uint32_t left = 1;
        CHECK_OK(ctx, mg_frontier_count(ctx, f[0], &left));
        if (left != 0) {
            fprintf(stderr, "  %u vertices left in the frontier with no step limit\n", left);
            ok = false;
        }
        free(a), free(b), free(d), free(pile);
    } else if (!in_place) {
        /* parents differ run to run: each reached vertex's parent is one level up */
        a = loop_values(ctx, y[0]);
        double *d = step[0] ? loop_values(ctx, step[0]) : NULL;
        double *ry = loop_values(ref, y[1]);
        for (uint32_t v = 0; a && ry && v < n; v++) {
            if ((a[v] < 0) != (ry[v] < 0)) {
                fprintf(stderr, "  vertex %u reached in one run only\n", v);
                ok = false;
                break;
            }
            if (d && a[v] >= 0 && v != source) {
                const uint32_t u = (uint32_t)a[v];
                const bool parent = u < n && (u == source ? d[v] == first : d[u] == d[v] - 1);
                if (!parent) {
                    fprintf(stderr, "  vertex %u: parent %u at step %g, itself at %g\n", v, u, u < n ? d[u] : -1, d[v]);
                    ok = false;
                    break;
                }
            }
        }
        if (a == NULL || ry == NULL) ok = false;
        free(a), free(ry), free(d);
        if (step[0]) {
            a = loop_values(ctx, step[0]), b = loop_values(ref, step[1]);
            ok = loop_same("step_of", a, b, n) && ok;
            free(a), free(b);
        }
        mg_frontier sets[2][2] = {{f[0], f[1]}, {mask[0], mask[1]}};
        const char *names[2] = {"frontier left", "mask"};
        for (int s = 0; s < 2; s++) {
            a = loop_members(ctx, g, sets[s][0]), b = loop_members(ref, g, sets[s][1]);
            ok = loop_same(names[s], a, b, n) && ok;
            uint32_t c0 = 0, c1 = 0;
            CHECK_OK(ctx, mg_frontier_count(ctx, sets[s][0], &c0));
            CHECK_OK(ref, mg_frontier_count(ref, sets[s][1], &c1));
            if (c0 != c1) fprintf(stderr, "  %s: count %u, definition %u\n", names[s], c0, c1);
            ok = ok && c0 == c1;
            free(a), free(b);
        }
    }
    CHECK(ok);
    printf("%-12s %-12s %-7s step_of %-5s max %-4u steps %-5u %s\n", graph, LOOP_KIND_NAMES[kind],
           type == MG_INT64 ? "int64" : type == MG_DOUBLE ? "double" : type == MG_FLOAT ? "float" : "int32",
           step_type < 0 ? "none" : step_type == MG_INT64 ? "int64" : "int32", max_steps, steps[0],
           ok ? "same as the definition" : "DIFFERENT");
    for (int r = 0; r < 2; r++) {
        mg_vector_free(&y[r]);
        mg_vector_free(&step[r]);
        mg_frontier_free(&f[r]);
        mg_frontier_free(&mask[r]);
        mg_frontier_free(&far[r]);
    }
}

#endif
