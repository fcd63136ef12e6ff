/*
 * frontier.c — vertex sets with two forms: a list (cheap to iterate when small) and a bitmap (cheap
 * membership tests when large). Either form is computed from the other on demand and cached.
 */
#include "dist.h"

#include <omp.h>

#ifdef MG_HAVE_CUDA
#include "gpu_resident.h"
/* A GPU context runs the operation on the device (core/gpu_frontier.cu). */
#define ON_GPU(ctx) ((ctx)->backend == MG_BACKEND_GPU)
/* A host path needs f's host forms: bring the set back when it lives on the device. */
#define NEED_HOST(f)                                                                               \
    if ((f)->on_device && (status = mg__gpu_frontier_to_host(ctx, (f))) != MG_SUCCESS)             \
        return status;
#else
#define ON_GPU(ctx) false
#define NEED_HOST(f)
#endif

mg_status mg_frontier_create(mg_context ctx, mg_frontier *f, const mg_graph g) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (f == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_frontier_create: f is NULL");
    *f = NULL;
    if ((status = mg__check_graph(ctx, g, "mg_frontier_create: g")) != MG_SUCCESS) return status;
    mg_frontier fr = mg__calloc(1, sizeof *fr);
    if (fr == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_frontier_create: out of memory");
    fr->magic = MG__MAGIC_FRONTIER;
    fr->graph = g;
    fr->n = g->n;
    fr->list_valid = true; /* the empty list */
    *f = fr;
    return MG_SUCCESS;
}

mg_status mg_frontier_free(mg_frontier *f) {
    if (f == NULL || *f == NULL) return MG_SUCCESS;
    if ((*f)->magic != MG__MAGIC_FRONTIER) return MG_INVALID_OBJECT;
    (*f)->magic = MG__MAGIC_FREED;
#ifdef MG_HAVE_CUDA
    mg__gpu_frontier_release(*f);
#endif
    mg__free((*f)->list);
    mg__free((*f)->bitmap);
    mg__free(*f);
    *f = NULL;
    return MG_SUCCESS;
}

/* Room for `capacity` listed vertices. Every path that may list up to n vertices asks for n; a copy
 * asks for exactly what it holds, so keeping many small frontiers (BFS levels) costs what they
 * hold, not n each. */
static mg_status reserve_list(mg_context ctx, mg_frontier f, uint32_t capacity) {
    if (f->list != NULL && f->list_capacity >= capacity) return MG_SUCCESS;
    uint32_t *list = mg__realloc(f->list, mg__mul_size(capacity, sizeof *f->list));
    if (list == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for a frontier of %u vertices",
                         capacity);
    f->list = list;
    f->list_capacity = capacity;
    return MG_SUCCESS;
}

static mg_status alloc_list(mg_context ctx, mg_frontier f) { return reserve_list(ctx, f, f->n); }

static mg_status alloc_bitmap(mg_context ctx, mg_frontier f) {
    if (f->bitmap != NULL) return MG_SUCCESS;
    f->bitmap = mg__calloc(mg__bitmap_words(f->n), sizeof *f->bitmap);
    if (f->bitmap == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for a frontier of %u vertices", f->n);
    return MG_SUCCESS;
}

mg_status mg__frontier_reserve(mg_context ctx, mg_frontier f) {
    if (f->on_device) {
        /* the host forms are stale (and count is the device set's): nothing in them holds */
        f->on_device = false;
        f->list_valid = f->bitmap_valid = false;
    }
    mg_status status = alloc_list(ctx, f);
    if (status == MG_SUCCESS) status = alloc_bitmap(ctx, f);
    return status;
}

mg_status mg__frontier_need_bitmap(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    mg_status status = MG_SUCCESS;
    NEED_HOST(f);
    if (f->bitmap_valid) return MG_SUCCESS;
    status = alloc_bitmap(ctx, f);
    if (status != MG_SUCCESS) return status;
    const int64_t words = (int64_t)mg__bitmap_words(f->n);
    uint64_t *bm = f->bitmap;
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < words; w++) bm[w] = 0;
    const uint32_t *list = f->list;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)f->count; i++) {
        uint32_t v = list[i];
        __atomic_fetch_or(&bm[v >> 6], 1ull << (v & 63), __ATOMIC_RELAXED);
    }
    f->bitmap_valid = true;
    return MG_SUCCESS;
}

