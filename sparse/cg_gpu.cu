/*
 * cg_gpu.cu — conjugate gradients on the device (Hestenes and Stiefel; Jacobi preconditioner
 * optional), every vector and scalar kept on the device.
 *
 * The seed's CG brought its dot products to the host every iteration (a synchronisation and two
 * PCIe round trips each). Here an iteration is two launches with nothing coming back:
 *   1. the convergence test on r'r and beta = r'z(new) / r'z(old), read by every block; then
 *      q = A p where p = z + beta p_old is formed where the product reads it (the row's owner
 *      stores p[i]: no pass of its own over p), p'q summed in the product's epilogue
 *      (mg__gpu_spmv_cg, sparse/spmv_gpu.cu); p alternates between two buffers; the owner also
 *      applies the previous iteration's x += alpha p_old, having read p_old[i] anyway (cg_finish
 *      applies the last one);
 *   2. alpha = r'z / p'q read from device memory by every block; r -= alpha q, z = D^-1 r, with
 *      r'r and r'z summed in the same pass.
 * Three launches (the direction update a kernel of its own) cost 16.7-17.3 us an iteration on
 * matrices of 250k entries, against 11-13 us for one product (docs/PERFORMANCE.md, session 13).
 * The two are chained launches (programmatic dependent launch, launch_chained in gpu_util.cuh):
 * each is scheduled while the one before runs, and the product issues its matrix loads before it
 * waits for it: on the H200, 11.9-12.2 -> 7.7-9.7 us an iteration on matrices of 250k-290k
 * entries, 12.0-13.8 -> 10.9-12.5 on the 1M-entry Poisson matrices (session 34). One launch an
 * iteration (Chronopoulos and Gear's recurrences: the vector updates formed where the product
 * gathers r, A u and A p) was 10% faster on the small matrices but 15-25% slower on 50M-entry
 * ones, whose gathers then read three vectors where these read two.
 * The scalars live in per-iteration slots (pq[k], rz[k], rr[k]), zeroed once, so no kernel has to
 * reset an accumulator and the residual history is already on the device at the end. A device
 * flag records convergence or breakdown (p'q <= 0, a non-finite scalar) and the iteration; every
 * kernel returns at once when it is set. The host launches iterations in batches of kBatch and
 * copies the flag into pinned memory after each batch, but waits on the previous batch's copy, not
 * the current one, so the device always has a batch queued: the price is up to two batches of
 * launches that return at once (a few microseconds each) after the end.
 *
 * The iterate is a device copy of x: x is written only on success or MG_NOT_CONVERGED, so a
 * breakdown leaves it as on entry. Dot products accumulate in double whatever the vectors' type.
 */
#include <cuda_runtime.h>

#include <math.h>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "frontier/gpu_engine.h"
#include "sparse/sparse_internal.h"
#include "sparse/spmv_gpu.h"

