/*
 * dense_blocks_layout.h — the layout of a dense-frontier form (struct mg__gpu_dense), private to its
 * builder (preprocess/dense_blocks.cu), its kernels (frontier/dense_engine.cu) and its test (which checks
 * the slot codes). Read dense_blocks.h first.
 *
 * Terms. Along the form's direction every edge goes from a source s to a destination d (both in the
 * device numbering). The edge matrix has a row per destination and a column per source.
 *  - Column panel c: sources [c * W, (c + 1) * W), W = params.panel_width (a multiple of 64, so a
 *    panel's active bits are whole words of the frontier bitmap; at most 32768, so a source inside
 *    its panel fits 15 bits).
 *  - Row panel r: destinations [row_start[r], row_start[r + 1]), at most H = params.panel_height
 *    (<= 32768) of them. A panel also ends where its estimated number of slots (per destination, the
 *    number of column panels its sources fall in) reaches four times the average of H-high panels,
 *    so the hub rows at the front (the device numbering sorts destinations by in-degree group) are
 *    cut into short panels and phase 2 stays balanced.
 *  - Block (r, c): the edges of row panel r from column panel c. Heavy when it has at least
 *    params.heavy_threshold edges, light otherwise.
 *  - Slots: each row panel owns a contiguous range of slots [row_slot[r], row_slot[r + 1]) of the
 *    stream buffer. Within a row panel, blocks follow in column order; a heavy block has one slot per
 *    destination it holds (its contributions are combined first), a light block one per edge.
 *  - Slot destinations (relative to the row panel's first row) are coded in one byte per slot,
 *    slot_code[i]: the destination minus that of slot i - 1 (0 to 254: a block's slots, a light
 *    block's by destination then source and a heavy block's by rank, never go down), or
 *    MG__DENSE_ESCAPE when the destination is stored whole in escape_dst (uint16, the escaped slots in
 *    slot order): for the first slot of each row panel and of each window (MG__DENSE_SLOT_WINDOW
 *    aligned slots, one warp's share in phase 2), and where the destination goes down (a block's
 *    first slot, mostly) or up by 255 or more. window_escape[w] counts the escapes before window w,
 *    so a warp decodes its window alone: a warp sum of each thread's escapes and of its codes after
 *    the last one, and the window's escaped destinations by shuffles (frontier/dense_engine.cu's
 *    phase2_panel). About 1.03 bytes per slot instead of 2 (uniform random scale 22: 0.63% of the
 *    slots escaped, a block of ~400 slots over 4096 rows starting with one, and a window with one).
 *
 * Heavy blocks are cut into units of about params.unit_edges edges at destination boundaries (a
 * thread block each in phase 1). A unit is a "frontier matrix" (Figure 3.3) of `rows` x kHeavyThreads
 * 16-bit entries, stored row by row so that the threads (one per column) read consecutive entries:
 * an entry with bit 15 set is a destination marker carrying the destination's rank among the unit's
 * destinations (the unit's slots are slot + rank); otherwise it is a source relative to its column
 * panel. The unit's destinations and their sources form a stream of `length` elements (a marker,
 * then its sources, for each destination in order) that fills the columns in order, rows - 1
 * elements each, below row 0; row 0 of every column repeats the marker of the destination that its
 * first element belongs to (so a run cut by a column boundary continues in the next column, and a
 * column that starts with a marker begins with an empty run). Column c holds stream elements
 * [c * (rows - 1), min(length, (c + 1) * (rows - 1))); entries past them are never read. Weights, when
 * the graph has them, sit in a parallel matrix at the same positions.
 *
 * The light blocks of column panel c form one stream, entries [light_off[c], light_off[c + 1]),
 * ordered by row panel, destination and source; each entry carries its source (relative to the
 * panel, bits 0-14; bit 15 set on the first entry of each light block) and its weight. A light
 * block's slots are consecutive and in stream order, so an entry's slot is not stored: it is the
 * entry's index plus its block's light_delta (light blocks numbered in stream order; modulo 2^32).
 *
 * Bands: consecutive row panels [band_row[b], band_row[b + 1]) whose slots number at most
 * params.band_slots (a row panel with more is a band alone); derived: one band of all row panels
 * (smaller bands measured slower: dense_blocks.cu's derive_params). A band's light entries of column
 * panel c are a contiguous piece of that panel's stream; each piece is cut into items of at most
 * MG__DENSE_LIGHT_ITEM_EDGES(W) entries (a thread block each: a long piece would otherwise keep one
 * SM busy after the others finish). Items are numbered band by band, [band_item[b],
 * band_item[b + 1]); an item records the light block of its first entry. One kernel does phase 1
 * for the light items and phase 2 (after the heavy units' own launch): its thread blocks take
 * tickets in order, band b's items and then its row panels, and a row panel's thread block waits
 * until every item of its band is done (one launch, no gap between the phases; with several bands
 * a band's slot values can be read back while still in L2). Phase 2 then drops the slots' values
 * from L2 without a write-back (discard.global.L2 on the 128-byte lines wholly inside the row
 * panel's slots; every advance rewrites the slots it reads, and for a partial frontier the flags,
 * which are kept, say which).
 */
#ifndef MG_DENSE_BLOCKS_LAYOUT_H
#define MG_DENSE_BLOCKS_LAYOUT_H

#include "dense_blocks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads of a heavy unit's thread block = columns of its frontier matrix. */
#define MG__DENSE_HEAVY_THREADS 1024
/* Threads of the light/phase-2 kernel (a light item or a row panel per thread block). */
#define MG__DENSE_THREADS 1024
/* Phase 2 reads slots in aligned chunks of this many per thread, a warp's 32 chunks (a window of
 * slots, whose destinations decode on their own) at once; the slot arrays are padded to whole chunks
 * plus one. */
