/* test_fuzz.c: differential tester for dag.h.

   From a seed it generates a random program: tasks over four shared buffers
   (A: 64 int64, B: 128 int32, C: 64 double, M: 64 double used as an 8x8
   matrix) with In/Out/InOut spans that overlap partially or exactly (1-D
   ranges, rows, columns, 2-D tiles with any leading dimension, registered
   whole-buffer handles, the same span twice in one task), futures of
   earlier value tasks (converted between int32/int64/double like a C call,
   or a 32-byte struct passed whole), Val of scalars and of a descriptor
   struct, nested DAG_DATADEPS / DAG_SEQUENTIAL / DAG_BULK / DAG_WITH_OPTIONS
   blocks (macro and function forms, empty ones included), task bodies that
   spawn children over sub-spans of their own spans, fetches (a fetch spends
   the handle: fetched again it must be stale and write nothing, unless the
   task was spawned with keep_results, whose results are fetched again and
   passed as Futs after a fetch), dag_wait,
   dag_wait_all, setup/shutdown cycles with 1..4 workers and various
   throttles, priorities, scopes, names, dag_spawn_args, tiny busy-waits.

   Each program runs twice: (1) through dag.h; (2) as the sequential oracle,
   calling the same task bodies directly in spawn order. Every byte of every
   buffer and every fetched result must match. On top of that the dag.h run
   records a ticket (one global atomic counter) when each body starts and
   ends and when each wait returns, and checks afterwards that
     - every task ran exactly once, with the arguments it was given, and
       dag_get_stats counts each setup's tasks as spawned and run once;
     - tasks of one parent that touch a common element, one of them writing,
       ran in spawn order (the later one started after the earlier one and
       all its descendants ended); a Fut consumer after its producer;
     - the steps of a DAG_SEQUENTIAL ran one after another (a DAG_BULK or a
       nested waiting block being one step);
     - DAG_DATADEPS / DAG_SEQUENTIAL exits, dag_wait, dag_fetch, dag_wait_all
       returned only after the tasks they wait for had finished.

   Usage: test_fuzz [num_seeds [first_seed]]     (default 300 seeds from 1)
     FUZZ_PRINT=1      print each generated program before running it
     FUZZ_TIMEOUT=s    per-seed watchdog (default 120 s): a hang fails loudly
     FUZZ_VERBOSE=1    one line per seed
     FUZZ_TRACE=0|1    tracing off / on in every setup (default: 5% of setups)
     FUZZ_MAX_THREADS=n  setups use 1..n workers (default 4)
     FUZZ_SPIN=pct     this percentage of tasks busy-waits 1-30 us (default:
                       per seed, one of 0, 0, 5, 10, 20)
     FUZZ_SAFE_BULK=1  end every DAG_BULK inside a DAG_SEQUENTIAL with a direct
                       spawn: looks past the known bug where a bulk whose own
                       step is empty (no direct spawn, or only a nested
                       DAG_BULK) drops the sequence's predecessor
   Replay one seed: FUZZ_PRINT=1 ./test_fuzz 1 SEED */
#define _POSIX_C_SOURCE 200809L
#define DAG_IMPLEMENTATION
#include "dag.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

/* ------------------------------------------------------------------ */
/* limits and buffers */

enum { MAXT = 320, MAXI = 4096, MAXB = 2048, MAXR = 1024, MAXSTEPS = 4096, MAXEPOCH = 4 };
enum { NBUF = 4, NELEM = 320, NWORD = 5 };
enum { M_R = 1, M_W = 2, M_RW = 3 };
enum { SH_1D = 0, SH_2D = 1, SH_DATA = 2 };

static const int buf_len[NBUF] = {64, 128, 64, 64};
static const int buf_base[NBUF] = {0, 64, 192, 256};
static const char *const buf_name[NBUF] = {"A(int64)", "B(int32)", "C(double)", "M(double 8x8)"};

typedef struct fz_bufs {
    int64_t a[64];
    int32_t b[128];
    double c[64];
    double m[64];
} fz_bufs;
static fz_bufs g_buf, g_init, g_oracle_buf;

static size_t buf_esize(int b) { return b == 1 ? 4 : 8; }
static char *buf_ptr(int b) {
    switch (b) {
    case 0: return (char *)g_buf.a;
    case 1: return (char *)g_buf.b;
    case 2: return (char *)g_buf.c;
    default: return (char *)g_buf.m;
    }
}
static const char *snap_ptr(const fz_bufs *s, int b) {
    switch (b) {
    case 0: return (const char *)s->a;
    case 1: return (const char *)s->b;
    case 2: return (const char *)s->c;
    default: return (const char *)s->m;
    }
}

/* ------------------------------------------------------------------ */
/* the program */

typedef struct fz_span {
    uint8_t buf, mode, shape, pad;
    uint16_t off, rows, cols, ld;   /* 1-D: rows 1, cols = n, ld = n */
} fz_span;

typedef struct fz_desc {            /* passed by Val to most kinds */
    uint32_t id;
    uint8_t nspans, spin;
    uint16_t pad;
    uint64_t salt;
    fz_span s[3];
} fz_desc;

typedef struct fz_big { uint64_t a, b, c, d; } fz_big;   /* a result over 16 bytes */

enum { K0, K1, K2, K3, KF, KS, KB, NKIND };
static const char *const kind_name[NKIND] = {"k0", "k1", "k2", "k3", "kf", "ks", "kb"};
static const int kind_spans[NKIND] = {0, 1, 2, 3, 1, 2, 1};
/* result: 0 void, 1 int64, 2 int32, 3 fz_big */
static const int kind_res[NKIND] = {1, 1, 1, 0, 1, 2, 3};

enum { VIA_SPAWN, VIA_WITH, VIA_ARGS };

typedef struct fz_task {
    int kind, ctx, child, holder, epoch;
    fz_desc d;
    int fut[2];          /* producer task or -1 */
    int vtype[2];        /* how a Val is written: see fz_spawn_dag */
    int64_t v0;
    double v1;
    fz_big vb;
    int via, prio, named, scope_kind, scope_a, scope_b;
    int gen_fetched;
    int keep;            /* spawned with keep_results: fetches leave the result */
    int spent;           /* generator: fetched without keep, so the handle is spent */
    uint64_t rmask[NWORD], wmask[NWORD];
} fz_task;

enum { IT_SPAWN, IT_REGION, IT_FETCH, IT_WAIT, IT_WAITALL, IT_CYCLE, IT_STALE, IT_SPENT };
typedef struct fz_item {
    int kind;
    int arg;      /* task, region or (cycle) new epoch */
    int block;    /* region: its block */
    int how;      /* region: 0 macro, 1 function form; waitall: ctx */
    int upto;     /* waitall/cycle: tasks spawned before it */
} fz_item;

typedef struct fz_block { int *items; int n, cap; } fz_block;

typedef struct fz_region {
    int kind, ctx, prio, named, thread, with_opts;
    int *tasks;   /* spawned inside, same context, nested blocks included */
    int ntasks, cap;
} fz_region;

typedef struct fz_step { int seq, task, region; } fz_step;   /* task >= 0 or region >= 0 */

typedef struct fz_epoch { int threads, throttle, trace; } fz_epoch;

static struct {
    fz_task tasks[MAXT];
    int ntasks;
    fz_item items[MAXI];
    int nitems;
    fz_block blocks[MAXB];
    int nblocks;
    fz_region regions[MAXR];
    int nregions;
    fz_step steps[MAXSTEPS];
    int nsteps;
    fz_epoch epochs[MAXEPOCH];
    int nepochs;
    int root;
    int spin_pct, child_pct;
    int nspent;   /* IT_SPENT items: each logs one stale handle */
} P;

/* ------------------------------------------------------------------ */
/* random numbers */

static uint64_t g_rng;
static uint64_t fz_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}
static uint64_t rnd(void) { return fz_mix(g_rng += 0x9E3779B97F4A7C15ull); }
static int rn(int n) { return n <= 1 ? 0 : (int)(rnd() % (uint64_t)n); }
static int chance(int pct) { return rn(100) < pct; }
static int imin(int a, int b) { return a < b ? a : b; }

/* ------------------------------------------------------------------ */
/* run state */

static int g_oracle;                       /* 1: run bodies directly */
static int g_epoch;
static dag_task g_handle[MAXT];
static fz_big g_ores[MAXT], g_dres[MAXT];
static int g_dfetched[MAXT];
static dag_data g_data[NBUF];
static _Atomic uint64_t g_clock;
static _Atomic uint64_t g_start[MAXT], g_end[MAXT], g_item_ticket[MAXI];
static _Atomic int g_runs[MAXT];
static _Atomic int g_body_errors;
static _Atomic int g_logs;
static int g_expected_logs;
static _Atomic int g_quiet_log;
static char g_body_msg[256];
static _Atomic int g_body_msg_taken;
static uint64_t g_seed;
static int g_seed_failures;
static int g_print, g_verbose, g_force_trace;

