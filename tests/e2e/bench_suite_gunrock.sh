#!/usr/bin/env bash
# bench_suite_gunrock.sh — tools/bench-suite.py's gunrock engine without a GPU: its cases are
# 'skipped' with the reason (no bundle, no GPU, no nvcc, a failed build) and the run exits 0, a build
# that --max-seconds stops is 'not-run' with its compilers stopped; the comparison of a
# Gunrock output file with ours finds the wrong vertices (fixtures in tests/data/gunrock); and the
# whole path (the .mtx written by `mgraph convert`, the source, the drivers' options, their RESULT
# line, the build into --gunrock-build, the speedup table) through fake_gunrock.py, a CPU model of
# the drivers, standing in for the built bundle, and a stand-in nvidia-smi that lists a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE="$HERE/../../tools/bench-suite.py"
suite() { # ARGS...: the harness on rmat10 and grid32x32, every algorithm, cpu and gunrock
    set +e
    python3 "$SUITE" --mgraph "$MGRAPH" --suite quick --graphs rmat10,grid32x32 --runs 2 \
        --engines cpu,gunrock --data "$TMP/graphs" "$@" >"$TMP/suite.log" 2>&1
    RC=$?
    set -e
}
# gunrock_rows OUT STATUS TEXT: every gunrock row of OUT/results.csv but cc's has STATUS and an
# error containing TEXT; cc's is skipped (Gunrock 2.x has none); every cpu row is validated
gunrock_rows() {
    python3 - "$@" <<'PYEOF' || fail "gunrock rows of $1 are not '$2' ($3): $(cat "$TMP/suite.log")"
import csv, sys
out, status, text = sys.argv[1:]
rows = list(csv.DictReader(open(f"{out}/results.csv")))
assert len(rows) == 2 * 2 * 5 * 2, len(rows)
for r in rows:
    if r["engine"] == "cpu":
        assert r["status"] == "ok" and r["validated"] == "True", r
    elif r["algorithm"] == "cc":
        assert r["status"] == "skipped" and r["error"] == "Gunrock 2.x has no cc", r
    else:
        assert r["status"] == status and text in r["error"], r
PYEOF
}

# no bundle, no GPU, no nvcc: skipped with the reason, exit 0
suite --out "$TMP/none" --gunrock "$TMP/no-such-bundle"
[ "$RC" = 0 ] || fail "no bundle: exit $RC: $(cat "$TMP/suite.log")"
gunrock_rows "$TMP/none" skipped "no Gunrock bundle at $TMP/no-such-bundle"
mkdir -p "$TMP/bundle" "$TMP/nogpu" "$TMP/gpu"
printf '#!/bin/sh\necho "build.sh ran" >&2\nexit 1\n' >"$TMP/bundle/build.sh"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' >"$TMP/nogpu/nvidia-smi"
printf '#!/bin/sh\necho "GPU 0: Stand-in (UUID: GPU-0)"\n' >"$TMP/gpu/nvidia-smi"
chmod +x "$TMP/nogpu/nvidia-smi" "$TMP/gpu/nvidia-smi"
PATH="$TMP/nogpu:$PATH" suite --out "$TMP/nogpu-out" --gunrock "$TMP/bundle"
[ "$RC" = 0 ] || fail "no GPU: exit $RC: $(cat "$TMP/suite.log")"
gunrock_rows "$TMP/nogpu-out" skipped "no GPU (nvidia-smi lists none)"
PATH="$TMP/gpu:$PATH" CUDACXX="$TMP/no-nvcc" suite --out "$TMP/nonvcc" --gunrock "$TMP/bundle"
[ "$RC" = 0 ] || fail "no nvcc: exit $RC: $(cat "$TMP/suite.log")"
gunrock_rows "$TMP/nonvcc" skipped "no nvcc to build Gunrock"
# a build that fails: skipped, its log named (the build goes to --gunrock-build, not the bundle)
printf '#!/bin/sh\nexit 0\n' >"$TMP/gpu/fake-nvcc"
chmod +x "$TMP/gpu/fake-nvcc"
PATH="$TMP/gpu:$PATH" CUDACXX="$TMP/gpu/fake-nvcc" suite --out "$TMP/badbuild" --gunrock "$TMP/bundle" \
    --gunrock-build "$TMP/grbuild"
