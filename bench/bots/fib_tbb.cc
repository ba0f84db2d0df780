/* fib_tbb.cc: BOTS fib with TBB (fib.h has the drawing): a task_group per
   call, both children run as tasks, then wait.

       make build/bots/fib_tbb && TBB_NUM_THREADS=2 build/bots/fib_tbb 30 */
#include <oneapi/tbb/task_group.h>
#include "bots_tbb.h"
#include "fib.h"

static long long fib(int n) {
    if (n < 2) return n;
    long long x, y;
    oneapi::tbb::task_group g;
    g.run([&] { x = fib(n - 1); });
    g.run([&] { y = fib(n - 2); });
    g.wait();
    return x + y;
}

long long fib_par(int n) { return fib(n); }

int main(int argc, char **argv) { return bots_tbb_run(argc, argv, fib_main); }
