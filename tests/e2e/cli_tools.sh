#!/usr/bin/env bash
# cli_tools.sh — `mgraph info` (text and --json, the in-degree groups), `mgraph gen` (every kind,
# deterministic for a seed whatever the thread count) and `mgraph convert` (Matrix Market <-> binary
# round trips that give the same answers).
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

SAMPLES=${MG_SAMPLES:?MG_SAMPLES is not set (ctest sets it)}

# A star: vertex 1 points at 2..201, and 2..201 all point at 202: 202 has in-degree 200 (group 5).
python3 - "$TMP/star.mtx" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix coordinate pattern general\n203 203 400\n")
    for v in range(2, 202):
        f.write(f"1 {v}\n{v} 202\n")
EOF
expect_rc 0 info "$TMP/star.mtx"
expect_out_line '^vertices: 203$'
expect_out_line '^edges: 400 '
expect_out_line '^directed: yes$'
expect_out_line '^weights: none$'
expect_out_line '^index base: 1$'
expect_out_line '^max out-degree: 200$'
expect_out_line '^max in-degree: 200$'
expect_out_line '^isolated vertices: 1$'
expect_out_line '^load: [0-9]+\.[0-9]+ s$'
# the GPU line: a device and the preprocessed size, or "none" and why
expect_out_line '^gpu: (none \(.+\)|.+ \(compute [0-9]+\.[0-9]+, [0-9]+ SMs, .*\))$'
expect_rc 0 info "$TMP/star.mtx" --json
python3 - "$TMP/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["file", "vertices", "edges", "directed", "weights", "index_base", "max_out_degree",
          "max_in_degree", "mean_degree", "isolated", "zero_out_degree", "self_loops", "load_s",
          "groups"]:
    assert k in d, f"missing {k}"
assert d["vertices"] == 203 and d["edges"] == 400 and d["directed"] is True, d
assert d["zero_out_degree"] == 2, d   # 202 and the isolated 203
g = d["groups"]
assert [x["group"] for x in g] == [1, 2, 3, 4, 5, 6], g
assert g[4]["vertices"] == 1 and g[4]["in_edges"] == 200, g     # vertex 202
assert g[5]["vertices"] == 202 and g[5]["in_edges"] == 200, g   # 1 (0), 2..201 (1 each), 203 (0)
assert sum(x["vertices"] for x in g) == 203 and sum(x["in_edges"] for x in g) == 400, g
assert "gpu" in d, "missing gpu"
if d["gpu"] is None:
    assert d["gpu_unavailable"], d
else:
    assert d["gpu"]["device_bytes"] >= d["gpu"]["csr_bytes"] > 0, d["gpu"]
EOF
expect_rc 0 info "$TMP/star.mtx" --undirected
expect_out_line '^edges: 800 '
expect_out_line '^directed: no$'
expect_rc 0 info "$SAMPLES/web-Google-sample.txt"
expect_out_line '^index base: 0$'

# gen: every kind; the same seed gives the same file, with 1 thread or 2; another seed differs.
for kind in rmat kronecker uniform geometric grid; do
    expect_rc 0 gen "$kind" --scale 7 --seed 11 --threads 1 --output "$TMP/$kind-1.mtx"
    expect_out_line "^generated: $kind "
    expect_rc 0 gen "$kind" --scale 7 --seed 11 --threads 2 --output "$TMP/$kind-2.mtx"
    cmp -s "$TMP/$kind-1.mtx" "$TMP/$kind-2.mtx" || fail "gen $kind: thread count changed the graph"
    expect_rc 0 info "$TMP/$kind-1.mtx"
    expect_out_line '^vertices: 128$'
    expect_out_line '^directed: no$'
done
expect_rc 0 gen uniform --scale 7 --seed 12 --output "$TMP/uniform-12.mtx"
cmp -s "$TMP/uniform-1.mtx" "$TMP/uniform-12.mtx" && fail "gen uniform: seeds 11 and 12 gave the same graph"
expect_rc 0 gen grid --width 7 --height 5 --directed --weights float --output "$TMP/grid.mgb"
expect_rc 0 info "$TMP/grid.mgb"
expect_out_line '^vertices: 35$'
expect_out_line '^directed: yes$'
expect_out_line '^weights: float$'
expect_rc 0 gen rmat --scale 6 --edge-factor 2 --a 0.45 --b 0.15 --c 0.15 --weights int --output "$TMP/r.mtx"
expect_rc 0 info "$TMP/r.mtx"
expect_out_line '^weights: int32$'
expect_rc 2 gen rmat --scale 4 --output "$TMP/r.csv"
expect_err "r.csv"
[ ! -e "$TMP/r.csv" ] || fail "gen left a file in an unwritable format"

