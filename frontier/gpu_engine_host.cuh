/*
 * gpu_engine_host.cuh — the host side the GPU engines share (sparse_engine.cu, dense_engine.cu,
 * baseline_engine.cu): checking an mg__gpu_advance_args call, filling the kernel parameter block
 * from it, turning a CUDA error into an mg_status that names the engine's entry point and the
 * source line, the small rules every engine applies alike, and the dispatch from a program to its
 * kernels' instantiation. Include after gpu_program.cuh; each
 * engine defines kEntry, the entry point its messages name, before the CU / LAUNCHED macros run.
 */
#ifndef MG_GPU_ENGINE_HOST_CUH
#define MG_GPU_ENGINE_HOST_CUH

#include <limits>

#include "frontier/engine.h"
#include "frontier/gpu_engine.h"

namespace {

/* ---- which programs get their own kernels -------------------------------------------------------- */

/* A (contribution, combine) pair as types, for the dispatch below. */
template <int K, int C> struct Prog {
    static constexpr int k = K, c = C;
};
template <typename... Ps> struct Progs {};

/* The pairs, per value type, whose kernels are compiled with them as constants: the programs of the
 * built-in algorithms and of the benchmarks that the performance log measures. BFS parents
 * (MG_CONTRIB_SRC_ID, MG_COMBINE_ANY) and the benchmarks' BFS depths (MG_CONTRIB_SRC_PLUS_ONE,
 * MG_COMBINE_ANY) and CC labels (MG_CONTRIB_SRC, MG_COMBINE_MIN) on int32 (MG_VERTEX); SSSP
 * (MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN) on int64 and double; PageRank
 * (MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM) on double and, for bench_dense, float; BC and
 * PageRank once its sources are divided (MG_CONTRIB_SRC, MG_COMBINE_SUM) on double. Every other
 * program runs the one generic instantiation of its value type (kRuntime: the same code reading
 * the contribution and combine from Params, a uniform branch per edge). All 24 pairs for 4 types
 * made the engines most of the CUDA build's time. */
template <typename T> struct Hot;
template <> struct Hot<int32_t> {
    typedef Progs<Prog<MG_CONTRIB_SRC_ID, MG_COMBINE_ANY>, Prog<MG_CONTRIB_SRC_PLUS_ONE, MG_COMBINE_ANY>,
                  Prog<MG_CONTRIB_SRC, MG_COMBINE_MIN>> type;
};
template <> struct Hot<int64_t> {
    typedef Progs<Prog<MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN>> type;
};
template <> struct Hot<float> {
    typedef Progs<Prog<MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM>> type;
};
template <> struct Hot<double> {
    typedef Progs<Prog<MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN>,
                  Prog<MG_CONTRIB_SRC_DIV_OUTDEG, MG_COMBINE_SUM>, Prog<MG_CONTRIB_SRC, MG_COMBINE_SUM>>
        type;
};

/* Calls launch(Prog<K, C>()) for the listed pair (k, c), else launch(Prog<kRuntime, kRuntime>()):
 * launch instantiates its kernels with Prog's k and c. */
template <typename F> void by_program(Progs<>, int, int, F &&launch) { launch(Prog<kRuntime, kRuntime>()); }
template <typename P, typename... Ps, typename F> void by_program(Progs<P, Ps...>, int k, int c, F &&launch) {
    if (k == P::k && c == P::c) launch(P());
    else by_program(Progs<Ps...>(), k, c, launch);
}

/* F<T, K, C>(...) for the pair (contribution, combine), through by_program over the list HOT (Hot<T>,
 * or an engine's). */
#define LAUNCH_BY_PROGRAM(HOT, contribution, combine, F, ...)                                      \
    by_program(typename HOT::type(), contribution, combine,                                        \
               [&](auto prog_) { F<T, decltype(prog_)::k, decltype(prog_)::c>(__VA_ARGS__); })

/* ---- errors and checks -------------------------------------------------------------------------- */

/* Blocks of `block` threads for one thread per item, at most 65535 * 4 (the kernels loop). */
inline unsigned grid_for(uint64_t threads, int block = 256) {
    uint64_t g = (threads + block - 1) / block;
    if (g == 0) g = 1;
    return (unsigned)(g > 65535 * 4 ? 65535 * 4 : g);
}

/* A failed CUDA call of entry point fn: MG_OUT_OF_MEMORY for allocations, else MG_DEVICE_ERROR,
 * naming the call and file:line (the file's base name). */
inline mg_status engine_fail(mg_context ctx, cudaError_t e, const char *fn, const char *call,
                             const char *file, int line) {
    (void)cudaGetLastError();
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (e == cudaErrorMemoryAllocation)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of device memory in %s (%s:%d)", fn, call, base,
                         line);
    return mg__error(ctx, MG_DEVICE_ERROR, "%s: %s failed: %s: %s (%s:%d)", fn, call, cudaGetErrorName(e),
                     cudaGetErrorString(e), base, line);
}

