/* dag_array.h: block-partitioned arrays for dag.h (Dagger's DArray in C).

       #define DAG_IMPLEMENTATION       (in one file, as for dag.h)
       #include "dag_array.h"

       dag_array *a = dag_array_randn(DAG_F64, n, n, dag_blocks(256, 256), 42);
       dag_array_potrf(a);               // tiled Cholesky, in place (lower)
       dag_array_collect(a, host, DAG_COL_MAJOR, n);
       dag_array_free(a);

   An array is a grid of tiles (ragged at the right and bottom edges), each
   a contiguous column-major block (leading dimension: its own row count),
   or, for dag_array_wrap, a view of the caller's column-major matrix (its
   leading dimension: the matrix's), each a registered dag_data handle:
   dag_array_tile(a, i, j) can be an In/Out/InOut argument of any task, and the operations here are such
   tasks, spawned in a DAG_DATADEPS region that they wait for (so they
   return the first error, and the data is current when they return).

   Linear algebra (double and float): gemm, syrk, trsm, Cholesky (potrf,
   right-looking, critical-path priorities), LU without pivoting, and the
   SPD solves potrs and posv. A matrix that is not positive
   definite fails with DAG_ERR_NOT_POSITIVE_DEFINITE and a logged message
   naming the tile and the global column. Tiles call cblas and LAPACKE when
   built with -DDAG_ARRAY_CBLAS (link -lopenblas -llapacke; OpenBLAS is told
   to use one thread inside tasks), else built-in loops.

   Element-wise operations, map with a DAG_KERNEL, reductions (a tree of
   tasks), copy and transpose between any tilings, for every element type.

   Placement follows the scope in force: under a scope that names devices,
   each operation's tile kernels (dag_array_kernels.h, and dag_blas.h's
   gemm: cuBLAS on CUDA, CLBlast on OpenCL where it loads) go
   block-cyclically over them, tile (i, j) on device (i + j) mod
   count; the diagonal tiles of potrf and the LU, randn and host copies run
   on the CPU. A scope that names only devices none of which is here (a
   backend not compiled in, or with no driver or device) fails each
   operation with DAG_ERR_SCOPE naming the backends and why, as it fails a
   kernel task; in a union with the CPU the operation runs on the CPU. For
   CUDA, HIP and Level Zero, include dag_array.h in the program's kernels
   file so its builds carry these kernels.

   Over MPI ranks (dag_backends/dag_mpi.h) the tiles are dealt
   block-cyclically over a grid of ranks (dag_blocks_grid), each rank
   allocates the tiles it owns, and every operation is the same call on
   every rank: its tasks run on the owners of the tiles they write, and the
   tiles they read move there (docs/mpi.md, "Arrays over ranks").
*/
/* one error that names the files to copy, not the compiler's about the first one missing */
#if defined(__has_include)
#if !__has_include("dag.h") || !__has_include("dag_kernels.h") || !__has_include("dag_blas.h") || \
    !__has_include("dag_array_kernels.h")
#error "dag_array.h needs dag.h, dag_kernels.h, dag_blas.h and dag_array_kernels.h beside it (README: Which files to copy)"
#endif
#endif
#if defined(__OPENCL_C_VERSION__) || defined(DAG_KERNEL_NAMES) || defined(__CUDACC__) || defined(__HIP__)
/* A kernels file that includes dag_array.h, built by clang -x cl, nvcc or
   hipcc (or listed by tools/dag_embed.py): dag_array's kernels only, so the
   program's CUDA, HIP and Level Zero builds carry them. */
#ifndef DAG_ARRAY_H_INCLUDED
#define DAG_ARRAY_H_INCLUDED
#include "dag_blas.h"
#if !defined(__OPENCL_C_VERSION__) && !defined(DAG_KERNEL_NAMES)
#include <math.h>   /* INFINITY */
#endif
#include "dag_array_kernels.h"
#endif
#else /* C or C++ on the host */

#ifndef DAG_ARRAY_H_INCLUDED
#define DAG_ARRAY_H_INCLUDED

#include "dag_blas.h"   /* dag.h, dag_kernels.h and the tile gemm kernel */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dag_elem { DAG_F64 = 1, DAG_F32, DAG_I32, DAG_I64 } dag_elem;
typedef enum dag_layout { DAG_COL_MAJOR = 1, DAG_ROW_MAJOR } dag_layout;
/* Tiles of rows x cols elements. Over MPI ranks (dag_backends/dag_mpi.h) the
   tiles are spread 2-D block-cyclically over a grid of p x q ranks, as
   ScaLAPACK does: tile (i, j) lives on rank (i mod p) q + (j mod q), and
   the tasks that write it run there (owner computes). dag_blocks() takes
   the squarest grid of every rank (p <= q, p q = ranks); dag_blocks_grid()
   names one (ranks past the last wrap around, so a program written for
   four ranks runs on one). Without MPI every tile lives on rank 0. */
typedef struct dag_blocks { int64_t rows, cols; int grid_rows, grid_cols; } dag_blocks;
#define dag_blocks(rows, cols) ((dag_blocks){ (rows), (cols), 0, 0 })
#define dag_blocks_grid(rows, cols, p, q) ((dag_blocks){ (rows), (cols), (p), (q) })

typedef struct dag_array dag_array;

/* Constructors: NULL (and a logged error) on bad sizes or no memory.
   rand is uniform in [0, 1) for DAG_F64 and DAG_F32, and for the integer
   types uniform over the non-negative values: [0, 2^31) for DAG_I32,
   [0, 2^63) for DAG_I64. randn is standard normal (integer types: rounded
   toward zero). Both depend only on the seed and the element's (row,
   column), so any tiling gives the same array. */
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
/* Over MPI ranks, from_host and collect use every rank's own host matrix:
   from_host takes each tile from its owner's (every rank passes the same
   matrix, SPMD), collect writes the whole array into every rank's. The _on
   forms use rank's alone, the others passing NULL: from_host_on sends the
   tiles out from there (distribute), collect_on gathers them there. */
dag_array *dag_array_from_host_on(int rank, dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks,
                                  const void *data, dag_layout layout, int64_t ld);
dag_result dag_array_collect_on(int rank, dag_array *a, void *out, dag_layout layout, int64_t ld);
/* An array over the caller's column-major matrix, in place (LAPACK's
   layout): its tiles are views of `data` (ld elements between columns),
   nothing is copied, and after every operation `data` holds the array's
   values. `data` must outlive the array; dag_array_free leaves it. Its
   factorisations update whole column panels at once (taller dgemm calls,
   faster on the CPU: bench/README.md). On a device each tile's buffer spans its
   columns' stride (ld), so device work is better done on arrays of their
   own tiles (dag_array_from_host). NULL (and a logged error) on bad sizes
   or ld < rows. */
dag_array *dag_array_wrap(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks, void *data, int64_t ld);
void dag_array_free(dag_array *a);

int64_t dag_array_rows(const dag_array *a);
int64_t dag_array_cols(const dag_array *a);
int64_t dag_array_tile_rows(const dag_array *a);   /* tiles down */
int64_t dag_array_tile_cols(const dag_array *a);   /* tiles across */
dag_data dag_array_tile(const dag_array *a, int64_t i, int64_t j);
/* The size of tile (i, j), and its leading dimension: elements between its
   columns, its own rows unless the array wraps a matrix (then the
   matrix's ld), on the host and on a device alike. 0 when (i, j) is
   outside the array. */
void dag_array_tile_size(const dag_array *a, int64_t i, int64_t j, int64_t *rows, int64_t *cols);
int64_t dag_array_tile_ld(const dag_array *a, int64_t i, int64_t j);
/* The MPI rank tile (i, j) lives on (0 without MPI; -1 outside the array). */
int dag_array_tile_rank(const dag_array *a, int64_t i, int64_t j);

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
/* C's lower triangle = alpha * op(A) * op(A)^T + beta * C (C square in
   square tiles; its upper triangle is left as it was). */
dag_result dag_array_syrk(int trans, double alpha, dag_array *a, double beta, dag_array *c);
/* B = alpha * op(A)^-1 * B (right = 0) or alpha * B * op(A)^-1 (right = 1),
   A triangular (upper = 1: its upper triangle; unit = 1: a unit diagonal). */
dag_result dag_array_trsm(int right, int upper, int trans, int unit, double alpha, dag_array *a, dag_array *b);
/* Lower Cholesky factor in place: the lower triangle becomes L with
   A = L L^T; tiles above the diagonal are left as they were. Square tiles. */
dag_result dag_array_potrf(dag_array *a);
/* LU without pivoting, in place (diagonally dominant matrices). */
dag_result dag_array_getrf_nopiv(dag_array *a);
/* Solves A X = B: potrs with A's factor from dag_array_potrf, posv from A
   itself (it becomes L). B becomes X. */
dag_result dag_array_potrs(dag_array *l, dag_array *b);
dag_result dag_array_posv(dag_array *a, dag_array *b);

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

#include "dag_array_kernels.h"

struct dag_array {
    dag_elem type;
    size_t elem;
    int64_t rows, cols, brows, bcols, mt, nt;
    int64_t ld;                  /* 0: each tile its own block (ld: its rows); else tiles are views of a
                                    column-major matrix (dag_array_wrap) with this leading dimension */
    void **tile;                 /* mt * nt, tile (i, j) at i + j * mt; NULL where another rank owns it */
    dag_data *handle;
    int p, q;                    /* the grid of ranks the tiles are dealt over (1 x 1 on one rank) */
    bool with_diagonal;          /* tile (i, j) lives with the square grid's tile (i, i) (potrf's inverses) */
};

static size_t dag__elem_size(dag_elem t) {
    return t == DAG_F64 || t == DAG_I64 ? 8 : t == DAG_F32 || t == DAG_I32 ? 4 : 0;
}

