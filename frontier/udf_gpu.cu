/*
 * udf_gpu.cu — user-defined edge programs on the GPU (issue 18; the CPU half is udf.c): the NVRTC
 * compilation of a program's snippets with the device loops of udf_gpu.cuh, its caches, and the
 * host side of a step.
 *
 * At a program's first step on a device, its snippets become __device__ functions prepended to the
 * loops' text (embedded at build time, udf_gpu_text.h), NVRTC compiles that for the device's
 * architecture to a CUBIN, and the CUDA runtime's library API loads it (cudaLibraryLoadData; no
 * libcuda at link time). CUBINs are cached in the JIT's cache folder (udf.c) under a hash of the
 * generated source, the architecture and NVRTC's version, so a later process loads one without
 * compiling; loaded libraries are kept for the process by the same key, and each definition
 * remembers its library per device.
 *
 * A step pulls (a block per destination of in-degree 2048 and more, a warp from 128, below a team
 * of lanes sized to the mean in-degree; an ANY stops at a destination's first active source; a
 * source_only contribution is computed per active source first, mg_udf_prepare), or, for a reduce
 * or an ANY without apply_all, pushes (a warp per active source, compare-and-swap into an
 * accumulator, or for an ANY a store, then an apply over the touched bitmap) with the CPU engine's
 * factors; a mode combine counts the active
 * contributions per destination, scans, collects them into segments, sorts each segment
 * (cub::DeviceSegmentedSort) and takes the most frequent. The counters, the active-source bitmap
 * and the push's accumulator stay on the context between steps (Workspace, below); a mode's
 * scratch comes from the stream-ordered pool (core/gpu_util.cuh's dbuf) and goes back when the
 * call returns.
 */
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "mg_internal.h"
}
#include "frontier/engine.h"
#include "frontier/gpu_engine.h"
#include "core/gpu_resident.h"
#include "frontier/udf_gpu.cuh"
#include "udf_gpu_text.h" /* mg__udf_gpu_text: udf_gpu.cuh as a string (CMake) */

namespace {

#include "core/gpu_util.cuh" /* dbuf, dbuf_alloc, blocks_for */
#undef CU
#undef LAUNCHED

constexpr const char *kAdv = "mg_advance";

/* The kernels of udf_gpu.cuh, by name. */
enum { K_PULL_TEAM = 0, K_PULL_BLOCK, K_COUNT, K_COLLECT, K_MODE_APPLY, K_FILL, K_PUSH, K_APPLY_TOUCHED,
       K_PREPARE, K_KERNELS };
const char *const kernel_names[K_KERNELS] = {"mg_udf_pull_team", "mg_udf_pull_block", "mg_udf_count",
                                             "mg_udf_collect", "mg_udf_mode_apply", "mg_udf_fill",
                                             "mg_udf_push", "mg_udf_apply_touched", "mg_udf_prepare"};

/* A failed CUDA runtime call: MG_OUT_OF_MEMORY for an allocation, else MG_DEVICE_ERROR, naming the
 * call and file:line. */
mg_status cuda_fail(mg_context ctx, cudaError_t e, const char *call, const char *file, int line) {
    (void)cudaGetLastError();
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                     "%s (user-defined program on the GPU): %s failed: %s: %s (%s:%d)", kAdv, call,
                     cudaGetErrorName(e), cudaGetErrorString(e), base, line);
}
#define CU(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return cuda_fail(ctx, e_, #expr, __FILE__, __LINE__);               \
    } while (0)

/* A failed NVRTC call other than the compilation itself. */
#define NVRTC(fn, expr)                                                                            \
    do {                                                                                           \
        nvrtcResult r_ = (expr);                                                                   \
        if (r_ != NVRTC_SUCCESS)                                                                   \
            return mg__error(ctx, r_ == NVRTC_ERROR_OUT_OF_MEMORY ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR, \
                             "%s: %s failed: %s (%s:%d)", fn, #expr, nvrtcGetErrorString(r_),      \
                             "udf_gpu.cu", __LINE__);                                              \
    } while (0)

