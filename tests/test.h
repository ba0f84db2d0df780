/* test.h: the smallest test harness that reads well.

       TEST(two_readers_run_at_the_same_time) { ... CHECK(cond); ... }
       int main(void) { RUN(two_readers_run_at_the_same_time); return test_summary(); }

   Each TEST is one behaviour statement. CHECK records a failure with the
   file and line and keeps going; test_summary prints "N passed, N failed"
   (the closing line CI reads) and returns the exit code.

   A test that cannot run ends in one of two ways. NOT_APPLICABLE(why): it
   is about something this build or this run does not have by design (a
   GPU where none is installed, a backend this binary is built without, a
   mock runtime's failures on a real runtime, a run made with no devices on
   purpose); another run of make test, or a machine with the hardware, runs
   it. SKIP(why): something that should be here is missing (a setting, a
   dependency); with STRICT=1 tests/run.sh counts it as a failure. The
   closing line counts them apart: "N passed, N failed, N skipped, N not
   applicable". */
#ifndef DAG_TEST_H
#define DAG_TEST_H
#include <math.h>
#ifdef __cplusplus   /* the suites built as C++ (make test's c++ group): C's atomic names from <atomic> */
#include <atomic>
using std::atomic_int; using std::atomic_bool; using std::atomic_long; using std::atomic_size_t;
using std::atomic_load; using std::atomic_store; using std::atomic_fetch_add; using std::atomic_fetch_sub;
using std::atomic_exchange; using std::atomic_init; using std::atomic_compare_exchange_strong;
#else
#include <stdatomic.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Cholesky suites' check (test_array.c, test_mpi.c): ||A - L L^T||_F /
   ||A||_F over the lower triangle, L the lower triangle of f, both n x n
   column-major. */
static __attribute__((unused)) double cholesky_residual(const double *a, const double *f, int n) {
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double s = 0;
            for (int k = 0; k <= j; k++) s += f[i + k * n] * f[j + k * n];
            num += (a[i + j * n] - s) * (a[i + j * n] - s);
            den += a[i + j * n] * a[i + j * n];
        }
    return sqrt(num / den);
}

static int test__failures_in_current;
static int test__passed, test__failed;
static int test__skipped __attribute__((unused)), test__skip_current __attribute__((unused));
static int test__not_applicable __attribute__((unused));
static const char *test__current;

#define TEST(name) static void test_##name(void)
static inline double test__seconds(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            test__failures_in_current++; \
            fprintf(stderr, "  FAIL %s:%d: %s: CHECK(%s)\n", __FILE__, __LINE__, test__current, #cond); \
        } \
    } while (0)
#define CHECK_EQ_INT(a, b) \
    do { \
        long long test__a = (long long)(a), test__b = (long long)(b); \
        if (test__a != test__b) { \
            test__failures_in_current++; \
            fprintf(stderr, "  FAIL %s:%d: %s: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, test__current, #a, #b, \
                    test__a, test__b); \
        } \
    } while (0)
#define SKIP(...) \
    do { \
        test__skip_current = 1; \
        printf("     skipped: "); \
        printf(__VA_ARGS__); \
        printf("\n"); \
        return; \
    } while (0)
#define NOT_APPLICABLE(...) \
    do { \
        test__skip_current = 2; \
        printf("     not applicable: "); \
        printf(__VA_ARGS__); \
        printf("\n"); \
        return; \
    } while (0)
/* DAG_TEST_ONLY=word runs only the tests whose names contain it (the others are not counted) */
static inline int test__selected(const char *name) {
    const char *only = getenv("DAG_TEST_ONLY");
    return !only || !*only || strstr(name, only) != NULL;
}
#define RUN(name) \
    do { \
        if (!test__selected(#name)) break; \
        double test__start = test__seconds(); \
        test__current = #name; \
        test__failures_in_current = 0; \
        test__skip_current = 0; \
        test_##name(); \
        if (test__skip_current == 2 && !test__failures_in_current) { \
            test__not_applicable++; \
            printf("n/a  %s\n", #name); \
        } else if (test__skip_current && !test__failures_in_current) { \
            test__skipped++; \
            printf("skip %s\n", #name); \
        } else if (test__failures_in_current) { \
            test__failed++; \
            printf("FAIL %s\n", #name); \
        } else { \
            test__passed++; \
            printf("ok   %s (%.2f s)\n", #name, test__seconds() - test__start); \
        } \
        fflush(stdout); \
    } while (0)

static int test_summary(void) {
    printf("%d passed, %d failed", test__passed, test__failed);
    if (test__skipped) printf(", %d skipped", test__skipped);
    if (test__not_applicable) printf(", %d not applicable", test__not_applicable);
    printf("\n");
    return test__failed ? 1 : 0;
}

static inline double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n scaled by DAG_TEST_SCALE (the sanitizer groups run 0.05), at least `least`. */
static inline int test_scaled(int n, int least) {
    const char *e = getenv("DAG_TEST_SCALE");
    double s = e ? atof(e) : 1.0;
    int k = (int)(n * (s > 0 ? s : 1.0));
    return k < least ? least : k;
}

/* Waits at most `seconds` for *f to become nonzero; 1 if it did. */
static inline int wait_flag(atomic_int *f, double seconds) {
    double end = now_s() + seconds;
    while (!atomic_load(f))
        if (now_s() > end) return 0;
    return 1;
}

/* A hung test fails loudly (DAG_TEST_TIMEOUT seconds, default 300), and an
   assertion inside dag.h still ends with the closing line. */
#if defined(__unix__) || defined(__APPLE__)
#include <signal.h>
#include <unistd.h>
static void test__watchdog_fired(int sig) {
    (void)sig;
    static const char msg[] = "\nFAIL: watchdog: a test hung (deadlock?) in test ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    if (test__current) ignored = write(2, test__current, strlen(test__current));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(2);
}
static void test__abort_caught(int sig) {
    (void)sig;
    static const char msg[] = "FAIL (aborted: an assertion failed or abort() was called) in test ";
    ssize_t ignored = write(1, msg, sizeof msg - 1);
    if (test__current) ignored = write(1, test__current, strlen(test__current));
    ignored = write(1, "\n", 1);
    char line[64];
    int n = snprintf(line, sizeof line, "%d passed, %d failed\n", test__passed, test__failed + 1);
    if (n > 0) ignored = write(1, line, (size_t)n);
    (void)ignored;
    _exit(1);
}
static inline void watchdog_start(void) {
    signal(SIGABRT, test__abort_caught);
    const char *e = getenv("DAG_TEST_TIMEOUT");
    unsigned s = e ? (unsigned)atoi(e) : 300u;
    signal(SIGALRM, test__watchdog_fired);
    alarm(s ? s : 300u);
}
#else
static inline void watchdog_start(void) {}
#endif

/* A busy wait that does not depend on the scheduler, for "slow" tasks. */
static inline void test_spin_us(unsigned us) {
    struct timespec a, b;
    timespec_get(&a, TIME_UTC);
    do timespec_get(&b, TIME_UTC);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < (long)us);
}
#endif
