/*
 * text_reader.c — the machinery under the Matrix Market, SNAP and DIMACS readers: opening and
 * mapping files, and parsing an edge-list body in parallel.
 *
 * The body is cut into chunks at line boundaries. Pass 1 (parallel) counts each chunk's lines and
 * edge lines; prefix sums give every chunk its first line number and its first slot in the coo,
 * so pass 2 (parallel) parses straight into the final arrays with hand-written number parsers
 * (strtod only for real values that are not plain decimals). Each chunk stops at its first error
 * and keeps it; the error of the lowest-numbered failing chunk is the first in file order.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include "dist.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef MG_HAVE_ZLIB
#include <zlib.h>
#endif

#define NUL_MESSAGE "NUL byte at column %lld: binary data, not a text file"

/* ---- files ------------------------------------------------------------------------------------- */

mg_status mg__io_open_regular(mg_context ctx, const char *path, int *fd, uint64_t *size) {
    *fd = -1;
    *size = 0;
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_read: cannot open %s: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_read: cannot stat %s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(f);
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_read: %s is a directory, not a graph file",
                         path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_read: %s is not a regular file", path);
    }
    *fd = f;
    *size = (uint64_t)st.st_size;
    return MG_SUCCESS;
}

/* Reads a stream (a pipe, or a file whose size says 0) to its end into a growing buffer. */
static mg_status read_stream(mg_context ctx, const char *call, const char *path, int fd,
                             mg__mapped_file *file) {
    mg_status status = MG_SUCCESS;
    size_t cap = 1 << 16, size = 0;
    char *buf = mg__malloc(cap);
    for (;;) {
        if (buf == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory reading %s (%zu bytes so far)",
                     call, path, size);
        if (size == cap) {
            char *grown = cap > SIZE_MAX / 2 ? NULL : mg__realloc(buf, cap * 2);
            if (grown == NULL) mg__free(buf);
            buf = grown;
            cap *= 2;
            continue;
        }
        ssize_t got = read(fd, buf + size, cap - size);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            MG__FAIL(ctx, MG_IO_ERROR, "%s: error reading %s: %s", call, path, strerror(errno));
        if (got == 0) break;
        size += (size_t)got;
    }
    file->base = buf;
    file->base_size = size;
    file->read = true;
    buf = NULL;

cleanup:
    mg__free(buf);
    return status;
}

bool mg__io_gzipped(const char *path) {
    const size_t len = strlen(path);
    return len > 3 && mg__io_token_is(path + len - 3, path + len, ".gz");
}

/* A gzipped file decompresses to at most this many bytes: deflate can reach ~1000:1, but text
 * matrices and graphs compress 3-10:1, so past this it is a "zip bomb" or not a real input, and it
 * stops before the memory is spent. */
static uint64_t gunzip_limit(uint64_t compressed) {
    return compressed > (UINT64_MAX - ((uint64_t)1 << 30)) / 256 ? UINT64_MAX
                                                                   : 256 * compressed + ((uint64_t)1 << 30);
}

#ifdef MG_HAVE_ZLIB
/* Replaces file's compressed bytes with what they decompress to (gzip members one after another,
 * as gzip -c a b > c makes). */
