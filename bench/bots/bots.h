/* bots.h: what every program of bench/bots/ shares. These are ports of the
   Barcelona OpenMP Task Suite (bsc-pm/bots: fib, nqueens, sort, sparselu,
   strassen, uts, health) to dag.h, with the same programs as OpenMP tasks
   (built for libgomp and for libomp) and, for fib and nqueens, as TBB
   task_groups. Each program has a header of what its versions share (input,
   serial kernels, check, main: PROG.h) and one file per version
   (PROG_dag.c, PROG_omp.c, PROG_tbb.cc) that defines the parallel part.

   Every program prints one line on stdout,

       time_s=<seconds of the parallel part> <name>=<value>... check=ok

   and exits 1 (check=FAIL, with why on stderr) when its answer is wrong. Only
   the parallel part is timed: the input is built before the clock starts,
   the check runs after it stops. bench/bots/run runs them side by side.
   Plain C11 that also compiles as C++ (the TBB versions include it). */
#ifndef BOTS_H
#define BOTS_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bots_now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void bots_usage(const char *program, const char *usage) {
    fprintf(stderr, "usage: %s %s\n", program, usage);
    exit(2);
}

/* argv[i] as a positive number, or `otherwise` when the program was given
   fewer arguments; a bad one prints the usage and exits. */
static inline long bots_arg(int argc, char **argv, int i, long otherwise, const char *usage) {
    if (i >= argc) return otherwise;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*argv[i] == '\0' || *end != '\0' || v <= 0) bots_usage(argv[0], usage);
    return v;
}

static inline void *bots_alloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* The closing line: the time, the program's fields (printf format) and the
   check. Returns the exit status. */
static inline int bots_report(double seconds, int ok, const char *fields, ...) {
    va_list ap;
    printf("time_s=%.6f ", seconds);
    va_start(ap, fields);
    vprintf(fields, ap);
    va_end(ap);
    printf(" check=%s\n", ok ? "ok" : "FAIL");
    if (!ok) fprintf(stderr, "wrong answer\n");
    return ok ? 0 : 1;
}
#endif
