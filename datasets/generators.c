/*
 * generators.c — mg_generate: deterministic synthetic graphs (R-MAT, Graph500 Kronecker, uniform
 * random, 2D grid; the random geometric graph is in gen_geometric.c) and their random weights.
 *
 * R-MAT: Chakrabarti, Zhan, Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM 2004.
 * Kronecker: the Graph500 specification's generator (R-MAT with a=0.57, b=c=0.19, then a random
 * relabelling of the vertices), as GAPBS's `-g SCALE` builds it: 2^scale vertices,
 * edge_factor * 2^scale edges, symmetrised, self-loops and duplicates removed.
 *
 * Every edge's endpoints (and weight) are a pure function of (seed, edge index), see
 * gen_internal.h, so the graph is the same for any number of OpenMP threads.
 */
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) under -std=c11 */
#include "gen_internal.h"
#include "core/dist.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <unistd.h>

/* The largest edge list we agree to try; beyond it the count is surely a mistake. */
#define MAX_EDGES (UINT64_C(1) << 40)

void mg_gen_options_init(mg_gen_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->kind = MG_GEN_RMAT;
    opts->scale = 16;
    opts->edge_factor = 16;
    opts->a = 0.57;
    opts->b = 0.19;
    opts->c = 0.19;
    opts->width = 0;
    opts->height = 0;
    opts->seed = 1;
    opts->weights = MG_WEIGHT_NONE;
    opts->weight_min = 1;
    opts->weight_max = 255;
    mg_graph_options_init(&opts->graph);
    opts->graph.directed = false;
}

uint64_t mg__gen_physical_memory(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return (uint64_t)pages * (uint64_t)page;
#endif
    return 0;
}

/* ---- weights ----------------------------------------------------------------------------------- */

void mg__gen_fill_weights(const mg_gen_options *opts, uint64_t first, uint64_t m, void *weights) {
    const uint64_t key = mg__gen_key(opts->seed, MG__GEN_STREAM_WEIGHTS);
    if (opts->weights == MG_WEIGHT_INT32) {
        /* Integers in [ceil(min), floor(max)], validated non-empty and within int32. */
        const int64_t lo = (int64_t)ceil(opts->weight_min);
        const uint64_t span = (uint64_t)((int64_t)floor(opts->weight_max) - lo) + 1; /* <= 2^31 */
        int32_t *w = weights;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)m; i++) {
            uint64_t r = mg__gen_rand(key, first + (uint64_t)i) >> 32; /* 32 random bits */
            w[i] = (int32_t)(lo + (int64_t)((r * span) >> 32));   /* multiply-shift to [0, span) */
        }
    } else {
        /* Floats in [min, max): computed in double, then kept below max after rounding to float. */
        const double lo = opts->weight_min, width = opts->weight_max - opts->weight_min;
        const float fmin = (float)opts->weight_min, fmax = (float)opts->weight_max;
        const float below_max = fmax > fmin ? nextafterf(fmax, -INFINITY) : fmax;
        float *w = weights;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)m; i++) {
            float x = (float)(lo + width * mg__gen_unit(mg__gen_rand(key, first + (uint64_t)i)));
            if (x < fmin) x = fmin;
            if (x > below_max) x = below_max;
            w[i] = x;
        }
    }
}

/* ---- R-MAT, Kronecker, uniform ------------------------------------------------------------------ */

/* A keyed pseudo-random permutation of [0, n): a 4-round balanced Feistel network on the bits of
 * n - 1 rounded up to even, with cycle walking back into [0, n). Unlike a Fisher-Yates shuffle it
 * needs no sequential pass, so each thread fills its part of the table on its own. */
typedef struct {
    uint64_t round_key[4];
    unsigned half;      /* bits per Feistel half */
    uint64_t half_mask;
    uint64_t n;
} feistel;

static void feistel_init(feistel *f, uint64_t seed, uint64_t n) {
    const uint64_t key = mg__gen_key(seed, MG__GEN_STREAM_PERMUTATION);
    for (int k = 0; k < 4; k++) f->round_key[k] = mg__gen_rand(key, (uint64_t)k);
    unsigned bits = 1;
    while (bits < 64 && (n - 1) >> bits) bits++;
    f->half = (bits + 1) / 2;
    f->half_mask = (UINT64_C(1) << f->half) - 1;
    f->n = n;
}

static inline uint64_t feistel_apply(const feistel *f, uint64_t x) {
    do {
        uint64_t left = x >> f->half, right = x & f->half_mask;
        for (int k = 0; k < 4; k++) {
            uint64_t next = left ^ (mg__gen_mix64(right ^ f->round_key[k]) & f->half_mask);
            left = right;
            right = next;
        }
        x = (left << f->half) | right;
    } while (x >= f->n); /* cycle walking: a permutation of the larger domain restricted to [0,n) */
    return x;
}