#define MG__DENSE_SLOT_CHUNK 8u
#define MG__DENSE_SLOT_WINDOW (32u * MG__DENSE_SLOT_CHUNK)
#define MG__DENSE_SLOT_ALLOC(slots) (((uint64_t)(slots) / MG__DENSE_SLOT_CHUNK + 1) * MG__DENSE_SLOT_CHUNK)
#define MG__DENSE_SLOT_WINDOWS(slots) (((uint64_t)(slots) + MG__DENSE_SLOT_WINDOW - 1) / MG__DENSE_SLOT_WINDOW)
/* The slot code whose destination is the next entry of escape_dst; other codes are the step up from
 * the previous slot's destination. escape_dst has this many more entries (zero) than escapes: a warp
 * of phase 2 reads its window's first 32 at once. */
#define MG__DENSE_ESCAPE 255u
#define MG__DENSE_ESCAPE_PAD 32u
/* The marker bit of a frontier-matrix entry (and of a light block's first light entry), and the
 * largest panel side the 15 other bits allow. */
#define MG__DENSE_MARKER 0x8000u
#define MG__DENSE_MAX_SIDE 32768u
/* Entries of one light item: 4 per staged source value; longer items leave a tail of a few busy
 * SMs (one wave holds every item of an R-MAT 22 graph). */
#define MG__DENSE_LIGHT_ITEM_EDGES(w) ((uint64_t)(w) * 4)

typedef struct {
    uint64_t offset;      /* first entry of the matrix in heavy_entries (and heavy_weights)      */
    uint32_t rows;        /* >= 2                                                                 */
    uint32_t length;      /* stream elements (edges + destinations)                               */
    uint32_t col_panel;
    uint32_t row_panel;
    uint32_t slot;        /* the slot of rank 0; ranks 0..ranks-1 are consecutive slots           */
    uint32_t ranks;       /* destinations in the unit                                             */
} mg__dense_unit;

typedef struct {
    uint64_t begin, end;  /* light entries                                                        */
    uint32_t col_panel;
    uint32_t block;       /* the light block that entry `begin` belongs to                        */
} mg__dense_light_item;

/* Scratch an advance reuses between calls (one advance at a time per form: they run on the default
 * stream in order). Buffers that only some programs need are made on first use and kept. */
typedef struct {
    void *values;             /* MG__DENSE_SLOT_ALLOC(slots) values of value_size bytes          */
    size_t value_size;        /* 4 after the build; 8 once an 8-byte value type has run           */
    uint8_t *found;           /* MG__DENSE_SLOT_ALLOC(slots) flags (a frontier that is not every
                                 vertex); NULL until then                                      */
    void *sources;            /* n per-source values of source_size bytes (contributions other
                                 than x, x + weight, x * weight); NULL until then              */
    size_t source_size;
    uint64_t *active;         /* bitmap words of the active sources                               */
    uint64_t *out_bitmap;     /* the output bitmap when the caller wants none                     */
    unsigned long long *counters; /* [0] output count, [1] frontier edges, then 32-bit words: the
                                 light/phase-2 kernel's ticket counter and, per band, its finished
                                 items (counter_bytes in all, cleared together each advance)     */
    size_t counter_bytes;
    size_t bytes;             /* all of the above                                                 */
} mg__dense_workspace;

struct mg__gpu_dense {
    int refs;                 /* an undirected graph's two directions share one form               */
    int device;
    mg_edges edges;
    uint32_t n;
    uint64_t m;
    mg_weight_type weight_type;
    mg__gpu_dense_params params;
    uint32_t col_panels, row_panels;
    uint32_t *d_row_start;    /* row_panels + 1 destinations                                      */
    uint32_t *d_row_slot;     /* row_panels + 1 slots                                             */
    uint32_t units;
    mg__dense_unit *d_units;
    uint16_t *d_heavy_entries;
    void *d_heavy_weights;    /* 4-byte weights (the graph's type) or NULL                         */
    uint64_t heavy_entries;
    uint32_t light_items;
    mg__dense_light_item *d_light_items; /* band by band                                           */
    uint16_t *d_light_src;
    uint32_t *d_light_delta;  /* per light block: its first slot minus its first entry (mod 2^32)    */
    void *d_light_weights;
    uint32_t bands;
    uint32_t *d_band_row;     /* bands + 1 row panels                                             */
    uint32_t *d_band_item;    /* bands + 1 light items                                            */
    uint64_t slots;           /* at most UINT32_MAX - MG__DENSE_SLOT_WINDOW (32-bit slot arithmetic) */
    uint8_t *d_slot_code;     /* MG__DENSE_SLOT_ALLOC(slots) codes, the padding zero (no escape)    */
    uint64_t escapes;
    uint16_t *d_escape_dst;   /* escapes + MG__DENSE_ESCAPE_PAD: the escaped slots' destinations, in
                                 slot order, then zeros                                           */
    uint32_t *d_window_escape; /* MG__DENSE_SLOT_WINDOWS(slots) + 1: escapes before each window     */
    uint64_t *d_has_edges;    /* destinations with at least one edge along this direction          */
    uint32_t max_rows_per_panel; /* the tallest row panel (phase 2's shared memory)                */
    uint32_t max_ranks;       /* the most destinations of one unit (the heavy kernel's accumulators) */
    size_t smem_optin;        /* the device's shared memory per block (opt-in), checked per launch  */
    mg__dense_workspace *ws;
    size_t bytes;             /* the structure's own device memory (the workspace counts apart)    */
    mg__gpu_dense_stats stats;
};

#ifdef __cplusplus
}
#endif
#endif /* MG_DENSE_BLOCKS_LAYOUT_H */
