/* tests/test_array_dagger.c: Dagger.jl's own DArray tests (test/array/ of JuliaParallel/Dagger.jl,
   commit 59081dc), ported to dag_array.h: each TEST is one Dagger @testset (its file and name in the
   comment above it) and asserts what that testset asserts, against a plain loop or the value Dagger's
   test knows. Where part of a testset has no counterpart (3-D arrays, sparse arrays, Int8, strided
   views, ...) the part that has one is ported and the comment says what is left out.
   docs/dagger_arrays.md lists every Dagger case, ported or not. Built with the built-in tile loops and
   with -DDAG_ARRAY_CBLAS (OpenBLAS and LAPACKE). */
#define DAG_IMPLEMENTATION
#include "dag_kernels.h"
#include "dag_array.h"
#include "test.h"
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

typedef double _Complex z64;

static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

/* ---- host helpers: every host matrix is column-major double _Complex (real types use the real part) ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) {   /* uniform in [0, 1) */
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static bool is_complex(dag_elem t) { return t == DAG_CF64 || t == DAG_CF32; }
static bool is_int(dag_elem t) { return t == DAG_I32 || t == DAG_I64; }
static const char *type_name(dag_elem t) {
    static const char *names[] = { "?", "F64", "F32", "I32", "I64", "CF64", "CF32" };
    return names[t];
}
/* Julia's rand(T, m, n): [0, 1) for floats, both parts for complex; small integers for the integer types */
static z64 *host_rand(dag_elem t, int m, int n) {
    z64 *h = malloc(sizeof(z64) * (size_t)m * (size_t)n);
    for (int k = 0; k < m * n; k++) {
        double re = urand(), im = is_complex(t) ? urand() : 0.0;
        h[k] = is_int(t) ? (z64)floor(re * 1000) : re + I * im;
    }
    return h;
}
/* h rounded to what type t holds (so references compare exactly) */
static double f32(double x) {   /* through a volatile: with a plain cast, GCC 12 at -O2 left these values unrounded once inlined here */
    volatile float f = (float)x;
    return f;
}
static void round_to(dag_elem t, z64 *h, int n) {
    for (int k = 0; k < n; k++) {
        if (t == DAG_F32) h[k] = f32(creal(h[k]));
        else if (t == DAG_CF32) h[k] = f32(creal(h[k])) + I * f32(cimag(h[k]));
        else if (t == DAG_I32) h[k] = (int32_t)creal(h[k]);
        else if (t == DAG_I64) h[k] = (int64_t)creal(h[k]);
        else if (t == DAG_F64) h[k] = creal(h[k]);
    }
}
static size_t elem_size(dag_elem t) {
    return t == DAG_F64 || t == DAG_I64 || t == DAG_CF32 ? 8 : t == DAG_CF64 ? 16 : 4;
}
static void *typed(dag_elem t, const z64 *h, int n) {
    char *p = malloc(elem_size(t) * (size_t)n);
    for (int k = 0; k < n; k++) switch (t) {
        case DAG_F64: ((double *)p)[k] = creal(h[k]); break;
        case DAG_F32: ((float *)p)[k] = (float)creal(h[k]); break;
        case DAG_I32: ((int32_t *)p)[k] = (int32_t)creal(h[k]); break;
        case DAG_I64: ((int64_t *)p)[k] = (int64_t)creal(h[k]); break;
        case DAG_CF64: ((z64 *)p)[k] = h[k]; break;
        case DAG_CF32: ((float _Complex *)p)[k] = (float _Complex)h[k]; break;
        }
    return p;
}
static z64 *untyped(dag_elem t, const void *p, int n) {
    z64 *h = malloc(sizeof(z64) * (size_t)n);
    for (int k = 0; k < n; k++) switch (t) {
        case DAG_F64: h[k] = ((const double *)p)[k]; break;
        case DAG_F32: h[k] = ((const float *)p)[k]; break;
        case DAG_I32: h[k] = ((const int32_t *)p)[k]; break;
        case DAG_I64: h[k] = (double)((const int64_t *)p)[k]; break;
        case DAG_CF64: h[k] = ((const z64 *)p)[k]; break;
        case DAG_CF32: h[k] = ((const float _Complex *)p)[k]; break;
        }
    return h;
}
/* distribute(h, Blocks(br, bc)) */
static dag_array *to_array(dag_elem t, int m, int n, dag_blocks b, const z64 *h) {
    void *p = typed(t, h, m * n);
    dag_array *a = dag_array_from_host(t, m, n, b, p, DAG_COL_MAJOR, m);
    free(p);
    return a;
}
/* collect(a), as z64 */
static z64 *collect(dag_array *a) {
    int m = (int)dag_array_rows(a), n = (int)dag_array_cols(a);
    dag_elem t = dag_array_type(a);
    void *p = malloc(elem_size(t) * (size_t)m * (size_t)n);
    CHECK_EQ_INT(dag_array_collect(a, p, DAG_COL_MAJOR, m), DAG_OK);
    z64 *h = untyped(t, p, m * n);
    free(p);
    return h;
}
static int64_t *collect_i64(dag_array *a) {
    int m = (int)dag_array_rows(a), n = (int)dag_array_cols(a);
    int64_t *p = malloc(sizeof(int64_t) * (size_t)m * (size_t)n);
    CHECK_EQ_INT(dag_array_collect(a, p, DAG_COL_MAJOR, m), DAG_OK);
    return p;
}
static int count_diff(const z64 *a, const z64 *b, int n) {
    int bad = 0;
    for (int k = 0; k < n; k++) bad += a[k] != b[k];
    return bad;
}
/* Julia's isapprox for arrays: ||a - b|| <= rtol max(||a||, ||b||), Frobenius norms */
static bool approx(const z64 *a, const z64 *b, int n, double rtol) {
    double d = 0, na = 0, nb = 0;
    for (int k = 0; k < n; k++) {
        d += cabs(a[k] - b[k]) * cabs(a[k] - b[k]);
        na += cabs(a[k]) * cabs(a[k]);
        nb += cabs(b[k]) * cabs(b[k]);
    }
    return sqrt(d) <= rtol * fmax(sqrt(na), sqrt(nb));
}
static double default_rtol(dag_elem t) { return t == DAG_F32 || t == DAG_CF32 ? 3.5e-4 : 1.5e-8; }   /* sqrt(eps) */
/* op(A) of an m x n matrix: 0 itself, 1 its adjoint (Julia's A'); *rows, *cols op(A)'s shape */
static z64 opel(const z64 *a, int m, int op, int i, int j) { return op ? conj(a[j + i * m]) : a[i + j * m]; }
static z64 *matmul(const z64 *a, int am, int an, int opa, const z64 *b, int bm, int bn, int opb, int *rows, int *cols) {
    int m = opa ? an : am, k = opa ? am : an, n = opb ? bm : bn;
    z64 *c = calloc((size_t)m * (size_t)n, sizeof(z64));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            z64 s = 0;
            for (int l = 0; l < k; l++) s += opel(a, am, opa, i, l) * opel(b, bm, opb, l, j);
            c[i + j * m] = s;
        }
    *rows = m, *cols = n;
    return c;
}
/* opnorm(A, 1): the largest column sum */
static double opnorm1(const z64 *a, int m, int n) {
    double best = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < m; i++) s += cabs(a[i + j * m]);
        best = fmax(best, s);
    }
    return best;
}
/* x = A \ B (A n x n, B n x k) by Gaussian elimination with partial pivoting, in double complex */
static z64 *solve_ref(const z64 *a0, int n, const z64 *b0, int k) {
    z64 *a = malloc(sizeof(z64) * (size_t)n * (size_t)n), *b = malloc(sizeof(z64) * (size_t)n * (size_t)k);
    memcpy(a, a0, sizeof(z64) * (size_t)n * (size_t)n), memcpy(b, b0, sizeof(z64) * (size_t)n * (size_t)k);
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (cabs(a[i + c * n]) > cabs(a[p + c * n])) p = i;
        for (int j = 0; j < n; j++) { z64 t = a[c + j * n]; a[c + j * n] = a[p + j * n], a[p + j * n] = t; }
        for (int j = 0; j < k; j++) { z64 t = b[c + j * n]; b[c + j * n] = b[p + j * n], b[p + j * n] = t; }
        for (int i = c + 1; i < n; i++) {
            z64 f = a[i + c * n] / a[c + c * n];
            for (int j = c; j < n; j++) a[i + j * n] -= f * a[c + j * n];
            for (int j = 0; j < k; j++) b[i + j * n] -= f * b[c + j * n];
        }
    }
    for (int j = 0; j < k; j++)
        for (int i = n - 1; i >= 0; i--) {
            z64 s = b[i + j * n];
            for (int l = i + 1; l < n; l++) s -= a[i + l * n] * b[l + j * n];
            b[i + j * n] = s / a[i + i * n];
        }
    free(a);
    return b;
}

/* ==== test/array/allocation.jl ==== */

/* "DVector/DMatrix/DArray constructor": DVector(V, Blocks(8)) and DMatrix(M, Blocks(8, 8)) collect to V
   and M and have their sizes, for Float32, Float64, Int32, Int64. (Not ported: the 0-D DArray and the 3-D
   DArray: arrays here are 2-D.) */
static const dag_elem real_types[4] = { DAG_F32, DAG_F64, DAG_I32, DAG_I64 };
TEST(allocation_dvector_and_dmatrix_constructors_collect_their_host_data_in_every_real_type) {
    for (int t = 0; t < 4; t++) {
        dag_elem T = real_types[t];
        z64 *v = host_rand(T, 64, 1), *m = host_rand(T, 64, 64);
        round_to(T, v, 64), round_to(T, m, 64 * 64);
        dag_array *DV = to_array(T, 64, 1, dag_blocks(8, 1), v), *DM = to_array(T, 64, 64, dag_blocks(8, 8), m);
        CHECK(DV && DM);
        CHECK_EQ_INT(dag_array_type(DV), T);
        CHECK_EQ_INT(dag_array_rows(DV), 64); CHECK_EQ_INT(dag_array_cols(DV), 1);
        CHECK_EQ_INT(dag_array_rows(DM), 64); CHECK_EQ_INT(dag_array_cols(DM), 64);
        z64 *cv = collect(DV), *cm = collect(DM);
        CHECK_EQ_INT(count_diff(cv, v, 64), 0);
        CHECK_EQ_INT(count_diff(cm, m, 64 * 64), 0);
        free(cv), free(cm), free(v), free(m);
        dag_array_free(DV), dag_array_free(DM);
    }
}

/* "undef": DArray{T}(undef, dims) with automatic blocks and with Blocks(10, ...) has eltype T, size dims,
   collects, and keeps its partitioning; dims (100,) and (100, 100). (Not ported: () and (100, 100, 100).) */
TEST(allocation_undef_has_its_type_shape_and_tiling_with_automatic_or_given_blocks) {
    for (int t = 0; t < 4; t++)
        for (int d = 0; d < 2; d++) {
            dag_elem T = real_types[t];
            int m = 100, n = d ? 100 : 1;
            dag_array *a = dag_array_undef(T, m, n, dag_blocks_auto());
            dag_array *b = dag_array_undef(T, m, n, dag_blocks(10, d ? 10 : 1));
            CHECK(a && b);
            CHECK_EQ_INT(dag_array_type(a), T); CHECK_EQ_INT(dag_array_type(b), T);
            CHECK_EQ_INT(dag_array_rows(a), m); CHECK_EQ_INT(dag_array_cols(a), n);
            CHECK_EQ_INT(dag_array_rows(b), m); CHECK_EQ_INT(dag_array_cols(b), n);
            z64 *ca = collect(a), *cb = collect(b);
            int64_t r, c;
            dag_array_tile_size(b, 0, 0, &r, &c);
            CHECK_EQ_INT(r, 10); CHECK_EQ_INT(c, d ? 10 : 1);
            CHECK_EQ_INT(dag_array_tile_rows(b), 10); CHECK_EQ_INT(dag_array_tile_cols(b), d ? 10 : 1);
            free(ca), free(cb);
            dag_array_free(a), dag_array_free(b);
        }
}

/* "random": rand(Blocks(10...), T, dims...) has eltype T and size dims, collects the same twice, differs
   from another rand (here: another seed), and for floats has fewer than 10 elements that are not > 0;
   randn the same for Float32 and Float64. (Not ported: sprand, and dims () and (100, 100, 100).) */
TEST(allocation_rand_and_randn_repeat_differ_by_seed_and_rand_is_positive) {
    for (int t = 0; t < 4; t++)
        for (int d = 0; d < 2; d++) {
            dag_elem T = real_types[t];
            int m = 100, n = d ? 100 : 1, len = m * n;
            dag_blocks b = dag_blocks(10, d ? 10 : 1);
            dag_array *X = dag_array_rand(T, m, n, b, 1), *Y = dag_array_rand(T, m, n, b, 2);
            CHECK(X && Y);
            CHECK_EQ_INT(dag_array_type(X), T);
            CHECK_EQ_INT(dag_array_rows(X), m); CHECK_EQ_INT(dag_array_cols(X), n);
            z64 *ax = collect(X), *ax2 = collect(X), *ay = collect(Y);
            CHECK_EQ_INT(count_diff(ax, ax2, len), 0);
            CHECK(count_diff(ax, ay, len) > 0);
            if (!is_int(T)) {
                int not_positive = 0;
                for (int k = 0; k < len; k++) not_positive += !(creal(ax[k]) > 0);
                CHECK(not_positive < 10);
            }
            free(ax), free(ax2), free(ay);
            dag_array_free(X), dag_array_free(Y);
            if (!is_int(T)) {
                dag_array *N = dag_array_randn(T, m, n, b, 1), *N2 = dag_array_randn(T, m, n, b, 2);
                CHECK(N && N2);
                CHECK_EQ_INT(dag_array_type(N), T);
                z64 *an = collect(N), *an2 = collect(N), *bn = collect(N2);
                CHECK_EQ_INT(count_diff(an, an2, len), 0);
                CHECK(count_diff(an, bn, len) > 0);
                free(an), free(an2), free(bn);
                dag_array_free(N), dag_array_free(N2);
            }
        }
}

/* "ones/zeros": ones and zeros in Blocks(10...) hold one(T) and zero(T) everywhere, with eltype T and
   size dims. (Not ported: dims () and (100, 100, 100).) */
TEST(allocation_ones_and_zeros_hold_their_value_in_every_real_type) {
    for (int t = 0; t < 4; t++)
        for (int f = 0; f < 2; f++)
            for (int d = 0; d < 2; d++) {
                dag_elem T = real_types[t];
                int m = 100, n = d ? 100 : 1;
                dag_blocks b = dag_blocks(10, d ? 10 : 1);
                dag_array *A = f ? dag_array_ones(T, m, n, b) : dag_array_zeros(T, m, n, b);
                CHECK(A != NULL);
                CHECK_EQ_INT(dag_array_type(A), T);
                CHECK_EQ_INT(dag_array_rows(A), m); CHECK_EQ_INT(dag_array_cols(A), n);
                z64 *h = collect(A);
                int bad = 0;
                for (int k = 0; k < m * n; k++) bad += h[k] != (f ? 1.0 : 0.0);
                CHECK_EQ_INT(bad, 0);
                free(h);
                dag_array_free(A);
            }
}

/* "distribute": distribute(X, Blocks(10, 20)) of a 100 x 100 matrix equals X in a 10 x 5 grid of 10 x 20
   tiles; [1 2; 3 4] in Blocks(1, 1) equals itself; a distributed vector (2 pieces) distributed again (3
   pieces: dag_array_copy into another tiling) collects the same. (Not ported: sprand.) */
TEST(allocation_distribute_cuts_tiles_of_the_given_size_and_redistributes) {
    z64 *x = host_rand(DAG_F64, 100, 100);
    dag_array *X = to_array(DAG_F64, 100, 100, dag_blocks(10, 20), x);
    CHECK_EQ_INT(dag_array_tile_rows(X), 10); CHECK_EQ_INT(dag_array_tile_cols(X), 5);
    int wrong = 0;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 10; i++) {
            int64_t r, c;
            dag_array_tile_size(X, i, j, &r, &c);
            wrong += r != 10 || c != 20;
        }
    CHECK_EQ_INT(wrong, 0);
    z64 *cx = collect(X);
    CHECK_EQ_INT(count_diff(cx, x, 100 * 100), 0);
    z64 small[4] = { 1, 3, 2, 4 };   /* [1 2; 3 4] column-major */
    dag_array *S = to_array(DAG_I64, 2, 2, dag_blocks(1, 1), small);
    z64 *cs = collect(S);
    CHECK_EQ_INT(count_diff(cs, small, 4), 0);
    z64 *v = host_rand(DAG_F64, 10, 1);
    dag_array *V2 = to_array(DAG_F64, 10, 1, dag_blocks(5, 1), v), *V3 = dag_array_zeros(DAG_F64, 10, 1, dag_blocks(4, 1));
    CHECK_EQ_INT(dag_array_copy(V2, V3), DAG_OK);
    CHECK_EQ_INT(dag_array_tile_rows(V3), 3);
    z64 *c2 = collect(V2), *c3 = collect(V3);
    CHECK_EQ_INT(count_diff(c2, c3, 10), 0);
    free(x), free(cx), free(cs), free(v), free(c2), free(c3);
    dag_array_free(X), dag_array_free(S), dag_array_free(V2), dag_array_free(V3);
}

/* "AutoBlocks": arrays made with AutoBlocks() (from host data, rand, randn, ones, zeros) have size dims.
   (Not ported: Dagger's rule itself, whole leading dimensions and the last split over the processors;
   dag_blocks_auto() has a rule of its own, tests/test_array_ops.c checks it.) */
TEST(allocation_automatic_blocks_give_arrays_of_the_asked_size_that_hold_their_data) {
    for (int d = 0; d < 2; d++) {
        int m = 100, n = d ? 100 : 1;
        z64 *h = host_rand(DAG_F64, m, n);
        dag_array *a[5] = { to_array(DAG_F64, m, n, dag_blocks_auto(), h), dag_array_rand(DAG_F64, m, n, dag_blocks_auto(), 3),
                            dag_array_randn(DAG_F64, m, n, dag_blocks_auto(), 3), dag_array_ones(DAG_F64, m, n, dag_blocks_auto()),
                            dag_array_zeros(DAG_F64, m, n, dag_blocks_auto()) };
        for (int k = 0; k < 5; k++) {
            CHECK(a[k] != NULL);
            CHECK_EQ_INT(dag_array_rows(a[k]), m); CHECK_EQ_INT(dag_array_cols(a[k]), n);
        }
        z64 *c = collect(a[0]);
        CHECK_EQ_INT(count_diff(c, h, m * n), 0);
        free(c), free(h);
        for (int k = 0; k < 5; k++) dag_array_free(a[k]);
    }
}

/* "view": view(A, Blocks(8, 8)) of a 64 x 64 host matrix collects to A, has its size, and its first tile
   is A[1:8, 1:8], a view of A (dag_array_wrap: the tile's columns A's leading dimension apart). */
TEST(allocation_view_wraps_a_host_matrix_whose_first_tile_is_its_corner) {
    double a[64 * 64];
    for (int k = 0; k < 64 * 64; k++) a[k] = urand();
    dag_array *DA = dag_array_wrap(DAG_F64, 64, 64, dag_blocks(8, 8), a, 64);
    CHECK(DA != NULL);
    CHECK_EQ_INT(dag_array_rows(DA), 64); CHECK_EQ_INT(dag_array_cols(DA), 64);
    double *c = malloc(sizeof a), corner[64];
    CHECK_EQ_INT(dag_array_collect(DA, c, DAG_COL_MAJOR, 64), DAG_OK);
    CHECK(memcmp(c, a, sizeof a) == 0);
    CHECK_EQ_INT(dag_array_tile_ld(DA, 0, 0), 64);
    CHECK_EQ_INT(dag_array_get_slice(DA, 0, 8, 0, 8, corner, 8), DAG_OK);
    int bad = 0;
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) bad += corner[i + j * 8] != a[i + j * 64];
    CHECK_EQ_INT(bad, 0);
    free(c);
    dag_array_free(DA);
}

/* "copy/similar": copy(X1) of ones(Blocks(10, 10), 100, 100) equals X1 and similar(X1) has its type,
   shape and tiling. (Not ported: collect(X1) != collect(similar(X1)), a claim about uninitialised
   memory.) */
TEST(allocation_copy_gives_equal_values_and_similar_the_same_type_shape_and_tiling) {
    dag_array *X1 = dag_array_ones(DAG_F64, 100, 100, dag_blocks(10, 10));
    dag_array *X2 = dag_array_similar(X1), *X3 = dag_array_similar(X1);
    CHECK(X2 && X3);
    CHECK_EQ_INT(dag_array_copy(X1, X2), DAG_OK);
    z64 *c1 = collect(X1), *c2 = collect(X2);
    CHECK_EQ_INT(count_diff(c1, c2, 100 * 100), 0);
    CHECK_EQ_INT(dag_array_type(X3), DAG_F64);
    CHECK_EQ_INT(dag_array_rows(X3), 100); CHECK_EQ_INT(dag_array_cols(X3), 100);
    CHECK_EQ_INT(dag_array_tile_rows(X3), 10); CHECK_EQ_INT(dag_array_tile_cols(X3), 10);
    free(c1), free(c2);
    dag_array_free(X1), dag_array_free(X2), dag_array_free(X3);
}

/* ==== test/array/core.jl ==== */

DAG_KERNEL(plus_one, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] = x[i] + 1;
)
DAG_KERNEL(set_one_i64, ((DAG_GLOBAL const long *, x), (DAG_GLOBAL long *, y)),
    size_t i = DAG_INDEX();
    (void)x;
    y[i] = 1;
)
DAG_KERNEL(two_x_plus_one_i64, ((DAG_GLOBAL const long *, x), (DAG_GLOBAL long *, y)),
    size_t i = DAG_INDEX();
    y[i] = 2 * x[i] + 1;
)

