/*
 * gpu_frontier.cu — frontiers resident on the device (core/gpu_resident.h): the device list and
 * bitmap in the engine's numbering, the moves between host and device, and every frontier
 * operation of core/frontier.c for a GPU context. `count` stays valid on the host: every operation
 * that changes the set reads back the one word that says how large it is.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "preprocess/gpu_preprocess.h"

namespace {

#include "gpu_util.cuh"

__global__ void map_ids(uint32_t *dst, const uint32_t *src, uint32_t count, const uint32_t *map,
                        uint64_t *bitmap) {
    GRID_STRIDE(i, count) {
        uint32_t v = map[src[i]];
        dst[i] = v;
        if (bitmap) atomicOr((unsigned long long *)&bitmap[v >> 6], 1ull << (v & 63));
    }
}

__global__ void list_to_bitmap(const uint32_t *list, uint32_t count, uint64_t *bitmap) {
    GRID_STRIDE(i, count) {
        uint32_t v = list[i];
        atomicOr((unsigned long long *)&bitmap[v >> 6], 1ull << (v & 63));
    }
}

__global__ void word_counts(const uint64_t *bitmap, size_t words, uint32_t *counts) {
    GRID_STRIDE(w, words) counts[w] = (uint32_t)__popcll(bitmap[w]);
}

__global__ void bitmap_to_list(const uint64_t *bitmap, size_t words, const uint32_t *start,
                               uint32_t *list) {
    GRID_STRIDE(w, words) {
        uint64_t bits = bitmap[w];
        uint32_t p = start[w];
        while (bits) {
            list[p++] = (uint32_t)(w * 64 + (uint64_t)__ffsll((long long)bits) - 1);
            bits &= bits - 1;
        }
    }
}

__global__ void fill_kernel(uint32_t *list, uint64_t *bitmap, uint32_t n, size_t words) {
    GRID_STRIDE(i, n) list[i] = (uint32_t)i;
    GRID_STRIDE(w, words) {
        uint64_t lo = w * 64;
        bitmap[w] = lo + 64 <= n ? ~0ull : ((1ull << (n - lo)) - 1);
    }
}

/* dst |= src over words; counts the new bits. */
__global__ void or_bitmaps(uint64_t *dst, const uint64_t *src, size_t words,
                           unsigned long long *added) {
    unsigned long long c = 0;
    GRID_STRIDE(w, words) {
        uint64_t before = dst[w], after = before | src[w];
        dst[w] = after;
        c += (unsigned long long)__popcll(after & ~before);
    }
    if (c) atomicAdd(added, c);
}

/* Adds src's listed vertices to dst's bitmap (and list, when given), counting the new ones. */
__global__ void union_list(uint64_t *bitmap, uint32_t *list, uint32_t base, const uint32_t *src,
                           uint32_t count, unsigned long long *added) {
    GRID_STRIDE(i, count) {
        uint32_t v = src[i];
        unsigned long long bit = 1ull << (v & 63);
        unsigned long long old = atomicOr((unsigned long long *)&bitmap[v >> 6], bit);
        if (!(old & bit)) {
            unsigned long long k = atomicAdd(added, 1ull);
            if (list) list[base + k] = v;
        }
    }
}

__global__ void __launch_bounds__(kThreads) degree_sum(const uint64_t *off, const uint32_t *list,
                                                       uint32_t count, unsigned long long *sum) {
    unsigned long long s = 0;
    GRID_STRIDE(i, count) {
        const uint32_t v = list ? list[i] : (uint32_t)i;
        s += off[v + 1] - off[v];
    }
    using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    s = Reduce(tmp).Sum(s);
    if (threadIdx.x == 0 && s) atomicAdd(sum, s);
}

