/* dag_array_kernels.h: the kernels of dag_array.h's tile operations. They
   run on the CPU (as any DAG_KERNEL's CPU launch) or on the device a tile
   is placed on: one text for both.

   Included by dag_array.h: by its implementation (the CPU launches and the
   OpenCL text) and, when a kernels file that includes dag_array.h is built
   by nvcc, hipcc or clang -x cl (or listed with -DDAG_KERNEL_NAMES), as that
   build's kernels, so the CUDA, HIP and Level Zero builds of a program's
   kernels carry dag_array's too (dag_kernels.h says how to build them).
   dag_blas.h's dag_dgemm and dag_sgemm are the gemm tiles. No include
   guard: each of those uses includes it once. */

/* Tiles may be views of a larger column-major matrix (dag_array_wrap): the
   kernels take each tile's leading dimension and find element i of a tile
   of `rows` rows at i % rows + i / rows * ld, written out in each (the
   OpenCL text is the body as written, so no helper macro reaches it), with
   the division skipped when ld == rows, the usual contiguous tile. */

/* fill and rand: the generator of dag_array.h (dag__uniform) in integer
   steps and an exact scaling, so every processor gives the same bits
   (randn, which needs log and cos, is a CPU task). */
#define DAG__FILL_KERNEL(SUFFIX, T)                                                                                  \
    DAG_KERNEL(dag__array_fill_##SUFFIX, ((int, how), (double, value), (unsigned long, seed), (long, r0), (long, c0), \
                                          (long, rows), (long, ld), (DAG_GLOBAL T *, t)),                              \
        size_t idx = DAG_INDEX();                                                                                    \
        double v = value;                                                                                            \
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
#define DAG__EW_KERNELS(SUFFIX, T)                                                                              \
    DAG_KERNEL(dag__array_ew2_##SUFFIX, ((int, op), (double, alpha), (long, rows), (DAG_GLOBAL const T *, x),   \
                                         (long, xld), (DAG_GLOBAL T *, z), (long, zld)),                        \
        size_t i = DAG_INDEX(), q = (size_t)rows;                                                               \
        size_t xi = xld == rows ? i : i % q + i / q * (size_t)xld, zi = zld == rows ? i : i % q + i / q * (size_t)zld; \
        T a = x[xi], c = z[zi];                                                                                 \
        z[zi] = op == 1 ? (T)(a + c) : op == 2 ? (T)(a - c) : op == 3 ? (T)(a * c)                              \
              : op == 4 ? (T)(alpha * (double)a + (double)c) : a;                                               \
    )                                                                                                           \
    DAG_KERNEL(dag__array_ew1_##SUFFIX, ((int, op), (double, alpha), (long, rows), (DAG_GLOBAL T *, z), (long, zld)), \
        size_t i = DAG_INDEX(), zi = zld == rows ? i : i % (size_t)rows + i / (size_t)rows * (size_t)zld;         \
        z[zi] = op == 5 ? (T)(alpha * (double)z[zi]) : (T)alpha;                                                \
    )
DAG__EW_KERNELS(f64, double)
DAG__EW_KERNELS(f32, float)
DAG__EW_KERNELS(i32, int)
DAG__EW_KERNELS(i64, long)
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
            s = op == 2 ? (v < s ? v : s) : op == 3 ? (v > s ? v : s) : op == 5 ? s + v * v : s + v;                \
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

/* The Cholesky's panel on a device, double and float. */
#define DAG__ARRAY_DEVICE_KERNELS(P, T)                                                                          \
    DAG_KERNEL(dag__array_##P##panel, ((int, n), (DAG_GLOBAL const T *, linv), (DAG_GLOBAL T *, b), (int, ldb)), \
        /* b (an item per row, n columns) = b linv^T, linv lower: in place (column c needs columns p <= c) */    \
        size_t i = DAG_INDEX();                                                                                  \
        for (int c = n - 1; c >= 0; c--) {                                                                       \
            T s = (T)0;                                                                                          \
            for (int p = 0; p <= c; p++) s += b[i + (size_t)p * (size_t)ldb] * linv[(size_t)c + (size_t)p * (size_t)n]; \
            b[i + (size_t)c * (size_t)ldb] = s;                                                                  \
        }                                                                                                        \
    )
DAG__ARRAY_DEVICE_KERNELS(d, double)
DAG__ARRAY_DEVICE_KERNELS(s, float)
#undef DAG__ARRAY_DEVICE_KERNELS

/* Device kernels for the triangular solve and syrk of a tile, double and
   float: trsm solves a column (left) or a row (right) of b per item. */
#define DAG__TILE_KERNELS(P, T)                                                                                    \
    DAG_KERNEL(dag__array_##P##trsm, ((int, right), (int, upper), (int, trans), (int, unit), (int, m), (int, n),   \
                                      (T, alpha), (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL T *, b),      \
                                      (int, ldb)),                                                                 \
        size_t v = DAG_INDEX();                                                                                    \
        int len = right ? n : m, lower = right ? upper != trans : upper == trans;                                  \
        int tr = right ? !trans : trans;                                                                           \
        size_t inc = right ? (size_t)ldb : 1, base = right ? v : v * (size_t)ldb;                                  \
        for (int s = 0; s < len; s++) {                                                                            \
            int i = lower ? s : len - 1 - s;                                                                       \
            T x = alpha * b[base + (size_t)i * inc];                                                               \
            for (int t = 0; t < s; t++) {                                                                          \
                int p = lower ? t : len - 1 - t;                                                                   \
                T aip = tr ? a[(size_t)p + (size_t)i * (size_t)lda] : a[(size_t)i + (size_t)p * (size_t)lda];      \
                x -= aip * b[base + (size_t)p * inc];                                                              \
            }                                                                                                      \
            b[base + (size_t)i * inc] = unit ? x : x / a[(size_t)i + (size_t)i * (size_t)lda];                     \
        }                                                                                                          \
    )                                                                                                              \
    DAG_KERNEL(dag__array_##P##syrk_full, ((int, trans), (int, n), (int, k), (T, alpha), (DAG_GLOBAL const T *, a), \
                                           (int, lda), (T, beta), (DAG_GLOBAL T *, c), (int, ldc)),                \
        /* c (lower, n x n) = alpha op(a) op(a)^T + beta c: an item per element, the upper ones idle */            \
        size_t idx = DAG_INDEX();                                                                                  \
        size_t i = idx % (size_t)n, j = idx / (size_t)n;                                                           \
        if (i >= j) {                                                                                              \
            T s = (T)0;                                                                                            \
            for (int l = 0; l < k; l++)                                                                            \
                s += trans ? a[(size_t)l + i * (size_t)lda] * a[(size_t)l + j * (size_t)lda]                       \
                           : a[i + (size_t)l * (size_t)lda] * a[j + (size_t)l * (size_t)lda];                      \
            c[i + j * (size_t)ldc] = alpha * s + (beta == (T)0 ? (T)0 : beta * c[i + j * (size_t)ldc]);            \
        }                                                                                                          \
    )
DAG__TILE_KERNELS(d, double)
DAG__TILE_KERNELS(s, float)
#undef DAG__TILE_KERNELS
