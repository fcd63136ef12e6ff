#!/usr/bin/env python3
"""bench-suite.py — algorithms x graphs x engines through the `mgraph` CLI, in one command.

Each graph (and variant) is one `mgraph bench FILE --json --trace --runs R --algos ... --engines ...`
process: the graph is loaded once, each case warms up once, times R runs (median reported) and is
checked against the serial reference (computed once per algorithm), so every row is validated.
Engines (see `mgraph help bench`):
  cpu       the CPU engine (OpenMP, all cores)
  hybrid    GPU, MultiGraph's hybrid: each step in the mode its samples find cheapest
  auto      GPU, the engines' own rules (mgraph's default)
  sparse    GPU, the sparse-frontier engine (MultiGraphS, push) only
  pull      GPU, pull into the destinations only (bottom-up)
  dense     GPU, the dense-frontier engine (MultiGraphD) only
  baseline  GPU, the Gunrock-style load-balanced CSR engine
  gunrock   real Gunrock 2.x (only when --engines names it): the drivers of the bundle --gunrock
            (../shared/peers/gunrock; its README says what each computes), built with its build.sh
            into --gunrock-build (--data/gunrock-build) where the bundle has none built, run on the
            .mtx that `mgraph convert` writes of the same graph (--data/GRAPH.mtx), from the same
            source (0-based), --runs timed calls; run_s is the median wall time of its run() calls,
            gunrock_reported_ms what run() itself returns (enact() only). Each output is compared
            vertex by vertex with our CPU engine's run of the same case, which our serial checker
            validated (`mgraph ALGO --validate --output`; agrees() gives the tolerances): 'wrong'
            cases (its BC on larger graphs) are timed, counted (wrong_vertices) and marked, and do
            not fail the suite. PR: unit weights and as many iterations as ours (--tol 0
            --max_iter K). No CC in Gunrock 2.x. Skipped, with the reason, without a bundle, a GPU
            (nvidia-smi), nvcc or cmake, or where the build fails; its BC from a source deeper than
            997 levels is skipped by the driver.
GPU engines are recorded as skipped where the CLI reports no usable GPU. Each graph also runs
randomly renumbered (`mgraph convert --renumber random`, the thesis' Table 3.6) unless --variants
says otherwise. Outputs in --out: results.csv, results.json (one record per run, with the GPU
preprocessing as a multiple of one run and device memory as a multiple of plain CSR: Tables 3.7,
3.8), speedup.md (geometric means of hybrid over each other engine per algorithm and variant, the
shape of Tables 3.5/3.6; with gunrock, its time over hybrid's and auto's per graph and their
geometric means per algorithm), mteps.svg (MTEPS per engine per graph, one panel per algorithm), the
per-step trace of every run (`--trace`, taken in the last timed run: mode, frontier, edges, time;
Table 3.2's shape) in trace.csv with BFS's plotted in trace.svg, and oracle.md: hybrid's summed step times against the
per-step minimum of the sparse and dense engines (the thesis' "best possible time") and of sparse,
pull and dense, where all took the same steps.
Graphs are generated once into --data (.mgb).

  python3 tools/bench-suite.py [--mgraph PATH] [--out DIR] [--data DIR] [--suite full|quick|peer]
                               [--graphs a,b] [--algos bfs,sssp,cc,pr,bc] [--engines ...] [--runs R]
                               [--variants original,renumbered] [--datasets DIR]
                               [--max-seconds S] [--resume] [--gunrock DIR] [--gunrock-build DIR]
--max-seconds stops measuring at S seconds (a device call's limit): the bench running then is
stopped, keeping the cases it finished; those left are recorded 'not-run'. Every output file is
rewritten after each graph, so a run cut short keeps what it measured. --resume keeps the cases
(graph, variant, algorithm, engine) that --out's results.json already holds, failed ones included,
and measures only those missing or 'not-run' (one `mgraph bench` per graph over the algorithms and
engines that lack a case): the same command, repeated, finishes a suite longer than one device
call. preprocess.md holds Tables 3.7/3.8's shape: the GPU preprocessing (from the edge list
on the device: device form, and the dense blocks where an engine built them) per graph and
algorithm, as a multiple of one hybrid run, the upload beside it, and device memory as x CSR.
The full suite is issue 5's: R-MAT 22 and 24, Kronecker 22, uniform 22, geometric 2^22, a 2048^2
grid, and the real graphs (*.txt) in --datasets (default ../shared/datasets beside the clone, where
present); quick is the generated families at scale 10 (for machines without a GPU, and the tests);
peer is issue 17's side-by-side with real Gunrock: R-MAT 20 and a 1024^2 grid.
"""
import argparse
import csv
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

ENGINES = ["cpu", "hybrid", "auto", "sparse", "pull", "dense", "baseline"]
PEER_ENGINES = ["gunrock"]  # run only where --engines names them
ALGOS = ["bfs", "sssp", "cc", "pr", "bc"]


def suite(kind):
    if kind == "peer":  # issue 17's side-by-side with real Gunrock: its table's graphs
        graphs = {"rmat20": ["rmat", "--scale", "20", "--edge-factor", "16"],
                  "grid1024x1024": ["grid", "--width", "1024", "--height", "1024"]}
        for spec in graphs.values():
            spec += ["--weights", "int"]
        return graphs
    s, g = (22, 2048) if kind == "full" else (10, 32)
    graphs = {
        f"rmat{s}": ["rmat", "--scale", str(s), "--edge-factor", "16"],
        f"kron{s}": ["kronecker", "--scale", str(s), "--edge-factor", "16"],
        f"uniform{s}": ["uniform", "--scale", str(s), "--edge-factor", "16"],
        f"geometric{s}": ["geometric", "--scale", str(s)],
        f"grid{g}x{g}": ["grid", "--width", str(g), "--height", str(g)],
    }
    if kind == "full":
        graphs["rmat24"] = ["rmat", "--scale", "24", "--edge-factor", "16"]
    for spec in graphs.values():
        spec += ["--weights", "int"]  # SSSP needs weights; the other algorithms ignore them
    return graphs


