/*
 * spgemm_cpu.c — the CPU engine of mg_spgemm, C = A B over a semiring, on OpenMP threads.
 *
 * Gustavson's row-by-row product (ACM TOMS 4(3), 1978): row i of C is the semiring sum, over row
 * i's entries (i, k), of a_ik times row k of B. Two passes: a symbolic one counts each row's
 * distinct output columns (so C is allocated once, at its exact size, and a product too large
 * fails before anything is written), then a numeric one computes them. The rows are cut into one
 * contiguous part per thread by their work, flops(i) + |M_i| + 1 where flops(i) is the sum of B's
 * row lengths over A's row i, so a few heavy rows do not leave threads idle.
 *
 * Accumulators, chosen per row by a bound on its distinct columns (min(flops, cols), |M_i| with a
 * mask, flops + |M_i| with its complement): a dense one (the cols of C, with a stamp per column
 * saying whether the column is new, hit, allowed or forbidden in this row, so nothing is cleared
 * between rows) when the bound is at least cols / DENSE_RATIO, else a hash table of twice the
 * bound rounded up to a power of two, with linear probing. Both are per thread and allocated once.
 * A mask's row is loaded first: its columns as the only ones allowed (C<M>, so the candidate set
 * is M's row and C's row comes out in its sorted order), or as the forbidden ones (C<!M>). Other
 * rows are sorted after the numeric pass (or read off the dense stamps in column order when that
 * is shorter).
 *
 * Arithmetic: double, or float when A and B both are float. Float is computed in double and
 * rounded to float after each operation, which gives exactly float arithmetic (a double holds a
 * float product or sum of two floats before its one rounding), so one kernel serves both. Each
 * row is computed by one thread in A's entry order: C does not depend on the thread count.
 */
#include "sparse/sparse_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

/* Below this much work (multiply-adds + mask entries + rows) a parallel region costs more. */
#define SPGEMM_SERIAL_WORK 65536
/* A row whose bound on distinct columns is at least cols / DENSE_RATIO uses the dense accumulator:
 * a hash table of twice the bound would be a large share of cols anyway, and probes cost more. */
#define DENSE_RATIO 16

enum { MASK_NONE, MASK_KEEP, MASK_SKIP };
/* A column's state in a row: stamps of the dense accumulator are base + these, states of a hash
 * slot are these (EMPTY 0: a free slot, or a column the row has not touched). */
enum { ST_EMPTY = 0, ST_ALLOWED = 1, ST_HIT = 2, ST_FORBIDDEN = 3 };

typedef struct {
    uint32_t rows, cols;
    const uint64_t *a_off, *b_off, *m_off;
    const uint32_t *a_idx, *b_idx, *m_idx;
    const void *a_val, *b_val;
    mg_values a_type, b_type;
    int mask_mode;
    mg_semiring semiring;
    bool single;             /* float arithmetic                                     */
    const uint64_t *work;    /* rows + 1: the exclusive prefix of each row's work    */
    int parts;
    uint64_t *c_off;         /* symbolic: each row's size; numeric: C's offsets      */
    uint32_t *c_idx;
    void *c_val;             /* NULL for a pattern                                   */
} spgemm_args;

/* One part's accumulators, allocated on first need (by the thread that runs the part). */
typedef struct {
    uint64_t *stamp;         /* dense: cols stamps                                   */
    double *dense;           /* dense: cols values                                   */
    uint32_t *keys;          /* hash: capacity keys, states and values               */
    uint8_t *state;
    double *hval;
    size_t capacity;
} spgemm_scratch;

static inline double read_value(mg_values t, const void *v, uint64_t e) {
    return t == MG_VALUES_DOUBLE ? ((const double *)v)[e]
           : t == MG_VALUES_FLOAT ? (double)((const float *)v)[e]
                                  : 1.0;
}

static inline double round_to(bool single, double x) { return single ? (double)(float)x : x; }

static double identity_of(mg_semiring s) {
    return s == MG_SEMIRING_MIN_PLUS ? INFINITY : s == MG_SEMIRING_MAX_TIMES ? -INFINITY : 0.0;
}

/* acc (+) a (*) b, each operation rounded to the arithmetic's type; the comparisons match the
 * reference's (a NaN term leaves min and max as they were). */
static inline double combine(mg_semiring s, bool single, double acc, double a, double b) {
    switch (s) {
    case MG_SEMIRING_PLUS_TIMES: return round_to(single, acc + round_to(single, a * b));
    case MG_SEMIRING_MIN_PLUS: {
        const double p = round_to(single, a + b);
        return p < acc ? p : acc;
    }
    case MG_SEMIRING_MAX_TIMES: {
        const double p = round_to(single, a * b);
        return p > acc ? p : acc;
    }
    case MG_SEMIRING_OR_AND: return (acc != 0 || (a != 0 && b != 0)) ? 1.0 : 0.0;
    }
    return acc;
}

