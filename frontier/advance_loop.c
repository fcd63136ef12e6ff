/*
 * advance_loop.c — mg_advance_loop: steps of one edge program until the frontier runs dry (mgraph.h
 * states the loop it computes). The loop of mg_advance calls below is that definition and runs on
 * every backend. On a GPU context it hands stretches of steps to the device (mg__gpu_run_loop,
 * gpu_backend.cu): a road network's BFS has thousands of levels of a few thousand vertices each,
 * and a loop that asks the host after every level (each mg_advance reports its output's size) pays
 * a wait for the device per level, which was most of its time (docs/PERFORMANCE.md, issue 17).
 *
 * When a stretch is tried: when the frontier, at the graph's mean degree (at first) or at the
 * degree of the frontiers so far (after a host step), would be cheap to push (the push/pull rule's
 * bound, m / 32 edges). A stretch is one persistent kernel that stops by itself when the frontier
 * is empty or before a step past that bound, which the host then takes (where the engine may
 * pull); it is asked for as many steps as may be taken (MG__GPU_LOOP_MAX_STEPS at most).
 *
 * On the CPU, a growing mask's in-edges are kept from step to step (the members' edges, plus those
 * of each step's new members) and handed to the engine, whose push/pull rule needs the eligible
 * destinations' edges: counting them by a pass over every vertex each step was 15% of a
 * Kronecker-20 BFS on 2 cores (perf, session 33).
 */
#include "engine.h"

#include <math.h>

#ifdef MG_HAVE_CUDA
#include "frontier/gpu_engine.h"
#endif

#define LOOP "mg_advance_loop: "

#define TRY(call)                                                                                  \
    do {                                                                                           \
        status = (call);                                                                           \
        if (status != MG_SUCCESS) goto cleanup;                                                    \
    } while (0)

void mg_loop_options_init(mg_loop_options *o) {
    if (o == NULL) return;
    memset(o, 0, sizeof *o);
}

static mg_status check(mg_context ctx, const mg_graph g, const mg_frontier frontier, mg_vector y,
                       const mg_frontier mask, const mg_loop_options *o) {
    mg_status status;
    if ((status = mg__check_graph(ctx, g, LOOP "g")) != MG_SUCCESS) return status;
    if ((status = mg__check_frontier(ctx, frontier, LOOP "frontier")) != MG_SUCCESS) return status;
    if (frontier->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "frontier belongs to another graph");
    if ((status = mg__check_vector(ctx, y, LOOP "y")) != MG_SUCCESS) return status;
    if (y->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "y belongs to another graph");
    if (mask != NULL) {
        if ((status = mg__check_frontier(ctx, mask, LOOP "mask")) != MG_SUCCESS) return status;
        if (mask->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "mask belongs to another graph");
        if (mask == frontier) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "mask must differ from frontier");
    }
    if (o->mask_grows && mask == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->mask_grows needs a mask");
    if (o->step_of != NULL) {
        if ((status = mg__check_vector(ctx, o->step_of, LOOP "opts->step_of")) != MG_SUCCESS) return status;
        if (o->step_of->graph != g)
            return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->step_of belongs to another graph");
        if (o->step_of->type != MG_INT32 && o->step_of->type != MG_INT64)
            return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->step_of must be MG_INT32 or MG_INT64");
        if (o->step_of == y) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->step_of must differ from y");
        const int64_t last = o->first_step + (o->max_steps ? o->max_steps : g->n);
        if (o->step_of->type == MG_INT32 && (o->first_step < INT32_MIN || last > INT32_MAX))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             LOOP "opts->first_step %lld: the steps would not fit opts->step_of's int32",
                             (long long)o->first_step);
    }
    if (o->far != NULL) {
        if ((status = mg__check_frontier(ctx, o->far, LOOP "opts->far")) != MG_SUCCESS) return status;
        if (o->far->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->far belongs to another graph");
        if (o->far == frontier || o->far == mask)
            return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->far must differ from frontier and mask");
        if (isnan(o->far_from)) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "opts->far_from is NaN");
    }
    return MG_SUCCESS;
}

/* The in-edges (off) of out's vertices not yet in mask, added to *edges: mask's in-edges once mask
 * has grown by out. */
static mg_status add_new_edges(mg_context ctx, const uint64_t *off, const mg_frontier mask, const mg_frontier out,
                               uint64_t *edges) {
    mg_status status;
    if ((status = mg__frontier_need_list(ctx, out)) != MG_SUCCESS) return status;
    if ((status = mg__frontier_need_bitmap(ctx, mask)) != MG_SUCCESS) return status;
    const uint32_t *list = out->list;
    const uint64_t *bm = mask->bitmap;
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < (int64_t)out->count; i++) {
        const uint32_t v = list[i];
        if (!mg__bit_test(bm, v)) sum += off[v + 1] - off[v];
    }
    *edges += sum;
    return MG_SUCCESS;
}