static void fz_fail(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void fz_fail(const char *fmt, ...) {
    g_seed_failures++;
    if (g_seed_failures > 12) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  seed %" PRIu64 ": ", g_seed);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (g_seed_failures == 12) fprintf(stderr, "  seed %" PRIu64 ": (more failures not shown)\n", g_seed);
}

/* a body found something wrong (may run on any thread) */
static void fz_body_error(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void fz_body_error(const char *fmt, ...) {
    atomic_fetch_add(&g_body_errors, 1);
    if (atomic_exchange(&g_body_msg_taken, 1)) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_body_msg, sizeof g_body_msg, fmt, ap);
    va_end(ap);
}

static void fz_logger(dag_log_level level, int item, const char *message, void *user) {
    if (level == DAG_LOG_INFO) return;   /* what the runtime found (backends): not a complaint */
    (void)user;
    atomic_fetch_add(&g_logs, 1);
    if (!atomic_load(&g_quiet_log))
        fprintf(stderr, "  seed %" PRIu64 ": dag.h logged (level %d, %s): %s\n", g_seed, (int)level,
                dag_result_string(item), message);
}

static uint64_t fz_tick(void) { return atomic_fetch_add(&g_clock, 1) + 1; }

/* ------------------------------------------------------------------ */
/* task bodies */

static void fz_exec_block(int b);

static char *fz_elem(int b, int index) { return buf_ptr(b) + (size_t)index * buf_esize(b); }

static uint64_t fz_load(int b, const char *p) {
    if (b == 0) { int64_t v; memcpy(&v, p, 8); return (uint64_t)v; }
    if (b == 1) { int32_t v; memcpy(&v, p, 4); return (uint32_t)v; }
    uint64_t u;
    memcpy(&u, p, 8);
    return u;
}

static void fz_store(int b, char *p, uint64_t x, int read_old) {
    if (b == 0) {
        int64_t old = 0;
        if (read_old) memcpy(&old, p, 8);
        int64_t v = (int64_t)(x ^ ((uint64_t)old * 3u));
        memcpy(p, &v, 8);
    } else if (b == 1) {
        int32_t old = 0;
        if (read_old) memcpy(&old, p, 4);
        int32_t v = (int32_t)(uint32_t)(x ^ ((uint64_t)(uint32_t)old * 5u));
        memcpy(p, &v, 4);
    } else {
        double old = 0;
        if (read_old) memcpy(&old, p, 8);
        double v = (double)(int64_t)(x >> 40) / 1024.0 + (read_old ? old * 0.25 : 0.0);
        memcpy(p, &v, 8);
    }
}

/* The body of every task: read every In/InOut element, spin, write every
   Out/InOut element as a function of (id, element, what was read, the
   value arguments), then run the task's own child block. Touches exactly
   the declared elements, through the program's (trusted) descriptor. */
static uint64_t fz_body(uint32_t id, const void *const got[3], uint64_t extra) {
    const fz_task *T = &P.tasks[id];
    const fz_desc *d = &T->d;
    if (!g_oracle) {
        atomic_store(&g_start[id], fz_tick());
        atomic_fetch_add(&g_runs[id], 1);
        for (int i = 0; i < d->nspans; i++) {
            const char *want = fz_elem(d->s[i].buf, d->s[i].off);
            if (got[i] != want)
                fz_body_error("task t%u: span argument %d is %p, expected %p", id, i, got[i], (const void *)want);
        }
    }
    uint64_t h = fz_mix(0x5EED0000ull + id) ^ d->salt ^ fz_mix(extra);
    for (int i = 0; i < d->nspans; i++) {
        const fz_span *s = &d->s[i];
        if (!(s->mode & M_R)) continue;
        for (int r = 0; r < s->rows; r++)
            for (int c = 0; c < s->cols; c++)
                h = fz_mix(h ^ fz_load(s->buf, fz_elem(s->buf, s->off + r * s->ld + c))) + (uint64_t)i;
    }
    if (d->spin && !g_oracle) test_spin_us(d->spin);
    uint64_t k = 0;
    for (int i = 0; i < d->nspans; i++) {
        const fz_span *s = &d->s[i];
        if (!(s->mode & M_W)) continue;
        for (int r = 0; r < s->rows; r++)
            for (int c = 0; c < s->cols; c++, k++)
                fz_store(s->buf, fz_elem(s->buf, s->off + r * s->ld + c), fz_mix(h + k * 0x9E3779B97F4A7C15ull + (uint64_t)i),
                         s->mode & M_R);
    }
    h = fz_mix(h ^ k);
    if (T->child >= 0) fz_exec_block(T->child);
    if (!g_oracle) atomic_store(&g_end[id], fz_tick());
    return h;
}

static int fz_id_ok(uint32_t id, int kind) {
    if (id >= (uint32_t)P.ntasks || P.tasks[id].kind != kind) {
        fz_body_error("a %s body got task id %u (%d tasks)", kind_name[kind], id, P.ntasks);
        return 0;
    }
    return 1;
}
static void fz_check_desc(const fz_desc *d) {
    if (!g_oracle && memcmp(d, &P.tasks[d->id].d, sizeof *d) != 0)
        fz_body_error("task t%u: the Val(desc) argument arrived changed", d->id);
}

/* arithmetic value of a finished producer, from the oracle's results */
static int64_t fz_prod_i64(int p) {
    if (kind_res[P.tasks[p].kind] == 2) { int32_t v; memcpy(&v, &g_ores[p], 4); return v; }
    int64_t v;
    memcpy(&v, &g_ores[p], 8);
    return v;
}
static double fz_prod_f64(int p) {
    if (kind_res[P.tasks[p].kind] == 2) { int32_t v; memcpy(&v, &g_ores[p], 4); return (double)v; }
    int64_t v;
    memcpy(&v, &g_ores[p], 8);
    return (double)v;
}
/* what the f0 / f1 / in parameter must be */
static int64_t fz_want_f0(const fz_task *T) { return T->fut[0] >= 0 ? fz_prod_i64(T->fut[0]) : T->v0; }
static double fz_want_f1(const fz_task *T) { return T->fut[1] >= 0 ? fz_prod_f64(T->fut[1]) : T->v1; }
static fz_big fz_want_in(const fz_task *T) { return T->fut[0] >= 0 ? g_ores[T->fut[0]] : T->vb; }

static uint64_t fz_dbits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }

DAG_TASK(int64_t, fz_k0, (int64_t, f0), (uint32_t, id)) {
    if (!fz_id_ok(id, K0)) return 0;
    if (!g_oracle && f0 != fz_want_f0(&P.tasks[id]))
        fz_body_error("task t%u: f0 = %lld, expected %lld", id, (long long)f0, (long long)fz_want_f0(&P.tasks[id]));
    const void *p[3] = {NULL, NULL, NULL};
    return (int64_t)fz_body(id, p, (uint64_t)f0);
}

DAG_TASK(int64_t, fz_k1, (void *, a), (fz_desc, d)) {
    if (!fz_id_ok(d.id, K1)) return 0;
    fz_check_desc(&d);
    const void *p[3] = {a, NULL, NULL};
    return (int64_t)fz_body(d.id, p, 1);
}

DAG_TASK(int64_t, fz_k2, (const void *, a), (void *, b), (fz_desc, d)) {
    if (!fz_id_ok(d.id, K2)) return 0;
    fz_check_desc(&d);
    const void *p[3] = {a, b, NULL};
    return (int64_t)fz_body(d.id, p, 2);
}

DAG_TASK(void, fz_k3, (void *, a), (void *, b), (void *, c), (fz_desc, d)) {
    if (!fz_id_ok(d.id, K3)) return;
    fz_check_desc(&d);
    const void *p[3] = {a, b, c};
    (void)fz_body(d.id, p, 3);
}

DAG_TASK(int64_t, fz_kf, (void *, a), (int64_t, f0), (double, f1), (uint32_t, id)) {
    if (!fz_id_ok(id, KF)) return 0;
    const fz_task *T = &P.tasks[id];
    if (!g_oracle && (f0 != fz_want_f0(T) || fz_dbits(f1) != fz_dbits(fz_want_f1(T))))
        fz_body_error("task t%u: (f0, f1) = (%lld, %.17g), expected (%lld, %.17g)", id, (long long)f0, f1,
                      (long long)fz_want_f0(T), fz_want_f1(T));
    const void *p[3] = {a, NULL, NULL};
    return (int64_t)fz_body(id, p, (uint64_t)f0 * 31u ^ fz_dbits(f1));
}