/* "map": map(x -> x + 1, X1) of ones(Blocks(10, 10), 100, 100) is collect(X1) .+ 1, an array like X1. */
TEST(core_map_adds_one_out_of_place) {
    dag_array *X1 = dag_array_ones(DAG_F64, 100, 100, dag_blocks(10, 10)), *X2 = dag_array_similar(X1);
    CHECK_EQ_INT(dag_array_map(plus_one, X1, X2), DAG_OK);
    CHECK_EQ_INT(dag_array_type(X2), DAG_F64);
    z64 *c1 = collect(X1), *c2 = collect(X2);
    int bad = 0;
    for (int k = 0; k < 100 * 100; k++) bad += c1[k] + 1 != c2[k];
    CHECK_EQ_INT(bad, 0);
    free(c1), free(c2);
    dag_array_free(X1), dag_array_free(X2);
}

/* "map!": map!(_ -> 1, X) of zeros(Blocks(10, 10), Int, 40, 40) makes sum(X) == length(X); then
   map!(x -> 2x + 1, X, Matrix(X)) makes it 3 length(X). */
TEST(core_map_in_place_sets_and_transforms_int64) {
    dag_array *X = dag_array_zeros(DAG_I64, 40, 40, dag_blocks(10, 10));
    CHECK_EQ_INT(dag_array_map(set_one_i64, X, X), DAG_OK);
    double s;
    CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
    CHECK(s == 40 * 40);
    int64_t *m = collect_i64(X);   /* Matrix(X) */
    dag_array *M = dag_array_from_host(DAG_I64, 40, 40, dag_blocks(40, 40), m, DAG_COL_MAJOR, 40);
    CHECK_EQ_INT(dag_array_map(two_x_plus_one_i64, M, X), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
    CHECK(s == 3 * 40 * 40);
    free(m);
    dag_array_free(X), dag_array_free(M);
}

/* "DiffEq support": zero(X) of ones(Blocks(10), 100) is all 0 and like X; X / T(2) equals
   collect(X) ./ 2. (Not ported: Julia's promote_op result types and Int8: here X / y is
   dag_array_scale(1 / y) in X's own type.) */
TEST(core_zero_like_and_division_by_a_scalar) {
    dag_array *X = dag_array_ones(DAG_F64, 100, 1, dag_blocks(10, 1)), *X0 = dag_array_similar(X);
    CHECK_EQ_INT(dag_array_set(X0, 0.0), DAG_OK);
    z64 *c0 = collect(X0);
    int bad = 0;
    for (int k = 0; k < 100; k++) bad += c0[k] != 0;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(dag_array_tile_rows(X0), dag_array_tile_rows(X));
    dag_array *Xd = dag_array_similar(X);
    CHECK_EQ_INT(dag_array_copy(X, Xd), DAG_OK);
    CHECK_EQ_INT(dag_array_scale(1.0 / 2.0, Xd), DAG_OK);
    z64 *cx = collect(X), *cd = collect(Xd);
    bad = 0;
    for (int k = 0; k < 100; k++) bad += cd[k] != cx[k] / 2.0;
    CHECK_EQ_INT(bad, 0);
    free(c0), free(cx), free(cd);
    dag_array_free(X), dag_array_free(X0), dag_array_free(Xd);
}

/* "broadcast": X1 .* 3.4 of rand(Blocks(10), 100) equals collect(X1) .* 3.4, and X1 .+ X1 equals
   collect(X1) .* 2. */
TEST(core_broadcast_scales_and_adds_a_vector) {
    dag_array *X1 = dag_array_rand(DAG_F64, 100, 1, dag_blocks(10, 1), 5), *X2 = dag_array_similar(X1),
              *X3 = dag_array_similar(X1);
    CHECK_EQ_INT(dag_array_copy(X1, X2), DAG_OK);
    CHECK_EQ_INT(dag_array_scale(3.4, X2), DAG_OK);
    CHECK_EQ_INT(dag_array_add(X1, X1, X3), DAG_OK);
    z64 *c1 = collect(X1), *c2 = collect(X2), *c3 = collect(X3);
    int bad2 = 0, bad3 = 0;
    for (int k = 0; k < 100; k++) bad2 += c2[k] != creal(c1[k]) * 3.4, bad3 += c3[k] != creal(c1[k]) * 2;
    CHECK_EQ_INT(bad2, 0); CHECK_EQ_INT(bad3, 0);
    free(c1), free(c2), free(c3);
    dag_array_free(X1), dag_array_free(X2), dag_array_free(X3);
}

/* "transpose": X1' of distribute(X, Blocks(10, 20)) equals X' (100 x 100 and 100 x 120), in a grid of
   (cols / 20, rows / 10) tiles of 20 x 10 (here the destination's tiling, made by the caller).
   (Not ported: the sparse matrices.) */
TEST(core_transpose_gives_the_transpose_in_transposed_tiles) {
    for (int s = 0; s < 2; s++) {
        int x = 100, y = s ? 120 : 100;
        z64 *h = host_rand(DAG_F64, x, y);
        dag_array *X1 = to_array(DAG_F64, x, y, dag_blocks(10, 20), h), *Xt = dag_array_zeros(DAG_F64, y, x, dag_blocks(20, 10));
        CHECK_EQ_INT(dag_array_transpose(X1, Xt), DAG_OK);
        z64 *c = collect(Xt);
        int bad = 0;
        for (int j = 0; j < x; j++)
            for (int i = 0; i < y; i++) bad += c[i + j * y] != h[j + i * x];
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(dag_array_tile_rows(Xt), y / 20); CHECK_EQ_INT(dag_array_tile_cols(Xt), x / 10);
        int wrong = 0;
        for (int j = 0; j < x / 10; j++)
            for (int i = 0; i < y / 20; i++) {
                int64_t r, cc;
                dag_array_tile_size(Xt, i, j, &r, &cc);
                wrong += r != 20 || cc != 10;
            }
        CHECK_EQ_INT(wrong, 0);
        free(h), free(c);
        dag_array_free(X1), dag_array_free(Xt);
    }
}

/* "concat": hcat(x, x) and hcat(x, y) (x in Blocks(10, 20), y in Blocks(10, 10), both the 75 x 75 m) equal
   hcat(m, m); vcat(x, x) equals vcat(m, m). Dagger's vcat(x, y) throws DimensionMismatch (their column
   tilings differ); dag_array_vcat joins them in x's tiling, so here it must equal vcat(m, m). */
static void check_cat(dag_array *c, const z64 *m, int n, bool h) {
    CHECK(c != NULL);
    if (!c) return;
    CHECK_EQ_INT(dag_array_rows(c), h ? n : 2 * n); CHECK_EQ_INT(dag_array_cols(c), h ? 2 * n : n);
    z64 *got = collect(c);
    int bad = 0, R = h ? n : 2 * n;
    for (int j = 0; j < (h ? 2 * n : n); j++)
        for (int i = 0; i < R; i++) bad += got[i + j * R] != m[(h ? i : i % n) + (h ? j % n : j) * n];
    CHECK_EQ_INT(bad, 0);
    free(got);
}
TEST(core_concat_hcat_and_vcat_of_equal_and_different_tilings) {
    z64 *m = host_rand(DAG_F64, 75, 75);
    dag_array *x = to_array(DAG_F64, 75, 75, dag_blocks(10, 20), m), *y = to_array(DAG_F64, 75, 75, dag_blocks(10, 10), m);
    dag_array *xx[2] = { x, x }, *xy[2] = { x, y };
    dag_array *h1 = dag_array_hcat(2, xx), *h2 = dag_array_hcat(2, xy), *v1 = dag_array_vcat(2, xx), *v2 = dag_array_vcat(2, xy);
    check_cat(h1, m, 75, true), check_cat(h2, m, 75, true), check_cat(v1, m, 75, false), check_cat(v2, m, 75, false);
    free(m);
    dag_array_free(h1), dag_array_free(h2), dag_array_free(v1), dag_array_free(v2), dag_array_free(x), dag_array_free(y);
}

/* "scale": Diagonal(y) * X of distribute(x, Blocks(3, 3)) (10 x 10) equals Diagonal(y) * x: here
   dag_array_mul with y as a 10 x 1 array, which broadcasts across X's columns. */
TEST(core_scale_by_a_diagonal_is_a_column_broadcast_mul) {
    z64 *x = host_rand(DAG_F64, 10, 10), *y = host_rand(DAG_F64, 10, 1);
    dag_array *X = to_array(DAG_F64, 10, 10, dag_blocks(3, 3), x), *Y = to_array(DAG_F64, 10, 1, dag_blocks(3, 1), y);
    dag_array *D = dag_array_similar(X);
    CHECK_EQ_INT(dag_array_mul(Y, X, D), DAG_OK);
    z64 *c = collect(D);
    int bad = 0;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 10; i++) bad += c[i + j * 10] != y[i] * x[i + j * 10];
    CHECK_EQ_INT(bad, 0);
    free(x), free(y), free(c);
    dag_array_free(X), dag_array_free(Y), dag_array_free(D);
}

/* "reducedim": reduce(+, X, dims=1) and dims=2 of rand(1:10, 10, 5) in Blocks(3, 3), and sum(X, dims=1),
   dims=2 in Blocks(10, 10), equal the host's. */
TEST(core_reducedim_sums_int64_over_rows_and_columns) {
    z64 *x = malloc(sizeof(z64) * 50);
    for (int k = 0; k < 50; k++) x[k] = 1 + floor(urand() * 10);
    for (int b = 0; b < 2; b++) {
        dag_array *X = to_array(DAG_I64, 10, 5, b ? dag_blocks(10, 10) : dag_blocks(3, 3), x);
        dag_array *r1 = dag_array_reduce_dims(DAG_OP_SUM, X, 1, 0.0), *r2 = dag_array_reduce_dims(DAG_OP_SUM, X, 2, 0.0);
        CHECK(r1 && r2);
        if (!r1 || !r2) continue;
        CHECK_EQ_INT(dag_array_rows(r1), 1); CHECK_EQ_INT(dag_array_cols(r1), 5);
        CHECK_EQ_INT(dag_array_rows(r2), 10); CHECK_EQ_INT(dag_array_cols(r2), 1);
        z64 *c1 = collect(r1), *c2 = collect(r2);
        int bad = 0;
        for (int j = 0; j < 5; j++) {
            z64 s = 0;
            for (int i = 0; i < 10; i++) s += x[i + j * 10];
            bad += c1[j] != s;
        }
        for (int i = 0; i < 10; i++) {
            z64 s = 0;
            for (int j = 0; j < 5; j++) s += x[i + j * 10];
            bad += c2[i] != s;
        }
        CHECK_EQ_INT(bad, 0);
        free(c1), free(c2);
        dag_array_free(r1), dag_array_free(r2), dag_array_free(X);
    }
    free(x);
}

/* "sort": sort(X) of shuffle(1:10) distributed in 4, 10 and 1 pieces equals sort(x), and sort(X,
   rev=true) sort(x, rev=true). (Not ported: a vector of tuples; the @test_broken on chunk sizes.) */
TEST(core_sort_of_a_shuffled_vector_in_4_10_and_1_pieces) {
    int64_t x[10];
    for (int k = 0; k < 10; k++) x[k] = k + 1;
    for (int k = 9; k > 0; k--) {
        int j = (int)(urand() * (k + 1));
        int64_t t = x[k];
        x[k] = x[j], x[j] = t;
    }
    static const int pieces[3] = { 4, 10, 1 };
    for (int p = 0; p < 3; p++)
        for (int rev = 0; rev < 2; rev++) {
            int block = (10 + pieces[p] - 1) / pieces[p];
            dag_array *X = dag_array_from_host(DAG_I64, 10, 1, dag_blocks(block, 1), x, DAG_COL_MAJOR, 10);
            CHECK_EQ_INT(dag_array_sort(X, rev), DAG_OK);
            int64_t *s = collect_i64(X);
            int bad = 0;
            for (int k = 0; k < 10; k++) bad += s[k] != (rev ? 10 - k : k + 1);
            CHECK_EQ_INT(bad, 0);
            free(s);
            dag_array_free(X);
        }
}

/* ==== test/array/indexing.jl ==== */

/* "indexing": DA = view(A, Blocks(8)) (and Blocks(8, 8)): DA[1] == A[1], first and last agree, and
   DA[3] = 42.0 makes DA[3] == A[3] == 42.0 (A written in place: dag_array_wrap, get and put). */
TEST(indexing_get_and_put_read_and_write_a_wrapped_host_array) {
    for (int d = 0; d < 2; d++) {
        int m = 64, n = d ? 64 : 1;
        double *A = malloc(sizeof(double) * (size_t)(m * n));
        for (int k = 0; k < m * n; k++) A[k] = urand();
        dag_array *DA = dag_array_wrap(DAG_F64, m, n, dag_blocks(8, d ? 8 : 1), A, m);
        double v;
        CHECK_EQ_INT(dag_array_get(DA, 0, 0, &v), DAG_OK);
        CHECK(v == A[0]);
        CHECK_EQ_INT(dag_array_get(DA, m - 1, n - 1, &v), DAG_OK);
        CHECK(v == A[m * n - 1]);
        CHECK_EQ_INT(dag_array_put(DA, 2, 0, 42.0), DAG_OK);   /* linear index 3 */
        CHECK_EQ_INT(dag_array_get(DA, 2, 0, &v), DAG_OK);
        CHECK(v == 42.0);
        CHECK(A[2] == 42.0);
        free(A);
        dag_array_free(DA);
    }
}

/* x[rows, cols] on the host (0-based; NULL: every index of an n x n matrix's dimension) */
static bool index_equals(dag_array *X, const z64 *x, int n, const int64_t *rows, int nr, const int64_t *cols, int nc) {
    dag_array *Y = dag_array_index(X, rows, nr, cols, nc);
    if (!Y) return false;
    int m = rows ? nr : n, k = cols ? nc : n, bad = dag_array_rows(Y) != m || dag_array_cols(Y) != k;
    z64 *y = bad ? NULL : collect(Y);
    for (int j = 0; !bad && j < k; j++)
        for (int i = 0; i < m; i++) bad += y[i + j * m] != x[(rows ? rows[i] : i) + (cols ? cols[j] : j) * n];
    free(y);
    dag_array_free(Y);
    return !bad;
}
static const int64_t ragged_idx[8] = { 0, 1, 8, 6, 5, 1, 3, 4 };   /* [1,2,9,7,6,2,4,5] */

/* "getindex": X[3:8, 2:7] of distribute(x, Blocks(3, 3)) equals x[3:8, 2:7], and so do X[ragged_idx, 2:7],
   X[ragged_idx, reverse(ragged_idx)] and X[[2,7,10], :] (dag_array_index); xs[i:i, i:i] of Blocks(2, 2)
   equals y[i:i, i:i]. (Not ported: empty index sets, which no array holds, and sparse matrices.) */
TEST(indexing_getindex_of_ranges_equals_the_host_slice) {
    z64 *x = host_rand(DAG_F64, 10, 10);
    dag_array *X = to_array(DAG_F64, 10, 10, dag_blocks(3, 3), x);
    double s[36];
    CHECK_EQ_INT(dag_array_get_slice(X, 2, 6, 1, 6, s, 6), DAG_OK);
    dag_array *V = dag_array_view(X, 2, 6, 1, 6);
    z64 *cv = collect(V);
    int bad = 0;
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++) bad += s[i + j * 6] != x[2 + i + (1 + j) * 10] || cv[i + j * 6] != x[2 + i + (1 + j) * 10];
    CHECK_EQ_INT(bad, 0);
    int64_t cols27[6] = { 1, 2, 3, 4, 5, 6 }, reversed[8], some[3] = { 1, 6, 9 };
    for (int i = 0; i < 8; i++) reversed[i] = ragged_idx[7 - i];
    CHECK(index_equals(X, x, 10, ragged_idx, 8, cols27, 6));
    CHECK(index_equals(X, x, 10, ragged_idx, 8, reversed, 8));
    CHECK(index_equals(X, x, 10, some, 3, NULL, 0));
    dag_array *xs = to_array(DAG_F64, 10, 10, dag_blocks(2, 2), x);
    bad = 0;
    for (int i = 0; i < 10; i++) {
        double e;
        CHECK_EQ_INT(dag_array_get_slice(xs, i, 1, i, 1, &e, 1), DAG_OK);
        bad += e != x[i + i * 10];
    }
    CHECK_EQ_INT(bad, 0);
    free(x), free(cv);
    dag_array_free(V), dag_array_free(X), dag_array_free(xs);
}

/* "dimensionality reduction": X[ragged_idx, 5] and X[5, ragged_idx] (an 8 x 1 and a 1 x 8 array) equal
   x's, and X[5, 5] == x[5, 5]. */
TEST(indexing_one_element_of_a_distributed_matrix) {
    z64 *x = host_rand(DAG_F64, 10, 10);
    dag_array *X = to_array(DAG_F64, 10, 10, dag_blocks(3, 3), x);
    double v;
    int64_t five[1] = { 4 };
    CHECK(index_equals(X, x, 10, ragged_idx, 8, five, 1));
    CHECK(index_equals(X, x, 10, five, 1, ragged_idx, 8));
    CHECK_EQ_INT(dag_array_get(X, 4, 4, &v), DAG_OK);
    CHECK(v == x[4 + 4 * 10]);
    free(x);
    dag_array_free(X);
}

/* "setindex": setindex(X, 1.0, 3:8, 2:7) (out of place: dag_array_copy, then dag_array_put_slice of
   ones) equals x with that block 1.0, and X is unchanged. */
TEST(indexing_setindex_of_a_copy_leaves_the_original) {
    z64 *x = host_rand(DAG_F64, 10, 10), *y = malloc(sizeof(z64) * 100);
    memcpy(y, x, sizeof(z64) * 100);
    for (int j = 1; j < 7; j++)
        for (int i = 2; i < 8; i++) y[i + j * 10] = 1.0;
    dag_array *X = to_array(DAG_F64, 10, 10, dag_blocks(3, 3), x), *Y = dag_array_similar(X);
    double ones[36];
    for (int k = 0; k < 36; k++) ones[k] = 1.0;
    CHECK_EQ_INT(dag_array_copy(X, Y), DAG_OK);
    CHECK_EQ_INT(dag_array_put_slice(Y, 2, 6, 1, 6, ones, 6), DAG_OK);
    z64 *cy = collect(Y), *cx = collect(X);
    CHECK_EQ_INT(count_diff(cy, y, 100), 0);
    CHECK_EQ_INT(count_diff(cx, x, 100), 0);
    free(x), free(y), free(cx), free(cy);
    dag_array_free(X), dag_array_free(Y);
}

/* "slicing": A[1:2, 1:2] of zeros(Blocks(5, 3), 10, 10) is an array; A[:, idx] = b (b rand(Blocks(2), 10))
   sets that column alone, A[idx, :] = b' that row alone, A[idx:idx+1, idx:idx+1] = view(B, same) that
   block alone (assignment: dag_array_copy into a dag_array_view). */
TEST(indexing_slicing_assigns_columns_rows_and_blocks_through_views) {
    dag_array *A0 = dag_array_zeros(DAG_F64, 10, 10, dag_blocks(5, 3)), *v0 = dag_array_view(A0, 0, 2, 0, 2);
    CHECK(v0 != NULL);
    dag_array_free(v0), dag_array_free(A0);
    int bad = 0;
    for (int kind = 0; kind < 3; kind++)
        for (int idx = 0; idx < (kind == 2 ? 9 : 10); idx++) {
            dag_array *A = dag_array_zeros(DAG_F64, 10, 10, dag_blocks(5, 3));
            dag_array *b = kind == 0 ? dag_array_rand(DAG_F64, 10, 1, dag_blocks(2, 1), 7u + (unsigned)idx)
                           : kind == 1 ? dag_array_rand(DAG_F64, 1, 10, dag_blocks(1, 2), 7u + (unsigned)idx)
                                       : dag_array_rand(DAG_F64, 10, 10, dag_blocks(2, 2), 7u + (unsigned)idx);
            dag_array *src = kind == 2 ? dag_array_view(b, idx, 2, idx, 2) : b;
            dag_array *dst = kind == 0 ? dag_array_view(A, 0, 10, idx, 1)
                             : kind == 1 ? dag_array_view(A, idx, 1, 0, 10) : dag_array_view(A, idx, 2, idx, 2);
            CHECK_EQ_INT(dag_array_copy(src, dst), DAG_OK);
            z64 *a = collect(A), *hb = collect(b);
            for (int j = 0; j < 10; j++)
                for (int i = 0; i < 10; i++) {
                    z64 want = kind == 0 ? (j == idx ? hb[i] : 0)
                               : kind == 1 ? (i == idx ? hb[j] : 0)
                                           : (i >= idx && i < idx + 2 && j >= idx && j < idx + 2 ? hb[i + j * 10] : 0);
                    bad += a[i + j * 10] != want;
                }
            free(a), free(hb);
            dag_array_free(dst);
            if (src != b) dag_array_free(src);
            dag_array_free(b), dag_array_free(A);
        }
    CHECK_EQ_INT(bad, 0);
}

/* ==== test/array/copyto.jl ==== */

/* test_copyto: copyto!(DB, DA) of whole arrays; of the views [1:fld1(m, 2), 1:fld1(n, 2)] (the rest of
   DB stays 0); and a copy between arrays of two shapes is refused (Dagger: DimensionMismatch). (Not
   ported: the strided views 1:2:m, which dag_array.h does not have.) */