int64_t dag_array_rows(const dag_array *a) { return a ? a->rows : 0; }
int64_t dag_array_cols(const dag_array *a) { return a ? a->cols : 0; }
int64_t dag_array_tile_rows(const dag_array *a) { return a ? a->mt : 0; }
int64_t dag_array_tile_cols(const dag_array *a) { return a ? a->nt : 0; }
/* rows of the tiles in tile row i, columns of those in tile column j (the last ones ragged) */
static int64_t dag__tile_rows(const dag_array *a, int64_t i) {
    return a->rows - i * a->brows < a->brows ? a->rows - i * a->brows : a->brows;
}
static int64_t dag__tile_cols(const dag_array *a, int64_t j) {
    return a->cols - j * a->bcols < a->bcols ? a->cols - j * a->bcols : a->bcols;
}
/* the leading dimension of the tiles in tile row i */
static int64_t dag__ld(const dag_array *a, int64_t i) { return a->ld ? a->ld : dag__tile_rows(a, i); }
void dag_array_tile_size(const dag_array *a, int64_t i, int64_t j, int64_t *rows, int64_t *cols) {
    *rows = dag__tile_rows(a, i);
    *cols = dag__tile_cols(a, j);
}
int64_t dag_array_tile_ld(const dag_array *a, int64_t i, int64_t j) {
    return a && i >= 0 && j >= 0 && i < a->mt && j < a->nt ? dag__ld(a, i) : 0;
}
static int dag__tile_rank(const dag_array *a, int64_t i, int64_t j) {
    if (a->with_diagonal) j = i;
    return (int)(((i % a->p) * a->q + j % a->q) % dag_num_ranks());
}
int dag_array_tile_rank(const dag_array *a, int64_t i, int64_t j) {
    return a && i >= 0 && j >= 0 && i < a->mt && j < a->nt ? dag__tile_rank(a, i, j) : -1;
}
/* More than one rank: tiles have owners, and some live elsewhere. */
static bool dag__ranks(void) { return dag_num_ranks() > 1; }
dag_data dag_array_tile(const dag_array *a, int64_t i, int64_t j) {
    dag_data none = { 0 };
    if (!a || i < 0 || j < 0 || i >= a->mt || j >= a->nt) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_tile(%lld, %lld): outside the %lld x %lld tiles",
                (long long)i, (long long)j, a ? (long long)a->mt : 0LL, a ? (long long)a->nt : 0LL);
        return none;
    }
    return a->handle[i + j * a->mt];
}

/* Zeroed memory for n things of size bytes through dag.h's allocator hooks
   (DAG_MALLOC), NULL when there is none or n * size overflows. */
static void *dag__array_zalloc(size_t n, size_t size) {
    if (size && n > (size_t)-1 / size) return NULL;
    void *p = DAG_MALLOC(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void dag_array_free(dag_array *a) {
    if (!a) return;
    for (int64_t t = 0; a->tile && a->handle && t < a->mt * a->nt; t++) {
        if (a->handle[t].id) dag_data_unregister(a->handle[t]);
        if (!a->ld) DAG_FREE(a->tile[t]);   /* a wrapped matrix is the caller's; another rank's tile: NULL */
    }
    DAG_FREE(a->tile);
    DAG_FREE(a->handle);
    DAG_FREE(a);
}

/* The grid of ranks blocks names, or the squarest of every rank (p <= q,
   p q = ranks, as ScaLAPACK's benchmarks pick); false for a bad one. */
static bool dag__grid(dag_blocks b, int *p, int *q) {
    int ranks = dag_num_ranks();
    if (b.grid_rows < 0 || b.grid_cols < 0 || (b.grid_rows == 0) != (b.grid_cols == 0)) return false;
    if (ranks == 1) {
        *p = *q = 1;
    } else if (b.grid_rows) {
        *p = b.grid_rows;
        *q = b.grid_cols;
    } else {
        for (*p = 1; (*p + 1) * (*p + 1) <= ranks; ++*p) {}
        while (ranks % *p) --*p;
        *q = ranks / *p;
    }
    return true;
}

/* Registers tile (i, j) at p (r x c elements, ld apart): owned here, or
   with its owner's rank over MPI (p NULL when another rank owns a tile of
   the array's own: its copy here is dag.h's). The array's own tiles may
   stay on a device between operations (resident; over MPI on their
   owner, where a send brings one home first); a wrapped matrix's are the
   program's memory, current after each operation. */
static dag_data dag__tile_register(const dag_array *a, int64_t i, int64_t j, void *p, int64_t r, int64_t c,
                                   int64_t ld) {
    if (dag__ranks()) {
        int owner = dag__tile_rank(a, i, j);
        return a->ld ? dag_data_register_tile_on(owner, p, (size_t)c, (size_t)r, (size_t)ld, a->elem)
                     : dag_data_register_resident_tile_on(owner, p, (size_t)c, (size_t)r, (size_t)ld, a->elem);
    }
    if (a->ld) return dag_data_register_tile(p, (size_t)c, (size_t)r, (size_t)ld, a->elem);
    return dag_data_register_resident_tile(p, (size_t)c, (size_t)r, (size_t)ld, a->elem);
}

/* An array of its own tiles (wrap NULL), or of views of the column-major
   matrix wrap with leading dimension ld (over ranks: every rank's own
   matrix, where the tiles it owns are current after each operation).
   with_diagonal: tile (i, j) lives with tile (i, i) of a square array on
   b's grid (potrf's inverses of the diagonal tiles, made where those are). */
static dag_array *dag__array_new(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, void *wrap, int64_t ld,
                                 bool with_diagonal) {
    size_t elem = dag__elem_size(type);
    int p = 0, q = 0;
    if (!elem || rows <= 0 || cols <= 0 || b.rows <= 0 || b.cols <= 0 || !dag__grid(b, &p, &q)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array: type %d, %lld x %lld in %lld x %lld blocks on a %d x %d grid of ranks: sizes must be "
                "positive, the grid both positive or both 0 (every rank), the type one of DAG_F64, DAG_F32, DAG_I32, "
                "DAG_I64", (int)type, (long long)rows, (long long)cols, (long long)b.rows, (long long)b.cols,
                b.grid_rows, b.grid_cols);
        return NULL;
    }
    dag_array *a = (dag_array *)dag__array_zalloc(1, sizeof *a);
    if (!a) return NULL;
    a->type = type;
    a->elem = elem;
    a->rows = rows;
    a->cols = cols;
    a->brows = b.rows < rows ? b.rows : rows;
    a->bcols = b.cols < cols ? b.cols : cols;
    a->mt = (rows + a->brows - 1) / a->brows;
    a->nt = (cols + a->bcols - 1) / a->bcols;
    a->ld = wrap ? ld : 0;
    a->p = p;
    a->q = q;
    a->with_diagonal = with_diagonal;
    a->tile = (void **)dag__array_zalloc((size_t)(a->mt * a->nt), sizeof *a->tile);
    a->handle = (dag_data *)dag__array_zalloc((size_t)(a->mt * a->nt), sizeof *a->handle);
    bool failed = !a->tile || !a->handle;
    int64_t unregistered = -1;   /* the tile dag.h refused to register (it says why) */
    for (int64_t j = 0; !failed && j < a->nt; j++)
        for (int64_t i = 0; !failed && i < a->mt; i++) {
            int64_t r, c, t = i + j * a->mt;
            dag_array_tile_size(a, i, j, &r, &c);
            if (wrap) /* c columns of r elements, ld apart; home after every operation */
                a->tile[t] = (char *)wrap + (size_t)(i * a->brows + j * a->bcols * ld) * elem;
            else if (dag__tile_rank(a, i, j) == dag_rank() && !(a->tile[t] = DAG_MALLOC((size_t)(r * c) * elem)))
                failed = true;
            /* c columns of r elements (Ld gives kernels r, or the matrix's ld) */
            if (!failed && !(a->handle[t] = dag__tile_register(a, i, j, a->tile[t], r, c, wrap ? ld : r)).id) {
                failed = true;
                unregistered = t;
            }
        }
    if (failed) {
        if (unregistered >= 0)
            dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array: tile %lld of its %lld (%lld x %lld in tiles of "
                    "%lld x %lld) could not be registered (the error before this says why)", (long long)unregistered,
                    (long long)(a->mt * a->nt), (long long)rows, (long long)cols, (long long)a->brows,
                    (long long)a->bcols);
        else if (a->tile && a->handle)
            dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array: no memory for %lld x %lld elements of %zu bytes",
                    (long long)rows, (long long)cols, elem);
        dag_array_free(a);
        return NULL;
    }
    return a;
}

/* >>where tiles run. A scope that names devices (DAG_WITH_OPTIONS(.scope =
   dag_scope(.opencl.all = 1)), for example) spreads the kernels of
   gemm and potrf on double arrays block-cyclically over them, tile (i, j)
   on device (i + j) mod count, owner computes; every other tile task runs
   on the CPU (the workers of the scope, or all of them when it names none).
   A scope that names only devices, none of which exists, is the error it
   is for a kernel task (DAG_ERR_SCOPE, status): running on the CPU is what
   it rules out. */
typedef struct dag__array_where {
    dag_result status;
    dag_options cpu;
    int devices;
    dag_options dev[DAG_MAX_DEVICES];
} dag__array_where;

/* Logs why none of the devices scope s names exists: each backend's own words (dag_backend_status:
   not compiled in, or the driver's message). */
static dag_result dag__array_no_device(const char *who, const dag_scope *s) {
    char why[1024];
    size_t n = 0;
    why[0] = 0;
    for (int b = 1; b < DAG_BACKEND_COUNT && n < sizeof why; b++) {
        dag_device_scope part = *dag_scope_part(s, (dag_backend)b);
        if (!part.one && !part.set && !part.all) continue;
        int count = dag_device_count((dag_backend)b);
        int k = count ? snprintf(why + n, sizeof why - n, "%s%d device(s), none of those named (%s)", n ? "; " : "",
                                 count, dag_backend_status((dag_backend)b))
                      : snprintf(why + n, sizeof why - n, "%s%s", n ? "; " : "", dag_backend_status((dag_backend)b));
        n += k > 0 ? (size_t)k : 0;
    }
    dag_log(DAG_LOG_ERROR, DAG_ERR_SCOPE, "%s: the scope in force names only devices, and none of them is here: %s", who,
            why);
    return DAG_ERR_SCOPE;
}

