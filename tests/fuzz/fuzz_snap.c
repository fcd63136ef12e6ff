/* fuzz_snap.c — libFuzzer target for the SNAP edge-list reader (column
 * detection, 0-based ids, int / float weights). */
#include "fuzz_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(data, size, MG_FORMAT_SNAP);
    return 0;
}