# Sources (BFS, SSSP, BC) other than mgraph's default, the first vertex with an edge: a grid's
# centre, as from its corner one BFS level's path counts span more than a double holds (BC reports
# a range error). The renumbered grid gets the same id: a vertex somewhere else in it.
SOURCES = {f"grid{g}x{g}": ["--source", str(g // 2 * g + g // 2)] for g in (32, 1024, 2048)}


def die(msg, code=2):
    print(f"bench-suite: {msg}", file=sys.stderr)
    sys.exit(code)


def pick(arg, known, what, default=None):
    if arg is None:
        return list(default or known)
    chosen = [x for x in arg.split(",") if x]
    bad = [x for x in chosen if x not in known]
    if bad or not chosen:
        die(f"unknown {what} '{','.join(bad) or arg}': expected some of {', '.join(known)}")
    return chosen


def text_of(out):
    return out.decode(errors="replace") if isinstance(out, bytes) else (out or "")


def not_run(algos, engines, why):
    return [{"algorithm": a, "engine": e, "status": "not-run", "error": why, "trace": []}
            for a in algos for e in engines]


def run_graph(mgraph, path, algos, engines, runs, extra, timeout):
    """Every algorithm x engine on one graph in one `mgraph bench` process (one load, one serial
    reference per algorithm); returns its records, each with its trace (the last timed run's steps).
    A process stopped at `timeout` seconds keeps the cases it finished; the rest are 'not-run'."""
    cmd = [mgraph, "bench", path, "--json", "--trace", "--runs", str(runs), "--algos", ",".join(algos),
           "--engines", ",".join(engines)] + extra
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        stdout, stderr, returncode = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        stdout, stderr, returncode = text_of(e.stdout), text_of(e.stderr), None
    traces = parse_traces(stderr)
    records = []
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        data = json.loads(line)
        data["gpu_engine"] = data.pop("engine", None)  # the CLI's name; ours labels the row
        rec = {"command": " ".join(cmd), **data}
        rec["engine"] = rec.pop("bench_engine")
        rec["trace"] = traces.get((rec["algorithm"], rec["engine"]), [])
        err = rec.get("error", "")
        if rec["status"] == "invalid":
            rec["status"], rec["error"] = "failed", "validation failed"
        elif rec["status"] == "failed" and "more than double can hold" in err:
            rec["status"] = "range"  # mg_bc's MG_RANGE_ERROR: path counts beyond double
        records.append(rec)
    if returncode is None:
        done = {(r["algorithm"], r["engine"]) for r in records}
        records += [r for r in not_run(algos, engines, f"stopped by --max-seconds after {timeout:.0f} s")
                    if (r["algorithm"], r["engine"]) not in done]
    elif returncode not in (0, 1) or not records:
        err = (stderr.strip().splitlines() or ["(no message)"])[-1]
        die(f"{' '.join(cmd)} failed (exit {returncode}): {err}", 1)
    return records


def derived(rec):
    """Table 3.7/3.8 figures from the CLI's JSON: GPU preprocessing (device form + dense blocks) as
    a multiple of one run, and the device structures' memory as a multiple of plain CSR."""
    if rec["status"] != "ok" or not rec.get("csr_bytes"):
        return
    pre = rec.get("gpu_preprocess_s", 0) + rec.get("dense_preprocess_s", 0)
    rec["preprocess_over_run"] = pre / rec["run_s"] if rec["run_s"] > 0 else None
    rec["device_over_csr"] = (rec.get("device_bytes", 0) + rec.get("dense_bytes", 0)) / rec["csr_bytes"]


def parse_traces(stderr):
    """--trace's step lines, per case ('trace: case ALGO ENGINE' starts one): one row per advance."""
    traces, rows = {}, None
    for line in stderr.splitlines():
        f = line.split()
        if len(f) == 4 and f[:2] == ["trace:", "case"]:
            rows = traces.setdefault((f[2], f[3]), [])
        elif len(f) == 11 and f[0] == "trace:" and f[1].isdigit() and rows is not None:
            rows.append({"step": int(f[1]), "mode": f[2], "frontier_vertices": int(f[3]),
                         "frontier_edges": int(f[4]), "edges_scanned": int(f[5]),
                         "vertices_out": int(f[6]), "ms": float(f[7]), "est_sparse_ms": f[8],
                         "est_pull_ms": f[9], "est_dense_ms": f[10]})
    return traces


def write_trace_svg(path, traces):
    """Per graph and engine, frontier vertices per BFS level (log scale), the dot coloured by mode."""
    mode_color = {"sparse": "#4477aa", "pull": "#ee6677", "dense": "#228833"}
    ph, pw, left, top = 110, 420, 60, 30
    keys = sorted(traces)
    height = top + len(keys) * (ph + 40) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + pw + 120}" height="{height}" '
           f'font-family="sans-serif" font-size="10">',
           f'<text x="{left}" y="16" font-size="12">BFS frontier vertices per level (log scale); '
           f'colour: push, pull, dense</text>']
    for i, (m, c) in enumerate(mode_color.items()):
        out.append(f'<circle cx="{left + pw + 20}" cy="{10 + 12 * i}" r="4" fill="{c}"/>'
                   f'<text x="{left + pw + 28}" y="{14 + 12 * i}">{m}</text>')
    for k, key in enumerate(keys):
        rows = traces[key]
        y0 = top + k * (ph + 40) + 20
        out.append(f'<text x="4" y="{y0 - 4}" font-size="11">{key[0]} / {key[2]}</text>')
        out.append(f'<rect x="{left}" y="{y0}" width="{pw}" height="{ph}" fill="none" stroke="#ccc"/>')
        top_v = max([r["frontier_vertices"] for r in rows] + [1])
        span = max(math.log10(top_v), 1.0)
        for j, r in enumerate(rows):
            x = left + (j + 0.5) * pw / max(len(rows), 1)
            v = r["frontier_vertices"]
            y = y0 + ph - (math.log10(v) / span * ph if v > 0 else 0)
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{mode_color.get(r["mode"], "#999")}">'
                       f'<title>level {r["step"]}: {r["mode"]}, {v} vertices, {r["frontier_edges"]} edges, '
                       f'{r["ms"]:.3f} ms</title></circle>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_oracle(path, traces):
    """hybrid against the per-step best of the forced modes, for runs whose step sequences match."""
    lines = ["| graph | algorithm | hybrid ms | oracle sparse/dense ms | hybrid / oracle | "
             "oracle sparse/pull/dense ms | hybrid / oracle3 | sparse ms | pull ms | dense ms | "
             "hybrid / min(sparse, dense) | steps |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for g, a in sorted({(g, a) for g, a, _ in traces}):
        hy, sp, pl, dn = (traces.get((g, a, e)) for e in ("hybrid", "sparse", "pull", "dense"))
        if not hy or not sp or not dn:
            continue
        runs = [hy, sp, dn] + ([pl] if pl else [])
        t_hy, t_sp, t_dn = (sum(r["ms"] for r in rows) for rows in (hy, sp, dn))
        tp = f"{sum(r['ms'] for r in pl):.3f}" if pl else "n/a"
        best = min(t_sp, t_dn)
        rb = f"{t_hy / best:.3f}" if best > 0 else "n/a"
        if len({len(r) for r in runs}) != 1:
            # each mode took its own path (label propagation converges differently): no per-step
            # oracle, only the totals
            lines.append(f"| {g} | {a} | {t_hy:.3f} | n/a | steps differ ({', '.join(str(len(r)) for r in runs)}) "
                         f"| n/a | n/a | {t_sp:.3f} | {tp} | {t_dn:.3f} | {rb} | {len(hy)} |")
            continue
        oracle = sum(min(s["ms"], d["ms"]) for s, d in zip(sp, dn))
        ratio = f"{t_hy / oracle:.3f}" if oracle > 0 else "n/a"
        if pl:
            oracle3 = sum(min(s["ms"], p["ms"], d["ms"]) for s, p, d in zip(sp, pl, dn))
            o3, r3 = f"{oracle3:.3f}", f"{t_hy / oracle3:.3f}" if oracle3 > 0 else "n/a"
        else:
            o3 = r3 = "n/a"
        lines.append(f"| {g} | {a} | {t_hy:.3f} | {oracle:.3f} | {ratio} | {o3} | {r3} | {t_sp:.3f} | "
                     f"{tp} | {t_dn:.3f} | {rb} | {len(hy)} |")
    with open(path, "w") as f:
        f.write("Summed advance times (sampling included) of one traced run each; oracle = per-step "
                "minimum of the sparse (--mode sparse) and dense (--mode dense) engines, oracle3 the "
                "same with pull (--mode pull) as well. Issue 5's goals: hybrid / oracle <= 1.10, and "
                "hybrid / min(sparse, dense) <= 1.05.\n\n")
        f.write("\n".join(lines) + "\n")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def write_speedups(path, records, engines, algos):
    ok = {(r["algorithm"], r["graph"], r["engine"]): r["run_s"] for r in records if r["status"] == "ok"}
    lines = []
    for variant in sorted({r["variant"] for r in records}):
        graphs = sorted({r["graph"] for r in records if r["variant"] == variant})
        lines += [f"\n{variant} vertex order:\n",
                  "| algorithm | " + " | ".join(f"hybrid over {e}" for e in engines if e != "hybrid") + " |",
                  "|---|" + "---|" * (len(engines) - (1 if "hybrid" in engines else 0))]
        lines += speedup_rows(ok, graphs, engines, algos)
    with open(path, "w") as f:
        f.write("Geometric mean over the graphs of (engine's time / hybrid's time); > 1: hybrid is faster.\n")
        f.write("\n".join(lines) + "\n")
        if any(r["engine"] == "gunrock" for r in records):
            f.write(gunrock_table(records))


def gunrock_table(records):
    """Gunrock's time over mgraph's hybrid and auto per algorithm and graph, and their geometric
    means per algorithm; a case whose output Gunrock got wrong is timed, marked and counted."""
    t = {(r["variant"], r["algorithm"], r["graph"], r["engine"]): r for r in records
         if r["status"] in ("ok", "wrong") and r.get("run_s")}
    lines = ["\nReal Gunrock 2.x: its median run() wall time / mgraph's median run time (same graph, "
             "source and runs); > 1: mgraph is faster.\n",
             "| variant | algorithm | graph | gunrock ms | hybrid ms | auto ms | gunrock / hybrid | "
             "gunrock / auto | Gunrock's output |", "|---|---|---|---|---|---|---|---|---|"]
    means = []
    for v, a in sorted({k[:2] for k in t if k[3] == "gunrock"}, key=lambda k: (k[0], ALGOS.index(k[1]))):
        ratios = {"hybrid": [], "auto": []}
        wrong = 0
        for g in sorted({k[2] for k in t if k[:2] == (v, a) and k[3] == "gunrock"}):
            gr = t[(v, a, g, "gunrock")]
            ms, over = [], []
            for e in ("hybrid", "auto"):
                ours = t.get((v, a, g, e))
                if ours is not None and ours["status"] == "ok" and ours["run_s"] > 0:
                    ratios[e].append(gr["run_s"] / ours["run_s"])
                    ms.append(f"{ours['run_s'] * 1e3:.3f}")
                    over.append(f"{ratios[e][-1]:.2f}")
                else:
                    ms.append("n/a")
                    over.append("n/a")
            wrong += gr["status"] == "wrong"
            verdict = ("validated" if gr["status"] == "ok"
                       else f"**wrong** on {gr['wrong_vertices']} of {gr['vertices']} vertices")
            lines.append(f"| {v} | {a} | {g} | {gr['run_s'] * 1e3:.3f} | {ms[0]} | {ms[1]} | {over[0]} | "
                         f"{over[1]} | {verdict} |")
        means.append(f"| {v} | {a} | " + " | ".join(
            f"{geomean(ratios[e]):.2f} ({len(ratios[e])} graphs)" if ratios[e] else "n/a"
            for e in ("hybrid", "auto")) + f" | {wrong} |")
    lines += ["\nGeometric means over the graphs (those where Gunrock's output is wrong included):\n",
              "| variant | algorithm | gunrock / hybrid | gunrock / auto | graphs Gunrock got wrong |",
              "|---|---|---|---|---|"] + means
    return "\n".join(lines) + "\n"


def speedup_rows(ok, graphs, engines, algos):
    lines = []
    for a in algos:
        cells = []
        for e in engines:
            if e == "hybrid":
                continue
            ratios = [ok[(a, g, e)] / ok[(a, g, "hybrid")] for g in graphs
                      if (a, g, e) in ok and (a, g, "hybrid") in ok and ok[(a, g, "hybrid")] > 0]
            cells.append(f"{geomean(ratios):.2f} ({len(ratios)} graphs)" if ratios else "n/a")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return lines


def write_svg(path, records, engines, algos):
    """Grouped bars of MTEPS (log scale), one panel per algorithm, one group per graph."""
    graphs = sorted({r["graph"] for r in records})
    colors = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"]
    val = {(r["algorithm"], r["graph"], r["engine"]): r.get("mteps", 0) for r in records if r["status"] == "ok"}
    positive = [v for v in val.values() if v > 0]
    lo = math.floor(math.log10(min(positive))) if positive else 0
    hi = math.ceil(math.log10(max(positive))) if positive else 1
    hi = max(hi, lo + 1)
    bar, gap, ph, left, top = 10, 14, 160, 60, 30
    gw = bar * len(engines) + gap
    width = left + gw * max(len(graphs), 1) + 20
    height = top + len(algos) * (ph + 60) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="10">',
           f'<text x="{left}" y="16" font-size="12">MTEPS per engine (log scale); missing bar: '
           f'skipped, failed or not run</text>']
    for i, e in enumerate(engines):
        out.append(f'<rect x="{width - 90}" y="{6 + 12 * i}" width="8" height="8" fill="{colors[i % 6]}"/>'
                   f'<text x="{width - 78}" y="{14 + 12 * i}">{e}</text>')
    for k, a in enumerate(algos):
        y0 = top + k * (ph + 60) + 20
        out.append(f'<text x="4" y="{y0 - 4}" font-size="12">{a}</text>')
        for d in range(lo, hi + 1):
            y = y0 + ph - (d - lo) / (hi - lo) * ph
            out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                       f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">1e{d}</text>')
        for j, g in enumerate(graphs):
            x0 = left + j * gw
            for i, e in enumerate(engines):
                v = val.get((a, g, e), 0)
                if v > 0:
                    h = max(1.0, (math.log10(v) - lo) / (hi - lo) * ph)
                    out.append(f'<rect x="{x0 + i * bar}" y="{y0 + ph - h:.1f}" width="{bar - 1}" '
                               f'height="{h:.1f}" fill="{colors[i % 6]}"><title>{a} {g} {e}: '
                               f'{v:.1f} MTEPS</title></rect>')
            out.append(f'<text x="{x0}" y="{y0 + ph + 12}">{g}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_preprocess(path, records):
    """Tables 3.7 / 3.8: the hybrid's record of each graph and algorithm (its dense blocks are built
    when it chose the dense engine), preprocessing in ms and over one run, memory over CSR."""
    lines = ["| graph | algorithm | device form ms | dense blocks ms | preprocessing ms | hybrid run ms "
             "| preprocessing / run | upload ms (apart) | device memory x CSR |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if r["engine"] != "hybrid" or r["status"] != "ok" or "gpu_preprocess_s" not in r:
            continue
        pre = r["gpu_preprocess_s"] + r.get("dense_preprocess_s", 0)
        lines.append(f"| {r['graph']} | {r['algorithm']} | {r['gpu_preprocess_s'] * 1e3:.2f} | "
                     f"{r.get('dense_preprocess_s', 0) * 1e3:.2f} | {pre * 1e3:.2f} | {r['run_s'] * 1e3:.3f} | "
                     f"{r['preprocess_over_run']:.2f} | {r.get('gpu_upload_s', 0) * 1e3:.2f} | "
                     f"{r['device_over_csr']:.2f} |")
    with open(path, "w") as f:
        f.write("GPU preprocessing from the edge list on the device (CUDA events; the upload is timed "
                "apart), per graph and algorithm, from the hybrid engine's run.\n\n")
        f.write("\n".join(lines) + "\n")


def write_outputs(out, records, traces, engines, algos):
    """Every output file from the records so far (rewritten after each graph, so a run cut short
    keeps what it measured)."""
    fields = ["graph", "variant", "algorithm", "engine", "status", "run_s", "run_min_s", "run_max_s",
              "mteps", "traversed_edges", "vertices", "edges", "validated", "preprocess_s",
              "gpu_preprocess_s", "gpu_upload_s", "dense_preprocess_s", "preprocess_over_run", "device_bytes",
              "dense_bytes", "csr_bytes", "device_over_csr", "gunrock_reported_ms", "wrong_vertices", "error",
              "command"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(records)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(records, f, indent=1)
    write_speedups(os.path.join(out, "speedup.md"), records, engines, algos)
    write_preprocess(os.path.join(out, "preprocess.md"), records)
    write_svg(os.path.join(out, "mteps.svg"), records, engines, algos)
    if traces:
        with open(os.path.join(out, "trace.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["graph", "algorithm", "engine", "step", "mode", "frontier_vertices",
                        "frontier_edges", "edges_scanned", "vertices_out", "ms", "est_sparse_ms",
                        "est_pull_ms", "est_dense_ms"])
            for (g, a, e), rows in sorted(traces.items()):
                for r in rows:
                    w.writerow([g, a, e, r["step"], r["mode"], r["frontier_vertices"], r["frontier_edges"],
                                r["edges_scanned"], r["vertices_out"], r["ms"], r["est_sparse_ms"],
                                r["est_pull_ms"], r["est_dense_ms"]])
        write_trace_svg(os.path.join(out, "trace.svg"),
                        {k: v for k, v in traces.items() if k[1] == "bfs"})
        write_oracle(os.path.join(out, "oracle.md"), traces)


def previous(out):
    """--resume: the records (all but the 'not-run' ones) and traces --out holds."""
    traces = {}
    try:
        with open(os.path.join(out, "results.json")) as f:
            records = json.load(f)
        if os.path.exists(os.path.join(out, "trace.csv")):
            with open(os.path.join(out, "trace.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    row = {k: int(r[k]) for k in ("step", "frontier_vertices", "frontier_edges",
                                                  "edges_scanned", "vertices_out")}
                    row.update(mode=r["mode"], ms=float(r["ms"]), est_sparse_ms=r["est_sparse_ms"],
                               est_pull_ms=r["est_pull_ms"], est_dense_ms=r["est_dense_ms"])
                    traces.setdefault((r["graph"], r["algorithm"], r["engine"]), []).append(row)
        records = [r for r in records if r["status"] != "not-run"]
    except FileNotFoundError:
        return [], {}
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"--resume: cannot read the results in {out}: {e}", 1)
    return records, traces


def missing_cases(records, label, algos, engines):
    """The algorithms and engines one `mgraph bench` must run to measure every case of label that
    records lack (their cross product: it may measure some cases again)."""
    have = {(r["algorithm"], r["engine"]) for r in records if r["graph"] == label}
    lack = [(a, e) for a in algos for e in engines if (a, e) not in have]
    return ([a for a in algos if any(x == a for x, _ in lack)],
            [e for e in engines if any(y == e for _, y in lack)])


def prepare_graph(args, graphs, name, variant):
    """The file of one graph and variant: generated (or renumbered) into --data where missing."""
    if isinstance(graphs[name], str):  # a real graph: read as it is
        base, make = graphs[name], []
    else:
        base = os.path.join(args.data, name + ".mgb")
        make = [[args.mgraph, "gen"] + graphs[name] + ["--output", base]]
    path = base
    if variant == "renumbered":
        path = os.path.join(args.data, name + "-renum.mgb")
        make.append([args.mgraph, "convert", base, path, "--renumber", "random", "--seed", "1"])
    for cmd in make:
        if not os.path.exists(cmd[-1] if cmd[1] == "gen" else path):
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                die(f"preparing {name} ({variant}) failed: {p.stderr.strip()}", 1)
    return path


def measure_graph(args, name, path, algos, engines, deadline):
    """`mgraph bench` on one prepared graph."""
    timeout = None if deadline is None else deadline - time.monotonic()
    if timeout is not None and timeout <= 0:
        return not_run(algos, engines, "--max-seconds reached while preparing this graph")
    return run_graph(args.mgraph, path, algos, engines, args.runs, SOURCES.get(name, []), timeout)


# Real Gunrock 2.x (../shared/peers/gunrock: its README says what each driver computes) as one more
# engine. It has no connected components. Each case: our CPU engine's run of the same algorithm on
# the same file and source, checked by our serial checker (`mgraph ALGO --validate --output`), then
# Gunrock's driver on the .mtx that `mgraph convert` wrote of that file, and its output compared
# vertex by vertex with ours (agrees() says how closely).
GUNROCK_ALGOS = ["bfs", "sssp", "pr", "bc"]
GUNROCK_PR_RTOL = 2e-2
GUNROCK_BC_RTOL = 1e-3


def agrees(algo, gunrock, ours):
    """One vertex's Gunrock value against ours. BFS depths and SSSP distances exactly ('inf' when
    unreached; Gunrock's fp32 sums of integer weights are exact below 2^24, other weights get fp32's
    1e-4). PR: both are the PageRank with dangling rank spread uniformly (damping 0.85, ranks sum to 1)
    after the same number of iterations, but ours iterates the leaking system and normalises at the
    end, Gunrock the spreading one, in fp32: they meet only in the limit. Ours stops within
    0.85 * 1e-4 / 0.15 (L1) of it, and its normalisation by a sum >= 0.15 moves a rank by up to
    ~4e-3 relative (1.6e-3 on R-MAT 10's isolated vertices), Gunrock's as much: relative 2e-2. BC:
    Gunrock writes 0.5 * delta_s(v) (fp32, fast-math), ours delta_s(v): relative 1e-3 of 2x its value."""
    if math.isnan(gunrock):
        return False
    if math.isinf(ours) or math.isinf(gunrock):
        return ours == gunrock
    if algo == "bfs" or (algo == "sssp" and ours == int(ours) and abs(ours) < 2 ** 24):
        return gunrock == ours
    if algo == "sssp":
        return abs(gunrock - ours) <= 1e-4 * abs(ours)
    if algo == "pr":
        return abs(gunrock - ours) <= GUNROCK_PR_RTOL * abs(ours)
    return abs(2 * gunrock - ours) <= GUNROCK_BC_RTOL * max(abs(ours), 1.0)


def vertex_values(path, n, first_id):
    """'<id> <value>' lines with ids first_id .. first_id + n - 1, each once, as a list of n floats
    ('inf' read as infinity); ValueError names the file and line of anything else."""
    values = [None] * n
    with open(path) as f:
        for k, line in enumerate(f, 1):
            fields = line.split()
            try:
                if len(fields) != 2:
                    raise ValueError("expected '<vertex id> <value>'")
                v = int(fields[0]) - first_id
                if not 0 <= v < n or values[v] is not None:
                    raise ValueError(f"vertex id {fields[0]} out of range or repeated")
                values[v] = float(fields[1])
            except ValueError as e:
                raise ValueError(f"{path}:{k}: {e}") from None
    missing = values.count(None)
    if missing:
        raise ValueError(f"{path}: {missing} of {n} vertices missing")
    return values


def compare_outputs(algo, gunrock_path, ours_path, n, index_base):
    """Gunrock's output (1-based Matrix Market ids) against ours (the file's numbering, index_base):
    (number of vertices that disagree, the first of them as 'vertex V: gunrock X, mgraph Y' in our
    numbering, or None)."""
    g = vertex_values(gunrock_path, n, 1)
    m = vertex_values(ours_path, n, index_base)
    wrong = [v for v in range(n) if not agrees(algo, g[v], m[v])]
    first = (f"vertex {wrong[0] + index_base}: gunrock {g[wrong[0]]:.9g}, mgraph {m[wrong[0]]:.9g}"
             if wrong else None)
    return len(wrong), first


def find_nvcc():
    """The CUDA compiler as the bundle's build.sh finds it: $CUDACXX where set, else the toolkit's."""
    if os.environ.get("CUDACXX"):
        candidates = [os.environ["CUDACXX"]]
    else:
        candidates = ["/usr/local/cuda/bin/nvcc", shutil.which("nvcc")]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def gunrock_drivers(args, algos, deadline):
    """The directory holding the gr_<algo> drivers the cases need (the bundle's own build/bin where
    built in place, else --gunrock-build/bin, built there by the bundle's build.sh where missing),
    or (status, why) for every Gunrock case when there is no bundle, GPU, nvcc or cmake."""
    need = [f"gr_{a}" for a in algos if a in GUNROCK_ALGOS]
    if not os.path.isfile(os.path.join(args.gunrock, "build.sh")):
        return None, ("skipped", f"no Gunrock bundle at {args.gunrock} (no build.sh)")
    try:
        gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        has_gpu = gpus.returncode == 0 and "GPU" in gpus.stdout
    except (OSError, subprocess.TimeoutExpired):
        has_gpu = False
    if not has_gpu:
        return None, ("skipped", "no GPU (nvidia-smi lists none)")
    built = lambda d: all(os.access(os.path.join(d, x), os.X_OK) for x in need)
    for d in (os.path.join(args.gunrock, "build", "bin"), os.path.join(args.gunrock_build, "bin")):
        if built(d):
            return d, None
    if find_nvcc() is None:
        return None, ("skipped", "no nvcc to build Gunrock (set CUDACXX)")
    if shutil.which("cmake") is None:
        return None, ("skipped", "no cmake to build Gunrock")
    os.makedirs(args.gunrock_build, exist_ok=True)
    log = os.path.join(args.gunrock_build, "build.log")
    env = dict(os.environ, BUILD_DIR=os.path.abspath(args.gunrock_build),
               JOBS=os.environ.get("JOBS", str(os.cpu_count() or 2)))
    timeout = None if deadline is None else deadline - time.monotonic()
    print(f"bench-suite: building Gunrock's drivers into {args.gunrock_build} (log {log})", flush=True)
    with open(log, "w") as f:
        # its own process group: a deadline stops cmake's compilers too, not only build.sh
        p = subprocess.Popen(["bash", os.path.join(args.gunrock, "build.sh")], stdout=f,
                             stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None, ("not-run", "stopped by --max-seconds while building Gunrock (--resume goes on)")
    d = os.path.join(args.gunrock_build, "bin")
    if p.returncode != 0 or not built(d):
        with open(log) as f:
            last = (f.read().strip().splitlines() or ["(no output)"])[-1]
        return None, ("skipped", f"Gunrock's build.sh failed (exit {p.returncode}): {last}; log {log}")
    return d, None


def driver_result(stdout):
    """The key=value pairs of a Gunrock driver's RESULT line ({} without one)."""
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    return {}


def gunrock_case(args, bindir, name, path, mtx, label, algo, deadline):
    """One Gunrock case: our validated CPU run (the reference, and the source and PR's iteration
    count Gunrock gets), Gunrock's driver on the .mtx, and the comparison of their outputs."""
    rec = {"algorithm": algo, "engine": "gunrock", "status": "failed", "trace": []}
    work = os.path.join(args.out, "gunrock")
    os.makedirs(work, exist_ok=True)
    stem = os.path.join(work, f"{label}-{algo}")
    ref_cmd = [args.mgraph, algo, path, "--backend", "cpu", "--validate", "--json",
               "--output", stem + ".mgraph.txt"] + (SOURCES.get(name, []) if algo != "pr" else [])
    try:
        p = subprocess.run(ref_cmd, capture_output=True, text=True,
                           timeout=None if deadline is None else max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return {**rec, "status": "not-run", "command": " ".join(ref_cmd),
                "error": "stopped by --max-seconds in our reference run"}
    try:
        ref = json.loads(p.stdout)
    except ValueError:
        ref = {}
    if p.returncode != 0 or ref.get("validated") is not True:
        err = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        return {**rec, "command": " ".join(ref_cmd), "error": f"our reference run failed: {err}"}
    n, base = ref["vertices"], ref["index_base"]
    cmd = [os.path.join(bindir, f"gr_{algo}"), "-m", mtx, "-n", str(args.runs),
           "-o", stem + ".gunrock.txt"]
    if algo != "pr":
        cmd += ["-s", str(ref["source"] - base)]
    else:  # ours is unweighted PageRank: Gunrock's with unit weights, as many iterations as ours
        cmd += ["--unit_weights", "--tol", "0", "--max_iter", str(ref["iterations"])]
    rec.update(command=" ".join(cmd), vertices=n, edges=ref["edges"], source=ref.get("source"),
               traversed_edges=ref["traversed_edges"], iterations=ref.get("iterations"))
    timeout = None if deadline is None else deadline - time.monotonic()
    try:
        if timeout is not None and timeout <= 0:
            raise subprocess.TimeoutExpired(cmd, 0)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**rec, "status": "not-run", "error": "stopped by --max-seconds"}
    with open(stem + ".log", "w") as f:
        f.write(p.stdout + p.stderr)
    res = driver_result(p.stdout)
    try:
        if "SKIPPED" in res:  # BC from a source deeper than its 1000 frontier buffers
            return {**rec, "status": "skipped", "error": f"Gunrock: {res['SKIPPED']}"}
        if p.returncode != 0 or "median_ms" not in res:
            err = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            return {**rec, "error": f"gr_{algo} failed (exit {p.returncode}): {err}"}
        if (int(res["n"]), int(res["nnz"]), res["directed"] == "1") != (n, ref["edges"], ref["directed"]):
            return {**rec, "error": f"Gunrock read {res['n']} vertices, {res['nnz']} edges, directed="
                                    f"{res['directed']} from {mtx}: not the graph we ran"}
        rec.update(run_s=float(res["median_ms"]) / 1e3, run_min_s=float(res["min_ms"]) / 1e3,
                   run_max_s=float(res["max_ms"]) / 1e3,
                   gunrock_reported_ms=float(res["gunrock_reported_ms"]))
        rec["mteps"] = rec["traversed_edges"] / rec["run_s"] / 1e6 if rec["run_s"] > 0 else 0.0
        wrong, first = compare_outputs(algo, stem + ".gunrock.txt", stem + ".mgraph.txt", n, base)
    except (KeyError, ValueError) as e:
        return {**rec, "error": f"gr_{algo}'s output unreadable: {e}"}
    finally:  # the vectors are as large as the graph; the log keeps the driver's lines
        for f in (stem + ".gunrock.txt", stem + ".mgraph.txt"):
            if os.path.exists(f):
                os.remove(f)
    rec.update(wrong_vertices=wrong, validated=wrong == 0, status="ok" if wrong == 0 else "wrong")
    if wrong:
        rec["error"] = f"Gunrock wrong on {wrong} of {n} vertices (first: {first})"
    return rec


def measure_gunrock(args, name, path, label, algos, drivers, deadline):
    """Gunrock's cases of one graph; drivers is gunrock_drivers' answer."""
    bindir, why = drivers
    mtx = os.path.join(args.data, label + ".mtx")
    if bindir is not None and not os.path.exists(mtx):
        p = subprocess.run([args.mgraph, "convert", path, mtx], capture_output=True, text=True)
        if p.returncode != 0:
            die(f"writing {mtx} for Gunrock failed: {p.stderr.strip()}", 1)
    recs = []
    for a in algos:
        rec = {"algorithm": a, "engine": "gunrock", "trace": []}
        if a not in GUNROCK_ALGOS:
            recs.append({**rec, "status": "skipped", "error": "Gunrock 2.x has no " + a})
        elif bindir is None:
            recs.append({**rec, "status": why[0], "error": why[1]})
        elif deadline is not None and time.monotonic() >= deadline:
            recs.append({**rec, "status": "not-run", "error": "--max-seconds reached before this case"})
        else:
            recs.append(gunrock_case(args, bindir, name, path, mtx, label, a, deadline))
    return recs


def main():
    ap = argparse.ArgumentParser(description="Run algorithms x graphs x engines through mgraph.")
    ap.add_argument("--mgraph", default="build/mgraph", help="the mgraph executable (build/mgraph)")
    ap.add_argument("--out", default="bench-data/suite", help="where results go (bench-data/suite)")
    ap.add_argument("--data", default="bench-data/graphs", help="generated graphs (bench-data/graphs)")
    ap.add_argument("--suite", default="full", choices=["full", "quick", "peer"])
    ap.add_argument("--graphs", help="comma-separated subset of the suite's graph names")
    ap.add_argument("--algos", help="comma-separated subset of " + ",".join(ALGOS))
    ap.add_argument("--engines", help="comma-separated subset of " + ",".join(ENGINES + PEER_ENGINES) +
                    " (all but gunrock)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per case after a warm-up (5)")
    ap.add_argument("--datasets", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "shared", "datasets"),
                    help="real graphs (*.txt, SNAP) added to the full suite (../shared/datasets)")
    ap.add_argument("--variants", default="original,renumbered",
                    help="vertex orders to run: original, renumbered (both)")
    ap.add_argument("--max-seconds", type=float,
                    help="stop measuring after this many seconds (a device call's limit): the case "
                         "running then and every later one are recorded 'not-run' (no limit)")
    ap.add_argument("--gunrock", default=os.path.normpath(os.path.join(
                        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers", "gunrock")),
                    help="the Gunrock 2.x bundle (../shared/peers/gunrock)")
    ap.add_argument("--gunrock-build", help="where Gunrock's drivers are built when the bundle has "
                                            "none built (--data/gunrock-build)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the cases --out's results.json holds, measure only the missing ones")
    args = ap.parse_args()
    if not 1 <= args.runs <= 1000:
        die(f"--runs {args.runs} is out of range (1 to 1000)")
    if args.max_seconds is not None and not args.max_seconds > 0:
        die(f"--max-seconds {args.max_seconds} must be > 0")
    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    if not (os.path.isfile(args.mgraph) and os.access(args.mgraph, os.X_OK)):
        die(f"--mgraph {args.mgraph}: not an executable file (build first: cmake --build build)")
    graphs = suite(args.suite)
    if args.suite == "full" and os.path.isdir(args.datasets):
        for f in sorted(os.listdir(args.datasets)):
            if f.endswith(".txt"):
                graphs[f[:-4]] = os.path.join(args.datasets, f)  # a file, not generator arguments
    names = pick(args.graphs, graphs, "graph")
    algos = pick(args.algos, ALGOS, "algorithm")
    engines = pick(args.engines, ENGINES + PEER_ENGINES, "engine", ENGINES)
    args.gunrock_build = args.gunrock_build or os.path.join(args.data, "gunrock-build")
    variants = pick(args.variants, ["original", "renumbered"], "variant")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.data, exist_ok=True)

    records, traces, drivers = [], {}, None
    if args.resume:
        records, traces = previous(args.out)
    for name, variant in [(n, v) for n in names for v in variants]:
        label = name if variant == "original" else name + "-renum"
        run_algos, run_engines = missing_cases(records, label, algos, engines)
        if not run_algos:
            print(f"{label:18} kept from {args.out} (--resume)", flush=True)
            continue
        ours = [e for e in run_engines if e not in PEER_ENGINES]
        have = {(r["algorithm"], r["engine"]) for r in records if r["graph"] == label}
        gunrock_algos = [a for a in algos if "gunrock" in engines and (a, "gunrock") not in have]
        if deadline is not None and time.monotonic() >= deadline:
            recs = not_run(run_algos, ours, "--max-seconds reached before this graph") + \
                not_run(gunrock_algos, ["gunrock"], "--max-seconds reached before this graph")
        else:
            path = prepare_graph(args, graphs, name, variant)
            recs = measure_graph(args, name, path, run_algos, ours, deadline) if ours else []
            if gunrock_algos:
                drivers = drivers or gunrock_drivers(args, algos, deadline)
                recs += measure_gunrock(args, name, path, label, gunrock_algos, drivers, deadline)
                if drivers[1] is not None and drivers[1][0] == "not-run":
                    drivers = None  # a build the deadline stopped: --resume builds on
        # what this run measured replaces what --resume kept of the same cases
        fresh = {(r["algorithm"], r["engine"]) for r in recs if r["status"] != "not-run"}
        records = [r for r in records if r["graph"] != label or (r["algorithm"], r["engine"]) not in fresh]
        for a, e in fresh:
            traces.pop((label, a, e), None)
        for rec in recs:
            rec["graph"] = label
            rec["variant"] = variant
            derived(rec)
            trace = rec.pop("trace")
            records.append(rec)
            if rec["status"] == "ok" and trace:
                traces[(label, rec["algorithm"], rec["engine"])] = trace
            shown = (f"{rec['run_s']:.6f} s, {rec['mteps']:.1f} MTEPS" if rec["status"] == "ok"
                     else rec.get("error", ""))
            print(f"{label:18} {rec['algorithm']:5} {rec['engine']:9} {rec['status']:8} {shown}",
                  flush=True)
        write_outputs(args.out, records, traces, engines, algos)

    failed = [r for r in records if r["status"] == "failed"]
    print(f"bench-suite: {len(records)} runs, {len(failed)} failed; results in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
