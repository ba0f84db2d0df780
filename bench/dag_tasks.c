/* dag_tasks.c - dag.h side of the task-overhead benchmarks.
 *
 * Same workloads, arguments and output line as bench/omp_tasks.c and
 * bench/starpu_tasks.c, so bench/run.py can interleave all of them:
 *
 *   DAG_NUM_THREADS=2 ./dag_tasks empty   N     N independent empty tasks
 *   DAG_NUM_THREADS=2 ./dag_tasks out     N     N independent tasks, Out(&a[i], 1)
 *   DAG_NUM_THREADS=2 ./dag_tasks chain   N     N tasks, InOut(&x, 1), x += 1
 *   DAG_NUM_THREADS=2 ./dag_tasks wake    N     N times: let worker 2 fall asleep
 *        (10 ms idle), spawn a task pinned to it, and time spawn to start;
 *        prints the median and the worst wake-up latency in microseconds
 *   DAG_NUM_THREADS=2 ./dag_tasks scoped N K none|all|others
 *        N independent tasks of K multiply-adds: without a scope, with a scope
 *        listing every worker, or with one listing every worker but the
 *        spawning one (3 threads or more: the mailbox path); also prints how
 *        many tasks each worker ran (run=<w1>,<w2>,...)
 *   DAG_NUM_THREADS=2 ./dag_tasks stencil T [W [K]]
 *        1-D stencil, T steps x W cells; task (t,i) reads cells i-1, i, i+1 of
 *        step t-1 and writes cell i of step t; each runs K multiply-adds.
 *   DAG_NUM_THREADS=2 ./dag_tasks reuse T W K
 *        the same stencil with buffer reuse (Task Bench, as METG is measured):
 *        two rows of W cells, step t writes row t % 2, so a task also waits
 *        for the readers of the cell it overwrites (In/Out of one element);
 *        checks the last row against the serial run (bench_common.h)
 *   DAG_NUM_THREADS=2 ./dag_tasks handoff N IDLE_US
 *        N times: sleep IDLE_US so worker 2 is idle, spawn one task (no scope)
 *        and spin, without running tasks, until it has started: worker 2 must
 *        take it. Prints median_us=<f> p99_us=<f> max_us=<f> samples=<N>,
 *        spawn to start; exit 1 if a task has not started within 10 s
 *
 * Output: ns_per_task=<float> tasks=<n> total_s=<float> [useful_s=<float>]
 * Timed: from just before the first spawn to the end of dag_wait_all.
 */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <threads.h>

#include "bench_common.h"



