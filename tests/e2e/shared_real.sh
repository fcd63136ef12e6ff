#!/usr/bin/env bash
# shared_real.sh — optional: every algorithm with --validate on real graphs of ../shared/datasets/real
# (road networks, meshes, web, peer-to-peer, collaboration), as directed files and symmetrised.
# The project's own tests need nothing beside the clone; where the shared folder is absent this
# script says so and exits 77, which ctest reports as skipped.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

REAL=${MG_SHARED_DATASETS:-}/real
if [ -z "${MG_SHARED_DATASETS:-}" ] || [ ! -d "$REAL" ]; then
    echo "skipped: no shared real graphs at '$REAL' (optional: ../shared/datasets beside the clone)"
    exit 77
fi

checked=0
for name in minnesota.mtx usroads.mtx crack.mtx wb-cs-stanford.mtx as20000102.txt p2p-Gnutella05.txt; do
    file="$REAL/$name"
    if [ ! -r "$file" ]; then
        echo "not present: $file"
        continue
    fi
    for algo in bfs sssp cc pr bc; do
        expect_rc 0 "$algo" "$file" --validate
        expect_out_line '^validation: PASS$'
        expect_rc 0 "$algo" "$file" --validate --undirected
        expect_out_line '^validation: PASS$'
    done
    checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || fail "none of the listed graphs is in $REAL"
echo "validated every algorithm on $checked real graphs of $REAL"
