/*
 * dense_blocks.cu — builds the dense-frontier form of a device graph on the GPU (MultiGraphD, thesis
 * Sec. 3.4, Figures 3.2-3.4). The layout is described in dense_blocks_layout.h; read it first.
 *
 * The build works on runs: a run is the edges of one destination from one column panel (rows are
 * sorted by source, so a run is a contiguous piece of a row). Steps, all on one stream:
 *  1. per destination, its number of runs (a warp per row counts column-panel changes); a bitmap of
 *     the destinations with edges;
 *  2. row panels: a new panel every H rows and wherever the running count of runs crosses a multiple
 *     of the slot cap (flags, scan, scatter);
 *  3. the runs themselves (destination, first edge, length), keyed by 2D block, row panel major;
 *  4. a stable radix sort of the run keys: runs grouped by block, by destination inside a block;
 *     a segmented scan gives each run's edge offset inside its block;
 *  5. per block, its first run, edges and runs, copied to the host, which classifies the blocks
 *     (heavy or light), lays out the slots (row panel major), the light streams (column panel
 *     major), the bands of row panels, the light items (band major) and the units: O(blocks) work
 *     on small arrays, uploaded back;
 *  6. the units' sizes (a kernel per unit) and entry offsets (a scan);
 *  7. the placement: a warp per run writes its marker and sources into its unit's frontier matrix,
 *     or its entries into the light stream (the block's first entry marked), and its slots'
 *     destinations (16-bit, temporary); a thread per column writes each column's top marker (a
 *     binary search over the unit's runs);
 *  8. the slot codes: a warp per window of slots writes the one-byte codes and counts the window's
 *     escapes; a scan places each window's escapes in the side table, which a second pass fills.
 * Temporary arrays (about 40 bytes per run) are freed at the end. Every CUDA and CUB call is checked;
 * all device memory of a build is tracked and freed in one place on failure.
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

extern "C" {
#include "mg_internal.h"
}
#include "preprocess/dense_blocks_layout.h"

namespace {

constexpr int kThreads = 256;
/* Blocks of the edge matrix the host bookkeeping accepts (16 bytes each on the host, 24 on the
 * device): beyond it the panels are far too small for the graph. R-MAT 24 (2^24 vertices) makes
 * 5.2M blocks of the widest and tallest panels a block's shared memory allows; 2^26 is 1 GiB of
 * bookkeeping at most, for graphs of 2^26 vertices and more. */
constexpr uint64_t kMaxBlocks = UINT64_C(1) << 26;
/* Row panels are cut where their estimated slots reach this many times the average of H-high
 * panels. */
constexpr uint64_t kSlotCapFactor = 4;

/* ---- kernels ----------------------------------------------------------------------------------- */

#define GRID_STRIDE(i, count)                                                                      \
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (count);                \
         i += (uint64_t)gridDim.x * blockDim.x)

/* A warp per row: runs[d] = the number of column panels its sources fall in (sources ascending). */
__global__ void count_runs_kernel(const uint64_t *off, const uint32_t *src, uint32_t n, uint32_t W,
                                  uint64_t *runs) {
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t d = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; d < n; d += warps) {
        const uint64_t lo = off[d], hi = off[d + 1];
        uint64_t count = 0;
        for (uint64_t base = lo; base < hi; base += 32) {
            const uint64_t e = base + lane;
            const bool starts = e < hi && (e == lo || src[e] / W != src[e - 1] / W);
            count += __popc(__ballot_sync(0xffffffffu, starts));
        }
        if (lane == 0) runs[d] = count;
    }
}

/* Bit d: destination d has at least one edge. A thread per word. */
__global__ void has_edges_kernel(const uint64_t *off, uint32_t n, uint64_t *bm) {
    GRID_STRIDE(w, ((uint64_t)n + 63) / 64) {
        uint64_t bits = 0;
        for (uint32_t i = 0; i < 64 && w * 64 + i < n; i++) {
            const uint64_t d = w * 64 + i;
            if (off[d + 1] > off[d]) bits |= UINT64_C(1) << i;
        }
        bm[w] = bits;
    }
}

/* flags[d] = 1 where a row panel starts: every H rows, and where the running run count (exclusive
 * prefix run_off) crosses a multiple of cap. */
__global__ void panel_flags_kernel(const uint64_t *run_off, uint32_t n, uint32_t H, uint64_t cap,
                                   uint32_t *flags) {
    GRID_STRIDE(d, n) {
        flags[d] = d % H == 0 || run_off[d] / cap != run_off[d - 1] / cap;
    }
}

__global__ void panel_scatter_kernel(const uint32_t *flags, const uint32_t *pos, uint32_t n,
                                     uint32_t *row_start) {
    GRID_STRIDE(d, n) {
        if (flags[d]) row_start[pos[d]] = (uint32_t)d;
    }
}

/* The row panel of destination d: the last r with row_start[r] <= d. */
__device__ __forceinline__ uint32_t panel_of(const uint32_t *row_start, uint32_t panels, uint32_t d) {
    uint32_t a = 0, z = panels; /* row_start[0] = 0 <= d */
    while (z - a > 1) {
        const uint32_t mid = a + (z - a) / 2;
        if (row_start[mid] <= d) a = mid;
        else z = mid;
    }
    return a;
}

/* A warp per row: its runs, in order, at run_off[d]... : key = block (row panel major), id = run
 * index, and the run's destination and first edge. */
__global__ void make_runs_kernel(const uint64_t *off, const uint32_t *src, uint32_t n, uint32_t W,
                                 uint32_t col_panels, const uint32_t *row_start, uint32_t row_panels,
                                 const uint64_t *run_off, uint32_t *key, uint32_t *id,
                                 uint32_t *run_row, uint64_t *run_first) {
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t d = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; d < n; d += warps) {
        const uint64_t lo = off[d], hi = off[d + 1];
        if (lo == hi) continue;
        const uint32_t r = panel_of(row_start, row_panels, (uint32_t)d);
        uint64_t next = run_off[d];
        for (uint64_t base = lo; base < hi; base += 32) {
            const uint64_t e = base + lane;
            const bool starts = e < hi && (e == lo || src[e] / W != src[e - 1] / W);
            const unsigned mask = __ballot_sync(0xffffffffu, starts);
            if (starts) {
                const uint64_t j = next + __popc(mask & below);
                key[j] = r * col_panels + src[e] / W;
                id[j] = (uint32_t)j;
                run_row[j] = (uint32_t)d;
                run_first[j] = e;
            }
            next += __popc(mask);
        }
    }
}