/* Edges [first, first + coo->m) of the graph's list (the whole list: first 0, coo->m all). */
static mg_status gen_rmat(mg_context ctx, const mg_gen_options *opts, uint64_t first, mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    uint32_t *perm = NULL;
    const bool kron = opts->kind == MG_GEN_KRONECKER;
    mg__rmat_params p;
    if (kron)
        mg__rmat_params_init(&p, opts->scale, 0.57, 0.19, 0.19); /* Graph500's initiator */
    else
        mg__rmat_params_init(&p, opts->scale, opts->a, opts->b, opts->c);
    /* One edge stream for both kinds: a Kronecker graph is exactly the R-MAT graph of the same
     * seed (with Graph500's a, b, c), relabelled. */
    const uint64_t key = mg__gen_key(opts->seed, MG__GEN_STREAM_EDGES);
    const uint64_t m = coo->m;
    uint32_t *src = coo->src, *dst = coo->dst;

    if (kron) {
        /* A table of the permutation: n Feistel evaluations plus two lookups per edge, instead
         * of two Feistel evaluations per edge (n = m / edge_factor is the small side). */
        const uint64_t n = coo->n;
        perm = mg__malloc(mg__mul_size((size_t)n, sizeof *perm));
        if (perm == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                     "mg_generate: out of memory for the Kronecker vertex permutation (%llu ids)",
                     (unsigned long long)n);
        feistel f;
        feistel_init(&f, opts->seed, UINT64_C(1) << opts->scale);
#pragma omp parallel for schedule(static)
        for (int64_t x = 0; x < (int64_t)n; x++) perm[x] = (uint32_t)feistel_apply(&f, (uint64_t)x);
    }

#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)m; i++) {
        uint32_t u, v;
        mg__rmat_edge(&p, key, first + (uint64_t)i, &u, &v);
        if (perm != NULL) {
            u = perm[u];
            v = perm[v];
        }
        src[i] = u;
        dst[i] = v;
    }
cleanup:
    mg__free(perm);
    return status;
}

static void gen_uniform(const mg_gen_options *opts, uint64_t first, mg__coo *coo) {
    const uint64_t key = mg__gen_key(opts->seed, MG__GEN_STREAM_EDGES);
    const uint64_t n = coo->n, m = coo->m;
    uint32_t *src = coo->src, *dst = coo->dst;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)m; i++) {
        uint64_t r = mg__gen_rand(key, first + (uint64_t)i);
        /* multiply-shift of each 32-bit half into [0, n) (exact for n a power of two) */
        src[i] = (uint32_t)(((r >> 32) * n) >> 32);
        dst[i] = (uint32_t)(((r & 0xffffffffu) * n) >> 32);
    }
}

/* ---- grid -------------------------------------------------------------------------------------- */

/* Vertex (x, y) is y * width + x. Edges: the horizontal ones row by row, then the vertical ones,
 * so edge e's position (and with it its weight) is fixed by (width, height). */
static void gen_grid(uint32_t width, uint32_t height, mg__coo *coo) {
    const uint64_t w = width, h = height, horizontal = (w - 1) * h;
    uint32_t *src = coo->src, *dst = coo->dst;
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < (int64_t)h; y++) {
        uint64_t e = (uint64_t)y * (w - 1), base = (uint64_t)y * w;
        for (uint64_t x = 0; x + 1 < w; x++, e++) {
            src[e] = (uint32_t)(base + x);
            dst[e] = (uint32_t)(base + x + 1);
        }
        if ((uint64_t)y + 1 < h) {
            e = horizontal + (uint64_t)y * w;
            for (uint64_t x = 0; x < w; x++, e++) {
                src[e] = (uint32_t)(base + x);
                dst[e] = (uint32_t)(base + w + x);
            }
        }
    }
}

/* ---- validation -------------------------------------------------------------------------------- */

static bool unit_interval(double p) { return p >= 0.0 && p <= 1.0; } /* false for NaN */

static mg_status check_scale(mg_context ctx, const mg_gen_options *opts) {
    if (opts->scale < 1 || opts->scale > 31)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_generate: opts->scale = %d is out of range (1..31: n = 2^scale "
                         "vertices, at most 2^31)",
                         opts->scale);
    return MG_SUCCESS;
}

