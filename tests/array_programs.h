/* array_programs.h: the differential tester of dag_array.h (test_array_ops.c,
   and test_mpi_array.c on every rank). From a seed, a random program over
   three arrays of one shape in random tilings: copies and transposes
   between views of random rectangles, element-wise operations (views on
   and off tile boundaries, broadcast rows and columns, scalars), gemm of
   views, reductions along a dimension broadcast back, elements put and
   got, random fills of views, sorts of a column, Jacobi steps between
   rectangles. Each step runs through dag_array.h and as a
   plain loop on host copies; at the end the arrays must equal the loops'
   (to rounding where gemm sums in another order). Include after test.h
   and dag_array.h. Also the references those suites share: a random
   matrix, LAPACK's getf2 and geqr2 as plain loops. */
#ifndef DAG_ARRAY_PROGRAMS_H
#define DAG_ARRAY_PROGRAMS_H

static unsigned array_rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 8) & 0xffffff; }
static __attribute__((unused)) void random_matrix(double *m, int rows, int cols, unsigned seed) {   /* in [-1, 1) */
    for (int i = 0; i < rows * cols; i++) m[i] = (double)array_rnd(&seed) / 8388608.0 - 1.0;
}
/* LAPACK's unblocked getf2 on an m x n matrix: the reference factor and pivots (1-based) */
static __attribute__((unused)) void lu_reference(double *a, int m, int n, int64_t *ipiv) {
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

/* LAPACK's geqr2 as a plain loop (beta = -sign(alpha) |x|): the reference R, V and tau */
static __attribute__((unused)) void qr_reference(double *a, int m, int n, double *tau) {
    for (int k = 0; k < (m < n ? m : n); k++) {
        double alpha = a[k + k * m], xn = 0;
        for (int i = k + 1; i < m; i++) xn += a[i + k * m] * a[i + k * m];
        tau[k] = 0;
        if (xn > 0) {
            double beta = (alpha >= 0 ? -1 : 1) * sqrt(alpha * alpha + xn);
            tau[k] = (beta - alpha) / beta;
            for (int i = k + 1; i < m; i++) a[i + k * m] /= alpha - beta;
            a[k + k * m] = beta;
        }
        for (int j = k + 1; j < n; j++) {
            double w = a[k + j * m];
            for (int i = k + 1; i < m; i++) w += a[i + k * m] * a[i + j * m];
            a[k + j * m] -= tau[k] * w;
            for (int i = k + 1; i < m; i++) a[i + j * m] -= tau[k] * a[i + k * m] * w;
        }
    }
}

/* ---- sort and stencil references (test_array_ops.c, test_mpi_array.c) ---- */

/* NaN after every number, ascending or descending: the order dag_array_sort promises, for qsort */
static __attribute__((unused)) int ref_sort_up(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return isnan(x) || isnan(y) ? isnan(x) - isnan(y) : (x > y) - (x < y);
}
static __attribute__((unused)) int ref_sort_down(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return isnan(x) || isnan(y) ? isnan(x) - isnan(y) : (x < y) - (x > y);
}
/* n values with many duplicates (a few dozen distinct), exact in every element type; every seventh or so
   a NaN when nans */
static __attribute__((unused)) void sort_values(double *v, int n, unsigned seed, int nans, double scale) {
    for (int i = 0; i < n; i++) {
        unsigned r = array_rnd(&seed);
        v[i] = nans && r % 7 == 3 ? NAN : ((double)(int)(r % 41) - 20.0) * scale;
    }
}
/* doubles to and from a host buffer of the element type */
static __attribute__((unused)) void to_elems(dag_elem t, const double *v, void *out, int n) {
    for (int i = 0; i < n; i++) {
        if (t == DAG_F64) ((double *)out)[i] = v[i];
        else if (t == DAG_F32) ((float *)out)[i] = (float)v[i];
        else if (t == DAG_I32) ((int32_t *)out)[i] = (int32_t)v[i];
        else ((int64_t *)out)[i] = (int64_t)v[i];
    }
}
static __attribute__((unused)) void from_elems(dag_elem t, const void *in, double *v, int n) {
    for (int i = 0; i < n; i++)
        v[i] = t == DAG_F64 ? ((const double *)in)[i] : t == DAG_F32 ? (double)((const float *)in)[i]
             : t == DAG_I32 ? (double)((const int32_t *)in)[i] : (double)((const int64_t *)in)[i];
}
/* n values of type t sorted by dag_array_sort (a column, or a row, in tiles of nb, on grid p x q) against
   qsort: how many differ (NaN equals NaN) */
static __attribute__((unused)) int sort_case(dag_elem t, int n, int nb, int p, int q, int descending, unsigned seed,
                                             int row) {
    double *v = malloc(sizeof(double) * (size_t)n), *got = malloc(sizeof(double) * (size_t)n);
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)n);
    sort_values(v, n, seed, t == DAG_F64 || t == DAG_F32, t == DAG_I64 ? 1e12 : t == DAG_I32 ? 1.0 : 0.25);
    to_elems(t, v, buf, n);
    dag_array *a = row ? dag_array_from_host(t, 1, n, dag_blocks_grid(1, nb, p, q), buf, DAG_COL_MAJOR, 1)
                       : dag_array_from_host(t, n, 1, dag_blocks_grid(nb, 1, p, q), buf, DAG_COL_MAJOR, n);
    int bad = a ? 0 : n;
    if (a && dag_array_sort(a, descending) != DAG_OK) bad = n;
    if (a && !bad && dag_array_collect(a, buf, DAG_COL_MAJOR, row ? 1 : n) != DAG_OK) bad = n;
    from_elems(t, buf, got, n);
    qsort(v, (size_t)n, sizeof(double), descending ? ref_sort_down : ref_sort_up);
    for (int i = 0; i < n && !bad; i++) bad += !(got[i] == v[i] || (isnan(got[i]) && isnan(v[i])));
    dag_array_free(a);
    free(v), free(got), free(buf);
    return bad;
}

