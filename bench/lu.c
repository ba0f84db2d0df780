/* bench/lu.c: pivoted LU with dag_array.h against OpenBLAS's own
   multithreaded dgetrf, one mode per run (bench/lu.py interleaves them):

     lu dag N NB        dag_array_getrf in place on the N x N column-major matrix
                        (dag_array_wrap, NB tiles, 2 workers): the panel and each
                        column block's swaps are spans of the matrix, the updates
                        a chunk of rows at a time
     lu dagtiles N NB   dag_array_getrf on an array of its own NB tiles (the panel
                        copied out and back, the rows moved tile by tile)
     lu openblas N      LAPACKE_dgetrf, OpenBLAS with 2 threads
     lu qrdag N NB      dag_array_geqrf in place on the wrapped matrix (QR, LAPACK's
                        layout: R above the diagonal, the reflectors below, tau)
     lu qropenblas N    LAPACKE_dgeqrf, OpenBLAS with 2 threads
     lu tallqrdag M N NB D  dag_array_caqr with D domains (0: dag_array_geqrf; auto: the ones
                        dag_array_caqr(a, 0) chooses) on an M x N array of its own NB tiles
     lu tallqropenblas M N  LAPACKE_dgeqrf of M x N, OpenBLAS with 2 threads
     lu gemm N          cblas_dgemm of two N x N matrices, OpenBLAS with 2 threads: the
                        rate of the kernel every side's updates are made of, which no LU
                        built on OpenBLAS's kernels passes (gflops only, 2 N^3 flops)

   Each prints gflops (2/3 N^3 over the seconds for LU, 2 M N^2 - 2/3 N^3 for QR), the
   seconds, a checksum of the factor (every side's must agree: for QR, the
   sum of R's |diagonal|, whose signs LAPACK leaves to the reflectors) and
   the pivots' sum (0 for QR). */
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_CBLAS
#include "dag_array.h"
#include "bench_common.h"
#include <math.h>

/* count random values, the same on every side (uniform in [-1, 1)): a matrix */
static double *lu_values(long count) {
    double *m = (double *)malloc(sizeof(double) * (size_t)count);
    uint64_t x = 88172645463325252u;
    for (long i = 0; i < count; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        m[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
    }
    return m;
}
static double *lu_matrix(long n) { return lu_values(n * n); }
static void lu_report(long n, double seconds, const double *f, const int64_t *ipiv) {
    double sum = 0;
    int64_t psum = 0;
    for (long i = 0; i < n * n; i += 7) sum += f[i];
    for (long i = 0; i < n; i++) psum += ipiv[i];
    printf("gflops=%.3f seconds=%.4f checksum=%.9e pivots=%lld core=%s\n", 2.0 * n * n * (double)n / 3.0 / seconds * 1e-9,
           seconds, sum, (long long)psum, openblas_get_corename());
}

static int dag_side(long n, long nb, bool tiles) {
    dag_setup(&(dag_desc){ .num_threads = 2 });
    double *m = lu_matrix(n);
    int64_t *ipiv = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
    dag_array *a = tiles ? dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), m, DAG_COL_MAJOR, n)
                         : dag_array_wrap(DAG_F64, n, n, dag_blocks(nb, nb), m, n);
    double t0 = now_s();
    dag_result r = dag_array_getrf(a, ipiv);
    double s = now_s() - t0;
    if (r != DAG_OK) {
        fprintf(stderr, "dag_array_getrf: %s\n", dag_result_string(r));
        return 1;
    }
    if (tiles) dag_array_collect(a, m, DAG_COL_MAJOR, n);
    lu_report(n, s, m, ipiv);
    dag_array_free(a);
    free(m), free(ipiv);
    dag_shutdown();
    return 0;
}

/* A QR of m x n (m >= n): 2 m n^2 - 2/3 n^3 flops (4/3 N^3 when square), and the checksum: the sum of R's
   |diagonal|, whose signs LAPACK leaves to the reflectors. */
static void qr_report(long m, long n, double seconds, const double *f) {
    double sum = 0;
    for (long i = 0; i < n; i++) sum += fabs(f[i + i * m]);
    printf("gflops=%.3f seconds=%.4f checksum=%.9e pivots=0 core=%s\n",
           (2.0 * m * (double)n * n - 2.0 * n * (double)n * n / 3.0) / seconds * 1e-9, seconds, sum, openblas_get_corename());
}