static mg_status check_options(mg_context ctx, const mg_gen_options *opts) {
    if (opts->kind < MG_GEN_RMAT || opts->kind > MG_GEN_GRID)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts->kind = %d is not an "
                         "mg_generator", (int)opts->kind);
    if (opts->kind != MG_GEN_GRID || (opts->width == 0 && opts->height == 0)) {
        mg_status st = check_scale(ctx, opts);
        if (st != MG_SUCCESS) return st;
    }
    if (opts->kind != MG_GEN_GRID && !(opts->edge_factor >= 0.0 && isfinite(opts->edge_factor)))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_generate: opts->edge_factor = %g must be finite and >= 0",
                         opts->edge_factor);
    if (opts->kind == MG_GEN_RMAT) {
        if (!unit_interval(opts->a))
            return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts->a = %g is not a "
                             "probability in [0, 1]", opts->a);
        if (!unit_interval(opts->b))
            return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts->b = %g is not a "
                             "probability in [0, 1]", opts->b);
        if (!unit_interval(opts->c))
            return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts->c = %g is not a "
                             "probability in [0, 1]", opts->c);
        /* a tolerance for decimal inputs such as 0.6 + 0.3 + 0.1 */
        if (opts->a + opts->b + opts->c > 1.0 + 1e-9)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_generate: opts->a + opts->b + opts->c = %g exceeds 1 "
                             "(d = 1 - a - b - c must be >= 0)",
                             opts->a + opts->b + opts->c);
    }
    if (opts->kind == MG_GEN_GRID && (opts->width == 0) != (opts->height == 0))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_generate: opts->width = %u and opts->height = %u: give both, or "
                         "neither for a square of 2^scale vertices",
                         opts->width, opts->height);
    if (opts->kind == MG_GEN_GRID && (uint64_t)opts->width * opts->height > (UINT64_C(1) << 31))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_generate: opts->width * opts->height = %u * %u exceeds 2^31 vertices",
                         opts->width, opts->height);
    if (opts->weights != MG_WEIGHT_NONE && opts->weights != MG_WEIGHT_INT32 &&
        opts->weights != MG_WEIGHT_FLOAT)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts->weights = %d is not an "
                         "mg_weight_type", (int)opts->weights);
    if (opts->weights != MG_WEIGHT_NONE) {
        if (!(opts->weight_min >= 0.0) || !isfinite(opts->weight_min))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_generate: opts->weight_min = %g must be finite and >= 0",
                             opts->weight_min);
        if (!(opts->weight_max >= opts->weight_min) || !isfinite(opts->weight_max))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_generate: opts->weight_max = %g must be finite and >= "
                             "opts->weight_min = %g",
                             opts->weight_max, opts->weight_min);
        if (opts->weights == MG_WEIGHT_INT32) {
            if (opts->weight_max > (double)INT32_MAX)
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "mg_generate: opts->weight_max = %g exceeds INT32_MAX for "
                                 "MG_WEIGHT_INT32", opts->weight_max);
            if (ceil(opts->weight_min) > floor(opts->weight_max))
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "mg_generate: no integer lies in [opts->weight_min, "
                                 "opts->weight_max] = [%g, %g]",
                                 opts->weight_min, opts->weight_max);
        } else if (opts->weight_max > FLT_MAX) {
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_generate: opts->weight_max = %g exceeds FLT_MAX for "
                             "MG_WEIGHT_FLOAT", opts->weight_max);
        }
    }
    return MG_SUCCESS;
}

/* Refuses an edge list that cannot fit in this machine's memory before allocating it, so a typo
 * in edge_factor gives a message rather than an allocation that the OS kills later. */
static mg_status check_edge_memory(mg_context ctx, const mg_gen_options *opts, uint64_t m) {
    if (m > MAX_EDGES)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_generate: %llu edges (opts->edge_factor = %g times 2^%d) exceed the "
                         "limit of 2^40",
                         (unsigned long long)m, opts->edge_factor, opts->scale);
    const uint64_t per_edge = 2 * sizeof(uint32_t) + (opts->weights != MG_WEIGHT_NONE ? 4 : 0);
    const uint64_t bytes = m * per_edge, physical = mg__gen_physical_memory();
    if (physical != 0 && bytes > physical)
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_generate: the edge list of %llu edges needs %.1f GiB, more than this "
                         "machine's %.1f GiB of memory: ask for a smaller graph",
                         (unsigned long long)m, (double)bytes / 1073741824.0,
                         (double)physical / 1073741824.0);
    return MG_SUCCESS;
}

/* ---- the public call --------------------------------------------------------------------------- */

/* floor(m * r / size), exactly: m < 2^41 and r <= size < 2^31 */
static uint64_t part_start(uint64_t m, int r, int size) {
    const uint64_t s = (uint64_t)size, q = m / s, rest = m % s;
    return q * (uint64_t)r + rest * (uint64_t)r / s;
}

