/* dag_gpu_stream.h: what the CUDA and HIP backends of dag.h share.

   Uses from dag_device.h: the device-operations table it fills
   (dag__device_ops); from dag.h, DAG__MAX_PARAMS, dag__xmalloc and dag_log.

   The CUDA runtime and HIP have the same shape (HIP copied the CUDA
   runtime's names: cudaMemcpy2DAsync is hipMemcpy2DAsync), so the device
   operations are written once here and included by dag_cuda.h and
   dag_hip.h, each after defining:
     DAG__GPU(x)   its private names (dag__cuda_x, dag__hip_x)
     DAG__RT(x)    a runtime call (cudaX, or hipX through the loaded library)
     DAG__RTT(x)   a runtime type or constant (cudaX, hipX)
     DAG__RT_HOST_ALLOC(pp, bytes), DAG__RT_HOST_FREE(p)   pinned host memory
     DAG__GPU_BACKEND, DAG__GPU_NAME, DAG__GPU_SHORT   its dag_backend and names
     DAG__GPU_MAX_ITEMS   the largest range one launch takes (its grid limit)
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
    int ordinal;                            /* the runtime's: devices that failed to open are skipped */
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

/* The current device is per thread, and the program thread is a worker too:
   every entry point saves the caller's device (enter), switches with use(),
   and puts the caller's back when it returns (leave), so the program's own
   runtime calls, cuBLAS or launches still go to the device it chose. */
static int DAG__GPU(use)(int dev) { return (int)DAG__RT(SetDevice)(DAG__GPU(g).devices[dev].ordinal); }
static int DAG__GPU(enter_ordinal)(int ordinal, int *saved) {
    int current = -1;
    *saved = DAG__RT(GetDevice)(&current) == 0 && current != ordinal ? current : -1;
    return *saved < 0 && current == ordinal ? 0 : (int)DAG__RT(SetDevice)(ordinal);
}
static int DAG__GPU(enter)(int dev, int *saved) { return DAG__GPU(enter_ordinal)(DAG__GPU(g).devices[dev].ordinal, saved); }
/* For a function that goes through several devices: the caller's, whatever it is. */
static void DAG__GPU(enter_any)(int *saved) {
    int current = -1;
    *saved = DAG__RT(GetDevice)(&current) == 0 ? current : -1;
}
static void DAG__GPU(leave)(int saved) {
    if (saved >= 0) DAG__RT(SetDevice)(saved);
}

/* Finds the devices and gives each a stream, its name and peer access. A
   device that cannot be opened (busy, exclusive-process, out of memory) is
   skipped and said, and the others are kept. Returns how many, or -1 with
   why (the runtime's own error). */
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
    int saved = -1, current = -1;
    if (DAG__RT(GetDevice)(&current) == 0) saved = current;
    char skipped[256] = "";
    int found = 0;
    for (int o = 0; o < n && found < DAG__GPU_MAX_DEVICES; o++) {
        DAG__GPU(device) *dv = &DAG__GPU(g).devices[found];
        memset(dv, 0, sizeof *dv);
        dv->ordinal = o;
        int e = (int)DAG__RT(SetDevice)(o);
        if (!e) e = DAG__GPU(device_info)(o, dv->name, sizeof dv->name, &dv->memory);
        if (!e) e = (int)DAG__RT(StreamCreateWithFlags)(&dv->stream, DAG__RTT(StreamNonBlocking));
        if (e) {
            char text[160];
            DAG__GPU(error_text)(e, text, sizeof text);
            dag_log(DAG_LOG_WARN, DAG_OK, "%s: device %d skipped: %s", DAG__GPU_NAME, o + 1, text);
            size_t at = strlen(skipped);
            snprintf(skipped + at, sizeof skipped - at, "; device %d skipped (%s)", o + 1, text);
            memset(dv, 0, sizeof *dv);
            continue;
        }
        DAG__GPU(g).num = ++found;
    }
    if (found == 0) {
        if (saved >= 0) DAG__RT(SetDevice)(saved);
        snprintf(why, why_size, "no %s device opened%s", DAG__GPU_NAME, skipped);
        return -1;
    }
    for (int d = 0; d < found; d++)
        for (int j = 0; j < found; j++) {
            int ok = 0, od = DAG__GPU(g).devices[d].ordinal, oj = DAG__GPU(g).devices[j].ordinal;
            if (j == d || DAG__RT(DeviceCanAccessPeer)(&ok, od, oj) != 0 || !ok) continue;
            DAG__GPU(use)(d);
            int e = (int)DAG__RT(DeviceEnablePeerAccess)(oj, 0);
            DAG__GPU(g).devices[d].peer[j] = e == 0 || e == (int)DAG__RTT(ErrorPeerAccessAlreadyEnabled);
        }
    if (saved >= 0) DAG__RT(SetDevice)(saved);
    snprintf(why, why_size, "%d %s device(s); device 1: %s%s", found, DAG__GPU_NAME, DAG__GPU(g).devices[0].name, skipped);
    return found;
}

