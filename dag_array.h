/* dag_array.h: block-partitioned arrays for dag.h (Dagger's DArray in C).

       #define DAG_IMPLEMENTATION       (in one file, as for dag.h)
       #include "dag_array.h"

       dag_array *a = dag_array_randn(DAG_F64, n, n, dag_blocks(256, 256), 42);
       dag_array_potrf(a);               // tiled Cholesky, in place (lower)
       dag_array_collect(a, host, DAG_COL_MAJOR, n);
       dag_array_free(a);

   An array is a grid of tiles (ragged at the right and bottom edges), each
   a contiguous column-major block (leading dimension: its own row count),
   each a registered dag_data handle: dag_array_tile(a, i, j) can be an
   In/Out/InOut argument of any task, and the operations here are such
   tasks, spawned in a DAG_DATADEPS region that they wait for (so they
   return the first error, and the data is current when they return).

   Linear algebra (double): gemm, and Cholesky (potrf, right-looking, tile
   algorithm, critical-path priorities). A matrix that is not positive
   definite fails with DAG_ERR_NOT_POSITIVE_DEFINITE and a logged message
   naming the tile and the global column. Tiles call cblas and LAPACKE when
   built with -DDAG_ARRAY_CBLAS (link -lopenblas -llapacke; OpenBLAS is told
   to use one thread inside tasks), else built-in loops.

   Element-wise operations, map with a DAG_KERNEL, reductions (a tree of
   tasks), copy and transpose between any tilings, for every element type.

   Not in this version yet (issue 5 goes on): syrk/trsm/LU/posv as
   whole-array operations, float linear algebra, and tile placement on
   devices by scope.
*/
#ifndef DAG_ARRAY_H_INCLUDED
#define DAG_ARRAY_H_INCLUDED

#include "dag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dag_elem { DAG_F64 = 1, DAG_F32, DAG_I32, DAG_I64 } dag_elem;
typedef enum dag_layout { DAG_COL_MAJOR = 1, DAG_ROW_MAJOR } dag_layout;
typedef struct dag_blocks { int64_t rows, cols; } dag_blocks;
#define dag_blocks(rows, cols) ((dag_blocks){ (rows), (cols) })

typedef struct dag_array dag_array;

/* Constructors: NULL (and a logged error) on bad sizes or no memory.
   rand is uniform in [0, 1), randn standard normal; both depend only on the
   seed and the element's (row, column), so any tiling gives the same array. */
dag_array *dag_array_zeros(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks);
dag_array *dag_array_ones(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks);
dag_array *dag_array_fill(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks, double value);
dag_array *dag_array_rand(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks, uint64_t seed);
dag_array *dag_array_randn(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks, uint64_t seed);
/* From host memory (elements of `type`), ld elements between columns
   (column-major) or rows (row-major). */
dag_array *dag_array_from_host(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks, const void *data,
                               dag_layout layout, int64_t ld);
dag_result dag_array_collect(dag_array *a, void *out, dag_layout layout, int64_t ld);
void dag_array_free(dag_array *a);

int64_t dag_array_rows(const dag_array *a);
int64_t dag_array_cols(const dag_array *a);
int64_t dag_array_tile_rows(const dag_array *a);   /* tiles down */
int64_t dag_array_tile_cols(const dag_array *a);   /* tiles across */
dag_data dag_array_tile(const dag_array *a, int64_t i, int64_t j);
/* The size of tile (i, j): its rows are also its leading dimension. */
void dag_array_tile_size(const dag_array *a, int64_t i, int64_t j, int64_t *rows, int64_t *cols);

/* Element-wise, any element type (arithmetic in the type, scalars in double):
   C = A + B, C = A - B, C = A .* B (C may be A or B), A = alpha A,
   Y = alpha X + Y, A = value everywhere. The arrays must have one shape
   and one tiling. */
dag_result dag_array_add(dag_array *a, dag_array *b, dag_array *c);
dag_result dag_array_sub(dag_array *a, dag_array *b, dag_array *c);
dag_result dag_array_mul(dag_array *a, dag_array *b, dag_array *c);
dag_result dag_array_scale(double alpha, dag_array *a);
dag_result dag_array_axpy(double alpha, dag_array *x, dag_array *y);
dag_result dag_array_set(dag_array *a, double value);
/* out = f(in) element by element with a DAG_KERNEL of two parameters,
   ((DAG_GLOBAL const T *, x), (DAG_GLOBAL T *, y)), launched over each tile:
   dag_array_map(kernel, in, out). On the scope in force: a kernel whose
   scope allows a device may run there. */
#define dag_array_map(kernel, in, out) dag_array_map_desc(&kernel##__desc, (in), (out))
dag_result dag_array_map_desc(const dag_task_desc *kernel, dag_array *in, dag_array *out);

/* Reductions, in double: per tile, then a tree of tasks. */
dag_result dag_array_sum(dag_array *a, double *out);
dag_result dag_array_min(dag_array *a, double *out);
dag_result dag_array_max(dag_array *a, double *out);
dag_result dag_array_dot(dag_array *a, dag_array *b, double *out);
dag_result dag_array_norm2(dag_array *a, double *out);

