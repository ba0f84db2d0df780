/* dag_blas.h: dense tile kernels for dag.h, one text for every backend,
   and the vendor library that stands in for each where a backend has one.

       #include "dag_blas.h"      (in one file of kernels: it defines them)

       dag_spawn(DAG_LAUNCH(dag_dgemm, m * n), Val(transa), Val(transb), Val(m), Val(n), Val(k),
                 Val(alpha), In(a, lda * ka), Val(lda), In(b, ldb * kb), Val(ldb), Val(beta),
                 InOut(c, ldc * n), Val(ldc));

   Column-major tiles, BLAS's conventions and argument order (element (i, j)
   of C is c[i + j * ldc]; op(X) is X or, with trans = 1, its transpose).
   Sizes as BLAS's, except that a span is never empty: k = 0 (C = beta C)
   passes A and B as spans of one element, getrf of m or n = 0 an ipiv of
   one. A launch range below 0 is refused at the spawn; other sizes below 0
   write nothing. alpha = 0 reads neither A nor B, as in BLAS.
   Each comes as dag_d<op> (double) and dag_s<op> (float, its scalars float
   too):
   - gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
     C = alpha op(A) op(B) + beta C, C m x n; launch range m * n.
   - syrk(upper, trans, n, k, alpha, a, lda, beta, c, ldc): the upper or
     lower triangle of C = alpha op(A) op(A)^T + beta C, op(A) n x k, the
     other triangle untouched; range n * n.
   - trsm(right, upper, trans, unit, m, n, alpha, a, lda, b, ldb):
     B = alpha op(A)^-1 B (right 0) or alpha B op(A)^-1 (right 1), A
     triangular (upper or lower; unit: its diagonal taken as ones), B
     m x n; range: B's columns (left) or rows (right).
   - trmm(right, upper, trans, unit, m, n, alpha, a, lda, b, ldb):
     B = alpha op(A) B or alpha B op(A), in place; the same range.
   - potrf(upper, n, a, lda, info): Cholesky in place, A = L L^T (lower) or
     U^T U (upper), the other triangle untouched; info[0] = 0, or the
     1-based column where A is not positive definite. Range 1: one item
     factorises the tile (the text is a fallback, not fast).
   - getrf(m, n, a, lda, ipiv, info): LU with partial pivoting in place,
     P A = L U (LAPACK's getrf: ipiv[r] the 1-based row that row r was
     swapped with, min(m, n) of them, ints); info[0] = 0, or the 1-based
     column of the first exactly zero pivot (the factorisation goes on, as
     LAPACK's). Range 1, as potrf (the text is a fallback, not fast).
   Every processor can run the text below (built ahead of time for CUDA,
   HIP and Level Zero like any kernel of this file, at run time for
   OpenCL). Where a backend's vendor library loads, its routine stands in,
   queued on the device's queue (stream) with the device current:
   - CUDA: cuBLAS (cublasDgemm_v2, ...Dsyrk, ...Dtrsm, ...Dtrmm and the S
     ones; libcublas of the CUDA runtime's own major version; trmm out of
     place into cudaMallocAsync memory, then copied back) and cuSOLVER
     (cusolverDnDpotrf, cusolverDnDgetrf and the S ones, their workspace
     from cudaMallocAsync on the same stream, so they need no host wait;
     libcusolver.so.12 for CUDA 13, .so.11 for CUDA 12);
   - HIP: rocBLAS (rocblas_dgemm, ...; librocblas.so.5 or .4) and rocSOLVER
     (rocsolver_dpotrf, rocsolver_dgetrf; librocsolver.so.0);
   - OpenCL: CLBlast (CLBlastDgemm, ...Dsyrk, ...Dtrsm, ...Dtrmm and the S
     ones; libclblast.so.1, Debian's libclblast1). CLBlast has no potrf
     and no getrf: the text runs there.
   potrf's and getrf's info (and getrf's ipiv) stay in device memory
   (spans the caller reads when its work is done): a factorisation never
   waits on the host. Each library is loaded on its first use
   (dag_library_kernel, dag.h); where it does not load, the text runs.
   dag_desc.no_library_kernels keeps the text everywhere. These are the
   tile kernels dag_array.h's linear algebra builds on.

   Parts: >>vendor bindings >>cuBLAS and rocBLAS >>cuBLAS and cuSOLVER >>rocBLAS and rocSOLVER
   >>CLBlast >>tile kernels */
#ifndef DAG_BLAS_H_INCLUDED
#define DAG_BLAS_H_INCLUDED

#if defined(__has_include)
#if !__has_include("dag.h") || !__has_include("dag_kernels.h")
#error "dag_blas.h needs dag.h and dag_kernels.h beside it (README: Which files to copy)"
#endif
#endif
#include "dag_kernels.h"

#if !defined(__CUDACC__) && !defined(__HIP__) && !defined(__OPENCL_C_VERSION__) && !defined(DAG_KERNEL_NAMES)
/* >>vendor bindings: host code only, each library loaded at run time */
#include <dlfcn.h>
#include <math.h>   /* the text's sqrt, on the CPU */
#include <stdio.h>
#include <string.h>

/* The operations, and their parameters after the range, by kind, in the
   kernels' (BLAS's) order: i an int, s a scalar, p a device buffer. A
   routine reads them once (dag__blas_read) and passes them on in the same
   order, so each vendor call below reads as its BLAS prototype. */
enum { DAG__BLAS_GEMM, DAG__BLAS_SYRK, DAG__BLAS_TRSM, DAG__BLAS_TRMM, DAG__BLAS_POTRF, DAG__BLAS_GETRF };
static const char *const dag__blas_kinds[] = { "iiiiispipispi", "iiiispispi", "iiiiiispipi", "iiiiiispipi",
                                               "iipip", "iipipp" };
