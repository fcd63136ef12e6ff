/*
 * udf.c — user-defined edge programs on the CPU: their definition, the JIT and its cache, and the
 * engine that runs them (issue 18; after SuiteSparse:GraphBLAS's user-defined operators and GxB JIT).
 *
 * The engine's loops are written once, below, as the macro text MG__UDF_KERNELS over a value type T
 * and four operations (UDF_CONTRIB, UDF_COMBINE, UDF_IDENTITY, UDF_APPLY). The host runner expands
 * it here once per value type with the operations calling the user's function pointers; the JIT
 * turns the same text into a string (the preprocessor's #), appends it to the user's snippets made
 * into static inline functions, and compiles that with the system C compiler, so the snippets
 * inline into the loops. The loops work on a range (of bitmap words or of sources) and the OpenMP
 * threading stays here, so the generated object needs no OpenMP.
 *
 * Kernels:
 *   pull    each eligible destination of 64-vertex words [lo, hi) scans its in-edges from active
 *           sources, combines (an ANY stops at the first; a mode collects into the thread's
 *           scratch, sorts and counts) and applies; each thread owns whole words of the output
 *           bitmap.
 *   push    sources [lo, hi) of the frontier combine into acc[d] by compare-and-swap (an ANY
 *           stores) and mark d in a touched bitmap; then
 *   apply   over words [lo, hi) of the touched bitmap applies acc[d], resets it to the identity,
 *           and writes the output bitmap's words.
 *   fill    acc[lo, hi) = identity.
 *   prepare source_only: the contribution of each source [lo, hi) of the frontier, read by the
 *           pull (after the built-in engine's prescale of MG_CONTRIB_SRC_DIV_OUTDEG).
 * The step's choice between pull and push is the built-in engine's (mg__cpu_pull_pays).
 */
#include "engine.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MG__MAGIC_UDF 0x6d67756466ULL

/* No `//` comments and no directives inside these two macros: they are also compiled as a string. */
#define MG__UDF_ARGS                                                                               \
    typedef struct {                                                                               \
        uint32_t n;                                                                                \
        int mode; /* a mode combine (the host runner reads it; the JIT has it as a constant) */    \
        int any;  /* an ANY combine (the same) */                                                  \
        int source_only; /* the definition's source_only (the same) */                             \
        int apply_all;                                                                             \
        int wt;   /* mg_weight_type: 0 none, 1 int32, 2 float */                                   \
        const uint64_t *off;                                                                       \
        const uint32_t *idx;                                                                       \
        const void *w;                                                                             \
        const uint64_t *off2; /* pull along both directions: the other edges (NULL: none) */       \
        const uint32_t *idx2;                                                                      \
        const void *w2;                                                                            \
        const uint64_t *src_off; /* the sources' edges along the program's direction */            \
        const uint32_t *list;    /* push: the active sources (NULL: all) */                        \
        const uint64_t *active_bm; /* pull: the active sources (NULL: all) */                      \
        const uint64_t *mask_bm;                                                                   \
        int complement;                                                                            \
        const void *x;                                                                             \
        void *y;                                                                                   \
        void *acc;                                                                                 \
        void *pre; /* source_only: each active source's contribution (pull) */                     \
        uint64_t *touched;                                                                         \
        uint64_t *out_bm;                                                                          \
        const void *host; /* the host runner's definition */                                       \
    } mg__udf_args;

