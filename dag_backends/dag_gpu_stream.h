/* dag_gpu_stream.h: what the CUDA and HIP backends of dag.h share.

   Uses from dag_device.h: the device-operations table (dag__device_ops)
   its functions serve and the copy flags (DAG__COPY_TO_DEVICE,
   DAG__COPY_PINNED); from dag.h, DAG__MAX_PARAMS, dag__xmalloc,
   dag__now_ns and dag_log.

   The CUDA runtime and HIP have the same shape (HIP copied the CUDA
   runtime's names: cudaMemcpy2DAsync is hipMemcpy2DAsync, and the same
   values for the constants below), so the device operations are written
   once here, over a dag__gpu: the runtime's calls (dag__gpu_runtime, error
   codes as int, streams and events as void *), what else differs (names,
   device properties, error text, the launch) and the devices.
   dag_cuda.h and dag_hip.h each fill one and make their ops table with
   DAG__GPU_OPS.

   Per device: a non-blocking stream per lane (dag_device.h's: copies in,
   copies out, and kernels on the others), a count of the commands queued
   on each (its mark) and an event per lane recorded only when another lane
   must wait for it (wait_lane), events timed only for the launches the cost
   model samples (made once, then recorded again from spares), pinned
   staging buffers, and peer access to the devices that allow it.
   - An upload packs the span's rows into a pinned staging buffer and copies
     from there, so it is truly asynchronous and no longer reads the host
     bytes once queued (its `done` comes back NULL).
   - A download lands in a staging buffer; wait() unpacks it into the host
     span. The generic layer waits for every download it starts.
   - Host memory the device layer pinned (host_register: a resident span),
     spans larger than a staging buffer, or any when pinned memory runs
     out, copy straight from the program's memory (the runtime stages
     pageable memory itself); such an upload's `done` is its event.

   Parts: >>lanes >>stamps */
#ifndef DAG_GPU_STREAM_H_INCLUDED
#define DAG_GPU_STREAM_H_INCLUDED

#define DAG__GPU_MAX_DEVICES 16
#define DAG__GPU_LANES 4                    /* copies in, copies out, two for kernels */
#define DAG__GPU_SPARE 64                   /* events kept for reuse per device and kind (timed or not) */
#define DAG__GPU_BLOCK 256                  /* threads per block of a launch */
#define DAG__GPU_STAGE_MIN (64u << 10)      /* staging buffers come in powers of two from here */
#define DAG__GPU_STAGE_MAX (16u << 20)      /* larger copies go straight from pageable memory */
#define DAG__GPU_STAGE_TOTAL (256u << 20)   /* pinned bytes per device at most */

/* The constants used, the same in both runtimes (dag_cuda.h checks CUDA's
   header against them; HIP's are from its header, hip_runtime_api.h). */
enum {
    DAG__GPU_STREAM_NON_BLOCKING = 1,       /* cudaStreamNonBlocking */
    DAG__GPU_EVENT_DEFAULT = 0,             /* cudaEventDefault */
    DAG__GPU_EVENT_DISABLE_TIMING = 2,      /* cudaEventDisableTiming */
    DAG__GPU_HOST_ALLOC_PORTABLE = 1,       /* cudaHostAllocPortable, hipHostMallocPortable */
    DAG__GPU_HOST_REGISTER_PORTABLE = 1,    /* cudaHostRegisterPortable, hipHostRegisterPortable */
    DAG__GPU_HOST_TO_DEVICE = 1,            /* cudaMemcpyHostToDevice */
    DAG__GPU_DEVICE_TO_HOST = 2,            /* cudaMemcpyDeviceToHost */
    DAG__GPU_ERROR_MEMORY_ALLOCATION = 2,   /* cudaErrorMemoryAllocation, hipErrorOutOfMemory: the device is full */
    DAG__GPU_ERROR_INVALID_PITCH_VALUE = 12,
    DAG__GPU_ERROR_NOT_READY = 600,
    DAG__GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704
};

/* The runtime's calls, by the CUDA runtime's names without "cuda", and
   HIP's name for each. */
