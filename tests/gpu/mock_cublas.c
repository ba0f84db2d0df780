/* A mock libcublas.so.13 (and, built with -DMOCK_CUBLAS_MAJOR=12, libcublas.so.12: which one
   dag_blas.h loaded, mock_cublas_major says) beside the mock CUDA runtime (mock_cuda.c): the
   routines dag_blas.h calls (gemm, syrk, trsm, trmm; double and float), each checked and queued on
   the handle's stream as cuBLAS queues it (mock_blas.h), so that it runs in order with the copies
   around it. A handle is made on a device and must be used there (the current device at each
   call, as cuBLAS asks). Injected failures: the mock runtime's (mock_fail.h). */
#include "mock_blas.h"

#ifndef MOCK_CUBLAS_MAJOR
#define MOCK_CUBLAS_MAJOR 13
#endif
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
       CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_EXECUTION_FAILED = 13 };
int cudaGetDevice(int *d);   /* the mock runtime's */
/* cuBLAS's enums: CUBLAS_OP_N 0, T 1; FILL_MODE_LOWER 0, UPPER 1; SIDE_LEFT 0, RIGHT 1; DIAG_NON_UNIT 0, UNIT 1 */
#define IS_T(x) ((x) == 1)
#define IS_UPPER(x) ((x) == 1)
#define IS_RIGHT(x) ((x) == 1)
#define IS_UNIT(x) ((x) == 1)
#define FAILED CUBLAS_STATUS_EXECUTION_FAILED
#define INVALID CUBLAS_STATUS_INVALID_VALUE
#define CURRENT_DEVICE cudaGetDevice

MOCK_EXPORT int mock_cublas_major(void) { return MOCK_CUBLAS_MAJOR; }
__attribute__((destructor)) static void report(void) {
    char lib[32];
    snprintf(lib, sizeof lib, "cublas %d", MOCK_CUBLAS_MAJOR);
    report_handles(lib, "gemms", calls_of("cublasDgemm_v2") + calls_of("cublasSgemm_v2"));
}
MOCK_EXPORT int cublasCreate_v2(mock_handle **h) {
    INJECT(CUBLAS_STATUS_ALLOC_FAILED);
    return handle_new(h, cudaGetDevice) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS;
}
MOCK_EXPORT int cublasDestroy_v2(mock_handle *h) { return handle_free(h) ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS; }
MOCK_EXPORT int cublasSetStream_v2(mock_handle *h, void *stream) {
    INJECT(CUBLAS_STATUS_NOT_INITIALIZED);
    return handle_stream(h, stream, cudaGetDevice, "cublasSetStream_v2");
}
MOCK_GEMM(cublasDgemm_v2, double, 0)
MOCK_GEMM(cublasSgemm_v2, float, 1)
MOCK_SYRK(cublasDsyrk_v2, double, 0)
MOCK_SYRK(cublasSsyrk_v2, float, 1)
MOCK_TRSM(cublasDtrsm_v2, double, 0)
MOCK_TRSM(cublasStrsm_v2, float, 1)
MOCK_TRMM(cublasDtrmm_v2, double, 0)
MOCK_TRMM(cublasStrmm_v2, float, 1)
