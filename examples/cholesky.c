/* examples/cholesky.c: the showcase. A tiled Cholesky factorisation of an
   SPD matrix with dag_array.h, in place on a column-major matrix
   (dag_array_wrap, as LAPACK's dpotrf takes it): it checks the residual,
   prints GFLOP/s, and writes the run's trace as a Gantt chart
   (cholesky.svg, any browser) and its DAG (cholesky.dot, Graphviz).

       cc -std=c11 -O2 -I. examples/cholesky.c -o cholesky -pthread -lm
       ./cholesky [N [NB]]        (default 1024 in 128 tiles)

   Built with -DDAG_ARRAY_CBLAS and OpenBLAS (add -llapacke -lopenblas)
   the tiles run at BLAS speed; without, on dag_array.h's own loops. */
#define DAG_IMPLEMENTATION
#include "dag_array.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1024, nb = argc > 2 ? atoi(argv[2]) : 128;
    if (n <= 0 || nb <= 0) {
        fprintf(stderr, "usage: %s [N [NB]]\n", argv[0]);
        return 2;
    }
    dag_setup(NULL);
    /* A = R R^T / n + I: symmetric positive definite */
    double *r = (double *)malloc(sizeof(double) * (size_t)n * n), *a = (double *)malloc(sizeof(double) * (size_t)n * n);
    dag_array *R = dag_array_randn(DAG_F64, n, n, dag_blocks(nb, nb), 7);
    dag_array *A = dag_array_zeros(DAG_F64, n, n, dag_blocks(nb, nb));
    if (!R || !A || !r || !a) return 1;
    dag_array_gemm(0, 1, 1.0 / n, R, R, 0.0, A);
    dag_array_collect(A, a, DAG_COL_MAJOR, n);
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += 1.0;
    dag_array_free(A);
    /* factorised in place, as LAPACK would: the array wraps the column-major matrix r */
    memcpy(r, a, sizeof(double) * (size_t)n * n);
    A = dag_array_wrap(DAG_F64, n, n, dag_blocks(nb, nb), r, n);

    dag_trace_enable(1);
    dag_trace_clear();
    double t0 = now();
    dag_result res = dag_array_potrf(A);
    double s = now() - t0;
    dag_trace_enable(0);
    if (res != DAG_OK) {
        fprintf(stderr, "dag_array_potrf: %s\n", dag_result_string(res));
        return 1;
    }

    /* the residual ||A - L L^T|| / ||A|| over the lower triangle: L is in r */
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double sum = 0;
            for (int p = 0; p <= j; p++) sum += r[i + (size_t)p * n] * r[j + (size_t)p * n];
            num += (a[i + (size_t)j * n] - sum) * (a[i + (size_t)j * n] - sum);
            den += a[i + (size_t)j * n] * a[i + (size_t)j * n];
        }
    double residual = sqrt(num / den);
    printf("Cholesky of %d x %d in %d x %d tiles on %d threads: %.3f s, %.1f GFLOP/s, residual %.2e\n", n, n, nb, nb,
           dag_num_threads(), s, (double)n * n * n / 3.0 / s * 1e-9, residual);
    /* in the current directory; each line is printed only if its file was written */
    if (dag_trace_write_svg("cholesky.svg") == DAG_OK)
        printf("wrote cholesky.svg (Gantt chart: open it in a browser)\n");
    if (dag_trace_write_dot("cholesky.dot") == DAG_OK)
        printf("wrote cholesky.dot (the DAG: dot -Tsvg cholesky.dot -o cholesky_dag.svg)\n");
    dag_array_free(A);
    dag_array_free(R);
    free(r), free(a);
    dag_shutdown();
    return residual < 1e-12 ? 0 : 1;
}