static void DAG__GPU(close_devices)(void) {
    int saved;
    DAG__GPU(enter_any)(&saved);
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
    DAG__GPU(leave)(saved);
    memset(&DAG__GPU(g), 0, sizeof DAG__GPU(g));
}

static int DAG__GPU(alloc)(int dev, size_t bytes, void **buf) {
    int saved, e = DAG__GPU(enter)(dev, &saved);
    if (!e) e = (int)DAG__RT(Malloc)(buf, bytes ? bytes : 1);
    DAG__GPU(leave)(saved);
    return e;
}
static void DAG__GPU(free)(int dev, void *buf) {
    int saved;
    DAG__GPU(enter)(dev, &saved);
    DAG__RT(Free)(buf);
    DAG__GPU(leave)(saved);
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

/* Records an event on dev's stream: untimed unless `timed`. On failure *ev
   is NULL: no destroyed handle is left behind. */
static int DAG__GPU(record)(int dev, DAG__RTT(Event_t) *ev, int timed) {
    *ev = NULL;
    DAG__RTT(Event_t) made = NULL;
    int e = (int)DAG__RT(EventCreateWithFlags)(&made, timed ? DAG__RTT(EventDefault) : DAG__RTT(EventDisableTiming));
    if (e) return e;
    e = (int)DAG__RT(EventRecord)(made, DAG__GPU(g).devices[dev].stream);
    if (e) DAG__RT(EventDestroy)(made);
    else *ev = made;
    return e;
}

static DAG__GPU(event) *DAG__GPU(event_new)(int dev) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)dag__xmalloc(sizeof *ev);
    memset(ev, 0, sizeof *ev);
    ev->dev = dev;
    return ev;
}

/* A copy failed after something may have been queued: the stream drains, so
   no staging buffer or host span is still read or written behind the
   caller's back (an error path must leave nothing in flight). */
static int DAG__GPU(copy_failed)(int dev, int e) {
    DAG__RT(StreamSynchronize)(DAG__GPU(g).devices[dev].stream);
    return e;
}