/* dst = src (same shape) or dst = src^T (dst is src's shape transposed);
   the tilings may differ: each pair of overlapping tiles is one task. */
dag_result dag_array_copy(dag_array *src, dag_array *dst);
dag_result dag_array_transpose(dag_array *src, dag_array *dst);

/* C = alpha * op(A) * op(B) + beta * C, op = transpose when trans is 1. The
   tilings must conform (op(A)'s tile columns are op(B)'s tile rows). */
dag_result dag_array_gemm(int transa, int transb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c);
/* Lower Cholesky factor in place: the lower triangle becomes L with
   A = L L^T; tiles above the diagonal are left as they were. Square tiles. */
dag_result dag_array_potrf(dag_array *a);

#ifdef __cplusplus
}
#endif
#endif /* DAG_ARRAY_H_INCLUDED */

#if defined(DAG_IMPLEMENTATION) && !defined(DAG_ARRAY_IMPLEMENTATION_INCLUDED)
#define DAG_ARRAY_IMPLEMENTATION_INCLUDED
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(DAG_ARRAY_CBLAS)
#include <cblas.h>
#include <lapacke.h>
/* OpenBLAS runs its own threads inside each call unless told not to; the
   tasks are the parallelism here. Weak: other BLAS libraries lack it. */
#if defined(__GNUC__) || defined(__clang__)
extern void openblas_set_num_threads(int) __attribute__((weak));
#define DAG__BLAS_ONE_THREAD() (openblas_set_num_threads ? openblas_set_num_threads(1) : (void)0)
#else
#define DAG__BLAS_ONE_THREAD() ((void)0)
#endif
#endif

struct dag_array {
    dag_elem type;
    size_t elem;
    int64_t rows, cols, brows, bcols, mt, nt;
    void **tile;                 /* mt * nt, tile (i, j) at i + j * mt */
    dag_data *handle;
};

static size_t dag__elem_size(dag_elem t) {
    return t == DAG_F64 || t == DAG_I64 ? 8 : t == DAG_F32 || t == DAG_I32 ? 4 : 0;
}

int64_t dag_array_rows(const dag_array *a) { return a ? a->rows : 0; }
int64_t dag_array_cols(const dag_array *a) { return a ? a->cols : 0; }
int64_t dag_array_tile_rows(const dag_array *a) { return a ? a->mt : 0; }
int64_t dag_array_tile_cols(const dag_array *a) { return a ? a->nt : 0; }
void dag_array_tile_size(const dag_array *a, int64_t i, int64_t j, int64_t *rows, int64_t *cols) {
    *rows = a->rows - i * a->brows < a->brows ? a->rows - i * a->brows : a->brows;
    *cols = a->cols - j * a->bcols < a->bcols ? a->cols - j * a->bcols : a->bcols;
}
dag_data dag_array_tile(const dag_array *a, int64_t i, int64_t j) {
    dag_data none = { 0 };
    if (!a || i < 0 || j < 0 || i >= a->mt || j >= a->nt) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_tile(%lld, %lld): outside the %lld x %lld tiles",
                (long long)i, (long long)j, a ? (long long)a->mt : 0LL, a ? (long long)a->nt : 0LL);
        return none;
    }
    return a->handle[i + j * a->mt];
}

void dag_array_free(dag_array *a) {
    if (!a) return;
    for (int64_t t = 0; t < a->mt * a->nt; t++) {
        if (a->handle[t].id) dag_data_unregister(a->handle[t]);
        free(a->tile[t]);
    }
    free(a->tile);
    free(a->handle);
    free(a);
}

static dag_array *dag__array_new(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    size_t elem = dag__elem_size(type);
    if (!elem || rows <= 0 || cols <= 0 || b.rows <= 0 || b.cols <= 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array: type %d, %lld x %lld in %lld x %lld blocks: sizes must be positive and the type one of "
                "DAG_F64, DAG_F32, DAG_I32, DAG_I64", (int)type, (long long)rows, (long long)cols, (long long)b.rows,
                (long long)b.cols);
        return NULL;
    }
    dag_array *a = (dag_array *)calloc(1, sizeof *a);
    if (!a) return NULL;
    a->type = type;
    a->elem = elem;
    a->rows = rows;
    a->cols = cols;
    a->brows = b.rows < rows ? b.rows : rows;
    a->bcols = b.cols < cols ? b.cols : cols;
    a->mt = (rows + a->brows - 1) / a->brows;
    a->nt = (cols + a->bcols - 1) / a->bcols;
    a->tile = (void **)calloc((size_t)(a->mt * a->nt), sizeof *a->tile);
    a->handle = (dag_data *)calloc((size_t)(a->mt * a->nt), sizeof *a->handle);
    for (int64_t j = 0; a->tile && a->handle && j < a->nt; j++)
        for (int64_t i = 0; i < a->mt; i++) {
            int64_t r, c;
            dag_array_tile_size(a, i, j, &r, &c);
            void *p = malloc((size_t)(r * c) * elem);
            if (!p) break;
            a->tile[i + j * a->mt] = p;
            a->handle[i + j * a->mt] = dag_data_register(p, (size_t)(r * c), elem);
        }
    for (int64_t t = 0; a->tile && a->handle && t < a->mt * a->nt; t++)
        if (!a->tile[t] || !a->handle[t].id) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array: no memory for %lld x %lld elements of %zu bytes",
                    (long long)rows, (long long)cols, elem);
            dag_array_free(a);
            return NULL;
        }
    if (!a->tile || !a->handle) {
        dag_array_free(a);
        return NULL;
    }
    return a;
}

