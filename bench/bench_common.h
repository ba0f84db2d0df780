/* bench_common.h: what every contender of the task benchmarks shares, so
   they time, parse and compute exactly alike (bench/dag_tasks.c,
   bench/omp_tasks.c, bench/starpu_tasks.c). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

static inline double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the usage line; `threads_from` says where the thread count comes from */
static inline void usage(const char *prog, const char *threads_from) {
    fprintf(stderr,
            "usage: %s empty N | out N | chain N | stencil T [W [K]] | reuse T W K | handoff N IDLE_US\n"
            "       (threads from %s)\n",
            prog, threads_from);
    exit(2);
}

static inline long parse_pos(const char *s, const char *prog, const char *threads_from) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0) usage(prog, threads_from);
    return v;
}

/* Stencil kernel: K dependent multiply-adds on a local (latency bound, cannot
   be vectorised or folded without -ffast-math), about 1.4 ns each here. */
static inline double kernel(double x, long k) {
    for (long j = 0; j < k; j++) x = x * 0.999999 + 0.5;
    return x;
}

/* ---- reuse: Task Bench's 1-D stencil with buffer reuse (buf[2][W]) ---- */

/* Clamped neighbours of cell i in a row of w cells. */
static inline void stencil_neighbours(long i, long w, long *l, long *r) {
    *l = i > 0 ? i - 1 : 0;
    *r = i < w - 1 ? i + 1 : w - 1;
}

/* Cell i of step 0, and of a step t >= 1 from three cells of step t-1: the
   arithmetic of the `stencil` workload, so both compute the same values. */
static inline double reuse_seed(long i, long k) { return kernel((double)(i + 1), k); }
static inline double reuse_next(double l, double c, double r, long k) { return kernel((l + c + r) * (1.0 / 3.0), k); }

/* The T*W kernels run serially in two rows of w; returns the row that holds
   step T-1 (buf + ((T-1) % 2) * w), and its run time in *useful_s. */
static inline double *reuse_serial(double *buf, long steps, long w, long k, double *useful_s) {
    double s0 = now_s();
    for (long i = 0; i < w; i++) buf[i] = reuse_seed(i, k);
    for (long t = 1; t < steps; t++) {
        const double *prev = buf + ((t - 1) % 2) * w;
        double *cur = buf + (t % 2) * w;
        for (long i = 0; i < w; i++) {
            long l, r;
            stencil_neighbours(i, w, &l, &r);
            cur[i] = reuse_next(prev[l], prev[i], prev[r], k);
        }
    }
    *useful_s = now_s() - s0;
    return buf + ((steps - 1) % 2) * w;
}

/* The parallel last row must equal the serial one bit for bit. */
static inline int reuse_check(const double *got, const double *want, long w) {
    if (memcmp(got, want, (size_t)w * sizeof *got) == 0) return 1;
    fprintf(stderr, "reuse: parallel result differs from serial\n");
    return 0;
}

/* ---- handoff: latency from spawn to start on an idle worker ---- */

/* What one sample's task and the spawning thread share. The task writes
   start and ran_on, then sets done with release, so the spinning thread
   may read them as soon as it sees done (before waiting for the task). */
struct handoff {
    double start;          /* now_s() when the task body began */
    const void *ran_on;    /* &handoff_tag of the thread that ran it */
    atomic_int done;
};

/* One per thread: its address tells which thread ran the task. */
static _Thread_local char handoff_tag;

/* Room for n latency samples (exits if there is none). */
static inline double *handoff_samples(long n) {
    double *lat = calloc((size_t)n, sizeof *lat);
    if (!lat) {
        perror("calloc");
        exit(1);
    }
    return lat;
}

static inline void handoff_reset(struct handoff *h) {
    h->start = 0;
    h->ran_on = NULL;
    atomic_store_explicit(&h->done, 0, memory_order_relaxed);
}

/* The task body. */
static inline void handoff_mark(struct handoff *h) {
    h->start = now_s();
    h->ran_on = &handoff_tag;
    atomic_store_explicit(&h->done, 1, memory_order_release);
}

/* Sleeps us microseconds, so the other worker has been idle that long. */
static inline void sleep_us(long us) {
    struct timespec d = {us / 1000000, (us % 1000000) * 1000}, left;
    while (thrd_sleep(&d, &left) == -1) d = left;   /* interrupted: sleep the rest */
}

/* Polls until the task has started, without running tasks: the spawning
   thread must not run it itself. It yields between polls: on a VM the
   scheduler may put the woken worker on the spawner's own core (an idle
   virtual CPU can look busy to it), and a pure spin there would hold the
   worker back for a scheduler tick, measuring the spawner, not the runtime. Gives up after 10 s (a runtime that never
   hands the task over) with _Exit, since exit()'s handlers could wait for
   the pool that holds the task. Returns spawn-to-start in microseconds and
   counts in *on_spawner the samples the spawning thread ran after all. */
static inline double handoff_await(struct handoff *h, double t0, long *on_spawner) {
    for (unsigned long spins = 0; !atomic_load_explicit(&h->done, memory_order_acquire); spins++, thrd_yield())
        if (spins % 1024 == 1023 && now_s() - t0 > 10.0) {
            fprintf(stderr, "handoff: the task did not start within 10 s\n");
            fflush(stderr);
            _Exit(1);
        }
    if (h->ran_on == &handoff_tag) ++*on_spawner;
    return (h->start - t0) * 1e6;
}

static inline int cmp_double_asc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value at index floor(pct/100 * (n-1)) of n sorted samples (integer
   arithmetic: 0.99 * (n-1) in floating point can land just below a whole
   number and take the index before). */
static inline double percentile(const double *sorted, long n, long pct) { return sorted[(n - 1) * pct / 100]; }

/* Sorts the n latencies and prints the handoff line; a note on stderr if
   some samples ran on the spawning thread (their latency is no hand-off). */
static inline void handoff_report(double *lat, long n, long on_spawner) {
    qsort(lat, (size_t)n, sizeof *lat, cmp_double_asc);
    printf("median_us=%.2f p99_us=%.2f max_us=%.2f samples=%ld\n", percentile(lat, n, 50), percentile(lat, n, 99),
           lat[n - 1], n);
    if (on_spawner) fprintf(stderr, "handoff: %ld of %ld tasks ran on the spawning thread\n", on_spawner, n);
}
#endif