static int DAG__GPU(copy_current)(int dev, void *buf, void *host, size_t rows, size_t width, size_t stride, int to_device,
                                  void **done) {
    DAG__RTT(Stream_t) q = DAG__GPU(g).devices[dev].stream;
    size_t bytes = rows * width;
    int e = 0;
    DAG__GPU(stage) *s = DAG__GPU(stage_get)(dev, bytes);
    DAG__GPU(event) *ev = to_device && s ? NULL : DAG__GPU(event_new)(dev);
    if (to_device && s) {
        for (size_t r = 0; r < rows; r++) memcpy((char *)s->ptr + r * width, (char *)host + r * stride, width);
        e = (int)DAG__RT(Memcpy2DAsync)(buf, width, s->ptr, width, width, rows, DAG__RTT(MemcpyHostToDevice), q);
        if (s->free_after) DAG__RT(EventDestroy)(s->free_after);
        s->free_after = NULL;
        if (!e) e = DAG__GPU(record)(dev, &s->free_after, 0);
        return e ? DAG__GPU(copy_failed)(dev, e) : 0;
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
        /* a pitch past the device's limit (cudaDevAttrMaxPitch): row by row, each a plain copy */
        for (size_t r = 0; e == (int)DAG__RTT(ErrorInvalidPitchValue) && r < rows; r++) {
            char *h = (char *)host + r * stride, *b = (char *)buf + r * width;
            int er = to_device ? (int)DAG__RT(MemcpyAsync)(b, h, width, DAG__RTT(MemcpyHostToDevice), q)
                               : (int)DAG__RT(MemcpyAsync)(h, b, width, DAG__RTT(MemcpyDeviceToHost), q);
            if (er) e = er;
            else if (r + 1 == rows) e = 0;
        }
    }
    if (!e) e = DAG__GPU(record)(dev, &ev->end, 0);
    if (e) {
        if (ev->stage) ev->stage->downloading = 0;
        DAG_FREE(ev);
        return DAG__GPU(copy_failed)(dev, e);
    }
    *done = ev;
    return 0;
}

static int DAG__GPU(copy)(int dev, void *buf, void *host, size_t rows, size_t width, size_t stride, int to_device,
                          void **done) {
    *done = NULL;
    int saved, e = DAG__GPU(enter)(dev, &saved);
    if (!e) e = DAG__GPU(copy_current)(dev, buf, host, rows, width, stride, to_device, done);
    DAG__GPU(leave)(saved);
    return e;
}

/* dst's stream waits for what src queued, copies, and src's stream waits
   for the copy before whatever it runs next (which may overwrite src_buf). */
static int DAG__GPU(peer_copy)(int dst, void *dst_buf, int src, void *src_buf, size_t bytes) {
    if (!DAG__GPU(g).devices[dst].peer[src]) return -1;
    DAG__RTT(Event_t) produced = NULL, copied = NULL;
    DAG__RTT(Stream_t) ds = DAG__GPU(g).devices[dst].stream, ss = DAG__GPU(g).devices[src].stream;
    int saved, queued = 0, e = DAG__GPU(enter)(src, &saved);
    if (!e) e = DAG__GPU(record)(src, &produced, 0);
    if (!e) e = DAG__GPU(use)(dst);
    if (!e) e = (int)DAG__RT(StreamWaitEvent)(ds, produced, 0);
    if (!e) e = (int)DAG__RT(MemcpyPeerAsync)(dst_buf, DAG__GPU(g).devices[dst].ordinal, src_buf,
                                              DAG__GPU(g).devices[src].ordinal, bytes, ds);
    queued = !e;
    if (produced) DAG__RT(EventDestroy)(produced);   /* released once it has happened */
    if (!e) e = DAG__GPU(record)(dst, &copied, 0);
    if (!e) e = DAG__GPU(use)(src);
    if (!e) e = (int)DAG__RT(StreamWaitEvent)(ss, copied, 0);
    if (copied) DAG__RT(EventDestroy)(copied);
    /* a copy queued but not ordered before src's next work: it ends here */
    if (e && queued) DAG__RT(StreamSynchronize)(ds);
    DAG__GPU(leave)(saved);
    return e;
}

/* The kernel's arguments as the runtime wants them: a pointer to each
   value, the range first (a 64-bit size_t, as the kernel declares it); a
   timed launch gets a start event before the kernel. */
/* Queues a kernel's build, or the library routine standing in for it (lib),
   on dev's stream, between a start and an end event when done asks for one. */
