/* dag_gpu_stream.h: what the CUDA and HIP backends of dag.h share.

   The CUDA runtime and HIP have the same shape (HIP copied the CUDA
   runtime's names: cudaMemcpy2DAsync is hipMemcpy2DAsync), so the device
   operations are written once here and included by dag_cuda.h and
   dag_hip.h, each after defining:
     DAG__GPU(x)   its private names (dag__cuda_x, dag__hip_x)
     DAG__RT(x)    a runtime call (cudaX, or hipX through the loaded library)
     DAG__RTT(x)   a runtime type or constant (cudaX, hipX)
     DAG__RT_HOST_ALLOC(pp, bytes), DAG__RT_HOST_FREE(p)   pinned host memory
     DAG__GPU_BACKEND, DAG__GPU_NAME, DAG__GPU_SHORT   its dag_backend and names
   and the functions DAG__GPU(device_info)(dev, name, size, &bytes) and
   DAG__GPU(error_text)(code, buf, size); after it, the backend defines what
   differs (declared below): init, shutdown, has_kernel, build,
   release_kernel and start_kernel. This file fills the ops table. No
   include guard: included once per backend.

   Per device: one non-blocking stream (copies and kernels in order), events
   (timed only for the launches the cost model samples), pinned staging
   buffers, and peer access to the devices that allow it.
   - An upload packs the span's rows into a pinned staging buffer and copies
     from there, so it is truly asynchronous and no longer reads the host
     bytes once queued (its `done` comes back NULL).
   - A download lands in a staging buffer; wait() unpacks it into the host
     span. The generic layer waits for every download it starts.
   - Spans larger than a staging buffer, or when pinned memory runs out,
     copy straight from pageable memory (the runtime stages those itself). */

/* what each backend defines after including this file */
static int DAG__GPU(init)(char *why, size_t why_size);
static void DAG__GPU(shutdown)(void);
static bool DAG__GPU(has_kernel)(const dag_kernel_source *k);
static int DAG__GPU(build)(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size);
static void DAG__GPU(release_kernel)(int dev, void *kernel);
/* queues the kernel on dev's stream (the device is current) */
static int DAG__GPU(start_kernel)(int dev, void *kernel, size_t n, void **params);

#define DAG__GPU_MAX_DEVICES 16
#define DAG__GPU_BLOCK 256                  /* threads per block of a launch */
#define DAG__GPU_STAGE_MIN (64u << 10)      /* staging buffers come in powers of two from here */
#define DAG__GPU_STAGE_MAX (16u << 20)      /* larger copies go straight from pageable memory */
#define DAG__GPU_STAGE_TOTAL (256u << 20)   /* pinned bytes per device at most */

typedef struct DAG__GPU(stage) {
    void *ptr;
    size_t bytes;
    DAG__RTT(Event_t) free_after;           /* the copy that last used it; NULL: idle */
    int downloading;                        /* holds a download until wait() unpacks it */
    struct DAG__GPU(stage) *next;
} DAG__GPU(stage);

typedef struct DAG__GPU(device) {
    DAG__RTT(Stream_t) stream;
    char name[128];
    size_t memory;
    DAG__GPU(stage) *stages;
    size_t staged_bytes;
    bool peer[DAG__GPU_MAX_DEVICES];        /* peer[j]: this device reads device j's memory */
} DAG__GPU(device);

/* An event: a launch's (start is set when it is timed) or a download's,
   which says where its staged bytes go. */
typedef struct DAG__GPU(event) {
    int dev;
    DAG__RTT(Event_t) end, start;
    DAG__GPU(stage) *stage;
    void *host;
    size_t rows, width, stride;
} DAG__GPU(event);

static struct {
    DAG__GPU(device) devices[DAG__GPU_MAX_DEVICES];
    int num;
} DAG__GPU(g);

static int DAG__GPU(use)(int dev) { return (int)DAG__RT(SetDevice)(dev); }

/* Finds the devices and gives each a stream, its name and peer access.
   Returns how many, or -1 with why (the runtime's own error). */
