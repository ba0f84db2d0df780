/* A mock libcusolver.so.12 (CUDA 13's; built with -DMOCK_CUSOLVER_MAJOR=11, CUDA 12's
   libcusolver.so.11) beside the mock CUDA runtime (mock_cuda.c): cusolverDnDpotrf, Spotrf,
   Dgetrf and Sgetrf with their bufferSize, checked and queued on the handle's stream (mock_blas.h). Besides cuBLAS's
   rules: the workspace must be device memory of the device, at least as large as bufferSize said
   (Lwork elements), and devInfo device memory too (the routine writes it there, for the caller to
   read when it wants). */
#include "mock_blas.h"

#ifndef MOCK_CUSOLVER_MAJOR
#define MOCK_CUSOLVER_MAJOR 12
#endif
enum { CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_NOT_INITIALIZED = 1, CUSOLVER_STATUS_ALLOC_FAILED = 2,
       CUSOLVER_STATUS_INVALID_VALUE = 3, CUSOLVER_STATUS_EXECUTION_FAILED = 6 };
typedef mock_handle *cusolverDnHandle_t;
int cudaGetDevice(int *d);   /* the mock runtime's */

MOCK_EXPORT int mock_cusolver_major(void) { return MOCK_CUSOLVER_MAJOR; }
__attribute__((destructor)) static void report(void) {
    char lib[32];
    snprintf(lib, sizeof lib, "cusolver %d", MOCK_CUSOLVER_MAJOR);
    report_handles(lib, "potrf", calls_of("cusolverDnDpotrf") + calls_of("cusolverDnSpotrf"));
    printf("mock %s: %ld getrf\n", lib, calls_of("cusolverDnDgetrf") + calls_of("cusolverDnSgetrf"));
}
MOCK_EXPORT int cusolverDnCreate(cusolverDnHandle_t *h) {
    INJECT(CUSOLVER_STATUS_ALLOC_FAILED);
    return handle_new(h, cudaGetDevice) ? CUSOLVER_STATUS_NOT_INITIALIZED : CUSOLVER_STATUS_SUCCESS;
}
MOCK_EXPORT int cusolverDnDestroy(cusolverDnHandle_t h) { return handle_free(h) ? CUSOLVER_STATUS_NOT_INITIALIZED : CUSOLVER_STATUS_SUCCESS; }
/* (cuSOLVER's handle is not bound to a device as cuBLAS's is: any current device will do here) */
MOCK_EXPORT int cusolverDnSetStream(cusolverDnHandle_t h, void *stream) {
    INJECT(CUSOLVER_STATUS_NOT_INITIALIZED);
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->stream = stream;
    return CUSOLVER_STATUS_SUCCESS;
}
/* The workspace potrf needs, in elements: any amount will do, as long as the caller provides it. */
static int lwork_for(int n) { return n > 0 ? 64 * n : 1; }