/* The length of run j: up to the next run of its row, or the row's end. */
__global__ void run_length_kernel(const uint64_t *off, const uint64_t *run_off, const uint32_t *run_row,
                                  const uint64_t *run_first, uint64_t runs, uint32_t *len) {
    GRID_STRIDE(j, runs) {
        const uint32_t d = run_row[j];
        const uint64_t end = j + 1 < run_off[d + 1] ? run_first[j + 1] : off[d + 1];
        len[j] = (uint32_t)(end - run_first[j]);
    }
}

/* Sorted run j's length, by the permutation the sort produced. */
__global__ void gather_length_kernel(const uint32_t *order, const uint32_t *len, uint64_t runs,
                                     uint32_t *sorted_len) {
    GRID_STRIDE(j, runs) sorted_len[j] = len[order[j]];
}

/* Per block: its first and last sorted run (first stays ~0 for an empty block). */
__global__ void block_ends_kernel(const uint32_t *key, uint64_t runs, uint32_t *first, uint32_t *last) {
    GRID_STRIDE(j, runs) {
        const uint32_t b = key[j];
        if (j == 0 || key[j - 1] != b) first[b] = (uint32_t)j;
        if (j + 1 == runs || key[j + 1] != b) last[b] = (uint32_t)j;
    }
}

/* What the host needs per block: edges, runs, and the offset of the last run. */
__global__ void block_sizes_kernel(const uint32_t *first, const uint32_t *last, const uint32_t *in_off,
                                   const uint32_t *sorted_len, uint64_t blocks, uint32_t *edges,
                                   uint32_t *ranks, uint32_t *last_off) {
    GRID_STRIDE(b, blocks) {
        const uint32_t f = first[b];
        if (f == UINT32_MAX) {
            edges[b] = ranks[b] = last_off[b] = 0;
            continue;
        }
        const uint32_t l = last[b];
        edges[b] = in_off[l] + sorted_len[l];
        ranks[b] = l - f + 1;
        last_off[b] = in_off[l];
    }
}

/* Per block, as laid out by the host. */
struct BlockInfo {
    uint32_t first;      /* first sorted run                                                   */
    uint32_t ranks;      /* runs = destinations                                                */
    uint32_t edges;
    uint32_t slot;       /* first slot                                                         */
    uint32_t unit;       /* first unit (heavy) or UINT32_MAX (light)                          */
    uint32_t stream;     /* first light entry (light)                                          */
};

/* Sorted run j that starts a unit records itself as that unit's first run. */
__global__ void unit_first_kernel(const uint32_t *key, const uint32_t *in_off, uint64_t runs,
                                  const BlockInfo *info, uint32_t unit_edges, uint32_t *unit_first) {
    GRID_STRIDE(j, runs) {
        const BlockInfo B = info[key[j]];
        if (B.unit == UINT32_MAX) continue;
        const uint32_t u = in_off[j] / unit_edges;
        if (j == B.first || in_off[j - 1] / unit_edges != u) unit_first[B.unit + u] = (uint32_t)j;
    }
}

/* Per unit: everything but its entry offset; entries[u] = rows * threads (scanned next). */
__global__ void unit_size_kernel(const uint32_t *key, const uint32_t *in_off, const BlockInfo *info,
                                 const uint32_t *unit_first, uint32_t units, uint32_t col_panels,
                                 uint32_t threads, mg__dense_unit *unit, uint64_t *entries,
                                 unsigned int *max_ranks) {
    GRID_STRIDE(u, units) {
        const uint32_t j0 = unit_first[u], b = key[j0];
        const BlockInfo B = info[b];
        const uint32_t block_end = B.first + B.ranks;
        uint32_t j1 = block_end;
        if (u + 1 < units && key[unit_first[u + 1]] == b) j1 = unit_first[u + 1];
        const uint32_t edges = (j1 < block_end ? in_off[j1] : B.edges) - in_off[j0];
        mg__dense_unit U;
        U.offset = 0;
        U.ranks = j1 - j0;
        U.length = edges + U.ranks;
        U.rows = (U.length + threads - 1) / threads + 1;
        U.col_panel = b % col_panels;
        U.row_panel = b / col_panels;
        U.slot = B.slot + (j0 - B.first);
        unit[u] = U;
        entries[u] = (uint64_t)U.rows * threads;
        atomicMax(max_ranks, U.ranks);
    }
}

__global__ void unit_offset_kernel(const uint64_t *entries, uint32_t units, mg__dense_unit *unit) {
    GRID_STRIDE(u, units) unit[u].offset = entries[u];
}

/* A warp per sorted run: a heavy block's run goes to its unit's frontier matrix (marker, then
 * sources, at their stream positions), a light block's run to the light stream; either way the
 * run's slots record their destination. */
__global__ void place_runs_kernel(const uint32_t *key, const uint32_t *order, const uint32_t *in_off,
                                  const uint32_t *sorted_len, uint64_t runs, const uint32_t *run_row,
                                  const uint64_t *run_first, const uint32_t *src, const uint32_t *w,
                                  const BlockInfo *info, const uint32_t *unit_first,
                                  const mg__dense_unit *unit, uint32_t unit_edges, uint32_t W,
                                  uint32_t col_panels, const uint32_t *row_start, uint32_t threads,
                                  uint16_t *heavy, uint32_t *heavy_w, uint16_t *light_src,
                                  uint32_t *light_w, uint16_t *slot_dst) {
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t j = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; j < runs; j += warps) {
        const uint32_t b = key[j], c = b % col_panels, r = b / col_panels;
        const BlockInfo B = info[b];
        const uint32_t rid = order[j], len = sorted_len[j];
        const uint32_t d = run_row[rid];
        const uint64_t e0 = run_first[rid];
        const uint32_t c0 = c * W;
        const uint16_t dl = (uint16_t)(d - row_start[r]);
        if (B.unit != UINT32_MAX) {
            const uint32_t u = B.unit + in_off[j] / unit_edges;
            const mg__dense_unit U = unit[u];
            const uint32_t j0 = unit_first[u], rank = (uint32_t)j - j0;
            const uint32_t q = in_off[j] - in_off[j0] + rank; /* the marker's stream position */
            const uint32_t per_col = U.rows - 1;
            if (lane == 0) {
                heavy[U.offset + (uint64_t)(1 + q % per_col) * threads + q / per_col] =
                    (uint16_t)(MG__DENSE_MARKER | rank);
                slot_dst[U.slot + rank] = dl;
            }
            for (uint32_t t = lane; t < len; t += 32) {
                const uint32_t p = q + 1 + t;
                const uint64_t at = U.offset + (uint64_t)(1 + p % per_col) * threads + p / per_col;
                heavy[at] = (uint16_t)(src[e0 + t] - c0);
                if (heavy_w) heavy_w[at] = w[e0 + t];
            }
        } else {
            /* the entry at pos has slot B.slot + in_off[j]: the block's slots follow its stream */
            const uint64_t pos = (uint64_t)B.stream + in_off[j];
            const uint32_t slot = B.slot + in_off[j];
            for (uint32_t t = lane; t < len; t += 32) {
                const bool first = in_off[j] + t == 0; /* the block's first entry */
                light_src[pos + t] = (uint16_t)((src[e0 + t] - c0) | (first ? MG__DENSE_MARKER : 0u));
                if (light_w) light_w[pos + t] = w[e0 + t];
                slot_dst[slot + t] = dl;
            }
        }
    }
}

