/* dag_array_kernels.h: the kernels of dag_array.h's tile operations. They
   run on the CPU (as any DAG_KERNEL's CPU launch) or on the device a tile
   is placed on: one text for both.

   Included by dag_array.h: by its implementation (the CPU launches and the
   OpenCL text) and, when a kernels file that includes dag_array.h is built
   by nvcc, hipcc or clang -x cl (or listed with -DDAG_KERNEL_NAMES), as that
   build's kernels, so the CUDA, HIP and Level Zero builds of a program's
   kernels carry dag_array's too (dag_kernels.h says how to build them).
   The linear algebra's tiles are dag_blas.h's kernels (gemm, syrk, trsm,
   potrf: the vendor's routines where they load). No include guard: each of
   those uses includes it once. */

/* Tiles may be views of a larger column-major matrix (dag_array_wrap): the
   kernels take each tile's leading dimension and find element i of a tile
   of `rows` rows at i % rows + i / rows * ld, written out in each (the
   OpenCL text is the body as written, so no helper macro reaches it), with
   the division skipped when ld == rows, the usual contiguous tile. */

/* fill, rand and the identity's value on the diagonal (how: dag_array.h's
   DAG__FILL_*): the generator of dag_array.h (dag__uniform) in integer
   steps and an exact scaling, so every processor gives the same bits
   (randn, which needs log and cos, is a CPU task). */
#define DAG__FILL_KERNEL(SUFFIX, T)                                                                                  \
    DAG_KERNEL(dag__array_fill_##SUFFIX, ((int, how), (double, value), (unsigned long, seed), (long, r0), (long, c0), \
                                          (long, rows), (long, ld), (DAG_GLOBAL T *, t)),                              \
        size_t idx = DAG_INDEX();                                                                                    \
        double v = value;                                                                                            \
        if (how == 4 && r0 + (long)(idx % (size_t)rows) != c0 + (long)(idx / (size_t)rows)) v = 0; /* identity */      \
        if (how == 2) {                                                                                              \
            unsigned long x = (unsigned long)(r0 + (long)(idx % (size_t)rows)) * 0x9e3779b97f4a7c15UL +              \
                              (unsigned long)(c0 + (long)(idx / (size_t)rows));                                      \
            for (int round = 0; round < 2; round++) {                                                                \
                if (round) x ^= seed;                                                                                \
                x ^= x >> 30; x *= 0xbf58476d1ce4e5b9UL;                                                             \
                x ^= x >> 27; x *= 0x94d049bb133111ebUL;                                                             \
                x ^= x >> 31;                                                                                        \
            }                                                                                                        \
            v = (double)(x >> 11) * (1.0 / 9007199254740992.0);                                                      \
        }                                                                                                            \
        t[ld == rows ? idx : idx % (size_t)rows + idx / (size_t)rows * (size_t)ld] = (T)v;                          \
    )
DAG__FILL_KERNEL(f64, double)
DAG__FILL_KERNEL(f32, float)
DAG__FILL_KERNEL(i32, int)
DAG__FILL_KERNEL(i64, long)
#undef DAG__FILL_KERNEL

/* The element-wise operations, one pair per element type (OpenCL C has no
   int64_t: long is 64 bits in both): the binary form z = x op z (op 7
   copies), the unary z = op(z). */
#define DAG__EW_KERNELS(SUFFIX, T, U, LOCUT, LOVAL, HICUT, HIVAL, NANV)                                      \
    DAG_KERNEL(dag__array_ew2_##SUFFIX, ((int, op), (double, alpha), (long, rows), (DAG_GLOBAL const T *, x),   \
                                         (long, xld), (DAG_GLOBAL T *, z), (long, zld)),                        \
        size_t i = DAG_INDEX(), q = (size_t)rows;                                                               \
        size_t xi = xld == rows ? i : i % q + i / q * (size_t)xld, zi = zld == rows ? i : i % q + i / q * (size_t)zld; \
        T a = x[xi], c = z[zi];                                                                                 \
        if (op == 4) {                                                                                          \
            double v = alpha * (double)a + (double)c;                                                           \
            z[zi] = v != v ? (T)NANV : v < LOCUT ? (T)LOVAL : v >= HICUT ? (T)HIVAL : (T)v;                     \
        } else {                                                                                                \
            z[zi] = op == 1 ? (T)((U)a + (U)c) : op == 2 ? (T)((U)a - (U)c) : op == 3 ? (T)((U)a * (U)c) : a;   \
        }                                                                                                       \
    )                                                                                                           \
    DAG_KERNEL(dag__array_ew1_##SUFFIX, ((int, op), (double, alpha), (long, rows), (DAG_GLOBAL T *, z), (long, zld)), \
        size_t i = DAG_INDEX(), zi = zld == rows ? i : i % (size_t)rows + i / (size_t)rows * (size_t)zld;         \
        double v = op == 5 ? alpha * (double)z[zi] : alpha;                                                     \
        z[zi] = v != v ? (T)NANV : v < LOCUT ? (T)LOVAL : v >= HICUT ? (T)HIVAL : (T)v;                         \
    )
/* Integers add, subtract and multiply in their unsigned type, wrapping around as Julia's do (C's signed
   overflow is undefined); a double going into an integer (axpy, scale, set) saturates, NaN to 0, where C's
   conversion would be undefined. Floating types take them as they are. */
