/* The floor under any hand-off from a parked worker: the operating system's
   own wake-up, with no runtime in between. A second thread sleeps on a
   condition variable; the main thread sleeps IDLE_US, then signals it. The
   latency is signal to the woken thread's first instruction, printed as the
   `handoff` workload of dag_tasks does (bench_common.h).

   cc -std=c11 -O2 -Ibench bench/os_wake.c -pthread
   ./os_wake handoff N IDLE_US */
#include "bench_common.h"

static mtx_t lock;
static cnd_t cond;
static struct handoff *posted;   /* the sample to start, under lock */
static int quit;

static int sleeper(void *unused) {
    (void)unused;
    mtx_lock(&lock);
    while (!quit) {
        while (!posted && !quit) cnd_wait(&cond, &lock);
        if (posted) {
            handoff_mark(posted);
            posted = NULL;
        }
    }
    mtx_unlock(&lock);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4 || strcmp(argv[1], "handoff")) usage(argv[0], "one sleeping thread");
    long n = parse_pos(argv[2], argv[0], "one sleeping thread"), idle_us = parse_pos(argv[3], argv[0], "one sleeping thread");
    double *lat = handoff_samples(n);
    long on_spawner = 0;
    struct handoff h;
    thrd_t t;
    mtx_init(&lock, mtx_plain);
    cnd_init(&cond);
    if (thrd_create(&t, sleeper, NULL) != thrd_success) return 1;
    for (long s = 0; s < n; s++) {
        handoff_reset(&h);
        sleep_us(idle_us);
        double t0 = now_s();
        mtx_lock(&lock);
        posted = &h;
        cnd_signal(&cond);
        mtx_unlock(&lock);
        lat[s] = handoff_await(&h, t0, &on_spawner);
    }
    mtx_lock(&lock);
    quit = 1;
    cnd_signal(&cond);
    mtx_unlock(&lock);
    thrd_join(t, NULL);
    handoff_report(lat, n, on_spawner);
    free(lat);
    return 0;
}
