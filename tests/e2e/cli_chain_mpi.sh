#!/usr/bin/env bash
# cli_chain_mpi.sh — `mpirun -np P mgraph chain` for P = 1, 2, 3, 4 on this machine (oversubscribed):
# C byte for byte the single-rank product and the one computed here (uint64, wrapping), a chain
# shorter than the ranks (empty segments), double values validated; then on 3 and 4 ranks each
# bad input (a missing matrix, a malformed block line, the wrong k, shapes that do not meet at a
# segment boundary and inside a segment) fails every rank (one message line per rank naming the
# file, and the line where there is one), exits non-zero and writes nothing, within a timeout
# (a hang fails the test). Skipped (77) without mpirun or in a build without MPI.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

GEN="$(dirname "${BASH_SOURCE[0]}")/chain_gen.py"
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
python3 "$GEN" "$TMP/c" 7 3 1 18446744073709551615 10 7 11 9 10 8 13 5
expect_rc 0 chain "$TMP/c" -o "$TMP/one.mtx"
grep -q '^ranks: 1 (MPI)$' "$TMP/out" || { echo "skipped: mgraph is built without MPI"; exit 77; }
same_file "$TMP/c/expected.mtx" "$TMP/one.mtx"

# CI runs as root, which OpenMPI refuses unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpi P ARGS...: mgraph chain ARGS on P ranks, at most 120 s; stdout, stderr and RC as run's
mpi() {
    local p=$1
    shift
    set +e
    timeout 120 mpirun --oversubscribe -np "$p" "$MGRAPH" chain "$@" --threads 1 >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
    [ "$RC" != 124 ] || fail "mpirun -np $p mgraph chain $*: no answer in 120 s (a hang)"
}

for p in 1 2 3 4; do
    mpi "$p" "$TMP/c" -o "$TMP/p$p.mtx" --validate
    [ "$RC" = 0 ] || fail "$p ranks: exit $RC: $(cat "$TMP/err")"
    cmp "$TMP/one.mtx" "$TMP/p$p.mtx" || fail "$p ranks: C differs from the single-rank product"
    expect_out_line "^ranks: $p \(MPI\)$"
    expect_out_line '^validation: PASS$'
    [ "$(grep -c '^rank [0-9]*: matrices' "$TMP/out")" = "$p" ] || fail "$p ranks: not one line per rank"
    mpi "$p" "$TMP/c" -o "$TMP/b$p.bcsr"
    cmp "$TMP/b1.bcsr" "$TMP/b$p.bcsr" || fail "$p ranks: the BCSR output differs"
done
expect_out_line '^rank 3: matrices 6\.\.7 \(2\)'

# fewer matrices than ranks: ranks with an empty segment pass nothing up the tree
python3 "$GEN" "$TMP/short" 2 4 5 1000 9 10 7
mpi 4 "$TMP/short" -o "$TMP/short.mtx" --values double --validate --json
[ "$RC" = 0 ] || fail "2 matrices on 4 ranks: exit $RC: $(cat "$TMP/err")"
python3 - "$TMP/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] == 4 and j["mpi"] is True and j["validated"] is True, j
assert [r["count"] for r in j["per_rank"]] == [0, 1, 0, 1], j["per_rank"]
PY
mpi 3 "$TMP/short" -o "$TMP/short3.mtx"
cmp "$TMP/short/expected.mtx" "$TMP/short3.mtx" || fail "2 matrices on 3 ranks: C differs"

# bad inputs: every rank says so, exit non-zero, no output
bad() { # P NAME TEXT FOLDER
    local p=$1 name=$2 text=$3 dir=$4
    mpi "$p" "$dir" -o "$TMP/$name.mtx"
    [ "$RC" != 0 ] || fail "$name on $p ranks: exit 0"
    grep -qF -- "$text" "$TMP/err" || fail "$name on $p ranks: stderr lacks '$text': $(cat "$TMP/err")"
    [ "$(grep -c '^mgraph: chain: ' "$TMP/err")" = "$p" ] ||
        fail "$name on $p ranks: not every rank reported: $(cat "$TMP/err")"
    [ ! -e "$TMP/$name.mtx" ] || fail "$name on $p ranks: output written"
}
cp -r "$TMP/c" "$TMP/missing" && rm "$TMP/missing/matrix6"
cp -r "$TMP/c" "$TMP/malformed" && sed -i '4s/^\([0-9]* [0-9]*\) [0-9]*/\1 zz/' "$TMP/malformed/matrix2"
cp -r "$TMP/c" "$TMP/wrongk" && echo "7 2" >"$TMP/wrongk/size"
# matrix 3 is 11 x 9: with 12 rows it meets matrix 2 across a segment boundary on 3 ranks (rank 0
# ends with matrix 2, rank 1 starts with 3) and inside rank 1's segment on 4
cp -r "$TMP/c" "$TMP/boundary" && sed -i 's/^11 9 /12 9 /' "$TMP/boundary/matrix3"
# matrix 6 is 8 x 13: 9 columns; on 3 ranks 6 and 7 share a segment
cp -r "$TMP/c" "$TMP/inside" && sed -i 's/^8 13 /8 14 /' "$TMP/inside/matrix6"
for p in 3 4; do
    bad "$p" missing "$TMP/missing/matrix6" "$TMP/missing"
    bad "$p" malformed "$TMP/malformed/matrix2:4: value 1 'zz' is not an unsigned integer" "$TMP/malformed"
    bad "$p" wrongk "$TMP/wrongk/matrix1:3: the block has more than the 4 values k = 2 gives" "$TMP/wrongk"
    if [ "$p" = 3 ]; then
        bad "$p" boundary "$TMP/boundary/matrix2 has 11 columns but the next matrix, $TMP/boundary/matrix3, has 12 rows" "$TMP/boundary"
    else
        bad "$p" boundary "$TMP/boundary/matrix2 is 7 x 11 but the next matrix, $TMP/boundary/matrix3, is 12 x 9" "$TMP/boundary"
    fi
    bad "$p" inside "$TMP/inside/matrix6 is 8 x 14 but the next matrix, $TMP/inside/matrix7, is 13 x 5" "$TMP/inside"
done
echo "PASS"