DAG_TASK(int32_t, fz_ks, (void *, a), (void *, b), (unsigned short, id)) {
    if (!fz_id_ok(id, KS)) return 0;
    const void *p[3] = {a, b, NULL};
    return (int32_t)(uint32_t)fz_body(id, p, 5);
}

DAG_TASK(fz_big, fz_kb, (void *, a), (fz_big, in), (fz_desc, d)) {
    fz_big r = {0, 0, 0, 0};
    if (!fz_id_ok(d.id, KB)) return r;
    fz_check_desc(&d);
    fz_big want = fz_want_in(&P.tasks[d.id]);
    if (!g_oracle && memcmp(&in, &want, sizeof in) != 0)
        fz_body_error("task t%u: the fz_big argument arrived changed", d.id);
    const void *p[3] = {a, NULL, NULL};
    uint64_t h = fz_body(d.id, p, in.a ^ in.b * 3u ^ in.c * 5u ^ in.d * 7u);
    r.a = h;
    r.b = fz_mix(h + 1) ^ in.a;
    r.c = in.b + h;
    r.d = in.c ^ in.d ^ 0xB16B16ull;
    return r;
}

/* ------------------------------------------------------------------ */
/* running a program: the oracle and dag.h through one interpreter */

static void *fz_span_ptr(const fz_task *T, int i) { return i < T->d.nspans ? fz_elem(T->d.s[i].buf, T->d.s[i].off) : NULL; }

static void fz_call_direct(int id) {
    const fz_task *T = &P.tasks[id];
    fz_big *r = &g_ores[id];
    memset(r, 0, sizeof *r);
    void *p0 = fz_span_ptr(T, 0), *p1 = fz_span_ptr(T, 1), *p2 = fz_span_ptr(T, 2);
    switch (T->kind) {
    case K0: { int64_t v = fz_k0(fz_want_f0(T), (uint32_t)id); memcpy(r, &v, 8); break; }
    case K1: { int64_t v = fz_k1(p0, T->d); memcpy(r, &v, 8); break; }
    case K2: { int64_t v = fz_k2(p0, p1, T->d); memcpy(r, &v, 8); break; }
    case K3: fz_k3(p0, p1, p2, T->d); break;
    case KF: { int64_t v = fz_kf(p0, fz_want_f0(T), fz_want_f1(T), (uint32_t)id); memcpy(r, &v, 8); break; }
    case KS: { int32_t v = fz_ks(p0, p1, (unsigned short)id); memcpy(r, &v, 4); break; }
    case KB: *r = fz_kb(p0, fz_want_in(T), T->d); break;
    default: break;
    }
}

#define FZ_SPAN_ARG(ptr) \
    do { \
        if (s->shape == SH_1D) \
            return s->mode == M_R ? In((ptr), s->cols) : s->mode == M_W ? Out((ptr), s->cols) : InOut((ptr), s->cols); \
        return s->mode == M_R ? In((ptr), s->rows, s->cols, s->ld) \
             : s->mode == M_W ? Out((ptr), s->rows, s->cols, s->ld) : InOut((ptr), s->rows, s->cols, s->ld); \
    } while (0)

static dag_arg fz_span_arg(const fz_span *s) {
    if (s->shape == SH_DATA) {
        dag_data h = g_data[s->buf];
        return s->mode == M_R ? In(h) : s->mode == M_W ? Out(h) : InOut(h);
    }
    switch (s->buf) {
    case 0: FZ_SPAN_ARG(g_buf.a + s->off);
    case 1: FZ_SPAN_ARG(g_buf.b + s->off);
    case 2: FZ_SPAN_ARG(g_buf.c + s->off);
    default: FZ_SPAN_ARG(g_buf.m + s->off);
    }
}

/* one spawn through dag.h: plain, dag_spawn_with options, or a run-time
   argument array */
#define FZ_SPAWN(name, ...) \
    do { \
        if (T->via == VIA_ARGS) { \
            dag_arg fz_args_[] = {__VA_ARGS__}; \
            h = dag_spawn_args(name, fz_args_, (int)(sizeof fz_args_ / sizeof fz_args_[0])); \
        } else if (T->via == VIA_WITH) { \
            h = dag_spawn_with(&o, name, __VA_ARGS__); \
        } else { \
            h = dag_spawn(name, __VA_ARGS__); \
        } \
    } while (0)

static void fz_spawn_dag(int id) {
    const fz_task *T = &P.tasks[id];
    dag_options o;
    memset(&o, 0, sizeof o);
    o.name = T->named ? "fz_named" : NULL;
    o.priority = T->prio;
    o.keep_results = T->keep;
    if (T->scope_kind == 1) o.scope = dag_scope(.thread = T->scope_a);
    if (T->scope_kind == 2) o.scope = dag_scope_union(dag_scope(.thread = T->scope_a), dag_scope(.threads = DAG_THREAD_BIT(T->scope_b)));
    if (T->scope_kind == 3) o.scope = dag_scope(.all_threads = 1);
    dag_arg s0 = T->d.nspans > 0 ? fz_span_arg(&T->d.s[0]) : Val(0);
    dag_arg s1 = T->d.nspans > 1 ? fz_span_arg(&T->d.s[1]) : Val(0);
    dag_arg s2 = T->d.nspans > 2 ? fz_span_arg(&T->d.s[2]) : Val(0);
    dag_task h;
    h.ptr = NULL;
    h.gen = 0;
    int64_t v0 = T->v0;
    int v0i = (int)T->v0;
    double v1 = T->v1;
    float v1f = (float)T->v1;
    long long v1ll = (long long)T->v1;
    uint32_t uid = (uint32_t)id;
    long lid = id;
    switch (T->kind) {
    case K0: {
        dag_arg f0 = T->fut[0] >= 0 ? Fut(g_handle[T->fut[0]]) : T->vtype[0] ? Val(v0i) : Val(v0);
        if (T->vtype[1]) FZ_SPAWN(fz_k0, f0, Val(lid));
        else FZ_SPAWN(fz_k0, f0, Val(uid));
        break;
    }
    case K1: FZ_SPAWN(fz_k1, s0, Val(T->d)); break;
    case K2: FZ_SPAWN(fz_k2, s0, s1, Val(T->d)); break;
    case K3: FZ_SPAWN(fz_k3, s0, s1, s2, Val(T->d)); break;
    case KF: {
        dag_arg f0 = T->fut[0] >= 0 ? Fut(g_handle[T->fut[0]]) : T->vtype[0] ? Val(v0i) : Val(v0);
        dag_arg f1 = T->fut[1] >= 0 ? Fut(g_handle[T->fut[1]])
                   : T->vtype[1] == 1 ? Val(v1f) : T->vtype[1] == 2 ? Val(v1ll) : Val(v1);
        FZ_SPAWN(fz_kf, s0, f0, f1, Val(uid));
        break;
    }
    case KS:
        if (T->vtype[0]) FZ_SPAWN(fz_ks, s0, s1, Val((unsigned short)id));
        else FZ_SPAWN(fz_ks, s0, s1, Val(id));
        break;
    case KB: {
        dag_arg in = T->fut[0] >= 0 ? Fut(g_handle[T->fut[0]]) : Val(T->vb);
        FZ_SPAWN(fz_kb, s0, in, Val(T->d));
        break;
    }
    default: break;
    }
    if (!h.ptr) fz_body_error("spawn of t%d failed: %s", id, dag_result_string((int)h.gen));
    g_handle[id] = h;
}

static dag_result fz_fetch(int id, fz_big *out) {
    memset(out, 0, sizeof *out);
    switch (kind_res[P.tasks[id].kind]) {
    case 1: { int64_t v = 0; dag_result rc = dag_fetch(g_handle[id], &v); memcpy(out, &v, 8); return rc; }
    case 2: { int32_t v = 0; dag_result rc = dag_fetch(g_handle[id], &v); memcpy(out, &v, 4); return rc; }
    case 3: return dag_fetch(g_handle[id], out);
    default: return DAG_ERR_NO_RESULT;
    }
}

