/*
 * gpu_vector.cu — vectors resident on the device (core/gpu_resident.h): the moves between the
 * host (caller numbering) and the device (engine numbering), single-element access, and every
 * operation of core/vector.c for a GPU context, with core/vector.c's conversion rules (saturating
 * integer stores, integer division by zero giving 0). In the gather and scatter, y's values are
 * caller ids (gpu_resident.h): each is turned into its device position through new_of_old.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <math.h>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "preprocess/gpu_preprocess.h"

namespace {

#include "gpu_util.cuh"

const mg__gpu_graph *graph_of(const struct mg_vector_s *v) {
    return (const mg__gpu_graph *)v->graph->gpu;
}

/* dst[new] = src[old_of_new[new]] (caller -> engine order) or dst[old] = src[new_of_old[old]]. */
template <typename E>
__global__ void permute(E *dst, const E *src, const uint32_t *map, uint32_t n) {
    GRID_STRIDE(i, n) dst[i] = src[map[i]];
}

mg_status permute_values(mg_context ctx, size_t es, void *dst, const void *src, const uint32_t *map,
                         uint32_t n) {
    if (es == 4) permute<<<blocks_for(n), kThreads>>>((uint32_t *)dst, (const uint32_t *)src, map, n);
    else permute<<<blocks_for(n), kThreads>>>((uint64_t *)dst, (const uint64_t *)src, map, n);
    LAUNCHED("permute");
    return MG_SUCCESS;
}

/* ---- core/vector.c's store(), on the device --------------------------------------------------- */

__device__ inline int64_t saturate(double value, int64_t lo, int64_t hi) {
    if (value >= (double)hi) return hi;
    if (value <= (double)lo) return lo;
    return (int64_t)value;
}

template <typename T> __device__ inline T store(double value);
template <> __device__ inline int32_t store<int32_t>(double value) {
    return (int32_t)saturate(value, INT32_MIN, INT32_MAX);
}
template <> __device__ inline int64_t store<int64_t>(double value) {
    return saturate(value, INT64_MIN, INT64_MAX);
}
template <> __device__ inline float store<float>(double value) { return (float)value; }
template <> __device__ inline double store<double>(double value) { return value; }

/* Position k of a masked loop: the mask's k-th vertex, or k itself. */
__device__ inline uint64_t at(const uint32_t *list, uint64_t k) { return list ? list[k] : k; }

template <typename T>
__global__ void assign_kernel(T *x, const uint32_t *list, uint64_t count, T value) {
    GRID_STRIDE(k, count) x[at(list, k)] = value;
}

template <typename T>
__global__ void assign_ids_kernel(T *x, const uint32_t *list, uint64_t count,
                                  const uint32_t *old_of_new) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        x[i] = (T)old_of_new[i];
    }
}

template <typename Z, typename X>
__global__ void affine_kernel(Z *z, const X *x, const uint32_t *list, uint64_t count, double a,
                              double b) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        z[i] = store<Z>(__dadd_rn(__dmul_rn(a, (double)x[i]), b)); /* no FMA: as the host rounds */
    }
}

template <typename T>
__global__ void ewise_kernel(T *z, const T *x, const T *y, const uint32_t *list, uint64_t count,
                             int op) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        T a = x[i], b = y[i];
        switch (op) {
        case MG_OP_ADD: z[i] = a + b; break;
        case MG_OP_SUB: z[i] = a - b; break;
        case MG_OP_MUL: z[i] = a * b; break;
        case MG_OP_DIV: z[i] = (b == 0 && (T)0.5 == 0) ? 0 : a / b; break;
        case MG_OP_MIN: z[i] = a < b ? a : b; break;
        case MG_OP_MAX: z[i] = a > b ? a : b; break;
        }
    }
}

template <typename T>
__global__ void degree_kernel(T *x, const uint64_t *off, uint32_t n) {
    GRID_STRIDE(i, n) x[i] = (T)(off[i + 1] - off[i]);
}

/* *bad = the least caller id among the positions of list (all when NULL) whose y is not a vertex
 * id in [0, n); *bad stays UINT32_MAX when there is none. */
template <typename I>
__global__ void check_indices_kernel(const I *y, const uint32_t *list, uint64_t count, uint32_t n,
                                     const uint32_t *old_of_new, uint32_t *bad) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        I t = y[i];
        if (t < 0 || (uint64_t)t >= n) atomicMin(bad, old_of_new[i]);
    }
}