static mg_status gunzip(mg_context ctx, const char *call, const char *path, mg__mapped_file *file) {
    mg_status status = MG_SUCCESS;
    z_stream z;
    memset(&z, 0, sizeof z);
    bool started = false;
    char *out = NULL;
    const unsigned char *in = (const unsigned char *)file->base;
    const size_t in_size = file->base_size;
    const uint64_t limit = gunzip_limit(in_size);
    if (in_size < 2 || in[0] != 0x1f || in[1] != 0x8b)
        MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s: not a valid gzip file (it does not start with the "
                 "gzip magic bytes; a name ending in .gz is read as gzip)", call, path);
    if (inflateInit2(&z, 15 + 16) != Z_OK) /* 16: a gzip wrapper, not zlib's */
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory starting to decompress %s", call, path);
    started = true;
    size_t cap = in_size < ((size_t)1 << 16) ? (size_t)1 << 16 : in_size * 4, size = 0;
    if ((uint64_t)cap > limit) cap = (size_t)limit;
    out = mg__malloc(cap);
    if (out == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory decompressing %s", call, path);
    size_t consumed = 0;
    for (;;) {
        if (size == cap) {
            if ((uint64_t)size >= limit)
                MG__FAIL(ctx, MG_PARSE_ERROR,
                         "%s: %s: decompresses to more than %llu bytes (256 times its %zu bytes "
                         "+ 1 GiB): refused as a likely gzip bomb",
                         call, path, (unsigned long long)limit, in_size);
            size_t grown = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            if ((uint64_t)grown > limit) grown = (size_t)limit;
            char *bigger = mg__realloc(out, grown);
            if (bigger == NULL)
                MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                         "%s: out of memory decompressing %s (%zu bytes so far)", call, path, size);
            out = bigger;
            cap = grown;
        }
        /* avail_in/avail_out are 32-bit: feed at most 1 GiB at a time */
        const size_t in_left = in_size - consumed, out_left = cap - size;
        z.next_in = (unsigned char *)in + consumed;
        z.avail_in = (uInt)(in_left < ((size_t)1 << 30) ? in_left : (size_t)1 << 30);
        z.next_out = (unsigned char *)out + size;
        z.avail_out = (uInt)(out_left < ((size_t)1 << 30) ? out_left : (size_t)1 << 30);
        const uInt in_before = z.avail_in, out_before = z.avail_out;
        const int r = inflate(&z, Z_NO_FLUSH);
        consumed += in_before - z.avail_in;
        size += out_before - z.avail_out;
        if (r == Z_STREAM_END) {
            /* another member may follow; anything else after the last one is garbage */
            if (consumed == in_size) break;
            if (in_size - consumed < 2 || in[consumed] != 0x1f || in[consumed + 1] != 0x8b)
                MG__FAIL(ctx, MG_PARSE_ERROR,
                         "%s: %s: not a valid gzip file (%zu bytes of trailing garbage after "
                         "the compressed data)", call, path, in_size - consumed);
            inflateReset(&z);
            continue;
        }
        if (r == Z_MEM_ERROR)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory decompressing %s", call, path);
        if (r == Z_DATA_ERROR || r == Z_NEED_DICT)
            MG__FAIL(ctx, MG_PARSE_ERROR, "%s: %s: not a valid gzip file (corrupt data after %zu "
                     "decompressed bytes: %s)", call, path, size, z.msg ? z.msg : "data error");
        if (r == Z_BUF_ERROR && consumed == in_size)
            MG__FAIL(ctx, MG_PARSE_ERROR,
                     "%s: %s: truncated gzip file (the compressed data ends early, after %zu "
                     "decompressed bytes)", call, path, size);
        if (r != Z_OK && r != Z_BUF_ERROR)
            MG__FAIL(ctx, MG_INTERNAL_ERROR, "%s: %s: zlib's inflate failed (%d)", call, path, r);
    }
    mg__io_unmap(file);
    file->base = out;
    file->base_size = size;
    file->read = true;
    out = NULL;

cleanup:
    if (started) inflateEnd(&z);
    mg__free(out);
    return status;
}
#else
static mg_status gunzip(mg_context ctx, const char *call, const char *path, mg__mapped_file *file) {
    (void)file;
    (void)gunzip_limit;
    return mg__error(ctx, MG_UNAVAILABLE,
                     "%s: %s is gzipped, but this mgraph was built without zlib (install zlib's "
                     "development files and rebuild, or gunzip it first)", call, path);
}
#endif

mg_status mg__io_map(mg_context ctx, const char *call, const char *path, mg__mapped_file *file) {
    mg_status status = MG_SUCCESS;
    memset(file, 0, sizeof *file);
    file->path = path;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot open %s: %s", call, path, strerror(errno));
    if (fstat(fd, &st) != 0)
        MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot stat %s: %s", call, path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        MG__FAIL(ctx, MG_IO_ERROR, "%s: %s is a directory, not a %s file", call, path,
                 strcmp(call, "mg_graph_read") == 0 ? "graph" : "matrix");
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX)
            MG__FAIL(ctx, MG_IO_ERROR, "%s: %s is too large to map", call, path);
        /* Writable but private: only a CR-only file is written to, and then only its copy. */
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot map %s: %s", call, path, strerror(errno));
        file->base = map;
        file->base_size = (size_t)st.st_size;
    } else if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        MG__TRY(read_stream(ctx, call, path, fd, file));
    } else {
        MG__FAIL(ctx, MG_IO_ERROR, "%s: %s is not a regular file or a pipe (a device?)", call,
                 path);
    }
    if (mg__io_gzipped(path)) MG__TRY(gunzip(ctx, call, path, file));

    char *text = file->base;
    size_t size = file->base_size;
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* the UTF-8 byte-order mark */
        text += 3;
        size -= 3;
    }
    if (size >= 2 && (memcmp(text, "\xFF\xFE", 2) == 0 || memcmp(text, "\xFE\xFF", 2) == 0)) {
        status = mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, 1,
                                  "UTF-16 text (it starts with a UTF-16 byte-order mark): save "
                                  "the file as UTF-8 or ASCII");
        goto cleanup;
    }
    if (size == 0) {
        status = mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, 1, "the file is empty");
        goto cleanup;
    }
    if (memchr(text, '\n', size) == NULL) { /* '\r' line ends (or one line): make them '\n' */
        for (size_t i = 0; i < size; i++)
            if (text[i] == '\r') text[i] = '\n';
    }
    file->data = text;
    file->size = size;

