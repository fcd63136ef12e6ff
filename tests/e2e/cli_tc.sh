#!/usr/bin/env bash
# cli_tc.sh — `mgraph tc` and `mgraph lcc`: the harness's lines with --validate, the total and the
# per-vertex --output on a graph worked out by hand (directed and undirected), --json's keys,
# LDBC Graphalytics' example graph when ../shared/datasets is present, and the usage errors.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

# K4 on 1..4 (with a repeated edge and a self loop, which change nothing), plus 4 -> 5.
cat >"$TMP/k4.el" <<'EOF2'
1 2
1 3
1 4
2 3
2 4
3 4
2 1
3 3
4 5
EOF2

for algo in tc lcc; do
    for reading in "" --undirected "--keep-duplicates --keep-self-loops"; do
        # shellcheck disable=SC2086
        expect_rc 0 $algo "$TMP/k4.el" --validate --runs 2 $reading
        expect_out_line '^load: [0-9]+\.[0-9]+ s$'
        expect_out_line '^run: [0-9]+\.[0-9]+ s \(median of 2\)$'
        expect_out_line '^MTEPS: [0-9]+\.[0-9]+$'
        expect_out_line '^validation: PASS$'
        expect_out_line '^backend: cpu \(auto: (this build has no CUDA backend|the file is under [0-9]+ MiB, too small .*)\)$'
    done
done

expect_rc 0 tc "$TMP/k4.el"
expect_out_line '^triangles: 4$'
expect_out_line '^validation: skipped$'
expect_rc 0 tc "$TMP/k4.el" --validate --output "$TMP/tc.txt"
printf '0 0\n1 3\n2 3\n3 3\n4 3\n5 0\n' >"$TMP/tc.want"
same_file "$TMP/tc.want" "$TMP/tc.txt"
expect_rc 0 tc "$TMP/k4.el" --json --validate
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["algorithm"] == "tc" and j["triangles"] == 4 and j["validated"] is True and j["backend"] == "cpu", j' "$TMP/out" ||
    fail "tc --json: $(cat "$TMP/out")"

# Directed (the file's arcs; 2 -> 1 is the only reversed one): N(1) = {2, 3, 4} with 2->3, 2->4,
# 3->4 among them: 3 / (3 * 2); N(2) = {1, 3, 4}: 1->3, 1->4, 3->4: 3 / 6; N(3) = {1, 2, 4}: 1->2,
# 2->1, 1->4, 2->4: 4 / 6; N(4) = {1, 2, 3, 5}: 1->2, 2->1, 1->3, 2->3: 4 / (4 * 3).
expect_rc 0 lcc "$TMP/k4.el" --validate --output "$TMP/lcc.txt"
printf '0 0\n1 0.5\n2 0.5\n3 0.6666666667\n4 0.3333333333\n5 0\n' >"$TMP/lcc.want"
same_file "$TMP/lcc.want" "$TMP/lcc.txt"
# Undirected: 1..3 have 3 neighbours, all joined; 4 has 4 with 3 edges among them: 3 / 6.
expect_rc 0 lcc "$TMP/k4.el" --undirected --validate --output "$TMP/lcc.txt"
printf '0 0\n1 1\n2 1\n3 1\n4 0.5\n5 0\n' >"$TMP/lcc.want"
same_file "$TMP/lcc.want" "$TMP/lcc.txt"
expect_rc 0 lcc "$TMP/k4.el" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["algorithm"] == "lcc" and "triangles" not in j, j' "$TMP/out" ||
    fail "lcc --json: $(cat "$TMP/out")"

# Graphalytics' directed example: the reference LCC to 1e-4 relative (its validation rule).
GA=${MG_SHARED_DATASETS:-}/graphalytics
if [ -f "$GA/example-directed-LCC" ]; then
    for kind in directed undirected; do
        dir=--directed
        [ $kind = undirected ] && dir=--undirected
        expect_rc 0 lcc "$GA/example-$kind.e" --format snap $dir --validate --output "$TMP/ga.txt"
        python3 - "$GA/example-$kind-LCC" "$TMP/ga.txt" <<'EOF2' || fail "lcc on Graphalytics' example-$kind differs"
import sys
got = dict(line.split() for line in open(sys.argv[2]))
for line in open(sys.argv[1]):
    v, want = line.split()
    g, w = float(got[v]), float(want)
    assert abs(g - w) <= 1e-4 * abs(w), (v, g, w)
EOF2
    done
fi

# Usage errors and failures.
expect_rc 2 tc
expect_err "tc: missing the graph FILE"
expect_rc 2 lcc "$TMP/k4.el" extra
expect_rc 2 tc "$TMP/k4.el" --mode pull
expect_err "option '--mode' does not apply to 'tc'"
expect_rc 2 lcc "$TMP/k4.el" --source 1
expect_rc 2 tc "$TMP/k4.el" --backend tpu
expect_rc 2 lcc "$TMP/k4.el" --output "$TMP/k4.el"
expect_err "is the input file"
expect_rc 1 tc "$TMP/missing.el"
# --backend gpu: validated on a usable GPU (the device run), else a failure that writes nothing
if "$MGRAPH" probe >/dev/null 2>&1; then
    expect_rc 0 tc "$TMP/k4.el" --backend gpu --validate
    expect_out_line '^validation: PASS$'
    expect_rc 0 lcc "$TMP/k4.el" --backend gpu --validate
    expect_out_line '^validation: PASS$'
else
    expect_rc 1 tc "$TMP/k4.el" --backend gpu
    [ ! -e "$TMP/none.txt" ]
    expect_rc 1 lcc "$TMP/k4.el" --backend gpu --output "$TMP/none.txt"
    [ ! -e "$TMP/none.txt" ] || fail "lcc --backend gpu left an output file"
fi
expect_rc 0 help tc
expect_out_line '^Usage: mgraph tc FILE'
expect_rc 0 lcc --help
expect_out_line 'Graphalytics'
echo "cli_tc: PASS"
