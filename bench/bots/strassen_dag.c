/* strassen_dag.c: BOTS strassen on dag.h (strassen.h has the drawing): the
   seven products are void tasks (the pointers and strides by Val, one
   struct); below DEPTH they run inline (.run_inline), and dag_wait_all in
   the body waits for them (OpenMP's taskwait).

       make build/bots/strassen_dag && DAG_NUM_THREADS=2 build/bots/strassen_dag 1024 3 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "strassen.h"

static int deferred;   /* levels whose products are deferred tasks */

DAG_TASK(void, multiply, (strassen_product, m), (int, n), (int, depth)) {
    strassen_level l;
    strassen_product p[7];
    if (!strassen_split(&l, m, n, p)) return;   /* a leaf, multiplied */
    for (int k = 0; k < 7; k++)
        dag_spawn_with(&(dag_options){ .run_inline = depth >= deferred }, multiply, Val(p[k]), Val(l.h), Val(depth + 1));
    dag_wait_all();
    strassen_join(&l, m.cn);
}

void strassen_par(double *c, const double *a, const double *b, int n, int depth) {
    deferred = depth;
    strassen_product all = {c, a, b, n, n, n};
    dag_spawn(multiply, Val(all), Val(n), Val(0));
    dag_wait_all();
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, strassen_main); }
