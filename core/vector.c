/*
 * vector.c — per-vertex value vectors and the element-wise operations algorithms compose with
 * mg_advance (assign, affine, element-wise binary ops, reductions, degrees, and the indexed gather
 * and scatter).
 */
#include "dist.h"

#include <math.h>

#ifdef MG_HAVE_CUDA
#include "gpu_resident.h"
/* A GPU context runs the operation on the device (core/gpu_vector.cu). */
#define ON_GPU(ctx) ((ctx)->backend == MG_BACKEND_GPU)
/* A host path needs v's values on the host: bring them back when they live on the device. */
#define NEED_HOST(v)                                                                               \
    if ((v)->on_device && (status = mg__gpu_vector_to_host(ctx, (mg_vector)(v))) != MG_SUCCESS)    \
        return status;
#else
#define ON_GPU(ctx) false
#define NEED_HOST(v)
#endif

static bool valid_type(mg_type t) { return t >= MG_INT32 && t <= MG_VERTEX; }
static bool integer_type(mg_type t) { return t == MG_INT32 || t == MG_INT64 || t == MG_VERTEX; }

/* double -> integer conversion that saturates instead of being undefined out of range. */
static int64_t saturate(double value, int64_t lo, int64_t hi) {
    if (value >= (double)hi) return hi;
    if (value <= (double)lo) return lo;
    return (int64_t)value;
}

/* Stores value into element i of data of type t (saturating for integers). */
static void store(mg_type t, void *data, int64_t i, double value) {
    switch (t) {
    case MG_INT32: case MG_VERTEX: ((int32_t *)data)[i] = (int32_t)saturate(value, INT32_MIN, INT32_MAX); break;
    case MG_INT64: ((int64_t *)data)[i] = saturate(value, INT64_MIN, INT64_MAX); break;
    case MG_FLOAT: ((float *)data)[i] = (float)value; break;
    case MG_DOUBLE: ((double *)data)[i] = value; break;
    }
}

mg_status mg_vector_create(mg_context ctx, mg_vector *v, const mg_graph g, mg_type type) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (v == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_create: v is NULL");
    *v = NULL;
    if ((status = mg__check_graph(ctx, g, "mg_vector_create: g")) != MG_SUCCESS) return status;
    if (!valid_type(type))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_create: unknown type %d", (int)type);
    mg_vector vec = mg__calloc(1, sizeof *vec);
    void *data = mg__calloc(g->n, mg__type_size(type));
    if (vec == NULL || data == NULL) {
        mg__free(vec);
        mg__free(data);
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_vector_create: out of memory for %u values",
                         g->n);
    }
    vec->magic = MG__MAGIC_VECTOR;
    vec->graph = g;
    vec->type = type;
    vec->n = g->n;
    vec->data = data;
#ifdef MG_HAVE_CUDA
    /* a GPU context uses the values there: make the zeros there (the host's stay untouched) */
    if (ON_GPU(ctx) && (status = mg__gpu_vector_zero_device(ctx, vec)) != MG_SUCCESS) {
        mg_vector_free(&vec);
        return status;
    }
#endif
    *v = vec;
    return MG_SUCCESS;
}

mg_status mg_vector_free(mg_vector *v) {
    if (v == NULL || *v == NULL) return MG_SUCCESS;
    if ((*v)->magic != MG__MAGIC_VECTOR) return MG_INVALID_OBJECT;
    (*v)->magic = MG__MAGIC_FREED;
#ifdef MG_HAVE_CUDA
    mg__gpu_vector_release(*v);
#endif
    mg__free((*v)->data);
    mg__free(*v);
    *v = NULL;
    return MG_SUCCESS;
}

mg_type mg_vector_type(const mg_vector v) { return v ? v->type : MG_INT32; }
uint32_t mg_vector_size(const mg_vector v) { return v ? v->n : 0; }

#define VECTOR_PROLOGUE(v, what)                                                                   \
    mg_status status = mg__check_context(ctx);                                                     \
    if (status != MG_SUCCESS) return status;                                                       \
    if ((status = mg__check_vector(ctx, v, what)) != MG_SUCCESS) return status;

