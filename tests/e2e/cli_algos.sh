#!/usr/bin/env bash
# cli_algos.sh — every algorithm with --validate on an inline graph, on generated graphs (`mgraph
# gen`, weighted and not, directed and not), on the real SNAP samples in datasets/samples; the
# GAPBS-style text lines and the --json object with its keys.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

SAMPLES=${MG_SAMPLES:?MG_SAMPLES is not set (ctest sets it)}

cat >"$TMP/small.mtx" <<'EOF'
%%MatrixMarket matrix coordinate integer symmetric
% a small weighted undirected graph: a 5-cycle with a chord and a pendant
6 6 7
2 1 3
3 2 1
4 3 4
5 4 1
5 1 9
4 1 2
6 5 7
EOF

# validate_all FILE [OPTIONS]: each algorithm passes --validate and prints the standard lines.
validate_all() {
    local file=$1
    shift
    for algo in bfs sssp cc pr bc; do
        expect_rc 0 "$algo" "$file" --validate "$@"
        expect_out_line '^load: [0-9]+\.[0-9]+ s$'
        expect_out_line '^preprocess: [0-9]+\.[0-9]+ s$'
        expect_out_line '^run: [0-9]+\.[0-9]+ s \(median of [0-9]+\)$'
        expect_out_line '^MTEPS: [0-9]+\.[0-9]+$'
        expect_out_line '^validation: PASS$'
        expect_out_line '^backend: (cpu|gpu)( \(.*\))?$'
    done
}

# --backend auto (the default) says what it chose and why; a small file never starts the GPU.
expect_rc 0 bfs "$TMP/small.mtx"
expect_out_line '^backend: cpu \(auto: (this build has no CUDA backend|the file is under [0-9]+ MiB, too small .*)\)$'
expect_rc 0 bfs "$TMP/small.mtx" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["backend"] == "cpu" and j["backend_reason"].startswith("auto: "), j' "$TMP/out" ||
    fail "--json lacks the auto backend's reason: $(cat "$TMP/out")"
expect_rc 0 bfs "$TMP/small.mtx" --backend cpu
expect_out_line '^backend: cpu$'

validate_all "$TMP/small.mtx"
validate_all "$TMP/small.mtx" --runs 3 --threads 1
validate_all "$TMP/small.mtx" --directed --mode sparse
validate_all "$TMP/small.mtx" --mode pull
validate_all "$TMP/small.mtx" --mode dense
expect_rc 0 pr "$TMP/small.mtx" --validate --data-driven --damping 0.5 --tolerance 1e-8
expect_out_line '^iterations: [0-9]+'
# float iterates: validated, said in the report; the combinations they cannot run are usage errors
expect_rc 0 pr "$TMP/small.mtx" --validate --precision single --tolerance 1e-6
expect_out_line '^iterations: [0-9]+ \(single precision\)$'
expect_out_line '^validation: PASS$'
expect_rc 0 pr "$TMP/small.mtx" --validate --precision single --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["precision"] == "single" and j["validated"], j' "$TMP/out" ||
    fail "pr --precision single --json: $(cat "$TMP/out")"
expect_rc 0 pr "$TMP/small.mtx" --validate --precision double --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["precision"] == "double", j' "$TMP/out" ||
    fail "pr --precision double --json: $(cat "$TMP/out")"
expect_rc 2 pr "$TMP/small.mtx" --precision single --tolerance 1e-8
expect_err "below what float iterates reach"
expect_rc 2 pr "$TMP/small.mtx" --precision single --data-driven
expect_err "topology-driven"
expect_rc 2 pr "$TMP/small.mtx" --precision half
expect_err "expected single or double"
expect_rc 2 bfs "$TMP/small.mtx" --precision single
expect_rc 0 bc "$TMP/small.mtx" --validate --all
expect_rc 0 bc "$TMP/small.mtx" --validate --sources 2,4,6

