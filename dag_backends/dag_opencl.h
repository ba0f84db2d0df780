/* dag_opencl.h: the OpenCL backend of dag.h (-DDAG_BACKEND_OPENCL).

   Uses from dag_device.h: the device-operations table it fills
   (dag__device_ops) and the loader helpers dag__dl_bind, dag__dl_symbol and
   DAG__DL_COUNT; from dag.h: dag_log.

   Included only by dag_device.h, in dag.h's implementation. It loads the OpenCL ICD loader
   (libOpenCL.so.1) at run time with its own function types, so a binary
   built with the flag needs no OpenCL SDK to run: without a loader, a
   platform or a device, the backend reports itself unavailable with the
   loader's own error, and everything runs on the CPU.

   It finds the platforms and devices, and gives each device a context and
   four in-order queues (with profiling, for the cost model): the device
   layer's lanes, copies in, copies out and two for kernels, which it orders
   by events (wait_lane: a marker on one queue, a barrier on the other),
   buffers, 1-D and
   2-D asynchronous copies and launches with events, and programs built from
   source (with the compiler's log on failure). It fills the generic device
   layer's table (dag__device_ops); everything else (replicas, coherence,
   pools, placement) lives in dag_device.h. Private names: dag__cl_*.

   A library routine standing in for a kernel (dag_library_kernel: dag_blas.h
   binds CLBlast) gets a pointer to its lane's queue, and a marker after it
   gives its event when the routine gives none.

   Parts: >>opencl symbols >>opencl device operations >>opencl lanes
*/
/* dag_device.h includes every backend file: each compiles under its own flag alone */
#if DAG__ON(DAG_BACKEND_OPENCL) && !defined(DAG_OPENCL_H_INCLUDED)
#define DAG_OPENCL_H_INCLUDED

/* The few OpenCL types and constants used here (ABI of OpenCL 1.2). */
typedef int32_t dag__cl_int;
typedef uint32_t dag__cl_uint;
typedef uint64_t dag__cl_ulong;
typedef struct dag__cl_platform *dag__cl_platform_id;
typedef struct dag__cl_device *dag__cl_device_id;
typedef struct dag__cl_context *dag__cl_context;
typedef struct dag__cl_queue *dag__cl_queue;
typedef struct dag__cl_mem *dag__cl_mem;
typedef struct dag__cl_program *dag__cl_program;
typedef struct dag__cl_kernel *dag__cl_kernel;
typedef struct dag__cl_event *dag__cl_event;
#define DAG__CL_SUCCESS 0
#define DAG__CL_DEVICE_NOT_FOUND (-1)
#define DAG__CL_PLATFORM_NOT_FOUND_KHR (-1001)
#define DAG__CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define DAG__CL_DEVICE_NAME 0x102B
#define DAG__CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define DAG__CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define DAG__CL_PLATFORM_NAME 0x0902
#define DAG__CL_MEM_READ_WRITE 1
#define DAG__CL_PROGRAM_BUILD_LOG 0x1183
#define DAG__CL_QUEUE_PROFILING_ENABLE 2
#define DAG__CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3
#define DAG__CL_COMPLETE 0
#define DAG__CL_PROFILING_COMMAND_START 0x1282
#define DAG__CL_PROFILING_COMMAND_END 0x1283