static dag__array_where dag__array_where_now(const char *who) {
    dag__array_where w;
    memset(&w, 0, sizeof w);
    dag_scope s = dag_scope_in_force();
    w.cpu.scope = s;
    if (!dag_scope_has_cpu(s)) {   /* the CPU tasks go to every worker (of the rank the scope names, if any) */
        memset(&w.cpu.scope, 0, sizeof w.cpu.scope);
        w.cpu.scope.all_threads = 1;
        w.cpu.scope.rank = s.rank;
    }
    if (s.any_processor) return w;   /* the cost model places each kernel */
    for (int b = 1; b < DAG_BACKEND_COUNT && w.devices < DAG_MAX_DEVICES; b++) {
        dag_device_scope part = *dag_scope_part(&s, (dag_backend)b);
        for (int d = 1; d <= dag_device_count((dag_backend)b) && w.devices < DAG_MAX_DEVICES; d++)
            if (dag_device_scope_has(part, d)) {
                w.dev[w.devices].scope.rank = s.rank;
                dag_scope_part(&w.dev[w.devices++].scope, (dag_backend)b)->one = d;
            }
    }
    if (!w.devices && !dag_scope_has_cpu(s)) w.status = dag__array_no_device(who, &s);
    return w;
}
/* where tile (i, j)'s kernels run: its device, or the CPU */
static const dag_options *dag__tile_where(const dag__array_where *w, int64_t i, int64_t j) {
    return w->devices ? &w->dev[(i + j) % w->devices] : &w->cpu;
}
/* The trace and error messages show the operation ("gemm", "potrf"), not the
   internal task's name: a pointer to a copy of *o with that name. */
static dag_options dag__named(const dag_options *o, const char *name) {
    dag_options n = *o;
    n.name = name;
    return n;
}
#ifdef __cplusplus   /* the copy lives to the end of the spawn's statement in both */
#define DAG__NAMED(o, name) dag__options_of(dag__named((o), (name)))
#else
#define DAG__NAMED(o, name) ((dag_options[]){ dag__named((o), (name)) })
#endif
static dag_options dag__with_priority(const dag_options *o, int priority) {
    dag_options p = *o;
    p.priority = priority;
    return p;
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
static uint64_t dag__bits(uint64_t seed, int64_t r, int64_t c, uint64_t stream) {   /* 64 random bits per element */
    return dag__mix(seed ^ dag__mix((uint64_t)r * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)c + (stream << 62)));
}
static double dag__uniform(uint64_t seed, int64_t r, int64_t c, uint64_t stream) {
    return (double)(dag__bits(seed, r, c, stream) >> 11) * (1.0 / 9007199254740992.0);   /* 53 bits in [0, 1) */
}

enum { DAG__FILL_VALUE = 1, DAG__FILL_RAND, DAG__FILL_RANDN };
/* randn on the CPU only (its log and cos are not the same bits everywhere);
   fill and rand are dag_array_kernels.h's kernels, on the CPU or a device */
DAG_TASK(void, dag__array_randn_tile, (void *, t), (int, type), (int64_t, r0), (int64_t, c0), (int64_t, rows),
         (int64_t, cols), (uint64_t, seed)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {   /* Box-Muller from two uniforms of the element */
            double u1 = 1.0 - dag__uniform(seed, r0 + i, c0 + j, 0), u2 = dag__uniform(seed, r0 + i, c0 + j, 1);
            dag__elem_put((dag_elem)type, (char *)t + (size_t)(i + j * rows) * elem,
                          sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        }
}

/* rand of an integer type: its bits straight from the generator (a uniform
   in [0, 1) converted to an integer would be 0 everywhere), on the CPU like
   randn so the kernels stay one per element type */
DAG_TASK(void, dag__array_randi_tile, (void *, t), (int, type), (int64_t, r0), (int64_t, c0), (int64_t, rows),
         (int64_t, cols), (uint64_t, seed)) {
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            uint64_t h = dag__bits(seed, r0 + i, c0 + j, 0);
            if (type == DAG_I32) ((int32_t *)t)[i + j * rows] = (int32_t)(h >> 33);   /* [0, 2^31) */
            else ((int64_t *)t)[i + j * rows] = (int64_t)(h >> 1);                    /* [0, 2^63) */
        }
}

static void dag__tile_fill(const dag_options *o, dag_elem type, int how, double value, uint64_t seed, int64_t r0,
                                  int64_t c0, int64_t rows, int64_t cols, dag_data t) {
#define DAG__FILL_SPAWN(SUFFIX)                                                                                       \
    dag_spawn_with(DAG__NAMED(o, "fill"), DAG_LAUNCH(dag__array_fill_##SUFFIX, rows * cols), Val(how), Val(value), Val((unsigned long)seed), \
                   Val((long)r0), Val((long)c0), Val((long)rows), Val((long)rows), Out(t))
    switch (type) {
    case DAG_F64: DAG__FILL_SPAWN(f64); break;
    case DAG_F32: DAG__FILL_SPAWN(f32); break;
    case DAG_I32: DAG__FILL_SPAWN(i32); break;
    default: DAG__FILL_SPAWN(i64); break;
    }
#undef DAG__FILL_SPAWN
}

static dag_array *dag__array_filled(const char *who, dag_elem type, int64_t rows, int64_t cols, dag_blocks b, int how,
                                    double value, uint64_t seed) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return NULL;
    dag_array *a = dag__array_new(type, rows, cols, b, NULL, 0, false);
    if (!a) return NULL;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c;
                dag_array_tile_size(a, i, j, &r, &c);
                if (how == DAG__FILL_RANDN)
                    dag_spawn_with(DAG__NAMED(&where.cpu, "randn"), dag__array_randn_tile, Out(a->handle[i + j * a->mt]), Val((int)type),
                                   Val(i * a->brows), Val(j * a->bcols), Val(r), Val(c), Val(seed));
                else if (how == DAG__FILL_RAND && (type == DAG_I32 || type == DAG_I64))
                    dag_spawn_with(DAG__NAMED(&where.cpu, "rand"), dag__array_randi_tile, Out(a->handle[i + j * a->mt]), Val((int)type),
                                   Val(i * a->brows), Val(j * a->bcols), Val(r), Val(c), Val(seed));
                else
                    dag__tile_fill(dag__tile_where(&where, i, j), type, how, value, seed, i * a->brows, j * a->bcols, r, c,
                                   a->handle[i + j * a->mt]);
            }
    }
    if (dag_last_region_result() != DAG_OK) {
        dag_array_free(a);
        return NULL;
    }
    return a;
}

dag_array *dag_array_zeros(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_filled("dag_array_zeros", type, rows, cols, b, DAG__FILL_VALUE, 0.0, 0);
}
dag_array *dag_array_ones(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_filled("dag_array_ones", type, rows, cols, b, DAG__FILL_VALUE, 1.0, 0);
}
dag_array *dag_array_fill(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, double value) {
    return dag__array_filled("dag_array_fill", type, rows, cols, b, DAG__FILL_VALUE, value, 0);
}
dag_array *dag_array_rand(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, uint64_t seed) {
    return dag__array_filled("dag_array_rand", type, rows, cols, b, DAG__FILL_RAND, 0.0, seed);
}
dag_array *dag_array_randn(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, uint64_t seed) {
    return dag__array_filled("dag_array_randn", type, rows, cols, b, DAG__FILL_RANDN, 0.0, seed);
}

/* >>host copies: a tile to or from a host matrix (to_tile: into the tile) */
DAG_TASK(void, dag__array_copy_tile, (void *, t), (int64_t, tld), (void *, host), (int64_t, rows), (int64_t, cols),
         (int64_t, ld), (int, row_major), (int, elem), (int, to_tile)) {
    if (!host) {   /* over ranks: this rank's matrix is missing, and the others go on (see below) */
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_array: no host memory on rank %d", dag_rank());
        return;
    }
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            char *h = (char *)host + (size_t)(row_major ? i * ld + j : i + j * ld) * (size_t)elem;
            char *x = (char *)t + (size_t)(i + j * tld) * (size_t)elem;
            if (to_tile) memcpy(x, h, (size_t)elem);
            else memcpy(h, x, (size_t)elem);
        }
}

/* Every rank's host matrix (rank -1), or rank's alone: its tasks run there.
   Over ranks the call is collective: an error only this rank can see (no
   host matrix) must not keep it out of the spawns the others make, or
   their messages would wait for it forever; its tasks fail instead. */
static dag_result dag__array_host_copy(dag_array *a, void *host, dag_layout layout, int64_t ld, int to_tile, int rank,
                                       const char *who) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return where.status;
    bool here = rank < 0 || rank == dag_rank();   /* this rank's host matrix takes part */
    if (!a || (here && !host && !dag__ranks()) || (layout != DAG_COL_MAJOR && layout != DAG_ROW_MAJOR) ||
        ld < (layout == DAG_COL_MAJOR ? a->rows : a->cols) || rank >= dag_num_ranks()) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s (layout %d, ld %lld, rank %d of %d)", who,
                !a ? "no array" : here && !host ? "no host memory" : rank >= dag_num_ranks() ? "no such rank"
                : "a bad layout or a leading dimension under the array's", (int)layout, (long long)ld, rank,
                dag_num_ranks());
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (rank >= 0) where.cpu.scope.rank = DAG_RANK(rank);
    int row_major = layout == DAG_ROW_MAJOR;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c, r0 = i * a->brows, c0 = j * a->bcols;
                dag_array_tile_size(a, i, j, &r, &c);
                void *h = here && host ? (char *)host + (size_t)(row_major ? r0 * ld + c0 : r0 + c0 * ld) * a->elem : NULL;
                dag_arg tile = to_tile ? Out(a->handle[i + j * a->mt]) : In(a->handle[i + j * a->mt]);
                dag_spawn_with(DAG__NAMED(&where.cpu, "copy"), dag__array_copy_tile, tile, Val(dag__ld(a, i)), Val(h), Val(r), Val(c), Val(ld),
                               Val(row_major), Val((int)a->elem), Val(to_tile));
            }
    }
    return dag_last_region_result();
}

static dag_array *dag__array_from_host(int rank, dag_elem type, int64_t rows, int64_t cols, dag_blocks b,
                                       const void *data, dag_layout layout, int64_t ld, const char *who) {
    dag_array *a = dag__array_new(type, rows, cols, b, NULL, 0, false);
    if (a && dag__array_host_copy(a, (void *)(uintptr_t)data, layout, ld, 1, rank, who) != DAG_OK) {
        dag_array_free(a);
        return NULL;
    }
    return a;
}
dag_array *dag_array_from_host(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, const void *data,
                               dag_layout layout, int64_t ld) {
    return dag__array_from_host(-1, type, rows, cols, b, data, layout, ld, "dag_array_from_host");
}
dag_array *dag_array_from_host_on(int rank, dag_elem type, int64_t rows, int64_t cols, dag_blocks b,
                                  const void *data, dag_layout layout, int64_t ld) {
    if (rank < 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_from_host_on: rank %d", rank);
        return NULL;
    }
    return dag__array_from_host(rank, type, rows, cols, b, data, layout, ld, "dag_array_from_host_on");
}
dag_result dag_array_collect(dag_array *a, void *out, dag_layout layout, int64_t ld) {
    return dag__array_host_copy(a, out, layout, ld, 0, -1, "dag_array_collect");
}
dag_result dag_array_collect_on(int rank, dag_array *a, void *out, dag_layout layout, int64_t ld) {
    if (rank < 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_collect_on: rank %d", rank);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    return dag__array_host_copy(a, out, layout, ld, 0, rank, "dag_array_collect_on");
}
dag_array *dag_array_wrap(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, void *data, int64_t ld) {
    if (!data || ld < rows) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_wrap: %s (%lld x %lld, ld %lld)",
                !data ? "no matrix" : "the leading dimension is under the row count", (long long)rows, (long long)cols,
                (long long)ld);
        return NULL;
    }
    return dag__array_new(type, rows, cols, b, data, ld, false);
}