double now_seconds() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int type_index(mg_type t) {
    switch (t) {
    case MG_INT64: return 1;
    case MG_FLOAT: return 2;
    case MG_DOUBLE: return 3;
    default: return 0; /* MG_INT32, MG_VERTEX */
    }
}
const char *const cuda_types[4] = {"int32_t", "int64_t", "float", "double"};
const char *const cuda_words[4] = {"unsigned int", "unsigned long long", "unsigned int", "unsigned long long"};
const size_t type_sizes[4] = {4, 8, 4, 8};

/* The program's NVRTC source: the types and limits a snippet may use (NVRTC has no system headers),
 * the snippets as __device__ functions (lines counted within each, as the CPU JIT names them), then
 * the loops. NULL when out of memory. */
char *generate(const mg_udf_def *def) {
    const int ti = type_index(def->type);
    const bool reduce = def->combine_kind == MG_UDF_REDUCE, any = def->combine_kind == MG_UDF_ANY;
    static const char fmt[] =
        "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
        "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
        "typedef unsigned long long uint64_t;\n"
        "#define INT32_MAX 2147483647\n#define INT32_MIN (-INT32_MAX - 1)\n#define UINT32_MAX 4294967295u\n"
        "#define INT64_MAX 9223372036854775807ll\n#define INT64_MIN (-INT64_MAX - 1)\n"
        "#define UINT64_MAX 18446744073709551615ull\n"
        "#define INFINITY __int_as_float(0x7f800000)\n#define NAN __int_as_float(0x7fffffff)\n"
        "#define HUGE_VAL __longlong_as_double(0x7ff0000000000000ll)\n"
        "#define FLT_MAX 3.402823466e+38f\n#define DBL_MAX 1.7976931348623158e+308\n"
        "#define T %s\n#define MG_WORD %s\n#define MG_ANY %d\n#define MG_SOURCE_ONLY %d\n"
        "__device__ __forceinline__ T mg_udf_contribution(uint32_t src, uint32_t dst, T src_value, double weight,"
        " uint64_t src_degree) {\n(void)src; (void)dst; (void)src_value; (void)weight; (void)src_degree;\n"
        "return (T)(\n#line 1 \"contribution\"\n%s\n);\n}\n"
        "__device__ __forceinline__ T mg_udf_combine(T a, T b) {\n(void)a; (void)b;\nreturn (T)(\n#line 1 \"combine\"\n%s\n);\n}\n"
        "__device__ __forceinline__ T mg_udf_identity() {\nreturn (T)(\n#line 1 \"identity\"\n%s\n);\n}\n"
        "__device__ __forceinline__ int mg_udf_apply(uint32_t dst, T *dst_value_p, T combined, int found) {\n"
        "T dst_value = *dst_value_p; int joins = 0;\n(void)dst; (void)combined; (void)found;\n{\n"
        "#line 1 \"apply\"\n%s\n}\n*dst_value_p = dst_value;\nreturn joins;\n}\n"
        "#define MG_UDF_GPU_KERNELS 1\n#line 1 \"udf_gpu.cuh\"\n%s\n";
    /* a mode or an ANY has no combine or identity snippet: placeholders (an ANY's acc is filled
     * with this 0, never read where no contribution was stored) */
    const char *combine = reduce ? def->combine : "a", *identity = reduce ? def->identity : "0";
    const int so = def->source_only;
    const int len = snprintf(NULL, 0, fmt, cuda_types[ti], cuda_words[ti], (int)any, so, def->contribution,
                             combine, identity, def->apply, mg__udf_gpu_text);
    char *src = len < 0 ? NULL : static_cast<char *>(mg__malloc((size_t)len + 1));
    if (src != NULL)
        snprintf(src, (size_t)len + 1, fmt, cuda_types[ti], cuda_words[ti], (int)any, so, def->contribution,
                 combine, identity, def->apply, mg__udf_gpu_text);
    return src;
}

/* Compiles src for sm_<arch> into *cubin (mg__malloc'd, *size bytes). MG_COMPILE_ERROR with
 * NVRTC's log when the program does not compile; MG_UNAVAILABLE when NVRTC cannot target arch. */
