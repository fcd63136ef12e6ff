#!/usr/bin/env bash
# cli_errors.sh — run-time failures: a missing file, a directory given as a file, malformed and
# truncated files, an out-of-range source, an unavailable backend, an unwritable output path. Each
# exits non-zero with a message naming the file (and line) or the value, and no output file appears.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

cat >"$TMP/g.mtx" <<'EOF'
%%MatrixMarket matrix coordinate pattern general
4 4 3
1 2
2 3
3 4
EOF

# no_output PATH: neither the file nor a leftover temporary of it exists.
no_output() {
    local left
    left=$(ls -A "$(dirname "$1")" | grep -F "$(basename "$1")" || true)
    [ -z "$left" ] || fail "a failed run left output behind: $left"
}

# Every algorithm, every kind of unreadable input: exit 1, the file named, no --output file.
mkdir "$TMP/dir.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n' >"$TMP/bad.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 5\n1 2\n' >"$TMP/short.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 9\n' >"$TMP/range.mtx"
printf '0\t1\n1\t-2\n' >"$TMP/neg.txt"
: >"$TMP/empty.mtx"
head -c 256 /dev/urandom >"$TMP/noise.mgb"
for algo in bfs sssp cc pr bc; do
    for f in missing.mtx dir.mtx bad.mtx short.mtx range.mtx neg.txt empty.mtx noise.mgb; do
        expect_rc 1 "$algo" "$TMP/$f" --output "$TMP/out-$algo.txt"
        expect_err "mgraph: "
        expect_err "$f"
        no_output "$TMP/out-$algo.txt"
    done
done
# A directory or a missing path is called what it is, with or without an extension.
mkdir "$TMP/plaindir"
expect_rc 1 bfs "$TMP/plaindir"
expect_err "is a directory"
expect_rc 1 bfs "$TMP/dir.mtx"
expect_err "is a directory"
expect_rc 1 cc "$TMP/nothing-here"
expect_err "cannot open"
# The message names the line of the fault.
expect_rc 1 bfs "$TMP/bad.mtx"
expect_err "bad.mtx:4"
expect_rc 1 cc "$TMP/neg.txt"
expect_err "neg.txt:2"
expect_rc 1 info "$TMP/range.mtx"
expect_err "range.mtx:3"
expect_rc 1 convert "$TMP/missing.mtx" "$TMP/conv.mgb"
expect_err "missing.mtx"
no_output "$TMP/conv.mgb"
expect_rc 2 convert "$TMP/g.mtx" "$TMP/conv.csv"
expect_err "conv.csv"
no_output "$TMP/conv.csv"

# A source outside the file's range: non-zero, the value and the valid range named, no output.
expect_rc 2 bfs "$TMP/g.mtx" --source 0 --output "$TMP/src.txt"
expect_err "--source 0 is out of range"
expect_err "1..4"
no_output "$TMP/src.txt"
expect_rc 2 sssp "$TMP/g.mtx" --source 5
expect_err "--source 5 is out of range"
expect_rc 2 bc "$TMP/g.mtx" --sources 1,2,9
expect_err "9 is out of range"

# --validate: PASS on a converged result (a PageRank cut off by --max-iter is a warning, not a
# failure: cli_hardening.sh).
expect_rc 0 pr "$TMP/g.mtx" --validate
expect_out_line '^validation: PASS$'

# The GPU backend, where it is not available, is a clear run-time error before the file is read.
run bfs "$TMP/g.mtx" --backend gpu
if [ "$RC" != 0 ]; then
    [ "$RC" = 1 ] || fail "--backend gpu: exit $RC, expected 1"
    expect_err "mgraph: "
    grep -qi "gpu\|cuda\|unavailable\|not available" "$TMP/err" || fail "--backend gpu: unclear message: $(cat "$TMP/err")"
fi

# An output path in a missing directory fails, naming the path.
expect_rc 1 bfs "$TMP/g.mtx" --output "$TMP/no/such/dir/out.txt"
expect_err "$TMP/no/such/dir/out.txt"
# A directory as the output path: the temporary is removed, the directory untouched.
mkdir "$TMP/outdir"
expect_rc 1 cc "$TMP/g.mtx" --output "$TMP/outdir"
expect_err "outdir"
[ -z "$(ls -A "$TMP/outdir")" ] || fail "the output directory was written into"
no_output "$TMP/outdir.tmp"

echo "cli_errors: ok"