/* >>element values: one function writes a value of any type */
static void dag__elem_put(dag_elem t, void *p, double v) {
    switch (t) {
    case DAG_F64: *(double *)p = v; break;
    case DAG_F32: *(float *)p = (float)v; break;
    case DAG_I32: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = (int64_t)v; break;
    }
}

/* A counter-based generator: the value depends only on (seed, row, col). */
static uint64_t dag__mix(uint64_t x) {
    x ^= x >> 30; x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27; x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}
static double dag__uniform(uint64_t seed, int64_t r, int64_t c, uint64_t stream) {
    uint64_t h = dag__mix(seed ^ dag__mix((uint64_t)r * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)c + (stream << 62)));
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);   /* 53 bits in [0, 1) */
}

enum { DAG__FILL_VALUE = 1, DAG__FILL_RAND, DAG__FILL_RANDN };
DAG_TASK(void, dag__array_fill_tile, (void *, t), (int, type), (int64_t, r0), (int64_t, c0), (int64_t, rows),
         (int64_t, cols), (int, how), (double, value), (uint64_t, seed)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double v = value;
            if (how == DAG__FILL_RAND) v = dag__uniform(seed, r0 + i, c0 + j, 0);
            if (how == DAG__FILL_RANDN) {   /* Box-Muller from two uniforms of the element */
                double u1 = 1.0 - dag__uniform(seed, r0 + i, c0 + j, 0), u2 = dag__uniform(seed, r0 + i, c0 + j, 1);
                v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            }
            dag__elem_put((dag_elem)type, (char *)t + (size_t)(i + j * rows) * elem, v);
        }
}

static dag_array *dag__array_filled(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, int how, double value,
                                    uint64_t seed) {
    dag_array *a = dag__array_new(type, rows, cols, b);
    if (!a) return NULL;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c;
                dag_array_tile_size(a, i, j, &r, &c);
                dag_spawn(dag__array_fill_tile, Out(a->handle[i + j * a->mt]), Val((int)type), Val(i * a->brows),
                          Val(j * a->bcols), Val(r), Val(c), Val(how), Val(value), Val(seed));
            }
    }
    if (dag_last_region_result() != DAG_OK) {
        dag_array_free(a);
        return NULL;
    }
    return a;
}

dag_array *dag_array_zeros(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_filled(type, rows, cols, b, DAG__FILL_VALUE, 0.0, 0);
}
dag_array *dag_array_ones(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_filled(type, rows, cols, b, DAG__FILL_VALUE, 1.0, 0);
}
dag_array *dag_array_fill(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, double value) {
    return dag__array_filled(type, rows, cols, b, DAG__FILL_VALUE, value, 0);
}
dag_array *dag_array_rand(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, uint64_t seed) {
    return dag__array_filled(type, rows, cols, b, DAG__FILL_RAND, 0.0, seed);
}
dag_array *dag_array_randn(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, uint64_t seed) {
    return dag__array_filled(type, rows, cols, b, DAG__FILL_RANDN, 0.0, seed);
}

/* >>host copies: a tile to or from a host matrix (to_tile: into the tile) */
DAG_TASK(void, dag__array_copy_tile, (void *, t), (void *, host), (int64_t, rows), (int64_t, cols), (int64_t, ld),
         (int, row_major), (int, elem), (int, to_tile)) {
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            char *h = (char *)host + (size_t)(row_major ? i * ld + j : i + j * ld) * (size_t)elem;
            char *x = (char *)t + (size_t)(i + j * rows) * (size_t)elem;
            if (to_tile) memcpy(x, h, (size_t)elem);
            else memcpy(h, x, (size_t)elem);
        }
}

static dag_result dag__array_host_copy(dag_array *a, void *host, dag_layout layout, int64_t ld, int to_tile) {
    if (!a || !host || (layout != DAG_COL_MAJOR && layout != DAG_ROW_MAJOR) ||
        ld < (layout == DAG_COL_MAJOR ? a->rows : a->cols)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array: host copy with %s, layout %d, ld %lld",
                !a ? "no array" : !host ? "no host memory" : "a bad layout or a leading dimension under the array's",
                (int)layout, (long long)ld);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int row_major = layout == DAG_ROW_MAJOR;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c, r0 = i * a->brows, c0 = j * a->bcols;
                dag_array_tile_size(a, i, j, &r, &c);
                void *h = (char *)host + (size_t)(row_major ? r0 * ld + c0 : r0 + c0 * ld) * a->elem;
                dag_arg tile = to_tile ? Out(a->handle[i + j * a->mt]) : In(a->handle[i + j * a->mt]);
                dag_spawn(dag__array_copy_tile, tile, Val(h), Val(r), Val(c), Val(ld), Val(row_major), Val((int)a->elem),
                          Val(to_tile));
            }
    }
    return dag_last_region_result();
}