#define DAG__GPU_CALLS(X) \
    X(GetDeviceCount, hipGetDeviceCount, (int *count)) \
    X(SetDevice, hipSetDevice, (int ordinal)) \
    X(GetDevice, hipGetDevice, (int *ordinal)) \
    X(DeviceCanAccessPeer, hipDeviceCanAccessPeer, (int *can, int ordinal, int peer)) \
    X(DeviceEnablePeerAccess, hipDeviceEnablePeerAccess, (int peer, unsigned flags)) \
    X(StreamCreateWithFlags, hipStreamCreateWithFlags, (void **stream, unsigned flags)) \
    X(StreamDestroy, hipStreamDestroy, (void *stream)) \
    X(StreamSynchronize, hipStreamSynchronize, (void *stream)) \
    X(StreamWaitEvent, hipStreamWaitEvent, (void *stream, void *event, unsigned flags)) \
    X(EventCreateWithFlags, hipEventCreateWithFlags, (void **event, unsigned flags)) \
    X(EventDestroy, hipEventDestroy, (void *event)) \
    X(EventRecord, hipEventRecord, (void *event, void *stream)) \
    X(EventQuery, hipEventQuery, (void *event)) \
    X(EventSynchronize, hipEventSynchronize, (void *event)) \
    X(EventElapsedTime, hipEventElapsedTime, (float *ms, void *start, void *end)) \
    X(Malloc, hipMalloc, (void **ptr, size_t bytes)) \
    X(Free, hipFree, (void *ptr)) \
    X(HostAlloc, hipHostMalloc, (void **ptr, size_t bytes, unsigned flags)) \
    X(FreeHost, hipHostFree, (void *ptr)) \
    X(HostRegister, hipHostRegister, (void *ptr, size_t bytes, unsigned flags)) \
    X(HostUnregister, hipHostUnregister, (void *ptr)) \
    X(MemcpyAsync, hipMemcpyAsync, (void *dst, const void *src, size_t bytes, int kind, void *stream)) \
    X(Memcpy2DAsync, hipMemcpy2DAsync, (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, \
                                        size_t height, int kind, void *stream)) \
    X(MemcpyPeerAsync, hipMemcpyPeerAsync, (void *dst, int dst_ordinal, const void *src, int src_ordinal, size_t bytes, \
                                            void *stream))
#define DAG__GPU_CALL_FIELD(name, hip_name, params) int(*name) params;
typedef struct dag__gpu_runtime { DAG__GPU_CALLS(DAG__GPU_CALL_FIELD) } dag__gpu_runtime;
#undef DAG__GPU_CALL_FIELD

typedef struct dag__gpu_stage {
    void *ptr;
    size_t bytes;
    void *free_after;                       /* the event of the copy that last used it; NULL: idle */
    int downloading;                        /* holds a download until wait() unpacks it */
    struct dag__gpu_stage *next;
} dag__gpu_stage;

typedef struct dag__gpu_device {
    int ordinal;                            /* the runtime's: devices that failed to open are skipped */
    void *stream[DAG__GPU_LANES];
    uint64_t queued[DAG__GPU_LANES];        /* commands queued on each lane: the last one's mark */
    void *mark_event[DAG__GPU_LANES];       /* recorded on its lane, at mark marked[lane], when a lane waited */
    uint64_t marked[DAG__GPU_LANES];
    uint64_t waited[DAG__GPU_LANES][DAG__GPU_LANES];   /* [lane][from]: the mark of from that lane already waits for */
    void *spare[2][DAG__GPU_SPARE];         /* events done with, [timed]: recorded again, not made again */
    int spares[2];
    void *epoch;                            /* the trace's stamps count from this event, */
    uint64_t epoch_ns;                      /* which the host clock saw at this time */
    char name[128];
    size_t memory;
    dag__gpu_stage *stages;
    size_t staged_bytes;
    bool peer[DAG__GPU_MAX_DEVICES];        /* peer[j]: this device reads device j's memory */
} dag__gpu_device;

/* One runtime and its devices. */
typedef struct dag__gpu {
    dag__gpu_runtime rt;
    const char *name, *short_name;          /* "CUDA", "cuda" */
    int (*device_info)(int ordinal, char *name, size_t size, size_t *bytes);
    const char *(*error_text)(int e, char *buf, size_t size);
    /* queues the kernel (the backend's build) on stream, its device current */
    int (*start_kernel)(void *stream, void *kernel, size_t n, void **params);
    dag__gpu_device devices[DAG__GPU_MAX_DEVICES];
    int num;
} dag__gpu;

/* An event: a launch's or a download's (start is set when it is timed); a download's also says
   where its staged bytes go. */
typedef struct dag__gpu_event {
    dag__gpu *g;
    int dev, timed;                         /* timed: end is a timed event (start always is) */
    void *end, *start;
    dag__gpu_stage *stage;
    void *host;
    size_t rows, width, stride;
} dag__gpu_event;

/* The current device is per thread, and the program thread is a worker too:
   every entry point saves the caller's device (enter), switches with use(),
   and puts the caller's back when it returns (leave), so the program's own
   runtime calls, cuBLAS or launches still go to the device it chose. */
static int dag__gpu_use(dag__gpu *g, int dev) { return g->rt.SetDevice(g->devices[dev].ordinal); }
/* When the caller's device cannot be read, the call fails and leaves it as it is: a switch that
   could not be undone would move the program's own work to another GPU. */
