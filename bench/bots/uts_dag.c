/* uts_dag.c: BOTS uts on dag.h (uts.h has the drawing): a task per node
   that takes its node by value (Val of a 28-byte struct) and returns the
   size of its subtree; the parent fetches each child's (a fetch spends the
   handle: nothing is kept).

       make build/bots/uts_dag && DAG_NUM_THREADS=2 build/bots/uts_dag 2000 0.124875 8 42 4112897 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "uts.h"

DAG_TASK(unsigned long long, search, (uts_node, node)) {
    dag_task *kids = node.children ? (dag_task *)bots_alloc((size_t)node.children * sizeof *kids) : NULL;
    for (int i = 0; i < node.children; i++) kids[i] = dag_spawn(search, Val(uts_child(&node, i)));
    unsigned long long size = 1;
    for (int i = 0; i < node.children; i++) {
        unsigned long long s = 0;
        dag_fetch(kids[i], &s);
        size += s;
    }
    free(kids);
    return size;
}

unsigned long long uts_par(uts_node root) {
    unsigned long long size = 0;
    dag_fetch(dag_spawn(search, Val(root)), &size);
    return size;
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, uts_main); }
