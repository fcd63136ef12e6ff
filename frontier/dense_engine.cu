/*
 * dense_engine.cu — the dense-frontier advance (MultiGraphD, thesis Sec. 3.4, Algorithms 4 and 5) on
 * the form preprocess/dense_blocks.cu builds; the layout is in preprocess/dense_blocks_layout.h. The
 * semantics are those of mg__gpu_advance (frontier/sparse_engine.cu) and so of the CPU engine
 * (frontier/cpu_engine.c): the shared device code is frontier/gpu_program.cuh.
 *
 *  - phase 1, heavy units (Algorithm 4): a thread block per unit stages its column panel's source
 *    values (the per-source part of the contribution: x, or x + 1, x / outdeg, the caller's id
 *    computed once per call) and, for a frontier that is not every vertex, the active bits in
 *    shared memory; each thread walks one column of the unit's frontier matrix, combining its run's
 *    contributions in a register and merging them into the unit's shared accumulators with a
 *    shared-memory atomic where a marker starts the next run (the columns' last runs are merged
 *    across the warp first); the accumulators go to the unit's slots (and, for a partial frontier,
 *    whether any active source reached them).
 *  - phase 1, light items (Algorithm 5), and phase 2, in one kernel, band by band (thread blocks
 *    take tickets in order: a band's light items, then its row panels, each row panel waiting for
 *    its band's items; one band by default). A light item stages the same values and writes each
 *    active entry's contribution straight to its slot (no atomics, no combining; the slot follows
 *    from the entry's index and its light block). A row panel's thread block combines its
 *    contiguous slots into shared accumulators by destination with shared-memory atomics (a
 *    window of 256 slots per warp, 8 neighbouring ones per thread, their one-byte destination
 *    codes decoded with a warp scan; runs of one destination combined in registers and across the
 *    warp first),
 *    drops the slots' lines from L2 without a write-back, then applies the program's rule to every
 *    eligible destination of the panel and produces the output list and bitmap.
 * Masking: inactive sources contribute nothing, so any frontier runs, at the cost of all edges.
 * A destination is "found" when an active source reached it: every destination with edges for the
 * full frontier, and from per-slot flags otherwise.
 *
 * Kernels are templates over value type, the per-edge part of the contribution (none, + weight,
 * * weight), combine, and whether the frontier is partial; for the programs of the built-in
 * algorithms (HotDense) the per-edge code has no branches on the program, every other program runs
 * its value type's generic instantiation (kRuntime). Shared memory is sized at launch from the
 * panels; the workspace (slot values, flags, bitmaps, counters) lives in the form and is reused, so a
 * call allocates nothing except the first time an 8-byte type or a partial frontier needs more.
 */
#include "frontier/gpu_program.cuh" /* first: it includes mg_internal.h with C linkage */
#include "frontier/gpu_engine_host.cuh"
#include "preprocess/dense_blocks_layout.h"
#include "core/gpu_resident.h"

#include <cub/warp/warp_scan.cuh>

