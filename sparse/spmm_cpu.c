/*
 * spmm_cpu.c — the CPU engine of mg_spmm and mg_sddmm, on OpenMP threads.
 *
 * SpMM, C = alpha op(A) B + beta C, B and C dense row-major with K columns: row i of C is the sum,
 * over row i's entries (i, j), of a_ij times row j of B. The threads split A by the merge path of
 * spmv_cpu.c (mg__merge_path_split over rows + nonzeros), so each gets an equal share of (row +
 * entry) steps whatever the degrees; a row longer than a share is split between threads, each of
 * which leaves its part as K partial sums that spmm_fixup adds in thread order. Within a row, K is
 * taken CHUNK columns at a time, the rest in pieces of 16, 8, 4, 2 and 1: a piece's sums stay in
 * registers across all the row's entries (an inner loop of constant length, which the compiler
 * unrolls and vectorises), and C's piece is then written once. While a piece is summed, the next
 * piece of the same B rows is prefetched, and during a row's last piece the first piece of the B
 * rows PREFETCH entries ahead. A^T B runs the same loops on the CSC, which is A^T's CSR.
 *
 * SDDMM, C[e] = alpha S(i, j) ((row i of A) . (row j of B)) + beta C[e] for S's entry e = (i, j):
 * the same merge-path split over S's rows + entries, one dot product per entry, B's row PREFETCH
 * entries ahead prefetched. A dot product keeps LANES independent partial sums, so it vectorises
 * without reassociating one sum, and adds them in a fixed order.
 *
 * Sums are in B's type (float sums in float, as spmv_cpu.c explains); alpha and beta are applied
 * in double. A value of C does not depend on the thread count, except in a row of A split between
 * threads, whose parts are summed in another grouping: there results differ by rounding only. SDDMM
 * results do not depend on the thread count at all.
 */
#include "sparse/sparse_internal.h"

#include <omp.h>

/* Below this many multiply-adds (plus rows) a parallel region costs more than the product. */
#define SPMM_SERIAL_WORK 65536

/* The columns a register tile holds: 128 bytes, 8 SSE registers of sums, half the register file. */
#define CHUNK(T) ((int)(128 / sizeof(T)))

/* B's rows are read in the order of A's column ids, at random: the loops prefetch the row of the
 * entry PREFETCH ahead (measured on 2^17 x 2^17 uniform, 16 a row, K = 32 float, one thread: 170
 * ms without, 19 ms with). LINE: values per cache line. */
#define PREFETCH 16
#define LINE(T) (64 / sizeof(T))

/* A row of A split between threads: which row a thread's part (K partial sums) belongs to. */
typedef struct {
    uint32_t row;
    bool valid;
} spmm_piece;

typedef struct {
    uint32_t rows;
    uint64_t nnz;
    size_t k;
    const uint64_t *offsets;
    const uint32_t *indices;
    const void *values;  /* NULL for a pattern                                         */
    const void *b;       /* SpMM: B; SDDMM: A's rows, the left operand                  */
    const void *b2;      /* SDDMM: B's rows                                             */
    void *c;
    double alpha, beta;  /* beta 0: C is written without being read                    */
    spmm_piece *head;    /* per thread: the end of a row an earlier one began            */
    spmm_piece *tail;    /* per thread: the start of a row a later one ends              */
    void *head_sums;     /* per thread: K sums of the type, for head and tail            */
    void *tail_sums;
} spmm_args;

/* A's value at entry e in type T, or 1 for a pattern. */
#define VALUE_OF_float(T, v, e) ((T)(v)[e])
#define VALUE_OF_double(T, v, e) ((T)(v)[e])
#define VALUE_OF_pattern(T, v, e) ((T)1)
typedef char pattern; /* a placeholder element type: pattern kernels never read values */