static void fz_setup_epoch(int e) {
    dag_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.num_threads = P.epochs[e].threads;
    desc.throttle = P.epochs[e].throttle;
    desc.trace = g_force_trace >= 0 ? g_force_trace : P.epochs[e].trace;
    desc.logger.func = fz_logger;
    dag_result rc = dag_setup(&desc);
    if (rc != DAG_OK) fz_body_error("dag_setup(%d threads) returned %s", desc.num_threads, dag_result_string(rc));
    if (dag_num_threads() != desc.num_threads)
        fz_body_error("dag_num_threads() = %d after dag_setup(%d)", dag_num_threads(), desc.num_threads);
    g_data[0] = dag_register(g_buf.a, 64);
    g_data[1] = dag_register(g_buf.b, 128);
    g_data[2] = dag_data_register(g_buf.c, 64, sizeof(double));
    g_data[3] = dag_register(g_buf.m, 64);
}

static uint64_t g_stolen, g_inlined, g_total_run;

static void fz_teardown_epoch(void) {
    /* everything has finished: the counters cover exactly this setup's tasks */
    dag_stats st = dag_get_stats();
    int n = 0;
    for (int t = 0; t < P.ntasks; t++) n += P.tasks[t].epoch == g_epoch;
    if (st.tasks_spawned != (uint64_t)n || st.tasks_run != (uint64_t)n)
        fz_body_error("dag_get_stats: %llu spawned, %llu run, expected %d each", (unsigned long long)st.tasks_spawned,
                      (unsigned long long)st.tasks_run, n);
    g_stolen += st.tasks_stolen;
    g_inlined += st.tasks_inlined;
    g_total_run += st.tasks_run;
    for (int b = 0; b < NBUF; b++) {
        dag_result rc = dag_data_unregister(g_data[b]);
        if (rc != DAG_OK) fz_body_error("dag_data_unregister returned %s", dag_result_string(rc));
    }
    if (g_force_trace >= 0 ? g_force_trace : P.epochs[g_epoch].trace) dag_trace_clear();
    dag_result rc = dag_shutdown();
    if (rc != DAG_OK) fz_body_error("dag_shutdown returned %s", dag_result_string(rc));
}

static void fz_region_dag(int it) {
    const fz_item *I = &P.items[it];
    const fz_region *R = &P.regions[I->arg];
    dag_result rc = DAG_OK;
    if (I->how == 0) {
        switch (R->kind) {
        case DAG_REGION_DATADEPS: DAG_DATADEPS { fz_exec_block(I->block); } break;
        case DAG_REGION_SEQUENTIAL: DAG_SEQUENTIAL { fz_exec_block(I->block); } break;
        case DAG_REGION_BULK: DAG_BULK { fz_exec_block(I->block); } break;
        default:
            /* one field each: DAG_WITH_OPTIONS with two designators does not
               compile (its __VA_ARGS__ commas split DAG__REGION_BLOCK's
               arguments); the function form below takes all three */
            if (R->prio) {
                DAG_WITH_OPTIONS(.priority = R->prio) { fz_exec_block(I->block); }
            } else if (R->thread) {
                DAG_WITH_OPTIONS(.scope = dag_scope(.thread = R->thread)) { fz_exec_block(I->block); }
            } else {
                DAG_WITH_OPTIONS(.name = R->named ? "fz_opts" : NULL) { fz_exec_block(I->block); }
            }
            break;
        }
        rc = dag_last_region_result();
    } else {
        dag_options o;
        memset(&o, 0, sizeof o);
        o.name = R->named ? "fz_opts" : NULL;
        o.scope.thread = R->thread;
        o.priority = R->prio;
        dag_region tok = dag_region_begin((dag_region_kind)R->kind, R->with_opts ? &o : NULL);
        fz_exec_block(I->block);
        rc = dag_region_end(tok);
    }
    atomic_store(&g_item_ticket[it], fz_tick());
    if (rc != DAG_OK) fz_body_error("region (item %d, kind %d) ended with %s", it, R->kind, dag_result_string(rc));
}

static void fz_exec_item(int it) {
    const fz_item *I = &P.items[it];
    if (g_oracle) {
        if (I->kind == IT_SPAWN) fz_call_direct(I->arg);
        else if (I->kind == IT_REGION) fz_exec_block(I->block);
        return;
    }
    switch (I->kind) {
    case IT_SPAWN: fz_spawn_dag(I->arg); break;
    case IT_REGION: fz_region_dag(it); break;
    case IT_FETCH: {
        dag_result rc = fz_fetch(I->arg, &g_dres[I->arg]);
        atomic_store(&g_item_ticket[it], fz_tick());
        if (rc != DAG_OK) fz_body_error("dag_fetch(t%d) returned %s", I->arg, dag_result_string(rc));
        else g_dfetched[I->arg] = 1;
        break;
    }
    case IT_WAIT: {
        dag_result rc = dag_wait(g_handle[I->arg]);
        atomic_store(&g_item_ticket[it], fz_tick());
        if (rc != DAG_OK) fz_body_error("dag_wait(t%d) returned %s", I->arg, dag_result_string(rc));
        break;
    }
    case IT_WAITALL: {
        dag_result rc = dag_wait_all();
        atomic_store(&g_item_ticket[it], fz_tick());
        if (rc != DAG_OK) fz_body_error("dag_wait_all returned %s", dag_result_string(rc));
        break;
    }
    case IT_CYCLE: {
        dag_result rc = dag_wait_all();
        atomic_store(&g_item_ticket[it], fz_tick());
        if (rc != DAG_OK) fz_body_error("dag_wait_all returned %s", dag_result_string(rc));
        fz_teardown_epoch();
        g_epoch = I->arg;
        fz_setup_epoch(g_epoch);
        break;
    }
    case IT_SPENT: {
        /* fetched before without keep_results: stale, and nothing written */
        fz_big v;
        memset(&v, 0xAB, sizeof v);
        fz_big before = v;
        static const size_t size[4] = {0, 8, 4, sizeof(fz_big)};
        atomic_store(&g_quiet_log, 1);   /* its log line is expected (P.nspent counts it) */
        dag_result rc = dag_fetch_bytes(g_handle[I->arg], &v, size[kind_res[P.tasks[I->arg].kind]]);
        atomic_store(&g_quiet_log, 0);
        if (rc != DAG_ERR_STALE_HANDLE) fz_body_error("dag_fetch(t%d) a second time returned %s", I->arg, dag_result_string(rc));
        else if (memcmp(&v, &before, sizeof v) != 0) fz_body_error("dag_fetch(t%d) a second time wrote its output", I->arg);
        break;
    }
    case IT_STALE: {
        /* the task's region has ended: its result is kept, so the right value */
        fz_big v;
        dag_result rc = fz_fetch(I->arg, &v);
        if (rc != DAG_OK) fz_body_error("late dag_fetch(t%d) returned %s", I->arg, dag_result_string(rc));
        else if (memcmp(&v, &g_ores[I->arg], sizeof v) != 0) fz_body_error("late dag_fetch(t%d) returned a wrong value", I->arg);
        break;
    }
    default: break;
    }
}

static void fz_exec_block(int b) {
    const fz_block *B = &P.blocks[b];
    for (int i = 0; i < B->n; i++) fz_exec_item(B->items[i]);
}

/* ------------------------------------------------------------------ */
/* the generator */

typedef struct gen_ctx {
    int ctx;                 /* -1: the program; else the parent task */
    int level;               /* 0 for the program, 1 for a child block ... */
    int holders[32];         /* open holders: [0] is the context's root */
    int nholders;
    int regions[32];         /* open regions of this context */
    int nregions;
    int seq, in_bulk;        /* governing DAG_SEQUENTIAL (region) or -1 */
    fz_span pspans[3];       /* child contexts: the parent's spans */
    int npspans;
} gen_ctx;

static int g_budget, g_next_holder, g_cycles;
static int g_max_threads = 4, g_spin_pct = -1;
static int g_safe_bulk;   /* FUZZ_SAFE_BULK=1: every DAG_BULK in a sequence ends with a spawn */
static fz_span g_pool[48];
static int g_npool;

static int new_block(void) {
    fz_block *B = &P.blocks[P.nblocks];
    B->n = 0;
    return P.nblocks++;
}
static void block_add(int b, int item) {
    fz_block *B = &P.blocks[b];
    if (B->n == B->cap) {
        B->cap = B->cap ? B->cap * 2 : 8;
        B->items = (int *)realloc(B->items, (size_t)B->cap * sizeof *B->items);
        if (!B->items) abort();
    }
    B->items[B->n++] = item;
}
static int new_item(int b, int kind, int arg) {
    int it = P.nitems++;
    memset(&P.items[it], 0, sizeof P.items[it]);
    P.items[it].kind = kind;
    P.items[it].arg = arg;
    P.items[it].block = -1;
    block_add(b, it);
    return it;
}
static void region_add(fz_region *R, int id) {
    if (R->ntasks == R->cap) {
        R->cap = R->cap ? R->cap * 2 : 8;
        R->tasks = (int *)realloc(R->tasks, (size_t)R->cap * sizeof *R->tasks);
        if (!R->tasks) abort();
    }
    R->tasks[R->ntasks++] = id;
}
static int room(void) {
    return P.ntasks < MAXT - 2 && P.nitems < MAXI - 64 && P.nblocks < MAXB - 4 && P.nregions < MAXR - 2 &&
           P.nsteps < MAXSTEPS - 4;
}

