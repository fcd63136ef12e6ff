#!/usr/bin/env bash
# dist-check.sh — issue 19's device run on a machine of several GPUs, in one call: build, the MPI
# tests on the CPU (1-4 ranks) and on the GPUs (a rank per device), then bench_dist's scaling
# runs from 1 rank to every device (PageRank per iteration, BFS GTEPS, the exchange alone, SpMV A^T x),
# after a check against one whole-graph CPU context on a smaller graph of the same family. A table
# last. The table in $OUT/table.txt (or ./dist-check-out), the logs beside it in logs.tgz: the device
# tool brings back 8 files of $OUT, so the logs are kept in $LOGS (a temporary folder) and packed.
#
#   bash tools/dist-check.sh [SCALES...]      default: 22 24 26 (R-MAT, directed, edge factor 16)
#
# Environment: BUILD (build-dist), GPUS (nvidia-smi's count), RANKS (the rank counts of each scale:
# 1 and every power of two up to GPUS, and GPUS), RUNS (5), MODES (auto: bench_dist's --modes),
# SKIP_TESTS=1 (no tests, no command-line runs), GPU_CTEST=1 (build everything and run ctest -L gpu
# too), WEAK=S (weak scaling after the scales: S+log2(P) on P ranks for each power of two P in
# RANKS), BASE_TREE=DIR (an A/B in the same call: another source tree, e.g. made here with
# `git archive REV | tar x -C build-base` and carried, whose bench_dist is built beside and run
# right after each bench run, its rows marked "base"). Each table row is also appended to
# $OUT/table.txt as it comes, so a run cut off at its limit still says how far it got.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/dist-check-out}
mkdir -p "$OUT"
LOGS=${LOGS:-$(mktemp -d /tmp/dist-check.XXXXXX)}
mkdir -p "$LOGS"
TABLE="$OUT/table.txt"
# the logs so far, packed into $OUT (after each part, so a run cut off at its limit keeps them)
pack() { tar czf "$OUT/logs.tgz" --exclude=g.mtx --exclude='*.txt' -C "$LOGS" . 2>/dev/null; }
BUILD=${BUILD:-build-dist}
RUNS=${RUNS:-5}
MODES=${MODES:-auto}
SCALES=("$@")
[ "${#SCALES[@]}" -gt 0 ] || SCALES=(22 24 26) # 'none': no strong-scaling runs
# NVLink multicast stays off (the device tool's rule); mpirun as root (the device machine)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
CORES=$(nproc)
if [ -z "${RANKS:-}" ]; then
    RANKS=1
    for ((p = 2; p <= GPUS; p *= 2)); do RANKS="$RANKS $p"; done
    [ "$GPUS" -le 1 ] || [[ " $RANKS " == *" $GPUS "* ]] || RANKS="$RANKS $GPUS"
fi
table=()
: >"$TABLE"
row() {
    table+=("$(printf '%-44s %s' "$1" "$2")")
    printf '%-44s %s\n' "$1" "$2" >>"$TABLE"
}

t0=$(date +%s)
if [ -n "${BASE_TREE:-}" ]; then
    (cmake -S "$BASE_TREE" -B "$BASE_TREE/build-dist" -DCMAKE_BUILD_TYPE=Release >"$LOGS/configure_base.log" 2>&1 &&
        cmake --build "$BASE_TREE/build-dist" -j"$CORES" --target bench_dist >"$LOGS/build_base.log" 2>&1) &
    base_build=$!
fi
if cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$LOGS/configure.log" 2>&1 &&
   cmake --build "$BUILD" -j"$CORES" $([ "${GPU_CTEST:-0}" = 1 ] || echo --target test_dist bench_dist mgraph) >"$LOGS/build.log" 2>&1; then
    row "build" "PASS $(($(date +%s) - t0))s, $(grep -o 'NCCL for the ranks. GPUs [A-Z]*' "$LOGS/configure.log")"
else
    row "build" "FAIL (see build.log)"
    tail -30 "$LOGS/build.log"
    printf '%s\n' "${table[@]}"
    exit 1
fi
TEST="$BUILD/tests/test_dist"
BENCH="$BUILD/bench_dist"
if [ -n "${BASE_TREE:-}" ]; then
    if wait "$base_build"; then
        row "build of $BASE_TREE (base)" "PASS $(($(date +%s) - t0))s"
    else
        row "build of $BASE_TREE (base)" "FAIL (see build_base.log): no base rows"
        BASE_TREE=
    fi
fi

