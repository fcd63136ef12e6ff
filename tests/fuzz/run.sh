#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR [SECONDS] — configures a clang build with the fuzz targets
# (MG_FUZZ=ON, AddressSanitizer + UndefinedBehaviorSanitizer) in BUILD_DIR, then runs each target
# for SECONDS (default 30) over a copy of its seed corpus (tests/fuzz/corpus/<target>). Fails on
# any crash, leak, sanitizer report or timeout; the input that did it is left in
# BUILD_DIR/fuzz-artifacts/<target>/ (replay: BUILD_DIR/tests/fuzz/fuzz_<target> FILE).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [SECONDS]" >&2
    exit 2
fi
build=$1
seconds=${2:-30}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v clang >/dev/null 2>&1 || { echo "$0: clang is needed" >&2; exit 2; }

CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMG_WITH_CUDA=OFF \
    -DMG_SANITIZE=ON -DMG_FUZZ=ON >/dev/null
targets=(mtx snap dimacs binary matrix dense)
cmake --build "$build" -j "${MG_FUZZ_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
failed=()
for t in "${targets[@]}"; do
    work="$build/fuzz-corpus/$t"
    artifacts="$build/fuzz-artifacts/$t"
    mkdir -p "$work" "$artifacts"
    echo "== fuzz_$t: ${seconds} s"
    # New inputs go to the working corpus; the seed corpus in the repository stays as it is.
    if "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$work" "$here/corpus/$t" >"$build/fuzz-$t.log" 2>&1; then
        grep -E "^stat::number_of_executed_units|^Done" "$build/fuzz-$t.log" || true
    else
        failed+=("$t")
        tail -n 60 "$build/fuzz-$t.log"
        echo "== fuzz_$t FAILED; the input: $(ls "$artifacts" | head -n 3 | tr '\n' ' ')"
    fi
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "== fuzzing found problems in: ${failed[*]}"
    exit 1
fi
echo "== fuzzing: no crash, leak or sanitizer report in ${#targets[@]} targets x ${seconds} s"
