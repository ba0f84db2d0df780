/* A mock libamdhip64.so for testing dag_hip.h (and dag_gpu_stream.h, which
   CUDA shares) without a GPU. Device memory is host memory tagged with the
   device that allocated it; streams queue commands and run them lazily,
   in order, only as far as the host must see results (a synchronize, an
   event wait, a query after the first, hipFree, hipModuleUnload,
   hipStreamDestroy), and a stream that waits on an event cannot run past
   the wait until the event's stream has run up to the record. Copies read
   their source when they RUN, so a missing cross-stream wait shows up as
   wrong results, and host bytes rewritten under a queued copy (a staging
   buffer recycled too early, an upload nobody waited for) abort. The
   first query of each pending event says "not ready". Misuse (another
   device's memory without peer access, an event recorded on another
   device's stream, a launch too small for its range, freeing memory a
   queued command uses) aborts. Kernels run on the host by name
   (tests/gpu/kernels.h); live objects are counted at exit. The ABI types
   are declared here: HIP's headers are C++-leaning. Built as
   libamdhip64.so in a folder on LD_LIBRARY_PATH, it runs tests/gpu/test_gpu
   hip where no GPU exists. It is a test double, not a driver.
   Also: any use of a destroyed event aborts (destroyed events are kept, so
   a double destroy or a query after it is caught, not a use after free);
   hipGetDevice/hipSetDevice keep the current device per thread, so a test
   can check that the backend gives the program thread its device back;
   MOCK_HIP_DEVICES=n (read at each hipGetDeviceCount; 2 unless set) is
   how many GPUs there are; MOCK_HIP_BAD_DEVICE=k (the same) makes device k
   (1-based) refuse a stream, as a busy or exclusive-process GPU does;
   MOCK_HIP_MAX_PITCH=bytes caps 2-D copy pitches (hipErrorInvalidPitchValue);
   MOCK_HIP_ARCH=gfxNNN is the GPUs' architecture (gfx90a unless set): a
   code object bundle without it fails to load (hipErrorNoBinaryForGpu);
   injected failures: mock_fail.h.
   For the mock vendor libraries (mock_blas.h): mock_stream_call queues a
   host function on a stream as a library queues its routine, after
   checking that the stream is the current device's and that every buffer
   it names is that device's memory; hipMallocAsync and hipFreeAsync (and
   CUDA's names in mock_cuda.c) allocate at once and free in stream order. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mock_fail.h"

typedef int hipError_t;
typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2, hipErrorNoDevice = 100, hipErrorInvalidDevice = 101,
       hipErrorInvalidImage = 200, hipErrorInvalidHandle = 400, hipErrorNotFound = 500, hipErrorNotReady = 600,
       hipErrorPeerAccessAlreadyEnabled = 704, hipErrorInvalidPitchValue = 12, hipErrorContextAlreadyInUse = 216,
       hipErrorNoBinaryForGpu = 209, hipErrorHostMemoryAlreadyRegistered = 712, hipErrorHostMemoryNotRegistered = 713,
       hipErrorUnknown = 999 };
enum { hipStreamNonBlocking = 1, hipEventDefault = 0, hipEventBlockingSync = 1, hipEventDisableTiming = 2, hipHostMallocPortable = 1 };
enum { hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice, hipMemcpyDefault };

#define FAIL(...) do { fprintf(stderr, "MOCK HIP FAILURE: " __VA_ARGS__); fprintf(stderr, "\n"); abort(); } while (0)
#define MAX_DEV 16
#define TOTAL_MEM ((size_t)1 << 30)   /* 1 GiB per device */

/* One mutex for everything: dag.h already serialises its calls, but the
   mock must not depend on that. GUARD locks until the function returns. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void unlock_(int *x) { (void)x; pthread_mutex_unlock(&mu); }
static int init(void);
#define GUARD pthread_mutex_lock(&mu); int guard_ __attribute__((cleanup(unlock_))) = init(); (void)guard_

static int ndev = 2, initialised, bad_device;
static size_t max_pitch = (size_t)1 << 31;
static _Thread_local int current;   /* hipSetDevice is per thread */
static int peer[MAX_DEV][MAX_DEV];  /* peer[a][b]: a's streams may touch b's memory */
static size_t used[MAX_DEV];
static long live_streams, live_events, live_modules, live_allocs, live_host, live_registered, n_registered;
static long n_copies, n_launches, n_peer, n_library;
static double now_ms;               /* the device clock: every command run advances it */

#include "mock_kernels.h"   /* the kernels, as host code */
/* How many elements pointer argument `arg` must hold for a range of n:
   the launch is checked against its buffer's size before it is queued. */