mg_status mg_vector_get(mg_context ctx, const mg_vector v, uint32_t vertex, double *value) {
    VECTOR_PROLOGUE(v, "mg_vector_get: v");
    if (value == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_get: value is NULL");
    if (vertex >= v->n)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_get: vertex %u is out of range (the graph has %u vertices)",
                         vertex, v->n);
#ifdef MG_HAVE_CUDA
    if (v->on_device) return mg__gpu_vector_get(ctx, v, vertex, value);
#endif
    MG__WITH_TYPE(v->type, { *value = (double)((const T *)v->data)[vertex]; });
    return MG_SUCCESS;
}

mg_status mg_vector_set(mg_context ctx, mg_vector v, uint32_t vertex, double value) {
    VECTOR_PROLOGUE(v, "mg_vector_set: v");
    if (vertex >= v->n)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_set: vertex %u is out of range (the graph has %u vertices)",
                         vertex, v->n);
    if (integer_type(v->type) && isnan(value))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_set: NaN for an integer vector");
#ifdef MG_HAVE_CUDA
    if (v->on_device) {
        union { int32_t i32; int64_t i64; float f; double d; } one;
        store(v->type, &one, 0, value);
        return mg__gpu_vector_set(ctx, v, vertex, &one);
    }
#endif
    store(v->type, v->data, vertex, value);
    return MG_SUCCESS;
}

mg_status mg_vector_extract(mg_context ctx, const mg_vector v, void *values) {
    VECTOR_PROLOGUE(v, "mg_vector_extract: v");
    if (values == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_extract: values is NULL");
    NEED_HOST(v);
    memcpy(values, v->data, (size_t)v->n * mg__type_size(v->type));
    return MG_SUCCESS;
}

mg_status mg_vector_load(mg_context ctx, mg_vector v, const void *values) {
    VECTOR_PROLOGUE(v, "mg_vector_load: v");
    if (values == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_load: values is NULL");
    memcpy(v->data, values, (size_t)v->n * mg__type_size(v->type));
    v->on_device = false; /* the host holds the values now */
    return MG_SUCCESS;
}

/* Checks the mask and makes its list form valid; *list and *count describe the vertices to visit
 * (list NULL: all vertices). */
static mg_status check_mask(mg_context ctx, const mg_vector v, const mg_frontier mask,
                            const char *call) {
    if (mask == NULL) return MG_SUCCESS;
    mg_status status = mg__check_frontier(ctx, mask, call);
    if (status != MG_SUCCESS) return status;
    if (mask->graph != v->graph)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s belongs to another graph than the vector",
                         call);
    return MG_SUCCESS;
}

static mg_status mask_vertices(mg_context ctx, const mg_vector v, const mg_frontier mask,
                               const char *call, const uint32_t **list, int64_t *count) {
    *list = NULL;
    *count = v->n;
    if (mask == NULL) return MG_SUCCESS;
    mg_status status = check_mask(ctx, v, mask, call);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__frontier_need_list(ctx, mask)) != MG_SUCCESS) return status;
    *list = mask->list;
    *count = mask->count;
    return MG_SUCCESS;
}

/* One C type of values (MG_VERTEX is int32). */
static bool same_values(mg_type a, mg_type b) {
    return a == b || ((a == MG_INT32 || a == MG_VERTEX) && (b == MG_INT32 || b == MG_VERTEX));
}

static mg_status same_shape(mg_context ctx, const mg_vector a, const mg_vector b, const char *call) {
    if (a->graph != b->graph)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: the vectors belong to different graphs", call);
    if (!same_values(a->type, b->type))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: the vectors have different types", call);
    return MG_SUCCESS;
}

#define FOR_MASKED(list, count, i, BODY)                                                           \
    _Pragma("omp parallel for schedule(static)") for (int64_t k_ = 0; k_ < (count); k_++) {        \
        const int64_t i = (list) ? (int64_t)(list)[k_] : k_;                                       \
        BODY;                                                                                      \
    }