dag_array *dag_array_from_host(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, const void *data,
                               dag_layout layout, int64_t ld) {
    dag_array *a = dag__array_new(type, rows, cols, b);
    if (a && dag__array_host_copy(a, (void *)(uintptr_t)data, layout, ld, 1) != DAG_OK) {
        dag_array_free(a);
        return NULL;
    }
    return a;
}
dag_result dag_array_collect(dag_array *a, void *out, dag_layout layout, int64_t ld) {
    return dag__array_host_copy(a, out, layout, ld, 0);
}

/* >>element-wise: one task per tile; the loop once per element type */
#define DAG__ARRAY_TYPES(X) X(DAG_F64, double) X(DAG_F32, float) X(DAG_I32, int32_t) X(DAG_I64, int64_t)
enum { DAG__EW_ADD = 1, DAG__EW_SUB, DAG__EW_MUL, DAG__EW_AXPY, DAG__EW_SCALE, DAG__EW_SET };
DAG_TASK(void, dag__tile_elementwise, (int, type), (int, op), (int64_t, n), (double, alpha), (const void *, a),
         (void *, c)) {
#define DAG__EW_LOOP(E, T) \
    case E: { \
        const T *x = (const T *)a; \
        T *z = (T *)c; \
        for (int64_t i = 0; i < n; i++) \
            switch (op) { \
            case DAG__EW_ADD: z[i] = (T)(x[i] + z[i]); break; \
            case DAG__EW_SUB: z[i] = (T)(x[i] - z[i]); break; \
            case DAG__EW_MUL: z[i] = (T)(x[i] * z[i]); break; \
            case DAG__EW_AXPY: z[i] = (T)(alpha * (double)x[i] + (double)z[i]); break; \
            case DAG__EW_SCALE: z[i] = (T)(alpha * (double)z[i]); break; \
            default: z[i] = (T)alpha; break; \
            } \
        break; \
    }
    switch ((dag_elem)type) { DAG__ARRAY_TYPES(DAG__EW_LOOP) }
#undef DAG__EW_LOOP
}
/* c = b first where c is neither a nor b, so every operation is c = a op c */
DAG_TASK(void, dag__tile_assign, (int64_t, bytes), (const void *, from), (void *, to)) { memcpy(to, from, (size_t)bytes); }

static bool dag__array_same(const dag_array *a, const dag_array *b, const char *op) {
    if (a && b && a->type == b->type && a->rows == b->rows && a->cols == b->cols && a->brows == b->brows &&
        a->bcols == b->bcols)
        return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: the arrays need one element type, shape and tiling", op);
    return false;
}

/* c = a op b for each tile; b is c's old value (copied in when c is a third array) */
static dag_result dag__array_elementwise(int op, const char *name, double alpha, dag_array *a, dag_array *b, dag_array *c) {
    if (!c || (a && !dag__array_same(a, c, name)) || (b && !dag__array_same(b, c, name))) {
        if (!c) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no output array", name);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    bool swapped = false;
    if (b && c == a && c != b) {   /* c = a op b with c being a: for + and .* the order does not matter */
        dag_array *t = a;
        a = b;
        b = t;
        swapped = true;
    }
    DAG_DATADEPS {
        for (int64_t t = 0; t < c->mt * c->nt; t++) {
            int64_t r, cl;
            dag_array_tile_size(c, t % c->mt, t / c->mt, &r, &cl);
            if (b && b != c) dag_spawn(dag__tile_assign, Val(r * cl * (int64_t)c->elem), In(b->handle[t]), Out(c->handle[t]));
            if (op == DAG__EW_SUB && swapped) {   /* c = c - b: c = -(b - c) */
                dag_spawn(dag__tile_elementwise, Val((int)c->type), Val(DAG__EW_SUB), Val(r * cl), Val(0.0), In(a->handle[t]),
                          InOut(c->handle[t]));
                dag_spawn(dag__tile_elementwise, Val((int)c->type), Val(DAG__EW_SCALE), Val(r * cl), Val(-1.0),
                          Val((const void *)NULL), InOut(c->handle[t]));
            } else if (a) {
                dag_spawn(dag__tile_elementwise, Val((int)c->type), Val(op), Val(r * cl), Val(alpha), In(a->handle[t]),
                          InOut(c->handle[t]));
            } else {
                dag_spawn(dag__tile_elementwise, Val((int)c->type), Val(op), Val(r * cl), Val(alpha),
                          Val((const void *)NULL), InOut(c->handle[t]));
            }
        }
    }
    return dag_last_region_result();
}
dag_result dag_array_add(dag_array *a, dag_array *b, dag_array *c) {
    return dag__array_elementwise(DAG__EW_ADD, "dag_array_add", 0, a, b, c);
}
dag_result dag_array_sub(dag_array *a, dag_array *b, dag_array *c) {
    return dag__array_elementwise(DAG__EW_SUB, "dag_array_sub", 0, a, b, c);
}
dag_result dag_array_mul(dag_array *a, dag_array *b, dag_array *c) {
    return dag__array_elementwise(DAG__EW_MUL, "dag_array_mul", 0, a, b, c);
}
dag_result dag_array_scale(double alpha, dag_array *a) {
    return dag__array_elementwise(DAG__EW_SCALE, "dag_array_scale", alpha, NULL, NULL, a);
}
dag_result dag_array_axpy(double alpha, dag_array *x, dag_array *y) {
    return dag__array_elementwise(DAG__EW_AXPY, "dag_array_axpy", alpha, x, NULL, y);
}
dag_result dag_array_set(dag_array *a, double value) {
    return dag__array_elementwise(DAG__EW_SET, "dag_array_set", value, NULL, NULL, a);
}

dag_result dag_array_map_desc(const dag_task_desc *kernel, dag_array *in, dag_array *out) {
    if (!kernel || !kernel->kernel || kernel->num_params != 3) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_map: %s is not a DAG_KERNEL of two parameters (x, y)",
                kernel ? kernel->name : "NULL");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (!dag__array_same(in, out, "dag_array_map")) return DAG_ERR_INVALID_ARGUMENT;
    DAG_DATADEPS {
        for (int64_t t = 0; t < out->mt * out->nt; t++) {
            int64_t r, c;
            dag_array_tile_size(out, t % out->mt, t / out->mt, &r, &c);
            dag_arg args[3] = { DAG_VAL((size_t)(r * c)), In(in->handle[t]), Out(out->handle[t]) };
            if (in == out) args[2] = InOut(out->handle[t]);   /* in place: the same tile read and written */
            dag_spawn_desc(kernel, args, 3, NULL);
        }
    }
    return dag_last_region_result();
}