static uint64_t tile_extent(int arg, uint64_t n, unsigned char args[][16]) {
    int cols = ARG(int, 1), ld = ARG(int, 2);
    (void)arg;
    if (cols <= 0 || ld < cols) FAIL("gpu_tile_add: cols %d ld %d", cols, ld);
    return (n - 1) / (uint64_t)cols * (uint64_t)ld + (n - 1) % (uint64_t)cols + 1;
}
static uint64_t gemm_extent(int arg, uint64_t n, unsigned char args[][16]) {
    int ta = ARG(int, 1), tb = ARG(int, 2), m = ARG(int, 3), k = ARG(int, 5);
    int ld = ARG(int, arg == 7 ? 8 : arg == 9 ? 10 : 13);
    if (m <= 0 || k < 0 || ld <= 0) FAIL("dag_dgemm: m %d k %d ld %d", m, k, ld);
    uint64_t im = (n < (uint64_t)m ? n : (uint64_t)m) - 1, jm = (n - 1) / (uint64_t)m, lm = (uint64_t)k - 1;   /* last i, j, l */
    if (arg == 12) return im + jm * (uint64_t)ld + 1;
    if (k == 0) return 0;
    if (arg == 7) return ta ? lm + im * (uint64_t)ld + 1 : im + lm * (uint64_t)ld + 1;
    return tb ? jm + lm * (uint64_t)ld + 1 : lm + jm * (uint64_t)ld + 1;
}
static uint64_t fill_extent(int arg, uint64_t n, unsigned char args[][16]) {
    long rows = ARG(long, 6), ld = ARG(long, 7);
    if (ARG(int, 1) != 1 && ARG(int, 1) != 4) FAIL("dag__array_fill: how %d is not the mock's", ARG(int, 1));
    if (rows <= 0 || ld < rows || arg != 8) FAIL("dag__array_fill: rows %ld ld %ld", rows, ld);
    return (n - 1) % (uint64_t)rows + (n - 1) / (uint64_t)rows * (uint64_t)ld + 1;
}
/* dag__array_lu_rows: mv's 4 + 4 nb longs; x and y (counted in 8-byte units, as their D says) a rows x
   cols block at their ld, where cols = n / nb and rows is the rows argument for the tile below (x in a
   pull, y in a push) and for the top tile (how 0 and 1), nb for the top tile of a pull and S of a push */
static uint64_t lu_rows_extent(int arg, uint64_t n, unsigned char args[][16]) {
    int how = ARG(int, 1), elem = ARG(int, 2);
    long nb = ARG(long, 3), rows = ARG(long, 8), ld = ARG(long, arg == 5 ? 6 : 10);
    if (how < 0 || how > 3 || nb <= 0 || n % (uint64_t)nb || (elem != 4 && elem != 8 && elem != 16))
        FAIL("dag__array_lu_rows: how %d nb %ld elem %d for %llu items", how, nb, elem, (unsigned long long)n);
    if (arg == 4) return 4 + 4 * (uint64_t)nb;
    long r = (how == 2 && arg == 9) || (how == 3 && arg == 5) ? nb : rows;
    if (r <= 0 || ld < r) FAIL("dag__array_lu_rows: rows %ld ld %ld", r, ld);
    uint64_t bytes = ((uint64_t)(r - 1) + (n / (uint64_t)nb - 1) * (uint64_t)ld + 1) * (uint64_t)elem;
    return (bytes + 7) / 8;
}
/* dag__array_copy_part: the rows x (n / rows) block it reads from src at (sr, sc) and writes into dst
   at (dr, dc), transposed or not, in 8-byte units */
static uint64_t copy_part_extent(int arg, uint64_t n, unsigned char args[][16]) {
    int elem = ARG(int, 1), transpose = ARG(int, 11);
    long rows = ARG(long, 10), cols = rows > 0 ? (long)(n / (uint64_t)rows) : 0, ld = ARG(long, arg == 2 ? 3 : 7);
    long r0 = ARG(long, arg == 2 ? 4 : 8), c0 = ARG(long, arg == 2 ? 5 : 9);
    long r = arg == 6 && transpose ? cols : rows, c = arg == 6 && transpose ? rows : cols;
    if (rows <= 0 || n % (uint64_t)rows || elem <= 0 || r0 < 0 || c0 < 0 || ld < r0 + r)
        FAIL("dag__array_copy_part: rows %ld elem %d at (%ld, %ld) ld %ld for %llu items", rows, elem, r0, c0, ld,
             (unsigned long long)n);
    uint64_t bytes = ((uint64_t)(r0 + r - 1) + (uint64_t)(c0 + c - 1) * (uint64_t)ld + 1) * (uint64_t)elem;
    return (bytes + 7) / 8;
}
/* sig: one letter per argument after n; d f i are values (double, float,
   int), D F I pointers to them (checked against device memory). */
static const struct kernel {
    const char *symbol;
    kfn fn;
    const char *sig;
    uint64_t (*extent)(int arg, uint64_t n, unsigned char args[][16]);   /* NULL: n elements */
} kernels[] = {
    { "gpu_axpy__gpu", k_axpy, "dDD", NULL }, { "gpu_scale__gpu", k_scale, "fF", NULL },
    { "gpu_count__gpu", k_count, "I", NULL }, { "gpu_tile_add__gpu", k_tile_add, "iidD", tile_extent },
    { "gpu_inc__gpu", k_inc, "F", NULL }, { "dag_dgemm__gpu", k_dgemm, "iiiiidDiDidDi", gemm_extent },
    { "dag__array_fill_f64__gpu", k_fill_f64, "iddddddD", fill_extent },
    { "dag__array_fill_f32__gpu", k_fill_f32, "iddddddF", fill_extent },
    { "dag__array_lu_rows__gpu", k_lu_rows, "iidDDdddDd", lu_rows_extent },
    { "dag__array_copy_part__gpu", k_copy_part, "iDdddDddddi", copy_part_extent },
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])
static size_t value_size(char c) { return c == 'f' || c == 'i' ? 4 : 8; }   /* a pointer's value is 8 bytes */
static size_t elem_size(char c) { return c == 'D' ? 8 : 4; }
#define IS_PTR(c) ((c) >= 'A' && (c) <= 'Z')
#define ARG_N(c) (*(uint64_t *)(c)->args[0])

/* ---- memory: every hipMalloc and hipHostMalloc block ---- */
typedef struct { char *p; size_t n; int dev; } block;   /* dev -1: pinned host memory */
static block *blocks;
static int nblocks, cap_blocks;

