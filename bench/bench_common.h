/* bench_common.h: what every contender of the task benchmarks shares, so
   they time, parse and compute exactly alike (bench/dag_tasks.c,
   bench/omp_tasks.c, bench/starpu_tasks.c). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the usage line; `threads_from` says where the thread count comes from */
static inline void usage(const char *prog, const char *threads_from) {
    fprintf(stderr, "usage: %s empty N | out N | chain N | stencil T [W [K]]\n       (threads from %s)\n", prog,
            threads_from);
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
#endif
