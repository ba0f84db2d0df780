/* dag_device.h: the device layer every device backend shares
   (dag_backends/dag_device.h, included by dag.h's implementation when any
   -DDAG_BACKEND_X is given; a CPU-only build does not read it).

   What it holds: the table a backend fills (dag__device_ops), the list of
   backends compiled in, the replicas of spans on devices and their
   coherence, buffer pools and eviction, the cost model and placement, and
   queueing a kernel task on a device.

   What it uses from dag.h: the records (dag__task, dag__worker, dag__span,
   dag__data_slot, dag__trace_event, dag__g), the thread primitives, the
   allocator (dag__xmalloc, DAG_FREE), logging (dag_log, dag__err), the span
   helpers (dag__spans_overlap, dag__span_eq, dag__data_span), dag__convert,
   dag__args_of, dag__extra_of, dag__task_name,
   dag__now_ns and the scope queries.

   What dag.h calls here: the functions its >>device seam declares, and
   nothing else. The backends (dag_opencl.h, dag_cuda.h, dag_hip.h,
   dag_level_zero.h, and dag_gpu_stream.h under CUDA and HIP) see all of
   this file.

   Parts: >>device backend table >>run-time libraries >>backend selection
   >>device layer >>device trace >>lanes >>cost model >>placement >>device
   execution >>device set-up >>registered data on devices >>plans */
#ifndef DAG_DEVICE_H_INCLUDED
#define DAG_DEVICE_H_INCLUDED

/* >>device backend table: what the generic device layer needs of a
   backend. dev is the backend's own 0-based device index; buffers, kernels
   and events are the backend's handles. Every call returns 0 or the
   backend's error code. Everything shared by the devices (replicas,
   coherence, pools, eviction, placement) lives in this file; a backend
   only fills this table. */
typedef struct dag__device_ops {
    dag_backend backend;
    const char *name;                 /* "OpenCL" */
    const char *short_name;           /* "cl": in placement notes */
    /* finds the devices: returns how many, or -1 with the reason (the
       driver's own words) in why */
    int (*init)(char *why, size_t why_size);
    void (*shutdown)(void);
    int (*alloc)(int dev, size_t bytes, void **buf);
    void (*free)(int dev, void *buf);
    /* host span (rows runs of width bytes, stride apart) <-> buffer of
       rows * width bytes, the runs packed; asynchronous, in order on the device's lane (see lanes).
       how: DAG__COPY_TO_DEVICE for an upload, and DAG__COPY_PINNED where host_register pinned the
       span. *done may come back NULL for an upload that no longer reads the host bytes (it went
       through a staging buffer). */
    int (*copy)(int dev, int lane, void *buf, void *host, size_t rows, size_t width, size_t stride, int how,
                void **done);
    /* optional: bytes from src's buffer into dst's, queued on dst's lane 0 after
       everything src has queued, and before anything src queues later.
       Nonzero: not possible, the bytes go through host memory. */
    int (*peer_copy)(int dst_dev, void *dst_buf, int src_dev, void *src_buf, size_t bytes);
    bool (*has_kernel)(int dev, const dag_kernel_source *k);   /* false: no build of this kernel runs on dev */
    int (*build)(int dev, const dag_kernel_source *k, void **kernel, char *log, size_t log_size);
    void (*release_kernel)(int dev, void *kernel);
    int (*launch)(int dev, int lane, void *kernel, size_t n, const dag_kernel_arg *args, int num_args, void **done);
    int (*wait)(void *event);
    int (*query)(void *event);        /* 1 finished, 0 not yet, < 0 failed */
    double (*elapsed)(void *event);   /* seconds the command ran */
    void (*release)(void *event);
    int (*synchronize)(int dev);
    size_t (*memory)(int dev);        /* bytes of device memory */
    const char *(*device_name)(int dev);
    size_t max_items;                 /* the largest range one launch takes (0: no limit) */
    /* optional: the most bytes one allocation may have (Level Zero's maxMemAllocSize, OpenCL's
       CL_DEVICE_MAX_MEM_ALLOC_SIZE), below the device's memory; NULL: only the memory bounds it */
    size_t (*max_alloc)(int dev);
    /* optional: a library routine standing in for a kernel (dag_library_kernel), queued as launch
       queues a build, with the queue its call expects; and, at shut-down, its release for dev */
    int (*call_library)(int dev, int lane, const dag_library_kernel *lib, size_t n, const dag_kernel_arg *args,
                        int num_args, void **done);
    void (*release_library)(int dev, const dag_library_kernel *lib);
    /* optional: whether an error of alloc means the device is full, so that evicting may make room
       (NULL: any may); another error (a lost device, a bad argument) fails the task at once */
    bool (*out_of_memory)(int err);
    /* optional: the runtime's name (and words) for one of its error codes, for messages */
    const char *(*error_text)(int err, char *buf, size_t size);
    /* optional: the largest range one launch of this build takes on dev (Level Zero: maxGroupCountX
       groups of the kernel's group size); NULL: max_items */
    size_t (*max_range)(int dev, void *kernel);
    /* optional: several queues per device (>>lanes below): how many (0: one in-order queue, which
       takes every lane number), the mark of the command last queued on one (they count up), and a
       lane's next command made to wait for from_lane's commands up to mark */
    int lanes;
    uint64_t (*mark)(int dev, int lane);
    int (*wait_lane)(int dev, int lane, int from_lane, uint64_t mark);
    /* optional: host memory pinned for copies straight from it (0: done) and unpinned */
    int (*host_register)(void *p, size_t bytes);
    void (*host_unregister)(void *p);
    /* optional, for the trace: a timed mark queued on a lane now (an event, which release frees), and
       the host clock's time (dag__now_ns) at which the device reached it, 0 while it has not */
    void *(*stamp)(int dev, int lane);
    uint64_t (*stamp_ns)(void *stamp);
} dag__device_ops;
enum { DAG__COPY_TO_DEVICE = 1, DAG__COPY_PINNED = 2 };
/* The lanes of a device with several: copies in, copies out, then kernels on the others. */
enum { DAG__LANE_IN, DAG__LANE_OUT, DAG__LANE_KERNELS, DAG__MAX_LANES = 8 };

/* >>run-time libraries: the backends load their
   libraries with dlopen and find each function by name into a table of
   function pointers. slot: the address of one such field (ISO C has no
   object-to-function cast, hence the memcpy). Returns whether every slot
   is filled; if not, why says which function the library lacks. */
#include <dlfcn.h>
typedef struct dag__dl_symbol { const char *name; void *slot; } dag__dl_symbol;
DAG__UNUSED static bool dag__dl_bind(void *lib, const char *lib_name, const dag__dl_symbol *symbols, size_t count,
                                     char *why, size_t why_size) {
    for (size_t i = 0; i < count; i++) {
        void *p = dlsym(lib, symbols[i].name);
        if (!p) {
            snprintf(why, why_size, "%s has no %s", lib_name, symbols[i].name);
            return false;
        }
        memcpy(symbols[i].slot, &p, sizeof p);
    }
    return true;
}
#define DAG__DL_COUNT(symbols) (sizeof(symbols) / sizeof(symbols)[0])

/* >>backend selection: every backend file, each compiled only under its
   own flag (it opens with #if DAG__ON(DAG_BACKEND_X)) and defining the table
   dag__<word>_ops (the word of its row in dag.h's DAG__DEVICE_BACKENDS_K);
   dag__backend_ops lists the ones compiled in, made from that list. */
#include "dag_opencl.h"       /* (beside this file: found wherever dag.h is, with no -I) */
#include "dag_cuda.h"
#include "dag_hip.h"
#include "dag_level_zero.h"
#define DAG__OPS_ENTRY(e, field, name, word, device, flag, ...) DAG__CAT(DAG__OPS_ENTRY_, DAG__ON(flag))(word)
#define DAG__OPS_ENTRY_0(word)
#define DAG__OPS_ENTRY_1(word) &dag__##word##_ops,
static const dag__device_ops *const dag__backend_ops[] = { DAG__DEVICE_BACKENDS(DAG__OPS_ENTRY) NULL };

/* >>device layer: processors beyond the CPU, and where data lives.

   Memory spaces: 0 is host memory, 1 + d is device d (the devices of every
   backend in one list). Each span a task on a device touches gets a replica
   record: which spaces hold its current bytes (MSI: several clean copies,
   or one dirty one), its buffer on each device, and the uploads that may
   still be reading its host bytes. Records are keyed by the exact span and
   sorted by start, so partial overlaps are found without scanning them all.

   Before a task touches span s in space m:
   - every record overlapping s that only a device holds is written back
     first, so host memory has its bytes;
   - s's own record comes to m if m lacks it, through the host when another
     device holds it dirty; an Out span is not copied in;
   - a write leaves m the only space holding s, and drops the device copies
     of the records overlapping s;
   - host bytes are never written (by a write-back or a CPU task) while an
     upload may still read them.
   One lock guards it: device tasks are coarse, and programs that never put
   a task on a device never take it (dag__dv.used stays 0).

   A device task counts as finished once its copies and kernel are queued.
   A device successor just queues behind it, and whoever needs the bytes
   elsewhere waits for the device: a CPU task touching the span, a region
   end, dag_wait from the program thread, dag_synchronize. That is what
   makes a chain of kernels as cheap as raw OpenCL calls.

   >>lanes. A backend may give a device several in-order queues (CUDA and
   HIP: a stream each): uploads go on lane DAG__LANE_IN, write-backs on
   DAG__LANE_OUT, kernels on the others, so that the next tiles move while
   the current ones compute, and tiles that do not depend on each other run
   side by side. Each buffer on a device keeps its history (dag__order):
   the lane and mark of its last write, and per lane the mark of its last
   read since. A command on lane L first makes L wait (wait_lane) for the
   last write of what it reads, and for a write for the reads since too,
   where those were on other lanes; on L itself order is free. A tile's
   kernels stay on the lane of its last kernel write, so a chain of them
   needs no event at all. A buffer back in the pool keeps its history, so
   the next span it holds waits for its last users. With one queue (lanes
   0) none of this runs. */