cleanup:
    if (fd >= 0) close(fd); /* a mapping keeps the file alive */
    if (status != MG_SUCCESS) mg__io_unmap(file);
    return status;
}

void mg__io_unmap(mg__mapped_file *file) {
    if (file->read)
        mg__free(file->base);
    else if (file->base != NULL)
        munmap(file->base, file->base_size);
    file->base = NULL;
    file->base_size = 0;
    file->read = false;
    file->data = NULL;
    file->size = 0;
}

mg_status mg__io_check_text(mg_context ctx, const char *call, const char *path, uint64_t line,
                            const char *begin, const char *end) {
    const char *nul = memchr(begin, '\0', (size_t)(end - begin));
    if (nul == NULL) return MG_SUCCESS;
    return mg__io_fail_line(ctx, MG_PARSE_ERROR, call, path, line,
                            NUL_MESSAGE,
                            (long long)(nul - begin) + 1);
}

uint64_t mg__io_size_limit(uint64_t option, const char *option_name, const char *what,
                           uint64_t most, const char *most_why, uint64_t file_bytes, char *why,
                           size_t why_size) {
    uint64_t limit;
    if (option != 0) {
        limit = option;
        snprintf(why, why_size, "%s allows %llu %s", option_name, (unsigned long long)limit, what);
    } else {
        limit = file_bytes > (UINT64_MAX - MG__IO_DEFAULT_VERTICES) / MG__IO_VERTICES_PER_BYTE
                    ? UINT64_MAX
                    : MG__IO_DEFAULT_VERTICES + MG__IO_VERTICES_PER_BYTE * file_bytes;
        snprintf(why, why_size,
                 "a file of %llu bytes may declare at most %llu %s (2^22 + 4 per byte, "
                 "against corrupt headers; %s raises it)",
                 (unsigned long long)file_bytes,
                 (unsigned long long)(limit < most ? limit : most), what, option_name);
    }
    if (limit >= most) {
        limit = most;
        snprintf(why, why_size, "%s", most_why);
    }
    return limit;
}

uint64_t mg__io_vertex_limit(const mg_read_options *opts, uint64_t file_bytes, char *why,
                             size_t why_size) {
    char most_why[80];
    snprintf(most_why, sizeof most_why, "a graph has at most %llu vertices",
             (unsigned long long)MG__IO_MAX_VERTICES);
    return mg__io_size_limit(opts->max_vertices,
                             "the read option max_vertices (mgraph --max-vertices)", "vertices",
                             MG__IO_MAX_VERTICES, most_why, file_bytes, why, why_size);
}

mg_status mg__io_fail_line(mg_context ctx, mg_status status, const char *call, const char *path,
                           uint64_t line, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mg__error(ctx, status, "%s: %s:%llu: %s", call, path, (unsigned long long)line, msg);
}

bool mg__next_line(mg__line_cursor *c, const char **begin, const char **stop, uint64_t *number) {
    if (c->p >= c->end) return false;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    const char *le = nl ? nl : c->end;
    const char *s = le;
    while (s > c->p && s[-1] == '\r') s--;
    *begin = c->p;
    *stop = s;
    *number = c->line++;
    c->p = nl ? nl + 1 : c->end;
    return true;
}

/* ---- tokens ------------------------------------------------------------------------------------ */

static inline const char *skip_space(const char *p, const char *end) {
    while (p < end && mg__io_space(*p)) p++;
    return p;
}

static inline const char *token_end(const char *p, const char *end) {
    while (p < end && !mg__io_space(*p)) p++;
    return p;
}

static inline bool is_digit(char c) { return (unsigned)(c - '0') < 10u; }

int mg__io_parse_u64(const char **pp, const char *end, uint64_t *value) {
    const char *p = skip_space(*pp, end);
    if (p == end) return MG__TOK_MISSING;
    if (!is_digit(*p)) return (*p == '-' && p + 1 < end && is_digit(p[1])) ? MG__TOK_NEGATIVE
                                                                            : MG__TOK_BAD;
    uint64_t v = 0;
    bool overflow = false;
    for (; p < end && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) overflow = true;
        v = v * 10 + d;
    }
    if (p < end && !mg__io_space(*p)) return MG__TOK_BAD; /* "12x", "1.5" */
    if (overflow) return MG__TOK_OVERFLOW;
    *value = v;
    *pp = p;
    return MG__TOK_OK;
}