static int dag__gpu_enter_ordinal(dag__gpu *g, int ordinal, int *saved) {
    int current = -1, e = g->rt.GetDevice(&current);
    *saved = -1;
    if (e || current == ordinal) return e;
    e = g->rt.SetDevice(ordinal);
    if (!e) *saved = current;
    return e;
}
static int dag__gpu_enter(dag__gpu *g, int dev, int *saved) {
    return dag__gpu_enter_ordinal(g, g->devices[dev].ordinal, saved);
}
/* For a function that goes through several devices: the caller's, whatever it is. */
static void dag__gpu_enter_any(dag__gpu *g, int *saved) {
    int current = -1;
    *saved = g->rt.GetDevice(&current) == 0 ? current : -1;
}
static void dag__gpu_leave(dag__gpu *g, int saved) {
    if (saved >= 0) g->rt.SetDevice(saved);
}

/* Finds the devices and gives each a stream, its name and peer access. A
   device that cannot be opened (busy, exclusive-process, out of memory) is
   skipped and said, and the others are kept. Returns how many, or -1 with
   why (the runtime's own error). */
static int dag__gpu_open_devices(dag__gpu *g, char *why, size_t why_size) {
    int n = 0, count_error = g->rt.GetDeviceCount(&n);
    if (count_error || n <= 0) {
        char text[160];
        if (count_error)
            snprintf(why, why_size, "%sGetDeviceCount returned %d (%s)", g->short_name, count_error,
                     g->error_text(count_error, text, sizeof text));
        else
            snprintf(why, why_size, "no %s device", g->name);
        return -1;
    }
    int saved = -1, current = -1;
    if (g->rt.GetDevice(&current) == 0) saved = current;
    char skipped[256] = "";
    int found = 0;
    for (int o = 0; o < n && found < DAG__GPU_MAX_DEVICES; o++) {
        dag__gpu_device *dv = &g->devices[found];
        memset(dv, 0, sizeof *dv);
        dv->ordinal = o;
        int e = g->rt.SetDevice(o);
        if (!e) e = g->device_info(o, dv->name, sizeof dv->name, &dv->memory);
        for (int l = 0; !e && l < DAG__GPU_LANES; l++) e = g->rt.StreamCreateWithFlags(&dv->stream[l], DAG__GPU_STREAM_NON_BLOCKING);
        if (e) {
            for (int l = 0; l < DAG__GPU_LANES; l++)
                if (dv->stream[l]) g->rt.StreamDestroy(dv->stream[l]);
            char text[160];
            g->error_text(e, text, sizeof text);
            dag_log(DAG_LOG_WARN, DAG_OK, "%s: device %d skipped: %s", g->name, o + 1, text);
            size_t at = strlen(skipped);
            snprintf(skipped + at, sizeof skipped - at, "; device %d skipped (%s)", o + 1, text);
            memset(dv, 0, sizeof *dv);
            continue;
        }
        g->num = ++found;
    }
    if (found == 0) {
        if (saved >= 0) g->rt.SetDevice(saved);
        snprintf(why, why_size, "no %s device opened%s", g->name, skipped);
        return -1;
    }
    for (int d = 0; d < found; d++)
        for (int j = 0; j < found; j++) {
            int ok = 0, od = g->devices[d].ordinal, oj = g->devices[j].ordinal;
            if (j == d || g->rt.DeviceCanAccessPeer(&ok, od, oj) != 0 || !ok) continue;
            dag__gpu_use(g, d);
            int e = g->rt.DeviceEnablePeerAccess(oj, 0);
            g->devices[d].peer[j] = e == 0 || e == (int)DAG__GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED;
        }
    if (saved >= 0) g->rt.SetDevice(saved);
    snprintf(why, why_size, "%d %s device(s); device 1: %s%s", found, g->name, g->devices[0].name, skipped);
    return found;
}

static void dag__gpu_close_devices(dag__gpu *g) {
    int saved;
    dag__gpu_enter_any(g, &saved);
    for (int d = 0; d < g->num; d++) {
        dag__gpu_device *dv = &g->devices[d];
        dag__gpu_use(g, d);
        for (int l = 0; l < DAG__GPU_LANES; l++) g->rt.StreamSynchronize(dv->stream[l]);
        while (dv->stages) {
            dag__gpu_stage *s = dv->stages;
            dv->stages = s->next;
            if (s->free_after) g->rt.EventDestroy(s->free_after);
            g->rt.FreeHost(s->ptr);
            DAG_FREE(s);
        }
        for (int l = 0; l < DAG__GPU_LANES; l++) {
            if (dv->mark_event[l]) g->rt.EventDestroy(dv->mark_event[l]);
            g->rt.StreamDestroy(dv->stream[l]);
        }
        if (dv->epoch) g->rt.EventDestroy(dv->epoch);
        for (int t = 0; t < 2; t++)
            while (dv->spares[t]) g->rt.EventDestroy(dv->spare[t][--dv->spares[t]]);
    }
    dag__gpu_leave(g, saved);
    g->num = 0;
}

