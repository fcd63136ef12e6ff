/*
 * graphalytics.c — LDBC Graphalytics datasets (the benchmark's specification, "Data format"):
 * NAME.properties (Java properties: "key = value", '#' comments) names a vertex file, one 64-bit id
 * per line, and an edge file, "source destination [weight]" per line, with any ids.
 *
 * Vertex v is the v-th smallest file id, so the ids array is sorted: a lookup is a binary search,
 * and the order of ids is the order of vertices (a component's smallest vertex is its smallest
 * id, and label propagation's "smallest label" tie-break means the same in both numberings).
 * The files are read serially: the benchmark's graphs load once per run of six algorithms.
 *
 * Writing turns any graph into such a dataset (ids = vertex + the graph's index base, so a
 * round trip gives the same numbering), each file through the whole-or-nothing temporary of
 * graph_file.c, the properties file renamed last.
 */
#include "io_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>

#define CALL_PROPS "mg_graphalytics_read_properties"
#define CALL_READ "mg_graphalytics_read"

/* ---- properties -------------------------------------------------------------------------------- */

/* Copies [s, e) into dst (size bytes); false when it does not fit. */
static bool copy_token(char *dst, size_t size, const char *s, const char *e) {
    if ((size_t)(e - s) >= size) return false;
    memcpy(dst, s, (size_t)(e - s));
    dst[e - s] = '\0';
    return true;
}

/* dst = the folder of `beside` joined with [s, e) (as is when absolute). */
static bool resolve_path(char *dst, size_t size, const char *beside, const char *s, const char *e) {
    const char *slash = strrchr(beside, '/');
    size_t dir = (*s == '/' || slash == NULL) ? 0 : (size_t)(slash - beside) + 1;
    if (dir + (size_t)(e - s) >= size) return false;
    memcpy(dst, beside, dir);
    memcpy(dst + dir, s, (size_t)(e - s));
    dst[dir + (size_t)(e - s)] = '\0';
    return true;
}

static const struct {
    const char *name;
    unsigned bit;
} ALGORITHMS[] = {{"bfs", MG_GA_BFS}, {"cdlp", MG_GA_CDLP}, {"lcc", MG_GA_LCC},
                  {"pr", MG_GA_PR},   {"sssp", MG_GA_SSSP}, {"wcc", MG_GA_WCC}};

/* The keys under graph.NAME. that are read; the others (meta.*, edge-properties.types,
 * sssp.weight-property) describe the graph for reports and are skipped. */
enum { K_VFILE, K_EFILE, K_DIRECTED, K_NAMES, K_ALGOS, K_BFS_SRC, K_SSSP_SRC, K_CDLP_IT, K_PR_IT,
       K_PR_DAMP, K_COUNT };
static const char *const KEYS[K_COUNT] = {
    "vertex-file", "edge-file", "directed", "edge-properties.names", "algorithms",
    "bfs.source-vertex", "sssp.source-vertex", "cdlp.max-iterations", "pr.num-iterations",
    "pr.damping-factor"};

