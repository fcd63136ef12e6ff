/*
 * cg.c — mg_cg: preconditioned conjugate gradients (Hestenes, Stiefel 1952; the PCG of Saad,
 * "Iterative Methods for Sparse Linear Systems", Algorithm 9.1) for a symmetric positive definite
 * A, optionally with the Jacobi preconditioner diag(A)^-1.
 *
 * The public call checks the arguments and A's symmetry (once per matrix, cached on it), makes the
 * Jacobi inverse diagonal, and runs the CPU loop below or the GPU's (cg_gpu.cu). The CPU loop keeps
 * its vectors in b's type and sums every dot product in double; the SpMV is the CPU engine's
 * (spmv_cpu.c) and the vector updates of one iteration are one pass over memory that also returns
 * the new r'r and r'z.
 */
#include "sparse/sparse_internal.h"

#include <math.h>
#include <omp.h>

void mg_cg_options_init(mg_cg_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->tolerance = 1e-8;
    opts->max_iterations = 1000;
    opts->jacobi = false;
    opts->residuals = NULL;
}

/* ---- symmetry ---------------------------------------------------------------------------------- */

static double matrix_value(const mg_matrix A, const void *vals, uint64_t e) {
    if (vals == NULL) return 1.0;
    return A->values == MG_VALUES_FLOAT ? ((const float *)vals)[e] : ((const double *)vals)[e];
}

/* Row i of A (CSR) against column i (CSC): the same columns with the same values when A is
 * symmetric. On the first difference, *j is the other index and *mirror_missing / the values
 * say what differs: A(i,j) = *aij while A(j,i) = *aji. Returns false on a difference. */
static bool row_matches_column(const mg_matrix A, uint32_t i, const uint64_t *ro, const uint32_t *ri,
                               const void *rv, const uint64_t *co, const uint32_t *ci,
                               const void *cv, uint32_t *j, double *aij, double *aji) {
    uint64_t p = ro[i], q = co[i];
    const uint64_t pe = ro[i + 1], qe = co[i + 1];
    while (p < pe || q < qe) {
        const uint32_t rj = p < pe ? ri[p] : UINT32_MAX, cj = q < qe ? ci[q] : UINT32_MAX;
        if (rj == cj) {
            const double a = matrix_value(A, rv, p), b = matrix_value(A, cv, q);
            if (!(a == b)) {
                *j = rj, *aij = a, *aji = b;
                return false;
            }
            p++, q++;
        } else if (rj < cj) { /* A(i, rj) stored, A(rj, i) not */
            *j = rj, *aij = matrix_value(A, rv, p), *aji = 0;
            return false;
        } else { /* A(cj, i) stored, A(i, cj) not */
            *j = cj, *aij = 0, *aji = matrix_value(A, cv, q);
            return false;
        }
    }
    return true;
}

/* Compares A with its transpose once and caches the answer in A->symmetric_checked; the message
 * names the first row with an entry whose mirror differs. */
static mg_status check_symmetric(mg_context ctx, const mg_matrix A) {
    mg_status status = MG_SUCCESS;
    const uint64_t *ro, *co;
    const uint32_t *ri, *ci;
    const void *rv, *cv;
    if (A->symmetric_checked == 0) {
        MG__TRY(mg_matrix_csr(A, &ro, &ri, &rv));
        MG__TRY(mg_matrix_csc(ctx, A, &co, &ci, &cv));
        uint32_t bad = UINT32_MAX;
        const int64_t n = A->rows;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad)
        for (int64_t i = 0; i < n; i++) {
            uint32_t j;
            double a, b;
            if ((uint32_t)i < bad && !row_matches_column(A, (uint32_t)i, ro, ri, rv, co, ci, cv, &j, &a, &b))
                bad = (uint32_t)i;
        }
        A->symmetric_checked = bad == UINT32_MAX ? 1 : -1;
    }
    if (A->symmetric_checked < 0) {
        MG__TRY(mg_matrix_csr(A, &ro, &ri, &rv));
        MG__TRY(mg_matrix_csc(ctx, A, &co, &ci, &cv));
        for (uint32_t i = 0; i < A->rows; i++) {
            uint32_t j;
            double a, b;
            if (!row_matches_column(A, i, ro, ri, rv, co, ci, cv, &j, &a, &b))
                MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                         "mg_cg: A is not symmetric: A(%u,%u) = %.17g but A(%u,%u) = %.17g%s "
                         "(0-based row, column)",
                         i, j, a, j, i, b, (a == 0 || b == 0) ? " (0: not stored)" : "");
        }
    }
