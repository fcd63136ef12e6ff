/*
 * graph_file.c — the public entry points for graph files: mg_read_options_init, mg_graph_read and
 * mg_graph_write, and mg_output, the file that appears whole or not at all which the writers (and
 * the CLI's result files) write through. They pick the format (by extension under MG_FORMAT_AUTO),
 * run the reader into an edge list and hand it to the graph builder; output goes to an exclusively
 * created temporary file renamed over the target, so a failed write never leaves a partial file
 * behind and a link planted at the temporary's name is never followed.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "io_internal.h"
#include "dist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void mg_read_options_init(mg_read_options *opts) {
    if (opts == NULL) return;
    memset(opts, 0, sizeof *opts);
    opts->format = MG_FORMAT_AUTO;
    opts->undirected = -1;
    opts->keep_self_loops = false;
    opts->keep_duplicates = false;
    opts->ignore_weights = false;
    opts->allow_negative_weights = false;
    opts->progress = NULL;
    opts->progress_user = NULL;
    opts->max_vertices = 0;
}

/* ---- formats ----------------------------------------------------------------------------------- */

/* Whether path's last extension, or the one before a final .gz, is ext. */
static bool has_extension(const char *path, const char *ext) {
    const char *end = path + strlen(path) - (mg__io_gzipped(path) ? 3 : 0);
    const char *dot = end;
    while (dot > path && dot[-1] != '.' && dot[-1] != '/') dot--;
    if (dot == path || dot[-1] != '.') return false;
    return mg__io_token_is(dot - 1, end, ext);
}

static mg_format format_from_extension(const char *path) {
    if (has_extension(path, ".mtx")) return MG_FORMAT_MATRIX_MARKET;
    if (has_extension(path, ".txt") || has_extension(path, ".el") ||
        has_extension(path, ".wel") || has_extension(path, ".edges"))
        return MG_FORMAT_SNAP;
    if (has_extension(path, ".gr")) return MG_FORMAT_DIMACS;
    if (has_extension(path, ".mgb")) return MG_FORMAT_BINARY;
    return MG_FORMAT_AUTO;
}

/* ---- reading ----------------------------------------------------------------------------------- */

/* The binary file holds a graph built with some directedness; when the caller asks for the other,
 * the graph is rebuilt from its edges (keep_self_loops / keep_duplicates apply then; otherwise
 * they were applied when the file's graph was built). */
static mg_status rebuild(mg_context ctx, mg_graph *g, const mg_read_options *opts, bool directed) {
    mg_status status = MG_SUCCESS;
    mg_graph old = *g, fresh = NULL;
    uint32_t *rows = mg__malloc(mg__mul_size((size_t)old->m, sizeof *rows));
    if (rows == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_graph_read: out of memory");
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < (int64_t)old->n; v++)
        for (uint64_t e = old->out.offsets[v]; e < old->out.offsets[v + 1]; e++)
            rows[e] = (uint32_t)v;
    const bool weighted = !opts->ignore_weights && old->weight_type != MG_WEIGHT_NONE;
    mg__coo coo = {
        .n = old->n, .m = old->m, .capacity = old->m, .src = rows, .dst = old->out.indices,
        .weights = weighted ? old->out.weights : NULL,
        .weight_type = weighted ? old->weight_type : MG_WEIGHT_NONE,
        .index_base = old->index_base, .symmetric = !old->directed,
    };
    mg_graph_options go = {.directed = directed, .keep_self_loops = opts->keep_self_loops,
                           .keep_duplicates = opts->keep_duplicates};
    MG__TRY(mg__graph_from_coo(ctx, &fresh, &coo, &go));
    fresh->index_base = old->index_base;
    mg_graph_free(g);
    *g = fresh;

cleanup:
    mg__free(rows);
    return status;
}

static void drop_weights(mg_graph g) {
    if (g->in.weights != g->out.weights) mg__free(g->in.weights);
    mg__free(g->out.weights);
    g->in.weights = NULL;
    g->out.weights = NULL;
    g->weight_type = MG_WEIGHT_NONE;
    mg__graph_finish(g); /* the cached weight range changes with the weights */
}