mg_status mg_vector_assign(mg_context ctx, mg_vector v, const mg_frontier mask, double value) {
    VECTOR_PROLOGUE(v, "mg_vector_assign: v");
    if ((status = check_mask(ctx, v, mask, "mg_vector_assign: mask")) != MG_SUCCESS) return status;
    if (integer_type(v->type) && isnan(value))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_assign: NaN for an integer vector");
    /* convert once, then copy the converted element */
    union { int32_t i32; int64_t i64; float f; double d; } one;
    store(v->type, &one, 0, value);
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_vector_assign(ctx, v, mask, &one);
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, v, mask, "mg_vector_assign: mask", &list, &count)) != MG_SUCCESS)
        return status;
    /* every value is overwritten without a mask: no need to bring the old ones back */
    if (mask == NULL) v->on_device = false;
    NEED_HOST(v);
    MG__WITH_TYPE(v->type, {
        T *x = v->data;
        const T val = *(const T *)&one;
        FOR_MASKED(list, count, i, x[i] = val);
    });
    return MG_SUCCESS;
}

mg_status mg_vector_assign_ids(mg_context ctx, mg_vector v, const mg_frontier mask) {
    VECTOR_PROLOGUE(v, "mg_vector_assign_ids: v");
    if (!integer_type(v->type))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_assign_ids: v must be MG_VERTEX, MG_INT32 or MG_INT64");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) {
        if ((status = check_mask(ctx, v, mask, "mg_vector_assign_ids: mask")) != MG_SUCCESS)
            return status;
        return mg__gpu_vector_assign_ids(ctx, v, mask);
    }
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, v, mask, "mg_vector_assign_ids: mask", &list, &count)) != MG_SUCCESS)
        return status;
    if (mask == NULL) v->on_device = false;
    NEED_HOST(v);
    MG__WITH_TYPE(v->type, {
        T *x = v->data;
        FOR_MASKED(list, count, i, x[i] = (T)i);
    });
    return MG_SUCCESS;
}

mg_status mg_vector_affine(mg_context ctx, mg_vector z, const mg_frontier mask, double a,
                           const mg_vector x, double b) {
    VECTOR_PROLOGUE(z, "mg_vector_affine: z");
    if ((status = mg__check_vector(ctx, x, "mg_vector_affine: x")) != MG_SUCCESS) return status;
    if (z->graph != x->graph)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_affine: the vectors belong to different graphs");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) {
        if ((status = check_mask(ctx, z, mask, "mg_vector_affine: mask")) != MG_SUCCESS) return status;
        return mg__gpu_vector_affine(ctx, z, mask, a, x, b);
    }
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, z, mask, "mg_vector_affine: mask", &list, &count)) != MG_SUCCESS)
        return status;
    NEED_HOST(x);
    NEED_HOST(z);
    const mg_type zt = z->type;
    void *zz = z->data;
    /* A copy of int32 values (FastSV copies its parents every iteration) gives what the trip
     * through double gives, without store()'s switch per element, which cost six times the copy. */
    if (a == 1 && b == 0 && same_values(zt, x->type) && same_values(zt, MG_INT32)) {
        const int32_t *xx = x->data;
        if (zz != xx) FOR_MASKED(list, count, i, ((int32_t *)zz)[i] = xx[i]);
        return MG_SUCCESS;
    }
    MG__WITH_TYPE(x->type, {
        const T *xx = x->data;
        FOR_MASKED(list, count, i, store(zt, zz, i, a * (double)xx[i] + b));
    });
    return MG_SUCCESS;
}

