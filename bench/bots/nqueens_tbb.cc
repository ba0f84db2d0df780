/* nqueens_tbb.cc: BOTS nqueens with TBB (nqueens.h has the drawing): a
   task_group per row above the cut-off; below it (TBB has no if()) plain
   calls, as BOTS's manual cut-off.

       make build/bots/nqueens_tbb && TBB_NUM_THREADS=2 build/bots/nqueens_tbb 13 3 */
#include <oneapi/tbb/task_group.h>
#include "bots_tbb.h"
#include "nqueens.h"

static int cutoff;   /* rows whose tasks are deferred */
static long solve(nq_board b, int n, int j, int depth);

static long place(nq_board b, int n, int j, int col, int depth) {
    return nq_place(&b, j, col) ? solve(b, n, j + 1, depth + 1) : 0;
}

static long solve(nq_board b, int n, int j, int depth) {
    if (j == n) return 1;
    long part[NQ_MAX] = {0};
    if (depth < cutoff) {
        oneapi::tbb::task_group g;
        for (int col = 0; col < n; col++) g.run([=, &part] { part[col] = place(b, n, j, col, depth); });
        g.wait();
    } else {
        return nq_serial(b, n, j);
    }
    long count = 0;
    for (int col = 0; col < n; col++) count += part[col];
    return count;
}

long nqueens_par(int n, int cut) {
    cutoff = cut;
    return solve(nq_board{}, n, 0, 0);
}

int main(int argc, char **argv) { return bots_tbb_run(argc, argv, nqueens_main); }