/* >>reductions: each tile's part, then pairs combined by tasks */
enum { DAG__RED_SUM = 1, DAG__RED_MIN, DAG__RED_MAX, DAG__RED_DOT, DAG__RED_SQUARES };
DAG_TASK(double, dag__tile_reduce, (int, type), (int, op), (int64_t, n), (const void *, a), (const void *, b)) {
    double s = op == DAG__RED_MIN ? INFINITY : op == DAG__RED_MAX ? -INFINITY : 0.0;
#define DAG__RED_LOOP(E, T) \
    case E: { \
        const T *x = (const T *)a, *y = (const T *)b; \
        for (int64_t i = 0; i < n; i++) { \
            double v = (double)x[i]; \
            if (op == DAG__RED_MIN) s = v < s ? v : s; \
            else if (op == DAG__RED_MAX) s = v > s ? v : s; \
            else if (op == DAG__RED_DOT) s += v * (double)y[i]; \
            else if (op == DAG__RED_SQUARES) s += v * v; \
            else s += v; \
        } \
        break; \
    }
    switch ((dag_elem)type) { DAG__ARRAY_TYPES(DAG__RED_LOOP) }
#undef DAG__RED_LOOP
    return s;
}
DAG_TASK(double, dag__combine, (int, op), (double, x), (double, y)) {
    return op == DAG__RED_MIN ? (x < y ? x : y) : op == DAG__RED_MAX ? (x > y ? x : y) : x + y;
}

static dag_result dag__array_reduce(int op, const char *name, dag_array *a, dag_array *b, double *out) {
    if (!out || !a || (b && !dag__array_same(a, b, name))) {
        if (!out || !a) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name, !a ? "the array" : "out");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t tiles = a->mt * a->nt;
    dag_task *part = (dag_task *)malloc(sizeof *part * (size_t)tiles);
    if (!part) return DAG_ERR_OUT_OF_MEMORY;
    dag_result r = DAG_OK;
    DAG_DATADEPS {
        for (int64_t t = 0; t < tiles; t++) {
            int64_t rows, cols;
            dag_array_tile_size(a, t % a->mt, t / a->mt, &rows, &cols);
            part[t] = b ? dag_spawn(dag__tile_reduce, Val((int)a->type), Val(op), Val(rows * cols), In(a->handle[t]),
                                    In(b->handle[t]))
                        : dag_spawn(dag__tile_reduce, Val((int)a->type), Val(op), Val(rows * cols), In(a->handle[t]),
                                    Val((const void *)NULL));
        }
        int combine = op == DAG__RED_DOT || op == DAG__RED_SQUARES ? DAG__RED_SUM : op;
        for (int64_t step = 1; step < tiles; step *= 2)   /* a tree: log2(tiles) deep */
            for (int64_t t = 0; t + step < tiles; t += 2 * step)
                part[t] = dag_spawn(dag__combine, Val(combine), Fut(part[t]), Fut(part[t + step]));
        r = dag_fetch(part[0], out);
    }
    free(part);
    if (r == DAG_OK) r = dag_last_region_result();
    if (r == DAG_OK && op == DAG__RED_SQUARES) *out = sqrt(*out);
    return r;
}
dag_result dag_array_sum(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_SUM, "dag_array_sum", a, NULL, out); }
dag_result dag_array_min(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_MIN, "dag_array_min", a, NULL, out); }
dag_result dag_array_max(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_MAX, "dag_array_max", a, NULL, out); }
dag_result dag_array_dot(dag_array *a, dag_array *b, double *out) {
    return dag__array_reduce(DAG__RED_DOT, "dag_array_dot", a, b, out);
}
dag_result dag_array_norm2(dag_array *a, double *out) {
    return dag__array_reduce(DAG__RED_SQUARES, "dag_array_norm2", a, NULL, out);
}

