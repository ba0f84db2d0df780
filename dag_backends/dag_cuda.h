/* dag_cuda.h: the CUDA backend of dag.h (-DDAG_BACKEND_CUDA).

   Uses what dag_gpu_stream.h uses (see there).

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
   (dag_blas.h binds cuBLAS; the routine gets the device's stream). Streams,
   events, staging and peer copies are shared with HIP (dag_gpu_stream.h).
   Private names: dag__cuda_*.

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

static int dag__cuda_init(char *why, size_t why_size) { return dag__cuda_open_devices(why, why_size); }
static void dag__cuda_shutdown(void) { dag__cuda_close_devices(); }

/* A kernel nvcc compiled. */
static bool dag__cuda_has_kernel(const dag_kernel_source *k) { return k->cuda && k->cuda->entry; }

/* nvcc registered the kernel with the runtime when the program started:
   there is nothing to build, only the function to name. (The device layer
   builds only kernels that has_kernel accepts: a kernel with no build is
   placed elsewhere, or its spawn says how to build it.) */
static int dag__cuda_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    (void)dev;
    (void)log;
    (void)log_size;
    *kernel = (void *)(uintptr_t)k->cuda;   /* the record: launch finds the function in it */
    return 0;
}
static void dag__cuda_release_kernel(int dev, void *kernel) { (void)dev; (void)kernel; }

/* kernel: the record, naming nvcc's function */
static int dag__cuda_start_kernel(int dev, void *kernel, size_t n, void **params) {
    const dag_native_kernel *nk = (const dag_native_kernel *)kernel;
    dim3 grid = { dag__cuda_blocks(n), 1, 1 }, block = { DAG__GPU_BLOCK, 1, 1 };
    return (int)cudaLaunchKernel(nk->entry, grid, block, params, 0, dag__cuda_g.devices[dev].stream);
}

#endif /* DAG_CUDA_H_INCLUDED */
