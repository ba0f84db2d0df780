/* fib_omp.c: BOTS fib as OpenMP tasks (fib.h has the drawing), built for
   libgomp (gcc -fopenmp) and libomp (clang -fopenmp=libomp).

       make build/bots/fib_gomp && OMP_NUM_THREADS=2 build/bots/fib_gomp 30 */
#include "bots_omp.h"
#include "fib.h"

static long long fib(int n) {
    if (n < 2) return n;
    long long x, y;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

long long fib_par(int n) {
    long long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(n);
    return r;
}

int main(int argc, char **argv) { return bots_omp_run(argc, argv, fib_main); }
