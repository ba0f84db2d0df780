/* mock_blas.h: what the mock vendor libraries share (mock_cublas.c:
   cuBLAS; mock_cusolver.c: cuSOLVER; mock_rocblas.c: rocBLAS and
   rocSOLVER). A routine checks its arguments as the library does (sizes,
   leading dimensions: CUBLAS_STATUS_INVALID_VALUE and its like), and the
   rules dag.h must keep: a handle used on the device it was made on, its
   stream set, every matrix in that device's memory and as large as its
   sizes say. Then it queues the operation on the handle's stream through
   the mock runtime (mock_stream_call, mock_hip.c), which runs it, in order
   with the copies and kernels around it, as reference loops on the host
   (in double, rounded to float for the S routines). Each library counts
   its calls by routine (mock_blas_calls("cublasDtrsm_v2")), so a test knows
   which routines really ran. */
#ifndef MOCK_BLAS_H
#define MOCK_BLAS_H
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_EXPORT __attribute__((visibility("default")))
#define MOCK_HELPER static __attribute__((unused))   /* not every library uses every helper */
#define MOCK_BLAS_FAIL(...) do { fprintf(stderr, "MOCK BLAS FAILURE: " __VA_ARGS__); fprintf(stderr, "\n"); abort(); } while (0)

/* the mock runtime's (mock_hip.c, inside mock_cuda.c too): a routine queued on a stream, and its injected
   failures (mock_fail.h): an entry point that starts with INJECT(error) fails on the nth call asked */
int mock_stream_call(void *stream, const char *routine, void (*fn)(void *), const void *ctx, size_t ctx_size, int n,
                     const void *const *ptr, const size_t *bytes);
int mock_runtime_inject(const char *fn, long *code);
#define INJECT(error) \
    do { \
        long code_; \
        if (mock_runtime_inject(__func__, &code_)) return code_ ? (int)code_ : (error); \
    } while (0)

/* A handle (cuBLAS's, cuSOLVER's, rocBLAS's): the device it was made on, the stream set last. */
typedef struct mock_handle { int dev; void *stream; } mock_handle;
MOCK_HELPER long live_handles;   /* made and not destroyed: none may be left at exit */
/* A handle on the current device (current_device: the runtime's cudaGetDevice or hipGetDevice). */
MOCK_HELPER int handle_new(mock_handle **h, int (*current_device)(int *)) {
    int d = -1;
    if (current_device(&d) != 0) return -1;
    *h = calloc(1, sizeof **h);
    (*h)->dev = d;
    live_handles++;
    return 0;
}
MOCK_HELPER int handle_free(mock_handle *h) {
    if (!h) return -1;
    free(h);
    live_handles--;
    return 0;
}
/* set_stream: on the handle's own device, the current one */
MOCK_HELPER int handle_stream(mock_handle *h, void *stream, int (*current_device)(int *), const char *routine) {
    int d = -1;
    if (!h || current_device(&d) != 0 || d != h->dev)
        MOCK_BLAS_FAIL("%s: a handle of device %d used while device %d is current", routine, h ? h->dev : -1, d);
    h->stream = stream;
    return 0;
}
/* At exit: the library's name and its calls of routine, and no handle left. */
MOCK_HELPER void report_handles(const char *lib, const char *what, long count) {
    fprintf(stderr, "mock %s: %ld %s, %ld handles live\n", lib, count, what, live_handles);
    if (live_handles) {
        fprintf(stderr, "mock %s: %ld handles still live at exit\n", lib, live_handles);
        abort();
    }
}

/* ---- calls, counted by routine ---- */
static pthread_mutex_t calls_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { const char *routine; long count; } calls[32];
static void count_call(const char *routine) {
    pthread_mutex_lock(&calls_mu);
    int i = 0;
    while (i < 32 && calls[i].routine && strcmp(calls[i].routine, routine)) i++;
    if (i < 32) calls[i].routine = routine, calls[i].count++;
    pthread_mutex_unlock(&calls_mu);
}
/* (each library asks its own table: a call of the exported name could reach another library's) */
static long calls_of(const char *routine) {
    long n = 0;
    pthread_mutex_lock(&calls_mu);
    for (int i = 0; i < 32 && calls[i].routine; i++)
        if (!strcmp(calls[i].routine, routine)) n = calls[i].count;
    pthread_mutex_unlock(&calls_mu);
    return n;
}
MOCK_EXPORT long mock_blas_calls(const char *routine) { return calls_of(routine); }