#define DAG__MODEL_SLOTS 1024
#define DAG__KERNEL_SLOTS 256
#define DAG__INFLIGHT 64
#define DAG__SMALL_WORK (1u << 20)   /* bytes: with no history, less stays on the CPU */

/* A device buffer's history over the lanes: the mark of its last write (0: none) and its lane, and
   per lane the mark of its last read since. */
typedef struct dag__order { uint64_t write, read[DAG__MAX_LANES]; int write_lane; } dag__order;

typedef struct dag__replica {
    dag__span span;
    uint32_t valid;                          /* bit 0: host; bit 1 + d: device d */
    int resident;                            /* region ends leave it on its device */
    uint64_t pin;                            /* the device task being set up that uses it */
    void *buf[DAG_MAX_DEVICES];
    dag__order order[DAG_MAX_DEVICES];      /* each buffer's history */
    uint64_t last_use[DAG_MAX_DEVICES];     /* for least-recently-used eviction */
    void *reader[DAG_MAX_DEVICES];          /* last upload from its host bytes, per device */
    const dag__device_ops *pinned_by;       /* the backend that pinned its host bytes, or NULL */
    bool pin_tried;
    bool home_failed;                        /* a settle's write-back of it failed (dag__devices_settle) */
} dag__replica;

typedef struct dag__buffer { void *buf; size_t bytes; dag__order order; struct dag__buffer *next; } dag__buffer;
typedef struct dag__kernel_entry {
    const dag_kernel_source *src;
    void *kernel;                      /* the backend's build, or NULL where library stands in */
    const dag_library_kernel *library;
    int failed;                        /* the build's error: said again, not retried, for each task */
    char *log;                         /* and its log (given whole with the first task it fails) */
    bool log_given;
    bool warned_pitch;                 /* said once: a 2-D span with gaps and no Ld */
    struct dag__kernel_entry *next;
} dag__kernel_entry;
typedef struct dag__inflight { void *event; int slot; double estimate; } dag__inflight;

typedef struct dag__device {
    const dag__device_ops *ops;
    dag_backend backend;
    int ordinal;                             /* dag.h's number within its backend, from 0 (DAG_DEVICES may skip some) */
    int native;                              /* the backend's own index, which its calls take */
    size_t limit, used, pooled;
    size_t peak_used;                        /* the most in use at once: the pool holds no more (dag__rep_drop) */
    size_t max_alloc;                        /* bytes one buffer may have (0: up to limit) */
    int lanes;                               /* its queues (1: one in-order queue) */
    int next_lane;                           /* the kernel lane a task starting a new chain gets */
    dag__buffer *pool;                       /* freed buffers, reused by size */
    dag__kernel_entry *kernels;              /* built programs, per kernel */
    dag__inflight inflight[DAG__INFLIGHT];   /* queued kernels the model waits to time */
    int inflight_head, inflight_count;
    double queued_s;                         /* estimated seconds of queued kernels: the backlog */
    double unsampled_s;                      /* of those queued since the last one with an event */
    int unsampled;
    double bandwidth;                        /* bytes per second, measured on write-backs */
    uint64_t bytes_in, bytes_out, evictions;
    int async_error;                         /* a queued command that failed after its task had finished */
} dag__device;

/* The cost model: seconds per (kernel, processor, size class), averaged. */
typedef struct dag__model_entry {
    const dag_kernel_source *kernel;
    int processor;                           /* 0 the CPU, 1 + d device d */
    int bucket;                              /* log2 of the launch range */
    double seconds;
    uint32_t samples;
} dag__model_entry;

/* What a task needs of the device layer: its spans, and which parameter
   each is (a kernel on a device gets buffers for those). */
struct dag__plan {
    int num_spans;
    dag__span spans[DAG__MAX_PARAMS];
    uint8_t modes[DAG__MAX_PARAMS];
    int8_t span_of_param[DAG__MAX_PARAMS];   /* -1: a value; -2 - k: Ld of span k */
    uint32_t elem[DAG__MAX_PARAMS];          /* span k's element size (for Ld) */
    dag_scope scope;                         /* as spawned, devices included */
    int processor;                           /* where it ran: 0 the CPU, 1 + d device d */
    int model_slot;                          /* -1: not timed */
    uint64_t cpu_start;                      /* ns: a CPU launch being timed */
    uint64_t bytes_moved;
    char placement[256];
};

static struct {
    _Alignas(DAG__CACHE_LINE) _Atomic int used;   /* a task may run on a device: read by every spawn */
    _Alignas(DAG__CACHE_LINE) dag__mutex lock;
    dag__device devs[DAG_MAX_DEVICES];
    int num;
    dag__replica **reps;                     /* sorted by span.lo */
    size_t num_reps, cap_reps;
    size_t max_extent;                       /* largest hi - lo: bounds the overlap search */
    uint64_t tick;                           /* LRU clock and pin serials */
    dag__model_entry model[DAG__MODEL_SLOTS];
    struct dag__slice *slices;               /* the device trace's */
    size_t num_slices, cap_slices;
    /* the devices each kernel has a build or a routine for (bit d), found once per set-up under the
       lock and read at every spawn without it: kernel published last, with release */
    struct { _Atomic(const dag_kernel_source *) kernel; uint64_t devices; } runs[DAG__KERNEL_SLOTS];
} dag__dv;

static size_t dag__span_extent(const dag__span *s) { return (size_t)(s->hi - s->lo); }
static size_t dag__span_bytes(const dag__span *s) { return s->rows * s->width; }

/* Index of the first record whose span starts at or after lo. */
static size_t dag__rep_lower(uintptr_t lo) {
    size_t a = 0, b = dag__dv.num_reps;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (dag__dv.reps[m]->span.lo < lo) a = m + 1;
        else b = m;
    }
    return a;
}

static dag__replica *dag__rep_find(const dag__span *s) {
    for (size_t i = dag__rep_lower(s->lo); i < dag__dv.num_reps && dag__dv.reps[i]->span.lo == s->lo; i++)
        if (dag__span_eq(&dag__dv.reps[i]->span, s)) return dag__dv.reps[i];
    return NULL;
}

static dag__replica *dag__rep_get(const dag__span *s) {
    dag__replica *r = dag__rep_find(s);
    if (r) return r;
    r = (dag__replica *)dag__xmalloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->span = *s;
    r->valid = 1;   /* a new record's bytes are in host memory */
    if (dag__dv.num_reps == dag__dv.cap_reps) {
        dag__dv.cap_reps = dag__dv.cap_reps ? dag__dv.cap_reps * 2 : 64;
        dag__dv.reps = (dag__replica **)dag__xrealloc(dag__dv.reps, dag__dv.cap_reps * sizeof *dag__dv.reps);
    }
    size_t i = dag__rep_lower(s->lo);
    memmove(&dag__dv.reps[i + 1], &dag__dv.reps[i], (dag__dv.num_reps - i) * sizeof *dag__dv.reps);
    dag__dv.reps[i] = r;
    dag__dv.num_reps++;
    if (dag__span_extent(s) > dag__dv.max_extent) dag__dv.max_extent = dag__span_extent(s);
    return r;
}

/* The records overlapping span s (its own too), one per call:
       for (size_t i = dag__overlaps_from(s); (r = dag__overlap_next(s, &i));) ...
   Records are sorted by start, and none is longer than max_extent, so the
   first that can overlap starts at most max_extent before s. */
static size_t dag__overlaps_from(const dag__span *s) {
    return dag__rep_lower(s->lo > dag__dv.max_extent ? s->lo - dag__dv.max_extent : 0);
}
static dag__replica *dag__overlap_next(const dag__span *s, size_t *i) {
    while (*i < dag__dv.num_reps && dag__dv.reps[*i]->span.lo < s->hi) {
        dag__replica *r = dag__dv.reps[(*i)++];
        if (dag__spans_overlap(&r->span, s)) return r;
    }
    return NULL;
}

static const char *dag__dev_name(int d, char *buf, size_t size) {
    dag__device *dv = &dag__dv.devs[d];
    snprintf(buf, size, "%s device %d (%s)", dv->ops->name, dv->ordinal + 1, dv->ops->device_name(dv->native));
    return buf;
}

/* "code (the runtime's name for it)", or the code alone where the backend has no names. */
static const char *dag__dev_error_text(int d, int code, char *buf, size_t size) {
    const dag__device_ops *ops = dag__dv.devs[d].ops;
    char text[160];
    if (ops->error_text) snprintf(buf, size, "%d (%s)", code, ops->error_text(code, text, sizeof text));
    else snprintf(buf, size, "%d", code);
    return buf;
}

static int dag__dev_error(int d, const char *what, int code) {
    char name[200], text[200];
    return dag__err(DAG_ERR_DEVICE, "%s: %s returned %s", dag__dev_name(d, name, sizeof name), what,
                    dag__dev_error_text(d, code, text, sizeof text));
}

/* Waits for the uploads that may still read r's host bytes. */
static void dag__rep_wait_readers(dag__replica *r) {
    for (int d = 0; d < dag__dv.num; d++)
        if (r->reader[d]) {
            int e = dag__dv.devs[d].ops->wait(r->reader[d]);
            if (e && !dag__dv.devs[d].async_error) dag__dv.devs[d].async_error = e;   /* the upload failed */
            dag__dv.devs[d].ops->release(r->reader[d]);
            r->reader[d] = NULL;
        }
}

