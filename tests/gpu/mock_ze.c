/* A mock libze_loader.so.1 for testing dag_level_zero.h without a driver.
   Device memory is host memory; commands are queued per immediate list and
   run lazily (when the host waits or queries), and each run of commands not
   separated by a barrier executes in REVERSE order, so a missing ordering
   barrier shows up as wrong results. Every descriptor's stype is checked,
   events reset while still referenced abort, and live objects are counted
   at exit. Kernels run on the host by name (tests/gpu/kernels.h).
   make test-gpu runs tests/gpu/test_gpu ze against it: the Level Zero
   backend's own logic (ordering, events, eviction, peer copies) runs in
   CI, where no Level Zero driver exists. It is a test double, not a driver. */
#define _GNU_SOURCE
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "mock_kernels.h"   /* the kernels, as host code */

#define FAIL(...) do { fprintf(stderr, "MOCK ZE FAILURE: " __VA_ARGS__); fprintf(stderr, "\n"); abort(); } while (0)
#define CHECK_STYPE(p, want) do { if ((p)->stype != (want)) FAIL("%s: stype %d, want %d", __func__, (int)(p)->stype, (int)(want)); } while (0)

static int ndev = 2;
static long live_contexts, live_lists, live_pools, live_events, live_modules, live_kernels, live_allocs, live_logs;
static long n_barriers, n_copies, n_regions, n_launches, n_peer;

struct _ze_driver_handle_t { int x; };
struct _ze_device_handle_t { int index; };
struct _ze_context_handle_t { int x; };
struct _ze_event_pool_handle_t { uint32_t count; char *used; ze_event_pool_flags_t flags; };
struct _ze_event_handle_t { ze_event_pool_handle_t pool; uint32_t index; int signaled; uint64_t start, end; };
struct _ze_module_handle_t { int bad; int kernels; };
struct _ze_module_build_log_handle_t { const char *text; };
struct _ze_kernel_handle_t { kfn fn; ze_module_handle_t module; uint32_t gx; unsigned char args[16][16]; uint32_t nargs_set; };

enum { CMD_COPY, CMD_REGION, CMD_BARRIER, CMD_KERNEL };
typedef struct cmd {
    int type;
    void *dst; const void *src; size_t size;
    ze_copy_region_t region; uint32_t dst_pitch, src_pitch;
    ze_kernel_handle_t kernel; unsigned char args[16][16]; uint64_t items;
    ze_event_handle_t signal; ze_event_handle_t waits[4]; uint32_t nwaits;
} cmd;
struct _ze_command_list_handle_t { int dev; cmd *q; size_t head, len, cap; };

static struct _ze_driver_handle_t driver;
static struct _ze_device_handle_t devices[8];
static struct { char *p; size_t n; } allocs[100000];
static int nallocs;
static ze_command_list_handle_t lists[64];
static int nlists;

static const struct { const char *name; kfn fn; } kernels[] = {
    { "dag_dgemm", k_dgemm },
    { "gpu_axpy", k_axpy }, { "gpu_scale", k_scale }, { "gpu_count", k_count }, { "gpu_tile_add", k_tile_add }, { "gpu_inc", k_inc },
};

static void signal_event(ze_event_handle_t e, uint64_t ticks) {
    if (!e) return;
    if (e->signaled) FAIL("event %u signalled twice without a reset", e->index);
    e->signaled = 1;
    e->start = 1000;
    e->end = 1000 + ticks;
}

static void exec(cmd *c) {
    switch (c->type) {
    case CMD_COPY: memcpy(c->dst, c->src, c->size); break;
    case CMD_REGION:
        for (uint32_t r = 0; r < c->region.height; r++)
            memcpy((char *)c->dst + (size_t)r * c->dst_pitch, (const char *)c->src + (size_t)r * c->src_pitch, c->region.width);
        break;
    case CMD_KERNEL: {
        uint64_t n = *(uint64_t *)c->args[0];
        if (c->items < n) FAIL("launch covers %llu items of %llu", (unsigned long long)c->items, (unsigned long long)n);
        for (uint64_t i = 0; i < n; i++) c->kernel->fn(i, c->args);
        break;
    }
    }
    signal_event(c->signal, c->type == CMD_KERNEL ? 5000 : 10);
}

static int ready(cmd *c) {
    for (uint32_t i = 0; i < c->nwaits; i++) if (!c->waits[i]->signaled) return 0;
    return 1;
}

/* Runs one unit on list l (a barrier, or a run of commands between
   barriers, backwards); returns whether it ran. */
