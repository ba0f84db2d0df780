/* bench/lu_scalapack.c: peer of the distributed pivoted LU (bench/lu_mpi.c):
   ScaLAPACK's pdgetrf on a 2-D block-cyclic P x Q grid of MPI ranks (BLACS
   from libscalapack-openmpi, OpenBLAS underneath), on the matrix of
   lu_common.h, each rank generating its own blocks from their global
   indices. The grid, the blocks and the output are those of
   bench/cholesky_scalapack.c, whose pdpotrf this follows.
     OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 \
         build/bench/lu_scalapack [N [NB [P Q]]]
   N = 4096, NB = 256 and a grid P x Q = ranks with P <= Q as square as it
   goes by default; rank r is grid row r / Q, column r % Q ("Row" order), so
   block (i, j) lives on rank (i % P) * Q + j % Q, as in lu_mpi.c.
   Timed: pdgetrf alone, between two barriers (MPI_Wtime), after a warm-up
   factorisation of a small matrix (first messages, OpenBLAS's buffers).
   Output (rank 0), one line then the check:
     scalapack N NB PxQ seconds GFLOP/s threads=1          (2/3 N^3 flops)
     scalapack residual=R checksum=<sum of the factor> pivots=<sum of ipiv> core=<OpenBLAS kernel>
   R = ||A x - b|| / (||A|| ||x|| N eps) in infinity norms, x from pdgetrs on
   b_i = 1 + i % 7 and A x - b from pdgemv with a fresh A; exit 1 when
   pdgetrf fails or R is above LU_RESIDUAL_MAX. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "lu_common.h"
#include "scalapack_common.h"

/* the routines of this peer alone (scalapack_common.h has the rest) */
extern void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
                     int *info);
extern void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
                     const int *desca, const int *ipiv, double *b, const int *ib, const int *jb, const int *descb,
                     int *info);

/* pdgetrf on a fresh matrix between two barriers: its seconds; the factor stays in *a, the pivots in *ipiv
   (pdgetrf's: the local rows' and a block more) */
static double factorise(const grid *g, int n, int nb, double **a, int **ipiv, int *desc, int *mloc, int *nloc,
                        int *info) {
    *a = scalapack_local_matrix(g, n, nb, lu_elem, desc, mloc, nloc);
    *ipiv = (int *)malloc(sizeof(int) * (size_t)(*mloc + nb));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgetrf_(&n, &n, *a, &i1, &i1, desc, *ipiv, info);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n, nb;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    grid g = { 0 };
    if (!scalapack_grid_open(argc, argv, &n, &nb, &g)) return 2;

    int desc[9], mloc, nloc, info, *ipiv;
    double *a;
    int wn = 4 * nb < n ? 4 * nb : n;   /* warm-up */
    factorise(&g, wn, nb, &a, &ipiv, desc, &mloc, &nloc, &info);
    free(a), free(ipiv);
    double s = factorise(&g, n, nb, &a, &ipiv, desc, &mloc, &nloc, &info);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("scalapack %d %d %dx%d %.4f %.2f threads=1\n", n, nb, g.p, g.q, s, 2.0 * n * n * (double)n / 3.0 / s * 1e-9);
    fflush(stdout);

    /* the check: the sum of the factor and of the pivots (each local row's once: grid column 0's copy) */
    double sums[2] = { 0, 0 };
    int lld = desc[8];
    for (long lj = 0; lj < nloc; lj++)
        for (long li = 0; li < mloc; li++) sums[0] += a[li + lj * lld];
    if (g.col == 0)
        for (long li = 0; li < mloc; li++) sums[1] += ipiv[li];
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* solve A x = b with the factor, r = A x - b with a fresh A */
    int descb[9], bld = mloc > 1 ? mloc : 1;
    descinit_(descb, &n, &i1, &nb, &nb, &i0, &i0, &g.ctx, &bld, &info);
    double *b = (double *)calloc((size_t)bld, sizeof(double)), *x = (double *)calloc((size_t)bld, sizeof(double));
    if (g.col == 0)   /* the vectors live in grid column 0 */
        for (long li = 0; li < mloc; li++) b[li] = x[li] = lu_rhs(global_of(li, nb, g.row, g.p));
    int solve_info = 0;
    if (info == 0) pdgetrs_("N", &n, &i1, a, &i1, &i1, desc, ipiv, x, &i1, &i1, descb, &solve_info);
    free(a);
    a = scalapack_local_matrix(&g, n, nb, lu_elem, desc, &mloc, &nloc);
    const double one = 1.0, minus_one = -1.0;
    double *work = (double *)malloc(sizeof(double) * (size_t)(mloc > 1 ? mloc : 1));   /* pdlange's "I" needs LOCr */
    double a_inf = pdlange_("I", &n, &n, a, &i1, &i1, desc, work);
    double x_inf = pdlange_("I", &n, &i1, x, &i1, &i1, descb, work);
    pdgemv_("N", &n, &n, &one, a, &i1, &i1, desc, x, &i1, &i1, descb, &i1, &minus_one, b, &i1, &i1, descb, &i1);
    double res = lu_scaled_residual(pdlange_("I", &n, &i1, b, &i1, &i1, descb, work), a_inf, x_inf, n);
    int ok = info == 0 && solve_info == 0 && res <= LU_RESIDUAL_MAX;
    if (rank == 0)
        printf("scalapack residual=%.3f checksum=%.9e pivots=%.0f core=%s info=%d%s\n", res, sums[0], sums[1],
               openblas_get_corename(), info, ok ? "" : " FAILED");
    free(a), free(ipiv), free(b), free(x), free(work);
    scalapack_grid_close(&g);
    MPI_Finalize();
    return ok ? 0 : 1;
}
