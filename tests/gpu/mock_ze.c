/* A mock libze_loader.so.1 for testing dag_level_zero.h without a driver.
   Device memory is host memory. A device thread runs the commands of every
   immediate list truly concurrently with the host threads; each run of
   commands not separated by a barrier executes in REVERSE order (once a
   barrier closes it, or the list has been quiet a while, or the host
   waits), so a missing ordering barrier shows up as wrong results. The
   rules a driver does not check but the spec states abort here:
   - simultaneous appends to one command list from two threads (every
     append holds the list a few microseconds, so a race shows);
   - an event signalled again before a reset, reset or destroyed while a
     queued command or a waiting host thread uses it, or waited for when
     nothing queued will signal it (a deadlock on a real driver);
   - freeing memory a queued or running command uses;
   - a copy from or to memory that is not from zeMemAllocDevice or
     zeMemAllocHost (malloc'd host memory: the device may not touch it).
   Every descriptor's stype is checked and live objects are counted at exit.
   Kernels run on the host by name (tests/gpu/kernels.h).
   What the test environment may ask (read by zeInit, so set it before
   dag_setup):
     MOCK_ZE_DEVICES=n      GPUs (default 2)
     MOCK_ZE_BAD_DEVICE=k   GPU k (1-based) fails to make its command list
     MOCK_ZE_NO_FP64=1      the GPUs lack fp64: a module that declares the
                            Float64 capability fails to build
     MOCK_ZE_NO_PEER=1      no peer access
     MOCK_ZE_MAX_ALLOC=b    maxMemAllocSize (default 256 MiB); a larger
                            zeMemAllocDevice fails with UNSUPPORTED_SIZE, as
                            a driver does without relaxed allocation limits
   zeInit(0) also opens a second driver with an NPU (type VPU) that can make
   no command list, as Intel's NPU driver does; ZE_INIT_FLAG_GPU_ONLY skips
   it. Injected failures: mock_fail.h. make test-gpu runs tests/gpu/test_gpu
   ze against it: the Level Zero backend's own logic runs in CI, where no
   Level Zero driver exists. It is a test double, not a driver. */
#define _GNU_SOURCE
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mock_fail.h"
#include "mock_kernels.h"   /* the kernels, as host code */

#define FAIL(...) do { fprintf(stderr, "MOCK ZE FAILURE: " __VA_ARGS__); fprintf(stderr, "\n"); abort(); } while (0)
#define CHECK_STYPE(p, want) do { if ((p)->stype != (want)) FAIL("%s: stype %d, want %d", __func__, (int)(p)->stype, (int)(want)); } while (0)

/* One mutex for the mock's state; the device thread runs commands outside it. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;   /* any change: a command ran, one was queued */
static void unlock_(int *x) { (void)x; pthread_mutex_unlock(&mu); }
#define GUARD pthread_mutex_lock(&mu); int guard_ __attribute__((cleanup(unlock_))) = 0; (void)guard_

static int ndev = 2, bad_device, no_fp64, host_waiters;
static uint32_t max_groups = UINT32_MAX;   /* maxGroupCountX (MOCK_ZE_MAX_GROUPS); groups are at most 128 items */
static long live_contexts, live_lists, live_pools, live_events, live_modules, live_kernels, live_allocs, live_logs;
static long n_barriers, n_copies, n_regions, n_launches, n_peer, n_module_creates;

struct _ze_driver_handle_t { int npu; };
struct _ze_device_handle_t { int index; int npu; };
struct _ze_context_handle_t { int x; };
struct _ze_event_pool_handle_t { uint32_t count; char *used; ze_event_pool_flags_t flags; };
struct _ze_event_handle_t { ze_event_pool_handle_t pool; uint32_t index; int signaled, waiters; uint64_t start, end; };
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
/* q[head, len) is queued; q[head, running) runs now on the device thread
   (still "in use"). */
struct _ze_command_list_handle_t { int dev; cmd *q; size_t head, running, len, cap; uint64_t last_append; atomic_int appending; };

