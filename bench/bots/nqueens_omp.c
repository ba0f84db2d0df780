/* nqueens_omp.c: BOTS nqueens as OpenMP tasks (nqueens.h has the drawing),
   its if() cut-off version; built for libgomp and libomp.

       make build/bots/nqueens_gomp && OMP_NUM_THREADS=2 build/bots/nqueens_gomp 13 3 */
#include "bots_omp.h"
#include "nqueens.h"

static int cutoff;   /* rows whose tasks are deferred */

static long solve(nq_board b, int n, int j, int depth) {
    if (j == n) return 1;
    if (nq_manual && depth >= cutoff) return nq_serial(b, n, j);
    long part[NQ_MAX] = {0};
    for (int col = 0; col < n; col++) {
#pragma omp task firstprivate(b, col) shared(part) if (depth < cutoff)
        if (nq_place(&b, j, col)) part[col] = solve(b, n, j + 1, depth + 1);
    }
#pragma omp taskwait
    long count = 0;
    for (int col = 0; col < n; col++) count += part[col];
    return count;
}

long nqueens_par(int n, int cut) {
    cutoff = cut;
    long count = 0;
#pragma omp parallel
#pragma omp single
    {
        nq_board empty = {{0}};
        count = solve(empty, n, 0, 0);
    }
    return count;
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, nqueens_main); }
