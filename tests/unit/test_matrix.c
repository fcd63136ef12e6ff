/*
 * test_matrix.c — sparse matrices from coordinates (duplicates summed in input order, explicit
 * zeros kept, rectangular, empty rows and columns, patterns), the CSC against a transposed build,
 * a graph's adjacency as a matrix view, dense objects, argument errors, and failure-injection
 * sweeps (every allocation failing in turn gives MG_OUT_OF_MEMORY and, under ASan, no leak).
 */
#include "check.h"
#include "mg_internal.h"
#include "mgraph.h"

#include <math.h>
#include <omp.h>

/* A's CSR equals the expected arrays exactly (values compared bit for bit as doubles). */
static bool csr_is(const mg_matrix A, const uint64_t *off, const uint32_t *idx, const double *val) {
    const uint64_t *o;
    const uint32_t *i;
    const void *v;
    if (mg_matrix_csr(A, &o, &i, &v) != MG_SUCCESS) return false;
    for (uint32_t r = 0; r <= mg_matrix_rows(A); r++)
        if (o[r] != off[r]) return false;
    for (uint64_t e = 0; e < mg_matrix_nnz(A); e++) {
        if (i[e] != idx[e]) return false;
        if (val == NULL) continue;
        double x = mg_matrix_values(A) == MG_VALUES_FLOAT ? ((const float *)v)[e] : ((const double *)v)[e];
        if (x != val[e]) return false;
    }
    return true;
}

static void test_coo(mg_context ctx) {
    /* 3 x 5: (0,3) twice (2 + 5), (0,1) an explicit zero, row 1 empty, (2,0) three times,
     * columns 2 and 4 empty, entries given out of order */
    const uint32_t r[] = {0, 2, 0, 2, 0, 2};
    const uint32_t c[] = {3, 0, 1, 0, 3, 0};
    const double v[] = {2, 1, 0, 10, 5, 100};
    mg_matrix A = NULL;
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 5, 6, r, c, v, MG_VALUES_DOUBLE));
    CHECK(mg_matrix_rows(A) == 3 && mg_matrix_cols(A) == 5 && mg_matrix_nnz(A) == 3);
    CHECK(mg_matrix_values(A) == MG_VALUES_DOUBLE && !mg_matrix_declared_symmetric(A));
    CHECK(mg_matrix_build_seconds(A) >= 0.0);
    const uint64_t off[] = {0, 2, 2, 3};
    const uint32_t idx[] = {1, 3, 0};
    const double val[] = {0, 7, 111};
    CHECK(csr_is(A, off, idx, val));

    /* the CSC: columns 0, 1, 3 hold one entry each */
    const uint64_t *co;
    const uint32_t *ci;
    const void *cv;
    CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co, &ci, &cv));
    const uint64_t coff[] = {0, 1, 2, 2, 3, 3};
    for (int k = 0; k <= 5; k++) CHECK(co[k] == coff[k]);
    CHECK(ci[0] == 2 && ci[1] == 0 && ci[2] == 0);
    CHECK(((const double *)cv)[0] == 111 && ((const double *)cv)[1] == 0 && ((const double *)cv)[2] == 7);
    /* kept: a second call returns the same arrays */
    const uint64_t *co2;
    CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co2, NULL, NULL));
    CHECK(co2 == co);
    mg_matrix_free(&A);
    CHECK(A == NULL);

    /* float values and a pattern of the same entries */
    const float vf[] = {2, 1, 0, 10, 5, 100};
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 5, 6, r, c, vf, MG_VALUES_FLOAT));
    CHECK(mg_matrix_values(A) == MG_VALUES_FLOAT && csr_is(A, off, idx, val));
    mg_matrix_free(&A);
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 3, 5, 6, r, c, NULL, MG_VALUES_NONE));
    const void *pv = &pv;
    CHECK_OK(ctx, mg_matrix_csr(A, NULL, NULL, &pv));
    CHECK(mg_matrix_values(A) == MG_VALUES_NONE && pv == NULL && csr_is(A, off, idx, NULL));
    CHECK_OK(ctx, mg_matrix_csc(ctx, A, NULL, NULL, &pv));
    CHECK(pv == NULL);
    mg_matrix_free(&A);

    /* empty: no entries, and no rows */
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 4, 2, 0, NULL, NULL, NULL, MG_VALUES_DOUBLE));
    const uint64_t zero[5] = {0};
    CHECK(mg_matrix_nnz(A) == 0 && csr_is(A, zero, NULL, NULL));
    CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co, NULL, NULL));
    CHECK(co[0] == 0 && co[2] == 0);
    mg_matrix_free(&A);
    CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, 0, 0, 0, NULL, NULL, NULL, MG_VALUES_NONE));
    CHECK(mg_matrix_rows(A) == 0 && mg_matrix_nnz(A) == 0);
    mg_matrix_free(&A);
}