static struct _ze_driver_handle_t drivers[2] = { { 0 }, { 1 } };
static struct _ze_device_handle_t devices[8], npu_device = { 0, 1 };
static struct { char *p; size_t n; int host; } allocs[100000];   /* host: from zeMemAllocHost */
static void check_copy_side(const char *what, const void *p, size_t bytes);
static int nallocs;
static ze_command_list_handle_t lists[64];
static int nlists;
static pthread_t device_thread;
static int device_thread_started;

static const struct { const char *name; kfn fn; } kernels[] = {
    { "dag_dgemm", k_dgemm }, { "dag__array_fill_f64", k_fill_f64 }, { "dag__array_fill_f32", k_fill_f32 },
    { "dag__array_lu_rows", k_lu_rows }, { "dag__array_copy_part", k_copy_part },
    { "gpu_axpy", k_axpy }, { "gpu_scale", k_scale }, { "gpu_count", k_count }, { "gpu_tile_add", k_tile_add }, { "gpu_inc", k_inc },
};

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
static void pause_us(long us) {
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* Appends hold the list a moment: two threads appending at once abort. */
static void append_begin(ze_command_list_handle_t l, const char *fn) {
    if (atomic_exchange(&l->appending, 1)) FAIL("%s: another thread appends to the same command list right now", fn);
    pause_us(20);
}
static void append_end(ze_command_list_handle_t l) { atomic_store(&l->appending, 0); }

static void signal_event(ze_event_handle_t e, uint64_t ticks) {
    if (!e) return;
    if (e->signaled) FAIL("event %u signalled twice without a reset", e->index);
    e->signaled = 1;
    e->start = 1000;
    e->end = 1000 + ticks;
}

static void exec(cmd *c) {   /* outside the lock: the host runs on meanwhile */
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
}

static int ready(cmd *c) {
    for (uint32_t i = 0; i < c->nwaits; i++) if (!c->waits[i]->signaled) return 0;
    return 1;
}

/* Runs one unit of list l (a barrier, or a run of commands between
   barriers, backwards) if it may run now; under the lock, which it drops
   while the commands run. Returns whether it ran. */
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
    if (end == l->len && !host_waiters && now_us() - l->last_append < 300) return 0;   /* the run may still grow */
    for (size_t k = l->head; k < end; k++) if (!ready(&l->q[k])) return 0;
    size_t n = end - l->head;
    cmd *run = malloc(n * sizeof *run);   /* the queue may be reallocated by appends meanwhile */
    memcpy(run, &l->q[l->head], n * sizeof *run);
    l->running = end;
    pthread_mutex_unlock(&mu);
    for (size_t k = n; k-- > 0;) exec(&run[k]);
    pthread_mutex_lock(&mu);
    for (size_t k = n; k-- > 0;) signal_event(run[k].signal, run[k].type == CMD_KERNEL ? 5000 : 10);
    free(run);
    l->head = end;
    l->running = 0;
    if (l->head == l->len) l->head = l->len = 0;
    return 1;
}
static void *device_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        int ran = 0;
        for (int i = 0; i < nlists; i++)
            if (lists[i] && step(lists[i])) ran = 1;
        if (ran) {
            pthread_cond_broadcast(&cv);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000;
        if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&cv, &mu, &ts);
    }
    return NULL;
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
    l->last_append = now_us();
    pthread_cond_broadcast(&cv);
    return c;
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mock ze: live contexts %ld lists %ld pools %ld events %ld modules %ld kernels %ld allocs %ld logs %ld; "
            "barriers %ld copies %ld regions %ld launches %ld peer %ld module builds %ld\n", live_contexts, live_lists,
            live_pools, live_events, live_modules, live_kernels, live_allocs, live_logs, n_barriers, n_copies, n_regions,
            n_launches, n_peer, n_module_creates);
}
/* For tests (dlsym): how many modules were built so far. */
__attribute__((visibility("default"))) long mock_ze_module_builds(void) {
    GUARD;
    return n_module_creates;
}

