#!/usr/bin/env bash
# cli_bench.sh — `mgraph bench`: every algorithm x engine from one load, each case validated (text
# and JSON); GPU engines reported 'skipped' (exit 0) where no GPU is usable; bad lists, options the
# command does not take, a missing FILE or file exit non-zero naming what, with no result lines.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
DATA="$(cd "$(dirname "${BASH_SOURCE[0]}")/../data" && pwd)"

# Text: the graph, once with weights (sssp asked for), and one 'ok' line per algorithm on the CPU.
expect_rc 0 bench "$DATA/small_int.mtx" --engines cpu --runs 3
expect_out_line '^graph \(with weights, for sssp\): .*weights int32'
expect_out_line '^graph: .*weights none'
for a in bfs sssp cc pr bc; do expect_out_line "^$a +cpu +ok +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$"; done
[ "$(grep -c ' ok ' "$TMP/out")" = 5 ] || fail "expected 5 ok lines: $(cat "$TMP/out")"

# JSON: one object per case, in --algos order then --engines order; a GPU engine without a usable
# GPU is 'skipped' with the reason, and does not fail the run.
expect_rc 0 bench "$DATA/small_int.mtx" --json --algos cc,bfs --engines cpu,dense --trace --source 2
python3 - "$TMP/out" "$TMP/err" "$("$MGRAPH" --version)" <<'PYEOF' || fail "bench --json is not what it should be: $(cat "$TMP/out")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["algorithm"], r["bench_engine"]) for r in recs] == [
    ("cc", "cpu"), ("cc", "dense"), ("bfs", "cpu"), ("bfs", "dense")], recs
for r in recs:
    if r["bench_engine"] == "cpu":
        assert r["status"] == "ok" and r["validated"] is True and r["runs"] == 1, r
        assert r["backend"] == "cpu" and r["weights"] == "none", r
    else:
        assert r["status"] in ("ok", "skipped"), r
        assert r["status"] == "ok" or "GPU backend is unavailable" in r["error"], r
bfs = [r for r in recs if r["algorithm"] == "bfs" and r["status"] == "ok"]
assert all(r["source"] == 2 for r in bfs), bfs
# --trace: each case's steps after its own 'trace: case' line
err = open(sys.argv[2]).read().splitlines()
cases = [l.split()[2:] for l in err if l.startswith("trace: case ")]
assert ["bfs", "cpu"] in cases and ["cc", "cpu"] in cases, cases
PYEOF

# A failing case does not stop the others and makes the exit status 1: a source out of range is a
# usage error for every engine alike (exit 2, naming the source and the file's range).
expect_rc 2 bench "$DATA/small_int.mtx" --engines cpu --algos bfs --source 99
expect_err '--source 99 is out of range'
expect_err '1..6'

# Bad usage: exit 2, naming the option and the value; nothing on stdout.
expect_rc 2 bench "$DATA/small_int.mtx" --algos bfs,frob
expect_err "'frob' is not one of bfs, sssp, cc, pr, bc"
[ ! -s "$TMP/out" ] || fail "a usage error printed results: $(cat "$TMP/out")"
expect_rc 2 bench "$DATA/small_int.mtx" --engines gpu
expect_err "'gpu' is not one of cpu, auto, hybrid, sparse, pull, dense, baseline"
expect_rc 2 bench "$DATA/small_int.mtx" --algos ""
expect_err "--algos"
expect_rc 2 bench "$DATA/small_int.mtx" --backend gpu
expect_err "--backend"
expect_rc 2 bench "$DATA/small_int.mtx" --output x.txt
expect_err "--output"
expect_rc 2 bench
expect_err "missing the graph FILE"
expect_rc 2 bench "$DATA/small_int.mtx" --runs 0
expect_err "--runs"

# A missing or malformed file: exit 1 naming it, no result lines.
expect_rc 1 bench "$TMP/nope.mtx"
expect_err "nope.mtx"
[ ! -s "$TMP/out" ] || fail "a failed load printed results: $(cat "$TMP/out")"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n' >"$TMP/bad.mtx"
expect_rc 1 bench "$TMP/bad.mtx"
expect_err "bad.mtx"
[ ! -s "$TMP/out" ] || fail "a failed load printed results: $(cat "$TMP/out")"

# help
expect_rc 0 help bench
expect_out_line '^Usage: mgraph bench FILE'
expect_out_line 'serial reference, which is computed once per algorithm'
echo "cli_bench: ok"
