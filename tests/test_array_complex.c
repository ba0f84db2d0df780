/* tests/test_array_complex.c: dag_array.h's complex element types, DAG_CF64 and DAG_CF32, against
   plain loops on ragged sizes and two or more tilings: the constructors and everything that moves
   bytes, the linear algebra (op(X) = X^H), the element-wise operations, and the operations that refuse
   complex arrays by name. Built with and without -DDAG_ARRAY_CBLAS (make test-gcc runs both). */
#define DAG_IMPLEMENTATION
#include "dag_kernels.h"
#include "dag_array.h"
#include "test.h"
#include <complex.h>
#include <math.h>

typedef double _Complex z64;
static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

static const dag_elem types[2] = { DAG_CF64, DAG_CF32 };
static double tol(dag_elem t) { return t == DAG_CF64 ? 1e-10 : 2e-3; }
/* a value that depends on (i, j) and a seed, with both parts nonzero */
static z64 val(int i, int j, int seed) {
    return sin(1.3 * i + 0.7 * j + seed) + I * cos(0.9 * i - 1.1 * j + 2.0 * seed);
}
static z64 *host(int m, int n, int seed) {
    z64 *h = (z64 *)malloc(sizeof(z64) * (size_t)m * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) h[i + j * m] = val(i, j, seed);
    return h;
}
/* a host matrix (m x n, column-major, ld m) as an array of type t, and back */
static dag_array *to_array(dag_elem t, int m, int n, dag_blocks b, const z64 *h) {
    if (t == DAG_CF64) return dag_array_from_host(t, m, n, b, h, DAG_COL_MAJOR, m);
    float _Complex *f = (float _Complex *)malloc(sizeof *f * (size_t)m * (size_t)n);
    for (int k = 0; k < m * n; k++) f[k] = (float _Complex)h[k];
    dag_array *a = dag_array_from_host(t, m, n, b, f, DAG_COL_MAJOR, m);
    free(f);
    return a;
}
static z64 *from_array(dag_array *a) {
    int m = (int)dag_array_rows(a), n = (int)dag_array_cols(a);
    z64 *h = (z64 *)calloc((size_t)m * (size_t)n, sizeof *h);
    if (dag_array_type(a) == DAG_CF64) {
        CHECK_EQ_INT(dag_array_collect(a, h, DAG_COL_MAJOR, m), DAG_OK);
        return h;
    }
    float _Complex *f = (float _Complex *)calloc((size_t)m * (size_t)n, sizeof *f);
    CHECK_EQ_INT(dag_array_collect(a, f, DAG_COL_MAJOR, m), DAG_OK);
    for (int k = 0; k < m * n; k++) h[k] = f[k];
    free(f);
    return h;
}
/* max |x - y| / max(1, max |y|) */
static double rel_diff(const z64 *x, const z64 *y, int n) {
    double d = 0, s = 1;
    for (int k = 0; k < n; k++) {
        d = fmax(d, cabs(x[k] - y[k]));
        s = fmax(s, cabs(y[k]));
    }
    return d / s;
}
/* C = alpha op(A) op(B) + beta C, op: X or X^H */
static void gemm_loop(int ta, int tb, int m, int n, int k, z64 alpha, const z64 *a, int lda, const z64 *b, int ldb,
                      z64 beta, z64 *c, int ldc) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            z64 s = 0;
            for (int l = 0; l < k; l++)
                s += (ta ? conj(a[l + i * lda]) : a[i + l * lda]) * (tb ? conj(b[j + l * ldb]) : b[l + j * ldb]);
            c[i + j * ldc] = alpha * s + beta * c[i + j * ldc];
        }
}
/* a Hermitian positive definite n x n matrix: B B^H + n I */
static z64 *hpd(int n, int seed) {
    z64 *b = host(n, n, seed), *a = (z64 *)calloc((size_t)n * (size_t)n, sizeof *a);
    gemm_loop(0, 1, n, n, n, 1.0, b, n, b, n, 0.0, a, n);
    for (int i = 0; i < n; i++) a[i + i * n] += n;
    free(b);
    return a;
}

