#!/usr/bin/env bash
# cli_cdlp.sh — `mgraph cdlp`: the harness's lines with --validate, --output on graphs worked out
# by hand (undirected; directed, where an arc both ways counts twice), and the usage errors.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

# Undirected: a triangle 1 2 3 with a tail 3 - 4 - 5; vertex 0 has no edges and keeps label 0.
# Round 1: 1 hears {2, 3} (tie: 2), 2 hears {1, 3}: 1, 3 hears {1, 2, 4}: 1, 4 hears {3, 5}: 3,
# 5 hears {4}: 4. Round 2: 1 hears {1, 1}: 1, 2 {2, 1}: 1, 3 {2, 1, 3}: 1, 4 {1, 4}: 1, 5 {3}: 3.
printf '1 2\n1 3\n2 3\n3 4\n4 5\n' >"$TMP/tail.el"
expect_rc 0 cdlp "$TMP/tail.el" --undirected --iterations 2 --validate --runs 2 --output "$TMP/cdlp.txt"
expect_out_line '^run: [0-9]+\.[0-9]+ s \(median of 2\)$'
expect_out_line '^validation: PASS$'
expect_out_line '^backend: cpu \(auto: (this build has no CUDA backend|the file is under [0-9]+ MiB, too small .*)\)$'
printf '0 0\n1 1\n2 1\n3 1\n4 1\n5 3\n' >"$TMP/cdlp.want"
same_file "$TMP/cdlp.want" "$TMP/cdlp.txt"

# Directed: 1 <-> 3 and 1 -> 2. Vertex 1 hears 3 twice (in and out) and 2 once: 3, not the tie's 2.
printf '1 3\n3 1\n1 2\n' >"$TMP/arcs.el"
expect_rc 0 cdlp "$TMP/arcs.el" --iterations 1 --validate --output "$TMP/cdlp.txt"
printf '0 0\n1 3\n2 1\n3 1\n' >"$TMP/cdlp.want"
same_file "$TMP/cdlp.want" "$TMP/cdlp.txt"
# No rounds: every vertex keeps its own id.
expect_rc 0 cdlp "$TMP/arcs.el" --iterations 0 --output "$TMP/cdlp.txt"
printf '0 0\n1 1\n2 2\n3 3\n' >"$TMP/cdlp.want"
same_file "$TMP/cdlp.want" "$TMP/cdlp.txt"

expect_rc 2 cdlp "$TMP/arcs.el" --iterations -1
expect_err "invalid value '-1' for --iterations"
expect_rc 2 cdlp "$TMP/arcs.el" --mode pull
echo "PASS"
