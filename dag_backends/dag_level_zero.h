/* dag_level_zero.h: the Level Zero backend of dag.h (-DDAG_BACKEND_LEVEL_ZERO).

   Uses from dag_device.h: the device-operations table it fills
   (dag__device_ops), the loader helpers dag__dl_bind, dag__dl_symbol and DAG__DL_COUNT; from
   dag.h, dag_log.

   Included only by dag_device.h, in dag.h's implementation. It takes its
   types from the SDK header (libze-dev) but loads the loader
   (libze_loader.so.1) at run time, so a binary built with the flag runs
   where Level Zero is missing: without a loader, a driver or a device, the backend reports itself unavailable
   with the loader's own error, and everything runs on the CPU.

   It finds the drivers and their devices, and gives each driver a context
   and each device an immediate command list, an event pool (with kernel
   timestamps, for the cost model), staging buffers from zeMemAllocHost
   (every copy between the program's memory and a device goes through one,
   as the spec asks) and a module cache. Kernels come compiled
   ahead of time as SPIR-V (dag_native_kernel). It fills the generic device
   layer's table (dag__device_ops); everything else (replicas, coherence,
   pools, placement) lives in dag_device.h. Private names: dag__ze_*.

   Parts: >>level zero symbols >>level zero ordering >>level zero device operations
*/
/* dag_device.h includes every backend file: each compiles under its own flag alone */
#if DAG__ON(DAG_BACKEND_LEVEL_ZERO) && !defined(DAG_LEVEL_ZERO_H_INCLUDED)
#define DAG_LEVEL_ZERO_H_INCLUDED

#if defined(__has_include)
#if !__has_include(<level_zero/ze_api.h>)
#error "dag.h: -DDAG_BACKEND_LEVEL_ZERO needs the Level Zero headers: apt-get install libze-dev (the loader itself is loaded at run time)"
#endif
#endif
#include <level_zero/ze_api.h>

/* >>level zero symbols: one line each */
#define DAG__ZE_SYMBOLS(X) \
    X(zeInit, (ze_init_flags_t)) \
    X(zeDriverGet, (uint32_t *, ze_driver_handle_t *)) \
    X(zeDeviceGet, (ze_driver_handle_t, uint32_t *, ze_device_handle_t *)) \
    X(zeDeviceGetProperties, (ze_device_handle_t, ze_device_properties_t *)) \
    X(zeDeviceGetComputeProperties, (ze_device_handle_t, ze_device_compute_properties_t *)) \
    X(zeDeviceGetModuleProperties, (ze_device_handle_t, ze_device_module_properties_t *)) \
    X(zeDeviceGetMemoryProperties, (ze_device_handle_t, uint32_t *, ze_device_memory_properties_t *)) \
    X(zeDeviceGetCommandQueueGroupProperties, (ze_device_handle_t, uint32_t *, ze_command_queue_group_properties_t *)) \
    X(zeDeviceCanAccessPeer, (ze_device_handle_t, ze_device_handle_t, ze_bool_t *)) \
    X(zeContextCreate, (ze_driver_handle_t, const ze_context_desc_t *, ze_context_handle_t *)) \
    X(zeContextDestroy, (ze_context_handle_t)) \
    X(zeCommandListCreateImmediate, (ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t *, ze_command_list_handle_t *)) \
    X(zeCommandListDestroy, (ze_command_list_handle_t)) \
    X(zeCommandListAppendBarrier, (ze_command_list_handle_t, ze_event_handle_t, uint32_t, ze_event_handle_t *)) \
    X(zeCommandListAppendMemoryCopy, (ze_command_list_handle_t, void *, const void *, size_t, ze_event_handle_t, uint32_t, ze_event_handle_t *)) \
    X(zeCommandListAppendMemoryCopyRegion, (ze_command_list_handle_t, void *, const ze_copy_region_t *, uint32_t, uint32_t, const void *, const ze_copy_region_t *, uint32_t, uint32_t, ze_event_handle_t, uint32_t, ze_event_handle_t *)) \
    X(zeCommandListAppendLaunchKernel, (ze_command_list_handle_t, ze_kernel_handle_t, const ze_group_count_t *, ze_event_handle_t, uint32_t, ze_event_handle_t *)) \
    X(zeEventPoolCreate, (ze_context_handle_t, const ze_event_pool_desc_t *, uint32_t, ze_device_handle_t *, ze_event_pool_handle_t *)) \
    X(zeEventPoolDestroy, (ze_event_pool_handle_t)) \
    X(zeEventCreate, (ze_event_pool_handle_t, const ze_event_desc_t *, ze_event_handle_t *)) \
    X(zeEventDestroy, (ze_event_handle_t)) \
    X(zeEventHostSynchronize, (ze_event_handle_t, uint64_t)) \
    X(zeEventQueryStatus, (ze_event_handle_t)) \
    X(zeEventHostReset, (ze_event_handle_t)) \
    X(zeEventQueryKernelTimestamp, (ze_event_handle_t, ze_kernel_timestamp_result_t *)) \
    X(zeMemAllocDevice, (ze_context_handle_t, const ze_device_mem_alloc_desc_t *, size_t, size_t, ze_device_handle_t, void **)) \
    X(zeMemAllocHost, (ze_context_handle_t, const ze_host_mem_alloc_desc_t *, size_t, size_t, void **)) \
    X(zeMemFree, (ze_context_handle_t, void *)) \
    X(zeModuleCreate, (ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t *, ze_module_handle_t *, ze_module_build_log_handle_t *)) \
    X(zeModuleDestroy, (ze_module_handle_t)) \
    X(zeModuleBuildLogGetString, (ze_module_build_log_handle_t, size_t *, char *)) \
    X(zeModuleBuildLogDestroy, (ze_module_build_log_handle_t)) \
    X(zeKernelCreate, (ze_module_handle_t, const ze_kernel_desc_t *, ze_kernel_handle_t *)) \
    X(zeKernelDestroy, (ze_kernel_handle_t)) \
    X(zeKernelSetGroupSize, (ze_kernel_handle_t, uint32_t, uint32_t, uint32_t)) \
    X(zeKernelSuggestGroupSize, (ze_kernel_handle_t, uint32_t, uint32_t, uint32_t, uint32_t *, uint32_t *, uint32_t *)) \
    X(zeKernelSetArgumentValue, (ze_kernel_handle_t, uint32_t, size_t, const void *))

