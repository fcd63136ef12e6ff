#!/usr/bin/env bash
# cli_sparse.sh — `mgraph spmv`, `cg` and `probe`: results against answers worked out by hand on a
# small rectangular matrix (each semiring, A^T, alpha/beta, both precisions, gzipped input) and on
# a 1D Laplacian; --json parsed; usage errors (exit 2) naming the flag or the file and both sizes;
# malformed files naming file:line; a CG that does not converge or breaks down fails with no output
# file; probe fails clearly without a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

# no_output PATH: neither the file nor a leftover temporary of it exists.
no_output() {
    local left
    left=$(ls -A "$(dirname "$1")" | grep -F "$(basename "$1")" || true)
    [ -z "$left" ] || fail "a failed run left output behind: $left"
}

# check_vector FILE V1 V2 ...: FILE is a Matrix Market array file of one column holding these
# values (relative 1e-6 + absolute 1e-9; inf and -inf exactly).
check_vector() {
    local file=$1
    shift
    python3 - "$file" "$@" <<'EOF' || fail "$file does not hold: $*; it has: $(cat "$file")"
import math, sys
path, want = sys.argv[1], [float(v) for v in sys.argv[2:]]
lines = [l.split() for l in open(path)]
assert lines[0][:4] == ['%%MatrixMarket', 'matrix', 'array', 'real'], lines[0]
body = [l for l in lines[1:] if l and not l[0].startswith('%')]
rows, cols = int(body[0][0]), int(body[0][1])
got = [float(w) for l in body[1:] for w in l]
assert (rows, cols) == (len(want), 1), (rows, cols)
assert len(got) == len(want), got
for g, w in zip(got, want):
    if math.isinf(w):
        assert g == w, (g, w)
    else:
        assert abs(g - w) <= 1e-6 * abs(w) + 1e-9, (g, w)
EOF
}

# A 4 x 5 matrix with an empty row (3) and an empty column (5):
#   [ 2  0 -1  0    0 ]
#   [ 0  3  0  1    0 ]
#   [ 0  0  0  0    0 ]
#   [ 4  0  0  0.5  0 ]
cat >"$TMP/a.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
% hand-made: rectangular, an empty row and an empty column
4 5 6
1 1 2
1 3 -1
2 2 3
4 1 4
4 4 0.5
2 4 1
EOF
printf '%%%%MatrixMarket matrix array real general\n5 1\n1\n2\n3\n4\n5\n' >"$TMP/x.mtx"
printf '1\n2\n3\n4\n' >"$TMP/x4.txt"
printf '0\n1\n0\n0\n1\n' >"$TMP/x01.txt"
printf '1\n1\n1\n1\n' >"$TMP/y.txt"
A="$TMP/a.mtx"

# Default x (all ones), the text lines.
expect_rc 0 spmv "$A" --output "$TMP/y1.mtx" --validate
check_vector "$TMP/y1.mtx" 1 4 0 4.5
expect_out_line '^matrix: .*a\.mtx \(4 x 5, 6 nonzeros, values double\)$'
expect_out_line '^load: [0-9.]+ s$'
expect_out_line '^preprocess: [0-9.]+ s$'
expect_out_line '^run: [0-9.]+ s \(median of 1\)$'
expect_out_line '^GFLOP/s: [0-9.]+$'
expect_out_line '^GB/s: [0-9.]+$'
expect_out_line '^validation: PASS$'
expect_out_line '^backend: (cpu|gpu) \(auto: .*\)$'

# Each semiring on x = 1..5, by hand: row i combines A(i,j) (*) x(j) over its entries.
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --output "$TMP/y.mtx" --validate --runs 3
check_vector "$TMP/y.mtx" -1 10 0 6
expect_out_line '^run: [0-9.]+ s \(median of 3\)$'
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --semiring min-plus --output "$TMP/y.mtx" --validate
check_vector "$TMP/y.mtx" 2 5 inf 4.5
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --semiring max-times --output "$TMP/y.mtx" --validate
check_vector "$TMP/y.mtx" 2 6 -inf 4
# or-and: a BFS step from columns 2 and 5 reaches the rows with an entry in them.
expect_rc 0 spmv "$A" --x "$TMP/x01.txt" --semiring or-and --output "$TMP/y.mtx" --validate
check_vector "$TMP/y.mtx" 0 1 0 0
# A^T x, x of length rows.
expect_rc 0 spmv "$A" --x "$TMP/x4.txt" --transpose --output "$TMP/yt.mtx" --validate
check_vector "$TMP/yt.mtx" 18 6 -1 4 0
# y = 2 A x - y0
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --alpha 2 --beta -1 --y "$TMP/y.txt" --runs 2 \
    --output "$TMP/yab.mtx" --validate
