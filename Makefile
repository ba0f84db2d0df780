# dag.h: build, test and benchmark.
#
#   make demo        build and run the examples (threads only, no extra packages),
#                    each in build/demo/NAME/, and list the files they wrote
#   make deps        install with apt (and pip) what the tests and benchmarks need
#   make test        everything this machine can run; a missing tool is a named,
#                    counted skip (STRICT=1: a failure); tests of hardware or
#                    backends a build or run has not are counted apart, as
#                    "not applicable" (STRICT=1 too: tests/test.h says which)
#   make install     PREFIX=...: the headers, dag.pc and a CMake package
#   make test-gpu    the device behaviour tests on CUDA, HIP, Level Zero and OpenCL
#   make bench       task overhead and METG side by side with libgomp, libomp, StarPU;
#                    devices; tiled Cholesky against OpenBLAS, libgomp and StarPU;
#                    pivoted LU against OpenBLAS's dgetrf (make bench-lu);
#                    over MPI against ScaLAPACK and StarPU-MPI (make bench-mpi);
#                    the pivoted LU over MPI against ScaLAPACK's pdgetrf (make bench-lu-mpi);
#                    the BOTS programs against libgomp, libomp and TBB (make bench-bots)
#   make bench-table the db-benchmark groupby and join questions (bench/table/) against
#                    DuckDB, polars and pandas (make deps); N=1e6 for a shorter run
#   make fuzz        the differential tester with many more seeds
#   make clean

CC      ?= cc
CLANG   ?= clang
CXX     ?= c++
CLANGXX ?= clang++
PYTHON  ?= python3
STRICT  ?= 0
export STRICT   # tests/run.sh reads it: with STRICT=1 a test binary's skips are failures
# Optional dependencies, each a variable so that a test can hide it (a path
# that does not exist): make test-skips does, to check the skip paths.
VALGRIND   ?= valgrind
CMAKE      ?= cmake
PKG_CONFIG ?= pkg-config
LAPACKE_H  ?= /usr/include/lapacke.h
OPENBLAS   ?= $(or $(firstword $(wildcard /usr/lib/*/libopenblas.so /usr/lib64/libopenblas.so /usr/lib/libopenblas.so)),libopenblas.so)
OPENCL_LOADER ?= $(or $(firstword $(wildcard /usr/lib/*/libOpenCL.so.1 /usr/lib64/libOpenCL.so.1 /usr/lib/libOpenCL.so.1)),libOpenCL.so.1)
POCL_ICD   ?= /etc/OpenCL/vendors/pocl.icd
ZE_H       ?= /usr/include/level_zero/ze_api.h
INTEL_OCL  ?= .deps/intel-opencl
# DuckDB, polars and pandas for bench/table (the db-benchmark peers), in a virtual environment of their own
TABLE_PEERS ?= .deps/table-peers
# clang's ThreadSanitizer runtime (Debian: libclang-rt-14-dev), found when the recipe runs
TSAN_RT    ?= $$($(CLANG) -print-file-name=libclang_rt.tsan-$$(uname -m).a 2>/dev/null || echo libclang_rt.tsan)
B       := build
WARN    := -std=c11 -pedantic -Wall -Wextra -Werror
HEADERS := dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h dag_table.h $(wildcard dag_backends/*.h) tests/test.h
# GPU toolchains: the CUDA toolkit (static runtime), hipcc, clang + llvm-spirv
CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
HIPCC     ?= hipcc
LLVM_SPIRV ?= llvm-spirv-14
LLVM_EXTRACT ?= llvm-extract-14
SPIRV_VAL ?= spirv-val
# the GPU architectures kernels are built for (override: make CUDA_ARCHS=... HIP_ARCHS=...);
# PTX for compute_90 rides along, so a newer NVIDIA GPU JIT-compiles it instead of
# failing with cudaErrorNoKernelImageForDevice
CUDA_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
HIP_ARCHS  ?= --offload-arch=gfx90a --offload-arch=gfx1030
# nvcc's host code needs no C++ runtime this way, so a C link works
NVCC_HOST  := -Xcompiler -Wall,-Wextra,-Werror,-fno-exceptions,-fno-threadsafe-statics
CUDA_CFLAGS := -I$(CUDA)/include
CUDA_LIBS   := -L$(CUDA)/lib64 -lcudart_static -lrt
CUDA_FILES  := $(CUDA)/include/cuda_runtime_api.h $(CUDA)/lib64/libcudart_static.a
# The device backends, each by the word DAG_DEVICES takes (its row in dag.h's
# list): the flags that compile it in (_FLAGS), what a program built with it
# links besides -ldl (_LIBS), and the files building with it needs and the
# package that has them (_NEEDS, _HOW; a combination that misses one is a
# named skip). The combinations and the binaries with every backend are made
# from these.
BACKENDS := opencl cuda hip ze
opencl_FLAGS := -DDAG_BACKEND_OPENCL
cuda_FLAGS   := -DDAG_BACKEND_CUDA $(CUDA_CFLAGS)
cuda_LIBS    := $(CUDA_LIBS)
cuda_NEEDS   := $(CUDA_FILES)
cuda_HOW     := the CUDA toolkit
hip_FLAGS    := -DDAG_BACKEND_HIP
ze_FLAGS     := -DDAG_BACKEND_LEVEL_ZERO
ze_NEEDS     := $(ZE_H)
ze_HOW       := libze-dev
ALL_BACKENDS := $(foreach b,$(BACKENDS),$($(b)_FLAGS))
ALL_BACKEND_LIBS := $(foreach b,$(BACKENDS),$($(b)_LIBS)) -ldl
# the backend combinations CI builds: threads, each alone, OpenCL with each other, all
COMBOS := threads $(BACKENDS) $(addprefix opencl+,$(filter-out opencl,$(BACKENDS))) all
combo_backends = $(if $(filter all,$(1)),$(BACKENDS),$(filter $(BACKENDS),$(subst +, ,$(1))))
combo_flags = $(foreach b,$(call combo_backends,$(1)),$($(b)_FLAGS))
combo_libs = $(foreach b,$(call combo_backends,$(1)),$($(b)_LIBS)) -ldl
# What a combination needs to build and finds missing, said in words (shell
# text, empty when nothing is): the first file missing of each backend's _NEEDS
combo_needs = $(foreach b,$(call combo_backends,$(1)),$(if $($(b)_NEEDS),for f in $($(b)_NEEDS); do \
    [ -e $$f ] || { printf ' %s (%s not found)' "$($(b)_HOW)" $$f; break; }; done;))
combo_missing = $(if $(strip $(call combo_needs,$(1))),$$($(call combo_needs,$(1))))
SUITES  := behaviour errors stress fuzz kernels array array_ops array_complex array_dagger waits policy table
EXAMPLES := hello tiled_datadeps sequential_bulk cholesky tables
# sanitizer builds run the same suites at a smaller size
SAN_ENV := DAG_TEST_SCALE=0.05 FUZZ_SEEDS=1000

.PHONY: all demo deps test bench fuzz clean install check-compile test-gcc test-clang test-asan test-tsan test-helgrind test-cxx \
        test-opencl test-gpu test-skips test-walkthrough test-fresh test-clang-run test-tsan-run test-helgrind-run test-opencl-run \
        test-gpu-run test-mpi test-mpi-run test-bots test-bots-run bench-opencl bench-gpu bench-cholesky bench-lu bench-mpi \
        bench-lu-mpi bench-ranks bench-hop bench-table bench-bots

all: $(SUITES:%=$(B)/gcc/test_%) $(EXAMPLES:%=$(B)/examples/%)

# ---- examples ---------------------------------------------------------------
$(B)/examples/%: examples/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -I. $< -o $@ -pthread -lm

# Each example runs in a folder of its own, build/demo/NAME/, and writes its
# files there; the lines after it say where they went.
demo: $(EXAMPLES:%=$(B)/examples/%)
	@for e in $(EXAMPLES); do echo "== examples/$$e.c, run in $(B)/demo/$$e/"; rm -rf $(B)/demo/$$e; \
	  mkdir -p $(B)/demo/$$e && (cd $(B)/demo/$$e && ../../examples/$$e) || exit 1; \
	  for f in $(B)/demo/$$e/*; do [ -e "$$f" ] && echo "   -> $(abspath $(B))/demo/$$e/$${f##*/}"; done; done; true

# ---- test builds ------------------------------------------------------------
$(B)/gcc/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -I. -Itests $< -o $@ -pthread -lm

$(B)/clang/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O2 -g -I. -Itests $< -o $@ -pthread -lm

$(B)/asan/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer \
	    -I. -Itests $< -o $@ -pthread -lm

# ThreadSanitizer crashes on glibc's thrd_create: the pthreads mapping.
$(B)/tsan/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O1 -g -fsanitize=thread -DDAG_USE_PTHREADS -I. -Itests $< -o $@ -pthread -lm

# helgrind runs the C11 <threads.h> build; it cannot see C11 atomics, so the
# build tells it about the happens-before edges (DAG_HELGRIND).
$(B)/helgrind/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -DDAG_HELGRIND -I. -Itests $< -o $@ -pthread -lm

