#include "dag.h"
#include "dag_array.h"

DAG_TASK(int, seven) { return 7; }

int run_in_other_unit(void) {
    int v = 0;
    dag_fetch(dag_spawn(seven), &v);
    return v;
}

/* dag_array.h in a file without the implementation: its public API only */
double array_sum_in_other_unit(void) {
    dag_array *a = dag_array_fill(DAG_F64, 7, 3, dag_blocks(2, 2), 2.0);
    double s = -1;
    if (!a || dag_array_sum(a, &s) != DAG_OK) s = -1;
    dag_array_free(a);
    return s;
}