static int fld1_2(int x) { return (x - 1) / 2 + 1; }
static int copyto_case(dag_elem T, int m, int n, dag_blocks pa, dag_blocks pb) {
    int bad = 0;
    z64 *h = host_rand(T, m, n);
    round_to(T, h, m * n);
    dag_array *DA = to_array(T, m, n, pa, h), *DB = dag_array_zeros(T, m, n, pb);
    bad += dag_array_copy(DA, DB) != DAG_OK;
    z64 *cb = collect(DB);
    bad += count_diff(cb, h, m * n);
    free(cb);
    dag_array_free(DB);
    DB = dag_array_zeros(T, m, n, pb);
    int r = fld1_2(m), c = fld1_2(n);
    dag_array *va = dag_array_view(DA, 0, r, 0, c), *vb = dag_array_view(DB, 0, r, 0, c);
    bad += dag_array_copy(va, vb) != DAG_OK;
    cb = collect(DB);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) bad += cb[i + j * m] != (i < r && j < c ? h[i + j * m] : 0);
    free(cb);
    if (r < m || c < n) bad += dag_array_copy(va, DB) != DAG_ERR_INVALID_ARGUMENT;
    dag_array_free(va), dag_array_free(vb), dag_array_free(DA), dag_array_free(DB);
    free(h);
    return bad;
}
/* "T=$T": Int32, Int64, Float64, ComplexF64 at 128 x 128 in Blocks(32, 32). (Not ported: Int8.) */
TEST(copyto_whole_arrays_and_contiguous_views_of_every_type) {
    static const dag_elem ts[4] = { DAG_I32, DAG_I64, DAG_F64, DAG_CF64 };
    for (int t = 0; t < 4; t++) {
        int bad = copyto_case(ts[t], 128, 128, dag_blocks(32, 32), dag_blocks(32, 32));
        if (bad) printf("     %s: %d differences\n", type_name(ts[t]), bad);
        CHECK_EQ_INT(bad, 0);
    }
}
/* "Partitioning=$partB<-$partA ($sz)": every pair of Blocks(3, 7), (32, 16), (32, 32), (57, 83),
   (128, 128) on every one of those sizes, Float64. */
TEST(copyto_between_every_pair_of_partitionings_and_sizes) {
    static const int sz[5][2] = { { 3, 7 }, { 32, 16 }, { 32, 32 }, { 57, 83 }, { 128, 128 } };
    int failed = 0;
    for (int b = 0; b < 5; b++)
        for (int a = 0; a < 5; a++)
            for (int s = 0; s < 5; s++) {
                int bad = copyto_case(DAG_F64, sz[s][0], sz[s][1], dag_blocks(sz[a][0], sz[a][1]), dag_blocks(sz[b][0], sz[b][1]));
                if (bad && failed++ < 5)
                    printf("     %d x %d, Blocks(%d, %d) <- Blocks(%d, %d): %d differences\n", sz[s][0], sz[s][1], sz[b][0],
                           sz[b][1], sz[a][0], sz[a][1], bad);
            }
    CHECK_EQ_INT(failed, 0);
}

/* ==== test/array/mapreduce.jl ==== */

/* test_mapreduce: f(X; dims) and f(X; dims, init=zero(T)) of a 100 x 100 array in Blocks(10, 10), for
   dims = :, 1, 2 and T Int32, Int64, Float32, Float64, isapprox the host's. Here dims : is dims 0 (a
   1 x 1 result) or the scalar reduction; "no init" is the operation's identity. */
typedef enum { R_SUM, R_MAPSUM, R_PROD, R_MIN, R_MAX } red_kind;
static double plus_one_fn(double x) { return x + 1; }
static double plus_fn(double a, double b) { return a + b; }
static double type_max(dag_elem t) { return t == DAG_I32 ? 2147483647.0 : t == DAG_I64 ? 9223372036854774784.0 : INFINITY; }
static double type_min(dag_elem t) { return t == DAG_I32 ? -2147483648.0 : t == DAG_I64 ? -9223372036854775808.0 : -INFINITY; }
static bool scalar_close(dag_elem t, double got, double want) {
    if (is_int(t)) return got == want;
    double rtol = default_rtol(t), atol = t == DAG_F32 ? FLT_MIN : 0;   /* F32 products fall below FLT_MIN: its rounding there is absolute */
    return got == want || fabs(got - want) <= fmax(atol, rtol * fmax(fabs(got), fabs(want)));
}
static int reduce_case(red_kind k, dag_elem T, bool ones) {
    int bad = 0;
    dag_blocks b = dag_blocks(10, 10);
    dag_array *X = ones ? dag_array_ones(T, 100, 100, b) : dag_array_rand(T, 100, 100, b, 11);
    z64 *hz = collect(X);
    double ident = k == R_PROD ? 1 : k == R_MIN ? type_max(T) : k == R_MAX ? type_min(T) : 0;
    dag_array_op op = k == R_PROD ? DAG_OP_PROD : k == R_MIN ? DAG_OP_MIN : k == R_MAX ? DAG_OP_MAX : DAG_OP_SUM;
    for (int dims = 0; dims <= 2; dims++)
        for (int zero_init = 0; zero_init < 2; zero_init++) {
            double init = zero_init ? 0.0 : ident;
            int outs = dims == 1 ? 100 : dims == 2 ? 100 : 1;
            dag_array *r = k == R_MAPSUM ? dag_array_mapreduce_fn(plus_one_fn, plus_fn, X, dims, init)
                                         : dag_array_reduce_dims(op, X, dims, init);
            if (!r) {
                printf("     %s dims %d: no result (%s)\n", type_name(T), dims, last_error);
                bad++;
                continue;
            }
            bad += dag_array_type(r) != T;
            z64 *got = collect(r);
            for (int o = 0; o < outs; o++) {
                /* the reference in long double (exact for these sums, and for int64 min and max) */
                long double acc = init;
                for (int e = 0; e < (dims == 0 ? 10000 : 100); e++) {
                    int i = dims == 1 ? e : dims == 2 ? o : e % 100, j = dims == 1 ? o : dims == 2 ? e : e / 100;
                    long double v = creal(hz[i + j * 100]);
                    if (k == R_MAPSUM) v += 1;
                    acc = k == R_PROD ? acc * v : k == R_MIN ? (v < acc ? v : acc) : k == R_MAX ? (v > acc ? v : acc) : acc + v;
                }
                double want = (double)acc;
                if (T == DAG_F32) want = (float)want;
                bool ok = scalar_close(T, creal(got[o]), want);
                if (!ok && bad < 3)
                    printf("     %s dims %d init %s, element %d: %.17g, the loop %.17g\n", type_name(T), dims,
                           zero_init ? "0" : "none", o, creal(got[o]), want);
                bad += !ok;
            }
            free(got);
            dag_array_free(r);
        }
    free(hz);
    dag_array_free(X);
    return bad;
}
/* int64 min and max compare exactly, as Julia's isapprox does on integers: the element itself */
static int reduce_i64_exact(red_kind k) {
    int bad = 0;
    dag_array *X = dag_array_rand(DAG_I64, 100, 100, dag_blocks(10, 10), 11);
    int64_t *h = collect_i64(X);
    for (int dims = 1; dims <= 2; dims++) {
        dag_array *r = dag_array_reduce_dims(k == R_MIN ? DAG_OP_MIN : DAG_OP_MAX, X, dims, k == R_MIN ? type_max(DAG_I64) : 0.0);
        if (!r) { bad++; continue; }
        int64_t *got = collect_i64(r);
        for (int o = 0; o < 100; o++) {
            int64_t want = k == R_MIN ? INT64_MAX : 0;
            for (int e = 0; e < 100; e++) {
                int64_t v = dims == 1 ? h[e + o * 100] : h[o + e * 100];
                want = k == R_MIN ? (v < want ? v : want) : (v > want ? v : want);
            }
            if (got[o] != want && bad < 3)
                printf("     I64 %s dims %d, element %d: %lld, the loop %lld (off by %lld)\n", k == R_MIN ? "min" : "max", dims,
                       o, (long long)got[o], (long long)want, (long long)(got[o] - want));
            bad += got[o] != want;
        }
        free(got);
        dag_array_free(r);
    }
    free(h);
    dag_array_free(X);
    return bad;
}
static void reduce_all_types(red_kind k, bool ones, bool ints) {
    for (int t = 0; t < 4; t++) {
        if (!ints && is_int(real_types[t])) continue;
        int bad = reduce_case(k, real_types[t], ones);
        CHECK_EQ_INT(bad, 0);
    }
}
/* "reduce": reduce(+, X; dims, init) of ones */
TEST(mapreduce_reduce_plus_over_all_dims_from_no_init_and_zero) { reduce_all_types(R_SUM, true, true); }
/* "mapreduce": mapreduce(x -> x + 1, +, X; dims, init) of ones */
TEST(mapreduce_x_plus_one_then_plus_over_all_dims) { reduce_all_types(R_MAPSUM, true, true); }
/* "sum": sum(X; dims, init) of ones; dims=: also as dag_array_sum */
TEST(mapreduce_sum_over_all_dims_and_the_scalar_sum) {
    reduce_all_types(R_SUM, true, true);
    for (int t = 0; t < 4; t++) {
        dag_array *X = dag_array_ones(real_types[t], 100, 100, dag_blocks(10, 10));
        double s;
        CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
        CHECK(s == 10000);
        dag_array_free(X);
    }
}
/* "prod": prod(X; dims, init) of rand: Float32 and Float64 as the loops; Int32 and Int64, whose products of
   rand overflow, wrap around modulo 2^32 or 2^64 exactly as Julia's */
static int prod_wraps(dag_elem T, bool odd) {
    int bad = 0;
    dag_array *X = dag_array_rand(T, 100, 100, dag_blocks(10, 10), 13);
    void *h = malloc(8 * 100 * 100);
    CHECK_EQ_INT(dag_array_collect(X, h, DAG_COL_MAJOR, 100), DAG_OK);
    if (odd) {   /* most products of rand are 0 modulo 2^32 (their factors of 2): odd ones wrap to other values */
        for (int k = 0; k < 10000; k++)
            if (T == DAG_I32) ((int32_t *)h)[k] |= 1;
            else ((int64_t *)h)[k] |= 1;
        dag_array_free(X);
        X = dag_array_from_host(T, 100, 100, dag_blocks(10, 10), h, DAG_COL_MAJOR, 100);
    }
    int nonzero = 0;
    for (int dims = 0; dims <= 2; dims++) {
        dag_array *r = dag_array_reduce_dims(DAG_OP_PROD, X, dims, 1.0);
        if (!r) { bad++; continue; }
        int n = dims == 0 ? 1 : 100;
        void *got = malloc(8 * (size_t)n);
        CHECK_EQ_INT(dag_array_collect(r, got, DAG_COL_MAJOR, dims == 2 ? 100 : 1), DAG_OK);
        for (int o = 0; o < n; o++) {
            uint64_t want = 1;
            for (int e = 0; e < (dims == 0 ? 10000 : 100); e++) {
                int at = dims == 0 ? e : dims == 1 ? e + o * 100 : o + e * 100;
                want *= T == DAG_I32 ? (uint64_t)(uint32_t)((int32_t *)h)[at] : (uint64_t)((int64_t *)h)[at];
            }
            bad += T == DAG_I32 ? ((int32_t *)got)[o] != (int32_t)(uint32_t)want : ((int64_t *)got)[o] != (int64_t)want;
            nonzero += (T == DAG_I32 ? (uint32_t)want : want) != 0;
        }
        free(got);
        dag_array_free(r);
    }
    if (odd) CHECK_EQ_INT(nonzero, 201);
    free(h);
    dag_array_free(X);
    return bad;
}
TEST(mapreduce_prod_of_rand_over_all_dims_floats_and_wrapping_integers) {
    reduce_all_types(R_PROD, false, false);
    for (int odd = 0; odd < 2; odd++) {
        CHECK_EQ_INT(prod_wraps(DAG_I32, odd), 0);
        CHECK_EQ_INT(prod_wraps(DAG_I64, odd), 0);
    }
}
/* "minimum": minimum(X; dims, init) of rand; dims=: also as dag_array_min */
TEST(mapreduce_minimum_over_all_dims_and_the_scalar_min) {
    reduce_all_types(R_MIN, false, true);
    CHECK_EQ_INT(reduce_i64_exact(R_MIN), 0);
    dag_array *X = dag_array_rand(DAG_F64, 100, 100, dag_blocks(10, 10), 12);
    z64 *h = collect(X);
    double s, want = INFINITY;
    for (int k = 0; k < 10000; k++) want = fmin(want, creal(h[k]));
    CHECK_EQ_INT(dag_array_min(X, &s), DAG_OK);
    CHECK(s == want);
    free(h);
    dag_array_free(X);
}
/* "maximum": maximum(X; dims, init) of rand; dims=: also as dag_array_max */
TEST(mapreduce_maximum_over_all_dims_and_the_scalar_max) {
    reduce_all_types(R_MAX, false, true);
    CHECK_EQ_INT(reduce_i64_exact(R_MAX), 0);
    dag_array *X = dag_array_rand(DAG_F64, 100, 100, dag_blocks(10, 10), 12);
    z64 *h = collect(X);
    double s, want = -INFINITY;
    for (int k = 0; k < 10000; k++) want = fmax(want, creal(h[k]));
    CHECK_EQ_INT(dag_array_max(X, &s), DAG_OK);
    CHECK(s == want);
    free(h);
    dag_array_free(X);
}
/* "extrema": extrema(X; dims, init=(0, 0)) of rand, exactly: here a minimum and a maximum, each checked
   as above (there is no (min, max) pair result). */
TEST(mapreduce_extrema_as_a_minimum_and_a_maximum) {
    reduce_all_types(R_MIN, false, true);
    reduce_all_types(R_MAX, false, true);
}

/* ==== test/array/broadcast.jl ==== */

DAG_KERNEL(sum_of_squares, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL const double *, y), (DAG_GLOBAL double *, out)),
    size_t i = DAG_INDEX();
    out[i] = x[i] * x[i] + y[i] * y[i];
)
static int count_not(dag_array *a, double v) {
    z64 *h = collect(a);
    int bad = 0, n = (int)(dag_array_rows(a) * dag_array_cols(a));
    for (int k = 0; k < n; k++) bad += h[k] != v;
    free(h);
    return bad;
}
/* "Out-of-place": A .+ B of ones(10, 10) in Blocks(5, 5) is fill(2.0), A .* B .+ 1.0 too, and A .+ v
   (v = ones(10) in Blocks(5): a column, broadcast across A's columns) too. */
