#!/usr/bin/env bash
# cli_usage.sh — help and version for every subcommand, and every kind of bad usage (unknown option,
# missing value, non-numeric, negative, zero, overflowing and out-of-range numbers, bad choices)
# exits 2 with a message that names the option and the value.
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

cat >"$TMP/g.mtx" <<'EOF'
%%MatrixMarket matrix coordinate pattern general
3 3 2
1 2
2 3
EOF

# Help: exit 0, usage on stdout, for every spelling.
expect_rc 0 --help
expect_out_line '^Usage: mgraph COMMAND'
expect_rc 0 help
expect_out_line '^Usage: mgraph COMMAND'
expect_rc 0 --version
expect_out_line '^mgraph [0-9]+\.[0-9]+\.[0-9]+'
for cmd in bfs sssp cc pr bc info gen convert bench; do
    expect_rc 0 help "$cmd"
    expect_out_line "^Usage: mgraph $cmd "
    cp "$TMP/out" "$TMP/help1"
    expect_rc 0 "$cmd" --help
    same_file "$TMP/help1" "$TMP/out"
    expect_rc 0 "$cmd" -h
    same_file "$TMP/help1" "$TMP/out"
done
# The TEPS convention and the default source are documented where users look.
expect_rc 0 help bfs
expect_out_line 'first vertex'
expect_out_line 'MTEPS = traversed edges'

# No command: usage on stderr, exit 2.
expect_rc 2
expect_err 'Usage: mgraph'
expect_rc 2 frobnicate
expect_err "unknown command 'frobnicate'"
expect_rc 2 help frobnicate
expect_err "'frobnicate'"
expect_rc 2 --frobnicate
expect_err "'--frobnicate'"

# Bad options and values: exit 2, the option and the value named, a hint, nothing on stdout.
check_usage() { # TEXT ARGS...
    local text=$1
    shift
    expect_rc 2 "$@"
    expect_err "$text"
    expect_err "Try 'mgraph"
    [ ! -s "$TMP/out" ] || fail "mgraph $*: printed on stdout: $(cat "$TMP/out")"
}
G="$TMP/g.mtx"
check_usage "'--bogus'" bfs "$G" --bogus
check_usage "'--runs' needs a value" bfs "$G" --runs
check_usage "'abc' for --runs" bfs "$G" --runs abc
check_usage "'0' for --runs" bfs "$G" --runs 0
check_usage "'-3' for --source" bfs "$G" --source -3
check_usage "'1.5' for --source" sssp "$G" --source 1.5
check_usage "'99999999999999999999999' for --runs" bfs "$G" --runs 99999999999999999999999
check_usage "'4294967296' for --source" bfs "$G" --source 4294967296
check_usage "'12x' for --threads" cc "$G" --threads 12x
check_usage "'--runs' needs a value" bfs "$G" --runs=
check_usage "'x' for --threads" bfs "$G" --runs=3 --threads=x
check_usage "'sideways' for --mode" bfs "$G" --mode sideways
check_usage "'push' for --mode" bfs "$G" --mode push
check_usage "'0' for --sample" bfs "$G" --sample 0
check_usage "'1.5' for --sample" bfs "$G" --sample 1.5
check_usage "'x' for --sample" bfs "$G" --sample x
check_usage "'gunrock' for --engine" bfs "$G" --engine gunrock
check_usage "'tpu' for --backend" bfs "$G" --backend tpu
check_usage "'xml' for --format" info "$G" --format xml
check_usage "'1' for --damping" pr "$G" --damping 1
check_usage "'nan' for --tolerance" pr "$G" --tolerance nan
check_usage "'0' for --max-iter" pr "$G" --max-iter 0
check_usage "'-1' for --delta" sssp "$G" --delta -1
check_usage "'1,x' for --sources" bc "$G" --sources 1,x
check_usage "'1,,2' for --sources" bc "$G" --sources 1,,2
check_usage "exclude each other" bc "$G" --sources 1,2 --all
check_usage "exclude each other" bfs "$G" --directed --undirected
check_usage "'--validate' takes no value" bfs "$G" --validate=yes
check_usage "'--source' does not apply to 'cc'" cc "$G" --source 1
check_usage "'--delta' does not apply to 'bfs'" bfs "$G" --delta 2
check_usage "'--runs' does not apply to 'info'" info "$G" --runs 2
check_usage "missing the graph FILE" pr
check_usage "unexpected argument 'extra'" bfs "$G" extra
check_usage "needs IN and OUT" convert "$G"
check_usage "missing --output" gen rmat --scale 4
check_usage "unknown KIND 'torus'" gen torus --output "$TMP/x.mtx"
check_usage "'40' for --scale" gen rmat --scale 40 --output "$TMP/x.mtx"
check_usage "'-0.1' for --a" gen rmat --a -0.1 --output "$TMP/x.mtx"
check_usage "at most 1" gen rmat --a 0.5 --b 0.3 --c 0.3 --output "$TMP/x.mtx"
check_usage "'heavy' for --weights" gen uniform --weights heavy --output "$TMP/x.mtx"
[ ! -e "$TMP/x.mtx" ] || fail "a rejected gen command created its output file"

echo "cli_usage: ok"