# ---- compile checks ---------------------------------------------------------
# Backend flags spelled as people guess them (the enum's name, DAG_USE_X, lower
# case...), each =the flag dag.h's #error must name instead
GUESSED_FLAGS := DAG_OPENCL=DAG_BACKEND_OPENCL DAG_USE_OPENCL=DAG_BACKEND_OPENCL dag_backend_opencl=DAG_BACKEND_OPENCL \
    DAG_BACKEND_opencl=DAG_BACKEND_OPENCL DAG_CUDA=DAG_BACKEND_CUDA DAG_USE_CUDA=DAG_BACKEND_CUDA \
    dag_backend_cuda=DAG_BACKEND_CUDA DAG_HIP=DAG_BACKEND_HIP DAG_USE_HIP=DAG_BACKEND_HIP dag_backend_hip=DAG_BACKEND_HIP \
    DAG_LEVEL_ZERO=DAG_BACKEND_LEVEL_ZERO DAG_USE_LEVEL_ZERO=DAG_BACKEND_LEVEL_ZERO DAG_BACKEND_ZE=DAG_BACKEND_LEVEL_ZERO \
    dag_backend_level_zero=DAG_BACKEND_LEVEL_ZERO DAG_MPI=DAG_BACKEND_MPI DAG_USE_MPI=DAG_BACKEND_MPI
