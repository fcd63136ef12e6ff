/*
 * gpu_test.h — what the GPU engine tests share: the start of main (the context, the device, exit 77
 * where there is none, MG_GPU_TEST_SMALL), a fixed-seed random stream, a graph in both forms with a
 * case's device buffers, host values of any mg_type as doubles, and one engine case's pieces: the
 * programs to try, random inputs, the output frontier read back and every destination checked
 * against tests/program_reference.h. Define GPU_TEST_SEED first for another stream than the default.
 */
#ifndef MG_GPU_TEST_H
#define MG_GPU_TEST_H

#include "mg_internal.h"
#include "../../preprocess/gpu_preprocess.h"
#include "../../frontier/gpu_engine.h"
#include "check.h"
#include "program_reference.h"

#ifndef GPU_TEST_SEED
#define GPU_TEST_SEED 88172645463325252ull
#endif

static mg_context ctx;
static bool small_mode; /* MG_GPU_TEST_SMALL=1: a sample of the cases, small graphs (compute-sanitizer) */

/* The start of a test's main: returns -1 to go on, else main's exit code (77: no GPU, which ctest
 * reports as skipped). info: the device's description. */
static inline int gpu_test_start(mg__gpu_info *info) {
    small_mode = getenv("MG_GPU_TEST_SMALL") != NULL && atoi(getenv("MG_GPU_TEST_SMALL")) != 0;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    mg_status st = mg__gpu_query(ctx, 0, info);
    if (st == MG_UNAVAILABLE) {
        printf("skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 77;
    }
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return check_report();
    return -1;
}

static inline uint32_t next_rand(void) {
    static uint64_t rng = GPU_TEST_SEED;
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* A graph in both forms: the host graph (caller numbering, for brute force) and the device form
 * with its permutation copied back; device buffers for one case, reused. */
typedef struct {
    mg_graph host;
    mg__gpu_graph dev;
    uint32_t *new_of_old;
    void *d_x, *d_y, *d_mask, *d_in, *d_out_list, *d_out_bm;
} pair;

static inline bool pair_build(pair *P, const mg__coo *coo, const mg_graph_options *opts) {
    memset(P, 0, sizeof *P);
    mg_status st = mg_graph_create_from_coo(ctx, &P->host, coo->n, coo->m, coo->src, coo->dst,
                                            coo->weights, coo->weight_type, opts);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    st = mg__gpu_graph_build(ctx, coo, opts, &P->dev);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    CHECK(P->dev.n == P->host->n && P->dev.m == P->host->m);
    const uint32_t n = coo->n;
    const size_t words = mg__bitmap_words(n);
    P->new_of_old = malloc((size_t)n * 4 + 4);
    st = P->new_of_old ? MG_SUCCESS : MG_OUT_OF_MEMORY;
    if (st == MG_SUCCESS) st = mg__gpu_copy_to_host(ctx, P->new_of_old, P->dev.d_new_of_old, (size_t)n * 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_x, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_y, (size_t)n * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_mask, words * 8 + 8);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_in, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_list, (size_t)n * 4 + 4);
    if (st == MG_SUCCESS) st = mg__gpu_alloc(ctx, &P->d_out_bm, words * 8 + 8);
    CHECK_OK(ctx, st);
    return st == MG_SUCCESS;
}

/* The host graph g (stored edges, both ways when undirected) as a directed device graph. */
static inline bool pair_from_graph(pair *P, mg_graph g) {
    memset(P, 0, sizeof *P);
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(g, &off, &idx, NULL);
    mg__coo coo;
    mg_status st = mg__coo_init(ctx, &coo, g->m, false, MG_WEIGHT_NONE);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    coo.n = g->n;
    coo.m = g->m;
    for (uint32_t v = 0; v < g->n; v++)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            coo.src[e] = v;
            coo.dst[e] = idx[e];
        }
    mg_graph_options go;
    mg_graph_options_init(&go);
    const bool ok = pair_build(P, &coo, &go);
    mg__coo_free(&coo);
    return ok;
}

static inline void pair_free(pair *P) {
    mg_graph_free(&P->host);
    mg__gpu_graph_free(&P->dev); /* frees the cached dense forms too */
    free(P->new_of_old);
    mg__gpu_free(P->d_x);
    mg__gpu_free(P->d_y);
    mg__gpu_free(P->d_mask);
    mg__gpu_free(P->d_in);
    mg__gpu_free(P->d_out_list);
    mg__gpu_free(P->d_out_bm);
}

