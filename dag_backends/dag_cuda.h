/* dag_cuda.h: the CUDA backend of dag.h (-DDAG_BACKEND_CUDA).

   Uses dag_gpu_stream.h (dag__gpu, its functions and DAG__GPU_OPS), and
   what it uses.

   Included only by dag_device.h, in dag.h's implementation. It calls the
   CUDA runtime, linked statically (-lcudart_static), which loads the driver lazily: a
   binary built with the flag runs where no driver exists, and the backend
   then reports itself unavailable with the runtime's own error (on a
   machine with the toolkit but no driver: cudaGetDeviceCount returned 35,
   cudaErrorInsufficientDriver).

   Kernels come from dag_kernels.h compiled by nvcc: a .cu file that
   includes the kernels, built with -DDAG_BACKEND_CUDA, defines for each
   kernel its __global__ function and a dag_native_kernel record; a kernel
   without one runs elsewhere, or as a library routine standing in for it
   (dag_blas.h binds cuBLAS and cuSOLVER; the routine gets a stream of the
   device). Streams (lanes), events, staging, pinning and peer copies are
   shared with HIP (dag_gpu_stream.h).
   Private names: dag__cuda_*.

   Build: cc -std=c11 -DDAG_BACKEND_CUDA -I/usr/local/cuda/include prog.c
          kernels_cuda.o -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -pthread -lstdc++

   Parts: >>cuda runtime calls
*/
/* dag_device.h includes every backend file: each compiles under its own flag alone */
#if DAG__ON(DAG_BACKEND_CUDA) && !defined(DAG_CUDA_H_INCLUDED)
#define DAG_CUDA_H_INCLUDED

#if defined(__has_include)
#if !__has_include(<cuda_runtime_api.h>)
#error "dag.h: -DDAG_BACKEND_CUDA needs the CUDA Toolkit: add -I/usr/local/cuda/include and link -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt"
#endif
#endif
#include <cuda_runtime_api.h>
#include "dag_gpu_stream.h"

/* >>cuda runtime calls: as dag__gpu_runtime takes them (error codes as
   int, streams and events as void *) */
static int dag__cuda_get_device_count(int *count) { return (int)cudaGetDeviceCount(count); }
static int dag__cuda_set_device(int ordinal) { return (int)cudaSetDevice(ordinal); }
static int dag__cuda_get_device(int *ordinal) { return (int)cudaGetDevice(ordinal); }
static int dag__cuda_can_access_peer(int *can, int ordinal, int peer) {
    return (int)cudaDeviceCanAccessPeer(can, ordinal, peer);
}
static int dag__cuda_enable_peer_access(int peer, unsigned flags) { return (int)cudaDeviceEnablePeerAccess(peer, flags); }
static int dag__cuda_stream_create(void **stream, unsigned flags) {
    cudaStream_t s = NULL;
    int e = (int)cudaStreamCreateWithFlags(&s, flags);
    *stream = s;
    return e;
}
static int dag__cuda_stream_destroy(void *stream) { return (int)cudaStreamDestroy((cudaStream_t)stream); }
static int dag__cuda_stream_synchronize(void *stream) { return (int)cudaStreamSynchronize((cudaStream_t)stream); }
static int dag__cuda_stream_wait_event(void *stream, void *event, unsigned flags) {
    return (int)cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, flags);
}
static int dag__cuda_event_create(void **event, unsigned flags) {
    cudaEvent_t ev = NULL;
    int e = (int)cudaEventCreateWithFlags(&ev, flags);
    *event = ev;
    return e;
}
static int dag__cuda_event_destroy(void *event) { return (int)cudaEventDestroy((cudaEvent_t)event); }
static int dag__cuda_event_record(void *event, void *stream) {
    return (int)cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
}
static int dag__cuda_event_query(void *event) { return (int)cudaEventQuery((cudaEvent_t)event); }
static int dag__cuda_event_synchronize(void *event) { return (int)cudaEventSynchronize((cudaEvent_t)event); }
static int dag__cuda_event_elapsed(float *ms, void *start, void *end) {
    return (int)cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end);
}
static int dag__cuda_rt_malloc(void **ptr, size_t bytes) { return (int)cudaMalloc(ptr, bytes); }
static int dag__cuda_rt_free(void *ptr) { return (int)cudaFree(ptr); }
static int dag__cuda_host_alloc(void **ptr, size_t bytes, unsigned flags) { return (int)cudaHostAlloc(ptr, bytes, flags); }
static int dag__cuda_free_host(void *ptr) { return (int)cudaFreeHost(ptr); }
static int dag__cuda_rt_host_register(void *ptr, size_t bytes, unsigned flags) {
    return (int)cudaHostRegister(ptr, bytes, flags);
}
static int dag__cuda_rt_host_unregister(void *ptr) { return (int)cudaHostUnregister(ptr); }
static int dag__cuda_memcpy(void *dst, const void *src, size_t bytes, int kind, void *stream) {
    return (int)cudaMemcpyAsync(dst, src, bytes, (enum cudaMemcpyKind)kind, (cudaStream_t)stream);
}
static int dag__cuda_memcpy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                               int kind, void *stream) {
    return (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, (enum cudaMemcpyKind)kind,
                                  (cudaStream_t)stream);
}
static int dag__cuda_memcpy_peer(void *dst, int dst_ordinal, const void *src, int src_ordinal, size_t bytes,
                                 void *stream) {
    return (int)cudaMemcpyPeerAsync(dst, dst_ordinal, src, src_ordinal, bytes, (cudaStream_t)stream);
}