mg_status mg__frontier_need_list(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    mg_status status = MG_SUCCESS;
    NEED_HOST(f);
    if (f->list_valid) return MG_SUCCESS;
    status = alloc_list(ctx, f);
    if (status != MG_SUCCESS) return status;
    /* Blocks of 64-bit words: count per block, scan, then write (vertices come out in order). */
    const size_t words = mg__bitmap_words(f->n);
    const size_t block_words = 1024;
    const size_t nblocks = (words + block_words - 1) / block_words;
    uint64_t *start = mg__malloc(mg__mul_size(nblocks + 1, sizeof *start));
    if (start == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory converting a frontier");
    const uint64_t *bm = f->bitmap;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < (int64_t)nblocks; b++) {
        uint64_t c = 0;
        size_t hi = ((size_t)b + 1) * block_words < words ? ((size_t)b + 1) * block_words : words;
        for (size_t w = (size_t)b * block_words; w < hi; w++) c += (uint64_t)__builtin_popcountll(bm[w]);
        start[b] = c;
    }
    start[nblocks] = 0;
    uint64_t total = mg__exclusive_scan_u64(start, nblocks + 1);
    uint32_t *list = f->list;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < (int64_t)nblocks; b++) {
        uint64_t p = start[b];
        size_t hi = ((size_t)b + 1) * block_words < words ? ((size_t)b + 1) * block_words : words;
        for (size_t w = (size_t)b * block_words; w < hi; w++) {
            uint64_t bits = bm[w];
            while (bits) {
                list[p++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
    }
    mg__free(start);
    f->count = (uint32_t)total;
    f->list_valid = true;
    return MG_SUCCESS;
}

#define FRONTIER_PROLOGUE(f, what)                                                                 \
    mg_status status = mg__check_context(ctx);                                                     \
    if (status != MG_SUCCESS) return status;                                                       \
    if ((status = mg__check_frontier(ctx, f, what)) != MG_SUCCESS) return status;

mg_status mg_frontier_clear(mg_context ctx, mg_frontier f) {
    FRONTIER_PROLOGUE(f, "mg_frontier_clear: f");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_frontier_clear(ctx, f);
#endif
    f->on_device = false;
    f->count = 0;
    f->list_valid = true;
    f->bitmap_valid = false;
    return MG_SUCCESS;
}

mg_status mg_frontier_fill(mg_context ctx, mg_frontier f) {
    FRONTIER_PROLOGUE(f, "mg_frontier_fill: f");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_frontier_fill(ctx, f);
#endif
    if ((status = mg__frontier_reserve(ctx, f)) != MG_SUCCESS) return status;
    const size_t words = mg__bitmap_words(f->n);
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < (int64_t)words; w++) f->bitmap[w] = ~0ull;
    if (f->n % 64) f->bitmap[words - 1] = (1ull << (f->n % 64)) - 1;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < (int64_t)f->n; v++) f->list[v] = (uint32_t)v;
    f->count = f->n;
    f->list_valid = f->bitmap_valid = true;
    return MG_SUCCESS;
}

mg_status mg_frontier_add(mg_context ctx, mg_frontier f, uint32_t vertex) {
    FRONTIER_PROLOGUE(f, "mg_frontier_add: f");
    if (vertex >= f->n)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_frontier_add: vertex %u is out of range (the graph has %u vertices)",
                         vertex, f->n);
#ifdef MG_HAVE_CUDA
    /* a host accessor: it works where the set is */
    if (f->on_device) return mg__gpu_frontier_add(ctx, f, vertex);
#endif
    if ((status = mg__frontier_need_bitmap(ctx, f)) != MG_SUCCESS) return status;
    if (mg__bit_test(f->bitmap, vertex)) return MG_SUCCESS;
    if (f->list_valid) {
        if ((status = alloc_list(ctx, f)) != MG_SUCCESS) return status;
        f->list[f->count] = vertex;
    }
    f->bitmap[vertex >> 6] |= 1ull << (vertex & 63);
    f->count++;
    return MG_SUCCESS;
}

mg_status mg_frontier_contains(mg_context ctx, const mg_frontier f, uint32_t vertex, bool *in) {
    FRONTIER_PROLOGUE(f, "mg_frontier_contains: f");
    if (in == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_frontier_contains: in is NULL");
    if (vertex >= f->n)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_frontier_contains: vertex %u is out of range (the graph has %u vertices)",
                         vertex, f->n);
#ifdef MG_HAVE_CUDA
    if (f->on_device) return mg__gpu_frontier_contains(ctx, f, vertex, in);
#endif
    if ((status = mg__frontier_need_bitmap(ctx, f)) != MG_SUCCESS) return status;
    *in = mg__bit_test(f->bitmap, vertex);
    return MG_SUCCESS;
}