TEST(broadcast_out_of_place_add_mul_plus_a_scalar_and_a_vector) {
    dag_array *A = dag_array_ones(DAG_F64, 10, 10, dag_blocks(5, 5)), *B = dag_array_ones(DAG_F64, 10, 10, dag_blocks(5, 5));
    dag_array *C = dag_array_similar(A), *D = dag_array_similar(A), *E = dag_array_similar(A);
    dag_array *one = dag_array_scalar(DAG_F64, 1.0), *v = dag_array_ones(DAG_F64, 10, 1, dag_blocks(5, 1));
    CHECK_EQ_INT(dag_array_add(A, B, C), DAG_OK);
    CHECK_EQ_INT(count_not(C, 2.0), 0);
    CHECK_EQ_INT(dag_array_mul(A, B, D), DAG_OK);
    CHECK_EQ_INT(dag_array_add(D, one, D), DAG_OK);
    CHECK_EQ_INT(count_not(D, 2.0), 0);
    CHECK_EQ_INT(dag_array_add(A, v, E), DAG_OK);
    CHECK_EQ_INT(count_not(E, 2.0), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(C), dag_array_free(D), dag_array_free(E);
    dag_array_free(one), dag_array_free(v);
}
/* "In-place": A .+= B gives 2, A .*= 2.0 gives 4, A .+= v gives 5, C .= A .+ B gives 6. */
TEST(broadcast_in_place_updates) {
    dag_array *A = dag_array_ones(DAG_F64, 10, 10, dag_blocks(5, 5)), *B = dag_array_ones(DAG_F64, 10, 10, dag_blocks(5, 5));
    dag_array *v = dag_array_ones(DAG_F64, 10, 1, dag_blocks(5, 1)), *C = dag_array_zeros(DAG_F64, 10, 10, dag_blocks(5, 5));
    CHECK_EQ_INT(dag_array_add(A, B, A), DAG_OK);
    CHECK_EQ_INT(count_not(A, 2.0), 0);
    CHECK_EQ_INT(dag_array_scale(2.0, A), DAG_OK);
    CHECK_EQ_INT(count_not(A, 4.0), 0);
    CHECK_EQ_INT(dag_array_add(A, v, A), DAG_OK);
    CHECK_EQ_INT(count_not(A, 5.0), 0);
    CHECK_EQ_INT(dag_array_add(A, B, C), DAG_OK);
    CHECK_EQ_INT(count_not(C, 6.0), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(v), dag_array_free(C);
}
/* "Complex Broadcast": f.(A, B) with f(x, y) = x^2 + y^2 (a DAG_KERNEL of two inputs, dag_array_map2),
   into a new array and into dest, equals collect(A).^2 .+ collect(B).^2. */
TEST(broadcast_a_function_of_two_arrays) {
    dag_array *A = dag_array_rand(DAG_F64, 10, 10, dag_blocks(5, 5), 21), *B = dag_array_rand(DAG_F64, 10, 10, dag_blocks(5, 5), 22);
    dag_array *C = dag_array_similar(A), *dest = dag_array_zeros(DAG_F64, 10, 10, dag_blocks(5, 5));
    CHECK_EQ_INT(dag_array_map2(sum_of_squares, A, B, C), DAG_OK);
    CHECK_EQ_INT(dag_array_map2(sum_of_squares, A, B, dest), DAG_OK);
    z64 *a = collect(A), *b = collect(B), *c = collect(C), *d = collect(dest), want[100];
    for (int k = 0; k < 100; k++) want[k] = a[k] * a[k] + b[k] * b[k];
    CHECK(approx(c, want, 100, 1.5e-8));
    CHECK(approx(d, want, 100, 1.5e-8));
    free(a), free(b), free(c), free(d);
    dag_array_free(A), dag_array_free(B), dag_array_free(C), dag_array_free(dest);
}

/* ==== test/array/linalg/core.jl ==== */

/* "norm": norm(DA) of DArray(rand(16, 16)) and DArray(rand(16)) isapprox norm(A). (Not ported: the
   16 x 16 x 16 array.) */
TEST(linalg_norm_of_a_matrix_and_a_vector) {
    for (int d = 0; d < 2; d++) {
        int n = d ? 16 : 1;
        z64 *h = host_rand(DAG_F64, 16, n);
        dag_array *DA = to_array(DAG_F64, 16, n, dag_blocks_auto(), h);
        double got, want = 0;
        for (int k = 0; k < 16 * n; k++) want += creal(h[k]) * creal(h[k]);
        want = sqrt(want);
        CHECK_EQ_INT(dag_array_norm2(DA, &got), DAG_OK);
        CHECK(fabs(got - want) <= 1.5e-8 * want);
        free(h);
        dag_array_free(DA);
    }
}

/* ==== test/array/linalg/arithmetic.jl ==== */

/* for T in Float32, Float64, ComplexF32, ComplexF64: DA +/- DB of 32 x 32 in Blocks(16, 16), and Da +/- Db
   of length 32 in Blocks(16), equal A +/- B exactly */
static const dag_elem lin_types[4] = { DAG_F32, DAG_F64, DAG_CF32, DAG_CF64 };
static void arith_case(bool vec, bool minus) {
    for (int t = 0; t < 4; t++) {
        dag_elem T = lin_types[t];
        int n = vec ? 1 : 32;
        dag_blocks bs = dag_blocks(16, vec ? 1 : 16);
        z64 *a = host_rand(T, 32, n), *b = host_rand(T, 32, n), *want = malloc(sizeof(z64) * 32 * (size_t)n);
        round_to(T, a, 32 * n), round_to(T, b, 32 * n);
        for (int k = 0; k < 32 * n; k++) want[k] = minus ? a[k] - b[k] : a[k] + b[k];
        round_to(T, want, 32 * n);
        dag_array *DA = to_array(T, 32, n, bs, a), *DB = to_array(T, 32, n, bs, b), *DC = dag_array_similar(DA);
        CHECK_EQ_INT(minus ? dag_array_sub(DA, DB, DC) : dag_array_add(DA, DB, DC), DAG_OK);
        z64 *c = collect(DC);
        int bad = count_diff(c, want, 32 * n);
        if (bad) printf("     %s: %d differences (first: %g%+gi, the loop %g%+gi)\n", type_name(T), bad, creal(c[0]), cimag(c[0]), creal(want[0]), cimag(want[0]));
        CHECK_EQ_INT(bad, 0);
        free(a), free(b), free(c), free(want);
        dag_array_free(DA), dag_array_free(DB), dag_array_free(DC);
    }
}
/* "DMatrix +" */
TEST(arithmetic_dmatrix_plus) { arith_case(false, false); }
/* "DMatrix -" */
TEST(arithmetic_dmatrix_minus) { arith_case(false, true); }
/* "DVector +" */
TEST(arithmetic_dvector_plus) { arith_case(true, false); }
/* "DVector -" */
TEST(arithmetic_dvector_minus) { arith_case(true, true); }

/* ==== test/array/linalg/matmul.jl ==== */

/* C = op(A) op(B) through dag_array_gemm into zeros of `pc`, against the loop (isapprox) */
static int gemm_check(dag_elem T, const z64 *a, int am, int an, dag_blocks pa, int opa, const z64 *b, int bm, int bn,
                      dag_blocks pb, int opb, dag_blocks pc) {
    int m, n;
    z64 *want = matmul(a, am, an, opa, b, bm, bn, opb, &m, &n);
    dag_array *A = to_array(T, am, an, pa, a), *B = to_array(T, bm, bn, pb, b), *C = dag_array_zeros(T, m, n, pc);
    int bad = dag_array_gemm(opa, opb, 1.0, A, B, 0.0, C) != DAG_OK;
    z64 *c = collect(C);
    bad += !approx(c, want, m * n, default_rtol(T));
    free(c), free(want);
    dag_array_free(A), dag_array_free(B), dag_array_free(C);
    return bad;
}
/* "With/Without Transpose": X1'X1, X1 X1' and X1 X1 of a 40 x 40 matrix in Blocks(10, 20) are within
   1e-12 (Frobenius) of the host's. */
TEST(matmul_with_and_without_transpose) {
    z64 *x = host_rand(DAG_F64, 40, 40);
    static const int ops[3][2] = { { 1, 0 }, { 0, 1 }, { 0, 0 } };
    for (int k = 0; k < 3; k++) {
        int m, n;
        z64 *want = matmul(x, 40, 40, ops[k][0], x, 40, 40, ops[k][1], &m, &n);
        dag_array *X1 = to_array(DAG_F64, 40, 40, dag_blocks(10, 20), x), *C = dag_array_zeros(DAG_F64, 40, 40, dag_blocks(10, 20));
        CHECK_EQ_INT(dag_array_gemm(ops[k][0], ops[k][1], 1.0, X1, X1, 0.0, C), DAG_OK);
        z64 *c = collect(C);
        double d = 0;
        for (int i = 0; i < 1600; i++) d += cabs(c[i] - want[i]) * cabs(c[i] - want[i]);
        CHECK(sqrt(d) < 1e-12);
        free(c), free(want);
        dag_array_free(X1), dag_array_free(C);
    }
    free(x);
}
/* "GEMM": for sizes A (r, c) * B (c, r), (r/2, c) * (c, r/2), (r, c/2) * (c/2, r) with r = c = 4 and 12,
   partitionings Blocks likewise, Float64 and ComplexF64: A*B, A*B', A'*B, A'*B' (the middle two where the
   shapes allow), out of place and into zeros (mul!), and the syrk forms A*A' and A'*A (here dag_array_gemm
   for the whole product and dag_array_syrk for its lower triangle), isapprox the host's. */
TEST(matmul_gemm_every_size_partitioning_transpose_and_syrk) {
    int sizes[6][2], n_sizes = 0;
    for (int s = 0; s < 2; s++) {
        int r = s ? 12 : 4, c = r;
        int v[3][2] = { { r, c }, { r / 2, c }, { r, c / 2 } };
        for (int k = 0; k < 3; k++) sizes[n_sizes][0] = v[k][0], sizes[n_sizes][1] = v[k][1], n_sizes++;
    }
    int failed = 0;
    for (int s = 0; s < 6; s++)
        for (int p = 0; p < 6; p++)
            for (int t = 0; t < 2; t++) {
                dag_elem T = t ? DAG_CF64 : DAG_F64;
                int am = sizes[s][0], an = sizes[s][1], bm = an, bn = am;   /* szB = reverse(szA) */
                dag_blocks pa = dag_blocks(sizes[p][0], sizes[p][1]), pb = dag_blocks(sizes[p][1], sizes[p][0]);
                dag_blocks pc = dag_blocks(sizes[p][0], sizes[p][0]);
                z64 *a = host_rand(T, am, an), *b = host_rand(T, bm, bn);
                int bad = 0;
                bool same = am == bm && an == bn;
                bad += gemm_check(T, a, am, an, pa, 0, b, bm, bn, pb, 0, pc);
                if (same) bad += gemm_check(T, a, am, an, pa, 0, b, bm, bn, pb, 1, pc), bad += gemm_check(T, a, am, an, pa, 1, b, bm, bn, pb, 0, pc);
                bad += gemm_check(T, a, am, an, pa, 1, b, bm, bn, pb, 1, pc);
                if (same) {
                    /* A*A' and A'*A whole, then syrk's lower triangle of A*A' */
                    bad += gemm_check(T, a, am, an, pa, 0, a, am, an, pa, 1, pc);
                    bad += gemm_check(T, a, am, an, pa, 1, a, am, an, pa, 0, pc);
                    int m, n;
                    z64 *want = matmul(a, am, an, 0, a, am, an, 1, &m, &n);
                    dag_array *A = to_array(T, am, an, pa, a), *C = dag_array_zeros(T, m, m, dag_blocks(sizes[p][0], sizes[p][0]));
                    bad += dag_array_syrk(0, 1.0, A, 0.0, C) != DAG_OK;
                    z64 *c = collect(C);
                    for (int j = 0; j < m; j++)
                        for (int i = j; i < m; i++) bad += cabs(c[i + j * m] - want[i + j * m]) > 1e-12 * (1 + cabs(want[i + j * m]));
                    free(c), free(want);
                    dag_array_free(A), dag_array_free(C);
                }
                if (bad && failed++ < 5)
                    printf("     %s A %d x %d in Blocks(%d, %d): %d failures (%s)\n", type_name(T), am, an, sizes[p][0],
                           sizes[p][1], bad, last_error);
                free(a), free(b);
            }
    CHECK_EQ_INT(failed, 0);
}
/* "GEMV": A (r, c) * b (c) and (r, c/2) * (c/2), r = c = 4 and 12, A in Blocks(r, c) or (r, c/2), b in
   Blocks(c) or (c/2): A*b, A'*b where the shapes allow, A'*b2 for b2 of A's rows, out of place and into
   zeros, Float64 and ComplexF64, isapprox the host's. (b is an n x 1 array.) */
TEST(matmul_gemv_every_size_and_partitioning) {
    int sizes[4][2], n_sizes = 0;
    for (int s = 0; s < 2; s++) {
        int r = s ? 12 : 4;
        sizes[n_sizes][0] = r, sizes[n_sizes][1] = r, n_sizes++;
        sizes[n_sizes][0] = r, sizes[n_sizes][1] = r / 2, n_sizes++;
    }
    int failed = 0;
    for (int s = 0; s < 4; s++)
        for (int p = 0; p < 4; p++)
            for (int t = 0; t < 2; t++) {
                dag_elem T = t ? DAG_CF64 : DAG_F64;
                int am = sizes[s][0], an = sizes[s][1];
                dag_blocks pa = dag_blocks(sizes[p][0], sizes[p][1]), pb = dag_blocks(sizes[p][1], 1), pc = dag_blocks(sizes[p][0], 1);
                z64 *a = host_rand(T, am, an), *b = host_rand(T, an, 1), *b2 = host_rand(T, am, 1);
                int bad = gemm_check(T, a, am, an, pa, 0, b, an, 1, pb, 0, pc);
                if (am == an) bad += gemm_check(T, a, am, an, pa, 1, b, an, 1, pb, 0, pc);
                if (am != an) bad += gemm_check(T, a, am, an, pa, 1, b2, am, 1, dag_blocks(sizes[p][0], 1), 0, pc);
                if (bad && failed++ < 5)
                    printf("     %s A %d x %d in Blocks(%d, %d): %d failures (%s)\n", type_name(T), am, an, sizes[p][0],
                           sizes[p][1], bad, last_error);
                free(a), free(b), free(b2);
            }
    CHECK_EQ_INT(failed, 0);
}

/* ==== test/array/linalg/cholesky.jl ==== */

/* the lower Cholesky factor of a Hermitian positive definite n x n matrix, by the plain loop */
static z64 *cholesky_ref(const z64 *a, int n) {
    z64 *l = calloc((size_t)n * (size_t)n, sizeof(z64));
    for (int j = 0; j < n; j++) {
        double d = creal(a[j + j * n]);
        for (int k = 0; k < j; k++) d -= creal(l[j + k * n] * conj(l[j + k * n]));
        l[j + j * n] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            z64 s = a[i + j * n];
            for (int k = 0; k < j; k++) s -= l[i + k * n] * conj(l[j + k * n]);
            l[i + j * n] = s / creal(l[j + j * n]);
        }
    }
    return l;
}
/* A = rand(T, 128, 128) A' + 128 I (Hermitian positive definite) */
static z64 *hpd(dag_elem T, int n) {
    z64 *r = host_rand(T, n, n);
    int m, k;
    z64 *a = matmul(r, n, n, 0, r, n, n, 1, &m, &k);
    for (int i = 0; i < n; i++) a[i + i * n] += n;
    for (int j = 0; j < n; j++) a[j + j * n] = creal(a[j + j * n]);
    round_to(T, a, n * n);
    free(r);
    return a;
}
/* "$T": for Float32, Float64, ComplexF32, ComplexF64 and A as hpd() in Blocks(32, 32): cholesky(DA)
   (dag_array_potrf of a copy) has L (and so U = L') isapprox the host's, leaving A and DA as they were;
   cholesky!(DA) with DA = view(A, Blocks(32, 32)) (dag_array_wrap) writes the factor into A; and with
   A[1, 1] = -100 it fails (Dagger: @test_broken, meant as PosDefException; here
   DAG_ERR_NOT_POSITIVE_DEFINITE). issymmetric (real types) and ishermitian: false for rand(Blocks(4, 4), T,
   32, 32), true for A and for the wrapped A. */
TEST(cholesky_factor_is_the_loops_and_the_wrapped_matrix_holds_it) {
    for (int t = 0; t < 4; t++) {
        dag_elem T = lin_types[t];
        const int n = 128;
        bool sym = true, herm = true;
        dag_array *D = dag_array_rand(T, 32, 32, dag_blocks(4, 4), 5);
        CHECK_EQ_INT(dag_array_is_hermitian(D, &herm), DAG_OK);
        CHECK(!herm);
        if (!is_complex(T)) {
            CHECK_EQ_INT(dag_array_is_symmetric(D, &sym), DAG_OK);
            CHECK(!sym);
        }
        dag_array_free(D);
        z64 *a = hpd(T, n), *lref = cholesky_ref(a, n);
        dag_array *DA = to_array(T, n, n, dag_blocks(32, 32), a), *F = dag_array_similar(DA);
        void *wa = typed(T, a, n * n);
        dag_array *WA = dag_array_wrap(T, n, n, dag_blocks(32, 32), wa, n);
        for (int k = 0; k < 2; k++) {
            herm = sym = false;
            CHECK_EQ_INT(dag_array_is_hermitian(k ? WA : DA, &herm), DAG_OK);
            CHECK(herm);
            CHECK_EQ_INT(dag_array_is_symmetric(k ? WA : DA, &sym), DAG_OK);
            CHECK(sym == !is_complex(T));   /* a complex Hermitian matrix with non-real off-diagonals is not symmetric */
        }
        dag_array_free(WA);
        free(wa);
        CHECK_EQ_INT(dag_array_copy(DA, F), DAG_OK);
        CHECK_EQ_INT(dag_array_potrf(F), DAG_OK);
        z64 *f = collect(F), *da = collect(DA);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < j; i++) f[i + j * n] = 0;   /* L: potrf leaves the upper triangle */
        double rtol = T == DAG_F32 || T == DAG_CF32 ? 1e-3 : 1e-10;
        CHECK(approx(f, lref, n * n, rtol));
        int changed = count_diff(da, a, n * n);
        if (changed) printf("     %s: cholesky changed %d elements of DA\n", type_name(T), changed);
        CHECK_EQ_INT(changed, 0);   /* DA unchanged */
        /* in place, on the host matrix */
        void *w = typed(T, a, n * n);
        dag_array *W = dag_array_wrap(T, n, n, dag_blocks(32, 32), w, n);
        CHECK_EQ_INT(dag_array_potrf(W), DAG_OK);
        dag_array_free(W);
        z64 *wf = untyped(T, w, n * n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < j; i++) wf[i + j * n] = 0;
        CHECK(approx(wf, lref, n * n, rtol));
        /* not positive definite */
        a[0] = -100;
        void *w2 = typed(T, a, n * n);
        dag_array *W2 = dag_array_wrap(T, n, n, dag_blocks(32, 32), w2, n);
        CHECK_EQ_INT(dag_array_potrf(W2), DAG_ERR_NOT_POSITIVE_DEFINITE);
        dag_array_free(W2);
        free(w), free(w2), free(wf), free(a), free(lref), free(f), free(da);
        dag_array_free(DA), dag_array_free(F);
    }
}

/* ==== test/array/linalg/lu.jl ==== */

/* ||P A - L U|| / ||A|| (Frobenius) of getrf's packed factor f and 1-based ipiv */
static double lu_rel_residual(const z64 *a, const z64 *f, const int64_t *ipiv, int n) {
    z64 *pa = malloc(sizeof(z64) * (size_t)n * (size_t)n);
    memcpy(pa, a, sizeof(z64) * (size_t)n * (size_t)n);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++) {
            z64 x = pa[k + j * n];
            pa[k + j * n] = pa[ipiv[k] - 1 + j * n], pa[ipiv[k] - 1 + j * n] = x;
        }
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            z64 s = 0;
            for (int l = 0; l <= i && l <= j; l++) s += (l == i ? 1.0 : f[i + l * n]) * f[l + j * n];
            num += cabs(pa[i + j * n] - s) * cabs(pa[i + j * n] - s);
            den += cabs(pa[i + j * n]) * cabs(pa[i + j * n]);
        }
    free(pa);
    return sqrt(num / den);
}
/* "$T with $pivot": for Float64 and ComplexF64, NoPivot (dag_array_getrf_nopiv) and RowMaximum
   (dag_array_getrf) of a 128 x 128 rand in Blocks(64, 64): P A ≈ L U (rtol 1e-7 without pivots, 1e-12
   with), P a permutation, lu \ b ≈ A \ b (rtol 1e-6; dag_array_getrs), A and DA unchanged by lu; lu! on
   view(A, Blocks(64, 64)) (dag_array_wrap) changes A; the same in Blocks(64, 32); lu! of rand(Blocks(64,
   32), 128, 128) works; and lu of ones(128, 128) fails (SingularException; here
   DAG_ERR_INVALID_ARGUMENT naming the column). */
TEST(lu_with_and_without_pivoting_factors_solves_and_refuses_a_singular_matrix) {
    const int n = 128;
    for (int t = 0; t < 2; t++)
        for (int piv = 0; piv < 2; piv++) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            double tol_fact = piv ? 1e-12 : 1e-7;
            for (int nonsq = 0; nonsq < 2; nonsq++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    if (nonsq && inplace) continue;
                    dag_blocks bs = dag_blocks(64, nonsq ? 32 : 64);
                    z64 *a = host_rand(T, n, n), *b = host_rand(T, n, 1);
                    int64_t ipiv[128];
                    void *w = typed(T, a, n * n);
                    dag_array *DA = inplace ? NULL : to_array(T, n, n, bs, a);
                    dag_array *F = inplace ? dag_array_wrap(T, n, n, bs, w, n) : dag_array_similar(DA);
                    if (!inplace) CHECK_EQ_INT(dag_array_copy(DA, F), DAG_OK);
                    if (piv) CHECK_EQ_INT(dag_array_getrf(F, ipiv), DAG_OK);
                    else {
                        CHECK_EQ_INT(dag_array_getrf_nopiv(F), DAG_OK);
                        for (int k = 0; k < n; k++) ipiv[k] = k + 1;
                    }
                    z64 *f = collect(F);
                    double res = lu_rel_residual(a, f, ipiv, n);
                    if (res > tol_fact) printf("     %s %s%s: ||PA - LU|| / ||A|| = %.2e\n", type_name(T), piv ? "pivoted" : "no pivots", nonsq ? " (64 x 32 tiles)" : "", res);
                    CHECK(res <= tol_fact);
                    /* P is a permutation: each ipiv[k] in k+1..n */
                    int bad_piv = 0;
                    for (int k = 0; k < n; k++) bad_piv += ipiv[k] < k + 1 || ipiv[k] > n;
                    CHECK_EQ_INT(bad_piv, 0);
                    if (inplace) {
                        z64 *hw = untyped(T, w, n * n);
                        CHECK(count_diff(hw, a, n * n) > 0);   /* A changed */
                        free(hw);
                    }
                    else {
                        z64 *da = collect(DA);
                        CHECK_EQ_INT(count_diff(da, a, n * n), 0);   /* DA unchanged */
                        free(da);
                    }
                    /* lu \ b */
                    z64 *xref = solve_ref(a, n, b, 1);
                    dag_array *X = to_array(T, n, 1, dag_blocks(64, 1), b);
                    CHECK_EQ_INT(dag_array_getrs(F, ipiv, X), DAG_OK);
                    z64 *x = collect(X);
                    CHECK(approx(x, xref, n, 1e-6));
                    free(x), free(xref), free(f), free(a), free(b), free(w);
                    dag_array_free(X), dag_array_free(F), dag_array_free(DA);
                }
            /* lu!(rand(Blocks(64, 32), T, 128, 128)) */
            dag_array *R = dag_array_rand(T, n, n, dag_blocks(64, 32), 31);
            CHECK_EQ_INT(piv ? dag_array_getrf(R, NULL) : dag_array_getrf_nopiv(R), DAG_OK);
            dag_array_free(R);
        }
    for (int t = 0; t < 2; t++) {
        dag_array *O = dag_array_ones(t ? DAG_CF64 : DAG_F64, n, n, dag_blocks(64, 64));
        last_error[0] = 0;
        CHECK_EQ_INT(dag_array_getrf(O, NULL), DAG_ERR_INVALID_ARGUMENT);
        CHECK(strstr(last_error, "singular") != NULL || strstr(last_error, "column") != NULL);
        dag_array_free(O);
    }
}

/* ==== test/array/linalg/solve.jl ==== */

/* "$T": for Float64 and ComplexF64, A 128 x 128 in Blocks(128, 128) and Blocks(64, 128): ldiv! with lu(DA)
   (dag_array_getrf, dag_array_getrs) of a DMatrix, a DVector and a plain Vector (dag_array_wrap) right
   hand side, and with cholesky(DA) of A'A + I (dag_array_potrf, dag_array_potrs) of a DMatrix and a
   DVector, isapprox the host's A \ B (vectors: rtol 1e-10). */
TEST(solve_ldiv_with_lu_and_cholesky_factors_of_matrix_vector_and_host_right_hand_sides) {
    const int n = 128;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            int bsi = s ? 64 : 128;
            dag_blocks bs = dag_blocks(bsi, 128);
            for (int chol = 0; chol < 2; chol++)
                for (int rhs = 0; rhs < (chol ? 2 : 3); rhs++) {
                    z64 *a = host_rand(T, n, n);
                    if (chol) {   /* A'A + I */
                        int m, k;
                        z64 *ata = matmul(a, n, n, 1, a, n, n, 0, &m, &k);
                        for (int i = 0; i < n; i++) ata[i + i * n] += 1;
                        for (int j = 0; j < n; j++) ata[j + j * n] = creal(ata[j + j * n]);
                        free(a), a = ata;
                    }
                    int k = rhs == 0 ? n : 1;
                    z64 *b = host_rand(T, n, k), *want = solve_ref(a, n, b, k);
                    dag_array *DA = to_array(T, n, n, bs, a);
                    int64_t ipiv[128];
                    CHECK_EQ_INT(chol ? dag_array_potrf(DA) : dag_array_getrf(DA, ipiv), DAG_OK);
                    z64 *x;
                    if (rhs == 2) {   /* a plain Vector, solved in place */
                        void *v = typed(T, b, n);
                        dag_array *W = dag_array_wrap(T, n, 1, dag_blocks(bsi, 1), v, n);
                        CHECK_EQ_INT(dag_array_getrs(DA, ipiv, W), DAG_OK);
                        dag_array_free(W);
                        x = untyped(T, v, n);
                        free(v);
                    } else {
                        dag_array *DB = to_array(T, n, k, rhs == 0 ? bs : dag_blocks(bsi, 1), b);
                        CHECK_EQ_INT(chol ? dag_array_potrs(DA, DB) : dag_array_getrs(DA, ipiv, DB), DAG_OK);
                        x = collect(DB);
                        dag_array_free(DB);
                    }
                    bool ok = approx(x, want, n * k, rhs == 0 ? 1.5e-8 : 1e-10);
                    if (!ok) printf("     %s %s, Blocks(%d, 128), %s right hand side: not within tolerance\n", type_name(T),
                                    chol ? "cholesky" : "lu", bsi, rhs == 0 ? "matrix" : rhs == 1 ? "DVector" : "Vector");
                    CHECK(ok);
                    free(a), free(b), free(want), free(x);
                    dag_array_free(DA);
                }
        }
}

/* ==== test/array/linalg/qr.jl ==== */

/* Q (m x m) from geqrf's reflectors below the diagonal of f and tau: Q = H1 ... Hk, Hi = I - tau_i v_i v_i^H */
static z64 *q_from_reflectors(const z64 *f, const z64 *tau, int m, int n) {
    int k = m < n ? m : n;
    z64 *q = calloc((size_t)m * (size_t)m, sizeof(z64)), *v = malloc(sizeof(z64) * (size_t)m);
    for (int i = 0; i < m; i++) q[i + i * m] = 1;
    for (int r = k - 1; r >= 0; r--) {   /* Q = H1 (H2 (... Hk I)) */
        for (int i = 0; i < m; i++) v[i] = i < r ? 0 : i == r ? 1 : f[i + r * m];
        for (int j = 0; j < m; j++) {
            z64 s = 0;
            for (int i = r; i < m; i++) s += conj(v[i]) * q[i + j * m];
            s *= tau[r];
            for (int i = r; i < m; i++) q[i + j * m] -= v[i] * s;
        }
    }
    free(v);
    return q;
}
/* check_qr_residuals: ||A - Q R||_1 / (||A||_1 max(m, n) eps) < 2 and ||I - Q'Q||_1 / (n eps) < 2, R upper
   triangular; Q (m x m) formed by dag_array_orgqr from geqrf's reflectors and tau, and equal to the one the
   host builds from them */
