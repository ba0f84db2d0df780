/* mpi_harness.h: what the MPI suites share (test_mpi.c, test_mpi_faults.c).

   Every rank runs the suite. Rank 0 prints the test lines; a CHECK that
   fails on any rank fails the test on every rank (agree_on_failures sums
   the counts before RUN prints), so the closing line is the same
   everywhere. Include after dag_array.h (with DAG_IMPLEMENTATION) and
   test.h. */
#ifndef DAG_MPI_HARNESS_H
#define DAG_MPI_HARNESS_H
#include <mpi.h>

/* A test's failures, summed over the ranks: RUN then prints one verdict. */
#define RUN_ALL(name) \
    do { \
        MPI_Barrier(MPI_COMM_WORLD); \
        RUN(name); \
    } while (0)
static void agree_on_failures(void) {
    int mine = test__failures_in_current, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    test__failures_in_current = all;
}

/* dag.h's errors are kept, not printed: the last one is what a test reads
   (after the region or call that logs it; tasks on several threads may log
   at once, so one at a time) */
static atomic_int logged_errors;
static char last_log[2048];
static atomic_flag last_log_taken = ATOMIC_FLAG_INIT;
static void quiet_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)user; (void)item;
    if (level == DAG_LOG_ERROR) {
        atomic_fetch_add(&logged_errors, 1);
        while (atomic_flag_test_and_set(&last_log_taken)) {}
        snprintf(last_log, sizeof last_log, "%s", message);
        atomic_flag_clear(&last_log_taken);
    }
}
static __attribute__((unused)) void setup_with_cache(int threads, size_t rank_cache_limit) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads;
    d.rank_cache_limit = rank_cache_limit;
    d.logger.func = quiet_logger;
    atomic_store(&logged_errors, 0);
    last_log[0] = 0;
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);
}
static __attribute__((unused)) void setup(int threads) { setup_with_cache(threads, 0); }

/* The random programs' tasks, over spans of LEN doubles, and the same as plain loops */
enum { LEN = 37 };
DAG_TASK(void, put, (double *, a), (double, c)) {
    for (int i = 0; i < LEN; i++) a[i] = c + i;
}
DAG_TASK(void, mix, (double *, a), (const double *, b), (double, c)) {
    for (int i = 0; i < LEN; i++) a[i] = a[i] * 0.5 + b[i] * c + i;
}
DAG_TASK(void, add3, (double *, a), (const double *, b), (const double *, c)) {
    for (int i = 0; i < LEN; i++) a[i] += b[i] - 0.25 * c[i];
}
static __attribute__((unused)) void put_ref(double *a, double c) { for (int i = 0; i < LEN; i++) a[i] = c + i; }
static __attribute__((unused)) void mix_ref(double *a, const double *b, double c) {
    for (int i = 0; i < LEN; i++) a[i] = a[i] * 0.5 + b[i] * c + i;
}
static __attribute__((unused)) void add3_ref(double *a, const double *b, const double *c) {
    for (int i = 0; i < LEN; i++) a[i] += b[i] - 0.25 * c[i];
}

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 8) & 0xffffff; }
#endif
