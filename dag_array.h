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

   Linear algebra (double and float, and complex: DAG_CF64 and DAG_CF32, where
   trans means the conjugate transpose and syrk and potrf are Hermitian,
   herk and A = L L^H; their tasks on the CPU): gemm, syrk, trsm, Cholesky (potrf,
   right-looking, critical-path priorities), LU without pivoting, and the
   SPD solves potrs and posv. A matrix that is not positive
   definite fails with DAG_ERR_NOT_POSITIVE_DEFINITE and a logged message
   naming the tile and the global column. Tiles call cblas and LAPACKE when
   built with -DDAG_ARRAY_CBLAS (link -lopenblas -llapacke; OpenBLAS is told
   to use one thread, process-wide, from the first linear-algebra call on),
   else built-in loops.

   Element-wise operations, map with a DAG_KERNEL, reductions (a tree of
   tasks), copy and transpose between any tilings, for every element type.
   Sort of a vector (an n x 1 array: per tile, then a bitonic network of
   merge-splits) and 2-D stencils with halos, periodic or fixed (Dagger's
   @stencil), on the CPU, a stencil's points also as a DAG_KERNEL.

   Placement follows the scope in force: under a scope that names devices,
   each operation's tile kernels (dag_array_kernels.h, and dag_blas.h's
   gemm, syrk, trsm and potrf: the vendor's BLAS and solver where they
   load) go block-cyclically over them, tile (i, j) on device (i + j) mod
   count, the Cholesky's diagonal tiles too; the LU's diagonal tiles, randn
   and host copies run on the CPU. There an operation returns once its
   tasks are queued, its own tiles left on the devices: dag_synchronize
   waits for them and brings them home. A scope that names only devices none of which is here (a
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

   Parts: >>kernels of the newer operations >>where tiles run >>views >>element values >>host copies
   >>element-wise >>reductions >>copy and transpose between tilings >>tile kernels >>tile tasks
   >>pivoted LU >>more constructors >>vectors >>indexing >>reductions along a dimension >>broadcasting >>tiled QR >>Q of a QR >>CAQR >>SVD >>symmetry
   >>sort >>FFT >>stencil >>matrix power >>statistics
*/
/* one error that names the files to copy, not the compiler's about the first one missing */
#if defined(__has_include)
#if !__has_include("dag.h") || !__has_include("dag_kernels.h") || !__has_include("dag_blas.h") || \
    !__has_include("dag_array_kernels.h")
#error "dag_array.h needs dag.h, dag_kernels.h, dag_blas.h and dag_array_kernels.h beside it (README: Which files to copy)"
#endif
#endif
/* >>kernels of the newer operations (broadcasts, reductions along a
   dimension): written once here, instantiated both in a kernels file's
   builds (below: nvcc, hipcc, clang -x cl) and in the implementation, so
   every device backend carries them beside dag_array_kernels.h's. */
/* A broadcast: item (i, j) of a rows-row block of dst takes element (sr + i rstep, sc + j cstep) of src,
   elem bytes each (a column repeats across with cstep 0, a row down with rstep 0). */
#define DAG__ARRAY_BYTE_KERNELS()                                                                                    \
    DAG_KERNEL(dag__array_bcast_part, ((int, elem), (DAG_GLOBAL const unsigned char *, src), (long, src_ld),          \
                                       (long, sr), (long, sc), (int, rstep), (int, cstep),                            \
                                       (DAG_GLOBAL unsigned char *, dst), (long, dst_ld), (long, rows)),              \
        size_t idx = DAG_INDEX();                                                                                    \
        long i = (long)(idx % (size_t)rows), j = (long)(idx / (size_t)rows);                                         \
        size_t s = (size_t)(sr + i * rstep + (sc + j * cstep) * src_ld) * (size_t)elem;                              \
        size_t d = (size_t)(i + j * dst_ld) * (size_t)elem;                                                           \
        for (int b = 0; b < elem; b++) dst[d + (size_t)b] = src[s + (size_t)b];                                      \
    )
/* Reductions along a dimension, op 1 sum, 2 product, 3 min, 4 max (0 in dimcomb: a copy). dimred: item k
   of a rows x cols tile reduces column k (dim 1) or row k (dim 2) into part[k], in A: double for the
   floating types; for the integers a 64-bit integer, exact for min and max, and sums and products wrap
   around as Julia's do (done in U, unsigned, where C defines the wrap-around); dimcomb: acc[k] =
   op(acc[k], part[k]), the same way, into the element type. */
#define DAG__ARRAY_DIM_KERNELS(SUFFIX, T, A, U)                                                                      \
    DAG_KERNEL(dag__array_dimred_##SUFFIX, ((int, op), (int, dim), (long, rows), (long, cols),                      \
                                            (DAG_GLOBAL const T *, x), (long, xld), (DAG_GLOBAL A *, part)),          \
        size_t k = DAG_INDEX();                                                                                      \
        long n = dim == 1 ? rows : cols;                                                                             \
        size_t step = dim == 1 ? 1 : (size_t)xld, at = dim == 1 ? k * (size_t)xld : k;                               \
        A s = (A)x[at];                                                                                              \
        for (long t = 1; t < n; t++) {                                                                               \
            A v = (A)x[at + (size_t)t * step];                                                                       \
            s = op == 1 ? (A)((U)s + (U)v) : op == 2 ? (A)((U)s * (U)v)                                             \
                : op == 3 ? (v < s || v != v ? v : s) : (v > s || v != v ? v : s); /* a NaN wins, as Julia's */      \
        }                                                                                                            \
        part[k] = s;                                                                                                 \
    )                                                                                                                \
    DAG_KERNEL(dag__array_dimcomb_##SUFFIX, ((int, op), (DAG_GLOBAL const A *, part), (DAG_GLOBAL T *, acc)),       \
        size_t k = DAG_INDEX();                                                                                      \
        A s = (A)acc[k], v = part[k];                                                                                \
        acc[k] = (T)(op == 0 ? v : op == 1 ? (A)((U)s + (U)v) : op == 2 ? (A)((U)s * (U)v)                          \
                     : op == 3 ? (v < s || v != v ? v : s) : (v > s || v != v ? v : s));                             \
    )
#define DAG__ARRAY_OPS_KERNELS()                                                                                     \
    DAG__ARRAY_BYTE_KERNELS()                                                                                        \
    DAG__ARRAY_DIM_KERNELS(f64, double, double, double)                                                              \
    DAG__ARRAY_DIM_KERNELS(f32, float, double, double)                                                               \
    DAG__ARRAY_DIM_KERNELS(i32, int, long, unsigned long)                                                            \
    DAG__ARRAY_DIM_KERNELS(i64, long, long, unsigned long)

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
DAG__ARRAY_OPS_KERNELS()
#endif
#else /* C or C++ on the host */

#ifndef DAG_ARRAY_H_INCLUDED
#define DAG_ARRAY_H_INCLUDED

#include "dag_blas.h"   /* dag.h, dag_kernels.h and the tile gemm kernel */

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. DAG_CF64 and DAG_CF32 are complex (C11's double _Complex and
   float _Complex, Julia's ComplexF64 and ComplexF32: real part first): the
   header takes and gives their elements through void *, so this part needs
   no complex type (C++ and nvcc compile it). Their tasks run on the CPU,
   under a scope of devices too (no device kernel takes them: OpenCL C has
   no complex type). What takes them and what refuses them: docs/arrays.md,
   "Element types". */
typedef enum dag_elem { DAG_F64 = 1, DAG_F32, DAG_I32, DAG_I64, DAG_CF64, DAG_CF32 } dag_elem;
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
/* Tile sizes chosen by the constructor from the array's size, its element
   type, the workers and the devices in scope (dag_array.h's >>more
   constructors has the rule; docs/arrays.md too). */
#define dag_blocks_auto() ((dag_blocks){ -1, -1, 0, 0 })

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
/* Ones on the diagonal, zeros elsewhere (Julia's Matrix{T}(I, rows, cols)). */
dag_array *dag_array_identity(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks);
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

/* Reductions, in double: per tile, then a tree of tasks. A NaN wins min and max (Julia's minimum and
   maximum). Complex arrays: norm2 alone (sum and dot would be complex: dag_array_reduce_dims; min and
   max have no order). */
dag_result dag_array_sum(dag_array *a, double *out);
dag_result dag_array_min(dag_array *a, double *out);
dag_result dag_array_max(dag_array *a, double *out);
dag_result dag_array_dot(dag_array *a, dag_array *b, double *out);
/* Julia's issymmetric (A == A^T) and ishermitian (A == A^H: for real
   types the same), exactly, into *out; a matrix that is not square is
   neither. Every element type. */
dag_result dag_array_is_symmetric(dag_array *a, bool *out);
dag_result dag_array_is_hermitian(dag_array *a, bool *out);
dag_result dag_array_norm2(dag_array *a, double *out);

/* dst = src (same shape) or dst = src^T (dst is src's shape transposed);
   the tilings may differ: each pair of overlapping tiles is one task. */
dag_result dag_array_copy(dag_array *src, dag_array *dst);
dag_result dag_array_transpose(dag_array *src, dag_array *dst);

/* C = alpha * op(A) * op(B) + beta * C, op = transpose when trans is 1 (complex: the conjugate
   transpose; so for every operation below, and syrk is herk, potrf A = L L^H). Other tilings are
   re-tiled to conform. C may be (part of) A or B: they then go in as copies (so for syrk's A and trsm's
   A, and a copy or transpose between overlapping views). */
dag_result dag_array_gemm(int transa, int transb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c);
/* C's lower triangle = alpha * op(A) * op(A)^T + beta * C (C square in
   square tiles; its upper triangle is left as it was). */
dag_result dag_array_syrk(int trans, double alpha, dag_array *a, double beta, dag_array *c);
/* A^p for a square A and p >= 0 (Julia's A^p; p = 0: the identity), a
   new array in A's tiling: by squaring, about 2 log2(p) products (gemm). */
dag_array *dag_array_pow(dag_array *a, int p);
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
/* LU with partial pivoting, in place (LAPACK's getrf): P A = L U, L unit lower
   below the diagonal, U on and above it; A of any shape, in square tiles.
   ipiv (min(rows, cols) entries, or NULL) gets LAPACK's pivots: row i was
   swapped with row ipiv[i], 1-based; over ranks, on every rank. An exactly
   singular matrix fails with DAG_ERR_INVALID_ARGUMENT naming the column
   (the factorisation stops there). */
dag_result dag_array_getrf(dag_array *a, int64_t *ipiv);
/* Solves A X = B from getrf's factor and its ipiv (getrs), or from A itself
   (gesv: A becomes its factor; ipiv may be NULL). B becomes X. A square; B
   of A's rows, in tiles of A's tile rows. */
dag_result dag_array_getrs(dag_array *a, const int64_t *ipiv, dag_array *b);
dag_result dag_array_gesv(dag_array *a, int64_t *ipiv, dag_array *b);
/* QR in place (LAPACK's geqrf): R on and above the diagonal, the
   Householder vectors below it; tau (min(rows, cols) elements of a's type,
   or NULL) gets their scalars (over ranks, on every rank). gels: the least
   squares solution of A X = B for A m x n, m >= n, of full rank: A becomes
   its QR, B's first n rows X. Square tiles (else a copy in square tiles);
   B in A's tile rows (else a copy). */
dag_result dag_array_geqrf(dag_array *a, void *tau);
dag_result dag_array_gels(dag_array *a, dag_array *b);
/* Q of geqrf's factor a and its tau (LAPACK's ormqr/unmqr and orgqr/ungqr,
   Q = H_1 ... H_k): ormqr: C = op(Q) C (right = 0, C of a's rows) or
   C = C op(Q) (right = 1, C of as many columns as a has rows), op(Q) = Q^H
   when trans is 1 (Q^T for real types). orgqr: Q's first `cols` columns as
   a new array in a's tiling (cols = min(rows, cols of a): the thin Q;
   a's rows: the whole square Q), so Q^H, Q * s or collect(Q) are one call
   more (transpose, scale, collect). On every backend the array runs on. */
dag_result dag_array_ormqr(int right, int trans, dag_array *a, const void *tau, dag_array *c);
dag_array *dag_array_orgqr(dag_array *a, const void *tau, int64_t cols);
/* Communication-avoiding QR (CAQR; Dagger's qr!(A; p)): A's tile rows go
   in `domains` domains of consecutive tile rows (their sizes differ by one
   at most; 1 to one domain per tile row), the domains of every panel are
   factorised at once and their triangles merged in a binary tree, so a tall
   panel is not one task. A becomes R on and above its diagonal (reflectors
   below it); the factor returned holds the rest of Q for qr_ormqr (op(Q) C
   or C op(Q), as ormqr), qr_orgqr (Q's first cols columns in A's tiling, as
   orgqr) and qr_gels (B's first n rows become the least-squares X, as
   gels). domains 1 is geqrf's tiled QR; 0 chooses (a domain for every 4
   tile rows a tile column, 1 to 16). The factor holds a T and a V tile
   per domain and merge of each step (up to 2 domains - 1 tiles a step). It
   works on A in square tiles (the smaller side of A's): an array whose
   tiles are not square, or a view whose corner is off a tile boundary, is
   copied into such tiles, which the factor keeps; else the factor reads
   A's own reflectors, so leave A as caqr left it until dag_array_qr_free.
   NULL: bad arguments or no memory (logged). On every backend the array
   runs on. */
typedef struct dag_array_qr dag_array_qr;
dag_array_qr *dag_array_caqr(dag_array *a, int domains);
dag_result dag_array_qr_ormqr(int right, int trans, const dag_array_qr *f, dag_array *c);
dag_array *dag_array_qr_orgqr(const dag_array_qr *f, int64_t cols);
dag_result dag_array_qr_gels(const dag_array_qr *f, dag_array *b);
void dag_array_qr_free(dag_array_qr *f);
/* The thin SVD (Julia's svd): A = U diag(s) Vt with k = min(rows, cols),
   s k singular values in descending order (doubles for every type), U
   rows x k and Vt k x cols new arrays (in square tiles of a's smaller
   tile side) with orthonormal columns and rows; u or vt NULL: not formed
   (svdvals). A is left as it is. Through the tiled QR (geqrf, ormqr), with
   a k x k SVD on the host (LAPACKE's gesdd, else one-sided Jacobi). */
dag_result dag_array_svd(dag_array *a, dag_array **u, double *s, dag_array **vt);

/* Views (Dagger's view): rows r0 to r0 + rows - 1 and columns c0 to
   c0 + cols - 1 of a (an array or a view), in place: every operation takes
   it and reads and writes a's tiles, ordered by their handles. A view whose
   corner is on a tile boundary is a's tiles themselves (dag_array_tile
   gives them); any other is copied by each operation into tiles of its own
   and back. Free it with dag_array_free (a stays); it must not outlive a. */
dag_array *dag_array_view(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols);
/* One element (in double, converted from and to the element type) and a
   rectangle (column-major host memory, ld elements between its columns),
   from and to the array: Julia's getindex and setindex!. Over ranks, get
   gives every rank the values, put takes them from every rank's own. */
dag_result dag_array_get(dag_array *a, int64_t r, int64_t c, double *value);
dag_result dag_array_put(dag_array *a, int64_t r, int64_t c, double value);
dag_result dag_array_get_slice(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, void *out, int64_t ld);
dag_result dag_array_put_slice(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, const void *in,
                               int64_t ld);
/* Julia's A[rows, cols] with vectors of indices: a new nr x nc array whose
   (i, j) is a(rows[i], cols[j]), 0-based, in any order, repeats allowed;
   rows NULL takes every row (nr is then ignored), cols likewise, so
   X[idx, 5] is dag_array_index(x, idx, n, (int64_t[]){ 5 }, 1), an n x 1
   vector. In a's tile sizes; a run of consecutive indices moves as one
   block, so a range costs what a copy does (one task per pair of tiles
   that meet), and scattered indices a task per element at worst. NULL
   (and a logged error naming the index) for an index out of range, an
   empty list or a NULL array. */
dag_array *dag_array_index(dag_array *a, const int64_t *rows, int64_t nr, const int64_t *cols, int64_t nc);
/* n arrays side by side (hcat: as many rows each) or one above the other
   (vcat: as many columns), into a new array in the first one's tiling. */
dag_array *dag_array_hcat(int n, dag_array *const *arrays);
dag_array *dag_array_vcat(int n, dag_array *const *arrays);
/* An array whose values are whatever its memory held (Julia's undef), and
   one of a's type, shape, tiling and grid (similar). */
dag_array *dag_array_undef(dag_elem type, int64_t rows, int64_t cols, dag_blocks blocks);
dag_array *dag_array_similar(const dag_array *a);
dag_elem dag_array_type(const dag_array *a);
/* Vectors: 1-D arrays (Dagger's DVector: zeros(Blocks(32), n),
   distribute(v, Blocks(32)), collect(v), v[i]) of n elements in tiles of
   `block` elements (0: dag_blocks_auto's), dealt over every rank. A vector
   is stored as an n x 1 column, so every operation takes it as one (gemm
   into a vector is A * v, sort, fft, reductions, element-wise maps and
   broadcasts across a matrix's columns); dag_array_ndims says 1, and what
   an operation makes of a vector is a vector: similar, index by rows,
   vcat of vectors, view, a reduction along dims (a 1-element vector for
   dims 1 or 0, as Julia's sum(v; dims = 1)). Elements by one index. */
dag_array *dag_vector_zeros(dag_elem type, int64_t n, int64_t block);
dag_array *dag_vector_ones(dag_elem type, int64_t n, int64_t block);
dag_array *dag_vector_fill(dag_elem type, int64_t n, int64_t block, double value);
dag_array *dag_vector_rand(dag_elem type, int64_t n, int64_t block, uint64_t seed);
dag_array *dag_vector_randn(dag_elem type, int64_t n, int64_t block, uint64_t seed);
dag_array *dag_vector_undef(dag_elem type, int64_t n, int64_t block);
dag_array *dag_vector_from_host(dag_elem type, int64_t n, int64_t block, const void *data);
dag_array *dag_vector_wrap(dag_elem type, int64_t n, int64_t block, void *data);
dag_array *dag_vector_view(dag_array *v, int64_t i0, int64_t n);
dag_result dag_vector_collect(dag_array *v, void *out);
dag_result dag_vector_get(dag_array *v, int64_t i, double *value);
dag_result dag_vector_put(dag_array *v, int64_t i, double value);
int dag_array_ndims(const dag_array *a);      /* 1 for a vector, 2 for any other array, 0 for NULL */
int64_t dag_array_length(const dag_array *a);   /* its element count */
/* rand! and randn!: a's values as dag_array_rand and dag_array_randn give
   an array of its shape (a view counts from its own corner). */
dag_result dag_array_fill_rand(dag_array *a, uint64_t seed);
dag_result dag_array_fill_randn(dag_array *a, uint64_t seed);

/* Reductions along a dimension, Dagger's reduce(op, A; dims, init):
   dims 1 reduces over the rows (a 1 x cols result), 2 over the columns
   (rows x 1), 0 over both (1 x 1); from init, in a's element type
   (accumulated within a tile in double for the floating types; for the
   integers exactly, sums and products wrapping around as Julia's do).
   NULL (and a logged error) on bad
   arguments. The result is tiled as a along the dimension it keeps. */
typedef enum dag_array_op { DAG_OP_SUM = 1, DAG_OP_PROD, DAG_OP_MIN, DAG_OP_MAX } dag_array_op;
dag_array *dag_array_reduce_dims(dag_array_op op, dag_array *a, int dims, double init);
/* mapreduce: map each element, then reduce along dims from init. The
   operator as C functions (on the CPU, in double; map NULL: the element
   itself), or as DAG_KERNELs (on the CPU or a device in the scope): map as
   dag_array_map's, reduce of ((DAG_GLOBAL const T *, x), (DAG_GLOBAL T *,
   acc)) doing acc[i] = op(acc[i], x[i]) for each index; dims 1 or 2. */
dag_array *dag_array_mapreduce_fn(double (*map)(double), double (*reduce)(double, double), dag_array *a, int dims,
                                  double init);
#define dag_array_mapreduce(map, reduce, a, dims, init) \
    dag_array_mapreduce_desc(&map##__desc, &reduce##__desc, (a), (dims), (init))
dag_array *dag_array_mapreduce_desc(const dag_task_desc *map, const dag_task_desc *reduce, dag_array *a, int dims,
                                    double init);

/* out = kernel(x1, ..., xn) element by element, n from 1 to 4: a DAG_KERNEL
   of n + 1 parameters ((DAG_GLOBAL const T *, x1), ..., (DAG_GLOBAL T *, y))
   launched over each tile of out. An input of out's shape is read element
   by element (any tiling, or a view); one of a single column broadcasts
   across out's columns, a single row down its rows, a 1 x 1 array (a
   scalar, dag_array_scalar) everywhere (Julia's out .= f.(x1, v, 2.0)).
   dag_array_add, _sub and _mul broadcast the same way. */
#define dag_array_map2(kernel, x1, x2, out) dag_array_map_desc_n(&kernel##__desc, (out), 2, (x1), (x2), NULL, NULL)
#define dag_array_map3(kernel, x1, x2, x3, out) dag_array_map_desc_n(&kernel##__desc, (out), 3, (x1), (x2), (x3), NULL)
#define dag_array_map4(kernel, x1, x2, x3, x4, out) dag_array_map_desc_n(&kernel##__desc, (out), 4, (x1), (x2), (x3), (x4))
dag_result dag_array_map_desc_n(const dag_task_desc *kernel, dag_array *out, int n, dag_array *x1, dag_array *x2,
                                dag_array *x3, dag_array *x4);
/* A 1 x 1 array holding value: a scalar operand. */
dag_array *dag_array_scalar(dag_elem type, double value);

/* Sorts a vector (an n x 1 array, or a view of one column) in place, Julia's
   sort!: ascending, or descending; NaNs last either way. Any element type.
   Each tile is sorted by a task, then a bitonic network of merge-split
   tasks over pairs of tiles merges them (each tile keeps its size). Its
   tasks run on the CPU, under a device scope too; over MPI ranks each
   merge-split runs where the first of its two tiles lives, the other
   coming to it and going home after, and every rank's call returns the
   same. DAG_ERR_INVALID_ARGUMENT (logged) for NULL or more than one column. */
dag_result dag_array_sort(dag_array *v, bool descending);

/* The discrete Fourier transform of a complex array (DAG_CF64, DAG_CF32)
   into dst: src itself (in place, Julia's fft!) or an array of its type
   and shape in any tiling (fft). Along dims 1 (each column), 2 (each row)
   or 0 (both: the 2-D transform, and a vector's 1-D one). fft is
   X[k] = sum_j x[j] e^{-2 pi i jk / n}, unscaled; ifft the inverse, with
   e^{+2 pi i jk / n} and divided by n, so ifft(fft(x)) is x (FFTW's and
   Julia's conventions). Any length: a power of two directly, any other
   through Bluestein's transform of a power of two, in double for both
   types. Each pass copies the array into slabs of whole columns (or
   rows), a few per worker, and a task per slab transforms its lines:
   the tasks run on the CPU, under a device scope too; over MPI ranks the
   slabs are dealt over every rank. DAG_ERR_INVALID_ARGUMENT (logged) for
   NULL, a real type, another shape or type, or dims not 0, 1 or 2. */
dag_result dag_array_fft(dag_array *src, dag_array *dst, int dims);
dag_result dag_array_ifft(dag_array *src, dag_array *dst, int dims);

/* Stencils (Dagger's @stencil): dst(r, c) = f of src's elements within
   radius rows and columns of (r, c). f gets x pointing at src(r, c) in a
   column-major block of doubles: x[i + j * ld] is src(r + i, c + j) for
   |i|, |j| <= radius (past the edges: the boundary's), r and c, and user;
   what it returns goes into dst, converted to dst's element type as C
   converts. The boundary: periodic (the array wraps around), a fixed
   value (DAG_BOUNDARY_DEFAULT: 0), or the array's own values past its
   edges (Dagger's Clamp and Reflect): clamp repeats the edge (x[-2] =
   x[-1] = x[0]), reflect mirrors with the edge repeated (x[-1] = x[0],
   x[-2] = x[1]; radius at most the rows and columns), mirror about the
   edge (x[-1] = x[1]; radius under them); antireflect and antimirror are
   those with the sign flipped once per dimension crossed (Dagger's
   AntiReflect: a quantity that vanishes at a wall), and linear
   extrapolates from the edge's slope (Dagger's LinearExtrapolate: x[-k] =
   x[0] + k (x[0] - x[1]); at least 2 rows and columns). A Jacobi step:

       double jacobi(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
           return 0.25 * (x[-1] + x[1] + x[-ld] + x[ld]);
       }
       dag_array_stencil(next, now, 1, dag_boundary_fixed(1.0), jacobi, NULL);

   A task per tile of src copies its edges into strips of radius rows or
   columns, and a task per tile of dst reads src's tile there and the
   strips of its eight neighbours that face it (so radius must not exceed
   any tile's rows or columns where a halo crosses tiles), on the CPU; over
   ranks only the strips move. dst and src: one shape, any element types and
   tilings, two arrays (a step reads the old values of its neighbours:
   alternate two arrays). */
typedef enum dag_boundary_kind {
    DAG_BOUNDARY_DEFAULT = 0, DAG_BOUNDARY_FIXED, DAG_BOUNDARY_PERIODIC, DAG_BOUNDARY_CLAMP, DAG_BOUNDARY_REFLECT,
    DAG_BOUNDARY_MIRROR, DAG_BOUNDARY_ANTIREFLECT, DAG_BOUNDARY_ANTIMIRROR, DAG_BOUNDARY_LINEAR
} dag_boundary_kind;
typedef struct dag_boundary { dag_boundary_kind kind; double value; } dag_boundary;
#define dag_boundary_fixed(value) ((dag_boundary){ DAG_BOUNDARY_FIXED, (value) })
#define dag_boundary_periodic() ((dag_boundary){ DAG_BOUNDARY_PERIODIC, 0.0 })
#define dag_boundary_clamp() ((dag_boundary){ DAG_BOUNDARY_CLAMP, 0.0 })
#define dag_boundary_reflect() ((dag_boundary){ DAG_BOUNDARY_REFLECT, 0.0 })
#define dag_boundary_mirror() ((dag_boundary){ DAG_BOUNDARY_MIRROR, 0.0 })
#define dag_boundary_antireflect() ((dag_boundary){ DAG_BOUNDARY_ANTIREFLECT, 0.0 })
#define dag_boundary_antimirror() ((dag_boundary){ DAG_BOUNDARY_ANTIMIRROR, 0.0 })
#define dag_boundary_linear() ((dag_boundary){ DAG_BOUNDARY_LINEAR, 0.0 })
typedef double (*dag_stencil_fn)(const double *x, int64_t ld, int64_t row, int64_t col, void *user);
dag_result dag_array_stencil(dag_array *dst, dag_array *src, int radius, dag_boundary boundary, dag_stencil_fn f,
                             void *user);
/* A radius and a boundary per dimension (Dagger's @neighbors(A[idx], (1,
   2), (Wrap(), Pad(0)))): [0] for the rows (x[+-i]), [1] for the columns
   (x[+-j * ld]). Past both edges at once (a corner): a fixed boundary's
   value wins (the rows' first), else each dimension maps its index in
   turn and each antireflect flips the sign; a linear one extrapolates
   along the rows (the columns' index clamped) or, if the rows are inside,
   along the columns. */
typedef struct dag_stencil_dims { int radius[2]; dag_boundary boundary[2]; } dag_stencil_dims;
dag_result dag_array_stencil_dims(dag_array *dst, dag_array *src, dag_stencil_dims dims, dag_stencil_fn f, void *user);
/* The same with a DAG_KERNEL for the points, so they may run on the tile's
   device (as dag_array_map's kernels): ((long, rows), (long, ld), (long,
   r0), (long, c0), (DAG_GLOBAL const T *, x), (DAG_GLOBAL T *, y)), one
   item per point k of a rows-row tile whose corner is (r0, c0): i = k %
   rows, j = k / rows, and src(r0 + i + di, c0 + j + dj) is x[(i + radius
   + di) + (j + radius + dj) * ld], x being the tile padded with its halo
   (made on the CPU); y[k] is dst's point. dst and src of one type, T.
   With dims: x[(i + radius[0] + di) + (j + radius[1] + dj) * ld]. */
#define dag_array_stencil_kernel(kernel, dst, src, radius, boundary) \
    dag_array_stencil_desc(&kernel##__desc, (dst), (src), (radius), (boundary))
dag_result dag_array_stencil_desc(const dag_task_desc *kernel, dag_array *dst, dag_array *src, int radius,
                                  dag_boundary boundary);
#define dag_array_stencil_dims_kernel(kernel, dst, src, dims) dag_array_stencil_dims_desc(&kernel##__desc, (dst), (src), (dims))
dag_result dag_array_stencil_dims_desc(const dag_task_desc *kernel, dag_array *dst, dag_array *src, dag_stencil_dims dims);

/* Statistics (Julia's mean, var and std): of the whole array into *out,
   or along dims (1: over the rows, into 1 x cols; 2: over the columns,
   into rows x 1) into a new DAG_F64 array tiled as a along the dimension
   it keeps. In double for every real type (integers converted first);
   var and std divide by n - 1 (corrected) or n; of one element, corrected,
   they are NaN, as Julia's. Complex arrays are refused. */
dag_result dag_array_mean(dag_array *a, double *out);
dag_result dag_array_var(dag_array *a, bool corrected, double *out);
dag_result dag_array_std(dag_array *a, bool corrected, double *out);
dag_array *dag_array_mean_dims(dag_array *a, int dims);
dag_array *dag_array_var_dims(dag_array *a, int dims, bool corrected);
dag_array *dag_array_std_dims(dag_array *a, int dims, bool corrected);

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
DAG__ARRAY_OPS_KERNELS()

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
    bool vector;                 /* a 1-D array (an n x 1 column): dag_vector_* made it, or an operation on one */
    /* a view (dag_array_view) of base, an array of its own tiles or a wrapped matrix, from its row r0 and
       column c0, in base's tiles. With its corner on a tile boundary, its tiles are base's (tile and handle
       list them); else it has none (NULL), and each operation copies it to tiles of its own and back. */
    dag_array *base;
    int64_t r0, c0;
};

static size_t dag__elem_size(dag_elem t) {
    return t == DAG_CF64 ? 16 : t == DAG_F64 || t == DAG_I64 || t == DAG_CF32 ? 8 : t == DAG_F32 || t == DAG_I32 ? 4 : 0;
}
/* The complex types in C: C11's _Complex, which GCC and Clang also take in C++ (the implementation is
   compiled as C++ too), with their builtins for conj, creal and cabs, which both languages have. */
typedef double _Complex dag__cf64;
typedef float _Complex dag__cf32;
static bool dag__complex(dag_elem t) { return t == DAG_CF64 || t == DAG_CF32; }

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
static int64_t dag__ld(const dag_array *a, int64_t i) {
    if (a->base && !a->ld) return dag__tile_rows(a->base, i + a->r0 / a->base->brows);   /* a view: base's tile's */
    return a->ld ? a->ld : dag__tile_rows(a, i);
}
void dag_array_tile_size(const dag_array *a, int64_t i, int64_t j, int64_t *rows, int64_t *cols) {
    bool in = a && i >= 0 && j >= 0 && i < a->mt && j < a->nt;
    if (rows) *rows = in ? dag__tile_rows(a, i) : 0;
    if (cols) *cols = in ? dag__tile_cols(a, j) : 0;
}
int64_t dag_array_tile_ld(const dag_array *a, int64_t i, int64_t j) {
    return a && i >= 0 && j >= 0 && i < a->mt && j < a->nt ? dag__ld(a, i) : 0;
}
static int dag__tile_rank(const dag_array *a, int64_t i, int64_t j) {
    if (a->base) return dag__tile_rank(a->base, i + a->r0 / a->base->brows, j + a->c0 / a->base->bcols);
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
    if (!a->handle) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_tile: a view whose corner (%lld, %lld) is inside "
                "a tile has no tiles of its own", (long long)a->r0, (long long)a->c0);
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

static void dag__array_release(dag_array *a, bool discard) {
    if (!a) return;
    if (a->base) a->mt = a->nt = 0;   /* a view: its lists, not base's tiles */
    for (int64_t t = 0; a->tile && a->handle && t < a->mt * a->nt; t++) {
        dag__data_let_go(a->handle[t], discard);
        if (!a->ld) DAG_FREE(a->tile[t]);   /* a wrapped matrix is the caller's; another rank's tile: NULL */
    }
    DAG_FREE(a->tile);
    DAG_FREE(a->handle);
    DAG_FREE(a);
}
void dag_array_free(dag_array *a) { dag__array_release(a, false); }
/* Scratch of an operation: what devices hold of it is dropped where it is, not brought home. */
static void dag__array_discard(dag_array *a) { dag__array_release(a, true); }

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
    dag_data h;   /* the array's own: the program may not unregister it (dag__data_owned) */
    if (dag__ranks()) {
        int owner = dag__tile_rank(a, i, j);
        h = a->ld ? dag_data_register_tile_on(owner, p, (size_t)c, (size_t)r, (size_t)ld, a->elem)
                  : dag_data_register_resident_tile_on(owner, p, (size_t)c, (size_t)r, (size_t)ld, a->elem);
    } else {
        h = a->ld ? dag_data_register_tile(p, (size_t)c, (size_t)r, (size_t)ld, a->elem)
                  : dag_data_register_resident_tile(p, (size_t)c, (size_t)r, (size_t)ld, a->elem);
    }
    return dag__data_owned(h);
}

/* An array of its own tiles (wrap NULL), or of views of the column-major
   matrix wrap with leading dimension ld (over ranks: every rank's own
   matrix, where the tiles it owns are current after each operation).
   with_diagonal: tile (i, j) lives with tile (i, i) of a square array on
   b's grid (potrf's inverses of the diagonal tiles, made where those are). */
static dag_blocks dag__blocks_resolve(dag_elem type, int64_t rows, int64_t cols, dag_blocks b);   /* in "more constructors", below */
/* a / b rounded up, for any positive a and b (a + b - 1 would overflow near INT64_MAX) */
static int64_t dag__ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }
static dag_array *dag__array_new(dag_elem type, int64_t rows, int64_t cols, dag_blocks b, void *wrap, int64_t ld,
                                 bool with_diagonal) {
    size_t elem = dag__elem_size(type);
    int p = 0, q = 0;
    b = dag__blocks_resolve(type, rows, cols, b);   /* dag_blocks_auto */
    if (!elem || rows <= 0 || cols <= 0 || b.rows <= 0 || b.cols <= 0 || !dag__grid(b, &p, &q)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array: type %d, %lld x %lld in %lld x %lld blocks on a %d x %d grid of ranks: sizes must be "
                "positive, the grid both positive or both 0 (every rank), the type one of DAG_F64, DAG_F32, DAG_I32, "
                "DAG_I64, DAG_CF64, DAG_CF32", (int)type, (long long)rows, (long long)cols, (long long)b.rows, (long long)b.cols,
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
    a->mt = dag__ceil_div(rows, a->brows);
    a->nt = dag__ceil_div(cols, a->bcols);
    if (a->mt > (int64_t)DAG_MAX_REGISTERED / a->nt || a->brows > (int64_t)(SIZE_MAX / 2 / elem) / a->bcols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array: %lld x %lld in %lld x %lld blocks: %s", (long long)rows,
                (long long)cols, (long long)a->brows, (long long)a->bcols,
                a->mt > (int64_t)DAG_MAX_REGISTERED / a->nt ? "more tiles than DAG_MAX_REGISTERED spans can be registered"
                                                            : "a tile larger than memory can hold");
        DAG_FREE(a);
        return NULL;
    }
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
        if (unregistered >= 0 && !dag_is_setup())   /* (dag.h said so once a thread: each later array's words say it again) */
            dag_log(DAG_LOG_ERROR, DAG_ERR_SHUT_DOWN, "dag_array: no array while dag.h is shut down (dag_setup first)");
        else if (unregistered >= 0)
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
   dag_scope(.opencl.all = 1)), for example) spreads the tile kernels
   block-cyclically over them, tile (i, j) on device (i + j) mod count,
   owner computes; the tile tasks that are not kernels run on the CPU (the
   workers of the scope, or all of them when it names none).
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
/* The same for an operation on a's tiles: a complex array's tasks all run on the CPU (the scope's
   workers, or every worker when it names only devices), its tiles coming home for them as they do for
   sort and randn, since no device kernel takes complex elements (OpenCL C has no complex type). */
static dag__array_where dag__array_where_for(const char *who, const dag_array *a) {
    dag__array_where w = dag__array_where_now(who);
    if (a && dag__complex(a->type)) w.devices = 0;
    return w;
}
/* Logs that `who` does not take complex elements, and why; false for a complex array (true for NULL:
   the operation's own checks name that). */
static bool dag__not_complex(const dag_array *a, const char *who, const char *why) {
    if (!a || !dag__complex(a->type)) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: a complex array (%s): %s", who,
            a->type == DAG_CF64 ? "DAG_CF64" : "DAG_CF32", why);
    return false;
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

/* >>views: dag_array_view, copies between any two arrays or views, and the
   operands an operation takes. A view whose corner lies on a tile boundary
   of its base is the base's tiles (its last ones a corner of theirs, with
   their leading dimension), so every operation works on it in place,
   ordered by the base's handles. Any other view, and an operand whose
   tiling is not the one an operation needs (tilings that do not conform),
   the operation copies to tiles of its own first and, if it writes it,
   back after: a copy task per pair of overlapping tiles, on the CPU or the
   destination tile's device, ordered by the handles of both. */
/* Whether rows x cols from (r0, c0) lie in a, else logged as `who`'s error */
static bool dag__rect_inside(const dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, const char *who) {
    /* (r0 > rows' room, not r0 + rows > a->rows: a sum near INT64_MAX would wrap and pass) */
    if (a && r0 >= 0 && c0 >= 0 && rows > 0 && cols > 0 && rows <= a->rows && cols <= a->cols && r0 <= a->rows - rows &&
        c0 <= a->cols - cols)
        return true;
    if (!a)
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no array (NULL)", who);
    else if (rows == 1 && cols == 1)
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: element (%lld, %lld) is outside the %lld x %lld array "
                "(indices from 0)", who, (long long)r0, (long long)c0, (long long)a->rows, (long long)a->cols);
    else
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %lld rows from row %lld and %lld columns from column %lld "
                "of a %lld x %lld array", who, (long long)rows, (long long)r0, (long long)cols, (long long)c0,
                (long long)a->rows, (long long)a->cols);
    return false;
}
dag_array *dag_array_view(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
    if (!dag__rect_inside(a, r0, rows, c0, cols, "dag_array_view")) return NULL;
    dag_array *base = a->base ? a->base : a, *v = (dag_array *)dag__array_zalloc(1, sizeof *v);
    if (!v) return NULL;
    *v = *base;
    v->base = base;
    v->r0 = r0 + (a->base ? a->r0 : 0), v->c0 = c0 + (a->base ? a->c0 : 0);
    v->rows = rows, v->cols = cols;
    v->brows = base->brows < rows ? base->brows : rows, v->bcols = base->bcols < cols ? base->bcols : cols;
    v->mt = (rows + v->brows - 1) / v->brows, v->nt = (cols + v->bcols - 1) / v->bcols;
    v->tile = NULL, v->handle = NULL, v->with_diagonal = false;
    if (v->r0 % base->brows || v->c0 % base->bcols) return v;   /* no tiles of its own: copied by each operation */
    v->tile = (void **)dag__array_zalloc((size_t)(v->mt * v->nt), sizeof *v->tile);
    v->handle = (dag_data *)dag__array_zalloc((size_t)(v->mt * v->nt), sizeof *v->handle);
    if (!v->tile || !v->handle) {
        dag_array_free(v);
        return NULL;
    }
    for (int64_t j = 0; j < v->nt; j++)
        for (int64_t i = 0; i < v->mt; i++) {
            int64_t t = i + v->r0 / base->brows + (j + v->c0 / base->bcols) * base->mt;
            v->tile[i + j * v->mt] = base->tile[t], v->handle[i + j * v->mt] = base->handle[t];
        }
    return v;
}

/* A rectangle of an array of tiles of its own (a view's base), in its coordinates. */
typedef struct dag__rect { dag_array *a; int64_t r0, c0, rows, cols; } dag__rect;
static dag__rect dag__rect_of(dag_array *x) {
    dag__rect r = { x->base ? x->base : x, x->base ? x->r0 : 0, x->base ? x->c0 : 0, x->rows, x->cols };
    return r;
}
static bool dag__rects_overlap(dag__rect x, dag__rect y) {
    return x.a == y.a && x.r0 < y.r0 + y.rows && y.r0 < x.r0 + x.rows && x.c0 < y.c0 + y.cols && y.c0 < x.c0 + x.cols;
}
static bool dag__rects_same(dag__rect x, dag__rect y) {
    return x.a == y.a && x.r0 == y.r0 && x.c0 == y.c0 && x.rows == y.rows && x.cols == y.cols;
}
/* Whether x and y are the same elements: one array, or views (of one array) of one rectangle */
static bool dag__same_elements(dag_array *x, dag_array *y) {
    return x && y && dag__rects_same(dag__rect_of(x), dag__rect_of(y));
}
static int64_t dag__imax(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t dag__imin(int64_t a, int64_t b) { return a < b ? a : b; }
/* out, made by an operation from a: a vector (1-D) when a is one and out is a column */
static dag_array *dag__keeps_1d(const dag_array *a, dag_array *out) {
    if (out && a && a->vector && out->cols == 1) out->vector = true;
    return out;
}

/* One element of elem bytes moved: 8 and 4 bytes as one move (a memcpy of a constant size), not a call
   per element. */
static inline void dag__elem_move(char *dst, const char *src, int elem) {
    if (elem == 8) memcpy(dst, src, 8);
    else if (elem == 4) memcpy(dst, src, 4);
    else memcpy(dst, src, (size_t)elem);
}
/* dag__array_copy_part's copy, not transposed, on the CPU: rows x cols elements of a column-major block
   from (sr, sc) into another at (dr, dc), a column at a time (the portable kernel pays a division per
   element: a fifth of the speed; transposed, it ran faster than a task per tile doing the same). */
DAG_TASK(void, dag__copy_block, (int, elem), (const void *, src), (int64_t, lds), (int64_t, sr), (int64_t, sc),
         (void *, dst), (int64_t, ldd), (int64_t, dr), (int64_t, dc), (int64_t, rows), (int64_t, cols)) {
    const char *s = (const char *)src + (size_t)(sr + sc * lds) * (size_t)elem;
    char *d = (char *)dst + (size_t)(dr + dc * ldd) * (size_t)elem;
    for (int64_t j = 0; j < cols; j++)
        memcpy(d + (size_t)(j * ldd) * (size_t)elem, s + (size_t)(j * lds) * (size_t)elem, (size_t)(rows * elem));
}
/* The part of s in its base's tile (si, sj) into d's base tiles (d = s, or d = s^T): a task per tile it
   lands in. */
static void dag__copy_from_tile(const dag__array_where *w, dag__rect s, dag__rect d, int transpose, int64_t si,
                                int64_t sj) {
    const dag_array *sa = s.a, *da = d.a;
    /* the part, from s's corner: rows r0 to r1 - 1, columns c0 to c1 - 1; in d's base: dr0.., dc0.. */
    int64_t r0 = dag__imax(si * sa->brows, s.r0) - s.r0, r1 = dag__imin((si + 1) * sa->brows, s.r0 + s.rows) - s.r0;
    int64_t c0 = dag__imax(sj * sa->bcols, s.c0) - s.c0, c1 = dag__imin((sj + 1) * sa->bcols, s.c0 + s.cols) - s.c0;
    int64_t dr0 = d.r0 + (transpose ? c0 : r0), dr1 = d.r0 + (transpose ? c1 : r1);
    int64_t dc0 = d.c0 + (transpose ? r0 : c0), dc1 = d.c0 + (transpose ? r1 : c1);
    dag_data st = sa->handle[si + sj * sa->mt];
    for (int64_t dj = dc0 / da->bcols; dj * da->bcols < dc1; dj++)
        for (int64_t di = dr0 / da->brows; di * da->brows < dr1; di++) {
            int64_t lr = dag__imax(dr0, di * da->brows), hr = dag__imin(dr1, (di + 1) * da->brows);
            int64_t lc = dag__imax(dc0, dj * da->bcols), hc = dag__imin(dc1, (dj + 1) * da->bcols);
            int64_t ur = lr - d.r0, uc = lc - d.c0;   /* from d's corner, then in s's tile */
            int64_t sr = (transpose ? uc : ur) + s.r0 - si * sa->brows, sc = (transpose ? ur : uc) + s.c0 - sj * sa->bcols;
            int64_t rows = transpose ? hc - lc : hr - lr, cols = transpose ? hr - lr : hc - lc;
            dag_data dt = da->handle[di + dj * da->mt];
            int64_t tr = lr - di * da->brows, tc = lc - dj * da->bcols;   /* in d's tile */
            if (!w->devices && !transpose)   /* the CPU alone: a copy a column at a time */
                dag_spawn_with(DAG__NAMED(&w->cpu, "copy"), dag__copy_block, Val((int)sa->elem), In(st), Ld(st), Val(sr), Val(sc),
                               InOut(dt), Ld(dt), Val(tr), Val(tc), Val(rows), Val(cols));
            else
                dag_spawn_with(DAG__NAMED(dag__tile_where(w, di, dj), "copy"), DAG_LAUNCH(dag__array_copy_part, rows * cols),
                               Val((int)sa->elem), In(st), Ld(st), Val((long)sr), Val((long)sc), InOut(dt), Ld(dt),
                               Val((long)tr), Val((long)tc), Val((long)rows), Val(transpose));
        }
}

/* Rectangle s into rectangle d (d = s, or d = s^T): each of s's base tiles it meets, a task per tile of d it
   lands in; in the region open. */
static void dag__copy_rect(const dag__array_where *w, dag__rect s, dag__rect d, int transpose) {
    for (int64_t sj = s.c0 / s.a->bcols; sj * s.a->bcols < s.c0 + s.cols; sj++)
        for (int64_t si = s.r0 / s.a->brows; si * s.a->brows < s.r0 + s.rows; si++)
            dag__copy_from_tile(w, s, d, transpose, si, sj);
}

/* dst = src or src^T, any two arrays or views of one element type. */
static dag_result dag__array_copy_any(dag_array *src, dag_array *dst, int transpose, const char *name) {
    dag__array_where where = dag__array_where_now(name);
    if (where.status) return where.status;
    if (!src || !dst || src->type != dst->type || (transpose ? src->rows != dst->cols || src->cols != dst->rows
                                                             : src->rows != dst->rows || src->cols != dst->cols)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: the arrays need one element type and %s", name,
                transpose ? "transposed shapes" : "one shape");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    dag__rect s = dag__rect_of(src), d = dag__rect_of(dst);
    /* the corners go to the tasks as values: over ranks, every rank's must be the same (a view made at
       another corner on one rank, an element put at another place, would mix the ranks' arrays) */
    int64_t corners[5] = { s.r0, s.c0, d.r0, d.c0, transpose };
    dag__mpi_agree_numbers("copied part of an array (source row and column, destination row and column, transposed)",
                           corners, 5);
    if (dag__rects_overlap(s, d) && (transpose || s.r0 != d.r0 || s.c0 != d.c0)) {   /* through a copy of src */
        dag_array *tmp = dag_array_undef(src->type, src->rows, src->cols, dag_blocks_grid(s.a->brows, s.a->bcols, s.a->p, s.a->q));
        dag_result r = !tmp ? DAG_ERR_OUT_OF_MEMORY : dag__array_copy_any(src, tmp, 0, name);
        if (r == DAG_OK) r = dag__array_copy_any(tmp, dst, transpose, name);
        dag_array_free(tmp);
        return r;
    }
    DAG_DATADEPS { dag__copy_rect(&where, s, d, transpose); }
    return dag_last_region_result();
}

/* x's tiling, to ask for it (dag__operand). */
static dag_blocks dag__tiling_of(const dag_array *x) { return dag_blocks_grid(x->brows, x->bcols, x->p, x->q); }

/* Why the last operand this thread asked for was not made (dag__operand, dag__unaliased): its copy's
   error (a scope that names no device it can use...), else no memory. The operation returns it. */
static DAG__THREAD_LOCAL dag_result dag__operand_error;
static dag_result dag__no_operand(void) {
    dag_result r = dag__operand_error ? dag__operand_error : DAG_ERR_OUT_OF_MEMORY;
    dag__operand_error = DAG_OK;
    return r;
}
/* An input that shares elements with the operation's output (the same array, or views of one that
   overlap; `same_ok`: unless it is exactly the output's elements, which an element-wise operation reads
   before it writes them): a copy of it, which the caller frees; else x itself. NULL: no memory. Tasks
   that write the output would otherwise change what later tasks read as input (gemm(A, B, A), a copy
   between overlapping views). */
static dag_array *dag__unaliased(dag_array *x, dag_array *out, bool same_ok, const char *who) {
    if (!x || !out) return x;
    dag__rect a = dag__rect_of(x), b = dag__rect_of(out);
    if (!dag__rects_overlap(a, b) || (same_ok && dag__rects_same(a, b))) return x;
    dag_array *c = dag_array_undef(x->type, x->rows, x->cols, dag_blocks_grid(a.a->brows, a.a->bcols, a.a->p, a.a->q));
    dag_result r = c ? dag__array_copy_any(x, c, 0, who) : DAG_ERR_OUT_OF_MEMORY;
    if (r != DAG_OK) dag_array_free(c), c = NULL, dag__operand_error = r;
    return c;
}
static void dag__unaliased_end(dag_array *x, dag_array *copy) {
    if (copy != x) dag_array_free(copy);
}
/* Whether out shares no element with x, else logged: for an output and an input the operation also
   writes (gesv's A and B: a factor and a solution in one place) or that a factor reads while the
   output is written (the factor's A in qr_ormqr). */
static bool dag__apart(dag_array *x, dag_array *out, const char *who, const char *xname, const char *outname) {
    if (!x || !out || !dag__rects_overlap(dag__rect_of(x), dag__rect_of(out))) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s shares elements with %s (one array, or views of one that "
            "overlap): pass a copy of %s", who, outname, xname, outname);
    return false;
}
static const dag_blocks dag__any_tiling = { 0, 0, 0, 0 };

/* x as an operation takes it: x itself when it has tiles (an array, or a view with its corner on a tile
   boundary) of want's size on want's grid (want.rows 0: any); else a new array of x's shape in want's
   tiles (x's when want's are 0) on want's grid (x's when 0), holding x's values when `read`. NULL for
   NULL, or no memory (logged). */
static dag_array *dag__operand(dag_array *x, dag_blocks want, bool read) {
    if (!x) return NULL;
    int64_t br = want.rows ? dag__imin(want.rows, x->rows) : x->brows, bc = want.cols ? dag__imin(want.cols, x->cols) : x->bcols;
    int p = want.grid_rows ? want.grid_rows : x->p, q = want.grid_cols ? want.grid_cols : x->q;
    if (x->handle && br == x->brows && bc == x->bcols && p == x->p && q == x->q) return x;
    dag_array *y = dag__array_new(x->type, x->rows, x->cols, dag_blocks_grid(br, bc, p, q), NULL, 0, false);
    dag_result r = !y ? DAG_ERR_OUT_OF_MEMORY : read ? dag__array_copy_any(x, y, 0, "dag_array (a copy in the tiles the "
                                                                                    "operation needs)") : DAG_OK;
    if (r != DAG_OK) {
        dag_array_free(y);
        dag__operand_error = r;
        return NULL;
    }
    return y;
}
/* After an operation on y, dag__operand's of x: y's values back into x if the operation wrote them (and
   r is DAG_OK), and y freed. Returns r, or the copy's error. */
static dag_result dag__operand_end(dag_array *x, dag_array *y, bool written, dag_result r) {
    if (!y || y == x) return r;
    if (written && r == DAG_OK) r = dag__array_copy_any(y, x, 0, "dag_array (a copy back from the operation's tiles)");
    dag_array_free(y);
    return r;
}
/* An operand that could not be made (no memory): the operation fails. */
static bool dag__operands_missing(const dag_array *x, const dag_array *y) { return (x && !y); }

/* >>element values: the one switch over element types, and the functions
   that write and read a value of any type */
/* M(C type, suffix) for a's element type: the kernels of dag_array_kernels.h
   are built once per type, named by the suffix (dag__array_fill_f64...). */
#define DAG__BY_ELEM(type, M)                   \
    do {                                        \
        switch (type) {                         \
        case DAG_F64: M(double, f64); break;    \
        case DAG_F32: M(float, f32); break;     \
        case DAG_I32: M(int32_t, i32); break;   \
        case DAG_I64: M(int64_t, i64); break;   \
        default: break; /* complex: callers */  \
        }                                       \
    } while (0)
static void dag__elem_put(dag_elem t, void *p, double v) {
#define DAG__PUT(T, SUFFIX) *(T *)p = (T)v
    /* into an integer, saturated and NaN as 0 (as axpy and scale do; C's conversion of a double out of
       range is undefined) */
    if (t == DAG_I32) *(int32_t *)p = v != v ? 0 : v <= -2147483648.0 ? INT32_MIN : v >= 2147483647.0 ? INT32_MAX : (int32_t)v;
    else if (t == DAG_I64)
        *(int64_t *)p = v != v ? 0 : v <= -9223372036854775808.0 ? INT64_MIN : v >= 9223372036854775807.0 ? INT64_MAX : (int64_t)v;
    else if (t == DAG_CF64) *(dag__cf64 *)p = (dag__cf64)v;   /* v + 0i */
    else if (t == DAG_CF32) *(dag__cf32 *)p = (dag__cf32)v;
    else DAG__BY_ELEM(t, DAG__PUT);
#undef DAG__PUT
}
/* A user kernel's argument: a tile or span of elements of type t, which the spawn checks against the
   parameter as it checks In(p) of a typed pointer, so that a kernel of doubles given an int64 array is
   refused by name (registered data carries only its element size); complex: the size alone. */
static dag_arg dag__typed_arg(dag_arg a, dag_elem t) {
    int tag = 0;
#define DAG__TAG(T, SUFFIX) tag = DAG__REF_TAG((T *)0)
    DAG__BY_ELEM(t, DAG__TAG);
#undef DAG__TAG
    return dag__arg_elem(a, tag);
}
/* a complex element: its real part (C's conversion; the operations that would lose the imaginary part
   refuse complex arrays) */
static double dag__elem_get(dag_elem t, const void *p) {
    if (t == DAG_CF64) return __builtin_creal(*(const dag__cf64 *)p);
    if (t == DAG_CF32) return (double)__builtin_crealf(*(const dag__cf32 *)p);
    double v = 0;
#define DAG__GET(T, SUFFIX) v = (double)*(const T *)p
    DAG__BY_ELEM(t, DAG__GET);
#undef DAG__GET
    return v;
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

enum { DAG__FILL_VALUE = 1, DAG__FILL_RAND, DAG__FILL_RANDN, DAG__FILL_DIAGONAL /* value on the diagonal, 0 off it */ };
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

/* A complex tile, on the CPU: value + 0i; rand: real and imaginary parts each uniform in [0, 1); randn:
   each normal with variance 1/2 (a standard complex normal, Julia's randn(ComplexF64)). The real part
   takes the real types' generator streams, the imaginary part two more. */
DAG_TASK(void, dag__array_fillc_tile, (void *, t), (int64_t, ld), (int, type), (int, how), (double, value),
         (int64_t, r0), (int64_t, c0), (int64_t, rows), (int64_t, cols), (uint64_t, seed)) {
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double re = how == DAG__FILL_DIAGONAL && r0 + i != c0 + j ? 0 : value, im = 0;
            if (how == DAG__FILL_RAND) {
                re = dag__uniform(seed, r0 + i, c0 + j, 0), im = dag__uniform(seed, r0 + i, c0 + j, 2);
            } else if (how == DAG__FILL_RANDN) {
                double u1 = 1.0 - dag__uniform(seed, r0 + i, c0 + j, 0), u2 = dag__uniform(seed, r0 + i, c0 + j, 1);
                double r = sqrt(-log(u1));   /* sqrt(-2 log u1) scaled by sqrt(1/2) */
                re = r * cos(6.283185307179586 * u2), im = r * sin(6.283185307179586 * u2);
            }
            size_t at = (size_t)(i + j * ld);
            if (type == DAG_CF64) {
                double *e = (double *)t + 2 * at;
                e[0] = re, e[1] = im;
            } else {
                float *e = (float *)t + 2 * at;
                e[0] = (float)re, e[1] = (float)im;
            }
        }
}

static void dag__tile_fill(const dag_options *o, dag_elem type, int how, double value, uint64_t seed, int64_t r0,
                                  int64_t c0, int64_t rows, int64_t cols, dag_data t) {
    if (dag__complex(type)) {
        dag_spawn_with(DAG__NAMED(o, "fill"), dag__array_fillc_tile, Out(t), Ld(t), Val((int)type), Val(how), Val(value),
                       Val(r0), Val(c0), Val(rows), Val(cols), Val(seed));
        return;
    }
#define DAG__FILL_SPAWN(T, SUFFIX)                                                                                       \
    dag_spawn_with(DAG__NAMED(o, "fill"), DAG_LAUNCH(dag__array_fill_##SUFFIX, rows * cols), Val(how), Val(value), Val((unsigned long)seed), \
                   Val((long)r0), Val((long)c0), Val((long)rows), Val((long)rows), Out(t))
    DAG__BY_ELEM(type, DAG__FILL_SPAWN);
#undef DAG__FILL_SPAWN
}

/* Fills a's tiles (an array of its own, contiguous tiles) by `how`. */
static dag_result dag__fill_tiles(const dag__array_where *where, dag_array *a, int how, double value, uint64_t seed) {
    dag_elem type = a->type;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c;
                dag_array_tile_size(a, i, j, &r, &c);
                if (how == DAG__FILL_RANDN && !dag__complex(type))
                    dag_spawn_with(DAG__NAMED(&where->cpu, "randn"), dag__array_randn_tile, Out(a->handle[i + j * a->mt]), Val((int)type),
                                   Val(i * a->brows), Val(j * a->bcols), Val(r), Val(c), Val(seed));
                else if (how == DAG__FILL_RAND && (type == DAG_I32 || type == DAG_I64))
                    dag_spawn_with(DAG__NAMED(&where->cpu, "rand"), dag__array_randi_tile, Out(a->handle[i + j * a->mt]), Val((int)type),
                                   Val(i * a->brows), Val(j * a->bcols), Val(r), Val(c), Val(seed));
                else
                    dag__tile_fill(dag__tile_where(where, i, j), type, how, value, seed, i * a->brows, j * a->bcols, r, c,
                                   a->handle[i + j * a->mt]);
            }
    }
    return dag_last_region_result();
}

/* A value the program gives for an element: an integer type refuses (logged) what it cannot hold, a
   fraction or NaN included (Julia's InexactError; C's conversion would round, or be undefined). */
static bool dag__elem_holds(dag_elem type, double v, const char *who) {
    bool fits = type == DAG_I32   ? v > -2147483649.0 && v < 2147483648.0
                : type == DAG_I64 ? v >= -9223372036854775808.0 && v < 9223372036854775808.0
                                  : true;
    bool integer = type == DAG_I32 || type == DAG_I64, whole = fits && (!integer || v == trunc(v));
    if (!fits || !whole)
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %.17g %s %s", who, v,
                !fits ? "does not fit in" : "is not a whole number, so it does not go into", type == DAG_I32 ? "DAG_I32" : "DAG_I64");
    return whole;
}
static dag_array *dag__array_filled(const char *who, dag_elem type, int64_t rows, int64_t cols, dag_blocks b, int how,
                                    double value, uint64_t seed) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status || (how == DAG__FILL_VALUE && !dag__elem_holds(type, value, who))) return NULL;
    if (dag__complex(type)) where.devices = 0;   /* dag__array_where_for */
    dag_array *a = dag__array_new(type, rows, cols, b, NULL, 0, false);
    if (a && dag__fill_tiles(&where, a, how, value, seed) != DAG_OK) {
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
dag_array *dag_array_identity(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_filled("dag_array_identity", type, rows, cols, b, DAG__FILL_DIAGONAL, 1.0, 0);
}

/* >>host copies: a tile to or from a host matrix (to_tile: into the tile) */
DAG_TASK(void, dag__array_copy_tile, (void *, t), (int64_t, tld), (void *, host), (int64_t, rows), (int64_t, cols),
         (int64_t, ld), (int, row_major), (int, elem), (int, to_tile)) {
    if (!host || row_major < 0) {   /* over ranks: this rank's matrix is missing or refused, and the others go on (see below) */
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_array: %s on rank %d",
                 !host ? "no host memory" : "a bad layout or a leading dimension under the array's", dag_rank());
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
static dag_result dag__host_copy_tiles(dag_array *a, void *host, dag_layout layout, int64_t ld, int to_tile, int rank,
                                       const char *who) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return where.status;
    /* this rank's host matrix takes part: only there do its memory, layout and ld mean something */
    bool here = rank < 0 || rank == dag_rank();
    int64_t inner = a ? (layout == DAG_COL_MAJOR ? a->rows : a->cols) : 0, outer = a ? a->rows + a->cols - inner : 0;
    /* (an ld whose last element's offset would not fit in a pointer's range: the copies overflowed it) */
    bool past_memory = outer > 1 && ld > (int64_t)(PTRDIFF_MAX / (ptrdiff_t)a->elem - inner) / (outer - 1);
    bool bad_shape = a && here && ((layout != DAG_COL_MAJOR && layout != DAG_ROW_MAJOR) || ld < inner || past_memory);
    if (!a || rank >= dag_num_ranks() || (here && (!host || bad_shape))) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s (layout %d, ld %lld, rank %d of %d)", who,
                !a ? "no array" : rank >= dag_num_ranks() ? "no such rank" : !host ? "no host memory"
                : past_memory ? "a leading dimension so large the matrix would not fit in memory"
                : "a bad layout or a leading dimension under the array's", (int)layout, (long long)ld, rank,
                dag_num_ranks());
        /* over ranks a rank's own mistake must not keep it out of the collective spawns: its copies fail there */
        if (!a || rank >= dag_num_ranks() || !dag__ranks()) return DAG_ERR_INVALID_ARGUMENT;
    }
    if (rank >= 0) where.cpu.scope.rank = DAG_RANK(rank);
    int row_major = bad_shape ? -1 : layout == DAG_ROW_MAJOR;
    DAG_DATADEPS {
        for (int64_t j = 0; j < a->nt; j++)
            for (int64_t i = 0; i < a->mt; i++) {
                int64_t r, c, r0 = i * a->brows, c0 = j * a->bcols;
                dag_array_tile_size(a, i, j, &r, &c);
                void *h = !here ? NULL   /* (a missing or refused matrix: the copy says so, as it fails) */
                          : !host || row_major < 0 ? host : (char *)host + (size_t)(row_major ? r0 * ld + c0 : r0 + c0 * ld) * a->elem;
                dag_arg tile = dag_arg_data(!to_tile ? DAG_ACCESS_IN : a->base ? DAG_ACCESS_INOUT : DAG_ACCESS_OUT,   /* a view: a part */
                                             a->handle[i + j * a->mt]);
                dag_spawn_with(DAG__NAMED(&where.cpu, "copy"), dag__array_copy_tile, tile, Val(dag__ld(a, i)), Val(h), Val(r), Val(c), Val(ld),
                               Val(row_major), Val((int)a->elem), Val(to_tile));
            }
    }
    return dag_last_region_result();
}

/* The same for any array or view. */
static dag_result dag__array_host_copy(dag_array *a, void *host, dag_layout layout, int64_t ld, int to_tile, int rank,
                                       const char *who) {
    dag_array *t = dag__operand(a, dag__any_tiling, !to_tile);
    if (dag__operands_missing(a, t)) return dag__no_operand();
    return dag__operand_end(a, t, to_tile, dag__host_copy_tiles(t, host, layout, ld, to_tile, rank, who));
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


/* The element-wise operations on a complex tile, on the CPU: dag_array_kernels.h's, in the type's
   arithmetic (alpha and the value real, as for every type). */
#define DAG__EWC(T)                                                                                                  \
    for (int64_t j = 0; j < cols; j++)                                                                               \
        for (int64_t i = 0; i < rows; i++) {                                                                         \
            T *zi = (T *)z + (size_t)(i + j * zld), a = x ? ((const T *)x)[(size_t)(i + j * xld)] : (T)0;            \
            *zi = op == DAG__EW_ADD ? a + *zi : op == DAG__EW_SUB ? a - *zi : op == DAG__EW_MUL ? a * *zi            \
                : op == DAG__EW_AXPY ? (T)alpha * a + *zi : op == DAG__EW_SCALE ? (T)alpha * *zi                     \
                : op == DAG__EW_SET ? (T)alpha : a;                                                                  \
        }
DAG_TASK(void, dag__array_ewc_tile, (int, type), (int, op), (double, alpha), (int64_t, rows), (int64_t, cols),
         (const void *, x), (int64_t, xld), (void *, z), (int64_t, zld)) {
    if (type == DAG_CF64) DAG__EWC(dag__cf64)
    else DAG__EWC(dag__cf32)
}
#undef DAG__EWC

/* One tile's element-wise kernel: z = x op z, or z = op(z) with no x (the
   tiles rows x cols; Ld gives the kernel their leading dimensions). */
static void dag__tile_ew(const dag_options *o, dag_elem type, int op, double alpha, int64_t rows, int64_t cols,
                         dag_data x, dag_data z) {
    int64_t n = rows * cols;
    if (dag__complex(type)) {   /* o is the CPU's: dag__array_where_for */
        const void *none = NULL;
        if (x.id)
            dag_spawn_with(DAG__NAMED(o, "map"), dag__array_ewc_tile, Val((int)type), Val(op), Val(alpha), Val(rows),
                           Val(cols), In(x), Ld(x), InOut(z), Ld(z));
        else
            dag_spawn_with(DAG__NAMED(o, "map"), dag__array_ewc_tile, Val((int)type), Val(op), Val(alpha), Val(rows),
                           Val(cols), Val(none), Val((int64_t)0), InOut(z), Ld(z));
        return;
    }
#define DAG__EW_SPAWN(T, SUFFIX)                                                                                         \
    (x.id ? dag_spawn_with(DAG__NAMED(o, "map"), DAG_LAUNCH(dag__array_ew2_##SUFFIX, n), Val(op), Val(alpha), Val((long)rows), In(x),    \
                           Ld(x), InOut(z), Ld(z))                                                                    \
          : dag_spawn_with(DAG__NAMED(o, "map"), DAG_LAUNCH(dag__array_ew1_##SUFFIX, n), Val(op), Val(alpha), Val((long)rows), InOut(z), \
                           Ld(z)))
    DAG__BY_ELEM(type, DAG__EW_SPAWN);
#undef DAG__EW_SPAWN
}

/* c = a op b for each tile; b is c's old value (copied in when c is a third array) */
static dag_result dag__elementwise_tiles(int op, const char *name, double alpha, dag_array *a, dag_array *b, dag_array *c) {
    dag__array_where where = dag__array_where_for(name, c);
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
/* The same on any arrays or views of one shape, or a or b one row, column or element of c's shape
   (repeated: >>broadcasting): a and b in c's tiles (copies where they differ). */
static bool dag__fits(const dag_array *x, const dag_array *like);
static dag_array *dag__broadcast(dag_array *x, dag_array *like);
static dag_result dag__array_elementwise(int op, const char *name, double alpha, dag_array *a, dag_array *b, dag_array *c) {
    /* an input that is c's elements through another view is c (what follows tells them apart by pointer:
       c's old values are read, not copied over first) */
    if (a && a != c && dag__same_elements(a, c)) {
        if (b == a) b = c;
        a = c;
    }
    if (b && b != c && dag__same_elements(b, c)) b = c;
    dag_array *a1 = dag__unaliased(a, c, true, name), *b1 = b == a ? a1 : dag__unaliased(b, c, true, name);
    if (a1 != a || b1 != b) {   /* an input overlaps c without being it: as a copy */
        dag_result r = (a && !a1) || (b && !b1) ? dag__no_operand() : dag__array_elementwise(op, name, alpha, a1, b1, c);
        dag__unaliased_end(a, a1);
        if (b != a) dag__unaliased_end(b, b1);
        return r;
    }
    dag_array **repeat = a && a != c && dag__fits(a, c) && (a->rows != c->rows || a->cols != c->cols) ? &a
                         : b && b != c && dag__fits(b, c) && (b->rows != c->rows || b->cols != c->cols) ? &b : NULL;
    if (repeat) {
        dag_array *x = *repeat, *full = dag__broadcast(x, c);
        *repeat = full;
        dag_result r = full ? dag__array_elementwise(op, name, alpha, a, b == x ? full : b, c) : DAG_ERR_OUT_OF_MEMORY;
        dag_array_free(full);
        return r;
    }
    if (!c || (a && (a->rows != c->rows || a->cols != c->cols || a->type != c->type)) ||
        (b && (b->rows != c->rows || b->cols != c->cols || b->type != c->type)))
        return dag__elementwise_tiles(op, name, alpha, a, b, c);   /* it says what is wrong */
    bool read = op != DAG__EW_SET && !(b && b != c && a != c);   /* c's values count */
    dag_array *c2 = dag__operand(c, dag__any_tiling, read);
    dag_array *a2 = a == c ? c2 : dag__operand(a, c2 ? dag__tiling_of(c2) : dag__any_tiling, true);
    dag_array *b2 = b == c ? c2 : b == a ? a2 : dag__operand(b, c2 ? dag__tiling_of(c2) : dag__any_tiling, true);
    dag_result r = dag__operands_missing(c, c2) || dag__operands_missing(a, a2) || dag__operands_missing(b, b2)
                       ? dag__no_operand() : dag__elementwise_tiles(op, name, alpha, a2, b2, c2);
    if (a != c) dag__operand_end(a, a2, false, r);
    if (b != c && b != a) dag__operand_end(b, b2, false, r);
    return dag__operand_end(c, c2, true, r);
}
/* An input the caller passed as NULL, refused by name (inside, a NULL input is a one-input form). */
static bool dag__inputs_given(const char *who, const dag_array *a, const char *a_name, const dag_array *b, const char *b_name) {
    if (a && b) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, !a ? a_name : b_name);
    return false;
}
dag_result dag_array_add(dag_array *a, dag_array *b, dag_array *c) {
    if (!dag__inputs_given("dag_array_add", a, "a", b, "b")) return DAG_ERR_INVALID_ARGUMENT;
    return dag__array_elementwise(DAG__EW_ADD, "dag_array_add", 0, a, b, c);
}
dag_result dag_array_sub(dag_array *a, dag_array *b, dag_array *c) {
    if (!dag__inputs_given("dag_array_sub", a, "a", b, "b")) return DAG_ERR_INVALID_ARGUMENT;
    return dag__array_elementwise(DAG__EW_SUB, "dag_array_sub", 0, a, b, c);
}
dag_result dag_array_mul(dag_array *a, dag_array *b, dag_array *c) {
    if (!dag__inputs_given("dag_array_mul", a, "a", b, "b")) return DAG_ERR_INVALID_ARGUMENT;
    return dag__array_elementwise(DAG__EW_MUL, "dag_array_mul", 0, a, b, c);
}
dag_result dag_array_scale(double alpha, dag_array *a) {
    return dag__array_elementwise(DAG__EW_SCALE, "dag_array_scale", alpha, NULL, NULL, a);
}
dag_result dag_array_axpy(double alpha, dag_array *x, dag_array *y) {
    if (!dag__inputs_given("dag_array_axpy", x, "x", y, "y")) return DAG_ERR_INVALID_ARGUMENT;
    return dag__array_elementwise(DAG__EW_AXPY, "dag_array_axpy", alpha, x, NULL, y);
}
dag_result dag_array_set(dag_array *a, double value) {
    if (a && !dag__elem_holds(a->type, value, "dag_array_set")) return DAG_ERR_INVALID_ARGUMENT;
    return dag__array_elementwise(DAG__EW_SET, "dag_array_set", value, NULL, NULL, a);
}

static dag_result dag__map_tiles(const dag_task_desc *kernel, dag_array *in, dag_array *out) {
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
            dag_access out_mode = in == out || out->base ? DAG_ACCESS_INOUT : DAG_ACCESS_OUT;   /* in place, or a view's part */
            if (in_ld == r && out_ld == r) {   /* contiguous tiles: one launch over the tile */
                dag_arg args[3] = { DAG_VAL((size_t)(r * c)), dag__typed_arg(In(in->handle[t]), in->type),
                                    dag__typed_arg(dag_arg_data(out_mode, out->handle[t]), out->type) };
                dag_spawn_desc(kernel, args, 3, o);
                continue;
            }
            /* a view of a wrapped matrix: the kernel sees contiguous elements, so one launch per column, of
               plain spans, which every rank would run on its own matrix: over ranks, on the tile's owner */
            dag_options owner = *o;
            if (dag__ranks()) owner.scope.rank = DAG_RANK(dag__tile_rank(out, i, t / out->mt));
            for (int64_t col = 0; col < c; col++) {
                dag_arg args[3] = { DAG_VAL((size_t)r),
                                    dag__typed_arg(dag_arg_span(DAG_ACCESS_IN, (char *)in->tile[t] +
                                                                (size_t)(col * in_ld) * in->elem, (size_t)r, in->elem),
                                                   in->type),
                                    dag__typed_arg(dag_arg_span(out_mode, (char *)out->tile[t] +
                                                                (size_t)(col * out_ld) * out->elem, (size_t)r, out->elem),
                                                   out->type) };
                dag_spawn_desc(kernel, args, 3, &owner);
            }
        }
    }
    return dag_last_region_result();
}

/* The same on any arrays or views of one shape: in in out's tiles. */
dag_result dag_array_map_desc(const dag_task_desc *kernel, dag_array *in, dag_array *out) {
    if (!in || !out || in->rows != out->rows || in->cols != out->cols || in->type != out->type)
        return dag__map_tiles(kernel, in, out);
    dag_array *in1 = in == out ? in : dag__unaliased(in, out, true, "dag_array_map");   /* overlapping views: a copy */
    if (!in1) return dag__no_operand();
    dag_array *out2 = dag__operand(out, dag__any_tiling, in == out);
    dag_array *in2 = in == out ? out2 : dag__operand(in1, out2 ? dag__tiling_of(out2) : dag__any_tiling, true);
    dag_result r = !in2 || !out2 ? dag__no_operand() : dag__map_tiles(kernel, in2, out2);
    if (in != out) dag__operand_end(in1, in2, false, r);
    dag__unaliased_end(in, in1);
    return dag__operand_end(out, out2, true, r);
}

/* >>reductions: each tile's part, then pairs combined by tasks */
enum { DAG__RED_SUM = 1, DAG__RED_MIN, DAG__RED_MAX, DAG__RED_DOT, DAG__RED_SQUARES };
/* A tile's DAG__PARTS parts (made by dag_array_kernels.h's kernels, on the
   CPU or a device) reduced into the tree's leaf. */
#define DAG__PARTS 64
/* min, max (a NaN wins, as in Julia's minimum and maximum) or sum of x and y */
static double dag__reduce_pair(int op, double x, double y) {
    return op == DAG__RED_MIN ? (y < x || y != y ? y : x) : op == DAG__RED_MAX ? (y > x || y != y ? y : x) : x + y;
}
DAG_TASK(double, dag__parts_reduce, (int, op), (const double *, part)) {
    double s = part[0];
    for (int k = 1; k < DAG__PARTS; k++) s = dag__reduce_pair(op, s, part[k]);
    return s;
}
DAG_TASK(double, dag__combine, (int, op), (double, x), (double, y)) { return dag__reduce_pair(op, x, y); }

/* norm2's part of a complex tile, on the CPU: the sum of |x|^2 in part[0], the other parts 0 */
DAG_TASK(void, dag__array_redc_tile, (int, type), (int64_t, rows), (int64_t, cols), (const void *, x), (int64_t, xld),
         (double *, part)) {
    double s = 0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            size_t at = 2 * (size_t)(i + j * xld);   /* the real part, then the imaginary */
            double re = type == DAG_CF64 ? ((const double *)x)[at] : ((const float *)x)[at];
            double im = type == DAG_CF64 ? ((const double *)x)[at + 1] : ((const float *)x)[at + 1];
            s += re * re + im * im;
        }
    part[0] = s;
    for (int k = 1; k < DAG__PARTS; k++) part[k] = 0;
}

static void dag__tile_reduce(const dag_options *o, dag_elem type, int op, int64_t rows, int64_t cols, dag_data x,
                             dag_data y, dag_data parts) {
    long n = (long)(rows * cols);
    if (dag__complex(type)) {   /* norm2 alone (dag__reduce_tiles); o is the CPU's */
        dag_spawn_with(DAG__NAMED(o, "reduce"), dag__array_redc_tile, Val((int)type), Val(rows), Val(cols), In(x), Ld(x),
                       Out(parts));
        return;
    }
#define DAG__RED_SPAWN(T, SUFFIX)                                                                                        \
    (y.id ? dag_spawn_with(DAG__NAMED(o, "reduce"), DAG_LAUNCH(dag__array_red2_##SUFFIX, DAG__PARTS), Val(n), Val((long)rows), In(x),       \
                           Ld(x), In(y), Ld(y), Out(parts))                                                           \
          : dag_spawn_with(DAG__NAMED(o, "reduce"), DAG_LAUNCH(dag__array_red1_##SUFFIX, DAG__PARTS), Val(op), Val(n), Val((long)rows),     \
                           In(x), Ld(x), Out(parts)))
    DAG__BY_ELEM(type, DAG__RED_SPAWN);
#undef DAG__RED_SPAWN
}

static dag_result dag__reduce_tiles(int op, const char *name, dag_array *a, dag_array *b, double *out) {
    dag__array_where where = dag__array_where_for(name, a);
    if (where.status) return where.status;
    if (op != DAG__RED_SQUARES &&
        !dag__not_complex(a, name, op == DAG__RED_MIN || op == DAG__RED_MAX ? "complex numbers have no order"
                                   : "its result is complex, and this one is a double: dag_array_reduce_dims(DAG_OP_SUM, "
                                     "a, 0, 0.0) gives it as a 1 x 1 array (for dot, of dag_array_mul's product)"))
        return DAG_ERR_INVALID_ARGUMENT;
    if (!out || !a || (b && !dag__array_same(a, b, name))) {
        if (!out || !a) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name, !a ? "the array" : "out");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t tiles = a->mt * a->nt, passed = 0;
    /* the tree's tasks: part[t] the one whose result stands for tiles t on, then those whose results went
       on to a combine (a Fut leaves its result kept: each is released once the tree is done) */
    dag_task *part = (dag_task *)DAG_MALLOC(sizeof *part * (size_t)(3 * tiles));
    dag_task *passed_on = part + tiles;
    /* each tile's parts: a registered buffer of DAG__PARTS doubles */
    double *parts = (double *)DAG_MALLOC(sizeof(double) * DAG__PARTS * (size_t)tiles);
    dag_data *parts_h = (dag_data *)dag__array_zalloc((size_t)tiles, sizeof *parts_h);
    if (!part || !parts || !parts_h) {
        DAG_FREE(part), DAG_FREE(parts), DAG_FREE(parts_h);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    int combine = op == DAG__RED_DOT || op == DAG__RED_SQUARES ? DAG__RED_SUM : op;
    dag_result r = DAG_OK;
    double value = 0;   /* out is written only when every task went well: a refused spawn's readers ran on */
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
            for (int64_t t = 0; t + step < tiles; t += 2 * step) {
                passed_on[passed++] = part[t];
                passed_on[passed++] = part[t + step];
                part[t] = dag_spawn_with(DAG__NAMED(&where.cpu, "reduce"), dag__combine, Val(combine), Fut(part[t]), Fut(part[t + step]));
            }
        r = dag_fetch(part[0], &value);
    }
    for (int64_t k = 0; k < passed; k++) dag_release(passed_on[k]);
    for (int64_t t = 0; t < tiles; t++)
        if (parts_h[t].id) dag_data_unregister(parts_h[t]);
    DAG_FREE(part), DAG_FREE(parts), DAG_FREE(parts_h);
    dag_result region = dag_last_region_result();   /* over ranks, the same on every rank (a fetch's may not be) */
    if (region != DAG_OK) r = region;
    if (r == DAG_OK) *out = op == DAG__RED_SQUARES ? sqrt(value) : value;
    return r;
}
/* The same on any arrays or views of one shape: b in a's tiles. */
static dag_result dag__array_reduce(int op, const char *name, dag_array *a, dag_array *b, double *out) {
    if (!a || (b && (b->rows != a->rows || b->cols != a->cols || b->type != a->type)))
        return dag__reduce_tiles(op, name, a, b, out);
    dag_array *a2 = dag__operand(a, dag__any_tiling, true);
    dag_array *b2 = b == a ? a2 : dag__operand(b, a2 ? dag__tiling_of(a2) : dag__any_tiling, true);
    dag_result r = !a2 || dag__operands_missing(b, b2) ? dag__no_operand() : dag__reduce_tiles(op, name, a2, b2, out);
    if (b != a) dag__operand_end(b, b2, false, r);
    return dag__operand_end(a, a2, false, r);
}
dag_result dag_array_sum(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_SUM, "dag_array_sum", a, NULL, out); }
dag_result dag_array_min(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_MIN, "dag_array_min", a, NULL, out); }
dag_result dag_array_max(dag_array *a, double *out) { return dag__array_reduce(DAG__RED_MAX, "dag_array_max", a, NULL, out); }
dag_result dag_array_dot(dag_array *a, dag_array *b, double *out) {
    return dag__array_reduce(DAG__RED_DOT, "dag_array_dot", a, b, out);
}
dag_result dag_array_norm2(dag_array *a, double *out) {
    dag_result r = dag__array_reduce(DAG__RED_SQUARES, "dag_array_norm2", a, NULL, out);
    if (r != DAG_OK || (a->type != DAG_F64 && a->type != DAG_CF64) || !(isinf(*out) || *out < ldexp(1.0, -500))) return r;
    /* The squares of doubles overflowed, or went below the normal range (floats' squares, summed in double,
       never do): again on a copy scaled by a power of two (exact), then scaled back, as LAPACK's dnrm2
       scales. What a scaling down flushes to zero is below the result's last digit. */
    double scale = isinf(*out) ? ldexp(1.0, -600) : ldexp(1.0, 600);
    dag_array *c = dag_array_similar(a);
    r = !c ? DAG_ERR_OUT_OF_MEMORY : dag_array_copy(a, c);
    if (r == DAG_OK) r = dag_array_scale(scale, c);
    if (r == DAG_OK) r = dag__array_reduce(DAG__RED_SQUARES, "dag_array_norm2", c, NULL, out);
    if (r == DAG_OK) *out /= scale;
    dag_array_free(c);
    return r;
}

/* >>copy and transpose between tilings (and views): dag__array_copy_any, a task per pair of overlapping tiles */
dag_result dag_array_copy(dag_array *src, dag_array *dst) { return dag__array_copy_any(src, dst, 0, "dag_array_copy"); }
dag_result dag_array_transpose(dag_array *src, dag_array *dst) {
    return dag__array_copy_any(src, dst, 1, "dag_array_transpose");
}

/* >>tile kernels: column-major, each for double and float. With
   DAG_ARRAY_CBLAS they are cblas/LAPACKE calls; without, plain loops
   written once for both types (DAG__LA_KERNELS below). */
#if defined(DAG_ARRAY_CBLAS)
#define DAG__CBLAS_T(t) ((t) ? CblasTrans : CblasNoTrans)
#define DAG__CBLAS_H(t) ((t) ? CblasConjTrans : CblasNoTrans)   /* complex: op(X) = X^H */
#endif
/* For complex tiles op(X) with trans = 1 is the conjugate transpose X^H (LAPACK's 'C'), so the same
   tile algorithms are the Hermitian ones: L L^H, Q^H. CONJ and RE below are the identity for reals. */
#define DAG__SAME(x) (x)

/* The loops (unused ones are the cblas build's). trsv solves op(A) x = b
   for one vector x (stride inc), A n x n triangular: the built-in trsm's
   building block, both sides. */
#define DAG__LA_KERNELS(T, P, CONJ, RE)                                                                            \
    DAG__UNUSED static void dag__##P##gemm_loops(int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
                                     int ldb, T beta, T *c, int ldc) {                                             \
        for (int j = 0; j < n; j++) {                                                                               \
            T *cj = c + (size_t)j * ldc;                                                                            \
            for (int i = 0; i < m; i++) cj[i] = beta == 0 ? 0 : beta * cj[i];                                       \
            for (int l = 0; l < k; l++) {                                                                           \
                T blj = alpha * (tb ? CONJ(b[j + (size_t)l * ldb]) : b[l + (size_t)j * ldb]);                       \
                if (ta)                                                                                             \
                    for (int i = 0; i < m; i++) cj[i] += CONJ(a[l + (size_t)i * lda]) * blj;                        \
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
                T aip = trans ? CONJ(a[p + (size_t)i * lda]) : a[i + (size_t)p * lda];                              \
                v -= aip * x[(size_t)p * inc];                                                                      \
            }                                                                                                       \
            x[(size_t)i * inc] = unit ? v : v / (trans ? CONJ(a[i + (size_t)i * lda]) : a[i + (size_t)i * lda]);    \
        }                                                                                                           \
    }                                                                                                               \
    /* b = alpha op(a)^-1 b (left) or alpha b op(a)^-1 (right); b m x n */                                          \
    DAG__UNUSED static void dag__##P##trsm_loops(int right, int upper, int trans, int unit, int m, int n, T alpha, const T *a,  \
                                     int lda, T *b, int ldb) {                                                      \
        for (int j = 0; j < n; j++) /* alpha 0: B = 0, not read (BLAS's rule: NaNs there go) */                  \
            for (int r = 0; r < m; r++) b[r + (size_t)j * ldb] = alpha == (T)0 ? (T)0 : b[r + (size_t)j * ldb] * alpha; \
        if (alpha == (T)0) return;                                                                                  \
        if (!right)                                                                                                 \
            for (int j = 0; j < n; j++) dag__##P##trsv(upper, trans, unit, m, a, lda, b + (size_t)j * ldb, 1);      \
        else /* x op(a) = b: op(a)^H conj(x)^T = conj(b)^T (op(a)^T x^T = b^T for reals), a row at a time */       \
            for (int r = 0; r < m; r++) {                                                                           \
                for (int j = 0; j < n; j++) b[r + (size_t)j * ldb] = CONJ(b[r + (size_t)j * ldb]);                  \
                dag__##P##trsv(upper, !trans, unit, n, a, lda, b + r, (size_t)ldb);                                 \
                for (int j = 0; j < n; j++) b[r + (size_t)j * ldb] = CONJ(b[r + (size_t)j * ldb]);                  \
            }                                                                                                       \
    }                                                                                                               \
    /* lower Cholesky in place (A = L L^H): 0, or the 1-based column where it stops being positive definite */    \
    DAG__UNUSED static int dag__##P##potrf_loops(int n, T *a, int lda) {                                                        \
        for (int j = 0; j < n; j++) {                                                                               \
            T d = a[j + (size_t)j * lda];                                                                           \
            for (int p = 0; p < j; p++) d -= a[j + (size_t)p * lda] * CONJ(a[j + (size_t)p * lda]);                 \
            if (!(RE(d) > 0)) return j + 1; /* also NaN */                                                          \
            d = (T)sqrt((double)RE(d));                                                                             \
            a[j + (size_t)j * lda] = d;                                                                             \
            for (int i = j + 1; i < n; i++) {                                                                       \
                T s = a[i + (size_t)j * lda];                                                                       \
                for (int p = 0; p < j; p++) s -= a[i + (size_t)p * lda] * CONJ(a[j + (size_t)p * lda]);             \
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
DAG__LA_KERNELS(double, d, DAG__SAME, DAG__SAME)
DAG__LA_KERNELS(float, s, DAG__SAME, DAG__SAME)
DAG__LA_KERNELS(dag__cf64, z, __builtin_conj, __builtin_creal)
DAG__LA_KERNELS(dag__cf32, c, __builtin_conjf, __builtin_crealf)
#undef DAG__LA_KERNELS

/* A packed copy (ld = rows) of a rows x cols block, for the built-in loops that need one; NULL after
   dag_fail when there is no memory. */
DAG__UNUSED static void *dag__packed_copy(int type, int rows, int cols, const void *src, int ld, const char *who) {
    size_t bytes = dag__elem_size((dag_elem)type);
    char *p = (char *)DAG_MALLOC(bytes * (size_t)rows * (size_t)cols);
    if (!p) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "%s: no memory for a %d x %d tile", who, rows, cols);
        return NULL;
    }
    for (int j = 0; j < cols; j++)
        memcpy(p + bytes * (size_t)j * (size_t)rows, (const char *)src + bytes * (size_t)j * (size_t)ld, bytes * (size_t)rows);
    return p;
}

/* One entry point per kernel, type-dispatched: F64, F32, CF64 or CF32 (the scalars real for every type;
   the complex routines take them as complex, imaginary part 0, or as real where BLAS does: herk). */
#define DAG__TO_Z(x) ((dag__cf64)(x))
#define DAG__TO_C(x) ((dag__cf32)(x))
static void dag__gemm(int type, int ta, int tb, int m, int n, int k, double alpha, const void *a, int lda,
                      const void *b, int ldb, double beta, void *c, int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    dag__cf64 za = DAG__TO_Z(alpha), zb = DAG__TO_Z(beta);
    dag__cf32 ca = DAG__TO_C(alpha), cb = DAG__TO_C(beta);
    if (type == DAG_F64)
        cblas_dgemm(CblasColMajor, DAG__CBLAS_T(ta), DAG__CBLAS_T(tb), m, n, k, alpha, (const double *)a, lda,
                    (const double *)b, ldb, beta, (double *)c, ldc);
    else if (type == DAG_F32)
        cblas_sgemm(CblasColMajor, DAG__CBLAS_T(ta), DAG__CBLAS_T(tb), m, n, k, (float)alpha, (const float *)a, lda,
                    (const float *)b, ldb, (float)beta, (float *)c, ldc);
    else if (type == DAG_CF64)
        cblas_zgemm(CblasColMajor, DAG__CBLAS_H(ta), DAG__CBLAS_H(tb), m, n, k, &za, a, lda, b, ldb, &zb, c, ldc);
    else
        cblas_cgemm(CblasColMajor, DAG__CBLAS_H(ta), DAG__CBLAS_H(tb), m, n, k, &ca, a, lda, b, ldb, &cb, c, ldc);
#else
    if (type == DAG_F64)
        dag__dgemm_loops(ta, tb, m, n, k, alpha, (const double *)a, lda, (const double *)b, ldb, beta, (double *)c, ldc);
    else if (type == DAG_F32)
        dag__sgemm_loops(ta, tb, m, n, k, (float)alpha, (const float *)a, lda, (const float *)b, ldb, (float)beta,
                         (float *)c, ldc);
    else if (type == DAG_CF64)
        dag__zgemm_loops(ta, tb, m, n, k, DAG__TO_Z(alpha), (const dag__cf64 *)a, lda, (const dag__cf64 *)b, ldb,
                         DAG__TO_Z(beta), (dag__cf64 *)c, ldc);
    else
        dag__cgemm_loops(ta, tb, m, n, k, DAG__TO_C(alpha), (const dag__cf32 *)a, lda, (const dag__cf32 *)b, ldb,
                         DAG__TO_C(beta), (dag__cf32 *)c, ldc);
#endif
}
/* c (lower) = alpha op(a) op(a)^T + beta c; c n x n, op(a) n x k (complex: op(a) op(a)^H, herk) */
static void dag__syrk(int type, int trans, int n, int k, double alpha, const void *a, int lda, double beta, void *c,
                      int ldc) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        cblas_dsyrk(CblasColMajor, CblasLower, DAG__CBLAS_T(trans), n, k, alpha, (const double *)a, lda, beta,
                    (double *)c, ldc);
    else if (type == DAG_F32)
        cblas_ssyrk(CblasColMajor, CblasLower, DAG__CBLAS_T(trans), n, k, (float)alpha, (const float *)a, lda,
                    (float)beta, (float *)c, ldc);
    else if (type == DAG_CF64)
        cblas_zherk(CblasColMajor, CblasLower, DAG__CBLAS_H(trans), n, k, alpha, a, lda, beta, c, ldc);
    else
        cblas_cherk(CblasColMajor, CblasLower, DAG__CBLAS_H(trans), n, k, (float)alpha, a, lda, (float)beta, c, ldc);
#else
    /* through gemm on the whole tile, keeping the upper triangle as it was */
    size_t bytes = dag__elem_size((dag_elem)type);
    void *keep = dag__packed_copy(type, n, n, c, ldc, "syrk");
    if (!keep) return;
    dag__gemm(type, trans, !trans, n, n, k, alpha, a, lda, a, lda, beta, c, ldc);
    for (int j = 1; j < n; j++)   /* rows above the diagonal of column j */
        memcpy((char *)c + bytes * (size_t)j * ldc, (char *)keep + bytes * (size_t)j * n, bytes * (size_t)j);
    DAG_FREE(keep);
#endif
}
static void dag__trsm_leaf(int type, int right, int upper, int trans, int unit, int m, int n, double alpha,
                           const void *a, int lda, void *b, int ldb) {
#if defined(DAG_ARRAY_CBLAS)
    dag__cf64 za = DAG__TO_Z(alpha);
    dag__cf32 ca = DAG__TO_C(alpha);
    if (type == DAG_F64)
        cblas_dtrsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_T(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, alpha, (const double *)a, lda, (double *)b, ldb);
    else if (type == DAG_F32)
        cblas_strsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_T(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, (float)alpha, (const float *)a, lda, (float *)b, ldb);
    else if (type == DAG_CF64)
        cblas_ztrsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_H(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, &za, a, lda, b, ldb);
    else
        cblas_ctrsm(CblasColMajor, right ? CblasRight : CblasLeft, upper ? CblasUpper : CblasLower, DAG__CBLAS_H(trans),
                    unit ? CblasUnit : CblasNonUnit, m, n, &ca, a, lda, b, ldb);
#else
    if (type == DAG_F64) dag__dtrsm_loops(right, upper, trans, unit, m, n, alpha, (const double *)a, lda, (double *)b, ldb);
    else if (type == DAG_F32) dag__strsm_loops(right, upper, trans, unit, m, n, (float)alpha, (const float *)a, lda, (float *)b, ldb);
    else if (type == DAG_CF64)
        dag__ztrsm_loops(right, upper, trans, unit, m, n, DAG__TO_Z(alpha), (const dag__cf64 *)a, lda, (dag__cf64 *)b, ldb);
    else dag__ctrsm_loops(right, upper, trans, unit, m, n, DAG__TO_C(alpha), (const dag__cf32 *)a, lda, (dag__cf32 *)b, ldb);
#endif
}
/* A triangular solve, its triangle split in halves down to DAG__TRSM_LEAF rows: most of the work becomes
   gemm, which BLAS runs at three times trsm's rate (OpenBLAS's dtrsm with a 256 x 256 triangle: 37 GFLOP/s
   on one core, its dgemm 108; split, 43: its small solves are slower still). The same operations as one
   trsm, in another order. op(A) is lower when upper == trans; its block off the diagonal is A21, or A12
   transposed, and the other way for upper. */
#define DAG__TRSM_LEAF 32
static void dag__trsm(int type, int right, int upper, int trans, int unit, int m, int n, double alpha, const void *a,
                      int lda, void *b, int ldb) {
    int t = right ? n : m, t1 = t / 2, t2 = t - t1;   /* the triangle's order, and its halves */
    if (t <= DAG__TRSM_LEAF || alpha == 0.0) {   /* (alpha 0: B = 0, A unread, as BLAS has it) */
        dag__trsm_leaf(type, right, upper, trans, unit, m, n, alpha, a, lda, b, ldb);
        return;
    }
    size_t e = dag__elem_size((dag_elem)type);
    const char *a11 = (const char *)a, *a21 = a11 + (size_t)t1 * e, *a12 = a11 + (size_t)t1 * (size_t)lda * e;
    const char *a22 = a12 + (size_t)t1 * e, *below = trans ? a12 : a21, *above = trans ? a21 : a12;
    char *b1 = (char *)b, *b2 = b1 + (size_t)t1 * (right ? (size_t)ldb : 1) * e;   /* rows (left) or columns (right) */
    bool lower = upper == trans;
    if (!right && lower) {   /* X1 = op(A11)^-1 B1, then B2 -= op(A)21 X1 */
        dag__trsm(type, 0, upper, trans, unit, t1, n, alpha, a11, lda, b1, ldb);
        dag__gemm(type, trans, 0, t2, n, t1, -1.0, below, lda, b1, ldb, alpha, b2, ldb);
        dag__trsm(type, 0, upper, trans, unit, t2, n, 1.0, a22, lda, b2, ldb);
    } else if (!right) {     /* X2 first, then B1 -= op(A)12 X2 */
        dag__trsm(type, 0, upper, trans, unit, t2, n, alpha, a22, lda, b2, ldb);
        dag__gemm(type, trans, 0, t1, n, t2, -1.0, above, lda, b2, ldb, alpha, b1, ldb);
        dag__trsm(type, 0, upper, trans, unit, t1, n, 1.0, a11, lda, b1, ldb);
    } else if (lower) {      /* X op(A) = B: X2 first, then B1 -= X2 op(A)21 */
        dag__trsm(type, 1, upper, trans, unit, m, t2, alpha, a22, lda, b2, ldb);
        dag__gemm(type, 0, trans, m, t1, t2, -1.0, b2, ldb, below, lda, alpha, b1, ldb);
        dag__trsm(type, 1, upper, trans, unit, m, t1, 1.0, a11, lda, b1, ldb);
    } else {                 /* X1 first, then B2 -= X1 op(A)12 */
        dag__trsm(type, 1, upper, trans, unit, m, t1, alpha, a11, lda, b1, ldb);
        dag__gemm(type, 0, trans, m, t2, t1, -1.0, b1, ldb, above, lda, alpha, b2, ldb);
        dag__trsm(type, 1, upper, trans, unit, m, t2, 1.0, a22, lda, b2, ldb);
    }
}
/* b = b m^T with m lower (n x n): with m = L^-1, the panel solve of the Cholesky (complex: b m^H) */
static void dag__trmm_rlt(int type, int rows, int n, const void *m, int ldm, void *b, int ldb) {
#if defined(DAG_ARRAY_CBLAS)
    dag__cf64 z1 = 1.0;
    dag__cf32 c1 = 1.0f;
    if (type == DAG_F64)
        cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, n, 1.0, (const double *)m,
                    ldm, (double *)b, ldb);
    else if (type == DAG_F32)
        cblas_strmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, n, 1.0f, (const float *)m,
                    ldm, (float *)b, ldb);
    else if (type == DAG_CF64)
        cblas_ztrmm(CblasColMajor, CblasRight, CblasLower, CblasConjTrans, CblasNonUnit, rows, n, &z1, m, ldm, b, ldb);
    else
        cblas_ctrmm(CblasColMajor, CblasRight, CblasLower, CblasConjTrans, CblasNonUnit, rows, n, &c1, m, ldm, b, ldb);
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
                      : type == DAG_F32 ? LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, (float *)a, lda)
                      : type == DAG_CF64 ? LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'L', n, (lapack_complex_double *)a, lda)
                                         : LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, 'L', n, (lapack_complex_float *)a, lda);
    /* reference LAPACK stops at a NaN on the diagonal too; OpenBLAS's potrf goes on: a NaN in A reaches
       the factor's diagonal at its column or before, so the first NaN there is where A stops being SPD */
    for (int j = 0; info == 0 && j < n; j++) {
        double re = dag__elem_get((dag_elem)type, (const char *)a + (size_t)j * (size_t)(lda + 1) * dag__elem_size((dag_elem)type));
        if (re != re) info = j + 1;
    }
    return info > 0 ? (int)info : 0;
#else
    return type == DAG_F64 ? dag__dpotrf_loops(n, (double *)a, lda) : type == DAG_F32 ? dag__spotrf_loops(n, (float *)a, lda)
           : type == DAG_CF64 ? dag__zpotrf_loops(n, (dag__cf64 *)a, lda) : dag__cpotrf_loops(n, (dag__cf32 *)a, lda);
#endif
}
/* the inverse of a lower triangle (n x n, upper part zero) in place */
static void dag__trtri(int type, int n, void *a, int lda) {
#if defined(DAG_ARRAY_CBLAS)
    /* By halves, [A 0; B C]^-1 = [A^-1 0; -C^-1 B A^-1 C^-1], so most of the work is two dtrmm: faster
       than OpenBLAS's dtrtri (bench/README.md), and it runs on the diagonal, the critical path. */
    if (n <= 64) {
        if (type == DAG_F64) LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (double *)a, lda);
        else if (type == DAG_F32) LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (float *)a, lda);
        else if (type == DAG_CF64) LAPACKE_ztrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (lapack_complex_double *)a, lda);
        else LAPACKE_ctrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, (lapack_complex_float *)a, lda);
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    size_t bytes = dag__elem_size((dag_elem)type);
    char *top = (char *)a, *below = top + bytes * (size_t)n1, *corner = below + bytes * (size_t)n1 * (size_t)lda;
    dag__trtri(type, n1, top, lda);
    dag__trtri(type, n2, corner, lda);
    dag__cf64 z1 = 1.0, zm1 = -1.0;
    dag__cf32 c1 = 1.0f, cm1 = -1.0f;
    if (type == DAG_F64) {
        cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, (double *)top, lda,
                    (double *)below, lda);
        cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, (double *)corner,
                    lda, (double *)below, lda);
    } else if (type == DAG_F32) {
        cblas_strmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0f, (float *)top, lda,
                    (float *)below, lda);
        cblas_strmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0f, (float *)corner,
                    lda, (float *)below, lda);
    } else if (type == DAG_CF64) {
        cblas_ztrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, &z1, top, lda, below, lda);
        cblas_ztrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, &zm1, corner, lda, below, lda);
    } else {
        cblas_ctrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, &c1, top, lda, below, lda);
        cblas_ctrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, &cm1, corner, lda, below, lda);
    }
#else
    /* solve L X = I column by column: X = L^-1, written over a through a copy of L */
    void *l = dag__packed_copy(type, n, n, a, lda, "trtri");
    if (!l) return;
    size_t bytes = dag__elem_size((dag_elem)type);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) dag__elem_put((dag_elem)type, (char *)a + bytes * ((size_t)i + (size_t)j * lda), i == j);
    dag__trsm(type, 0, 0, 0, 0, n, n, 1.0, l, n, a, lda);
    DAG_FREE(l);
#endif
}
static int dag__getrf(int type, int n, void *a, int lda) {   /* unpivoted: LAPACK has none, the loops serve both */
    return type == DAG_F64 ? dag__dgetrf_loops(n, (double *)a, lda) : type == DAG_F32 ? dag__sgetrf_loops(n, (float *)a, lda)
           : type == DAG_CF64 ? dag__zgetrf_loops(n, (dag__cf64 *)a, lda) : dag__cgetrf_loops(n, (dag__cf32 *)a, lda);
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
    size_t bytes = dag__elem_size((dag_elem)type);
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

/* An operand of linear algebra: a floating or complex array. (Every such operation comes through here,
   so OpenBLAS is told here to run one thread in each call: the tasks are the parallelism.) */
static bool dag__array_la(const dag_array *a, const char *op, const char *name) {
#if defined(DAG_ARRAY_CBLAS)
    DAG__BLAS_ONE_THREAD();
#endif
    if (a && (a->type == DAG_F64 || a->type == DAG_F32 || dag__complex(a->type))) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s is %s; linear algebra takes DAG_F64, DAG_F32, DAG_CF64 or "
            "DAG_CF32", op, name, a ? "an integer array" : "NULL");
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
    if (at.dev && dag__complex(type)) at.dev = false;   /* never: dag__array_where_for keeps complex on the CPU */
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
/* B = alpha op(A)^-1 B (multiply 0: trsm) or alpha op(A) B (multiply 1: trmm, which only the device
   Cholesky asks for: complex types, the only ones kept off devices, never come here with it), or the
   same from the right */
static void dag__spawn_tri(dag__tile_place at, dag_elem type, int multiply, int right, int upper, int trans, int unit,
                           int m, int n, double alpha, dag_data a, dag_data b) {
    if (at.dev && dag__complex(type)) at.dev = false;   /* never: dag__array_where_for keeps complex on the CPU */
    if (multiply && !at.dev) {   /* no CPU task does it: a caller's bug, said rather than solved */
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array.h: a trmm tile task asked of the CPU");
        return;
    }
    dag_options named = dag__named(at.o, multiply ? "trmm" : "trsm");
    const dag_options *o = &named;
#define DAG__TRI_SPAWN(kernel, T)                                                                                    \
    dag_spawn_with(o, DAG_LAUNCH(kernel, right ? m : n), Val(right), Val(upper), Val(trans), Val(unit), Val(m), Val(n), \
                   Val((T)alpha), In(a), Ld(a), InOut(b), Ld(b))
    if (at.dev && type == DAG_F64) {
        if (multiply) DAG__TRI_SPAWN(dag_dtrmm, double);
        else DAG__TRI_SPAWN(dag_dtrsm, double);
    } else if (at.dev) {
        if (multiply) DAG__TRI_SPAWN(dag_strmm, float);
        else DAG__TRI_SPAWN(dag_strsm, float);
    } else
        dag_spawn_with(o, dag__tile_trsm, Val((int)type), Val(right), Val(upper), Val(trans), Val(unit), Val(m), Val(n),
                       Val(alpha), In(a), Ld(a), InOut(b), Ld(b));
#undef DAG__TRI_SPAWN
}
static void dag__spawn_syrk(dag__tile_place at, dag_elem type, int trans, int n, int k, double alpha,
                            dag_data a, double beta, dag_data c) {
    if (at.dev && dag__complex(type)) at.dev = false;   /* never: dag__array_where_for keeps complex on the CPU */
    if (at.dev && type == DAG_F64)   /* C's lower triangle */
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), DAG_LAUNCH(dag_dsyrk, n * n), Val(0), Val(trans), Val(n), Val(k), Val(alpha), In(a),
                       Ld(a), Val(beta), InOut(c), Ld(c));
    else if (at.dev)
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), DAG_LAUNCH(dag_ssyrk, n * n), Val(0), Val(trans), Val(n), Val(k), Val((float)alpha), In(a),
                       Ld(a), Val((float)beta), InOut(c), Ld(c));
    else
        dag_spawn_with(DAG__NAMED(at.o, "syrk"), dag__tile_syrk, Val((int)type), Val(trans), Val(n), Val(k), Val(alpha), In(a), Ld(a),
                       Val(beta), InOut(c), Ld(c));
}

/* The side, in tiles of C, of the blocks a gemm on devices goes by. Where A, B and C together do not fit
   on the smallest device in scope, a block of C and, twice over (this step's and the next's, moving
   while this one computes), a tile column of A and a tile row of B for it fit there (side^2 + 4 side
   tiles of the largest of the three tile shapes), so that each tile of A and B moves once per block,
   not once per tile of C (in C's order, eviction would move every tile of A for each column of C).
   Where they fit, on the CPU, or over ranks (each rank's devices may differ, and every rank must spawn
   the same tasks): INT64_MAX, C at once. */
static int64_t dag__gemm_block(const dag__array_where *w, const dag_array *a, const dag_array *b, const dag_array *c,
                               int64_t ak) {
    double room = 0, elem = (double)c->elem, br = (double)c->brows, bc = (double)c->bcols, bk = (double)ak;
    for (int k = 0; k < w->devices && !dag__ranks(); k++)
        for (int be = 1; be < DAG_BACKEND_COUNT; be++) {
            int d = dag_scope_part(&w->dev[k].scope, (dag_backend)be)->one;
            dag_memory_info m;
            if (d > 0 && dag_memory_stats((dag_backend)be, d, &m) == DAG_OK && m.total && (room == 0 || (double)m.total < room))
                room = (double)m.total;
        }
    double need = ((double)a->rows * (double)a->cols + (double)b->rows * (double)b->cols + (double)c->rows * (double)c->cols) * elem;
    if (room == 0 || need <= room) return INT64_MAX;
    double tile = fmax(br * bk, fmax(bk * bc, br * bc)) * elem, tiles = room / tile;
    double side = floor(sqrt(4.0 + tiles) - 2.0);   /* side^2 + 4 side <= tiles */
    return side < 1 ? 1 : side > 1e9 ? INT64_MAX : (int64_t)side;
}
/* C_ij (+)= op(A)_il op(B)_lj: step l of tile (i, j) of a gemm */
static void dag__gemm_step(dag__array_where *where, int ta, int tb, double alpha, dag_array *a, dag_array *b, double beta,
                           dag_array *c, int64_t i, int64_t j, int64_t l) {
    int64_t ai = ta ? l : i, aj = ta ? i : l, bi = tb ? j : l, bj = tb ? l : j;
    dag__spawn_gemm(dag__at(where, i, j), c->type, ta, tb, DAG__R(c, i), DAG__C(c, j), ta ? DAG__R(a, ai) : DAG__C(a, aj),
                    alpha, DAG__H(a, ai, aj), DAG__H(b, bi, bj), l == 0 ? beta : 1.0, DAG__H(c, i, j));
}
/* Past the devices' memory (side from dag__gemm_block): block by block, a region per step of a block. A
   region ends once its tasks are queued on their devices, so no task goes ahead of an earlier step's,
   whatever the workers do (priorities did not hold the order on 16 of them, and a step run ahead needs
   its own tiles of A and B there too). The operands are tiles of their own here (dag__gemm_tiles), which
   stay on the device across regions; a wrapped matrix's would go home at each region's end. */
static dag_result dag__gemm_blocks(dag__array_where *where, int ta, int tb, double alpha, dag_array *a, dag_array *b,
                                   double beta, dag_array *c, int64_t kt, int64_t side) {
    int64_t blocks_down = (c->mt + side - 1) / side, blocks = blocks_down * ((c->nt + side - 1) / side);
    dag_result r = DAG_OK;
    for (int64_t blk = 0; blk < blocks; blk++)
        for (int64_t l = 0, i0 = blk % blocks_down * side, j0 = blk / blocks_down * side; l < kt && r == DAG_OK; l++) {
            DAG_DATADEPS {
                for (int64_t j = j0; j < j0 + side && j < c->nt; j++)
                    for (int64_t i = i0; i < i0 + side && i < c->mt; i++) dag__gemm_step(where, ta, tb, alpha, a, b, beta, c, i, j, l);
            }
            r = dag_last_region_result();
        }
    return r;
}
/* A tiles of its own for x where x wraps the program's matrix (read: with its values), else x itself */
static dag_array *dag__own_tiles(const dag__array_where *where, dag_array *x, bool read) {
    if (!x->ld) return x;
    dag_array *y = dag__array_new(x->type, x->rows, x->cols, dag_blocks_grid(x->brows, x->bcols, x->p, x->q), NULL, 0, false);
    dag_result r = DAG_OK;
    if (y && read) {   /* on the CPU: host memory holds a wrapped matrix between regions, and the tiles are new */
        dag_region on_cpu = dag_region_begin(DAG_REGION_OPTIONS, &where->cpu);
        r = dag__array_copy_any(x, y, 0, "dag_array_gemm (tiles of its own past the devices' memory)");
        dag_region_end(on_cpu);
    }
    if (r != DAG_OK) {
        dag_array_free(y);
        return NULL;
    }
    return y;
}
static dag_result dag__gemm_tiles(int ta, int tb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c) {
    dag__array_where where = dag__array_where_for("dag_array_gemm", c);
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
    int64_t kt = (ka + ak - 1) / ak, side = dag__gemm_block(&where, a, b, c, ak);
    if (side < c->mt || side < c->nt) {
        dag_array *a1 = dag__own_tiles(&where, a, true), *b1 = b == a ? a1 : dag__own_tiles(&where, b, true),
                  *c1 = dag__own_tiles(&where, c, beta != 0.0);
        dag_result r = !a1 || !b1 || !c1 ? DAG_ERR_OUT_OF_MEMORY : dag__gemm_blocks(&where, ta, tb, alpha, a1, b1, beta, c1, kt, side);
        if (a1 != a) dag_array_free(a1);
        if (b1 != b && b1 != a1) dag_array_free(b1);
        dag_region on_cpu = dag_region_begin(DAG_REGION_OPTIONS, &where.cpu);   /* as dag__own_tiles */
        r = dag__operand_end(c, c1, true, r);
        dag_region_end(on_cpu);
        return r;
    }
    DAG_DATADEPS {
        for (int64_t j = 0; j < c->nt; j++)
            for (int64_t i = 0; i < c->mt; i++)
                for (int64_t l = 0; l < kt; l++) dag__gemm_step(&where, ta, tb, alpha, a, b, beta, c, i, j, l);
    }
    return dag_last_region_result();
}

/* The same on any arrays or views: A and B re-tiled to conform with C where they do not (C's tile rows and
   columns, A's inner tiles). */
dag_result dag_array_gemm(int ta, int tb, double alpha, dag_array *a, dag_array *b, double beta, dag_array *c) {
    if (!a || !b || !c) return dag__gemm_tiles(ta, tb, alpha, a, b, beta, c);
    dag_array *a1 = dag__unaliased(a, c, false, "dag_array_gemm"), *b1 = b == a ? a1 : dag__unaliased(b, c, false, "dag_array_gemm");
    if (a1 != a || b1 != b) {   /* C is (part of) A or B: they go in as copies */
        dag_result r = !a1 || !b1 ? dag__no_operand() : dag_array_gemm(ta, tb, alpha, a1, b1, beta, c);
        dag__unaliased_end(a, a1);
        if (b != a) dag__unaliased_end(b, b1);
        return r;
    }
    dag_array *c2 = dag__operand(c, dag__any_tiling, beta != 0.0);
    if (!c2) return dag__no_operand();
    int64_t k = ta ? a->brows : a->bcols;   /* op(A) m x k in C's tile rows, op(B) k x n in its tile columns */
    dag_array *a2 = dag__operand(a, dag_blocks_grid(ta ? k : c2->brows, ta ? c2->brows : k, a->p, a->q), true);
    dag_array *b2 = dag__operand(b, dag_blocks_grid(tb ? c2->bcols : k, tb ? k : c2->bcols, b->p, b->q), true);
    dag_result r = !a2 || !b2 ? dag__no_operand() : dag__gemm_tiles(ta, tb, alpha, a2, b2, beta, c2);
    dag__operand_end(a, a2, false, r);
    dag__operand_end(b, b2, false, r);
    return dag__operand_end(c, c2, true, r);
}

/* C's lower triangle = alpha op(A) op(A)^T + beta C: syrk on diagonal tiles, gemm below them */
static dag_result dag__syrk_tiles(int trans, double alpha, dag_array *a, double beta, dag_array *c) {
    dag__array_where where = dag__array_where_for("dag_array_syrk", c);
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

/* The same on any arrays or views: C in square tiles, A in C's along its outer dimension. */
dag_result dag_array_syrk(int trans, double alpha, dag_array *a, double beta, dag_array *c) {
    if (!a || !c) return dag__syrk_tiles(trans, alpha, a, beta, c);
    dag_array *a1 = dag__unaliased(a, c, false, "dag_array_syrk");
    if (a1 != a) {   /* C is (part of) A: A goes in as a copy */
        dag_result r = a1 ? dag_array_syrk(trans, alpha, a1, beta, c) : dag__no_operand();
        dag__unaliased_end(a, a1);
        return r;
    }
    int64_t nb = c->brows;
    dag_array *c2 = dag__operand(c, dag_blocks_grid(nb, nb, c->p, c->q), true);
    dag_array *a2 = dag__operand(a, dag_blocks_grid(trans ? a->brows : nb, trans ? nb : a->bcols, a->p, a->q), true);
    dag_result r = !a2 || !c2 ? dag__no_operand() : dag__syrk_tiles(trans, alpha, a2, beta, c2);
    dag__operand_end(a, a2, false, r);
    return dag__operand_end(c, c2, true, r);
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
static dag_result dag__trsm_tiles(int right, int upper, int trans, int unit, double alpha, dag_array *a, dag_array *b) {
    dag__array_where where = dag__array_where_for("dag_array_trsm", b);
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
                dag__spawn_tri(dag__at(&where, bi, bj), b->type, 0, right, upper, trans, unit, DAG__R(b, bi), DAG__C(b, bj),
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

/* The same on any arrays or views: A in square tiles of B's rows (left) or columns (right). */
dag_result dag_array_trsm(int right, int upper, int trans, int unit, double alpha, dag_array *a, dag_array *b) {
    if (!a || !b) return dag__trsm_tiles(right, upper, trans, unit, alpha, a, b);
    dag_array *a1 = dag__unaliased(a, b, false, "dag_array_trsm");
    if (a1 != a) {   /* B is (part of) A: A goes in as a copy */
        dag_result r = a1 ? dag_array_trsm(right, upper, trans, unit, alpha, a1, b) : dag__no_operand();
        dag__unaliased_end(a, a1);
        return r;
    }
    dag_array *b2 = dag__operand(b, dag__any_tiling, true);
    if (!b2) return dag__no_operand();
    int64_t nb = right ? b2->bcols : b2->brows;
    dag_array *a2 = dag__operand(a, dag_blocks_grid(nb, nb, a->p, a->q), true);
    dag_result r = !a2 ? dag__no_operand() : dag__trsm_tiles(right, upper, trans, unit, alpha, a2, b2);
    dag__operand_end(a, a2, false, r);
    return dag__operand_end(b, b2, true, r);
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

/* The Cholesky on the devices in scope, tile (i, j)'s tasks on its device,
   the diagonal's too (dag_blas.h's potrf: cuSOLVER's or rocSOLVER's where
   they load): no tile comes back to the host on the way. As on the CPU,
   the panel multiplies by the diagonal tile's inverse: one trsm per step
   makes it (of the identity, filled on the device), then a trmm per panel
   tile. On an H200 cuBLAS's dtrsm of a 1024 tile costs 240 us of host time
   per call (its launches), its trmm 16 us: solving the panel tile by tile
   kept the device waiting on the host (bench/README.md). Each diagonal task writes its info into a span of its own,
   which the host reads once the region is over: a tile that was not
   positive definite is said then (the tiles after it hold what the
   arithmetic gave, as LAPACK's do). Over ranks only the diagonal tile's
   owner holds its info: a task there reads it at the end of the region and
   fails, and the region's result, the same on every rank, says so.
   Priorities as on the CPU (below). */
DAG_TASK(void, dag__potrf_info, (const int *, info), (int64_t, tile), (int64_t, col0)) {
    if (info[0])
        dag_fail(DAG_ERR_NOT_POSITIVE_DEFINITE, "not positive definite: tile (%lld, %lld), column %lld (global)",
                 (long long)tile, (long long)tile, (long long)(col0 + info[0] - 1));
}
/* On the device `o` names: W = L^-1 (W the identity first), then each tile of the panel below,
   A_ik = A_ik W^T. W is the top-left w x w of an nb x nb tile. */
static void dag__panel_by_inverse(dag_array *a, int64_t k, const dag_options *o, dag__array_where *where, dag_data inv,
                                  int64_t top) {
    int w = DAG__R(a, k), nb = (int)a->brows;
    dag__tile_fill(o, a->type, DAG__FILL_DIAGONAL, 1.0, 0, 0, 0, nb, nb, inv);
    dag__spawn_tri((dag__tile_place){ o, true }, a->type, 0, 0, 0, 0, 0, w, w, 1.0, DAG__H(a, k, k), inv);
    for (int64_t i = k + 1; i < a->nt; i++) {
        dag_options oi = dag__with_priority(dag__tile_where(where, i, k), (int)(top - 2 * k - i));
        dag__spawn_tri((dag__tile_place){ &oi, true }, a->type, 1, 1, 0, 1, 0, DAG__R(a, i), w, 1.0, inv, DAG__H(a, i, k));
    }
}
/* Whether the device o names has a build of the fill kernel for type (the identity above): the program's
   kernels carry it ahead of time (nvcc, hipcc, SPIR-V), or the backend builds kernels from their text
   (OpenCL). A program whose device kernels leave out dag_array.h's solves the panel tile by tile. */
static bool dag__fill_builds(const dag_options *o, dag_elem type) {
    const dag_kernel_source *k = NULL;
#define DAG__FILL_SOURCE(T, SUFFIX) k = &dag__array_fill_##SUFFIX##__cl
    DAG__BY_ELEM(type, DAG__FILL_SOURCE);
#undef DAG__FILL_SOURCE
    for (int b = 1; k && b < DAG_BACKEND_COUNT; b++)
        if (dag_scope_part(&o->scope, (dag_backend)b)->one > 0) return b == DAG_OPENCL || k->native[b] != NULL;
    return false;
}
static dag_result dag__potrf_devices(dag_array *a, dag__array_where *where) {
    int64_t nt = a->nt, top = 4 * nt + 1;
    /* the inverses rotate through three tiles as on the CPU (dag__potrf_tiles), one per step over ranks */
    int64_t slots = dag__ranks() ? nt : nt < 3 ? nt : 3;
    int *info = (int *)dag__array_zalloc((size_t)nt, sizeof *info);
    dag_array *inv = info ? dag__array_new(a->type, slots * a->brows, a->brows, dag_blocks_grid(a->brows, a->brows, a->p, a->q),
                                           NULL, 0, true) : NULL;
    if (!inv) {
        DAG_FREE(info);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    bool f64 = a->type == DAG_F64;
    DAG_DATADEPS {
        for (int64_t k = 0; k < nt; k++) {
            int w = DAG__R(a, k);
            dag_options o = dag__with_priority(dag__tile_where(where, k, k), (int)(top - 3 * k));
            if (f64)
                dag_spawn_with(DAG__NAMED(&o, "potrf"), DAG_LAUNCH(dag_dpotrf, 1), Val(0), Val(w), InOut(DAG__H(a, k, k)),
                               Ld(DAG__H(a, k, k)), Out(&info[k], 1));
            else
                dag_spawn_with(DAG__NAMED(&o, "potrf"), DAG_LAUNCH(dag_spotrf, 1), Val(0), Val(w), InOut(DAG__H(a, k, k)),
                               Ld(DAG__H(a, k, k)), Out(&info[k], 1));
            bool by_inverse = k + 1 < nt && dag__fill_builds(&o, a->type);   /* A_ik = A_ik L_kk^-T */
            if (by_inverse) dag__panel_by_inverse(a, k, &o, where, inv->handle[k % slots], top);
            for (int64_t i = k + 1; i < nt && !by_inverse; i++) {
                dag_options oi = dag__with_priority(dag__tile_where(where, i, k), (int)(top - 2 * k - i));
                dag__spawn_tri((dag__tile_place){ &oi, true }, a->type, 0, 1, 0, 1, 0, DAG__R(a, i), w, 1.0, DAG__H(a, k, k),
                               DAG__H(a, i, k));
            }
            for (int64_t j = k + 1; j < nt; j++) {
                o = dag__with_priority(dag__tile_where(where, j, j), (int)(top - 3 * j));
                dag__spawn_syrk((dag__tile_place){ &o, true }, a->type, 0, DAG__R(a, j), w, -1.0, DAG__H(a, j, k), 1.0, DAG__H(a, j, j));
                for (int64_t i = j + 1; i < nt; i++) {   /* A_ij -= L_ik L_jk^T */
                    o = dag__with_priority(dag__tile_where(where, i, j), (int)(top - 2 * j - i));
                    dag__spawn_gemm((dag__tile_place){ &o, true }, a->type, 0, 1, DAG__R(a, i), DAG__R(a, j), w, -1.0, DAG__H(a, i, k),
                                    DAG__H(a, j, k), 1.0, DAG__H(a, i, j));
                }
            }
        }
        for (int64_t k = 0; dag__ranks() && k < nt; k++) {   /* last: the factorisation is queued by then */
            dag_options o = where->cpu;
            o.scope.rank = DAG_RANK(dag__tile_rank(a, k, k));
            dag_spawn_with(DAG__NAMED(&o, "potrf"), dag__potrf_info, In(&info[k], 1), Val(k), Val(k * a->brows));
        }
    }
    dag_result r = dag_last_region_result();
    for (int64_t k = 0; r == DAG_OK && k < nt; k++)
        if (info[k]) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_NOT_POSITIVE_DEFINITE, "dag_array_potrf: not positive definite: tile (%lld, %lld), "
                    "column %lld (global)", (long long)k, (long long)k, (long long)(k * a->brows + info[k] - 1));
            r = DAG_ERR_NOT_POSITIVE_DEFINITE;
        }
    dag__array_discard(inv);
    DAG_FREE(info);
    return r;
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
   On the CPU the panel's solves multiply by the diagonal tile's inverse
   (dtrtri once per step, then dtrmm: OpenBLAS's dtrmm runs at twice its
   dtrsm's rate on tiles); the inverse of a diagonal tile of an SPD
   matrix's factor is as well conditioned as the tile. On devices,
   dag__potrf_devices.
   A wrapped matrix on the CPU goes by blocks of columns that are spans of
   the matrix itself, not its tiles' handles (they order against those by
   overlap like any spans). The solves and updates take a chunk of rows of
   a column at once (dag__panel_chunk): OpenBLAS runs a tall dgemm faster
   than the same work tile by tile. The first tile and the last two are
   blocks of half a tile: the first and last steps are a chain (potrf, its
   panel, the next syrk) with little beside it, and halving them gives the
   other workers work sooner and shortens the tail. Everywhere else a block
   is a tile. */
static dag_result dag__potrf_tiles(dag_array *a) {
    if (!dag__array_la(a, "dag_array_potrf", "A")) return DAG_ERR_INVALID_ARGUMENT;
    if (a->rows != a->cols || a->brows != a->bcols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT,
                "dag_array_potrf: needs a square matrix in square tiles (%lld x %lld in %lld x %lld)", (long long)a->rows,
                (long long)a->cols, (long long)a->brows, (long long)a->bcols);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t nt = a->nt, nb = a->brows;
    dag__array_where where = dag__array_where_for("dag_array_potrf", a);
    if (where.status) return where.status;
    if (where.devices) return dag__potrf_devices(a, &where);
    bool panels = a->ld && !dag__ranks();   /* over ranks, spans of one rank's matrix would move nothing */
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
            dag_options o = dag__with_priority(&where.cpu, (int)(top - 3 * k));
            dag_spawn_with(DAG__NAMED(&o, "potrf"), dag__tile_potrf, Val(type), Val(w), dag__blocks(a, edge, panels, k, k + 1, k, DAG_ACCESS_INOUT),
                           Val(DAG__LD(a, k)), Out(inv->handle[k % slots]), Val(edge[k] / nb), Val(edge[k]),
                           Val((int)(k == s - 1)));
            for (int64_t i = k + 1, i2; i < s; i = i2) {
                for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
                o = dag__with_priority(&where.cpu, (int)(top - 2 * k - i));
                dag_spawn_with(DAG__NAMED(&o, "trsm"), dag__tile_panel, Val(type), Val(dag__block_rows(edge, i, i2)), Val(w), In(inv->handle[k % slots]),
                               dag__blocks(a, edge, panels, i, i2, k, DAG_ACCESS_INOUT), Val(DAG__LD(a, i)));
            }
            for (int64_t j = k + 1; j < s; j++) {
                int wj = dag__block_rows(edge, j, j + 1);
                o = dag__with_priority(&where.cpu, (int)(top - 3 * j));
                dag_spawn_with(DAG__NAMED(&o, "syrk"), dag__tile_syrk, Val(type), Val(0), Val(wj), Val(w), Val(-1.0),
                               dag__blocks(a, edge, panels, j, j + 1, k, DAG_ACCESS_IN), Val(DAG__LD(a, j)), Val(1.0),
                               dag__blocks(a, edge, panels, j, j + 1, j, DAG_ACCESS_INOUT), Val(DAG__LD(a, j)));
                for (int64_t i = j + 1, i2; i < s; i = i2) {   /* A_ij -= L_ik L_jk^T, a chunk of rows at once */
                    for (i2 = i + 1; i2 < s && edge[i2 + 1] - edge[i] <= chunk_rows; i2++) {}
                    o = dag__with_priority(&where.cpu, (int)(top - 2 * j - i));
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

/* A factorisation on any array or view: in square tiles (the smaller side of a's; a copy where they are
   not square). */
static dag_result dag__factor_any(dag_result (*factor)(dag_array *), dag_array *a) {
    if (!a) return factor(a);
    int64_t nb = dag__imin(a->brows, a->bcols);
    dag_array *a2 = dag__operand(a, dag_blocks_grid(nb, nb, a->p, a->q), true);
    return a2 ? dag__operand_end(a, a2, true, factor(a2)) : dag__no_operand();
}
dag_result dag_array_potrf(dag_array *a) { return dag__factor_any(dag__potrf_tiles, a); }

/* LU without pivoting, in place: L unit lower below the diagonal, U on and
   above it. For diagonally dominant matrices; a zero pivot fails naming
   the tile and column. */
static dag_result dag__getrf_nopiv_tiles(dag_array *a) {
    dag__array_where where = dag__array_where_for("dag_array_getrf_nopiv", a);
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
                dag__spawn_tri(dag__at(&where, k, j), a->type, 0, 0, 0, 0, 1, DAG__R(a, k), DAG__C(a, j), 1.0, DAG__H(a, k, k),
                                DAG__H(a, k, j));
            for (int64_t i = k + 1; i < nt; i++)   /* L's column: A_ik U_kk^-1 */
                dag__spawn_tri(dag__at(&where, i, k), a->type, 0, 1, 1, 0, 0, DAG__R(a, i), DAG__C(a, k), 1.0, DAG__H(a, k, k),
                                DAG__H(a, i, k));
            for (int64_t j = k + 1; j < nt; j++)
                for (int64_t i = k + 1; i < nt; i++)
                    dag__spawn_gemm(dag__at(&where, i, j), a->type, 0, 0, DAG__R(a, i), DAG__C(a, j), DAG__C(a, k), -1.0,
                                    DAG__H(a, i, k), DAG__H(a, k, j), 1.0, DAG__H(a, i, j));
        }
    }
    return dag_last_region_result();
}

dag_result dag_array_getrf_nopiv(dag_array *a) { return dag__factor_any(dag__getrf_nopiv_tiles, a); }

/* A X = B with A = L L^T from dag_array_potrf: B becomes X. */
dag_result dag_array_potrs(dag_array *l, dag_array *b) {
    dag_array *l1 = dag__unaliased(l, b, false, "dag_array_potrs");   /* L read by both solves, B written by the first */
    if (l && !l1) return dag__no_operand();
    dag_result r = dag_array_trsm(0, 0, 0, 0, 1.0, l1, b);
    if (r == DAG_OK) r = dag_array_trsm(0, 0, 1, 0, 1.0, l1, b);
    dag__unaliased_end(l, l1);
    return r;
}
/* A X = B for SPD A: A becomes its factor L, B becomes X. */
dag_result dag_array_posv(dag_array *a, dag_array *b) {
    if (!dag__apart(a, b, "dag_array_posv", "A", "B")) return DAG_ERR_INVALID_ARGUMENT;
    dag_result r = dag_array_potrf(a);
    return r != DAG_OK ? r : dag_array_potrs(a, b);
}
/* Tile column k of a, tile rows i0 to i1 - 1, into a panel's workspace ws (nb rows a tile), or back
   (the LU's and the QR's panels on an array of tiles): a CPU task per tile as o says, or with `devices`
   a kernel per tile, into the workspace where o places it, back on the device of the tile it writes. */
static void dag__panel_copy(const dag_options *o, const dag__array_where *devices, dag_array *a, int64_t k, int64_t i0,
                            int64_t i1, int64_t nb, dag_data ws, bool back) {
    for (int64_t i = i0; i < i1; i++) {
        dag_data from = back ? ws : DAG__H(a, i, k), to = back ? DAG__H(a, i, k) : ws;
        int64_t at = (i - i0) * nb, none = 0, rows = DAG__R(a, i), cols = DAG__C(a, k);   /* at: its rows in ws */
        int64_t fr = back ? at : none, tr = back ? none : at;
        if (!devices) {
            dag_spawn_with(DAG__NAMED(o, "copy"), dag__copy_block, Val((int)a->elem), In(from), Ld(from), Val(fr), Val(none),
                           InOut(to), Ld(to), Val(tr), Val(none), Val(rows), Val(cols));
            continue;
        }
        dag_options on = back ? dag__with_priority(dag__tile_where(devices, i, k), o->priority) : *o;
        dag_spawn_with(DAG__NAMED(&on, "copy"), DAG_LAUNCH(dag__array_copy_part, (size_t)(rows * cols)), Val((int)a->elem),
                       In(from), Ld(from), Val((long)fr), Val(0L), InOut(to), Ld(to), Val((long)tr), Val(0L), Val((long)rows),
                       Val(0));
    }
}

/* >>pivoted LU: dag_array_getrf, getrs and gesv, LAPACK's right-looking
   blocked algorithm on tiles. Step k factorises the panel (tile column k,
   from the diagonal down) with partial pivoting in one task on the CPU
   (LAPACKE's getrf, else loops), moves the pivot rows in every other tile
   column, solves U's row of tiles (trsm, unit lower) and updates the
   trailing tiles (gemm). On an array of its own tiles the panel is copied
   into a workspace column and back (a task per tile), and the rows move
   tile by tile: the diagonal row's tile saves its rows (S) and takes its
   new ones from itself, then from each tile below (pull), then each tile
   below takes the rows it receives from S (push), so every task touches
   two tiles at most and over ranks runs where the tile it writes lives;
   under a device scope these moves are kernels on the tiles' devices
   (dag__array_lu_rows), so that only the panel comes to the host.
   On a wrapped matrix on the CPU (one rank) the panel and each column
   block's swaps are spans of the matrix itself, as LAPACK works, and the
   updates go a chunk of rows at a time (dag__panel_chunk). */

/* An LU step's row moves, one tile of int64 in the moves array: kw pivots, tr rows in the diagonal tile
   row, L moves below it, nb; then ipiv (panel rows, 0-based), where each of the top tr rows' new values
   comes from (a panel row), and the L rows below that change: their places and the top rows they take. */
enum { DAG__MV_KW, DAG__MV_TR, DAG__MV_L, DAG__MV_NB, DAG__MV_HEAD };
#define DAG__MV_LEN(nb) (DAG__MV_HEAD + 4 * (nb))
#define DAG__MV_IPIV(mv) ((mv) + DAG__MV_HEAD)
#define DAG__MV_TOP(mv) ((mv) + DAG__MV_HEAD + (mv)[DAG__MV_NB])
#define DAG__MV_DEST(mv) ((mv) + DAG__MV_HEAD + 2 * (mv)[DAG__MV_NB])
#define DAG__MV_SRC(mv) ((mv) + DAG__MV_HEAD + 3 * (mv)[DAG__MV_NB])

/* From LAPACK's swaps (row r with ipiv[r], for r < kw, in order), where each row ends: top row r takes
   panel row top[r]; a row below the top tr rows that changes takes a top row (what a swap moves down is
   always a row that started in the top block, so S, the saved top rows, has it). */
static void dag__lu_moves(int64_t *mv, int64_t kw, int64_t tr, int64_t nb) {
    mv[DAG__MV_KW] = kw, mv[DAG__MV_TR] = tr, mv[DAG__MV_NB] = nb;
    int64_t *ipiv = DAG__MV_IPIV(mv), *top = DAG__MV_TOP(mv), *dest = DAG__MV_DEST(mv), *src = DAG__MV_SRC(mv), l = 0;
    for (int64_t r = 0; r < tr; r++) top[r] = r;
    for (int64_t r = 0; r < kw; r++) {
        int64_t p = ipiv[r], *at = NULL, x;
        if (p < tr) {
            at = &top[p];
        } else {
            for (int64_t e = 0; e < l && !at; e++)
                if (dest[e] == p) at = &src[e];
            if (!at) dest[l] = p, src[l] = p, at = &src[l++];
        }
        x = top[r], top[r] = *at, *at = x;
    }
    mv[DAG__MV_L] = l;
}

/* Partial-pivoting LU of an m x n panel in place (ipiv 0-based): 0, or the 1-based column of the first
   exactly zero pivot. The loops pick the first largest magnitude, as LAPACK's idamax does. */
#define DAG__LU_LOOPS(T, P, ABS)                                                                                   \
    DAG__UNUSED static int dag__##P##getrf_piv_loops(int m, int n, T *a, int lda, int64_t *ipiv) {                 \
        int info = 0, kn = m < n ? m : n;                                                                          \
        for (int k = 0; k < kn; k++) {                                                                             \
            int p = k;                                                                                             \
            for (int i = k + 1; i < m; i++)                                                                        \
                if (ABS(a[i + (size_t)k * lda]) > ABS(a[p + (size_t)k * lda])) p = i;                              \
            ipiv[k] = p;                                                                                           \
            for (int j = 0; p != k && j < n; j++) {                                                                \
                T x = a[k + (size_t)j * lda];                                                                      \
                a[k + (size_t)j * lda] = a[p + (size_t)j * lda], a[p + (size_t)j * lda] = x;                       \
            }                                                                                                      \
            T d = a[k + (size_t)k * lda];                                                                          \
            if (d == 0) {                                                                                          \
                if (!info) info = k + 1;                                                                           \
                continue;                                                                                          \
            }                                                                                                      \
            for (int i = k + 1; i < m; i++) a[i + (size_t)k * lda] /= d;                                           \
            for (int j = k + 1; j < n; j++)                                                                        \
                for (int i = k + 1; i < m; i++) a[i + (size_t)j * lda] -= a[i + (size_t)k * lda] * a[k + (size_t)j * lda]; \
        }                                                                                                          \
        return info;                                                                                               \
    }
/* |x| as LAPACK's i?amax measures it: |re| + |im| for complex */
#define DAG__ABS_R(x) fabs((double)(x))
#define DAG__ABS_Z(x) (fabs(__builtin_creal(x)) + fabs(__builtin_cimag(x)))
#define DAG__ABS_C(x) (fabs((double)__builtin_crealf(x)) + fabs((double)__builtin_cimagf(x)))
DAG__LU_LOOPS(double, d, DAG__ABS_R)
DAG__LU_LOOPS(float, s, DAG__ABS_R)
DAG__LU_LOOPS(dag__cf64, z, DAG__ABS_Z)
DAG__LU_LOOPS(dag__cf32, c, DAG__ABS_C)
#undef DAG__LU_LOOPS

static int dag__getrf_piv(int type, int m, int n, void *a, int lda, int64_t *ipiv) {
#if defined(DAG_ARRAY_CBLAS)
    int kn = m < n ? m : n;
    lapack_int *p = (lapack_int *)DAG_MALLOC(sizeof *p * (size_t)kn), info;
    if (!p) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_getrf: no memory for %d pivots", kn);
        return 0;
    }
    info = type == DAG_F64    ? LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, (double *)a, lda, p)
           : type == DAG_F32  ? LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, (float *)a, lda, p)
           : type == DAG_CF64 ? LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, (lapack_complex_double *)a, lda, p)
                              : LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n, (lapack_complex_float *)a, lda, p);
    for (int r = 0; r < kn; r++) ipiv[r] = p[r] - 1;
    DAG_FREE(p);
    return info > 0 ? (int)info : 0;
#else
    return type == DAG_F64    ? dag__dgetrf_piv_loops(m, n, (double *)a, lda, ipiv)
           : type == DAG_F32  ? dag__sgetrf_piv_loops(m, n, (float *)a, lda, ipiv)
           : type == DAG_CF64 ? dag__zgetrf_piv_loops(m, n, (dag__cf64 *)a, lda, ipiv)
                              : dag__cgetrf_piv_loops(m, n, (dag__cf32 *)a, lda, ipiv);
#endif
}

/* A factorised panel (m x w, the first of its columns the matrix's col0): its moves into mv from its
   0-based pivots there, and the failure of a zero pivot (bad: its 1-based column in the panel). */
static void dag__lu_panel_done(int64_t *mv, int64_t m, int64_t w, int64_t nb, int64_t col0, int bad) {
    dag__lu_moves(mv, m < w ? m : w, m < nb ? m : nb, nb);
    if (bad)
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_array_getrf: the matrix is singular: U(%lld, %lld) is exactly 0",
                 (long long)(col0 + bad - 1), (long long)(col0 + bad - 1));
}
/* The panel: m x w from the diagonal down (ld ldp), its moves into mv. */
DAG_TASK(void, dag__lu_panel, (int, type), (int64_t, m), (int64_t, w), (void *, p), (int64_t, ldp), (int64_t *, mv),
         (int64_t, nb), (int64_t, col0)) {
    dag__lu_panel_done(mv, m, w, nb, col0, dag__getrf_piv(type, (int)m, (int)w, p, (int)ldp, DAG__MV_IPIV(mv)));
}
/* The same from a panel a device factorised (dag_blas.h's getrf): its 1-based pivots and info. */
DAG_TASK(void, dag__lu_panel_pivots, (const int *, piv), (const int *, info), (int64_t, m), (int64_t, w),
         (int64_t *, mv), (int64_t, nb), (int64_t, col0)) {
    for (int64_t r = 0; r < (m < w ? m : w); r++) DAG__MV_IPIV(mv)[r] = piv[r] - 1;
    dag__lu_panel_done(mv, m, w, nb, col0, info[0]);
}
/* The moves go a column at a time: a column is contiguous, so the elements a column's moves touch share
   a few cache lines, where a row's lie a page apart each (a row at a time, as LAPACK's laswp goes, ran
   at a tenth of the speed). E(p, ld, i, j): element (i, j) of a column-major block of elem bytes. */
#define DAG__E(p, ld, i, j) ((char *)(p) + (size_t)((i) + (j) * (ld)) * (size_t)elem)
/* the diagonal row's tile t: saved to s, then its rows that come from itself */
DAG_TASK(void, dag__lu_save, (const int64_t *, mv), (int, elem), (int64_t, cols), (void *, t), (int64_t, ldt),
         (void *, s), (int64_t, lds)) {
    const int64_t tr = mv[DAG__MV_TR], *top = DAG__MV_TOP(mv);
    for (int64_t j = 0; j < cols; j++) {
        memcpy(DAG__E(s, lds, 0, j), DAG__E(t, ldt, 0, j), (size_t)(tr * elem));
        for (int64_t r = 0; r < tr; r++)
            if (top[r] < tr && top[r] != r) dag__elem_move(DAG__E(t, ldt, r, j), DAG__E(s, lds, top[r], j), elem);
    }
}
/* The rows a step moves lie anywhere below the panel, a cache line each in every column, and no hardware
   prefetcher guesses them: each column asks for its lines two columns ahead (a fifth of an LU's time went
   to these misses). */
#define DAG__LU_AHEAD 2
#if defined(__GNUC__)
#define DAG__PREFETCH(p) __builtin_prefetch(p)
#else
#define DAG__PREFETCH(p) ((void)(p))
#endif
/* Rows from x to y, a column at a time: y's row to[e] takes x's row from[e], for n pairs. */
static void dag__rows_move(int elem, int64_t cols, const void *x, int64_t ldx, void *y, int64_t ldy, const int64_t *from,
                           const int64_t *to, int64_t n) {
    for (int64_t j = 0; j < cols; j++) {
        for (int64_t e = 0; j + DAG__LU_AHEAD < cols && e < n; e++)
            DAG__PREFETCH(DAG__E(x, ldx, from[e], j + DAG__LU_AHEAD)), DAG__PREFETCH(DAG__E(y, ldy, to[e], j + DAG__LU_AHEAD));
        for (int64_t e = 0; e < n; e++) dag__elem_move(DAG__E(y, ldy, to[e], j), DAG__E(x, ldx, from[e], j), elem);
    }
}
/* pull: into t, the rows it takes from x (panel rows lo to lo + rows - 1); push: into x, the rows it takes
   from s */
DAG_TASK(void, dag__lu_pull_push, (const int64_t *, mv), (int, push), (int, elem), (int64_t, cols), (const void *, x),
         (int64_t, ldx), (int64_t, lo), (int64_t, rows), (void *, y), (int64_t, ldy)) {
    int64_t n = 0, most = push ? mv[DAG__MV_L] : mv[DAG__MV_TR];
    const int64_t *to = push ? DAG__MV_DEST(mv) : NULL, *from = push ? DAG__MV_SRC(mv) : DAG__MV_TOP(mv);
    int64_t *pair = (int64_t *)DAG_MALLOC(sizeof(int64_t) * (size_t)(2 * most + 1));
    if (!pair) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_getrf: no memory for %lld rows", (long long)most);
        return;
    }
    for (int64_t e = 0; e < most; e++) {   /* the moves within this tile */
        int64_t below = push ? to[e] : from[e];
        if (below >= lo && below < lo + rows)
            pair[n] = push ? from[e] : below - lo, pair[most + n++] = push ? below - lo : e;
    }
    dag__rows_move(elem, cols, x, ldx, y, ldy, pair, pair + most, n);
    DAG_FREE(pair);
}
/* All of a step's moves on a column block of the panel's rows (a span of a wrapped matrix): save, pull and
   push, a column at a time. */
DAG_TASK(void, dag__lu_laswp, (const int64_t *, mv), (int, elem), (int64_t, cols), (void *, x), (int64_t, ldx)) {
    const int64_t tr = mv[DAG__MV_TR], *top = DAG__MV_TOP(mv), *dest = DAG__MV_DEST(mv), *src = DAG__MV_SRC(mv);
    char *s = (char *)DAG_MALLOC((size_t)(tr * elem));
    if (!s) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_getrf: no memory for %lld rows", (long long)tr);
        return;
    }
    for (int64_t j = 0; j < cols; j++) {
        if (j + DAG__LU_AHEAD < cols) {
            for (int64_t r = 0; r < tr; r++)
                if (top[r] >= tr) DAG__PREFETCH(DAG__E(x, ldx, top[r], j + DAG__LU_AHEAD));
            for (int64_t e = 0; e < mv[DAG__MV_L]; e++) DAG__PREFETCH(DAG__E(x, ldx, dest[e], j + DAG__LU_AHEAD));
        }
        memcpy(s, DAG__E(x, ldx, 0, j), (size_t)(tr * elem));
        for (int64_t r = 0; r < tr; r++)
            if (top[r] != r) dag__elem_move(DAG__E(x, ldx, r, j), top[r] < tr ? DAG__E(s, 0, top[r], 0) : DAG__E(x, ldx, top[r], j), elem);
        for (int64_t e = 0; e < mv[DAG__MV_L]; e++) dag__elem_move(DAG__E(x, ldx, dest[e], j), DAG__E(s, 0, src[e], 0), elem);
    }
    DAG_FREE(s);
}
#undef DAG__E
/* The same, then U's row of the column block: its top rows solved with the panel's unit lower L (tr x tr,
   ldl), while they are in cache (a span of a wrapped matrix). */
DAG_TASK(void, dag__lu_laswp_trsm, (const int64_t *, mv), (int, type), (int64_t, cols), (void *, x), (int64_t, ldx),
         (const void *, l), (int64_t, ldl)) {
    dag__lu_laswp(mv, (int)dag__elem_size((dag_elem)type), cols, x, ldx);
    dag__trsm(type, 0, 0, 0, 1, (int)mv[DAG__MV_TR], (int)cols, 1.0, l, (int)ldl, x, (int)ldx);
}
/* LAPACK's ipiv of a step: 1-based rows of the whole matrix */
DAG_TASK(void, dag__lu_ipiv, (const int64_t *, mv), (int64_t, row0), (int64_t *, ipiv)) {
    for (int64_t r = 0; r < mv[DAG__MV_KW]; r++) ipiv[r] = row0 + DAG__MV_IPIV(mv)[r] + 1;
}

typedef struct dag__lu {
    dag_array *a, *work, *moves;   /* the matrix, the panel's workspace (own tiles), a tile of moves per step */
    dag__array_where *where;
    bool panels, dev;              /* spans of a wrapped matrix; the moves, trsm and gemm on the tiles' devices */
    int64_t nb, kt, slots, top, chunk, group;   /* chunk: tile rows per update task, group: tile columns */
    int *piv;                      /* panels on the devices (dag__lu_panels_on_devices): each step's nb pivots and */
} dag__lu;                         /* then the kt infos */

/* Whether the panels go to the devices: where a vendor getrf stands in for dag_blas.h's on each device in
   scope (cuSOLVER's, rocSOLVER's), so that the matrix stays there; else the panel comes to the CPU. */
static bool dag__lu_panels_on_devices(const dag__array_where *w, dag_elem type) {
    const dag_kernel_source *k = type == DAG_F64 ? &dag_dgetrf__cl : type == DAG_F32 ? &dag_sgetrf__cl : NULL;
    bool all = k && w->devices > 0 && !dag__ranks();
    for (int d = 0; all && d < w->devices; d++) all = dag_library_stands_in(k, &w->dev[d].scope);
    return all;
}

/* Tiles i to i2 - 1 of tile column j of a wrapped matrix, as one span. */
static dag_arg dag__lu_block(const dag_array *a, int64_t i, int64_t i2, int64_t j, int64_t j2, dag_access mode) {
    int64_t r0 = i * a->brows, r1 = dag__imin(i2 * a->brows, a->rows), c1 = dag__imin(j2 * a->bcols, a->cols);
    return dag_arg_tile(mode, (char *)a->tile[0] + (size_t)(r0 + j * a->bcols * a->ld) * a->elem,
                        (size_t)(c1 - j * a->bcols), (size_t)(r1 - r0), (size_t)a->ld, a->elem);
}
static dag_arg dag__lu_span(const dag_array *a, int64_t i, int64_t i2, int64_t j, dag_access mode) {
    return dag__lu_block(a, i, i2, j, j + 1, mode);
}

/* Step k's panel: in place on a wrapped matrix, else gathered into the workspace, factorised, scattered. */
static void dag__lu_panel_step(dag__lu *lu, int64_t k) {
    dag_array *a = lu->a;
    int64_t nb = lu->nb, m = a->rows - k * nb, w = DAG__C(a, k);
    int type = (int)a->type;
    dag_options o = dag__with_priority(&lu->where->cpu, (int)(lu->top - 3 * k));
    dag_data mv = DAG__H(lu->moves, k, 0);
    if (lu->panels) {
        dag_spawn_with(DAG__NAMED(&o, "getrf"), dag__lu_panel, Val(type), Val(m), Val(w),
                       dag__lu_span(a, k, a->mt, k, DAG_ACCESS_INOUT), Val(a->ld), Out(mv), Val(nb), Val(k * nb));
        return;
    }
    dag_data ws = DAG__H(lu->work, k % lu->slots, 0);
    if (lu->piv) {   /* on the diagonal tile's device, the pivots' moves on the CPU */
        dag_options od = dag__potrf_on(lu->where, true, k, k, lu->top - 3 * k);
        int *piv = lu->piv + k * nb, *info = lu->piv + lu->kt * nb + k;
        int64_t kw = m < w ? m : w;
        dag__panel_copy(&od, lu->where, a, k, k, a->mt, nb, ws, false);
        if (type == DAG_F64)
            dag_spawn_with(DAG__NAMED(&od, "getrf"), DAG_LAUNCH(dag_dgetrf, 1), Val((int)m), Val((int)w), InOut(ws), Ld(ws),
                           Out(piv, kw), Out(info, 1));
        else
            dag_spawn_with(DAG__NAMED(&od, "getrf"), DAG_LAUNCH(dag_sgetrf, 1), Val((int)m), Val((int)w), InOut(ws), Ld(ws),
                           Out(piv, kw), Out(info, 1));
        dag_spawn_with(DAG__NAMED(&o, "getrf"), dag__lu_panel_pivots, In(piv, kw), In(info, 1), Val(m), Val(w), Out(mv),
                       Val(nb), Val(k * nb));
        dag__panel_copy(&od, lu->where, a, k, k, a->mt, nb, ws, true);
        return;
    }
    dag__panel_copy(&o, NULL, a, k, k, a->mt, nb, ws, false);
    dag_spawn_with(DAG__NAMED(&o, "getrf"), dag__lu_panel, Val(type), Val(m), Val(w), InOut(ws), Ld(ws), Out(mv),
                   Val(nb), Val(k * nb));
    dag__panel_copy(&o, NULL, a, k, k, a->mt, nb, ws, true);
}

/* Step k's row moves in tile column j of x (the matrix, or the right-hand sides), s its saved rows. */
static void dag__lu_swap_col(const dag__lu *lu, dag_array *x, dag_array *s, int64_t k, int64_t j, int64_t priority) {
    dag_data mv = DAG__H(lu->moves, k, 0);
    int elem = (int)x->elem;
    int64_t cols = DAG__C(x, j), nb = lu->nb;
    dag_options o = dag__with_priority(&lu->where->cpu, (int)priority);
    if (!s && j > k) {   /* a span of a wrapped matrix, right of the panel: and U's row there */
        dag_spawn_with(DAG__NAMED(&o, "laswp"), dag__lu_laswp_trsm, In(mv), Val((int)x->type), Val(cols),
                       dag__lu_span(x, k, x->mt, j, DAG_ACCESS_INOUT), Val(x->ld),
                       dag__lu_span(x, k, k + 1, k, DAG_ACCESS_IN), Val(x->ld));
        return;
    }
    if (!s) {
        dag_spawn_with(DAG__NAMED(&o, "laswp"), dag__lu_laswp, In(mv), Val(elem), Val(cols),
                       dag__lu_span(x, k, x->mt, j, DAG_ACCESS_INOUT), Val(x->ld));
        return;
    }
    dag_data t = DAG__H(x, k, j), sv = DAG__H(s, k % s->mt, j);
    if (lu->dev) {   /* on the tiles' devices: the matrix never goes to the host for its rows */
        dag_options on = dag__potrf_on(lu->where, true, k, j, priority);
        size_t items = (size_t)(nb * cols);
        long top_rows = (long)DAG__R(x, k);   /* how 0 and 1 read no rows argument: it bounds a mock's checks */
        dag_spawn_with(DAG__NAMED(&on, "laswp"), DAG_LAUNCH(dag__array_lu_rows, items), Val(0), Val(elem), Val((long)nb),
                       In(mv), In(t), Ld(t), Val(0L), Val(top_rows), Out(sv), Ld(sv));
        dag_spawn_with(DAG__NAMED(&on, "laswp"), DAG_LAUNCH(dag__array_lu_rows, items), Val(1), Val(elem), Val((long)nb),
                       In(mv), In(sv), Ld(sv), Val(0L), Val(top_rows), InOut(t), Ld(t));
        for (int64_t i = k + 1; i < x->mt; i++)   /* pull */
            dag_spawn_with(DAG__NAMED(&on, "laswp"), DAG_LAUNCH(dag__array_lu_rows, items), Val(2), Val(elem), Val((long)nb),
                           In(mv), In(DAG__H(x, i, j)), Ld(DAG__H(x, i, j)), Val((long)((i - k) * nb)),
                           Val((long)DAG__R(x, i)), InOut(t), Ld(t));
        for (int64_t i = k + 1; i < x->mt; i++) {   /* push */
            on = dag__potrf_on(lu->where, true, i, j, priority);
            dag_spawn_with(DAG__NAMED(&on, "laswp"), DAG_LAUNCH(dag__array_lu_rows, items), Val(3), Val(elem), Val((long)nb),
                           In(mv), In(sv), Ld(sv), Val((long)((i - k) * nb)), Val((long)DAG__R(x, i)), InOut(DAG__H(x, i, j)),
                           Ld(DAG__H(x, i, j)));
        }
        return;
    }
    dag_spawn_with(DAG__NAMED(&o, "laswp"), dag__lu_save, In(mv), Val(elem), Val(cols), InOut(t), Ld(t), Out(sv), Ld(sv));
    for (int64_t i = k + 1; i < x->mt; i++)   /* pull */
        dag_spawn_with(DAG__NAMED(&o, "laswp"), dag__lu_pull_push, In(mv), Val(0), Val(elem), Val(cols), In(DAG__H(x, i, j)),
                       Ld(DAG__H(x, i, j)), Val((i - k) * nb), Val((int64_t)DAG__R(x, i)), InOut(t), Ld(t));
    for (int64_t i = k + 1; i < x->mt; i++)   /* push */
        dag_spawn_with(DAG__NAMED(&o, "laswp"), dag__lu_pull_push, In(mv), Val(1), Val(elem), Val(cols), In(sv), Ld(sv),
                       Val((i - k) * nb), Val((int64_t)DAG__R(x, i)), InOut(DAG__H(x, i, j)), Ld(DAG__H(x, i, j)));
}

/* Step k's U row tile (k, j) and the updates of tile column j below it; on a wrapped matrix, of tile
   columns j to j2 - 1 at once (their U row solved with their row moves: dag__lu_swap_col). */
static void dag__lu_update_col(dag__lu *lu, int64_t k, int64_t j, int64_t j2) {
    dag_array *a = lu->a;
    int type = (int)a->type, ld = (int)a->ld;
    int64_t priority = lu->top - 3 * j - 1;
    dag_options o = dag__potrf_on(lu->where, lu->dev, k, j, priority);
    if (!lu->panels) {
        dag__spawn_tri((dag__tile_place){ &o, lu->dev }, a->type, 0, 0, 0, 0, 1, DAG__R(a, k), DAG__C(a, j), 1.0,
                        DAG__H(a, k, k), DAG__H(a, k, j));
        for (int64_t i = k + 1; i < a->mt; i++) {
            o = dag__potrf_on(lu->where, lu->dev, i, j, priority - 1);
            dag__spawn_gemm((dag__tile_place){ &o, lu->dev }, a->type, 0, 0, DAG__R(a, i), DAG__C(a, j), DAG__C(a, k),
                            -1.0, DAG__H(a, i, k), DAG__H(a, k, j), 1.0, DAG__H(a, i, j));
        }
        return;
    }
    o = dag__with_priority(&lu->where->cpu, (int)(priority - 1));
    for (int64_t i = k + 1, i2; i < a->mt; i = i2) {   /* a chunk of rows at once */
        i2 = i + lu->chunk < a->mt ? i + lu->chunk : a->mt;
        int rows = (int)(dag__imin(i2 * a->brows, a->rows) - i * a->brows);
        int cols = (int)(dag__imin(j2 * a->bcols, a->cols) - j * a->bcols);
        dag_spawn_with(DAG__NAMED(&o, "gemm"), dag__tile_gemm, Val(type), Val(0), Val(0), Val(rows), Val(cols),
                       Val(DAG__C(a, k)), Val(-1.0), dag__lu_span(a, i, i2, k, DAG_ACCESS_IN), Val(ld),
                       dag__lu_block(a, k, k + 1, j, j2, DAG_ACCESS_IN), Val(ld), Val(1.0),
                       dag__lu_block(a, i, i2, j, j2, DAG_ACCESS_INOUT), Val(ld));
    }
}

/* The saved rows of the diagonal tile row for x's row moves: a tile row per grid row of ranks, each tile
   on the rank of the tiles it saves. NULL for a wrapped matrix's spans (no copy). */
static dag_array *dag__lu_saved(const dag_array *x, bool spans) {
    if (spans) return NULL;
    return dag__array_new(x->type, x->p * x->brows, x->cols, dag_blocks_grid(x->brows, x->bcols, x->p, x->q), NULL, 0,
                          false);
}

static bool dag__lu_check(const dag_array *a, const char *who) {
    if (!dag__array_la(a, who, "A")) return false;
    if (a->brows == a->bcols) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: needs square tiles (%lld x %lld)", who, (long long)a->brows,
            (long long)a->bcols);
    return false;
}

/* The factorisation; moves (when asked) keeps the row moves for dag__lu_solve. */
static dag_result dag__lu_factor(dag_array *a, int64_t *ipiv, dag_array **moves) {
    dag__array_where where = dag__array_where_for("dag_array_getrf", a);
    if (where.status) return where.status;
    if (!dag__lu_check(a, "dag_array_getrf")) return DAG_ERR_INVALID_ARGUMENT;
    dag__lu lu = { a, NULL, NULL, &where, false, where.devices > 0, a->brows, 0, 0, 0, 0, 0, NULL };
    lu.kt = a->mt < a->nt ? a->mt : a->nt;
    if (dag__lu_panels_on_devices(&where, a->type) &&
        !(lu.piv = (int *)dag__array_zalloc((size_t)(lu.kt * (lu.nb + 1)), sizeof(int))))
        return DAG_ERR_OUT_OF_MEMORY;
    /* a gemm of several column blocks packs its rows of the panel once for all of them: up to 4, while
       each worker keeps two groups */
    lu.group = dag__imax(1, dag__imin(4, a->nt / (4 * dag_device_count(DAG_CPU))));
    lu.panels = a->ld && !lu.dev && !dag__ranks();
    lu.slots = dag__ranks() ? lu.kt : lu.kt < 3 ? lu.kt : 3;   /* rotating workspaces, as potrf's inverses */
    lu.top = 3 * a->nt + 3;
    lu.chunk = dag__panel_chunk(a->mt, lu.nb);
    int64_t len = DAG__MV_LEN(lu.nb);
    lu.moves = dag__array_new(DAG_I64, lu.kt * len, 1, dag_blocks_grid(len, 1, a->p, a->q), NULL, 0, true);
    if (!lu.panels)
        lu.work = dag__array_new(a->type, lu.slots * a->rows, lu.nb, dag_blocks_grid(a->rows, lu.nb, a->p, a->q), NULL,
                                 0, true);
    dag_array *saved = dag__lu_saved(a, lu.panels);
    dag_result r = DAG_ERR_OUT_OF_MEMORY;
    if (lu.moves && (lu.panels || (lu.work && saved))) {
        DAG_DATADEPS {
            for (int64_t k = 0; k < lu.kt; k++) {
                dag__lu_panel_step(&lu, k);
                for (int64_t j = 0; j < a->nt; j++)   /* the columns to the left last: L's rows, off the path */
                    if (j != k) dag__lu_swap_col(&lu, a, saved, k, j, j > k ? lu.top - 3 * j - 1 : 1);
                for (int64_t j = k + 1, j2; j < a->nt; j = j2) {   /* the next panel's column alone */
                    j2 = j == k + 1 || !lu.panels ? j + 1 : dag__imin(a->nt, j + lu.group);
                    dag__lu_update_col(&lu, k, j, j2);
                }
                int64_t kw = DAG__C(a, k) < a->rows - k * lu.nb ? DAG__C(a, k) : a->rows - k * lu.nb;
                if (ipiv)   /* every rank's own ipiv */
                    dag_spawn_with(DAG__NAMED(&where.cpu, "ipiv"), dag__lu_ipiv, In(DAG__H(lu.moves, k, 0)),
                                   Val(k * lu.nb), Out(ipiv + k * lu.nb, kw));
            }
        }
        r = dag_last_region_result();
    }
    dag__array_discard(lu.work);
    dag__array_discard(saved);
    DAG_FREE(lu.piv);
    if (moves && r == DAG_OK) *moves = lu.moves;
    else dag__array_discard(lu.moves);
    return r;
}

/* B's rows moved as the factorisation moved A's (moves), then L Y = B and U X = Y. */
static dag_result dag__lu_solve(dag_array *a, dag_array *moves, dag_array *b) {
    dag__array_where where = dag__array_where_for("dag_array_getrs", b);
    if (where.status) return where.status;
    dag__lu lu = { b, NULL, moves, &where, false, where.devices > 0, a->brows, 0, 0, 0, 0, 0, NULL };
    lu.kt = a->mt < a->nt ? a->mt : a->nt;
    dag_array *saved = dag__lu_saved(b, false);
    if (!saved) return DAG_ERR_OUT_OF_MEMORY;
    DAG_DATADEPS {
        for (int64_t k = 0; k < lu.kt; k++)
            for (int64_t j = 0; j < b->nt; j++) dag__lu_swap_col(&lu, b, saved, k, j, 1);
    }
    dag_result r = dag_last_region_result();
    dag__array_discard(saved);
    if (r == DAG_OK) r = dag_array_trsm(0, 0, 0, 1, 1.0, a, b);
    return r != DAG_OK ? r : dag_array_trsm(0, 1, 0, 0, 1.0, a, b);
}

static bool dag__lu_conform(const dag_array *a, const dag_array *b, const char *who) {
    if (!dag__array_la(a, who, "A") || !dag__array_la(b, who, "B")) return false;
    if (a->rows == a->cols && b->rows == a->rows && b->type == a->type) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: A (%lld x %lld) must be square, B (%lld x %lld) of its rows "
            "and type", who, (long long)a->rows, (long long)a->cols, (long long)b->rows, (long long)b->cols);
    return false;
}

/* A in square tiles (the smaller side of its own), B in A's tile rows: the arrays themselves, or copies. */
static dag_array *dag__lu_operand(dag_array *a) {
    int64_t nb = dag__imin(a->brows, a->bcols);
    return dag__operand(a, dag_blocks_grid(nb, nb, a->p, a->q), true);
}
static dag_array *dag__rhs_operand(dag_array *b, const dag_array *a) {
    return dag__operand(b, dag_blocks_grid(a->brows, b->bcols, b->p, b->q), true);
}

dag_result dag_array_getrf(dag_array *a, int64_t *ipiv) {
    if (!a) return dag__lu_factor(a, ipiv, NULL);
    dag_array *a2 = dag__lu_operand(a);
    return a2 ? dag__operand_end(a, a2, true, dag__lu_factor(a2, ipiv, NULL)) : dag__no_operand();
}

/* The moves array of LAPACK's ipiv (1-based): every rank builds it from its own ipiv. */
static dag_array *dag__lu_moves_of(const dag_array *a, const int64_t *ipiv, const char *who) {
    int64_t nb = a->brows, kt = a->mt, len = DAG__MV_LEN(nb), n = a->rows;
    int64_t *host = (int64_t *)dag__array_zalloc((size_t)(kt * len), sizeof *host);
    bool bad = !host || !ipiv;
    for (int64_t k = 0; !bad && k < kt; k++) {
        int64_t *mv = host + k * len, kw = n - k * nb < nb ? n - k * nb : nb;
        for (int64_t r = 0; r < kw && !bad; r++) {
            int64_t p = ipiv[k * nb + r] - 1 - k * nb;   /* LAPACK's swaps of a step stay in its panel */
            bad = p < r || p >= n - k * nb;
            DAG__MV_IPIV(mv)[r] = p;
        }
        mv[DAG__MV_NB] = nb;
        if (!bad) dag__lu_moves(mv, kw, kw, nb);
    }
    dag_array *m = NULL;
    if (!bad) m = dag_array_from_host(DAG_I64, kt * len, 1, dag_blocks_grid(len, 1, a->p, a->q), host, DAG_COL_MAJOR, kt * len);
    else dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !ipiv ? "ipiv is NULL (getrf's pivots are needed)"
                 : !host ? "no memory" : "ipiv is not getrf's (each ipiv[i] - 1 from i to n - 1, within its step's panel)");
    DAG_FREE(host);
    return m;
}

dag_result dag_array_getrs(dag_array *a, const int64_t *ipiv, dag_array *b) {
    if (!dag__lu_conform(a, b, "dag_array_getrs")) return DAG_ERR_INVALID_ARGUMENT;
    dag_array *a1 = dag__unaliased(a, b, false, "dag_array_getrs");   /* the factor, read while B is written */
    dag_array *a2 = a1 ? dag__lu_operand(a1) : NULL, *b2 = a2 ? dag__rhs_operand(b, a2) : NULL;
    dag_array *moves = b2 ? dag__lu_moves_of(a2, ipiv, "dag_array_getrs") : NULL;
    dag_result r = !b2 ? dag__no_operand() : !moves ? DAG_ERR_INVALID_ARGUMENT : dag__lu_solve(a2, moves, b2);
    dag__array_discard(moves);
    dag__operand_end(a1, a2, false, r);
    dag__unaliased_end(a, a1);
    return dag__operand_end(b, b2, true, r);
}

dag_result dag_array_gesv(dag_array *a, int64_t *ipiv, dag_array *b) {
    if (!dag__lu_conform(a, b, "dag_array_gesv") || !dag__apart(a, b, "dag_array_gesv", "A", "B"))
        return DAG_ERR_INVALID_ARGUMENT;
    dag_array *a2 = dag__lu_operand(a), *b2 = a2 ? dag__rhs_operand(b, a2) : NULL, *moves = NULL;
    dag_result r = b2 ? dag__lu_factor(a2, ipiv, &moves) : dag__no_operand();
    if (r == DAG_OK) r = dag__lu_solve(a2, moves, b2);
    dag__array_discard(moves);
    r = dag__operand_end(a, a2, true, r);
    return dag__operand_end(b, b2, true, r);
}

/* >>more constructors: uninitialised and similar arrays, random fills in
   place, and dag_blocks_auto's tile sizes. */

/* dag_blocks_auto(): tiles of at most 2 MiB (32 MiB when the scope in force names devices): square, a
   side a multiple of 32 (512 for 8-byte elements, 704 for 4-byte; 2048 and 2880 with devices); halved,
   down to 64, while the array would have fewer than 4 tiles per worker (every rank's CPU workers and the
   devices in scope). A vector (one row or one column) takes tiles along it, of the same bytes, halved
   down to 4096 elements by the same rule. Every rank must see the same workers and devices (it decides
   alone, and the tilings must agree). */
static dag_blocks dag__blocks_resolve(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    size_t elem = dag__elem_size(type);
    if (b.rows != -1 || b.cols != -1 || !elem || rows <= 0 || cols <= 0) return b;   /* dag__array_new says why */
    dag__array_where w = dag__array_where_now("dag_blocks_auto");
    int64_t want = 4 * ((int64_t)dag_device_count(DAG_CPU) + w.devices) * dag_num_ranks();
    int64_t most = (w.devices ? (int64_t)32 << 20 : (int64_t)2 << 20) / (int64_t)elem;
    if (rows == 1 || cols == 1) {
        int64_t n = rows * cols, t = most;
        while (t > 4096 && dag__ceil_div(n, t) < want) t /= 2;
        return dag_blocks_grid(rows == 1 ? 1 : t, rows == 1 ? t : 1, b.grid_rows, b.grid_cols);
    }
    int64_t t = 32;
    while ((t + 32) * (t + 32) <= most) t += 32;
    while (t > 64 && dag__ceil_div(rows, t) < want && dag__ceil_div(cols, t) < want &&
           dag__ceil_div(rows, t) * dag__ceil_div(cols, t) < want)   /* each under want: no overflow */
        t = dag__imax(64, t / 2 / 32 * 32);
    if (rows < t || cols < t) {   /* short and wide, or tall and thin: its whole short side, and the long
                                     side as far as `most` goes (Julia's AutoBlocks), then halved for work */
        int64_t n = rows < t ? cols : rows, side = dag__imax(t, most / (rows < t ? rows : cols) / 32 * 32);
        while (side > 64 && dag__ceil_div(n, side) < want) side = dag__imax(64, side / 2 / 32 * 32);
        return rows < t ? dag_blocks_grid(rows, side, b.grid_rows, b.grid_cols) : dag_blocks_grid(side, cols, b.grid_rows, b.grid_cols);
    }
    return dag_blocks_grid(t, t, b.grid_rows, b.grid_cols);
}

dag_array *dag_array_undef(dag_elem type, int64_t rows, int64_t cols, dag_blocks b) {
    return dag__array_new(type, rows, cols, b, NULL, 0, false);
}
dag_array *dag_array_similar(const dag_array *a) {
    if (a) return dag__keeps_1d(a, dag__array_new(a->type, a->rows, a->cols, dag__tiling_of(a), NULL, 0, false));
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_similar: no array");
    return NULL;
}
dag_elem dag_array_type(const dag_array *a) { return a ? a->type : (dag_elem)0; }

/* >>vectors: 1-D arrays, stored as n x 1 columns; the flag `vector` is what makes them 1-D */
/* n x 1 in tiles of block rows (auto: block 0), dealt over every rank (a grid of ranks x 1) */
static dag_blocks dag__vector_blocks(int64_t block) {
    int ranks = dag_num_ranks();
    /* (a negative block stays negative: the constructor refuses it by name, where 0 asks for dag_blocks_auto's) */
    dag_blocks b = { block ? block : -1, block ? 1 : -1, ranks > 1 ? ranks : 0, ranks > 1 ? 1 : 0 };
    return b;
}
static dag_array *dag__as_vector(dag_array *a) {
    if (a) a->vector = true;
    return a;
}
dag_array *dag_vector_zeros(dag_elem type, int64_t n, int64_t block) { return dag__as_vector(dag_array_zeros(type, n, 1, dag__vector_blocks(block))); }
dag_array *dag_vector_ones(dag_elem type, int64_t n, int64_t block) { return dag__as_vector(dag_array_ones(type, n, 1, dag__vector_blocks(block))); }
dag_array *dag_vector_fill(dag_elem type, int64_t n, int64_t block, double value) {
    return dag__as_vector(dag_array_fill(type, n, 1, dag__vector_blocks(block), value));
}
dag_array *dag_vector_rand(dag_elem type, int64_t n, int64_t block, uint64_t seed) {
    return dag__as_vector(dag_array_rand(type, n, 1, dag__vector_blocks(block), seed));
}
dag_array *dag_vector_randn(dag_elem type, int64_t n, int64_t block, uint64_t seed) {
    return dag__as_vector(dag_array_randn(type, n, 1, dag__vector_blocks(block), seed));
}
dag_array *dag_vector_undef(dag_elem type, int64_t n, int64_t block) { return dag__as_vector(dag_array_undef(type, n, 1, dag__vector_blocks(block))); }
dag_array *dag_vector_from_host(dag_elem type, int64_t n, int64_t block, const void *data) {
    return dag__as_vector(dag__array_from_host(-1, type, n, 1, dag__vector_blocks(block), data, DAG_COL_MAJOR, n, "dag_vector_from_host"));
}
dag_array *dag_vector_wrap(dag_elem type, int64_t n, int64_t block, void *data) {
    return dag__as_vector(dag_array_wrap(type, n, 1, dag__vector_blocks(block), data, n));
}
/* v's elements as a line (an n x 1 column or a 1 x n row): true, else logged */
static bool dag__is_line(const dag_array *v, const char *who) {
    if (v && (v->cols == 1 || v->rows == 1)) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !v ? "no vector" : "not a vector (more than one row and column)");
    return false;
}
dag_array *dag_vector_view(dag_array *v, int64_t i0, int64_t n) {
    if (!dag__is_line(v, "dag_vector_view")) return NULL;
    return dag__keeps_1d(v, v->cols == 1 ? dag_array_view(v, i0, n, 0, 1) : dag_array_view(v, 0, 1, i0, n));
}
dag_result dag_vector_collect(dag_array *v, void *out) {
    return dag__is_line(v, "dag_vector_collect") ? dag_array_collect(v, out, DAG_COL_MAJOR, v->rows) : DAG_ERR_INVALID_ARGUMENT;
}
dag_result dag_vector_get(dag_array *v, int64_t i, double *value) {
    if (!dag__is_line(v, "dag_vector_get")) return DAG_ERR_INVALID_ARGUMENT;
    return v->cols == 1 ? dag_array_get(v, i, 0, value) : dag_array_get(v, 0, i, value);
}
dag_result dag_vector_put(dag_array *v, int64_t i, double value) {
    if (!dag__is_line(v, "dag_vector_put")) return DAG_ERR_INVALID_ARGUMENT;
    return v->cols == 1 ? dag_array_put(v, i, 0, value) : dag_array_put(v, 0, i, value);
}
int dag_array_ndims(const dag_array *a) { return !a ? 0 : a->vector ? 1 : 2; }
int64_t dag_array_length(const dag_array *a) { return a ? a->rows * a->cols : 0; }

/* rand or randn into a, the values dag_array_rand gives an array of its shape (a view's from its own
   corner); through tiles of its own where a's are not (a view, a wrapped matrix). */
static dag_result dag__array_fill_in(dag_array *a, int how, uint64_t seed, const char *who) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return where.status;
    if (!a) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no array", who);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    dag_array *t = a->base || a->ld ? dag_array_similar(a) : a;
    if (!t) return DAG_ERR_OUT_OF_MEMORY;
    if (dag__complex(a->type)) where.devices = 0;   /* dag__array_where_for */
    return dag__operand_end(a, t, true, dag__fill_tiles(&where, t, how, 0.0, seed));
}
dag_result dag_array_fill_rand(dag_array *a, uint64_t seed) {
    return dag__array_fill_in(a, DAG__FILL_RAND, seed, "dag_array_fill_rand");
}
dag_result dag_array_fill_randn(dag_array *a, uint64_t seed) {
    return dag__array_fill_in(a, DAG__FILL_RANDN, seed, "dag_array_fill_randn");
}

/* >>indexing: elements and rectangles to and from host memory, hcat and vcat */
static dag_result dag__array_slice(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, void *host,
                                   int64_t ld, int to_array, const char *who) {
    if (!dag__rect_inside(a, r0, rows, c0, cols, who)) return DAG_ERR_INVALID_ARGUMENT;
    dag_array *v = dag_array_view(a, r0, rows, c0, cols);
    if (!v) return DAG_ERR_INVALID_ARGUMENT;
    dag_result r = dag__array_host_copy(v, host, DAG_COL_MAJOR, ld, to_array, -1, who);
    dag_array_free(v);
    return r;
}
dag_result dag_array_get_slice(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, void *out, int64_t ld) {
    return dag__array_slice(a, r0, rows, c0, cols, out, ld, 0, "dag_array_get_slice");
}
dag_result dag_array_put_slice(dag_array *a, int64_t r0, int64_t rows, int64_t c0, int64_t cols, const void *in,
                               int64_t ld) {
    return dag__array_slice(a, r0, rows, c0, cols, (void *)(uintptr_t)in, ld, 1, "dag_array_put_slice");
}
dag_result dag_array_get(dag_array *a, int64_t r, int64_t c, double *value) {
    if (!dag__not_complex(a, "dag_array_get", "a double would lose the imaginary part (dag_array_get_slice of 1 x 1 "
                          "gives the element)"))
        return DAG_ERR_INVALID_ARGUMENT;
    if (!value) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_get: value is NULL");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    int64_t x[2] = { 0, 0 };   /* room for any element */
    dag_result res = dag__array_slice(a, r, 1, c, 1, x, 1, 0, "dag_array_get");
    if (res == DAG_OK) *value = dag__elem_get(a->type, x);
    return res;
}
dag_result dag_array_put(dag_array *a, int64_t r, int64_t c, double value) {
    int64_t x[2] = { 0, 0 };   /* room for any element (complex: value + 0i) */
    if (a && !dag__elem_holds(a->type, value, "dag_array_put")) return DAG_ERR_INVALID_ARGUMENT;
    if (a) dag__elem_put(a->type, x, value);
    return dag__array_slice(a, r, 1, c, 1, x, 1, 1, "dag_array_put");
}

/* Index vectors as runs of consecutive indices: run k takes len of a's indices from `from` into the
   result's from `to`. Returns the count, or -1 (logged) for an index out of range. */
typedef struct dag__index_run { int64_t from, to, len; } dag__index_run;
static int64_t dag__index_runs(const int64_t *idx, int64_t n, int64_t limit, dag__index_run *runs, const char *dim) {
    if (!idx) {
        runs[0] = (dag__index_run){ 0, 0, limit };
        return 1;
    }
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        if (idx[i] < 0 || idx[i] >= limit) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_index: %s[%lld] is %lld, outside 0 to %lld", dim,
                    (long long)i, (long long)idx[i], (long long)(limit - 1));
            return -1;
        }
        if (count && runs[count - 1].from + runs[count - 1].len == idx[i]) runs[count - 1].len++;
        else runs[count++] = (dag__index_run){ idx[i], i, 1 };
    }
    return count;
}

dag_array *dag_array_index(dag_array *a, const int64_t *rows, int64_t nr, const int64_t *cols, int64_t nc) {
    dag__array_where where = dag__array_where_now("dag_array_index");
    if (where.status) return NULL;
    if (!a || (rows && nr <= 0) || (cols && nc <= 0)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_index: %s", !a ? "no array (NULL)"
                : "an empty list of indices (arrays have at least one row and one column)");
        return NULL;
    }
    nr = rows ? nr : a->rows, nc = cols ? nc : a->cols;
    dag__index_run *rr = (dag__index_run *)dag__array_zalloc((size_t)(rows ? nr : 1), sizeof *rr);   /* (NULL if it overflows) */
    dag__index_run *cr = (dag__index_run *)dag__array_zalloc((size_t)(cols ? nc : 1), sizeof *cr);
    int64_t nrr = rr ? dag__index_runs(rows, nr, a->rows, rr, "rows") : -1;
    int64_t ncr = cr && nrr >= 0 ? dag__index_runs(cols, nc, a->cols, cr, "cols") : -1;
    if (!rr || !cr)
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array_index: no memory for %lld x %lld indices", (long long)nr,
                (long long)nc);
    dag_array *out = ncr < 0 ? NULL : dag_array_undef(a->type, nr, nc, dag__tiling_of(a));
    if (out) {
        dag__rect base = dag__rect_of(a);
        /* the indices go to the tasks as values: over ranks, every rank's lists must be the same */
        dag__mpi_agree_numbers("dag_array_index's rows (none: all)", rows, rows ? nr : 0);
        dag__mpi_agree_numbers("dag_array_index's columns (none: all)", cols, cols ? nc : 0);
        DAG_DATADEPS {
            for (int64_t j = 0; j < ncr; j++)
                for (int64_t i = 0; i < nrr; i++) {
                    dag__rect s = { base.a, base.r0 + rr[i].from, base.c0 + cr[j].from, rr[i].len, cr[j].len };
                    dag__rect d = { out, rr[i].to, cr[j].to, rr[i].len, cr[j].len };
                    dag__copy_rect(&where, s, d, 0);
                }
        }
        if (dag_last_region_result() != DAG_OK) dag_array_free(out), out = NULL;
    }
    if ((!rr || !cr) && !out) dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array_index: no memory for the indices");
    DAG_FREE(rr), DAG_FREE(cr);
    return dag__keeps_1d(a, out);
}

/* The parts side by side (across) or one above the other, into a new array in the first one's tiles. */
static dag_array *dag__array_cat(int n, dag_array *const *parts, bool across, const char *who) {
    bool ok = n > 0 && parts && parts[0];
    int64_t rows = 0, cols = 0;
    for (int i = 0; ok && i < n; i++) {
        ok = parts[i] && parts[i]->type == parts[0]->type &&
             (across ? parts[i]->rows == parts[0]->rows : parts[i]->cols == parts[0]->cols);
        rows = across ? parts[0]->rows : rows + (ok ? parts[i]->rows : 0);
        cols = across ? cols + (ok ? parts[i]->cols : 0) : parts[0]->cols;
    }
    if (!ok) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %d arrays, each of one element type and %s", who, n,
                across ? "as many rows" : "as many columns");
        return NULL;
    }
    dag_array *out = dag__array_new(parts[0]->type, rows, cols, dag__tiling_of(parts[0]), NULL, 0, false);
    for (int64_t i = 0, at = 0; out && i < n; at += across ? parts[i]->cols : parts[i]->rows, i++) {
        dag_array *v = dag_array_view(out, across ? 0 : at, parts[i]->rows, across ? at : 0, parts[i]->cols);
        dag_result r = v ? dag_array_copy(parts[i], v) : DAG_ERR_OUT_OF_MEMORY;
        dag_array_free(v);
        if (r != DAG_OK) dag_array_free(out), out = NULL;
    }
    return out;
}
dag_array *dag_array_hcat(int n, dag_array *const *parts) { return dag__array_cat(n, parts, true, "dag_array_hcat"); }
dag_array *dag_array_vcat(int n, dag_array *const *parts) {
    dag_array *out = dag__array_cat(n, parts, false, "dag_array_vcat");
    bool vectors = out != NULL;   /* (out: every part was there) */
    for (int i = 0; vectors && i < n; i++) vectors = parts[i]->vector;
    if (vectors) out->vector = true;
    return out;
}

/* >>reductions along a dimension: each tile's columns (dims 1) or rows
   (dims 2) reduced into a part (a kernel per tile, on the CPU or the
   tile's device, in double, or in 64-bit integers for the integer types),
   then the parts combined into the result's
   tile in order (a kernel each), from init. A C function operator runs the
   same steps as CPU tasks; a DAG_KERNEL operator combines whole tiles
   (a copy of the array in tiles of one column each, so every column piece
   has its own handle). */
typedef struct dag__fn_ops { double (*map)(double); double (*reduce)(double, double); } dag__fn_ops;
static const dag_task_desc *const dag__dimred_by_type[4] = { &dag__array_dimred_f64__desc, &dag__array_dimred_f32__desc,
                                                             &dag__array_dimred_i32__desc, &dag__array_dimred_i64__desc };
static const dag_task_desc *const dag__dimcomb_by_type[4] = { &dag__array_dimcomb_f64__desc, &dag__array_dimcomb_f32__desc,
                                                              &dag__array_dimcomb_i32__desc, &dag__array_dimcomb_i64__desc };
/* a tile's part with a C function: map then reduce, in double */
DAG_TASK(void, dag__dimred_fn, (dag__fn_ops, f), (int, type), (int, dim), (int64_t, rows), (int64_t, cols),
         (const void *, x), (int64_t, xld), (double *, part)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t k = 0, n = dim == 1 ? rows : cols; k < (dim == 1 ? cols : rows); k++)
        for (int64_t t = 0; t < n; t++) {
            double v = dag__elem_get((dag_elem)type, (const char *)x + (size_t)(dim == 1 ? t + k * xld : k + t * xld) * elem);
            v = f.map ? f.map(v) : v;
            part[k] = t ? f.reduce(part[k], v) : v;
        }
}
DAG_TASK(void, dag__dimcomb_fn, (dag__fn_ops, f), (int, type), (int, first), (int64_t, n), (const double *, part),
         (void *, acc)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t k = 0; k < n; k++) {
        char *at = (char *)acc + (size_t)k * elem;
        dag__elem_put((dag_elem)type, at, first ? part[k] : f.reduce(dag__elem_get((dag_elem)type, at), part[k]));
    }
}

/* A complex tile's part (sum or product along dim, in double _Complex) and its combination into the
   result's tile (op 0: a copy), on the CPU. */
static dag__cf64 dag__elem_z(int type, const void *x, size_t at) {
    return type == DAG_CF64 ? ((const dag__cf64 *)x)[at] : (dag__cf64)((const dag__cf32 *)x)[at];
}
static double dag__abs_cf64(dag__cf64 z) { return hypot(__builtin_creal(z), __builtin_cimag(z)); }
DAG_TASK(void, dag__dimred_c, (int, op), (int, type), (int, dim), (int64_t, rows), (int64_t, cols), (const void *, x),
         (int64_t, xld), (void *, part)) {
    dag__cf64 *p = (dag__cf64 *)part;
    for (int64_t k = 0, n = dim == 1 ? rows : cols; k < (dim == 1 ? cols : rows); k++)
        for (int64_t t = 0; t < n; t++) {
            dag__cf64 v = dag__elem_z(type, x, (size_t)(dim == 1 ? t + k * xld : k + t * xld));
            p[k] = !t ? v : op == DAG_OP_SUM ? p[k] + v : p[k] * v;
        }
}
DAG_TASK(void, dag__dimcomb_c, (int, op), (int, type), (int64_t, n), (const void *, part), (void *, acc)) {
    for (int64_t k = 0; k < n; k++) {
        dag__cf64 v = ((const dag__cf64 *)part)[k], s = op ? dag__elem_z(type, acc, (size_t)k) : 0;
        v = op == 0 ? v : op == DAG_OP_SUM ? s + v : s * v;
        if (type == DAG_CF64) ((dag__cf64 *)acc)[k] = v;
        else ((dag__cf32 *)acc)[k] = (dag__cf32)v;
    }
}

/* n elements of one contiguous tile into another of another type (dag__elem_put's conversion) */
DAG_TASK(void, dag__tile_convert, (int, from), (int, to), (int64_t, n), (const void *, x), (void *, y)) {
    size_t fe = dag__elem_size((dag_elem)from), te = dag__elem_size((dag_elem)to);
    for (int64_t k = 0; k < n; k++)
        dag__elem_put((dag_elem)to, (char *)y + (size_t)k * te, dag__elem_get((dag_elem)from, (const char *)x + (size_t)k * fe));
}

/* How a reduction combines: a built-in op (1 to 4, the kernels) or C functions (op 0). */
typedef struct dag__reducer { int op; dag__fn_ops fn; } dag__reducer;

/* Tile (i, j)'s part of x along dim into parts' tile (i, j), then into out's tile. */
static void dag__reduce_tile(const dag__array_where *w, const dag__reducer *how, dag_array *x, dag_array *parts,
                             dag_array *out, int dim, bool first, int64_t i, int64_t j) {
    int64_t r = DAG__R(x, i), c = DAG__C(x, j), n = dim == 1 ? c : r;
    dag_data t = DAG__H(x, i, j), p = DAG__H(parts, i, j), o = dim == 1 ? DAG__H(out, 0, j) : DAG__H(out, i, 0);
    if (dag__complex(x->type)) {   /* sum or product (dag__reduce_dims refuses the rest), on the CPU */
        dag_spawn_with(DAG__NAMED(&w->cpu, "reduce"), dag__dimred_c, Val(how->op), Val((int)x->type), Val(dim), Val(r),
                       Val(c), In(t), Ld(t), Out(p));
        dag_spawn_with(DAG__NAMED(&w->cpu, "reduce"), dag__dimcomb_c, Val(first ? 0 : how->op), Val((int)x->type), Val(n),
                       In(p), InOut(o));
        return;
    }
    if (!how->op) {
        dag_spawn_with(DAG__NAMED(&w->cpu, "reduce"), dag__dimred_fn, Val(how->fn), Val((int)x->type), Val(dim), Val(r),
                       Val(c), In(t), Ld(t), Out(p));
        dag_spawn_with(DAG__NAMED(&w->cpu, "reduce"), dag__dimcomb_fn, Val(how->fn), Val((int)out->type), Val((int)first),
                       Val(n), In(p), InOut(o));
        return;
    }
    const dag_options *at = dag__tile_where(w, i, j);
    dag_arg red[8] = { DAG_VAL((size_t)n), DAG_VAL(how->op), DAG_VAL(dim), DAG_VAL((long)r), DAG_VAL((long)c), In(t), Ld(t), Out(p) };
    dag_arg comb[4] = { DAG_VAL((size_t)n), DAG_VAL(first ? 0 : how->op), In(p), InOut(o) };
    dag_options named = dag__named(at, "reduce");
    dag_spawn_desc(dag__dimred_by_type[x->type - 1], red, 8, &named);
    dag_spawn_desc(dag__dimcomb_by_type[x->type - 1], comb, 4, &named);
}

/* a reduced along dim (1: over rows, into 1 x cols; 2: over columns, into rows x 1), from init if has_init,
   into an array of type `type` (a's, or double for the first half of C functions' dims 0). */
static dag_array *dag__reduce_along(dag_array *a, int dim, const dag__reducer *how, bool has_init, double init,
                                    const char *who, dag_elem type) {
    dag__array_where where = dag__array_where_for(who, a);
    if (where.status) return NULL;
    dag_array *x = dag__operand(a, dag__any_tiling, true);
    if (!x) return NULL;
    dag_blocks b = dim == 1 ? dag_blocks_grid(1, x->bcols, x->p, x->q) : dag_blocks_grid(x->brows, 1, x->p, x->q);
    dag_array *out = dag__array_new(type, dim == 1 ? 1 : x->rows, dim == 1 ? x->cols : 1, b, NULL, 0, false);
    /* C functions reduce in double from tile to tile (as they compute), into an integer result once at
       the end: its type between tiles would make the answer depend on the tiling */
    bool in_double = !how->op && (type == DAG_I32 || type == DAG_I64);
    dag_array *acc = in_double ? dag__array_new(DAG_F64, out ? out->rows : 1, out ? out->cols : 1, b, NULL, 0, false) : out;
    /* the parts in the kernels' accumulator type (dag__array_dimred_*), or in double for C functions */
    dag_elem part_type = dag__complex(x->type) ? DAG_CF64
                         : how->op && (x->type == DAG_I32 || x->type == DAG_I64) ? DAG_I64 : DAG_F64;
    dag_array *parts = dag__array_new(part_type, dim == 1 ? x->mt : x->rows, dim == 1 ? x->cols : x->nt, b, NULL, 0, false);
    DAG_DATADEPS {
        for (int64_t j = 0; out && acc && parts && j < x->nt; j++)
            for (int64_t i = 0; i < x->mt; i++) {
                bool first = dim == 1 ? i == 0 : j == 0;
                if (first && has_init)
                    dag__tile_fill(dag__tile_where(&where, dim == 1 ? 0 : i, dim == 1 ? j : 0), acc->type, DAG__FILL_VALUE,
                                   init, 0, 0, 0, dim == 1 ? 1 : DAG__R(x, i), dim == 1 ? DAG__C(x, j) : 1,
                                   dim == 1 ? DAG__H(acc, 0, j) : DAG__H(acc, i, 0));
                dag__reduce_tile(&where, how, x, parts, acc, dim, first && !has_init, i, j);
            }
        for (int64_t t = 0; in_double && acc && out && t < out->mt * out->nt; t++)
            dag_spawn_with(DAG__NAMED(&where.cpu, "reduce"), dag__tile_convert, Val((int)DAG_F64), Val((int)out->type),
                           Val((int64_t)(DAG__R(out, t % out->mt) * DAG__C(out, t / out->mt))), In(acc->handle[t]),
                           Out(out->handle[t]));
    }
    if (in_double) dag__array_discard(acc);
    if (dag_last_region_result() != DAG_OK || (in_double && !acc)) dag_array_free(out), out = NULL;
    dag_array_free(parts);
    dag__operand_end(a, x, false, DAG_OK);
    return out;
}

/* dims 0 (over both: 1 x 1), 1 or 2, checked; dims 0 reduces rows, then that column (the map only once). */
static dag_array *dag__reduce_dims(dag_array *a, int dims, dag__reducer how, double init, const char *who) {
    if (a && !dag__elem_holds(a->type, init, who)) return NULL;
    if (!a || dims < 0 || dims > 2 || (how.op == 0 && !how.fn.reduce)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !a ? "no array" : dims < 0 || dims > 2 ?
                "dims must be 1 (over rows), 2 (over columns) or 0 (over both)" : "no reduce function");
        return NULL;
    }
    if ((how.op == 0 || how.op == DAG_OP_MIN || how.op == DAG_OP_MAX) &&
        !dag__not_complex(a, who, how.op == 0 ? "the C functions take and give doubles"
                                  : "complex numbers have no order (DAG_OP_SUM and DAG_OP_PROD take them)"))
        return NULL;
    /* C functions on integers: in double until the end (dag__reduce_along) */
    dag_elem between = how.op == 0 && (a->type == DAG_I32 || a->type == DAG_I64) ? DAG_F64 : a->type;
    if (dims) return dag__reduce_along(a, dims, &how, true, init, who, a->type);
    dag_array *rows = dag__reduce_along(a, 2, &how, false, 0.0, who, between), *all = NULL;
    how.fn.map = NULL;
    if (rows) all = dag__reduce_along(rows, 1, &how, true, init, who, a->type);
    dag_array_free(rows);
    return all;
}
dag_array *dag_array_reduce_dims(dag_array_op op, dag_array *a, int dims, double init) {
    dag__reducer how = { (int)op, { NULL, NULL } };
    if (op >= DAG_OP_SUM && op <= DAG_OP_MAX) return dag__keeps_1d(a, dag__reduce_dims(a, dims, how, init, "dag_array_reduce_dims"));
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_reduce_dims: op %d is not a dag_array_op", (int)op);
    return NULL;
}
dag_array *dag_array_mapreduce_fn(double (*map)(double), double (*reduce)(double, double), dag_array *a, int dims,
                                  double init) {
    dag__reducer how = { 0, { map, reduce } };
    return dag__keeps_1d(a, dag__reduce_dims(a, dims, how, init, "dag_array_mapreduce_fn"));
}

/* With DAG_KERNELs: x's columns combined, whole tiles of one column each (a copy of x so tiled), into a
   rows x 1 array from init. */
static dag_array *dag__kernel_reduce_columns(const dag_task_desc *reduce, dag_array *x, double init) {
    dag_array *cols = dag__operand(x, dag_blocks_grid(x->brows, 1, x->p, x->q), true);
    dag_array *out = cols ? dag__array_filled("dag_array_mapreduce", x->type, x->rows, 1,
                                              dag_blocks_grid(x->brows, 1, x->p, x->q), DAG__FILL_VALUE, init, 0) : NULL;
    dag__array_where where = dag__array_where_now("dag_array_mapreduce");
    DAG_DATADEPS {
        for (int64_t c = 0; out && c < cols->nt; c++)
            for (int64_t i = 0; i < cols->mt; i++) {
                dag_arg args[3] = { DAG_VAL((size_t)DAG__R(cols, i)), dag__typed_arg(In(DAG__H(cols, i, c)), cols->type),
                                    dag__typed_arg(InOut(DAG__H(out, i, 0)), out->type) };
                dag_options o = dag__named(dag__tile_where(&where, i, 0), "reduce");
                dag_spawn_desc(reduce, args, 3, &o);
            }
    }
    if (out && dag_last_region_result() != DAG_OK) dag_array_free(out), out = NULL;
    dag__operand_end(x, cols, false, DAG_OK);
    return out;
}
/* x^T in a new array (tiles of x's transposed, on x's grid). */
static dag_array *dag__transposed(dag_array *x, int64_t brows, int64_t bcols) {
    dag_array *t = dag__array_new(x->type, x->cols, x->rows, dag_blocks_grid(brows, bcols, x->p, x->q), NULL, 0, false);
    if (t && dag__array_copy_any(x, t, 1, "dag_array (a transpose)") != DAG_OK) dag_array_free(t), t = NULL;
    return t;
}
dag_array *dag_array_mapreduce_desc(const dag_task_desc *map, const dag_task_desc *reduce, dag_array *a, int dims,
                                    double init) {
    if (!a || (dims != 1 && dims != 2) || !reduce || !reduce->kernel || reduce->num_params != 3 ||
        (map && (!map->kernel || map->num_params != 3))) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_mapreduce: needs an array, dims 1 or 2, and "
                "DAG_KERNELs of two parameters: map (x, y) or none, reduce (x, acc)");
        return NULL;
    }
    dag_array *m = map ? dag_array_similar(a) : a;
    bool mapped = m && (!map || dag_array_map_desc(map, a, m) == DAG_OK);
    dag_array *x = !mapped ? NULL : dims == 2 ? m : dag__transposed(m, m->bcols, m->brows);   /* over rows: m^T's columns */
    dag_array *r = x ? dag__kernel_reduce_columns(reduce, x, init) : NULL;
    dag_array *out = dims == 2 || !r ? r : dag__transposed(r, 1, x->brows);
    if (r != out) dag_array_free(r);
    if (x != m) dag_array_free(x);
    if (m != a) dag_array_free(m);
    return dag__keeps_1d(a, out);
}

/* >>broadcasting: an operand of one row, one column or one element
   repeated to another's shape and tiling (a copy: a kernel per tile, on
   the CPU or the tile's device), and maps of up to four inputs. */

/* x fits `like` element by element (its shape), or broadcasts to it (one row of its columns, one column
   of its rows, or one element). */
static bool dag__fits(const dag_array *x, const dag_array *like) {
    return x && like && x->type == like->type && (x->rows == like->rows || x->rows == 1) &&
           (x->cols == like->cols || x->cols == 1);
}
/* x (one row, one column or one element of like's) repeated to like's shape, in like's tiles. */
static dag_array *dag__broadcast(dag_array *x, dag_array *like) {
    dag__array_where where = dag__array_where_now("dag_array (a broadcast)");
    bool down = x->rows == like->rows, across = x->cols == like->cols;   /* x's one column / one row */
    dag_array *v = dag__operand(x, dag_blocks_grid(down ? like->brows : 1, across ? like->bcols : 1, like->p, like->q), true);
    dag_array *y = v ? dag_array_similar(like) : NULL;
    DAG_DATADEPS {
        for (int64_t j = 0; y && j < y->nt; j++)
            for (int64_t i = 0; i < y->mt; i++) {
                dag_data s = DAG__H(v, down ? i : 0, across ? j : 0), d = DAG__H(y, i, j);
                dag_spawn_with(DAG__NAMED(dag__tile_where(&where, i, j), "broadcast"),
                               DAG_LAUNCH(dag__array_bcast_part, DAG__R(y, i) * DAG__C(y, j)), Val((int)x->elem), In(s), Ld(s),
                               Val(0L), Val(0L), Val((int)down), Val((int)across), Out(d), Ld(d), Val((long)DAG__R(y, i)));
            }
    }
    if (y && dag_last_region_result() != DAG_OK) dag_array_free(y), y = NULL;
    dag__operand_end(x, v, false, DAG_OK);
    return y;
}
/* x as a map's input in like's tiling, each tile contiguous: x itself, a copy, or a broadcast. */
static dag_array *dag__dense_operand(dag_array *x, dag_array *like) {
    if (x->rows != like->rows || x->cols != like->cols) return dag__broadcast(x, like);
    if (x->handle && !x->base && !x->ld && x->brows == like->brows && x->bcols == like->bcols && x->p == like->p &&
        x->q == like->q)
        return x;
    dag_array *t = dag_array_similar(like);
    if (t && dag_array_copy(x, t) != DAG_OK) dag_array_free(t), t = NULL;
    return t;
}

dag_array *dag_array_scalar(dag_elem type, double value) {
    return dag__array_filled("dag_array_scalar", type, 1, 1, dag_blocks(1, 1), DAG__FILL_VALUE, value, 0);
}

/* The tiles of out (contiguous: its own, or a copy) with each input in them: kernel over each tile. */
static dag_result dag__map_n_tiles(const dag_task_desc *kernel, dag_array *out, int n, dag_array *const *in, bool read_out) {
    dag__array_where where = dag__array_where_now("dag_array_map_n");
    if (where.status) return where.status;
    dag_array *o = out->base || out->ld ? dag_array_similar(out) : out, *x[4] = { NULL, NULL, NULL, NULL };
    bool ok = o && (o == out || !read_out || dag_array_copy(out, o) == DAG_OK);
    for (int k = 0; ok && k < n; k++) ok = (x[k] = in[k] == out ? o : dag__dense_operand(in[k], o)) != NULL;
    DAG_DATADEPS {
        for (int64_t t = 0; ok && t < o->mt * o->nt; t++) {
            dag_arg args[6];
            args[0] = DAG_VAL((size_t)(DAG__R(o, t % o->mt) * DAG__C(o, t / o->mt)));
            for (int k = 0; k < n; k++) args[1 + k] = dag__typed_arg(In(x[k]->handle[t]), x[k]->type);
            args[1 + n] = dag__typed_arg(dag_arg_data(read_out ? DAG_ACCESS_INOUT : DAG_ACCESS_OUT, o->handle[t]), o->type);
            dag_options named = dag__named(dag__tile_where(&where, t % o->mt, t / o->mt), kernel->name);
            dag_spawn_desc(kernel, args, n + 2, &named);
        }
    }
    dag_result r = ok ? dag_last_region_result() : DAG_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < n; k++)
        if (x[k] != o && x[k] != in[k]) dag_array_free(x[k]);
    return dag__operand_end(out, o, true, r);
}
dag_result dag_array_map_desc_n(const dag_task_desc *kernel, dag_array *out, int n, dag_array *x1, dag_array *x2,
                                dag_array *x3, dag_array *x4) {
    dag_array *in[4] = { x1, x2, x3, x4 };
    bool ok = kernel && kernel->kernel && n >= 1 && n <= 4 && kernel->num_params == n + 2 && out;
    bool read_out = false;
    for (int k = 0; ok && k < n; k++) ok = dag__fits(in[k], out), read_out |= in[k] == out;
    if (!ok) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_map_n: %s needs to be a DAG_KERNEL of %d parameters "
                "(%d inputs and the output), each input of the output's type and shape or one row, column or element "
                "of it", kernel ? kernel->name : "NULL", n + 1, n);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    return dag__map_n_tiles(kernel, out, n, in, read_out);
}

/* >>tiled QR: dag_array_geqrf and the least-squares solve dag_array_gels,
   LAPACK's blocked Householder QR on tiles. Step k factorises the panel
   (tile column k from the diagonal down, gathered into a workspace column
   as the LU's is, on the CPU: LAPACKE's geqrt in one block, else loops)
   into R, the reflectors V below the diagonal and the block's triangular
   T; each tile column j to its right then gets Q_k^T: W = V^T C_j (a chain
   of gemms down the column), W = T^T W, C_j -= V W (a gemm per tile).
   Every update is a tile gemm on the tiles' handles, so it runs on the
   tile's device under a device scope and on the tile's owner over ranks.
   The result is LAPACK's: R on and above the diagonal, V below, tau.
   dag_array_caqr (>>CAQR) factorises each panel in domains and merges
   them: more block reflectors per step, applied the same way. */

/* Householder QR of an m x n panel in place (LAPACK's geqr2: beta = -sign(alpha) |x|), and the forward,
   columnwise T of its reflectors (larft, also alone: the Q operations rebuild T from geqrf's V and tau),
   kn = min(m, n) of them, t kn x kn (ldt) with zeros below. */
#define DAG__QR_LOOPS(T, P, CONJ, RE, ABS2, MAG)                                                                       \
    DAG__UNUSED static void dag__##P##geqr2_loops(int m, int n, T *a, int lda, T *tau) {                          \
        int kn = m < n ? m : n;                                                                                    \
        for (int k = 0; k < kn; k++) {                                                                             \
            T alpha = a[k + (size_t)k * lda];                                                                      \
            /* |x|^2 below the diagonal and |alpha|^2 over scale^2 (the largest magnitude): no overflow */         \
            /* nor underflow (LAPACK's dnrm2 scales likewise) */                                                   \
            double scale = MAG(alpha), xnorm = 0;                                                                  \
            for (int i = k + 1; i < m; i++) scale = fmax(scale, MAG(a[i + (size_t)k * lda]));                     \
            for (int i = k + 1; scale > 0 && i < m; i++) xnorm += ABS2(a[i + (size_t)k * lda] / (T)scale);         \
            tau[k] = 0;                                                                                            \
            /* complex: an imaginary alpha alone counts; a NaN reaches R as LAPACK's does */                       \
            if (xnorm != 0 || ABS2(alpha - CONJ(alpha)) > 0) {                                                     \
                double beta = (RE(alpha) >= 0 ? -1 : 1) * scale * sqrt(ABS2(alpha / (T)scale) + xnorm);            \
                tau[k] = ((T)beta - alpha) / (T)beta;                                                              \
                for (int i = k + 1; i < m; i++) a[i + (size_t)k * lda] /= alpha - (T)beta;                         \
                a[k + (size_t)k * lda] = (T)beta;                                                                  \
            }                                                                                                      \
            for (int j = k + 1; j < n && tau[k] != 0; j++) { /* H_k^H applied to the columns right of it */       \
                T w = a[k + (size_t)j * lda];                                                                      \
                for (int i = k + 1; i < m; i++) w += CONJ(a[i + (size_t)k * lda]) * a[i + (size_t)j * lda];        \
                a[k + (size_t)j * lda] -= CONJ(tau[k]) * w;                                                        \
                for (int i = k + 1; i < m; i++) a[i + (size_t)j * lda] -= CONJ(tau[k]) * a[i + (size_t)k * lda] * w; \
            }                                                                                                      \
        }                                                                                                          \
    }
#define DAG__LARFT_LOOPS(T, P, CONJ)                                                                               \
    DAG__UNUSED static void dag__##P##larft_loops(int m, int kn, const T *a, int lda, const T *tau, T *t, int ldt) { \
        for (int c = 0; c < kn; c++) { /* T(0:c, c) = -tau_c T(0:c, 0:c) V(:, 0:c)^H v_c */                        \
            for (int r = 0; r < kn; r++) t[r + (size_t)c * ldt] = 0;                                               \
            for (int r = 0; r < c; r++) {                                                                          \
                T s = CONJ(a[c + (size_t)r * lda]);                                                                \
                for (int i = c + 1; i < m; i++) s += CONJ(a[i + (size_t)r * lda]) * a[i + (size_t)c * lda];        \
                t[r + (size_t)c * ldt] = -tau[c] * s;                                                              \
            }                                                                                                      \
            for (int r = 0; r < c; r++) {                                                                          \
                T s = 0;                                                                                           \
                for (int q = r; q < c; q++) s += t[r + (size_t)q * ldt] * t[q + (size_t)c * ldt];                  \
                t[r + (size_t)c * ldt] = s;                                                                        \
            }                                                                                                      \
            t[c + (size_t)c * ldt] = tau[c];                                                                       \
        }                                                                                                          \
    }
#define DAG__ABS2_R(x) ((double)(x) * (double)(x))
#define DAG__ABS2_Z(x) (__builtin_creal(x) * __builtin_creal(x) + __builtin_cimag(x) * __builtin_cimag(x))
#define DAG__ABS2_C(x) ((double)__builtin_crealf(x) * __builtin_crealf(x) + (double)__builtin_cimagf(x) * __builtin_cimagf(x))
DAG__LARFT_LOOPS(double, d, DAG__SAME)
DAG__LARFT_LOOPS(float, s, DAG__SAME)
DAG__LARFT_LOOPS(dag__cf64, z, __builtin_conj)
DAG__LARFT_LOOPS(dag__cf32, c, __builtin_conjf)
#undef DAG__LARFT_LOOPS
#define DAG__MAG_R(x) fabs((double)(x))
#define DAG__MAG_Z(x) dag__abs_cf64(x)
#define DAG__MAG_C(x) dag__abs_cf64((dag__cf64)(x))
DAG__QR_LOOPS(double, d, DAG__SAME, DAG__SAME, DAG__ABS2_R, DAG__MAG_R)
DAG__QR_LOOPS(float, s, DAG__SAME, DAG__SAME, DAG__ABS2_R, DAG__MAG_R)
DAG__QR_LOOPS(dag__cf64, z, __builtin_conj, __builtin_creal, DAG__ABS2_Z, DAG__MAG_Z)
DAG__QR_LOOPS(dag__cf32, c, __builtin_conjf, __builtin_crealf, DAG__ABS2_C, DAG__MAG_C)
#undef DAG__QR_LOOPS

/* T (kn x kn, ldt) of the panel's first kn reflectors (m x kn, below the diagonal of a, unit diagonal implied) */
static void dag__larft(int type, int m, int kn, const void *a, int lda, const void *tau, void *t, int ldt) {
#if defined(DAG_ARRAY_CBLAS)
    if (type == DAG_F64)
        LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, kn, (const double *)a, lda, (const double *)tau, (double *)t, ldt);
    else if (type == DAG_F32)
        LAPACKE_slarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, kn, (const float *)a, lda, (const float *)tau, (float *)t, ldt);
    else if (type == DAG_CF64)   /* Q = I - V T V^H, applied as Q^H (dag__qr_apply's trans is ^H) */
        LAPACKE_zlarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, kn, (const lapack_complex_double *)a, lda,
                            (const lapack_complex_double *)tau, (lapack_complex_double *)t, ldt);
    else
        LAPACKE_clarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, kn, (const lapack_complex_float *)a, lda,
                            (const lapack_complex_float *)tau, (lapack_complex_float *)t, ldt);
#else
    if (type == DAG_F64) dag__dlarft_loops(m, kn, (const double *)a, lda, (const double *)tau, (double *)t, ldt);
    else if (type == DAG_F32) dag__slarft_loops(m, kn, (const float *)a, lda, (const float *)tau, (float *)t, ldt);
    else if (type == DAG_CF64) dag__zlarft_loops(m, kn, (const dag__cf64 *)a, lda, (const dag__cf64 *)tau, (dag__cf64 *)t, ldt);
    else dag__clarft_loops(m, kn, (const dag__cf32 *)a, lda, (const dag__cf32 *)tau, (dag__cf32 *)t, ldt);
#endif
}

static void dag__geqrt(int type, int m, int n, void *a, int lda, void *tau, void *t, int ldt) {
    int kn = m < n ? m : n;
#if defined(DAG_ARRAY_CBLAS)
    /* LAPACK's geqrt with one block of all kn columns: T comes with the factorisation (geqrt3's recursion:
       twice as fast on a tall panel as geqrf and then larft), and tau is T's diagonal. The _work form:
       LAPACKE's other refuses a NaN and leaves the panel as it was (a NaN reaches R instead, as in LAPACK
       itself, and the loops). */
    size_t elem = dag__elem_size((dag_elem)type);
    void *work = dag__array_zalloc((size_t)kn * (size_t)n, elem);
    if (!work) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_geqrf: no memory for the panel's workspace");
        return;
    }
    if (type == DAG_F64) LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, kn, (double *)a, lda, (double *)t, ldt, (double *)work);
    else if (type == DAG_F32) LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, kn, (float *)a, lda, (float *)t, ldt, (float *)work);
    else if (type == DAG_CF64)
        LAPACKE_zgeqrt_work(LAPACK_COL_MAJOR, m, n, kn, (lapack_complex_double *)a, lda, (lapack_complex_double *)t, ldt,
                            (lapack_complex_double *)work);
    else LAPACKE_cgeqrt_work(LAPACK_COL_MAJOR, m, n, kn, (lapack_complex_float *)a, lda, (lapack_complex_float *)t, ldt,
                             (lapack_complex_float *)work);
    DAG_FREE(work);
    for (int i = 0; i < kn; i++) memcpy((char *)tau + (size_t)i * elem, (const char *)t + ((size_t)i + (size_t)i * (size_t)ldt) * elem, elem);
#else
    if (type == DAG_F64) dag__dgeqr2_loops(m, n, (double *)a, lda, (double *)tau);
    else if (type == DAG_F32) dag__sgeqr2_loops(m, n, (float *)a, lda, (float *)tau);
    else if (type == DAG_CF64) dag__zgeqr2_loops(m, n, (dag__cf64 *)a, lda, (dag__cf64 *)tau);
    else dag__cgeqr2_loops(m, n, (dag__cf32 *)a, lda, (dag__cf32 *)tau);
    dag__larft(type, m, kn, a, lda, tau, t, ldt);
#endif
}

/* The panel (m x w, ldp) into R and V, its tau and T (w x w, zeros below, as larft leaves its lower part
   alone), and vtop: V's top tr rows as a tile of their own (ones on the diagonal, zeros above). */
static void dag__qr_vtop(int type, int64_t m, int64_t w, const void *p, int64_t ldp, void *vtop, int64_t ldv) {
    size_t elem = dag__elem_size((dag_elem)type);
    int64_t kn = m < w ? m : w, tr = m < ldv ? m : ldv;
    for (int64_t j = 0; j < w; j++)
        for (int64_t i = 0; i < tr; i++) {
            char *v = (char *)vtop + (size_t)(i + j * ldv) * elem;
            if (i > j && j < kn) memcpy(v, (const char *)p + (size_t)(i + j * ldp) * elem, elem);
            else dag__elem_put((dag_elem)type, v, i == j && j < kn ? 1.0 : 0.0);
        }
}
DAG_TASK(void, dag__qr_panel, (int, type), (int64_t, m), (int64_t, w), (void *, p), (int64_t, ldp), (void *, tau),
         (void *, t), (int64_t, ldt), (void *, vtop), (int64_t, ldv)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t j = 0; j < w; j++) memset((char *)t + (size_t)(j * ldt) * elem, 0, (size_t)ldt * elem);
    dag__geqrt(type, (int)m, (int)w, p, (int)ldp, tau, t, (int)ldt);
    dag__qr_vtop(type, m, w, p, ldp, vtop, ldv);
}
/* The same for a panel geqrf factorised already (its V and tau): T and V's top, for the Q operations. */
DAG_TASK(void, dag__qr_panel_t, (int, type), (int64_t, m), (int64_t, w), (const void *, p), (int64_t, ldp),
         (const void *, tau), (void *, t), (int64_t, ldt), (void *, vtop), (int64_t, ldv)) {
    size_t elem = dag__elem_size((dag_elem)type);
    for (int64_t j = 0; j < w; j++) memset((char *)t + (size_t)(j * ldt) * elem, 0, (size_t)ldt * elem);
    dag__larft(type, (int)m, (int)(m < w ? m : w), p, (int)ldp, tau, t, (int)ldt);
    dag__qr_vtop(type, m, w, p, ldp, vtop, ldv);
}
/* tau of a step into the host's (every rank's own) */
DAG_TASK(void, dag__qr_tau, (const void *, src), (int64_t, n), (int, elem), (void *, tau)) {
    memcpy(tau, src, (size_t)(n * elem));
}

/* The merge of two domains' R triangles in a CAQR step (dag_array_caqr): R1 (the upper triangle of top's
   first w rows) over R2 (low's first r2 rows, upper trapezoidal), factorised as one (w + r2) x w panel.
   Its reflectors are [I; V2] with V2 upper trapezoidal (a column's zeros below R1's diagonal stay zeros):
   R1 becomes the merged R, V2 takes R2's place in low (below it, the low domain's own reflectors stay)
   and, with zeros below, fills the tile v2 (ldv rows) that the updates multiply by; t gets T (w x w).
   LAPACK's triangle-pentagon QR (tpqrt, one block of w columns) does it in place in half the flops of
   the dense stack's QR, which the build without LAPACKE runs. */
DAG_TASK(void, dag__qr_merge, (int, type), (int64_t, w), (int64_t, r2), (void *, top), (int64_t, ldtop), (void *, low),
         (int64_t, ldlow), (void *, t), (int64_t, ldt), (void *, v2), (int64_t, ldv)) {
    size_t elem = dag__elem_size((dag_elem)type);
#define DAG__AT(x, ld, i, j) ((char *)(x) + (size_t)((i) + (j) * (ld)) * elem)
    for (int64_t j = 0; j < w; j++) memset(DAG__AT(t, ldt, 0, j), 0, (size_t)ldt * elem);
#if defined(DAG_ARRAY_CBLAS)
    void *work = dag__array_zalloc((size_t)(w * w), elem);
    if (!work) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_caqr: no memory to merge two domains' triangles");
        return;
    }
    lapack_int m = (lapack_int)r2, n = (lapack_int)w, lt = (lapack_int)ldtop, ll = (lapack_int)ldlow, lT = (lapack_int)ldt;
    if (type == DAG_F64) LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, m, n, (double *)top, lt, (double *)low, ll, (double *)t, lT, (double *)work);
    else if (type == DAG_F32) LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, m, n, (float *)top, lt, (float *)low, ll, (float *)t, lT, (float *)work);
    else if (type == DAG_CF64)
        LAPACKE_ztpqrt_work(LAPACK_COL_MAJOR, m, n, m, n, (lapack_complex_double *)top, lt, (lapack_complex_double *)low, ll,
                            (lapack_complex_double *)t, lT, (lapack_complex_double *)work);
    else
        LAPACKE_ctpqrt_work(LAPACK_COL_MAJOR, m, n, m, n, (lapack_complex_float *)top, lt, (lapack_complex_float *)low, ll,
                            (lapack_complex_float *)t, lT, (lapack_complex_float *)work);
    DAG_FREE(work);
#else
    int64_t m = w + r2;
    char *s = (char *)dag__array_zalloc((size_t)(m * w), elem), *tau = (char *)dag__array_zalloc((size_t)w, elem);
    if (!s || !tau) {
        DAG_FREE(s), DAG_FREE(tau);
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_caqr: no memory to merge two domains' triangles");
        return;
    }
    for (int64_t j = 0; j < w; j++) {
        memcpy(DAG__AT(s, m, 0, j), DAG__AT(top, ldtop, 0, j), (size_t)(j + 1) * elem);
        memcpy(DAG__AT(s, m, w, j), DAG__AT(low, ldlow, 0, j), (size_t)dag__imin(j + 1, r2) * elem);
    }
    dag__geqrt(type, (int)m, (int)w, s, (int)m, tau, t, (int)ldt);
    for (int64_t j = 0; j < w; j++) {
        memcpy(DAG__AT(top, ldtop, 0, j), DAG__AT(s, m, 0, j), (size_t)(j + 1) * elem);
        memcpy(DAG__AT(low, ldlow, 0, j), DAG__AT(s, m, w, j), (size_t)dag__imin(j + 1, r2) * elem);
    }
    DAG_FREE(s), DAG_FREE(tau);
#endif
    for (int64_t j = 0; j < w; j++) {
        memset(DAG__AT(v2, ldv, 0, j), 0, (size_t)ldv * elem);
        memcpy(DAG__AT(v2, ldv, 0, j), DAG__AT(low, ldlow, 0, j), (size_t)dag__imin(j + 1, r2) * elem);
    }
#undef DAG__AT
}

#if defined(DAG_ARRAY_CBLAS)
/* A merge's Q (trans 0) or Q^H (1) applied on the CPU to its two tiles of C at once (LAPACK's tpmqrt):
   from the left, c1's first w rows over c2's first r2 rows, `other` columns; from the right, c1's first
   w columns beside c2's first r2 columns, `other` rows. Half the flops of the gemms' form (V2 and T are
   triangles), and no identity. */
DAG_TASK(void, dag__qr_merge_apply, (int, type), (int, right), (int, trans), (int64_t, w), (int64_t, r2), (int64_t, other),
         (const void *, v2), (int64_t, ldv), (const void *, t), (int64_t, ldt), (void *, c1), (int64_t, ld1), (void *, c2),
         (int64_t, ld2)) {
    void *work = dag__array_zalloc((size_t)(w * other), dag__elem_size((dag_elem)type));
    if (!work) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_caqr: no memory to apply a merge");
        return;
    }
    char side = right ? 'R' : 'L', op = !trans ? 'N' : dag__complex((dag_elem)type) ? 'C' : 'T';
    lapack_int m = (lapack_int)(right ? other : r2), n = (lapack_int)(right ? r2 : other), k = (lapack_int)w, l = (lapack_int)r2;
    lapack_int lv = (lapack_int)ldv, lt = (lapack_int)ldt, l1 = (lapack_int)ld1, l2 = (lapack_int)ld2;
    if (type == DAG_F64)
        LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, side, op, m, n, k, l, k, (const double *)v2, lv, (const double *)t, lt,
                             (double *)c1, l1, (double *)c2, l2, (double *)work);
    else if (type == DAG_F32)
        LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, side, op, m, n, k, l, k, (const float *)v2, lv, (const float *)t, lt,
                             (float *)c1, l1, (float *)c2, l2, (float *)work);
    else if (type == DAG_CF64)
        LAPACKE_ztpmqrt_work(LAPACK_COL_MAJOR, side, op, m, n, k, l, k, (const lapack_complex_double *)v2, lv,
                             (const lapack_complex_double *)t, lt, (lapack_complex_double *)c1, l1, (lapack_complex_double *)c2,
                             l2, (lapack_complex_double *)work);
    else
        LAPACKE_ctpmqrt_work(LAPACK_COL_MAJOR, side, op, m, n, k, l, k, (const lapack_complex_float *)v2, lv,
                             (const lapack_complex_float *)t, lt, (lapack_complex_float *)c1, l1, (lapack_complex_float *)c2,
                             l2, (lapack_complex_float *)work);
    DAG_FREE(work);
}
#endif

/* A QR's steps: step k's Q_k is a product of block reflectors I - V T V^H. The tiled QR (one domain) has
   one per step, over tile column k from the diagonal down. CAQR splits the tile rows into ndom domains of
   consecutive tile rows (their sizes differ by one at most): one block per domain from the diagonal's
   down (each from its head: its first tile row, or k), then the merges of the domains' heads in a binary
   tree. Each block keeps its T and V's top (or a merge's V2) in tiles of its own: step k's from tile
   first[k] of the per-block arrays. */
typedef struct dag__qr {
    dag_array *a, *work, *taus, *ts, *vtops;   /* the matrix; the panels' workspaces; per block: tau, T, V's top */
    dag_array *eye;                             /* CAQR: an identity tile, a merge's V's top */
    dag__array_where *where;
    bool dev;
    int64_t nb, kt, slots, ndom;
    int64_t *first;                             /* kt + 1: step k's blocks' first tile, and the count at the end */
} dag__qr;

/* One block reflector of step k: V's top (ones on its diagonal) over tile row `top`, then a's tiles (i, k)
   for the rows below it up to `end`; a merge's V is the identity over `top` and V2 over tile row `low`
   (-1: none). `slot`: its T and V's top among the step's (a merge: the one of its low domain); `dom`: the
   domain whose workspaces it uses; kw: its reflectors. */
typedef struct dag__qr_block { int64_t k, top, end, low, slot, dom; int kw; } dag__qr_block;

static int64_t dag__qr_index(const dag__qr *qr, const dag__qr_block *b) { return qr->first[b->k] + b->slot; }
/* Domain d's first tile row; the domain of tile row k */
static int64_t dag__qr_head(const dag__qr *qr, int64_t d) { return d * qr->a->mt / qr->ndom; }
static int64_t dag__qr_domain(const dag__qr *qr, int64_t k) {
    int64_t d = 0;
    while (d + 1 < qr->ndom && dag__qr_head(qr, d + 1) <= k) d++;
    return d;
}
/* Step k's blocks: its domains from the diagonal's down and their merges */
static int64_t dag__qr_step_blocks(const dag__qr *qr, int64_t k) { return 2 * (qr->ndom - dag__qr_domain(qr, k)) - 1; }
/* The block's tiles of V, n = 0 to dag__qr_count - 1 (V's top first), each over tile row *row of the operand. */
static int64_t dag__qr_count(const dag__qr_block *b) { return b->end - b->top + (b->low >= 0); }
static dag_data dag__qr_v(const dag__qr *qr, const dag__qr_block *b, int64_t n, int64_t *row) {
    dag_data mine = DAG__H(qr->vtops, dag__qr_index(qr, b), 0);
    if (n == 0) return *row = b->top, b->low >= 0 ? DAG__H(qr->eye, 0, 0) : mine;
    if (b->top + n < b->end) return *row = b->top + n, DAG__H(qr->a, b->top + n, b->k);
    return *row = b->low, mine;
}

/* Step k's blocks in the order the factorisation makes them (Q_k is their product in this order); their
   slots: the domains' first, then each merge's by its low domain. Returns their count (dag__qr_step_blocks). */
static int dag__qr_blocks(const dag__qr *qr, int64_t k, dag__qr_block *out) {
    const dag_array *a = qr->a;
    int64_t d0 = dag__qr_domain(qr, k), w = DAG__C(a, k), domains = qr->ndom - d0;
    int n = 0;
    for (int64_t d = d0; d < qr->ndom; d++) {
        int64_t top = d == d0 ? k : dag__qr_head(qr, d), end = d + 1 < qr->ndom ? dag__qr_head(qr, d + 1) : a->mt;
        int64_t rows = dag__imin(end * qr->nb, a->rows) - top * qr->nb;
        dag__qr_block b = { k, top, end, -1, d - d0, d, (int)dag__imin(w, rows) };
        out[n++] = b;
    }
    for (int64_t step = 1; d0 + step < qr->ndom; step *= 2)
        for (int64_t d1 = d0; d1 + step < qr->ndom; d1 += 2 * step) {
            int64_t top = d1 == d0 ? k : dag__qr_head(qr, d1), d2 = d1 + step;
            dag__qr_block b = { k, top, top + 1, dag__qr_head(qr, d2), domains + d2 - d0 - 1, d1, (int)w };
            out[n++] = b;
        }
    return n;
}

/* A merge block on the CPU with LAPACKE: its Q (op by trans) on tile column j of x (tile row j from the right)
   as one task (dag__qr_merge_apply); false: the gemms' form, which every backend runs, does it. */
static bool dag__qr_merge_on_cpu(const dag__qr *qr, const dag__qr_block *b, dag_array *x, int64_t j, int trans, bool right) {
#if defined(DAG_ARRAY_CBLAS)
    if (b->low < 0 || qr->dev) return false;
    int64_t at = dag__qr_index(qr, b), r2 = right ? DAG__C(x, b->low) : DAG__R(x, b->low);
    dag_data v2 = DAG__H(qr->vtops, at, 0), t = DAG__H(qr->ts, at, 0);
    dag_data c1 = right ? DAG__H(x, j, b->top) : DAG__H(x, b->top, j), c2 = right ? DAG__H(x, j, b->low) : DAG__H(x, b->low, j);
    dag_options o = right ? dag__potrf_on(qr->where, false, j, b->low, 1) : dag__potrf_on(qr->where, false, b->low, j, 1);
    dag_spawn_with(DAG__NAMED(&o, "qr merge apply"), dag__qr_merge_apply, Val((int)x->type), Val((int)right), Val(trans),
                   Val((int64_t)b->kw), Val(dag__imin(r2, b->kw)), Val((int64_t)(right ? DAG__R(x, j) : DAG__C(x, j))), In(v2),
                   Ld(v2), In(t), Ld(t), InOut(c1), Ld(c1), InOut(c2), Ld(c2));
    return true;
#else
    (void)qr, (void)b, (void)x, (void)j, (void)trans, (void)right;
    return false;
#endif
}

/* Block b's op(Q_b) on x: from the left (Q_b^H for trans 1, Q_b for 0) on tile column j of x (the matrix,
   or the right-hand sides: x's rows in a's tile rows), W = V^H C, W = op(T) W, C -= V W; from the right
   (Q_b for trans 0, Q_b^H for 1) on tile row j of x (x's columns in a's tile rows), W = C V, W = W op(T),
   C -= W V^H. w and w2 are its workspaces: a tile row (left) or column (right) per domain and grid row
   (column) of ranks. */
static void dag__qr_apply(const dag__qr *qr, const dag__qr_block *b, dag_array *x, dag_array *w, dag_array *w2,
                          int64_t j, int trans, bool right) {
    if (dag__qr_merge_on_cpu(qr, b, x, j, trans, right)) return;
#define DAG__QR_TILE(y, i, j) (right ? DAG__H(y, j, i) : DAG__H(y, i, j))   /* tile (i, j) of the left case */
    int64_t ranks = right ? x->q : x->p, wi = b->dom * ranks + b->top % ranks, at, count = dag__qr_count(b);
    dag_data t = DAG__H(qr->ts, dag__qr_index(qr, b), 0), wj = DAG__QR_TILE(w, wi, j), wj2 = DAG__QR_TILE(w2, wi, j);
    int len = right ? DAG__R(x, j) : DAG__C(x, j), kw = b->kw;   /* C's tiles' other side */
    dag_options o = right ? dag__potrf_on(qr->where, qr->dev, j, b->top, 1) : dag__potrf_on(qr->where, qr->dev, b->top, j, 1);
    dag__tile_place place = { &o, qr->dev };
    for (int64_t n = 0; n < count; n++) {
        dag_data v = dag__qr_v(qr, b, n, &at), c = DAG__QR_TILE(x, at, j);
        int span = right ? DAG__C(x, at) : DAG__R(x, at);
        if (right) dag__spawn_gemm(place, x->type, 0, 0, len, kw, span, 1.0, c, v, n ? 1.0 : 0.0, wj);
        else dag__spawn_gemm(place, x->type, 1, 0, kw, len, span, 1.0, v, c, n ? 1.0 : 0.0, wj);
    }
    if (right) dag__spawn_gemm(place, x->type, 0, trans, len, kw, kw, 1.0, wj, t, 0.0, wj2);
    else dag__spawn_gemm(place, x->type, trans, 0, kw, len, kw, 1.0, t, wj, 0.0, wj2);
    for (int64_t n = 0; n < count; n++) {
        dag_data v = dag__qr_v(qr, b, n, &at), c = DAG__QR_TILE(x, at, j);
        int span = right ? DAG__C(x, at) : DAG__R(x, at);
        o = right ? dag__potrf_on(qr->where, qr->dev, j, at, 1) : dag__potrf_on(qr->where, qr->dev, at, j, 1);
        if (right) dag__spawn_gemm(place, x->type, 0, 1, len, span, kw, -1.0, wj2, v, 1.0, c);
        else dag__spawn_gemm(place, x->type, 0, 0, span, len, kw, -1.0, v, wj2, 1.0, c);
    }
#undef DAG__QR_TILE
}

/* A domain block's panel (tile column k, its tile rows) into its workspace, and its rows in it. */
static dag_data dag__qr_gather(const dag__qr *qr, const dag__qr_block *b, int64_t *rows) {
    dag_data ws = DAG__H(qr->work, (b->k % qr->slots) * qr->ndom + b->dom, 0);
    *rows = dag__imin(b->end * qr->nb, qr->a->rows) - b->top * qr->nb;
    dag__panel_copy(&qr->where->cpu, NULL, qr->a, b->k, b->top, b->end, qr->nb, ws, false);
    return ws;
}

/* Block b's factorisation: a domain's panel gathered, factorised, scattered back (as the LU's), its tau
   (the tiled QR's, one domain) into the host's; a merge of two heads' triangles. */
static void dag__qr_panel_step(const dag__qr *qr, const dag__qr_block *b, void *tau) {
    dag_array *a = qr->a;
    int64_t nb = qr->nb, k = b->k, w = DAG__C(a, k), at = dag__qr_index(qr, b), m;
    dag_data t = DAG__H(qr->ts, at, 0), v = DAG__H(qr->vtops, at, 0), top = DAG__H(a, b->top, k);
    dag_options o = qr->where->cpu;
    if (b->low >= 0) {
        dag_data low = DAG__H(a, b->low, k);
        dag_spawn_with(DAG__NAMED(&o, "qr merge"), dag__qr_merge, Val((int)a->type), Val(w),
                       Val(dag__imin(DAG__R(a, b->low), w)), InOut(top), Ld(top), InOut(low), Ld(low), Out(t), Val(nb),
                       Out(v), Val(nb));
        return;
    }
    dag_data ws = dag__qr_gather(qr, b, &m), tk = DAG__H(qr->taus, at, 0);
    dag_spawn_with(DAG__NAMED(&o, "geqrf"), dag__qr_panel, Val((int)a->type), Val(m), Val(w), InOut(ws), Ld(ws), Out(tk),
                   Out(t), Val(nb), Out(v), Val(nb));
    dag__panel_copy(&o, NULL, a, k, b->top, b->end, nb, ws, true);
    if (tau)   /* every rank's own */
        dag_spawn_with(DAG__NAMED(&o, "tau"), dag__qr_tau, In(tk), Val(dag__imin(m, w)), Val((int)a->elem),
                       dag_arg_span(DAG_ACCESS_OUT, (char *)tau + (size_t)(k * nb) * a->elem, (size_t)dag__imin(m, w), a->elem));
}

/* An array of one tile (rows x cols) per block, dealt over the grid's rows of ranks (the tiled QR's step k:
   with the diagonal tile's rank row). */
static dag_array *dag__per_step(const dag__qr *qr, int64_t rows, int64_t cols) {
    return dag__array_new(qr->a->type, qr->first[qr->kt] * rows, cols, dag_blocks_grid(rows, cols, qr->a->p, qr->a->q),
                          NULL, 0, true);
}
/* Workspaces of a tile row per domain and grid row of ranks, for x's tile columns (as the LU's saved rows). */
static dag_array *dag__qr_rows(const dag__qr *qr, const dag_array *x) {
    return dag__array_new(x->type, qr->ndom * x->p * qr->nb, x->cols, dag_blocks_grid(qr->nb, x->bcols, x->p, x->q), NULL, 0, false);
}
static void dag__qr_free(dag__qr *qr) {
    dag__array_discard(qr->work), dag__array_discard(qr->taus), dag__array_discard(qr->ts), dag__array_discard(qr->vtops);
    dag__array_discard(qr->eye);
    DAG_FREE(qr->first);
}

/* The blocks' tiles and the panels' workspaces of a (square tiles) in `domains` domains (1: the tiled
   QR); false: no memory (what was made is freed). */
static bool dag__qr_init(dag__qr *qr, dag_array *a, dag__array_where *where, int64_t domains) {
    int64_t nb = a->brows, ndom = dag__imin(domains, a->mt);
    dag__qr z = { a, NULL, NULL, NULL, NULL, NULL, where, where->devices > 0, nb, dag__imin(a->mt, a->nt), 0, ndom, NULL };
    *qr = z;
    qr->slots = dag__ranks() ? qr->kt : dag__imin(qr->kt, 3);
    qr->first = (int64_t *)dag__array_zalloc((size_t)(qr->kt + 1), sizeof *qr->first);
    if (!qr->first) return false;
    for (int64_t k = 0; k < qr->kt; k++) qr->first[k + 1] = qr->first[k] + dag__qr_step_blocks(qr, k);
    int64_t panel_rows = dag__imin(dag__ceil_div(a->mt, ndom) * nb, a->rows);   /* the tallest domain */
    qr->work = dag__array_new(a->type, qr->slots * ndom * panel_rows, nb, dag_blocks_grid(panel_rows, nb, a->p, a->q), NULL, 0,
                              true);
    qr->taus = dag__per_step(qr, nb, 1);
    qr->ts = dag__per_step(qr, nb, nb);
    qr->vtops = dag__per_step(qr, nb, nb);
    qr->eye = ndom > 1 ? dag_array_identity(a->type, nb, nb, dag_blocks_grid(nb, nb, a->p, a->q)) : NULL;
    if (qr->work && qr->taus && qr->ts && qr->vtops && (ndom == 1 || qr->eye)) return true;
    dag__qr_free(qr);
    return false;
}

/* Where the tasks run (placed by `placed`'s tiles) and the blocks' tiles of a: every QR driver's start. */
static dag_result dag__qr_start(dag__qr *qr, dag__array_where *where, dag_array *a, int64_t domains, const dag_array *placed,
                                const char *who) {
    *where = dag__array_where_for(who, placed);
    if (where->status) return where->status;
    return dag__qr_init(qr, a, where, domains) ? DAG_OK : DAG_ERR_OUT_OF_MEMORY;
}

/* The factorisation of a (square tiles) in `domains` domains, and Q^H applied to b's columns too when b is
   given; tau: the tiled QR's scalars, or NULL. qr keeps the blocks' tiles (the caller frees them). */
static dag_result dag__qr_run(dag__qr *qr, dag__array_where *where, dag_array *a, int64_t domains, void *tau, dag_array *b,
                              const char *who) {
    dag_result started = dag__qr_start(qr, where, a, domains, a, who);
    if (started != DAG_OK) return started;
    dag_array *w[4] = { dag__qr_rows(qr, a), dag__qr_rows(qr, a), b ? dag__qr_rows(qr, b) : NULL, b ? dag__qr_rows(qr, b) : NULL };
    dag__qr_block *blocks = (dag__qr_block *)dag__array_zalloc((size_t)(2 * qr->ndom), sizeof *blocks);
    dag_result r = DAG_ERR_OUT_OF_MEMORY;
    if (blocks && w[0] && w[1] && (!b || (w[2] && w[3]))) {
        DAG_DATADEPS {
            for (int64_t k = 0; k < qr->kt; k++)
                for (int i = 0, n = dag__qr_blocks(qr, k, blocks); i < n; i++) {
                    dag__qr_panel_step(qr, &blocks[i], tau);
                    for (int64_t j = k + 1; j < a->nt; j++) dag__qr_apply(qr, &blocks[i], a, w[0], w[1], j, 1, false);
                    for (int64_t j = 0; b && j < b->nt; j++) dag__qr_apply(qr, &blocks[i], b, w[2], w[3], j, 1, false);
                }
        }
        r = dag_last_region_result();
    }
    for (int i = 0; i < 4; i++) dag__array_discard(w[i]);
    DAG_FREE(blocks);
    if (r != DAG_OK) dag__qr_free(qr);
    return r;
}

dag_result dag_array_geqrf(dag_array *a, void *tau) {
    if (!dag__array_la(a, "dag_array_geqrf", "A")) return DAG_ERR_INVALID_ARGUMENT;
    dag_array *a2 = dag__lu_operand(a);
    if (!a2) return dag__no_operand();
    dag__array_where where;
    dag__qr qr;
    dag_result r = dag__qr_run(&qr, &where, a2, 1, tau, NULL, "dag_array_geqrf");
    if (r == DAG_OK) dag__qr_free(&qr);
    return dag__operand_end(a, a2, true, r);
}

/* >>Q of a QR: dag_array_ormqr and dag_array_orgqr apply or form Q from geqrf's reflectors and tau (each
   step's T and V's top rebuilt from its panel: larft), dag_array_qr_ormqr and dag_array_qr_orgqr from a
   factor of dag_array_caqr (which keeps them). Q's blocks reach C's tiles as in the factorisation
   (dag__qr_apply): Q^H from the left and Q from the right take them in the
   factorisation's order, the other two in reverse. */
static dag_result dag__qr_q_run(const dag__qr *qr, int right, int trans, const void *tau, dag_array *c) {
    dag_array *a = qr->a;
    int64_t kmin = dag__imin(a->rows, a->cols), nb = qr->nb;
    /* geqrf's tau into the steps' tau tiles, where the factorisation would have left it (every rank's own) */
    dag_result r = tau ? dag_array_put_slice(qr->taus, 0, kmin, 0, 1, tau, kmin) : DAG_OK;
    dag_array *w[2];   /* left: a tile row per domain and grid row of ranks; right: a tile column per domain and grid column */
    for (int i = 0; i < 2; i++)
        w[i] = right ? dag__array_new(c->type, c->rows, qr->ndom * c->q * nb, dag_blocks_grid(c->brows, nb, c->p, c->q), NULL, 0,
                                      false)
                     : dag__qr_rows(qr, c);
    dag__qr_block *blocks = (dag__qr_block *)dag__array_zalloc((size_t)(2 * qr->ndom), sizeof *blocks);
    if (r == DAG_OK && !(w[0] && w[1] && blocks)) r = DAG_ERR_OUT_OF_MEMORY;
    if (r == DAG_OK) {
        DAG_DATADEPS {
            for (int64_t k = 0; tau && k < qr->kt; k++) {
                dag__qr_blocks(qr, k, blocks);   /* geqrf's: one domain, one block a step */
                int64_t m, width = DAG__C(a, k), at = dag__qr_index(qr, &blocks[0]);
                dag_data ws = dag__qr_gather(qr, &blocks[0], &m);
                dag_spawn_with(DAG__NAMED(&qr->where->cpu, "larft"), dag__qr_panel_t, Val((int)a->type), Val(m), Val(width),
                               In(ws), Ld(ws), In(DAG__H(qr->taus, at, 0)), Out(DAG__H(qr->ts, at, 0)), Val(nb),
                               Out(DAG__H(qr->vtops, at, 0)), Val(nb));
            }
            bool forward = right != trans;
            for (int64_t s = 0; s < qr->kt; s++) {
                int64_t k = forward ? s : qr->kt - 1 - s;
                int n = dag__qr_blocks(qr, k, blocks);
                for (int i = 0; i < n; i++) {
                    const dag__qr_block *b = &blocks[forward ? i : n - 1 - i];
                    for (int64_t j = 0; j < (right ? c->mt : c->nt); j++) dag__qr_apply(qr, b, c, w[0], w[1], j, trans, right);
                }
            }
        }
        r = dag_last_region_result();
    }
    dag__array_discard(w[0]), dag__array_discard(w[1]);
    DAG_FREE(blocks);
    return r;
}

/* C (checked by the caller) in the tiles Q's operations take: its rows (from the left) or columns (from the
   right) in a's tile rows. */
static dag_array *dag__q_operand(int right, dag_array *c, const dag_array *a) {
    return dag__operand(c, right ? dag_blocks_grid(c->brows, a->brows, c->p, c->q) : dag_blocks_grid(a->brows, c->bcols, c->p, c->q),
                        true);
}
/* C's checks for op(Q) C or C op(Q) with Q of a's rows: its element type and size. */
static bool dag__q_operand_fits(int right, const dag_array *a, const dag_array *c, const char *who) {
    if (!dag__array_la(c, who, "C")) return false;
    if (c->type == a->type && (right ? c->cols : c->rows) == a->rows) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, c->type != a->type ? "C's element type is not A's"
            : right ? "C's columns are not A's rows (C Q)" : "C's rows are not A's rows (Q C)");
    return false;
}

static bool dag__tau_given(const void *tau, const char *who) {
    if (!tau) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no tau (geqrf's scalars)", who);
    return tau != NULL;
}
dag_result dag_array_ormqr(int right, int trans, dag_array *a, const void *tau, dag_array *c) {
    const char *who = "dag_array_ormqr";
    if (!dag__array_la(a, who, "A") || !dag__tau_given(tau, who)) return DAG_ERR_INVALID_ARGUMENT;
    if (!dag__q_operand_fits(right, a, c, who)) return DAG_ERR_INVALID_ARGUMENT;
    dag_array *a1 = dag__unaliased(a, c, false, who);   /* the reflectors, read while C is written */
    dag_array *a2 = a1 ? dag__lu_operand(a1) : NULL, *c2 = a2 ? dag__q_operand(right, c, a2) : NULL;
    dag__array_where where;
    dag__qr qr;
    dag_result r = c2 ? dag__qr_start(&qr, &where, a2, 1, c2, who) : dag__no_operand();
    if (r == DAG_OK) {
        r = dag__qr_q_run(&qr, right != 0, trans != 0, tau, c2);
        dag__qr_free(&qr);
    }
    r = dag__operand_end(c, c2, true, r);
    r = dag__operand_end(a1, a2, false, r);
    dag__unaliased_end(a, a1);
    return r;
}

/* The identity that orgqr and qr_orgqr apply Q to: a->rows x cols in `tiling`; NULL (logged) for no A
   (`missing` says which) or cols outside 1 to A's rows. */
static dag_array *dag__q_identity(const dag_array *a, int64_t cols, dag_blocks tiling, const char *who, const char *missing) {
    if (!a || cols < 1 || cols > a->rows) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !a ? missing
                : "Q's columns must be 1 to A's rows (min(rows, cols) for the thin Q, rows for the full one)");
        return NULL;
    }
    return dag_array_identity(a->type, a->rows, cols, tiling);
}
dag_array *dag_array_orgqr(dag_array *a, const void *tau, int64_t cols) {
    if (a && !dag__tau_given(tau, "dag_array_orgqr")) return NULL;
    dag_array *q = dag__q_identity(a, cols, a ? dag_blocks_grid(a->brows, a->bcols, a->p, a->q) : dag_blocks(1, 1),
                                   "dag_array_orgqr", "no array");
    if (q && dag_array_ormqr(0, 0, a, tau, q) != DAG_OK) dag_array_free(q), q = NULL;
    return q;
}

/* gels' checks: A m x n, m >= n, B of A's rows and type. */
static bool dag__gels_fits(const dag_array *a, const dag_array *b, const char *who) {
    if (!dag__array_la(a, who, "A") || !dag__array_la(b, who, "B")) return false;
    if (a->rows >= a->cols && b->rows == a->rows && b->type == a->type) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: A (%lld x %lld) needs rows >= columns, B (%lld x %lld) A's rows "
            "and type", who, (long long)a->rows, (long long)a->cols, (long long)b->rows, (long long)b->cols);
    return false;
}
/* R's diagonal in a diagonal tile (n of it, from the matrix's column col0): an exact zero fails, as
   LAPACK's gels says (info > 0), where the solve would give Inf and NaN. InOut: over ranks it runs on
   the tile's owner. */
DAG_TASK(void, dag__r_diagonal_check, (int, type), (int64_t, n), (void *, t), (int64_t, ld), (int64_t, col0),
         (const char *, who)) {
    for (int64_t j = 0; j < n; j++) {
        size_t at = (size_t)(j + j * ld);
        bool zero = dag__complex((dag_elem)type) ? dag__elem_z(type, t, at) == 0
                                                 : dag__elem_get((dag_elem)type, (const char *)t + at * dag__elem_size((dag_elem)type)) == 0;
        if (zero) {
            dag_fail(DAG_ERR_INVALID_ARGUMENT, "%s: A is rank deficient: R(%lld, %lld) is exactly 0 (a least-squares "
                     "solve needs A of full rank)", who, (long long)(col0 + j), (long long)(col0 + j));
            return;
        }
    }
}
/* The least-squares solve's end, after Q^H B: R X = its first n rows (R: the top of a's factor, in
   square tiles), once R's diagonal has no zero. */
static dag_result dag__gels_solve_r(dag_array *a, dag_array *b, const char *who) {
    dag__array_where where = dag__array_where_for(who, a);
    if (where.status) return where.status;
    DAG_DATADEPS {
        for (int64_t k = 0; k < a->nt; k++)
            dag_spawn_with(DAG__NAMED(&where.cpu, "check"), dag__r_diagonal_check, Val((int)a->type),
                           Val((int64_t)DAG__C(a, k)), InOut(DAG__H(a, k, k)), Ld(DAG__H(a, k, k)), Val(k * a->bcols), Val(who));
    }
    dag_result r = dag_last_region_result();
    if (r != DAG_OK) return r;
    dag_array *rr = dag_array_view(a, 0, a->cols, 0, a->cols), *top = dag_array_view(b, 0, a->cols, 0, b->cols);
    r = rr && top ? dag_array_trsm(0, 1, 0, 0, 1.0, rr, top) : DAG_ERR_OUT_OF_MEMORY;
    dag_array_free(rr), dag_array_free(top);
    return r;
}

/* min ||A X - B|| for A m x n, m >= n, of full rank: A becomes its QR (as geqrf leaves it), B's first n
   rows X (the rest: the residual's parts, as LAPACK's gels). */
dag_result dag_array_gels(dag_array *a, dag_array *b) {
    if (!dag__gels_fits(a, b, "dag_array_gels") || !dag__apart(a, b, "dag_array_gels", "A", "B"))
        return DAG_ERR_INVALID_ARGUMENT;
    dag_array *a2 = dag__lu_operand(a), *b2 = a2 ? dag__rhs_operand(b, a2) : NULL;
    dag__array_where where;
    dag__qr qr;
    dag_result r = b2 ? dag__qr_run(&qr, &where, a2, 1, NULL, b2, "dag_array_gels") : dag__no_operand();
    if (r == DAG_OK) {
        dag__qr_free(&qr);
        r = dag__gels_solve_r(a2, b2, "dag_array_gels");
    }
    r = dag__operand_end(a, a2, true, r);
    return dag__operand_end(b, b2, true, r);
}

/* >>CAQR: dag_array_caqr and its factor's Q operations and solve (Dagger's qr!(A; p), cageqrf!, porgqr!,
   pormqr!): the blocks of dag__qr_blocks with domains, their tiles kept in the factor. */
struct dag_array_qr {
    dag__qr qr;         /* the blocks' tiles; qr.a: the reflectors (the caller's array, or own) */
    dag_array *own;     /* a copy of the caller's array in square tiles, or NULL */
    dag_blocks tiling;  /* the caller's array's: qr_orgqr's Q's, as orgqr's */
};

/* dag_array_caqr's domains when asked to choose (0): a domain for every 4 tile rows a tile column, 1 to
   16 (and one per tile row at most). Measured on 2 workers (bench/lu.py --tall): domains pay where the
   panel is tall against the matrix's width (16384 x 2048: 2 best, 8 worst; 65536 x 1024: 4 to 16
   alike, 32 a fifth slower), and past that only add merges. The same on every rank: it depends on the
   shape alone. */
static int dag__caqr_domains(int64_t mt, int64_t nt) {
    int64_t d = mt / (4 * (nt > 0 ? nt : 1));
    if (d > 16) d = 16;
    if (d > mt) d = mt;
    return d < 1 ? 1 : (int)d;
}

dag_array_qr *dag_array_caqr(dag_array *a, int domains) {
    const char *who = "dag_array_caqr";
    if (!dag__array_la(a, who, "A")) return NULL;
    dag_array *a2 = dag__lu_operand(a);
    if (!a2) return NULL;
    if (domains == 0) domains = dag__caqr_domains(a2->mt, a2->nt);
    if (domains < 1 || domains > a2->mt) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %d domains for A's %lld tile rows (in square tiles of %lld, "
                "its tiles' smaller side): 1 to one per tile row, or 0 to choose", who, domains, (long long)a2->mt,
                (long long)a2->brows);
        dag__operand_end(a, a2, false, DAG_OK);
        return NULL;
    }
    dag_array_qr *f = (dag_array_qr *)dag__array_zalloc(1, sizeof *f);
    dag__array_where where;
    dag_result r = f ? dag__qr_run(&f->qr, &where, a2, domains, NULL, NULL, who) : DAG_ERR_OUT_OF_MEMORY;
    bool made = r == DAG_OK;   /* (a failed dag__qr_run keeps nothing) */
    if (made && a2 != a) r = dag__array_copy_any(a2, a, 0, "dag_array_caqr (R back into A)");
    if (r != DAG_OK) {
        if (made) dag__qr_free(&f->qr);
        DAG_FREE(f);
        dag__operand_end(a, a2, false, r);
        return NULL;
    }
    dag__array_discard(f->qr.work), dag__array_discard(f->qr.taus);   /* the panels' workspaces and tau: the factorisation's alone */
    f->qr.work = f->qr.taus = NULL;
    f->qr.where = NULL;   /* each operation's own */
    f->own = a2 != a ? a2 : NULL;
    f->tiling = dag__tiling_of(a);
    return f;
}

void dag_array_qr_free(dag_array_qr *f) {
    if (!f) return;
    dag__qr_free(&f->qr);
    dag__array_discard(f->own);
    DAG_FREE(f);
}

/* f given (else logged): the factor's operations' first check */
static bool dag__qr_factor_given(const dag_array_qr *f, const char *who) {
    if (!f) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no factor (dag_array_caqr's)", who);
    return f != NULL;
}

dag_result dag_array_qr_ormqr(int right, int trans, const dag_array_qr *f, dag_array *c) {
    const char *who = "dag_array_qr_ormqr";
    if (!dag__qr_factor_given(f, who) || !dag__q_operand_fits(right, f->qr.a, c, who) ||
        !dag__apart(f->qr.a, c, who, "the factor's A (its reflectors)", "C"))
        return DAG_ERR_INVALID_ARGUMENT;
    dag_array *c2 = dag__q_operand(right, c, f->qr.a);
    dag__array_where where = dag__array_where_for(who, c2);
    dag__qr qr = f->qr;
    qr.where = &where;
    qr.dev = where.devices > 0;
    dag_result r = !c2 ? dag__no_operand() : where.status ? where.status : dag__qr_q_run(&qr, right != 0, trans != 0, NULL, c2);
    return dag__operand_end(c, c2, true, r);
}

dag_array *dag_array_qr_orgqr(const dag_array_qr *f, int64_t cols) {
    dag_array *q = dag__q_identity(f ? f->qr.a : NULL, cols, f ? f->tiling : dag_blocks(1, 1), "dag_array_qr_orgqr",
                                   "no factor (dag_array_caqr's)");
    if (q && dag_array_qr_ormqr(0, 0, f, q) != DAG_OK) dag_array_free(q), q = NULL;
    return q;
}

dag_result dag_array_qr_gels(const dag_array_qr *f, dag_array *b) {
    const char *who = "dag_array_qr_gels";
    if (!dag__qr_factor_given(f, who) || !dag__gels_fits(f->qr.a, b, who) ||
        !dag__apart(f->qr.a, b, who, "the factor's A (its reflectors)", "B"))
        return DAG_ERR_INVALID_ARGUMENT;
    dag_array *b2 = dag__rhs_operand(b, f->qr.a);
    dag_result r = b2 ? dag_array_qr_ormqr(0, 1, f, b2) : dag__no_operand();
    if (r == DAG_OK) r = dag__gels_solve_r(f->qr.a, b2, who);
    return dag__operand_end(b, b2, true, r);
}

/* >>SVD: dag_array_svd, the thin SVD through the tiled QR (as LAPACK's gesvd
   does for a tall matrix): A = Q R, then R = Ur S Vr^H by an n x n SVD on
   the host (LAPACKE's gesdd, else one-sided Jacobi in double complex), and
   U = Q [Ur; 0] (ormqr). A wide A goes through its transpose: A^T = Q R
   gives A = conj(Vr) S (Q [Ur; 0])^T. The O(m n^2) work is tiled (on the
   devices in scope, over ranks); the n x n core runs on the host, on every
   rank its own copy (they agree, as get_slice and from_host do), so n is
   bounded by one node (some thousands). */

/* Element conversions for the core's double complex buffers (real types: imaginary parts 0) */
static void dag__to_cf64(dag_elem t, const void *p, dag__cf64 *z, size_t n) {
    for (size_t i = 0; i < n; i++)
        z[i] = dag__complex(t) ? dag__elem_z(t, p, i) : (dag__cf64)dag__elem_get(t, (const char *)p + i * dag__elem_size(t));
}
static void dag__from_cf64(dag_elem t, const dag__cf64 *z, void *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (t == DAG_CF64) ((dag__cf64 *)p)[i] = z[i];
        else if (t == DAG_CF32) ((dag__cf32 *)p)[i] = (dag__cf32)z[i];
        else dag__elem_put(t, (char *)p + i * dag__elem_size(t), __builtin_creal(z[i]));
}

#if !defined(DAG_ARRAY_CBLAS)
/* One-sided (Hestenes) Jacobi: w's columns rotated pairwise until orthogonal, v the rotations; then
   s = the columns' norms, u the columns normalised (a zero column's place taken by a unit vector
   orthogonal to the others), vh = v^H, all in descending order of s. */
static void dag__svd_jacobi(int n, dag__cf64 *w, double *s, dag__cf64 *u, dag__cf64 *vh) {
    dag__cf64 *v = (dag__cf64 *)dag__array_zalloc((size_t)n * (size_t)n, sizeof *v);
    int *order = (int *)dag__array_zalloc((size_t)n, sizeof *order);
    if (!v || !order) {
        DAG_FREE(v), DAG_FREE(order);
        return;
    }
    for (int i = 0; i < n; i++) v[i + (size_t)i * n] = 1;
    for (int sweep = 0; sweep < 100; sweep++) {
        bool rotated = false;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                dag__cf64 *x = w + (size_t)p * n, *y = w + (size_t)q * n, gamma = 0;
                double alpha = 0, beta = 0;
                for (int i = 0; i < n; i++) {
                    alpha += __builtin_creal(__builtin_conj(x[i]) * x[i]);
                    beta += __builtin_creal(__builtin_conj(y[i]) * y[i]);
                    gamma += __builtin_conj(x[i]) * y[i];
                }
                double g = dag__abs_cf64(gamma);
                if (g == 0 || g <= 1e-15 * sqrt(alpha) * sqrt(beta)) continue;
                rotated = true;
                /* y's phase turned so that x^H y is real (g), then the real rotation that zeroes it */
                dag__cf64 turn = __builtin_conj(gamma) / g;
                double zeta = (beta - alpha) / (2 * g), t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), sn = c * t;
                for (int k = 0; k < 2; k++) {
                    dag__cf64 *a = (k ? v : w) + (size_t)p * n, *b = (k ? v : w) + (size_t)q * n;
                    for (int i = 0; i < n; i++) {
                        dag__cf64 xi = a[i], yi = b[i] * turn;
                        a[i] = c * xi - sn * yi;
                        b[i] = sn * xi + c * yi;
                    }
                }
            }
        if (!rotated) break;
    }
    double *norm = s;
    for (int j = 0; j < n; j++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += __builtin_creal(__builtin_conj(w[i + (size_t)j * n]) * w[i + (size_t)j * n]);
        norm[j] = sqrt(sum);
        order[j] = j;
    }
    for (int i = 1; i < n; i++)   /* insertion sort, descending (n is small) */
        for (int j = i; j > 0 && norm[order[j]] > norm[order[j - 1]]; j--) {
            int o = order[j];
            order[j] = order[j - 1], order[j - 1] = o;
        }
    double *sorted = (double *)dag__array_zalloc((size_t)n, sizeof *sorted);
    for (int k = 0; sorted && k < n; k++) sorted[k] = norm[order[k]];
    for (int k = 0; u && k < n; k++) {
        dag__cf64 *col = u + (size_t)k * n;
        const dag__cf64 *from = w + (size_t)order[k] * n;
        double len = sorted ? sorted[k] : 0;
        for (int i = 0; i < n; i++) col[i] = len > 0 ? from[i] / len : 0;
        for (int e = 0; len == 0 && e < n; e++) {   /* a zero singular value: e_e made orthogonal to u's others */
            for (int i = 0; i < n; i++) col[i] = i == e;
            for (int l = 0; l < n; l++) {
                if (l == k || (l > k && sorted && sorted[l] == 0)) continue;
                dag__cf64 *o = u + (size_t)l * n, d = 0;
                for (int i = 0; i < n; i++) d += __builtin_conj(o[i]) * col[i];
                for (int i = 0; i < n; i++) col[i] -= d * o[i];
            }
            double nn = 0;
            for (int i = 0; i < n; i++) nn += __builtin_creal(__builtin_conj(col[i]) * col[i]);
            if (nn > 0.25) {
                for (int i = 0; i < n; i++) col[i] /= sqrt(nn);
                break;
            }
        }
    }
    for (int k = 0; vh && k < n; k++)
        for (int j = 0; j < n; j++) vh[k + (size_t)j * n] = __builtin_conj(v[j + (size_t)order[k] * n]);
    for (int k = 0; sorted && k < n; k++) s[k] = sorted[k];
    DAG_FREE(sorted), DAG_FREE(v), DAG_FREE(order);
}
#endif

/* The SVD of an n x n matrix r (column-major; overwritten): s descending, u's columns and vh's rows the
   singular vectors (each NULL when not wanted). */
static dag_result dag__svd_core(bool cplx, int n, dag__cf64 *r, double *s, dag__cf64 *u, dag__cf64 *vh) {
#if defined(DAG_ARRAY_CBLAS)
    size_t nn = (size_t)n * (size_t)n;
    char job = u || vh ? 'A' : 'N';
    lapack_int info;
    if (cplx) {
        dag__cf64 *uu = u ? u : (dag__cf64 *)dag__array_zalloc(nn, sizeof *uu);
        dag__cf64 *vv = vh ? vh : (dag__cf64 *)dag__array_zalloc(nn, sizeof *vv);
        info = uu && vv ? LAPACKE_zgesdd(LAPACK_COL_MAJOR, job, n, n, (lapack_complex_double *)r, n, s, (lapack_complex_double *)uu,
                                         n, (lapack_complex_double *)vv, n) : -1;
        if (uu != u) DAG_FREE(uu);
        if (vv != vh) DAG_FREE(vv);
    } else {
        double *d = (double *)dag__array_zalloc(3 * nn, sizeof *d);
        if (d) {
            for (size_t i = 0; i < nn; i++) d[i] = __builtin_creal(r[i]);
            info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, job, n, n, d, n, s, d + nn, n, d + 2 * nn, n);
            for (size_t i = 0; u && i < nn; i++) u[i] = d[nn + i];
            for (size_t i = 0; vh && i < nn; i++) vh[i] = d[2 * nn + i];
        } else {
            info = -1;
        }
        DAG_FREE(d);
    }
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR || info == -1) return DAG_ERR_OUT_OF_MEMORY;
    if (info < 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_svd: gesdd refused argument %d", (int)-info);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (info > 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_svd: the %d x %d core SVD did not converge (gesdd's info %d)",
                n, n, (int)info);
        return DAG_ERR_INVALID_ARGUMENT;
    }
#else
    (void)cplx;
    double scale = 0;   /* the rotations square the columns' norms: on a matrix of at most 1, nothing overflows */
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) scale = fmax(scale, dag__abs_cf64(r[i]));
    for (size_t i = 0; scale > 0 && i < (size_t)n * (size_t)n; i++) r[i] /= scale;
    dag__svd_jacobi(n, r, s, u, vh);
    for (int i = 0; i < n; i++) s[i] *= scale;
#endif
    return DAG_OK;
}

/* The SVD of R, the upper triangle of the n x n host block (elements of type), through r (double complex) */
static dag_result dag__svd_of_r(dag_elem type, int n, const void *host, dag__cf64 *r, double *s, dag__cf64 *ur,
                                dag__cf64 *vh) {
    dag__to_cf64(type, host, r, (size_t)n * (size_t)n);
    bool finite = true;
    for (int64_t j = 0; j < n; j++)   /* a NaN or an infinity of A's reaches R */
        for (int64_t i = 0; i < n; i++) {
            if (i > j) r[i + j * n] = 0;
            else finite = finite && isfinite(__builtin_creal(r[i + j * n])) && isfinite(__builtin_cimag(r[i + j * n]));
        }
    if (finite) return dag__svd_core(dag__complex(type), n, r, s, ur, vh);
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_svd: A has a NaN or an infinite element");
    return DAG_ERR_INVALID_ARGUMENT;
}

/* The thin SVD: A (m x n) = U diag(s) Vt, k = min(m, n): U m x k, s k values, Vt k x n. */
dag_result dag_array_svd(dag_array *a, dag_array **u, double *s, dag_array **vt) {
    const char *who = "dag_array_svd";
    if (u) *u = NULL;
    if (vt) *vt = NULL;
    if (!dag__array_la(a, who, "A")) return DAG_ERR_INVALID_ARGUMENT;
    if (!s) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_svd: s is NULL (it takes min(rows, cols) doubles)");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    bool wide = a->rows < a->cols;
    int64_t m = wide ? a->cols : a->rows, n = wide ? a->rows : a->cols, nb = dag__imin(a->brows, a->bcols);
    if (n > 46340) {   /* n^2 elements in one host buffer of int-indexed LAPACK */
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_svd: min(rows, cols) = %lld is past the host core's "
                "reach (46340)", (long long)n);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    dag_blocks square = dag_blocks_grid(nb, nb, a->p, a->q);
    size_t nn = (size_t)(n * n), elem = a->elem;
    /* the tall problem B = A (or A^T) = Q R */
    dag_array *b = dag__array_new(a->type, m, n, square, NULL, 0, false);
    void *tau = dag__array_zalloc((size_t)n, elem), *host = dag__array_zalloc(nn, elem);
    dag__cf64 *r = (dag__cf64 *)dag__array_zalloc(nn, sizeof *r);
    bool want_ur = wide ? vt != NULL : u != NULL, want_vh = wide ? u != NULL : vt != NULL;
    dag__cf64 *ur = want_ur ? (dag__cf64 *)dag__array_zalloc(nn, sizeof *ur) : NULL;
    dag__cf64 *vh = want_vh ? (dag__cf64 *)dag__array_zalloc(nn, sizeof *vh) : NULL;
    dag_result res = DAG_ERR_OUT_OF_MEMORY;
    if (b && tau && host && r && (!want_ur || ur) && (!want_vh || vh)) {
        res = wide ? dag_array_transpose(a, b) : dag_array_copy(a, b);
        if (res == DAG_OK) res = dag_array_geqrf(b, tau);
        if (res == DAG_OK) res = dag_array_get_slice(b, 0, n, 0, n, host, n);
        if (res == DAG_OK) res = dag__svd_of_r(a->type, (int)n, host, r, s, ur, vh);
    }
    dag_array *qu = NULL, *small = NULL;   /* Q [Ur; 0] (m x n), and the n x n factor from the host */
    if (res == DAG_OK && want_ur) {
        qu = dag_array_zeros(a->type, m, n, square);
        dag__from_cf64(a->type, ur, host, nn);
        res = !qu ? DAG_ERR_OUT_OF_MEMORY : dag_array_put_slice(qu, 0, n, 0, n, host, n);
        if (res == DAG_OK) res = dag_array_ormqr(0, 0, b, tau, qu);
    }
    if (res == DAG_OK && want_vh) {
        if (wide)   /* U = conj(Vr) = (Vr^H)^T */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < j; i++) {
                    dag__cf64 t = vh[i + j * n];
                    vh[i + j * n] = vh[j + i * n], vh[j + i * n] = t;
                }
        dag__from_cf64(a->type, vh, host, nn);
        small = dag_array_from_host(a->type, n, n, square, host, DAG_COL_MAJOR, n);
        if (!small) res = DAG_ERR_OUT_OF_MEMORY;
    }
    if (res == DAG_OK && wide && qu) {   /* Vt = (Q [Ur; 0])^T */
        dag_array *t = dag__array_new(a->type, n, m, square, NULL, 0, false);
        res = t ? dag_array_transpose(qu, t) : DAG_ERR_OUT_OF_MEMORY;
        dag_array_free(qu);
        qu = t;
    }
    if (res == DAG_OK) {
        if (wide) {
            if (u) *u = small, small = NULL;
            if (vt) *vt = qu, qu = NULL;
        } else {
            if (u) *u = qu, qu = NULL;
            if (vt) *vt = small, small = NULL;
        }
    }
    dag_array_free(qu), dag_array_free(small), dag_array_free(b);
    DAG_FREE(tau), DAG_FREE(host), DAG_FREE(r), DAG_FREE(ur), DAG_FREE(vh);
    return res;
}

/* >>symmetry: a task per pair of tiles (i, j), (j, i) with i <= j (square tiles: a copy where a's are not)
   compares them element by element and writes 1 where they differ into a flags array of one element per
   pair; the flags' sum says it (over ranks, on every rank). */
DAG_TASK(void, dag__tile_mirror_check, (int, type), (int, conj), (int64_t, rows), (int64_t, cols), (const void *, x),
         (int64_t, ldx), (const void *, y), (int64_t, ldy), (int32_t *, differs)) {
    size_t elem = dag__elem_size((dag_elem)type);
    bool cplx = dag__complex((dag_elem)type);
    *differs = 0;
    for (int64_t j = 0; j < cols && !*differs; j++)
        for (int64_t i = 0; i < rows; i++) {
            const char *p = (const char *)x + (size_t)(i + j * ldx) * elem, *q = (const char *)y + (size_t)(j + i * ldy) * elem;
            bool same;
            if (!cplx) {
                same = type == DAG_I32 || type == DAG_I64 ? memcmp(p, q, elem) == 0   /* == as Julia's: NaN differs, -0.0 does not */
                                                          : dag__elem_get((dag_elem)type, p) == dag__elem_get((dag_elem)type, q);
            } else {   /* by parts, the imaginary one negated for the conjugate */
                dag__cf64 u, v;
                dag__to_cf64((dag_elem)type, p, &u, 1);
                dag__to_cf64((dag_elem)type, q, &v, 1);
                same = __builtin_creal(u) == __builtin_creal(v) && __builtin_cimag(u) == (conj ? -1 : 1) * __builtin_cimag(v);
            }
            if (!same) {
                *differs = 1;
                break;
            }
        }
}
static dag_result dag__array_mirrored(dag_array *a, int conj, bool *out, const char *who) {
    if (!out || !a) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !a ? "no array" : "out is NULL");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    *out = false;
    if (a->rows != a->cols) return DAG_OK;
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return where.status;
    dag_array *a2 = dag__lu_operand(a);
    dag_array *flags = a2 ? dag_array_zeros(DAG_I32, a2->mt, a2->nt, dag_blocks_grid(1, 1, a2->p, a2->q)) : NULL;
    dag_result r = DAG_ERR_OUT_OF_MEMORY;
    if (flags) {
        DAG_DATADEPS {
            for (int64_t j = 0; j < a2->nt; j++)
                for (int64_t i = 0; i <= j; i++)
                    dag_spawn_with(DAG__NAMED(&where.cpu, "symmetry"), dag__tile_mirror_check, Val((int)a2->type), Val(conj),
                                   Val((int64_t)DAG__R(a2, i)), Val((int64_t)DAG__C(a2, j)), In(DAG__H(a2, i, j)),
                                   Ld(DAG__H(a2, i, j)), In(DAG__H(a2, j, i)), Ld(DAG__H(a2, j, i)), Out(DAG__H(flags, i, j)));
        }
        r = dag_last_region_result();
        double differing = 0;
        if (r == DAG_OK) r = dag_array_sum(flags, &differing);
        if (r == DAG_OK) *out = differing == 0;
    }
    dag_array_free(flags);
    return dag__operand_end(a, a2, false, r);
}
dag_result dag_array_is_symmetric(dag_array *a, bool *out) { return dag__array_mirrored(a, 0, out, "dag_array_is_symmetric"); }
dag_result dag_array_is_hermitian(dag_array *a, bool *out) { return dag__array_mirrored(a, 1, out, "dag_array_is_hermitian"); }

/* >>sort: each tile sorted by a task (qsort), then Batcher's bitonic network
   over the tiles with merge-split for compare-exchange: a merge-split of
   tiles i < l merges the two and gives i the first of them, l the rest.
   Such a network sorts blocks of one size (Knuth 5.3.4); a ragged last tile
   is a full one whose missing elements are greater than any, and so are
   the tiles past the last up to a power of two: every comparison puts the
   lesser side first, so those stay where they are and their merge-splits
   are skipped. p tiles take p/2 log2(p) (log2(p) + 1) / 2 merge-splits, in
   log2(p) (log2(p) + 1) / 2 rounds of p/2 independent ones. */
#define DAG__SORT_NAN(x) ((x) != (x))
#define DAG__SORT_NO_NAN(x) ((void)(x), 0)
#define DAG__SORT_CMP(T, SUFFIX, IS_NAN)                                                                              \
    static int dag__sort_up_##SUFFIX(const void *a, const void *b) {                                                \
        T x = *(const T *)a, y = *(const T *)b;                                                                      \
        int nx = IS_NAN(x), ny = IS_NAN(y);                                                                          \
        return nx || ny ? nx - ny : (x > y) - (x < y);                                                               \
    }                                                                                                                \
    static int dag__sort_down_##SUFFIX(const void *a, const void *b) {                                              \
        T x = *(const T *)a, y = *(const T *)b;                                                                      \
        int nx = IS_NAN(x), ny = IS_NAN(y);                                                                          \
        return nx || ny ? nx - ny : (x < y) - (x > y);                                                               \
    }
DAG__SORT_CMP(double, f64, DAG__SORT_NAN)
DAG__SORT_CMP(float, f32, DAG__SORT_NAN)
DAG__SORT_CMP(int32_t, i32, DAG__SORT_NO_NAN)
DAG__SORT_CMP(int64_t, i64, DAG__SORT_NO_NAN)
#undef DAG__SORT_CMP
typedef int (*dag__sort_order)(const void *, const void *);
/* qsort's comparison for the type and direction: NaNs after every number */
static dag__sort_order dag__sort_order_of(int type, int descending) {
    dag__sort_order order = NULL;
#define DAG__SORT_PICK(T, SUFFIX) order = descending ? dag__sort_down_##SUFFIX : dag__sort_up_##SUFFIX
    DAG__BY_ELEM(type, DAG__SORT_PICK);
#undef DAG__SORT_PICK
    return order;
}

DAG_TASK(void, dag__sort_tile, (void *, t), (int64_t, n), (int, type), (int, descending)) {
    qsort(t, (size_t)n, dag__elem_size((dag_elem)type), dag__sort_order_of(type, descending));
}

/* a (na elements) and b (nb), each sorted, become the first na and the last nb of their merge */
DAG_TASK(void, dag__sort_merge_split, (void *, a), (int64_t, na), (void *, b), (int64_t, nb), (int, type),
         (int, descending)) {
    size_t e = dag__elem_size((dag_elem)type);
    dag__sort_order before = dag__sort_order_of(type, descending);
    char *x = (char *)a, *y = (char *)b;
    if (before(x + (size_t)(na - 1) * e, y) <= 0) return;   /* in order already: a's last is not after b's first */
    char *m = (char *)DAG_MALLOC((size_t)(na + nb) * e);
    if (!m) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_sort: no memory to merge tiles of %lld and %lld elements",
                 (long long)na, (long long)nb);
        return;
    }
    int64_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {   /* stable: a's element first among equals */
        if (before(y + (size_t)j * e, x + (size_t)i * e) < 0) memcpy(m + (size_t)k++ * e, y + (size_t)j++ * e, e);
        else memcpy(m + (size_t)k++ * e, x + (size_t)i++ * e, e);
    }
    memcpy(m + (size_t)k * e, x + (size_t)i * e, (size_t)(na - i) * e);
    k += na - i;
    memcpy(m + (size_t)k * e, y + (size_t)j * e, (size_t)(nb - j) * e);
    memcpy(x, m, (size_t)na * e);
    memcpy(y, m + (size_t)na * e, (size_t)nb * e);
    DAG_FREE(m);
}

static dag_result dag__sort_tiles(dag_array *v, bool descending, const dag__array_where *where) {
    int64_t p = v->mt, pow2 = 1;
    while (pow2 < p) pow2 *= 2;
    int type = (int)v->type, down = descending ? 1 : 0;
    DAG_DATADEPS {
        for (int64_t t = 0; t < p; t++)
            dag_spawn_with(DAG__NAMED(&where->cpu, "sort"), dag__sort_tile, InOut(v->handle[t]), Val(dag__tile_rows(v, t)),
                           Val(type), Val(down));
        for (int64_t k = 2; k <= pow2; k *= 2)
            for (int64_t j = k / 2; j >= 1; j /= 2)
                for (int64_t i = 0; i < pow2; i++) {
                    int64_t l = j == k / 2 ? i ^ (k - 1) : i ^ j;   /* a block's first step mirrors it: lesser first */
                    if (l <= i || l >= p) continue;
                    dag_spawn_with(DAG__NAMED(&where->cpu, "sort"), dag__sort_merge_split, InOut(v->handle[i]),
                                   Val(dag__tile_rows(v, i)), InOut(v->handle[l]), Val(dag__tile_rows(v, l)), Val(type),
                                   Val(down));
                }
    }
    return dag_last_region_result();
}

dag_result dag_array_sort(dag_array *v, bool descending) {
    if (!v || (v->cols != 1 && v->rows != 1)) {
        if (!v) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_sort: no array (NULL)");
        else dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_sort: it sorts a vector, an n x 1 or 1 x n "
                     "array; this one is %lld x %lld", (long long)v->rows, (long long)v->cols);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (!dag__not_complex(v, "dag_array_sort", "complex numbers have no order")) return DAG_ERR_INVALID_ARGUMENT;
    dag__array_where where = dag__array_where_now("dag_array_sort");
    if (where.status) return where.status;
    if (v->cols != 1) {   /* a row: sorted as a column of its transpose, then put back */
        dag_array *c = dag_array_undef(v->type, v->cols, 1, dag_blocks_grid(v->bcols, 1, v->q, v->p));
        if (!c) return DAG_ERR_OUT_OF_MEMORY;
        dag_result r = dag_array_transpose(v, c);
        if (r == DAG_OK) r = dag_array_sort(c, descending);
        if (r == DAG_OK) r = dag_array_transpose(c, v);
        dag_array_free(c);
        return r;
    }
    dag_array *v2 = dag__operand(v, dag__any_tiling, true);   /* a view off the tiles: a copy, and back */
    if (!v2) return dag__no_operand();
    return dag__operand_end(v, v2, true, dag__sort_tiles(v2, descending, &where));
}

/* >>FFT: dag_array_fft and ifft. A line of n complex numbers is transformed
   in double: at a power of two m = n by the iterative radix-2 FFT; else by
   Bluestein's identity jk = (j^2 + k^2 - (k - j)^2) / 2, which makes the
   transform a convolution with the chirp e^{-pi i k^2 / n}, done by FFTs
   of a power of two m >= 2n - 1. The inverse is the forward one of the
   conjugate, conjugated and divided by n. Complex numbers are pairs of
   doubles (re, im) throughout. */
typedef struct dag__fft_plan {
    int64_t n, m;
    double *twiddle;   /* m / 2 of them: e^{-2 pi i k / m} */
    double *chirp;     /* Bluestein: n of them, e^{-pi i (k^2 mod 2n) / n} (the square reduced: exact angles) */
    double *kernel;    /* Bluestein: the FFT of the conjugate chirp, wrapped around (b[m - k] = b[k]) */
    double *line;      /* the line being transformed: m of them */
} dag__fft_plan;

static void dag__fft_pow2(double *x, int64_t m, const double *twiddle) {
    for (int64_t i = 1, j = 0; i < m; i++) {   /* bit-reversed order */
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double re = x[2 * i], im = x[2 * i + 1];
            x[2 * i] = x[2 * j], x[2 * i + 1] = x[2 * j + 1], x[2 * j] = re, x[2 * j + 1] = im;
        }
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
        int64_t half = len >> 1, step = m / len;
        for (int64_t s = 0; s < m; s += len)
            for (int64_t k = 0; k < half; k++) {
                double wr = twiddle[2 * k * step], wi = twiddle[2 * k * step + 1];
                double *u = x + 2 * (s + k), *v = x + 2 * (s + k + half);
                double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
                v[0] = u[0] - vr, v[1] = u[1] - vi, u[0] += vr, u[1] += vi;
            }
    }
}
static void dag__fft_conj(double *x, int64_t n) {
    for (int64_t k = 0; k < n; k++) x[2 * k + 1] = -x[2 * k + 1];
}

static void dag__fft_plan_free(dag__fft_plan *p) {
    DAG_FREE(p->twiddle), DAG_FREE(p->chirp), DAG_FREE(p->kernel), DAG_FREE(p->line);
}
static bool dag__fft_plan_init(dag__fft_plan *p, int64_t n) {
    memset(p, 0, sizeof *p);
    bool pow2 = (n & (n - 1)) == 0;
    p->n = n, p->m = 1;
    while (p->m < (pow2 ? n : 2 * n - 1)) p->m *= 2;
    int64_t m = p->m;
    p->twiddle = (double *)DAG_MALLOC(sizeof(double) * (size_t)(m > 1 ? m : 2));
    p->line = (double *)DAG_MALLOC(sizeof(double) * 2 * (size_t)m);
    if (!pow2) {
        p->chirp = (double *)DAG_MALLOC(sizeof(double) * 2 * (size_t)n);
        p->kernel = (double *)DAG_MALLOC(sizeof(double) * 2 * (size_t)m);
    }
    if (!p->twiddle || !p->line || (!pow2 && (!p->chirp || !p->kernel))) {
        dag__fft_plan_free(p);
        return false;
    }
    for (int64_t k = 0; k < m / 2; k++)
        p->twiddle[2 * k] = cos(6.283185307179586 * (double)k / (double)m),
        p->twiddle[2 * k + 1] = -sin(6.283185307179586 * (double)k / (double)m);
    if (pow2) return true;
    memset(p->kernel, 0, sizeof(double) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        double angle = 3.141592653589793 * (double)((k * k) % (2 * n)) / (double)n;
        p->chirp[2 * k] = cos(angle), p->chirp[2 * k + 1] = -sin(angle);
        p->kernel[2 * k] = cos(angle), p->kernel[2 * k + 1] = sin(angle);
        if (k) p->kernel[2 * (m - k)] = cos(angle), p->kernel[2 * (m - k) + 1] = sin(angle);
    }
    dag__fft_pow2(p->kernel, m, p->twiddle);
    return true;
}
/* the forward transform of p->line's first n numbers, in place */
static void dag__fft_forward(dag__fft_plan *p) {
    int64_t n = p->n, m = p->m;
    double *x = p->line;
    if (!p->chirp) {
        dag__fft_pow2(x, m, p->twiddle);
        return;
    }
    for (int64_t k = 0; k < n; k++) {   /* x c, then zeros up to m */
        double re = x[2 * k] * p->chirp[2 * k] - x[2 * k + 1] * p->chirp[2 * k + 1];
        x[2 * k + 1] = x[2 * k] * p->chirp[2 * k + 1] + x[2 * k + 1] * p->chirp[2 * k];
        x[2 * k] = re;
    }
    memset(x + 2 * n, 0, sizeof(double) * 2 * (size_t)(m - n));
    dag__fft_pow2(x, m, p->twiddle);
    for (int64_t k = 0; k < m; k++) {   /* times the kernel's transform, then the inverse (conjugated) */
        double re = x[2 * k] * p->kernel[2 * k] - x[2 * k + 1] * p->kernel[2 * k + 1];
        double im = x[2 * k] * p->kernel[2 * k + 1] + x[2 * k + 1] * p->kernel[2 * k];
        x[2 * k] = re, x[2 * k + 1] = -im;
    }
    dag__fft_pow2(x, m, p->twiddle);
    for (int64_t k = 0; k < n; k++) {   /* conjugated back, divided by m, times c */
        double re = x[2 * k] / (double)m, im = -x[2 * k + 1] / (double)m;
        x[2 * k] = re * p->chirp[2 * k] - im * p->chirp[2 * k + 1];
        x[2 * k + 1] = re * p->chirp[2 * k + 1] + im * p->chirp[2 * k];
    }
}

/* Every line of a tile (rows x cols, packed): its columns (along_rows 0) or its rows, each gathered into
   the plan's line in double, transformed, and put back. */
DAG_TASK(void, dag__fft_tile, (void *, t), (int64_t, rows), (int64_t, cols), (int, type), (int, along_rows),
         (int, inverse)) {
    int64_t n = along_rows ? cols : rows, lines = along_rows ? rows : cols;
    int64_t step = along_rows ? rows : 1, next = along_rows ? 1 : rows;   /* elements between a line's numbers, lines */
    dag__fft_plan p;
    if (!dag__fft_plan_init(&p, n)) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_fft: no memory to transform lines of %lld", (long long)n);
        return;
    }
    for (int64_t l = 0; l < lines; l++) {
        for (int64_t k = 0; k < n; k++) {
            int64_t e = 2 * (l * next + k * step);
            p.line[2 * k] = type == DAG_CF64 ? ((double *)t)[e] : (double)((float *)t)[e];
            p.line[2 * k + 1] = type == DAG_CF64 ? ((double *)t)[e + 1] : (double)((float *)t)[e + 1];
        }
        if (inverse) dag__fft_conj(p.line, n);
        dag__fft_forward(&p);
        double scale = inverse ? 1.0 / (double)n : 1.0, sign = inverse ? -1.0 : 1.0;
        for (int64_t k = 0; k < n; k++) {
            int64_t e = 2 * (l * next + k * step);
            if (type == DAG_CF64)
                ((double *)t)[e] = p.line[2 * k] * scale, ((double *)t)[e + 1] = sign * p.line[2 * k + 1] * scale;
            else
                ((float *)t)[e] = (float)(p.line[2 * k] * scale),
                ((float *)t)[e + 1] = (float)(sign * p.line[2 * k + 1] * scale);
        }
    }
    dag__fft_plan_free(&p);
}

static dag_result dag__fft_slabs(dag_array *s, int along_rows, int inverse, const dag__array_where *where) {
    DAG_DATADEPS {
        for (int64_t i = 0; i < s->mt; i++)
            for (int64_t j = 0; j < s->nt; j++)
                dag_spawn_with(DAG__NAMED(&where->cpu, inverse ? "ifft" : "fft"), dag__fft_tile, InOut(DAG__H(s, i, j)),
                               Val(dag__tile_rows(s, i)), Val(dag__tile_cols(s, j)), Val((int)s->type), Val(along_rows),
                               Val(inverse));
    }
    return dag_last_region_result();
}

static bool dag__fft_args(dag_array *src, dag_array *dst, int dims, const char *who) {
    const char *why = !src || !dst ? "no array (NULL)"
                      : dims < 0 || dims > 2 ? "dims is 1 (each column), 2 (each row) or 0 (both)"
                      : !dag__complex(src->type) ? "it transforms complex arrays (DAG_CF64, DAG_CF32): copy a real "
                                                   "one into a complex array first"
                      : dst->type != src->type || dst->rows != src->rows || dst->cols != src->cols
                          ? "dst must have src's element type and shape"
                          : NULL;
    if (why) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, why);
    return !why;
}

/* Pass 0 transforms the columns in slabs of whole columns (a grid of one rank row: every rank gets some),
   pass 1 the rows in slabs of whole rows; each pass copies into its slabs, the last copies into dst. */
static dag_result dag__fft(dag_array *src, dag_array *dst, int dims, int inverse, const char *who) {
    dag__array_where where = dag__array_where_now(who);
    if (where.status) return where.status;
    if (!dag__fft_args(src, dst, dims, who)) return DAG_ERR_INVALID_ARGUMENT;
    int ranks = dag_num_ranks();
    int64_t parts = 2 * (int64_t)dag_device_count(DAG_CPU) * ranks;
    dag_array *from = src, *slabs[2] = { NULL, NULL };
    dag_result r = DAG_OK;
    for (int pass = 0; pass < 2 && r == DAG_OK; pass++) {
        if (dims && dims != pass + 1) continue;
        int64_t across = pass ? src->rows : src->cols, w = (across + parts - 1) / parts;
        dag_blocks b = pass ? dag_blocks_grid(w, src->cols, ranks, 1) : dag_blocks_grid(src->rows, w, 1, ranks);
        slabs[pass] = dag_array_undef(src->type, src->rows, src->cols, b);
        r = !slabs[pass] ? DAG_ERR_OUT_OF_MEMORY : dag__array_copy_any(from, slabs[pass], 0, who);
        if (r == DAG_OK) r = dag__fft_slabs(slabs[pass], pass, inverse, &where);
        from = slabs[pass];
    }
    if (r == DAG_OK) r = dag__array_copy_any(from, dst, 0, who);
    dag_array_free(slabs[0]);
    dag_array_free(slabs[1]);
    return r;
}
dag_result dag_array_fft(dag_array *src, dag_array *dst, int dims) { return dag__fft(src, dst, dims, 0, "dag_array_fft"); }
dag_result dag_array_ifft(dag_array *src, dag_array *dst, int dims) { return dag__fft(src, dst, dims, 1, "dag_array_ifft"); }

/* >>stencil: a task per tile of dst, reading src's tile there and the
   strips of its eight neighbours that face it (their halos, below), into
   one block of doubles with the halo around it, then f at each point; for
   a kernel, into a block of src's type that the kernel reads where the
   tile's kernels run (dag__tile_where). Both arrays of their own tiles, packed, in one tiling (copies of
   views and wrapped matrices, and of src in dst's tiling, as other
   operations take them): each tile's leading dimension is its rows. */
typedef struct dag__stencil {
    dag_stencil_fn f;                /* the point function, or NULL for kernel */
    void *user;
    const dag_task_desc *kernel;     /* dag_array_stencil_desc's: it runs on each tile padded with its halo */
    dag_stencil_dims dims;           /* radius and boundary: [0] rows, [1] columns */
    const dag_array *src, *dst;
} dag__stencil;

/* Halos: each src tile's edges copied into four strips of radius rows or
   columns (top and bottom: radius x its columns, left and right: its rows
   x radius), registered with the tile's owner, by a task per tile. A
   tile's task reads its own tile and the strips that face it: the tile
   above's bottom strip, the one below's top, the left one's right, the
   right one's left, and for the corners the top or bottom strips of the
   diagonal ones. Over ranks only the strips move. Only the strips a halo
   crosses into are made: top and bottom where tile rows meet (more than
   one, or periodic), left and right likewise. */
typedef struct dag__halo { void *mem; dag_data strip[5]; } dag__halo;   /* top, bottom, left, right; padded (a kernel's) */

/* src's element at (pi, pj) from tile (ti, tj)'s corner (r x c): in the tile (nb[4]), in a strip facing it
   (nb[(di + 1) + 3 (dj + 1)]), or NULL past the array's edge (the boundary's value there) */
/* Past the edge, a boundary of the array's own values: the row (or column) g of n that stands there (linear:
   the edge's, clamp's) */
static int64_t dag__boundary_index(dag_boundary_kind kind, int64_t g, int64_t n) {
    if (g >= 0 && g < n) return g;
    if (kind == DAG_BOUNDARY_CLAMP || kind == DAG_BOUNDARY_LINEAR) return g < 0 ? 0 : n - 1;
    if (kind == DAG_BOUNDARY_REFLECT || kind == DAG_BOUNDARY_ANTIREFLECT) return g < 0 ? -g - 1 : 2 * n - 1 - g;
    return g < 0 ? -g : 2 * n - 2 - g;   /* mirror, antimirror */
}
static bool dag__boundary_maps(dag_boundary_kind k) {   /* takes the array's own values past its edge */
    return k >= DAG_BOUNDARY_CLAMP && k <= DAG_BOUNDARY_LINEAR;
}
/* What stands at (pi, pj) from tile (ti, tj)'s corner (r x c): a weighted sum of one or two of src's
   elements (a linear boundary: the edge's and the next one's), each in the tile or a strip facing it, or
   none past a fixed boundary's edge (its value). */
typedef struct dag__ghost { const char *at[2]; double weight[2]; int terms; double fixed; } dag__ghost;
/* src's element at (pi, pj) of tile (ti, tj)'s frame, which lies in the tile or a strip facing it */
static const char *dag__stencil_elem(const dag__stencil *s, const void *const *nb, int64_t tj, int64_t r, int64_t c,
                                     int64_t pi, int64_t pj) {
    const dag_array *a = s->src;
    int64_t rad_r = s->dims.radius[0], rad_c = s->dims.radius[1];
    int di = pi < 0 ? -1 : pi >= r ? 1 : 0, dj = pj < 0 ? -1 : pj >= c ? 1 : 0;
    int64_t nc = dag__tile_cols(a, (tj + dj + a->nt) % a->nt);   /* the columns of the tile it is in */
    int64_t lr = di < 0 ? pi + rad_r : di > 0 ? pi - r : pi;
    int64_t lc = dj < 0 ? (di ? nc + pj : pj + rad_c) : dj > 0 ? pj - c : pj;
    int64_t ld = di ? rad_r : r;   /* a top or bottom strip has rad_r rows; the tile and side strips r */
    return (const char *)nb[(di + 1) + 3 * (dj + 1)] + (size_t)(lr + lc * ld) * a->elem;
}
static dag__ghost dag__stencil_at(const dag__stencil *s, const void *const *nb, int64_t ti, int64_t tj, int64_t r,
                                  int64_t c, int64_t pi, int64_t pj) {
    const dag_array *a = s->src;
    dag_boundary_kind kr = s->dims.boundary[0].kind, kc = s->dims.boundary[1].kind;
    int64_t r0 = ti * a->brows, c0 = tj * a->bcols, g = r0 + pi, h = c0 + pj;
    bool out_g = g < 0 || g >= a->rows, out_h = h < 0 || h >= a->cols;
    dag__ghost x = { { NULL, NULL }, { 1, 0 }, 1, 0 };
    bool fixed_r = out_g && !dag__boundary_maps(kr) && kr != DAG_BOUNDARY_PERIODIC;
    bool fixed_c = out_h && !dag__boundary_maps(kc) && kc != DAG_BOUNDARY_PERIODIC;
    if (fixed_r || fixed_c) {
        x.terms = 0;
        x.fixed = fixed_r ? s->dims.boundary[0].value : s->dims.boundary[1].value;
        return x;
    }
    /* periodic: the frame's neighbours are the other side's tiles already (ti +- 1 modulo) */
    int64_t gi = out_g && kr != DAG_BOUNDARY_PERIODIC ? dag__boundary_index(kr, g, a->rows) : g;
    int64_t hj = out_h && kc != DAG_BOUNDARY_PERIODIC ? dag__boundary_index(kc, h, a->cols) : h;
    if (out_g && (kr == DAG_BOUNDARY_ANTIREFLECT || kr == DAG_BOUNDARY_ANTIMIRROR)) x.weight[0] = -x.weight[0];
    if (out_h && (kc == DAG_BOUNDARY_ANTIREFLECT || kc == DAG_BOUNDARY_ANTIMIRROR)) x.weight[0] = -x.weight[0];
    x.at[0] = dag__stencil_elem(s, nb, tj, r, c, gi - r0, hj - c0);
    bool lin_r = out_g && kr == DAG_BOUNDARY_LINEAR, lin_c = out_h && kc == DAG_BOUNDARY_LINEAR && !lin_r;
    if (lin_r || lin_c) {   /* edge + k (edge - next): the next one inward along that dimension */
        int64_t k = lin_r ? (g < 0 ? -g : g - (a->rows - 1)) : (h < 0 ? -h : h - (a->cols - 1));
        int64_t step = lin_r ? (g < 0 ? 1 : -1) : (h < 0 ? 1 : -1);
        x.at[1] = dag__stencil_elem(s, nb, tj, r, c, gi - r0 + (lin_r ? step : 0), hj - c0 + (lin_c ? step : 0));
        x.weight[1] = -(double)k * x.weight[0];
        x.weight[0] *= (double)(1 + k);
        x.terms = 2;
    }
    return x;
}
/* The ghost's value into `to`, in the element type (integers exactly, complex numbers by parts) */
static void dag__ghost_put(dag_elem t, const dag__ghost *x, void *to) {
    if (!x->terms) {
        dag__elem_put(t, to, x->fixed);
    } else if (t == DAG_I32 || t == DAG_I64) {
        int64_t v = 0;
        for (int m = 0; m < x->terms; m++)
            v += (int64_t)x->weight[m] * (t == DAG_I32 ? *(const int32_t *)x->at[m] : *(const int64_t *)x->at[m]);
        if (t == DAG_I32) *(int32_t *)to = (int32_t)v;
        else *(int64_t *)to = v;
    } else {
        int parts = dag__complex(t) ? 2 : 1;
        for (int k = 0; k < parts; k++) {
            double v = 0;
            for (int m = 0; m < x->terms; m++)
                v += x->weight[m] * (t == DAG_F64 || t == DAG_CF64 ? ((const double *)x->at[m])[k] : (double)((const float *)x->at[m])[k]);
            if (t == DAG_F64 || t == DAG_CF64) ((double *)to)[k] = v;
            else ((float *)to)[k] = (float)v;
        }
    }
}
/* The ghost's value in double (the point function's) */
static double dag__ghost_value(dag_elem t, const dag__ghost *x) {
    double v = x->terms ? 0 : x->fixed;
    for (int m = 0; m < x->terms; m++) v += x->weight[m] * dag__elem_get(t, x->at[m]);
    return v;
}

/* A rows x cols block at (i0, j0) of a tile (ld rows apart) into a packed strip */
static void dag__strip_copy(void *strip, const void *t, int64_t ld, int64_t i0, int64_t j0, int64_t rows, int64_t cols,
                            size_t elem) {
    for (int64_t j = 0; j < cols; j++)
        memcpy((char *)strip + (size_t)(j * rows) * elem, (const char *)t + (size_t)(i0 + (j0 + j) * ld) * elem,
               (size_t)rows * elem);
}
DAG_TASK(void, dag__stencil_halo, (const dag__stencil *, s), (int64_t, ti), (int64_t, tj), (const void *, t),
         (void *, top), (void *, bottom), (void *, left), (void *, right)) {
    const dag_array *a = s->src;
    int64_t rad_r = s->dims.radius[0], rad_c = s->dims.radius[1], r = dag__tile_rows(a, ti), c = dag__tile_cols(a, tj);
    if (top) dag__strip_copy(top, t, r, 0, 0, rad_r, c, a->elem);
    if (bottom) dag__strip_copy(bottom, t, r, r - rad_r, 0, rad_r, c, a->elem);
    if (left) dag__strip_copy(left, t, r, 0, 0, r, rad_c, a->elem);
    if (right) dag__strip_copy(right, t, r, 0, c - rad_c, r, rad_c, a->elem);
}

/* The tile padded with its halo, (r + 2 radius) x (c + 2 radius) elements of src's type, into out (for a
   kernel) */
static void dag__stencil_pad(const dag__stencil *s, const void *const *nb, int64_t ti, int64_t tj, void *out) {
    const dag_array *a = s->src;
    int64_t rad_r = s->dims.radius[0], rad_c = s->dims.radius[1];
    int64_t r = dag__tile_rows(a, ti), c = dag__tile_cols(a, tj), pr = r + 2 * rad_r;
    for (int64_t pj = -rad_c; pj < c + rad_c; pj++)
        for (int64_t pi = -rad_r; pi < r + rad_r; pi++) {
            dag__ghost x = dag__stencil_at(s, nb, ti, tj, r, c, pi, pj);
            char *to = (char *)out + (size_t)((pi + rad_r) + (pj + rad_c) * pr) * a->elem;
            if (x.terms == 1 && x.weight[0] == 1) memcpy(to, x.at[0], a->elem);
            else dag__ghost_put(a->type, &x, to);
        }
}
/* f at each point of the tile, from the tile padded with its halo in doubles, into out (dst's tile) */
static void dag__stencil_apply(const dag__stencil *s, const void *const *nb, int64_t ti, int64_t tj, void *out) {
    const dag_array *a = s->src;
    int64_t rad_r = s->dims.radius[0], rad_c = s->dims.radius[1];
    int64_t r = dag__tile_rows(a, ti), c = dag__tile_cols(a, tj), pr = r + 2 * rad_r;
    double *x = (double *)DAG_MALLOC(sizeof(double) * (size_t)pr * (size_t)(c + 2 * rad_c));
    if (!x) {
        dag_fail(DAG_ERR_OUT_OF_MEMORY, "dag_array_stencil: no memory for tile (%lld, %lld) with its halo", (long long)ti,
                 (long long)tj);
        return;
    }
    for (int64_t pj = -rad_c; pj < c + rad_c; pj++)
        for (int64_t pi = -rad_r; pi < r + rad_r; pi++) {
            dag__ghost g = dag__stencil_at(s, nb, ti, tj, r, c, pi, pj);
            x[(pi + rad_r) + (pj + rad_c) * pr] = dag__ghost_value(a->type, &g);
        }
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++)
            dag__elem_put(s->dst->type, (char *)out + (size_t)(i + j * r) * s->dst->elem,
                          s->f(x + (i + rad_r) + (j + rad_c) * pr, pr, ti * a->brows + i, tj * a->bcols + j, s->user));
    DAG_FREE(x);
}
DAG_TASK(void, dag__stencil_tile, (const dag__stencil *, s), (int64_t, ti), (int64_t, tj), (void *, out),
         (const void *, n0), (const void *, n1), (const void *, n2), (const void *, n3), (const void *, n4),
         (const void *, n5), (const void *, n6), (const void *, n7), (const void *, n8)) {
    const void *nb[9] = { n0, n1, n2, n3, n4, n5, n6, n7, n8 };
    if (s->kernel) dag__stencil_pad(s, nb, ti, tj, out);
    else dag__stencil_apply(s, nb, ti, tj, out);
}

/* x as a stencil takes it: an array of its own packed tiles in want's tiling (dag__operand), a copy of a
   view or a wrapped matrix */
static dag_array *dag__packed_operand(dag_array *x, dag_blocks want, bool read) {
    if (!x->base && !x->ld) return dag__operand(x, want, read);
    int64_t br = want.rows ? want.rows : x->brows, bc = want.cols ? want.cols : x->bcols;
    dag_array *y = dag__array_new(x->type, x->rows, x->cols, dag_blocks_grid(br, bc, want.grid_rows ? want.grid_rows : x->p,
                                                                             want.grid_cols ? want.grid_cols : x->q),
                                  NULL, 0, false);
    if (y && read && dag__array_copy_any(x, y, 0, "dag_array_stencil (a copy in tiles of its own)") != DAG_OK) {
        dag_array_free(y);
        return NULL;
    }
    return y;
}

/* The arguments, or false after a log line naming what is wrong. A halo crosses into the next tile only:
   a dimension's radius must not exceed the rows (columns) of any tile where one crosses. */
static bool dag__stencil_check(const dag_array *dst, const dag_array *src, dag_stencil_dims d, bool has_f) {
    const char *bad = !dst ? "no dst array (NULL)" : !src ? "no src array (NULL)" : !has_f ? "no point function (NULL)"
                      : dst == src || (dst->base ? dst->base : dst) == (src->base ? src->base : src)
                          ? "dst and src are one array (each point reads its neighbours' old values: alternate two arrays)"
                      : d.radius[0] < 0 || d.radius[1] < 0 ? "a negative radius"
                      : (int)d.boundary[0].kind < 0 || (int)d.boundary[0].kind > (int)DAG_BOUNDARY_LINEAR ||
                        (int)d.boundary[1].kind < 0 || (int)d.boundary[1].kind > (int)DAG_BOUNDARY_LINEAR
                          ? "an unknown boundary kind" : NULL;
    if (bad) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil: %s", bad);
        return false;
    }
    if (dst->rows != src->rows || dst->cols != src->cols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil: dst is %lld x %lld, src %lld x %lld: they "
                "need one shape", (long long)dst->rows, (long long)dst->cols, (long long)src->rows, (long long)src->cols);
        return false;
    }
    for (int dim = 0; dim < 2; dim++) {
        dag_boundary_kind k = d.boundary[dim].kind;
        int radius = d.radius[dim];
        const char *name = dim ? "columns" : "rows";
        int64_t n = dim ? dst->cols : dst->rows, tiles = dim ? dst->nt : dst->mt;
        int64_t smallest = dim ? dag__imin(dst->bcols, dag__tile_cols(dst, dst->nt - 1))
                               : dag__imin(dst->brows, dag__tile_rows(dst, dst->mt - 1));
        bool mirror = k == DAG_BOUNDARY_MIRROR || k == DAG_BOUNDARY_ANTIMIRROR;   /* leaves the edge out */
        bool reflects = mirror || k == DAG_BOUNDARY_REFLECT || k == DAG_BOUNDARY_ANTIREFLECT;
        if (reflects && radius + (mirror ? 1 : 0) > n) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil: radius %d is too large to %s %lld %s "
                    "(at most %lld)", radius, mirror ? "mirror" : "reflect", (long long)n, name, (long long)(n - (mirror ? 1 : 0)));
            return false;
        }
        if (k == DAG_BOUNDARY_LINEAR && radius > 0 && n < 2) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil: a linear boundary extrapolates from two "
                    "%s, and the array has %lld", name, (long long)n);
            return false;
        }
        if ((tiles > 1 || k == DAG_BOUNDARY_PERIODIC) && radius > smallest) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil: radius %d is too large for the tiles: dst's "
                    "%lld x %lld in tiles of %lld x %lld has a tile of %lld %s, and a halo comes from the next tile alone "
                    "(larger tiles, or a smaller radius)", radius, (long long)dst->rows, (long long)dst->cols,
                    (long long)dst->brows, (long long)dst->bcols, (long long)smallest, name);
            return false;
        }
    }
    return true;
}

/* A span of n elements owned by rank (its memory here only when this rank owns it) */
static dag_data dag__strip_register(int rank, void *p, int64_t n, size_t elem) {
    return dag__ranks() ? dag_data_register_on(rank, p, (size_t)n, elem) : dag_data_register(p, (size_t)n, elem);
}
/* Tile t's strips: top and bottom when rows, left and right when cols, and for a kernel the tile padded with
   its halo (pad); false when there is no memory */
static bool dag__halo_make(const dag_array *a, int64_t ti, int64_t tj, int64_t rad_r, int64_t rad_c, bool rows, bool cols,
                           bool pad, dag__halo *h) {
    int64_t r = dag__tile_rows(a, ti), c = dag__tile_cols(a, tj);
    int64_t sizes[5] = { rows ? rad_r * c : 0, rows ? rad_r * c : 0, cols ? r * rad_c : 0, cols ? r * rad_c : 0,
                         pad ? (r + 2 * rad_r) * (c + 2 * rad_c) : 0 };
    int64_t n = sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4];
    int owner = dag__tile_rank(a, ti, tj);
    bool here = !dag__ranks() || owner == dag_rank();
    if (!n) return true;
    if (here && !(h->mem = DAG_MALLOC((size_t)n * a->elem))) return false;
    char *p = (char *)h->mem;
    for (int k = 0; k < 5; k++) {
        if (sizes[k]) h->strip[k] = dag__strip_register(owner, here ? p : NULL, sizes[k], a->elem);
        if (here) p += (size_t)sizes[k] * a->elem;
        if (sizes[k] && !h->strip[k].id) return false;
    }
    return true;
}
static void dag__halo_free(dag__halo *h, int64_t count) {
    for (int64_t t = 0; h && t < count; t++) {
        for (int k = 0; k < 5; k++)
            if (h[t].strip[k].id) dag_data_unregister(h[t].strip[k]);
        DAG_FREE(h[t].mem);
    }
    DAG_FREE(h);
}

/* The kernel over dst's tile t, from the tile padded with its halo: its items are the tile's points */
static void dag__stencil_launch(const dag__stencil *s, const dag__array_where *where, int64_t ti, int64_t tj,
                                dag_data padded) {
    const dag_array *d = s->dst;
    int64_t r = dag__tile_rows(d, ti), c = dag__tile_cols(d, tj);
    dag_arg args[7] = { DAG_VAL((size_t)(r * c)), DAG_VAL((long)r), DAG_VAL((long)(r + 2 * s->dims.radius[0])),
                        DAG_VAL((long)(ti * d->brows)), DAG_VAL((long)(tj * d->bcols)),
                        dag__typed_arg(dag_arg_data(DAG_ACCESS_IN, padded), d->type),
                        dag__typed_arg(dag_arg_data(DAG_ACCESS_OUT, d->handle[ti + tj * d->mt]), d->type) };
    dag_spawn_desc(s->kernel, args, 7, dag__tile_where(where, ti, tj));
}

static dag_result dag__stencil_tiles(const dag__stencil *s, const dag__array_where *where) {
    const dag_array *a = s->src, *d = s->dst;
    bool pad = s->kernel != NULL;
    int64_t rad_r = s->dims.radius[0], rad_c = s->dims.radius[1];
    /* strips where a halo crosses tiles: between tile rows (or around, periodic rows), and columns alike */
    bool rows = rad_r > 0 && (a->mt > 1 || s->dims.boundary[0].kind == DAG_BOUNDARY_PERIODIC);
    bool cols = rad_c > 0 && (a->nt > 1 || s->dims.boundary[1].kind == DAG_BOUNDARY_PERIODIC);
    int64_t tiles = a->mt * a->nt;
    dag__halo *halo = (dag__halo *)dag__array_zalloc((size_t)tiles, sizeof *halo);
    bool made = halo != NULL;
    for (int64_t t = 0; made && t < tiles; t++)
        made = dag__halo_make(a, t % a->mt, t / a->mt, rad_r, rad_c, rows, cols, pad, &halo[t]);
    if (!made) {
        dag__halo_free(halo, halo ? tiles : 0);
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_array_stencil: no memory (or no registration) for the halo strips");
        return DAG_ERR_OUT_OF_MEMORY;
    }
    const void *nothing = NULL;
    dag_arg none = DAG_VAL(nothing);   /* no strip there */
    DAG_DATADEPS {
        for (int64_t t = 0; t < tiles && (rows || cols); t++) {
            dag_arg args[8] = { DAG_VAL(s), DAG_VAL(t % a->mt), DAG_VAL(t / a->mt), dag_arg_data(DAG_ACCESS_IN, a->handle[t]) };
            for (int k = 0; k < 4; k++) args[4 + k] = halo[t].strip[k].id ? dag_arg_data(DAG_ACCESS_OUT, halo[t].strip[k]) : none;
            dag_spawn_desc(&dag__stencil_halo__desc, args, 8, DAG__NAMED(&where->cpu, "halo"));
        }
        for (int64_t tj = 0; tj < d->nt; tj++)
            for (int64_t ti = 0; ti < d->mt; ti++) {
                int64_t t = ti + tj * d->mt;
                dag_arg args[13] = { DAG_VAL(s), DAG_VAL(ti), DAG_VAL(tj),
                                     dag_arg_data(DAG_ACCESS_OUT, pad ? halo[t].strip[4] : d->handle[t]) };
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int64_t ni = (ti + di + a->mt) % a->mt, nj = (tj + dj + a->nt) % a->nt;
                        /* the strip facing this tile: the neighbour's bottom (above it), top (below), right (left
                           of it), left (right of it) */
                        int k = di < 0 ? 1 : di > 0 ? 0 : dj < 0 ? 3 : 2;
                        dag_data h = di || dj ? halo[ni + nj * a->mt].strip[k] : a->handle[t];
                        args[4 + (di + 1) + 3 * (dj + 1)] = h.id ? dag_arg_data(DAG_ACCESS_IN, h) : none;
                    }
                dag_spawn_desc(&dag__stencil_tile__desc, args, 13, DAG__NAMED(&where->cpu, pad ? "halo" : "stencil"));
                if (pad) dag__stencil_launch(s, where, ti, tj, halo[t].strip[4]);
            }
    }
    dag__halo_free(halo, tiles);
    return dag_last_region_result();
}

/* dst and src as the tasks take them (packed, src in dst's tiling), the tasks, and dst's values back */
static dag_result dag__stencil_run(dag__stencil *s, dag_array *dst, dag_array *src) {
    dag__array_where where = dag__array_where_now("dag_array_stencil");
    if (where.status) return where.status;
    dag_array *d2 = dag__packed_operand(dst, dag__any_tiling, false);
    dag_array *s2 = d2 ? dag__packed_operand(src, dag__tiling_of(d2), true) : NULL;
    dag_result r = DAG_ERR_OUT_OF_MEMORY;
    if (s2) {
        s->src = s2, s->dst = d2;
        r = dag__stencil_tiles(s, &where);
    }
    dag__operand_end(src, s2, false, r);
    return dag__operand_end(dst, d2, true, r);
}

static dag_stencil_dims dag__same_dims(int radius, dag_boundary boundary) {
    dag_stencil_dims d = { { radius, radius }, { boundary, boundary } };
    return d;
}

dag_result dag_array_stencil_dims(dag_array *dst, dag_array *src, dag_stencil_dims dims, dag_stencil_fn f, void *user) {
    if (!dag__stencil_check(dst, src, dims, f != NULL)) return DAG_ERR_INVALID_ARGUMENT;
    const char *why = "the point function takes and gives doubles (dag_array_stencil_kernel takes complex arrays)";
    if (!dag__not_complex(src, "dag_array_stencil", why) || !dag__not_complex(dst, "dag_array_stencil", why))
        return DAG_ERR_INVALID_ARGUMENT;
    dag__stencil s = { f, user, NULL, dims, NULL, NULL };
    return dag__stencil_run(&s, dst, src);
}
dag_result dag_array_stencil(dag_array *dst, dag_array *src, int radius, dag_boundary boundary, dag_stencil_fn f,
                             void *user) {
    return dag_array_stencil_dims(dst, src, dag__same_dims(radius, boundary), f, user);
}

dag_result dag_array_stencil_dims_desc(const dag_task_desc *kernel, dag_array *dst, dag_array *src, dag_stencil_dims dims) {
    if (!kernel || !kernel->kernel || kernel->num_params != 7) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil_kernel: %s is not a DAG_KERNEL of six parameters "
                "(rows, ld, r0, c0, x, y)", kernel ? kernel->name : "NULL");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (!dag__stencil_check(dst, src, dims, true)) return DAG_ERR_INVALID_ARGUMENT;
    if (dst->type != src->type) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_stencil_kernel: dst and src need one element type "
                "(the kernel's T)");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    dag__stencil s = { NULL, NULL, kernel, dims, NULL, NULL };
    return dag__stencil_run(&s, dst, src);
}
dag_result dag_array_stencil_desc(const dag_task_desc *kernel, dag_array *dst, dag_array *src, int radius,
                                  dag_boundary boundary) {
    return dag_array_stencil_dims_desc(kernel, dst, src, dag__same_dims(radius, boundary));
}


/* >>matrix power: binary exponentiation over gemm */
dag_array *dag_array_pow(dag_array *a, int p) {
    if (!a || p < 0 || a->rows != a->cols) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_pow: %s", !a ? "no array" : p < 0 ?
                "a negative power (no inverse here)" : "the matrix is not square");
        return NULL;
    }
    if (!dag__array_la(a, "dag_array_pow", "A")) return NULL;
    dag_array *result = NULL, *base = dag_array_similar(a), *next = NULL;
    bool ok = base && dag_array_copy(a, base) == DAG_OK;
    if (ok && p == 0) ok = (result = dag_array_identity(a->type, a->rows, a->cols, dag__tiling_of(a))) != NULL;
    while (ok && p > 0) {
        if (p & 1) {
            if (!result) {
                result = dag_array_similar(a);
                ok = result && dag_array_copy(base, result) == DAG_OK;
            } else {
                ok = (next = dag_array_similar(a)) && dag_array_gemm(0, 0, 1.0, result, base, 0.0, next) == DAG_OK;
                dag_array_free(result);
                result = next, next = NULL;
            }
        }
        p >>= 1;
        if (ok && p > 0) {
            ok = (next = dag_array_similar(a)) && dag_array_gemm(0, 0, 1.0, base, base, 0.0, next) == DAG_OK;
            dag_array_free(base);
            base = next, next = NULL;
        }
    }
    dag_array_free(base);
    if (!ok) dag_array_free(result), result = NULL;
    return result;
}

/* >>statistics: composed of the operations above, so they run wherever
   those do (threads, devices, ranks): a in doubles (a stencil of radius 0
   converts), its mean by sum, the deviations by a broadcast sub, their
   squares' sum by dot or mul and reduce_dims. */
static double dag__stat_value(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
    (void)ld, (void)r, (void)c, (void)user;
    return x[0];
}
static double dag__stat_sqrt(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
    (void)ld, (void)r, (void)c, (void)user;
    return sqrt(x[0]);
}
/* a itself when it holds doubles, else a copy in doubles (NULL, said, for complex or bad arguments) */
static dag_array *dag__stat_doubles(dag_array *a, int dims, const char *who) {
    if (!a || dims < 0 || dims > 2) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who,
                !a ? "no array" : "dims must be 1 (over the rows) or 2 (over the columns)");
        return NULL;
    }
    if (!dag__not_complex(a, who, "its statistics would be complex (reduce_dims with DAG_OP_SUM gives the sum)")) return NULL;
    if (a->type == DAG_F64) return a;
    dag_array *d = dag__array_new(DAG_F64, a->rows, a->cols, dag__tiling_of(a), NULL, 0, false);
    if (d && dag_array_stencil(d, a, 0, dag_boundary_fixed(0), dag__stat_value, NULL) != DAG_OK) dag_array_free(d), d = NULL;
    return d;
}
static void dag__stat_done(dag_array *a, dag_array *d) {
    if (d != a) dag_array_free(d);
}
/* the sum of the squared deviations from the mean of x (doubles), and n */
static dag_result dag__stat_squares(dag_array *x, double *ss, double *n) {
    double sum = 0;
    dag_result r = dag_array_sum(x, &sum);
    *n = (double)x->rows * (double)x->cols;
    dag_array *m = r == DAG_OK ? dag_array_scalar(DAG_F64, sum / *n) : NULL, *y = m ? dag_array_similar(x) : NULL;
    if (r == DAG_OK) r = !y ? DAG_ERR_OUT_OF_MEMORY : dag_array_sub(x, m, y);
    if (r == DAG_OK) r = dag_array_dot(y, y, ss);
    dag_array_free(m), dag_array_free(y);
    return r;
}

dag_result dag_array_mean(dag_array *a, double *out) {
    dag_array *x = dag__stat_doubles(a, 0, "dag_array_mean");
    if (!x || !out) {
        if (x && !out) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_mean: no out (NULL)");
        dag__stat_done(a, x);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    double sum = 0;
    dag_result r = dag_array_sum(x, &sum);
    if (r == DAG_OK) *out = sum / ((double)x->rows * (double)x->cols);
    dag__stat_done(a, x);
    return r;
}
dag_result dag_array_var(dag_array *a, bool corrected, double *out) {
    dag_array *x = dag__stat_doubles(a, 0, "dag_array_var");
    if (!x || !out) {
        if (x && !out) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_array_var: no out (NULL)");
        dag__stat_done(a, x);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    double ss = 0, n = 0;
    dag_result r = dag__stat_squares(x, &ss, &n);
    if (r == DAG_OK) *out = ss / (n - (corrected ? 1 : 0));
    dag__stat_done(a, x);
    return r;
}
dag_result dag_array_std(dag_array *a, bool corrected, double *out) {
    dag_result r = dag_array_var(a, corrected, out);
    if (r == DAG_OK) *out = sqrt(*out);
    return r;
}

/* mean along dims of x (doubles); with squares, the sum of the squared deviations along dims instead */
static dag_array *dag__stat_along(dag_array *x, int dims, bool squares, double divide_by_less) {
    double count = dims == 1 ? (double)x->rows : (double)x->cols;
    dag_array *m = dag_array_reduce_dims(DAG_OP_SUM, x, dims, 0.0);
    if (m && dag_array_scale(1.0 / count, m) != DAG_OK) dag_array_free(m), m = NULL;
    if (!m || !squares) return m;
    dag_array *y = dag_array_similar(x), *v = NULL;
    if (y && dag_array_sub(x, m, y) == DAG_OK && dag_array_mul(y, y, y) == DAG_OK)
        v = dag_array_reduce_dims(DAG_OP_SUM, y, dims, 0.0);
    if (v && dag_array_scale(1.0 / (count - divide_by_less), v) != DAG_OK) dag_array_free(v), v = NULL;
    dag_array_free(y), dag_array_free(m);
    return v;
}
dag_array *dag_array_mean_dims(dag_array *a, int dims) {
    dag_array *x = dag__stat_doubles(a, dims ? dims : -1, "dag_array_mean_dims");
    dag_array *m = x ? dag__stat_along(x, dims, false, 0) : NULL;
    dag__stat_done(a, x);
    return dag__keeps_1d(a, m);
}
dag_array *dag_array_var_dims(dag_array *a, int dims, bool corrected) {
    dag_array *x = dag__stat_doubles(a, dims ? dims : -1, "dag_array_var_dims");
    dag_array *v = x ? dag__stat_along(x, dims, true, corrected ? 1 : 0) : NULL;
    dag__stat_done(a, x);
    return dag__keeps_1d(a, v);
}
dag_array *dag_array_std_dims(dag_array *a, int dims, bool corrected) {
    dag_array *v = dag_array_var_dims(a, dims, corrected), *s = v ? dag_array_similar(v) : NULL;
    if (s && dag_array_stencil(s, v, 0, dag_boundary_fixed(0), dag__stat_sqrt, NULL) != DAG_OK) dag_array_free(s), s = NULL;
    dag_array_free(v);
    return s;
}

#undef DAG__H
#undef DAG__R
#undef DAG__C

#endif /* DAG_IMPLEMENTATION */
#endif /* host */
