/* test_array_ops.c: dag_array.h's operations at Dagger's DArray breadth
   (issue 31) against plain loops, and LAPACKE where the build has it: pivoted
   LU and its solves, on ragged sizes and several tilings. Built twice by
   make: with the built-in tile kernels and with -DDAG_ARRAY_CBLAS
   (OpenBLAS and LAPACKE). */
#define DAG_IMPLEMENTATION
#define DAG_ARRAY_PANEL_ROWS 48   /* wrapped matrices' chunks of rows: several per column at these sizes */
#include "dag_kernels.h"
#include "dag_array.h"
#include "test.h"
#include <math.h>
#include "array_programs.h"

static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

/* ||P A - L U|| / ||A|| (max norms) for an m x n factor f with LAPACK's 1-based ipiv */
static double lu_residual(const double *a, const double *f, const int64_t *ipiv, int m, int n) {
    double *pa = malloc(sizeof(double) * (size_t)(m * n)), num = 0, den = 0;
    memcpy(pa, a, sizeof(double) * (size_t)(m * n));
    for (int k = 0; k < (m < n ? m : n); k++)
        for (int j = 0; j < n; j++) {
            double x = pa[k + j * m];
            pa[k + j * m] = pa[ipiv[k] - 1 + j * m], pa[ipiv[k] - 1 + j * m] = x;
        }
    int kn = m < n ? m : n;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < kn && l <= i && l <= j; l++) s += (l == i ? 1.0 : f[i + l * m]) * f[l + j * m];
            num = fmax(num, fabs(pa[i + j * m] - s));
            den = fmax(den, fabs(a[i + j * m]));
        }
    free(pa);
    return num / den;
}

/* getrf on an m x n matrix in tiles of nb, of its own tiles or wrapped: the pivots equal the plain loop's
   (or LAPACKE's), the factor is within rounding of it, and P A = L U. */
static void check_getrf(int m, int n, int nb, bool wrapped, unsigned seed) {
    double *a = malloc(sizeof(double) * (size_t)(m * n)), *f = malloc(sizeof(double) * (size_t)(m * n)),
           *ref = malloc(sizeof(double) * (size_t)(m * n));
    int kn = m < n ? m : n;
    int64_t *ipiv = malloc(sizeof(int64_t) * (size_t)kn), *ipiv_ref = malloc(sizeof(int64_t) * (size_t)kn);
    random_matrix(a, m, n, seed);
    memcpy(ref, a, sizeof(double) * (size_t)(m * n));
    lu_reference(ref, m, n, ipiv_ref);
    memcpy(f, a, sizeof(double) * (size_t)(m * n));
    dag_array *A = wrapped ? dag_array_wrap(DAG_F64, m, n, dag_blocks(nb, nb), f, m)
                           : dag_array_from_host(DAG_F64, m, n, dag_blocks(nb, nb), a, DAG_COL_MAJOR, m);
    CHECK(A != NULL);
    CHECK_EQ_INT(dag_array_getrf(A, ipiv), DAG_OK);
    if (!wrapped) CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, m), DAG_OK);
    int same_pivots = 1;
    double diff = 0;
    for (int k = 0; k < kn; k++) same_pivots &= ipiv[k] == ipiv_ref[k];
    for (int i = 0; i < m * n; i++) diff = fmax(diff, fabs(f[i] - ref[i]));
    double res = lu_residual(a, f, ipiv, m, n);
    if (!same_pivots || diff > 1e-9 || res > 1e-12)
        printf("     %d x %d in %d%s: pivots %s, factor differs by %.1e, residual %.1e\n", m, n, nb,
               wrapped ? " (wrapped)" : "", same_pivots ? "equal" : "DIFFER", diff, res);
    CHECK(same_pivots);
    CHECK(diff < 1e-9);
    CHECK(res < 1e-12);
#if defined(DAG_ARRAY_CBLAS)
    lapack_int *lp = malloc(sizeof(lapack_int) * (size_t)kn);
    memcpy(ref, a, sizeof(double) * (size_t)(m * n));
    CHECK_EQ_INT(LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, ref, m, lp), 0);
    int same_lapack = 1;
    diff = 0;
    for (int k = 0; k < kn; k++) same_lapack &= ipiv[k] == lp[k];
    for (int i = 0; i < m * n; i++) diff = fmax(diff, fabs(f[i] - ref[i]));
    CHECK(same_lapack);
    CHECK(diff < 1e-9);
    free(lp);
#endif
    dag_array_free(A);
    free(a), free(f), free(ref), free(ipiv), free(ipiv_ref);
}

TEST(pivoted_lu_gives_the_pivots_and_factor_of_lapack_on_ragged_sizes_and_tilings) {
    static const int cases[][3] = { { 64, 64, 16 }, { 100, 100, 32 }, { 97, 97, 97 }, { 130, 70, 32 },
                                    { 70, 130, 32 }, { 45, 45, 8 }, { 33, 50, 16 }, { 50, 33, 16 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int wrapped = 0; wrapped < 2; wrapped++)
            check_getrf(cases[c][0], cases[c][1], cases[c][2], wrapped, 7u + (unsigned)c);
}

/* LU without pivoting fails on this matrix (a zero in the corner); with pivoting it solves it. */
TEST(gesv_solves_a_matrix_that_needs_pivoting_and_getrs_reuses_the_factor) {
    enum { N = 90, NB = 16, R = 5 };
    static double a[N * N], f[N * N], b[N * R], x[N * R];
    static int64_t ipiv[N];
    unsigned s = 3;
    random_matrix(a, N, N, 11);
    a[0] = 0;   /* the first pivot is zero unless rows move */
    for (int i = 0; i < N * R; i++) x[i] = (double)array_rnd(&s) / 8388608.0 - 1.0;
    for (int j = 0; j < R; j++)   /* b = A x */
        for (int i = 0; i < N; i++) {
            double v = 0;
            for (int l = 0; l < N; l++) v += a[i + l * N] * x[l + j * N];
            b[i + j * N] = v;
        }
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_getrf_nopiv(A), DAG_ERR_INVALID_ARGUMENT);   /* why pivoting exists */
    dag_array_free(A);
    for (int wrapped = 0; wrapped < 2; wrapped++) {
        memcpy(f, a, sizeof a);
        A = wrapped ? dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), f, N)
                    : dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        dag_array *B = dag_array_from_host(DAG_F64, N, R, dag_blocks(NB, 3), b, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_gesv(A, ipiv, B), DAG_OK);
        static double got[N * R];
        CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, N), DAG_OK);
        double err = 0;
        for (int i = 0; i < N * R; i++) err = fmax(err, fabs(got[i] - x[i]));
        CHECK(err < 1e-9);
        /* the same factor again through getrs: B = A x once more */
        dag_array_free(B);
        B = dag_array_from_host(DAG_F64, N, R, dag_blocks(NB, 2), b, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_getrs(A, ipiv, B), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, N), DAG_OK);
        err = 0;
        for (int i = 0; i < N * R; i++) err = fmax(err, fabs(got[i] - x[i]));
        CHECK(err < 1e-9);
        dag_array_free(A), dag_array_free(B);
    }
}

TEST(pivoted_lu_in_float_reaches_a_float_residual) {
    enum { N = 75, NB = 16 };
    static double a[N * N], back[N * N];
    static float af[N * N], ff[N * N];
    static int64_t ipiv[N];
    random_matrix(a, N, N, 5);
    for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
    dag_array *A = dag_array_from_host(DAG_F32, N, N, dag_blocks(NB, NB), af, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_getrf(A, ipiv), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, ff, DAG_COL_MAJOR, N), DAG_OK);
    for (int i = 0; i < N * N; i++) back[i] = ff[i], a[i] = af[i];
    CHECK(lu_residual(a, back, ipiv, N, N) < 1e-5);
    dag_array_free(A);
}

TEST(a_singular_matrix_and_bad_arguments_are_refused_by_name) {
    enum { N = 40 };
    static double a[N * N];
    static int64_t ipiv[N];
    random_matrix(a, N, N, 9);
    for (int i = 0; i < N; i++) a[i + 20 * N] = 0;   /* column 20 is zero: U(20, 20) is exactly 0 */
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(8, 8), a, DAG_COL_MAJOR, N);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_getrf(A, ipiv), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "singular: U(20, 20)") != NULL);
    dag_array_free(A);
    dag_array *Ints = dag_array_zeros(DAG_I32, N, N, dag_blocks(8, 8)), *B = dag_array_zeros(DAG_F64, N + 1, 2, dag_blocks(8, 2));
    A = dag_array_from_host(DAG_F64, N, N, dag_blocks(8, 8), a, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_getrf(Ints, ipiv), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "integer array") != NULL);
    CHECK_EQ_INT(dag_array_gesv(A, NULL, B), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "must be square") != NULL);
    for (int i = 0; i < N; i++) ipiv[i] = 1;   /* row 5 swapped with row 1: not getrf's */
    dag_array *B2 = dag_array_zeros(DAG_F64, N, 2, dag_blocks(8, 2));
    CHECK_EQ_INT(dag_array_getrs(A, ipiv, B2), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "ipiv is not getrf's") != NULL);
    dag_array_free(Ints), dag_array_free(A), dag_array_free(B), dag_array_free(B2);
}

/* An operation whose output shares elements with its A: refused where A is written too (gesv, posv,
   gels: a factor and a solution in one place) or is a factor's (qr_ormqr), taken as a copy where A is
   only read (getrs, potrs, ormqr: the same X as with B a copy); and exact rank deficiency, a NaN on an
   SPD matrix's diagonal and row indices near INT64_MAX refused by name. */
TEST(outputs_that_overlap_a_and_degenerate_inputs_are_refused_or_taken_as_copies) {
    enum { N = 12 };
    static double a[N * N], spd[N * N], x1[N * N], x2[N * N];
    static int64_t ip[N];
    random_matrix(a, N, N, 31);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int l = 0; l < N; l++) s += a[i + l * N] * a[j + l * N];
            spd[i + j * N] = s + (i == j ? N : 0);
        }
    dag_blocks t = dag_blocks(4, 4);
    dag_array *A = dag_array_from_host(DAG_F64, N, N, t, a, DAG_COL_MAJOR, N);
    dag_array *S = dag_array_from_host(DAG_F64, N, N, t, spd, DAG_COL_MAJOR, N);
    dag_array *Av = dag_array_view(A, 0, N, 4, 4);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_gesv(A, NULL, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "dag_array_gesv: B shares elements with A") != NULL);
    CHECK_EQ_INT(dag_array_gesv(A, NULL, Av), DAG_ERR_INVALID_ARGUMENT);   /* a view of it too */
    CHECK_EQ_INT(dag_array_posv(S, S), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_gels(A, A), DAG_ERR_INVALID_ARGUMENT);
    dag_array_qr *f = dag_array_caqr(A, 2);
    CHECK(f != NULL);
    CHECK_EQ_INT(dag_array_qr_ormqr(0, 1, f, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "C shares elements with the factor's A") != NULL);
    CHECK_EQ_INT(dag_array_qr_gels(f, Av), DAG_ERR_INVALID_ARGUMENT);
    dag_array_qr_free(f);
    /* read-only factors: as copies */
    for (int op = 0; op < 3; op++) {
        dag_array *F = dag_array_from_host(DAG_F64, N, N, t, op == 1 ? spd : a, DAG_COL_MAJOR, N);
        static double tau[N];
        CHECK_EQ_INT(op == 0 ? dag_array_getrf(F, ip) : op == 1 ? dag_array_potrf(F) : dag_array_geqrf(F, tau), DAG_OK);
        dag_array *C = dag_array_zeros(DAG_F64, N, N, t);
        CHECK_EQ_INT(dag_array_copy(F, C), DAG_OK);
        CHECK_EQ_INT(op == 0 ? dag_array_getrs(F, ip, C) : op == 1 ? dag_array_potrs(F, C) : dag_array_ormqr(0, 1, F, tau, C),
                     DAG_OK);
        CHECK_EQ_INT(op == 0 ? dag_array_getrs(F, ip, F) : op == 1 ? dag_array_potrs(F, F) : dag_array_ormqr(0, 1, F, tau, F),
                     DAG_OK);
        CHECK_EQ_INT(dag_array_collect(C, x1, DAG_COL_MAJOR, N), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(F, x2, DAG_COL_MAJOR, N), DAG_OK);
        double d = 0;
        for (int i = 0; i < N * N; i++) d = fmax(d, fabs(x1[i] - x2[i]));
        if (d > 1e-12) printf("     op %d: B = A gives %.3g from B a copy\n", op, d);
        CHECK(d <= 1e-12);
        dag_array_free(F), dag_array_free(C);
    }
    /* a zero column: R(5, 5) is exactly 0, the solve refused (LAPACK's gels: info 6) */
    double z[N * N];
    memcpy(z, a, sizeof z);
    for (int i = 0; i < N; i++) z[i + 5 * N] = 0;
    dag_array *Z = dag_array_from_host(DAG_F64, N, N, t, z, DAG_COL_MAJOR, N), *B = dag_array_ones(DAG_F64, N, 1, dag_blocks(4, 1));
    CHECK_EQ_INT(dag_array_gels(Z, B), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "rank deficient: R(5, 5) is exactly 0") != NULL);
    /* a NaN on the diagonal: not positive definite there, with LAPACKE as with the loops */
    spd[7 + 7 * N] = NAN;
    dag_array *Sn = dag_array_from_host(DAG_F64, N, N, t, spd, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_potrf(Sn), DAG_ERR_NOT_POSITIVE_DEFINITE);
    CHECK(strstr(last_error, "column 7") != NULL);
    /* indices whose sums would wrap: refused, not read past the tiles */
    CHECK(dag_array_view(A, INT64_MAX, 1, 0, 1) == NULL);
    CHECK(dag_array_view(A, 0, 1, INT64_MAX - 1, 2) == NULL);
    double v = 0;
    CHECK_EQ_INT(dag_array_get(A, INT64_MAX, 0, &v), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_put(A, 0, INT64_MAX, 1.0), DAG_ERR_INVALID_ARGUMENT);
    dag_array_free(Av), dag_array_free(A), dag_array_free(S), dag_array_free(Z), dag_array_free(B), dag_array_free(Sn);
}

/* ---- views, copies, indexing, constructors, tilings that do not conform ---- */

/* The array into a new host matrix (column-major, ld = rows). */
static double *host_of(dag_array *a) {
    int64_t r = dag_array_rows(a), c = dag_array_cols(a);
    double *h = malloc(sizeof(double) * (size_t)(r * c));
    CHECK_EQ_INT(dag_array_collect(a, h, DAG_COL_MAJOR, r), DAG_OK);
    return h;
}
static double max_diff(const double *x, const double *y, int64_t n) {
    double d = 0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(x[i] - y[i]));
    return d;
}

/* A 50 x 40 array in 8 x 7 tiles; V on a tile boundary (its tiles are the parent's), W not (copied by
   each operation): element-wise operations, reductions, gemm and a copy on them equal the same loops on
   the parent's host copy, and the elements outside them stay as they were. */
TEST(views_on_and_off_tile_boundaries_read_and_write_the_parent_in_place) {
    enum { R = 50, C = 40 };
    static double h[R * C], want[R * C];
    random_matrix(h, R, C, 21);
    memcpy(want, h, sizeof h);
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 7), h, DAG_COL_MAJOR, R);
    dag_array *V = dag_array_view(A, 8, 20, 14, 13), *W = dag_array_view(A, 3, 20, 5, 13);
    CHECK(V && W);
    CHECK(dag_array_tile(V, 0, 0).id == dag_array_tile(A, 1, 2).id);   /* the parent's own tile */
    last_error[0] = 0;
    CHECK(dag_array_tile(W, 0, 0).id == 0);
    CHECK(strstr(last_error, "inside a tile") != NULL);
    CHECK_EQ_INT(dag_array_tile_ld(V, 2, 1), 8);
    /* W = V + W (they overlap: W's old values are read first), then V *= 2 */
    CHECK_EQ_INT(dag_array_add(V, W, W), DAG_OK);
    double vw[20 * 13];
    for (int j = 0; j < 13; j++)
        for (int i = 0; i < 20; i++) vw[i + j * 20] = want[8 + i + (14 + j) * R] + want[3 + i + (5 + j) * R];
    for (int j = 0; j < 13; j++)
        for (int i = 0; i < 20; i++) want[3 + i + (5 + j) * R] = vw[i + j * 20];
    CHECK_EQ_INT(dag_array_scale(2.0, V), DAG_OK);
    for (int j = 0; j < 13; j++)
        for (int i = 0; i < 20; i++) want[8 + i + (14 + j) * R] *= 2.0;
    double *got = host_of(A);
    CHECK(max_diff(got, want, R * C) < 1e-14);
    /* reductions over each view, and a view of a view */
    double sv = 0, sw = 0, mx = -1e300, s;
    for (int j = 0; j < 13; j++)
        for (int i = 0; i < 20; i++) sv += want[8 + i + (14 + j) * R], sw += want[3 + i + (5 + j) * R];
    for (int j = 2; j < 6; j++)
        for (int i = 1; i < 10; i++) mx = fmax(mx, want[3 + i + (5 + j) * R]);
    CHECK_EQ_INT(dag_array_sum(V, &s), DAG_OK);
    CHECK(fabs(s - sv) < 1e-11);
    CHECK_EQ_INT(dag_array_sum(W, &s), DAG_OK);
    CHECK(fabs(s - sw) < 1e-11);
    dag_array *WW = dag_array_view(W, 1, 9, 2, 4);
    CHECK_EQ_INT(dag_array_max(WW, &s), DAG_OK);
    CHECK(s == mx);
    /* a product of views into a view: rows 40-49 x columns 0-9 = W(0:10, 0:13) V(0:13, 0:10) */
    dag_array *P = dag_array_view(A, 40, 10, 0, 10), *Wa = dag_array_view(W, 0, 10, 0, 13), *Vb = dag_array_view(V, 0, 13, 0, 10);
    CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, Wa, Vb, 0.0, P), DAG_OK);
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 10; i++) {
            double v = 0;
            for (int l = 0; l < 13; l++) v += want[3 + i + (5 + l) * R] * want[8 + l + (14 + j) * R];
            want[40 + i + j * R] = v;
        }
    free(got);
    got = host_of(A);
    CHECK(max_diff(got, want, R * C) < 1e-13);
    free(got);
    dag_array_free(WW), dag_array_free(P), dag_array_free(Wa), dag_array_free(Vb);
    dag_array_free(V), dag_array_free(W), dag_array_free(A);
}