/* Host value arrays of the type's C type <-> doubles. */
static inline void to_typed(mg_type t, void *dst, size_t i, double v) {
    switch (t) {
    case MG_INT64: ((int64_t *)dst)[i] = (int64_t)v; break;
    case MG_FLOAT: ((float *)dst)[i] = (float)v; break;
    case MG_DOUBLE: ((double *)dst)[i] = v; break;
    default: ((int32_t *)dst)[i] = (int32_t)v; break;
    }
}
static inline double from_typed(mg_type t, const void *src, size_t i) {
    switch (t) {
    case MG_INT64: return (double)((const int64_t *)src)[i];
    case MG_FLOAT: return ((const float *)src)[i];
    case MG_DOUBLE: return ((const double *)src)[i];
    default: return ((const int32_t *)src)[i];
    }
}

/* A skewed weighted edge list of n vertices and m edges: a quarter of the edges leave vertices 0-7
 * and a fifth enter 8-11, so some sources hold hundreds of edges and some destinations too (push
 * and pull differ in cost; the dense engine gets dense blocks beside sparse ones). */
static inline bool skewed_coo(mg__coo *coo, uint32_t n, uint64_t m) {
    const mg_status st = mg__coo_init(ctx, coo, m, true, MG_WEIGHT_INT32);
    CHECK_OK(ctx, st);
    if (st != MG_SUCCESS) return false;
    coo->n = n;
    coo->m = m;
    for (uint64_t e = 0; e < m; e++) {
        coo->src[e] = next_rand() % 4 == 0 ? next_rand() % 8 : next_rand() % n;
        coo->dst[e] = next_rand() % 5 == 0 ? 8 + next_rand() % 4 : next_rand() % n;
        ((int32_t *)coo->weights)[e] = 1 + (int32_t)(next_rand() % 50);
    }
    return true;
}

/* Program number i of the set every engine test runs (type, contribution, combine, apply, edges,
 * complement, the skips of tests/unit/test_engine.c): false for a combination that is skipped.
 * i runs over [0, PROGRAMS). */
enum { PROGRAMS = 4 * 6 * 4 * 6 * 4 };
static inline bool test_program(int i, mg_type *type, mg_program *p) {
    static const mg_type types[] = {MG_INT32, MG_INT64, MG_FLOAT, MG_DOUBLE};
    static const mg_apply applies[] = {MG_APPLY_MIN, MG_APPLY_MAX, MG_APPLY_IF_UNSET,
                                       MG_APPLY_ASSIGN, MG_APPLY_ADD, MG_APPLY_AFFINE};
    const int variant = i % 4, a = i / 4 % 6, c = i / 24 % 4, k = i / 96 % 6, ti = i / 576;
    const mg_type t = types[ti];
    const bool fp = t == MG_FLOAT || t == MG_DOUBLE;
    if (k == MG_CONTRIB_SRC_DIV_OUTDEG && !fp) return false;
    if (k == MG_CONTRIB_SRC_ID && fp) return false;
    if (c == MG_COMBINE_ANY && applies[a] != MG_APPLY_IF_UNSET && applies[a] != MG_APPLY_ASSIGN)
        return false;
    if (c == MG_COMBINE_SUM && k == MG_CONTRIB_SRC_TIMES_WEIGHT && !fp) return false;
    *type = t;
    mg_program_init(p);
    p->contribution = (mg_contribution)k;
    p->combine = (mg_combine)c;
    p->apply = applies[a];
    p->edges = variant & 1 ? MG_EDGES_IN : MG_EDGES_OUT;
    if (k == MG_CONTRIB_SRC_DIV_OUTDEG) p->edges = MG_EDGES_OUT;
    p->mask_complement = variant & 2;
    p->alpha = fp ? 0.5 : 2;
    p->beta = 3;
    p->epsilon = 2.5;
    return true;
}

/* One case's host side, in the caller's numbering (x, y0, in, mask) and in the device numbering
 * (xbuf, ybuf, list, mask_bm: what goes to the device), arrays of n. */
typedef struct {
    mg_type type;
    const mg_program *p;
    bool use_in, use_mask;
    double *x, *y0;
    bool *in, *mask;
    uint8_t *xbuf, *ybuf;
    uint32_t *list, count;
    uint64_t *mask_bm;
} gpu_case;

/* Random values, frontier (use_in: a third of the vertices, none when empty) and mask, copied to
 * P's device buffers. */