/* ---- the operations, as the host runs them ---- */
enum { OP_GEMM, OP_SYRK, OP_TRSM, OP_TRMM, OP_POTRF, OP_GETRF };
typedef struct op {
    int kind, single;
    int ta, tb, upper, right, unit;           /* transposes, triangle, side, diagonal, as 0 or 1 */
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;
    void *a, *b, *c;
    int *info, *ipiv;   /* potrf's and getrf's; getrf's pivots */
} op;
static double get(const op *o, const void *p, size_t i) { return o->single ? ((const float *)p)[i] : ((const double *)p)[i]; }
static void put(const op *o, void *p, size_t i, double v) {
    if (o->single) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}
/* op(X)'s element (i, j), X with leading dimension ld */
static double at(const op *o, const void *x, int trans, int ld, int i, int j) {
    return trans ? get(o, x, (size_t)j + (size_t)i * ld) : get(o, x, (size_t)i + (size_t)j * ld);
}
/* op(A) of trsm and trmm as a dense n x n matrix: its triangle, the diagonal ones when unit */
static double *tri_dense(const op *o, int n) {
    double *t = calloc((size_t)n * n, sizeof *t);
    int lower = o->upper == o->ta;   /* op(A) lower */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (i == j) t[i + (size_t)j * n] = o->unit ? 1.0 : get(o, o->a, (size_t)i + (size_t)i * o->lda);
            else if (lower ? i > j : i < j) t[i + (size_t)j * n] = at(o, o->a, o->ta, o->lda, i, j);
    return t;
}
static void run_gemm(const op *o) {
    for (int j = 0; j < o->n; j++)
        for (int i = 0; i < o->m; i++) {
            double s = 0;
            for (int l = 0; l < o->k; l++) s += at(o, o->a, o->ta, o->lda, i, l) * at(o, o->b, o->tb, o->ldb, l, j);
            size_t ci = (size_t)i + (size_t)j * o->ldc;
            put(o, o->c, ci, o->alpha * s + (o->beta == 0 ? 0 : o->beta * get(o, o->c, ci)));
        }
}
static void run_syrk(const op *o) {   /* op(A) n x k */
    for (int j = 0; j < o->n; j++)
        for (int i = o->upper ? 0 : j; i < (o->upper ? j + 1 : o->n); i++) {
            double s = 0;
            for (int l = 0; l < o->k; l++) s += at(o, o->a, o->ta, o->lda, i, l) * at(o, o->a, o->ta, o->lda, j, l);
            size_t ci = (size_t)i + (size_t)j * o->ldc;
            put(o, o->c, ci, o->alpha * s + (o->beta == 0 ? 0 : o->beta * get(o, o->c, ci)));
        }
}
/* trsm and trmm on B (m x n): B = alpha op(A)^-1 B, alpha op(A) B, or the same from the right */
static void run_tri(const op *o) {
    int na = o->right ? o->n : o->m;
    double *t = tri_dense(o, na), *x = calloc((size_t)o->m * o->n, sizeof *x), *y = calloc((size_t)o->m * o->n, sizeof *y);
    for (int j = 0; j < o->n; j++)
        for (int i = 0; i < o->m; i++) x[i + (size_t)j * o->m] = o->alpha * get(o, o->b, (size_t)i + (size_t)j * o->ldb);
    /* left: column by column, y = T x or T y = x; right: row by row, y = x T or y T = x */
    int lower = o->upper == o->ta;
    for (int v = 0; v < (o->right ? o->m : o->n); v++) {
        size_t step = o->right ? (size_t)o->m : 1, base = o->right ? (size_t)v : (size_t)v * o->m;
        for (int s = 0; s < na; s++) {
            if (o->kind == OP_TRMM) {
                double acc = 0;
                for (int p = 0; p < na; p++) acc += (o->right ? t[p + (size_t)s * na] : t[s + (size_t)p * na]) * x[base + p * step];
                y[base + s * step] = acc;
                continue;
            }
            /* solve: left T y = x (forward when T lower); right y T = x, i.e. T^T y^T = x^T (forward when T upper) */
            int fwd = o->right ? !lower : lower, i = fwd ? s : na - 1 - s;
            double acc = x[base + i * step];
            for (int q = 0; q < s; q++) {
                int p = fwd ? q : na - 1 - q;
                acc -= (o->right ? t[p + (size_t)i * na] : t[i + (size_t)p * na]) * y[base + p * step];
            }
            y[base + i * step] = acc / t[i + (size_t)i * na];
        }
    }
    void *out = o->kind == OP_TRMM ? o->c : o->b;   /* trmm out of place: C */
    int ld = o->kind == OP_TRMM ? o->ldc : o->ldb;
    for (int j = 0; j < o->n; j++)
        for (int i = 0; i < o->m; i++) put(o, out, (size_t)i + (size_t)j * ld, y[i + (size_t)j * o->m]);
    free(t), free(x), free(y);
}
static void run_potrf(const op *o) {   /* A n x n, in place; L's (i, j) is U's (j, i) */
    size_t si = o->upper ? (size_t)o->lda : 1, sj = o->upper ? 1 : (size_t)o->lda;
    int bad = 0;
    for (int j = 0; j < o->n && !bad; j++) {
        double d = get(o, o->a, j * (si + sj));
        for (int p = 0; p < j; p++) d -= get(o, o->a, j * si + p * sj) * get(o, o->a, j * si + p * sj);
        if (!(d > 0)) {
            bad = j + 1;
            break;
        }
        d = sqrt(d);
        put(o, o->a, j * (si + sj), d);
        for (int i = j + 1; i < o->n; i++) {
            double s = get(o, o->a, i * si + j * sj);
            for (int p = 0; p < j; p++) s -= get(o, o->a, i * si + p * sj) * get(o, o->a, j * si + p * sj);
            put(o, o->a, i * si + j * sj, s / d);
        }
    }
    *o->info = bad;
}
static void run_getrf(const op *o) {   /* A m x n, in place: LAPACK's getf2, 1-based pivots */
    int bad = 0, kn = o->m < o->n ? o->m : o->n;
    size_t ld = (size_t)o->lda;
    for (int j = 0; j < kn; j++) {
        int p = j;
        for (int i = j + 1; i < o->m; i++)
            if (fabs(get(o, o->a, i + j * ld)) > fabs(get(o, o->a, p + j * ld))) p = i;
        o->ipiv[j] = p + 1;
        double d = get(o, o->a, p + j * ld);
        if (d == 0) {
            if (!bad) bad = j + 1;
            continue;
        }
        for (int c = 0; p != j && c < o->n; c++) {
            double x = get(o, o->a, j + c * ld);
            put(o, o->a, j + c * ld, get(o, o->a, p + c * ld));
            put(o, o->a, p + c * ld, x);
        }
        for (int i = j + 1; i < o->m; i++) put(o, o->a, i + j * ld, get(o, o->a, i + j * ld) / d);
        for (int c = j + 1; c < o->n; c++)
            for (int i = j + 1; i < o->m; i++)
                put(o, o->a, i + c * ld, get(o, o->a, i + c * ld) - get(o, o->a, i + j * ld) * get(o, o->a, j + c * ld));
    }
    *o->info = bad;
}
static void run_op(void *ctx) {
    const op *o = ctx;
    switch (o->kind) {
    case OP_GEMM: run_gemm(o); break;
    case OP_SYRK: run_syrk(o); break;
    case OP_POTRF: run_potrf(o); break;
    case OP_GETRF: run_getrf(o); break;
    default: run_tri(o);
    }
}