/* Parses one value [s, e) of key k at line into props; an error names the line. */
static mg_status parse_value(mg_context ctx, const char *path, uint64_t line, int k, const char *s,
                             const char *e, mg_graphalytics_properties *p) {
    const int len = mg__io_token_len(s, e);
    uint64_t u = 0;
    const char *q = s;
    switch (k) {
    case K_VFILE:
    case K_EFILE:
        if (s == e) break;
        if (!resolve_path(k == K_VFILE ? p->vertex_file : p->edge_file, sizeof p->vertex_file,
                          path, s, e))
            return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                    "graph.%s.%s: the path is too long", p->name, KEYS[k]);
        return MG_SUCCESS;
    case K_DIRECTED:
        if (mg__io_token_is(s, e, "true") || mg__io_token_is(s, e, "false")) {
            p->directed = mg__io_token_is(s, e, "true");
            return MG_SUCCESS;
        }
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                "graph.%s.directed must be true or false, not '%.*s'", p->name,
                                len, s);
    case K_NAMES:
    case K_ALGOS: {
        int names = 0;
        while (s < e) {
            const char *c = memchr(s, ',', (size_t)(e - s));
            const char *ne = c ? c : e, *ns = s;
            while (ns < ne && mg__io_space(*ns)) ns++;
            while (ne > ns && mg__io_space(ne[-1])) ne--;
            s = c ? c + 1 : e;
            if (ns == ne) continue;
            names++;
            if (k == K_NAMES) continue;
            size_t a = 0;
            while (a < sizeof ALGORITHMS / sizeof ALGORITHMS[0] &&
                   !mg__io_token_is(ns, ne, ALGORITHMS[a].name))
                a++;
            if (a == sizeof ALGORITHMS / sizeof ALGORITHMS[0])
                return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                        "graph.%s.algorithms: unknown algorithm '%.*s' (bfs, "
                                        "cdlp, lcc, pr, sssp, wcc)",
                                        p->name, mg__io_token_len(ns, ne), ns);
            p->algorithms |= ALGORITHMS[a].bit;
        }
        /* One column after source and destination is what the edge file can carry here. */
        if (k == K_NAMES && names > 1)
            return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                    "graph.%s.edge-properties.names lists %d properties; only "
                                    "one (the weight) is supported",
                                    p->name, names);
        if (k == K_NAMES) p->weighted = names == 1;
        return MG_SUCCESS;
    }
    case K_BFS_SRC:
    case K_SSSP_SRC:
    case K_CDLP_IT:
    case K_PR_IT: {
        int r = mg__io_parse_u64(&q, e, &u);
        if (r == MG__TOK_OK && q == e) {
            if (k == K_BFS_SRC || k == K_SSSP_SRC) {
                *(k == K_BFS_SRC ? &p->bfs_source : &p->sssp_source) = u;
                return MG_SUCCESS;
            }
            if (u <= INT32_MAX) {
                *(k == K_CDLP_IT ? &p->cdlp_iterations : &p->pr_iterations) = (uint32_t)u;
                return MG_SUCCESS;
            }
        }
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                "graph.%s.%s must be a whole number%s, not '%.*s'", p->name,
                                KEYS[k], k == K_CDLP_IT || k == K_PR_IT ? " up to 2^31-1" : "",
                                len, s);
    }
    case K_PR_DAMP: {
        double d = 0;
        int r = mg__io_parse_real(&q, e, &d);
        if (r == MG__TOK_OK && q == e && d >= 0 && d <= 1) {
            p->pr_damping = d;
            return MG_SUCCESS;
        }
        return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                "graph.%s.pr.damping-factor must be a number in [0, 1], not "
                                "'%.*s'",
                                p->name, len, s);
    }
    }
    return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                            "graph.%s.%s has no value", p->name, KEYS[k]);
}

mg_status mg_graphalytics_read_properties(mg_context ctx, const char *path,
                                          mg_graphalytics_properties *props) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    uint64_t seen[K_COUNT] = {0}; /* the line that set each key, 0 for none */
    if (path == NULL || props == NULL)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, CALL_PROPS ": %s is NULL", path ? "props" : "path");
    memset(props, 0, sizeof *props);

    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strstr(base, ".properties");
    if (dot == NULL || dot[11] != '\0' || dot == base)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, CALL_PROPS ": %s: the name must be NAME.properties",
                 path);
    if (!copy_token(props->name, sizeof props->name, base, dot))
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, CALL_PROPS ": %s: the graph's name is too long", path);
    char prefix[sizeof props->name + 8];
    snprintf(prefix, sizeof prefix, "graph.%s.", props->name);
    const size_t plen = strlen(prefix);

    MG__TRY(mg__io_map(ctx, CALL_PROPS, path, &file));
    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        while (ls < le && mg__io_space(*ls)) ls++;
        if (ls == le || *ls == '#' || *ls == '!') continue;
        MG__TRY(mg__io_check_text(ctx, CALL_PROPS, path, line, ls, le));
        const char *eq = memchr(ls, '=', (size_t)(le - ls));
        if (eq == NULL)
            MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                     "expected 'key = value', got '%.*s'",
                                     mg__io_token_len(ls, le), ls));
        const char *ke = eq, *vs = eq + 1, *ve = le;
        while (ke > ls && mg__io_space(ke[-1])) ke--;
        while (vs < ve && mg__io_space(*vs)) vs++;
        while (ve > vs && mg__io_space(ve[-1])) ve--;
        if ((size_t)(ke - ls) <= plen || memcmp(ls, prefix, plen) != 0) continue;
        const char *ks = ls + plen;
        int k = 0;
        while (k < K_COUNT && !((size_t)(ke - ks) == strlen(KEYS[k]) &&
                                memcmp(ks, KEYS[k], (size_t)(ke - ks)) == 0))
            k++;
        if (k == K_COUNT) continue;
        if (seen[k])
            MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_PROPS, path, line,
                                     "%s%s is repeated (first on line %llu)", prefix, KEYS[k],
                                     (unsigned long long)seen[k]));
        seen[k] = line;
        MG__TRY(parse_value(ctx, path, line, k, vs, ve, props));
    }

    /* What the graph needs, then what each listed algorithm needs. */
    static const struct {
        int key;
        unsigned needed_by; /* 0: always */
    } REQUIRED[] = {{K_VFILE, 0},          {K_EFILE, 0},         {K_DIRECTED, 0},
                    {K_BFS_SRC, MG_GA_BFS}, {K_SSSP_SRC, MG_GA_SSSP}, {K_CDLP_IT, MG_GA_CDLP},
                    {K_PR_IT, MG_GA_PR},   {K_PR_DAMP, MG_GA_PR}};
    for (size_t i = 0; i < sizeof REQUIRED / sizeof REQUIRED[0]; i++) {
        unsigned by = REQUIRED[i].needed_by;
        if (seen[REQUIRED[i].key] || (by && !(props->algorithms & by))) continue;
        MG__FAIL(ctx, MG_PARSE_ERROR, CALL_PROPS ": %s: %s%s is missing%s", path, prefix,
                 KEYS[REQUIRED[i].key], by ? " (an algorithm listed needs it)" : "");
    }
    if ((props->algorithms & MG_GA_SSSP) && !props->weighted)
        MG__FAIL(ctx, MG_PARSE_ERROR,
                 CALL_PROPS ": %s: sssp is listed but %sedge-properties.names names no weight",
                 path, prefix);