/* The block holding [p, p + n), or NULL: pageable host memory (the mock
   cannot see its bounds). A range that starts in a block and runs past
   its end is a FAIL: the device would read or write out of bounds. */
static const block *span(const void *p, size_t n, const char *what) {
    const char *c = p;
    for (int i = 0; i < nblocks; i++)
        if (c >= blocks[i].p && c < blocks[i].p + blocks[i].n) {
            if (n > (size_t)(blocks[i].p + blocks[i].n - c))
                FAIL("%s: %zu bytes at offset %zu overrun a block of %zu", what, n, (size_t)(c - blocks[i].p), blocks[i].n);
            return &blocks[i];
        }
    return NULL;
}
/* What a stream of device `dev` may touch: its own memory, and a peer's
   once hipDeviceEnablePeerAccess allowed it. */
static void device_access(int dev, const void *p, size_t n, const char *what) {
    const block *b = span(p, n, what);
    if (!b || b->dev < 0) FAIL("%s: %p is not device memory", what, p);
    if (b->dev != dev && !peer[dev][b->dev])
        FAIL("%s: device %d touches device %d's memory without peer access", what, dev, b->dev);
}
static void *add_block(size_t size, int dev) {
    char *p = aligned_alloc(256, (size + 255) / 256 * 256);   /* hipMalloc aligns to 256 */
    if (!p) return NULL;
    memset(p, 0xff, size);   /* fresh memory is garbage: NaN, -1; reading it unwritten shows */
    if (nblocks == cap_blocks) blocks = realloc(blocks, (size_t)(cap_blocks = cap_blocks ? 2 * cap_blocks : 256) * sizeof *blocks);
    blocks[nblocks++] = (block){ p, size, dev };
    return p;
}
/* A copy from host memory reads it when it RUNS; its bytes are hashed when
   it is queued and again then. A difference means the host rewrote them
   under a queued copy (a staging buffer reused before its copy ran, an
   upload nobody waited for): a FAIL, not a silently wrong result. For
   pageable memory this is stricter than the runtime, which may stage it
   during the call; the backend does not count on that (it hands back an
   event and the host waits for it before writing). */
static uint64_t hash_rows(const char *p, size_t pitch, size_t width, size_t height) {
    uint64_t h = 1469598103934665603u, w;
    for (size_t r = 0; r < height; r++) {
        const char *q = p + r * pitch;
        size_t i = 0;
        for (; i + 8 <= width; i += 8) memcpy(&w, q + i, 8), h = (h ^ w) * 1099511628211u;
        for (; i < width; i++) h = (h ^ (unsigned char)q[i]) * 1099511628211u;
    }
    return h;
}
static int find_block(const void *p) {
    for (int i = 0; i < nblocks; i++) if (blocks[i].p == p) return i;
    return -1;
}

/* ---- streams and their commands ---- */
enum { CMD_COPY, CMD_KERNEL, CMD_RECORD, CMD_WAIT, CMD_HOST, CMD_FREE };
#define HOST_SPANS 4
typedef struct cmd {
    int type;
    char *dst; const char *src; size_t dpitch, spitch, width, height;   /* a copy (a peer copy: one row) */
    int host_src; uint64_t hash;               /* a copy from host memory: its bytes when queued */
    const struct kernel *k; hipModule_t module;
    _Alignas(16) unsigned char args[16][16];   /* argument VALUES, copied at launch */
    hipEvent_t event;                          /* CMD_RECORD */
    int sid; uint64_t seq;                     /* CMD_WAIT: until stream sid has run its command seq */
    void (*fn)(void *); void *ctx;             /* CMD_HOST: fn(ctx), ctx freed after */
    const char *span[HOST_SPANS]; size_t span_bytes[HOST_SPANS];   /* CMD_HOST: the buffers it touches */
    char *block;                               /* CMD_FREE */
} cmd;
/* queued counts commands ever queued, done those run: command number
   done + 1 is q[head]. Waits and events name (stream id, number), never a
   pointer, so a destroyed stream (which ran everything) needs no care. */
struct ihipStream_t { int id, dev, running; cmd *q; size_t head, len, cap; uint64_t queued, done; };
struct ihipEvent_t { int dev; unsigned flags; int sid; uint64_t seq; int pending, destroyed, queried; double ms; };
struct ihipModuleSymbol_t { hipModule_t module; const struct kernel *k; };
struct ihipModule_t { int dev; struct ihipModuleSymbol_t fns[NKERNELS]; hipModule_t next; };
static hipModule_t modules;   /* listed, so a leaked one reaches the check at exit and not only LeakSanitizer */

static hipStream_t *streams;   /* by id; NULL once destroyed; ids never reused */
static int nstreams;

/* Frees block p (hipFree's and a stream-ordered free's last step). */
static void free_block(void *p) {
    int k = find_block(p);
    if (k < 0 || blocks[k].dev < 0) FAIL("free of %s", k < 0 ? "an unknown pointer" : "pinned memory (hipHostFree frees it)");
    used[blocks[k].dev] -= blocks[k].n;
    free(p);
    blocks[k] = blocks[--nblocks];
    live_allocs--;
}

static int reached(int sid, uint64_t seq) { return !streams[sid] || streams[sid]->done >= seq; }
static int complete(hipEvent_t e) { return e->seq == 0 || reached(e->sid, e->seq); }   /* never recorded: complete */

