/* test_mpi_array.c: dag_array.h's newer operations over MPI ranks (issue 31):
   pivoted LU (the panel's pivot search crosses the ranks of its tile
   column), views, copies between tilings and grids, indexing, reductions
   along a dimension, broadcasts, sorts, stencils, CAQR, vectors. Every rank runs the same calls and checks
   the result against the same plain loop.

       make test-mpi      (mpirun -np 1, 2 and 4)  */
#define DAG_IMPLEMENTATION
#include "dag_array.h"
#include "test.h"
#include "mpi_harness.h"
#include "array_programs.h"
#include <complex.h>

/* The differential tester's programs (tests/array_programs.h), the same on every rank: each rank's
   arrays must equal its loops'. */
TEST(random_array_programs_over_ranks_equal_the_same_steps_as_plain_loops) {
    setup(2);
    int failed = 0;
    for (unsigned s = 1; s <= 25; s++) failed += array_program(s, 10) != 0;
    CHECK_EQ_INT(failed, 0);
    dag_shutdown();
    agree_on_failures();
}

/* On the squarest grid, a row, a column and 2 x 2: the pivots and factor of the plain loop, on every rank,
   and gesv's solution (the right-hand sides gathered on the last rank). */
TEST(a_distributed_pivoted_lu_and_gesv_match_the_plain_factor_for_ragged_sizes_and_grids) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank();
    if (me == 0) printf("     %d ranks\n", ranks);
    int sizes[3][2] = { { 70, 16 }, { 53, 12 }, { 40, 40 } };
    int grids[4][2] = { { 0, 0 }, { 1, ranks }, { ranks, 1 }, { 2, 2 } };
    for (int s = 0; s < 3; s++)
        for (int g = 0; g < 4; g++) {
            int n = sizes[s][0], nb = sizes[s][1];
            double *a = malloc(sizeof(double) * (size_t)(n * n)), *ref = malloc(sizeof(double) * (size_t)(n * n)),
                   *f = malloc(sizeof(double) * (size_t)(n * n)), *b = malloc(sizeof(double) * (size_t)(n * 3)),
                   *x = malloc(sizeof(double) * (size_t)(n * 3));
            int64_t *ipiv = malloc(sizeof(int64_t) * (size_t)n), *ipiv_ref = malloc(sizeof(int64_t) * (size_t)n);
            random_matrix(a, n, n, 5u + (unsigned)(s * 4 + g));
            random_matrix(x, n, 3, 99);
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < n; i++) {
                    double v = 0;
                    for (int l = 0; l < n; l++) v += a[i + l * n] * x[l + c * n];
                    b[i + c * n] = v;
                }
            memcpy(ref, a, sizeof(double) * (size_t)(n * n));
            lu_reference(ref, n, n, ipiv_ref);
            dag_blocks bl = dag_blocks_grid(nb, nb, grids[g][0], grids[g][1]);
            dag_array *A = dag_array_from_host(DAG_F64, n, n, bl, a, DAG_COL_MAJOR, n);
            CHECK_EQ_INT(dag_array_getrf(A, ipiv), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, n), DAG_OK);
            int same = 1;
            double diff = 0;
            for (int k = 0; k < n; k++) same &= ipiv[k] == ipiv_ref[k];
            for (int i = 0; i < n * n; i++) diff = fmax(diff, fabs(f[i] - ref[i]));
            CHECK(same);
            CHECK(diff < 1e-10);
            dag_array_free(A);
            A = dag_array_from_host(DAG_F64, n, n, bl, a, DAG_COL_MAJOR, n);
            dag_array *B = dag_array_from_host_on(ranks - 1, DAG_F64, n, 3, dag_blocks_grid(nb, 2, grids[g][0], grids[g][1]),
                                                  me == ranks - 1 ? b : NULL, DAG_COL_MAJOR, n);
            CHECK_EQ_INT(dag_array_gesv(A, NULL, B), DAG_OK);
            CHECK_EQ_INT(dag_array_collect_on(ranks - 1, B, me == ranks - 1 ? b : NULL, DAG_COL_MAJOR, n), DAG_OK);
            if (me == ranks - 1) {
                double err = 0;
                for (int i = 0; i < n * 3; i++) err = fmax(err, fabs(b[i] - x[i]));
                CHECK(err < 1e-9);
            }
            dag_array_free(A), dag_array_free(B);
            free(a), free(ref), free(f), free(b), free(x), free(ipiv), free(ipiv_ref);
        }
    dag_shutdown();
    agree_on_failures();
}

/* The largest error of Q R against A (M x N, R on and above f's diagonal) and of C Q against cq (C 7 x M) */
static double qr_error(const double *q, const double *f, const double *a, int m, int n) {
    double err = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double qr = 0;
            for (int l = 0; l <= j; l++) qr += q[i + l * m] * f[l + j * m];
            err = fmax(err, fabs(qr - a[i + j * m]));
        }
    return err;
}
static double right_product_error(const double *c, const double *q, const double *cq, int m) {
    double err = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < 7; i++) {
            double v = 0;
            for (int l = 0; l < m; l++) v += c[i + l * 7] * q[l + j * m];
            err = fmax(err, fabs(v - cq[i + j * 7]));
        }
    return err;
}