/* Step k's output out, as the loop says; frontier becomes what is left of it (spare: scratch). */
static mg_status commit(mg_context ctx, const mg_loop_options *o, int64_t k, mg_frontier out,
                        mg_frontier frontier, mg_vector y, mg_frontier mask, mg_frontier spare) {
    mg_status status = MG_SUCCESS;
    if (o->step_of != NULL) TRY(mg_vector_assign(ctx, o->step_of, out, (double)(o->first_step + k)));
    if (o->mask_grows) TRY(mg_frontier_union(ctx, mask, out));
    if (o->far != NULL) {
        TRY(mg_frontier_select(ctx, spare, out, y, MG_GE, o->far_from));
        TRY(mg_frontier_union(ctx, o->far, spare));
        TRY(mg_frontier_select(ctx, frontier, out, y, MG_LT, o->far_from));
    } else {
        mg__frontier_swap(frontier, out);
    }
cleanup:
    return status;
}

mg_status mg_advance_loop(mg_context ctx, const mg_graph g, const mg_program *program,
                          mg_frontier frontier, const mg_vector x, mg_vector y, mg_frontier mask,
                          const mg_loop_options *opts, uint32_t *steps) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (steps != NULL) *steps = 0;
    mg_loop_options defaults;
    mg_loop_options_init(&defaults);
    const mg_loop_options *o = opts != NULL ? opts : &defaults;
    if (program == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, LOOP "program is NULL");
    if ((status = check(ctx, g, frontier, y, mask, o)) != MG_SUCCESS) return status;

    mg_frontier out = NULL, spare = NULL;
    uint32_t k = 0;
    TRY(mg_frontier_create(ctx, &out, g));
    if (o->far != NULL) TRY(mg_frontier_create(ctx, &spare, g));
    /* the growing mask's in-edges, by the offsets the CPU engine's pull reads (cpu_engine.c) */
    const bool track = o->mask_grows && g->dist == NULL && ctx->backend != MG_BACKEND_GPU;
    const uint64_t *pull_off = program->edges == MG_EDGES_OUT ? g->in.offsets : g->out.offsets;
    uint64_t mask_edges = 0;
    if (track) {
        TRY(mg__frontier_need_list(ctx, mask));
        mask_edges = mg__cpu_degree_sum(pull_off, mask->list, mask->count);
    }
#ifdef MG_HAVE_CUDA
    const uint64_t cheap = mg_graph_num_edges(g) / 32; /* sparse_engine.cu's kPushCheap */
    const uint32_t n = mg_graph_num_vertices(g);
    const double mean_degree = n ? (double)mg_graph_num_edges(g) / n : 0;
    /* a split graph's steps each end in an exchange between the ranks, which a stretch on the
     * device cannot make */
    bool try_device = g->dist == NULL && (double)frontier->count * mean_degree < (double)cheap;
    uint32_t largest = frontier->count;
    uint64_t seen_vertices = 0, seen_edges = 0;
#endif
    while (frontier->count > 0 && (o->max_steps == 0 || k < o->max_steps)) {
#ifdef MG_HAVE_CUDA
        if (ctx->backend == MG_BACKEND_GPU && try_device) {
            const uint32_t budget = o->max_steps == 0 ? UINT32_MAX : o->max_steps - k;
            mg__advance_call call = {ctx, g, program, frontier, x, y, mask, out, NULL, false, 0};
            uint32_t ran = 0;
            TRY(mg__gpu_run_loop(&call, o, o->first_step + k, budget, &largest, &ran));
            k += ran;
            if (ran > 0) continue;
            /* the first step was too costly to push: a host step, and no stretch until the
             * frontier looks cheap again */
            try_device = false;
        }
#endif
        TRY(mg__advance(ctx, g, program, frontier, x, y, mask, out, track ? &mask_edges : NULL));
        if (track) TRY(add_new_edges(ctx, pull_off, mask, out, &mask_edges));
        TRY(commit(ctx, o, k, out, frontier, y, mask, spare));
        k++;
#ifdef MG_HAVE_CUDA
        seen_vertices += ctx->last_advance.frontier_vertices;
        seen_edges += ctx->last_advance.frontier_edges;
        const double degree = seen_vertices ? (double)seen_edges / (double)seen_vertices : 0;
        try_device = g->dist == NULL && (double)frontier->count * degree < (double)cheap;
        largest = frontier->count;
#endif
    }
cleanup:
    if (steps != NULL) *steps = k;
    mg_frontier_free(&out);
    mg_frontier_free(&spare);
    return status;
}
