/*
 * cpu_engine.c — the OpenMP engine behind mg_advance.
 *
 * Two ways to run one edge program step, chosen per call (direction optimisation, after Beamer et
 * al., "Direction-Optimizing Breadth-First Search", SC'12, and Ligra's edgeMap):
 *  - push: each active source scans its edges and updates destinations with atomics. Programs whose
 *    combine and apply agree (min/min, max/max, any/if-unset, sum/add) update y directly; the rest
 *    combine into a scratch accumulator first and apply once per touched destination.
 *  - pull: each eligible destination scans its in-edges, combines the contributions of active
 *    sources in a register and applies once; no atomics, and MG_COMBINE_ANY stops at the first
 *    active source. Destinations are visited 64 at a time so each thread owns whole bitmap words.
 * The choice compares the frontier's edges with the edges of the eligible destinations.
 *
 * Kernels are written once per value type (DEFINE_ENGINE) as always-inline functions taking the
 * contribution and combine as arguments. The dispatch passes them as constants for the programs of
 * the built-in algorithms (HOT_*), so those per-edge loops have no branches on the program; every
 * other program runs one generic copy per value type that reads them at run time.
 */
#include "engine.h"
#include "core/dist.h"

#include <math.h>
#include <omp.h>

/* Push is taken without further estimates when the frontier's edges are below m / PUSH_CHEAP. */
#define PUSH_CHEAP 32
/* Pull when frontier edges * factor exceed the eligible destinations' in-edges. A pull with
 * MG_COMBINE_ANY usually stops early, so it pays off sooner (Beamer's alpha). */
#define PULL_FACTOR_ANY 15
#define PULL_FACTOR 2

/* A push's dynamic chunk of sources: 64, or fewer so each thread gets several chunks. */
static inline int64_t push_chunk(int64_t active) {
    const int64_t c = active / (8 * (int64_t)omp_get_num_threads()); /* (inside the region) */
    return c < 1 ? 1 : c > 64 ? 64 : c;
}
/* Vertices a thread buffers before appending them to the output list. */
#define LOCAL_OUT 512

/* ---- workspace kept in the context between calls ----------------------------------------------- */

typedef struct {
    uint32_t n;          /* capacity in vertices                                         */
    uint64_t *touched;   /* bitmap, all zero between calls                               */
    uint32_t *touched_list;
    void *acc;           /* n values of up to 8 bytes                                    */
    int acc_key;         /* acc[0, acc_filled) holds this (type, combine)'s identity       */
    uint32_t acc_filled; /* (-1: none); a push returns what it touched to the identity     */
    void *scaled;        /* n values: x[s] / outdeg(s) for pulls of MG_CONTRIB_SRC_DIV_OUTDEG */
} workspace;

static void free_workspace(void *p) {
    workspace *ws = p;
    if (ws == NULL) return;
    mg__free(ws->touched);
    mg__free(ws->touched_list);
    mg__free(ws->acc);
    mg__free(ws->scaled);
    mg__free(ws);
}

static mg_status get_workspace(mg_context ctx, uint32_t n, workspace **out) {
    workspace *ws = ctx->engine_workspace;
    if (ws != NULL && ws->n >= n) {
        *out = ws;
        return MG_SUCCESS;
    }
    free_workspace(ws);
    ctx->engine_workspace = NULL;
    ws = mg__calloc(1, sizeof *ws);
    if (ws != NULL) {
        ws->n = n;
        ws->acc_key = -1;
        ws->touched = mg__calloc(mg__bitmap_words(n), sizeof *ws->touched);
        ws->touched_list = mg__malloc(mg__mul_size(n, sizeof *ws->touched_list));
        ws->acc = mg__malloc(mg__mul_size(n, 8));
        ws->scaled = mg__malloc(mg__mul_size(n, 8));
    }
    if (ws == NULL || ws->touched == NULL || ws->touched_list == NULL || ws->acc == NULL ||
        ws->scaled == NULL) {
        free_workspace(ws);
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_advance: out of memory for the engine's workspace (%u vertices)", n);
    }
    ctx->engine_workspace = ws;
    ctx->free_engine_workspace = free_workspace;
    *out = ws;
    return MG_SUCCESS;
}

/* ---- one call, resolved ----------------------------------------------------------------------- */

