/* bench/opencl_chain.c: what dag.h's device layer costs over raw OpenCL.

   1. A chain of K small kernels (y[i] += 1 over N doubles) on OpenCL device
      1, with the copy in and the copy back, written two ways in one run,
      interleaved round by round:
        raw   clSetKernelArg + clEnqueueNDRangeKernel per kernel on one
              in-order queue, one write before and one blocking read after;
        dag   DAG_DATADEPS { K x dag_spawn(DAG_LAUNCH(add_one, N), InOut(y, N)) }
              with the scope on device 1: the runtime infers the chain,
              builds and caches the kernel, and moves the data.
      Both call the same OpenCL driver on the same device (the raw side
      through OpenCL's own API, bench/cl_raw.h), so only the runtime differs.
   2. Bytes moved for a tiled workload against the minimum: T x T tiles of
      a matrix, tile row r on device r % devices, S sweeps of
      tile(i, j) += tile(i, j - 1); the minimum is every tile to its
      device once and every written tile back once.

   Run: make bench-opencl  (POCL_DEVICES="pthread pthread pthread"). */
#define DAG_IMPLEMENTATION
#define DAG_BACKEND_OPENCL
#include "dag_kernels.h"
#include "bench_common.h"
#include "cl_raw.h"

DAG_KERNEL(add_one, ((DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] += 1.0;
)
DAG_KERNEL(tile_add, ((int, cols), (int, ld), (DAG_GLOBAL const double *, a), (DAG_GLOBAL double *, b)),
    size_t i = DAG_INDEX();
    size_t k = (i / (size_t)cols) * (size_t)ld + i % (size_t)cols;
    b[k] += a[k];
)

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The raw side: the same kernel text (dag.h writes it), its own program,
   buffer and kernel on the device in a context and queue of its own. */
static struct { cl_raw cl; cl_kernel kernel; cl_mem buf; } raw;

static int raw_setup(size_t n) {
    if (cl_raw_open(&raw.cl) != 0) return -1;
    char *src = dag_kernel_opencl_source(&add_one__cl);
    const char *text = src;
    cl_int e = 0;
    cl_program p = clCreateProgramWithSource(raw.cl.context, 1, &text, NULL, &e);
    free(src);
    if (!p || clBuildProgram(p, 1, &raw.cl.device, "", NULL, NULL) != CL_SUCCESS) return -1;
    raw.kernel = clCreateKernel(p, "dag_k_add_one", &e);   /* (dag_kernel_opencl_source names it so) */
    clReleaseProgram(p);
    raw.buf = clCreateBuffer(raw.cl.context, CL_MEM_READ_WRITE, n * sizeof(double), NULL, &e);
    return raw.kernel && raw.buf ? 0 : -1;
}

static double raw_chain(double *y, size_t n, int k) {
    cl_command_queue q = raw.cl.queue;
    double t0 = now_s();
    clEnqueueWriteBuffer(q, raw.buf, CL_FALSE, 0, n * sizeof(double), y, 0, NULL, NULL);
    cl_ulong range = n;
    size_t global = (n + 63) / 64 * 64;
    for (int s = 0; s < k; s++) {
        clSetKernelArg(raw.kernel, 0, sizeof range, &range);
        clSetKernelArg(raw.kernel, 1, sizeof raw.buf, &raw.buf);
        clEnqueueNDRangeKernel(q, raw.kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
    clEnqueueReadBuffer(q, raw.buf, CL_TRUE, 0, n * sizeof(double), y, 0, NULL, NULL);
    return now_s() - t0;
}

static double dag_chain(double *y, size_t n, int k) {
    double t0 = now_s();
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.one = 1)) {
        DAG_DATADEPS {
            for (int s = 0; s < k; s++) dag_spawn(DAG_LAUNCH(add_one, n), InOut(y, n));
        }
    }
    return now_s() - t0;
}

static void tiled_bytes(int tiles, int tile, int sweeps) {
    int ld = tiles * tile, devices = dag_device_count(DAG_OPENCL);
    double *m = (double *)calloc((size_t)ld * (size_t)ld, sizeof(double));
    uint64_t before = 0, after = 0;
    dag_memory_info info;
    for (int d = 1; d <= devices; d++) {
        dag_memory_stats(DAG_OPENCL, d, &info);
        before += info.bytes_to_device + info.bytes_to_host;
    }
    long tasks = 0;
    DAG_DATADEPS {
        for (int s = 0; s < sweeps; s++)
            for (int i = 0; i < tiles; i++)
                for (int j = 1; j < tiles; j++) {
                    double *a = m + (size_t)i * tile * ld + (size_t)(j - 1) * tile, *b = a + tile;
                    dag_spawn_with(&(dag_options){ .scope = dag_scope(.opencl.one = 1 + i % devices) },
                                   DAG_LAUNCH(tile_add, tile * tile), Val(tile), Ld(a), In(a, tile, tile, ld),
                                   InOut(b, tile, tile, ld));
                    tasks++;
                }
    }
    for (int d = 1; d <= devices; d++) {
        dag_memory_stats(DAG_OPENCL, d, &info);
        after += info.bytes_to_device + info.bytes_to_host;
    }
    /* every tile goes in once; the written ones (all but column 0) come back once */
    double minimum = (double)ld * (double)ld * sizeof(double) + (double)ld * (double)(ld - tile) * sizeof(double);
    printf("tiled %dx%d tiles of %dx%d doubles, %d sweeps, %d devices, %ld tasks:\n"
           "  bytes moved %llu, minimum %.0f, ratio %.2f, per task %.0f (minimum %.0f)\n",
           tiles, tiles, tile, tile, sweeps, devices, tasks, (unsigned long long)(after - before), minimum,
           (double)(after - before) / minimum, (double)(after - before) / (double)tasks, minimum / (double)tasks);
    free(m);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1024;
    int k = argc > 2 ? atoi(argv[2]) : 1000, rounds = argc > 3 ? atoi(argv[3]) : 7;
    dag_setup(&(dag_desc){ .num_threads = 2 });
    if (!dag_backend_available(DAG_OPENCL)) {
        printf("skipped: %s\n", dag_backend_status(DAG_OPENCL));
        dag_shutdown();
        return 0;
    }
    printf("%s\n", dag_backend_status(DAG_OPENCL));
    double *y = (double *)calloc(n, sizeof(double));
    if (raw_setup(n) != 0) { printf("raw OpenCL set-up failed\n"); return 1; }
    raw_chain(y, n, 10);   /* warm-up: dag.h builds its kernel here */
    dag_chain(y, n, 10);
    double tr[64], td[64];
    if (rounds > 64) rounds = 64;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) y[i] = 0;
        tr[r] = raw_chain(y, n, k);
        int ok = y[0] == k && y[n - 1] == k;
        for (size_t i = 0; i < n; i++) y[i] = 0;
        td[r] = dag_chain(y, n, k);
        ok = ok && y[0] == k && y[n - 1] == k;
        if (!ok) { printf("wrong result in round %d\n", r); return 1; }
    }
    qsort(tr, (size_t)rounds, sizeof *tr, cmp);
    qsort(td, (size_t)rounds, sizeof *td, cmp);
    double mr = tr[rounds / 2], md = td[rounds / 2];
    printf("chain of %d kernels over %zu doubles on device 1, median of %d interleaved rounds:\n"
           "  raw OpenCL %.3f ms (%.1f us/kernel)   dag.h %.3f ms (%.1f us/kernel)   dag/raw %.2fx\n",
           k, n, rounds, mr * 1e3, mr * 1e6 / k, md * 1e3, md * 1e6 / k, md / mr);
    tiled_bytes(8, 64, 3);
    clReleaseKernel(raw.kernel);
    clReleaseMemObject(raw.buf);
    cl_raw_close(&raw.cl);
    free(y);
    dag_shutdown();
    return 0;
}