/* Reference for random entries: for each (row, col), the sum of its values in input order. */
typedef struct {
    uint32_t r, c;
    uint64_t k;
} entry;

static int by_position(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    if (x->c != y->c) return x->c < y->c ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Large enough for the parallel paths; few columns, so duplicates are common. The result must be
 * the reference's bit for bit (float sums in input order) on one thread and on several, and the
 * CSC must be exactly the CSR of the transposed build. */
static void test_random(mg_context ctx) {
    const uint32_t rows = 3000, cols = 700;
    const uint64_t nnz = 200000;
    uint32_t *r = malloc(nnz * 4), *c = malloc(nnz * 4);
    float *v = malloc(nnz * 4);
    entry *e = malloc(nnz * sizeof *e);
    uint64_t *off = calloc(rows + 1, 8);
    uint32_t *idx = malloc(nnz * 4);
    double *val = malloc(nnz * 8);
    uint64_t s = 42;
    for (uint64_t k = 0; k < nnz; k++) {
        r[k] = (uint32_t)(lcg(&s) % rows);
        c[k] = (uint32_t)(lcg(&s) % cols);
        v[k] = (float)((double)(lcg(&s) % 1000) / 7.0 - 50);
        e[k] = (entry){r[k], c[k], k};
    }
    qsort(e, nnz, sizeof *e, by_position);
    uint64_t m = 0;
    for (uint64_t k = 0; k < nnz; k++) {
        if (m > 0 && k > 0 && e[k].r == e[k - 1].r && e[k].c == e[k - 1].c) {
            val[m - 1] = (double)((float)val[m - 1] + v[e[k].k]);
            continue;
        }
        idx[m] = e[k].c;
        val[m] = v[e[k].k];
        off[e[k].r + 1]++;
        m++;
    }
    for (uint32_t i = 0; i < rows; i++) off[i + 1] += off[i];
    CHECK(m < nnz); /* the test has duplicates */

    const int max_threads = omp_get_max_threads();
    for (int threads = 1; threads <= 3; threads++) {
        omp_set_num_threads(threads);
        mg_matrix A = NULL, T = NULL;
        CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &A, rows, cols, nnz, r, c, v, MG_VALUES_FLOAT));
        CHECK(mg_matrix_nnz(A) == m && csr_is(A, off, idx, val));
        CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &T, cols, rows, nnz, c, r, v, MG_VALUES_FLOAT));
        const uint64_t *co, *to;
        const uint32_t *ci, *ti;
        const void *cv, *tv;
        CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co, &ci, &cv));
        CHECK_OK(ctx, mg_matrix_csr(T, &to, &ti, &tv));
        CHECK(mg_matrix_nnz(T) == m);
        CHECK(memcmp(co, to, (cols + 1) * 8) == 0 && memcmp(ci, ti, m * 4) == 0 &&
              memcmp(cv, tv, m * 4) == 0);
        mg_matrix_free(&A);
        mg_matrix_free(&T);
    }
    omp_set_num_threads(max_threads);
    free(r);
    free(c);
    free(v);
    free(e);
    free(off);
    free(idx);
    free(val);
}

