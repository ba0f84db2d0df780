/*
 * omp_tasks.c - peer benchmark: OpenMP task overhead (libgomp and LLVM libomp).
 *
 * The same source is built twice (see bench/peers.mk):
 *   gcc   -O2 -fopenmp  -> build/bench/omp_tasks_gomp    (libgomp)
 *   clang -O2 -fopenmp  -> build/bench/omp_tasks_libomp  (LLVM libomp)
 *
 * Usage:
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp empty   N   N independent empty tasks
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp out     N   N independent tasks, each
 *                                                  depend(out: a[i]), a[i] = i
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp chain   N   N tasks chained through
 *                                                  depend(inout: x), x += 1
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp stencil T [W [K]]
 *        METG / Task Bench style 1-D stencil: T timesteps x W cells; task
 *        (t,i) reads cells (t-1,i-1),(t-1,i),(t-1,i+1) (clamped at the edges)
 *        and writes cell (t,i) of a full T x W array; each task runs a
 *        K-iteration dependent multiply-add kernel.  W and K default to the
 *        environment variables STENCIL_W / STENCIL_K, else 8 / 1000.
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp reuse T W K
 *        the same stencil with buffer reuse (Task Bench, as METG is measured):
 *        two rows of W cells, step t writes row t % 2 with depend(out), so a
 *        task also waits for the depend(in) readers of the cell it overwrites.
 *        Checks the last row against the serial run (bench_common.h).
 *   OMP_NUM_THREADS=2 ./omp_tasks_gomp handoff N IDLE_US
 *        N times: sleep IDLE_US so the other thread idles (at the end of the
 *        single), create one task and spin on an atomic flag, without a
 *        taskwait, until it has started: the other thread must take it.
 *        Prints one line: median_us=<f> p99_us=<f> max_us=<f> samples=<N>,
 *        task creation to task start; exit 1 if it has not started in 10 s.
 *
 * All tasks are spawned by one thread (parallel + single) and the program
 * waits with taskwait.  Only spawn + execute is timed (timespec_get,
 * TIME_UTC): from just before the first task is created to just after the
 * final taskwait.  Thread start-up is excluded (a warm-up parallel region
 * runs first).
 *
 * Output: exactly one line on stdout
 *   ns_per_task=<float> tasks=<n> total_s=<float>
 * and for stencil and reuse additionally " useful_s=<float>": the time one thread needs
 * to run the same T*W kernels serially (measured in-process, before any
 * parallel region), so parallel efficiency = useful_s / (total_s * threads).
 *
 * Results are checked (out: a[i] == i, chain: x == N, stencil and reuse:
 * bitwise equal to the serial run); on a mismatch the program prints to stderr and exits 1.
 * Exit 2 on bad usage.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"




/* Empty task body; noinline + asm barrier so the call is really made. */
__attribute__((noinline)) static void empty_body(void)
{
    __asm__ __volatile__("" ::: "memory");
}

/* Value of cell (t,i); row 0 is seeded from the index. */
static inline double stencil_cell(const double *cells, long t, long i,
                                  long w, long k)
{
    if (t == 0)
        return kernel((double)(i + 1), k);
    const double *prev = cells + (t - 1) * w;
    long l = i > 0 ? i - 1 : 0;
    long r = i < w - 1 ? i + 1 : w - 1;
    return kernel((prev[l] + prev[i] + prev[r]) * (1.0 / 3.0), k);
}

static void warm_up(void)
{
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 64; i++) {
#pragma omp task
            empty_body();
        }
#pragma omp taskwait
    }
}

/* reuse T W K: fills the timed span and the serial time; returns whether
   the last row matches the serial one. */
