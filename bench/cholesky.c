/* bench/cholesky.c: tiled Cholesky with dag_array.h, OpenBLAS's own
   multithreaded dpotrf, and the dgemm peaks, one mode per run (the driver,
   bench/cholesky.py, interleaves them with the OpenMP and StarPU sides):

     cholesky dag N NB        dag_array_potrf in place on the N x N column-major matrix
                              (dag_array_wrap, NB tiles, 2 workers): column-panel updates
     cholesky dagtiles N NB   dag_array_potrf on an array of its own NB tiles: tile by tile,
                              the same algorithm as the libgomp and StarPU sides
     cholesky openblas N      LAPACKE_dpotrf, OpenBLAS with 2 threads
     cholesky peak N NB       2-thread dgemm on N, and 1-thread dgemm on an NB tile
                              (repeated on one, and on tiles drawn from 128 MiB)
*/
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_CBLAS
#include "dag_array.h"
#include "cholesky_common.h"

/* dag_array_potrf on a, timed; nonzero (and a message) when it fails */
static int timed_potrf(dag_array *a, double *seconds) {
    double t0 = now_s();
    dag_result r = dag_array_potrf(a);
    *seconds = now_s() - t0;
    if (r == DAG_OK) return 0;
    fprintf(stderr, "dag_array_potrf: %s\n", dag_result_string(r));
    return 1;
}

/* What a LAPACK user would call: the matrix in place, as OpenBLAS's side gets it. */
static int dag_wrap_side(long n, long nb) {
    dag_setup(&(dag_desc){ .num_threads = 2 });
    double *m = chol_matrix(n);
    dag_array *a = dag_array_wrap(DAG_F64, n, n, dag_blocks(nb, nb), m, n);
    double s;
    if (timed_potrf(a, &s)) return 1;
    dag_array_free(a);
    chol_report(n, s, chol_checksum_matrix(m, n));
    free(m);
    dag_shutdown();
    return 0;
}

static int dag_tiles_side(long n, long nb) {
    dag_setup(&(dag_desc){ .num_threads = 2 });
    double **t = chol_tiles(n, nb);
    long nt = n / nb;
    /* the array's tiles are the same tiles: built from them, outside the timing */
    dag_array *a = dag_array_zeros(DAG_F64, n, n, dag_blocks(nb, nb));
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++) memcpy(dag_data_pointer(dag_array_tile(a, i, j)), t[i + j * nt], sizeof(double) * (size_t)(nb * nb));
    double s;
    if (timed_potrf(a, &s)) return 1;
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++) memcpy(t[i + j * nt], dag_data_pointer(dag_array_tile(a, i, j)), sizeof(double) * (size_t)(nb * nb));
    chol_report(n, s, chol_checksum_tiles(t, n, nb));
    dag_array_free(a);
    chol_free_tiles(t, n, nb);
    dag_shutdown();
    return 0;
}

static int openblas_side(long n) {
    openblas_set_num_threads(2);
    double *m = chol_matrix(n);
    double t0 = now_s();
    int info = (int)LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, m, (lapack_int)n);
    double s = now_s() - t0;
    if (info) return 1;
    chol_report(n, s, chol_checksum_matrix(m, n));
    free(m);
    return 0;
}

static int peak_side(long n, long nb) {
    double *a = (double *)malloc(sizeof(double) * (size_t)(n * n)), *b = (double *)malloc(sizeof(double) * (size_t)(n * n)),
           *c = (double *)calloc((size_t)(n * n), sizeof(double));
    for (long i = 0; i < n * n; i++) a[i] = (double)(i % 7) * 0.1, b[i] = (double)(i % 5) * 0.1;
    openblas_set_num_threads(2);
    double t0 = now_s();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0, c, (int)n);
    double big = 2.0 * n * n * (double)n / (now_s() - t0) * 1e-9;
    openblas_set_num_threads(1);
    int reps = 20;
    chol_gemm(a, (int)nb, b, (int)nb, c, (int)nb, (int)nb, (int)nb, (int)nb);   /* warm */
    t0 = now_s();
    for (int r = 0; r < reps; r++) chol_gemm(a, (int)nb, b, (int)nb, c, (int)nb, (int)nb, (int)nb, (int)nb);
    double tile = reps * 2.0 * nb * nb * (double)nb / (now_s() - t0) * 1e-9;
    /* the same product on tiles drawn from 128 MiB of them, as in a factorisation, whose operands come from
       L3 or memory rather than the cache the repeated product keeps them in */
    int pool = (int)((128l << 20) / (8 * nb * nb));
    double **t = (double **)malloc(sizeof *t * (size_t)pool);
    for (int i = 0; i < pool; i++) {
        t[i] = (double *)malloc(sizeof(double) * (size_t)(nb * nb));
        for (long j = 0; j < nb * nb; j++) t[i][j] = (double)(j % 7) * 0.1;
    }
    unsigned x = 12345;
#define NEXT_TILE() t[(x = x * 1103515245u + 12345u, (x >> 8) % (unsigned)pool)]
    reps = (int)(5e9 / (2.0 * nb * nb * (double)nb)) + 15;   /* a tenth of a second or more */
    t0 = now_s();
    for (int r = 0; r < reps; r++) {
        double *ta = NEXT_TILE(), *tb = NEXT_TILE(), *tc = NEXT_TILE();
        chol_gemm(ta, (int)nb, tb, (int)nb, tc, (int)nb, (int)nb, (int)nb, (int)nb);
    }
#undef NEXT_TILE
    double cold = reps * 2.0 * nb * nb * (double)nb / (now_s() - t0) * 1e-9;
    printf("dgemm2=%.3f tile1=%.3f tile1cold=%.3f core=%s\n", big, tile, cold, openblas_get_corename());
    for (int i = 0; i < pool; i++) free(t[i]);
    free(t), free(a), free(b), free(c);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "dag") == 0) return dag_wrap_side(atol(argv[2]), atol(argv[3]));
    if (argc >= 4 && strcmp(argv[1], "dagtiles") == 0) return dag_tiles_side(atol(argv[2]), atol(argv[3]));
    if (argc >= 3 && strcmp(argv[1], "openblas") == 0) return openblas_side(atol(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "peak") == 0) return peak_side(atol(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: %s dag N NB | dagtiles N NB | openblas N | peak N NB\n", argv[0]);
    return 2;
}