/* >>device trace: while tracing, each command a device runs is a slice of its lane's track,
   between two stamps the backend queues on the lane around it (a stamp after a wait on another
   lane is reached when the wait is over, so a slice starts when its command can). Stamps become
   times once the device has passed them (dag__trace_resolve, at each settle and when the trace is
   written); a device whose backend has no stamps has no tracks. */
typedef struct dag__slice { int d, lane; const char *name; bool copy; void *from, *to; uint64_t start, end; } dag__slice;
static void *dag__trace_stamp(int d, int lane) {
    dag__device *dv = &dag__dv.devs[d];
    return atomic_load_explicit(&dag__g.tracing, memory_order_relaxed) && dv->ops->stamp ? dv->ops->stamp(dv->native, lane)
                                                                                         : NULL;
}
/* Ends the slice begun by stamp `from` (NULL: not traced). */
static void dag__trace_slice(int d, int lane, const char *name, bool copy, void *from) {
    if (!from) return;
    if (dag__dv.num_slices == dag__dv.cap_slices) {
        dag__dv.cap_slices = dag__dv.cap_slices ? 2 * dag__dv.cap_slices : 256;
        dag__dv.slices = (dag__slice *)dag__xrealloc(dag__dv.slices, dag__dv.cap_slices * sizeof *dag__dv.slices);
    }
    dag__slice *s = &dag__dv.slices[dag__dv.num_slices++];
    memset(s, 0, sizeof *s);
    s->d = d, s->lane = lane, s->name = name, s->copy = copy, s->from = from;
    s->to = dag__dv.devs[d].ops->stamp(dag__dv.devs[d].native, lane);
}
/* Stamps the devices have passed become times, and go. Under the lock. */
static void dag__trace_resolve(void) {
    for (size_t i = 0; i < dag__dv.num_slices; i++) {
        dag__slice *s = &dag__dv.slices[i];
        const dag__device_ops *ops = dag__dv.devs[s->d].ops;
        uint64_t t;
        if (s->from && (t = ops->stamp_ns(s->from)) != 0) ops->release(s->from), s->from = NULL, s->start = t;
        if (s->to && (t = ops->stamp_ns(s->to)) != 0) ops->release(s->to), s->to = NULL, s->end = t;
    }
}
static void dag__devices_trace_clear(void) {
    dag__mutex_lock(&dag__dv.lock);
    for (size_t i = 0; i < dag__dv.num_slices; i++) {
        const dag__device_ops *ops = dag__dv.devs[dag__dv.slices[i].d].ops;
        if (dag__dv.slices[i].from) ops->release(dag__dv.slices[i].from);
        if (dag__dv.slices[i].to) ops->release(dag__dv.slices[i].to);
    }
    dag__dv.num_slices = 0;
    dag__mutex_unlock(&dag__dv.lock);
}
/* The lanes' tracks (rows first_row on, DAG__MAX_LANES per device) and the slices the devices have
   passed, in Chrome's trace format: copies and kernels apart (cat "copy", "kernel"). */
static void dag__devices_trace_json(FILE *f, int first_row) {
    static const char *const lane_names[] = { "copies in", "copies out" };
    dag__mutex_lock(&dag__dv.lock);
    dag__trace_resolve();
    for (int d = 0; d < dag__dv.num; d++)
        for (int l = 0; dag__dv.devs[d].ops->stamp && l < dag__dv.devs[d].lanes; l++) {
            char name[200];
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s: ",
                    first_row + d * DAG__MAX_LANES + l, dag__dev_short_name(d, name, sizeof name));
            if (l < DAG__LANE_KERNELS) fprintf(f, "%s\"}}", lane_names[l]);
            else fprintf(f, "kernels %d\"}}", l - DAG__LANE_KERNELS + 1);
        }
    for (size_t i = 0; i < dag__dv.num_slices; i++) {
        const dag__slice *s = &dag__dv.slices[i];
        if (!s->start || !s->end) continue;   /* not reached yet */
        uint64_t origin = atomic_load_explicit(&dag__g.trace_epoch, memory_order_relaxed);
        uint64_t t0 = s->start > origin ? s->start - origin : 0;
        fprintf(f, ",\n{\"name\":");
        dag__json_string(f, s->name);
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", s->copy ? "copy" : "kernel",
                first_row + s->d * DAG__MAX_LANES + s->lane, (double)t0 / 1e3,
                s->end > s->start ? (double)(s->end - s->start) / 1e3 : 0.0);
    }
    dag__mutex_unlock(&dag__dv.lock);
}

/* >>lanes (the device layer's note above): lane `which` of device dv, or its one queue. */
static int dag__lane(const dag__device *dv, int which) { return which < dv->lanes ? which : 0; }
/* Before a command on `lane` of device d that reads (or, write, writes) a buffer of history o: the
   lane waits for what it must follow on other lanes. */
static int dag__order_before(int d, const dag__order *o, int lane, bool write) {
    dag__device *dv = &dag__dv.devs[d];
    if (dv->lanes < 2) return 0;
    int e = o->write && o->write_lane != lane ? dv->ops->wait_lane(dv->native, lane, o->write_lane, o->write) : 0;
    for (int l = 0; write && !e && l < dv->lanes; l++)
        if (l != lane && o->read[l]) e = dv->ops->wait_lane(dv->native, lane, l, o->read[l]);
    return e;
}
/* After it: o records it. */
static void dag__order_after(int d, dag__order *o, int lane, bool write) {
    dag__device *dv = &dag__dv.devs[d];
    if (dv->lanes < 2) return;
    uint64_t mark = dv->ops->mark(dv->native, lane);
    if (write) {
        memset(o, 0, sizeof *o);
        o->write = mark;
        o->write_lane = lane;
    } else {
        o->read[lane] = mark;
    }
}

/* Pins r's host bytes the first time they move, where the backend can and r is worth it: a
   resident span (registered: its memory outlives the pin, which dag__rep_unpin undoes when the
   span is forgotten) of one run, at least DAG__PIN_MIN bytes. A failure (pages another span
   pinned first) leaves it to the staging buffers. */
#define DAG__PIN_MIN (256u << 10)
static void dag__rep_pin(dag__replica *r, int d) {
    const dag__device_ops *ops = dag__dv.devs[d].ops;
    if (r->pin_tried || !r->resident || !ops->host_register) return;
    r->pin_tried = true;
    size_t bytes = dag__span_bytes(&r->span);
    if ((r->span.rows == 1 || r->span.width == r->span.stride) && bytes >= DAG__PIN_MIN &&
        ops->host_register((void *)r->span.lo, bytes) == 0)
        r->pinned_by = ops;
}
static void dag__rep_unpin(dag__replica *r) {
    if (r->pinned_by) r->pinned_by->host_unregister((void *)r->span.lo);
    r->pinned_by = NULL;
    r->pin_tried = false;
}

/* Copies r's span between host memory and its packed buffer on device d, on the lane for it, after
   what it must follow; runs with no gap between them (a tile of its own) go as one plain copy. */
static int dag__rep_copy(dag__replica *r, int d, bool to_device, void **done) {
    dag__device *dv = &dag__dv.devs[d];
    const dag__span *s = &r->span;
    int lane = dag__lane(dv, to_device ? DAG__LANE_IN : DAG__LANE_OUT);
    dag__rep_pin(r, d);
    int how = (to_device ? DAG__COPY_TO_DEVICE : 0) | (r->pinned_by == dv->ops ? DAG__COPY_PINNED : 0);
    int e = dag__order_before(d, &r->order[d], lane, to_device);
    void *from = e ? NULL : dag__trace_stamp(d, lane);
    if (!e && s->width == s->stride)
        e = dv->ops->copy(dv->native, lane, r->buf[d], (void *)s->lo, 1, s->rows * s->width, s->rows * s->width, how,
                          done);
    else if (!e)
        e = dv->ops->copy(dv->native, lane, r->buf[d], (void *)s->lo, s->rows, s->width, s->stride, how, done);
    if (!e) dag__order_after(d, &r->order[d], lane, to_device);
    dag__trace_slice(d, lane, to_device ? "copy in" : "copy out", true, from);
    return e;
}

/* Brings r's bytes back to host memory from the device that holds them. */
static int dag__rep_write_back(dag__replica *r) {
    if (r->valid & 1) return 0;
    int d = 0;
    while (d < dag__dv.num && !(r->valid & (2u << d))) d++;
    if (d == dag__dv.num) return 0;   /* held nowhere: cannot happen */
    dag__replica *o;
    for (size_t i = dag__overlaps_from(&r->span); (o = dag__overlap_next(&r->span, &i));) dag__rep_wait_readers(o);
    dag__device *dv = &dag__dv.devs[d];
    void *ev = NULL;
    uint64_t t0 = dag__now_ns();
    int e = dag__rep_copy(r, d, false, &ev);
    if (e == 0) e = dv->ops->wait(ev);
    /* the copy's own time where the device measures it: the wall clock also counts the kernel it
       was queued behind, and so read, each write-back after a kernel halved the bandwidth believed */
    double s = e == 0 && ev ? dv->ops->elapsed(ev) : 0;
    if (ev) dv->ops->release(ev);
    if (e) return dag__dev_error(d, "the copy back to the host", e);
    if (s <= 0) s = (double)(dag__now_ns() - t0) * 1e-9;
    size_t bytes = dag__span_bytes(&r->span);
    if (s > 0 && bytes >= 65536) dv->bandwidth = 0.5 * dv->bandwidth + 0.5 * (double)bytes / s;
    dv->bytes_out += bytes;
    r->valid |= 1;
    return 0;
}