[ "$RC" = 0 ] || fail "failed build: exit $RC: $(cat "$TMP/suite.log")"
gunrock_rows "$TMP/badbuild" skipped "Gunrock's build.sh failed (exit 1): build.sh ran; log $TMP/grbuild/build.log"
# a build the --max-seconds limit stops: 'not-run' (for --resume), and its compilers stopped with it
mkdir -p "$TMP/slowbundle"
printf '#!/bin/sh
sleep 60 &
echo $! >"$BUILD_DIR/child.pid"
wait
' >"$TMP/slowbundle/build.sh"
PATH="$TMP/gpu:$PATH" CUDACXX="$TMP/gpu/fake-nvcc" suite --out "$TMP/slow" --gunrock "$TMP/slowbundle" \
    --gunrock-build "$TMP/slowbuild" --variants original --max-seconds 3
[ "$RC" = 0 ] || fail "a stopped build: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/slow/results.csv" <<'PYEOF' || fail "a stopped build's rows are wrong: $(cat "$TMP/suite.log")"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["engine"] == "gunrock" and r["algorithm"] != "cc"]
assert len(rows) == 8 and all(r["status"] == "not-run" for r in rows), rows
assert {r["error"] for r in rows if r["graph"] == "rmat10"} == {
    "stopped by --max-seconds while building Gunrock (--resume goes on)"}, rows
PYEOF
sleep 0.5
! ps -o stat= -p "$(cat "$TMP/slowbuild/child.pid")" | grep -qv Z || fail "the stopped build's child still runs"

# the comparison, on the fixtures: ids 1-based against 0-based, 'inf', NaN, BC's halving, tolerances
python3 - "$SUITE" "$HERE/../data/gunrock" <<'PYEOF' || fail "the comparison of Gunrock's outputs is wrong"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("suite", sys.argv[1])
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)
d = sys.argv[2]
cmp = lambda algo, n: suite.compare_outputs(algo, f"{d}/{algo}.gunrock.txt", f"{d}/{algo}.mgraph.txt", n, 0)
assert cmp("bfs", 5) == (1, "vertex 3: gunrock 2, mgraph 3"), cmp("bfs", 5)
assert cmp("bc", 5) == (2, "vertex 0: gunrock nan, mgraph 0"), cmp("bc", 5)
assert cmp("pr", 4) == (1, "vertex 2: gunrock 0.25, mgraph 0.2"), cmp("pr", 4)
# the same vertices in 1-based numbering (a .mtx graph's) name the vertex as that file does
assert suite.compare_outputs("bfs", f"{d}/bfs.gunrock.txt", f"{d}/bfs.gunrock.txt", 5, 1) == (0, None)
for path, n, why in ((f"{d}/bfs.repeated.txt", 5, "bfs.repeated.txt:2: vertex id 1 out of range or repeated"),
                     (f"{d}/bfs.gunrock.txt", 6, "bfs.gunrock.txt: 1 of 6 vertices missing"),
                     (f"{d}/bfs.gunrock.txt", 4, "bfs.gunrock.txt:5: vertex id 5 out of range")):
    try:
        suite.vertex_values(path, n, 1)
        raise AssertionError(f"{path} read as {n} vertices")
    except ValueError as e:
        assert why in str(e), e
PYEOF

# the whole path with the stand-in drivers, built by a stand-in build.sh into --gunrock-build
mkdir -p "$TMP/fakebundle"
cat >"$TMP/fakebundle/build.sh" <<SHEOF
#!/bin/sh
mkdir -p "\$BUILD_DIR/bin"
for a in bfs sssp pr bc; do
    printf '#!/bin/sh\nexec python3 "$HERE/fake_gunrock.py" %s "\$@"\n' \$a >"\$BUILD_DIR/bin/gr_\$a"
    chmod +x "\$BUILD_DIR/bin/gr_\$a"
