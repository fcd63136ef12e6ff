/*
 * test_cg.c — mg_cg on the CPU: the 2D Poisson problem solved back to a chosen x* (double and
 * float), the residual history, Jacobi on a badly scaled SPD matrix taking fewer iterations, a
 * non-symmetric matrix refused naming an entry (and the answer cached), an indefinite matrix giving
 * MG_BREAKDOWN with x as on entry, the iteration limit giving MG_NOT_CONVERGED with the last iterate,
 * b = 0, and bad arguments.
 */
#include "check.h"
#include "dense_vector.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <string.h>

static mg_context ctx;

static mg_matrix poisson2d(uint32_t side) {
    mg_matrix_gen_options o;
    mg_matrix_gen_options_init(&o);
    o.kind = MG_MATGEN_POISSON2D;
    o.side = side;
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_generate(ctx, &A, &o));
    return A;
}

static mg_dense vec(mg_type type, uint32_t rows, const double *v) {
    return test_vector(ctx, type, rows, v);
}

static double at(const mg_dense X, uint32_t i) { return test_entry(ctx, X, i); }

/* b = A x* for x*_i = sin(i) + 2, then CG from 0 back to x*. */
static void test_poisson(mg_type type) {
    const uint32_t side = 32, n = side * side;
    mg_matrix A = poisson2d(side);
    double *xs = malloc(n * sizeof *xs);
    for (uint32_t i = 0; i < n; i++) xs[i] = sin((double)i) + 2;
    mg_dense Xs = vec(type, n, xs), b = vec(type, n, NULL), x = vec(type, n, NULL);
    CHECK_OK(ctx, mg_spmv(ctx, A, Xs, b, NULL));
    mg_cg_options o;
    mg_cg_options_init(&o);
    CHECK(o.tolerance == 1e-8 && o.max_iterations == 1000 && !o.jacobi);
    o.tolerance = type == MG_DOUBLE ? 1e-10 : 1e-5;
    double hist[1001];
    o.residuals = hist;
    CHECK_OK(ctx, mg_cg(ctx, A, b, x, &o));
    CHECK(o.iterations > 10 && o.iterations < 1000);
    CHECK(o.residual <= o.tolerance);
    CHECK(o.seconds >= 0);
    CHECK(hist[0] == 1.0); /* x0 = 0: r0 = b */
    CHECK(hist[o.iterations] == o.residual);
    /* CG's residual norm need not fall every step, but it falls overall and never jumps */
    int jumps = 0;
    for (int k = 1; k <= o.iterations; k++) jumps += hist[k] > 10 * hist[k - 1];
    CHECK(jumps == 0);
    CHECK(hist[o.iterations] < hist[o.iterations / 2] && hist[o.iterations / 2] < hist[0]);
    double err = 0, norm = 0;
    for (uint32_t i = 0; i < n; i++) {
        err += (at(x, i) - xs[i]) * (at(x, i) - xs[i]);
        norm += xs[i] * xs[i];
    }
    /* cond(A) is about 400 at side 32: the error is at most cond * tolerance */
    CHECK(sqrt(err / norm) < (type == MG_DOUBLE ? 1e-7 : 1e-2));

    /* the iteration limit: MG_NOT_CONVERGED with the last iterate in x */
    mg_dense x3 = vec(type, n, NULL);
    o.max_iterations = 3;
    CHECK(mg_cg(ctx, A, b, x3, &o) == MG_NOT_CONVERGED);
    CHECK(strstr(mg_context_error(ctx), "3 iterations") != NULL);
    CHECK(o.iterations == 3 && o.residual > o.tolerance && o.residual == hist[3]);
    int moved = 0;
    for (uint32_t i = 0; i < n; i++) moved += at(x3, i) != 0;
    CHECK(moved > 0);
    /* 0 iterations allowed: x untouched, the initial residual reported */
    CHECK_OK(ctx, mg_dense_fill(ctx, x3, 0));
    o.max_iterations = 0;
    CHECK(mg_cg(ctx, A, b, x3, &o) == MG_NOT_CONVERGED);
    CHECK(o.iterations == 0 && o.residual == 1.0);

    /* b = 0: x = 0 at once */
    CHECK_OK(ctx, mg_dense_fill(ctx, x3, 5));
    CHECK_OK(ctx, mg_dense_fill(ctx, b, 0));
    o.max_iterations = 100;
    CHECK_OK(ctx, mg_cg(ctx, A, b, x3, &o));
    CHECK(o.iterations == 0 && at(x3, 0) == 0 && at(x3, n - 1) == 0);

    mg_dense_free(&Xs);
    mg_dense_free(&b);
    mg_dense_free(&x);
    mg_dense_free(&x3);
    free(xs);
    mg_matrix_free(&A);
}