DAG_TASK(void, empty_task) {}
DAG_TASK(void, stamp_start, (double *, when)) { *when = now_s(); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
DAG_TASK(void, set_elem, (double *, a), (long, i)) { *a = (double)i; }
DAG_TASK(void, add_one, (double *, x)) { *x += 1.0; }
static _Atomic long ran_on[65];
DAG_TASK(void, count_work, (double *, out), (long, k)) {
    *out = kernel(*out, k);
    int w = dag_current_worker();
    atomic_fetch_add(&ran_on[w > 0 && w < 65 ? w : 0], 1);
}
DAG_TASK(void, seed_cell, (double *, out), (long, i), (long, k)) { *out = kernel((double)(i + 1), k); }
DAG_TASK(void, stencil_cell, (const double *, l), (const double *, c), (const double *, r), (double *, out), (long, k)) {
    *out = kernel((*l + *c + *r) * (1.0 / 3.0), k);
}
DAG_TASK(void, reuse_seed_cell, (double *, out), (long, i), (long, k)) { *out = reuse_seed(i, k); }
DAG_TASK(void, reuse_cell, (const double *, l), (const double *, c), (const double *, r), (double *, out), (long, k)) {
    *out = reuse_next(*l, *c, *r, k);
}
DAG_TASK(void, handoff_task, (struct handoff *, h)) { handoff_mark(h); }

/* reuse T W K: fills the tasks, the timed span and the serial time; returns
   whether the last row matches the serial one. */
static int run_reuse(char **argv, long *n, double *t0, double *t1, double *useful_s) {
    long steps = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS"), w = parse_pos(argv[3], argv[0], "DAG_NUM_THREADS");
    long k = parse_pos(argv[4], argv[0], "DAG_NUM_THREADS");
    *n = steps * w;
    double *ref = calloc((size_t)(2 * w), sizeof *ref), *buf = calloc((size_t)(2 * w), sizeof *buf);
    const double *want = reuse_serial(ref, steps, w, k, useful_s);
    *t0 = now_s();
    for (long i = 0; i < w; i++) dag_spawn(reuse_seed_cell, Out(&buf[i], 1), Val(i), Val(k));
    for (long t = 1; t < steps; t++) {
        double *p = buf + ((t - 1) % 2) * w, *cur = buf + (t % 2) * w;
        for (long i = 0; i < w; i++) {
            long l, r;
            stencil_neighbours(i, w, &l, &r);
            /* Out on a cell step t-1 read: dag.h orders it after those reads */
            dag_spawn(reuse_cell, In(&p[l], 1), In(&p[i], 1), In(&p[r], 1), Out(&cur[i], 1), Val(k));
        }
    }
    dag_wait_all();
    *t1 = now_s();
    int ok = reuse_check(buf + ((steps - 1) % 2) * w, want, w);
    free(ref);
    free(buf);
    return ok;
}

/* handoff N IDLE_US: prints its own line (bench_common.h). */
static void run_handoff(char **argv) {
    long n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS"), idle_us = parse_pos(argv[3], argv[0], "DAG_NUM_THREADS");
    double *lat = handoff_samples(n);
    long on_spawner = 0;
    struct handoff h;
    for (long s = 0; s < n; s++) {
        handoff_reset(&h);
        sleep_us(idle_us);
        double t0 = now_s();
        dag_task t = dag_spawn(handoff_task, Val(&h));   /* no scope: any idle worker may take it */
        lat[s] = handoff_await(&h, t0, &on_spawner);     /* spin: dag_wait could run it here */
        dag_wait(t);
    }
    handoff_report(lat, n, on_spawner);
    free(lat);
}


int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s empty N | out N | chain N | wake N | scoped N K none|all|others | stencil T [W [K]]\n"
                "       | reuse T W K | handoff N IDLE_US\n",
                argv[0]);
        return 2;
    }
    const char *threads = getenv("DAG_NUM_THREADS");
    dag_setup(&(dag_desc){ .num_threads = threads ? atoi(threads) : 0, .throttle = getenv("DAG_THROTTLE") ? atoi(getenv("DAG_THROTTLE")) : 0 });
    for (int i = 0; i < 64; i++) dag_spawn(empty_task);   /* warm-up: threads running, pools carved */
    dag_wait_all();

    const char *wl = argv[1];
    long n = 0;
    double t0 = 0, t1 = 0, useful_s = -1;
    int ok = 1;
    if (!strcmp(wl, "empty")) {
        n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        t0 = now_s();
        for (long i = 0; i < n; i++) dag_spawn(empty_task);
        dag_wait_all();
        t1 = now_s();
    } else if (!strcmp(wl, "out")) {
        n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        double *a = calloc((size_t)n, sizeof *a);
        t0 = now_s();
        for (long i = 0; i < n; i++) dag_spawn(set_elem, Out(&a[i], 1), Val(i));
        dag_wait_all();
        t1 = now_s();
        for (long i = 0; i < n; i++) ok &= a[i] == (double)i;
        free(a);
    } else if (!strcmp(wl, "chain")) {
        n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        double x = 0;
        t0 = now_s();
        for (long i = 0; i < n; i++) dag_spawn(add_one, InOut(&x, 1));
        dag_wait_all();
        t1 = now_s();
        ok = x == (double)n;
    } else if (!strcmp(wl, "scoped")) {
        if (argc < 5) usage(argv[0], "DAG_NUM_THREADS");
        n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        long k = parse_pos(argv[3], argv[0], "DAG_NUM_THREADS");
        int workers = dag_num_threads();
        dag_scope scope = {0};
        if (!strcmp(argv[4], "all")) {
            for (int i = 1; i <= workers && i <= 64; i++) scope.threads |= 1ull << (i - 1);
        } else if (!strcmp(argv[4], "others")) {
            if (workers < 3) { fprintf(stderr, "scoped others needs DAG_NUM_THREADS >= 3\n"); return 2; }
            for (int i = 2; i <= workers && i <= 64; i++) scope.threads |= 1ull << (i - 1);
        } else if (strcmp(argv[4], "none")) {
            usage(argv[0], "DAG_NUM_THREADS");
        }
        double *a = calloc((size_t)n, sizeof *a);
        for (int i = 0; i < 65; i++) atomic_store(&ran_on[i], 0);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = scope) {
            for (long i = 0; i < n; i++) dag_spawn(count_work, InOut(&a[i], 1), Val(k));
        }
        dag_wait_all();
        t1 = now_s();
        double want = kernel(0, k);
        for (long i = 0; i < n; i++) ok &= a[i] == want;
        free(a);
        printf("run=");
        for (int i = 1; i <= workers && i <= 64; i++) printf("%s%ld", i > 1 ? "," : "", atomic_load(&ran_on[i]));
        printf(" ");
    } else if (!strcmp(wl, "wake")) {
        n = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        double *lat = handoff_samples(n);
        for (long i = 0; i < n; i++) {
            struct timespec idle = {0, 10 * 1000 * 1000};
            thrd_sleep(&idle, NULL);   /* long enough for worker 2 to go to sleep */
            double started = 0, spawned = now_s();
            dag_task t = dag_spawn_with(&(dag_options){ .scope = dag_scope(.thread = 2) }, stamp_start, Out(&started, 1));
            dag_wait(t);
            lat[i] = (started - spawned) * 1e6;
        }
        qsort(lat, (size_t)n, sizeof *lat, cmp_double);
        printf("wake_median_us=%.1f wake_max_us=%.1f samples=%ld\n", lat[n / 2], lat[n - 1], n);
        free(lat);
        dag_shutdown();
        return 0;
    } else if (!strcmp(wl, "handoff")) {
        if (argc != 4) usage(argv[0], "DAG_NUM_THREADS");
        run_handoff(argv);
        dag_shutdown();
        return 0;
    } else if (!strcmp(wl, "reuse")) {
        if (argc != 5) usage(argv[0], "DAG_NUM_THREADS");
        ok = run_reuse(argv, &n, &t0, &t1, &useful_s);
    } else if (!strcmp(wl, "stencil")) {
        long steps = parse_pos(argv[2], argv[0], "DAG_NUM_THREADS");
        const char *ws = argc > 3 ? argv[3] : getenv("STENCIL_W");
        const char *ks = argc > 4 ? argv[4] : getenv("STENCIL_K");
        long w = ws ? parse_pos(ws, argv[0], "DAG_NUM_THREADS") : 8, k = ks ? parse_pos(ks, argv[0], "DAG_NUM_THREADS") : 1000;
        n = steps * w;
        double *ref = calloc((size_t)n, sizeof *ref), *cells = calloc((size_t)n, sizeof *cells);
        double s0 = now_s();
        for (long t = 0; t < steps; t++)
            for (long i = 0; i < w; i++) {
                if (t == 0) { ref[i] = kernel((double)(i + 1), k); continue; }
                const double *p = ref + (t - 1) * w;
                long l = i > 0 ? i - 1 : 0, r = i < w - 1 ? i + 1 : w - 1;
                ref[t * w + i] = kernel((p[l] + p[i] + p[r]) * (1.0 / 3.0), k);
            }
        useful_s = now_s() - s0;
        t0 = now_s();
        for (long t = 0; t < steps; t++)
            for (long i = 0; i < w; i++) {
                if (t == 0) {
                    dag_spawn(seed_cell, Out(&cells[i], 1), Val(i), Val(k));
                    continue;
                }
                double *p = cells + (t - 1) * w;
                long l = i > 0 ? i - 1 : 0, r = i < w - 1 ? i + 1 : w - 1;
                dag_spawn(stencil_cell, In(&p[l], 1), In(&p[i], 1), In(&p[r], 1), Out(&cells[t * w + i], 1), Val(k));
            }
        dag_wait_all();
        t1 = now_s();
        ok = memcmp(cells, ref, (size_t)n * sizeof *ref) == 0;
        free(ref);
        free(cells);
    } else {
        fprintf(stderr, "unknown workload '%s'\n", wl);
        return 2;
    }
    dag_shutdown();
    if (!ok) {
        fprintf(stderr, "%s: wrong result\n", wl);
        return 1;
    }
    if (useful_s >= 0)
        printf("ns_per_task=%.2f tasks=%ld total_s=%.6f useful_s=%.6f\n", (t1 - t0) * 1e9 / (double)n, n, t1 - t0, useful_s);
    else
        printf("ns_per_task=%.2f tasks=%ld total_s=%.6f\n", (t1 - t0) * 1e9 / (double)n, n, t1 - t0);
    return 0;
}
