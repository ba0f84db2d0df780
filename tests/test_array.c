/* dag_array.h: constructors, host copies, gemm and Cholesky against plain
   loops, on square, rectangular and ragged tilings. Built twice by make:
   with the built-in tile kernels and with -DDAG_ARRAY_CBLAS (OpenBLAS). */
#define _POSIX_C_SOURCE 200809L   /* mkstemp */
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_PANEL_ROWS 48   /* wrapped matrices' panels: 3 tiles of 16, so the tests cross several */
#include "dag_kernels.h"
#include "dag_array.h"
#include "test.h"
#include <math.h>
#include <dlfcn.h>
#include <unistd.h>

static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

/* An SPD matrix: a random one plus n on the diagonal, symmetrised. */
static void spd(double *m, int n, unsigned seed) {
    srand(seed);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) m[i + j * n] = m[j + i * n] = (double)rand() / RAND_MAX - 0.5 + (i == j ? n : 0);
}

TEST(rand_depends_only_on_the_seed_and_the_element_whatever_the_tiling) {
    enum { R = 70, C = 45 };
    static double x[R * C], y[R * C];
    dag_array *a = dag_array_rand(DAG_F64, R, C, dag_blocks(16, 7), 9), *b = dag_array_rand(DAG_F64, R, C, dag_blocks(70, 45), 9);
    CHECK(a && b);
    CHECK_EQ_INT(dag_array_collect(a, x, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(b, y, DAG_COL_MAJOR, R), DAG_OK);
    int same = 1, in_range = 1;
    double mean = 0;
    for (int i = 0; i < R * C; i++) same &= x[i] == y[i], in_range &= x[i] >= 0 && x[i] < 1, mean += x[i];
    CHECK(same && in_range);
    CHECK(fabs(mean / (R * C) - 0.5) < 0.05);
    CHECK_EQ_INT(dag_array_tile_rows(a), 5);   /* 70 rows in 16: 4 full tiles and a ragged one */
    CHECK_EQ_INT(dag_array_tile_cols(a), 7);
    dag_array_free(a);
    dag_array_free(b);
    dag_array *n = dag_array_randn(DAG_F64, 200, 200, dag_blocks(64, 64), 1);
    static double z[200 * 200];
    dag_array_collect(n, z, DAG_COL_MAJOR, 200);
    double s = 0, s2 = 0;
    for (int i = 0; i < 200 * 200; i++) s += z[i], s2 += z[i] * z[i];
    CHECK(fabs(s / 40000) < 0.05 && fabs(s2 / 40000 - 1.0) < 0.05);   /* mean 0, variance 1 */
    dag_array_free(n);
}

/* Integer arrays get integers over [0, 2^31) (I32) and [0, 2^63) (I64), not a
   uniform in [0, 1) truncated to 0. */
TEST(rand_of_an_integer_type_gives_distinct_integers_that_depend_on_the_seed) {
    enum { R = 40, C = 30, N = R * C };
    static int32_t i1[N], i2[N], i3[N];
    static int64_t l1[N], l2[N], l3[N];
    dag_array *a = dag_array_rand(DAG_I32, R, C, dag_blocks(16, 7), 5), *b = dag_array_rand(DAG_I32, R, C, dag_blocks(40, 30), 5),
              *c = dag_array_rand(DAG_I32, R, C, dag_blocks(16, 7), 6), *d = dag_array_rand(DAG_I64, R, C, dag_blocks(9, 9), 5),
              *e = dag_array_rand(DAG_I64, R, C, dag_blocks(40, 30), 5), *f = dag_array_rand(DAG_I64, R, C, dag_blocks(9, 9), 6);
    CHECK(a && b && c && d && e && f);
    CHECK_EQ_INT(dag_array_collect(a, i1, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(b, i2, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(c, i3, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(d, l1, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(e, l2, DAG_COL_MAJOR, R), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(f, l3, DAG_COL_MAJOR, R), DAG_OK);
    int same = 1, differs = 0, in_range = 1, zeros = 0, big32 = 0, big64 = 0;
    for (int k = 0; k < N; k++) {
        same &= i1[k] == i2[k] && l1[k] == l2[k];   /* the same seed, any tiling: the same values */
        differs += i1[k] != i3[k] && l1[k] != l3[k];
        in_range &= i1[k] >= 0 && l1[k] >= 0;
        zeros += i1[k] == 0 || l1[k] == 0;
        big32 += i1[k] >= (INT32_C(1) << 30);       /* about half of each range's upper half */
        big64 += l1[k] >= (INT64_C(1) << 62);
    }
    CHECK(same && in_range && zeros == 0);
    CHECK(differs > N - 3);
    CHECK(big32 > N / 3 && big32 < 2 * N / 3 && big64 > N / 3 && big64 < 2 * N / 3);
    int distinct = 1;   /* 1200 draws from 2^31: a collision has odds under 1e-3, and is fixed by the seed */
    for (int k = 0; k < N && distinct; k++)
        for (int m = k + 1; m < N; m++) distinct &= i1[k] != i1[m] && l1[k] != l1[m];
    CHECK(distinct);
    dag_array_free(a), dag_array_free(b), dag_array_free(c);
    dag_array_free(d), dag_array_free(e), dag_array_free(f);
}

TEST(host_copies_round_trip_in_both_layouts_and_every_type) {
    enum { R = 33, C = 21, LD = 40 };
    static double src[LD * LD], back[LD * LD];
    for (int i = 0; i < LD * LD; i++) src[i] = i * 0.5;
    dag_layout layouts[2] = { DAG_COL_MAJOR, DAG_ROW_MAJOR };
    for (int l = 0; l < 2; l++) {
        dag_array *a = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 5), src, layouts[l], LD);
        memset(back, 0, sizeof back);
        CHECK_EQ_INT(dag_array_collect(a, back, layouts[l], LD), DAG_OK);
        int bad = 0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                int k = layouts[l] == DAG_COL_MAJOR ? i + j * LD : i * LD + j;
                bad += back[k] != src[k];
            }
        CHECK_EQ_INT(bad, 0);
        dag_array_free(a);
    }
    int32_t vi[R * C];
    dag_array *f = dag_array_fill(DAG_I32, R, C, dag_blocks(8, 8), 7.0);
    CHECK_EQ_INT(dag_array_collect(f, vi, DAG_COL_MAJOR, R), DAG_OK);
    int bad = 0;
    for (int i = 0; i < R * C; i++) bad += vi[i] != 7;
    CHECK_EQ_INT(bad, 0);
    dag_array_free(f);
    float vf[R * C];
    dag_array *o = dag_array_ones(DAG_F32, R, C, dag_blocks(10, 3));
    dag_array_collect(o, vf, DAG_COL_MAJOR, R);
    bad = 0;
    for (int i = 0; i < R * C; i++) bad += vf[i] != 1.0f;
    CHECK_EQ_INT(bad, 0);
    dag_array_free(o);
}

/* C = 1.5 op(A) op(B) - 0.5 C on ragged tiles against a plain loop, in
   double or float, on the CPU or under a scope of every OpenCL device
   (counting the kernels that ran there): the largest difference. */
static double gemm_error(dag_elem type, int ta, int tb, bool devices, int *device_kernels) {
    enum { M = 50, N = 37, K = 45, T = 16 };
    static double a[64 * 64], b[64 * 64], c[M * N], ref[M * N];
    static float af[64 * 64], bf[64 * 64], cf[M * N];
    for (int i = 0; i < 64 * 64; i++) a[i] = (i % 13) * 0.25 - 1.5, b[i] = (i % 7) * 0.5 - 1.0;
    for (int i = 0; i < 64 * 64; i++) af[i] = (float)a[i], bf[i] = (float)b[i];
    bool f64 = type == DAG_F64;
    /* op(A) is M x K, so A is stored K x M when transposed (column-major, ld = its rows) */
    int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    dag_array *A = dag_array_from_host(type, ar, ac, dag_blocks(T, T), f64 ? (void *)a : (void *)af, DAG_COL_MAJOR, ar);
    dag_array *B = dag_array_from_host(type, br, bc, dag_blocks(T, T), f64 ? (void *)b : (void *)bf, DAG_COL_MAJOR, br);
    for (int i = 0; i < M * N; i++) c[i] = ref[i] = i % 5, cf[i] = (float)c[i];
    dag_array *C = dag_array_from_host(type, M, N, dag_blocks(T, T), f64 ? (void *)c : (void *)cf, DAG_COL_MAJOR, M);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int l = 0; l < K; l++) s += (ta ? a[l + i * ar] : a[i + l * ar]) * (tb ? b[j + l * br] : b[l + j * br]);
            ref[i + j * M] = 1.5 * s - 0.5 * ref[i + j * M];
        }
    static dag_trace_record rec[256];
    dag_trace_enable(1);
    dag_trace_clear();
    if (devices) {
        DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { CHECK_EQ_INT(dag_array_gemm(ta, tb, 1.5, A, B, -0.5, C), DAG_OK); }
    } else {
        CHECK_EQ_INT(dag_array_gemm(ta, tb, 1.5, A, B, -0.5, C), DAG_OK);
    }
    dag_trace_enable(0);
    size_t n = dag_trace_records(rec, 256);
    *device_kernels = 0;
    for (size_t i = 0; i < n && i < 256; i++) *device_kernels += rec[i].backend == DAG_OPENCL;
    dag_array_collect(C, f64 ? (void *)c : (void *)cf, DAG_COL_MAJOR, M);
    double err = 0;
    for (int i = 0; i < M * N; i++) err = fmax(err, fabs((f64 ? c[i] : (double)cf[i]) - ref[i]));
    dag_array_free(A), dag_array_free(B), dag_array_free(C);
    return err;
}