/* >>copy and transpose between tilings: a task per pair of overlapping tiles */
DAG_TASK(void, dag__tile_copy_part, (int, elem), (const void *, src), (int64_t, src_ld), (int64_t, sr), (int64_t, sc),
         (void *, dst), (int64_t, dst_ld), (int64_t, dr), (int64_t, dc), (int64_t, rows), (int64_t, cols),
         (int, transpose)) {
    /* rows x cols of src from (sr, sc); into dst at (dr, dc), transposed when asked */
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t di = transpose ? dr + j : dr + i, dj = transpose ? dc + i : dc + j;
            memcpy((char *)dst + (size_t)(di + dj * dst_ld) * (size_t)elem,
                   (const char *)src + (size_t)(sr + i + (sc + j) * src_ld) * (size_t)elem, (size_t)elem);
        }
}

static dag_result dag__array_copy(dag_array *src, dag_array *dst, int transpose, const char *name) {
    if (!src || !dst || src->type != dst->type || (transpose ? src->rows != dst->cols || src->cols != dst->rows
                                                             : src->rows != dst->rows || src->cols != dst->cols)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: the arrays need one element type and %s", name,
                transpose ? "transposed shapes" : "one shape");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    DAG_DATADEPS {
        for (int64_t sj = 0; sj < src->nt; sj++)
            for (int64_t si = 0; si < src->mt; si++) {
                int64_t sr0 = si * src->brows, sc0 = sj * src->bcols, srows, scols;
                dag_array_tile_size(src, si, sj, &srows, &scols);
                /* the block of dst that this tile lands in: rows [r0, r1), cols [c0, c1) of dst */
                int64_t r0 = transpose ? sc0 : sr0, c0 = transpose ? sr0 : sc0;
                int64_t r1 = r0 + (transpose ? scols : srows), c1 = c0 + (transpose ? srows : scols);
                for (int64_t dj = c0 / dst->bcols; dj * dst->bcols < c1; dj++)
                    for (int64_t di = r0 / dst->brows; di * dst->brows < r1; di++) {
                        int64_t dr0 = di * dst->brows, dc0 = dj * dst->bcols, drows, dcols;
                        dag_array_tile_size(dst, di, dj, &drows, &dcols);
                        int64_t lo_r = r0 > dr0 ? r0 : dr0, hi_r = r1 < dr0 + drows ? r1 : dr0 + drows;
                        int64_t lo_c = c0 > dc0 ? c0 : dc0, hi_c = c1 < dc0 + dcols ? c1 : dc0 + dcols;
                        /* the same part in src's coordinates */
                        int64_t sr = (transpose ? lo_c : lo_r) - sr0, sc = (transpose ? lo_r : lo_c) - sc0;
                        int64_t rows = transpose ? hi_c - lo_c : hi_r - lo_r, cols = transpose ? hi_r - lo_r : hi_c - lo_c;
                        dag_spawn(dag__tile_copy_part, Val((int)src->elem), In(src->handle[si + sj * src->mt]), Val(srows),
                                  Val(sr), Val(sc), InOut(dst->handle[di + dj * dst->mt]), Val(drows), Val(lo_r - dr0),
                                  Val(lo_c - dc0), Val(rows), Val(cols), Val(transpose));
                    }
            }
    }
    return dag_last_region_result();
}
dag_result dag_array_copy(dag_array *src, dag_array *dst) { return dag__array_copy(src, dst, 0, "dag_array_copy"); }
dag_result dag_array_transpose(dag_array *src, dag_array *dst) {
    return dag__array_copy(src, dst, 1, "dag_array_transpose");
}

/* >>tile kernels (double, column-major, ld = the tile's rows) */
/* c = alpha op(a) op(b) + beta c, c m x n, inner k */
static void dag__dgemm(int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda, const double *b,
                       int ldb, double beta, double *c, int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
                b, ldb, beta, c, ldc);
#else
    for (int j = 0; j < n; j++) {
        double *cj = c + (size_t)j * ldc;
        for (int i = 0; i < m; i++) cj[i] = beta == 0.0 ? 0.0 : beta * cj[i];
        for (int l = 0; l < k; l++) {
            double blj = alpha * (tb ? b[j + (size_t)l * ldb] : b[l + (size_t)j * ldb]);
            if (ta)
                for (int i = 0; i < m; i++) cj[i] += a[l + (size_t)i * lda] * blj;
            else
                for (int i = 0; i < m; i++) cj[i] += a[i + (size_t)l * lda] * blj;
        }
    }
#endif
}
/* c (lower) -= a a^T, c n x n, a n x k */
static void dag__dsyrk(int n, int k, const double *a, int lda, double *c, int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
#else
    for (int j = 0; j < n; j++)
        for (int l = 0; l < k; l++) {
            double ajl = a[j + (size_t)l * lda];
            for (int i = j; i < n; i++) c[i + (size_t)j * ldc] -= a[i + (size_t)l * lda] * ajl;
        }
#endif
}
/* b = b m^T (m lower, n x n; b m_rows x n): with m = L^-1 this is the
   trsm of the panel. */
