/* fuzz_matrix.c — libFuzzer target for the sparse matrix reader, mg_matrix_read (Matrix Market
 * coordinate: banner, size line, the parallel body parser, the symmetric mirror, the build that
 * sums duplicates; gzip when the input starts with gzip's magic byte, so it is named in.gz). The
 * values are read as none, float or double as the last byte says. A matrix that loads must keep
 * its CSR invariants (offsets monotone, columns strictly increasing within a row and < cols), have
 * a CSC with the same entries, and read back equal after mg_matrix_write. */
#include "fuzz_read.h" /* first: it sets _POSIX_C_SOURCE */
#include "fuzz_gzip.h"

#include <math.h>

static double value(const void *values, mg_values type, uint64_t e) {
    if (type == MG_VALUES_NONE) return 1;
    return type == MG_VALUES_FLOAT ? ((const float *)values)[e] : ((const double *)values)[e];
}

/* The same value: bit for bit (so -0 differs from 0), any NaN equal to any NaN (the text "nan"
 * keeps no payload). */
static bool same_value(double a, double b) {
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* off (n + 1 entries) runs from 0 to nnz without decreasing, and idx within each of its n
 * ranges strictly increases (duplicates were summed) and stays below limit. */
static void check_compressed(const uint64_t *off, const uint32_t *idx, uint32_t n, uint64_t nnz,
                             uint32_t limit) {
    if (off[0] != 0 || off[n] != nnz) abort();
    for (uint32_t r = 0; r < n; r++) {
        if (off[r] > off[r + 1]) abort();
        for (uint64_t e = off[r]; e < off[r + 1]; e++)
            if (idx[e] >= limit || (e > off[r] && idx[e] <= idx[e - 1])) abort();
    }
}

static void check_matrix(const mg_matrix A, mg_values type) {
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    if (mg_matrix_values(A) != type) abort();
    const uint64_t *ro, *co;
    const uint32_t *ri, *ci;
    const void *rv, *cv;
    if (mg_matrix_csr(A, &ro, &ri, &rv) != MG_SUCCESS) abort();
    check_compressed(ro, ri, rows, nnz, cols);
    if (mg_matrix_csc(fuzz_ctx, A, &co, &ci, &cv) != MG_SUCCESS) abort();
    check_compressed(co, ci, cols, nnz, rows);
    if ((type == MG_VALUES_NONE) != (rv == NULL) || (type == MG_VALUES_NONE) != (cv == NULL)) abort();
    /* Both hold nnz distinct entries, so finding each CSR entry in the CSC makes them equal. */
    for (uint32_t r = 0; r < rows; r++)
        for (uint64_t e = ro[r]; e < ro[r + 1]; e++) {
            const uint32_t c = ri[e];
            uint64_t lo = co[c], hi = co[c + 1];
            while (lo < hi) {
                const uint64_t mid = lo + (hi - lo) / 2;
                if (ci[mid] < r) lo = mid + 1;
                else hi = mid;
            }
            if (lo == co[c + 1] || ci[lo] != r ||
                !same_value(value(rv, type, e), value(cv, type, lo)))
                abort();
        }
}

/* A written and read back (values as A's) is A. */
static void check_round_trip(const mg_matrix A, mg_values type) {
    const char *out = fuzz_path("out.mtx");
    if (mg_matrix_write(fuzz_ctx, A, out) != MG_SUCCESS) abort();
    mg_matrix_read_options opts;
    mg_matrix_read_options_init(&opts);
    opts.values = type;
    mg_matrix B = NULL;
    if (mg_matrix_read(fuzz_ctx, &B, out, &opts) != MG_SUCCESS) abort();
    const uint32_t rows = mg_matrix_rows(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    if (mg_matrix_rows(B) != rows || mg_matrix_cols(B) != mg_matrix_cols(A) ||
        mg_matrix_nnz(B) != nnz || mg_matrix_values(B) != type || mg_matrix_declared_symmetric(B))
        abort();
    const uint64_t *ao, *bo;
    const uint32_t *ai, *bi;
    const void *av, *bv;
    mg_matrix_csr(A, &ao, &ai, &av);
    mg_matrix_csr(B, &bo, &bi, &bv);
    if (memcmp(ao, bo, ((size_t)rows + 1) * sizeof *ao) != 0) abort();
    for (uint64_t e = 0; e < nnz; e++)
        if (ai[e] != bi[e] || !same_value(value(av, type, e), value(bv, type, e))) abort();
    mg_matrix_free(&B);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input(data, size, size > 0 && data[0] == 0x1f ? "in.gz" : "in");
    mg_matrix_read_options opts;
    mg_matrix_read_options_init(&opts);
    static const mg_values types[3] = {MG_VALUES_DOUBLE, MG_VALUES_FLOAT, MG_VALUES_NONE};
    opts.values = types[size > 0 ? data[size - 1] % 3 : 0];
    /* As the graph targets' max_vertices: a few bytes must not build millions of empty rows. */
    opts.max_dimension = 1u << 16;
    mg_matrix A = NULL;
    if (mg_matrix_read(fuzz_ctx, &A, path, &opts) != MG_SUCCESS) {
        fuzz_check_failure(A, "mg_matrix_read: ", path);
        return 0;
    }
    /* A pattern file is a pattern whatever the option says. */
    const mg_values type = mg_matrix_values(A) == MG_VALUES_NONE ? MG_VALUES_NONE : opts.values;
    check_matrix(A, type);
    check_round_trip(A, type);
    mg_matrix_free(&A);
    return 0;
}