typedef struct dag__blas_routine { int op; int single; } dag__blas_routine;   /* a record's user_data */
typedef struct dag__blas_call {
    int op;
    int single;           /* float: the index of the float routine in each pair below */
    int i[8];
    const void *s[2];     /* host scalars */
    void *p[3];
} dag__blas_call;
static inline bool dag__blas_read(const dag_library_kernel *self, const dag_kernel_arg *args, int num_args,
                                  dag__blas_call *g) {
    const dag__blas_routine *r = (const dag__blas_routine *)self->user_data;
    const char *kinds = dag__blas_kinds[r->op];
    int ni = 0, ns = 0, np = 0;
    memset(g, 0, sizeof *g);
    g->op = r->op;
    g->single = r->single;
    if ((size_t)num_args != strlen(kinds)) return false;
    for (int k = 0; k < num_args; k++) {
        if (kinds[k] == 'i') g->i[ni++] = *(const int *)args[k].value;
        else if (kinds[k] == 's') g->s[ns++] = args[k].value;
        else g->p[np++] = args[k].buffer;
    }
    return true;
}

/* The first of names that loads (an empty name is skipped), or NULL, said at info level. */
static inline void *dag__blas_open(const char *what, const char *const *names, int count) {
    void *lib = NULL;
    for (int i = 0; !lib && i < count; i++)
        if (names[i][0]) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) dag_log(DAG_LOG_INFO, DAG_OK, "%s does not load (%s): dag_blas.h's kernels run their own text", what, dlerror());
    return lib;
}
/* Finds each of names in lib into slots[i] (a function pointer: ISO C has
   no object-to-function cast, hence the memcpy). Returns whether all were
   there; if not, says which was missing at DAG_LOG_INFO. */
static inline bool dag__blas_bind(void *lib, const char *lib_name, const char *const *names, void *const *slots,
                                  int count) {
    for (int i = 0; lib && i < count; i++) {
        void *p = dlsym(lib, names[i]);
        if (!p) {
            dag_log(DAG_LOG_INFO, DAG_OK, "%s has no %s: dag_blas.h's kernels run their own text", lib_name, names[i]);
            return false;
        }
        memcpy(slots[i], &p, sizeof p);
    }
    return lib != NULL;
}
/* Loads a library once: *state 0 (not tried) becomes 1 where the first of names that loads has
   every symbol (each into its slot), else -1. */