static int compare_u32(const void *x, const void *y) {
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Row i's bound on its distinct output columns. */
static uint64_t row_bound(const spgemm_args *g, uint32_t i, uint64_t *flops) {
    const uint64_t m = g->mask_mode == MASK_NONE ? 0 : g->m_off[i + 1] - g->m_off[i];
    *flops = g->work[i + 1] - g->work[i] - m - 1;
    const uint64_t b = g->mask_mode == MASK_KEEP ? m
                       : g->mask_mode == MASK_SKIP ? *flops + m
                                                   : *flops;
    return b < g->cols ? b : g->cols;
}

static bool use_dense(const spgemm_args *g, uint64_t bound) {
    return bound * DENSE_RATIO >= g->cols;
}

static size_t table_capacity(uint64_t bound) {
    size_t c = 8;
    while (c < 2 * bound) c *= 2;
    return c;
}

/* The slot of column j in the first cap slots of s's table (cap a power of two): j's, or the free
 * one where it would go. The table is never full (cap >= twice the columns it receives). */
static inline size_t probe(const spgemm_scratch *s, size_t cap, uint32_t j) {
    const size_t mask = cap - 1;
    size_t h = (size_t)((j * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
    while (s->state[h] != ST_EMPTY && s->keys[h] != j) h = (h + 1) & mask;
    return h;
}

/* Makes the part's accumulators big enough for its rows; false when out of memory. */
static bool prepare_scratch(const spgemm_args *g, spgemm_scratch *s, uint32_t lo, uint32_t hi) {
    bool dense = false;
    size_t capacity = 0;
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t flops;
        const uint64_t bound = row_bound(g, i, &flops);
        if (flops == 0) continue;
        if (use_dense(g, bound)) dense = true;
        else if (table_capacity(bound) > capacity) capacity = table_capacity(bound);
    }
    if (dense && s->stamp == NULL) {
        s->stamp = mg__calloc(g->cols, sizeof *s->stamp);
        s->dense = mg__malloc(mg__mul_size(g->cols, sizeof *s->dense));
        if (s->stamp == NULL || s->dense == NULL) return false;
    }
    if (capacity > s->capacity) {
        mg__free(s->keys);
        mg__free(s->state);
        mg__free(s->hval);
        s->keys = mg__malloc(mg__mul_size(capacity, sizeof *s->keys));
        s->state = mg__malloc(capacity);
        s->hval = mg__malloc(mg__mul_size(capacity, sizeof *s->hval));
        s->capacity = s->keys && s->state && s->hval ? capacity : 0;
        if (s->capacity == 0) return false;
    }
    return true;
}

/* Row i with the dense accumulator: returns its size; numeric writes C's row. `generation` keeps
 * the stamps of the two passes apart. */
static uint64_t row_dense(const spgemm_args *g, spgemm_scratch *s, uint32_t i, bool numeric,
                          uint64_t generation) {
    const uint64_t base = 4 * (generation + i);
    uint64_t *restrict stamp = s->stamp;
    double *restrict acc = s->dense;
    const bool values = numeric && g->c_val != NULL;
    const double identity = identity_of(g->semiring);
    uint32_t *out = numeric ? g->c_idx + g->c_off[i] : NULL;
    uint64_t n = 0;
    if (g->mask_mode != MASK_NONE)
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++)
            stamp[g->m_idx[e]] = base + (g->mask_mode == MASK_KEEP ? ST_ALLOWED : ST_FORBIDDEN);
    for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
        const uint32_t k = g->a_idx[e];
        const double a = read_value(g->a_type, g->a_val, e);
        for (uint64_t f = g->b_off[k]; f < g->b_off[k + 1]; f++) {
            const uint32_t j = g->b_idx[f];
            const uint64_t st = stamp[j];
            if (st != base + ST_HIT) {
                const bool fresh = g->mask_mode == MASK_KEEP ? st == base + ST_ALLOWED
                                                             : st != base + ST_FORBIDDEN;
                if (!fresh) continue;
                stamp[j] = base + ST_HIT;
                if (out != NULL && g->mask_mode != MASK_KEEP) out[n] = j;
                n++;
                if (values) acc[j] = identity;
            }
            if (values)
                acc[j] = combine(g->semiring, g->single, acc[j], a, read_value(g->b_type, g->b_val, f));
        }
    }
    if (!numeric) return n;
    if (g->mask_mode == MASK_KEEP) {
        uint64_t q = 0;
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++)
            if (stamp[g->m_idx[e]] == base + ST_HIT) out[q++] = g->m_idx[e];
    } else if (n * 16 >= g->cols) {
        /* a scan of the stamps costs less than sorting this many columns */
        uint64_t q = 0;
        for (uint32_t j = 0; j < g->cols; j++)
            if (stamp[j] == base + ST_HIT) out[q++] = j;
    } else {
        qsort(out, (size_t)n, sizeof *out, compare_u32);
    }
    if (values) {
        if (g->single) {
            float *v = (float *)g->c_val + g->c_off[i];
            for (uint64_t q = 0; q < n; q++) v[q] = (float)acc[out[q]];
        } else {
            double *v = (double *)g->c_val + g->c_off[i];
            for (uint64_t q = 0; q < n; q++) v[q] = acc[out[q]];
        }
    }
    return n;
}

