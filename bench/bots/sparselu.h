/* sparselu.h: BOTS sparselu (its "single" version), what its versions share
   (sparselu_dag.c, sparselu_omp.c each define sparselu_par): the block
   kernels, the matrix, the serial factorisation and the check.

       for each k:   lu0(A[k][k])                                in the loop
                     fwd(A[k][k], A[k][j])   for each block j > k of row k     tasks
                     bdiv(A[k][k], A[i][k])  for each block i > k of column k  tasks
                     ──────────── wait ────────────
                     bmod(A[i][k], A[k][j], A[i][j])  for each pair         tasks
                     ──────────── wait ────────────           (a missing A[i][j] is
                                                               allocated by its task)

   An NB x NB matrix of BS x BS float blocks, about a third of them present
   (BOTS's pattern and values). The check is BOTS's: every block against the
   serial factorisation of the same matrix, relative error below 1e-6.

       sparselu_dag [NB [BS]]      NB = 50, BS = 100 (BOTS's)  (sparselu_gomp, _libomp alike) */
#ifndef SPARSELU_H
#define SPARSELU_H
#include "bots.h"
#include <math.h>

void sparselu_par(float **m, int nb, int bs);

/* factorises the diagonal block in place (no pivoting) */
static void lu0(float *d, int bs) {
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            d[i * bs + k] /= d[k * bs + k];
            for (int j = k + 1; j < bs; j++) d[i * bs + j] -= d[i * bs + k] * d[k * bs + j];
        }
}

/* a block of the diagonal's row: col = L^-1 col */
static void fwd(const float *d, float *col, int bs) {
    for (int j = 0; j < bs; j++)
        for (int k = 0; k < bs; k++)
            for (int i = k + 1; i < bs; i++) col[i * bs + j] -= d[i * bs + k] * col[k * bs + j];
}

/* a block of the diagonal's column: row = row U^-1 */
static void bdiv(const float *d, float *row, int bs) {
    for (int i = 0; i < bs; i++)
        for (int k = 0; k < bs; k++) {
            row[i * bs + k] /= d[k * bs + k];
            for (int j = k + 1; j < bs; j++) row[i * bs + j] -= row[i * bs + k] * d[k * bs + j];
        }
}

/* inner -= row * col */
static void bmod(const float *row, const float *col, float *inner, int bs) {
    for (int i = 0; i < bs; i++)
        for (int j = 0; j < bs; j++)
            for (int k = 0; k < bs; k++) inner[i * bs + j] -= row[i * bs + k] * col[k * bs + j];
}

/* bmod into the block at *slot, allocated (zeros) when missing */
static void bmod_fill(const float *row, const float *col, float **slot, int bs) {
    if (!*slot) {
        *slot = (float *)bots_alloc((size_t)bs * bs * sizeof **slot);
        memset(*slot, 0, (size_t)bs * bs * sizeof **slot);
    }
    bmod(row, col, *slot, bs);
}

/* BOTS's matrix: which blocks exist, and their values */
static float **sparselu_matrix(int nb, int bs) {
    float **m = (float **)bots_alloc((size_t)nb * nb * sizeof *m);
    int v = 1325;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            int absent = (i < j && i % 3 != 0) || (i > j && j % 3 != 0) || i % 2 == 1 || j % 2 == 1;
            if (i == j || i == j - 1 || i == j + 1) absent = 0;
            m[i * nb + j] = NULL;
            if (absent) continue;
            float *b = m[i * nb + j] = (float *)bots_alloc((size_t)bs * bs * sizeof *b);
            for (int e = 0; e < bs * bs; e++) {
                v = (3125 * v) % 65536;
                b[e] = (float)((v - 32768.0) / 16384.0);
            }
        }
    return m;
}

static void sparselu_serial(float **m, int nb, int bs) {
    for (int k = 0; k < nb; k++) {
        lu0(m[k * nb + k], bs);
        for (int j = k + 1; j < nb; j++)
            if (m[k * nb + j]) fwd(m[k * nb + k], m[k * nb + j], bs);
        for (int i = k + 1; i < nb; i++)
            if (m[i * nb + k]) bdiv(m[k * nb + k], m[i * nb + k], bs);
        for (int i = k + 1; i < nb; i++)
            for (int j = k + 1; j < nb; j++)
                if (m[i * nb + k] && m[k * nb + j]) bmod_fill(m[i * nb + k], m[k * nb + j], &m[i * nb + j], bs);
    }
}

/* the blocks that differ from the serial run's (a missing one counts) */
static long sparselu_differ(float **got, float **want, int nb, int bs) {
    long bad = 0;
    for (int b = 0; b < nb * nb; b++) {
        if (!got[b] || !want[b]) {
            bad += !got[b] != !want[b];
            continue;
        }
        for (int e = 0; e < bs * bs; e++)
            if (got[b][e] != want[b][e] && (want[b][e] == 0 || fabsf((got[b][e] - want[b][e]) / want[b][e]) > 1e-6f)) {
                bad++;
                break;
            }
    }
    return bad;
}

static void sparselu_free(float **m, int nb) {
    for (int b = 0; b < nb * nb; b++) free(m[b]);
    free(m);
}

static inline int sparselu_main(int argc, char **argv) {
    int nb = (int)bots_arg(argc, argv, 1, 50, "[NB [BS]]");
    int bs = (int)bots_arg(argc, argv, 2, 100, "[NB [BS]]");
    float **m = sparselu_matrix(nb, bs), **want = sparselu_matrix(nb, bs);
    double t0 = bots_now();
    sparselu_par(m, nb, bs);
    double t = bots_now() - t0;
    sparselu_serial(want, nb, bs);
    long bad = sparselu_differ(m, want, nb, bs);
    sparselu_free(m, nb);
    sparselu_free(want, nb);
    return bots_report(t, bad == 0, "nb=%d bs=%d blocks_differing=%ld", nb, bs, bad);
}
#endif
