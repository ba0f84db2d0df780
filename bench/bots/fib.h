/* fib.h: BOTS fib, what its versions share (fib_dag.c, fib_omp.c, fib_tbb.cc
   each define fib_par, the parallel part).

                 fib(n)
                /      \
         fib(n-1)      fib(n-2)        a task per call down to n < 2, the
          /    \        /    \         parent waiting for both (BOTS's
        ...    ...    ...    ...       omp-tasks fib without a cut-off):
                                       fib(30) is 2.7 million tasks

   The answer is checked against the serial one (a loop).

       fib_dag [N]       N = 30 by default  (fib_gomp, fib_libomp, fib_tbb alike) */
#ifndef FIB_H
#define FIB_H
#include "bots.h"

long long fib_par(int n);

static inline long long fib_serial(int n) {
    long long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long long next = a + b;
        a = b;
        b = next;
    }
    return a;
}

static inline int fib_main(int argc, char **argv) {
    int n = (int)bots_arg(argc, argv, 1, 30, "[N]");
    double t0 = bots_now();
    long long got = fib_par(n);
    double t = bots_now() - t0;
    long long want = fib_serial(n);
    return bots_report(t, got == want, "n=%d result=%lld expected=%lld", n, got, want);
}
#endif
