/*
 * spmv_gpu.h — a matrix's device form and the SpMV launch that spmv_gpu.cu and cg_gpu.cu share
 * (internal, CUDA sources only).
 *
 * One orientation (A's CSR, or its CSC for A^T) is a CSR on the device plus the row binning the
 * kernels use: rows of at most long_len entries go to the stream kernel's row blocks, longer ones
 * are cut into chunks of kChunk entries, one thread block a chunk in the same launch, the row's last
 * chunk to finish combining their partial results. The CSR is uploaded on first use by any kernel;
 * the binning and the other SpMV layouts only on first use by SpMV or CG (mg__gpu_spmv_form_of):
 * SpMM, SDDMM and SpGEMM read only the CSR and its longest row's length (a host scan of a small
 * matrix's offsets, else one small launch into the slot after them, no allocation), so their
 * preprocessing holds no binning, sampling or temporary storage: on the 16 real and generated matrices of 1-2M entries whose SpMM takes the
 * row groups, K 32 on the H200, it went from 7-13 calls to 2-5 (session 38).
 * Values are kept per arithmetic type (float and double: the one the matrix was made with
 * uploaded, the other converted on the device on first use), so a float SpMV on a double matrix
 * reads 4 bytes a value, not 8.
 */
#ifndef MG_SPMV_GPU_H
#define MG_SPMV_GPU_H

extern "C" {
#include "mg_internal.h"
}

constexpr uint32_t kChunk = 2048; /* entries of a long row one thread block reduces */
/* Rows longer than kLongRow entries take the chunk path. The stream kernel's row blocks are the
 * rows starting in one bucket of kStreamBucket entries, at most kStreamMaxRows of them; no row
 * in them is longer than kLongRow, so a block holds at most bucket + kLongRow entries. Float took
 * buckets of 2048 from session 15 to 25, for the stencils and bands that now have forms of their
 * own; on the matrices left to this kernel 1024 was 5-25% faster below 2M entries (twice the
 * blocks: bcsstk16's 290k entries were 142 blocks on 132 multiprocessors) and 0-2% slower on R-MAT
 * 19-21 (A/B on an H200, session 26). */
constexpr uint32_t kLongRow = 1024;
/* The short form (no row over kShortRow entries): tiles of kShortTile<T> entries, the bucket
 * kShortRow less, streamed through a persistent grid (spmv_gpu.cu, spmv_stream_pipelined). */
constexpr uint32_t kShortRow = 64;
template <typename T> constexpr uint32_t kShortTile = sizeof(T) == 4 ? 4096 : 1536;
constexpr uint32_t kStreamBucket = 1024;
/* A matrix of fewer nonzeros than half such a bucket per multiprocessor takes buckets of
 * kSmallBucket instead: more, shorter blocks (a 50k-entry matrix was 25 blocks on 132
 * multiprocessors). Measured on the H100: 1.1-1.5x on matrices of 8k-50k entries; with the switch
 * at 4 blocks a multiprocessor instead, float matrices of 0.6M-1M entries lost 20-40%. */
constexpr uint32_t kSmallBucket = 256;
/* Big buckets of a matrix with no row over kMidRow entries take tiles of kStreamBucket + kMidRow
 * (the small buckets' tile size, so one kernel serves both): 5 load rounds a thread, not 8, most
 * of them predicated off, and less shared memory a block. A/B on the H100 (session 33): dblp-2010
 * (longest row 238) float 0.0151 -> 0.0136 ms (0.87 -> 0.98x cuSPARSE), double 0.0167 -> 0.0158;
 * bcsstk16 and bcsstk33 5-7% faster; the rest unchanged. */
constexpr uint32_t kMidRow = 256;
static_assert(kStreamBucket + kMidRow == kSmallBucket + kLongRow, "one tile for both");
constexpr uint32_t kStreamMaxRows = 1024;
/* A row of a stream block gets a group of lanes sized to the block's rows; rows of more than kSerial
 * entries a lane go to a warp each instead. */
constexpr uint32_t kSerial = 16;
constexpr int kStreamThreads = 256;
/* The diagonal form (spmv_gpu.cu, form_shaped): a matrix whose entries lie on at most kMaxDiagonals
 * diagonals (col - row) holding at least 1 / kDiagFill of their slots is stored by diagonal. */