static void qr_check(dag_elem T, int m, int n, dag_blocks bs, bool wrapped) {
    z64 *a = host_rand(T, m, n);
    int k = m < n ? m : n;
    void *tau_t = malloc(elem_size(T) * (size_t)k);   /* geqrf's tau: elements of the array's type */
    z64 *f, *q;
    void *w = wrapped ? typed(T, a, m * n) : NULL;
    dag_array *DA = wrapped ? dag_array_wrap(T, m, n, bs, w, m) : to_array(T, m, n, bs, a);
    CHECK_EQ_INT(dag_array_geqrf(DA, tau_t), DAG_OK);
    dag_array *DQ = dag_array_orgqr(DA, tau_t, m);
    CHECK(DQ != NULL);
    q = collect(DQ);
    dag_array_free(DQ);
    if (wrapped) {
        dag_array_free(DA);
        f = untyped(T, w, m * n);
        free(w);
    } else {
        f = collect(DA);
        dag_array_free(DA);
    }
    z64 *tau = untyped(T, tau_t, k);
    free(tau_t);
    z64 *hq = q_from_reflectors(f, tau, m, n), *r = calloc((size_t)m * (size_t)n, sizeof(z64));
    CHECK(approx(q, hq, m * m, 1e-13));
    free(hq);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j && i < m; i++) r[i + j * m] = f[i + j * m];
    int rr, cc;
    z64 *qr = matmul(q, m, m, 0, r, m, n, 0, &rr, &cc), *qtq = matmul(q, m, m, 1, q, m, m, 0, &rr, &cc);
    for (int i = 0; i < m * n; i++) qr[i] = a[i] - qr[i];
    for (int i = 0; i < m; i++) qtq[i + i * m] -= 1;
    double eps = DBL_EPSILON;
    double res1 = opnorm1(qr, m, n) / (opnorm1(a, m, n) * (m > n ? m : n) * eps);
    double res2 = opnorm1(qtq, m, m) / (n * eps);
    if (res1 >= 2 || res2 >= 2)
        printf("     %s %d x %d in Blocks(%lld, %lld)%s: res1 %.2f, res2 %.2f\n", type_name(T), m, n, (long long)bs.rows,
               (long long)bs.cols, wrapped ? " (wrapped)" : "", res1, res2);
    CHECK(res1 < 2);
    CHECK(res2 < 2);
    free(a), free(tau), free(f), free(q), free(r), free(qr), free(qtq);
}
/* "Tile QR: Square matrices": 128 x 128 in Blocks(32, 32) and (16, 32), Float64 and ComplexF64 */
TEST(qr_tile_square_factor_and_orthogonality_residuals) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 128, 128, dag_blocks(32, 32), false), qr_check(t ? DAG_CF64 : DAG_F64, 128, 128, dag_blocks(16, 32), false);
}
/* "Tile QR: Tall matrices": 128 x 64 (also "geqrf! + porgqr!"'s factor, without porgqr) */
TEST(qr_tile_tall_factor_and_orthogonality_residuals) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 128, 64, dag_blocks(32, 32), false), qr_check(t ? DAG_CF64 : DAG_F64, 128, 64, dag_blocks(16, 32), false);
}
/* "Tile QR: Wide matrices": 64 x 128 */
TEST(qr_tile_wide_factor_and_orthogonality_residuals) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 64, 128, dag_blocks(32, 32), false), qr_check(t ? DAG_CF64 : DAG_F64, 64, 128, dag_blocks(16, 32), false);
}
/* "In-place qr!": 128 x 128 in Blocks(32, 32), factored in place (dag_array_wrap) */
TEST(qr_in_place_factor_residual) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 128, 128, dag_blocks(32, 32), true);
}
/* "Single tile QR": 32 x 32 in Blocks(32, 32) */
TEST(qr_single_tile) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 32, 32, dag_blocks(32, 32), false);
}
/* "Smaller than block QR": 16 x 16 in Blocks(32, 32) */
TEST(qr_smaller_than_a_block) {
    for (int t = 0; t < 2; t++) qr_check(t ? DAG_CF64 : DAG_F64, 16, 16, dag_blocks(32, 32), false);
}
/* geqrf of a random m x n matrix in blocks bs: the array (factorised), its tau (of the array's type) and
   the host's Q (m x m) built from them, for the Q operations' tests */
typedef struct qr_case { dag_array *da; void *tau; z64 *q; int m, n; } qr_case;
static qr_case qr_factor(dag_elem T, int m, int n, dag_blocks bs) {
    qr_case c = { NULL, NULL, NULL, m, n };
    z64 *a = host_rand(T, m, n);
    int k = m < n ? m : n;
    c.da = to_array(T, m, n, bs, a);
    c.tau = malloc(elem_size(T) * (size_t)k);
    CHECK_EQ_INT(dag_array_geqrf(c.da, c.tau), DAG_OK);
    z64 *f = collect(c.da), *tau = untyped(T, c.tau, k);
    c.q = q_from_reflectors(f, tau, m, n);
    free(a), free(f), free(tau);
    return c;
}
static void qr_case_free(qr_case *c) { dag_array_free(c->da), free(c->tau), free(c->q); }
/* op(Q) C (right 0) or C op(Q) (right 1) on the host */
static z64 *q_times(const qr_case *c, int right, int trans, const z64 *x, int xm, int xn) {
    int r, k;
    return right ? matmul(x, xm, xn, 0, c->q, c->m, c->m, trans, &r, &k) : matmul(c->q, c->m, c->m, trans, x, xm, xn, 0, &r, &k);
}
/* Q C, Q' C (C 128 x 64) and C Q, C Q' (C 64 x 128) for A 128 x 128 in Blocks(32, 32), C an array of its
   own or the caller's matrix (a wrap): within res < 2 (pormqr!'s measure) and rtol sqrt(eps) (lmul!'s) */
static void q_applied_cases(bool host_matrix) {
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        qr_case f = qr_factor(T, 128, 128, dag_blocks(32, 32));
        for (int right = 0; right < 2; right++)
            for (int trans = 0; trans < 2; trans++) {
                int cm = right ? 64 : 128, cn = right ? 128 : 64;
                z64 *c = host_rand(T, cm, cn), *want = q_times(&f, right, trans, c, cm, cn), *got;
                void *host = typed(T, c, cm * cn);
                dag_array *dc = host_matrix ? dag_array_wrap(T, cm, cn, dag_blocks(32, 32), host, cm)
                                            : to_array(T, cm, cn, dag_blocks(32, 32), c);
                CHECK_EQ_INT(dag_array_ormqr(right, trans, f.da, f.tau, dc), DAG_OK);
                got = host_matrix ? untyped(T, host, cm * cn) : collect(dc);
                dag_array_free(dc);
                CHECK(approx(got, want, cm * cn, default_rtol(T)));
                for (int i = 0; i < cm * cn; i++) got[i] -= want[i];
                double res = opnorm1(got, cm, cn) / (opnorm1(want, cm, cn) * 128 * DBL_EPSILON);
                if (res >= 2) printf("     %s right %d trans %d: res %.2f\n", type_name(T), right, trans, res);
                CHECK(res < 2);
                free(c), free(want), free(got), free(host);
            }
        qr_case_free(&f);
    }
}
/* "pormqr! side=$side trans=$trans" and "lmul!/rmul!" on a DMatrix */
TEST(qr_q_applied_from_either_side_with_and_without_adjoint) { q_applied_cases(false); }
/* "lmul!/rmul!" on dense matrices: Q B, Q' B, B Q, B Q' applied to the caller's own matrix in place */
TEST(qr_q_applied_to_a_host_matrix_in_place) { q_applied_cases(true); }
/* "Scalar * Q": Q s, s Q, Q' s, s Q' for A 64 x 64: op(Q) formed (ormqr of the identity), then scaled */
TEST(qr_q_times_a_scalar) {
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        qr_case f = qr_factor(T, 64, 64, dag_blocks(32, 32));
        for (int trans = 0; trans < 2; trans++) {
            dag_array *q = dag_array_identity(T, 64, 64, dag_blocks(32, 32));
            CHECK_EQ_INT(dag_array_ormqr(0, trans, f.da, f.tau, q), DAG_OK);   /* op(Q) I */
            CHECK_EQ_INT(dag_array_scale(3.0, q), DAG_OK);
            z64 *got = collect(q), *id = calloc(64 * 64, sizeof(z64));
            for (int i = 0; i < 64; i++) id[i + i * 64] = 3.0;
            z64 *want = q_times(&f, 0, trans, id, 64, 64);
            CHECK(approx(got, want, 64 * 64, default_rtol(T)));
            free(got), free(id), free(want);
            dag_array_free(q);
        }
        qr_case_free(&f);
    }
}
/* "DMatrix(Q) / DMatrix(Q')" for A 128 x 64: the thin Q (128 x 64) has orthonormal columns
   (||I - Q'Q||_1 / (n eps) < 2), and Q' formed from the left (ormqr of the identity) is its adjoint;
   "collect(Q) / collect(Q')" for A 64 x 64: the square Q, A's size, and Q' its adjoint */
TEST(qr_q_formed_as_an_array_and_collected) {
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        for (int square = 0; square < 2; square++) {
            int m = square ? 64 : 128, n = 64;
            qr_case f = qr_factor(T, m, n, dag_blocks(32, 32));
            dag_array *q = dag_array_orgqr(f.da, f.tau, n), *qa = dag_array_identity(T, m, m, dag_blocks(32, 32));
            CHECK(q != NULL);
            CHECK_EQ_INT(dag_array_rows(q), m);
            CHECK_EQ_INT(dag_array_cols(q), n);
            CHECK_EQ_INT(dag_array_ormqr(0, 1, f.da, f.tau, qa), DAG_OK);   /* Q' */
            z64 *qh = collect(q), *qah = collect(qa);
            int r, c;
            z64 *qtq = matmul(qh, m, n, 1, qh, m, n, 0, &r, &c);
            for (int i = 0; i < n; i++) qtq[i + i * n] -= 1;
            CHECK(opnorm1(qtq, n, n) / (n * DBL_EPSILON) < 2);
            for (int j = 0; j < n; j++)   /* Q's columns: the first n of the host's Q; Q' rows: their adjoints */
                for (int i = 0; i < m; i++) {
                    CHECK(cabs(qh[i + j * m] - f.q[i + j * m]) < 1e-12);
                    CHECK(cabs(qah[j + i * m] - conj(f.q[i + j * m])) < 1e-12);
                }
            free(qh), free(qah), free(qtq);
            dag_array_free(q), dag_array_free(qa);
            qr_case_free(&f);
        }
    }
}
/* Beyond Dagger's cases: every type, ragged sizes (tall and wide), A's and C's tilings unlike (C re-tiled),
   the square Q and the thin one, against the host's Q; and the refusals */
TEST(qr_q_operations_on_ragged_sizes_types_and_tilings) {
    static const int shapes[][2] = { { 37, 23 }, { 23, 37 }, { 30, 30 }, { 9, 9 } };
    dag_elem types[] = { DAG_F64, DAG_F32, DAG_CF64, DAG_CF32 };
    for (int ti = 0; ti < 4; ti++)
        for (int s = 0; s < 4; s++) {
            dag_elem T = types[ti];
            int m = shapes[s][0], n = shapes[s][1];
            double tol = T == DAG_F32 || T == DAG_CF32 ? 2e-4 : 1e-11;
            qr_case f = qr_factor(T, m, n, dag_blocks(8, 8));
            for (int right = 0; right < 2; right++)
                for (int trans = 0; trans < 2; trans++) {
                    int cm = right ? 11 : m, cn = right ? m : 11;
                    z64 *c = host_rand(T, cm, cn), *want = q_times(&f, right, trans, c, cm, cn);
                    dag_array *dc = to_array(T, cm, cn, dag_blocks(5, 7), c);
                    CHECK_EQ_INT(dag_array_ormqr(right, trans, f.da, f.tau, dc), DAG_OK);
                    z64 *got = collect(dc);
                    if (!approx(got, want, cm * cn, tol))
                        printf("     %s %d x %d right %d trans %d differs\n", type_name(T), m, n, right, trans);
                    CHECK(approx(got, want, cm * cn, tol));
                    free(c), free(want), free(got);
                    dag_array_free(dc);
                }
            for (int cols = m < n ? m : n; cols <= m; cols += m - (m < n ? m : n) + (m <= n)) {
                dag_array *q = dag_array_orgqr(f.da, f.tau, cols);
                z64 *qh = collect(q);
                CHECK(approx(qh, f.q, m * cols, tol));
                free(qh);
                dag_array_free(q);
            }
            qr_case_free(&f);
        }
    qr_case f = qr_factor(DAG_F64, 16, 16, dag_blocks(8, 8));
    dag_array *wrong = dag_array_zeros(DAG_F64, 15, 4, dag_blocks(8, 8)), *other = dag_array_zeros(DAG_F32, 16, 4, dag_blocks(8, 8));
    CHECK_EQ_INT(dag_array_ormqr(0, 0, f.da, f.tau, wrong), DAG_ERR_INVALID_ARGUMENT);   /* rows not A's */
    CHECK_EQ_INT(dag_array_ormqr(1, 0, f.da, f.tau, other), DAG_ERR_INVALID_ARGUMENT);   /* columns not A's rows */
    CHECK_EQ_INT(dag_array_ormqr(0, 0, f.da, f.tau, other), DAG_ERR_INVALID_ARGUMENT);   /* another type */
    CHECK_EQ_INT(dag_array_ormqr(0, 0, f.da, NULL, wrong), DAG_ERR_INVALID_ARGUMENT);    /* no tau */
    CHECK(dag_array_orgqr(f.da, f.tau, 17) == NULL);
    CHECK(dag_array_orgqr(f.da, f.tau, 0) == NULL);
    dag_array_free(wrong), dag_array_free(other);
    qr_case_free(&f);
}
/* "QR least-squares": x solving A x = b = A x_true for A 128 x 64 in Blocks(32, 32) (dag_array_gels) is
   x_true within rtol 1e-8. */
TEST(qr_least_squares_recovers_the_solution) {
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        z64 *a = host_rand(T, 128, 64), *xt = host_rand(T, 64, 1);
        int m, n;
        z64 *b = matmul(a, 128, 64, 0, xt, 64, 1, 0, &m, &n);
        dag_array *DA = to_array(T, 128, 64, dag_blocks(32, 32), a), *DB = to_array(T, 128, 1, dag_blocks(32, 1), b);
        CHECK_EQ_INT(dag_array_gels(DA, DB), DAG_OK);
        z64 *x = collect(DB);
        CHECK(approx(x, xt, 64, 1e-8));
        free(a), free(xt), free(b), free(x);
        dag_array_free(DA), dag_array_free(DB);
    }
}

/* ---- CAQR: qr!(A; p), cageqrf!, porgqr! and pormqr! with p domains (dag_array_caqr and its factor) ---- */

static double real_eps(dag_elem T) { return T == DAG_F32 || T == DAG_CF32 ? FLT_EPSILON : DBL_EPSILON; }
/* dag_array_caqr of a random m x n matrix (rounded to T) in blocks bs with p domains: A (the host's), the
   array (R on and above its diagonal), the factor, Q (m x m, qr_orgqr) and R (A's upper triangle) */
typedef struct caqr_case { z64 *a, *q, *r; dag_array *da; dag_array_qr *f; int m, n; } caqr_case;
static caqr_case caqr_factor(dag_elem T, int m, int n, dag_blocks bs, int p) {
    caqr_case c = { host_rand(T, m, n), NULL, calloc((size_t)m * (size_t)n, sizeof(z64)), NULL, NULL, m, n };
    round_to(T, c.a, m * n);
    c.da = to_array(T, m, n, bs, c.a);
    c.f = dag_array_caqr(c.da, p);
    CHECK(c.f != NULL);
    dag_array *dq = dag_array_qr_orgqr(c.f, m);
    CHECK(dq != NULL);
    c.q = dq ? collect(dq) : calloc((size_t)m * (size_t)m, sizeof(z64));
    dag_array_free(dq);
    z64 *fa = collect(c.da);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j && i < m; i++) c.r[i + j * m] = fa[i + j * m];
    free(fa);
    return c;
}
static void caqr_case_free(caqr_case *c) {
    free(c->a), free(c->q), free(c->r);
    dag_array_qr_free(c->f);
    dag_array_free(c->da);
}
/* Dagger's check: ||A - Q R||_1 / (||A||_1 max(m, n) eps) < 2 and ||I - Q'Q||_1 / (n eps) < 2, Q the thin
   one (DMatrix(F.Q): its first min(m, n) columns) */
static void caqr_residuals(dag_elem T, int m, int n, dag_blocks bs, int p) {
    caqr_case c = caqr_factor(T, m, n, bs, p);
    int rr, cc, kn = m < n ? m : n;
    z64 *qr = matmul(c.q, m, m, 0, c.r, m, n, 0, &rr, &cc), *qtq = matmul(c.q, m, kn, 1, c.q, m, kn, 0, &rr, &cc);
    for (int i = 0; i < m * n; i++) qr[i] = c.a[i] - qr[i];
    for (int i = 0; i < kn; i++) qtq[i + i * kn] -= 1;
    double eps = real_eps(T), res1 = opnorm1(qr, m, n) / (opnorm1(c.a, m, n) * (m > n ? m : n) * eps);
    double res2 = opnorm1(qtq, kn, kn) / (n * eps);
    if (res1 >= 2 || res2 >= 2)
        printf("     %s %d x %d in Blocks(%lld, %lld), %d domains: res1 %.2f, res2 %.2f\n", type_name(T), m, n,
               (long long)bs.rows, (long long)bs.cols, p, res1, res2);
    CHECK(res1 < 2);
    CHECK(res2 < 2);
    free(qr), free(qtq);
    caqr_case_free(&c);
}
/* "CAQR p=$p" (Float64, ComplexF64; p 2 and 4; 128 x 64 in Blocks(32, 32)) and "cageqrf! direct" (the
   same call here: caqr, then Q formed) */
TEST(caqr_factor_and_orthogonality_residuals_with_2_and_4_domains) {
    for (int t = 0; t < 2; t++)
        for (int p = 2; p <= 4; p += 2) caqr_residuals(t ? DAG_CF64 : DAG_F64, 128, 64, dag_blocks(32, 32), p);
}
/* The panel factorisations and merges dag_array_caqr(A, domains) runs on a random m x n in Blocks(16, 16),
   counted in the trace */
static void caqr_steps(int m, int n, int domains, int *panels, int *merges) {
    static dag_trace_record rec[1024];
    z64 *a = host_rand(DAG_F64, m, n);
    dag_array *A = to_array(DAG_F64, m, n, dag_blocks(16, 16), a);
    dag_trace_enable(1);
    dag_trace_clear();
    dag_array_qr *f = dag_array_caqr(A, domains);
    dag_trace_enable(0);
    CHECK(f != NULL);
    size_t count = dag_trace_records(rec, 1024);
    *panels = *merges = 0;
    for (size_t i = 0; i < count && i < 1024; i++) *panels += !strcmp(rec[i].name, "geqrf"), *merges += !strcmp(rec[i].name, "qr merge");
    dag_array_qr_free(f);
    dag_array_free(A);
    free(a);
}
/* domains 0: dag_array_caqr chooses (a domain for every 4 tile rows a tile column, 1 to 16): 256 x 32 in
   Blocks(16, 16) (16 tile rows, 2 tile columns) gets 2, and 64 x 64 (4 x 4) gets 1, geqrf's QR */
TEST(caqr_chooses_its_domains_when_given_0) {
    caqr_residuals(DAG_F64, 256, 32, dag_blocks(16, 16), 0);
    caqr_residuals(DAG_CF64, 64, 64, dag_blocks(16, 16), 0);
    int p0, m0, p2, m2, p1, m1;
    caqr_steps(256, 32, 0, &p0, &m0);
    caqr_steps(256, 32, 2, &p2, &m2);
    CHECK(p0 == p2 && m0 == m2 && m0 > 0);
    caqr_steps(64, 64, 0, &p0, &m0);
    caqr_steps(64, 64, 1, &p1, &m1);
    CHECK(p0 == p1 && m0 == 0 && m1 == 0);
    CHECK_EQ_INT(dag__caqr_domains(16, 2), 2);
    CHECK_EQ_INT(dag__caqr_domains(4, 4), 1);
    CHECK_EQ_INT(dag__caqr_domains(256, 4), 16);
    CHECK_EQ_INT(dag__caqr_domains(256, 1), 16);
    CHECK_EQ_INT(dag__caqr_domains(64, 8), 2);
    CHECK_EQ_INT(dag__caqr_domains(3, 0), 1);
}
/* "CAQR single-precision p=$p": Float32, ComplexF32 */
TEST(caqr_in_single_precision) {
    for (int t = 0; t < 2; t++)
        for (int p = 2; p <= 4; p += 2) caqr_residuals(t ? DAG_CF32 : DAG_F32, 128, 64, dag_blocks(32, 32), p);
}
/* "CAQR shapes: Square 128x128" (p 2 and 4) and "CAQR p=mt" (128 x 32: one tile per domain) */
TEST(caqr_of_a_square_matrix_and_with_a_domain_per_tile_row) {
    for (int p = 2; p <= 4; p += 2) caqr_residuals(DAG_F64, 128, 128, dag_blocks(32, 32), p);
    for (int t = 0; t < 2; t++) caqr_residuals(t ? DAG_CF64 : DAG_F64, 128, 32, dag_blocks(32, 32), 4);
}
/* Beyond Dagger's cases: domains that do not divide the tile rows (the last one shorter), ragged tiles,
   wide matrices, one domain, every type, A in tiles that are not square (Dagger refuses them; here the
   factor keeps a copy in square tiles and A gets R); R is geqrf's R up to the signs of its rows (the
   same triangle: R^H R = A^H A), and the tiles below A's diagonal hold reflectors, not R */