namespace {

constexpr const char *kEntry = "mg__gpu_dense_advance"; /* what errors name (gpu_engine_host.cuh) */
constexpr int kHeavy = MG__DENSE_HEAVY_THREADS;
constexpr int kThreads = MG__DENSE_THREADS;
constexpr int kSmall = 256; /* threads of the small helper kernels */
constexpr uint32_t kBatch = 8;      /* heavy rows loaded at once per thread                */
constexpr uint32_t kLightBatch = 8; /* light entries loaded at once per thread             */
constexpr uint32_t kStageBatch = 4; /* 16-byte source-value loads at once per thread      */
constexpr uint32_t kSourceBits = MG__DENSE_MARKER - 1; /* a light entry's source          */
constexpr uint32_t kSlotChunk = MG__DENSE_SLOT_CHUNK; /* phase-2 slots per thread and round  */
constexpr uint32_t kSlotWindow = MG__DENSE_SLOT_WINDOW; /* phase-2 slots per warp and round  */
static_assert(kSlotWindow == 32 * kSlotChunk, "a window is a warp's chunks");

/* The form's arrays, as the kernels see them. */
struct Layout {
    uint32_t W, max_ranks, max_rows;
    const void *sources; /* per source, what it sends before the edge's part: x or computed */
    const mg__dense_unit *units;
    const uint16_t *heavy;
    const void *heavy_w;
    const mg__dense_light_item *items;
    const uint16_t *light_src;
    const uint32_t *light_delta;
    const void *light_w;
    uint32_t bands;
    const uint32_t *band_row, *band_item;
    uint32_t *sync;      /* [0] ticket counter, [1 + b] band b's finished light items (zeroed) */
    const uint32_t *row_start, *row_slot;
    const uint8_t *slot_code;
    const uint16_t *escape_dst;
    const uint32_t *window_escape;
    const uint64_t *has_edges;
    void *values;
    uint8_t *found;
};

__device__ __forceinline__ bool bit32(const uint32_t *bm, uint32_t i) { return (bm[i >> 5] >> (i & 31)) & 1u; }

/* Shared-memory merges. min / max of floating point by compare-and-swap, starting from the identity
 * the accumulator was reset to (no plain read races the atomics); integers have the instructions. */
__device__ __forceinline__ void smem_min(int32_t *p, int32_t v) { atomicMin(p, v); }
__device__ __forceinline__ void smem_min(int64_t *p, int64_t v) {
    atomicMin(reinterpret_cast<long long *>(p), (long long)v);
}
__device__ __forceinline__ void smem_max(int32_t *p, int32_t v) { atomicMax(p, v); }
__device__ __forceinline__ void smem_max(int64_t *p, int64_t v) {
    atomicMax(reinterpret_cast<long long *>(p), (long long)v);
}
template <typename T> __device__ __forceinline__ void smem_min(T *p, T v) {
    T old = Lim<T>::max();
    while (v < old) {
        const typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return;
        old = from_word<T>(seen);
    }
}
template <typename T> __device__ __forceinline__ void smem_max(T *p, T v) {
    T old = Lim<T>::lowest();
    while (v > old) {
        const typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return;
        old = from_word<T>(seen);
    }
}
template <typename T> __device__ __forceinline__ void smem_combine(int C, T *p, T v) {
    switch (C) {
    case MG_COMBINE_MIN: smem_min(p, v); break;
    case MG_COMBINE_MAX: smem_max(p, v); break;
    case MG_COMBINE_SUM: atomic_add(p, v); break;
    default: atomic_store(p, v); break; /* MG_COMBINE_ANY: any one of them */
    }
}

/* count elements of U at p (16-byte aligned, a multiple of 16 bytes) with 16-byte loads; L2_ONLY:
 * past the L1 cache (data other thread blocks of the running kernel wrote). */
template <bool L2_ONLY, typename U, size_t count>
__device__ __forceinline__ void load_chunk(const U *p, U (&out)[count]) {
    static_assert(sizeof out % 16 == 0 || sizeof out == 8, "whole 16-byte words, or 8 bytes");
    if constexpr (sizeof out == 8) {
        const uint2 *q = reinterpret_cast<const uint2 *>(p);
        const uint2 w = L2_ONLY ? __ldcg(q) : *q;
        memcpy(out, &w, 8);
    } else {
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
        uint4 w[sizeof out / 16];
#pragma unroll
        for (size_t k = 0; k < sizeof out / 16; k++) w[k] = L2_ONLY ? __ldcg(q + k) : q[k];
        memcpy(out, w, sizeof out);
    }
}

/* Drops the 128-byte line at p (128-byte aligned) from L2 without writing it back; its contents
 * become undefined. */
__device__ __forceinline__ void discard_line(void *p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("discard.global.L2 [%0], 128;" : : "l"(p) : "memory");
#else
    (void)p; /* older devices keep the line; only the DRAM traffic differs */
#endif
}

__device__ __forceinline__ uint32_t load_acquire(const uint32_t *p) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Shuffles up of T (int64_t goes as long long, as in gpu_program.cuh). */
template <typename T> __device__ __forceinline__ T shfl_up(T v, int delta) {
    return __shfl_up_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ int64_t shfl_up(int64_t v, int delta) {
    return (int64_t)__shfl_up_sync(0xffffffffu, (long long)v, delta);
}

/* Called by all 32 lanes of a warp, each with a key and a value (found: the value is real). Lanes
 * with equal keys that are neighbours form a run; the last lane of each run gets the run's combined
 * value (and whether any of it was found) and true. Neighbouring lanes often share a destination
 * (a hub's light edges, the columns of one long heavy run): merging them here leaves one
 * shared-memory atomic per run instead of up to 32 on one address. */
template <typename T> __device__ __forceinline__ bool warp_runs(int C, uint32_t key, T &v, bool &found) {
    const int lane = threadIdx.x & 31;
    const uint32_t prev = __shfl_up_sync(0xffffffffu, key, 1);
    const unsigned heads = __ballot_sync(0xffffffffu, lane == 0 || prev != key);
    const int start = 31 - __clz(heads & (0xffffffffu >> (31 - lane))); /* my run's first lane */
    for (int off = 1; off < 32; off <<= 1) {
        const T ov = shfl_up(v, off);
        const bool of = __shfl_up_sync(0xffffffffu, found, off);
        if (lane - off >= start && of) {
            v = found ? combine<T>(C, ov, v) : ov;
            found = true;
        }
    }
    const uint32_t next = __shfl_down_sync(0xffffffffu, key, 1);
    return lane == 31 || next != key;
}

/* What source s sends before the edge's own part (edge_value adds or multiplies the weight). */
template <typename T> __device__ __forceinline__ T staged_value(const Params<T> &P, int K, uint32_t s) {
    switch (K) {
    case MG_CONTRIB_SRC_ID: return source_value<T>(P, MG_CONTRIB_SRC_ID, s);
    case MG_CONTRIB_SRC_DIV_OUTDEG: return source_value<T>(P, MG_CONTRIB_SRC_DIV_OUTDEG, s);
    case MG_CONTRIB_SRC_PLUS_ONE:
        return edge_value<T>(P, MG_CONTRIB_SRC_PLUS_ONE, source_value<T>(P, MG_CONTRIB_SRC, s), nullptr, 0);
    default: return source_value<T>(P, MG_CONTRIB_SRC, s);
    }
}

/* Contributions with a per-source part other than x itself are computed once per call (every unit
 * and light item of a column panel stages the same values: computing them there would read the
 * out-degree offsets again for each). */
template <typename T> __global__ void source_values_kernel(Params<T> P, int K, T *out) {
    for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < P.n; s += gridDim.x * blockDim.x)
        out[s] = staged_value(P, K, s);
}

/* Stages column panel c's source values (and active bits) in shared memory. W is a multiple of 64,
 * so the panel's bits are whole words of the active bitmap. */
template <typename T, bool PARTIAL>
__device__ __forceinline__ void stage(const Params<T> &P, const Layout &D, uint32_t c, T *sval, uint32_t *sact) {
    const uint32_t first = c * D.W;
    const uint32_t count = P.n - first < D.W ? P.n - first : D.W;
    const T *sv = static_cast<const T *>(D.sources) + first;
    uint32_t staged = 0;
    if ((reinterpret_cast<uintptr_t>(sv) & 15) == 0) { /* 16-byte words, kStageBatch in flight */
        constexpr uint32_t per = 16 / sizeof(T);
        const uint32_t words = count / per;
        const uint4 *from = reinterpret_cast<const uint4 *>(sv);
        uint4 *to = reinterpret_cast<uint4 *>(sval);
        uint32_t i = threadIdx.x;
        for (; i + (kStageBatch - 1) * blockDim.x < words; i += kStageBatch * blockDim.x) {
            uint4 w[kStageBatch];
#pragma unroll
            for (uint32_t k = 0; k < kStageBatch; k++) w[k] = from[i + k * blockDim.x];
#pragma unroll
            for (uint32_t k = 0; k < kStageBatch; k++) to[i + k * blockDim.x] = w[k];
        }
        for (; i < words; i += blockDim.x) to[i] = from[i];
        staged = words * per;
    }
    for (uint32_t i = staged + threadIdx.x; i < count; i += blockDim.x) sval[i] = sv[i];
    if (PARTIAL)
        for (uint32_t w = threadIdx.x; w < (count + 31) / 32; w += blockDim.x)
            sact[w] = (uint32_t)(P.active_bm[(first >> 6) + (w >> 1)] >> ((w & 1) * 32));
}

/* Phase 1, heavy units (Algorithm 4). Shared memory: W staged values, max_ranks accumulators, then
 * (partial frontier) W active bits and max_ranks found bits. */
template <typename T, int KE_, int C_, bool PARTIAL>
__global__ void __launch_bounds__(kHeavy) heavy_kernel(Params<T> P, Layout D) {
    const int KE = resolved<KE_>(P.contribution), C = resolved<C_>(P.combine);
    extern __shared__ __align__(16) unsigned char smem[];
    T *sval = reinterpret_cast<T *>(smem);
    T *sacc = sval + D.W;
    uint32_t *sact = reinterpret_cast<uint32_t *>(sacc + D.max_ranks);
    uint32_t *sfound = sact + D.W / 32;
    const mg__dense_unit U = D.units[blockIdx.x];
    stage<T, PARTIAL>(P, D, U.col_panel, sval, sact);
    for (uint32_t i = threadIdx.x; i < U.ranks; i += blockDim.x) sacc[i] = identity<T>(C);
    if (PARTIAL)
        for (uint32_t i = threadIdx.x; i < (U.ranks + 31) / 32; i += blockDim.x) sfound[i] = 0;
    __syncthreads();

    const uint32_t c = threadIdx.x, per_col = U.rows - 1;
    const uint64_t q0 = (uint64_t)c * per_col;
    uint32_t rank = UINT32_MAX; /* columns past the stream hold no run */
    T acc = identity<T>(C);
    bool found = false;
    if (q0 < U.length) {
        const uint32_t cnt = U.length - q0 < per_col ? (uint32_t)(U.length - q0) : per_col;
        const uint64_t base = U.offset + c;
        const uint16_t *col = D.heavy + base;
        rank = col[0] & ~MG__DENSE_MARKER;
        /* rows in batches whose loads are all issued before the batch's shared-memory atomics (an
         * atomic keeps the compiler from moving later loads above it) */
        for (uint32_t r0 = 1; r0 <= cnt; r0 += kBatch) {
            uint32_t e[kBatch];
#pragma unroll
            for (uint32_t k = 0; k < kBatch; k++) e[k] = r0 + k <= cnt ? col[(uint64_t)(r0 + k) * kHeavy] : 0u;
#pragma unroll
            for (uint32_t k = 0; k < kBatch; k++) {
                if (r0 + k > cnt) break;
                if (e[k] & MG__DENSE_MARKER) {
                    if (found) {
                        smem_combine<T>(C, sacc + rank, acc);
                        if (PARTIAL) atomicOr(sfound + (rank >> 5), 1u << (rank & 31));
                    }
                    rank = e[k] & ~MG__DENSE_MARKER;
                    acc = identity<T>(C);
                    found = false;
                } else if (!PARTIAL || bit32(sact, e[k])) {
                    T v = sval[e[k]];
                    if (KE != MG_CONTRIB_SRC)
                        v = edge_value<T>(P, KE, v, D.heavy_w, base + (uint64_t)(r0 + k) * kHeavy);
                    acc = combine<T>(C, acc, v);
                    found = true;
                }
            }
        }
    }
    /* the last runs of neighbouring columns are often one destination's */
    if (warp_runs<T>(C, rank, acc, found) && found) {
        smem_combine<T>(C, sacc + rank, acc);
        if (PARTIAL) atomicOr(sfound + (rank >> 5), 1u << (rank & 31));
    }
    __syncthreads();
    T *out = static_cast<T *>(D.values) + U.slot;
    for (uint32_t i = threadIdx.x; i < U.ranks; i += blockDim.x) {
        out[i] = sacc[i];
        if (PARTIAL) D.found[U.slot + i] = bit32(sfound, i);
    }
}

/* Phase 1, one light item (Algorithm 5), its column panel's values (and bits) already staged: each
 * active entry's contribution goes straight to its slot (no atomics, no combining). The entries go in
 * rounds of kLightBatch * blockDim.x, warp w taking the round's w-th stretch of 32 * kLightBatch,
 * 32 at a time. An entry's slot is its index plus its light block's delta; its block is the item's
 * first plus the block starts (bit 15) after the item's first entry up to it: counted by ballots in
 * the warp and across the round's warps in shared memory (s_warps, two rounds' worth, so one
 * barrier per round suffices). */
template <typename T, bool PARTIAL>
__device__ __forceinline__ void light_item(const Params<T> &P, int KE, const Layout &D,
                                           const mg__dense_light_item &item, const T *sval,
                                           const uint32_t *sact, uint32_t (*s_warps)[32]) {
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const unsigned upto = 0xffffffffu >> (31 - lane); /* lanes up to and including mine */
    T *values = static_cast<T *>(D.values);
    uint32_t before = 0; /* block starts after item.begin before this round */
    uint32_t parity = 0;
    for (uint64_t base = item.begin; base < item.end; base += (uint64_t)kLightBatch * blockDim.x) {
        const uint64_t first = base + (uint64_t)warp * 32 * kLightBatch + lane;
        uint32_t e[kLightBatch];
#pragma unroll
        for (uint32_t k = 0; k < kLightBatch; k++) {
            const uint64_t i = first + 32 * k;
            e[k] = i < item.end ? D.light_src[i] : 0u;
            if (i == item.begin) e[k] &= kSourceBits; /* counted from the item's first block */
        }
        uint32_t count = 0;
#pragma unroll
        for (uint32_t k = 0; k < kLightBatch; k++)
            count += __popc(__ballot_sync(0xffffffffu, e[k] & MG__DENSE_MARKER));
        if (lane == 0) s_warps[parity][warp] = count;
        __syncthreads();
        const uint32_t mine = lane < warps ? s_warps[parity][lane] : 0u;
        uint32_t incl = mine;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const uint32_t o = __shfl_up_sync(0xffffffffu, incl, off);
            if ((int)lane >= off) incl += o;
        }
        uint32_t run = before + __shfl_sync(0xffffffffu, incl - mine, (int)warp);
        before += __shfl_sync(0xffffffffu, incl, 31);
        parity ^= 1u;
#pragma unroll
        for (uint32_t k = 0; k < kLightBatch; k++) {
            const uint64_t i = first + 32 * k;
            const unsigned starts = __ballot_sync(0xffffffffu, e[k] & MG__DENSE_MARKER);
            const uint32_t block = item.block + run + __popc(starts & upto);
            run += __popc(starts);
            if (i >= item.end) continue;
            const uint32_t slot = (uint32_t)i + D.light_delta[block];
            const uint32_t src = e[k] & kSourceBits;
            if (PARTIAL) {
                const bool active = bit32(sact, src);
                D.found[slot] = active;
                if (!active) continue;
            }
            T v = sval[src];
            if (KE != MG_CONTRIB_SRC) v = edge_value<T>(P, KE, v, D.light_w, i);
            values[slot] = v;
        }
    }
}