constexpr uint32_t kMaxDiagonals = 64;
constexpr double kDiagFill = 1.2;
/* Scans of a small matrix's row offsets (the longest row; SpMM's list of long rows) are made on
 * the host, from the arrays the orientation was uploaded from: up to kHostScanRows rows a scan
 * costs 1 ns a row there, against 16-18 us for a launch and the result's copy back (H200, session
 * 41: memset, launch and an 8-byte copy 17.5 us at 2k-10k rows, 26 us at 100k; the host scan 2.0
 * us at 2k rows, 9.7 us at 10k, 96 us at 100k). */
constexpr uint32_t kHostScanRows = 16384;

struct mg__spmv_form {
    /* The upload (form_upload, with the form): what every kernel reads. */
    uint32_t n, ncols;             /* rows of this orientation, and its columns */
    uint64_t nnz;
    uint64_t *d_off;               /* n + 1 (NULL: not built yet) */
    uint32_t *d_idx;               /* nnz */
    void *d_val[2];                /* nnz floats [0], doubles [1]; NULL until made, both for a pattern */
    /* The longest row's entries, found at the upload (on the host up to kHostScanRows rows, else
     * by one reduction on the device): SpMM's rule (spmm_gpu.cu, rows_lanes) asks whether a row
     * is over kLongRow without the layout below. */
    uint64_t max_row;
    size_t bytes;                  /* device memory held (the upload's and the layout's) */
    uint32_t sms;                  /* the device's multiprocessors */
    /* The SpMV layout (everything below; mg__gpu_spmv_form_of, on the first SpMV or CG): all
     * zero until laid_out. */
    bool laid_out;
    uint32_t *d_off32;             /* n + 1, the same in 32 bits where nnz < 2^32 (else NULL) */
    uint32_t long_len;             /* rows longer than this take the chunk path */
    uint32_t nlong, nchunks;
    uint32_t *d_long_rows;         /* nlong row ids */
    uint32_t *d_long_first;        /* nlong + 1: each long row's first chunk */
    uint32_t *d_chunk_long;        /* nchunks: the chunk's long row (an index into d_long_rows) */
    uint32_t *d_arrive;            /* nlong: the chunks of the row done in this call (0 after it) */
    uint64_t *d_chunk_begin;       /* nchunks: the chunk's first entry */
    double *d_partial;             /* nchunks: each chunk's reduction */
    uint32_t bucket[2];            /* the stream blocks' bucket, for float [0] and double [1] */
    uint32_t tile[2];              /* the stream kernel's tile (entries a block can hold) */
    bool short_rows;               /* the short form: no row over kShortRow, nnz < 2^32 */
    uint32_t *d_blk_e[2];          /* short form: nblk + 1 each, each block's first entry, then nnz */
    uint32_t nblk[2];              /* the stream kernel's row blocks, for float [0] and double [1] */
    uint32_t *d_blk_row[2];        /* nblk + 1 each: each block's first row, then n */
    /* The row blocks' arrays above are carved from these allocations: a small matrix's all from
     * d_pack; a larger one's row blocks (both types) from d_pack, the 32-bit offsets and the short
     * form's from d_pack_short, the long rows' and chunks' from d_pack_long (each NULL where not used). */
    void *d_pack, *d_pack_short, *d_pack_long;
    /* The diagonal form (DIA): ndiag > 0 when used, and then the row blocks above are not made.
     * Diagonal d holds the entries (i, i + diag_off[d]) at d * n + i (0 where none), with bit i % 32
     * of word d * ceil(n / 32) + i / 32 of d_diag_mask set where the entry exists. */
    uint32_t ndiag;
    int32_t diag_off[kMaxDiagonals]; /* ascending */
    void *d_diag_pack;             /* one allocation: the matrix's own type's values, then the bits */
    uint32_t *d_diag_mask;
    void *d_diag_val[2];           /* ndiag * n floats [0], doubles [1]; NULL until made, both for a pattern */
    /* The profile form: every row one run of consecutive columns; d_first (NULL when not used: then
     * the row blocks above are made) holds each row's first column. */
    uint32_t *d_first;
    /* Rows of nearly one length (form_bins): spmv_vector, a group of lanes a row; the row blocks above
     * are not kept. */
    bool csr_vector;
    /* Hub-first columns (spmv_gpu.cu, form_hub_first; NULL when not used): for float products on
     * the stream kernel's big buckets, the columns numbered by falling count. d_hub_idx and
     * d_hub_val (NULL for a pattern) are the entries with their new column ids, each row's sorted
     * by them; d_col_order[p] is the old id of new column p, d_xr room for x in the new order
     * (ncols floats), made by each product. d_idx and d_val keep the CSR for the rest. */
    uint32_t *d_hub_idx;
    float *d_hub_val;
    uint32_t *d_col_order;
    float *d_xr;
};