/* A signed integer token; MG__TOK_OVERFLOW outside int64. */
static inline int parse_i64(const char **pp, const char *end, int64_t *value) {
    const char *p = skip_space(*pp, end);
    if (p == end) return MG__TOK_MISSING;
    bool neg = false;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p == end || !is_digit(*p)) return MG__TOK_BAD;
    const uint64_t max = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    bool overflow = false;
    for (; p < end && is_digit(*p); p++) {
        const unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10) overflow = true; /* v stays bounded while the digits run on */
        else v = v * 10 + d;
    }
    if (p < end && !mg__io_space(*p)) return MG__TOK_BAD;
    if (overflow) return MG__TOK_OVERFLOW;
    *value = neg && v > 0 ? -(int64_t)(v - 1) - 1 : (int64_t)v;
    *pp = p;
    return MG__TOK_OK;
}

/* A signed integer token; MG__TOK_OVERFLOW outside int32. */
static inline int parse_i32(const char **pp, const char *end, int32_t *value) {
    const char *p = *pp;
    int64_t v = 0;
    int r = parse_i64(&p, end, &v);
    if (r != MG__TOK_OK) return r;
    if (v > INT32_MAX || v < INT32_MIN) return MG__TOK_OVERFLOW;
    *value = (int32_t)v;
    *pp = p;
    return MG__TOK_OK;
}

static const double pow10_table[19] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                       1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                       1e14, 1e15, 1e16, 1e17, 1e18};

/* A real token. Plain decimals of up to 15 digits are exact as mantissa / 10^k (both exact
 * doubles, one correctly rounded division); anything else (exponents, nan, inf, long mantissas)
 * goes to strtod on a NUL-terminated copy, since the mapping has no terminator. */
static inline int parse_real(const char **pp, const char *end, double *value) {
    const char *p = skip_space(*pp, end);
    if (p == end) return MG__TOK_MISSING;
    const char *stop = token_end(p, end);
    const char *s = p;
    bool neg = false;
    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        s++;
    }
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    for (; s < stop && is_digit(*s); s++, digits++) mant = digits < 18 ? mant * 10 + (uint64_t)(*s - '0') : mant;
    if (s < stop && *s == '.') {
        for (s++; s < stop && is_digit(*s); s++, digits++, frac++)
            mant = digits < 18 ? mant * 10 + (uint64_t)(*s - '0') : mant;
    }
    if (s == stop && digits > 0 && digits <= 15) {
        double v = (double)mant / pow10_table[frac];
        *value = neg ? -v : v;
        *pp = stop;
        return MG__TOK_OK;
    }
    char buf[64];
    size_t len = (size_t)(stop - p);
    if (len >= sizeof buf) return MG__TOK_BAD;
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *endp = NULL;
    double v = strtod(buf, &endp);
    if (endp != buf + len) return MG__TOK_BAD;
    *value = v;
    *pp = stop;
    return MG__TOK_OK;
}

int mg__io_parse_real(const char **p, const char *end, double *value) {
    return parse_real(p, end, value);
}

int mg__io_parse_i64(const char **p, const char *end, int64_t *value) {
    return parse_i64(p, end, value);
}

/* ---- chunks ------------------------------------------------------------------------------------ */

typedef struct {
    const char *begin, *end;
    uint64_t newlines, entries;         /* pass 1                                  */
    uint64_t first_line, first_entry;   /* prefix sums (entries: this rank's)      */
    uint64_t entry_shift;               /* entries in the ranks before this one    */
    uint64_t max_id;                    /* largest id as written (0-based formats) */
    bool real_seen;                     /* MG__WCOL_AUTO: this chunk stores floats */
    mg_status status;
    uint64_t error_line;
    char message[400];
} chunk;

static inline bool is_comment(mg__text_kind kind, char c) {
    switch (kind) {
    case MG__TEXT_MATRIX_MARKET: return c == '%';
    case MG__TEXT_SNAP: return c == '#' || c == '%';
    default: return c == 'c';
    }
}

static void count_chunk(const mg__text_body *b, chunk *ch) {
    const char *p = ch->begin, *end = ch->end;
    uint64_t newlines = 0, entries = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = skip_space(p, le);
        if (s < le && !is_comment(b->kind, *s)) entries++;
        if (nl == NULL) break;
        newlines++;
        p = nl + 1;
    }
    ch->newlines = newlines;
    ch->entries = entries;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool chunk_fail(chunk *ch, uint64_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ch->message, sizeof ch->message, fmt, ap);
    va_end(ap);
    ch->status = MG_PARSE_ERROR;
    ch->error_line = line;
    return false;
}