/* 0x80 in each byte of x that is the escape code 0xff (its low seven bits plus one carry into bit
 * 7, which is set; no byte carries into the next). */
static_assert(MG__DENSE_ESCAPE == 0xffu, "escape_bytes looks for 0xff");
__device__ __forceinline__ uint32_t escape_bytes(uint32_t x) {
    return ((x & 0x7f7f7f7fu) + 0x01010101u) & x & 0x80808080u;
}

/* acc plus the bytes of x that `bytes` selects (0x01 in each byte to add). */
__device__ __forceinline__ uint32_t add_bytes(uint32_t x, uint32_t bytes, uint32_t acc) {
    return __dp4a(x, bytes, acc);
}

/* The bits of x above its highest set bit (all of them for x = 0). */
__device__ __forceinline__ uint32_t bits_above(uint32_t x) {
    return x ? 0xfffffffeu << (31 - __clz(x)) : 0xffffffffu;
}

/* Phase 2 of row panel r: its contiguous slots are combined into shared accumulators by destination
 * (max_rows of them, then (partial) found bits) with shared-memory atomics, then the program's rule
 * is applied to every eligible destination of the panel. The slots were written by this kernel's
 * other thread blocks, so they are read from L2 (past L1), then the lines wholly inside the panel's
 * slots are dropped from L2. The output goes out in rounds of a destination per thread: a warp sets
 * its bitmap bits with one atomic per 64-bit word it covers, and the block reserves its list
 * positions with one atomic per round (every destination may join: PageRank's affine apply). */
