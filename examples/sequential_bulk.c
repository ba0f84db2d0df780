/* sequential_bulk.c: a pipeline whose steps carry no data annotations, kept
   in order by DAG_SEQUENTIAL; the middle step is a DAG_BULK of independent
   tasks that run in parallel and count as one step.

       load ──▶ { work(0) work(1) work(2) work(3) } ──▶ report

   make demo   (or: cc -std=c11 -O2 -I. examples/sequential_bulk.c -o seq -pthread && ./seq)
*/
#define DAG_IMPLEMENTATION
#include "dag.h"
#include <stdio.h>

static int data[4];

DAG_TASK(void, load) {
    for (int i = 0; i < 4; i++) data[i] = i + 1;
}
DAG_TASK(void, work, (int, i)) {
    data[i] *= 10;
}
DAG_TASK(int, report) {
    int finished = 0;   /* the whole bulk step ran before this one */
    for (int i = 0; i < 4; i++) finished += data[i] == 10 * (i + 1);
    printf("report sees %d finished workers: %d %d %d %d\n", finished, data[0], data[1], data[2], data[3]);
    return data[0] + data[1] + data[2] + data[3];
}

int main(void) {
    dag_setup(NULL);
    int sum = 0;
    DAG_SEQUENTIAL {
        dag_spawn(load);
        DAG_BULK {
            for (int i = 0; i < 4; i++) dag_spawn(work, Val(i));
        }
        dag_fetch(dag_spawn(report), &sum);
    }
    printf("sum = %d (expected 100)\n", sum);
    dag_shutdown();
    return sum == 100 ? 0 : 1;
}
