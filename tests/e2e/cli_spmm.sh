#!/usr/bin/env bash
# cli_spmm.sh — `mgraph spmm` and `mgraph sddmm`: --output files against a product computed here
# (python3, from the same input files) on a small rectangular matrix with an empty row and column
# (A B, A^T B, alpha and beta with --c, the sampled product and its --c round trip); --validate
# PASS on the matrices of tests/data at K = 1 and 33 in both precisions; the seeded generator
# (never zero, the same for a seed, another for another seed); --json keys; every usage error
# names its flag or file, exits 2 and leaves no output; unreadable files exit 1; on a usable GPU
# the same products with --backend gpu.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

DATA="$(dirname "${BASH_SOURCE[0]}")/../data"

# no_output PATH: neither the file nor a leftover temporary of it exists.
no_output() {
    local left
    left=$(ls -A "$(dirname "$1")" | grep -F "$(basename "$1")" || true)
    [ -z "$left" ] || fail "a failed run left output behind: $left"
}

# The reference: reads Matrix Market coordinate / array files and plain text as mgraph documents
# them, computes the product in double and compares it with mgraph's --output (relative 1e-6 +
# absolute 1e-9; the header line, shape and, for sddmm, the pattern exactly).
cat >"$TMP/ref.py" <<'EOF'
import sys