#define MG__UDF_KERNELS                                                                            \
    static inline double NAME(weight)(const mg__udf_args *a, const void *w, uint64_t e) {          \
        if (a->wt == 1) return (double)((const int32_t *)w)[e];                                    \
        if (a->wt == 2) return (double)((const float *)w)[e];                                      \
        return 1.0;                                                                                \
    }                                                                                              \
    static int NAME(cmp)(const void *p, const void *q) {                                           \
        T u = *(const T *)p, v = *(const T *)q;                                                    \
        return (u > v) - (u < v);                                                                  \
    }                                                                                              \
    /* the most frequent of buf[0, k), ties to the smallest */                                     \
    static T NAME(mode)(T *buf, uint64_t k) {                                                      \
        qsort(buf, k, sizeof *buf, NAME(cmp));                                                     \
        T best = buf[0];                                                                           \
        uint64_t best_count = 0;                                                                   \
        for (uint64_t i = 0; i < k;) {                                                             \
            uint64_t j = i + 1;                                                                    \
            while (j < k && buf[j] == buf[i]) j++;                                                 \
            if (j - i > best_count) {                                                              \
                best_count = j - i;                                                                \
                best = buf[i];                                                                     \
            }                                                                                      \
            i = j;                                                                                 \
        }                                                                                          \
        return best;                                                                               \
    }                                                                                              \
    KEXPORT uint64_t NAME(pull)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch) {    \
        const T *x = (const T *)a->x;                                                              \
        const T *pre = (const T *)a->pre;                                                          \
        T *y = (T *)a->y;                                                                          \
        T *buf = (T *)scratch;                                                                     \
        const uint64_t *active = a->active_bm, *src_off = a->src_off;                              \
        const int64_t words = (int64_t)(((uint64_t)a->n + 63) / 64);                               \
        uint64_t joined = 0;                                                                       \
        for (int64_t wd = lo; wd < hi; wd++) {                                                     \
            uint64_t todo = a->mask_bm ? (a->complement ? ~a->mask_bm[wd] : a->mask_bm[wd]) : ~0ull;\
            if (wd == words - 1 && a->n % 64) todo &= (1ull << (a->n % 64)) - 1;                   \
            uint64_t word_out = 0;                                                                 \
            while (todo) {                                                                         \
                const uint32_t d = (uint32_t)(wd * 64 + __builtin_ctzll(todo));                    \
                todo &= todo - 1;                                                                  \
                T c;                                                                               \
                if (UDF_MODE || UDF_ANY) c = (T)0; else UDF_IDENTITY(c);                           \
                uint64_t k = 0;                                                                    \
                for (int pass = 0; pass < 2 && !(UDF_ANY && k); pass++) {                          \
                    const uint64_t *off = pass ? a->off2 : a->off;                                 \
                    const uint32_t *idx = pass ? a->idx2 : a->idx;                                 \
                    const void *w = pass ? a->w2 : a->w;                                           \
                    if (off == 0) break;                                                           \
                    for (uint64_t e = off[d]; e < off[d + 1]; e++) {                               \
                        const uint32_t s = idx[e];                                                 \
                        if (active && !((active[s >> 6] >> (s & 63)) & 1)) continue;               \
                        T v;                                                                       \
                        if (UDF_SRC_ONLY) v = pre[s];                                              \
                        else UDF_CONTRIB(v, s, d, x[s], NAME(weight)(a, w, e), src_off[s + 1] - src_off[s]);\
                        k++;                                                                       \
                        if (UDF_MODE) buf[k - 1] = v;                                              \
                        else if (UDF_ANY) {                                                        \
                            c = v;                                                                 \
                            break;                                                                 \
                        } else UDF_COMBINE(c, v);                                                  \
                    }                                                                              \
                }                                                                                  \
                if (UDF_MODE && k) c = NAME(mode)(buf, k);                                         \
                if (k == 0 && !a->apply_all) continue;                                             \
                T dv = y[d];                                                                       \
                int joins = 0;                                                                     \
                UDF_APPLY(joins, d, dv, c, k > 0);                                                 \
                y[d] = dv;                                                                         \
                if (joins) {                                                                       \
                    word_out |= 1ull << (d & 63);                                                  \
                    joined++;                                                                      \
                }                                                                                  \
            }                                                                                      \
            if (a->out_bm) a->out_bm[wd] = word_out;                                               \
        }                                                                                          \
        return joined;                                                                             \
    }                                                                                              \
    /* ANY: the first store to acc[d] that also finds d untouched is enough; a store racing it     \
     * writes another whole contribution (an atomic store of T), as good */                        \
    KEXPORT uint64_t NAME(push)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch) {    \
        const T *x = (const T *)a->x;                                                              \
        T *acc = (T *)a->acc;                                                                      \
        uint64_t *touched = a->touched;                                                            \
        const uint64_t *mask = a->mask_bm;                                                         \
        const uint64_t skip = (uint64_t)a->complement;                                             \
        (void)scratch;                                                                             \
        for (int64_t i = lo; i < hi; i++) {                                                        \
            const uint32_t s = a->list ? a->list[i] : (uint32_t)i;                                 \
            T xs;                                                                                  \
            __atomic_load(x + s, &xs, __ATOMIC_RELAXED);                                           \
            const uint64_t deg = a->src_off[s + 1] - a->src_off[s];                                \
            T vs = xs;                                                                             \
            if (UDF_SRC_ONLY) UDF_CONTRIB(vs, s, 0u, xs, 1.0, deg);                                \
            for (uint64_t e = a->src_off[s]; e < a->src_off[s + 1]; e++) {                         \
                const uint32_t d = a->idx[e];                                                      \
                if (mask && ((mask[d >> 6] >> (d & 63)) & 1) == skip) continue;                    \
                const uint64_t bit = 1ull << (d & 63);                                             \
                if (UDF_ANY && (__atomic_load_n(&touched[d >> 6], __ATOMIC_RELAXED) & bit)) continue;\
                T v;                                                                               \
                if (UDF_SRC_ONLY) v = vs;                                                          \
                else UDF_CONTRIB(v, s, d, xs, NAME(weight)(a, a->w, e), deg);                      \
                if (UDF_ANY) {                                                                     \
                    __atomic_store(acc + d, &v, __ATOMIC_RELAXED);                                 \
                    __atomic_fetch_or(&touched[d >> 6], bit, __ATOMIC_RELAXED);                    \
                    continue;                                                                      \
                }                                                                                  \
                T old, nv;                                                                         \
                __atomic_load(acc + d, &old, __ATOMIC_RELAXED);                                    \
                do {                                                                               \
                    nv = old;                                                                      \
                    UDF_COMBINE(nv, v);                                                            \
                } while (!__atomic_compare_exchange(acc + d, &old, &nv, 0, __ATOMIC_RELAXED,       \
                                                    __ATOMIC_RELAXED));                            \
                if (!(__atomic_load_n(&touched[d >> 6], __ATOMIC_RELAXED) & bit))                  \
                    __atomic_fetch_or(&touched[d >> 6], bit, __ATOMIC_RELAXED);                    \
            }                                                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    /* source_only: pre[s] for the active sources [lo, hi) */                                      \
    KEXPORT uint64_t NAME(prepare)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch) { \
        const T *x = (const T *)a->x;                                                              \
        T *pre = (T *)a->pre;                                                                      \
        (void)scratch;                                                                             \
        for (int64_t i = lo; i < hi; i++) {                                                        \
            const uint32_t s = a->list ? a->list[i] : (uint32_t)i;                                 \
            UDF_CONTRIB(pre[s], s, 0u, x[s], 1.0, a->src_off[s + 1] - a->src_off[s]);              \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    KEXPORT uint64_t NAME(apply)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch) {   \
        T *acc = (T *)a->acc;                                                                      \
        T *y = (T *)a->y;                                                                          \
        uint64_t joined = 0;                                                                       \
        (void)scratch;                                                                             \
        for (int64_t wd = lo; wd < hi; wd++) {                                                     \
            uint64_t todo = a->touched[wd], word_out = 0;                                          \
            a->touched[wd] = 0;                                                                    \
            while (todo) {                                                                         \
                const uint32_t d = (uint32_t)(wd * 64 + __builtin_ctzll(todo));                    \
                todo &= todo - 1;                                                                  \
                T c = acc[d], dv = y[d];                                                           \
                int joins = 0;                                                                     \
                if (!UDF_ANY) UDF_IDENTITY(acc[d]);                                                \
                UDF_APPLY(joins, d, dv, c, 1);                                                     \
                y[d] = dv;                                                                         \
                if (joins) {                                                                       \
                    word_out |= 1ull << (d & 63);                                                  \
                    joined++;                                                                      \
                }                                                                                  \
            }                                                                                      \
            if (a->out_bm) a->out_bm[wd] = word_out;                                               \
        }                                                                                          \
        return joined;                                                                             \
    }                                                                                              \
    KEXPORT uint64_t NAME(fill)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch) {    \
        T *acc = (T *)a->acc;                                                                      \
        (void)scratch;                                                                             \
        for (int64_t v = lo; v < hi; v++) UDF_IDENTITY(acc[v]);                                    \
        return 0;                                                                                  \
    }

#define MG__STR(...) #__VA_ARGS__
#define MG__XSTR(...) MG__STR(__VA_ARGS__)
/* Made here, before the names they use are defined below, so the text keeps them. */
static const char args_text[] = MG__XSTR(MG__UDF_ARGS);
static const char kernels_text[] = MG__XSTR(MG__UDF_KERNELS);

MG__UDF_ARGS

typedef uint64_t (*kernel_fn)(const mg__udf_args *a, int64_t lo, int64_t hi, void *scratch);
typedef struct {
    kernel_fn pull, push, apply, fill, prepare;
} kernels;

/* ---- the host runner: the loops over the user's function pointers, per value type -------------- */

#define KEXPORT static
#define UDF_MODE (a->mode)
#define UDF_ANY (a->any)
#define UDF_SRC_ONLY (a->source_only)
#define H ((const mg_udf_def *)a->host)
#define UDF_CONTRIB(r, s, d, sv, w, deg)                                                           \
    do {                                                                                           \
        T sv_ = (sv);                                                                              \
        H->contribution_fn(&(r), s, d, &sv_, w, deg, H->user);                                     \
    } while (0)
#define UDF_COMBINE(acc, v) H->combine_fn(&(acc), &(v), H->user)
#define UDF_IDENTITY(r) memcpy(&(r), H->identity_value, sizeof(T))
#define UDF_APPLY(j, d, dv, c, found) ((j) = H->apply_fn(&(dv), &(c), (found), d, H->user))

#define T int32_t
#define NAME(x) host_i32_##x
MG__UDF_KERNELS
#undef T
#undef NAME
#define T int64_t
#define NAME(x) host_i64_##x
MG__UDF_KERNELS
#undef T
#undef NAME
#define T float
#define NAME(x) host_f32_##x
MG__UDF_KERNELS
#undef T
#undef NAME
#define T double
#define NAME(x) host_f64_##x
MG__UDF_KERNELS
#undef T
#undef NAME

static const kernels host_kernels[4] = {
    {host_i32_pull, host_i32_push, host_i32_apply, host_i32_fill, host_i32_prepare},
    {host_i64_pull, host_i64_push, host_i64_apply, host_i64_fill, host_i64_prepare},
    {host_f32_pull, host_f32_push, host_f32_apply, host_f32_fill, host_f32_prepare},
    {host_f64_pull, host_f64_push, host_f64_apply, host_f64_fill, host_f64_prepare},
};

/* ---- definitions -------------------------------------------------------------------------------- */

struct mg_udf_s {
    uint64_t magic;
    mg_udf_def def;   /* snippets and identity_value point into this object's own copies */
    char *snippet[4]; /* contribution, combine, identity, apply */
    uint64_t identity[1];
    int type_index;   /* 0 int32, 1 int64, 2 float, 3 double */
    kernels k;
    mg_udf_info info;
    const void *gpu[MG__UDF_GPU_DEVICES]; /* its GPU library per device (udf_gpu.cu) */
};

static const char *const snippet_names[4] = {"contribution", "combine", "identity", "apply"};
static const char *const c_types[4] = {"int32_t", "int64_t", "float", "double"};
static const size_t type_sizes[4] = {4, 8, 4, 8};

void mg_udf_def_init(mg_udf_def *def) {
    if (def == NULL) return;
    memset(def, 0, sizeof *def);
    def->type = MG_DOUBLE;
    def->combine_kind = MG_UDF_REDUCE;
    def->runner = MG_UDF_JIT;
}

static char *dup_string(const char *s) {
    if (s == NULL) return NULL;
    size_t len = strlen(s) + 1;
    char *d = mg__malloc(len);
    if (d != NULL) memcpy(d, s, len);
    return d;
}

static void free_udf(struct mg_udf_s *u) {
    if (u == NULL) return;
    for (int i = 0; i < 4; i++) mg__free(u->snippet[i]);
    u->magic = MG__MAGIC_FREED;
    mg__free(u);
}

mg_status mg_udf_free(mg_udf *udf) {
    if (udf == NULL || *udf == NULL) return MG_SUCCESS;
    if ((*udf)->magic != MG__MAGIC_UDF) return MG_INVALID_OBJECT;
    free_udf(*udf);
    *udf = NULL;
    return MG_SUCCESS;
}

mg_status mg_udf_get_info(mg_context ctx, const mg_udf udf, mg_udf_info *info) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (udf == NULL || udf->magic != MG__MAGIC_UDF)
        return mg__error(ctx, udf == NULL ? MG_INVALID_ARGUMENT : MG_INVALID_OBJECT,
                         "mg_udf_get_info: udf is %s", udf == NULL ? "NULL" : "not a live definition");
    if (info == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_udf_get_info: info is NULL");
    *info = udf->info;
    return MG_SUCCESS;
}

/* ---- the JIT ------------------------------------------------------------------------------------ */

#define DEF "mg_program_define: "

/* The compiler: $CC (a path, or a name looked up on PATH), else the first of cc, gcc, clang on PATH. */
static mg_status find_compiler(mg_context ctx, char *path, size_t size) {
    const char *cc = getenv("CC");
    const char *names[3] = {"cc", "gcc", "clang"};
    int count = 3;
    if (cc != NULL && cc[0] != '\0') {
        names[0] = cc;
        count = 1;
        if (strchr(cc, '/') != NULL) {
            if (access(cc, X_OK) == 0 && (size_t)snprintf(path, size, "%s", cc) < size) return MG_SUCCESS;
            return mg__error(ctx, MG_UNAVAILABLE,
                             DEF "no C compiler for the JIT: CC=%s is not an executable file", cc);
        }
    }
    const char *p = getenv("PATH");
    for (int i = 0; i < count && p != NULL; i++) {
        for (const char *dir = p; *dir != '\0';) {
            size_t len = strcspn(dir, ":");
            if (len > 0 && (size_t)snprintf(path, size, "%.*s/%s", (int)len, dir, names[i]) < size &&
                access(path, X_OK) == 0)
                return MG_SUCCESS;
            dir += len + (dir[len] == ':');
        }
    }
    return mg__error(ctx, MG_UNAVAILABLE,
                     DEF "no C compiler for the JIT: %s%s not found on PATH (set CC, or use MG_UDF_HOST)",
                     count == 1 ? "CC=" : "cc, gcc or clang", count == 1 ? names[0] : "");
}

/* $MG_JIT_CACHE, $XDG_CACHE_HOME/mgraph or ~/.cache/mgraph, created if missing; fn names the caller
 * in messages. The GPU's CUBINs (udf_gpu.cu) share it. */
mg_status mg__udf_cache_dir(mg_context ctx, const char *fn, char *dir, size_t size) {
    const char *env = getenv("MG_JIT_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int len;
    char parent[1024] = "";
    if (env != NULL && env[0] != '\0') len = snprintf(dir, size, "%s", env);
    else if (xdg != NULL && xdg[0] != '\0') len = snprintf(dir, size, "%s/mgraph", xdg);
    else if (home != NULL && home[0] != '\0') {
        snprintf(parent, sizeof parent, "%s/.cache", home);
        len = snprintf(dir, size, "%s/.cache/mgraph", home);
    } else
        return mg__error(ctx, MG_IO_ERROR, "%s: no JIT cache folder: set MG_JIT_CACHE, XDG_CACHE_HOME or HOME",
                         fn);
    if (len < 0 || (size_t)len >= size)
        return mg__error(ctx, MG_IO_ERROR, "%s: the JIT cache path is too long", fn);
    if (parent[0] != '\0') mkdir(parent, 0700);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return mg__error(ctx, MG_IO_ERROR, "%s: cannot create the JIT cache folder %s: %s", fn, dir,
                         strerror(errno));
    return MG_SUCCESS;
}

uint64_t mg__udf_hash(uint64_t h, const char *s) {
    for (; *s != '\0'; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* separates consecutive strings */
}

/* The generated source: the snippets as static inline functions, then the engine's loops. */
static char *generate(const struct mg_udf_s *u) {
    const char *t = c_types[u->type_index];
    const bool mode = u->def.combine_kind == MG_UDF_MODE;
    const char *fmt =
        "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n"
        "#define T %s\n#define NAME(x) mg_jit_##x\n"
        "#define KEXPORT __attribute__((visibility(\"default\")))\n"
        "#define UDF_MODE %d\n#define UDF_ANY %d\n#define UDF_SRC_ONLY %d\n"
        "static inline T mg_udf_contribution(uint32_t src, uint32_t dst, T src_value, double weight,"
        " uint64_t src_degree) {\n(void)src; (void)dst; (void)src_value; (void)weight; (void)src_degree;\n"
        "return (T)(\n#line 1 \"contribution\"\n%s\n);\n}\n"
        "static inline T mg_udf_combine(T a, T b) {\n(void)a; (void)b;\nreturn (T)(\n#line 1 \"combine\"\n%s\n);\n}\n"
        "static inline T mg_udf_identity(void) {\nreturn (T)(\n#line 1 \"identity\"\n%s\n);\n}\n"
        "static inline int mg_udf_apply(uint32_t dst, T *dst_value_p, T combined, int found) {\n"
        "T dst_value = *dst_value_p; int joins = 0;\n(void)dst; (void)combined; (void)found;\n{\n"
        "#line 1 \"apply\"\n%s\n}\n*dst_value_p = dst_value;\nreturn joins;\n}\n"
        "#line 1 \"mgraph-engine\"\n"
        "#define UDF_CONTRIB(r, s, d, sv, w, deg) ((r) = mg_udf_contribution(s, d, sv, w, deg))\n"
        "#define UDF_COMBINE(acc, v) ((acc) = mg_udf_combine(acc, v))\n"
        "#define UDF_IDENTITY(r) ((r) = mg_udf_identity())\n"
        "#define UDF_APPLY(j, d, dv, c, found) ((j) = mg_udf_apply(d, &(dv), c, found))\n"
        "%s\n%s\n";
    /* no combine or identity snippet for these two: placeholders the loops never call */
    const bool reduce = u->def.combine_kind == MG_UDF_REDUCE, any = u->def.combine_kind == MG_UDF_ANY;
    const char *combine = reduce ? u->snippet[1] : "a", *identity = reduce ? u->snippet[2] : "0";
    const int so = u->def.source_only;
    int len = snprintf(NULL, 0, fmt, t, (int)mode, (int)any, so, u->snippet[0], combine, identity,
                       u->snippet[3], args_text, kernels_text);
    char *src = len < 0 ? NULL : mg__malloc((size_t)len + 1);
    if (src != NULL)
        snprintf(src, (size_t)len + 1, fmt, t, (int)mode, (int)any, so, u->snippet[0], combine, identity,
                 u->snippet[3], args_text, kernels_text);
    return src;
}

/* Objects this process has loaded, by key: a later definition of the same program reuses them. */
typedef struct loaded {
    uint64_t key;
    kernels k;
    char path[1024];
    struct loaded *next;
} loaded;
static loaded *loaded_list;
static pthread_mutex_t loaded_lock = PTHREAD_MUTEX_INITIALIZER;

static mg_status load_object(mg_context ctx, const char *so, kernels *k) {
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return mg__error(ctx, MG_IO_ERROR, DEF "cannot load %s: %s", so, dlerror());
    k->pull = (kernel_fn)dlsym(h, "mg_jit_pull");
    k->push = (kernel_fn)dlsym(h, "mg_jit_push");
    k->apply = (kernel_fn)dlsym(h, "mg_jit_apply");
    k->fill = (kernel_fn)dlsym(h, "mg_jit_fill");
    k->prepare = (kernel_fn)dlsym(h, "mg_jit_prepare");
    if (!k->pull || !k->push || !k->apply || !k->fill || !k->prepare) {
        dlclose(h);
        return mg__error(ctx, MG_IO_ERROR, DEF "%s lacks the engine's entry points", so);
    }
    /* stays loaded for the process: the in-memory cache hands its kernels out */
    return MG_SUCCESS;
}

/* Runs cc on src into so (through a temporary name, renamed when done, so a concurrent process
 * never loads a half-written object); the compiler's output goes to log. */
static mg_status compile(mg_context ctx, const char *cc, const char *src, const char *so,
                         const char *log) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", so, (long)getpid());
    /* the library's own flags (CMake's Release: -O3), and no -march=native: a cache folder in a
     * shared home may serve machines of other CPUs */
    char *argv[] = {(char *)cc, "-O3", "-fPIC", "-shared", "-w", "-o", tmp,
                    (char *)src, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, cc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return mg__error(ctx, MG_UNAVAILABLE, DEF "cannot run the C compiler %s: %s", cc, strerror(rc));
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && rename(tmp, so) == 0) return MG_SUCCESS;
    unlink(tmp);
    char msg[800] = "";
    FILE *f = fopen(log, "r");
    if (f != NULL) {
        size_t got = fread(msg, 1, sizeof msg - 1, f);
        msg[got] = '\0';
        fclose(f);
    }
    return mg__error(ctx, MG_COMPILE_ERROR, DEF "the program did not compile (%s, source %s):\n%s", cc,
                     src, msg);
}

static mg_status jit(mg_context ctx, struct mg_udf_s *u) {
    mg_status status = MG_SUCCESS;
    char *src = NULL;
    char cc[1024], dir[900], base[940], path[1000], log[1000];
    bool locked = false;
    MG__TRY(find_compiler(ctx, cc, sizeof cc));
    src = generate(u);
    if (src == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, DEF "out of memory for the generated source");
    const uint64_t key = mg__udf_hash(mg__udf_hash(14695981039346656037ull, src), cc);

    pthread_mutex_lock(&loaded_lock);
    locked = true;
    for (loaded *l = loaded_list; l != NULL; l = l->next)
        if (l->key == key) {
            u->k = l->k;
            u->info.memory_hit = true;
            snprintf(u->info.object_path, sizeof u->info.object_path, "%s", l->path);
            goto cleanup;
        }
    MG__TRY(mg__udf_cache_dir(ctx, "mg_program_define", dir, sizeof dir));
    snprintf(base, sizeof base, "%s/mg_udf_%016llx", dir, (unsigned long long)key);
    snprintf(path, sizeof path, "%s.so", base);
    if (access(path, R_OK) == 0) {
        u->info.disk_hit = true;
    } else {
        char cfile[1000];
        snprintf(cfile, sizeof cfile, "%s.c", base);
        snprintf(log, sizeof log, "%s.log", base);
        FILE *f = fopen(cfile, "w");
        if (f == NULL) MG__FAIL(ctx, MG_IO_ERROR, DEF "cannot write %s: %s", cfile, strerror(errno));
        bool ok = fputs(src, f) >= 0;
        if (fclose(f) != 0 || !ok) MG__FAIL(ctx, MG_IO_ERROR, DEF "cannot write %s", cfile);
        double t0 = omp_get_wtime();
        MG__TRY(compile(ctx, cc, cfile, path, log));
        u->info.jit_seconds = omp_get_wtime() - t0;
    }
    MG__TRY(load_object(ctx, path, &u->k));
    snprintf(u->info.object_path, sizeof u->info.object_path, "%s", path);
    loaded *l = mg__calloc(1, sizeof *l);
    if (l == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, DEF "out of memory");
    l->key = key;
    l->k = u->k;
    snprintf(l->path, sizeof l->path, "%s", path);
    l->next = loaded_list;
    loaded_list = l;
cleanup:
    if (locked) pthread_mutex_unlock(&loaded_lock);
    mg__free(src);
    return status;
}

mg_status mg_program_define(mg_context ctx, const mg_udf_def *def, mg_udf *udf) {
    mg_status status = mg__check_context(ctx);
    struct mg_udf_s *u = NULL;
    if (status != MG_SUCCESS) return status;
    if (udf == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "udf is NULL");
    *udf = NULL;
    if (def == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "def is NULL");
    int ti;
    switch (def->type) {
    case MG_INT32: case MG_VERTEX: ti = 0; break;
    case MG_INT64: ti = 1; break;
    case MG_FLOAT: ti = 2; break;
    case MG_DOUBLE: ti = 3; break;
    default: return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "def->type %d is not a value type", (int)def->type);
    }
    if (def->combine_kind != MG_UDF_REDUCE && def->combine_kind != MG_UDF_MODE && def->combine_kind != MG_UDF_ANY)
        return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "unknown def->combine_kind %d", (int)def->combine_kind);
    const bool reduce = def->combine_kind == MG_UDF_REDUCE;
    if (def->runner == MG_UDF_JIT) {
        const char *s[4] = {def->contribution, def->combine, def->identity, def->apply};
        for (int i = 0; i < 4; i++)
            if (s[i] == NULL && (reduce || (i != 1 && i != 2)))
                return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "def->%s is NULL (MG_UDF_JIT needs it)",
                                 snippet_names[i]);
    } else if (def->runner == MG_UDF_HOST) {
        if (def->contribution_fn == NULL || def->apply_fn == NULL ||
            (reduce && (def->combine_fn == NULL || def->identity_value == NULL)))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             DEF "MG_UDF_HOST needs def->contribution_fn and apply_fn, and for a reduce "
                                 "combine_fn and identity_value");
    } else {
        return mg__error(ctx, MG_INVALID_ARGUMENT, DEF "unknown def->runner %d", (int)def->runner);
    }

    u = mg__calloc(1, sizeof *u);
    if (u == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, DEF "out of memory");
    u->magic = MG__MAGIC_UDF;
    u->def = *def;
    u->type_index = ti;
    const char *s[4] = {def->contribution, def->combine, def->identity, def->apply};
    for (int i = 0; i < 4; i++) {
        u->snippet[i] = dup_string(s[i]);
        if (s[i] != NULL && u->snippet[i] == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, DEF "out of memory");
    }
    u->def.contribution = u->snippet[0];
    u->def.combine = u->snippet[1];
    u->def.identity = u->snippet[2];
    u->def.apply = u->snippet[3];
    if (def->identity_value != NULL) memcpy(u->identity, def->identity_value, type_sizes[ti]);
    u->def.identity_value = u->identity;
    if (def->runner == MG_UDF_HOST) u->k = host_kernels[ti];
    else MG__TRY(jit(ctx, u));
    *udf = u;
    u = NULL;