TEST(complex_arrays_move_their_values_exactly_through_constructors_copies_views_and_slices) {
    for (int ti = 0; ti < 2; ti++) {
        dag_elem t = types[ti];
        int m = 13, n = 10;
        z64 *h = host(m, n, 1);
        dag_array *a = to_array(t, m, n, dag_blocks(4, 3), h), *b = dag_array_zeros(t, m, n, dag_blocks(5, 7));
        CHECK(a && b);
        z64 *x = from_array(a);
        CHECK(rel_diff(x, h, m * n) < tol(t));
        free(x);
        CHECK_EQ_INT(dag_array_copy(a, b), DAG_OK);   /* another tiling */
        x = from_array(b);
        CHECK(rel_diff(x, h, m * n) < tol(t));
        free(x);
        dag_array *tr = dag_array_undef(t, n, m, dag_blocks(3, 6));   /* a plain transpose, not conjugated */
        CHECK_EQ_INT(dag_array_transpose(a, tr), DAG_OK);
        x = from_array(tr);
        double d = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) d = fmax(d, cabs(x[j + i * n] - h[i + j * m]));
        CHECK(d < tol(t));
        free(x);
        /* a view off the tile boundaries, its slice, and a put_slice into it */
        dag_array *v = dag_array_view(a, 2, 7, 1, 6);
        z64 s[42];
        if (t == DAG_CF64) {
            CHECK_EQ_INT(dag_array_get_slice(v, 1, 3, 2, 2, s, 3), DAG_OK);
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 3; i++) CHECK(s[i + j * 3] == h[(2 + 1 + i) + (1 + 2 + j) * m]);
            z64 in[2] = { 5.0 - 2.0 * I, -1.5 + 0.25 * I };
            CHECK_EQ_INT(dag_array_put_slice(v, 0, 2, 0, 1, in, 2), DAG_OK);
            CHECK_EQ_INT(dag_array_get_slice(a, 2, 2, 1, 1, s, 2), DAG_OK);
            CHECK(s[0] == in[0] && s[1] == in[1]);
            h[2 + 1 * m] = in[0], h[3 + 1 * m] = in[1];
        } else {
            float _Complex f[6], in[2] = { 5.0f - 2.0f * I, -1.5f + 0.25f * I };
            CHECK_EQ_INT(dag_array_get_slice(v, 1, 3, 2, 2, f, 3), DAG_OK);
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 3; i++) CHECK(cabs(f[i + j * 3] - h[(3 + i) + (3 + j) * m]) < 1e-6);
            CHECK_EQ_INT(dag_array_put_slice(v, 0, 2, 0, 1, in, 2), DAG_OK);
            CHECK_EQ_INT(dag_array_get_slice(a, 2, 2, 1, 1, f, 2), DAG_OK);
            CHECK(f[0] == in[0] && f[1] == in[1]);
            h[2 + 1 * m] = in[0], h[3 + 1 * m] = in[1];
        }
        /* put of a double: value + 0i; get of a double is refused (it would drop the imaginary part) */
        CHECK_EQ_INT(dag_array_put(a, 12, 9, 2.5), DAG_OK);
        h[12 + 9 * m] = 2.5;
        double one = 0;
        last_error[0] = 0;
        CHECK_EQ_INT(dag_array_get(a, 0, 0, &one), DAG_ERR_INVALID_ARGUMENT);
        CHECK(strstr(last_error, "dag_array_get") && strstr(last_error, "complex") && strstr(last_error, "imaginary"));
        /* hcat and vcat in the first one's tiling */
        dag_array *parts[2] = { a, b };
        dag_array *hc = dag_array_hcat(2, parts), *vc = dag_array_vcat(2, parts);
        CHECK(hc && vc && dag_array_cols(hc) == 2 * n && dag_array_rows(vc) == 2 * m);
        z64 *hx = from_array(hc), *vx = from_array(vc), *bx = from_array(b);
        d = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                d = fmax(d, cabs(hx[i + j * m] - h[i + j * m]) + cabs(hx[i + (j + n) * m] - bx[i + j * m]));
                d = fmax(d, cabs(vx[i + j * 2 * m] - h[i + j * m]) + cabs(vx[i + m + j * 2 * m] - bx[i + j * m]));
            }
        CHECK(d < tol(t));
        free(hx), free(vx), free(bx);
        /* fill, ones and scalar: value + 0i; rand: both parts in [0, 1), the same for any tiling */
        dag_array *f = dag_array_fill(t, m, n, dag_blocks(4, 4), -3.25), *o = dag_array_ones(t, 3, 2, dag_blocks(2, 2));
        dag_array *r1 = dag_array_rand(t, m, n, dag_blocks(4, 4), 7), *r2 = dag_array_rand(t, m, n, dag_blocks(5, 3), 7);
        dag_array *n1 = dag_array_randn(t, m, n, dag_blocks(4, 4), 9), *n2 = dag_array_randn(t, m, n, dag_blocks(13, 1), 9);
        z64 *fx = from_array(f), *ox = from_array(o), *rx1 = from_array(r1), *rx2 = from_array(r2);
        z64 *nx1 = from_array(n1), *nx2 = from_array(n2);
        double imag_seen = 0, mean_sq = 0;
        for (int k = 0; k < m * n; k++) {
            CHECK(fx[k] == -3.25);
            CHECK(creal(rx1[k]) >= 0 && creal(rx1[k]) < 1 && cimag(rx1[k]) >= 0 && cimag(rx1[k]) < 1);
            CHECK(rx1[k] == rx2[k] && nx1[k] == nx2[k]);
            imag_seen += fabs(cimag(rx1[k])) + fabs(cimag(nx1[k]));
            mean_sq += creal(nx1[k]) * creal(nx1[k]) + cimag(nx1[k]) * cimag(nx1[k]);
        }
        for (int k = 0; k < 6; k++) CHECK(ox[k] == 1.0);
        CHECK(imag_seen > 1.0);
        CHECK(mean_sq / (m * n) > 0.5 && mean_sq / (m * n) < 1.5);   /* E|z|^2 = 1 */
        free(fx), free(ox), free(rx1), free(rx2), free(nx1), free(nx2);
        dag_array *sc = dag_array_scalar(t, 4.0), *sim = dag_array_similar(a);
        CHECK(sc && sim && dag_array_type(sim) == t && dag_array_rows(sim) == m);
        /* a wrapped complex matrix is the array's memory */
        if (t == DAG_CF64) {
            z64 w[12] = { 0 };
            dag_array *wa = dag_array_wrap(t, 3, 3, dag_blocks(2, 2), w, 4);
            dag_array *corner = dag_array_view(a, 0, 3, 0, 3);
            CHECK_EQ_INT(dag_array_copy(corner, wa), DAG_OK);
            dag_array_free(corner);
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) CHECK(w[i + j * 4] == h[i + j * m]);
            dag_array_free(wa);
        }
        dag_array *arrays[] = { a, b, tr, v, hc, vc, f, o, r1, r2, n1, n2, sc, sim };
        for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) dag_array_free(arrays[k]);
        free(h);
    }
}

/* gemm, every op(A) op(B), ragged sizes, two tilings each */
TEST(complex_gemm_with_conjugate_transposes_equals_the_plain_loop) {
    int blocks[2][3] = { { 4, 3, 5 }, { 7, 6, 2 } };   /* C's rows, C's columns, the inner dimension */
    for (int ti = 0; ti < 2; ti++)
        for (int bi = 0; bi < 2; bi++)
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++) {
                    dag_elem t = types[ti];
                    int m = 11, n = 9, k = 13, *bl = blocks[bi];
                    z64 *a = host(ta ? k : m, ta ? m : k, 2), *b = host(tb ? n : k, tb ? k : n, 3), *c = host(m, n, 4);
                    dag_array *A = to_array(t, ta ? k : m, ta ? m : k, ta ? dag_blocks(bl[2], bl[0]) : dag_blocks(bl[0], bl[2]), a);
                    dag_array *B = to_array(t, tb ? n : k, tb ? k : n, tb ? dag_blocks(bl[1], bl[2]) : dag_blocks(bl[2], bl[1]), b);
                    dag_array *C = to_array(t, m, n, dag_blocks(bl[0], bl[1]), c);
                    CHECK_EQ_INT(dag_array_gemm(ta, tb, 0.5, A, B, -2.0, C), DAG_OK);
                    gemm_loop(ta, tb, m, n, k, 0.5, a, ta ? k : m, b, tb ? n : k, -2.0, c, m);
                    z64 *x = from_array(C);
                    CHECK(rel_diff(x, c, m * n) < tol(t));
                    free(x), free(a), free(b), free(c);
                    dag_array_free(A), dag_array_free(B), dag_array_free(C);
                }
}