static void exec(cmd *c) {
    switch (c->type) {
    case CMD_COPY:   /* reads the source now, not when queued */
        if (c->host_src && hash_rows(c->src, c->spitch, c->width, c->height) != c->hash)
            FAIL("the host rewrote the source of a queued host-to-device copy before it ran");
        for (size_t r = 0; r < c->height; r++) memcpy(c->dst + r * c->dpitch, c->src + r * c->spitch, c->width);
        now_ms += 0.002 + (double)(c->width * c->height) * 1e-7;   /* 10 GB/s */
        break;
    case CMD_KERNEL: {
        uint64_t n = ARG_N(c);
        for (uint64_t i = 0; i < n; i++) c->k->fn(i, c->args);
        now_ms += 0.005 + (double)n * 1e-6;
        break;
    }
    case CMD_RECORD: {
        hipEvent_t e = c->event;
        now_ms += 1e-4;   /* two records in a row are still apart */
        e->ms = now_ms;
        if (--e->pending == 0 && e->destroyed) live_events--;   /* destroyed while pending: released now */
        break;
    }
    case CMD_WAIT: break;   /* run_until met it before getting here */
    case CMD_HOST:
        c->fn(c->ctx);
        free(c->ctx);
        now_ms += 0.005;
        break;
    case CMD_FREE: free_block(c->block); break;
    }
}

/* Runs stream s up to its command number seq, and no further; a wait runs
   the awaited stream up to its record first, and no further either. */
static void run_until(hipStream_t s, uint64_t seq) {
    if (s->running) FAIL("streams wait on each other: deadlock");
    s->running = 1;
    while (s->done < seq) {
        cmd *c = &s->q[s->head];
        if (c->type == CMD_WAIT && !reached(c->sid, c->seq)) run_until(streams[c->sid], c->seq);
        exec(c);
        s->head++;
        s->done++;
    }
    if (s->head == s->len) s->head = s->len = 0;
    s->running = 0;
}
/* The newest streams first (a backend makes its copy streams before its kernel streams): a kernel
   that does not wait for the copy it needs runs before that copy, and reads what was there. */
static void sync_device(int dev) {
    for (int i = nstreams; i-- > 0;)
        if (streams[i] && streams[i]->dev == dev) run_until(streams[i], streams[i]->queued);
}

static cmd *push(hipStream_t s, int type) {
    if (!s) FAIL("a command on the null stream: the backend queues on its own streams");
    if (s->len == s->cap) s->q = realloc(s->q, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->q);
    cmd *c = &s->q[s->len++];
    memset(c, 0, sizeof *c);
    c->type = type;
    s->queued++;
    return c;
}

static int overlaps(const char *a, size_t an, const char *p, size_t n) { return a < p + n && p < a + an; }
/* Whether a queued command c still reads or writes [p, p + n). */
static int uses(const cmd *c, const char *p, size_t n) {
    if (c->type == CMD_COPY && c->height) {
        return overlaps(c->dst, (c->height - 1) * c->dpitch + c->width, p, n) ||
               overlaps(c->src, (c->height - 1) * c->spitch + c->width, p, n);
    }
    for (int i = 0; c->type == CMD_HOST && i < HOST_SPANS; i++)
        if (c->span[i] && overlaps(c->span[i], c->span_bytes[i], p, n)) return 1;
    for (int a = 0; c->type == CMD_KERNEL && c->k->sig[a]; a++) {
        const char *v;
        memcpy(&v, c->args[a + 1], sizeof v);
        if (IS_PTR(c->k->sig[a]) && v >= p && v < p + n) return 1;
    }
    return 0;
}
static int queued_use(const char *p, size_t n, hipModule_t m) {
    for (int i = 0; i < nstreams; i++)
        for (size_t k = streams[i] ? streams[i]->head : 0; streams[i] && k < streams[i]->len; k++)
            if (m ? streams[i]->q[k].module == m : uses(&streams[i]->q[k], p, n)) return 1;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "mock hip: live streams %ld events %ld modules %ld allocs %ld host %ld; copies %ld launches %ld peer %ld "
            "library calls %ld pinned ranges %ld\n", live_streams, live_events, live_modules, live_allocs, live_host, n_copies,
            n_launches, n_peer, n_library, n_registered);
    if (initialised && (live_streams || live_modules || live_allocs || live_host))
        FAIL("objects still live at exit: dag_shutdown leaked them");
    if (live_registered) FAIL("%ld host ranges still registered (pinned) at exit", live_registered);
}

/* MOCK_HIP_DEVICES: how many GPUs (2 unless set), read at each hipGetDeviceCount, so that a test
   may set up again with another number. */
static void read_device_count(void) {
    const char *e = getenv("MOCK_HIP_DEVICES");
    ndev = e ? atoi(e) : 2;
    if (ndev < 0 || ndev > MAX_DEV) FAIL("MOCK_HIP_DEVICES=%s", e);
}
static int init(void) {
    if (!initialised) {
        initialised = 1;
        read_device_count();
    }
    return 0;
}

/* ---- devices ---- */
hipError_t hipGetDeviceCount(int *count) {
    INJECT(hipErrorNoDevice);
    GUARD;
    const char *bad = getenv("MOCK_HIP_BAD_DEVICE"), *pitch = getenv("MOCK_HIP_MAX_PITCH");
    bad_device = bad ? atoi(bad) : 0;
    max_pitch = pitch ? (size_t)atoll(pitch) : (size_t)1 << 31;
    read_device_count();
    *count = ndev;
    return ndev ? hipSuccess : hipErrorNoDevice;   /* what ROCm says on a machine without a GPU */
}
#define BAD_DEV(d) ((d) < 0 || (d) >= ndev)
hipError_t hipSetDevice(int d) {
    INJECT(hipErrorUnknown);
    GUARD;
    return BAD_DEV(d) ? hipErrorInvalidDevice : (current = d, hipSuccess);
}
hipError_t hipGetDevice(int *d) {
    INJECT(hipErrorUnknown);
    GUARD;
    *d = current;
    return hipSuccess;
}
/* For tests (dlsym): the calling thread's current device, without a call
   the backend could count. */
