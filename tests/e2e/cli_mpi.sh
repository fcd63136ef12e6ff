#!/usr/bin/env bash
# cli_mpi.sh — `mpirun -np P mgraph bfs|sssp|cc|pr|bc` for P = 1, 2, 3 on this machine
# (oversubscribed): on the roadNet-CA sample (--undirected) and on R-MAT scale 8 with int weights,
# undirected and directed, each algorithm (cc and bc on the undirected graphs only) validates
# (PASS) and writes --output identical to the single-process run's (bfs, sssp, cc byte for byte; pr
# and bc within 1e-9 relative), with one set of output lines (rank 0's) and 'ranks: P (MPI)'. Then
# what must fail fails on every rank with the same exit status, one message and no hang: cc on a
# directed graph over 3 ranks (1, no output file), a missing file (1), a bad --source (2), an
# --output rank 0 cannot create (1), and tc, which does not run over ranks (2). A binary file's
# shares (each rank reads its own rows) give the text file's results; `mgraph bench` runs its
# cases over the ranks (text and --json, a bad --algos refused once). Every mpirun has
# 120 s (a hang fails the test). Skipped (77) without mpirun or in a build without MPI.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

SAMPLES=${MG_SAMPLES:?MG_SAMPLES is not set (ctest sets it)}
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
# CI runs as root, which OpenMPI refuses unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# mpi P ARGS...: mgraph ARGS --threads 1 on P ranks, at most 120 s; stdout and stderr as run's,
# each rank's exit status in $TMP/rc.RANK and RC rank 0's. Each rank's shell exits 0 after noting
# its status: mpirun ends the job at the first non-zero one, before the others could note theirs.
mpi() {
    local p=$1
    shift
    rm -f "$TMP"/rc.*
    set +e
    # shellcheck disable=SC2016 # expanded by the rank's shell
    timeout 120 mpirun --oversubscribe -np "$p" sh -c \
        '"$0" "$@"; echo "$?" >"$RCDIR/rc.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-$PMIX_RANK}}"' \
        "$MGRAPH" "$@" --threads 1 >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
    [ "$RC" != 124 ] || fail "mpirun -np $p mgraph $*: no answer in 120 s (a hang)"
    [ "$RC" = 0 ] || fail "mpirun -np $p mgraph $*: mpirun exit $RC: $(cat "$TMP/err")"
    RC=$(cat "$TMP/rc.0" 2>/dev/null || echo none)
}
export RCDIR="$TMP"

# every_rank P CODE WHAT: the last mpi run exited CODE on each of its P ranks
every_rank() {
    local p=$1 want=$2 what=$3
    for ((r = 0; r < p; r++)); do
        [ -f "$TMP/rc.$r" ] || fail "$what on $p ranks: rank $r left no exit status: $(cat "$TMP/err")"
        [ "$(cat "$TMP/rc.$r")" = "$want" ] ||
            fail "$what on $p ranks: rank $r exited $(cat "$TMP/rc.$r"), expected $want: $(cat "$TMP/err")"
    done
}

# once TEXT WHAT: the last run's stderr says TEXT once, not once per rank
once() {
    grep -qF -- "$1" "$TMP/err" || fail "$2: stderr lacks '$1': $(cat "$TMP/err")"
    [ "$(grep -cF -- "$1" "$TMP/err")" = 1 ] || fail "$2: said more than once: $(cat "$TMP/err")"
    ! grep -q '^mgraph: rank [0-9]' "$TMP/err" || fail "$2: a message per rank: $(cat "$TMP/err")"
}

# same_values A B: '<id> <value>' files with the same ids in order and values within 1e-9 relative
# (--output prints 10 digits: sums in another order differ by at most the last one, which is under
# 1e-9 of the value; 1.001e-9 leaves room for the rounding of the comparison itself)
same_values() {
    python3 - "$1" "$2" <<'PY' || fail "$2 differs from $1 beyond 1e-9 relative"
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):
    assert x[0] == y[0], (x, y)
    u, v = float(x[1]), float(y[1])
    assert u == v or abs(u - v) <= 1.001e-9 * max(abs(u), abs(v)), (x, y)
PY
}

"$MGRAPH" gen rmat --scale 8 --weights int --output "$TMP/w.mtx" >/dev/null
"$MGRAPH" gen rmat --scale 8 --weights int --directed --output "$TMP/d.mtx" >/dev/null

mpi 1 bfs "$TMP/w.mtx"
grep -q '^ranks: 1 (MPI)$' "$TMP/out" || { echo "skipped: mgraph is built without MPI"; exit 77; }
# outside mpirun nothing changes: no ranks line, no MPI
expect_rc 0 bfs "$TMP/w.mtx"
! grep -q '^ranks:' "$TMP/out" || fail "a run without mpirun printed a ranks line"