static int dag__gpu_alloc(dag__gpu *g, int dev, size_t bytes, void **buf) {
    int saved, e = dag__gpu_enter(g, dev, &saved);
    if (!e) e = g->rt.Malloc(buf, bytes ? bytes : 1);
    dag__gpu_leave(g, saved);
    return e;
}
static void dag__gpu_free(dag__gpu *g, int dev, void *buf) {
    int saved;
    dag__gpu_enter(g, dev, &saved);
    g->rt.Free(buf);
    dag__gpu_leave(g, saved);
}

/* An idle pinned buffer of at least `bytes`, or NULL (then the copy goes
   from pageable memory). */
static dag__gpu_stage *dag__gpu_stage_get(dag__gpu *g, int dev, size_t bytes) {
    dag__gpu_device *dv = &g->devices[dev];
    if (bytes > DAG__GPU_STAGE_MAX) return NULL;
    for (dag__gpu_stage *s = dv->stages; s; s = s->next) {
        if (s->bytes < bytes || s->downloading) continue;
        if (s->free_after && g->rt.EventQuery(s->free_after) != 0) continue;
        return s;
    }
    size_t size = DAG__GPU_STAGE_MIN;
    while (size < bytes) size *= 2;
    if (dv->staged_bytes + size > DAG__GPU_STAGE_TOTAL) return NULL;
    void *ptr = NULL;
    if (g->rt.HostAlloc(&ptr, size, DAG__GPU_HOST_ALLOC_PORTABLE) != 0 || !ptr) return NULL;
    dag__gpu_stage *s = (dag__gpu_stage *)dag__xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->ptr = ptr;
    s->bytes = size;
    s->next = dv->stages;
    dv->stages = s;
    dv->staged_bytes += size;
    return s;
}

/* An event of dev done with goes back to its spares (recording it again is cheaper than making
   one: a wait holds the record it was given, so a later record moves nothing already waiting). */
static void dag__gpu_event_give(dag__gpu *g, int dev, void *event, int timed) {
    dag__gpu_device *dv = &g->devices[dev];
    if (dv->spares[timed] < DAG__GPU_SPARE) dv->spare[timed][dv->spares[timed]++] = event;
    else g->rt.EventDestroy(event);
}
/* Records an event on dev's lane (a spare, or a new one): untimed unless
   `timed`. On failure *ev is NULL: no destroyed handle is left behind. */
static int dag__gpu_record(dag__gpu *g, int dev, int lane, void **ev, int timed) {
    dag__gpu_device *dv = &g->devices[dev];
    *ev = NULL;
    void *made = dv->spares[timed] ? dv->spare[timed][--dv->spares[timed]] : NULL;
    int e = made ? 0 : g->rt.EventCreateWithFlags(&made, timed ? DAG__GPU_EVENT_DEFAULT : DAG__GPU_EVENT_DISABLE_TIMING);
    if (e) return e;
    e = g->rt.EventRecord(made, dv->stream[lane]);
    if (e) g->rt.EventDestroy(made);
    else *ev = made;
    return e;
}

/* >>lanes: the mark of the command last queued on dev's lane; and lane's next command made to wait
   for from_lane's commands up to mark. One event per lane serves every wait: it is recorded again
   (at the lane's latest command, which covers mark) only when a wait asks for more than its last
   record covers, and a lane that already waits for a later mark of from_lane does nothing; a wait
   holds the record it was given (the runtimes' rule), so recording again never moves an earlier
   wait. The caller has dev current. */
static uint64_t dag__gpu_mark(dag__gpu *g, int dev, int lane) { return g->devices[dev].queued[lane]; }
static int dag__gpu_wait_lane_current(dag__gpu *g, int dev, int lane, int from, uint64_t mark) {
    dag__gpu_device *dv = &g->devices[dev];
    if (lane == from || dv->waited[lane][from] >= mark) return 0;
    int e = 0;
    if (dv->marked[from] < mark || !dv->mark_event[from]) {
        if (!dv->mark_event[from])
            e = g->rt.EventCreateWithFlags(&dv->mark_event[from], DAG__GPU_EVENT_DISABLE_TIMING);
        if (!e) e = g->rt.EventRecord(dv->mark_event[from], dv->stream[from]);
        if (e) return e;
        dv->marked[from] = dv->queued[from];
    }
    e = g->rt.StreamWaitEvent(dv->stream[lane], dv->mark_event[from], 0);
    if (!e) dv->waited[lane][from] = dv->marked[from];
    return e;
}
static int dag__gpu_wait_lane(dag__gpu *g, int dev, int lane, int from, uint64_t mark) {
    int saved, e = dag__gpu_enter(g, dev, &saved);
    if (!e) e = dag__gpu_wait_lane_current(g, dev, lane, from, mark);
    dag__gpu_leave(g, saved);
    return e;
}

