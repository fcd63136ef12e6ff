/*
 * graph_file.c — the public entry points for graph files: mg_read_options_init, mg_graph_read and
 * mg_graph_write. They pick the format (by extension under MG_FORMAT_AUTO), run the reader into an
 * edge list and hand it to the graph builder, and write through a temporary file renamed over
 * the target so that a failed write never leaves a partial file behind.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
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

static bool has_extension(const char *path, const char *ext) {
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (dot == NULL || (slash != NULL && dot < slash)) return false;
    return mg__io_token_is(dot, dot + strlen(dot), ext);
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
                 ".txt/.el/.wel/.edges, .gr, .mgb); name it (opts->format; mgraph --format)",
                 path);
    if (opts->progress) opts->progress(0.0, opts->progress_user);

    if (format == MG_FORMAT_BINARY) {
        MG__TRY(mg__read_binary(ctx, path, opts, &graph));
        if (opts->undirected != -1 && (opts->undirected == 1) == graph->directed)
            MG__TRY(rebuild(ctx, &graph, opts, opts->undirected == 0));
        if (opts->ignore_weights) drop_weights(graph);
    } else {
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
        MG__TRY(mg__graph_from_coo(ctx, &graph, &coo, &go));
        graph->index_base = coo.index_base;
    }
    if (opts->progress) opts->progress(1.0, opts->progress_user);
    *g = graph;
    graph = NULL;

cleanup:
    mg__coo_free(&coo);
    mg_graph_free(&graph);
    return status;
}

/* ---- writing ----------------------------------------------------------------------------------- */

mg_status mg__atomic_open(mg_context ctx, const char *path, mg__atomic_file *af) {
    memset(af, 0, sizeof *af);
    af->path = path;
    const size_t len = strlen(path) + 32;
    af->tmp_path = mg__malloc(len);
    if (af->tmp_path == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_graph_write: out of memory");
    snprintf(af->tmp_path, len, "%s.tmp.%ld", path, (long)getpid());
    af->file = fopen(af->tmp_path, "wb");
    if (af->file == NULL) {
        int e = errno;
        mg__free(af->tmp_path);
        af->tmp_path = NULL;
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_write: cannot create %s: %s", path,
                         strerror(e));
    }
    return MG_SUCCESS;
}

mg_status mg__atomic_write(mg_context ctx, mg__atomic_file *af, const void *data, size_t bytes) {
    if (bytes == 0 || fwrite(data, 1, bytes, af->file) == bytes) return MG_SUCCESS;
    return mg__error(ctx, MG_IO_ERROR, "mg_graph_write: error writing %s: %s", af->path,
                     strerror(errno));
}

mg_status mg__atomic_commit(mg_context ctx, mg__atomic_file *af) {
    int failed = fflush(af->file) != 0 || ferror(af->file);
    int e = errno;
    if (fclose(af->file) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    af->file = NULL;
    if (failed) {
        mg__atomic_abort(af);
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_write: error writing %s: %s", af->path,
                         strerror(e));
    }
    if (rename(af->tmp_path, af->path) != 0) {
        e = errno;
        mg__atomic_abort(af);
        return mg__error(ctx, MG_IO_ERROR, "mg_graph_write: cannot rename the finished file to %s: %s",
                         af->path, strerror(e));
    }
    mg__free(af->tmp_path);
    af->tmp_path = NULL;
    return MG_SUCCESS;
}

void mg__atomic_abort(mg__atomic_file *af) {
    if (af->file != NULL) fclose(af->file);
    af->file = NULL;
    if (af->tmp_path != NULL) remove(af->tmp_path);
    mg__free(af->tmp_path);
    af->tmp_path = NULL;
}

mg_status mg_graph_write(mg_context ctx, const mg_graph g, const char *path, mg_format format) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    status = mg__check_graph(ctx, g, "mg_graph_write: g");
    if (status != MG_SUCCESS) return status;
    if (path == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_write: path is NULL");
    if (format == MG_FORMAT_AUTO) {
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
