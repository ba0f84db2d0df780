/* dag_blas.h: dense tile kernels for dag.h, one text for every backend,
   and the vendor library that stands in for it where a backend has one.

       #include "dag_blas.h"      (in one file of kernels: it defines them)

       dag_spawn(DAG_LAUNCH(dag_dgemm, m * n), Val(transa), Val(transb), Val(m), Val(n), Val(k),
                 Val(alpha), In(a, lda * ka), Val(lda), In(b, ldb * kb), Val(ldb), Val(beta),
                 InOut(c, ldc * n), Val(ldc));

   dag_dgemm (double) and dag_sgemm (float, alpha and beta float too):
   C = alpha * op(A) * op(B) + beta * C on column-major tiles
   (BLAS's convention: element (i, j) of C is c[i + j * ldc]); op(X) is X or,
   with trans = 1, its transpose; C is m x n and the inner dimension k. The
   launch range is m * n, one item per element of C.
   - Every processor can run the text below (built ahead of time for CUDA,
     HIP and Level Zero like any kernel of this file, at run time for
     OpenCL).
   - On CUDA devices cuBLAS's cublasDgemm / cublasSgemm stand in for it on
     the device's stream, where libcublas loads; on OpenCL devices CLBlast's
     CLBlastDgemm / CLBlastSgemm on the device's queue, where
     libclblast.so.1 loads (Debian's libclblast1). Both are loaded at run
     time (dag_library_kernel, below); without them the text runs.
   dag_desc.no_library_kernels keeps the text everywhere.
   These are the tile kernels dag_array.h's linear algebra builds on. */
#ifndef DAG_BLAS_H_INCLUDED
#define DAG_BLAS_H_INCLUDED

#if defined(__has_include)
#if !__has_include("dag.h") || !__has_include("dag_kernels.h")
#error "dag_blas.h needs dag.h and dag_kernels.h beside it (README: Which files to copy)"
#endif
#endif
#include "dag_kernels.h"

/* The gemm's parameters, in the order the kernels declare them (after the
   range): the vendor bindings below read their arguments by these. */
enum {
    DAG__GEMM_TRANSA, DAG__GEMM_TRANSB, DAG__GEMM_M, DAG__GEMM_N, DAG__GEMM_K, DAG__GEMM_ALPHA, DAG__GEMM_A,
    DAG__GEMM_LDA, DAG__GEMM_B, DAG__GEMM_LDB, DAG__GEMM_BETA, DAG__GEMM_C, DAG__GEMM_LDC, DAG__GEMM_PARAMS
};

#if !defined(__CUDACC__) && !defined(__HIP__) && !defined(__OPENCL_C_VERSION__) && !defined(DAG_KERNEL_NAMES)
/* >>vendor bindings: host code only, each library loaded at run time */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Finds each of names in lib into slots[i] (a function pointer: ISO C has
   no object-to-function cast, hence the memcpy). Returns whether all were
   there; if not, says which was missing at DAG_LOG_INFO. */
static inline bool dag__blas_bind(void *lib, const char *lib_name, const char *const *names, void *const *slots,
                                  int count) {
    for (int i = 0; i < count; i++) {
        void *p = dlsym(lib, names[i]);
        if (!p) {
            dag_log(DAG_LOG_INFO, DAG_OK, "%s has no %s: dag_blas.h's kernels run their own text", lib_name, names[i]);
            return false;
        }
        memcpy(slots[i], &p, sizeof p);
    }
    return true;
}
static const size_t dag__blas_f64 = sizeof(double), dag__blas_f32 = sizeof(float);   /* the routines' user_data */