/* herk (dag_array_syrk on complex): C's lower triangle = alpha op(A) op(A)^H + beta C */
TEST(complex_syrk_is_herk_on_the_lower_triangle) {
    for (int ti = 0; ti < 2; ti++)
        for (int trans = 0; trans < 2; trans++) {
            dag_elem t = types[ti];
            int n = 10, k = 7;
            z64 *a = host(trans ? k : n, trans ? n : k, 5), *c = hpd(n, 6), *want = (z64 *)malloc(sizeof(z64) * 100);
            memcpy(want, c, sizeof(z64) * 100);
            dag_array *A = to_array(t, trans ? k : n, trans ? n : k, dag_blocks(3, 3), a), *C = to_array(t, n, n, dag_blocks(3, 3), c);
            CHECK_EQ_INT(dag_array_syrk(trans, 1.5, A, 0.5, C), DAG_OK);
            gemm_loop(trans, !trans, n, n, k, 1.5, a, trans ? k : n, a, trans ? k : n, 0.5, want, n);
            z64 *x = from_array(C);
            double d = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    d = fmax(d, i >= j ? cabs(x[i + j * n] - want[i + j * n]) : cabs(x[i + j * n] - c[i + j * n]));
            CHECK(d < 100 * tol(t));
            free(x), free(a), free(c), free(want);
            dag_array_free(A), dag_array_free(C);
        }
}

/* trsm, each side, triangle and op: op(A) X = alpha B (or X op(A)) holds for the result; in small tiles,
   and in one of 150, whose solve splits the triangle in halves (more than DAG__TRSM_LEAF rows) */
TEST(complex_triangular_solves_satisfy_their_equations_on_every_side_and_op) {
    for (int ti = 0; ti < 2; ti++)
        for (int c = 0; c < 16; c++) {
            dag_elem t = types[ti];
            int right = c & 1, upper = (c >> 1) & 1, trans = (c >> 2) & 1, big = c >> 3;
            int n = big ? 150 : 9, m = 7, nb = big ? 150 : c % 3 == 0 ? 4 : 3;
            z64 *a = host(n, n, 7), *b = host(right ? m : n, right ? n : m, 8);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    if (upper ? i > j : i < j) a[i + j * n] = 0;
                    else if (i == j) a[i + j * n] += 4.0;
                    else if (big) a[i + j * n] *= 0.02;   /* diagonally dominant, so that the check measures the solve */
            int br = right ? m : n, bc = right ? n : m;
            dag_array *A = to_array(t, n, n, dag_blocks(nb, nb), a), *B = to_array(t, br, bc, right ? dag_blocks(5, nb) : dag_blocks(nb, 5), b);
            CHECK_EQ_INT(dag_array_trsm(right, upper, trans, 0, 2.0, A, B), DAG_OK);
            z64 *x = from_array(B), *back = (z64 *)calloc((size_t)(br * bc), sizeof(z64));
            if (right) gemm_loop(0, trans, br, bc, n, 1.0, x, br, a, n, 0.0, back, br);
            else gemm_loop(trans, 0, br, bc, n, 1.0, a, n, x, br, 0.0, back, br);
            for (int k = 0; k < br * bc; k++) b[k] *= 2.0;
            CHECK(rel_diff(back, b, br * bc) < tol(t));
            free(x), free(back), free(a), free(b);
            dag_array_free(A), dag_array_free(B);
        }
}

/* potrf: A = L L^H on a Hermitian positive definite matrix, posv's solution, and a matrix that is not */
TEST(complex_cholesky_factors_a_hermitian_matrix_and_posv_solves_with_it) {
    for (int ti = 0; ti < 2; ti++)
        for (int nb = 3; nb <= 5; nb += 2) {
            dag_elem t = types[ti];
            int n = 11, r = 3;
            z64 *a = hpd(n, 9), *b = host(n, r, 10);
            dag_array *A = to_array(t, n, n, dag_blocks(nb, nb), a);
            CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
            z64 *l = from_array(A), *llh = (z64 *)calloc((size_t)(n * n), sizeof(z64));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < j; i++) l[i + j * n] = 0;   /* above the diagonal: A's, left as they were */
            for (int i = 0; i < n; i++) CHECK(fabs(cimag(l[i + i * n])) < tol(types[ti]) && creal(l[i + i * n]) > 0);
            gemm_loop(0, 1, n, n, n, 1.0, l, n, l, n, 0.0, llh, n);
            CHECK(rel_diff(llh, a, n * n) < 10 * tol(t));
            dag_array *A2 = to_array(t, n, n, dag_blocks(nb, nb), a), *B = to_array(t, n, r, dag_blocks(nb, 2), b);
            CHECK_EQ_INT(dag_array_posv(A2, B), DAG_OK);
            z64 *x = from_array(B), *ax = (z64 *)calloc((size_t)(n * r), sizeof(z64));
            gemm_loop(0, 0, n, r, n, 1.0, a, n, x, n, 0.0, ax, n);
            CHECK(rel_diff(ax, b, n * r) < 10 * tol(t));
            z64 w[12 * 11];   /* a wrapped matrix (ld 12): potrf and getrf on its column panels, in place */
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) w[i + j * 12] = a[i + j * n];
            dag_array *W = dag_array_wrap(DAG_CF64, n, n, dag_blocks(nb, nb), w, 12);
            CHECK_EQ_INT(dag_array_potrf(W), DAG_OK);
            dag_array_free(W);
            double dw = 0;
            for (int j = 0; j < n; j++)
                for (int i = j; i < n; i++) dw = fmax(dw, cabs(w[i + j * 12] - l[i + j * n]));
            CHECK(t != DAG_CF64 || dw < 1e-9);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) w[i + j * 12] = a[i + j * n] + (i == j ? 0 : 3.0 * I);
            int64_t ipiv[11], ipiv2[11];
            W = dag_array_wrap(DAG_CF64, n, n, dag_blocks(nb, nb), w, 12);
            dag_array *O = dag_array_wrap(DAG_CF64, n, n, dag_blocks(nb, nb), w, 12), *C = dag_array_similar(O);
            CHECK_EQ_INT(dag_array_copy(O, C), DAG_OK);   /* the same matrix in tiles of its own */
            CHECK_EQ_INT(dag_array_getrf(W, ipiv), DAG_OK);
            CHECK_EQ_INT(dag_array_getrf(C, ipiv2), DAG_OK);
            z64 *cf = from_array(C);
            dw = 0;
            for (int k = 0; k < n; k++) CHECK_EQ_INT(ipiv[k], ipiv2[k]);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) dw = fmax(dw, cabs(w[i + j * 12] - cf[i + j * n]));
            CHECK(dw < 1e-9);
            free(cf);
            dag_array_free(W), dag_array_free(O), dag_array_free(C);
            a[5 + 5 * n] = -100.0;   /* no longer positive definite */
            dag_array *bad = to_array(t, n, n, dag_blocks(nb, nb), a);
            last_error[0] = 0;
            CHECK_EQ_INT(dag_array_potrf(bad), DAG_ERR_NOT_POSITIVE_DEFINITE);
            CHECK(strstr(last_error, "not positive definite") != NULL);
            free(l), free(llh), free(x), free(ax), free(a), free(b);
            dag_array_free(A), dag_array_free(A2), dag_array_free(B), dag_array_free(bad);
        }
}