check_vector "$TMP/yab.mtx" -3 19 -1 11
# single precision; a gzipped matrix reads the same.
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --precision single --output "$TMP/ys.mtx" --validate
check_vector "$TMP/ys.mtx" -1 10 0 6
expect_out_line '^matrix: .*values float\)$'
if command -v gzip >/dev/null; then
    gzip -c "$A" >"$TMP/a.mtx.gz"
    expect_rc 0 spmv "$TMP/a.mtx.gz" --x "$TMP/x.mtx" --output "$TMP/yz.mtx" --validate
    check_vector "$TMP/yz.mtx" -1 10 0 6
fi

# --json: one object with the harness's keys.
expect_rc 0 spmv "$A" --x "$TMP/x.mtx" --runs 3 --validate --json
python3 - "$TMP/out" <<'EOF' || fail "spmv --json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["algorithm"] == "spmv" and d["file"].endswith("a.mtx"), d
assert (d["rows"], d["cols"], d["nnz"], d["values"]) == (4, 5, 6, "double"), d
assert d["semiring"] == "plus-times" and d["transpose"] is False and d["runs"] == 3, d
assert d["validated"] is True and d["backend"] in ("cpu", "gpu") and d["backend_reason"], d
assert d["run_min_s"] <= d["run_s"] <= d["run_max_s"], d
# the fewest bytes: 5 row offsets (8), 6 indices (4) and values (8), 5 x and 4 y values (8)
assert d["bytes"] == 5 * 8 + 6 * 12 + 5 * 8 + 4 * 8, d["bytes"]
for k in ("load_s", "preprocess_s", "warmup_s", "gflops", "gbs", "threads", "precision"):
    assert k in d, k
EOF

# Vectors that do not fit: usage errors naming the file and both sizes; no output.
printf '1\n2\n3\n' >"$TMP/x3.txt"
expect_rc 2 spmv "$A" --x "$TMP/x3.txt" --output "$TMP/bad.mtx"
expect_err "x3.txt' has 3 values"
expect_err "needs 5, its columns"
no_output "$TMP/bad.mtx"
expect_rc 2 spmv "$A" --x "$TMP/x.mtx" --transpose
expect_err "x.mtx' has 5 values"
expect_err "needs 4, its rows (--transpose)"
expect_rc 2 spmv "$A" --x "$TMP/x.mtx" --beta 1 --y "$TMP/x.mtx"
expect_err "--y file"
expect_err "needs 4, its rows"
printf '1 2\n3 4\n5 6\n7 8\n9 10\n' >"$TMP/x2col.txt"
expect_rc 2 spmv "$A" --x "$TMP/x2col.txt"
expect_err "is 5 x 2: a vector is one column"

# Unreadable and malformed files: exit 1, the file (and line) named, no output.
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 x 1\n' >"$TMP/bad-a.mtx"
printf '1\n2\nthree\n4\n5\n' >"$TMP/bad-x.txt"
for args in "$TMP/missing.mtx" "$TMP/bad-a.mtx" "$A --x $TMP/bad-x.txt" "$A --x $TMP/none.txt"; do
    # shellcheck disable=SC2086
    expect_rc 1 spmv $args --output "$TMP/bad.mtx"
    expect_err "mgraph: "
    no_output "$TMP/bad.mtx"
done
expect_rc 1 spmv "$TMP/missing.mtx"
expect_err "missing.mtx"
expect_rc 1 spmv "$TMP/bad-a.mtx"
expect_err "bad-a.mtx:4"
expect_rc 1 spmv "$A" --x "$TMP/bad-x.txt"
expect_err "bad-x.txt:3"
expect_rc 1 cg "$TMP/bad-a.mtx"
expect_err "bad-a.mtx:4"

