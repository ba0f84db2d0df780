/* cholesky_common.h: what every contender of bench/cholesky shares: the
   matrix, its tiles, the tile kernels (OpenBLAS, one thread inside each
   task), the timing and the output line, so they differ only in the
   runtime that schedules the same tile algorithm. */
#ifndef CHOLESKY_COMMON_H
#define CHOLESKY_COMMON_H
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"

extern char *openblas_get_corename(void);
extern void openblas_set_num_threads(int);

/* Element (i, j) of the SPD test matrix: symmetric, diagonally dominant. */
static inline double chol_elem(long i, long j, long n) {
    long d = i > j ? i - j : j - i;
    return (i == j ? (double)n : 0.0) + 1.0 / (1.0 + (double)d) + 0.001 * (double)((i * 7 + j * 7) % 13);
}

/* Tiles (i, j), i >= j, column-major nb x nb (n a multiple of nb), t[i + j * nt];
   and one more column of nt tiles, t[i + nt * nt], for the inverses. */
static inline double **chol_tiles(long n, long nb) {
    long nt = n / nb;
    double **t = (double **)calloc((size_t)(nt * nt + nt), sizeof *t);
    for (long i = 0; i < nt; i++) t[nt * nt + i] = (double *)calloc((size_t)(nb * nb), sizeof(double));
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++) {
            double *p = (double *)malloc(sizeof(double) * (size_t)(nb * nb));
            for (long c = 0; c < nb; c++)
                for (long r = 0; r < nb; r++) p[r + c * nb] = chol_elem(i * nb + r, j * nb + c, n);
            t[i + j * nt] = p;
        }
    return t;
}

/* The whole matrix, column-major (ld n), as LAPACK takes it. */
static inline double *chol_matrix(long n) {
    double *m = (double *)malloc(sizeof(double) * (size_t)(n * n));
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++) m[i + j * n] = chol_elem(i, j, n);
    return m;
}
/* the sum of the lower triangle of a column-major factor (the same sum as chol_checksum_tiles) */
static inline double chol_checksum_matrix(const double *m, long n) {
    double sum = 0;
    for (long j = 0; j < n; j++)
        for (long i = j; i < n; i++) sum += m[i + j * n];
    return sum;
}
/* The distributed sides' check, on the rank that holds the whole factor l (column-major, ld n, its upper
   triangle zero): x from two triangular solves of L L^T x = b (b_i = 1 + i % 7), then ||A x - b|| / ||b|| / n
   with A from chol_elem. */
static inline double chol_solve_residual(const double *l, long n) {
    double *x = (double *)malloc(sizeof(double) * (size_t)n), rr = 0, bb = 0;
    for (long i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 7);
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)n, l, (int)n, x, 1);
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, (int)n, l, (int)n, x, 1);
    for (long i = 0; i < n; i++) {
        double b = 1.0 + (double)(i % 7), r = -b;
        for (long j = 0; j < n; j++) r += chol_elem(i, j, n) * x[j];
        rr += r * r;
        bb += b * b;
    }
    free(x);
    return sqrt(rr / bb) / (double)n;
}

/* Tiles per column-panel chunk: dag_array.h's rule (dag__panel_chunk), so the libgomp side's panel
   variant runs the same tasks: up to 4096 rows and half the tiles, shrunk while the first step gives a
   worker fewer than four tasks. A chunk is as many whole blocks as fit in that many tiles' rows. */
static inline long chol_panel_chunk(long nt, long nb, int workers) {
    long chunk = 4096 / nb < nt / 2 ? 4096 / nb : nt / 2;
    if (chunk < 1) chunk = 1;
    for (; chunk > 1; chunk--) {
        long tasks = 0;
        for (long j = 1; j < nt; j++) tasks += 1 + (nt - 1 - j + chunk - 1) / chunk;
        if (tasks >= 4L * workers) break;
    }
    return chunk;
}

/* The blocks of columns of dag_array_potrf on a wrapped matrix, so the libgomp side's panel variant runs
   the same tasks: the tiles, but the first tile and the last two in halves. Block k is rows edge[k] to
   edge[k + 1] - 1 (edge: room for 2 ceil(n / nb) + 1); returns the number of blocks. */