static dag__gpu_event *dag__gpu_event_new(dag__gpu *g, int dev) {
    dag__gpu_event *ev = (dag__gpu_event *)dag__xmalloc(sizeof *ev);
    memset(ev, 0, sizeof *ev);
    ev->g = g;
    ev->dev = dev;
    return ev;
}

/* A copy failed after something may have been queued: the lane drains, so
   no staging buffer or host span is still read or written behind the
   caller's back (an error path must leave nothing in flight). */
static int dag__gpu_copy_failed(dag__gpu *g, int dev, int lane, int e) {
    g->rt.StreamSynchronize(g->devices[dev].stream[lane]);
    return e;
}

/* how: dag_device.h's DAG__COPY_TO_DEVICE, DAG__COPY_PINNED (host memory the
   runtime registered: copied straight, no staging). */
static int dag__gpu_copy_current(dag__gpu *g, int dev, int lane, void *buf, void *host, size_t rows, size_t width,
                                 size_t stride, int how, void **done) {
    void *q = g->devices[dev].stream[lane];
    size_t bytes = rows * width;
    int e = 0, to_device = how & DAG__COPY_TO_DEVICE;
    g->devices[dev].queued[lane]++;
    dag__gpu_stage *s = how & DAG__COPY_PINNED ? NULL : dag__gpu_stage_get(g, dev, bytes);
    dag__gpu_event *ev = to_device && s ? NULL : dag__gpu_event_new(g, dev);
    /* a download is timed: the device layer learns the bandwidth back from the copy's own time, not
       from the wall clock, which also counts the kernels queued before it (dag__rep_write_back) */
    if (!to_device && dag__gpu_record(g, dev, lane, &ev->start, 1) == 0) ev->timed = 1;
    if (to_device && s) {
        for (size_t r = 0; r < rows; r++) memcpy((char *)s->ptr + r * width, (char *)host + r * stride, width);
        e = g->rt.Memcpy2DAsync(buf, width, s->ptr, width, width, rows, DAG__GPU_HOST_TO_DEVICE, q);
        if (s->free_after) dag__gpu_event_give(g, dev, s->free_after, 0);
        s->free_after = NULL;
        if (!e) e = dag__gpu_record(g, dev, lane, &s->free_after, 0);
        return e ? dag__gpu_copy_failed(g, dev, lane, e) : 0;
    }
    if (s) {   /* a download into staging: wait() unpacks it */
        e = g->rt.Memcpy2DAsync(s->ptr, width, buf, width, width, rows, DAG__GPU_DEVICE_TO_HOST, q);
        if (!e) {
            s->downloading = 1;
            ev->stage = s;
            ev->host = host;
            ev->rows = rows;
            ev->width = width;
            ev->stride = stride;
        }
    } else if (rows == 1) {   /* one run: a plain copy, since 2-D copies cap their pitches (about 2 GiB) */
        e = to_device ? g->rt.MemcpyAsync(buf, host, width, DAG__GPU_HOST_TO_DEVICE, q)
                      : g->rt.MemcpyAsync(host, buf, width, DAG__GPU_DEVICE_TO_HOST, q);
    } else {
        e = to_device ? g->rt.Memcpy2DAsync(buf, width, host, stride, width, rows, DAG__GPU_HOST_TO_DEVICE, q)
                      : g->rt.Memcpy2DAsync(host, stride, buf, width, width, rows, DAG__GPU_DEVICE_TO_HOST, q);
        /* a pitch past the device's limit (cudaDevAttrMaxPitch): row by row, each a plain copy */
        for (size_t r = 0; e == (int)DAG__GPU_ERROR_INVALID_PITCH_VALUE && r < rows; r++) {
            char *h = (char *)host + r * stride, *b = (char *)buf + r * width;
            int er = to_device ? g->rt.MemcpyAsync(b, h, width, DAG__GPU_HOST_TO_DEVICE, q)
                               : g->rt.MemcpyAsync(h, b, width, DAG__GPU_DEVICE_TO_HOST, q);
            if (er) e = er;
            else if (r + 1 == rows) e = 0;
        }
    }
    if (!e) e = dag__gpu_record(g, dev, lane, &ev->end, ev->timed);
    if (e) {
        if (ev->stage) ev->stage->downloading = 0;
        if (ev->start) dag__gpu_event_give(g, dev, ev->start, 1);
        DAG_FREE(ev);
        return dag__gpu_copy_failed(g, dev, lane, e);
    }
    *done = ev;
    return 0;
}

