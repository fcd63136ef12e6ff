#!/usr/bin/env bash
# cli_spgemm.sh — `mgraph spgemm`: --output files against a product computed here (python3, from
# the same files) for A B on a small rectangular pair with an empty row and column, A A, every
# semiring, a mask and its complement; --validate PASS on the matrices of tests/data in both
# precisions; the lines and --json keys; every usage error (a missing -o, a dimension or mask
# shape mismatch, --complement without --mask, a bad --semiring) exits 2 naming its flag or file
# and leaves no output; --backend gpu: the same products on the device where one is usable, else a
# failure that writes nothing.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

DATA="$(dirname "${BASH_SOURCE[0]}")/../data"

no_output() {
    local left
    left=$(ls -A "$(dirname "$1")" | grep -F "$(basename "$1")" || true)
    [ -z "$left" ] || fail "a failed run left output behind: $left"
}

# ref.py SEMIRING A B C [MASK [complement]]: C (mgraph's output) equals the product computed here,
# pattern exactly, values within 1e-9 relative.
cat >"$TMP/ref.py" <<'PY'
import sys

def sparse(path):
    lines = [l.split() for l in open(path) if l.strip() and not l.startswith('%')]
    head = open(path).readline().lower().split()
    pattern, sym = head[3] == 'pattern', head[4]
    m, n, _ = map(int, lines[0])
    a = {}
    for w in lines[1:]:
        i, j = int(w[0]) - 1, int(w[1]) - 1
        v = 1.0 if pattern else float(w[2])
        a[(i, j)] = a.get((i, j), 0.0) + v
        if sym == 'symmetric' and i != j:
            a[(j, i)] = a.get((j, i), 0.0) + v
    return m, n, a

sr, fa, fb, fc = sys.argv[1:5]
m, k, A = sparse(fa)
k2, n, B = sparse(fb)
mask = sparse(sys.argv[5])[2] if len(sys.argv) > 5 else None
comp = len(sys.argv) > 6
rows = {}
for (i, kk), v in A.items():
    rows.setdefault(i, []).append((kk, v))
want = {}
for (kk, j), b in sorted(B.items()):
    for i, terms in rows.items():
        for t, a in terms:
            if t != kk:
                continue
            if mask is not None and (((i, j) in mask) == comp):
                continue
            if sr == 'plus-times': p, add, e = a * b, lambda x, y: x + y, 0.0
            elif sr == 'min-plus': p, add, e = a + b, min, float('inf')
            elif sr == 'max-times': p, add, e = a * b, max, float('-inf')
            else: p, add, e = (1.0 if a != 0 and b != 0 else 0.0), max, 0.0
            want[(i, j)] = add(want.get((i, j), e), p)
cm, cn, C = sparse(fc)
assert (cm, cn) == (m, n), ((cm, cn), (m, n))
assert set(C) == set(want), ('pattern', sorted(set(C) ^ set(want)))
for key, v in want.items():
    assert abs(C[key] - v) <= 1e-9 * (1 + abs(v)), (key, C[key], v)
PY

# A 4 x 5 with row 2 empty, B 5 x 3 with column 1 empty (1-based in the files).
cat >"$TMP/a.mtx" <<'M'
%%MatrixMarket matrix coordinate real general
4 5 6
1 1 1.5
1 3 -2
3 2 3
3 5 0.25
4 1 2
4 4 -1
M
cat >"$TMP/b.mtx" <<'M'
%%MatrixMarket matrix coordinate real general
5 3 5
1 1 2
1 3 -1
2 3 4
3 1 0.5
4 3 7
M
cat >"$TMP/m.mtx" <<'M'
%%MatrixMarket matrix coordinate pattern general
4 3 3
1 1
3 3
4 1
M

for s in plus-times min-plus max-times or-and; do
    expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/c.mtx" --semiring "$s" --validate
    expect_out_line '^validation: PASS$'
    python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/c.mtx" || fail "spgemm --semiring $s differs from the reference"
    expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" --output "$TMP/cm.mtx" --semiring "$s" --mask "$TMP/m.mtx" --validate
    python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/cm.mtx" "$TMP/m.mtx" || fail "masked $s differs"
    expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/cc.mtx" --semiring "$s" --mask "$TMP/m.mtx" --complement --validate
    python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/cc.mtx" "$TMP/m.mtx" complement || fail "complemented $s differs"
