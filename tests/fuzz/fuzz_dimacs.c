/* fuzz_dimacs.c — libFuzzer target for the DIMACS .gr reader (problem line,
 * arcs). */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(data, size, MG_FORMAT_DIMACS);
    return 0;
}
