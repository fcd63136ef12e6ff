/*
 * test_engine.c — mg_advance against a brute-force evaluation of the same edge program, for every
 * value type, contribution, combine and apply rule, with and without frontiers, with no mask, a
 * mask of half the vertices or one of three (which a pull visits from its list), forced
 * push, forced pull and automatic choice, on 1 and 2 threads.
 */
#include "check.h"
#include "mgraph.h"
#include "program_reference.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { N = 257, M = 3000 };

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* The mask of a case: none, about half the vertices, or three (fewer than n / 64, so that a pull
 * visits them from the mask's list rather than its bitmap's words). */
enum { NO_MASK, HALF_MASK, FEW_MASK };

/* Runs one configuration and compares with brute force; returns the number of mismatches. */
static int run_case(mg_context ctx, mg_graph g, mg_type type, const mg_program *p, bool use_in,
                    int mask_kind, mg_mode mode) {
    const bool use_mask = mask_kind != NO_MASK;
    int bad = 0;
    const bool fp = type == MG_FLOAT || type == MG_DOUBLE;
    mg_vector x = NULL, y = NULL;
    mg_frontier in = NULL, mask = NULL, out = NULL;
    double xv[N], y0[N], got[N];
    bool in_set[N], mask_set[N];
    CHECK_OK(ctx, mg_vector_create(ctx, &x, g, type));
    CHECK_OK(ctx, mg_vector_create(ctx, &y, g, type));
    CHECK_OK(ctx, mg_frontier_create(ctx, &in, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &mask, g));
    CHECK_OK(ctx, mg_frontier_create(ctx, &out, g));
    for (uint32_t v = 0; v < N; v++) {
        xv[v] = fp ? (next_rand() % 1000) / 8.0 : (double)(next_rand() % 1000);
        y0[v] = (p->apply == MG_APPLY_IF_UNSET && next_rand() % 2) ? p->unset
                                                                   : (double)(next_rand() % 1200);
        in_set[v] = use_in ? next_rand() % 3 == 0 : true;
        mask_set[v] = mask_kind == FEW_MASK ? v % 97 == 5 : next_rand() % 2;
        CHECK_OK(ctx, mg_vector_set(ctx, x, v, xv[v]));
        CHECK_OK(ctx, mg_vector_set(ctx, y, v, y0[v]));
        if (use_in && in_set[v]) CHECK_OK(ctx, mg_frontier_add(ctx, in, v));
        if (mask_set[v]) CHECK_OK(ctx, mg_frontier_add(ctx, mask, v));
    }
    CHECK_OK(ctx, mg_context_set_mode(ctx, mode));
    CHECK_OK(ctx, mg_advance(ctx, g, p, use_in ? in : NULL, x, y, use_mask ? mask : NULL, out));
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));

    const uint64_t *off, *ioff;
    const uint32_t *idx, *iidx;
    const void *w;
    mg_graph_csr(g, &off, &idx, &w);
    mg_graph_csc(g, &ioff, &iidx, NULL);
    /* along MG_EDGES_OUT a destination's sources are its in-neighbours (CSC); along IN, the CSR */
    const bool along_out = p->edges == MG_EDGES_OUT;
    const uint64_t *doff = along_out ? ioff : off;
    const uint32_t *didx = along_out ? iidx : idx;
    for (uint32_t d = 0; d < N; d++) {
        double c = 0;
        bool found = false, eligible = !use_mask || (mask_set[d] != p->mask_complement);
        bool any_ok = false;
        double gv;
        CHECK_OK(ctx, mg_vector_get(ctx, y, d, &gv));
        got[d] = gv;
        for (uint64_t e = doff[d]; e < doff[d + 1] && eligible; e++) {
            uint32_t s = didx[e];
            if (!in_set[s]) continue;
            /* the weight of this edge: search the CSR row of the edge's source */
            uint32_t from = along_out ? s : d, to = along_out ? d : s;
            double wt = 1;
            for (uint64_t f = off[from]; f < off[from + 1]; f++)
                if (idx[f] == to) wt = ((const int32_t *)w)[f];
            const double cv = ref_contribution(p, type, xv[s], s, wt, (double)(off[s + 1] - off[s]));
            ref_combine(p, cv, gv, &c, &found, &any_ok);
        }
        double expect;
        const bool joins = ref_apply(p, fp, found, eligible, c, y0[d], &expect);
        const bool value_ok = ref_value_ok(p, fp, found, joins, any_ok, got[d], expect);
        bool in_out;
        CHECK_OK(ctx, mg_frontier_contains(ctx, out, d, &in_out));
        if (!value_ok || in_out != joins) {
            if (bad < 3)
                fprintf(stderr,
                        "  mismatch type %d contrib %d combine %d apply %d in %d mask %d mode %d: "
                        "vertex %u got %g expected %g, joined %d expected %d\n",
                        type, p->contribution, p->combine, p->apply, use_in, mask_kind, mode, d,
                        got[d], expect, in_out, joins);
            bad++;
        }
    }
    /* The output frontier's list form must agree with its bitmap: its count, and the vertices an
     * assign over it reaches (an assign reads a frontier's list). */
    uint32_t count = 0, listed = 0;
    mg_vector marks = NULL;
    CHECK_OK(ctx, mg_frontier_count(ctx, out, &count));
    CHECK_OK(ctx, mg_vector_create(ctx, &marks, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_assign(ctx, marks, NULL, 0));
    CHECK_OK(ctx, mg_vector_assign(ctx, marks, out, 1));
    for (uint32_t d = 0; d < N; d++) {
        bool inside;
        double mark;
        mg_frontier_contains(ctx, out, d, &inside);
        CHECK_OK(ctx, mg_vector_get(ctx, marks, d, &mark));
        if ((mark == 1) != inside) bad++;
        listed += inside;
    }
    CHECK(count == listed);
    mg_vector_free(&marks);
    mg_vector_free(&x);
    mg_vector_free(&y);
    mg_frontier_free(&in);
    mg_frontier_free(&mask);
    mg_frontier_free(&out);
    return bad;
}