/* Writes w sums s to out: a part of a split row as it is, or C's entries through the epilogue. */
#define SPMM_STORE(T)                                                                              \
    static inline void spmm_store_##T(const spmm_args *a, T *restrict out, const T *restrict s,    \
                                      int w, bool part) {                                          \
        if (part)                                                                                  \
            for (int q = 0; q < w; q++) out[q] = s[q];                                             \
        else if (a->beta == 0)                                                                     \
            for (int q = 0; q < w; q++) out[q] = (T)(a->alpha * (double)s[q]);                     \
        else                                                                                       \
            for (int q = 0; q < w; q++)                                                            \
                out[q] = (T)(a->alpha * (double)s[q] + a->beta * (double)out[q]);                  \
    }

/* Columns [k0, k0 + W) of the product of row entries [lo, hi) and B, summed in registers, then
 * stored once. W is a constant at every call, so the inner loop unrolls and vectorises. */
#define SPMM_COLS(T, VT)                                                                           \
    static inline void spmm_cols_##T##_##VT(const spmm_args *a, uint64_t lo, uint64_t hi,          \
                                            size_t k0, const int W, T *out, bool part) {           \
        const uint32_t *restrict idx = a->indices;                                                 \
        const VT *restrict val = a->values;                                                        \
        const T *restrict B = (const T *)a->b + k0;                                                \
        const size_t K = a->k;                                                                     \
        T s[CHUNK(T)] = {0};                                                                       \
        (void)val;                                                                                 \
        const bool last = k0 + (size_t)W == K;                                                     \
        for (uint64_t e = lo; e < hi; e++) {                                                       \
            if (!last) {                                                                           \
                __builtin_prefetch(B + (size_t)idx[e] * K + W);                                    \
                __builtin_prefetch(B + (size_t)idx[e] * K + W + CHUNK(T) - 1);                     \
            } else if (e + PREFETCH < a->nnz) {                                                    \
                const T *f = (const T *)a->b + (size_t)idx[e + PREFETCH] * K;                      \
                __builtin_prefetch(f);                                                             \
                __builtin_prefetch(f + (K < (size_t)CHUNK(T) ? K : (size_t)CHUNK(T)) - 1);        \
            }                                                                                      \
            const T v = VALUE_OF_##VT(T, val, e);                                                  \
            const T *restrict b = B + (size_t)idx[e] * K;                                          \
            for (int q = 0; q < W; q++) s[q] += v * b[q];                                          \
        }                                                                                          \
        spmm_store_##T(a, out + k0, s, W, part);                                                   \
    }

/* Row r's entries [lo, hi) times B, into C's row r (part NULL) or into part's K sums: whole
 * chunks, then the remainder in pieces of 16, 8, 4, 2 and 1 columns, each of constant width. */
#define SPMM_ROW(T, VT)                                                                            \
    SPMM_COLS(T, VT)                                                                               \
    static inline void spmm_row_##T##_##VT(const spmm_args *a, uint32_t r, uint64_t lo,            \
                                           uint64_t hi, T *part) {                                 \
        const size_t K = a->k;                                                                     \
        const bool p = part != NULL;                                                               \
        T *out = p ? part : (T *)a->c + (size_t)r * K;                                             \
        size_t k0 = 0;                                                                             \
        for (; k0 + CHUNK(T) <= K; k0 += CHUNK(T))                                                 \
            spmm_cols_##T##_##VT(a, lo, hi, k0, CHUNK(T), out, p);                                 \
        if (CHUNK(T) > 16 && K - k0 >= 16) {                                                       \
            spmm_cols_##T##_##VT(a, lo, hi, k0, 16, out, p);                                       \
            k0 += 16;                                                                              \
        }                                                                                          \
        if (K - k0 >= 8) {                                                                         \
            spmm_cols_##T##_##VT(a, lo, hi, k0, 8, out, p);                                        \
            k0 += 8;                                                                               \
        }                                                                                          \
        if (K - k0 >= 4) {                                                                         \
            spmm_cols_##T##_##VT(a, lo, hi, k0, 4, out, p);                                        \
            k0 += 4;                                                                               \
        }                                                                                          \
        if (K - k0 >= 2) {                                                                         \
            spmm_cols_##T##_##VT(a, lo, hi, k0, 2, out, p);                                        \
            k0 += 2;                                                                               \
        }                                                                                          \
        if (K - k0 >= 1) spmm_cols_##T##_##VT(a, lo, hi, k0, 1, out, p);                           \
    }