static int env_int(const char *name, int dflt) {
    const char *e = getenv(name);
    return e && *e ? atoi(e) : dflt;
}
ze_result_t zeInit(ze_init_flags_t flags) {
    INJECT(ZE_RESULT_ERROR_UNINITIALIZED);
    GUARD;
    if (flags != 0 && flags != ZE_INIT_FLAG_GPU_ONLY) FAIL("zeInit flags %u", flags);
    drivers[1].npu = flags == 0 ? 1 : -1;   /* -1: that driver stays closed */
    ndev = env_int("MOCK_ZE_DEVICES", 2);
    bad_device = env_int("MOCK_ZE_BAD_DEVICE", 0);
    no_fp64 = env_int("MOCK_ZE_NO_FP64", 0);
    max_groups = getenv("MOCK_ZE_MAX_GROUPS") ? (uint32_t)strtoul(getenv("MOCK_ZE_MAX_GROUPS"), NULL, 10) : UINT32_MAX;
    if (ndev < 0 || ndev > 8) FAIL("MOCK_ZE_DEVICES=%d", ndev);
    for (int i = 0; i < ndev; i++) devices[i].index = i, devices[i].npu = 0;
    if (!device_thread_started) {
        if (pthread_create(&device_thread, NULL, device_main, NULL) != 0) FAIL("no device thread");
        pthread_detach(device_thread);
        device_thread_started = 1;
    }
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDriverGet(uint32_t *count, ze_driver_handle_t *d) {
    INJECT(ZE_RESULT_ERROR_UNINITIALIZED);
    uint32_t n = drivers[1].npu == 1 ? 2 : 1;
    for (uint32_t i = 0; i < n && i < *count && d; i++) d[i] = &drivers[i];
    *count = n;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGet(ze_driver_handle_t drv, uint32_t *count, ze_device_handle_t *d) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    if (drv == &drivers[1]) {
        if (drivers[1].npu != 1) FAIL("the NPU driver was not opened");
        if (*count >= 1 && d) d[0] = &npu_device;
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    if (drv != &drivers[0]) FAIL("bad driver");
    for (int i = 0; i < ndev && (uint32_t)i < *count && d; i++) d[i] = &devices[i];
    *count = (uint32_t)ndev;
    return ZE_RESULT_SUCCESS;
}
static uint64_t max_alloc(void) {
    const char *e = getenv("MOCK_ZE_MAX_ALLOC");
    return e ? (uint64_t)atoll(e) : (uint64_t)1 << 28;
}
ze_result_t zeDeviceGetProperties(ze_device_handle_t d, ze_device_properties_t *p) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK_STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
    p->type = d->npu ? ZE_DEVICE_TYPE_VPU : ZE_DEVICE_TYPE_GPU;
    p->timerResolution = 2;   /* ns per tick */
    p->kernelTimestampValidBits = 32;
    p->maxMemAllocSize = max_alloc();
    if (d->npu) snprintf(p->name, sizeof p->name, "Mock NPU");
    else snprintf(p->name, sizeof p->name, "Mock GPU %d", d->index + 1);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetComputeProperties(ze_device_handle_t d, ze_device_compute_properties_t *p) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK_STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
    (void)d;
    p->maxTotalGroupSize = p->maxGroupSizeX = 128;
    p->maxGroupSizeY = p->maxGroupSizeZ = 1;
    p->maxGroupCountX = max_groups;
    p->maxGroupCountY = p->maxGroupCountZ = 65535;
    p->maxSharedLocalMemory = 65536;
    p->numSubGroupSizes = 1;
    p->subGroupSizes[0] = 16;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetModuleProperties(ze_device_handle_t d, ze_device_module_properties_t *p) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK_STYPE(p, ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
    p->flags = d->npu || no_fp64 ? ZE_DEVICE_MODULE_FLAG_FP16 : ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64;
    p->fp64flags = d->npu || no_fp64 ? 0 : ZE_DEVICE_FP_FLAG_FMA | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t d, uint32_t *count, ze_device_memory_properties_t *p) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    (void)d;
    for (uint32_t i = 0; i < 2 && i < *count && p; i++) {
        CHECK_STYPE(&p[i], ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
        p[i].totalSize = (uint64_t)1 << 29;   /* two of 512 MiB */
    }
    *count = 2;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t d, uint32_t *count, ze_command_queue_group_properties_t *p) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
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
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    *v = a != b && !a->npu && !b->npu && getenv("MOCK_ZE_NO_PEER") == NULL;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextCreate(ze_driver_handle_t d, const ze_context_desc_t *desc, ze_context_handle_t *c) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
    (void)d;
    CHECK_STYPE(desc, ZE_STRUCTURE_TYPE_CONTEXT_DESC);
    *c = calloc(1, sizeof **c);
    live_contexts++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeContextDestroy(ze_context_handle_t c) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (live_lists || live_pools || live_modules || live_allocs) FAIL("context destroyed while objects live");
    free(c);
    live_contexts--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListCreateImmediate(ze_context_handle_t c, ze_device_handle_t d, const ze_command_queue_desc_t *q,
                                         ze_command_list_handle_t *l) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
    (void)c;
    CHECK_STYPE(q, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
    if (d->npu) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;   /* what an NPU says to a compute list */
    if (bad_device == d->index + 1) return ZE_RESULT_ERROR_DEVICE_LOST;
    if (q->ordinal != 1) FAIL("list on queue group %u, not the compute one", q->ordinal);
    if (q->mode != ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) FAIL("mode %d", (int)q->mode);
    *l = calloc(1, sizeof **l);
    (*l)->dev = d->index;
    int slot = 0;
    while (slot < nlists && lists[slot]) slot++;   /* a destroyed list's place is reused */
    if (slot == 64) FAIL("too many lists");
    lists[slot] = *l;
    if (slot == nlists) nlists++;
    live_lists++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListDestroy(ze_command_list_handle_t l) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (l->head != l->len) FAIL("list destroyed with %zu commands pending", l->len - l->head);
    if (atomic_load(&l->appending)) FAIL("list destroyed while a thread appends to it");
    for (int i = 0; i < nlists; i++) if (lists[i] == l) lists[i] = NULL;
    free(l->q);
    free(l);
    live_lists--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t l, ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    append_begin(l, __func__);
    pthread_mutex_lock(&mu);
    push(l, CMD_BARRIER, s, n, w);
    n_barriers++;
    pthread_mutex_unlock(&mu);
    append_end(l);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t l, void *dst, const void *src, size_t size,
                                          ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    append_begin(l, __func__);
    pthread_mutex_lock(&mu);
    check_copy_side("destination", dst, size);
    check_copy_side("source", src, size);
    cmd *c = push(l, CMD_COPY, s, n, w);
    c->dst = dst, c->src = src, c->size = size;
    n_copies++;
    n_peer += n > 0;
    pthread_mutex_unlock(&mu);
    append_end(l);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t l, void *dst, const ze_copy_region_t *dr, uint32_t dp,
                                                uint32_t ds, const void *src, const ze_copy_region_t *sr, uint32_t sp,
                                                uint32_t ss, ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    if (memcmp(dr, sr, sizeof *dr) || dr->depth != 1 || ds < dp * dr->height || ss < sp * dr->height || dr->width > dp ||
        dr->width > sp)
        FAIL("odd region");
    append_begin(l, __func__);
    pthread_mutex_lock(&mu);
    check_copy_side("destination", dst, (size_t)dp * (dr->height - 1) + dr->width);
    check_copy_side("source", src, (size_t)sp * (sr->height - 1) + sr->width);
    cmd *c = push(l, CMD_REGION, s, n, w);
    c->dst = dst, c->src = src, c->region = *dr, c->dst_pitch = dp, c->src_pitch = sp;
    n_regions++;
    pthread_mutex_unlock(&mu);
    append_end(l);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t l, ze_kernel_handle_t k, const ze_group_count_t *g,
                                            ze_event_handle_t s, uint32_t n, ze_event_handle_t *w) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    if (!(k->nargs_set & 1)) FAIL("argument 0 not set");
    if (g->groupCountY != 1 || g->groupCountZ != 1 || g->groupCountX == 0) FAIL("group count");
    if (g->groupCountX > max_groups)   /* past the device's maxGroupCountX */
        FAIL("%u groups: the device takes at most %u (maxGroupCountX)", g->groupCountX, max_groups);
    append_begin(l, __func__);
    pthread_mutex_lock(&mu);
    cmd *c = push(l, CMD_KERNEL, s, n, w);
    c->kernel = k;
    memcpy(c->args, k->args, sizeof c->args);   /* captured at append, as the spec says */
    c->items = (uint64_t)g->groupCountX * k->gx;
    n_launches++;
    pthread_mutex_unlock(&mu);
    append_end(l);
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventPoolCreate(ze_context_handle_t c, const ze_event_pool_desc_t *d, uint32_t nd, ze_device_handle_t *ds,
                              ze_event_pool_handle_t *p) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
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
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    for (uint32_t i = 0; i < p->count; i++) if (p->used[i]) FAIL("pool destroyed with event %u", i);
    free(p->used);
    free(p);
    live_pools--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventCreate(ze_event_pool_handle_t p, const ze_event_desc_t *d, ze_event_handle_t *e) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
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
    INJECT_LATE;
    GUARD;
    if (referenced(e) || e->waiters) FAIL("event %u destroyed while in use", e->index);
    e->pool->used[e->index] = 0;
    free(e);
    live_events--;
    return LATE_RESULT(ZE_RESULT_SUCCESS, ZE_RESULT_ERROR_DEVICE_LOST);
}
ze_result_t zeEventHostSynchronize(ze_event_handle_t e, uint64_t timeout) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (timeout != UINT64_MAX) FAIL("timeout");
    e->waiters++;
    host_waiters++;
    pthread_cond_broadcast(&cv);
    while (!e->signaled) {
        if (!referenced(e)) FAIL("host waits for event %u that nothing queued will signal (deadlock)", e->index);
        pthread_cond_wait(&cv, &mu);
    }
    e->waiters--;
    host_waiters--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventQueryStatus(ze_event_handle_t e) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    return e->signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}
