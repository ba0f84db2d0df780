#!/usr/bin/env bash
# A new user's way in, each step in a temporary folder, as README.md tells it:
# copy the headers, build and run the quick start (its code and build lines
# are taken from README.md's and docs/guide.md's blocks marked <!-- file: NAME -->) from dag.h
# alone as C and as C++, and with every header and a backend; make demo;
# make install, then a program built through pkg-config and through CMake.
# Prints ok / FAIL / skipped per step and a closing "N passed, N failed" line.
#   CC CXX CMAKE PKG_CONFIG MAKE STRICT: as make test passes them
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
CXX=${CXX:-c++} CMAKE=${CMAKE:-cmake} PKG_CONFIG=${PKG_CONFIG:-pkg-config} MAKE=${MAKE:-make} STRICT=${STRICT:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0

ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); [ -f "$tmp/log" ] && tail -n 30 "$tmp/log"; }
skip() {
    if [ "$STRICT" = 1 ]; then fail "(STRICT=1: a skip is a failure) $*"
    else echo "skipped: $*"; skipped=$((skipped + 1)); fi
}
# step NAME DIR COMMAND...: COMMAND run in DIR must succeed; its output is in $tmp/log
step() {
    local what=$1 dir=$2; shift 2
    if (cd "$dir" && "$@") > "$tmp/log" 2>&1; then ok "$what"; return 0; fi
    fail "$what"; return 1
}
# extract NAME DIR: the block after <!-- file: NAME --> in README.md or docs/guide.md into DIR/NAME
extract() {
    awk -v name="$2" '
        $0 == "<!-- file: " name " -->" { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$root/README.md" "$root/docs/guide.md" > "$1/$2"
    [ -s "$1/$2" ] || { echo "README.md and docs/guide.md have no block marked <!-- file: $2 -->" > "$tmp/log"; fail "README block $2"; return 1; }
}
expect_output() {   # expect_output TEXT WHAT: the last step's output says TEXT
    if grep -q "$1" "$tmp/log"; then ok "$2"; else fail "$2 (no '$1' in its output)"; fi
}
have() { command -v "$1" >/dev/null 2>&1; }

# 1. dag.h alone: the quick start as C
d=$tmp/c; mkdir -p "$d"; cp "$root/dag.h" "$d/"
extract "$d" main.c && extract "$d" build.sh &&
    step "dag.h alone: the README's quick start builds and runs as C" "$d" sh -e build.sh &&
    expect_output "dot = 501500 (expected 501500)" "the quick start prints its result"

# 1b. dag.h alone: the fork-join example
d=$tmp/fib; mkdir -p "$d"; cp "$root/dag.h" "$d/"
extract "$d" fib.c &&
    step "dag.h alone: docs/guide.md's fork-join example builds and runs" "$d" \
        sh -ec 'cc -std=c11 -pedantic -Wall -Wextra -Werror -O2 -I. fib.c -o fib -pthread && ./fib' &&
    expect_output "fib(35) = 9227465" "the fork-join example prints its result"

# 2. dag.h alone: the quick start as C++ (the implementation stays a C file)
d=$tmp/cxx; mkdir -p "$d"; cp "$root/dag.h" "$d/"
if have "$CXX" && have c++; then
    extract "$d" impl.c && extract "$d" main.cc && extract "$d" build_cxx.sh &&
        step "dag.h alone: docs/guide.md's C++ quick start builds and runs" "$d" sh -e build_cxx.sh &&
        expect_output "dot = 501500 (expected 501500)" "the C++ quick start prints its result"
else
    skip "the quick start as C++: $CXX not found (apt-get install g++)"
fi

# 3. every header and a backend: the quick start, and dag_array.h's Cholesky
d=$tmp/all; mkdir -p "$d"
cp "$root"/dag.h "$root"/dag_kernels.h "$root"/dag_blas.h "$root"/dag_array.h "$root"/dag_array_kernels.h "$d/"
cp -r "$root/dag_backends" "$d/"
cp "$root/examples/cholesky.c" "$d/"
extract "$d" main.c && extract "$d" build_opencl.sh &&
    step "every header: the quick start with -DDAG_BACKEND_OPENCL" "$d" sh -e build_opencl.sh &&
    expect_output "dot = 501500" "the OpenCL build prints its result"
step "every header: examples/cholesky.c with -DDAG_BACKEND_OPENCL" "$d" \
    sh -ec 'cc -std=c11 -O2 -DDAG_BACKEND_OPENCL -I. cholesky.c -o cholesky -pthread -ldl -lm && ./cholesky' &&
    expect_output "residual" "the Cholesky example prints its residual"

# 3b. Which files to copy: each row of the README's table, those files alone in lib/ (the program
#     beside it, no -I), builds with the row's line and runs; a file of the row missing stops the
#     build with the #error naming the list (not the compiler's "No such file" alone)
cat > "$tmp/kernels.c" <<'C'
#define DAG_IMPLEMENTATION
#include "lib/dag_kernels.h"
#include <stdio.h>
DAG_KERNEL(twice, ((DAG_GLOBAL double *, y)), y[DAG_INDEX()] *= 2;)
int main(void) {
    static double y[100];
    for (int i = 0; i < 100; i++) y[i] = i;
    dag_setup(NULL);
    dag_wait(dag_spawn(DAG_LAUNCH(twice, 100), InOut(y, 100)));
    dag_shutdown();
    printf("y[99] = %.0f\n", y[99]);
    return 0;
}
C
cat > "$tmp/blas.c" <<'C'
#define DAG_IMPLEMENTATION
#include "lib/dag_blas.h"
#include <stdio.h>
int main(void) {
    static double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
    dag_setup(NULL);
    dag_wait(dag_spawn(DAG_LAUNCH(dag_dgemm, 4), Val(0), Val(0), Val(2), Val(2), Val(2), Val(1.0), In(a, 4), Val(2),
                       In(b, 4), Val(2), Val(0.0), InOut(c, 4), Val(2)));
    dag_shutdown();
    printf("c[3] = %.0f\n", c[3]);
    return 0;
}
C
cat > "$tmp/array.c" <<'C'
#define DAG_IMPLEMENTATION
#include "lib/dag_array.h"
#include <stdio.h>
int main(void) {
    dag_setup(NULL);
    dag_array *a = dag_array_fill(DAG_F64, 8, 8, dag_blocks(4, 4), 2.0);
    double s = 0;
    dag_result r = dag_array_sum(a, &s);
    dag_array_free(a);
    dag_shutdown();
    printf("sum = %.0f (%s)\n", s, dag_result_string(r));
    return 0;
}
C
# row NAME PROGRAM "FILES" "BUILD FLAGS" [EXPECTED OUTPUT]: the files alone build PROGRAM, and it runs
# (with no expected output: compiled only, for backends whose SDK or runtime a test cannot assume)
row() {
    local name=$1 prog=$2 files=$3 flags=$4 want=${5:-} d=$tmp/row_$1
    grep -qF "\`$files\`" "$root/README.md" || { echo "no row \`$files\`" > "$tmp/log"; fail "README's Which files to copy lists $files"; return; }
    rm -rf "$d"; mkdir -p "$d/lib"
    for f in $files; do cp -r "$root/${f%/}" "$d/lib/"; done
    cp "$tmp/$prog" "$d/"
    if [ -n "$want" ]; then
        step "Which files to copy, $name: $files build $prog and it runs" "$d" sh -ec "cc -std=c11 -O2 $prog $flags -o prog && ./prog" &&
            expect_output "$want" "$name: $prog prints its result"
    else
        step "Which files to copy, $name: $files compile $prog" "$d" sh -ec "cc -std=c11 -O2 -c $prog $flags -o prog.o"
    fi
    for f in $files; do   # each file but the one the program includes, missing
        case $f in dag_backends/) f=dag_backends/dag_hip.h;; esac
        grep -q "lib/$f\"" "$d/$prog" && continue
        mv "$d/lib/$f" "$d/lib/$f.away"
        if (cd "$d" && cc -std=c11 -c $prog $flags -o prog.o) > "$tmp/log" 2>&1; then fail "$name without $f: it built"
        elif grep -q "README: Which files to copy" "$tmp/log"; then ok "$name without $f: the #error names the files to copy"
        else fail "$name without $f: no #error naming the files"; fi
        mv "$d/lib/$f.away" "$d/lib/$f"
    done
}
row kernels kernels.c "dag.h dag_kernels.h" "-pthread" "y\[99\] = 198"
row blas blas.c "dag.h dag_kernels.h dag_blas.h" "-pthread" "c\[3\] = 4"
row arrays array.c "dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h" "-pthread -lm" "sum = 128 (ok)"
row opencl array.c "dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h dag_backends/" \
    "-DDAG_BACKEND_OPENCL -pthread -ldl -lm" "sum = 128 (ok)"