static int step(ze_command_list_handle_t l) {
    if (l->head >= l->len) return 0;
    cmd *c = &l->q[l->head];
    if (c->type == CMD_BARRIER) {
        if (!ready(c)) return 0;
        signal_event(c->signal, 0);
        l->head++;
        return 1;
    }
    size_t end = l->head;
    while (end < l->len && l->q[end].type != CMD_BARRIER) end++;
    for (size_t k = l->head; k < end; k++) if (!ready(&l->q[k])) return 0;
    for (size_t k = end; k-- > l->head;) exec(&l->q[k]);
    l->head = end;
    return 1;
}
/* The device does as little as it can: one unit at a time, round robin,
   until `until` is signalled (NULL: one unit). */
static void progress(ze_event_handle_t until) {
    static int next;
    for (int idle = 0; idle <= nlists && !(until && until->signaled);) {
        ze_command_list_handle_t l = lists[next++ % (nlists ? nlists : 1)];
        if (l && step(l)) {
            idle = 0;
            if (!until) return;
        } else {
            idle++;
        }
    }
}
static int referenced(ze_event_handle_t e) {
    for (int i = 0; i < nlists; i++) {
        ze_command_list_handle_t l = lists[i];
        if (!l) continue;
        for (size_t k = l->head; k < l->len; k++) {
            if (l->q[k].signal == e) return 1;
            for (uint32_t w = 0; w < l->q[k].nwaits; w++) if (l->q[k].waits[w] == e) return 1;
        }
    }
    return 0;
}
static cmd *push(ze_command_list_handle_t l, int type, ze_event_handle_t signal, uint32_t nw, ze_event_handle_t *w) {
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->q = realloc(l->q, l->cap * sizeof *l->q);
    }
    if (signal && (signal->signaled || referenced(signal))) FAIL("signal event %u is signalled or still in use", signal->index);
    if (nw > 4) FAIL("too many wait events");
    cmd *c = &l->q[l->len++];
    memset(c, 0, sizeof *c);
    c->type = type;
    c->signal = signal;
    c->nwaits = nw;
    for (uint32_t i = 0; i < nw; i++) c->waits[i] = w[i];
    return c;
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mock ze: live contexts %ld lists %ld pools %ld events %ld modules %ld kernels %ld allocs %ld logs %ld; "
            "barriers %ld copies %ld regions %ld launches %ld peer %ld\n", live_contexts, live_lists, live_pools, live_events,
            live_modules, live_kernels, live_allocs, live_logs, n_barriers, n_copies, n_regions, n_launches, n_peer);

}

