/* sparselu_dag.c: BOTS sparselu on dag.h (sparselu.h has the drawing): the
   loop over k runs on the main thread, as BOTS's in its one task; the block
   operations are void tasks on block pointers (Val), and dag_wait_all waits
   for them as BOTS's taskwait.

       make build/bots/sparselu_dag && DAG_NUM_THREADS=2 build/bots/sparselu_dag 50 100 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "sparselu.h"

DAG_TASK(void, fwd_task, (const float *, d), (float *, col), (int, bs)) { fwd(d, col, bs); }
DAG_TASK(void, bdiv_task, (const float *, d), (float *, row), (int, bs)) { bdiv(d, row, bs); }
DAG_TASK(void, bmod_task, (const float *, row), (const float *, col), (float **, inner), (int, bs)) {
    bmod_fill(row, col, inner, bs);
}

void sparselu_par(float **m, int nb, int bs) {
    for (int k = 0; k < nb; k++) {
        float *d = m[k * nb + k];
        lu0(d, bs);
        for (int j = k + 1; j < nb; j++)
            if (m[k * nb + j]) dag_spawn(fwd_task, Val(d), Val(m[k * nb + j]), Val(bs));
        for (int i = k + 1; i < nb; i++)
            if (m[i * nb + k]) dag_spawn(bdiv_task, Val(d), Val(m[i * nb + k]), Val(bs));
        dag_wait_all();
        for (int i = k + 1; i < nb; i++)
            for (int j = k + 1; j < nb; j++)
                if (m[i * nb + k] && m[k * nb + j])
                    dag_spawn(bmod_task, Val(m[i * nb + k]), Val(m[k * nb + j]), Val(&m[i * nb + j]), Val(bs));
        dag_wait_all();
    }
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, sparselu_main); }
