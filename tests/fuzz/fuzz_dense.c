/* fuzz_dense.c — libFuzzer target for the dense reader, mg_dense_read (Matrix Market array files
 * and plain text, one row per line; gzip when the input starts with gzip's magic byte, so it is
 * named in.gz), as float or double as the last byte says. What loads must read back equal after
 * mg_dense_write. */
#include "fuzz_read.h" /* first: it sets _POSIX_C_SOURCE */
#include "fuzz_gzip.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input(data, size, size > 0 && data[0] == 0x1f ? "in.gz" : "in");
    const mg_type type = size > 0 && data[size - 1] % 2 ? MG_FLOAT : MG_DOUBLE;
    mg_dense X = NULL, Y = NULL;
    if (mg_dense_read(fuzz_ctx, &X, path, type) != MG_SUCCESS) {
        fuzz_check_failure(X, "mg_dense_read: ", path);
        return 0;
    }
    if (mg_dense_type(X) != type) abort();
    const uint32_t rows = mg_dense_rows(X), cols = mg_dense_cols(X);
    const char *out = fuzz_path("out.mtx");
    if (mg_dense_write(fuzz_ctx, X, out) != MG_SUCCESS ||
        mg_dense_read(fuzz_ctx, &Y, out, type) != MG_SUCCESS || mg_dense_rows(Y) != rows ||
        mg_dense_cols(Y) != cols || mg_dense_type(Y) != type)
        abort();
    /* Every value back bit for bit (-0 too), any NaN as a NaN (the text keeps no payload). */
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            double a = 0, b = 0;
            if (mg_dense_get(fuzz_ctx, X, r, c, &a) != MG_SUCCESS ||
                mg_dense_get(fuzz_ctx, Y, r, c, &b) != MG_SUCCESS)
                abort();
            if (!(isnan(a) && isnan(b)) && !(a == b && signbit(a) == signbit(b))) abort();
        }
    mg_dense_free(&X);
    mg_dense_free(&Y);
    return 0;
}