int main(void) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_context_create(&ctx));
    uint32_t src[M], dst[M];
    int32_t w[M];
    for (int e = 0; e < M; e++) {
        /* skew: a few vertices get many edges, so pull and push differ in cost */
        src[e] = next_rand() % 4 == 0 ? next_rand() % 8 : next_rand() % N;
        dst[e] = next_rand() % N;
        w[e] = 1 + (int32_t)(next_rand() % 50);
    }
    mg_graph_options opts;
    mg_graph_options_init(&opts);
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, N, M, src, dst, w, MG_WEIGHT_INT32, &opts));

    const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE};
    const mg_apply applies[] = {MG_APPLY_MIN, MG_APPLY_MAX, MG_APPLY_IF_UNSET,
                                MG_APPLY_ASSIGN, MG_APPLY_ADD, MG_APPLY_AFFINE};
    const mg_mode modes[] = {MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_AUTO};
    int cases = 0, failed = 0;
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        for (int ti = 0; ti < 4; ti++)
            for (int k = MG_CONTRIB_SRC; k <= MG_CONTRIB_SRC_ID; k++)
                for (int c = MG_COMBINE_MIN; c <= MG_COMBINE_ANY; c++)
                    for (int a = 0; a < 6; a++)
                        for (int variant = 0; variant < 4; variant++) {
                            mg_type t = types[ti];
                            bool fp = t == MG_FLOAT || t == MG_DOUBLE;
                            if (k == MG_CONTRIB_SRC_DIV_OUTDEG && !fp) continue;
                            if (k == MG_CONTRIB_SRC_ID && fp) continue;
                            /* ANY with a value-dependent apply is only defined up to the choice */
                            if (c == MG_COMBINE_ANY && applies[a] != MG_APPLY_IF_UNSET &&
                                applies[a] != MG_APPLY_ASSIGN)
                                continue;
                            /* integer sums of products can overflow int32: keep SUM to small terms */
                            if (c == MG_COMBINE_SUM && k == MG_CONTRIB_SRC_TIMES_WEIGHT && !fp) continue;
                            mg_program p;
                            mg_program_init(&p);
                            p.contribution = (mg_contribution)k;
                            p.combine = (mg_combine)c;
                            p.apply = applies[a];
                            p.edges = variant & 1 ? MG_EDGES_IN : MG_EDGES_OUT;
                            if (k == MG_CONTRIB_SRC_DIV_OUTDEG) p.edges = MG_EDGES_OUT;
                            p.mask_complement = variant & 2;
                            p.alpha = fp ? 0.5 : 2;
                            p.beta = 3;
                            p.epsilon = 2.5;
                            for (int mi = 0; mi < 3; mi++) {
                                const bool use_in = (cases % 3) != 0;
                                const int mask_kind = cases % 2 ? NO_MASK : (cases / 2) % 2 ? FEW_MASK : HALF_MASK;
                                cases++;
                                int bad = run_case(ctx, g, t, &p, use_in, mask_kind, modes[mi]);
                                CHECK(bad == 0);
                                failed += bad != 0;
                            }
                        }
    }
    printf("engine: %d configurations, %d with mismatches\n", cases, failed);

    /* Bad calls are rejected with a message. */
    mg_vector vi = NULL, vf = NULL;
    mg_frontier f = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &vi, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &vf, g, MG_FLOAT));
    CHECK_OK(ctx, mg_frontier_create(ctx, &f, g));
    mg_program p;
    mg_program_init(&p);
    CHECK(mg_advance(ctx, g, &p, NULL, vi, vf, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "different value types") != NULL);
    CHECK(mg_advance(ctx, g, NULL, NULL, vi, vi, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_advance(ctx, g, &p, f, vi, vi, NULL, f) == MG_INVALID_ARGUMENT);
    p.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    CHECK(mg_advance(ctx, g, &p, NULL, vi, vi, NULL, NULL) == MG_INVALID_ARGUMENT);
    p.contribution = (mg_contribution)99;
    CHECK(mg_advance(ctx, g, &p, NULL, vi, vi, NULL, NULL) == MG_INVALID_ARGUMENT);
    mg_vector_free(&vi);
    CHECK(vi == NULL);
    mg_vector_free(&vf);
    mg_frontier_free(&f);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return check_report();
}