/* Row i with the hash accumulator, as row_dense. */
static uint64_t row_hash(const spgemm_args *g, spgemm_scratch *s, uint32_t i, uint64_t bound,
                         bool numeric) {
    const bool values = numeric && g->c_val != NULL;
    const double identity = identity_of(g->semiring);
    uint32_t *out = numeric ? g->c_idx + g->c_off[i] : NULL;
    const size_t cap = table_capacity(bound); /* the row's share of the part's table */
    memset(s->state, ST_EMPTY, cap);
    uint64_t n = 0;
    if (g->mask_mode != MASK_NONE)
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++) {
            const size_t h = probe(s, cap, g->m_idx[e]);
            s->keys[h] = g->m_idx[e];
            s->state[h] = g->mask_mode == MASK_KEEP ? ST_ALLOWED : ST_FORBIDDEN;
        }
    for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
        const uint32_t k = g->a_idx[e];
        const double a = read_value(g->a_type, g->a_val, e);
        for (uint64_t f = g->b_off[k]; f < g->b_off[k + 1]; f++) {
            const uint32_t j = g->b_idx[f];
            const size_t h = probe(s, cap, j);
            const uint8_t st = s->state[h];
            if (st != ST_HIT) {
                const bool fresh = g->mask_mode == MASK_KEEP ? st == ST_ALLOWED
                                                             : st != ST_FORBIDDEN;
                if (!fresh) continue;
                s->keys[h] = j;
                s->state[h] = ST_HIT;
                if (out != NULL && g->mask_mode != MASK_KEEP) out[n] = j;
                n++;
                if (values) s->hval[h] = identity;
            }
            if (values)
                s->hval[h] = combine(g->semiring, g->single, s->hval[h], a,
                                     read_value(g->b_type, g->b_val, f));
        }
    }
    if (numeric) {
        if (g->mask_mode == MASK_KEEP) {
            uint64_t q = 0;
            for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++)
                if (s->state[probe(s, cap, g->m_idx[e])] == ST_HIT) out[q++] = g->m_idx[e];
        } else {
            qsort(out, (size_t)n, sizeof *out, compare_u32);
        }
        if (values)
            for (uint64_t q = 0; q < n; q++) {
                const double v = s->hval[probe(s, cap, out[q])];
                if (g->single) ((float *)g->c_val)[g->c_off[i] + q] = (float)v;
                else ((double *)g->c_val)[g->c_off[i] + q] = v;
            }
    }
    return n;
}

/* The first row of part p: the first whose work prefix reaches p / parts of the total. */
static uint32_t part_start(const spgemm_args *g, int p) {
    const uint64_t total = g->work[g->rows];
    const uint64_t target =
        (uint64_t)((unsigned __int128)total * (unsigned)p / (unsigned)g->parts);
    uint32_t lo = 0, hi = g->rows;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (g->work[mid] < target) lo = mid + 1;
        else hi = mid;
    }
    return p == g->parts ? g->rows : lo;
}

/* One pass over all rows, part p on whichever thread takes it; false when a part's accumulators
 * could not be allocated. */
static bool run_pass(const spgemm_args *g, spgemm_scratch *scratch, bool numeric) {
    int failed = 0;
#pragma omp parallel num_threads(g->parts) if (g->parts > 1)
    for (int p = omp_get_thread_num(); p < g->parts; p += omp_get_num_threads()) {
        const uint32_t lo = part_start(g, p), hi = part_start(g, p + 1);
        if (!prepare_scratch(g, &scratch[p], lo, hi)) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        for (uint32_t i = lo; i < hi; i++) {
            uint64_t flops;
            const uint64_t bound = row_bound(g, i, &flops);
            uint64_t n = 0;
            if (flops > 0 && bound > 0)
                n = use_dense(g, bound)
                        ? row_dense(g, &scratch[p], i, numeric, numeric ? g->rows : 0)
                        : row_hash(g, &scratch[p], i, bound, numeric);
            if (!numeric) g->c_off[i] = n;
        }
    }
    return !failed;
}

