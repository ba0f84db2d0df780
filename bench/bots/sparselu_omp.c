/* sparselu_omp.c: BOTS sparselu as OpenMP tasks (sparselu.h has the
   drawing): the loop over k in one task, as BOTS's; built for libgomp and
   libomp.

       make build/bots/sparselu_gomp && OMP_NUM_THREADS=2 build/bots/sparselu_gomp 50 100 */
#include "bots_omp.h"
#include "sparselu.h"

void sparselu_par(float **m, int nb, int bs) {
#pragma omp parallel
#pragma omp single
#pragma omp task
    for (int k = 0; k < nb; k++) {
        float *d = m[k * nb + k];
        lu0(d, bs);
        for (int j = k + 1; j < nb; j++)
            if (m[k * nb + j]) {
#pragma omp task firstprivate(j)
                fwd(d, m[k * nb + j], bs);
            }
        for (int i = k + 1; i < nb; i++)
            if (m[i * nb + k]) {
#pragma omp task firstprivate(i)
                bdiv(d, m[i * nb + k], bs);
            }
#pragma omp taskwait
        for (int i = k + 1; i < nb; i++)
            for (int j = k + 1; j < nb; j++)
                if (m[i * nb + k] && m[k * nb + j]) {
#pragma omp task firstprivate(i, j)
                    bmod_fill(m[i * nb + k], m[k * nb + j], &m[i * nb + j], bs);
                }
#pragma omp taskwait
    }
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, sparselu_main); }
