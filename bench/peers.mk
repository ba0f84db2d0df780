# bench/peers.mk - build rules for the peer (comparison) benchmarks.
#
#   build/bench/omp_tasks_gomp    bench/omp_tasks.c    gcc   -fopenmp (libgomp)
#   build/bench/omp_tasks_libomp  bench/omp_tasks.c    clang -fopenmp (LLVM libomp)
#   build/bench/starpu_tasks      bench/starpu_tasks.c gcc + StarPU 1.3 (pkg-config)
#
# and the MPI peers of the distributed Cholesky (issue 17), each skipped with
# a "skipped: ..." line and the packages to install when its library is missing:
#   build/bench/cholesky_scalapack   bench/cholesky_scalapack.c   gcc + Open MPI,
#                                    ScaLAPACK (libscalapack-openmpi), OpenBLAS
#   build/bench/cholesky_starpu_mpi  bench/cholesky_starpu_mpi.c  gcc + Open MPI,
#                                    StarPU-MPI 1.3, LAPACKE, OpenBLAS
#
# Standalone, from the repository root:
#   make -f bench/peers.mk all-peers      # build the three programs
#   make -f bench/peers.mk check-peers    # build + one small run of each workload
#   make -f bench/peers.mk clean-peers
#   make -f bench/peers.mk all-mpi-peers    # the two MPI programs
#   make -f bench/peers.mk check-mpi-peers  # + one small run of each, 2 ranks
#   make -f bench/peers.mk bench-mpi-peers  # N = 2048, 4096 (NB 256), 2 ranks x
#                                           # 1 thread, with bench/cholesky_comm.py's
#                                           # lower bound on the traffic
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

.PHONY: all-peers check-peers clean-peers all-mpi-peers check-mpi-peers bench-mpi-peers

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

# ---- MPI peers (issue 17) ----
# Open MPI, ScaLAPACK and StarPU-MPI by their pkg-config names (Debian 12:
# mpi from libopenmpi-dev, scalapack-openmpi from libscalapack-openmpi-dev,
# starpumpi-1.3 from libstarpu-dev; its .pc does not name MPI, hence mpi).
BENCH_MPI_PC         ?= mpi
BENCH_SCALAPACK_PC   ?= scalapack-openmpi
BENCH_STARPUMPI_PC   ?= starpumpi-1.3
BENCH_LAPACKE_H      ?= /usr/include/lapacke.h
BENCH_MPI_BLAS_LIBS  ?= -llapacke -lopenblas -lm
BENCH_HAVE_SCALAPACK := $(if $(wildcard $(BENCH_LAPACKE_H)),$(shell pkg-config --exists $(BENCH_MPI_PC) \
                          $(BENCH_SCALAPACK_PC) openblas 2>/dev/null && echo yes))
BENCH_HAVE_STARPUMPI := $(if $(wildcard $(BENCH_LAPACKE_H)),$(shell pkg-config --exists $(BENCH_MPI_PC) \
                          $(BENCH_STARPUMPI_PC) openblas 2>/dev/null && echo yes))
BENCH_MPI_HINT       ?= apt-get install openmpi-bin libopenmpi-dev libopenblas-dev liblapacke-dev

# the number of ranks, their P x Q grid (as "P Q"), the mpirun line and the environment of the runs:
# one OpenBLAS thread and one StarPU worker per rank, and the kernels of bench/openblas_kernel.py
BENCH_MPI_NP   ?= 2
BENCH_MPI_GRID ?= 1 $(BENCH_MPI_NP)
BENCH_MPIRUN   ?= mpirun --allow-run-as-root --oversubscribe -np $(BENCH_MPI_NP)
BENCH_CORETYPE ?= $(shell cd bench && python3 -c 'from openblas_kernel import coretype; print(coretype())' 2>/dev/null)
BENCH_MPI_ENV  ?= OPENBLAS_NUM_THREADS=1 $(if $(BENCH_CORETYPE),OPENBLAS_CORETYPE=$(BENCH_CORETYPE)) STARPU_NCPU=1 STARPU_SILENT=1
BENCH_MPI_BINS  = $(BENCH_OUT)/cholesky_scalapack $(BENCH_OUT)/cholesky_starpu_mpi

all-mpi-peers: $(BENCH_MPI_BINS)

$(BENCH_OUT)/cholesky_scalapack: bench/cholesky_scalapack.c bench/cholesky_common.h bench/bench_common.h bench/peers.mk
ifeq ($(BENCH_HAVE_SCALAPACK),yes)
	@mkdir -p $(BENCH_OUT)
	$(BENCH_GCC) $(BENCH_PEER_CFLAGS) $(shell pkg-config --cflags $(BENCH_MPI_PC)) -Ibench -o $@ $< \
	    $(shell pkg-config --libs $(BENCH_SCALAPACK_PC) $(BENCH_MPI_PC)) $(BENCH_MPI_BLAS_LIBS)
else
	@echo "skipped: $@: needs Open MPI, ScaLAPACK, OpenBLAS and LAPACKE (pkg-config $(BENCH_MPI_PC) \
	$(BENCH_SCALAPACK_PC) openblas, $(BENCH_LAPACKE_H)) ($(BENCH_MPI_HINT) libscalapack-openmpi-dev)"
endif

$(BENCH_OUT)/cholesky_starpu_mpi: bench/cholesky_starpu_mpi.c bench/cholesky_common.h bench/bench_common.h bench/peers.mk
ifeq ($(BENCH_HAVE_STARPUMPI),yes)
	@mkdir -p $(BENCH_OUT)
	$(BENCH_GCC) $(BENCH_PEER_CFLAGS) $(shell pkg-config --cflags $(BENCH_STARPUMPI_PC) $(BENCH_MPI_PC)) -Ibench \
	    -o $@ $< $(shell pkg-config --libs $(BENCH_STARPUMPI_PC) $(BENCH_MPI_PC)) $(BENCH_MPI_BLAS_LIBS)
else
	@echo "skipped: $@: needs Open MPI, StarPU-MPI, OpenBLAS and LAPACKE (pkg-config $(BENCH_MPI_PC) \
	$(BENCH_STARPUMPI_PC) openblas, $(BENCH_LAPACKE_H)) ($(BENCH_MPI_HINT) libstarpu-dev)"
endif

# $(call bench_mpi_run,ARGS): each MPI peer that was built, on ARGS; one not built is named and skipped
bench_mpi_run = for b in $(BENCH_MPI_BINS); do \
	  if [ ! -x $$b ]; then echo "skipped: $$b (not built)"; continue; fi; \
	  env $(BENCH_MPI_ENV) $(BENCH_MPIRUN) $$b $(1) || exit 1; \
	done

# one small run of each (residual checked: exit 1 on a bad one)
check-mpi-peers: all-mpi-peers
	@$(call bench_mpi_run,1024 128)

# the figures of issue 17 and the reference traffic they are compared with
bench-mpi-peers: all-mpi-peers
	@for n in 2048 4096; do \
	  $(call bench_mpi_run,$$n 256 $(BENCH_MPI_GRID)); \
	  python3 bench/cholesky_comm.py $$n 256 $(BENCH_MPI_GRID) | sed -n '3,$$p'; \
	done

clean-peers:
	rm -f $(BENCH_PEER_BINS) $(BENCH_MPI_BINS)

# When included from another Makefile before its first rule, give the
# default goal back to that Makefile.
ifeq ($(BENCH_PEERS_SAVED_GOAL),)
ifneq ($(notdir $(firstword $(MAKEFILE_LIST))),peers.mk)
.DEFAULT_GOAL :=
endif
endif
