/*
 * bench_spmv_set.h — what the SpMV and SpMM benchmarks (bench_spmv.c and bench_spmm.c on the GPU
 * against cuSPARSE, bench_spmv_cpu.c and bench_spmm_cpu.c on the CPU against SuiteSparse:GraphBLAS)
 * share: the matrix set (the real matrices of a MANIFEST.tsv folder, larger Matrix Market graphs
 * there read as matrices, and generated R-MAT, uniform, banded, Poisson 2D/3D and block-diagonal
 * matrices sized to target nonzero counts), each made with values of the run's precision, a random
 * x, the minimum bytes an SpMV must move, the option parsing they take (--ks for SpMM's K), and the
 * table writer (markdown, TSV or JSON lines).
 * Include after defining BENCH_NAME, a static mg_context ctx and DIE_IF(status).
 */
#ifndef MG_BENCH_SPMV_SET_H
#define MG_BENCH_SPMV_SET_H

#include "mgraph.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ----------------------------------------------------------------------------------- */

enum { SET_MAX_SIZES = 8, SET_MAX = 96 };

typedef enum { FMT_MD = 0, FMT_TSV, FMT_JSON } out_format;

typedef enum { GEN_RMAT = 0, GEN_UNIFORM, GEN_BANDED, GEN_POISSON2D, GEN_POISSON3D, GEN_BLOCKDIAG,
               GEN_KINDS } gen_kind;
static const char *const gen_names[GEN_KINDS] = {"rmat", "uniform", "banded", "poisson2d",
                                                 "poisson3d", "blockdiag"};

typedef struct {
    const char *real_dir;       /* NULL: no real matrices                                  */
    uint64_t min_graph_nnz;     /* Matrix Market graphs of the folder with at least this   */
    uint64_t sizes[SET_MAX_SIZES];
    int nsizes;
    bool kinds[GEN_KINDS];
    bool single, dbl;           /* the precisions to run                                   */
    int runs;
    out_format format;
} set_options;

/* "16M", "1.5G", "200000" -> a count (K, M, G: 1e3, 1e6, 1e9). False when malformed. */
static inline bool parse_count(const char *s, uint64_t *out) {
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno != 0) return false;
    if (*end == 'K' || *end == 'k') v *= 1e3, end++;
    else if (*end == 'M' || *end == 'm') v *= 1e6, end++;
    else if (*end == 'G' || *end == 'g') v *= 1e9, end++;
    if (*end != '\0' || !(v >= 1) || v > 1e12) return false;
    *out = (uint64_t)v;
    return true;
}

static inline bool parse_sizes(const char *s, set_options *o) {
    char buf[256];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    o->nsizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nsizes == SET_MAX_SIZES || !parse_count(tok, &o->sizes[o->nsizes])) return false;
        o->nsizes++;
    }
    return o->nsizes > 0;
}

static inline bool parse_kinds(const char *s, set_options *o) {
    char buf[256];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    memset(o->kinds, 0, sizeof o->kinds);
    bool any = false;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k = 0;
        while (k < GEN_KINDS && strcmp(tok, gen_names[k]) != 0) k++;
        if (k == GEN_KINDS) return false;
        o->kinds[k] = any = true;
    }
    return any;
}

/* The options both benchmarks take: argv[*i] (with its value argv[*i + 1]) into o. Returns 1 when
 * taken, 0 when not one of them, -1 when its value is wrong (a message printed). */
