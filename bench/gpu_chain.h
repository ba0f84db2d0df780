/* bench/gpu_chain.h: a chain of K small kernels (v[i] += 1 over n floats)
   with the copy in and the copy back, raw against dag.h, for CUDA and HIP;
   bench/gpu_chain.c runs it alone, bench/gpu_array.c beside the arrays'.

   The raw side queues a copy, K launches and a copy back on one stream of
   its own, then waits for the stream; the dag.h side is
       DAG_DATADEPS { K x dag_spawn(DAG_LAUNCH(gpu_inc, n), InOut(v, n)); }
   with the device in scope. Both launch the same build of the kernel
   (tests/gpu/kernels.h: gpu_inc__cuda, gpu_inc__hip, the public records of
   the kernels' builds), and use nothing of dag.h but its public API: the
   raw CUDA side calls the CUDA runtime the program links, the raw HIP side
   loads libamdhip64 itself. Rounds alternate between the sides; the
   median of each is printed with the ratio dag/raw. Include it after
   dag.h's implementation and tests/gpu/kernels.h. */
#ifndef GPU_CHAIN_H
#define GPU_CHAIN_H
#include <dlfcn.h>
#include "bench_common.h"

static int gpu_chain_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One raw side: a device buffer of `have` floats on the first device and a stream of its own. */
typedef struct gpu_chain_raw {
    const char *name;
    double (*run)(struct gpu_chain_raw *r, float *v, size_t n, int k);
    void (*release)(struct gpu_chain_raw *r);
    void *buf, *stream, *module, *function;
    size_t have;
} gpu_chain_raw;

#if defined(DAG_BACKEND_CUDA)
/* ---- raw CUDA: cudaMalloc, cudaMemcpyAsync and cudaLaunchKernel on a stream of its own */
static double gpu_chain_cuda(gpu_chain_raw *r, float *v, size_t n, int k) {
    cudaSetDevice(0);
    if (!r->stream) cudaStreamCreateWithFlags((cudaStream_t *)&r->stream, cudaStreamNonBlocking);
    if (r->have < n) {
        if (r->buf) cudaFree(r->buf);
        cudaMalloc(&r->buf, n * sizeof(float));
        r->have = n;
    }
    cudaStream_t s = (cudaStream_t)r->stream;
    double t0 = now_s();
    cudaMemcpyAsync(r->buf, v, n * sizeof(float), cudaMemcpyHostToDevice, s);
    unsigned long long range = n;
    void *params[2] = { &range, &r->buf };
    dim3 grid = { (unsigned)((n + 255) / 256), 1, 1 }, block = { 256, 1, 1 };
    for (int i = 0; i < k; i++) cudaLaunchKernel(gpu_inc__cuda.entry, grid, block, params, 0, s);
    cudaMemcpyAsync(v, r->buf, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return now_s() - t0;
}
static void gpu_chain_cuda_release(gpu_chain_raw *r) {
    if (r->buf) cudaFree(r->buf);
    if (r->stream) cudaStreamDestroy((cudaStream_t)r->stream);
}
#endif

#if defined(DAG_BACKEND_HIP)
/* ---- raw HIP: the same calls, from libamdhip64 loaded here (HIP's names, handles as pointers) */
static struct {
    void *lib;
    int (*set_device)(int);
    int (*stream_create)(void **, unsigned);
    int (*stream_destroy)(void *);
    int (*stream_synchronize)(void *);
    int (*malloc)(void **, size_t);
    int (*free)(void *);
    int (*memcpy_async)(void *, const void *, size_t, int, void *);
    int (*module_load)(void **, const void *);
    int (*module_unload)(void *);
    int (*get_function)(void **, void *, const char *);
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
} gpu_chain_hip_api;
static bool gpu_chain_hip_load(void) {
    static const char *const libs[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so" };
    static const char *const names[] = { "hipSetDevice", "hipStreamCreateWithFlags", "hipStreamDestroy", "hipStreamSynchronize",
                                         "hipMalloc", "hipFree", "hipMemcpyAsync", "hipModuleLoadData", "hipModuleUnload",
                                         "hipModuleGetFunction", "hipModuleLaunchKernel" };
    void *const slots[] = { &gpu_chain_hip_api.set_device, &gpu_chain_hip_api.stream_create, &gpu_chain_hip_api.stream_destroy,
                            &gpu_chain_hip_api.stream_synchronize, &gpu_chain_hip_api.malloc, &gpu_chain_hip_api.free,
                            &gpu_chain_hip_api.memcpy_async, &gpu_chain_hip_api.module_load, &gpu_chain_hip_api.module_unload,
                            &gpu_chain_hip_api.get_function, &gpu_chain_hip_api.launch };
    for (size_t i = 0; !gpu_chain_hip_api.lib && i < sizeof libs / sizeof libs[0]; i++)
        gpu_chain_hip_api.lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; gpu_chain_hip_api.lib && i < sizeof names / sizeof names[0]; i++) {
        void *p = dlsym(gpu_chain_hip_api.lib, names[i]);
        if (!p) return false;
        memcpy(slots[i], &p, sizeof p);
    }
    return gpu_chain_hip_api.lib != NULL;
}
static double gpu_chain_hip(gpu_chain_raw *r, float *v, size_t n, int k) {
    gpu_chain_hip_api.set_device(0);
    if (!r->stream) gpu_chain_hip_api.stream_create(&r->stream, 1 /* hipStreamNonBlocking */);
    if (!r->function) {
        gpu_chain_hip_api.module_load(&r->module, gpu_inc__hip.image);
        gpu_chain_hip_api.get_function(&r->function, r->module, gpu_inc__hip.symbol);
    }
    if (r->have < n) {
        if (r->buf) gpu_chain_hip_api.free(r->buf);
        gpu_chain_hip_api.malloc(&r->buf, n * sizeof(float));
        r->have = n;
    }
    double t0 = now_s();
    gpu_chain_hip_api.memcpy_async(r->buf, v, n * sizeof(float), 1 /* hipMemcpyHostToDevice */, r->stream);
    unsigned long long range = n;
    void *params[2] = { &range, &r->buf };
    for (int i = 0; i < k; i++)
        gpu_chain_hip_api.launch(r->function, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, r->stream, params, NULL);
    gpu_chain_hip_api.memcpy_async(v, r->buf, n * sizeof(float), 2 /* hipMemcpyDeviceToHost */, r->stream);
    gpu_chain_hip_api.stream_synchronize(r->stream);
    return now_s() - t0;
}
static void gpu_chain_hip_release(gpu_chain_raw *r) {
    if (r->module) gpu_chain_hip_api.module_unload(r->module);
    if (r->buf) gpu_chain_hip_api.free(r->buf);
    if (r->stream) gpu_chain_hip_api.stream_destroy(r->stream);
}
#endif

/* The raw side for backend b, or false (not built with it, or HIP's library does not load). */
static bool gpu_chain_raw_for(dag_backend b, gpu_chain_raw *r) {
    memset(r, 0, sizeof *r);
#if defined(DAG_BACKEND_CUDA)
    if (b == DAG_CUDA) r->name = "CUDA", r->run = gpu_chain_cuda, r->release = gpu_chain_cuda_release;
#endif
#if defined(DAG_BACKEND_HIP)
    if (b == DAG_HIP && gpu_chain_hip_load()) r->name = "HIP", r->run = gpu_chain_hip, r->release = gpu_chain_hip_release;
#endif
    return r->run != NULL;
}

static double gpu_chain_dag(dag_backend b, float *v, size_t n, int k) {
    dag_options o;
    memset(&o, 0, sizeof o);
    dag_scope_part(&o.scope, b)->one = 1;
    double t0 = now_s();
    DAG_DATADEPS {
        for (int i = 0; i < k; i++) dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, n), InOut(v, n));
    }
    return now_s() - t0;
}

