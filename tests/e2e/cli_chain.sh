#!/usr/bin/env bash
# cli_chain.sh — `mgraph chain` on one rank (as a build without MPI runs it, or a lone process of
# one with MPI): a folder of 7 uint64 matrices whose products wrap modulo 2^64, sides not multiples
# of k, against the product computed here in exact integers (chain_gen.py); the same chain as a
# list of .mtx files in blocks of 2, 3 and 5 (the product does not depend on k); a chain of 300;
# C written as BCSR text and read back as a chain of one; double values with --validate; the lines
# and --json keys;
# bad inputs (a missing size file or matrix, a malformed block line, the wrong k, matrices whose
# shapes do not meet, a fraction in a uint64 .mtx) exit 1 naming the file (and line) and leave no
# output, an existing one untouched; usage errors exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

GEN="$(dirname "${BASH_SOURCE[0]}")/chain_gen.py"
no_output() {
    [ ! -e "$1" ] || fail "a failed run left $1 behind"
}

python3 "$GEN" "$TMP/c" 7 3 1 18446744073709551615 10 7 11 9 10 8 13 5
expect_rc 0 chain "$TMP/c" -o "$TMP/out.mtx" --validate --threads 2
same_file "$TMP/c/expected.mtx" "$TMP/out.mtx"
expect_out_line '^chain: .*/c \(7 matrices, blocks of side 3, uint64 values\)$'
expect_out_line '^ranks: 1 '
expect_out_line '^product: C 10 x 5, [0-9]+ blocks$'
expect_out_line '^run: [0-9.]+ s \(median of 1\)$'
expect_out_line '^rank 0: matrices 1\.\.7 \(7\), load '
expect_out_line '^validation: PASS$'
expect_out_line '^backend: (cpu|gpu)$' # auto: the GPU where there is one (the H100 ran it there)

# the BCSR text output, read back as a chain of one
expect_rc 0 chain "$TMP/c" -o "$TMP/out.bcsr" --backend cpu --runs 3
expect_out_line '^run: [0-9.]+ s \(median of 3\)$'
expect_rc 0 chain "$TMP/out.bcsr" --k 3 -o "$TMP/back.mtx"
same_file "$TMP/c/expected.mtx" "$TMP/back.mtx"

# a list of .mtx files, in any block size: integers below 1000 are exact as the reader's doubles
python3 "$GEN" "$TMP/s" 6 2 2 1000 9 12 5 14 3 8 11
list=()
for i in 1 2 3 4 5 6; do list+=("$TMP/s/m$i.mtx"); done
for k in 2 3 5; do
    expect_rc 0 chain "${list[@]}" --k "$k" -o "$TMP/list$k.mtx" --validate
    same_file "$TMP/s/expected.mtx" "$TMP/list$k.mtx"
    expect_out_line "blocks of side $k, uint64 values"
done

# double values (the same small integers: every sum exact)
expect_rc 0 chain "$TMP/s" -o "$TMP/d.mtx" --values double --validate --json
python3 - "$TMP/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for key in ("algorithm", "matrices", "k", "values", "ranks", "mpi", "load_s", "c_rows", "c_cols",
            "c_blocks", "run_s", "runs", "per_rank", "validated", "backend", "threads"):
    assert key in j, key
assert j["algorithm"] == "chain" and j["values"] == "double" and j["validated"] is True
assert j["matrices"] == 6 and j["k"] == 2 and j["c_rows"] == 9 and j["c_cols"] == 11
r = j["per_rank"][0]
assert r["rank"] == 0 and r["first"] == 1 and r["count"] == 6 and 0 <= r["comm_share"] <= 1
PY
grep -v '^%' "$TMP/d.mtx" | awk 'NR > 1 { print $1, $2, $3 + 0 }' >"$TMP/d.txt"
grep -v '^%' "$TMP/s/expected.mtx" | awk 'NR > 1 { print $1, $2, $3 + 0 }' >"$TMP/e.txt"
same_file "$TMP/e.txt" "$TMP/d.txt"
expect_rc 0 chain "$TMP/s" -o "$TMP/f.mtx" --values float --validate
expect_out_line '^validation: PASS$'