/* The token at p (after spaces), at most 40 characters, as "%.*s" arguments for messages. */
static const char *tok_at(const char *p, const char *le) { return skip_space(p, le); }
static int tok_len(const char *p, const char *le) {
    const char *t = skip_space(p, le);
    ptrdiff_t n = token_end(t, le) - t;
    return n > 40 ? 40 : (int)n;
}
#define TOKEN_ARGS(p, le) tok_len((p), (le)), tok_at((p), (le))

static int count_tokens(const char *p, const char *le) {
    int n = 0;
    for (p = skip_space(p, le); p < le; p = skip_space(token_end(p, le), le)) n++;
    return n;
}

static const char *const id_names[3][2] = {
    {"row index", "column index"}, {"source id", "destination id"}, {"arc tail", "arc head"}};

/* Complains about a line whose column count differs from what the file needs. */
static bool wrong_columns(const mg__text_body *b, chunk *ch, const char *line_begin,
                          const char *le, uint64_t line) {
    int have = count_tokens(line_begin, le);
    if (b->kind == MG__TEXT_SNAP)
        return chunk_fail(ch, line,
                          "the line has %d column%s but the first edge line (line %llu) has %d: "
                          "every edge line needs the same columns",
                          have, have == 1 ? "" : "s", (unsigned long long)b->columns_line,
                          b->columns);
    int need = (b->kind == MG__TEXT_DIMACS ? 3 : 2) + (b->weights != MG__WCOL_NONE ? 1 : 0);
    if (have < need)
        return chunk_fail(ch, line, "truncated line: %d column%s where %d are needed", have,
                          have == 1 ? "" : "s", need);
    const char *extra = skip_space(line_begin, le);
    for (int i = 0; i < need; i++) extra = skip_space(token_end(extra, le), le);
    return chunk_fail(ch, line, "unexpected extra text '%.*s' after %d columns",
                      TOKEN_ARGS(extra, le), need);
}

static bool read_id(const mg__text_body *b, chunk *ch, const char **p, const char *le,
                    const char *line_begin, uint64_t line, int which, uint32_t *out) {
    const char *name = id_names[b->kind][which];
    const char *at = *p;
    uint64_t v = 0;
    int r = mg__io_parse_u64(p, le, &v);
    if (r == MG__TOK_MISSING) return wrong_columns(b, ch, line_begin, le, line);
    if (r == MG__TOK_BAD)
        return chunk_fail(ch, line, "%s '%.*s' is not a non-negative integer", name,
                          TOKEN_ARGS(at, le));
    if (r == MG__TOK_NEGATIVE)
        return chunk_fail(ch, line, "%s '%.*s' is negative", name, TOKEN_ARGS(at, le));
    if (r == MG__TOK_OVERFLOW)
        return chunk_fail(ch, line, "%s '%.*s' is too large", name, TOKEN_ARGS(at, le));
    const uint64_t max = which == 0 ? b->row_max : b->col_max;
    if (b->one_based) {
        if (v == 0) return chunk_fail(ch, line, "%s 0: ids in this format start at 1", name);
        if (v > max)
            return chunk_fail(ch, line, "%s %llu is out of range [1, %llu]", name,
                              (unsigned long long)v, (unsigned long long)max);
        *out = (uint32_t)(v - 1);
    } else {
        if (v > max)
            return chunk_fail(ch, line, "%s %llu is too large: %s", name, (unsigned long long)v,
                              b->limit_why);
        if (v > ch->max_id) ch->max_id = v;
        *out = (uint32_t)v;
    }
    return true;
}

static void ints_to_floats(uint32_t *bits, uint64_t lo, uint64_t hi) {
    for (uint64_t k = lo; k < hi; k++) {
        float f = (float)(int32_t)bits[k];
        memcpy(&bits[k], &f, sizeof f);
    }
}

