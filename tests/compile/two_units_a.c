/* Two translation units, only one with DAG_IMPLEMENTATION: they must link
   without duplicate symbols, and tasks (and dag_array.h's operations) used
   in both must run. */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "dag_array.h"
#include <stdio.h>

int run_in_other_unit(void);
double array_sum_in_other_unit(void);

DAG_TASK(int, forty, (int, base)) { return base + 40; }

int main(void) {
    dag_setup(NULL);
    int v = 0;
    dag_fetch(dag_spawn(forty, Val(2)), &v);
    int w = run_in_other_unit();
    double s = array_sum_in_other_unit();
    dag_shutdown();
    printf("two units: %d %d %g\n", v, w, s);
    return v == 42 && w == 7 && s == 42.0 ? 0 : 1;
}