/* >>element-wise: dag_array_kernels.h's kernels, one per tile, on the CPU or the tile's device */
enum { DAG__EW_ADD = 1, DAG__EW_SUB, DAG__EW_MUL, DAG__EW_AXPY, DAG__EW_SCALE, DAG__EW_SET, DAG__EW_COPY };

static bool dag__array_same(const dag_array *a, const dag_array *b, const char *op) {
    if (a && b && a->type == b->type && a->rows == b->rows && a->cols == b->cols && a->brows == b->brows &&
        a->bcols == b->bcols && a->p == b->p && a->q == b->q)
        return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: the arrays need one element type, shape and tiling (and one grid "
            "of ranks)", op);
    return false;
}


/* One tile's element-wise kernel: z = x op z, or z = op(z) with no x (the
   tiles rows x cols; Ld gives the kernel their leading dimensions). */
static void dag__tile_ew(const dag_options *o, dag_elem type, int op, double alpha, int64_t rows, int64_t cols,
                         dag_data x, dag_data z) {
    int64_t n = rows * cols;
#define DAG__EW_SPAWN(SUFFIX)                                                                                         \
    (x.id ? dag_spawn_with(DAG__NAMED(o, "map"), DAG_LAUNCH(dag__array_ew2_##SUFFIX, n), Val(op), Val(alpha), Val((long)rows), In(x),    \
                           Ld(x), InOut(z), Ld(z))                                                                    \
          : dag_spawn_with(DAG__NAMED(o, "map"), DAG_LAUNCH(dag__array_ew1_##SUFFIX, n), Val(op), Val(alpha), Val((long)rows), InOut(z), \
                           Ld(z)))
    switch (type) {
    case DAG_F64: DAG__EW_SPAWN(f64); break;
    case DAG_F32: DAG__EW_SPAWN(f32); break;
    case DAG_I32: DAG__EW_SPAWN(i32); break;
    default: DAG__EW_SPAWN(i64); break;
    }
#undef DAG__EW_SPAWN
}

/* c = a op b for each tile; b is c's old value (copied in when c is a third array) */
static dag_result dag__array_elementwise(int op, const char *name, double alpha, dag_array *a, dag_array *b, dag_array *c) {
    dag__array_where where = dag__array_where_now(name);
    if (where.status) return where.status;
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
    dag_data none = { 0 };
    DAG_DATADEPS {
        for (int64_t t = 0; t < c->mt * c->nt; t++) {
            int64_t r, cl, i = t % c->mt;
            dag_array_tile_size(c, i, t / c->mt, &r, &cl);
            const dag_options *o = dag__tile_where(&where, i, t / c->mt);
            if (b && b != c) dag__tile_ew(o, c->type, DAG__EW_COPY, 0, r, cl, b->handle[t], c->handle[t]);
            if (op == DAG__EW_SUB && swapped) {   /* c = c - b: c = -(b - c) */
                dag__tile_ew(o, c->type, DAG__EW_SUB, 0, r, cl, a->handle[t], c->handle[t]);
                dag__tile_ew(o, c->type, DAG__EW_SCALE, -1.0, r, cl, none, c->handle[t]);
            } else {
                dag__tile_ew(o, c->type, op, alpha, r, cl, a ? a->handle[t] : none, c->handle[t]);
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
    dag__array_where where = dag__array_where_now("dag_array_map");
    if (where.status) return where.status;
    DAG_DATADEPS {
        for (int64_t t = 0; t < out->mt * out->nt; t++) {
            int64_t r, c, i = t % out->mt, in_ld = dag__ld(in, i), out_ld = dag__ld(out, i);
            dag_array_tile_size(out, i, t / out->mt, &r, &c);
            const dag_options *o = dag__tile_where(&where, i, t / out->mt);
            dag_access out_mode = in == out ? DAG_ACCESS_INOUT : DAG_ACCESS_OUT;   /* in place: one tile read and written */
            if (in_ld == r && out_ld == r) {   /* contiguous tiles: one launch over the tile */
                dag_arg args[3] = { DAG_VAL((size_t)(r * c)), In(in->handle[t]), dag_arg_data(out_mode, out->handle[t]) };
                dag_spawn_desc(kernel, args, 3, o);
                continue;
            }
            /* a view of a wrapped matrix: the kernel sees contiguous elements, so one launch per column, of
               plain spans, which every rank would run on its own matrix: over ranks, on the tile's owner */
            dag_options owner = *o;
            if (dag__ranks()) owner.scope.rank = DAG_RANK(dag__tile_rank(out, i, t / out->mt));
            for (int64_t col = 0; col < c; col++) {
                dag_arg args[3] = { DAG_VAL((size_t)r),
                                    dag_arg_span(DAG_ACCESS_IN, (char *)in->tile[t] + (size_t)(col * in_ld) * in->elem,
                                                 (size_t)r, in->elem),
                                    dag_arg_span(out_mode, (char *)out->tile[t] + (size_t)(col * out_ld) * out->elem,
                                                 (size_t)r, out->elem) };
                dag_spawn_desc(kernel, args, 3, &owner);
            }
        }
    }
    return dag_last_region_result();
}

/* >>reductions: each tile's part, then pairs combined by tasks */
enum { DAG__RED_SUM = 1, DAG__RED_MIN, DAG__RED_MAX, DAG__RED_DOT, DAG__RED_SQUARES };
/* A tile's DAG__PARTS parts (made by dag_array_kernels.h's kernels, on the
   CPU or a device) reduced into the tree's leaf. */
#define DAG__PARTS 64
DAG_TASK(double, dag__parts_reduce, (int, op), (const double *, part)) {
    double s = part[0];
    for (int k = 1; k < DAG__PARTS; k++)
        s = op == DAG__RED_MIN ? (part[k] < s ? part[k] : s) : op == DAG__RED_MAX ? (part[k] > s ? part[k] : s) : s + part[k];
    return s;
}
DAG_TASK(double, dag__combine, (int, op), (double, x), (double, y)) {
    return op == DAG__RED_MIN ? (x < y ? x : y) : op == DAG__RED_MAX ? (x > y ? x : y) : x + y;
}

static void dag__tile_reduce(const dag_options *o, dag_elem type, int op, int64_t rows, int64_t cols, dag_data x,
                             dag_data y, dag_data parts) {
    long n = (long)(rows * cols);
#define DAG__RED_SPAWN(SUFFIX)                                                                                        \
    (y.id ? dag_spawn_with(DAG__NAMED(o, "reduce"), DAG_LAUNCH(dag__array_red2_##SUFFIX, DAG__PARTS), Val(n), Val((long)rows), In(x),       \
                           Ld(x), In(y), Ld(y), Out(parts))                                                           \
          : dag_spawn_with(DAG__NAMED(o, "reduce"), DAG_LAUNCH(dag__array_red1_##SUFFIX, DAG__PARTS), Val(op), Val(n), Val((long)rows),     \
                           In(x), Ld(x), Out(parts)))
    switch (type) {
    case DAG_F64: DAG__RED_SPAWN(f64); break;
    case DAG_F32: DAG__RED_SPAWN(f32); break;
    case DAG_I32: DAG__RED_SPAWN(i32); break;
    default: DAG__RED_SPAWN(i64); break;
    }
#undef DAG__RED_SPAWN
}

static dag_result dag__array_reduce(int op, const char *name, dag_array *a, dag_array *b, double *out) {
    dag__array_where where = dag__array_where_now(name);
    if (where.status) return where.status;
    if (!out || !a || (b && !dag__array_same(a, b, name))) {
        if (!out || !a) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name, !a ? "the array" : "out");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t tiles = a->mt * a->nt;
    dag_task *part = (dag_task *)DAG_MALLOC(sizeof *part * (size_t)tiles);
    /* each tile's parts: a registered buffer of DAG__PARTS doubles */
    double *parts = (double *)DAG_MALLOC(sizeof(double) * DAG__PARTS * (size_t)tiles);
    dag_data *parts_h = (dag_data *)dag__array_zalloc((size_t)tiles, sizeof *parts_h);
    if (!part || !parts || !parts_h) {
        DAG_FREE(part), DAG_FREE(parts), DAG_FREE(parts_h);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    int combine = op == DAG__RED_DOT || op == DAG__RED_SQUARES ? DAG__RED_SUM : op;
    dag_result r = DAG_OK;
    DAG_DATADEPS {
        for (int64_t t = 0; t < tiles; t++) {
            int64_t rows, cols, i = t % a->mt;
            dag_array_tile_size(a, i, t / a->mt, &rows, &cols);
            dag_data none = { 0 };
            /* over ranks the parts live with the tile (where its kernel runs) and go to every rank, which
               reduces them all: the result on every rank, as the plain program has it */
            parts_h[t] = dag__ranks() ? dag_data_register_on(dag__tile_rank(a, i, t / a->mt), parts + t * DAG__PARTS,
                                                             DAG__PARTS, sizeof(double))
                                      : dag_data_register(parts + t * DAG__PARTS, DAG__PARTS, sizeof(double));
            dag__tile_reduce(dag__tile_where(&where, i, t / a->mt), a->type, op, rows, cols, a->handle[t],
                             b ? b->handle[t] : none, parts_h[t]);
            part[t] = dag_spawn_with(DAG__NAMED(&where.cpu, "reduce"), dag__parts_reduce, Val(combine), In(parts_h[t]));
        }
        for (int64_t step = 1; step < tiles; step *= 2)   /* a tree: log2(tiles) deep */
            for (int64_t t = 0; t + step < tiles; t += 2 * step)
                part[t] = dag_spawn_with(DAG__NAMED(&where.cpu, "reduce"), dag__combine, Val(combine), Fut(part[t]), Fut(part[t + step]));
        r = dag_fetch(part[0], out);
    }
    for (int64_t t = 0; t < tiles; t++)
        if (parts_h[t].id) dag_data_unregister(parts_h[t]);
    DAG_FREE(part), DAG_FREE(parts), DAG_FREE(parts_h);
    dag_result region = dag_last_region_result();   /* over ranks, the same on every rank (a fetch's may not be) */
    if (region != DAG_OK) r = region;
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
static dag_result dag__array_copy(dag_array *src, dag_array *dst, int transpose, const char *name) {
    dag__array_where where = dag__array_where_now(name);
    if (where.status) return where.status;
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
                        /* on the CPU or the destination tile's device */
                        dag_spawn_with(DAG__NAMED(dag__tile_where(&where, di, dj), "copy"), DAG_LAUNCH(dag__array_copy_part, rows * cols),
                                       Val((int)src->elem), In(src->handle[si + sj * src->mt]), Ld(src->handle[si + sj * src->mt]),
                                       Val((long)sr), Val((long)sc), InOut(dst->handle[di + dj * dst->mt]),
                                       Ld(dst->handle[di + dj * dst->mt]), Val((long)(lo_r - dr0)), Val((long)(lo_c - dc0)), Val((long)rows),
                                       Val(transpose));
                    }
            }
    }
    return dag_last_region_result();
}
dag_result dag_array_copy(dag_array *src, dag_array *dst) { return dag__array_copy(src, dst, 0, "dag_array_copy"); }
dag_result dag_array_transpose(dag_array *src, dag_array *dst) {
    return dag__array_copy(src, dst, 1, "dag_array_transpose");
}

/* >>tile kernels: column-major, each for double and float. With
   DAG_ARRAY_CBLAS they are cblas/LAPACKE calls; without, plain loops
   written once for both types (DAG__LA_KERNELS below). */
#if defined(DAG_ARRAY_CBLAS)
#define DAG__CBLAS_T(t) ((t) ? CblasTrans : CblasNoTrans)
#endif

/* The loops (unused ones are the cblas build's). trsv solves op(A) x = b
   for one vector x (stride inc), A n x n triangular: the built-in trsm's
   building block, both sides. */
#define DAG__LA_KERNELS(T, P)                                                                                      \
    DAG__UNUSED static void dag__##P##gemm_loops(int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
                                     int ldb, T beta, T *c, int ldc) {                                             \
        for (int j = 0; j < n; j++) {                                                                               \
            T *cj = c + (size_t)j * ldc;                                                                            \
            for (int i = 0; i < m; i++) cj[i] = beta == 0 ? 0 : beta * cj[i];                                       \
            for (int l = 0; l < k; l++) {                                                                           \
                T blj = alpha * (tb ? b[j + (size_t)l * ldb] : b[l + (size_t)j * ldb]);                             \
                if (ta)                                                                                             \
                    for (int i = 0; i < m; i++) cj[i] += a[l + (size_t)i * lda] * blj;                              \
                else                                                                                                \
                    for (int i = 0; i < m; i++) cj[i] += a[i + (size_t)l * lda] * blj;                              \
            }                                                                                                       \
        }                                                                                                           \
    }                                                                                                               \
    DAG__UNUSED static void dag__##P##trsv(int upper, int trans, int unit, int n, const T *a, int lda, T *x, size_t inc) {      \
        int lower = upper == trans; /* op(A) is lower triangular: forward substitution */                           \
        for (int s = 0; s < n; s++) {                                                                               \
            int i = lower ? s : n - 1 - s;                                                                          \
            T v = x[(size_t)i * inc];                                                                               \
            for (int t = 0; t < s; t++) {                                                                           \
                int p = lower ? t : n - 1 - t;                                                                      \
                T aip = trans ? a[p + (size_t)i * lda] : a[i + (size_t)p * lda];                                    \
                v -= aip * x[(size_t)p * inc];                                                                      \
            }                                                                                                       \
            x[(size_t)i * inc] = unit ? v : v / a[i + (size_t)i * lda];                                             \
        }                                                                                                           \
    }                                                                                                               \
    /* b = alpha op(a)^-1 b (left) or alpha b op(a)^-1 (right); b m x n */                                          \
    DAG__UNUSED static void dag__##P##trsm_loops(int right, int upper, int trans, int unit, int m, int n, T alpha, const T *a,  \
                                     int lda, T *b, int ldb) {                                                      \
        for (int j = 0; j < n; j++)                                                                                 \
            for (int r = 0; r < m; r++) b[r + (size_t)j * ldb] *= alpha;                                            \
        if (!right)                                                                                                 \
            for (int j = 0; j < n; j++) dag__##P##trsv(upper, trans, unit, m, a, lda, b + (size_t)j * ldb, 1);      \
        else /* x op(a) = b: op(a)^T x^T = b^T, a row at a time */                                                  \
            for (int r = 0; r < m; r++) dag__##P##trsv(upper, !trans, unit, n, a, lda, b + r, (size_t)ldb);         \
    }                                                                                                               \
    /* lower Cholesky in place: 0, or the 1-based column where it stops being positive definite */                 \
    DAG__UNUSED static int dag__##P##potrf_loops(int n, T *a, int lda) {                                                        \
        for (int j = 0; j < n; j++) {                                                                               \
            T d = a[j + (size_t)j * lda];                                                                           \
            for (int p = 0; p < j; p++) d -= a[j + (size_t)p * lda] * a[j + (size_t)p * lda];                       \
            if (!(d > 0)) return j + 1; /* also NaN */                                                              \
            d = (T)sqrt((double)d);                                                                                 \
            a[j + (size_t)j * lda] = d;                                                                             \
            for (int i = j + 1; i < n; i++) {                                                                       \
                T s = a[i + (size_t)j * lda];                                                                       \
                for (int p = 0; p < j; p++) s -= a[i + (size_t)p * lda] * a[j + (size_t)p * lda];                   \
                a[i + (size_t)j * lda] = s / d;                                                                     \
            }                                                                                                       \
        }                                                                                                           \
        return 0;                                                                                                   \
    }                                                                                                               \
    /* unpivoted LU in place (L unit lower, U upper): 0, or the 1-based column of a zero pivot */                   \
    DAG__UNUSED static int dag__##P##getrf_loops(int n, T *a, int lda) {                                                        \
        for (int k = 0; k < n; k++) {                                                                               \
            T d = a[k + (size_t)k * lda];                                                                           \
            if (d == 0 || d != d) return k + 1;                                                                     \
            for (int i = k + 1; i < n; i++) a[i + (size_t)k * lda] /= d;                                            \
            for (int j = k + 1; j < n; j++)                                                                         \
                for (int i = k + 1; i < n; i++) a[i + (size_t)j * lda] -= a[i + (size_t)k * lda] * a[k + (size_t)j * lda]; \
        }                                                                                                           \
        return 0;                                                                                                   \
    }
DAG__LA_KERNELS(double, d)
DAG__LA_KERNELS(float, s)
#undef DAG__LA_KERNELS

/* A packed copy (ld = rows) of a rows x cols block, for the built-in loops that need one; NULL after
   dag_fail when there is no memory. */
DAG__UNUSED static void *dag__packed_copy(int type, int rows, int cols, const void *src, int ld, const char *who) {
    size_t bytes = type == DAG_F64 ? 8 : 4;
    char *p = (char *)DAG_MALLOC(bytes * (size_t)rows * (size_t)cols);
    if (!p) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "%s: no memory for a %d x %d tile", who, rows, cols);
        return NULL;
    }
    for (int j = 0; j < cols; j++)
        memcpy(p + bytes * (size_t)j * (size_t)rows, (const char *)src + bytes * (size_t)j * (size_t)ld, bytes * (size_t)rows);
    return p;
}