cleanup:
    mg__io_unmap(&file);
    return status;
}

/* ---- vertex and edge files --------------------------------------------------------------------- */

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

mg_status mg_graphalytics_vertex(mg_context ctx, const uint64_t *ids, uint32_t n, uint64_t id,
                                 uint32_t *vertex) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (ids == NULL || vertex == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graphalytics_vertex: %s is NULL",
                         ids ? "vertex" : "ids");
    const uint64_t *hit = bsearch(&id, ids, n, sizeof *ids, compare_u64);
    if (hit == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graphalytics_vertex: no vertex has the id %llu",
                         (unsigned long long)id);
    *vertex = (uint32_t)(hit - ids);
    return MG_SUCCESS;
}

/* A token error at line as a message (what names the column). */
static mg_status token_error(mg_context ctx, const char *path, uint64_t line, int r,
                             const char *what, const char *s, const char *e) {
    const char *why = r == MG__TOK_NEGATIVE   ? "is negative"
                      : r == MG__TOK_OVERFLOW ? "does not fit in 64 bits"
                                              : "is not a whole number";
    return mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line, "the %s '%.*s' %s", what,
                            mg__io_token_len(s, e), s, why);
}

/* The sorted ids of the vertex file; a repeated id names the lines of both. */
static mg_status read_vertices(mg_context ctx, const char *path, uint64_t **ids_out,
                               uint32_t *n_out) {
    mg_status status = MG_SUCCESS;
    mg__mapped_file file = {0};
    uint64_t *ids = NULL;
    size_t n = 0, cap = 0;
    MG__TRY(mg__io_map(ctx, CALL_READ, path, &file));
    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *tok[2][2];
        int count = mg__io_tokens(ls, le, tok, 2);
        if (count == 0) continue;
        MG__TRY(mg__io_check_text(ctx, CALL_READ, path, line, ls, le));
        if (count != 1)
            MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                     "a vertex line holds one id, this one has %d columns",
                                     count));
        if (n == MG__IO_MAX_VERTICES)
            MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                     "more than %llu vertices",
                                     (unsigned long long)MG__IO_MAX_VERTICES));
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            uint64_t *grown = mg__realloc(ids, mg__mul_size(cap, sizeof *ids));
            if (grown == NULL)
                MG__FAIL(ctx, MG_OUT_OF_MEMORY, CALL_READ ": %s: no memory for the vertex ids",
                         path);
            ids = grown;
        }
        const char *p = tok[0][0];
        int r = mg__io_parse_u64(&p, tok[0][1], &ids[n]);
        if (r != MG__TOK_OK) MG__TRY(token_error(ctx, path, line, r, "vertex id", tok[0][0], tok[0][1]));
        n++;
    }
    if (n == 0) MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line, "no vertices"));
    qsort(ids, n, sizeof *ids, compare_u64);
    for (size_t i = 1; i < n; i++) {
        if (ids[i] != ids[i - 1]) continue;
        /* Rare: find the two lines again rather than keep a line per vertex. */
        uint64_t first = 0, id = ids[i];
        cur = (mg__line_cursor){file.data, file.data + file.size, 1};
        while (mg__next_line(&cur, &ls, &le, &line)) {
            const char *p = ls;
            uint64_t v;
            if (mg__io_parse_u64(&p, le, &v) != MG__TOK_OK || v != id) continue;
            if (first) break;
            first = line;
        }
        MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                 "the vertex id %llu is repeated (first on line %llu)",
                                 (unsigned long long)id, (unsigned long long)first));
    }
    *ids_out = ids;
    *n_out = (uint32_t)n;
    ids = NULL;