/* One SpMM kernel: the thread's merge-path share, whole rows written to C, split rows' parts left
 * in head/tail for spmm_fixup. */
#define SPMM_KERNEL(T, VT)                                                                         \
    SPMM_ROW(T, VT)                                                                                \
    static void spmm_##T##_##VT(const spmm_args *a) {                                              \
        const uint64_t *restrict off = a->offsets;                                                 \
        const uint64_t steps = (uint64_t)a->rows + a->nnz;                                         \
        int team = 1;                                                                              \
        _Pragma("omp parallel if ((a->nnz + a->rows) * a->k > SPMM_SERIAL_WORK)") {                \
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();                        \
            if (t == 0) team = nt;                                                                 \
            uint32_t r0, r1;                                                                       \
            uint64_t e0, e1;                                                                       \
            mg__merge_path_split(off, a->rows, a->nnz, steps * (uint64_t)t / (uint64_t)nt, &r0,    \
                                 &e0);                                                             \
            mg__merge_path_split(off, a->rows, a->nnz, steps * (uint64_t)(t + 1) / (uint64_t)nt,   \
                                 &r1, &e1);                                                        \
            a->head[t].valid = false;                                                              \
            a->tail[t].valid = false;                                                              \
            T *head = (T *)a->head_sums + (size_t)t * a->k;                                        \
            T *tail = (T *)a->tail_sums + (size_t)t * a->k;                                        \
            for (uint32_t r = r0; r < r1; r++) {                                                   \
                const bool begun = off[r] < e0;                                                    \
                spmm_row_##T##_##VT(a, r, begun ? e0 : off[r], off[r + 1], begun ? head : NULL);   \
                if (begun) a->head[t] = (spmm_piece){.row = r, .valid = true};                     \
            }                                                                                      \
            if (r1 < a->rows) {                                                                    \
                const uint64_t lo = off[r1] > e0 ? off[r1] : e0;                                   \
                if (e1 > lo) {                                                                     \
                    spmm_row_##T##_##VT(a, r1, lo, e1, tail);                                      \
                    a->tail[t] = (spmm_piece){.row = r1, .valid = true};                           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        spmm_fixup_##T(a, team);                                                                   \
    }

/* Adds split rows' parts in thread order (a split row's parts sit in consecutive threads: tails of
 * the threads it spans, then the head of the thread that ends it) and writes them through the
 * epilogue. The running sum lives in the first tail of the row. */
#define SPMM_FIXUP(T)                                                                              \
    static void spmm_fixup_##T(const spmm_args *a, int threads) {                                  \
        const size_t K = a->k;                                                                     \
        T *sum = NULL;                                                                             \
        for (int t = 0; t < threads; t++) {                                                        \
            T *head = (T *)a->head_sums + (size_t)t * K, *tail = (T *)a->tail_sums + (size_t)t * K; \
            if (a->head[t].valid) {                                                                \
                if (sum != NULL)                                                                   \
                    for (size_t q = 0; q < K; q++) head[q] = sum[q] + head[q];                     \
                T *c = (T *)a->c + (size_t)a->head[t].row * K;                                     \
                for (size_t q0 = 0; q0 < K; q0 += (size_t)CHUNK(T)) {                              \
                    const size_t w = K - q0 < (size_t)CHUNK(T) ? K - q0 : (size_t)CHUNK(T);        \
                    spmm_store_##T(a, c + q0, head + q0, (int)w, false);                           \
                }                                                                                  \
                sum = NULL;                                                                        \
            }                                                                                      \
            if (a->tail[t].valid) {                                                                \
                if (sum != NULL)                                                                   \
                    for (size_t q = 0; q < K; q++) sum[q] += tail[q];                              \
                else sum = tail;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }

/* C[e] for the thread's merge-path share of S's entries: S(i, j) (A_i . B_j) through the epilogue. */
#define SDDMM_KERNEL(T, VT)                                                                        \
    static void sddmm_##T##_##VT(const spmm_args *a) {                                             \
        const uint64_t *restrict off = a->offsets;                                                 \
        const uint32_t *restrict idx = a->indices;                                                 \
        const VT *restrict val = a->values;                                                        \
        const T *restrict A = a->b, *restrict B = a->b2;                                           \
        T *restrict C = a->c;                                                                      \
        const size_t K = a->k;                                                                     \
        const uint64_t steps = (uint64_t)a->rows + a->nnz;                                         \
        (void)val;                                                                                 \
        _Pragma("omp parallel if ((a->nnz + a->rows) * a->k > SPMM_SERIAL_WORK)") {                \
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();                        \
            uint32_t r0, r1;                                                                       \
            uint64_t e0, e1;                                                                       \
            mg__merge_path_split(off, a->rows, a->nnz, steps * (uint64_t)t / (uint64_t)nt, &r0,    \
                                 &e0);                                                             \
            mg__merge_path_split(off, a->rows, a->nnz, steps * (uint64_t)(t + 1) / (uint64_t)nt,   \
                                 &r1, &e1);                                                        \
            for (uint32_t r = r0; r <= r1 && r < a->rows; r++) {                                   \
                const uint64_t lo = off[r] > e0 ? off[r] : e0;                                     \
                const uint64_t hi = off[r + 1] < e1 ? off[r + 1] : e1;                             \
                const T *restrict x = A + (size_t)r * K;                                           \
                for (uint64_t e = lo; e < hi; e++) {                                               \
                    if (e + PREFETCH < a->nnz) {                                                   \
                        const T *f = B + (size_t)idx[e + PREFETCH] * K;                            \
                        for (size_t q = 0; q < K && q < 8 * LINE(T); q += LINE(T))                 \
                            __builtin_prefetch(f + q);                                             \
                    }                                                                              \
                    const T d = sddmm_dot_##T(x, B + (size_t)idx[e] * K, K);                       \
                    const double p = (double)(VALUE_OF_##VT(T, val, e) * d);                       \
                    C[e] = a->beta == 0 ? (T)(a->alpha * p)                                        \
                                        : (T)(a->alpha * p + a->beta * (double)C[e]);              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* x . y over K: LANES(T) independent sums (when K has that many), added in a fixed order, then
 * the remainder. */
#define LANES(T) ((int)(64 / sizeof(T)))
#define SDDMM_DOT(T)                                                                               \
    static inline T sddmm_dot_##T(const T *restrict x, const T *restrict y, size_t K) {            \
        T d = 0;                                                                                   \
        size_t k = 0;                                                                              \
        if (K >= (size_t)LANES(T)) {                                                               \
            T s[LANES(T)] = {0};                                                                   \
            for (; k + LANES(T) <= K; k += LANES(T))                                               \
                for (int q = 0; q < LANES(T); q++) s[q] += x[k + q] * y[k + q];                    \
            for (int w = LANES(T) / 2; w > 0; w /= 2)                                              \
                for (int q = 0; q < w; q++) s[q] += s[q + w];                                      \
            d = s[0];                                                                              \
        }                                                                                          \
        for (; k < K; k++) d += x[k] * y[k];                                                       \
        return d;                                                                                  \
    }

#define SPMM_TYPE(T)                                                                               \
    SPMM_STORE(T)                                                                                  \
    SPMM_FIXUP(T)                                                                                  \
    SDDMM_DOT(T)                                                                                   \
    SPMM_KERNEL(T, float)                                                                          \
    SPMM_KERNEL(T, double)                                                                         \
    SPMM_KERNEL(T, pattern)                                                                        \
    SDDMM_KERNEL(T, float)                                                                         \
    SDDMM_KERNEL(T, double)                                                                        \
    SDDMM_KERNEL(T, pattern)

SPMM_TYPE(float)
SPMM_TYPE(double)

typedef void (*spmm_kernel)(const spmm_args *a);

/* [dense type: float, double][A's values: none, float, double] */
static const spmm_kernel spmm_kernels[2][3] = {
    {spmm_float_pattern, spmm_float_float, spmm_float_double},
    {spmm_double_pattern, spmm_double_float, spmm_double_double}};
static const spmm_kernel sddmm_kernels[2][3] = {
    {sddmm_float_pattern, sddmm_float_float, sddmm_float_double},
    {sddmm_double_pattern, sddmm_double_float, sddmm_double_double}};

static int value_kind(const mg_matrix A) {
    return A->values == MG_VALUES_FLOAT ? 1 : A->values == MG_VALUES_DOUBLE ? 2 : 0;
}

mg_status mg__cpu_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                       const mg_spmm_options *opts) {
    mg_status status = MG_SUCCESS;
    void *scratch = NULL;
    spmm_args a;
    memset(&a, 0, sizeof a);
    MG__TRY(mg__matrix_op(ctx, A, opts->transpose, &a.rows, &a.offsets, &a.indices, &a.values));
    a.nnz = A->nnz;
    a.k = B->cols;
    MG__TRY(mg__dense_need_host(ctx, B));
    /* beta 0 overwrites C whole; otherwise its current values are an input. */
    if (opts->beta != 0) MG__TRY(mg__dense_need_host(ctx, C));
    const size_t threads = (size_t)omp_get_max_threads();
    const size_t sums = mg__mul_size(mg__mul_size(threads, a.k), mg__type_size(B->type));
    const size_t pieces = mg__mul_size(threads, sizeof(spmm_piece));
    /* one block: the pieces (8 bytes each), then the sums, which so stay aligned for their type */
    scratch = mg__malloc(sums == SIZE_MAX || pieces == SIZE_MAX ? SIZE_MAX : 2 * (pieces + sums));
    if (scratch == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spmm: out of memory for %zu threads' partial rows (K = %zu)", threads, a.k);
    a.head = scratch;
    a.tail = a.head + threads;
    a.head_sums = a.tail + threads;
    a.tail_sums = (char *)a.head_sums + sums;
    a.b = B->data;
    a.c = C->data;
    a.alpha = opts->alpha;
    a.beta = opts->beta;
    const int kind = value_kind(A);
    if (kind == 0) a.values = NULL;
    spmm_kernels[B->type == MG_FLOAT ? 0 : 1][kind](&a);
    C->on_device = false;

cleanup:
    mg__free(scratch);
    return status;
}

mg_status mg__cpu_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A, const mg_dense B,
                        mg_dense C, const mg_sddmm_options *opts) {
    mg_status status = MG_SUCCESS;
    spmm_args a;
    memset(&a, 0, sizeof a);
    MG__TRY(mg_matrix_csr(S, &a.offsets, &a.indices, &a.values));
    a.rows = S->rows;
    a.nnz = S->nnz;
    a.k = A->cols;
    MG__TRY(mg__dense_need_host(ctx, A));
    MG__TRY(mg__dense_need_host(ctx, B));
    if (opts->beta != 0) MG__TRY(mg__dense_need_host(ctx, C));
    a.b = A->data;
    a.b2 = B->data;
    a.c = C->data;
    a.alpha = opts->alpha;
    a.beta = opts->beta;
    const int kind = value_kind(S);
    if (kind == 0) a.values = NULL;
    sddmm_kernels[A->type == MG_FLOAT ? 0 : 1][kind](&a);
    C->on_device = false;

cleanup:
    return status;
}