/* One entry point per kernel, type-dispatched: F64 or F32. */
static void dag__gemm(int type, int ta, int tb, int m, int n, int k, double alpha, const void *a, int lda,
                      const void *b, int ldb, double beta, void *c, int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        cblas_dgemm(CblasColMajor, DAG__CBLAS_T(ta), DAG__CBLAS_T(tb), m, n, k, alpha, (const double *)a, lda,
                    (const double *)b, ldb, beta, (double *)c, ldc);
    else
        cblas_sgemm(CblasColMajor, DAG__CBLAS_T(ta), DAG__CBLAS_T(tb), m, n, k, (float)alpha, (const float *)a, lda,
                    (const float *)b, ldb, (float)beta, (float *)c, ldc);
#else
    if (type == DAG_F64)
        dag__dgemm_loops(ta, tb, m, n, k, alpha, (const double *)a, lda, (const double *)b, ldb, beta, (double *)c, ldc);
    else
        dag__sgemm_loops(ta, tb, m, n, k, (float)alpha, (const float *)a, lda, (const float *)b, ldb, (float)beta,
                         (float *)c, ldc);
#endif
}
/* c (lower) = alpha op(a) op(a)^T + beta c; c n x n, op(a) n x k */
static void dag__syrk(int type, int trans, int n, int k, double alpha, const void *a, int lda, double beta, void *c,
                      int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        cblas_dsyrk(CblasColMajor, CblasLower, DAG__CBLAS_T(trans), n, k, alpha, (const double *)a, lda, beta,
                    (double *)c, ldc);
    else
        cblas_ssyrk(CblasColMajor, CblasLower, DAG__CBLAS_T(trans), n, k, (float)alpha, (const float *)a, lda,
                    (float)beta, (float *)c, ldc);
#else
    /* through gemm on the whole tile, keeping the upper triangle as it was */
    size_t bytes = type == DAG_F64 ? 8 : 4;
    void *keep = dag__packed_copy(type, n, n, c, ldc, "syrk");
    if (!keep) return;
    dag__gemm(type, trans, !trans, n, n, k, alpha, a, lda, a, lda, beta, c, ldc);
    for (int j = 1; j < n; j++)   /* rows above the diagonal of column j */
        memcpy((char *)c + bytes * (size_t)j * ldc, (char *)keep + bytes * (size_t)j * n, bytes * (size_t)j);
    DAG_FREE(keep);
#endif
}
static void dag__trsm(int type, int right, int upper, int trans, int unit, int m, int n, double alpha, const void *a,
                      int lda, void *b, int ldb) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        cblas_dtrsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_T(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, alpha, (const double *)a, lda, (double *)b, ldb);
    else
        cblas_strsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_T(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, (float)alpha, (const float *)a, lda, (float *)b, ldb);
