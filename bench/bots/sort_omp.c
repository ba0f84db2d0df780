/* sort_omp.c: BOTS sort as OpenMP tasks (sort.h has the drawing); built
   for libgomp and libomp.

       make build/bots/sort_gomp && OMP_NUM_THREADS=2 build/bots/sort_gomp 8388608 */
#include "bots_omp.h"
#include "sort.h"

static void merge(sort_merge m) {
    sort_merge half[2];
    if (!sort_merge_split(m, half)) return;
#pragma omp task
    merge(half[0]);
#pragma omp task
    merge(half[1]);
#pragma omp taskwait
}

static void sort(elm *a, elm *tmp, long n) {
    if (n < SORT_QUICK) {
        sort_quick(a, a + n - 1);
        return;
    }
    for (int q = 0; q < 4; q++) {
#pragma omp task
        sort(sort_quarter(a, n, q), sort_quarter(tmp, n, q), sort_quarter_len(n, q));
    }
#pragma omp taskwait
#pragma omp task
    merge(sort_pair(a, tmp, n, 0));
#pragma omp task
    merge(sort_pair(a, tmp, n, 1));
#pragma omp taskwait
    merge(sort_last(a, tmp, n));
}

void sort_par(elm *a, elm *tmp, long n) {
#pragma omp parallel
#pragma omp single
#pragma omp task
    sort(a, tmp, n);
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, sort_main); }
