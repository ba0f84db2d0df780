/* strassen_omp.c: BOTS strassen as OpenMP tasks (strassen.h has the
   drawing), its if() cut-off version; built for libgomp and libomp.

       make build/bots/strassen_gomp && OMP_NUM_THREADS=2 build/bots/strassen_gomp 1024 3 */
#include "bots_omp.h"
#include "strassen.h"

static int deferred;   /* levels whose products are deferred tasks */

static void multiply(strassen_product m, int n, int depth) {
    strassen_level l;
    strassen_product p[7];
    if (!strassen_split(&l, m, n, p)) return;   /* a leaf, multiplied */
    for (int k = 0; k < 7; k++) {
#pragma omp task if (depth < deferred)
        multiply(p[k], l.h, depth + 1);
    }
#pragma omp taskwait
    strassen_join(&l, m.cn);
}

void strassen_par(double *c, const double *a, const double *b, int n, int depth) {
    deferred = depth;
#pragma omp parallel
#pragma omp single
#pragma omp task
    multiply((strassen_product){c, a, b, n, n, n}, n, 0);
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, strassen_main); }