typedef struct {
    uint32_t n;
    const mg_program *p;
    const uint64_t *push_off; const uint32_t *push_idx; const void *push_w;
    const uint64_t *pull_off; const uint32_t *pull_idx; const void *pull_w;
    const uint64_t *outdeg_off;  /* out-edge offsets, for MG_CONTRIB_SRC_DIV_OUTDEG */
    mg_weight_type wt;
    const uint32_t *active_list; /* push: active sources (NULL: all) */
    int64_t active_count;
    const uint64_t *active_bm;   /* pull: active sources (NULL: all) */
    const uint64_t *mask_bm;     /* NULL: all eligible */
    bool complement;
    const uint32_t *dest_list;   /* pull: the eligible destinations, when a short mask lists them
                                    (NULL: the mask's bitmap, word by word) */
    int64_t dest_count;
    const void *x;               /* pull of SRC_DIV_OUTDEG: the pre-scaled values */
    void *y;
    uint64_t *out_bm;            /* NULL: output not wanted */
    uint32_t *out_list;
    uint64_t out_cursor;
    uint64_t touched_cursor;
    workspace *ws;
    uint64_t scanned;
    uint64_t joined;
} run;

static inline bool eligible(const run *r, uint32_t d) {
    return r->mask_bm == NULL || (mg__bit_test(r->mask_bm, d) != r->complement);
}

/* The eligible destinations among the 64 vertices of bitmap word wd. */
static inline uint64_t eligible_word(const run *r, int64_t wd, int64_t words) {
    uint64_t todo = r->mask_bm ? (r->complement ? ~r->mask_bm[wd] : r->mask_bm[wd]) : ~0ull;
    if (wd == words - 1 && r->n % 64) todo &= (1ull << (r->n % 64)) - 1;
    return todo;
}

/* Appends newly joined vertices to a list through a per-thread buffer. */
typedef struct {
    uint32_t k;
    uint32_t buf[LOCAL_OUT];
} local_list;

static inline void local_flush(local_list *l, uint32_t *list, uint64_t *cursor) {
    if (l->k == 0) return;
    uint64_t at = __atomic_fetch_add(cursor, l->k, __ATOMIC_RELAXED);
    memcpy(list + at, l->buf, l->k * sizeof *list);
    l->k = 0;
}

static inline void local_push(local_list *l, uint32_t v, uint32_t *list, uint64_t *cursor) {
    l->buf[l->k++] = v;
    if (l->k == LOCAL_OUT) local_flush(l, list, cursor);
}

/* Sets bit v; true if this call set it. */
static inline bool bit_claim(uint64_t *bm, uint32_t v) {
    uint64_t bit = 1ull << (v & 63);
    if (__atomic_load_n(&bm[v >> 6], __ATOMIC_RELAXED) & bit) return false;
    return !(__atomic_fetch_or(&bm[v >> 6], bit, __ATOMIC_RELAXED) & bit);
}

static inline double weight_at(const void *w, mg_weight_type wt, uint64_t e) {
    if (wt == MG_WEIGHT_INT32) return (double)((const int32_t *)w)[e];
    if (wt == MG_WEIGHT_FLOAT) return (double)((const float *)w)[e];
    return 1.0;
}

