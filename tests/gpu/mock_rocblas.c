/* A mock librocblas.so.4 beside the mock HIP runtime (mock_hip.c): rocblas_dgemm, _dsyrk, _dtrsm,
   _dtrmm and their s forms, checked and queued on the handle's stream (mock_blas.h) as rocBLAS
   queues them; a handle is made on the current device and used there. Built with -DMOCK_ROCSOLVER
   it is librocsolver.so.0 instead (linked with the mock librocblas, as the real one is):
   rocsolver_dpotrf, _spotrf, _dgetrf and _sgetrf on rocBLAS's handles, info (and ipiv) in device memory. rocBLAS's enums:
   operation none 111, transpose 112; fill upper 121, lower 122; diagonal non-unit 131, unit 132;
   side left 141, right 142. */
#include "mock_blas.h"

enum { rocblas_status_success = 0, rocblas_status_invalid_handle = 1, rocblas_status_invalid_size = 4,
       rocblas_status_memory_error = 5, rocblas_status_internal_error = 6 };
int hipGetDevice(int *d);   /* the mock runtime's */
#define IS_T(x) ((x) == 112)
#define IS_UPPER(x) ((x) == 121)
#define IS_RIGHT(x) ((x) == 142)
#define IS_UNIT(x) ((x) == 132)
#define FAILED rocblas_status_internal_error
#define INVALID rocblas_status_invalid_size
#define CURRENT_DEVICE hipGetDevice

#if !defined(MOCK_ROCSOLVER)
__attribute__((destructor)) static void report(void) {
    report_handles("rocblas", "gemms", calls_of("rocblas_dgemm") + calls_of("rocblas_sgemm"));
}
MOCK_EXPORT int rocblas_create_handle(mock_handle **h) {
    INJECT(rocblas_status_memory_error);
    return handle_new(h, hipGetDevice) ? rocblas_status_internal_error : rocblas_status_success;
}
MOCK_EXPORT int rocblas_destroy_handle(mock_handle *h) { return handle_free(h) ? rocblas_status_invalid_handle : rocblas_status_success; }
MOCK_EXPORT int rocblas_set_stream(mock_handle *h, void *stream) {
    INJECT(rocblas_status_invalid_handle);
    return handle_stream(h, stream, hipGetDevice, "rocblas_set_stream");
}
MOCK_GEMM(rocblas_dgemm, double, 0)
MOCK_GEMM(rocblas_sgemm, float, 1)
MOCK_SYRK(rocblas_dsyrk, double, 0)
MOCK_SYRK(rocblas_ssyrk, float, 1)
MOCK_TRSM(rocblas_dtrsm, double, 0)
MOCK_TRSM(rocblas_strsm, float, 1)
MOCK_TRMM(rocblas_dtrmm, double, 0)
MOCK_TRMM(rocblas_strmm, float, 1)

#else /* MOCK_ROCSOLVER: on the mock librocblas's handles */
#define POTRF(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int uplo, int n, T *a, int lda, int *info) {                           \
        INJECT(FAILED);                                                                                         \
        check_handle(h, #NAME, hipGetDevice);                                                                   \
        op o = { .kind = OP_POTRF, .single = SINGLE, .upper = uplo == 121, .n = n, .lda = lda, .a = a, .info = info }; \
        if ((uplo != 121 && uplo != 122) || bad_sizes(&o)) return INVALID;                                      \
        queue_op(h, #NAME, &o, NULL, 0);                                                                        \
        return rocblas_status_success;                                                                          \
    }
POTRF(rocsolver_dpotrf, double, 0)
POTRF(rocsolver_spotrf, float, 1)
#define GETRF(NAME, T, SINGLE)                                                                                  \
    MOCK_EXPORT int NAME(mock_handle *h, int m, int n, T *a, int lda, int *ipiv, int *info) {                   \
        INJECT(FAILED);                                                                                         \
        check_handle(h, #NAME, hipGetDevice);                                                                   \
        op o = { .kind = OP_GETRF, .single = SINGLE, .m = m, .n = n, .lda = lda, .a = a, .ipiv = ipiv, .info = info }; \
        if (bad_sizes(&o)) return INVALID;                                                                      \
        queue_op(h, #NAME, &o, NULL, 0);                                                                        \
        return rocblas_status_success;                                                                          \
    }
GETRF(rocsolver_dgetrf, double, 0)
GETRF(rocsolver_sgetrf, float, 1)
#endif