TEST(caqr_on_ragged_sizes_uneven_domains_and_tiles_that_are_not_square_gives_geqrfs_r) {
    static const struct { int m, n, br, bc, p; } cases[] = {
        { 130, 70, 32, 32, 3 }, { 100, 60, 30, 20, 2 }, { 64, 128, 32, 32, 2 }, { 97, 41, 16, 16, 5 }, { 128, 64, 32, 32, 1 },
    };
    dag_elem types[] = { DAG_F64, DAG_F32, DAG_CF64, DAG_CF32 };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int t = 0; t < 4; t++) {
            int m = cases[k].m, n = cases[k].n, kn = m < n ? m : n;
            dag_blocks bs = dag_blocks(cases[k].br, cases[k].bc);
            caqr_residuals(types[t], m, n, bs, cases[k].p);
            caqr_case c = caqr_factor(types[t], m, n, bs, cases[k].p);
            dag_array *g = to_array(types[t], m, n, bs, c.a);
            void *tau = malloc(elem_size(types[t]) * (size_t)kn);
            CHECK_EQ_INT(dag_array_geqrf(g, tau), DAG_OK);
            z64 *gr = collect(g);
            double worst = 0, scale = opnorm1(c.a, m, n);
            for (int i = 0; i < kn; i++) {
                /* row i of R is geqrf's times a unit scalar: the diagonal's ratio */
                z64 unit = gr[i + i * m] != 0 ? c.r[i + i * m] / gr[i + i * m] : 1;
                for (int j = i; j < n; j++) worst = fmax(worst, cabs(c.r[i + j * m] - unit * gr[i + j * m]));
            }
            if (worst > 100 * real_eps(types[t]) * scale)
                printf("     %s %d x %d, %d domains: R differs from geqrf's by %.3g\n", type_name(types[t]), m, n, cases[k].p, worst);
            CHECK(worst <= 100 * real_eps(types[t]) * scale);
            free(tau), free(gr);
            dag_array_free(g);
            caqr_case_free(&c);
        }
}
/* "CAQR pormqr! p=$p side trans" and "CAQR lmul!/rmul!" (the four array cases): Q C, Q' C (C 128 x 64),
   C Q, C Q' (C 64 x 128) for A 128 x 128 in Blocks(32, 32), p 2 and 4, as the product with the factor's
   Q (checked above as Q R = A, Q'Q = I): res < 2 (pormqr!'s measure) and rtol sqrt(eps) (lmul!'s); C an
   array of its own or the caller's matrix (a wrap, lmul! on a dense matrix) */
TEST(caqr_q_applied_from_either_side_with_and_without_adjoint) {
    for (int t = 0; t < 2; t++)
        for (int p = 2; p <= 4; p += 2) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            caqr_case f = caqr_factor(T, 128, 128, dag_blocks(32, 32), p);
            for (int right = 0; right < 2; right++)
                for (int trans = 0; trans < 2; trans++)
                    for (int host_matrix = 0; host_matrix < 2; host_matrix++) {
                        int cm = right ? 64 : 128, cn = right ? 128 : 64, r, k;
                        z64 *c = host_rand(T, cm, cn), *got;
                        z64 *want = right ? matmul(c, cm, cn, 0, f.q, 128, 128, trans, &r, &k) : matmul(f.q, 128, 128, trans, c, cm, cn, 0, &r, &k);
                        void *host = typed(T, c, cm * cn);
                        dag_array *dc = host_matrix ? dag_array_wrap(T, cm, cn, dag_blocks(32, 32), host, cm)
                                                    : to_array(T, cm, cn, dag_blocks(32, 32), c);
                        CHECK_EQ_INT(dag_array_qr_ormqr(right, trans, f.f, dc), DAG_OK);
                        got = host_matrix ? untyped(T, host, cm * cn) : collect(dc);
                        dag_array_free(dc);
                        CHECK(approx(got, want, cm * cn, default_rtol(T)));
                        for (int i = 0; i < cm * cn; i++) got[i] -= want[i];
                        double res = opnorm1(got, cm, cn) / (opnorm1(want, cm, cn) * 128 * DBL_EPSILON);
                        if (res >= 2) printf("     %s p %d right %d trans %d: res %.2f\n", type_name(T), p, right, trans, res);
                        CHECK(res < 2);
                        free(c), free(want), free(got), free(host);
                    }
            caqr_case_free(&f);
        }
}
/* "CAQR porgqr! direct p=$p trans": Q (trans 'N', the thin one: its columns orthonormal) and Q' (trans
   'T'/'C': Q' I from the left) for A 128 x 64, p 2 and 4: Q's columns are the factor's, Q' its adjoint */
TEST(caqr_q_and_its_adjoint_formed) {
    for (int t = 0; t < 2; t++)
        for (int p = 2; p <= 4; p += 2) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            int m = 128, n = 64;
            caqr_case f = caqr_factor(T, m, n, dag_blocks(32, 32), p);
            dag_array *q = dag_array_qr_orgqr(f.f, n), *qa = dag_array_identity(T, m, m, dag_blocks(32, 32));
            CHECK(q != NULL);
            CHECK_EQ_INT(dag_array_qr_ormqr(0, 1, f.f, qa), DAG_OK);
            z64 *qh = collect(q), *qah = collect(qa);
            int r, c;
            z64 *qtq = matmul(qh, m, n, 1, qh, m, n, 0, &r, &c);
            for (int i = 0; i < n; i++) qtq[i + i * n] -= 1;
            CHECK(opnorm1(qtq, n, n) / (n * DBL_EPSILON) < 2);
            for (int j = 0; j < m; j++)
                for (int i = 0; i < m; i++) {
                    if (j < n) CHECK(cabs(qh[i + j * m] - f.q[i + j * m]) < 1e-12);
                    CHECK(cabs(qah[j + i * m] - conj(f.q[i + j * m])) < 1e-12);
                }
            free(qh), free(qah), free(qtq);
            dag_array_free(q), dag_array_free(qa);
            caqr_case_free(&f);
        }
}
/* "CAQR least-squares p=$p": x solving A x = b = A x_true for A 128 x 64 (p 2 and 4) is x_true within rtol
   1e-8; with a residual orthogonal to A's columns too (b = A x_true + r, A' r = 0: x is still x_true) */
TEST(caqr_least_squares_recovers_the_solution) {
    for (int t = 0; t < 2; t++)
        for (int p = 2; p <= 4; p += 2) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            caqr_case f = caqr_factor(T, 128, 64, dag_blocks(32, 32), p);
            z64 *xt = host_rand(T, 64, 2), *r0 = host_rand(T, 128, 1);
            int m, n;
            z64 *b = matmul(f.a, 128, 64, 0, xt, 64, 2, 0, &m, &n);
            /* column 2: + r0 minus its part in A's range (Q's first 64 columns) */
            z64 *qtr = matmul(f.q, 128, 64, 1, r0, 128, 1, 0, &m, &n), *pr = matmul(f.q, 128, 64, 0, qtr, 64, 1, 0, &m, &n);
            for (int i = 0; i < 128; i++) b[128 + i] += r0[i] - pr[i];
            dag_array *DB = to_array(T, 128, 2, dag_blocks(32, 1), b);
            CHECK_EQ_INT(dag_array_qr_gels(f.f, DB), DAG_OK);
            z64 *x = collect(DB), *xs = malloc(sizeof(z64) * 128);
            for (int j = 0; j < 2; j++) {
                for (int i = 0; i < 64; i++) xs[i] = x[i + j * 128];
                CHECK(approx(xs, xt + j * 64, 64, 1e-8));
            }
            free(xt), free(r0), free(b), free(qtr), free(pr), free(x), free(xs);
            dag_array_free(DB);
            caqr_case_free(&f);
        }
}
/* Exactly the domains asked for (as even as the tile rows allow: 5 tile rows in 4 domains are 2, 1, 1 and 1),
   counted in the trace: a panel task per domain and a merge per domain but one; Q comes in A's own tiling
   (as orgqr's), also when the factorisation worked on a copy in square tiles */
TEST(caqr_uses_the_domains_asked_for_and_gives_q_in_as_tiling) {
    static dag_trace_record rec[256];
    for (int domains = 1; domains <= 5; domains++) {
        z64 *a = host_rand(DAG_F64, 80, 16);
        dag_array *A = to_array(DAG_F64, 80, 16, dag_blocks(16, 16), a);
        dag_trace_enable(1);
        dag_trace_clear();
        dag_array_qr *f = dag_array_caqr(A, domains);
        dag_trace_enable(0);
        CHECK(f != NULL);
        size_t n = dag_trace_records(rec, 256), panels = 0, merges = 0;
        for (size_t i = 0; i < n && i < 256; i++) panels += !strcmp(rec[i].name, "geqrf"), merges += !strcmp(rec[i].name, "qr merge");
        CHECK_EQ_INT((int)panels, domains);
        CHECK_EQ_INT((int)merges, domains - 1);
        dag_array_qr_free(f);
        dag_array_free(A);
        free(a);
    }
    z64 *a = host_rand(DAG_F64, 600, 100);
    dag_array *A = to_array(DAG_F64, 600, 100, dag_blocks(200, 100), a);   /* 3 x 1 tiles, factorised in 6 x 1 */
    dag_array_qr *f = dag_array_caqr(A, 6);
    CHECK(f != NULL);
    dag_array *q = f ? dag_array_qr_orgqr(f, 100) : NULL;
    CHECK(q != NULL);
    CHECK_EQ_INT(dag_array_tile_rows(q), 3);
    CHECK_EQ_INT(dag_array_tile_cols(q), 1);
    dag_array_free(q);
    dag_array_qr_free(f);
    dag_array_free(A);
    free(a);
}
/* "cageqrf! rejects irregular tiling" has no refusal here (tiles that are not square are copied, above);
   what is refused: domains below 0 or above the tile rows, integer arrays, no array, no factor, C or B
   not of A's rows or type, a least-squares solve of a wide A. Each says why and changes nothing. */
TEST(caqr_refuses_what_it_cannot_factor_or_apply) {
    z64 *a = host_rand(DAG_F64, 64, 32);
    dag_array *A = to_array(DAG_F64, 64, 32, dag_blocks(16, 16), a), *ints = dag_array_fill(DAG_I32, 64, 32, dag_blocks(16, 16), 1.0);
    CHECK(dag_array_caqr(A, -1) == NULL);
    CHECK(dag_array_caqr(A, 5) == NULL);   /* 4 tile rows */
    CHECK(dag_array_caqr(ints, 2) == NULL);
    CHECK(dag_array_caqr(NULL, 2) == NULL);
    z64 *same = collect(A);
    CHECK(count_diff(same, a, 64 * 32) == 0);
    dag_array *C = dag_array_fill(DAG_F64, 63, 4, dag_blocks(16, 4), 1.0), *C32 = dag_array_fill(DAG_F32, 64, 4, dag_blocks(16, 4), 1.0);
    CHECK_EQ_INT(dag_array_qr_ormqr(0, 0, NULL, C), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_array_qr_orgqr(NULL, 4) == NULL);
    CHECK_EQ_INT(dag_array_qr_gels(NULL, C), DAG_ERR_INVALID_ARGUMENT);
    dag_array_qr *f = dag_array_caqr(A, 4);
    CHECK(f != NULL);
    CHECK_EQ_INT(dag_array_qr_ormqr(0, 0, f, C), DAG_ERR_INVALID_ARGUMENT);     /* 63 rows */
    CHECK_EQ_INT(dag_array_qr_ormqr(1, 0, f, C32), DAG_ERR_INVALID_ARGUMENT);   /* float, and 4 columns */
    CHECK_EQ_INT(dag_array_qr_gels(f, C32), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_array_qr_orgqr(f, 0) == NULL);
    CHECK(dag_array_qr_orgqr(f, 65) == NULL);
    dag_array_qr_free(f);
    dag_array_qr_free(NULL);
    dag_array *W = dag_array_fill(DAG_F64, 32, 64, dag_blocks(16, 16), 1.0), *BW = dag_array_fill(DAG_F64, 32, 1, dag_blocks(16, 1), 1.0);
    dag_array_qr *fw = dag_array_caqr(W, 2);
    CHECK(fw != NULL);
    CHECK_EQ_INT(dag_array_qr_gels(fw, BW), DAG_ERR_INVALID_ARGUMENT);   /* wide: not a least-squares problem */
    dag_array_qr_free(fw);
    free(a), free(same);
    dag_array_free(A), dag_array_free(ints), dag_array_free(C), dag_array_free(C32), dag_array_free(W), dag_array_free(BW);
}

/* ==== test/array/linalg/svd.jl ==== */

/* check_svd: U m x k, S k values, Vt k x n; ||A - U S Vt||_1 / (||A||_1 max(m, n) eps) < tol; U'U and Vt Vt'
   within tol of I (in k eps); S non-negative and descending. (S equal to LAPACK's svdvals follows: a
   factorisation with orthonormal U and V and sorted non-negative S has the singular values.) */
static void check_svd(dag_elem T, const z64 *a, int m, int n, dag_array *du, const double *s, dag_array *dvt, double tol) {
    int k = m < n ? m : n, r, c;
    double eps = real_eps(T);
    CHECK(du && dvt);
    if (!du || !dvt) return;
    CHECK_EQ_INT(dag_array_rows(du), m);
    CHECK_EQ_INT(dag_array_cols(du), k);
    CHECK_EQ_INT(dag_array_rows(dvt), k);
    CHECK_EQ_INT(dag_array_cols(dvt), n);
    z64 *u = collect(du), *vt = collect(dvt), *us = malloc(sizeof(z64) * (size_t)m * (size_t)k);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) us[i + j * m] = u[i + j * m] * s[j];
    z64 *recon = matmul(us, m, k, 0, vt, k, n, 0, &r, &c), *utu = matmul(u, m, k, 1, u, m, k, 0, &r, &c);
    z64 *vvt = matmul(vt, k, n, 0, vt, k, n, 1, &r, &c);
    for (int i = 0; i < m * n; i++) recon[i] = a[i] - recon[i];
    for (int i = 0; i < k; i++) utu[i + i * k] -= 1, vvt[i + i * k] -= 1;
    double res_f = opnorm1(recon, m, n) / (opnorm1(a, m, n) * (m > n ? m : n) * eps);
    double res_u = opnorm1(utu, k, k) / (k * eps), res_v = opnorm1(vvt, k, k) / (k * eps);
    if (res_f >= tol || res_u >= tol || res_v >= tol)
        printf("     %s %d x %d: residuals %.1f, %.1f, %.1f\n", type_name(T), m, n, res_f, res_u, res_v);
    CHECK(res_f < tol);
    CHECK(res_u < tol);
    CHECK(res_v < tol);
    for (int i = 0; i < k; i++) CHECK(s[i] >= 0 && (i == 0 || s[i] <= s[i - 1]));
    free(u), free(vt), free(us), free(recon), free(utu), free(vvt);
}
/* svd(distribute(rand(T, m, n), Blocks(bs))) checked; the array unchanged after it */
static void svd_case(dag_elem T, int m, int n, dag_blocks bs) {
    z64 *a = host_rand(T, m, n);
    round_to(T, a, m * n);
    dag_array *da = to_array(T, m, n, bs, a), *u = NULL, *vt = NULL;
    double *s = malloc(sizeof(double) * (size_t)(m < n ? m : n));
    CHECK_EQ_INT(dag_array_svd(da, &u, s, &vt), DAG_OK);
    check_svd(T, a, m, n, u, s, vt, 200);
    z64 *after = collect(da);
    CHECK_EQ_INT(count_diff(after, a, m * n), 0);
    free(a), free(s), free(after);
    dag_array_free(da), dag_array_free(u), dag_array_free(vt);
}
static const dag_elem svd_types[4] = { DAG_F32, DAG_F64, DAG_CF32, DAG_CF64 };
/* "Tile SVD: Square", blocks (32, 32), (16, 32), (16, 16), every element type */
TEST(svd_tile_square_every_type_and_blocking) {
    for (int t = 0; t < 4; t++)
        svd_case(svd_types[t], 128, 128, dag_blocks(32, 32)), svd_case(svd_types[t], 128, 128, dag_blocks(16, 32)),
            svd_case(svd_types[t], 128, 128, dag_blocks(16, 16));
}
/* "Tile SVD: Tall" (128 x 64 in (32, 32), (16, 32)) and "Wide" (64 x 128 in (32, 32), (32, 16)) */
TEST(svd_tile_tall_and_wide) {
    for (int t = 0; t < 4; t++) {
        svd_case(svd_types[t], 128, 64, dag_blocks(32, 32)), svd_case(svd_types[t], 128, 64, dag_blocks(16, 32));
        svd_case(svd_types[t], 64, 128, dag_blocks(32, 32)), svd_case(svd_types[t], 64, 128, dag_blocks(32, 16));
    }
}
/* "Tile SVD: Irregular tiling" (100 x 60 in Blocks(24, 16)) and "Single block-column" (48 x 40 in
   Blocks(48, 64)) */
TEST(svd_tile_irregular_tiling_and_a_single_block_column) {
    for (int t = 0; t < 4; t++) svd_case(svd_types[t], 100, 60, dag_blocks(24, 16)), svd_case(svd_types[t], 48, 40, dag_blocks(48, 64));
}
/* "In-place svd!": 96 x 96 in Blocks(32, 32), Float64 and ComplexF64, checked against the input (dag_array_svd
   leaves its input as it is, which svd! may destroy) */
TEST(svd_in_place_form) {
    svd_case(DAG_F64, 96, 96, dag_blocks(32, 32)), svd_case(DAG_CF64, 96, 96, dag_blocks(32, 32));
}
/* "svdvals": (128, 128), (128, 48), (48, 128): S without U and Vt equals svd's S, its squares sum to
   ||A||_F^2, and the input is unchanged */
TEST(svd_values_alone_agree_with_the_full_svd) {
    static const int shapes[3][2] = { { 128, 128 }, { 128, 48 }, { 48, 128 } };
    for (int t = 0; t < 2; t++)
        for (int sh = 0; sh < 3; sh++) {
            dag_elem T = t ? DAG_CF64 : DAG_F64;
            int m = shapes[sh][0], n = shapes[sh][1], k = m < n ? m : n;
            z64 *a = host_rand(T, m, n);
            dag_array *da = to_array(T, m, n, dag_blocks(32, 32), a), *u = NULL, *vt = NULL;
            double *s1 = malloc(sizeof(double) * (size_t)k), *s2 = malloc(sizeof(double) * (size_t)k), frob = 0, sum = 0;
            CHECK_EQ_INT(dag_array_svd(da, NULL, s1, NULL), DAG_OK);
            CHECK_EQ_INT(dag_array_svd(da, &u, s2, &vt), DAG_OK);
            for (int i = 0; i < m * n; i++) frob += cabs(a[i]) * cabs(a[i]);
            for (int i = 0; i < k; i++) {
                CHECK(fabs(s1[i] - s2[i]) <= 1e-12 * s2[0]);
                sum += s1[i] * s1[i];
            }
            CHECK(fabs(sum - frob) <= 1e-12 * frob);
            z64 *after = collect(da);
            CHECK_EQ_INT(count_diff(after, a, m * n), 0);
            free(a), free(s1), free(s2), free(after);
            dag_array_free(da), dag_array_free(u), dag_array_free(vt);
        }
}
/* "Prescribed spectrum": A = Q1 diag(10 .. 1) Q2' (n = 64, Q1 and Q2 unitary from QRs of random matrices),
   in Blocks(16, 16): svdvals are the prescribed values */
TEST(svd_values_of_a_prescribed_spectrum) {
    enum { N = 64 };
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        qr_case q1 = qr_factor(T, N, N, dag_blocks(16, 16)), q2 = qr_factor(T, N, N, dag_blocks(16, 16));
        double want[N], got[N];
        z64 *qd = malloc(sizeof(z64) * N * N);
        for (int i = 0; i < N; i++) want[i] = 10.0 - 9.0 * i / (N - 1);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) qd[i + j * N] = q1.q[i + j * N] * want[j];
        int r, c;
        z64 *a = matmul(qd, N, N, 0, q2.q, N, N, 1, &r, &c);
        dag_array *da = to_array(T, N, N, dag_blocks(16, 16), a);
        CHECK_EQ_INT(dag_array_svd(da, NULL, got, NULL), DAG_OK);
        for (int i = 0; i < N; i++) CHECK(fabs(got[i] - want[i]) < 1e-12 * 10);
        free(qd), free(a);
        dag_array_free(da);
        qr_case_free(&q1), qr_case_free(&q2);
    }
}
/* x = A \ b for a square, tall or wide A of full rank solved by Gaussian elimination on the host: the
   normal equations A' A x = A' b (tall, square), or x = A' y with A A' y = b (wide: the least-norm one) */