template <typename T, bool PARTIAL>
__device__ __forceinline__ void phase2_panel(const Params<T> &P, int C, const Layout &D, uint32_t r,
                                             unsigned char *smem, uint32_t &s_count, ull &s_base) {
    T *sacc = reinterpret_cast<T *>(smem);
    uint32_t *sfound = reinterpret_cast<uint32_t *>(sacc + D.max_rows);
    const uint32_t d0 = D.row_start[r], rows = D.row_start[r + 1] - d0;
    const uint32_t s0 = D.row_slot[r], s1 = D.row_slot[r + 1];
    for (uint32_t i = threadIdx.x; i < rows; i += blockDim.x) sacc[i] = identity<T>(C);
    if (PARTIAL)
        for (uint32_t i = threadIdx.x; i < (rows + 31) / 32; i += blockDim.x) sfound[i] = 0;
    __syncthreads();
    /* a warp takes a window of slots, each thread 8 neighbouring ones with vector loads (the slot
     * arrays are padded to whole chunks). A window's destinations decode on their own. With its
     * codes a thread loads one of the window's first 32 escaped destinations (the side table is
     * padded by 32), so that the decoding waits on no further load: one warp sum of (escapes << 16
     * | steps) per thread, where steps are the codes after the thread's last escape (all of its
     * codes without one), gives each thread its escapes before it (E) and, counted from the last
     * thread that has one, the steps since the last of them; shuffles bring the escaped
     * destinations E - 1, E and E + 1; a chunk with no escape past its first slot (most) adds up
     * its codes with a dp4a per slot. A window with more than 32 escapes or a chunk with more than
     * two (tiny blocks) takes them from memory. (A window holds at most 256 escapes and 256 * 254
     * steps: the halves never carry.) The threads before the panel's first slot only count
     * escapes. A thread combines runs of one destination in a register; its last run is merged
     * with its neighbours' (warp_runs), so a hub's long run of light slots costs one atomic per
     * warp */
    using CodeSum = cub::WarpScan<uint32_t>;
    __shared__ typename CodeSum::TempStorage s_scan[kThreads / 32];
    T *values = static_cast<T *>(D.values);
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t w_end = s1 > s0 ? (s1 - 1) / kSlotWindow + 1 : 0, w_step = blockDim.x / 32;
    /* the next window's first escape is loaded a round ahead: the side-table load then waits on
     * nothing but it, beside the codes' load */
    const uint32_t w_first = s0 / kSlotWindow + warp;
    uint32_t first_escape = w_first < w_end ? D.window_escape[w_first] : 0u;
    for (uint32_t w = w_first; w < w_end; w += w_step) {
        const uint32_t c0 = w * kSlotWindow + lane * kSlotChunk;
        const bool mine = c0 < s1 && c0 + kSlotChunk > s0; /* the chunk holds slots of the panel */
        uint2 code = make_uint2(0u, 0u);
        if (c0 < s1) code = *reinterpret_cast<const uint2 *>(D.slot_code + c0);
        const uint32_t lane_escape = D.escape_dst[first_escape + lane];
        const uint32_t next_first = w + w_step < w_end ? D.window_escape[w + w_step] : 0u;
        T val[kSlotChunk];
        uint8_t fl[kSlotChunk];
        /* 4-byte values are loaded with the codes; 8-byte ones after the decoding (held through
         * it, they would spill: 32 registers a thread at two blocks of 1024 threads per SM) */
        constexpr bool kValuesFirst = sizeof(T) == 4;
        if (kValuesFirst && mine) {
            load_chunk<true>(values + c0, val);
            if (PARTIAL) load_chunk<true>(D.found + c0, fl);
        }
        const uint32_t esc_lo = escape_bytes(code.x), esc_hi = escape_bytes(code.y);
        const uint32_t count = __popc(esc_lo) + __popc(esc_hi);
        /* the code bytes above the last escape byte (bit 8k + 7 of esc_lo / esc_hi for byte k) */
        const uint32_t keep_hi = bits_above(esc_hi), keep_lo = esc_hi ? 0u : bits_above(esc_lo);
        const uint32_t own = count << 16 | add_bytes(code.y & keep_hi, 0x01010101u,
                                                     add_bytes(code.x & keep_lo, 0x01010101u, 0u));
        uint32_t before;
        CodeSum(s_scan[warp]).ExclusiveSum(own, before);
        const unsigned escaping = __ballot_sync(0xffffffffu, count != 0) & ((1u << lane) - 1);
        const uint32_t from = __shfl_sync(0xffffffffu, before, (31 - __clz(escaping)) & 31);
        const uint32_t E = before >> 16, steps = (before - from) & 0xffffu;
        const uint32_t prev = __shfl_sync(0xffffffffu, lane_escape, (E - 1) & 31);
        uint32_t esc1 = __shfl_sync(0xffffffffu, lane_escape, E & 31);
        const uint32_t esc2 = __shfl_sync(0xffffffffu, lane_escape, (E + 1) & 31);
        /* lane 0 has no escape before it, but its chunk starts with one */
        uint32_t dst = prev + steps;
        uint16_t dsts[kSlotChunk]; /* a row panel has at most 32768 rows */
        if (!__any_sync(0xffffffffu, mine && (count > 2 || E + count > 32))) {
            if (((esc_lo & ~0xffu) | esc_hi) == 0) {
                /* no escape past the chunk's first slot (most chunks): slot k's destination is
                 * the start plus the codes up to k, the first one zeroed when it escapes, a dp4a
                 * each */
                const bool first_escaped = esc_lo != 0;
                const uint32_t start = first_escaped ? esc1 : dst;
                const uint32_t lo = first_escaped ? code.x & ~0xffu : code.x;
#pragma unroll
                for (uint32_t k = 0; k < 4; k++)
                    dsts[k] = (uint16_t)add_bytes(lo, 0x01010101u >> (24 - 8 * k), start);
                const uint32_t mid = add_bytes(lo, 0x01010101u, start);
#pragma unroll
                for (uint32_t k = 0; k < 4; k++)
                    dsts[4 + k] = (uint16_t)add_bytes(code.y, 0x01010101u >> (24 - 8 * k), mid);
            } else {
                const uint64_t codes = (uint64_t)code.y << 32 | code.x;
#pragma unroll
                for (uint32_t k = 0; k < kSlotChunk; k++) {
                    const uint32_t c = (uint32_t)(codes >> (8 * k)) & 0xffu;
                    const bool escaped = c == MG__DENSE_ESCAPE;
                    dst = escaped ? esc1 : dst + c;
                    if (escaped) esc1 = esc2;
                    dsts[k] = (uint16_t)dst;
                }
            }
        } else {
            const uint64_t codes = (uint64_t)code.y << 32 | code.x;
            uint32_t next = first_escape + E;
            if (E > 0) dst = (uint32_t)D.escape_dst[next - 1] + steps;
#pragma unroll
            for (uint32_t k = 0; k < kSlotChunk; k++) {
                const uint32_t c = (uint32_t)(codes >> (8 * k)) & 0xffu;
                dst = c == MG__DENSE_ESCAPE ? (uint32_t)D.escape_dst[next++] : dst + c;
                dsts[k] = (uint16_t)dst;
            }
        }
        if (!kValuesFirst && mine) {
            load_chunk<true>(values + c0, val);
            if (PARTIAL) load_chunk<true>(D.found + c0, fl);
        }
        uint32_t cur = UINT32_MAX;
        T acc = identity<T>(C);
        bool found = false;
        const auto take = [&](uint32_t k) {
            if (PARTIAL && !fl[k]) return;
            if (dsts[k] != cur) {
                if (found) {
                    smem_combine<T>(C, sacc + cur, acc);
                    if (PARTIAL) atomicOr(sfound + (cur >> 5), 1u << (cur & 31));
                }
                cur = dsts[k];
                acc = val[k];
                found = true;
            } else {
                acc = combine<T>(C, acc, val[k]);
            }
        };
        /* a chunk inside the panel needs no bounds (8-byte values keep one loop: two would
         * spill) */
        if (kValuesFirst && mine && c0 >= s0 && c0 + kSlotChunk <= s1) {
#pragma unroll
            for (uint32_t k = 0; k < kSlotChunk; k++) take(k);
        } else if (mine) {
#pragma unroll
            for (uint32_t k = 0; k < kSlotChunk; k++)
                if (c0 + k >= s0 && c0 + k < s1) take(k);
        }
        if (warp_runs<T>(C, cur, acc, found) && found) {
            smem_combine<T>(C, sacc + cur, acc);
            if (PARTIAL) atomicOr(sfound + (cur >> 5), 1u << (cur & 31));
        }
        first_escape = next_first;
    }
    __syncthreads();
    /* every slot of the panel is read: its lines are dead until the next advance rewrites them (no
     * other panel's slot shares a line wholly inside, and the chunks of the neighbours' reads end
     * and start at multiples of 8 slots, so they never reach into one) */
    {
        unsigned char *bytes = reinterpret_cast<unsigned char *>(values);
        const uint64_t lo = ((uint64_t)s0 * sizeof(T) + 127) / 128, hi = (uint64_t)s1 * sizeof(T) / 128;
        for (uint64_t line = lo + threadIdx.x; line < hi; line += blockDim.x) discard_line(bytes + line * 128);
    }
    for (uint32_t base = 0; base < rows; base += blockDim.x) { /* the same rounds for all threads */
        const uint32_t l = base + threadIdx.x, d = d0 + l;
        bool joins = false;
        if (l < rows && eligible(P, d)) {
            const bool found = PARTIAL ? bit32(sfound, l) : bit(D.has_edges, d);
            joins = (found || P.apply == MG_APPLY_AFFINE) && apply_one(P, d, sacc[l], found);
        }
        /* the warp's 32 consecutive destinations touch one or two bitmap words: lane 0 sets the
         * bits of the first, lane k (the first destination on a word boundary) those of the second */
        const unsigned mask = __ballot_sync(0xffffffffu, joins);
        const uint32_t dw = d - lane, k = (64 - (dw & 63)) & 63;
        if (mask != 0) {
            if (lane == 0) {
                const unsigned first = k == 0 || k >= 32 ? mask : mask & ((1u << k) - 1);
                if (first) atomicOr(reinterpret_cast<ull *>(&P.out_bm[dw >> 6]), (ull)first << (dw & 63));
            } else if (lane == k) {
                if (mask >> k) atomicOr(reinterpret_cast<ull *>(&P.out_bm[d >> 6]), (ull)(mask >> k));
            }
        }
        /* list positions: per warp in shared memory, then one global reservation per round */
        if (threadIdx.x == 0) s_count = 0;
        __syncthreads();
        uint32_t pos = 0;
        if (mask != 0) {
            uint32_t wbase = 0;
            if (lane == 0) wbase = atomicAdd(&s_count, (uint32_t)__popc(mask));
            pos = __shfl_sync(0xffffffffu, wbase, 0) + __popc(mask & ((1u << lane) - 1));
        }
        __syncthreads();
        if (threadIdx.x == 0) s_base = s_count ? atomicAdd(P.out_count, (ull)s_count) : 0;
        __syncthreads();
        if (joins && P.out_list != nullptr) P.out_list[s_base + pos] = d;
    }
}