/* QR over the grids: geqr2's R, V and tau on every rank, Q formed (orgqr) with Q R = A, and Q applied from
   the right (ormqr) as the plain product; gels' solution of a square system */
TEST(a_distributed_qr_matches_the_plain_householder_loop_on_several_grids) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { M = 61, N = 37, NB = 12 };
    static double a[M * N], ref[M * N], f[M * N], tau[N], tref[N];
    int grids[3][2] = { { 0, 0 }, { ranks, 1 }, { 2, 2 } };
    random_matrix(a, M, N, 3);
    memcpy(ref, a, sizeof a);
    qr_reference(ref, M, N, tref);
    for (int g = 0; g < 3; g++) {
        dag_array *A = dag_array_from_host(DAG_F64, M, N, dag_blocks_grid(NB, NB, grids[g][0], grids[g][1]), a, DAG_COL_MAJOR, M);
        memset(tau, 0, sizeof tau);
        CHECK_EQ_INT(dag_array_geqrf(A, tau), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, M), DAG_OK);
        double err = 0;
        for (int i = 0; i < M * N; i++) err = fmax(err, fabs(f[i] - ref[i]));
        for (int i = 0; i < N; i++) err = fmax(err, fabs(tau[i] - tref[i]));
        CHECK(err < 1e-12);
        static double q[M * M], c[7 * M], cq[7 * M];
        dag_array *Q = dag_array_orgqr(A, tau, M);
        CHECK(Q != NULL);
        CHECK_EQ_INT(dag_array_collect(Q, q, DAG_COL_MAJOR, M), DAG_OK);
        CHECK(qr_error(q, f, a, M, N) < 1e-12);
        random_matrix(c, 7, M, 6);
        dag_array *C = dag_array_from_host(DAG_F64, 7, M, dag_blocks_grid(4, 9, grids[g][0], grids[g][1]), c, DAG_COL_MAJOR, 7);
        CHECK_EQ_INT(dag_array_ormqr(1, 0, A, tau, C), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(C, cq, DAG_COL_MAJOR, 7), DAG_OK);
        CHECK(right_product_error(c, q, cq, M) < 1e-12);
        dag_array *U = NULL, *Vt = NULL;   /* the SVD of the matrix on the same grid: U diag(s) Vt = a */
        dag_array *A2 = dag_array_from_host(DAG_F64, M, N, dag_blocks_grid(NB, NB, grids[g][0], grids[g][1]), a, DAG_COL_MAJOR, M);
        static double sv[N], u[M * N], vt[N * N];
        CHECK_EQ_INT(dag_array_svd(A2, &U, sv, &Vt), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(U, u, DAG_COL_MAJOR, M), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(Vt, vt, DAG_COL_MAJOR, N), DAG_OK);
        err = 0;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                double v = 0;
                for (int l = 0; l < N; l++) v += u[i + l * M] * sv[l] * vt[l + j * N];
                err = fmax(err, fabs(v - a[i + j * M]));
            }
        CHECK(err < 1e-12);
        dag_array_free(A2);
        dag_array_free(A), dag_array_free(Q), dag_array_free(C), dag_array_free(U), dag_array_free(Vt);
    }
    static double s[N * N], x[N], b[N];
    random_matrix(s, N, N, 4), random_matrix(x, N, 1, 5);
    for (int i = 0; i < N; i++) {
        b[i] = 0;
        for (int l = 0; l < N; l++) b[i] += s[i + l * N] * x[l];
    }
    dag_array *S = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), s, DAG_COL_MAJOR, N);
    dag_array *B = dag_array_from_host(DAG_F64, N, 1, dag_blocks(5, 1), b, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_gels(S, B), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(B, b, DAG_COL_MAJOR, N), DAG_OK);
    double err = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(b[i] - x[i]));
    CHECK(err < 1e-10);
    dag_array_free(S), dag_array_free(B);
    dag_shutdown();
    agree_on_failures();
}

/* CAQR over the grids (2 and 3 domains of the 6 tile rows): Q (qr_orgqr) R = A, R's rows geqrf's up to
   sign, Q applied from the right (qr_ormqr) as the plain product, and the least-squares solve of a
   consistent tall system; every rank the same */