static bool read_weight(const mg__text_body *b, chunk *ch, const char **p, const char *le,
                        const char *line_begin, uint64_t line, uint64_t k, uint32_t *wbits) {
    const char *at = *p;
    const char *tok = skip_space(at, le);
    if (tok == le) return wrong_columns(b, ch, line_begin, le, line);
    if (b->weights == MG__WCOL_SKIP) {
        *p = token_end(tok, le);
        return true;
    }
    int r;
    if (b->weights == MG__WCOL_INT || (b->weights == MG__WCOL_AUTO && !ch->real_seen)) {
        int32_t v = 0;
        r = parse_i32(p, le, &v);
        if (r == MG__TOK_OK) {
            if (v < 0 && !b->allow_negative)
                return chunk_fail(ch, line,
                                  "negative weight '%.*s' (accepted with "
                                  "opts->allow_negative_weights; mgraph --allow-negative-weights)",
                                  TOKEN_ARGS(at, le));
            wbits[k] = (uint32_t)v;
            return true;
        }
        if (b->weights == MG__WCOL_INT) {
            if (r == MG__TOK_OVERFLOW)
                return chunk_fail(ch, line, "integer weight '%.*s' is outside the int32 range",
                                  TOKEN_ARGS(at, le));
            return chunk_fail(ch, line, "weight '%.*s' is not an integer", TOKEN_ARGS(at, le));
        }
        /* AUTO: not an int32, so the file's weights are real; what this chunk stored so far
         * becomes float (an exact integer rounds to float as its decimal text would). */
        ints_to_floats(wbits, ch->first_entry, k);
        ch->real_seen = true;
    }
    double d = 0;
    r = parse_real(p, le, &d);
    if (r != MG__TOK_OK)
        return chunk_fail(ch, line, "weight '%.*s' is not a number", TOKEN_ARGS(at, le));
    float f = (float)d;
    if (!isfinite(d) || !isfinite(f))
        return chunk_fail(ch, line, "weight '%.*s' is not a finite float", TOKEN_ARGS(at, le));
    if (d < 0 && !b->allow_negative)
        return chunk_fail(ch, line,
                          "negative weight '%.*s' (accepted with opts->allow_negative_weights; "
                          "mgraph --allow-negative-weights)",
                          TOKEN_ARGS(at, le));
    memcpy(&wbits[k], &f, sizeof f);
    return true;
}

/* A matrix's value (b->values set) into entry k of values (float or double): an integer field's
 * token must be an integer (int64), a real field's anything strtod reads, inf and nan included;
 * a finite value outside float's range fails for a float matrix rather than become inf. */
static bool read_value(const mg__text_body *b, chunk *ch, const char **p, const char *le,
                       const char *line_begin, uint64_t line, uint64_t k, void *values,
                       double *value) {
    const char *at = *p;
    if (skip_space(at, le) == le) return wrong_columns(b, ch, line_begin, le, line);
    double d = 0;
    if (b->weights == MG__WCOL_INT) {
        int64_t v = 0;
        int r = parse_i64(p, le, &v);
        if (r == MG__TOK_OVERFLOW)
            return chunk_fail(ch, line, "integer value '%.*s' is outside the int64 range",
                              TOKEN_ARGS(at, le));
        if (r != MG__TOK_OK)
            return chunk_fail(ch, line, "value '%.*s' is not an integer (the file's field is "
                              "'integer')", TOKEN_ARGS(at, le));
        d = (double)v;
    } else if (parse_real(p, le, &d) != MG__TOK_OK) {
        return chunk_fail(ch, line, "value '%.*s' is not a number", TOKEN_ARGS(at, le));
    }
    if (b->values == MG_VALUES_DOUBLE) {
        ((double *)values)[k] = d;
    } else {
        const float f = (float)d;
        if (isfinite(d) && !isfinite(f))
            return chunk_fail(ch, line, "value '%.*s' is outside the float range (read the "
                              "matrix as double)", TOKEN_ARGS(at, le));
        ((float *)values)[k] = f;
    }
    *value = d;
    return true;
}

/* Parses the non-blank, non-comment line [line_begin, le) into entry k. */
static bool parse_line(const mg__text_body *b, chunk *ch, const char *line_begin, const char *le,
                       const char *q, uint64_t line, uint64_t k, uint32_t *src, uint32_t *dst,
                       uint32_t *wbits) {
    if (b->kind == MG__TEXT_DIMACS) {
        if (*q != 'a' || q + 1 == le || !mg__io_space(q[1])) {
            if (*q == 'p' && (q + 1 == le || mg__io_space(q[1])))
                return chunk_fail(ch, line, "a second problem line ('p')");
            return chunk_fail(ch, line, "unknown line '%.*s' (expected 'a', 'c' or 'p')",
                              TOKEN_ARGS(q, le));
        }
        q++;
    }
    if (k + ch->entry_shift >= b->declared)
        return chunk_fail(ch, line, "more entries than the %llu declared on line %llu",
                          (unsigned long long)b->declared, (unsigned long long)b->declared_line);
    if (!read_id(b, ch, &q, le, line_begin, line, 0, &src[k])) return false;
    if (!read_id(b, ch, &q, le, line_begin, line, 1, &dst[k])) return false;
    if (b->values != MG_VALUES_NONE) {
        const char *at = q;
        double v = 0;
        if (!read_value(b, ch, &q, le, line_begin, line, k, wbits, &v)) return false;
        if (b->skew_symmetric && src[k] == dst[k] && v != 0)
            return chunk_fail(ch, line, "a skew-symmetric matrix has zeros on its diagonal, but "
                              "entry (%u, %u) is '%.*s'", src[k] + 1, dst[k] + 1,
                              TOKEN_ARGS(at, le));
    } else if (b->weights != MG__WCOL_NONE &&
               !read_weight(b, ch, &q, le, line_begin, line, k, wbits)) {
        return false;
    }
    q = skip_space(q, le);
    if (q == le) return true;
    if (b->kind == MG__TEXT_SNAP) return wrong_columns(b, ch, line_begin, le, line);
    return chunk_fail(ch, line, "unexpected extra text '%.*s' at the end of the line",
                      TOKEN_ARGS(q, le));
}

