#!/usr/bin/env bash
# gpu-check.sh — the one script run on the GPU machine: configure and build with CUDA, run the GPU
# tests (ctest -L gpu), run compute-sanitizer over a reduced GPU test, and print a summary table.
# Later GPU work adds its validation runs as further sections (each calls `record NAME STATUS NOTE`).
#
# Usage: bash tools/gpu-check.sh [build-dir]      (default build-gpu; run from the repository root)
# Env:   MG_GPU_CHECK_JOBS (default 16), MG_GPU_CHECK_SKIP_SANITIZER=1 to skip the sanitizer section,
#        MG_GPU_CHECK_KEEP_BUILD=1 to reuse the build folder (default: rebuilt from scratch),
#        MG_GPU_CHECK_SANITIZE="test_gpu_x ..." to run compute-sanitizer on those tests only,
#        MG_GPU_CHECK_SANITIZER_TOOLS="memcheck initcheck" to run those tools only (default all three),
#        MG_GPU_CHECK_SKIP_CTEST=1, MG_GPU_CHECK_SKIP_CLI=1, MG_GPU_CHECK_SKIP_BENCH=1 to skip those
#        sections (one call of the device tool is limited to 10 minutes: split the run there; BENCH
#        is bench_gpu, bench_dense, mgraph bench and ncu), MG_GPU_CHECK_BENCH_ENGINES: the engines
#        of the mgraph bench section (all seven),
#        OUT (if set, the logs go there as one archive, gpu-check-logs.tar.gz, with the bench logs
#        beside it: the device tool brings back a few files only).
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
JOBS=${MG_GPU_CHECK_JOBS:-16}
LOGDIR=$BUILD/gpu-check-logs
mkdir -p "$LOGDIR"
export PATH="$PATH:/usr/local/cuda/bin"

declare -a ROWS=()
FAILED=0
record() { # name status note
    ROWS+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")")
    [ "$2" = PASS ] || [ "$2" = SKIP ] || FAILED=1
}
section() { printf '\n==== %s ====\n' "$1"; }
elapsed() { echo $(( $(date +%s) - $1 ))s; }

# ---- 1. environment ------------------------------------------------------------------------------
section "environment"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || true
nvcc --version 2>&1 | tail -1
cmake --version | head -1

# ---- 2. configure and build ----------------------------------------------------------------------
section "configure + build ($BUILD)"
t=$(date +%s)
# A fresh build unless asked otherwise: a copied working tree keeps its files' old modification
# times, so a build folder left from an earlier run can look newer than changed sources.
if [ "${MG_GPU_CHECK_KEEP_BUILD:-0}" != 1 ]; then
    rm -rf "$BUILD"
    mkdir -p "$LOGDIR"
fi
# The real-graph samples: ../shared/datasets where it exists, else the copy carried in .gpu-data
# (the device machine gets the repository alone).
DATASETS=$(cd .. && pwd)/shared/datasets
[ -d "$DATASETS" ] || DATASETS=$PWD/.gpu-data
if cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMG_SHARED_DATASETS_DIR="$DATASETS" \
        >"$LOGDIR/configure.log" 2>&1 &&
   cmake --build "$BUILD" -j"$JOBS" >"$LOGDIR/build.log" 2>&1; then
    warnings=$(grep -c -i 'warning' "$LOGDIR/build.log" || true)
    grep -q 'CUDA backend ON' "$LOGDIR/configure.log" && cuda=ON || cuda=OFF
    record "build" PASS "$(elapsed "$t"), CUDA backend $cuda, $warnings warning lines"
else
    tail -40 "$LOGDIR/configure.log" "$LOGDIR/build.log"
    record "build" FAIL "see $LOGDIR/build.log"
    printf '\n%s\n' "${ROWS[@]}"
    exit 1
fi

# ---- 3. GPU tests (ctest -L gpu) ------------------------------------------------------------------
section "ctest -L gpu"
t=$(date +%s)
if [ "${MG_GPU_CHECK_SKIP_CTEST:-0}" = 1 ]; then
    record "ctest -L gpu" SKIP "MG_GPU_CHECK_SKIP_CTEST=1"
    : >"$LOGDIR/ctest-gpu.log"