cleanup:
    free_udf(u);
    return status;
}

/* ---- the engine --------------------------------------------------------------------------------- */

#define ADV "mg_advance: "
/* Bitmap words or sources per kernel call: small enough to balance, large enough to amortise. */
#define CHUNK 64

static mg_status run_chunks(mg_context ctx, kernel_fn k, const mg__udf_args *a, int64_t count,
                            size_t scratch_bytes, uint64_t *joined) {
    const int threads = omp_get_max_threads();
    char *scratch = NULL;
    if (scratch_bytes > 0) {
        scratch = mg__malloc(mg__mul_size((size_t)threads, scratch_bytes));
        if (scratch == NULL)
            return mg__error(ctx, MG_OUT_OF_MEMORY, ADV "out of memory for a mode's scratch (%zu bytes a thread)",
                             scratch_bytes);
    }
    uint64_t sum = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    {
        void *mine = scratch ? scratch + (size_t)omp_get_thread_num() * scratch_bytes : NULL;
#pragma omp for schedule(dynamic, 1)
        for (int64_t lo = 0; lo < count; lo += CHUNK)
            sum += k(a, lo, lo + CHUNK < count ? lo + CHUNK : count, mine);
    }
    mg__free(scratch);
    *joined = sum;
    return MG_SUCCESS;
}