/* Both sides, `rounds` times each, interleaved; prints the medians and their ratio. Returns
   dag/raw, or 0 when a result was wrong. */
static double gpu_chain_compare(dag_backend b, gpu_chain_raw *raw, size_t n, int k, int rounds, const char *what) {
    float *v = (float *)calloc(n, sizeof(float));
    double tr[64], td[64];
    for (int w = 0; w < 3; w++) {   /* warm-up: both sides load the kernel, the clocks of CPU and GPU rise */
        raw->run(raw, v, n, k);
        gpu_chain_dag(b, v, n, k);
    }
    if (rounds > 64) rounds = 64;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) v[i] = 0;
        tr[r] = raw->run(raw, v, n, k);
        int ok = v[0] == (float)k && v[n - 1] == (float)k;
        for (size_t i = 0; i < n; i++) v[i] = 0;
        td[r] = gpu_chain_dag(b, v, n, k);
        if (!ok || v[0] != (float)k || v[n - 1] != (float)k) {
            printf("%s %s: wrong result in round %d\n", raw->name, what, r);
            free(v);
            return 0;
        }
    }
    qsort(tr, (size_t)rounds, sizeof *tr, gpu_chain_cmp);
    qsort(td, (size_t)rounds, sizeof *td, gpu_chain_cmp);
    double mr = tr[rounds / 2], md = td[rounds / 2];
    printf("%s %s: %d kernels over %zu floats, median of %d interleaved rounds:\n"
           "  raw %.3f ms (%.2f us/kernel)   dag.h %.3f ms (%.2f us/kernel)   dag/raw %.2fx\n",
           raw->name, what, k, n, rounds, mr * 1e3, mr * 1e6 / k, md * 1e3, md * 1e6 / k, md / mr);
    free(v);
    return md / mr;
}

/* The overhead row (one element each: launches dominate) and the chain (64 Ki floats) on backend b.
   False when a result was wrong. */
static bool gpu_chain_run(dag_backend b, int k, int rounds) {
    gpu_chain_raw raw;
    if (!gpu_chain_raw_for(b, &raw)) {
        printf("skipped: the raw %s side: its runtime does not load here\n", b == DAG_CUDA ? "CUDA" : "HIP");
        return true;
    }
    bool ok = gpu_chain_compare(b, &raw, 1, k, rounds, "overhead (one element each)") > 0;
    ok = gpu_chain_compare(b, &raw, (size_t)1 << 16, k, rounds, "chain") > 0 && ok;
    raw.release(&raw);
    return ok;
}
#endif
