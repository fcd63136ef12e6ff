# common.bash — sourced by the end-to-end scripts (tests/e2e/*.sh; this file is not one of them):
# the mgraph binary from $1, a temporary directory removed on exit, and assertions that print what
# was expected, what came, and mgraph's stderr.
set -euo pipefail

MGRAPH=${1:?usage: $0 path/to/mgraph}
[ -x "$MGRAPH" ] || { echo "FAIL: $MGRAPH is not an executable" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# run ARGS...: runs mgraph, leaving stdout in $TMP/out, stderr in $TMP/err and the status in RC.
run() {
    set +e
    "$MGRAPH" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
}

# expect_rc CODE ARGS...: runs mgraph and requires exit status CODE.
expect_rc() {
    local want=$1
    shift
    run "$@"
    [ "$RC" = "$want" ] || fail "mgraph $*: exit $RC, expected $want; stderr: $(cat "$TMP/err")"
}

# expect_err TEXT: the last run's stderr contains TEXT.
expect_err() {
    grep -qF -- "$1" "$TMP/err" || fail "stderr does not mention '$1': $(cat "$TMP/err")"
}

# expect_out_line REGEX: the last run's stdout has a line matching the extended regex.
expect_out_line() {
    grep -qE -- "$1" "$TMP/out" || fail "stdout has no line matching '$1': $(cat "$TMP/out")"
}

# same_file EXPECTED ACTUAL: the two files are identical (diff shown otherwise).
same_file() {
    diff -u "$1" "$2" >&2 || fail "$2 differs from the expected $1"
}