static void parse_chunk(const mg__text_body *b, chunk *ch, uint32_t *src, uint32_t *dst,
                        uint32_t *wbits) {
    const char *p = ch->begin, *end = ch->end;
    uint64_t line = ch->first_line, k = ch->first_entry;
    for (; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *line_begin = p;
        const char *q = skip_space(p, le);
        p = nl ? nl + 1 : end;
        if (q == le || is_comment(b->kind, *q)) continue;
        if (!parse_line(b, ch, line_begin, le, q, line, k, src, dst, wbits)) {
            /* A NUL byte is what made the line fail (it belongs to no token); say so rather
             * than print a word cut short at it. */
            const char *nul = memchr(line_begin, '\0', (size_t)(le - line_begin));
            if (nul != NULL) chunk_fail(ch, line, NUL_MESSAGE, (long long)(nul - line_begin) + 1);
            return;
        }
        k++;
    }
}

/* The start of rank r's part of [base, stop) of P: the line after byte size * r / P (every rank
 * computes every cut alike). */
static const char *rank_cut(const char *base, const char *stop, int r, int size) {
    if (r == 0) return base;
    if (r == size) return stop;
    const size_t bytes = (size_t)(stop - base);
    const char *cut = base + (size_t)((unsigned long long)bytes / (unsigned)size * (unsigned)r +
                                      (unsigned long long)bytes % (unsigned)size * (unsigned)r / (unsigned)size);
    const char *nl = cut < stop ? memchr(cut, '\n', (size_t)(stop - cut)) : NULL;
    return nl ? nl + 1 : stop;
}