static int dag__gpu_copy(dag__gpu *g, int dev, int lane, void *buf, void *host, size_t rows, size_t width, size_t stride,
                         int how, void **done) {
    *done = NULL;
    int saved, e = dag__gpu_enter(g, dev, &saved);
    if (!e) e = dag__gpu_copy_current(g, dev, lane, buf, host, rows, width, stride, how, done);
    dag__gpu_leave(g, saved);
    return e;
}

/* Lane `lane` of device `to` waits for what lane from_lane of device `from` queued so far (the
   runtimes allow a wait on another device's event); `to` is current after. */
static int dag__gpu_follow(dag__gpu *g, int to, int lane, int from, int from_lane) {
    void *ev = NULL;
    int e = dag__gpu_use(g, from);
    if (!e) e = dag__gpu_record(g, from, from_lane, &ev, 0);
    if (!e) e = dag__gpu_use(g, to);
    if (!e) e = g->rt.StreamWaitEvent(g->devices[to].stream[lane], ev, 0);
    if (ev) dag__gpu_event_give(g, from, ev, 0);
    return e;
}

/* Queued on dst's copy-in lane (0) after everything src queued on any lane; src's lanes then wait
   for the copy before whatever they run next (which may overwrite src_buf). */
static int dag__gpu_peer_copy(dag__gpu *g, int dst, void *dst_buf, int src, void *src_buf, size_t bytes) {
    if (!g->devices[dst].peer[src]) return -1;
    int saved, queued = 0, e = 0;
    dag__gpu_enter_any(g, &saved);   /* it goes through both devices */
    for (int l = 0; !e && l < DAG__GPU_LANES; l++)
        if (g->devices[src].queued[l]) e = dag__gpu_follow(g, dst, 0, src, l);
    if (!e) e = dag__gpu_use(g, dst);
    if (!e) {
        g->devices[dst].queued[0]++;
        e = g->rt.MemcpyPeerAsync(dst_buf, g->devices[dst].ordinal, src_buf, g->devices[src].ordinal, bytes,
                                  g->devices[dst].stream[0]);
    }
    queued = !e;
    for (int l = 0; !e && l < DAG__GPU_LANES; l++) e = dag__gpu_follow(g, src, l, dst, 0);
    /* a copy queued but not ordered before src's next work: it ends here */
    if (e && queued) g->rt.StreamSynchronize(g->devices[dst].stream[0]);
    dag__gpu_leave(g, saved);
    return e;
}

/* Queues a kernel's build, or the library routine standing in for it (lib),
   on dev's lane, between a start and an end event when done asks for one
   (timed: the cost model samples it). A kernel gets its arguments as the
   runtime wants them: a pointer to each value, the range first (a 64-bit
   size_t, as the kernel declares it). */
static int dag__gpu_queue_work(dag__gpu *g, int dev, int lane, void *kernel, const dag_library_kernel *lib, size_t n,
                               const dag_kernel_arg *args, int num_args, void **done) {
    dag__gpu_event *ev = NULL;
    void *stream = g->devices[dev].stream[lane];
    int saved, e = dag__gpu_enter(g, dev, &saved);
    g->devices[dev].queued[lane]++;
    if (!e && done) {
        ev = dag__gpu_event_new(g, dev);
        ev->timed = 1;
        e = dag__gpu_record(g, dev, lane, &ev->start, 1);
    }
    if (!e && lib) {
        e = lib->call(lib, stream, dev, n, args, num_args, NULL);
    } else if (!e) {
        void *params[DAG__MAX_PARAMS + 1];
        unsigned long long range = n;
        params[0] = &range;
        for (int i = 0; i < num_args; i++)
            params[i + 1] = args[i].buffer ? (void *)&args[i].buffer : (void *)args[i].value;
        e = g->start_kernel(stream, kernel, n, params);
    }
    /* queued: a failed end record only leaves the launch untimed (failing the task would leave its
       kernel queued and untracked, writing a span the device layer thinks untouched) */
    if (!e && ev && dag__gpu_record(g, dev, lane, &ev->end, 1) != 0) {
        dag__gpu_event_give(g, dev, ev->start, 1);
        DAG_FREE(ev);
        ev = NULL;
    }
    if (e && ev) {
        if (ev->start) dag__gpu_event_give(g, dev, ev->start, 1);
        DAG_FREE(ev);
        ev = NULL;
    }
    dag__gpu_leave(g, saved);
    if (done) *done = ev;
    return e;
}
static void dag__gpu_release_library(dag__gpu *g, int dev, const dag_library_kernel *lib) {
    int saved;
    if (dag__gpu_enter(g, dev, &saved)) return;
    lib->release(g->devices[dev].stream[0], dev);
    dag__gpu_leave(g, saved);
}

