/* bench/gpu_chain.c: what dag.h's device layer costs over raw CUDA, HIP
   and Level Zero.

   For each backend named (cuda, hip, ze; default all) that has a device:
   1. overhead: the chain below over one element, so launches dominate;
   2. chain: K small kernels (v[i] += 1 over N floats) with the copy in and
      the copy back: raw (copy, K launches on one stream, copy back) against
      DAG_DATADEPS { K x dag_spawn(DAG_LAUNCH(gpu_inc, N), InOut(v, N)) }.
   The two sides are interleaved round by round and the median is printed
   with the ratio dag/raw. The raw side calls the runtime directly: CUDA's
   static runtime, and HIP and Level Zero through the libraries dag.h
   loaded (the same functions their programs call). Both sides launch the
   same kernel build (tests/gpu/kernels.h). Where a backend has no device
   it prints "skipped:" and the reason.

   Run: make bench-gpu */
#define DAG_IMPLEMENTATION
#include "kernels.h"
#include "bench_common.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- raw CUDA: cudaMalloc, cudaMemcpyAsync, cudaLaunchKernel on one stream */
#if defined(DAG_BACKEND_CUDA)
static struct { float *d; size_t have; } cuda_raw;
static void raw_cuda_release(void) {
    if (cuda_raw.d) cudaFree(cuda_raw.d);
    memset(&cuda_raw, 0, sizeof cuda_raw);
}
static double raw_cuda(float *v, size_t n, int k) {
    float *d = cuda_raw.d;
    size_t have = cuda_raw.have;
    cudaStream_t s = dag__cuda_g.devices[0].stream;
    cudaSetDevice(0);
    if (have < n) {
        if (d) cudaFree(d);
        cudaMalloc((void **)&d, n * sizeof(float));
        cuda_raw.d = d;
        cuda_raw.have = have = n;
    }
    double t0 = now_s();
    cudaMemcpyAsync(d, v, n * sizeof(float), cudaMemcpyHostToDevice, s);
    unsigned long long range = n;
    void *params[2] = { &range, &d };
    dim3 grid = { (unsigned)((n + 255) / 256), 1, 1 }, block = { 256, 1, 1 };
    for (int i = 0; i < k; i++) cudaLaunchKernel(gpu_inc__cuda.entry, grid, block, params, 0, s);
    cudaMemcpyAsync(v, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return now_s() - t0;
}
#endif

/* ---- raw HIP: the same calls through the loaded libamdhip64 */
#if defined(DAG_BACKEND_HIP)
static struct { void *d; size_t have; DAG__HIP_Module_t module; DAG__HIP_Function_t f; } hip_raw;
static void raw_hip_release(void) {
    if (hip_raw.module) dag__hip.api.hipModuleUnload(hip_raw.module);
    if (hip_raw.d) dag__hip.api.hipFree(hip_raw.d);
    memset(&hip_raw, 0, sizeof hip_raw);
}
static double raw_hip(float *v, size_t n, int k) {
    void **d = &hip_raw.d;
    DAG__HIP_Stream_t s = dag__hip_g.devices[0].stream;
    dag__hip.api.hipSetDevice(0);
    if (!hip_raw.f) {
        dag__hip.api.hipModuleLoadData(&hip_raw.module, gpu_inc__hip.image);
        dag__hip.api.hipModuleGetFunction(&hip_raw.f, hip_raw.module, gpu_inc__hip.symbol);
    }
    if (hip_raw.have < n) {
        if (*d) dag__hip.api.hipFree(*d);
        dag__hip.api.hipMalloc(d, n * sizeof(float));
        hip_raw.have = n;
    }
    double t0 = now_s();
    dag__hip.api.hipMemcpy2DAsync(*d, n * sizeof(float), v, n * sizeof(float), n * sizeof(float), 1, 1, s);
    unsigned long long range = n;
    void *params[2] = { &range, d };
    for (int i = 0; i < k; i++)
        dag__hip.api.hipModuleLaunchKernel(hip_raw.f, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, s, params, NULL);
    dag__hip.api.hipMemcpy2DAsync(v, n * sizeof(float), *d, n * sizeof(float), n * sizeof(float), 1, 2, s);
    dag__hip.api.hipStreamSynchronize(s);
    return now_s() - t0;
}
#endif

/* ---- raw Level Zero: the immediate list dag.h opened, a module from the
   same SPIR-V, a barrier after each command (an immediate list does not
   promise order) and a host wait on a barrier's event at the end */
#if defined(DAG_BACKEND_LEVEL_ZERO)
static struct { void *d; size_t have; ze_module_handle_t module; ze_kernel_handle_t kernel; uint32_t group; } ze_raw;
static void raw_ze_release(void) {
    if (ze_raw.kernel) dag__ze.api.zeKernelDestroy(ze_raw.kernel);
    if (ze_raw.module) dag__ze.api.zeModuleDestroy(ze_raw.module);
    if (ze_raw.d) dag__ze.api.zeMemFree(dag__ze.devices[0].context, ze_raw.d);
    memset(&ze_raw, 0, sizeof ze_raw);
}
static double raw_ze(float *v, size_t n, int k) {
    void **d = &ze_raw.d;
    ze_kernel_handle_t *kernel = &ze_raw.kernel;
    uint32_t *group = &ze_raw.group;
    dag__ze_device_info *dv = &dag__ze.devices[0];
    ze_command_list_handle_t l = dv->list;
    if (!*kernel) {
        *group = 256;
        ze_module_desc_t md = { ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV,
                                gpu_inc__ze.image_size, gpu_inc__ze.image, "", NULL };
        ze_kernel_desc_t kd = { ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, gpu_inc__ze.symbol };
        dag__ze.api.zeModuleCreate(dv->context, dv->id, &md, &ze_raw.module, NULL);
        dag__ze.api.zeKernelCreate(ze_raw.module, &kd, kernel);
        if (dag__ze.api.zeKernelSetGroupSize(*kernel, *group, 1, 1) != ZE_RESULT_SUCCESS) {   /* the device's own size */
            uint32_t y, z;
            dag__ze.api.zeKernelSuggestGroupSize(*kernel, 256, 1, 1, group, &y, &z);
            dag__ze.api.zeKernelSetGroupSize(*kernel, *group, 1, 1);
        }
    }
    if (ze_raw.have < n) {
        ze_device_mem_alloc_desc_t ad = { ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0 };
        if (*d) dag__ze.api.zeMemFree(dv->context, *d);
        dag__ze.api.zeMemAllocDevice(dv->context, &ad, n * sizeof(float), 64, dv->id, d);
        ze_raw.have = n;
    }
    double t0 = now_s();
    dag__ze.api.zeCommandListAppendMemoryCopy(l, *d, v, n * sizeof(float), NULL, 0, NULL);
    dag__ze.api.zeCommandListAppendBarrier(l, NULL, 0, NULL);
    uint64_t range = n;
    ze_group_count_t groups = { (uint32_t)((n + *group - 1) / *group), 1, 1 };
    for (int i = 0; i < k; i++) {
        dag__ze.api.zeKernelSetArgumentValue(*kernel, 0, sizeof range, &range);
        dag__ze.api.zeKernelSetArgumentValue(*kernel, 1, sizeof *d, d);
        dag__ze.api.zeCommandListAppendLaunchKernel(l, *kernel, &groups, NULL, 0, NULL);
        dag__ze.api.zeCommandListAppendBarrier(l, NULL, 0, NULL);
    }
    dag__ze.api.zeCommandListAppendMemoryCopy(l, v, *d, n * sizeof(float), NULL, 0, NULL);
    dag__ze.api.zeCommandListAppendBarrier(l, dv->sync, 0, NULL);
    dag__ze.api.zeEventHostSynchronize(dv->sync, UINT64_MAX);
    dag__ze.api.zeEventHostReset(dv->sync);
    return now_s() - t0;
}
#endif

static double dag_side(dag_backend b, float *v, size_t n, int k) {
    dag_options o;
    memset(&o, 0, sizeof o);
    if (b == DAG_CUDA) o.scope.cuda.one = 1;
    else if (b == DAG_HIP) o.scope.hip.one = 1;
    else o.scope.level_zero.one = 1;
    double t0 = now_s();
    DAG_DATADEPS {
        for (int i = 0; i < k; i++) dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, n), InOut(v, n));
    }
    return now_s() - t0;
}

