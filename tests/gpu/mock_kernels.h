/* mock_kernels.h: the kernels of tests/gpu/kernels.h as host code, for the
   mock runtimes (mock_hip.c, mock_ze.c): a mock "device" runs a launch by
   calling one of these per item. Argument 0 is the range n; args[k] holds
   argument k's bytes. */
#ifndef MOCK_KERNELS_H
#define MOCK_KERNELS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef void (*kfn)(uint64_t i, unsigned char args[][16]);
#define ARG(T, k) (*(T *)args[k])
static void k_axpy(uint64_t i, unsigned char args[][16]) { ARG(double *, 3)[i] += ARG(double, 1) * ARG(const double *, 2)[i]; }
static void k_scale(uint64_t i, unsigned char args[][16]) { ARG(float *, 2)[i] *= ARG(float, 1); }
static void k_count(uint64_t i, unsigned char args[][16]) { ARG(int *, 1)[i] += 1; }
static void k_tile_add(uint64_t i, unsigned char args[][16]) {
    int cols = ARG(int, 1), ld = ARG(int, 2);
    ARG(double *, 4)[(i / (size_t)cols) * (size_t)ld + i % (size_t)cols] += ARG(double, 3);
}
static void k_inc(uint64_t i, unsigned char args[][16]) { ARG(float *, 1)[i] += 1.0f; }
static void k_dgemm(uint64_t idx, unsigned char args[][16]) {   /* dag_blas.h's dag_dgemm, column-major, as written there */
    int ta = ARG(int, 1), tb = ARG(int, 2), m = ARG(int, 3), k = ARG(int, 5), lda = ARG(int, 8), ldb = ARG(int, 10),
        ldc = ARG(int, 13);
    const double *a = ARG(const double *, 7), *b = ARG(const double *, 9);
    double *c = ARG(double *, 12), s = 0, beta = ARG(double, 11);
    size_t i = idx % (size_t)m, j = idx / (size_t)m;
    for (int l = 0; l < k; l++)
        s += (ta ? a[l + i * lda] : a[i + (size_t)l * lda]) * (tb ? b[j + (size_t)l * ldb] : b[l + j * ldb]);
    c[i + j * ldc] = ARG(double, 6) * s + (beta == 0.0 ? 0.0 : beta * c[i + j * ldc]);
}
/* dag_array_kernels.h's dag__array_fill_f64 and _f32 for a value (how 1) or the identity's diagonal (how 4), as
   written there; the random fill (how 2) is not the mock's (its caller aborts on it) */
static double fill_value(uint64_t idx, unsigned char args[][16], uint64_t *at) {
    int how = ARG(int, 1);
    long r0 = ARG(long, 4), c0 = ARG(long, 5), rows = ARG(long, 6), ld = ARG(long, 7);
    *at = ld == rows ? idx : idx % (uint64_t)rows + idx / (uint64_t)rows * (uint64_t)ld;
    return how == 4 && r0 + (long)(idx % (uint64_t)rows) != c0 + (long)(idx / (uint64_t)rows) ? 0 : ARG(double, 2);
}
static void k_fill_f64(uint64_t idx, unsigned char args[][16]) {
    uint64_t at;
    double v = fill_value(idx, args, &at);
    ARG(double *, 8)[at] = v;
}
static void k_fill_f32(uint64_t idx, unsigned char args[][16]) {
    uint64_t at;
    double v = fill_value(idx, args, &at);
    ARG(float *, 8)[at] = (float)v;
}
/* dag_array_kernels.h's dag__array_lu_rows (a pivoted LU's row moves), as written there */
static void k_lu_rows(uint64_t idx, unsigned char args[][16]) {
    int how = ARG(int, 1), elem = ARG(int, 2);
    long nb = ARG(long, 3), ldx = ARG(long, 6), lo = ARG(long, 7), rows = ARG(long, 8), ldy = ARG(long, 10);
    const long *mv = ARG(const long *, 4);
    const unsigned char *x = ARG(const unsigned char *, 5);
    unsigned char *y = ARG(unsigned char *, 9);
    long tr = mv[1], e = (long)(idx % (uint64_t)nb), j = (long)(idx / (uint64_t)nb), from = -1, to = -1;
    long top = e < tr ? mv[4 + nb + e] : -1;
    if (how == 0 && e < tr) from = e, to = e;
    if (how == 1 && e < tr && top < tr && top != e) from = top, to = e;
    if (how == 2 && e < tr && top >= lo && top < lo + rows) from = top - lo, to = e;
    if (how == 3 && e < mv[2] && mv[4 + 2 * nb + e] >= lo && mv[4 + 2 * nb + e] < lo + rows)
        from = mv[4 + 3 * nb + e], to = mv[4 + 2 * nb + e] - lo;
    if (from >= 0) memcpy(y + (size_t)(to + j * ldy) * (size_t)elem, x + (size_t)(from + j * ldx) * (size_t)elem, (size_t)elem);
}
/* dag_array_kernels.h's dag__array_copy_part (a rectangle of one tile into another), as written there */
static void k_copy_part(uint64_t idx, unsigned char args[][16]) {
    int elem = ARG(int, 1), transpose = ARG(int, 11);
    long src_ld = ARG(long, 3), sr = ARG(long, 4), sc = ARG(long, 5), dst_ld = ARG(long, 7), dr = ARG(long, 8),
         dc = ARG(long, 9), rows = ARG(long, 10);
    long i = (long)(idx % (uint64_t)rows), j = (long)(idx / (uint64_t)rows);
    long di = transpose ? dr + j : dr + i, dj = transpose ? dc + i : dc + j;
    memcpy(ARG(unsigned char *, 6) + (size_t)(di + dj * dst_ld) * (size_t)elem,
           ARG(const unsigned char *, 2) + (size_t)(sr + i + (sc + j) * src_ld) * (size_t)elem, (size_t)elem);
}
#endif