/* S A S with S = diag(1 .. 30, geometric): SPD, its diagonal spread over three orders of magnitude.
 * Jacobi undoes the scaling; plain CG struggles. */
static void test_jacobi(void) {
    const uint32_t side = 16, n = side * side;
    mg_matrix P = poisson2d(side);
    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    CHECK_OK(ctx, mg_matrix_csr(P, &off, &idx, &vals));
    const uint64_t nnz = mg_matrix_nnz(P);
    uint32_t *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v), *s = malloc(n * sizeof *s);
    for (uint32_t i = 0; i < n; i++) s[i] = pow(30.0, (double)((i * 7919u) % n) / n);
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            r[e] = i;
            c[e] = idx[e];
            v[e] = ((const double *)vals)[e] * s[i] * s[idx[e]];
        }
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, n, n, nnz, r, c, v, MG_VALUES_DOUBLE));
    mg_dense b = vec(MG_DOUBLE, n, NULL), x1 = vec(MG_DOUBLE, n, NULL), x2 = vec(MG_DOUBLE, n, NULL);
    CHECK_OK(ctx, mg_dense_fill(ctx, b, 1));
    mg_cg_options plain, jac;
    mg_cg_options_init(&plain);
    plain.max_iterations = 5000;
    jac = plain;
    jac.jacobi = true;
    CHECK_OK(ctx, mg_cg(ctx, A, b, x1, &plain));
    CHECK_OK(ctx, mg_cg(ctx, A, b, x2, &jac));
    CHECK(jac.iterations * 2 < plain.iterations);
    /* both solve the system: A x = b */
    mg_dense Ax = vec(MG_DOUBLE, n, NULL);
    CHECK_OK(ctx, mg_spmv(ctx, A, x2, Ax, NULL));
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) worst = fmax(worst, fabs(at(Ax, i) - 1));
    CHECK(worst < 1e-6);

    /* a zero diagonal entry: Jacobi refused naming the row */
    mg_matrix Z = NULL;
    for (uint64_t e = 0; e < nnz; e++)
        if (r[e] == 5 && c[e] == 5) v[e] = 0;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &Z, n, n, nnz, r, c, v, MG_VALUES_DOUBLE));
    CHECK(mg_cg(ctx, Z, b, x1, &jac) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "A(5,5) = 0") != NULL);

    mg_matrix_free(&Z);
    mg_dense_free(&Ax);
    mg_dense_free(&b);
    mg_dense_free(&x1);
    mg_dense_free(&x2);
    mg_matrix_free(&A);
    mg_matrix_free(&P);
    free(r);
    free(c);
    free(v);
    free(s);
}