if [ "${SKIP_TESTS:-0}" != 1 ]; then
    for p in 1 2 3 4; do
        t=$(date +%s)
        if MG_SAMPLES=datasets/samples OMP_NUM_THREADS=2 timeout 300 mpirun --oversubscribe -np $p "$TEST" >"$LOGS/test_cpu_np$p.log" 2>&1; then
            row "test_dist CPU, $p ranks" "PASS $(($(date +%s) - t))s $(tail -1 "$LOGS/test_cpu_np$p.log")"
        else
            row "test_dist CPU, $p ranks" "FAIL (test_cpu_np$p.log)"
        fi
    done
    t=$(date +%s)
    MG_SAMPLES=datasets/samples OMP_NUM_THREADS=4 timeout 300 mpirun --oversubscribe -np "$GPUS" "$TEST" gpu >"$LOGS/test_gpu.log" 2>&1
    rc=$?
    row "test_dist GPU, $GPUS ranks" "$([ $rc = 0 ] && echo PASS || echo "rc $rc") $(($(date +%s) - t))s $(tail -1 "$LOGS/test_gpu.log")"
    t=$(date +%s)
    MG_SAMPLES=datasets/samples OMP_NUM_THREADS=4 timeout 300 mpirun --oversubscribe -np "$GPUS" \
        timeout 240 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$TEST" gpu >"$LOGS/memcheck_gpu.log" 2>&1
    rc=$?
    row "memcheck test_dist GPU, $GPUS ranks" "$([ $rc = 0 ] && echo PASS || echo "rc $rc") $(($(date +%s) - t))s $(grep -c 'ERROR SUMMARY: 0 errors' "$LOGS/memcheck_gpu.log") ranks with 0 errors"
fi

pack
if [ "${GPU_CTEST:-0}" = 1 ]; then
    t=$(date +%s)
    ctest --test-dir "$BUILD" -L gpu --output-on-failure >"$LOGS/ctest_gpu.log" 2>&1
    rc=$?
    row "ctest -L gpu" "$([ $rc = 0 ] && echo PASS || echo "FAIL rc $rc") $(($(date +%s) - t))s $(grep -o '[0-9]*% tests passed.*' "$LOGS/ctest_gpu.log")"
fi

# the command under mpirun on the GPUs: every algorithm validated, its output the one-process run's
if [ "${SKIP_TESTS:-0}" != 1 ]; then
    M="$BUILD/mgraph"
    "$M" gen rmat --scale 16 --weights int --output "$LOGS/g.mtx" >/dev/null 2>&1
    for a in bfs sssp cc pr bc; do
        t=$(date +%s)
        "$M" "$a" "$LOGS/g.mtx" --backend gpu --output "$LOGS/one_$a.txt" >/dev/null 2>&1
        timeout 120 mpirun --oversubscribe -np "$GPUS" "$M" "$a" "$LOGS/g.mtx" --backend gpu --validate \
            --output "$LOGS/p_$a.txt" >"$LOGS/cli_$a.log" 2>&1
        rc=$?
        same=$(python3 - "$LOGS/one_$a.txt" "$LOGS/p_$a.txt" <<'PY'
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
def num(x): return float(x) if x != "inf" else float("inf")
ok = len(a) == len(b) and all(p[0] == q[0] and (p[1] == q[1] or abs(num(p[1]) - num(q[1])) <= 1e-9 * max(1.0, abs(num(p[1])))) for p, q in zip(a, b))
print("same as one process" if ok else "DIFFERS from one process")
PY
)
        row "mpirun -np $GPUS mgraph $a --backend gpu" "rc $rc $(($(date +%s) - t))s $(grep -o 'validation: [A-Z]*' "$LOGS/cli_$a.log") $(grep -o '^backend: [a-z]*' "$LOGS/cli_$a.log"), $same"
    done
fi

# one bench_dist run of R-MAT scale $1 on $2 ranks (with BASE_TREE's after it), its rows in the table
bench() {
    local s=$1 p=$2 t log check chk bench_exe tag
    check=$((s < 20 ? s : 20))
    for bench_exe in "$BENCH" ${BASE_TREE:+"$BASE_TREE/build-dist/bench_dist"}; do
        tag=$([ "$bench_exe" = "$BENCH" ] || echo "base ")
        t=$(date +%s)
        log="$LOGS/bench_${tag:+base_}s${s}_np$p.log"
        OMP_NUM_THREADS=$((CORES / p)) timeout 540 mpirun --oversubscribe --bind-to none -np "$p" "$bench_exe" --scale "$s" \
            --directed --runs "$RUNS" --check-scale "$check" --modes "$MODES" >"$log" 2>&1
        local rc=$?
        chk=$(grep -o 'bfs [A-Z]* .*spmv [A-Z]*' "$log" | sed -E 's/ \([^)]*\),?//g')
        row "${tag}bench rmat$s directed, $p GPU(s)" "rc $rc $(($(date +%s) - t))s [$chk] $(grep '^bench_dist: ranks .* n ' "$log" | sed 's/^bench_dist: //')"
        while read -r line; do row "" "${line#bench_dist: }"; done < <(grep '^bench_dist: ranks .* mode ' "$log")
        pack
    done
}

for s in "${SCALES[@]}"; do
    [ "$s" != none ] || continue
    for p in $RANKS; do bench "$s" "$p"; done
done
if [ -n "${WEAK:-}" ]; then
    for p in $RANKS; do
        k=0
        while ((1 << k < p)); do k=$((k + 1)); done
        ((1 << k == p)) && bench $((WEAK + k)) "$p"
    done
fi

pack
echo
echo "== dist-check ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $GPUS, $CORES cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
printf '%s\n' "${table[@]}"
