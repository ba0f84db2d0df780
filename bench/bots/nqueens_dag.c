/* nqueens_dag.c: BOTS nqueens on dag.h (nqueens.h has the drawing): a task
   per (row, column) that returns the count below it; the board travels by
   value (Val of a 16-byte struct); below the cut-off the tasks run inline
   (.run_inline, OpenMP's if(0)).

       make build/bots/nqueens_dag && DAG_NUM_THREADS=2 build/bots/nqueens_dag 13 3 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bots_dag.h"
#include "nqueens.h"

static int cutoff;   /* rows whose tasks are deferred */
static long solve(nq_board b, int n, int j, int depth);

/* b holds rows 0..j-1: the queen of row j goes to column col */
DAG_TASK(long, place, (nq_board, b), (int, n), (int, j), (int, col), (int, depth)) {
    return nq_place(&b, j, col) ? solve(b, n, j + 1, depth + 1) : 0;
}

static long solve(nq_board b, int n, int j, int depth) {
    if (j == n) return 1;
    if (nq_manual && depth >= cutoff) return nq_serial(b, n, j);
    dag_task t[NQ_MAX];
    for (int col = 0; col < n; col++)
        t[col] = dag_spawn_with(&(dag_options){ .run_inline = depth >= cutoff }, place, Val(b), Val(n), Val(j), Val(col),
                                Val(depth));
    long count = 0;
    for (int col = 0; col < n; col++) {
        long c = 0;
        dag_fetch(t[col], &c);
        count += c;
    }
    return count;
}

long nqueens_par(int n, int cut) {
    cutoff = cut;
    nq_board empty = {{0}};
    return solve(empty, n, 0, 0);
}

int main(int argc, char **argv) { return bots_dag_run(argc, argv, nqueens_main); }
