/*
 * spgemm_cpu.c — the CPU engine of mg_spgemm, C = A B over a semiring, on OpenMP threads.
 *
 * Gustavson's row-by-row product (ACM TOMS 4(3), 1978): row i of C is the semiring sum, over row
 * i's entries (i, k), of a_ik times row k of B. The rows are cut into one contiguous part per
 * thread by their work, flops(i) + |M_i| + 1 where flops(i) is the sum of B's row lengths over A's
 * row i, so a few heavy rows do not leave threads idle. One pass: each part computes its rows into
 * its own buffer (sized by each row's bound before the row is computed), then C is allocated at its
 * exact size and every part copies its rows in; a symbolic pass would walk all the flops twice.
 *
 * Accumulators, chosen per row: B's rows are sorted, so the row's output lies within
 * [lo, hi] = [min of the first columns, max of the last columns] of the B rows it reads, found in
 * O(|A_i|). A dense accumulator over that range (a stamp per column saying whether it is new, hit,
 * allowed or forbidden in this row, so nothing is cleared between rows) serves the row when the
 * range fits a cache-sized window or the row's bound on distinct columns (min(flops, cols), |M_i|
 * with a mask, flops + |M_i| with its complement) is a large share of it; else a hash table of twice
 * the bound rounded up to a power of two, with linear probing. A mask's row is loaded first: its
 * columns as the only ones allowed (C<M>, so C's row comes out in M's sorted order), or as the
 * forbidden ones (C<!M>). Other rows are read off the dense stamps in column order when the range
 * is short, else sorted.
 *
 * The row kernels are inlined into one function per (semiring, value kind), so the inner loops
 * read typed arrays and have no switch. Arithmetic: double, or float when A and B both are float.
 * Float is computed in double and rounded to float after each operation, which gives exactly float
 * arithmetic (a double holds a float product or sum of two floats before its one rounding). Each
 * row is computed by one thread in A's entry order: C does not depend on the thread count.
 */
#include "sparse/sparse_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Below this much work (multiply-adds + mask entries + rows) a parallel region costs more. */
#define SPGEMM_SERIAL_WORK 65536
/* A row whose column range is at most the bound times DENSE_RATIO uses the dense accumulator: a
 * hash table of twice the bound would be a large share of the range anyway, and probes cost more. */
#define DENSE_RATIO 16
/* A range of at most this many columns uses the dense accumulator whatever the bound: its stamps
 * and values (16 bytes a column) stay in a core's L2 cache, where a probe-free update is cheapest. */
#define DENSE_WINDOW 32768
/* The dense accumulator reads its row off the stamps when the range is at most this many times
 * n log2 n for the row's n columns (a scan's step is a compare; a sort's, a compare and a move
 * that mispredicts); else sorting the row's columns costs less. */
#define SCAN_RATIO 2
/* A part's row buffer is first sized by its work up to this many entries (12 bytes each). */
#define RESERVE_CAP (UINT64_C(1) << 24)
/* Sorting: insertion sort below this many columns, quicksort partitions above. */
#define SORT_CUTOFF 32

enum { MASK_NONE, MASK_KEEP, MASK_SKIP };
/* The inputs' values as the inner loops read them: both double, both float (float arithmetic), a
 * pattern product (or-and over two patterns: no values at all), or any other mix (read per entry,
 * double arithmetic). */
typedef enum { VK_F64, VK_F32, VK_PATTERN, VK_MIXED, VK_KINDS } value_kind;
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
    size_t value_bytes;      /* of C's values: 8, 4, or 0 for a pattern              */
    const uint64_t *work;    /* rows + 1: the exclusive prefix of each row's work    */
    int parts;
    uint64_t *c_size;        /* rows + 1: each row's size, written by the pass       */
} spgemm_args;

/* One part's accumulators and rows of C, grown on need by the thread that runs the part. */
typedef struct {
    uint64_t *stamp;         /* dense: window stamps, column j at j - lo             */
    double *dense;           /* dense: window values                                 */
    size_t window;
    uint32_t *keys;          /* hash: capacity keys, states and values               */
    uint8_t *state;
    double *hval;
    size_t capacity;
    uint32_t *idx;           /* the part's rows of C, in row order: used of room     */
    void *val;
    size_t used, room;
} spgemm_scratch;

static inline double read_value(mg_values t, const void *v, uint64_t e) {
    return t == MG_VALUES_DOUBLE ? ((const double *)v)[e]
           : t == MG_VALUES_FLOAT ? (double)((const float *)v)[e]
                                  : 1.0;
}