/* sparse/spmm_gpu.cu's SpMM / SDDMM forms (row panels, dense tiles) of the CSR and CSC. */
struct mg__spmm_forms;
void mg__spmm_forms_free(mg__spmm_forms *s);

struct mg__gpu_matrix {
    mg_values values;
    int sms;                       /* multiprocessors: the persistent grid's size */
    mg__spmv_form csr, csc;        /* csc.d_off NULL until the first transposed product */
    double seconds, upload_seconds;
    mg__spmm_forms *spmm;          /* NULL until the first SpMM / SDDMM */
};

/* A's device form (built and cached on A on first use) and the orientation op(A) needs (the CSC
 * built on first use for transpose): the upload only, which is all SpMM, SDDMM and SpGEMM read. */
mg_status mg__gpu_matrix_of(mg_context ctx, const mg_matrix A, bool transpose, mg__gpu_matrix **g,
                            mg__spmv_form **f);

/* The host CSR op(A)'s device form is uploaded from: A's, or for transpose A's CSC (made and kept
 * on A by the upload). */
mg_status mg__gpu_host_orientation(mg_context ctx, const mg_matrix A, bool transpose, const uint64_t **off,
                                   const uint32_t **idx);

/* mg__gpu_matrix_of with the orientation's SpMV layout built too (on first use, timed into
 * g->seconds), as the SpMV entry points below need. A failed layout build gives back what it made
 * and leaves the upload as it was, so a later call builds it again. */
mg_status mg__gpu_spmv_form_of(mg_context ctx, const mg_matrix A, bool transpose, mg__gpu_matrix **g,
                               mg__spmv_form **f);

/* f's values in arithmetic type t (MG_FLOAT or MG_DOUBLE), converted on the device on first use;
 * NULL for a pattern. */
mg_status mg__gpu_form_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f, mg_type t,
                              const void **values);

/* The values an SpMV launch of f (laid out: mg__gpu_spmv_form_of) reads in type t (its diagonals'
 * for the diagonal form, else mg__gpu_form_values's), converted on the device on first use; NULL for
 * a pattern. */
mg_status mg__gpu_spmv_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f, mg_type t,
                              const void **values);

/* Launches (default stream, no wait) y = alpha * (op(A) x) + beta * y over the semiring (beta 0
 * never reads y), with x and y device arrays of type t and values from mg__gpu_spmv_values. */
mg_status mg__gpu_spmv_launch(mg_context ctx, const mg__spmv_form *f, mg_type t, const void *values,
                              mg_semiring semiring, double alpha, double beta, const void *x,
                              void *y);

/* CG's state word flag[0] (flag[1]: the iteration it changed at). */
enum { MG__CG_RUNNING = 0, MG__CG_CONVERGED, MG__CG_BREAKDOWN_PQ, MG__CG_BREAKDOWN_SCALAR };

/* Iteration `iter` (0-based) of CG's product with its direction update folded in (sparse/cg_gpu.cu):
 * q = A p with p = z + beta p_old gathered where a row reads it (no pass of its own over p), p
 * stored into p_new by each row's owner, and *pq += p'q. beta = rz[iter] / rz[iter - 1] (0 at
 * iteration 0, where p_old must be zero). The owner also applies the previous iteration's step to
 * the iterate, x += alpha p_old with alpha = rz[iter - 1] / pq[-1] (from iteration 1 on), since it
 * reads p_old[i] anyway; the caller applies the last iteration's. From iteration 1 on the kernels
 * first test rr[iter] against threshold (or a non-finite scalar) and, instead of the product, set
 * flag to CONVERGED (or BREAKDOWN_SCALAR) with flag[1] = iter. Nothing runs once flag[0] is not
 * RUNNING. */
struct mg__cg_step {
    const void *z, *p_old;
    void *p_new, *x;
    const double *rz, *rr; /* &rz[iter], &rr[iter] */
    double threshold;
    int *flag;
    int iter;
};
mg_status mg__gpu_spmv_cg(mg_context ctx, const mg__spmv_form *f, mg_type t, const void *values,
                          const mg__cg_step *step, void *q, double *pq);

#endif /* MG_SPMV_GPU_H */