/* Light items and phase 2, band by band (dense_blocks_layout.h): a thread block takes the next ticket;
 * band b's tickets are its light items, then its row panels. A row panel waits until its band's
 * items are done; they hold earlier tickets, so they run or ran already, whatever the order the
 * thread blocks start in. Shared memory: for an item, W staged values, then (partial) W active
 * bits; for a row panel, phase2_panel's. */
template <typename T, int KE_, int C_, bool PARTIAL>
__global__ void __launch_bounds__(kThreads, 2) light_phase2_kernel(Params<T> P, Layout D) {
    const int KE = resolved<KE_>(P.contribution), C = resolved<C_>(P.combine);
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ uint32_t s_job, s_band, s_light;
    __shared__ uint32_t s_warps[2][32];
    __shared__ uint32_t s_count;
    __shared__ ull s_base;
    if (threadIdx.x == 0) {
        const uint32_t t = atomicAdd(D.sync, 1u);
        uint32_t a = 0, z = D.bands; /* the last band whose first ticket is at or before t */
        while (z - a > 1) {
            const uint32_t mid = a + (z - a) / 2;
            if (D.band_item[mid] + D.band_row[mid] <= t) a = mid;
            else z = mid;
        }
        const uint32_t at = t - (D.band_item[a] + D.band_row[a]);
        const uint32_t items = D.band_item[a + 1] - D.band_item[a];
        s_band = a;
        s_light = at < items;
        if (at < items) {
            s_job = D.band_item[a] + at;
        } else {
            s_job = D.band_row[a] + (at - items);
            while (load_acquire(D.sync + 1 + a) < items) __nanosleep(128);
        }
    }
    __syncthreads();
    if (s_light) {
        T *sval = reinterpret_cast<T *>(smem);
        uint32_t *sact = reinterpret_cast<uint32_t *>(sval + D.W);
        const mg__dense_light_item item = D.items[s_job];
        stage<T, PARTIAL>(P, D, item.col_panel, sval, sact);
        __syncthreads();
        light_item<T, PARTIAL>(P, KE, D, item, sval, sact, s_warps);
        __threadfence(); /* this block's slots, before the count that releases them */
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(D.sync + 1 + s_band, 1u);
    } else {
        phase2_panel<T, PARTIAL>(P, C, D, s_job, smem, s_count, s_base);
    }
}