static inline bool dag__blas_load(int *state, const char *what, const char *const *names, int count,
                                  const char *const *symbols, void *const *slots, int num) {
    if (!*state) *state = dag__blas_bind(dag__blas_open(what, names, count), what, symbols, slots, num) ? 1 : -1;
    return *state > 0;
}
/* One routine record: vendor's stand-in for op (double, or single) on backend, named for the log. */
#define DAG__BLAS_ROUTINE(record, backend, vendor, op, single, routine)                                      \
    static const dag__blas_routine record##_is = { op, single };                                             \
    static const dag_library_kernel record = { backend, routine, vendor##_load, vendor##_call, vendor##_release, \
                                               &record##_is };

#if defined(DAG_BACKEND_CUDA) || defined(DAG_BACKEND_HIP)
/* >>cuBLAS and rocBLAS: rocBLAS copied cuBLAS's calls, so one table
   serves both: the functions (their own types: handles and buffers as
   pointers, enums as int), the values of their enums, and a handle per
   device, made on its first call (the device is current then, as both
   ask) and set to the stream given at each call. [0] is double, [1] float. */
typedef int (*dag__gpublas_gemm_fn)(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                                    int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
typedef int (*dag__gpublas_syrk_fn)(void *h, int uplo, int trans, int n, int k, const void *alpha, const void *a,
                                    int lda, const void *beta, void *c, int ldc);
typedef int (*dag__gpublas_trsm_fn)(void *h, int side, int uplo, int trans, int diag, int m, int n, const void *alpha,
                                    const void *a, int lda, void *b, int ldb);
/* out of place (cuBLAS's _v2, rocBLAS 4's): C = alpha op(A) B; C = B works in place */
typedef int (*dag__gpublas_trmm_fn)(void *h, int side, int uplo, int trans, int diag, int m, int n, const void *alpha,
                                    const void *a, int lda, const void *b, int ldb, void *c, int ldc);
typedef struct dag__gpublas {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    int (*create)(void **h);
    int (*destroy)(void *h);
    int (*set_stream)(void *h, void *stream);
    dag__gpublas_gemm_fn gemm[2];
    dag__gpublas_syrk_fn syrk[2];
    dag__gpublas_trsm_fn trsm[2];
    dag__gpublas_trmm_fn trmm[2];
    int no_trans, trans, lower, upper, left, right, non_unit, unit;   /* the library's enum values */
    void *handle[DAG_MAX_DEVICES];
    /* optional: device memory of the stream's own, and a copy on it, for trmm out of place (cuBLAS's
       in-place trmm of a 1024 tile runs 5x slower than out of place and a copy back, on an H200) */
    int (*alloc_async)(void **p, size_t bytes, void *stream);
    int (*free_async)(void *p, void *stream);
    int (*copy_async)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows, void *stream);
} dag__gpublas;

/* Loads the first of names that has every symbol (create, destroy, set_stream, then gemm, syrk,
   trsm and trmm, double then float each). */
static bool dag__gpublas_open(dag__gpublas *v, const char *what, const char *const *names, int count,
                              const char *const *symbols) {
    void *const slots[] = { &v->create, &v->destroy, &v->set_stream, &v->gemm[0], &v->gemm[1], &v->syrk[0],
                            &v->syrk[1], &v->trsm[0], &v->trsm[1], &v->trmm[0], &v->trmm[1] };
    return dag__blas_load(&v->state, what, names, count, symbols, slots, 11);
}
static void *dag__gpublas_handle(dag__gpublas *v, void *stream, int device) {
    if (device < 0 || device >= DAG_MAX_DEVICES) return NULL;
    void **h = &v->handle[device];
    if (!*h && v->create(h) != 0) *h = NULL;
    if (*h && v->set_stream(*h, stream) != 0) return NULL;
    return *h;
}
/* gemm, syrk, trsm and trmm (potrf and getrf are the solver's: routines of their own) */
static int dag__gpublas_call(dag__gpublas *v, const dag_library_kernel *self, void *stream, int device,
                             const dag_kernel_arg *args, int num_args) {
    dag__blas_call g;
    if (!dag__blas_read(self, args, num_args, &g) || g.op >= DAG__BLAS_POTRF) return -1;
    void *h = dag__gpublas_handle(v, stream, device);
    if (!h) return -1;
    int f = g.single, *i = g.i;
#define DAG__T(x) ((x) ? v->trans : v->no_trans)
#define DAG__UPLO(x) ((x) ? v->upper : v->lower)
#define DAG__SIDE(x) ((x) ? v->right : v->left)
#define DAG__DIAG(x) ((x) ? v->unit : v->non_unit)
    int e;
    switch (g.op) {
    case DAG__BLAS_GEMM:
        e = v->gemm[f](h, DAG__T(i[0]), DAG__T(i[1]), i[2], i[3], i[4], g.s[0], g.p[0], i[5], g.p[1], i[6], g.s[1],
                       g.p[2], i[7]);
        break;
    case DAG__BLAS_SYRK:
        e = v->syrk[f](h, DAG__UPLO(i[0]), DAG__T(i[1]), i[2], i[3], g.s[0], g.p[0], i[4], g.s[1], g.p[1], i[5]);
        break;
    case DAG__BLAS_TRSM:
        e = v->trsm[f](h, DAG__SIDE(i[0]), DAG__UPLO(i[1]), DAG__T(i[2]), DAG__DIAG(i[3]), i[4], i[5], g.s[0],
                       g.p[0], i[6], g.p[1], i[7]);
        break;
    default: {   /* trmm: into a buffer and back where the library has one (alloc_async), else in place */
        size_t elem = f ? sizeof(float) : sizeof(double), rows = (size_t)i[4], bytes = rows * (size_t)i[5] * elem;
        void *c = NULL;
        if (v->alloc_async && bytes && v->alloc_async(&c, bytes, stream) != 0) c = NULL;
        e = v->trmm[f](h, DAG__SIDE(i[0]), DAG__UPLO(i[1]), DAG__T(i[2]), DAG__DIAG(i[3]), i[4], i[5], g.s[0],
                       g.p[0], i[6], g.p[1], i[7], c ? c : g.p[1], c ? i[4] : i[7]);
        if (c && !e) e = v->copy_async(g.p[1], (size_t)i[7] * elem, c, rows * elem, rows * elem, (size_t)i[5], stream);
        if (c) v->free_async(c, stream);
    }
    }
#undef DAG__T
#undef DAG__UPLO
#undef DAG__SIDE
#undef DAG__DIAG
    return e;
}
static void dag__gpublas_release(dag__gpublas *v, int device) {
    if (device < 0 || device >= DAG_MAX_DEVICES || !v->handle[device]) return;
    v->destroy(v->handle[device]);
    v->handle[device] = NULL;
}
#endif

#if defined(DAG_BACKEND_CUDA)
/* >>cuBLAS and cuSOLVER: the libraries of the CUDA runtime's own major
   version first (one major's libraries need its runtime). */
#include <cuda_runtime_api.h>
#include <cublas_api.h>
static int dag__cuda_alloc_async(void **p, size_t bytes, void *stream) { return (int)cudaMallocAsync(p, bytes, (cudaStream_t)stream); }
static int dag__cuda_free_async(void *p, void *stream) { return (int)cudaFreeAsync(p, (cudaStream_t)stream); }
static int dag__cuda_copy_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows,
                                void *stream) {
    return (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
}
static dag__gpublas dag__cublas = { 0, 0, 0, 0, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, CUBLAS_OP_N, CUBLAS_OP_T,
                                    CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER, CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT,
                                    CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT, { 0 }, dag__cuda_alloc_async,
                                    dag__cuda_free_async, dag__cuda_copy_async };
static int dag__cuda_major(void) {
    int version = 0;
    return cudaRuntimeGetVersion(&version) == cudaSuccess ? version / 1000 : 0;
}
static bool dag__cublas_load(void) {
    char own[32] = "";
    if (dag__cuda_major()) snprintf(own, sizeof own, "libcublas.so.%d", dag__cuda_major());
    const char *const names[] = { own, "libcublas.so.13", "libcublas.so.12", "libcublas.so" };
    const char *const symbols[] = { "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasDgemm_v2",
                                    "cublasSgemm_v2", "cublasDsyrk_v2", "cublasSsyrk_v2", "cublasDtrsm_v2",
                                    "cublasStrsm_v2", "cublasDtrmm_v2", "cublasStrmm_v2" };
    return dag__gpublas_open(&dag__cublas, "libcublas", names, 4, symbols);
}
static int dag__cublas_call(const dag_library_kernel *self, void *stream, int device, size_t range,
                            const dag_kernel_arg *args, int num_args, void **event) {
    (void)range;
    (void)event;
    return dag__gpublas_call(&dag__cublas, self, stream, device, args, num_args);
}
static void dag__cublas_release(void *stream, int device) {
    (void)stream;
    dag__gpublas_release(&dag__cublas, device);
}

/* cuSOLVER's potrf and getrf: its own handle per device; the workspace
   each bufferSize asks for comes from cudaMallocAsync and goes back with
   cudaFreeAsync, both on the call's stream, so each call has its own
   whatever the streams, and none waits on the host. */
static struct {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    int (*create)(void **h);
    int (*destroy)(void *h);
    int (*set_stream)(void *h, void *stream);
    int (*buffer_size[2])(void *h, int uplo, int n, void *a, int lda, int *lwork);
    int (*potrf[2])(void *h, int uplo, int n, void *a, int lda, void *work, int lwork, int *info);
    int (*getrf_size[2])(void *h, int m, int n, void *a, int lda, int *lwork);
    int (*getrf[2])(void *h, int m, int n, void *a, int lda, void *work, int *ipiv, int *info);
    void *handle[DAG_MAX_DEVICES];
} dag__cusolver;
static bool dag__cusolver_load(void) {
    char own[32] = "";   /* CUDA 13 ships libcusolver.so.12, CUDA 12 and 11 .so.11 */
    if (dag__cuda_major()) snprintf(own, sizeof own, "libcusolver.so.%d", dag__cuda_major() > 12 ? dag__cuda_major() - 1 : 11);
    const char *const names[] = { own, "libcusolver.so.12", "libcusolver.so.11", "libcusolver.so" };
    const char *const symbols[] = { "cusolverDnCreate", "cusolverDnDestroy", "cusolverDnSetStream",
                                    "cusolverDnDpotrf_bufferSize", "cusolverDnSpotrf_bufferSize", "cusolverDnDpotrf",
                                    "cusolverDnSpotrf", "cusolverDnDgetrf_bufferSize", "cusolverDnSgetrf_bufferSize",
                                    "cusolverDnDgetrf", "cusolverDnSgetrf" };
    void *const slots[] = { &dag__cusolver.create, &dag__cusolver.destroy, &dag__cusolver.set_stream,
                            &dag__cusolver.buffer_size[0], &dag__cusolver.buffer_size[1], &dag__cusolver.potrf[0],
                            &dag__cusolver.potrf[1], &dag__cusolver.getrf_size[0], &dag__cusolver.getrf_size[1],
                            &dag__cusolver.getrf[0], &dag__cusolver.getrf[1] };
    return dag__blas_load(&dag__cusolver.state, "libcusolver", names, 4, symbols, slots, 11);
}
static int dag__cusolver_call(const dag_library_kernel *self, void *stream, int device, size_t range,
                              const dag_kernel_arg *args, int num_args, void **event) {
    (void)range;
    (void)event;
    dag__blas_call g;
    if (!dag__blas_read(self, args, num_args, &g) || g.op < DAG__BLAS_POTRF || device < 0 || device >= DAG_MAX_DEVICES)
        return -1;
    void **h = &dag__cusolver.handle[device];
    if (!*h && dag__cusolver.create(h) != 0) *h = NULL;
    if (!*h) return -1;
    bool lu = g.op == DAG__BLAS_GETRF;   /* getrf (m, n, a, lda, ipiv, info), else potrf (uplo, n, a, lda, info) */
    int f = g.single, uplo = g.i[0] ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n = g.i[1], lda = g.i[2], lwork = 0;
    void *work = NULL;
    int e = dag__cusolver.set_stream(*h, stream);
    if (!e) e = lu ? dag__cusolver.getrf_size[f](*h, g.i[0], n, g.p[0], lda, &lwork)
                   : dag__cusolver.buffer_size[f](*h, uplo, n, g.p[0], lda, &lwork);
    if (!e) e = (int)cudaMallocAsync(&work, (size_t)(lwork > 0 ? lwork : 1) * (f ? sizeof(float) : sizeof(double)),
                                     (cudaStream_t)stream);
    if (!e && lu) e = dag__cusolver.getrf[f](*h, g.i[0], n, g.p[0], lda, work, (int *)g.p[1], (int *)g.p[2]);
    else if (!e) e = dag__cusolver.potrf[f](*h, uplo, n, g.p[0], lda, work, lwork, (int *)g.p[1]);
    if (work) cudaFreeAsync(work, (cudaStream_t)stream);
    return e;
}
static void dag__cusolver_release(void *stream, int device) {
    (void)stream;
    if (device < 0 || device >= DAG_MAX_DEVICES || !dag__cusolver.handle[device]) return;
    dag__cusolver.destroy(dag__cusolver.handle[device]);
    dag__cusolver.handle[device] = NULL;
}
DAG__BLAS_ROUTINE(dag__cublas_dgemm, DAG_CUDA, dag__cublas, DAG__BLAS_GEMM, 0, "cublasDgemm_v2")
DAG__BLAS_ROUTINE(dag__cublas_sgemm, DAG_CUDA, dag__cublas, DAG__BLAS_GEMM, 1, "cublasSgemm_v2")
DAG__BLAS_ROUTINE(dag__cublas_dsyrk, DAG_CUDA, dag__cublas, DAG__BLAS_SYRK, 0, "cublasDsyrk_v2")
DAG__BLAS_ROUTINE(dag__cublas_ssyrk, DAG_CUDA, dag__cublas, DAG__BLAS_SYRK, 1, "cublasSsyrk_v2")
DAG__BLAS_ROUTINE(dag__cublas_dtrsm, DAG_CUDA, dag__cublas, DAG__BLAS_TRSM, 0, "cublasDtrsm_v2")
DAG__BLAS_ROUTINE(dag__cublas_strsm, DAG_CUDA, dag__cublas, DAG__BLAS_TRSM, 1, "cublasStrsm_v2")
DAG__BLAS_ROUTINE(dag__cublas_dtrmm, DAG_CUDA, dag__cublas, DAG__BLAS_TRMM, 0, "cublasDtrmm_v2")
DAG__BLAS_ROUTINE(dag__cublas_strmm, DAG_CUDA, dag__cublas, DAG__BLAS_TRMM, 1, "cublasStrmm_v2")
DAG__BLAS_ROUTINE(dag__cublas_dpotrf, DAG_CUDA, dag__cusolver, DAG__BLAS_POTRF, 0, "cusolverDnDpotrf")
DAG__BLAS_ROUTINE(dag__cublas_spotrf, DAG_CUDA, dag__cusolver, DAG__BLAS_POTRF, 1, "cusolverDnSpotrf")
DAG__BLAS_ROUTINE(dag__cublas_dgetrf, DAG_CUDA, dag__cusolver, DAG__BLAS_GETRF, 0, "cusolverDnDgetrf")
DAG__BLAS_ROUTINE(dag__cublas_sgetrf, DAG_CUDA, dag__cusolver, DAG__BLAS_GETRF, 1, "cusolverDnSgetrf")
#define DAG__CUDA_ROUTINE(op) &dag__cublas_##op,
#else
#define DAG__CUDA_ROUTINE(op)
#endif

#if defined(DAG_BACKEND_HIP)
/* >>rocBLAS and rocSOLVER (ROCm 7's librocblas.so.5, ROCm 6's .so.4: the
   newest first, as dag_hip.h takes the newest HIP runtime). rocSOLVER
   works on rocBLAS's handles and manages its own workspace. The enums'
   values are rocBLAS's (rocblas_operation_none is 111...). */
static dag__gpublas dag__rocblas = { 0, 0, 0, 0, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 111, 112, 122, 121, 141, 142,
                                     131, 132, { 0 }, NULL, NULL, NULL };   /* trmm in place */
static bool dag__rocblas_load(void) {
    const char *const names[] = { "librocblas.so.5", "librocblas.so.4", "librocblas.so" };
    const char *const symbols[] = { "rocblas_create_handle", "rocblas_destroy_handle", "rocblas_set_stream",
                                    "rocblas_dgemm", "rocblas_sgemm", "rocblas_dsyrk", "rocblas_ssyrk",
                                    "rocblas_dtrsm", "rocblas_strsm", "rocblas_dtrmm", "rocblas_strmm" };
    return dag__gpublas_open(&dag__rocblas, "librocblas", names, 3, symbols);
}
static int dag__rocblas_call(const dag_library_kernel *self, void *stream, int device, size_t range,
                             const dag_kernel_arg *args, int num_args, void **event) {
    (void)range;
    (void)event;
    return dag__gpublas_call(&dag__rocblas, self, stream, device, args, num_args);
}
static void dag__rocblas_release(void *stream, int device) {
    (void)stream;
    dag__gpublas_release(&dag__rocblas, device);
}
static struct {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    int (*potrf[2])(void *h, int uplo, int n, void *a, int lda, int *info);
    int (*getrf[2])(void *h, int m, int n, void *a, int lda, int *ipiv, int *info);
} dag__rocsolver;
static bool dag__rocsolver_load(void) {
    const char *const names[] = { "librocsolver.so.0", "librocsolver.so" };
    const char *const symbols[] = { "rocsolver_dpotrf", "rocsolver_spotrf", "rocsolver_dgetrf", "rocsolver_sgetrf" };
    void *const slots[] = { &dag__rocsolver.potrf[0], &dag__rocsolver.potrf[1], &dag__rocsolver.getrf[0],
                            &dag__rocsolver.getrf[1] };
    return dag__rocblas_load() && dag__blas_load(&dag__rocsolver.state, "librocsolver", names, 2, symbols, slots, 4);
}
static int dag__rocsolver_call(const dag_library_kernel *self, void *stream, int device, size_t range,
                               const dag_kernel_arg *args, int num_args, void **event) {
    (void)range;
    (void)event;
    dag__blas_call g;
    if (!dag__blas_read(self, args, num_args, &g) || g.op < DAG__BLAS_POTRF) return -1;
    void *h = dag__gpublas_handle(&dag__rocblas, stream, device);
    if (!h) return -1;
    if (g.op == DAG__BLAS_GETRF)
        return dag__rocsolver.getrf[g.single](h, g.i[0], g.i[1], g.p[0], g.i[2], (int *)g.p[1], (int *)g.p[2]);
    return dag__rocsolver.potrf[g.single](h, g.i[0] ? dag__rocblas.upper : dag__rocblas.lower, g.i[1], g.p[0], g.i[2],
                                          (int *)g.p[1]);
}
static void dag__rocsolver_release(void *stream, int device) { dag__rocblas_release(stream, device); }
DAG__BLAS_ROUTINE(dag__rocblas_dgemm, DAG_HIP, dag__rocblas, DAG__BLAS_GEMM, 0, "rocblas_dgemm")
DAG__BLAS_ROUTINE(dag__rocblas_sgemm, DAG_HIP, dag__rocblas, DAG__BLAS_GEMM, 1, "rocblas_sgemm")
DAG__BLAS_ROUTINE(dag__rocblas_dsyrk, DAG_HIP, dag__rocblas, DAG__BLAS_SYRK, 0, "rocblas_dsyrk")
DAG__BLAS_ROUTINE(dag__rocblas_ssyrk, DAG_HIP, dag__rocblas, DAG__BLAS_SYRK, 1, "rocblas_ssyrk")
DAG__BLAS_ROUTINE(dag__rocblas_dtrsm, DAG_HIP, dag__rocblas, DAG__BLAS_TRSM, 0, "rocblas_dtrsm")
DAG__BLAS_ROUTINE(dag__rocblas_strsm, DAG_HIP, dag__rocblas, DAG__BLAS_TRSM, 1, "rocblas_strsm")
DAG__BLAS_ROUTINE(dag__rocblas_dtrmm, DAG_HIP, dag__rocblas, DAG__BLAS_TRMM, 0, "rocblas_dtrmm")
DAG__BLAS_ROUTINE(dag__rocblas_strmm, DAG_HIP, dag__rocblas, DAG__BLAS_TRMM, 1, "rocblas_strmm")
DAG__BLAS_ROUTINE(dag__rocblas_dpotrf, DAG_HIP, dag__rocsolver, DAG__BLAS_POTRF, 0, "rocsolver_dpotrf")
DAG__BLAS_ROUTINE(dag__rocblas_spotrf, DAG_HIP, dag__rocsolver, DAG__BLAS_POTRF, 1, "rocsolver_spotrf")
DAG__BLAS_ROUTINE(dag__rocblas_dgetrf, DAG_HIP, dag__rocsolver, DAG__BLAS_GETRF, 0, "rocsolver_dgetrf")
DAG__BLAS_ROUTINE(dag__rocblas_sgetrf, DAG_HIP, dag__rocsolver, DAG__BLAS_GETRF, 1, "rocsolver_sgetrf")
#define DAG__HIP_ROUTINE(op) &dag__rocblas_##op,
#else
#define DAG__HIP_ROUTINE(op)
#endif

#if defined(DAG_BACKEND_OPENCL)
/* >>CLBlast: its C API's ABI (clblast_c.h of 1.5), with OpenCL's handles
   as pointers; its enums' values are rocBLAS's (column-major 102). Its
   kernels compile on a device's first call of each routine (about 10 s on
   PoCL, then cached under POCL_CACHE_DIR); its cache of programs is
   emptied at dag_shutdown, as they belong to the devices' contexts. */
static struct {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    int (*dgemm)(int, int, int, size_t, size_t, size_t, double, void *, size_t, size_t, void *, size_t, size_t, double,
                 void *, size_t, size_t, void *queue, void *event);
    int (*sgemm)(int, int, int, size_t, size_t, size_t, float, void *, size_t, size_t, void *, size_t, size_t, float,
                 void *, size_t, size_t, void *queue, void *event);
    int (*dsyrk)(int, int, int, size_t, size_t, double, void *, size_t, size_t, double, void *, size_t, size_t,
                 void *queue, void *event);
    int (*ssyrk)(int, int, int, size_t, size_t, float, void *, size_t, size_t, float, void *, size_t, size_t,
                 void *queue, void *event);
    /* trsm and trmm: the same shape */
    int (*dtri[2])(int, int, int, int, int, size_t, size_t, double, void *, size_t, size_t, void *, size_t, size_t,
                   void *queue, void *event);
    int (*stri[2])(int, int, int, int, int, size_t, size_t, float, void *, size_t, size_t, void *, size_t, size_t,
                   void *queue, void *event);
    int (*clear_cache)(void);
} dag__clblast;

static bool dag__clblast_load(void) {
    const char *const names[] = { "libclblast.so.1" };
    const char *const symbols[] = { "CLBlastDgemm", "CLBlastSgemm", "CLBlastDsyrk", "CLBlastSsyrk", "CLBlastDtrsm",
                                    "CLBlastDtrmm", "CLBlastStrsm", "CLBlastStrmm", "CLBlastClearCache" };
    void *const slots[] = { &dag__clblast.dgemm, &dag__clblast.sgemm, &dag__clblast.dsyrk, &dag__clblast.ssyrk,
                            &dag__clblast.dtri[0], &dag__clblast.dtri[1], &dag__clblast.stri[0],
                            &dag__clblast.stri[1], &dag__clblast.clear_cache };
    return dag__blas_load(&dag__clblast.state, "libclblast.so.1", names, 1, symbols, slots, 9);
}

/* gemm, syrk, trsm and trmm (by user_data), on the queue given */
static int dag__clblast_call(const dag_library_kernel *self, void *queue, int device, size_t range,
                             const dag_kernel_arg *args, int num_args, void **event) {
    (void)device;
    (void)range;
    dag__blas_call g;
    if (!dag__blas_read(self, args, num_args, &g) || g.op >= DAG__BLAS_POTRF) return -1;
    const int *i = g.i;
    size_t z[8];
    for (int k = 0; k < 8; k++) z[k] = (size_t)(i[k] > 0 ? i[k] : 0);
#define DAG__T(x) ((x) ? 112 : 111)
#define DAG__UPLO(x) ((x) ? 121 : 122)
#define DAG__SCALAR(T, k) (*(const T *)g.s[k])
#define DAG__GEMM(T, f) f(102, DAG__T(i[0]), DAG__T(i[1]), z[2], z[3], z[4], DAG__SCALAR(T, 0), g.p[0], 0, z[5], g.p[1], 0, \
                          z[6], DAG__SCALAR(T, 1), g.p[2], 0, z[7], queue, event)
#define DAG__SYRK(T, f) f(102, DAG__UPLO(i[0]), DAG__T(i[1]), z[2], z[3], DAG__SCALAR(T, 0), g.p[0], 0, z[4],        \
                          DAG__SCALAR(T, 1), g.p[1], 0, z[5], queue, event)