ze_result_t zeInit(ze_init_flags_t flags) {
    if (flags != 0) FAIL("zeInit flags %u", flags);
    const char *e = getenv("MOCK_ZE_DEVICES");
    if (e) ndev = atoi(e);
    for (int i = 0; i < ndev; i++) devices[i].index = i;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGet(uint32_t *count, ze_driver_handle_t *d) {
    if (*count >= 1 && d) d[0] = &driver;
    *count = 1;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGet(ze_driver_handle_t drv, uint32_t *count, ze_device_handle_t *d) {
    if (drv != &driver) FAIL("bad driver");
    for (int i = 0; i < ndev && (uint32_t)i < *count && d; i++) d[i] = &devices[i];
    *count = (uint32_t)ndev;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetProperties(ze_device_handle_t d, ze_device_properties_t *p) {
    CHECK_STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
    p->timerResolution = 2;   /* ns per tick */
    p->kernelTimestampValidBits = 32;
    snprintf(p->name, sizeof p->name, "Mock GPU %d", d->index + 1);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t d, uint32_t *count, ze_device_memory_properties_t *p) {
    (void)d;
    for (uint32_t i = 0; i < 2 && i < *count && p; i++) {
        CHECK_STYPE(&p[i], ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
        p[i].totalSize = (uint64_t)1 << 29;   /* two of 512 MiB */
    }
    *count = 2;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t d, uint32_t *count, ze_command_queue_group_properties_t *p) {
    (void)d;
    for (uint32_t i = 0; i < 2 && i < *count && p; i++) {
        CHECK_STYPE(&p[i], ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
        p[i].flags = i == 0 ? ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
                            : ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    }
    *count = 2;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t a, ze_device_handle_t b, ze_bool_t *v) {
    *v = a != b && getenv("MOCK_ZE_NO_PEER") == NULL;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextCreate(ze_driver_handle_t d, const ze_context_desc_t *desc, ze_context_handle_t *c) {
    (void)d;
    CHECK_STYPE(desc, ZE_STRUCTURE_TYPE_CONTEXT_DESC);
    *c = calloc(1, sizeof **c);
    live_contexts++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextDestroy(ze_context_handle_t c) {
    if (live_lists || live_pools || live_modules || live_allocs) FAIL("context destroyed while objects live");
    free(c);
    live_contexts--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListCreateImmediate(ze_context_handle_t c, ze_device_handle_t d, const ze_command_queue_desc_t *q,
                                         ze_command_list_handle_t *l) {
    (void)c;
    CHECK_STYPE(q, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
    if (q->ordinal != 1) FAIL("list on queue group %u, not the compute one", q->ordinal);
    if (q->mode != ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) FAIL("mode %d", (int)q->mode);
    *l = calloc(1, sizeof **l);
    (*l)->dev = d->index;
    lists[nlists++] = *l;
    live_lists++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListDestroy(ze_command_list_handle_t l) {
    if (l->head != l->len) FAIL("list destroyed with %zu commands pending", l->len - l->head);
    for (int i = 0; i < nlists; i++) if (lists[i] == l) lists[i] = NULL;
    free(l->q);
    free(l);
    live_lists--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t l, ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    push(l, CMD_BARRIER, s, n, w);
    n_barriers++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t l, void *dst, const void *src, size_t size,
                                          ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    cmd *c = push(l, CMD_COPY, s, n, w);
    c->dst = dst, c->src = src, c->size = size;
    n_copies++;
    n_peer += n > 0;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t l, void *dst, const ze_copy_region_t *dr, uint32_t dp,
                                                uint32_t ds, const void *src, const ze_copy_region_t *sr, uint32_t sp,
                                                uint32_t ss, ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    if (memcmp(dr, sr, sizeof *dr) || dr->depth != 1 || ds < dp * dr->height || ss < sp * dr->height || dr->width > dp ||
        dr->width > sp)
        FAIL("odd region");
    cmd *c = push(l, CMD_REGION, s, n, w);
    c->dst = dst, c->src = src, c->region = *dr, c->dst_pitch = dp, c->src_pitch = sp;
    n_regions++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t l, ze_kernel_handle_t k, const ze_group_count_t *g,
                                            ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    if (!(k->nargs_set & 1)) FAIL("argument 0 not set");
    cmd *c = push(l, CMD_KERNEL, s, n, w);
    c->kernel = k;
    memcpy(c->args, k->args, sizeof c->args);   /* captured at append, as the spec says */
    c->items = (uint64_t)g->groupCountX * k->gx;
    if (g->groupCountY != 1 || g->groupCountZ != 1 || g->groupCountX == 0) FAIL("group count");
    n_launches++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolCreate(ze_context_handle_t c, const ze_event_pool_desc_t *d, uint32_t nd, ze_device_handle_t *ds,
                              ze_event_pool_handle_t *p) {
    (void)c, (void)ds;
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_EVENT_POOL_DESC);
    if (nd != 0) FAIL("pool for %u devices", nd);
    if (!(d->flags & ZE_EVENT_POOL_FLAG_HOST_VISIBLE) || !(d->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)) FAIL("pool flags");
    *p = calloc(1, sizeof **p);
    (*p)->count = d->count;
    (*p)->used = calloc(d->count, 1);
    live_pools++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t p) {
    for (uint32_t i = 0; i < p->count; i++) if (p->used[i]) FAIL("pool destroyed with event %u", i);
    free(p->used);
    free(p);
    live_pools--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventCreate(ze_event_pool_handle_t p, const ze_event_desc_t *d, ze_event_handle_t *e) {
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_EVENT_DESC);
    if (d->index >= p->count || p->used[d->index]) FAIL("event index %u", d->index);
    p->used[d->index] = 1;
    *e = calloc(1, sizeof **e);
    (*e)->pool = p;
    (*e)->index = d->index;
    live_events++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventDestroy(ze_event_handle_t e) {
    if (referenced(e)) FAIL("event destroyed while in use");
    e->pool->used[e->index] = 0;
    free(e);
    live_events--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventHostSynchronize(ze_event_handle_t e, uint64_t timeout) {
    if (timeout != UINT64_MAX) FAIL("timeout");
    progress(e);
    if (!e->signaled) FAIL("host waits for event %u that nothing will signal (deadlock)", e->index);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventQueryStatus(ze_event_handle_t e) {
    static unsigned tick;
    if (++tick % 3 == 0) progress(NULL);   /* the device moves on now and then */
    return e->signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}
ze_result_t zeEventHostReset(ze_event_handle_t e) {
    if (referenced(e)) FAIL("event %u reset while a queued command uses it", e->index);
    e->signaled = 0;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t e, ze_kernel_timestamp_result_t *r) {
    if (!e->signaled) return ZE_RESULT_NOT_READY;
    r->global.kernelStart = e->start;
    r->global.kernelEnd = e->end;
    r->context = r->global;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemAllocDevice(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *d, size_t size, size_t align,
                             ze_device_handle_t dev, void **p) {
    (void)c, (void)dev;
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
    if (align != 64) FAIL("alignment %zu", align);
    *p = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!*p) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    allocs[nallocs].p = *p;
    allocs[nallocs++].n = size;
    live_allocs++;
    return ZE_RESULT_SUCCESS;
}
static int uses(const cmd *c, const char *p, size_t n) {
    const char *d = c->dst, *s = c->src;
    if ((c->type == CMD_COPY || c->type == CMD_REGION) && ((d >= p && d < p + n) || (s >= p && s < p + n))) return 1;
    for (int a = 1; c->type == CMD_KERNEL && a < 16; a++) {
        const char *v;
        memcpy(&v, c->args[a], sizeof v);
        if (v >= p && v < p + n) return 1;
    }
    return 0;
}
ze_result_t zeMemFree(ze_context_handle_t c, void *p) {
    (void)c;
    int k = 0;
    while (k < nallocs && allocs[k].p != p) k++;
    if (k == nallocs) FAIL("zeMemFree of an unknown pointer");
    for (int i = 0; i < nlists; i++)   /* no progress first: what is queued now still runs later */
        for (size_t q = lists[i] ? lists[i]->head : 0; lists[i] && q < lists[i]->len; q++)
            if (uses(&lists[i]->q[q], p, allocs[k].n)) FAIL("zeMemFree of memory a queued command uses");
    allocs[k] = allocs[--nallocs];
    free(p);
    live_allocs--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleCreate(ze_context_handle_t c, ze_device_handle_t d, const ze_module_desc_t *desc, ze_module_handle_t *m,
                           ze_module_build_log_handle_t *log) {
    (void)c, (void)d;
    CHECK_STYPE(desc, ZE_STRUCTURE_TYPE_MODULE_DESC);
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV) FAIL("format");
    static const unsigned char magic[4] = { 0x03, 0x02, 0x23, 0x07 };   /* SPIR-V, little-endian */
    int bad = desc->inputSize < 20 || memcmp(desc->pInputModule, magic, 4) != 0;
    if (log) {
        *log = calloc(1, sizeof **log);
        (*log)->text = bad ? "mock build log: error: not a SPIR-V module" : "";
        live_logs++;
    }
    if (bad) return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    *m = calloc(1, sizeof **m);
    live_modules++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleDestroy(ze_module_handle_t m) {
    if (m->kernels) FAIL("module destroyed before its kernels");
    free(m);
    live_modules--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t l, size_t *size, char *text) {
    size_t n = strlen(l->text) + 1;
    if (text) memcpy(text, l->text, *size < n ? *size : n);
    *size = n;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t l) {
    free(l);
    live_logs--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelCreate(ze_module_handle_t m, const ze_kernel_desc_t *d, ze_kernel_handle_t *k) {
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_KERNEL_DESC);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (strcmp(kernels[i].name, d->pKernelName) == 0) {
            *k = calloc(1, sizeof **k);
            (*k)->fn = kernels[i].fn;
            (*k)->module = m;
            m->kernels++;
            live_kernels++;
            return ZE_RESULT_SUCCESS;
        }
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
}
ze_result_t zeKernelDestroy(ze_kernel_handle_t k) {
    k->module->kernels--;
    free(k);
    live_kernels--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z) {
    if (x > 128 || y != 1 || z != 1) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;   /* 256 is too large here */
    k->gx = x;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t k, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y,
                                     uint32_t *z) {
    (void)k, (void)gx, (void)gy, (void)gz;
    *x = 128, *y = 1, *z = 1;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t k, uint32_t i, size_t size, const void *v) {
    if (i >= 16 || size > 16 || !v) FAIL("argument %u size %zu", i, size);
    if (i == 0 && size != 8) FAIL("argument 0 is %zu bytes", size);
    memset(k->args[i], 0, 16);
    memcpy(k->args[i], v, size);
    k->nargs_set |= 1u << i;
    return ZE_RESULT_SUCCESS;
}