static void dag__dtrmm(int rows, int n, const double *m, int ldm, double *b, int ldb) {
#if defined(DAG_ARRAY_CBLAS)
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, n, 1.0, m, ldm, b, ldb);
#else
    double *scratch = (double *)malloc(sizeof(double) * (size_t)rows);
    if (!scratch) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "no memory for a %d-element column", rows);
        return;
    }
    for (int c = n - 1; c >= 0; c--) {   /* column c needs columns p <= c, not yet overwritten */
        for (int i = 0; i < rows; i++) scratch[i] = 0.0;
        for (int p = 0; p <= c; p++) {
            double mcp = m[c + (size_t)p * ldm];
            const double *bp = b + (size_t)p * ldb;
            for (int i = 0; i < rows; i++) scratch[i] += bp[i] * mcp;
        }
        memcpy(b + (size_t)c * ldb, scratch, sizeof(double) * (size_t)rows);
    }
    free(scratch);
#endif
}
/* inverse of a lower triangle (n x n) in place */
static void dag__dtrtri(int n, double *a, int lda) {
#if defined(DAG_ARRAY_CBLAS)
    LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, a, lda);
#else
    for (int j = n - 1; j >= 0; j--) {   /* column j of the inverse needs columns > j, already inverted */
        double d = 1.0 / a[j + (size_t)j * lda];
        a[j + (size_t)j * lda] = d;
        for (int i = n - 1; i > j; i--) {
            double s = 0.0;
            for (int p = j + 1; p <= i; p++) s += a[i + (size_t)p * lda] * a[p + (size_t)j * lda];
            a[i + (size_t)j * lda] = -s * d;
        }
    }
#endif
}
/* lower Cholesky of a (n x n) in place: 0, or the 1-based column where it
   stops being positive definite */
static int dag__dpotrf(int n, double *a, int lda) {
#if defined(DAG_ARRAY_CBLAS)
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
    return info > 0 ? (int)info : 0;
#else
    for (int j = 0; j < n; j++) {
        double d = a[j + (size_t)j * lda];
        for (int p = 0; p < j; p++) d -= a[j + (size_t)p * lda] * a[j + (size_t)p * lda];
        if (!(d > 0.0)) return j + 1;   /* also NaN */
        d = sqrt(d);
        a[j + (size_t)j * lda] = d;
        for (int i = j + 1; i < n; i++) {
            double s = a[i + (size_t)j * lda];
            for (int p = 0; p < j; p++) s -= a[i + (size_t)p * lda] * a[j + (size_t)p * lda];
            a[i + (size_t)j * lda] = s / d;
        }
    }
    return 0;
#endif
}

DAG_TASK(void, dag__tile_gemm, (int, ta), (int, tb), (int, m), (int, n), (int, k), (double, alpha), (const double *, a),
         (int, lda), (const double *, b), (int, ldb), (double, beta), (double *, c), (int, ldc)) {
    dag__dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
DAG_TASK(void, dag__tile_syrk, (int, n), (int, k), (const double *, a), (double *, c)) {
    dag__dsyrk(n, k, a, n, c, n);
}
/* the panel's triangular solve b = b L^-T, as b = b (L^-1)^T with the
   inverse the diagonal task made */
DAG_TASK(void, dag__tile_trsm, (int, m), (int, n), (const double *, linv), (double *, b)) {
    dag__dtrmm(m, n, linv, n, b, m);
}
/* The diagonal tile: L, and L^-1 for the panel below it. */
DAG_TASK(void, dag__tile_potrf, (int, n), (double *, a), (double *, linv), (int64_t, tile), (int64_t, col0)) {
    int bad = dag__dpotrf(n, a, n);
    if (bad) {
        dag_fail(DAG_ERR_NOT_POSITIVE_DEFINITE, "not positive definite: tile (%lld, %lld), column %lld (global)",
                 (long long)tile, (long long)tile, (long long)(col0 + bad - 1));
        return;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) linv[i + (size_t)j * n] = i >= j ? a[i + (size_t)j * n] : 0.0;
    dag__dtrtri(n, linv, n);
}

static bool dag__array_is(const dag_array *a, const char *op, const char *name) {
    if (a && a->type == DAG_F64) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is %s; this version's linear algebra is double (DAG_F64)",
            op, name, a ? "not double" : "NULL");
    return false;
}

