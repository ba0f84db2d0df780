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

static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 8) & 0xffffff; }
static void random_matrix(double *m, int rows, int cols, unsigned seed) {   /* uniform in [-1, 1) */
    for (int i = 0; i < rows * cols; i++) m[i] = (double)rnd(&seed) / 8388608.0 - 1.0;
}

/* LAPACK's unblocked getf2, as a plain loop: the reference factor and pivots (0-based) */
static void lu_reference(double *a, int m, int n, int64_t *ipiv) {
    for (int k = 0; k < (m < n ? m : n); k++) {
        int p = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(a[i + k * m]) > fabs(a[p + k * m])) p = i;
        ipiv[k] = p + 1;
        for (int j = 0; j < n; j++) {
            double x = a[k + j * m];
            a[k + j * m] = a[p + j * m], a[p + j * m] = x;
        }
        for (int i = k + 1; i < m; i++) a[i + k * m] /= a[k + k * m];
        for (int j = k + 1; j < n; j++)
            for (int i = k + 1; i < m; i++) a[i + j * m] -= a[i + k * m] * a[k + j * m];
    }
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
    for (int i = 0; i < N * R; i++) x[i] = (double)rnd(&s) / 8388608.0 - 1.0;
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

int main(void) {
    watchdog_start();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    RUN(pivoted_lu_gives_the_pivots_and_factor_of_lapack_on_ragged_sizes_and_tilings);
    RUN(gesv_solves_a_matrix_that_needs_pivoting_and_getrs_reuses_the_factor);
    RUN(pivoted_lu_in_float_reaches_a_float_residual);
    RUN(a_singular_matrix_and_bad_arguments_are_refused_by_name);
    dag_shutdown();
    return test_summary();
}
