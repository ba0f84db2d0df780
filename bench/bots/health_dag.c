/* health_dag.c: BOTS health on dag.h (health.h has the drawing): a void
   task per village and step (the village by Val), the lower levels inline
   (.run_inline), dag_wait_all in the body as OpenMP's taskwait.

       make build/bots/health_dag && DAG_NUM_THREADS=2 build/bots/health_dag small */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "health.h"

static int cutoff;   /* levels from the top whose tasks are deferred */

DAG_TASK(void, step, (village *, v)) {
    for (village *k = v->first_child; k; k = k->next)
        dag_spawn_with(&(dag_options){ .run_inline = health_in->levels - v->level >= cutoff }, step, Val(k));
    health_hospital(v);
    dag_wait_all();
    health_after_children(v);
}

void health_par(village *top, int steps, int cut) {
    cutoff = cut;
    for (int i = 0; i < steps; i++) step(top);
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, health_main); }