#define POTRF(NAME, T, SINGLE)                                                                                      \
    MOCK_EXPORT int NAME##_bufferSize(cusolverDnHandle_t h, int uplo, int n, T *a, int lda, int *lwork) {           \
        INJECT(CUSOLVER_STATUS_INVALID_VALUE);                                                                      \
        (void)a;                                                                                                    \
        check_handle(h, #NAME "_bufferSize", cudaGetDevice);                                                        \
        if (n < 0 || lda < (n > 1 ? n : 1) || (uplo != 0 && uplo != 1)) return CUSOLVER_STATUS_INVALID_VALUE;        \
        *lwork = lwork_for(n);                                                                                      \
        return CUSOLVER_STATUS_SUCCESS;                                                                             \
    }                                                                                                               \
    MOCK_EXPORT int NAME(cusolverDnHandle_t h, int uplo, int n, T *a, int lda, T *work, int lwork, int *info) {     \
        INJECT(CUSOLVER_STATUS_EXECUTION_FAILED);                                                                   \
        check_handle(h, #NAME, cudaGetDevice);                                                                      \
        if (lwork < lwork_for(n)) MOCK_BLAS_FAIL(#NAME ": Lwork %d, under the %d its bufferSize asks", lwork, lwork_for(n)); \
        op o = { .kind = OP_POTRF, .single = SINGLE, .upper = uplo == 1, .n = n, .lda = lda, .a = a, .info = info }; \
        if ((uplo != 0 && uplo != 1) || bad_sizes(&o)) return CUSOLVER_STATUS_INVALID_VALUE;                        \
        queue_op(h, #NAME, &o, work, (size_t)lwork * sizeof(T));                                                    \
        return CUSOLVER_STATUS_SUCCESS;                                                                             \
    }
POTRF(cusolverDnDpotrf, double, 0)
POTRF(cusolverDnSpotrf, float, 1)

/* getrf: the same rules, devIpiv (min(m, n) ints) device memory too */
#define GETRF(NAME, T, SINGLE)                                                                                      \
    MOCK_EXPORT int NAME##_bufferSize(cusolverDnHandle_t h, int m, int n, T *a, int lda, int *lwork) {              \
        INJECT(CUSOLVER_STATUS_INVALID_VALUE);                                                                      \
        (void)a;                                                                                                    \
        check_handle(h, #NAME "_bufferSize", cudaGetDevice);                                                        \
        if (m < 0 || n < 0 || lda < (m > 1 ? m : 1)) return CUSOLVER_STATUS_INVALID_VALUE;                          \
        *lwork = lwork_for(n);                                                                                      \
        return CUSOLVER_STATUS_SUCCESS;                                                                             \
    }                                                                                                               \
    MOCK_EXPORT int NAME(cusolverDnHandle_t h, int m, int n, T *a, int lda, T *work, int *ipiv, int *info) {        \
        INJECT(CUSOLVER_STATUS_EXECUTION_FAILED);                                                                   \
        check_handle(h, #NAME, cudaGetDevice);                                                                      \
        op o = { .kind = OP_GETRF, .single = SINGLE, .m = m, .n = n, .lda = lda, .a = a, .ipiv = ipiv, .info = info }; \
        if (bad_sizes(&o)) return CUSOLVER_STATUS_INVALID_VALUE;                                                    \
        queue_op(h, #NAME, &o, work, (size_t)lwork_for(n) * sizeof(T));                                            \
        return CUSOLVER_STATUS_SUCCESS;                                                                             \
    }
GETRF(cusolverDnDgetrf, double, 0)
GETRF(cusolverDnSgetrf, float, 1)

/* potrs (bench/gpu_array.c's vendor side): B = A^-1 B from potrf's factor, as two triangular solves
   on the stream, then info 0 */
#define POTRS(NAME, T, SINGLE)                                                                                      \
    MOCK_EXPORT int NAME(cusolverDnHandle_t h, int uplo, int n, int nrhs, const T *a, int lda, T *b, int ldb,       \
                         int *info) {                                                                               \
        INJECT(CUSOLVER_STATUS_EXECUTION_FAILED);                                                                   \
        check_handle(h, #NAME, cudaGetDevice);                                                                      \
        op o = { .kind = OP_TRSM, .single = SINGLE, .upper = uplo == 1, .ta = uplo == 1, .m = n, .n = nrhs,         \
                 .lda = lda, .ldb = ldb, .alpha = 1.0, .a = (void *)a, .b = b };                                    \
        if ((uplo != 0 && uplo != 1) || bad_sizes(&o)) return CUSOLVER_STATUS_INVALID_VALUE;                        \
        queue_op(h, #NAME, &o, NULL, 0);   /* L y = b (U^T y = b) */                                                \
        o.ta = !o.ta;                                                                                               \
        queue_op(h, #NAME, &o, NULL, 0);   /* L^T x = y (U x = y) */                                                \
        op done = { .kind = OP_POTRF, .single = SINGLE, .lda = 1, .info = info };                                   \
        queue_op(h, #NAME, &done, NULL, 0);                                                                         \
        return CUSOLVER_STATUS_SUCCESS;                                                                             \
    }
POTRS(cusolverDnDpotrs, double, 0)
POTRS(cusolverDnSpotrs, float, 1)