static inline int set_parse_option(int argc, char **argv, int *i, set_options *o) {
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--json") == 0) return o->format = FMT_JSON, 1;
    if (strcmp(a, "--tsv") == 0) return o->format = FMT_TSV, 1;
    if (strcmp(a, "--no-real") == 0) return o->real_dir = NULL, 1;
    const bool valued = strcmp(a, "--real") == 0 || strcmp(a, "--min-graph-nnz") == 0 ||
                        strcmp(a, "--sizes") == 0 || strcmp(a, "--kinds") == 0 ||
                        strcmp(a, "--precision") == 0 || strcmp(a, "--runs") == 0 ||
                        strcmp(a, "--format") == 0;
    if (!valued) return 0;
    if (v == NULL) {
        fprintf(stderr, BENCH_NAME ": %s needs a value\n", a);
        return -1;
    }
    (*i)++;
    bool ok = true;
    if (strcmp(a, "--real") == 0) o->real_dir = v;
    else if (strcmp(a, "--min-graph-nnz") == 0) ok = parse_count(v, &o->min_graph_nnz);
    else if (strcmp(a, "--sizes") == 0) ok = parse_sizes(v, o);
    else if (strcmp(a, "--kinds") == 0) ok = strcmp(v, "none") == 0
                                                 ? (memset(o->kinds, 0, sizeof o->kinds), true)
                                                 : parse_kinds(v, o);
    else if (strcmp(a, "--precision") == 0) {
        o->single = strcmp(v, "single") == 0 || strcmp(v, "both") == 0;
        o->dbl = strcmp(v, "double") == 0 || strcmp(v, "both") == 0;
        ok = o->single || o->dbl;
    } else if (strcmp(a, "--runs") == 0) {
        char *end = NULL;
        const long r = strtol(v, &end, 10);
        ok = *end == '\0' && r >= 3 && r <= 63;
        o->runs = (int)r;
    } else {
        o->format = strcmp(v, "md") == 0 ? FMT_MD : strcmp(v, "tsv") == 0 ? FMT_TSV : FMT_JSON;
        ok = strcmp(v, "md") == 0 || strcmp(v, "tsv") == 0 || strcmp(v, "json") == 0;
    }
    if (!ok) {
        fprintf(stderr, BENCH_NAME ": %s %s: %s\n", a, v,
                strcmp(a, "--sizes") == 0 ? "want counts like 1M,16M,200M (at most 8)"
                : strcmp(a, "--kinds") == 0 ? "want a list of rmat,uniform,banded,poisson2d,poisson3d,blockdiag or none"
                : strcmp(a, "--precision") == 0 ? "want single, double or both"
                : strcmp(a, "--runs") == 0 ? "want 3..63"
                : strcmp(a, "--format") == 0 ? "want md, tsv or json"
                                                : "want a count like 1M");
        return -1;
    }
    return 1;
}

/* argv[*i] as --help, a set option or else an unknown one: returns -1 to go on, else main's exit
 * code (0 after --help, 2 after a usage error; usage prints the benchmark's own message). */