static void test_bad_arguments(mg_context ctx) {
    const uint32_t r[] = {0, 1, 2}, c[] = {0, 1, 1};
    const double v[] = {1, 2, 3};
    mg_matrix A = (mg_matrix)&A; /* set to NULL on failure */
    CHECK(mg_matrix_create_from_coo(ctx, &A, 2, 2, 3, r, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);
    CHECK(A == NULL);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_create_from_coo: entry 2 has row id 2, out of range (rows = 2)") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 3, 1, 3, r, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "entry 1 has column id 1, out of range (cols = 1)") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 1u << 31, 2, 0, NULL, NULL, NULL, MG_VALUES_NONE) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "below 2^31") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 2, UINT32_MAX, 0, NULL, NULL, NULL, MG_VALUES_NONE) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 3, 3, 3, r, c, NULL, MG_VALUES_FLOAT) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "values is NULL") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 3, 3, 3, NULL, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 3, 3, 3, r, c, v, (mg_values)7) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "unknown value type 7") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, &A, 3, 3, UINT64_MAX, r, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "too large") != NULL);
    CHECK(mg_matrix_create_from_coo(ctx, NULL, 3, 3, 3, r, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);
    CHECK(mg_matrix_create_from_coo(NULL, &A, 3, 3, 3, r, c, v, MG_VALUES_DOUBLE) == MG_INVALID_ARGUMENT);

    /* bad handles: NULL, freed, garbage */
    CHECK(mg_matrix_csc(ctx, NULL, NULL, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_matrix_csc: A is NULL") != NULL);
    CHECK(mg_matrix_csr(NULL, NULL, NULL, NULL) == MG_INVALID_ARGUMENT);
    struct mg_matrix_s fake;
    memset(&fake, 0, sizeof fake);
    fake.magic = MG__MAGIC_FREED;
    CHECK(mg_matrix_csc(ctx, &fake, NULL, NULL, NULL) == MG_INVALID_OBJECT);
    CHECK(strstr(mg_context_error(ctx), "not a live mg_matrix") != NULL);
    CHECK(mg_matrix_csr(&fake, NULL, NULL, NULL) == MG_INVALID_OBJECT);
    CHECK(mg__check_matrix(ctx, &fake, "f: A") == MG_INVALID_OBJECT);
    CHECK(mg_matrix_rows(&fake) == 0 && mg_matrix_nnz(&fake) == 0 && mg_matrix_values(&fake) == MG_VALUES_NONE);
    mg_matrix p = &fake;
    CHECK(mg_matrix_free(&p) == MG_INVALID_OBJECT);
    CHECK(mg_matrix_free(NULL) == MG_SUCCESS);
    p = NULL;
    CHECK(mg_matrix_free(&p) == MG_SUCCESS);
    CHECK(mg_graph_matrix(ctx, NULL, &A) == MG_INVALID_ARGUMENT && A == NULL);
    CHECK(strstr(mg_context_error(ctx), "mg_graph_matrix: g is NULL") != NULL);
}

/* A view's CSR is the graph's (shared), its values as the graph's weights say, and its CSC the
 * transposed matrix (the graph's CSC, or the CSR when undirected). */
static void test_graph_view(mg_context ctx) {
    const uint32_t src[] = {0, 0, 1, 3, 2}, dst[] = {1, 2, 2, 0, 0};
    const int32_t wi[] = {5, -3, 7, 9, 11};
    const float wf[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
    for (int directed = 0; directed < 2; directed++)
        for (int wt = MG_WEIGHT_NONE; wt <= MG_WEIGHT_FLOAT; wt++) {
            mg_graph_options go;
            mg_graph_options_init(&go);
            go.directed = directed;
            const void *w = wt == MG_WEIGHT_INT32 ? (const void *)wi : wt == MG_WEIGHT_FLOAT ? (const void *)wf : NULL;
            mg_graph g = NULL;
            mg_matrix A = NULL;
            CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 4, 5, src, dst, w, (mg_weight_type)wt, &go));
            CHECK_OK(ctx, mg_graph_matrix(ctx, g, &A));
            CHECK(mg_matrix_rows(A) == 4 && mg_matrix_cols(A) == 4);
            CHECK(mg_matrix_nnz(A) == mg_graph_num_edges(g));
            CHECK(mg_matrix_declared_symmetric(A) == !directed);
            CHECK(mg_matrix_values(A) == (wt == MG_WEIGHT_NONE ? MG_VALUES_NONE
                                          : wt == MG_WEIGHT_FLOAT ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE));
            const uint64_t *go_, *ao, *co;
            const uint32_t *gi, *ai, *ci;
            const void *gw, *av, *cv;
            mg_graph_csr(g, &go_, &gi, &gw);
            CHECK_OK(ctx, mg_matrix_csr(A, &ao, &ai, &av));
            CHECK(ao == go_ && ai == gi); /* shared, not copied */
            if (wt == MG_WEIGHT_FLOAT) CHECK(av == gw);
            if (wt == MG_WEIGHT_NONE) CHECK(av == NULL);
            if (wt == MG_WEIGHT_INT32)
                for (uint64_t e = 0; e < mg_matrix_nnz(A); e++)
                    CHECK(((const double *)av)[e] == (double)((const int32_t *)gw)[e]);
            /* the CSC against a build of the transposed coordinates */
            uint64_t m = mg_matrix_nnz(A);
            uint32_t *tr = malloc(m * 4 + 4), *tc = malloc(m * 4 + 4);
            double *tv = malloc(m * 8 + 8);
            for (uint32_t u = 0; u < 4; u++)
                for (uint64_t e = ao[u]; e < ao[u + 1]; e++) {
                    tr[e] = ai[e];
                    tc[e] = u;
                    tv[e] = wt == MG_WEIGHT_NONE ? 1 : wt == MG_WEIGHT_FLOAT ? ((const float *)av)[e] : ((const double *)av)[e];
                }
            mg_matrix T = NULL;
            CHECK_OK(ctx, mg_matrix_create_from_coo(ctx, &T, 4, 4, m, tr, tc, tv, MG_VALUES_DOUBLE));
            CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co, &ci, &cv));
            const uint64_t *to;
            const uint32_t *ti;
            const void *tvv;
            mg_matrix_csr(T, &to, &ti, &tvv);
            CHECK(memcmp(co, to, 5 * 8) == 0 && memcmp(ci, ti, m * 4) == 0);
            for (uint64_t e = 0; wt != MG_WEIGHT_NONE && e < m; e++) {
                double x = wt == MG_WEIGHT_FLOAT ? ((const float *)cv)[e] : ((const double *)cv)[e];
                CHECK(x == ((const double *)tvv)[e]);
            }
            if (!directed) CHECK(co == ao); /* an undirected graph's CSC is its CSR */
            mg_matrix_free(&T);
            free(tr);
            free(tc);
            free(tv);
            CHECK_OK(ctx, mg_matrix_free(&A));
            mg_graph_free(&g);
        }
}

static void test_dense(mg_context ctx) {
    mg_dense X = NULL;
    CHECK_OK(ctx, mg_dense_create(ctx, &X, 2, 3, MG_FLOAT));
    CHECK(mg_dense_rows(X) == 2 && mg_dense_cols(X) == 3 && mg_dense_type(X) == MG_FLOAT);
    float f[6];
    CHECK_OK(ctx, mg_dense_extract(ctx, X, f));
    for (int i = 0; i < 6; i++) CHECK(f[i] == 0.0f);
    const float in[6] = {1, 2, 3, 4, 5, 6};
    CHECK_OK(ctx, mg_dense_load(ctx, X, in));
    double v = 0;
    CHECK_OK(ctx, mg_dense_get(ctx, X, 1, 0, &v)); /* row-major: row 1 starts at 4 */
    CHECK(v == 4);
    CHECK_OK(ctx, mg_dense_set(ctx, X, 0, 2, -1.25));
    CHECK_OK(ctx, mg_dense_extract(ctx, X, f));
    CHECK(f[2] == -1.25f && f[5] == 6);
    CHECK(mg_dense_get(ctx, X, 2, 0, &v) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_dense_get: row 2 is out of range (X has 2 rows)") != NULL);
    CHECK(mg_dense_set(ctx, X, 0, 3, 1) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_dense_set: col 3 is out of range (X has 3 columns)") != NULL);
    CHECK(mg_dense_get(ctx, X, 0, 0, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_dense_load(ctx, X, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_dense_extract(ctx, X, NULL) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_dense_fill(ctx, X, 0.5));
    CHECK_OK(ctx, mg_dense_get(ctx, X, 1, 2, &v));
    CHECK(v == 0.5);
    CHECK_OK(ctx, mg_dense_free(&X));
    CHECK(X == NULL);

    CHECK_OK(ctx, mg_dense_create(ctx, &X, 1 << 17, 1, MG_DOUBLE)); /* the parallel fill */
    CHECK_OK(ctx, mg_dense_fill(ctx, X, 3));
    CHECK_OK(ctx, mg_dense_get(ctx, X, (1 << 17) - 1, 0, &v));
    CHECK(v == 3 && mg_dense_type(X) == MG_DOUBLE);
    mg_dense_free(&X);

    CHECK(mg_dense_create(ctx, &X, 2, 2, MG_INT32) == MG_INVALID_ARGUMENT && X == NULL);
    CHECK(strstr(mg_context_error(ctx), "MG_FLOAT or MG_DOUBLE") != NULL);
    if (sizeof(size_t) == 8) {
        CHECK(mg_dense_create(ctx, &X, UINT32_MAX, UINT32_MAX, MG_DOUBLE) == MG_INVALID_ARGUMENT);
        CHECK(strstr(mg_context_error(ctx), "4294967295 x 4294967295") != NULL);
    }
    CHECK(mg_dense_create(ctx, NULL, 2, 2, MG_FLOAT) == MG_INVALID_ARGUMENT);
    struct mg_dense_s fake;
    memset(&fake, 0, sizeof fake);
    CHECK(mg_dense_fill(ctx, &fake, 1) == MG_INVALID_OBJECT);
    CHECK(strstr(mg_context_error(ctx), "mg_dense_fill: X is not a live mg_dense") != NULL);
    CHECK(mg_dense_get(ctx, NULL, 0, 0, &v) == MG_INVALID_ARGUMENT);
    CHECK(mg_dense_rows(&fake) == 0 && mg_dense_cols(NULL) == 0);
    mg_dense p = &fake;
    CHECK(mg_dense_free(&p) == MG_INVALID_OBJECT);
}

/* Every allocation of a build failing in turn: MG_OUT_OF_MEMORY, a NULL result, no leak (ASan). */
static void test_alloc_failures(mg_context ctx) {
    const uint32_t r[] = {0, 2, 0, 2, 1}, c[] = {3, 0, 3, 1, 1};
    const double v[] = {1, 2, 3, 4, 5};
    int failures = 0;
    for (uint64_t k = 1; k < 100; k++) {
        mg_matrix A = NULL;
        mg__inject_alloc_failure(k);
        mg_status st = mg_matrix_create_from_coo(ctx, &A, 3, 4, 5, r, c, v, MG_VALUES_DOUBLE);
        mg__inject_alloc_failure(0);
        if (st == MG_SUCCESS) {
            CHECK(mg_matrix_nnz(A) == 4);
            /* then the CSC, whose build can fail alone and be retried */
            mg__inject_alloc_failure(1);
            CHECK(mg_matrix_csc(ctx, A, NULL, NULL, NULL) == MG_OUT_OF_MEMORY);
            mg__inject_alloc_failure(0);
            const uint64_t *co = NULL;
            CHECK_OK(ctx, mg_matrix_csc(ctx, A, &co, NULL, NULL));
            CHECK(co != NULL && co[4] == 4);
            mg_matrix_free(&A);
            break;
        }
        failures++;
        CHECK(st == MG_OUT_OF_MEMORY && A == NULL);
        CHECK(strstr(mg_context_error(ctx), "mg_matrix_create_from_coo: out of memory") != NULL);
    }
    CHECK(failures >= 8);

    /* the views, int32 weights converted */
    const uint32_t src[] = {0, 1}, dst[] = {1, 2};
    const int32_t w[] = {3, 4};
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 3, 2, src, dst, w, MG_WEIGHT_INT32, NULL));
    failures = 0;
    for (uint64_t k = 1; k < 20; k++) {
        mg_matrix A = NULL;
        mg__inject_alloc_failure(k);
        mg_status st = mg_graph_matrix(ctx, g, &A);
        if (st == MG_SUCCESS) st = mg_matrix_csc(ctx, A, NULL, NULL, NULL);
        mg__inject_alloc_failure(0);
        mg_matrix_free(&A);
        if (st == MG_SUCCESS) break;
        failures++;
        CHECK(st == MG_OUT_OF_MEMORY);
    }
    CHECK(failures >= 3);
    mg_graph_free(&g);

    failures = 0;
    for (uint64_t k = 1; k < 10; k++) {
        mg_dense X = NULL;
        mg__inject_alloc_failure(k);
        mg_status st = mg_dense_create(ctx, &X, 3, 3, MG_DOUBLE);
        mg__inject_alloc_failure(0);
        if (st == MG_SUCCESS) {
            mg_dense_free(&X);
            break;
        }
        failures++;
        CHECK(st == MG_OUT_OF_MEMORY && X == NULL);
    }
    CHECK(failures == 2);
}

int main(void) {
    mg_context ctx = NULL;
    CHECK(mg_context_create(&ctx) == MG_SUCCESS);
    test_coo(ctx);
    test_random(ctx);
    test_bad_arguments(ctx);
    test_graph_view(ctx);
    test_dense(ctx);
    test_alloc_failures(ctx);
    mg_context_free(&ctx);
    return check_report();
}