cleanup:
    mg__free(ids);
    mg__io_unmap(&file);
    return status;
}

mg_status mg_graphalytics_read(mg_context ctx, const mg_graphalytics_properties *props, mg_graph *g,
                               uint64_t **ids_out, uint64_t *edges) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__mapped_file file = {0};
    uint64_t *ids = NULL;
    uint32_t *src = NULL, *dst = NULL;
    float *w = NULL;
    uint32_t n = 0;
    size_t m = 0, cap = 0;
    if (props == NULL || g == NULL || ids_out == NULL)
        MG__FAIL(ctx, MG_INVALID_ARGUMENT, CALL_READ ": %s is NULL",
                 props == NULL ? "props" : g == NULL ? "g" : "ids");
    *g = NULL;
    *ids_out = NULL;
    MG__TRY(read_vertices(ctx, props->vertex_file, &ids, &n));

    const char *path = props->edge_file;
    const int columns = props->weighted ? 3 : 2;
    MG__TRY(mg__io_map(ctx, CALL_READ, path, &file));
    mg__line_cursor cur = {file.data, file.data + file.size, 1};
    const char *ls, *le;
    uint64_t line = 0;
    while (mg__next_line(&cur, &ls, &le, &line)) {
        const char *tok[4][2];
        int count = mg__io_tokens(ls, le, tok, 4);
        if (count == 0) continue;
        MG__TRY(mg__io_check_text(ctx, CALL_READ, path, line, ls, le));
        if (count != columns)
            MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                     "an edge line needs %d columns (source destination%s), "
                                     "this one has %d",
                                     columns, props->weighted ? " weight" : "", count));
        if (m == cap) {
            cap = cap ? 2 * cap : 1024;
            uint32_t *s2 = mg__realloc(src, mg__mul_size(cap, sizeof *src));
            if (s2 != NULL) src = s2;
            uint32_t *d2 = s2 ? mg__realloc(dst, mg__mul_size(cap, sizeof *dst)) : NULL;
            if (d2 != NULL) dst = d2;
            float *w2 = d2 ? mg__realloc(w, mg__mul_size(cap, sizeof *w)) : NULL;
            if (w2 == NULL)
                MG__FAIL(ctx, MG_OUT_OF_MEMORY, CALL_READ ": %s: no memory for the edges", path);
            w = w2;
        }
        uint32_t *ends[2] = {&src[m], &dst[m]};
        for (int c = 0; c < 2; c++) {
            const char *p = tok[c][0];
            uint64_t id;
            int r = mg__io_parse_u64(&p, tok[c][1], &id);
            if (r != MG__TOK_OK)
                MG__TRY(token_error(ctx, path, line, r, c ? "destination" : "source", tok[c][0],
                                    tok[c][1]));
            const uint64_t *hit = bsearch(&id, ids, n, sizeof *ids, compare_u64);
            if (hit == NULL)
                MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                         "the %s %llu is not in the vertex file %s",
                                         c ? "destination" : "source", (unsigned long long)id,
                                         props->vertex_file));
            *ends[c] = (uint32_t)(hit - ids);
        }
        w[m] = 1;
        if (props->weighted) {
            const char *p = tok[2][0];
            double x = 0;
            int r = mg__io_parse_real(&p, tok[2][1], &x);
            if (r != MG__TOK_OK || !(x >= 0 && x <= FLT_MAX))
                MG__TRY(mg__io_fail_line(ctx, MG_PARSE_ERROR, CALL_READ, path, line,
                                         "the weight '%.*s' is not a finite, non-negative number",
                                         mg__io_token_len(tok[2][0], tok[2][1]), tok[2][0]));
            w[m] = (float)x;
        }
        m++;
    }

    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = props->directed;
    go.keep_self_loops = true; /* a self loop is an edge of the benchmark's graph (PR's out-degree) */
    MG__TRY(mg_graph_create_from_coo(ctx, g, n, m, src, dst, props->weighted ? w : NULL,
                                     props->weighted ? MG_WEIGHT_FLOAT : MG_WEIGHT_NONE, &go));
    *ids_out = ids;
    ids = NULL;
    if (edges != NULL) *edges = m;