static int holder_open(const gen_ctx *g, int holder) {
    for (int i = 0; i < g->nholders; i++)
        if (g->holders[i] == holder) return 1;
    return 0;
}
/* a result that can still be fetched or used as a Fut here */
static int fetchable(const gen_ctx *g, int t) {
    const fz_task *T = &P.tasks[t];
    return T->ctx == g->ctx && T->epoch == P.nepochs - 1 && kind_res[T->kind] && holder_open(g, T->holder) && !T->spent;
}
/* a fetch takes the result unless it was spawned with keep_results */
static int gen_fetch_item(int b, int kind, int t) {
    fz_task *T = &P.tasks[t];
    if (!T->keep) T->spent = 1;
    return new_item(b, kind, t);
}
static int ok_spent(const gen_ctx *g, int t) {
    const fz_task *T = &P.tasks[t];
    return T->ctx == g->ctx && T->epoch == P.nepochs - 1 && T->spent;
}

static int pick_task(const gen_ctx *g, int (*ok)(const gen_ctx *, int)) {
    int cand[MAXT], n = 0;
    for (int t = 0; t < P.ntasks; t++)
        if (ok(g, t)) cand[n++] = t;
    return n ? cand[rn(n)] : -1;
}
static int ok_arith(const gen_ctx *g, int t) { return fetchable(g, t) && kind_res[P.tasks[t].kind] != 3; }
static int ok_big(const gen_ctx *g, int t) { return fetchable(g, t) && kind_res[P.tasks[t].kind] == 3; }
static int ok_wait(const gen_ctx *g, int t) { return P.tasks[t].ctx == g->ctx && P.tasks[t].epoch == P.nepochs - 1; }
static int ok_stale(const gen_ctx *g, int t) {
    const fz_task *T = &P.tasks[t];
    return g->ctx < 0 && T->ctx < 0 && T->epoch == P.nepochs - 1 && kind_res[T->kind] && !holder_open(g, T->holder) &&
           !T->spent;
}

static int rand_mode(void) {
    int r = rn(100);
    return r < 45 ? M_R : r < 65 ? M_W : M_RW;
}

static void span_1d(fz_span *s, int buf, int off, int n) {
    s->buf = (uint8_t)buf;
    s->shape = SH_1D;
    s->off = (uint16_t)off;
    s->rows = 1;
    s->cols = s->ld = (uint16_t)n;
}
static void span_2d(fz_span *s, int buf, int off, int rows, int cols, int ld) {
    s->buf = (uint8_t)buf;
    s->shape = SH_2D;
    s->off = (uint16_t)off;
    s->rows = (uint16_t)rows;
    s->cols = (uint16_t)cols;
    s->ld = (uint16_t)ld;
}

/* a tile of `rows` x `cols` with leading dimension ld inside [0, len) */
static void random_tile(fz_span *s, int buf, int base, int len) {
    int ld = 1 + rn(imin(16, len));
    int cols = 1 + rn(ld);
    int maxrows = (len - cols) / ld + 1;
    int rows = 1 + rn(imin(maxrows, 9));
    int extent = (rows - 1) * ld + cols;
    int off = base + rn(len - extent + 1);
    if (rows == 1 && chance(50)) span_1d(s, buf, off, cols);
    else span_2d(s, buf, off, rows, cols, ld);
}

static void gen_span_top(fz_span *s) {
    memset(s, 0, sizeof *s);
    if (g_npool && chance(25)) {        /* an exact repeat of an earlier span */
        *s = g_pool[rn(g_npool)];
        s->mode = (uint8_t)rand_mode();
        return;
    }
    int b = rn(NBUF), N = buf_len[b], r = rn(100);
    if (r < 4) {
        span_1d(s, b, 0, N);
        s->shape = SH_DATA;
    } else if (b == 3 && r < 85) {       /* the 8x8 matrix: rows, columns, tiles */
        int k = rn(6);
        if (k == 0) span_1d(s, b, 8 * rn(8), 8);                       /* a row */
        else if (k == 1) span_2d(s, b, rn(8), 8, 1, 8);                 /* a column */
        else if (k == 2) span_1d(s, b, 0, 64);                          /* all */
        else if (k == 3) { int r0 = rn(8), n = 1 + rn(8 - r0); span_1d(s, b, 8 * r0, 8 * n); }   /* whole rows */
        else {                                                          /* a tile */
            int r0 = rn(8), c0 = rn(8), nr = 1 + rn(8 - r0), nc = 1 + rn(8 - c0);
            span_2d(s, b, 8 * r0 + c0, nr, nc, 8);
        }
    } else if (r < 35) {
        random_tile(s, b, 0, N);
    } else {
        int off = rn(N);
        int n = 1 + rn(chance(60) ? imin(8, N - off) : N - off);
        span_1d(s, b, off, n);
    }
    s->mode = (uint8_t)rand_mode();
    if (g_npool < (int)(sizeof g_pool / sizeof g_pool[0])) g_pool[g_npool++] = *s;
    else g_pool[rn(g_npool)] = *s;
}

/* a piece of one of the parent's spans, with a mode the parent allows */
static void gen_span_child(const gen_ctx *g, fz_span *s) {
    fz_span p = g->pspans[rn(g->npspans)];
    memset(s, 0, sizeof *s);
    if (p.shape != SH_2D && chance(30)) {
        random_tile(s, p.buf, p.off, p.cols);
    } else {
        int r0 = rn(p.rows), nr = 1 + rn(p.rows - r0), c0 = rn(p.cols), nc = 1 + rn(p.cols - c0);
        int off = p.off + r0 * p.ld + c0;
        if (nr == 1 && chance(70)) span_1d(s, p.buf, off, nc);
        else span_2d(s, p.buf, off, nr, nc, p.ld);
    }
    if (p.shape == SH_DATA && chance(50)) *s = p;
    s->mode = (uint8_t)(p.mode == M_R ? M_R : rand_mode());
}

static void mask_span(fz_task *T, const fz_span *s) {
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            int e = buf_base[s->buf] + s->off + r * s->ld + c;
            if (s->mode & M_R) T->rmask[e / 64] |= 1ull << (e % 64);
            if (s->mode & M_W) T->wmask[e / 64] |= 1ull << (e % 64);
        }
}

static int gen_block(gen_ctx *g, int depth, int max_items);

static void add_step(int seq, int task, int region) {
    fz_step *s = &P.steps[P.nsteps++];
    s->seq = seq;
    s->task = task;
    s->region = region;
}

static void gen_fetch_before_close(gen_ctx *g, int b, int holder, int pct) {
    for (int t = 0; t < P.ntasks; t++) {
        fz_task *T = &P.tasks[t];
        if (T->ctx == g->ctx && T->holder == holder && kind_res[T->kind] && !T->gen_fetched && !T->spent && chance(pct)) {
            gen_fetch_item(b, IT_FETCH, t);
            T->gen_fetched = 1;
        }
    }
}