#define DAG__ZE_FIELD(name, args) ze_result_t (ZE_APICALL *name) args;
typedef struct dag__ze_api { DAG__ZE_SYMBOLS(DAG__ZE_FIELD) } dag__ze_api;

#define DAG__ZE_MAX_DRIVERS 8
#define DAG__ZE_MAX_DEVICES 16
#define DAG__ZE_EVENTS 256     /* event slots per device; the pool has one more, the device's sync event */
#define DAG__ZE_GROUP 256      /* work-group size, unless the kernel cannot take it */

#define DAG__ZE_STAGE_MIN (64u << 10)      /* staging buffers come in powers of two from here */
#define DAG__ZE_STAGE_MAX (16u << 20)      /* a larger copy gets a staging buffer of its own, freed after it */
#define DAG__ZE_STAGE_TOTAL (256u << 20)   /* kept staging bytes per device at most */

/* A host buffer from zeMemAllocHost that copies go through: the spec lets a
   device copy only memory of its context, not the program's malloc'd
   bytes. Busy from its copy's append until that copy's event is recycled. */
typedef struct dag__ze_stage {
    void *ptr;
    size_t bytes;
    bool busy, own;                  /* own: one copy's, freed after it */
    struct dag__ze_stage *next;
} dag__ze_stage;

/* An event handed to the generic layer: one slot of its device's pool, and
   the staging buffer its copy uses (a download's is unpacked into host,
   rows runs of width bytes stride apart, when it is waited for). */
typedef struct dag__ze_event {
    int dev;
    uint32_t slot;
    ze_event_handle_t handle;
    dag__ze_stage *stage;
    void *host;
    size_t rows, width, stride;
} dag__ze_event;
typedef struct dag__ze_kernel { ze_kernel_handle_t handle; uint32_t group; } dag__ze_kernel;
typedef struct dag__ze_module { const unsigned char *image; ze_module_handle_t handle; } dag__ze_module;

typedef struct dag__ze_device_info {
    ze_device_handle_t id;
    ze_context_handle_t context;   /* its driver's: peer copies need one context */
    ze_command_list_handle_t list;
    ze_event_pool_handle_t pool;
    ze_event_handle_t sync;        /* signalled by a barrier to drain the list */
    bool sync_armed;               /* a queued command may still signal sync: waited for before its next use */
    int sync_reader;               /* 1 + the device whose queued peer copy waits on sync; 0: none */
    bool unordered;                /* a command since the last barrier (see dag__ze_order) */
    bool fp64;                     /* ZE_DEVICE_MODULE_FLAG_FP64: it builds modules that declare Float64 */
    bool fp64_said;                /* the info line that kernels using double run elsewhere */
    char name[ZE_MAX_DEVICE_NAME];
    uint64_t memory;
    uint64_t max_alloc;            /* maxMemAllocSize: larger buffers need relaxed limits, which dag.h does not ask for */
    uint32_t max_groups;           /* maxGroupCountX: the most work-groups of one launch */
    uint32_t max_group_size;       /* maxTotalGroupSize: the most items of one work-group */
    double tick_ns;                /* timestamp tick */
    uint64_t tick_mask;            /* valid bits of kernel timestamps */
    dag__ze_event events[DAG__ZE_EVENTS];
    uint32_t free_slots[DAG__ZE_EVENTS], retiring[DAG__ZE_EVENTS];
    int num_free, num_retiring;
    dag__ze_module *modules;       /* built once per SPIR-V image, destroyed at shutdown */
    dag__ze_stage *stages;         /* kept staging buffers */
    size_t staged_bytes;
    int num_modules, cap_modules;
} dag__ze_device_info;

static struct {
    void *lib;
    dag__ze_api api;
    ze_context_handle_t contexts[DAG__ZE_MAX_DRIVERS];
    int num_contexts;
    dag__ze_device_info devices[DAG__ZE_MAX_DEVICES];
    int num_devices;
} dag__ze;

#define DAG__ZE_RESULTS(X) \
    X(ZE_RESULT_NOT_READY) X(ZE_RESULT_ERROR_DEVICE_LOST) X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY) \
    X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY) X(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE) X(ZE_RESULT_ERROR_UNINITIALIZED) \
    X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION) X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) X(ZE_RESULT_ERROR_INVALID_ARGUMENT) \
    X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE) X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE) X(ZE_RESULT_ERROR_INVALID_KERNEL_NAME) \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE) X(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION) X(ZE_RESULT_ERROR_UNKNOWN)
static const char *dag__ze_result_name(ze_result_t r) {
#define DAG__ZE_CASE(name) case name: return #name;
    switch (r) { DAG__ZE_RESULTS(DAG__ZE_CASE) default: return "Level Zero error"; }
#undef DAG__ZE_CASE
}

static int dag__ze_fail(char *why, size_t why_size, const char *what, ze_result_t r) {
    snprintf(why, why_size, "%s returned 0x%x (%s)", what, (unsigned)r, dag__ze_result_name(r));
    return -1;
}

