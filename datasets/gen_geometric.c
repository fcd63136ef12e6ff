/*
 * gen_geometric.c — the 2D random geometric graph: n = 2^scale points uniform in the unit square,
 * an edge between every two points at distance <= r, with r = sqrt(edge_factor / (pi n)) so the
 * expected degree (away from the border) is edge_factor (Penrose, "Random Geometric Graphs", 2003).
 *
 * Neighbour search on a grid of cells of side >= r: a point's neighbours lie in its own cell or
 * the 8 around it, so the work is O(n + m). Each cell looks only "forward" (itself, right and the
 * three cells below) so every pair is found once. Two passes over the cells — count, then fill at
 * offsets from a prefix sum — put each edge at a position that does not depend on the threads.
 */
#include "gen_internal.h"

#include <math.h>
#include <omp.h>

typedef struct {
    uint32_t cells;        /* cells per side (G) */
    const uint64_t *start; /* G*G + 1 offsets into the points sorted by cell */
    const double *x, *y;   /* coordinates, sorted by cell (then by id) */
    const uint32_t *id;    /* original point id, sorted likewise */
    double r2;             /* radius squared */
} cell_grid;

/* The forward neighbour cells: right, below-left, below, below-right. */
static const int forward_dx[4] = {1, -1, 0, 1};
static const int forward_dy[4] = {0, 1, 1, 1};

/* Counts (src == NULL) or writes, from position pos, the pairs that cell c owns. */
static uint64_t cell_pairs(const cell_grid *cg, uint64_t c, uint32_t *src, uint32_t *dst,
                           uint64_t pos) {
    const uint32_t G = cg->cells;
    const uint32_t cx = (uint32_t)(c % G), cy = (uint32_t)(c / G);
    const uint64_t lo = cg->start[c], hi = cg->start[c + 1];
    uint64_t found = 0;
    for (uint64_t p = lo; p < hi; p++) {
        const double px = cg->x[p], py = cg->y[p];
        /* the same cell: each pair once, the later point after the earlier */
        for (uint64_t q = p + 1; q < hi; q++) {
            double dx = cg->x[q] - px, dy = cg->y[q] - py;
            if (dx * dx + dy * dy <= cg->r2) {
                if (src != NULL) {
                    src[pos + found] = cg->id[p];
                    dst[pos + found] = cg->id[q];
                }
                found++;
            }
        }
        for (int k = 0; k < 4; k++) {
            int64_t nx = (int64_t)cx + forward_dx[k], ny = (int64_t)cy + forward_dy[k];
            if (nx < 0 || nx >= (int64_t)G || ny >= (int64_t)G) continue;
            uint64_t nc = (uint64_t)ny * G + (uint64_t)nx;
            for (uint64_t q = cg->start[nc]; q < cg->start[nc + 1]; q++) {
                double dx = cg->x[q] - px, dy = cg->y[q] - py;
                if (dx * dx + dy * dy <= cg->r2) {
                    if (src != NULL) {
                        src[pos + found] = cg->id[p];
                        dst[pos + found] = cg->id[q];
                    }
                    found++;
                }
            }
        }
    }
    return found;
}