/* z[i] = x[new_of_old[y[i]]]: moved as bits (z and x have one type). */
template <typename E, typename I>
__global__ void gather_kernel(E *z, const E *x, const I *y, const uint32_t *list, uint64_t count,
                              const uint32_t *new_of_old) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        z[i] = x[new_of_old[y[i]]];
    }
}

/* z[new_of_old[y[i]]] = min or max of itself and x[i]; T int or long long (atomicMin/Max's). A
 * target read first and found no worse is not written, so the many positions naming one target
 * (FastSV's roots) do not serialise on its atomic. */
template <typename T, typename I>
__global__ void scatter_kernel(T *z, const T *x, const I *y, const uint32_t *list, uint64_t count,
                               const uint32_t *new_of_old, bool min) {
    GRID_STRIDE(k, count) {
        uint64_t i = at(list, k);
        T v = x[i];
        T *p = z + new_of_old[y[i]];
        if (min) {
            if (v < *p) atomicMin(p, v);
        } else if (v > *p) {
            atomicMax(p, v);
        }
    }
}

/* Element loaders for the reductions. */
template <typename T> struct masked_value {
    const T *x;
    const uint32_t *list;
    __host__ __device__ double operator()(int64_t k) const {
        return (double)x[list ? list[k] : (uint32_t)k];
    }
};
/* |a[i] - b[i]| at the k-th position of [0, split) then [from, ...): all of a whole vector
 * (split = n), or a share's own vertices in device numbering (split: groups 1-5, from: own_from) */
template <typename T> struct abs_diff {
    const T *a, *b;
    int64_t split, from;
    __host__ __device__ double operator()(int64_t k) const {
        const int64_t i = k < split ? k : from + (k - split);
        return fabs((double)a[i] - (double)b[i]);
    }
};
/* The reductions' operator (MG_OP_ADD, _MIN or _MAX), read at run time: one CUB reduction per
 * element loader instead of one per loader and operator (each a set of kernels to compile); the
 * branch is the same for every element of a memory-bound reduction. */
struct op_runtime {
    int op;
    __host__ __device__ double operator()(double a, double b) const {
        return op == MG_OP_MIN ? fmin(a, b) : op == MG_OP_MAX ? fmax(a, b) : a + b;
    }
};

/* result = reduction of count elements of `in` (an iterator) with op from init. */
template <typename It, typename Op>
mg_status reduce(mg_context ctx, It in, int64_t count, Op op, double init, double *result) {
    *result = init;
    if (count == 0) return MG_SUCCESS;
    dbuf out, temp;
    size_t temp_bytes = 0;
    TRY(dbuf_alloc(ctx, &out, sizeof(double), "a reduction"));
    CU(cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, (double *)out.p, count, op, init));
    TRY(dbuf_alloc(ctx, &temp, temp_bytes, "reduction scratch"));
    CU(cub::DeviceReduce::Reduce(temp.p, temp_bytes, in, (double *)out.p, count, op, init));
    CU(cudaMemcpy(result, out.p, sizeof(double), cudaMemcpyDeviceToHost));
    return MG_SUCCESS;
}

/* The mask's device list and length (list NULL: all n vertices). */
mg_status mask_list(mg_context ctx, const mg_frontier mask, uint32_t n, const uint32_t **list,
                    uint64_t *count) {
    *list = nullptr;
    *count = n;
    if (mask == nullptr) return MG_SUCCESS;
    TRY(mg__gpu_frontier_need_dlist(ctx, mask));
    *list = mask->d_list;
    *count = mask->count;
    return MG_SUCCESS;
}

/* Output vector: uploaded if a mask keeps some old values, else only claimed. */
mg_status output(mg_context ctx, mg_vector z, const mg_frontier mask) {
    return mask != nullptr ? mg__gpu_vector_to_device(ctx, z) : mg__gpu_vector_claim_device(ctx, z);
}

} // namespace

