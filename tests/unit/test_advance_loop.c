/*
 * test_advance_loop.c — mg_advance_loop on the CPU: every case of tests/loop_cases.h against the
 * loop of mg_advance calls that defines it (a grid of many levels, R-MAT directed and undirected,
 * a path), step limits included; then every argument it rejects, each with a message naming it and
 * nothing changed.
 */
#include "loop_cases.h"

#include <stdio.h>

static mg_context ctx, ref;

static void cases(mg_graph g, const char *name, uint32_t source) {
    static const uint32_t limits[] = {0, 1, 3, 40};
    for (int l = 0; l < 4; l++) {
        loop_case(ctx, ref, g, name, LOOP_BFS, MG_VERTEX, MG_INT32, source, limits[l]);
        loop_case(ctx, ref, g, name, LOOP_NEAR_FAR, MG_INT64, -1, source, limits[l]);
    }
    loop_case(ctx, ref, g, name, LOOP_BFS, MG_VERTEX, MG_INT64, source, 0);
    loop_case(ctx, ref, g, name, LOOP_BFS, MG_VERTEX, -1, source, 0);
    loop_case(ctx, ref, g, name, LOOP_DEPTH_MIN, MG_INT32, MG_INT32, source, 0);
    loop_case(ctx, ref, g, name, LOOP_DEPTH_MIN, MG_FLOAT, MG_INT64, source, 7);
    loop_case(ctx, ref, g, name, LOOP_MAX, MG_INT64, MG_INT32, source, 0);
    loop_case(ctx, ref, g, name, LOOP_NEAR_FAR, MG_DOUBLE, MG_INT32, source, 0);
}

/* A call that must fail with MG_INVALID_ARGUMENT naming `what`, leaving y unchanged. */
static void rejects(mg_graph g, const mg_program *p, mg_frontier f, mg_vector x, mg_vector y, mg_frontier mask,
                    const mg_loop_options *o, const char *what) {
    double before = 0, after = 0;
    CHECK_OK(ctx, mg_vector_get(ctx, y, 1, &before));
    uint32_t steps = 99;
    mg_status st = mg_advance_loop(ctx, g, p, f, x, y, mask, o, &steps);
    CHECK(st == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), what) != NULL);
    if (strstr(mg_context_error(ctx), what) == NULL) fprintf(stderr, "  message: %s\n", mg_context_error(ctx));
    CHECK(steps == 0);
    CHECK_OK(ctx, mg_vector_get(ctx, y, 1, &after));
    CHECK(before == after);
}

static void errors(mg_graph g, mg_graph other) {
    mg_vector y = NULL, y32 = NULL, fl = NULL, alien = NULL;
    mg_frontier f = NULL, mask = NULL, far = NULL, stray = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &y, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &y32, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &fl, g, MG_FLOAT));
    CHECK_OK(ctx, mg_vector_create(ctx, &alien, other, MG_INT32));
    CHECK_OK(ctx, mg_vector_assign(ctx, y, NULL, INFINITY));
    CHECK_OK(ctx, mg_vector_set(ctx, y, 0, 0));
    CHECK_OK(ctx, mg_frontier_create(ctx, &f, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &mask, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &far, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &stray, other));
    CHECK_OK(ctx, mg_frontier_add(ctx, f, 0));
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_PLUS_WEIGHT;
    mg_loop_options o;

    rejects(g, NULL, f, y, y, NULL, NULL, "program is NULL");
    rejects(g, &p, stray, y, y, NULL, NULL, "frontier belongs to another graph");
    rejects(g, &p, f, y, y, f, NULL, "mask must differ from frontier");
    rejects(g, &p, f, y, y, stray, NULL, "mask belongs to another graph");
    mg_loop_options_init(&o);
    o.mask_grows = true;
    rejects(g, &p, f, y, y, NULL, &o, "mask_grows needs a mask");
    mg_loop_options_init(&o);
    o.step_of = fl;
    rejects(g, &p, f, y, y, NULL, &o, "step_of must be MG_INT32 or MG_INT64");
    o.step_of = alien;
    rejects(g, &p, f, y, y, NULL, &o, "step_of belongs to another graph");
    o.step_of = y;
    rejects(g, &p, f, y, y, NULL, &o, "step_of must differ from y");
    o.step_of = y32;
    o.first_step = INT32_MAX;
    rejects(g, &p, f, y, y, NULL, &o, "would not fit opts->step_of's int32");
    mg_loop_options_init(&o);
    o.far = f;
    rejects(g, &p, f, y, y, NULL, &o, "far must differ from frontier and mask");
    o.far = mask;
    rejects(g, &p, f, y, y, mask, &o, "far must differ from frontier and mask");
    o.far = stray;
    rejects(g, &p, f, y, y, NULL, &o, "far belongs to another graph");
    o.far = far;
    o.far_from = NAN;
    rejects(g, &p, f, y, y, NULL, &o, "far_from is NaN");
    /* a bad program is mg_advance's to name, from the first step */
    p.combine = (mg_combine)42;
    rejects(g, &p, f, y, y, NULL, NULL, "unknown combine");
    p.combine = MG_COMBINE_MIN;

    /* an empty frontier: no step, nothing changed */
    uint32_t steps = 9;
    CHECK_OK(ctx, mg_frontier_clear(ctx, f));
    CHECK_OK(ctx, mg_advance_loop(ctx, g, &p, f, y, y, NULL, NULL, &steps));
    CHECK(steps == 0);
    mg_vector_free(&y);
    mg_vector_free(&y32);
    mg_vector_free(&fl);
    mg_vector_free(&alien);
    mg_frontier_free(&f);
    mg_frontier_free(&mask);
    mg_frontier_free(&far);
    mg_frontier_free(&stray);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS || mg_context_create(&ref) != MG_SUCCESS) return 1;
    CHECK_OK(ref, mg_context_set_threads(ref, 1));
    mg_graph grid = loop_graph(ctx, MG_GEN_GRID, 0, 40, 30, false, MG_WEIGHT_INT32);
    mg_graph rmat = loop_graph(ctx, MG_GEN_RMAT, 10, 0, 0, false, MG_WEIGHT_INT32);
    mg_graph directed = loop_graph(ctx, MG_GEN_RMAT, 10, 0, 0, true, MG_WEIGHT_FLOAT);
    mg_graph path = loop_graph(ctx, MG_GEN_GRID, 0, 300, 1, false, MG_WEIGHT_INT32);
    if (grid && rmat && directed && path) {
        cases(grid, "grid 40x30", 615);
        cases(rmat, "rmat 10", 0);
        cases(directed, "rmat 10 dir", 1);
        cases(path, "path 300", 0);
        errors(grid, rmat);
    }
    mg_graph_free(&grid);
    mg_graph_free(&rmat);
    mg_graph_free(&directed);
    mg_graph_free(&path);
    mg_context_free(&ctx);
    mg_context_free(&ref);
    return check_report();
}
