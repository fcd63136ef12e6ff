#!/usr/bin/env bash
# bench-spmv.sh — the SpMV and SpMM benchmarks of docs/PERFORMANCE.md: bench_spmv (GPU, against
# cuSPARSE, then CG against its model) and bench_spmv_cpu (CPU, against SuiteSparse:GraphBLAS);
# with --ops spmm, bench_spmm (GPU: SpMM and SDDMM against cuSPARSE) and bench_spmm_cpu (CPU,
# against GraphBLAS's GrB_mxm) at the --ks columns; each on the matrix set of
# tools/bench_spmv_set.h, their markdown tables written to OUT/<op>-gpu.md and OUT/<op>-cpu.md
# (with the exact command at the top of each and on stderr). A benchmark that is not built (no
# CUDA, no GraphBLAS) is skipped with a note; one that fails stops the script (exit 1).
#
#   tools/bench-spmv.sh [--build DIR] [--out DIR] [--gpu-sizes LIST] [--cpu-sizes LIST] [--runs R]
#                       [--cg-nnz N] [--threads T] [--real DIR] [--only gpu|cpu]
#                       [--ops spmv,spmm] [--ks LIST] [-- EXTRA...]
# Defaults: build, bench-data/spmv, 1M,16M,64M,200M (GPU; SpMM 1M,16M,64M), 1M,8M,32M (CPU; SpMM
# 1M,8M), R 10, 50M, all cores, ../shared/datasets/real, spmv, 32,128,512. EXTRA arguments go to
# every benchmark (e.g. --kinds rmat,poisson3d).
set -euo pipefail

build=build out=bench-data/spmv gpu_sizes=1M,16M,64M,200M cpu_sizes=1M,8M,32M runs=10
cg_nnz=50M threads=$(nproc) real=../shared/datasets/real only= ops=spmv ks=32,128,512
gpu_sizes_set= cpu_sizes_set=
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --gpu-sizes) gpu_sizes=$2; gpu_sizes_set=1; shift 2 ;;
    --cpu-sizes) cpu_sizes=$2; cpu_sizes_set=1; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --ks) ks=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --cg-nnz) cg_nnz=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --real) real=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bench-spmv.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done
case "$only" in ''|gpu|cpu) ;; *) echo "bench-spmv.sh: --only gpu or cpu" >&2; exit 2 ;; esac
case "$ops" in spmv|spmm|spmv,spmm|spmm,spmv) ;;
*) echo "bench-spmv.sh: --ops spmv, spmm or spmv,spmm" >&2; exit 2 ;; esac
mkdir -p "$out"

# run NAME OUTFILE COMMAND...: the command echoed, then its table into OUTFILE
run() {
    local name=$1 file=$2; shift 2
    if [ ! -x "$1" ]; then
        echo "bench-spmv.sh: $1 not built: $name skipped" >&2
        return 0
    fi
    echo "+ $*" >&2
    {
        echo "\`$*\` ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
        echo
        "$@"
    } > "$file.tmp" || { echo "bench-spmv.sh: $name failed; partial output in $file.tmp" >&2; exit 1; }
    mv "$file.tmp" "$file"
    echo "bench-spmv.sh: $name table in $file" >&2
}

if [[ ",$ops," == *,spmv,* ]]; then
    if [ "$only" != cpu ]; then
        run "the GPU benchmark" "$out/spmv-gpu.md" "$build/bench_spmv" --real "$real" \
            --sizes "$gpu_sizes" --runs "$runs" --cg-nnz "$cg_nnz" --format md ${extra[@]+"${extra[@]}"}
    fi
    if [ "$only" != gpu ]; then
        run "the CPU benchmark" "$out/spmv-cpu.md" "$build/bench_spmv_cpu" \
            --real "$real" --sizes "$cpu_sizes" --runs "$runs" --threads "$threads" --format md \
            ${extra[@]+"${extra[@]}"}
    fi
fi
# SpMM's dense operands grow with K: smaller default sizes than SpMV's
spmm_gpu_sizes=1M,16M,64M spmm_cpu_sizes=1M,8M
[ -z "$gpu_sizes_set" ] || spmm_gpu_sizes=$gpu_sizes
[ -z "$cpu_sizes_set" ] || spmm_cpu_sizes=$cpu_sizes
if [[ ",$ops," == *,spmm,* ]]; then
    if [ "$only" != cpu ]; then
        run "the GPU SpMM benchmark" "$out/spmm-gpu.md" "$build/bench_spmm" --real "$real" \
            --sizes "$spmm_gpu_sizes" --ks "$ks" \
            --runs "$runs" --format md ${extra[@]+"${extra[@]}"}
    fi
    if [ "$only" != gpu ]; then
        run "the CPU SpMM benchmark" "$out/spmm-cpu.md" "$build/bench_spmm_cpu" --real "$real" \
            --sizes "$spmm_cpu_sizes" --ks "$ks" \
            --runs "$runs" --threads "$threads" --format md ${extra[@]+"${extra[@]}"}
    fi
fi