extern "C" mg_status mg__gpu_vector_claim_device(mg_context ctx, mg_vector v) {
    if (v->d_data == nullptr) {
        const void *gg = nullptr;
        TRY(mg__gpu_graph_of(ctx, v->graph, &gg));
        TRY(dalloc(ctx, &v->d_data, (size_t)v->n * mg__type_size(v->type), "a vector"));
    }
    v->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_zero_device(mg_context ctx, mg_vector v) {
    TRY(mg__gpu_vector_claim_device(ctx, v));
    if (v->n > 0) CU(cudaMemsetAsync(v->d_data, 0, (size_t)v->n * mg__type_size(v->type)));
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_to_device(mg_context ctx, mg_vector v) {
    if (v->on_device) return MG_SUCCESS;
    TRY(mg__gpu_vector_claim_device(ctx, v));
    v->on_device = false; /* until the values are there */
    const size_t es = mg__type_size(v->type);
    if (v->n > 0) {
        dbuf scratch;
        TRY(dbuf_alloc(ctx, &scratch, (size_t)v->n * es, "a vector upload"));
        CU(cudaMemcpy(scratch.p, v->data, (size_t)v->n * es, cudaMemcpyHostToDevice));
        TRY(permute_values(ctx, es, v->d_data, scratch.p, graph_of(v)->d_old_of_new, v->n));
    }
    v->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_to_host(mg_context ctx, mg_vector v) {
    if (!v->on_device) return MG_SUCCESS;
    const size_t es = mg__type_size(v->type);
    if (v->n > 0) {
        dbuf scratch;
        TRY(dbuf_alloc(ctx, &scratch, (size_t)v->n * es, "a vector download"));
        TRY(permute_values(ctx, es, scratch.p, v->d_data, graph_of(v)->d_new_of_old, v->n));
        CU(cudaMemcpy(v->data, scratch.p, (size_t)v->n * es, cudaMemcpyDeviceToHost));
    }
    v->on_device = false;
    return MG_SUCCESS;
}

extern "C" void mg__gpu_vector_release(mg_vector v) {
    if (v->d_data) dfree(v->d_data);
    v->d_data = nullptr;
    v->on_device = false;
}

extern "C" mg_status mg__gpu_vector_get(mg_context ctx, const mg_vector v, uint32_t vertex,
                                        double *value) {
    uint32_t id = 0;
    CU(cudaMemcpy(&id, graph_of(v)->d_new_of_old + vertex, sizeof id, cudaMemcpyDeviceToHost));
    const size_t es = mg__type_size(v->type);
    union { int32_t i32; int64_t i64; float f; double d; } one;
    CU(cudaMemcpy(&one, (const char *)v->d_data + (size_t)id * es, es, cudaMemcpyDeviceToHost));
    MG__WITH_TYPE(v->type, { *value = (double)*(const T *)&one; });
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_set(mg_context ctx, mg_vector v, uint32_t vertex,
                                        const void *elem) {
    uint32_t id = 0;
    CU(cudaMemcpy(&id, graph_of(v)->d_new_of_old + vertex, sizeof id, cudaMemcpyDeviceToHost));
    const size_t es = mg__type_size(v->type);
    CU(cudaMemcpy((char *)v->d_data + (size_t)id * es, elem, es, cudaMemcpyHostToDevice));
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_assign(mg_context ctx, mg_vector v, const mg_frontier mask,
                                           const void *elem) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, v->n, &list, &count));
    TRY(output(ctx, v, mask));
    if (count == 0) return MG_SUCCESS;
    MG__WITH_TYPE(v->type, {
        assign_kernel<T><<<blocks_for(count), kThreads>>>((T *)v->d_data, list, count,
                                                          *(const T *)elem);
    });
    LAUNCHED("assign_kernel");
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_assign_ids(mg_context ctx, mg_vector v, const mg_frontier mask) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, v->n, &list, &count));
    TRY(output(ctx, v, mask));
    if (count == 0) return MG_SUCCESS;
    const uint32_t *old_of_new = graph_of(v)->d_old_of_new;
    MG__WITH_TYPE(v->type, {
        assign_ids_kernel<T><<<blocks_for(count), kThreads>>>((T *)v->d_data, list, count, old_of_new);
    });
    LAUNCHED("assign_ids_kernel");
    return MG_SUCCESS;
}

template <typename Z>
static void launch_affine(Z *z, mg_type xt, const void *x, const uint32_t *list, uint64_t count,
                          double a, double b) {
    MG__WITH_TYPE(xt, {
        affine_kernel<Z, T><<<blocks_for(count), kThreads>>>(z, (const T *)x, list, count, a, b);
    });
}