__attribute__((visibility("default"))) int mock_hip_current_device(void) { return current; }
/* For tests: host ranges registered (pinned) now. */
__attribute__((visibility("default"))) long mock_hip_pinned_ranges(void) { return live_registered; }
hipError_t hipDeviceGet(hipDevice_t *d, int ordinal) {
    INJECT(hipErrorUnknown);
    GUARD;
    return BAD_DEV(ordinal) ? hipErrorInvalidDevice : (*d = ordinal, hipSuccess);
}
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t d) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (BAD_DEV(d) || !name || len <= 0) return BAD_DEV(d) ? hipErrorInvalidDevice : hipErrorInvalidValue;
    snprintf(name, (size_t)len, "Mock HIP GPU %d", d + 1);
    return hipSuccess;
}
hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t d) {
    INJECT(hipErrorUnknown);
    GUARD;
    return BAD_DEV(d) ? hipErrorInvalidDevice : (*bytes = TOTAL_MEM, hipSuccess);
}
/* MOCK_HIP_NO_PEER: no pair may peer, so the backend's host round trip runs. */
hipError_t hipDeviceCanAccessPeer(int *can, int d, int p) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (BAD_DEV(d) || BAD_DEV(p)) return hipErrorInvalidDevice;
    *can = d != p && !getenv("MOCK_HIP_NO_PEER");
    return hipSuccess;
}
hipError_t hipDeviceEnablePeerAccess(int p, unsigned int flags) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (flags != 0) return hipErrorInvalidValue;
    if (BAD_DEV(p) || p == current || getenv("MOCK_HIP_NO_PEER")) return hipErrorInvalidDevice;
    if (peer[current][p]) return hipErrorPeerAccessAlreadyEnabled;
    peer[current][p] = 1;
    return hipSuccess;
}
static const struct { hipError_t code; const char *name, *text; } errors[] = {
    { hipSuccess, "hipSuccess", "no error" }, { hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument" },
    { hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory" },
    { hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected (mock)" },
    { hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal" },
    { hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid" },
    { hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle" },
    { hipErrorNotFound, "hipErrorNotFound", "named symbol not found" }, { hipErrorNotReady, "hipErrorNotReady", "device not ready" },
    { hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled" },
    { hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch argument" },
    { hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse", "exclusive-process device already in use (mock)" },
    { hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device" },
    { hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped" },
    { hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region" },
    { hipErrorUnknown, "hipErrorUnknown", "unknown error (injected by the mock)" },
};
static int error_index(hipError_t e) {
    for (int i = 0; i < (int)(sizeof errors / sizeof errors[0]); i++) if (errors[i].code == e) return i;
    return -1;
}
const char *hipGetErrorName(hipError_t e) { return error_index(e) < 0 ? "hipErrorUnknown" : errors[error_index(e)].name; }
const char *hipGetErrorString(hipError_t e) { return error_index(e) < 0 ? "unknown error" : errors[error_index(e)].text; }

/* ---- streams and events ---- */
hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned int flags) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (flags & ~(unsigned)hipStreamNonBlocking) FAIL("stream flags %u", flags);
    if (bad_device == current + 1) return hipErrorContextAlreadyInUse;
    *s = calloc(1, sizeof **s);
    (*s)->dev = current;
    (*s)->id = nstreams;
    streams = realloc(streams, (size_t)(nstreams + 1) * sizeof *streams);
    streams[nstreams++] = *s;
    live_streams++;
    return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t s) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (!s) FAIL("hipStreamSynchronize of the null stream");
    run_until(s, s->queued);
    return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t s) {
    INJECT(hipErrorUnknown);
    GUARD;
    run_until(s, s->queued);   /* what it queued still happens */
    streams[s->id] = NULL;
    free(s->q);
    free(s);
    live_streams--;
    return hipSuccess;
}
/* Waits for the event's latest record as of now (a later re-record does
   not move it); an event never recorded is no wait at all. */
hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned int flags) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (flags != 0) FAIL("hipStreamWaitEvent flags %u", flags);
    if (e->destroyed) FAIL("wait on a destroyed event");
    if (e->seq == 0) return hipSuccess;
    cmd *c = push(s, CMD_WAIT);
    c->sid = e->sid;
    c->seq = e->seq;
    return hipSuccess;
}
hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (flags & ~(unsigned)(hipEventBlockingSync | hipEventDisableTiming)) FAIL("event flags %u", flags);
    static hipEvent_t *all;
    static size_t nall, capall;
    if (nall == capall) all = realloc(all, (capall = capall ? 2 * capall : 256) * sizeof *all);
    *e = all[nall++] = calloc(1, sizeof **e);
    (*e)->dev = current;
    (*e)->flags = flags;
    live_events++;
    return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (e->destroyed) FAIL("record of a destroyed event");
    if (s && s->dev != e->dev)   /* CUDA and HIP reject it: the backend's use(dev) went wrong */
        FAIL("an event of device %d recorded on a stream of device %d", e->dev, s->dev);
    cmd *c = push(s, CMD_RECORD);
    c->event = e;
    e->sid = s->id;
    e->seq = s->queued;
    e->pending++;
    e->queried = 0;
    return hipSuccess;
}
/* The first query of a pending record finds it not ready, so the
   not-ready path always runs; later ones run just enough to finish it. */
#define LIVE_EVENT(e) do { if (!(e) || (e)->destroyed) FAIL("%s of a %s event", __func__, (e) ? "destroyed" : "NULL"); } while (0)
hipError_t hipEventQuery(hipEvent_t e) {
    INJECT(hipErrorUnknown);
    GUARD;
    LIVE_EVENT(e);
    if (complete(e)) return hipSuccess;
    if (!e->queried++) return hipErrorNotReady;
    run_until(streams[e->sid], e->seq);
    return hipSuccess;
}
hipError_t hipEventSynchronize(hipEvent_t e) {
    INJECT(hipErrorUnknown);
    GUARD;
    LIVE_EVENT(e);
    if (!complete(e)) run_until(streams[e->sid], e->seq);
    return hipSuccess;
}
hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
    INJECT(hipErrorUnknown);
    GUARD;
    LIVE_EVENT(a);
    LIVE_EVENT(b);
    if ((a->flags | b->flags) & hipEventDisableTiming) return hipErrorInvalidHandle;
    if (!a->seq || !b->seq) return hipErrorInvalidHandle;
    if (!complete(a) || !complete(b)) return hipErrorNotReady;
    *ms = (float)(b->ms - a->ms);
    return hipSuccess;
}
/* Allowed while pending, as in the runtime: released once its record ran. */
hipError_t hipEventDestroy(hipEvent_t e) {
    INJECT_LATE;
    GUARD;
    if (e->destroyed) FAIL("event destroyed twice");
    e->destroyed = 1;   /* kept (listed, so not a leak): a later use of it is caught */
    if (e->pending == 0) live_events--;
    return LATE_RESULT(hipSuccess, hipErrorUnknown);
}

/* ---- memory ---- */
hipError_t hipMalloc(void **p, size_t size) {
    INJECT(hipErrorOutOfMemory);
    GUARD;
    *p = NULL;
    if (size == 0) return hipSuccess;
    if (size > TOTAL_MEM - used[current] || !(*p = add_block(size, current))) return hipErrorOutOfMemory;
    used[current] += size;
    live_allocs++;
    return hipSuccess;
}
/* Like the runtime's: it first waits for what the owning device queued.
   What another device's stream still queues on it (a peer copy nobody
   waited for) would read freed memory: a FAIL. */
hipError_t hipFree(void *p) {
    INJECT_LATE;
    GUARD;
    if (!p) return LATE_RESULT(hipSuccess, hipErrorUnknown);
    int k = find_block(p);
    if (k < 0 || blocks[k].dev < 0) FAIL("hipFree of %s", k < 0 ? "an unknown pointer" : "pinned memory (hipHostFree frees it)");
    sync_device(blocks[k].dev);
    if (queued_use(p, blocks[k].n, NULL)) FAIL("hipFree of memory a queued command of another device uses");
    free_block(p);
    return LATE_RESULT(hipSuccess, hipErrorUnknown);
}
/* Stream-ordered: the memory is there at once (a stronger promise than the runtime's), and goes when
   the stream reaches the free; the stream must be the current device's. */
hipError_t hipMallocAsync(void **p, size_t size, hipStream_t s) {
    INJECT(hipErrorOutOfMemory);
    GUARD;
    *p = NULL;
    if (!s || s->dev != current) FAIL("hipMallocAsync on %s", s ? "a stream of another device than the current" : "the null stream");
    if (size > TOTAL_MEM - used[current] || !(*p = add_block(size ? size : 1, current))) return hipErrorOutOfMemory;
    used[current] += size ? size : 1;
    live_allocs++;
    return hipSuccess;
}
hipError_t hipFreeAsync(void *p, hipStream_t s) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (!s) FAIL("hipFreeAsync on the null stream");
    int k = find_block(p);
    if (k < 0 || blocks[k].dev != s->dev) FAIL("hipFreeAsync of %s", k < 0 ? "an unknown pointer" : "another device's memory");
    push(s, CMD_FREE)->block = p;
    return hipSuccess;
}
hipError_t hipHostMalloc(void **p, size_t size, unsigned int flags) {
    INJECT(hipErrorOutOfMemory);
    GUARD;
    if (flags & ~(unsigned)hipHostMallocPortable) FAIL("hipHostMalloc flags %u", flags);
    if (!(*p = add_block(size ? size : 1, -1))) return hipErrorOutOfMemory;
    live_host++;
    return hipSuccess;
}
/* Stricter than the runtime (which synchronizes): the backend synchronizes
   before freeing staging buffers, so a queued copy still using one is a bug. */
hipError_t hipHostFree(void *p) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (!p) return hipSuccess;
    int k = find_block(p);
    if (k < 0 || blocks[k].dev != -1) FAIL("hipHostFree of %s", k < 0 ? "an unknown pointer" : "memory it did not allocate");
    if (queued_use(p, blocks[k].n, NULL)) FAIL("hipHostFree of a pinned buffer a queued copy uses");
    free(p);
    blocks[k] = blocks[--nblocks];
    live_host--;
    return hipSuccess;
}
/* The program's own memory registered (pinned): a block of dev -2, not the mock's to free. As the
   runtime pins whole pages, a range that shares a page with one registered already is refused. */
static int pages_overlap(const char *p, size_t n, const char *q, size_t m) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, b = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
    uintptr_t c = (uintptr_t)q & ~(uintptr_t)4095, d = ((uintptr_t)q + m + 4095) & ~(uintptr_t)4095;
    return a < d && c < b;
}
hipError_t hipHostRegister(void *p, size_t size, unsigned int flags) {
    INJECT(hipErrorOutOfMemory);
    GUARD;
    if (!p || !size || (flags & ~1u)) return hipErrorInvalidValue;
    for (int i = 0; i < nblocks; i++)
        if (blocks[i].dev == -2 && pages_overlap(blocks[i].p, blocks[i].n, p, size)) return hipErrorHostMemoryAlreadyRegistered;
    if (span(p, size, "hipHostRegister")) FAIL("hipHostRegister of memory the runtime allocated");
    if (nblocks == cap_blocks) blocks = realloc(blocks, (size_t)(cap_blocks = cap_blocks ? 2 * cap_blocks : 256) * sizeof *blocks);
    blocks[nblocks++] = (block){ p, size, -2 };
    live_registered++, n_registered++;
    return hipSuccess;
}
/* Stricter than the runtime: a queued copy still using the memory is the backend's bug. */
hipError_t hipHostUnregister(void *p) {
    INJECT(hipErrorUnknown);
    GUARD;
    int k = find_block(p);
    if (k < 0 || blocks[k].dev != -2) return hipErrorHostMemoryNotRegistered;
    if (queued_use(p, blocks[k].n, NULL)) FAIL("hipHostUnregister of memory a queued copy uses");
    blocks[k] = blocks[--nblocks];
    live_registered--;
    return hipSuccess;
}
static hipError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                            hipStream_t s) {
    GUARD;
    if (!s) FAIL("hipMemcpy2DAsync on the null stream");
    if (width > dpitch || width > spitch) FAIL("hipMemcpy2DAsync: width %zu, pitches %zu %zu", width, dpitch, spitch);
    if (height > 1 && (dpitch > max_pitch || spitch > max_pitch)) return hipErrorInvalidPitchValue;
    cmd *c = push(s, CMD_COPY);
    c->dst = dst, c->src = src, c->dpitch = dpitch, c->spitch = spitch, c->width = width, c->height = height;
    if (width && height) {
        size_t dn = (height - 1) * dpitch + width, sn = (height - 1) * spitch + width;
        const block *db = span(dst, dn, "copy destination"), *sb = span(src, sn, "copy source");
        int dd = db && db->dev >= 0, sd = sb && sb->dev >= 0;
        if ((kind == hipMemcpyHostToDevice && (!dd || sd)) || (kind == hipMemcpyDeviceToHost && (dd || !sd)) ||
            (kind == hipMemcpyDeviceToDevice && (!dd || !sd)) || kind == hipMemcpyHostToHost || kind > hipMemcpyDefault)
            FAIL("hipMemcpy2DAsync kind %d from %s to %s memory", kind, sd ? "device" : "host", dd ? "device" : "host");
        if (dd) device_access(s->dev, dst, dn, "copy destination");
        if (sd) device_access(s->dev, src, sn, "copy source");
        if ((c->host_src = !sd)) c->hash = hash_rows(src, spitch, width, height);
    }
    n_copies++;
    return hipSuccess;
}
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, hipStream_t s) {
    INJECT(hipErrorUnknown);
    return copy2d(dst, bytes, src, bytes, bytes, 1, kind, s);
}
hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                            hipStream_t s) {
    INJECT(hipErrorUnknown);
    return copy2d(dst, dpitch, src, spitch, width, height, kind, s);
}
/* The runtime would stage a copy between devices without peer access;
   the backend only copies where it enabled it, so anything else is a bug. */
