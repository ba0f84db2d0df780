/* bots_omp.h: what the OpenMP versions share: the team started before the
   clock (a first parallel region), as the dag.h and TBB versions start
   their threads. */
#ifndef BOTS_OMP_H
#define BOTS_OMP_H

static inline int bots_omp_run(int argc, char **argv, int (*program)(int, char **)) {
#pragma omp parallel
    { }
    return program(argc, argv);
}
#endif
