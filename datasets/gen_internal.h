/*
 * gen_internal.h — what the generator files share: the counter-based random numbers and the
 * per-kind edge makers that fill an mg__coo.
 *
 * Determinism: every random number is a pure function of (seed, stream, counter), so edge i of a
 * graph depends only on the seed and i, never on which thread made it or in which order. That is
 * what lets the generators run under `omp parallel for` and still give the same graph for any
 * thread count (GAPBS gets the same property by seeding one engine per block of edges).
 */
#ifndef MG_GEN_INTERNAL_H
#define MG_GEN_INTERNAL_H

#include "mg_internal.h"

#include <math.h>

/* The SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijection on 64-bit words with full
 * avalanche, so consecutive counters give independent-looking outputs. */
static inline uint64_t mg__gen_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define MG__GEN_GAMMA 0x9e3779b97f4a7c15ULL /* SplitMix64's odd increment (2^64 / phi) */

/* Independent streams of one seed: endpoints, weights, the permutation, point coordinates. */
enum {
    MG__GEN_STREAM_EDGES = 1,
    MG__GEN_STREAM_WEIGHTS = 2,
    MG__GEN_STREAM_PERMUTATION = 3,
    MG__GEN_STREAM_POINTS = 4
};

static inline uint64_t mg__gen_key(uint64_t seed, uint64_t stream) {
    return mg__gen_mix64(mg__gen_mix64(seed ^ 0x6d67726170680000ULL) + stream * MG__GEN_GAMMA);
}

/* The counter-th word of the stream `key`: SplitMix64's output at position counter, computed
 * directly instead of by stepping. */
static inline uint64_t mg__gen_rand(uint64_t key, uint64_t counter) {
    return mg__gen_mix64(key + (counter + 1) * MG__GEN_GAMMA);
}

/* Further words from a per-item state seeded by mg__gen_rand: wyrand (Wang Yi, public domain),
 * one 64x64->128 multiply per word, about half the cost of a SplitMix64 finaliser. */
static inline uint64_t mg__gen_next(uint64_t *state) {
    *state += 0xa0761d6478bd642fULL;
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 mg__u128;
    mg__u128 t = (mg__u128)*state * (*state ^ 0xe7037ed1a0b428dbULL);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
#else
    return mg__gen_mix64(*state);
#endif
}

/* A uniform double in [0, 1) from the top 53 bits. */
static inline double mg__gen_unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; }

/* ---- R-MAT (generators.c for graphs, matrix_generators.c for matrices) ------------------------ */

/* R-MAT draws 21 bits per level, three levels per 64-bit random word: quadrant probabilities are
 * then exact to 2^-21 (far below any statistical effect at the sizes we build) and a scale-22
 * edge costs 8 hash evaluations instead of 22. */
#define MG__RMAT_BITS 21
#define MG__RMAT_LEVELS_PER_WORD 3
#define MG__RMAT_ONE (1u << MG__RMAT_BITS)

typedef struct {
    int scale;
    uint32_t t_a, t_ab, t_abc; /* cumulative quadrant thresholds out of MG__RMAT_ONE */
    int words;                  /* random words per edge */
} mg__rmat_params;

static inline void mg__rmat_params_init(mg__rmat_params *p, int scale, double a, double b,
                                        double c) {
    p->scale = scale;
    p->t_a = (uint32_t)llround(a * MG__RMAT_ONE);
    p->t_ab = (uint32_t)llround((a + b) * MG__RMAT_ONE);
    p->t_abc = (uint32_t)llround((a + b + c) * MG__RMAT_ONE);
    p->words = (scale + MG__RMAT_LEVELS_PER_WORD - 1) / MG__RMAT_LEVELS_PER_WORD;
}

/* Edge i: at each level pick a quadrant of the adjacency matrix (a top-left, b top-right,
 * c bottom-left, d bottom-right) and descend; the levels give the ids' bits, high to low.
 * Branch-free: the quadrant is a random 57/19/19/5 choice, so branches on it mispredict often;
 * with if/else this loop ran 2.3 times slower. */
static inline void mg__rmat_edge(const mg__rmat_params *p, uint64_t key, uint64_t i,
                                 uint32_t *u_out, uint32_t *v_out) {
    uint32_t u = 0, v = 0;
    int level = 0;
    uint64_t state = mg__gen_rand(key, i);
    for (int w = 0; w < p->words; w++) {
        uint64_t r = mg__gen_next(&state);
        for (int k = 0; k < MG__RMAT_LEVELS_PER_WORD && level < p->scale; k++, level++) {
            uint32_t x = (uint32_t)(r & (MG__RMAT_ONE - 1));
            r >>= MG__RMAT_BITS;
            uint32_t ge_a = x >= p->t_a, ge_ab = x >= p->t_ab, ge_abc = x >= p->t_abc;
            u = (u << 1) | ge_ab;                    /* bottom half: quadrants c and d */
            v = (v << 1) | (ge_a ^ ge_ab ^ ge_abc);  /* right half: quadrants b and d  */
        }
    }
    *u_out = u;
    *v_out = v;
}

/* The geometric edge maker (gen_geometric.c): counts its edges, then initialises the coo (with a
 * weight array when opts->weights asks), sets coo->n and coo->m and fills src and dst; the
 * caller fills the weights. The other kinds are in generators.c. */
mg_status mg__gen_geometric(mg_context ctx, const mg_gen_options *opts, mg__coo *coo);

/* Fills weights[0..m) with the weights of edges first .. first + m - 1 of the seed's weight stream
 * (weight i depends only on seed and i). */
void mg__gen_fill_weights(const mg_gen_options *opts, uint64_t first, uint64_t m, void *weights);

/* Physical memory in bytes (0 when unknown), for refusing edge lists that cannot fit. */
uint64_t mg__gen_physical_memory(void);

#endif /* MG_GEN_INTERNAL_H */