namespace {

#include "gpu_util.cuh"

constexpr int kBatch = 8;
/* The vector kernels' grid: kBlocksPerSm 256-thread blocks a multiprocessor, all resident at once,
 * each thread taking kUnroll elements a round so enough loads are in flight to stream 50M-entry
 * vectors (one element a round left them at 1.6 TB/s). */
constexpr int kBlocksPerSm = 4;
constexpr int kUnroll = 4;

template <typename D, typename S> __global__ void convert(D *dst, const S *src, uint32_t n) {
    GRID_STRIDE(i, n) dst[i] = (D)src[i];
}

/* z = D^-1 r (z is r without a preconditioner), and r'r, r'z, b'b. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
cg_start(const T *b, const T *r, T *z, const T *inv, uint32_t n, double *rr, double *rz,
         double *bb) {
    double s[3] = {0, 0, 0};
    GRID_STRIDE(i, n) {
        const T ri = r[i], zi = inv != nullptr ? ri * inv[i] : ri;
        if (inv != nullptr) z[i] = zi;
        s[0] += (double)ri * ri;
        s[1] += (double)ri * zi;
        s[2] += (double)b[i] * b[i];
    }
    double *const dst[3] = {rr, rz, bb};
    block_sums_add<3>(s, dst);
}

/* Step 2 of iteration `iter` (1-based): every block tests p'q itself, so all agree on stopping.
 * x += alpha p is left to the next product (gather_cg::own) or to cg_finish. */
template <typename T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
cg_update(T *__restrict__ r, T *__restrict__ z, const T *__restrict__ q, const T *__restrict__ inv,
          uint32_t n, const double *rz_k, const double *pq_k, double *rr_next, double *rz_next,
          int *flag, int iter) {
    chain_wait();
    if (flag[0] != MG__CG_RUNNING) return;
    const double pq = *pq_k, alpha = *rz_k / pq;
    if (!(pq > 0) || !isfinite(pq) || !isfinite(alpha)) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            flag[0] = MG__CG_BREAKDOWN_PQ;
            flag[1] = iter;
        }
        return;
    }
    const T a = (T)alpha;
    double s[2] = {0, 0};
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t base = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; base < n;
         base += kUnroll * stride) {
        T ri[kUnroll], qi[kUnroll], di[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const uint64_t i = base + u * stride;
            if (i < n) {
                ri[u] = r[i];
                qi[u] = q[i];
                if (inv != nullptr) di[u] = inv[i];
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const uint64_t i = base + u * stride;
            if (i < n) {
                const T rn = ri[u] - a * qi[u];
                r[i] = rn;
                const T zn = inv != nullptr ? rn * di[u] : rn;
                if (inv != nullptr) z[i] = zn;
                s[0] += (double)rn * rn;
                s[1] += (double)rn * zn;
            }
        }
    }
    double *const dst[2] = {rr_next, rz_next};
    block_sums_add<2>(s, dst);
}

/* The last completed iteration's step, x += alpha p, which no product applied (gather_cg::own
 * applies iteration k's in product k + 1): the iterations done are `launched` while the flag says
 * running, the converging product's iteration once it says converged, and none after a breakdown
 * (x is then not returned). p[k & 1] holds iteration k - 1's direction. */
template <typename T>
__global__ void cg_finish(T *__restrict__ x, const T *p0, const T *p1, const double *rz, const double *pq,
                          const int *flag, int launched, uint32_t n) {
    const int state = flag[0];
    const int done = state == MG__CG_RUNNING ? launched : state == MG__CG_CONVERGED ? flag[1] : 0;
    if (done == 0) return;
    const T *const p = done & 1 ? p1 : p0;
    const T a = (T)(rz[done - 1] / pq[done - 1]);
    GRID_STRIDE(i, n) x[i] = fma(a, p[i], x[i]);
}

/* Pinned host memory (the flag's copies) and an event, freed when they go out of scope. */
struct pinned_flags {
    int *p = nullptr;
    cudaEvent_t done[2] = {nullptr, nullptr};
    ~pinned_flags() {
        if (p != nullptr) cudaFreeHost(p);
        for (cudaEvent_t e : done)
            if (e != nullptr) cudaEventDestroy(e);
    }
};

struct timer_guard {
    mg__gpu_timer *t = nullptr;
    ~timer_guard() { mg__gpu_timer_free(&t); }
};

