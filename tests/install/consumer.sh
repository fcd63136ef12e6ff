#!/usr/bin/env bash
# consumer.sh BUILD_DIR — installs that build into a temporary prefix and builds tests/install's
# consumer.c against the installed package three ways: CMake (find_package, both libraries),
# pkg-config for the shared library, pkg-config for the static archive; runs each program, checks
# which libmgraph each one loads, and that the installed `mgraph` runs; and builds examples/ with
# CMake against the same install and runs each example, which checks itself.
set -euo pipefail
build=$(cd "${1:?usage: consumer.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
for f in "$prefix/include/mgraph.h" "$libdir/libmgraph.a" "$libdir/cmake/mgraph/mgraphConfig.cmake" \
         "$libdir/pkgconfig/mgraph.pc" "$libdir/pkgconfig/mgraph-static.pc" "$prefix/bin/mgraph"; do
    [ -e "$f" ] || fail "not installed: $f"
done
ls "$libdir"/libmgraph.so* >/dev/null 2>&1 || fail "not installed: $libdir/libmgraph.so"
"$prefix/bin/mgraph" --version >/dev/null || fail "the installed mgraph does not run"

# expect_run PROGRAM SHARED|STATIC: prints depth 3, and loads libmgraph.so only when SHARED.
expect_run() {
    local out
    out=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$1") || fail "$1 failed: $out"
    [ "$out" = "depth of vertex 3: 3" ] || fail "$1 printed '$out'"
    local libs
    libs=$(LD_LIBRARY_PATH="$libdir" ldd "$1")
    if [[ $libs == *libmgraph.so* ]]; then
        [ "$2" = SHARED ] || fail "$1 should not need libmgraph.so"
    else
        [ "$2" = STATIC ] || fail "$1 should load libmgraph.so"
    fi
    echo "ok: $(basename "$1") ($2)"
}

# 1. CMake: find_package(mgraph), mgraph::mgraph and mgraph::mgraph_static.
cmake -S "$here" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "configuring the consumer with find_package"; }
cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "building the consumer with CMake"; }
expect_run "$tmp/cmake/consumer_shared" SHARED
expect_run "$tmp/cmake/consumer_static" STATIC

# 1b. examples/, a project of its own like a user's: built with find_package against this prefix;
# each example checks its answer against a serial computation, on a generated graph (its ctest)
# and on a bundled sample.
examples=$here/../../examples
samples=$here/../../datasets/samples
cmake -S "$examples" -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS=-Werror >"$tmp/examples.log" 2>&1 || { cat "$tmp/examples.log"; fail "configuring examples/"; }
cmake --build "$tmp/examples" >>"$tmp/examples.log" 2>&1 || { cat "$tmp/examples.log"; fail "building examples/"; }
ld_path="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LD_LIBRARY_PATH=$ld_path ctest --test-dir "$tmp/examples" --output-on-failure >"$tmp/examples.log" 2>&1 ||
    { cat "$tmp/examples.log"; fail "an example failed on its generated graph"; }
for run in "kcore roadNet-CA-sample.txt" "mis roadNet-CA-sample.txt" "colour roadNet-CA-sample.txt" \
           "colour web-Google-sample.txt" "ppr web-Google-sample.txt 0 11342" \
           "hits web-Google-sample.txt"; do
    read -r -a args <<<"$run"
    out=$(LD_LIBRARY_PATH=$ld_path "$tmp/examples/${args[0]}" "$samples/${args[1]}" "${args[@]:2}" 2>&1) ||
        fail "examples/${args[0]}.c on ${args[1]}: $out"
done
echo "ok: examples/ (kcore, mis, colour, ppr, hits) built and checked"

# 2 and 3. pkg-config: the shared library, then the archive with its dependencies.
if ! command -v pkg-config >/dev/null; then
    echo "skipped: pkg-config is not installed, so the two pkg-config ways were not checked (CMake's passed)"
    exit 77
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -o "$tmp/pc_shared" "$here/consumer.c" $(pkg-config --cflags --libs mgraph) || fail "pkg-config mgraph"
expect_run "$tmp/pc_shared" SHARED
# shellcheck disable=SC2046
$cc -o "$tmp/pc_static" "$here/consumer.c" $(pkg-config --cflags --libs mgraph-static) ||
    fail "pkg-config mgraph-static"
expect_run "$tmp/pc_static" STATIC
# --static on the shared module lists the archive's dependencies too (for fully static links).
pkg-config --static --libs mgraph | grep -q -- "-lgomp" || fail "pkg-config --static --libs mgraph lacks OpenMP"
echo "install: CMake package, pkg-config shared and static all build and run"