TEST(gemm_matches_a_plain_loop_for_every_transpose_on_ragged_tiles) {
    int on_devices = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            CHECK(gemm_error(DAG_F64, ta, tb, false, &on_devices) < 1e-12);
            CHECK(gemm_error(DAG_F32, ta, tb, false, &on_devices) < 1e-4);
            CHECK_EQ_INT(on_devices, 0);
        }
    /* shapes that do not conform are refused, naming the sizes (tilings that do not are re-tiled:
       tests/test_array_ops.c) */
    dag_array *x = dag_array_zeros(DAG_F64, 10, 10, dag_blocks(5, 5)), *y = dag_array_zeros(DAG_F64, 9, 10, dag_blocks(4, 4));
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_gemm(0, 0, 1, x, y, 0, x), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "do not conform") != NULL);
    dag_array_free(x), dag_array_free(y);
}

TEST(cholesky_reaches_a_residual_under_1e_12_on_square_and_ragged_tilings) {
    int sizes[3][2] = { { 256, 64 }, { 300, 64 }, { 97, 97 } };   /* square tiles, ragged edge, one tile */
    for (int s = 0; s < 3; s++) {
        int n = sizes[s][0], nb = sizes[s][1];
        double *a = malloc(sizeof(double) * n * n), *f = malloc(sizeof(double) * n * n);
        spd(a, n, 3u + (unsigned)s);
        dag_array *A = dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), a, DAG_COL_MAJOR, n);
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        dag_array_collect(A, f, DAG_COL_MAJOR, n);
        double r = cholesky_residual(a, f, n);
        printf("     n %d, tiles %d: residual %.2e\n", n, nb, r);
        CHECK(r < 1e-12);
        dag_array_free(A);
        free(a), free(f);
    }
}

TEST(a_matrix_that_is_not_positive_definite_fails_naming_the_tile_and_column) {
    enum { N = 200, NB = 50 };
    static double a[N * N];
    spd(a, N, 11);
    a[130 + 130 * N] = -1e6;   /* column 130 lies in tile 2 (rows 100..149) */
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_potrf(A), DAG_ERR_NOT_POSITIVE_DEFINITE);
    CHECK(strstr(last_error, "tile (2, 2), column 130") != NULL);
    if (!strstr(last_error, "tile (2, 2)")) printf("     got: %s\n", last_error);
    dag_array_free(A);
}

TEST(bad_arguments_are_refused_with_a_message) {
    last_error[0] = 0;
    CHECK(dag_array_zeros(DAG_F64, 0, 5, dag_blocks(2, 2)) == NULL);
    CHECK(strstr(last_error, "sizes must be positive") != NULL);
    CHECK(dag_array_zeros((dag_elem)99, 5, 5, dag_blocks(2, 2)) == NULL);
    dag_array *r = dag_array_zeros(DAG_F64, 10, 12, dag_blocks(5, 5));
    CHECK_EQ_INT(dag_array_potrf(r), DAG_ERR_INVALID_ARGUMENT);   /* not square */
    double out[10];
    CHECK_EQ_INT(dag_array_collect(r, out, DAG_COL_MAJOR, 3), DAG_ERR_INVALID_ARGUMENT);   /* ld under the rows */
    /* an ld whose offsets overflow: the copies wrote before the caller's buffer */
    double two[4] = { 1, 2, 3, 4 };
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_get_slice(r, 0, 2, 0, 2, two, INT64_MAX), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "would not fit in memory") != NULL);
    CHECK_EQ_INT(dag_array_put_slice(r, 0, 2, 0, 2, two, INT64_MAX / 4), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_collect(r, out, DAG_ROW_MAJOR, INT64_MAX / 8), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_array_from_host(DAG_F64, 2, 2, dag_blocks(2, 2), two, DAG_COL_MAJOR, INT64_MAX / 4) == NULL);
    CHECK(two[0] == 1 && two[3] == 4);
    CHECK_EQ_INT(dag_array_get_slice(r, 0, 2, 0, 2, two, 2), DAG_OK);   /* and a right one still works */
    CHECK(two[0] == 0 && two[3] == 0);
    CHECK_EQ_INT(dag_array_tile(r, 5, 0).id, 0);
    /* an array's tile is the array's: the program's unregister or discard of it is refused (the array was
       left broken for good, and its free said "unknown handle") */
    last_error[0] = 0;
    CHECK_EQ_INT(dag_data_unregister(dag_array_tile(r, 0, 0)), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "dag_array_free") != NULL);
    CHECK_EQ_INT(dag_data_discard(dag_array_tile(r, 1, 1)), DAG_ERR_INVALID_ARGUMENT);
    double total = -1;
    CHECK(dag_array_sum(r, &total) == DAG_OK && total == 0);
    last_error[0] = 0;
    CHECK(dag_vector_zeros(DAG_F64, 10, -3) == NULL && strstr(last_error, "sizes must be positive"));   /* (0: auto) */
    dag_array *v0 = dag_vector_zeros(DAG_F64, 10, 0);
    CHECK(v0 != NULL);
    dag_array_free(v0);
    dag_array *f = dag_array_zeros(DAG_F32, 4, 4, dag_blocks(2, 2));
    dag_array *i32 = dag_array_zeros(DAG_I32, 4, 4, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_potrf(i32), DAG_ERR_INVALID_ARGUMENT);   /* integers have no linear algebra */
    dag_array_free(i32);
    dag_array_free(r), dag_array_free(f);
}

/* A tile is a data handle like any other: a user task on it orders with
   the array operations. */
DAG_TASK(void, scale_tile, (double *, t), (int, n), (double, s)) {
    for (int i = 0; i < n; i++) t[i] *= s;
}
TEST(a_user_task_on_a_tile_orders_with_the_array_operations) {
    dag_array *a = dag_array_ones(DAG_F64, 8, 8, dag_blocks(4, 4));
    DAG_DATADEPS { dag_spawn(scale_tile, InOut(dag_array_tile(a, 1, 1)), Val(16), Val(3.0)); }
    double m[64];
    dag_array_collect(a, m, DAG_COL_MAJOR, 8);
    CHECK(m[4 + 4 * 8] == 3.0 && m[7 + 7 * 8] == 3.0 && m[0] == 1.0 && m[3 + 4 * 8] == 1.0);
    dag_array_free(a);
}

DAG_KERNEL(square, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] = x[DAG_INDEX()] * x[DAG_INDEX()];
)
DAG_KERNEL(square_i64, ((DAG_GLOBAL const int64_t *, x), (DAG_GLOBAL int64_t *, y)),
    y[DAG_INDEX()] = x[DAG_INDEX()] * x[DAG_INDEX()];
)

