/* bench/cholesky_mpi.c: dag.h's side of the distributed Cholesky (issue 17):
   dag_array_potrf on an array dealt 2-D block-cyclically over a P x Q grid
   of MPI ranks (dag_blocks_grid; tile (i, j) on rank (i % P) * Q + j % Q,
   as cholesky_scalapack.c and cholesky_starpu_mpi.c), owner computes, the
   same matrix (chol_elem in cholesky_common.h, each rank writing only the
   tiles it owns, by a task placed on the tile's owner) and OpenBLAS's
   kernels, one thread inside each task.
     OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 \
         build/bench/cholesky_mpi [N [NB [P Q [THREADS]]]]
   N = 4096, NB = 256, the squarest grid of every rank (P <= Q) and 1 worker
   thread per rank by default. Timed: from the call of dag_array_potrf to its
   return on every rank (the region's end, data current on its owners and
   the ranks agreed), between barriers, after a warm-up factorisation of a
   small matrix. Output (rank 0), as the peers':
     dag_mpi N NB PxQ seconds GFLOP/s threads=T          (N^3/3 flops)
     dag_mpi residual=||Ax-b||/||b||/N checksum=<sum of L's lower triangle>
     dag_mpi rank R sent B bytes (T tiles) in M messages  (one per rank, in the
                                                          timed factorisation)
   For the check the whole factor goes to rank 0 (dag_array_collect_on),
   which solves L L^T x = b (b_i = 1 + i % 7) and forms A x - b from chol_elem.
   Exit 1 when the residual is above 1e-12. */
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_CBLAS
#include "dag_array.h"
#include "cholesky_common.h"
#include <mpi.h>

/* Tile (i, j) of the test matrix, r x c elements from (r0, c0): on its owner (it writes the tile). */
DAG_TASK(void, fill_tile, (double *, t), (long, r0), (long, c0), (long, r), (long, c), (long, n)) {
    for (long j = 0; j < c; j++)
        for (long i = 0; i < r; i++) t[i + j * r] = chol_elem(r0 + i, c0 + j, n);
}

/* The lower tiles of the N x N test matrix on the grid: every rank spawns every fill alike. */
static dag_array *test_matrix(long n, long nb, int p, int q) {
    dag_array *a = dag_array_zeros(DAG_F64, n, n, dag_blocks_grid(nb, nb, p, q));
    if (!a) return NULL;
    DAG_DATADEPS {
        for (long j = 0; j < dag_array_tile_cols(a); j++)
            for (long i = j; i < dag_array_tile_rows(a); i++) {
                int64_t r, c;
                dag_array_tile_size(a, i, j, &r, &c);
                dag_spawn(fill_tile, Out(dag_array_tile(a, i, j)), Val(i * nb), Val(j * nb), Val((long)r), Val((long)c),
                          Val(n));
            }
    }
    return a;
}

static double factorise(dag_array *a) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    dag_result r = dag_array_potrf(a);
    MPI_Barrier(MPI_COMM_WORLD);
    double s = MPI_Wtime() - t0;
    if (r != DAG_OK) fprintf(stderr, "dag_array_potrf: %s\n", dag_result_string(r));
    return r == DAG_OK ? s : -1;
}

/* On rank 0: the check of cholesky_common.h on the factor l; *sum: its lower triangle's sum */
static double residual(double *l, long n, double *sum) {
    for (long j = 0; j < n; j++)
        for (long i = 0; i < j; i++) l[i + j * n] = 0;   /* the upper triangle is A's, untouched */
    *sum = chol_checksum_matrix(l, n);
    return chol_solve_residual(l, n);
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);   /* dag_setup would, too */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 4096, nb = argc > 2 ? atol(argv[2]) : 256;
    int p = 0, q = 0, threads = argc > 5 ? atoi(argv[5]) : 1;
    if (argc > 4) {
        p = atoi(argv[3]);
        q = atoi(argv[4]);
    } else {   /* the most square P x Q = size with P <= Q, as the peers */
        for (p = 1; (p + 1) * (p + 1) <= size; p++) {}
        while (size % p) p--;
        q = size / p;
    }
    if (n <= 0 || nb <= 0 || p <= 0 || q <= 0 || p * q != size || threads <= 0) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P*Q %s [N [NB [P Q [THREADS]]]] (%d ranks)\n", argv[0], size);
        MPI_Finalize();
        return 2;
    }
    dag_setup(&(dag_desc){ .num_threads = threads });
    if (dag_num_ranks() != size) {
        if (rank == 0) fprintf(stderr, "cholesky_mpi: dag.h runs %d ranks of %d\n", dag_num_ranks(), size);
        return 1;
    }
    long wn = 4 * nb < n ? 4 * nb : n;   /* warm-up */
    dag_array *w = test_matrix(wn, nb, p, q);
    if (!w || factorise(w) < 0) return 1;
    dag_array_free(w);

    dag_array *a = test_matrix(n, nb, p, q);
    if (!a) return 1;
    dag_stats before = dag_get_stats();
    double s = factorise(a);
    dag_stats after = dag_get_stats();
    if (s < 0) return 1;
    if (rank == 0)
        printf("dag_mpi %ld %ld %dx%d %.4f %.2f threads=%d\n", n, nb, p, q, s, (double)n * n * n / 3.0 / s * 1e-9, threads);
    fflush(stdout);

    double *l = rank == 0 ? (double *)malloc(sizeof(double) * (size_t)(n * n)) : NULL;
    int ok = dag_array_collect_on(0, a, l, DAG_COL_MAJOR, n) == DAG_OK;
    if (rank == 0) {
        double sum = 0, res = ok ? residual(l, n, &sum) : 1;
        ok = ok && res <= 1e-12;
        printf("dag_mpi residual=%.3e checksum=%.12e%s\n", res, sum, ok ? "" : " FAILED");
        fflush(stdout);
    }
    free(l);
    dag_array_free(a);
    /* the bytes and messages each rank sent in the timed factorisation, in rank order on rank 0's stdout */
    unsigned long long mine[2] = { after.rank_bytes_sent - before.rank_bytes_sent,
                                   after.rank_messages_sent - before.rank_messages_sent };
    unsigned long long *all = (unsigned long long *)malloc(sizeof mine * (size_t)size);
    MPI_Gather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            printf("dag_mpi rank %d sent %llu bytes (%.0f tiles) in %llu messages\n", r, all[2 * r],
                   (double)all[2 * r] / (double)(nb * nb * 8), all[2 * r + 1]);
    free(all);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    dag_shutdown();
    MPI_Finalize();
    return ok ? 0 : 1;
}