static int DAG__GPU(open_devices)(char *why, size_t why_size) {
    int n = 0, count_error = (int)DAG__RT(GetDeviceCount)(&n);
    if (count_error || n <= 0) {
        char text[160];
        if (count_error)
            snprintf(why, why_size, "%sGetDeviceCount returned %d (%s)", DAG__GPU_SHORT, count_error,
                     DAG__GPU(error_text)(count_error, text, sizeof text));
        else
            snprintf(why, why_size, "no %s device", DAG__GPU_NAME);
        return -1;
    }
    if (n > DAG__GPU_MAX_DEVICES) n = DAG__GPU_MAX_DEVICES;
    for (int d = 0; d < n; d++) {
        DAG__GPU(device) *dv = &DAG__GPU(g).devices[d];
        memset(dv, 0, sizeof *dv);
        int e = DAG__GPU(use)(d);
        if (!e) e = DAG__GPU(device_info)(d, dv->name, sizeof dv->name, &dv->memory);
        if (!e) e = (int)DAG__RT(StreamCreateWithFlags)(&dv->stream, DAG__RTT(StreamNonBlocking));
        if (e) {
            char text[160];
            snprintf(why, why_size, "device %d: no stream (%s)", d + 1, DAG__GPU(error_text)(e, text, sizeof text));
            DAG__GPU(g).num = d;
            return -1;
        }
        DAG__GPU(g).num = d + 1;
    }
    for (int d = 0; d < n; d++)
        for (int j = 0; j < n; j++) {
            int ok = 0;
            if (j == d || DAG__RT(DeviceCanAccessPeer)(&ok, d, j) != 0 || !ok) continue;
            DAG__GPU(use)(d);
            int e = (int)DAG__RT(DeviceEnablePeerAccess)(j, 0);
            DAG__GPU(g).devices[d].peer[j] = e == 0 || e == (int)DAG__RTT(ErrorPeerAccessAlreadyEnabled);
        }
    snprintf(why, why_size, "%d %s device(s); device 1: %s", n, DAG__GPU_NAME, DAG__GPU(g).devices[0].name);
    return n;
}

static void DAG__GPU(close_devices)(void) {
    for (int d = 0; d < DAG__GPU(g).num; d++) {
        DAG__GPU(device) *dv = &DAG__GPU(g).devices[d];
        DAG__GPU(use)(d);
        DAG__RT(StreamSynchronize)(dv->stream);
        while (dv->stages) {
            DAG__GPU(stage) *s = dv->stages;
            dv->stages = s->next;
            if (s->free_after) DAG__RT(EventDestroy)(s->free_after);
            DAG__RT_HOST_FREE(s->ptr);
            DAG_FREE(s);
        }
        DAG__RT(StreamDestroy)(dv->stream);
    }
    memset(&DAG__GPU(g), 0, sizeof DAG__GPU(g));
}

static int DAG__GPU(alloc)(int dev, size_t bytes, void **buf) {
    int e = DAG__GPU(use)(dev);
    return e ? e : (int)DAG__RT(Malloc)(buf, bytes ? bytes : 1);
}
static void DAG__GPU(free)(int dev, void *buf) {
    DAG__GPU(use)(dev);
    DAG__RT(Free)(buf);
}

/* An idle pinned buffer of at least `bytes`, or NULL (then the copy goes
   from pageable memory). */
static DAG__GPU(stage) *DAG__GPU(stage_get)(int dev, size_t bytes) {
    DAG__GPU(device) *dv = &DAG__GPU(g).devices[dev];
    if (bytes > DAG__GPU_STAGE_MAX) return NULL;
    for (DAG__GPU(stage) *s = dv->stages; s; s = s->next) {
        if (s->bytes < bytes || s->downloading) continue;
        if (s->free_after && DAG__RT(EventQuery)(s->free_after) != 0) continue;
        return s;
    }
    size_t size = DAG__GPU_STAGE_MIN;
    while (size < bytes) size *= 2;
    if (dv->staged_bytes + size > DAG__GPU_STAGE_TOTAL) return NULL;
    void *ptr = NULL;
    if (DAG__RT_HOST_ALLOC(&ptr, size) != 0 || !ptr) return NULL;
    DAG__GPU(stage) *s = (DAG__GPU(stage) *)dag__xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->ptr = ptr;
    s->bytes = size;
    s->next = dv->stages;
    dv->stages = s;
    dv->staged_bytes += size;
    return s;
}

/* Records an event on dev's stream: untimed unless `timed`. */
static int DAG__GPU(record)(int dev, DAG__RTT(Event_t) *ev, int timed) {
    int e = (int)DAG__RT(EventCreateWithFlags)(ev, timed ? DAG__RTT(EventDefault) : DAG__RTT(EventDisableTiming));
    if (e) return e;
    e = (int)DAG__RT(EventRecord)(*ev, DAG__GPU(g).devices[dev].stream);
    if (e) DAG__RT(EventDestroy)(*ev);
    return e;
}