# a long chain (more matrices than a command line takes): [[1, 1], [0, 1]]^300 = [[1, 300], [0, 1]]
mkdir "$TMP/long"
echo "300 2" >"$TMP/long/size"
for i in $(seq 300); do printf '2 2 1\n0 0 1 1 0 1\n' >"$TMP/long/matrix$i"; done
expect_rc 0 chain "$TMP/long" -o "$TMP/long.mtx"
[ "$(tail -n +3 "$TMP/long.mtx" | tr '\n' ' ')" = "1 1 1 1 2 300 2 2 1 " ] ||
    fail "[[1, 1], [0, 1]]^300: $(cat "$TMP/long.mtx")"

# bad inputs: exit 1, the file (and line) named, nothing written
bad() { # NAME TEXT ARGS...: a failing run of chain on the folder made by the caller
    local name=$1 text=$2
    shift 2
    expect_rc 1 chain "$@" -o "$TMP/$name.mtx"
    expect_err "$text"
    no_output "$TMP/$name.mtx"
}
mkdir "$TMP/empty"
bad nosize "$TMP/empty/size" "$TMP/empty"
cp -r "$TMP/c" "$TMP/missing" && rm "$TMP/missing/matrix6"
bad missing "$TMP/missing/matrix6" "$TMP/missing"
cp -r "$TMP/c" "$TMP/malformed" && sed -i '4s/^\([0-9]* [0-9]*\) [0-9]*/\1 12x/' "$TMP/malformed/matrix2"
bad malformed "$TMP/malformed/matrix2:4: value 1 '12x' is not an unsigned integer" "$TMP/malformed"
cp -r "$TMP/c" "$TMP/wrongk" && echo "7 2" >"$TMP/wrongk/size"
bad wrongk "$TMP/wrongk/matrix1:3: the block has more than the 4 values k = 2 gives" "$TMP/wrongk"
cp -r "$TMP/c" "$TMP/shape" && sed -i 's/^11 9 /12 9 /' "$TMP/shape/matrix3"
grep -q '^12 9 ' "$TMP/shape/matrix3" || fail "the shape edit did not apply"
bad shape "$TMP/shape/matrix2 is 7 x 11 but the next matrix, $TMP/shape/matrix3, is 12 x 9" "$TMP/shape"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 0.5\n' >"$TMP/frac_in.mtx"
bad frac "$TMP/frac_in.mtx: mg_bcsr_from_matrix: A(0, 0) = 0.5 is not an integer" "$TMP/frac_in.mtx" --k 2
bad nofile "$TMP/none.mtx" "$TMP/none.mtx" "$TMP/s/m1.mtx"
# an existing output stays as it was
echo keep >"$TMP/kept.mtx"
expect_rc 1 chain "$TMP/missing" -o "$TMP/kept.mtx"
[ "$(cat "$TMP/kept.mtx")" = keep ] || fail "a failed run changed an existing output"

# usage errors: exit 2
expect_rc 2 chain "$TMP/c"
expect_err "--output FILE (-o) is required"
expect_rc 2 chain -o "$TMP/u.mtx"
expect_err "give a folder"
expect_rc 2 chain "$TMP/c" --k 3 -o "$TMP/u.mtx"
expect_err "--k is for a list of files"
expect_rc 2 chain "${list[@]}" --k 33 -o "$TMP/u.mtx"
expect_err "'33' for --k"
expect_rc 2 chain "$TMP/c" --values int -o "$TMP/u.mtx"
expect_err "'int' for --values"
expect_rc 2 chain "$TMP/s/m1.mtx" -o "$TMP/s/m1.mtx"
no_output "$TMP/u.mtx"
expect_rc 0 help chain
expect_out_line '^Usage: mgraph chain DIR'
echo "PASS"