TEST(a_distributed_caqr_gives_q_r_equal_to_a_on_several_grids) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { M = 61, N = 37, NB = 12 };
    static double a[M * N], ref[M * N], f[M * N], tref[N], q[M * M], c[7 * M], cq[7 * M], x[N], b[M];
    int grids[3][2] = { { 0, 0 }, { ranks, 1 }, { 2, 2 } };
    random_matrix(a, M, N, 3);
    memcpy(ref, a, sizeof a);
    qr_reference(ref, M, N, tref);
    for (int g = 0; g < 3; g++)
        for (int domains = 2; domains <= 3; domains++) {
            dag_blocks bs = dag_blocks_grid(NB, NB, grids[g][0], grids[g][1]);
            dag_array *A = dag_array_from_host(DAG_F64, M, N, bs, a, DAG_COL_MAJOR, M);
            dag_array_qr *fa = dag_array_caqr(A, domains);
            CHECK(fa != NULL);
            if (!fa) {
                dag_array_free(A);
                continue;
            }
            CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, M), DAG_OK);
            double err = 0;
            for (int i = 0; i < N; i++)   /* R's row i: the reference's times the diagonal's sign */
                for (int j = i; j < N; j++)
                    err = fmax(err, fabs(f[i + j * M] - copysign(1.0, f[i + i * M] * ref[i + i * M]) * ref[i + j * M]));
            CHECK(err < 1e-12);
            dag_array *Q = dag_array_qr_orgqr(fa, M);
            CHECK(Q != NULL);
            CHECK_EQ_INT(dag_array_collect(Q, q, DAG_COL_MAJOR, M), DAG_OK);
            CHECK(qr_error(q, f, a, M, N) < 1e-12);
            random_matrix(c, 7, M, 6);
            dag_array *C = dag_array_from_host(DAG_F64, 7, M, dag_blocks_grid(4, 9, grids[g][0], grids[g][1]), c, DAG_COL_MAJOR, 7);
            CHECK_EQ_INT(dag_array_qr_ormqr(1, 0, fa, C), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(C, cq, DAG_COL_MAJOR, 7), DAG_OK);
            CHECK(right_product_error(c, q, cq, M) < 1e-12);
            random_matrix(x, N, 1, 5);
            for (int i = 0; i < M; i++) {
                b[i] = 0;
                for (int l = 0; l < N; l++) b[i] += a[i + l * M] * x[l];
            }
            dag_array *B = dag_array_from_host(DAG_F64, M, 1, dag_blocks_grid(5, 1, grids[g][0], grids[g][1]), b, DAG_COL_MAJOR, M);
            CHECK_EQ_INT(dag_array_qr_gels(fa, B), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(B, b, DAG_COL_MAJOR, M), DAG_OK);
            err = 0;
            for (int i = 0; i < N; i++) err = fmax(err, fabs(b[i] - x[i]));
            CHECK(err < 1e-10);
            dag_array_qr_free(fa);
            dag_array_free(A), dag_array_free(Q), dag_array_free(C), dag_array_free(B);
        }
    dag_shutdown();
    agree_on_failures();
}

/* Vectors over ranks: dealt over every rank (tile i on rank i mod ranks), from the host and back on every
   rank, one element read by one index, A * v and a sum along dims as the loops give them */
TEST(vectors_over_ranks_are_dealt_over_every_rank_and_equal_the_loops) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { N = 45, M = 19 };
    static double h[N], a[M * N], y[M], out[N];
    random_matrix(h, N, 1, 91), random_matrix(a, M, N, 92);
    dag_array *v = dag_vector_from_host(DAG_F64, N, 7, h);
    CHECK(v != NULL);
    CHECK_EQ_INT(dag_array_ndims(v), 1);
    for (int64_t i = 0; i < dag_array_tile_rows(v); i++) CHECK_EQ_INT(dag_array_tile_rank(v, i, 0), (int)(i % ranks));
    CHECK_EQ_INT(dag_vector_collect(v, out), DAG_OK);
    double err = 0, x = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(out[i] - h[i]));
    CHECK(err == 0);
    CHECK_EQ_INT(dag_vector_get(v, N - 1, &x), DAG_OK);
    CHECK(x == h[N - 1]);
    dag_array *A = dag_array_from_host(DAG_F64, M, N, dag_blocks(5, 7), a, DAG_COL_MAJOR, M);
    dag_array *Y = dag_vector_zeros(DAG_F64, M, 5);
    CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, A, v, 0.0, Y), DAG_OK);
    CHECK_EQ_INT(dag_vector_collect(Y, y), DAG_OK);
    for (int i = 0; i < M; i++) {
        double t = 0;
        for (int l = 0; l < N; l++) t += a[i + l * M] * h[l];
        err = fmax(err, fabs(t - y[i]));
    }
    CHECK(err < 1e-12);
    dag_array *s = dag_array_reduce_dims(DAG_OP_SUM, v, 1, 0.0);
    CHECK_EQ_INT(dag_array_ndims(s), 1);
    CHECK_EQ_INT(dag_vector_get(s, 0, &x), DAG_OK);
    double want = 0;
    for (int i = 0; i < N; i++) want += h[i];
    CHECK(fabs(x - want) < 1e-12);
    dag_array_free(v), dag_array_free(A), dag_array_free(Y), dag_array_free(s);
    dag_shutdown();
    agree_on_failures();
}

DAG_KERNEL(twice_minus, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL const double *, v), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] = 2.0 * x[i] - v[i];
)

/* views on and off tile boundaries, copies between arrays on other grids, get/put, hcat, reductions along
   each dimension and a broadcast map: every rank sees the plain loop's values */
