/*
 * engine.h — what every engine behind mg_advance provides. advance.c validates the arguments once
 * and hands a checked call to the context's backend.
 */
#ifndef MG_ENGINE_H
#define MG_ENGINE_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    mg_context ctx;
    const struct mg_graph_s *g;
    const mg_program *program;
    mg_frontier in;    /* NULL: all vertices active         */
    const struct mg_vector_s *x; /* NULL for MG_CONTRIB_SRC_ID */
    struct mg_vector_s *y;
    mg_frontier mask;  /* NULL: every destination eligible   */
    mg_frontier out;   /* NULL: output frontier not wanted   */
} mg__advance_call;

mg_status mg__cpu_advance(const mg__advance_call *call, mg_advance_info *info);
/* The GPU backend (gpu_backend.cu; CUDA builds only). */
mg_status mg__gpu_run_advance(const mg__advance_call *call, mg_advance_info *info);

#ifdef __cplusplus
}
#endif

#endif
