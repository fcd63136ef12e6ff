#!/usr/bin/env bash
# backend-rule.sh — the measurements behind `--backend auto`: for each graph (R-MAT at growing
# scales and a road-like grid, written as .mgb), each algorithm runs once end to end as a user runs
# it — `mgraph ALGO FILE.mgb --backend cpu|gpu --runs 1 --json`, a fresh process each — and the
# table gives the end-to-end seconds of each backend: load + preprocess + (GPU: device context,
# upload and device build) + the first run (which includes anything built lazily), from the JSON,
# next to the process's wall time, and what --backend auto chose and took. Where the GPU's wall time
# is less, auto should pick it. Each case runs REPEAT times (default 3), the backends interleaved so
# each meets the page cache alike; the table gives medians.
#
# Usage: bash tools/backend-rule.sh BUILD_DIR [SCALES] [OUTDIR]   (SCALES default "12 14 16 18 20 22")
# Env:   REPEAT (3), GRID (the grid's side, 1024; 0 for none), ALGOS (default "bfs sssp cc pr bc";
#        also tc, lcc, cdlp), TIMEOUT (seconds a process may run, default 600)
set -euo pipefail
build=${1:?usage: backend-rule.sh BUILD_DIR [SCALES] [OUTDIR]}
scales=${2:-12 14 16 18 20 22}
out=${3:-$build/backend-rule}
mgraph=$build/mgraph
mkdir -p "$out"
graphs=()
for s in $scales; do
    f=$out/rmat$s.mgb
    [ -f "$f" ] || "$mgraph" gen rmat --scale "$s" --weights int --output "$f" >/dev/null
    graphs+=("$f")
done
side=${GRID:-1024}
repeat=${REPEAT:-3}
if [ "$side" -gt 0 ]; then
    f=$out/grid$side.mgb
    [ -f "$f" ] || "$mgraph" gen grid --width "$side" --height "$side" --weights int --output "$f" >/dev/null
    graphs+=("$f")
fi

csv=$out/backend-rule.csv
echo "graph,edges,algo,backend,e2e_s,wall_s,load_s,preprocess_s,gpu_s,first_run_s,run_s,ran" >"$csv"
for f in "${graphs[@]}"; do
    for algo in ${ALGOS:-bfs sssp cc pr bc}; do
      for _ in $(seq "$repeat"); do
        for backend in cpu gpu auto; do
            t0=$EPOCHREALTIME
            if ! json=$(timeout "${TIMEOUT:-600}" "$mgraph" "$algo" "$f" --backend "$backend" --runs 1 --json 2>"$out/err"); then
                echo "$(basename "$f") $algo $backend: FAILED $(cat "$out/err")" >&2
                continue
            fi
            wall=$(python3 -c "print($EPOCHREALTIME - $t0)")
            python3 - "$json" "$wall" "$(basename "$f" .mgb)" "$algo" "$backend" >>"$csv" <<'PY'
import json, sys
j = json.loads(sys.argv[1]); wall = float(sys.argv[2])
gpu = j.get("gpu_preprocess_s", 0) + j.get("gpu_upload_s", 0) + j.get("dense_preprocess_s", 0)
e2e = j["load_s"] + j["preprocess_s"] + gpu + j["warmup_s"]
print(f'{sys.argv[3]},{j["edges"]},{sys.argv[4]},{sys.argv[5]},{e2e:.6f},{wall:.6f},'
      f'{j["load_s"]:.6f},{j["preprocess_s"]:.6f},{gpu:.6f},{j["warmup_s"]:.6f},{j["run_s"]:.6f},'
      f'{j["backend"]}')
PY
        done
      done
    done
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["graph"], r["edges"], r["algo"]), {}).setdefault(r["backend"], []).append(r)
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print(f'medians of {max(len(v) for d in by.values() for v in d.values())} runs')
print(f'{"graph":10} {"edges":>11} {"algo":5} {"cpu e2e":>9} {"gpu e2e":>9} {"cpu wall":>9} '
      f'{"gpu wall":>9} {"gpu/cpu":>8} {"auto wall":>9} {"auto ran":>8}')
for (g, e, a), d in by.items():
    if "cpu" not in d or "gpu" not in d: continue
    c, G = d["cpu"], d["gpu"]
    auto = d.get("auto", [])
    ran = "/".join(sorted({r["ran"] for r in auto})) or "-"
    print(f'{g:10} {int(e):11d} {a:5} {med(c, "e2e_s"):9.4f} {med(G, "e2e_s"):9.4f} '
          f'{med(c, "wall_s"):9.4f} {med(G, "wall_s"):9.4f} {med(G, "wall_s") / med(c, "wall_s"):8.2f} '
          f'{med(auto, "wall_s") if auto else float("nan"):9.4f} {ran:>8}')
PY