/* ---- host side -------------------------------------------------------------------------------- */

/* Replaces a workspace buffer by a larger one, zeroed (the old contents are scratch; phase 2 reads
 * the padding of the slot arrays). */
mg_status ws_grow(mg_context ctx, mg__dense_workspace *ws, void **buf, size_t old_bytes, size_t bytes,
                  const char *what) {
    void *q = nullptr;
    cudaError_t e = cudaMalloc(&q, bytes ? bytes : 8);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg__gpu_dense_advance: cudaMalloc of %zu bytes for %s: %s", bytes, what,
                         cudaGetErrorString(e));
    }
    e = cudaMemset(q, 0, bytes ? bytes : 8);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        cudaFree(q);
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_dense_advance: cudaMemset of %s: %s", what,
                         cudaGetErrorString(e));
    }
    if (*buf != nullptr) cudaFree(*buf);
    *buf = q;
    ws->bytes = ws->bytes - old_bytes + bytes;
    return MG_SUCCESS;
}

/* Each instantiation's launch, with its shared memory allowed first. */
template <typename T>
cudaError_t launch(void (*kernel)(Params<T>, Layout), int threads, const Params<T> &P, const Layout &D,
                   unsigned grid, size_t smem) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    kernel<<<grid, threads, smem>>>(P, D);
    return cudaGetLastError();
}