# Bad usage: exit 2, the flag and value named, a hint, nothing on stdout.
check_usage() { # TEXT ARGS...
    local text=$1
    shift
    expect_rc 2 "$@"
    expect_err "$text"
    expect_err "Try 'mgraph"
    [ ! -s "$TMP/out" ] || fail "mgraph $*: printed on stdout: $(cat "$TMP/out")"
}
check_usage "'max-plus' for --semiring" spmv "$A" --semiring max-plus
check_usage "'half' for --precision" spmv "$A" --precision half
check_usage "'x' for --alpha" spmv "$A" --alpha x
check_usage "'inf' for --beta" spmv "$A" --beta inf
check_usage "'0' for --runs" spmv "$A" --runs 0
check_usage "'gpu2' for --backend" cg "$A" --backend gpu2
check_usage "--beta 2 needs --y FILE" spmv "$A" --beta 2
check_usage "is read only with a non-zero --beta" spmv "$A" --y "$TMP/y.txt"
check_usage "--semiring min-plus takes --alpha 1" spmv "$A" --semiring min-plus --alpha 2
check_usage "--semiring or-and takes --alpha 1" spmv "$A" --semiring or-and --beta 0.5 --y "$TMP/y.txt"
check_usage "'--b' does not apply to 'spmv'" spmv "$A" --b "$TMP/y.txt"
check_usage "'--x' does not apply to 'cg'" cg "$A" --x "$TMP/y.txt"
check_usage "'--jacobi' does not apply to 'spmv'" spmv "$A" --jacobi
check_usage "'--mode' does not apply to 'spmv'" spmv "$A" --mode pull
check_usage "'0' for --tolerance" cg "$A" --tolerance 0
check_usage "'0' for --max-iter" cg "$A" --max-iter 0
check_usage "missing the matrix FILE" spmv
check_usage "unexpected argument" probe extra
check_usage "'--threads' does not apply to 'probe'" probe --threads 2
check_usage "is the input file" spmv "$A" --output "$A"
check_usage "is the input file" spmv "$A" --x "$TMP/x.mtx" --output "$TMP/x.mtx"
check_usage "needs a square matrix" cg "$A"
expect_rc 1 spmv "$A" --output "$TMP/no-such-dir/y.mtx"
expect_err "no-such-dir"

# A --output that cannot be written fails before the load and run (the matrix's error would come
# first otherwise), as the graph commands' does.
mkdir -p "$TMP/a-dir"
for cmd in spmv cg; do
    expect_rc 1 "$cmd" "$TMP/bad-a.mtx" --output "$TMP/no-such-dir/y.mtx"
    expect_err "no-such-dir/y.mtx"
    grep -q "bad-a.mtx" "$TMP/err" && fail "$cmd: --output checked after the load: $(cat "$TMP/err")"
    expect_rc 1 "$cmd" "$TMP/bad-a.mtx" --output "$TMP/a-dir"
    expect_err "a-dir is a directory"
done
[ -z "$(ls -A "$TMP/a-dir")" ] || fail "--output DIR left files in it: $(ls -A "$TMP/a-dir")"
expect_rc 0 spmv "$A" --output /dev/null

# Vector values no product can use: a NaN anywhere, an infinity in cg's right-hand side (usage
# errors naming the flag, the file and the value; no output). An infinity is min-plus's
# "unreached" and stays accepted in --x.
printf '1\n2\nnan\n4\n5\n' >"$TMP/x-nan.txt"
printf '1\n1\n-inf\n1\n' >"$TMP/b-inf.txt"
printf '1\nNaN\n1\n1\n' >"$TMP/b-nan.txt"
for p in single double; do
    expect_rc 2 spmv "$A" --x "$TMP/x-nan.txt" --precision "$p" --output "$TMP/bad.mtx"
    expect_err "spmv: --x file '$TMP/x-nan.txt': value 3 of 5 is NaN"
    no_output "$TMP/bad.mtx"