/* Bit s of first: slot s is the first of a row panel (of one with slots). */
__global__ void panel_first_kernel(const uint32_t *row_slot, uint32_t row_panels, uint32_t *first) {
    GRID_STRIDE(r, row_panels) {
        const uint32_t s = row_slot[r];
        if (s < row_slot[r + 1]) atomicOr(&first[s >> 5], 1u << (s & 31));
    }
}

/* Whether slot i's destination is stored whole (dense_blocks_layout.h): the first slot of a window or
 * of a row panel, or one whose destination is below the previous slot's or 255 and more above. */
__device__ __forceinline__ bool escaped(const uint16_t *dst, const uint32_t *first, uint32_t i) {
    if (i % MG__DENSE_SLOT_WINDOW == 0 || ((first[i >> 5] >> (i & 31)) & 1u)) return true;
    return dst[i] < dst[i - 1] || dst[i] - dst[i - 1] >= (int)MG__DENSE_ESCAPE;
}

/* A warp per window of slots: the slots' codes, and the window's escapes in count[w]. */
__global__ void slot_codes_kernel(const uint16_t *dst, const uint32_t *first, uint64_t slots,
                                  uint8_t *code, uint32_t *count) {
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    const uint64_t windows = MG__DENSE_SLOT_WINDOWS(slots);
    const uint64_t first_warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    for (uint64_t w = first_warp; w < windows; w += warps) {
        uint32_t escapes = 0;
        for (uint32_t k = 0; k < MG__DENSE_SLOT_WINDOW; k += 32) {
            const uint64_t i = w * MG__DENSE_SLOT_WINDOW + k + lane;
            const bool esc = i < slots && escaped(dst, first, (uint32_t)i);
            if (i < slots)
                code[i] = esc ? (uint8_t)MG__DENSE_ESCAPE : (uint8_t)(dst[i] - dst[i - 1]);
            escapes += __popc(__ballot_sync(0xffffffffu, esc));
        }
        if (lane == 0) count[w] = escapes;
    }
}

/* A warp per window: its escaped slots' destinations, in slot order from escape_dst[before[w]]. */
__global__ void escape_values_kernel(const uint16_t *dst, const uint32_t *first, uint64_t slots,
                                     const uint32_t *before, uint16_t *escape_dst) {
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    const uint64_t windows = MG__DENSE_SLOT_WINDOWS(slots);
    const uint64_t first_warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    for (uint64_t w = first_warp; w < windows; w += warps) {
        uint32_t at = before[w];
        for (uint32_t k = 0; k < MG__DENSE_SLOT_WINDOW; k += 32) {
            const uint64_t i = w * MG__DENSE_SLOT_WINDOW + k + lane;
            const bool esc = i < slots && escaped(dst, first, (uint32_t)i);
            const unsigned mask = __ballot_sync(0xffffffffu, esc);
            if (esc) escape_dst[at + __popc(mask & below)] = dst[i];
            at += __popc(mask);
        }
    }
}

/* A block per unit, a thread per column: row 0 repeats the marker of the run that the column's first
 * stream element belongs to (the last run whose marker position is at or before it). */
__global__ void column_tops_kernel(const uint32_t *in_off, const uint32_t *unit_first,
                                   const mg__dense_unit *unit, uint32_t units, uint16_t *heavy) {
    for (uint32_t u = blockIdx.x; u < units; u += gridDim.x) {
        const mg__dense_unit U = unit[u];
        const uint32_t j0 = unit_first[u], per_col = U.rows - 1;
        for (uint32_t c = threadIdx.x; c < blockDim.x; c += blockDim.x) {
            const uint64_t q0 = (uint64_t)c * per_col;
            if (q0 >= U.length) continue;
            uint32_t a = 0, z = U.ranks; /* marker of rank k at in_off[j0 + k] - in_off[j0] + k */
            while (z - a > 1) {
                const uint32_t mid = a + (z - a) / 2;
                if (in_off[j0 + mid] - in_off[j0] + mid <= q0) a = mid;
                else z = mid;
            }
            heavy[U.offset + c] = (uint16_t)(MG__DENSE_MARKER | a);
        }
    }
}

/* ---- host side: one build's resources ---------------------------------------------------------- */

#include "preprocess/gpu_build.cuh"

unsigned grid_for(uint64_t count) {
    uint64_t g = (count + kThreads - 1) / kThreads;
    return (unsigned)(g > (UINT64_C(1) << 20) ? (UINT64_C(1) << 20) : (g ? g : 1));
}

