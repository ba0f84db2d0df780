/* dag_cuda.h: the CUDA backend of dag.h (-DDAG_BACKEND_CUDA).

   Included only by dag.h's implementation. It calls the CUDA runtime,
   linked statically (-lcudart_static), which loads the driver lazily: a
   binary built with the flag runs where no driver exists, and the backend
   then reports itself unavailable with the runtime's own error (on a
   machine with the toolkit but no driver: cudaGetDeviceCount returned 35,
   cudaErrorInsufficientDriver).

   Kernels come from dag_kernels.h compiled by nvcc: a .cu file that
   includes the kernels, built with -DDAG_BACKEND_CUDA, defines for each
   kernel its __global__ function and a dag_native_kernel record; a kernel
   without one runs elsewhere. Streams, events, staging and peer copies are
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
#define DAG__RT(x) cuda##x
#define DAG__RTT(x) cuda##x
#define DAG__RT_HOST_ALLOC(pp, bytes) (int)cudaHostAlloc((pp), (bytes), cudaHostAllocPortable)
#define DAG__RT_HOST_FREE(p) cudaFreeHost(p)
#include "dag_gpu_stream.h"
#undef DAG__GPU
#undef DAG__RT
#undef DAG__RTT
#undef DAG__RT_HOST_ALLOC
#undef DAG__RT_HOST_FREE

static int dag__cuda_init(char *why, size_t why_size) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        char text[160];
        if (e != cudaSuccess)
            snprintf(why, why_size, "cudaGetDeviceCount returned %d (%s)", (int)e, dag__cuda_error_text(e, text, sizeof text));
        else
            snprintf(why, why_size, "no CUDA device");
        return -1;
    }
    n = dag__cuda_open_devices(n, why, why_size);
    if (n > 0) snprintf(why, why_size, "%d CUDA device(s); device 1: %s", n, dag__cuda_g.devices[0].name);
    return n;
}

static void dag__cuda_shutdown(void) { dag__cuda_close_devices(); }

static bool dag__cuda_has_kernel(const dag_kernel_source *k) { return k->cuda && k->cuda->entry; }

/* nvcc registered the kernel with the runtime when the program started:
   there is nothing to build, only the function to name. */
static int dag__cuda_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    (void)dev;
    *kernel = NULL;
    if (!dag__cuda_has_kernel(k)) {
        snprintf(log, log_size, "kernel '%s' has no CUDA build: compile the file that defines it with nvcc "
                 "-DDAG_BACKEND_CUDA and link that object", k->name);
        return -1;
    }
    *kernel = (void *)(uintptr_t)k->cuda->entry;
    return 0;
}
static void dag__cuda_release_kernel(int dev, void *kernel) { (void)dev; (void)kernel; }

static int dag__cuda_launch(int dev, void *kernel, size_t n, const dag__karg *args, int num_args, void **done) {
    void *params[DAG__MAX_PARAMS + 1];
    unsigned long long range;
    dag__cuda_kernel_params(params, &range, n, args, num_args);
    dag__cuda_event *ev;
    int e = dag__cuda_launch_begin(dev, done, &ev);
    if (e) return e;
    dim3 grid = { dag__cuda_blocks(n), 1, 1 }, block = { DAG__GPU_BLOCK, 1, 1 };
    e = (int)cudaLaunchKernel(kernel, grid, block, params, 0, dag__cuda_g.devices[dev].stream);
    return dag__cuda_launch_end(dev, e, done, ev);
}

static const dag__device_ops dag__cuda_ops = {
    DAG_CUDA, "CUDA", "cuda", dag__cuda_init, dag__cuda_shutdown, dag__cuda_alloc, dag__cuda_free, dag__cuda_copy,
    dag__cuda_peer_copy, dag__cuda_has_kernel, dag__cuda_build, dag__cuda_release_kernel, dag__cuda_launch,
    dag__cuda_wait, dag__cuda_query, dag__cuda_elapsed, dag__cuda_release, dag__cuda_synchronize, dag__cuda_memory,
    dag__cuda_device_name,
};

#endif /* DAG_CUDA_H_INCLUDED */
