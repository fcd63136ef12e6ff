#!/usr/bin/env bash
# gpu-ab.sh — an A/B run of two versions of the same sources on one GPU machine, in one call: the
# kernels' timings move by 10-20% from one device machine to the next (cuSPARSE's do not), so a
# change is judged only against its base measured beside it, alternating A B A B.
#
#   here:        tools/gpu-ab.sh --prepare REV FILE...   writes REV's version of each FILE into
#                                                        .gpu-ab/ (ignored; carry it to the device)
#   the device:  tools/gpu-ab.sh [--rounds N] -- COMMAND... runs COMMAND (a built target's path
#                relative to the build folder, then its arguments) N times each way (default 2):
#                A = the working tree with .gpu-ab/'s files over it, B = the working tree.
# Example: tools/gpu-ab.sh --prepare HEAD sparse/spmv_gpu.cu sparse/spmv_gpu.h, then on the device
#   tools/gpu-ab.sh -- bench_spmv --no-real --sizes 16M,64M --kinds banded,rmat --no-cg
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --prepare ]; then
    [ $# -ge 3 ] || { echo "usage: $0 --prepare REV FILE..." >&2; exit 2; }
    rev=$2; shift 2
    rm -rf .gpu-ab
    for f in "$@"; do
        mkdir -p ".gpu-ab/$(dirname "$f")"
        git show "$rev:$f" >".gpu-ab/$f"
    done
    echo "gpu-ab.sh: A = $rev's $*; carry .gpu-ab to the device"
    exit 0
fi
rounds=2
if [ "${1:-}" = --rounds ]; then rounds=$2; shift 2; fi
[ "${1:-}" = -- ] && shift
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] -- TARGET [ARGS...]  (or --prepare REV FILE...)" >&2; exit 2; }
[ -d .gpu-ab ] || { echo "gpu-ab.sh: no .gpu-ab folder: run --prepare first and carry it" >&2; exit 2; }
export PATH="$PATH:/usr/local/cuda/bin"
target=$1; shift
a_src=$(mktemp -d)
# (a plain copy: the device machine's tree need not carry a current .git)
for entry in * .[!.]*; do
    case "$entry" in build*|.git|.gpu-ab|.gpu-data) ;; *) cp -r "$entry" "$a_src"/ ;; esac
done
cp -r .gpu-ab/. "$a_src"/
build() { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$2" -j16 --target "$(basename "$target")" >"$2.log" 2>&1; }
build "$a_src" "$a_src/build-a" & pid=$!
build . build-ab-b
wait $pid
for ((i = 0; i < rounds; i++)); do
    for v in A B; do
        dir=build-ab-b; [ $v = A ] && dir=$a_src/build-a
        echo "== $v (round $((i + 1)))"
        "$dir/$target" "$@"
    done
done
