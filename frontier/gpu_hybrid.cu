/*
 * gpu_hybrid.cu — MultiGraph's hybrid (thesis Sec. 3.6, Algorithm 6): in MG_MODE_HYBRID each step
 * runs in the mode whose cost, measured on a sample, is least. (MG_MODE_AUTO, the default, keeps
 * the engines' rules: its samples still cost more than they save, docs/PERFORMANCE.md.)
 *
 *  - sparse (push, MultiGraphS) and pull: the step is run on a sample — every k-th frontier vertex
 *    for push, every k-th destination for pull, k = 1 / ctx->sample_fraction (a push sample keeps
 *    at least kMinPushSample vertices, enough to fill the GPU) — into scratch copies of y and of the
 *    output frontier, timed with CUDA events. A one-vertex (one-destination) run, timed once per
 *    graph, program shape and mode and memoised, is the step's fixed part (launches, the frontier's
 *    bitmap, passes over all n); the rest scales to the whole step: by the frontier's edges over the
 *    sample's (push) or by k (pull). The device numbering sorts vertices by in-degree group, so a
 *    strided sample of the destinations spans every group, and a pull's early exit
 *    (MG_COMBINE_ANY) is sampled as it is.
 *  - dense (MultiGraphD): its cost hardly depends on the frontier (every source's edges are
 *    streamed), so, as in the thesis, it is measured once per graph and program shape, on the
 *    first frontier that needs a choice (whole: a partial frontier's own bitmap and edge count
 *    grow with it), and kept on the graph (mg__gpu_graph.hybrid_memo).
 *    Building the dense form is preprocessing: it is reported apart (mg_gpu_graph_info). Where the
 *    form does not fit the device the hybrid goes on without it.
 *  - No sample where the answer is plain: a frontier whose edges cannot reach m / 32 (checked from
 *    its size times the largest degree, then from the summed degrees) is pushed, as both engines'
 *    rules do.
 *  - The samples are kept, and corrected by what runs: per graph, program shape and frontier size
 *    class (vertices and edges, classes kReuse apart) the memo holds the sampled estimates and
 *    the time each mode took when it ran that class of step (CUDA events around the step). A
 *    step of a known class is not sampled again: it runs the mode whose time (measured, or the
 *    estimate / kOptimism while unmeasured) is least. Samples err both ways (a 1/16 push sample
 *    leaves SMs idle; a pull sample's early exits vary), so a mode whose estimate comes within
 *    kOptimism of the best measured time gets one real run before it is ruled out; a grid's
 *    thousands of label-propagation steps, a BFS from another source, the next PageRank
 *    iteration reuse what earlier steps measured.
 * Switching representation costs nothing extra here: every mode takes the frontier as a device list
 * (the dense and pull steps set their active-source bitmap from it, the warp-aggregated flag
 * setting of the thesis) and leaves the output as a list and a bitmap.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

extern "C" {
#include "mg_internal.h"
}
#include "frontier/gpu_hybrid.h"
#include "preprocess/dense_blocks.h"

namespace {

constexpr uint64_t kPushCheap = 32; /* frontier edges below m / 32: push (sparse_engine.cu's rule) */
constexpr int kDense = 3;           /* a choice beside MG__GPU_STEP_PUSH and MG__GPU_STEP_PULL  */
constexpr int kModes[3] = {MG__GPU_STEP_PUSH, MG__GPU_STEP_PULL, kDense}; /* memo est_ms order */
/* The least push sample: 256 blocks of 64 vertices, two per SM of an H100. A sample that leaves
 * most SMs idle runs slower per edge than the whole step, and scaled up overstates it (7x on
 * R-MAT 22's second BFS level at 1/16 of 162,775 vertices). */
constexpr uint32_t kMinPushSample = 16384;
constexpr double kReuse = 1.25;    /* frontier size classes: vertices and edges within 1.25x  */
constexpr double kOptimism = 2.0;  /* an unmeasured estimate may be this much too high        */
constexpr uint32_t kMemoSize = sizeof(((mg__gpu_graph *)nullptr)->hybrid_memo) /
                               sizeof(((mg__gpu_graph *)nullptr)->hybrid_memo[0]);

#define TRY(call)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (call);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

mg_status cuda_fail(mg_context ctx, cudaError_t e, const char *call) {
    (void)cudaGetLastError();
    return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                     "mg_advance (GPU hybrid): %s: %s", call, cudaGetErrorString(e));
}

/* Scratch for the sample runs, kept on the context (ctx->gpu_hybrid) for `capacity` vertices. */
struct Hybrid {
    int device;
    uint32_t capacity;
    void *y;             /* capacity values of up to 8 bytes: a sample's copy of y */
    uint32_t *out_list;  /* capacity                                               */
    uint64_t *out_bm;    /* bitmap of capacity                                     */
    mg__gpu_timer *timer;
};

