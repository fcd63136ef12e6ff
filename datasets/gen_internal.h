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

/* The geometric edge maker (gen_geometric.c): counts its edges, then initialises the coo (with a
 * weight array when opts->weights asks), sets coo->n and coo->m and fills src and dst; the
 * caller fills the weights. The other kinds are in generators.c. */
mg_status mg__gen_geometric(mg_context ctx, const mg_gen_options *opts, mg__coo *coo);

/* Fills weights[0..m) from the seed's weight stream (weight i depends only on seed and i). */
void mg__gen_fill_weights(const mg_gen_options *opts, uint64_t m, void *weights);

/* Physical memory in bytes (0 when unknown), for refusing edge lists that cannot fit. */
uint64_t mg__gen_physical_memory(void);

#endif /* MG_GEN_INTERNAL_H */