mg_status mg__cpu_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B, mg_matrix *C,
                         const mg_spgemm_options *opts) {
    mg_status status = MG_SUCCESS;
    uint64_t *work = NULL, *c_off = NULL;
    spgemm_scratch *scratch = NULL;
    mg_matrix M = NULL;
    const double t0 = omp_get_wtime();
    spgemm_args g;
    memset(&g, 0, sizeof g);
    g.rows = A->rows;
    g.cols = B->cols;
    g.a_type = A->values;
    g.b_type = B->values;
    g.semiring = opts->semiring;
    g.single = A->values == MG_VALUES_FLOAT && B->values == MG_VALUES_FLOAT;
    MG__TRY(mg_matrix_csr(A, &g.a_off, &g.a_idx, &g.a_val));
    MG__TRY(mg_matrix_csr(B, &g.b_off, &g.b_idx, &g.b_val));
    if (opts->mask != NULL) {
        MG__TRY(mg_matrix_csr(opts->mask, &g.m_off, &g.m_idx, NULL));
        g.mask_mode = opts->complement ? MASK_SKIP : MASK_KEEP;
    }
    const mg_values out_type = opts->semiring == MG_SEMIRING_OR_AND &&
                                       A->values == MG_VALUES_NONE && B->values == MG_VALUES_NONE
                                   ? MG_VALUES_NONE
                               : g.single ? MG_VALUES_FLOAT
                                          : MG_VALUES_DOUBLE;

    const size_t offsets = mg__mul_size((size_t)g.rows + 1, sizeof(uint64_t));
    work = mg__malloc(offsets);
    c_off = mg__malloc(offsets);
    if (work == NULL || c_off == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: out of memory for %u rows' sizes", g.rows);
#pragma omp parallel for schedule(static) if (A->nnz > SPGEMM_SERIAL_WORK)
    for (int64_t i = 0; i < (int64_t)g.rows; i++) {
        uint64_t w = 1;
        for (uint64_t e = g.a_off[i]; e < g.a_off[i + 1]; e++)
            w += g.b_off[g.a_idx[e] + 1] - g.b_off[g.a_idx[e]];
        if (g.mask_mode != MASK_NONE) w += g.m_off[i + 1] - g.m_off[i];
        work[i] = w;
    }
    work[g.rows] = 0;
    const uint64_t total = mg__exclusive_scan_u64(work, (size_t)g.rows + 1);
    g.work = work;
    g.parts = total > SPGEMM_SERIAL_WORK ? omp_get_max_threads() : 1;
    scratch = mg__calloc((size_t)g.parts, sizeof *scratch);
    if (scratch == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: out of memory for %d threads' accumulators",
                 g.parts);
    g.c_off = c_off;
    if (!run_pass(&g, scratch, false))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of memory for the accumulators (%u columns)", g.cols);
    c_off[g.rows] = 0;
    const uint64_t nnz = mg__exclusive_scan_u64(c_off, (size_t)g.rows + 1);

    M = mg__calloc(1, sizeof *M);
    if (M == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: out of memory allocating C");
    M->magic = MG__MAGIC_MATRIX;
    M->owns_csr = true;
    M->owns_csc = true;
    M->csr.offsets = c_off;
    c_off = NULL;
    const size_t value_bytes = out_type == MG_VALUES_DOUBLE ? 8 : out_type == MG_VALUES_FLOAT ? 4 : 0;
    M->csr.indices = mg__malloc(mg__mul_size((size_t)nnz, sizeof(uint32_t)));
    if (value_bytes > 0) M->csr.weights = mg__malloc(mg__mul_size((size_t)nnz, value_bytes));
    if (M->csr.indices == NULL || (value_bytes > 0 && M->csr.weights == NULL))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of memory for C: %llu entries need %.0f bytes",
                 (unsigned long long)nnz, (double)nnz * (double)(4 + value_bytes));
    g.c_off = M->csr.offsets;
    g.c_idx = M->csr.indices;
    g.c_val = M->csr.weights;
    if (!run_pass(&g, scratch, true))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of memory for the accumulators (%u columns)", g.cols);
    M->rows = g.rows;
    M->cols = g.cols;
    M->nnz = nnz;
    M->values = out_type;
    M->index_base = A->index_base;
    M->build_seconds = omp_get_wtime() - t0;
    *C = M;
    M = NULL;

cleanup:
    if (scratch != NULL)
        for (int p = 0; p < g.parts; p++) {
            mg__free(scratch[p].stamp);
            mg__free(scratch[p].dense);
            mg__free(scratch[p].keys);
            mg__free(scratch[p].state);
            mg__free(scratch[p].hval);
        }
    mg__free(scratch);
    mg__free(work);
    mg__free(c_off);
    mg_matrix_free(&M);
    return status;
}
