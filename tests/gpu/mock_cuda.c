/* A mock CUDA runtime (libcudart_mock.so) for testing dag_cuda.h without a
   GPU: a test binary links it instead of cudart_static. It is the mock HIP
   runtime (mock_hip.c, included whole: the same lazily run streams, events,
   device memory, peer rules, per-thread current device and host kernels,
   with the same checks) under the CUDA runtime's names and types, plus what
   CUDA has of its own:
   - what nvcc's objects call when the program starts and ends
     (__cudaRegisterFatBinary, __cudaRegisterFunction, ...): each kernel's
     host stub is recorded with its name;
   - cudaLaunchKernel, which finds the kernel by its stub and runs the host
     kernel of that name (mock_kernels.h) on the stream;
   - cudaGetDeviceProperties (name and memory), cudaRuntimeGetVersion (13.0).
   CUDA's own error codes equal HIP's for every one used here. Built with
   libcublas.so.13 (mock_cublas.c) beside it, which dag_blas.h loads. */
#include "mock_hip.c"
#include <cuda_runtime_api.h>

#define MOCK_CUDA_EXPORT __attribute__((visibility("default")))
#define H(e) ((cudaError_t)(e))
#define S(s) ((hipStream_t)(void *)(s))
#define E(e) ((hipEvent_t)(void *)(e))

MOCK_CUDA_EXPORT cudaError_t cudaGetDeviceCount(int *count) { return H(hipGetDeviceCount(count)); }
MOCK_CUDA_EXPORT cudaError_t cudaSetDevice(int d) { return H(hipSetDevice(d)); }
MOCK_CUDA_EXPORT cudaError_t cudaGetDevice(int *d) { return H(hipGetDevice(d)); }
MOCK_CUDA_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *can, int d, int p) { return H(hipDeviceCanAccessPeer(can, d, p)); }
MOCK_CUDA_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int p, unsigned int flags) {
    return H(hipDeviceEnablePeerAccess(p, flags));
}
MOCK_CUDA_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
    hipStream_t h = NULL;
    hipError_t e = hipStreamCreateWithFlags(&h, flags);
    *s = (cudaStream_t)(void *)h;
    return H(e);
}
MOCK_CUDA_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s) { return H(hipStreamDestroy(S(s))); }
MOCK_CUDA_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s) { return H(hipStreamSynchronize(S(s))); }
MOCK_CUDA_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
    return H(hipStreamWaitEvent(S(s), E(e), flags));
}
MOCK_CUDA_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
    hipEvent_t h = NULL;
    hipError_t r = hipEventCreateWithFlags(&h, flags);
    *e = (cudaEvent_t)(void *)h;
    return H(r);
}
MOCK_CUDA_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e) { return H(hipEventDestroy(E(e))); }
MOCK_CUDA_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return H(hipEventRecord(E(e), S(s))); }
MOCK_CUDA_EXPORT cudaError_t cudaEventQuery(cudaEvent_t e) { return H(hipEventQuery(E(e))); }
MOCK_CUDA_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t e) { return H(hipEventSynchronize(E(e))); }
MOCK_CUDA_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    return H(hipEventElapsedTime(ms, E(a), E(b)));
}
MOCK_CUDA_EXPORT cudaError_t cudaMalloc(void **p, size_t size) { return H(hipMalloc(p, size)); }
MOCK_CUDA_EXPORT cudaError_t cudaFree(void *p) { return H(hipFree(p)); }
MOCK_CUDA_EXPORT cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags) {
    return H(hipHostMalloc(p, size, flags));
}
MOCK_CUDA_EXPORT cudaError_t cudaFreeHost(void *p) { return H(hipHostFree(p)); }
MOCK_CUDA_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                             cudaStream_t s) {
    return H(hipMemcpyAsync(dst, src, bytes, (int)kind, S(s)));
}
MOCK_CUDA_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                               size_t height, enum cudaMemcpyKind kind, cudaStream_t s) {
    return H(hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, (int)kind, S(s)));
}
MOCK_CUDA_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t bytes,
                                                 cudaStream_t s) {
    return H(hipMemcpyPeerAsync(dst, dd, src, sd, bytes, S(s)));
}
MOCK_CUDA_EXPORT const char *cudaGetErrorName(cudaError_t e) { return hipGetErrorName((hipError_t)e); }
MOCK_CUDA_EXPORT const char *cudaGetErrorString(cudaError_t e) { return hipGetErrorString((hipError_t)e); }
MOCK_CUDA_EXPORT cudaError_t cudaRuntimeGetVersion(int *version) {
    *version = 13000;
    return cudaSuccess;
}
MOCK_CUDA_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int ordinal) {
    hipDevice_t d;
    memset(p, 0, sizeof *p);
    hipError_t e = hipDeviceGet(&d, ordinal);
    if (!e) e = hipDeviceGetName(p->name, (int)sizeof p->name, d);
    if (!e) e = hipDeviceTotalMem(&p->totalGlobalMem, d);
    return H(e);
}