# convert: text -> binary -> Matrix Market; every step gives the same answers.
expect_rc 0 convert "$SAMPLES/roadNet-CA-sample.txt" "$TMP/road.mgb"
expect_out_line '^write: '
expect_rc 0 convert "$TMP/road.mgb" "$TMP/road.mtx"
for f in "$SAMPLES/roadNet-CA-sample.txt" "$TMP/road.mgb" "$TMP/road.mtx"; do
    expect_rc 0 info "$f" --json
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["vertices"], d["edges"], d["directed"])' \
        <"$TMP/out" >>"$TMP/sizes"
done
[ "$(sort -u "$TMP/sizes" | wc -l)" = 1 ] || fail "convert changed the graph: $(cat "$TMP/sizes")"
# The .mtx is 1-based where the SNAP file was 0-based: compare the values, not the ids.
expect_rc 0 sssp "$SAMPLES/roadNet-CA-sample.txt" --source 0 --output "$TMP/a.txt"
expect_rc 0 sssp "$TMP/road.mgb" --source 0 --output "$TMP/b.txt"
same_file "$TMP/a.txt" "$TMP/b.txt"
expect_rc 0 sssp "$TMP/road.mtx" --source 1 --output "$TMP/c.txt"
cut -d' ' -f2 "$TMP/a.txt" >"$TMP/a.val"
cut -d' ' -f2 "$TMP/c.txt" >"$TMP/c.val"
same_file "$TMP/a.val" "$TMP/c.val"
expect_rc 0 cc "$TMP/kronecker-1.mtx" --output "$TMP/k1.txt"
expect_rc 0 convert "$TMP/kronecker-1.mtx" "$TMP/k.mgb"
expect_rc 0 cc "$TMP/k.mgb" --output "$TMP/k2.txt"
# The binary file keeps the index base of its source, so even the ids match.
same_file "$TMP/k1.txt" "$TMP/k2.txt"

# convert --renumber random: the same graph under other names (every permutation-invariant figure
# of `info` equal, the file different, the same for the same seed); bad values refused.
expect_rc 0 gen rmat --scale 9 --weights int --output "$TMP/r9.mgb"
expect_rc 0 convert "$TMP/r9.mgb" "$TMP/r9-renum.mgb" --renumber random --seed 5
expect_rc 0 convert "$TMP/r9.mgb" "$TMP/r9-renum2.mgb" --renumber random --seed 5
cmp -s "$TMP/r9-renum.mgb" "$TMP/r9-renum2.mgb" || fail "--renumber random --seed 5 twice differs"
! cmp -s "$TMP/r9.mgb" "$TMP/r9-renum.mgb" || fail "--renumber random left the file as it was"
expect_rc 0 info "$TMP/r9.mgb" --json
cp "$TMP/out" "$TMP/info-a.json"
expect_rc 0 info "$TMP/r9-renum.mgb" --json
python3 - "$TMP/info-a.json" "$TMP/out" <<'PYEOF' || fail "renumbering changed the graph"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("vertices", "edges", "directed", "weights", "max_out_degree", "max_in_degree", "isolated",
          "self_loops", "groups"):
    assert a[k] == b[k], (k, a[k], b[k])
PYEOF
expect_rc 0 sssp "$TMP/r9-renum.mgb" --validate
expect_rc 2 convert "$TMP/r9.mgb" "$TMP/x.mgb" --renumber sorted
expect_err "invalid value 'sorted' for --renumber"
expect_rc 2 convert "$TMP/r9.mgb" "$TMP/x.mgb" --seed 3
expect_err "--seed needs --renumber random"
[ ! -e "$TMP/x.mgb" ] || fail "a refused convert wrote its output"

echo "cli_tools: ok"