static inline long chol_block_edges(long n, long nb, long *edge) {
    long nt = (n + nb - 1) / nb, s = 0;
    edge[0] = 0;
    for (long t = 0; t < nt; t++) {
        long lo = t * nb, hi = t + 1 < nt ? lo + nb : n;
        if ((t == 0 || t >= nt - 2) && hi - lo >= 2) edge[++s] = lo + (hi - lo) / 2;
        edge[++s] = hi;
    }
    return s;
}

/* The priorities every side gives its tasks, dag_array_potrf's (nt blocks of columns a side: the tiles,
   or chol_block_edges's blocks; higher runs first): a task ranks by the column its output feeds, so the
   updates to column j + 1 (the next panel) go before those to later columns, whatever step they come
   from. potrf of column k, the panel solve of rows from block i in column k, the syrk into diagonal
   block j, the gemm into block (i, j). */
static inline int chol_prio_potrf(long nt, long k) { return (int)(4 * nt + 1 - 3 * k); }
static inline int chol_prio_panel(long nt, long k, long i) { return (int)(4 * nt + 1 - 2 * k - i); }
static inline int chol_prio_syrk(long nt, long j) { return (int)(4 * nt + 1 - 3 * j); }
static inline int chol_prio_gemm(long nt, long i, long j) { return (int)(4 * nt + 1 - 2 * j - i); }

/* sum of L's lower triangle: the contenders must agree on it */
static inline double chol_checksum_tiles(double **t, long n, long nb) {
    long nt = n / nb;
    double s = 0;
    for (long j = 0; j < nt; j++)
        for (long i = j; i < nt; i++)
            for (long c = 0; c < nb; c++)
                for (long r = 0; r < nb; r++)
                    if (i * nb + r >= j * nb + c) s += t[i + j * nt][r + c * nb];
    return s;
}

static inline void chol_free_tiles(double **t, long n, long nb) {
    long nt = n / nb;
    for (long k = 0; k < nt * nt + nt; k++) free(t[k]);
    free(t);
}

/* The tile kernels of the right-looking algorithm, as dag_array.h runs
   them: the diagonal task also inverts L_kk, and the panel's solves are
   multiplications by that inverse (OpenBLAS's dtrmm runs at about twice its
   dtrsm's rate on tiles). The inverse is taken by halves, as dag_array.h
   does (three times faster than OpenBLAS's dtrtri on these tiles), and the
   last diagonal tile, with no panel below, skips it (linv NULL). Every
   contender uses these same calls. */
static inline void chol_trtri(int n, double *a, int lda) {
    if (n <= 64) {
        LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, a, lda);
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    double *top = a, *below = a + n1, *corner = a + n1 + (size_t)n1 * lda;
    chol_trtri(n1, top, lda);
    chol_trtri(n2, corner, lda);
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, top, lda, below, lda);
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, corner, lda, below, lda);
}
static inline int chol_potrf(double *a, int lda, double *linv, int nb) {
    int info = (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nb, a, lda);
    if (info || !linv) return info;
    for (int j = 0; j < nb; j++)
        for (int i = 0; i < nb; i++) linv[i + j * nb] = i >= j ? a[i + (size_t)j * lda] : 0.0;
    chol_trtri(nb, linv, nb);
    return 0;
}
/* b (m x nb) = b L^-T, as b times the inverse's transpose */
static inline void chol_trsm(const double *linv, double *b, int ldb, int m, int nb) {
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, nb, 1.0, linv, nb, b, ldb);
}
/* c (n x n) -= a a^T (a n x k) */
static inline void chol_syrk(const double *a, int lda, double *c, int ldc, int n, int k) {
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
}
/* c (m x n) -= a (m x k) b^T (b n x k) */
static inline void chol_gemm(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int m, int n, int k) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, lda, b, ldb, 1.0, c, ldc);
}

/* the output line bench/cholesky.py reads */
static inline void chol_report(long n, double seconds, double checksum) {
    printf("gflops=%.3f seconds=%.4f checksum=%.12e core=%s\n", (double)n * n * n / 3.0 / seconds * 1e-9, seconds,
           checksum, openblas_get_corename());
}
#endif
