/*
 * pagerank.c — PageRank, topology-driven (power iteration) or data-driven (residual push).
 *
 * Both solve the "leaking" system y = d * A^T (y / outdeg) + (1 - d) / n, in which the rank of a
 * dangling vertex simply flows nowhere, and return y / sum(y). That is exactly the PageRank whose
 * dangling vertices spread their rank uniformly (networkx's definition): summing the leaking system
 * gives (1 - d) / sum(y) = 1 - d + d * dangling(y / sum(y)), so r = y / sum(y) satisfies
 * r = d * A^T (r / outdeg) + (d * dangling(r) + 1 - d) / n. Dangling vertices then need no pass of
 * their own, and the iteration is a single edge program.
 *
 * Topology-driven (Page, Brin, Motwani, Winograd 1999; LAGraph's LAGr_PageRank): the program
 * {x[s] / outdeg(s), SUM, AFFINE alpha = d, beta = (1 - d) / n} from all vertices, old into new,
 * until the L1 change of one iteration is below the tolerance. The leaking iterates are not those
 * of the dangling-spreading iteration, only their limit is the same; LDBC Graphalytics fixes the
 * iteration count, so opts->spread_each_iteration adds d * dangling(r) / n to every vertex in
 * each step (a reduce over the dangling vertices before it, whose sum joins the step's constant).
 *
 * Data-driven (residual push: Andersen, Chung and Lang, FOCS 2006; the "PageRank-push" of Galois
 * and Gunrock): rank p = 0, residual r = (1 - d) / n. Each round the active vertices move their
 * residual into p and push d * r / outdeg along their edges ({x[s] / outdeg(s), SUM, APPLY_ADD});
 * a vertex becomes active when its residual exceeds theta. Invariant: y = p + sum_k (d P)^k r, so
 * at the end |y - p|_1 <= |r|_1 / (1 - d). The loop stops when |r|_1 <= d * tol (checked each
 * round), which an empty frontier implies with theta = d * tol / n; then |y - p|_1 <= d tol / (1 - d),
 * the same bound as the power iteration stopped at L1 change tol (there |y_k+1 - y|_1 <=
 * d * tol / (1 - d) by the contraction), so both modes meet the same check (check_pagerank.c).
 * The push form does more work for that guarantee (residuals are positive, so nothing cancels:
 * about 25 pushes per vertex on Kronecker graphs where the power iteration needs 8 iterations).
 *
 * opts->single_precision runs the power iteration on float vectors, GAPBS's, LAGraph's and
 * Gunrock's choice: each edge gathers 4 bytes instead of 8, which on the CPU is most of a pull on a
 * power-law graph (the gathers miss the caches). Its iterates' rounding (about 6e-8 of each rank,
 * 1e-7 of L1 summed) is far below the tolerances it is for; below 1e-6 the L1 change could stall
 * on rounding, so those are refused. The last iterate goes into the caller's double vector, where
 * it is normalised.
 */
#include "algo_util.h"

#include <math.h>

void mg_pagerank_options_init(mg_pagerank_options *opts) {
    if (opts == NULL) return;
    opts->damping = 0.85;
    opts->tolerance = 1e-4;
    opts->max_iterations = 100;
    opts->data_driven = false;
    opts->iterations = 0;
    opts->spread_each_iteration = false;
    opts->single_precision = false;
    opts->change = 0;
}

