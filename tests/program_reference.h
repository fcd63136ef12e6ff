/*
 * program_reference.h — the brute-force meaning of one edge-program step, per destination, shared
 * by the tests that check engines against it (tests/unit/test_engine.c for the CPU engine,
 * tests/gpu/test_gpu_advance.c for the GPU kernels). Values are carried as double and rounded the
 * way an engine of the given value type computes them.
 */
#ifndef MG_TEST_PROGRAM_REFERENCE_H
#define MG_TEST_PROGRAM_REFERENCE_H

#include "mgraph.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* What an active source s with value xs sends along an edge of weight w. */
static inline double ref_contribution(const mg_program *p, mg_type type, double xs, uint32_t s,
                                      double w, double outdeg) {
    double c = 0;
    switch (p->contribution) {
    case MG_CONTRIB_SRC: c = xs; break;
    case MG_CONTRIB_SRC_PLUS_ONE: c = xs + 1; break;
    case MG_CONTRIB_SRC_PLUS_WEIGHT: c = xs + w; break;
    case MG_CONTRIB_SRC_TIMES_WEIGHT: c = xs * w; break;
    case MG_CONTRIB_SRC_DIV_OUTDEG: c = outdeg ? xs / outdeg : 0; break;
    case MG_CONTRIB_SRC_ID: c = s; break;
    }
    if (type == MG_FLOAT) c = (float)c;
    if (type != MG_FLOAT && type != MG_DOUBLE) c = floor(c);
    return c;
}

/* Folds contribution cv into the combined value c. For MG_COMBINE_ANY the engine may keep any
 * contribution: *any_ok records whether the value it produced (got) is one of them. */
static inline void ref_combine(const mg_program *p, double cv, double got, double *c, bool *found,
                               bool *any_ok) {
    if (!*found) *c = cv;
    else if (p->combine == MG_COMBINE_MIN) *c = fmin(*c, cv);
    else if (p->combine == MG_COMBINE_MAX) *c = fmax(*c, cv);
    else if (p->combine == MG_COMBINE_SUM) *c += cv;
    if (p->combine == MG_COMBINE_ANY && got == cv) *any_ok = true;
    *found = true;
}

/* The apply rule: sets *expect (from the old value y0) and returns whether the destination joins. */
static inline bool ref_apply(const mg_program *p, bool fp, bool found, bool eligible, double c,
                             double y0, double *expect) {
    *expect = y0;
    switch (p->apply) {
    case MG_APPLY_MIN: if (found && c < y0) { *expect = c; return true; } return false;
    case MG_APPLY_MAX: if (found && c > y0) { *expect = c; return true; } return false;
    case MG_APPLY_IF_UNSET: if (found && y0 == p->unset) { *expect = c; return true; } return false;
    case MG_APPLY_ASSIGN: if (found) { *expect = c; return true; } return false;
    case MG_APPLY_ADD:
        if (!found) return false;
        *expect = y0 + c;
        return fabs(*expect) > p->epsilon;
    case MG_APPLY_AFFINE:
        if (!eligible) return false;
        *expect = p->alpha * (found ? c : 0) + p->beta;
        if (!fp) *expect = (double)(int64_t)*expect;
        return fabs(*expect - y0) > p->epsilon;
    }
    return false;
}

/* Whether an engine's value got is right: exact for integers, 1e-4 relative for floating point,
 * and for an ANY combine that chose (if-unset, assign) any one of the contributions. */
static inline bool ref_value_ok(const mg_program *p, bool fp, bool found, bool joins, bool any_ok,
                                double got, double expect) {
    if (p->combine == MG_COMBINE_ANY && found && joins &&
        (p->apply == MG_APPLY_IF_UNSET || p->apply == MG_APPLY_ASSIGN))
        return any_ok;
    if (fp) return fabs(got - expect) <= 1e-4 * (1 + fabs(expect));
    return got == expect;
}

#endif
