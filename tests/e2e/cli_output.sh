#!/usr/bin/env bash
# cli_output.sh — `--output` files against answers worked out by hand on small graphs: BFS depths
# and SSSP distances ('inf' where unreached), CC labels, BC values, PageRank against an independent
# power iteration in Python; ids in the file's own numbering (1-based Matrix Market, 0-based SNAP).
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

# 1 -> 2 (4), 1 -> 3 (1), 3 -> 2 (2), 2 -> 4 (5), 4 -> 1 (1), 5 <-> 6 (3), a self-loop 3 -> 3 that
# is dropped by default, and vertex 7 with no edges.
cat >"$TMP/g.mtx" <<'EOF'
%%MatrixMarket matrix coordinate integer general
% hand-made: two weakly connected pieces and an isolated vertex
7 7 8
1 2 4
1 3 1
3 2 2
2 4 5
4 1 1
5 6 3
6 5 3
3 3 7
EOF

# BFS from the default source (vertex 1: the first with an out-edge).
expect_rc 0 bfs "$TMP/g.mtx" --output "$TMP/bfs.txt" --validate
expect_out_line '^source: 1$'
printf '1 0\n2 1\n3 1\n4 2\n5 inf\n6 inf\n7 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bfs.txt"

# BFS from 2 (file numbering), then from 5 with --runs.
expect_rc 0 bfs "$TMP/g.mtx" --source 2 --output "$TMP/bfs2.txt" --validate
printf '1 2\n2 0\n3 3\n4 1\n5 inf\n6 inf\n7 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bfs2.txt"
expect_rc 0 bfs "$TMP/g.mtx" --source 5 --runs 3 --output "$TMP/bfs5.txt" --validate
printf '1 inf\n2 inf\n3 inf\n4 inf\n5 0\n6 1\n7 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bfs5.txt"

# Symmetrised: from 2, every neighbour of 2 in either direction is one hop away.
expect_rc 0 bfs "$TMP/g.mtx" --source 2 --undirected --output "$TMP/bfsu.txt" --validate
printf '1 1\n2 0\n3 1\n4 1\n5 inf\n6 inf\n7 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bfsu.txt"

# SSSP from 1: 2 is reached through 3 (1 + 2 = 3 < 4); 4 through 2 (3 + 5).
for mode in auto hybrid sparse pull; do
    expect_rc 0 sssp "$TMP/g.mtx" --mode "$mode" --output "$TMP/sssp.txt" --validate
    printf '1 0\n2 3\n3 1\n4 8\n5 inf\n6 inf\n7 inf\n' >"$TMP/want"
    same_file "$TMP/want" "$TMP/sssp.txt"
done
expect_rc 0 sssp "$TMP/g.mtx" --source 6 --delta 1 --output "$TMP/sssp6.txt" --validate
printf '1 inf\n2 inf\n3 inf\n4 inf\n5 3\n6 0\n7 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/sssp6.txt"

# CC: labels are the smallest id of each component, in the file's numbering.
expect_rc 0 cc "$TMP/g.mtx" --output "$TMP/cc.txt" --validate
printf '1 1\n2 1\n3 1\n4 1\n5 5\n6 5\n7 7\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/cc.txt"

# The same graph as a SNAP edge list: 0-based ids in and out.
cat >"$TMP/g.txt" <<'EOF'
# hand-made, 0-based
0	1	4
0	2	1
2	1	2
1	3	5
3	0	1
4	5	3
5	4	3
6	6	1
EOF
expect_rc 0 sssp "$TMP/g.txt" --source 0 --output "$TMP/sssp0.txt" --validate
expect_out_line '^source: 0$'
printf '0 0\n1 3\n2 1\n3 8\n4 inf\n5 inf\n6 inf\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/sssp0.txt"
expect_rc 0 cc "$TMP/g.txt" --output "$TMP/cc0.txt" --validate
printf '0 0\n1 0\n2 0\n3 0\n4 4\n5 4\n6 6\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/cc0.txt"
expect_rc 2 bfs "$TMP/g.txt" --source 7
expect_err "--source 7 is out of range"
expect_err "0..6"

# Parallel edges keep the least weight unless --keep-duplicates; weights drive SSSP.
cat >"$TMP/dup.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
3 3 3
1 2 9.5
1 2 2.25
2 3 0.5
EOF
expect_rc 0 sssp "$TMP/dup.mtx" --output "$TMP/dup.txt" --validate
printf '1 0\n2 2.25\n3 2.75\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/dup.txt"
expect_rc 0 info "$TMP/dup.mtx"
expect_out_line '^edges: 2 '
expect_rc 0 info "$TMP/dup.mtx" --keep-duplicates
expect_out_line '^edges: 3 '

# BC on the undirected path 1-2-3-4-5: all sources gives 0 3 4 3 0 (networkx, halved); the single
# source 1 gives its dependencies 3 2 1 0 on vertices 2..5.
cat >"$TMP/path.mtx" <<'EOF'
%%MatrixMarket matrix coordinate pattern symmetric
5 5 4
2 1
3 2
4 3
5 4
EOF
expect_rc 0 bc "$TMP/path.mtx" --all --output "$TMP/bc.txt" --validate
printf '1 0\n2 3\n3 4\n4 3\n5 0\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bc.txt"
expect_rc 0 bc "$TMP/path.mtx" --sources 1,5 --output "$TMP/bc15.txt" --validate
expect_out_line '^sources: 2$'
# From 1: 3 2 1 0 on 2..5; from 5: 1 2 3 0 on 2..4 and 1; summed and halved.
printf '1 0\n2 2\n3 2\n4 2\n5 0\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bc15.txt"
expect_rc 0 bc "$TMP/path.mtx" --source 1 --output "$TMP/bc1.txt" --validate
tail -n 4 "$TMP/bc1.txt" >"$TMP/bc1-rest.txt"
printf '2 3\n3 2\n4 1\n5 0\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/bc1-rest.txt"

# PageRank against a plain power iteration (dangling rank spread over all vertices).
expect_rc 0 pr "$TMP/g.mtx" --tolerance 1e-12 --max-iter 1000 --output "$TMP/pr.txt" --validate
python3 - "$TMP/pr.txt" <<'EOF'
import sys
n, d = 7, 0.85
edges = [(1, 2), (1, 3), (3, 2), (2, 4), (4, 1), (5, 6), (6, 5)]
out = {v: [b for a, b in edges if a == v] for v in range(1, n + 1)}
r = {v: 1.0 / n for v in out}
for _ in range(10000):
    dangling = sum(r[v] for v in out if not out[v])
    nr = {v: (1 - d) / n + d * dangling / n for v in out}
    for v in out:
        for w in out[v]:
            nr[w] += d * r[v] / len(out[v])
    delta = sum(abs(nr[v] - r[v]) for v in out)
    r = nr
    if delta < 1e-15:
        break
got = {}
for line in open(sys.argv[1]):
    v, x = line.split()
    got[int(v)] = float(x)
assert sorted(got) == list(range(1, n + 1)), f"ids {sorted(got)}"
assert abs(sum(got.values()) - 1) < 1e-6, f"ranks sum to {sum(got.values())}"
for v in out:
    assert abs(got[v] - r[v]) < 1e-6, f"vertex {v}: rank {got[v]}, expected {r[v]}"
EOF

echo "cli_output: ok"