hipError_t hipMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t bytes, hipStream_t s) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (!s) FAIL("hipMemcpyPeerAsync on the null stream");
    if (BAD_DEV(dd) || BAD_DEV(sd)) return hipErrorInvalidDevice;
    if (s->dev != dd && s->dev != sd) FAIL("peer copy %d -> %d on a stream of device %d", sd, dd, s->dev);
    const block *db = span(dst, bytes, "peer copy destination"), *sb = span(src, bytes, "peer copy source");
    if (!db || db->dev != dd) FAIL("peer copy destination is not device %d's memory", dd);
    if (!sb || sb->dev != sd) FAIL("peer copy source is not device %d's memory", sd);
    device_access(s->dev, dst, bytes, "peer copy destination");
    device_access(s->dev, src, bytes, "peer copy source");
    cmd *c = push(s, CMD_COPY);
    c->dst = dst, c->src = src, c->dpitch = c->spitch = c->width = bytes, c->height = 1;
    n_peer++;
    return hipSuccess;
}

/* ---- modules and launches ---- */
/* hipcc --genco writes a clang offload bundle; a bare code object is ELF. */
/* Whether an offload bundle holds a code object for the mock GPU's
   architecture (MOCK_HIP_ARCH, gfx90a unless set): its entries are named
   "hipv4-amdgcn-amd-amdhsa--gfx90a" (perhaps with ":xnack-" after). */