/* A gemm's arguments as a device holds them (by the parameter order above). */
typedef struct dag__gemm_call {
    bool single;                   /* sgemm: alpha and beta are floats */
    bool transa, transb;
    int m, n, k, lda, ldb, ldc;
    const void *alpha, *beta;      /* host scalars */
    void *a, *b, *c;               /* device buffers */
} dag__gemm_call;
static inline bool dag__gemm_read(const dag_library_kernel *self, const dag_kernel_arg *args, int num_args,
                                  dag__gemm_call *g) {
    if (num_args != DAG__GEMM_PARAMS) return false;
#define DAG__GEMM_INT(i) (*(const int *)args[i].value)
    g->single = *(const size_t *)self->user_data == sizeof(float);
    g->transa = DAG__GEMM_INT(DAG__GEMM_TRANSA) != 0, g->transb = DAG__GEMM_INT(DAG__GEMM_TRANSB) != 0;
    g->m = DAG__GEMM_INT(DAG__GEMM_M), g->n = DAG__GEMM_INT(DAG__GEMM_N), g->k = DAG__GEMM_INT(DAG__GEMM_K);
    g->lda = DAG__GEMM_INT(DAG__GEMM_LDA), g->ldb = DAG__GEMM_INT(DAG__GEMM_LDB), g->ldc = DAG__GEMM_INT(DAG__GEMM_LDC);
#undef DAG__GEMM_INT
    g->alpha = args[DAG__GEMM_ALPHA].value, g->beta = args[DAG__GEMM_BETA].value;
    g->a = args[DAG__GEMM_A].buffer, g->b = args[DAG__GEMM_B].buffer, g->c = args[DAG__GEMM_C].buffer;
    return true;
}

#if defined(DAG_BACKEND_CUDA)
/* >>cuBLAS: the library of the CUDA runtime's own major version first
   (libcublas.so.13 for CUDA 13), one handle per device, made on its first
   call (the device is current then, as cuBLAS asks) and set to the
   device's stream at each call. */
#include <cuda_runtime_api.h>
#include <cublas_api.h>
static struct {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,
                            const double *, int, const double *, int, const double *, double *, int);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                            const float *, int, const float *, int, const float *, float *, int);
    cublasHandle_t handle[DAG_MAX_DEVICES];
} dag__cublas;

static bool dag__cublas_load(void) {
    if (dag__cublas.state) return dag__cublas.state > 0;
    dag__cublas.state = -1;
    char own[32] = "";
    int version = 0;
    if (cudaRuntimeGetVersion(&version) == cudaSuccess) snprintf(own, sizeof own, "libcublas.so.%d", version / 1000);
    const char *const names[] = { own, "libcublas.so.13", "libcublas.so.12", "libcublas.so" };
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
        if (names[i][0]) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        dag_log(DAG_LOG_INFO, DAG_OK, "cuBLAS does not load (%s): dag_blas.h's kernels run their own text", dlerror());
        return false;
    }
    const char *const symbols[] = { "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasDgemm_v2",
                                    "cublasSgemm_v2" };
    void *const slots[] = { &dag__cublas.create, &dag__cublas.destroy, &dag__cublas.set_stream, &dag__cublas.dgemm,
                            &dag__cublas.sgemm };
    if (!dag__blas_bind(lib, "libcublas", symbols, slots, 5)) return false;
    dag__cublas.state = 1;
    return true;
}

