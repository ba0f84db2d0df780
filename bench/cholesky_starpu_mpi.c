/* bench/cholesky_starpu_mpi.c: peer of the distributed Cholesky (issue 17):
   the right-looking tile Cholesky with StarPU-MPI's task insertion
   (starpu_mpi_task_insert; StarPU 1.3 from libstarpu-dev), NB x NB tiles on
   the 2-D block-cyclic P x Q grid of cholesky_scalapack.c (tile (i, j) is
   owned by rank (i % P) * Q + j % Q, which runs the tasks that write it and
   sends it to the ranks that read it), the same matrix (chol_elem in
   cholesky_common.h, each rank generating only the tiles it owns) and the
   LAPACK kernels ScaLAPACK runs, from OpenBLAS: dpotrf, dtrsm, dsyrk, dgemm
   (one thread inside each task), with the priorities of cholesky_common.h.
     OPENBLAS_NUM_THREADS=1 STARPU_NCPU=1 mpirun --allow-run-as-root \
         --oversubscribe -np 2 build/bench/cholesky_starpu_mpi [N [NB [P Q]]]
   N = 4096, NB = 256 and the grid as in cholesky_scalapack.c by default
   (N a multiple of NB). Workers per rank: STARPU_NCPU, 1 when unset; the
   scheduler STARPU_SCHED, prio (a priority queue, no models) when unset;
   the workers on the CPUs mpirun bound the rank to (STARPU_WORKERS_CPUID
   overrides), StarPU-MPI's progress thread where StarPU puts it.
   Timed: from the first insertion to the end of starpu_mpi_wait_for_all (a
   barrier), after a warm-up factorisation of a small matrix.
   Output (rank 0), one line, then the check and the traffic:
     starpu_mpi N NB PxQ seconds GFLOP/s          (N^3/3 flops)
     starpu_mpi residual=||Ax-b||/||b||/N checksum=<sum of L's lower triangle>
     starpu_mpi rank R sent B bytes (T tiles)     (one per rank, in the timed
                                                   factorisation, STARPU_COMM_STATS)
   For the check every tile of L goes to rank 0, which solves L L^T x = b
   (b_i = 1 + i % 7, as cholesky_scalapack.c) and forms A x - b from chol_elem.
   Exit 1 when the residual is above 1e-12. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include <sched.h>
#include <unistd.h>
#include <starpu_mpi.h>
#include "cholesky_common.h"

static int nb_global, rank, size, P, Q;
static int owner(long i, long j) { return (int)(i % P) * Q + (int)(j % Q); }

#define TILE(b) ((double *)STARPU_MATRIX_GET_PTR(b))
#define LD(b) ((int)STARPU_MATRIX_GET_LD(b))
static void potrf_cpu(void *b[], void *arg) {
    (void)arg;
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nb_global, TILE(b[0]), LD(b[0])))
        fprintf(stderr, "not positive definite\n");
}
/* a (i, k) = a L_kk^-T */
static void trsm_cpu(void *b[], void *arg) {
    (void)arg;
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, nb_global, nb_global, 1.0,
                TILE(b[0]), LD(b[0]), TILE(b[1]), LD(b[1]));
}
static void syrk_cpu(void *b[], void *arg) {
    (void)arg;
    chol_syrk(TILE(b[0]), LD(b[0]), TILE(b[1]), LD(b[1]), nb_global, nb_global);
}
static void gemm_cpu(void *b[], void *arg) {
    (void)arg;
    chol_gemm(TILE(b[0]), LD(b[0]), TILE(b[1]), LD(b[1]), TILE(b[2]), LD(b[2]), nb_global, nb_global, nb_global);
}
static struct starpu_codelet cl_potrf = { .cpu_funcs = { potrf_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "potrf" };
static struct starpu_codelet cl_trsm = { .cpu_funcs = { trsm_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .name = "trsm" };
static struct starpu_codelet cl_syrk = { .cpu_funcs = { syrk_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .name = "syrk" };
static struct starpu_codelet cl_gemm = { .cpu_funcs = { gemm_cpu }, .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW }, .name = "gemm" };

/* The lower tiles h[i + j * nt]: the owner's generated, registered with StarPU-MPI (tag from a counter
   so the warm-up's and the timed run's never meet); other ranks' tiles have no home (-1), StarPU
   receives them into buffers of its own when a local task reads them. */
static starpu_data_handle_t *register_tiles(long n, long nb, double **mem) {
    static int64_t tag;
    long nt = n / nb;
    starpu_data_handle_t *h = (starpu_data_handle_t *)calloc((size_t)(nt * nt), sizeof *h);
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++) {
            double *p = NULL;
            if (owner(i, j) == rank) {
                p = mem[i + j * nt] = (double *)malloc(sizeof(double) * (size_t)(nb * nb));
                for (long c = 0; c < nb; c++)
                    for (long r = 0; r < nb; r++) p[r + c * nb] = chol_elem(i * nb + r, j * nb + c, n);
            }
            starpu_matrix_data_register(&h[i + j * nt], p ? STARPU_MAIN_RAM : -1, (uintptr_t)p, (uint32_t)nb,
                                        (uint32_t)nb, (uint32_t)nb, sizeof(double));
            starpu_mpi_data_register(h[i + j * nt], tag++, owner(i, j));
        }
    return h;
}

/* Inserts the whole factorisation (every rank the same sequence; StarPU-MPI runs each task on the owner of
   the tile it writes and posts the sends and receives); its seconds, to the end of the last task anywhere. */
static double factorise(starpu_data_handle_t *h, long n, long nb) {
    long nt = n / nb;
#define H(i, j) h[(i) + (j) * nt]
    starpu_mpi_barrier(MPI_COMM_WORLD);
    double t0 = starpu_timing_now();
    for (long k = 0; k < nt; k++) {
        starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_potrf, STARPU_RW, H(k, k), STARPU_PRIORITY,
                               chol_prio_potrf(nt, k), 0);
        for (long i = k + 1; i < nt; i++)
            starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_trsm, STARPU_R, H(k, k), STARPU_RW, H(i, k),
                                   STARPU_PRIORITY, chol_prio_panel(nt, k, i), 0);
        for (long i = k + 1; i < nt; i++) {
            starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_syrk, STARPU_R, H(i, k), STARPU_RW, H(i, i),
                                   STARPU_PRIORITY, chol_prio_syrk(nt, i), 0);
            for (long j = k + 1; j < i; j++)
                starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_gemm, STARPU_R, H(i, k), STARPU_R, H(j, k), STARPU_RW,
                                       H(i, j), STARPU_PRIORITY, chol_prio_gemm(nt, i, j), 0);
        }
    }
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);   /* every task here, then a barrier */
#undef H
    return (starpu_timing_now() - t0) * 1e-6;
}

