#!/usr/bin/env bash
# bench-cpu.sh — the CPU engine against the GAPBS reference figures for this machine class.
#
# Generates the Graph500 Kronecker graph of GAPBS's `-g SCALE -k 16` kind (symmetrised; integer
# weights 1..255 for SSSP), runs every algorithm with `--runs N` (one warm-up, median reported) and
# `--validate`, and prints a markdown table: our median, the GAPBS figure from issue 2 (measured by
# GAPBS on a 2-core machine of this kind), and the ratio. Then the same algorithms on the small real
# graphs (the bundled roadNet-CA sample and datasets/samples/web-Google-sample.txt).
#
#   tools/bench-cpu.sh [--build DIR] [--scale S] [--runs N] [--threads T] [--workdir DIR]
set -euo pipefail

build=build scale=20 runs=5 threads=2 workdir=${TMPDIR:-/tmp}/mgraph-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench-cpu.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
mgraph=$build/mgraph
[ -x "$mgraph" ] || { echo "bench-cpu.sh: $mgraph not found; build first" >&2; exit 1; }
mkdir -p "$workdir"
graph=$workdir/kron$scale.mgb
if [ ! -f "$graph" ]; then
    "$mgraph" gen kronecker --scale "$scale" --edge-factor 16 --weights int --seed 1 \
        --output "$graph" >&2
fi

results=$workdir/results.jsonl
: > "$results"
run() { # name, then mgraph arguments
    local name=$1; shift
    "$mgraph" "$@" "$graph" --runs "$runs" --threads "$threads" --validate --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); d["label"]=sys.argv[1]; print(json.dumps(d))' "$name" >> "$results"
}
run bfs bfs
run sssp sssp
run cc cc
run "pr (tol 1e-4)" pr --tolerance 1e-4
run "pr data-driven" pr --tolerance 1e-4 --data-driven
run "bc (1 source)" bc

python3 - "$results" "$scale" "$threads" "$runs" <<'PY'
import json, sys
path, scale, threads, runs = sys.argv[1:]
gapbs = {"bfs": (0.02, 0.02), "sssp": (0.21, 0.34), "cc": (0.04, 0.04),
         "pr (tol 1e-4)": (0.20, 0.25), "pr data-driven": (0.20, 0.25), "bc (1 source)": (0.44, 0.56)}
rows = [json.loads(l) for l in open(path)]
print(f"Kronecker scale {scale}, edge factor 16, {rows[0]['vertices']} vertices, "
      f"{rows[0]['edges']} stored edges; {threads} threads; median of {runs} runs")
print()
print("| algorithm | run s | MTEPS | validated | GAPBS s | ratio to GAPBS (mid) | within 2x |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    lo, hi = gapbs[r["label"]]
    mid = (lo + hi) / 2
    ratio = r["run_s"] / mid
    g = f"{lo:.2f}" if lo == hi else f"{lo:.2f}-{hi:.2f}"
    print(f"| {r['label']} | {r['run_s']:.3f} | {r['mteps']:.0f} | {r['validated']} | {g} | "
          f"{ratio:.2f} | {'yes' if r['run_s'] <= 2 * hi else 'no'} |")
PY

# --- the small real graphs
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
real=$workdir/real.jsonl
: > "$real"
for file in "$here/datasets/samples/roadNet-CA-sample.txt" "$here/datasets/samples/web-Google-sample.txt"; do
    [ -f "$file" ] || { echo "bench-cpu.sh: $file missing, skipped" >&2; continue; }
    for algo in bfs sssp cc pr bc; do
        "$mgraph" "$algo" "$file" --runs "$runs" --threads "$threads" --validate --json |
            python3 -c 'import json,sys; d=json.load(sys.stdin); d["label"]=sys.argv[1]; print(json.dumps(d))' "$algo" >> "$real"
    done
done
python3 - "$real" <<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print()
print("| graph | vertices | edges | algorithm | run s | MTEPS | validated |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {os.path.basename(r['file'])} | {r['vertices']} | {r['edges']} | {r['label']} | "
          f"{r['run_s']:.6f} | {r['mteps']:.1f} | {r['validated']} |")
PY
