/* dag_hip.h: the HIP backend of dag.h (-DDAG_BACKEND_HIP).

   Uses dag_gpu_stream.h (dag__gpu, its functions and DAG__GPU_OPS), and
   what it uses; from dag_device.h, the loader helpers dag__dl_bind,
   dag__dl_symbol and DAG__DL_COUNT; from dag.h, dag__xmalloc.

   Included only by dag_device.h, in dag.h's implementation. It needs no
   SDK to build: the runtime, libamdhip64, is loaded at run time with the
   types below, so one binary built with the flag runs where ROCm is
   missing: the backend then reports itself unavailable with the loader's
   or the runtime's own error (no GPU: hipGetDeviceCount returned 100,
   hipErrorNoDevice).

   Kernels are compiled ahead of time by hipcc --genco --offload-arch=...
   (one code object bundle holding every architecture asked for), embedded
   in the program by tools/dag_embed.py --hip, and loaded per device with
   hipModuleLoadData. Streams, events, staging and peer copies are shared
   with CUDA (dag_gpu_stream.h). Private names: dag__hip_*.

   Parts: >>hip symbols
*/
/* dag_device.h includes every backend file: each compiles under its own flag alone */
#if DAG__ON(DAG_BACKEND_HIP) && !defined(DAG_HIP_H_INCLUDED)
#define DAG_HIP_H_INCLUDED
#include "dag_gpu_stream.h"


#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#error "dag.h: -DDAG_BACKEND_HIP loads AMD's HIP runtime; for NVIDIA GPUs use -DDAG_BACKEND_CUDA instead"
#endif

/* The few HIP types used here besides dag_gpu_stream.h's, as the HIP
   runtime's ABI has them (the SDK's header cannot share a translation unit
   with CUDA's: both define the vector types). Its calls and constants are
   CUDA's, with handles as pointers and errors as int (hipError_t is an int
   enum): dag_gpu_stream.h's dag__gpu_runtime binds them by their HIP names. */
typedef int DAG__HIP_Error_t;
typedef int DAG__HIP_Device_t;
typedef struct ihipModule_t *DAG__HIP_Module_t;
typedef struct ihipModuleSymbol_t *DAG__HIP_Function_t;

/* >>hip symbols: one line each, with the types of the SDK's header */
#define DAG__HIP_SYMBOLS(X) \
    X(hipGetErrorName, const char *, (DAG__HIP_Error_t)) \
    X(hipGetErrorString, const char *, (DAG__HIP_Error_t)) \
    X(hipDeviceGet, DAG__HIP_Error_t, (DAG__HIP_Device_t *, int)) \
    X(hipDeviceGetName, DAG__HIP_Error_t, (char *, int, DAG__HIP_Device_t)) \
    X(hipDeviceTotalMem, DAG__HIP_Error_t, (size_t *, DAG__HIP_Device_t)) \
    X(hipModuleLoadData, DAG__HIP_Error_t, (DAG__HIP_Module_t *, const void *)) \
    X(hipModuleGetFunction, DAG__HIP_Error_t, (DAG__HIP_Function_t *, DAG__HIP_Module_t, const char *)) \
    X(hipModuleUnload, DAG__HIP_Error_t, (DAG__HIP_Module_t)) \
    X(hipModuleLaunchKernel, DAG__HIP_Error_t, (DAG__HIP_Function_t, unsigned int, unsigned int, unsigned int, unsigned int, \
                                          unsigned int, unsigned int, unsigned int, void *stream, void **, void **))

#define DAG__HIP_FIELD(name, ret, args) ret (*name) args;
typedef struct dag__hip_api { DAG__HIP_SYMBOLS(DAG__HIP_FIELD) } dag__hip_api;

/* A code object loaded on one device: one per embedded image, shared by
   the kernels in it. */
typedef struct dag__hip_module {
    const unsigned char *image;
    int dev;
    DAG__HIP_Module_t module;
    struct dag__hip_module *next;
} dag__hip_module;

static struct {
    void *lib;
    dag__hip_api api;
    dag__hip_module *modules;
} dag__hip;

static int dag__hip_device_info(int dev, char *name, size_t size, size_t *bytes) {
    DAG__HIP_Device_t device;
    int e = (int)dag__hip.api.hipDeviceGet(&device, dev);
    if (!e) e = (int)dag__hip.api.hipDeviceGetName(name, (int)size, device);
    if (!e) e = (int)dag__hip.api.hipDeviceTotalMem(bytes, device);
    return e;
}

static const char *dag__hip_error_text(int e, char *buf, size_t size) {
    const char *name = dag__hip.api.hipGetErrorName(e), *text = dag__hip.api.hipGetErrorString(e);
    if (name && text && strcmp(name, text) != 0) snprintf(buf, size, "%s: %s", name, text);
    else snprintf(buf, size, "%s", name ? name : "unknown error");   /* HIP's text is often just the name */
    return buf;
}