TEST(element_wise_operations_match_a_plain_loop_for_every_type_and_aliasing) {
    enum { R = 29, C = 31 };
    static double x[R * C], y[R * C], out[R * C];
    for (int i = 0; i < R * C; i++) x[i] = i % 11 - 5, y[i] = i % 7 + 1;
    dag_array *X = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 6), x, DAG_COL_MAJOR, R);
    dag_array *Y = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 6), y, DAG_COL_MAJOR, R);
    dag_array *Z = dag_array_zeros(DAG_F64, R, C, dag_blocks(8, 6));
    int bad = 0;
    CHECK_EQ_INT(dag_array_sub(X, Y, Z), DAG_OK);                  /* z = x - y */
    dag_array_collect(Z, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != x[i] - y[i];
    CHECK_EQ_INT(dag_array_sub(Z, Y, Z), DAG_OK);                  /* z = z - y, the output first */
    dag_array_collect(Z, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != x[i] - 2 * y[i];
    CHECK_EQ_INT(dag_array_sub(Y, Z, Z), DAG_OK);                  /* z = y - z, the output second */
    dag_array_collect(Z, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != 3 * y[i] - x[i];
    CHECK_EQ_INT(dag_array_add(X, X, Z), DAG_OK);
    CHECK_EQ_INT(dag_array_mul(Z, Y, Z), DAG_OK);                  /* z = 2x .* y */
    CHECK_EQ_INT(dag_array_axpy(-2.0, X, Z), DAG_OK);              /* z = 2xy - 2x */
    CHECK_EQ_INT(dag_array_scale(0.5, Z), DAG_OK);                 /* z = xy - x */
    dag_array_collect(Z, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != x[i] * y[i] - x[i];
    CHECK_EQ_INT(dag_array_map(square, X, Z), DAG_OK);
    CHECK_EQ_INT(dag_array_map(square, Z, Z), DAG_OK);             /* in place */
    dag_array_collect(Z, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != x[i] * x[i] * x[i] * x[i];
    CHECK_EQ_INT(bad, 0);
    /* integers and floats wrap and round in their own type */
    dag_array *Ai = dag_array_fill(DAG_I32, R, C, dag_blocks(8, 8), 7), *F = dag_array_fill(DAG_F32, R, C, dag_blocks(8, 8), 0.1);
    CHECK_EQ_INT(dag_array_mul(Ai, Ai, Ai), DAG_OK);
    CHECK_EQ_INT(dag_array_set(F, 0.25), DAG_OK);
    int32_t vi[R * C];
    float vf[R * C];
    dag_array_collect(Ai, vi, DAG_COL_MAJOR, R);
    dag_array_collect(F, vf, DAG_COL_MAJOR, R);
    bad = 0;
    for (int i = 0; i < R * C; i++) bad += vi[i] != 49 || vf[i] != 0.25f;
    CHECK_EQ_INT(bad, 0);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_add(X, Ai, Z), DAG_ERR_INVALID_ARGUMENT);   /* mixed types */
    CHECK(strstr(last_error, "one element type, shape and tiling") != NULL);
    /* a kernel of doubles given int64 elements is refused by name, as In() of an int64_t * would be (it read
       their bits as doubles and said DAG_OK); one of int64_t takes them */
    dag_array *i64 = dag_array_fill(DAG_I64, R, C, dag_blocks(8, 8), 3), *sq64 = dag_array_zeros(DAG_I64, R, C, dag_blocks(8, 8));
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_map(square, i64, sq64), DAG_ERR_ARG_TYPE);
    CHECK(strstr(last_error, "spawns in this region failed") != NULL);   /* after the spawn's words (the parameter's type) */
    CHECK_EQ_INT(dag_array_map(square_i64, i64, sq64), DAG_OK);
    double got = 0;
    CHECK(dag_array_get(sq64, R - 1, C - 1, &got) == DAG_OK && got == 9);
    dag_array_free(X), dag_array_free(Y), dag_array_free(Z), dag_array_free(Ai), dag_array_free(F);
    dag_array_free(i64), dag_array_free(sq64);
}

TEST(reductions_match_a_plain_loop_and_the_tree_covers_every_tile) {
    enum { R = 100, C = 37 };
    static double x[R * C], y[R * C];
    double sum = 0, dot = 0, sq = 0, mn = 1e30, mx = -1e30;
    for (int i = 0; i < R * C; i++) {
        x[i] = (i * 37 % 101) - 50.0, y[i] = (i % 9) * 0.5;
        sum += x[i], dot += x[i] * y[i], sq += x[i] * x[i];
        mn = x[i] < mn ? x[i] : mn, mx = x[i] > mx ? x[i] : mx;
    }
    int tilings[3][2] = { { 7, 5 }, { 100, 37 }, { 33, 2 } };   /* ragged, one tile, an odd count of tiles */
    for (int k = 0; k < 3; k++) {
        dag_blocks b = dag_blocks(tilings[k][0], tilings[k][1]);
        dag_array *X = dag_array_from_host(DAG_F64, R, C, b, x, DAG_COL_MAJOR, R);
        dag_array *Y = dag_array_from_host(DAG_F64, R, C, b, y, DAG_COL_MAJOR, R);
        double v = 0;
        CHECK_EQ_INT(dag_array_sum(X, &v), DAG_OK);
        CHECK(v == sum);
        CHECK_EQ_INT(dag_array_dot(X, Y, &v), DAG_OK);
        CHECK(v == dot);
        CHECK_EQ_INT(dag_array_norm2(X, &v), DAG_OK);
        CHECK(fabs(v - sqrt(sq)) < 1e-9);
        CHECK_EQ_INT(dag_array_min(X, &v), DAG_OK);
        CHECK(v == mn);
        CHECK_EQ_INT(dag_array_max(X, &v), DAG_OK);
        CHECK(v == mx);
        dag_array_free(X), dag_array_free(Y);
    }
}

TEST(copy_and_transpose_between_different_tilings_move_every_element) {
    enum { R = 45, C = 38 };
    static double x[R * C], out[R * C];
    for (int i = 0; i < R * C; i++) x[i] = i;
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 7), x, DAG_COL_MAJOR, R);
    dag_array *B = dag_array_zeros(DAG_F64, R, C, dag_blocks(13, 10));       /* other tile edges */
    dag_array *T = dag_array_zeros(DAG_F64, C, R, dag_blocks(6, 9));
    CHECK_EQ_INT(dag_array_copy(A, B), DAG_OK);
    CHECK_EQ_INT(dag_array_transpose(B, T), DAG_OK);
    int bad = 0;
    dag_array_collect(B, out, DAG_COL_MAJOR, R);
    for (int i = 0; i < R * C; i++) bad += out[i] != x[i];
    dag_array_collect(T, out, DAG_COL_MAJOR, C);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) bad += out[j + i * C] != x[i + j * R];
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(dag_array_copy(A, T), DAG_ERR_INVALID_ARGUMENT);   /* shapes differ */
    dag_array_free(A), dag_array_free(B), dag_array_free(T);
}

/* A well-conditioned triangular n x n matrix (column-major) */
/* A wrapped matrix's columns are ld apart: the rows between them hold this and must keep it. */
#define GAP 12345.5
static void wrap_fill(double *m, const double *a, int rows, int cols, int ld) {
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < ld; i++) m[i + j * ld] = i < rows ? a[i + j * rows] : GAP;
}
static int wrap_gaps_changed(const double *m, int rows, int cols, int ld) {
    int bad = 0;
    for (int j = 0; j < cols; j++)
        for (int i = rows; i < ld; i++) bad += m[i + j * ld] != GAP;
    return bad;
}
/* tasks of the trace with this name (on this backend; DAG_BACKEND_COUNT: on any) */
static size_t trace_count_on(dag_backend backend, const char *name) {
    static dag_trace_record rec[8192];
    size_t n = dag_trace_records(rec, 8192), count = 0;
    for (size_t i = 0; i < n && i < 8192; i++)
        count += !strcmp(rec[i].name, name) && (backend == DAG_BACKEND_COUNT || rec[i].backend == backend);
    return count;
}
static size_t trace_count(const char *name) { return trace_count_on(DAG_BACKEND_COUNT, name); }

TEST(a_wrapped_matrix_is_factorised_in_place_by_column_panels) {
    /* the last tile has 4 rows; panels of 3 tiles (48 rows: enough tasks for the suite's 2 workers) */
    enum { N = 100, NB = 16, LD = 107, CHUNK = 3 };
    static double a[N * N], m[LD * N], f[N * N];
    spd(a, N, 21);
    wrap_fill(m, a, N, N, LD);
    dag_array *A = dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), m, LD);
    CHECK(A != NULL);
    CHECK_EQ_INT(dag_array_tile_ld(A, 6, 2), LD);
    CHECK(dag_data_pointer(dag_array_tile(A, 1, 2)) == (void *)&m[16 + 32 * LD]);
    dag_trace_enable(1);
    dag_trace_clear();
    CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    dag_trace_enable(0);
    /* The blocks of columns are the tiles, but the first tile and the last two go in halves (16 = 8 + 8,
       16 = 8 + 8, 4 = 2 + 2). Below the diagonal the updates take as many whole blocks of rows as fit in
       CHUNK tiles' rows (48): one task per such group, per block column and step. */
    static const int edge[] = { 0, 8, 16, 32, 48, 64, 80, 88, 96, 98, 100 };
    enum { S = sizeof edge / sizeof edge[0] - 1 };
    size_t want = 0;
    for (int k = 0; k < S; k++)
        for (int j = k + 1; j < S; j++)
            for (int i = j + 1, i2; i < S; i = i2, want++)
                for (i2 = i + 1; i2 < S && edge[i2 + 1] - edge[i] <= CHUNK * NB; i2++) {}
    CHECK_EQ_INT(trace_count("gemm"), want);
    CHECK_EQ_INT(trace_count("potrf"), S);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) f[i + j * N] = m[i + j * LD];   /* the result is in place: no collect */
    double r = cholesky_residual(a, f, N);
    printf("     n %d in tiles of %d, ld %d: residual %.2e\n", N, NB, LD, r);
    CHECK(r < 1e-12);
    int upper = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < j; i++) upper += m[i + j * LD] != a[i + j * N];
    CHECK_EQ_INT(upper, 0);
    CHECK_EQ_INT(wrap_gaps_changed(m, N, N, LD), 0);
    dag_array_free(A);
    CHECK(m[0] == f[0]);   /* freeing leaves the matrix as it was */
    /* not positive definite: the same error, naming the tile and column; column 70 lies in tile 4 (rows
       64..79), column 90 in tile 5 (rows 80..95), in its second half */
    static const struct { int col; const char *says; } bad_at[] = { { 70, "tile (4, 4), column 70" },
                                                                     { 90, "tile (5, 5), column 90" } };
    for (int b = 0; b < 2; b++) {
        spd(a, N, 21);
        a[bad_at[b].col + bad_at[b].col * N] = -1e6;
        wrap_fill(m, a, N, N, LD);
        A = dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), m, LD);
        last_error[0] = 0;
        CHECK_EQ_INT(dag_array_potrf(A), DAG_ERR_NOT_POSITIVE_DEFINITE);
        CHECK(strstr(last_error, bad_at[b].says) != NULL);
        dag_array_free(A);
    }
    /* float, in place by panels too */
    static float af[N * N], mf[LD * N];
    spd(a, N, 22);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < LD; i++) mf[i + j * LD] = i < N ? (float)a[i + j * N] : (float)GAP;
    for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
    A = dag_array_wrap(DAG_F32, N, N, dag_blocks(NB, NB), mf, LD);
    CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    dag_array_free(A);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) f[i + j * N] = mf[i + j * LD], a[i + j * N] = af[i + j * N];
    r = cholesky_residual(a, f, N);
    printf("     float, n %d in tiles of %d, ld %d: residual %.2e\n", N, NB, LD, r);
    CHECK(r < 1e-5);
    int gaps = 0;
    for (int j = 0; j < N; j++)
        for (int i = N; i < LD; i++) gaps += mf[i + j * LD] != (float)GAP;
    CHECK_EQ_INT(gaps, 0);
    /* bad wraps */
    last_error[0] = 0;
    CHECK(dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), m, N - 1) == NULL);
    CHECK(strstr(last_error, "leading dimension") != NULL);
    CHECK(dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), NULL, N) == NULL);
}