static void compare(dag_backend b, const char *name, double (*raw)(float *, size_t, int), size_t n, int k,
                    int rounds, const char *what) {
    float *v = (float *)calloc(n, sizeof(float));
    double tr[64], td[64];
    raw(v, n, 10);   /* warm-up: both sides load the kernel */
    dag_side(b, v, n, 10);
    if (rounds > 64) rounds = 64;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) v[i] = 0;
        tr[r] = raw(v, n, k);
        int ok = v[0] == (float)k && v[n - 1] == (float)k;
        for (size_t i = 0; i < n; i++) v[i] = 0;
        td[r] = dag_side(b, v, n, k);
        ok = ok && v[0] == (float)k && v[n - 1] == (float)k;
        if (!ok) {
            printf("%s: wrong result in round %d\n", name, r);
            exit(1);
        }
    }
    qsort(tr, (size_t)rounds, sizeof *tr, cmp);
    qsort(td, (size_t)rounds, sizeof *td, cmp);
    double mr = tr[rounds / 2], md = td[rounds / 2];
    printf("%s %s: %d kernels over %zu floats, median of %d interleaved rounds:\n"
           "  raw %.3f ms (%.2f us/kernel)   dag.h %.3f ms (%.2f us/kernel)   dag/raw %.2fx\n",
           name, what, k, n, rounds, mr * 1e3, mr * 1e6 / k, md * 1e3, md * 1e6 / k, md / mr);
    free(v);
}