ALWAYS_INLINE double value_at(value_kind kind, mg_values t, const void *v, uint64_t e) {
    return kind == VK_F64 ? ((const double *)v)[e]
           : kind == VK_F32 ? (double)((const float *)v)[e]
           : kind == VK_PATTERN ? 1.0
                                : read_value(t, v, e);
}

ALWAYS_INLINE double round_to(value_kind kind, double x) {
    return kind == VK_F32 ? (double)(float)x : x;
}

static double identity_of(mg_semiring s) {
    return s == MG_SEMIRING_MIN_PLUS ? INFINITY : s == MG_SEMIRING_MAX_TIMES ? -INFINITY : 0.0;
}

/* acc (+) a (*) b, each operation rounded to the arithmetic's type; the comparisons match the
 * reference's (a NaN term leaves min and max as they were). */
ALWAYS_INLINE double combine(mg_semiring s, value_kind kind, double acc, double a, double b) {
    switch (s) {
    case MG_SEMIRING_PLUS_TIMES: return round_to(kind, acc + round_to(kind, a * b));
    case MG_SEMIRING_MIN_PLUS: {
        const double p = round_to(kind, a + b);
        return p < acc ? p : acc;
    }
    case MG_SEMIRING_MAX_TIMES: {
        const double p = round_to(kind, a * b);
        return p > acc ? p : acc;
    }
    case MG_SEMIRING_OR_AND: return (acc != 0 || (a != 0 && b != 0)) ? 1.0 : 0.0;
    }
    return acc;
}

ALWAYS_INLINE void store(value_kind kind, void *v, uint64_t q, double x) {
    if (kind == VK_F32) ((float *)v)[q] = (float)x;
    else ((double *)v)[q] = x;
}