/* A stencil step as plain loops: the array with its halo (periodic, or value past the edges), then f at
   each point. in and out R x C, column-major. */
/* index g of n past an edge, as each boundary of the array's own values reads it */
static __attribute__((unused)) int boundary_reference_index(dag_boundary_kind kind, int g, int n) {
    if (g >= 0 && g < n) return g;
    switch (kind) {
    case DAG_BOUNDARY_PERIODIC: return (g + n) % n;
    case DAG_BOUNDARY_CLAMP: return g < 0 ? 0 : n - 1;           /* ... x0 x0 | x0 x1 */
    case DAG_BOUNDARY_REFLECT: case DAG_BOUNDARY_ANTIREFLECT: return g < 0 ? -1 - g : 2 * n - 1 - g;   /* ... x1 x0 | x0 x1 */
    default: return g < 0 ? -g : 2 * n - 2 - g;                  /* mirror: ... x2 x1 | x0 x1 */
    }
}
static __attribute__((unused)) void stencil_reference(double *out, const double *in, int R, int C, int rad, dag_boundary b,
                                                      dag_stencil_fn f, void *user) {
    int pr = R + 2 * rad, pc = C + 2 * rad;
    double *x = malloc(sizeof(double) * (size_t)(pr * pc));
    bool own = b.kind != DAG_BOUNDARY_DEFAULT && b.kind != DAG_BOUNDARY_FIXED;   /* the array's own values past its edges */
    for (int j = 0; j < pc; j++)
        for (int i = 0; i < pr; i++) {
            int g = i - rad, h = j - rad;
            /* the anti kinds flip the sign once per dimension crossed */
            int flips = (b.kind == DAG_BOUNDARY_ANTIREFLECT || b.kind == DAG_BOUNDARY_ANTIMIRROR) * ((g < 0 || g >= R) + (h < 0 || h >= C));
            if (own) x[i + j * pr] = (flips % 2 ? -1 : 1) * in[boundary_reference_index(b.kind, g, R) + boundary_reference_index(b.kind, h, C) * R];
            else x[i + j * pr] = g < 0 || g >= R || h < 0 || h >= C ? b.value : in[g + h * R];
        }
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) out[i + j * R] = f(x + (i + rad) + (j + rad) * pr, pr, i, j, user);
    free(x);
}
/* Jacobi's 5-point average plus a source term that tells the points apart (so a point computed with
   another's position fails) */