#else
    if (type == DAG_F64) dag__dtrsm_loops(right, upper, trans, unit, m, n, alpha, (const double *)a, lda, (double *)b, ldb);
    else dag__strsm_loops(right, upper, trans, unit, m, n, (float)alpha, (const float *)a, lda, (float *)b, ldb);
#endif
}
/* b = b m^T with m lower (n x n): with m = L^-1, the panel solve of the Cholesky */
static void dag__trmm_rlt(int type, int rows, int n, const void *m, int ldm, void *b, int ldb) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, n, 1.0, (const double *)m,
                    ldm, (double *)b, ldb);
    else
        cblas_strmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, n, 1.0f, (const float *)m,
                    ldm, (float *)b, ldb);
#else
    /* b m^T = b (m^-1)^-T: the loops solve with m^-1's inverse, which is L itself; simpler to multiply */
    void *tmp = dag__packed_copy(type, rows, n, b, ldb, "trmm");
    if (!tmp) return;
    dag__gemm(type, 0, 1, rows, n, n, 1.0, tmp, rows, m, ldm, 0.0, b, ldb);   /* m's upper triangle is zero */
    DAG_FREE(tmp);
#endif
}
static int dag__potrf(int type, int n, void *a, int lda) {
#if defined(DAG_ARRAY_CBLAS)
    lapack_int info = type == DAG_F64 ? LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, (double *)a, lda)
                                      : LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, (float *)a, lda);
    return info > 0 ? (int)info : 0;
#else
    return type == DAG_F64 ? dag__dpotrf_loops(n, (double *)a, lda) : dag__spotrf_loops(n, (float *)a, lda);
#endif
}
/* the inverse of a lower triangle (n x n, upper part zero) in place */
static void dag__trtri(int type, int n, void *a, int lda) {
#if defined(DAG_ARRAY_CBLAS)
    /* By halves, [A 0; B C]^-1 = [A^-1 0; -C^-1 B A^-1 C^-1], so most of the work is two dtrmm: faster
       than OpenBLAS's dtrtri (bench/README.md), and it runs on the diagonal, the critical path. */
    if (n <= 64) {
        if (type == DAG_F64) LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (double *)a, lda);
        else LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (float *)a, lda);
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    size_t bytes = type == DAG_F64 ? 8 : 4;
    char *top = (char *)a, *below = top + bytes * (size_t)n1, *corner = below + bytes * (size_t)n1 * (size_t)lda;
    dag__trtri(type, n1, top, lda);
    dag__trtri(type, n2, corner, lda);
    if (type == DAG_F64) {
        cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, (double *)top, lda,
                    (double *)below, lda);
        cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, (double *)corner,
                    lda, (double *)below, lda);
    } else {
        cblas_strmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0f, (float *)top, lda,
                    (float *)below, lda);
        cblas_strmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0f, (float *)corner,
                    lda, (float *)below, lda);
    }
#else
    /* solve L X = I column by column: X = L^-1, written over a through a copy of L */
    void *l = dag__packed_copy(type, n, n, a, lda, "trtri");
    if (!l) return;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            if (type == DAG_F64) ((double *)a)[i + (size_t)j * lda] = i == j;
            else ((float *)a)[i + (size_t)j * lda] = (float)(i == j);
        }
    dag__trsm(type, 0, 0, 0, 0, n, n, 1.0, l, n, a, lda);
    DAG_FREE(l);
#endif
}
static int dag__getrf(int type, int n, void *a, int lda) {   /* unpivoted: LAPACK has none, the loops serve both */
    return type == DAG_F64 ? dag__dgetrf_loops(n, (double *)a, lda) : dag__sgetrf_loops(n, (float *)a, lda);
}


/* >>tile tasks: each a call of the kernels above on whole tiles */
DAG_TASK(void, dag__tile_gemm, (int, type), (int, ta), (int, tb), (int, m), (int, n), (int, k), (double, alpha),
         (const void *, a), (int, lda), (const void *, b), (int, ldb), (double, beta), (void *, c), (int, ldc)) {
    dag__gemm(type, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
DAG_TASK(void, dag__tile_syrk, (int, type), (int, trans), (int, n), (int, k), (double, alpha), (const void *, a),
         (int, lda), (double, beta), (void *, c), (int, ldc)) {
    dag__syrk(type, trans, n, k, alpha, a, lda, beta, c, ldc);
}
DAG_TASK(void, dag__tile_trsm, (int, type), (int, right), (int, upper), (int, trans), (int, unit), (int, m), (int, n),
         (double, alpha), (const void *, a), (int, lda), (void *, b), (int, ldb)) {
    dag__trsm(type, right, upper, trans, unit, m, n, alpha, a, lda, b, ldb);
}
/* the Cholesky's panel solve b = b L^-T, as b (L^-1)^T with the inverse the diagonal task made */
DAG_TASK(void, dag__tile_panel, (int, type), (int, m), (int, n), (const void *, linv), (void *, b), (int, ldb)) {
    dag__trmm_rlt(type, m, n, linv, n, b, ldb);
}
/* The diagonal tile: L, and L^-1 for the panel below it (one more column of the tile's size; the last
   diagonal tile has no panel, and its task ends the critical path, so it skips the inverse). */
DAG_TASK(void, dag__tile_potrf, (int, type), (int, n), (void *, a), (int, lda), (void *, linv), (int64_t, tile),
         (int64_t, col0), (int, last)) {
    int bad = dag__potrf(type, n, a, lda);
    if (bad) {
        dag_fail(DAG_ERR_NOT_POSITIVE_DEFINITE, "not positive definite: tile (%lld, %lld), column %lld (global)",
                 (long long)tile, (long long)tile, (long long)(col0 + bad - 1));
        return;
    }
    if (last) return;
    size_t bytes = type == DAG_F64 ? 8 : 4;
    for (size_t j = 0; j < (size_t)n; j++) {   /* column j: zeros above the diagonal, L below */
        memset((char *)linv + bytes * j * (size_t)n, 0, bytes * j);
        memcpy((char *)linv + bytes * (j * (size_t)n + j), (const char *)a + bytes * (j * (size_t)lda + j), bytes * ((size_t)n - j));
    }
    dag__trtri(type, n, linv, n);
}
DAG_TASK(void, dag__tile_getrf, (int, type), (int, n), (void *, a), (int, lda), (int64_t, tile), (int64_t, col0)) {
    int bad = dag__getrf(type, n, a, lda);
    if (bad)
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "zero pivot in the LU without pivoting: tile (%lld, %lld), column %lld (global)",
                 (long long)tile, (long long)tile, (long long)(col0 + bad - 1));
}

static bool dag__array_la(const dag_array *a, const char *op, const char *name) {
    if (a && (a->type == DAG_F64 || a->type == DAG_F32)) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is %s; linear algebra takes DAG_F64 or DAG_F32", op, name,
            a ? "an integer array" : "NULL");
    return false;
}
#define DAG__H(x, i, j) ((x)->handle[(i) + (j) * (x)->mt])
#define DAG__R(x, i) ((int)dag__tile_rows((x), (i)))
#define DAG__C(x, j) ((int)dag__tile_cols((x), (j)))
#define DAG__LD(x, i) ((int)dag__ld((x), (i)))   /* tile row i's leading dimension */


/* One tile operation, on a device (dev: o names it) or on the CPU: the
   array operations spawn through these. */
/* Where a tile's task goes: its options, and whether they name a device. */
typedef struct dag__tile_place { const dag_options *o; bool dev; } dag__tile_place;
static dag__tile_place dag__at(dag__array_where *where, int64_t i, int64_t j) {
    dag__tile_place p = { dag__tile_where(where, i, j), where->devices > 0 };
    return p;
}

static void dag__spawn_gemm(dag__tile_place at, dag_elem type, int ta, int tb, int m, int n, int k,
                            double alpha, dag_data a, dag_data b, double beta, dag_data c) {
    if (at.dev && type == DAG_F64)
        dag_spawn_with(DAG__NAMED(at.o, "gemm"), DAG_LAUNCH(dag_dgemm, m * n), Val(ta), Val(tb), Val(m), Val(n), Val(k), Val(alpha), In(a),
                       Ld(a), In(b), Ld(b), Val(beta), InOut(c), Ld(c));
    else if (at.dev)
        dag_spawn_with(DAG__NAMED(at.o, "gemm"), DAG_LAUNCH(dag_sgemm, m * n), Val(ta), Val(tb), Val(m), Val(n), Val(k), Val((float)alpha),
                       In(a), Ld(a), In(b), Ld(b), Val((float)beta), InOut(c), Ld(c));
    else
        dag_spawn_with(DAG__NAMED(at.o, "gemm"), dag__tile_gemm, Val((int)type), Val(ta), Val(tb), Val(m), Val(n), Val(k), Val(alpha), In(a),
                       Ld(a), In(b), Ld(b), Val(beta), InOut(c), Ld(c));
}
static void dag__spawn_trsm(dag__tile_place at, dag_elem type, int right, int upper, int trans, int unit,
                            int m, int n, double alpha, dag_data a, dag_data b) {
    if (at.dev && type == DAG_F64)
        dag_spawn_with(DAG__NAMED(at.o, "trsm"), DAG_LAUNCH(dag__array_dtrsm, right ? m : n), Val(right), Val(upper), Val(trans), Val(unit),
                       Val(m), Val(n), Val(alpha), In(a), Ld(a), InOut(b), Ld(b));
    else if (at.dev)
        dag_spawn_with(DAG__NAMED(at.o, "trsm"), DAG_LAUNCH(dag__array_strsm, right ? m : n), Val(right), Val(upper), Val(trans), Val(unit),
                       Val(m), Val(n), Val((float)alpha), In(a), Ld(a), InOut(b), Ld(b));
    else
        dag_spawn_with(DAG__NAMED(at.o, "trsm"), dag__tile_trsm, Val((int)type), Val(right), Val(upper), Val(trans), Val(unit), Val(m), Val(n),
                       Val(alpha), In(a), Ld(a), InOut(b), Ld(b));
}
static void dag__spawn_syrk(dag__tile_place at, dag_elem type, int trans, int n, int k, double alpha,
                            dag_data a, double beta, dag_data c) {
    if (at.dev && type == DAG_F64)
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), DAG_LAUNCH(dag__array_dsyrk_full, n * n), Val(trans), Val(n), Val(k), Val(alpha), In(a),
                       Ld(a), Val(beta), InOut(c), Ld(c));
    else if (at.dev)
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), DAG_LAUNCH(dag__array_ssyrk_full, n * n), Val(trans), Val(n), Val(k), Val((float)alpha), In(a),
                       Ld(a), Val((float)beta), InOut(c), Ld(c));
    else
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), dag__tile_syrk, Val((int)type), Val(trans), Val(n), Val(k), Val(alpha), In(a), Ld(a),
                       Val(beta), InOut(c), Ld(c));
}