/* copy and transpose between views of arrays in different tilings (and a view onto itself's parent) */
TEST(copies_between_views_of_different_tilings_move_exactly_their_elements) {
    enum { R = 37, C = 29 };
    static double x[R * C], y[R * C], want[R * C];
    random_matrix(x, R, C, 4), random_matrix(y, R, C, 5);
    memcpy(want, y, sizeof y);
    dag_array *X = dag_array_from_host(DAG_F64, R, C, dag_blocks(5, 9), x, DAG_COL_MAJOR, R);
    dag_array *Y = dag_array_from_host(DAG_F64, R, C, dag_blocks(7, 4), y, DAG_COL_MAJOR, R);
    dag_array *from = dag_array_view(X, 2, 17, 3, 11), *to = dag_array_view(Y, 9, 17, 13, 11);
    CHECK_EQ_INT(dag_array_copy(from, to), DAG_OK);
    for (int j = 0; j < 11; j++)
        for (int i = 0; i < 17; i++) want[9 + i + (13 + j) * R] = x[2 + i + (3 + j) * R];
    dag_array *tt = dag_array_view(Y, 1, 11, 0, 17);   /* = from^T */
    CHECK_EQ_INT(dag_array_transpose(from, tt), DAG_OK);
    for (int j = 0; j < 17; j++)
        for (int i = 0; i < 11; i++) want[1 + i + j * R] = x[2 + j + (3 + i) * R];
    double *got = host_of(Y);
    CHECK(max_diff(got, want, R * C) == 0);
    free(got);
    CHECK_EQ_INT(dag_array_copy(from, tt), DAG_ERR_INVALID_ARGUMENT);   /* 17 x 11 into 11 x 17 */
    dag_array_free(from), dag_array_free(to), dag_array_free(tt), dag_array_free(X), dag_array_free(Y);
}

/* A[rows, cols] with index vectors (dag_array_index): random lists with repeats and runs, every element
   type, of an array and of a view, against the host loop; bad lists are refused by name. */
/* An operation whose output is (part of) one of its inputs gets the answer it would get from a copy:
   transpose(A, A), copies between overlapping views, gemm(A, B, A) and gemm(A, A, A), syrk and trsm
   with C or B inside A, element-wise operations on shifted views. */
/* The output a second view of an input's very elements (NumPy's out=a[:, :], Julia's view(A, :, :) .= A .- B):
   each element read before it is written, for +, - and .*, with the input first or second, B in A's tiling
   or another; a NULL input refused by name, the output untouched; a fraction into an integer array refused
   (Julia's InexactError). */
TEST(an_output_that_is_an_input_through_another_view_and_null_inputs_give_the_right_answer) {
    enum { R = 6, C = 4 };
    static double h[R * C], g[R * C], got[R * C];
    random_matrix(h, R, C, 31), random_matrix(g, R, C, 32);
    for (int op = 0; op < 3; op++)
        for (int tiling = 0; tiling < 2; tiling++)
            for (int first = 0; first < 2; first++) {
                dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(2, 2), h, DAG_COL_MAJOR, R);
                dag_array *B = dag_array_from_host(DAG_F64, R, C, tiling ? dag_blocks(4, 3) : dag_blocks(2, 2), g, DAG_COL_MAJOR, R);
                dag_array *V = dag_array_view(A, 0, R, 0, C);
                dag_result (*f[3])(dag_array *, dag_array *, dag_array *) = { dag_array_add, dag_array_sub, dag_array_mul };
                CHECK_EQ_INT(first ? f[op](A, B, V) : f[op](V, B, A), DAG_OK);
                CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, R), DAG_OK);
                int bad = 0;
                for (int i = 0; i < R * C; i++) {
                    double want = op == 0 ? h[i] + g[i] : op == 1 ? h[i] - g[i] : h[i] * g[i];
                    bad += fabs(got[i] - want) > 1e-15;
                }
                CHECK_EQ_INT(bad, 0);
                dag_array_free(V), dag_array_free(B), dag_array_free(A);
            }
    dag_array *A = dag_array_ones(DAG_F64, R, C, dag_blocks(2, 2)), *B = dag_array_ones(DAG_F64, R, C, dag_blocks(2, 2));
    double s = 0;
    CHECK_EQ_INT(dag_array_add(NULL, B, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "a is NULL") != NULL);
    CHECK_EQ_INT(dag_array_sub(B, NULL, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_mul(NULL, NULL, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_axpy(2, NULL, A), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "x is NULL") != NULL);
    CHECK_EQ_INT(dag_array_sum(A, &s), DAG_OK);
    CHECK(s == R * C);   /* untouched */
    dag_array *Ints = dag_array_zeros(DAG_I64, 3, 3, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_put(Ints, 0, 0, 2.75), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "not a whole number") != NULL);
    CHECK_EQ_INT(dag_array_set(Ints, -0.5), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_array_fill(DAG_I32, 2, 2, dag_blocks(1, 1), 9.99) == NULL);
    CHECK_EQ_INT(dag_array_put(Ints, 2, 2, -7), DAG_OK);
    CHECK_EQ_INT(dag_array_get(Ints, 2, 2, &s), DAG_OK);
    CHECK(s == -7);
    CHECK_EQ_INT(dag_array_get(Ints, 3, 0, &s), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "dag_array_get: element (3, 0) is outside") != NULL);
    dag_array_free(Ints), dag_array_free(B), dag_array_free(A);
}

TEST(outputs_that_overlap_their_inputs_give_the_answer_of_separate_arrays) {
    enum { N = 12 };
    static double h[N * N], g[N * N], want[N * N], got[N * N];
    random_matrix(h, N, N, 21), random_matrix(g, N, N, 22);
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(5, 5), h, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_transpose(A, A), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, N), DAG_OK);
    int bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) bad += got[i + j * N] != h[j + i * N];
    CHECK_EQ_INT(bad, 0);
    dag_array_free(A);
    /* a[0:10, :] into a[2:12, :] (tiles of 5: every tile task meets another's) */
    A = dag_array_from_host(DAG_F64, N, N, dag_blocks(5, 5), h, DAG_COL_MAJOR, N);
    dag_array *V = dag_array_view(A, 0, 10, 0, N), *W = dag_array_view(A, 2, 10, 0, N);
    CHECK_EQ_INT(dag_array_copy(V, W), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, N), DAG_OK);
    bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) bad += got[i + j * N] != h[(i < 2 ? i : i - 2) + j * N];
    CHECK_EQ_INT(bad, 0);
    /* W = V + W on the same shifted views (each reads its inputs before any is written) */
    memcpy(want, got, sizeof want);
    CHECK_EQ_INT(dag_array_add(V, W, W), DAG_OK);
    for (int j = 0; j < N; j++)
        for (int i = 9; i >= 0; i--) want[i + 2 + j * N] = got[i + j * N] + got[i + 2 + j * N];
    CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, N), DAG_OK);
    CHECK(max_diff(got, want, N * N) < 1e-14);
    dag_array_free(V), dag_array_free(W), dag_array_free(A);
    /* gemm(A, B, A) and gemm(A, A, A) against the plain product */
    for (int same = 0; same < 2; same++) {
        dag_array *X = dag_array_from_host(DAG_F64, N, N, dag_blocks(4, 4), h, DAG_COL_MAJOR, N);
        dag_array *Y = dag_array_from_host(DAG_F64, N, N, dag_blocks(4, 4), same ? h : g, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, X, same ? X : Y, 0.5, X), DAG_OK);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double sum = 0;
                for (int l = 0; l < N; l++) sum += h[i + l * N] * (same ? h : g)[l + j * N];
                want[i + j * N] = sum + 0.5 * h[i + j * N];
            }
        CHECK_EQ_INT(dag_array_collect(X, got, DAG_COL_MAJOR, N), DAG_OK);
        CHECK(max_diff(got, want, N * N) < 1e-12);
        dag_array_free(X), dag_array_free(Y);
    }
    /* syrk with C the lower-right block of A itself, A's first 6 columns as input */
    dag_array *S = dag_array_from_host(DAG_F64, N, N, dag_blocks(6, 6), h, DAG_COL_MAJOR, N);
    dag_array *In = dag_array_view(S, 0, N, 0, 6), *C = dag_array_view(S, 0, N, 0, N);
    CHECK_EQ_INT(dag_array_syrk(0, 1.0, In, 0.0, C), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(S, got, DAG_COL_MAJOR, N), DAG_OK);
    bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = j; i < N; i++) {
            double sum = 0;
            for (int l = 0; l < 6; l++) sum += h[i + l * N] * h[j + l * N];
            bad += fabs(got[i + j * N] - sum) > 1e-12;
        }
    CHECK_EQ_INT(bad, 0);
    dag_array_free(In), dag_array_free(C), dag_array_free(S);
}

/* Values past the edge of what the arithmetic holds: NaN wins min and max whatever the tiling (Julia's
   minimum); norm2 of huge and tiny doubles; trsm with alpha 0 zeroes B (NaNs too, as BLAS does);
   tile_size outside the array is 0; integer arrays refuse values they cannot hold; an array of more tiles
   than can be registered is refused. */
TEST(nan_huge_and_tiny_values_and_impossible_sizes_get_the_documented_answers) {
    double v[4] = { NAN, -5, 3, 4 };
    for (int nb = 1; nb <= 4; nb *= 2) {
        dag_array *x = dag_array_from_host(DAG_F64, 4, 1, dag_blocks(nb, 1), v, DAG_COL_MAJOR, 4);
        double mn = 0, mx = 0, rd = 0;
        CHECK_EQ_INT(dag_array_min(x, &mn), DAG_OK);
        CHECK_EQ_INT(dag_array_max(x, &mx), DAG_OK);
        dag_array *r = dag_array_reduce_dims(DAG_OP_MIN, x, 1, INFINITY);
        CHECK(r != NULL);
        if (r) CHECK_EQ_INT(dag_array_collect(r, &rd, DAG_COL_MAJOR, 1), DAG_OK);
        CHECK(isnan(mn) && isnan(mx) && isnan(rd));
        dag_array_free(r), dag_array_free(x);
    }
    double big[4] = { 1e200, 1e200, 1e200, 1e200 }, tiny[4] = { 1e-200, 1e-200, 1e-200, 1e-200 }, n2 = 0;
    dag_array *b = dag_array_from_host(DAG_F64, 4, 1, dag_blocks(2, 1), big, DAG_COL_MAJOR, 4);
    CHECK_EQ_INT(dag_array_norm2(b, &n2), DAG_OK);
    CHECK(fabs(n2 / 2e200 - 1) < 1e-14);
    dag_array_free(b);
    b = dag_array_from_host(DAG_F64, 4, 1, dag_blocks(2, 1), tiny, DAG_COL_MAJOR, 4);
    CHECK_EQ_INT(dag_array_norm2(b, &n2), DAG_OK);
    CHECK(fabs(n2 / 2e-200 - 1) < 1e-14);
    dag_array_free(b);
    double ta[4] = { 2, 1, 0, 3 }, tb[4] = { NAN, NAN, 1, 2 }, out[4];
    dag_array *T = dag_array_from_host(DAG_F64, 2, 2, dag_blocks(2, 2), ta, DAG_COL_MAJOR, 2);
    dag_array *B = dag_array_from_host(DAG_F64, 2, 2, dag_blocks(2, 2), tb, DAG_COL_MAJOR, 2);
    CHECK_EQ_INT(dag_array_trsm(0, 0, 0, 0, 0.0, T, B), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(B, out, DAG_COL_MAJOR, 2), DAG_OK);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0);
    int64_t tr = -1, tc = -1;
    dag_array_tile_size(T, 3, 0, &tr, &tc);
    CHECK(tr == 0 && tc == 0);
    dag_array_tile_size(NULL, 0, 0, &tr, &tc);
    CHECK(tr == 0 && tc == 0);
    dag_array_free(T), dag_array_free(B);
    dag_array *Ints = dag_array_zeros(DAG_I32, 3, 3, dag_blocks(2, 2));
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_put(Ints, 0, 0, NAN), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "does not fit in DAG_I32") != NULL);
    CHECK_EQ_INT(dag_array_set(Ints, 1e20), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_array_fill(DAG_I64, 2, 2, dag_blocks(2, 2), 1e19) == NULL);
    CHECK(dag_array_reduce_dims(DAG_OP_MIN, Ints, 1, INFINITY) == NULL);
    CHECK_EQ_INT(dag_array_put(Ints, 0, 0, -2147483648.0), DAG_OK);
    /* integer arithmetic wraps as Julia's; a double past the type saturates (NaN: 0) */
    int32_t near[4] = { 2147483647, 5, -7, 100 }, got32[4];
    dag_array *W = dag_array_from_host(DAG_I32, 4, 1, dag_blocks(2, 1), near, DAG_COL_MAJOR, 4);
    dag_array *W2 = dag_array_from_host(DAG_I32, 4, 1, dag_blocks(2, 1), near, DAG_COL_MAJOR, 4);
    CHECK_EQ_INT(dag_array_add(W, W2, W2), DAG_OK);   /* 2^31 - 1 twice: -2 */
    CHECK_EQ_INT(dag_array_collect(W2, got32, DAG_COL_MAJOR, 4), DAG_OK);
    CHECK(got32[0] == -2 && got32[1] == 10 && got32[2] == -14 && got32[3] == 200);
    CHECK_EQ_INT(dag_array_scale(1e20, W), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(W, got32, DAG_COL_MAJOR, 4), DAG_OK);
    CHECK(got32[0] == 2147483647 && got32[1] == 2147483647 && got32[2] == -2147483647 - 1 && got32[3] == 2147483647);
    CHECK_EQ_INT(dag_array_axpy(NAN, W2, W), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(W, got32, DAG_COL_MAJOR, 4), DAG_OK);
    CHECK(got32[0] == 0 && got32[1] == 0 && got32[2] == 0 && got32[3] == 0);
    dag_array_free(W), dag_array_free(W2);
    dag_array_free(Ints);
    CHECK(dag_array_zeros(DAG_F64, (int64_t)1 << 32, (int64_t)1 << 32, dag_blocks(1, 1)) == NULL);
    CHECK(strstr(last_error, "DAG_MAX_REGISTERED") != NULL);
    CHECK(dag_array_zeros(DAG_F64, (int64_t)3 << 61, 2, dag_blocks((int64_t)3 << 61, 2)) == NULL);
    CHECK(dag_array_zeros(DAG_F64, INT64_MAX, INT64_MAX, dag_blocks_auto()) == NULL);
}

/* element k of a host buffer of type t, and a buffer of type t holding n doubles (integers here: every type
   holds them exactly) */
static double typed_at(dag_elem t, const void *p, int64_t k) {
    return t == DAG_F64 ? ((const double *)p)[k] : t == DAG_F32 ? ((const float *)p)[k]
           : t == DAG_I32 ? ((const int32_t *)p)[k] : (double)((const int64_t *)p)[k];
}
static void *typed_of(dag_elem t, const double *h, int64_t n) {
    char *p = malloc(8 * (size_t)n);
    for (int64_t k = 0; k < n; k++) {
        if (t == DAG_F64) ((double *)p)[k] = h[k];
        else if (t == DAG_F32) ((float *)p)[k] = (float)h[k];
        else if (t == DAG_I32) ((int32_t *)p)[k] = (int32_t)h[k];
        else ((int64_t *)p)[k] = (int64_t)h[k];
    }
    return p;
}