/* getrf: P A = L U with LAPACK's pivots; gesv and getrs solve; getrf_nopiv on a dominant diagonal */
TEST(complex_pivoted_lu_factors_and_solves_on_ragged_sizes_and_tilings) {
    int shapes[3][3] = { { 11, 11, 3 }, { 13, 8, 4 }, { 7, 12, 3 } };
    for (int ti = 0; ti < 2; ti++)
        for (int s = 0; s < 3; s++) {
            dag_elem t = types[ti];
            int m = shapes[s][0], n = shapes[s][1], nb = shapes[s][2], kn = m < n ? m : n;
            z64 *a = host(m, n, 11);
            int64_t ipiv[16];
            dag_array *A = to_array(t, m, n, dag_blocks(nb, nb), a);
            CHECK_EQ_INT(dag_array_getrf(A, ipiv), DAG_OK);
            z64 *f = from_array(A), *pa = (z64 *)malloc(sizeof(z64) * (size_t)(m * n)), *lu = (z64 *)calloc((size_t)(m * n), sizeof(z64));
            memcpy(pa, a, sizeof(z64) * (size_t)(m * n));
            for (int k = 0; k < kn; k++) {   /* the swaps, in order */
                CHECK(ipiv[k] >= k + 1 && ipiv[k] <= m);
                for (int j = 0; j < n; j++) {
                    z64 x = pa[k + j * m];
                    pa[k + j * m] = pa[ipiv[k] - 1 + j * m], pa[ipiv[k] - 1 + j * m] = x;
                }
            }
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++)
                    for (int k = 0; k <= (i < j ? i : j) && k < kn; k++)
                        lu[i + j * m] += (i == k ? 1.0 : f[i + k * m]) * f[k + j * m];
            CHECK(rel_diff(lu, pa, m * n) < 10 * tol(t));
            /* |L| <= sqrt(2): each pivot was the largest in |re| + |im|, as LAPACK's izamax picks */
            for (int j = 0; j < kn; j++)
                for (int i = j + 1; i < m; i++) CHECK(cabs(f[i + j * m]) <= sqrt(2.0) + 1e-5);
            free(f), free(pa), free(lu), free(a);
            dag_array_free(A);
        }
    for (int ti = 0; ti < 2; ti++) {
        dag_elem t = types[ti];
        int n = 10, r = 3;
        z64 *a = host(n, n, 12), *b = host(n, r, 13);
        int64_t ipiv[10];
        dag_array *A = to_array(t, n, n, dag_blocks(4, 4), a), *B = to_array(t, n, r, dag_blocks(3, 2), b);
        CHECK_EQ_INT(dag_array_gesv(A, ipiv, B), DAG_OK);
        z64 *x = from_array(B), *ax = (z64 *)calloc((size_t)(n * r), sizeof(z64));
        gemm_loop(0, 0, n, r, n, 1.0, a, n, x, n, 0.0, ax, n);
        CHECK(rel_diff(ax, b, n * r) < 10 * tol(t));
        dag_array *B2 = to_array(t, n, r, dag_blocks(4, 3), b);   /* getrs with gesv's factor */
        CHECK_EQ_INT(dag_array_getrs(A, ipiv, B2), DAG_OK);
        z64 *x2 = from_array(B2);
        CHECK(rel_diff(x2, x, n * r) < 10 * tol(t));
        for (int i = 0; i < n; i++) a[i + i * n] += 2.0 * n;   /* diagonally dominant: no pivots needed */
        dag_array *D = to_array(t, n, n, dag_blocks(3, 3), a);
        CHECK_EQ_INT(dag_array_getrf_nopiv(D), DAG_OK);
        z64 *f = from_array(D), *lu = (z64 *)calloc((size_t)(n * n), sizeof(z64));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                for (int k = 0; k <= (i < j ? i : j); k++) lu[i + j * n] += (i == k ? 1.0 : f[i + k * n]) * f[k + j * n];
        CHECK(rel_diff(lu, a, n * n) < 10 * tol(t));
        free(x), free(ax), free(x2), free(f), free(lu), free(a), free(b);
        dag_array_free(A), dag_array_free(B), dag_array_free(B2), dag_array_free(D);
    }
}