mg_status mg_vector_ewise(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                          const mg_vector x, const mg_vector y) {
    VECTOR_PROLOGUE(z, "mg_vector_ewise: z");
    if ((status = mg__check_vector(ctx, x, "mg_vector_ewise: x")) != MG_SUCCESS) return status;
    if ((status = mg__check_vector(ctx, y, "mg_vector_ewise: y")) != MG_SUCCESS) return status;
    if ((status = same_shape(ctx, z, x, "mg_vector_ewise")) != MG_SUCCESS) return status;
    if ((status = same_shape(ctx, z, y, "mg_vector_ewise")) != MG_SUCCESS) return status;
    if (op < MG_OP_ADD || op > MG_OP_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_ewise: unknown op %d", (int)op);
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) {
        if ((status = check_mask(ctx, z, mask, "mg_vector_ewise: mask")) != MG_SUCCESS) return status;
        return mg__gpu_vector_ewise(ctx, z, mask, op, x, y);
    }
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, z, mask, "mg_vector_ewise: mask", &list, &count)) != MG_SUCCESS)
        return status;
    NEED_HOST(x);
    NEED_HOST(y);
    NEED_HOST(z);
    MG__WITH_TYPE(z->type, {
        T *zz = z->data;
        const T *xx = x->data, *yy = y->data;
        switch (op) {
        case MG_OP_ADD: FOR_MASKED(list, count, i, zz[i] = xx[i] + yy[i]); break;
        case MG_OP_SUB: FOR_MASKED(list, count, i, zz[i] = xx[i] - yy[i]); break;
        case MG_OP_MUL: FOR_MASKED(list, count, i, zz[i] = xx[i] * yy[i]); break;
        case MG_OP_DIV:
            /* integer division by zero is undefined in C: give 0 rather than trap */
            FOR_MASKED(list, count, i, zz[i] = (yy[i] == 0 && (T)0.5 == 0) ? 0 : xx[i] / yy[i]);
            break;
        case MG_OP_MIN: FOR_MASKED(list, count, i, zz[i] = xx[i] < yy[i] ? xx[i] : yy[i]); break;
        case MG_OP_MAX: FOR_MASKED(list, count, i, zz[i] = xx[i] > yy[i] ? xx[i] : yy[i]); break;
        }
    });
    return MG_SUCCESS;
}

static mg_status reduce_here(mg_context ctx, const mg_vector v, const mg_frontier mask,
                             mg_binary_op op, double *result) {
    VECTOR_PROLOGUE(v, "mg_vector_reduce: v");
    if (result == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_reduce: result is NULL");
    if (op != MG_OP_ADD && op != MG_OP_MIN && op != MG_OP_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_reduce: op must be MG_OP_ADD, MG_OP_MIN or MG_OP_MAX");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) {
        if ((status = check_mask(ctx, v, mask, "mg_vector_reduce: mask")) != MG_SUCCESS) return status;
        return mg__gpu_vector_reduce(ctx, v, mask, op, result);
    }
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, v, mask, "mg_vector_reduce: mask", &list, &count)) != MG_SUCCESS)
        return status;
    NEED_HOST(v);
    double acc = op == MG_OP_ADD ? 0.0 : (op == MG_OP_MIN ? INFINITY : -INFINITY);
    MG__WITH_TYPE(v->type, {
        const T *x = v->data;
        if (op == MG_OP_ADD) {
            double s = 0;
_Pragma("omp parallel for reduction(+ : s) schedule(static)")
            for (int64_t k = 0; k < count; k++) s += (double)x[list ? list[k] : k];
            acc = s;
        } else if (op == MG_OP_MIN) {
            double s = INFINITY;
_Pragma("omp parallel for reduction(min : s) schedule(static)")
            for (int64_t k = 0; k < count; k++) s = fmin(s, (double)x[list ? list[k] : k]);
            acc = s;
        } else {
            double s = -INFINITY;
_Pragma("omp parallel for reduction(max : s) schedule(static)")
            for (int64_t k = 0; k < count; k++) s = fmax(s, (double)x[list ? list[k] : k]);
            acc = s;
        }
    });
    *result = acc;
    return MG_SUCCESS;
}