static void test_refused(void) {
    /* not symmetric: A(0,1) = 1 but A(1,0) = 2 */
    const uint32_t r[] = {0, 0, 1, 1, 2}, c[] = {0, 1, 0, 1, 2};
    const double v[] = {4, 1, 2, 4, 4};
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 3, 5, r, c, v, MG_VALUES_DOUBLE));
    const double one[] = {1, 1, 1};
    mg_dense b = vec(MG_DOUBLE, 3, one), x = vec(MG_DOUBLE, 3, NULL);
    CHECK(mg_cg(ctx, A, b, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "A(0,1) = 1 but A(1,0) = 2") != NULL);
    CHECK(A->symmetric_checked == -1);
    CHECK(mg_cg(ctx, A, b, x, NULL) == MG_INVALID_ARGUMENT); /* cached, same message */
    CHECK(strstr(mg_context_error(ctx), "A(0,1)") != NULL);
    mg_matrix_free(&A);
    /* an entry without a mirror */
    const uint32_t r2[] = {0, 1, 2, 2}, c2[] = {0, 1, 2, 0};
    const double v2[] = {4, 4, 4, 3};
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 3, 4, r2, c2, v2, MG_VALUES_DOUBLE));
    CHECK(mg_cg(ctx, A, b, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "A(0,2) = 0 but A(2,0) = 3") != NULL);
    mg_matrix_free(&A);

    /* indefinite: diag(1, -3, 1) from x0 = 0.5: p'Ap < 0 at once; x stays as on entry */
    const uint32_t d[] = {0, 1, 2};
    const double dv[] = {1, -3, 1};
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 3, 3, d, d, dv, MG_VALUES_DOUBLE));
    CHECK_OK(ctx, mg_dense_fill(ctx, x, 0.5));
    mg_cg_options o;
    mg_cg_options_init(&o);
    CHECK(mg_cg(ctx, A, b, x, &o) == MG_BREAKDOWN);
    CHECK(strstr(mg_context_error(ctx), "iteration 1") != NULL);
    CHECK(at(x, 0) == 0.5 && at(x, 1) == 0.5 && at(x, 2) == 0.5);
    CHECK(A->symmetric_checked == 1);

    /* bad arguments, each named */
    mg_matrix R = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &R, 3, 4, 3, d, d, dv, MG_VALUES_DOUBLE));
    mg_dense b4 = vec(MG_DOUBLE, 4, NULL), bf = vec(MG_FLOAT, 3, NULL), b2 = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &b2, 3, 2, MG_DOUBLE));
    CHECK(mg_cg(ctx, R, b, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "A is 3 x 4") != NULL);
    CHECK(mg_cg(ctx, A, b4, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "b has 4 rows but A has 3") != NULL);
    CHECK(mg_cg(ctx, A, bf, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "x and b must both be") != NULL);
    CHECK(mg_cg(ctx, A, b2, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "b has 2 columns") != NULL);
    CHECK(mg_cg(ctx, A, b, b, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "same object") != NULL);
    CHECK(mg_cg(ctx, NULL, b, x, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_cg: A is NULL") != NULL);
    o.tolerance = 0;
    CHECK(mg_cg(ctx, A, b, x, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "opts->tolerance") != NULL);
    o.tolerance = 1e-8;
    o.max_iterations = -1;
    CHECK(mg_cg(ctx, A, b, x, &o) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "opts->max_iterations = -1") != NULL);
    CHECK(at(x, 0) == 0.5);

    mg_dense_free(&b4);
    mg_dense_free(&bf);
    mg_dense_free(&b2);
    mg_matrix_free(&R);
    mg_matrix_free(&A);
    mg_dense_free(&b);
    mg_dense_free(&x);
}

/* An undirected graph's adjacency plus a large diagonal is SPD; its view is checked symmetric. */
static void test_graph_view_symmetric(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.scale = 8;
    go.edge_factor = 4;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_graph_matrix(ctx, g, &A));
    const uint32_t n = mg_matrix_rows(A);
    mg_dense b = vec(MG_DOUBLE, n, NULL), x = vec(MG_DOUBLE, n, NULL);
    CHECK_OK(ctx, mg_dense_fill(ctx, b, 1));
    /* the adjacency alone is indefinite (trace 0): breakdown or no convergence, never success */
    mg_status st = mg_cg(ctx, A, b, x, NULL);
    CHECK(st == MG_BREAKDOWN || st == MG_NOT_CONVERGED);
    CHECK(A->symmetric_checked == 1);
    mg_dense_free(&b);
    mg_dense_free(&x);
    mg_matrix_free(&A);
    mg_graph_free(&g);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_poisson(MG_DOUBLE);
    test_poisson(MG_FLOAT);
    test_jacobi();
    test_refused();
    test_graph_view_symmetric();
    mg_context_free(&ctx);
    return check_report();
}