TEST(views_indexing_reductions_and_broadcasts_over_ranks_equal_plain_loops) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { R = 45, C = 31 };
    static double h[R * C], want[R * C], got[R * C];
    random_matrix(h, R, C, 17);
    memcpy(want, h, sizeof h);
    dag_array *A = dag_array_from_host(DAG_F64, R, C, dag_blocks(8, 6), h, DAG_COL_MAJOR, R);
    dag_array *O = dag_array_from_host(DAG_F64, R, C, dag_blocks_grid(7, 9, ranks, 1), h, DAG_COL_MAJOR, R);
    dag_array *V = dag_array_view(A, 8, 20, 12, 15), *W = dag_array_view(O, 3, 20, 5, 15);
    CHECK_EQ_INT(dag_array_sub(V, W, V), DAG_OK);   /* V = V - W, W on another grid and off the tiles */
    for (int j = 0; j < 15; j++)
        for (int i = 0; i < 20; i++) want[8 + i + (12 + j) * R] -= h[3 + i + (5 + j) * R];
    CHECK_EQ_INT(dag_array_put(A, 44, 30, 7.5), DAG_OK);
    want[44 + 30 * R] = 7.5;
    double v = 0;
    CHECK_EQ_INT(dag_array_get(A, 9, 13, &v), DAG_OK);
    CHECK(v == want[9 + 13 * R]);
    CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, R), DAG_OK);
    int bad = 0;
    for (int i = 0; i < R * C; i++) bad += got[i] != want[i];
    CHECK_EQ_INT(bad, 0);
    /* A[rows, cols] with index vectors (runs and repeats), from a view on another grid */
    static const int64_t ri[9] = { 19, 3, 4, 5, 0, 0, 11, 10, 9 }, ci[5] = { 14, 2, 3, 7, 7 };
    dag_array *X = dag_array_index(W, ri, 9, ci, 5);
    static double gx[9 * 5];
    CHECK(X != NULL);
    if (X) CHECK_EQ_INT(dag_array_collect(X, gx, DAG_COL_MAJOR, 9), DAG_OK);
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 9; i++) bad += gx[i + j * 9] != h[3 + ri[i] + (5 + ci[j]) * R];
    CHECK_EQ_INT(bad, 0);
    dag_array_free(X);
    /* column maxima and row sums, then A .= 2 A - rowsums (a column broadcast across the columns) */
    dag_array *mx = dag_array_reduce_dims(DAG_OP_MAX, A, 1, -10.0), *rs = dag_array_reduce_dims(DAG_OP_SUM, A, 2, 0.0);
    CHECK(mx && rs);
    static double gm[C], gr[R];
    CHECK_EQ_INT(dag_array_collect(mx, gm, DAG_COL_MAJOR, 1), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(rs, gr, DAG_COL_MAJOR, R), DAG_OK);
    double err = 0;
    for (int j = 0; j < C; j++) {
        double m = -10.0;
        for (int i = 0; i < R; i++) m = fmax(m, want[i + j * R]);
        err = fmax(err, fabs(gm[j] - m));
    }
    for (int i = 0; i < R; i++) {
        double s = 0;
        for (int j = 0; j < C; j++) s += want[i + j * R];
        err = fmax(err, fabs(gr[i] - s));
    }
    CHECK(err < 1e-12);
    CHECK_EQ_INT(dag_array_map2(twice_minus, A, rs, A), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(A, got, DAG_COL_MAJOR, R), DAG_OK);
    err = 0;
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) err = fmax(err, fabs(got[i + j * R] - (2.0 * want[i + j * R] - gr[i])));
    CHECK(err < 1e-12);
    dag_array *parts[2] = { A, W }, *H = dag_array_vcat(2, parts);   /* W: 20 x 15, A: 45 x 31: refused */
    CHECK(H == NULL);
    dag_array *Wv = dag_array_view(O, 0, R, 0, 4), *parts2[2] = { A, Wv };
    H = dag_array_hcat(2, parts2);
    CHECK(H != NULL);
    double s1 = 0, s2 = 0, s3 = 0;
    CHECK_EQ_INT(dag_array_sum(H, &s1), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(A, &s2), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(Wv, &s3), DAG_OK);
    CHECK(fabs(s1 - s2 - s3) < 1e-10);
    dag_array_free(H), dag_array_free(Wv), dag_array_free(mx), dag_array_free(rs);
    dag_array_free(V), dag_array_free(W), dag_array_free(A), dag_array_free(O);
    dag_shutdown();
    agree_on_failures();
}

/* Sorts over ranks: every element type, tiles dealt over the ranks down the vector ((ranks x 1) grid),
   across it (all on the ranks of column 0) and on the squarest grid; every rank gets qsort's order */