static __attribute__((unused)) double jacobi_point(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
    (void)user;
    return 0.25 * (x[-1] + x[1] + x[-ld] + x[ld]) + 0.001 * (double)(r - 2 * c);
}
/* radius 2: a 9-point cross with weights */
static __attribute__((unused)) double cross2_point(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
    (void)r, (void)c, (void)user;
    return 0.5 * x[0] + 0.1 * (x[-1] + x[1] + x[-ld] + x[ld]) + 0.025 * (x[-2] + x[2] - x[-2 * ld] + x[2 * ld]);
}
/* Conway's Game of Life */
static __attribute__((unused)) double life_point(const double *x, int64_t ld, int64_t r, int64_t c, void *user) {
    (void)r, (void)c, (void)user;
    double n = x[-1 - ld] + x[-ld] + x[1 - ld] + x[-1] + x[1] + x[-1 + ld] + x[ld] + x[1 + ld];
    return n == 3 || (x[0] != 0 && n == 2) ? 1 : 0;
}
/* steps of f from h (R x C) through dag_array_stencil, src in tiles of sb, dst in tiles of db (p x q grid),
   against the loops; the largest difference (1e300 on an error) */
static __attribute__((unused)) double stencil_case(dag_elem t, const double *h, int R, int C, int sbr, int sbc, int dbr,
                                                   int dbc, int p, int q, int rad, dag_boundary b, dag_stencil_fn f,
                                                   int steps) {
    double *ref = malloc(sizeof(double) * (size_t)(R * C)), *tmp = malloc(sizeof(double) * (size_t)(R * C)),
           *got = malloc(sizeof(double) * (size_t)(R * C));
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)(R * C));
    memcpy(ref, h, sizeof(double) * (size_t)(R * C));
    to_elems(t, h, buf, R * C);
    dag_array *x[2] = { dag_array_from_host(t, R, C, dag_blocks_grid(sbr, sbc, p, q), buf, DAG_COL_MAJOR, R),
                        dag_array_zeros(t, R, C, dag_blocks_grid(dbr, dbc, p, q)) };
    double err = x[0] && x[1] ? 0 : 1e300;
    for (int s = 0; s < steps && err == 0; s++) {
        if (dag_array_stencil(x[(s + 1) % 2], x[s % 2], rad, b, f, NULL) != DAG_OK) err = 1e300;
        stencil_reference(tmp, ref, R, C, rad, b, f, NULL);
        for (int i = 0; i < R * C; i++) ref[i] = t == DAG_F64 ? tmp[i] : t == DAG_F32 ? (double)(float)tmp[i] : (double)(int64_t)tmp[i];
    }
    if (err == 0 && dag_array_collect(x[steps % 2], buf, DAG_COL_MAJOR, R) != DAG_OK) err = 1e300;
    from_elems(t, buf, got, R * C);
    for (int i = 0; i < R * C && err < 1e300; i++) err = fmax(err, fabs(got[i] - ref[i]));
    dag_array_free(x[0]), dag_array_free(x[1]);
    free(ref), free(tmp), free(got), free(buf);
    return err;
}
/* jacobi_point as a DAG_KERNEL over a tile padded with its halo of 1 (dag_array_stencil_kernel) */
DAG_KERNEL(jacobi_kernel, ((long, rows), (long, ld), (long, r0), (long, c0), (DAG_GLOBAL const double *, x),
                           (DAG_GLOBAL double *, y)),
    size_t k = DAG_INDEX();
    long i = (long)(k % (size_t)rows), j = (long)(k / (size_t)rows);
    DAG_GLOBAL const double *p = x + (i + 1) + (j + 1) * ld;
    y[k] = 0.25 * (p[-1] + p[1] + p[-ld] + p[ld]) + 0.001 * (double)((r0 + i) - 2 * (c0 + j));
)
/* steps of jacobi_kernel against jacobi_point's loops (doubles; src and dst tilings as stencil_case's): the
   largest difference (1e300 on an error) */