static int run_reuse(long t_steps, long w, long k, double *t0, double *t1,
                     double *useful_s)
{
    double *ref = calloc((size_t)(2 * w), sizeof *ref);
    double *buf = calloc((size_t)(2 * w), sizeof *buf);
    if (!ref || !buf) {
        perror("calloc");
        exit(1);
    }
    const double *want = reuse_serial(ref, t_steps, w, k, useful_s);
    warm_up();
#pragma omp parallel
#pragma omp single
    {
        *t0 = now_s();
        for (long i = 0; i < w; i++) {
#pragma omp task depend(out : buf[i]) firstprivate(i) shared(buf)
            buf[i] = reuse_seed(i, k);
        }
        for (long t = 1; t < t_steps; t++) {
            const long po = ((t - 1) % 2) * w, co = (t % 2) * w;
            for (long i = 0; i < w; i++) {
                long l, r;
                stencil_neighbours(i, w, &l, &r);
                /* depend(out) after step t-1's depend(in): the WAR edge */
#pragma omp task depend(in : buf[po + l], buf[po + i], buf[po + r]) \
    depend(out : buf[co + i]) firstprivate(i, l, r) shared(buf)
                buf[co + i] = reuse_next(buf[po + l], buf[po + i], buf[po + r], k);
            }
        }
#pragma omp taskwait
        *t1 = now_s();
    }
    int ok = reuse_check(buf + ((t_steps - 1) % 2) * w, want, w);
    free(buf);
    free(ref);
    return ok;
}

