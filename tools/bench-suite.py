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
GPU engines are recorded as skipped where the CLI reports no usable GPU. Each graph also runs
randomly renumbered (`mgraph convert --renumber random`, the thesis' Table 3.6) unless --variants
says otherwise. Outputs in --out: results.csv, results.json (one record per run, with the GPU
preprocessing as a multiple of one run and device memory as a multiple of plain CSR: Tables 3.7,
3.8), speedup.md (geometric means of hybrid over each other engine per algorithm and variant, the
shape of Tables 3.5/3.6), mteps.svg (MTEPS per engine per graph, one panel per algorithm), the
per-step trace of every run (`--trace`, taken in the last timed run: mode, frontier, edges, time;
Table 3.2's shape) in trace.csv with BFS's plotted in trace.svg, and oracle.md: hybrid's summed step times against the
per-step minimum of the sparse and dense engines (the thesis' "best possible time") and of sparse,
pull and dense, where all took the same steps.
Graphs are generated once into --data (.mgb).

  python3 tools/bench-suite.py [--mgraph PATH] [--out DIR] [--data DIR] [--suite full|quick]
                               [--graphs a,b] [--algos bfs,sssp,cc,pr,bc] [--engines ...] [--runs R]
                               [--variants original,renumbered] [--datasets DIR]
                               [--max-seconds S] [--resume]
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
present); quick is the generated families at scale 10 (for machines without a GPU, and the tests).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

ENGINES = ["cpu", "hybrid", "auto", "sparse", "pull", "dense", "baseline"]
ALGOS = ["bfs", "sssp", "cc", "pr", "bc"]


def suite(kind):
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
SOURCES = {f"grid{g}x{g}": ["--source", str(g // 2 * g + g // 2)] for g in (32, 2048)}


def die(msg, code=2):
    print(f"bench-suite: {msg}", file=sys.stderr)
    sys.exit(code)


def pick(arg, known, what):
    if arg is None:
        return list(known)
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
              "dense_bytes", "csr_bytes", "device_over_csr", "error", "command"]
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


def measure_graph(args, graphs, name, variant, algos, engines, deadline):
    """Generates (or renumbers) the graph if its file is missing, then runs `mgraph bench` on it."""
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
    timeout = None if deadline is None else deadline - time.monotonic()
    if timeout is not None and timeout <= 0:
        return not_run(algos, engines, "--max-seconds reached while preparing this graph")
    return run_graph(args.mgraph, path, algos, engines, args.runs, SOURCES.get(name, []), timeout)


def main():
    ap = argparse.ArgumentParser(description="Run algorithms x graphs x engines through mgraph.")
    ap.add_argument("--mgraph", default="build/mgraph", help="the mgraph executable (build/mgraph)")
    ap.add_argument("--out", default="bench-data/suite", help="where results go (bench-data/suite)")
    ap.add_argument("--data", default="bench-data/graphs", help="generated graphs (bench-data/graphs)")
    ap.add_argument("--suite", default="full", choices=["full", "quick"])
    ap.add_argument("--graphs", help="comma-separated subset of the suite's graph names")
    ap.add_argument("--algos", help="comma-separated subset of " + ",".join(ALGOS))
    ap.add_argument("--engines", help="comma-separated subset of " + ",".join(ENGINES))
    ap.add_argument("--runs", type=int, default=5, help="timed runs per case after a warm-up (5)")
    ap.add_argument("--datasets", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "shared", "datasets"),
                    help="real graphs (*.txt, SNAP) added to the full suite (../shared/datasets)")
    ap.add_argument("--variants", default="original,renumbered",
                    help="vertex orders to run: original, renumbered (both)")
    ap.add_argument("--max-seconds", type=float,
                    help="stop measuring after this many seconds (a device call's limit): the case "
                         "running then and every later one are recorded 'not-run' (no limit)")
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
    engines = pick(args.engines, ENGINES, "engine")
    variants = pick(args.variants, ["original", "renumbered"], "variant")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.data, exist_ok=True)

    records, traces = [], {}
    if args.resume:
        records, traces = previous(args.out)
    for name, variant in [(n, v) for n in names for v in variants]:
        label = name if variant == "original" else name + "-renum"
        run_algos, run_engines = missing_cases(records, label, algos, engines)
        if not run_algos:
            print(f"{label:18} kept from {args.out} (--resume)", flush=True)
            continue
        if deadline is not None and time.monotonic() >= deadline:
            recs = not_run(run_algos, run_engines, "--max-seconds reached before this graph")
        else:
            recs = measure_graph(args, graphs, name, variant, run_algos, run_engines, deadline)
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
            if rec["status"] == "ok":
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
