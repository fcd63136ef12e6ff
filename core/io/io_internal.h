/*
 * io_internal.h — what the graph file readers and writers (core/io) share: opening and mapping a
 * file, the parallel line-chunk parser behind the three text formats, messages that name file and
 * line, and the write-to-temporary-then-rename helper that keeps partial files away from a target.
 */
#ifndef MG_IO_INTERNAL_H
#define MG_IO_INTERNAL_H

#include "mg_internal.h"

/* The largest vertex count a graph can have (mg_graph_create_from_coo refuses UINT32_MAX). */
#define MG__IO_MAX_VERTICES ((uint64_t)UINT32_MAX - 1)

/* The most vertices a text file may make the graph builder allocate (about 24 bytes each):
 * opts->max_vertices when set, else MG__IO_DEFAULT_VERTICES + MG__IO_VERTICES_PER_BYTE per byte of
 * the file, never more than MG__IO_MAX_VERTICES. Real graph files hold far fewer vertices than
 * bytes (an edge line takes at least 4 bytes and touches at most 2 vertices); the base leaves room
 * for a sample of a large graph that keeps its ids (roadNet-CA's first lines name vertex 1.9M).
 * So the default stops a corrupt or hostile header or id (5 MB claiming 300M vertices) before it
 * costs gigabytes, and bounds what a tiny file costs to about 100 MB; the option lets a caller who
 * means it go higher. In why (for messages) it says where the limit comes from and how to raise it. */
#define MG__IO_DEFAULT_VERTICES ((uint64_t)1 << 22)
#define MG__IO_VERTICES_PER_BYTE 4
uint64_t mg__io_vertex_limit(const mg_read_options *opts, uint64_t file_bytes, char *why,
                             size_t why_size);
/* The same rule for any size a header declares (a matrix's rows and columns): option when not 0
 * (option_name says how to set it), else the per-byte default; never more than most (most_why
 * says why). */
uint64_t mg__io_size_limit(uint64_t option, const char *option_name, const char *what,
                           uint64_t most, const char *most_why, uint64_t file_bytes, char *why,
                           size_t why_size);

/* ---- reading ----------------------------------------------------------------------------------- */

/* A whole text file in memory: mapped, or read into a buffer when it is a pipe or reports size 0
 * (/proc files). data and size skip a UTF-8 byte-order mark; a file with '\r' line ends and no
 * '\n' (old Mac) has them turned into '\n' in a private copy, so the readers see LF or CRLF only. */
typedef struct {
    const char *path;
    const char *data;
    size_t size;
    char *base;       /* what to release: a mapping of base_size bytes, or a buffer when read */
    size_t base_size;
    bool read;
} mg__mapped_file;

/* Opens path as a regular file for reading; fails with MG_IO_ERROR naming the path (missing,
 * directory, unreadable, not a regular file). On success *fd is open and *size its length. */
mg_status mg__io_open_regular(mg_context ctx, const char *path, int *fd, uint64_t *size);
/* Loads path whole (a regular file, a pipe or a socket); an empty one is a parse error
 * ("path:1: the file is empty"). A path ending in .gz is decompressed into a buffer (zlib; without
 * it MG_UNAVAILABLE), so every text reader reads gzipped files. Messages start with call. */
mg_status mg__io_map(mg_context ctx, const char *call, const char *path, mg__mapped_file *file);
/* Whether path names a gzipped file (ends in .gz, any case). */
bool mg__io_gzipped(const char *path);
void mg__io_unmap(mg__mapped_file *file);

/* A header line with a NUL byte fails as binary data (a token cut at the NUL would otherwise make
 * a message about an empty or garbled word). */
mg_status mg__io_check_text(mg_context ctx, const char *call, const char *path, uint64_t line,
                            const char *begin, const char *end);

/* The most lines `bytes` bytes can hold (a line is at least one character and its '\n'). A header
 * declaring more entries than that is wrong whatever the lines hold, and fails before the parse;
 * fewer is left to the parse, which names a truncated line or the shortfall (a bound from the
 * shortest complete entry would call a file whose only arc is "a 1 2" too short). The edge list is
 * sized by the lines counted, never by the header. */