cleanup:
    mg__free(ids);
    mg__free(src);
    mg__free(dst);
    mg__free(w);
    mg__io_unmap(&file);
    return status;
}

/* ---- writing ----------------------------------------------------------------------------------- */

#define CALL_WRITE "mg_graphalytics_write"
#define OUT_BUFFER (1u << 20)

mg_status mg_graphalytics_default_properties(mg_context ctx, const mg_graph g,
                                             mg_graphalytics_properties *props) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    status = mg__check_graph(ctx, g, "mg_graphalytics_default_properties: g");
    if (status != MG_SUCCESS) return status;
    if (props == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graphalytics_default_properties: props is NULL");
    memset(props, 0, sizeof *props);
    props->directed = g->directed;
    props->weighted = g->weight_type != MG_WEIGHT_NONE;
    props->algorithms = MG_GA_BFS | MG_GA_CDLP | MG_GA_LCC | MG_GA_PR | MG_GA_WCC |
                        (props->weighted ? MG_GA_SSSP : 0u);
    /* The busiest vertex reaches the most at the first step; on a generated graph vertex 0 may
     * well be isolated, and a traversal from it measures nothing. */
    uint32_t best = 0;
    for (uint32_t v = 1; v < g->n; v++)
        if (g->out.offsets[v + 1] - g->out.offsets[v] > g->out.offsets[best + 1] - g->out.offsets[best])
            best = v;
    props->bfs_source = props->sssp_source = (uint64_t)best + (uint64_t)g->index_base;
    props->pr_damping = 0.85;
    props->pr_iterations = 10;
    props->cdlp_iterations = 10;
    return MG_SUCCESS;
}

/* A real as the shortest of %.15g and %.17g that reads back as the same double (0.85, not
 * 0.84999999999999998). */
static void put_real(char *dst, size_t size, double x) {
    snprintf(dst, size, "%.15g", x);
    if (strtod(dst, NULL) != x) snprintf(dst, size, "%.17g", x);
}

/* The properties file's text for NAME; the keys the reader reads, in the specification's names. */
static void properties_text(char *buf, size_t size, const char *name, const mg_graph g,
                            uint64_t edge_lines, const mg_graphalytics_properties *p) {
    const bool weighted = g->weight_type != MG_WEIGHT_NONE;
    char damping[32];
    put_real(damping, sizeof damping, p->pr_damping);
    size_t len = (size_t)snprintf(
        buf, size,
        "# An LDBC Graphalytics dataset written by mgraph %d.%d.%d; vertex ids are the source "
        "graph's (index base %d).\n"
        "graph.%s.vertex-file = %s.v\n"
        "graph.%s.edge-file = %s.e\n"
        "graph.%s.meta.vertices = %u\n"
        "graph.%s.meta.edges = %llu\n"
        "graph.%s.directed = %s\n",
        MG_VERSION_MAJOR, MG_VERSION_MINOR, MG_VERSION_PATCH, g->index_base, name, name, name,
        name, name, g->n, name, (unsigned long long)edge_lines, name,
        g->directed ? "true" : "false");
    /* The benchmark's weights are reals; an integer weight is written as one. */
    if (weighted)
        len += (size_t)snprintf(buf + len, size - len,
                                "graph.%s.edge-properties.names = weight\n"
                                "graph.%s.edge-properties.types = real\n",
                                name, name);
    len += (size_t)snprintf(buf + len, size - len, "graph.%s.algorithms = ", name);
    const char *sep = "";
    for (size_t a = 0; a < sizeof ALGORITHMS / sizeof ALGORITHMS[0]; a++) {
        if (!(p->algorithms & ALGORITHMS[a].bit)) continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, ALGORITHMS[a].name);
        sep = ", ";
    }
    len += (size_t)snprintf(buf + len, size - len, "\n");
    if (p->algorithms & MG_GA_BFS)
        len += (size_t)snprintf(buf + len, size - len, "graph.%s.bfs.source-vertex = %llu\n", name,
                                (unsigned long long)p->bfs_source);
    if (p->algorithms & MG_GA_CDLP)
        len += (size_t)snprintf(buf + len, size - len, "graph.%s.cdlp.max-iterations = %u\n", name,
                                p->cdlp_iterations);
    if (p->algorithms & MG_GA_PR)
        len += (size_t)snprintf(buf + len, size - len,
                                "graph.%s.pr.damping-factor = %s\n"
                                "graph.%s.pr.num-iterations = %u\n",
                                name, damping, name, p->pr_iterations);
    if (p->algorithms & MG_GA_SSSP)
        snprintf(buf + len, size - len,
                 "graph.%s.sssp.weight-property = weight\n"
                 "graph.%s.sssp.source-vertex = %llu\n",
                 name, name, (unsigned long long)p->sssp_source);
}