static void gen_spawn(gen_ctx *g, int b) {
    int id = P.ntasks;   /* counted once its futures are chosen, so it cannot pick itself */
    fz_task *T = &P.tasks[id];
    memset(T, 0, sizeof *T);
    T->ctx = g->ctx;
    T->child = -1;
    T->holder = g->holders[g->nholders - 1];
    T->epoch = P.nepochs - 1;
    T->fut[0] = T->fut[1] = -1;
    if (g->ctx >= 0 && g->npspans == 0) {
        T->kind = K0;
    } else {
        static const int w[NKIND] = {8, 20, 20, 14, 14, 12, 12};
        int r = rn(100), k = 0;
        while (r >= w[k]) r -= w[k++];
        T->kind = k;
    }
    T->d.id = (uint32_t)id;
    T->d.nspans = (uint8_t)kind_spans[T->kind];
    T->d.salt = rnd();
    if (chance(P.spin_pct)) T->d.spin = (uint8_t)(1 + rn(30));
    for (int i = 0; i < T->d.nspans; i++) {
        if (i > 0 && chance(10)) {                 /* the same span again, maybe another mode */
            T->d.s[i] = T->d.s[rn(i)];
            T->d.s[i].mode = (uint8_t)(g->ctx >= 0 && T->d.s[i].mode == M_R ? M_R : rand_mode());
        } else if (g->ctx >= 0) {
            gen_span_child(g, &T->d.s[i]);
        } else {
            gen_span_top(&T->d.s[i]);
        }
        mask_span(T, &T->d.s[i]);
    }
    T->v0 = (int64_t)(rnd() >> 1) - (int64_t)(rnd() >> 1);
    T->vtype[0] = rn(2);
    if (T->vtype[0]) T->v0 = (int)(int32_t)T->v0;
    T->vtype[1] = rn(3);
    T->v1 = (double)(rn(200001) - 100000) / (T->vtype[1] == 2 ? 1.0 : 4.0);
    T->vb.a = rnd(), T->vb.b = rnd(), T->vb.c = rnd(), T->vb.d = rnd();
    if (T->kind == K0 && chance(70)) T->fut[0] = pick_task(g, ok_arith);
    if (T->kind == KF) {
        if (chance(50)) T->fut[0] = pick_task(g, ok_arith);
        if (chance(50)) T->fut[1] = pick_task(g, ok_arith);
    }
    if (T->kind == KB && chance(60)) T->fut[0] = pick_task(g, ok_big);
    P.ntasks++;
    int r = rn(100);
    T->via = r < 20 ? VIA_WITH : r < 35 ? VIA_ARGS : VIA_SPAWN;
    if (kind_res[T->kind] && chance(25)) {   /* options carry keep_results */
        T->keep = 1;
        T->via = VIA_WITH;
    }
    if (T->via == VIA_WITH) {
        if (chance(50)) T->prio = 1 + rn(5);
        T->named = chance(30);
        if (chance(40)) {
            int nt = P.epochs[P.nepochs - 1].threads;
            T->scope_kind = 1 + rn(3);
            T->scope_a = 1 + rn(nt);
            T->scope_b = 1 + rn(nt);
        }
    }
    for (int i = 0; i < g->nregions; i++) region_add(&P.regions[g->regions[i]], id);
    if (g->seq >= 0 && !g->in_bulk) add_step(g->seq, id, -1);
    g_budget--;
    if (g->level < 2 && chance(P.child_pct) && g_budget > 2 && room()) {
        gen_ctx c;
        memset(&c, 0, sizeof c);
        c.ctx = id;
        c.level = g->level + 1;
        c.holders[0] = g_next_holder++;
        c.nholders = 1;
        c.seq = -1;
        c.npspans = T->d.nspans;
        for (int i = 0; i < T->d.nspans; i++) c.pspans[i] = T->d.s[i];
        int cb = gen_block(&c, 0, 1 + rn(8));
        gen_fetch_before_close(&c, cb, c.holders[0], 50);
        if (chance(30)) {
            int w = new_item(cb, IT_WAITALL, 0);
            P.items[w].how = id;
            P.items[w].upto = P.ntasks;
        }
        T->child = cb;
    }
    new_item(b, IT_SPAWN, id);
}

static void gen_region(gen_ctx *g, int b, int depth) {
    int rid = P.nregions++;
    fz_region *R = &P.regions[rid];
    memset(R, 0, sizeof *R);
    R->ctx = g->ctx;
    int r = rn(100);
    if (g->seq >= 0 && !g->in_bulk)
        R->kind = r < 40 ? DAG_REGION_BULK : r < 60 ? DAG_REGION_DATADEPS : r < 80 ? DAG_REGION_SEQUENTIAL : DAG_REGION_OPTIONS;
    else
        R->kind = r < 35 ? DAG_REGION_DATADEPS : r < 70 ? DAG_REGION_SEQUENTIAL : r < 82 ? DAG_REGION_BULK : DAG_REGION_OPTIONS;
    int how = rn(2);
    if (R->kind == DAG_REGION_OPTIONS || (how && chance(30))) {
        R->with_opts = 1;
        if (chance(60)) R->prio = 1 + rn(5);
        if (chance(30)) R->thread = 1 + rn(P.epochs[P.nepochs - 1].threads);
        R->named = chance(30);
    }
    int waits = R->kind == DAG_REGION_DATADEPS || R->kind == DAG_REGION_SEQUENTIAL;
    int saved_seq = g->seq, saved_bulk = g->in_bulk;
    g->regions[g->nregions++] = rid;
    if (waits) g->holders[g->nholders++] = g_next_holder++;
    if (R->kind == DAG_REGION_DATADEPS) g->seq = -1, g->in_bulk = 0;
    if (R->kind == DAG_REGION_SEQUENTIAL) g->seq = rid, g->in_bulk = 0;
    if (R->kind == DAG_REGION_BULK && g->seq >= 0) g->in_bulk = 1;
    int n = chance(12) ? 0 : 1 + rn(9);
    int cb = gen_block(g, depth + 1, n);
    if (g_safe_bulk && R->kind == DAG_REGION_BULK && g->in_bulk && room()) gen_spawn(g, cb);
    if (waits) {
        gen_fetch_before_close(g, cb, g->holders[g->nholders - 1], 80);
        g->nholders--;
    }
    g->nregions--;
    g->seq = saved_seq;
    g->in_bulk = saved_bulk;
    int it = new_item(b, IT_REGION, rid);
    P.items[it].block = cb;
    P.items[it].how = how;
    if (g->seq >= 0 && !g->in_bulk && R->kind != DAG_REGION_OPTIONS) add_step(g->seq, -1, rid);
}

static void gen_waitall(gen_ctx *g, int b, int cycle) {
    gen_fetch_before_close(g, b, g->holders[0], 80);
    int it;
    if (cycle) {
        fz_epoch *e = &P.epochs[P.nepochs];
        static const int throttles[] = {0, 1, 2, 4, 64};
        e->threads = 1 + rn(g_max_threads);
        e->throttle = throttles[rn(5)];
        e->trace = chance(5);
        it = new_item(b, IT_CYCLE, P.nepochs++);
        g_cycles++;
    } else {
        it = new_item(b, IT_WAITALL, 0);
    }
    P.items[it].how = g->ctx;
    P.items[it].upto = P.ntasks;
    g->holders[0] = g_next_holder++;
}

static int gen_block(gen_ctx *g, int depth, int max_items) {
    int b = new_block();
    for (int i = 0; i < max_items && g_budget > 0 && room(); i++) {
        int r = rn(100), t;
        if (r < 58) gen_spawn(g, b);
        else if (r < 72 && depth < 4) gen_region(g, b, depth);
        else if (r < 82 && (t = pick_task(g, fetchable)) >= 0) {
            gen_fetch_item(b, IT_FETCH, t);
            P.tasks[t].gen_fetched = 1;
        } else if (r < 86 && (t = pick_task(g, ok_wait)) >= 0) new_item(b, IT_WAIT, t);
        else if (r < 89 && depth == 0) gen_waitall(g, b, 0);
        else if (r < 90 && depth == 0 && g->ctx < 0 && P.nepochs < MAXEPOCH) gen_waitall(g, b, 1);
        else if (r < 92 && (t = pick_task(g, ok_stale)) >= 0) gen_fetch_item(b, IT_STALE, t);
        else if (r < 93 && (t = pick_task(g, ok_spent)) >= 0) {
            new_item(b, IT_SPENT, t);
            P.nspent++;
        }
        else gen_spawn(g, b);
    }
    return b;
}

static void fz_free_program(void) {
    for (int b = 0; b < MAXB; b++) {
        free(P.blocks[b].items);
        P.blocks[b].items = NULL;
        P.blocks[b].cap = 0;
    }
    for (int r = 0; r < MAXR; r++) {
        free(P.regions[r].tasks);
        P.regions[r].tasks = NULL;
    }
}

static void fz_generate(uint64_t seed) {
    fz_free_program();
    memset(&P, 0, sizeof P);
    g_rng = fz_mix(seed * 0x2545F4914F6CDD1Dull + 17);
    g_budget = 20 + rn(181);
    g_next_holder = 1;
    g_cycles = 0;
    g_npool = 0;
    static const int spins[] = {0, 0, 5, 10, 20};
    P.spin_pct = g_spin_pct >= 0 ? g_spin_pct : spins[rn(5)];
    P.child_pct = chance(70) ? 10 : 0;
    static const int throttles[] = {0, 1, 2, 4, 64};
    P.epochs[0].threads = 1 + rn(g_max_threads);
    P.epochs[0].throttle = throttles[rn(5)];
    P.epochs[0].trace = chance(5);
    P.nepochs = 1;
    gen_ctx g;
    memset(&g, 0, sizeof g);
    g.ctx = -1;
    g.holders[0] = g_next_holder++;
    g.nholders = 1;
    g.seq = -1;
    P.root = gen_block(&g, 0, 1 << 30);
    gen_waitall(&g, P.root, 0);   /* fetch what is left, then wait for everything */
}

