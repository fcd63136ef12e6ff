/* fuzz_binary.c — libFuzzer target for the .mgb binary reader (header and
 * array checks). */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(data, size, MG_FORMAT_BINARY);
    return 0;
}