static int bundle_has_arch(const void *image) {
    const char *arch = getenv("MOCK_HIP_ARCH") ? getenv("MOCK_HIP_ARCH") : "gfx90a";
    const unsigned char *b = image;
    if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) return 1;   /* a bare code object: taken as it is */
    uint64_t n, at = 32;
    memcpy(&n, b + 24, 8);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len;
        memcpy(&len, b + at + 16, 8);
        const char *name = (const char *)b + at + 24, *dashes = memmem(name, len, "--", 2);
        size_t alen = strlen(arch);
        if (dashes && (size_t)(name + len - (dashes + 2)) >= alen && !memcmp(dashes + 2, arch, alen) &&
            (name + len == dashes + 2 + alen || dashes[2 + alen] == ':'))
            return 1;
        at += 24 + len;
    }
    return 0;
}
hipError_t hipModuleLoadData(hipModule_t *m, const void *image) {
    INJECT(hipErrorInvalidImage);
    GUARD;
    if (!image) return hipErrorInvalidValue;
    if (strncmp(image, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0 && strncmp(image, "\177ELF", 4) != 0) return hipErrorInvalidImage;
    if (!bundle_has_arch(image)) return hipErrorNoBinaryForGpu;
    *m = calloc(1, sizeof **m);
    (*m)->dev = current;
    for (size_t i = 0; i < NKERNELS; i++) (*m)->fns[i] = (struct ihipModuleSymbol_t){ *m, &kernels[i] };
    (*m)->next = modules;
    modules = *m;
    live_modules++;
    return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name) {
    INJECT(hipErrorUnknown);
    GUARD;
    for (size_t i = 0; i < NKERNELS; i++)
        if (strcmp(kernels[i].symbol, name) == 0) {
            *f = &m->fns[i];
            return hipSuccess;
        }
    return hipErrorNotFound;
}
/* Runs every stream just past its last launch from the module first. */
hipError_t hipModuleUnload(hipModule_t m) {
    INJECT(hipErrorUnknown);
    GUARD;
    for (int i = 0; i < nstreams; i++) {
        hipStream_t s = streams[i];
        for (size_t k = s ? s->len : 0; k-- > (s ? s->head : 0);)
            if (s->q[k].module == m) {
                run_until(s, s->done + (k - s->head) + 1);
                break;
            }
    }
    if (queued_use(NULL, 0, m)) FAIL("module unloaded under a queued launch");
    hipModule_t *l = &modules;
    while (*l && *l != m) l = &(*l)->next;
    if (!*l) FAIL("hipModuleUnload of an unknown module");
    *l = m->next;
    free(m);
    live_modules--;
    return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                 unsigned int by, unsigned int bz, unsigned int shmem, hipStream_t s, void **params,
                                 void **extra) {
    INJECT(hipErrorUnknown);
    GUARD;
    if (!s) FAIL("launch on the null stream");
    if (gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 || bx == 0 || bx > 1024 || shmem || extra || !params)
        FAIL("%s: grid %u,%u,%u block %u,%u,%u shmem %u", f->k->symbol, gx, gy, gz, bx, by, bz, shmem);
    if (f->module->dev != s->dev) FAIL("%s: a module of device %d launched on device %d", f->k->symbol, f->module->dev, s->dev);
#if defined(MOCK_CUDA)
    if (gx > 0x7fffffffu)   /* as CUDA (mock_cuda.c): gridDim.x < 2^31 */
        FAIL("%s: grid %u is 2^31 blocks or more", f->k->symbol, gx);
#else
    if ((unsigned long long)gx * bx >= (1ull << 32))   /* as HIP: the total threads must fit 32 bits */
        FAIL("%s: grid %u x block %u is 2^32 threads or more", f->k->symbol, gx, bx);
#endif
    cmd *c = push(s, CMD_KERNEL);
    c->k = f->k;
    c->module = f->module;
    memcpy(c->args[0], params[0], 8);   /* values now: the caller's storage is reused right after */
    for (int a = 0; f->k->sig[a]; a++) memcpy(c->args[a + 1], params[a + 1], value_size(f->k->sig[a]));
    uint64_t n = ARG_N(c);
    if ((uint64_t)gx * bx < n) FAIL("%s: grid of %llu threads for %llu items", f->k->symbol, (unsigned long long)gx * bx,
                                    (unsigned long long)n);
    for (int a = 0; n && f->k->sig[a]; a++)
        if (IS_PTR(f->k->sig[a])) {
            char *v;
            memcpy(&v, c->args[a + 1], sizeof v);
            uint64_t count = f->k->extent ? f->k->extent(a + 1, n, c->args) : n;
            if (count) device_access(s->dev, v, count * elem_size(f->k->sig[a]), f->k->symbol);
        }
    n_launches++;
    return hipSuccess;
}

/* ---- library routines (mock_blas.h) ---- */
/* Queues fn(a copy of ctx) on stream s, as a library queues its routine: s must be the current
   device's (the library is called with its device current), and each of the n buffers (ptr[i],
   bytes[i] long) that device's memory, or a peer's it may touch. Returns 0. */
__attribute__((visibility("default"))) int mock_stream_call(void *stream, const char *routine, void (*fn)(void *),
                                                            const void *ctx, size_t ctx_size, int n,
                                                            const void *const *ptr, const size_t *bytes) {
    GUARD;
    hipStream_t s = (hipStream_t)stream;
    if (!s) FAIL("%s on the null stream: dag.h passes the device's own", routine);
    if (s->dev != current) FAIL("%s on a stream of device %d while device %d is current", routine, s->dev, current);
    if (n > HOST_SPANS) FAIL("%s: %d buffers", routine, n);
    cmd *c = push(s, CMD_HOST);
    for (int i = 0; i < n; i++) {
        if (bytes[i]) device_access(s->dev, ptr[i], bytes[i], routine);
        c->span[i] = ptr[i];
        c->span_bytes[i] = bytes[i];
    }
    c->fn = fn;
    c->ctx = malloc(ctx_size);
    memcpy(c->ctx, ctx, ctx_size);
    n_library++;
    return 0;
}
/* For the mock libraries: whether their entry point fn fails now (mock_fail, MOCK_FAIL), and with
   what (*code 0: its own error). */
__attribute__((visibility("default"))) int mock_runtime_inject(const char *fn, long *code) { return mock_inject(fn, code); }
