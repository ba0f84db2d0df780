/* fib_dag.c: BOTS fib on dag.h (fib.h has the drawing): each call a task
   that spawns its two children and fetches both (a fetch spends the handle,
   so nothing is kept).

       make build/bots/fib_dag && DAG_NUM_THREADS=2 build/bots/fib_dag 30 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "fib.h"

DAG_TASK(long long, fib, (int, n)) {
    if (n < 2) return n;
    dag_task x = dag_spawn(fib, Val(n - 1));
    dag_task y = dag_spawn(fib, Val(n - 2));
    long long a = 0, b = 0;
    dag_fetch(x, &a);
    dag_fetch(y, &b);
    return a + b;
}

long long fib_par(int n) {
    long long r = 0;
    dag_fetch(dag_spawn(fib, Val(n)), &r);
    return r;
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, fib_main); }