#define LAUNCH_N(kernel, threads_needed, ...)                                                      \
    do {                                                                                           \
        if ((threads_needed) > 0) {                                                                \
            kernel<<<grid_for(threads_needed), kThreads, 0, b->stream>>>(__VA_ARGS__);             \
            CU_NAMED(cudaGetLastError(), "launch of " #kernel);                                    \
        }                                                                                          \
    } while (0)

template <typename T> mg_status download(Build *b, T *host, const T *dev, uint64_t count) {
    if (count == 0) return MG_SUCCESS;
    CU(cudaMemcpyAsync(host, dev, count * sizeof(T), cudaMemcpyDeviceToHost, b->stream));
    CU(cudaStreamSynchronize(b->stream));
    return MG_SUCCESS;
}
template <typename T> mg_status upload(Build *b, T *dev, const T *host, uint64_t count) {
    if (count == 0) return MG_SUCCESS;
    CU(cudaMemcpyAsync(dev, host, count * sizeof(T), cudaMemcpyHostToDevice, b->stream));
    CU(cudaStreamSynchronize(b->stream)); /* the host array may be freed next */
    return MG_SUCCESS;
}

int bits_for(uint64_t count) {
    int nb = 1;
    while (nb < 63 && ((count > 0 ? count - 1 : 0) >> nb) != 0) nb++;
    return nb;
}

/* Host arrays of one build, freed together. */
struct HostArrays {
    void *p[16] = {};
    int k = 0;
    ~HostArrays() {
        for (int i = 0; i < k; i++) mg__free(p[i]);
    }
};
template <typename T> mg_status halloc(mg_context ctx, HostArrays &h, T **p, uint64_t count) {
    *p = static_cast<T *>(mg__calloc(count ? (size_t)count : 1, sizeof(T)));
    if (*p == nullptr)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__gpu_dense_build: out of host memory for %llu "
                         "block entries", (unsigned long long)count);
    h.p[h.k++] = *p;
    return MG_SUCCESS;
}

/* The device limits the layout is derived from. */
struct Limits {
    size_t smem_optin, smem_sm;
};

mg_status device_limits(mg_context ctx, int device, Limits *L) {
    int optin = 0, per_sm = 0;
    cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_dense_build: cudaDeviceGetAttribute: %s",
                         cudaGetErrorString(e));
    }
    L->smem_optin = (size_t)optin;
    L->smem_sm = (size_t)per_sm;
    return MG_SUCCESS;
}

/* Fills the zero fields of P from the device. A heavy thread block holds W source values and up to
 * H accumulators (plus a bit each for partial frontiers): two such blocks should fit one SM with
 * 4-byte values (full occupancy at 1024 threads), and one block with 8-byte values. W takes the
 * larger power-of-two share (more sources per staged panel amortise the staging), H the rest. The
 * heavy threshold W / 16 (a block is worth a thread block once it has an edge per 16 staged values)
 * and units of 16 W edges come from the tuning sweep on the H100 (tools/bench_dense.c). */
void derive_params(const Limits &L, mg__gpu_dense_params *P) {
    const size_t reserve = 1024; /* the runtime's shared memory per block */
    size_t per4 = L.smem_sm / 2 < L.smem_optin ? L.smem_sm / 2 : L.smem_optin;
    per4 = per4 > reserve ? per4 - reserve : 0;
    const size_t sides4 = per4 * 8 / 33, sides8 = L.smem_optin * 8 / 65; /* 4.125 and 8.125 B each */
    const size_t sides = sides4 < sides8 ? sides4 : sides8;
    if (P->panel_width == 0) {
        size_t w = 64;
        while (w * 2 <= sides * 3 / 5 && w * 2 <= MG__DENSE_MAX_SIDE) w *= 2;
        P->panel_width = (uint32_t)w;
    }
    /* Height and threshold as tuned on the H100 (PERFORMANCE.md, bench_dense's sweep): shorter row
     * panels than shared memory allows (4096) balance phase 2 better, and a heavy block needs a
     * quarter of the panel width in edges (R-MAT 22 PageRank step 0.665 ms against 0.763 ms with
     * the full height and width/16, at 1.20x instead of 0.94x plain CSR). */
    if (P->panel_height == 0) {
        size_t h = sides > P->panel_width ? (sides - P->panel_width) / 64 * 64 : 64;
        if (h > 4096) h = 4096;
        if (h < 64) h = 64;
        if (h > MG__DENSE_MAX_SIDE) h = MG__DENSE_MAX_SIDE;
        P->panel_height = (uint32_t)h;
    }
    if (P->heavy_threshold == 0) P->heavy_threshold = P->panel_width / 4 ? P->panel_width / 4 : 1;
    if (P->unit_edges == 0) P->unit_edges = P->panel_width * 16;
    /* One band: smaller ones were slower in bench_dense's band sweep on the H100 (50 MB of L2;
     * two runs, the second with L2 eviction hints that did not help and are gone), float
     * PageRank: uniform22 0.92-0.96 ms with one band against 1.00-1.04 with bands of 52 MB of
     * 4-byte values, 1.05-1.09 with 26 MB, 1.18 with 13 MB (a quarter of L2) and 1.80-1.87 with
     * 3.3 MB; R-MAT 22 0.53-0.56 against 0.54-0.55, 0.55, 0.57-0.59 and 0.79-0.82. The slots did
     * not stay in L2 (ncu, uniform22: 17.1-17.7 DRAM bytes per edge with 13 MB bands, 12.9-13.0
     * with one): a band holds too few row panels (about 30 of 105K slots each) for its phase 2 to
     * keep pace with the next bands' light items, and each band stages all n source values again. */
    if (P->band_slots == 0) P->band_slots = UINT32_MAX;
}

/* Frees everything a form holds (device and host). */
void dense_release(mg__gpu_dense *d) {
    if (d == nullptr) return;
    (void)cudaDeviceSynchronize(); /* cudaFree does not wait for pool memory (gpu_build.cuh) */
    void *const arrays[] = {d->d_row_start, d->d_row_slot, d->d_units, d->d_heavy_entries,
                            d->d_heavy_weights, d->d_light_items, d->d_light_src, d->d_light_delta,
                            d->d_light_weights, d->d_band_row, d->d_band_item, d->d_slot_code,
                            d->d_escape_dst, d->d_window_escape, d->d_has_edges};
    for (void *p : arrays)
        if (p != nullptr) cudaFree(p);
    if (d->ws != nullptr) {
        void *const ws[] = {d->ws->values, d->ws->found, d->ws->sources, d->ws->active,
                            d->ws->out_bitmap, d->ws->counters};
        for (void *p : ws)
            if (p != nullptr) cudaFree(p);
        mg__free(d->ws);
    }
    mg__free(d);
}