/* A[rows, cols] with index vectors (dag_array_index): random lists with repeats and runs, every real
   element type, of an array and of a view, against the host loop; bad lists are refused by name. */
TEST(index_vectors_pick_rows_and_columns_in_any_order_with_repeats) {
    enum { R = 23, C = 19 };
    static double h[R * C];
    for (int k = 0; k < R * C; k++) h[k] = (double)((k * 37) % 211) - 100;
    static const dag_elem types[4] = { DAG_F64, DAG_F32, DAG_I32, DAG_I64 };
    uint64_t seed = 7;
    for (int ti = 0; ti < 4; ti++)
        for (int trial = 0; trial < 6; trial++) {
            void *typed = typed_of(types[ti], h, R * C);
            dag_array *T = dag_array_from_host(types[ti], R, C, dag_blocks(4 + trial, 3 + trial), typed, DAG_COL_MAJOR, R);
            bool view = trial % 2;   /* rows 2.., columns 3.. of T */
            dag_array *S = view ? dag_array_view(T, 2, R - 2, 3, C - 3) : T;
            int64_t sr = view ? R - 2 : R, sc = view ? C - 3 : C, rows[40], cols[40];
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int nr = 1 + (int)((seed >> 20) % 39), nc = 1 + (int)((seed >> 40) % 39);
            for (int i = 0; i < nr; i++) {   /* runs of consecutive indices and random jumps */
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                rows[i] = i && (seed >> 40) % 3 ? (rows[i - 1] + 1) % sr : (int64_t)((seed >> 33) % (uint64_t)sr);
            }
            for (int j = 0; j < nc; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                cols[j] = j && (seed >> 40) % 3 ? (cols[j - 1] + 1) % sc : (int64_t)((seed >> 33) % (uint64_t)sc);
            }
            bool all_rows = trial == 4, all_cols = trial == 5;
            dag_array *X = dag_array_index(S, all_rows ? NULL : rows, nr, all_cols ? NULL : cols, nc);
            CHECK(X != NULL);
            int64_t m = all_rows ? sr : nr, n = all_cols ? sc : nc;
            CHECK(X && dag_array_rows(X) == m && dag_array_cols(X) == n && dag_array_type(X) == types[ti]);
            char *got = calloc((size_t)(m * n), 8);
            if (X) CHECK_EQ_INT(dag_array_collect(X, got, DAG_COL_MAJOR, m), DAG_OK);
            int bad = 0;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    int64_t r = (all_rows ? i : rows[i]) + (view ? 2 : 0), c = (all_cols ? j : cols[j]) + (view ? 3 : 0);
                    bad += typed_at(types[ti], got, i + j * m) != h[r + c * R];
                }
            CHECK_EQ_INT(bad, 0);
            free(got), free(typed);
            dag_array_free(X);
            if (view) dag_array_free(S);
            dag_array_free(T);
        }
    dag_array *A = dag_array_zeros(DAG_F64, 5, 4, dag_blocks(2, 2));
    int64_t out_of_range[3] = { 0, 5, 1 }, negative[1] = { -1 }, fine[2] = { 0, 3 };
    last_error[0] = 0;
    CHECK(dag_array_index(A, out_of_range, 3, NULL, 0) == NULL);
    CHECK(strstr(last_error, "dag_array_index") && strstr(last_error, "rows[1] is 5"));
    CHECK(dag_array_index(A, fine, 2, negative, 1) == NULL);
    CHECK(strstr(last_error, "cols[0] is -1"));
    CHECK(dag_array_index(A, fine, 0, NULL, 0) == NULL);
    CHECK(strstr(last_error, "empty"));
    CHECK(dag_array_index(NULL, fine, 2, NULL, 0) == NULL);
    CHECK(strstr(last_error, "NULL"));
    dag_array_free(A);
}

TEST(elements_and_slices_go_to_and_from_host_memory_and_hcat_vcat_join_arrays) {
    enum { R = 23, C = 19 };
    static double h[R * C];
    random_matrix(h, R, C, 8);
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(6, 5), h, DAG_COL_MAJOR, R);
    double v = 0;
    CHECK_EQ_INT(dag_array_get(A, 13, 11, &v), DAG_OK);
    CHECK(v == h[13 + 11 * R]);
    CHECK_EQ_INT(dag_array_put(A, 13, 11, 42.5), DAG_OK);
    CHECK_EQ_INT(dag_array_get(A, 13, 11, &v), DAG_OK);
    CHECK(v == 42.5);
    h[13 + 11 * R] = 42.5;
    CHECK_EQ_INT(dag_array_get(A, R, 0, &v), DAG_ERR_INVALID_ARGUMENT);   /* outside */
    double slice[7 * 4 + 3], in[9 * 3];   /* 7 x 4 with ld 8 */
    CHECK_EQ_INT(dag_array_get_slice(A, 4, 7, 9, 4, slice, 8), DAG_OK);
    int bad = 0;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 7; i++) bad += slice[i + j * 8] != h[4 + i + (9 + j) * R];
    CHECK_EQ_INT(bad, 0);
    for (int i = 0; i < 27; i++) in[i] = -i;
    CHECK_EQ_INT(dag_array_put_slice(A, 14, 9, 16, 3, in, 9), DAG_OK);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 9; i++) h[14 + i + (16 + j) * R] = in[i + j * 9];
    double *got = host_of(A);
    CHECK(max_diff(got, h, R * C) == 0);
    free(got);
    int32_t n = 0;   /* an integer array: values convert */
    dag_array *Ia = dag_array_fill(DAG_I32, 5, 5, dag_blocks(2, 2), 7.0);
    CHECK_EQ_INT(dag_array_put(Ia, 4, 3, -3.0), DAG_OK);
    CHECK_EQ_INT(dag_array_get_slice(Ia, 4, 1, 3, 1, &n, 1), DAG_OK);
    CHECK_EQ_INT(n, -3);
    /* [A A'] and [A; A'] with A' = A's first 10 columns / rows, in other tilings */
    dag_array *L = dag_array_view(A, 0, R, 0, 10), *T = dag_array_view(A, 0, 10, 0, C);
    dag_array *parts_h[2] = { A, L }, *parts_v[2] = { T, A };
    dag_array *H = dag_array_hcat(2, parts_h), *Vc = dag_array_vcat(2, parts_v);
    CHECK(H && Vc);
    CHECK_EQ_INT(dag_array_cols(H), C + 10);
    CHECK_EQ_INT(dag_array_rows(Vc), R + 10);
    double *hh = host_of(H), *vv = host_of(Vc);
    bad = 0;
    for (int j = 0; j < C + 10; j++)
        for (int i = 0; i < R; i++) bad += hh[i + j * R] != h[i + (j < C ? j : j - C) * R];
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R + 10; i++) bad += vv[i + j * (R + 10)] != h[(i < 10 ? i : i - 10) + j * R];
    CHECK_EQ_INT(bad, 0);
    dag_array *wrong[2] = { A, Ia };
    CHECK(dag_array_hcat(2, wrong) == NULL);
    free(hh), free(vv);
    dag_array_free(L), dag_array_free(T), dag_array_free(H), dag_array_free(Vc), dag_array_free(Ia), dag_array_free(A);
}

/* rand! into a view equals dag_array_rand of the view's shape; similar keeps the tiling; undef's values are
   whatever they are, but writable; dag_blocks_auto follows its rule on 2 workers */
TEST(constructors_similar_undef_in_place_rand_and_automatic_blocks) {
    enum { R = 40, C = 33 };
    dag_array *A = dag_array_zeros(DAG_F64, R, C, dag_blocks(9, 8));
    dag_array *V = dag_array_view(A, 5, 20, 3, 17), *ref = dag_array_rand(DAG_F64, 20, 17, dag_blocks(4, 4), 77);
    CHECK_EQ_INT(dag_array_fill_rand(V, 77), DAG_OK);
    double *a = host_of(A), *r = host_of(ref);
    int bad = 0;
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) {
            bool in = i >= 5 && i < 25 && j >= 3 && j < 20;
            bad += in ? a[i + j * R] != r[i - 5 + (j - 3) * 20] : a[i + j * R] != 0;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(dag_array_fill_randn(A, 3), DAG_OK);
    double s;
    CHECK_EQ_INT(dag_array_sum(A, &s), DAG_OK);
    CHECK(fabs(s) < 4 * sqrt((double)(R * C)));   /* standard normal: the sum within 4 sigma of 0 */
    dag_array *S = dag_array_similar(V), *U = dag_array_undef(DAG_F32, 10, 10, dag_blocks(3, 3));
    CHECK(S && U);
    CHECK_EQ_INT(dag_array_rows(S), 20);
    CHECK_EQ_INT(dag_array_tile_rows(S), 3);   /* 20 rows in the parent's 9 */
    CHECK_EQ_INT(dag_array_type(U), DAG_F32);
    CHECK_EQ_INT(dag_array_set(U, 2.0), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(U, &s), DAG_OK);
    CHECK(s == 200);
    /* the rule: 2 workers want 8 tiles; 2 MiB of doubles is 512 x 512 */
    dag_array *big = dag_array_undef(DAG_F64, 4096, 4096, dag_blocks_auto()), *mid = dag_array_undef(DAG_F64, 1000, 1000, dag_blocks_auto());
    dag_array *fl = dag_array_undef(DAG_F32, 8000, 8000, dag_blocks_auto()), *vec = dag_array_undef(DAG_F64, 100000, 1, dag_blocks_auto());
    CHECK_EQ_INT(dag_array_tile_rows(big), 8);     /* 512 */
    CHECK_EQ_INT(dag_array_tile_rows(mid), 4);     /* 512 gives 4 tiles, 256 gives 16 */
    CHECK_EQ_INT(dag_array_tile_rows(fl), 12);     /* 704 */
    CHECK_EQ_INT(dag_array_tile_rows(vec), 13);    /* 262144 elements halved to 8192: 13 tiles (16384 gives 7) */
    /* short and wide: whole columns of 2, rows of tiles as long as 2 MiB allows halved to 8 tiles or more
       (131072 gives 3, 65536 gives 5, 32768 gives 10), not 586 tiles of 2 x 512 */
    dag_array *wide = dag_array_undef(DAG_F64, 2, 300000, dag_blocks_auto()), *thin = dag_array_undef(DAG_F64, 300000, 2, dag_blocks_auto());
    CHECK_EQ_INT(dag_array_tile_rows(wide), 1);
    CHECK_EQ_INT(dag_array_tile_cols(wide), 10);
    CHECK_EQ_INT(dag_array_tile_rows(thin), 10);
    dag_array_free(wide), dag_array_free(thin);
    free(a), free(r);
    dag_array_free(big), dag_array_free(mid), dag_array_free(fl), dag_array_free(vec);
    dag_array_free(S), dag_array_free(U), dag_array_free(V), dag_array_free(ref), dag_array_free(A);
}

/* Dagger's gemm tests multiply operands of any tilings: here every operand in a tiling of its own, against
   the loop; and element-wise operations, trsm, potrf, getrf and gesv with tilings that do not conform or
   tiles that are not square. */
TEST(tilings_that_do_not_conform_are_re_tiled_inside_each_operation) {
    enum { M = 41, N = 30, K = 23 };
    static double a[M * K], b[K * N], c[M * N], want[M * N];
    random_matrix(a, M, K, 1), random_matrix(b, K, N, 2), random_matrix(c, M, N, 3);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double v = 0;
            for (int l = 0; l < K; l++) v += a[i + l * M] * b[l + j * K];
            want[i + j * M] = 2.0 * v + 0.5 * c[i + j * M];
        }
    dag_array *A = dag_array_from_host(DAG_F64, M, K, dag_blocks(7, 5), a, DAG_COL_MAJOR, M);
    dag_array *B = dag_array_from_host(DAG_F64, K, N, dag_blocks(4, 6), b, DAG_COL_MAJOR, K);
    dag_array *Cm = dag_array_from_host(DAG_F64, M, N, dag_blocks(9, 8), c, DAG_COL_MAJOR, M);
    CHECK_EQ_INT(dag_array_gemm(0, 0, 2.0, A, B, 0.5, Cm), DAG_OK);
    double *got = host_of(Cm);
    CHECK(max_diff(got, want, M * N) < 1e-13);
    free(got);
    dag_array *D = dag_array_from_host(DAG_F64, M, N, dag_blocks(5, 11), c, DAG_COL_MAJOR, M);
    CHECK_EQ_INT(dag_array_sub(Cm, D, D), DAG_OK);   /* D = C - D, D in other tiles */
    for (int i = 0; i < M * N; i++) want[i] -= c[i];
    got = host_of(D);
    CHECK(max_diff(got, want, M * N) < 1e-13);
    free(got);
    /* an SPD matrix in 16 x 8 tiles: potrf as in square tiles; getrf and gesv too */
    enum { S = 60 };
    static double spd[S * S], f1[S * S], f2[S * S], rhs[S * 2], x[S * 2];
    random_matrix(spd, S, S, 9);
    for (int j = 0; j < S; j++)
        for (int i = 0; i <= j; i++) spd[i + j * S] = spd[j + i * S] = spd[j + i * S] + (i == j ? S : 0);
    dag_array *P1 = dag_array_from_host(DAG_F64, S, S, dag_blocks(16, 8), spd, DAG_COL_MAJOR, S);
    dag_array *P2 = dag_array_from_host(DAG_F64, S, S, dag_blocks(8, 8), spd, DAG_COL_MAJOR, S);
    CHECK_EQ_INT(dag_array_potrf(P1), DAG_OK);
    CHECK_EQ_INT(dag_array_potrf(P2), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(P1, f1, DAG_COL_MAJOR, S), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(P2, f2, DAG_COL_MAJOR, S), DAG_OK);
    CHECK(max_diff(f1, f2, S * S) < 1e-12);
    dag_array_free(P1), dag_array_free(P2);
    int64_t ipiv[S];
    random_matrix(x, S, 2, 10);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < S; i++) {
            double v = 0;
            for (int l = 0; l < S; l++) v += spd[i + l * S] * x[l + j * S];
            rhs[i + j * S] = v;
        }
    P1 = dag_array_from_host(DAG_F64, S, S, dag_blocks(12, 20), spd, DAG_COL_MAJOR, S);
    dag_array *Bx = dag_array_from_host(DAG_F64, S, 2, dag_blocks(7, 1), rhs, DAG_COL_MAJOR, S);
    CHECK_EQ_INT(dag_array_gesv(P1, ipiv, Bx), DAG_OK);
    got = host_of(Bx);
    CHECK(max_diff(got, x, S * 2) < 1e-10);
    free(got);
    dag_array_free(P1), dag_array_free(Bx), dag_array_free(A), dag_array_free(B), dag_array_free(Cm), dag_array_free(D);
}

/* ---- reductions along a dimension, mapreduce, maps of several inputs and broadcasting ---- */

DAG_KERNEL(square_it, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] = x[i] * x[i];
)
DAG_KERNEL(keep_max, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, acc)),
    size_t i = DAG_INDEX();
    acc[i] = x[i] > acc[i] ? x[i] : acc[i];
)
DAG_KERNEL(axpbyz, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL const double *, y), (DAG_GLOBAL const double *, z),
                    (DAG_GLOBAL double *, out)),
    size_t i = DAG_INDEX();
    out[i] = 2.0 * x[i] - y[i] * z[i];
)
DAG_KERNEL(add_i32, ((DAG_GLOBAL const int *, x), (DAG_GLOBAL const int *, y), (DAG_GLOBAL int *, out)),
    size_t i = DAG_INDEX();
    out[i] = x[i] + y[i];
)

/* map between two views of one array that overlap on tile boundaries (A[:, 1:3] = f(A[:, 0:2]), tiles of
   one column): the input as it was, NumPy's a[:, 1:] = f(a[:, :-1]), not a column mapped twice */
TEST(map_between_overlapping_views_reads_its_input_as_a_copy) {
    double h[12] = { 1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400 }, o[12];
    dag_array *A = dag_array_from_host(DAG_F64, 4, 3, dag_blocks(4, 1), h, DAG_COL_MAJOR, 4);
    dag_array *X = dag_array_view(A, 0, 4, 0, 2), *Y = dag_array_view(A, 0, 4, 1, 2);
    CHECK_EQ_INT(dag_array_map(square_it, X, Y), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, o, DAG_COL_MAJOR, 4), DAG_OK);
    int bad = 0;
    for (int i = 0; i < 12; i++) bad += o[i] != (i < 4 ? h[i] : h[i - 4] * h[i - 4]);
    CHECK_EQ_INT(bad, 0);
    dag_array_free(X), dag_array_free(Y), dag_array_free(A);
}
static double absolute(double x) { return fabs(x); }
static double plus(double a, double b) { return a + b; }