/* dag_gpu_stream.h's constants are the runtime's */
_Static_assert(DAG__GPU_STREAM_NON_BLOCKING == cudaStreamNonBlocking && DAG__GPU_EVENT_DEFAULT == cudaEventDefault &&
               DAG__GPU_EVENT_DISABLE_TIMING == cudaEventDisableTiming &&
               DAG__GPU_HOST_ALLOC_PORTABLE == cudaHostAllocPortable &&
               DAG__GPU_HOST_REGISTER_PORTABLE == cudaHostRegisterPortable &&
               DAG__GPU_HOST_TO_DEVICE == (int)cudaMemcpyHostToDevice &&
               DAG__GPU_DEVICE_TO_HOST == (int)cudaMemcpyDeviceToHost &&
               DAG__GPU_ERROR_MEMORY_ALLOCATION == (int)cudaErrorMemoryAllocation &&
               DAG__GPU_ERROR_INVALID_PITCH_VALUE == (int)cudaErrorInvalidPitchValue &&
               DAG__GPU_ERROR_NOT_READY == (int)cudaErrorNotReady &&
               DAG__GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED == (int)cudaErrorPeerAccessAlreadyEnabled,
               "dag_gpu_stream.h's constants differ from the CUDA runtime's");

static int dag__cuda_device_info(int ordinal, char *name, size_t size, size_t *bytes) {
    struct cudaDeviceProp prop;
    int e = (int)cudaGetDeviceProperties(&prop, ordinal);
    if (e) return e;
    snprintf(name, size, "%.*s", (int)size - 1, prop.name);
    *bytes = prop.totalGlobalMem;
    return 0;
}

static const char *dag__cuda_error_text(int e, char *buf, size_t size) {
    snprintf(buf, size, "%s: %s", cudaGetErrorName((cudaError_t)e), cudaGetErrorString((cudaError_t)e));
    return buf;
}

static int dag__cuda_start_kernel(void *stream, void *kernel, size_t n, void **params);
static dag__gpu dag__cuda_gpu = {
    .rt = { .GetDeviceCount = dag__cuda_get_device_count, .SetDevice = dag__cuda_set_device,
            .GetDevice = dag__cuda_get_device, .DeviceCanAccessPeer = dag__cuda_can_access_peer,
            .DeviceEnablePeerAccess = dag__cuda_enable_peer_access, .StreamCreateWithFlags = dag__cuda_stream_create,
            .StreamDestroy = dag__cuda_stream_destroy, .StreamSynchronize = dag__cuda_stream_synchronize,
            .StreamWaitEvent = dag__cuda_stream_wait_event, .EventCreateWithFlags = dag__cuda_event_create,
            .EventDestroy = dag__cuda_event_destroy, .EventRecord = dag__cuda_event_record,
            .EventQuery = dag__cuda_event_query, .EventSynchronize = dag__cuda_event_synchronize,
            .EventElapsedTime = dag__cuda_event_elapsed, .Malloc = dag__cuda_rt_malloc, .Free = dag__cuda_rt_free,
            .HostAlloc = dag__cuda_host_alloc, .FreeHost = dag__cuda_free_host, .HostRegister = dag__cuda_rt_host_register,
            .HostUnregister = dag__cuda_rt_host_unregister, .MemcpyAsync = dag__cuda_memcpy,
            .Memcpy2DAsync = dag__cuda_memcpy_2d, .MemcpyPeerAsync = dag__cuda_memcpy_peer },
    .name = "CUDA",
    .short_name = "cuda",
    .device_info = dag__cuda_device_info,
    .error_text = dag__cuda_error_text,
    .start_kernel = dag__cuda_start_kernel,
};