void mg__frontier_swap(mg_frontier a, mg_frontier b) {
    struct mg_frontier_s t = *a;
    *a = *b;
    *b = t;
}

mg_status mg_frontier_count(mg_context ctx, const mg_frontier f, uint32_t *count) {
    FRONTIER_PROLOGUE(f, "mg_frontier_count: f");
    if (count == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_frontier_count: count is NULL");
    *count = f->count;
    return MG_SUCCESS;
}

static mg_status check_pair(mg_context ctx, const mg_frontier a, const mg_frontier b,
                            const char *call) {
    mg_status status = mg__check_frontier(ctx, a, call);
    if (status == MG_SUCCESS) status = mg__check_frontier(ctx, b, call);
    if (status == MG_SUCCESS && a->graph != b->graph)
        status = mg__error(ctx, MG_INVALID_ARGUMENT, "%s: the frontiers belong to different graphs",
                           call);
    return status;
}

mg_status mg_frontier_copy(mg_context ctx, mg_frontier dst, const mg_frontier src) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = check_pair(ctx, dst, src, "mg_frontier_copy")) != MG_SUCCESS) return status;
    if (dst == src) return MG_SUCCESS;
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_frontier_copy(ctx, dst, src);
#endif
    dst->on_device = false; /* overwritten below */
    /* Only the list is copied (and only as long as it is): a bitmap is n/8 bytes whatever the
     * frontier's size, and is rebuilt on demand. */
    if ((status = mg__frontier_need_list(ctx, src)) != MG_SUCCESS) return status;
    if ((status = reserve_list(ctx, dst, src->count)) != MG_SUCCESS) return status;
    memcpy(dst->list, src->list, (size_t)src->count * sizeof *src->list);
    dst->count = src->count;
    dst->list_valid = true;
    dst->bitmap_valid = false;
    return MG_SUCCESS;
}

mg_status mg_frontier_union(mg_context ctx, mg_frontier dst, const mg_frontier src) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = check_pair(ctx, dst, src, "mg_frontier_union")) != MG_SUCCESS) return status;
    if (dst == src) return MG_SUCCESS;
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_frontier_union(ctx, dst, src);
#endif
    NEED_HOST(src);
    if ((status = mg__frontier_need_bitmap(ctx, dst)) != MG_SUCCESS) return status;
    uint64_t added = 0;
    if (src->list_valid && src->count < src->n / 64) {
        if (dst->list_valid && (status = alloc_list(ctx, dst)) != MG_SUCCESS) return status;
        for (uint32_t i = 0; i < src->count; i++) {
            uint32_t v = src->list[i];
            if (mg__bit_test(dst->bitmap, v)) continue;
            dst->bitmap[v >> 6] |= 1ull << (v & 63);
            if (dst->list_valid) dst->list[dst->count] = v;
            dst->count++;
        }
        return MG_SUCCESS;
    }
    if ((status = mg__frontier_need_bitmap(ctx, src)) != MG_SUCCESS) return status;
    const int64_t words = (int64_t)mg__bitmap_words(dst->n);
#pragma omp parallel for reduction(+ : added) schedule(static)
    for (int64_t w = 0; w < words; w++) {
        uint64_t before = dst->bitmap[w], after = before | src->bitmap[w];
        dst->bitmap[w] = after;
        added += (uint64_t)__builtin_popcountll(after & ~before);
    }
    dst->count += (uint32_t)added;
    dst->list_valid = false;
    return MG_SUCCESS;
}