TEST(operations_on_a_wrapped_matrix_equal_the_same_on_an_array_of_its_own) {
    enum { R = 45, C = 38, LD = 50, LDG = 41 };
    static double x[R * C], m[LD * C], out[R * C], g[LDG * C];
    for (int i = 0; i < R * C; i++) x[i] = i % 11 - 5;
    wrap_fill(m, x, R, C, LD);
    for (int i = 0; i < LDG * C; i++) g[i] = GAP;
    dag_array *X = dag_array_wrap(DAG_F64, R, C, dag_blocks(8, 7), m, LD);
    dag_array *Y = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 7), x, DAG_COL_MAJOR, R);
    dag_array *G = dag_array_wrap(DAG_F64, C, C, dag_blocks(7, 7), g, LDG);
    /* reductions: the same parts in the same order, so the same bits */
    double sx, sy, dx, dy, nx, ny;
    CHECK_EQ_INT(dag_array_sum(X, &sx), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(Y, &sy), DAG_OK);
    CHECK_EQ_INT(dag_array_dot(X, Y, &dx), DAG_OK);
    CHECK_EQ_INT(dag_array_dot(Y, Y, &dy), DAG_OK);
    CHECK_EQ_INT(dag_array_norm2(X, &nx), DAG_OK);
    CHECK_EQ_INT(dag_array_norm2(Y, &ny), DAG_OK);
    CHECK(sx == sy && dx == dy && nx == ny);
    /* gemm into a wrapped C: G = X^T Y, exact in small integers */
    CHECK_EQ_INT(dag_array_gemm(1, 0, 1.0, X, Y, 0.0, G), DAG_OK);
    int bad = 0;
    for (int j = 0; j < C; j++)
        for (int i = 0; i < C; i++) {
            double v = 0;
            for (int p = 0; p < R; p++) v += x[p + i * R] * x[p + j * R];
            bad += g[i + j * LDG] != v;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wrap_gaps_changed(g, C, C, LDG), 0);
    /* element-wise, with the other operand of its own tiles, and map (a launch per column of a view) */
    CHECK_EQ_INT(dag_array_add(X, Y, X), DAG_OK);          /* 2x */
    CHECK_EQ_INT(dag_array_scale(0.5, X), DAG_OK);         /* x */
    CHECK_EQ_INT(dag_array_axpy(1.0, Y, X), DAG_OK);       /* 2x */
    CHECK_EQ_INT(dag_array_map(square, X, X), DAG_OK);     /* 4x^2 */
    CHECK_EQ_INT(dag_array_map(square, Y, Y), DAG_OK);     /* x^2, contiguous */
    CHECK_EQ_INT(dag_array_sub(X, Y, X), DAG_OK);          /* 3x^2 */
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) bad += m[i + j * LD] != 3 * x[i + j * R] * x[i + j * R];
    CHECK_EQ_INT(bad, 0);
    /* copy and transpose out of and back into the view, across tilings */
    dag_array *T = dag_array_zeros(DAG_F64, C, R, dag_blocks(6, 9));
    CHECK_EQ_INT(dag_array_transpose(X, T), DAG_OK);
    CHECK_EQ_INT(dag_array_set(X, 0.0), DAG_OK);
    CHECK_EQ_INT(dag_array_transpose(T, X), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(X, out, DAG_COL_MAJOR, R), DAG_OK);
    for (int i = 0; i < R * C; i++) bad += out[i] != 3 * x[i] * x[i];
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wrap_gaps_changed(m, R, C, LD), 0);
    /* LU without pivoting: wrapped and not, the same kernels on the same values give the same bits */
    enum { N = 60, LDA = 64 };
    static double d[N * N], dm[LDA * N], lu[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) d[i + j * N] = (i == j ? 2.0 * N : 0.0) + (double)((i * 3 + j * 5) % 7) - 3.0;
    wrap_fill(dm, d, N, N, LDA);
    dag_array *D = dag_array_wrap(DAG_F64, N, N, dag_blocks(16, 16), dm, LDA);
    dag_array *E = dag_array_from_host(DAG_F64, N, N, dag_blocks(16, 16), d, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_getrf_nopiv(D), DAG_OK);
    CHECK_EQ_INT(dag_array_getrf_nopiv(E), DAG_OK);
    dag_array_collect(E, lu, DAG_COL_MAJOR, N);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) bad += dm[i + j * LDA] != lu[i + j * N];
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wrap_gaps_changed(dm, N, N, LDA), 0);
    dag_array_free(X), dag_array_free(Y), dag_array_free(G), dag_array_free(T), dag_array_free(D), dag_array_free(E);
}

static void triangle(double *t, int n, int upper) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            t[i + j * n] = i == j ? 4.0 + (i % 3) : ((upper ? i < j : i > j) ? ((i * 3 + j) % 7 - 3) * 0.05 : 0.0);
}

/* How far op(A) X (or X op(A)) is from alpha B, A n x n, X and B br x bc: the largest difference. */
static double trsm_error(const double *a, int n, const double *x, const double *b, int br, int bc, int right, int trans,
                         int unit, double alpha) {
    double err = 0;
    for (int j = 0; j < bc; j++)
        for (int i = 0; i < br; i++) {
            double s = 0;
            for (int p = 0; p < n; p++) {
                int r = right ? p : i, c = right ? j : p;   /* op(A)(r, c) */
                double op = trans ? a[c + r * n] : a[r + c * n];
                if (r == c && unit) op = 1.0;
                s += right ? x[i + p * br] * op : op * x[p + j * br];
            }
            err = fmax(err, fabs(s - alpha * b[i + j * br]));
        }
    return err;
}

TEST(syrk_and_trsm_match_plain_loops_for_every_side_triangle_and_transpose) {
    enum { N = 45, M = 29, T = 8 };
    static double a[N * N], b[N * N], x[N * N], ref[N * N];
    /* syrk: C = 2 A A^T + 0.5 C (lower), A N x M; and with trans A^T A from an M x N A */
    for (int t = 0; t < 2; t++) {
        int ar = t ? M : N, ac = t ? N : M;
        for (int i = 0; i < ar * ac; i++) a[i] = (i * 5 % 9) - 4.0;
        for (int i = 0; i < N * N; i++) b[i] = ref[i] = i % 3;
        dag_array *A = dag_array_from_host(DAG_F64, ar, ac, dag_blocks(T, T), a, DAG_COL_MAJOR, ar);
        dag_array *C = dag_array_from_host(DAG_F64, N, N, dag_blocks(T, T), b, DAG_COL_MAJOR, N);
        for (int j = 0; j < N; j++)
            for (int i = j; i < N; i++) {
                double s = 0;
                for (int l = 0; l < M; l++) s += t ? a[l + i * ar] * a[l + j * ar] : a[i + l * ar] * a[j + l * ar];
                ref[i + j * N] = 2 * s + 0.5 * ref[i + j * N];
            }
        CHECK_EQ_INT(dag_array_syrk(t, 2.0, A, 0.5, C), DAG_OK);
        dag_array_collect(C, x, DAG_COL_MAJOR, N);
        int bad = 0;
        for (int i = 0; i < N * N; i++) bad += x[i] != ref[i];   /* small integers: exact, upper triangle untouched */
        CHECK_EQ_INT(bad, 0);
        dag_array_free(A), dag_array_free(C);
    }
    /* trsm: solve, then multiply back and compare with alpha B */
    for (int right = 0; right < 2; right++)
        for (int upper = 0; upper < 2; upper++)
            for (int trans = 0; trans < 2; trans++) {
                int unit = upper ^ trans, br = right ? M : N, bc = right ? N : M;
                triangle(a, N, upper);
                for (int i = 0; i < br * bc; i++) b[i] = (i % 13) - 6.0;
                dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(T, T), a, DAG_COL_MAJOR, N);
                dag_array *B = dag_array_from_host(DAG_F64, br, bc, dag_blocks(T, T), b, DAG_COL_MAJOR, br);
                CHECK_EQ_INT(dag_array_trsm(right, upper, trans, unit, 1.5, A, B), DAG_OK);
                dag_array_collect(B, x, DAG_COL_MAJOR, br);
                double err = trsm_error(a, N, x, b, br, bc, right, trans, unit, 1.5);
                if (err >= 1e-12) printf("     trsm right %d upper %d trans %d unit %d: error %.2e\n", right, upper, trans, unit, err);
                CHECK(err < 1e-12);
                dag_array_free(A), dag_array_free(B);
            }
}

/* A triangle in one tile of 150, more than DAG__TRSM_LEAF rows (32): its solve goes by halves, mostly as gemm;
   every side, triangle, op and unit diagonal, double and float, with alpha */
TEST(a_triangle_bigger_than_the_solves_leaf_is_solved_by_halves_for_every_case) {
    enum { N = 150, M = 37 };
    static double a[N * N], b[N * M], x[N * M];
    static float af[N * N], bf[N * M];
    for (int c = 0; c < 32; c++) {
        int right = c & 1, upper = (c >> 1) & 1, trans = (c >> 2) & 1, unit = (c >> 3) & 1, single = c >> 4;
        int br = right ? M : N, bc = right ? N : M;
        triangle(a, N, upper);
        for (int i = 0; i < br * bc; i++) b[i] = ((i * 7) % 13) - 6.0;
        for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
        for (int i = 0; i < br * bc; i++) bf[i] = (float)b[i];
        dag_elem t = single ? DAG_F32 : DAG_F64;
        dag_array *A = dag_array_from_host(t, N, N, dag_blocks(N, N), single ? (void *)af : (void *)a, DAG_COL_MAJOR, N);
        dag_array *B = dag_array_from_host(t, br, bc, dag_blocks(br, bc), single ? (void *)bf : (void *)b, DAG_COL_MAJOR, br);
        CHECK_EQ_INT(dag_array_trsm(right, upper, trans, unit, 1.5, A, B), DAG_OK);
        if (single) {
            dag_array_collect(B, bf, DAG_COL_MAJOR, br);
            for (int i = 0; i < br * bc; i++) x[i] = bf[i];
        } else {
            dag_array_collect(B, x, DAG_COL_MAJOR, br);
        }
        double err = trsm_error(a, N, x, b, br, bc, right, trans, unit, 1.5);
        if (err >= (single ? 1e-3 : 1e-11))
            printf("     trsm right %d upper %d trans %d unit %d float %d: error %.2e\n", right, upper, trans, unit, single, err);
        CHECK(err < (single ? 1e-3 : 1e-11));
        dag_array_free(A), dag_array_free(B);
    }
    /* alpha 0: B = 0 without reading A (BLAS's rule), an infinity in the triangle included */
    triangle(a, N, 0);
    a[100 + 10 * N] = INFINITY;
    for (int i = 0; i < N * M; i++) b[i] = 1.0;
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(N, N), a, DAG_COL_MAJOR, N);
    dag_array *B = dag_array_from_host(DAG_F64, N, M, dag_blocks(N, M), b, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_trsm(0, 0, 0, 0, 0.0, A, B), DAG_OK);
    dag_array_collect(B, x, DAG_COL_MAJOR, N);
    int nonzero = 0;
    for (int i = 0; i < N * M; i++) nonzero += x[i] != 0.0;
    CHECK_EQ_INT(nonzero, 0);
    dag_array_free(A), dag_array_free(B);
}