#define DAG__TRI(T, f) f(102, i[0] ? 142 : 141, DAG__UPLO(i[1]), DAG__T(i[2]), i[3] ? 132 : 131, z[4], z[5],          \
                         DAG__SCALAR(T, 0), g.p[0], 0, z[6], g.p[1], 0, z[7], queue, event)
    int tri = g.op == DAG__BLAS_TRMM, e;
    if (g.op == DAG__BLAS_GEMM) e = g.single ? DAG__GEMM(float, dag__clblast.sgemm) : DAG__GEMM(double, dag__clblast.dgemm);
    else if (g.op == DAG__BLAS_SYRK) e = g.single ? DAG__SYRK(float, dag__clblast.ssyrk) : DAG__SYRK(double, dag__clblast.dsyrk);
    else e = g.single ? DAG__TRI(float, dag__clblast.stri[tri]) : DAG__TRI(double, dag__clblast.dtri[tri]);
#undef DAG__T
#undef DAG__UPLO
#undef DAG__SCALAR
#undef DAG__GEMM
#undef DAG__SYRK
#undef DAG__TRI
    return e;
}
static void dag__clblast_release(void *queue, int device) {
    (void)queue;
    (void)device;
    dag__clblast.clear_cache();
}
DAG__BLAS_ROUTINE(dag__clblast_dgemm, DAG_OPENCL, dag__clblast, DAG__BLAS_GEMM, 0, "CLBlastDgemm")
DAG__BLAS_ROUTINE(dag__clblast_sgemm, DAG_OPENCL, dag__clblast, DAG__BLAS_GEMM, 1, "CLBlastSgemm")
DAG__BLAS_ROUTINE(dag__clblast_dsyrk, DAG_OPENCL, dag__clblast, DAG__BLAS_SYRK, 0, "CLBlastDsyrk")
DAG__BLAS_ROUTINE(dag__clblast_ssyrk, DAG_OPENCL, dag__clblast, DAG__BLAS_SYRK, 1, "CLBlastSsyrk")
DAG__BLAS_ROUTINE(dag__clblast_dtrsm, DAG_OPENCL, dag__clblast, DAG__BLAS_TRSM, 0, "CLBlastDtrsm")
DAG__BLAS_ROUTINE(dag__clblast_strsm, DAG_OPENCL, dag__clblast, DAG__BLAS_TRSM, 1, "CLBlastStrsm")
DAG__BLAS_ROUTINE(dag__clblast_dtrmm, DAG_OPENCL, dag__clblast, DAG__BLAS_TRMM, 0, "CLBlastDtrmm")
DAG__BLAS_ROUTINE(dag__clblast_strmm, DAG_OPENCL, dag__clblast, DAG__BLAS_TRMM, 1, "CLBlastStrmm")
#define DAG__OPENCL_ROUTINE(op) &dag__clblast_##op,
#else
#define DAG__OPENCL_ROUTINE(op)
#endif