static cublasHandle_t dag__cublas_handle(void *stream, int device) {
    if (device < 0 || device >= DAG_MAX_DEVICES) return NULL;
    cublasHandle_t *h = &dag__cublas.handle[device];
    if (!*h && dag__cublas.create(h) != CUBLAS_STATUS_SUCCESS) *h = NULL;
    if (*h && dag__cublas.set_stream(*h, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS) return NULL;
    return *h;
}

/* dgemm and sgemm: user_data is the element size */
static int dag__cublas_gemm(const dag_library_kernel *self, void *stream, int device, size_t range,
                            const dag_kernel_arg *args, int num_args, void **event) {
    (void)range;
    (void)event;
    dag__gemm_call g;
    if (!dag__gemm_read(self, args, num_args, &g)) return (int)CUBLAS_STATUS_INVALID_VALUE;
    cublasHandle_t h = dag__cublas_handle(stream, device);
    if (!h) return (int)CUBLAS_STATUS_NOT_INITIALIZED;
    cublasOperation_t ta = g.transa ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (g.single)
        return (int)dag__cublas.sgemm(h, ta, tb, g.m, g.n, g.k, (const float *)g.alpha, (const float *)g.a, g.lda,
                                      (const float *)g.b, g.ldb, (const float *)g.beta, (float *)g.c, g.ldc);
    return (int)dag__cublas.dgemm(h, ta, tb, g.m, g.n, g.k, (const double *)g.alpha, (const double *)g.a, g.lda,
                                  (const double *)g.b, g.ldb, (const double *)g.beta, (double *)g.c, g.ldc);
}
static void dag__cublas_release(void *stream, int device) {
    (void)stream;
    if (device < 0 || device >= DAG_MAX_DEVICES || !dag__cublas.handle[device]) return;
    dag__cublas.destroy(dag__cublas.handle[device]);
    dag__cublas.handle[device] = NULL;
}
static const dag_library_kernel dag__cublas_dgemm_routine = { DAG_CUDA, "cublasDgemm_v2", dag__cublas_load,
                                                              dag__cublas_gemm, dag__cublas_release, &dag__blas_f64 };
static const dag_library_kernel dag__cublas_sgemm_routine = { DAG_CUDA, "cublasSgemm_v2", dag__cublas_load,
                                                              dag__cublas_gemm, dag__cublas_release, &dag__blas_f32 };
#define DAG__CUBLAS_DGEMM &dag__cublas_dgemm_routine,
#define DAG__CUBLAS_SGEMM &dag__cublas_sgemm_routine,
#else
#define DAG__CUBLAS_DGEMM
#define DAG__CUBLAS_SGEMM
#endif

#if defined(DAG_BACKEND_OPENCL)
/* >>CLBlast: its C API's ABI (clblast_c.h of 1.5), with OpenCL's handles as
   pointers. Its kernels compile on a device's first call (about 10 s on
   PoCL, then cached under POCL_CACHE_DIR); its cache of programs is
   emptied at dag_shutdown, as they belong to the devices' contexts. */
enum { DAG__CLBLAST_COL_MAJOR = 102, DAG__CLBLAST_NO_TRANSPOSE = 111, DAG__CLBLAST_TRANSPOSE = 112 };
static struct {
    int state;   /* 0: not tried; 1: loaded; -1: absent */
    int (*dgemm)(int, int, int, size_t, size_t, size_t, double, void *, size_t, size_t, void *, size_t, size_t, double,
                 void *, size_t, size_t, void *queue, void *event);
    int (*sgemm)(int, int, int, size_t, size_t, size_t, float, void *, size_t, size_t, void *, size_t, size_t, float,
                 void *, size_t, size_t, void *queue, void *event);
    int (*clear_cache)(void);
} dag__clblast;

static bool dag__clblast_load(void) {
    if (dag__clblast.state) return dag__clblast.state > 0;
    dag__clblast.state = -1;
    void *lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        dag_log(DAG_LOG_INFO, DAG_OK, "CLBlast does not load (%s): dag_blas.h's kernels run their own text", dlerror());
        return false;
    }
    const char *const symbols[] = { "CLBlastDgemm", "CLBlastSgemm", "CLBlastClearCache" };
    void *const slots[] = { &dag__clblast.dgemm, &dag__clblast.sgemm, &dag__clblast.clear_cache };
    if (!dag__blas_bind(lib, "libclblast.so.1", symbols, slots, 3)) return false;
    dag__clblast.state = 1;
    return true;
}

