#!/usr/bin/env bash
# cli_graphalytics.sh — `mgraph graphalytics` on the tiny hand-made datasets of
# tests/data/graphalytics (non-contiguous ids, one past 2^32; references worked out from the
# specification, not by mgraph): every algorithm validates, outputs use the file's ids and the
# benchmark's unreached markers, a wrong reference fails with exit 1, bad usage exits 2 and a bad
# properties file names its line. Without a reference the serial checkers validate, and the table
# says so. Then the writer (convert and gen to NAME.properties): generated and converted graphs
# round-trip through the harness with all six algorithms checked, and bad outputs fail cleanly.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

DATA=${MG_TEST_DATA:?}/graphalytics
for name in tiny-directed tiny-undirected; do
    expect_rc 0 graphalytics "$DATA/$name.properties" --output-dir "$TMP/out-$name" --backend cpu
    for algo in BFS LCC PR SSSP WCC; do
        expect_out_line "^$algo +[0-9.]+ +[0-9.e+]+  PASS$"
        [ -s "$TMP/out-$name/$name-$algo" ] || fail "no output $name-$algo"
    done
    expect_out_line '^CDLP +[0-9.]+ +[0-9.e+]+  PASS \(mg_check_cdlp, no reference\)$'
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

# Without references the serial checker validates and the table names it; --no-check skips it.
rm "$TMP"/tiny-directed-*
expect_rc 0 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/noref" --algos bfs
expect_out_line '^BFS .*  PASS \(mg_check_bfs, no reference\)$'
expect_rc 0 graphalytics "$TMP/tiny-directed.properties" --output-dir "$TMP/noref" --algos bfs,pr \
    --json --no-check
grep -qF '"validation": "no reference", "validated_by": null}], "validation": "no reference"}' \
    "$TMP/out" || fail "--no-check: $(cat "$TMP/out")"

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

# ---- writing datasets: gen and convert to NAME.properties ----
# Generated graphs of each kind round-trip: all six algorithms run and pass the serial checkers
# (five without weights: the benchmark's SSSP needs them).
for spec in "rmat --scale 7 --weights float" "rmat --scale 7 --directed --weights int" \
            "grid --width 9 --height 7 --weights float" "uniform --scale 6"; do
    rm -rf "$TMP/ga"
    mkdir "$TMP/ga"
    # shellcheck disable=SC2086 # spec is split into words on purpose
    expect_rc 0 gen $spec --output "$TMP/ga/gen.properties"
    expect_out_line '^graphalytics: .*gen\.v and .*gen\.e beside it; bfs and sssp source [0-9]+$'
    [ -s "$TMP/ga/gen.v" ] && [ -s "$TMP/ga/gen.e" ] || fail "gen $spec: no gen.v or gen.e"
    expect_rc 0 graphalytics "$TMP/ga/gen.properties" --output-dir "$TMP/ga/out" --backend cpu
    algos="BFS CDLP LCC PR SSSP WCC"
    case $spec in *weights*) ;; *) algos="BFS CDLP LCC PR WCC" ;; esac
    for algo in $algos; do
        expect_out_line "^$algo +[0-9.]+ +[0-9.e+]+  PASS \(mg_check_[a-z]+, no reference\)$"
    done
    [ "$(grep -cE '^[A-Z]+ +[0-9]' "$TMP/out")" = "$(echo $algos | wc -w)" ] ||
        fail "gen $spec: not every algorithm ran: $(cat "$TMP/out")"
    expect_out_line '^validation: PASS$'
    ls "$TMP/ga" | grep -q '\.tmp\.' && fail "gen $spec: a temporary file was left: $(ls "$TMP/ga")"
done
grep -qx 'graph.gen.directed = false' "$TMP/ga/gen.properties" || fail "uniform: not undirected"
! grep -q 'sssp' "$TMP/ga/gen.properties" || fail "an unweighted dataset lists sssp"

# A converted file keeps its numbering (Matrix Market: 1-based), its weights and its edges; --source
# sets both sources; the harness's outputs name the file's ids.
expect_rc 0 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/c.properties" --source 3
printf '1\n2\n3\n4\n5\n6\n' >"$TMP/want.v"
same_file "$TMP/want.v" "$TMP/c.v"
grep -qx '1 2 3' "$TMP/c.e" && grep -qx '6 1 2' "$TMP/c.e" || fail "c.e: $(cat "$TMP/c.e")"
[ "$(wc -l <"$TMP/c.e")" = 8 ] || fail "c.e has not 8 edges: $(cat "$TMP/c.e")"
grep -qx 'graph.c.bfs.source-vertex = 3' "$TMP/c.properties" &&
    grep -qx 'graph.c.sssp.source-vertex = 3' "$TMP/c.properties" &&
    grep -qx 'graph.c.directed = true' "$TMP/c.properties" &&
    grep -qx 'graph.c.pr.damping-factor = 0.85' "$TMP/c.properties" ||
    fail "c.properties: $(cat "$TMP/c.properties")"
expect_rc 0 graphalytics "$TMP/c.properties" --output-dir "$TMP/c-out" --backend cpu
expect_out_line '^validation: PASS$'
grep -qx '3 0' "$TMP/c-out/c-BFS" || fail "c-BFS: the source 3 is not at depth 0: $(cat "$TMP/c-out/c-BFS")"
# An undirected file lists each edge once.
expect_rc 0 convert "$MG_TEST_DATA/small_sym.mtx" "$TMP/u.properties"
expect_rc 0 info "$MG_TEST_DATA/small_sym.mtx" --json
stored=$(sed -E 's/.*"edges": ([0-9]+).*/\1/' "$TMP/out")
[ "$(( $(wc -l <"$TMP/u.e") * 2 ))" -ge "$stored" ] && [ "$(wc -l <"$TMP/u.e")" -lt "$stored" ] ||
    fail "u.e: $(wc -l <"$TMP/u.e") lines for $stored stored edges"

# Bad outputs: usage errors exit 2 before any work, write errors exit 1 naming the path and leave
# nothing behind.
expect_rc 2 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/c.mtx" --source 1
expect_err '--source is for a Graphalytics output'
expect_rc 2 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/d.properties" --source 7
expect_err '--source 7 is not a vertex (ids 1 to 6)'
expect_rc 2 gen rmat --scale 4 --output "$TMP/g.props"
expect_err '.properties (an LDBC Graphalytics dataset)'
expect_rc 1 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/no/such/dir/d.properties"
expect_err "$TMP/no/such/dir/d.v"
expect_rc 1 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/a b.properties"
expect_err "the graph's name may not hold spaces"
mkdir "$TMP/w" "$TMP/w/d.e"
expect_rc 1 convert "$MG_TEST_DATA/small_int.mtx" "$TMP/w/d.properties"
expect_err "$TMP/w/d.e is a directory"
[ "$(ls "$TMP/w")" = d.e ] || fail "a failed write left files: $(ls "$TMP/w")"
expect_rc 2 convert "$TMP/c.e" "$TMP/c.properties" --format snap
expect_err "OUT's edge file '$TMP/c.e' is the input file"
echo "graphalytics harness: tiny datasets validated, failures and bad input reported; written datasets round-trip"