extern "C" mg_status mg__gpu_vector_affine(mg_context ctx, mg_vector z, const mg_frontier mask,
                                           double a, const mg_vector x, double b) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, z->n, &list, &count));
    TRY(mg__gpu_vector_to_device(ctx, x));
    TRY(output(ctx, z, mask));
    if (count == 0) return MG_SUCCESS;
    MG__WITH_TYPE(z->type, {
        launch_affine<T>((T *)z->d_data, x->type, x->d_data, list, count, a, b);
    });
    LAUNCHED("affine_kernel");
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_ewise(mg_context ctx, mg_vector z, const mg_frontier mask,
                                          mg_binary_op op, const mg_vector x, const mg_vector y) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, z->n, &list, &count));
    TRY(mg__gpu_vector_to_device(ctx, x));
    TRY(mg__gpu_vector_to_device(ctx, y));
    TRY(output(ctx, z, mask));
    if (count == 0) return MG_SUCCESS;
    MG__WITH_TYPE(z->type, {
        ewise_kernel<T><<<blocks_for(count), kThreads>>>((T *)z->d_data, (const T *)x->d_data,
                                                         (const T *)y->d_data, list, count, (int)op);
    });
    LAUNCHED("ewise_kernel");
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_vector_reduce(mg_context ctx, const mg_vector v, const mg_frontier mask,
                                           mg_binary_op op, double *result) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, v->n, &list, &count));
    TRY(mg__gpu_vector_to_device(ctx, v));
    mg_status status = MG_SUCCESS;
    MG__WITH_TYPE(v->type, {
        auto in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                  masked_value<T>{(const T *)v->d_data, list});
        const int kind = op == MG_OP_ADD || op == MG_OP_MIN ? (int)op : (int)MG_OP_MAX;
        const double init = kind == MG_OP_ADD ? 0.0 : kind == MG_OP_MIN ? INFINITY : -INFINITY;
        status = reduce(ctx, in, (int64_t)count, op_runtime{kind}, init, result);
    });
    return status;
}

extern "C" mg_status mg__gpu_vector_l1_distance(mg_context ctx, const mg_vector x, const mg_vector y,
                                                bool own_only, double *result) {
    TRY(mg__gpu_vector_to_device(ctx, x));
    TRY(mg__gpu_vector_to_device(ctx, y));
    int64_t split = x->n, from = x->n, count = x->n;
    if (own_only) {
        /* a share's own vertices: groups 1-5 (only they have edges in) and its part of group 6 */
        const mg__gpu_graph *gg = graph_of(x);
        split = gg->group_start[MG__GPU_GROUPS - 1];
        from = gg->own_from;
        count = split + ((int64_t)gg->own_to - from);
    }
    mg_status status = MG_SUCCESS;
    MG__WITH_TYPE(x->type, {
        auto in = thrust::make_transform_iterator(
            thrust::counting_iterator<int64_t>(0),
            abs_diff<T>{(const T *)x->d_data, (const T *)y->d_data, split, from});
        status = reduce(ctx, in, count, op_runtime{MG_OP_ADD}, 0.0, result);
    });
    return status;
}

extern "C" mg_status mg__gpu_vector_degree(mg_context ctx, mg_vector v, mg_edges which) {
    TRY(mg__gpu_vector_claim_device(ctx, v));
    const mg__gpu_graph *gg = graph_of(v);
    const uint64_t *off = which == MG_EDGES_OUT ? gg->d_out_offsets : gg->d_in_offsets;
    if (v->n == 0) return MG_SUCCESS;
    MG__WITH_TYPE(v->type, {
        degree_kernel<T><<<blocks_for(v->n), kThreads>>>((T *)v->d_data, off, v->n);
    });
    LAUNCHED("degree_kernel");
    return MG_SUCCESS;
}

/* Fails naming the least caller id of mask's positions whose y is not a vertex id (call: the public
 * function's name), before anything is written. One word comes back to the host. */