static const char *kind_name(mg_generator kind) {
    switch (kind) {
    case MG_GEN_RMAT: return "R-MAT";
    case MG_GEN_KRONECKER: return "Kronecker";
    case MG_GEN_UNIFORM: return "uniform";
    case MG_GEN_GEOMETRIC: return "geometric";
    case MG_GEN_GRID: return "grid";
    }
    return "?";
}

mg_status mg_generate(mg_context ctx, mg_graph *g, const mg_gen_options *opts) {
    mg_status status = mg__check_context(ctx);
    mg__coo coo;
    memset(&coo, 0, sizeof coo);
    if (status != MG_SUCCESS) return status;
    if (g == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: g is NULL");
    mg__dist_begin(ctx);
    *g = NULL;
    if (opts == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_generate: opts is NULL");
    uint64_t first = 0, total = 0; /* this rank's part of the list starts at edge first, of total */
    bool parts = false;
    MG__TRY(check_options(ctx, opts));

    const bool weighted = opts->weights != MG_WEIGHT_NONE;
    if (opts->kind == MG_GEN_GEOMETRIC) {
        /* The edge count is only known after the neighbour search; it sizes the coo itself. */
        MG__TRY(mg__gen_geometric(ctx, opts, &coo));
    } else {
        uint32_t n, width = 0, height = 0;
        uint64_t m, count;
        if (opts->kind == MG_GEN_GRID) {
            width = opts->width;
            height = opts->height;
            if (width == 0) { /* both 0: a square (or 2:1 rectangle) of exactly 2^scale */
                width = UINT32_C(1) << ((opts->scale + 1) / 2);
                height = UINT32_C(1) << (opts->scale / 2);
            }
            n = (uint32_t)((uint64_t)width * height);
            m = (uint64_t)(width - 1) * height + (uint64_t)width * (height - 1);
        } else {
            n = UINT32_C(1) << opts->scale;
            double edges = floor(opts->edge_factor * (double)n + 0.5);
            /* compare in double before converting: a huge double would not fit uint64 */
            m = edges > (double)MAX_EDGES ? MAX_EDGES + 1 : (uint64_t)edges;
        }
        count = total = m;
        /* Over several ranks each makes its part of the list, edges [first, first + count)
         * (every edge is a function of its index), and the ranks hand each other the arcs
         * (mg__dist_build_parts): no rank holds the whole list. A grid is made whole. */
        parts = mg__dist_splits(ctx) && opts->kind != MG_GEN_GRID;
        if (parts) {
            const int rank = ctx->dist->ranks.rank, size = ctx->dist->ranks.size;
            first = part_start(m, rank, size);
            count = part_start(m, rank + 1, size) - first;
        }
        MG__TRY(check_edge_memory(ctx, opts, count));
        MG__TRY(mg__coo_init(ctx, &coo, count, weighted, opts->weights));
        coo.n = n;
        coo.m = count;
        switch (opts->kind) {
        case MG_GEN_RMAT:
        case MG_GEN_KRONECKER: MG__TRY(gen_rmat(ctx, opts, first, &coo)); break;
        case MG_GEN_UNIFORM: gen_uniform(opts, first, &coo); break;
        default: gen_grid(width, height, &coo); break;
        }
    }
    coo.index_base = 0;
    coo.symmetric = !opts->graph.directed;
    if (weighted) mg__gen_fill_weights(opts, first, coo.m, coo.weights);

    /* over several ranks the build starts with their agreement on each one's status so far */
    status = parts ? mg__dist_build_parts(ctx, g, &coo, &opts->graph)
                   : mg__graph_from_coo(ctx, g, &coo, &opts->graph);
    if (status != MG_SUCCESS) {
        /* keep the builder's message, say which generator asked */
        char inner[MG__ERROR_SIZE];
        snprintf(inner, sizeof inner, "%s", mg_context_error(ctx));
        MG__FAIL(ctx, status, "mg_generate (%s, %llu edges): %s", kind_name(opts->kind),
                 (unsigned long long)(parts ? total : coo.m), inner);
    }
    (*g)->index_base = 0;

cleanup:
    mg__coo_free(&coo);
    return mg__dist_settle(ctx, status, "mg_generate");
}

mg_status mg_random_permutation(mg_context ctx, uint32_t n, uint64_t seed, uint32_t *perm) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (perm == NULL && n > 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_random_permutation: perm is NULL");
    if (n == 0) return MG_SUCCESS;
    feistel f;
    feistel_init(&f, seed, n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) perm[i] = (uint32_t)feistel_apply(&f, (uint64_t)i);
    return MG_SUCCESS;
}