static __attribute__((unused)) double stencil_kernel_case(const double *h, int R, int C, int sbr, int sbc, int dbr,
                                                          int dbc, int p, int q, dag_boundary b, int steps) {
    double *ref = (double *)malloc(sizeof(double) * (size_t)(R * C)), *got = (double *)malloc(sizeof(double) * (size_t)(R * C));
    memcpy(ref, h, sizeof(double) * (size_t)(R * C));
    dag_array *x[2] = { dag_array_from_host(DAG_F64, R, C, dag_blocks_grid(sbr, sbc, p, q), h, DAG_COL_MAJOR, R),
                        dag_array_zeros(DAG_F64, R, C, dag_blocks_grid(dbr, dbc, p, q)) };
    double err = x[0] && x[1] ? 0 : 1e300;
    for (int s = 0; s < steps && err == 0; s++) {
        if (dag_array_stencil_kernel(jacobi_kernel, x[(s + 1) % 2], x[s % 2], 1, b) != DAG_OK) err = 1e300;
        stencil_reference(got, ref, R, C, 1, b, jacobi_point, NULL);
        memcpy(ref, got, sizeof(double) * (size_t)(R * C));
    }
    if (err == 0 && dag_array_collect(x[steps % 2], got, DAG_COL_MAJOR, R) != DAG_OK) err = 1e300;
    for (int i = 0; i < R * C && err < 1e300; i++) err = fmax(err, fabs(got[i] - ref[i]));
    dag_array_free(x[0]), dag_array_free(x[1]);
    free(ref), free(got);
    return err;
}
/* a glider (moving down and right, a cell every 4 generations) with its top-left corner at (r, c) */
static __attribute__((unused)) void put_glider(double *g, int R, int C, int r, int c) {
    static const int cells[5][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 }, { 2, 1 }, { 2, 2 } };
    for (int k = 0; k < 5; k++) g[(r + cells[k][0]) % R + ((c + cells[k][1]) % C) * R] = 1;
}

typedef struct prog_rect { int a, r0, c0, rows, cols; } prog_rect;
typedef struct prog { unsigned s; int R, C; dag_array *arr[3]; double *ref[3]; } prog;

static unsigned prog_rnd(prog *p, unsigned n) { p->s = p->s * 1103515245u + 12345u; return ((p->s >> 8) & 0xffffff) % n; }
#define PREF(p, a, i, j) ((p)->ref[a][(i) + (j) * (p)->R])

/* a random rectangle of array a (rows x cols of it when given, else random) */
static prog_rect prog_pick(prog *p, int a, int rows, int cols) {
    prog_rect r;
    r.a = a;
    r.rows = rows ? rows : 1 + (int)prog_rnd(p, (unsigned)p->R);
    r.cols = cols ? cols : 1 + (int)prog_rnd(p, (unsigned)p->C);
    r.r0 = (int)prog_rnd(p, (unsigned)(p->R - r.rows + 1));
    r.c0 = (int)prog_rnd(p, (unsigned)(p->C - r.cols + 1));
    return r;
}
static dag_array *prog_view(prog *p, prog_rect r) { return dag_array_view(p->arr[r.a], r.r0, r.rows, r.c0, r.cols); }
static bool prog_overlap(prog_rect x, prog_rect y) {
    return x.a == y.a && x.r0 < y.r0 + y.rows && y.r0 < x.r0 + x.rows && x.c0 < y.c0 + y.cols && y.c0 < x.c0 + x.cols;
}
/* two rectangles of one size in two arrays (or disjoint in one) */
static void prog_pair(prog *p, prog_rect *x, prog_rect *y, bool transposed) {
    *x = prog_pick(p, (int)prog_rnd(p, 3), 0, 0);
    if (transposed && (x->rows > p->C || x->cols > p->R)) x->rows = x->cols = 1;
    do *y = prog_pick(p, (int)prog_rnd(p, 3), transposed ? x->cols : x->rows, transposed ? x->rows : x->cols);
    while (prog_overlap(*x, *y));
}