cleanup:
    return status;
}

/* inv_diag[i] = 1 / A(i,i), every diagonal entry present and > 0. */
static mg_status jacobi_diagonal(mg_context ctx, const mg_matrix A, double *inv_diag) {
    mg_status status = MG_SUCCESS;
    const uint64_t *off;
    const uint32_t *idx;
    const void *vals;
    MG__TRY(mg_matrix_csr(A, &off, &idx, &vals));
    uint32_t bad = UINT32_MAX;
    const int64_t n = A->rows;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t i = 0; i < n; i++) {
        double d = 0;
        for (uint64_t e = off[i]; e < off[i + 1]; e++)
            if (idx[e] == (uint32_t)i) d += matrix_value(A, vals, e);
        if (d > 0 && isfinite(d)) inv_diag[i] = 1.0 / d;
        else if ((uint32_t)i < bad) bad = (uint32_t)i;
    }
    if (bad != UINT32_MAX) {
        double d = 0;
        for (uint64_t e = off[bad]; e < off[bad + 1]; e++)
            if (idx[e] == bad) d += matrix_value(A, vals, e);
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_cg: opts->jacobi needs a positive diagonal but A(%u,%u) = %.17g%s", bad, bad, d,
                 d == 0 ? " (not stored)" : "");
    }
cleanup:
    return status;
}

/* ---- the CPU loop ------------------------------------------------------------------------------ */

/* A dense vector object over an array of this loop, so the SpMV engine can take it. */
static struct mg_dense_s vector_view(uint32_t n, mg_type type, void *data) {
    struct mg_dense_s v;
    memset(&v, 0, sizeof v);
    v.magic = MG__MAGIC_DENSE;
    v.rows = n;
    v.cols = 1;
    v.type = type;
    v.data = data;
    return v;
}

/* The PCG loop on the host for vectors of C type T, TYPE's loop named cg_TYPE. Vectors x (the
 * iterate, a copy of the caller's), r, p, q = A p and z = M r (z is r without a preconditioner).
 * Dot products are summed in double. */