TEST(lu_without_pivoting_posv_and_float_cholesky_reach_their_residuals) {
    enum { N = 150, NB = 32, K = 3 };
    static double a[N * N], f[N * N], b[N * K], x[N * K];
    /* LU of a diagonally dominant matrix: ||A - L U|| / ||A|| */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) a[i + j * N] = i == j ? N : ((i * 7 + j * 3) % 11 - 5) * 0.1;
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_getrf_nopiv(A), DAG_OK);
    dag_array_collect(A, f, DAG_COL_MAJOR, N);
    double num = 0, den = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int p = 0; p <= (i < j ? i : j); p++) s += (p == i ? 1.0 : f[i + p * N]) * f[p + j * N];
            num += (a[i + j * N] - s) * (a[i + j * N] - s), den += a[i + j * N] * a[i + j * N];
        }
    CHECK(sqrt(num / den) < 1e-12);
    dag_array_free(A);
    /* posv: A X = B, checked as ||A X - B|| / ||B|| */
    spd(a, N, 21);
    for (int i = 0; i < N * K; i++) b[i] = (i % 5) - 2.0;
    A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_array *B = dag_array_from_host(DAG_F64, N, K, dag_blocks(NB, NB), b, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_posv(A, B), DAG_OK);
    dag_array_collect(B, x, DAG_COL_MAJOR, N);
    num = den = 0;
    for (int c = 0; c < K; c++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int p = 0; p < N; p++) s += a[i + p * N] * x[p + c * N];
            num += (s - b[i + c * N]) * (s - b[i + c * N]), den += b[i + c * N] * b[i + c * N];
        }
    CHECK(sqrt(num / den) < 1e-12);
    dag_array_free(A), dag_array_free(B);
    /* float Cholesky: residual under 1e-5 */
    static float af[N * N], ff[N * N];
    for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
    dag_array *F = dag_array_from_host(DAG_F32, N, N, dag_blocks(NB, NB), af, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_potrf(F), DAG_OK);
    dag_array_collect(F, ff, DAG_COL_MAJOR, N);
    num = den = 0;
    for (int j = 0; j < N; j++)
        for (int i = j; i < N; i++) {
            double s = 0;
            for (int p = 0; p <= j; p++) s += (double)ff[i + p * N] * ff[j + p * N];
            num += (af[i + j * N] - s) * (af[i + j * N] - s), den += (double)af[i + j * N] * af[i + j * N];
        }
    printf("     float Cholesky residual %.2e\n", sqrt(num / den));
    CHECK(sqrt(num / den) < 1e-5);
    dag_array_free(F);
    /* a zero pivot names its tile and column */
    for (int i = 0; i < N * N; i++) a[i] = 0;
    for (int i = 0; i < N; i++) a[i + i * N] = i == 70 ? 0.0 : 1.0;
    A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_getrf_nopiv(A), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "tile (2, 2), column 70") != NULL);
    dag_array_free(A);
}

/* Under a scope naming every OpenCL device, the kernels of gemm and potrf
   go block-cyclically to the devices (tile (i, j) on device (i + j) mod
   count), the rest runs on the CPU, and the results are the CPU's. */
TEST(a_scope_naming_devices_spreads_the_tiles_kernels_over_them) {
    int devices = dag_device_count(DAG_OPENCL);
    if (devices < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { N = 192, NB = 32 };
    static double a[N * N], f[N * N], x[N * N], y[N * N];
    spd(a, N, 8);
    for (int i = 0; i < N * N; i++) x[i] = (i % 7) - 3.0;
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_array *X = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), x, DAG_COL_MAJOR, N);
    dag_array *Y = dag_array_zeros(DAG_F64, N, N, dag_blocks(NB, NB));
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
        CHECK_EQ_INT(dag_array_gemm(0, 1, 1.0, X, X, 0.0, Y), DAG_OK);   /* Y = X X^T */
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        CHECK_EQ_INT(dag_array_map(square, X, X), DAG_OK);
        CHECK_EQ_INT(dag_array_scale(2.0, X), DAG_OK);                    /* element-wise kernels on the devices */
        double sum = 0;
        CHECK_EQ_INT(dag_array_sum(X, &sum), DAG_OK);                     /* a CPU task under a device scope */
        double want = 0;
        for (int i = 0; i < N * N; i++) want += 2 * x[i] * x[i];
        CHECK(sum == want);
    }
    dag_trace_enable(0);
    static dag_trace_record rec[4096];
    size_t n = dag_trace_records(rec, 4096);
    int on[8] = { 0 }, cpu = 0;
    for (size_t i = 0; i < n && i < 4096; i++) {
        if (rec[i].backend == DAG_OPENCL && rec[i].processor >= 1 && rec[i].processor <= 8) on[rec[i].processor - 1]++;
        if (rec[i].backend == DAG_CPU) cpu++;
    }
    for (int d = 0; d < devices && d < 8; d++) CHECK(on[d] > 0);   /* every device got tiles */
    CHECK(cpu > 0);                                                  /* the diagonal tiles, the scaling */
    printf("     %d devices: kernels per device %d %d %d, CPU tasks %d\n", devices, on[0], on[1], on[2], cpu);
    dag_array_collect(Y, y, DAG_COL_MAJOR, N);
    double err = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int l = 0; l < N; l++) s += x[i + l * N] * x[j + l * N];
            err = fmax(err, fabs(y[i + j * N] - s));
        }
    CHECK(err < 1e-9);
    dag_array_collect(A, f, DAG_COL_MAJOR, N);
    double r = cholesky_residual(a, f, N);
    printf("     Cholesky on the devices: residual %.2e\n", r);
    CHECK(r < 1e-12);
    dag_array_collect(X, y, DAG_COL_MAJOR, N);
    int bad = 0;
    for (int i = 0; i < N * N; i++) bad += y[i] != 2 * x[i] * x[i];
    CHECK_EQ_INT(bad, 0);
    dag_array_free(A), dag_array_free(X), dag_array_free(Y);
    /* float: dag_sgemm and the float panel and syrk kernels */
    static float af[N * N], ff[N * N];
    for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
    dag_array *F = dag_array_from_host(DAG_F32, N, N, dag_blocks(NB, NB), af, DAG_COL_MAJOR, N);
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { CHECK_EQ_INT(dag_array_potrf(F), DAG_OK); }
    dag_trace_enable(0);
    n = dag_trace_records(rec, 4096);
    int kernels = 0;
    for (size_t i = 0; i < n && i < 4096; i++) kernels += rec[i].backend == DAG_OPENCL;
    CHECK(kernels > 0);
    dag_array_collect(F, ff, DAG_COL_MAJOR, N);
    double num = 0, den = 0;
    for (int j = 0; j < N; j++)
        for (int i = j; i < N; i++) {
            double s = 0;
            for (int p = 0; p <= j; p++) s += (double)ff[i + p * N] * ff[j + p * N];
            num += (af[i + j * N] - s) * (af[i + j * N] - s), den += (double)af[i + j * N] * af[i + j * N];
        }
    printf("     float Cholesky on the devices: residual %.2e, %d kernels there\n", sqrt(num / den), kernels);
    CHECK(sqrt(num / den) < 1e-5);
    dag_array_free(F);
}

/* The element-wise operations on devices, for every type, with aliasing. */
TEST(element_wise_operations_run_on_the_devices_for_every_type) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { R = 40, C = 24 };
    dag_elem types[4] = { DAG_F64, DAG_F32, DAG_I32, DAG_I64 };
    for (int k = 0; k < 4; k++) {
        dag_array *X = dag_array_fill(types[k], R, C, dag_blocks(8, 8), 3), *Y = dag_array_fill(types[k], R, C, dag_blocks(8, 8), 5);
        dag_array *Z = dag_array_zeros(types[k], R, C, dag_blocks(8, 8));
        dag_trace_enable(1);
        dag_trace_clear();
        DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
            CHECK_EQ_INT(dag_array_sub(X, Y, Z), DAG_OK);   /* -2 */
            CHECK_EQ_INT(dag_array_sub(Y, Z, Z), DAG_OK);   /* 5 - -2 = 7 */
            CHECK_EQ_INT(dag_array_mul(Z, X, Z), DAG_OK);   /* 21 */
            CHECK_EQ_INT(dag_array_axpy(2.0, Y, Z), DAG_OK);   /* 31 */
            CHECK_EQ_INT(dag_array_add(Z, Z, Z), DAG_OK);   /* 62 */
            CHECK_EQ_INT(dag_array_scale(0.5, Z), DAG_OK);   /* 31 */
            CHECK_EQ_INT(dag_array_set(X, 4), DAG_OK);
        }
        dag_trace_enable(0);
        static dag_trace_record rec[2048];
        size_t n = dag_trace_records(rec, 2048), on_devices = 0;
        for (size_t i = 0; i < n && i < 2048; i++) on_devices += rec[i].backend == DAG_OPENCL;
        CHECK(on_devices > 0);
        double mn = 0, mx = 0, x4 = 0;
        CHECK_EQ_INT(dag_array_min(Z, &mn), DAG_OK);
        CHECK_EQ_INT(dag_array_max(Z, &mx), DAG_OK);
        CHECK_EQ_INT(dag_array_max(X, &x4), DAG_OK);
        CHECK(mn == 31 && mx == 31 && x4 == 4);
        dag_array_free(X), dag_array_free(Y), dag_array_free(Z);
    }
}