/* Sets up one device: its name, memory, fp64 support, command list, events.
   Returns 0, 1 for a device that is no GPU, or -1 with why in `why`. */
static int dag__ze_device_init(dag__ze_device_info *d, char *why, size_t why_size) {
    dag__ze_api *z = &dag__ze.api;
    /* DEVICE_PROPERTIES (not _1_2) gives timerResolution in ns per tick */
    ze_device_properties_t props = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
    ze_result_t r = z->zeDeviceGetProperties(d->id, &props);
    if (r != ZE_RESULT_SUCCESS) return dag__ze_fail(why, why_size, "zeDeviceGetProperties", r);
    memcpy(d->name, props.name, sizeof d->name - 1);
    if (props.type != ZE_DEVICE_TYPE_GPU) {   /* an NPU or an FPGA: not a device for these kernels */
        snprintf(why, why_size, "not a GPU (device type %d)", (int)props.type);
        return 1;
    }
    ze_device_compute_properties_t cp = { .stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES };
    if ((r = z->zeDeviceGetComputeProperties(d->id, &cp)) != ZE_RESULT_SUCCESS)
        return dag__ze_fail(why, why_size, "zeDeviceGetComputeProperties", r);
    d->max_groups = cp.maxGroupCountX ? cp.maxGroupCountX : UINT32_MAX;
    d->max_group_size = cp.maxTotalGroupSize;
    ze_device_module_properties_t mp = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES };
    d->fp64 = z->zeDeviceGetModuleProperties(d->id, &mp) == ZE_RESULT_SUCCESS && (mp.flags & ZE_DEVICE_MODULE_FLAG_FP64);
    d->max_alloc = props.maxMemAllocSize;
    d->tick_ns = (double)props.timerResolution;
    unsigned bits = props.kernelTimestampValidBits;
    d->tick_mask = bits == 0 || bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    ze_device_memory_properties_t mem[8];
    uint32_t n = 8;
    for (uint32_t i = 0; i < n; i++) mem[i] = (ze_device_memory_properties_t){ .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES };
    if (z->zeDeviceGetMemoryProperties(d->id, &n, mem) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < n && i < 8; i++) d->memory += mem[i].totalSize;
    /* one list carries copies and kernels: a group that computes */
    ze_command_queue_group_properties_t groups[16];
    uint32_t num_groups = 16, ordinal = 0;
    for (uint32_t i = 0; i < num_groups; i++)
        groups[i] = (ze_command_queue_group_properties_t){ .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES };
    if (z->zeDeviceGetCommandQueueGroupProperties(d->id, &num_groups, groups) == ZE_RESULT_SUCCESS)
        while (ordinal + 1 < num_groups && ordinal + 1 < 16 && !(groups[ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE))
            ordinal++;
    ze_command_queue_desc_t qd = { .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = ordinal,
                                   .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL };
    if ((r = z->zeCommandListCreateImmediate(d->context, d->id, &qd, &d->list)) != ZE_RESULT_SUCCESS)
        return dag__ze_fail(why, why_size, "zeCommandListCreateImmediate", r);
    /* numDevices 0: every device of the context may wait on these (peer copies) */
    ze_event_pool_desc_t pd = { .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
                                .count = DAG__ZE_EVENTS + 1 };
    if ((r = z->zeEventPoolCreate(d->context, &pd, 0, NULL, &d->pool)) != ZE_RESULT_SUCCESS)
        return dag__ze_fail(why, why_size, "zeEventPoolCreate", r);
    ze_event_desc_t ed = { .stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = DAG__ZE_EVENTS,
                           .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST };
    if ((r = z->zeEventCreate(d->pool, &ed, &d->sync)) != ZE_RESULT_SUCCESS) return dag__ze_fail(why, why_size, "zeEventCreate", r);
    for (int i = 0; i < DAG__ZE_EVENTS; i++) d->free_slots[d->num_free++] = (uint32_t)(DAG__ZE_EVENTS - 1 - i);
    return 0;
}

/* Frees what dag__ze_device_init made of a device that is then skipped. */
static void dag__ze_device_destroy(dag__ze_device_info *d) {
    if (d->sync) dag__ze.api.zeEventDestroy(d->sync);
    if (d->pool) dag__ze.api.zeEventPoolDestroy(d->pool);
    if (d->list) dag__ze.api.zeCommandListDestroy(d->list);
    memset(d, 0, sizeof *d);
}

/* Loads the loader and lists every GPU of every GPU driver (ZE_INIT_FLAG_GPU_ONLY:
   an NPU driver stays closed). A device that fails to come up is skipped, said
   in the log and in the backend's status, and the others work. Returns how
   many, or -1 with why not in `why`. */