/* Takes r's buffer off device d: into the pool, or freed. */
static void dag__rep_drop(dag__replica *r, int d, bool release) {
    dag__device *dv = &dag__dv.devs[d];
    size_t bytes = dag__span_bytes(&r->span);
    r->valid &= ~(2u << d);
    if (!r->buf[d]) return;
    dv->used -= bytes;
    if (release) {   /* (a free waits for the device: no history to keep) */
        dv->ops->free(dv->native, r->buf[d]);
    } else {
        dag__buffer *b = (dag__buffer *)dag__xmalloc(sizeof *b);
        b->buf = r->buf[d];
        b->bytes = bytes;
        b->order = r->order[d];
        b->next = dv->pool;
        dv->pool = b;
        dv->pooled += bytes;
        /* buffers come back for reuse at their size: a program whose sizes keep changing would
           grow the pool without end, so it keeps no more than the device ever had in use, the
           oldest going first (a free waits for the device) */
        while (dv->pooled > dv->peak_used && dv->pool->next) {
            dag__buffer **last = &dv->pool;
            while ((*last)->next) last = &(*last)->next;
            dv->pooled -= (*last)->bytes;
            dv->ops->free(dv->native, (*last)->buf);
            DAG_FREE(*last);
            *last = NULL;
        }
    }
    r->buf[d] = NULL;
    memset(&r->order[d], 0, sizeof r->order[d]);
}

/* Makes room on device d: pooled buffers go first, then the least recently
   used replica the task being set up does not use (written back first when
   only d holds it). 1 when nothing is left to evict; a write-back's error (logged) when that failed. */
static int dag__dev_evict_one(int d) {
    dag__device *dv = &dag__dv.devs[d];
    if (dv->pool) {
        dag__buffer *b = dv->pool;
        dv->pool = b->next;
        dv->pooled -= b->bytes;
        dv->ops->free(dv->native, b->buf);
        DAG_FREE(b);
        return 0;
    }
    dag__replica *victim = NULL;
    for (size_t i = 0; i < dag__dv.num_reps; i++) {
        dag__replica *r = dag__dv.reps[i];
        if (r->buf[d] && r->pin != dag__dv.tick && (!victim || r->last_use[d] < victim->last_use[d])) victim = r;
    }
    if (!victim) return 1;
    if (victim->valid == (2u << d)) {
        int e = dag__rep_write_back(victim);
        if (e) return e;
    }
    dag__rep_drop(victim, d, true);
    dv->evictions++;
    return 0;
}

/* A buffer of `bytes` on device d, evicting to make room, with its history (a pooled buffer's
   last users). DAG_ERR_OUT_OF_MEMORY when nothing more can go; DAG_ERR_DEVICE with the runtime's
   error in *failed when the allocation failed for another reason than a full device (then nothing
   is evicted for it). */
static int dag__dev_alloc(int d, size_t bytes, void **buf, dag__order *order, int *failed) {
    dag__device *dv = &dag__dv.devs[d];
    *failed = 0;
    memset(order, 0, sizeof *order);
    for (dag__buffer **p = &dv->pool; *p; p = &(*p)->next)
        if ((*p)->bytes == bytes) {
            dag__buffer *b = *p;
            *p = b->next;
            *buf = b->buf;
            *order = b->order;
            dv->pooled -= bytes;
            dv->used += bytes;
            DAG_FREE(b);
            return 0;   /* (no more in use than when it was pooled: the peak stands) */
        }
    if (bytes > dv->limit) return DAG_ERR_OUT_OF_MEMORY;
    for (int v; dv->used + dv->pooled + bytes > dv->limit;)
        if ((v = dag__dev_evict_one(d)) != 0) return v == 1 ? DAG_ERR_OUT_OF_MEMORY : DAG_ERR_DEVICE;
    for (int e, v; (e = dv->ops->alloc(dv->native, bytes, buf)) != 0;) {
        if (dv->ops->out_of_memory && !dv->ops->out_of_memory(e)) {   /* not a full device: nothing is evicted */
            *failed = e;
            return DAG_ERR_DEVICE;
        }
        if ((v = dag__dev_evict_one(d)) == 1) {   /* the device itself is full, and nothing more can leave it */
            *failed = e;
            return DAG_ERR_OUT_OF_MEMORY;
        }
        if (v) return DAG_ERR_DEVICE;   /* (a failed write-back of the victim said why) */
    }
    dv->used += bytes;
    if (dv->used > dv->peak_used) dv->peak_used = dv->used;
    return 0;
}

/* The host's bytes are r's only copy from here (the device copies stale, their buffers kept): a CPU
   task or the program may change them once the uploads still reading them are done. Under the lock. */
static void dag__rep_host_only(dag__replica *r) {
    dag__rep_wait_readers(r);
    r->valid = 1u;
}

/* A CPU task is about to touch these spans in host memory: bring back what
   only devices hold and, for a write, drop their copies. Under the lock. */
static int dag__host_prepare(const dag__span *spans, const uint8_t *modes, int n) {
    int err = 0;
    for (int k = 0; k < n && !err; k++) {
        dag__replica *r;
        for (size_t i = dag__overlaps_from(&spans[k]); !err && (r = dag__overlap_next(&spans[k], &i));) {
            err = dag__rep_write_back(r);
            if (!err && (modes[k] & DAG_ACCESS_OUT)) dag__rep_host_only(r);
        }
    }
    return err;
}

/* A command queued on device d that failed after its task had counted as finished (a kernel that
   faulted, an upload that failed), seen since the last call: logged and returned once, so that the
   region end, dag_wait or dag_synchronize that follows reports it. Under the lock. */
static int dag__dev_take_async_error(int d) {
    int code = dag__dv.devs[d].async_error;
    dag__dv.devs[d].async_error = 0;
    return code ? dag__dev_error(d, "a command queued by a task that had finished", code) : 0;
}

/* Region ends, dag_wait, dag_synchronize: every replica only a device
   holds goes home (resident ones only when `all`), and the host bytes are
   the truth again, since the program (or the body that waited) may now
   change them: the device copies of what went home are stale from here.
   When the program takes the memory back (`forget`), those of ordinary
   spans go altogether. */
static void dag__model_poll(int d, bool wait);
static int dag__devices_settle(bool all, bool forget) {
    if (!atomic_load_explicit(&dag__dv.used, memory_order_acquire)) return 0;
    int err = 0;
    dag__mutex_lock(&dag__dv.lock);
    bool failed = false;
    for (size_t i = 0; i < dag__dv.num_reps; i++) {
        dag__replica *r = dag__dv.reps[i];
        if (all || !r->resident) {
            int e = dag__rep_write_back(r);
            if (e && !err) err = e;
            r->home_failed = e != 0;
            failed |= e != 0;
        }
    }
    /* after a failure, a copy may still be queued on memory about to be let go: the queues drain first */
    for (int d = 0; failed && forget && d < dag__dv.num; d++) (void)dag__dv.devs[d].ops->synchronize(dag__dv.devs[d].native);
    size_t keep = 0;   /* a second pass: write-backs look at the whole table */
    for (size_t i = 0; i < dag__dv.num_reps; i++) {
        dag__replica *r = dag__dv.reps[i];
        bool home = (all || !r->resident) && (r->valid & 1);
        if (home) dag__rep_host_only(r);   /* the program (or the body) may change the host bytes now */
        /* The program takes the memory back: an ordinary span's copies go, and so do they when its
           write-back failed (its bytes are lost, and the error says so), since the program may free
           that memory now and nothing may write it later. */
        if ((home || r->home_failed) && forget && !r->resident) {
            for (int d = 0; d < dag__dv.num; d++) dag__rep_drop(r, d, false);
            dag__rep_unpin(r);
            DAG_FREE(r);
            continue;
        }
        r->home_failed = false;
        dag__dv.reps[keep++] = r;
    }
    dag__dv.num_reps = keep;
    if (forget) {
        dag__dv.max_extent = 0;
        for (size_t i = 0; i < keep; i++)
            if (dag__span_extent(&dag__dv.reps[i]->span) > dag__dv.max_extent)
                dag__dv.max_extent = dag__span_extent(&dag__dv.reps[i]->span);
    }
    for (int d = 0; d < dag__dv.num; d++) {
        dag__model_poll(d, false);
        int e = dag__dev_take_async_error(d);
        if (e && !err) err = e;
    }
    dag__trace_resolve();
    dag__mutex_unlock(&dag__dv.lock);
    return err;
}

/* >>cost model */
static int dag__model_bucket(size_t n) {
    int b = 0;
    while (n > 1) { n >>= 1; b++; }
    return b;
}

static int dag__model_find(const dag_kernel_source *k, int processor, int bucket, bool create) {
    uintptr_t h = ((uintptr_t)k >> 4) * 31u + (uintptr_t)processor * 131u + (uintptr_t)bucket * 7919u;
    for (int probe = 0; probe < DAG__MODEL_SLOTS; probe++) {
        int i = (int)((h + (uintptr_t)probe) % DAG__MODEL_SLOTS);
        dag__model_entry *m = &dag__dv.model[i];
        if (m->kernel == k && m->processor == processor && m->bucket == bucket) return i;
        if (!m->kernel) {
            if (!create) return -1;
            m->kernel = k;
            m->processor = processor;
            m->bucket = bucket;
            m->samples = 0;
            return i;
        }
    }
    return -1;   /* full: that kernel goes untimed */
}

static void dag__model_add(int slot, double seconds) {
    if (slot < 0) return;
    dag__model_entry *m = &dag__dv.model[slot];
    m->seconds = m->samples ? 0.5 * m->seconds + 0.5 * seconds : seconds;
    m->samples++;
}

/* Times the queued kernels of device d that have finished (all of them
   when `wait`): their run time feeds the model, their estimate leaves the
   backlog. */