/* handoff N IDLE_US: prints its own line (bench_common.h). */
static void run_handoff(long n, long idle_us)
{
    double *lat = handoff_samples(n);
    long on_spawner = 0;
    struct handoff h;
    warm_up();
#pragma omp parallel
#pragma omp single
    {
        for (long s = 0; s < n; s++) {
            handoff_reset(&h);
            sleep_us(idle_us);
            double t0 = now_s();
#pragma omp task shared(h)
            handoff_mark(&h);
            /* spin, no taskwait: a taskwait could run the task right here */
            lat[s] = handoff_await(&h, t0, &on_spawner);
#pragma omp taskwait
        }
    }
    handoff_report(lat, n, on_spawner);
    free(lat);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage(argv[0], "OMP_NUM_THREADS");
    const char *wl = argv[1];
    double t0 = 0.0, t1 = 0.0, useful_s = -1.0;
    long ntasks = 0;
    int ok = 1;

    if (strcmp(wl, "empty") == 0) {
        if (argc != 3)
            usage(argv[0], "OMP_NUM_THREADS");
        long n = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        ntasks = n;
        warm_up();
#pragma omp parallel
#pragma omp single
        {
            t0 = now_s();
            for (long i = 0; i < n; i++) {
#pragma omp task
                empty_body();
            }
#pragma omp taskwait
            t1 = now_s();
        }
    } else if (strcmp(wl, "out") == 0) {
        if (argc != 3)
            usage(argv[0], "OMP_NUM_THREADS");
        long n = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        ntasks = n;
        double *a = calloc((size_t)n, sizeof *a);
        if (!a) {
            perror("calloc");
            return 1;
        }
        for (long i = 0; i < n; i++)
            a[i] = -1.0;
        warm_up();
#pragma omp parallel
#pragma omp single
        {
            t0 = now_s();
            for (long i = 0; i < n; i++) {
#pragma omp task depend(out : a[i]) firstprivate(i) shared(a)
                a[i] = (double)i;
            }
#pragma omp taskwait
            t1 = now_s();
        }
        for (long i = 0; i < n; i++)
            if (a[i] != (double)i) {
                fprintf(stderr, "out: a[%ld] = %g, expected %ld\n", i, a[i], i);
                ok = 0;
                break;
            }
        free(a);
    } else if (strcmp(wl, "chain") == 0) {
        if (argc != 3)
            usage(argv[0], "OMP_NUM_THREADS");
        long n = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        ntasks = n;
        double x = 0.0;
        warm_up();
#pragma omp parallel
#pragma omp single
        {
            t0 = now_s();
            for (long i = 0; i < n; i++) {
#pragma omp task depend(inout : x) shared(x)
                x += 1.0;
            }
#pragma omp taskwait
            t1 = now_s();
        }
        if (x != (double)n) {
            fprintf(stderr, "chain: x = %.17g, expected %ld\n", x, n);
            ok = 0;
        }
    } else if (strcmp(wl, "stencil") == 0) {
        if (argc < 3 || argc > 5)
            usage(argv[0], "OMP_NUM_THREADS");
        long t_steps = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        const char *ws = argc > 3 ? argv[3] : getenv("STENCIL_W");
        const char *ks = argc > 4 ? argv[4] : getenv("STENCIL_K");
        long w = ws ? parse_pos(ws, argv[0], "OMP_NUM_THREADS") : 8;
        long k = ks ? parse_pos(ks, argv[0], "OMP_NUM_THREADS") : 1000;
        ntasks = t_steps * w;
        size_t ncells = (size_t)t_steps * (size_t)w;
        double *ref = malloc(ncells * sizeof *ref);
        double *cells = malloc(ncells * sizeof *cells);
        if (!ref || !cells) {
            perror("malloc");
            return 1;
        }
        for (size_t c = 0; c < ncells; c++)
            cells[c] = 0.0;

        /* Serial reference: same kernels, same order of operations. */
        double s0 = now_s();
        for (long t = 0; t < t_steps; t++)
            for (long i = 0; i < w; i++)
                ref[t * w + i] = stencil_cell(ref, t, i, w, k);
        useful_s = now_s() - s0;

        warm_up();
#pragma omp parallel
#pragma omp single
        {
            t0 = now_s();
            for (long t = 0; t < t_steps; t++) {
                if (t == 0) {
                    for (long i = 0; i < w; i++) {
#pragma omp task depend(out : cells[i]) firstprivate(i) shared(cells)
                        cells[i] = stencil_cell(cells, 0, i, w, k);
                    }
                } else {
                    const long po = (t - 1) * w, co = t * w;
                    for (long i = 0; i < w; i++) {
                        long l = i > 0 ? i - 1 : 0;
                        long r = i < w - 1 ? i + 1 : w - 1;
#pragma omp task depend(in : cells[po + l], cells[po + i], cells[po + r]) \
    depend(out : cells[co + i]) firstprivate(t, i) shared(cells)
                        cells[t * w + i] = stencil_cell(cells, t, i, w, k);
                    }
                }
            }
#pragma omp taskwait
            t1 = now_s();
        }
        if (memcmp(cells, ref, ncells * sizeof *ref) != 0) {
            fprintf(stderr, "stencil: parallel result differs from serial\n");
            ok = 0;
        }
        free(cells);
        free(ref);
    } else if (strcmp(wl, "reuse") == 0) {
        if (argc != 5)
            usage(argv[0], "OMP_NUM_THREADS");
        long t_steps = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        long w = parse_pos(argv[3], argv[0], "OMP_NUM_THREADS");
        long k = parse_pos(argv[4], argv[0], "OMP_NUM_THREADS");
        ntasks = t_steps * w;
        ok = run_reuse(t_steps, w, k, &t0, &t1, &useful_s);
    } else if (strcmp(wl, "handoff") == 0) {
        if (argc != 4)
            usage(argv[0], "OMP_NUM_THREADS");
        long n = parse_pos(argv[2], argv[0], "OMP_NUM_THREADS");
        run_handoff(n, parse_pos(argv[3], argv[0], "OMP_NUM_THREADS"));
        return 0;
    } else {
        usage(argv[0], "OMP_NUM_THREADS");
    }

    double total_s = t1 - t0;
    if (useful_s >= 0.0)
        printf("ns_per_task=%.2f tasks=%ld total_s=%.6f useful_s=%.6f\n",
               total_s * 1e9 / (double)ntasks, ntasks, total_s, useful_s);
    else
        printf("ns_per_task=%.2f tasks=%ld total_s=%.6f\n",
               total_s * 1e9 / (double)ntasks, ntasks, total_s);
    return ok ? 0 : 1;
}
