/* bench/scalapack_common.h: what the ScaLAPACK peers (cholesky_scalapack.c,
   lu_scalapack.c) share: BLACS's and ScaLAPACK's entry points that both
   call, the P x Q grid from the command line ([N [NB [P Q]]]; by default
   the most square P x Q = ranks with P <= Q, "Row" order: rank r is grid
   row r / Q, column r % Q), and a rank's part of the test matrix in 2-D
   block-cyclic layout. */
#ifndef SCALAPACK_COMMON_H
#define SCALAPACK_COMMON_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* BLACS and ScaLAPACK have no C header in Debian: their C and Fortran entry points */
extern void Cblacs_get(int ctx, int what, int *val);
extern void Cblacs_gridinit(int *ctx, const char *order, int nprow, int npcol);
extern void Cblacs_gridinfo(int ctx, int *nprow, int *npcol, int *myrow, int *mycol);
extern void Cblacs_gridexit(int ctx);
extern void Cblacs_exit(int keep_mpi);
extern int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
                      const int *icsrc, const int *ctx, const int *lld, int *info);
extern void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
                    const int *ia, const int *ja, const int *desca, const double *x, const int *ix, const int *jx,
                    const int *descx, const int *incx, const double *beta, double *y, const int *iy, const int *jy,
                    const int *descy, const int *incy);
extern double pdlange_(const char *norm, const int *m, const int *n, const double *a, const int *ia, const int *ja,
                       const int *desca, double *work);

static const int i0 = 0, i1 = 1;

/* the grid's view of one rank: context, shape, coordinates */
typedef struct { int ctx, p, q, row, col; } grid;

/* N, NB and the grid from the command line, the BLACS grid made; false (usage said, MPI finalised) on bad
   arguments */
static inline int scalapack_grid_open(int argc, char **argv, int *n, int *nb, grid *g) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *n = argc > 1 ? atoi(argv[1]) : 4096;
    *nb = argc > 2 ? atoi(argv[2]) : 256;
    if (argc > 4) {
        g->p = atoi(argv[3]);
        g->q = atoi(argv[4]);
    } else {
        for (g->p = 1; (g->p + 1) * (g->p + 1) <= size; g->p++) {}
        while (size % g->p) g->p--;
        g->q = size / g->p;
    }
    if (*n <= 0 || *nb <= 0 || g->p <= 0 || g->q <= 0 || g->p * g->q != size) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P*Q %s [N [NB [P Q]]] (%d ranks)\n", argv[0], size);
        MPI_Finalize();
        return 0;
    }
    Cblacs_get(-1, 0, &g->ctx);   /* the system context: MPI_COMM_WORLD */
    Cblacs_gridinit(&g->ctx, "Row", g->p, g->q);
    Cblacs_gridinfo(g->ctx, &g->p, &g->q, &g->row, &g->col);
    return 1;
}
static inline void scalapack_grid_close(grid *g) {
    Cblacs_gridexit(g->ctx);
    Cblacs_exit(1);   /* MPI stays up for MPI_Finalize */
}

/* global index of local row (or column) l, blocks of nb dealt over np processes, this one at coordinate me */
static inline long global_of(long l, int nb, int me, int np) { return ((l / nb) * np + me) * nb + l % nb; }

/* This rank's part of the n x n matrix elem(i, j, n) (column-major, leading dimension max(mloc, 1)) and
   its descriptor. */
static inline double *scalapack_local_matrix(const grid *g, int n, int nb, double (*elem)(long, long, long), int *desc,
                                             int *mloc, int *nloc) {
    *mloc = numroc_(&n, &nb, &g->row, &i0, &g->p);
    *nloc = numroc_(&n, &nb, &g->col, &i0, &g->q);
    int lld = *mloc > 1 ? *mloc : 1, info;
    descinit_(desc, &n, &n, &nb, &nb, &i0, &i0, &g->ctx, &lld, &info);
    double *a = (double *)malloc(sizeof(double) * (size_t)lld * (size_t)(*nloc > 0 ? *nloc : 1));
    for (long lj = 0; lj < *nloc; lj++)
        for (long li = 0; li < *mloc; li++)
            a[li + lj * lld] = elem(global_of(li, nb, g->row, g->p), global_of(lj, nb, g->col, g->q), n);
    return a;
}
#endif