else
ctest --test-dir "$BUILD" -L gpu --output-on-failure -V >"$LOGDIR/ctest-gpu.log" 2>&1
rc=$?
grep -E '^[0-9]+: (device|hand|groups|empty|kron|grid|uniform|geometric|rmat|huge|bad|skipped|device free)' \
    "$LOGDIR/ctest-gpu.log" | sed 's/^[0-9]*: //'
grep -E 'tests passed|tests failed|Skipped|CHECK failed|returned MG_' "$LOGDIR/ctest-gpu.log" | head -30
if [ $rc -eq 0 ] && grep -q 'Not Run\|Skipped' "$LOGDIR/ctest-gpu.log" && ! grep -q 'device [0-9]' "$LOGDIR/ctest-gpu.log"; then
    record "ctest -L gpu" SKIP "no GPU ($(elapsed "$t"))"
elif [ $rc -eq 0 ]; then
    record "ctest -L gpu" PASS "$(elapsed "$t")"
else
    record "ctest -L gpu" FAIL "rc=$rc, see $LOGDIR/ctest-gpu.log"
fi
fi

# ---- 4. compute-sanitizer over the reduced GPU tests ---------------------------------------------
section "compute-sanitizer memcheck (MG_GPU_TEST_SMALL=1)"
if [ "${MG_GPU_CHECK_SKIP_SANITIZER:-0}" = 1 ]; then
    record "memcheck test_gpu_preprocess" SKIP "MG_GPU_CHECK_SKIP_SANITIZER=1"
elif ! command -v compute-sanitizer >/dev/null; then
    record "memcheck test_gpu_preprocess" SKIP "compute-sanitizer not found"
else
    # memcheck: out-of-bounds and leaks; racecheck: shared-memory hazards; initcheck: reads of
    # uninitialised device memory.
    for tool in ${MG_GPU_CHECK_SANITIZER_TOOLS:-memcheck racecheck initcheck}; do
        case $tool in
            memcheck) extra="--leak-check full" ;;
            *) extra="" ;;
        esac
        for exe in "$BUILD"/tests/test_gpu_*; do
            [ -x "$exe" ] || continue
            # MG_GPU_CHECK_SANITIZE="test_gpu_a test_gpu_b": only those tests (a short re-check)
            [ -z "${MG_GPU_CHECK_SANITIZE:-}" ] || [[ " $MG_GPU_CHECK_SANITIZE " == *" $(basename "$exe") "* ]] || continue
            name="$tool $(basename "$exe")"
            log="$LOGDIR/$tool-$(basename "$exe").log"
            t=$(date +%s)
            MG_GPU_TEST_SMALL=1 OMP_NUM_THREADS=4 timeout 300 compute-sanitizer --tool "$tool" \
                $extra --error-exitcode 99 "$exe" >"$log" 2>&1
            rc=$?
            tail -3 "$log"
            summary=$(grep -E -o '(ERROR|RACECHECK) SUMMARY: [0-9]+ (errors|hazards displayed)' "$log" | tail -1)
            case $rc in
                0) record "$name" PASS "$(elapsed "$t"), ${summary:-no summary}" ;;
                77) record "$name" SKIP "no GPU" ;;
                *) record "$name" FAIL "rc=$rc, ${summary:-see $log}" ;;
            esac
        done
    done
fi