static int dag_qr_side(long n, long nb) {
    dag_setup(&(dag_desc){ .num_threads = 2 });
    double *m = lu_matrix(n), *tau = (double *)malloc(sizeof(double) * (size_t)n);
    dag_array *a = dag_array_wrap(DAG_F64, n, n, dag_blocks(nb, nb), m, n);
    double t0 = now_s();
    dag_result r = dag_array_geqrf(a, tau);
    double s = now_s() - t0;
    if (r != DAG_OK) {
        fprintf(stderr, "dag_array_geqrf: %s\n", dag_result_string(r));
        return 1;
    }
    qr_report(n, n, s, m);
    dag_array_free(a);
    free(m), free(tau);
    dag_shutdown();
    return 0;
}

/* dag_array_geqrf (domains 0) or dag_array_caqr with that many domains, on an m x n array of nb tiles */
static int dag_tall_qr_side(long m, long n, long nb, int domains) {
    dag_setup(&(dag_desc){ .num_threads = 2 });
    double *h = lu_values(m * n), *tau = (double *)malloc(sizeof(double) * (size_t)n);
    dag_array *a = dag_array_from_host(DAG_F64, m, n, dag_blocks(nb, nb), h, DAG_COL_MAJOR, m);
    double t0 = now_s();
    dag_array_qr *f = NULL;
    /* (domains < 0: caqr's own choice) */
    dag_result r = domains ? ((f = dag_array_caqr(a, domains < 0 ? 0 : domains)) ? DAG_OK : DAG_ERR_INVALID_ARGUMENT)
                           : dag_array_geqrf(a, tau);
    double s = now_s() - t0;
    if (r != DAG_OK) {
        fprintf(stderr, "%s: %s\n", domains ? "dag_array_caqr" : "dag_array_geqrf", dag_result_string(r));
        return 1;
    }
    dag_array_collect(a, h, DAG_COL_MAJOR, m);
    qr_report(m, n, s, h);
    dag_array_qr_free(f);
    dag_array_free(a);
    free(h), free(tau);
    dag_shutdown();
    return 0;
}
static int openblas_qr_side(long m, long n) {
    openblas_set_num_threads(2);
    double *h = lu_values(m * n), *tau = (double *)malloc(sizeof(double) * (size_t)n);
    double t0 = now_s();
    int info = (int)LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, h, (lapack_int)m, tau);
    double s = now_s() - t0;
    if (info) return 1;
    qr_report(m, n, s, h);
    free(h), free(tau);
    return 0;
}

static int openblas_side(long n) {
    openblas_set_num_threads(2);
    double *m = lu_matrix(n);
    lapack_int *p = (lapack_int *)malloc(sizeof(lapack_int) * (size_t)n);
    int64_t *ipiv = (int64_t *)malloc(sizeof(int64_t) * (size_t)n);
    double t0 = now_s();
    int info = (int)LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, m, (lapack_int)n, p);
    double s = now_s() - t0;
    if (info) return 1;
    for (long i = 0; i < n; i++) ipiv[i] = p[i];
    lu_report(n, s, m, ipiv);
    free(m), free(p), free(ipiv);
    return 0;
}

static int openblas_gemm_side(long n) {
    openblas_set_num_threads(2);
    double *a = lu_values(n * n), *b = lu_values(n * n), *c = (double *)calloc((size_t)(n * n), sizeof(double));
    double t0 = now_s();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0, c, (int)n);
    double s = now_s() - t0;
    printf("gflops=%.2f seconds=%.3f\n", 2.0 * (double)n * (double)n * (double)n / s / 1e9, s);
    free(a), free(b), free(c);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "gemm") == 0) return openblas_gemm_side(atol(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "dag") == 0) return dag_side(atol(argv[2]), atol(argv[3]), false);
    if (argc >= 4 && strcmp(argv[1], "dagtiles") == 0) return dag_side(atol(argv[2]), atol(argv[3]), true);
    if (argc >= 3 && strcmp(argv[1], "openblas") == 0) return openblas_side(atol(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "qrdag") == 0) return dag_qr_side(atol(argv[2]), atol(argv[3]));
    if (argc >= 3 && strcmp(argv[1], "qropenblas") == 0) return openblas_qr_side(atol(argv[2]), atol(argv[2]));
    if (argc >= 6 && strcmp(argv[1], "tallqrdag") == 0)
        return dag_tall_qr_side(atol(argv[2]), atol(argv[3]), atol(argv[4]), strcmp(argv[5], "auto") ? atoi(argv[5]) : -1);
    if (argc >= 4 && strcmp(argv[1], "tallqropenblas") == 0) return openblas_qr_side(atol(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: %s dag N NB | dagtiles N NB | openblas N | qrdag N NB | qropenblas N | tallqrdag M N NB DOMAINS|auto | tallqropenblas M N | gemm N\n", argv[0]);
    return 2;
}
