#include "dag.h"

DAG_TASK(int, seven) { return 7; }

int run_in_other_unit(void) {
    int v = 0;
    dag_fetch(dag_spawn(seven), &v);
    return v;
}