mg_status build(Build *b, const mg__gpu_graph *g, mg_edges edges, mg__gpu_dense *d) {
    const uint32_t n = g->n;
    const bool along_out = edges == MG_EDGES_OUT;
    /* destination rows: along the stored edges a destination's sources are its CSC column */
    const uint64_t *off = along_out ? g->d_in_offsets : g->d_out_offsets;
    const uint32_t *src = along_out ? g->d_in_indices : g->d_out_indices;
    const bool weighted = g->weight_type != MG_WEIGHT_NONE;
    const uint32_t *w = weighted ? static_cast<const uint32_t *>(along_out ? g->d_in_weights
                                                                           : g->d_out_weights)
                                 : nullptr;
    const uint32_t W = d->params.panel_width, H = d->params.panel_height;
    const uint32_t T = d->params.heavy_threshold, UE = d->params.unit_edges;
    const uint32_t threads = MG__DENSE_HEAVY_THREADS;
    const uint32_t CP = (uint32_t)(((uint64_t)n + W - 1) / W);

    CU(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
    CU(cudaEventCreate(&b->start));
    CU(cudaEventCreate(&b->stop));
    CU(cudaEventRecord(b->start, b->stream));

    /* 1. runs per destination; the destinations with edges */
    uint64_t *run_off = nullptr;
    uint64_t *has_edges = nullptr;
    DALLOC(run_off, (uint64_t)n + 1, "runs per destination");
    DALLOC(has_edges, mg__bitmap_words(n), "the destinations-with-edges bitmap");
    CU(cudaMemsetAsync(run_off, 0, ((size_t)n + 1) * 8, b->stream));
    LAUNCH_N(count_runs_kernel, (uint64_t)n * 32, off, src, n, W, run_off);
    LAUNCH_N(has_edges_kernel, mg__bitmap_words(n), off, n, has_edges);
    CUB_RUN(cub::DeviceScan::ExclusiveSum, run_off, run_off, (int64_t)n + 1, b->stream);
    uint64_t runs = 0;
    TRY(download(b, &runs, run_off + n, 1));
    if (runs >= UINT32_MAX)
        return mg__error(b->ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: %llu runs (destination "
                         "x column panel) exceed 32-bit run ids; use wider panels",
                         (unsigned long long)runs);

    /* 2. row panels */
    const uint64_t fixed_panels = ((uint64_t)n + H - 1) / H;
    uint64_t cap = fixed_panels ? kSlotCapFactor * ((runs + fixed_panels - 1) / fixed_panels) : 1;
    if (cap == 0) cap = 1;
    uint32_t *flags = nullptr, *pos = nullptr, *starts = nullptr;
    DALLOC(flags, n, "row panel flags");
    DALLOC(pos, n, "row panel positions");
    LAUNCH_N(panel_flags_kernel, n, run_off, n, H, cap, flags);
    uint32_t RP = 0;
    if (n > 0) {
        CUB_RUN(cub::DeviceScan::ExclusiveSum, flags, pos, (int64_t)n, b->stream);
        uint32_t last_pos = 0, last_flag = 0;
        TRY(download(b, &last_pos, pos + n - 1, 1));
        TRY(download(b, &last_flag, flags + n - 1, 1));
        RP = last_pos + last_flag;
    }
    DALLOC(starts, (uint64_t)RP + 1, "row panel starts");
    LAUNCH_N(panel_scatter_kernel, n, flags, pos, n, starts);
    CU(cudaMemcpyAsync(starts + RP, &n, 4, cudaMemcpyHostToDevice, b->stream));
    dfree(b, flags);
    dfree(b, pos);
    const uint64_t NB = (uint64_t)RP * CP;
    if (NB > kMaxBlocks)
        return mg__error(b->ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: %u x %u panels make %llu "
                         "blocks (at most %llu); use larger panels", RP, CP, (unsigned long long)NB,
                         (unsigned long long)kMaxBlocks);

    /* 3. the runs, keyed by block */
    uint32_t *key0 = nullptr, *key1 = nullptr, *id0 = nullptr, *id1 = nullptr, *run_row = nullptr,
             *len = nullptr;
    uint64_t *run_first = nullptr;
    DALLOC(key0, runs, "run keys");
    DALLOC(key1, runs, "run keys (sort buffer)");
    DALLOC(id0, runs, "run ids");
    DALLOC(id1, runs, "run ids (sort buffer)");
    DALLOC(run_row, runs, "run destinations");
    DALLOC(run_first, runs, "run first edges");
    DALLOC(len, runs, "run lengths");
    LAUNCH_N(make_runs_kernel, (uint64_t)n * 32, off, src, n, W, CP, starts, RP, run_off, key0, id0,
             run_row, run_first);
    LAUNCH_N(run_length_kernel, runs, off, run_off, run_row, run_first, runs, len);

    /* 4. sort by block (stable: destinations stay ascending inside a block); offsets in blocks */
    cub::DoubleBuffer<uint32_t> K(key0, key1), V(id0, id1);
    if (runs > 0)
        CUB_RUN(cub::DeviceRadixSort::SortPairs, K, V, (int64_t)runs, 0, bits_for(NB), b->stream);
    const uint32_t *key = K.Current(), *order = V.Current();
    uint32_t *slen = nullptr, *in_off = nullptr;
    DALLOC(slen, runs, "sorted run lengths");
    DALLOC(in_off, runs, "run offsets in blocks");
    LAUNCH_N(gather_length_kernel, runs, order, len, runs, slen);
    if (runs > 0)
        CUB_RUN(cub::DeviceScan::ExclusiveSumByKey, key, slen, in_off, (int64_t)runs,
                ::cuda::std::equal_to<>{}, b->stream);
    dfree(b, len);
    dfree(b, V.Alternate());
    dfree(b, K.Alternate());

    /* 5. per block sizes to the host; classify and lay out there */
    uint32_t *bfirst = nullptr, *blast = nullptr, *bedges = nullptr, *branks = nullptr,
             *blastoff = nullptr;
    DALLOC(bfirst, NB, "block first runs");
    DALLOC(blast, NB, "block last runs");
    DALLOC(bedges, NB, "block edges");
    DALLOC(branks, NB, "block runs");
    DALLOC(blastoff, NB, "block last-run offsets");
    if (NB > 0) CU(cudaMemsetAsync(bfirst, 0xff, NB * 4, b->stream));
    LAUNCH_N(block_ends_kernel, runs, key, runs, bfirst, blast);
    LAUNCH_N(block_sizes_kernel, NB, bfirst, blast, in_off, slen, NB, bedges, branks, blastoff);
    HostArrays h;
    uint32_t *h_first, *h_edges, *h_ranks, *h_lastoff, *h_start;
    BlockInfo *h_info;
    TRY(halloc(b->ctx, h, &h_first, NB));
    TRY(halloc(b->ctx, h, &h_edges, NB));
    TRY(halloc(b->ctx, h, &h_ranks, NB));
    TRY(halloc(b->ctx, h, &h_lastoff, NB));
    TRY(halloc(b->ctx, h, &h_info, NB));
    TRY(halloc(b->ctx, h, &h_start, (uint64_t)RP + 1));
    TRY(download(b, h_first, bfirst, NB));
    TRY(download(b, h_edges, bedges, NB));
    TRY(download(b, h_ranks, branks, NB));
    TRY(download(b, h_lastoff, blastoff, NB));
    TRY(download(b, h_start, starts, (uint64_t)RP + 1));
    dfree(b, blast);
    dfree(b, bedges);
    dfree(b, branks);
    dfree(b, blastoff);
    dfree(b, bfirst);

    uint32_t *h_row_slot;
    TRY(halloc(b->ctx, h, &h_row_slot, (uint64_t)RP + 1));
    mg__gpu_dense_stats &S = d->stats;
    uint64_t slots = 0, units = 0;
    for (uint64_t blk = 0; blk < NB; blk++) { /* row panel major: slots */
        if (blk % CP == 0) h_row_slot[blk / CP] = (uint32_t)slots;
        BlockInfo &I = h_info[blk];
        I.first = h_first[blk];
        I.ranks = h_ranks[blk];
        I.edges = h_edges[blk];
        I.slot = (uint32_t)slots;
        I.unit = UINT32_MAX;
        I.stream = 0;
        if (I.edges == 0) continue;
        if (I.edges >= T) {
            I.unit = (uint32_t)units;
            units += h_lastoff[blk] / UE + 1;
            slots += I.ranks;
            S.heavy_blocks++;
            S.heavy_edges += I.edges;
        } else {
            slots += I.edges;
            S.light_blocks++;
            S.light_edges += I.edges;
        }
        if (slots > UINT32_MAX - MG__DENSE_SLOT_WINDOW || units > UINT32_MAX)
            return mg__error(b->ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: more than %llu "
                             "slots or %llu units; use larger panels or a lower heavy threshold",
                             (unsigned long long)(UINT32_MAX - MG__DENSE_SLOT_WINDOW),
                             (unsigned long long)UINT32_MAX);
    }
    h_row_slot[RP] = (uint32_t)slots;

    /* column panel major: the light streams, light blocks numbered in stream order with the offset
     * from their entries to their slots (light entries are at most the slots: 32-bit) */
    uint32_t *h_light_block, *h_light_delta;
    TRY(halloc(b->ctx, h, &h_light_block, NB));
    TRY(halloc(b->ctx, h, &h_light_delta, S.light_blocks));
    uint64_t light = 0;
    for (uint32_t c = 0, lb = 0; c < CP; c++)
        for (uint32_t r = 0; r < RP; r++) {
            const uint64_t blk = (uint64_t)r * CP + c;
            BlockInfo &I = h_info[blk];
            if (I.edges == 0 || I.unit != UINT32_MAX) continue;
            I.stream = (uint32_t)light;
            h_light_block[blk] = lb;
            h_light_delta[lb++] = I.slot - I.stream;
            light += I.edges;
        }

    /* bands of consecutive row panels holding at most band_slots slots (or one row panel) */
    uint32_t *h_band_row, *h_band_item;
    TRY(halloc(b->ctx, h, &h_band_row, (uint64_t)RP + 1));
    uint32_t bands = 0;
    for (uint32_t r = 0; r < RP; r++)
        if (bands == 0 || h_row_slot[r + 1] - h_row_slot[h_band_row[bands - 1]] > d->params.band_slots)
            h_band_row[bands++] = r;
    h_band_row[bands] = RP;
    TRY(halloc(b->ctx, h, &h_band_item, (uint64_t)bands + 1));

    /* light items, band major: a band's light blocks of one column panel are consecutive in that
     * panel's stream; that piece is cut every item_cap entries (counted first, then filled) */
    const uint64_t item_cap = MG__DENSE_LIGHT_ITEM_EDGES(W);
    uint64_t items = 0;
    for (uint32_t k = 0; k < bands; k++)
        for (uint32_t c = 0; c < CP; c++) {
            uint64_t lo = UINT64_MAX, hi = 0;
            for (uint32_t r = h_band_row[k]; r < h_band_row[k + 1]; r++) {
                const BlockInfo &I = h_info[(uint64_t)r * CP + c];
                if (I.edges == 0 || I.unit != UINT32_MAX) continue;
                if (lo == UINT64_MAX) lo = I.stream;
                hi = (uint64_t)I.stream + I.edges;
            }
            if (lo != UINT64_MAX) items += (hi - lo + item_cap - 1) / item_cap;
        }
    if (items > UINT32_MAX - RP)
        return mg__error(b->ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: %llu light items; use "
                         "wider panels or larger bands", (unsigned long long)items);
    mg__dense_light_item *h_items;
    TRY(halloc(b->ctx, h, &h_items, items));
    uint32_t item = 0;
    for (uint32_t k = 0; k < bands; k++) {
        h_band_item[k] = item;
        for (uint32_t c = 0; c < CP; c++) {
            bool open = false; /* an item of this piece has begun and not ended */
            uint64_t piece_end = 0;
            for (uint32_t r = h_band_row[k]; r < h_band_row[k + 1]; r++) {
                const uint64_t blk = (uint64_t)r * CP + c;
                const BlockInfo &I = h_info[blk];
                if (I.edges == 0 || I.unit != UINT32_MAX) continue;
                piece_end = (uint64_t)I.stream + I.edges;
                for (uint64_t e = I.stream; e < piece_end;) {
                    if (open && e - h_items[item].begin == item_cap) {
                        h_items[item++].end = e;
                        open = false;
                    }
                    if (!open) {
                        h_items[item].begin = e;
                        h_items[item].col_panel = c;
                        h_items[item].block = h_light_block[blk];
                        open = true;
                    }
                    const uint64_t cut = h_items[item].begin + item_cap;
                    e = cut < piece_end ? cut : piece_end;
                }
            }
            if (open) h_items[item++].end = piece_end;
        }
    }
    h_band_item[bands] = item;
    uint32_t max_rows = 0;
    for (uint32_t r = 0; r < RP; r++)
        if (h_start[r + 1] - h_start[r] > max_rows) max_rows = h_start[r + 1] - h_start[r];

    BlockInfo *info = nullptr;
    uint32_t *row_slot = nullptr, *light_delta = nullptr, *band_row = nullptr, *band_item = nullptr;
    mg__dense_light_item *light_items = nullptr;
    DALLOC(info, NB, "block layout");
    DALLOC(row_slot, (uint64_t)RP + 1, "row panel slots");
    DALLOC(light_items, items, "light items");
    DALLOC(light_delta, S.light_blocks, "light block slot offsets");
    DALLOC(band_row, (uint64_t)bands + 1, "band row panels");
    DALLOC(band_item, (uint64_t)bands + 1, "band light items");
    TRY(upload(b, info, h_info, NB));
    TRY(upload(b, row_slot, h_row_slot, (uint64_t)RP + 1));
    TRY(upload(b, light_items, h_items, items));
    TRY(upload(b, light_delta, h_light_delta, S.light_blocks));
    TRY(upload(b, band_row, h_band_row, (uint64_t)bands + 1));
    TRY(upload(b, band_item, h_band_item, (uint64_t)bands + 1));

    /* 6. units */
    uint32_t *unit_first = nullptr;
    mg__dense_unit *unit = nullptr;
    uint64_t *unit_entries = nullptr;
    unsigned int *max_ranks = nullptr;
    DALLOC(unit_first, units, "unit first runs");
    DALLOC(unit, units, "heavy units");
    DALLOC(unit_entries, units + 1, "unit entries");
    DALLOC(max_ranks, 1, "the largest unit");
    CU(cudaMemsetAsync(max_ranks, 0, sizeof *max_ranks, b->stream));
    LAUNCH_N(unit_first_kernel, runs, key, in_off, runs, info, UE, unit_first);
    if (units > 0) {
        LAUNCH_N(unit_size_kernel, units, key, in_off, info, unit_first, (uint32_t)units, CP, threads,
                 unit, unit_entries, max_ranks);
        CU(cudaMemsetAsync(unit_entries + units, 0, 8, b->stream));
        CUB_RUN(cub::DeviceScan::ExclusiveSum, unit_entries, unit_entries, (int64_t)units + 1,
                b->stream);
        LAUNCH_N(unit_offset_kernel, units, unit_entries, (uint32_t)units, unit);
    }
    uint64_t entries = 0;
    unsigned int h_max_ranks = 0;
    if (units > 0) TRY(download(b, &entries, unit_entries + units, 1));
    TRY(download(b, &h_max_ranks, max_ranks, 1));

    /* 7. placement */
    uint16_t *heavy = nullptr, *light_src = nullptr, *slot_dst = nullptr;
    uint32_t *heavy_w = nullptr, *light_w = nullptr;
    DALLOC(heavy, entries, "frontier matrices");
    if (weighted) DALLOC(heavy_w, entries, "frontier matrix weights");
    DALLOC(light_src, light, "light sources");
    if (weighted) DALLOC(light_w, light, "light weights");
    DALLOC(slot_dst, slots, "slot destinations (16-bit, temporary)");
    if (entries > 0) {
        /* padding is never read; zeroed so the structure's bytes are the same from run to run */
        CU(cudaMemsetAsync(heavy, 0, entries * 2, b->stream));
        if (heavy_w) CU(cudaMemsetAsync(heavy_w, 0, entries * 4, b->stream));
    }
    LAUNCH_N(place_runs_kernel, runs * 32, key, order, in_off, slen, runs, run_row, run_first, src, w,
             info, unit_first, unit, UE, W, CP, starts, threads, heavy, heavy_w, light_src, light_w,
             slot_dst);
    if (units > 0) {
        column_tops_kernel<<<(unsigned)(units < 65535u * 16 ? units : 65535u * 16), threads, 0,
                             b->stream>>>(in_off, unit_first, unit, (uint32_t)units, heavy);
        CU_NAMED(cudaGetLastError(), "launch of column_tops_kernel");
    }

    /* 8. the slot codes and the escapes' side table */
    const uint64_t windows = MG__DENSE_SLOT_WINDOWS(slots);
    uint8_t *slot_code = nullptr;
    uint16_t *escape_dst = nullptr;
    uint32_t *panel_first = nullptr, *window_escape = nullptr;
    DALLOC(slot_code, MG__DENSE_SLOT_ALLOC(slots), "slot codes");
    CU(cudaMemsetAsync(slot_code, 0, MG__DENSE_SLOT_ALLOC(slots), b->stream)); /* padding: no escape */
    DALLOC(window_escape, windows + 1, "escapes per window");
    CU(cudaMemsetAsync(window_escape, 0, (windows + 1) * 4, b->stream));
    uint32_t escapes = 0;
    if (slots > 0) {
        DALLOC(panel_first, (slots + 31) / 32, "row panels' first slots");
        CU(cudaMemsetAsync(panel_first, 0, (slots + 31) / 32 * 4, b->stream));
        LAUNCH_N(panel_first_kernel, RP, row_slot, RP, panel_first);
        LAUNCH_N(slot_codes_kernel, windows * 32, slot_dst, panel_first, slots, slot_code, window_escape);
        CUB_RUN(cub::DeviceScan::ExclusiveSum, window_escape, window_escape, (int64_t)windows + 1,
                b->stream);
        TRY(download(b, &escapes, window_escape + windows, 1));
        /* padded: a warp of phase 2 reads a window's first 32 escapes at once */
        DALLOC(escape_dst, (uint64_t)escapes + MG__DENSE_ESCAPE_PAD, "escaped slot destinations");
        CU(cudaMemsetAsync(escape_dst, 0, ((size_t)escapes + MG__DENSE_ESCAPE_PAD) * 2, b->stream));
        LAUNCH_N(escape_values_kernel, windows * 32, slot_dst, panel_first, slots, window_escape,
                 escape_dst);
    }
    dfree(b, panel_first);
    dfree(b, slot_dst);

    /* the workspace: a 4-byte value per slot (grown for 8-byte types on first use), bitmaps */
    mg__dense_workspace *ws = d->ws;
    const size_t words = mg__bitmap_words(n);
    uint32_t *values = nullptr; /* 4-byte values, whatever their type */
    uint64_t *active = nullptr, *out_bitmap = nullptr;
    unsigned long long *counters = nullptr;
    DALLOC(values, MG__DENSE_SLOT_ALLOC(slots), "slot values");
    CU(cudaMemsetAsync(values, 0, MG__DENSE_SLOT_ALLOC(slots) * 4, b->stream)); /* the padding is read */
    DALLOC(active, words, "the active-source bitmap");
    DALLOC(out_bitmap, words, "the output bitmap");
    /* two 64-bit counters, then 32-bit words: the ticket counter and one per band */
    const uint64_t counter_words = 2 + ((uint64_t)bands + 2) / 2;
    DALLOC(counters, counter_words, "advance counters");

    CU(cudaEventRecord(b->stop, b->stream));
    CU(cudaEventSynchronize(b->stop));
    float ms = 0;
    CU(cudaEventElapsedTime(&ms, b->start, b->stop));

    d->col_panels = CP;
    d->row_panels = RP;
    d->d_row_start = starts;
    d->d_row_slot = row_slot;
    d->units = (uint32_t)units;
    d->d_units = unit;
    d->d_heavy_entries = heavy;
    d->d_heavy_weights = heavy_w;
    d->heavy_entries = entries;
    d->light_items = (uint32_t)items;
    d->d_light_items = light_items;
    d->d_light_src = light_src;
    d->d_light_delta = light_delta;
    d->d_light_weights = light_w;
    d->bands = bands;
    d->d_band_row = band_row;
    d->d_band_item = band_item;
    d->slots = slots;
    d->d_slot_code = slot_code;
    d->escapes = escapes;
    d->d_escape_dst = escape_dst;
    d->d_window_escape = window_escape;
    d->d_has_edges = has_edges;
    d->max_rows_per_panel = max_rows;
    d->max_ranks = h_max_ranks;
    void *const kept[] = {starts, row_slot, unit, heavy, heavy_w, light_items, light_src, light_delta,
                          light_w, band_row, band_item, slot_code, escape_dst, window_escape,
                          has_edges};
    size_t total = 0;
    for (void *p : kept) total += dkeep(b, p);
    d->bytes = total;
    ws->values = values;
    ws->value_size = 4;
    ws->active = active;
    ws->out_bitmap = out_bitmap;
    ws->counters = counters;
    ws->counter_bytes = counter_words * sizeof *counters;
    void *const kept_ws[] = {values, active, out_bitmap, counters};
    size_t ws_total = 0;
    for (void *p : kept_ws) ws_total += dkeep(b, p);
    ws->bytes = ws_total;

    S.params = d->params;
    S.col_panels = CP;
    S.row_panels = RP;
    S.slots = slots;
    S.escapes = escapes;
    S.heavy_units = units;
    S.light_items = items;
    S.bands = bands;
    S.csr_bytes = g->csr_bytes;
    S.seconds = ms / 1e3;
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_dense_build(mg_context ctx, const mg__gpu_graph *g, mg_edges edges,
                                         const mg__gpu_dense_params *params, mg__gpu_dense **out) {
    if (out == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: out is NULL");
    *out = nullptr;
    if (g == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: g is NULL");
    if ((unsigned)edges > MG_EDGES_IN)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: unknown edge direction %d",
                         (int)edges);
    Limits L;
    mg_status st = device_limits(ctx, g->device, &L);
    if (st != MG_SUCCESS) return st;
    mg__gpu_dense_params P;
    memset(&P, 0, sizeof P);
    if (params != nullptr) P = *params;
    derive_params(L, &P);
    if (P.panel_width % 64 != 0 || P.panel_width > MG__DENSE_MAX_SIDE || P.panel_height == 0 ||
        P.panel_height > MG__DENSE_MAX_SIDE || P.unit_edges < P.panel_width)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: panel width %u (a multiple "
                         "of 64 up to %u), panel height %u (1 to %u) or unit edges %u (at least the "
                         "width) out of range", P.panel_width, MG__DENSE_MAX_SIDE, P.panel_height,
                         MG__DENSE_MAX_SIDE, P.unit_edges);
    if (g->m > 0 && g->d_in_offsets == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_build: g has no device arrays");

    mg__gpu_dense *d = static_cast<mg__gpu_dense *>(mg__calloc(1, sizeof *d));
    if (d != nullptr) d->ws = static_cast<mg__dense_workspace *>(mg__calloc(1, sizeof *d->ws));
    if (d == nullptr || d->ws == nullptr) {
        dense_release(d);
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__gpu_dense_build: out of host memory");
    }
    d->refs = 1;
    d->device = g->device;
    d->edges = edges;
    d->n = g->n;
    d->m = g->m;
    d->weight_type = g->weight_type;
    d->params = P;
    d->smem_optin = L.smem_optin;

    Build b;
    b.ctx = ctx;
    b.who = "mg__gpu_dense_build";
    st = build(&b, g, edges, d);
    release(&b);
    if (st != MG_SUCCESS) {
        dense_release(d);
        return st;
    }
    d->stats.bytes = d->bytes + d->ws->bytes;
    *out = d;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_dense_get(mg_context ctx, mg__gpu_graph *g, mg_edges edges,
                                       const mg__gpu_dense **out) {
    if (out == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_get: out is NULL");
    *out = nullptr;
    if (g == nullptr || (unsigned)edges > MG_EDGES_IN)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_dense_get: %s",
                         g == nullptr ? "g is NULL" : "unknown edge direction");
    if (g->dense[edges] == nullptr) {
        /* an undirected graph's rows are the same either way: one form serves both directions */
        mg__gpu_dense *other = g->dense[edges == MG_EDGES_OUT ? MG_EDGES_IN : MG_EDGES_OUT];
        if (g->in_shares_out && other != nullptr) {
            other->refs++;
            g->dense[edges] = other;
        } else {
            mg_status st = mg__gpu_dense_build(ctx, g, edges, nullptr, &g->dense[edges]);
            if (st != MG_SUCCESS) return st;
        }
    }
    *out = g->dense[edges];
    return MG_SUCCESS;
}

extern "C" void mg__gpu_dense_get_stats(const mg__gpu_dense *d, mg__gpu_dense_stats *stats) {
    if (stats == nullptr) return;
    memset(stats, 0, sizeof *stats);
    if (d == nullptr) return;
    *stats = d->stats;
    stats->bytes = d->bytes + d->ws->bytes; /* the workspace grows on first use of some programs */
}

extern "C" void mg__gpu_dense_free(mg__gpu_dense **d) {
    if (d == nullptr || *d == nullptr) return;
    if (--(*d)->refs == 0) dense_release(*d);
    *d = nullptr;
}