/* ---- checks, then the operation queued ---- */
/* Bytes of a rows x cols matrix, ld elements between columns (0 when empty). */
static size_t matrix_bytes(const op *o, int rows, int cols, int ld) {
    return rows > 0 && cols > 0 ? ((size_t)(cols - 1) * ld + rows) * (o->single ? 4 : 8) : 0;
}
/* A handle on its own device (the current one), its stream set: anything else is dag.h's bug, so the
   mock aborts. */
static void check_handle(const mock_handle *h, const char *routine, int (*current_device)(int *)) {
    int d = -1;
    if (!h) MOCK_BLAS_FAIL("%s: no handle", routine);
    if (current_device(&d) != 0 || d != h->dev)
        MOCK_BLAS_FAIL("%s: a handle of device %d used while device %d is current", routine, h->dev, d);
    if (!h->stream) MOCK_BLAS_FAIL("%s: no stream set: dag.h passes the device's own", routine);
}
/* Whether two m x n matrices (leading dimensions ldx, ldy) share bytes: their extents, first to last
   element, meet. */
MOCK_HELPER int overlap(const void *x, int ldx, const void *y, int ldy, int m, int n, int single) {
    size_t elem = single ? sizeof(float) : sizeof(double);
    if (m <= 0 || n <= 0) return 0;
    const char *xa = x, *ya = y, *xe = xa + ((size_t)(n - 1) * (size_t)ldx + (size_t)m) * elem,
               *ye = ya + ((size_t)(n - 1) * (size_t)ldy + (size_t)m) * elem;
    return xa < ye && ya < xe;
}
/* What the library refuses (its INVALID_VALUE): a negative size, a leading dimension under the rows. */
static int bad_sizes(const op *o) {
    int ar, br = o->kind == OP_GEMM ? (o->tb ? o->n : o->k) : o->m, cr = o->kind == OP_SYRK ? o->n : o->m;
    switch (o->kind) {
    case OP_GEMM: ar = o->ta ? o->k : o->m; break;
    case OP_SYRK: ar = o->ta ? o->k : o->n; break;
    case OP_POTRF: ar = o->n; break;
    case OP_GETRF: ar = o->m; break;
    default: ar = o->right ? o->n : o->m;
    }
    if (o->m < 0 || o->n < 0 || o->k < 0) return 1;
    if (o->lda < (ar > 1 ? ar : 1)) return 1;
    if ((o->kind == OP_GEMM || o->kind == OP_TRSM || o->kind == OP_TRMM) && o->ldb < (br > 1 ? br : 1)) return 1;
    return (o->kind == OP_GEMM || o->kind == OP_SYRK || o->kind == OP_TRMM) && o->ldc < (cr > 1 ? cr : 1);
}
/* Queues o on the handle's stream, its matrices checked against device memory (and the extra
   buffer, a workspace, given). */