# ---- 5. the CLI on generated graphs: `mgraph info` reports the device form's time and size ------
# (later issues add the algorithms' --backend gpu --validate runs here)
section "mgraph info on generated graphs"
GEN_DIR=${MG_GPU_CHECK_DATA:-/tmp/mgraph-gpu-check}
mkdir -p "$GEN_DIR"
declare -a INFO_ROWS=()
for spec in "rmat22:rmat --scale 22 --edge-factor 16 --weights int" "grid4M:grid --width 2048 --height 2048 --weights int"; do
    name=${spec%%:*}
    file="$GEN_DIR/$name.mgb"
    t=$(date +%s)
    if [ -f "$file" ] || "$BUILD/mgraph" gen ${spec#*:} --output "$file" >"$LOGDIR/gen-$name.log" 2>&1; then
        if "$BUILD/mgraph" info "$file" >"$LOGDIR/info-$name.log" 2>&1; then
            pre=$(grep '^gpu preprocess' "$LOGDIR/info-$name.log" | sed 's/^gpu preprocess: //' | paste -sd' ')
            size=$(grep -E '^(vertices|edges):' "$LOGDIR/info-$name.log" | awk '{print $2}' | paste -sd' ')
            INFO_ROWS+=("$(printf '%-8s n m = %-22s %s' "$name" "$size" "${pre:-no gpu line}")")
            [ -n "$pre" ] && record "info $name" PASS "$(elapsed "$t")" || record "info $name" FAIL "no gpu preprocess line"
        else
            tail -5 "$LOGDIR/info-$name.log"
            record "info $name" FAIL "see $LOGDIR/info-$name.log"
        fi
    else
        record "info $name" FAIL "generation failed, see $LOGDIR/gen-$name.log"
    fi
done

# ---- 6. every algorithm through the CLI on the GPU backend, validated, with the CPU beside it ------
# GPU: --validate (the serial reference), median of 3 after a warm-up; CPU: the same command on all
# cores, median of 3, not validated again (the unit tests cover it). R-MAT 22 and the 2048x2048 grid
# are issue 3's performance graphs; the others are correctness inputs.
section "mgraph <algo> --backend gpu --validate, and --backend cpu"
declare -a ALGO_ROWS=()
gen_graph() { # name generator-arguments...
    local name=$1
    shift
    [ -f "$GEN_DIR/$name.mgb" ] || "$BUILD/mgraph" gen "$@" --output "$GEN_DIR/$name.mgb" \
        >"$LOGDIR/gen-$name.log" 2>&1 || record "gen $name" FAIL "see $LOGDIR/gen-$name.log"
}
gen_graph rmat20 rmat --scale 20 --edge-factor 16 --weights int
gen_graph uniform20 uniform --scale 20 --edge-factor 16 --weights int
gen_graph grid18 grid --width 512 --height 512 --weights int
field() { # log key: the value after "key: " (first word)
    grep -E "^$2:" "$1" | head -1 | sed "s/^$2: *//" | awk '{print $1}'
}
GRAPHS=("$GEN_DIR/rmat20.mgb" "$GEN_DIR/rmat22.mgb" "$GEN_DIR/uniform20.mgb" "$GEN_DIR/grid18.mgb"
        "$GEN_DIR/grid4M.mgb" datasets/samples/roadNet-CA-sample.txt)
[ -f "$DATASETS/web-Google-sample.txt" ] && GRAPHS+=("$DATASETS/web-Google-sample.txt")
runs=0
[ "${MG_GPU_CHECK_SKIP_CLI:-0}" = 1 ] && GRAPHS=() && record "cli --backend gpu --validate" SKIP "MG_GPU_CHECK_SKIP_CLI=1"
for file in "${GRAPHS[@]}"; do
    gname=$(basename "$file"); gname=${gname%.mgb}; gname=${gname%.txt}
    for algo in bfs sssp cc pr bc; do
        log="$LOGDIR/cli-$algo-$gname.log"
        cpu_log="$LOGDIR/cpu-$algo-$gname.log"
        runs=$((runs + 1))
        # BC on the 2048x2048 grid from its centre: from the corner vertex 0 (the CLI's default) one
        # BFS level holds path counts from 1 to 2^2041, more than a double spans (MG_RANGE_ERROR);
        # from the centre the widest level spans ~2^1019, which the rescaled counts hold
        extra=()
        [ "$gname" = grid4M ] && [ "$algo" = bc ] && extra=(--source $((1024 * 2048 + 1024)))
        if timeout 300 "$BUILD/mgraph" "$algo" "$file" "${extra[@]}" --backend gpu --validate --runs 3 >"$log" 2>&1; then
            ok=yes
        elif grep -q 'more than double can hold' "$log"; then
            # BC path counts that one double cannot span (a 2048x2048 grid): the library's
            # documented MG_RANGE_ERROR, which the CPU reports too
            ok=range
        else
            ok=NO
            record "cli $algo $gname" FAIL "see $log"
        fi
        timeout 300 "$BUILD/mgraph" "$algo" "$file" "${extra[@]}" --backend cpu --runs 3 >"$cpu_log" 2>&1 || true
        pre=$(grep '^gpu preprocess:' "$log" | sed -E 's/^gpu preprocess: ([0-9.]+) s .*device memory ([0-9.]+) MiB = ([0-9.]+) x CSR.*/\1 \2 \3/')
        read -r pre_s dev_mib x_csr <<<"${pre:-- - -}"
        ALGO_ROWS+=("$(printf '| %-4s | %-20s | %-4s | %9s | %9s | %9s | %9s | %8s | %8s | %5s |' "$algo" "$gname" \
            "$( [ "$ok" = yes ] && [ "$(field "$log" validation)" != PASS ] && echo NO || echo $ok)" \
            "$(field "$log" run)" "$(field "$log" MTEPS)" "$(field "$cpu_log" run)" "$(field "$cpu_log" MTEPS)" \
            "$pre_s" "$dev_mib" "$x_csr")")
    done
done
[ "$FAILED" = 0 ] && [ "$runs" -gt 0 ] && record "cli --backend gpu --validate" PASS "$runs runs" || true

# ---- 7. benchmark: the sparse-frontier engine against the plain CSR kernel (Table 3.2 shape) ------
section "bench_gpu"
if [ "${MG_GPU_CHECK_SKIP_BENCH:-0}" = 1 ]; then
    record "bench_gpu" SKIP "MG_GPU_CHECK_SKIP_BENCH=1"
elif [ -x "$BUILD/bench_gpu" ]; then
    t=$(date +%s)
    if "$BUILD/bench_gpu" >"$LOGDIR/bench_gpu.log" 2>&1; then
        record "bench_gpu" PASS "$(elapsed "$t"), every BFS and PageRank step validated"
    else
        tail -5 "$LOGDIR/bench_gpu.log"
        record "bench_gpu" FAIL "see $LOGDIR/bench_gpu.log"
    fi
else
    record "bench_gpu" FAIL "not built"
fi

# ---- 8. benchmark: the dense-frontier engine against the pull and cuSPARSE (issue 4) --------------
section "bench_dense"
if [ "${MG_GPU_CHECK_SKIP_BENCH:-0}" = 1 ]; then
    record "bench_dense" SKIP "MG_GPU_CHECK_SKIP_BENCH=1"
elif [ -x "$BUILD/bench_dense" ]; then
    t=$(date +%s)
    if "$BUILD/bench_dense" ${MG_GPU_CHECK_DENSE_ARGS:---no-sweep} >"$LOGDIR/bench_dense.log" 2>&1; then
        record "bench_dense" PASS "$(elapsed "$t"), dense and cuSPARSE checked against the pull"
    else
        tail -5 "$LOGDIR/bench_dense.log"
        record "bench_dense" FAIL "see $LOGDIR/bench_dense.log"
    fi
else
    record "bench_dense" FAIL "not built"
fi

# ---- 8b. the engines side by side: mgraph bench (every algorithm x engine, one load, validated) ---
# R-MAT 22 and the 4M grid (from its centre: see section 6), median of 5 after a warm-up.
section "mgraph bench: engines side by side"
if [ "${MG_GPU_CHECK_SKIP_BENCH:-0}" = 1 ]; then
    record "mgraph bench" SKIP "MG_GPU_CHECK_SKIP_BENCH=1"
else
    for spec in "rmat22:" "grid4M:--source $((1024 * 2048 + 1024))"; do
        name=${spec%%:*}
        t=$(date +%s)
        # shellcheck disable=SC2086
        if timeout 400 "$BUILD/mgraph" bench "$GEN_DIR/$name.mgb" ${spec#*:} --runs 5 \
               --engines ${MG_GPU_CHECK_BENCH_ENGINES:-cpu,auto,hybrid,sparse,pull,dense,baseline} \
               >"$LOGDIR/engines-$name.log" 2>"$LOGDIR/engines-$name.err"; then
            record "mgraph bench $name" PASS "$(elapsed "$t"), every case validated"
        else
            tail -5 "$LOGDIR/engines-$name.err"
            record "mgraph bench $name" FAIL "see $LOGDIR/engines-$name.log"
        fi
    done
fi

# ---- 9. DRAM bytes per edge of the dense engine's PageRank iteration (issue 4), with ncu --------
# One dense iteration per graph under Nsight Compute with the clocks left alone; the phase kernels'
# DRAM reads + writes over the stored edges.
section "ncu: dense engine DRAM bytes per edge"
declare -a NCU_ROWS=()
if [ "${MG_GPU_CHECK_SKIP_BENCH:-0}" = 1 ]; then
    record "ncu bytes/edge" SKIP "MG_GPU_CHECK_SKIP_BENCH=1"
elif ! command -v ncu >/dev/null; then
    record "ncu bytes/edge" SKIP "ncu not found"
else
    for graph in rmat uniform; do
        log="$LOGDIR/ncu-$graph.log"
        if timeout 300 ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum \
               -k regex:"heavy_kernel|light_kernel|phase2_kernel|source_values_kernel" --csv \
               "$BUILD/bench_dense" --iterations 1 --graph "$graph" >"$log" 2>&1; then
            # edges from the bench's own line, bytes summed over the profiled kernels' metric rows
            edges=$(grep -oE 'm=[0-9]+' "$log" | head -1 | cut -d= -f2)
            # (mawk: no ternary continued across lines; ncu prints "1,234" with thousands commas)
            bytes=$(grep -E '"dram__bytes_(read|write)\.sum"' "$log" | awk -F'","' '
                { v = $NF; gsub(/[",]/, "", v); u = $(NF-1); gsub(/"/, "", u); m = 1
                  if (u == "Kbyte" || u == "KB") m = 1e3
                  if (u == "Mbyte" || u == "MB") m = 1e6
                  if (u == "Gbyte" || u == "GB") m = 1e9
                  s += v * m }
                END { printf "%.0f", s }')
            NCU_ROWS+=("$(printf '%-8s edges %-12s DRAM bytes %-12s bytes/edge %s' "$graph" "$edges" "$bytes" \
                "$(awk -v b="$bytes" -v e="$edges" 'BEGIN { if (e > 0) printf "%.2f", b / e; else print "?" }')")")
            record "ncu bytes/edge $graph" PASS "see $log"
        else
            tail -5 "$log"
            record "ncu bytes/edge $graph" FAIL "see $log"
        fi
    done
fi

# ---- summary -------------------------------------------------------------------------------------
section "summary"
echo "GPU preprocessing (tests/gpu/test_gpu_preprocess.c; graphs of 2^14 vertices and more):"
grep -E 'n=[0-9]{5,} ' "$LOGDIR/ctest-gpu.log" | sed 's/^[0-9]*: //' | grep -v '^hand' || true
grep -E 'huge n=' "$LOGDIR/ctest-gpu.log" | sed 's/^[0-9]*: //' || true
echo
echo "mgraph info (GPU preprocessing from the graph's edges: time, device memory, x plain CSR):"
printf '%s\n' "${INFO_ROWS[@]}"
echo
echo "bench_gpu (full table in $LOGDIR/bench_gpu.log):"
grep -E '^device:|BFS totals|pagerank step' "$LOGDIR/bench_gpu.log" 2>/dev/null || true
echo
echo "ncu (dense PageRank iteration, float, scale 22: DRAM read + write of the phase kernels / edges):"
printf '%s\n' "${NCU_ROWS[@]}"
echo
for name in rmat22 grid4M; do
    [ -s "$LOGDIR/engines-$name.log" ] || continue
    echo "mgraph bench $name (seconds, median of 5; every case validated):"
    cat "$LOGDIR/engines-$name.log"
    echo
done
echo "bench_dense (full table in $LOGDIR/bench_dense.log):"
grep -v '^ *$' "$LOGDIR/bench_dense.log" 2>/dev/null | tail -12 || true
echo
echo "mgraph ALGO --backend gpu --validate beside --backend cpu ($(nproc) cores); seconds are medians of 3;"
echo "gpu pre = GPU preprocessing from the loaded graph (s), device MiB and x plain CSR;"
echo "ok = range: mg_bc's MG_RANGE_ERROR (one BFS level's path counts span more than a double can hold):"
echo "| algo | graph                | ok   |   gpu s   | gpu MTEPS |   cpu s   | cpu MTEPS | gpu pre  | dev MiB  | x CSR |"
echo "|------|----------------------|------|-----------|-----------|-----------|-----------|----------|----------|-------|"
printf '%s\n' "${ALGO_ROWS[@]}"
echo
printf '%-34s %-8s %s\n' "check" "result" "note"
printf '%s\n' "${ROWS[@]}"
if [ -n "${OUT:-}" ]; then
    tar czf "$OUT/gpu-check-logs.tar.gz" -C "$LOGDIR" .
    cp "$LOGDIR"/bench_*.log "$OUT"/ 2>/dev/null || true
fi
exit $FAILED