/* On a split graph (own_only) the sum over this rank's own vertices: each rank adds its part. */
static mg_status l1_distance_here(mg_context ctx, const mg_vector x, const mg_vector y,
                                  bool own_only, double *result) {
    VECTOR_PROLOGUE(x, "mg_vector_l1_distance: x");
    if ((status = mg__check_vector(ctx, y, "mg_vector_l1_distance: y")) != MG_SUCCESS) return status;
    if ((status = same_shape(ctx, x, y, "mg_vector_l1_distance")) != MG_SUCCESS) return status;
    if (result == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_l1_distance: result is NULL");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_vector_l1_distance(ctx, x, y, own_only, result);
#endif
    NEED_HOST(x);
    NEED_HOST(y);
    const int64_t lo = own_only ? x->graph->dist->first[x->graph->dist->rank] : 0;
    const int64_t hi = own_only ? x->graph->dist->first[x->graph->dist->rank + 1] : (int64_t)x->n;
    double s = 0;
    MG__WITH_TYPE(x->type, {
        const T *a = x->data, *b = y->data;
_Pragma("omp parallel for reduction(+ : s) schedule(static)")
        for (int64_t i = lo; i < hi; i++) s += fabs((double)a[i] - (double)b[i]);
    });
    *result = s;
    return MG_SUCCESS;
}

/* On a split graph every rank computed these on its own copy; rank 0's sum is taken by all, so
 * that all take the same branch after it (a sum's last bits depend on its order). */
mg_status mg_vector_reduce(mg_context ctx, const mg_vector v, const mg_frontier mask,
                           mg_binary_op op, double *result) {
    mg_status status = reduce_here(ctx, v, mask, op, result);
    /* on a split graph the ranks agree, also where this rank failed (not where ctx or v is no
     * live object: every rank was given the same bad argument then) */
    if (ctx != NULL && ctx->magic == MG__MAGIC_CONTEXT && ctx->dist != NULL && v != NULL &&
        v->magic == MG__MAGIC_VECTOR)
        status = mg__dist_agree(ctx, v->graph, status, result, sizeof *result);
    return status;
}

mg_status mg_vector_l1_distance(mg_context ctx, const mg_vector x, const mg_vector y,
                                double *result) {
    /* split: every rank its own vertices' part (the vectors are alike on every rank), then the
     * parts added in rank order, the same sum on every rank */
    const bool split = ctx != NULL && ctx->dist != NULL && x != NULL && x->magic == MG__MAGIC_VECTOR &&
                       x->graph->dist != NULL;
    mg_status status = l1_distance_here(ctx, x, y, split, result);
    if (split) status = mg__dist_sum(ctx, x->graph, status, result);
    return status;
}

/* Checks the operands of mg_vector_gather / _scatter (call: its name): live vectors of one graph,
 * z and x of one type, y of an integer type, z another object than x and y. */
static mg_status check_indexed(mg_context ctx, const mg_vector z, const mg_frontier mask,
                               const mg_vector x, const mg_vector y, const char *call) {
    char what[64];
    snprintf(what, sizeof what, "%s: z", call);
    mg_status status = mg__check_vector(ctx, z, what);
    if (status != MG_SUCCESS) return status;
    snprintf(what, sizeof what, "%s: x", call);
    if ((status = mg__check_vector(ctx, x, what)) != MG_SUCCESS) return status;
    snprintf(what, sizeof what, "%s: y", call);
    if ((status = mg__check_vector(ctx, y, what)) != MG_SUCCESS) return status;
    if ((status = same_shape(ctx, z, x, call)) != MG_SUCCESS) return status;
    if (y->graph != z->graph)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: y belongs to another graph than z", call);
    if (!integer_type(y->type))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "%s: y must be MG_VERTEX, MG_INT32 or MG_INT64 (it holds vertex ids)", call);
    if (z == x || z == y)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: z must be another vector than %s", call,
                         z == x ? "x" : "y");
    snprintf(what, sizeof what, "%s: mask", call);
    return check_mask(ctx, z, mask, what);
}

/* y[i] of an index vector, 32- or 64-bit. */
static inline int64_t index_at(const void *y, bool wide, int64_t i) {
    return wide ? ((const int64_t *)y)[i] : ((const int32_t *)y)[i];
}

/* Fails naming the least position of mask (all when list is NULL) whose y is not a vertex id; run
 * before anything is written, so that a failed call changes nothing. */