static int dag__gpu_wait(void *event) {
    dag__gpu_event *ev = (dag__gpu_event *)event;
    dag__gpu *g = ev->g;
    if (!ev->end) return 0;   /* its record failed earlier: nothing to wait for */
    int saved, e = dag__gpu_enter(g, ev->dev, &saved);
    if (!e) e = g->rt.EventSynchronize(ev->end);
    if (ev->stage && ev->stage->downloading) {
        if (!e) {
            for (size_t r = 0; r < ev->rows; r++)
                memcpy((char *)ev->host + r * ev->stride, (char *)ev->stage->ptr + r * ev->width, ev->width);
        } else {   /* the download may still be under way: the buffer stays busy until its event (a timed
                      event serves as an untimed one there, and among the untimed spares after) */
            if (ev->stage->free_after) dag__gpu_event_give(g, ev->dev, ev->stage->free_after, 0);
            ev->stage->free_after = ev->end;
            ev->end = NULL;
        }
        ev->stage->downloading = 0;
    }
    dag__gpu_leave(g, saved);
    return e;
}
static int dag__gpu_query(void *event) {
    dag__gpu_event *ev = (dag__gpu_event *)event;
    dag__gpu *g = ev->g;
    if (!ev->end) return 1;
    int e = g->rt.EventQuery(ev->end);
    return e == 0 ? 1 : e == (int)DAG__GPU_ERROR_NOT_READY ? 0 : -e;
}
static double dag__gpu_elapsed(void *event) {
    dag__gpu_event *ev = (dag__gpu_event *)event;
    dag__gpu *g = ev->g;
    float ms = 0;
    if (!ev->start || !ev->end || g->rt.EventElapsedTime(&ms, ev->start, ev->end) != 0) return 0.0;
    return (double)ms * 1e-3;
}
static void dag__gpu_release(void *event) {
    dag__gpu_event *ev = (dag__gpu_event *)event;
    dag__gpu *g = ev->g;
    int saved;
    dag__gpu_enter(g, ev->dev, &saved);
    if (ev->stage && ev->stage->downloading) {
        /* never waited for (an error path): its bytes are dropped, but the
           download may still be queued, so the buffer is busy until it ends */
        ev->stage->downloading = 0;
        if (ev->stage->free_after) dag__gpu_event_give(g, ev->dev, ev->stage->free_after, 0);
        ev->stage->free_after = ev->end;
        ev->end = NULL;
    }
    if (ev->start) dag__gpu_event_give(g, ev->dev, ev->start, 1);
    if (ev->end) dag__gpu_event_give(g, ev->dev, ev->end, ev->timed);
    dag__gpu_leave(g, saved);
    DAG_FREE(ev);
}
static int dag__gpu_synchronize(dag__gpu *g, int dev) {
    int saved, e = dag__gpu_enter(g, dev, &saved);
    for (int l = 0; l < DAG__GPU_LANES; l++) {
        int el = e ? 0 : g->rt.StreamSynchronize(g->devices[dev].stream[l]);
        if (el && !e) e = el;
    }
    dag__gpu_leave(g, saved);
    return e;
}

/* Host memory pinned for copies straight to and from it (portable: every device's); the device
   layer pins a resident span's pages once and unpins them when it forgets the span. */
static int dag__gpu_host_register(dag__gpu *g, void *p, size_t bytes) {
    return g->rt.HostRegister(p, bytes, DAG__GPU_HOST_REGISTER_PORTABLE);
}
static void dag__gpu_host_unregister(dag__gpu *g, void *p) { g->rt.HostUnregister(p); }

/* >>stamps (the trace's): a timed event queued on a lane. The device's epoch, recorded and waited
   for at its first stamp, ties the events' times to the host clock. */
static void *dag__gpu_stamp(dag__gpu *g, int dev, int lane) {
    dag__gpu_device *dv = &g->devices[dev];
    dag__gpu_event *ev = NULL;
    int saved, e = dag__gpu_enter(g, dev, &saved);
    if (!e && !dv->epoch && (e = dag__gpu_record(g, dev, lane, &dv->epoch, 1)) == 0) {
        e = g->rt.EventSynchronize(dv->epoch);
        dv->epoch_ns = dag__now_ns();
    }
    if (!e) {
        ev = dag__gpu_event_new(g, dev);
        ev->timed = 1;
        if (dag__gpu_record(g, dev, lane, &ev->end, 1)) DAG_FREE(ev);
    }
    dag__gpu_leave(g, saved);
    return ev;
}
static uint64_t dag__gpu_stamp_ns(void *stamp) {
    dag__gpu_event *ev = (dag__gpu_event *)stamp;
    dag__gpu *g = ev->g;
    float ms = 0;
    if (g->rt.EventQuery(ev->end) != 0 || g->rt.EventElapsedTime(&ms, g->devices[ev->dev].epoch, ev->end) != 0) return 0;
    return g->devices[ev->dev].epoch_ns + (ms > 0 ? (uint64_t)((double)ms * 1e6) : 0) + 1;   /* (0 means unknown) */
}