static int dag__ze_init(char *why, size_t why_size) {
    const char *lib_name = "libze_loader.so.1";
    if (!dag__ze.lib) dag__ze.lib = dlopen(lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!dag__ze.lib) {
        snprintf(why, why_size, "cannot load %s: %s", lib_name, dlerror());
        return -1;
    }
#define DAG__ZE_SLOT(name, args) { #name, &dag__ze.api.name },
    const dag__dl_symbol symbols[] = { DAG__ZE_SYMBOLS(DAG__ZE_SLOT) };
#undef DAG__ZE_SLOT
    if (!dag__dl_bind(dag__ze.lib, lib_name, symbols, DAG__DL_COUNT(symbols), why, why_size)) return -1;
    dag__ze_api *z = &dag__ze.api;
    ze_result_t r = z->zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (r != ZE_RESULT_SUCCESS) return dag__ze_fail(why, why_size, "zeInit", r);
    ze_driver_handle_t drivers[DAG__ZE_MAX_DRIVERS];
    uint32_t num_drivers = DAG__ZE_MAX_DRIVERS;
    if ((r = z->zeDriverGet(&num_drivers, drivers)) != ZE_RESULT_SUCCESS) return dag__ze_fail(why, why_size, "zeDriverGet", r);
    char skipped[256] = "";
    int num_skipped = 0, seen = 0;
    for (uint32_t i = 0; i < num_drivers && i < DAG__ZE_MAX_DRIVERS; i++) {
        ze_device_handle_t ids[DAG__ZE_MAX_DEVICES];
        uint32_t n = DAG__ZE_MAX_DEVICES;
        if (z->zeDeviceGet(drivers[i], &n, ids) != ZE_RESULT_SUCCESS || n == 0) continue;
        ze_context_desc_t cd = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
        ze_context_handle_t context = NULL;
        if ((r = z->zeContextCreate(drivers[i], &cd, &context)) != ZE_RESULT_SUCCESS) {
            char what[128];
            dag__ze_fail(what, sizeof what, "zeContextCreate", r);
            dag_log(DAG_LOG_WARN, DAG_OK, "Level Zero: driver %u skipped: %s", (unsigned)i + 1, what);
            num_skipped++;
            continue;
        }
        dag__ze.contexts[dag__ze.num_contexts++] = context;
        for (uint32_t k = 0; k < n && k < DAG__ZE_MAX_DEVICES && dag__ze.num_devices < DAG__ZE_MAX_DEVICES; k++) {
            dag__ze_device_info *d = &dag__ze.devices[dag__ze.num_devices++];   /* counted first: shutdown frees what exists */
            memset(d, 0, sizeof *d);
            d->id = ids[k];
            d->context = context;
            seen++;
            char what[128];
            int e = dag__ze_device_init(d, what, sizeof what);
            if (e == 0) continue;
            if (e < 0) {   /* a GPU that failed: said; one that is no GPU goes quietly */
                dag_log(DAG_LOG_WARN, DAG_OK, "Level Zero: device %d (%s) skipped: %s", seen, d->name, what);
                size_t at = strlen(skipped);
                snprintf(skipped + at, sizeof skipped - at, "; device %d skipped: %s", seen, what);
                num_skipped++;
            }
            dag__ze_device_destroy(d);
            dag__ze.num_devices--;
        }
    }
    if (dag__ze.num_devices == 0) {
        snprintf(why, why_size, "%u Level Zero GPU driver(s), no device that works%s", (unsigned)num_drivers, skipped);
        return -1;
    }
    snprintf(why, why_size, "%d Level Zero device(s); device 1: %s%s", dag__ze.num_devices, dag__ze.devices[0].name, skipped);
    return dag__ze.num_devices;
}

/* >>level zero ordering. Level Zero does not promise that a command of a
   list finishes before the next one starts, and ZE_COMMAND_QUEUE_FLAG_IN_ORDER
   is newer than the 1.4 headers of libze-dev (an enum, so #if cannot test
   for it): a barrier goes between each command and the one before it, which
   gives the in-order queue the generic layer expects. */
static ze_result_t dag__ze_order(dag__ze_device_info *d) {
    if (!d->unordered) return ZE_RESULT_SUCCESS;
    ze_result_t r = dag__ze.api.zeCommandListAppendBarrier(d->list, NULL, 0, NULL);
    if (r == ZE_RESULT_SUCCESS) d->unordered = false;
    return r;
}

/* Makes d's sync event free for the next command: a command that may still
   signal it (a wait or a reset that failed) is waited for first, since an
   event reset under a queued signal would be signalled after the reset. */
static ze_result_t dag__ze_sync_free(dag__ze_device_info *d) {
    if (d->sync_reader) {   /* a peer copy on another list still waits on it */
        ze_result_t r = dag__ze_sync_free(&dag__ze.devices[d->sync_reader - 1]);
        if (r != ZE_RESULT_SUCCESS) return r;
        d->sync_reader = 0;
    }
    if (!d->sync_armed) return ZE_RESULT_SUCCESS;
    ze_result_t r = dag__ze.api.zeEventHostSynchronize(d->sync, UINT64_MAX);
    if (r == ZE_RESULT_SUCCESS) r = dag__ze.api.zeEventHostReset(d->sync);
    if (r == ZE_RESULT_SUCCESS) d->sync_armed = false;
    return r;
}

/* Waits on the host for everything queued on d so far. The device layer
   makes every call of a device under its lock, so one thread at a time
   appends to d's list and uses its sync event (the spec forbids two). */
static int dag__ze_drain(dag__ze_device_info *d) {
    ze_result_t r = dag__ze_sync_free(d);
    if (r == ZE_RESULT_SUCCESS) r = dag__ze.api.zeCommandListAppendBarrier(d->list, d->sync, 0, NULL);   /* after all before it */
    if (r != ZE_RESULT_SUCCESS) return (int)r;
    d->sync_armed = true;
    d->unordered = false;
    return (int)dag__ze_sync_free(d);
}

/* An event slot is free again: the staging buffer its copy used too. */
static void dag__ze_slot_free(dag__ze_device_info *d, dag__ze_event *e) {
    dag__ze_stage *st = e->stage;
    if (st && st->own) {
        dag__ze.api.zeMemFree(d->context, st->ptr);
        DAG_FREE(st);
    } else if (st) {
        st->busy = false;
    }
    e->stage = NULL;
    e->host = NULL;
    d->free_slots[d->num_free++] = e->slot;
}
/* Released events whose command had not finished wait in `retiring` until
   it has (resetting them earlier would lose the signal): frees those that
   have. */