void hybrid_free(void *p) {
    Hybrid *h = static_cast<Hybrid *>(p);
    if (h == nullptr) return;
    cudaFree(h->y);
    cudaFree(h->out_list);
    cudaFree(h->out_bm);
    mg__gpu_timer_free(&h->timer);
    mg__free(h);
}

mg_status hybrid_get(mg_context ctx, uint32_t n, Hybrid **out) {
    Hybrid *h = static_cast<Hybrid *>(ctx->gpu_hybrid);
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaGetDevice");
    if (h != nullptr && (h->device != device || h->capacity < n)) {
        hybrid_free(h);
        ctx->gpu_hybrid = h = nullptr;
    }
    if (h == nullptr) {
        h = static_cast<Hybrid *>(mg__calloc(1, sizeof *h));
        if (h == nullptr) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_advance (GPU hybrid): out of host memory");
        h->device = device;
        h->capacity = n > 0 ? n : 1;
        const size_t sizes[3] = {(size_t)h->capacity * 8, (size_t)h->capacity * sizeof(uint32_t),
                                 mg__bitmap_words(h->capacity) * sizeof(uint64_t)};
        void **arrays[3] = {&h->y, reinterpret_cast<void **>(&h->out_list),
                            reinterpret_cast<void **>(&h->out_bm)};
        for (int i = 0; i < 3; i++) {
            e = cudaMalloc(arrays[i], sizes[i]);
            if (e != cudaSuccess) {
                hybrid_free(h);
                return cuda_fail(ctx, e, "cudaMalloc of the sample runs' scratch");
            }
        }
        const mg_status st = mg__gpu_timer_create(ctx, &h->timer);
        if (st != MG_SUCCESS) {
            hybrid_free(h);
            return st;
        }
        ctx->gpu_hybrid = h;
        ctx->free_gpu_hybrid = hybrid_free;
    }
    *out = h;
    return MG_SUCCESS;
}

/* What a memo entry holds for a program shape. */
enum MemoKind { MEMO_DENSE = 0, MEMO_STEP, MEMO_PUSH_FIXED, MEMO_PULL_FIXED };

uint32_t memo_key(const mg_program *p, mg_type type, MemoKind kind) {
    const uint32_t t = type == MG_VERTEX ? (uint32_t)MG_INT32 : (uint32_t)type;
    return 1u + ((uint32_t)kind | (uint32_t)p->edges << 2 | t << 3 | (uint32_t)p->contribution << 7 |
                 (uint32_t)p->combine << 11 | (uint32_t)p->apply << 14);
}

/* The entry of key (and, for a step, of its frontier's size classes), or -1. */
int memo_find(const mg__gpu_graph *g, uint32_t key, uint16_t vertex_class = 0, uint16_t edge_class = 0) {
    for (uint32_t i = 0; i < g->hybrid_memos && i < kMemoSize; i++)
        if (g->hybrid_memo[i].key == key && g->hybrid_memo[i].vertex_class == vertex_class &&
            g->hybrid_memo[i].edge_class == edge_class)
            return (int)i;
    return -1;
}

/* Size class of a count: counts within a factor kReuse share one (0 for none). */
uint16_t size_class(uint64_t x) {
    return x == 0 ? 0 : (uint16_t)(1 + floor(log((double)x) / log(kReuse)));
}

int memo_add(mg__gpu_graph *g, uint32_t key) {
    const uint32_t i = g->hybrid_memos++ % kMemoSize; /* oldest out when full */
    memset(&g->hybrid_memo[i], 0, sizeof g->hybrid_memo[i]);
    g->hybrid_memo[i].key = key;
    return (int)i;
}

size_t value_size(mg_type t) { return t == MG_INT64 || t == MG_DOUBLE ? 8 : 4; }

/* One sample run, timed: the step forced to `how` (or the dense engine on `dense`), on scratch
 * copies of y and the outputs, so the real step that follows sees nothing of it. */
mg_status timed_sample(mg_context ctx, Hybrid *h, const mg__gpu_advance_args *a, int how,
                       uint32_t stride, const mg__gpu_dense *dense, double *ms, mg_advance_info *info) {
    mg__gpu_advance_args s = *a;
    s.d_y = h->y;
    s.share = nullptr; /* a sample sends nothing */
    s.dist = nullptr;
    /* an output only where the step has one: keeping it costs (sparse_engine.cu's join_once) */
    s.d_out_list = a->d_out_list != nullptr ? h->out_list : nullptr;
    s.d_out_bitmap = a->d_out_bitmap != nullptr ? h->out_bm : nullptr;
    cudaError_t e = cudaMemcpyAsync(h->y, a->d_y, (size_t)a->g->n * value_size(a->type),
                                    cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) return cuda_fail(ctx, e, "cudaMemcpyAsync of y for a sample");
    TRY(mg__gpu_timer_start(ctx, h->timer));
    TRY(how == kDense ? mg__gpu_dense_advance(ctx, dense, &s, info)
                      : mg__gpu_advance_forced(ctx, &s, info, (mg__gpu_step)how, stride));
    return mg__gpu_timer_stop(ctx, h->timer, ms);
}

