#!/usr/bin/env bash
# cli_graphalytics.sh — `mgraph graphalytics` on the tiny hand-made datasets of
# tests/data/graphalytics (non-contiguous ids, one past 2^32; references worked out from the
# specification, not by mgraph): every algorithm validates, outputs use the file's ids and the
# benchmark's unreached markers, a wrong reference fails with exit 1, bad usage exits 2 and a bad
# properties file names its line.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

DATA=${MG_TEST_DATA:?}/graphalytics
for name in tiny-directed tiny-undirected; do
    expect_rc 0 graphalytics "$DATA/$name.properties" --output-dir "$TMP/out-$name" --backend cpu
    for algo in BFS LCC PR SSSP WCC; do
        expect_out_line "^$algo +[0-9.]+ +[0-9.e+]+  PASS$"
        [ -s "$TMP/out-$name/$name-$algo" ] || fail "no output $name-$algo"
    done
    expect_out_line '^CDLP +[0-9.]+ +[0-9.e+]+  no reference$'
    expect_out_line '^validation: PASS$'
    expect_out_line '^load: [0-9.]+ s$'
done
grep -qx '4000000000 9223372036854775807' "$TMP/out-tiny-directed/tiny-directed-BFS" ||
    fail "BFS output: unreached vertex 4000000000 is not 9223372036854775807"
grep -qx '99 Infinity' "$TMP/out-tiny-directed/tiny-directed-SSSP" ||
    fail "SSSP output: unreached vertex 99 is not Infinity"
grep -qx '20 10' "$TMP/out-tiny-directed/tiny-directed-WCC" ||
    fail "WCC output: 20's label is not its component's smallest id 10"

# --algos picks a subset, --json gives the same facts.
expect_rc 0 graphalytics "$DATA/tiny-directed.properties" --output-dir "$TMP/sub" --algos pr,WCC \
    --json --backend cpu --threads 2
grep -qF '"name": "PR"' "$TMP/out" && grep -qF '"name": "WCC"' "$TMP/out" ||
    fail "--json lacks PR or WCC: $(cat "$TMP/out")"
! grep -qF '"name": "BFS"' "$TMP/out" || fail "--algos pr,wcc ran BFS"
grep -qF '"validation": "PASS"}' "$TMP/out" || fail "--json: no overall PASS: $(cat "$TMP/out")"
[ ! -e "$TMP/sub/tiny-directed-BFS" ] || fail "--algos pr,wcc wrote a BFS output"

# A reference that disagrees fails the run (exit 1) and names the vertex; the outputs stay.
cp "$DATA"/tiny-directed* "$TMP/"
sed -i 's/^20 1.832223186728395e-01$/20 1.8325e-01/' "$TMP/tiny-directed-PR"
expect_rc 1 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/bad" --algos pr
expect_out_line '^PR .* FAIL$'
expect_err 'PR: vertex 20: got 0.18322231867284'
printf '7 7\n10 10\n20 10\n35 7\n99 99\n4000000000 7\n' >"$TMP/tiny-directed-WCC"
expect_rc 1 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/bad" --algos wcc
expect_err 'WCC: vertex'
printf '7 0\n10 0\n' >"$TMP/tiny-directed-BFS"
expect_rc 1 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/bad" --algos bfs
expect_err 'the reference does not name every vertex'

# Without references the run says so and passes.
rm "$TMP"/tiny-directed-*
expect_rc 0 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/noref" --algos bfs
expect_out_line '^BFS .* no reference$'

# Usage and input errors.
expect_rc 2 graphalytics "$DATA/tiny-directed.properties"
expect_err '--output-dir D is required'
expect_rc 2 graphalytics "$DATA/tiny-directed.properties" --output-dir "$TMP/x" --algos dfs
expect_err "unknown algorithm 'dfs'"
expect_rc 2 graphalytics "$DATA/tiny-directed.properties" --output-dir "$TMP/x" --runs 3
printf 'graph.broken.vertex-file = broken.v\ngraph.broken.directed = sometimes\n' >"$TMP/broken.properties"
expect_rc 1 graphalytics "$TMP/broken.properties" --output-dir "$TMP/x"
expect_err 'broken.properties:2: graph.broken.directed must be true or false'
printf 'graph.e.vertex-file = e.v\ngraph.e.edge-file = e.e\ngraph.e.directed = true\ngraph.e.algorithms = wcc\n' >"$TMP/e.properties"
printf '1\n2\n' >"$TMP/e.v"
printf '1 2\n2 3\n' >"$TMP/e.e"
expect_rc 1 graphalytics "$TMP/e.properties" --output-dir "$TMP/x"
expect_err 'e.e:2: the destination 3 is not in the vertex file'
expect_rc 0 graphalytics --help
grep -qF 'Usage: mgraph graphalytics' "$TMP/out" || fail "--help: $(cat "$TMP/out")"
echo "graphalytics harness: tiny datasets validated, failures and bad input reported"