def words(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if not line or line[0] in '%#':
            if line.startswith('%%MatrixMarket'):
                rows.append(['HEADER'] + line.split()[1:])
            continue
        rows.append(line.replace(',', ' ').split())
    return rows

def sparse(path):
    rows = words(path)
    head = rows[0]
    assert head[0] == 'HEADER' and head[2] == 'coordinate', head
    pattern, sym = head[3] == 'pattern', head[4]
    m, n, _ = map(int, rows[1])
    a = {}
    for w in rows[2:]:
        i, j = int(w[0]) - 1, int(w[1]) - 1
        v = 1.0 if pattern else float(w[2])
        a[(i, j)] = a.get((i, j), 0.0) + v
        if sym != 'general' and i != j:
            a[(j, i)] = a.get((j, i), 0.0) + (-v if sym == 'skew-symmetric' else v)
    return m, n, a

def dense(path):
    rows = words(path)
    if rows[0][0] == 'HEADER':
        assert rows[0][2] == 'array', rows[0]
        m, n = map(int, rows[1])
        vals = [float(x) for w in rows[2:] for x in w]
        return [[vals[j * m + i] for j in range(n)] for i in range(m)]  # column by column
    return [[float(x) for x in w] for w in rows]

def close(got, want, what):
    assert abs(got - want) <= 1e-6 * abs(want) + 1e-9, (what, got, want)

op = sys.argv[1]
if op == 'spmm':  # spmm A B OUT TRANSPOSE ALPHA BETA C|-
    m, n, a = sparse(sys.argv[2])
    b, t = dense(sys.argv[3]), sys.argv[5] == '1'
    alpha, beta = float(sys.argv[6]), float(sys.argv[7])
    rows, k = (n if t else m), len(b[0])
    c0 = dense(sys.argv[8]) if beta != 0 else None
    want = [[0.0] * k for _ in range(rows)]
    for (i, j), v in a.items():
        r, s = (j, i) if t else (i, j)
        for q in range(k):
            want[r][q] += v * b[s][q]
    out = words(sys.argv[4])
    assert out[0][:4] == ['HEADER', 'matrix', 'array', 'real'], out[0]
    assert list(map(int, out[1])) == [rows, k], (out[1], rows, k)
    got = dense(sys.argv[4])
    for r in range(rows):
        for q in range(k):
            w = alpha * want[r][q] + (beta * c0[r][q] if beta != 0 else 0.0)
            close(got[r][q], w, (r, q))
else:  # sddmm S A B OUT ALPHA BETA C|-
    m, n, s = sparse(sys.argv[2])
    l, b = dense(sys.argv[3]), dense(sys.argv[4])
    alpha, beta = float(sys.argv[6]), float(sys.argv[7])
    c0 = sparse(sys.argv[8])[2] if beta != 0 else None
    om, on, got = sparse(sys.argv[5])
    assert (om, on) == (m, n), (om, on, m, n)
    assert sorted(got) == sorted(s), 'the output pattern is not S\'s'
    for (i, j), v in s.items():
        dot = sum(x * y for x, y in zip(l[i], b[j]))
        close(got[(i, j)], alpha * v * dot + (beta * c0[(i, j)] if beta != 0 else 0.0), (i, j))
EOF
ref() { python3 "$TMP/ref.py" "$@" || fail "the output differs from the product computed here: $*"; }

# A 4 x 5 matrix with an empty row (3) and an empty column (5):
#   [ 2  0 -1  0    0 ]
#   [ 0  3  0  1    0 ]
#   [ 0  0  0  0    0 ]
#   [ 4  0  0  0.5  0 ]
cat >"$TMP/a.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
4 5 6
1 1 2
1 3 -1
2 2 3
4 1 4
4 4 0.5
2 4 1
EOF
A="$TMP/a.mtx"
# B 5 x 2 as a Matrix Market array (column by column), Bt 4 x 2 and C0 4 x 2 as plain text.
printf '%%%%MatrixMarket matrix array real general\n5 2\n1\n2\n3\n4\n5\n-1\n0.5\n2\n-3\n7\n' >"$TMP/b.mtx"
printf '1 -1\n2 0.5\n3 2\n4 -3\n' >"$TMP/bt.txt"
printf '1 2\n3 4\n5 6\n7 8\n' >"$TMP/c0.txt"
# sddmm's A (4 x 3) and B (5 x 3)
printf '1 2 3\n-1 0 2\n0.5 0.5 0.5\n2 -2 1\n' >"$TMP/l.txt"
printf '1 0 0\n0 1 0\n0 0 1\n1 1 1\n-2 3 0.25\n' >"$TMP/r.txt"

# SpMM, the text lines and C = A B.
expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --output "$TMP/c.mtx" --validate
ref spmm "$A" "$TMP/b.mtx" "$TMP/c.mtx" 0 1 0 -
expect_out_line '^matrix: .*a\.mtx \(4 x 5, 6 nonzeros, values double\)$'
expect_out_line '^load: [0-9.]+ s$'
expect_out_line '^preprocess: [0-9.]+ s$'
expect_out_line '^K: 2$'
expect_out_line '^B: 5 x 2 from .*b\.mtx$'
expect_out_line '^product: C = A B, 4 x 2$'
expect_out_line '^run: [0-9.]+ s \(median of 1\)$'
expect_out_line '^GFLOP/s: [0-9.]+$'
expect_out_line '^GB/s: [0-9.]+$'
expect_out_line '^validation: PASS$'
expect_out_line '^backend: (cpu|gpu) \(auto: .*\)$'
# K from the file and --k agree; single precision; several runs.
expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --k 2 --precision single --runs 3 --output "$TMP/c.mtx" --validate
ref spmm "$A" "$TMP/b.mtx" "$TMP/c.mtx" 0 1 0 -
expect_out_line '^run: [0-9.]+ s \(median of 3\)$'
# A^T B, and alpha / beta with --c.
expect_rc 0 spmm "$A" --b "$TMP/bt.txt" --transpose --output "$TMP/ct.mtx" --validate
ref spmm "$A" "$TMP/bt.txt" "$TMP/ct.mtx" 1 1 0 -
expect_out_line '^product: C = A\^T B, 5 x 2$'
expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --alpha -2 --beta 0.5 --c "$TMP/c0.txt" --runs 3 \
    --output "$TMP/cab.mtx" --validate
ref spmm "$A" "$TMP/b.mtx" "$TMP/cab.mtx" 0 -2 0.5 "$TMP/c0.txt"

# SDDMM: the sampled matrix in coordinate form, then fed back as --c with a beta.
expect_rc 0 sddmm "$A" --a "$TMP/l.txt" --b "$TMP/r.txt" --output "$TMP/s.mtx" --validate
ref sddmm "$A" "$TMP/l.txt" "$TMP/r.txt" "$TMP/s.mtx" 1 0 -
head -1 "$TMP/s.mtx" | grep -q '^%%MatrixMarket matrix coordinate real general' ||
    fail "sddmm --output is not a coordinate file: $(head -1 "$TMP/s.mtx")"
expect_out_line '^K: 3$'
expect_out_line '^product: C = S \.\* \(A B\^T\), 6 values$'
expect_rc 0 sddmm "$A" --a "$TMP/l.txt" --b "$TMP/r.txt" --alpha 3 --beta -1 --c "$TMP/s.mtx" \
    --output "$TMP/s2.mtx" --validate --precision single
ref sddmm "$A" "$TMP/l.txt" "$TMP/r.txt" "$TMP/s2.mtx" 3 -1 "$TMP/s.mtx"

# The matrices of tests/data (pattern, integer, symmetric, real), K = 1 and 33, both precisions,
# generated operands, A and A^T: every run validates.
for m in small_general small_int small_sym small_real; do
    for k in 1 33; do
        for p in single double; do
            expect_rc 0 spmm "$DATA/$m.mtx" --k "$k" --precision "$p" --validate
            expect_out_line '^validation: PASS$'
            expect_rc 0 spmm "$DATA/$m.mtx" --k "$k" --precision "$p" --transpose --validate
            expect_out_line '^validation: PASS$'
            expect_rc 0 sddmm "$DATA/$m.mtx" --k "$k" --precision "$p" --validate --runs 2
            expect_out_line '^validation: PASS$'
        done
    done
done

# The generator: through the identity, C is B itself: no zero, magnitudes in [0.5, 1.5), both
# signs; the same seed gives the same B, another seed another.
printf '%%%%MatrixMarket matrix coordinate real general\n6 6 6\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n5 5 1\n6 6 1\n' \
    >"$TMP/eye.mtx"
expect_rc 0 spmm "$TMP/eye.mtx" --k 7 --output "$TMP/g1.mtx"
expect_out_line '^B: 6 x 7 random \(seed 1\)$'
python3 - "$TMP/g1.mtx" <<'EOF' || fail "the generated B is not in +-[0.5, 1.5) with both signs: $(cat "$TMP/g1.mtx")"
import sys
body = [l for l in open(sys.argv[1]) if l.strip() and not l.startswith('%')]
assert body[0].split() == ['6', '7'], body[0]
vals = [float(l) for l in body[1:]]
assert len(vals) == 42, len(vals)
assert all(0.5 <= abs(v) < 1.5 for v in vals), vals
assert any(v < 0 for v in vals) and any(v > 0 for v in vals), vals
EOF
expect_rc 0 spmm "$TMP/eye.mtx" --k 7 --seed 1 --output "$TMP/g2.mtx"
same_file "$TMP/g1.mtx" "$TMP/g2.mtx"
expect_rc 0 spmm "$TMP/eye.mtx" --k 7 --seed 2 --output "$TMP/g3.mtx"
expect_out_line '^B: 6 x 7 random \(seed 2\)$'
if cmp -s "$TMP/g1.mtx" "$TMP/g3.mtx"; then fail "--seed 2 gave the operands of --seed 1"; fi

# --json: one object with the sparse keys and spmm's own.
expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --json --validate --runs 2
python3 - "$TMP/out" <<'EOF' || fail "spmm --json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["algorithm"] == "spmm" and d["k"] == 2 and d["validated"] is True, d
assert d["rows"] == 4 and d["cols"] == 5 and d["nnz"] == 6 and d["runs"] == 2, d
assert d["b"].endswith("b.mtx") and d["transpose"] is False and d["alpha"] == 1 and d["beta"] == 0, d
assert d["run_min_s"] <= d["run_s"] <= d["run_max_s"], d
# the fewest bytes: 5 row offsets (8), 6 indices (4) and values (8), B 5 x 2 and C 4 x 2 (8)
assert d["bytes"] == 5 * 8 + 6 * 12 + 10 * 8 + 8 * 8, d["bytes"]
for k in ("load_s", "preprocess_s", "warmup_s", "gflops", "gbs", "threads", "precision", "seed",
          "backend", "backend_reason"):
    assert k in d, k
EOF
expect_rc 0 sddmm "$A" --k 4 --json --validate
python3 - "$TMP/out" <<'EOF' || fail "sddmm --json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["algorithm"] == "sddmm" and d["k"] == 4 and d["validated"] is True, d
assert d["a"] == "random" and d["b"] == "random" and d["seed"] == 1 and "transpose" not in d, d
# CSR as spmm's, A 4 x 4 and B 5 x 4 read, 6 values of C written (8 bytes each)
assert d["bytes"] == 5 * 8 + 6 * 12 + 36 * 8 + 6 * 8, d["bytes"]
EOF

# --tf32 on the CPU: accepted, the exact float product (TF32 is the GPU's), reported in --json.
expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --tf32 --precision single --backend cpu --json --validate \
    --output "$TMP/c32.mtx"
ref spmm "$A" "$TMP/b.mtx" "$TMP/c32.mtx" 0 1 0 -
python3 - "$TMP/out" <<'EOF' || fail "spmm --tf32 --json: $(cat "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tf32"] is True and d["precision"] == "single" and d["validated"] is True, d
EOF

# Bad usage: exit 2, the flag or file named, a hint, nothing on stdout, no --output file.
printf '1 2\n3 4\n5 6\n' >"$TMP/b3.txt"
printf '1 2 3\n4 5 6\n7 8 9\n10 11 12\n13 14 15\n' >"$TMP/b5x3.txt"
printf '1 2\nnan 4\n5 6\n7 8\n9 10\n' >"$TMP/bnan.txt"
check_usage() { # TEXT ARGS...
    local text=$1
    shift
    expect_rc 2 "$@" --output "$TMP/bad.mtx"
    expect_err "$text"
    expect_err "Try 'mgraph"
    [ ! -s "$TMP/out" ] || fail "mgraph $*: printed on stdout: $(cat "$TMP/out")"
    no_output "$TMP/bad.mtx"
}
check_usage "--k K is required when no --b FILE" spmm "$A"
check_usage "--k K is required when no --a or --b FILE" sddmm "$A"
check_usage "'0' for --k" spmm "$A" --k 0
check_usage "'1025' for --k" spmm "$A" --k 1025
check_usage "'x' for --k" sddmm "$A" --k x
check_usage "'-3' for --k" spmm "$A" --k -3
check_usage "b3.txt' has 3 rows but" spmm "$A" --b "$TMP/b3.txt"
check_usage "has 5 columns" spmm "$A" --b "$TMP/b3.txt"
check_usage "b.mtx' has 5 rows but" spmm "$A" --b "$TMP/b.mtx" --transpose
check_usage "has 4 rows (--transpose)" spmm "$A" --b "$TMP/b.mtx" --transpose
check_usage "b.mtx' has 2 columns but --k gives K = 3" spmm "$A" --b "$TMP/b.mtx" --k 3
check_usage "r.txt' has 3 columns but --a file" sddmm "$A" --a "$TMP/c0.txt" --b "$TMP/r.txt"
check_usage "--a file '$TMP/r.txt' has 5 rows but" sddmm "$A" --a "$TMP/r.txt" --b "$TMP/l.txt"
check_usage "--c file" spmm "$A" --b "$TMP/b.mtx" --beta 1 --c "$TMP/b5x3.txt"
check_usage "does not have the pattern of" sddmm "$A" --k 3 --beta 1 --c "$TMP/eye.mtx"
check_usage "value 3 of 10 is NaN" spmm "$A" --b "$TMP/bnan.txt"
check_usage "--beta 2 needs --c FILE" spmm "$A" --k 2 --beta 2
check_usage "--beta 2 needs --c FILE" sddmm "$A" --k 2 --beta 2
check_usage "--c" spmm "$A" --k 2 --c "$TMP/c0.txt"
check_usage "'x' for --alpha" spmm "$A" --k 2 --alpha x
check_usage "'-1' for --seed" spmm "$A" --k 2 --seed -1
check_usage "'--transpose' does not apply to 'sddmm'" sddmm "$A" --k 2 --transpose
check_usage "'--a' does not apply to 'spmm'" spmm "$A" --k 2 --a "$TMP/l.txt"
check_usage "'--x' does not apply to 'spmm'" spmm "$A" --k 2 --x "$TMP/l.txt"
check_usage "'--semiring' does not apply to 'sddmm'" sddmm "$A" --k 2 --semiring min-plus
check_usage "'--k' does not apply to 'spmv'" spmv "$A" --k 2
check_usage "'half' for --precision" spmm "$A" --k 2 --precision half
check_usage "--tf32 needs --precision single" spmm "$A" --k 2 --tf32
check_usage "--tf32 needs --precision single" spmm "$A" --k 2 --tf32 --precision double
check_usage "'--tf32' does not apply to 'sddmm'" sddmm "$A" --k 2 --tf32 --precision single
check_usage "missing the matrix FILE" spmm --k 2
expect_rc 2 spmm "$A" --b "$TMP/b.mtx" --output "$TMP/b.mtx"
expect_err "is the input file"
expect_rc 2 sddmm "$A" --k 2 --output "$A"
expect_err "is the input file"

# Unreadable or malformed files: exit 1, the file named, no output.
printf '1 2\n3 x\n' >"$TMP/bad-b.txt"
for args in "spmm $TMP/missing.mtx --k 2" "spmm $A --b $TMP/none.txt" "spmm $A --b $TMP/bad-b.txt" \
    "sddmm $A --a $TMP/none.txt" "sddmm $A --k 2 --beta 1 --c $TMP/none.mtx"; do
    # shellcheck disable=SC2086
    expect_rc 1 $args --output "$TMP/bad.mtx"
    expect_err "mgraph: "
    no_output "$TMP/bad.mtx"
done
expect_rc 1 spmm "$TMP/missing.mtx" --k 2
expect_err "missing.mtx"
expect_rc 1 spmm "$A" --b "$TMP/bad-b.txt"
expect_err "bad-b.txt:2"

# On the GPU where one is usable (the device run): the products above, checked the same way, with
# the SpMM form's preprocessing line; without one, --backend gpu fails (exit 1) and writes nothing.
if "$MGRAPH" probe >/dev/null 2>&1; then
    expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --output "$TMP/c.mtx" --validate --backend gpu --runs 3
    ref spmm "$A" "$TMP/b.mtx" "$TMP/c.mtx" 0 1 0 -
    expect_out_line '^gpu preprocess: [0-9.]+ s '
    expect_out_line '^backend: gpu$'
    expect_rc 0 spmm "$A" --b "$TMP/bt.txt" --transpose --output "$TMP/ct.mtx" --validate --backend gpu
    ref spmm "$A" "$TMP/bt.txt" "$TMP/ct.mtx" 1 1 0 -
    expect_rc 0 spmm "$A" --b "$TMP/b.mtx" --alpha -2 --beta 0.5 --c "$TMP/c0.txt" --runs 3 \
        --output "$TMP/cab.mtx" --validate --backend gpu --precision single
    ref spmm "$A" "$TMP/b.mtx" "$TMP/cab.mtx" 0 -2 0.5 "$TMP/c0.txt"
    expect_rc 0 sddmm "$A" --a "$TMP/l.txt" --b "$TMP/r.txt" --output "$TMP/s.mtx" --validate \
        --backend gpu
    ref sddmm "$A" "$TMP/l.txt" "$TMP/r.txt" "$TMP/s.mtx" 1 0 -
    expect_rc 0 sddmm "$A" --a "$TMP/l.txt" --b "$TMP/r.txt" --alpha 3 --beta -1 --c "$TMP/s.mtx" \
        --output "$TMP/s2.mtx" --validate --backend gpu --runs 3
    ref sddmm "$A" "$TMP/l.txt" "$TMP/r.txt" "$TMP/s2.mtx" 3 -1 "$TMP/s.mtx"
    # --tf32: a banded matrix of 5000 rows (17 entries a row, a window's distinct column serving
    # 8 entries) takes the TF32 windows; K 36 (a part of the second 32 columns), alpha and beta,
    # A^T; K 6 (not a multiple of 4) keeps the exact kernels.
    python3 - "$TMP/band.mtx" <<'EOF'
import sys
n, w = 5000, 8
with open(sys.argv[1], 'w') as f:
    es = [(i, j) for i in range(n) for j in range(max(0, i - w), min(n, i + w + 1))]
    f.write('%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n' % (n, n, len(es)))
    for i, j in es:
        f.write('%d %d %.6g\n' % (i + 1, j + 1, 1.0 + ((i * 7 + j * 13) % 17) / 8.0 - 1.0))
EOF
    for k in 32 36; do
        expect_rc 0 spmm "$TMP/band.mtx" --k "$k" --precision single --tf32 --validate --backend gpu
        expect_out_line '^gpu preprocess: .*kernel tc-windows \(tf32; 8\.[0-9] entries a column\)$'
        expect_out_line '^validation: PASS$'
    done
    python3 -c 'print("\n".join(" ".join(str((i + j) % 5 - 2) for j in range(64)) for i in range(5000)))' \
        >"$TMP/band-c.txt"
    expect_rc 0 spmm "$TMP/band.mtx" --k 64 --precision single --tf32 --transpose --alpha -2 \
        --beta 0.5 --c "$TMP/band-c.txt" --validate --backend gpu
    expect_out_line 'kernel tc-windows'
    expect_out_line '^validation: PASS$'
    expect_rc 0 spmm "$TMP/band.mtx" --k 6 --precision single --tf32 --validate --backend gpu
    expect_out_line '^validation: PASS$'
    if grep -q 'tc-windows' "$TMP/out"; then fail "K 6 took the TF32 windows: $(cat "$TMP/out")"; fi
    for m in small_general small_int small_sym small_real; do
        for k in 1 33; do
            for p in single double; do
                for cmd in "spmm" "spmm --transpose" "sddmm"; do
                    # shellcheck disable=SC2086
                    expect_rc 0 $cmd "$DATA/$m.mtx" --k "$k" --precision "$p" --validate --backend gpu
                    expect_out_line '^validation: PASS$'
                done
            done
        done
    done
else
    expect_rc 1 spmm "$A" --k 2 --backend gpu --output "$TMP/bad.mtx"
    expect_err "mgraph: "
    no_output "$TMP/bad.mtx"
fi

# Help: both commands listed and described.
expect_rc 0 --help
expect_out_line '^  spmm FILE '
expect_out_line '^  sddmm FILE '
expect_rc 0 spmm --help
expect_out_line '^Usage: mgraph spmm FILE'
expect_rc 0 help sddmm
expect_out_line '^Usage: mgraph sddmm FILE'

echo "cli_spmm: ok"