/* The cost of the whole step pushed or pulled: fixed part + (sample - fixed part) x scale. The
 * fixed part is timed once per graph, program shape and mode, on a one-vertex (push) or
 * one-destination-per-kernel (pull) sample, and memoised. */
mg_status estimate(mg_context ctx, Hybrid *h, mg__gpu_graph *g, const mg__gpu_advance_args *a,
                   mg__gpu_step how, uint32_t stride, uint64_t frontier_edges, double *est) {
    const uint32_t n = a->g->n, count = a->d_in_list ? a->in_count : n;
    const uint32_t key = memo_key(a->program, a->type, how == MG__GPU_STEP_PUSH ? MEMO_PUSH_FIXED : MEMO_PULL_FIXED);
    double fixed = 0, sampled = 0;
    mg_advance_info is;
    const int found = memo_find(g, key);
    if (found >= 0) {
        fixed = g->hybrid_memo[found].est_ms[0];
    } else {
        mg_advance_info i1;
        TRY(timed_sample(ctx, h, a, how, how == MG__GPU_STEP_PUSH ? count : n, nullptr, &fixed, &i1));
        g->hybrid_memo[memo_add(g, key)].est_ms[0] = (float)fixed;
    }
    TRY(timed_sample(ctx, h, a, how, stride, nullptr, &sampled, &is));
    double scale = stride;
    if (how == MG__GPU_STEP_PUSH && is.frontier_edges > 0) scale = (double)frontier_edges / is.frontier_edges;
    *est = fixed + fmax(0.0, sampled - fixed) * scale;
    return MG_SUCCESS;
}

/* Whether the dense engine's form along `edges` is built or can be (made here on first use): one
 * that does not fit the device or its limits (mg__gpu_dense_build says which) is not an error of
 * the call, the step goes on without the dense engine. */
mg_status dense_fits(mg_context ctx, mg__gpu_graph *g, mg_edges edges, bool *fits) {
    *fits = false;
    if (g->dense_unfit[edges]) return MG_SUCCESS;
    char saved[sizeof ctx->error];
    memcpy(saved, ctx->error, sizeof saved);
    const mg__gpu_dense *dense = nullptr;
    const mg_status st = mg__gpu_dense_get(ctx, g, edges, &dense);
    *fits = st == MG_SUCCESS;
    if (st == MG_OUT_OF_MEMORY || st == MG_INVALID_ARGUMENT) {
        memcpy(ctx->error, saved, sizeof saved);
        g->dense_unfit[edges] = true;
        return MG_SUCCESS;
    }
    return st;
}

/* The dense engine's cost for this program shape (memoised; < 0 when its form does not fit). */
mg_status dense_estimate(mg_context ctx, Hybrid *h, mg__gpu_graph *g, const mg__gpu_advance_args *a,
                         double *est) {
    const mg_program *p = a->program;
    const uint32_t key = memo_key(p, a->type, MEMO_DENSE);
    const int found = memo_find(g, key);
    if (found >= 0) {
        *est = g->hybrid_memo[found].est_ms[2];
        return MG_SUCCESS;
    }
    bool fits = false;
    TRY(dense_fits(ctx, g, p->edges, &fits));
    double ms = -1;
    if (fits) {
        const mg__gpu_dense *dense = nullptr;
        TRY(mg__gpu_dense_get(ctx, g, p->edges, &dense));
        /* On the whole frontier, not a sample of it: the blocks cost the same for any frontier,
         * but a partial frontier's own work (its bitmap, its edge count) grows with it, and a
         * prefix sample hid that (grid CC: 0.14 ms estimated, 3.4 ms run). Twice: the first run
         * of a program shape makes the dense engine's scratch. */
        mg_advance_info info;
        TRY(timed_sample(ctx, h, a, kDense, 1, dense, &ms, &info));
        TRY(timed_sample(ctx, h, a, kDense, 1, dense, &ms, &info));
    }
    g->hybrid_memo[memo_add(g, key)].est_ms[2] = (float)ms;
    *est = ms;
    return MG_SUCCESS;
}

