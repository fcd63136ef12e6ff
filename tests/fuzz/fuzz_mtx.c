/* fuzz_mtx.c — libFuzzer target for the Matrix Market reader (banner, size
 * line, the parallel body parser). */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(data, size, MG_FORMAT_MATRIX_MARKET);
    return 0;
}