/* geqrf: R^H R = A^H A (R's diagonal real), Q^H from tau rebuilds A; gels: the normal equations hold */
TEST(complex_qr_and_least_squares_match_the_plain_loops) {
    int shapes[3][3] = { { 12, 7, 3 }, { 9, 9, 4 }, { 14, 5, 5 } };
    for (int ti = 0; ti < 2; ti++)
        for (int s = 0; s < 3; s++) {
            dag_elem t = types[ti];
            int m = shapes[s][0], n = shapes[s][1], nb = shapes[s][2];
            z64 *a = host(m, n, 14), tau[16];
            float _Complex ftau[16];
            dag_array *A = to_array(t, m, n, dag_blocks(nb, nb), a);
            CHECK_EQ_INT(dag_array_geqrf(A, t == DAG_CF64 ? (void *)tau : (void *)ftau), DAG_OK);
            if (t == DAG_CF32)
                for (int k = 0; k < n; k++) tau[k] = ftau[k];
            z64 *f = from_array(A), *q = (z64 *)calloc((size_t)(m * n), sizeof(z64));
            /* Q R = A: apply H_0 ... H_{n-1} (H_k = I - tau_k v_k v_k^H) to [R; 0], last reflector first */
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j; i++) q[i + j * m] = f[i + j * m];
            for (int k = n - 1; k >= 0; k--)
                for (int j = 0; j < n; j++) {
                    z64 w = q[k + j * m];
                    for (int i = k + 1; i < m; i++) w += conj(f[i + k * m]) * q[i + j * m];
                    q[k + j * m] -= tau[k] * w;
                    for (int i = k + 1; i < m; i++) q[i + j * m] -= tau[k] * f[i + k * m] * w;
                }
            CHECK(rel_diff(q, a, m * n) < 10 * tol(t));
            free(f), free(q);
            dag_array_free(A);
            /* gels on two right-hand sides: A^H (A X - B) = 0 */
            int r = 2;
            z64 *b = host(m, r, 15);
            dag_array *A2 = to_array(t, m, n, dag_blocks(nb, nb), a), *B = to_array(t, m, r, dag_blocks(nb, 1), b);
            CHECK_EQ_INT(dag_array_gels(A2, B), DAG_OK);
            z64 *xb = from_array(B), *res = (z64 *)malloc(sizeof(z64) * (size_t)(m * r)), *ne = (z64 *)calloc((size_t)(n * r), sizeof(z64));
            memcpy(res, b, sizeof(z64) * (size_t)(m * r));
            z64 *x = (z64 *)malloc(sizeof(z64) * (size_t)(n * r));
            for (int j = 0; j < r; j++)
                for (int i = 0; i < n; i++) x[i + j * n] = xb[i + j * m];
            gemm_loop(0, 0, m, r, n, 1.0, a, m, x, n, -1.0, res, m);   /* A X - B */
            gemm_loop(1, 0, n, r, m, 1.0, a, m, res, m, 0.0, ne, n);
            double nn = 0;
            for (int k = 0; k < n * r; k++) nn = fmax(nn, cabs(ne[k]));
            CHECK(nn < (t == DAG_CF64 ? 1e-9 : 1e-2));
            free(b), free(xb), free(res), free(ne), free(x), free(a);
            dag_array_free(A2), dag_array_free(B);
        }
}

DAG_KERNEL(cx_square, ((DAG_GLOBAL const double _Complex *, x), (DAG_GLOBAL double _Complex *, y)),
    size_t i = DAG_INDEX();
    y[i] = x[i] * x[i];
)
DAG_KERNEL(cx_fma, ((DAG_GLOBAL const double _Complex *, x), (DAG_GLOBAL const double _Complex *, v),
                    (DAG_GLOBAL double _Complex *, y)),
    size_t i = DAG_INDEX();
    y[i] = x[i] * v[i] + 1.0;
)
DAG_KERNEL(cx_add, ((DAG_GLOBAL const double _Complex *, x), (DAG_GLOBAL double _Complex *, acc)),
    size_t i = DAG_INDEX();
    acc[i] += x[i];
)

/* add, sub, mul (complex products), scale, axpy, set; norm2; sums and products along dims; maps */
TEST(complex_element_wise_operations_reductions_and_maps_equal_the_plain_loops) {
    for (int ti = 0; ti < 2; ti++) {
        dag_elem t = types[ti];
        int m = 9, n = 7;
        z64 *x = host(m, n, 16), *y = host(m, n, 17), *want = (z64 *)malloc(sizeof(z64) * (size_t)(m * n));
        dag_array *X = to_array(t, m, n, dag_blocks(4, 3), x), *Y = to_array(t, m, n, dag_blocks(4, 3), y);
        dag_array *Z = dag_array_zeros(t, m, n, dag_blocks(4, 3)), *Yo = to_array(t, m, n, dag_blocks(2, 5), y);
        z64 *got;
        int ops[3] = { 0, 1, 2 };
        for (int o = 0; o < 3; o++) {
            dag_result r = ops[o] == 0 ? dag_array_add(X, Yo, Z) : ops[o] == 1 ? dag_array_sub(X, Y, Z) : dag_array_mul(X, Yo, Z);
            CHECK_EQ_INT(r, DAG_OK);
            for (int k = 0; k < m * n; k++) want[k] = ops[o] == 0 ? x[k] + y[k] : ops[o] == 1 ? x[k] - y[k] : x[k] * y[k];
            got = from_array(Z);
            CHECK(rel_diff(got, want, m * n) < tol(t));
            free(got);
        }
        CHECK_EQ_INT(dag_array_scale(-2.0, Z), DAG_OK);   /* Z = -2 X .* Y */
        CHECK_EQ_INT(dag_array_axpy(0.5, X, Z), DAG_OK);  /* Z += X / 2 */
        for (int k = 0; k < m * n; k++) want[k] = -2.0 * x[k] * y[k] + 0.5 * x[k];
        got = from_array(Z);
        CHECK(rel_diff(got, want, m * n) < tol(t));
        free(got);
        double nrm = 0, s2 = 0;
        CHECK_EQ_INT(dag_array_norm2(X, &nrm), DAG_OK);
        for (int k = 0; k < m * n; k++) s2 += creal(x[k] * conj(x[k]));
        CHECK(fabs(nrm - sqrt(s2)) < tol(t) * sqrt(s2));
        /* sums over rows, columns and both; products over columns; from an init */
        for (int dims = 0; dims <= 2; dims++)
            for (int op = DAG_OP_SUM; op <= DAG_OP_PROD; op++) {
                dag_array *R = dag_array_reduce_dims((dag_array_op)op, X, dims, 1.0);
                CHECK(R != NULL);
                if (!R) continue;
                got = from_array(R);
                int rr = dims == 1 ? 1 : dims == 2 ? m : 1, rc = dims == 1 ? n : 1;
                for (int i = 0; i < rr; i++)
                    for (int j = 0; j < rc; j++) {
                        z64 acc = 1.0;
                        for (int q = 0; q < m; q++)
                            for (int p = 0; p < n; p++) {
                                if ((dims == 1 && p != j) || (dims == 2 && q != i)) continue;
                                acc = op == DAG_OP_SUM ? acc + x[q + p * m] : acc * x[q + p * m];
                            }
                        CHECK(cabs(got[i + j * rr] - acc) < 10 * tol(t) * fmax(1, cabs(acc)));
                    }
                free(got);
                dag_array_free(R);
            }
        CHECK_EQ_INT(dag_array_set(Z, 3.0), DAG_OK);
        got = from_array(Z);
        for (int k = 0; k < m * n; k++) CHECK(got[k] == 3.0);
        free(got);
        if (t == DAG_CF64) {   /* a DAG_KERNEL of double _Complex: map, map2 with a broadcast column, mapreduce */
            CHECK_EQ_INT(dag_array_map(cx_square, X, Z), DAG_OK);
            got = from_array(Z);
            for (int k = 0; k < m * n; k++) want[k] = x[k] * x[k];
            CHECK(rel_diff(got, want, m * n) < tol(t));
            free(got);
            dag_array *col = dag_array_view(Y, 0, m, 2, 1);
            CHECK_EQ_INT(dag_array_map2(cx_fma, X, col, Z), DAG_OK);
            got = from_array(Z);
            for (int k = 0; k < m * n; k++) want[k] = x[k] * y[k % m + 2 * m] + 1.0;
            CHECK(rel_diff(got, want, m * n) < tol(t));
            free(got);
            dag_array_free(col);
            dag_array *R = dag_array_mapreduce(cx_square, cx_add, X, 2, 0.5);
            CHECK(R && dag_array_rows(R) == m && dag_array_cols(R) == 1);
            got = R ? from_array(R) : NULL;
            for (int i = 0; got && i < m; i++) {
                z64 acc = 0.5;
                for (int p = 0; p < n; p++) acc += x[i + p * m] * x[i + p * m];
                CHECK(cabs(got[i] - acc) < 1e-9);
            }
            free(got);
            dag_array_free(R);
        }
        free(x), free(y), free(want);
        dag_array_free(X), dag_array_free(Y), dag_array_free(Z), dag_array_free(Yo);
    }
}