/* Scratch kept on the context between steps (ctx->cpu_udf), as the built-in engine keeps its own:
 * a BFS level otherwise paid an allocation, page faults and a fill of all n accumulator entries.
 * Each push leaves acc holding the identity and touched clear (the apply resets what it touched),
 * so acc is filled again only for another identity: acc_fill and acc_identity name it (the fill
 * kernel, and the host runner's identity value). */
typedef struct {
    uint32_t capacity;
    void *acc, *pre;   /* capacity values of up to 8 bytes: the push's accumulator, source_only's */
    uint64_t *touched; /* bitmap of capacity, clear between steps */
    kernel_fn acc_fill; /* NULL: acc to be filled */
    uint64_t acc_identity;
} workspace;

static void workspace_free(void *p) {
    workspace *w = p;
    if (w == NULL) return;
    mg__free(w->acc);
    mg__free(w->pre);
    mg__free(w->touched);
    mg__free(w);
}

static mg_status workspace_get(mg_context ctx, uint32_t n, workspace **out) {
    workspace *w = ctx->cpu_udf;
    if (w != NULL && w->capacity >= n) {
        *out = w;
        return MG_SUCCESS;
    }
    workspace_free(w);
    ctx->cpu_udf = NULL;
    w = mg__calloc(1, sizeof *w);
    if (w != NULL) {
        w->capacity = n > 0 ? n : 1;
        w->acc = mg__malloc(mg__mul_size(w->capacity, 8));
        w->pre = mg__malloc(mg__mul_size(w->capacity, 8));
        w->touched = mg__calloc(mg__bitmap_words(w->capacity), sizeof *w->touched);
    }
    if (w == NULL || w->acc == NULL || w->pre == NULL || w->touched == NULL) {
        workspace_free(w);
        return mg__error(ctx, MG_OUT_OF_MEMORY, ADV "out of memory for a user-defined step's scratch (%u vertices)", n);
    }
    ctx->cpu_udf = w;
    ctx->free_cpu_udf = workspace_free;
    *out = w;
    return MG_SUCCESS;
}