done
expect_rc 2 spmv "$A" --x "$TMP/x.mtx" --beta 1 --y "$TMP/b-nan.txt"
expect_err "--y file '$TMP/b-nan.txt': value 2 of 4 is NaN"
printf '0\ninf\n1\n2\ninf\n' >"$TMP/x-inf.txt"
expect_rc 0 spmv "$A" --x "$TMP/x-inf.txt" --semiring min-plus --output "$TMP/y.mtx" --validate
check_vector "$TMP/y.mtx" 0 3 inf 2.5

# Files of the wrong kind, as the matrix and as --x: exit 1 naming the file, no output.
printf '%%%%MatrixMarket matrix array real general\n5 1\n1\n2\n3\n4\n5\n' >"$TMP/arr.mtx"
: >"$TMP/empty.mtx"
printf 'not gzip\n' >"$TMP/corrupt.mtx.gz"
expect_matrix_error() { # MESSAGE ARGS...: exit 1 with MESSAGE on stderr and no --output
    local text=$1
    shift
    expect_rc 1 "$@" --output "$TMP/bad.mtx"
    expect_err "$text"
    no_output "$TMP/bad.mtx"
}
expect_matrix_error "arr.mtx:1: a dense 'array' file: read it with mg_dense_read" spmv "$TMP/arr.mtx"
expect_matrix_error "a.mtx:1: a sparse 'coordinate' file: read it with mg_matrix_read" \
    spmv "$A" --x "$A"
expect_matrix_error "empty.mtx:1: the file is empty" spmv "$TMP/empty.mtx"
expect_matrix_error "empty.mtx:1: the file is empty" spmv "$A" --x "$TMP/empty.mtx"
expect_matrix_error "empty.mtx:1: the file is empty" cg "$TMP/empty.mtx"
expect_matrix_error "a-dir is a directory, not a matrix file" spmv "$TMP/a-dir"
expect_matrix_error "a-dir is a directory, not a matrix file" spmv "$A" --x "$TMP/a-dir"
expect_matrix_error "/dev/null is not a regular file or a pipe" spmv /dev/null
if command -v gzip >/dev/null; then
    expect_matrix_error "corrupt.mtx.gz: not a valid gzip file" spmv "$TMP/corrupt.mtx.gz"
    expect_matrix_error "corrupt.mtx.gz: not a valid gzip file" spmv "$A" --x "$TMP/corrupt.mtx.gz"
    gzip -c "$A" | head -c 60 >"$TMP/trunc.mtx.gz"
    expect_matrix_error "trunc.mtx.gz: truncated gzip file" spmv "$TMP/trunc.mtx.gz"
fi

# Help for each command, by both spellings.
for cmd in spmv cg probe; do
    expect_rc 0 help "$cmd"
    expect_out_line "^Usage: mgraph $cmd"
    cp "$TMP/out" "$TMP/help1"
    expect_rc 0 "$cmd" --help
    same_file "$TMP/help1" "$TMP/out"
done
expect_rc 0 --help
expect_out_line '^  spmv FILE'

# CG on the 1D Laplacian tridiag(-1, 2, -1) of order 4 (symmetric file, lower triangle): with b all
# ones x(i) = i (5 - i) / 2 = 2 3 3 2; with b = e1 + e4, x = 1 1 1 1.
cat >"$TMP/lap.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real symmetric
4 4 7
1 1 2
2 1 -1
2 2 2
3 2 -1
3 3 2
4 3 -1
4 4 2
EOF
L="$TMP/lap.mtx"
printf '1\n0\n0\n1\n' >"$TMP/b.txt"
expect_rc 0 cg "$L" --output "$TMP/xcg.mtx" --validate
check_vector "$TMP/xcg.mtx" 2 3 3 2
expect_out_line '^matrix: .*lap\.mtx \(4 x 4, 10 nonzeros, values double, symmetric\)$'
expect_out_line '^iterations: [1-4]$'
expect_out_line '^residual: [0-9.e+-]+ \(tolerance 1e-08\)$'
expect_out_line '^per iteration: [0-9.]+ s$'
expect_out_line '^validation: PASS$'
expect_out_line '^backend: (cpu|gpu) \(auto: .*\)$'
expect_rc 0 cg "$L" --b "$TMP/b.txt" --jacobi --runs 3 --output "$TMP/xcg.mtx" --validate
check_vector "$TMP/xcg.mtx" 1 1 1 1
expect_out_line '^iterations: [1-4] \(jacobi\)$'
expect_rc 0 cg "$L" --precision single --output "$TMP/xcg.mtx" --validate
check_vector "$TMP/xcg.mtx" 2 3 3 2
expect_rc 0 cg "$L" --history
expect_out_line '^history: 0 1\.000000e\+00$'
expect_rc 0 cg "$L" --history --validate --json
python3 - "$TMP/out" <<'EOF' || fail "cg --json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["algorithm"] == "cg" and (d["rows"], d["cols"], d["nnz"]) == (4, 4, 10), d
assert d["validated"] is True and d["true_residual"] <= 1.1e-8, d
assert 1 <= d["iterations"] <= 4 and d["residual"] <= 1e-8, d
assert len(d["history"]) == d["iterations"] + 1 and d["history"][0] == 1, d
assert d["history"][-1] == d["residual"], d
for k in ("tolerance", "max_iter", "jacobi", "run_s", "iteration_s", "gflops", "gbs", "backend"):
    assert k in d, k
