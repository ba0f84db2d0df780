/* A mock libcublas.so.13 (and, built with -DMOCK_CUBLAS_MAJOR=12, libcublas.so.12: which one
   dag_blas.h loaded, mock_cublas_major says) beside the mock CUDA runtime (mock_cuda.c):
   cublasDgemm queues dag_blas.h's dag_dgemm host kernel on the handle's
   stream, as cuBLAS queues its routine, so that it runs in order with the
   copies around it. A handle is made on a device and must be used there
   (the current device at each call, as cuBLAS asks). Single precision is
   not in the mock: CUBLAS_STATUS_NOT_SUPPORTED. */
#include <stdio.h>
#include <stdlib.h>

typedef struct mock_cublas { int dev; void *stream; } *cublasHandle_t;
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
       CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_NOT_SUPPORTED = 15 };
#define EXPORT __attribute__((visibility("default")))

#ifndef MOCK_CUBLAS_MAJOR
#define MOCK_CUBLAS_MAJOR 13
#endif

int cudaGetDevice(int *d);   /* the mock runtime's */
int mock_cuda_inject(const char *fn, long *code);   /* its injected failures (mock_fail.h) */
#define INJECT(error) \
    do { \
        long code_; \
        if (mock_cuda_inject(__func__, &code_)) return code_ ? (int)code_ : (error); \
    } while (0)
int mock_cuda_launch_by_name(const char *name, unsigned long long items, void *stream, void **params);
static long live_handles, gemms;

EXPORT int mock_cublas_major(void) { return MOCK_CUBLAS_MAJOR; }
EXPORT long mock_cublas_gemms(void) { return gemms; }

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mock cublas %d: %ld gemms, %ld handles live\n", MOCK_CUBLAS_MAJOR, gemms, live_handles);
    if (live_handles) {
        fprintf(stderr, "mock cublas: %ld handles still live at exit\n", live_handles);
        abort();
    }
}
static int on_own_device(cublasHandle_t h) {
    int d = -1;
    return cudaGetDevice(&d) == 0 && d == h->dev;
}
EXPORT int cublasCreate_v2(cublasHandle_t *h) {
    INJECT(CUBLAS_STATUS_ALLOC_FAILED);
    int d = -1;
    if (cudaGetDevice(&d) != 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    *h = calloc(1, sizeof **h);
    (*h)->dev = d;
    live_handles++;
    return CUBLAS_STATUS_SUCCESS;
}
EXPORT int cublasDestroy_v2(cublasHandle_t h) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(h);
    live_handles--;
    return CUBLAS_STATUS_SUCCESS;
}
EXPORT int cublasSetStream_v2(cublasHandle_t h, void *stream) {
    INJECT(CUBLAS_STATUS_NOT_INITIALIZED);
    if (!h || !on_own_device(h)) {
        fprintf(stderr, "mock cublas: a handle of device %d used while another is current\n", h ? h->dev : -1);
        abort();
    }
    h->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}
EXPORT int cublasDgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k, const double *alpha, const double *a,
                          int lda, const double *b, int ldb, const double *beta, double *c, int ldc) {
    INJECT(CUBLAS_STATUS_EXECUTION_FAILED);
    if (!h || !h->stream || !on_own_device(h)) {
        fprintf(stderr, "mock cublas: gemm without its stream, or on another device\n");
        abort();
    }
    if (m <= 0 || n <= 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    unsigned long long items = (unsigned long long)m * (unsigned long long)n;
    gemms++;
    int tai = ta != 0, tbi = tb != 0;
    void *params[] = { &items, &tai, &tbi, &m, &n, &k, (void *)alpha, &a, &lda, &b, &ldb, (void *)beta, &c, &ldc };
    return mock_cuda_launch_by_name("dag_dgemm__gpu", items, h->stream, params) ? CUBLAS_STATUS_INVALID_VALUE
                                                                                 : CUBLAS_STATUS_SUCCESS;
}
EXPORT int cublasSgemm_v2(void) { return CUBLAS_STATUS_NOT_SUPPORTED; }