/* the routines that stand in for each kernel, NULL-terminated (CLBlast has no potrf or getrf) */
#define DAG__ROUTINES(op) \
    static const dag_library_kernel *const dag__##op##_routines[] = { DAG__CUDA_ROUTINE(op) DAG__HIP_ROUTINE(op) \
                                                                      DAG__OPENCL_ROUTINE(op) NULL };
DAG__ROUTINES(dgemm) DAG__ROUTINES(sgemm) DAG__ROUTINES(dsyrk) DAG__ROUTINES(ssyrk) DAG__ROUTINES(dtrsm)
DAG__ROUTINES(strsm) DAG__ROUTINES(dtrmm) DAG__ROUTINES(strmm)
#undef DAG__OPENCL_ROUTINE
#define DAG__OPENCL_ROUTINE(op)
DAG__ROUTINES(dpotrf) DAG__ROUTINES(spotrf) DAG__ROUTINES(dgetrf) DAG__ROUTINES(sgetrf)
#undef DAG__ROUTINES
#define DAG__BLAS_LIBRARIES(op) dag__##op##_routines
#else
#define DAG__BLAS_LIBRARIES(op) 0
#endif

/* >>tile kernels: the text, for double and float. */
#define DAG__BLAS_KERNELS(P, T)                                                                                   \
    DAG_KERNEL_OR_LIBRARY(dag_##P##gemm, DAG__BLAS_LIBRARIES(P##gemm),                                            \
                          ((int, transa), (int, transb), (int, m), (int, n), (int, k), (T, alpha),                \
                           (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL const T *, b), (int, ldb),          \
                           (T, beta), (DAG_GLOBAL T *, c), (int, ldc)),                                           \
        size_t idx = DAG_INDEX();                                                                                 \
        if (m <= 0 || n <= 0 || k < 0) return; /* sizes below 0: nothing written */                             \
        size_t i = idx % (size_t)m, j = idx / (size_t)m; /* the range is m * n */                                 \
        T s = (T)0;                                                                                               \
        for (int l = 0; alpha != (T)0 && l < k; l++) { /* alpha 0: A and B not read (BLAS) */                    \
            T x = transa ? a[(size_t)l + i * (size_t)lda] : a[i + (size_t)l * (size_t)lda];                       \
            T y = transb ? b[j + (size_t)l * (size_t)ldb] : b[(size_t)l + j * (size_t)ldb];                       \
            s += x * y;                                                                                           \
        }                                                                                                         \
        c[i + j * (size_t)ldc] = alpha * s + (beta == (T)0 ? (T)0 : beta * c[i + j * (size_t)ldc]);               \
    )                                                                                                             \
    DAG_KERNEL_OR_LIBRARY(dag_##P##syrk, DAG__BLAS_LIBRARIES(P##syrk),                                            \
                          ((int, upper), (int, trans), (int, n), (int, k), (T, alpha), (DAG_GLOBAL const T *, a), \
                           (int, lda), (T, beta), (DAG_GLOBAL T *, c), (int, ldc)),                               \
        /* an item per element of c (n x n), those outside its triangle idle */                                   \
        size_t idx = DAG_INDEX();                                                                                 \
        if (n <= 0 || k < 0) return;                                                                              \
        size_t i = idx % (size_t)n, j = idx / (size_t)n;                                                          \
        if (upper ? i <= j : i >= j) {                                                                            \
            T s = (T)0;                                                                                           \
            for (int l = 0; alpha != (T)0 && l < k; l++)                                                          \
                s += trans ? a[(size_t)l + i * (size_t)lda] * a[(size_t)l + j * (size_t)lda]                      \
                           : a[i + (size_t)l * (size_t)lda] * a[j + (size_t)l * (size_t)lda];                     \
            c[i + j * (size_t)ldc] = alpha * s + (beta == (T)0 ? (T)0 : beta * c[i + j * (size_t)ldc]);           \
        }                                                                                                         \
    )                                                                                                             \
    DAG_KERNEL_OR_LIBRARY(dag_##P##trsm, DAG__BLAS_LIBRARIES(P##trsm),                                            \
                          ((int, right), (int, upper), (int, trans), (int, unit), (int, m), (int, n), (T, alpha), \
                           (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL T *, b), (int, ldb)),               \
        /* a column (left) or a row (right) of b per item, by substitution */                                     \
        size_t v = DAG_INDEX();                                                                                   \
        int len = right ? n : m, lower = right ? upper != trans : upper == trans;                                 \
        int tr = right ? !trans : trans;                                                                          \
        size_t inc = right ? (size_t)ldb : 1, base = right ? v : v * (size_t)ldb;                                 \
        if (m <= 0 || n <= 0) return;                                                                             \
        for (int s = 0; alpha == (T)0 && s < len; s++) b[base + (size_t)s * inc] = (T)0; /* BLAS: B = 0 */      \
        for (int s = 0; alpha != (T)0 && s < len; s++) {                                                          \
            int i = lower ? s : len - 1 - s;                                                                      \
            T x = alpha * b[base + (size_t)i * inc];                                                              \
            for (int t = 0; t < s; t++) {                                                                         \
                int p = lower ? t : len - 1 - t;                                                                  \
                T aip = tr ? a[(size_t)p + (size_t)i * (size_t)lda] : a[(size_t)i + (size_t)p * (size_t)lda];     \
                x -= aip * b[base + (size_t)p * inc];                                                             \
            }                                                                                                     \
            b[base + (size_t)i * inc] = unit ? x : x / a[(size_t)i + (size_t)i * (size_t)lda];                    \
        }                                                                                                         \
    )                                                                                                             \
    DAG_KERNEL_OR_LIBRARY(dag_##P##trmm, DAG__BLAS_LIBRARIES(P##trmm),                                            \
                          ((int, right), (int, upper), (int, trans), (int, unit), (int, m), (int, n), (T, alpha), \
                           (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL T *, b), (int, ldb)),               \
        /* a column (left) or a row (right) of b per item, in place, in an order that reads only old values */ \
        size_t v = DAG_INDEX();                                                                                   \
        int len = right ? n : m, lower = upper == trans;                                                          \
        int down = right ? !lower : lower;                                                                        \
        size_t inc = right ? (size_t)ldb : 1, base = right ? v : v * (size_t)ldb;                                 \
        if (m <= 0 || n <= 0) return;                                                                             \
        for (int s = 0; alpha == (T)0 && s < len; s++) b[base + (size_t)s * inc] = (T)0; /* BLAS: B = 0 */      \
        for (int s = 0; alpha != (T)0 && s < len; s++) {                                                          \
            int i = down ? len - 1 - s : s;                                                                       \
            T x = (T)0;                                                                                           \
            for (int p = 0; p < len; p++) {                                                                       \
                int r = right ? p : i, c = right ? i : p; /* element (r, c) of op(A) */                           \
                if (lower ? c > r : c < r) continue;                                                              \
                T e = r == c ? (unit ? (T)1 : a[(size_t)r + (size_t)r * (size_t)lda])                             \
                             : trans ? a[(size_t)c + (size_t)r * (size_t)lda] : a[(size_t)r + (size_t)c * (size_t)lda]; \
                x += e * b[base + (size_t)p * inc];                                                               \
            }                                                                                                     \
            b[base + (size_t)i * inc] = alpha * x;                                                                \
        }                                                                                                         \
    )                                                                                                             \
    DAG_KERNEL_OR_LIBRARY(dag_##P##potrf, DAG__BLAS_LIBRARIES(P##potrf),                                          \
                          ((int, upper), (int, n), (DAG_GLOBAL T *, a), (int, lda), (DAG_GLOBAL int *, info)),    \
        /* one item: column by column; L's (i, j) is a[i + j lda], U's (j, i) the same element of the upper */   \
        size_t ld = (size_t)lda, si = upper ? ld : 1, sj = upper ? 1 : ld; /* element (i, j) at i si + j sj */    \
        int bad = 0;                                                                                              \
        (void)DAG_INDEX();                                                                                        \
        for (int j = 0; j < n && !bad; j++) {                                                                     \
            T d = a[(size_t)j * (si + sj)];                                                                       \
            for (int p = 0; p < j; p++) d -= a[(size_t)j * si + (size_t)p * sj] * a[(size_t)j * si + (size_t)p * sj]; \
            if (!(d > (T)0)) { /* NaN too */                                                                      \
                bad = j + 1;                                                                                      \
            } else {                                                                                              \
                d = sqrt(d);                                                                                      \
                a[(size_t)j * (si + sj)] = d;                                                                     \
                for (int i = j + 1; i < n; i++) {                                                                 \
                    T s = a[(size_t)i * si + (size_t)j * sj];                                                     \
                    for (int p = 0; p < j; p++) s -= a[(size_t)i * si + (size_t)p * sj] * a[(size_t)j * si + (size_t)p * sj]; \
                    a[(size_t)i * si + (size_t)j * sj] = s / d;                                                   \
                }                                                                                                 \
            }                                                                                                     \
        }                                                                                                         \
        info[0] = bad;                                                                                            \
    )                                                                                                             \
    DAG_KERNEL_OR_LIBRARY(dag_##P##getrf, DAG__BLAS_LIBRARIES(P##getrf),                                          \
                          ((int, m), (int, n), (DAG_GLOBAL T *, a), (int, lda), (DAG_GLOBAL int *, ipiv),         \
                           (DAG_GLOBAL int *, info)),                                                             \
        /* one item: LAPACK's getf2, column by column (the largest |a| of each column's rest as its pivot) */    \
        size_t ld = (size_t)lda;                                                                                  \
        int bad = 0, kn = m < n ? m : n;                                                                          \
        (void)DAG_INDEX();                                                                                        \
        for (int j = 0; j < kn; j++) {                                                                            \
            int p = j;                                                                                            \
            for (int i = j + 1; i < m; i++)                                                                       \
                if (fabs((double)a[(size_t)i + j * ld]) > fabs((double)a[(size_t)p + j * ld])) p = i;            \
            ipiv[j] = p + 1;                                                                                      \
            T d = a[(size_t)p + j * ld];                                                                          \
            if (d == (T)0) {                                                                                      \
                if (!bad) bad = j + 1;                                                                            \
                continue;                                                                                         \
            }                                                                                                     \
            for (int c = 0; p != j && c < n; c++) {                                                               \
                T x = a[(size_t)j + (size_t)c * ld];                                                              \
                a[(size_t)j + (size_t)c * ld] = a[(size_t)p + (size_t)c * ld];                                    \
                a[(size_t)p + (size_t)c * ld] = x;                                                                \
            }                                                                                                     \
            for (int i = j + 1; i < m; i++) a[(size_t)i + j * ld] /= d;                                           \
            for (int c = j + 1; c < n; c++)                                                                       \
                for (int i = j + 1; i < m; i++)                                                                   \
                    a[(size_t)i + (size_t)c * ld] -= a[(size_t)i + j * ld] * a[(size_t)j + (size_t)c * ld];       \
        }                                                                                                         \
        info[0] = bad;                                                                                            \
    )
DAG__BLAS_KERNELS(d, double)
DAG__BLAS_KERNELS(s, float)
#undef DAG__BLAS_KERNELS

#endif /* DAG_BLAS_H_INCLUDED */
