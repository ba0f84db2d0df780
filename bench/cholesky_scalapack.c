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

/* BLACS and ScaLAPACK have no C header in Debian: their C and Fortran entry points */
extern void Cblacs_get(int ctx, int what, int *val);
extern void Cblacs_gridinit(int *ctx, const char *order, int nprow, int npcol);
extern void Cblacs_gridinfo(int ctx, int *nprow, int *npcol, int *myrow, int *mycol);
extern void Cblacs_gridexit(int ctx);
extern void Cblacs_exit(int keep_mpi);
extern int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
                      const int *icsrc, const int *ctx, const int *lld, int *info);
extern void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca,
                     int *info);
extern void pdpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
                     const int *desca, double *b, const int *ib, const int *jb, const int *descb, int *info);
extern void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
                    const int *ia, const int *ja, const int *desca, const double *x, const int *ix, const int *jx,
                    const int *descx, const int *incx, const double *beta, double *y, const int *iy, const int *jy,
                    const int *descy, const int *incy);
extern double pdlange_(const char *norm, const int *m, const int *n, const double *a, const int *ia, const int *ja,
                       const int *desca, double *work);

static const int i0 = 0, i1 = 1;

/* the grid's view of one rank: context, shape, coordinates */
typedef struct { int ctx, p, q, row, col; } grid;

/* global index of local row (or column) l, blocks of nb dealt over np processes, this one at coordinate me */
static long global_of(long l, int nb, int me, int np) { return ((l / nb) * np + me) * nb + l % nb; }

/* This rank's part of the n x n matrix (column-major, leading dimension *lld) and its descriptor. */
static double *local_matrix(const grid *g, int n, int nb, int *desc, int *mloc, int *nloc) {
    *mloc = numroc_(&n, &nb, &g->row, &i0, &g->p);
    *nloc = numroc_(&n, &nb, &g->col, &i0, &g->q);
    int lld = *mloc > 1 ? *mloc : 1, info;
    descinit_(desc, &n, &n, &nb, &nb, &i0, &i0, &g->ctx, &lld, &info);
    double *a = (double *)malloc(sizeof(double) * (size_t)lld * (size_t)(*nloc > 0 ? *nloc : 1));
    for (long lj = 0; lj < *nloc; lj++)
        for (long li = 0; li < *mloc; li++)
            a[li + lj * lld] = chol_elem(global_of(li, nb, g->row, g->p), global_of(lj, nb, g->col, g->q), n);
    return a;
}

/* pdpotrf on a fresh matrix between two barriers: its seconds; the factor stays in *a */
static double factorise(const grid *g, int n, int nb, double **a, int *desc, int *mloc, int *nloc, int *info) {
    *a = local_matrix(g, n, nb, desc, mloc, nloc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdpotrf_("L", &n, *a, &i1, &i1, desc, info);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 4096, nb = argc > 2 ? atoi(argv[2]) : 256;
    grid g = { 0 };
    if (argc > 4) {
        g.p = atoi(argv[3]);
        g.q = atoi(argv[4]);
    } else {   /* the most square P x Q = size with P <= Q */
        for (g.p = 1; (g.p + 1) * (g.p + 1) <= size; g.p++) {}
        while (size % g.p) g.p--;
        g.q = size / g.p;
    }
    if (n <= 0 || nb <= 0 || g.p <= 0 || g.q <= 0 || g.p * g.q != size) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P*Q %s [N [NB [P Q]]] (%d ranks)\n", argv[0], size);
        MPI_Finalize();
        return 2;
    }
    Cblacs_get(-1, 0, &g.ctx);   /* the system context: MPI_COMM_WORLD */
    Cblacs_gridinit(&g.ctx, "Row", g.p, g.q);
    Cblacs_gridinfo(g.ctx, &g.p, &g.q, &g.row, &g.col);

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
    a = local_matrix(&g, n, nb, desc, &mloc, &nloc);
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
    Cblacs_gridexit(g.ctx);
    Cblacs_exit(1);   /* MPI stays up for MPI_Finalize */
    MPI_Finalize();
    return ok ? 0 : 1;
}