static int DAG__GPU(queue_work)(int dev, void *kernel, const dag_library_kernel *lib, size_t n,
                                const dag_kernel_arg *args, int num_args, void **done) {
    DAG__GPU(event) *ev = NULL;
    int saved, e = DAG__GPU(enter)(dev, &saved);
    if (!e && done) {
        ev = DAG__GPU(event_new)(dev);
        e = DAG__GPU(record)(dev, &ev->start, 1);
    }
    if (!e && lib) {
        e = lib->call(lib, (void *)DAG__GPU(g).devices[dev].stream, dev, n, args, num_args, NULL);
    } else if (!e) {
        void *params[DAG__MAX_PARAMS + 1];
        unsigned long long range = n;
        params[0] = &range;
        for (int i = 0; i < num_args; i++)
            params[i + 1] = args[i].buffer ? (void *)&args[i].buffer : (void *)args[i].value;
        e = DAG__GPU(start_kernel)(dev, kernel, n, params);
    }
    if (!e && ev) e = DAG__GPU(record)(dev, &ev->end, 1);
    if (e && ev) {
        if (ev->start) DAG__RT(EventDestroy)(ev->start);
        DAG_FREE(ev);
        ev = NULL;
    }
    DAG__GPU(leave)(saved);
    if (done) *done = ev;
    return e;
}
static int DAG__GPU(launch)(int dev, void *kernel, size_t n, const dag_kernel_arg *args, int num_args, void **done) {
    return DAG__GPU(queue_work)(dev, kernel, NULL, n, args, num_args, done);
}
static int DAG__GPU(call_library)(int dev, const dag_library_kernel *lib, size_t n, const dag_kernel_arg *args,
                                  int num_args, void **done) {
    return DAG__GPU(queue_work)(dev, NULL, lib, n, args, num_args, done);
}
static void DAG__GPU(release_library)(int dev, const dag_library_kernel *lib) {
    int saved;
    if (DAG__GPU(enter)(dev, &saved)) return;
    lib->release((void *)DAG__GPU(g).devices[dev].stream, dev);
    DAG__GPU(leave)(saved);
}

static int DAG__GPU(wait)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    if (!ev->end) return 0;   /* its record failed earlier: nothing to wait for */
    int saved, e = DAG__GPU(enter)(ev->dev, &saved);
    if (!e) e = (int)DAG__RT(EventSynchronize)(ev->end);
    if (ev->stage && ev->stage->downloading) {
        if (!e) {
            for (size_t r = 0; r < ev->rows; r++)
                memcpy((char *)ev->host + r * ev->stride, (char *)ev->stage->ptr + r * ev->width, ev->width);
        } else {   /* the download may still be under way: the buffer stays busy until its event */
            if (ev->stage->free_after) DAG__RT(EventDestroy)(ev->stage->free_after);
            ev->stage->free_after = ev->end;
            ev->end = NULL;
        }
        ev->stage->downloading = 0;
    }
    DAG__GPU(leave)(saved);
    return e;
}
static int DAG__GPU(query)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    if (!ev->end) return 1;
    int e = (int)DAG__RT(EventQuery)(ev->end);
    return e == 0 ? 1 : e == (int)DAG__RTT(ErrorNotReady) ? 0 : -e;
}
static double DAG__GPU(elapsed)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    float ms = 0;
    if (!ev->start || !ev->end || DAG__RT(EventElapsedTime)(&ms, ev->start, ev->end) != 0) return 0.0;
    return (double)ms * 1e-3;
}
static void DAG__GPU(release)(void *event) {
    DAG__GPU(event) *ev = (DAG__GPU(event) *)event;
    int saved;
    DAG__GPU(enter)(ev->dev, &saved);
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
    DAG__GPU(leave)(saved);
    DAG_FREE(ev);
}
static int DAG__GPU(synchronize)(int dev) {
    int saved, e = DAG__GPU(enter)(dev, &saved);
    if (!e) e = (int)DAG__RT(StreamSynchronize)(DAG__GPU(g).devices[dev].stream);
    DAG__GPU(leave)(saved);
    return e;
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
    DAG__GPU(memory), DAG__GPU(device_name), DAG__GPU_MAX_ITEMS, NULL /* one allocation may take the whole memory */,
    DAG__GPU(call_library), DAG__GPU(release_library)
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
#undef DAG__GPU_MAX_ITEMS