static int prog_step(prog *p) {
    prog_rect x, y, z;
    dag_array *vx = NULL, *vy = NULL, *vz = NULL;
    int kind = (int)prog_rnd(p, 9), ok = 1;
    if (kind <= 1) {   /* copy or transpose between views */
        prog_pair(p, &x, &y, kind == 1);
        vx = prog_view(p, x), vy = prog_view(p, y);
        ok = (kind ? dag_array_transpose(vx, vy) : dag_array_copy(vx, vy)) == DAG_OK;
        for (int j = 0; j < y.cols; j++)
            for (int i = 0; i < y.rows; i++)
                PREF(p, y.a, y.r0 + i, y.c0 + j) = kind ? PREF(p, x.a, x.r0 + j, x.c0 + i) : PREF(p, x.a, x.r0 + i, x.c0 + j);
    } else if (kind == 2) {   /* y = x op y, or y = y op x, same size */
        prog_pair(p, &x, &y, false);
        vx = prog_view(p, x), vy = prog_view(p, y);
        int op = (int)prog_rnd(p, 3);
        ok = (op == 0 ? dag_array_add(vx, vy, vy) : op == 1 ? dag_array_sub(vy, vx, vy) : dag_array_mul(vx, vy, vy)) == DAG_OK;
        for (int j = 0; j < y.cols; j++)
            for (int i = 0; i < y.rows; i++) {
                double a = PREF(p, x.a, x.r0 + i, x.c0 + j), *b = &PREF(p, y.a, y.r0 + i, y.c0 + j);
                *b = op == 0 ? a + *b : op == 1 ? *b - a : a * *b;
            }
    } else if (kind == 3) {   /* y = alpha y, or y .+= a row or column of another rectangle */
        y = prog_pick(p, (int)prog_rnd(p, 3), 0, 0);
        vy = prog_view(p, y);
        int row = (int)prog_rnd(p, 3);   /* 0: a column, 1: a row, 2: a scale */
        if (row < 2) {
            do x = prog_pick(p, (int)prog_rnd(p, 3), row ? 1 : y.rows, row ? y.cols : 1);
            while (prog_overlap(x, y));
            vx = prog_view(p, x);
            ok = dag_array_add(vy, vx, vy) == DAG_OK;
        } else {
            ok = dag_array_scale(-0.5, vy) == DAG_OK;
        }
        for (int j = 0; j < y.cols; j++)
            for (int i = 0; i < y.rows; i++)
                PREF(p, y.a, y.r0 + i, y.c0 + j) = row == 2 ? -0.5 * PREF(p, y.a, y.r0 + i, y.c0 + j)
                                                   : PREF(p, y.a, y.r0 + i, y.c0 + j) + PREF(p, x.a, x.r0 + (row ? 0 : i), x.c0 + (row ? j : 0));
    } else if (kind == 4) {   /* z = 0.5 x y + 0.25 z, z apart from x and y */
        int m = 1 + (int)prog_rnd(p, (unsigned)p->R), n = 1 + (int)prog_rnd(p, (unsigned)p->C), k = 1 + (int)prog_rnd(p, (unsigned)(p->R < p->C ? p->R : p->C));
        z = prog_pick(p, (int)prog_rnd(p, 3), m, n);
        do x = prog_pick(p, (int)prog_rnd(p, 3), m, k); while (prog_overlap(x, z));
        do y = prog_pick(p, (int)prog_rnd(p, 3), k, n); while (prog_overlap(y, z));
        vx = prog_view(p, x), vy = prog_view(p, y), vz = prog_view(p, z);
        ok = dag_array_gemm(0, 0, 0.5, vx, vy, 0.25, vz) == DAG_OK;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int l = 0; l < k; l++) s += PREF(p, x.a, x.r0 + i, x.c0 + l) * PREF(p, y.a, y.r0 + l, y.c0 + j);
                PREF(p, z.a, z.r0 + i, z.c0 + j) = 0.5 * s + 0.25 * PREF(p, z.a, z.r0 + i, z.c0 + j);
            }
    } else if (kind == 5) {   /* an element put, and one got */
        int a = (int)prog_rnd(p, 3), i = (int)prog_rnd(p, (unsigned)p->R), j = (int)prog_rnd(p, (unsigned)p->C);
        double v = (double)prog_rnd(p, 100) / 8.0, got = 0;
        ok = dag_array_put(p->arr[a], i, j, v) == DAG_OK;
        PREF(p, a, i, j) = v;
        i = (int)prog_rnd(p, (unsigned)p->R), j = (int)prog_rnd(p, (unsigned)p->C);
        ok &= dag_array_get(p->arr[a], i, j, &got) == DAG_OK && got == PREF(p, a, i, j);
    } else if (kind == 7) {   /* a column's rows sorted, either way */
        x = prog_pick(p, (int)prog_rnd(p, 3), 0, 1);
        vx = prog_view(p, x);
        int down = (int)prog_rnd(p, 2);
        ok = dag_array_sort(vx, down) == DAG_OK;
        qsort(&PREF(p, x.a, x.r0, x.c0), (size_t)x.rows, sizeof(double), down ? ref_sort_down : ref_sort_up);
    } else if (kind == 8) {   /* a Jacobi step from a rectangle into one of another array */
        y = prog_pick(p, (int)prog_rnd(p, 3), 0, 0);
        x = prog_pick(p, (y.a + 1 + (int)prog_rnd(p, 2)) % 3, y.rows, y.cols);
        vx = prog_view(p, x), vy = prog_view(p, y);
        int periodic = (int)prog_rnd(p, 2);
        ok = dag_array_stencil(vy, vx, 1, periodic ? dag_boundary_periodic() : dag_boundary_fixed(0.5), jacobi_point,
                               NULL) == DAG_OK;
        double *in = (double *)malloc(sizeof(double) * (size_t)(x.rows * x.cols)), *out = (double *)malloc(sizeof(double) * (size_t)(x.rows * x.cols));
        for (int j = 0; j < x.cols; j++)
            for (int i = 0; i < x.rows; i++) in[i + j * x.rows] = PREF(p, x.a, x.r0 + i, x.c0 + j);
        stencil_reference(out, in, x.rows, x.cols, 1, periodic ? dag_boundary_periodic() : dag_boundary_fixed(0.5), jacobi_point,
                          NULL);
        for (int j = 0; j < y.cols; j++)
            for (int i = 0; i < y.rows; i++) PREF(p, y.a, y.r0 + i, y.c0 + j) = out[i + j * y.rows];
        free(in), free(out);
    } else {   /* y = max over x's columns (a row), from a start, scaled into y's first row */
        x = prog_pick(p, (int)prog_rnd(p, 3), 0, 0);
        vx = prog_view(p, x);
        dag_array *mx = dag_array_reduce_dims(DAG_OP_MAX, vx, 1, -0.75);
        do y = prog_pick(p, (int)prog_rnd(p, 3), 1, x.cols); while (prog_overlap(x, y));
        vy = prog_view(p, y);
        ok = mx && dag_array_copy(mx, vy) == DAG_OK;
        for (int j = 0; j < x.cols; j++) {
            double m = -0.75;
            for (int i = 0; i < x.rows; i++) m = fmax(m, PREF(p, x.a, x.r0 + i, x.c0 + j));
            PREF(p, y.a, y.r0, y.c0 + j) = m;
        }
        dag_array_free(mx);
    }
    dag_array_free(vx), dag_array_free(vy), dag_array_free(vz);
    return ok;
}

