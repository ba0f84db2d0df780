"""The OpenBLAS kernels every side of a BLAS comparison runs with (the benches set
OPENBLAS_CORETYPE to it for all contenders in one command): OpenBLAS 0.3.21 takes
some virtual CPUs for Prescott and picks slow kernels. SkylakeX's need AVX-512
(elsewhere they stop on an illegal instruction), Haswell's AVX2. bench/peers.mk
picks the same for the MPI peers."""


def coretype():
    flags = open("/proc/cpuinfo").read()
    return "SkylakeX" if " avx512f" in flags else "Haswell" if " avx2" in flags else ""