done
SHEOF
PATH="$TMP/gpu:$PATH" CUDACXX="$TMP/gpu/fake-nvcc" suite --out "$TMP/fake" --gunrock "$TMP/fakebundle" \
    --gunrock-build "$TMP/fakebuild"
[ "$RC" = 0 ] || fail "stand-in drivers: exit $RC: $(cat "$TMP/suite.log")"
[ -x "$TMP/fakebuild/bin/gr_bc" ] && [ ! -e "$TMP/fakebundle/build" ] || fail "not built into --gunrock-build"
gunrock_rows "$TMP/fake" ok ""
python3 - "$TMP/fake" "$TMP/graphs" <<'PYEOF' || fail "the stand-in drivers' rows are wrong: $(cat "$TMP/suite.log")"
import csv, json, os, sys
out, graphs = sys.argv[1:]
recs = [r for r in json.load(open(f"{out}/results.json")) if r["engine"] == "gunrock" and r["algorithm"] != "cc"]
assert len(recs) == 16, len(recs)
for r in recs:
    assert r["validated"] is True and r["wrong_vertices"] == 0, r
    # the drivers' median and run() times, and MTEPS over our reference's traversed edges
    assert r["run_s"] == 1.5e-3 and r["run_min_s"] == 1.25e-3 and r["gunrock_reported_ms"] == 1.0, r
    assert abs(r["mteps"] - r["traversed_edges"] / 1.5e-3 / 1e6) < 1e-6, r
    mtx = f"{graphs}/{r['graph']}.mtx"
    assert f" -m {mtx} " in r["command"] and os.path.exists(mtx), r
    if r["algorithm"] == "pr":  # unweighted, as many iterations as ours
        assert r["command"].endswith(f"--unit_weights --tol 0 --max_iter {r['iterations']}"), r
    else:  # the same source, 0-based: the grid's centre as the suite gives it
        assert r["command"].endswith(f" -s {528 if r['graph'] == 'grid32x32' else r['source']}"), r
# the per-vertex files are removed, the drivers' lines kept
assert sorted(os.listdir(f"{out}/gunrock")) == sorted(f"{r['graph']}-{r['algorithm']}.log" for r in recs)
table = open(f"{out}/speedup.md").read()
assert "| original | sssp | grid32x32 | 1.500 | n/a | n/a | n/a | n/a | validated |" in table, table
assert "| renumbered | bc | n/a | n/a | 0 |" in table, table
PYEOF

# Gunrock wrong on one vertex: 'wrong', timed, marked in the table, and still exit 0
FAKE_GUNROCK_WRONG=bc PATH="$TMP/gpu:$PATH" suite --out "$TMP/wrong" --gunrock "$TMP/fakebundle" \
    --gunrock-build "$TMP/fakebuild" --variants original
[ "$RC" = 0 ] || fail "Gunrock wrong: exit $RC: $(cat "$TMP/suite.log")"
python3 - "$TMP/wrong" <<'PYEOF' || fail "the wrong BC rows are not marked: $(cat "$TMP/suite.log")"
import csv, sys
rows = [r for r in csv.DictReader(open(f"{sys.argv[1]}/results.csv")) if r["engine"] == "gunrock"]
bc = [r for r in rows if r["algorithm"] == "bc"]
assert len(bc) == 2 and all(r["status"] == "wrong" and r["validated"] == "False" and r["wrong_vertices"] == "1"
                            and float(r["run_s"]) == 1.5e-3 and "wrong on 1 of" in r["error"] for r in bc), bc
assert all(r["status"] == "ok" for r in rows if r["algorithm"] not in ("bc", "cc")), rows
table = open(f"{sys.argv[1]}/speedup.md").read()
assert "| original | bc | grid32x32 | 1.500 | n/a | n/a | n/a | n/a | **wrong** on 1 of 1024 vertices |" in table, table
assert "| original | bc | n/a | n/a | 2 |" in table, table
PYEOF
grep -q "rmat10  *bc  *gunrock  *wrong  *Gunrock wrong on 1 of 1024 vertices (first: vertex 0: " "$TMP/suite.log" ||
    fail "the wrong case is not shown: $(cat "$TMP/suite.log")"
echo "bench_suite_gunrock: PASS"