static void dag__model_poll(int d, bool wait) {
    dag__device *dv = &dag__dv.devs[d];
    while (dv->inflight_count) {
        dag__inflight *f = &dv->inflight[dv->inflight_head];
        int e = wait ? dv->ops->wait(f->event) : 0, q = wait ? (e == 0 ? 1 : -1) : dv->ops->query(f->event);
        if (q == 0) break;
        if (q < 0 && !dv->async_error) dv->async_error = wait ? e : -q;   /* the kernel failed on the device */
        if (q > 0) dag__model_add(f->slot, dv->ops->elapsed(f->event));
        dv->ops->release(f->event);
        dv->queued_s -= f->estimate;
        if (dv->queued_s < 0 || (dv->inflight_count == 1 && dv->unsampled_s == 0)) dv->queued_s = 0;
        dv->inflight_head = (dv->inflight_head + 1) % DAG__INFLIGHT;
        dv->inflight_count--;
    }
}

/* >>placement */
/* The library routine standing in for kernel k on backend b's devices: the
   first of k's that is for b and loads. Under the lock (load's rule). */
static const dag_library_kernel *dag__library_for(const dag_kernel_source *k, dag_backend b) {
    if (!k->libraries || dag__g.desc.no_library_kernels) return NULL;
    for (const dag_library_kernel *const *l = k->libraries; *l; l++)
        if ((*l)->backend == b && (*l)->load()) return *l;
    return NULL;
}
/* The routine device dv runs kernel k as, or NULL (its own build). Under the lock. */
static const dag_library_kernel *dag__dev_library(const dag__device *dv, const dag_kernel_source *k) {
    return dv->ops->call_library ? dag__library_for(k, dv->backend) : NULL;
}
/* Whether device d has what kernel k needs to run there: a build its
   backend takes (with skip_failed, not one that failed there before), or a
   library routine. Under the lock. */
static bool dag__dev_runs(int d, const dag_kernel_source *k, bool skip_failed) {
    const dag__device *dv = &dag__dv.devs[d];
    for (const dag__kernel_entry *e = dv->kernels; e; e = e->next)
        if (e->src == k) return !(skip_failed && e->failed);
    return dag__dev_library(dv, k) || dv->ops->has_kernel(dv->native, k);
}
/* The devices (bit d: dag__dv.devs[d]) scope s names (the list is fixed at set-up: no lock). */
static uint64_t dag__scope_names(const dag_scope *s) {
    uint64_t m = 0;
    for (int d = 0; d < dag__dv.num; d++) {
        const dag__device *dv = &dag__dv.devs[d];
        if (s->any_processor || dag_device_scope_has(*dag_scope_part(s, dv->backend), dv->ordinal + 1)) m |= UINT64_C(1) << d;
    }
    return m;
}
/* The devices a kernel may run on under scope s. Under the lock. */
static uint64_t dag__scope_devices_locked(const dag_scope *s, const dag_kernel_source *k, bool skip_failed) {
    uint64_t m = dag__scope_names(s);
    for (int d = 0; k && d < dag__dv.num; d++)
        if (((m >> d) & 1u) && !dag__dev_runs(d, k, skip_failed)) m &= ~(UINT64_C(1) << d);
    return m;
}
/* The devices kernel k has a build or a routine for (a failed build still counts: the task fails
   with its log, or runs on the CPU where its scope allows). What the backends say does not change
   within a set-up (a library that loaded stays loaded, one that did not is not tried again), so it
   is found once under the lock and read without it: spawns of kernel tasks take no lock here. */
static uint64_t dag__kernel_devices(const dag_kernel_source *k) {
    size_t h = (size_t)((uintptr_t)k >> 4);
    for (size_t i = 0; i < DAG__KERNEL_SLOTS; i++) {
        const dag_kernel_source *seen = atomic_load_explicit(&dag__dv.runs[(h + i) % DAG__KERNEL_SLOTS].kernel,
                                                             memory_order_acquire);
        if (seen == k) return dag__dv.runs[(h + i) % DAG__KERNEL_SLOTS].devices;
        if (!seen) break;
    }
    dag__mutex_lock(&dag__dv.lock);
    uint64_t m = dag__scope_devices_locked(&(dag_scope){ .any_processor = 1 }, k, false);
    for (size_t i = 0; i < DAG__KERNEL_SLOTS; i++) {   /* (full: found again next time) */
        size_t slot = (h + i) % DAG__KERNEL_SLOTS;
        const dag_kernel_source *seen = atomic_load_explicit(&dag__dv.runs[slot].kernel, memory_order_relaxed);
        if (seen && seen != k) continue;
        if (!seen) {
            dag__dv.runs[slot].devices = m;
            atomic_store_explicit(&dag__dv.runs[slot].kernel, k, memory_order_release);
        }
        break;
    }
    dag__mutex_unlock(&dag__dv.lock);
    return m;
}
/* The same for the core, at spawn. */
static uint64_t dag__scope_devices(const dag_scope *s, const dag_kernel_source *k) {
    if (!dag__dv.num) return 0;
    return dag__scope_names(s) & (k ? dag__kernel_devices(k) : ~UINT64_C(0));
}
/* Whether a vendor library routine stands in for kernel k on every device
   scope s names (at least one): dag_array.h's LU factorises its panels on
   the devices only then (dag_blas.h's getrf text is one item, far slower
   than the panel on the CPU and its copies). */
static bool dag__library_stands_in(const dag_kernel_source *k, const dag_scope *s) {
    uint64_t m = dag__dv.num ? dag__scope_names(s) : 0;
    bool all = m != 0;
    dag__mutex_lock(&dag__dv.lock);
    for (int d = 0; all && d < dag__dv.num; d++)
        if ((m >> d) & 1u) all = dag__dev_library(&dag__dv.devs[d], k) != NULL;
    dag__mutex_unlock(&dag__dv.lock);
    return all;
}
/* Two different spans of one task that overlap would be two buffers on a
   device: such a task runs where memory is one. */
static bool dag__plan_self_overlaps(const dag__plan *p) {
    for (int a = 0; a < p->num_spans; a++)
        for (int b = a + 1; b < p->num_spans; b++)
            if (dag__spans_overlap(&p->spans[a], &p->spans[b])) return true;
    return false;
}

static size_t dag__launch_range(dag__task *t) {
    size_t n = 0;
    memcpy(&n, (unsigned char *)dag__args_of(t) + t->desc->params[0].offset, sizeof n);
    return n;
}

/* Picks the processor with the earliest estimated finish: the model's time
   for this kernel and size there, plus the bytes it lacks over the measured
   bandwidth, plus what is already queued there. Without history, work under
   DAG__SMALL_WORK bytes stays on the CPU, and larger work tries each
   processor once. Under the lock. Returns 0 for the CPU, 1 + d for device d,
   and writes the estimates into p->placement. */
static int dag__place(dag__task *t, dag__plan *p, const dag_scope *s) {
    const dag_kernel_source *k = t->desc->kernel;
    bool cpu = dag__scope_has_cpu(s);
    uint64_t devs = dag__scope_devices_locked(s, k, cpu);   /* where a build failed, the CPU instead */
    p->placement[0] = 0;
    if (!devs || dag__plan_self_overlaps(p)) return 0;
    if (!cpu && !(devs & (devs - 1))) {   /* one device and nothing else */
        int d = 0;
        while (!((devs >> d) & 1u)) d++;
        return d + 1;
    }
    int bucket = dag__model_bucket(dag__launch_range(t));
    size_t bytes = 0;
    for (int i = 0; i < p->num_spans; i++) bytes += dag__span_bytes(&p->spans[i]);
    int best = -1, explore_device = -1;
    bool explore_cpu = false;
    double best_s = 0;
    size_t used = 0;
    bool full = false;
    for (int proc = cpu ? 0 : 1; proc <= dag__dv.num; proc++) {
        if (proc > 0 && !((devs >> (proc - 1)) & 1u)) continue;
        int slot = dag__model_find(k, proc, bucket, false);
        bool known = slot >= 0 && dag__dv.model[slot].samples;
        double run = known ? dag__dv.model[slot].seconds : 0, copy = 0, queue = 0;
        char name[32];
        if (proc > 0) {
            dag__device *dv = &dag__dv.devs[proc - 1];
            dag__model_poll(proc - 1, false);
            for (int i = 0; i < p->num_spans; i++) {
                dag__replica *r = dag__rep_find(&p->spans[i]);
                if ((p->modes[i] & DAG_ACCESS_IN) && !(r && ((r->valid >> proc) & 1u)))
                    copy += (double)dag__span_bytes(&p->spans[i]) / dv->bandwidth;
            }
            queue = dv->queued_s;
            snprintf(name, sizeof name, "%s%d", dv->ops->short_name, dv->ordinal + 1);
        } else {
            snprintf(name, sizeof name, "cpu");
        }
        double total = run + copy + queue;
        if (!full) {   /* whole entries only: one cut short would read as another estimate */
            char entry[96];
            int w = known ? snprintf(entry, sizeof entry, "%s%s %.1fus+%.1fus copy+%.1fus queue", used ? " | " : "", name,
                                     run * 1e6, copy * 1e6, queue * 1e6)
                          : snprintf(entry, sizeof entry, "%s%s unmeasured", used ? " | " : "", name);
            if (w > 0 && (size_t)w < sizeof entry && used + (size_t)w + sizeof " | ..." <= sizeof p->placement) {
                memcpy(p->placement + used, entry, (size_t)w + 1);
                used += (size_t)w;
            } else {
                snprintf(p->placement + used, sizeof p->placement - used, " | ...");
                full = true;
            }
        }
        if (!known) {
            if (proc > 0 && explore_device < 0) explore_device = proc;
            if (proc == 0) explore_cpu = true;
        } else if (best < 0 || total < best_s) {
            best = proc;
            best_s = total;
        }
    }
    bool unmeasured = explore_cpu || explore_device > 0;
    if (unmeasured && bytes < DAG__SMALL_WORK && cpu) return 0;   /* nothing to compare yet: small work stays */
    if (unmeasured && bytes >= DAG__SMALL_WORK) return explore_device > 0 ? explore_device : 0;
    if (best < 0) return explore_device > 0 ? explore_device : 0;
    return best;
}