int main(int argc, char **argv) {
    int k = 1000, rounds = 7;
    dag_setup(&(dag_desc){ .num_threads = 2 });
    static const struct { const char *arg, *name; dag_backend b; } all[] = {
        { "cuda", "CUDA", DAG_CUDA }, { "hip", "HIP", DAG_HIP }, { "ze", "Level Zero", DAG_LEVEL_ZERO } };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], all[i].arg) == 0;
        if (!wanted) continue;
        if (!dag_backend_available(all[i].b)) {
            printf("skipped: %s\n", dag_backend_status(all[i].b));
            continue;
        }
        printf("%s\n", dag_backend_status(all[i].b));
        double (*raw)(float *, size_t, int) = NULL;
#if defined(DAG_BACKEND_CUDA)
        if (all[i].b == DAG_CUDA) raw = raw_cuda;
#endif
#if defined(DAG_BACKEND_HIP)
        if (all[i].b == DAG_HIP) raw = raw_hip;
#endif
#if defined(DAG_BACKEND_LEVEL_ZERO)
        if (all[i].b == DAG_LEVEL_ZERO) raw = raw_ze;
#endif
        if (!raw) continue;
        compare(all[i].b, all[i].name, raw, 1, k, rounds, "overhead (one element each)");
        compare(all[i].b, all[i].name, raw, 1 << 16, k, rounds, "chain");
    }
    /* the raw sides' objects go before dag.h closes the contexts they live in */
#if defined(DAG_BACKEND_CUDA)
    if (dag_backend_available(DAG_CUDA)) raw_cuda_release();
#endif
#if defined(DAG_BACKEND_HIP)
    if (dag_backend_available(DAG_HIP)) raw_hip_release();
#endif
#if defined(DAG_BACKEND_LEVEL_ZERO)
    if (dag_backend_available(DAG_LEVEL_ZERO)) raw_ze_release();
#endif
    dag_shutdown();
    return 0;
}