static void dag__ze_recycle(dag__ze_device_info *d) {
    int kept = 0;
    for (int i = 0; i < d->num_retiring; i++) {
        dag__ze_event *e = &d->events[d->retiring[i]];
        if (dag__ze.api.zeEventQueryStatus(e->handle) == ZE_RESULT_SUCCESS && dag__ze.api.zeEventHostReset(e->handle) == ZE_RESULT_SUCCESS)
            dag__ze_slot_free(d, e);
        else
            d->retiring[kept++] = d->retiring[i];
    }
    d->num_retiring = kept;
}
/* A free event slot of device dev (created on first use), or NULL when all
   are in use. */
static dag__ze_event *dag__ze_event_get(int dev) {
    dag__ze_device_info *d = &dag__ze.devices[dev];
    if (d->num_free == 0) dag__ze_recycle(d);
    if (d->num_free == 0) return NULL;
    uint32_t slot = d->free_slots[--d->num_free];
    dag__ze_event *e = &d->events[slot];
    if (!e->handle) {
        ze_event_desc_t ed = { .stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = slot,
                               .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST };
        if (dag__ze.api.zeEventCreate(d->pool, &ed, &e->handle) != ZE_RESULT_SUCCESS) {
            d->num_free++;
            return NULL;
        }
        e->dev = dev;
        e->slot = slot;
    }
    return e;
}
static void dag__ze_event_unused(dag__ze_event *e) {   /* its command was never queued */
    dag__ze_slot_free(&dag__ze.devices[e->dev], e);
}

/* An idle staging buffer of at least `bytes` (busy from now), or NULL with
   the driver's error in *r. Past DAG__ZE_STAGE_MAX, one of its own. When the
   kept ones are all busy and at their total, the device drains first. */
static dag__ze_stage *dag__ze_stage_get(dag__ze_device_info *d, size_t bytes, ze_result_t *r) {
    ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
    size_t size = DAG__ZE_STAGE_MIN;
    while (size < bytes && size <= DAG__ZE_STAGE_MAX) size *= 2;
    bool own = bytes > DAG__ZE_STAGE_MAX;
    for (int pass = 0; !own && pass < 3; pass++) {
        if (pass == 1) dag__ze_recycle(d);
        if (pass == 2 && d->staged_bytes + size > DAG__ZE_STAGE_TOTAL) {   /* all in flight: wait for them */
            if ((*r = (ze_result_t)dag__ze_drain(d)) != ZE_RESULT_SUCCESS) return NULL;
            dag__ze_recycle(d);
        }
        for (dag__ze_stage *st = d->stages; st; st = st->next)
            if (!st->busy && st->bytes >= bytes) {
                st->busy = true;
                return st;
            }
    }
    void *ptr = NULL;
    *r = dag__ze.api.zeMemAllocHost(d->context, &hd, own ? bytes : size, 64, &ptr);
    if (*r != ZE_RESULT_SUCCESS) return NULL;
    dag__ze_stage *st = (dag__ze_stage *)dag__xmalloc(sizeof *st);
    st->ptr = ptr;
    st->bytes = own ? bytes : size;
    st->busy = true;
    st->own = own;
    st->next = NULL;
    if (!own && d->staged_bytes + size <= DAG__ZE_STAGE_TOTAL) {
        st->next = d->stages;
        d->stages = st;
        d->staged_bytes += size;
    } else {
        st->own = true;   /* over the total: freed after its copy */
    }
    return st;
}

/* >>level zero device operations: through the generic layer's table
   (device: 0-based index). Kernels and events go through void pointers. */
static int dag__ze_alloc(int dev, size_t bytes, void **buf) {
    dag__ze_device_info *d = &dag__ze.devices[dev];
    ze_device_mem_alloc_desc_t md = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC };
    *buf = NULL;
    return (int)dag__ze.api.zeMemAllocDevice(d->context, &md, bytes, 64, d->id, buf);
}
/* zeMemFree does not wait for the commands that use the buffer (cudaFree
   does, clReleaseMemObject defers): the device's list drains first. */
static void dag__ze_free(int dev, void *buf) {
    dag__ze_drain(&dag__ze.devices[dev]);
    dag__ze.api.zeMemFree(dag__ze.devices[dev].context, buf);
}

static void dag__ze_release(void *event);

/* Copies between a host span (rows runs of width bytes, stride apart) and a
   buffer that holds the runs packed, asynchronous on the device's list,
   through a staging buffer from zeMemAllocHost (the device may touch no
   pageable memory): an upload packs the runs into it first and needs no
   wait (*done NULL); a download is unpacked into the span when its event is
   waited for. The staging buffer is busy until the copy's event is
   recycled. Without a free event it waits, so that a NULL *done is always
   safe. */