static void dag__trace_plan(dag__trace_event *e, const dag__plan *p) {
    e->processor = p->processor;
    e->bytes_moved = p->bytes_moved;
    if (p->placement[0]) {
        size_t n = strlen(p->placement) + 1;
        e->placement = (char *)dag__xmalloc(n);
        memcpy(e->placement, p->placement, n);
    }
}

/* >>device execution */
/* The kernel's build on device d (or the library routine standing in),
   made the first time; a failure is kept, so that each task of the kernel
   fails with the same log without building again, and placement stops
   sending it there (dag__dev_runs). Returns NULL with err and log then. */
static dag__kernel_entry *dag__dev_kernel(int d, const dag_kernel_source *k, char *log, size_t log_size, int *err) {
    dag__device *dv = &dag__dv.devs[d];
    dag__kernel_entry *e = dv->kernels;
    while (e && e->src != k) e = e->next;
    if (!e) {
        e = (dag__kernel_entry *)dag__xmalloc(sizeof *e);
        memset(e, 0, sizeof *e);
        e->src = k;
        e->library = dag__dev_library(dv, k);
        log[0] = 0;
        if (e->library)
            dag_log(DAG_LOG_INFO, DAG_OK, "kernel '%s' runs as %s on %s", k->name, e->library->routine,
                    dag__dev_name(d, log, log_size));
        else if ((e->failed = dv->ops->build(dv->native, k, &e->kernel, log, log_size)) != 0) {
            size_t n = strlen(log) + 1;
            e->log = (char *)dag__xmalloc(n);
            memcpy(e->log, log, n);
        }
        e->next = dv->kernels;
        dv->kernels = e;
    }
    if (!e->failed) return e;
    *err = e->failed;
    /* the compiler's log once, not once more with every task of the kernel */
    snprintf(log, log_size, "%s", e->log_given ? "(the compiler's log came with the first task it failed)" : e->log);
    e->log_given = true;
    return NULL;
}

/* A kernel given a 2-D span with gaps between its runs and no Ld(...) most likely indexes the
   device's packed copy with the host's ld, past its end: said once per kernel and device. */
static void dag__dev_check_pitch(int d, dag__kernel_entry *e, const dag__plan *p, const dag_task_desc *desc) {
    if (e->warned_pitch) return;
    int gapped = -1;
    for (int k = 0; k < p->num_spans && gapped < 0; k++)
        if (p->spans[k].rows > 1 && p->spans[k].width < p->spans[k].stride) gapped = k;
    if (gapped < 0) return;
    for (int i = 0; i < desc->num_params; i++)
        if (p->span_of_param[i] == -2 - gapped) return;
    e->warned_pitch = true;
    char dev[200];
    dag_log(DAG_LOG_WARN, DAG_OK,
            "kernel '%s' on %s gets a 2-D span with gaps between its rows but no Ld(...): a device holds the rows "
            "packed, cols elements apart; pass Ld(p) for the pitch",
            desc->kernel->name, dag__dev_name(d, dev, sizeof dev));
}

/* Brings r to device d straight from another device of the same backend
   that holds it, where the backend can (peer copies, on d's lane 0). */
static bool dag__rep_peer_copy(dag__replica *r, int d) {
    const dag__device_ops *ops = dag__dv.devs[d].ops;
    if (!ops->peer_copy) return false;
    for (int e = 0; e < dag__dv.num; e++) {
        if (e == d || dag__dv.devs[e].ops != ops || !((r->valid >> (e + 1)) & 1u) || !r->buf[e] ||
            dag__order_before(d, &r->order[d], 0, true) != 0)
            continue;
        void *from = dag__trace_stamp(d, 0);
        if (ops->peer_copy(dag__dv.devs[d].native, r->buf[d], dag__dv.devs[e].native, r->buf[e], dag__span_bytes(&r->span)) == 0) {
            dag__order_after(d, &r->order[d], 0, true);
            dag__trace_slice(d, 0, "peer copy", true, from);
            return true;
        }
        if (from) ops->release(from);
    }
    return false;
}

/* Brings span k of task plan p (record r) to device d for the task being set up (pin): what
   overlaps it and only a device holds goes home first, it gets a buffer (evicting if it must),
   and an In span that is stale there comes from another device or from the host. Returns 0, or a
   dag_result with `msg`. */
static int dag__span_to_device(dag__plan *p, int k, dag__replica *r, int d, uint64_t pin, char *msg, size_t msg_size) {
    dag__device *dv = &dag__dv.devs[d];
    const dag__span *s = &p->spans[k];
    char name[200], text[200];
    int err = 0, failed = 0;
    r->pin = pin;
    dag__replica *o;
    for (size_t i = dag__overlaps_from(s); !err && (o = dag__overlap_next(s, &i));) {
        if (o == r) continue;
        err = dag__rep_write_back(o);
        if (!err && (p->modes[k] & DAG_ACCESS_OUT)) o->valid &= 1u;
    }
    if (err) return err;
    if (!r->buf[d] && (err = dag__dev_alloc(d, dag__span_bytes(s), &r->buf[d], &r->order[d], &failed)) != 0) {
        if (failed)
            snprintf(msg, msg_size, "allocating %zu bytes on %s returned %s%s", dag__span_bytes(s),
                     dag__dev_name(d, name, sizeof name), dag__dev_error_text(d, failed, text, sizeof text),
                     err == DAG_ERR_OUT_OF_MEMORY ? " (and nothing more could leave it)" : "");
        else if (err == DAG_ERR_DEVICE)
            snprintf(msg, msg_size, "making room for %zu bytes on %s: the copy home of a span it held failed (logged "
                     "before this)", dag__span_bytes(s), dag__dev_name(d, name, sizeof name));
        else
            snprintf(msg, msg_size, "%zu bytes do not fit on %s (limit %zu, %zu in use by spans this task or running "
                     "ones need)", dag__span_bytes(s), dag__dev_name(d, name, sizeof name), dv->limit, dv->used);
        return err;
    }
    bool stale = (p->modes[k] & DAG_ACCESS_IN) && !((r->valid >> (d + 1)) & 1u);
    if (stale && !dag__rep_peer_copy(r, d)) {
        if ((err = dag__rep_write_back(r)) != 0) return err;   /* another device held it dirty */
        if (r->reader[d]) dv->ops->release(r->reader[d]);
        r->reader[d] = NULL;
        int e = dag__rep_copy(r, d, true, &r->reader[d]);
        if (e) {
            snprintf(msg, msg_size, "the copy to %s returned %s", dag__dev_name(d, name, sizeof name),
                     dag__dev_error_text(d, e, text, sizeof text));
            return DAG_ERR_DEVICE;
        }
    }
    if (stale) {
        dv->bytes_in += dag__span_bytes(s);
        p->bytes_moved += dag__span_bytes(s);
    }
    if (p->modes[k] & DAG_ACCESS_IN) r->valid |= 2u << d;
    r->last_use[d] = pin;
    return 0;
}

/* The kernel lane of a task on device d: that of its first written span's last write where a
   kernel made it (a tile's updates stay on one stream, with no event between them), else the
   next in turn. */
static int dag__kernel_lane(int d, const dag__plan *p, dag__replica *const *reps) {
    dag__device *dv = &dag__dv.devs[d];
    if (dv->lanes <= DAG__LANE_KERNELS) return 0;
    for (int k = 0; k < p->num_spans; k++)
        if (p->modes[k] & DAG_ACCESS_OUT) {
            const dag__order *o = &reps[k]->order[d];
            if (o->write && o->write_lane >= DAG__LANE_KERNELS) return o->write_lane;
            break;
        }
    return DAG__LANE_KERNELS + dv->next_lane++ % (dv->lanes - DAG__LANE_KERNELS);
}

/* The kernel's arguments as device d holds them: each span's buffer, an Ld its packed pitch
   (lds holds those), values as they are. */
static void dag__kernel_args(dag__task *t, dag__plan *p, int d, dag__replica *const *reps, dag_kernel_arg *kargs,
                             uint64_t *lds) {
    const dag_task_desc *desc = t->desc;
    unsigned char *args = (unsigned char *)dag__args_of(t);
    for (int i = 1; i < desc->num_params; i++) {
        dag_kernel_arg *a = &kargs[i - 1];
        const dag__param *pa = &desc->params[i];
        int k = p->span_of_param[i];
        a->buffer = k >= 0 ? reps[k]->buf[d] : NULL;
        a->value = args + pa->offset;
        a->size = pa->size;
        if (k <= -2) {
            uint64_t ld = p->spans[-2 - k].width / p->elem[-2 - k];
            dag__convert(&lds[i], (int)pa->tag, pa->size, &ld, DAG__TAG_OF(ld), sizeof ld);
            a->value = &lds[i];
        }
    }
}

/* Queues the task's kernel build (or the library routine standing in) on a kernel lane of device d,
   after what its spans' histories ask, and records it in them and in the model's samples. */
