#!/usr/bin/env bash
# cli_hardening.sh — what the command does at the edges (issue 13): an --output that is the input
# is refused; output files are new files with the umask's mode, created exclusively (a link planted
# at a temporary's name is not followed), put in place by rename, with a symbolic link's target
# replaced and a device or FIFO written through; a full stdout is an error; --threads is bounded;
# number messages say what is wrong; negative weights have a flag where they can be used; gen
# checks its output name before generating; a PageRank cut off by --max-iter validates.
#
# Devices are only reached through links in $TMP: a build that replaced the file it was given
# would replace the link, not /dev/null or /dev/full (the tests run as root on CI).
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

cat >"$TMP/g.mtx" <<'EOF'
%%MatrixMarket matrix coordinate integer general
5 5 5
1 2 3
2 3 1
3 1 2
3 4 5
4 5 1
EOF
cp "$TMP/g.mtx" "$TMP/g.orig"
printf '1 0\n2 1\n3 2\n4 3\n5 4\n' >"$TMP/bfs.want"

# ---- an output that is the input: refused (usage, exit 2), the input intact -------------------
expect_rc 2 bfs "$TMP/g.mtx" --output "$TMP/g.mtx"
expect_err "is the input file"
same_file "$TMP/g.orig" "$TMP/g.mtx"
# the same file under another name: a link to it, a hard link
ln -s g.mtx "$TMP/g-link.mtx"
ln "$TMP/g.mtx" "$TMP/g-hard.mtx"
expect_rc 2 cc "$TMP/g.mtx" --output "$TMP/g-link.mtx"
expect_err "is the input file"
expect_rc 2 pr "$TMP/g-hard.mtx" --output "$TMP/g.mtx"
expect_err "is the input file"
expect_rc 2 convert "$TMP/g.mtx" "$TMP/g-link.mtx"
expect_err "is the input file"
same_file "$TMP/g.orig" "$TMP/g.mtx"
[ -L "$TMP/g-link.mtx" ] || fail "the link to the input was replaced"

# ---- a FIFO is written through, and stays a FIFO -----------------------------------------------
mkfifo "$TMP/fifo"
timeout 20 cat "$TMP/fifo" >"$TMP/from-fifo" &
reader=$!
expect_rc 0 bfs "$TMP/g.mtx" --output "$TMP/fifo"
if [ ! -p "$TMP/fifo" ]; then
    kill "$reader" 2>/dev/null || true
    fail "--output replaced the FIFO with $(stat -c %F "$TMP/fifo")"
fi
wait "$reader" || fail "the FIFO's reader got nothing (exit $?)"
same_file "$TMP/bfs.want" "$TMP/from-fifo"

# ---- a symbolic link: to a device, written through; to a file, the target replaced -------------
ln -s /dev/null "$TMP/null-link"
expect_rc 0 bfs "$TMP/g.mtx" --output "$TMP/null-link"
[ "$(readlink "$TMP/null-link")" = /dev/null ] || fail "--output replaced the link to /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
ln -s /dev/full "$TMP/full-link"
expect_rc 1 bfs "$TMP/g.mtx" --output "$TMP/full-link"
expect_err "No space left on device"
expect_err "full-link"
[ "$(readlink "$TMP/full-link")" = /dev/full ] || fail "--output replaced the link to /dev/full"
ln -s /dev/full "$TMP/full-link.mtx"
expect_rc 1 gen grid --width 4 --height 4 --output "$TMP/full-link.mtx"
expect_err "No space left on device"
[ "$(readlink "$TMP/full-link.mtx")" = /dev/full ] || fail "gen replaced the link to /dev/full"
# Devices are written through (shown above through links), so /dev/full itself is safe to name.
expect_rc 1 cc "$TMP/g.mtx" --output /dev/full
expect_err "No space left on device"
[ -c /dev/full ] || fail "/dev/full is no longer a character device"
mkdir "$TMP/d"
echo old >"$TMP/d/target.txt"
ln -s d/target.txt "$TMP/result-link"
expect_rc 0 bfs "$TMP/g.mtx" --output "$TMP/result-link"
[ -L "$TMP/result-link" ] || fail "--output replaced the link instead of its target"
same_file "$TMP/bfs.want" "$TMP/d/target.txt"
[ -z "$(ls "$TMP/d" | grep -F .tmp.)" ] || fail "a temporary was left in the target's folder"
ln -s missing.txt "$TMP/dangling"
expect_rc 1 bfs "$TMP/g.mtx" --output "$TMP/dangling"
expect_err "symbolic link to a missing file"
[ ! -e "$TMP/missing.txt" ] || fail "a dangling link's target was created"