#define CU(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return engine_fail(ctx, e_, kEntry, #expr, __FILE__, __LINE__);     \
    } while (0)
#define LAUNCHED(name)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = cudaGetLastError();                                                       \
        if (e_ != cudaSuccess) return engine_fail(ctx, e_, kEntry, "launch of " name, __FILE__, __LINE__); \
    } while (0)
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (expr);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

/* The checks every engine's entry point fn makes first; clears info and a->out_count. */
inline mg_status check_args(mg_context ctx, const char *fn, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a == nullptr || info == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: NULL %s", fn, a ? "info" : "args");
    memset(info, 0, sizeof *info);
    a->out_count = 0;
    const mg_program *p = a->program;
    if (a->g == nullptr || p == nullptr || a->d_y == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: NULL %s", fn,
                         a->g == nullptr ? "graph" : p == nullptr ? "program" : "d_y");
    if ((unsigned)p->contribution > MG_CONTRIB_SRC_ID || (unsigned)p->combine > MG_COMBINE_ANY ||
        (unsigned)p->apply > MG_APPLY_AFFINE || (unsigned)p->edges > MG_EDGES_IN)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: program has an unknown contribution, combine, "
                         "apply or edges value", fn);
    if (p->contribution != MG_CONTRIB_SRC_ID && a->d_x == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: d_x is NULL but the contribution reads source "
                         "values", fn);
    if (p->contribution == MG_CONTRIB_SRC_DIV_OUTDEG && p->edges != MG_EDGES_OUT)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: MG_CONTRIB_SRC_DIV_OUTDEG needs MG_EDGES_OUT", fn);
    if (a->d_in_list != nullptr && a->in_count > a->g->n)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: in_count %u exceeds n = %u", fn, a->in_count,
                         a->g->n);
    return MG_SUCCESS;
}

/* The parameter block of a call: the graph's arrays along the program's direction, the frontier,
 * mask, values and program constants; counters, scratch and outputs are the engine's. */
template <typename T> void params_init(Params<T> &P, const mg__gpu_advance_args *a) {
    const mg__gpu_graph *g = a->g;
    const mg_program *p = a->program;
    const bool along_out = p->edges == MG_EDGES_OUT;
    memset(&P, 0, sizeof P);
    P.n = g->n;
    P.push_off = along_out ? g->d_out_offsets : g->d_in_offsets;
    P.push_idx = along_out ? g->d_out_indices : g->d_in_indices;
    P.push_w = along_out ? g->d_out_weights : g->d_in_weights;
    P.pull_off = along_out ? g->d_in_offsets : g->d_out_offsets;
    P.pull_idx = along_out ? g->d_in_indices : g->d_out_indices;
    P.pull_w = along_out ? g->d_in_weights : g->d_out_weights;
    P.outdeg_off = g->d_degree_offsets != nullptr ? g->d_degree_offsets : g->d_out_offsets;
    P.old_of_new = g->d_old_of_new;
    P.wt = (int)g->weight_type;
    P.list = a->d_in_list;
    P.count = a->d_in_list ? a->in_count : g->n;
    P.mask = a->d_mask;
    P.complement = p->mask_complement;
    P.x = static_cast<const T *>(a->d_x);
    P.y = static_cast<T *>(a->d_y);
    P.apply = (int)p->apply;
    P.unset = (T)p->unset;
    P.alpha = p->alpha;
    P.beta = p->beta;
    P.eps = p->epsilon;
    P.out_list = a->d_out_list;
    P.out_wanted = a->d_out_list != nullptr || a->d_out_bitmap != nullptr;
    P.contribution = (int)p->contribution;
    P.combine = (int)p->combine;
}

/* What a push does per edge for program p: the direct update, or OP_ACC into the accumulator. */
inline int push_op(const mg_program *p) {
    const bool direct = mg__program_is_direct(p);
    switch (p->apply) {
    case MG_APPLY_MIN: return direct ? OP_MIN : OP_ACC;
    case MG_APPLY_MAX: return direct ? OP_MAX : OP_ACC;
    case MG_APPLY_IF_UNSET: return direct ? OP_IF_UNSET : OP_ACC;
    case MG_APPLY_ADD: return direct ? OP_ADD : OP_ACC;
    default: return OP_ACC;
    }
}

/* The combine's identity on the host (the accumulator's fill). */
template <typename T> T host_identity(int combine) {
    typedef std::numeric_limits<T> L;
    if (combine == MG_COMBINE_MIN) return L::has_infinity ? L::infinity() : L::max();
    if (combine == MG_COMBINE_MAX) return L::has_infinity ? -L::infinity() : L::lowest();
    return (T)0;
}

} // namespace

#endif /* MG_GPU_ENGINE_HOST_CUH */