/* sum, prod, min and max over rows, columns and both, from init, on ragged tiles and a view, in double
   and int32, against loops; the result's shape and tiling */
TEST(reductions_along_a_dimension_with_an_initial_value_match_loops) {
    enum { R = 29, C = 22 };
    static double h[R * C];
    random_matrix(h, R, C, 31);
    for (int i = 0; i < R * C; i++) h[i] = 1.0 + 0.05 * h[i];   /* products stay near 1 */
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(6, 5), h, DAG_COL_MAJOR, R);
    for (int op = DAG_OP_SUM; op <= DAG_OP_MAX; op++)
        for (int dims = 0; dims <= 2; dims++) {
            double init = op == DAG_OP_PROD ? 2.0 : op == DAG_OP_MIN ? 0.5 : op == DAG_OP_MAX ? 1.5 : 10.0;
            dag_array *r = dag_array_reduce_dims((dag_array_op)op, A, dims, init);
            CHECK(r != NULL);
            if (!r) continue;
            int n = dims == 1 ? C : dims == 2 ? R : 1;
            CHECK_EQ_INT(dag_array_rows(r) * dag_array_cols(r), n);
            CHECK_EQ_INT(dag_array_rows(r), dims == 2 ? R : 1);
            double *got = host_of(r), err = 0;
            for (int k = 0; k < n; k++) {
                double want = init;
                for (int j = 0; j < C; j++)
                    for (int i = 0; i < R; i++) {
                        if ((dims == 1 && j != k) || (dims == 2 && i != k)) continue;
                        double v = h[i + j * R];
                        want = op == DAG_OP_SUM ? want + v : op == DAG_OP_PROD ? want * v : op == DAG_OP_MIN ? fmin(want, v) : fmax(want, v);
                    }
                err = fmax(err, fabs(got[k] - want) / fabs(want));
            }
            if (err > 1e-13) printf("     op %d dims %d: relative error %.1e\n", op, dims, err);
            CHECK(err < 1e-13);
            free(got);
            dag_array_free(r);
        }
    /* integers: column sums of a view off the tile boundaries, in int32 */
    static int32_t iv[R * C];
    for (int i = 0; i < R * C; i++) iv[i] = i % 17 - 8;
    dag_array *Ia = dag_array_from_host(DAG_I32, R, C, dag_blocks(4, 4), iv, DAG_COL_MAJOR, R);
    dag_array *V = dag_array_view(Ia, 3, 20, 2, 15), *s = dag_array_reduce_dims(DAG_OP_SUM, V, 1, 100);
    int32_t got[15];
    CHECK_EQ_INT(dag_array_collect(s, got, DAG_COL_MAJOR, 1), DAG_OK);
    int bad = 0;
    for (int j = 0; j < 15; j++) {
        int32_t want = 100;
        for (int i = 0; i < 20; i++) want += iv[3 + i + (2 + j) * R];
        bad += got[j] != want;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(dag_array_reduce_dims(DAG_OP_SUM, A, 3, 0) == NULL);
    CHECK(strstr(last_error, "dims must be") != NULL);
    dag_array_free(s), dag_array_free(V), dag_array_free(Ia), dag_array_free(A);
}

static double half(double x) { return x / 2; }
static double square_of(double x) { return x * x; }
/* C functions on an integer array compute in double from tile to tile, whatever the tiling: x / 2
   summed down the column [1 1 1 1] is 2 in tiles of 1, 2 and 4 (dims 1 and 0); into the integer result once,
   saturated (5e9 into an int32: INT32_MAX) */
TEST(mapreduce_with_c_functions_on_integers_does_not_depend_on_the_tiling) {
    int32_t ones[4] = { 1, 1, 1, 1 }, big[2] = { 50000, 50000 };
    for (int nb = 1; nb <= 4; nb *= 2)
        for (int dims = 0; dims <= 1; dims++) {
            dag_array *A = dag_array_from_host(DAG_I32, 4, 1, dag_blocks(nb, 1), ones, DAG_COL_MAJOR, 4);
            dag_array *r = dag_array_mapreduce_fn(half, plus, A, dims, 0.0);
            CHECK(r != NULL);
            int32_t got = -1;
            CHECK_EQ_INT(dag_array_collect(r, &got, DAG_COL_MAJOR, 1), DAG_OK);
            if (got != 2) printf("     tiles of %d, dims %d: %d\n", nb, dims, (int)got);
            CHECK_EQ_INT(got, 2);
            dag_array_free(A), dag_array_free(r);
        }
    dag_array *B = dag_array_from_host(DAG_I32, 2, 1, dag_blocks(1, 1), big, DAG_COL_MAJOR, 2);
    dag_array *r = dag_array_mapreduce_fn(square_of, plus, B, 1, 0.0);
    int32_t got = 0;
    CHECK(r != NULL);
    CHECK_EQ_INT(dag_array_collect(r, &got, DAG_COL_MAJOR, 1), DAG_OK);
    CHECK_EQ_INT(got, INT32_MAX);
    dag_array_free(B), dag_array_free(r);
}

/* mapreduce(abs, +) with C functions on every dims; mapreduce(x^2, max) with DAG_KERNELs over rows and
   columns, from an init that wins where it is larger */
TEST(mapreduce_takes_c_functions_or_dag_kernels_as_its_operators) {
    enum { R = 26, C = 17 };
    static double h[R * C];
    random_matrix(h, R, C, 12);
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(7, 4), h, DAG_COL_MAJOR, R);
    for (int dims = 0; dims <= 2; dims++) {
        dag_array *r = dag_array_mapreduce_fn(absolute, plus, A, dims, 1.0);
        CHECK(r != NULL);
        double *got = host_of(r), err = 0;
        int n = dims == 1 ? C : dims == 2 ? R : 1;
        for (int k = 0; k < n; k++) {
            double want = 1.0;
            for (int j = 0; j < C; j++)
                for (int i = 0; i < R; i++)
                    if (dims == 0 || (dims == 1 && j == k) || (dims == 2 && i == k)) want += fabs(h[i + j * R]);
            err = fmax(err, fabs(got[k] - want));
        }
        CHECK(err < 1e-12);
        free(got);
        dag_array_free(r);
    }
    for (int dims = 1; dims <= 2; dims++) {
        dag_array *r = dag_array_mapreduce(square_it, keep_max, A, dims, 0.25);
        CHECK(r != NULL);
        CHECK_EQ_INT(dag_array_rows(r), dims == 1 ? 1 : R);
        double *got = host_of(r);
        int bad = 0, n = dims == 1 ? C : R;
        for (int k = 0; k < n; k++) {
            double want = 0.25;
            for (int t = 0; t < (dims == 1 ? R : C); t++) {
                double v = dims == 1 ? h[t + k * R] : h[k + t * R];
                want = fmax(want, v * v);
            }
            bad += got[k] != want;
        }
        CHECK_EQ_INT(bad, 0);
        free(got);
        dag_array_free(r);
    }
    CHECK(dag_array_mapreduce_desc(NULL, &square_it__desc, A, 0, 0) == NULL);   /* dims 0 takes C functions */
    dag_array_free(A);
}

/* out = 2 x - y .* z with y a column (across columns), z a row (down rows), then with a scalar; A .+ v
   through dag_array_add; int32 maps; inputs in other tilings and a view as the output */
TEST(maps_of_several_inputs_broadcast_columns_rows_and_scalars) {
    enum { R = 19, C = 13 };
    static double x[R * C], y[R], z[C], want[R * C];
    random_matrix(x, R, C, 1), random_matrix(y, R, 1, 2), random_matrix(z, 1, C, 3);
    dag_array *X = dag_array_from_host(DAG_F64, R, C, dag_blocks(5, 4), x, DAG_COL_MAJOR, R);
    dag_array *Y = dag_array_from_host(DAG_F64, R, 1, dag_blocks(7, 1), y, DAG_COL_MAJOR, R);
    dag_array *Z = dag_array_from_host(DAG_F64, 1, C, dag_blocks(1, 3), z, DAG_COL_MAJOR, 1);
    dag_array *O = dag_array_zeros(DAG_F64, R, C, dag_blocks(6, 6));
    CHECK_EQ_INT(dag_array_map3(axpbyz, X, Y, Z, O), DAG_OK);
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) want[i + j * R] = 2.0 * x[i + j * R] - y[i] * z[j];
    double *got = host_of(O);
    CHECK(max_diff(got, want, R * C) == 0);
    free(got);
    dag_array *two = dag_array_scalar(DAG_F64, 3.0);
    CHECK_EQ_INT(dag_array_map3(axpbyz, O, two, Y, O), DAG_OK);   /* in place: O = 2 O - 3 y */
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) want[i + j * R] = 2.0 * want[i + j * R] - 3.0 * y[i];
    got = host_of(O);
    CHECK(max_diff(got, want, R * C) < 1e-14);
    free(got);
    CHECK_EQ_INT(dag_array_add(O, Z, O), DAG_OK);   /* O .+= z (a row) */
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) want[i + j * R] += z[j];
    got = host_of(O);
    CHECK(max_diff(got, want, R * C) < 1e-14);
    free(got);
    /* into a view off the tile boundaries: rows 2-9, columns 1-4 of X take 2 X[...] - y[2..9] z[1..4] */
    dag_array *V = dag_array_view(X, 2, 8, 1, 4), *Yv = dag_array_view(Y, 2, 8, 0, 1), *Zv = dag_array_view(Z, 0, 1, 1, 4);
    CHECK_EQ_INT(dag_array_map3(axpbyz, V, Yv, Zv, V), DAG_OK);
    for (int j = 1; j < 5; j++)
        for (int i = 2; i < 10; i++) x[i + j * R] = 2.0 * x[i + j * R] - y[i] * z[j];
    got = host_of(X);
    CHECK(max_diff(got, x, R * C) == 0);
    free(got);
    dag_array *I1 = dag_array_fill(DAG_I32, 9, 4, dag_blocks(2, 3), 5), *I2 = dag_array_scalar(DAG_I32, -7);
    dag_array *I3 = dag_array_zeros(DAG_I32, 9, 4, dag_blocks(4, 4));
    CHECK_EQ_INT(dag_array_map2(add_i32, I1, I2, I3), DAG_OK);
    double s;
    CHECK_EQ_INT(dag_array_sum(I3, &s), DAG_OK);
    CHECK(s == -2.0 * 36);
    /* refused: a column of the wrong length, a kernel of the wrong arity */
    dag_array *bad = dag_array_zeros(DAG_F64, R - 1, 1, dag_blocks(4, 1));
    CHECK_EQ_INT(dag_array_map3(axpbyz, X, bad, Z, O), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_array_map2(axpbyz, X, Y, O), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "parameters") != NULL);
    dag_array_free(bad), dag_array_free(I1), dag_array_free(I2), dag_array_free(I3), dag_array_free(two);
    dag_array_free(V), dag_array_free(Yv), dag_array_free(Zv);
    dag_array_free(X), dag_array_free(Y), dag_array_free(Z), dag_array_free(O);
}

/* ---- vectors: 1-D arrays (Dagger's DVector) ---- */

/* A vector from the host and back, one element read and written by one index, ndims 1 and its length;
   the constructors (a rand vector the same for any block size); what operations make of a vector stays
   1-D (similar, index, vcat of vectors, view, reductions along dims) while a matrix's results stay 2-D;
   gemm into a vector is A * v; a vector broadcasts across a matrix's columns and sorts; a wrap is the
   caller's memory; misuse is refused */
TEST(vectors_are_one_dimensional_arrays_that_every_operation_takes) {
    enum { N = 37, M = 23 };
    static double h[N], out[N], a[M * N], y[M], w[N];
    random_matrix(h, N, 1, 81), random_matrix(a, M, N, 82);
    dag_array *v = dag_vector_from_host(DAG_F64, N, 8, h);
    CHECK(v != NULL);
    CHECK_EQ_INT(dag_array_ndims(v), 1);
    CHECK_EQ_INT(dag_array_length(v), N);
    CHECK_EQ_INT(dag_array_rows(v), N);
    CHECK_EQ_INT(dag_array_cols(v), 1);
    CHECK_EQ_INT(dag_array_tile_rows(v), 5);
    CHECK_EQ_INT(dag_vector_collect(v, out), DAG_OK);
    CHECK(max_diff(out, h, N) == 0);
    double x = 0;
    CHECK_EQ_INT(dag_vector_get(v, N - 1, &x), DAG_OK);
    CHECK(x == h[N - 1]);
    CHECK_EQ_INT(dag_vector_put(v, 3, 7.5), DAG_OK);
    CHECK_EQ_INT(dag_vector_get(v, 3, &x), DAG_OK);
    CHECK(x == 7.5);
    h[3] = 7.5;
    CHECK_EQ_INT(dag_vector_get(v, N, &x), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_vector_get(v, -1, &x), DAG_ERR_INVALID_ARGUMENT);

    /* constructors */
    dag_array *z = dag_vector_zeros(DAG_F64, N, 8), *o = dag_vector_ones(DAG_I32, N, 8), *f = dag_vector_fill(DAG_F32, N, 8, 2.5);
    dag_array *r1 = dag_vector_rand(DAG_F64, N, 8, 5), *r2 = dag_vector_rand(DAG_F64, N, 16, 5), *rn = dag_vector_randn(DAG_F64, N, 0, 6);
    dag_array *u = dag_vector_undef(DAG_CF64, N, 0);
    dag_array *all[] = { z, o, f, r1, r2, rn, u };
    for (int k = 0; k < 7; k++) {
        CHECK(all[k] != NULL);
        CHECK_EQ_INT(dag_array_ndims(all[k]), 1);
        CHECK_EQ_INT(dag_array_length(all[k]), N);
    }
    double sz = 1, so = 0, sf = 0;
    static double v1[N], v2[N];
    CHECK_EQ_INT(dag_vector_collect(r1, v1), DAG_OK);
    CHECK_EQ_INT(dag_vector_collect(r2, v2), DAG_OK);
    CHECK(max_diff(v1, v2, N) == 0 && v1[0] != v1[1]);   /* the same values in blocks of 8 and of 16 */
    CHECK_EQ_INT(dag_array_sum(z, &sz), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(o, &so), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(f, &sf), DAG_OK);
    CHECK(sz == 0 && so == N && sf == 2.5 * N);

    /* what operations make of a vector */
    dag_array *s = dag_array_similar(v);
    int64_t idx[3] = { 5, 0, N - 1 };
    dag_array *iv = dag_array_index(v, idx, 3, NULL, 0);
    dag_array *two[2] = { v, z };
    dag_array *cat = dag_array_vcat(2, two);
    dag_array *vw = dag_vector_view(v, 10, 20);
    dag_array *sum1 = dag_array_reduce_dims(DAG_OP_SUM, v, 1, 0.0), *plus1 = dag_array_reduce_dims(DAG_OP_SUM, v, 2, 1.0);
    dag_array *mean = dag_array_mean_dims(v, 1);
    dag_array *made[] = { s, iv, cat, vw, sum1, plus1, mean };
    int64_t lengths[] = { N, 3, 2 * N, 20, 1, N, 1 };
    for (int k = 0; k < 7; k++) {
        CHECK(made[k] != NULL);
        CHECK_EQ_INT(dag_array_ndims(made[k]), 1);
        CHECK_EQ_INT(dag_array_length(made[k]), lengths[k]);
    }
    double want = 0;
    for (int i = 0; i < N; i++) want += h[i];
    CHECK_EQ_INT(dag_vector_get(sum1, 0, &x), DAG_OK);
    CHECK(fabs(x - want) < 1e-12);
    CHECK_EQ_INT(dag_vector_get(mean, 0, &x), DAG_OK);
    CHECK(fabs(x - want / N) < 1e-12);
    CHECK_EQ_INT(dag_vector_get(plus1, 7, &x), DAG_OK);
    CHECK(x == h[7] + 1.0);
    CHECK_EQ_INT(dag_vector_get(iv, 0, &x), DAG_OK);
    CHECK(x == h[5]);
    CHECK_EQ_INT(dag_vector_get(vw, 0, &x), DAG_OK);
    CHECK(x == h[10]);
    CHECK_EQ_INT(dag_vector_get(cat, N + 4, &x), DAG_OK);
    CHECK(x == 0);

    /* a matrix's results stay 2-D, and A * v is a vector */
    dag_array *A = dag_array_from_host(DAG_F64, M, N, dag_blocks(8, 8), a, DAG_COL_MAJOR, M);
    dag_array *col = dag_array_reduce_dims(DAG_OP_SUM, A, 2, 0.0), *Y = dag_vector_undef(DAG_F64, M, 8);
    dag_array *mixed[2] = { v, dag_array_view(A, 0, M, 0, 1) };
    dag_array *cat2 = dag_array_vcat(2, mixed);
    CHECK_EQ_INT(dag_array_ndims(A), 2);
    CHECK_EQ_INT(dag_array_ndims(col), 2);
    CHECK_EQ_INT(dag_array_ndims(cat2), 2);   /* a vector over a matrix's column: a column, not a vector */
    CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, A, v, 0.0, Y), DAG_OK);
    CHECK_EQ_INT(dag_array_ndims(Y), 1);
    CHECK_EQ_INT(dag_vector_collect(Y, y), DAG_OK);
    double err = 0;
    for (int i = 0; i < M; i++) {
        double t = 0;
        for (int l = 0; l < N; l++) t += a[i + l * M] * h[l];
        err = fmax(err, fabs(t - y[i]));
    }
    CHECK(err < 1e-12);
    CHECK_EQ_INT(dag_array_add(A, Y, A), DAG_OK);   /* A .+ y: y across A's columns */
    CHECK_EQ_INT(dag_array_get(A, 4, 9, &x), DAG_OK);
    CHECK(fabs(x - (a[4 + 9 * M] + y[4])) < 1e-15);
    CHECK_EQ_INT(dag_array_sort(v, false), DAG_OK);
    CHECK_EQ_INT(dag_vector_collect(v, out), DAG_OK);
    for (int i = 1; i < N; i++) CHECK(out[i - 1] <= out[i]);

    /* a wrap: the caller's memory */
    dag_array *wv = dag_vector_wrap(DAG_F64, N, 8, w);
    CHECK_EQ_INT(dag_array_ndims(wv), 1);
    CHECK_EQ_INT(dag_array_set(wv, 3.0), DAG_OK);
    for (int i = 0; i < N; i++) CHECK(w[i] == 3.0);

    /* misuse */
    CHECK(dag_vector_zeros(DAG_F64, 0, 8) == NULL);
    CHECK(dag_vector_from_host(DAG_F64, N, 8, NULL) == NULL);
    CHECK(dag_vector_view(A, 0, 3) == NULL);                  /* a matrix is not a vector */
    CHECK_EQ_INT(dag_vector_get(A, 0, &x), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_vector_collect(NULL, out), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_vector_view(v, 30, 20) == NULL);               /* past its end */
    CHECK_EQ_INT(dag_array_ndims(NULL), 0);
    CHECK_EQ_INT(dag_array_length(NULL), 0);

    dag_array *frees[] = { v, z, o, f, r1, r2, rn, u, s, iv, cat, vw, sum1, plus1, mean, A, col, Y, mixed[1], cat2, wv };
    for (size_t k = 0; k < sizeof frees / sizeof frees[0]; k++) dag_array_free(frees[k]);
}