#define CG_LOOP(T, MGT)                                                                            \
    static mg_status cg_##T(mg_context ctx, const mg_matrix A, const T *restrict b,               \
                            T *restrict x, const double *restrict inv_diag, mg_cg_options *o,      \
                            T *restrict r, T *restrict p, T *restrict q, T *restrict z) {          \
        mg_status status = MG_SUCCESS;                                                             \
        const int64_t n = A->rows;                                                                 \
        mg_spmv_options mv;                                                                        \
        mg_spmv_options_init(&mv);                                                                 \
        struct mg_dense_s xv = vector_view((uint32_t)n, MGT, x), pv = vector_view((uint32_t)n, MGT, p), \
                          qv = vector_view((uint32_t)n, MGT, q);                                  \
        if (inv_diag == NULL) z = r;                                                               \
        double bb = 0, rr = 0, rz = 0;                                                             \
        MG__TRY(mg__cpu_spmv(ctx, A, &xv, &qv, &mv));                                             \
        _Pragma("omp parallel for schedule(static) reduction(+ : bb, rr, rz)")                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T ri = (T)((double)b[i] - (double)q[i]);                                         \
            const T zi = inv_diag ? (T)(inv_diag[i] * ri) : ri;                                    \
            r[i] = ri;                                                                             \
            z[i] = zi;                                                                             \
            p[i] = zi;                                                                             \
            bb += (double)b[i] * b[i];                                                             \
            rr += (double)ri * ri;                                                                 \
            rz += (double)ri * zi;                                                                 \
        }                                                                                          \
        const double bnorm = sqrt(bb);                                                             \
        double res = sqrt(rr) / bnorm;                                                             \
        o->iterations = 0;                                                                         \
        if (o->residuals) o->residuals[0] = res;                                                   \
        int k = 0;                                                                                 \
        while (!(res <= o->tolerance)) {                                                           \
            if (!isfinite(res))                                                                    \
                MG__FAIL(ctx, MG_BREAKDOWN, "mg_cg: the residual is %g at iteration %d", res, k);  \
            if (k == o->max_iterations) {                                                          \
                status = mg__error(ctx, MG_NOT_CONVERGED,                                          \
                                   "mg_cg: %d iterations left the relative residual at %.3g, "     \
                                   "above opts->tolerance = %.3g",                                 \
                                   k, res, o->tolerance);                                          \
                break;                                                                             \
            }                                                                                      \
            k++;                                                                                   \
            MG__TRY(mg__cpu_spmv(ctx, A, &pv, &qv, &mv));                                         \
            double pq = 0;                                                                         \
            _Pragma("omp parallel for schedule(static) reduction(+ : pq)")                         \
            for (int64_t i = 0; i < n; i++) pq += (double)p[i] * q[i];                             \
            if (!(pq > 0) || !isfinite(pq))                                                        \
                MG__FAIL(ctx, MG_BREAKDOWN,                                                        \
                         "mg_cg: p'Ap = %g at iteration %d (A is not positive definite)", pq, k); \
            const double alpha = rz / pq;                                                          \
            if (!isfinite(alpha))                                                                  \
                MG__FAIL(ctx, MG_BREAKDOWN, "mg_cg: alpha = %g at iteration %d", alpha, k);        \
            double rr_new = 0, rz_new = 0;                                                         \
            _Pragma("omp parallel for schedule(static) reduction(+ : rr_new, rz_new)")             \
            for (int64_t i = 0; i < n; i++) {                                                      \
                x[i] = (T)(x[i] + alpha * p[i]);                                                   \
                const T ri = (T)(r[i] - alpha * q[i]);                                             \
                r[i] = ri;                                                                         \
                const T zi = inv_diag ? (T)(inv_diag[i] * ri) : ri;                                \
                z[i] = zi;                                                                         \
                rr_new += (double)ri * ri;                                                         \
                rz_new += (double)ri * zi;                                                         \
            }                                                                                      \
            res = sqrt(rr_new) / bnorm;                                                            \
            if (o->residuals) o->residuals[k] = res;                                               \
            o->iterations = k;                                                                     \
            const double beta = rz_new / rz;                                                       \
            if (!isfinite(beta))                                                                   \
                MG__FAIL(ctx, MG_BREAKDOWN, "mg_cg: beta = %g at iteration %d", beta, k);          \
            rz = rz_new;                                                                           \
            _Pragma("omp parallel for schedule(static)")                                           \
            for (int64_t i = 0; i < n; i++) p[i] = (T)(z[i] + beta * p[i]);                        \
        }                                                                                          \
        o->residual = res;                                                                         \
    cleanup:                                                                                       \
        return status;                                                                             \
    }

CG_LOOP(float, MG_FLOAT)
CG_LOOP(double, MG_DOUBLE)

/* Runs the loop on copies, so that x changes only when it ends with a result (success or the
 * iteration limit), never on a breakdown. */