static z64 *host_pinv_solve(const z64 *a, int m, int n, const z64 *b, int nrhs) {
    int r, c, wide = m < n, k = wide ? m : n;
    z64 *g = wide ? matmul(a, m, n, 0, a, m, n, 1, &r, &c) : matmul(a, m, n, 1, a, m, n, 0, &r, &c);
    z64 *y = wide ? matmul(b, m, nrhs, 0, b, m, nrhs, 0, &r, &c) : matmul(a, m, n, 1, b, m, nrhs, 0, &r, &c);
    if (wide) memcpy(y, b, sizeof(z64) * (size_t)m * (size_t)nrhs);
    for (int col = 0; col < k; col++) {   /* Gauss-Jordan with partial pivoting on g (k x k), y (k x nrhs) */
        int piv = col;
        for (int i = col + 1; i < k; i++)
            if (cabs(g[i + col * k]) > cabs(g[piv + col * k])) piv = i;
        for (int j = 0; j < k; j++) { z64 t = g[col + j * k]; g[col + j * k] = g[piv + j * k]; g[piv + j * k] = t; }
        for (int j = 0; j < nrhs; j++) { z64 t = y[col + j * k]; y[col + j * k] = y[piv + j * k]; y[piv + j * k] = t; }
        for (int i = 0; i < k; i++) {
            if (i == col) continue;
            z64 f = g[i + col * k] / g[col + col * k];
            for (int j = 0; j < k; j++) g[i + j * k] -= f * g[col + j * k];
            for (int j = 0; j < nrhs; j++) y[i + j * k] -= f * y[col + j * k];
        }
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < nrhs; j++) y[i + j * k] /= g[i + i * k];
    z64 *x = wide ? matmul(a, m, n, 1, y, m, nrhs, 0, &r, &c) : y;
    if (wide) free(y);
    free(g);
    return x;
}
/* F \ B through the SVD, with the array operations: X = Vt' (diag(1 / S) (U' B)) */
static dag_array *svd_solve(dag_elem T, dag_array *u, const double *s, dag_array *vt, dag_array *b, int k, int n) {
    int nrhs = (int)dag_array_cols(b);
    double *inv = malloc(sizeof(double) * (size_t)k);
    for (int i = 0; i < k; i++) inv[i] = 1 / s[i];
    z64 *invz = untyped(DAG_F64, inv, k);
    dag_array *w = dag_array_zeros(T, k, nrhs, dag_blocks(16, 16)), *d = to_array(T, k, 1, dag_blocks(16, 1), invz);
    dag_array *x = dag_array_zeros(T, n, nrhs, dag_blocks(16, 16));
    CHECK_EQ_INT(dag_array_gemm(1, 0, 1.0, u, b, 0.0, w), DAG_OK);
    CHECK_EQ_INT(dag_array_mul(w, d, w), DAG_OK);   /* the column of 1 / S broadcasts over w's columns */
    CHECK_EQ_INT(dag_array_gemm(1, 0, 1.0, vt, w, 0.0, x), DAG_OK);
    free(inv), free(invz);
    dag_array_free(w), dag_array_free(d);
    return x;
}
/* "SVD solve": (64, 64), (96, 48), (48, 96) in Blocks(16, 16), a vector and a 3-column right-hand side,
   within rtol 1e-10 (1e-8 complex) of the host's A \ B */
TEST(svd_solves_square_tall_and_wide_systems) {
    static const int shapes[3][2] = { { 64, 64 }, { 96, 48 }, { 48, 96 } };
    for (int t = 0; t < 2; t++)
        for (int sh = 0; sh < 3; sh++)
            for (int nrhs = 1; nrhs <= 3; nrhs += 2) {
                dag_elem T = t ? DAG_CF64 : DAG_F64;
                int m = shapes[sh][0], n = shapes[sh][1], k = m < n ? m : n;
                z64 *a = host_rand(T, m, n), *b = host_rand(T, m, nrhs);
                dag_array *da = to_array(T, m, n, dag_blocks(16, 16), a), *db = to_array(T, m, nrhs, dag_blocks(16, nrhs), b);
                dag_array *u = NULL, *vt = NULL;
                double *s = malloc(sizeof(double) * (size_t)k);
                CHECK_EQ_INT(dag_array_svd(da, &u, s, &vt), DAG_OK);
                dag_array *x = svd_solve(T, u, s, vt, db, k, n);
                z64 *got = collect(x), *want = host_pinv_solve(a, m, n, b, nrhs);
                CHECK(approx(got, want, n * nrhs, t ? 1e-8 : 1e-10));
                free(a), free(b), free(s), free(got), free(want);
                dag_array_free(da), dag_array_free(db), dag_array_free(u), dag_array_free(vt), dag_array_free(x);
            }
}
/* "SVD solve: inv (square)": P = V diag(1 / S) U' (64 x 64 in Blocks(16, 16)) with P A = I within rtol */
TEST(svd_inverse_of_a_square_matrix) {
    for (int t = 0; t < 2; t++) {
        dag_elem T = t ? DAG_CF64 : DAG_F64;
        z64 *a = host_rand(T, 64, 64);
        dag_array *da = to_array(T, 64, 64, dag_blocks(16, 16), a), *u = NULL, *vt = NULL;
        double s[64];
        CHECK_EQ_INT(dag_array_svd(da, &u, s, &vt), DAG_OK);
        z64 inv[64];
        for (int i = 0; i < 64; i++) inv[i] = 1 / s[i];
        dag_array *d = to_array(T, 1, 64, dag_blocks(1, 16), inv), *p = dag_array_zeros(T, 64, 64, dag_blocks(16, 16));
        CHECK_EQ_INT(dag_array_mul(u, d, u), DAG_OK);   /* U diag(1 / S): the row broadcasts over U's rows */
        CHECK_EQ_INT(dag_array_gemm(1, 1, 1.0, vt, u, 0.0, p), DAG_OK);
        z64 *ph = collect(p), *id = calloc(64 * 64, sizeof(z64));
        int r, c;
        z64 *pa = matmul(ph, 64, 64, 0, a, 64, 64, 0, &r, &c);
        for (int i = 0; i < 64; i++) id[i + i * 64] = 1;
        CHECK(approx(pa, id, 64 * 64, t ? 1e-8 : 1e-10));
        free(a), free(ph), free(id), free(pa);
        dag_array_free(da), dag_array_free(u), dag_array_free(vt), dag_array_free(d), dag_array_free(p);
    }
}
/* Beyond Dagger's cases: ragged sizes down to 1 x n and n x 1, a rank-deficient matrix (U and Vt still
   orthonormal, zeros at the end of S), a wrapped matrix, and the refusals */
TEST(svd_of_vectors_rank_deficient_and_wrapped_matrices_and_refusals) {
    for (int t = 0; t < 4; t++) {
        svd_case(svd_types[t], 1, 9, dag_blocks(4, 4)), svd_case(svd_types[t], 9, 1, dag_blocks(4, 4));
        svd_case(svd_types[t], 23, 17, dag_blocks(5, 7)), svd_case(svd_types[t], 17, 23, dag_blocks(7, 5));
    }
    z64 a[12 * 8];   /* rank 2: columns repeat two independent ones */
    z64 *base = host_rand(DAG_F64, 12, 2);
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 12; i++) a[i + j * 12] = base[i + (j % 2) * 12] * (1 + j / 2);
    dag_array *da = to_array(DAG_F64, 12, 8, dag_blocks(4, 4), a), *u = NULL, *vt = NULL;
    double s[8];
    CHECK_EQ_INT(dag_array_svd(da, &u, s, &vt), DAG_OK);
    check_svd(DAG_F64, a, 12, 8, u, s, vt, 200);
    for (int i = 2; i < 8; i++) CHECK(s[i] < 1e-12 * s[0]);
    dag_array_free(da), dag_array_free(u), dag_array_free(vt);
    double w[10 * 6];
    for (int i = 0; i < 60; i++) w[i] = creal(base[i % 24]) + i % 7;
    z64 *wz = untyped(DAG_F64, w, 60);
    dag_array *wa = dag_array_wrap(DAG_F64, 10, 6, dag_blocks(4, 4), w, 10);
    CHECK_EQ_INT(dag_array_svd(wa, &u, s, &vt), DAG_OK);
    check_svd(DAG_F64, wz, 10, 6, u, s, vt, 200);
    dag_array_free(wa), dag_array_free(u), dag_array_free(vt);
    /* entries near the ends of double's range: the same singular values, scaled, and the same Q (the
       built-in QR and Jacobi scale their norms as LAPACK does) */
    double m6[12], s1[3], s2[3], q1[16], q2[16];
    for (int i = 0; i < 12; i++) m6[i] = 1 + i * (i % 3) + 0.5 * (i % 5);
    for (int k = 0; k < 3; k++) {
        double scale = k == 0 ? 1 : k == 1 ? 1e160 : 1e-200, b6[12], tau[3];
        for (int i = 0; i < 12; i++) b6[i] = m6[i] * scale;
        dag_array *x = dag_array_from_host(DAG_F64, 4, 3, dag_blocks(2, 2), b6, DAG_COL_MAJOR, 4);
        CHECK_EQ_INT(dag_array_svd(x, NULL, k ? s2 : s1, NULL), DAG_OK);
        CHECK_EQ_INT(dag_array_geqrf(x, tau), DAG_OK);
        dag_array *q = dag_array_orgqr(x, tau, 4);
        CHECK_EQ_INT(dag_array_collect(q, k ? q2 : q1, DAG_COL_MAJOR, 4), DAG_OK);
        for (int i = 0; k && i < 3; i++) CHECK(fabs(s2[i] / scale - s1[i]) <= 1e-12 * s1[0]);
        for (int i = 0; k && i < 16; i++) CHECK(fabs(q2[i] - q1[i]) <= 1e-12);
        dag_array_free(x), dag_array_free(q);
    }
    double bad[4] = { 1, NAN, 2, 3 };   /* a NaN (or an infinity): refused by name, in both builds */
    dag_array *nan_array = dag_array_from_host(DAG_F64, 2, 2, dag_blocks(2, 2), bad, DAG_COL_MAJOR, 2);
    CHECK_EQ_INT(dag_array_svd(nan_array, NULL, s, NULL), DAG_ERR_INVALID_ARGUMENT);
    dag_array_free(nan_array);
    dag_array *ints = dag_array_zeros(DAG_I32, 4, 4, dag_blocks(2, 2));
    u = vt = (dag_array *)1;   /* set to NULL on every refusal */
    CHECK_EQ_INT(dag_array_svd(ints, &u, s, &vt), DAG_ERR_INVALID_ARGUMENT);
    CHECK(u == NULL && vt == NULL);
    dag_array *f = dag_array_ones(DAG_F64, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_svd(f, NULL, NULL, NULL), DAG_ERR_INVALID_ARGUMENT);   /* no room for S */
    CHECK_EQ_INT(dag_array_svd(NULL, NULL, s, NULL), DAG_ERR_INVALID_ARGUMENT);
    dag_array_free(ints), dag_array_free(f);
    free(base), free(wz);
}

/* ==== test/array/permute.jl ==== */

/* permutedims(X, (2, 1)) of distribute(x, Blocks(br, bc)) (dag_array_transpose into Blocks(bc, br)) equals
   permutedims(x, (2, 1)), of size (n, m), in a grid of tiles the transpose of X's */
static void permute_case(dag_elem T, int m, int n, int br, int bc) {
    z64 *x = host_rand(T, m, n);
    round_to(T, x, m * n);
    dag_array *X = to_array(T, m, n, dag_blocks(br, bc), x), *Y = dag_array_zeros(T, n, m, dag_blocks(bc, br));
    CHECK_EQ_INT(dag_array_transpose(X, Y), DAG_OK);
    CHECK_EQ_INT(dag_array_type(Y), T);
    CHECK_EQ_INT(dag_array_rows(Y), n); CHECK_EQ_INT(dag_array_cols(Y), m);
    CHECK_EQ_INT(dag_array_tile_rows(Y), dag_array_tile_cols(X)); CHECK_EQ_INT(dag_array_tile_cols(Y), dag_array_tile_rows(X));
    z64 *y = collect(Y);
    int bad = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < n; i++) bad += y[i + j * n] != x[j + i * m];
    CHECK_EQ_INT(bad, 0);
    free(x), free(y);
    dag_array_free(X), dag_array_free(Y);
}
/* "2D - square chunks": 12 x 12 in Blocks(4, 4): a 3 x 3 grid, Blocks(4, 4) */
TEST(permute_2d_square_chunks) { permute_case(DAG_F64, 12, 12, 4, 4); }
/* "2D - rectangular chunks": 12 x 20 in Blocks(4, 5): (20, 12) in a 4 x 3 grid of Blocks(5, 4) */
TEST(permute_2d_rectangular_chunks) { permute_case(DAG_F64, 12, 20, 4, 5); }
/* "2D - non-divisible chunks": 10 x 7 in Blocks(3, 4) */
TEST(permute_2d_non_divisible_chunks) { permute_case(DAG_F64, 10, 7, 3, 4); }
/* "2D - single chunk per dimension": 6 x 9 in Blocks(6, 9): a 1 x 1 grid */
TEST(permute_2d_single_chunk_per_dimension) { permute_case(DAG_F64, 6, 9, 6, 9); }
/* "return type": Float32 8 x 12 in Blocks(4, 6) stays Float32 */
TEST(permute_keeps_float32) { permute_case(DAG_F32, 8, 12, 4, 6); }

/* ==== test/array/random.jl ==== */

/* "rand!": rand!(X) of zeros(Blocks(10, 10), 40, 40) is in [0, 1] with sum > 0.01; rand!(Uniform(1, 10), X)
   (here: fill_rand, scale by 9, add 1) in [1, 10] with sum > length + 0.1; the seeded RNGs (here: seeds)
   the same; randn!(X) has sum <= 2 length and no zero. (Not ported: Distributions' Uniform and Julia's
   RNG types as arguments.) */
TEST(random_rand_and_randn_in_place) {
    dag_array *X = dag_array_zeros(DAG_F64, 40, 40, dag_blocks(10, 10));
    dag_array *one = dag_array_scalar(DAG_F64, 1.0);
    for (int seed = 0; seed < 3; seed++) {
        double s;
        CHECK_EQ_INT(dag_array_fill_rand(X, 1234u + (unsigned)seed), DAG_OK);
        z64 *h = collect(X);
        int out = 0;
        for (int k = 0; k < 1600; k++) out += !(creal(h[k]) >= 0 && creal(h[k]) <= 1);
        CHECK_EQ_INT(out, 0);
        free(h);
        CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
        CHECK(s > 0.01);
        CHECK_EQ_INT(dag_array_fill_rand(X, 99u + (unsigned)seed), DAG_OK);
        CHECK_EQ_INT(dag_array_scale(9.0, X), DAG_OK);
        CHECK_EQ_INT(dag_array_add(X, one, X), DAG_OK);
        h = collect(X);
        out = 0;
        for (int k = 0; k < 1600; k++) out += !(creal(h[k]) >= 1 && creal(h[k]) <= 10);
        CHECK_EQ_INT(out, 0);
        free(h);
        CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
        CHECK(s > 1600 + 0.1);
        CHECK_EQ_INT(dag_array_fill_randn(X, 7u + (unsigned)seed), DAG_OK);
        CHECK_EQ_INT(dag_array_sum(X, &s), DAG_OK);
        CHECK(s <= 2 * 1600);
        h = collect(X);
        out = 0;
        for (int k = 0; k < 1600; k++) out += h[k] == 0;
        CHECK_EQ_INT(out, 0);
        free(h);
    }
    dag_array_free(X), dag_array_free(one);
}

/* ==== test/array/stencil_defs.jl (run by stencil.jl's "CPU") ==== */

