/* uts_omp.c: BOTS uts as OpenMP tasks (uts.h has the drawing); built for
   libgomp and libomp.

       make build/bots/uts_gomp && OMP_NUM_THREADS=2 build/bots/uts_gomp 2000 0.124875 8 42 4112897 */
#include "bots_omp.h"
#include "uts.h"

static unsigned long long search(uts_node node) {
    unsigned long long *part = node.children ? (unsigned long long *)bots_alloc((size_t)node.children * sizeof *part) : NULL;
    for (int i = 0; i < node.children; i++) {
        uts_node child = uts_child(&node, i);
#pragma omp task firstprivate(child, i) shared(part)
        part[i] = search(child);
    }
#pragma omp taskwait
    unsigned long long size = 1;
    for (int i = 0; i < node.children; i++) size += part[i];
    free(part);
    return size;
}

unsigned long long uts_par(uts_node root) {
    unsigned long long size = 0;
#pragma omp parallel
#pragma omp single
#pragma omp task shared(size)
    size = search(root);
    return size;
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, uts_main); }