__device__ inline bool compare(double x, int cmp, double t) {
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

template <typename T>
__global__ void select_all(uint64_t *bitmap, const T *x, uint32_t n, size_t words, int cmp,
                           double t, unsigned long long *total) {
    unsigned long long c = 0;
    GRID_STRIDE(w, words) {
        uint64_t bits = 0;
        uint32_t lo = (uint32_t)(w * 64);
        uint32_t hi = lo + 64 < n ? lo + 64 : n;
        for (uint32_t v = lo; v < hi; v++)
            if (compare((double)x[v], cmp, t)) bits |= 1ull << (v - lo);
        bitmap[w] = bits;
        c += (unsigned long long)__popcll(bits);
    }
    if (c) atomicAdd(total, c);
}

template <typename T>
__global__ void select_list(uint32_t *out, const uint32_t *in, uint32_t count, const T *x, int cmp,
                            double t, unsigned long long *total) {
    GRID_STRIDE(i, count) {
        uint32_t v = in[i];
        if (compare((double)x[v], cmp, t)) out[atomicAdd(total, 1ull)] = v;
    }
}

const mg__gpu_graph *graph_of(const struct mg_frontier_s *f) {
    return (const mg__gpu_graph *)f->graph->gpu;
}

mg_status device_graph(mg_context ctx, const struct mg_graph_s *g, const mg__gpu_graph **gg) {
    if (g->gpu == nullptr) TRY(mg_graph_gpu_prepare(ctx, (mg_graph)g, NULL));
    *gg = (const mg__gpu_graph *)g->gpu;
    return MG_SUCCESS;
}

/* Room for `capacity` device list entries; the old entries are kept when `keep`. */
mg_status reserve_dlist(mg_context ctx, mg_frontier f, uint32_t capacity, bool keep) {
    if (capacity == 0) capacity = 1;
    if (f->d_list != nullptr && f->d_list_capacity >= capacity) return MG_SUCCESS;
    void *p = nullptr;
    TRY(dalloc(ctx, &p, (size_t)capacity * sizeof(uint32_t), "a frontier's device list"));
    if (keep && f->d_list_valid && f->count > 0) {
        cudaError_t e = cudaMemcpy(p, f->d_list, (size_t)f->count * sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) {
            dfree(p);
            return cu_fail(ctx, e, __func__, "cudaMemcpy(list, d_list, DeviceToDevice)");
        }
    }
    if (f->d_list) dfree(f->d_list);
    f->d_list = (uint32_t *)p;
    f->d_list_capacity = capacity;
    return MG_SUCCESS;
}

mg_status alloc_dbitmap(mg_context ctx, mg_frontier f) {
    if (f->d_bitmap != nullptr) return MG_SUCCESS;
    return dalloc(ctx, (void **)&f->d_bitmap, mg__bitmap_words(f->n) * sizeof(uint64_t),
                  "a frontier's device bitmap");
}

mg_status alloc_counter(mg_context ctx, mg_frontier f) {
    if (f->d_counter != nullptr) return MG_SUCCESS;
    return dalloc(ctx, (void **)&f->d_counter, sizeof(unsigned long long), "a device counter");
}

/* Host list (caller ids) -> device list (engine ids). */
mg_status upload(mg_context ctx, mg_frontier f) {
    const mg__gpu_graph *gg = nullptr;
    TRY(device_graph(ctx, f->graph, &gg));
    TRY(mg__frontier_need_list(ctx, f));
    TRY(reserve_dlist(ctx, f, f->count, false));
    if (f->count > 0) {
        dbuf tmp;
        TRY(dbuf_alloc(ctx, &tmp, (size_t)f->count * sizeof(uint32_t), "a frontier upload"));
        CU(cudaMemcpy(tmp.p, f->list, (size_t)f->count * sizeof(uint32_t), cudaMemcpyHostToDevice));
        map_ids<<<blocks_for(f->count), kThreads>>>(f->d_list, (const uint32_t *)tmp.p, f->count,
                                                    gg->d_new_of_old, nullptr);
        LAUNCHED("map_ids");
    }
    f->on_device = true;
    f->d_list_valid = true;
    f->d_bitmap_valid = false;
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_graph_of(mg_context ctx, const struct mg_graph_s *g, const void **gg) {
    const mg__gpu_graph *p = nullptr;
    TRY(device_graph(ctx, g, &p));
    *gg = p;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_need_dlist(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    if (!f->on_device) return upload(ctx, f);
    if (f->d_list_valid) return reserve_dlist(ctx, f, 1, true); /* an empty set's array too */
    /* from the bitmap: per-word counts, their scan, then each word writes its vertices in order */
    const size_t words = mg__bitmap_words(f->n);
    TRY(reserve_dlist(ctx, f, f->n, false));
    dbuf counts, start, temp;
    TRY(dbuf_alloc(ctx, &counts, words * sizeof(uint32_t), "bitmap word counts"));
    TRY(dbuf_alloc(ctx, &start, words * sizeof(uint32_t), "bitmap word offsets"));
    size_t temp_bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (uint32_t *)counts.p, (uint32_t *)start.p,
                                     (int64_t)words));
    TRY(dbuf_alloc(ctx, &temp, temp_bytes, "scan scratch"));
    word_counts<<<blocks_for(words), kThreads>>>(f->d_bitmap, words, (uint32_t *)counts.p);
    LAUNCHED("word_counts");
    CU(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, (uint32_t *)counts.p, (uint32_t *)start.p,
                                     (int64_t)words));
    bitmap_to_list<<<blocks_for(words), kThreads>>>(f->d_bitmap, words, (const uint32_t *)start.p,
                                                    f->d_list);
    LAUNCHED("bitmap_to_list");
    f->d_list_valid = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_need_dbitmap(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    if (!f->on_device) TRY(upload(ctx, f));
    if (f->d_bitmap_valid) return MG_SUCCESS;
    TRY(alloc_dbitmap(ctx, f));
    CU(cudaMemset(f->d_bitmap, 0, mg__bitmap_words(f->n) * sizeof(uint64_t)));
    if (f->count > 0) {
        list_to_bitmap<<<blocks_for(f->count), kThreads>>>(f->d_list, f->count, f->d_bitmap);
        LAUNCHED("list_to_bitmap");
    }
    f->d_bitmap_valid = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_need_dlist_room(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    TRY(mg__gpu_frontier_need_dlist(ctx, f));
    return reserve_dlist(ctx, f, f->n, true);
}

extern "C" mg_status mg__gpu_frontier_reserve_device(mg_context ctx, mg_frontier f) {
    TRY(reserve_dlist(ctx, f, f->n, false));
    TRY(alloc_dbitmap(ctx, f));
    f->on_device = true;
    f->d_list_valid = f->d_bitmap_valid = false;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_to_host(mg_context ctx, const mg_frontier cf) {
    mg_frontier f = (mg_frontier)cf;
    if (!f->on_device) return MG_SUCCESS;
    TRY(mg__gpu_frontier_need_dlist(ctx, f));
    const mg__gpu_graph *gg = graph_of(f);
    if (f->list == nullptr || f->list_capacity < f->n) {
        uint32_t *list = (uint32_t *)mg__realloc(f->list, mg__mul_size(f->n, sizeof *f->list));
        if (list == nullptr)
            return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for a frontier of %u vertices", f->n);
        f->list = list;
        f->list_capacity = f->n;
    }
    if (f->count > 0) {
        dbuf tmp;
        TRY(dbuf_alloc(ctx, &tmp, (size_t)f->count * sizeof(uint32_t), "a frontier download"));
        map_ids<<<blocks_for(f->count), kThreads>>>((uint32_t *)tmp.p, f->d_list, f->count,
                                                    gg->d_old_of_new, nullptr);
        LAUNCHED("map_ids");
        CU(cudaMemcpy(f->list, tmp.p, (size_t)f->count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    }
    f->on_device = false;
    f->list_valid = true;
    f->bitmap_valid = false;
    return MG_SUCCESS;
}

extern "C" void mg__gpu_frontier_release(mg_frontier f) {
    if (f->d_list) dfree(f->d_list);
    if (f->d_bitmap) dfree(f->d_bitmap);
    if (f->d_counter) dfree(f->d_counter);
    if (f->d_spare) dfree(f->d_spare);
    f->d_spare = nullptr;
    f->d_spare_capacity = 0;
    f->d_list = nullptr;
    f->d_bitmap = nullptr;
    f->d_counter = nullptr;
    f->on_device = false;
}

extern "C" mg_status mg__gpu_frontier_clear(mg_context ctx, mg_frontier f) {
    TRY(reserve_dlist(ctx, f, 1, false));
    f->count = 0;
    f->on_device = true;
    f->d_list_valid = true;
    f->d_bitmap_valid = false;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_fill(mg_context ctx, mg_frontier f) {
    TRY(reserve_dlist(ctx, f, f->n, false));
    TRY(alloc_dbitmap(ctx, f));
    const size_t words = mg__bitmap_words(f->n);
    fill_kernel<<<blocks_for(f->n), kThreads>>>(f->d_list, f->d_bitmap, f->n, words);
    LAUNCHED("fill_kernel");
    f->count = f->n;
    f->on_device = true;
    f->d_list_valid = f->d_bitmap_valid = true;
    return MG_SUCCESS;
}

/* Engine id of caller vertex v (one element read back). */
static mg_status engine_id(mg_context ctx, const mg__gpu_graph *gg, uint32_t v, uint32_t *id) {
    CU(cudaMemcpy(id, gg->d_new_of_old + v, sizeof *id, cudaMemcpyDeviceToHost));
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_contains(mg_context ctx, const mg_frontier f, uint32_t vertex,
                                               bool *in) {
    TRY(mg__gpu_frontier_need_dbitmap(ctx, f));
    uint32_t id = 0;
    TRY(engine_id(ctx, graph_of(f), vertex, &id));
    uint64_t word = 0;
    CU(cudaMemcpy(&word, f->d_bitmap + (id >> 6), sizeof word, cudaMemcpyDeviceToHost));
    *in = (word >> (id & 63)) & 1u;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_add(mg_context ctx, mg_frontier f, uint32_t vertex) {
    TRY(mg__gpu_frontier_need_dbitmap(ctx, f));
    uint32_t id = 0;
    TRY(engine_id(ctx, graph_of(f), vertex, &id));
    uint64_t word = 0;
    CU(cudaMemcpy(&word, f->d_bitmap + (id >> 6), sizeof word, cudaMemcpyDeviceToHost));
    if ((word >> (id & 63)) & 1u) return MG_SUCCESS;
    if (f->d_list_valid) {
        TRY(reserve_dlist(ctx, f, f->n, true));
        CU(cudaMemcpy(f->d_list + f->count, &id, sizeof id, cudaMemcpyHostToDevice));
    }
    word |= 1ull << (id & 63);
    CU(cudaMemcpy(f->d_bitmap + (id >> 6), &word, sizeof word, cudaMemcpyHostToDevice));
    f->count++;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_copy(mg_context ctx, mg_frontier dst, const mg_frontier src) {
    TRY(mg__gpu_frontier_need_dlist(ctx, src));
    /* Only as long as the set: keeping many small frontiers (BFS levels) costs what they hold. */
    TRY(reserve_dlist(ctx, dst, src->count, false));
    if (src->count > 0)
        CU(cudaMemcpy(dst->d_list, src->d_list, (size_t)src->count * sizeof(uint32_t),
                      cudaMemcpyDeviceToDevice));
    dst->count = src->count;
    dst->on_device = true;
    dst->d_list_valid = true;
    dst->d_bitmap_valid = false;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_union(mg_context ctx, mg_frontier dst, const mg_frontier src) {
    TRY(mg__gpu_frontier_need_dbitmap(ctx, dst));
    if (!src->on_device) TRY(upload(ctx, src));
    TRY(alloc_counter(ctx, dst));
    CU(cudaMemset(dst->d_counter, 0, sizeof(unsigned long long)));
    if (src->d_list_valid && src->count < src->n / 64) {
        if (dst->d_list_valid) TRY(reserve_dlist(ctx, dst, dst->n, true));
        if (src->count > 0) {
            union_list<<<blocks_for(src->count), kThreads>>>(
                dst->d_bitmap, dst->d_list_valid ? dst->d_list : nullptr, dst->count, src->d_list,
                src->count, dst->d_counter);
            LAUNCHED("union_list");
        }
    } else {
        TRY(mg__gpu_frontier_need_dbitmap(ctx, src));
        const size_t words = mg__bitmap_words(dst->n);
        or_bitmaps<<<blocks_for(words), kThreads>>>(dst->d_bitmap, src->d_bitmap, words,
                                                    dst->d_counter);
        LAUNCHED("or_bitmaps");
        dst->d_list_valid = false;
    }
    unsigned long long added = 0;
    CU(cudaMemcpy(&added, dst->d_counter, sizeof added, cudaMemcpyDeviceToHost));
    dst->count += (uint32_t)added;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_out_edges(mg_context ctx, const mg_frontier cf, uint64_t *edges) {
    mg_frontier f = (mg_frontier)cf;
    TRY(mg__gpu_frontier_need_dlist(ctx, f));
    TRY(alloc_counter(ctx, f));
    CU(cudaMemset(f->d_counter, 0, sizeof(unsigned long long)));
    if (f->count > 0 && !mg__gpu_degree_sum_async(graph_of(f)->d_out_offsets, f->d_list, f->count,
                                                  f->d_counter))
        LAUNCHED("degree_sum");
    unsigned long long sum = 0;
    CU(cudaMemcpy(&sum, f->d_counter, sizeof sum, cudaMemcpyDeviceToHost));
    *edges = sum;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_frontier_select(mg_context ctx, mg_frontier out, const mg_frontier in,
                                             const mg_vector values, mg_compare cmp,
                                             double threshold) {
    TRY(mg__gpu_vector_to_device(ctx, values));
    TRY(alloc_counter(ctx, out));
    CU(cudaMemset(out->d_counter, 0, sizeof(unsigned long long)));
    const mg_type t = values->type;
    if (in == nullptr) {
        /* every vertex into the bitmap; the list follows on demand */
        TRY(alloc_dbitmap(ctx, out));
        const size_t words = mg__bitmap_words(out->n);
        MG__WITH_TYPE(t, {
            select_all<T><<<blocks_for(words), kThreads>>>(out->d_bitmap, (const T *)values->d_data,
                                                           out->n, words, (int)cmp, threshold,
                                                           out->d_counter);
        });
        LAUNCHED("select_all");
        out->on_device = true;
        out->d_bitmap_valid = true;
        out->d_list_valid = false;
    } else {
        TRY(mg__gpu_frontier_need_dlist(ctx, in));
        /* survivors appended to out's list when it has room and is not in's; selecting a frontier
         * in place writes to its spare list, swapped in afterwards */
        const uint32_t need = in->count ? in->count : 1;
        if (out == in && out->d_spare_capacity < need) {
            if (out->d_spare) dfree(out->d_spare);
            out->d_spare = nullptr;
            out->d_spare_capacity = 0;
            void *q = nullptr;
            const uint32_t capacity = out->d_list_capacity > need ? out->d_list_capacity : need;
            TRY(dalloc(ctx, &q, (size_t)capacity * sizeof(uint32_t), "a selection"));
            out->d_spare = (uint32_t *)q;
            out->d_spare_capacity = capacity;
        }
        const bool reuse = out != in && out->d_list != nullptr && out->d_list_capacity >= in->count;
        void *p = out == in ? out->d_spare : reuse ? out->d_list : nullptr;
        if (out != in && !reuse)
            TRY(dalloc(ctx, &p, (size_t)need * sizeof(uint32_t), "a selection"));
        if (in->count > 0) {
            MG__WITH_TYPE(t, {
                select_list<T><<<blocks_for(in->count), kThreads>>>(
                    (uint32_t *)p, in->d_list, in->count, (const T *)values->d_data, (int)cmp,
                    threshold, out->d_counter);
            });
            cudaError_t e = cudaGetLastError();
            if (e != cudaSuccess) {
                if (out != in && !reuse) dfree(p);
                return cu_fail(ctx, e, __func__, "select_list<<<>>>");
            }
        }
        if (out == in) {
            uint32_t *old = out->d_list;
            const uint32_t old_capacity = out->d_list_capacity;
            out->d_list = out->d_spare;
            out->d_list_capacity = out->d_spare_capacity;
            out->d_spare = old;
            out->d_spare_capacity = old_capacity;
        } else if (!reuse) {
            if (out->d_list) dfree(out->d_list);
            out->d_list = (uint32_t *)p;
            out->d_list_capacity = need;
        }
        out->on_device = true;
        out->d_list_valid = true;
        out->d_bitmap_valid = false;
    }
    unsigned long long total = 0;
    CU(cudaMemcpy(&total, out->d_counter, sizeof total, cudaMemcpyDeviceToHost));
    out->count = (uint32_t)total;
    return MG_SUCCESS;
}

extern "C" bool mg__gpu_degree_sum_async(const uint64_t *off, const uint32_t *list, uint32_t count,
                                         unsigned long long *sum) {
    /* a few thousand blocks at most: each adds once */
    const unsigned blocks = blocks_for(count) < 4096u ? blocks_for(count) : 4096u;
    degree_sum<<<blocks, kThreads>>>(off, list, count, sum);
    return cudaPeekAtLastError() == cudaSuccess;
}

extern "C" bool mg__gpu_list_to_bitmap_async(const uint32_t *list, uint32_t count, uint64_t *bitmap) {
    if (count == 0) return true;
    list_to_bitmap<<<blocks_for(count), kThreads>>>(list, count, bitmap);
    return cudaPeekAtLastError() == cudaSuccess;
}