TEST(a_vector_sorted_over_ranks_is_in_qsorts_order_on_every_rank) {
    setup(2);
    int ranks = dag_num_ranks(), failed = 0;
    static const dag_elem types[4] = { DAG_F64, DAG_F32, DAG_I32, DAG_I64 };
    static const int sizes[][2] = { { 1, 4 }, { 45, 7 }, { 100, 9 }, { 64, 16 }, { 30, 1 } };
    int grids[3][2] = { { 0, 0 }, { ranks, 1 }, { 2, 2 } };
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 5; s++)
            for (int g = 0; g < 3; g++) {
                int bad = sort_case(types[t], sizes[s][0], sizes[s][1], grids[g][0], grids[g][1], (s + g) % 2,
                                    11u * (unsigned)(t * 15 + s * 3 + g), (t + g) % 2);   /* half of them rows */
                if (bad && dag_rank() == 0)
                    printf("     type %d, %d in tiles of %d, grid %d x %d: %d differ\n", (int)types[t], sizes[s][0],
                           sizes[s][1], grids[g][0], grids[g][1], bad);
                failed += bad != 0;
            }
    CHECK_EQ_INT(failed, 0);
    /* the merge-splits of tiles on two ranks ran on one of them: tiles went between the ranks */
    uint64_t sent = 0;
    for (int r = 0; r < ranks; r++) sent += dag_get_rank_stats(r).messages_sent;
    CHECK(ranks == 1 || sent > 0);
    dag_shutdown();
    agree_on_failures();
}

/* Stencils over ranks: Jacobi on fixed and periodic boundaries, src and dst on other tilings and grids,
   and the Game of Life's glider across the periodic edge; every rank gets the loops' values */
TEST(stencil_steps_over_ranks_equal_the_plain_loops_on_every_rank) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { R = 29, C = 23 };
    static double h[R * C], g[R * C];
    random_matrix(h, R, C, 61);
    int grids[3][2] = { { 0, 0 }, { ranks, 1 }, { 2, 2 } };
    for (int k = 0; k < 3; k++) {
        int p = grids[k][0], q = grids[k][1];
        CHECK(stencil_case(DAG_F64, h, R, C, 7, 6, 7, 6, p, q, 1, dag_boundary_fixed(2.0), jacobi_point, 3) == 0);
        CHECK(stencil_case(DAG_F64, h, R, C, 7, 6, 7, 6, p, q, 1, dag_boundary_periodic(), jacobi_point, 3) == 0);
        CHECK(stencil_case(DAG_F32, h, R, C, 10, 8, 5, 9, p, q, 2, dag_boundary_periodic(), cross2_point, 2) == 0);
        CHECK(stencil_kernel_case(h, R, C, 7, 6, 5, 9, p, q, dag_boundary_periodic(), 2) <= 1e-12);
    }
    memset(g, 0, sizeof g);
    put_glider(g, R, C, 25, 19);
    CHECK(stencil_case(DAG_I32, g, R, C, 6, 5, 6, 5, 0, 0, 1, dag_boundary_periodic(), life_point, 24) == 0);
    /* the glider, 24 generations on, is the first moved 6 cells: checked by the loops above, and here without them */
    static double moved[R * C], got[R * C];
    static int32_t buf[R * C];
    memset(moved, 0, sizeof moved);
    put_glider(moved, R, C, 25 + 6, 19 + 6);
    to_elems(DAG_I32, g, buf, R * C);
    dag_array *x[2] = { dag_array_from_host(DAG_I32, R, C, dag_blocks_grid(6, 5, ranks, 1), buf, DAG_COL_MAJOR, R),
                        dag_array_zeros(DAG_I32, R, C, dag_blocks_grid(6, 5, ranks, 1)) };
    for (int s = 0; s < 24; s++)
        CHECK_EQ_INT(dag_array_stencil(x[(s + 1) % 2], x[s % 2], 1, dag_boundary_periodic(), life_point, NULL), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(x[0], buf, DAG_COL_MAJOR, R), DAG_OK);
    from_elems(DAG_I32, buf, got, R * C);
    int bad = 0;
    for (int i = 0; i < R * C; i++) bad += got[i] != moved[i];
    CHECK_EQ_INT(bad, 0);
    /* only the halos move: tiles of 16 x 16 dealt by tile rows over the ranks (tile row i on rank i % ranks),
       and a step sends each tile the row that faces it from each neighbour above and below on another rank,
       16 doubles each (whole neighbour tiles would be 32 KiB and more): with 2 or 4 ranks, 16 tiles x 2 */
    int crossings = 0;
    for (int i = 0; i < 4; i++) crossings += 4 * (((i + 3) % 4) % ranks != i % ranks) + 4 * (((i + 1) % 4) % ranks != i % ranks);
    dag_array *u = dag_array_rand(DAG_F64, 64, 64, dag_blocks_grid(16, 16, ranks, 1), 3);
    dag_array *w = dag_array_zeros(DAG_F64, 64, 64, dag_blocks_grid(16, 16, ranks, 1));
    uint64_t before = 0, after = 0;
    for (int r = 0; r < ranks; r++) before += dag_get_rank_stats(r).bytes_sent;
    CHECK_EQ_INT(dag_array_stencil(w, u, 1, dag_boundary_periodic(), jacobi_point, NULL), DAG_OK);
    for (int r = 0; r < ranks; r++) after += dag_get_rank_stats(r).bytes_sent;
    if (ranks > 1 && dag_rank() == 0) printf("     one step sent %llu bytes\n", (unsigned long long)(after - before));
    CHECK(ranks == 1 || (after - before >= (uint64_t)crossings * 16 * 8 && after - before < (uint64_t)crossings * 2 * 16 * 8));
    dag_array_free(u), dag_array_free(w);
    CHECK_EQ_INT(dag_array_stencil(x[0], x[0], 1, dag_boundary_periodic(), life_point, NULL), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_log, "dst and src are one array") != NULL);
    dag_array_free(x[0]), dag_array_free(x[1]);
    dag_shutdown();
    agree_on_failures();
}