/* >>kernels: nvcc's registration, and launches by host stub */
static struct { const void *stub; const char *name; } registered[256];
static int nregistered;
static hipModule_t device_module[MAX_DEV];   /* the host kernels, loaded per device on first launch */

MOCK_CUDA_EXPORT void **__cudaRegisterFatBinary(void *fat) { return (void **)fat; }
MOCK_CUDA_EXPORT void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
MOCK_CUDA_EXPORT void __cudaRegisterFunction(void **handle, const char *stub, char *device_fun, const char *name,
                                             int thread_limit, void *tid, void *bid, void *block, void *grid, int *warp) {
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid, (void)warp;
    if (nregistered == 256) FAIL("more than 256 kernels registered");
    registered[nregistered].stub = stub;
    registered[nregistered++].name = name;
}
/* At exit (nvcc registers it with atexit): the modules go, before the leak report. */
MOCK_CUDA_EXPORT void __cudaUnregisterFatBinary(void **handle) {
    (void)handle;
    for (int d = 0; d < MAX_DEV; d++)
        if (device_module[d]) hipModuleUnload(device_module[d]), device_module[d] = NULL;
}
/* Called only by a <<<>>> launch or a stub, which dag_cuda.h never makes. */
MOCK_CUDA_EXPORT void __cudaInitModule(void **handle) { (void)handle; }
MOCK_CUDA_EXPORT int __cudaPopCallConfiguration(void) { FAIL("a <<<>>> launch: dag_cuda.h makes none"); }
MOCK_CUDA_EXPORT int __cudaLaunchKernel(void) { FAIL("a kernel stub called: dag_cuda.h calls cudaLaunchKernel"); }
MOCK_CUDA_EXPORT int __cudaGetKernel(void) { FAIL("__cudaGetKernel: not used by dag_cuda.h"); }

MOCK_CUDA_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                              cudaStream_t s) {
    const char *name = NULL;
    for (int i = 0; i < nregistered && !name; i++)
        if (registered[i].stub == func) name = registered[i].name;
    if (!name) return cudaErrorInvalidDeviceFunction;
    int d = 0;
    hipError_t e = hipGetDevice(&d);
    if (!e && !device_module[d]) e = hipModuleLoadData(&device_module[d], "\177ELF mock code object");
    hipFunction_t f = NULL;
    if (!e) e = hipModuleGetFunction(&f, device_module[d], name);
    if (e == hipErrorNotFound) return cudaErrorInvalidDeviceFunction;
    if (!e) e = hipModuleLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shmem, S(s), args, NULL);
    return H(e);
}

/* For mock_cublas.c: dag_dgemm's host kernel on stream s, as cuBLAS would queue the routine. */
MOCK_CUDA_EXPORT int mock_cuda_launch_by_name(const char *name, unsigned long long items, void *stream, void **params) {
    int d = 0;
    hipError_t e = hipGetDevice(&d);
    if (!e && !device_module[d]) e = hipModuleLoadData(&device_module[d], "\177ELF mock code object");
    hipFunction_t f = NULL;
    if (!e) e = hipModuleGetFunction(&f, device_module[d], name);
    unsigned blocks = (unsigned)((items + 255) / 256);
    if (!e) e = hipModuleLaunchKernel(f, blocks ? blocks : 1, 1, 1, 256, 1, 1, 0, S(stream), params, NULL);
    return e;
}
