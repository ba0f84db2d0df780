# bench/peers.mk - build rules for the peer (comparison) benchmarks.
#
#   build/bench/omp_tasks_gomp    bench/omp_tasks.c    gcc   -fopenmp (libgomp)
#   build/bench/omp_tasks_libomp  bench/omp_tasks.c    clang -fopenmp (LLVM libomp)
#   build/bench/starpu_tasks      bench/starpu_tasks.c gcc + StarPU 1.3 (pkg-config)
#
# Standalone, from the repository root:
#   make -f bench/peers.mk all-peers      # build the three programs
#   make -f bench/peers.mk check-peers    # build + one small run of each workload
#   make -f bench/peers.mk clean-peers
# or `include bench/peers.mk` from the top-level Makefile (it does not take
# over that Makefile's default goal).  Every variable can be overridden.
#
# Compilers are named explicitly (gcc / clang), independent of $(CC).

BENCH_PEERS_SAVED_GOAL := $(.DEFAULT_GOAL)

BENCH_OUT          ?= build/bench
BENCH_GCC          ?= gcc
BENCH_OMP_CLANG    ?= clang
BENCH_PEER_CFLAGS  ?= -O2 -std=c11 -Wall -Wextra

# libgomp: plain gcc -fopenmp.  Never add the LLVM lib dir here: it contains
# a libgomp.so that is a symlink to libomp.so.5.
BENCH_GOMP_CFLAGS  ?= -fopenmp
BENCH_GOMP_LDFLAGS ?= -fopenmp

# LLVM libomp: clang finds omp.h in its resource dir
# (/usr/lib/llvm-14/lib/clang/14.0.6/include); -fopenmp=libomp forces the
# runtime, the -L/rpath make sure libomp.so.5 from LLVM 14 is what is loaded.
BENCH_LLVM_LIBDIR    ?= /usr/lib/llvm-14/lib
BENCH_LIBOMP_CFLAGS  ?= -fopenmp=libomp
BENCH_LIBOMP_LDFLAGS ?= -fopenmp=libomp -L$(BENCH_LLVM_LIBDIR) \
                        -Wl,-rpath,$(BENCH_LLVM_LIBDIR)

# StarPU (Debian 12: libstarpu-dev 1.3.10, pkg-config name starpu-1.3).
BENCH_STARPU_PC      ?= starpu-1.3
BENCH_STARPU_CFLAGS  ?= $(shell pkg-config --cflags $(BENCH_STARPU_PC))
BENCH_STARPU_LIBS    ?= $(shell pkg-config --libs $(BENCH_STARPU_PC))

BENCH_PEER_BINS = $(BENCH_OUT)/omp_tasks_gomp $(BENCH_OUT)/omp_tasks_libomp \
                  $(BENCH_OUT)/starpu_tasks

.PHONY: all-peers check-peers clean-peers

all-peers: $(BENCH_PEER_BINS)

$(BENCH_OUT)/omp_tasks_gomp: bench/omp_tasks.c bench/bench_common.h bench/peers.mk
	@mkdir -p $(BENCH_OUT)
	$(BENCH_GCC) $(BENCH_PEER_CFLAGS) $(BENCH_GOMP_CFLAGS) -o $@ $< \
	    $(BENCH_GOMP_LDFLAGS)

$(BENCH_OUT)/omp_tasks_libomp: bench/omp_tasks.c bench/bench_common.h bench/peers.mk
	@mkdir -p $(BENCH_OUT)
	$(BENCH_OMP_CLANG) $(BENCH_PEER_CFLAGS) $(BENCH_LIBOMP_CFLAGS) -o $@ $< \
	    $(BENCH_LIBOMP_LDFLAGS)

$(BENCH_OUT)/starpu_tasks: bench/starpu_tasks.c bench/bench_common.h bench/peers.mk
	@mkdir -p $(BENCH_OUT)
	$(BENCH_GCC) $(BENCH_PEER_CFLAGS) $(BENCH_STARPU_CFLAGS) -o $@ $< \
	    $(BENCH_STARPU_LIBS)

# One small run of every workload on every peer (2 threads / 2 workers).
BENCH_PEER_ENV ?= OMP_NUM_THREADS=2 STARPU_NCPU=2
check-peers: all-peers
	@for b in $(BENCH_PEER_BINS); do \
	  for w in "empty 100000" "out 100000" "chain 100000" "stencil 100 8 1000"; do \
	    printf '%-30s %-20s ' "$$b" "$$w"; \
	    env $(BENCH_PEER_ENV) $$b $$w || exit 1; \
	  done; \
	done

clean-peers:
	rm -f $(BENCH_PEER_BINS)

# When included from another Makefile before its first rule, give the
# default goal back to that Makefile.
ifeq ($(BENCH_PEERS_SAVED_GOAL),)
ifneq ($(notdir $(firstword $(MAKEFILE_LIST))),peers.mk)
.DEFAULT_GOAL :=
endif
endif