static int dag__ze_copy(int dev, int lane, void *buf, void *host, size_t rows, size_t width, size_t stride, int how,
                        void **done) {
    (void)lane;   /* one immediate list per device */
    int to_device = how & DAG__COPY_TO_DEVICE;
    dag__ze_device_info *d = &dag__ze.devices[dev];
    size_t bytes = rows * width;
    *done = NULL;
    ze_result_t r = ZE_RESULT_SUCCESS;
    dag__ze_stage *st = dag__ze_stage_get(d, bytes, &r);
    if (!st) return (int)r;
    dag__ze_event *e = dag__ze_event_get(dev);
    if (to_device)
        for (size_t i = 0; i < rows; i++) memcpy((char *)st->ptr + i * width, (char *)host + i * stride, width);
    r = dag__ze_order(d);
    if (r == ZE_RESULT_SUCCESS)
        r = dag__ze.api.zeCommandListAppendMemoryCopy(d->list, to_device ? buf : st->ptr, to_device ? st->ptr : buf, bytes,
                                                      e ? e->handle : NULL, 0, NULL);
    if (r == ZE_RESULT_SUCCESS) d->unordered = true;
    if (r != ZE_RESULT_SUCCESS || !e) {   /* nothing queued, or nothing to tell its end by: done here */
        int err = r != ZE_RESULT_SUCCESS ? (int)r : dag__ze_drain(d);
        if (!err && !to_device)
            for (size_t i = 0; i < rows; i++) memcpy((char *)host + i * stride, (char *)st->ptr + i * width, width);
        if (e) dag__ze_event_unused(e);
        if (st->own) {
            dag__ze.api.zeMemFree(d->context, st->ptr);
            DAG_FREE(st);
        } else {
            st->busy = false;
        }
        return err;
    }
    e->stage = st;
    if (to_device) {   /* the bytes are in the staging buffer: nobody waits for this copy */
        dag__ze_release(e);
        return 0;
    }
    e->host = host;
    e->rows = rows;
    e->width = width;
    e->stride = stride;
    *done = e;
    return 0;
}

static int dag__ze_peer_copy(int dst_dev, void *dst_buf, int src_dev, void *src_buf, size_t bytes) {
    dag__ze_device_info *d = &dag__ze.devices[dst_dev], *s = &dag__ze.devices[src_dev];
    dag__ze_api *z = &dag__ze.api;
    ze_bool_t can = 0;
    if (d->context != s->context || z->zeDeviceCanAccessPeer(d->id, s->id, &can) != ZE_RESULT_SUCCESS || !can) return -1;
    ze_result_t r = dag__ze_sync_free(d);
    if (r == ZE_RESULT_SUCCESS) r = dag__ze_sync_free(s);
    if (r == ZE_RESULT_SUCCESS) r = dag__ze_order(d);
    if (r == ZE_RESULT_SUCCESS) r = z->zeCommandListAppendBarrier(s->list, s->sync, 0, NULL);
    if (r != ZE_RESULT_SUCCESS) return (int)r;
    s->sync_armed = true;
    s->unordered = false;
    r = z->zeCommandListAppendMemoryCopy(d->list, dst_buf, src_buf, bytes, d->sync, 1, &s->sync);
    if (r == ZE_RESULT_SUCCESS) {
        d->sync_armed = true;
        d->unordered = true;
        s->sync_reader = dst_dev + 1;
        r = dag__ze_sync_free(d);   /* the copy: after it, src's later work cannot overwrite what it reads */
    }
    ze_result_t rs = dag__ze_sync_free(s);   /* done already, unless the copy failed */
    return (int)(r != ZE_RESULT_SUCCESS ? r : rs);
}

/* Creates (once per image and device) the module of a kernel's SPIR-V; on
   failure the build log goes to `log`. */
static ze_module_handle_t dag__ze_module_get(dag__ze_device_info *d, const dag_native_kernel *nk, char *log, size_t log_size,
                                         int *err) {
    for (int i = 0; i < d->num_modules; i++)
        if (d->modules[i].image == nk->image) return d->modules[i].handle;
    if (d->num_modules == d->cap_modules) {
        int cap = d->cap_modules ? 2 * d->cap_modules : 8;
        dag__ze_module *m = (dag__ze_module *)DAG_REALLOC(d->modules, (size_t)cap * sizeof *m);
        if (!m) {
            *err = DAG_ERR_OUT_OF_MEMORY;
            return NULL;
        }
        d->modules = m;
        d->cap_modules = cap;
    }
    ze_module_desc_t md = { .stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                            .inputSize = nk->image_size, .pInputModule = nk->image };
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t build_log = NULL;
    ze_result_t r = dag__ze.api.zeModuleCreate(d->context, d->id, &md, &module, &build_log);
    if (r != ZE_RESULT_SUCCESS) {
        int at = snprintf(log, log_size, "zeModuleCreate returned 0x%x (%s)\n", (unsigned)r, dag__ze_result_name(r));
        size_t n = 0;
        if (build_log && at > 0 && (size_t)at < log_size &&
            dag__ze.api.zeModuleBuildLogGetString(build_log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
            char *text = (char *)DAG_MALLOC(n);
            if (text && dag__ze.api.zeModuleBuildLogGetString(build_log, &n, text) == ZE_RESULT_SUCCESS && n > 0) {
                text[n - 1] = 0;
                snprintf(log + at, log_size - (size_t)at, "%s", text);
            }
            DAG_FREE(text);
        }
        module = NULL;
        *err = (int)r;
    } else {
        d->modules[d->num_modules].image = nk->image;
        d->modules[d->num_modules++].handle = module;
    }
    if (build_log) dag__ze.api.zeModuleBuildLogDestroy(build_log);
    return module;
}

/* Makes the kernel of k's SPIR-V for one device, with work-groups of 256, or
   the device's maxTotalGroupSize if smaller (or what the driver suggests
   where the kernel cannot take that). */
static int dag__ze_build(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size) {
    dag__ze_device_info *d = &dag__ze.devices[dev];
    const dag_native_kernel *nk = k->native[DAG_LEVEL_ZERO];
    log[0] = 0;
    *kernel = NULL;   /* nk exists: the device layer builds only what has_kernel accepts */
    int err = 0;
    ze_module_handle_t module = dag__ze_module_get(d, nk, log, log_size, &err);
    if (!module) return err;
    ze_kernel_desc_t kd = { .stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = nk->symbol };
    ze_kernel_handle_t h = NULL;
    ze_result_t r = dag__ze.api.zeKernelCreate(module, &kd, &h);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(log, log_size, "zeKernelCreate(%s) returned 0x%x (%s)", nk->symbol, (unsigned)r, dag__ze_result_name(r));
        return (int)r;
    }
    uint32_t group = d->max_group_size && d->max_group_size < DAG__ZE_GROUP ? d->max_group_size : DAG__ZE_GROUP, gy = 1, gz = 1;
    r = dag__ze.api.zeKernelSetGroupSize(h, group, 1, 1);
    if (r != ZE_RESULT_SUCCESS && dag__ze.api.zeKernelSuggestGroupSize(h, group, 1, 1, &group, &gy, &gz) == ZE_RESULT_SUCCESS)
        r = dag__ze.api.zeKernelSetGroupSize(h, group, 1, 1);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(log, log_size, "zeKernelSetGroupSize(%s) returned 0x%x (%s)", nk->symbol, (unsigned)r, dag__ze_result_name(r));
        dag__ze.api.zeKernelDestroy(h);
        return (int)r;
    }
    dag__ze_kernel *out = (dag__ze_kernel *)DAG_MALLOC(sizeof *out);
    if (!out) {
        dag__ze.api.zeKernelDestroy(h);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    out->handle = h;
    out->group = group;
    *kernel = out;
    return 0;
}

