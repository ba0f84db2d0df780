/* nqueens.h: BOTS nqueens, what its versions share (nqueens_dag.c,
   nqueens_omp.c, nqueens_tbb.cc each define nqueens_par).

       solve(board, row j)                         a task per (row, column):
         ├── place(j, 0) ── solve(board', j+1)     copy the board, put the queen,
         ├── place(j, 1) ── solve(...)             check it, go on below; the
         │   ...                                   parent waits for its n tasks
         └── place(j, n-1)                         and adds up their counts

   BOTS's if() cut-off version: the tasks of the first CUTOFF rows (3 by
   default) are deferred; below that they run at once on the spawning
   thread (OpenMP's if(0), dag.h's .run_inline; TBB has no if(), so below the
   cut-off its version calls the function instead). The count is checked
   against the known number of solutions (OEIS A000170, BOTS's check).
   BOTS's manual cut-off version (STYLE manual): below the cut-off every
   version calls nq_serial, plain C, as TBB's always does.

       nqueens_dag [N [CUTOFF [if|manual]]]   N = 13, CUTOFF = 3, if  (nqueens_gomp, _libomp alike;
                                                                      nqueens_tbb is always manual) */
#ifndef NQUEENS_H
#define NQUEENS_H
#include "bots.h"

#define NQ_MAX 16   /* up to 16 x 16: the largest board whose count is known below */

/* q[i]: the column of the queen in row i (rows 0 to j-1 placed) */
typedef struct nq_board {
    signed char q[NQ_MAX];
} nq_board;

long nqueens_par(int n, int cutoff);
static int nq_manual;   /* 1: BOTS's manual cut-off (nq_serial below it); 0: its if() cut-off */

/* Puts the queen of row j in column col, and says whether no two queens of
   rows 0..j attack each other (BOTS's check: every pair again, O(j^2)). */
static inline int nq_place(nq_board *b, int j, int col) {
    b->q[j] = (signed char)col;
    for (int r = 0; r <= j; r++)
        for (int s = r + 1; s <= j; s++) {
            int d = b->q[s] - b->q[r];
            if (d == 0 || d == s - r || d == r - s) return 0;
        }
    return 1;
}

/* The count below row j, serially: what every version runs below a manual cut-off. */
static long nq_serial(nq_board b, int n, int j) {
    if (j == n) return 1;
    long count = 0;
    for (int col = 0; col < n; col++) {
        nq_board c = b;
        if (nq_place(&c, j, col)) count += nq_serial(c, n, j + 1);
    }
    return count;
}

static inline long nq_solutions(int n) {
    static const long known[NQ_MAX + 1] = {1,     1,     0,      0,       2,        10,        4,
                                           40,    92,    352,    724,     2680,     14200,     73712,
                                           365596, 2279184, 14772512};
    return known[n];
}

static inline int nqueens_main(int argc, char **argv) {
    const char *usage = "[N [CUTOFF [if|manual]]] (N up to 16)";
    int n = (int)bots_arg(argc, argv, 1, 13, usage);
    int cutoff = (int)bots_arg(argc, argv, 2, 3, usage);
    const char *style = argc > 3 ? argv[3] : "if";
    if (n > NQ_MAX || (strcmp(style, "if") != 0 && strcmp(style, "manual") != 0)) bots_usage(argv[0], usage);
    nq_manual = strcmp(style, "manual") == 0;
    double t0 = bots_now();
    long got = nqueens_par(n, cutoff);
    double t = bots_now() - t0;
    long want = nq_solutions(n);
    return bots_report(t, got == want, "n=%d cutoff=%d style=%s solutions=%ld expected=%ld", n, cutoff, style, got, want);
}
#endif