static void queue_op(const mock_handle *h, const char *routine, const op *o, const void *extra, size_t extra_bytes) {
    const void *p[4] = { 0 };
    size_t bytes[4] = { 0 };
    int n = 0;
    switch (o->kind) {
    case OP_GEMM:
        p[n] = o->a, bytes[n++] = o->ta ? matrix_bytes(o, o->k, o->m, o->lda) : matrix_bytes(o, o->m, o->k, o->lda);
        p[n] = o->b, bytes[n++] = o->tb ? matrix_bytes(o, o->n, o->k, o->ldb) : matrix_bytes(o, o->k, o->n, o->ldb);
        p[n] = o->c, bytes[n++] = matrix_bytes(o, o->m, o->n, o->ldc);
        break;
    case OP_SYRK:
        p[n] = o->a, bytes[n++] = o->ta ? matrix_bytes(o, o->k, o->n, o->lda) : matrix_bytes(o, o->n, o->k, o->lda);
        p[n] = o->c, bytes[n++] = matrix_bytes(o, o->n, o->n, o->ldc);
        break;
    case OP_POTRF:
        p[n] = o->a, bytes[n++] = matrix_bytes(o, o->n, o->n, o->lda);
        p[n] = o->info, bytes[n++] = sizeof(int);
        break;
    case OP_GETRF:
        p[n] = o->a, bytes[n++] = matrix_bytes(o, o->m, o->n, o->lda);
        p[n] = o->ipiv, bytes[n++] = sizeof(int) * (size_t)(o->m < o->n ? o->m : o->n);
        p[n] = o->info, bytes[n++] = sizeof(int);
        break;
    default: {
        int na = o->right ? o->n : o->m;
        p[n] = o->a, bytes[n++] = matrix_bytes(o, na, na, o->lda);
        p[n] = o->b, bytes[n++] = matrix_bytes(o, o->m, o->n, o->ldb);
        if (o->kind == OP_TRMM && o->c != o->b) p[n] = o->c, bytes[n++] = matrix_bytes(o, o->m, o->n, o->ldc);
    }
    }
    if (extra) p[n] = extra, bytes[n++] = extra_bytes;
    count_call(routine);
    mock_stream_call(h->stream, routine, run_op, o, sizeof *o, n, p, bytes);
}
/* A BLAS routine's checks, then o queued: 0, or invalid (the library's status for bad sizes). */
MOCK_HELPER int blas_call(mock_handle *h, const char *routine, op *o, int (*current_device)(int *), int invalid) {
    check_handle(h, routine, current_device);
    if (bad_sizes(o)) return invalid;
    queue_op(h, routine, o, NULL, 0);
    return 0;
}
/* The BLAS entry points of cuBLAS and rocBLAS (the same calls), for a library that defines first:
   IS_T(x), IS_UPPER(x), IS_RIGHT(x), IS_UNIT(x) (whether its enum value x means a transpose, the
   upper triangle, the right side, a unit diagonal), FAILED (the status of an injected failure),
   INVALID (of bad sizes) and CURRENT_DEVICE (its runtime's cudaGetDevice or hipGetDevice). trmm
   is out of place (cuBLAS's _v2, rocBLAS 4's: C = alpha op(A) B), C = B in place or apart from B. */