static inline int set_parse_or_exit(int argc, char **argv, int *i, set_options *o,
                                    void (*usage)(FILE *)) {
    if (strcmp(argv[*i], "--help") == 0 || strcmp(argv[*i], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    const int taken = set_parse_option(argc, argv, i, o);
    if (taken > 0) return -1;
    if (taken == 0) {
        fprintf(stderr, BENCH_NAME ": unknown option %s\n", argv[*i]);
        usage(stderr);
    }
    return 2;
}

#define SET_USAGE                                                                                  \
    "  --real DIR          the real matrices: DIR/MANIFEST.tsv's kind=matrix rows and its Matrix\n" \
    "                      Market graphs of at least --min-graph-nnz entries (default\n"            \
    "                      ../shared/datasets/real; skipped with a note when absent)\n"            \
    "  --no-real           no real matrices\n"                                                      \
    "  --min-graph-nnz N   default 1M\n"                                                            \
    "  --sizes LIST        target nonzeros of each generated matrix, e.g. 1M,16M,200M\n"            \
    "  --kinds LIST|none   generators: rmat,uniform,banded,poisson2d,poisson3d,blockdiag (all)\n"   \
    "  --precision P       single, double or both (default both)\n"                                 \
    "  --runs R            timed runs after one warm-up, the median reported, 3..63 (default 10)\n" \
    "  --format F          md (default: a markdown table), tsv or json (one object a line);\n"      \
    "  --json, --tsv       the same\n"

static inline void set_options_init(set_options *o, const char *default_sizes) {
    memset(o, 0, sizeof *o);
    o->real_dir = "../shared/datasets/real";
    o->min_graph_nnz = 1000000;
    for (int k = 0; k < GEN_KINDS; k++) o->kinds[k] = true;
    o->single = o->dbl = true;
    o->runs = 10;
    o->format = FMT_MD;
    if (!parse_sizes(default_sizes, o)) abort();
}

/* The SpMM benchmarks' dense columns: "32,128,512" -> ks (each 1..1024, at most SET_MAX_KS); false
 * when malformed. */
enum { SET_MAX_KS = 8 };
static inline bool parse_ks(const char *s, uint32_t *ks, int *count) {
    char buf[256];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    *count = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end = NULL;
        const long v = strtol(tok, &end, 10);
        if (*count == SET_MAX_KS || *end != '\0' || v < 1 || v > 1024) return false;
        ks[(*count)++] = (uint32_t)v;
    }
    return *count > 0;
}

/* ---- the set ----------------------------------------------------------------------------------- */

typedef struct {
    char name[64];
    char path[1024];            /* a file, or "" for a generated matrix */
    mg_matrix_gen_options gen;
    bool spd;                   /* the manifest says SPD (a CG candidate) */
} set_entry;

/* Generator options for about `nnz` nonzeros of kind k; the name says the shape. */
static inline void set_generated(set_entry *e, gen_kind k, uint64_t nnz) {
    memset(e, 0, sizeof *e);
    mg_matrix_gen_options *g = &e->gen;
    mg_matrix_gen_options_init(g);
    g->seed = 1;
    const double t = (double)nnz;
    switch (k) {
    case GEN_RMAT: /* 2^scale rows, 16 to 32 entries a row before duplicates merge */
        g->kind = MG_MATGEN_RMAT;
        g->scale = (int)floor(log2(t / 16));
        if (g->scale < 4) g->scale = 4;
        g->nnz_per_row = t / ldexp(1, g->scale);
        snprintf(e->name, sizeof e->name, "rmat%d-%.0f", g->scale, g->nnz_per_row);
        break;
    case GEN_UNIFORM:
        g->kind = MG_MATGEN_UNIFORM;
        g->rows = g->cols = (uint32_t)fmax(16, t / 16);
        g->nnz_per_row = 16;
        snprintf(e->name, sizeof e->name, "uniform%u-16", g->rows);
        break;
    case GEN_BANDED: /* 33 entries a row */
        g->kind = MG_MATGEN_BANDED;
        g->band = 16;
        g->rows = g->cols = (uint32_t)fmax(64, t / 33);
        snprintf(e->name, sizeof e->name, "banded%u-b16", g->rows);
        break;
    case GEN_POISSON2D:
        g->kind = MG_MATGEN_POISSON2D;
        g->side = (uint32_t)fmax(4, round(sqrt(t / 5)));
        snprintf(e->name, sizeof e->name, "poisson2d-%u", g->side);
        break;
    case GEN_POISSON3D:
        g->kind = MG_MATGEN_POISSON3D;
        g->side = (uint32_t)fmax(4, round(cbrt(t / 7)));
        snprintf(e->name, sizeof e->name, "poisson3d-%u", g->side);
        break;
    default: /* dense 64 x 64 blocks */
        g->kind = MG_MATGEN_BLOCK_DIAGONAL;
        g->block = 64;
        g->rows = g->cols = (uint32_t)fmax(64, round(t / 64 / 64) * 64);
        snprintf(e->name, sizeof e->name, "blockdiag%u-64", g->rows);
        break;
    }
    e->spd = k == GEN_POISSON2D || k == GEN_POISSON3D;
}

/* The real matrices of o->real_dir (none, with a note on stderr, when it has no MANIFEST.tsv):
 * kind=matrix rows, and kind=graph rows in Matrix Market of at least o->min_graph_nnz entries. */
static inline int set_real(const set_options *o, set_entry *set, int count) {
    if (o->real_dir == NULL) return count;
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", o->real_dir);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, BENCH_NAME ": note: no real matrices: %s: %s\n", path, strerror(errno));
        return count;
    }
    char line[8192];
    bool header = true;
    while (fgets(line, sizeof line, f)) {
        if (header) { /* file kind format rows cols nnz_or_edges stored symmetric spd ... */
            header = false;
            continue;
        }
        char *fields[10] = {0};
        int nf = 0;
        for (char *p = line; nf < 10;) {
            fields[nf++] = p;
            char *tab = strchr(p, '\t');
            if (tab == NULL) break;
            *tab = '\0';
            p = tab + 1;
        }
        if (nf < 9) continue;
        uint64_t entries = strtoull(fields[5], NULL, 10);
        const bool matrix = strcmp(fields[1], "matrix") == 0;
        const bool big_graph = strcmp(fields[1], "graph") == 0 &&
                               strcmp(fields[2], "MatrixMarket") == 0 && entries >= o->min_graph_nnz;
        if (!matrix && !big_graph) continue;
        if (count == SET_MAX) {
            fprintf(stderr, BENCH_NAME ": more than %d matrices: the rest of %s is left out\n",
                    SET_MAX, path);
            break;
        }
        set_entry *e = &set[count++];
        memset(e, 0, sizeof *e);
        if (snprintf(e->path, sizeof e->path, "%s/%s", o->real_dir, fields[0]) >= (int)sizeof e->path) {
            fprintf(stderr, BENCH_NAME ": %s/%s: path too long\n", o->real_dir, fields[0]);
            exit(2);
        }
        snprintf(e->name, sizeof e->name, "%.*s", (int)strcspn(fields[0], "."), fields[0]);
        e->spd = strncmp(fields[8], "yes", 3) == 0;
    }
    fclose(f);
    return count;
}