static mg_status cpu_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x,
                        const double *inv_diag, mg_cg_options *o) {
    mg_status status = MG_SUCCESS;
    const size_t n = A->rows, size = mg__type_size(x->type);
    void *work = mg__malloc(mg__mul_size(5 * n, size));
    if (work == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_cg: out of memory for 5 vectors of %zu values", n);
    char *w = work;
    memcpy(w, x->data, n * size);
    if (x->type == MG_FLOAT)
        status = cg_float(ctx, A, b->data, (float *)w, inv_diag, o, (float *)(w + n * size),
                          (float *)(w + 2 * n * size), (float *)(w + 3 * n * size),
                          (float *)(w + 4 * n * size));
    else
        status = cg_double(ctx, A, b->data, (double *)w, inv_diag, o, (double *)(w + n * size),
                           (double *)(w + 2 * n * size), (double *)(w + 3 * n * size),
                           (double *)(w + 4 * n * size));
    if (status == MG_SUCCESS || status == MG_NOT_CONVERGED) memcpy(x->data, w, n * size);
cleanup:
    mg__free(work);
    return status;
}

/* ---- the public call --------------------------------------------------------------------------- */

static bool all_zero(const mg_dense b) {
    const size_t n = b->rows;
    if (b->type == MG_FLOAT) {
        for (size_t i = 0; i < n; i++)
            if (((const float *)b->data)[i] != 0) return false;
    } else {
        for (size_t i = 0; i < n; i++)
            if (((const double *)b->data)[i] != 0) return false;
    }
    return true;
}

mg_status mg_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x, mg_cg_options *opts) {
    mg_status status = mg__check_context(ctx);
    double *inv_diag = NULL;
    if (status != MG_SUCCESS) return status;
    mg_cg_options defaults;
    if (opts == NULL) {
        mg_cg_options_init(&defaults);
        opts = &defaults;
    }
    MG__TRY(mg__check_matrix(ctx, A, "mg_cg: A"));
    MG__TRY(mg__check_dense(ctx, b, "mg_cg: b"));
    MG__TRY(mg__check_dense(ctx, x, "mg_cg: x"));
    if (A->rows != A->cols)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: A is %u x %u; conjugate gradients needs a square "
                 "matrix", A->rows, A->cols);
    if (x == b)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: x and b are the same object");
    if (b->cols != 1 || x->cols != 1)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: %s has %u columns (a vector has 1)",
                 b->cols != 1 ? "b" : "x", b->cols != 1 ? b->cols : x->cols);
    if (b->rows != A->rows)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: b has %u rows but A has %u", b->rows, A->rows);
    if (x->rows != A->rows)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: x has %u rows but A has %u", x->rows, A->rows);
    if (x->type != b->type || (x->type != MG_FLOAT && x->type != MG_DOUBLE))
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_cg: x and b must both be MG_FLOAT or both MG_DOUBLE");
    if (!(opts->tolerance > 0) || !isfinite(opts->tolerance))
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: opts->tolerance = %g must be finite and > 0",
                 opts->tolerance);
    if (opts->max_iterations < 0)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_cg: opts->max_iterations = %d must be >= 0",
                 opts->max_iterations);
    MG__TRY(check_symmetric(ctx, A));
    if (opts->jacobi) {
        inv_diag = mg__malloc(mg__mul_size(A->rows, sizeof *inv_diag));
        if (inv_diag == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_cg: out of memory for the Jacobi diagonal (%u rows)",
                     A->rows);
        MG__TRY(jacobi_diagonal(ctx, A, inv_diag));
    }

    opts->iterations = 0;
    opts->residual = 0;
    opts->seconds = 0;
    if (mg_context_backend(ctx) == MG_BACKEND_GPU) {
        MG__TRY(mg__gpu_cg(ctx, A, b, x, inv_diag, opts));
        goto cleanup;
    }
    MG__TRY(mg__dense_need_host(ctx, b));
    MG__TRY(mg__dense_need_host(ctx, x));
    if (all_zero(b)) { /* the solution is 0; ||b|| = 0 would make every relative residual NaN */
        memset(x->data, 0, (size_t)x->rows * mg__type_size(x->type));
        if (opts->residuals != NULL) opts->residuals[0] = 0;
        goto cleanup;
    }
    const double start = omp_get_wtime();
    status = cpu_cg(ctx, A, b, x, inv_diag, opts);
    opts->seconds = omp_get_wtime() - start;

cleanup:
    mg__free(inv_diag);
    return status;
}