static DAG__GPU(event) *DAG__GPU(event_new)(int dev) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)dag__xmalloc(sizeof *ev);
    memset(ev, 0, sizeof *ev);
    ev->dev = dev;
    return ev;
}

static int DAG__GPU(copy)(int dev, void *buf, void *host, size_t rows, size_t width, size_t stride, int to_device,
                          void **done) {
    DAG__RTT(Stream_t) q = DAG__GPU(g).devices[dev].stream;
    size_t bytes = rows * width;
    *done = NULL;
    int e = DAG__GPU(use)(dev);
    if (e) return e;
    DAG__GPU(stage) *s = DAG__GPU(stage_get)(dev, bytes);
    DAG__GPU(event) *ev = to_device && s ? NULL : DAG__GPU(event_new)(dev);
    if (to_device && s) {
        for (size_t r = 0; r < rows; r++) memcpy((char *)s->ptr + r * width, (char *)host + r * stride, width);
        e = (int)DAG__RT(Memcpy2DAsync)(buf, width, s->ptr, width, width, rows, DAG__RTT(MemcpyHostToDevice), q);
        if (s->free_after) DAG__RT(EventDestroy)(s->free_after);
        s->free_after = NULL;
        return e ? e : DAG__GPU(record)(dev, &s->free_after, 0);
    }
    if (s) {   /* a download into staging: wait() unpacks it */
        e = (int)DAG__RT(Memcpy2DAsync)(s->ptr, width, buf, width, width, rows, DAG__RTT(MemcpyDeviceToHost), q);
        if (!e) {
            s->downloading = 1;
            ev->stage = s;
            ev->host = host;
            ev->rows = rows;
            ev->width = width;
            ev->stride = stride;
        }
    } else if (rows == 1) {   /* one run: a plain copy, since 2-D copies cap their pitches (about 2 GiB) */
        e = to_device ? (int)DAG__RT(MemcpyAsync)(buf, host, width, DAG__RTT(MemcpyHostToDevice), q)
                      : (int)DAG__RT(MemcpyAsync)(host, buf, width, DAG__RTT(MemcpyDeviceToHost), q);
    } else {
        e = to_device ? (int)DAG__RT(Memcpy2DAsync)(buf, width, host, stride, width, rows, DAG__RTT(MemcpyHostToDevice), q)
                      : (int)DAG__RT(Memcpy2DAsync)(host, stride, buf, width, width, rows, DAG__RTT(MemcpyDeviceToHost), q);
    }
    if (!e) e = DAG__GPU(record)(dev, &ev->end, 0);
    if (e) {
        if (ev->stage) ev->stage->downloading = 0;
        DAG_FREE(ev);
        return e;
    }
    *done = ev;
    return 0;
}

/* dst's stream waits for what src queued, copies, and src's stream waits
   for the copy before whatever it runs next (which may overwrite src_buf). */
static int DAG__GPU(peer_copy)(int dst, void *dst_buf, int src, void *src_buf, size_t bytes) {
    if (!DAG__GPU(g).devices[dst].peer[src]) return -1;
    DAG__RTT(Event_t) produced, copied;
    int e = DAG__GPU(use)(src);
    if (!e) e = DAG__GPU(record)(src, &produced, 0);
    if (e) return e;
    e = DAG__GPU(use)(dst);
    if (!e) e = (int)DAG__RT(StreamWaitEvent)(DAG__GPU(g).devices[dst].stream, produced, 0);
    if (!e) e = (int)DAG__RT(MemcpyPeerAsync)(dst_buf, dst, src_buf, src, bytes, DAG__GPU(g).devices[dst].stream);
    DAG__RT(EventDestroy)(produced);   /* released once it has happened */
    if (!e) e = DAG__GPU(record)(dst, &copied, 0);
    if (e) return e;
    DAG__GPU(use)(src);
    e = (int)DAG__RT(StreamWaitEvent)(DAG__GPU(g).devices[src].stream, copied, 0);
    DAG__RT(EventDestroy)(copied);
    return e;
}

/* The kernel's arguments as the runtime wants them: a pointer to each
   value, the range first (a 64-bit size_t, as the kernel declares it); a
   timed launch gets a start event before the kernel. */