static int dag__device_launch(dag__task *t, dag__plan *p, int d, const dag__kernel_entry *built,
                              dag__replica *const *reps, char *msg, size_t msg_size) {
    dag__device *dv = &dag__dv.devs[d];
    const dag_task_desc *desc = t->desc;
    dag_kernel_arg kargs[DAG__MAX_PARAMS];
    uint64_t lds[DAG__MAX_PARAMS];
    dag__kernel_args(t, p, d, reps, kargs, lds);
    size_t n = dag__launch_range(t);
    double estimate = 0;
    int slot = dag__model_find(desc->kernel, d + 1, dag__model_bucket(n), true);
    if (slot >= 0 && dag__dv.model[slot].samples) estimate = dag__dv.model[slot].seconds;
    /* Events cost the driver work: only some launches carry one, to time
       the kernel for the model and to tell when the device has come that far. */
    bool sample = slot < 0 || dag__dv.model[slot].samples < 4 || ++dv->unsampled >= 16;
    if (sample && dv->inflight_count) dag__model_poll(d, false);
    sample = sample && dv->inflight_count < DAG__INFLIGHT;
    void *done = NULL;
    int lane = dag__kernel_lane(d, p, reps), e = 0;
    for (int k = 0; k < p->num_spans && !e; k++) e = dag__order_before(d, &reps[k]->order[d], lane, p->modes[k] & DAG_ACCESS_OUT);
    void *from = e ? NULL : dag__trace_stamp(d, lane);
    if (!e)
        e = built->library ? dv->ops->call_library(dv->native, lane, built->library, n, kargs, desc->num_params - 1,
                                                   sample ? &done : NULL)
                           : dv->ops->launch(dv->native, lane, built->kernel, n, kargs, desc->num_params - 1,
                                             sample ? &done : NULL);
    dag__trace_slice(d, lane, dag__task_name(t), false, from);
    if (e) {
        char name[200], text[200];
        if (built->library)   /* the library's own status, which the runtime's error names would misread */
            snprintf(msg, msg_size, "%s, standing in for kernel '%s' on %s, returned status %d (the library's code; -1: "
                     "no handle for the device)", built->library->routine, desc->kernel->name, dag__dev_name(d, name, sizeof name), e);
        else
            snprintf(msg, msg_size, "launching kernel '%s' on %s returned %s", desc->kernel->name,
                     dag__dev_name(d, name, sizeof name), dag__dev_error_text(d, e, text, sizeof text));
        for (int k = 0; k < p->num_spans; k++)   /* the kernel may have run in part: host bytes stay the truth */
            if ((p->modes[k] & DAG_ACCESS_OUT) && (reps[k]->valid & 1u)) reps[k]->valid = 1u;
        return DAG_ERR_DEVICE;
    }
    for (int k = 0; k < p->num_spans; k++) {
        dag__order_after(d, &reps[k]->order[d], lane, p->modes[k] & DAG_ACCESS_OUT);
        if (p->modes[k] & DAG_ACCESS_OUT) reps[k]->valid = 2u << d;   /* the only current copy */
    }
    dv->queued_s += estimate;
    dv->unsampled_s += estimate;
    if (done) {
        dag__inflight *f = &dv->inflight[(dv->inflight_head + dv->inflight_count++) % DAG__INFLIGHT];
        f->event = done;
        f->slot = slot;
        f->estimate = dv->unsampled_s;   /* this launch and the unsampled ones before it */
        dv->unsampled_s = 0;
        dv->unsampled = 0;
    }
    return 0;
}

/* Queues a kernel task on device d: its spans come to the device (only what
   is stale there), then the kernel, each on its lane after what it must
   follow. Under the lock. Returns 0, or a dag_result with `msg` saying what
   went wrong. */
static int dag__device_run(dag__task *t, dag__plan *p, int d, char *msg, size_t msg_size) {
    dag__device *dv = &dag__dv.devs[d];
    const dag_task_desc *desc = t->desc;
    char name[200];
    int err = 0;
    uint64_t pin = ++dag__dv.tick;
    char log[4096];
    dag__kernel_entry *built = dag__dev_kernel(d, desc->kernel, log, sizeof log, &err);
    if (!built) {
        char text[200];
        snprintf(msg, msg_size, "kernel '%s' did not build for %s (error %s):\n%s", desc->kernel->name,
                 dag__dev_name(d, name, sizeof name), dag__dev_error_text(d, err, text, sizeof text), log);
        return DAG_ERR_KERNEL_BUILD;
    }
    size_t items = dag__launch_range(t);
    size_t most = dv->ops->max_range && built->kernel ? dv->ops->max_range(dv->native, built->kernel) : dv->ops->max_items;
    if (most && items > most) {   /* before any copy: nothing to undo */
        snprintf(msg, msg_size, "kernel '%s': %zu items are more than one launch on %s takes (at most %zu); split "
                 "the work into several tasks", desc->kernel->name, items, dag__dev_name(d, name, sizeof name), most);
        return DAG_ERR_DEVICE;
    }
    for (int k = 0; k < p->num_spans; k++)   /* a buffer the device cannot have: before any copy or eviction */
        if (dv->max_alloc && dag__span_bytes(&p->spans[k]) > dv->max_alloc) {
            snprintf(msg, msg_size, "kernel '%s': a span of %zu bytes is more than one buffer on %s may hold (at most "
                     "%zu bytes); split it into tiles", desc->kernel->name, dag__span_bytes(&p->spans[k]),
                     dag__dev_name(d, name, sizeof name), dv->max_alloc);
            return DAG_ERR_OUT_OF_MEMORY;   /* as a full device: a scope that allows the CPU runs it there */
        }
    dag__dev_check_pitch(d, built, p, desc);
    dag__replica *reps[DAG__MAX_PARAMS];
    for (int k = 0; k < p->num_spans && !err; k++)
        err = dag__span_to_device(p, k, reps[k] = dag__rep_get(&p->spans[k]), d, pin, msg, msg_size);
    if (!err) err = dag__device_launch(t, p, d, built, reps, msg, msg_size);
    if (err && err != DAG_ERR_OUT_OF_MEMORY) {
        if (!msg[0]) snprintf(msg, msg_size, "a write-back its data needed failed (see the log)");
        err = DAG_ERR_DEVICE;
    }
    return err;
}

/* Sets a task's failure from the runtime (dag_fail does it from a body). */
static void dag__task_set_failure(dag__worker *w, dag__task *t, int code, const char *message) {
    dag__extra *x = dag__extra_of(w, t);
    DAG_FREE(x->message);
    size_t n = strlen(message) + 1;
    x->message = (char *)dag__xmalloc(n);
    memcpy(x->message, message, n);
    atomic_store(&t->status, code);
    dag_log(DAG_LOG_ERROR, code, "task '%s' failed: %s", dag__task_name(t), message);
}


/* Called by dag__execute for a task with a plan. Returns true when the task
   went to a device (it is finished) or failed, false to run its body on
   this worker (host memory is then current for its spans). One lock hold
   places it and queues it or brings its data home. Not inlined: its
   buffers stay off dag__execute's frame, which deep nesting stacks. */
static DAG__NOINLINE bool dag__device_prepare(dag__worker *w, dag__task *t) {
    dag__plan *p = t->extra->plan;
    const dag_kernel_source *k = t->desc->kernel;
    char msg[8192];
    msg[0] = 0;
    int e = 0, fell_back = 0;   /* fell_back: why the device could not take it (its error) */
    dag__mutex_lock(&dag__dv.lock);
    p->processor = k ? dag__place(t, p, &p->scope) : 0;
    if (p->processor > 0) {
        e = dag__device_run(t, p, p->processor - 1, msg, sizeof msg);
        if ((e == DAG_ERR_OUT_OF_MEMORY || e == DAG_ERR_KERNEL_BUILD) && dag__scope_has_cpu(&p->scope)) {
            fell_back = e;
            p->processor = 0;
            e = 0;
        }
    }
    if (!e && p->processor == 0) {
        if (k) p->model_slot = dag__model_find(k, 0, dag__model_bucket(dag__launch_range(t)), true);
        e = dag__host_prepare(p->spans, p->modes, p->num_spans);
        if (e) snprintf(msg, sizeof msg, "its data could not be brought back from a device (see the log)");
    }
    dag__mutex_unlock(&dag__dv.lock);
    if (fell_back) dag_log(DAG_LOG_WARN, fell_back, "task '%s' runs on the CPU: %s", dag__task_name(t), msg);
    if (e) {
        dag__task_set_failure(w, t, e, msg);
        return true;
    }
    if (p->processor == 0 && k) p->cpu_start = dag__now_ns();
    return p->processor > 0;
}

/* A kernel launched on the CPU has finished (its chunks too): time it. */
static void dag__plan_finished(dag__plan *p) {
    if (!p->cpu_start || p->model_slot < 0) return;
    double s = (double)(dag__now_ns() - p->cpu_start) * 1e-9;
    dag__mutex_lock(&dag__dv.lock);
    dag__model_add(p->model_slot, s);
    dag__mutex_unlock(&dag__dv.lock);
    p->cpu_start = 0;
}

/* >>device set-up */
/* Adds the backend's devices that DAG_DEVICES lets the program use (bit i
   of `allowed`: its device i), numbered from 0 in that order. Returns how
   many. */
static int dag__devices_add(dag_backend backend, const dag__device_ops *ops, int count, uint64_t allowed) {
    int added = 0;
    for (int i = 0; i < count && i < 64 && dag__dv.num < DAG_MAX_DEVICES; i++) {
        if (!((allowed >> i) & 1u)) continue;
        dag__device *dv = &dag__dv.devs[dag__dv.num++];
        memset(dv, 0, sizeof *dv);
        dv->ops = ops;
        dv->backend = backend;
        dv->ordinal = added++;
        dv->native = i;
        dv->limit = dag__g.desc.device_memory_limit ? dag__g.desc.device_memory_limit : ops->memory(i);
        dv->max_alloc = ops->max_alloc ? ops->max_alloc(i) : 0;
        dv->lanes = ops->lanes > 1 && ops->lanes <= DAG__MAX_LANES ? ops->lanes : 1;
        dv->bandwidth = 2e9;   /* until measured */
    }
    return added;
}