/* The (per-edge part of the contribution, combine) pairs whose phase kernels are compiled with them
 * as constants, per value type: Hot (gpu_engine_host.cuh) as this engine sees it, every per-source
 * part (MG_CONTRIB_SRC_ID, _PLUS_ONE, _DIV_OUTDEG) computed before the phases and so
 * MG_CONTRIB_SRC here. The other programs run the generic instantiation (kRuntime). */
template <typename T> struct HotDense;
template <> struct HotDense<int32_t> {
    typedef Progs<Prog<MG_CONTRIB_SRC, MG_COMBINE_ANY>, Prog<MG_CONTRIB_SRC, MG_COMBINE_MIN>> type;
};
template <> struct HotDense<int64_t> {
    typedef Progs<Prog<MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN>> type;
};
template <> struct HotDense<float> {
    typedef Progs<Prog<MG_CONTRIB_SRC, MG_COMBINE_SUM>> type;
};
template <> struct HotDense<double> {
    typedef Progs<Prog<MG_CONTRIB_SRC_PLUS_WEIGHT, MG_COMBINE_MIN>, Prog<MG_CONTRIB_SRC, MG_COMBINE_SUM>>
        type;
};

template <typename T, bool PARTIAL>
mg_status run_phases(mg_context ctx, const mg__gpu_dense *d, const Params<T> &P, const Layout &D, int KE,
                     int C) {
    const size_t t = sizeof(T), W = d->params.panel_width;
    const size_t heavy_smem = (W + d->max_ranks) * t + (PARTIAL ? W / 8 + ((size_t)d->max_ranks + 31) / 32 * 4 : 0);
    const size_t light_smem = d->light_items > 0 ? W * t + (PARTIAL ? W / 8 : 0) : 0;
    const size_t phase2_smem = (size_t)d->max_rows_per_panel * t +
                               (PARTIAL ? ((size_t)d->max_rows_per_panel + 31) / 32 * 4 : 0);
    const size_t banded_smem = light_smem > phase2_smem ? light_smem : phase2_smem;
    const size_t need = d->units > 0 && heavy_smem > banded_smem ? heavy_smem : banded_smem;
    if (need > d->smem_optin)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_advance: panels of %u sources and "
                         "%u destinations need %zu bytes of shared memory per block for %zu-byte "
                         "values; the device allows %zu", d->params.panel_width,
                         d->params.panel_height, need, t, d->smem_optin);
    if (d->units > 0) {
        cudaError_t e = cudaSuccess;
        by_program(typename HotDense<T>::type(), KE, C, [&](auto prog) {
            e = launch(heavy_kernel<T, decltype(prog)::k, decltype(prog)::c, PARTIAL>, kHeavy, P, D, d->units,
                       heavy_smem);
        });
        if (e != cudaSuccess)
            return engine_fail(ctx, e, kEntry, "launch of the heavy kernel", __FILE__, __LINE__);
    }
    if (d->row_panels > 0) {
        cudaError_t e = cudaSuccess;
        by_program(typename HotDense<T>::type(), KE, C, [&](auto prog) {
            e = launch(light_phase2_kernel<T, decltype(prog)::k, decltype(prog)::c, PARTIAL>, kThreads, P, D,
                       d->light_items + d->row_panels, banded_smem);
        });
        if (e != cudaSuccess)
            return engine_fail(ctx, e, kEntry, "launch of the light/phase-2 kernel", __FILE__, __LINE__);
    }
    return MG_SUCCESS;
}