/* >>opencl symbols: one line each */
#define DAG__CL_SYMBOLS(X) \
    X(clGetPlatformIDs, dag__cl_int, (dag__cl_uint, dag__cl_platform_id *, dag__cl_uint *)) \
    X(clGetPlatformInfo, dag__cl_int, (dag__cl_platform_id, dag__cl_uint, size_t, void *, size_t *)) \
    X(clGetDeviceIDs, dag__cl_int, (dag__cl_platform_id, dag__cl_ulong, dag__cl_uint, dag__cl_device_id *, dag__cl_uint *)) \
    X(clGetDeviceInfo, dag__cl_int, (dag__cl_device_id, dag__cl_uint, size_t, void *, size_t *)) \
    X(clCreateContext, dag__cl_context, (const intptr_t *, dag__cl_uint, const dag__cl_device_id *, void *, void *, dag__cl_int *)) \
    X(clCreateCommandQueue, dag__cl_queue, (dag__cl_context, dag__cl_device_id, dag__cl_ulong, dag__cl_int *)) \
    X(clCreateBuffer, dag__cl_mem, (dag__cl_context, dag__cl_ulong, size_t, void *, dag__cl_int *)) \
    X(clEnqueueWriteBuffer, dag__cl_int, (dag__cl_queue, dag__cl_mem, dag__cl_uint, size_t, size_t, const void *, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clEnqueueReadBuffer, dag__cl_int, (dag__cl_queue, dag__cl_mem, dag__cl_uint, size_t, size_t, void *, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clCreateProgramWithSource, dag__cl_program, (dag__cl_context, dag__cl_uint, const char **, const size_t *, dag__cl_int *)) \
    X(clBuildProgram, dag__cl_int, (dag__cl_program, dag__cl_uint, const dag__cl_device_id *, const char *, void *, void *)) \
    X(clGetProgramBuildInfo, dag__cl_int, (dag__cl_program, dag__cl_device_id, dag__cl_uint, size_t, void *, size_t *)) \
    X(clCreateKernel, dag__cl_kernel, (dag__cl_program, const char *, dag__cl_int *)) \
    X(clSetKernelArg, dag__cl_int, (dag__cl_kernel, dag__cl_uint, size_t, const void *)) \
    X(clEnqueueNDRangeKernel, dag__cl_int, (dag__cl_queue, dag__cl_kernel, dag__cl_uint, const size_t *, const size_t *, const size_t *, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clWaitForEvents, dag__cl_int, (dag__cl_uint, const dag__cl_event *)) \
    X(clReleaseEvent, dag__cl_int, (dag__cl_event)) \
    X(clGetEventInfo, dag__cl_int, (dag__cl_event, dag__cl_uint, size_t, void *, size_t *)) \
    X(clGetEventProfilingInfo, dag__cl_int, (dag__cl_event, dag__cl_uint, size_t, void *, size_t *)) \
    X(clEnqueueWriteBufferRect, dag__cl_int, (dag__cl_queue, dag__cl_mem, dag__cl_uint, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, const void *, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clEnqueueReadBufferRect, dag__cl_int, (dag__cl_queue, dag__cl_mem, dag__cl_uint, const size_t *, const size_t *, const size_t *, size_t, size_t, size_t, size_t, void *, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clEnqueueMarkerWithWaitList, dag__cl_int, (dag__cl_queue, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clEnqueueBarrierWithWaitList, dag__cl_int, (dag__cl_queue, dag__cl_uint, const dag__cl_event *, dag__cl_event *)) \
    X(clFinish, dag__cl_int, (dag__cl_queue)) \
    X(clReleaseMemObject, dag__cl_int, (dag__cl_mem)) \
    X(clReleaseKernel, dag__cl_int, (dag__cl_kernel)) \
    X(clReleaseProgram, dag__cl_int, (dag__cl_program)) \
    X(clReleaseCommandQueue, dag__cl_int, (dag__cl_queue)) \
    X(clReleaseContext, dag__cl_int, (dag__cl_context))

#define DAG__CL_FIELD(name, ret, args) ret (*name) args;
typedef struct dag__cl_api { DAG__CL_SYMBOLS(DAG__CL_FIELD) } dag__cl_api;

#define DAG__CL_MAX_DEVICES 64
#define DAG__CL_LANES 4
typedef struct dag__cl_device_info {
    dag__cl_device_id id;
    dag__cl_platform_id platform;
    char name[128];
    uint64_t memory;
    uint64_t max_alloc;       /* CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest buffer */
    dag__cl_context context;
    dag__cl_queue queue[DAG__CL_LANES];   /* each in order; the device layer orders them (>>opencl lanes) */
    uint64_t queued[DAG__CL_LANES];       /* commands queued on each: the last one's mark */
    dag__cl_event marker[DAG__CL_LANES];  /* after what its lane had queued at mark marked[lane] */
    uint64_t marked[DAG__CL_LANES], waited[DAG__CL_LANES][DAG__CL_LANES];
} dag__cl_device_info;

static struct {
    void *lib;
    dag__cl_api api;
    dag__cl_device_info devices[DAG__CL_MAX_DEVICES];
    int num_devices;
} dag__cl;

/* OpenCL's name for an error code (cl.h's), with a word on the ones a kernel's text causes. */
static const char *dag__cl_error_text(int e, char *buf, size_t size) {
    static const char *const names[] = {
        "CL_SUCCESS", "CL_DEVICE_NOT_FOUND", "CL_DEVICE_NOT_AVAILABLE", "CL_COMPILER_NOT_AVAILABLE",
        "CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY",
        "CL_PROFILING_INFO_NOT_AVAILABLE", "CL_MEM_COPY_OVERLAP", "CL_IMAGE_FORMAT_MISMATCH",
        "CL_IMAGE_FORMAT_NOT_SUPPORTED", "CL_BUILD_PROGRAM_FAILURE", "CL_MAP_FAILURE",
        "CL_MISALIGNED_SUB_BUFFER_OFFSET", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        "CL_COMPILE_PROGRAM_FAILURE", "CL_LINKER_NOT_AVAILABLE", "CL_LINK_PROGRAM_FAILURE",
        "CL_DEVICE_PARTITION_FAILED", "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"
    };
    static const char *const invalid[] = {   /* -30 on */
        "CL_INVALID_VALUE", "CL_INVALID_DEVICE_TYPE", "CL_INVALID_PLATFORM", "CL_INVALID_DEVICE",
        "CL_INVALID_CONTEXT", "CL_INVALID_QUEUE_PROPERTIES", "CL_INVALID_COMMAND_QUEUE", "CL_INVALID_HOST_PTR",
        "CL_INVALID_MEM_OBJECT", "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", "CL_INVALID_IMAGE_SIZE",
        "CL_INVALID_SAMPLER", "CL_INVALID_BINARY", "CL_INVALID_BUILD_OPTIONS", "CL_INVALID_PROGRAM",
        "CL_INVALID_PROGRAM_EXECUTABLE", "CL_INVALID_KERNEL_NAME", "CL_INVALID_KERNEL_DEFINITION",
        "CL_INVALID_KERNEL", "CL_INVALID_ARG_INDEX", "CL_INVALID_ARG_VALUE",
        "CL_INVALID_ARG_SIZE: a parameter's type has another size in OpenCL C (size_t, bool?)",
        "CL_INVALID_KERNEL_ARGS", "CL_INVALID_WORK_DIMENSION", "CL_INVALID_WORK_GROUP_SIZE",
        "CL_INVALID_WORK_ITEM_SIZE", "CL_INVALID_GLOBAL_OFFSET", "CL_INVALID_EVENT_WAIT_LIST", "CL_INVALID_EVENT",
        "CL_INVALID_OPERATION", "CL_INVALID_GL_OBJECT", "CL_INVALID_BUFFER_SIZE", "CL_INVALID_MIP_LEVEL",
        "CL_INVALID_GLOBAL_WORK_SIZE", "CL_INVALID_PROPERTY", "CL_INVALID_IMAGE_DESCRIPTOR",
        "CL_INVALID_COMPILER_OPTIONS", "CL_INVALID_LINKER_OPTIONS", "CL_INVALID_DEVICE_PARTITION_COUNT"
    };
    const char *name = e <= 0 && -e < (int)(sizeof names / sizeof names[0]) ? names[-e]
                     : e <= -30 && -e - 30 < (int)(sizeof invalid / sizeof invalid[0]) ? invalid[-e - 30]
                     : e == DAG__CL_PLATFORM_NOT_FOUND_KHR ? "CL_PLATFORM_NOT_FOUND_KHR (the ICD loader found no platform)"
                     : "an OpenCL error";
    snprintf(buf, size, "%s", name);
    return buf;
}

/* Loads the library and lists every device of every platform. Returns how
   many, or -1 with why not in `why`. */
static int dag__cl_init(char *why, size_t why_size) {
    const char *lib_name = "libOpenCL.so.1";
    if (!dag__cl.lib) dag__cl.lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!dag__cl.lib) {
        snprintf(why, why_size, "cannot load %s: %s", lib_name, dlerror());
        return -1;
    }
#define DAG__CL_SLOT(name, ret, args) { #name, &dag__cl.api.name },
    const dag__dl_symbol symbols[] = { DAG__CL_SYMBOLS(DAG__CL_SLOT) };
#undef DAG__CL_SLOT
    if (!dag__dl_bind(dag__cl.lib, lib_name, symbols, DAG__DL_COUNT(symbols), why, why_size)) return -1;
    dag__cl_platform_id platforms[16];
    dag__cl_uint num_platforms = 0;
    dag__cl_int e = dag__cl.api.clGetPlatformIDs(16, platforms, &num_platforms);
    if (e != DAG__CL_SUCCESS || num_platforms == 0) {
        char text[160];
        snprintf(why, why_size, "clGetPlatformIDs returned %d: %s", (int)e,
                 e ? dag__cl_error_text(e, text, sizeof text) : "no platform");
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
            mem = 0;
            dag__cl.api.clGetDeviceInfo(ids[d], DAG__CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof mem, &mem, NULL);
            info->max_alloc = mem;
            dag__cl_int ce = 0;
            info->context = dag__cl.api.clCreateContext(NULL, 1, &ids[d], NULL, NULL, &ce);
            for (int l = 0; info->context && l < DAG__CL_LANES && (l == 0 || info->queue[l - 1]); l++)
                info->queue[l] = dag__cl.api.clCreateCommandQueue(info->context, ids[d], DAG__CL_QUEUE_PROFILING_ENABLE, &ce);
            if (!info->context || !info->queue[DAG__CL_LANES - 1]) {
                snprintf(why, why_size, "device %d (%s): no context or queue (error %d)", dag__cl.num_devices,
                         info->name, (int)ce);
                return -1;
            }
        }
    }
    if (dag__cl.num_devices == 0) {
        snprintf(why, why_size, "%u OpenCL platform(s), no device", (unsigned)num_platforms);
        return -1;
    }
    snprintf(why, why_size, "%d OpenCL device(s); device 1: %s", dag__cl.num_devices, dag__cl.devices[0].name);
    return dag__cl.num_devices;
}


/* >>opencl device operations: through the generic layer's table (device:
   0-based index). Buffers, kernels and events go through void pointers. */
static int dag__cl_alloc(int dev, size_t bytes, void **buf) {
    dag__cl_int e = 0;
    *buf = dag__cl.api.clCreateBuffer(dag__cl.devices[dev].context, DAG__CL_MEM_READ_WRITE, bytes, NULL, &e);
    return *buf ? 0 : (e ? e : -1);
}
static void dag__cl_free(int dev, void *buf) {
    (void)dev;
    dag__cl.api.clReleaseMemObject((dag__cl_mem)buf);
}

/* Copies between a host span (rows runs of width bytes, stride apart) and a
   buffer that holds the runs packed, asynchronous on the device's queue
   (its one lane). */
static int dag__cl_copy(int dev, int lane, void *buf, void *host, size_t rows, size_t width, size_t stride, int how,
                        void **done) {
    int to_device = how & DAG__COPY_TO_DEVICE;
    dag__cl_queue q = dag__cl.devices[dev].queue[lane];
    dag__cl.devices[dev].queued[lane]++;
    dag__cl_mem m = (dag__cl_mem)buf;
    dag__cl_event *ev = (dag__cl_event *)done;
    if (rows == 1)
        return to_device ? dag__cl.api.clEnqueueWriteBuffer(q, m, 0, 0, width, host, 0, NULL, ev)
                         : dag__cl.api.clEnqueueReadBuffer(q, m, 0, 0, width, host, 0, NULL, ev);
    size_t origin[3] = { 0, 0, 0 }, region[3] = { width, rows, 1 };
    return to_device ? dag__cl.api.clEnqueueWriteBufferRect(q, m, 0, origin, origin, region, width, 0, stride, 0, host, 0, NULL, ev)
                     : dag__cl.api.clEnqueueReadBufferRect(q, m, 0, origin, origin, region, width, 0, stride, 0, host, 0, NULL, ev);
}

/* Builds the kernel's OpenCL C text for one device; on failure the
   compiler's log goes to `log`. */
static int dag__cl_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    dag__cl_device_info *d = &dag__cl.devices[dev];
    dag__cl_int e = 0;
    log[0] = 0;
    *kernel = NULL;
    char *source = dag_kernel_opencl_source(k);
    if (!source) return DAG_ERR_OUT_OF_MEMORY;
    const char *text = source;
    dag__cl_program p = dag__cl.api.clCreateProgramWithSource(d->context, 1, &text, NULL, &e);
    free(source);
    if (!p) {
        char name[160];
        snprintf(log, log_size, "clCreateProgramWithSource returned %d (%s)", (int)e, dag__cl_error_text(e, name, sizeof name));
        return e ? e : -1;
    }
    e = dag__cl.api.clBuildProgram(p, 1, &d->id, "", NULL, NULL);
    if (e != DAG__CL_SUCCESS) {   /* the log, asked for its size first: a long one (many errors) is cut, not lost */
        size_t n = 0;
        char *text = dag__cl.api.clGetProgramBuildInfo(p, d->id, DAG__CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == DAG__CL_SUCCESS && n
                         ? (char *)DAG_MALLOC(n + 1) : NULL;
        if (text && dag__cl.api.clGetProgramBuildInfo(p, d->id, DAG__CL_PROGRAM_BUILD_LOG, n, text, NULL) == DAG__CL_SUCCESS)
            text[n] = 0, snprintf(log, log_size, "%s", text);
        DAG_FREE(text);
        dag__cl.api.clReleaseProgram(p);
        return e;
    }
    size_t len = strlen(k->name) + sizeof "dag_k_";   /* (dag_kernel_opencl_source's name for it) */
    char *function = (char *)DAG_MALLOC(len);
    if (!function) {
        dag__cl.api.clReleaseProgram(p);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    snprintf(function, len, "dag_k_%s", k->name);
    *kernel = dag__cl.api.clCreateKernel(p, function, &e);
    dag__cl.api.clReleaseProgram(p);   /* the kernel keeps it alive */
    char name[160];
    if (!*kernel) snprintf(log, log_size, "clCreateKernel(%s) returned %d (%s)", function, (int)e, dag__cl_error_text(e, name, sizeof name));
    DAG_FREE(function);
    return *kernel ? 0 : (e ? e : -1);
}

/* Launches k over [0, n): the global size is rounded up to 64 and the
   kernel's own guard stops the rest. The first kernel argument is n. The
   caller holds the device layer's lock, so no two threads set arguments of
   one kernel at once. */
static int dag__cl_launch(int dev, int lane, void *kernel, size_t n, const dag_kernel_arg *args, int num_args,
                          void **done) {
    dag__cl_kernel k = (dag__cl_kernel)kernel;
    dag__cl_ulong range = n;
    int e = dag__cl.api.clSetKernelArg(k, 0, sizeof range, &range);
    for (int i = 0; e == DAG__CL_SUCCESS && i < num_args; i++)
        e = args[i].buffer ? dag__cl.api.clSetKernelArg(k, (dag__cl_uint)i + 1, sizeof(void *), &args[i].buffer)
                           : dag__cl.api.clSetKernelArg(k, (dag__cl_uint)i + 1, args[i].size, args[i].value);
    if (e != DAG__CL_SUCCESS) return e;
    size_t global = (n + 63) / 64 * 64;
    if (!global) global = 64;
    dag__cl.devices[dev].queued[lane]++;
    return dag__cl.api.clEnqueueNDRangeKernel(dag__cl.devices[dev].queue[lane], k, 1, NULL, &global, NULL, 0, NULL,
                                              (dag__cl_event *)done);
}

/* A library routine on its lane's queue. Its event is the routine's last
   command's; where it gives none, a marker after it stands for it (the
   queue is in order). */
static int dag__cl_call_library(int dev, int lane, const dag_library_kernel *lib, size_t n, const dag_kernel_arg *args,
                                int num_args, void **done) {
    dag__cl_queue *q = &dag__cl.devices[dev].queue[lane];
    dag__cl.devices[dev].queued[lane]++;
    if (done) *done = NULL;
    int e = lib->call(lib, q, dev, n, args, num_args, done);
    if (!e && done && !*done) e = dag__cl.api.clEnqueueMarkerWithWaitList(*q, 0, NULL, (dag__cl_event *)done);
    return e;
}
static void dag__cl_release_library(int dev, const dag_library_kernel *lib) { lib->release(&dag__cl.devices[dev].queue[0], dev); }

/* >>opencl lanes: the mark of the command last queued on a lane; and lane's next command made to
   wait for from's commands up to mark, by a barrier on lane after a marker on from (a marker is
   enqueued again only when a wait asks for more than the last one covers, and a lane that already
   waits for a later mark of from does nothing). */
static uint64_t dag__cl_mark(int dev, int lane) { return dag__cl.devices[dev].queued[lane]; }
static int dag__cl_wait_lane(int dev, int lane, int from, uint64_t mark) {
    dag__cl_device_info *d = &dag__cl.devices[dev];
    if (lane == from || d->waited[lane][from] >= mark) return 0;
    if (!d->marker[from] || d->marked[from] < mark) {
        dag__cl_event ev = NULL;
        int e = dag__cl.api.clEnqueueMarkerWithWaitList(d->queue[from], 0, NULL, &ev);
        if (e) return e;
        if (d->marker[from]) dag__cl.api.clReleaseEvent(d->marker[from]);
        d->marker[from] = ev;
        d->marked[from] = d->queued[from];
    }
    int e = dag__cl.api.clEnqueueBarrierWithWaitList(d->queue[lane], 1, &d->marker[from], NULL);
    if (!e) d->waited[lane][from] = d->marked[from];
    return e;
}

static int dag__cl_wait(void *event) {
    dag__cl_event e = (dag__cl_event)event;
    return dag__cl.api.clWaitForEvents(1, &e);
}
static int dag__cl_query(void *event) {
    dag__cl_int status = 0;
    int e = dag__cl.api.clGetEventInfo((dag__cl_event)event, DAG__CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                       &status, NULL);
    if (e != DAG__CL_SUCCESS) return e < 0 ? e : -1;
    return status == DAG__CL_COMPLETE ? 1 : status < 0 ? status : 0;
}
static double dag__cl_elapsed(void *event) {
    dag__cl_ulong start = 0, end = 0;
    dag__cl.api.clGetEventProfilingInfo((dag__cl_event)event, DAG__CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    dag__cl.api.clGetEventProfilingInfo((dag__cl_event)event, DAG__CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    return end > start ? (double)(end - start) * 1e-9 : 0.0;
}
static void dag__cl_release(void *event) { dag__cl.api.clReleaseEvent((dag__cl_event)event); }
static int dag__cl_synchronize(int dev) {
    int err = 0;
    for (int l = 0; l < DAG__CL_LANES; l++) {
        int e = dag__cl.api.clFinish(dag__cl.devices[dev].queue[l]);
        if (e && !err) err = e;
    }
    return err;
}
static size_t dag__cl_memory(int dev) { return (size_t)dag__cl.devices[dev].memory; }
static size_t dag__cl_max_alloc(int dev) { return (size_t)dag__cl.devices[dev].max_alloc; }
static const char *dag__cl_device_name(int dev) { return dag__cl.devices[dev].name; }

static void dag__cl_release_kernel(int dev, void *k) {
    (void)dev;
    dag__cl.api.clReleaseKernel((dag__cl_kernel)k);
}
static bool dag__cl_has_kernel(int dev, const dag_kernel_source *k) {   /* built from its text */
    (void)dev;
    return k->body != NULL;
}

/* The library stays loaded: ICDs keep threads and state that do not
   survive being unloaded, and a later dag_setup finds it again. */
static void dag__cl_shutdown(void) {
    for (int i = 0; i < dag__cl.num_devices; i++) {
        for (int l = 0; l < DAG__CL_LANES; l++) {
            if (dag__cl.devices[i].marker[l]) dag__cl.api.clReleaseEvent(dag__cl.devices[i].marker[l]);
            if (dag__cl.devices[i].queue[l]) dag__cl.api.clReleaseCommandQueue(dag__cl.devices[i].queue[l]);
        }
        if (dag__cl.devices[i].context) dag__cl.api.clReleaseContext(dag__cl.devices[i].context);
    }
    void *lib = dag__cl.lib;
    memset(&dag__cl, 0, sizeof dag__cl);
    dag__cl.lib = lib;
}

/* CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES: full; anything else fails at once */
static bool dag__cl_out_of_memory(int e) { return e == -4 || e == -5; }
static const dag__device_ops dag__opencl_ops = {
    DAG_OPENCL, "OpenCL", "cl", dag__cl_init, dag__cl_shutdown, dag__cl_alloc, dag__cl_free, dag__cl_copy,
    NULL /* peer copies: OpenCL has none across contexts */, dag__cl_has_kernel, dag__cl_build, dag__cl_release_kernel,
    dag__cl_launch, dag__cl_wait, dag__cl_query, dag__cl_elapsed, dag__cl_release, dag__cl_synchronize,
    dag__cl_memory, dag__cl_device_name, 0 /* a size_t global size: no limit of its own */, dag__cl_max_alloc,
    dag__cl_call_library, dag__cl_release_library, dag__cl_out_of_memory, dag__cl_error_text, NULL,
    DAG__CL_LANES, dag__cl_mark, dag__cl_wait_lane, NULL, NULL /* no pinning: the ICD copies as it sees fit */,
    NULL, NULL /* no device tracks: tasks' rows only */
};

#endif /* DAG_BACKEND_OPENCL, DAG_OPENCL_H_INCLUDED */
