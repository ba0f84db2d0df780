/* bench/cholesky_scalapack.c: peer of the distributed Cholesky (issue 17):
   ScaLAPACK's pdpotrf on a 2-D block-cyclic P x Q grid of MPI ranks (BLACS
   from libscalapack-openmpi, OpenBLAS underneath), on the matrix every
   Cholesky bench builds (chol_elem in cholesky_common.h), each rank
   generating its own blocks from their global indices.
     OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 \
         build/bench/cholesky_scalapack [N [NB [P Q]]]
   N = 4096, NB = 256 and a grid P x Q = ranks with P <= Q as square as it
   goes by default; rank r is grid row r / Q, column r % Q ("Row" order), so
   tile (i, j) lives on rank (i % P) * Q + j % Q, as in cholesky_starpu_mpi.c.
   Timed: pdpotrf alone, between two barriers (MPI_Wtime), after a warm-up
   factorisation of a small matrix (first messages, OpenBLAS's buffers).
   Output (rank 0), one line then the check:
     scalapack N NB PxQ seconds GFLOP/s          (N^3/3 flops)
     scalapack residual=||Ax-b||/||b||/N checksum=<sum of L's lower triangle>
   The residual is from pdpotrs on b_i = 1 + i % 7 and pdgemv with a copy of
   A; exit 1 when pdpotrf fails or the residual is above 1e-12. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include "cholesky_common.h"
#include "scalapack_common.h"

/* the routines of this peer alone (scalapack_common.h has the rest) */
extern void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca,
                     int *info);
extern void pdpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
                     const int *desca, double *b, const int *ib, const int *jb, const int *descb, int *info);

/* pdpotrf on a fresh matrix between two barriers: its seconds; the factor stays in *a */
static double factorise(const grid *g, int n, int nb, double **a, int *desc, int *mloc, int *nloc, int *info) {
    *a = scalapack_local_matrix(g, n, nb, chol_elem, desc, mloc, nloc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdpotrf_("L", &n, *a, &i1, &i1, desc, info);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n, nb;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    grid g = { 0 };
    if (!scalapack_grid_open(argc, argv, &n, &nb, &g)) return 2;

    int desc[9], mloc, nloc, info;
    double *a;
    int wn = 4 * nb < n ? 4 * nb : n;   /* warm-up */
    factorise(&g, wn, nb, &a, desc, &mloc, &nloc, &info);
    free(a);
    double s = factorise(&g, n, nb, &a, desc, &mloc, &nloc, &info);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("scalapack %d %d %dx%d %.4f %.2f\n", n, nb, g.p, g.q, s, (double)n * n * n / 3.0 / s * 1e-9);

    /* the check: checksum of L's lower triangle; solve A x = b with the factor, r = A x - b with a fresh A */
    double sum = 0;
    int lld = desc[8];
    for (long lj = 0; lj < nloc; lj++)
        for (long li = 0; li < mloc; li++)
            if (global_of(li, nb, g.row, g.p) >= global_of(lj, nb, g.col, g.q)) sum += a[li + lj * lld];
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int descb[9], bld = mloc > 1 ? mloc : 1;
    descinit_(descb, &n, &i1, &nb, &nb, &i0, &i0, &g.ctx, &bld, &info);
    double *b = (double *)calloc((size_t)bld, sizeof(double)), *x = (double *)calloc((size_t)bld, sizeof(double));
    if (g.col == 0)   /* the vectors live in grid column 0 */
        for (long li = 0; li < mloc; li++) b[li] = x[li] = 1.0 + (double)(global_of(li, nb, g.row, g.p) % 7);
    int solve_info = 0;
    if (info == 0) pdpotrs_("L", &n, &i1, a, &i1, &i1, desc, x, &i1, &i1, descb, &solve_info);
    free(a);
    a = scalapack_local_matrix(&g, n, nb, chol_elem, desc, &mloc, &nloc);
    const double one = 1.0, minus_one = -1.0;
    double work[1], bnorm = pdlange_("F", &n, &i1, b, &i1, &i1, descb, work);
    pdgemv_("N", &n, &n, &one, a, &i1, &i1, desc, x, &i1, &i1, descb, &i1, &minus_one, b, &i1, &i1, descb, &i1);
    double res = pdlange_("F", &n, &i1, b, &i1, &i1, descb, work) / bnorm / n;
    int ok = info == 0 && solve_info == 0 && res <= 1e-12;
    if (rank == 0)
        printf("scalapack residual=%.3e checksum=%.12e info=%d%s\n", res, sum, info, ok ? "" : " FAILED");
    free(a);
    free(b);
    free(x);
    scalapack_grid_close(&g);
    MPI_Finalize();
    return ok ? 0 : 1;
}