/* Complex arrays over ranks (DAG_CF64): gemm with a conjugate transpose, posv, gesv and gels, on the
   squarest grid and a row of ranks, against plain loops on every rank (the tiles move as bytes). */
static double _Complex cx_val(int i, int j, int seed) {
    return sin(1.3 * i + 0.7 * j + seed) + cos(0.9 * i - 1.1 * j + 2.0 * seed) * I;
}
static void cx_gemm(int ta, int m, int n, int k, const double _Complex *a, int lda, const double _Complex *b, int ldb,
                    double _Complex *c, int ldc) {   /* c = op(a) b, op(a) = a or a^H */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double _Complex s = 0;
            for (int l = 0; l < k; l++) s += (ta ? __builtin_conj(a[l + i * lda]) : a[i + l * lda]) * b[l + j * ldb];
            c[i + j * ldc] = s;
        }
}
static double cx_diff(const double _Complex *x, const double _Complex *y, int n) {
    double d = 0;
    for (int k = 0; k < n; k++) d = fmax(d, __builtin_cabs(x[k] - y[k]));
    return d;
}
TEST(complex_gemm_and_solves_over_ranks_equal_plain_loops_on_every_rank) {
    setup(2);
    enum { N = 19, R = 3 };
    static double _Complex a[N * N], h[N * N], b[N * R], x[N * R], y[N * R], c[N * N], w[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) a[i + j * N] = cx_val(i, j, 1);
    for (int k = 0; k < N * R; k++) b[k] = cx_val(k % N, k / N, 2);
    cx_gemm(1, N, N, N, a, N, a, N, h, N);   /* A^H A + N I: Hermitian positive definite */
    for (int i = 0; i < N; i++) h[i + i * N] += N;
    int grids[2][2] = { { 0, 0 }, { 1, dag_num_ranks() } };
    for (int g = 0; g < 2; g++) {
        dag_blocks bl = dag_blocks_grid(5, 5, grids[g][0], grids[g][1]);
        dag_array *A = dag_array_from_host(DAG_CF64, N, N, bl, a, DAG_COL_MAJOR, N);
        dag_array *C = dag_array_zeros(DAG_CF64, N, N, bl);
        CHECK_EQ_INT(dag_array_gemm(1, 0, 1.0, A, A, 0.0, C), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(C, c, DAG_COL_MAJOR, N), DAG_OK);
        cx_gemm(1, N, N, N, a, N, a, N, w, N);
        CHECK(cx_diff(c, w, N * N) < 1e-10);
        dag_array *H = dag_array_from_host(DAG_CF64, N, N, bl, h, DAG_COL_MAJOR, N);
        dag_array *B = dag_array_from_host(DAG_CF64, N, R, dag_blocks_grid(5, 2, grids[g][0], grids[g][1]), b, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_posv(H, B), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(B, x, DAG_COL_MAJOR, N), DAG_OK);
        cx_gemm(0, N, R, N, h, N, x, N, y, N);
        CHECK(cx_diff(y, b, N * R) < 1e-9);
        dag_array *B2 = dag_array_from_host(DAG_CF64, N, R, dag_blocks_grid(5, 2, grids[g][0], grids[g][1]), b, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_gesv(A, NULL, B2), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(B2, x, DAG_COL_MAJOR, N), DAG_OK);
        cx_gemm(0, N, R, N, a, N, x, N, y, N);
        CHECK(cx_diff(y, b, N * R) < 1e-9);
        dag_array *Q = dag_array_from_host(DAG_CF64, N, N, bl, h, DAG_COL_MAJOR, N);
        dag_array *B3 = dag_array_from_host(DAG_CF64, N, R, dag_blocks_grid(5, 2, grids[g][0], grids[g][1]), b, DAG_COL_MAJOR, N);
        CHECK_EQ_INT(dag_array_gels(Q, B3), DAG_OK);   /* square and of full rank: the solution */
        CHECK_EQ_INT(dag_array_collect(B3, x, DAG_COL_MAJOR, N), DAG_OK);
        cx_gemm(0, N, R, N, h, N, x, N, y, N);
        CHECK(cx_diff(y, b, N * R) < 1e-9);
        dag_array_free(A), dag_array_free(C), dag_array_free(H), dag_array_free(B), dag_array_free(B2);
        dag_array_free(Q), dag_array_free(B3);
    }
    dag_shutdown();
    agree_on_failures();
}

