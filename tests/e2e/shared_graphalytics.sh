#!/usr/bin/env bash
# shared_graphalytics.sh — optional: `mgraph graphalytics` on the benchmark's two example graphs in
# ../shared/datasets/graphalytics against their reference outputs, on the CPU. Where the shared
# folder is absent this script says so and exits 77, which ctest reports as skipped.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

DIR=${MG_SHARED_DATASETS:-}/graphalytics
if [ -z "${MG_SHARED_DATASETS:-}" ] || [ ! -r "$DIR/example-directed.properties" ]; then
    echo "skipped: no Graphalytics examples at '$DIR' (optional: ../shared/datasets beside the clone)"
    exit 77
fi
for name in example-directed example-undirected; do
    expect_rc 0 graphalytics "$DIR/$name.properties" --output-dir "$TMP/$name" --backend cpu \
        --algos bfs,cdlp,lcc,pr,sssp,wcc
    for algo in BFS CDLP LCC PR SSSP WCC; do
        expect_out_line "^$algo .*  PASS$"
    done
    expect_out_line '^validation: PASS$'
done
echo "the Graphalytics examples validate for BFS, CDLP, LCC, PR, SSSP and WCC"