row hip array.c "dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h dag_backends/" "-DDAG_BACKEND_HIP"

# 4. make demo: every file lands where the program says
if step "make demo" "$root" "$MAKE" --no-print-directory demo B="$tmp/build"; then
    for f in demo/cholesky/cholesky.svg demo/cholesky/cholesky.dot demo/tiled_datadeps/tiled_trace.json \
             demo/tiled_datadeps/tiled_dag.dot demo/tiled_datadeps/tiled_gantt.svg; do
        if [ -s "$tmp/build/$f" ] && grep -q "$tmp/build/$f" "$tmp/log"; then ok "make demo wrote and named $f"
        else fail "make demo: $f missing or not named"; fi
    done
    if grep -q '>potrf<' "$tmp/build/demo/cholesky/cholesky.svg" && ! grep -q 'dag__' "$tmp/build/demo/cholesky/cholesky.svg"
    then ok "the Gantt chart names the user's operations"; else fail "the Gantt chart shows internal task names"; fi
fi

# 5. make install, then pkg-config and CMake
p=$tmp/prefix
if step "make install PREFIX=..." "$root" "$MAKE" --no-print-directory install PREFIX="$p"; then
    for f in include/dag.h include/dag_array.h include/dag_backends/dag_opencl.h lib/pkgconfig/dag.pc \
             lib/cmake/dag/dagConfig.cmake lib/cmake/dag/dagConfigVersion.cmake; do
        [ -e "$p/$f" ] || { echo "$p/$f missing" > "$tmp/log"; fail "make install: $f"; }
    done
    d=$tmp/pc; mkdir -p "$d"; cp "$root/examples/hello.c" "$d/"
    if have "$PKG_CONFIG"; then
        step "examples/hello.c through pkg-config" "$d" sh -ec \
            "cc -std=c11 -O2 hello.c \$(PKG_CONFIG_PATH=$p/lib/pkgconfig $PKG_CONFIG --cflags --libs dag) -o hello && ./hello" &&
            expect_output "answer 42" "the pkg-config build runs"
    else
        skip "examples/hello.c through pkg-config: $PKG_CONFIG not found (apt-get install pkg-config)"
    fi
    d=$tmp/cmake; mkdir -p "$d"; cp "$root/examples/hello.c" "$d/"
    cat > "$d/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(hello C)
find_package(dag 0.1 REQUIRED COMPONENTS OpenCL)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE dag::dag)
add_executable(hello_opencl hello.c)
target_link_libraries(hello_opencl PRIVATE dag::opencl)
set_target_properties(hello hello_opencl PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
CMAKE
    if have "$CMAKE"; then
        step "examples/hello.c through CMake (dag::dag and dag::opencl)" "$d" sh -ec \
            "$CMAKE -S . -B b -DCMAKE_PREFIX_PATH=$p && $CMAKE --build b && ./b/hello && ./b/hello_opencl" &&
            expect_output "answer 42" "the CMake builds run"
    else
        skip "examples/hello.c through CMake: $CMAKE not found (apt-get install cmake)"
    fi
fi

if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ $failed -eq 0 ]