/* What the reader would refuse, refused before anything is written; *name_len gets NAME's length. */
static mg_status check_write(mg_context ctx, const mg_graph g, const char *path,
                             const mg_graphalytics_properties *p, size_t *name_len) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strstr(base, ".properties");
    if (dot == NULL || dot[11] != '\0' || dot == base)
        return mg__error(ctx, MG_INVALID_ARGUMENT, CALL_WRITE ": %s: the name must be NAME.properties",
                         path);
    *name_len = (size_t)(dot - base);
    if (*name_len >= sizeof p->name)
        return mg__error(ctx, MG_INVALID_ARGUMENT, CALL_WRITE ": %s: the graph's name is too long",
                         path);
    for (const char *c = base; c < dot; c++)
        if (mg__io_space(*c) || *c == '=' || *c == ':' || *c == '\n')
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             CALL_WRITE ": %s: the graph's name may not hold spaces, '=' or ':' "
                             "(it is part of every key of the properties file)",
                             path);
    if (g->n == 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": %s: the graph has no vertices (a dataset needs one)", path);
    if (g->weight_type != MG_WEIGHT_NONE && g->weight_min < 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": %s: the graph has a negative weight (%g); the benchmark's "
                         "weights are non-negative",
                         path, g->weight_min);
    const unsigned all = MG_GA_BFS | MG_GA_CDLP | MG_GA_LCC | MG_GA_PR | MG_GA_SSSP | MG_GA_WCC;
    if (p->algorithms & ~all)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": props->algorithms 0x%x has bits that name no algorithm",
                         p->algorithms);
    if ((p->algorithms & MG_GA_SSSP) && g->weight_type == MG_WEIGHT_NONE)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": props->algorithms lists sssp but the graph has no weights");
    const uint64_t lo = (uint64_t)g->index_base, hi = lo + g->n;
    for (int s = 0; s < 2; s++) {
        const unsigned bit = s ? MG_GA_SSSP : MG_GA_BFS;
        const uint64_t src = s ? p->sssp_source : p->bfs_source;
        if ((p->algorithms & bit) && (src < lo || src >= hi))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             CALL_WRITE ": props->%s_source %llu is not a vertex (ids %llu to %llu)",
                             s ? "sssp" : "bfs", (unsigned long long)src, (unsigned long long)lo,
                             (unsigned long long)hi - 1);
    }
    if ((p->algorithms & MG_GA_PR) && !(p->pr_damping >= 0 && p->pr_damping <= 1))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": props->pr_damping %g is not in [0, 1]", p->pr_damping);
    if (((p->algorithms & MG_GA_PR) && p->pr_iterations > INT32_MAX) ||
        ((p->algorithms & MG_GA_CDLP) && p->cdlp_iterations > INT32_MAX))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         CALL_WRITE ": props->%s_iterations is above 2^31-1",
                         p->pr_iterations > INT32_MAX ? "pr" : "cdlp");
    return MG_SUCCESS;
}

/* Writes the vertex file (one id per line) and the edge file into their open temporaries;
 * *edge_lines gets the edge file's lines. */
