#!/usr/bin/env bash
# bench-chain.sh — the chain product's scaling (docs/CHAIN.md, docs/PERFORMANCE.md): a generated
# chain of N banded block matrices (block rows of up to 3 blocks, so products widen the band by 2
# blocks each and stay sparse), multiplied by `mpirun -np P mgraph chain` for P in the rank list,
# on each backend, --runs R, validated once; a markdown table (ranks, backend, median run, load,
# the slowest rank's communication share, each rank's share) on stdout and in OUT/chain.md, the
# JSON of every run in OUT/. The threads are split over the ranks (cores / P each).
#
#   tools/bench-chain.sh [--build DIR] [--out DIR] [--n N] [--side S] [--k K] [--ranks LIST]
#                        [--backends LIST] [--runs R] [--values uint64|float|double]
# Defaults: build, bench-data/chain, 32 matrices, side 16384, k 16, ranks 1,2,4, backends cpu,gpu
# (gpu where the build has it), 5 runs, uint64.
set -euo pipefail

build=build out=bench-data/chain n=32 side=16384 k=16 ranks=1,2,4 backends=cpu,gpu runs=5
values=uint64
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --side) side=$2; shift 2 ;;
    --k) k=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --values) values=$2; shift 2 ;;
    *) echo "bench-chain.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
mgraph=$build/mgraph
[ -x "$mgraph" ] || { echo "bench-chain.sh: no $mgraph (build first)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "bench-chain.sh: no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }
mkdir -p "$out"
dir=$out/chain-n$n-s$side-k$k
if [ ! -f "$dir/size" ]; then
    echo "== generating $dir" >&2
    python3 - "$dir" "$n" "$side" "$k" <<'PY'
import os, random, sys
d, n, side, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(d, exist_ok=True)
rnd = random.Random(1)
br = (side + k - 1) // k
open(os.path.join(d, "size"), "w").write("%d %d\n" % (n, k))
for m in range(1, n + 1):
    lines = []
    for i in range(br):
        for j in (i - 1, i, i + 1):
            if 0 <= j < br and rnd.random() < 0.9:
                vals = [str(rnd.getrandbits(64)) if i * k + t // k < side and j * k + t % k < side
                        else "0" for t in range(k * k)]
                lines.append("%d %d %s\n" % (i, j, " ".join(vals)))
    with open(os.path.join(d, "matrix%d" % m), "w") as f:
        f.write("%d %d %d\n" % (side, side, len(lines)))
        f.writelines(lines)
PY
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
table=$out/chain.md
{
    echo "chain: $n matrices, $side x $side, blocks of $k, $values values; $cores cores; $(date -u +%F)"
    echo "command: tools/bench-chain.sh --n $n --side $side --k $k --ranks $ranks --backends $backends --runs $runs --values $values"
    echo
    echo "| ranks | backend | run (s, median of $runs) | speed-up | load (s) | comm. share, slowest rank | per rank: comm. share |"
    echo "|---|---|---|---|---|---|---|"
} >"$table"
for backend in ${backends//,/ }; do
    base=
    for p in ${ranks//,/ }; do
        json=$out/chain-$backend-p$p.json
        validate=
        [ "$p" = "${ranks%%,*}" ] && validate=--validate
        if ! mpirun --oversubscribe -np "$p" "$mgraph" chain "$dir" -o "$out/c.bcsr" --backend "$backend" \
            --values "$values" --runs "$runs" --threads $((cores / p > 0 ? cores / p : 1)) --json \
            $validate >"$json"; then
            echo "| $p | $backend | failed (see stderr) | | | | |" >>"$table"
            continue
        fi
        python3 - "$json" "$p" "$backend" "${base:-}" >>"$table" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
base = float(sys.argv[4]) if sys.argv[4] else j["run_s"]
shares = [r["comm_share"] for r in j["per_rank"]]
slow = max(j["per_rank"], key=lambda r: r["local_s"] + r["tree_multiply_s"] + r["comm_s"])
print("| %s | %s | %.4f | %.2fx | %.3f | %.1f%% | %s |" % (
    sys.argv[2], sys.argv[3], j["run_s"], base / j["run_s"], j["load_s"],
    100 * slow["comm_share"], " ".join("%.0f%%" % (100 * s) for s in shares)))
PY
        [ -n "$base" ] || base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_s"])' "$json")
    done
done
cat "$table"