done
expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/c.mtx" --runs 3
expect_out_line '^matrix: .*a\.mtx \(4 x 5, 6 nonzeros, values double\)$'
expect_out_line '^B: .*b\.mtx \(5 x 3, 5 nonzeros\)$'
expect_out_line '^product: C 4 x 3, [0-9]+ nonzeros \(double\)$'
expect_out_line '^run: [0-9.]+ s \(median of 3\)$'
expect_out_line '^GFLOP/s: [0-9.]+ \(7 multiply-adds\)$'
expect_out_line '^validation: skipped$'
expect_out_line '^backend: cpu \(auto: the CPU, where the GPU SpGEMM was not faster end to end in the products measured \(--backend gpu runs it\)\)$'
expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/c.mtx" --json --mask "$TMP/m.mtx"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["algorithm"]=="spgemm" and d["c_rows"]==4 and d["c_cols"]==3 and d["multiply_adds"]==7 and d["mask"].endswith("m.mtx") and d["backend"]=="cpu", d' "$TMP/out" || fail "--json keys"

# A alone: A A, against the reference, in both precisions, on the test matrices.
for m in small_real small_sym small_int small_general; do
    for p in single double; do
        expect_rc 0 spgemm "$DATA/$m.mtx" -o "$TMP/sq.mtx" --precision "$p" --validate
        expect_out_line '^validation: PASS$'
        expect_out_line "^B: .*$m\.mtx .*\(C = A A\)$"
    done
    python3 "$TMP/ref.py" plus-times "$DATA/$m.mtx" "$DATA/$m.mtx" "$TMP/sq.mtx" || fail "A A of $m differs"
done

# usage errors: exit 2, naming the flag or file, no output left
rm -f "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx"
expect_err "--output FILE (-o) is required"
expect_rc 2 spgemm "$TMP/a.mtx" -o "$TMP/bad.mtx"
expect_err "A ($TMP/a.mtx) is 4 x 5 but B ($TMP/a.mtx) is 4 x 5"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/b.mtx" "$TMP/a.mtx" -o "$TMP/bad.mtx"
expect_err "B ($TMP/a.mtx) is 4 x 5"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/bad.mtx" --mask "$TMP/a.mtx"
expect_err "--mask $TMP/a.mtx is 4 x 5 but C = A B"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/bad.mtx" --complement
expect_err "--complement needs --mask"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/bad.mtx" --semiring plus-min
expect_err "--semiring"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/b.mtx"
expect_err "--output"
expect_rc 2 spgemm "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/m.mtx" -o "$TMP/bad.mtx"
expect_err "unexpected argument"
no_output "$TMP/bad.mtx"
expect_rc 2 spgemm "$TMP/a.mtx" -o "$TMP/bad.mtx" --k 3
expect_err "'--k' does not apply"
expect_rc 1 spgemm "$TMP/missing.mtx" -o "$TMP/bad.mtx"
no_output "$TMP/bad.mtx"
# --backend gpu: on a usable GPU (the device run) every semiring, masked and not, against the
# reference; without one it fails (exit 1) and writes nothing.
if "$MGRAPH" probe >/dev/null 2>&1; then
    for s in plus-times min-plus max-times or-and; do
        expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/g.mtx" --semiring "$s" --validate --backend gpu
        expect_out_line '^backend: gpu$'
        python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/g.mtx" || fail "gpu $s differs"
        expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/gm.mtx" --semiring "$s" --mask "$TMP/m.mtx" --backend gpu
        python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/gm.mtx" "$TMP/m.mtx" || fail "gpu masked $s differs"
        expect_rc 0 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/gc.mtx" --semiring "$s" --mask "$TMP/m.mtx" --complement --backend gpu
        python3 "$TMP/ref.py" "$s" "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/gc.mtx" "$TMP/m.mtx" complement || fail "gpu complemented $s differs"
    done
else
    expect_rc 1 spgemm "$TMP/a.mtx" "$TMP/b.mtx" -o "$TMP/bad.mtx" --backend gpu
    no_output "$TMP/bad.mtx"
fi
echo "cli_spgemm: ok"