dag_result dag_array_gemm(int ta, int tb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c) {
    dag__array_where where = dag__array_where_now("dag_array_gemm");
    if (where.status) return where.status;
    if (!dag__array_la(a, "dag_array_gemm", "A") || !dag__array_la(b, "dag_array_gemm", "B") ||
        !dag__array_la(c, "dag_array_gemm", "C"))
        return DAG_ERR_INVALID_ARGUMENT;
    /* op(A) is m x k in tiles of (am x ak), op(B) k x n */
    int64_t m = ta ? a->cols : a->rows, ka = ta ? a->rows : a->cols, kb = tb ? b->cols : b->rows, n = tb ? b->rows : b->cols;
    int64_t am = ta ? a->bcols : a->brows, ak = ta ? a->brows : a->bcols, bk = tb ? b->bcols : b->brows,
            bn = tb ? b->brows : b->bcols;
    if (a->type != c->type || b->type != c->type || m != c->rows || n != c->cols || ka != kb || am != c->brows ||
        bn != c->bcols || ak != bk) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array_gemm: op(A) %lld x %lld (tiles %lld x %lld), op(B) %lld x %lld (tiles %lld x %lld), C %lld x "
                "%lld (tiles %lld x %lld) do not conform, or the types differ", (long long)m, (long long)ka, (long long)am,
                (long long)ak, (long long)kb, (long long)n, (long long)bk, (long long)bn, (long long)c->rows,
                (long long)c->cols, (long long)c->brows, (long long)c->bcols);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t kt = (ka + ak - 1) / ak;
    DAG_DATADEPS {
        for (int64_t j = 0; j < c->nt; j++)
            for (int64_t i = 0; i < c->mt; i++)
                for (int64_t l = 0; l < kt; l++) {
                    int64_t ai = ta ? l : i, aj = ta ? i : l, bi = tb ? j : l, bj = tb ? l : j;
                    dag__spawn_gemm(dag__at(&where, i, j), c->type, ta, tb, DAG__R(c, i), DAG__C(c, j),
                                    ta ? DAG__R(a, ai) : DAG__C(a, aj), alpha, DAG__H(a, ai, aj), DAG__H(b, bi, bj),
                                    l == 0 ? beta : 1.0, DAG__H(c, i, j));
                }
    }
    return dag_last_region_result();
}

/* C's lower triangle = alpha op(A) op(A)^T + beta C: syrk on diagonal tiles, gemm below them */
dag_result dag_array_syrk(int trans, double alpha, dag_array *a, double beta, dag_array *c) {
    dag__array_where where = dag__array_where_now("dag_array_syrk");
    if (where.status) return where.status;
    if (!dag__array_la(a, "dag_array_syrk", "A") || !dag__array_la(c, "dag_array_syrk", "C")) return DAG_ERR_INVALID_ARGUMENT;
    int64_t n = trans ? a->cols : a->rows, bn = trans ? a->bcols : a->brows, bk = trans ? a->brows : a->bcols,
            k = trans ? a->rows : a->cols;
    if (a->type != c->type || c->rows != n || c->cols != n || c->brows != bn || c->bcols != bn) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_syrk: C must be %lld x %lld in %lld x %lld tiles, of A's type",
                (long long)n, (long long)n, (long long)bn, (long long)bn);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t kt = (k + bk - 1) / bk;
    DAG_DATADEPS {
        for (int64_t j = 0; j < c->nt; j++)
            for (int64_t i = j; i < c->mt; i++)
                for (int64_t l = 0; l < kt; l++) {
                    int64_t ai = trans ? l : i, aj = trans ? i : l, bi = trans ? l : j, bj = trans ? j : l;
                    int kk = trans ? DAG__R(a, ai) : DAG__C(a, aj);
                    double b = l == 0 ? beta : 1.0;
                    if (i == j)
                        dag__spawn_syrk(dag__at(&where, i, i), c->type, trans, DAG__R(c, i), kk, alpha, DAG__H(a, ai, aj), b,
                                        DAG__H(c, i, i));
                    else
                        dag__spawn_gemm(dag__at(&where, i, j), c->type, trans, !trans, DAG__R(c, i), DAG__C(c, j), kk, alpha,
                                        DAG__H(a, ai, aj), DAG__H(a, bi, bj), b, DAG__H(c, i, j));
                }
    }
    return dag_last_region_result();
}

/* Tile (i, j) of op(A) for a triangular A: which stored tile, and whether it is transposed. */
static dag_data dag__op_tile(const dag_array *a, int trans, int64_t i, int64_t j) {
    return trans ? DAG__H(a, j, i) : DAG__H(a, i, j);
}

/* B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular,
   square in square tiles. Substitution over tile rows (left) or columns
   (right), forwards when op(A) is lower triangular, backwards when upper:
   the solve on the diagonal tile, then the update of the tiles not yet
   solved. */
dag_result dag_array_trsm(int right, int upper, int trans, int unit, double alpha, dag_array *a, dag_array *b) {
    dag__array_where where = dag__array_where_now("dag_array_trsm");
    if (where.status) return where.status;
    if (!dag__array_la(a, "dag_array_trsm", "A") || !dag__array_la(b, "dag_array_trsm", "B")) return DAG_ERR_INVALID_ARGUMENT;
    int64_t need = right ? b->cols : b->rows, bneed = right ? b->bcols : b->brows;
    if (a->type != b->type || a->rows != a->cols || a->brows != a->bcols || a->rows != need || a->brows != bneed) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array_trsm: A must be square in square tiles matching B's %s (%lld in %lld), of B's type",
                right ? "columns" : "rows", (long long)need, (long long)bneed);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int lower = upper == trans;                /* op(A) is lower triangular */
    int forward = right ? !lower : lower;      /* left: forwards when lower; right: backwards when lower */
    int64_t nt = a->nt, other = right ? b->mt : b->nt;
    DAG_DATADEPS {
        for (int64_t s = 0; s < nt; s++) {
            int64_t k = forward ? s : nt - 1 - s;
            for (int64_t o = 0; o < other; o++) {
                int64_t bi = right ? o : k, bj = right ? k : o;
                dag__spawn_trsm(dag__at(&where, bi, bj), b->type, right, upper, trans, unit, DAG__R(b, bi), DAG__C(b, bj),
                                s == 0 ? alpha : 1.0, DAG__H(a, k, k), DAG__H(b, bi, bj));
            }
            /* the tiles still to solve lose what tile k contributes */
            for (int64_t t = s + 1; t < nt; t++) {
                int64_t r = forward ? t : nt - 1 - t;
                for (int64_t o = 0; o < other; o++) {
                    double scale = s == 0 ? alpha : 1.0;   /* B's unsolved tiles get alpha once, with their first update */
                    if (!right)   /* B_r -= op(A)_rk B_k */
                        dag__spawn_gemm(dag__at(&where, r, o), b->type, trans, 0, DAG__R(b, r), DAG__C(b, o), DAG__R(b, k), -1.0,
                                        dag__op_tile(a, trans, r, k), DAG__H(b, k, o), scale, DAG__H(b, r, o));
                    else          /* B_r -= B_k op(A)_kr */
                        dag__spawn_gemm(dag__at(&where, o, r), b->type, 0, trans, DAG__R(b, o), DAG__C(b, r), DAG__C(b, k), -1.0,
                                        DAG__H(b, o, k), dag__op_tile(a, trans, k, r), scale, DAG__H(b, o, r));
                }
            }
        }
    }
    return dag_last_region_result();
}

/* Rows per task, at most, in the panel updates of a wrapped matrix (define it before including to change
   it): one tall dgemm beats many tile-sized ones (bench/README.md has the figures behind the default). The
   chunks shrink when a step would not give every worker four tasks. */
#ifndef DAG_ARRAY_PANEL_ROWS
#define DAG_ARRAY_PANEL_ROWS 4096
#endif
/* Tiles per panel chunk for nt x nt tiles of nb: as tall as DAG_ARRAY_PANEL_ROWS allows, and at most half
   the tiles, since the first chunk of a step's panel holds the next diagonal tile's input and a chunk as
   tall as the whole panel lengthens the critical path; then shrunk while the first step's updates (each column's syrk and its
   ceil((nt - 1 - j) / chunk) chunks) give a worker fewer than four tasks. */
static int64_t dag__panel_chunk(int64_t nt, int64_t nb) {
    int64_t chunk = DAG_ARRAY_PANEL_ROWS / nb < nt / 2 ? DAG_ARRAY_PANEL_ROWS / nb : nt / 2;
    int64_t want = 4 * dag_device_count(DAG_CPU);
    if (chunk < 1) chunk = 1;
    for (; chunk > 1; chunk--) {
        int64_t tasks = 0;
        for (int64_t j = 1; j < nt; j++) tasks += 1 + (nt - 1 - j + chunk - 1) / chunk;
        if (tasks >= want) break;
    }
    return chunk;
}

/* Rows in blocks i to i2 - 1 of a factorisation's block edges. */
static int dag__block_rows(const int64_t *edge, int64_t i, int64_t i2) { return (int)(edge[i2] - edge[i]); }

/* Blocks i to i2 - 1 of block column j as an argument: a span of the
   wrapped matrix (panels), or (i2 = i + 1) the tile's handle. */
static dag_arg dag__blocks(dag_array *a, const int64_t *edge, bool panels, int64_t i, int64_t i2, int64_t j, dag_access mode) {
    if (!panels) return dag_arg_data(mode, DAG__H(a, i, j));
    return dag_arg_tile(mode, (char *)a->tile[0] + (size_t)(edge[i] + edge[j] * a->ld) * a->elem,
                        (size_t)(edge[j + 1] - edge[j]), (size_t)(edge[i2] - edge[i]), (size_t)a->ld, a->elem);
}

/* The options of a factorisation task on tile (i, j) with priority p: the
   tile's device when the array is on devices, else the CPU. */
