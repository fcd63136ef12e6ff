#!/usr/bin/env bash
# bench_spmm_usage.sh — tools/bench_spmm's options on any machine (they are read before a GPU is
# looked for): bad usage exits 2 naming the option and prints no results; --help exits 0.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

BENCH="$(dirname "$MGRAPH")/bench_spmm"
[ -x "$BENCH" ] || fail "$BENCH is not built"

bench() { # ARGS...: runs bench_spmm, stdout in $TMP/out, stderr in $TMP/err, status in RC
    set +e
    "$BENCH" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
}

for args in "--calls 0" "--calls" "--calls 5x" "--calls 1001" "--calls -3" "--ks 0" "--ks 2000" \
            "--runs 2" "--frob"; do
    # shellcheck disable=SC2086
    bench $args
    [ "$RC" = 2 ] || fail "bench_spmm $args: exit $RC, expected 2"
    opt=${args%% *}
    grep -qF -- "$opt" "$TMP/err" || fail "bench_spmm $args: the message does not name $opt: $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "bench_spmm $args printed results: $(cat "$TMP/out")"
done
bench --help
[ "$RC" = 0 ] || fail "bench_spmm --help: exit $RC"
expect_out_line '^usage: bench_spmm '
expect_out_line '^  --calls N '
[ ! -s "$TMP/err" ] || fail "bench_spmm --help wrote to stderr: $(cat "$TMP/err")"
echo "bench_spmm usage: ok"