/* dgemm and sgemm: user_data is the element size */
static int dag__clblast_gemm(const dag_library_kernel *self, void *queue, int device, size_t range,
                             const dag_kernel_arg *args, int num_args, void **event) {
    (void)device;
    (void)range;
    dag__gemm_call g;
    if (!dag__gemm_read(self, args, num_args, &g)) return -1;
    int ta = g.transa ? DAG__CLBLAST_TRANSPOSE : DAG__CLBLAST_NO_TRANSPOSE,
        tb = g.transb ? DAG__CLBLAST_TRANSPOSE : DAG__CLBLAST_NO_TRANSPOSE;
    size_t m = (size_t)g.m, n = (size_t)g.n, k = (size_t)g.k;
    if (g.single)
        return dag__clblast.sgemm(DAG__CLBLAST_COL_MAJOR, ta, tb, m, n, k, *(const float *)g.alpha, g.a, 0,
                                  (size_t)g.lda, g.b, 0, (size_t)g.ldb, *(const float *)g.beta, g.c, 0, (size_t)g.ldc,
                                  queue, event);
    return dag__clblast.dgemm(DAG__CLBLAST_COL_MAJOR, ta, tb, m, n, k, *(const double *)g.alpha, g.a, 0, (size_t)g.lda,
                              g.b, 0, (size_t)g.ldb, *(const double *)g.beta, g.c, 0, (size_t)g.ldc, queue, event);
}
static void dag__clblast_release(void *queue, int device) {
    (void)queue;
    (void)device;
    dag__clblast.clear_cache();
}
static const dag_library_kernel dag__clblast_dgemm_routine = { DAG_OPENCL, "CLBlastDgemm", dag__clblast_load,
                                                               dag__clblast_gemm, dag__clblast_release, &dag__blas_f64 };
static const dag_library_kernel dag__clblast_sgemm_routine = { DAG_OPENCL, "CLBlastSgemm", dag__clblast_load,
                                                               dag__clblast_gemm, dag__clblast_release, &dag__blas_f32 };
#define DAG__CLBLAST_DGEMM &dag__clblast_dgemm_routine,
#define DAG__CLBLAST_SGEMM &dag__clblast_sgemm_routine,
#else
#define DAG__CLBLAST_DGEMM
#define DAG__CLBLAST_SGEMM
#endif

/* the routines that stand in for each gemm, NULL-terminated */
static const dag_library_kernel *const dag__dgemm_libraries[] = { DAG__CUBLAS_DGEMM DAG__CLBLAST_DGEMM NULL };
static const dag_library_kernel *const dag__sgemm_libraries[] = { DAG__CUBLAS_SGEMM DAG__CLBLAST_SGEMM NULL };
#define DAG__DGEMM_LIBRARIES dag__dgemm_libraries
#define DAG__SGEMM_LIBRARIES dag__sgemm_libraries
#else
#define DAG__DGEMM_LIBRARIES 0
#define DAG__SGEMM_LIBRARIES 0
#endif

#define DAG__BLAS_GEMM(NAME, LIBRARIES, T)                                                                      \
    DAG_KERNEL_OR_LIBRARY(NAME, LIBRARIES,                                                                      \
                          ((int, transa), (int, transb), (int, m), (int, n), (int, k), (T, alpha),              \
                           (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL const T *, b), (int, ldb),        \
                           (T, beta), (DAG_GLOBAL T *, c), (int, ldc)),                                         \
        size_t idx = DAG_INDEX();                                                                               \
        size_t i = idx % (size_t)m, j = idx / (size_t)m; /* the range is m * n */                               \
        (void)n;                                                                                                \
        T s = (T)0;                                                                                             \
        for (int l = 0; l < k; l++) {                                                                           \
            T x = transa ? a[(size_t)l + i * (size_t)lda] : a[i + (size_t)l * (size_t)lda];                     \
            T y = transb ? b[j + (size_t)l * (size_t)ldb] : b[(size_t)l + j * (size_t)ldb];                     \
            s += x * y;                                                                                         \
        }                                                                                                       \
        c[i + j * (size_t)ldc] = alpha * s + (beta == (T)0 ? (T)0 : beta * c[i + j * (size_t)ldc]);             \
    )
DAG__BLAS_GEMM(dag_dgemm, DAG__DGEMM_LIBRARIES, double)
DAG__BLAS_GEMM(dag_sgemm, DAG__SGEMM_LIBRARIES, float)
#undef DAG__BLAS_GEMM

#endif /* DAG_BLAS_H_INCLUDED */