/* ------------------------------------------------------------------ */
/* printing a program (FUZZ_PRINT=1) */

static void print_span(const fz_span *s) {
    static const char *const mode[4] = {"?", "In", "Out", "InOut"};
    static const char *const letter = "ABCM";
    if (s->shape == SH_DATA) printf("%s(data %c)", mode[s->mode], letter[s->buf]);
    else if (s->shape == SH_1D) printf("%s(%c+%d, %d)", mode[s->mode], letter[s->buf], s->off, s->cols);
    else printf("%s(%c+%d, %d, %d, %d)", mode[s->mode], letter[s->buf], s->off, s->rows, s->cols, s->ld);
}

static void print_block(int b, int indent);
static void print_item(int it, int indent) {
    const fz_item *I = &P.items[it];
    printf("%*s", indent, "");
    switch (I->kind) {
    case IT_SPAWN: {
        const fz_task *T = &P.tasks[I->arg];
        printf("t%d = %s(", I->arg, kind_name[T->kind]);
        for (int i = 0; i < T->d.nspans; i++) {
            print_span(&T->d.s[i]);
            printf(", ");
        }
        if (T->kind == K0 || T->kind == KF) {
            if (T->fut[0] >= 0) printf("Fut(t%d), ", T->fut[0]);
            else printf("Val(%s%lld), ", T->vtype[0] ? "(int)" : "", (long long)T->v0);
        }
        if (T->kind == KF) {
            if (T->fut[1] >= 0) printf("Fut(t%d), ", T->fut[1]);
            else printf("Val(%s%g), ", T->vtype[1] == 1 ? "(float)" : T->vtype[1] == 2 ? "(long long)" : "", T->v1);
        }
        if (T->kind == KB) {
            if (T->fut[0] >= 0) printf("Fut(t%d), ", T->fut[0]);
            else printf("Val(big), ");
        }
        fputs(T->kind == K0 || T->kind == KF || T->kind == KS ? "Val(id))" : "Val(desc))", stdout);
        if (T->d.spin) printf(" spin=%dus", T->d.spin);
        if (T->via == VIA_ARGS) printf(" via=dag_spawn_args");
        if (T->via == VIA_WITH)
            printf(" via=dag_spawn_with(prio=%d named=%d keep=%d scope=%d:%d,%d)", T->prio, T->named, T->keep, T->scope_kind, T->scope_a,
                   T->scope_b);
        if (T->child >= 0) {
            printf(" body {\n");
            print_block(T->child, indent + 4);
            printf("%*s}", indent, "");
        }
        printf("\n");
        break;
    }
    case IT_REGION: {
        static const char *const names[] = {"?", "DAG_DATADEPS", "DAG_SEQUENTIAL", "DAG_BULK", "DAG_WITH_OPTIONS"};
        const fz_region *R = &P.regions[I->arg];
        printf("%s%s", names[R->kind], I->how ? " (function form)" : "");
        if (R->with_opts) printf(" (prio=%d thread=%d named=%d)", R->prio, R->thread, R->named);
        printf(" {\n");
        print_block(I->block, indent + 4);
        printf("%*s}\n", indent, "");
        break;
    }
    case IT_FETCH: printf("dag_fetch(t%d)\n", I->arg); break;
    case IT_WAIT: printf("dag_wait(t%d)\n", I->arg); break;
    case IT_WAITALL: printf("dag_wait_all()\n"); break;
    case IT_CYCLE:
        printf("dag_wait_all(); dag_shutdown(); dag_setup(threads=%d throttle=%d trace=%d)\n", P.epochs[I->arg].threads,
               P.epochs[I->arg].throttle, P.epochs[I->arg].trace);
        break;
    case IT_STALE: printf("late dag_fetch(t%d) (the kept result)\n", I->arg); break;
    case IT_SPENT: printf("dag_fetch(t%d) again: stale\n", I->arg); break;
    default: break;
    }
}
static void print_block(int b, int indent) {
    for (int i = 0; i < P.blocks[b].n; i++) print_item(P.blocks[b].items[i], indent);
}
static void print_program(uint64_t seed) {
    printf("---- program of seed %" PRIu64 ": %d tasks, dag_setup(threads=%d throttle=%d trace=%d)\n", seed, P.ntasks,
           P.epochs[0].threads, P.epochs[0].throttle, P.epochs[0].trace);
    print_block(P.root, 2);
    printf("---- end of program\n");
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* checks */

static uint64_t g_finish[MAXT];

static int conflict(const fz_task *a, const fz_task *b) {
    for (int w = 0; w < NWORD; w++)
        if ((a->wmask[w] & (b->rmask[w] | b->wmask[w])) | (a->rmask[w] & b->wmask[w])) return 1;
    return 0;
}

static void check_order(void) {
    for (int t = 0; t < P.ntasks; t++) {
        int runs = atomic_load(&g_runs[t]);
        if (runs != 1) fz_fail("task t%d ran %d times", t, runs);
        g_finish[t] = atomic_load(&g_end[t]);
    }
    if (g_seed_failures) return;
    for (int t = P.ntasks - 1; t >= 0; t--) {   /* a task finishes with its descendants */
        int p = P.tasks[t].ctx;
        if (p >= 0 && g_finish[t] > g_finish[p]) g_finish[p] = g_finish[t];
    }
    for (int j = 0; j < P.ntasks; j++) {
        const fz_task *J = &P.tasks[j];
        uint64_t sj = atomic_load(&g_start[j]);
        for (int i = 0; i < j; i++) {
            const fz_task *I = &P.tasks[i];
            if (I->ctx == J->ctx && conflict(I, J) && !(g_finish[i] < sj))
                fz_fail("order: t%d (%s) started at %" PRIu64 " before t%d (%s), which touches the same data, finished at %" PRIu64,
                        j, kind_name[J->kind], sj, i, kind_name[I->kind], g_finish[i]);
        }
        for (int f = 0; f < 2; f++)
            if (J->fut[f] >= 0 && !(g_finish[J->fut[f]] < sj))
                fz_fail("order: t%d started before its Fut producer t%d finished", j, J->fut[f]);
    }
    for (int it = 0; it < P.nitems; it++) {
        const fz_item *I = &P.items[it];
        uint64_t tk = atomic_load(&g_item_ticket[it]);
        if (I->kind == IT_REGION) {
            const fz_region *R = &P.regions[I->arg];
            if (R->kind != DAG_REGION_DATADEPS && R->kind != DAG_REGION_SEQUENTIAL) continue;
            for (int k = 0; k < R->ntasks; k++)
                if (!(g_finish[R->tasks[k]] < tk))
                    fz_fail("order: %s (item %d) ended before its task t%d finished",
                            R->kind == DAG_REGION_DATADEPS ? "DAG_DATADEPS" : "DAG_SEQUENTIAL", it, R->tasks[k]);
        } else if (I->kind == IT_FETCH || I->kind == IT_WAIT) {
            if (!(g_finish[I->arg] < tk))
                fz_fail("order: %s(t%d) returned before the task finished", I->kind == IT_FETCH ? "dag_fetch" : "dag_wait", I->arg);
        } else if (I->kind == IT_WAITALL || I->kind == IT_CYCLE) {
            for (int t = 0; t < I->upto; t++)
                if (P.tasks[t].ctx == I->how && !(g_finish[t] < tk))
                    fz_fail("order: dag_wait_all (item %d) returned before t%d finished", it, t);
        }
    }
    /* sequential steps: each non-empty step after the previous non-empty one */
    for (int a = 0; a < P.nsteps; a++) {
        const fz_step *A = &P.steps[a];
        uint64_t a_end = 0;
        int a_n = 0;
        if (A->task >= 0) a_end = g_finish[A->task], a_n = 1;
        else
            for (int k = 0; k < P.regions[A->region].ntasks; k++, a_n++)
                if (g_finish[P.regions[A->region].tasks[k]] > a_end) a_end = g_finish[P.regions[A->region].tasks[k]];
        if (!a_n) continue;
        for (int bi = a + 1; bi < P.nsteps; bi++) {
            const fz_step *B = &P.steps[bi];
            if (B->seq != A->seq) continue;
            int b_n = 0;
            uint64_t b_start = UINT64_MAX;
            int first = -1;
            if (B->task >= 0) b_start = atomic_load(&g_start[B->task]), b_n = 1, first = B->task;
            else
                for (int k = 0; k < P.regions[B->region].ntasks; k++, b_n++) {
                    uint64_t s = atomic_load(&g_start[P.regions[B->region].tasks[k]]);
                    if (s < b_start) b_start = s, first = P.regions[B->region].tasks[k];
                }
            if (!b_n) continue;   /* an empty step: the next one still follows A */
            if (!(a_end < b_start))
                fz_fail("order: in DAG_SEQUENTIAL (region %d), t%d started at %" PRIu64 " before the previous step (%s%d) finished at %" PRIu64,
                        A->seq, first, b_start, A->task >= 0 ? "task t" : "block region ", A->task >= 0 ? A->task : A->region, a_end);
            break;
        }
    }
}

static void compare_buffers(void) {
    for (int b = 0; b < NBUF; b++) {
        const char *x = snap_ptr(&g_oracle_buf, b), *y = snap_ptr(&g_buf, b);
        size_t es = buf_esize(b);
        for (int e = 0; e < buf_len[b]; e++) {
            if (memcmp(x + e * es, y + e * es, es) != 0) {
                uint64_t ox = fz_load(b, x + e * es), oy = fz_load(b, y + e * es);
                fz_fail("buffer %s differs first at element %d (row %d col %d): oracle 0x%" PRIx64 ", dag.h 0x%" PRIx64,
                        buf_name[b], e, e / 8, e % 8, ox, oy);
                break;
            }
        }
    }
    for (int t = 0; t < P.ntasks; t++)
        if (g_dfetched[t] && memcmp(&g_dres[t], &g_ores[t], sizeof(fz_big)) != 0) {
            fz_fail("result of t%d (%s) differs: oracle 0x%" PRIx64 ", dag.h 0x%" PRIx64, t, kind_name[P.tasks[t].kind],
                    g_ores[t].a, g_dres[t].a);
            break;
        }
}

/* ------------------------------------------------------------------ */
/* one seed */

static char g_alarm_msg[96];
static size_t g_alarm_len;
static void on_alarm(int sig) {
    (void)sig;
    ssize_t n = write(2, g_alarm_msg, g_alarm_len);
    (void)n;
    _exit(3);
}

static int g_total_tasks, g_cov[5];

static int run_seed(uint64_t seed, unsigned timeout) {
    g_seed = seed;
    g_seed_failures = 0;
    g_alarm_len = (size_t)snprintf(g_alarm_msg, sizeof g_alarm_msg,
                                   "\nTIMEOUT: seed %" PRIu64 " hangs (replay: FUZZ_PRINT=1 test_fuzz 1 %" PRIu64 ")\n", seed, seed);
    alarm(timeout);
    fz_generate(seed);
    g_total_tasks += P.ntasks;
    for (int t = 0; t < P.ntasks; t++) {
        const fz_task *T = &P.tasks[t];
        g_cov[0] += T->child >= 0;
        g_cov[1] += (T->fut[0] >= 0) + (T->fut[1] >= 0);
        for (int i = 0; i < T->d.nspans; i++) g_cov[2] += T->d.s[i].shape == SH_2D && T->d.s[i].rows > 1;
    }
    g_cov[3] += P.nregions;
    g_cov[4] += P.nepochs;
    if (g_print) print_program(seed);

    /* initial contents */
    for (int i = 0; i < 64; i++) g_init.a[i] = (int64_t)rnd();
    for (int i = 0; i < 128; i++) g_init.b[i] = (int32_t)rnd();
    for (int i = 0; i < 64; i++) g_init.c[i] = (double)(int64_t)(rnd() >> 44) / 8.0;
    for (int i = 0; i < 64; i++) g_init.m[i] = (double)(i / 8) + (double)(i % 8) / 8.0;

    /* (2) the oracle: bodies one after another in spawn order */
    g_oracle = 1;
    g_buf = g_init;
    fz_exec_block(P.root);
    g_oracle_buf = g_buf;

    /* (1) dag.h */
    g_oracle = 0;
    g_buf = g_init;
    atomic_store(&g_clock, 0);
    for (int t = 0; t < MAXT; t++) {
        atomic_store_explicit(&g_start[t], 0, memory_order_relaxed);
        atomic_store_explicit(&g_end[t], 0, memory_order_relaxed);
        atomic_store_explicit(&g_runs[t], 0, memory_order_relaxed);
        g_dfetched[t] = 0;
        g_handle[t].ptr = NULL;
        g_handle[t].gen = 0;
    }
    for (int i = 0; i < P.nitems; i++) atomic_store_explicit(&g_item_ticket[i], 0, memory_order_relaxed);
    atomic_store(&g_body_errors, 0);
    atomic_store(&g_body_msg_taken, 0);
    atomic_store(&g_logs, 0);
    g_expected_logs = P.nspent;
    g_epoch = 0;
    fz_setup_epoch(0);
    fz_exec_block(P.root);
    fz_teardown_epoch();

    check_order();   /* first: an ordering failure is usually the cause of the rest */
    if (atomic_load(&g_body_errors)) fz_fail("%d error(s) in the dag.h run; first: %s", atomic_load(&g_body_errors), g_body_msg);
    if (atomic_load(&g_logs) != g_expected_logs)
        fz_fail("dag.h logged %d message(s), expected %d", atomic_load(&g_logs), g_expected_logs);
    compare_buffers();
    alarm(0);
    if (g_seed_failures)
        fprintf(stderr, "  seed %" PRIu64 " FAILED (%d tasks, %d setups): replay with FUZZ_PRINT=1 test_fuzz 1 %" PRIu64 "\n",
                seed, P.ntasks, P.nepochs, seed);
    else if (g_verbose)
        printf("  seed %" PRIu64 ": ok, %d tasks, %d items, %d setups\n", seed, P.ntasks, P.nitems, P.nepochs);
    return g_seed_failures == 0;
}

int main(int argc, char **argv) {
    /* seeds: the first argument, else FUZZ_SEEDS, else 300 */
    long num = argc > 1 ? strtol(argv[1], NULL, 10) : getenv("FUZZ_SEEDS") ? strtol(getenv("FUZZ_SEEDS"), NULL, 10) : 300;
    uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    const char *e;
    g_print = (e = getenv("FUZZ_PRINT")) && *e && *e != '0';
    g_verbose = (e = getenv("FUZZ_VERBOSE")) && *e && *e != '0';
    g_safe_bulk = (e = getenv("FUZZ_SAFE_BULK")) && *e && *e != '0';
    g_force_trace = (e = getenv("FUZZ_TRACE")) && *e ? *e != '0' : -1;
    if ((e = getenv("FUZZ_MAX_THREADS")) && atoi(e) > 0) g_max_threads = atoi(e) > 64 ? 64 : atoi(e);
    if ((e = getenv("FUZZ_SPIN")) && *e) g_spin_pct = atoi(e);
    unsigned timeout = (e = getenv("FUZZ_TIMEOUT")) ? (unsigned)strtoul(e, NULL, 10) : 120;
    signal(SIGALRM, on_alarm);
    if (num < 1) num = 1;

    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC);
    /* a handful of TEST entries of consecutive seeds */
    long groups = num < 6 ? num : 6;
    long per = (num + groups - 1) / groups;
    static char name[96];
    for (long g0 = 0; g0 < num; g0 += per) {
        long n = num - g0 < per ? num - g0 : per;
        uint64_t lo = first + (uint64_t)g0, hi = lo + (uint64_t)n - 1;
        snprintf(name, sizeof name, "fuzz_seeds_%" PRIu64 "_to_%" PRIu64, lo, hi);
        test__current = name;
        test__failures_in_current = 0;
        for (uint64_t s = lo; s <= hi; s++)
            if (!run_seed(s, timeout)) test__failures_in_current++;
        if (test__failures_in_current) {
            test__failed++;
            printf("FAIL %s (%d seed(s) failed)\n", name, test__failures_in_current);
        } else {
            test__passed++;
            printf("ok   %s\n", name);
        }
        fflush(stdout);
    }
    fz_free_program();
    timespec_get(&t1, TIME_UTC);
    printf("fuzz: %ld seeds, %d tasks (%d with children, %d Fut arguments, %d 2-D spans, %d regions, %d setups; "
           "dag.h ran %llu, stole %llu, inlined %llu), %.2f s\n",
           num, g_total_tasks, g_cov[0], g_cov[1], g_cov[2], g_cov[3], g_cov[4], (unsigned long long)g_total_run,
           (unsigned long long)g_stolen, (unsigned long long)g_inlined,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return test_summary();
}
