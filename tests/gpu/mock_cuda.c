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
   - cudaGetDeviceProperties (name and memory), cudaRuntimeGetVersion (13.0, or
     MOCK_CUDA_RUNTIME_VERSION), cudaDeviceGetAttribute
     (the compute capability), cudaFuncGetAttributes;
   - nvcc's per-architecture images: the mock GPU is an sm_90 (MOCK_CUDA_ARCH=sm_XY), and a kernel
     whose fatbinary has no cubin or PTX it runs fails with cudaErrorNoKernelImageForDevice, at
     cudaFuncGetAttributes and at launch, as the driver's loader does.
   CUDA's own error codes equal HIP's for every one used here. Built with
   libcublas.so.13 and .12 (mock_cublas.c) beside it, of which dag_blas.h loads the runtime's major. */
#define MOCK_CUDA 1   /* mock_hip.c's launch checks CUDA's grid rule, not HIP's */
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
MOCK_CUDA_EXPORT cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags) {
    return H(hipHostRegister(p, size, flags));
}
MOCK_CUDA_EXPORT cudaError_t cudaHostUnregister(void *p) { return H(hipHostUnregister(p)); }
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
/* 13000 (CUDA 13.0), or MOCK_CUDA_RUNTIME_VERSION: dag_blas.h loads the cuBLAS of its major */
MOCK_CUDA_EXPORT cudaError_t cudaRuntimeGetVersion(int *version) {
    const char *v = getenv("MOCK_CUDA_RUNTIME_VERSION");
    *version = v && *v ? atoi(v) : 13000;
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

/* >>architectures: the mock GPU is an sm_XY (MOCK_CUDA_ARCH, sm_90 unless set). As the driver,
   it runs a cubin of its major and a minor up to its own, or compiles PTX of a compute capability
   up to its own; a fatbinary with neither has no image for it (cudaErrorNoKernelImageForDevice). */
static int mock_arch(void) {
    const char *a = getenv("MOCK_CUDA_ARCH");
    return a && !strncmp(a, "sm_", 3) ? atoi(a + 3) : 90;
}
/* nvcc's fatbinary: a wrapper (magic 0x466243b1) pointing at a header (magic 0xba55ed50, its
   size at 4, the entries' bytes at 8), then entries: kind at 0 (1 PTX, 2 cubin), header size at
   4, payload size at 8, the architecture (as 90) at 28. */
static int fatbin_runs_on(const void *fat, int arch) {
    const struct { uint32_t magic, version; const unsigned char *data; void *rest; } *w = fat;
    if (!w || w->magic != 0x466243b1u) FAIL("not nvcc's fatbinary wrapper");
    uint32_t magic;
    uint16_t header;
    uint64_t size;
    memcpy(&magic, w->data, 4), memcpy(&header, w->data + 6, 2), memcpy(&size, w->data + 8, 8);
    if (magic != 0xba55ed50u) FAIL("not a fatbinary");
    for (const unsigned char *e = w->data + header, *end = e + size; e + 32 <= end;) {
        uint16_t kind;
        uint32_t eh, a;
        uint64_t payload;
        memcpy(&kind, e, 2), memcpy(&eh, e + 4, 4), memcpy(&payload, e + 8, 8), memcpy(&a, e + 28, 4);
        if ((kind == 2 && a / 10 == (uint32_t)arch / 10 && a <= (uint32_t)arch) || (kind == 1 && a <= (uint32_t)arch))
            return 1;
        if (eh == 0) break;
        e += eh + payload;
    }
    return 0;
}

/* >>kernels: nvcc's registration, and launches by host stub */
static struct { const void *stub; const char *name; const void *fat; } registered[256];
static int nregistered;
static hipModule_t device_module[MAX_DEV];   /* the host kernels, loaded per device on first launch */

MOCK_CUDA_EXPORT void **__cudaRegisterFatBinary(void *fat) { return (void **)fat; }
MOCK_CUDA_EXPORT void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
MOCK_CUDA_EXPORT void __cudaRegisterFunction(void **handle, const char *stub, char *device_fun, const char *name,
                                             int thread_limit, void *tid, void *bid, void *block, void *grid, int *warp) {
    (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid, (void)warp;
    if (nregistered == 256) FAIL("more than 256 kernels registered");
    registered[nregistered].stub = stub;
    registered[nregistered].fat = handle;
    registered[nregistered++].name = name;
}
/* The kernel of a host stub: 0, cudaErrorInvalidDeviceFunction (not registered) or
   cudaErrorNoKernelImageForDevice (no image for the mock GPU's architecture). */
static cudaError_t find_kernel(const void *stub, const char **name) {
    for (int i = 0; i < nregistered; i++)
        if (registered[i].stub == stub) {
            *name = registered[i].name;
            return fatbin_runs_on(registered[i].fat, mock_arch()) ? cudaSuccess : cudaErrorNoKernelImageForDevice;
        }
    return cudaErrorInvalidDeviceFunction;
}
/* Loads the kernel's image on the current device, as the runtime does at a first use. */
MOCK_CUDA_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    INJECT(cudaErrorInvalidDeviceFunction);
    const char *name = NULL;
    cudaError_t e = find_kernel(func, &name);
    if (e) return e;
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = attr->binaryVersion = mock_arch();
    return cudaSuccess;
}
MOCK_CUDA_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    INJECT(cudaErrorInvalidDevice);
    int count = 0;
    if (hipGetDeviceCount(&count) || device < 0 || device >= count) return cudaErrorInvalidDevice;
    switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *value = mock_arch() / 10; return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor: *value = mock_arch() % 10; return cudaSuccess;
    case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; return cudaSuccess;
    case cudaDevAttrMaxBlockDimX: *value = 1024; return cudaSuccess;
    default: return cudaErrorInvalidValue;
    }
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
    cudaError_t found = find_kernel(func, &name);
    if (found) return found;
    /* CUDA's rule (the mock HIP's launch, MOCK_CUDA, checks it too): gridDim.x < 2^31 */
    if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535 || block.x * block.y * block.z > 1024)
        FAIL("%s: grid %u,%u,%u block %u,%u,%u is past CUDA's limits", name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    int d = 0;
    hipError_t e = hipGetDevice(&d);
    if (!e && !device_module[d]) e = hipModuleLoadData(&device_module[d], "\177ELF mock code object");
    hipFunction_t f = NULL;
    if (!e) e = hipModuleGetFunction(&f, device_module[d], name);
    if (e == hipErrorNotFound) return cudaErrorInvalidDeviceFunction;
    if (!e) e = hipModuleLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shmem, S(s), args, NULL);
    return H(e);
}

/* A program's own wait for the current device (bench/gpu_array.c's vendor side): every stream of it. */
MOCK_CUDA_EXPORT cudaError_t cudaDeviceSynchronize(void) {
    INJECT(cudaErrorUnknown);
    GUARD;
    sync_device(current);
    return cudaSuccess;
}
MOCK_CUDA_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
/* Stream-ordered allocation (cuSOLVER's workspace in dag_blas.h): the mock HIP's. */
MOCK_CUDA_EXPORT cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t s) { return H(hipMallocAsync(p, size, S(s))); }
MOCK_CUDA_EXPORT cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return H(hipFreeAsync(p, S(s))); }