static void insertion_sort_u32(uint32_t *a, size_t n) {
    for (size_t i = 1; i < n; i++) {
        const uint32_t x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Sorts n distinct columns: quicksort on the median of three, recursing into the shorter side so
 * the stack stays O(log n), insertion sort on short pieces (a hashed row is usually short). */
static void sort_u32(uint32_t *a, size_t n) {
    while (n > SORT_CUTOFF) {
        const uint32_t x = a[0], y = a[n / 2], z = a[n - 1];
        const uint32_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            const uint32_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        /* a[0..j] <= pivot <= a[j+1..n) */
        if (j + 1 < n - j - 1) {
            sort_u32(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            sort_u32(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    insertion_sort_u32(a, n);
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

static size_t table_capacity(uint64_t bound) {
    size_t c = 8;
    while (c < 2 * bound) c *= 2;
    return c;
}

/* The slot of column j in the first cap slots of s's table (cap a power of two): j's, or the free
 * one where it would go. The table is never full (cap >= twice the columns it receives). */
ALWAYS_INLINE size_t probe(const spgemm_scratch *s, size_t cap, uint32_t j) {
    const size_t mask = cap - 1;
    size_t h = (size_t)((j * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
    while (s->state[h] != ST_EMPTY && s->keys[h] != j) h = (h + 1) & mask;
    return h;
}

/* Grows s's dense window, hash table or row buffer; false when out of memory. A new window is
 * zeroed so no stale stamp can match a row's base. */
static bool grow_window(spgemm_scratch *s, size_t window) {
    mg__free(s->stamp);
    mg__free(s->dense);
    s->stamp = mg__calloc(window, sizeof *s->stamp);
    s->dense = mg__malloc(mg__mul_size(window, sizeof *s->dense));
    s->window = s->stamp && s->dense ? window : 0;
    return s->window != 0;
}

static bool grow_table(spgemm_scratch *s, size_t capacity) {
    mg__free(s->keys);
    mg__free(s->state);
    mg__free(s->hval);
    s->keys = mg__malloc(mg__mul_size(capacity, sizeof *s->keys));
    s->state = mg__malloc(capacity);
    s->hval = mg__malloc(mg__mul_size(capacity, sizeof *s->hval));
    s->capacity = s->keys && s->state && s->hval ? capacity : 0;
    return s->capacity != 0;
}

static bool grow_rows(const spgemm_args *g, spgemm_scratch *s, size_t need) {
    size_t room = s->room < 1024 ? 1024 : s->room;
    while (room < need) room *= 2;
    uint32_t *idx = mg__realloc(s->idx, mg__mul_size(room, sizeof *idx));
    if (idx == NULL) return false;
    s->idx = idx;
    if (g->value_bytes > 0) {
        void *val = mg__realloc(s->val, mg__mul_size(room, g->value_bytes));
        if (val == NULL) return false;
        s->val = val;
    }
    s->room = room;
    return true;
}

/* Row i with the dense accumulator over columns [lo, lo + width): returns its size, its columns in
 * out and values in vout. */
ALWAYS_INLINE uint64_t row_dense(const spgemm_args *g, spgemm_scratch *s, uint32_t i, uint32_t lo,
                                 uint32_t width, uint32_t *restrict out, void *restrict vout,
                                 mg_semiring sr, value_kind kind) {
    const uint64_t base = 4 * ((uint64_t)i + 1);
    uint64_t *restrict stamp = s->stamp;
    double *restrict acc = s->dense;
    const bool values = kind != VK_PATTERN;
    const double identity = identity_of(sr);
    const int mask_mode = g->mask_mode;
    uint64_t n = 0;
    if (mask_mode != MASK_NONE)
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++) {
            const uint32_t j = g->m_idx[e] - lo;
            if (j < width) stamp[j] = base + (mask_mode == MASK_KEEP ? ST_ALLOWED : ST_FORBIDDEN);
        }
    for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
        const uint32_t k = g->a_idx[e];
        const double a = value_at(kind, g->a_type, g->a_val, e);
        for (uint64_t f = g->b_off[k]; f < g->b_off[k + 1]; f++) {
            const uint32_t j = g->b_idx[f] - lo;
            const uint64_t st = stamp[j];
            if (st != base + ST_HIT) {
                const bool fresh = mask_mode == MASK_KEEP ? st == base + ST_ALLOWED
                                   : mask_mode == MASK_SKIP ? st != base + ST_FORBIDDEN
                                                            : true;
                if (!fresh) continue;
                stamp[j] = base + ST_HIT;
                n++;
                if (values) acc[j] = identity;
            }
            if (values)
                acc[j] = combine(sr, kind, acc[j], a, value_at(kind, g->b_type, g->b_val, f));
        }
    }
    uint64_t q = 0;
    if (mask_mode == MASK_KEEP) {
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++) {
            const uint32_t j = g->m_idx[e] - lo;
            if (j < width && stamp[j] == base + ST_HIT) out[q++] = j;
        }
    } else if (width <= n * (uint64_t)(64 - __builtin_clzll(n | 1)) * SCAN_RATIO) {
        for (uint32_t j = 0; j < width; j++)
            if (stamp[j] == base + ST_HIT) out[q++] = j;
    } else {
        /* the hits, found again in B's rows, then sorted */
        for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
            const uint32_t k = g->a_idx[e];
            for (uint64_t f = g->b_off[k]; f < g->b_off[k + 1]; f++) {
                const uint32_t j = g->b_idx[f] - lo;
                if (stamp[j] == base + ST_HIT) {
                    stamp[j] = base + ST_ALLOWED; /* listed once */
                    out[q++] = j;
                }
            }
        }
        sort_u32(out, (size_t)q);
    }
    for (uint64_t p = 0; p < q; p++) {
        if (values) store(kind, vout, p, acc[out[p]]);
        out[p] += lo;
    }
    return q;
}

/* Row i with the hash accumulator, as row_dense. */
ALWAYS_INLINE uint64_t row_hash(const spgemm_args *g, spgemm_scratch *s, uint32_t i,
                                uint64_t bound, uint32_t *restrict out, void *restrict vout,
                                mg_semiring sr, value_kind kind) {
    const bool values = kind != VK_PATTERN;
    const double identity = identity_of(sr);
    const int mask_mode = g->mask_mode;
    const size_t cap = table_capacity(bound); /* the row's share of the part's table */
    memset(s->state, ST_EMPTY, cap);
    uint64_t n = 0;
    if (mask_mode != MASK_NONE)
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++) {
            const size_t h = probe(s, cap, g->m_idx[e]);
            s->keys[h] = g->m_idx[e];
            s->state[h] = mask_mode == MASK_KEEP ? ST_ALLOWED : ST_FORBIDDEN;
        }
    for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
        const uint32_t k = g->a_idx[e];
        const double a = value_at(kind, g->a_type, g->a_val, e);
        for (uint64_t f = g->b_off[k]; f < g->b_off[k + 1]; f++) {
            const uint32_t j = g->b_idx[f];
            const size_t h = probe(s, cap, j);
            const uint8_t st = s->state[h];
            if (st != ST_HIT) {
                const bool fresh = mask_mode == MASK_KEEP ? st == ST_ALLOWED
                                   : mask_mode == MASK_SKIP ? st != ST_FORBIDDEN
                                                            : true;
                if (!fresh) continue;
                s->keys[h] = j;
                s->state[h] = ST_HIT;
                if (mask_mode != MASK_KEEP) out[n] = j;
                n++;
                if (values) s->hval[h] = identity;
            }
            if (values)
                s->hval[h] =
                    combine(sr, kind, s->hval[h], a, value_at(kind, g->b_type, g->b_val, f));
        }
    }
    if (mask_mode == MASK_KEEP) {
        uint64_t q = 0;
        for (uint64_t e = g->m_off[i]; e < g->m_off[i + 1]; e++)
            if (s->state[probe(s, cap, g->m_idx[e])] == ST_HIT) out[q++] = g->m_idx[e];
    } else {
        sort_u32(out, (size_t)n);
    }
    if (values)
        for (uint64_t q = 0; q < n; q++) store(kind, vout, q, s->hval[probe(s, cap, out[q])]);
    return n;
}

/* The width of row i's column range, its first column in *first: B's rows are sorted, so the
 * range runs from the least first column to the greatest last one of the B rows it reads. Row i
 * reads at least one entry of B. */
ALWAYS_INLINE uint64_t row_width(const spgemm_args *g, uint32_t i, uint32_t *first) {
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint64_t e = g->a_off[i]; e < g->a_off[i + 1]; e++) {
        const uint32_t k = g->a_idx[e];
        if (g->b_off[k] == g->b_off[k + 1]) continue;
        if (g->b_idx[g->b_off[k]] < lo) lo = g->b_idx[g->b_off[k]];
        if (g->b_idx[g->b_off[k + 1] - 1] > hi) hi = g->b_idx[g->b_off[k + 1] - 1];
    }
    *first = lo;
    return (uint64_t)hi - lo + 1;
}

/* Rows [lo, hi) into s's buffer, their sizes into g->c_size; false when out of memory. */
ALWAYS_INLINE bool run_part(const spgemm_args *g, spgemm_scratch *s, uint32_t lo, uint32_t hi,
                            mg_semiring sr, value_kind kind) {
    /* The buffer starts at the sum of the rows' bounds, capped: one block, rather than growing by
     * copies (each new block's pages faulted in again). */
    uint64_t reserve = 0;
    for (uint32_t i = lo; i < hi && reserve < RESERVE_CAP; i++) {
        uint64_t flops;
        const uint64_t bound = row_bound(g, i, &flops);
        const uint64_t width = flops > 0 ? row_width(g, i, &(uint32_t){0}) : 0;
        reserve += bound < width ? bound : width;
    }
    if (reserve > 0 && !grow_rows(g, s, reserve < RESERVE_CAP ? (size_t)reserve : RESERVE_CAP))
        return false;
    for (uint32_t i = lo; i < hi; i++) {
        uint64_t flops;
        const uint64_t bound = row_bound(g, i, &flops);
        uint64_t n = 0;
        if (flops > 0 && bound > 0) {
            if (s->used + bound > s->room && !grow_rows(g, s, s->used + bound)) return false;
            uint32_t *out = s->idx + s->used;
            void *vout = g->value_bytes > 0 ? (char *)s->val + s->used * g->value_bytes : NULL;
            uint32_t first;
            const uint64_t width = row_width(g, i, &first);
            if (width <= DENSE_WINDOW || width <= bound * DENSE_RATIO) {
                if (width > s->window && !grow_window(s, width)) return false;
                n = row_dense(g, s, i, first, (uint32_t)width, out, vout, sr, kind);
            } else {
                const size_t cap = table_capacity(bound);
                if (cap > s->capacity && !grow_table(s, cap)) return false;
                n = row_hash(g, s, i, bound, out, vout, sr, kind);
            }
        }
        s->used += n;
        g->c_size[i] = n;
    }
    return true;
}

typedef bool (*part_kernel)(const spgemm_args *, spgemm_scratch *, uint32_t, uint32_t);
#define PART_KERNEL(sr, kind)                                                                     \
    static bool part_##sr##_##kind(const spgemm_args *g, spgemm_scratch *s, uint32_t lo,          \
                                   uint32_t hi) {                                                 \
        return run_part(g, s, lo, hi, sr, kind);                                                  \
    }
#define PART_KERNELS(sr)                                                                          \
    PART_KERNEL(sr, VK_F64) PART_KERNEL(sr, VK_F32) PART_KERNEL(sr, VK_PATTERN)                   \
    PART_KERNEL(sr, VK_MIXED)
PART_KERNELS(MG_SEMIRING_PLUS_TIMES)
PART_KERNELS(MG_SEMIRING_MIN_PLUS)
PART_KERNELS(MG_SEMIRING_MAX_TIMES)
PART_KERNELS(MG_SEMIRING_OR_AND)
#define PART_ROW(sr)                                                                              \
    {part_##sr##_VK_F64, part_##sr##_VK_F32, part_##sr##_VK_PATTERN, part_##sr##_VK_MIXED}
static const part_kernel part_kernels[][VK_KINDS] = {
    [MG_SEMIRING_PLUS_TIMES] = PART_ROW(MG_SEMIRING_PLUS_TIMES),
    [MG_SEMIRING_MIN_PLUS] = PART_ROW(MG_SEMIRING_MIN_PLUS),
    [MG_SEMIRING_MAX_TIMES] = PART_ROW(MG_SEMIRING_MAX_TIMES),
    [MG_SEMIRING_OR_AND] = PART_ROW(MG_SEMIRING_OR_AND),
};

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
    MG__TRY(mg_matrix_csr(A, &g.a_off, &g.a_idx, &g.a_val));
    MG__TRY(mg_matrix_csr(B, &g.b_off, &g.b_idx, &g.b_val));
    if (opts->mask != NULL) {
        MG__TRY(mg_matrix_csr(opts->mask, &g.m_off, &g.m_idx, NULL));
        g.mask_mode = opts->complement ? MASK_SKIP : MASK_KEEP;
    }
    const bool single = A->values == MG_VALUES_FLOAT && B->values == MG_VALUES_FLOAT;
    const value_kind kind =
        opts->semiring == MG_SEMIRING_OR_AND && A->values == MG_VALUES_NONE &&
                B->values == MG_VALUES_NONE
            ? VK_PATTERN
        : single                                                                  ? VK_F32
        : A->values == MG_VALUES_DOUBLE && B->values == MG_VALUES_DOUBLE ? VK_F64
                                                                         : VK_MIXED;
    const mg_values out_type = kind == VK_PATTERN ? MG_VALUES_NONE
                               : single          ? MG_VALUES_FLOAT
                                                 : MG_VALUES_DOUBLE;
    g.value_bytes = out_type == MG_VALUES_DOUBLE ? 8 : out_type == MG_VALUES_FLOAT ? 4 : 0;

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
    g.c_size = c_off;
    const part_kernel kernel = part_kernels[opts->semiring][kind];
    int failed = 0;
#pragma omp parallel num_threads(g.parts) if (g.parts > 1)
    for (int p = omp_get_thread_num(); p < g.parts; p += omp_get_num_threads())
        if (!kernel(&g, &scratch[p], part_start(&g, p), part_start(&g, p + 1))) {
#pragma omp atomic write
            failed = 1;
        }
    if (failed) {
        size_t held = 0;
        for (int p = 0; p < g.parts; p++) held += scratch[p].used;
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of memory for the accumulators (%u columns) or C's rows (%.0f "
                 "bytes held for %zu entries so far)",
                 g.cols, (double)held * (double)(4 + g.value_bytes), held);
    }
    c_off[g.rows] = 0;
    const uint64_t nnz = mg__exclusive_scan_u64(c_off, (size_t)g.rows + 1);

    M = mg__calloc(1, sizeof *M);
    if (M == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: out of memory allocating C");
    M->magic = MG__MAGIC_MATRIX;
    M->owns_csr = true;
    M->owns_csc = true;
    M->csr.offsets = c_off;
    c_off = NULL;
    M->csr.indices = mg__malloc(mg__mul_size((size_t)nnz, sizeof(uint32_t)));
    if (g.value_bytes > 0) M->csr.weights = mg__malloc(mg__mul_size((size_t)nnz, g.value_bytes));
    if (M->csr.indices == NULL || (g.value_bytes > 0 && M->csr.weights == NULL))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of memory for C: %llu entries need %.0f bytes",
                 (unsigned long long)nnz, (double)nnz * (double)(4 + g.value_bytes));
#pragma omp parallel for schedule(static, 1) num_threads(g.parts) if (g.parts > 1)
    for (int p = 0; p < g.parts; p++) {
        const uint64_t at = M->csr.offsets[part_start(&g, p)];
        if (scratch[p].used == 0) continue;
        memcpy(M->csr.indices + at, scratch[p].idx, scratch[p].used * sizeof(uint32_t));
        if (g.value_bytes > 0)
            memcpy((char *)M->csr.weights + at * g.value_bytes, scratch[p].val,
                   scratch[p].used * g.value_bytes);
    }
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
            mg__free(scratch[p].idx);
            mg__free(scratch[p].val);
        }
    mg__free(scratch);
    mg__free(work);
    mg__free(c_off);
    mg_matrix_free(&M);
    return status;
}
