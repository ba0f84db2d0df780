/* sort_dag.c: BOTS sort on dag.h (sort.h has the drawing): the sorts and
   merges are void tasks on pointers (Val); dag_wait_all in a body waits for
   the tasks that body spawned (OpenMP's taskwait).

       make build/bots/sort_dag && DAG_NUM_THREADS=2 build/bots/sort_dag 8388608 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "sort.h"

DAG_TASK(void, merge, (sort_merge, m)) {
    sort_merge half[2];
    if (!sort_merge_split(m, half)) return;
    dag_spawn(merge, Val(half[0]));
    dag_spawn(merge, Val(half[1]));
    dag_wait_all();
}

DAG_TASK(void, sort, (elm *, a), (elm *, tmp), (long, n)) {
    if (n < SORT_QUICK) {
        sort_quick(a, a + n - 1);
        return;
    }
    for (int q = 0; q < 4; q++)
        dag_spawn(sort, Val(sort_quarter(a, n, q)), Val(sort_quarter(tmp, n, q)), Val(sort_quarter_len(n, q)));
    dag_wait_all();
    dag_spawn(merge, Val(sort_pair(a, tmp, n, 0)));
    dag_spawn(merge, Val(sort_pair(a, tmp, n, 1)));
    dag_wait_all();
    merge(sort_last(a, tmp, n));
}

void sort_par(elm *a, elm *tmp, long n) {
    dag_spawn(sort, Val(a), Val(tmp), Val(n));
    dag_wait_all();
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, sort_main); }
