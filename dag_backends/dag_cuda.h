/* dag_cuda.h: the CUDA backend of dag.h (-DDAG_BACKEND_CUDA).

   Uses what dag_gpu_stream.h uses (see there); from dag_device.h, the
   loader helpers dag__dl_bind, dag__dl_symbol and DAG__DL_COUNT (for
   cuBLAS); from dag.h, DAG__WEAK_DEFINITION, dag_log and
   dag__g.desc.no_vendor_blas (cuBLAS on or off).

   Included only by dag_device.h, in dag.h's implementation. It calls the
   CUDA runtime, linked statically (-lcudart_static), which loads the driver lazily: a
   binary built with the flag runs where no driver exists, and the backend
   then reports itself unavailable with the runtime's own error (on a
   machine with the toolkit but no driver: cudaGetDeviceCount returned 35,
   cudaErrorInsufficientDriver).

   Kernels come from dag_kernels.h compiled by nvcc: a .cu file that
   includes the kernels, built with -DDAG_BACKEND_CUDA, defines for each
   kernel its __global__ function and a dag_native_kernel record; a kernel
   without one runs elsewhere. dag_blas.h's tile kernels call cuBLAS
   instead (libcublas loaded at run time). Streams, events, staging and peer copies are
   shared with HIP (dag_gpu_stream.h). Private names: dag__cuda_*.

   Build: cc -std=c11 -DDAG_BACKEND_CUDA -I/usr/local/cuda/include prog.c
          kernels_cuda.o -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -pthread -lstdc++
*/
#ifndef DAG_CUDA_H_INCLUDED
#define DAG_CUDA_H_INCLUDED

#if defined(__has_include)
#if !__has_include(<cuda_runtime_api.h>)
#error "dag.h: -DDAG_BACKEND_CUDA needs the CUDA Toolkit: add -I/usr/local/cuda/include and link -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt"
#endif
#endif
#include <cuda_runtime_api.h>
#include <cublas_api.h>

static int dag__cuda_device_info(int dev, char *name, size_t size, size_t *bytes) {
    struct cudaDeviceProp prop;
    int e = (int)cudaGetDeviceProperties(&prop, dev);
    if (e) return e;
    snprintf(name, size, "%.*s", (int)size - 1, prop.name);
    *bytes = prop.totalGlobalMem;
    return 0;
}

static const char *dag__cuda_error_text(int e, char *buf, size_t size) {
    snprintf(buf, size, "%s: %s", cudaGetErrorName((cudaError_t)e), cudaGetErrorString((cudaError_t)e));
    return buf;
}

#define DAG__GPU(x) dag__cuda_##x
#define DAG__GPU_BACKEND DAG_CUDA
#define DAG__GPU_NAME "CUDA"
#define DAG__GPU_SHORT "cuda"
/* gridDim.x is at most 2^31 - 1 blocks */
#define DAG__GPU_MAX_ITEMS ((size_t)0x7fffffff * DAG__GPU_BLOCK)
#define DAG__RT(x) cuda##x
#define DAG__RTT(x) cuda##x
#define DAG__RT_HOST_ALLOC(pp, bytes) (int)cudaHostAlloc((pp), (bytes), cudaHostAllocPortable)
#define DAG__RT_HOST_FREE(p) cudaFreeHost(p)
#include "dag_gpu_stream.h"   /* it undefines these when it ends */

/* >>cublas: loaded at run time (the toolkit ships it only as a shared
   library) when dag_setup finds CUDA devices, so later lookups only read;
   a handle per device, made on first use and bound to the device's stream. */
#define DAG__CUBLAS_SYMBOLS(X) \
    X(cublasCreate_v2, (cublasHandle_t *)) \
    X(cublasDestroy_v2, (cublasHandle_t)) \
    X(cublasSetStream_v2, (cublasHandle_t, cudaStream_t)) \
    X(cublasDgemm_v2, (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *, \
                       const double *, int, const double *, int, const double *, double *, int)) \
    X(cublasSgemm_v2, (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *, \
                       const float *, int, const float *, int, const float *, float *, int))
#define DAG__CUBLAS_FIELD(name, args) cublasStatus_t (*name) args;
static struct {
    int tried;                                   /* 1: loaded, -1: not to be had */
    void *lib;
    struct { DAG__CUBLAS_SYMBOLS(DAG__CUBLAS_FIELD) } api;
    cublasHandle_t handle[DAG__GPU_MAX_DEVICES];
} dag__cublas;

/* cuBLAS of the CUDA runtime's own major version first (libcublas.so.13 for
   CUDA 13): another major's may need a newer driver or differ in ABI. */
static void dag__cublas_load(void) {
    static const char *const names[] = { "libcublas.so.13", "libcublas.so.12", "libcublas.so" };
    if (dag__cublas.tried) return;
    dag__cublas.tried = -1;
    int version = 0;
    char own[32];
    if (cudaRuntimeGetVersion(&version) == cudaSuccess && version >= 1000) {
        snprintf(own, sizeof own, "libcublas.so.%d", version / 1000);
        dag__cublas.lib = dlopen(own, RTLD_NOW | RTLD_LOCAL);
    }
    for (size_t i = 0; !dag__cublas.lib && i < sizeof names / sizeof names[0]; i++)
        dag__cublas.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!dag__cublas.lib) {
        dag_log(DAG_LOG_INFO, DAG_OK, "CUDA: cuBLAS unavailable (%s): its kernels run elsewhere", dlerror());
        return;
    }