# Every program of bench/ is built here too, so that none rots unseen: bench/X.c is $(B)/bench/X (and
# omp_tasks.c two of them, for libgomp and libomp; a new one needs its rule below). What each needs
# besides the C compiler: tools on PATH (bench_tools_X, checked when the recipe runs) and, said in
# words when missing, libraries (bench_files_X).
BENCH_PROGRAMS := $(sort $(filter-out omp_tasks,$(basename $(notdir $(wildcard bench/*.c))))) omp_tasks_gomp omp_tasks_libomp
have_pc = $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo yes)
bench_no_cblas = $(if $(HAVE_CBLAS),, $(LAPACKE_H) and $(OPENBLAS) (apt-get install liblapacke-dev libopenblas-dev))
bench_no_starpu = $(if $(call have_pc,$(BENCH_STARPU_PC)),, $(BENCH_STARPU_PC) (apt-get install libstarpu-dev))
bench_tools_omp_tasks_gomp = $(BENCH_GCC)
bench_tools_omp_tasks_libomp = $(BENCH_OMP_CLANG)
bench_files_omp_tasks_libomp = $(if $(wildcard $(BENCH_LLVM_LIBDIR)/libomp.so.5),, $(BENCH_LLVM_LIBDIR)/libomp.so.5 (apt-get install libomp-14-dev))
bench_files_starpu_tasks = $(bench_no_starpu)
bench_files_cholesky = $(bench_no_cblas)
bench_tools_cholesky_omp = gcc
bench_files_cholesky_omp = $(bench_no_cblas)
bench_tools_cholesky_starpu = gcc
bench_files_cholesky_starpu = $(bench_no_cblas)$(bench_no_starpu)
bench_tools_cholesky_mpi = $(MPICC)
bench_files_cholesky_mpi = $(bench_no_cblas)
bench_tools_cholesky_ranks = $(MPICC)
bench_tools_mpi_hop = $(MPICC)
bench_files_cholesky_scalapack = $(if $(BENCH_HAVE_SCALAPACK),, Open MPI, ScaLAPACK, OpenBLAS and LAPACKE ($(BENCH_MPI_HINT) libscalapack-openmpi-dev))
bench_tools_lu_mpi = $(MPICC)
bench_files_lu_mpi = $(bench_no_cblas)
bench_files_lu_scalapack = $(bench_files_cholesky_scalapack)
bench_files_cholesky_starpu_mpi = $(if $(BENCH_HAVE_STARPUMPI),, Open MPI, StarPU-MPI, OpenBLAS and LAPACKE ($(BENCH_MPI_HINT) libstarpu-dev))
bench_tools_gpu_chain = $(NVCC) $(HIPCC) $(CLANG) $(LLVM_SPIRV) $(LLVM_EXTRACT) $(SPIRV_VAL) $(PYTHON)
bench_files_gpu_chain = $(if $(wildcard $(ZE_H)),, $(ZE_H) (apt-get install libze-dev))
bench_tools_gpu_array = $(NVCC)
bench_files_gpu_array = $(if $(wildcard $(CUDA)/include/cusolverDn.h $(CUDA)/lib64/libcusolver.so),, cuBLAS and cuSOLVER in $(CUDA) (the CUDA toolkit))
# what each backend's build of tests/gpu/kernels.h needs (the prebuild below and its check)
CUDA_KERNEL_TOOLS = $(NVCC)
HIP_KERNEL_TOOLS = $(HIPCC) $(PYTHON)
ZE_KERNEL_TOOLS = $(CLANG) $(LLVM_SPIRV) $(LLVM_EXTRACT) $(SPIRV_VAL) $(PYTHON)
# A check whose compiler or SDK is missing is skipped, named and counted
# (a failure with STRICT=1). The GPU kernels and the bench programs build in
# the background (one make, on the cores make test gives it) while the checks
# before them run; their own checks then find them built, or build them again
# and show why not.
check-compile: $(HEADERS) tools/gen_macros.py tests/test_kernels.c tests/compile/misuse.c tests/compile/impl.c tests/compile/public.cc tests/compile/cxx_warnings.cc tests/compile/public.cu tests/compile/two_units_a.c tests/compile/two_units_b.c tests/compile/hip_abi.c tests/compile/backend_flags.c tests/compile/data_cap.c tests/test_no_threads.c
	@mkdir -p $(B)/compile
	@ok=0; bad=0; sk=0; \
	run() { if "$$@" >$(B)/compile/log 2>&1; then ok=$$((ok+1)); echo "ok   $$*"; \
	        else bad=$$((bad+1)); echo "FAIL $$*"; cat $(B)/compile/log; fi; }; \
	skip() { if [ "$(STRICT)" = 1 ]; then bad=$$((bad+1)); echo "FAIL (STRICT=1: a skip is a failure): $$*"; \
	         else sk=$$((sk+1)); echo "skipped: $$*"; fi; }; \
	missing() { for t in "$$@"; do command -v $$t >/dev/null 2>&1 || printf ' %s' $$t; done; }; \
	expect_error() { msg=$$1; shift; if "$$@" >$(B)/compile/log 2>&1; then bad=$$((bad+1)); echo "FAIL (built) $$*"; \
	  elif grep -q "$$msg" $(B)/compile/log; then ok=$$((ok+1)); echo "ok   (refused: $$msg) $$*"; \
	  else bad=$$((bad+1)); echo "FAIL (no '$$msg') $$*"; cat $(B)/compile/log; fi; }; \
	pre=; [ -n "$$(missing $(CUDA_KERNEL_TOOLS))" ] || pre="$$pre $(B)/gpu/kernels_cuda.o"; \
	[ -n "$$(missing $(HIP_KERNEL_TOOLS))" ] || pre="$$pre $(B)/gpu/kernels_hip.c"; \
	[ -n "$$(missing $(ZE_KERNEL_TOOLS))" ] || pre="$$pre $(B)/gpu/kernels_ze.c"; \
	$(foreach p,$(BENCH_PROGRAMS),[ -n "$$(missing $(bench_tools_$(p)))$(bench_files_$(p))" ] || pre="$$pre $(B)/bench/$(p)";) \
	$(MAKE) --no-print-directory -k $$pre $(B)/table/table_bench $(B)/table/datagen > $(B)/compile/prebuild.log 2>&1 & \
	prebuild=$$!; \
	run $(CC) $(WARN) -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc.o; \
	run $(CC) $(WARN) -DDAG_USE_PTHREADS -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc_pthreads.o; \
	run $(CC) $(WARN) -DNDEBUG -O2 -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc_ndebug.o; \
	run $(CC) $(WARN) -DNDEBUG -O2 -I. -Itests tests/test_errors.c -o $(B)/compile/test_errors_ndebug -pthread -lm; \
	run ./$(B)/compile/test_errors_ndebug; \
	run $(CC) $(WARN) -O1 -g -fsanitize=address,undefined -DDAG_USE_PTHREADS -I. -Itests tests/test_no_threads.c \
	    -o $(B)/compile/test_no_threads -Wl,--wrap=pthread_create -pthread -lm; \
	run ./$(B)/compile/test_no_threads; \
	run $(CC) $(WARN) -DDAG_USE_PTHREADS -fsanitize=thread -O1 -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc_tsan.o; \
	run $(CC) $(WARN) -O3 -I. -Itests -c tests/test_behaviour.c -o $(B)/compile/behaviour_o3.o; \
	run $(CC) $(WARN) -O3 -I. -Itests -c tests/test_waits.c -o $(B)/compile/waits_o3.o; \
	if [ -z "$$(missing $(CLANG) $(CLANGXX))" ]; then \
	  run $(CLANG) $(WARN) -I. -c tests/compile/impl.c -o $(B)/compile/impl_clang.o; \
	  run $(CLANG) $(WARN) -DDAG_USE_PTHREADS -I. -c tests/compile/impl.c -o $(B)/compile/impl_clang_pthreads.o; \
	  run $(CLANGXX) $(CXX_WARN) -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/impl_clangxx.o; \
	else skip "the implementation with clang:$$(missing $(CLANG) $(CLANGXX)) not found (apt-get install clang)"; fi; \
	run $(CC) $(WARN) -DNO_MAIN -I. -c tests/compile/impl.c -o $(B)/compile/impl_lib.o; \
	if [ -z "$$(missing $(CXX))" ]; then \
	  run $(CXX) -std=c++17 -Wall -Wextra -Werror -I. tests/compile/public.cc $(B)/compile/impl_lib.o -o $(B)/compile/public_cxx -pthread; \
	  run ./$(B)/compile/public_cxx; \
	  run $(CXX) $(CXX_STRICT_WARN) -I. tests/compile/cxx_warnings.cc $(B)/compile/impl_lib.o -o $(B)/compile/cxx_warnings -pthread; \
	  run ./$(B)/compile/cxx_warnings; \
	  if [ -z "$$(missing $(CLANGXX))" ]; then run $(CLANGXX) $(CXX_STRICT_WARN) -I. -fsyntax-only tests/compile/cxx_warnings.cc; fi; \
	  run $(CXX) $(CXX_WARN) -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/impl_cxx.o; \
	  run $(CXX) $(CXX_WARN) -DDAG_USE_PTHREADS -DNDEBUG -O2 -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/impl_cxx_ndebug.o; \
	  expect_error "needs C++17" $(CXX) -std=c++14 -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	  expect_error "the device backends are C11" $(CXX) -std=c++17 -DDAG_BACKEND_OPENCL -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	  expect_error "the rank layer (-DDAG_BACKEND_MPI) is C11" $(CXX) -std=c++17 -DDAG_BACKEND_MPI -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	  for e in $(filter-out tables,$(EXAMPLES)); do rm -rf $(B)/compile/cxx_$$e; mkdir -p $(B)/compile/cxx_$$e; \
	    run $(CXX) $(CXX_WARN) -O1 -I. -x c++ examples/$$e.c -o $(B)/compile/cxx_$$e/$$e -pthread -lm && \
	    run sh -c "cd $(B)/compile/cxx_$$e && ./$$e"; done; \
	  expect_error "Val of an array or a string" $(CXX) -std=c++17 -I. -x c++ -DCASE=1 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "In, Out and InOut of a pointer take a count" $(CXX) -std=c++17 -I. -x c++ -DCASE=2 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "DAG_BACKEND_CUDA_is_a_build_flag" $(CXX) -std=c++17 -I. -x c++ -DCASE=3 -DDAG_BACKEND_CUDA -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "a bare value is none of them" $(CXX) -std=c++17 -I. -x c++ -DCASE=4 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "must be trivially copyable" $(CXX) -std=c++17 -I. -x c++ -DCASE=5 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "another class it does not derive from" $(CXX) -std=c++17 -I. -x c++ -DCASE=6 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "take its elements and their count" $(CXX) -std=c++17 -I. -x c++ -DCASE=7 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	  expect_error "Val of a temporary of more than 16 bytes, kept in a dag_arg" $(CXX) -std=c++17 -I. -x c++ -DCASE=8 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	else skip "the public part as C++17: $(CXX) not found (apt-get install g++)"; fi; \
	run $(CC) $(WARN) -I. -DCASE=0 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	if [ -z "$$(missing $(PYTHON))" ]; then run $(PYTHON) tools/gen_macros.py --check dag.h; run $(PYTHON) tools/check_layers.py; \
	else skip "dag.h's generated tables against tools/gen_macros.py and the layer check: $(PYTHON) not found"; fi; \
	expect_error "Val of an array or a string" $(CC) $(WARN) -I. -DCASE=1 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	expect_error "In, Out and InOut of a pointer take a count" $(CC) $(WARN) -I. -DCASE=2 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	expect_error "DAG_BACKEND_CUDA_is_a_build_flag" $(CC) $(WARN) -I. -DCASE=3 -DDAG_BACKEND_CUDA -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	expect_error "dag_spawn_argument_must_be_Val_In_Out_InOut_or_Fut" $(CC) $(WARN) -I. -DCASE=4 -c tests/compile/misuse.c -o $(B)/compile/x.o; \
	run $(CC) $(WARN) -I. tests/compile/data_cap.c -o $(B)/compile/data_cap -pthread -lm; run ./$(B)/compile/data_cap; \
	run $(CC) $(WARN) -I. tests/compile/two_units_a.c tests/compile/two_units_b.c -o $(B)/compile/two_units -pthread -lm; \
	run ./$(B)/compile/two_units; \
	run $(CC) $(WARN) -O1 -I. -Itests tests/test_kernels.c -o $(B)/compile/test_kernels -pthread; \
	rm -rf $(B)/compile/cl; mkdir -p $(B)/compile/cl; run ./$(B)/compile/test_kernels --write-cl $(B)/compile/cl; \
	if [ -z "$$(missing $(CLANG))" ]; then for f in $(B)/compile/cl/*.cl; do \
	  run $(CLANG) -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Werror $$f; done; \
	else skip "the kernels' OpenCL C text: $(CLANG) not found (apt-get install clang)"; fi; \
	$(foreach c,$(COMBOS),$(foreach cc,$(CC) $(CLANG),\
	  miss="$$(missing $(cc))"; miss="$${miss:+ $(cc) not found;}$(call combo_missing,$(c))"; miss="$${miss%;}"; \
	  if [ -n "$$miss" ]; then skip "backends $(c) with $(cc):$$miss"; \
	  else run $(cc) $(WARN) -I. $(call combo_flags,$(c)) tests/compile/impl.c -o $(B)/compile/impl_$(subst +,_,$(c))_$(notdir $(cc)) \
	         -pthread $(call combo_libs,$(c)); fi;)) \
	run $(CC) $(WARN) -I. tests/compile/backend_flags.c -o $(B)/compile/backend_flags -pthread -ldl; run ./$(B)/compile/backend_flags; \
	expect_error "use -DDAG_BACKEND_CUDA instead" $(CC) $(WARN) -I. -DDAG_BACKEND_HIP -D__HIP_PLATFORM_NVIDIA__ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	for g in $(GUESSED_FLAGS); do expect_error "is -D$${g#*=} (flags are" \
	  $(CC) $(WARN) -I. -D$${g%=*} -c tests/compile/impl.c -o $(B)/compile/x.o; done; \
	if [ -f /usr/include/hip/hip_runtime_api.h ]; then \
	  run $(CC) $(WARN) -I. tests/compile/hip_abi.c -o $(B)/compile/hip_abi -pthread -ldl; run ./$(B)/compile/hip_abi; \
	else skip "dag_hip.h's types against HIP's header: no /usr/include/hip/hip_runtime_api.h (apt-get install libamdhip64-dev)"; fi; \
	wait $$prebuild; \
	if [ -z "$$(missing $(CUDA_KERNEL_TOOLS))" ]; then \
	  run $(NVCC) -std=c++17 $(CUDA_ARCHS) $(NVCC_HOST) -I. -c tests/compile/public.cu -o $(B)/compile/public_nvcc.o; \
	  run $(MAKE) --no-print-directory $(B)/gpu/kernels_cuda.o; \
	else skip "CUDA kernels: nvcc not found at $(NVCC) (the CUDA toolkit)"; fi; \
	miss="$$(missing $(HIP_KERNEL_TOOLS))"; \
	if [ -z "$$miss" ]; then run $(MAKE) --no-print-directory $(B)/gpu/kernels_hip.c; \
	else skip "HIP kernels: not found:$$miss (apt-get install hipcc libamdhip64-dev python3)"; fi; \
	miss="$$(missing $(ZE_KERNEL_TOOLS))"; \
	if [ -z "$$miss" ]; then run $(MAKE) --no-print-directory $(B)/gpu/kernels_ze.c; \
	else skip "Level Zero kernels (SPIR-V): not found:$$miss (apt-get install clang llvm-14 llvm-spirv-14 spirv-tools python3)"; fi; \
	$(foreach p,$(BENCH_PROGRAMS),miss="$$(missing $(bench_tools_$(p)))$(bench_files_$(p))"; \
	  if [ -z "$$miss" ]; then run $(MAKE) --no-print-directory $(B)/bench/$(p); \
	  else skip "bench program $(p): not found:$$miss"; fi;) \
	run $(MAKE) --no-print-directory $(B)/table/table_bench $(B)/table/datagen; \
	echo "compile: $$ok passed, $$bad failed$$([ $$sk = 0 ] || echo ", $$sk skipped")" | tee $(B)/results-compile; [ $$bad = 0 ]

# ---- GPU kernels: tests/gpu/kernels.h built ahead of time for each backend --
$(B)/gpu/kernels_cuda.o: tests/gpu/kernels.cu tests/gpu/kernels.h dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h
	@mkdir -p $(@D)
	$(NVCC) -DDAG_BACKEND_CUDA $(CUDA_ARCHS) $(NVCC_HOST) -I. -Itests/gpu -c $< -o $@

$(B)/gpu/kernels.hipfb: tests/gpu/kernels.h dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h
	@mkdir -p $(@D)
	$(HIPCC) --genco $(HIP_ARCHS) -x hip -Wall -Wextra -Werror -I. $< -o $@

# -O0: llvm-spirv 14 cannot translate the `freeze` the optimiser adds; the driver optimises anyway
$(B)/gpu/kernels.spv: tests/gpu/kernels.h dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h
	@mkdir -p $(@D)
	$(CLANG) -x cl -cl-std=CL2.0 -target spir64 -O0 -emit-llvm -c -Xclang -finclude-default-header -Werror -I. $< -o $@.bc
	$(LLVM_SPIRV) $@.bc -o $@
	$(SPIRV_VAL) $@

$(B)/gpu/kernels_hip.c: $(B)/gpu/kernels.hipfb tools/dag_embed.py
	$(PYTHON) tools/dag_embed.py --hip --cc $(CC) tests/gpu/kernels.h $< -o $@

# one SPIR-V module per kernel, from the bitcode: only those that use double declare Float64
$(B)/gpu/kernels_ze.c: $(B)/gpu/kernels.spv tools/dag_embed.py
	$(PYTHON) tools/dag_embed.py --level-zero --cc $(CC) --llvm-spirv $(LLVM_SPIRV) --llvm-extract $(LLVM_EXTRACT) \
	    tests/gpu/kernels.h $<.bc -o $@

GPU_KERNELS := $(B)/gpu/kernels_cuda.o $(B)/gpu/kernels_hip.c $(B)/gpu/kernels_ze.c

# ---- test runs --------------------------------------------------------------
define run_suites
	@mkdir -p $(B)
	@bash tests/run.sh $(1) $(2) -- $(foreach s,$(SUITES),./$(B)/$(1)/test_$(s) ";") $(3) | tee $(B)/results-$(1).log; \
	 tail -n 1 $(B)/results-$(1).log > $(B)/results-$(1); grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-$(1)
endef

# $(call need,GROUP,TOOLS,FILES,HOW TO GET THEM): opens a group's recipe line.
# A tool in TOOLS that is not found (on PATH, or at its path) or a file in
# FILES that does not exist ends the group there, as one skip that names
# them and counts in make test's last line (a failure with STRICT=1); the
# rest of the line, where the group runs, follows it.
need = mkdir -p $(B); miss=; for t in $(2); do command -v $$t >/dev/null 2>&1 || miss="$$miss $$t"; done; \
  for f in $(3); do [ -e "$$f" ] || miss="$$miss $$f"; done; \
  if [ -n "$$miss" ]; then bash tests/run.sh $(1) -- bash tests/skip.sh "$(STRICT)" "$(1): not found:$$miss ($(4))" \
    | tee $(B)/results-$(1).log; tail -n 1 $(B)/results-$(1).log > $(B)/results-$(1); [ "$(STRICT)" != 1 ]; exit $$?; fi;

# dag_array.h's suites once more with its tiles on OpenBLAS and LAPACKE (-DDAG_ARRAY_CBLAS)
CBLAS_SUITES := array array_ops array_complex array_dagger
$(CBLAS_SUITES:%=$(B)/gcc/test_%_cblas): $(B)/gcc/test_%_cblas: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DDAG_ARRAY_CBLAS -I. -Itests $< -o $@ -pthread -lm -llapacke -lopenblas

# (the OpenBLAS build is a skip of its own where LAPACKE or OpenBLAS is missing)
HAVE_CBLAS = $(and $(wildcard $(LAPACKE_H)),$(wildcard $(OPENBLAS)))
# The suites of spawns and waits once more without the spawn front (dag.h's dag__spawn_front): every
# spawn through dag_spawn_desc, as -O0 builds and other compilers make them.
NOFRONT_SUITES := behaviour errors waits
$(NOFRONT_SUITES:%=$(B)/gcc/test_%_nofront): $(B)/gcc/test_%_nofront: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DDAG_NO_SPAWN_FRONT -I. -Itests $< -o $@ -pthread -lm

test-gcc: $(SUITES:%=$(B)/gcc/test_%) $(NOFRONT_SUITES:%=$(B)/gcc/test_%_nofront) $(if $(HAVE_CBLAS),$(CBLAS_SUITES:%=$(B)/gcc/test_%_cblas))
	$(call run_suites,gcc,FUZZ_SEEDS=3000,$(foreach s,$(NOFRONT_SUITES),./$(B)/gcc/test_$(s)_nofront ";") \
	  $(if $(HAVE_CBLAS),$(foreach s,$(CBLAS_SUITES),./$(B)/gcc/test_$(s)_cblas ";"),\
	  bash tests/skip.sh "$(STRICT)" "test_array on OpenBLAS: not found:$(if $(wildcard $(LAPACKE_H)),, $(LAPACKE_H))$(if \
	  $(wildcard $(OPENBLAS)),, $(OPENBLAS)) (apt-get install liblapacke-dev libopenblas-dev)"))

test-asan: $(SUITES:%=$(B)/asan/test_%)
	$(call run_suites,asan,$(SAN_ENV) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1)

test-clang:
	@$(call need,clang,$(CLANG),,apt-get install clang) $(MAKE) --no-print-directory test-clang-run
test-clang-run: $(SUITES:%=$(B)/clang/test_%)
	$(call run_suites,clang,FUZZ_SEEDS=3000)

# The implementation compiled as C++17 (g++ and clang++), with suites
# written in the C both languages share. g++ warns about the fields a
# designated initializer leaves out, which C and clang++ do not.
CXX_WARN := -std=c++17 -Wall -Wextra -Werror
# what a strict C++ program adds (tests/compile/cxx_warnings.cc): dag.h's macros must not trip it
CXX_STRICT_WARN := -std=c++17 -pedantic -Wall -Wextra -Werror -Wno-missing-field-initializers -Wold-style-cast \
    -Wzero-as-null-pointer-constant
CXX_SUITES := behaviour cxx
# one recipe per compiler for both sources: a .c suite is read as C++ (-x c++)
CXX_GXX   = @mkdir -p $(@D); $(CXX) $(CXX_WARN) -Wno-missing-field-initializers $(1) -I. -Itests \
            $(if $(filter %.c,$<),-x c++) $< -o $@ -pthread -lm
CXX_CLANG = @mkdir -p $(@D); $(CLANGXX) $(CXX_WARN) -O2 -g -I. -Itests $(if $(filter %.c,$<),-x c++) $< -o $@ -pthread -lm
$(B)/cxx/test_%: tests/test_%.c $(HEADERS)
	$(call CXX_GXX,-O2 -g)
$(B)/cxx/test_%: tests/test_%.cc $(HEADERS)
	$(call CXX_GXX,-O2 -g)
$(B)/clangxx/test_%: tests/test_%.c $(HEADERS)
	$(CXX_CLANG)
$(B)/clangxx/test_%: tests/test_%.cc $(HEADERS)
	$(CXX_CLANG)
# tests/test_cxx.cc: what C++ alone has (exceptions through blocks, Val converted as a C++
# call converts), also under ASan and UBSan: the exception test is a use after free without its fix
$(B)/cxx-asan/test_%: tests/test_%.cc $(HEADERS)
	$(call CXX_GXX,-O1 -g -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer)
test-cxx:
	@$(call need,cxx,$(CXX) $(CLANGXX),,apt-get install g++ clang) $(MAKE) --no-print-directory test-cxx-run
test-cxx-run: $(CXX_SUITES:%=$(B)/cxx/test_%) $(CXX_SUITES:%=$(B)/clangxx/test_%) $(B)/cxx-asan/test_cxx
	@bash tests/run.sh cxx -- $(foreach s,$(CXX_SUITES),./$(B)/cxx/test_$(s) ";" ./$(B)/clangxx/test_$(s) ";") \
	    ./$(B)/cxx-asan/test_cxx ";" \
	    | tee $(B)/results-cxx.log; tail -n 1 $(B)/results-cxx.log > $(B)/results-cxx; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-cxx

test-tsan:
	@$(call need,tsan,$(CLANG),$(TSAN_RT),apt-get install clang libclang-rt-14-dev) $(MAKE) --no-print-directory test-tsan-run
test-tsan-run: $(SUITES:%=$(B)/tsan/test_%)
	$(call run_suites,tsan,$(SAN_ENV) TSAN_OPTIONS=halt_on_error=1)

test-helgrind:
	@$(call need,helgrind,$(VALGRIND),,apt-get install valgrind) $(MAKE) --no-print-directory test-helgrind-run
HELGRIND := --tool=helgrind --error-exitcode=9 -q --suppressions=tests/helgrind.supp
test-helgrind-run: $(B)/helgrind/test_errors $(B)/helgrind/test_fuzz
	@bash tests/run.sh helgrind DAG_TEST_SCALE=0.05 -- \
	    $(VALGRIND) $(HELGRIND) ./$(B)/helgrind/test_errors ";" \
	    $(VALGRIND) $(HELGRIND) ./$(B)/helgrind/test_fuzz 40 \
	    | tee $(B)/results-helgrind.log; tail -n 1 $(B)/results-helgrind.log > $(B)/results-helgrind; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-helgrind

# The device suites from binaries built with every backend (ASan, UBSan):
# OpenCL on PoCL (three CPU devices), and with no OpenCL platform at all;
# then every core suite on a machine where that binary finds no device (it
# must start and work on the CPU; CUDA, HIP and Level Zero report why not).
ALLB_CC = $(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined $(ALL_BACKENDS) -I. -Itests
$(B)/allb/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(ALLB_CC) $< -o $@ -pthread $(ALL_BACKEND_LIBS) -lm

# the device layer's own threads under ThreadSanitizer too (PoCL's are not instrumented)
$(B)/opencl_tsan/test_opencl: tests/test_opencl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O1 -g -fsanitize=thread -DDAG_USE_PTHREADS -DDAG_BACKEND_OPENCL -I. -Itests $< -o $@ -pthread -ldl

POCL_ENV = POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp
# A second OpenCL implementation: Intel's CPU runtime (from PyPI, by make
# deps), beside PoCL's three devices: four devices on two platforms, and
# one that takes SPIR-V (it runs the Level Zero build of the kernels).
# (LeakSanitizer's exit-time scan can crash among an OpenCL runtime's
# threads: it did with Intel's, and once with PoCL's after test_array's
# several set-ups; those runs skip it, and the CPU builds check the same
# code for leaks)
INTEL_ENV = OCL_ICD_VENDORS=$(CURDIR)/$(B)/two_platforms LD_LIBRARY_PATH=$(abspath $(INTEL_OCL))/lib ASAN_OPTIONS=detect_leaks=0
# what the binaries built with every backend need: the OpenCL loader with
# PoCL, CUDA's headers and static runtime, Level Zero's headers, Intel's runtime
ALLB_FILES = $(OPENCL_LOADER) $(POCL_ICD) $(foreach b,$(BACKENDS),$($(b)_NEEDS)) $(INTEL_OCL)/lib/libintelocl.so
ALLB_HOW = apt-get install ocl-icd-libopencl1 pocl-opencl-icd libze-dev; the CUDA toolkit in $(CUDA); make deps for Intel's OpenCL runtime
two_platforms = mkdir -p $(B)/two_platforms; echo "$(abspath $(INTEL_OCL))/lib/libintelocl.so" > $(B)/two_platforms/intel.icd; \
  cp $(POCL_ICD) $(B)/two_platforms/

test-opencl:
	@$(call need,opencl,$(CLANG),$(ALLB_FILES) $(TSAN_RT),$(ALLB_HOW); clang libclang-rt-14-dev) $(MAKE) --no-print-directory test-opencl-run
test-opencl-run: $(B)/allb/test_opencl $(B)/opencl_tsan/test_opencl $(SUITES:%=$(B)/allb/test_%)
	@mkdir -p $(B)/no_opencl_vendors $(B)/pocl_cache; $(two_platforms)
	@bash tests/run.sh opencl $(POCL_ENV) DAG_TEST_SCALE=0.05 FUZZ_SEEDS=300 -- \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=3 ./$(B)/allb/test_opencl ";" \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=4 $(INTEL_ENV) ./$(B)/allb/test_opencl ";" \
	    env POCL_DEVICES="pthread pthread pthread" ASAN_OPTIONS=detect_leaks=0 ./$(B)/allb/test_array ";" \
	    env POCL_DEVICES="pthread pthread pthread" ASAN_OPTIONS=detect_leaks=0 ./$(B)/allb/test_array_ops ";" \
	    env POCL_DEVICES="pthread pthread pthread" ASAN_OPTIONS=detect_leaks=0 ./$(B)/allb/test_array_complex ";" \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=3 FUZZ_SEEDS=50 TSAN_OPTIONS=halt_on_error=1 \
	        ./$(B)/opencl_tsan/test_opencl ";" \
	    env OCL_ICD_VENDORS=$(CURDIR)/$(B)/no_opencl_vendors DAG_TEST_CL_DEVICES=0 ./$(B)/allb/test_opencl \
	    $(foreach s,$(SUITES),";" env OCL_ICD_VENDORS=$(CURDIR)/$(B)/no_opencl_vendors ./$(B)/allb/test_$(s)) \
	    | tee $(B)/results-opencl.log; tail -n 1 $(B)/results-opencl.log > $(B)/results-opencl; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-opencl

# The device behaviour tests (tests/gpu), one binary with every backend and
# the kernels built for each: OpenCL runs them on PoCL's three devices;
# CUDA, HIP and Level Zero run them where a device exists and skip them
# where none does (the missing-backend errors and fallback run instead).
$(B)/gpu/test_gpu: tests/gpu/test_gpu.c tests/gpu/kernels.h $(GPU_KERNELS) $(HEADERS)
	$(ALLB_CC) -Itests/gpu $< $(GPU_KERNELS) -o $@ -pthread $(ALL_BACKEND_LIBS) -lm

# A mock Level Zero loader (tests/gpu/mock_ze.c): the backend's own logic
# runs against it here, where no Level Zero driver exists.
$(B)/gpu/mock_ze/libze_loader.so.1: tests/gpu/mock_ze.c tests/gpu/mock_kernels.h tests/gpu/mock_fail.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -pthread

# A mock HIP runtime (tests/gpu/mock_hip.c) for the code CUDA and HIP share.
# (Also as libamdhip64.so.7, the first name the backend probes: the system's older runtime otherwise.)
$(B)/gpu/mock_hip/libamdhip64.so: tests/gpu/mock_hip.c tests/gpu/mock_kernels.h tests/gpu/mock_fail.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -pthread
	ln -sf libamdhip64.so $(@D)/libamdhip64.so.7
# and a mock rocBLAS and rocSOLVER beside it (tests/gpu/mock_rocblas.c), on the mock runtime's streams
MOCK_BLAS_DEPS = tests/gpu/mock_blas.h
$(B)/gpu/mock_hip/librocblas.so.4: tests/gpu/mock_rocblas.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_hip/libamdhip64.so
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -L$(@D) -lamdhip64 -lm -pthread
$(B)/gpu/mock_hip/librocsolver.so.0: tests/gpu/mock_rocblas.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_hip/librocblas.so.4
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -DMOCK_ROCSOLVER $< -o $@ -L$(@D) -l:librocblas.so.4 -lamdhip64 -lm -pthread
MOCK_HIP_LIBS = $(B)/gpu/mock_hip/libamdhip64.so $(B)/gpu/mock_hip/librocblas.so.4 $(B)/gpu/mock_hip/librocsolver.so.0

# The same, as the one file of a ROCm 7 install (libamdhip64.so.7, no unversioned link), where the
# system has an older runtime under the unversioned name: the backend must take the newer.
$(B)/gpu/mock_hip7/libamdhip64.so.7: $(B)/gpu/mock_hip/libamdhip64.so
	@mkdir -p $(@D)
	cp $< $@

# A mock CUDA runtime (tests/gpu/mock_cuda.c: the mock HIP under CUDA's names, nvcc's registration
# and cudaLaunchKernel), with a mock cuBLAS beside it, and tests/gpu linked with it instead of
# cudart_static: the CUDA-only code runs here, where no driver exists.
$(B)/gpu/mock_cuda/libcudart_mock.so: tests/gpu/mock_cuda.c tests/gpu/mock_hip.c tests/gpu/mock_kernels.h tests/gpu/mock_fail.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $(CUDA_CFLAGS) $< -o $@ -pthread
$(B)/gpu/mock_cuda/libcublas.so.13: tests/gpu/mock_cublas.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_cuda/libcudart_mock.so
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -L$(@D) -lcudart_mock -lm -pthread
$(B)/gpu/mock_cuda/libcusolver.so.12: tests/gpu/mock_cusolver.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_cuda/libcudart_mock.so
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -L$(@D) -lcudart_mock -lm -pthread
# (and CUDA 12's beside them: under a CUDA 12 runtime the backend must take those)
$(B)/gpu/mock_cuda/libcublas.so.12: tests/gpu/mock_cublas.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_cuda/libcudart_mock.so
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -DMOCK_CUBLAS_MAJOR=12 $< -o $@ -L$(@D) -lcudart_mock -lm -pthread
$(B)/gpu/mock_cuda/libcusolver.so.11: tests/gpu/mock_cusolver.c $(MOCK_BLAS_DEPS) $(B)/gpu/mock_cuda/libcudart_mock.so
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -DMOCK_CUSOLVER_MAJOR=11 $< -o $@ -L$(@D) -lcudart_mock -lm -pthread
MOCK_CUDA_LIBS = $(addprefix $(B)/gpu/mock_cuda/,libcudart_mock.so libcublas.so.13 libcublas.so.12 libcusolver.so.12 libcusolver.so.11)
$(B)/gpu/test_gpu_mock_cuda: tests/gpu/test_gpu.c tests/gpu/kernels.h $(GPU_KERNELS) $(MOCK_CUDA_LIBS) $(HEADERS)
	$(ALLB_CC) -Itests/gpu $< $(GPU_KERNELS) -o $@ -pthread \
	    -L$(B)/gpu/mock_cuda -lcudart_mock -Wl,-rpath,$(abspath $(B)/gpu/mock_cuda) -ldl -lm -lstdc++

# A benchmark run as a check (its rows against the mocks: their times mean nothing, their results
# are checked): its exit status as tests/run.sh's closing line
bench_checked = bash -c '"$$@" && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"' bench
GPU_TOOLS = $(CLANG) $(NVCC) $(HIPCC) $(LLVM_SPIRV) $(SPIRV_VAL) $(PYTHON)
GPU_HOW = apt-get install clang hipcc libamdhip64-dev llvm-spirv-14 spirv-tools python3
test-gpu:
	@$(call need,gpu,$(GPU_TOOLS),$(ALLB_FILES),$(ALLB_HOW); $(GPU_HOW)) $(MAKE) --no-print-directory test-gpu-run
test-gpu-run: $(B)/gpu/test_gpu $(B)/gpu/mock_ze/libze_loader.so.1 $(MOCK_HIP_LIBS) \
              $(B)/gpu/mock_hip7/libamdhip64.so.7 $(B)/gpu/test_gpu_mock_cuda $(B)/gpu/gpu_array_mock $(B)/bench/gpu_chain
	@mkdir -p $(B)/pocl_cache; $(two_platforms)
	@bash tests/run.sh gpu $(POCL_ENV) POCL_DEVICES="pthread pthread pthread" -- \
	    $(foreach b,$(BACKENDS),./$(B)/gpu/test_gpu $(b) ";") env $(INTEL_ENV) DAG_TEST_SPIRV=1 ./$(B)/gpu/test_gpu opencl ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_ze DAG_TEST_EXPECT_DEVICES=2 ./$(B)/gpu/test_gpu ze ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip DAG_TEST_EXPECT_DEVICES=2 ./$(B)/gpu/test_gpu hip ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip MOCK_HIP_NO_PEER=1 ./$(B)/gpu/test_gpu hip ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip7 DAG_TEST_EXPECT_DEVICES=2 DAG_TEST_ONLY_LOADING=1 ./$(B)/gpu/test_gpu hip ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_cuda DAG_TEST_EXPECT_DEVICES=2 ./$(B)/gpu/test_gpu_mock_cuda cuda ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_cuda MOCK_CUDA_RUNTIME_VERSION=12000 DAG_TEST_EXPECT_DEVICES=2 \
	        DAG_TEST_ONLY_LOADING=1 ./$(B)/gpu/test_gpu_mock_cuda cuda ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_cuda ROUNDS=1 NB_GEMM=64 NB_POTRF=32 \
	        $(bench_checked) ./$(B)/gpu/gpu_array_mock 192 ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip $(bench_checked) ./$(B)/bench/gpu_chain hip \
	    | tee $(B)/results-gpu.log; tail -n 1 $(B)/results-gpu.log > $(B)/results-gpu; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-gpu

# Every group runs even if an earlier one failed; the last line sums them up.
# A group that stops before writing its results (a build error) counts as a failure.
# A group builds its binaries on every core (most of make test's time is the
# compiler's: dag_array.h's implementation alone takes half a minute), then
# runs them one at a time (the tests time themselves against the machine).
TEST_GROUPS := compile gcc clang cxx asan tsan helgrind opencl gpu mpi bots walkthrough skips
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test:
	@rm -f $(B)/results-*
	@st=0; for g in $(TEST_GROUPS); do t=$$([ $$g = compile ] && echo check-compile || echo test-$$g); \
	  $(MAKE) --no-print-directory -j$(TEST_JOBS) $$t STRICT=$(STRICT) || { st=1; [ -e $(B)/results-$$g ] || \
	    echo "$$t: 0 passed, 1 failed (stopped before its results)" > $(B)/results-$$g; }; done; \
	cat $(TEST_GROUPS:%=$(B)/results-%) 2>/dev/null \
	  | awk '{for(i=1;i<=NF;i++){if($$(i+1)=="passed,")p+=$$i; if($$(i+1)~/^failed/)f+=$$i; if($$(i+1)~/^skipped/)k+=$$i; \
	                            if($$(i+1)=="not" && $$(i+2)~/^applicable/)n+=$$i}} \
	         END{print "all: " p " passed, " f " failed, " k+0 " skipped, " n+0 " not applicable" \
	               (n ? " (tests of hardware or backends this machine or build has not: STRICT allows these)" : ""); \
	             exit f>0}' || st=1; \
	exit $$st

# The skip paths themselves: groups run with a dependency hidden (a path
# that does not exist) must say "skipped", count it and exit 0, and fail
# under STRICT=1.
test-skips:
	@mkdir -p $(B)
	@CC="$(CC)" MAKE="$(MAKE)" bash tests/skips.sh $(B)/skips | tee $(B)/results-skips.log; tail -n 1 $(B)/results-skips.log > $(B)/results-skips; \
	  grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-skips

# make test as on a machine with only a C compiler and make (every optional
# dependency hidden, in build/fresh): it must end "0 failed" and exit 0.
# Not part of make test (it repeats the gcc and ASan groups: 4 minutes here).
FRESH_HIDE = $(foreach v,CLANG CXX VALGRIND NVCC CUDA HIPCC LLVM_SPIRV SPIRV_VAL PYTHON CMAKE PKG_CONFIG LAPACKE_H \
               OPENBLAS POCL_ICD OPENCL_LOADER ZE_H INTEL_OCL,$(v)=/nonexistent/dag-fresh/$(v))
test-fresh:
	$(MAKE) --no-print-directory test B=$(B)/fresh STRICT=0 $(FRESH_HIDE)

# A new user's way in, in temporary folders: the README's quick start built
# from dag.h alone (C and C++) and with every header, make demo, and make
# install used through pkg-config and CMake.
test-walkthrough:
	@mkdir -p $(B)
	@bash tests/run.sh walkthrough -- env CC="$(CC)" CXX="$(CXX)" CMAKE="$(CMAKE)" PKG_CONFIG="$(PKG_CONFIG)" STRICT="$(STRICT)" \
	    MAKE="$(MAKE)" bash tests/walkthrough.sh | tee $(B)/results-walkthrough.log; \
	  tail -n 1 $(B)/results-walkthrough.log > $(B)/results-walkthrough; \
	  grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-walkthrough

fuzz: $(B)/gcc/test_fuzz
	./$(B)/gcc/test_fuzz $${SEEDS:-5000}

# ---- benchmarks -------------------------------------------------------------
# the peers' programs beside the others (make B=... builds them there too)
BENCH_OUT := $(B)/bench
include bench/peers.mk

$(B)/bench/dag_tasks: bench/dag_tasks.c bench/bench_common.h dag.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread

# the operating system's own wake-up: the floor of a hand-off from a parked worker
$(B)/bench/os_wake: bench/os_wake.c bench/bench_common.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Ibench $< -o $@ -pthread

bench: $(B)/bench/dag_tasks $(B)/bench/os_wake all-peers
	$(PYTHON) bench/run.py
	@$(MAKE) --no-print-directory bench-bots
	@$(MAKE) --no-print-directory bench-opencl
	@$(MAKE) --no-print-directory bench-gpu
	@$(MAKE) --no-print-directory bench-cholesky
	@$(MAKE) --no-print-directory bench-lu
	@$(MAKE) --no-print-directory bench-mpi
	@$(MAKE) --no-print-directory bench-lu-mpi

# The Barcelona OpenMP Task Suite's programs (bench/bots/): each on dag.h
# (PROG_dag, and PROG_dag_clang), as OpenMP tasks on libgomp (PROG_gomp) and
# on LLVM's libomp (PROG_libomp), and fib and nqueens with TBB (PROG_tbb);
# bench/bots/run runs them side by side.
BOTS      := fib nqueens sort sparselu strassen uts health
BOTS_TBB  := fib nqueens
BOTS_GXX  ?= g++
BOTS_BINS := $(foreach v,dag dag_clang gomp libomp,$(BOTS:%=$(B)/bots/%_$(v))) $(BOTS_TBB:%=$(B)/bots/%_tbb)
# Every version's functions start on a 64-byte boundary: a program that is all
# one kernel (nqueens's nq_serial) ran 15% slower or faster as the runtime's
# code above it moved its loop across a 32-byte line (same instructions)
BOTS_ALIGN := -falign-functions=64

$(B)/bots/%_dag: bench/bots/%_dag.c bench/bots/%.h bench/bots/bots.h bench/bots/bots_dag.h dag.h
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 $(BOTS_ALIGN) -I. -Ibench/bots $< -o $@ -pthread -lm

$(B)/bots/%_dag_clang: bench/bots/%_dag.c bench/bots/%.h bench/bots/bots.h bench/bots/bots_dag.h dag.h
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O2 $(BOTS_ALIGN) -I. -Ibench/bots $< -o $@ -pthread -lm

$(B)/bots/%_gomp: bench/bots/%_omp.c bench/bots/%.h bench/bots/bots.h bench/bots/bots_omp.h
	@mkdir -p $(@D)
	$(BENCH_GCC) $(BENCH_PEER_CFLAGS) $(BOTS_ALIGN) $(BENCH_GOMP_CFLAGS) -Ibench/bots $< -o $@ $(BENCH_GOMP_LDFLAGS) -lm

$(B)/bots/%_libomp: bench/bots/%_omp.c bench/bots/%.h bench/bots/bots.h bench/bots/bots_omp.h
	@mkdir -p $(@D)
	$(BENCH_OMP_CLANG) $(BENCH_PEER_CFLAGS) $(BOTS_ALIGN) $(BENCH_LIBOMP_CFLAGS) -Ibench/bots $< -o $@ $(BENCH_LIBOMP_LDFLAGS) -lm

$(B)/bots/%_tbb: bench/bots/%_tbb.cc bench/bots/%.h bench/bots/bots.h bench/bots/bots_tbb.h
	@mkdir -p $(@D)
	$(BOTS_GXX) -std=c++17 -O2 $(BOTS_ALIGN) -Wall -Wextra -Ibench/bots $< -o $@ -ltbb

# (TBB's are built by bench/bots/run, which leaves them out, said, where libtbb-dev is missing)
bench-bots: $(filter-out %_tbb,$(BOTS_BINS))
	$(PYTHON) bench/bots/run --build $(B)/bots

# make test's part: the dag.h versions keep building ($(WARN), gcc and clang) and
# right: each once on a tiny input, answer checked, on 1 and 2 threads
test-bots:
	@$(call need,bots,$(PYTHON) $(CLANG),,apt-get install python3 clang) $(MAKE) --no-print-directory test-bots-run
test-bots-run: $(BOTS:%=$(B)/bots/%_dag) $(BOTS:%=$(B)/bots/%_dag_clang)
	@bash tests/run.sh bots -- $(PYTHON) bench/bots/run --test --build $(B)/bots | tee $(B)/results-bots.log; \
	  tail -n 1 $(B)/results-bots.log > $(B)/results-bots; grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-bots

# dag.h's device layer against raw OpenCL calls, on PoCL's three CPU devices
$(B)/bench/opencl_chain: bench/opencl_chain.c bench/bench_common.h bench/cl_raw.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread -ldl -lOpenCL

# dag_array_gemm on an OpenCL device through CLBlast, against CLBlast called directly
$(B)/bench/array_gemm_opencl: bench/array_gemm_opencl.c bench/bench_common.h bench/cl_raw.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread -ldl -lOpenCL -lm

# dag.h's device layer against raw CUDA and HIP calls; "skipped" without a device
$(B)/bench/gpu_chain: bench/gpu_chain.c bench/gpu_chain.h bench/bench_common.h tests/gpu/kernels.h $(GPU_KERNELS) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra $(ALL_BACKENDS) -I. -Ibench -Itests/gpu $< $(B)/gpu/kernels_hip.c $(B)/gpu/kernels_ze.c \
	    $(B)/gpu/kernels_cuda.o -o $@ -pthread $(CUDA_LIBS) -ldl -lm

# dag_array on a CUDA GPU against cuBLAS and cuSOLVER called directly (bench/gpu_array.c), and the
# same program linked with the mock runtime and libraries (tests/gpu), which test-gpu runs small
GPU_ARRAY_DEPS = bench/gpu_array.c bench/gpu_chain.h bench/bench_common.h tests/gpu/kernels.h $(B)/gpu/kernels_cuda.o $(HEADERS)
GPU_ARRAY_CC = $(CC) -std=c11 -O2 -Wall -Wextra -DDAG_BACKEND_CUDA $(CUDA_CFLAGS) -I. -Ibench -Itests/gpu
$(B)/bench/gpu_array: $(GPU_ARRAY_DEPS)
	@mkdir -p $(@D)
	$(GPU_ARRAY_CC) $< $(B)/gpu/kernels_cuda.o -o $@ -pthread -L$(CUDA)/lib64 -lcublas -lcusolver -Wl,-rpath,$(CUDA)/lib64 \
	    $(CUDA_LIBS) -ldl -lm
$(B)/gpu/gpu_array_mock: $(GPU_ARRAY_DEPS) $(MOCK_CUDA_LIBS)
	$(GPU_ARRAY_CC) $< $(B)/gpu/kernels_cuda.o -o $@ -pthread -L$(B)/gpu/mock_cuda -lcudart_mock -l:libcublas.so.13 \
	    -l:libcusolver.so.12 -Wl,-rpath,$(abspath $(B)/gpu/mock_cuda) -ldl -lm
bench-gpu-array: $(B)/bench/gpu_array
	./$(B)/bench/gpu_array $(ARGS)

# Tiled Cholesky: dag_array.h against OpenBLAS's dpotrf, libgomp tasks and StarPU
CHOL_LIBS := -llapacke -lopenblas -lm
$(B)/bench/cholesky: bench/cholesky.c bench/cholesky_common.h bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. -Ibench $< -o $@ -pthread $(CHOL_LIBS)
$(B)/bench/cholesky_omp: bench/cholesky_omp.c bench/cholesky_common.h bench/bench_common.h
	@mkdir -p $(@D)
	gcc -std=c11 -O2 -Wall -Wextra -fopenmp -Ibench $< -o $@ $(CHOL_LIBS)
$(B)/bench/cholesky_starpu: bench/cholesky_starpu.c bench/cholesky_common.h bench/bench_common.h
	@mkdir -p $(@D)
	gcc -std=c11 -O2 -Wall -Wextra $(BENCH_STARPU_CFLAGS) -Ibench $< -o $@ $(BENCH_STARPU_LIBS) $(CHOL_LIBS)

bench-cholesky: $(B)/bench/cholesky $(B)/bench/cholesky_omp $(B)/bench/cholesky_starpu
	$(PYTHON) bench/cholesky.py $(if $(QUICK),--quick)

# Pivoted LU: dag_array_getrf (in place and on its own tiles) against OpenBLAS's dgetrf, and QR (dag_array_geqrf)
# against dgeqrf (bench/lu.py)
$(B)/bench/lu: bench/lu.c bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. -Ibench $< -o $@ -pthread $(CHOL_LIBS)

bench-lu: $(B)/bench/lu
	$(PYTHON) bench/lu.py --qr $(if $(QUICK),--quick)
	$(PYTHON) bench/lu.py --tall $(if $(QUICK),--quick)

# The distributed Cholesky over MPI: dag.h on 2 ranks x 1 thread (and 1 rank x 2 threads) against
# ScaLAPACK's pdpotrf and StarPU-MPI, with the traffic against its lower bound (bench/cholesky_mpi.py)
$(B)/bench/cholesky_mpi: bench/cholesky_mpi.c bench/cholesky_common.h bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -Wall -Wextra -DDAG_BACKEND_MPI -I. -Ibench $< -o $@ -pthread $(CHOL_LIBS)

bench-mpi: $(B)/bench/cholesky_mpi all-mpi-peers
	$(PYTHON) bench/cholesky_mpi.py $(if $(QUICK),--rounds 1 --n 4096)

# The pivoted LU over MPI: dag_array_getrf on 2 ranks x 1 thread (and 1 rank x 2 threads) against
# ScaLAPACK's pdgetrf on the same 1 x 2 grid (bench/lu_mpi.py); lu_scalapack is skipped, said, without
# ScaLAPACK (bench/peers.mk finds it)
$(B)/bench/lu_mpi: bench/lu_mpi.c bench/lu_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) $(WARN) -O2 -DDAG_BACKEND_MPI -I. -Ibench $< -o $@ -pthread $(CHOL_LIBS)
$(B)/bench/lu_scalapack: bench/lu_scalapack.c bench/lu_common.h bench/scalapack_common.h
ifeq ($(BENCH_HAVE_SCALAPACK),yes)
	@mkdir -p $(@D)
	$(BENCH_GCC) $(WARN) -O2 $(shell pkg-config --cflags $(BENCH_MPI_PC)) -Ibench $< -o $@ \
	    $(shell pkg-config --libs $(BENCH_SCALAPACK_PC) $(BENCH_MPI_PC)) $(BENCH_MPI_BLAS_LIBS)
else
	@echo "skipped: $@: needs Open MPI, ScaLAPACK, OpenBLAS and LAPACKE ($(BENCH_MPI_HINT) libscalapack-openmpi-dev)"
endif

bench-lu-mpi: $(B)/bench/lu_mpi $(B)/bench/lu_scalapack
	$(PYTHON) bench/lu_mpi.py $(if $(QUICK),--rounds 1 --n 4096 --nb 256)

# The same on 4 to 1024 ranks, on paper: dag_mpi.h's decisions simulated in one process
# (dag_desc.simulate_ranks), checked against the closed formulas (bench/cholesky_ranks.c)
$(B)/bench/cholesky_ranks: bench/cholesky_ranks.c bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -Wall -Wextra -DDAG_BACKEND_MPI -I. -Ibench $< -o $@ -pthread -lm

bench-ranks: $(B)/bench/cholesky_ranks
	./$(B)/bench/cholesky_ranks

# A hand-off between two ranks through dag.h against a plain MPI ping-pong, and the
# progress thread's CPU while messages fly and while idle (bench/mpi_hop.c)
$(B)/bench/mpi_hop: bench/mpi_hop.c bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) -std=c11 -O2 -Wall -Wextra -DDAG_BACKEND_MPI -I. -Ibench $< -o $@ -pthread -lm

bench-hop: $(B)/bench/mpi_hop
	$(MPI_RUN) -np 2 ./$(B)/bench/mpi_hop

# db-benchmark's tasks on its own data (bench/table/datagen.c makes the files, with R's random
# numbers), dag.h (bench/table/table_bench.c) against DuckDB, polars and pandas (bench/table/peers.py)
$(B)/table/datagen: bench/table/datagen.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 $< -o $@ -lm
$(B)/table/table_bench: bench/table/table_bench.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -I. $< -o $@ -pthread -lm

bench-table: $(B)/table/table_bench $(B)/table/datagen
	$(PYTHON) bench/table/run.py --n $(or $(N),1e7) --python $(TABLE_PEERS)/bin/python

bench-gpu: $(B)/bench/gpu_chain
	./$(B)/bench/gpu_chain

bench-opencl: $(B)/bench/opencl_chain $(B)/bench/array_gemm_opencl
	@mkdir -p $(B)/pocl_cache
	POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache POCL_DEVICES="pthread pthread pthread" ./$(B)/bench/opencl_chain
	POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache POCL_DEVICES=pthread ./$(B)/bench/array_gemm_opencl

# ---- install ----------------------------------------------------------------
# The headers under PREFIX/include, dag.pc for pkg-config and a CMake package
# (find_package(dag): the INTERFACE target dag::dag, and one per backend).
PREFIX  ?= /usr/local
VERSION := 0.1.0
INSTALL_HEADERS := dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h dag_table.h
install:
	mkdir -p $(DESTDIR)$(PREFIX)/include/dag_backends $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/dag
	cp $(INSTALL_HEADERS) $(DESTDIR)$(PREFIX)/include/
	cp dag_backends/*.h $(DESTDIR)$(PREFIX)/include/dag_backends/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' dag.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dag.pc
	cp cmake/dagConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/dag/
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/dagConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/dag/dagConfigVersion.cmake
	@echo "installed dag.h $(VERSION) in $(DESTDIR)$(PREFIX): include/, lib/pkgconfig/dag.pc, lib/cmake/dag/"

# Many ranks over MPI (dag_backends/dag_mpi.h): tests/test_mpi.c under
# mpirun on 1, 2, 3, 4, 8 and 32 ranks and alone (one rank, as a program built
# with MPI but started without mpirun); tests/test_mpi_faults.c (divergence,
# failures, each case under a time limit) on 2, 3 and 4 ranks, and
# tests/mpi_leave.sh (a rank that leaves without dag_shutdown ends the job);
# tests/test_mpi_array.c (pivoted LU, views, reductions along a dimension,
# broadcasts over ranks) on 1, 2 and 4 ranks; the three suites under ASan
# and ThreadSanitizer on 2 ranks; and a core suite built with the flag,
# alone: nothing changes.
MPICC  ?= mpicc
MPIRUN ?= mpirun
MPI_RUN = $(MPIRUN) --allow-run-as-root --oversubscribe
MPI_WARN = $(WARN) -DDAG_BACKEND_MPI -I. -Itests
$(B)/mpi/test_mpi $(B)/mpi/test_mpi_faults $(B)/mpi/test_mpi_array: $(B)/mpi/%: tests/%.c $(HEADERS) tests/mpi_harness.h
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -O2 -g $< -o $@ -pthread -lm
$(B)/mpi/test_mpi_asan $(B)/mpi/test_mpi_faults_asan $(B)/mpi/test_mpi_array_asan: $(B)/mpi/%_asan: tests/%.c $(HEADERS) tests/mpi_harness.h
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer $< -o $@ -pthread -lm
$(B)/mpi/test_mpi_tsan $(B)/mpi/test_mpi_faults_tsan $(B)/mpi/test_mpi_array_tsan: $(B)/mpi/%_tsan: tests/%.c $(HEADERS) tests/mpi_harness.h
	@mkdir -p $(@D)
	OMPI_CC=$(CLANG) $(MPICC) $(MPI_WARN) -O1 -g -fsanitize=thread -DDAG_USE_PTHREADS $< -o $@ -pthread -lm
# and with OpenCL: each rank's tiles on its own devices (PoCL's, on the CPU)
$(B)/mpi/test_mpi_opencl: tests/test_mpi.c $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -DDAG_BACKEND_OPENCL -O2 -g $< -o $@ -pthread -ldl -lm
# and with the mock HIP runtime (tests/gpu/mock_hip.c): device failures injected on one rank
$(B)/mpi/test_mpi_device_faults: tests/test_mpi_device_faults.c $(HEADERS) tests/mpi_harness.h $(B)/gpu/kernels_hip.c
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -DDAG_BACKEND_HIP -Itests/gpu -O1 -g $< $(B)/gpu/kernels_hip.c -o $@ -pthread -ldl -lm
# tests/test_table.c on every rank: the tables' partitions dealt over the ranks
$(B)/mpi/test_table: tests/test_table.c $(HEADERS) tests/mpi_harness.h
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -O2 -g $< -o $@ -pthread -lm
$(B)/mpi/test_behaviour: tests/test_behaviour.c $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) $(MPI_WARN) -O2 -g $< -o $@ -pthread -lm
test-mpi:
	@$(call need,mpi,$(MPICC) $(MPIRUN) $(CLANG),$(TSAN_RT),apt-get install openmpi-bin libopenmpi-dev clang libclang-rt-14-dev) \
	  $(MAKE) --no-print-directory test-mpi-run
MPI_SUITES := test_mpi test_mpi_faults test_mpi_array
test-mpi-run: $(foreach t,$(MPI_SUITES),$(B)/mpi/$(t) $(B)/mpi/$(t)_asan $(B)/mpi/$(t)_tsan) $(B)/mpi/test_mpi_opencl \
              $(B)/mpi/test_behaviour $(B)/mpi/test_table $(B)/mpi/test_mpi_device_faults $(MOCK_HIP_LIBS)
	@mkdir -p $(B)/pocl_cache
	@bash tests/run.sh mpi DAG_TEST_TIMEOUT=300 -- ./$(B)/mpi/test_mpi ";" ./$(B)/mpi/test_behaviour \
	    $(foreach n,1 2 3 4 8 32,";" $(MPI_RUN) -np $(n) ./$(B)/mpi/test_mpi) \
	    $(foreach n,2 3 4,";" $(MPI_RUN) -np $(n) ./$(B)/mpi/test_mpi_faults) \
	    $(foreach n,2 4,";" $(MPI_RUN) -np $(n) ./$(B)/mpi/test_table) \
	    $(foreach n,1 2 4,";" $(MPI_RUN) -np $(n) ./$(B)/mpi/test_mpi_array) \
	    ";" bash tests/mpi_leave.sh ./$(B)/mpi/test_mpi_faults "$(MPI_RUN)" \
	    $(foreach n,2 3,";" env $(POCL_ENV) POCL_DEVICES="pthread pthread" $(MPI_RUN) -np $(n) ./$(B)/mpi/test_mpi_opencl) \
	    $(foreach n,2 3,";" $(MPI_RUN) -np $(n) -x LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip ./$(B)/mpi/test_mpi_device_faults) \
	    $(foreach t,$(MPI_SUITES),";" env DAG_TEST_SCALE=0.2 DAG_TEST_CASE_TIMEOUT=150 ASAN_OPTIONS=detect_leaks=0 \
	        $(MPI_RUN) -np 2 ./$(B)/mpi/$(t)_asan) \
	    $(foreach t,$(MPI_SUITES),";" env DAG_TEST_SCALE=0.1 DAG_TEST_CASE_TIMEOUT=150 \
	        TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan_mpi.supp halt_on_error=1" $(MPI_RUN) -np 2 ./$(B)/mpi/$(t)_tsan) \
	    | tee $(B)/results-mpi.log; tail -n 1 $(B)/results-mpi.log > $(B)/results-mpi; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?(, [0-9]+ not applicable)?$$' $(B)/results-mpi

# ---- set-up -----------------------------------------------------------------
# Test and benchmark dependencies, from Debian's archive.
DEB_PACKAGES := build-essential clang libclang-rt-14-dev valgrind python3 pkg-config cmake \
                libomp-dev libstarpu-dev graphviz ocl-icd-libopencl1 pocl-opencl-icd clinfo \
                hipcc libamdhip64-dev libze-dev llvm-14 llvm-spirv-14 spirv-tools python3-venv \
                libopenblas-dev liblapacke-dev libclblast1 openmpi-bin libopenmpi-dev libscalapack-openmpi-dev \
                libtbb-dev

# Intel's OpenCL CPU runtime from PyPI, in a virtual environment of its own
# (never intel-opencl-icd from Debian: with no GPU it makes zeInit crash).
deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	if ! dpkg -s $(DEB_PACKAGES) >/dev/null 2>&1; then \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEB_PACKAGES); \
	else echo "deps: all installed"; fi
	@if [ ! -e $(INTEL_OCL)/lib/libintelocl.so ]; then \
	  $(PYTHON) -m venv $(INTEL_OCL) && $(INTEL_OCL)/bin/pip install -q intel-opencl-rt intel-cmplr-lib-rt; \
	else echo "deps: Intel's OpenCL runtime installed"; fi
	@if [ ! -x $(TABLE_PEERS)/bin/python ] || ! $(TABLE_PEERS)/bin/python -c 'import duckdb, polars, pandas' 2>/dev/null; then \
	  $(PYTHON) -m venv $(TABLE_PEERS) && $(TABLE_PEERS)/bin/pip install -q duckdb polars pandas pyarrow; \
	else echo "deps: DuckDB, polars and pandas installed"; fi

clean:
	rm -rf $(B)