static int DAG__GPU(launch)(int dev, void *kernel, size_t n, const dag__karg *args, int num_args, void **done) {
    void *params[DAG__MAX_PARAMS + 1];
    unsigned long long range = n;
    params[0] = &range;
    for (int i = 0; i < num_args; i++)
        params[i + 1] = args[i].buf ? (void *)&args[i].buf : (void *)args[i].value;
    DAG__GPU(event) *ev = NULL;
    int e = DAG__GPU(use)(dev);
    if (!e && done) {
        ev = DAG__GPU(event_new)(dev);
        e = DAG__GPU(record)(dev, &ev->start, 1);
    }
    if (!e) e = DAG__GPU(start_kernel)(dev, kernel, n, params);
    if (!e && ev) e = DAG__GPU(record)(dev, &ev->end, 1);
    if (e && ev) {
        if (ev->start) DAG__RT(EventDestroy)(ev->start);
        DAG_FREE(ev);
        ev = NULL;
    }
    if (done) *done = ev;
    return e;
}

static int DAG__GPU(wait)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    int e = DAG__GPU(use)(ev->dev);
    if (!e) e = (int)DAG__RT(EventSynchronize)(ev->end);
    if (ev->stage && ev->stage->downloading) {
        if (!e)
            for (size_t r = 0; r < ev->rows; r++)
                memcpy((char *)ev->host + r * ev->stride, (char *)ev->stage->ptr + r * ev->width, ev->width);
        ev->stage->downloading = 0;
    }
    return e;
}
static int DAG__GPU(query)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    int e = (int)DAG__RT(EventQuery)(ev->end);
    return e == 0 ? 1 : e == (int)DAG__RTT(ErrorNotReady) ? 0 : -e;
}
static double DAG__GPU(elapsed)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    float ms = 0;
    if (!ev->start || DAG__RT(EventElapsedTime)(&ms, ev->start, ev->end) != 0) return 0.0;
    return (double)ms * 1e-3;
}
static void DAG__GPU(release)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    DAG__GPU(use)(ev->dev);
    if (ev->stage && ev->stage->downloading) {
        /* never waited for (an error path): its bytes are dropped, but the
           download may still be queued, so the buffer is busy until it ends */
        ev->stage->downloading = 0;
        if (ev->stage->free_after) DAG__RT(EventDestroy)(ev->stage->free_after);
        ev->stage->free_after = ev->end;
        ev->end = NULL;
    }
    if (ev->start) DAG__RT(EventDestroy)(ev->start);
    if (ev->end) DAG__RT(EventDestroy)(ev->end);
    DAG_FREE(ev);
}
static int DAG__GPU(synchronize)(int dev) {
    int e = DAG__GPU(use)(dev);
    return e ? e : (int)DAG__RT(StreamSynchronize)(DAG__GPU(g).devices[dev].stream);
}
static size_t DAG__GPU(memory)(int dev) { return DAG__GPU(g).devices[dev].memory; }
static const char *DAG__GPU(device_name)(int dev) { return DAG__GPU(g).devices[dev].name; }

static unsigned DAG__GPU(blocks)(size_t n) {
    size_t b = (n + DAG__GPU_BLOCK - 1) / DAG__GPU_BLOCK;
    return b ? (unsigned)b : 1u;
}

static const dag__device_ops DAG__GPU(ops) = {
    DAG__GPU_BACKEND, DAG__GPU_NAME, DAG__GPU_SHORT, DAG__GPU(init), DAG__GPU(shutdown), DAG__GPU(alloc), DAG__GPU(free),
    DAG__GPU(copy), DAG__GPU(peer_copy), DAG__GPU(has_kernel), DAG__GPU(build), DAG__GPU(release_kernel),
    DAG__GPU(launch), DAG__GPU(wait), DAG__GPU(query), DAG__GPU(elapsed), DAG__GPU(release), DAG__GPU(synchronize),
    DAG__GPU(memory), DAG__GPU(device_name),
};

/* the parameters of this instance: the next backend defines its own */
#undef DAG__GPU
#undef DAG__GPU_BACKEND
#undef DAG__GPU_NAME
#undef DAG__GPU_SHORT
#undef DAG__RT
#undef DAG__RTT
#undef DAG__RT_HOST_ALLOC
#undef DAG__RT_HOST_FREE