static mg_status check_indices(mg_context ctx, const mg_vector y, const uint32_t *list,
                               int64_t count, const char *call) {
    const bool wide = y->type == MG_INT64;
    const int64_t n = y->n;
    int64_t bad = INT64_MAX;
_Pragma("omp parallel for reduction(min : bad) schedule(static)")
    for (int64_t k = 0; k < count; k++) {
        const int64_t i = list ? (int64_t)list[k] : k;
        const int64_t t = index_at(y->data, wide, i);
        if ((t < 0 || t >= n) && i < bad) bad = i;
    }
    if (bad == INT64_MAX) return MG_SUCCESS;
    return mg__error(ctx, MG_INVALID_ARGUMENT,
                     "%s: y[%lld] = %lld is not a vertex id (the graph has %u vertices)", call,
                     (long long)bad, (long long)index_at(y->data, wide, bad), y->n);
}

mg_status mg_vector_gather(mg_context ctx, mg_vector z, const mg_frontier mask, const mg_vector x,
                           const mg_vector y) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = check_indexed(ctx, z, mask, x, y, "mg_vector_gather")) != MG_SUCCESS)
        return status;
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_vector_gather(ctx, z, mask, x, y);
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, z, mask, "mg_vector_gather: mask", &list, &count)) != MG_SUCCESS)
        return status;
    NEED_HOST(x);
    NEED_HOST(y);
    NEED_HOST(z);
    if ((status = check_indices(ctx, y, list, count, "mg_vector_gather")) != MG_SUCCESS)
        return status;
    const bool wide = y->type == MG_INT64;
    const void *yy = y->data;
    MG__WITH_TYPE(z->type, {
        T *zz = z->data;
        const T *xx = x->data;
        FOR_MASKED(list, count, i, zz[i] = xx[index_at(yy, wide, i)]);
    });
    return MG_SUCCESS;
}

/* *p = min or max(*p, v), atomically. The targets are data-dependent, so threads cannot own them;
 * per-thread copies of z would cost n values a thread. Comparing before the exchange keeps a
 * target that many positions name (a component's root in FastSV) read-shared rather than written
 * by each of them. */
#define COMBINE_INTO(T)                                                                            \
    static inline void combine_into_##T(T *p, T v, bool min) {                                     \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                              \
        while ((min ? v < old : v > old) &&                                                        \
               !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                                      \
    }
COMBINE_INTO(int32_t)
COMBINE_INTO(int64_t)

mg_status mg_vector_scatter(mg_context ctx, mg_vector z, const mg_frontier mask, mg_binary_op op,
                            const mg_vector x, const mg_vector y) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = check_indexed(ctx, z, mask, x, y, "mg_vector_scatter")) != MG_SUCCESS)
        return status;
    if (op != MG_OP_MIN && op != MG_OP_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_scatter: op must be MG_OP_MIN or MG_OP_MAX (got %d)", (int)op);
    if (!integer_type(z->type))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_vector_scatter: z and x must be MG_VERTEX, MG_INT32 or MG_INT64");
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx)) return mg__gpu_vector_scatter(ctx, z, mask, op, x, y);
#endif
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, x, mask, "mg_vector_scatter: mask", &list, &count)) != MG_SUCCESS)
        return status;
    NEED_HOST(x);
    NEED_HOST(y);
    NEED_HOST(z);
    if ((status = check_indices(ctx, y, list, count, "mg_vector_scatter")) != MG_SUCCESS)
        return status;
    const bool wide = y->type == MG_INT64, min = op == MG_OP_MIN;
    const void *yy = y->data;
    if (z->type == MG_INT64) {
        int64_t *zz = z->data;
        const int64_t *xx = x->data;
        FOR_MASKED(list, count, i, combine_into_int64_t(zz + index_at(yy, wide, i), xx[i], min));
    } else {
        int32_t *zz = z->data;
        const int32_t *xx = x->data;
        FOR_MASKED(list, count, i, combine_into_int32_t(zz + index_at(yy, wide, i), xx[i], min));
    }
    return MG_SUCCESS;
}

mg_status mg_vector_degree(mg_context ctx, mg_vector v, mg_edges which) {
    VECTOR_PROLOGUE(v, "mg_vector_degree: v");
    if (which != MG_EDGES_OUT && which != MG_EDGES_IN)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_vector_degree: unknown edge direction %d",
                         (int)which);
    const struct mg_graph_s *g = v->graph;