/* Every array operation under a scope naming every OpenCL device gives
   the CPU's results: copy and transpose on the devices, the others on the
   CPU tasks such a scope keeps for them. */
TEST(every_operation_under_a_device_scope_gives_the_cpus_results) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { R = 45, C = 38, N = 64, NB = 16 };
    static double x[R * C], out[R * C], a[N * N], b[N * 4], sol[N * 4];
    for (int i = 0; i < R * C; i++) x[i] = i;
    spd(a, N, 4);
    for (int i = 0; i < N * 4; i++) b[i] = i % 5 - 2.0;
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 7), x, DAG_COL_MAJOR, R);
    dag_array *B = dag_array_zeros(DAG_F64, R, C, dag_blocks(13, 10));
    dag_array *T = dag_array_zeros(DAG_F64, C, R, dag_blocks(6, 9));
    dag_array *M = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_array *S = dag_array_from_host(DAG_F64, N, 4, dag_blocks(NB, NB), b, DAG_COL_MAJOR, N);
    double sum = 0, dot = 0, norm = 0, mn = 1;
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
        CHECK_EQ_INT(dag_array_copy(A, B), DAG_OK);
        CHECK_EQ_INT(dag_array_transpose(B, T), DAG_OK);
        CHECK_EQ_INT(dag_array_sum(T, &sum), DAG_OK);
        CHECK_EQ_INT(dag_array_dot(T, T, &dot), DAG_OK);
        CHECK_EQ_INT(dag_array_norm2(T, &norm), DAG_OK);
        CHECK_EQ_INT(dag_array_min(T, &mn), DAG_OK);
        CHECK_EQ_INT(dag_array_posv(M, S), DAG_OK);   /* potrf on the devices, the solves on the CPU */
    }
    dag_trace_enable(0);
    static dag_trace_record rec[4096];
    size_t n = dag_trace_records(rec, 4096), copies = 0, reductions = 0;
    for (size_t i = 0; i < n && i < 4096; i++) {
        copies += rec[i].backend == DAG_OPENCL && !strcmp(rec[i].name, "copy");
        reductions += rec[i].backend == DAG_OPENCL && !strcmp(rec[i].name, "reduce");
    }
    CHECK(copies > 0 && reductions > 0);
    double sq = 0;
    for (int i = 0; i < R * C; i++) sq += x[i] * x[i];
    CHECK(dot == sq && fabs(norm - sqrt(sq)) < 1e-6 * sqrt(sq) && mn == 0);
    int bad = 0;
    dag_array_collect(T, out, DAG_COL_MAJOR, C);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) bad += out[j + i * C] != x[i + j * R];
    CHECK_EQ_INT(bad, 0);
    CHECK(sum == (double)(R * C - 1) * (R * C) / 2);
    dag_array_collect(S, sol, DAG_COL_MAJOR, N);
    double err = 0;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < N; i++) {
            double v = 0;
            for (int p = 0; p < N; p++) v += a[i + p * N] * sol[p + c * N];
            err = fmax(err, fabs(v - b[i + c * N]));
        }
    CHECK(err < 1e-10);
    dag_array_free(A), dag_array_free(B), dag_array_free(T), dag_array_free(M), dag_array_free(S);
}

/* A wrapped matrix's tiles move as 2-D spans (rectangular copies): the devices' kernels see its ld. */
/* bytes in buffers on the OpenCL devices, in use or pooled */
static size_t device_bytes_held(void) {
    size_t bytes = 0;
    for (int d = 1; d <= dag_device_count(DAG_OPENCL); d++) {
        dag_memory_info m;
        if (dag_memory_stats(DAG_OPENCL, d, &m) == DAG_OK) bytes += m.used + m.pool;
    }
    return bytes;
}

TEST(a_wrapped_matrix_under_a_device_scope_gives_the_cpus_results) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { N = 64, NB = 16, LD = 70 };
    static double a[N * N], m[LD * N], f[N * N], x[N * N], y[LD * N];
    spd(a, N, 8);
    wrap_fill(m, a, N, N, LD);
    for (int i = 0; i < N * N; i++) x[i] = i % 9 - 4;
    wrap_fill(y, x, N, N, LD);
    dag_array *A = dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), m, LD);
    dag_array *Y = dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), y, LD);
    dag_array *X = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), x, DAG_COL_MAJOR, N);
    double sum = 0, dot = 0;
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
        CHECK_EQ_INT(dag_array_axpy(2.0, X, Y), DAG_OK);   /* y = 3x */
        CHECK_EQ_INT(dag_array_sum(Y, &sum), DAG_OK);
        CHECK_EQ_INT(dag_array_dot(X, Y, &dot), DAG_OK);
    }
    /* Devices hold a wrapped tile's columns packed: 2 KiB, not the 8.5 KiB from its first element to its
       last. The factorisation's device memory is at most its 10 tiles and 3 inverses on every device. */
    size_t held = device_bytes_held();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    held = device_bytes_held() - held;
    printf("     wrapped Cholesky: %zu bytes more on the devices\n", held);
    CHECK(held <= (size_t)(13 * dag_device_count(DAG_OPENCL) * NB * NB) * sizeof(double));
    dag_trace_enable(0);
    CHECK(trace_count_on(DAG_OPENCL, "gemm") + trace_count_on(DAG_OPENCL, "trsm") > 0);   /* the devices did the work */
    double want_sum = 0, want_dot = 0;
    int bad = 0;
    for (int i = 0; i < N * N; i++) want_sum += 3 * x[i], want_dot += 3 * x[i] * x[i];
    CHECK(sum == want_sum && dot == want_dot);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) bad += y[i + j * LD] != 3 * x[i + j * N];
    CHECK_EQ_INT(bad, 0);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) f[i + j * N] = m[i + j * LD];
    double r = cholesky_residual(a, f, N);
    printf("     wrapped, on the devices: residual %.2e\n", r);
    CHECK(r < 1e-12);
    CHECK_EQ_INT(wrap_gaps_changed(m, N, N, LD) + wrap_gaps_changed(y, N, N, LD), 0);
    dag_array_free(A), dag_array_free(Y), dag_array_free(X);
}

/* fill and rand made on the devices give the CPU's bits. */
TEST(constructors_on_the_devices_give_the_cpus_values_bit_for_bit) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { R = 50, C = 33 };
    static double cpu[R * C], dev[R * C];
    static float cpuf[R * C], devf[R * C];
    int64_t filled[R * C];
    dag_array *a = dag_array_rand(DAG_F64, R, C, dag_blocks(16, 16), 77), *f = dag_array_rand(DAG_F32, R, C, dag_blocks(16, 16), 78);
    dag_array *b = NULL, *g = NULL, *h = NULL;
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
        b = dag_array_rand(DAG_F64, R, C, dag_blocks(7, 9), 77);   /* another tiling too */
        g = dag_array_rand(DAG_F32, R, C, dag_blocks(16, 16), 78);
        h = dag_array_fill(DAG_I64, R, C, dag_blocks(16, 16), -3);
    }
    dag_trace_enable(0);
    static dag_trace_record rec[1024];
    size_t n = dag_trace_records(rec, 1024), on = 0;
    for (size_t i = 0; i < n && i < 1024; i++) on += rec[i].backend == DAG_OPENCL;
    CHECK(on > 0 && b && g && h);
    dag_array_collect(a, cpu, DAG_COL_MAJOR, R), dag_array_collect(b, dev, DAG_COL_MAJOR, R);
    dag_array_collect(f, cpuf, DAG_COL_MAJOR, R), dag_array_collect(g, devf, DAG_COL_MAJOR, R);
    dag_array_collect(h, filled, DAG_COL_MAJOR, R);
    CHECK(memcmp(cpu, dev, sizeof cpu) == 0);
    CHECK(memcmp(cpuf, devf, sizeof cpuf) == 0);
    int bad = 0;
    for (int i = 0; i < R * C; i++) bad += filled[i] != -3;
    CHECK_EQ_INT(bad, 0);
    dag_array_free(a), dag_array_free(b), dag_array_free(f), dag_array_free(g), dag_array_free(h);
}