static inline void case_inputs(pair *P, gpu_case *k, bool empty) {
    const bool fp = k->type == MG_FLOAT || k->type == MG_DOUBLE;
    const uint32_t n = P->host->n;
    const size_t words = mg__bitmap_words(n), ts = mg__type_size(k->type);
    k->count = 0;
    memset(k->mask_bm, 0, words * 8);
    for (uint32_t v = 0; v < n; v++) {
        k->x[v] = fp ? (next_rand() % 1000) / 8.0 : (double)(next_rand() % 1000);
        k->y0[v] = (k->p->apply == MG_APPLY_IF_UNSET && next_rand() % 2) ? k->p->unset
                                                                        : (double)(next_rand() % 1200);
        k->in[v] = k->use_in ? !empty && next_rand() % 3 == 0 : true;
        k->mask[v] = next_rand() % 2;
        const uint32_t nv = P->new_of_old[v];
        to_typed(k->type, k->xbuf, nv, k->x[v]);
        to_typed(k->type, k->ybuf, nv, k->y0[v]);
        if (k->use_in && k->in[v]) k->list[k->count++] = nv;
        if (k->mask[v]) k->mask_bm[nv >> 6] |= 1ull << (nv & 63);
    }
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_x, k->xbuf, n * ts));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_y, k->ybuf, n * ts));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_in, k->list, k->count * 4));
    CHECK_OK(ctx, mg__gpu_copy_to_device(ctx, P->d_mask, k->mask_bm, words * 8));
}

/* The output forms a case asks for. */
enum { OUT_BOTH = 0, OUT_LIST, OUT_BITMAP };

/* joined[d] (device numbering, n entries) from the output list (each member once, within n and, with
 * both forms, in the bitmap) or the bitmap (as many members as out_count). Returns the bad list
 * entries. */
static inline int read_joined(uint32_t n, uint32_t out_count, const uint32_t *out_list, const uint64_t *out_bm,
                              int outs, bool *joined) {
    int bad = 0;
    const uint32_t listed = out_count < n ? out_count : n;
    memset(joined, 0, n * sizeof *joined);
    if (outs != OUT_LIST) {
        uint32_t members = 0;
        for (size_t w = 0; w < mg__bitmap_words(n); w++) members += (uint32_t)__builtin_popcountll(out_bm[w]);
        CHECK(members == out_count);
    }
    if (outs == OUT_BITMAP) {
        for (uint32_t d = 0; d < n; d++) joined[d] = mg__bit_test(out_bm, d);
        return 0;
    }
    for (uint32_t i = 0; i < listed; i++) {
        const uint32_t d = out_list[i];
        if (d >= n || joined[d] || (outs == OUT_BOTH && !mg__bit_test(out_bm, d))) {
            if (bad < 3) fprintf(stderr, "  bad output list entry %u (position %u)\n", d, i);
            bad++;
            continue;
        }
        joined[d] = true;
    }
    return bad;
}

/* Every destination's value (ybuf, device numbering) and membership of the output (joined) against
 * brute force on the host graph; what: the case, for the first three messages. Returns the
 * mismatches. */
static inline int reference_mismatches(const pair *P, const gpu_case *k, const uint8_t *ybuf, const bool *joined,
                                       const char *what) {
    const mg_program *p = k->p;
    const bool fp = k->type == MG_FLOAT || k->type == MG_DOUBLE;
    const uint32_t n = P->host->n;
    const uint64_t *off, *ioff;
    const uint32_t *idx, *iidx;
    const void *w, *iw;
    mg_graph_csr(P->host, &off, &idx, &w);
    mg_graph_csc(P->host, &ioff, &iidx, &iw);
    /* along MG_EDGES_OUT a destination's sources are its in-neighbours (CSC); along IN, the CSR;
     * each array's weights are those of the same edges */
    const bool along_out = p->edges == MG_EDGES_OUT;
    const uint64_t *doff = along_out ? ioff : off;
    const uint32_t *didx = along_out ? iidx : idx;
    const int32_t *dw = along_out ? iw : w;
    int bad = 0;
    for (uint32_t d = 0; d < n; d++) {
        double c = 0;
        bool found = false, any_ok = false;
        const bool eligible = !k->use_mask || (k->mask[d] != p->mask_complement);
        const uint32_t nd = P->new_of_old[d];
        const double got = from_typed(k->type, ybuf, nd);
        for (uint64_t e = doff[d]; e < doff[d + 1] && eligible; e++) {
            const uint32_t s = didx[e];
            if (!k->in[s]) continue;
            const double cv = ref_contribution(p, k->type, k->x[s], s, dw ? dw[e] : 1,
                                               (double)(off[s + 1] - off[s]));
            ref_combine(p, cv, got, &c, &found, &any_ok);
        }
        double expect;
        const bool joins = ref_apply(p, fp, found, eligible, c, k->y0[d], &expect);
        const bool value_ok = ref_value_ok(p, fp, found, joins, any_ok, got, expect);
        if (!value_ok || joined[nd] != joins) {
            if (bad < 3)
                fprintf(stderr, "  mismatch type %d contrib %d combine %d apply %d edges %d compl %d in %d "
                        "mask %d %s: vertex %u got %g expected %g, joined %d expected %d\n", k->type,
                        p->contribution, p->combine, p->apply, p->edges, p->mask_complement, k->use_in,
                        k->use_mask, what, d, got, expect, joined[nd], joins);
            bad++;
        }
    }
    return bad;
}

#endif