# Generated graphs, written and read back.
expect_rc 0 gen rmat --scale 9 --edge-factor 8 --seed 7 --output "$TMP/rmat.mtx"
validate_all "$TMP/rmat.mtx"
expect_rc 0 gen kronecker --scale 8 --edge-factor 4 --weights int --directed --output "$TMP/kron.mgb"
validate_all "$TMP/kron.mgb"
expect_rc 0 gen uniform --scale 8 --edge-factor 4 --weights float --output "$TMP/uni.mtx"
validate_all "$TMP/uni.mtx"
expect_rc 0 gen grid --width 20 --height 15 --weights int --output "$TMP/grid.mtx"
validate_all "$TMP/grid.mtx"
expect_rc 0 gen geometric --scale 8 --seed 3 --output "$TMP/geo.mgb"
validate_all "$TMP/geo.mgb"

# The real SNAP samples.
validate_all "$SAMPLES/roadNet-CA-sample.txt"
validate_all "$SAMPLES/web-Google-sample.txt"
validate_all "$SAMPLES/web-Google-sample.txt" --undirected

# --json: one object on stdout with the documented keys, for every algorithm.
for algo in bfs sssp cc pr bc; do
    expect_rc 0 "$algo" "$TMP/small.mtx" --json --validate --runs 2
    python3 - "$algo" "$TMP/out" <<'EOF'
import json, sys
algo, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
keys = ["algorithm", "file", "vertices", "edges", "directed", "weights", "index_base", "load_s",
        "preprocess_s", "warmup_s", "run_s", "run_min_s", "run_max_s", "runs", "traversed_edges",
        "mteps", "validated", "backend", "threads", "mode"]
missing = [k for k in keys if k not in d]
assert not missing, f"{algo}: missing keys {missing}"
assert d["algorithm"] == algo and d["vertices"] == 6 and d["edges"] == 14, d
assert d["validated"] is True and d["runs"] == 2 and d["index_base"] == 1, d
assert d["run_min_s"] <= d["run_s"] <= d["run_max_s"], d
if algo == "pr":
    assert isinstance(d["iterations"], int) and d["iterations"] > 0, d
    assert d["traversed_edges"] == d["edges"] * d["iterations"], d
if algo == "cc":
    assert d["traversed_edges"] == d["edges"], d
if algo in ("bfs", "sssp", "bc"):
    # connected graph: every vertex is reached, so every stored edge is traversed
    assert d["traversed_edges"] == d["edges"], d
    assert d["source"] == 1, d
EOF
done
expect_rc 0 cc "$TMP/small.mtx" --json
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["validated"] is None, d' <"$TMP/out"
# Text mode without --validate says so.
expect_rc 0 cc "$TMP/small.mtx"
expect_out_line '^validation: skipped$'

# --trace: one stderr line per advance of the last timed run, stdout still one JSON object; a BFS
# from vertex 1 of the connected small graph has as many steps as levels plus the empty last one.
expect_rc 0 bfs "$TMP/small.mtx" --trace --json --runs 2
python3 -c 'import json,sys; json.load(sys.stdin)' <"$TMP/out" || fail "--trace spoiled the JSON"
[ "$(grep -c '^trace: step mode' "$TMP/err")" = 1 ] || fail "--trace header: $(cat "$TMP/err")"
grep -qE '^trace: 1 (sparse|pull) 1 [0-9]+ [0-9]+ [0-9]+ [0-9.]+ - - -$' "$TMP/err" ||
    fail "--trace has no first step line: $(cat "$TMP/err")"
steps=$(grep -cE '^trace: [0-9]+ ' "$TMP/err")
[ "$steps" -ge 2 ] || fail "--trace printed $steps steps"
expect_rc 0 pr "$TMP/small.mtx" --trace --mode dense
grep -qE '^trace: 1 pull ' "$TMP/err" || fail "--mode dense on the CPU should pull: $(cat "$TMP/err")"

echo "cli_algos: ok"