/* syrk, every trsm variant and LU on the devices (their kernels) equal the CPU's run. */
TEST(syrk_trsm_and_lu_on_the_devices_equal_the_cpus) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { N = 48, M = 20, T = 16 };
    static double a[N * N], b[N * N], cpu[N * N], dev[N * N];
    dag_scope devices = dag_scope(.opencl.all = 1);
    int bad = 0, device_tasks = 0;
    static dag_trace_record rec[4096];
    for (int variant = 0; variant < 11; variant++) {
        int count = N * N;   /* elements of the result */
        for (int pass = 0; pass < 2; pass++) {   /* 0: the CPU, 1: the devices */
            dag_array *A = NULL, *B = NULL;
            int rows = N, cols = N;
            if (variant < 8) {   /* trsm: right, upper, trans from the bits */
                int right = variant & 1, upper = (variant >> 1) & 1, trans = (variant >> 2) & 1;
                rows = right ? M : N, cols = right ? N : M;
                triangle(a, N, upper);
                for (int i = 0; i < rows * cols; i++) b[i] = (i % 11) - 5.0;
                A = dag_array_from_host(DAG_F64, N, N, dag_blocks(T, T), a, DAG_COL_MAJOR, N);
                B = dag_array_from_host(DAG_F64, rows, cols, dag_blocks(T, T), b, DAG_COL_MAJOR, rows);
                dag_trace_enable(pass);
                dag_trace_clear();
                DAG_WITH_OPTIONS(.scope = pass ? devices : dag_scope(.all_threads = 1)) {
                    CHECK_EQ_INT(dag_array_trsm(right, upper, trans, upper ^ trans, 0.5, A, B), DAG_OK);
                }
            } else if (variant < 10) {   /* syrk, both ways */
                int trans = variant - 8, ar = trans ? M : N, ac = trans ? N : M;
                for (int i = 0; i < ar * ac; i++) a[i] = (i * 5 % 9) - 4.0;
                for (int i = 0; i < N * N; i++) b[i] = i % 3;
                A = dag_array_from_host(DAG_F64, ar, ac, dag_blocks(T, T), a, DAG_COL_MAJOR, ar);
                B = dag_array_from_host(DAG_F64, N, N, dag_blocks(T, T), b, DAG_COL_MAJOR, N);
                dag_trace_enable(pass);
                dag_trace_clear();
                DAG_WITH_OPTIONS(.scope = pass ? devices : dag_scope(.all_threads = 1)) {
                    CHECK_EQ_INT(dag_array_syrk(trans, 2.0, A, 0.5, B), DAG_OK);
                }
            } else {   /* LU without pivoting */
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < N; i++) b[i + j * N] = i == j ? N : ((i * 7 + j * 3) % 11 - 5) * 0.1;
                B = dag_array_from_host(DAG_F64, N, N, dag_blocks(T, T), b, DAG_COL_MAJOR, N);
                dag_trace_enable(pass);
                dag_trace_clear();
                DAG_WITH_OPTIONS(.scope = pass ? devices : dag_scope(.all_threads = 1)) {
                    CHECK_EQ_INT(dag_array_getrf_nopiv(B), DAG_OK);
                }
            }
            dag_trace_enable(0);
            size_t n = dag_trace_records(rec, 4096);
            for (size_t i = 0; pass && i < n && i < 4096; i++) device_tasks += rec[i].backend == DAG_OPENCL;
            dag_array_collect(B, pass ? dev : cpu, DAG_COL_MAJOR, rows);
            count = rows * cols;
            dag_array_free(A), dag_array_free(B);
        }
        for (int i = 0; i < count; i++) bad += fabs(cpu[i] - dev[i]) > 1e-12 * (1 + fabs(cpu[i]));
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(device_tasks > 0);
    printf("     %d kernels on the devices\n", device_tasks);
}

/* On OpenCL devices dag_dgemm and dag_sgemm run as CLBlast's routines
   where libclblast.so.1 loads (dag_blas.h's dag_library_kernel records),
   and as the kernel text with dag_desc.no_library_kernels: the log says
   which, and the loop's results agree either way. */
static char routines_seen[512];
static void routine_logger(dag_log_level level, int item, const char *msg, void *user) {
    logger(level, item, msg, user);
    if (strstr(msg, " runs as ") && strlen(routines_seen) + strlen(msg) + 2 < sizeof routines_seen)
        strcat(strcat(routines_seen, msg), "\n");
}
TEST(gemm_on_the_devices_runs_through_clblast_or_the_kernel_text_alike) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    void *lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    bool clblast = lib != NULL;
    if (lib) dlclose(lib);
    for (int text = 0; text < 2; text++) {
        dag_shutdown();
        routines_seen[0] = 0;
        dag_setup(&(dag_desc){ .num_threads = 2, .logger = { routine_logger, NULL }, .log_level = DAG_LOG_INFO,
                               .no_library_kernels = text });
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                int on_devices = 0;
                CHECK(gemm_error(DAG_F64, ta, tb, true, &on_devices) < 1e-12);
                CHECK(on_devices > 0);
                CHECK(gemm_error(DAG_F32, ta, tb, true, &on_devices) < 1e-4);
                CHECK(on_devices > 0);
            }
        printf("     %s: %s", text ? "no_library_kernels" : "default", routines_seen[0] ? routines_seen : "kernel text\n");
        CHECK((strstr(routines_seen, "'dag_dgemm' runs as CLBlastDgemm") != NULL) == (clblast && !text));
        CHECK((strstr(routines_seen, "'dag_sgemm' runs as CLBlastSgemm") != NULL) == (clblast && !text));
    }
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
}

/* dag_blas.h's tile kernels launched by hand on the CPU, at BLAS's edges: alpha 0 reads neither A nor
   B (a NaN there leaves C = beta C; trsm and trmm set B to 0), and a launch range below 0 (a negative
   size, cast to size_t by DAG_LAUNCH) is refused at the spawn, never run out of bounds. */
TEST(blas_kernels_follow_blas_at_alpha_0_and_refuse_a_negative_range) {
    double nan = NAN, inf = INFINITY;
    double a[4] = { nan, 1, inf, 2 }, b[4] = { 1, nan, 3, inf }, c[4] = { 1, 2, 3, 4 };
    int m = 2, n = 2, k = 2, zero = 0, one = 1;
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(dag_dgemm, m * n), Val(zero), Val(zero), Val(m), Val(n), Val(k), Val(0.0), In(a, 4), Val(m),
                  In(b, 4), Val(k), Val(2.0), InOut(c, 4), Val(m));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK(c[0] == 2 && c[1] == 4 && c[2] == 6 && c[3] == 8);
    double s[4] = { 1, 2, 3, 4 };
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(dag_dsyrk, n * n), Val(zero), Val(zero), Val(n), Val(k), Val(0.0), In(a, 4), Val(n), Val(1.0),
                  InOut(s, 4), Val(n));
    }
    CHECK(s[0] == 1 && s[1] == 2 && s[2] == 3 && s[3] == 4);
    double t[2] = { 2, 0 }, bs[4] = { nan, inf, 1, -inf }, bm[4] = { nan, inf, 1, -inf };
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(dag_dtrsm, n), Val(zero), Val(zero), Val(zero), Val(zero), Val(m), Val(n), Val(0.0),
                  In(a, 4), Val(m), InOut(bs, 4), Val(m));
        dag_spawn(DAG_LAUNCH(dag_dtrmm, n), Val(zero), Val(one), Val(zero), Val(zero), Val(m), Val(n), Val(0.0),
                  In(t, 2), Val(1), InOut(bm, 4), Val(m));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    for (int i = 0; i < 4; i++) CHECK(bs[i] == 0 && bm[i] == 0);
    int neg = -2;
    last_error[0] = 0;
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(dag_dgemm, neg * n), Val(zero), Val(zero), Val(neg), Val(n), Val(k), Val(1.0), In(a, 4),
                  Val(m), In(b, 4), Val(k), Val(0.0), InOut(c, 4), Val(m));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "launch range is below 0") != NULL);
    CHECK(c[0] == 2 && c[3] == 8);
    DAG_DATADEPS {   /* both below 0: a range above 0, and nothing written */
        dag_spawn(DAG_LAUNCH(dag_dgemm, neg * neg), Val(zero), Val(zero), Val(neg), Val(neg), Val(k), Val(1.0), In(a, 4),
                  Val(m), In(b, 4), Val(k), Val(0.0), InOut(c, 4), Val(m));
    }
    CHECK(c[0] == 2 && c[1] == 4 && c[2] == 6 && c[3] == 8);
}

/* An array made before a dag_shutdown and used after the next dag_setup: its tiles' spans went with the
   shutdown, so an operation on it fails naming that (never touching an array of the new set-up whose
   handles look alike), its out value untouched, and freeing it frees its memory without a word. */
static int errors_logged, earlier_set_up_named;
static void counting_logger(dag_log_level level, int item, const char *msg, void *user) {
    logger(level, item, msg, user);
    if (level == DAG_LOG_ERROR) errors_logged++;
    if (level == DAG_LOG_ERROR && strstr(msg, "from an earlier set-up")) earlier_set_up_named++;
}
TEST(an_array_of_an_earlier_set_up_is_refused_by_name_and_freed_without_a_word) {
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { counting_logger, NULL } });
    dag_array *old = dag_array_ones(DAG_F64, 6, 6, dag_blocks(3, 3));
    dag_data stale = dag_data_register((double[4]){ 0 }, 4, sizeof(double));
    dag_shutdown();
    last_error[0] = 0;   /* no array while shut down, said as such (it said "out of memory") */
    CHECK(dag_array_zeros(DAG_F64, 4, 4, dag_blocks(2, 2)) == NULL && strstr(last_error, "shut down"));
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { counting_logger, NULL } });
    dag_array *fresh = dag_array_ones(DAG_F64, 6, 6, dag_blocks(3, 3));
    double s = -1;
    earlier_set_up_named = 0;
    CHECK(dag_array_sum(old, &s) != DAG_OK);
    CHECK(earlier_set_up_named > 0);
    CHECK(s == -1);   /* untouched */
    CHECK_EQ_INT(dag_array_scale(3, old) != DAG_OK, 1);
    errors_logged = 0;
    dag_array_free(old);
    CHECK_EQ_INT(errors_logged, 0);
    CHECK_EQ_INT(dag_data_unregister(stale), DAG_ERR_STALE_HANDLE);
    CHECK(strstr(last_error, "earlier set-up") != NULL);
    CHECK_EQ_INT(dag_array_sum(fresh, &s), DAG_OK);
    CHECK(s == 36);   /* the new array was not scaled, nor let go */
    errors_logged = 0;
    dag_array_free(fresh);
    CHECK_EQ_INT(errors_logged, 0);
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
}