/* rank (double) = the float vector from, normalised in double, through the host (once a run). */
static mg_status widen(mg_context ctx, const mg_graph g, const mg_vector from, mg_vector rank) {
    mg_status status = MG_SUCCESS;
    const uint32_t n = mg_graph_num_vertices(g);
    float *f = mg__algo_malloc(n, sizeof *f);
    double *d = mg__algo_malloc(n, sizeof *d);
    if (f == NULL || d == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_pagerank: out of host memory for %u ranks", n);
    TRY(mg_vector_extract(ctx, from, f));
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += f[i];
    const double scale = sum > 0 ? 1 / sum : 1;
    for (uint32_t i = 0; i < n; i++) d[i] = f[i] * scale;
    TRY(mg_vector_load(ctx, rank, d));
cleanup:
    mg__algo_free(f);
    mg__algo_free(d);
    return status;
}

/* Each mode leaves its unnormalised result in rank (the topology-driven one, given last, in the
 * vector *last names instead) and sets *converged. */
static mg_status topology_driven(mg_context ctx, const mg_graph g, mg_pagerank_options *o,
                                 mg_vector rank, mg_vector other, bool *converged, mg_vector *last) {
    mg_status status = MG_SUCCESS;
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector old = rank, new_ = other, degree = NULL;
    mg_frontier dangling = NULL;
    mg_program step;
    mg_program_init(&step);
    step.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    step.combine = MG_COMBINE_SUM;
    step.apply = MG_APPLY_AFFINE;
    step.alpha = o->damping;
    step.beta = (1 - o->damping) / n;

    if (o->spread_each_iteration) {
        TRY(mg_vector_create(ctx, &degree, g, MG_INT32));
        TRY(mg_vector_degree(ctx, degree, MG_EDGES_OUT));
        TRY(mg_frontier_create(ctx, &dangling, g));
        TRY(mg_frontier_select(ctx, dangling, NULL, degree, MG_EQ, 0));
    }
    TRY(mg_vector_assign(ctx, old, NULL, 1.0 / n));
    double change = INFINITY;
    o->iterations = 0;
    while (change >= o->tolerance && o->iterations < o->max_iterations) {
        if (dangling != NULL) {
            /* the dangling vertices' rank, spread over all: folded into the step's constant, so
             * it costs no pass over the vertices of its own */
            double lost;
            TRY(mg_vector_reduce(ctx, old, dangling, MG_OP_ADD, &lost));
            step.beta = (1 - o->damping) / n + o->damping * lost / n;
        }
        TRY(mg_advance(ctx, g, &step, NULL, old, new_, NULL, NULL));
        TRY(mg_vector_l1_distance(ctx, old, new_, &change));
        mg_vector t = old;
        old = new_;
        new_ = t;
        o->iterations++;
    }
    /* old holds the latest iterate: the caller's vector is handed back holding it, unless the
     * caller takes it where it is (last) */
    if (last != NULL) *last = old;
    else if (old != rank) TRY(mg_vector_affine(ctx, rank, NULL, 1, old, 0));
    o->change = change;
    /* tolerance 0 asks for exactly max_iterations iterations: done is converged */
    *converged = o->tolerance == 0 || change < o->tolerance;
cleanup:
    mg_vector_free(&degree);
    mg_frontier_free(&dangling);
    return status;
}

static mg_status data_driven(mg_context ctx, const mg_graph g, mg_pagerank_options *o,
                             mg_vector rank, mg_vector residual, mg_vector pushed, bool *converged) {
    mg_status status = MG_SUCCESS;
    mg_frontier active = NULL, next = NULL;
    const uint32_t n = mg_graph_num_vertices(g);
    const double theta = o->damping * o->tolerance / n;
    mg_program push;
    mg_program_init(&push);
    push.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    push.combine = MG_COMBINE_SUM;
    push.apply = MG_APPLY_ADD;
    push.epsilon = theta;

    TRY(mg_frontier_create(ctx, &active, g));
    TRY(mg_frontier_create(ctx, &next, g));
    TRY(mg_vector_assign(ctx, rank, NULL, 0));
    TRY(mg_vector_assign(ctx, residual, NULL, (1 - o->damping) / n));
    TRY(mg_frontier_fill(ctx, active));
    uint64_t pushes = 0;
    uint32_t count = n;
    while (count > 0) {
        if (pushes / n >= (uint64_t)o->max_iterations) break;
        pushes += count;
        /* pushed = d * r on the active vertices; their residual moves into the rank. */
        TRY(mg_vector_affine(ctx, pushed, active, o->damping, residual, 0));
        TRY(mg_vector_ewise(ctx, rank, active, MG_OP_ADD, rank, residual));
        TRY(mg_vector_assign(ctx, residual, active, 0));
        TRY(mg_advance(ctx, g, &push, active, pushed, residual, NULL, next));
        TRY(mg_frontier_count(ctx, next, &count));
        /* The bound needs only |r|_1 <= d * tol; it often holds long before every residual is
         * below theta. */
        double left;
        TRY(mg_vector_reduce(ctx, residual, NULL, MG_OP_ADD, &left));
        o->change = left;
        if (left <= o->damping * o->tolerance) count = 0;
        mg_frontier t = active;
        active = next;
        next = t;
    }
    o->iterations = (int)((pushes + n - 1) / n);
    *converged = count == 0;
cleanup:
    mg_frontier_free(&active);
    mg_frontier_free(&next);
    return status;
}

mg_status mg_pagerank(mg_context ctx, const mg_graph g, mg_pagerank_options *opts, mg_vector rank) {
    mg_status status = MG_SUCCESS;
    mg_vector work1 = NULL, work2 = NULL;
    mg_pagerank_options o;
    mg_pagerank_options_init(&o);
    if (opts != NULL) o = *opts;
    o.iterations = 0;

    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_pagerank: g"));
    TRY(mg__algo_check_vector(ctx, g, rank, MG_DOUBLE, "mg_pagerank: rank"));
    if (!(o.damping >= 0 && o.damping < 1))
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_pagerank: opts->damping %g must be in [0, 1)", o.damping);
    if (!(o.tolerance >= 0) || isinf(o.tolerance))
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_pagerank: opts->tolerance %g must be finite and >= 0",
             o.tolerance);
    if (o.data_driven && o.tolerance == 0)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_pagerank: data-driven PageRank needs opts->tolerance > 0 (0, a fixed number of "
             "iterations, is for the topology-driven mode)");
    if (o.data_driven && o.spread_each_iteration)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_pagerank: opts->spread_each_iteration is for the topology-driven mode (the "
             "data-driven one has no iterates)");
    if (o.single_precision && o.data_driven)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_pagerank: opts->single_precision is for the topology-driven mode (the data-driven "
             "one keeps its residuals in double)");
    if (o.single_precision && o.tolerance > 0 && o.tolerance < 1e-6)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_pagerank: opts->tolerance %g is below what float iterates can reach "
             "(opts->single_precision: 1e-6 at least, or 0 for a fixed count)", o.tolerance);
    if (o.max_iterations < 1)
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_pagerank: opts->max_iterations %d must be >= 1",
             o.max_iterations);
    const uint32_t n = mg_graph_num_vertices(g);
    if (n == 0) goto cleanup;

    bool converged = false;
    if (o.data_driven) {
        TRY(mg_vector_create(ctx, &work1, g, MG_DOUBLE));
        TRY(mg_vector_create(ctx, &work2, g, MG_DOUBLE));
        TRY(data_driven(ctx, g, &o, rank, work1, work2, &converged));
    } else if (o.single_precision) {
        /* both iterates in float; the result is widened into rank */
        TRY(mg_vector_create(ctx, &work1, g, MG_FLOAT));
        TRY(mg_vector_create(ctx, &work2, g, MG_FLOAT));
        mg_vector last = NULL;
        TRY(topology_driven(ctx, g, &o, work2, work1, &converged, &last));
        TRY(widen(ctx, g, last, rank)); /* normalised there */
    } else {
        TRY(mg_vector_create(ctx, &work1, g, MG_DOUBLE));
        TRY(topology_driven(ctx, g, &o, rank, work1, &converged, NULL));
    }
    /* Normalise even when not converged, so the caller gets the best estimate there is. */
    if (!o.single_precision) {
        double sum;
        TRY(mg_vector_reduce(ctx, rank, NULL, MG_OP_ADD, &sum));
        if (sum > 0) TRY(mg_vector_affine(ctx, rank, NULL, 1 / sum, rank, 0));
    }
    if (!converged)
        FAIL(ctx, MG_NOT_CONVERGED,
             "mg_pagerank: no convergence within opts->max_iterations = %d (%s)", o.max_iterations,
             o.data_driven ? "pushes per vertex" : "iterations");

cleanup:
    if (opts != NULL) {
        opts->iterations = o.iterations;
        opts->change = o.change;
    }
    mg_vector_free(&work1);
    mg_vector_free(&work2);
    return mg_ranks_end(ctx, status, "mg_pagerank");
}
