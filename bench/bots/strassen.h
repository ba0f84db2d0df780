/* strassen.h: BOTS strassen, what its versions share (strassen_dag.c,
   strassen_omp.c each define strassen_par): Winograd's form of Strassen's
   multiply, its two element-wise steps and the leaf multiply.

       multiply(C = A B, n):   S1..S8 from the quadrants of A and B      in the body
                               M2  = A11 B11    M5  = S1 S5    T1 = S2 S6      seven
                               C22 = S3 S7      C11 = A12 B21                  multiplies,
                               C12 = S4 B22     C21 = A22 S8                   tasks
                               ──────────── wait ────────────
                               C from M2, M5, T1 and the four               in the body

   Below STRASSEN_LEAF (BOTS's cut-off, 64) a block is multiplied directly;
   tasks of the first DEPTH levels (3) are deferred, deeper ones run inline
   (BOTS's if() cut-off: OpenMP's if(0), dag.h's .run_inline). Row-major
   matrices with their row strides (an, bn, cn). The check is BOTS's: C
   against the serial run of the same algorithm, relative error below 1e-6.

       strassen_dag [N [DEPTH]]      N = 1024 (a power of 2, at least 128), DEPTH = 3
                                     (strassen_gomp, _libomp alike) */
#ifndef STRASSEN_H
#define STRASSEN_H
#include "bots.h"
#include <math.h>

enum { STRASSEN_LEAF = 64 };

void strassen_par(double *c, const double *a, const double *b, int n, int depth);

/* C = A B, n x n (a multiple of 8), directly, as BOTS's leaves: eight
   elements of a row of C at a time, summed in registers along the row of A
   and down eight columns of B, stored once (so the loads of B never wait
   behind stores to C, whatever the matrices' offsets in their pages). */
static void strassen_leaf(double *c, const double *a, const double *b, int n, int cn, int an, int bn) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j += 8) {
            double sum[8] = {0};
            for (int k = 0; k < n; k++) {
                double aik = a[(size_t)i * an + k];
                const double *bkj = b + (size_t)k * bn + j;
                for (int x = 0; x < 8; x++) sum[x] += aik * bkj[x];
            }
            memcpy(c + (size_t)i * cn + j, sum, sizeof sum);
        }
}

/* One level of the multiply: the quadrants of A, B and C, and the eleven
   temporaries (one allocation, freed by strassen_join). */
typedef struct strassen_level {
    int h;   /* quadrant size */
    const double *a11, *a12, *a21, *a22, *b11, *b12, *b21, *b22;
    double *c11, *c12, *c21, *c22;
    double *s[9], *m2, *m5, *t1;   /* s[1]..s[8] */
    void *heap;
} strassen_level;

/* The seven products of a level, each C = A B with its strides. */
typedef struct strassen_product {
    double *c;
    const double *a, *b;
    int cn, an, bn;
} strassen_product;

/* One step of the multiply m of size n: a leaf is multiplied here (returns
   0); otherwise the temporaries are made and p[] holds the seven products
   left (returns 1), to be joined by strassen_join. */
static int strassen_split(strassen_level *l, strassen_product m, int n, strassen_product p[7]) {
    double *c = m.c;
    const double *a = m.a, *b = m.b;
    int cn = m.cn, an = m.an, bn = m.bn;
    if (n <= STRASSEN_LEAF) {
        strassen_leaf(c, a, b, n, cn, an, bn);
        return 0;
    }
    int h = l->h = n / 2;
    l->a11 = a, l->a12 = a + h, l->a21 = a + (size_t)h * an, l->a22 = l->a21 + h;
    l->b11 = b, l->b12 = b + h, l->b21 = b + (size_t)h * bn, l->b22 = l->b21 + h;
    l->c11 = c, l->c12 = c + h, l->c21 = c + (size_t)h * cn, l->c22 = l->c21 + h;
    /* as BOTS: 32 bytes between temporaries, so that they do not all sit at
       one offset in a page (the leaves' loads and stores would alias) */
    size_t q = (size_t)h * h + 4;
    double *t = (double *)(l->heap = bots_alloc(11 * q * sizeof *t));
    for (int k = 1; k <= 8; k++) l->s[k] = t + (k - 1) * q;
    l->s[0] = NULL;
    l->m2 = t + 8 * q, l->m5 = t + 9 * q, l->t1 = t + 10 * q;
    double **s = l->s;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < h; j++) {
            size_t x = (size_t)i * h + j, ia = (size_t)i * an + j, ib = (size_t)i * bn + j;
            s[1][x] = l->a21[ia] + l->a22[ia];
            s[2][x] = s[1][x] - l->a11[ia];
            s[3][x] = l->a11[ia] - l->a21[ia];
            s[4][x] = l->a12[ia] - s[2][x];
            s[5][x] = l->b12[ib] - l->b11[ib];
            s[6][x] = l->b22[ib] - s[5][x];
            s[7][x] = l->b22[ib] - l->b12[ib];
            s[8][x] = s[6][x] - l->b21[ib];
        }
    strassen_product seven[7] = {
        {l->m2, l->a11, l->b11, h, an, bn}, {l->m5, s[1], s[5], h, h, h},  {l->t1, s[2], s[6], h, h, h},
        {l->c22, s[3], s[7], cn, h, h},     {l->c11, l->a12, l->b21, cn, an, bn},
        {l->c12, s[4], l->b22, cn, h, bn},  {l->c21, l->a22, s[8], cn, an, h},
    };
    memcpy(p, seven, sizeof seven);
    return 1;
}

