/*
 * starpu_tasks.c - peer benchmark: StarPU task overhead (StarPU 1.3).
 *
 * Same workloads and output as bench/omp_tasks.c, expressed with StarPU
 * codelets (CPU implementations only), starpu_task_insert() and
 * starpu_task_wait_for_all().  Build: make -f bench/peers.mk all-peers
 *
 * Usage:
 *   STARPU_NCPU=2 ./starpu_tasks empty   N  N independent tasks, codelet with
 *                                           no buffers
 *   STARPU_NCPU=2 ./starpu_tasks out     N  N independent tasks, each
 *                                           STARPU_W on its own variable
 *                                           handle (one per element), a[i] = i
 *   STARPU_NCPU=2 ./starpu_tasks chain   N  N tasks STARPU_RW on one variable
 *                                           handle, x += 1
 *   STARPU_NCPU=2 ./starpu_tasks stencil T [W [K]]
 *        1-D stencil, T timesteps x W cells, one variable handle per cell;
 *        task (t,i) has STARPU_R on cells (t-1,i-1),(t-1,i),(t-1,i+1)
 *        (clamped: at the edges a handle appears twice) and STARPU_W on (t,i);
 *        each task runs a K-iteration dependent multiply-add kernel.
 *        W and K default to STENCIL_W / STENCIL_K from the environment, else
 *        8 / 1000.
 *   STARPU_NCPU=2 ./starpu_tasks reuse T W K
 *        the same stencil with buffer reuse (Task Bench, as METG is measured):
 *        two rows of W cells, one variable handle per cell; step t has
 *        STARPU_W on row t % 2, so sequential consistency also orders a task
 *        after the STARPU_R readers of the cell it overwrites.  Checks the
 *        last row against the serial run (bench_common.h).
 *   STARPU_NCPU=2 ./starpu_tasks handoff N IDLE_US
 *        N times: sleep IDLE_US so the workers idle, submit one task (no
 *        buffers) and spin on an atomic flag, without waiting, until it has
 *        started; then starpu_task_wait_for_all().  Prints one line:
 *        median_us=<f> p99_us=<f> max_us=<f> samples=<N>, from just before
 *        starpu_task_insert() to the task's start; exit 1 if it has not
 *        started within 10 s.  (The submitting thread is never a StarPU
 *        worker: with STARPU_NCPU=2 both workers are idle.)
 *
 * StarPU infers the dependencies from the submission order (sequential
 * consistency).  The scheduler is left to STARPU_SCHED (StarPU's default,
 * lws, otherwise).  Before starpu_init() the program forces
 * STARPU_CALIBRATE=0 and, unless already set, STARPU_SILENT=1 (no banner or
 * info messages); CUDA / OpenCL / MIC / MPI-MS workers are disabled in the
 * starpu_conf (environment variables still take precedence for them).
 *
 * Timed (timespec_get, TIME_UTC): from just before the first
 * starpu_task_insert() to just after starpu_task_wait_for_all().
 * starpu_init(), a warm-up batch of empty tasks, data registration and
 * unregistration are outside the timed part.
 *
 * Output: exactly one line on stdout
 *   ns_per_task=<float> tasks=<n> total_s=<float>
 * and for stencil and reuse additionally " useful_s=<float>" (the T*W kernels run
 * serially by one thread, measured in-process before starpu_init()), so
 * parallel efficiency = useful_s / (total_s * STARPU_NCPU).
 *
 * Results are checked (out: a[i] == i, chain: x == N, stencil and reuse:
 * bitwise equal to the serial run); on a mismatch the program exits 1.  Exit 2 on bad
 * usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <starpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"




static void check_submit(int ret)
{
    if (ret != 0) {
        fprintf(stderr, "starpu_task_insert failed: %d\n", ret);
        exit(1);
    }
}

/* ---- codelets ---------------------------------------------------------- */

__attribute__((noinline)) static void empty_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    (void)cl_arg;
    __asm__ __volatile__("" ::: "memory");
}

static struct starpu_codelet cl_empty = {
    .where = STARPU_CPU,
    .cpu_funcs = {empty_cpu},
    .nbuffers = 0,
    .name = "empty",
};