DAG__EW_KERNELS(f64, double, double, -INFINITY, -INFINITY, INFINITY, INFINITY, v)
DAG__EW_KERNELS(f32, float, float, -INFINITY, -INFINITY, INFINITY, INFINITY, v)
DAG__EW_KERNELS(i32, int, unsigned int, -2147483648.0, (-2147483647 - 1), 2147483648.0, 2147483647, 0)
DAG__EW_KERNELS(i64, long, unsigned long, -9223372036854775808.0, (-9223372036854775807L - 1), 9223372036854775808.0,
                9223372036854775807L, 0)
#undef DAG__EW_KERNELS

/* A tile's reduction on a device: item k takes the elements k, k + 64,
   ... into part[k] (64 parts: dag_array.h's DAG__PARTS). */
#define DAG__RED_KERNELS(SUFFIX, T)                                                                                  \
    DAG_KERNEL(dag__array_red1_##SUFFIX, ((int, op), (long, n), (long, rows), (DAG_GLOBAL const T *, x), (long, xld), \
                                          (DAG_GLOBAL double *, part)),                                              \
        size_t k = DAG_INDEX();                                                                                      \
        double s = op == 2 ? INFINITY : op == 3 ? -INFINITY : 0.0;                                                   \
        for (size_t i = k; i < (size_t)n; i += 64) {                                                                 \
            double v = (double)x[xld == rows ? i : i % (size_t)rows + i / (size_t)rows * (size_t)xld];               \
            s = op == 2 ? (v < s || v != v ? v : s) : op == 3 ? (v > s || v != v ? v : s) /* a NaN wins */        \
                : op == 5 ? s + v * v : s + v;                                                                       \
        }                                                                                                            \
        part[k] = s;                                                                                                 \
    )                                                                                                                \
    DAG_KERNEL(dag__array_red2_##SUFFIX, ((long, n), (long, rows), (DAG_GLOBAL const T *, x), (long, xld),            \
                                          (DAG_GLOBAL const T *, y), (long, yld), (DAG_GLOBAL double *, part)),      \
        size_t k = DAG_INDEX();                                                                                      \
        double s = 0.0;                                                                                              \
        for (size_t i = k; i < (size_t)n; i += 64)                                                                   \
            s += (double)x[xld == rows ? i : i % (size_t)rows + i / (size_t)rows * (size_t)xld] *                     \
                 (double)y[yld == rows ? i : i % (size_t)rows + i / (size_t)rows * (size_t)yld];                     \
        part[k] = s;                                                                                                 \
    )
DAG__RED_KERNELS(f64, double)
DAG__RED_KERNELS(f32, float)
DAG__RED_KERNELS(i32, int)
DAG__RED_KERNELS(i64, long)
#undef DAG__RED_KERNELS

/* A rectangle of one tile into another, transposed when asked: an item
   per element, elem bytes each (any type). */
DAG_KERNEL(dag__array_copy_part, ((int, elem), (DAG_GLOBAL const unsigned char *, src), (long, src_ld), (long, sr),
                                  (long, sc), (DAG_GLOBAL unsigned char *, dst), (long, dst_ld), (long, dr), (long, dc),
                                  (long, rows), (int, transpose)),
    size_t idx = DAG_INDEX();
    long i = (long)(idx % (size_t)rows), j = (long)(idx / (size_t)rows);
    long di = transpose ? dr + j : dr + i, dj = transpose ? dc + i : dc + j;
    for (int b = 0; b < elem; b++)
        dst[(size_t)(di + dj * dst_ld) * (size_t)elem + (size_t)b] = src[(size_t)(sr + i + (sc + j) * src_ld) * (size_t)elem + (size_t)b];
)

/* A pivoted LU step's row moves on a device (dag_array.h's dag__lu_swap_col,
   whose CPU tasks do the same a column at a time): mv is the step's moves
   tile (dag_array.h's DAG__MV_*, written out here: 0 kw, 1 tr, 2 the moves
   below, 3 nb, then ipiv, top, dest and src, nb each). An item per (row of
   the moves, column), nb x cols in all; items past the moves do nothing.
   how 0: y (S) saves x's top rows; 1: x is S, y's top row r takes S's row
   top[r] where that is in the top block; 2: y's top row r takes x's row
   top[r] - lo where that is in x (a tile below: panel rows lo to lo + rows
   - 1); 3: x is S, y (a tile below) takes S's row src[e] into its row
   dest[e] - lo. */
DAG_KERNEL(dag__array_lu_rows, ((int, how), (int, elem), (long, nb), (DAG_GLOBAL const long *, mv),
                                (DAG_GLOBAL const unsigned char *, x), (long, ldx), (long, lo), (long, rows),
                                (DAG_GLOBAL unsigned char *, y), (long, ldy)),
    size_t idx = DAG_INDEX();
    long tr = mv[1], e = (long)(idx % (size_t)nb), j = (long)(idx / (size_t)nb), from = -1, to = -1;
    long top = e < tr ? mv[4 + nb + e] : -1;
    if (how == 0 && e < tr) from = e, to = e;
    if (how == 1 && e < tr && top < tr && top != e) from = top, to = e;
    if (how == 2 && e < tr && top >= lo && top < lo + rows) from = top - lo, to = e;
    if (how == 3 && e < mv[2] && mv[4 + 2 * nb + e] >= lo && mv[4 + 2 * nb + e] < lo + rows)
        from = mv[4 + 3 * nb + e], to = mv[4 + 2 * nb + e] - lo;
    if (from >= 0)
        for (int b = 0; b < elem; b++)
            y[(size_t)(to + j * ldy) * (size_t)elem + (size_t)b] = x[(size_t)(from + j * ldx) * (size_t)elem + (size_t)b];
)
