/* test.h: the smallest test harness that reads well.

       TEST(two_readers_run_at_the_same_time) { ... CHECK(cond); ... }
       int main(void) { RUN(two_readers_run_at_the_same_time); return test_summary(); }

   Each TEST is one behaviour statement. CHECK records a failure with the
   file and line and keeps going; test_summary prints "N passed, N failed"
   (the closing line CI reads) and returns the exit code. */
#ifndef DAG_TEST_H
#define DAG_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test__failures_in_current;
static int test__passed, test__failed;
static const char *test__current;

#define TEST(name) static void test_##name(void)
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
#define RUN(name) \
    do { \
        test__current = #name; \
        test__failures_in_current = 0; \
        test_##name(); \
        if (test__failures_in_current) { \
            test__failed++; \
            printf("FAIL %s\n", #name); \
        } else { \
            test__passed++; \
            printf("ok   %s\n", #name); \
        } \
        fflush(stdout); \
    } while (0)

static int test_summary(void) {
    printf("%d passed, %d failed\n", test__passed, test__failed);
    return test__failed ? 1 : 0;
}

/* A busy wait that does not depend on the scheduler, for "slow" tasks. */
static void test_spin_us(unsigned us) {
    struct timespec a, b;
    timespec_get(&a, TIME_UTC);
    do timespec_get(&b, TIME_UTC);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < (long)us);
}
#endif
