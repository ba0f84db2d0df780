/* tiled_datadeps.c: a blocked matrix update in DAG_DATADEPS form. The tasks
   name the 2-D tiles they read and write; dag.h infers the DAG:

       scale(C00) scale(C01) scale(C10) scale(C11)      (4 tiles, in parallel)
           │          │          │          │
       add(C00+=A00) ...                               (each after its own scale)
           └──────────┴────┬─────┴──────────┘
                       trace(C)                         (reads the whole matrix)

   make demo   (or: cc -std=c11 -O2 -I. examples/tiled_datadeps.c -o tiled -pthread && ./tiled)
*/
#define DAG_IMPLEMENTATION
#include "dag.h"
#include <stdio.h>

enum { N = 512, T = 256 };
static double A[N * N], C[N * N];

DAG_TASK(void, scale_tile, (double *, c), (size_t, ld), (double, s)) {
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) c[i * ld + j] *= s;
}
DAG_TASK(void, add_tile, (double *, c), (const double *, a), (size_t, ld)) {
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) c[i * ld + j] += a[i * ld + j];
}
DAG_TASK(double, diagonal_sum, (const double *, c), (size_t, n)) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += c[i * n + i];
    return s;
}

int main(void) {
    for (size_t i = 0; i < N * N; i++) { A[i] = 1.0; C[i] = 2.0; }
    double trace = 0;
    dag_setup(NULL);
    dag_trace_enable(1);
    DAG_DATADEPS {
        for (size_t bi = 0; bi < N; bi += T)
            for (size_t bj = 0; bj < N; bj += T) {
                double *c = &C[bi * N + bj];
                dag_spawn(scale_tile, InOut(c, T, T, N), Val(N), Val(3.0));
                dag_spawn(add_tile, InOut(c, T, T, N), In(&A[bi * N + bj], T, T, N), Val(N));
            }
        dag_task t = dag_spawn(diagonal_sum, In(C, N * N), Val(N));
        dag_fetch(t, &trace);
    }
    printf("trace = %.1f (expected %.1f)\n", trace, 7.0 * N);
    /* in the current directory; each line is printed only if its file was written */
    if (dag_trace_write_json("tiled_trace.json") == DAG_OK)   /* open in ui.perfetto.dev */
        printf("wrote tiled_trace.json (Chrome trace: open it in ui.perfetto.dev)\n");
    if (dag_trace_write_dot("tiled_dag.dot") == DAG_OK)       /* dot -Tsvg tiled_dag.dot -o tiled_dag.svg */
        printf("wrote tiled_dag.dot (the DAG: dot -Tsvg tiled_dag.dot -o tiled_dag.svg)\n");
    if (dag_trace_write_svg("tiled_gantt.svg") == DAG_OK)
        printf("wrote tiled_gantt.svg (Gantt chart: open it in a browser)\n");
    dag_shutdown();
    return trace == 7.0 * N ? 0 : 1;
}
