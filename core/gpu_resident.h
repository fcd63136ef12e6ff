/*
 * gpu_resident.h — vectors and frontiers resident on the device (internal, CUDA builds only).
 *
 * On a GPU context every vector and frontier operation runs on the device (core/gpu_vector.cu,
 * core/gpu_frontier.cu) on arrays in the engine's numbering (the graph's device form,
 * preprocess/gpu_preprocess.h); mg_advance (frontier/gpu_backend.cu) uses and leaves its operands
 * there. An object moves to the host (caller numbering) only when a host path needs it: a CPU
 * context's operation, mg_vector_extract/load, or the host frontier forms (mg__frontier_need_*).
 * Positions are renumbered, values are not (MG_VERTEX values are caller ids everywhere).
 *
 * The operation functions take arguments the public functions (core/vector.c, core/frontier.c)
 * have already checked. Every failed CUDA call gives MG_DEVICE_ERROR naming the call, a failed
 * allocation MG_OUT_OF_MEMORY.
 */
#ifndef MG_GPU_RESIDENT_H
#define MG_GPU_RESIDENT_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- vectors (gpu_vector.cu) ----------------------------------------------------------------- */

/* Makes the values current on the device (allocating d_data, uploading and permuting if needed). */
mg_status mg__gpu_vector_to_device(mg_context ctx, mg_vector v);
/* Makes d_data exist and marks the vector device-resident without uploading (the caller is about
 * to overwrite every value). */
mg_status mg__gpu_vector_claim_device(mg_context ctx, mg_vector v);
/* A new vector's zeros made on the device (cudaMemsetAsync), which then holds its values: the
 * first advance into a new vector no longer uploads n zeros from fresh host pages. */
mg_status mg__gpu_vector_zero_device(mg_context ctx, mg_vector v);
/* Makes the values current on the host (caller numbering); on_device becomes false. */
mg_status mg__gpu_vector_to_host(mg_context ctx, mg_vector v);
/* Frees the device array (a vector being freed). */
void mg__gpu_vector_release(mg_vector v);
/* One element of a device-resident vector, read or written in place (`elem`: the element's bytes,
 * already converted to the vector's type). */
mg_status mg__gpu_vector_get(mg_context ctx, const mg_vector v, uint32_t vertex, double *value);
mg_status mg__gpu_vector_set(mg_context ctx, mg_vector v, uint32_t vertex, const void *elem);

/* The operations of core/vector.c on the device; `elem` as above. */
mg_status mg__gpu_vector_assign(mg_context ctx, mg_vector v, const mg_frontier mask, const void *elem);
mg_status mg__gpu_vector_assign_ids(mg_context ctx, mg_vector v, const mg_frontier mask);
mg_status mg__gpu_vector_affine(mg_context ctx, mg_vector z, const mg_frontier mask, double a,
                                const mg_vector x, double b);
mg_status mg__gpu_vector_ewise(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                               const mg_vector x, const mg_vector y);
mg_status mg__gpu_vector_reduce(mg_context ctx, const mg_vector v, const mg_frontier mask,
                                mg_binary_op op, double *result);
/* own_only: over the vertices of this rank's share alone (a split graph's, core/dist.h) */
mg_status mg__gpu_vector_l1_distance(mg_context ctx, const mg_vector x, const mg_vector y,
                                     bool own_only, double *result);
mg_status mg__gpu_vector_degree(mg_context ctx, mg_vector v, mg_edges which);
/* mg_vector_gather / _scatter on the device. y's values (caller ids) are checked there first;
 * a bad one fails naming its position in caller ids, as the host does. */
mg_status mg__gpu_vector_gather(mg_context ctx, mg_vector z, const mg_frontier mask, const mg_vector x,
                                const mg_vector y);
mg_status mg__gpu_vector_scatter(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                                 const mg_vector x, const mg_vector y);

/* ---- dense matrices and vectors (gpu_dense.cu) ---------------------------------------------------
 * mg__dense_need_host and mg__dense_release_device (mg_internal.h) are defined there too. */

/* Makes X's values current on the device (allocating d_data and uploading if needed); on_device
 * becomes true. The host values are not changed, so a failed call after it leaves X as it was. */
mg_status mg__gpu_dense_to_device(mg_context ctx, mg_dense X);
/* Makes d_data exist without touching on_device: a kernel about to overwrite every value writes
 * there and the caller sets on_device once it has succeeded (a failed call leaves X as it was). */
mg_status mg__gpu_dense_reserve(mg_context ctx, mg_dense X);

/* ---- frontiers (gpu_frontier.cu) ------------------------------------------------------------- */

/* The device graph of a graph (built on first use). */
mg_status mg__gpu_graph_of(mg_context ctx, const struct mg_graph_s *g, const void **gg);
/* Moves f to the device if needed and makes its device list / bitmap valid. The list always has a
 * non-NULL array (an empty frontier too). */
mg_status mg__gpu_frontier_need_dlist(mg_context ctx, const mg_frontier f);
mg_status mg__gpu_frontier_need_dbitmap(mg_context ctx, const mg_frontier f);
/* mg__gpu_frontier_need_dlist with room for all n vertices (a device loop appends to it). */
mg_status mg__gpu_frontier_need_dlist_room(mg_context ctx, const mg_frontier f);
/* Device list of capacity n and device bitmap allocated, nothing computed; f becomes
 * device-resident with both forms marked invalid (an engine is about to overwrite it). */
mg_status mg__gpu_frontier_reserve_device(mg_context ctx, mg_frontier f);
/* Brings the set back to the host as a list in caller ids; on_device becomes false. */
mg_status mg__gpu_frontier_to_host(mg_context ctx, const mg_frontier f);
void mg__gpu_frontier_release(mg_frontier f);

mg_status mg__gpu_frontier_clear(mg_context ctx, mg_frontier f);
mg_status mg__gpu_frontier_fill(mg_context ctx, mg_frontier f);
mg_status mg__gpu_frontier_add(mg_context ctx, mg_frontier f, uint32_t vertex);
mg_status mg__gpu_frontier_contains(mg_context ctx, const mg_frontier f, uint32_t vertex, bool *in);
mg_status mg__gpu_frontier_copy(mg_context ctx, mg_frontier dst, const mg_frontier src);
mg_status mg__gpu_frontier_union(mg_context ctx, mg_frontier dst, const mg_frontier src);
mg_status mg__gpu_frontier_out_edges(mg_context ctx, const mg_frontier f, uint64_t *edges);
/* Launches (on the default stream, no wait) *sum += the sum of off[v + 1] - off[v] over v in
 * list[0..count), or over 0..count when list is NULL: the edges of a frontier. One atomic per thread
 * block, so a frontier of millions does not serialise on one address. false: the launch failed
 * (cudaGetLastError says why). */
bool mg__gpu_degree_sum_async(const uint64_t *off, const uint32_t *list, uint32_t count,
                              unsigned long long *sum);
/* Launches (default stream, no wait) the setting of list[0..count)'s bits in bitmap (whose words
 * the caller has zeroed or wants kept). false: the launch failed. */
bool mg__gpu_list_to_bitmap_async(const uint32_t *list, uint32_t count, uint64_t *bitmap);
mg_status mg__gpu_frontier_select(mg_context ctx, mg_frontier out, const mg_frontier in,
                                  const mg_vector values, mg_compare cmp, double threshold);

#ifdef __cplusplus
}
#endif
#endif /* MG_GPU_RESIDENT_H */
