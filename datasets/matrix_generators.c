/*
 * matrix_generators.c — mg_matrix_generate: the sparse layer's synthetic matrices (2D and 3D
 * Poisson stencils, banded, block-diagonal, uniform random, R-MAT), made as coordinates in parallel
 * and built by mg_matrix_create_from_coo.
 *
 * Determinism: every entry's position in the coordinate list is fixed by the options (rows are made
 * in order, in chunks whose offsets come from a count pass), and its random column and value are
 * pure functions of (seed, position) (gen_internal.h), so the matrix is the same for any number of
 * threads. Uniform and R-MAT may draw one position twice; mg_matrix_create_from_coo then sums the
 * two values into one entry, as a matrix build does (so their nnz can be a little below the
 * number asked for).
 */
#include "gen_internal.h"

#include <math.h>
#include <omp.h>

/* Rows per chunk of the count and fill passes: large enough to amortise a chunk, small enough to
 * balance rows of different lengths over the threads. */
#define CHUNK_ROWS 8192
/* The largest coordinate list we agree to try (as mg_generate's edge list). */
#define MAX_ENTRIES (UINT64_C(1) << 40)
#define MAX_DIMENSION ((uint64_t)INT32_MAX)

void mg_matrix_gen_options_init(mg_matrix_gen_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->kind = MG_MATGEN_POISSON2D;
    opts->side = 64;
    opts->rows = 4096;
    opts->cols = 4096;
    opts->band = 8;
    opts->block = 32;
    opts->nnz_per_row = 16;
    opts->scale = 16;
    opts->seed = 1;
    opts->values = MG_VALUES_DOUBLE;
}

/* The shape a kind makes, fixed by the options. */
typedef struct {
    mg_matrix_generator kind;
    uint64_t rows, cols;
    uint64_t side;       /* stencils                     */
    uint64_t band;       /* BANDED                       */
    uint64_t block;      /* BLOCK_DIAGONAL               */
    double per_row;      /* UNIFORM                      */
    uint64_t value_key;  /* the seed's value stream      */
    uint64_t column_key; /* the seed's column stream     */
} shape;

/* Row-by-row kinds: the entries of row i, columns ascending, into cols[] (NULL: only count them)
 * and, for the stencils, their fixed values into stencil[] (NULL for the random kinds). first is
 * the row's first position in the whole list. Returns the row's number of entries. */
static uint32_t make_row(const shape *s, uint64_t i, uint64_t first, uint32_t *cols,
                         double *stencil) {
    uint32_t k = 0;
#define PUT(col, value)                                                                            \
    do {                                                                                           \
        if (cols != NULL) cols[k] = (uint32_t)(col);                                               \
        if (stencil != NULL) stencil[k] = (value);                                                 \
        k++;                                                                                       \
    } while (0)
    switch (s->kind) {
    case MG_MATGEN_POISSON2D: {
        const uint64_t n = s->side, x = i % n, y = i / n;
        if (y > 0) PUT(i - n, -1.0);
        if (x > 0) PUT(i - 1, -1.0);
        PUT(i, 4.0);
        if (x + 1 < n) PUT(i + 1, -1.0);
        if (y + 1 < n) PUT(i + n, -1.0);
        break;
    }
    case MG_MATGEN_POISSON3D: {
        const uint64_t n = s->side, x = i % n, y = i / n % n, z = i / (n * n);
        if (z > 0) PUT(i - n * n, -1.0);
        if (y > 0) PUT(i - n, -1.0);
        if (x > 0) PUT(i - 1, -1.0);
        PUT(i, 6.0);
        if (x + 1 < n) PUT(i + 1, -1.0);
        if (y + 1 < n) PUT(i + n, -1.0);
        if (z + 1 < n) PUT(i + n * n, -1.0);
        break;
    }
    case MG_MATGEN_BANDED:
    case MG_MATGEN_BLOCK_DIAGONAL: {
        uint64_t lo, hi; /* columns [lo, hi) */
        if (s->kind == MG_MATGEN_BANDED) {
            lo = i > s->band ? i - s->band : 0;
            hi = i + s->band + 1 < s->rows ? i + s->band + 1 : s->rows;
        } else {
            lo = i / s->block * s->block;
            hi = lo + s->block < s->rows ? lo + s->block : s->rows;
        }
        if (cols != NULL)
            for (uint64_t j = lo; j < hi; j++) cols[j - lo] = (uint32_t)j;
        k = (uint32_t)(hi - lo);
        break;
    }
    case MG_MATGEN_UNIFORM: {
        const uint64_t end = (uint64_t)((double)(i + 1) * s->per_row);
        k = (uint32_t)(end - first);
        if (cols != NULL)
            for (uint32_t q = 0; q < k; q++)
                cols[q] = (uint32_t)(((mg__gen_rand(s->column_key, first + q) >> 32) * s->cols) >> 32);
        break;
    }
    case MG_MATGEN_RMAT: break; /* not made by rows */
    }
#undef PUT
    return k;
}