static int dag__hip_start_kernel(void *stream, void *kernel, size_t n, void **params);
static dag__gpu dag__hip_gpu = {
    .name = "HIP",
    .short_name = "hip",
    .device_info = dag__hip_device_info,
    .error_text = dag__hip_error_text,
    .start_kernel = dag__hip_start_kernel,
};   /* .rt: bound when the library loads */

/* The newest runtime first, by its soname (a ROCm install without the
   development link has only that); the unversioned name last. */
static int dag__hip_init(char *why, size_t why_size) {
    static const char *const names[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so" };
    for (size_t i = 0; !dag__hip.lib && i < sizeof names / sizeof names[0]; i++)
        dag__hip.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!dag__hip.lib) {
        snprintf(why, why_size, "cannot load libamdhip64.so: %s", dlerror());
        return -1;
    }
#define DAG__HIP_SLOT(name, ret, args) { #name, &dag__hip.api.name },
#define DAG__HIP_RT_SLOT(name, hip_name, params) { #hip_name, &dag__hip_gpu.rt.name },
    const dag__dl_symbol symbols[] = { DAG__HIP_SYMBOLS(DAG__HIP_SLOT) DAG__GPU_CALLS(DAG__HIP_RT_SLOT) };
#undef DAG__HIP_SLOT
#undef DAG__HIP_RT_SLOT
    if (!dag__dl_bind(dag__hip.lib, "libamdhip64", symbols, DAG__DL_COUNT(symbols), why, why_size)) return -1;
    return dag__gpu_open_devices(&dag__hip_gpu, why, why_size);
}

/* The library stays loaded (like OpenCL's): a later dag_setup finds it again. */
static void dag__hip_shutdown(void) {
    int saved = -1;
    if (dag__hip.modules) dag__gpu_enter_any(&dag__hip_gpu, &saved);
    while (dag__hip.modules) {
        dag__hip_module *m = dag__hip.modules;
        dag__hip.modules = m->next;
        dag__gpu_use(&dag__hip_gpu, m->dev);
        dag__hip.api.hipModuleUnload(m->module);
        DAG_FREE(m);
    }
    dag__gpu_leave(&dag__hip_gpu, saved);
    if (dag__hip.lib) dag__gpu_close_devices(&dag__hip_gpu);
}

static bool dag__hip_has_kernel(int dev, const dag_kernel_source *k) {
    (void)dev;
    const dag_native_kernel *nk = k->native[DAG_HIP];
    return nk && nk->image && nk->symbol;
}

static int dag__hip_build_current(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size);
static int dag__hip_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    *kernel = NULL;   /* k has a HIP build: the device layer builds only what has_kernel accepts */
    int saved, e = dag__gpu_enter(&dag__hip_gpu, dev, &saved);
    if (!e) e = dag__hip_build_current(dev, k, kernel, log, log_size);
    dag__gpu_leave(&dag__hip_gpu, saved);
    return e;
}
static int dag__hip_build_current(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    int e = 0;
    const dag_native_kernel *nk = k->native[DAG_HIP];
    dag__hip_module *m = dag__hip.modules;
    while (m && !(m->image == nk->image && m->dev == dev)) m = m->next;
    if (!m) {
        DAG__HIP_Module_t module;
        e = (int)dag__hip.api.hipModuleLoadData(&module, nk->image);
        if (e) {
            char text[160];
            snprintf(log, log_size, "hipModuleLoadData returned %d (%s) on %s: the code object may lack this GPU's "
                     "architecture; add it to the kernels' build, hipcc --offload-arch=gfx... (rocminfo names it)",
                     e, dag__hip_error_text(e, text, sizeof text), dag__hip_gpu.devices[dev].name);
            return e;
        }
        m = (dag__hip_module *)dag__xmalloc(sizeof *m);
        m->image = nk->image;
        m->dev = dev;
        m->module = module;
        m->next = dag__hip.modules;
        dag__hip.modules = m;
    }
    DAG__HIP_Function_t f;
    e = (int)dag__hip.api.hipModuleGetFunction(&f, m->module, nk->symbol);
    if (e) {
        snprintf(log, log_size, "hipModuleGetFunction(%s) returned %d", nk->symbol, e);
        return e;
    }
    *kernel = (void *)f;
    return 0;
}
static void dag__hip_release_kernel(int dev, void *kernel) { (void)dev; (void)kernel; }   /* the module owns it */

static int dag__hip_start_kernel(void *stream, void *kernel, size_t n, void **params) {
    return dag__hip.api.hipModuleLaunchKernel((DAG__HIP_Function_t)kernel, dag__gpu_blocks(n), 1, 1, DAG__GPU_BLOCK, 1, 1,
                                              0, stream, params, NULL);
}

/* HIP refuses gridDim x blockDim >= 2^32 */
DAG__GPU_OPS(dag__hip, dag__hip_gpu, DAG_HIP, "HIP", "hip", ((size_t)1 << 32) - DAG__GPU_BLOCK)

#endif /* DAG_BACKEND_HIP, DAG_HIP_H_INCLUDED */