#ifdef MG_HAVE_CUDA
    if (ON_GPU(ctx) && g->dist == NULL) return mg__gpu_vector_degree(ctx, v, which);
#endif
    v->on_device = false; /* every value is overwritten */
    /* A share's out-degrees are the whole graph's by degree_offsets; its in-degrees are whole
     * for its own vertices, which the exchange below brings to every rank (an undirected graph's
     * are its out-degrees). */
    const bool share_in = g->dist != NULL && which == MG_EDGES_IN && g->dist->directed;
    const uint64_t *off = which == MG_EDGES_OUT || (g->dist != NULL && !share_in)
                              ? mg__graph_degree_offsets(g)
                              : g->in.offsets;
    MG__WITH_TYPE(v->type, {
        T *x = v->data;
_Pragma("omp parallel for schedule(static)")
        for (int64_t i = 0; i < (int64_t)v->n; i++) x[i] = (T)(off[i + 1] - off[i]);
    });
    if (!share_in) return MG_SUCCESS;
    status = mg__dist_agree_status(ctx, MG_SUCCESS, "mg_vector_degree");
    return status == MG_SUCCESS ? mg__dist_sync_vector(ctx, v) : status;
}

/* ---- union-find forests (mg_forest_link, mg_forest_compress) ------------------------------------ */

/* Checks parent for the forest ops (call: the op's name): a live MG_VERTEX or MG_INT32 vector of a
 * whole graph on a CPU context, every parent[v] in [0, v]. The check is a pass over all vertices
 * before anything is written (a failed call changes nothing); with parent[v] <= v the only cycles
 * are the roots' own loops, so the links and the jumps end. */
static mg_status check_forest(mg_context ctx, const mg_vector parent, const mg_frontier mask,
                              const char *call) {
    char what[64];
    snprintf(what, sizeof what, "%s: parent", call);
    mg_status status = mg__check_vector(ctx, parent, what);
    if (status != MG_SUCCESS) return status;
    if (parent->type != MG_VERTEX && parent->type != MG_INT32)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: parent must be MG_VERTEX or MG_INT32", call);
    snprintf(what, sizeof what, "%s: mask", call);
    if ((status = check_mask(ctx, parent, mask, what)) != MG_SUCCESS) return status;
    if (ON_GPU(ctx))
        return mg__error(ctx, MG_UNAVAILABLE, "%s: not on a GPU context yet (run it on a CPU context)", call);
    if (parent->graph->dist != NULL)
        return mg__error(ctx, MG_UNAVAILABLE, "%s: not on a graph split over ranks", call);
    NEED_HOST(parent);
    const uint32_t *p = parent->data, n = parent->n;
    /* branch-free and vectorised (a negative parent is a large unsigned one); the least bad vertex
     * is looked for only when there is one */
    uint32_t broken = 0;
_Pragma("omp parallel for reduction(| : broken) schedule(static)")
    for (uint32_t v = 0; v < n; v++) broken |= p[v] > v;
    if (!broken) return MG_SUCCESS;
    uint32_t bad = 0;
    while (p[bad] <= bad) bad++;
    return mg__error(ctx, MG_INVALID_ARGUMENT,
                     "%s: parent[%lld] = %d is not a vertex in [0, %lld] (a forest needs parent[v] <= v)",
                     call, (long long)bad, (int32_t)p[bad], (long long)bad);
}

enum { kForestChunk = 16384 }; /* vertices a thread takes at a time */

static inline int32_t parent_of(const int32_t *p, int32_t v) { return __atomic_load_n(p + v, __ATOMIC_RELAXED); }

/* Joins the trees of u and v: the larger root goes under the smaller (Afforest's link, Sutton,
 * Ben-Nun and Barak, IPDPS 2018). A failed compare-and-swap means another thread hooked that root
 * meanwhile; the walk then goes on from the roots' new parents. */