/* The DFT along dims (0: both) by its definition, of an m x n column-major matrix */
static void cx_dft(const double _Complex *x, int m, int n, int dims, double _Complex *out) {
    static double _Complex tmp[64 * 64];
    memcpy(tmp, x, sizeof *x * (size_t)(m * n));
    for (int pass = 1; pass <= 2; pass++) {
        if (dims && dims != pass) continue;
        int len = pass == 1 ? m : n, lines = pass == 1 ? n : m, step = pass == 1 ? 1 : m, next = pass == 1 ? m : 1;
        for (int l = 0; l < lines; l++)
            for (int k = 0; k < len; k++) {
                double _Complex s = 0;
                for (int j = 0; j < len; j++)
                    s += tmp[l * next + j * step] * cexp(-6.283185307179586 * I * (double)((j * k) % len) / len);
                out[l * next + k * step] = s;
            }
        memcpy(tmp, out, sizeof *x * (size_t)(m * n));
    }
    memcpy(out, tmp, sizeof *x * (size_t)(m * n));
}
/* fft along each dims, out of place into another tiling and back through ifft in place, on the squarest
   grid and a row of ranks: every rank gets the definition's values */
TEST(fft_over_ranks_equals_the_dft_on_every_rank) {
    setup(2);
    enum { M = 13, N = 10 };
    static double _Complex a[M * N], want[M * N], got[M * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) a[i + j * M] = cx_val(i, j, 3);
    int grids[2][2] = { { 0, 0 }, { 1, dag_num_ranks() } };
    for (int g = 0; g < 2; g++)
        for (int dims = 0; dims <= 2; dims++) {
            dag_array *A = dag_array_from_host(DAG_CF64, M, N, dag_blocks_grid(4, 3, grids[g][0], grids[g][1]), a,
                                               DAG_COL_MAJOR, M);
            dag_array *B = dag_array_zeros(DAG_CF64, M, N, dag_blocks(5, 5));
            CHECK_EQ_INT(dag_array_fft(A, B, dims), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, M), DAG_OK);
            cx_dft(a, M, N, dims, want);
            CHECK(cx_diff(got, want, M * N) < 1e-10);
            CHECK_EQ_INT(dag_array_ifft(B, B, dims), DAG_OK);
            CHECK_EQ_INT(dag_array_collect(B, got, DAG_COL_MAJOR, M), DAG_OK);
            CHECK(cx_diff(got, a, M * N) < 1e-12);
            dag_array_free(A), dag_array_free(B);
        }
    dag_shutdown();
    agree_on_failures();
}

/* mean, var and std (whole and along dims) of an int array and clamp, reflect, mirror and anti stencils over
   ranks: every rank gets the loops' values */
TEST(statistics_and_boundaries_of_the_arrays_own_values_over_ranks_equal_the_loops) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { R = 26, C = 19 };
    static double h[R * C], got[R > C ? R : C];
    static int32_t buf[R * C];
    random_matrix(h, R, C, 71);
    for (int i = 0; i < R * C; i++) h[i] = floor(h[i] * 1000);
    to_elems(DAG_I32, h, buf, R * C);
    dag_array *A = dag_array_from_host(DAG_I32, R, C, dag_blocks_grid(7, 5, ranks, 1), buf, DAG_COL_MAJOR, R);
    double sum = 0, ss = 0, mean = 0, var = 0, sd = 0;
    for (int i = 0; i < R * C; i++) sum += h[i];
    for (int i = 0; i < R * C; i++) ss += (h[i] - sum / (R * C)) * (h[i] - sum / (R * C));
    CHECK_EQ_INT(dag_array_mean(A, &mean), DAG_OK);
    CHECK_EQ_INT(dag_array_var(A, true, &var), DAG_OK);
    CHECK_EQ_INT(dag_array_std(A, false, &sd), DAG_OK);
    CHECK(fabs(mean - sum / (R * C)) < 1e-9 && fabs(var - ss / (R * C - 1)) < 1e-6 * var && fabs(sd - sqrt(ss / (R * C))) < 1e-9 * sd);
    dag_array *cm = dag_array_mean_dims(A, 1), *rv = dag_array_var_dims(A, 2, true);
    CHECK(cm && rv);
    double err = 0;
    if (cm && rv) {
        CHECK_EQ_INT(dag_array_collect(cm, got, DAG_COL_MAJOR, 1), DAG_OK);
        for (int j = 0; j < C; j++) {
            double m = 0;
            for (int i = 0; i < R; i++) m += h[i + j * R] / R;
            err = fmax(err, fabs(got[j] - m));
        }
        CHECK_EQ_INT(dag_array_collect(rv, got, DAG_COL_MAJOR, R), DAG_OK);
        for (int i = 0; i < R; i++) {
            double m = 0, v = 0;
            for (int j = 0; j < C; j++) m += h[i + j * R] / C;
            for (int j = 0; j < C; j++) v += (h[i + j * R] - m) * (h[i + j * R] - m) / (C - 1);
            err = fmax(err, fabs(got[i] - v) / fmax(1, v));
        }
    }
    CHECK(err < 1e-9);
    dag_array_free(cm), dag_array_free(rv), dag_array_free(A);
    random_matrix(h, R, C, 72);
    const dag_boundary kinds[5] = { dag_boundary_clamp(), dag_boundary_reflect(), dag_boundary_mirror(),
                                    dag_boundary_antireflect(), dag_boundary_antimirror() };
    for (int b = 0; b < 5; b++) {
        CHECK(stencil_case(DAG_F64, h, R, C, 7, 6, 7, 6, ranks, 1, 1, kinds[b], jacobi_point, 2) <= 1e-12);
        CHECK(stencil_case(DAG_F64, h, R, C, 9, 8, 6, 7, 0, 0, 2, kinds[b], cross2_point, 2) <= 1e-12);
    }
    dag_shutdown();
    agree_on_failures();
}