/* The whole set: the real matrices, then each generator at each size. Returns the count. */
static inline int set_build(const set_options *o, set_entry *set) {
    int count = set_real(o, set, 0);
    for (int k = 0; k < GEN_KINDS; k++)
        for (int s = 0; s < o->nsizes && o->kinds[k]; s++) {
            if (count == SET_MAX) return count;
            set_generated(&set[count++], (gen_kind)k, o->sizes[s]);
        }
    return count;
}

/* Deterministic values in [0.5, 1.5): never zero, never all alike. */
static inline double set_value(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return 0.5 + (double)(*state >> 11) / 9007199254740992.0;
}

/* Entry e as a matrix with values of `values` (float or double): a file is read with them, a
 * generator makes them; a pattern (a pattern file, a graph) gets random values, so every library
 * reads a value per entry. */
static inline void set_load(const set_entry *e, mg_values values, mg_matrix *A) {
    *A = NULL;
    if (e->path[0]) {
        mg_matrix_read_options ro;
        mg_matrix_read_options_init(&ro);
        ro.values = values;
        DIE_IF(mg_matrix_read(ctx, A, e->path, &ro));
    } else {
        mg_matrix_gen_options g = e->gen;
        g.values = values;
        DIE_IF(mg_matrix_generate(ctx, A, &g));
    }
    if (mg_matrix_values(*A) != MG_VALUES_NONE) return;
    const uint32_t rows = mg_matrix_rows(*A), cols = mg_matrix_cols(*A);
    const uint64_t nnz = mg_matrix_nnz(*A);
    const uint64_t *off;
    const uint32_t *idx;
    DIE_IF(mg_matrix_csr(*A, &off, &idx, NULL));
    uint32_t *r = xmalloc(nnz * 4), *c = xmalloc(nnz * 4);
    void *v = xmalloc(nnz * (values == MG_VALUES_FLOAT ? 4 : 8));
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < rows; i++)
        for (uint64_t k = off[i]; k < off[i + 1]; k++) {
            r[k] = i;
            c[k] = idx[k];
            const double x = set_value(&state);
            if (values == MG_VALUES_FLOAT) ((float *)v)[k] = (float)x;
            else ((double *)v)[k] = x;
        }
    mg_matrix P = *A;
    DIE_IF(mg_matrix_create_from_coo(ctx, A, rows, cols, nnz, r, c, v, values));
    mg_matrix_free(&P);
    free(r);
    free(c);
    free(v);
}

/* A host vector of n random values of the type (MG_FLOAT or MG_DOUBLE), for x and b. */
static inline void *set_random_vector(uint32_t n, mg_type type, uint64_t seed) {
    void *x = xmalloc((size_t)n * (type == MG_FLOAT ? 4 : 8));
    uint64_t state = seed | 1;
    for (uint32_t i = 0; i < n; i++) {
        const double v = set_value(&state);
        if (type == MG_FLOAT) ((float *)x)[i] = (float)v;
        else ((double *)x)[i] = v;
    }
    return x;
}

/* The fewest bytes y = A x can move: the CSR read once (row offsets of 4 bytes, which suffice
 * below 2^32 entries, column indices, values), x read once, y written once. */
static inline double spmv_min_bytes(const mg_matrix A, size_t value_bytes) {
    const double rows = mg_matrix_rows(A), cols = mg_matrix_cols(A), nnz = (double)mg_matrix_nnz(A);
    const double offset_bytes = nnz < 4294967296.0 ? 4 : 8;
    return (rows + 1) * offset_bytes + nnz * (4 + (double)value_bytes) + (cols + rows) * (double)value_bytes;
}

/* ---- the table --------------------------------------------------------------------------------- */

/* Columns: a name and whether its values are numbers (JSON leaves those unquoted). */
typedef struct {
    const char *name;
    bool number;
} column;

static inline void table_header(out_format f, const column *cols, int n) {
    if (f == FMT_JSON) return;
    for (int c = 0; c < n; c++) printf(f == FMT_MD ? "| %s " : c ? "\t%s" : "%s", cols[c].name);
    printf(f == FMT_MD ? "|\n" : "\n");
    if (f != FMT_MD) return;
    for (int c = 0; c < n; c++) printf(cols[c].number ? "|---:" : "|---");
    printf("|\n");
}