static inline void link_pair(int32_t *p, int32_t u, int32_t v) {
    int32_t a = parent_of(p, u), b = parent_of(p, v);
    while (a != b) {
        const int32_t high = a > b ? a : b, low = a > b ? b : a;
        int32_t up = parent_of(p, high);
        if (up == low) return;
        if (up == high && __atomic_compare_exchange_n(p + high, &up, low, false, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED))
            return;
        a = parent_of(p, parent_of(p, high));
        b = parent_of(p, low);
    }
}

/* u's edges first .. first + count - 1 (as many as it has) linked */
static inline void link_edges(int32_t *p, const uint64_t *off, const uint32_t *idx, uint32_t u,
                              uint32_t first, uint32_t count) {
    const uint64_t lo = off[u] + first, hi = off[u + 1];
    const uint64_t end = lo < hi && hi - lo > count ? lo + count : hi;
    for (uint64_t e = lo; e < end; e++) link_pair(p, (int32_t)u, (int32_t)idx[e]);
}

mg_status mg_forest_link(mg_context ctx, mg_vector parent, const mg_frontier mask, mg_edges which,
                         uint32_t first, uint32_t count) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (which != MG_EDGES_OUT && which != MG_EDGES_IN)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_forest_link: which must be MG_EDGES_OUT or MG_EDGES_IN (got %d)", (int)which);
    if ((status = check_forest(ctx, parent, mask, "mg_forest_link")) != MG_SUCCESS) return status;
    const uint32_t *list;
    int64_t n;
    if ((status = mask_vertices(ctx, parent, mask, "mg_forest_link: mask", &list, &n)) != MG_SUCCESS)
        return status;
    const mg__csr *adj = which == MG_EDGES_OUT ? &parent->graph->out : &parent->graph->in;
    const uint64_t *off = adj->offsets;
    const uint32_t *idx = adj->indices;
    int32_t *p = parent->data;
    /* in chunks taken in order (compression's reason, below), dynamic: degrees differ by orders
     * of magnitude on power-law graphs. A loop for a list and one for all vertices: one loop
     * choosing per vertex made compression 1.6x slower (1024^2 grid, 2 threads, session 31). */
    if (list != NULL) {
_Pragma("omp parallel for schedule(dynamic, kForestChunk)")
        for (int64_t k = 0; k < n; k++) link_edges(p, off, idx, list[k], first, count);
    } else {
_Pragma("omp parallel for schedule(dynamic, kForestChunk)")
        for (int64_t u = 0; u < n; u++) link_edges(p, off, idx, (uint32_t)u, first, count);
    }
    return MG_SUCCESS;
}

/* parent[v] = its root; a vertex already under its root is not written (its line stays clean) */
static inline void compress_one(int32_t *p, int32_t v) {
    const int32_t first = parent_of(p, v);
    int32_t up = first;
    for (int32_t next; (next = parent_of(p, up)) != up;) up = next;
    if (up != first) __atomic_store_n(p + v, up, __ATOMIC_RELAXED);
}

mg_status mg_forest_compress(mg_context ctx, mg_vector parent, const mg_frontier mask) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = check_forest(ctx, parent, mask, "mg_forest_compress")) != MG_SUCCESS) return status;
    const uint32_t *list;
    int64_t count;
    if ((status = mask_vertices(ctx, parent, mask, "mg_forest_compress: mask", &list, &count)) != MG_SUCCESS)
        return status;
    int32_t *p = parent->data;
    /* A vertex's parent only moves up its tree, so a walk that reads another's half-done one still
     * lands on its root. Parents are smaller ids: a vertex taken after its ancestors finds them
     * compressed and walks two steps, so the threads take small chunks in order (with halves of
     * the range, the second thread's first vertices would walk up through the first half's
     * uncompressed trees: a grid's whole columns). */
    if (list != NULL) {
_Pragma("omp parallel for schedule(dynamic, kForestChunk)")
        for (int64_t k = 0; k < count; k++) compress_one(p, (int32_t)list[k]);
    } else {
_Pragma("omp parallel for schedule(dynamic, kForestChunk)")
        for (int64_t v = 0; v < count; v++) compress_one(p, (int32_t)v);
    }
    return MG_SUCCESS;
}