static void out_cpu(void *buffers[], void *cl_arg)
{
    long i;
    starpu_codelet_unpack_args(cl_arg, &i);
    double *p = (double *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    *p = (double)i;
}

static struct starpu_codelet cl_out = {
    .where = STARPU_CPU,
    .cpu_funcs = {out_cpu},
    .nbuffers = 1,
    .modes = {STARPU_W},
    .name = "out",
};

static void chain_cpu(void *buffers[], void *cl_arg)
{
    (void)cl_arg;
    double *p = (double *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    *p += 1.0;
}

static struct starpu_codelet cl_chain = {
    .where = STARPU_CPU,
    .cpu_funcs = {chain_cpu},
    .nbuffers = 1,
    .modes = {STARPU_RW},
    .name = "chain",
};

/* Stencil row 0: no inputs, seeded from the cell index. */
static void stencil0_cpu(void *buffers[], void *cl_arg)
{
    long i, k;
    starpu_codelet_unpack_args(cl_arg, &i, &k);
    double *out = (double *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    *out = kernel((double)(i + 1), k);
}

static struct starpu_codelet cl_stencil0 = {
    .where = STARPU_CPU,
    .cpu_funcs = {stencil0_cpu},
    .nbuffers = 1,
    .modes = {STARPU_W},
    .name = "stencil0",
};

/* Stencil rows t >= 1: buffers = left, centre, right of row t-1; own cell. */
static void stencil_cpu(void *buffers[], void *cl_arg)
{
    long k;
    starpu_codelet_unpack_args(cl_arg, &k);
    const double l = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    const double c = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[1]);
    const double r = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[2]);
    double *out = (double *)STARPU_VARIABLE_GET_PTR(buffers[3]);
    *out = kernel((l + c + r) * (1.0 / 3.0), k);
}

static struct starpu_codelet cl_stencil = {
    .where = STARPU_CPU,
    .cpu_funcs = {stencil_cpu},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .name = "stencil",
};

/* Reuse row 0 and rows t >= 1: the arithmetic of bench_common.h's
   reuse_serial, buffers as in cl_stencil0 / cl_stencil. */
static void reuse0_cpu(void *buffers[], void *cl_arg)
{
    long i, k;
    starpu_codelet_unpack_args(cl_arg, &i, &k);
    *(double *)STARPU_VARIABLE_GET_PTR(buffers[0]) = reuse_seed(i, k);
}

static struct starpu_codelet cl_reuse0 = {
    .where = STARPU_CPU,
    .cpu_funcs = {reuse0_cpu},
    .nbuffers = 1,
    .modes = {STARPU_W},
    .name = "reuse0",
};

static void reuse_cpu(void *buffers[], void *cl_arg)
{
    long k;
    starpu_codelet_unpack_args(cl_arg, &k);
    const double l = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[0]);
    const double c = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[1]);
    const double r = *(const double *)STARPU_VARIABLE_GET_PTR(buffers[2]);
    *(double *)STARPU_VARIABLE_GET_PTR(buffers[3]) = reuse_next(l, c, r, k);
}

static struct starpu_codelet cl_reuse = {
    .where = STARPU_CPU,
    .cpu_funcs = {reuse_cpu},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .name = "reuse",
};

/* Hand-off: no buffers, so nothing but the scheduler stands between the
   submission and the start. */
static void handoff_cpu(void *buffers[], void *cl_arg)
{
    (void)buffers;
    struct handoff *h;
    starpu_codelet_unpack_args(cl_arg, &h);
    handoff_mark(h);
}

static struct starpu_codelet cl_handoff = {
    .where = STARPU_CPU,
    .cpu_funcs = {handoff_cpu},
    .nbuffers = 0,
    .name = "handoff",
};

/* ---- driver ------------------------------------------------------------ */

static void start_starpu(void)
{
    /* Calibration off (forced), quiet unless the user asked otherwise. */
    setenv("STARPU_CALIBRATE", "0", 1);
    setenv("STARPU_SILENT", "1", 0);

    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncuda = 0;
    conf.nopencl = 0;
    conf.nmic = 0;
    conf.nmpi_ms = 0;
    conf.calibrate = 0;
    conf.bus_calibrate = 0;
    int ret = starpu_init(&conf);
    if (ret != 0) {
        fprintf(stderr, "starpu_init failed: %d\n", ret);
        exit(1);
    }
    if (starpu_cpu_worker_get_count() == 0) {
        fprintf(stderr, "starpu: no CPU worker\n");
        exit(1);
    }
    /* Warm-up: wake the workers and the allocators once. */
    for (int i = 0; i < 64; i++)
        check_submit(starpu_task_insert(&cl_empty, 0));
    starpu_task_wait_for_all();
}

/* reuse T W K: fills the timed span and the serial time; returns whether
   the last row matches the serial one. */
