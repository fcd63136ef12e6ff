#!/usr/bin/env bash
# bench_suite.sh — tools/bench-suite.py end to end: a quick suite (two graphs as generated and
# randomly renumbered, three algorithms, the CPU and the GPU's hybrid) writes one validated row
# per run to CSV and JSON, the speedup tables, the SVG and the BFS traces; GPU engines are 'skipped', not failed, where there is no GPU; bad flags exit 2 naming
# the flag, and nothing half-done is reported as a result.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

SUITE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/bench-suite.py"
suite() { # ARGS...: runs the harness, status in RC, output in $TMP/suite.log
    set +e
    python3 "$SUITE" --mgraph "$MGRAPH" "$@" >"$TMP/suite.log" 2>&1
    RC=$?
    set -e
}

suite --suite quick --graphs rmat10,grid32x32 --algos bfs,sssp,bc --engines cpu,hybrid --runs 1 \
    --out "$TMP/out" --data "$TMP/graphs"
[ "$RC" = 0 ] || fail "bench-suite exit $RC: $(cat "$TMP/suite.log")"
for f in results.csv results.json speedup.md preprocess.md mteps.svg; do
    [ -s "$TMP/out/$f" ] || fail "bench-suite wrote no $f"
done
python3 - "$TMP/out" <<'PYEOF' || fail "bench-suite's outputs are not what they should be"
import csv, json, sys, xml.dom.minidom
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/results.csv")))
recs = json.load(open(f"{out}/results.json"))
assert len(rows) == len(recs) == 2 * 2 * 3 * 2, (len(rows), len(recs))
for r in rows:
    if r["engine"] == "cpu":
        assert r["status"] == "ok" and r["validated"] == "True" and float(r["run_s"]) > 0, r
        assert float(r["mteps"]) > 0 and int(r["traversed_edges"]) > 0, r
    else:
        assert r["status"] in ("ok", "skipped"), r  # skipped only where no GPU is usable
        assert r["status"] == "ok" or "GPU backend is unavailable" in r["error"], r
assert {(r["graph"], r["variant"], r["algorithm"]) for r in rows} == {
    (g + s, v, a) for g in ("rmat10", "grid32x32") for s, v in (("", "original"), ("-renum", "renumbered"))
    for a in ("bfs", "sssp", "bc")}
# renumbering keeps the graph's size (its edges are checked in test_core and cli_tools)
sizes = {(r["graph"], r["vertices"], r["edges"]) for r in rows if r["engine"] == "cpu"}
assert {(g.replace("-renum", ""), n, m) for g, n, m in sizes} == {(g, n, m) for g, n, m in sizes if "-renum" not in g}
table = open(f"{out}/speedup.md").read()
assert "original vertex order" in table and "renumbered vertex order" in table, table
assert all(f"| {a} |" in table for a in ("bfs", "sssp", "bc")), table
xml.dom.minidom.parse(f"{out}/mteps.svg")
# BFS traces: one row per advance; from the suite's source for the 32 x 32 grid, its centre 528
# (row 16, column 16), 32 levels reach the far corner and one last advance finds nothing
trace = list(csv.DictReader(open(f"{out}/trace.csv")))
for g in ("rmat10", "grid32x32", "rmat10-renum", "grid32x32-renum"):
    steps = [int(r["step"]) for r in trace
             if r["graph"] == g and r["engine"] == "cpu" and r["algorithm"] == "bfs"]
    assert steps == list(range(1, len(steps) + 1)) and steps, (g, steps)
grid = [r for r in trace if r["graph"] == "grid32x32" and r["engine"] == "cpu" and r["algorithm"] == "bfs"]
assert len(grid) == 33 and grid[-1]["vertices_out"] == "0", len(grid)
assert all(r["source"] == 528 for r in recs if r["graph"] == "grid32x32" and r["algorithm"] in ("bfs", "sssp", "bc")
           and r["status"] == "ok"), recs
# (the hybrid's rows, where a GPU ran them, may also be dense steps and carry the samples' estimates)
cpu_trace = [r for r in trace if r["engine"] == "cpu"]
assert cpu_trace and all(r["mode"] in ("sparse", "pull") for r in cpu_trace), cpu_trace[:3]
assert all(r["mode"] in ("sparse", "pull", "dense") for r in trace), [r for r in trace if r["mode"] not in ("sparse", "pull", "dense")][:3]
# the CPU does not sample: no estimates
assert all(r[k] == "-" for r in cpu_trace for k in ("est_sparse_ms", "est_pull_ms", "est_dense_ms")), cpu_trace[:3]
xml.dom.minidom.parse(f"{out}/trace.svg")
PYEOF