static mg_status check_indices(mg_context ctx, const mg_vector y, const uint32_t *list,
                               uint64_t count, const char *call) {
    if (count == 0) return MG_SUCCESS;
    dbuf bad;
    TRY(dbuf_alloc(ctx, &bad, sizeof(uint32_t), "the index check"));
    CU(cudaMemsetAsync(bad.p, 0xff, sizeof(uint32_t)));
    const uint32_t *old_of_new = graph_of(y)->d_old_of_new;
    if (y->type == MG_INT64)
        check_indices_kernel<<<blocks_for(count), kThreads>>>((const int64_t *)y->d_data, list, count,
                                                               y->n, old_of_new, (uint32_t *)bad.p);
    else
        check_indices_kernel<<<blocks_for(count), kThreads>>>((const int32_t *)y->d_data, list, count,
                                                               y->n, old_of_new, (uint32_t *)bad.p);
    LAUNCHED("check_indices_kernel");
    uint32_t first = UINT32_MAX;
    CU(cudaMemcpy(&first, bad.p, sizeof first, cudaMemcpyDeviceToHost));
    if (first == UINT32_MAX) return MG_SUCCESS;
    double value = 0;
    TRY(mg__gpu_vector_get(ctx, y, first, &value));
    return mg__error(ctx, MG_INVALID_ARGUMENT,
                     "%s: y[%u] = %.0f is not a vertex id (the graph has %u vertices)", call, first,
                     value, y->n);
}

template <typename E>
static void launch_gather(E *z, const E *x, const mg_vector y, const uint32_t *list, uint64_t count,
                          const uint32_t *new_of_old) {
    if (y->type == MG_INT64)
        gather_kernel<<<blocks_for(count), kThreads>>>(z, x, (const int64_t *)y->d_data, list, count,
                                                       new_of_old);
    else
        gather_kernel<<<blocks_for(count), kThreads>>>(z, x, (const int32_t *)y->d_data, list, count,
                                                       new_of_old);
}

extern "C" mg_status mg__gpu_vector_gather(mg_context ctx, mg_vector z, const mg_frontier mask,
                                           const mg_vector x, const mg_vector y) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, z->n, &list, &count));
    TRY(mg__gpu_vector_to_device(ctx, x));
    TRY(mg__gpu_vector_to_device(ctx, y));
    TRY(check_indices(ctx, y, list, count, "mg_vector_gather"));
    TRY(output(ctx, z, mask));
    if (count == 0) return MG_SUCCESS;
    const uint32_t *new_of_old = graph_of(z)->d_new_of_old;
    if (mg__type_size(z->type) == 8)
        launch_gather((uint64_t *)z->d_data, (const uint64_t *)x->d_data, y, list, count, new_of_old);
    else
        launch_gather((uint32_t *)z->d_data, (const uint32_t *)x->d_data, y, list, count, new_of_old);
    LAUNCHED("gather_kernel");
    return MG_SUCCESS;
}

template <typename T>
static void launch_scatter(T *z, const T *x, const mg_vector y, const uint32_t *list, uint64_t count,
                           const uint32_t *new_of_old, bool min) {
    if (y->type == MG_INT64)
        scatter_kernel<<<blocks_for(count), kThreads>>>(z, x, (const int64_t *)y->d_data, list, count,
                                                        new_of_old, min);
    else
        scatter_kernel<<<blocks_for(count), kThreads>>>(z, x, (const int32_t *)y->d_data, list, count,
                                                        new_of_old, min);
}

extern "C" mg_status mg__gpu_vector_scatter(mg_context ctx, mg_vector z, const mg_frontier mask,
                                            mg_binary_op op, const mg_vector x, const mg_vector y) {
    const uint32_t *list;
    uint64_t count;
    TRY(mask_list(ctx, mask, x->n, &list, &count));
    TRY(mg__gpu_vector_to_device(ctx, x));
    TRY(mg__gpu_vector_to_device(ctx, y));
    TRY(check_indices(ctx, y, list, count, "mg_vector_scatter"));
    TRY(mg__gpu_vector_to_device(ctx, z));
    if (count == 0) return MG_SUCCESS;
    const uint32_t *new_of_old = graph_of(z)->d_new_of_old;
    const bool min = op == MG_OP_MIN;
    if (z->type == MG_INT64)
        launch_scatter((long long *)z->d_data, (const long long *)x->d_data, y, list, count,
                       new_of_old, min);
    else
        launch_scatter((int *)z->d_data, (const int *)x->d_data, y, list, count, new_of_old, min);
    LAUNCHED("scatter_kernel");
    return MG_SUCCESS;
}
