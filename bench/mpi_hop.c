/* bench/mpi_hop.c: what a hand-off between two ranks costs through dag.h,
   against plain MPI in the same run, and what dag.h's progress costs in
   CPU while messages are in flight and while nothing moves.
     mpirun --allow-run-as-root --oversubscribe -np 2 build/bench/mpi_hop [HOPS [ROUNDS]]
   (make bench-hop). HOPS = 2000, ROUNDS = 7 by default; 2 ranks x 1 thread.
   - dag.h: a chain of HOPS tasks on one registered 8-byte span, alternating
     between rank 0 and rank 1 (dag_scope(.rank)); each reads what the other
     rank wrote, so every hop is one message (send task, MPI, its completion,
     the receive's dependents) and one task. Twice: messages completed by
     the progress thread alone (DAG_MPI_PROGRESS=thread), and also by idle
     workers as they spin (the default).
   - MPI: a ping-pong of 8 bytes, MPI_Send / MPI_Recv, HOPS one-way messages.
   The three alternate within each round. Printed (rank 0): us per hop,
   median and best of the rounds, the ratio to MPI, and CPU seconds per wall
   second of this rank (user + system, every thread), and over one idle
   second with the runtime set up: what progress costs when nothing moves. */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "bench_common.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <threads.h>

DAG_TASK(void, bump, (double *, x)) { x[0] += 1; }

static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int level = 0, me = 0, ranks = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int hops = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (ranks != 2 || hops < 2 || rounds < 1) {
        if (me == 0) fprintf(stderr, "usage: mpirun -np 2 mpi_hop [HOPS >= 2 [ROUNDS >= 1]]\n");
        MPI_Finalize();
        return 2;
    }
    static const char *const modes[2] = { "thread", "workers" };
    double *us[3], cpu[3] = { 0, 0, 0 }, wall[3] = { 0, 0, 0 }, word = 0;
    for (int c = 0; c < 3; c++) us[c] = (double *)malloc(sizeof(double) * (size_t)rounds);
    static double value;
    int right = 1;
    for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < 3; c++) {
            dag_data h = { 0 };
            if (c < 2) {   /* dag.h, its progress as modes[c] says */
                setenv("DAG_MPI_PROGRESS", modes[c], 1);
                dag_desc d = { 0 };
                d.num_threads = 1;
                if (dag_setup(&d) != DAG_OK || dag_num_ranks() != 2) return 1;
                value = 0;
                h = dag_data_register_on(0, me == 0 ? &value : NULL, 1, sizeof(double));
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now_s(), c0 = cpu_s();
            if (c < 2) {
                dag_options on[2] = { { 0 }, { 0 } };
                on[0].scope.rank = DAG_RANK(0);
                on[1].scope.rank = DAG_RANK(1);
                DAG_DATADEPS {
                    for (int k = 0; k < hops; k++) dag_spawn_with(&on[k % 2], bump, InOut(h));
                }
            } else {
                for (int k = 0; k < hops; k++) {
                    if (k % 2 == me) MPI_Send(&word, 1, MPI_DOUBLE, 1 - me, 7, MPI_COMM_WORLD);
                    else MPI_Recv(&word, 1, MPI_DOUBLE, 1 - me, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            }
            double t1 = now_s(), c1 = cpu_s();
            us[c][round] = (t1 - t0) * 1e6 / hops;
            wall[c] += t1 - t0, cpu[c] += c1 - c0;
            if (c < 2) {
                right &= dag_last_region_result() == DAG_OK && (me != 0 || value == (double)hops);
                dag_data_unregister(h);
                dag_shutdown();
            }
        }
    }
    unsetenv("DAG_MPI_PROGRESS");
    dag_desc d = { 0 };
    d.num_threads = 1;
    if (dag_setup(&d) != DAG_OK) return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = cpu_s(), t0 = now_s();
    thrd_sleep(&(struct timespec){ .tv_sec = 1 }, NULL);   /* set up, nothing to do */
    double idle_cpu = (cpu_s() - c0) / (now_s() - t0);
    dag_shutdown();
    double idle_others = 0;
    MPI_Reduce(&idle_cpu, &idle_others, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    static const char *const names[3] = { "dag.h, progress thread alone", "dag.h, and spinning workers",
                                          "MPI ping-pong" };
    for (int c = 0; c < 3; c++) qsort(us[c], (size_t)rounds, sizeof *us[c], cmp_double);
    if (me == 0) {
        printf("mpi_hop 2 ranks x 1 thread, %d hops a round, %d rounds (median / best, us per hop)\n", hops, rounds);
        for (int c = 0; c < 3; c++)
            printf("  %-30s %9.2f / %9.2f   %7.1fx MPI   CPU %.2f s per s\n", names[c], us[c][rounds / 2], us[c][0],
                   us[c][rounds / 2] / us[2][rounds / 2], cpu[c] / wall[c]);
        printf("  %-30s CPU %.3f s per s (the busier rank)\n", "idle, set up", idle_others);
        printf("  result %s\n", right ? "right" : "WRONG");
    }
    for (int c = 0; c < 3; c++) free(us[c]);
    MPI_Finalize();
    return right ? 0 : 1;
}
