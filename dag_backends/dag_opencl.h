/* dag_opencl.h: the OpenCL backend of dag.h (-DDAG_BACKEND_OPENCL).

   Included only by dag.h's implementation. It loads the OpenCL ICD loader
   (libOpenCL.so.1) at run time with its own function types, so a binary
   built with the flag needs no OpenCL SDK to run: without a loader, a
   platform or a device, the backend reports itself unavailable with the
   loader's own error, and everything runs on the CPU.

   This first part finds the platforms and devices; kernels, buffers and
   transfers arrive with the device layer. Private names: dag__cl_*.
*/
#ifndef DAG_OPENCL_H_INCLUDED
#define DAG_OPENCL_H_INCLUDED

#include <dlfcn.h>

/* The few OpenCL types and constants used here (ABI of OpenCL 1.2). */
typedef int32_t dag__cl_int;
typedef uint32_t dag__cl_uint;
typedef uint64_t dag__cl_ulong;
typedef struct dag__cl_platform *dag__cl_platform_id;
typedef struct dag__cl_device *dag__cl_device_id;
#define DAG__CL_SUCCESS 0
#define DAG__CL_DEVICE_NOT_FOUND (-1)
#define DAG__CL_PLATFORM_NOT_FOUND_KHR (-1001)
#define DAG__CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define DAG__CL_DEVICE_NAME 0x102B
#define DAG__CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define DAG__CL_PLATFORM_NAME 0x0902

/* >>opencl symbols: one line each */
#define DAG__CL_SYMBOLS(X) \
    X(clGetPlatformIDs, dag__cl_int, (dag__cl_uint, dag__cl_platform_id *, dag__cl_uint *)) \
    X(clGetPlatformInfo, dag__cl_int, (dag__cl_platform_id, dag__cl_uint, size_t, void *, size_t *)) \
    X(clGetDeviceIDs, dag__cl_int, (dag__cl_platform_id, dag__cl_ulong, dag__cl_uint, dag__cl_device_id *, dag__cl_uint *)) \
    X(clGetDeviceInfo, dag__cl_int, (dag__cl_device_id, dag__cl_uint, size_t, void *, size_t *))

#define DAG__CL_FIELD(name, ret, args) ret (*name) args;
typedef struct dag__cl_api { DAG__CL_SYMBOLS(DAG__CL_FIELD) } dag__cl_api;

#define DAG__CL_MAX_DEVICES 64
typedef struct dag__cl_device_info {
    dag__cl_device_id id;
    dag__cl_platform_id platform;
    char name[128];
    uint64_t memory;
} dag__cl_device_info;

static struct {
    void *lib;
    dag__cl_api api;
    dag__cl_device_info devices[DAG__CL_MAX_DEVICES];
    int num_devices;
} dag__cl;

static const char *dag__cl_error_name(dag__cl_int e) {
    switch (e) {
    case DAG__CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case DAG__CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR (the ICD loader found no platform)";
    default: return "OpenCL error";
    }
}

/* Loads the library and lists every device of every platform. Returns 0,
   or writes why not into `why`. */
static int dag__cl_init(char *why, size_t why_size) {
    const char *lib_name = "libOpenCL.so.1";
    if (!dag__cl.lib) dag__cl.lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!dag__cl.lib) {
        snprintf(why, why_size, "cannot load %s: %s", lib_name, dlerror());
        return -1;
    }
#define DAG__CL_LOAD(name, ret, args) \
    { \
        void *p = dlsym(dag__cl.lib, #name); \
        if (!p) { \
            snprintf(why, why_size, "%s has no %s", lib_name, #name); \
            return -1; \
        } \
        memcpy(&dag__cl.api.name, &p, sizeof p); /* ISO C has no object-to-function cast */ \
    }
    DAG__CL_SYMBOLS(DAG__CL_LOAD)
#undef DAG__CL_LOAD
    dag__cl_platform_id platforms[16];
    dag__cl_uint num_platforms = 0;
    dag__cl_int e = dag__cl.api.clGetPlatformIDs(16, platforms, &num_platforms);
    if (e != DAG__CL_SUCCESS || num_platforms == 0) {
        snprintf(why, why_size, "clGetPlatformIDs returned %d: %s", (int)e,
                 e ? dag__cl_error_name(e) : "no platform");
        return -1;
    }
    dag__cl.num_devices = 0;
    for (dag__cl_uint p = 0; p < num_platforms && p < 16; p++) {
        dag__cl_device_id ids[DAG__CL_MAX_DEVICES];
        dag__cl_uint n = 0;
        if (dag__cl.api.clGetDeviceIDs(platforms[p], DAG__CL_DEVICE_TYPE_ALL, DAG__CL_MAX_DEVICES, ids, &n) != DAG__CL_SUCCESS)
            continue;
        for (dag__cl_uint d = 0; d < n && dag__cl.num_devices < DAG__CL_MAX_DEVICES; d++) {
            dag__cl_device_info *info = &dag__cl.devices[dag__cl.num_devices++];
            memset(info, 0, sizeof *info);
            info->id = ids[d];
            info->platform = platforms[p];
            dag__cl.api.clGetDeviceInfo(ids[d], DAG__CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
            dag__cl_ulong mem = 0;
            dag__cl.api.clGetDeviceInfo(ids[d], DAG__CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
            info->memory = mem;
        }
    }
    if (dag__cl.num_devices == 0) {
        snprintf(why, why_size, "%u OpenCL platform(s), no device", (unsigned)num_platforms);
        return -1;
    }
    snprintf(why, why_size, "%d OpenCL device(s); device 1: %s", dag__cl.num_devices, dag__cl.devices[0].name);
    return 0;
}

static int dag__cl_device_count(void) { return dag__cl.num_devices; }

/* The library stays loaded: ICDs keep threads and state that do not
   survive being unloaded, and a later dag_setup finds it again. */
static void dag__cl_shutdown(void) {
    void *lib = dag__cl.lib;
    memset(&dag__cl, 0, sizeof dag__cl);
    dag__cl.lib = lib;
}

#endif /* DAG_OPENCL_H_INCLUDED */