/* ---- on devices ---- */

/* A program of the new operations; its results into out (R * C + 2 R + N * 2 + C + 2 N * N + C values). */
enum { DR = 33, DC = 21, DN = 48 };
static void device_program(double *out) {
    static double h[DR * DC], m[DN * DN], b[DN * 2];
    random_matrix(h, DR, DC, 41), random_matrix(m, DN, DN, 42), random_matrix(b, DN, 2, 43);
    dag_array *A = dag_array_from_host(DAG_F64, DR, DC, dag_blocks(8, 6), h, DAG_COL_MAJOR, DR);
    dag_array *V = dag_array_view(A, 3, 20, 2, 11), *W = dag_array_view(A, 8, 20, 6, 11);
    CHECK_EQ_INT(dag_array_add(V, W, W), DAG_OK);                               /* copies through a view */
    dag_array *col = dag_array_reduce_dims(DAG_OP_MAX, A, 2, -1.0);            /* rows x 1 */
    dag_array *row = dag_array_reduce_dims(DAG_OP_SUM, A, 1, 0.5);             /* 1 x cols */
    dag_array *sq = dag_array_mapreduce(square_it, keep_max, A, 2, 0.0);
    CHECK_EQ_INT(dag_array_map3(axpbyz, A, col, row, A), DAG_OK);             /* broadcasts */
    int64_t perm[DR];
    for (int i = 0; i < DR; i++) perm[i] = (i * 7 + 3) % DR;
    dag_array *P = dag_array_index(A, perm, DR, NULL, 0);                      /* A's rows permuted, */
    CHECK(P != NULL);
    CHECK_EQ_INT(dag_array_copy(P, A), DAG_OK);                                 /* back into A */
    dag_array_free(P);
    CHECK(col && row && sq);
    CHECK_EQ_INT(dag_array_collect(A, out, DAG_COL_MAJOR, DR), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(col, out + DR * DC, DAG_COL_MAJOR, DR), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(sq, out + DR * DC + DR, DAG_COL_MAJOR, DR), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(row, out + DR * DC + 2 * DR + DN * 2, DAG_COL_MAJOR, 1), DAG_OK);
    dag_array *M = dag_array_from_host(DAG_F64, DN, DN, dag_blocks(16, 16), m, DAG_COL_MAJOR, DN);
    dag_array *B = dag_array_from_host(DAG_F64, DN, 2, dag_blocks(16, 2), b, DAG_COL_MAJOR, DN);
    CHECK_EQ_INT(dag_array_gesv(M, NULL, B), DAG_OK);                          /* trsm and gemm on the devices */
    CHECK_EQ_INT(dag_array_collect(B, out + DR * DC + 2 * DR, DAG_COL_MAJOR, DN), DAG_OK);
    dag_array *Q = dag_array_from_host(DAG_F64, DN, DN, dag_blocks(16, 16), m, DAG_COL_MAJOR, DN);
    static double tau[DN];
    CHECK_EQ_INT(dag_array_geqrf(Q, tau), DAG_OK);                             /* its updates on the devices */
    CHECK_EQ_INT(dag_array_collect(Q, out + DR * DC + 2 * DR + DN * 2 + DC, DAG_COL_MAJOR, DN), DAG_OK);
    dag_array *QQ = dag_array_orgqr(Q, tau, DN);                                 /* Q's gemms there too */
    CHECK(QQ != NULL);
    CHECK_EQ_INT(dag_array_ormqr(1, 1, Q, tau, QQ), DAG_OK);                   /* Q Q^H = I */
    CHECK_EQ_INT(dag_array_collect(QQ, out + DR * DC + 2 * DR + DN * 2 + DC + DN * DN, DAG_COL_MAJOR, DN), DAG_OK);
    dag_array_free(Q), dag_array_free(QQ);
    CHECK_EQ_INT(dag_array_svd(A, NULL, out + DR * DC + 2 * DR + DN * 2 + DC + 2 * DN * DN, NULL), DAG_OK);   /* its QR there */
    dag_array_free(V), dag_array_free(W), dag_array_free(col), dag_array_free(row), dag_array_free(sq);
    dag_array_free(A), dag_array_free(M), dag_array_free(B);
}

TEST(the_new_operations_under_a_device_scope_give_the_cpus_results) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { LEN = DR * DC + 2 * DR + DN * 2 + DC + 2 * DN * DN + DC };
    static double cpu[LEN], dev[LEN];
    device_program(cpu);
    static dag_trace_record rec[8192];
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { device_program(dev); }
    dag_trace_enable(0);
    size_t n = dag_trace_records(rec, 8192), on[5] = { 0 };
    const char *names[5] = { "copy", "reduce", "broadcast", "axpbyz", "gemm" };
    for (size_t i = 0; i < n && i < 8192; i++)
        for (int k = 0; k < 5; k++) on[k] += rec[i].backend == DAG_OPENCL && !strcmp(rec[i].name, names[k]);
    for (int k = 0; k < 5; k++) {
        if (!on[k]) printf("     no '%s' task ran on a device\n", names[k]);
        CHECK(on[k] > 0);
    }
    /* everything but the solve bit for bit; the solve to rounding (its kernels sum in another order) */
    CHECK(max_diff(cpu, dev, DR * DC + 2 * DR) == 0);
    CHECK(max_diff(cpu + DR * DC + 2 * DR + DN * 2, dev + DR * DC + 2 * DR + DN * 2, DC) == 0);
    CHECK(max_diff(cpu + DR * DC + 2 * DR, dev + DR * DC + 2 * DR, DN * 2) < 1e-9);
    double *qr_cpu = cpu + LEN - DC - 2 * DN * DN, *qr_dev = dev + LEN - DC - 2 * DN * DN;
    CHECK(max_diff(qr_cpu, qr_dev, DN * DN) < 1e-10);   /* the QR */
    for (int j = 0; j < DN; j++)   /* Q Q^H: the identity on both */
        for (int i = 0; i < DN; i++) {
            CHECK(fabs(qr_dev[DN * DN + i + j * DN] - (i == j)) < 1e-12);
            CHECK(fabs(qr_cpu[DN * DN + i + j * DN] - (i == j)) < 1e-12);
        }
    CHECK(max_diff(cpu + LEN - DC, dev + LEN - DC, DC) < 1e-10);   /* the singular values */
}

/* CAQR's factor (3 domains of 5 tile rows) and Q, into out (M x N, then M x M) */
enum { CQM = 70, CQN = 40 };
static void caqr_program(double *out) {
    static double h[CQM * CQN];
    random_matrix(h, CQM, CQN, 51);
    dag_array *A = dag_array_from_host(DAG_F64, CQM, CQN, dag_blocks(16, 16), h, DAG_COL_MAJOR, CQM);
    dag_array_qr *f = dag_array_caqr(A, 3);
    CHECK(f != NULL);
    dag_array *Q = dag_array_qr_orgqr(f, CQM);
    CHECK(Q != NULL);
    CHECK_EQ_INT(dag_array_collect(A, out, DAG_COL_MAJOR, CQM), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(Q, out + CQM * CQN, DAG_COL_MAJOR, CQM), DAG_OK);
    dag_array_qr_free(f);
    dag_array_free(A), dag_array_free(Q);
}
/* Under a device scope CAQR's updates (gemms) run on the devices, its panels and merges on the CPU, and
   the factor and Q equal the CPU's to rounding */
TEST(caqr_under_a_device_scope_gives_the_cpus_factor_and_q) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    static double cpu[CQM * CQN + CQM * CQM], dev[CQM * CQN + CQM * CQM];
    caqr_program(cpu);
    static dag_trace_record rec[8192];
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { caqr_program(dev); }
    dag_trace_enable(0);
    size_t n = dag_trace_records(rec, 8192), gemms = 0, merges = 0;
    for (size_t i = 0; i < n && i < 8192; i++) {
        gemms += rec[i].backend == DAG_OPENCL && !strcmp(rec[i].name, "gemm");
        merges += !strcmp(rec[i].name, "qr merge");
    }
    CHECK(gemms > 0);
    CHECK(merges > 0);
    double err = max_diff(cpu, dev, CQM * CQN + CQM * CQM);
    if (err >= 1e-10) printf("     the device's CAQR differs from the CPU's by %.3g\n", err);
    CHECK(err < 1e-10);
}

/* A * v, v .* v and a sum along dims of vectors, into out (VM, then VN, then 1) */
enum { VM = 40, VN = 33 };
static void vector_program(double *out) {
    static double a[VM * VN];
    random_matrix(a, VM, VN, 61);
    dag_array *A = dag_array_from_host(DAG_F64, VM, VN, dag_blocks(16, 16), a, DAG_COL_MAJOR, VM);
    dag_array *v = dag_vector_rand(DAG_F64, VN, 16, 62), *y = dag_vector_zeros(DAG_F64, VM, 16);
    CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, A, v, 0.0, y), DAG_OK);
    CHECK_EQ_INT(dag_array_mul(v, v, v), DAG_OK);
    dag_array *s = dag_array_reduce_dims(DAG_OP_SUM, v, 1, 0.0);
    CHECK(s != NULL && dag_array_ndims(s) == 1 && dag_array_ndims(y) == 1);
    CHECK_EQ_INT(dag_vector_collect(y, out), DAG_OK);
    CHECK_EQ_INT(dag_vector_collect(v, out + VM), DAG_OK);
    CHECK_EQ_INT(dag_vector_collect(s, out + VM + VN), DAG_OK);
    dag_array_free(A), dag_array_free(v), dag_array_free(y), dag_array_free(s);
}
/* Vectors under a device scope: their gemm and element-wise kernels on the devices, the CPU's results */
TEST(vectors_under_a_device_scope_give_the_cpus_results) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    static double cpu[VM + VN + 1], dev[VM + VN + 1];
    vector_program(cpu);
    static dag_trace_record rec[4096];
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { vector_program(dev); }
    dag_trace_enable(0);
    size_t n = dag_trace_records(rec, 4096), on = 0;
    for (size_t i = 0; i < n && i < 4096; i++) on += rec[i].backend == DAG_OPENCL;
    CHECK(on > 0);
    CHECK(max_diff(cpu + VM, dev + VM, VN) == 0);            /* rand and v .* v: bit for bit */
    CHECK(max_diff(cpu, dev, VM) < 1e-12);                   /* the gemm and the sum: to rounding */
    CHECK(max_diff(cpu + VM + VN, dev + VM + VN, 1) < 1e-12);
}

/* ---- QR ---- */

/* geqrf gives geqr2's R, V and tau (LAPACKE's too in the OpenBLAS build) on ragged sizes, tall and wide,
   of its own tiles and wrapped */
TEST(tiled_qr_gives_lapacks_r_reflectors_and_tau_on_ragged_sizes) {
    static const int cases[][3] = { { 60, 60, 16 }, { 90, 40, 16 }, { 40, 70, 16 }, { 33, 33, 33 }, { 57, 31, 8 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int m = cases[c][0], n = cases[c][1], nb = cases[c][2], kn = m < n ? m : n;
        double *a = malloc(sizeof(double) * (size_t)(m * n)), *f = malloc(sizeof(double) * (size_t)(m * n)),
               *ref = malloc(sizeof(double) * (size_t)(m * n)), *tau = malloc(sizeof(double) * (size_t)kn),
               *tref = malloc(sizeof(double) * (size_t)kn);
        random_matrix(a, m, n, 70u + (unsigned)c);
        memcpy(ref, a, sizeof(double) * (size_t)(m * n));
        qr_reference(ref, m, n, tref);
        for (int wrapped = 0; wrapped < 2; wrapped++) {
            memcpy(f, a, sizeof(double) * (size_t)(m * n));
            dag_array *A = wrapped ? dag_array_wrap(DAG_F64, m, n, dag_blocks(nb, nb), f, m)
                                   : dag_array_from_host(DAG_F64, m, n, dag_blocks(nb, nb), a, DAG_COL_MAJOR, m);
            CHECK_EQ_INT(dag_array_geqrf(A, tau), DAG_OK);
            if (!wrapped) CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, m), DAG_OK);
            double err = fmax(max_diff(f, ref, m * n), max_diff(tau, tref, kn));
            if (err > 1e-12) printf("     %d x %d in %d%s: differs by %.1e\n", m, n, nb, wrapped ? " (wrapped)" : "", err);
            CHECK(err < 1e-12);
            dag_array_free(A);
        }
#if defined(DAG_ARRAY_CBLAS)
        memcpy(ref, a, sizeof(double) * (size_t)(m * n));
        CHECK_EQ_INT(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, ref, m, tref), 0);
        CHECK(max_diff(f, ref, m * n) < 1e-12 && max_diff(tau, tref, kn) < 1e-12);
#endif
        free(a), free(f), free(ref), free(tau), free(tref);
    }
}

/* gels on a tall system with a known least-squares solution: B = A x + r with r orthogonal to A's
   columns, so x is the solution; B in another tiling; float QR reaches float accuracy */
TEST(least_squares_through_qr_recovers_the_solution_of_a_tall_system) {
    enum { M = 75, N = 30, K = 2 };
    static double a[M * N], b[M * K], x[N * K], r[M * K], got[M * K];
    random_matrix(a, M, N, 81), random_matrix(x, N, K, 82), random_matrix(r, M, K, 83);
    for (int c = 0; c < K; c++) {   /* r minus its projection on A's columns (Gram-Schmidt twice, on the loop) */
        for (int pass = 0; pass < 2; pass++) {
            static double q[M * N];
            memcpy(q, a, sizeof a);
            for (int j = 0; j < N; j++) {
                for (int l = 0; l < j; l++) {
                    double d = 0;
                    for (int i = 0; i < M; i++) d += q[i + l * M] * q[i + j * M];
                    for (int i = 0; i < M; i++) q[i + j * M] -= d * q[i + l * M];
                }
                double nrm = 0;
                for (int i = 0; i < M; i++) nrm += q[i + j * M] * q[i + j * M];
                for (int i = 0; i < M; i++) q[i + j * M] /= sqrt(nrm);
                double d = 0;
                for (int i = 0; i < M; i++) d += q[i + j * M] * r[i + c * M];
                for (int i = 0; i < M; i++) r[i + c * M] -= d * q[i + j * M];
            }
        }
        for (int i = 0; i < M; i++) {
            double v = r[i + c * M];
            for (int l = 0; l < N; l++) v += a[i + l * M] * x[l + c * N];
            b[i + c * M] = v;
        }
    }
    dag_array *A = dag_array_from_host(DAG_F64, M, N, dag_blocks(16, 16), a, DAG_COL_MAJOR, M);
    dag_array *B = dag_array_from_host(DAG_F64, M, K, dag_blocks(9, 1), b, DAG_COL_MAJOR, M);
    CHECK_EQ_INT(dag_array_gels(A, B), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, M), DAG_OK);
    double err = 0;
    for (int c = 0; c < K; c++)
        for (int i = 0; i < N; i++) err = fmax(err, fabs(got[i + c * M] - x[i + c * N]));
    CHECK(err < 1e-10);
    dag_array *W = dag_array_zeros(DAG_F64, 10, 20, dag_blocks(4, 4)), *Bw = dag_array_zeros(DAG_F64, 10, 1, dag_blocks(4, 1));
    CHECK_EQ_INT(dag_array_gels(W, Bw), DAG_ERR_INVALID_ARGUMENT);   /* wide: not a least-squares problem */
    CHECK(strstr(last_error, "rows >= columns") != NULL);
    dag_array_free(A), dag_array_free(B), dag_array_free(W), dag_array_free(Bw);
}

