/* bots_dag.h: what the dag.h versions share: the runtime around the
   program (started before the clock, as the OpenMP and TBB versions start
   their threads), and with BOTS_STATS=1 in the environment its counters on
   stderr after the run (dag_get_stats: how many tasks were stolen, run
   inline by their spawner, how often a thread slept, reserve threads). */
#ifndef BOTS_DAG_H
#define BOTS_DAG_H
#include "dag.h"
#include "bots.h"

static inline int bots_dag_run(int argc, char **argv, int (*program)(int, char **)) {
    dag_setup(NULL);
    int status = program(argc, argv);
    if (getenv("BOTS_STATS")) {
        fflush(stdout);
        dag_stats s = dag_get_stats();
        fprintf(stderr,
                "threads=%d spawned=%llu stolen=%llu inlined=%llu sleeps=%llu reserve_threads=%d reserve_peak=%d "
                "records_allocated=%llu\n",
                dag_num_threads(), (unsigned long long)s.tasks_spawned, (unsigned long long)s.tasks_stolen,
                (unsigned long long)s.tasks_inlined, (unsigned long long)s.sleeps, s.reserve_threads, s.reserve_peak,
                (unsigned long long)s.records_allocated);
    }
    dag_shutdown();
    return status;
}
#endif
