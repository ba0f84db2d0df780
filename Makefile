# dag.h: build, test and benchmark.
#
#   make demo        build and run the examples (threads only, no extra packages)
#   make deps        install with apt what the tests and benchmarks need
#   make test        everything this machine can run (STRICT=1: a missing tool
#                    fails; tests that need GPU hardware skip, and say so)
#   make test-gpu    the device behaviour tests on CUDA, HIP, Level Zero and OpenCL
#   make bench       task overhead and METG side by side with libgomp, libomp, StarPU;
#                    devices; tiled Cholesky against OpenBLAS, libgomp and StarPU
#   make fuzz        the differential tester with many more seeds
#   make clean

CC      ?= cc
CLANG   ?= clang
CXX     ?= c++
PYTHON  ?= python3
STRICT  ?= 0
B       := build
WARN    := -std=c11 -pedantic -Wall -Wextra -Werror
HEADERS := dag.h dag_kernels.h dag_blas.h dag_array.h dag_array_kernels.h $(wildcard dag_backends/*.h) tests/test.h
# GPU toolchains: the CUDA toolkit (static runtime), hipcc, clang + llvm-spirv
CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
HIPCC     ?= hipcc
LLVM_SPIRV ?= llvm-spirv-14
SPIRV_VAL ?= spirv-val
CUDA_ARCHS := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
HIP_ARCHS  := --offload-arch=gfx90a --offload-arch=gfx1030
# nvcc's host code needs no C++ runtime this way, so a C link works
NVCC_HOST  := -Xcompiler -Wall,-Wextra,-Werror,-fno-exceptions,-fno-threadsafe-statics
CUDA_CFLAGS := -I$(CUDA)/include
CUDA_LIBS   := -L$(CUDA)/lib64 -lcudart_static -lrt
ALL_BACKENDS := -DDAG_BACKEND_OPENCL -DDAG_BACKEND_CUDA -DDAG_BACKEND_HIP -DDAG_BACKEND_LEVEL_ZERO $(CUDA_CFLAGS)
# the backend combinations CI builds: threads, each alone, OpenCL with each other, all
COMBOS := threads opencl cuda hip ze opencl+cuda opencl+hip opencl+ze all
combo_flags = $(if $(filter all,$(1)),$(ALL_BACKENDS),$(foreach b,$(subst +, ,$(1)),$(if $(filter opencl,$(b)),-DDAG_BACKEND_OPENCL)$(if $(filter cuda,$(b)),-DDAG_BACKEND_CUDA $(CUDA_CFLAGS))$(if $(filter hip,$(b)),-DDAG_BACKEND_HIP)$(if $(filter ze,$(b)),-DDAG_BACKEND_LEVEL_ZERO)))
# the SDK a combination needs to build: CUDA's headers and static runtime, Level Zero's headers
combo_sdk_missing = { false $(if $(or $(filter all,$(1)),$(findstring cuda,$(1))),|| [ ! -e $(CUDA)/include/cuda_runtime_api.h ])\
  $(if $(or $(filter all,$(1)),$(findstring ze,$(1))),|| [ ! -e /usr/include/level_zero/ze_api.h ]); }
combo_sdk_hint = needs the CUDA toolkit in $(CUDA) and libze-dev
combo_libs = $(if $(or $(filter all,$(1)),$(findstring cuda,$(1))),$(CUDA_LIBS)) -ldl
SUITES  := behaviour errors stress fuzz kernels array
EXAMPLES := hello tiled_datadeps sequential_bulk cholesky
# sanitizer builds run the same suites at a smaller size
SAN_ENV := DAG_TEST_SCALE=0.05 FUZZ_SEEDS=1000

.PHONY: all demo deps test bench fuzz clean check-compile test-gcc test-clang test-asan test-tsan test-helgrind test-opencl \
        test-gpu bench-opencl bench-gpu bench-cholesky

all: $(SUITES:%=$(B)/gcc/test_%) $(EXAMPLES:%=$(B)/examples/%)

# ---- examples ---------------------------------------------------------------
$(B)/examples/%: examples/%.c dag.h dag_array.h
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -I. $< -o $@ -pthread -lm

# Each example runs in a folder of its own, build/demo/NAME/, and writes its
# files there; the lines after it say where they went.
demo: $(EXAMPLES:%=$(B)/examples/%)
	@for e in $(EXAMPLES); do echo "== examples/$$e.c, run in $(B)/demo/$$e/"; rm -rf $(B)/demo/$$e; \
	  mkdir -p $(B)/demo/$$e && (cd $(B)/demo/$$e && ../../examples/$$e) || exit 1; \
	  for f in $(B)/demo/$$e/*; do [ -e "$$f" ] && echo "   -> $(CURDIR)/$$f"; done; done; true

# ---- test builds ------------------------------------------------------------
$(B)/gcc/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -I. -Itests $< -o $@ -pthread -lm

$(B)/clang/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O2 -g -I. -Itests $< -o $@ -pthread -lm

$(B)/asan/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
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
check-compile: $(HEADERS) tests/test_kernels.c tests/compile/impl.c tests/compile/public.cc tests/compile/public.cu tests/compile/two_units_a.c tests/compile/two_units_b.c
	@mkdir -p $(B)/compile
	@ok=0; bad=0; \
	run() { if "$$@" >$(B)/compile/log 2>&1; then ok=$$((ok+1)); echo "ok   $$*"; \
	        else bad=$$((bad+1)); echo "FAIL $$*"; cat $(B)/compile/log; fi; }; \
	run $(CC) $(WARN) -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc.o; \
	run $(CC) $(WARN) -DDAG_USE_PTHREADS -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc_pthreads.o; \
	run $(CC) $(WARN) -DNDEBUG -O2 -I. -c tests/compile/impl.c -o $(B)/compile/impl_gcc_ndebug.o; \
	if command -v $(CLANG) >/dev/null; then \
	  run $(CLANG) $(WARN) -I. -c tests/compile/impl.c -o $(B)/compile/impl_clang.o; \
	  run $(CLANG) $(WARN) -DDAG_USE_PTHREADS -I. -c tests/compile/impl.c -o $(B)/compile/impl_clang_pthreads.o; \
	else echo "skipped: clang not found (apt-get install clang)"; [ "$(STRICT)" = 1 ] && bad=$$((bad+1)); fi; \
	run $(CC) $(WARN) -DNO_MAIN -I. -c tests/compile/impl.c -o $(B)/compile/impl_lib.o; \
	run $(CXX) -std=c++17 -Wall -Wextra -Werror -I. tests/compile/public.cc $(B)/compile/impl_lib.o -o $(B)/compile/public_cxx -pthread; \
	run ./$(B)/compile/public_cxx; \
	run $(CC) $(WARN) -I. tests/compile/two_units_a.c tests/compile/two_units_b.c -o $(B)/compile/two_units -pthread; \
	run ./$(B)/compile/two_units; \
	run $(CC) $(WARN) -O1 -I. -Itests tests/test_kernels.c -o $(B)/compile/test_kernels -pthread; \
	rm -rf $(B)/compile/cl; mkdir -p $(B)/compile/cl; run ./$(B)/compile/test_kernels --write-cl $(B)/compile/cl; \
	if command -v $(CLANG) >/dev/null; then for f in $(B)/compile/cl/*.cl; do \
	  run $(CLANG) -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Werror $$f; done; fi; \
	$(foreach c,$(COMBOS),$(foreach cc,$(CC) $(CLANG),\
	  if $(call combo_sdk_missing,$(c)); then echo "skipped: $(c) with $(cc): $(call combo_sdk_hint,$(c))"; \
	    [ "$(STRICT)" = 1 ] && bad=$$((bad+1)); \
	  else run $(cc) $(WARN) -I. $(call combo_flags,$(c)) tests/compile/impl.c -o $(B)/compile/impl_$(subst +,_,$(c))_$(notdir $(cc)) \
	         -pthread $(call combo_libs,$(c)); fi;)) \
	expect_error() { msg=$$1; shift; if "$$@" >$(B)/compile/log 2>&1; then bad=$$((bad+1)); echo "FAIL (built) $$*"; \
	  elif grep -q "$$msg" $(B)/compile/log; then ok=$$((ok+1)); echo "ok   (refused: $$msg) $$*"; \
	  else bad=$$((bad+1)); echo "FAIL (no '$$msg') $$*"; cat $(B)/compile/log; fi; }; \
	expect_error "use -DDAG_BACKEND_CUDA instead" $(CC) $(WARN) -I. -DDAG_BACKEND_HIP -D__HIP_PLATFORM_NVIDIA__ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	expect_error "compile the implementation (DAG_IMPLEMENTATION) as C11" $(CXX) -I. -x c++ -c tests/compile/impl.c -o $(B)/compile/x.o; \
	if [ -x $(NVCC) ]; then \
	  run $(NVCC) -std=c++17 $(CUDA_ARCHS) $(NVCC_HOST) -I. -c tests/compile/public.cu -o $(B)/compile/public_nvcc.o; \
	  run $(MAKE) --no-print-directory $(B)/gpu/kernels_cuda.o; \
	else echo "skipped: nvcc not found at $(NVCC) (the CUDA toolkit)"; [ "$(STRICT)" = 1 ] && bad=$$((bad+1)); fi; \
	if command -v $(HIPCC) >/dev/null; then run $(MAKE) --no-print-directory $(B)/gpu/kernels_hip.c; \
	else echo "skipped: $(HIPCC) not found (apt-get install hipcc libamdhip64-dev)"; [ "$(STRICT)" = 1 ] && bad=$$((bad+1)); fi; \
	if command -v $(LLVM_SPIRV) >/dev/null && command -v $(SPIRV_VAL) >/dev/null; then \
	  run $(MAKE) --no-print-directory $(B)/gpu/kernels_ze.c; \
	else echo "skipped: $(LLVM_SPIRV) or $(SPIRV_VAL) not found (apt-get install llvm-spirv-14 spirv-tools)"; \
	  [ "$(STRICT)" = 1 ] && bad=$$((bad+1)); fi; \
	echo "compile: $$ok passed, $$bad failed" | tee $(B)/results-compile; [ $$bad = 0 ]

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

$(B)/gpu/kernels_ze.c: $(B)/gpu/kernels.spv tools/dag_embed.py
	$(PYTHON) tools/dag_embed.py --level-zero --cc $(CC) tests/gpu/kernels.h $< -o $@

GPU_KERNELS := $(B)/gpu/kernels_cuda.o $(B)/gpu/kernels_hip.c $(B)/gpu/kernels_ze.c

# ---- test runs --------------------------------------------------------------
define run_suites
	@mkdir -p $(B)
	@bash tests/run.sh $(1) $(2) -- $(foreach s,$(SUITES),./$(B)/$(1)/test_$(s) ";") $(3) | tee $(B)/results-$(1).log; \
	 tail -n 1 $(B)/results-$(1).log > $(B)/results-$(1); grep -Eq ' 0 failed(, [0-9]+ skipped)?$$' $(B)/results-$(1)
endef

# dag_array.h once more with its tiles on OpenBLAS and LAPACKE (-DDAG_ARRAY_CBLAS)
$(B)/gcc/test_array_cblas: tests/test_array.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -g -DDAG_ARRAY_CBLAS -I. -Itests $< -o $@ -pthread -lm -llapacke -lopenblas

test-gcc: $(SUITES:%=$(B)/gcc/test_%) $(B)/gcc/test_array_cblas
	$(call run_suites,gcc,FUZZ_SEEDS=3000,./$(B)/gcc/test_array_cblas)

test-asan: $(SUITES:%=$(B)/asan/test_%)
	$(call run_suites,asan,$(SAN_ENV) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1)

define need_tool
	@if ! command -v $(1) >/dev/null; then echo "skipped: $(1) not found (apt-get install $(2))"; \
	  echo "$@: 0 passed, $$([ "$(STRICT)" = 1 ] && echo 1 || echo 0) failed" > $(B)/results-$(3); \
	  [ "$(STRICT)" != 1 ]; exit $$?; fi
endef

test-clang:
	@mkdir -p $(B)
	$(call need_tool,$(CLANG),clang,clang)
	@$(MAKE) --no-print-directory $(SUITES:%=$(B)/clang/test_%)
	$(call run_suites,clang,FUZZ_SEEDS=3000)

test-tsan:
	@mkdir -p $(B)
	$(call need_tool,$(CLANG),clang libclang-rt-14-dev,tsan)
	@$(MAKE) --no-print-directory $(SUITES:%=$(B)/tsan/test_%)
	$(call run_suites,tsan,$(SAN_ENV) TSAN_OPTIONS=halt_on_error=1)

test-helgrind:
	@mkdir -p $(B)
	$(call need_tool,valgrind,valgrind,helgrind)
	@$(MAKE) --no-print-directory $(B)/helgrind/test_errors $(B)/helgrind/test_fuzz
	@bash tests/run.sh helgrind -- \
	    valgrind --tool=helgrind --error-exitcode=9 -q ./$(B)/helgrind/test_errors ";" \
	    valgrind --tool=helgrind --error-exitcode=9 -q ./$(B)/helgrind/test_fuzz 40 \
	    | tee $(B)/results-helgrind.log; tail -n 1 $(B)/results-helgrind.log > $(B)/results-helgrind; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?$$' $(B)/results-helgrind

# The device suites from binaries built with every backend (ASan, UBSan):
# OpenCL on PoCL (three CPU devices), and with no OpenCL platform at all;
# then every core suite on a machine where that binary finds no device (it
# must start and work on the CPU; CUDA, HIP and Level Zero report why not).
ALLB_CC = $(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined $(ALL_BACKENDS) -I. -Itests
$(B)/allb/test_%: tests/test_%.c $(HEADERS)
	@mkdir -p $(@D)
	$(ALLB_CC) $< -o $@ -pthread $(CUDA_LIBS) -ldl -lm

# the device layer's own threads under ThreadSanitizer too (PoCL's are not instrumented)
$(B)/opencl_tsan/test_opencl: tests/test_opencl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(WARN) -O1 -g -fsanitize=thread -DDAG_USE_PTHREADS -DDAG_BACKEND_OPENCL -I. -Itests $< -o $@ -pthread -ldl

POCL_ENV = POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp
# A second OpenCL implementation: Intel's CPU runtime (from PyPI, by make
# deps), beside PoCL's three devices: four devices on two platforms, and
# one that takes SPIR-V (it runs the Level Zero build of the kernels).
INTEL_OCL := .deps/intel-opencl
# (LeakSanitizer's exit-time scan can crash among an OpenCL runtime's
# threads: it did with Intel's, and once with PoCL's after test_array's
# several set-ups; those runs skip it, and the CPU builds check the same
# code for leaks)
INTEL_ENV = OCL_ICD_VENDORS=$(CURDIR)/$(B)/two_platforms LD_LIBRARY_PATH=$(CURDIR)/$(INTEL_OCL)/lib ASAN_OPTIONS=detect_leaks=0
define need_intel_ocl
	@if [ ! -e $(INTEL_OCL)/lib/libintelocl.so ]; then \
	  echo "skipped: Intel's OpenCL CPU runtime not found in $(INTEL_OCL) (make deps installs it from PyPI)"; \
	  echo "$@: 0 passed, $$([ "$(STRICT)" = 1 ] && echo 1 || echo 0) failed" > $(B)/results-$(1); \
	  [ "$(STRICT)" != 1 ]; exit $$?; fi
	@mkdir -p $(B)/two_platforms; echo "$(CURDIR)/$(INTEL_OCL)/lib/libintelocl.so" > $(B)/two_platforms/intel.icd; \
	  cp /etc/OpenCL/vendors/pocl.icd $(B)/two_platforms/
endef
define need_pocl
	@if ! /sbin/ldconfig -p | grep -q 'libOpenCL.so.1 ' || [ ! -e /etc/OpenCL/vendors/pocl.icd ]; then \
	  echo "skipped: OpenCL on PoCL not found (apt-get install ocl-icd-libopencl1 pocl-opencl-icd)"; \
	  echo "$@: 0 passed, $$([ "$(STRICT)" = 1 ] && echo 1 || echo 0) failed" > $(B)/results-$(1); \
	  [ "$(STRICT)" != 1 ]; exit $$?; fi
endef

test-opencl:
	@mkdir -p $(B) $(B)/no_opencl_vendors $(B)/pocl_cache
	$(call need_pocl,opencl)
	$(call need_intel_ocl,opencl)
	@$(MAKE) --no-print-directory $(B)/allb/test_opencl $(B)/opencl_tsan/test_opencl $(SUITES:%=$(B)/allb/test_%)
	@bash tests/run.sh opencl $(POCL_ENV) DAG_TEST_SCALE=0.05 FUZZ_SEEDS=300 -- \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=3 ./$(B)/allb/test_opencl ";" \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=4 $(INTEL_ENV) ./$(B)/allb/test_opencl ";" \
	    env POCL_DEVICES="pthread pthread pthread" ASAN_OPTIONS=detect_leaks=0 ./$(B)/allb/test_array ";" \
	    env POCL_DEVICES="pthread pthread pthread" DAG_TEST_CL_DEVICES=3 FUZZ_SEEDS=50 TSAN_OPTIONS=halt_on_error=1 \
	        ./$(B)/opencl_tsan/test_opencl ";" \
	    env OCL_ICD_VENDORS=$(CURDIR)/$(B)/no_opencl_vendors DAG_TEST_CL_DEVICES=0 ./$(B)/allb/test_opencl \
	    $(foreach s,$(SUITES),";" env OCL_ICD_VENDORS=$(CURDIR)/$(B)/no_opencl_vendors ./$(B)/allb/test_$(s)) \
	    | tee $(B)/results-opencl.log; tail -n 1 $(B)/results-opencl.log > $(B)/results-opencl; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?$$' $(B)/results-opencl

# The device behaviour tests (tests/gpu), one binary with every backend and
# the kernels built for each: OpenCL runs them on PoCL's three devices;
# CUDA, HIP and Level Zero run them where a device exists and skip them
# where none does (the missing-backend errors and fallback run instead).
$(B)/gpu/test_gpu: tests/gpu/test_gpu.c tests/gpu/kernels.h $(GPU_KERNELS) $(HEADERS)
	$(ALLB_CC) -Itests/gpu $< $(B)/gpu/kernels_hip.c $(B)/gpu/kernels_ze.c $(B)/gpu/kernels_cuda.o -o $@ \
	    -pthread $(CUDA_LIBS) -ldl -lm

# A mock Level Zero loader (tests/gpu/mock_ze.c): the backend's own logic
# runs against it here, where no Level Zero driver exists.
$(B)/gpu/mock_ze/libze_loader.so.1: tests/gpu/mock_ze.c tests/gpu/mock_kernels.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@

# A mock HIP runtime (tests/gpu/mock_hip.c) for the code CUDA and HIP share.
$(B)/gpu/mock_hip/libamdhip64.so: tests/gpu/mock_hip.c tests/gpu/mock_kernels.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC $< -o $@ -pthread

test-gpu:
	@mkdir -p $(B) $(B)/pocl_cache
	$(call need_pocl,gpu)
	$(call need_tool,$(NVCC),the CUDA toolkit in $(CUDA),gpu)
	$(call need_tool,$(HIPCC),hipcc libamdhip64-dev,gpu)
	$(call need_tool,$(LLVM_SPIRV),llvm-spirv-14 spirv-tools,gpu)
	$(call need_intel_ocl,gpu)
	@$(MAKE) --no-print-directory $(B)/gpu/test_gpu $(B)/gpu/mock_ze/libze_loader.so.1 $(B)/gpu/mock_hip/libamdhip64.so
	@bash tests/run.sh gpu $(POCL_ENV) POCL_DEVICES="pthread pthread pthread" -- \
	    ./$(B)/gpu/test_gpu opencl ";" env $(INTEL_ENV) ./$(B)/gpu/test_gpu opencl ";" ./$(B)/gpu/test_gpu cuda ";" ./$(B)/gpu/test_gpu hip ";" ./$(B)/gpu/test_gpu ze ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_ze ./$(B)/gpu/test_gpu ze ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip ./$(B)/gpu/test_gpu hip ";" \
	    env LD_LIBRARY_PATH=$(CURDIR)/$(B)/gpu/mock_hip MOCK_HIP_NO_PEER=1 ./$(B)/gpu/test_gpu hip \
	    | tee $(B)/results-gpu.log; tail -n 1 $(B)/results-gpu.log > $(B)/results-gpu; \
	    grep -Eq ' 0 failed(, [0-9]+ skipped)?$$' $(B)/results-gpu

# Every group runs even if an earlier one failed; the last line sums them up.
test:
	@rm -f $(B)/results-*
	@st=0; for t in check-compile test-gcc test-clang test-asan test-tsan test-helgrind test-opencl test-gpu; do \
	  $(MAKE) --no-print-directory $$t STRICT=$(STRICT) || st=1; done; \
	cat $(B)/results-compile $(B)/results-gcc $(B)/results-clang $(B)/results-asan $(B)/results-tsan $(B)/results-helgrind \
	    $(B)/results-opencl $(B)/results-gpu 2>/dev/null \
	  | awk '{for(i=1;i<=NF;i++){if($$(i+1)=="passed,")p+=$$i; if($$(i+1)~/^failed/)f+=$$i; if($$(i+1)=="skipped")k+=$$i}} \
	         END{print "all: " p " passed, " f " failed" (k ? ", " k " skipped" : ""); exit f>0}' || st=1; \
	exit $$st

fuzz: $(B)/gcc/test_fuzz
	./$(B)/gcc/test_fuzz $${SEEDS:-5000}

# ---- benchmarks -------------------------------------------------------------
include bench/peers.mk

$(B)/bench/dag_tasks: bench/dag_tasks.c bench/bench_common.h dag.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread

bench: $(B)/bench/dag_tasks all-peers
	$(PYTHON) bench/run.py
	@$(MAKE) --no-print-directory bench-opencl
	@$(MAKE) --no-print-directory bench-gpu
	@$(MAKE) --no-print-directory bench-cholesky

# dag.h's device layer against raw OpenCL calls, on PoCL's three CPU devices
$(B)/bench/opencl_chain: bench/opencl_chain.c bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread -ldl

# dag_array_gemm on an OpenCL device through CLBlast, against CLBlast called directly
$(B)/bench/array_gemm_opencl: bench/array_gemm_opencl.c bench/bench_common.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -I. $< -o $@ -pthread -ldl -lm

# dag.h's device layer against raw CUDA and HIP calls; "skipped" without a device
$(B)/bench/gpu_chain: bench/gpu_chain.c bench/bench_common.h tests/gpu/kernels.h $(GPU_KERNELS) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra $(ALL_BACKENDS) -I. -Itests/gpu $< $(B)/gpu/kernels_hip.c $(B)/gpu/kernels_ze.c \
	    $(B)/gpu/kernels_cuda.o -o $@ -pthread $(CUDA_LIBS) -ldl -lm

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

bench-gpu: $(B)/bench/gpu_chain
	./$(B)/bench/gpu_chain

bench-opencl: $(B)/bench/opencl_chain $(B)/bench/array_gemm_opencl
	@mkdir -p $(B)/pocl_cache
	POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache POCL_DEVICES="pthread pthread pthread" ./$(B)/bench/opencl_chain
	POCL_CACHE_DIR=$(CURDIR)/$(B)/pocl_cache POCL_DEVICES=pthread ./$(B)/bench/array_gemm_opencl

# ---- set-up -----------------------------------------------------------------
# Test and benchmark dependencies, from Debian's archive.
DEB_PACKAGES := build-essential clang libclang-rt-14-dev valgrind python3 pkg-config \
                libomp-dev libstarpu-dev graphviz ocl-icd-libopencl1 pocl-opencl-icd clinfo \
                hipcc libamdhip64-dev libze-dev llvm-spirv-14 spirv-tools python3-venv \
                libopenblas-dev liblapacke-dev libclblast1

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

clean:
	rm -rf $(B)