# real graphs: every *.txt of --datasets joins the full suite, as read and renumbered
mkdir -p "$TMP/ds"
printf '# a 4-cycle with a tail\n0\t1\n1\t2\n2\t3\n3\t0\n3\t4\n' >"$TMP/ds/tiny.txt"
suite --suite full --datasets "$TMP/ds" --graphs tiny --algos bfs,cc --engines cpu --runs 1 \
    --out "$TMP/real" --data "$TMP/graphs"
[ "$RC" = 0 ] || fail "bench-suite on a real graph: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/real/results.csv" <<'PYEOF' || fail "the real graph's rows are wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted((r["graph"], r["algorithm"]) for r in rows) == [
    ("tiny", "bfs"), ("tiny", "cc"), ("tiny-renum", "bfs"), ("tiny-renum", "cc")], rows
assert all(r["status"] == "ok" and r["validated"] == "True" and r["vertices"] == "5" for r in rows), rows
PYEOF

# --max-seconds: the cases the limit stops are recorded 'not-run' (the files still written, exit 0);
# a 0.001-s limit passes before the first graph, so every row of both graphs is 'not-run'
suite --suite full --datasets "$TMP/ds" --graphs tiny --algos bfs,cc --engines cpu --runs 1 \
    --out "$TMP/cut" --data "$TMP/graphs" --max-seconds 0.001
[ "$RC" = 0 ] || fail "bench-suite --max-seconds: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/cut/results.csv" <<'PYEOF' || fail "--max-seconds rows are wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4 and all(r["status"] == "not-run" and "--max-seconds" in r["error"] for r in rows), rows
PYEOF
# a bench stopped mid-graph keeps the cases it printed (a stand-in mgraph that prints one case
# and hangs)
cat >"$TMP/hanging-mgraph" <<'SHEOF'
#!/bin/sh
echo '{"algorithm": "bfs", "bench_engine": "cpu", "status": "ok", "run_s": 0.5, "mteps": 1.0, "validated": true}'
exec sleep 60
SHEOF
chmod +x "$TMP/hanging-mgraph"
set +e
python3 "$SUITE" --mgraph "$TMP/hanging-mgraph" --suite full --datasets "$TMP/ds" --graphs tiny \
    --variants original --algos bfs,pr --engines cpu --runs 1 --out "$TMP/cut2" --data "$TMP/graphs" \
    --max-seconds 2 >"$TMP/suite.log" 2>&1
RC=$?
set -e
[ "$RC" = 0 ] || fail "bench-suite with a hanging bench: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/cut2/results.csv" <<'PYEOF' || fail "a stopped bench's rows are wrong"
import csv, sys
rows = {(r["algorithm"], r["status"]) for r in csv.DictReader(open(sys.argv[1]))}
assert rows == {("bfs", "ok"), ("pr", "not-run")}, rows
PYEOF
# --resume: of a graph left incomplete (pr 'not-run' above) only the missing case is measured (bfs
# keeps the stand-in's 0.5 s; pr's steps are in the trace: cc's CPU run, Afforest, has no advances
# to trace); a complete one is kept, its bench not run again (the hanging stand-in would leave
# 'not-run' rows if it were)
suite --suite full --datasets "$TMP/ds" --graphs tiny --variants original --algos bfs,pr \
    --engines cpu --runs 1 --out "$TMP/cut2" --data "$TMP/graphs" --resume
[ "$RC" = 0 ] || fail "bench-suite --resume: exit $RC: $(cat "$TMP/suite.log")"
set +e
python3 "$SUITE" --mgraph "$TMP/hanging-mgraph" --suite full --datasets "$TMP/ds" --graphs tiny \
    --variants original --algos bfs,pr --engines cpu --runs 1 --out "$TMP/cut2" --data "$TMP/graphs" \
    --max-seconds 2 --resume >"$TMP/suite.log" 2>&1