ze_result_t zeEventHostReset(ze_event_handle_t e) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (referenced(e)) FAIL("event %u reset while a queued command uses it", e->index);
    if (e->waiters) FAIL("event %u reset while another thread waits for it", e->index);
    e->signaled = 0;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t e, ze_kernel_timestamp_result_t *r) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (!e->signaled) return ZE_RESULT_NOT_READY;
    r->global.kernelStart = e->start;
    r->global.kernelEnd = e->end;
    r->context = r->global;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemAllocDevice(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *d, size_t size, size_t align,
                             ze_device_handle_t dev, void **p) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    GUARD;
    (void)c, (void)dev;
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
    if (align != 64) FAIL("alignment %zu", align);
    if (size > max_alloc() && !d->pNext) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;   /* no relaxed limits chained */
    *p = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!*p) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    allocs[nallocs].p = *p;
    allocs[nallocs++].n = size;
    live_allocs++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeMemAllocHost(ze_context_handle_t c, const ze_host_mem_alloc_desc_t *d, size_t size, size_t align, void **p) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
    (void)c;
    CHECK_STYPE(d, ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
    if (align != 64) FAIL("alignment %zu", align);
    *p = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!*p) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    allocs[nallocs].p = *p;
    allocs[nallocs].host = 1;
    allocs[nallocs++].n = size;
    live_allocs++;
    return ZE_RESULT_SUCCESS;
}
/* A copy's side must lie in one allocation of the context: the spec lets a
   device read or write no pageable host memory (Intel's driver imports it
   per copy, and may import too little of a 2-D region). Under mu. */