static mg_status write_lists(mg_context ctx, const mg_graph g, char *buf, mg__atomic_file *vf,
                             mg__atomic_file *ef, uint64_t *edge_lines) {
    mg_status status = MG_SUCCESS;
    const uint64_t base = (uint64_t)g->index_base;
    const uint64_t *off = g->out.offsets;
    const uint32_t *idx = g->out.indices;
    const int32_t *wi = g->weight_type == MG_WEIGHT_INT32 ? g->out.weights : NULL;
    const float *wf = g->weight_type == MG_WEIGHT_FLOAT ? g->out.weights : NULL;
    char *p = buf;
    for (uint32_t v = 0; v < g->n; v++) {
        if ((size_t)(p - buf) > OUT_BUFFER - 32) {
            MG__TRY(mg__atomic_write(ctx, vf, buf, (size_t)(p - buf)));
            p = buf;
        }
        p = mg__io_put_u64(p, v + base);
        *p++ = '\n';
    }
    MG__TRY(mg__atomic_write(ctx, vf, buf, (size_t)(p - buf)));
    p = buf;
    uint64_t lines = 0;
    for (uint32_t u = 0; u < g->n; u++) {
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            /* An undirected graph stores both directions (a self loop once); the file lists each
             * edge once, as the benchmark's undirected datasets do. */
            if (!g->directed && idx[e] < u) continue;
            if ((size_t)(p - buf) > OUT_BUFFER - 128) {
                MG__TRY(mg__atomic_write(ctx, ef, buf, (size_t)(p - buf)));
                p = buf;
            }
            p = mg__io_put_u64(p, u + base);
            *p++ = ' ';
            p = mg__io_put_u64(p, idx[e] + base);
            if (wi) { /* non-negative: check_write */
                *p++ = ' ';
                p = mg__io_put_u64(p, (uint64_t)wi[e]);
            } else if (wf) {
                p += snprintf(p, 40, " %.9g", (double)wf[e]); /* 9 digits give back the float */
            }
            *p++ = '\n';
            lines++;
        }
    }
    MG__TRY(mg__atomic_write(ctx, ef, buf, (size_t)(p - buf)));
    *edge_lines = lines;

cleanup:
    return status;
}

mg_status mg_graphalytics_write(mg_context ctx, const mg_graph g, const char *path,
                                const mg_graphalytics_properties *props) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    mg__atomic_file files[3] = {{0}}; /* .v, .e, .properties */
    char *buf = NULL, *names = NULL;
    mg_graphalytics_properties defaults;
    size_t name_len = 0;
    MG__TRY(mg__check_graph(ctx, g, CALL_WRITE ": g"));
    if (path == NULL) MG__FAIL(ctx, MG_INVALID_ARGUMENT, CALL_WRITE ": path is NULL");
    if (props == NULL) {
        MG__TRY(mg_graphalytics_default_properties(ctx, g, &defaults));
        props = &defaults;
    }
    MG__TRY(check_write(ctx, g, path, props, &name_len));

    /* DIR/NAME.v and DIR/NAME.e: path less "properties", plus "v" or "e". */
    const size_t stem = strlen(path) - strlen("properties");
    names = mg__malloc(2 * (stem + 2));
    buf = mg__malloc(OUT_BUFFER);
    if (names == NULL || buf == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, CALL_WRITE ": out of memory");
    char *vpath = names, *epath = names + stem + 2;
    memcpy(vpath, path, stem);
    memcpy(epath, path, stem);
    memcpy(vpath + stem, "v", 2);
    memcpy(epath + stem, "e", 2);
    const char *paths[3] = {vpath, epath, path};
    /* Every file is created before any is written: a folder that cannot take one fails first. */
    for (int f = 0; f < 3; f++) MG__TRY(mg__atomic_open(ctx, paths[f], CALL_WRITE, &files[f]));
    uint64_t edge_lines = 0;
    MG__TRY(write_lists(ctx, g, buf, &files[0], &files[1], &edge_lines));
    char name[sizeof props->name];
    memcpy(name, strrchr(path, '/') ? strrchr(path, '/') + 1 : path, name_len);
    name[name_len] = '\0';
    properties_text(buf, OUT_BUFFER, name, g, edge_lines, props);
    MG__TRY(mg__atomic_write(ctx, &files[2], buf, strlen(buf)));
    for (int f = 0; f < 3; f++) MG__TRY(mg__atomic_commit(ctx, &files[f]));

cleanup:
    for (int f = 0; f < 3; f++) mg__atomic_abort(&files[f]);
    mg__free(buf);
    mg__free(names);
    return status;
}