/* ---- sort and stencils ---- */

/* Every element type, ascending and descending, against qsort: ragged sizes, tiles of one element to one
   tile, duplicates, NaNs (floats), one element */
TEST(sort_orders_vectors_of_every_type_as_qsort_does_on_ragged_sizes_and_tilings) {
    static const dag_elem types[4] = { DAG_F64, DAG_F32, DAG_I32, DAG_I64 };
    static const int sizes[] = { 1, 2, 5, 16, 33, 100, 257 }, tiles[] = { 1, 3, 16, 64, 300 };
    int failed = 0, cases = 0;
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t b = 0; b < sizeof tiles / sizeof tiles[0]; b++)
                for (int down = 0; down < 2; down++) {
                    if (tiles[b] == 1 && sizes[s] > 33) continue;
                    int bad = sort_case(types[t], sizes[s], tiles[b], 0, 0, down, 7u * (unsigned)(s * 8 + b) + (unsigned)t,
                                        (int)(s + b) % 2);   /* every other case a row vector */
                    if (bad && failed < 5)
                        printf("     type %d, %d elements in tiles of %d, %s: %d differ\n", (int)types[t], sizes[s],
                               tiles[b], down ? "descending" : "ascending", bad);
                    failed += bad != 0;
                    cases++;
                }
    CHECK_EQ_INT(failed, 0);
    CHECK(cases > 200);
}

/* A view sorts its own rows (on and off the tile boundaries), a wrapped vector is sorted in place, and
   what is not a vector is refused by name */
TEST(sort_of_a_view_sorts_its_rows_alone_and_bad_vectors_are_refused) {
    enum { N = 40 };
    double h[N], want[N], got[N];
    sort_values(h, N, 5, 1, 0.5);
    static const int views[2][2] = { { 5, 26 }, { 7, 20 } };   /* off the tiles of 7, then on them */
    for (int k = 0; k < 2; k++) {
        dag_array *A = dag_array_from_host(DAG_F64, N, 1, dag_blocks(7, 1), h, DAG_COL_MAJOR, N);
        dag_array *V = dag_array_view(A, views[k][0], views[k][1], 0, 1);
        CHECK_EQ_INT(dag_array_sort(V, true), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, N), DAG_OK);
        memcpy(want, h, sizeof h);
        qsort(want + views[k][0], (size_t)views[k][1], sizeof(double), ref_sort_down);
        int bad = 0;
        for (int i = 0; i < N; i++) bad += !(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])));
        CHECK_EQ_INT(bad, 0);
        dag_array_free(V), dag_array_free(A);
    }
    memcpy(want, h, sizeof h);
    memcpy(got, h, sizeof h);
    dag_array *W = dag_array_wrap(DAG_F64, N, 1, dag_blocks(6, 1), got, N);
    CHECK_EQ_INT(dag_array_sort(W, false), DAG_OK);
    qsort(want, N, sizeof(double), ref_sort_up);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += !(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])));
    CHECK_EQ_INT(bad, 0);
    CHECK(isnan(got[N - 1]) && !isnan(got[0]));   /* NaNs last */
    dag_array_free(W);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_sort(NULL, false), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "dag_array_sort: no array") != NULL);
    dag_array *M = dag_array_zeros(DAG_F64, 5, 2, dag_blocks(2, 2));
    CHECK_EQ_INT(dag_array_sort(M, false), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "n x 1 or 1 x n array; this one is 5 x 2") != NULL);
    dag_array_free(M);
    /* a row vector, in ragged tiles and as a view of a matrix's row */
    dag_array *R = dag_array_from_host(DAG_F64, 1, N, dag_blocks(1, 6), h, DAG_COL_MAJOR, 1);
    CHECK_EQ_INT(dag_array_sort(R, true), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(R, got, DAG_COL_MAJOR, 1), DAG_OK);
    memcpy(want, h, sizeof h);
    qsort(want, N, sizeof(double), ref_sort_down);
    bad = 0;
    for (int i = 0; i < N; i++) bad += !(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])));
    CHECK_EQ_INT(bad, 0);
    dag_array_free(R);
    double m2[3 * N];   /* a 3 x N matrix whose middle row is sorted, the others untouched */
    for (int j = 0; j < N; j++) m2[3 * j] = -1, m2[3 * j + 1] = h[j], m2[3 * j + 2] = -2;
    dag_array *M2 = dag_array_from_host(DAG_F64, 3, N, dag_blocks(2, 7), m2, DAG_COL_MAJOR, 3);
    dag_array *row = dag_array_view(M2, 1, 1, 0, N);
    CHECK_EQ_INT(dag_array_sort(row, false), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(M2, m2, DAG_COL_MAJOR, 3), DAG_OK);
    qsort(want, N, sizeof(double), ref_sort_up);
    bad = 0;
    for (int j = 0; j < N; j++)
        bad += m2[3 * j] != -1 || m2[3 * j + 2] != -2 || !(m2[3 * j + 1] == want[j] || (isnan(m2[3 * j + 1]) && isnan(want[j])));
    CHECK_EQ_INT(bad, 0);
    dag_array_free(row), dag_array_free(M2);
    CHECK(dag_array_zeros(DAG_F64, 0, 1, dag_blocks(4, 1)) == NULL);   /* no empty arrays, so no empty sort */
}

/* Jacobi (radius 1, with a source term that depends on the point) and a radius 2 cross, three steps
   alternating two arrays, against the loops: ragged sizes, src and dst in one tiling and in two, one
   tile, fixed and periodic boundaries, double, float and int */
TEST(stencils_take_jacobi_and_radius_two_steps_of_the_plain_loops_on_fixed_and_periodic_boundaries) {
    static const int cases[][7] = {   /* R, C, src tiles, dst tiles, radius */
        { 37, 29, 8, 6, 8, 6, 1 }, { 37, 29, 8, 6, 5, 7, 1 }, { 37, 29, 37, 29, 37, 29, 1 }, { 10, 13, 3, 4, 3, 4, 1 },
        { 9, 7, 2, 2, 2, 2, 1 }, { 37, 29, 8, 6, 5, 9, 2 }, { 30, 22, 10, 11, 10, 11, 2 }, { 5, 4, 5, 4, 5, 4, 2 },
    };
    static const dag_elem types[3] = { DAG_F64, DAG_F32, DAG_I64 };
    int failed = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int per = 0; per < 2; per++)
            for (int t = 0; t < 3; t++) {
                const int *c = cases[k];
                double *h = malloc(sizeof(double) * (size_t)(c[0] * c[1]));
                random_matrix(h, c[0], c[1], 90u + (unsigned)k);
                if (types[t] == DAG_I64)
                    for (int i = 0; i < c[0] * c[1]; i++) h[i] = floor(h[i] * 1000);
                dag_boundary b = per ? dag_boundary_periodic() : dag_boundary_fixed(types[t] == DAG_I64 ? 500 : 1.5);
                double err = stencil_case(types[t], h, c[0], c[1], c[2], c[3], c[4], c[5], 0, 0, c[6], b,
                                          c[6] == 1 ? jacobi_point : cross2_point, 3);
                if (err > 0 && failed < 5)
                    printf("     %d x %d in %d x %d -> %d x %d, radius %d, %s, type %d: differs by %g\n", c[0], c[1],
                           c[2], c[3], c[4], c[5], c[6], per ? "periodic" : "fixed", (int)types[t], err);
                failed += err > 0;
                free(h);
            }
    CHECK_EQ_INT(failed, 0);
    /* from a wrapped matrix into a view off the tiles of a larger array: the view's elements alone change */
    enum { R = 13, C = 11, BR = 20, BC = 17 };
    static double h[R * C], want[R * C], big[BR * BC], got[BR * BC];
    random_matrix(h, R, C, 77), random_matrix(big, BR, BC, 78);
    stencil_reference(want, h, R, C, 1, dag_boundary_fixed(-1.0), jacobi_point, NULL);
    dag_array *W = dag_array_wrap(DAG_F64, R, C, dag_blocks(4, 4), h, R);
    dag_array *B = dag_array_from_host(DAG_F64, BR, BC, dag_blocks(6, 5), big, DAG_COL_MAJOR, BR);
    dag_array *V = dag_array_view(B, 3, R, 2, C);
    CHECK_EQ_INT(dag_array_stencil(V, W, 1, dag_boundary_fixed(-1.0), jacobi_point, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, BR), DAG_OK);
    int bad = 0;
    for (int j = 0; j < BC; j++)
        for (int i = 0; i < BR; i++) {
            bool in = i >= 3 && i < 3 + R && j >= 2 && j < 2 + C;
            bad += got[i + j * BR] != (in ? want[(i - 3) + (j - 2) * R] : big[i + j * BR]);
        }
    CHECK_EQ_INT(bad, 0);
    dag_array_free(V), dag_array_free(B), dag_array_free(W);
}

/* Conway's Game of Life on int32: a glider crosses the periodic boundary (after 4 k generations it is
   the first one moved k cells down and right, modulo the size), each generation the loop's, in ragged
   tiles; against a fixed (dead) boundary it ends as the loop's still block */
TEST(a_glider_crosses_a_periodic_boundary_as_the_game_of_life_moves_it) {
    enum { R = 20, C = 17, GENS = 4 * 17 };
    static double g[R * C], moved[R * C];
    memset(g, 0, sizeof g), memset(moved, 0, sizeof moved);
    put_glider(g, R, C, 15, 12);
    put_glider(moved, R, C, 15 + GENS / 4, 12 + GENS / 4);
    int32_t buf[R * C];
    to_elems(DAG_I32, g, buf, R * C);
    dag_array *x[2] = { dag_array_from_host(DAG_I32, R, C, dag_blocks(6, 5), buf, DAG_COL_MAJOR, R),
                        dag_array_zeros(DAG_I32, R, C, dag_blocks(6, 5)) };
    for (int s = 0; s < GENS; s++) CHECK_EQ_INT(dag_array_stencil(x[(s + 1) % 2], x[s % 2], 1, dag_boundary_periodic(),
                                                                  life_point, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(x[GENS % 2], buf, DAG_COL_MAJOR, R), DAG_OK);
    double got[R * C];
    from_elems(DAG_I32, buf, got, R * C);
    CHECK(max_diff(got, moved, R * C) == 0);
    CHECK(stencil_case(DAG_I32, g, R, C, 6, 5, 6, 5, 0, 0, 1, dag_boundary_periodic(), life_point, 9) == 0);
    CHECK(stencil_case(DAG_I32, g, R, C, 6, 5, 4, 3, 0, 0, 1, dag_boundary_fixed(0), life_point, 24) == 0);
    dag_array_free(x[0]), dag_array_free(x[1]);
}

/* The points as a DAG_KERNEL give jacobi_point's loops (to rounding: a device may fuse multiply-adds), on
   ragged tilings, src and dst in one tiling or two, one tile, fixed and periodic; a kernel of another
   arity and arrays of two types are refused */
TEST(a_stencil_kernel_gives_the_point_functions_steps) {
    static const int cases[][6] = { { 37, 29, 8, 6, 8, 6 }, { 37, 29, 8, 6, 5, 7 }, { 12, 9, 12, 9, 12, 9 }, { 9, 7, 2, 2, 2, 2 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int per = 0; per < 2; per++) {
            const int *c = cases[k];
            double *h = malloc(sizeof(double) * (size_t)(c[0] * c[1]));
            random_matrix(h, c[0], c[1], 120u + (unsigned)k);
            double err = stencil_kernel_case(h, c[0], c[1], c[2], c[3], c[4], c[5], 0, 0,
                                             per ? dag_boundary_periodic() : dag_boundary_fixed(1.5), 3);
            if (err > 1e-12) printf("     %d x %d, %s: differs by %g\n", c[0], c[1], per ? "periodic" : "fixed", err);
            CHECK(err <= 1e-12);
            free(h);
        }
    dag_array *a = dag_array_zeros(DAG_F64, 6, 6, dag_blocks(3, 3)), *b = dag_array_zeros(DAG_F64, 6, 6, dag_blocks(3, 3));
    dag_array *f = dag_array_zeros(DAG_F32, 6, 6, dag_blocks(3, 3));
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_stencil_desc(&square_it__desc, b, a, 1, dag_boundary_periodic()), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "not a DAG_KERNEL of six parameters") != NULL);
    CHECK_EQ_INT(dag_array_stencil_kernel(jacobi_kernel, f, a, 1, dag_boundary_periodic()), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "one element type") != NULL);
    dag_array_free(a), dag_array_free(b), dag_array_free(f);
}

/* A radius and a boundary per dimension against the rules as dag_array.h states them, computed here
   element by element: random shapes, tilings, radii 0 to 2 per dimension and every boundary kind per
   dimension (a fixed one's value wins at a corner, rows first; a linear one extrapolates along the rows
   with the column clamped, else along the columns; each antireflect or antimirror crossed flips the sign),
   the C function and a DAG_KERNEL of radius (1, 2); a call is refused exactly when the rules say so */