/* A view's corner and an element's place go to the copy tasks as values, which the ranks' check of their
   calls does not compare: they are agreed on as numbers of the call, so a rank that passes another corner
   or place diverges, named, on every rank, rather than mixing the ranks' arrays silently; alike again,
   the calls work. */
TEST(a_view_corner_or_element_place_that_differs_between_ranks_is_a_divergence_not_mixed_data) {
    setup(2);
    int me = dag_rank(), n = dag_num_ranks(), last = n - 1;
    dag_result diverged = n > 1 ? DAG_ERR_DIVERGED : DAG_OK;
    dag_array *a = dag_array_fill(DAG_F64, 6, 4 * n, dag_blocks(6, 4), -1.0);
    dag_array *w = dag_array_view(a, me == last ? 2 : 1, 3, 1, 4 * n - 2);   /* its corner inside a tile */
    CHECK_EQ_INT(dag_array_set(w, 1.0), diverged);
    if (n > 1) CHECK(strstr(last_log, "copied part of an array") != NULL);
    dag_array_free(w);
    CHECK_EQ_INT(dag_array_put(a, me == last ? 5 : 4, 0, 9.0), diverged);
    CHECK_EQ_INT(dag_array_put(a, 4, 0, 7.0), DAG_OK);
    double v = 0;
    CHECK_EQ_INT(dag_array_get(a, 4, 0, &v), DAG_OK);
    CHECK(v == 7.0);
    /* index lists: the same length and runs, other indices on the last rank */
    int64_t pick[2] = { me == last ? 2 : 1, 4 }, all[2] = { 1, 4 };
    dag_array *x = dag_array_index(a, pick, 2, NULL, 0);
    CHECK(n > 1 ? x == NULL : x != NULL);
    if (n > 1) CHECK(strstr(last_log, "dag_array_index's rows") != NULL);
    dag_array_free(x);
    x = dag_array_index(a, all, 2, NULL, 0);
    CHECK(x != NULL && dag_array_get(x, 1, 0, &v) == DAG_OK && v == 7.0);
    dag_array_free(x);
    w = dag_array_view(a, 1, 3, 1, 4 * n - 2);
    CHECK_EQ_INT(dag_array_set(w, 2.0), DAG_OK);
    CHECK_EQ_INT(dag_array_get(a, 3, 4 * n - 2, &v), DAG_OK);
    CHECK(v == 2.0);
    dag_array_free(w);
    dag_array_free(a);
    dag_shutdown();
    agree_on_failures();
}

int main(int argc, char **argv) {
    if (!mpi_suite_start(&argc, &argv)) return 1;
    RUN_ALL(a_distributed_pivoted_lu_and_gesv_match_the_plain_factor_for_ragged_sizes_and_grids);
    RUN_ALL(a_distributed_qr_matches_the_plain_householder_loop_on_several_grids);
    RUN_ALL(a_distributed_caqr_gives_q_r_equal_to_a_on_several_grids);
    RUN_ALL(vectors_over_ranks_are_dealt_over_every_rank_and_equal_the_loops);
    RUN_ALL(views_indexing_reductions_and_broadcasts_over_ranks_equal_plain_loops);
    RUN_ALL(random_array_programs_over_ranks_equal_the_same_steps_as_plain_loops);
    RUN_ALL(a_vector_sorted_over_ranks_is_in_qsorts_order_on_every_rank);
    RUN_ALL(stencil_steps_over_ranks_equal_the_plain_loops_on_every_rank);
    RUN_ALL(complex_gemm_and_solves_over_ranks_equal_plain_loops_on_every_rank);
    RUN_ALL(fft_over_ranks_equals_the_dft_on_every_rank);
    RUN_ALL(statistics_and_boundaries_of_the_arrays_own_values_over_ranks_equal_the_loops);
    RUN_ALL(a_view_corner_or_element_place_that_differs_between_ranks_is_a_divergence_not_mixed_data);
    int failed = test_summary();
    MPI_Finalize();
    return failed;
}