mg_status mg_graph_read(mg_context ctx, mg_graph *g, const char *path,
                        const mg_read_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__coo coo;
    memset(&coo, 0, sizeof coo);
    mg_graph graph = NULL;
    mg_read_options defaults;
    mg__dist_begin(ctx);
    if (g == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_graph_read: g is NULL");
    *g = NULL;
    if (path == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_graph_read: path is NULL");
    if (opts == NULL) {
        mg_read_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->undirected < -1 || opts->undirected > 1)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_graph_read: opts->undirected must be -1, 0 or 1 (got %d)", opts->undirected);
    mg_format format = opts->format;
    if (format < MG_FORMAT_AUTO || format > MG_FORMAT_BINARY)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_graph_read: unknown opts->format %d", (int)format);
    /* A missing path or a directory says so before any talk of formats. */
    struct stat st;
    if (stat(path, &st) != 0)
        MG__FAIL(ctx, MG_IO_ERROR, "mg_graph_read: cannot open %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        MG__FAIL(ctx, MG_IO_ERROR, "mg_graph_read: %s is a directory, not a graph file", path);
    if (format == MG_FORMAT_AUTO) format = format_from_extension(path);
    if (format == MG_FORMAT_AUTO)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_graph_read: cannot tell the format of %s from its extension (known: .mtx, "
                 ".txt/.el/.wel/.edges, .gr, .mgb, each optionally .gz); name it (opts->format; "
                 "mgraph --format)",
                 path);
    if (format == MG_FORMAT_BINARY && mg__io_gzipped(path))
        MG__FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_graph_read: %s: a gzipped binary graph is not read (gunzip it first)", path);
    if (opts->progress) opts->progress(0.0, opts->progress_user);

    bool whole = true;
    if (format == MG_FORMAT_BINARY && mg__dist_splits(ctx))
        MG__TRY(mg__read_binary_share(ctx, path, opts, &graph, &whole));
    if (format == MG_FORMAT_BINARY && whole) {
        /* one process, or a file read as the other directedness on several ranks: each reads it
         * whole, and the rebuilt graph is split as it is built */
        MG__TRY(mg__read_binary(ctx, path, opts, &graph));
        if (opts->undirected != -1 && (opts->undirected == 1) == graph->directed)
            MG__TRY(rebuild(ctx, &graph, opts, opts->undirected == 0));
        if (opts->ignore_weights) drop_weights(graph);
    } else if (format != MG_FORMAT_BINARY) {
        if (format == MG_FORMAT_MATRIX_MARKET)
            MG__TRY(mg__read_matrix_market(ctx, path, opts, &coo));
        else if (format == MG_FORMAT_SNAP)
            MG__TRY(mg__read_snap(ctx, path, opts, &coo));
        else
            MG__TRY(mg__read_dimacs(ctx, path, opts, &coo));
        mg_graph_options go;
        mg_graph_options_init(&go);
        go.directed = opts->undirected == -1 ? !coo.symmetric : opts->undirected == 0;
        go.keep_self_loops = opts->keep_self_loops;
        go.keep_duplicates = opts->keep_duplicates;
        /* over several ranks each holds its part of the list (mg__text_body.split) */
        MG__TRY(mg__dist_splits(ctx) ? mg__dist_build_parts(ctx, &graph, &coo, &go)
                                     : mg__graph_from_coo(ctx, &graph, &coo, &go));
        graph->index_base = coo.index_base;
    }
    if (opts->progress) opts->progress(1.0, opts->progress_user);
    *g = graph;
    graph = NULL;

cleanup:
    mg__coo_free(&coo);
    mg_graph_free(&graph);
    return mg__dist_settle(ctx, status, "mg_graph_read");
}

/* ---- writing ----------------------------------------------------------------------------------- */

/* A handle's magic (mg_output): the struct lives only in this file. */
#define MG__MAGIC_OUTPUT 0x6d676f7574ULL

struct mg_output_s {
    uint64_t magic;
    mg__atomic_file af;
};

/* Opens a new temporary file beside target, exclusively (O_EXCL: an existing name, a planted link
 * included, is never opened) with mode 0666 so that the umask decides the mode, as fopen would.
 * The name is "<target>.tmp.<6 letters>", tried with fresh letters while it exists. */
static int create_temporary(char *tmp_path, size_t size, const char *target) {
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                 (uint64_t)(uintptr_t)tmp_path;
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        for (int i = 0; i < 6; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL; /* Knuth's LCG */
            suffix[i] = letters[(x >> 33) % (sizeof letters - 1)];
        }
        suffix[6] = '\0';
        snprintf(tmp_path, size, "%s.tmp.%s", target, suffix);
        int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1; /* errno is EEXIST */
}

mg_status mg__atomic_open(mg_context ctx, const char *path, const char *call, mg__atomic_file *af) {
    mg_status status = MG_SUCCESS;
    char *real = NULL;
    int fd = -1;
    memset(af, 0, sizeof *af);
    af->path = path;
    af->call = call;
    struct stat st;
    if (stat(path, &st) == 0) {
        /* A device or a FIFO (/dev/null, a pipe) is written through: renaming over it would put a
         * regular file in its place. Anything else but a regular file is refused. */
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (fd < 0)
                MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot open %s: %s", call, path, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            MG__FAIL(ctx, MG_IO_ERROR, "%s: %s is a directory", call, path);
        } else if (!S_ISREG(st.st_mode)) {
            MG__FAIL(ctx, MG_IO_ERROR,
                     "%s: %s is not a regular file, a character device or a FIFO", call, path);
        } else if ((real = realpath(path, NULL)) == NULL) {
            MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot resolve %s: %s", call, path, strerror(errno));
        }
    } else if (errno != ENOENT) {
        MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot create %s: %s", call, path, strerror(errno));
    } else if (lstat(path, &st) == 0) {
        MG__FAIL(ctx, MG_IO_ERROR, "%s: %s is a symbolic link to a missing file", call, path);
    }
    if (fd < 0) {
        /* A regular file, or none yet: the temporary goes in the folder of the file itself (a
         * symbolic link's target: the link stays and points at the new file), so the rename stays
         * on one file system. */
        const char *target = real != NULL ? real : path;
        const size_t len = strlen(target) + sizeof ".tmp.XXXXXX";
        af->target = mg__malloc(len);
        af->tmp_path = mg__malloc(len);
        if (af->target == NULL || af->tmp_path == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory", call);
        memcpy(af->target, target, strlen(target) + 1);
        fd = create_temporary(af->tmp_path, len, target);
        if (fd < 0) {
            const int e = errno;
            mg__free(af->tmp_path); /* nothing to remove */
            af->tmp_path = NULL;
            MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot create %s: %s", call, path, strerror(e));
        }
    }
    af->file = fdopen(fd, "wb");
    if (af->file == NULL)
        MG__FAIL(ctx, MG_IO_ERROR, "%s: cannot write %s: %s", call, path, strerror(errno));
    fd = -1;

cleanup:
    free(real); /* realpath's, from malloc */
    if (fd >= 0) close(fd);
    if (status != MG_SUCCESS) mg__atomic_abort(af);
    return status;
}

mg_status mg__atomic_write(mg_context ctx, mg__atomic_file *af, const void *data, size_t bytes) {
    if (bytes == 0 || fwrite(data, 1, bytes, af->file) == bytes) return MG_SUCCESS;
    return mg__error(ctx, MG_IO_ERROR, "%s: error writing %s: %s", af->call, af->path,
                     strerror(errno));
}

mg_status mg__atomic_commit(mg_context ctx, mg__atomic_file *af) {
    /* ferror catches a failed earlier write; fsync makes the data durable before the rename
     * publishes it, so a crash leaves the old file or the whole new one; fclose catches the last
     * flush. A device or FIFO (no temporary) is only flushed. */
    int failed = fflush(af->file) != 0 || ferror(af->file) ||
                 (af->tmp_path != NULL && fsync(fileno(af->file)) != 0);
    int e = errno;
    if (fclose(af->file) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    af->file = NULL;
    if (failed) {
        mg__atomic_abort(af);
        return mg__error(ctx, MG_IO_ERROR, "%s: error writing %s: %s", af->call, af->path,
                         strerror(e));
    }
    if (af->tmp_path != NULL && rename(af->tmp_path, af->target) != 0) {
        e = errno;
        mg__atomic_abort(af);
        return mg__error(ctx, MG_IO_ERROR, "%s: cannot rename the finished file to %s: %s",
                         af->call, af->path, strerror(e));
    }
    mg__free(af->tmp_path);
    af->tmp_path = NULL;
    mg__atomic_abort(af);
    return MG_SUCCESS;
}

void mg__atomic_abort(mg__atomic_file *af) {
    if (af->file != NULL) fclose(af->file);
    af->file = NULL;
    if (af->tmp_path != NULL) remove(af->tmp_path);
    mg__free(af->tmp_path);
    af->tmp_path = NULL;
    mg__free(af->target);
    af->target = NULL;
}

mg_status mg_output_open(mg_context ctx, mg_output *out, const char *path, FILE **stream) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (out == NULL || stream == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_output_open: %s is NULL",
                         out == NULL ? "out" : "stream");
    *out = NULL;
    *stream = NULL;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_output_open: path is NULL");
    mg_output o = mg__malloc(sizeof *o);
    if (o == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_output_open: out of memory");
    status = mg__atomic_open(ctx, path, "mg_output_open", &o->af);
    if (status != MG_SUCCESS) {
        mg__free(o);
        return status;
    }
    o->af.call = "mg_output_commit"; /* the later messages come from the commit */
    o->magic = MG__MAGIC_OUTPUT;
    *out = o;
    *stream = o->af.file;
    return MG_SUCCESS;
}

static mg_status check_output(mg_context ctx, const mg_output *out, const char *call) {
    if (out == NULL || *out == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: out is NULL", call);
    if ((*out)->magic != MG__MAGIC_OUTPUT)
        return mg__error(ctx, MG_INVALID_OBJECT, "%s: out is not a live mg_output", call);
    return MG_SUCCESS;
}

mg_status mg_output_commit(mg_context ctx, mg_output *out) {
    mg_status status = mg__check_context(ctx);
    if (status == MG_SUCCESS) status = check_output(ctx, out, "mg_output_commit");
    if (status != MG_SUCCESS) return status;
    status = mg__atomic_commit(ctx, &(*out)->af);
    (*out)->magic = MG__MAGIC_FREED;
    mg__free(*out);
    *out = NULL;
    return status;
}

mg_status mg_output_free(mg_output *out) {
    if (out == NULL || *out == NULL) return MG_SUCCESS;
    if ((*out)->magic != MG__MAGIC_OUTPUT) return MG_INVALID_OBJECT;
    mg__atomic_abort(&(*out)->af);
    (*out)->magic = MG__MAGIC_FREED;
    mg__free(*out);
    *out = NULL;
    return MG_SUCCESS;
}

mg_status mg_graph_write(mg_context ctx, const mg_graph g, const char *path, mg_format format) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    status = mg__check_whole_graph(ctx, g, "mg_graph_write: g");
    if (status != MG_SUCCESS) return status;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_write: path is NULL");
    if (format == MG_FORMAT_AUTO) {
        if (mg__io_gzipped(path))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_graph_write: %s: writing gzipped files is not supported", path);
        format = format_from_extension(path);
        if (format != MG_FORMAT_MATRIX_MARKET && format != MG_FORMAT_BINARY)
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             "mg_graph_write: cannot tell the format of %s from its extension "
                             "(.mtx or .mgb); pass the format",
                             path);
    }
    if (format == MG_FORMAT_MATRIX_MARKET) return mg__write_matrix_market(ctx, g, path);
    if (format == MG_FORMAT_BINARY) return mg__write_binary(ctx, g, path);
    if (format == MG_FORMAT_SNAP || format == MG_FORMAT_DIMACS)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_write: writing %s files is not supported (Matrix Market or "
                         "binary)",
                         format == MG_FORMAT_SNAP ? "SNAP" : "DIMACS");
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_write: unknown format %d", (int)format);
}
