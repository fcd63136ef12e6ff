#!/usr/bin/env python3
"""fake_gunrock.py ALGO [gr_ALGO's options] — a CPU stand-in for the Gunrock 2.x drivers of
../shared/peers/gunrock (build/bin/gr_{bfs,sssp,pr,bc}), for bench_suite_gunrock.sh on machines
without a GPU. It takes the drivers' options (-m G.mtx -s SRC0 -n RUNS -o OUT --unit_weights --tol
--max_iter), reads the .mtx as their loader does (symmetric: both directions), computes what the
bundle's README says each Gunrock algorithm computes (BFS depths, SSSP distances, PageRank with the
dangling rank spread each iteration and a fixed iteration count, 0.5 * the Brandes dependency of
one source; a BC source deeper than 997 levels is SKIPPED, exit 3), and writes the drivers' RESULT
line and their 1-based '<id> <value>' file ('inf' unreached). FAKE_GUNROCK_WRONG=ALGO adds 1 to
vertex 1's value of that algorithm (Gunrock getting one vertex wrong)."""
import argparse
import heapq
import os
import sys
from collections import deque

algo = sys.argv[1]
ap = argparse.ArgumentParser()
ap.add_argument("-m", required=True)
ap.add_argument("-s", type=int, default=0)
ap.add_argument("-n", type=int, default=10)
ap.add_argument("-o")
ap.add_argument("--unit_weights", action="store_true")
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--max_iter", type=int, default=0)
a = ap.parse_args(sys.argv[2:])

with open(a.m) as f:
    header = f.readline().split()
    lines = [l for l in f if not l.startswith("%")]
n, _, _ = (int(x) for x in lines[0].split())
symmetric = header[4] == "symmetric"
adj = [[] for _ in range(n)]
for l in lines[1:]:
    f = l.split()
    u, v, w = int(f[0]) - 1, int(f[1]) - 1, (float(f[2]) if len(f) > 2 else 1.0)
    w = 1.0 if a.unit_weights else w
    adj[u].append((v, w))
    if symmetric and u != v:
        adj[v].append((u, w))
nnz = sum(len(x) for x in adj)

INF = float("inf")
extra = ""
if algo in ("bfs", "bc"):
    depth, order, sigma = [INF] * n, [], [0.0] * n
    depth[a.s], sigma[a.s] = 0, 1.0
    q = deque([a.s])
    while q:
        u = q.popleft()
        order.append(u)
        for v, _ in adj[u]:
            if depth[v] == INF:
                depth[v] = depth[u] + 1
                q.append(v)
            if depth[v] == depth[u] + 1:
                sigma[v] += sigma[u]
    values = depth
    if algo == "bc":
        ecc = max(d for d in depth if d != INF)
        if ecc > 997:
            print(f"RESULT algo=bc graph={a.m} n={n} src0={a.s} "
                  f"SKIPPED=source_depth_{ecc}_exceeds_gunrock_bc_1000_frontier_buffers")
            sys.exit(3)
        delta = [0.0] * n
        for u in reversed(order):
            for v, _ in adj[u]:
                if depth[v] == depth[u] + 1:
                    delta[u] += sigma[u] / sigma[v] * (1 + delta[v])
        values = [0.5 * d for d in delta]
        values[a.s] = 0.0
elif algo == "sssp":
    values = [INF] * n
    values[a.s] = 0.0
    heap = [(0.0, a.s)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > values[u]:
            continue
        for v, w in adj[u]:
            if d + w < values[v]:
                values[v] = d + w
                heapq.heappush(heap, (d + w, v))
else:  # pr: push along out-edges, weights w_uv / W_u, dangling rank spread, max_iter iterations
    alpha, p = 0.85, [1.0 / n] * n
    out_w = [sum(w for _, w in adj[u]) for u in range(n)]
    for _ in range(a.max_iter):
        dangling = sum(p[u] for u in range(n) if out_w[u] == 0)
        q = [(1 - alpha + alpha * dangling) / n] * n
        for u in range(n):
            for v, w in adj[u]:
                q[v] += alpha * p[u] * w / out_w[u]
        p = q
    values = p
    extra = f" iterations={a.max_iter}"

if os.environ.get("FAKE_GUNROCK_WRONG") == algo:
    values[0] += 1
print(f"RESULT algo={algo} graph={a.m} n={n} nnz={nnz} directed={int(not symmetric)} src0={a.s} "
      f"runs={a.n} median_ms=1.5000 min_ms=1.2500 mean_ms=1.6000 max_ms=2.0000 "
      f"gunrock_reported_ms=1.0000 gunrock_reported_min_ms=0.9000 load_s=0.01{extra}")
if a.o:
    with open(a.o, "w") as f:
        for v, x in enumerate(values):
            f.write(f"{v + 1} {'inf' if x == INF else format(x, '.9g')}\n")
