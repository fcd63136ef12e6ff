/*
 * dense_blocks.h — the dense-frontier form of a device graph (MultiGraphD, thesis Sec. 3.4, Figures
 * 3.2-3.4), built on the GPU from the device CSR/CSC of preprocess/gpu_preprocess.h (internal).
 *
 * The edge matrix (rows: destinations, columns: sources, in the device numbering) is cut into
 * column panels of sources whose values fit in shared memory and row panels of destinations; each
 * 2D block is heavy or light by its edge count. Heavy blocks: the column-major "frontier matrix"
 * (a negated destination marker, then that destination's sources; the marker repeated at the top of
 * a column when a run wraps) with a parallel weight matrix. Light blocks of one column panel: one
 * stream whose entries fill consecutive slots of the row panel's stream buffer (a block's slots
 * follow from its first entry). The slots of one row panel are contiguous, so phase 2 reduces a row
 * panel's slots with one thread block; their destinations are coded in a byte each (the step from
 * the previous slot's, with a side table for the few that cannot be). Consecutive row panels may form bands (params.band_slots):
 * a band's light entries are written and reduced before the next band's, to keep its slots in L2
 * (one band by default: smaller ones measured slower, dense_blocks.cu's derive_params).
 *
 * One form per edge direction: MG_EDGES_OUT gathers along stored edges (destination rows from the
 * CSC), MG_EDGES_IN along reversed ones (from the CSR). Kernels: frontier/dense_engine.cu. C-callable;
 * builds without CUDA get MG_UNAVAILABLE.
 */
#ifndef MG_DENSE_BLOCKS_H
#define MG_DENSE_BLOCKS_H

#include "gpu_preprocess.h" /* relative: tools and tests include this header by path */

#ifdef __cplusplus
extern "C" {
#endif

/* Layout parameters; 0 in a field derives it from the device (shared memory per block and per SM,
 * SM count; one band). */
typedef struct {
    uint32_t panel_width;      /* sources per column panel                               */
    uint32_t panel_height;     /* destinations per row panel                             */
    uint32_t heavy_threshold;  /* a 2D block with at least this many edges is heavy      */
    uint32_t unit_edges;       /* edges per heavy unit (one thread block's share of a heavy
                                  block, cut at destination boundaries); >= panel_width  */
    uint32_t band_slots;       /* slots per band of row panels (a row panel with more is a
                                  band alone); UINT32_MAX: one band                      */
} mg__gpu_dense_params;

typedef struct {
    mg__gpu_dense_params params; /* the values used (derived ones filled in)               */
    uint32_t col_panels, row_panels;
    uint64_t heavy_blocks, heavy_edges, light_blocks, light_edges, slots;
    uint64_t escapes;            /* slots whose destination is stored whole, not as a step
                                    from the previous slot's (dense_blocks_layout.h)          */
    uint64_t heavy_units;        /* thread blocks of the heavy kernel                      */
    uint64_t light_items;        /* light thread blocks of the light/phase-2 kernel        */
    uint32_t bands;              /* bands of row panels                                    */
    size_t bytes;                /* device memory of the dense structures                  */
    size_t csr_bytes;            /* the plain CSR of the same graph (mg__gpu_graph.csr_bytes) */
    double seconds;              /* build time on the device (CUDA events)                 */
} mg__gpu_dense_stats;

typedef struct mg__gpu_dense mg__gpu_dense;

/* Builds the dense form of g for one edge direction. params NULL or zero fields: derived. On
 * failure *out is NULL and nothing stays allocated (MG_OUT_OF_MEMORY when device memory runs out,
 * MG_DEVICE_ERROR naming the CUDA call, MG_INVALID_ARGUMENT for impossible parameters). */
mg_status mg__gpu_dense_build(mg_context ctx, const mg__gpu_graph *g, mg_edges edges,
                              const mg__gpu_dense_params *params, mg__gpu_dense **out);

/* The dense form of g for that direction, built and cached in g->dense on first use. */
mg_status mg__gpu_dense_get(mg_context ctx, mg__gpu_graph *g, mg_edges edges, const mg__gpu_dense **out);

void mg__gpu_dense_get_stats(const mg__gpu_dense *d, mg__gpu_dense_stats *stats);

/* NULL or *d NULL fine; sets *d NULL. */
void mg__gpu_dense_free(mg__gpu_dense **d);

#ifdef __cplusplus
}
#endif
#endif /* MG_DENSE_BLOCKS_H */
