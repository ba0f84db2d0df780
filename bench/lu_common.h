/* lu_common.h: what both sides of the distributed pivoted LU share
   (bench/lu_mpi.c, dag.h; bench/lu_scalapack.c, ScaLAPACK's pdgetrf): the
   matrix, element by element from its global indices (each rank makes only
   the blocks it holds, so the elements cannot come from one running random
   stream as bench/lu.c's do), the right-hand side of the check, and the
   check's figure, so both sides are judged alike. */
#ifndef LU_COMMON_H
#define LU_COMMON_H
#include <float.h>
#include <stdint.h>

extern char *openblas_get_corename(void);

/* Element (i, j) of the N x N test matrix: uniform in [-1, 1), a hash of the
   column-major index (splitmix64), so any rank can make any block. */
static inline double lu_elem(long i, long j, long n) {
    uint64_t x = (uint64_t)(i + j * n) * 0x9E3779B97F4A7C15u + 0x632BE59BD9B4E019u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    x ^= x >> 31;
    return (double)(x >> 11) / 4503599627370496.0 - 1.0;
}

/* b of the check A x = b */
static inline double lu_rhs(long i) { return 1.0 + (double)(i % 7); }

/* The check's figure, LAPACK's scaled residual of a solve:
   ||A x - b||_inf / (||A||_inf ||x||_inf N eps). A backward stable LU gives
   a few units; LAPACK's own tests fail it above 30. */
#define LU_RESIDUAL_MAX 30.0
static inline double lu_scaled_residual(double r_inf, double a_inf, double x_inf, long n) {
    return r_inf / (a_inf * x_inf * (double)n * DBL_EPSILON);
}
#endif