dag_result dag_array_gemm(int ta, int tb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c) {
    if (!dag__array_is(a, "dag_array_gemm", "A") || !dag__array_is(b, "dag_array_gemm", "B") ||
        !dag__array_is(c, "dag_array_gemm", "C"))
        return DAG_ERR_INVALID_ARGUMENT;
    /* op(A) is m x k in tiles of (am x ak), op(B) k x n */
    int64_t m = ta ? a->cols : a->rows, ka = ta ? a->rows : a->cols, kb = tb ? b->cols : b->rows, n = tb ? b->rows : b->cols;
    int64_t am = ta ? a->bcols : a->brows, ak = ta ? a->brows : a->bcols, bk = tb ? b->bcols : b->brows,
            bn = tb ? b->brows : b->bcols;
    if (m != c->rows || n != c->cols || ka != kb || am != c->brows || bn != c->bcols || ak != bk) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array_gemm: op(A) %lld x %lld (tiles %lld x %lld), op(B) %lld x %lld (tiles %lld x %lld), C %lld x "
                "%lld (tiles %lld x %lld) do not conform", (long long)m, (long long)ka, (long long)am, (long long)ak,
                (long long)kb, (long long)n, (long long)bk, (long long)bn, (long long)c->rows, (long long)c->cols,
                (long long)c->brows, (long long)c->bcols);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t kt = (ka + ak - 1) / ak;
    DAG_DATADEPS {
        for (int64_t j = 0; j < c->nt; j++)
            for (int64_t i = 0; i < c->mt; i++)
                for (int64_t l = 0; l < kt; l++) {
                    int64_t cm, cn, ar, ac, br, bc;
                    dag_array_tile_size(c, i, j, &cm, &cn);
                    int64_t ai = ta ? l : i, aj = ta ? i : l, bi = tb ? j : l, bj = tb ? l : j;
                    dag_array_tile_size(a, ai, aj, &ar, &ac);
                    dag_array_tile_size(b, bi, bj, &br, &bc);
                    dag_spawn(dag__tile_gemm, Val(ta), Val(tb), Val((int)cm), Val((int)cn), Val((int)(ta ? ar : ac)),
                              Val(alpha), In(a->handle[ai + aj * a->mt]), Val((int)ar), In(b->handle[bi + bj * b->mt]),
                              Val((int)br), Val(l == 0 ? beta : 1.0), InOut(c->handle[i + j * c->mt]), Val((int)cm));
                }
    }
    return dag_last_region_result();
}

/* Right-looking tile Cholesky. Priorities follow the critical path: the
   panel of step k (potrf, then its trsms) before the updates, and earlier
   steps before later ones, so the next panel is ready when the cores free. */
dag_result dag_array_potrf(dag_array *a) {
    if (!dag__array_is(a, "dag_array_potrf", "A")) return DAG_ERR_INVALID_ARGUMENT;
    if (a->rows != a->cols || a->brows != a->bcols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array_potrf: needs a square matrix in square tiles (%lld x %lld in %lld x %lld)", (long long)a->rows,
                (long long)a->cols, (long long)a->brows, (long long)a->bcols);
        return DAG_ERR_INVALID_ARGUMENT;
    }
#if defined(DAG_ARRAY_CBLAS)
    DAG__BLAS_ONE_THREAD();
#endif
    int64_t nt = a->nt, nb = a->brows;
    dag_data *t = a->handle;
    /* The panel's solves multiply by L_kk^-1 (dtrtri once per step, then
       dtrmm: OpenBLAS's dtrmm runs at twice its dtrsm's rate on tiles);
       the inverse of a diagonal tile of an SPD matrix's factor is as well
       conditioned as the tile. */
    dag_array *inv = dag_array_zeros(DAG_F64, nt * nb, nb, dag_blocks(nb, nb));
    if (!inv) return DAG_ERR_OUT_OF_MEMORY;
#define DAG__T(i, j) t[(i) + (j) * nt]
#define DAG__SIZE(i) ((int)(a->rows - (i) * nb < nb ? a->rows - (i) * nb : nb))
#define DAG__PRIO(p) (&(dag_options){ .priority = (int)(p) })
    int64_t top = 4 * nt + 1;   /* above 2k + i + j: every priority is over 0, so all go by the heap */
    DAG_DATADEPS {
        for (int64_t k = 0; k < nt; k++) {
            dag_spawn_with(DAG__PRIO(top - 2 * k), dag__tile_potrf, Val(DAG__SIZE(k)), InOut(DAG__T(k, k)),
                           Out(inv->handle[k]), Val(k), Val(k * nb));
            for (int64_t i = k + 1; i < nt; i++)
                dag_spawn_with(DAG__PRIO(top - 2 * k - i), dag__tile_trsm, Val(DAG__SIZE(i)), Val(DAG__SIZE(k)),
                               In(inv->handle[k]), InOut(DAG__T(i, k)));
            for (int64_t i = k + 1; i < nt; i++) {
                dag_spawn_with(DAG__PRIO(top - 2 * k - i), dag__tile_syrk, Val(DAG__SIZE(i)), Val(DAG__SIZE(k)),
                               In(DAG__T(i, k)), InOut(DAG__T(i, i)));
                for (int64_t j = k + 1; j < i; j++)
                    dag_spawn_with(DAG__PRIO(top - 2 * k - i - j), dag__tile_gemm, Val(0), Val(1), Val(DAG__SIZE(i)),
                                   Val(DAG__SIZE(j)), Val(DAG__SIZE(k)), Val(-1.0), In(DAG__T(i, k)), Val(DAG__SIZE(i)),
                                   In(DAG__T(j, k)), Val(DAG__SIZE(j)), Val(1.0), InOut(DAG__T(i, j)),
                                   Val(DAG__SIZE(i)));
            }
        }
    }
#undef DAG__T
#undef DAG__SIZE
#undef DAG__PRIO
    dag_result r = dag_last_region_result();
    dag_array_free(inv);
    return r;
}

#endif /* DAG_IMPLEMENTATION */