mg_status mg__cpu_udf_advance(const mg__advance_call *call, mg_advance_info *info) {
    mg_context ctx = call->ctx;
    const struct mg_graph_s *g = call->g;
    const mg_program *p = call->program;
    const struct mg_udf_s *u = p->udf;
    mg_status status = MG_SUCCESS;
    workspace *ws = NULL;
    const bool mode = u->def.combine_kind == MG_UDF_MODE, any = u->def.combine_kind == MG_UDF_ANY;

    /* along both directions the pull reads in-edges, then (directed graphs) out-edges */
    const bool both = p->edges == MG_EDGES_BOTH && g->directed;
    const mg__csr *push_csr = p->edges != MG_EDGES_IN ? &g->out : &g->in;
    const mg__csr *pull_csr = p->edges != MG_EDGES_IN ? &g->in : &g->out;
    mg__udf_args a = {
        .n = g->n, .mode = mode, .any = any, .source_only = u->def.source_only,
        .apply_all = u->def.apply_all, .wt = (int)g->weight_type,
        .src_off = push_csr->offsets, .complement = p->mask_complement,
        .x = call->x->data, .y = call->y->data, .host = &u->def,
    };
    MG__TRY(workspace_get(ctx, g->n, &ws));
    if (call->mask != NULL) {
        MG__TRY(mg__frontier_need_bitmap(ctx, call->mask));
        a.mask_bm = call->mask->bitmap;
    }
    if (call->out != NULL) {
        MG__TRY(mg__frontier_reserve(ctx, call->out));
        a.out_bm = call->out->bitmap;
    }
    uint32_t nf = g->n;
    uint64_t mf = push_csr->offsets[g->n];
    if (call->in != NULL) {
        MG__TRY(mg__frontier_need_list(ctx, call->in));
        nf = call->in->count;
        mf = mg__cpu_degree_sum(push_csr->offsets, call->in->list, nf);
    }
    const bool can_push = !mode && !u->def.apply_all && !both;
    if (ctx->mode == MG_MODE_SPARSE && !can_push)
        MG__FAIL(ctx, MG_UNAVAILABLE,
                 ADV "a user-defined program with %s runs only by pull on the CPU (MG_MODE_SPARSE asked "
                     "for push)", mode ? "a mode combine" : both ? "MG_EDGES_BOTH" : "apply_all");
    bool pull;
    if (ctx->mode == MG_MODE_SPARSE) pull = false;
    else if (ctx->mode == MG_MODE_PULL || ctx->mode == MG_MODE_DENSE || !can_push || call->in == NULL) pull = true;
    else pull = mg__cpu_pull_pays(call, mf, any, pull_csr->offsets, a.mask_bm, a.complement);

    const int64_t words = (int64_t)mg__bitmap_words(g->n);
    uint64_t joined = 0, unused;
    if (pull) {
        if (call->in != NULL) {
            MG__TRY(mg__frontier_need_bitmap(ctx, call->in));
            a.active_bm = call->in->bitmap;
        }
        if (u->def.source_only) {
            /* each active source's contribution once, not once per edge */
            a.pre = ws->pre;
            a.list = call->in != NULL ? call->in->list : NULL;
            MG__TRY(run_chunks(ctx, u->k.prepare, &a, nf, 0, &unused));
            a.list = NULL;
        }
        a.off = pull_csr->offsets;
        a.idx = pull_csr->indices;
        a.w = pull_csr->weights;
        if (both) {
            a.off2 = g->out.offsets;
            a.idx2 = g->out.indices;
            a.w2 = g->out.weights;
        }
        size_t scratch = 0;
        if (mode) {
            uint64_t max_deg = 0;
            for (uint32_t v = 0; v < g->n; v++) {
                uint64_t deg = pull_csr->offsets[v + 1] - pull_csr->offsets[v];
                if (both) deg += g->out.offsets[v + 1] - g->out.offsets[v];
                if (deg > max_deg) max_deg = deg;
            }
            scratch = (size_t)max_deg * type_sizes[u->type_index] + 8;
        }
        MG__TRY(run_chunks(ctx, u->k.pull, &a, words, scratch, &joined));
        mf = pull_csr->offsets[g->n] + (both ? g->out.offsets[g->n] : 0);
    } else {
        a.off = push_csr->offsets;
        a.idx = push_csr->indices;
        a.w = push_csr->weights;
        a.list = call->in != NULL ? call->in->list : NULL;
        a.acc = ws->acc;
        a.touched = ws->touched;
        /* ANY reads acc only where a push wrote it: no identity to keep */
        const uint64_t identity = u->identity[0];
        if (!any && (ws->acc_fill != u->k.fill || ws->acc_identity != identity)) {
            mg__udf_args fill = a;
            fill.n = ws->capacity; /* the whole capacity, so a larger graph later finds it made too */
            MG__TRY(run_chunks(ctx, u->k.fill, &fill, ws->capacity, 0, &unused));
        }
        ws->acc_fill = NULL; /* until this step's apply has reset what it touched */
        MG__TRY(run_chunks(ctx, u->k.push, &a, nf, 0, &unused));
        MG__TRY(run_chunks(ctx, u->k.apply, &a, words, 0, &joined));
        if (!any) {
            ws->acc_fill = u->k.fill;
            ws->acc_identity = identity;
        }
    }
    if (call->out != NULL) {
        call->out->count = (uint32_t)joined;
        call->out->bitmap_valid = true;
        call->out->list_valid = false;
    }
    info->frontier_vertices = nf;
    info->frontier_edges = mf;
    info->edges_scanned = mf;
    info->output_vertices = (uint32_t)joined;
    info->pulled = pull;
cleanup:
    return status;
}

bool mg__udf_check(const struct mg_udf_s *u) { return u != NULL && u->magic == MG__MAGIC_UDF; }
mg_type mg__udf_type(const struct mg_udf_s *u) { return u->def.type; }
const mg_udf_def *mg__udf_def(const struct mg_udf_s *u) { return &u->def; }
mg_udf_info *mg__udf_info_of(struct mg_udf_s *u) { return &u->info; }
const void **mg__udf_gpu_slot(struct mg_udf_s *u, int device) { return &u->gpu[device]; }