mg_status mg__parse_text_body(mg_context ctx, const mg__text_body *b, mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    chunk *chunks = NULL;
    uint64_t *shared = NULL;
    memset(coo, 0, sizeof *coo);
    /* Over several ranks (b->split) each parses its own part of the body, lines whole: the
     * counts, the first line and entry of each part, the largest id and whether any weight is
     * real go round through the ranks' sums; each rank's coo is its part of the list. */
    const bool split = b->split && mg__dist_splits(ctx);
    const mg_ranks *R = split ? &ctx->dist->ranks : NULL;
    const int rank = split ? R->rank : 0, size = split ? R->size : 1;
    const char *whole_stop = b->body + b->body_size;

    /* Enough chunks to balance the threads; none so small that their overhead shows. */
    const char *base = rank_cut(b->body, whole_stop, rank, size);
    const char *stop = rank_cut(b->body, whole_stop, rank + 1, size);
    const size_t part_size = (size_t)(stop - base);
    const int threads = omp_get_max_threads();
    size_t nchunks = (size_t)threads * 4;
    if (nchunks > part_size / (256u << 10)) nchunks = part_size / (256u << 10);
    if (nchunks < 1) nchunks = 1;
    if (nchunks > 4096) nchunks = 4096;
    chunks = mg__calloc(nchunks, sizeof *chunks);
    shared = mg__calloc(2 * (size_t)size + 2, sizeof *shared);
    if (chunks == NULL || shared == NULL) status = mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of memory", b->call);
    if (split) MG__TRY(mg__dist_agree_status(ctx, status, b->call));
    MG__TRY(status);

    for (size_t c = 0; c < nchunks; c++) {
        const char *cut = c + 1 == nchunks ? stop : base + part_size / nchunks * (c + 1);
        if (c + 1 < nchunks) {
            const char *prev = c == 0 ? base : chunks[c - 1].end;
            if (cut < prev) cut = prev;
            const char *nl = cut < stop ? memchr(cut, '\n', (size_t)(stop - cut)) : NULL;
            cut = nl ? nl + 1 : stop;
        }
        chunks[c].begin = c == 0 ? base : chunks[c - 1].end;
        chunks[c].end = cut;
    }

#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < (int64_t)nchunks; c++) count_chunk(b, &chunks[c]);

    /* the lines and entries of the ranks before this one (none with one process) */
    uint64_t rank_lines = 0, rank_entries = 0, all_lines = 0, all_entries = 0;
    for (size_t c = 0; c < nchunks; c++) {
        shared[2 * rank] += chunks[c].newlines;
        shared[2 * rank + 1] += chunks[c].entries;
    }
    if (split) {
        const int rc = R->allreduce_sum_u64(R->user, shared, 2 * (uint64_t)size);
        if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "%s: the ranks' sum of line counts failed (code %d)", b->call, rc);
    }
    for (int r = 0; r < size; r++) {
        if (r < rank) {
            rank_lines += shared[2 * r];
            rank_entries += shared[2 * r + 1];
        }
        all_lines += shared[2 * r];
        all_entries += shared[2 * r + 1];
    }
    uint64_t total = 0, line = b->body_line + rank_lines;
    for (size_t c = 0; c < nchunks; c++) {
        chunks[c].first_line = line;
        chunks[c].first_entry = total;
        chunks[c].entry_shift = rank_entries;
        line += chunks[c].newlines;
        total += chunks[c].entries;
    }
    const bool ends_with_newline = b->body_size > 0 && whole_stop[-1] == '\n';
    const uint64_t end_line = b->body_line + all_lines;
    const uint64_t last_line = b->body_size == 0 ? b->body_line - 1
                               : ends_with_newline ? end_line - 1 : end_line;
    if (b->progress) b->progress(0.2, b->progress_user);

    const bool stored = b->weights == MG__WCOL_INT || b->weights == MG__WCOL_REAL ||
                        b->weights == MG__WCOL_AUTO;
    if (b->values != MG_VALUES_NONE) {
        /* a matrix's values: no graph weight type is double, so the coo only carries them */
        MG__TRY(mg__coo_init(ctx, coo, total, false, MG_WEIGHT_NONE));
        coo->weights = mg__malloc(mg__mul_size((size_t)total, b->values == MG_VALUES_DOUBLE ? 8 : 4));
        if (coo->weights == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for %llu values", b->call,
                     (unsigned long long)total);
    } else {
        /* over several ranks a failure here waits for the agreement after the parse */
        status = mg__coo_init(ctx, coo, total, stored, b->weights == MG__WCOL_REAL ? MG_WEIGHT_FLOAT : MG_WEIGHT_INT32);
    }

    if (status == MG_SUCCESS) {
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t c = 0; c < (int64_t)nchunks; c++)
            parse_chunk(b, &chunks[c], coo->src, coo->dst, coo->weights);
    }

    bool any_real = false;
    uint64_t max_id = 0;
    for (size_t c = 0; c < nchunks && status == MG_SUCCESS; c++) {
        if (chunks[c].status != MG_SUCCESS) {
            status = mg__io_fail_line(ctx, chunks[c].status, b->call, b->path,
                                      chunks[c].error_line, "%s", chunks[c].message);
            break;
        }
        any_real |= chunks[c].real_seen;
        if (chunks[c].max_id > max_id) max_id = chunks[c].max_id;
    }
    /* over several ranks: each rank's first error is its own; the others say a rank failed */
    if (split) {
        MG__TRY(mg__dist_agree_status(ctx, status, b->call));
        memset(shared, 0, (2 * (size_t)size + 2) * sizeof *shared);
        shared[rank] = max_id;
        shared[size] = any_real;
        const int rc = R->allreduce_sum_u64(R->user, shared, (uint64_t)size + 1);
        if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "%s: the ranks' sum of ids failed (code %d)", b->call, rc);
        for (int r = 0; r < size; r++)
            if (shared[r] > max_id) max_id = shared[r];
        any_real = shared[size] > 0;
    }
    MG__TRY(status);
    if (b->declared != UINT64_MAX && all_entries < b->declared)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 "%s: %s:%llu: the file ends after %llu entries, but line %llu declares %llu",
                 b->call, b->path, (unsigned long long)last_line, (unsigned long long)all_entries,
                 (unsigned long long)b->declared_line, (unsigned long long)b->declared);

    if (b->weights == MG__WCOL_AUTO && any_real) {
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t c = 0; c < (int64_t)nchunks; c++)
            if (!chunks[c].real_seen)
                ints_to_floats(coo->weights, chunks[c].first_entry,
                               chunks[c].first_entry + chunks[c].entries);
        coo->weight_type = MG_WEIGHT_FLOAT;
    }
    coo->m = total;
    coo->index_base = b->one_based ? 1 : 0;
    if (b->one_based)
        coo->n = (uint32_t)(b->row_max > b->col_max ? b->row_max : b->col_max);
    else
        coo->n = all_entries > 0 ? (uint32_t)(max_id + 1) : 0;
    if (b->progress) b->progress(0.9, b->progress_user);

cleanup:
    mg__free(chunks);
    mg__free(shared);
    return status;
}