mg_status mg_frontier_out_edges(mg_context ctx, const mg_frontier f, uint64_t *edges) {
    FRONTIER_PROLOGUE(f, "mg_frontier_out_edges: f");
    if (edges == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_frontier_out_edges: edges is NULL");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx) && f->graph->dist == NULL) return mg__gpu_frontier_out_edges(ctx, f, edges);
#endif
    if ((status = mg__frontier_need_list(ctx, f)) != MG_SUCCESS) return status;
    const uint64_t *off = mg__graph_degree_offsets(f->graph);
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (int64_t i = 0; i < (int64_t)f->count; i++) sum += off[f->list[i] + 1] - off[f->list[i]];
    *edges = sum;
    return MG_SUCCESS;
}

static inline bool compare(double x, mg_compare cmp, double t) {
    switch (cmp) {
    case MG_LT: return x < t;
    case MG_LE: return x <= t;
    case MG_GT: return x > t;
    case MG_GE: return x >= t;
    case MG_EQ: return x == t;
    case MG_NE: return x != t;
    }
    return false;
}

mg_status mg_frontier_select(mg_context ctx, mg_frontier out, const mg_frontier in,
                             const mg_vector values, mg_compare cmp, double threshold) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_frontier(ctx, out, "mg_frontier_select: out")) != MG_SUCCESS) return status;
    if (in != NULL && (status = check_pair(ctx, out, in, "mg_frontier_select")) != MG_SUCCESS)
        return status;
    if ((status = mg__check_vector(ctx, values, "mg_frontier_select: values")) != MG_SUCCESS)
        return status;
    if (values->graph != out->graph)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_frontier_select: values and out belong to different graphs");
    if (cmp < MG_LT || cmp > MG_NE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_frontier_select: unknown comparison %d",
                         (int)cmp);
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_frontier_select(ctx, out, in, values, cmp, threshold);
    if (values->on_device && (status = mg__gpu_vector_to_host(ctx, values)) != MG_SUCCESS)
        return status;
#endif
    if (in != NULL && (status = mg__frontier_need_list(ctx, in)) != MG_SUCCESS) return status;
    if ((status = mg__frontier_reserve(ctx, out)) != MG_SUCCESS) return status;

    if (in == NULL) {
        /* Scan all vertices into the bitmap; the list follows on demand. A loop per comparison,
         * each bit set without a branch: choosing the comparison per vertex, with a branch, made
         * this scan about a tenth of Afforest's time on a 1024^2 grid (session 31). */
        const int64_t words = (int64_t)mg__bitmap_words(out->n);
        const uint32_t n = out->n;
        uint64_t *const bitmap = out->bitmap;
        uint64_t total = 0;
#define SELECT_ALL(OP)                                                                             \
    _Pragma("omp parallel for reduction(+ : total) schedule(static)")                              \
    for (int64_t w = 0; w < words; w++) {                                                          \
        uint64_t bits = 0;                                                                         \
        const uint32_t lo = (uint32_t)(w * 64), hi = lo + 64 < n ? lo + 64 : n;                    \
        for (uint32_t v = lo; v < hi; v++) bits |= (uint64_t)((double)x[v] OP threshold) << (v - lo); \
        bitmap[w] = bits;                                                                          \
        total += (uint64_t)__builtin_popcountll(bits);                                             \
    }
        MG__WITH_TYPE(values->type, {
            const T *x = values->data;
            switch (cmp) {
            case MG_LT: SELECT_ALL(<) break;
            case MG_LE: SELECT_ALL(<=) break;
            case MG_GT: SELECT_ALL(>) break;
            case MG_GE: SELECT_ALL(>=) break;
            case MG_EQ: SELECT_ALL(==) break;
            case MG_NE: SELECT_ALL(!=) break;
            }
        });
#undef SELECT_ALL
        out->count = (uint32_t)total;
        out->bitmap_valid = true;
        out->list_valid = false;
        return MG_SUCCESS;
    }
    if (in->count >= (1u << 16)) {
        /* Large: mark the survivors in a fresh bitmap in parallel (the list follows on demand). */
        uint64_t *bm = mg__calloc(mg__bitmap_words(out->n), sizeof *bm);
        if (bm == NULL)
            return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_frontier_select: out of memory");
        uint64_t total = 0;
        const uint32_t *list = in->list;
        const int64_t count = in->count;
        MG__WITH_TYPE(values->type, {
            const T *x = values->data;
            _Pragma("omp parallel for reduction(+ : total) schedule(static)")
            for (int64_t i = 0; i < count; i++) {
                const uint32_t v = list[i];
                if (compare((double)x[v], cmp, threshold)) {
                    __atomic_fetch_or(&bm[v >> 6], 1ull << (v & 63), __ATOMIC_RELAXED);
                    total++;
                }
            }
        });
        mg__free(out->bitmap);
        out->bitmap = bm;
        out->count = (uint32_t)total;
        out->bitmap_valid = true;
        out->list_valid = false;
        return MG_SUCCESS;
    }
    /* Filter in's list in order; `in` may be `out`, which the in-place compaction allows. */
    uint32_t k = 0;
    const uint32_t *src = in->list;
    MG__WITH_TYPE(values->type, {
        const T *x = values->data;
        for (uint32_t i = 0; i < in->count; i++)
            if (compare((double)x[src[i]], cmp, threshold)) out->list[k++] = src[i];
    });
    out->count = k;
    out->list_valid = true;
    out->bitmap_valid = false;
    return MG_SUCCESS;
}