/* C from the seven products (C22 and C11, C12, C21 hold theirs) */
static void strassen_join(strassen_level *l, int cn) {
    int h = l->h;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < h; j++) {
            size_t x = (size_t)i * h + j, ic = (size_t)i * cn + j;
            double m2 = l->m2[x], m5 = l->m5[x], t1 = l->t1[x] + m2, t2 = l->c22[ic] + t1;
            l->c11[ic] += m2;
            l->c12[ic] += m5 + t1;
            l->c22[ic] = m5 + t2;
            l->c21[ic] = t2 - l->c21[ic];
        }
    free(l->heap);
}

static void strassen_serial(strassen_product m, int n) {
    strassen_level l;
    strassen_product p[7];
    if (!strassen_split(&l, m, n, p)) return;
    for (int k = 0; k < 7; k++) strassen_serial(p[k], l.h);
    strassen_join(&l, m.cn);
}

/* count numbers in [0, 1) */
static double *strassen_random(size_t count, unsigned long seed) {
    double *m = (double *)bots_alloc(count * sizeof *m);
    for (size_t i = 0; i < count; i++) {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        m[i] = (double)(seed >> 11) / 9007199254740992.0;   /* [0, 1) */
    }
    return m;
}

/* Freivalds' check that c is a b at all (the serial run could share a
   mistake): the largest difference between c x and a (b x) for a random x,
   relative to the largest element of a (b x). */
static double strassen_residual(const double *c, const double *a, const double *b, int n) {
    double *x = strassen_random((size_t)n, 3), *bx = (double *)bots_alloc((size_t)n * sizeof *bx);
    double worst = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        bx[i] = 0;
        for (int k = 0; k < n; k++) bx[i] += b[(size_t)i * n + k] * x[k];
    }
    for (int i = 0; i < n; i++) {
        double abx = 0, cx = 0;
        for (int k = 0; k < n; k++) abx += a[(size_t)i * n + k] * bx[k], cx += c[(size_t)i * n + k] * x[k];
        worst = fmax(worst, fabs(abx - cx));
        scale = fmax(scale, fabs(abx));
    }
    free(x), free(bx);
    return worst / scale;
}

static inline int strassen_main(int argc, char **argv) {
    const char *usage = "[N [DEPTH]] (N a power of 2, at least 128)";
    int n = (int)bots_arg(argc, argv, 1, 1024, usage);
    int depth = (int)bots_arg(argc, argv, 2, 3, usage);
    if (n < 2 * STRASSEN_LEAF || (n & (n - 1))) bots_usage(argv[0], usage);
    double *a = strassen_random((size_t)n * n, 1), *b = strassen_random((size_t)n * n, 2);
    double *c = (double *)bots_alloc((size_t)n * n * sizeof *c), *want = (double *)bots_alloc((size_t)n * n * sizeof *c);
    double t0 = bots_now();
    strassen_par(c, a, b, n, depth);
    double t = bots_now() - t0;
    strassen_product all = {want, a, b, n, n, n};
    strassen_serial(all, n);
    long bad = 0;
    for (size_t i = 0; i < (size_t)n * n; i++) bad += fabs(c[i] - want[i]) > 1e-6 * fabs(want[i]);
    double residual = strassen_residual(c, a, b, n);
    free(a), free(b), free(c), free(want);
    return bots_report(t, bad == 0 && residual < 1e-10, "n=%d depth=%d elements_differing=%ld residual=%.1e", n, depth,
                       bad, residual);
}
#endif
