/* hello.c: spawn a task, spawn one that consumes its result, fetch it.

       greet ──Fut──▶ shout

   make demo   (or: cc -std=c11 -O2 -I. examples/hello.c -o hello -pthread && ./hello)
*/
#define DAG_IMPLEMENTATION
#include "dag.h"
#include <stdio.h>

DAG_TASK(int, answer, (int, base)) { return base + 40; }
DAG_TASK(double, halve, (double, v)) { return v / 2; }

int main(void) {
    dag_setup(NULL);   /* the defaults: one worker per core (C: &(dag_desc){ .num_threads = 4 } for four) */

    dag_task a = dag_spawn(answer, Val(2));
    dag_task h = dag_spawn(halve, Fut(a));         /* int result into a double parameter */

    int x = 0;
    double y = 0;
    dag_fetch(a, &x);
    dag_fetch(h, &y);
    printf("hello from %d workers: answer %d, half of it %.1f\n", dag_num_threads(), x, y);

    dag_shutdown();
    return x == 42 && y == 21.0 ? 0 : 1;
}