static int run_reuse(long t_steps, long w, long k, double *t0, double *t1,
                     double *useful_s)
{
    double *ref = calloc((size_t)(2 * w), sizeof *ref);
    double *buf = calloc((size_t)(2 * w), sizeof *buf);
    starpu_data_handle_t *h = malloc((size_t)(2 * w) * sizeof *h);
    if (!ref || !buf || !h) {
        perror("malloc");
        exit(1);
    }
    const double *want = reuse_serial(ref, t_steps, w, k, useful_s);

    start_starpu();
    for (long c = 0; c < 2 * w; c++)
        starpu_variable_data_register(&h[c], STARPU_MAIN_RAM,
                                      (uintptr_t)&buf[c], sizeof buf[c]);
    *t0 = now_s();
    for (long i = 0; i < w; i++)
        check_submit(starpu_task_insert(&cl_reuse0, STARPU_W, h[i],
                                        STARPU_VALUE, &i, sizeof i,
                                        STARPU_VALUE, &k, sizeof k, 0));
    for (long t = 1; t < t_steps; t++) {
        starpu_data_handle_t *prev = h + ((t - 1) % 2) * w, *cur = h + (t % 2) * w;
        for (long i = 0; i < w; i++) {
            long l, r;
            stencil_neighbours(i, w, &l, &r);
            check_submit(starpu_task_insert(
                &cl_reuse, STARPU_R, prev[l], STARPU_R, prev[i], STARPU_R,
                prev[r], STARPU_W, cur[i], STARPU_VALUE, &k, sizeof k, 0));
        }
    }
    starpu_task_wait_for_all();
    *t1 = now_s();
    for (long c = 0; c < 2 * w; c++)
        starpu_data_unregister(h[c]);
    starpu_shutdown();
    int ok = reuse_check(buf + ((t_steps - 1) % 2) * w, want, w);
    free(h);
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
    struct handoff *hp = &h;
    start_starpu();
    for (long s = 0; s < n; s++) {
        handoff_reset(&h);
        sleep_us(idle_us);
        double t0 = now_s();
        check_submit(starpu_task_insert(&cl_handoff, STARPU_VALUE, &hp,
                                        sizeof hp, 0));
        /* spin, no wait: the flag alone says the task started */
        lat[s] = handoff_await(&h, t0, &on_spawner);
        starpu_task_wait_for_all();
    }
    starpu_shutdown();
    handoff_report(lat, n, on_spawner);
    free(lat);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage(argv[0], "STARPU_NCPU");
    const char *wl = argv[1];
    double t0 = 0.0, t1 = 0.0, useful_s = -1.0;
    long ntasks = 0;
    int ok = 1;

    if (strcmp(wl, "empty") == 0) {
        if (argc != 3)
            usage(argv[0], "STARPU_NCPU");
        long n = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        ntasks = n;
        start_starpu();
        t0 = now_s();
        for (long i = 0; i < n; i++)
            check_submit(starpu_task_insert(&cl_empty, 0));
        starpu_task_wait_for_all();
        t1 = now_s();
        starpu_shutdown();
    } else if (strcmp(wl, "out") == 0) {
        if (argc != 3)
            usage(argv[0], "STARPU_NCPU");
        long n = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        ntasks = n;
        double *a = malloc((size_t)n * sizeof *a);
        starpu_data_handle_t *h = malloc((size_t)n * sizeof *h);
        if (!a || !h) {
            perror("malloc");
            return 1;
        }
        for (long i = 0; i < n; i++)
            a[i] = -1.0;
        start_starpu();
        for (long i = 0; i < n; i++)
            starpu_variable_data_register(&h[i], STARPU_MAIN_RAM,
                                          (uintptr_t)&a[i], sizeof a[i]);
        t0 = now_s();
        for (long i = 0; i < n; i++)
            check_submit(starpu_task_insert(&cl_out, STARPU_W, h[i],
                                            STARPU_VALUE, &i, sizeof i, 0));
        starpu_task_wait_for_all();
        t1 = now_s();
        for (long i = 0; i < n; i++)
            starpu_data_unregister(h[i]);
        starpu_shutdown();
        for (long i = 0; i < n; i++)
            if (a[i] != (double)i) {
                fprintf(stderr, "out: a[%ld] = %g, expected %ld\n", i, a[i], i);
                ok = 0;
                break;
            }
        free(h);
        free(a);
    } else if (strcmp(wl, "chain") == 0) {
        if (argc != 3)
            usage(argv[0], "STARPU_NCPU");
        long n = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        ntasks = n;
        double x = 0.0;
        starpu_data_handle_t hx;
        start_starpu();
        starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t)&x,
                                      sizeof x);
        t0 = now_s();
        for (long i = 0; i < n; i++)
            check_submit(starpu_task_insert(&cl_chain, STARPU_RW, hx, 0));
        starpu_task_wait_for_all();
        t1 = now_s();
        starpu_data_unregister(hx);
        starpu_shutdown();
        if (x != (double)n) {
            fprintf(stderr, "chain: x = %.17g, expected %ld\n", x, n);
            ok = 0;
        }
    } else if (strcmp(wl, "stencil") == 0) {
        if (argc < 3 || argc > 5)
            usage(argv[0], "STARPU_NCPU");
        long t_steps = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        const char *ws = argc > 3 ? argv[3] : getenv("STENCIL_W");
        const char *ks = argc > 4 ? argv[4] : getenv("STENCIL_K");
        long w = ws ? parse_pos(ws, argv[0], "STARPU_NCPU") : 8;
        long k = ks ? parse_pos(ks, argv[0], "STARPU_NCPU") : 1000;
        ntasks = t_steps * w;
        size_t ncells = (size_t)t_steps * (size_t)w;
        double *ref = malloc(ncells * sizeof *ref);
        double *cells = malloc(ncells * sizeof *cells);
        starpu_data_handle_t *h = malloc(ncells * sizeof *h);
        if (!ref || !cells || !h) {
            perror("malloc");
            return 1;
        }
        for (size_t c = 0; c < ncells; c++)
            cells[c] = 0.0;

        /* Serial reference: same kernels, same order of operations. */
        double s0 = now_s();
        for (long i = 0; i < w; i++)
            ref[i] = kernel((double)(i + 1), k);
        for (long t = 1; t < t_steps; t++) {
            const double *prev = ref + (t - 1) * w;
            for (long i = 0; i < w; i++) {
                long l = i > 0 ? i - 1 : 0;
                long r = i < w - 1 ? i + 1 : w - 1;
                ref[t * w + i] =
                    kernel((prev[l] + prev[i] + prev[r]) * (1.0 / 3.0), k);
            }
        }
        useful_s = now_s() - s0;

        start_starpu();
        for (size_t c = 0; c < ncells; c++)
            starpu_variable_data_register(&h[c], STARPU_MAIN_RAM,
                                          (uintptr_t)&cells[c], sizeof cells[c]);
        t0 = now_s();
        for (long i = 0; i < w; i++)
            check_submit(starpu_task_insert(&cl_stencil0, STARPU_W, h[i],
                                            STARPU_VALUE, &i, sizeof i,
                                            STARPU_VALUE, &k, sizeof k, 0));
        for (long t = 1; t < t_steps; t++) {
            starpu_data_handle_t *prev = h + (t - 1) * w, *cur = h + t * w;
            for (long i = 0; i < w; i++) {
                long l = i > 0 ? i - 1 : 0;
                long r = i < w - 1 ? i + 1 : w - 1;
                check_submit(starpu_task_insert(
                    &cl_stencil, STARPU_R, prev[l], STARPU_R, prev[i],
                    STARPU_R, prev[r], STARPU_W, cur[i], STARPU_VALUE, &k,
                    sizeof k, 0));
            }
        }
        starpu_task_wait_for_all();
        t1 = now_s();
        for (size_t c = 0; c < ncells; c++)
            starpu_data_unregister(h[c]);
        starpu_shutdown();
        if (memcmp(cells, ref, ncells * sizeof *ref) != 0) {
            fprintf(stderr, "stencil: parallel result differs from serial\n");
            ok = 0;
        }
        free(h);
        free(cells);
        free(ref);
    } else if (strcmp(wl, "reuse") == 0) {
        if (argc != 5)
            usage(argv[0], "STARPU_NCPU");
        long t_steps = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        long w = parse_pos(argv[3], argv[0], "STARPU_NCPU");
        long k = parse_pos(argv[4], argv[0], "STARPU_NCPU");
        ntasks = t_steps * w;
        ok = run_reuse(t_steps, w, k, &t0, &t1, &useful_s);
    } else if (strcmp(wl, "handoff") == 0) {
        if (argc != 4)
            usage(argv[0], "STARPU_NCPU");
        long n = parse_pos(argv[2], argv[0], "STARPU_NCPU");
        run_handoff(n, parse_pos(argv[3], argv[0], "STARPU_NCPU"));
        return 0;
    } else {
        usage(argv[0], "STARPU_NCPU");
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