static double weighted_box(const double *x, int64_t ld, int64_t r, int64_t c, void *u) {
    (void)r, (void)c;
    const int *rad = (const int *)u;
    double s = 0;
    for (int j = -rad[1]; j <= rad[1]; j++)
        for (int i = -rad[0]; i <= rad[0]; i++) s += x[i + j * ld] * (1 + 0.25 * (i + 2) + 0.0625 * (j + 2));
    return s;
}
DAG_KERNEL(weighted_box12, ((long, rows), (long, ld), (long, r0), (long, c0), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t k = DAG_INDEX();
    long i = (long)(k % (size_t)rows), j = (long)(k / (size_t)rows);
    double s = 0;
    for (long dj = -2; dj <= 2; dj++)
        for (long di = -1; di <= 1; di++) s += x[(i + 1 + di) + (j + 2 + dj) * ld] * (1 + 0.25 * (double)(di + 2) + 0.0625 * (double)(dj + 2));
    y[k] = s;
    (void)r0, (void)c0;
)
static bool maps_kind(dag_boundary_kind k) { return k >= DAG_BOUNDARY_CLAMP && k <= DAG_BOUNDARY_LINEAR; }
static int ref_index(dag_boundary_kind k, int g, int n) {
    if (g >= 0 && g < n) return g;
    switch (k) {
    case DAG_BOUNDARY_PERIODIC: return ((g % n) + n) % n;
    case DAG_BOUNDARY_CLAMP: case DAG_BOUNDARY_LINEAR: return g < 0 ? 0 : n - 1;
    case DAG_BOUNDARY_REFLECT: case DAG_BOUNDARY_ANTIREFLECT: return g < 0 ? -g - 1 : 2 * n - 1 - g;
    default: return g < 0 ? -g : 2 * n - 2 - g;
    }
}
static double ref_ghost(const double *a, int rows, int cols, const dag_boundary *b, int g, int h) {
    bool og = g < 0 || g >= rows, oh = h < 0 || h >= cols;
    if (og && !maps_kind(b[0].kind) && b[0].kind != DAG_BOUNDARY_PERIODIC) return b[0].value;
    if (oh && !maps_kind(b[1].kind) && b[1].kind != DAG_BOUNDARY_PERIODIC) return b[1].value;
    int gi = ref_index(b[0].kind, g, rows), hj = ref_index(b[1].kind, h, cols);
    double sign = 1;
    if (og && (b[0].kind == DAG_BOUNDARY_ANTIREFLECT || b[0].kind == DAG_BOUNDARY_ANTIMIRROR)) sign = -sign;
    if (oh && (b[1].kind == DAG_BOUNDARY_ANTIREFLECT || b[1].kind == DAG_BOUNDARY_ANTIMIRROR)) sign = -sign;
    double edge = a[gi + hj * rows];
    if (og && b[0].kind == DAG_BOUNDARY_LINEAR) {
        int k = g < 0 ? -g : g - (rows - 1);
        return sign * (edge + k * (edge - a[gi + (g < 0 ? 1 : -1) + hj * rows]));
    }
    if (oh && b[1].kind == DAG_BOUNDARY_LINEAR) {
        int k = h < 0 ? -h : h - (cols - 1);
        return sign * (edge + k * (edge - a[gi + (hj + (h < 0 ? 1 : -1)) * rows]));
    }
    return sign * edge;
}
TEST(a_radius_and_a_boundary_per_dimension_follow_the_stated_rules) {
    dag_boundary kinds[9] = { dag_boundary_fixed(0.5), dag_boundary_periodic(), dag_boundary_clamp(), dag_boundary_reflect(),
                              dag_boundary_mirror(), dag_boundary_antireflect(), dag_boundary_antimirror(),
                              dag_boundary_linear(), dag_boundary_fixed(-2) };
    unsigned seed = 7;
    int ran = 0, refused = 0, wrong = 0;
    for (int round = 0; round < 400; round++) {
        seed = seed * 1103515245u + 12345u;
        int rows = 1 + (int)(seed >> 8) % 9, cols = 1 + (int)(seed >> 14) % 9;
        int br = 1 + (int)(seed >> 20) % 4, bc = 1 + (int)(seed >> 24) % 4;
        bool kernel = round % 4 == 3;
        int rad[2] = { kernel ? 1 : (int)(seed >> 27) % 3, kernel ? 2 : (int)(seed >> 29) % 3 };
        seed = seed * 1103515245u + 12345u;
        dag_boundary b[2] = { kinds[(seed >> 10) % 9], kinds[(seed >> 20) % 9] };
        /* the rules for refusing */
        bool ok = true;
        for (int d = 0; d < 2; d++) {
            int n = d ? cols : rows, bs = d ? bc : br, tiles = (n + bs - 1) / bs, last = n - (tiles - 1) * bs;
            int smallest = last < bs ? last : bs;
            dag_boundary_kind k = b[d].kind;
            bool mirror = k == DAG_BOUNDARY_MIRROR || k == DAG_BOUNDARY_ANTIMIRROR;
            if ((mirror || k == DAG_BOUNDARY_REFLECT || k == DAG_BOUNDARY_ANTIREFLECT) && rad[d] + mirror > n) ok = false;
            if (k == DAG_BOUNDARY_LINEAR && rad[d] > 0 && n < 2) ok = false;
            if ((tiles > 1 || k == DAG_BOUNDARY_PERIODIC) && rad[d] > smallest) ok = false;
        }
        double *h = malloc(sizeof(double) * (size_t)(rows * cols)), *got = malloc(sizeof(double) * (size_t)(rows * cols));
        random_matrix(h, rows, cols, 300u + (unsigned)round);
        dag_array *src = dag_array_from_host(DAG_F64, rows, cols, dag_blocks(br, bc), h, DAG_COL_MAJOR, rows);
        dag_array *dst = dag_array_zeros(DAG_F64, rows, cols, dag_blocks(br, bc));
        dag_stencil_dims dims = { { rad[0], rad[1] }, { b[0], b[1] } };
        dag_result r = kernel ? dag_array_stencil_dims_kernel(weighted_box12, dst, src, dims)
                              : dag_array_stencil_dims(dst, src, dims, weighted_box, rad);
        if (r != (ok ? DAG_OK : DAG_ERR_INVALID_ARGUMENT)) {
            printf("     %d x %d in %d x %d, radius (%d, %d), boundaries (%d, %d)%s: %s\n", rows, cols, br, bc, rad[0], rad[1],
                   (int)b[0].kind, (int)b[1].kind, kernel ? ", kernel" : "", dag_result_string(r));
            wrong++;
        }
        if (r == DAG_OK && ok) {
            ran++;
            CHECK_EQ_INT(dag_array_collect(dst, got, DAG_COL_MAJOR, rows), DAG_OK);
            double err = 0;
            for (int j = 0; j < cols; j++)
                for (int i = 0; i < rows; i++) {
                    double want = 0;
                    for (int dj = -rad[1]; dj <= rad[1]; dj++)
                        for (int di = -rad[0]; di <= rad[0]; di++)
                            want += ref_ghost(h, rows, cols, b, i + di, j + dj) * (1 + 0.25 * (di + 2) + 0.0625 * (dj + 2));
                    err = fmax(err, fabs(want - got[i + j * rows]));
                }
            if (err > 1e-12) {
                printf("     %d x %d in %d x %d, radius (%d, %d), boundaries (%d, %d)%s: differs by %g\n", rows, cols, br, bc,
                       rad[0], rad[1], (int)b[0].kind, (int)b[1].kind, kernel ? ", kernel" : "", err);
                wrong++;
            }
        } else if (!ok) {
            refused++;
        }
        dag_array_free(src), dag_array_free(dst);
        free(h), free(got);
    }
    printf("     %d stencils ran, %d refused as the rules say\n", ran, refused);
    CHECK_EQ_INT(wrong, 0);
    CHECK(ran > 150);
}

/* is_symmetric and is_hermitian: exact, on ragged sizes in tiles that are not square (a copy in square
   ones), integers that differ in their lowest bit only, NaN (never equal) and -0.0 (equal to 0), a
   complex diagonal that is not real, a view, a matrix that is not square */
TEST(symmetry_is_exact_on_every_type_and_tiling) {
    enum { N = 11 };
    double h[N * N];
    random_matrix(h, N, N, 77);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < j; i++) h[j + i * N] = h[i + j * N];
    bool yes = false, no = true;
    dag_elem types[3] = { DAG_F64, DAG_F32, DAG_I64 };
    for (int t = 0; t < 3; t++) {
        int64_t big[N * N];
        float f[N * N];
        for (int k = 0; k < N * N; k++) big[k] = (int64_t)(h[k] * 1e6) * 1000003 + ((int64_t)1 << 60), f[k] = (float)h[k];
        const void *src = types[t] == DAG_F64 ? (const void *)h : types[t] == DAG_F32 ? (const void *)f : (const void *)big;
        dag_array *a = dag_array_from_host(types[t], N, N, dag_blocks(4, 3), src, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_is_symmetric(a, &yes), DAG_OK);
        CHECK(yes);
        CHECK_EQ_INT(dag_array_is_hermitian(a, &yes), DAG_OK);
        CHECK(yes);
        dag_array_free(a);
        if (types[t] == DAG_I64) big[2 + 7 * N] ^= 1;   /* one bit off, where a double could not tell */
        else if (types[t] == DAG_F64) h[2 + 7 * N] = NAN, h[7 + 2 * N] = NAN;
        else f[3 + 3 * N] = NAN;
        a = dag_array_from_host(types[t], N, N, dag_blocks(4, 3), src, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_is_symmetric(a, &no), DAG_OK);
        CHECK(!no);
        dag_array_free(a);
        if (types[t] == DAG_F64) h[2 + 7 * N] = 0.0, h[7 + 2 * N] = -0.0;
    }
    dag_array *a = dag_array_from_host(DAG_F64, N, N, dag_blocks(5, 5), h, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_is_symmetric(a, &yes), DAG_OK);
    CHECK(yes);   /* -0.0 == 0.0 */
    dag_array *v = dag_array_view(a, 1, 6, 1, 6), *w = dag_array_view(a, 1, 6, 2, 6), *r = dag_array_view(a, 0, 4, 0, 6);
    CHECK_EQ_INT(dag_array_is_symmetric(v, &yes), DAG_OK);
    CHECK(yes);
    CHECK_EQ_INT(dag_array_is_symmetric(w, &no), DAG_OK);
    CHECK(!no);
    no = true;
    CHECK_EQ_INT(dag_array_is_hermitian(r, &no), DAG_OK);   /* 4 x 6: neither */
    CHECK(!no);
    dag_array_free(v), dag_array_free(w), dag_array_free(r), dag_array_free(a);
    double c[2 * N * N];   /* Hermitian: c(j, i) = conj(c(i, j)), a real diagonal */
    for (int j = 0; j < N; j++)
        for (int i = 0; i <= j; i++) {
            c[2 * (i + j * N)] = c[2 * (j + i * N)] = h[i + j * N];
            c[2 * (i + j * N) + 1] = i == j ? 0 : h[j + i * N] + 1;
            c[2 * (j + i * N) + 1] = i == j ? 0 : -(h[j + i * N] + 1);
        }
    dag_array *z = dag_array_from_host(DAG_CF64, N, N, dag_blocks(3, 4), c, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_is_hermitian(z, &yes), DAG_OK);
    CHECK(yes);
    CHECK_EQ_INT(dag_array_is_symmetric(z, &no), DAG_OK);
    CHECK(!no);
    dag_array_free(z);
    c[2 * (4 + 4 * N) + 1] = 0.5;   /* a diagonal that is not real */
    z = dag_array_from_host(DAG_CF64, N, N, dag_blocks(3, 4), c, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_is_hermitian(z, &no), DAG_OK);
    CHECK(!no);
    dag_array_free(z);
    CHECK_EQ_INT(dag_array_is_hermitian(NULL, &no), DAG_ERR_INVALID_ARGUMENT);
}

/* Boundaries of the array's own values (Dagger's Clamp, Reflect and AntiReflect): clamp, reflect and
   mirror, and the last two with the sign flipped once per dimension crossed, radius
   1 and 2, three steps against the loops, on ragged tiles, one tile, src and dst in two tilings, the C
   function and the kernel; and what is too small to reflect is refused by name */
TEST(clamp_reflect_mirror_and_anti_boundaries_take_the_arrays_own_values_past_its_edges) {
    static const int cases[][7] = {   /* R, C, src tiles, dst tiles, radius */
        { 37, 29, 8, 6, 8, 6, 1 }, { 37, 29, 8, 6, 5, 7, 1 }, { 9, 7, 9, 7, 9, 7, 1 }, { 10, 13, 3, 4, 3, 4, 1 }, { 37, 29, 8, 6, 5, 9, 2 },
        { 30, 22, 10, 11, 10, 11, 2 }, { 5, 4, 5, 4, 5, 4, 2 }, { 23, 1, 5, 1, 5, 1, 1 },
    };
    const dag_boundary kinds[5] = { dag_boundary_clamp(), dag_boundary_reflect(), dag_boundary_mirror(),
                                    dag_boundary_antireflect(), dag_boundary_antimirror() };
    int failed = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int b = 0; b < 5; b++)
            for (int t = 0; t < 2; t++) {
                const int *c = cases[k];
                if (c[1] == 1 && (c[6] > 1 || b == 2 || b == 4)) continue;   /* one column: no room to mirror */
                double *h = malloc(sizeof(double) * (size_t)(c[0] * c[1]));
                random_matrix(h, c[0], c[1], 120u + (unsigned)k);
                dag_elem type = t ? DAG_I64 : DAG_F64;
                if (t)
                    for (int i = 0; i < c[0] * c[1]; i++) h[i] = floor(h[i] * 1000);
                double err = stencil_case(type, h, c[0], c[1], c[2], c[3], c[4], c[5], 0, 0, c[6], kinds[b],
                                          c[6] == 1 ? jacobi_point : cross2_point, 3);
                if (!t && c[6] == 1) err = fmax(err, stencil_kernel_case(h, c[0], c[1], c[2], c[3], c[4], c[5], 0, 0, kinds[b], 3));
                if (err > (t ? 0 : 1e-12) && failed < 5)
                    printf("     %d x %d in %d x %d -> %d x %d, radius %d, boundary %d, type %d: differs by %g\n", c[0],
                           c[1], c[2], c[3], c[4], c[5], c[6], (int)kinds[b].kind, (int)type, err);
                failed += err > (t ? 0 : 1e-12);
                free(h);
            }
    CHECK_EQ_INT(failed, 0);
    dag_array *a = dag_array_zeros(DAG_F64, 3, 8, dag_blocks(3, 4)), *d = dag_array_similar(a);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_stencil(d, a, 3, dag_boundary_mirror(), cross2_point, NULL), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "radius 3 is too large to mirror 3 rows (at most 2)") != NULL);
    CHECK_EQ_INT(dag_array_stencil(d, a, 3, dag_boundary_reflect(), cross2_point, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_stencil(d, a, 1, (dag_boundary){ (dag_boundary_kind)(DAG_BOUNDARY_LINEAR + 2), 0 }, jacobi_point, NULL),
                 DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "an unknown boundary kind") != NULL);
    dag_array_free(a), dag_array_free(d);
}

/* mean, var and std of the whole array and along each dimension, corrected or not, against the loops in
   double: every real type, ragged tiles, one tile, a vector; complex arrays and bad dims refused by name */
static double stat_ref(const double *h, int R, int C, int r0, int rs, int c0, int cs, int what, bool corrected) {
    double n = (double)rs * cs, sum = 0, ss = 0;
    for (int j = c0; j < c0 + cs; j++)
        for (int i = r0; i < r0 + rs; i++) sum += h[i + j * R];
    double mean = sum / n;
    if (what == 0) return mean;
    for (int j = c0; j < c0 + cs; j++)
        for (int i = r0; i < r0 + rs; i++) ss += (h[i + j * R] - mean) * (h[i + j * R] - mean);
    (void)C;
    double var = ss / (n - (corrected ? 1 : 0));
    return what == 1 ? var : sqrt(var);
}
TEST(mean_var_and_std_of_the_whole_array_and_along_dims_equal_the_loops) {
    static const int cases[][4] = { { 37, 29, 8, 6 }, { 9, 7, 9, 7 }, { 23, 1, 5, 1 }, { 1, 1, 1, 1 } };
    static const dag_elem types[4] = { DAG_F64, DAG_F32, DAG_I32, DAG_I64 };
    int failed = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int t = 0; t < 4; t++) {
            const int R = cases[k][0], C = cases[k][1];
            double *h = malloc(sizeof(double) * (size_t)(R * C)), *got = malloc(sizeof(double) * (size_t)(R * C));
            int64_t *buf = malloc(sizeof(int64_t) * (size_t)(R * C));
            random_matrix(h, R, C, 300u + (unsigned)k);
            for (int i = 0; i < R * C; i++)
                h[i] = types[t] == DAG_F32 ? (double)(float)(h[i] * 10 + 3) : types[t] >= DAG_I32 ? floor(h[i] * 1000) : h[i] * 10 + 3;
            to_elems(types[t], h, buf, R * C);
            dag_array *a = dag_array_from_host(types[t], R, C, dag_blocks(cases[k][2], cases[k][3]), buf, DAG_COL_MAJOR, R);
            double tol = types[t] == DAG_F32 ? 1e-4 : 1e-9;
            for (int corrected = 0; corrected < 2; corrected++) {
                double m = 0, v = 0, sd = 0, want;
                CHECK_EQ_INT(dag_array_mean(a, &m), DAG_OK);
                CHECK_EQ_INT(dag_array_var(a, corrected, &v), DAG_OK);
                CHECK_EQ_INT(dag_array_std(a, corrected, &sd), DAG_OK);
                want = stat_ref(h, R, C, 0, R, 0, C, 1, corrected);
                failed += fabs(m - stat_ref(h, R, C, 0, R, 0, C, 0, false)) > tol * fmax(1, fabs(m));
                failed += isnan(want) ? !isnan(v) : fabs(v - want) > tol * fmax(1, want);
                failed += isnan(want) ? !isnan(sd) : fabs(sd - sqrt(want)) > tol * fmax(1, sqrt(want));
                for (int dims = 1; dims <= 2; dims++)
                    for (int what = 0; what < 3; what++) {
                        dag_array *s = what == 0 ? dag_array_mean_dims(a, dims) : what == 1 ? dag_array_var_dims(a, dims, corrected)
                                                                                              : dag_array_std_dims(a, dims, corrected);
                        int n = dims == 1 ? C : R;
                        CHECK(s && dag_array_type(s) == DAG_F64 && dag_array_rows(s) == (dims == 1 ? 1 : R) &&
                              dag_array_cols(s) == (dims == 1 ? C : 1));
                        if (!s) continue;
                        CHECK_EQ_INT(dag_array_collect(s, got, DAG_COL_MAJOR, dims == 1 ? 1 : R), DAG_OK);
                        for (int q = 0; q < n; q++) {
                            want = dims == 1 ? stat_ref(h, R, C, 0, R, q, 1, what, corrected) : stat_ref(h, R, C, q, 1, 0, C, what, corrected);
                            bool bad = isnan(want) ? !isnan(got[q]) : fabs(got[q] - want) > tol * fmax(1, fabs(want));
                            if (bad && failed < 5)
                                printf("     %d x %d type %d dims %d what %d corrected %d: %g, not %g\n", R, C, (int)types[t], dims,
                                       what, corrected, got[q], want);
                            failed += bad;
                        }
                        dag_array_free(s);
                    }
            }
            dag_array_free(a);
            free(h), free(got), free(buf);
        }
    CHECK_EQ_INT(failed, 0);
    dag_array *z = dag_array_zeros(DAG_CF64, 4, 4, dag_blocks(2, 2)), *f = dag_array_ones(DAG_F64, 4, 4, dag_blocks(2, 2));
    double out = 0;
    last_error[0] = 0;
    CHECK_EQ_INT(dag_array_var(z, true, &out), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "dag_array_var") != NULL && strstr(last_error, "complex") != NULL);
    CHECK(dag_array_mean_dims(f, 0) == NULL);
    CHECK(strstr(last_error, "dag_array_mean_dims: dims must be 1 (over the rows) or 2 (over the columns)") != NULL);
    CHECK(dag_array_std_dims(f, 3, true) == NULL);
    CHECK_EQ_INT(dag_array_mean(f, NULL), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, "no out") != NULL);
    CHECK_EQ_INT(dag_array_mean(NULL, &out), DAG_ERR_INVALID_ARGUMENT);
    dag_array_free(z), dag_array_free(f);
}

