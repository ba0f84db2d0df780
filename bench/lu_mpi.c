/* bench/lu_mpi.c: dag.h's side of the distributed pivoted LU:
   dag_array_getrf on an array dealt 2-D block-cyclically over a P x Q grid
   of MPI ranks (dag_blocks_grid; tile (i, j) on rank (i % P) * Q + j % Q,
   as bench/lu_scalapack.c deals ScaLAPACK's blocks), the matrix of
   lu_common.h (each rank writing only the tiles it owns, by a task placed
   on the tile's owner), OpenBLAS's kernels with one thread inside each task.
     OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 \
         build/bench/lu_mpi [N [NB [P Q [THREADS]]]]
   N = 4096, NB = 256, the squarest grid of every rank (P <= Q) and 1 worker
   thread per rank by default. Timed: from the call of dag_array_getrf to its
   return on every rank, between barriers, after a warm-up factorisation of
   a small matrix. Output (rank 0), as lu_scalapack's:
     dag_mpi N NB PxQ seconds GFLOP/s threads=T           (2/3 N^3 flops)
     dag_mpi residual=R checksum=<sum of the factor> pivots=<sum of ipiv> core=<OpenBLAS kernel>
     dag_mpi rank R sent B bytes (T tiles) in M messages   (one per rank, in the
                                                           timed factorisation)
   For the check the whole factor goes to rank 0 (dag_array_collect_on),
   which solves A x = b with it and ipiv (b_i = 1 + i % 7) and forms A x - b
   from lu_elem: R = ||A x - b|| / (||A|| ||x|| N eps), infinity norms; exit
   1 when R is above LU_RESIDUAL_MAX.
   LU_MPI_PROFILE=1 also records a trace of the timed factorisation and
   prints, per rank, each kind of task's count and busy seconds and the
   rank's idle share: where the time goes. */
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_CBLAS
#include "dag_array.h"
#include "lu_common.h"
#include <cblas.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile of the test matrix, r x c elements from (r0, c0): on its owner (it writes the tile). */
DAG_TASK(void, fill_tile, (double *, t), (long, r0), (long, c0), (long, r), (long, c), (long, n)) {
    for (long j = 0; j < c; j++)
        for (long i = 0; i < r; i++) t[i + j * r] = lu_elem(r0 + i, c0 + j, n);
}

/* The N x N test matrix on the grid: every rank spawns every fill alike. */
static dag_array *test_matrix(long n, long nb, int p, int q) {
    dag_array *a = dag_array_zeros(DAG_F64, n, n, dag_blocks_grid(nb, nb, p, q));
    if (!a) return NULL;
    DAG_DATADEPS {
        for (long j = 0; j < dag_array_tile_cols(a); j++)
            for (long i = 0; i < dag_array_tile_rows(a); i++) {
                int64_t r, c;
                dag_array_tile_size(a, i, j, &r, &c);
                dag_spawn(fill_tile, Out(dag_array_tile(a, i, j)), Val(i * nb), Val(j * nb), Val((long)r), Val((long)c),
                          Val(n));
            }
    }
    return a;
}

static double factorise(dag_array *a, int64_t *ipiv) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    dag_result r = dag_array_getrf(a, ipiv);
    MPI_Barrier(MPI_COMM_WORLD);
    double s = MPI_Wtime() - t0;
    if (r != DAG_OK) fprintf(stderr, "dag_array_getrf: %s\n", dag_result_string(r));
    return r == DAG_OK ? s : -1;
}

/* On rank 0: x from the factor f (column-major, ld n) and ipiv, then the scaled residual of A x = b. */
static double residual(const double *f, const int64_t *ipiv, long n) {
    double *x = (double *)malloc(sizeof(double) * (size_t)n), *r = (double *)calloc((size_t)n, sizeof(double)),
           *row_abs = (double *)calloc((size_t)n, sizeof(double));
    for (long i = 0; i < n; i++) x[i] = lu_rhs(i);
    for (long k = 0; k < n; k++) {   /* P b, LAPACK's swaps in order */
        double t = x[k];
        x[k] = x[ipiv[k] - 1], x[ipiv[k] - 1] = t;
    }
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, (int)n, f, (int)n, x, 1);
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, (int)n, f, (int)n, x, 1);
    for (long i = 0; i < n; i++) r[i] = -lu_rhs(i);
    for (long j = 0; j < n; j++)   /* a column at a time, as the elements' order goes */
        for (long i = 0; i < n; i++) {
            double a = lu_elem(i, j, n);
            r[i] += a * x[j];
            row_abs[i] += fabs(a);
        }
    double r_inf = 0, a_inf = 0, x_inf = 0;
    for (long i = 0; i < n; i++) {
        r_inf = fmax(r_inf, fabs(r[i]));
        a_inf = fmax(a_inf, row_abs[i]);
        x_inf = fmax(x_inf, fabs(x[i]));
    }
    free(x), free(r), free(row_abs);
    return lu_scaled_residual(r_inf, a_inf, x_inf, n);
}