static int dag__cuda_init(char *why, size_t why_size) { return dag__gpu_open_devices(&dag__cuda_gpu, why, why_size); }
static void dag__cuda_shutdown(void) { dag__gpu_close_devices(&dag__cuda_gpu); }

/* A kernel nvcc compiled. */
static bool dag__cuda_has_kernel(int dev, const dag_kernel_source *k) {
    (void)dev;
    const dag_native_kernel *nk = k->native[DAG_CUDA];
    return nk && nk->entry;
}

/* nvcc registered the kernel with the runtime when the program started:
   there is nothing to build, but the runtime loads the kernel's image for
   a device only at its first use, and a fatbinary with no image this GPU
   runs (cubins for other architectures and no PTX it can compile) would
   fail there, at the launch, with no CPU to fall back on.
   cudaFuncGetAttributes loads it now: such a kernel fails its build, with a
   message naming the GPU's architecture and the flag to add, and the
   device layer keeps the failure (a scope with the CPU runs it there). (The
   device layer builds only kernels that has_kernel accepts: a kernel with
   no build is placed elsewhere, or its spawn says how to build it.) */
static void dag__cuda_say_image(int dev, const dag_native_kernel *nk, int e, char *log, size_t log_size);
static int dag__cuda_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    const dag_native_kernel *nk = k->native[DAG_CUDA];
    *kernel = NULL;
    struct cudaFuncAttributes attr;
    int saved, e = dag__gpu_enter(&dag__cuda_gpu, dev, &saved);
    if (!e) e = (int)cudaFuncGetAttributes(&attr, nk->entry);
    if (e) dag__cuda_say_image(dev, nk, e, log, log_size);
    else *kernel = (void *)(uintptr_t)nk;   /* the record: launch finds the function in it */
    dag__gpu_leave(&dag__cuda_gpu, saved);
    return e;
}
static void dag__cuda_say_image(int dev, const dag_native_kernel *nk, int e, char *log, size_t log_size) {
    char text[160];
    int ordinal = dag__cuda_gpu.devices[dev].ordinal, major = 0, minor = 0;
    dag__cuda_error_text(e, text, sizeof text);
    if (e != (int)cudaErrorNoKernelImageForDevice && e != (int)cudaErrorInvalidDeviceFunction &&
        e != (int)cudaErrorUnsupportedPtxVersion) {
        snprintf(log, log_size, "cudaFuncGetAttributes(%s) returned %d (%s) on %s", nk->symbol, e, text,
                 dag__cuda_gpu.devices[dev].name);
        return;
    }
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal) != cudaSuccess)
        major = minor = 0;
    snprintf(log, log_size, "cudaFuncGetAttributes(%s) returned %d (%s) on %s, an sm_%d%d: the kernels' fatbinary has "
             "no image it runs; build them for it too: nvcc -gencode arch=compute_%d%d,code=sm_%d%d (CUDA_ARCHS in "
             "this project's Makefile), or with PTX (code=compute_XY) its driver compiles",
             nk->symbol, e, text, dag__cuda_gpu.devices[dev].name, major, minor, major, minor, major, minor);
}
static void dag__cuda_release_kernel(int dev, void *kernel) { (void)dev; (void)kernel; }

/* kernel: the record, naming nvcc's function */
static int dag__cuda_start_kernel(void *stream, void *kernel, size_t n, void **params) {
    const dag_native_kernel *nk = (const dag_native_kernel *)kernel;
    dim3 grid = { dag__gpu_blocks(n), 1, 1 }, block = { DAG__GPU_BLOCK, 1, 1 };
    return (int)cudaLaunchKernel(nk->entry, grid, block, params, 0, (cudaStream_t)stream);
}

/* gridDim.x is at most 2^31 - 1 blocks */
DAG__GPU_OPS(dag__cuda, dag__cuda_gpu, DAG_CUDA, "CUDA", "cuda", (size_t)0x7fffffff * DAG__GPU_BLOCK)

#endif /* DAG_BACKEND_CUDA, DAG_CUDA_H_INCLUDED */