static void unregister_tiles(starpu_data_handle_t *h, double **mem, long nt) {
    for (long k = 0; k < nt * nt; k++)
        if (h[k]) starpu_data_unregister(h[k]);
    for (long k = 0; k < nt * nt; k++) {
        free(mem[k]);
        mem[k] = NULL;
    }
    free(h);
}

/* The check, on rank 0: L assembled from the tiles (all sent there), x from two triangular solves, A x - b
   from chol_elem; ||A x - b|| / ||b|| / n. *sum: the lower triangle's sum. Every rank calls it. */
static double residual(starpu_data_handle_t *h, long n, long nb, double *sum) {
    long nt = n / nb;
    double *l = rank == 0 ? (double *)calloc((size_t)(n * n), sizeof(double)) : NULL;
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++) {
            starpu_data_handle_t t = h[i + j * nt];
            starpu_mpi_get_data_on_node(MPI_COMM_WORLD, t, 0);   /* the owner sends, rank 0 receives */
            if (rank != 0) continue;
            starpu_data_acquire(t, STARPU_R);
            const double *p = (const double *)starpu_data_get_local_ptr(t);
            int ld = (int)starpu_matrix_get_local_ld(t);
            for (long c = 0; c < nb; c++)
                for (long r = 0; r < nb; r++)
                    if (i * nb + r >= j * nb + c) l[(i * nb + r) + (j * nb + c) * n] = p[r + c * ld];
            starpu_data_release(t);
        }
    if (rank != 0) return 0;
    *sum = 0;
    for (long k = 0; k < n * n; k++) *sum += l[k];
    double res = chol_solve_residual(l, n);
    free(l);
    return res;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 4096, nb = argc > 2 ? atol(argv[2]) : 256;
    if (argc > 4) {
        P = atoi(argv[3]);
        Q = atoi(argv[4]);
    } else {   /* the most square P x Q = size with P <= Q, as cholesky_scalapack.c */
        for (P = 1; (P + 1) * (P + 1) <= size; P++) {}
        while (size % P) P--;
        Q = size / P;
    }
    if (n <= 0 || nb <= 0 || n % nb || P <= 0 || Q <= 0 || P * Q != size) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P*Q %s [N [NB [P Q]]] (NB divides N; %d ranks)\n", argv[0], size);
        MPI_Finalize();
        return 2;
    }
    nb_global = (int)nb;
    setenv("STARPU_SILENT", "1", 0);
    setenv("STARPU_SCHED", "prio", 0);
    setenv("STARPU_COMM_STATS", "1", 0);   /* a counter per message; printed at shutdown, read below */
    openblas_set_num_threads(1);
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = getenv("STARPU_NCPU") ? atoi(getenv("STARPU_NCPU")) : 1;
    conf.ncuda = 0;
    conf.nopencl = 0;
    /* StarPU binds its workers from CPU 0 up, whatever CPUs mpirun gave the rank (two ranks on a node then
       share CPU 0): unless STARPU_WORKERS_CPUID says where, the rank's own CPUs, in turn */
    cpu_set_t set;
    if (!getenv("STARPU_WORKERS_CPUID") && sched_getaffinity(0, sizeof set, &set) == 0 &&
        CPU_COUNT(&set) < sysconf(_SC_NPROCESSORS_ONLN)) {
        int cpus = 0;
        for (int c = 0; c < CPU_SETSIZE && cpus < STARPU_NMAXWORKERS; c++)
            if (CPU_ISSET(c, &set)) conf.workers_bindid[cpus++] = (unsigned)c;
        for (int w = cpus; w < STARPU_NMAXWORKERS; w++) conf.workers_bindid[w] = conf.workers_bindid[w % cpus];
        conf.use_explicit_workers_bindid = 1;
    }
    if (starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, &conf) != 0) return 1;

    long nt = n / nb, wn = 4 * nb < n ? 4 * nb : n, wt = wn / nb;   /* warm-up */
    double **mem = (double **)calloc((size_t)(nt * nt), sizeof *mem);
    starpu_data_handle_t *h = register_tiles(wn, nb, mem);
    factorise(h, wn, nb);
    unregister_tiles(h, mem, wt);
    size_t *sent0 = (size_t *)calloc((size_t)size, sizeof(size_t)), *sent1 = (size_t *)calloc((size_t)size, sizeof(size_t));
    h = register_tiles(n, nb, mem);
    starpu_mpi_comm_amounts_retrieve(sent0);
    double s = factorise(h, n, nb);
    starpu_mpi_comm_amounts_retrieve(sent1);
    if (rank == 0) printf("starpu_mpi %ld %ld %dx%d %.4f %.2f\n", n, nb, P, Q, s, (double)n * n * n / 3.0 / s * 1e-9);
    fflush(stdout);
    double sum = 0, res = residual(h, n, nb, &sum);
    int ok = res <= 1e-12;
    if (rank == 0) printf("starpu_mpi residual=%.3e checksum=%.12e%s\n", res, sum, ok ? "" : " FAILED");
    fflush(stdout);
    unregister_tiles(h, mem, nt);
    free(mem);
    starpu_mpi_shutdown();   /* StarPU's MPI thread is gone: plain MPI calls from here */
    /* the bytes each rank sent in the timed factorisation, in rank order on rank 0's stdout */
    unsigned long long bytes = 0, all[size];
    for (int r = 0; r < size; r++) bytes += sent1[r] - sent0[r];
    MPI_Gather(&bytes, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            printf("starpu_mpi rank %d sent %llu bytes (%.0f tiles)\n", r, all[r], (double)all[r] / (double)(nb * nb * 8));
    free(sent0);
    free(sent1);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