/* LU_MPI_PROFILE: this rank's tasks of the trace, summed by name, and its workers' idle share of the
   seconds s; printed rank by rank. */
static void profile(double s, int threads) {
    size_t count = dag_trace_records(NULL, 0);
    dag_trace_record *rec = (dag_trace_record *)malloc(sizeof *rec * (count ? count : 1));
    count = dag_trace_records(rec, count);
    enum { KINDS = 16 };
    const char *name[KINDS] = { 0 };
    double busy[KINDS] = { 0 }, all = 0;
    long tasks[KINDS] = { 0 };
    for (size_t t = 0; t < count; t++) {
        int k = 0;
        while (k < KINDS - 1 && name[k] && strcmp(name[k], rec[t].name ? rec[t].name : "?") != 0) k++;
        if (!name[k]) name[k] = rec[t].name ? rec[t].name : "?";
        busy[k] += (rec[t].end_us - rec[t].start_us) * 1e-6;
        tasks[k]++;
        all += (rec[t].end_us - rec[t].start_us) * 1e-6;
    }
    char line[2048];
    int at = snprintf(line, sizeof line, "dag_mpi profile rank %d: busy %.2f s of %.2f s x %d threads (idle %.0f%%):",
                      dag_rank(), all, s, threads, 100.0 * (1.0 - all / (s * threads)));
    for (int k = 0; k < KINDS && name[k] && at < (int)sizeof line; k++)
        at += snprintf(line + at, sizeof line - (size_t)at, " %s %ld %.2fs", name[k], tasks[k], busy[k]);
    free(rec);
    for (int r = 0; r < dag_num_ranks(); r++) {   /* in rank order */
        if (r == dag_rank()) printf("%s\n", line), fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
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
    } else {   /* the most square P x Q = size with P <= Q, as lu_scalapack */
        for (p = 1; (p + 1) * (p + 1) <= size; p++) {}
        while (size % p) p--;
        q = size / p;
    }
    if (n <= 0 || nb <= 0 || p <= 0 || q <= 0 || p * q != size || threads <= 0) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P*Q %s [N [NB [P Q [THREADS]]]] (%d ranks)\n", argv[0], size);
        MPI_Finalize();
        return 2;
    }
    const char *prof = getenv("LU_MPI_PROFILE");
    bool profiling = prof && *prof && strcmp(prof, "0") != 0;
    dag_setup(&(dag_desc){ .num_threads = threads });
    if (dag_num_ranks() != size) {
        if (rank == 0) fprintf(stderr, "lu_mpi: dag.h runs %d ranks of %d\n", dag_num_ranks(), size);
        return 1;
    }
    int64_t *ipiv = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
    long wn = 4 * nb < n ? 4 * nb : n;   /* warm-up */
    dag_array *w = test_matrix(wn, nb, p, q);
    if (!w || factorise(w, ipiv) < 0) return 1;
    dag_array_free(w);

    dag_array *a = test_matrix(n, nb, p, q);
    if (!a) return 1;
    if (profiling) dag_trace_enable(1);
    dag_stats before = dag_get_stats();
    double s = factorise(a, ipiv);
    dag_stats after = dag_get_stats();
    if (profiling) dag_trace_enable(0);
    if (s < 0) return 1;
    if (rank == 0)
        printf("dag_mpi %ld %ld %dx%d %.4f %.2f threads=%d\n", n, nb, p, q, s, 2.0 * n * n * (double)n / 3.0 / s * 1e-9,
               threads);
    fflush(stdout);

    double *f = rank == 0 ? (double *)malloc(sizeof(double) * (size_t)(n * n)) : NULL;
    int ok = dag_array_collect_on(0, a, f, DAG_COL_MAJOR, n) == DAG_OK;
    if (rank == 0) {
        double sum = 0, res = ok ? residual(f, ipiv, n) : INFINITY;
        long long psum = 0;
        for (long i = 0; i < n * n; i++) sum += f[i];
        for (long i = 0; i < n; i++) psum += ipiv[i];
        ok = ok && res <= LU_RESIDUAL_MAX;
        printf("dag_mpi residual=%.3f checksum=%.9e pivots=%lld core=%s%s\n", res, sum, psum, openblas_get_corename(),
               ok ? "" : " FAILED");
        fflush(stdout);
    }
    free(f);
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
    fflush(stdout);
    free(all);
    if (profiling) profile(s, threads);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(ipiv);
    dag_shutdown();
    MPI_Finalize();
    return ok ? 0 : 1;
}
