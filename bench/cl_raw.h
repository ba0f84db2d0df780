/* bench/cl_raw.h: the raw side of the OpenCL benches, on OpenCL's own API
   (<CL/cl.h>, -lOpenCL): the first device of the first platform that has
   one, which is the device dag.h numbers 1 when DAG_DEVICES is not set, in
   a context and queue of its own; and CLBlast's dgemm, loaded as dag_blas.h
   loads it (libclblast.so.1). Only what the benches use. */
#ifndef BENCH_CL_RAW_H
#define BENCH_CL_RAW_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>

typedef struct cl_raw {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    char name[128];
} cl_raw;

static inline int cl_raw_open(cl_raw *r) {
    cl_platform_id platforms[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS) return -1;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &r->device, &nd) != CL_SUCCESS || nd == 0) continue;
        cl_int e = 0;
        r->context = clCreateContext(NULL, 1, &r->device, NULL, NULL, &e);
        if (e != CL_SUCCESS) return -1;
        r->queue = clCreateCommandQueue(r->context, r->device, 0, &e);
        clGetDeviceInfo(r->device, CL_DEVICE_NAME, sizeof r->name, r->name, NULL);
        return e == CL_SUCCESS ? 0 : -1;
    }
    return -1;
}

static inline void cl_raw_close(cl_raw *r) {
    clReleaseCommandQueue(r->queue);
    clReleaseContext(r->context);
}

/* CLBlastDgemm (clblast_c.h's prototype and constants), NULL where the
   library does not load */
enum { CL_RAW_COL_MAJOR = 102, CL_RAW_NO_TRANSPOSE = 111 };
typedef int (*cl_raw_dgemm_fn)(int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
                               size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb, double beta, cl_mem c,
                               size_t c_off, size_t ldc, cl_command_queue *queue, cl_event *event);
static inline cl_raw_dgemm_fn cl_raw_clblast_dgemm(void) {
    void *lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    union { void *p; cl_raw_dgemm_fn f; } u = { lib ? dlsym(lib, "CLBlastDgemm") : NULL };
    return u.f;
}
#endif