/* ---- kernels, once per value type ------------------------------------------------------------- */

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* A pull's loop over destination d's in-edges lo..hi, testing each source against active_bm when
 * TEST (in DEFINE_ENGINE's pull_one, where T, SUF, K and C are known). */
#define PULL_EDGES(T, SUF, TEST)                                                                   \
    for (; e < hi; e++) {                                                                          \
        const uint32_t s = pull_idx[e];                                                            \
        if (TEST && !mg__bit_test(active_bm, s)) continue;                                         \
        T c = edge_value_##SUF(q, K, source_value_##SUF(q, K, s), q->pull_w, e);                   \
        found = true;                                                                              \
        if (C == MG_COMBINE_ANY) {                                                                 \
            acc = c;                                                                               \
            e++;                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        acc = combine_##SUF(C, acc, c);                                                            \
    }

#define DEFINE_ENGINE(T, SUF, T_MAX, T_LOWEST, HOT)                                                \
                                                                                                   \
    ALWAYS_INLINE T identity_##SUF(int C) {                                                        \
        return C == MG_COMBINE_MIN ? T_MAX : (C == MG_COMBINE_MAX ? T_LOWEST : (T)0);              \
    }                                                                                              \
    ALWAYS_INLINE T combine_##SUF(int C, T a, T b) {                                               \
        switch (C) {                                                                               \
        case MG_COMBINE_MIN: return b < a ? b : a;                                                 \
        case MG_COMBINE_MAX: return b > a ? b : a;                                                 \
        case MG_COMBINE_SUM: return a + b;                                                         \
        default: return b;                                                                         \
        }                                                                                          \
    }                                                                                              \
    /* The per-source part of a contribution (read once per source in a push). */                 \
    ALWAYS_INLINE T source_value_##SUF(const run *r, int K, uint32_t s) {                          \
        if (K == MG_CONTRIB_SRC_ID) return (T)s;                                                   \
        T v;                                                                                       \
        __atomic_load((const T *)r->x + s, &v, __ATOMIC_RELAXED);                                  \
        if (K == MG_CONTRIB_SRC_DIV_OUTDEG) {                                                      \
            uint64_t deg = r->outdeg_off[s + 1] - r->outdeg_off[s];                                \
            v = deg ? (T)(v / (T)deg) : (T)0;                                                      \
        }                                                                                          \
        return v;                                                                                  \
    }                                                                                              \
    /* The per-edge part. */                                                                       \
    ALWAYS_INLINE T edge_value_##SUF(const run *r, int K, T xs, const void *w, uint64_t e) {       \
        switch (K) {                                                                               \
        case MG_CONTRIB_SRC_PLUS_ONE: return xs + (T)1;                                            \
        case MG_CONTRIB_SRC_PLUS_WEIGHT: return xs + (T)weight_at(w, r->wt, e);                    \
        case MG_CONTRIB_SRC_TIMES_WEIGHT: return xs * (T)weight_at(w, r->wt, e);                   \
        default: return xs;                                                                        \
        }                                                                                          \
    }                                                                                              \
    /* Merges combined value c into y[d]; true when d joins the output frontier. */                \
    ALWAYS_INLINE bool apply_##SUF(const run *r, uint32_t d, T c, bool found) {                    \
        T *y = r->y;                                                                               \
        const mg_program *p = r->p;                                                                \
        T old;                                                                                     \
        __atomic_load(y + d, &old, __ATOMIC_RELAXED);                                              \
        T nv = old;                                                                                \
        bool joins = false;                                                                        \
        switch (p->apply) {                                                                        \
        case MG_APPLY_MIN: joins = found && c < old; if (joins) nv = c; break;                     \
        case MG_APPLY_MAX: joins = found && c > old; if (joins) nv = c; break;                     \
        case MG_APPLY_IF_UNSET: joins = found && old == (T)p->unset; if (joins) nv = c; break;     \
        case MG_APPLY_ASSIGN: joins = found; if (joins) nv = c; break;                             \
        case MG_APPLY_ADD:                                                                         \
            if (found) { nv = old + c; joins = fabs((double)nv) > p->epsilon; }                    \
            break;                                                                                 \
        case MG_APPLY_AFFINE:                                                                      \
            nv = (T)(p->alpha * (double)(found ? c : (T)0) + p->beta);                             \
            joins = fabs((double)nv - (double)old) > p->epsilon;                                   \
            break;                                                                                 \
        }                                                                                          \
        if (nv != old || p->apply == MG_APPLY_AFFINE) __atomic_store(y + d, &nv, __ATOMIC_RELAXED); \
        return joins;                                                                              \
    }                                                                                              \
    ALWAYS_INLINE bool atomic_min_##SUF(T *p, T v) {                                               \
        T old;                                                                                     \
        __atomic_load(p, &old, __ATOMIC_RELAXED);                                                  \
        while (v < old)                                                                            \
            if (__atomic_compare_exchange(p, &old, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))  \
                return true;                                                                       \
        return false;                                                                              \
    }                                                                                              \
    ALWAYS_INLINE bool atomic_max_##SUF(T *p, T v) {                                               \
        T old;                                                                                     \
        __atomic_load(p, &old, __ATOMIC_RELAXED);                                                  \
        while (v > old)                                                                            \
            if (__atomic_compare_exchange(p, &old, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))  \
                return true;                                                                       \
        return false;                                                                              \
    }                                                                                              \
    ALWAYS_INLINE void atomic_add_##SUF(T *p, T v) {                                               \
        T old, nv;                                                                                 \
        __atomic_load(p, &old, __ATOMIC_RELAXED);                                                  \
        do {                                                                                       \
            nv = old + v;                                                                          \
        } while (!__atomic_compare_exchange(p, &old, &nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    }                                                                                              \
    ALWAYS_INLINE void atomic_combine_##SUF(int C, T *p, T v) {                                    \
        switch (C) {                                                                               \
        case MG_COMBINE_MIN: atomic_min_##SUF(p, v); break;                                        \
        case MG_COMBINE_MAX: atomic_max_##SUF(p, v); break;                                        \
        case MG_COMBINE_SUM: atomic_add_##SUF(p, v); break;                                        \
        default: __atomic_store(p, &v, __ATOMIC_RELAXED); break;                                   \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Destination d's pull: its active in-neighbours' contributions combined and applied; true   \
     * when d joins the output. q: a local copy of *r, whose fields the compiler then keeps in     \
     * registers across the loop's atomic loads. */                                               \
    ALWAYS_INLINE bool pull_one_##SUF(const run *q, const int K, const int C, uint32_t d,          \
                                      uint64_t *scanned) {                                         \
        const mg_program *p = q->p;                                                                \
        const uint64_t *const pull_off = q->pull_off, *const active_bm = q->active_bm;             \
        const uint32_t *const pull_idx = q->pull_idx;                                              \
        if (p->apply == MG_APPLY_IF_UNSET) {                                                       \
            T cur;                                                                                 \
            __atomic_load((const T *)q->y + d, &cur, __ATOMIC_RELAXED);                            \
            if (cur != (T)p->unset) return false;                                                  \
        }                                                                                          \
        T acc = identity_##SUF(C);                                                                 \
        bool found = false;                                                                        \
        const uint64_t lo = pull_off[d], hi = pull_off[d + 1];                                     \
        uint64_t e = lo;                                                                           \
        /* the same loop twice, so that with every source active (PageRank, CC's sweeps) it tests  \
         * no bit per edge */                                                                      \
        if (active_bm == NULL) {                                                                   \
            PULL_EDGES(T, SUF, 0)                                                                  \
        } else {                                                                                   \
            PULL_EDGES(T, SUF, 1)                                                                  \
        }                                                                                          \
        *scanned += e - lo;                                                                        \
        return (found || p->apply == MG_APPLY_AFFINE) && apply_##SUF(q, d, acc, found);            \
    }                                                                                              \
                                                                                                   \
    /* Pull: every eligible destination combines its active in-neighbours' contributions: the     \
     * destinations of a short listed mask one by one (r->dest_list; the output's bitmap cleared   \
     * before, its list written), else the mask's bitmap word by word.                             \
     * Kernels run inside the caller's parallel region (orphaned worksharing) so that K and C are  \
     * literal constants after inlining, and the edge loop carries no branches on the program. */ \
    ALWAYS_INLINE void pull_kernel_##SUF(run *r, const int K, const int C) {                       \
        const int64_t words = (int64_t)mg__bitmap_words(r->n);                                     \
        const run local = *r, *const q = &local;                                                   \
        uint64_t scanned = 0, joined = 0;                                                          \
        if (q->dest_list != NULL) {                                                                \
            local_list mine;                                                                       \
            mine.k = 0;                                                                            \
            _Pragma("omp for schedule(dynamic, 64) nowait")                                        \
            for (int64_t i = 0; i < q->dest_count; i++) {                                          \
                const uint32_t d = q->dest_list[i];                                                \
                if (pull_one_##SUF(q, K, C, d, &scanned) && q->out_bm) {                           \
                    __atomic_fetch_or(&q->out_bm[d >> 6], 1ull << (d & 63), __ATOMIC_RELAXED);     \
                    local_push(&mine, d, q->out_list, &r->out_cursor);                             \
                    joined++;                                                                      \
                }                                                                                  \
            }                                                                                      \
            local_flush(&mine, q->out_list, &r->out_cursor);                                       \
        } else {                                                                                   \
            _Pragma("omp for schedule(dynamic, 64) nowait")                                        \
            for (int64_t wd = 0; wd < words; wd++) {                                               \
                uint64_t todo = eligible_word(q, wd, words);                                       \
                uint64_t out_bits = 0;                                                             \
                while (todo) {                                                                     \
                    const int b = __builtin_ctzll(todo);                                           \
                    todo &= todo - 1;                                                              \
                    /* a pull that stops at its first active source reads a few edges of each      \
                     * destination, each list's start a cache miss (68% of a Kronecker BFS's       \
                     * bottom-up step at one load): fetched two destinations ahead, they overlap */ \
                    if (C == MG_COMBINE_ANY && (todo & (todo - 1)) != 0) {                         \
                        const uint32_t ahead = (uint32_t)(wd * 64 + __builtin_ctzll(todo & (todo - 1))); \
                        __builtin_prefetch(q->pull_idx + q->pull_off[ahead]);                      \
                    }                                                                              \
                    if (pull_one_##SUF(q, K, C, (uint32_t)(wd * 64 + b), &scanned))                \
                        out_bits |= 1ull << b;                                                     \
                }                                                                                  \
                if (q->out_bm) q->out_bm[wd] = out_bits;                                           \
                joined += (uint64_t)__builtin_popcountll(out_bits);                                \
            }                                                                                      \
        }                                                                                          \
        __atomic_fetch_add(&r->scanned, scanned, __ATOMIC_RELAXED);                                \
        __atomic_fetch_add(&r->joined, joined, __ATOMIC_RELAXED);                                  \
    }                                                                                              \
                                                                                                   \
    /* Push: every active source sends along its edges. Direct programs update y with one atomic   \
     * per edge; the others combine into ws->acc and are applied per touched destination. Runs    \
     * inside the caller's parallel region, like the pull. */                                      \
    ALWAYS_INLINE void push_kernel_##SUF(run *r, const int K, const int C, const int direct) {     \
        const mg_program *p = r->p;                                                                \
        T *y = r->y;                                                                               \
        T *acc = r->ws->acc;                                                                       \
        const T unset = (T)p->unset;                                                               \
        uint64_t *touched = r->ws->touched;                                                        \
        uint32_t *touched_list = r->ws->touched_list;                                              \
        const bool to_out = direct != 0 && p->apply != MG_APPLY_ADD;                               \
        /* if-unset's compare-and-swap admits one winner a destination, so its output needs no     \
         * bitmap to list each vertex once (the caller leaves the bitmap to be built on demand) */ \
        const bool exclusive = to_out && p->apply == MG_APPLY_IF_UNSET;                            \
        /* read through a local copy: local_push writes r's cursors, after which the compiler      \
         * would reload every field of *r (as in the pull) */                                      \
        const run local = *r, *const q = &local;                                                   \
        uint64_t scanned = 0;                                                                      \
        local_list mine;                                                                           \
        mine.k = 0;                                                                                \
        /* chunks of 64 sources, fewer where the frontier is short: a Kronecker BFS's second level \
         * is 47 hubs of 4k edges each, which one chunk gave one thread (5.6 ms, GAPBS 1.3) */     \
        const int64_t chunk = push_chunk(q->active_count);                                         \
        _Pragma("omp for schedule(dynamic, chunk) nowait")                                         \
        for (int64_t i = 0; i < q->active_count; i++) {                                            \
            const uint32_t s = q->active_list ? q->active_list[i] : (uint32_t)i;                   \
            /* a listed source's offsets and edges are a cache miss each (a road-like grid's       \
             * frontier is spread over the graph): fetched a few sources ahead, they overlap       \
             * (1024^2 grid BFS ~20% faster, SSSP 10-15%, 2 threads, session 29) */                \
            if (q->active_list && i + 8 < q->active_count) {                                       \
                __builtin_prefetch(q->push_off + q->active_list[i + 8]);                           \
                __builtin_prefetch(q->push_idx + q->push_off[q->active_list[i + 4]]);              \
            }                                                                                      \
            const T xs = source_value_##SUF(q, K, s);                                              \
            const uint64_t lo = q->push_off[s], hi = q->push_off[s + 1];                           \
            scanned += hi - lo;                                                                    \
            for (uint64_t e = lo; e < hi; e++) {                                                   \
                const uint32_t d = q->push_idx[e];                                                 \
                if (!eligible(q, d)) continue;                                                     \
                const T c = edge_value_##SUF(q, K, xs, q->push_w, e);                              \
                bool joined = false;                                                               \
                switch (direct ? (int)p->apply : -1) {                                             \
                case MG_APPLY_MIN: joined = atomic_min_##SUF(y + d, c); break;                     \
                case MG_APPLY_MAX: joined = atomic_max_##SUF(y + d, c); break;                     \
                case MG_APPLY_IF_UNSET: {                                                          \
                    T cur;                                                                         \
                    __atomic_load(y + d, &cur, __ATOMIC_RELAXED);                                  \
                    T expect = unset, val = c;                                                     \
                    joined = cur == unset &&                                                       \
                             __atomic_compare_exchange(y + d, &expect, &val, false,                \
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);        \
                    break;                                                                         \
                }                                                                                  \
                case MG_APPLY_ADD: atomic_add_##SUF(y + d, c); break;                              \
                default: atomic_combine_##SUF(C, acc + d, c); break;                               \
                }                                                                                  \
                if (to_out) {                                                                      \
                    if (joined && q->out_bm && (exclusive || bit_claim(q->out_bm, d)))             \
                        local_push(&mine, d, q->out_list, &r->out_cursor);                         \
                } else if (bit_claim(touched, d)) {                                                \
                    local_push(&mine, d, touched_list, &r->touched_cursor);                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        local_flush(&mine, to_out ? r->out_list : touched_list,                                    \
                    to_out ? &r->out_cursor : &r->touched_cursor);                                 \
        __atomic_fetch_add(&r->scanned, scanned, __ATOMIC_RELAXED);                                \
        if (to_out) return; /* the same for every thread */                                        \
        _Pragma("omp barrier")                                                                     \
        /* Apply at the touched destinations (all eligible ones for AFFINE), then return the       \
         * accumulator to the combine's identity and the touched bitmap to zero. */                \
        const bool from_acc = direct == 0;                                                         \
        const int64_t ntouched = (int64_t)r->touched_cursor;                                       \
        if (p->apply == MG_APPLY_AFFINE) {                                                         \
            uint64_t joined = 0;                                                                   \
            const int64_t words = (int64_t)mg__bitmap_words(r->n);                                 \
            _Pragma("omp for schedule(static)")                                                    \
            for (int64_t wd = 0; wd < words; wd++) {                                               \
                uint64_t todo = eligible_word(r, wd, words);                                       \
                uint64_t out_bits = 0;                                                             \
                while (todo) {                                                                     \
                    const int b = __builtin_ctzll(todo);                                           \
                    todo &= todo - 1;                                                              \
                    const uint32_t d = (uint32_t)(wd * 64 + b);                                    \
                    if (apply_##SUF(r, d, acc[d], (touched[wd] >> b) & 1)) out_bits |= 1ull << b;  \
                }                                                                                  \
                if (r->out_bm) r->out_bm[wd] = out_bits;                                           \
                joined += (uint64_t)__builtin_popcountll(out_bits);                                \
            }                                                                                      \
            __atomic_fetch_add(&r->joined, joined, __ATOMIC_RELAXED);                              \
        } else {                                                                                   \
            mine.k = 0;                                                                            \
            _Pragma("omp for schedule(static) nowait")                                             \
            for (int64_t i = 0; i < ntouched; i++) {                                               \
                const uint32_t d = touched_list[i];                                                \
                bool joins;                                                                        \
                if (from_acc) {                                                                    \
                    joins = apply_##SUF(r, d, acc[d], true);                                       \
                } else { /* MG_APPLY_ADD, already added in place */                                \
                    T cur;                                                                         \
                    __atomic_load(y + d, &cur, __ATOMIC_RELAXED);                                  \
                    joins = fabs((double)cur) > p->epsilon;                                        \
                }                                                                                  \
                if (joins && r->out_bm) {                                                          \
                    __atomic_fetch_or(&r->out_bm[d >> 6], 1ull << (d & 63), __ATOMIC_RELAXED);     \
                    local_push(&mine, d, r->out_list, &r->out_cursor);                             \
                }                                                                                  \
            }                                                                                      \
            local_flush(&mine, r->out_list, &r->out_cursor);                                       \
            _Pragma("omp barrier")                                                                 \
        }                                                                                          \
        const T id = identity_##SUF(C);                                                            \
        _Pragma("omp for schedule(static)")                                                        \
        for (int64_t i = 0; i < ntouched; i++) {                                                   \
            const uint32_t d = touched_list[i];                                                    \
            if (from_acc) acc[d] = id;                                                             \
            __atomic_store_n(&touched[d >> 6], 0, __ATOMIC_RELAXED);                               \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void pull_##SUF(run *r, int K, int C) {                                                 \
        _Pragma("omp parallel")                                                                    \
        {                                                                                          \
            switch (K * 4 + C) {                                                                   \
                HOT(CASE_KC, pull_kernel_##SUF, r, )                                               \
            default: pull_kernel_##SUF(r, K, C); break;                                            \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void push_##SUF(run *r, int K, int C, int direct) {                                     \
        _Pragma("omp parallel")                                                                    \
        {                                                                                          \
            if (direct) {                                                                          \
                switch (K * 4 + C) {                                                               \
                    HOT(CASE_KC, push_kernel_##SUF, r, , 1)                                        \
                default: push_kernel_##SUF(r, K, C, 1); break;                                     \
                }                                                                                  \
            } else {                                                                               \
                switch (K * 4 + C) {                                                               \
                    HOT(CASE_KC, push_kernel_##SUF, r, , 0)                                        \
                default: push_kernel_##SUF(r, K, C, 0); break;                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void fill_identity_##SUF(void *a, uint32_t from, uint32_t to, int C) {                  \
        T *acc = a;                                                                                \
        const T id = identity_##SUF(C);                                                            \
        _Pragma("omp parallel for schedule(static)")                                               \
        for (int64_t i = from; i < (int64_t)to; i++) acc[i] = id;                                  \
    }                                                                                              \
    __attribute__((unused)) static void prescale_##SUF(run *r, const T *x, T *scaled) {                                    \
        const int64_t count = r->active_list ? r->active_count : (int64_t)r->n;                    \
        _Pragma("omp parallel for schedule(static)")                                               \
        for (int64_t i = 0; i < count; i++) {                                                      \
            const uint32_t s = r->active_list ? r->active_list[i] : (uint32_t)i;                   \
            const uint64_t deg = r->outdeg_off[s + 1] - r->outdeg_off[s];                          \
            scaled[s] = deg ? (T)(x[s] / (T)deg) : (T)0;                                           \
        }                                                                                          \
    }

/* The (contribution, combine) pairs whose kernels are compiled with them as constants, per value
 * type: the programs of the built-in algorithms, BFS (MG_CONTRIB_SRC_ID, MG_COMBINE_ANY on
 * MG_VERTEX parents), CC (MG_CONTRIB_SRC, MG_COMBINE_MIN on MG_VERTEX labels), SSSP
 * (MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN on int64 or double distances), PageRank
 * (MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM; MG_CONTRIB_SRC once a pull has divided; on floats
 * too, for its single-precision option) and BC (MG_CONTRIB_SRC, MG_COMBINE_SUM) on doubles. Compiling all 24 pairs for all 4 types and both
 * pushes made this file a minute of the build; the other programs share one generic copy.
 * HOT_x(X, F, r, ...) calls X(F, r, K, C, ...) for each pair; CASE_KC makes it a case. */
#define HOT_I32(X, F, r, ...)                                                                      \
    X(F, r, MG_CONTRIB_SRC_ID, MG_COMBINE_ANY, __VA_ARGS__)                                        \
    X(F, r, MG_CONTRIB_SRC, MG_COMBINE_MIN, __VA_ARGS__)
#define HOT_I64(X, F, r, ...) X(F, r, MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN, __VA_ARGS__)
#define HOT_F32(X, F, r, ...)                                                                      \
    X(F, r, MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM, __VA_ARGS__)                                \
    X(F, r, MG_CONTRIB_SRC, MG_COMBINE_SUM, __VA_ARGS__)
#define HOT_F64(X, F, r, ...)                                                                      \
    X(F, r, MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN, __VA_ARGS__)                               \
    X(F, r, MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM, __VA_ARGS__)                                \
    X(F, r, MG_CONTRIB_SRC, MG_COMBINE_SUM, __VA_ARGS__)
#define CASE_KC(F, r, K, C, ...) case (K) * 4 + (C): F(r, K, C __VA_ARGS__); break;

DEFINE_ENGINE(int32_t, i32, INT32_MAX, INT32_MIN, HOT_I32)
DEFINE_ENGINE(int64_t, i64, INT64_MAX, INT64_MIN, HOT_I64)
DEFINE_ENGINE(float, f32, INFINITY, -INFINITY, HOT_F32)
DEFINE_ENGINE(double, f64, INFINITY, -INFINITY, HOT_F64)

/* ---- the call --------------------------------------------------------------------------------- */

/* Makes acc[0, n) hold the identity of (value type ti, combine C). The workspace outlives graphs
 * and programs, so acc may hold another combine's identity, or this one's for a shorter prefix
 * (a smaller graph's n): only what acc_filled does not vouch for is written. */
static void acc_ready(workspace *ws, int ti, int C, uint32_t n) {
    const int key = ti * 4 + C;
    const uint32_t from = ws->acc_key == key ? ws->acc_filled : 0;
    if (from >= n) return;
    switch (ti) {
    case 0: fill_identity_i32(ws->acc, from, n, C); break;
    case 1: fill_identity_i64(ws->acc, from, n, C); break;
    case 2: fill_identity_f32(ws->acc, from, n, C); break;
    case 3: fill_identity_f64(ws->acc, from, n, C); break;
    }
    ws->acc_key = key;
    ws->acc_filled = n;
}

static int type_index(mg_type t) {
    switch (t) {
    case MG_INT64: return 1;
    case MG_FLOAT: return 2;
    case MG_DOUBLE: return 3;
    default: return 0;
    }
}

uint64_t mg__cpu_degree_sum(const uint64_t *off, const uint32_t *list, int64_t count) {
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < count; i++) sum += off[list[i] + 1] - off[list[i]];
    return sum;
}

bool mg__cpu_pull_pays(const mg__advance_call *call, uint64_t mf, bool stops_early, const uint64_t *pull_off,
                       const uint64_t *mask_bm, bool complement) {
    const uint32_t n = call->g->n;
    if (mf < call->g->m / PUSH_CHEAP) return false;
    uint64_t eligible_edges = pull_off[n];
    if (mask_bm != NULL && call->mask_edges_known) {
        eligible_edges = complement ? pull_off[n] - call->mask_edges : call->mask_edges;
    } else if (mask_bm != NULL) {
        eligible_edges = 0;
#pragma omp parallel for reduction(+ : eligible_edges) schedule(static)
        for (int64_t v = 0; v < (int64_t)n; v++)
            if (mg__bit_test(mask_bm, (uint32_t)v) != complement) eligible_edges += pull_off[v + 1] - pull_off[v];
    }
    return mf * (stops_early ? PULL_FACTOR_ANY : PULL_FACTOR) > eligible_edges;
}

/* Empties out's bitmap cheaply: through its list when that is short. */
static void clear_out_bitmap(mg_frontier out) {
    if (out->bitmap_valid && out->list_valid && out->count < out->n / 64) {
        for (uint32_t i = 0; i < out->count; i++) out->bitmap[out->list[i] >> 6] = 0;
        return;
    }
    const int64_t words = (int64_t)mg__bitmap_words(out->n);
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < words; w++) out->bitmap[w] = 0;
}

mg_status mg__cpu_advance(const mg__advance_call *call, mg_advance_info *info) {
    mg_context ctx = call->ctx;
    const struct mg_graph_s *g = call->g;
    const mg_program *p = call->program;
    mg_status status = MG_SUCCESS;
    workspace *ws = NULL;
    MG__TRY(get_workspace(ctx, g->n, &ws));

    const mg__csr *push_csr = p->edges == MG_EDGES_OUT ? &g->out : &g->in;
    const mg__csr *pull_csr = p->edges == MG_EDGES_OUT ? &g->in : &g->out;
    run r = {
        .n = g->n, .p = p,
        .push_off = push_csr->offsets, .push_idx = push_csr->indices, .push_w = push_csr->weights,
        .pull_off = pull_csr->offsets, .pull_idx = pull_csr->indices, .pull_w = pull_csr->weights,
        .outdeg_off = mg__graph_degree_offsets(g), .wt = g->weight_type,
        .complement = p->mask_complement,
        .x = call->x ? call->x->data : NULL, .y = call->y->data, .ws = ws,
    };
    if (call->mask != NULL) {
        MG__TRY(mg__frontier_need_bitmap(ctx, call->mask));
        r.mask_bm = call->mask->bitmap;
    }
    if (call->out != NULL) {
        MG__TRY(mg__frontier_reserve(ctx, call->out));
        r.out_bm = call->out->bitmap;
        r.out_list = call->out->list;
    }

    /* Decide push or pull. */
    const bool direct = mg__program_is_direct(p);
    uint32_t nf = g->n;
    uint64_t mf = push_csr->offsets[g->n];
    if (call->in != NULL) {
        MG__TRY(mg__frontier_need_list(ctx, call->in));
        nf = call->in->count;
        r.active_list = call->in->list;
        mf = mg__cpu_degree_sum(push_csr->offsets, call->in->list, nf);
    }
    r.active_count = nf;
    bool pull;
    if (ctx->mode == MG_MODE_SPARSE) pull = false;
    else if (ctx->mode == MG_MODE_PULL || ctx->mode == MG_MODE_DENSE) pull = true; /* the CPU's dense mode */
    else if (call->in == NULL || p->apply == MG_APPLY_AFFINE) pull = true;
    else pull = mg__cpu_pull_pays(call, mf, p->combine == MG_COMBINE_ANY, r.pull_off, r.mask_bm, r.complement);

    /* A pull into the vertices of a short mask visits them from its list, not the n / 64 words
     * of its bitmap: BC's backward pass pulls into one level of a road network at a time, where
     * the words were most of the step (docs/PERFORMANCE.md, session 27). */
    if (pull && call->mask != NULL && !r.complement && call->mask->list_valid &&
        call->mask->count < g->n / 64) {
        r.dest_list = call->mask->list;
        r.dest_count = call->mask->count;
    }
    /* an if-unset push lists its output without the bitmap (push_kernel's `exclusive`) */
    const bool list_only = !pull && direct && p->apply == MG_APPLY_IF_UNSET;
    if (call->out != NULL && (!pull || r.dest_list != NULL) && !list_only) clear_out_bitmap(call->out);
    const int K = (int)p->contribution, C = (int)p->combine, ti = type_index(call->y->type);
    if (pull) {
        if (call->in != NULL) {
            MG__TRY(mg__frontier_need_bitmap(ctx, call->in));
            r.active_bm = call->in->bitmap;
        }
        int k = K;
        if (K == MG_CONTRIB_SRC_DIV_OUTDEG) {
            /* Divide once per source rather than once per edge. */
            switch (ti) {
            case 2: prescale_f32(&r, r.x, ws->scaled); break;
            case 3: prescale_f64(&r, r.x, ws->scaled); break;
            }
            r.x = ws->scaled;
            k = MG_CONTRIB_SRC;
        }
        switch (ti) {
        case 0: pull_i32(&r, k, C); break;
        case 1: pull_i64(&r, k, C); break;
        case 2: pull_f32(&r, k, C); break;
        case 3: pull_f64(&r, k, C); break;
        }
    } else {
        if (!direct) acc_ready(ws, ti, C, g->n);
        switch (ti) {
        case 0: push_i32(&r, K, C, direct); break;
        case 1: push_i64(&r, K, C, direct); break;
        case 2: push_f32(&r, K, C, direct); break;
        case 3: push_f64(&r, K, C, direct); break;
        }
    }

    if (!pull && p->apply != MG_APPLY_AFFINE)
        r.joined = r.out_cursor; /* push kernels that list what joined */
    if (call->out != NULL) {
        call->out->count = (uint32_t)r.joined;
        call->out->bitmap_valid = !list_only;
        /* a pull by words and an affine push write whole bitmap words and no list */
        call->out->list_valid = pull ? r.dest_list != NULL : p->apply != MG_APPLY_AFFINE;
    }
    info->frontier_vertices = nf;
    info->frontier_edges = mf;
    info->edges_scanned = r.scanned;
    info->output_vertices = (uint32_t)r.joined;
    info->pulled = pull;

cleanup:
    return status;
}