/* Launches k over [0, n) in groups that cover n; the kernel's own guard
   stops the rest. Argument 0 is n (a ulong), then the task's arguments:
   buffers by their device pointer. Arguments are captured when the launch
   is appended, so the next launch may set others. */
static int dag__ze_launch(int dev, int lane, void *kernel, size_t n, const dag_kernel_arg *args, int num_args,
                          void **done) {
    (void)lane;
    dag__ze_device_info *d = &dag__ze.devices[dev];
    dag__ze_kernel *k = (dag__ze_kernel *)kernel;
    uint64_t range = n;
    ze_result_t r = dag__ze.api.zeKernelSetArgumentValue(k->handle, 0, sizeof range, &range);
    for (int i = 0; r == ZE_RESULT_SUCCESS && i < num_args; i++)
        r = args[i].buffer ? dag__ze.api.zeKernelSetArgumentValue(k->handle, (uint32_t)i + 1, sizeof(void *), &args[i].buffer)
                           : dag__ze.api.zeKernelSetArgumentValue(k->handle, (uint32_t)i + 1, args[i].size, args[i].value);
    if (r != ZE_RESULT_SUCCESS) return (int)r;
    size_t groups = n / k->group + (n % k->group != 0);
    if (groups > d->max_groups) return (int)ZE_RESULT_ERROR_UNSUPPORTED_SIZE;   /* refused by name before: dag__ze_max_range */
    ze_group_count_t count = { groups ? (uint32_t)groups : 1, 1, 1 };
    dag__ze_event *e = done ? dag__ze_event_get(dev) : NULL;   /* none free: the launch goes untimed */
    if ((r = dag__ze_order(d)) == ZE_RESULT_SUCCESS)
        r = dag__ze.api.zeCommandListAppendLaunchKernel(d->list, k->handle, &count, e ? e->handle : NULL, 0, NULL);
    if (r != ZE_RESULT_SUCCESS) {
        if (e) dag__ze_event_unused(e);
        return (int)r;
    }
    d->unordered = true;
    if (done) *done = e;
    return 0;
}

static int dag__ze_wait(void *event) {   /* NULL: a copy that already waited */
    dag__ze_event *e = (dag__ze_event *)event;
    if (!e) return 0;
    int r = (int)dag__ze.api.zeEventHostSynchronize(e->handle, UINT64_MAX);
    if (!r && e->host)   /* a download: its bytes from the staging buffer into the host span */
        for (size_t i = 0; i < e->rows; i++)
            memcpy((char *)e->host + i * e->stride, (char *)e->stage->ptr + i * e->width, e->width);
    e->host = NULL;
    return r;
}
static int dag__ze_query(void *event) {
    ze_result_t r = dag__ze.api.zeEventQueryStatus(((dag__ze_event *)event)->handle);
    return r == ZE_RESULT_SUCCESS ? 1 : r == ZE_RESULT_NOT_READY ? 0 : -(int)r;
}
static double dag__ze_elapsed(void *event) {
    dag__ze_event *e = (dag__ze_event *)event;
    dag__ze_device_info *d = &dag__ze.devices[e->dev];
    ze_kernel_timestamp_result_t ts;
    if (dag__ze.api.zeEventQueryKernelTimestamp(e->handle, &ts) != ZE_RESULT_SUCCESS) return 0.0;
    uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & d->tick_mask;   /* the mask undoes a wrap */
    return (double)ticks * d->tick_ns * 1e-9;
}
static void dag__ze_release(void *event) {
    dag__ze_event *e = (dag__ze_event *)event;
    dag__ze_device_info *d = &dag__ze.devices[e->dev];
    e->host = NULL;   /* a download never waited for (an error path): its bytes are dropped */
    if (dag__ze.api.zeEventQueryStatus(e->handle) == ZE_RESULT_SUCCESS && dag__ze.api.zeEventHostReset(e->handle) == ZE_RESULT_SUCCESS)
        dag__ze_slot_free(d, e);
    else
        d->retiring[d->num_retiring++] = e->slot;   /* its staging buffer stays busy until it has signalled */
}
static int dag__ze_synchronize(int dev) { return dag__ze_drain(&dag__ze.devices[dev]); }
/* One launch is at most maxGroupCountX groups of the kernel's group size. */
static size_t dag__ze_max_range(int dev, void *kernel) {
    uint64_t most = (uint64_t)dag__ze.devices[dev].max_groups * ((dag__ze_kernel *)kernel)->group;
    return most > SIZE_MAX ? SIZE_MAX : (size_t)most;
}
static size_t dag__ze_memory(int dev) { return (size_t)dag__ze.devices[dev].memory; }
static size_t dag__ze_max_alloc(int dev) { return (size_t)dag__ze.devices[dev].max_alloc; }
static const char *dag__ze_device_name(int dev) { return dag__ze.devices[dev].name; }