static dag_options dag__potrf_on(dag__array_where *where, bool dev, int64_t i, int64_t j, int64_t p) {
    return dag__with_priority(dev ? dag__tile_where(where, i, j) : &where->cpu, (int)p);
}

/* Right-looking tile Cholesky. Priorities follow the critical path: a task
   ranks by the column its output feeds, so the updates to column k + 1 (the
   next panel) run before those to later columns, whatever step they come
   from, and the next panel is ready when the cores free (faster than
   ranking by step first: bench/README.md).
   The panel's solves multiply by the diagonal tile's inverse (dtrtri once
   per step, then dtrmm: OpenBLAS's dtrmm runs at twice its dtrsm's rate on
   tiles); the inverse of a diagonal tile of an SPD matrix's factor is as
   well conditioned as the tile. */
dag_result dag_array_potrf(dag_array *a) {
    if (!dag__array_la(a, "dag_array_potrf", "A")) return DAG_ERR_INVALID_ARGUMENT;
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
    dag__array_where where = dag__array_where_now("dag_array_potrf");
    if (where.status) return where.status;
    bool dev = where.devices > 0, f64 = a->type == DAG_F64;   /* the panel and updates on the tiles' devices */
    /* A wrapped matrix on the CPU goes by blocks of columns that are spans of the matrix itself, not its
       tiles' handles (they order against those by overlap like any spans). The solves and updates take a
       chunk of rows of a column at once (dag__panel_chunk): OpenBLAS runs a tall dgemm faster than the
       same work tile by tile. The first tile and the last two are blocks of half a tile: the first and
       last steps are a chain (potrf, its panel, the next syrk) with little beside it, and halving them
       gives the other workers work sooner and shortens the tail. Everywhere else a block is a tile. */
    bool panels = a->ld && !dev && !dag__ranks();   /* over ranks, spans of one rank's matrix would move nothing */
    int64_t *edge = (int64_t *)DAG_MALLOC(sizeof(int64_t) * (size_t)(2 * nt + 1)), s = 0;   /* block k: rows edge[k].. */
    if (!edge) return DAG_ERR_OUT_OF_MEMORY;
    edge[0] = 0;
    for (int64_t t = 0; t < nt; t++) {
        int64_t lo = t * nb, hi = t + 1 < nt ? lo + nb : a->rows;
        if (panels && (t == 0 || t >= nt - 2) && hi - lo >= 2) edge[++s] = lo + (hi - lo) / 2;
        edge[++s] = hi;
    }
    int64_t chunk_rows = panels ? dag__panel_chunk(nt, nb) * nb : nb;
    /* The inverses rotate through three tiles: a step's inverse is dead once its panel is solved, and the
       diagonal task three steps on writes the tile only after those solves have read it (the region orders
       the write after the reads), which the priorities make long done by then. Fresh memory would cost a
       page fault per 4 KiB on the critical path (a millisecond per 512 tile here); three tiles fault once.
       Not filled: each diagonal task writes its inverse whole (a half block's in the tile's first elements). */
    /* Over ranks each diagonal tile's inverse is a tile of its own, on the diagonal tile's rank: the ranks
       that solve its panel receive it once (as they would the diagonal tile), and nothing goes home. */
    int64_t slots = dag__ranks() ? s : s < 3 ? s : 3;
    dag_array *inv = dag__array_new(a->type, slots * nb, nb, dag_blocks_grid(nb, nb, a->p, a->q), NULL, 0, true);
    if (!inv) {
        DAG_FREE(edge);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    int type = (int)a->type;
    int64_t top = 4 * s + 1;   /* above 3k and 2j + i: every priority is over 0, so all go by the heap */
    DAG_DATADEPS {
        for (int64_t k = 0; k < s; k++) {
            int w = dag__block_rows(edge, k, k + 1);
            dag_options o = dag__with_priority(&where.cpu, (int)(top - 3 * k));   /* the diagonal: on the CPU */
            dag_spawn_with(DAG__NAMED(&o, "potrf"), dag__tile_potrf, Val(type), Val(w), dag__blocks(a, edge, panels, k, k + 1, k, DAG_ACCESS_INOUT),
                           Val(DAG__LD(a, k)), Out(inv->handle[k % slots]), Val(edge[k] / nb), Val(edge[k]),
                           Val((int)(k == s - 1)));
            for (int64_t i = k + 1, i2; i < s; i = i2) {
                for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
                o = dag__potrf_on(&where, dev, i, k, top - 2 * k - i);
                if (dev && f64)
                    dag_spawn_with(DAG__NAMED(&o, "trsm"), DAG_LAUNCH(dag__array_dpanel, dag__block_rows(edge, i, i2)), Val(w), In(inv->handle[k % slots]),
                                   InOut(DAG__H(a, i, k)), Ld(DAG__H(a, i, k)));
                else if (dev)
                    dag_spawn_with(DAG__NAMED(&o, "trsm"), DAG_LAUNCH(dag__array_spanel, dag__block_rows(edge, i, i2)), Val(w), In(inv->handle[k % slots]),
                                   InOut(DAG__H(a, i, k)), Ld(DAG__H(a, i, k)));
                else
                    dag_spawn_with(DAG__NAMED(&o, "trsm"), dag__tile_panel, Val(type), Val(dag__block_rows(edge, i, i2)), Val(w), In(inv->handle[k % slots]),
                                   dag__blocks(a, edge, panels, i, i2, k, DAG_ACCESS_INOUT), Val(DAG__LD(a, i)));
            }
            for (int64_t j = k + 1; j < s; j++) {
                int wj = dag__block_rows(edge, j, j + 1);
                o = dag__potrf_on(&where, dev, j, j, top - 3 * j);
                if (dev)
                    dag__spawn_syrk((dag__tile_place){ &o, true }, a->type, 0, wj, w, -1.0, DAG__H(a, j, k), 1.0, DAG__H(a, j, j));
                else
                    dag_spawn_with(DAG__NAMED(&o, "syrk"), dag__tile_syrk, Val(type), Val(0), Val(wj), Val(w), Val(-1.0),
                                   dag__blocks(a, edge, panels, j, j + 1, k, DAG_ACCESS_IN), Val(DAG__LD(a, j)), Val(1.0),
                                   dag__blocks(a, edge, panels, j, j + 1, j, DAG_ACCESS_INOUT), Val(DAG__LD(a, j)));
                for (int64_t i = j + 1, i2; i < s; i = i2) {   /* A_ij -= L_ik L_jk^T, a chunk of rows at once */
                    for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
                    o = dag__potrf_on(&where, dev, i, j, top - 2 * j - i);
                    if (dev)
                        dag__spawn_gemm((dag__tile_place){ &o, true }, a->type, 0, 1, dag__block_rows(edge, i, i2), wj, w, -1.0, DAG__H(a, i, k), DAG__H(a, j, k),
                                        1.0, DAG__H(a, i, j));
                    else
                        dag_spawn_with(DAG__NAMED(&o, "gemm"), dag__tile_gemm, Val(type), Val(0), Val(1), Val(dag__block_rows(edge, i, i2)), Val(wj), Val(w),
                                       Val(-1.0), dag__blocks(a, edge, panels, i, i2, k, DAG_ACCESS_IN), Val(DAG__LD(a, i)),
                                       dag__blocks(a, edge, panels, j, j + 1, k, DAG_ACCESS_IN), Val(DAG__LD(a, j)), Val(1.0),
                                       dag__blocks(a, edge, panels, i, i2, j, DAG_ACCESS_INOUT), Val(DAG__LD(a, i)));
                }
            }
        }
    }
    dag_result r = dag_last_region_result();
    dag_array_free(inv);
    DAG_FREE(edge);
    return r;
}

/* LU without pivoting, in place: L unit lower below the diagonal, U on and
   above it. For diagonally dominant matrices; a zero pivot fails naming
   the tile and column. */
dag_result dag_array_getrf_nopiv(dag_array *a) {
    dag__array_where where = dag__array_where_now("dag_array_getrf_nopiv");
    if (where.status) return where.status;
    if (!dag__array_la(a, "dag_array_getrf_nopiv", "A")) return DAG_ERR_INVALID_ARGUMENT;
    if (a->rows != a->cols || a->brows != a->bcols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_getrf_nopiv: needs a square matrix in square tiles");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t nt = a->nt, nb = a->brows;
    int type = (int)a->type;
    DAG_DATADEPS {
        for (int64_t k = 0; k < nt; k++) {
            dag_spawn_with(DAG__NAMED(&where.cpu, "getrf"), dag__tile_getrf, Val(type), Val(DAG__R(a, k)), InOut(DAG__H(a, k, k)),
                           Val(DAG__LD(a, k)), Val(k), Val(k * nb));
            for (int64_t j = k + 1; j < nt; j++)   /* U's row: L_kk^-1 A_kj */
                dag__spawn_trsm(dag__at(&where, k, j), a->type, 0, 0, 0, 1, DAG__R(a, k), DAG__C(a, j), 1.0, DAG__H(a, k, k),
                                DAG__H(a, k, j));
            for (int64_t i = k + 1; i < nt; i++)   /* L's column: A_ik U_kk^-1 */
                dag__spawn_trsm(dag__at(&where, i, k), a->type, 1, 1, 0, 0, DAG__R(a, i), DAG__C(a, k), 1.0, DAG__H(a, k, k),
                                DAG__H(a, i, k));
            for (int64_t j = k + 1; j < nt; j++)
                for (int64_t i = k + 1; i < nt; i++)
                    dag__spawn_gemm(dag__at(&where, i, j), a->type, 0, 0, DAG__R(a, i), DAG__C(a, j), DAG__C(a, k), -1.0,
                                    DAG__H(a, i, k), DAG__H(a, k, j), 1.0, DAG__H(a, i, j));
        }
    }
    return dag_last_region_result();
}

/* A X = B with A = L L^T from dag_array_potrf: B becomes X. */
dag_result dag_array_potrs(dag_array *l, dag_array *b) {
    dag_result r = dag_array_trsm(0, 0, 0, 0, 1.0, l, b);
    return r != DAG_OK ? r : dag_array_trsm(0, 0, 1, 0, 1.0, l, b);
}
/* A X = B for SPD A: A becomes its factor L, B becomes X. */
dag_result dag_array_posv(dag_array *a, dag_array *b) {
    dag_result r = dag_array_potrf(a);
    return r != DAG_OK ? r : dag_array_potrs(a, b);
}
#undef DAG__H
#undef DAG__R
#undef DAG__C

#endif /* DAG_IMPLEMENTATION */
#endif /* host */
