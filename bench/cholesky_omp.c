/* bench/cholesky_omp.c: the same tile Cholesky as OpenMP tasks with depend
   clauses and the same priorities (libgomp honours them up to
   OMP_MAX_TASK_PRIORITY, which bench/cholesky.py sets).
     OMP_NUM_THREADS=2 cholesky_omp N NB */
#include <omp.h>
#include "cholesky_common.h"

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long n = atol(argv[1]), nb = atol(argv[2]), nt = n / nb;
    openblas_set_num_threads(1);
    double **t = chol_tiles(n, nb);
    int failed = 0, top = (int)(4 * nt + 1);
    double t0 = now_s();
#pragma omp parallel
#pragma omp single
    for (long k = 0; k < nt; k++) {
        double *akk = t[k + k * nt], *inv = t[nt * nt + k];
#pragma omp task depend(inout : akk[0]) depend(out : inv[0]) priority(top - 2 * k) shared(failed)
        if (chol_potrf(akk, k == nt - 1 ? NULL : inv, (int)nb)) failed = 1;
        for (long i = k + 1; i < nt; i++) {
            double *aik = t[i + k * nt];
#pragma omp task depend(in : inv[0]) depend(inout : aik[0]) priority(top - 2 * k - i)
            chol_trsm(inv, aik, (int)nb);
        }
        for (long i = k + 1; i < nt; i++) {
            double *aik = t[i + k * nt], *aii = t[i + i * nt];
#pragma omp task depend(in : aik[0]) depend(inout : aii[0]) priority(top - 2 * k - i)
            chol_syrk(aik, aii, (int)nb);
            for (long j = k + 1; j < i; j++) {
                double *ajk = t[j + k * nt], *aij = t[i + j * nt];
#pragma omp task depend(in : aik[0], ajk[0]) depend(inout : aij[0]) priority(top - 2 * k - i - j)
                chol_gemm(aik, ajk, aij, (int)nb);
            }
        }
    }
    double s = now_s() - t0;
    if (failed) return 1;
    chol_report(n, s, chol_checksum_tiles(t, n, nb));
    chol_free_tiles(t, n, nb);
    return 0;
}