#define MOCK_GEMM(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int ta, int tb, int m, int n, int k, const T *alpha, const T *a, int lda,   \
                         const T *b, int ldb, const T *beta, T *c, int ldc) {                                        \
        INJECT(FAILED);                                                                                             \
        op o = { .kind = OP_GEMM, .single = SINGLE, .ta = IS_T(ta), .tb = IS_T(tb), .m = m, .n = n, .k = k,         \
                 .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = *alpha, .beta = *beta, .a = (void *)a, .b = (void *)b, \
                 .c = c };                                                                                          \
        return blas_call(h, #NAME, &o, CURRENT_DEVICE, INVALID);                                                    \
    }
#define MOCK_SYRK(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int uplo, int trans, int n, int k, const T *alpha, const T *a, int lda,     \
                         const T *beta, T *c, int ldc) {                                                            \
        INJECT(FAILED);                                                                                             \
        op o = { .kind = OP_SYRK, .single = SINGLE, .upper = IS_UPPER(uplo), .ta = IS_T(trans), .n = n, .k = k,     \
                 .lda = lda, .ldc = ldc, .alpha = *alpha, .beta = *beta, .a = (void *)a, .c = c };                  \
        return blas_call(h, #NAME, &o, CURRENT_DEVICE, INVALID);                                                    \
    }
#define MOCK_TRSM(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int side, int uplo, int trans, int diag, int m, int n, const T *alpha,     \
                         const T *a, int lda, T *b, int ldb) {                                                      \
        INJECT(FAILED);                                                                                             \
        op o = { .kind = OP_TRSM, .single = SINGLE, .right = IS_RIGHT(side), .upper = IS_UPPER(uplo),               \
                 .ta = IS_T(trans), .unit = IS_UNIT(diag), .m = m, .n = n, .lda = lda, .ldb = ldb, .alpha = *alpha, \
                 .a = (void *)a, .b = b };                                                                          \
        return blas_call(h, #NAME, &o, CURRENT_DEVICE, INVALID);                                                    \
    }
#define MOCK_TRMM(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int side, int uplo, int trans, int diag, int m, int n, const T *alpha,     \
                         const T *a, int lda, const T *b, int ldb, T *c, int ldc) {                                 \
        INJECT(FAILED);                                                                                             \
        if (c == b ? ldc != ldb : overlap(b, ldb, c, ldc, m, n, SINGLE))                                            \
            MOCK_BLAS_FAIL(#NAME ": C overlaps B other than in place (cuBLAS allows C = B only)");                      \
        op o = { .kind = OP_TRMM, .single = SINGLE, .right = IS_RIGHT(side), .upper = IS_UPPER(uplo),               \
                 .ta = IS_T(trans), .unit = IS_UNIT(diag), .m = m, .n = n, .lda = lda, .ldb = ldb, .ldc = ldc,      \
                 .alpha = *alpha, .a = (void *)a, .b = (void *)b, .c = c };                                         \
        return blas_call(h, #NAME, &o, CURRENT_DEVICE, INVALID);                                                    \
    }
#endif