# ---- a link planted at the writer's old, predictable temporary name (OUT.tmp.<pid>) -------------
# exec keeps the shell's pid, so the name is the one mgraph would have used.
echo "precious" >"$TMP/victim"
bash -c 'ln -s "$1" "$2.tmp.$$" && exec "$3" gen grid --width 3 --height 3 --output "$2" >/dev/null' \
    _ "$TMP/victim" "$TMP/planted.mtx" "$MGRAPH" || fail "gen with a planted link failed"
[ "$(cat "$TMP/victim")" = precious ] || fail "gen wrote through a link planted at its temporary"
[ -f "$TMP/planted.mtx" ] && [ ! -L "$TMP/planted.mtx" ] || fail "gen did not write planted.mtx"
bash -c 'ln -s "$1" "$2.tmp.$$" && exec "$3" convert "$4" "$2" >/dev/null' \
    _ "$TMP/victim" "$TMP/planted.mgb" "$MGRAPH" "$TMP/g.mtx" || fail "convert with a planted link failed"
[ "$(cat "$TMP/victim")" = precious ] || fail "convert wrote through a link planted at its temporary"
expect_rc 0 info "$TMP/planted.mgb"

# ---- modes follow the umask, for every writer ---------------------------------------------------
for mask in 022 077; do
    want=$(printf '%o' $((0666 & ~8#$mask)))
    rm -f "$TMP/m.txt" "$TMP/m.mtx" "$TMP/m.mgb"
    (umask "$mask" && "$MGRAPH" bfs "$TMP/g.mtx" --output "$TMP/m.txt" >/dev/null) || fail "bfs --output"
    (umask "$mask" && "$MGRAPH" gen grid --width 3 --height 3 --output "$TMP/m.mtx" >/dev/null) || fail "gen"
    (umask "$mask" && "$MGRAPH" convert "$TMP/g.mtx" "$TMP/m.mgb" >/dev/null) || fail "convert"
    for f in m.txt m.mtx m.mgb; do
        got=$(stat -c %a "$TMP/$f")
        [ "$got" = "$want" ] || fail "umask $mask: $f has mode $got, expected $want"
    done
done

# ---- a full stdout is a failure (exit 1, a message), whatever printed it ------------------------
for args in "bfs $TMP/g.mtx" "info $TMP/g.mtx --json" "bench $TMP/g.mtx --engines cpu" "--help" \
            "help pr" "sssp --help" "--version"; do
    set +e
    # shellcheck disable=SC2086 # the words of $args are the arguments
    "$MGRAPH" $args >/dev/full 2>"$TMP/err"
    RC=$?
    set -e
    [ "$RC" = 1 ] || fail "mgraph $args >/dev/full: exit $RC, expected 1"
    expect_err "mgraph: write error on standard output: No space left on device"
done

# ---- --threads: bounded by the processors, with our own message --------------------------------
cpus=$(nproc)
expect_rc 2 bfs "$TMP/g.mtx" --threads 4096
expect_err "invalid value '4096' for --threads (too large)"
expect_err "from 0 to $((8 * cpus))"
# under a memory limit, where libgomp's thread stacks would abort the run (not for a sanitizer
# build, which cannot start under one: its shadow memory is terabytes of address space)
if bash -c 'ulimit -v 1000000 && "$0" --version; exit $?' "$MGRAPH" >/dev/null 2>&1; then
    set +e
    (ulimit -v 1000000 && exec "$MGRAPH" cc "$TMP/g.mtx" --threads 100000 >/dev/null 2>"$TMP/err")
    RC=$?
    set -e
    [ "$RC" = 2 ] || fail "--threads 100000 under a memory limit: exit $RC, expected 2: $(cat "$TMP/err")"
    expect_err "for --threads (too large)"
fi
expect_rc 0 bfs "$TMP/g.mtx" --threads "$((8 * cpus))" --validate

# ---- numbers: the message says what is wrong ---------------------------------------------------
expect_rc 2 bfs "$TMP/g.mtx" --source -0
expect_err "invalid value '-0' for --source (a sign is not allowed)"
expect_rc 2 bfs "$TMP/g.mtx" --runs -0
expect_err "invalid value '-0' for --runs (a sign is not allowed)"
expect_rc 2 bfs "$TMP/g.mtx" --runs +3
expect_err "(a sign is not allowed)"
expect_rc 2 bfs "$TMP/g.mtx" --runs 0
expect_err "invalid value '0' for --runs (too small)"
expect_rc 2 bfs "$TMP/g.mtx" --source 99999999999999999999999
expect_err "(too large)"
expect_rc 2 pr "$TMP/g.mtx" --max-iter 1e3
expect_err "invalid value '1e3' for --max-iter (not a whole number)"

# ---- negative weights: --allow-negative-weights where a command can use them -------------------
cat >"$TMP/neg.mtx" <<'EOF'
%%MatrixMarket matrix coordinate integer general
3 3 2
1 2 4
2 3 -2
EOF
expect_rc 1 info "$TMP/neg.mtx"
expect_err "neg.mtx:4"
expect_err "--allow-negative-weights"
expect_rc 0 info "$TMP/neg.mtx" --allow-negative-weights
expect_out_line '^weights: int32$'
expect_rc 1 convert "$TMP/neg.mtx" "$TMP/neg.mgb"
expect_err "--allow-negative-weights"
expect_rc 0 convert "$TMP/neg.mtx" "$TMP/neg.mgb" --allow-negative-weights
expect_rc 0 convert "$TMP/neg.mgb" "$TMP/neg2.mtx"
grep -q '^2 3 -2$' "$TMP/neg2.mtx" || fail "the negative weight did not survive convert: $(cat "$TMP/neg2.mtx")"
# sssp cannot use them: it says so, and points at no option that would not help
expect_rc 1 sssp "$TMP/neg.mtx"
expect_err "negative edge weight"
expect_err "weights >= 0"
if grep -q "allow" "$TMP/err"; then fail "sssp's message points at an option: $(cat "$TMP/err")"; fi
expect_rc 2 sssp "$TMP/neg.mtx" --allow-negative-weights
expect_err "option '--allow-negative-weights' does not apply to 'sssp'"
# the algorithms that ignore weights run
expect_rc 0 bfs "$TMP/neg.mtx" --validate

# ---- gen and convert check the output's name before the work ------------------------------------
start=$(date +%s%N)
set +e
timeout 20 "$MGRAPH" gen rmat --scale 24 --output "$TMP/big.txt" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
ms=$((($(date +%s%N) - start) / 1000000))
[ "$RC" = 2 ] || fail "gen to a .txt: exit $RC, expected 2"
[ "$ms" -lt 2000 ] || fail "gen to a .txt took $ms ms to fail: the output's name was checked late"
expect_err "big.txt"
expect_err ".mtx"
[ ! -e "$TMP/big.txt" ] || fail "gen left big.txt"
expect_rc 2 convert "$TMP/g.mtx" "$TMP/g.csv"
expect_err "g.csv"
expect_rc 0 convert "$TMP/g.mtx" "$TMP/upper.MGB"
expect_rc 0 info "$TMP/upper.MGB"

# ---- PageRank cut off by --max-iter: a warning, and the ranks validate --------------------------
expect_rc 0 gen rmat --scale 10 --edge-factor 8 --seed 3 --output "$TMP/r.mgb"
for extra in "" "--data-driven"; do
    # shellcheck disable=SC2086 # $extra is one option or none
    expect_rc 0 pr "$TMP/r.mgb" --max-iter 3 --validate --output "$TMP/pr.txt" $extra
    # (data-driven counts pushes in units of n, so its figure may pass the limit by one)
    expect_out_line '^iterations: [34] \(not converged\)$'
    expect_out_line '^validation: PASS$'
    expect_err "mgraph: warning: "
    [ -s "$TMP/pr.txt" ] || fail "pr --max-iter 3 $extra wrote no --output"
    rm "$TMP/pr.txt"
done
expect_rc 0 pr "$TMP/r.mgb" --max-iter 20 --tolerance 1e-9 --validate --json
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["validated"] is True and d["converged"] is False and d["iterations"] == 20, d' <"$TMP/out"

# --- a 15-byte SNAP file claiming id 16777215: refused at once, naming the file and the flag that
# raises the limit; --max-vertices lets it load; 0 is a usage error
printf '16777215 9296\n' >"$TMP/amp.txt"
expect_rc 1 info "$TMP/amp.txt"
expect_err "amp.txt:1: source id 16777215 is too large"
expect_err "--max-vertices"
expect_rc 0 info "$TMP/amp.txt" --max-vertices 16777216
expect_out_line '^vertices: 16777216$'
expect_rc 1 bfs "$TMP/amp.txt" --max-vertices 1000
expect_err "max_vertices (mgraph --max-vertices) allows 1000 vertices"
expect_rc 2 info "$TMP/amp.txt" --max-vertices 0
expect_err "invalid value '0' for --max-vertices"

echo "cli_hardening: ok"