/* UNIFORM: the position of row i's first entry (rows get floor((i + 1) r) - floor(i r) entries,
 * r = nnz_per_row, so the total is floor(rows r) and no count pass is needed). */
static uint64_t uniform_first(const shape *s, uint64_t i) { return (uint64_t)((double)i * s->per_row); }

/* A random value in [0.5, 1.5) for position k. */
static inline double random_value(const shape *s, uint64_t k) {
    return 0.5 + mg__gen_unit(mg__gen_rand(s->value_key, k));
}

static void store_value(void *values, mg_values type, uint64_t k, double v) {
    if (type == MG_VALUES_DOUBLE) ((double *)values)[k] = v;
    else if (type == MG_VALUES_FLOAT) ((float *)values)[k] = (float)v;
}

/* Fills the coordinates of a row-by-row kind: chunk_first[c] is the position of chunk c's first
 * entry (from the count pass). */
static void fill_rows(const shape *s, const uint64_t *chunk_first, uint64_t chunks, uint32_t *ri,
                      uint32_t *ci, void *values, mg_values type) {
    const bool stencil = s->kind == MG_MATGEN_POISSON2D || s->kind == MG_MATGEN_POISSON3D;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < (int64_t)chunks; c++) {
        uint64_t k = chunk_first[c];
        const uint64_t r_end = ((uint64_t)c + 1) * CHUNK_ROWS < s->rows ? ((uint64_t)c + 1) * CHUNK_ROWS : s->rows;
        double fixed[7];
        for (uint64_t i = (uint64_t)c * CHUNK_ROWS; i < r_end; i++) {
            const uint32_t cnt = make_row(s, i, k, ci + k, stencil ? fixed : NULL);
            for (uint32_t q = 0; q < cnt; q++) {
                ri[k + q] = (uint32_t)i;
                store_value(values, type, k + q, stencil ? fixed[q] : random_value(s, k + q));
            }
            k += cnt;
        }
    }
}

static mg_status check_options(mg_context ctx, const mg_matrix_gen_options *o, shape *s) {
    static const char call[] = "mg_matrix_generate";
    memset(s, 0, sizeof *s);
    s->kind = o->kind;
    s->value_key = mg__gen_key(o->seed, MG__GEN_STREAM_WEIGHTS);
    s->column_key = mg__gen_key(o->seed, MG__GEN_STREAM_EDGES);
    if (o->values != MG_VALUES_NONE && o->values != MG_VALUES_FLOAT && o->values != MG_VALUES_DOUBLE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->values = %d is not an mg_values", call,
                         (int)o->values);
    switch (o->kind) {
    case MG_MATGEN_POISSON2D:
    case MG_MATGEN_POISSON3D: {
        const int dims = o->kind == MG_MATGEN_POISSON2D ? 2 : 3;
        const uint64_t side = o->side;
        /* side < 2^32, so side^2 fits; side^3 fits for the sides the test below lets through */
        const uint64_t n = dims == 2 ? side * side : side * side * side;
        if (side == 0)
            return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->side is 0 (a grid needs one point)",
                             call);
        if ((dims == 3 && side > 2097151) || n > MAX_DIMENSION)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->side = %u makes side^%d rows, more than 2^31 - 1", call,
                             o->side, dims);
        s->side = side;
        s->rows = s->cols = n;
        return MG_SUCCESS;
    }
    case MG_MATGEN_BANDED:
    case MG_MATGEN_BLOCK_DIAGONAL:
    case MG_MATGEN_UNIFORM: {
        const uint64_t cols = o->kind != MG_MATGEN_UNIFORM ? o->rows : o->cols ? o->cols : o->rows;
        if (o->rows == 0 || o->rows > MAX_DIMENSION || cols > MAX_DIMENSION)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->rows = %u (and cols %llu) must be in 1 .. 2^31 - 1", call,
                             o->rows, (unsigned long long)cols);
        s->rows = o->rows;
        s->cols = cols;
        s->band = o->band;
        s->block = o->block;
        if (o->kind == MG_MATGEN_BLOCK_DIAGONAL && o->block == 0)
            return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->block is 0", call);
        if (o->kind == MG_MATGEN_UNIFORM) {
            if (!(o->nnz_per_row >= 0) || !(o->nnz_per_row <= (double)cols))
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "%s: opts->nnz_per_row = %g must be in 0 .. cols = %llu", call,
                                 o->nnz_per_row, (unsigned long long)cols);
            s->per_row = o->nnz_per_row;
        }
        return MG_SUCCESS;
    }
    case MG_MATGEN_RMAT:
        if (o->scale < 1 || o->scale > 30)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->scale = %d is out of range (1..30: 2^scale rows, below 2^31)",
                             call, o->scale);
        if (!(o->nnz_per_row >= 0) || !isfinite(o->nnz_per_row))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "%s: opts->nnz_per_row = %g must be finite and >= 0", call,
                             o->nnz_per_row);
        s->rows = s->cols = UINT64_C(1) << o->scale;
        s->per_row = o->nnz_per_row;
        return MG_SUCCESS;
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: opts->kind = %d is not an mg_matrix_generator",
                     call, (int)o->kind);
}