/* A^p for p = 0 to 7 against repeated products in loops, two tilings and float; refusals by name */
TEST(matrix_powers_equal_the_repeated_products_of_the_loops) {
    enum { N = 23 };
    static double h[N * N], want[N * N], tmp[N * N], got[N * N];
    random_matrix(h, N, N, 400);
    for (int i = 0; i < N * N; i++) h[i] *= 0.3;   /* powers stay near 1 */
    static const dag_elem types[2] = { DAG_F64, DAG_F32 };
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < 2; b++) {
            float hf[N * N];
            for (int i = 0; i < N * N; i++) hf[i] = (float)h[i];
            dag_array *a = types[t] == DAG_F64 ? dag_array_from_host(DAG_F64, N, N, dag_blocks(b ? 5 : 8, b ? 5 : 8), h, DAG_COL_MAJOR, N)
                                               : dag_array_from_host(DAG_F32, N, N, dag_blocks(b ? 5 : 8, b ? 5 : 8), hf, DAG_COL_MAJOR, N);
            for (int i = 0; i < N * N; i++) want[i] = i % (N + 1) == 0;   /* the identity */
            for (int p = 0; p <= 7; p++) {
                dag_array *x = dag_array_pow(a, p);
                CHECK(x != NULL);
                if (!x) break;
                if (types[t] == DAG_F64) CHECK_EQ_INT(dag_array_collect(x, got, DAG_COL_MAJOR, N), DAG_OK);
                else {
                    CHECK_EQ_INT(dag_array_collect(x, hf, DAG_COL_MAJOR, N), DAG_OK);
                    for (int i = 0; i < N * N; i++) got[i] = hf[i];
                }
                double err = 0;
                for (int i = 0; i < N * N; i++) err = fmax(err, fabs(got[i] - want[i]));
                CHECK(err < (types[t] == DAG_F64 ? 1e-12 : 1e-4));
                dag_array_free(x);
                for (int j = 0; j < N; j++)   /* want = want * h */
                    for (int i = 0; i < N; i++) {
                        double s = 0;
                        for (int k = 0; k < N; k++) s += want[i + k * N] * h[k + j * N];
                        tmp[i + j * N] = s;
                    }
                memcpy(want, tmp, sizeof want);
            }
            dag_array_free(a);
        }
    dag_array *r = dag_array_zeros(DAG_F64, 4, 5, dag_blocks(2, 2)), *q = dag_array_zeros(DAG_I32, 4, 4, dag_blocks(2, 2));
    last_error[0] = 0;
    CHECK(dag_array_pow(r, 2) == NULL);
    CHECK(strstr(last_error, "dag_array_pow: the matrix is not square") != NULL);
    CHECK(dag_array_pow(q, 2) == NULL);
    CHECK(strstr(last_error, "integer array") != NULL);
    dag_array *sq = dag_array_zeros(DAG_F64, 4, 4, dag_blocks(2, 2));
    CHECK(dag_array_pow(sq, -1) == NULL);
    CHECK(strstr(last_error, "a negative power") != NULL);
    dag_array_free(r), dag_array_free(q), dag_array_free(sq);
}

/* Each bad argument is refused with DAG_ERR_INVALID_ARGUMENT and a log line naming it */
TEST(stencil_arguments_that_cannot_work_are_refused_by_name) {
    dag_array *a = dag_array_zeros(DAG_F64, 9, 7, dag_blocks(4, 3)), *b = dag_array_zeros(DAG_F64, 9, 7, dag_blocks(4, 3));
    dag_array *c = dag_array_zeros(DAG_F64, 7, 9, dag_blocks(4, 3)), *va = dag_array_view(a, 1, 5, 1, 5);
    struct { dag_array *d, *s; int radius; dag_boundary b; dag_stencil_fn f; const char *says; } bad[] = {
        { NULL, a, 1, dag_boundary_periodic(), jacobi_point, "no dst array" },
        { a, NULL, 1, dag_boundary_periodic(), jacobi_point, "no src array" },
        { a, b, 1, dag_boundary_periodic(), NULL, "no point function" },
        { a, a, 1, dag_boundary_periodic(), jacobi_point, "dst and src are one array" },
        { va, a, 1, dag_boundary_periodic(), jacobi_point, "dst and src are one array" },
        { a, c, 1, dag_boundary_periodic(), jacobi_point, "dst is 9 x 7, src 7 x 9: they need one shape" },
        { a, b, -1, dag_boundary_periodic(), jacobi_point, "a negative radius" },
        { a, b, 1, { (dag_boundary_kind)(DAG_BOUNDARY_LINEAR + 1), 0 }, jacobi_point, "an unknown boundary kind" },
        { a, b, 2, dag_boundary_periodic(), jacobi_point, "radius 2 is too large for the tiles" },   /* a tile of 1 row */
        { a, b, 4, dag_boundary_fixed(0), jacobi_point, "has a tile of 1 rows" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        last_error[0] = 0;
        CHECK_EQ_INT(dag_array_stencil(bad[k].d, bad[k].s, bad[k].radius, bad[k].b, bad[k].f, NULL), DAG_ERR_INVALID_ARGUMENT);
        if (!strstr(last_error, bad[k].says)) printf("     case %zu logged \"%s\"\n", k, last_error);
        CHECK(strstr(last_error, bad[k].says) != NULL);
    }
    /* one tile and a fixed boundary: no halo crosses tiles, any radius works */
    dag_array *one = dag_array_ones(DAG_F64, 3, 3, dag_blocks(3, 3)), *out = dag_array_zeros(DAG_F64, 3, 3, dag_blocks(3, 3));
    CHECK_EQ_INT(dag_array_stencil(out, one, 5, dag_boundary_fixed(2), cross2_point, NULL), DAG_OK);
    double v = 0;
    CHECK_EQ_INT(dag_array_get(out, 0, 0, &v), DAG_OK);
    CHECK(fabs(v - (0.5 + 0.1 * (2 + 1 + 2 + 1) + 0.025 * (2 + 1 - 2 + 1))) < 1e-15);
    dag_array_free(one), dag_array_free(out), dag_array_free(va);
    dag_array_free(a), dag_array_free(b), dag_array_free(c);
}

/* Under a scope of devices they run on the CPU and give its results; a scope of devices none of which
   is here fails them with DAG_ERR_SCOPE */
TEST(sort_and_stencil_under_a_device_scope_give_the_cpus_results) {
    enum { R = 23, C = 19 };
    static double h[R * C], cpu[R * C], dev[R * C];
    random_matrix(h, R, C, 31);
    for (int pass = 0; pass < 2; pass++) {
        double *out = pass ? dev : cpu;
        dag_scope s = pass && dag_device_count(DAG_OPENCL) > 0 ? dag_scope(.opencl.all = 1) : dag_scope(.all_threads = 1);
        DAG_WITH_OPTIONS(.scope = s) {
            dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 8), h, DAG_COL_MAJOR, R);
            dag_array *B = dag_array_zeros(DAG_F64, R, C, dag_blocks(8, 8));
            dag_array *V = dag_array_view(B, 0, R, 3, 1);
            CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_periodic(), jacobi_point, NULL), DAG_OK);
            CHECK_EQ_INT(dag_array_sort(V, false), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(B, out, DAG_COL_MAJOR, R), DAG_OK);
            dag_array_free(V), dag_array_free(A), dag_array_free(B);
        }
    }
    CHECK(max_diff(cpu, dev, R * C) == 0);
    for (int i = 1; i < R; i++) CHECK(cpu[i - 1 + 3 * R] <= cpu[i + 3 * R]);
    /* the kernel form: its points on the devices (when there are), to rounding */
    static dag_trace_record rec[4096];
    for (int pass = 0; pass < 2; pass++) {
        double *out = pass ? dev : cpu;
        bool devices = pass && dag_device_count(DAG_OPENCL) > 0;
        dag_scope s = devices ? dag_scope(.opencl.all = 1) : dag_scope(.all_threads = 1);
        dag_trace_enable(1);
        dag_trace_clear();
        DAG_WITH_OPTIONS(.scope = s) {
            dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 8), h, DAG_COL_MAJOR, R);
            dag_array *B = dag_array_zeros(DAG_F64, R, C, dag_blocks(8, 8));
            CHECK_EQ_INT(dag_array_stencil_kernel(jacobi_kernel, B, A, 1, dag_boundary_fixed(0.5)), DAG_OK);
            CHECK_EQ_INT(dag_array_stencil_kernel(jacobi_kernel, A, B, 1, dag_boundary_periodic()), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(A, out, DAG_COL_MAJOR, R), DAG_OK);
            dag_array_free(A), dag_array_free(B);
        }
        dag_trace_enable(0);
        size_t n = dag_trace_records(rec, 4096), on = 0;
        for (size_t i = 0; i < n && i < 4096; i++) on += rec[i].backend == DAG_OPENCL && !strcmp(rec[i].name, "jacobi_kernel");
        if (devices) CHECK(on == 2 * 9);   /* 3 x 3 tiles, two steps */
    }
    CHECK(max_diff(cpu, dev, R * C) < 1e-12);
    if (dag_device_count(DAG_CUDA) == 0) {
        dag_array *A = dag_array_ones(DAG_F64, 4, 1, dag_blocks(2, 1)), *B = dag_array_zeros(DAG_F64, 4, 1, dag_blocks(2, 1));
        DAG_WITH_OPTIONS(.scope = dag_scope(.cuda.all = 1)) {
            CHECK_EQ_INT(dag_array_sort(A, false), DAG_ERR_SCOPE);
            CHECK_EQ_INT(dag_array_stencil(B, A, 1, dag_boundary_periodic(), jacobi_point, NULL), DAG_ERR_SCOPE);
        }
        dag_array_free(A), dag_array_free(B);
    }
}

/* ---- the differential tester ---- */
TEST(random_array_programs_equal_the_same_steps_as_plain_loops) {
    const char *e = getenv("ARRAY_FUZZ_SEEDS");
    int seeds = e ? atoi(e) : 60, failed = 0;
    for (int s = 1; s <= seeds; s++) {
        int bad = array_program((unsigned)s, 12);
        if (bad) printf("     seed %d: %d differences (replay: ARRAY_FUZZ_SEEDS=%d)\n", s, bad, s);
        failed += bad != 0;
    }
    CHECK_EQ_INT(failed, 0);
}

/* An operation keeps nothing behind: the tree of a reduction to one number passed its tasks' results
   on with Futs and fetched the last, and each call kept the others (2 x tiles - 2 results, until
   dag_shutdown: 97 MB after 20,000 sums). Each operation here runs 50 times; the counts of kept
   results and live task records are what they were. */
TEST(reductions_and_solves_keep_no_results_behind) {
    enum { N = 40 };
    dag_array *a = dag_array_randn(DAG_F64, N, N, dag_blocks(8, 8), 1), *b = dag_array_rand(DAG_F64, N, N, dag_blocks(8, 8), 2);
    dag_array *rhs = dag_array_rand(DAG_F64, N, 2, dag_blocks(8, 2), 3);
    dag_wait_all();
    dag_stats before = dag_get_stats();
    double v = 0;
    bool sym = true;
    int bad = 0;
    for (int i = 0; i < 50; i++) {
        bad += dag_array_sum(a, &v) != DAG_OK || dag_array_min(a, &v) != DAG_OK || dag_array_max(a, &v) != DAG_OK;
        bad += dag_array_dot(a, b, &v) != DAG_OK || dag_array_norm2(a, &v) != DAG_OK || dag_array_mean(a, &v) != DAG_OK;
        bad += dag_array_var(a, true, &v) != DAG_OK || dag_array_is_symmetric(a, &sym) != DAG_OK;
        dag_array *lu = dag_array_similar(a), *x = dag_array_similar(rhs);
        int64_t ipiv[N];
        bad += dag_array_copy(a, lu) != DAG_OK || dag_array_copy(rhs, x) != DAG_OK || dag_array_gesv(lu, ipiv, x) != DAG_OK;
        dag_array_free(lu);
        dag_array_free(x);
        dag_array_free(dag_array_reduce_dims(DAG_OP_SUM, a, 1, 0.0));
    }
    CHECK_EQ_INT(bad, 0);
    dag_wait_all();
    dag_stats after = dag_get_stats();
    CHECK_EQ_INT((long long)after.results_kept, (long long)before.results_kept);
    CHECK_EQ_INT((long long)after.tasks_live, (long long)before.tasks_live);
    dag_array_free(a);
    dag_array_free(b);
    dag_array_free(rhs);
}

int main(void) {
    watchdog_start();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    RUN(pivoted_lu_gives_the_pivots_and_factor_of_lapack_on_ragged_sizes_and_tilings);
    RUN(gesv_solves_a_matrix_that_needs_pivoting_and_getrs_reuses_the_factor);
    RUN(pivoted_lu_in_float_reaches_a_float_residual);
    RUN(a_singular_matrix_and_bad_arguments_are_refused_by_name);
    RUN(outputs_that_overlap_a_and_degenerate_inputs_are_refused_or_taken_as_copies);
    RUN(map_between_overlapping_views_reads_its_input_as_a_copy);
    RUN(views_on_and_off_tile_boundaries_read_and_write_the_parent_in_place);
    RUN(copies_between_views_of_different_tilings_move_exactly_their_elements);
    RUN(index_vectors_pick_rows_and_columns_in_any_order_with_repeats);
    RUN(outputs_that_overlap_their_inputs_give_the_answer_of_separate_arrays);
    RUN(an_output_that_is_an_input_through_another_view_and_null_inputs_give_the_right_answer);
    RUN(nan_huge_and_tiny_values_and_impossible_sizes_get_the_documented_answers);
    RUN(elements_and_slices_go_to_and_from_host_memory_and_hcat_vcat_join_arrays);
    RUN(constructors_similar_undef_in_place_rand_and_automatic_blocks);
    RUN(tilings_that_do_not_conform_are_re_tiled_inside_each_operation);
    RUN(reductions_along_a_dimension_with_an_initial_value_match_loops);
    RUN(mapreduce_takes_c_functions_or_dag_kernels_as_its_operators);
    RUN(mapreduce_with_c_functions_on_integers_does_not_depend_on_the_tiling);
    RUN(maps_of_several_inputs_broadcast_columns_rows_and_scalars);
    RUN(tiled_qr_gives_lapacks_r_reflectors_and_tau_on_ragged_sizes);
    RUN(least_squares_through_qr_recovers_the_solution_of_a_tall_system);
    RUN(random_array_programs_equal_the_same_steps_as_plain_loops);
    RUN(vectors_are_one_dimensional_arrays_that_every_operation_takes);
    RUN(the_new_operations_under_a_device_scope_give_the_cpus_results);
    RUN(caqr_under_a_device_scope_gives_the_cpus_factor_and_q);
    RUN(vectors_under_a_device_scope_give_the_cpus_results);
    RUN(sort_orders_vectors_of_every_type_as_qsort_does_on_ragged_sizes_and_tilings);
    RUN(sort_of_a_view_sorts_its_rows_alone_and_bad_vectors_are_refused);
    RUN(stencils_take_jacobi_and_radius_two_steps_of_the_plain_loops_on_fixed_and_periodic_boundaries);
    RUN(a_glider_crosses_a_periodic_boundary_as_the_game_of_life_moves_it);
    RUN(a_stencil_kernel_gives_the_point_functions_steps);
    RUN(clamp_reflect_mirror_and_anti_boundaries_take_the_arrays_own_values_past_its_edges);
    RUN(a_radius_and_a_boundary_per_dimension_follow_the_stated_rules);
    RUN(symmetry_is_exact_on_every_type_and_tiling);
    RUN(mean_var_and_std_of_the_whole_array_and_along_dims_equal_the_loops);
    RUN(matrix_powers_equal_the_repeated_products_of_the_loops);
    RUN(stencil_arguments_that_cannot_work_are_refused_by_name);
    RUN(sort_and_stencil_under_a_device_scope_give_the_cpus_results);
    RUN(reductions_and_solves_keep_no_results_behind);
    dag_shutdown();
    return test_summary();
}