static double const_one(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)x, (void)ld, (void)r, (void)c, (void)u; return 1; }
static double const_two(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)x, (void)ld, (void)r, (void)c, (void)u; return 2; }
static double sum9(const double *x, int64_t ld, int64_t r, int64_t c, void *u) {
    (void)r, (void)c, (void)u;
    double s = 0;
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) s += x[i + j * ld];
    return s;
}
static double times2(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)ld, (void)r, (void)c, (void)u; return 2 * x[0]; }
static double plus1(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)ld, (void)r, (void)c, (void)u; return x[0] + 1; }
static double times3(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)ld, (void)r, (void)c, (void)u; return x[0] * 3; }
static double half(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)ld, (void)r, (void)c, (void)u; return x[0] / 2; }
static double minus1(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { (void)ld, (void)r, (void)c, (void)u; return x[0] - 1; }
static double self_plus_sum9(const double *x, int64_t ld, int64_t r, int64_t c, void *u) { return x[0] + sum9(x, ld, r, c, u); }

/* "Simple assignment": @stencil A[idx] = 1 (and B[idx] = 2) on zeros(Blocks(2, 2), Int, 4, 4) */
TEST(stencil_simple_assignment) {
    dag_array *A = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    dag_array *S = dag_array_similar(A);
    CHECK_EQ_INT(dag_array_copy(A, S), DAG_OK);
    CHECK_EQ_INT(dag_array_stencil(A, S, 0, dag_boundary_periodic(), const_one, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(A, 1), 0);
    CHECK_EQ_INT(dag_array_stencil(B, S, 0, dag_boundary_periodic(), const_two, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(B, 2), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(S);
}
/* "Neighborhood access of written variable": A[idx] = sum(@neighbors(A[idx], 1, Wrap())) on ones(Blocks(1,
   1), Int, 2, 2) gives 9 (from A's old values: into a second array, then back) */
TEST(stencil_neighbourhood_of_the_written_array) {
    dag_array *A = dag_array_ones(DAG_I64, 2, 2, dag_blocks(1, 1)), *N = dag_array_similar(A);
    CHECK_EQ_INT(dag_array_stencil(N, A, 1, dag_boundary_periodic(), sum9, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_copy(N, A), DAG_OK);
    CHECK_EQ_INT(count_not(A, 9), 0);
    dag_array_free(A), dag_array_free(N);
}
/* "Wrap boundary": 3 x 3 sums, wrapping, of a 4 x 4 zeros with A[1, 1] = 10, in Blocks(2, 2) */
TEST(stencil_wrap_boundary) {
    z64 a[16] = { 0 };
    a[0] = 10;
    dag_array *A = to_array(DAG_I64, 4, 4, dag_blocks(2, 2), a), *B = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_periodic(), sum9, NULL), DAG_OK);
    z64 *b = collect(B);
    int bad = 0;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            int want = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) want += ((i + di + 4) % 4 == 0 && (j + dj + 4) % 4 == 0) ? 10 : 0;
            bad += b[i + j * 4] != want;
        }
    CHECK_EQ_INT(bad, 0);
    free(b);
    dag_array_free(A), dag_array_free(B);
}
/* "Pad boundary": 3 x 3 sums of ones(4, 4) in Blocks(2, 2), padded with 0: [4 6 6 4; 6 9 9 6; 6 9 9 6; 4 6 6 4] */
TEST(stencil_pad_boundary) {
    dag_array *A = dag_array_ones(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_fixed(0), sum9, NULL), DAG_OK);
    static const double want[16] = { 4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4 };
    z64 *b = collect(B);
    int bad = 0;
    for (int k = 0; k < 16; k++) bad += b[k] != want[k];
    CHECK_EQ_INT(bad, 0);
    free(b);
    dag_array_free(A), dag_array_free(B);
}
/* "Multiple expressions": A[idx] = 1; B[idx] = A[idx] * 2 (two stencil calls) gives A all 1, B all 2 */
TEST(stencil_multiple_expressions) {
    dag_array *A = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    dag_array *S = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_stencil(A, S, 0, dag_boundary_fixed(0), const_one, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_stencil(B, A, 0, dag_boundary_fixed(0), times2, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(A, 1), 0);
    CHECK_EQ_INT(count_not(B, 2), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(S);
}
/* "Allocation syntax": B = @stencil sum(@neighbors(A[idx], 1, Wrap())) of ones(Blocks(2, 2), Int, 4, 4) is
   an array of 9s (dag_array_similar, then the stencil); then A[idx] = A[idx] + 1 and the same sum give 18 */
TEST(stencil_into_a_new_array) {
    dag_array *A = dag_array_ones(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_similar(A), *A2 = dag_array_similar(A);
    CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_periodic(), sum9, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(B, 9), 0);
    dag_array *C = dag_array_similar(A);
    CHECK_EQ_INT(dag_array_stencil(A2, A, 0, dag_boundary_periodic(), plus1, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_stencil(C, A2, 1, dag_boundary_periodic(), sum9, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(C, 18), 0);
    dag_array_free(A), dag_array_free(A2), dag_array_free(B), dag_array_free(C);
}
/* "Broadcast integration": C .= A .+ @stencil(sum(@neighbors(B[idx], 1, Wrap()))) of ones gives 10 */
TEST(stencil_result_added_to_another_array) {
    dag_array *A = dag_array_ones(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_ones(DAG_I64, 4, 4, dag_blocks(2, 2));
    dag_array *C = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2)), *S = dag_array_similar(B);
    CHECK_EQ_INT(dag_array_stencil(S, B, 1, dag_boundary_periodic(), sum9, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_add(A, S, C), DAG_OK);
    CHECK_EQ_INT(count_not(C, 10), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(C), dag_array_free(S);
}
/* "Multiple DArrays": C[idx] = A[idx] + B[idx] of ones and fill(2) gives 3 (a stencil reads one array:
   here dag_array_add) */
TEST(stencil_sum_of_two_arrays_pointwise) {
    dag_array *A = dag_array_ones(DAG_I64, 4, 4, dag_blocks(2, 2)), *B = dag_array_fill(DAG_I64, 4, 4, dag_blocks(2, 2), 2);
    dag_array *C = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_add(A, B, C), DAG_OK);
    CHECK_EQ_INT(count_not(C, 3), 0);
    dag_array_free(A), dag_array_free(B), dag_array_free(C);
}
/* "Update operators": A += 1 of ones gives 2, B *= 3 gives 3, C /= 2f0 of fill(10f0) gives 5f0, D -= 1 of
   fill(10) gives 9, E += sum(@neighbors(E[idx], 1, Wrap())) of ones gives 10 (each into a second array) */
static void update_case(dag_elem T, double init, dag_stencil_fn f, int radius, double want) {
    dag_array *A = dag_array_fill(T, 4, 4, dag_blocks(2, 2), init), *N = dag_array_similar(A);
    CHECK_EQ_INT(dag_array_stencil(N, A, radius, dag_boundary_periodic(), f, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_copy(N, A), DAG_OK);
    CHECK_EQ_INT(count_not(A, want), 0);
    dag_array_free(A), dag_array_free(N);
}
TEST(stencil_update_operators) {
    update_case(DAG_I64, 1, plus1, 0, 2);
    update_case(DAG_I64, 1, times3, 0, 3);
    update_case(DAG_F32, 10, half, 0, 5);
    update_case(DAG_I64, 10, minus1, 0, 9);
    update_case(DAG_I64, 1, self_plus_sum9, 1, 10);
}
/* "Pad boundary with non-zero value": 3 x 3 sums of ones(Blocks(1, 1), Int, 2, 2) padded with 5 give 29 */
TEST(stencil_pad_boundary_with_a_non_zero_value) {
    dag_array *A = dag_array_ones(DAG_I64, 2, 2, dag_blocks(1, 1)), *B = dag_array_zeros(DAG_I64, 2, 2, dag_blocks(1, 1));
    CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_fixed(5), sum9, NULL), DAG_OK);
    CHECK_EQ_INT(count_not(B, 5 * 5 + 4), 0);
    dag_array_free(A), dag_array_free(B);
}
/* "Invalid neighborhood distance": distances 0, -1, 1.5 and 2 on 2 x 2 in Blocks(1, 1) are refused
   (ArgumentError). Ported: -1 and 2 (DAG_ERR_INVALID_ARGUMENT). (Not ported: 0, which dag_array_stencil
   takes as a pointwise stencil, and 1.5: the radius is an int.) */
TEST(stencil_invalid_neighbourhood_distances_are_refused) {
    dag_array *A = dag_array_ones(DAG_I64, 2, 2, dag_blocks(1, 1)), *B = dag_array_zeros(DAG_I64, 2, 2, dag_blocks(1, 1));
    CHECK_EQ_INT(dag_array_stencil(B, A, -1, dag_boundary_periodic(), sum9, NULL), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_stencil(B, A, 2, dag_boundary_periodic(), sum9, NULL), DAG_ERR_INVALID_ARGUMENT);
    dag_array_free(A), dag_array_free(B);
}

/* The sum over the neighbourhood of radius (u[0], u[1]) (rows, columns) */
static double sum_box(const double *x, int64_t ld, int64_t r, int64_t c, void *u) {
    (void)r, (void)c;
    const int *rad = (const int *)u;
    double s = 0;
    for (int j = -rad[1]; j <= rad[1]; j++)
        for (int i = -rad[0]; i <= rad[0]; i++) s += x[i + j * ld];
    return s;
}
/* A 3 x 3 sum over reshape(1:16, 4, 4) in Blocks(2, 2) with a boundary per dimension, against the
   testset's loop: row index and sign from rows(i), column's from cols(j) (0 index: the padded 0) */
typedef int (*index_map)(int i, int n, int *sign);
static int wrap_index(int i, int n, int *sign) { (void)sign; return ((i % n) + n) % n; }
static int pad_index(int i, int n, int *sign) { (void)sign; return i < 0 || i >= n ? -1 : i; }
static int clamp_index(int i, int n, int *sign) { (void)sign; return i < 0 ? 0 : i >= n ? n - 1 : i; }
static int reflect_index(int i, int n, int *sign) { (void)sign; return i < 0 ? -i - 1 : i >= n ? 2 * n - 1 - i : i; }
static int antireflect_index(int i, int n, int *sign) {
    if (i < 0 || i >= n) *sign = -*sign;
    return reflect_index(i, n, sign);
}
static void mixed_case(dag_boundary rows_b, dag_boundary cols_b, index_map rows, index_map cols) {
    z64 a[16];
    for (int k = 0; k < 16; k++) a[k] = k + 1;
    dag_array *A = to_array(DAG_I64, 4, 4, dag_blocks(2, 2), a), *B = dag_array_zeros(DAG_I64, 4, 4, dag_blocks(2, 2));
    int rad[2] = { 1, 1 };
    CHECK_EQ_INT(dag_array_stencil_dims(B, A, (dag_stencil_dims){ { 1, 1 }, { rows_b, cols_b } }, sum_box, rad), DAG_OK);
    z64 *b = collect(B);
    int bad = 0;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            long want = 0;
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int sign = 1, ni = rows(i + di, 4, &sign), nj = cols(j + dj, 4, &sign);
                    want += ni < 0 || nj < 0 ? 0 : sign * (long)creal(a[ni + nj * 4]);
                }
            bad += b[i + j * 4] != want;
        }
    CHECK_EQ_INT(bad, 0);
    free(b);
    dag_array_free(A), dag_array_free(B);
}
/* "Mixed boundary conditions": (Wrap(), Pad(0)) */
TEST(stencil_mixed_boundaries_wrap_and_pad) { mixed_case(dag_boundary_periodic(), dag_boundary_fixed(0), wrap_index, pad_index); }
/* "Mixed boundary conditions (Clamp, Reflect)": Clamp() along the rows, Reflect(true) along the columns */
TEST(stencil_mixed_boundaries_clamp_and_reflect) {
    mixed_case(dag_boundary_clamp(), dag_boundary_reflect(), clamp_index, reflect_index);
}
/* "Mixed boundary conditions (Wrap, AntiReflect)": periodic rows, a wall along the columns */
TEST(stencil_mixed_boundaries_wrap_and_antireflect) {
    mixed_case(dag_boundary_periodic(), dag_boundary_antireflect(), wrap_index, antireflect_index);
}
/* "LinearExtrapolate boundary": [2, 4, 6, 8] (Float32) in Blocks(2), radius 1: [6, 12, 18, 24]; and the
   commented-out 2-D testset's rule (extrapolation along the rows first, the column clamped) on
   reshape(1:16, 4, 4) in Blocks(2, 2), with the point function and a DAG_KERNEL alike */
DAG_KERNEL(box3_f64, ((long, rows), (long, ld), (long, r0), (long, c0), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t k = DAG_INDEX();
    long i = (long)(k % (size_t)rows), j = (long)(k / (size_t)rows);
    double s = 0;
    for (long dj = -1; dj <= 1; dj++)
        for (long di = -1; di <= 1; di++) s += x[(i + 1 + di) + (j + 1 + dj) * ld];
    y[k] = s;
    (void)r0, (void)c0;
)
TEST(stencil_linear_extrapolation_boundary) {
    z64 v[4] = { 2, 4, 6, 8 };
    dag_array *A = to_array(DAG_F32, 4, 1, dag_blocks(2, 1), v), *B = dag_array_zeros(DAG_F32, 4, 1, dag_blocks(2, 1));
    int rad[2] = { 1, 0 };
    CHECK_EQ_INT(dag_array_stencil_dims(B, A, (dag_stencil_dims){ { 1, 0 }, { dag_boundary_linear(), dag_boundary_linear() } },
                                        sum_box, rad), DAG_OK);
    z64 *b = collect(B);
    CHECK(b[0] == 6 && b[1] == 12 && b[2] == 18 && b[3] == 24);
    free(b);
    dag_array_free(A), dag_array_free(B);
    z64 a[16], want[16];
    for (int k = 0; k < 16; k++) a[k] = k + 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double sum = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) {
                    int ni = i + di, nj = j + dj, cj = nj < 0 ? 0 : nj > 3 ? 3 : nj;
                    double val;
                    if (ni < 0) val = creal(a[0 + cj * 4]) + (creal(a[1 + cj * 4]) - creal(a[0 + cj * 4])) * ni;
                    else if (ni > 3) val = creal(a[3 + cj * 4]) + (creal(a[3 + cj * 4]) - creal(a[2 + cj * 4])) * (ni - 3);
                    else if (nj < 0) val = creal(a[ni]) + (creal(a[ni + 4]) - creal(a[ni])) * nj;
                    else if (nj > 3) val = creal(a[ni + 12]) + (creal(a[ni + 12]) - creal(a[ni + 8])) * (nj - 3);
                    else val = creal(a[ni + nj * 4]);
                    sum += val;
                }
            want[i + j * 4] = sum;
        }
    for (int kernel = 0; kernel < 2; kernel++) {
        A = to_array(DAG_F64, 4, 4, dag_blocks(2, 2), a), B = dag_array_zeros(DAG_F64, 4, 4, dag_blocks(2, 2));
        int r2[2] = { 1, 1 };
        CHECK_EQ_INT(kernel ? dag_array_stencil_kernel(box3_f64, B, A, 1, dag_boundary_linear())
                            : dag_array_stencil(B, A, 1, dag_boundary_linear(), sum_box, r2), DAG_OK);
        b = collect(B);
        CHECK_EQ_INT(count_diff(b, want, 16), 0);
        free(b);
        dag_array_free(A), dag_array_free(B);
    }
}
/* "Tuple neighborhood distance: 1D with distance (2,)": [1..6] in Blocks(2), radius 2, wrapping:
   [17, 16, 15, 20, 19, 18]; "2D with distance (1, 2)": reshape(1:12, 3, 4) in Blocks(1, 2), wrapping */
TEST(stencil_a_radius_per_dimension) {
    z64 v[6] = { 1, 2, 3, 4, 5, 6 };
    dag_array *A = to_array(DAG_I64, 6, 1, dag_blocks(2, 1), v), *B = dag_array_zeros(DAG_I64, 6, 1, dag_blocks(2, 1));
    int rad[2] = { 2, 0 };
    CHECK_EQ_INT(dag_array_stencil_dims(B, A, (dag_stencil_dims){ { 2, 0 }, { dag_boundary_periodic(), dag_boundary_periodic() } },
                                        sum_box, rad), DAG_OK);
    z64 *b = collect(B);
    static const int want1[6] = { 17, 16, 15, 20, 19, 18 };
    for (int i = 0; i < 6; i++) CHECK(b[i] == want1[i]);
    free(b);
    dag_array_free(A), dag_array_free(B);
    z64 a[12];
    for (int k = 0; k < 12; k++) a[k] = k + 1;
    A = to_array(DAG_I64, 3, 4, dag_blocks(1, 2), a), B = dag_array_zeros(DAG_I64, 3, 4, dag_blocks(1, 2));
    int rad2[2] = { 1, 2 };
    CHECK_EQ_INT(dag_array_stencil_dims(B, A, (dag_stencil_dims){ { 1, 2 }, { dag_boundary_periodic(), dag_boundary_periodic() } },
                                        sum_box, rad2), DAG_OK);
    b = collect(B);
    int bad = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            long want = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -2; dj <= 2; dj++) want += (long)creal(a[(i + di + 3) % 3 + ((j + dj + 4) % 4) * 3]);
            bad += b[i + j * 3] != want;
        }
    CHECK_EQ_INT(bad, 0);
    free(b);
    dag_array_free(A), dag_array_free(B);
}

/* ==== test/array/fft.jl (1D and 2D; 3D has no counterpart: arrays are 2-D) ==== */

/* FFTW's fft (sign -1) or ifft (sign +1, divided by n) of an m x n matrix along both dimensions, by the
   DFT's definition in long double: the value Dagger's test gets from FFTW on the collected array */
static z64 *dft2(const z64 *a, int m, int n, int sign) {
    z64 *x = (z64 *)malloc(sizeof *x * (size_t)(m * n)), *y = (z64 *)malloc(sizeof *y * (size_t)(m * n));
    memcpy(x, a, sizeof *x * (size_t)(m * n));
    for (int pass = 0; pass < 2; pass++) {
        int len = pass ? n : m, lines = pass ? m : n, step = pass ? m : 1, next = pass ? 1 : m;
        for (int l = 0; l < lines; l++)
            for (int k = 0; k < len; k++) {
                long double re = 0, im = 0;
                for (int j = 0; j < len; j++) {
                    long double w = sign * 6.283185307179586476925L * (long double)((j * k) % len) / len;
                    z64 v = x[l * next + j * step];
                    re += creal(v) * cosl(w) - cimag(v) * sinl(w), im += creal(v) * sinl(w) + cimag(v) * cosl(w);
                }
                if (sign > 0) re /= len, im /= len;
                y[l * next + k * step] = (double)re + I * (double)im;
            }
        memcpy(x, y, sizeof *x * (size_t)(m * n));
    }
    free(y);
    return x;
}
/* fft(DA) and fft!(DA) (or ifft) of rand(T, m, n) for T in ComplexF64, ComplexF32: the result is a new
   array of T, approximately FFTW's of the collected array */
static void fft_case(int m, int n, int inverse) {
    static const dag_elem ts[2] = { DAG_CF64, DAG_CF32 };
    dag_result (*f)(dag_array *, dag_array *, int) = inverse ? dag_array_ifft : dag_array_fft;
    for (int ti = 0; ti < 2; ti++) {
        dag_elem t = ts[ti];
        z64 *h = host_rand(t, m, n), *want = dft2(h, m, n, inverse ? 1 : -1);
        dag_array *DA = to_array(t, m, n, dag_blocks_auto(), h), *DB = dag_array_similar(DA);   /* out of place */
        CHECK_EQ_INT(f(DA, DB, 0), DAG_OK);
        CHECK(dag_array_type(DB) == t && dag_array_rows(DB) == m && dag_array_cols(DB) == n);
        z64 *b = collect(DB);
        CHECK(approx(b, want, m * n, default_rtol(t)));
        CHECK_EQ_INT(f(DA, DA, 0), DAG_OK);   /* in place */
        z64 *a = collect(DA);
        CHECK(approx(a, want, m * n, default_rtol(t)));
        free(h), free(want), free(b), free(a);
        dag_array_free(DA), dag_array_free(DB);
    }
}
/* fft.jl "FFT": 1D */
TEST(fft_1d_out_of_place_and_in_place) { fft_case(100, 1, 0); }
/* fft.jl "FFT": 2D */
TEST(fft_2d_out_of_place_and_in_place) { fft_case(100, 100, 0); }
/* fft.jl "IFFT": 1D */
TEST(ifft_1d_out_of_place_and_in_place) { fft_case(100, 1, 1); }
/* fft.jl "IFFT": 2D */
TEST(ifft_2d_out_of_place_and_in_place) { fft_case(100, 100, 1); }

int main(void) {
    watchdog_start();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    /* allocation.jl */
    RUN(allocation_dvector_and_dmatrix_constructors_collect_their_host_data_in_every_real_type);
    RUN(allocation_undef_has_its_type_shape_and_tiling_with_automatic_or_given_blocks);
    RUN(allocation_rand_and_randn_repeat_differ_by_seed_and_rand_is_positive);
    RUN(allocation_ones_and_zeros_hold_their_value_in_every_real_type);
    RUN(allocation_distribute_cuts_tiles_of_the_given_size_and_redistributes);
    RUN(allocation_automatic_blocks_give_arrays_of_the_asked_size_that_hold_their_data);
    RUN(allocation_view_wraps_a_host_matrix_whose_first_tile_is_its_corner);
    RUN(allocation_copy_gives_equal_values_and_similar_the_same_type_shape_and_tiling);
    /* core.jl */
    RUN(core_map_adds_one_out_of_place);
    RUN(core_map_in_place_sets_and_transforms_int64);
    RUN(core_zero_like_and_division_by_a_scalar);
    RUN(core_broadcast_scales_and_adds_a_vector);
    RUN(core_transpose_gives_the_transpose_in_transposed_tiles);
    RUN(core_concat_hcat_and_vcat_of_equal_and_different_tilings);
    RUN(core_scale_by_a_diagonal_is_a_column_broadcast_mul);
    RUN(core_reducedim_sums_int64_over_rows_and_columns);
    RUN(core_sort_of_a_shuffled_vector_in_4_10_and_1_pieces);
    /* indexing.jl */
    RUN(indexing_get_and_put_read_and_write_a_wrapped_host_array);
    RUN(indexing_getindex_of_ranges_equals_the_host_slice);
    RUN(indexing_one_element_of_a_distributed_matrix);
    RUN(indexing_setindex_of_a_copy_leaves_the_original);
    RUN(indexing_slicing_assigns_columns_rows_and_blocks_through_views);
    /* copyto.jl */
    RUN(copyto_whole_arrays_and_contiguous_views_of_every_type);
    RUN(copyto_between_every_pair_of_partitionings_and_sizes);
    /* mapreduce.jl */
    RUN(mapreduce_reduce_plus_over_all_dims_from_no_init_and_zero);
    RUN(mapreduce_x_plus_one_then_plus_over_all_dims);
    RUN(mapreduce_sum_over_all_dims_and_the_scalar_sum);
    RUN(mapreduce_prod_of_rand_over_all_dims_floats_and_wrapping_integers);
    RUN(mapreduce_minimum_over_all_dims_and_the_scalar_min);
    RUN(mapreduce_maximum_over_all_dims_and_the_scalar_max);
    RUN(mapreduce_extrema_as_a_minimum_and_a_maximum);
    /* broadcast.jl */
    RUN(broadcast_out_of_place_add_mul_plus_a_scalar_and_a_vector);
    RUN(broadcast_in_place_updates);
    RUN(broadcast_a_function_of_two_arrays);
    /* linalg/core.jl, arithmetic.jl, matmul.jl, cholesky.jl, lu.jl, solve.jl, qr.jl */
    RUN(linalg_norm_of_a_matrix_and_a_vector);
    RUN(arithmetic_dmatrix_plus);
    RUN(arithmetic_dmatrix_minus);
    RUN(arithmetic_dvector_plus);
    RUN(arithmetic_dvector_minus);
    RUN(matmul_with_and_without_transpose);
    RUN(matmul_gemm_every_size_partitioning_transpose_and_syrk);
    RUN(matmul_gemv_every_size_and_partitioning);
    RUN(cholesky_factor_is_the_loops_and_the_wrapped_matrix_holds_it);
    RUN(lu_with_and_without_pivoting_factors_solves_and_refuses_a_singular_matrix);
    RUN(solve_ldiv_with_lu_and_cholesky_factors_of_matrix_vector_and_host_right_hand_sides);
    RUN(qr_tile_square_factor_and_orthogonality_residuals);
    RUN(qr_tile_tall_factor_and_orthogonality_residuals);
    RUN(qr_tile_wide_factor_and_orthogonality_residuals);
    RUN(qr_in_place_factor_residual);
    RUN(qr_single_tile);
    RUN(qr_smaller_than_a_block);
    RUN(qr_least_squares_recovers_the_solution);
    RUN(qr_q_applied_from_either_side_with_and_without_adjoint);
    RUN(qr_q_applied_to_a_host_matrix_in_place);
    RUN(qr_q_times_a_scalar);
    RUN(qr_q_formed_as_an_array_and_collected);
    RUN(qr_q_operations_on_ragged_sizes_types_and_tilings);
    RUN(caqr_factor_and_orthogonality_residuals_with_2_and_4_domains);
    RUN(caqr_chooses_its_domains_when_given_0);
    RUN(caqr_in_single_precision);
    RUN(caqr_of_a_square_matrix_and_with_a_domain_per_tile_row);
    RUN(caqr_on_ragged_sizes_uneven_domains_and_tiles_that_are_not_square_gives_geqrfs_r);
    RUN(caqr_q_applied_from_either_side_with_and_without_adjoint);
    RUN(caqr_q_and_its_adjoint_formed);
    RUN(caqr_least_squares_recovers_the_solution);
    RUN(caqr_uses_the_domains_asked_for_and_gives_q_in_as_tiling);
    RUN(caqr_refuses_what_it_cannot_factor_or_apply);
    RUN(svd_tile_square_every_type_and_blocking);
    RUN(svd_tile_tall_and_wide);
    RUN(svd_tile_irregular_tiling_and_a_single_block_column);
    RUN(svd_in_place_form);
    RUN(svd_values_alone_agree_with_the_full_svd);
    RUN(svd_values_of_a_prescribed_spectrum);
    RUN(svd_solves_square_tall_and_wide_systems);
    RUN(svd_inverse_of_a_square_matrix);
    RUN(svd_of_vectors_rank_deficient_and_wrapped_matrices_and_refusals);
    /* permute.jl, random.jl */
    RUN(permute_2d_square_chunks);
    RUN(permute_2d_rectangular_chunks);
    RUN(permute_2d_non_divisible_chunks);
    RUN(permute_2d_single_chunk_per_dimension);
    RUN(permute_keeps_float32);
    RUN(random_rand_and_randn_in_place);
    /* stencil.jl ("CPU": stencil_defs.jl) */
    RUN(stencil_simple_assignment);
    RUN(stencil_neighbourhood_of_the_written_array);
    RUN(stencil_wrap_boundary);
    RUN(stencil_pad_boundary);
    RUN(stencil_multiple_expressions);
    RUN(stencil_into_a_new_array);
    RUN(stencil_result_added_to_another_array);
    RUN(stencil_sum_of_two_arrays_pointwise);
    RUN(stencil_update_operators);
    RUN(stencil_pad_boundary_with_a_non_zero_value);
    RUN(stencil_invalid_neighbourhood_distances_are_refused);
    RUN(stencil_mixed_boundaries_wrap_and_pad);
    RUN(stencil_mixed_boundaries_clamp_and_reflect);
    RUN(stencil_mixed_boundaries_wrap_and_antireflect);
    RUN(stencil_linear_extrapolation_boundary);
    RUN(stencil_a_radius_per_dimension);
    /* fft.jl */
    RUN(fft_1d_out_of_place_and_in_place);
    RUN(fft_2d_out_of_place_and_in_place);
    RUN(ifft_1d_out_of_place_and_in_place);
    RUN(ifft_2d_out_of_place_and_in_place);
    dag_shutdown();
    return test_summary();
}