static inline uint64_t mg__io_most_lines(size_t bytes) { return ((uint64_t)bytes + 1) / 2; }

/* Records "<call>: path:line: <message>" and returns status. */
mg_status mg__io_fail_line(mg_context ctx, mg_status status, const char *call, const char *path,
                           uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Walks the header lines one at a time (the header is parsed serially before the parallel body). */
typedef struct {
    const char *p, *end;
    uint64_t line;  /* number of the line next_line returns next (1-based) */
} mg__line_cursor;

/* Returns false at end of input; else [*begin, *stop) is the line without '\n' and trailing '\r',
 * *number its line number. */
bool mg__next_line(mg__line_cursor *c, const char **begin, const char **stop, uint64_t *number);

/* Space, tab, and '\r' (so CRLF files parse like LF files) separate tokens. */
static inline bool mg__io_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Splits [p, end) into at most max tokens (begin/stop pairs); returns how many there are in all
 * (possibly more than max). */
static inline int mg__io_tokens(const char *p, const char *end, const char *tok[][2], int max) {
    int n = 0;
    for (;;) {
        while (p < end && mg__io_space(*p)) p++;
        if (p == end) return n;
        const char *s = p;
        while (p < end && !mg__io_space(*p)) p++;
        if (n < max) {
            tok[n][0] = s;
            tok[n][1] = p;
        }
        n++;
    }
}

/* Whether the token [s, e) is the word lit, ignoring ASCII case. */
static inline bool mg__io_token_is(const char *s, const char *e, const char *lit) {
    for (; s < e && *lit; s++, lit++) {
        char a = *s, b = *lit;
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return false;
    }
    return s == e && *lit == '\0';
}

/* Token length for "%.*s", capped so a garbled line cannot flood a message. */
static inline int mg__io_token_len(const char *s, const char *e) {
    return e - s > 40 ? 40 : (int)(e - s);
}

/* Parses an unsigned decimal token at *p (after spaces) within [*p, end): returns 0 and advances
 * on success, else one of the MG__TOK_ codes. */
enum { MG__TOK_OK = 0, MG__TOK_MISSING, MG__TOK_BAD, MG__TOK_NEGATIVE, MG__TOK_OVERFLOW };
int mg__io_parse_u64(const char **p, const char *end, uint64_t *value);
/* The same for a real number (plain decimals exactly, anything else as strtod reads it: exponents,
 * inf, nan) and a signed 64-bit integer. */
int mg__io_parse_real(const char **p, const char *end, double *value);
int mg__io_parse_i64(const char **p, const char *end, int64_t *value);

typedef enum { MG__TEXT_MATRIX_MARKET, MG__TEXT_SNAP, MG__TEXT_DIMACS } mg__text_kind;

/* How the weight column is read. */
typedef enum {
    MG__WCOL_NONE = 0, /* no weight column                                              */
    MG__WCOL_SKIP,     /* a weight column that must be there but is not loaded          */
    MG__WCOL_INT,      /* int32                                                          */
    MG__WCOL_REAL,     /* float                                                          */
    MG__WCOL_AUTO      /* int32 while every token is an int32 integer, else float (SNAP) */
} mg__weight_column;

/* The body of a text file: after the header, one edge per non-blank, non-comment line. */
typedef struct {
    mg__text_kind kind;
    const char *call;          /* the public call messages name ("mg_graph_read")              */
    const char *path;
    const char *body;          /* first byte of the body (a line start)                        */
    size_t body_size;
    uint64_t body_line;        /* line number of body[0]                                       */
    bool one_based;            /* ids are 1..max (else 0..max)                                  */
    uint64_t row_max, col_max; /* the largest legal source / destination id as written         */
    const char *limit_why;     /* 0-based: why row_max/col_max are what they are (messages)    */
    uint64_t declared;         /* entries the header promises, or UINT64_MAX if it says nothing */
    uint64_t declared_line;    /* the header line that promised them                            */
    int columns;               /* SNAP: 2 or 3, from the first edge line                        */
    uint64_t columns_line;     /* SNAP: that first edge line                                     */
    mg__weight_column weights;
    /* A matrix's values rather than a graph's weights: MG_VALUES_FLOAT or MG_VALUES_DOUBLE
     * stores the column (weights says INT or REAL: the file's field) as float or double in
     * coo->weights, any sign, inf and nan as strtod reads them; MG_VALUES_NONE: a graph. */
    mg_values values;
    bool skew_symmetric;       /* matrices: a non-zero diagonal value is an error            */
    bool allow_negative;
    void (*progress)(double fraction, void *user); /* may be NULL */
    void *progress_user;
    /* A graph's list on a context of several ranks: each rank parses a part of the body and its
     * coo holds that part (n and the checks are the whole file's); the build is then
     * mg__dist_build_parts. */
    bool split;
} mg__text_body;

/* Parses the body in parallel into coo (allocated here; the caller frees it even on failure).
 * Sets coo->m, coo->weight_type and, for 0-based files, coo->n = largest id + 1. Ids in coo are
 * 0-based. The first error in file order is the one reported (with b->split over several ranks:
 * each rank's first, the others failing with it). */
mg_status mg__parse_text_body(mg_context ctx, const mg__text_body *body, mg__coo *coo);

/* ---- Matrix Market headers (matrix_market.c) --------------------------------------------------- */

typedef enum { MG__MM_GENERAL = 0, MG__MM_SYMMETRIC, MG__MM_SKEW, MG__MM_HERMITIAN } mg__mm_symmetry;

/* What one reader takes, for the header's checks and messages. */
typedef struct {
    const char *call;         /* the public call ("mg_graph_read")                              */
    bool array;               /* reads 'array' (dense) files, else 'coordinate'                  */
    const char *banner;       /* the banner it takes, quoted when the file has none              */
    const char *wrong_format; /* the message for the other format                                */
    const char *fields;       /* the fields it takes, for messages ("pattern, integer or real")  */
    const char *symmetries;   /* the same for symmetries                                         */
    unsigned symmetry_ok;     /* 1 << each mg__mm_symmetry it takes                               */
} mg__mm_reader;

typedef struct {
    bool array;
    mg__weight_column field;   /* pattern: NONE, integer: INT, real: REAL                       */
    mg__mm_symmetry symmetry;
    uint64_t rows, cols;
    uint64_t entries;          /* coordinate: the size line's; array: rows * cols               */
    uint64_t size_line;
    mg__line_cursor body;      /* the lines after the size line                                 */
} mg__mm_header;

/* Reads file's banner, comments and size line; a symmetric (or skew-, hermitian) one must be
 * square, and the entries must fit in the lines left (so a corrupt count allocates nothing).
 * A field the reader cannot take (pattern for arrays, complex) fails here. */
mg_status mg__mm_read_header(mg_context ctx, const mg__mm_reader *reader,
                             const mg__mapped_file *file, mg__mm_header *h);

/* ---- writing ----------------------------------------------------------------------------------- */

/* Writes v in decimal at p; returns the end (at most 20 characters). */
static inline char *mg__io_put_u64(char *p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

/* A file that appears whole or not at all (what mg_output and mg_graph_write are made of; the rules
 * are mgraph.h's, at mg_output_open). tmp_path is NULL when a device or FIFO is written through. */
typedef struct {
    FILE *file;
    char *tmp_path;
    char *target;     /* the file the temporary is renamed to: path, or a link's target  */
    const char *path; /* as the caller gave it, for messages                               */
    const char *call; /* the public call the messages name ("mg_graph_write")           */
} mg__atomic_file;

mg_status mg__atomic_open(mg_context ctx, const char *path, const char *call, mg__atomic_file *af);
/* Writes bytes; on failure records an MG_IO_ERROR naming path. */
mg_status mg__atomic_write(mg_context ctx, mg__atomic_file *af, const void *data, size_t bytes);
/* Flushes, syncs, closes and renames; on any failure removes the temporary file. */
mg_status mg__atomic_commit(mg_context ctx, mg__atomic_file *af);
/* Closes and removes the temporary file (safe to call after commit or on a zeroed af). */
void mg__atomic_abort(mg__atomic_file *af);

#endif /* MG_IO_INTERNAL_H */