static void check_copy_side(const char *what, const void *p, size_t bytes) {
    const char *q = p;
    for (int k = 0; k < nallocs; k++)
        if (q >= allocs[k].p && q + bytes <= allocs[k].p + allocs[k].n) return;
    FAIL("a copy's %s (%p, %zu bytes) is not memory from zeMemAllocDevice or zeMemAllocHost", what, p, bytes);
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
    INJECT_LATE;
    GUARD;
    (void)c;
    int k = 0;
    while (k < nallocs && allocs[k].p != p) k++;
    if (k == nallocs) FAIL("zeMemFree of an unknown pointer");
    for (int i = 0; i < nlists; i++)   /* what is queued or running still uses it */
        for (size_t q = lists[i] ? lists[i]->head : 0; lists[i] && q < lists[i]->len; q++)
            if (uses(&lists[i]->q[q], p, allocs[k].n)) FAIL("zeMemFree of memory a queued command uses");
    allocs[k] = allocs[--nallocs];
    free(p);
    live_allocs--;
    return LATE_RESULT(ZE_RESULT_SUCCESS, ZE_RESULT_ERROR_DEVICE_LOST);
}
/* Whether a SPIR-V module declares a capability (OpCapability: opcode 17). */
static int spirv_has_capability(const unsigned char *image, size_t size, uint32_t cap) {
    const uint32_t *w = (const uint32_t *)(const void *)image;
    size_t n = size / 4;
    for (size_t i = 5; i < n;) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (count == 0) break;
        if (op == 17 && count == 2 && i + 1 < n && w[i + 1] == cap) return 1;
        i += count;
    }
    return 0;
}
ze_result_t zeModuleCreate(ze_context_handle_t c, ze_device_handle_t d, const ze_module_desc_t *desc, ze_module_handle_t *m,
                           ze_module_build_log_handle_t *log) {
    INJECT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    GUARD;
    (void)c;
    CHECK_STYPE(desc, ZE_STRUCTURE_TYPE_MODULE_DESC);
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV) FAIL("format");
    n_module_creates++;
    static const unsigned char magic[4] = { 0x03, 0x02, 0x23, 0x07 };   /* SPIR-V, little-endian */
    int bad = desc->inputSize < 20 || memcmp(desc->pInputModule, magic, 4) != 0;
    int fp64 = !bad && (no_fp64 || d->npu) && spirv_has_capability(desc->pInputModule, desc->inputSize, 10 /* Float64 */);
    if (log) {
        *log = calloc(1, sizeof **log);
        (*log)->text = bad ? "mock build log: error: not a SPIR-V module"
                           : fp64 ? "mock build log: error: the module declares Float64, which this device lacks" : "";
        live_logs++;
    }
    if (bad || fp64) return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    *m = calloc(1, sizeof **m);
    live_modules++;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleDestroy(ze_module_handle_t m) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    if (m->kernels) FAIL("module destroyed before its kernels");
    free(m);
    live_modules--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t l, size_t *size, char *text) {
    INJECT(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    size_t n = strlen(l->text) + 1;
    if (text) memcpy(text, l->text, *size < n ? *size : n);
    *size = n;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t l) {
    INJECT(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    GUARD;
    free(l);
    live_logs--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelCreate(ze_module_handle_t m, const ze_kernel_desc_t *d, ze_kernel_handle_t *k) {
    INJECT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    GUARD;
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
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    GUARD;
    k->module->kernels--;
    free(k);
    live_kernels--;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    if (x > 128 || y != 1 || z != 1) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;   /* 256 is too large here */
    k->gx = x;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t k, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y,
                                     uint32_t *z) {
    INJECT(ZE_RESULT_ERROR_DEVICE_LOST);
    (void)k, (void)gx, (void)gy, (void)gz;
    *x = 128, *y = 1, *z = 1;
    return ZE_RESULT_SUCCESS;
}
ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t k, uint32_t i, size_t size, const void *v) {
    INJECT(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (i >= 16 || size > 16 || !v) FAIL("argument %u size %zu", i, size);
    if (i == 0 && size != 8) FAIL("argument 0 is %zu bytes", size);
    memset(k->args[i], 0, 16);
    memcpy(k->args[i], v, size);
    k->nargs_set |= 1u << i;
    return ZE_RESULT_SUCCESS;
}