/* A matrix three times a device's capped memory still factorises: the
   device layer evicts tiles (written back first when only the device
   holds them) and brings them again. */
TEST(an_array_bigger_than_the_devices_capped_memory_still_factorises) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { N = 256, NB = 32 };   /* 512 KiB of matrix; each device may hold 160 KiB */
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL }, .device_memory_limit = 160 << 10 });
    static double a[N * N], f[N * N];
    spd(a, N, 12);
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.one = 1)) { CHECK_EQ_INT(dag_array_potrf(A), DAG_OK); }
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(DAG_OPENCL, 1, &m), DAG_OK);
    printf("     device 1: %llu evictions, %llu bytes in, cap %zu\n", (unsigned long long)m.evictions,
           (unsigned long long)m.bytes_to_device, m.total);
    CHECK(m.evictions > 0);
    dag_array_collect(A, f, DAG_COL_MAJOR, N);
    CHECK(cholesky_residual(a, f, N) < 1e-12);
    dag_array_free(A);
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
}

/* The trace of a factorisation as a Gantt chart: a bar per task, a row per
   worker, a legend entry per task name. */
TEST(the_trace_of_a_factorisation_writes_a_gantt_chart_with_a_bar_per_task) {
    enum { N = 128, NB = 32 };
    static double a[N * N];
    spd(a, N, 5);
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_trace_enable(1);
    dag_trace_clear();
    CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    dag_trace_enable(0);
    size_t tasks = dag_trace_records(NULL, 0);
    char path[] = "/tmp/dag_test_gantt_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_EQ_INT(dag_trace_write_svg(path), DAG_OK);
    FILE *f = fopen(path, "r");
    static char text[1 << 20];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[len] = 0;
    if (f) fclose(f);
    remove(path);
    size_t bars = 0;
    for (const char *p = text; (p = strstr(p, "<rect")) != NULL; p++) bars++;
    CHECK(tasks == 4 + 6 + 6 + 4);   /* 4 potrf, 6 trsm, 6 syrk, 4 gemm */
    CHECK(bars >= tasks);                 /* a bar per task, and the legend's squares */
    CHECK(strstr(text, "worker 2") != NULL && strstr(text, "</svg>") != NULL);
    /* the operations' names, on bars wide enough and in the legend, never the internal tasks' */
    CHECK(strstr(text, ">potrf<") != NULL && strstr(text, ">gemm<") != NULL && strstr(text, "dag__") == NULL);
    CHECK(strstr(text, ">0 us<") != NULL || strstr(text, ">0 ms<") != NULL);   /* a time axis from 0 */
    size_t ticks = 0;
    for (const char *p = text; (p = strstr(p, "text-anchor=\"middle\"")) != NULL; p++) ticks++;
    CHECK(ticks >= 6 && ticks <= 13);   /* 1, 2 or 5 x 10^k apart, at least five intervals */
    CHECK_EQ_INT(dag_trace_write_svg("/nonexistent/dir/x.svg"), DAG_ERR_IO);
    dag_array_free(A);
}

/* A scope that names only devices none of which exists (a backend not compiled in, compiled in with
   no driver or device, or a device number past the last) fails each operation with DAG_ERR_SCOPE,
   naming the operation and, for each backend, why it has none; with the CPU beside it (a union) the
   operation runs on the CPU where the backend has no device. Each backend with no device in this run is tested (this suite runs in a
   build without backends, and in one with all of them, with PoCL and with no OpenCL platform). */
static int scope_errors_of(dag_backend backend, const dag_scope *only, dag_array *a, dag_array *spd_tiles, dag_array *c) {
    int bad = 0;
    double s = 0;
    static double host[64];
    DAG_WITH_OPTIONS(.scope = *only) {
        last_error[0] = 0;
        bad += dag_array_gemm(0, 0, 1.0, a, a, 0.0, c) != DAG_ERR_SCOPE;
        bad += !strstr(last_error, "dag_array_gemm: the scope in force names only devices") ||
               !strstr(last_error, dag_backend_status(backend));
        bad += dag_array_potrf(spd_tiles) != DAG_ERR_SCOPE;
        bad += dag_array_syrk(0, 1.0, a, 0.0, c) != DAG_ERR_SCOPE;
        bad += dag_array_add(a, a, c) != DAG_ERR_SCOPE;
        bad += dag_array_sum(a, &s) != DAG_ERR_SCOPE;
        bad += dag_array_copy(a, c) != DAG_ERR_SCOPE;
        bad += dag_array_collect(a, host, DAG_COL_MAJOR, 8) != DAG_ERR_SCOPE;
        last_error[0] = 0;
        bad += dag_array_zeros(DAG_F64, 4, 4, dag_blocks(2, 2)) != NULL;
        bad += !strstr(last_error, "dag_array_zeros");
    }
    if (bad) printf("     %s: %d wrong (last error: %s)\n", dag_backend_status(backend), bad, last_error);
    return bad;
}
TEST(a_device_only_scope_with_no_such_device_fails_each_operation_and_a_union_with_the_cpu_runs) {
    dag_array *a = dag_array_fill(DAG_F64, 8, 8, dag_blocks(4, 4), 1.0), *c = dag_array_zeros(DAG_F64, 8, 8, dag_blocks(4, 4));
    dag_array *spd_tiles = dag_array_fill(DAG_F64, 8, 8, dag_blocks(4, 4), 1.0);
    static double host[64];
    int tested = 0;
    for (int b = 1; b < DAG_BACKEND_COUNT; b++) {
        dag_scope only;
        memset(&only, 0, sizeof only);
        int count = dag_device_count((dag_backend)b);
        if (count) dag_scope_part(&only, (dag_backend)b)->one = count + 1;   /* one past the last */
        else dag_scope_part(&only, (dag_backend)b)->all = 1;
        CHECK_EQ_INT(scope_errors_of((dag_backend)b, &only, a, spd_tiles, c), 0);
        tested++;
        if (count) {   /* (a device number past the last is an error even beside the CPU, as for any task) */
            CHECK(strstr(last_error, "none of those named") != NULL);
            continue;
        }
        dag_scope with_cpu = dag_scope_union(only, dag_scope(.all_threads = 1));
        DAG_WITH_OPTIONS(.scope = with_cpu) {
            CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, a, a, 0.0, c), DAG_OK);
        }
        CHECK_EQ_INT(dag_array_collect(c, host, DAG_COL_MAJOR, 8), DAG_OK);
        CHECK(host[0] == 8 && host[63] == 8);
        dag_array_set(c, 0);
    }
    CHECK_EQ_INT(tested, DAG_BACKEND_COUNT - 1);
    dag_array_free(a);
    dag_array_free(c);
    dag_array_free(spd_tiles);
}

int main(void) {
    watchdog_start();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    RUN(rand_depends_only_on_the_seed_and_the_element_whatever_the_tiling);
    RUN(rand_of_an_integer_type_gives_distinct_integers_that_depend_on_the_seed);
    RUN(host_copies_round_trip_in_both_layouts_and_every_type);
    RUN(gemm_matches_a_plain_loop_for_every_transpose_on_ragged_tiles);
    RUN(blas_kernels_follow_blas_at_alpha_0_and_refuse_a_negative_range);
    RUN(cholesky_reaches_a_residual_under_1e_12_on_square_and_ragged_tilings);
    RUN(a_matrix_that_is_not_positive_definite_fails_naming_the_tile_and_column);
    RUN(a_wrapped_matrix_is_factorised_in_place_by_column_panels);
    RUN(operations_on_a_wrapped_matrix_equal_the_same_on_an_array_of_its_own);
    RUN(bad_arguments_are_refused_with_a_message);
    RUN(a_device_only_scope_with_no_such_device_fails_each_operation_and_a_union_with_the_cpu_runs);
    RUN(a_user_task_on_a_tile_orders_with_the_array_operations);
    RUN(an_array_of_an_earlier_set_up_is_refused_by_name_and_freed_without_a_word);
    RUN(the_trace_of_a_factorisation_writes_a_gantt_chart_with_a_bar_per_task);
    RUN(element_wise_operations_match_a_plain_loop_for_every_type_and_aliasing);
    RUN(reductions_match_a_plain_loop_and_the_tree_covers_every_tile);
    RUN(copy_and_transpose_between_different_tilings_move_every_element);
    RUN(syrk_and_trsm_match_plain_loops_for_every_side_triangle_and_transpose);
    RUN(a_triangle_bigger_than_the_solves_leaf_is_solved_by_halves_for_every_case);
    RUN(lu_without_pivoting_posv_and_float_cholesky_reach_their_residuals);
    RUN(a_scope_naming_devices_spreads_the_tiles_kernels_over_them);
    RUN(element_wise_operations_run_on_the_devices_for_every_type);
    RUN(every_operation_under_a_device_scope_gives_the_cpus_results);
    RUN(a_wrapped_matrix_under_a_device_scope_gives_the_cpus_results);
    RUN(constructors_on_the_devices_give_the_cpus_values_bit_for_bit);
    RUN(syrk_trsm_and_lu_on_the_devices_equal_the_cpus);
    RUN(an_array_bigger_than_the_devices_capped_memory_still_factorises);
    RUN(gemm_on_the_devices_runs_through_clblast_or_the_kernel_text_alike);
    dag_shutdown();
    return test_summary();
}
