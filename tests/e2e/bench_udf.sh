#!/usr/bin/env bash
# bench_udf.sh — tools/bench_udf (issue 18's measurement) at a small scale: on the CPU every
# (algorithm, runner) line, each user-defined result equal to the built-in's and the JIT's second
# definition served from memory (0 s); on the GPU the NVRTC runner the same way, or exit 77 with
# the reason where no GPU is usable; bad usage exits 2 naming the option.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

BENCH="$(dirname "$MGRAPH")/bench_udf"
[ -x "$BENCH" ] || fail "$BENCH is not built"
# the CPU's JIT needs a C compiler (mg_program_define's rule: $CC, else cc, gcc or clang)
if [ -z "${CC:-}" ] && ! command -v cc >/dev/null && ! command -v gcc >/dev/null && ! command -v clang >/dev/null; then
    echo "skipped: no C compiler for the JIT"
    exit 77
fi
export MG_JIT_CACHE="$TMP/jit"
mkdir -p "$MG_JIT_CACHE"

bench() { # ARGS...: runs bench_udf, stdout in $TMP/out, stderr in $TMP/err, status in RC
    set +e
    "$BENCH" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
}
lines() { # BACKEND RUNNERS...: each algorithm's line per runner, checked
    local backend=$1 r a
    shift
    for a in bfs pagerank; do
        expect_out_line "^$a +built-in +median [0-9.]+ s  x1\.00 of built-in$"
        for r in "$@"; do
            if [ "$r" = jit ]; then
                local what=jit
                [ "$backend" = gpu ] && what=nvrtc
                expect_out_line "^$a +jit +median [0-9.]+ s  x[0-9.]+ of built-in  $what first use [0-9.]+ s, second use 0\.000 s  equal$"
            else
                expect_out_line "^$a +$r +median [0-9.]+ s  x[0-9.]+ of built-in  equal$"
            fi
        done
    done
    ! grep -q DIFFERS "$TMP/out" || fail "a result differs: $(cat "$TMP/out")"
}

# The CPU, both graphs, the old positional form (SCALE RUNS) and the options.
bench 8 2
[ "$RC" = 0 ] || fail "bench_udf 8 2: exit $RC: $(cat "$TMP/err")"
expect_out_line '^bench_udf: CPU, [0-9]+ threads, Kronecker scale 8 \(256 vertices, .*BFS from 0, 2 runs$'
lines cpu host jit
bench --backend cpu --graph rmat --scale 9 --runs 3
[ "$RC" = 0 ] || fail "bench_udf --graph rmat: exit $RC: $(cat "$TMP/err")"
expect_out_line '^bench_udf: CPU, .*R-MAT scale 9 \(512 vertices'
lines cpu host jit
[ "$(grep -c ' equal$' "$TMP/out")" = 4 ] || fail "expected 4 checked lines: $(cat "$TMP/out")"

# The GPU: the NVRTC runner only (a host-only program cannot run there), or skipped (77).
bench --backend gpu --graph rmat --scale 10 --runs 2
if [ "$RC" = 77 ]; then
    grep -q "skipped: .*GPU backend is unavailable" "$TMP/err" || fail "exit 77 without the reason: $(cat "$TMP/err")"
else
    [ "$RC" = 0 ] || fail "bench_udf --backend gpu: exit $RC: $(cat "$TMP/err")"
    expect_out_line '^bench_udf: GPU, R-MAT scale 10 '
    lines gpu jit
    ! grep -q ' host ' "$TMP/out" || fail "the GPU ran a host runner: $(cat "$TMP/out")"
fi

# Bad usage: exit 2 naming what.
for args in "--backend frob" "--graph grid" "--scale 0" "--runs 64" "--runs" "8 2 3" "--source 256 --scale 8"; do
    # shellcheck disable=SC2086
    bench $args
    [ "$RC" = 2 ] || fail "bench_udf $args: exit $RC, expected 2"
    [ -s "$TMP/err" ] || fail "bench_udf $args: no message"
    [ ! -s "$TMP/out" ] || fail "bench_udf $args printed results: $(cat "$TMP/out")"
done
bench --help
[ "$RC" = 0 ] || fail "bench_udf --help: exit $RC"
expect_out_line '^usage: bench_udf '
expect_out_line '^  --backend B '
[ ! -s "$TMP/err" ] || fail "bench_udf --help wrote to stderr: $(cat "$TMP/err")"
echo "bench_udf: ok"