template <typename T>
mg_status advance_t(mg_context ctx, const mg__gpu_dense *d, mg__gpu_advance_args *a, mg_advance_info *info) {
    const mg__gpu_graph *g = a->g;
    const mg_program *p = a->program;
    mg__dense_workspace *ws = d->ws;
    const uint32_t n = g->n;
    const size_t words = mg__bitmap_words(n);
    const bool partial = a->d_in_list != nullptr;
    const int K = (int)p->contribution;
    const bool computed_sources = K == MG_CONTRIB_SRC_ID || K == MG_CONTRIB_SRC_DIV_OUTDEG ||
                                  K == MG_CONTRIB_SRC_PLUS_ONE;

    /* the workspace: slot values wide enough for T, and flags for a partial frontier */
    if (ws->value_size < sizeof(T) && d->slots > 0) {
        const size_t slots = MG__DENSE_SLOT_ALLOC(d->slots);
        const mg_status st = ws_grow(ctx, ws, &ws->values, slots * ws->value_size, slots * sizeof(T),
                                     "the slot values");
        if (st != MG_SUCCESS) return st;
        ws->value_size = sizeof(T);
    }
    if (computed_sources && ws->source_size < sizeof(T) && n > 0) {
        const mg_status st = ws_grow(ctx, ws, &ws->sources, (size_t)n * ws->source_size,
                                     (size_t)n * sizeof(T), "the source values");
        if (st != MG_SUCCESS) return st;
        ws->source_size = sizeof(T);
    }
    if (partial && ws->found == nullptr && d->slots > 0) {
        void *buf = nullptr;
        const mg_status st = ws_grow(ctx, ws, &buf, 0, MG__DENSE_SLOT_ALLOC(d->slots), "the slot flags");
        if (st != MG_SUCCESS) return st;
        ws->found = static_cast<uint8_t *>(buf);
    }

    Params<T> P;
    params_init(P, a);
    P.out_bm = a->d_out_bitmap ? a->d_out_bitmap : ws->out_bitmap;
    P.out_count = ws->counters;
    CU(cudaMemsetAsync(ws->counters, 0, ws->counter_bytes)); /* with the band counters */
    if (words > 0) CU(cudaMemsetAsync(P.out_bm, 0, words * sizeof(uint64_t)));
    ull counters[2] = {0, g->m}; /* output count, frontier edges */
    if (partial) {
        P.active_bm = ws->active;
        if (words > 0) CU(cudaMemsetAsync(ws->active, 0, words * sizeof(uint64_t)));
        if (a->in_count > 0) {
            mg__gpu_list_to_bitmap_async(a->d_in_list, a->in_count, ws->active);
            LAUNCHED("list_to_bitmap");
            /* the frontier's edges along the program's direction (info->frontier_edges) */
            const uint64_t *off = p->edges == MG_EDGES_OUT ? g->d_out_offsets : g->d_in_offsets;
            mg__gpu_degree_sum_async(off, a->d_in_list, a->in_count, ws->counters + 1);
            LAUNCHED("degree_sum");
        }
    }

    Layout D;
    D.W = d->params.panel_width;
    D.max_ranks = d->max_ranks;
    D.max_rows = d->max_rows_per_panel;
    D.sources = a->d_x;
    if (computed_sources && n > 0) {
        source_values_kernel<T><<<grid_for(n, kSmall), kSmall>>>(P, K, static_cast<T *>(ws->sources));
        LAUNCHED("source_values_kernel");
        D.sources = ws->sources;
    }
    D.units = d->d_units;
    D.heavy = d->d_heavy_entries;
    D.heavy_w = d->d_heavy_weights;
    D.items = d->d_light_items;
    D.light_src = d->d_light_src;
    D.light_delta = d->d_light_delta;
    D.bands = d->bands;
    D.band_row = d->d_band_row;
    D.band_item = d->d_band_item;
    D.sync = reinterpret_cast<uint32_t *>(ws->counters + 2);
    D.light_w = d->d_light_weights;
    D.row_start = d->d_row_start;
    D.row_slot = d->d_row_slot;
    D.slot_code = d->d_slot_code;
    D.escape_dst = d->d_escape_dst;
    D.window_escape = d->d_window_escape;
    D.has_edges = d->d_has_edges;
    D.values = ws->values;
    D.found = ws->found;
    const int KE = p->contribution == MG_CONTRIB_SRC_PLUS_WEIGHT || p->contribution == MG_CONTRIB_SRC_TIMES_WEIGHT
                       ? (int)p->contribution
                       : (int)MG_CONTRIB_SRC;
    P.contribution = KE; /* what the generic kernels read */
    const mg_status st = partial ? run_phases<T, true>(ctx, d, P, D, KE, (int)p->combine)
                                 : run_phases<T, false>(ctx, d, P, D, KE, (int)p->combine);
    if (st != MG_SUCCESS) return st;

    CU(cudaMemcpy(counters, ws->counters, (partial ? 2 : 1) * sizeof(ull), cudaMemcpyDeviceToHost));
    a->out_count = (uint32_t)counters[0];
    info->frontier_vertices = P.count;
    info->frontier_edges = counters[1];
    info->edges_scanned = g->m; /* the dense engine streams every edge */
    info->output_vertices = (uint32_t)counters[0];
    info->pulled = false;
    info->dense = true;
    info->seconds = 0;
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_dense_advance(mg_context ctx, const struct mg__gpu_dense *d,
                                           mg__gpu_advance_args *a, mg_advance_info *info) {
    if (d == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_advance: NULL dense form");
    TRY(check_args(ctx, kEntry, a, info));
    const mg_program *p = a->program;
    if (d->n != a->g->n || d->m != a->g->m || (d->edges != p->edges && !a->g->in_shares_out))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_advance: the dense form (n = %u, "
                         "m = %llu, %s edges) is not that of this graph and direction (n = %u, "
                         "m = %llu, %s edges)", d->n, (unsigned long long)d->m,
                         d->edges == MG_EDGES_OUT ? "out" : "in", a->g->n,
                         (unsigned long long)a->g->m, p->edges == MG_EDGES_OUT ? "out" : "in");
    switch (a->type) {
    case MG_INT32: case MG_VERTEX: return advance_t<int32_t>(ctx, d, a, info);
    case MG_INT64: return advance_t<int64_t>(ctx, d, a, info);
    case MG_FLOAT: return advance_t<float>(ctx, d, a, info);
    case MG_DOUBLE: return advance_t<double>(ctx, d, a, info);
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_advance: unknown value type %d",
                     (int)a->type);
}