static void dag__devices_shutdown(void) {
    dag__devices_settle(true, true);
    dag__devices_trace_clear();
    DAG_FREE(dag__dv.slices);
    for (size_t i = 0; i < dag__dv.num_reps; i++) {
        dag__replica *r = dag__dv.reps[i];
        dag__rep_wait_readers(r);
        for (int d = 0; d < dag__dv.num; d++) dag__rep_drop(r, d, true);
        dag__rep_unpin(r);
        DAG_FREE(r);
    }
    DAG_FREE(dag__dv.reps);
    for (int d = 0; d < dag__dv.num; d++) {
        dag__device *dv = &dag__dv.devs[d];
        dag__model_poll(d, true);
        dv->ops->synchronize(dv->native);
        while (dv->pool) dag__dev_evict_one(d);
        while (dv->kernels) {
            dag__kernel_entry *e = dv->kernels;
            dv->kernels = e->next;
            if (e->library && e->library->release) dv->ops->release_library(dv->native, e->library);
            else if (!e->library && !e->failed) dv->ops->release_kernel(dv->native, e->kernel);
            DAG_FREE(e->log);
            DAG_FREE(e);
        }
    }
    dag__mutex_destroy(&dag__dv.lock);
    memset(&dag__dv, 0, sizeof dag__dv);
    for (const dag__device_ops *const *o = dag__backend_ops; *o; o++) (*o)->shutdown();
}

static int dag__ctz64(uint64_t x) {   /* x != 0 */
    int n = 0;
    while (!(x & 1u)) { x >>= 1; n++; }
    return n;
}

/* The core's questions about the devices (see >>device seam in dag.h). */
static bool dag__devices_used(void) { return atomic_load_explicit(&dag__dv.used, memory_order_relaxed); }
static int dag__devices_num(void) { return dag__dv.num; }
static dag_backend dag__device_backend(int d) { return dag__dv.devs[d].backend; }
static int dag__device_ordinal(int d) { return dag__dv.devs[d].ordinal; }
static const char *dag__dev_short_name(int d, char *buf, size_t size) {
    snprintf(buf, size, "%s %d", dag__dv.devs[d].ops->short_name, dag__dv.devs[d].ordinal + 1);
    return buf;
}

/* A kernel whose scope allows a device turns the device layer on: from
   then on tasks carry their spans (dag__plan_attach). */
static void dag__devices_note_kernel(const dag_task_desc *desc, const dag_scope *s) {
    if (desc->kernel && !atomic_load_explicit(&dag__dv.used, memory_order_relaxed) && dag__scope_devices(s, desc->kernel))
        atomic_store(&dag__dv.used, 1);
}

/* Finds each compiled-in backend's devices, keeping those `allowed` lets
   the program use (bit i of allowed[b]: backend b's device i), and writes
   each backend's status line. spec and from name DAG_DEVICES's setting
   for the messages (spec NULL: every device). */
static void dag__devices_setup(const uint64_t allowed[DAG_BACKEND_COUNT], const char *spec, const char *from) {
    dag__mutex_init(&dag__dv.lock);
    char why[200];
    for (const dag__device_ops *const *o = dag__backend_ops; *o; o++) {
        dag_backend b = (*o)->backend;
        why[0] = 0;
        int n = (*o)->init(why, sizeof why);
        if (n < 0) n = 0;
        int added = n > 0 ? dag__devices_add(b, *o, n, allowed[b]) : 0;
        dag__g.backend_ok[b] = added > 0;
        if (n > 0 && added < n && spec) {   /* (the backend's "device 1" is its own first; dag.h numbers what is left) */
            size_t len = strlen(why);
            int first = added ? dag__dv.devs[dag__dv.num - added].native + 1 : 0;
            snprintf(why + len, sizeof why - len, "; %s=%s leaves %d of %d%s", from, spec, added, n,
                     first > 1 ? ", numbered from 1 again" : "");
            if (first > 1 && (len = strlen(why)) < sizeof why)
                snprintf(why + len, sizeof why - len, " (device 1 is the backend's %d)", first);
        }
        snprintf(dag__g.backend_status[b], sizeof dag__g.backend_status[b], "%s: %s%s", dag__backend_name[b],
                 added > 0 ? "" : "unavailable: ", why);
        dag_log(DAG_LOG_INFO, DAG_OK, "%s", dag__g.backend_status[b]);
        uint64_t beyond = n >= 64 ? 0 : allowed[b] >> n;
        if (spec && beyond && allowed[b] != ~(uint64_t)0)
            dag_log(DAG_LOG_WARN, DAG_ERR_INVALID_ARGUMENT, "%s=%s names %s %d; there %s %d", from, spec,
                    dag__device_word[b], n + 1 + dag__ctz64(beyond), n == 1 ? "is" : "are", n);
    }
}



/* The device number (into dag__dv.devs) of backend b's device `ordinal`
   (from 0), or -1. */
static int dag__device_index(dag_backend b, int ordinal) {
    for (int d = 0; d < dag__dv.num; d++)
        if (dag__dv.devs[d].backend == b && dag__dv.devs[d].ordinal == ordinal) return d;
    return -1;
}

static void dag__device_memory(int d, dag_memory_info *out) {
    dag__mutex_lock(&dag__dv.lock);
    dag__device *dv = &dag__dv.devs[d];
    out->used = dv->used;
    out->pool = dv->pooled;
    out->total = dv->limit;
    out->max_buffer = dv->max_alloc;
    out->free = dv->limit > dv->used + dv->pooled ? dv->limit - dv->used - dv->pooled : 0;
    out->bytes_to_device = dv->bytes_in;
    out->bytes_to_host = dv->bytes_out;
    out->evictions = dv->evictions;
    dag__mutex_unlock(&dag__dv.lock);
}

/* Waits for the queues of backend b's devices; returns the first error. */
static int dag__devices_synchronize(dag_backend b) {
    int err = 0;
    for (int d = 0; d < dag__dv.num; d++) {
        dag__device *dv = &dag__dv.devs[d];
        if (dv->backend != b) continue;
        dag__mutex_lock(&dag__dv.lock);   /* the device's queue is shared: every backend call is made under the lock */
        int e = dv->ops->synchronize(dv->native);
        if (e && !err) err = dag__dev_error(d, "synchronize", e);
        dag__model_poll(d, false);
        e = dag__dev_take_async_error(d);
        if (e && !err) err = e;
        dag__mutex_unlock(&dag__dv.lock);
    }
    return err;
}

/* >>registered data on devices */
static dag__replica *dag__data_replica(const dag__data_slot *s) {
    dag__span sp = dag__data_span(s);
    return dag__rep_find(&sp);
}

/* Brings a registered span home (how: DAG__HOME_KEEP), and drops its device copies too
   (DAG__HOME_FORGET); or drops them without bringing it home (DAG__HOME_DISCARD: the host bytes,
   as they are, are the truth again). */
static int dag__data_home(const dag__data_slot *s, int how) {
    if (!atomic_load_explicit(&dag__dv.used, memory_order_acquire)) return 0;
    dag__mutex_lock(&dag__dv.lock);
    dag__replica *r = dag__data_replica(s);
    int e = r && how != DAG__HOME_DISCARD ? dag__rep_write_back(r) : 0;
    /* Kept (dag_data_pointer, dag_synchronize): a failed write-back leaves the device copies for another
       try. Let go: the copies go whatever happened, since the program may free the memory now and nothing
       may write it after this call (the bytes a failed write-back lost, its error names). */
    if (r && (!e || how != DAG__HOME_KEEP)) dag__rep_host_only(r);   /* the program may write it */
    /* a wait made here may have met a failed upload, whose bytes came home: this call reports it */
    for (int d = 0; r && !e && d < dag__dv.num; d++) e = dag__dev_take_async_error(d);
    if (r && how != DAG__HOME_KEEP) {
        /* after a failure, a copy may still be queued on the memory: the queues drain before it is unpinned */
        for (int d = 0; e && d < dag__dv.num; d++) (void)dag__dv.devs[d].ops->synchronize(dag__dv.devs[d].native);
        for (int d = 0; d < dag__dv.num; d++) dag__rep_drop(r, d, false);
        dag__rep_unpin(r);
        r->resident = 0;     /* an ordinary record now: the next settle drops it */
    }
    dag__mutex_unlock(&dag__dv.lock);
    return e;
}

/* Region ends leave a resident span on its device. */
static void dag__data_keep_on_device(const dag__data_slot *s) {
    dag__mutex_lock(&dag__dv.lock);
    dag__span sp = dag__data_span(s);
    dag__rep_get(&sp)->resident = 1;
    dag__mutex_unlock(&dag__dv.lock);
}

/* >>plans: while devices are in use, a task keeps its spans for the device layer. */
static DAG__NOINLINE void dag__plan_attach(dag__worker *w, dag__task *t, const dag_arg *args, int num_args,
                                          const dag__span *spans, const int *modes, const size_t *elems,
                                          int num_spans, const int8_t *span_of_param, const dag_scope *scope) {
    dag__plan *p = (dag__plan *)dag__xmalloc(sizeof *p);
    p->num_spans = num_spans;
    for (int k = 0; k < num_spans; k++) {
        p->spans[k] = spans[k];
        p->modes[k] = (uint8_t)modes[k];
        p->elem[k] = (uint32_t)elems[k];
    }
    for (int i = 0; i < num_args; i++) {
        bool span = args[i].kind == DAG__ARG_SPAN || args[i].kind == DAG__ARG_DATA || args[i].kind == DAG__ARG_LD;
        p->span_of_param[i] = span ? span_of_param[i] : (int8_t)-1;
    }
    p->scope = *scope;
    p->processor = 0;
    p->model_slot = -1;
    p->cpu_start = 0;
    p->bytes_moved = 0;
    p->placement[0] = 0;
    dag__extra_of(w, t)->plan = p;
}

#endif /* DAG_DEVICE_H_INCLUDED */