/* One row: n values already formatted; `table` names the table in JSON ("spmv", "cg", ...). */
static inline void table_row(out_format f, const char *table, const column *cols, int n,
                             char values[][64]) {
    if (f == FMT_JSON) printf("{\"table\": \"%s\"", table);
    for (int c = 0; c < n; c++) {
        if (f == FMT_JSON) {
            const bool num = cols[c].number && strcmp(values[c], "-") != 0 &&
                             strcmp(values[c], "nan") != 0 && strcmp(values[c], "inf") != 0;
            printf(num ? ", \"%s\": %s" : ", \"%s\": \"%s\"", cols[c].name, values[c]);
        } else {
            printf(f == FMT_MD ? "| %s " : c ? "\t%s" : "%s", values[c]);
        }
    }
    printf(f == FMT_JSON ? "}\n" : f == FMT_MD ? "|\n" : "\n");
}

/* The first four cells every table starts with: matrix, precision, rows, nnz. */
static inline void table_row_head(char values[][64], const char *name, bool single, const mg_matrix A) {
    snprintf(values[0], 64, "%s", name);
    snprintf(values[1], 64, "%s", single ? "fp32" : "fp64");
    snprintf(values[2], 64, "%u", mg_matrix_rows(A));
    snprintf(values[3], 64, "%llu", (unsigned long long)mg_matrix_nnz(A));
}

/* A line that is not a row (a summary, a note): markdown prints it as a paragraph between blank
 * lines, TSV with a leading '#', JSON as {"table": "note", "text": ...}. */
static inline void table_note(out_format f, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (f == FMT_JSON) {
        printf("{\"table\": \"note\", \"text\": \"");
        for (const char *p = text; *p; p++) printf(*p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
        printf("\"}\n");
    } else {
        printf(f == FMT_TSV ? "# %s\n" : "\n%s\n\n", text);
    }
}

/* A geometric mean's running state. */
typedef struct {
    double log_sum, min;
    int count;
    char min_name[64];
} geo;

static inline void geo_add(geo *g, double x, const char *name) {
    if (!(x > 0)) return;
    if (g->count == 0 || x < g->min) {
        g->min = x;
        snprintf(g->min_name, sizeof g->min_name, "%.63s", name);
    }
    g->log_sum += log(x);
    g->count++;
}

static inline double geo_mean(const geo *g) { return g->count ? exp(g->log_sum / g->count) : NAN; }

/* The process's first device build pays one-time driver work that is no matrix's preprocessing (its
 * first cooperative launch: the first matrix of a run read 22-40 calls, 0.1-0.3 ms over its later
 * builds, H100, session 28): a throwaway matrix of each kind of build (row bins on the device, and
 * the diagonal form) is prepared first, with the SpMM's forms too where spmm is set. Best with
 * CUDA_MODULE_LOADING=EAGER set before the context starts (every kernel loaded then, not at its
 * first launch: with lazy loading the first matrix of a run read 330-440 calls, H200, session 25). */
static inline void set_warm_build(bool spmm) {
    enum { N = 16384, PER = 3 };
    uint32_t *r = malloc(sizeof *r * N * PER), *c = malloc(sizeof *c * N * PER);
    if (r == NULL || c == NULL) {
        fprintf(stderr, BENCH_NAME ": out of host memory\n");
        exit(1);
    }
    for (int kind = 0; kind < 2; kind++) {
        uint64_t k = 0;
        for (uint32_t i = 0; i < N; i++)
            for (uint32_t d = 0; d < PER; d++)
                if (!kind || i + d < N) {
                    r[k] = i;
                    c[k++] = kind ? i + d : (uint32_t)(((uint64_t)i * 2654435761u + d * 40503u) % N);
                }
        mg_matrix A = NULL;
        mg_gpu_matrix_info info;
        DIE_IF(mg_matrix_create_from_coo(ctx, &A, N, N, k, r, c, NULL, MG_VALUES_NONE));
        DIE_IF(mg_matrix_gpu_prepare(ctx, A, &info));
        if (spmm) DIE_IF(mg_matrix_gpu_prepare_spmm(ctx, A, 0, NULL, &info));
        mg_matrix_free(&A);
    }
    free(r);
    free(c);
}

#endif