/* a stencil step of complex products over each tile and its halo of 1 */
DAG_KERNEL(cx_stencil, ((long, rows), (long, ld), (long, r0), (long, c0), (DAG_GLOBAL const double _Complex *, x),
                        (DAG_GLOBAL double _Complex *, y)),
    size_t k = DAG_INDEX();
    long i = (long)(k % (size_t)rows), j = (long)(k / (size_t)rows);
    DAG_GLOBAL const double _Complex *p = x + (i + 1) + (j + 1) * ld;
    (void)r0, (void)c0;
    y[k] = p[-1] + 2.0 * I * p[1] - p[-ld] * p[ld];
)
TEST(a_complex_stencil_kernel_equals_the_plain_loop_on_periodic_and_fixed_boundaries) {
    enum { M = 19, N = 14 };
    z64 *x = host(M, N, 11), want[M * N];
    const dag_blocks tilings[3] = { dag_blocks(5, 4), dag_blocks(19, 14), dag_blocks(8, 3) };
    for (int b = 0; b < 3; b++)
        for (int periodic = 0; periodic < 2; periodic++) {
            dag_array *src = to_array(DAG_CF64, M, N, tilings[b], x), *dst = dag_array_similar(src);
            dag_boundary edge = periodic ? dag_boundary_periodic() : dag_boundary_fixed(0.5);
            CHECK_EQ_INT(dag_array_stencil_kernel(cx_stencil, dst, src, 1, edge), DAG_OK);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    z64 at[4];   /* (i-1, j), (i+1, j), (i, j-1), (i, j+1) */
                    int di[4] = { -1, 1, 0, 0 }, dj[4] = { 0, 0, -1, 1 };
                    for (int q = 0; q < 4; q++) {
                        int ii = i + di[q], jj = j + dj[q];
                        bool out = ii < 0 || ii >= M || jj < 0 || jj >= N;
                        at[q] = !out ? x[ii + jj * M] : periodic ? x[(ii + M) % M + (jj + N) % N * M] : 0.5;
                    }
                    want[i + j * M] = at[0] + 2.0 * I * at[1] - at[2] * at[3];
                }
            z64 *got = from_array(dst);
            CHECK(rel_diff(got, want, M * N) < 1e-12);
            free(got);
            dag_array_free(src), dag_array_free(dst);
        }
    free(x);
}

static double id(double x) { return x; }
static double plus(double a, double b) { return a + b; }
static double point(const double *x, int64_t ld, int64_t r, int64_t c, void *u) {
    (void)ld, (void)r, (void)c, (void)u;
    return x[0];
}
/* an operation refused, its message naming it, complex and why */
static void check_refused(dag_result r, const char *who, const char *why) {
    CHECK_EQ_INT(r, DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, who) != NULL && strstr(last_error, "complex") != NULL && strstr(last_error, why) != NULL);
    if (!strstr(last_error, who) || !strstr(last_error, why)) fprintf(stderr, "  the message: %s\n", last_error);
    last_error[0] = 0;
}