/* Only a full device is worth evicting for; any other error of Malloc fails at once. */
static bool dag__gpu_out_of_memory(int e) { return e == (int)DAG__GPU_ERROR_MEMORY_ALLOCATION; }

static unsigned dag__gpu_blocks(size_t n) {
    size_t b = (n + DAG__GPU_BLOCK - 1) / DAG__GPU_BLOCK;
    return b ? (unsigned)b : 1u;
}


/* A backend's ops table, prefix##_ops: its functions are these on its
   dag__gpu `gpu`, through a line each for those that take the device (the
   table has no room for the dag__gpu); the backend defines prefix##_init,
   _shutdown, _has_kernel, _build, _release_kernel and _error_text. NAME and SHORT_NAME
   as in gpu (the table is a constant). */
#define DAG__GPU_OPS(prefix, gpu, backend, NAME, SHORT_NAME, max_items)                                              \
    static int prefix##_alloc(int dev, size_t bytes, void **buf) { return dag__gpu_alloc(&gpu, dev, bytes, buf); }   \
    static void prefix##_free(int dev, void *buf) { dag__gpu_free(&gpu, dev, buf); }                                 \
    static int prefix##_copy(int dev, int lane, void *buf, void *host, size_t rows, size_t width, size_t stride,     \
                             int how, void **done) {                                                                 \
        return dag__gpu_copy(&gpu, dev, lane, buf, host, rows, width, stride, how, done);                            \
    }                                                                                                                \
    static int prefix##_peer_copy(int dst, void *dst_buf, int src, void *src_buf, size_t bytes) {                    \
        return dag__gpu_peer_copy(&gpu, dst, dst_buf, src, src_buf, bytes);                                          \
    }                                                                                                                \
    static int prefix##_launch(int dev, int lane, void *kernel, size_t n, const dag_kernel_arg *args, int num_args,  \
                               void **done) {                                                                        \
        return dag__gpu_queue_work(&gpu, dev, lane, kernel, NULL, n, args, num_args, done);                          \
    }                                                                                                                \
    static int prefix##_call_library(int dev, int lane, const dag_library_kernel *lib, size_t n,                     \
                                     const dag_kernel_arg *args, int num_args, void **done) {                        \
        return dag__gpu_queue_work(&gpu, dev, lane, NULL, lib, n, args, num_args, done);                             \
    }                                                                                                                \
    static void prefix##_release_library(int dev, const dag_library_kernel *lib) {                                   \
        dag__gpu_release_library(&gpu, dev, lib);                                                                    \
    }                                                                                                                \
    static int prefix##_synchronize(int dev) { return dag__gpu_synchronize(&gpu, dev); }                             \
    static uint64_t prefix##_mark(int dev, int lane) { return dag__gpu_mark(&gpu, dev, lane); }                      \
    static int prefix##_wait_lane(int dev, int lane, int from, uint64_t mark) {                                      \
        return dag__gpu_wait_lane(&gpu, dev, lane, from, mark);                                                      \
    }                                                                                                                \
    static int prefix##_host_register(void *p, size_t bytes) { return dag__gpu_host_register(&gpu, p, bytes); }      \
    static void prefix##_host_unregister(void *p) { dag__gpu_host_unregister(&gpu, p); }                             \
    static void *prefix##_stamp(int dev, int lane) { return dag__gpu_stamp(&gpu, dev, lane); }                       \
    static size_t prefix##_memory(int dev) { return gpu.devices[dev].memory; }                                       \
    static const char *prefix##_device_name(int dev) { return gpu.devices[dev].name; }                               \
    static const dag__device_ops prefix##_ops = {                                                                    \
        backend, NAME, SHORT_NAME, prefix##_init, prefix##_shutdown, prefix##_alloc, prefix##_free,                  \
        prefix##_copy, prefix##_peer_copy, prefix##_has_kernel, prefix##_build, prefix##_release_kernel,             \
        prefix##_launch, dag__gpu_wait, dag__gpu_query, dag__gpu_elapsed, dag__gpu_release, prefix##_synchronize,    \
        prefix##_memory, prefix##_device_name, max_items, NULL /* one allocation may take the whole memory */,       \
        prefix##_call_library, prefix##_release_library, dag__gpu_out_of_memory, prefix##_error_text,                \
        NULL /* max_items is the runtime's */, DAG__GPU_LANES, prefix##_mark, prefix##_wait_lane,                    \
        prefix##_host_register, prefix##_host_unregister, prefix##_stamp, dag__gpu_stamp_ns                          \
    };

#endif /* DAG_GPU_STREAM_H_INCLUDED */