mg_status compile(mg_context ctx, const char *fn, const char *src, int arch, char **cubin, size_t *size) {
    mg_status status = MG_SUCCESS;
    nvrtcProgram prog = NULL;
    char *log = NULL;
    *cubin = NULL;
    *size = 0;
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d", arch);
    const char *opts[] = {arch_opt, "-std=c++17"};
    NVRTC(fn, nvrtcCreateProgram(&prog, src, "mgraph_udf.cu", 0, NULL, NULL));
    {
        const nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
        if (r != NVRTC_SUCCESS) {
            size_t log_size = 0;
            if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0 &&
                (log = static_cast<char *>(mg__malloc(log_size))) != NULL &&
                nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
                log[0] = '\0';
            status = mg__error(ctx, r == NVRTC_ERROR_COMPILATION ? MG_COMPILE_ERROR : MG_UNAVAILABLE,
                               "%s: the user-defined program did not compile for the GPU (NVRTC, %s): %s\n%s",
                               fn, arch_opt, nvrtcGetErrorString(r), log ? log : "");
            goto cleanup;
        }
    }
    {
        const nvrtcResult r = nvrtcGetCUBINSize(prog, size);
        if (r == NVRTC_SUCCESS) *cubin = static_cast<char *>(mg__malloc(*size ? *size : 1));
        if (r == NVRTC_SUCCESS && *cubin == NULL)
            status = mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for a %zu-byte CUBIN", fn, *size);
        else if (r != NVRTC_SUCCESS || nvrtcGetCUBIN(prog, *cubin) != NVRTC_SUCCESS)
            status = mg__error(ctx, MG_DEVICE_ERROR, "%s: nvrtcGetCUBIN failed for %s", fn, arch_opt);
    }
cleanup:
    if (status != MG_SUCCESS) {
        mg__free(*cubin);
        *cubin = NULL;
        *size = 0;
    }
    mg__free(log);
    nvrtcDestroyProgram(&prog);
    return status;
}

/* The cache's key: the generated source, the architecture and NVRTC's version. */
mg_status cache_key(mg_context ctx, const char *fn, const char *src, int arch, uint64_t *key) {
    int major = 0, minor = 0;
    NVRTC(fn, nvrtcVersion(&major, &minor));
    char tag[64];
    snprintf(tag, sizeof tag, "sm_%d nvrtc %d.%d", arch, major, minor);
    *key = mg__udf_hash(mg__udf_hash(14695981039346656037ull, src), tag);
    return MG_SUCCESS;
}

/* Loaded libraries of this process, by key; kept until it exits (as the CPU JIT's objects). */
struct Module {
    uint64_t key;
    cudaLibrary_t lib;
    cudaKernel_t k[K_KERNELS];
    char path[1024];
    Module *next;
};
Module *modules;
pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

mg_status read_file(mg_context ctx, const char *path, char **data, size_t *size) {
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return mg__error(ctx, MG_IO_ERROR, "%s: cannot open %s: %s", kAdv, path, strerror(errno));
    struct stat st;
    char *d = NULL;
    if (fstat(fileno(f), &st) == 0 && st.st_size > 0) d = static_cast<char *>(mg__malloc((size_t)st.st_size));
    const bool ok = d != NULL && fread(d, 1, (size_t)st.st_size, f) == (size_t)st.st_size;
    fclose(f);
    if (!ok) {
        mg__free(d);
        return mg__error(ctx, MG_IO_ERROR, "%s: cannot read the cached CUBIN %s", kAdv, path);
    }
    *data = d;
    *size = (size_t)st.st_size;
    return MG_SUCCESS;
}

/* Writes data to path through a temporary name, renamed when complete, so a concurrent process
 * never loads half a file. */
mg_status write_file(mg_context ctx, const char *path, const void *data, size_t size) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) return mg__error(ctx, MG_IO_ERROR, "%s: cannot write %s: %s", kAdv, tmp, strerror(errno));
    const bool ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return mg__error(ctx, MG_IO_ERROR, "%s: cannot write %s", kAdv, path);
    }
    return MG_SUCCESS;
}

