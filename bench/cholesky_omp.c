/* bench/cholesky_omp.c: the Cholesky as OpenMP tasks with depend clauses and
   the same priorities as dag_array.h (libgomp honours them up to
   OMP_MAX_TASK_PRIORITY, which bench/cholesky.py sets).
     OMP_NUM_THREADS=2 cholesky_omp N NB           tile by tile, on separate tiles
     OMP_NUM_THREADS=2 cholesky_omp N NB panels    dag_array.h's wrapped-matrix algorithm:
         in place on the column-major matrix, by the same blocks of columns
         (chol_block_edges), the solves and updates a column panel chunk at a
         time. OpenMP's depend cannot order overlapping sections, so each task
         depends on a token per block it covers (depend iterators, OpenMP 5.0). */
#include <omp.h>
#include "cholesky_common.h"

static int tiles(long n, long nb) {
    long nt = n / nb;
    double **t = chol_tiles(n, nb);
    int failed = 0;
    double t0 = now_s();
#pragma omp parallel
#pragma omp single
    for (long k = 0; k < nt; k++) {
        double *akk = t[k + k * nt], *inv = t[nt * nt + k];
        int b = (int)nb;
#pragma omp task depend(inout : akk[0]) depend(out : inv[0]) priority(chol_prio_potrf(nt, k)) shared(failed)
        if (chol_potrf(akk, b, k == nt - 1 ? NULL : inv, b)) failed = 1;
        for (long i = k + 1; i < nt; i++) {
            double *aik = t[i + k * nt];
#pragma omp task depend(in : inv[0]) depend(inout : aik[0]) priority(chol_prio_panel(nt, k, i))
            chol_trsm(inv, aik, b, b, b);
        }
        for (long i = k + 1; i < nt; i++) {
            double *aik = t[i + k * nt], *aii = t[i + i * nt];
#pragma omp task depend(in : aik[0]) depend(inout : aii[0]) priority(chol_prio_syrk(nt, i))
            chol_syrk(aik, b, aii, b, b, b);
            for (long j = k + 1; j < i; j++) {
                double *ajk = t[j + k * nt], *aij = t[i + j * nt];
#pragma omp task depend(in : aik[0], ajk[0]) depend(inout : aij[0]) priority(chol_prio_gemm(nt, i, j))
                chol_gemm(aik, b, ajk, b, aij, b, b, b, b);
            }
        }
    }
    double s = now_s() - t0;
    if (failed) return 1;
    chol_report(n, s, chol_checksum_tiles(t, n, nb));
    chol_free_tiles(t, n, nb);
    return 0;
}

static int panels(long n, long nb) {
    long nt = n / nb, chunk_rows = chol_panel_chunk(nt, nb, omp_get_max_threads()) * nb;
    long *edge = (long *)malloc(sizeof(long) * (size_t)(2 * ((n + nb - 1) / nb) + 1));
    if (!edge) return 1;
    long s = chol_block_edges(n, nb, edge);
    double *a = chol_matrix(n), *inv = (double *)calloc((size_t)(3 * nb * nb), sizeof(double));
    char *tok = (char *)calloc((size_t)(s * s), 1);   /* one dependence token per block */
    int failed = 0, ld = (int)n;
    double t0 = now_s();
#define AT(i, j) (a + edge[i] + edge[j] * n)
#pragma omp parallel
#pragma omp single
    for (long k = 0; k < s; k++) {
        double *li = inv + (k % 3) * nb * nb, *akk = AT(k, k);
        int w = (int)(edge[k + 1] - edge[k]);
#pragma omp task depend(inout : tok[k + k * s]) depend(out : li[0]) priority(chol_prio_potrf(s, k)) shared(failed)
        if (chol_potrf(akk, ld, k == s - 1 ? NULL : li, w)) failed = 1;
        for (long i = k + 1, i2; i < s; i = i2) {
            for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
            long c = i2 - i;
            int m = (int)(edge[i2] - edge[i]);
            double *p = AT(i, k);
#pragma omp task depend(in : li[0]) depend(iterator(t = i : i + c), inout : tok[t + k * s]) priority(chol_prio_panel(s, k, i))
            chol_trsm(li, p, ld, m, w);
        }
        for (long j = k + 1; j < s; j++) {
            double *ajk = AT(j, k), *ajj = AT(j, j);
            int wj = (int)(edge[j + 1] - edge[j]);
#pragma omp task depend(in : tok[j + k * s]) depend(inout : tok[j + j * s]) priority(chol_prio_syrk(s, j))
            chol_syrk(ajk, ld, ajj, ld, wj, w);
            for (long i = j + 1, i2; i < s; i = i2) {
                for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
                long c = i2 - i;
                int m = (int)(edge[i2] - edge[i]);
                double *aik = AT(i, k), *aij = AT(i, j);
#pragma omp task depend(iterator(t = i : i + c), in : tok[t + k * s]) depend(in : tok[j + k * s]) \
    depend(iterator(u = i : i + c), inout : tok[u + j * s]) priority(chol_prio_gemm(s, i, j))
                chol_gemm(aik, ld, ajk, ld, aij, ld, m, wj, w);
            }
        }
    }
#undef AT
    double secs = now_s() - t0;
    if (!failed) chol_report(n, secs, chol_checksum_matrix(a, n));
    free(a), free(inv), free(tok), free(edge);
    return failed;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    openblas_set_num_threads(1);
    long n = atol(argv[1]), nb = atol(argv[2]);
    return argc > 3 && strcmp(argv[3], "panels") == 0 ? panels(n, nb) : tiles(n, nb);
}