#define DAG__CUBLAS_SLOT(name, args) { #name, &dag__cublas.api.name },
    const dag__dl_symbol symbols[] = { DAG__CUBLAS_SYMBOLS(DAG__CUBLAS_SLOT) };
#undef DAG__CUBLAS_SLOT
    char why[128];
    if (dag__dl_bind(dag__cublas.lib, "libcublas", symbols, DAG__DL_COUNT(symbols), why, sizeof why)) dag__cublas.tried = 1;
    else dag_log(DAG_LOG_INFO, DAG_OK, "CUDA: cuBLAS unavailable (%s): its kernels run elsewhere", why);
}

static cublasHandle_t dag__cublas_handle(int dev) {
    if (!dag__cublas.handle[dev] && dag__cublas.api.cublasCreate_v2(&dag__cublas.handle[dev]) != CUBLAS_STATUS_SUCCESS)
        dag__cublas.handle[dev] = NULL;
    if (dag__cublas.handle[dev]) dag__cublas.api.cublasSetStream_v2(dag__cublas.handle[dev], dag__cuda_g.devices[dev].stream);
    return dag__cublas.handle[dev];
}

/* dag_dgemm and dag_sgemm (dag_blas.h): their arguments as the kernels declare them. */
#define DAG__CUBLAS_GEMM(NAME, T, ROUTINE)                                                                        \
    static int dag__cublas_##NAME(int dev, void *const *p) {                                                     \
        cublasHandle_t h = dag__cublas_handle(dev);                                                              \
        if (!h) return (int)CUBLAS_STATUS_NOT_INITIALIZED;                                                       \
        return (int)dag__cublas.api.ROUTINE(h, *(int *)p[1] ? CUBLAS_OP_T : CUBLAS_OP_N,                        \
                                            *(int *)p[2] ? CUBLAS_OP_T : CUBLAS_OP_N, *(int *)p[3], *(int *)p[4], \
                                            *(int *)p[5], (const T *)p[6], *(const T *const *)p[7], *(int *)p[8], \
                                            *(const T *const *)p[9], *(int *)p[10], (const T *)p[11],           \
                                            *(T *const *)p[12], *(int *)p[13]);                                  \
    }                                                                                                            \
    /* the record the kernel looks for (weak: a build may bring its own) */                                      \
    DAG__WEAK_DEFINITION const dag_native_kernel NAME##__cuda = { #ROUTINE, 0, 0, 0, dag__cublas_##NAME };
DAG__CUBLAS_GEMM(dag_dgemm, double, cublasDgemm_v2)
DAG__CUBLAS_GEMM(dag_sgemm, float, cublasSgemm_v2)
#undef DAG__CUBLAS_GEMM

static int dag__cuda_init(char *why, size_t why_size) {
    int n = dag__cuda_open_devices(why, why_size);
    if (n > 0 && !dag__g.desc.no_vendor_blas) dag__cublas_load();
    return n;
}

static void dag__cuda_shutdown(void) {
    int saved = -1;
    if (dag__cuda_g.num) dag__cuda_enter_any(&saved);
    for (int d = 0; d < dag__cuda_g.num; d++)
        if (dag__cublas.handle[d]) {
            dag__cuda_use(d);
            dag__cublas.api.cublasDestroy_v2(dag__cublas.handle[d]);
            dag__cublas.handle[d] = NULL;
        }
    dag__cuda_leave(saved);
    dag__cuda_close_devices();
}

/* A kernel nvcc compiled, or a library routine that loads. */
static bool dag__cuda_has_kernel(const dag_kernel_source *k) {
    return k->cuda && (k->cuda->entry || (k->cuda->call && dag__cublas.tried > 0 && !dag__g.desc.no_vendor_blas));
}

/* nvcc registered the kernel with the runtime when the program started:
   there is nothing to build, only the function to name. (The device layer
   builds only kernels that has_kernel accepts: a kernel with no build is
   placed elsewhere, or its spawn says how to build it.) */
static int dag__cuda_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    (void)dev;
    (void)log;
    (void)log_size;
    *kernel = (void *)(uintptr_t)k->cuda;   /* the record: launch finds the function or the routine in it */
    return 0;
}
static void dag__cuda_release_kernel(int dev, void *kernel) { (void)dev; (void)kernel; }

/* kernel: the record, naming nvcc's function or a library routine */
static int dag__cuda_start_kernel(int dev, void *kernel, size_t n, void **params) {
    const dag_native_kernel *nk = (const dag_native_kernel *)kernel;
    if (nk->call) return nk->call(dev, params);
    dim3 grid = { dag__cuda_blocks(n), 1, 1 }, block = { DAG__GPU_BLOCK, 1, 1 };
    return (int)cudaLaunchKernel(nk->entry, grid, block, params, 0, dag__cuda_g.devices[dev].stream);
}

#endif /* DAG_CUDA_H_INCLUDED */