mg_status run_step(mg_context ctx, mg__gpu_graph *g, mg__gpu_advance_args *a, mg_advance_info *info,
                   int how) {
    if (how != kDense) return mg__gpu_advance_forced(ctx, a, info, (mg__gpu_step)how, 1);
    const mg__gpu_dense *dense = nullptr;
    TRY(mg__gpu_dense_get(ctx, g, a->program->edges, &dense));
    return mg__gpu_dense_advance(ctx, dense, a, info);
}

} // namespace

extern "C" mg_status mg__gpu_hybrid_advance(mg_context ctx, mg__gpu_graph *g, mg__gpu_advance_args *a,
                                            mg_advance_info *info) {
    switch (ctx->mode) {
    case MG_MODE_SPARSE: return run_step(ctx, g, a, info, MG__GPU_STEP_PUSH);
    case MG_MODE_PULL: return run_step(ctx, g, a, info, MG__GPU_STEP_PULL);
    case MG_MODE_DENSE: return run_step(ctx, g, a, info, kDense);
    case MG_MODE_AUTO: {
        /* the engines' rules: the dense engine for all-active steps, whose every edge is streamed
         * anyway (PageRank, CC's first sweeps; R-MAT 22 CC 7.3 -> 4.0 ms on the H100), where its
         * form fits; else sparse_engine.cu's push/pull rule */
        if (a->d_in_list != nullptr) return mg__gpu_advance(ctx, a, info);
        bool fits = false;
        TRY(dense_fits(ctx, g, a->program->edges, &fits));
        return fits ? run_step(ctx, g, a, info, kDense) : mg__gpu_advance(ctx, a, info);
    }
    case MG_MODE_HYBRID: break;
    }
    const mg_program *p = a->program;
    const uint32_t count = a->d_in_list ? a->in_count : g->n;
    const uint64_t max_degree = p->edges == MG_EDGES_OUT ? g->max_out_degree : g->max_in_degree;
    if (count == 0 || (uint64_t)count * max_degree < g->m / kPushCheap)
        return run_step(ctx, g, a, info, MG__GPU_STEP_PUSH);
    uint64_t frontier_edges = g->m; /* every source active */
    if (a->d_in_list != nullptr)
        TRY(mg__gpu_frontier_edges(ctx, g, p->edges, a->d_in_list, count, &frontier_edges));
    if (frontier_edges < g->m / kPushCheap) return run_step(ctx, g, a, info, MG__GPU_STEP_PUSH);

    Hybrid *h = nullptr;
    TRY(hybrid_get(ctx, g->n, &h));
    const uint32_t key = memo_key(p, a->type, MEMO_STEP) ^ (a->d_mask != nullptr ? 0x80000000u : 0u);
    const uint16_t vc = size_class(count), ec = size_class(frontier_edges);
    int memo = memo_find(g, key, vc, ec);
    if (memo < 0) {
        double est[3] = {0, 0, 0};
        const double inverse = floor(1.0 / ctx->sample_fraction + 0.5);
        const uint32_t stride = inverse >= UINT32_MAX ? UINT32_MAX : inverse < 1 ? 1 : (uint32_t)inverse;
        const uint32_t push_stride = count / stride >= kMinPushSample ? stride
                                     : count / kMinPushSample > 0 ? count / kMinPushSample : 1;
        TRY(estimate(ctx, h, g, a, MG__GPU_STEP_PUSH, push_stride, frontier_edges, &est[0]));
        TRY(estimate(ctx, h, g, a, MG__GPU_STEP_PULL, stride, frontier_edges, &est[1]));
        TRY(dense_estimate(ctx, h, g, a, &est[2]));
        memo = memo_add(g, key);
        g->hybrid_memo[memo].vertex_class = vc;
        g->hybrid_memo[memo].edge_class = ec;
        for (int i = 0; i < 3; i++) g->hybrid_memo[memo].est_ms[i] = (float)est[i];
    }
    /* the least time: measured where the mode ran this class of step, else estimated (and given
     * the benefit of the doubt, kOptimism) */
    auto &entry = g->hybrid_memo[memo];
    double cost[3];
    int choice = 0;
    for (int i = 0; i < 3; i++) {
        cost[i] = entry.ran_ms[i] > 0 ? entry.ran_ms[i] : entry.est_ms[i] < 0 ? -1
                                                                               : entry.est_ms[i] / kOptimism;
        if (cost[i] >= 0 && cost[i] < cost[choice]) choice = i;
    }
    TRY(mg__gpu_timer_start(ctx, h->timer));
    TRY(run_step(ctx, g, a, info, kModes[choice]));
    double ms = 0;
    TRY(mg__gpu_timer_stop(ctx, h->timer, &ms));
    entry.ran_ms[choice] = (float)(ms > 0 ? ms : 1e-6);
    info->sampled = true;
    info->est_sparse_ms = cost[0];
    info->est_pull_ms = cost[1];
    info->est_dense_ms = cost[2];
    return MG_SUCCESS;
}
