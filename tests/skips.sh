#!/usr/bin/env bash
# make test-skips: the skip paths of make test, checked by hiding one
# optional dependency at a time (a make variable naming a path that does
# not exist). A group must then print "skipped: ..." naming what is missing,
# count it in its results line and exit 0; with STRICT=1 it must fail.
#   tests/skips.sh BUILD_DIR   (each case builds in BUILD_DIR/CASE)
set -u
dir=$1
MAKE=${MAKE:-make}
CC_NAME=${CC:-cc}   # the C compiler the compile checks name
CC_NAME=${CC_NAME##*/}
none=/nonexistent/dag-test-hidden
passed=0 failed=0

# expect CASE STRICT WANT TARGET [VARIABLE=VALUE...]: make TARGET with the
# variables; WANT is the text the output must hold (the missing item)
expect() {
    local name=$1 strict=$2 want=$3; shift 3
    local b=$dir/$name out rc results
    out=$($MAKE --no-print-directory "$@" B="$b" STRICT="$strict" 2>&1); rc=$?
    results=$(cat "$b"/results-* 2>/dev/null | grep -v '^\[' | tail -n 1)
    local why=
    if [ "$strict" = 1 ]; then
        [ $rc -ne 0 ] || why="exit 0 under STRICT=1"
        printf '%s\n' "$out" | grep -q "FAIL (STRICT=1: a skip is a failure).*$want" || why="$why; no FAIL naming '$want'"
    else
        [ $rc -eq 0 ] || why="exit $rc"
        printf '%s\n' "$out" | grep -q "^ *skipped: .*$want" || why="$why; no 'skipped: ...$want'"
        printf '%s\n' "$results" | grep -Eq ' 0 failed, [1-9][0-9]* skipped(, [0-9]+ not applicable)?$' || why="$why; results '$results'"
    fi
    last_out=$out
    if [ -z "$why" ]; then echo "ok   $name (STRICT=$strict): $*"; passed=$((passed + 1))
    else echo "FAIL $name (STRICT=$strict): $*: ${why#; }"; printf '%s\n' "$out" | tail -n 15; failed=$((failed + 1)); fi
}

for strict in 0 1; do
    expect clang $strict "$none/clang" test-clang CLANG=$none/clang
    expect tsan $strict "$none/libclang_rt.tsan.a" test-tsan TSAN_RT=$none/libclang_rt.tsan.a
    expect helgrind $strict "$none/valgrind" test-helgrind VALGRIND=$none/valgrind
    expect opencl_pocl $strict "$none/pocl.icd" test-opencl POCL_ICD=$none/pocl.icd
    expect opencl_intel $strict "$none/intel/lib/libintelocl.so" test-opencl INTEL_OCL=$none/intel
    expect opencl_cuda $strict "$none/cuda/include/cuda_runtime_api.h" test-opencl CUDA=$none/cuda
    expect gpu $strict "$none/hipcc" test-gpu HIPCC=$none/hipcc
    expect gpu_spirv $strict "$none/llvm-spirv" test-gpu LLVM_SPIRV=$none/llvm-spirv
    expect mpi $strict "$none/mpicc" test-mpi MPICC=$none/mpicc
    # a skip inside a group that runs: the OpenBLAS build of test_array (one small suite for speed)
    expect gcc_openblas $strict "$none/lapacke.h" test-gcc SUITES=kernels LAPACKE_H=$none/lapacke.h
done
# the compile checks with every optional compiler and SDK hidden: what the
# C compiler alone can check passes, each other check is a named, counted skip
# (of the bench programs, only the two that need a hidden SDK: the others build as in the compile group)
expect compile 0 "backends ze with" check-compile CLANG=$none/clang CXX=$none/c++ NVCC=$none/nvcc HIPCC=$none/hipcc \
    LLVM_SPIRV=$none/llvm-spirv CUDA=$none/cuda ZE_H=$none/ze_api.h BENCH_PROGRAMS="gpu_chain gpu_array"
log=$(cat "$dir/compile/results-compile" 2>/dev/null)
# 22 skips: clang's implementation build, C++, the OpenCL C text, 9 backend sets with clang and the
# 5 that need CUDA or Level Zero with cc, CUDA, HIP and Level Zero kernels, and the two GPU benchmark
# programs (bench/gpu_chain.c, bench/gpu_array.c)
if [ "${log##*, }" = "22 skipped" ]; then echo "ok   compile: every hidden check counted ($log)"; passed=$((passed + 1))
else echo "FAIL compile: want 22 skipped, got '$log'"; failed=$((failed + 1)); fi
# each backend set names what it lacks, and only that
ze=$(printf '%s\n' "$last_out" | grep "^skipped: backends ze with $CC_NAME:")
cuda=$(printf '%s\n' "$last_out" | grep "^skipped: backends cuda with $CC_NAME:")
case $ze in *"libze-dev ($none/ze_api.h not found)"*) case $ze in *CUDA*) ze=;; esac;; *) ze=;; esac
case $cuda in *"the CUDA toolkit ($none/cuda/"*) case $cuda in *libze*) cuda=;; esac;; *) cuda=;; esac
if [ -n "$ze" ] && [ -n "$cuda" ]; then echo "ok   the Level Zero and CUDA skips each name what is missing"; passed=$((passed + 1))
else echo "FAIL the backend skips do not name what is missing:"; printf '%s\n' "$last_out" | grep "^skipped: backends"
    failed=$((failed + 1)); fi

# inside a test binary (tests/test.h): a skip fails under STRICT=1, a test not applicable to this build
# or run does not, and tests/run.sh counts the two apart
strict_case() {   # strict_case WHAT STRICT LINE WANT_RC WANT_SUMMARY
    local out rc
    out=$(STRICT=$2 bash "$(dirname "$0")/run.sh" probe -- printf '%s\n' "$3"); rc=$?
    if [ $rc -eq $4 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "$5" ]; then echo "ok   $1"; passed=$((passed + 1))
    else echo "FAIL $1: exit $rc, '$(printf '%s\n' "$out" | tail -n 1)'"; failed=$((failed + 1)); fi
}
strict_case "a binary's skip counts as skipped" 0 "3 passed, 0 failed, 1 skipped" 0 "probe: 3 passed, 0 failed, 1 skipped"
strict_case "a binary's skip is a failure under STRICT=1" 1 "3 passed, 0 failed, 1 skipped" 1 "probe: 3 passed, 1 failed"
strict_case "not applicable is counted apart under STRICT=1" 1 "3 passed, 0 failed, 2 not applicable" 0 \
    "probe: 3 passed, 0 failed, 2 not applicable"
strict_case "both, under STRICT=1" 1 "3 passed, 0 failed, 1 skipped, 2 not applicable" 1 \
    "probe: 3 passed, 1 failed, 2 not applicable"

echo "skips: $passed passed, $failed failed"
[ $failed -eq 0 ]