TEST(operations_with_no_complex_meaning_refuse_complex_arrays_by_name) {
    for (int ti = 0; ti < 2; ti++) {
        dag_elem t = types[ti];
        dag_array *v = dag_array_rand(t, 9, 1, dag_blocks(4, 1), 3), *a = dag_array_rand(t, 6, 6, dag_blocks(3, 3), 4);
        dag_array *d = dag_array_similar(a);
        z64 before = 0;
        CHECK_EQ_INT(dag_array_get_slice(v, 0, 1, 0, 1, &before, 1), DAG_OK);
        double out = 12345;
        last_error[0] = 0;
        check_refused(dag_array_sort(v, false), "dag_array_sort", "no order");
        check_refused(dag_array_min(a, &out), "dag_array_min", "no order");
        check_refused(dag_array_max(a, &out), "dag_array_max", "no order");
        check_refused(dag_array_sum(a, &out), "dag_array_sum", "reduce_dims");
        check_refused(dag_array_dot(a, a, &out), "dag_array_dot", "reduce_dims");
        CHECK(out == 12345);
        CHECK(dag_array_reduce_dims(DAG_OP_MIN, a, 1, 0.0) == NULL);
        check_refused(DAG_ERR_INVALID_ARGUMENT, "dag_array_reduce_dims", "no order");
        CHECK(dag_array_mapreduce_fn(id, plus, a, 1, 0.0) == NULL);
        check_refused(DAG_ERR_INVALID_ARGUMENT, "dag_array_mapreduce_fn", "doubles");
        check_refused(dag_array_stencil(d, a, 1, dag_boundary_fixed(0), point, NULL), "dag_array_stencil", "doubles");
        z64 after = 0;
        CHECK_EQ_INT(dag_array_get_slice(v, 0, 1, 0, 1, &after, 1), DAG_OK);
        CHECK(t != DAG_CF64 || memcmp(&before, &after, sizeof before) == 0);   /* the refused sort left it */
        /* mixed element types are refused as they are for the real ones */
        dag_array *r = dag_array_rand(DAG_F64, 6, 6, dag_blocks(3, 3), 4);
        CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, a, r, 0.0, d), DAG_ERR_INVALID_ARGUMENT);
        dag_array_free(v), dag_array_free(a), dag_array_free(d), dag_array_free(r);
    }
}

/* The DFT of the n numbers x[0], x[s], ..., x[(n - 1) s] by its definition, in long double: sign -1 (fft) or
   +1 (ifft, then divided by n) */
static void dft_loop(const z64 *x, int n, int s, int sign, z64 *out) {
    for (int k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int j = 0; j < n; j++) {
            long double angle = sign * 6.283185307179586476925L * (long double)(((long long)j * k) % n) / n;
            long double xr = creal(x[j * s]), xi = cimag(x[j * s]);
            re += xr * cosl(angle) - xi * sinl(angle);
            im += xr * sinl(angle) + xi * cosl(angle);
        }
        out[k * s] = sign > 0 ? (double)(re / n) + I * (double)(im / n) : (double)re + I * (double)im;
    }
}
/* a host m x n matrix transformed along dims (0: both) by the loop above */
static z64 *dft_dims(const z64 *h, int m, int n, int dims, int sign) {
    z64 *x = (z64 *)malloc(sizeof *x * (size_t)m * (size_t)n), *y = (z64 *)malloc(sizeof *y * (size_t)m * (size_t)n);
    memcpy(x, h, sizeof *x * (size_t)m * (size_t)n);
    if (dims != 2) {
        for (int j = 0; j < n; j++) dft_loop(x + j * m, m, 1, sign, y + j * m);
        memcpy(x, y, sizeof *x * (size_t)m * (size_t)n);
    }
    if (dims != 1) {
        for (int i = 0; i < m; i++) dft_loop(x + i, n, m, sign, y + i);
        memcpy(x, y, sizeof *x * (size_t)m * (size_t)n);
    }
    free(y);
    return x;
}

/* Dagger's fft.jl (1D and 2D, out of place and in place, ComplexF64 and ComplexF32, sizes 100 and
   100 x 100), then ragged sizes, lengths that are powers of two and primes, each dims, views, other
   tilings for dst, and ifft(fft(x)) = x. */
TEST(fft_and_ifft_equal_the_dft_by_its_definition_along_every_dims) {
    static const int shapes[][4] = {   /* m, n, tile rows, tile cols */
        { 100, 1, 30, 1 }, { 100, 100, 32, 48 }, { 1, 1, 1, 1 }, { 64, 1, 64, 1 }, { 1, 97, 1, 40 },
        { 17, 12, 5, 7 }, { 16, 31, 16, 8 }, { 2, 3, 1, 2 },
    };
    for (int ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int dims = 0; dims <= 2; dims++)
                for (int inverse = 0; inverse < 2; inverse++) {
                    dag_elem t = types[ti];
                    int m = shapes[si][0], n = shapes[si][1];
                    z64 *h = host(m, n, (int)si + 3 * dims), *want = dft_dims(h, m, n, dims, inverse ? 1 : -1);
                    dag_array *a = to_array(t, m, n, dag_blocks(shapes[si][2], shapes[si][3]), h);
                    dag_array *b = dag_array_zeros(t, m, n, dag_blocks(shapes[si][3], shapes[si][2] + 1));
                    dag_result (*f)(dag_array *, dag_array *, int) = inverse ? dag_array_ifft : dag_array_fft;
                    z64 *orig = from_array(a);   /* h in the array's type */
                    CHECK_EQ_INT(f(a, b, dims), DAG_OK);   /* out of place, into another tiling */
                    z64 *got = from_array(b), *kept = from_array(a);
                    CHECK(rel_diff(got, want, m * n) < (t == DAG_CF64 ? 1e-12 : 1e-5));
                    CHECK(memcmp(kept, orig, sizeof *kept * (size_t)(m * n)) == 0);   /* src as it was */
                    CHECK_EQ_INT(f(a, a, dims), DAG_OK);   /* in place */
                    z64 *same = from_array(a);
                    CHECK(rel_diff(same, got, m * n) == 0);
                    CHECK_EQ_INT((inverse ? dag_array_fft : dag_array_ifft)(a, a, dims), DAG_OK);   /* and back */
                    z64 *back = from_array(a);
                    CHECK(rel_diff(back, h, m * n) < (t == DAG_CF64 ? 1e-12 : 1e-5));
                    free(h), free(want), free(got), free(kept), free(same), free(back), free(orig);
                    dag_array_free(a), dag_array_free(b);
                }
}

TEST(fft_of_a_view_transforms_the_block_and_leaves_the_rest) {
    int m = 20, n = 18;
    z64 *h = host(m, n, 7);
    dag_array *a = to_array(DAG_CF64, m, n, dag_blocks(6, 5), h);
    dag_array *v = dag_array_view(a, 3, 11, 4, 9);
    CHECK_EQ_INT(dag_array_fft(v, v, 0), DAG_OK);
    z64 *got = from_array(a), *block = (z64 *)malloc(sizeof *block * 11 * 9);
    for (int j = 0; j < 9; j++)
        for (int i = 0; i < 11; i++) block[i + j * 11] = h[(3 + i) + (4 + j) * m];
    z64 *want = dft_dims(block, 11, 9, 0, -1);
    double d = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            bool in = i >= 3 && i < 14 && j >= 4 && j < 13;
            z64 w = in ? want[(i - 3) + (j - 4) * 11] : h[i + j * m];
            d = fmax(d, cabs(got[i + j * m] - w) / (in ? 100.0 : 1e-300));
        }
    CHECK(d < 1e-12);
    free(h), free(got), free(block), free(want);
    dag_array_free(v), dag_array_free(a);
}