/* Refuses a list that cannot fit before allocating it: the coordinates and the built CSR exist
 * side by side for a moment. */
static mg_status check_memory(mg_context ctx, uint64_t nnz, mg_values type) {
    const uint64_t value_bytes = type == MG_VALUES_DOUBLE ? 8 : type == MG_VALUES_FLOAT ? 4 : 0;
    if (nnz > MAX_ENTRIES)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_matrix_generate: %llu entries exceed the limit of 2^40",
                         (unsigned long long)nnz);
    const uint64_t bytes = nnz * (8 + value_bytes + 4 + value_bytes), physical = mg__gen_physical_memory();
    if (physical != 0 && bytes > physical)
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_matrix_generate: %llu entries need %.1f GiB, more than this machine's "
                         "%.1f GiB: ask for a smaller matrix",
                         (unsigned long long)nnz, (double)bytes / 1073741824.0,
                         (double)physical / 1073741824.0);
    return MG_SUCCESS;
}

mg_status mg_matrix_generate(mg_context ctx, mg_matrix *A, const mg_matrix_gen_options *opts) {
    mg_status status = mg__check_context(ctx);
    uint64_t *chunk_first = NULL;
    uint32_t *ri = NULL, *ci = NULL;
    void *values = NULL;
    if (status != MG_SUCCESS) return status;
    if (A == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_matrix_generate: A is NULL");
    *A = NULL;
    if (opts == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_matrix_generate: opts is NULL");
    shape s;
    MG__TRY(check_options(ctx, opts, &s));

    uint64_t nnz, chunks = 0;
    if (s.kind == MG_MATGEN_RMAT) {
        const double want = floor(s.per_row * (double)s.rows + 0.5);
        nnz = want > (double)MAX_ENTRIES ? MAX_ENTRIES + 1 : (uint64_t)want;
    } else if (s.kind == MG_MATGEN_UNIFORM) {
        nnz = uniform_first(&s, s.rows);
    } else {
        /* The count pass: chunk c's entries, then their exclusive sum. */
        chunks = (s.rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
        chunk_first = mg__malloc(mg__mul_size(chunks + 1, sizeof *chunk_first));
        if (chunk_first == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_matrix_generate: out of memory for %llu row chunks",
                     (unsigned long long)chunks);
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < (int64_t)chunks; c++) {
            uint64_t count = 0;
            const uint64_t r_end = ((uint64_t)c + 1) * CHUNK_ROWS < s.rows ? ((uint64_t)c + 1) * CHUNK_ROWS : s.rows;
            for (uint64_t i = (uint64_t)c * CHUNK_ROWS; i < r_end; i++) count += make_row(&s, i, 0, NULL, NULL);
            chunk_first[c] = count;
        }
        nnz = mg__exclusive_scan_u64(chunk_first, chunks);
    }
    MG__TRY(check_memory(ctx, nnz, opts->values));

    const size_t value_bytes = opts->values == MG_VALUES_DOUBLE ? 8 : 4;
    ri = mg__malloc(mg__mul_size(nnz, sizeof *ri));
    ci = mg__malloc(mg__mul_size(nnz, sizeof *ci));
    if (opts->values != MG_VALUES_NONE) values = mg__malloc(mg__mul_size(nnz, value_bytes));
    if (ri == NULL || ci == NULL || (opts->values != MG_VALUES_NONE && values == NULL))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_matrix_generate: out of memory for %llu coordinates",
                 (unsigned long long)nnz);

    if (s.kind == MG_MATGEN_RMAT) {
        mg__rmat_params p;
        mg__rmat_params_init(&p, opts->scale, 0.57, 0.19, 0.19);
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < (int64_t)nnz; k++) {
            mg__rmat_edge(&p, s.column_key, (uint64_t)k, &ri[k], &ci[k]);
            store_value(values, opts->values, (uint64_t)k, random_value(&s, (uint64_t)k));
        }
    } else if (s.kind == MG_MATGEN_UNIFORM) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)s.rows; i++) {
            const uint64_t first = uniform_first(&s, (uint64_t)i);
            const uint32_t cnt = make_row(&s, (uint64_t)i, first, ci + first, NULL);
            for (uint32_t q = 0; q < cnt; q++) {
                ri[first + q] = (uint32_t)i;
                store_value(values, opts->values, first + q, random_value(&s, first + q));
            }
        }
    } else {
        fill_rows(&s, chunk_first, chunks, ri, ci, values, opts->values);
    }
    MG__TRY(mg_matrix_create_from_coo(ctx, A, (uint32_t)s.rows, (uint32_t)s.cols, nnz, ri, ci, values,
                                      opts->values));

cleanup:
    mg__free(chunk_first);
    mg__free(ri);
    mg__free(ci);
    mg__free(values);
    return status;
}