template <typename T>
mg_status cg_typed(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x,
                   const double *inv_diag, mg_cg_options *opts) {
    const uint32_t n = A->rows;
    const mg_type type = sizeof(T) == 8 ? MG_DOUBLE : MG_FLOAT;
    const int max_it = opts->max_iterations > 0 ? opts->max_iterations : 0;
    const size_t vbytes = (size_t)n * sizeof(T);
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    const void *values = nullptr;
    dbuf vecs, inv, inv_staging, scalars;
    pinned_flags flags;
    timer_guard timer;
    double ms = 0;

    TRY(mg__gpu_spmv_form_of(ctx, A, false, &g, &f));
    TRY(mg__gpu_spmv_values(ctx, g, f, type, &values));
    TRY(mg__gpu_dense_to_device(ctx, b));
    TRY(mg__gpu_dense_to_device(ctx, x));
    TRY(dbuf_alloc(ctx, &vecs, 6 * vbytes, "CG's vectors"));
    T *const xw = (T *)vecs.p, *const r = xw + n, *const z = r + n, *const q = z + n;
    T *const p[2] = {q + n, q + 2 * (size_t)n}; /* iteration k reads p[k & 1], writes the other */
    T *zr = r; /* z is r itself without a preconditioner */
    if (inv_diag != nullptr) {
        TRY(dbuf_alloc(ctx, &inv_staging, (size_t)n * 8, "the Jacobi diagonal upload"));
        TRY(dbuf_alloc(ctx, &inv, vbytes, "the Jacobi diagonal"));
        if (n > 0) CU(cudaMemcpy(inv_staging.p, inv_diag, (size_t)n * 8, cudaMemcpyHostToDevice));
        convert<<<blocks_for(n), kThreads>>>((T *)inv.p, (const double *)inv_staging.p, n);
        LAUNCHED("convert");
        zr = z;
    }
    /* rr[0..max_it], rz[0..max_it], pq[0..max_it), b'b, then the two flag words */
    const size_t nscalars = 3 * (size_t)max_it + 3;
    TRY(dbuf_alloc(ctx, &scalars, nscalars * 8 + 8, "CG's scalars"));
    double *const rr = (double *)scalars.p, *const rz = rr + max_it + 1, *const pq = rz + max_it + 1,
                  *const bb = pq + max_it;
    int *const flag = (int *)(bb + 1);
    CU(cudaMemsetAsync(scalars.p, 0, nscalars * 8 + 8));
    CU(cudaMallocHost((void **)&flags.p, 4 * sizeof(int)));
    CU(cudaEventCreateWithFlags(&flags.done[0], cudaEventDisableTiming));
    CU(cudaEventCreateWithFlags(&flags.done[1], cudaEventDisableTiming));
    TRY(mg__gpu_timer_create(ctx, &timer.t));

    const T *const inv_d = (const T *)inv.p;
    const unsigned grid = (unsigned)(blocks_for(n) < (unsigned)g->sms * kBlocksPerSm
                                         ? blocks_for(n)
                                         : (unsigned)g->sms * kBlocksPerSm);
    TRY(mg__gpu_timer_start(ctx, timer.t));
    /* r = b - A x */
    CU(cudaMemcpyAsync(xw, x->d_data, vbytes, cudaMemcpyDeviceToDevice));
    CU(cudaMemcpyAsync(r, b->d_data, vbytes, cudaMemcpyDeviceToDevice));
    TRY(mg__gpu_spmv_launch(ctx, f, type, values, MG_SEMIRING_PLUS_TIMES, -1.0, 1.0, xw, r));
    cg_start<T><<<grid, kThreads>>>((const T *)b->d_data, r, zr, inv_d, n, rr, rz, bb);
    CU(cudaMemsetAsync(p[0], 0, vbytes)); /* iteration 0's p = z + 0 p[0] */
    LAUNCHED("cg_start");
    double start[2];
    CU(cudaMemcpy(start, rr, 8, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(start + 1, bb, 8, cudaMemcpyDeviceToHost));
    const double bnorm = sqrt(start[1]);
    const double threshold = (opts->tolerance * bnorm) * (opts->tolerance * bnorm);

    int state = MG__CG_RUNNING, at = 0;
    if (bnorm == 0) {
        /* b = 0: x = 0 solves it exactly, whatever the guess */
        CU(cudaMemsetAsync(xw, 0, vbytes));
        CU(cudaMemsetAsync(rr, 0, 8));
        state = MG__CG_CONVERGED;
    } else if (start[0] <= threshold) {
        state = MG__CG_CONVERGED;
    }
    /* Batches of kBatch iterations, each followed by an asynchronous copy of the flag. While batch
     * j runs, the host reads batch j-1's copy; after the last batch, its own. The flag changes once
     * (running to a final state), so the newest copy holds the final word. */
    int launched = 0;
    for (int batch = 0; state == MG__CG_RUNNING && launched < max_it; batch++) {
        const int end = launched + kBatch < max_it ? launched + kBatch : max_it;
        for (int k = launched; k < end; k++) {
            const mg__cg_step step{zr, p[k & 1], p[(k + 1) & 1], xw, rz + k, rr + k, threshold, flag, k};
            TRY(mg__gpu_spmv_cg(ctx, f, type, values, &step, q, pq + k));
            launch_chained(true, cg_update<T>, grid, kThreads, r, zr, (const T *)q, inv_d, n,
                           (const double *)(rz + k), (const double *)(pq + k), rr + k + 1, rz + k + 1, flag, k + 1);
            LAUNCHED("cg_update");
        }
        launched = end;
        const int slot = batch & 1;
        CU(cudaMemcpyAsync(flags.p + 2 * slot, flag, 2 * sizeof(int), cudaMemcpyDeviceToHost));
        CU(cudaEventRecord(flags.done[slot], 0));
        const int check = launched == max_it ? slot : batch > 0 ? slot ^ 1 : -1;
        if (check >= 0) {
            CU(cudaEventSynchronize(flags.done[check]));
            state = flags.p[2 * check];
            at = flags.p[2 * check + 1];
        }
    }
    cg_finish<T><<<grid, kThreads>>>(xw, p[0], p[1], rz, pq, flag, launched, n);
    LAUNCHED("cg_finish");
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    opts->seconds = ms / 1e3;
    if (state == MG__CG_RUNNING && launched > 0) {
        /* the last iteration's test (the next product's prologue on the device), here */
        double last[3];
        CU(cudaMemcpy(last, rr + launched, 8, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(last + 1, rz + launched - 1, 16, cudaMemcpyDeviceToHost));
        const double beta = last[2] / last[1];
        if (last[0] <= threshold) state = MG__CG_CONVERGED;
        else if (!isfinite(last[0]) || !isfinite(beta)) state = MG__CG_BREAKDOWN_SCALAR;
        at = launched;
    }
    if (state == MG__CG_RUNNING) at = launched; /* the limit came first */

    /* a breakdown at p'q stops iteration `at` before its update: at - 1 were completed */
    const int done = state == MG__CG_BREAKDOWN_PQ ? at - 1 : at;
    opts->iterations = done;
    double rr_at = 0;
    CU(cudaMemcpy(&rr_at, rr + done, 8, cudaMemcpyDeviceToHost));
    opts->residual = bnorm > 0 ? sqrt(rr_at) / bnorm : 0;
    if (opts->residuals != nullptr) {
        CU(cudaMemcpy(opts->residuals, rr, ((size_t)done + 1) * 8, cudaMemcpyDeviceToHost));
        for (int k = 0; k <= done; k++)
            opts->residuals[k] = bnorm > 0 ? sqrt(opts->residuals[k]) / bnorm : 0;
    }
    if (state == MG__CG_BREAKDOWN_PQ || state == MG__CG_BREAKDOWN_SCALAR) {
        double value = 0;
        CU(cudaMemcpy(&value, state == MG__CG_BREAKDOWN_PQ ? pq + at - 1 : rz + at, 8,
                      cudaMemcpyDeviceToHost));
        if (state == MG__CG_BREAKDOWN_PQ)
            return mg__error(ctx, MG_BREAKDOWN,
                             "mg_cg: breakdown at iteration %d: p'Ap = %g (A is not positive "
                             "definite); x is unchanged", at, value);
        return mg__error(ctx, MG_BREAKDOWN,
                         "mg_cg: breakdown at iteration %d: a non-finite scalar (r'z = %g); x is "
                         "unchanged", at, value);
    }
    CU(cudaMemcpyAsync(x->d_data, xw, vbytes, cudaMemcpyDeviceToDevice));
    CU(cudaStreamSynchronize(0));
    if (state != MG__CG_CONVERGED)
        return mg__error(ctx, MG_NOT_CONVERGED,
                         "mg_cg: not converged after %d iterations: ||r|| / ||b|| = %g > %g", at,
                         opts->residual, opts->tolerance);
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_cg(mg_context ctx, const mg_matrix A, const mg_dense b, mg_dense x,
                                const double *inv_diag, mg_cg_options *opts) {
    if (x->type == MG_DOUBLE) return cg_typed<double>(ctx, A, b, x, inv_diag, opts);
    return cg_typed<float>(ctx, A, b, x, inv_diag, opts);
}