# graph NAME FILE OPTIONS ALGOS: each algorithm on FILE, one process, then 1, 2 and 3 ranks
graph() {
    local name=$1 file=$2 opts=$3 algos=$4
    for a in $algos; do
        # shellcheck disable=SC2086 # opts is a list of words
        expect_rc 0 "$a" "$file" $opts --validate --output "$TMP/$name-$a.txt"
        expect_out_line '^validation: PASS$'
    done
    for p in 1 2 3; do
        for a in $algos; do
            local out="$TMP/$name-$a-$p.txt"
            # shellcheck disable=SC2086
            mpi "$p" "$a" "$file" $opts --validate --output "$out"
            every_rank "$p" 0 "$a on $name"
            expect_out_line "^ranks: $p \(MPI\)$"
            expect_out_line '^validation: PASS$'
            [ "$(grep -c '^graph: ' "$TMP/out")" = 1 ] ||
                fail "$a on $name, $p ranks: not rank 0's lines alone"
            case $a in
            pr | bc) same_values "$TMP/$name-$a.txt" "$out" ;;
            *) cmp "$TMP/$name-$a.txt" "$out" || fail "$a on $name, $p ranks: --output differs" ;;
            esac
        done
    done
}
graph road "$SAMPLES/roadNet-CA-sample.txt" --undirected "bfs sssp cc pr bc"
graph rmat "$TMP/w.mtx" "" "bfs sssp cc pr bc"
graph directed "$TMP/d.mtx" "" "bfs sssp pr"

# PageRank's float iterates over the ranks, validated
mpi 2 pr "$TMP/w.mtx" --precision single --validate
every_rank 2 0 "pr --precision single"
expect_out_line '^validation: PASS$'
expect_out_line '\(single precision\)$'

# --json: one object, from rank 0, with the ranks
mpi 2 sssp "$TMP/w.mtx" --json --runs 3
every_rank 2 0 "sssp --json"
python3 - "$TMP/out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
assert j["ranks"] == 2 and j["runs"] == 3 and j["backend"] == "cpu", j
PY

# a binary file: each rank reads its own rows; the same results as the text file's
"$MGRAPH" convert "$TMP/w.mtx" "$TMP/w.mgb" >/dev/null
mpi 3 sssp "$TMP/w.mgb" --validate --output "$TMP/rmat-sssp-mgb.txt"
every_rank 3 0 "sssp on a binary file"
expect_out_line '^validation: PASS$'
cmp "$TMP/rmat-sssp.txt" "$TMP/rmat-sssp-mgb.txt" || fail "sssp from the binary file over 3 ranks: --output differs"

# bench: every case over the ranks, validated, rank 0's lines alone; --json with the ranks
mpi 2 bench "$TMP/w.mtx" --runs 1
every_rank 2 0 "bench"
expect_out_line '^ranks: 2 \(MPI\)$'
[ "$(grep -c '^graph: ' "$TMP/out")" = 1 ] || fail "bench on 2 ranks: not rank 0's lines alone"
for a in bfs sssp cc pr bc; do
    grep -Eq "^$a +cpu +ok " "$TMP/out" || fail "bench on 2 ranks: no ok line for $a: $(cat "$TMP/out")"
done
mpi 3 bench "$TMP/w.mgb" --algos bfs,pr --json --runs 2
every_rank 3 0 "bench --json"
python3 - "$TMP/out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for l in lines:
    j = json.loads(l)
    assert j["ranks"] == 3 and j["status"] == "ok" and j["validated"] is True and j["runs"] == 2, j
PY
mpi 2 bench "$TMP/w.mtx" --algos bfs,nope
every_rank 2 2 "bench --algos with a bad name"
once "'nope' is not one of" "bench --algos with a bad name"

# what fails, fails on every rank, once, without a hang
mpi 3 cc "$TMP/d.mtx" --output "$TMP/cc-directed.txt"
every_rank 3 1 "cc on a directed graph"
once "--undirected gives the same (weakly connected) components" "cc on a directed graph"
[ ! -e "$TMP/cc-directed.txt" ] || fail "cc on a directed graph over 3 ranks wrote its output"
mpi 3 bfs "$TMP/missing.mtx"
every_rank 3 1 "a missing file"
once "$TMP/missing.mtx" "a missing file"
mpi 3 bfs "$TMP/w.mtx" --source 999
every_rank 3 2 "a bad --source"
once "--source 999 is out of range" "a bad --source"
mpi 2 pr "$TMP/w.mtx" --output "$TMP/no/such/dir/pr.txt"
every_rank 2 1 "an --output rank 0 cannot create"
once "$TMP/no/such/dir/pr.txt" "an --output rank 0 cannot create"
mpi 2 tc "$TMP/w.mtx"
every_rank 2 2 "tc"
once "tc does not run over MPI ranks" "tc"
# and mpirun itself ends with that status
set +e
timeout 120 mpirun --oversubscribe -np 3 "$MGRAPH" bfs "$TMP/missing.mtx" --threads 1 \
    >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
[ "$RC" = 1 ] || fail "mpirun -np 3 mgraph bfs MISSING: exit $RC, expected 1: $(cat "$TMP/err")"
echo "PASS"