static void dag__ze_release_kernel(int dev, void *kernel) {   /* its module stays until shutdown */
    (void)dev;
    dag__ze.api.zeKernelDestroy(((dag__ze_kernel *)kernel)->handle);
    DAG_FREE(kernel);
}
/* Whether a SPIR-V module declares the Float64 capability: its
   OpCapability instructions come first, after the five-word header. */
static bool dag__spirv_declares_float64(const unsigned char *image, size_t size) {
    enum { OP_CAPABILITY = 17, FLOAT64 = 10 };
    for (size_t at = 20; at + 8 <= size;) {
        uint32_t word, operand;
        memcpy(&word, image + at, 4);
        if ((word & 0xffffu) != OP_CAPABILITY || (word >> 16) < 2) return false;
        memcpy(&operand, image + at + 4, 4);
        if (operand == FLOAT64) return true;
        at += (size_t)(word >> 16) * 4;
    }
    return false;
}
/* SPIR-V embedded, and one the device builds: a module that uses double
   needs fp64, which many Intel GPUs lack (Arc, Xe-LP); the kernel then
   runs elsewhere (tools/dag_embed.py gives each kernel its own module, so
   only the kernels that use double are turned away). */
static bool dag__ze_has_kernel(int dev, const dag_kernel_source *k) {
    const dag_native_kernel *nk = k->native[DAG_LEVEL_ZERO];
    if (!nk) return false;
    if (dag__ze.devices[dev].fp64 || !dag__spirv_declares_float64(nk->image, nk->image_size)) return true;
    if (!dag__ze.devices[dev].fp64_said)   /* under the device layer's lock */
        dag_log(DAG_LOG_INFO, DAG_OK, "Level Zero device %d (%s) lacks fp64: kernels that use double (the first: '%s') "
                "run elsewhere", dev + 1, dag__ze.devices[dev].name, k->name);
    dag__ze.devices[dev].fp64_said = true;
    return false;
}

/* The loader stays loaded, like OpenCL's: drivers keep state that does not
   survive being unloaded, and a later dag_setup finds it again. */
static void dag__ze_shutdown(void) {
    dag__ze_api *z = &dag__ze.api;
    for (int i = 0; i < dag__ze.num_devices; i++) {
        dag__ze_device_info *d = &dag__ze.devices[i];
        for (int k = 0; k < d->num_retiring; k++) {   /* the list has drained: their staging buffers are free */
            dag__ze_event *e = &d->events[d->retiring[k]];
            if (e->stage && e->stage->own) z->zeMemFree(d->context, e->stage->ptr), DAG_FREE(e->stage);
        }
        while (d->stages) {
            dag__ze_stage *st = d->stages;
            d->stages = st->next;
            z->zeMemFree(d->context, st->ptr);
            DAG_FREE(st);
        }
        for (int k = 0; k < DAG__ZE_EVENTS; k++)
            if (d->events[k].handle) z->zeEventDestroy(d->events[k].handle);
        if (d->sync) z->zeEventDestroy(d->sync);
        if (d->pool) z->zeEventPoolDestroy(d->pool);
        if (d->list) z->zeCommandListDestroy(d->list);
        for (int k = 0; k < d->num_modules; k++) z->zeModuleDestroy(d->modules[k].handle);
        DAG_FREE(d->modules);
    }
    for (int i = 0; i < dag__ze.num_contexts; i++) z->zeContextDestroy(dag__ze.contexts[i]);
    void *lib = dag__ze.lib;
    memset(&dag__ze, 0, sizeof dag__ze);
    dag__ze.lib = lib;
}

/* Only a full device is worth evicting for (a lost device or a bad argument fails at once; a
   buffer past maxMemAllocSize is refused before, by max_alloc). */
static bool dag__ze_out_of_memory(int e) { return e == (int)ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY; }
static const char *dag__ze_error_text(int e, char *buf, size_t size) {
    snprintf(buf, size, "0x%x, %s", (unsigned)e, dag__ze_result_name((ze_result_t)e));
    return buf;
}

static const dag__device_ops dag__ze_ops = {
    DAG_LEVEL_ZERO, "Level Zero", "ze", dag__ze_init, dag__ze_shutdown, dag__ze_alloc, dag__ze_free, dag__ze_copy,
    dag__ze_peer_copy, dag__ze_has_kernel, dag__ze_build, dag__ze_release_kernel, dag__ze_launch, dag__ze_wait,
    dag__ze_query, dag__ze_elapsed, dag__ze_release, dag__ze_synchronize, dag__ze_memory, dag__ze_device_name,
    0 /* per device and kernel: dag__ze_max_range */, dag__ze_max_alloc,
    NULL, NULL /* no library routines yet: kernels run their SPIR-V builds */, dag__ze_out_of_memory, dag__ze_error_text,
    dag__ze_max_range, 0, NULL, NULL /* one immediate list per device */, NULL, NULL /* staging from zeMemAllocHost */,
    NULL, NULL /* no device tracks: tasks' rows only */
};

#endif /* DAG_BACKEND_LEVEL_ZERO, DAG_LEVEL_ZERO_H_INCLUDED */
