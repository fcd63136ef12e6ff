/*
 * fuzz_gzip.h — a libFuzzer custom mutator for targets whose inputs may be gzipped. Mutating a
 * gzip file's bytes almost always breaks its CRC, so zlib refuses it and the text inside is never
 * parsed: half the time, an input that starts with the gzip magic is decompressed, its text
 * mutated and compressed again, so the .gz path reaches the parser with new text; the other half
 * (and any other input) gets libFuzzer's own mutations, which exercise the gzip checks (corrupt,
 * truncated, trailing garbage). Without zlib the library refuses .gz files, and this is left out.
 */
#ifndef MG_FUZZ_GZIP_H
#define MG_FUZZ_GZIP_H
#ifdef MG_FUZZ_ZLIB
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* in through zlib with a gzip wrapper into out: compressed (`deflating`) or, the first member,
 * decompressed; 0 when it does not fit in cap or is not gzip. */
static size_t fuzz_zlib(bool deflating, const uint8_t *in, size_t size, uint8_t *out, size_t cap) {
    z_stream z;
    memset(&z, 0, sizeof z);
    const int init = deflating ? deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                                              Z_DEFAULT_STRATEGY)
                               : inflateInit2(&z, 15 + 16);
    if (init != Z_OK) return 0;
    z.next_in = (uint8_t *)in;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    const int r = deflating ? deflate(&z, Z_FINISH) : inflate(&z, Z_FINISH);
    const size_t n = cap - z.avail_out;
    if (deflating) deflateEnd(&z);
    else inflateEnd(&z);
    return r == Z_STREAM_END ? n : 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    static uint8_t text[1 << 14], packed[1 << 14];
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b || seed % 2 == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t n = fuzz_zlib(false, data, size, text, sizeof text);
    if (n == 0) return LLVMFuzzerMutate(data, size, max_size);
    n = LLVMFuzzerMutate(text, n, sizeof text);
    const size_t z = fuzz_zlib(true, text, n, packed, max_size < sizeof packed ? max_size : sizeof packed);
    if (z == 0) return LLVMFuzzerMutate(data, size, max_size);
    memcpy(data, packed, z);
    return z;
}
#endif
#endif