/* One program: 0 when every step succeeded and the arrays equal the loops'. */
static int array_program(unsigned seed, int steps) {
    prog p;
    p.s = seed;
    p.R = 3 + (int)prog_rnd(&p, 30), p.C = 3 + (int)prog_rnd(&p, 30);
    int bad = 0;
    for (int a = 0; a < 3; a++) {
        p.ref[a] = (double *)malloc(sizeof(double) * (size_t)(p.R * p.C));
        for (int i = 0; i < p.R * p.C; i++) p.ref[a][i] = (double)prog_rnd(&p, 64) / 16.0 - 2.0;
        dag_blocks b = dag_blocks(1 + (int)prog_rnd(&p, (unsigned)p.R), 1 + (int)prog_rnd(&p, (unsigned)p.C));
        p.arr[a] = dag_array_from_host(DAG_F64, p.R, p.C, b, p.ref[a], DAG_COL_MAJOR, p.R);
        bad += !p.arr[a];
    }
    for (int t = 0; !bad && t < steps; t++) bad += !prog_step(&p);
    double *got = (double *)malloc(sizeof(double) * (size_t)(p.R * p.C));
    for (int a = 0; a < 3; a++) {
        bad += !p.arr[a] || dag_array_collect(p.arr[a], got, DAG_COL_MAJOR, p.R) != DAG_OK;
        for (int i = 0; !bad && i < p.R * p.C; i++) bad += fabs(got[i] - p.ref[a][i]) > 1e-9 * (1 + fabs(p.ref[a][i]));
        dag_array_free(p.arr[a]);
        free(p.ref[a]);
    }
    free(got);
    return bad;
}

#endif
