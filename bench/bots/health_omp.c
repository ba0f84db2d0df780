/* health_omp.c: BOTS health as OpenMP tasks (health.h has the drawing), its
   if() cut-off version; built for libgomp and libomp.

       make build/bots/health_gomp && OMP_NUM_THREADS=2 build/bots/health_gomp small */
#include "bots_omp.h"
#include "health.h"

static int cutoff;   /* levels from the top whose tasks are deferred */

static void step(village *v) {
    for (village *k = v->first_child; k; k = k->next) {
#pragma omp task if (health_in->levels - v->level < cutoff)
        step(k);
    }
    health_hospital(v);
#pragma omp taskwait
    health_after_children(v);
}

void health_par(village *top, int steps, int cut) {
    cutoff = cut;
#pragma omp parallel
#pragma omp single
#pragma omp task
    for (int i = 0; i < steps; i++) step(top);
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, health_main); }