mg_status mg__gen_geometric(mg_context ctx, const mg_gen_options *opts, mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    uint32_t *cell_of = NULL, *id = NULL;
    uint64_t *start = NULL, *edge_start = NULL;
    double *x = NULL, *y = NULL;
    const bool weighted = opts->weights != MG_WEIGHT_NONE;
    const uint64_t n = UINT64_C(1) << opts->scale;
    const double r = sqrt(opts->edge_factor / (3.14159265358979323846 * (double)n));

    /* points: 2 coordinates, id and cell each; refuse before allocating if that cannot fit */
    const uint64_t physical = mg__gen_physical_memory();
    const uint64_t point_bytes = n * (2 * sizeof(double) + 2 * sizeof(uint32_t));
    if (physical != 0 && point_bytes > physical)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_generate: 2^%d geometric points need %.1f GiB, more than this machine's "
                 "%.1f GiB of memory (lower opts->scale)",
                 opts->scale, (double)point_bytes / 1073741824.0, (double)physical / 1073741824.0);

    if (!(r > 0.0)) { /* edge_factor 0: isolated points */
        MG__TRY(mg__coo_init(ctx, coo, 0, weighted, opts->weights));
        coo->n = (uint32_t)n;
        coo->m = 0;
        goto cleanup;
    }

    /* Cells of side 1/G >= r; no more cells than points (a tiny r would otherwise ask for
     * billions of empty cells). */
    double per_side = floor(1.0 / r), most = floor(sqrt((double)n));
    if (per_side > most) per_side = most;
    if (per_side < 1.0) per_side = 1.0;
    const uint32_t G = (uint32_t)per_side;
    const uint64_t ncells = (uint64_t)G * G;

    cell_of = mg__malloc(mg__mul_size((size_t)n, sizeof *cell_of));
    id = mg__malloc(mg__mul_size((size_t)n, sizeof *id));
    x = mg__malloc(mg__mul_size((size_t)n, sizeof *x));
    y = mg__malloc(mg__mul_size((size_t)n, sizeof *y));
    start = mg__calloc((size_t)ncells + 1, sizeof *start);
    edge_start = mg__calloc((size_t)ncells + 1, sizeof *edge_start);
    if (!cell_of || !id || !x || !y || !start || !edge_start)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_generate: out of memory for 2^%d geometric points and %llu cells",
                 opts->scale, (unsigned long long)ncells);

    /* Point i's coordinates are the two 32-bit halves of word i of the point stream. */
    const uint64_t key = mg__gen_key(opts->seed, MG__GEN_STREAM_POINTS);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        uint64_t w = mg__gen_rand(key, (uint64_t)i);
        double px = (double)(w >> 32) * 0x1.0p-32, py = (double)(w & 0xffffffffu) * 0x1.0p-32;
        uint32_t cx = (uint32_t)(px * G), cy = (uint32_t)(py * G);
        if (cx >= G) cx = G - 1;
        if (cy >= G) cy = G - 1;
        cell_of[i] = cy * G + cx;
    }

    /* Counting sort by cell, stable (ids ascending within a cell). Sequential: O(n), cheap next
     * to the neighbour search, and its order is then independent of the thread count. */
    for (uint64_t i = 0; i < n; i++) start[cell_of[i]]++;
    mg__exclusive_scan_u64(start, (size_t)ncells + 1); /* start[c] = first slot of c; [G*G] = n */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t slot = start[cell_of[i]]++;
        uint64_t w = mg__gen_rand(key, i);
        x[slot] = (double)(w >> 32) * 0x1.0p-32;
        y[slot] = (double)(w & 0xffffffffu) * 0x1.0p-32;
        id[slot] = (uint32_t)i;
    }
    /* start[c] now holds the end of c, i.e. the start of c + 1: shift right by one */
    memmove(start + 1, start, (size_t)ncells * sizeof *start);
    start[0] = 0;

    cell_grid cg = {.cells = G, .start = start, .x = x, .y = y, .id = id, .r2 = r * r};
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t c = 0; c < (int64_t)ncells; c++)
        edge_start[c] = cell_pairs(&cg, (uint64_t)c, NULL, NULL, 0);
    const uint64_t m = mg__exclusive_scan_u64(edge_start, (size_t)ncells + 1);

    const uint64_t edge_bytes = m * (2 * sizeof(uint32_t) + (weighted ? 4 : 0));
    if (physical != 0 && edge_bytes > physical)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_generate: %llu geometric edges need %.1f GiB, more than this machine's "
                 "%.1f GiB of memory (lower opts->edge_factor)",
                 (unsigned long long)m, (double)edge_bytes / 1073741824.0,
                 (double)physical / 1073741824.0);
    MG__TRY(mg__coo_init(ctx, coo, m, weighted, opts->weights));
    coo->n = (uint32_t)n;
    coo->m = m;
    uint32_t *src = coo->src, *dst = coo->dst;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t c = 0; c < (int64_t)ncells; c++)
        cell_pairs(&cg, (uint64_t)c, src, dst, edge_start[c]);

cleanup:
    mg__free(cell_of);
    mg__free(id);
    mg__free(x);
    mg__free(y);
    mg__free(start);
    mg__free(edge_start);
    return status;
}