/* The module of u for the current device: remembered by u, else loaded in this process, else read
 * from the disk cache, else compiled (and written there). Called with modules_lock held. */
mg_status module_get_locked(mg_context ctx, struct mg_udf_s *u, const Module **out) {
    mg_status status = MG_SUCCESS;
    char *src = NULL, *cubin = NULL;
    size_t size = 0;
    Module *m = NULL;
    int device = 0, major = 0, minor = 0;
    CU(cudaGetDevice(&device));
    const void **slot = device < MG__UDF_GPU_DEVICES ? mg__udf_gpu_slot(u, device) : NULL;
    if (slot != NULL && *slot != NULL) {
        *out = static_cast<const Module *>(*slot);
        return MG_SUCCESS;
    }
    CU(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CU(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    const int arch = major * 10 + minor;
    mg_udf_info *info = mg__udf_info_of(u);
    uint64_t key = 0;
    char dir[900], path[1000];
    src = generate(mg__udf_def(u));
    if (src == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for a program's GPU source", kAdv);
    MG__TRY(cache_key(ctx, kAdv, src, arch, &key));
    for (m = modules; m != NULL; m = m->next)
        if (m->key == key) break;
    if (m != NULL) {
        info->gpu_memory_hit = true;
        info->gpu_disk_hit = false;
        info->gpu_jit_seconds = 0;
        snprintf(info->gpu_object_path, sizeof info->gpu_object_path, "%s", m->path);
    } else {
        MG__TRY(mg__udf_cache_dir(ctx, kAdv, dir, sizeof dir));
        snprintf(path, sizeof path, "%s/mg_udf_gpu_%016llx.cubin", dir, (unsigned long long)key);
        double seconds = 0;
        const bool cached = access(path, R_OK) == 0;
        if (cached) {
            MG__TRY(read_file(ctx, path, &cubin, &size));
        } else {
            const double t0 = now_seconds();
            MG__TRY(compile(ctx, kAdv, src, arch, &cubin, &size));
            seconds = now_seconds() - t0;
            MG__TRY(write_file(ctx, path, cubin, size));
        }
        m = static_cast<Module *>(mg__calloc(1, sizeof *m));
        if (m == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory", kAdv);
        m->key = key;
        snprintf(m->path, sizeof m->path, "%s", path);
        cudaError_t e = cudaLibraryLoadData(&m->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
        if (e != cudaSuccess) {
            mg__free(m);
            m = NULL;
            (void)cudaGetLastError();
            MG__FAIL(ctx, MG_DEVICE_ERROR, "%s: cudaLibraryLoadData of %s failed: %s%s", kAdv, path,
                     cudaGetErrorString(e), cached ? " (a damaged cache file? delete it)" : "");
        }
        for (int k = 0; k < K_KERNELS; k++) {
            e = cudaLibraryGetKernel(&m->k[k], m->lib, kernel_names[k]);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();
                cudaLibraryUnload(m->lib);
                mg__free(m);
                m = NULL;
                MG__FAIL(ctx, MG_DEVICE_ERROR, "%s: cudaLibraryGetKernel(%s) in %s failed: %s", kAdv,
                         kernel_names[k], path, cudaGetErrorString(e));
            }
        }
        m->next = modules;
        modules = m;
        info->gpu_memory_hit = false;
        info->gpu_disk_hit = cached;
        info->gpu_jit_seconds = seconds;
        snprintf(info->gpu_object_path, sizeof info->gpu_object_path, "%s", path);
    }
    if (slot != NULL) *slot = m;
    *out = m;
cleanup:
    mg__free(src);
    mg__free(cubin);
    return status;
}

mg_status module_get(mg_context ctx, struct mg_udf_s *u, const Module **out) {
    pthread_mutex_lock(&modules_lock);
    const mg_status status = module_get_locked(ctx, u, out);
    pthread_mutex_unlock(&modules_lock);
    return status;
}

/* ---- a step --------------------------------------------------------------------------------- */

constexpr int kBlock = 256; /* MG_BLOCK in udf_gpu.cuh */

mg_status launch(mg_context ctx, const Module *m, int k, uint64_t threads, mg__udf_gpu_args args) {
    void *params[] = {&args};
    const cudaError_t e = cudaLaunchKernel((const void *)m->k[k], dim3(blocks_for(threads)), dim3(kBlock),
                                           params, 0, 0);
    if (e != cudaSuccess) {
        char call[96];
        snprintf(call, sizeof call, "cudaLaunchKernel(%s)", kernel_names[k]);
        return cuda_fail(ctx, e, call, __FILE__, __LINE__);
    }
    return MG_SUCCESS;
}

/* The sort of a mode's segments, in place through a second buffer (*keys ends up sorted). */
template <typename K>
mg_status sort_segments_t(mg_context ctx, void **keys, uint64_t total, uint32_t n, const uint64_t *seg,
                          dbuf &other, dbuf &temp) {
    size_t bytes = 0;
    const K *in = static_cast<const K *>(*keys);
    CU(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, in, (K *)nullptr, (int64_t)total, (int64_t)n, seg, seg + 1));
    TRY(dbuf_alloc(ctx, &other, total * sizeof(K), "a mode's sorted contributions"));
    TRY(dbuf_alloc(ctx, &temp, bytes, "the segmented sort's scratch"));
    CU(cub::DeviceSegmentedSort::SortKeys(temp.p, bytes, in, static_cast<K *>(other.p), (int64_t)total,
                                          (int64_t)n, seg, seg + 1));
    *keys = other.p;
    return MG_SUCCESS;
}

mg_status sort_segments(mg_context ctx, int ti, void **keys, uint64_t total, uint32_t n, const uint64_t *seg,
                        dbuf &other, dbuf &temp) {
    switch (ti) {
    case 0: return sort_segments_t<int32_t>(ctx, keys, total, n, seg, other, temp);
    case 1: return sort_segments_t<int64_t>(ctx, keys, total, n, seg, other, temp);
    case 2: return sort_segments_t<float>(ctx, keys, total, n, seg, other, temp);
    default: return sort_segments_t<double>(ctx, keys, total, n, seg, other, temp);
    }
}

enum { C_JOINED = 0, C_SCANNED, C_FRONTIER_EDGES, C_COUNT };

/* Device scratch kept on the context between steps (ctx->gpu_udf), for `capacity` vertices of the
 * current device: a BFS level of a few microseconds otherwise paid allocations, a clear of the
 * counters, a pageable copy back and, when pushing, a fill of all n accumulator entries. The
 * accumulator and the touched bitmap are made once per program: acc_holds names the module whose
 * identity fills acc (every touched bit clear), and each push leaves them so (mg_udf_apply_touched). */
struct Workspace {
    int device;
    uint32_t capacity;
    unsigned long long *counters;      /* C_COUNT, device */
    unsigned long long *host_counters; /* C_COUNT, pinned */
    uint64_t *active, *touched;        /* bitmaps of capacity */
    void *acc, *pre;                   /* capacity values of up to 8 bytes (pre: source_only's) */
    const Module *acc_holds;           /* NULL: acc and touched to be made */
};

void workspace_free(void *p) {
    Workspace *w = static_cast<Workspace *>(p);
    if (w == nullptr) return;
    cudaFree(w->counters);
    cudaFree(w->active);
    cudaFree(w->touched);
    cudaFree(w->acc);
    cudaFree(w->pre);
    cudaFreeHost(w->host_counters);
    mg__free(w);
}

/* The context's workspace, (re)made for n vertices on the current device. */
mg_status workspace_get(mg_context ctx, uint32_t n, Workspace **out) {
    Workspace *w = static_cast<Workspace *>(ctx->gpu_udf);
    int device = 0;
    CU(cudaGetDevice(&device));
    if (w != nullptr && (w->device != device || w->capacity < n)) {
        workspace_free(w);
        ctx->gpu_udf = w = nullptr;
    }
    if (w == nullptr) {
        w = static_cast<Workspace *>(mg__calloc(1, sizeof *w));
        if (w == nullptr) return mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of host memory", kAdv);
        w->device = device;
        w->capacity = n > 0 ? n : 1;
        const size_t words = mg__bitmap_words(w->capacity) * sizeof(uint64_t);
        cudaError_t e = cudaMalloc(&w->counters, C_COUNT * sizeof(unsigned long long));
        if (e == cudaSuccess) e = cudaMallocHost(&w->host_counters, C_COUNT * sizeof(unsigned long long));
        if (e == cudaSuccess) e = cudaMalloc(&w->active, words);
        if (e == cudaSuccess) e = cudaMalloc(&w->touched, words);
        if (e == cudaSuccess) e = cudaMalloc(&w->acc, (size_t)w->capacity * 8);
        if (e == cudaSuccess) e = cudaMalloc(&w->pre, (size_t)w->capacity * 8);
        if (e != cudaSuccess) {
            workspace_free(w);
            return cuda_fail(ctx, e, "cudaMalloc of the steps' scratch", __FILE__, __LINE__);
        }
        ctx->gpu_udf = w;
        ctx->free_gpu_udf = workspace_free;
    }
    *out = w;
    return MG_SUCCESS;
}

mg_status advance(mg_context ctx, mg__gpu_advance_args *ga, mg_advance_info *info) {
    const mg__gpu_graph *g = ga->g;
    const mg_program *p = ga->program;
    struct mg_udf_s *u = (struct mg_udf_s *)p->udf;
    const mg_udf_def *def = mg__udf_def(u);
    const bool mode = def->combine_kind == MG_UDF_MODE, any = def->combine_kind == MG_UDF_ANY;
    const bool reduce = def->combine_kind == MG_UDF_REDUCE;
    memset(info, 0, sizeof *info);
    ga->out_count = 0;
    if (def->contribution == NULL || def->apply == NULL || (reduce && (def->combine == NULL || def->identity == NULL)))
        return mg__error(ctx, MG_UNAVAILABLE,
                         "%s: program->udf is host-only (MG_UDF_HOST without the snippets %s): the GPU "
                         "compiles the snippets; give them in the definition too, or use a CPU context",
                         kAdv, reduce ? "contribution, combine, identity and apply" : "contribution and apply");
    const bool both = p->edges == MG_EDGES_BOTH && g->directed;
    const bool along_out = p->edges != MG_EDGES_IN;
    const bool can_push = !mode && !def->apply_all && !both;
    if (ctx->mode == MG_MODE_SPARSE && !can_push)
        return mg__error(ctx, MG_UNAVAILABLE,
                         "%s: a user-defined program with %s runs only by pull on the GPU (MG_MODE_SPARSE "
                         "asked for push)", kAdv, mode ? "a mode combine" : both ? "MG_EDGES_BOTH" : "apply_all");
    const Module *m = NULL;
    TRY(module_get(ctx, u, &m));

    const uint32_t n = g->n;
    const size_t words = mg__bitmap_words(n);
    const int ti = type_index(def->type);
    const uint64_t *push_off = along_out ? g->d_out_offsets : g->d_in_offsets;
    mg__udf_gpu_args a;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.wt = (int)g->weight_type;
    a.apply_all = def->apply_all;
    a.complement = p->mask_complement;
    a.src_off = push_off;
    a.old_of_new = g->d_old_of_new;
    a.mask_bm = ga->d_mask;
    a.x = ga->d_x;
    a.y = ga->d_y;
    a.out_bm = ga->d_out_bitmap;
    a.out_list = ga->d_out_list;

    Workspace *w = nullptr;
    TRY(workspace_get(ctx, n, &w));
    dbuf counts, seg, buf, sorted, scan_temp, sort_temp;
    a.counters = w->counters;
    CU(cudaMemsetAsync(a.counters, 0, C_COUNT * sizeof(unsigned long long), 0));
    unsigned long long *host = w->host_counters;

    /* the frontier's edges along the program's direction (mg_advance_info; the push/pull rule) */
    const bool listed = ga->d_in_list != NULL;
    const uint32_t nf = listed ? ga->in_count : n;
    if (listed && nf > 0 && !mg__gpu_degree_sum_async(push_off, ga->d_in_list, nf, a.counters + C_FRONTIER_EDGES))
        CU(cudaGetLastError());
    /* the CPU's factors (mg__cpu_pull_pays) against all m edges rather than the eligible
     * destinations' (a sum over the mask the GPU would wait for): an ANY's pull stops at a
     * destination's first active source, so it pays off sooner (Beamer's alpha) */
    const uint64_t factor = any ? 15 : 2;
    bool pull;
    if (ctx->mode == MG_MODE_SPARSE) pull = false;
    else if (ctx->mode == MG_MODE_PULL || ctx->mode == MG_MODE_DENSE || !can_push || !listed) pull = true;
    else if ((uint64_t)nf * (along_out ? g->max_out_degree : g->max_in_degree) <= g->m / factor)
        pull = false; /* the rule below whatever the degrees: no wait for the sum */
    else {
        CU(cudaMemcpy(&host[C_FRONTIER_EDGES], a.counters + C_FRONTIER_EDGES, sizeof host[0],
                      cudaMemcpyDeviceToHost));
        pull = host[C_FRONTIER_EDGES] * factor > g->m; /* push while the frontier's edges are few */
    }

    if (pull) {
        if (a.out_bm != NULL) CU(cudaMemsetAsync(a.out_bm, 0, words * sizeof(uint64_t), 0));
        if (listed) {
            CU(cudaMemsetAsync(w->active, 0, words * sizeof(uint64_t), 0));
            if (nf > 0 && !mg__gpu_list_to_bitmap_async(ga->d_in_list, nf, w->active)) CU(cudaGetLastError());
            a.active_bm = w->active;
        }
        if (def->source_only && nf > 0) {
            /* each active source's contribution once, not once per edge */
            a.pre = w->pre;
            a.list = ga->d_in_list;
            a.count = nf;
            TRY(launch(ctx, m, K_PREPARE, nf, a));
            a.list = NULL;
            a.count = 0;
        }
        a.off = along_out ? g->d_in_offsets : g->d_out_offsets;
        a.idx = along_out ? g->d_in_indices : g->d_out_indices;
        a.w = along_out ? g->d_in_weights : g->d_out_weights;
        if (both) {
            a.off2 = g->d_out_offsets;
            a.idx2 = g->d_out_indices;
            a.w2 = g->d_out_weights;
        }
        if (mode) {
            TRY(dbuf_alloc(ctx, &counts, ((size_t)n + 1) * sizeof(uint64_t), "a mode's counts"));
            TRY(dbuf_alloc(ctx, &seg, ((size_t)n + 1) * sizeof(uint64_t), "a mode's segments"));
            a.counts = static_cast<uint64_t *>(counts.p);
            CU(cudaMemsetAsync(a.counts, 0, ((size_t)n + 1) * sizeof(uint64_t), 0));
            if (n > 0) TRY(launch(ctx, m, K_COUNT, n, a));
            size_t bytes = 0;
            uint64_t *seg_p = static_cast<uint64_t *>(seg.p);
            CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, a.counts, seg_p, (int64_t)n + 1));
            TRY(dbuf_alloc(ctx, &scan_temp, bytes, "the scan's scratch"));
            CU(cub::DeviceScan::ExclusiveSum(scan_temp.p, bytes, a.counts, seg_p, (int64_t)n + 1));
            uint64_t total = 0;
            CU(cudaMemcpy(&total, seg_p + n, sizeof total, cudaMemcpyDeviceToHost));
            a.seg = seg_p;
            if (total > 0) {
                TRY(dbuf_alloc(ctx, &buf, total * type_sizes[ti], "a mode's contributions"));
                a.buf = buf.p;
                TRY(launch(ctx, m, K_COLLECT, n, a));
                TRY(sort_segments(ctx, ti, &a.buf, total, n, seg_p, sorted, sort_temp));
            }
            if (n > 0) TRY(launch(ctx, m, K_MODE_APPLY, n, a));
        } else {
            /* sparse_engine.cu's binning, where the in-degree groups describe the edges pulled (the
             * device numbering puts them first): a block per destination of group 1 (2048 in-edges
             * and more), a warp for groups 2-5 (128 and more); below, a team sized to the group's
             * mean in-degree, so that a team's lanes read one row's consecutive edges rather than
             * each lane its own row (the CSR-vector form of SpMV) */
            const bool grouped = along_out || g->in_shares_out;
            const uint32_t block_end = grouped ? g->group_start[1] : 0;
            const uint32_t warp_end = grouped ? g->group_start[MG__GPU_GROUPS - 1] : 0;
            const uint64_t low_edges = grouped ? g->group_edges[MG__GPU_GROUPS - 1] : g->m;
            uint32_t team = 1;
            while (team < 16 && (uint64_t)team * 2 * (n - warp_end) <= low_edges) team *= 2;
            if (block_end > 0) {
                a.from = 0;
                a.to = block_end;
                TRY(launch(ctx, m, K_PULL_BLOCK, (uint64_t)block_end * kBlock, a));
            }
            if (warp_end > block_end) {
                a.from = block_end;
                a.to = warp_end;
                a.team = 32;
                TRY(launch(ctx, m, K_PULL_TEAM, (uint64_t)(warp_end - block_end) * 32, a));
            }
            if (warp_end < n) {
                a.from = warp_end;
                a.to = n;
                a.team = team;
                TRY(launch(ctx, m, K_PULL_TEAM, (uint64_t)(n - warp_end) * team, a));
            }
        }
    } else {
        a.off = push_off;
        a.idx = along_out ? g->d_out_indices : g->d_in_indices;
        a.w = along_out ? g->d_out_weights : g->d_in_weights;
        a.list = ga->d_in_list;
        a.count = nf;
        a.acc = w->acc;
        a.touched = w->touched;
        if (n > 0) {
            /* the whole capacity, so a larger graph later finds it made too */
            const bool made = w->acc_holds == m;
            w->acc_holds = nullptr; /* until this step's apply has reset what it touched */
            if (!made) {
                CU(cudaMemsetAsync(a.touched, 0, mg__bitmap_words(w->capacity) * sizeof(uint64_t), 0));
                mg__udf_gpu_args fill = a;
                fill.n = w->capacity;
                TRY(launch(ctx, m, K_FILL, w->capacity, fill));
            }
            if (nf > 0) TRY(launch(ctx, m, K_PUSH, (uint64_t)nf * 32, a));
            TRY(launch(ctx, m, K_APPLY_TOUCHED, words, a));
            w->acc_holds = m;
        }
    }
    /* the call's one wait at its end (a mode's or the rule's wait aside) */
    CU(cudaMemcpy(host, a.counters, C_COUNT * sizeof *host, cudaMemcpyDeviceToHost));
    const uint64_t mf = listed ? host[C_FRONTIER_EDGES] : g->m;
    ga->out_count = (uint32_t)host[C_JOINED];
    info->frontier_vertices = nf;
    info->frontier_edges = mf;
    info->edges_scanned = pull ? host[C_SCANNED] : mf;
    info->output_vertices = (uint32_t)host[C_JOINED];
    info->pulled = pull;
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_udf_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    if (a == NULL || info == NULL || a->g == NULL || a->program == NULL || a->program->udf == NULL ||
        a->d_x == NULL || a->d_y == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_udf_advance: a NULL argument, graph, program, "
                         "program->udf, d_x or d_y");
    return advance(ctx, a, info);
}

extern "C" mg_status mg__gpu_udf_compile(mg_context ctx, const struct mg_udf_s *u, int arch, size_t *cubin_bytes) {
    const char *fn = "mg__gpu_udf_compile";
    if (u == NULL || cubin_bytes == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: NULL %s", fn, u == NULL ? "udf" : "cubin_bytes");
    *cubin_bytes = 0;
    const mg_udf_def *def = mg__udf_def(u);
    const bool reduce = def->combine_kind == MG_UDF_REDUCE;
    if (def->contribution == NULL || def->apply == NULL || (reduce && (def->combine == NULL || def->identity == NULL)))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "%s: the definition has no snippets", fn);
    char *src = generate(def), *cubin = NULL;
    if (src == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of memory", fn);
    const mg_status status = compile(ctx, fn, src, arch, &cubin, cubin_bytes);
    mg__free(src);
    mg__free(cubin);
    return status;
}
