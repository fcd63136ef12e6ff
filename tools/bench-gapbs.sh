#!/usr/bin/env bash
# bench-gapbs.sh — the CPU engine beside GAPBS, built from ../shared/peers/gapbs, in one run on this
# machine (issue 17's CPU table): BFS, SSSP, CC, PageRank and BC on a Kronecker graph and a
# road-like grid, the same files (.mtx, integer weights 1..255), the same sources, the same thread
# count. GAPBS: `-n RUNS`, the median of its "Trial Time" lines (its "Average Time" counts its slow
# first trials: on Kronecker SSSP 0.50 s against a median of 0.24); mgraph: one warm-up,
# `--runs RUNS`, the median, each run validated against the serial reference. Prints a markdown table (GAPBS s / mgraph s: > 1 means
# mgraph is faster). PageRank: GAPBS iterates in float, and so does mgraph's "pr" row
# (--precision single); "pr-double" is mgraph's default, double, beside the same GAPBS figure.
# Run it on an otherwise idle machine.
#
#   tools/bench-gapbs.sh [--build DIR] [--gapbs DIR] [--scale S] [--grid W] [--runs N]
#                        [--threads T] [--workdir DIR]
# Defaults: build, ../shared/peers/gapbs, Kronecker scale 20 (edge factor 16), grid 1024x1024,
# 5 runs, 2 threads, $TMPDIR/mgraph-gapbs. Without the GAPBS sources it says so and exits 77.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=build gapbs=$here/../shared/peers/gapbs scale=20 grid=1024 runs=5 threads=2
workdir=${TMPDIR:-/tmp}/mgraph-gapbs
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --gapbs) gapbs=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --grid) grid=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "bench-gapbs.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
mgraph=$build/mgraph
[ -x "$mgraph" ] || { echo "bench-gapbs.sh: $mgraph not found; build first" >&2; exit 1; }
[ -f "$gapbs/Makefile" ] || { echo "bench-gapbs.sh: no GAPBS sources at $gapbs (optional)"; exit 77; }
mkdir -p "$workdir"
# GAPBS is built in a copy: the shared folder is read-only for benchmarks
if [ ! -x "$workdir/gapbs/bc" ]; then
    rm -rf "$workdir/gapbs"
    cp -r "$gapbs" "$workdir/gapbs"
    make -C "$workdir/gapbs" bfs sssp cc pr bc -j"$threads" >"$workdir/gapbs-build.log" 2>&1 ||
        { tail -20 "$workdir/gapbs-build.log"; exit 1; }
fi

kron=$workdir/kron$scale.mtx grid_file=$workdir/grid$grid.mtx
[ -f "$kron" ] || "$mgraph" gen kronecker --scale "$scale" --edge-factor 16 --weights int --seed 1 \
    --output "$kron" >&2
[ -f "$grid_file" ] || "$mgraph" gen grid --width "$grid" --height "$grid" --weights int \
    --output "$grid_file" >&2

rows=$workdir/rows.txt
: >"$rows"
for file in "$kron" "$grid_file"; do
    # the source, in the file's 1-based numbering: the grid's centre; for the Kronecker graph the
    # row of the first entry (a vertex with edges)
    if [ "$file" = "$grid_file" ]; then
        src=$(( grid / 2 * grid + grid / 2 + 1 ))
    else
        src=$(grep -v '^%' "$file" | sed -n 2p | awk '{print $1}')
    fi
    gsrc=$((src - 1)) # GAPBS numbers from 0
    # pr: GAPBS iterates in float, so mgraph's row does too (--precision single); pr-double is
    # mgraph's default, double iterates, beside the same GAPBS run
    for algo in bfs sssp cc pr pr-double bc; do
        case $algo in
            bfs|sssp|bc) gargs=(-r "$gsrc") margs=(--source "$src") ;;
            pr) gargs=(-i 20 -t 1e-4) margs=(--max-iter 20 --tolerance 1e-4 --precision single) ;;
            pr-double) gargs=(-i 20 -t 1e-4) margs=(--max-iter 20 --tolerance 1e-4 --precision double) ;;
            cc) gargs=() margs=() ;;
        esac
        galgo=${algo%-double}
        g=$(OMP_NUM_THREADS=$threads "$workdir/gapbs/$galgo" -f "$file" -s -n "$runs" "${gargs[@]}" 2>&1 |
            awk '/Trial Time:/ {print $3}' | sort -g |
            awk '{ t[NR] = $1 } END { if (NR) print NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }')
        m=$("$mgraph" "$galgo" "$file" "${margs[@]}" --backend cpu --threads "$threads" --runs "$runs" \
            --validate --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["run_s"], d["validated"])')
        echo "$(basename "$file" .mtx) $algo ${g:-?} $m" >>"$rows"
    done
done
echo "mgraph $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), GAPBS from $gapbs," \
     "$threads threads, $runs runs, $(nproc) cores"
echo
echo "| graph | algorithm | GAPBS s (median) | mgraph s (median) | validated | GAPBS / mgraph |"
echo "|---|---|---:|---:|---|---:|"
awk '{ r = ($3 != "?" && $4 > 0) ? sprintf("%.2f", $3 / $4) : "?"
       printf "| %s | %s | %s | %.5f | %s | %s |\n", $1, $2, $3, $4, $5, r }' "$rows"