RC=$?
set -e
[ "$RC" = 0 ] && grep -q "tiny .*kept from" "$TMP/suite.log" || fail "--resume of a complete graph: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/cut2" <<'PYEOF' || fail "--resume's rows are wrong"
import csv, json, sys
rows = {(r["algorithm"], r["status"], r["validated"], r["run_s"]) for r in csv.DictReader(open(sys.argv[1] + "/results.csv"))}
assert len(rows) == 2 and ("bfs", "ok", "True", "0.5") in rows, rows
pr = [r for r in rows if r[0] == "pr"]
assert pr and pr[0][1:3] == ("ok", "True") and pr[0][3] != "0.5", rows
steps = {(r["algorithm"], r["engine"]) for r in csv.DictReader(open(sys.argv[1] + "/trace.csv"))}
assert steps == {("pr", "cpu")}, steps
PYEOF
echo '{ not json' >"$TMP/cut2/results.json"
suite --suite full --datasets "$TMP/ds" --graphs tiny --variants original --algos bfs --engines cpu \
    --runs 1 --out "$TMP/cut2" --data "$TMP/graphs" --resume
[ "$RC" = 1 ] && grep -q "resume: cannot read the results in" "$TMP/suite.log" || fail "--resume of a corrupt results.json: exit $RC: $(cat "$TMP/suite.log")"
suite --suite quick --graphs rmat10 --max-seconds 0 --out "$TMP/bad"
[ "$RC" = 2 ] && grep -q -- "--max-seconds 0.0 must be > 0" "$TMP/suite.log" || fail "--max-seconds 0: exit $RC: $(cat "$TMP/suite.log")"

# the oracle table (hybrid against the per-step best of the forced modes) from known traces: it
# needs the GPU engines, so its arithmetic is checked here on made-up steps
python3 - "$SUITE" "$TMP/oracle.md" <<'PYEOF' || fail "bench-suite's oracle table is wrong"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("suite", sys.argv[1])
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)
step = lambda ms: {"ms": ms}
traces = {("g", "bfs", "hybrid"): [step(1), step(1), step(1)],
          ("g", "bfs", "sparse"): [step(1), step(5), step(1)],
          ("g", "bfs", "dense"): [step(4), step(2), step(1)],
          ("h", "bfs", "hybrid"): [step(2), step(2)],
          ("h", "bfs", "sparse"): [step(1), step(8)],
          ("h", "bfs", "pull"): [step(3), step(1)],
          ("h", "bfs", "dense"): [step(4), step(2)],
          ("g", "pr", "hybrid"): [step(1)], ("g", "pr", "sparse"): [step(1), step(1)],
          ("g", "pr", "dense"): [step(1)]}
suite.write_oracle(sys.argv[2], traces)
text = open(sys.argv[2]).read()
assert "| g | bfs | 3.000 | 4.000 | 0.750 | n/a | n/a | 7.000 | n/a | 7.000 | 0.429 | 3 |" in text, text
assert "| h | bfs | 4.000 | 3.000 | 1.333 | 2.000 | 2.000 | 9.000 | 4.000 | 6.000 | 0.667 | 2 |" in text, text
assert "| g | pr | 1.000 | n/a | steps differ (1, 2, 1) | n/a | n/a | 2.000 | n/a | 1.000 | 1.000 | 1 |" in text, text
PYEOF

# bad flags: exit 2, the flag named, no results written
suite --engines warp --out "$TMP/bad"
[ "$RC" = 2 ] || fail "--engines warp: exit $RC"
grep -q "unknown engine 'warp'" "$TMP/suite.log" || fail "--engines warp: $(cat "$TMP/suite.log")"
[ ! -e "$TMP/bad/results.csv" ] || fail "--engines warp wrote results"
suite --variants shuffled
[ "$RC" = 2 ] || fail "--variants shuffled: exit $RC"
grep -q "unknown variant 'shuffled'" "$TMP/suite.log" || fail "--variants: $(cat "$TMP/suite.log")"
suite --runs 0
[ "$RC" = 2 ] || fail "--runs 0: exit $RC"
grep -q -- "--runs 0 is out of range" "$TMP/suite.log" || fail "--runs 0: $(cat "$TMP/suite.log")"
suite --mgraph "$TMP/nothing"
[ "$RC" = 2 ] || fail "--mgraph missing: exit $RC"
grep -q "not an executable file" "$TMP/suite.log" || fail "--mgraph missing: $(cat "$TMP/suite.log")"
echo "bench_suite: PASS"