static void check_fft_refused(dag_result r, const char *who, const char *why) {
    CHECK_EQ_INT(r, DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_error, who) != NULL && strstr(last_error, why) != NULL);
    if (!strstr(last_error, who) || !strstr(last_error, why)) fprintf(stderr, "  the message: %s\n", last_error);
    last_error[0] = 0;
}
TEST(fft_refuses_real_arrays_other_shapes_and_bad_dims_by_name) {
    dag_array *r = dag_array_rand(DAG_F64, 8, 8, dag_blocks(4, 4), 1), *z = dag_array_rand(DAG_CF64, 8, 8, dag_blocks(4, 4), 2);
    dag_array *w = dag_array_zeros(DAG_CF64, 8, 7, dag_blocks(4, 4)), *f = dag_array_zeros(DAG_CF32, 8, 8, dag_blocks(4, 4));
    z64 before[64], after[64];
    CHECK_EQ_INT(dag_array_collect(z, before, DAG_COL_MAJOR, 8), DAG_OK);
    check_fft_refused(dag_array_fft(r, r, 0), "dag_array_fft", "complex arrays");
    check_fft_refused(dag_array_ifft(z, w, 0), "dag_array_ifft", "shape");
    check_fft_refused(dag_array_fft(z, f, 0), "dag_array_fft", "element type");
    check_fft_refused(dag_array_fft(z, z, 3), "dag_array_fft", "dims");
    check_fft_refused(dag_array_fft(z, z, -1), "dag_array_fft", "dims");
    check_fft_refused(dag_array_fft(NULL, z, 0), "dag_array_fft", "NULL");
    check_fft_refused(dag_array_fft(z, NULL, 0), "dag_array_fft", "NULL");
    CHECK_EQ_INT(dag_array_collect(z, after, DAG_COL_MAJOR, 8), DAG_OK);
    CHECK(memcmp(before, after, sizeof before) == 0);
    dag_array_free(r), dag_array_free(z), dag_array_free(w), dag_array_free(f);
}

/* A program of complex operations: its results into out (n * n + n * 2 + n * n values). */
static void complex_program(z64 *out) {
    int n = 24;
    z64 *a = hpd(n, 20), *b = host(n, 2, 21);
    dag_array *A = to_array(DAG_CF64, n, n, dag_blocks(8, 8), a), *B = to_array(DAG_CF64, n, 2, dag_blocks(8, 2), b);
    dag_array *C = dag_array_rand(DAG_CF64, n, n, dag_blocks(8, 8), 22), *D = dag_array_zeros(DAG_CF64, n, n, dag_blocks(8, 8));
    CHECK_EQ_INT(dag_array_gemm(1, 0, 1.0, C, C, 0.0, D), DAG_OK);
    CHECK_EQ_INT(dag_array_add(D, C, D), DAG_OK);
    CHECK_EQ_INT(dag_array_posv(A, B), DAG_OK);
    CHECK_EQ_INT(dag_array_fft(D, D, 0), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(D, out, DAG_COL_MAJOR, n), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(B, out + n * n, DAG_COL_MAJOR, n), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, out + n * n + 2 * n, DAG_COL_MAJOR, n), DAG_OK);
    dag_array_free(A), dag_array_free(B), dag_array_free(C), dag_array_free(D);
    free(a), free(b);
}

/* No device kernel takes complex elements: under a scope of devices their tasks run on the CPU, and the
   results are the CPU's (no task of theirs on a device). */
TEST(complex_operations_under_a_device_scope_run_on_the_cpu_with_the_cpus_results) {
    if (dag_device_count(DAG_OPENCL) < 1) NOT_APPLICABLE("no OpenCL device in this build or run (%s)", dag_backend_status(DAG_OPENCL));
    enum { LEN = 24 * 24 * 2 + 24 * 2 };
    static z64 cpu[LEN], dev[LEN];
    complex_program(cpu);
    static dag_trace_record rec[8192];
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) { complex_program(dev); }
    dag_trace_enable(0);
    size_t n = dag_trace_records(rec, 8192), on = 0, gemms = 0;
    for (size_t i = 0; i < n && i < 8192; i++) {
        on += rec[i].backend == DAG_OPENCL && strcmp(rec[i].name, "copy") != 0;   /* copies move bytes anywhere */
        gemms += !strcmp(rec[i].name, "gemm");
    }
    CHECK(on == 0);
    CHECK(gemms > 0);
    CHECK(rel_diff(dev, cpu, LEN) < 1e-12);
}

int main(void) {
    watchdog_start();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    RUN(complex_arrays_move_their_values_exactly_through_constructors_copies_views_and_slices);
    RUN(complex_gemm_with_conjugate_transposes_equals_the_plain_loop);
    RUN(complex_syrk_is_herk_on_the_lower_triangle);
    RUN(complex_triangular_solves_satisfy_their_equations_on_every_side_and_op);
    RUN(complex_cholesky_factors_a_hermitian_matrix_and_posv_solves_with_it);
    RUN(complex_pivoted_lu_factors_and_solves_on_ragged_sizes_and_tilings);
    RUN(complex_qr_and_least_squares_match_the_plain_loops);
    RUN(complex_element_wise_operations_reductions_and_maps_equal_the_plain_loops);
    RUN(a_complex_stencil_kernel_equals_the_plain_loop_on_periodic_and_fixed_boundaries);
    RUN(operations_with_no_complex_meaning_refuse_complex_arrays_by_name);
    RUN(fft_and_ifft_equal_the_dft_by_its_definition_along_every_dims);
    RUN(fft_of_a_view_transforms_the_block_and_leaves_the_rest);
    RUN(fft_refuses_real_arrays_other_shapes_and_bad_dims_by_name);
    RUN(complex_operations_under_a_device_scope_run_on_the_cpu_with_the_cpus_results);
    dag_shutdown();
    return test_summary();
}
