/* bench/cholesky_ranks.c: the distributed Cholesky on 4 to 1024 ranks, on
   paper but computed. For each grid, one process makes rank 0's decisions
   of P x Q ranks (dag_desc.simulate_ranks: dag_mpi.h's own placement and
   message decisions, no MPI traffic, no task run) for dag_array_potrf on an
   N x N array dealt 2-D block-cyclically, and prints what dag.h would do on
   that many ranks: messages and bytes per rank, the critical path in
   tasks. Each is checked against the closed formulas of the right-looking
   tile Cholesky, owner computes, each tile's final version sent once from
   its owner to every other rank that reads it (T tiles a side, tile (i, k)
   on grid position (i % P, k % Q)):
     diagonal tile k goes to min(T-1-k, P) - [T-1-k >= P] ranks (the panel
       solves below it: one column class, P row classes at most, less its own);
     panel tile (i, k), i > k, to min(i-k, Q) + min(T-i, P) - 1 - [i-k >= Q]
       ranks (the updates of row i and of column i: one row class and one
       column class, which meet at (i, i), less its own);
     the critical path is 3T - 2 tasks (potrf, panel solve, update per step).
       build/bench/cholesky_ranks [N [NB]]      (make bench-ranks)
   N = 16384 and NB = 256 by default (T = 64). Exit 1 when a figure differs
   from its formula. Built with mpicc, run without mpirun: MPI is never
   started. */
#define DAG_IMPLEMENTATION
#include "dag_array.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long min_l(long a, long b) { return a < b ? a : b; }

/* The formulas above: messages and bytes each rank sends. */
static void formula(long n, long nb, int p, int q, uint64_t *messages, uint64_t *bytes) {
    long t = (n + nb - 1) / nb;
    for (long k = 0; k < t; k++)
        for (long i = k; i < t; i++) {
            long to = i == k ? min_l(t - 1 - k, p) - (t - 1 - k >= p)
                             : min_l(i - k, q) + min_l(t - i, p) - 1 - (i - k >= q);
            int owner = (int)((i % p) * q + k % q);
            long rows_i = i + 1 < t ? nb : n - i * nb, rows_k = k + 1 < t ? nb : n - k * nb;
            messages[owner] += (uint64_t)to;
            bytes[owner] += (uint64_t)to * (uint64_t)(rows_i * rows_k * 8);
        }
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 16384, nb = argc > 2 ? atol(argv[2]) : 256;
    if (n <= 0 || nb <= 0 || nb > n) {
        fprintf(stderr, "usage: cholesky_ranks [N [NB]] with 0 < NB <= N\n");
        return 2;
    }
    long t = (n + nb - 1) / nb;
    int grids[][2] = { { 2, 2 }, { 2, 4 }, { 4, 4 }, { 4, 8 }, { 8, 8 }, { 8, 16 }, { 16, 16 }, { 16, 32 }, { 32, 32 } };
    /* the matrix is wrapped, never touched (no task runs): its pages are never made */
    double *a = (double *)calloc((size_t)n * (size_t)n, sizeof *a);
    if (!a) {
        fprintf(stderr, "cholesky_ranks: no memory for a %ld x %ld matrix\n", n, n);
        return 2;
    }
    printf("cholesky_ranks N=%ld NB=%ld T=%ld: dag_mpi.h's decisions for P ranks, simulated in one process\n", n, nb, t);
    printf("%5s %6s %9s %6s %6s %13s %13s %11s %11s %12s %9s %7s\n", "P", "grid", "tasks", "path", "3T-2", "msgs/rank max",
           "msgs/rank avg", "MB/rank max", "MB/rank avg", "total msgs", "formula", "sim s");
    int wrong = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        int p = grids[g][0], q = grids[g][1], ranks = p * q;
        if (t < p || t < q) continue;   /* fewer tiles than the grid: some ranks would hold none */
        dag_desc d;
        memset(&d, 0, sizeof d);
        d.num_threads = 1;
        d.simulate_ranks = ranks;
        if (dag_setup(&d) != DAG_OK) return 1;
        double t0 = now_s();
        dag_array *A = dag_array_wrap(DAG_F64, n, n, dag_blocks_grid(nb, nb, p, q), a, n);
        if (!A || dag_array_potrf(A) != DAG_OK) return 1;
        double seconds = now_s() - t0;
        uint64_t *messages = (uint64_t *)calloc((size_t)ranks, sizeof *messages);
        uint64_t *bytes = (uint64_t *)calloc((size_t)ranks, sizeof *bytes);
        formula(n, nb, p, q, messages, bytes);
        uint64_t tasks = 0, total = 0, most = 0, most_bytes = 0, all_bytes = 0, received = 0, formula_total = 0;
        int differ = 0;
        for (int r = 0; r < ranks; r++) {
            dag_rank_stats s = dag_get_rank_stats(r);
            tasks += s.tasks;
            total += s.messages_sent;
            received += s.messages_received;
            all_bytes += s.bytes_sent;
            most = s.messages_sent > most ? s.messages_sent : most;
            most_bytes = s.bytes_sent > most_bytes ? s.bytes_sent : most_bytes;
            formula_total += messages[r];
            differ += s.messages_sent != messages[r] || s.bytes_sent != bytes[r];
        }
        uint64_t path = dag_get_stats().rank_critical_path;
        bool ok = !differ && received == total && path == (uint64_t)(3 * t - 2);
        wrong += !ok;
        char grid[16];
        snprintf(grid, sizeof grid, "%dx%d", p, q);
        printf("%5d %6s %9llu %6llu %6ld %13llu %13.1f %11.1f %11.1f %12llu %9s %7.3f\n", ranks, grid,
               (unsigned long long)tasks, (unsigned long long)path, 3 * t - 2, (unsigned long long)most,
               (double)total / ranks, most_bytes / 1e6, all_bytes / 1e6 / ranks, (unsigned long long)total,
               ok ? "equal" : "DIFFERS", seconds);
        if (differ) printf("      %d ranks' messages or bytes differ from the formula (total %llu)\n", differ,
                           (unsigned long long)formula_total);
        free(messages);
        free(bytes);
        dag_array_free(A);
        dag_shutdown();
    }
    free(a);
    return wrong ? 1 : 0;
}