EOF
# Single precision on Poisson 2D 64 x 64: a converged x's true residual exceeds the recurrence's
# 1e-5 by what rounding x to float leaves (about 1.8e-4); --validate allows for that, not more.
python3 - "$TMP/poisson.mtx" <<'PY'
import sys
s = 64
e = [(k, k, 4) for k in range(s * s)]
e += [(i * s + j, i * s + j - 1, -1) for i in range(s) for j in range(1, s)]
e += [(i * s + j, (i - 1) * s + j, -1) for i in range(1, s) for j in range(s)]
with open(sys.argv[1], "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (s * s, s * s, len(e)))
    f.writelines("%d %d %d\n" % (a + 1, b + 1, v) for a, b, v in e)
PY
for p in single double; do
    expect_rc 0 cg "$TMP/poisson.mtx" --precision "$p" --validate
    expect_out_line '^validation: PASS$'
done
expect_rc 2 cg "$L" --b "$TMP/x.mtx"
expect_err "x.mtx' has 5 values"
expect_err "needs 4, its rows"
expect_rc 2 cg "$L" --b "$TMP/b-inf.txt" --output "$TMP/bad.mtx"
expect_err "cg: --b file '$TMP/b-inf.txt': value 3 of 4 is infinite: the right-hand side must be finite"
no_output "$TMP/bad.mtx"
expect_rc 2 cg "$L" --b "$TMP/b-nan.txt"
expect_err "value 2 of 4 is NaN"
expect_matrix_error "/dev/null is not a regular file or a pipe" cg "$L" --b /dev/null

# Not converged within --max-iter, not symmetric, indefinite (a breakdown): exit 1, no output.
expect_rc 1 cg "$L" --max-iter 1 --output "$TMP/xf.mtx"
expect_err "--max-iter 1"
no_output "$TMP/xf.mtx"
cat >"$TMP/nonsym.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
2 2 3
1 1 2
1 2 1
2 2 2
EOF
expect_rc 1 cg "$TMP/nonsym.mtx" --output "$TMP/xf.mtx"
expect_err "mgraph: "
no_output "$TMP/xf.mtx"
cat >"$TMP/indef.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real symmetric
2 2 2
1 1 1
2 2 -1
EOF
expect_rc 1 cg "$TMP/indef.mtx" --output "$TMP/xf.mtx"
expect_err "mgraph: "
no_output "$TMP/xf.mtx"

# probe: without a GPU a clear failure (exit 1); with one, every parameter with its unit.
run probe
if [ "$RC" = 0 ]; then
    expect_out_line '^device: '
    expect_out_line '^PCIe host to device, pinned: [0-9.]+ GB/s$'
    expect_out_line '^kernel launch latency: [0-9.]+ us$'
    expect_out_line '^fp64 FMA peak: [0-9.]+ GFLOP/s$'
else
    [ "$RC" = 1 ] || fail "probe without a GPU: exit $RC, expected 1"
    expect_err "mgraph: "
    grep -qi "gpu\|cuda\|unavailable\|not available" "$TMP/err" || fail "probe: unclear message: $(cat "$TMP/err")"
fi

echo "cli_sparse: ok"
