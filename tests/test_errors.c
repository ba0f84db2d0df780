/* test_errors.c: failures propagate the way dag.h documents, and bad input
   gives a clear error code (and the exact item to the logger), never a crash
   or a hang.

   Memory that a failing task touches is static and used by one test only:
   dag.h keeps a failed writer in its dependency state, so should a failure
   ever outlive its region again (see a_failure_does_not_outlive_its_region),
   a reused stack address could not carry it from one test into the next.

   Build: cc -std=c11 -pedantic -Wall -Wextra -Werror -I. -Itests tests/test_errors.c -pthread
   Env:   DAG_TEST_TIMEOUT (seconds, default 300): the whole file's watchdog. */
#define _POSIX_C_SOURCE 200809L   /* posix_spawn: run_child */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */


#define SLOW_US 20000u

/* The logger hook keeps every item (and message) it is given. */
#define LOGGED_MAX 4096
static atomic_int num_logged;
static int logged_item[LOGGED_MAX];
static char logged_text[LOGGED_MAX][160];
static atomic_int echo_log;   /* print what is logged (for debugging) */

static void capture_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)level;
    (void)user;
    int i = atomic_fetch_add(&num_logged, 1);
    if (i >= LOGGED_MAX) return;
    logged_item[i] = item;
    snprintf(logged_text[i], sizeof logged_text[i], "%s", message);
    if (atomic_load(&echo_log)) fprintf(stderr, "  (logged [%s]: %s)\n", dag_result_string(item), message);
}
static int log_mark(void) { return atomic_load(&num_logged); }
/* The first item logged since `mark`, or -1 if none. */
static int first_logged_since(int mark) {
    return atomic_load(&num_logged) > mark && mark < LOGGED_MAX ? logged_item[mark] : -1;
}
/* How many times `item` was logged since `mark`. */
static int times_logged_since(int mark, int item) {
    int n = atomic_load(&num_logged), k = 0;
    for (int i = mark; i < n && i < LOGGED_MAX; i++) k += logged_item[i] == item;
    return k;
}
static int logged_text_since(int mark, const char *needle) {
    int n = atomic_load(&num_logged);
    for (int i = mark; i < n && i < LOGGED_MAX; i++)
        if (strstr(logged_text[i], needle)) return 1;
    return 0;
}

static int setup_failures;
static void setup_or_note(int threads) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads;
    d.logger.func = capture_logger;
    if (dag_setup(&d) != DAG_OK || dag_num_threads() != threads) {
        fprintf(stderr, "FAIL: dag_setup(%d threads)\n", threads);
        setup_failures++;
    }
}
/* Errors are expected here: only a crash or a hang is a failure of setup. */
static void shutdown_quietly(void) { (void)dag_shutdown(); }

/* Two program threads whose errors are logged at the same time: every message reaches the logger, and
   helgrind (make test-helgrind runs this file) sees the logger's settings under their lock, not races
   (a lock of C11 atomics is invisible to it: the lock names its edges for it). */
DAG_TASK(long, square_for_the_log, (long, x)) { return x * x; }
static void *fetch_twice_in_a_loop(void *arg) {
    int wrong = 0;
    for (long i = 0; i < 100; i++) {
        long r = -1;
        dag_task t = dag_spawn(square_for_the_log, Val(i));
        wrong += dag_fetch(t, &r) != DAG_OK || r != i * i;
        wrong += dag_fetch(t, &r) != DAG_ERR_STALE_HANDLE;   /* logged */
    }
    *(int *)arg = wrong;
    return NULL;
}
TEST(two_threads_whose_errors_are_logged_at_once_reach_the_logger_every_time) {
    int mark = log_mark(), wrong[2] = { -1, -1 };
    pthread_t a, b;
    CHECK_EQ_INT(pthread_create(&a, NULL, fetch_twice_in_a_loop, &wrong[0]), 0);
    CHECK_EQ_INT(pthread_create(&b, NULL, fetch_twice_in_a_loop, &wrong[1]), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK_EQ_INT(wrong[0] + wrong[1], 0);
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_STALE_HANDLE), 200);
}

/* A failed spawn returns a handle with no record that carries its code. */
#define CHECK_SPAWN_FAILED(h, code) \
    do { \
        CHECK((h).ptr == NULL); \
        CHECK_EQ_INT((h).gen, (code)); \
    } while (0)

/* ------------------------------------------------------------------------ */
/* tasks                                                                    */
/* ------------------------------------------------------------------------ */

DAG_TASK(int, fail_writing, (int *, x), (int, code)) {
    (void)x;
    dag_fail(code, "could not produce %s", "x");
    return 0;
}
DAG_TASK(int, fail_plain, (int, code)) {
    dag_fail(code, "plain failure %d", code);
    return 0;
}
DAG_TASK(void, slow_fail_void, (int, code)) {
    test_spin_us(SLOW_US);
    dag_fail(code, "slow failure");
}
DAG_TASK(void, write_int, (int *, x), (int, v)) { *x = v; }
DAG_TASK(void, slow_write_int, (int *, x), (int, v)) {
    test_spin_us(SLOW_US);
    *x = v;
}
DAG_TASK(void, read_int, (const int *, x), (int *, seen)) { *seen = *x; }
DAG_TASK(void, add_one, (int *, x)) { *x += 1; }
DAG_TASK(int, use_int, (int, v)) { return v + 1; }
DAG_TASK(int, return_int, (int, v)) { return v; }
DAG_TASK(void, nothing, (int, v)) { (void)v; }
DAG_TASK(void, take_pointer, (int *, p)) { (void)p; }
DAG_TASK(int, pointer_is_null, (const int *, p)) { return p == NULL; }
DAG_TASK(int, take_int, (int, v)) { return v; }
DAG_TASK(double, take_double, (double, v)) { return v; }
DAG_TASK(void, read_span, (const int *, p)) { (void)p; }
DAG_TASK(void, take_bytes, (const void *, p)) { (void)p; }
DAG_TASK(void, void_waits_gate, (atomic_int *, gate)) { wait_flag(gate, 3.0); }
DAG_TASK(int, int_waits_gate, (atomic_int *, gate)) { return wait_flag(gate, 3.0); }

typedef struct pair { int a, b, c; } pair;
DAG_TASK(int, take_pair, (pair, p)) { return p.a; }
DAG_TASK(pair, make_pair, (int, v)) {
    pair p;
    p.a = p.b = p.c = v;
    return p;
}

/* nested failures */
DAG_TASK(void, parent_of_failing_child, (int *, x)) {
    dag_spawn(write_int, Out(x, 1), Val(1));
    dag_spawn(fail_writing, InOut(x, 1), Val(DAG_USER_ERROR + 9));
}
DAG_TASK(void, returns_inside_a_region, (int *, x)) {
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(x, 1), Val(8));
        return;   /* skips the block's end */
    }
}

/* ------------------------------------------------------------------------ */
/* failing tasks                                                            */
/* ------------------------------------------------------------------------ */

TEST(a_failing_task_cancels_its_data_and_fut_dependents) {
    static int x, y = -1, z = -1;
    int mark = log_mark();
    int v = 123;
    DAG_DATADEPS {
        dag_task f = dag_spawn(fail_writing, Out(&x, 1), Val(DAG_USER_ERROR + 5));
        dag_task reader = dag_spawn(read_int, In(&x, 1), Out(&y, 1));        /* data dependent */
        dag_task fut = dag_spawn(use_int, Fut(f));                          /* Fut dependent */
        dag_task deeper = dag_spawn(read_int, In(&y, 1), Out(&z, 1));        /* depends on the reader */
        dag_task fut2 = dag_spawn(use_int, Fut(fut));                       /* depends on the Fut user */

        CHECK_EQ_INT(dag_wait(f), DAG_USER_ERROR + 5);
        CHECK_EQ_INT(dag_wait(reader), DAG_ERR_DEPENDENCY_FAILED);
        CHECK_EQ_INT(dag_wait(fut), DAG_ERR_DEPENDENCY_FAILED);
        CHECK_EQ_INT(dag_wait(deeper), DAG_ERR_DEPENDENCY_FAILED);
        CHECK_EQ_INT(dag_fetch(fut2, &v), DAG_ERR_DEPENDENCY_FAILED);
        CHECK_EQ_INT(dag_task_result(reader), DAG_ERR_DEPENDENCY_FAILED);

        /* the messages name the task that failed, even two steps away */
        CHECK(strstr(dag_task_message(f), "fail_writing") != NULL);
        CHECK(strstr(dag_task_message(f), "could not produce x") != NULL);
        CHECK(strstr(dag_task_message(reader), "fail_writing") != NULL);
        CHECK(strstr(dag_task_message(fut), "fail_writing") != NULL);
        CHECK(strstr(dag_task_message(deeper), "fail_writing") != NULL);
        CHECK(strstr(dag_task_message(fut2), "fail_writing") != NULL);

        /* a dependent spawned after the failure was already known */
        dag_task late = dag_spawn(read_int, In(&x, 1), Out(&y, 1));
        CHECK_EQ_INT(dag_wait(late), DAG_ERR_DEPENDENCY_FAILED);
    }
    CHECK_EQ_INT(y, -1);   /* cancelled bodies never ran */
    CHECK_EQ_INT(z, -1);
    CHECK_EQ_INT(v, 123);
    CHECK(times_logged_since(mark, DAG_USER_ERROR + 5) >= 1);
    CHECK(logged_text_since(mark, "could not produce x"));
}

TEST(independent_tasks_and_their_dependents_complete_beside_a_failure) {
    static int bad;
    int a = 0, b = -1, c = 0;
    int got = 0;
    DAG_DATADEPS {
        dag_task f = dag_spawn(fail_writing, Out(&bad, 1), Val(DAG_USER_ERROR + 2));
        dag_task w = dag_spawn(slow_write_int, Out(&a, 1), Val(10));
        dag_task r = dag_spawn(read_int, In(&a, 1), Out(&b, 1));
        dag_task inc = dag_spawn(add_one, InOut(&a, 1));
        dag_spawn(slow_write_int, Out(&c, 1), Val(3));
        dag_task v = dag_spawn(return_int, Val(41));
        dag_task u = dag_spawn(use_int, Fut(v));
        CHECK_EQ_INT(dag_wait(f), DAG_USER_ERROR + 2);
        CHECK_EQ_INT(dag_wait(w), DAG_OK);
        CHECK_EQ_INT(dag_wait(r), DAG_OK);
        CHECK_EQ_INT(dag_wait(inc), DAG_OK);
        CHECK_EQ_INT(dag_fetch(u, &got), DAG_OK);
        CHECK(strcmp(dag_task_message(w), "") == 0);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 2);
    CHECK_EQ_INT(a, 11);
    CHECK_EQ_INT(b, 10);
    CHECK_EQ_INT(c, 3);
    CHECK_EQ_INT(got, 42);
}

TEST(the_region_reports_the_failing_tasks_own_code) {
    static int x, y;
    DAG_DATADEPS {
        dag_spawn(fail_writing, Out(&x, 1), Val(DAG_USER_ERROR + 5));
        /* cancellations come after the failure: the region still names its code */
        for (int i = 0; i < 5; i++) dag_spawn(read_int, In(&x, 1), Out(&y, 1));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 5);
    CHECK(strcmp(dag_result_string(DAG_USER_ERROR + 5), "user error") == 0);

    /* the function form returns the same */
    static int x2, y2;
    dag_region r = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    dag_spawn(fail_writing, Out(&x2, 1), Val(DAG_USER_ERROR + 6));
    dag_spawn(read_int, In(&x2, 1), Out(&y2, 1));
    CHECK_EQ_INT(dag_region_end(r), DAG_USER_ERROR + 6);
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 6);

    /* a void task failing with code 0 still fails (DAG_ERR_TASK_FAILED) */
    DAG_DATADEPS { dag_spawn(slow_fail_void, Val(0)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_TASK_FAILED);

    /* a clean region after them reports ok */
    int z = 0;
    DAG_DATADEPS { dag_spawn(write_int, Out(&z, 1), Val(1)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(z, 1);
}

TEST(a_failure_inside_a_child_fails_the_parent) {
    static int x, after = -1;
    DAG_DATADEPS {
        dag_task p = dag_spawn(parent_of_failing_child, Out(&x, 1));
        dag_task d = dag_spawn(read_int, In(&x, 1), Out(&after, 1));
        CHECK_EQ_INT(dag_wait(p), DAG_ERR_DEPENDENCY_FAILED);
        CHECK(strstr(dag_task_message(p), "fail_writing") != NULL);
        CHECK_EQ_INT(dag_wait(d), DAG_ERR_DEPENDENCY_FAILED);   /* the parent's dependents too */
    }
    CHECK(dag_last_region_result() != DAG_OK);
    CHECK_EQ_INT(after, -1);
    CHECK_EQ_INT(x, 1);   /* the child before the failure ran */
}

DAG_TASK(int, named_child_fails, (int, v)) {
    dag_fail(DAG_USER_ERROR + 4, "the child failed");
    return v;
}
DAG_TASK(void, parent_of_named_child, (int, v)) { dag_spawn(named_child_fails, Val(v)); }

TEST(a_spawn_name_is_not_given_to_the_tasks_its_body_spawns) {
    /* dag_spawn_with gives one spawn a name: the message of the parent must
       name the child that failed, not the parent's own name */
    DAG_DATADEPS {
        dag_task p = dag_spawn_with(&(dag_options){.name = "outer-step"}, parent_of_named_child, Val(1));
        CHECK_EQ_INT(dag_wait(p), DAG_ERR_DEPENDENCY_FAILED);
        CHECK(strstr(dag_task_message(p), "named_child_fails") != NULL);
    }
}

/* Dagger's try/catch around fetch, OpenMP's checked taskwait: a body told
   of its child's failure by dag_fetch, dag_wait or dag_task_result has
   handled it; a failure it was not told of still fails it. */
DAG_TASK(int, handles_its_child, (int, how)) {
    dag_task c = how == 2 ? dag_spawn_with(&(dag_options){.run_inline = 1}, named_child_fails, Val(1))
                          : dag_spawn(named_child_fails, Val(1));
    int v = 0;
    dag_result r = how == 1 ? dag_wait(c) : dag_fetch(c, &v);
    if (how == 3) r = dag_task_result(c);
    return r == DAG_USER_ERROR + 4 ? 7 : -1;
}
DAG_TASK(int, handles_one_of_two, (int, v)) {
    dag_task seen = dag_spawn(named_child_fails, Val(v));
    dag_spawn_with(&(dag_options){.name = "never-fetched"}, named_child_fails, Val(v));
    return dag_wait(seen) == DAG_USER_ERROR + 4 ? 7 : -1;
}
DAG_TASK(int, handles_the_failure_not_its_dependent, (int, v)) {
    dag_task f = dag_spawn(named_child_fails, Val(v));
    dag_spawn_with(&(dag_options){.name = "dependent-of-failed"}, use_int, Fut(f));
    return dag_wait(f) == DAG_USER_ERROR + 4 ? 7 : -1;
}
DAG_TASK(int, waits_for_a_sibling, (dag_task, sibling)) { return dag_wait(sibling) == DAG_USER_ERROR + 4 ? 7 : -1; }
DAG_TASK(int, lets_a_sibling_see_the_failure, (int, v)) {
    dag_task f = dag_spawn(named_child_fails, Val(v));
    int got = 0;
    dag_fetch(dag_spawn(waits_for_a_sibling, Val(f)), &got);
    return got;
}

TEST(a_body_that_was_told_of_its_childs_failure_has_handled_it) {
    for (int how = 0; how < 4; how++) {   /* fetch, wait, fetch of an inline child, dag_task_result */
        int v = 0;
        CHECK_EQ_INT(dag_fetch(dag_spawn(handles_its_child, Val(how)), &v), DAG_OK);
        CHECK_EQ_INT(v, 7);
    }
    dag_task two = dag_spawn(handles_one_of_two, Val(1));
    CHECK_EQ_INT(dag_wait(two), DAG_ERR_DEPENDENCY_FAILED);
    CHECK(strstr(dag_task_message(two), "never-fetched") != NULL);
    dag_task dep = dag_spawn(handles_the_failure_not_its_dependent, Val(1));
    CHECK_EQ_INT(dag_wait(dep), DAG_ERR_DEPENDENCY_FAILED);   /* its dependent was cancelled, unseen */
    /* only the spawner's body handles: a sibling that waits for the failed
       task is told, yet the parent was not */
    dag_task sib = dag_spawn(lets_a_sibling_see_the_failure, Val(1));
    CHECK_EQ_INT(dag_wait(sib), DAG_ERR_DEPENDENCY_FAILED);
    CHECK(strstr(dag_task_message(sib), "named_child_fails") != NULL);
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_DEPENDENCY_FAILED);
}

TEST(dag_wait_all_reports_a_top_level_failure_once) {
    dag_task f = dag_spawn(fail_plain, Val(DAG_USER_ERROR + 3));
    CHECK(f.ptr != NULL);
    CHECK_EQ_INT(dag_wait_all(), DAG_USER_ERROR + 3);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

TEST(a_failure_does_not_outlive_its_region) {
    /* the failed writer stays in the dependency state; once its region has
       reported it, later regions touching the memory must not be cancelled */
    static int x;
    DAG_DATADEPS { dag_spawn(fail_writing, Out(&x, 1), Val(DAG_USER_ERROR + 1)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 1);
    DAG_DATADEPS { dag_spawn(write_int, Out(&x, 1), Val(5)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 5);
}

TEST(a_failure_cancels_what_touches_its_data_until_its_own_region_ends_not_its_cancelled_dependents_region) {
    /* The rule docs/guide.md states: a failed task cancels later tasks on the
       spans it writes until its own region ends; a task it cancelled writes
       nothing, and in a nested block its cancellation ends with that block.
       The fuzzer's seeds 45 and 92 were this program, with the failure slow
       or not. */
    for (int slow = 0; slow < 2; slow++) {
        static int a[3], b[3];
        int seen = -1;
        dag_task late_shared = {0}, late_own = {0};
        a[0] = a[1] = a[2] = 0;
        DAG_DATADEPS {
            if (slow) dag_spawn(slow_write_int, Out(&a[1], 1), Val(9));   /* the failure comes after the nested spawn */
            dag_spawn(fail_writing, Out(&a[1], 1), Val(DAG_USER_ERROR + 2));   /* writes a[1], fails */
            DAG_DATADEPS {
                dag_spawn(add_one, InOut(&a[1], 2));   /* a[1] and a[2]: cancelled by the failure */
            }
            CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DEPENDENCY_FAILED);   /* the block reports its own */
            DAG_DATADEPS {
                late_shared = dag_spawn(read_int, In(&a[1], 1), Out(&seen, 1));   /* the failed task's data */
                late_own = dag_spawn(add_one, InOut(&a[2], 1));   /* only the cancelled task's */
                CHECK_EQ_INT(dag_wait(late_shared), DAG_ERR_DEPENDENCY_FAILED);
                CHECK(strstr(dag_task_message(late_shared), "fail_writing") != NULL);
                CHECK_EQ_INT(dag_wait(late_own), DAG_OK);
            }
            CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DEPENDENCY_FAILED);
        }
        CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 2);
        CHECK_EQ_INT(seen, -1);
        CHECK_EQ_INT(a[2], 1);   /* add_one ran once: the cancelled one wrote nothing */
        /* an enclosing block whose only failure a nested block reported is fine */
        DAG_DATADEPS {
            DAG_DATADEPS { dag_spawn(fail_writing, Out(&b[0], 1), Val(DAG_USER_ERROR + 3)); }
            CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 3);
            dag_spawn(write_int, Out(&b[0], 1), Val(4));
        }
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
        CHECK_EQ_INT(b[0], 4);
    }
}

/* ------------------------------------------------------------------------ */
/* bad spans                                                                */
/* ------------------------------------------------------------------------ */

TEST(a_null_span_with_a_count_is_rejected) {
    int mark = log_mark();
    dag_task h = {0};
    DAG_DATADEPS {
        h = dag_spawn(read_span, In((const int *)NULL, 4));
        CHECK_SPAWN_FAILED(h, DAG_ERR_NULL_SPAN);
        CHECK_EQ_INT(dag_wait(h), DAG_ERR_NULL_SPAN);
        CHECK_EQ_INT(dag_task_result(h), DAG_ERR_NULL_SPAN);
        CHECK(dag_ready(h));
        CHECK(strstr(dag_task_message(h), dag_result_string(DAG_ERR_NULL_SPAN)) != NULL);
        /* a Fut of the failed spawn cannot be used either */
        dag_task u = dag_spawn(use_int, Fut(h));
        CHECK(u.ptr == NULL);
    }
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_NULL_SPAN);
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_NULL_SPAN);   /* the region reports the failed spawn */
    /* 2-D too */
    mark = log_mark();
    h = dag_spawn(read_span, In((const int *)NULL, 2, 2, 4));
    CHECK_SPAWN_FAILED(h, DAG_ERR_NULL_SPAN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_NULL_SPAN);
    dag_wait_all();
}

TEST(a_region_of_failed_spawns_says_so_once_and_in_its_result) {
    int mark = log_mark();
    DAG_DATADEPS {
        for (int i = 0; i < 127; i++) dag_spawn(read_span, In((const int *)NULL, 4));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_NULL_SPAN);
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_NULL_SPAN), 2);   /* the first, and the count at the end */
    CHECK(logged_text_since(mark, "127 spawns in this region failed"));
    /* one failure: one line */
    mark = log_mark();
    DAG_DATADEPS { dag_spawn(read_span, In((const int *)NULL, 4)); }
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_NULL_SPAN), 1);
    /* outside a region, each failure is its own news */
    mark = log_mark();
    for (int i = 0; i < 3; i++) dag_spawn(read_span, In((const int *)NULL, 4));
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_NULL_SPAN), 3);
    dag_wait_all();
}

TEST(a_span_of_zero_elements_is_rejected) {
    int a[16] = {0};
    int mark = log_mark();
    dag_task h = dag_spawn(read_span, In(a, 0));
    CHECK_SPAWN_FAILED(h, DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(dag_wait(h), DAG_ERR_EMPTY_SPAN);

    mark = log_mark();
    h = dag_spawn(read_span, In(a, 0, 4, 8));   /* a tile of zero rows */
    CHECK_SPAWN_FAILED(h, DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_EMPTY_SPAN);

    mark = log_mark();
    h = dag_spawn(take_pointer, Out(a, 0));
    CHECK_SPAWN_FAILED(h, DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_EMPTY_SPAN);
}

TEST(a_tile_of_zero_columns_is_rejected) {
    /* In(p, rows, 0, ld) has no elements (cols == 0 must not fall back to
       a 1-D span of `rows` elements) */
    int a[32] = {0};
    int mark = log_mark();
    dag_task h = dag_spawn(read_span, In(a, 4, 0, 8));
    CHECK_SPAWN_FAILED(h, DAG_ERR_EMPTY_SPAN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_EMPTY_SPAN);
    dag_wait_all();
}

TEST(a_tile_wider_than_its_leading_dimension_is_rejected) {
    int m[64] = {0};
    int mark = log_mark();
    DAG_DATADEPS { dag_spawn(read_span, In(m, 4, 9, 8)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_BAD_TILE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_TILE);
    mark = log_mark();
    dag_task h = dag_spawn(read_span, In(m, 4, 9, 8));
    CHECK_SPAWN_FAILED(h, DAG_ERR_BAD_TILE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_TILE);
    CHECK_EQ_INT(dag_wait(h), DAG_ERR_BAD_TILE);
    /* a leading dimension of 0 is narrower than any tile */
    mark = log_mark();
    h = dag_spawn(read_span, In(m, 2, 2, 0));
    CHECK_SPAWN_FAILED(h, DAG_ERR_BAD_TILE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_TILE);
    dag_wait_all();
}

/* ------------------------------------------------------------------------ */
/* fetch                                                                    */
/* ------------------------------------------------------------------------ */

TEST(a_fetch_of_the_wrong_size_is_rejected) {
    DAG_DATADEPS {
        dag_task t = dag_spawn(return_int, Val(7));
        double d = -1;
        long long ll = -1;
        int mark = log_mark();
        CHECK_EQ_INT(dag_fetch(t, &d), DAG_ERR_FETCH_SIZE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_FETCH_SIZE);
        CHECK(d == -1);
        mark = log_mark();
        CHECK_EQ_INT(dag_fetch(t, &ll), DAG_ERR_FETCH_SIZE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_FETCH_SIZE);
        mark = log_mark();
        CHECK_EQ_INT(dag_fetch_bytes(t, NULL, sizeof(int)), DAG_ERR_FETCH_SIZE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_FETCH_SIZE);
        /* the right size but a float for an int: its bits would be garbage */
        float f = -1;
        mark = log_mark();
        CHECK_EQ_INT(dag_fetch(t, &f), DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
        CHECK(f == -1);
        /* the right size still works afterwards */
        int v = 0;
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
        CHECK_EQ_INT(v, 7);
        /* another integer type of the same size is the same bits: taken, as C converts */
        unsigned u = 0;
        CHECK_EQ_INT(dag_fetch(dag_spawn(return_int, Val(8)), &u), DAG_OK);
        CHECK_EQ_INT((int)u, 8);
        /* the same for a task run inside its spawn, whose handle carries the result */
        dag_task in = dag_spawn_with(&(dag_options){.run_inline = 1}, return_int, Val(9));
        CHECK_EQ_INT(dag_fetch(in, &f), DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(dag_fetch(in, &v), DAG_OK);
        CHECK_EQ_INT(v, 9);
        /* dag_fetch_bytes checks the size alone (bytes are bytes) */
        CHECK_EQ_INT(dag_fetch_bytes(dag_spawn(return_int, Val(10)), &f, sizeof f), DAG_OK);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);   /* a bad fetch does not fail the region */
}

/* A pointer or struct result fetched into a number (a forgotten '*'), or a number into a pointer or
   struct of its size, would read one's bits as the other's: refused like a float into an int; and a Fut
   of a pointer goes only into a pointer to the same type, as Val's does. */
static double fetched_cell = 2.5;
DAG_TASK(double *, where_the_cell_is, (int, v)) { (void)v; return &fetched_cell; }
DAG_TASK(long, deref_long, (const long *, p)) { return *p; }
DAG_TASK(double, deref_double, (const double *, p)) { return *p; }
typedef struct two_floats { float re, im; } two_floats;
DAG_TASK(two_floats, make_two_floats, (int, v)) {
    two_floats z = { (float)v, 0 };
    return z;
}
TEST(a_fetch_or_fut_between_a_number_and_a_pointer_or_struct_is_refused) {
    DAG_DATADEPS {
        for (int inline_spawn = 0; inline_spawn < 2; inline_spawn++) {
            dag_options o = { 0 };
            o.run_inline = inline_spawn;
            dag_task p = dag_spawn_with(&o, where_the_cell_is, Val(0)), s = dag_spawn_with(&o, make_two_floats, Val(3)),
                     d = dag_spawn_with(&o, take_double, Val(1.5));
            double x = -1;
            int mark = log_mark();
            CHECK_EQ_INT(dag_fetch(p, &x), DAG_ERR_ARG_TYPE);   /* meant: double *x */
            CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
            CHECK(logged_text_since(mark, "the result's a struct or pointer"));
            CHECK_EQ_INT(dag_fetch(s, &x), DAG_ERR_ARG_TYPE);
            CHECK(x == -1);
            double *px = NULL;
            CHECK_EQ_INT(dag_fetch(d, &px), DAG_ERR_ARG_TYPE);
            CHECK(px == NULL);
            /* each still gives its result into the right type */
            CHECK_EQ_INT(dag_fetch(p, &px), DAG_OK);
            CHECK(px == &fetched_cell);
            two_floats v = { 0, 0 };
            CHECK_EQ_INT(dag_fetch(s, &v), DAG_OK);
            CHECK(v.re == 3);
            CHECK_EQ_INT(dag_fetch(d, &x), DAG_OK);
            CHECK(x == 1.5);
        }
        dag_task p = dag_spawn(where_the_cell_is, Val(0));
        int mark = log_mark();
        dag_task bad = dag_spawn(deref_long, Fut(p));   /* a double * for a const long * */
        CHECK_SPAWN_FAILED(bad, DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
        CHECK(logged_text_since(mark, "Fut of task 'where_the_cell_is', which returns 8 bytes (a pointer)"));
        double got = 0;
        CHECK_EQ_INT(dag_fetch(dag_spawn(deref_double, Fut(p)), &got), DAG_OK);
        CHECK(got == 2.5);
        dag_release(p);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_ARG_TYPE);   /* (the refused spawn's: its block says so) */
}

TEST(a_fetch_on_a_running_void_task_says_no_result) {
    atomic_int gate;
    atomic_init(&gate, 0);
    DAG_DATADEPS {
        dag_task t = dag_spawn(void_waits_gate, Val(&gate));
        int v = -1;
        int mark = log_mark();
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_NO_RESULT);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_NO_RESULT);
        CHECK_EQ_INT(v, -1);
        atomic_store(&gate, 1);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
}

TEST(a_finished_void_task_still_says_it_has_no_result) {
    /* a void task's record must not turn stale as soon as it finishes:
       inside its still open region, a fetch (or a Fut) of it is told there is
       no result, not that "its region has ended" */
    DAG_DATADEPS {
        dag_task t = dag_spawn(nothing, Val(1));
        CHECK_EQ_INT(dag_wait(t), DAG_OK);
        int v = -1;
        int mark = log_mark();
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_NO_RESULT);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_NO_RESULT);
        mark = log_mark();
        dag_task h = dag_spawn(take_int, Fut(t));
        CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
    }
}

TEST(a_fetch_after_its_region_ended_gives_the_kept_result_and_spends_the_handle) {
    dag_task t;
    DAG_DATADEPS { t = dag_spawn(return_int, Val(3)); }
    int v = -1;
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
    CHECK_EQ_INT(v, 3);
    v = -1;
    int mark = log_mark();
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_STALE_HANDLE);   /* the fetch took the result */
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(v, -1);
    CHECK_EQ_INT(dag_release(t), DAG_ERR_STALE_HANDLE);     /* nothing left to release */
    /* waiting on it is harmless: it finished */
    CHECK_EQ_INT(dag_wait(t), DAG_OK);
    CHECK(dag_ready(t));
}

TEST(a_second_release_is_stale_and_a_released_result_cannot_be_fetched) {
    dag_task t;
    DAG_DATADEPS { t = dag_spawn(return_int, Val(3)); }
    CHECK_EQ_INT(dag_release(t), DAG_OK);
    CHECK_EQ_INT(dag_release(t), DAG_ERR_STALE_HANDLE);
    int v = -1;
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(v, -1);
    /* inside the region, while the record still lives */
    DAG_DATADEPS {
        dag_task u = dag_spawn(return_int, Val(4));
        CHECK_EQ_INT(dag_release(u), DAG_OK);
        CHECK_EQ_INT(dag_release(u), DAG_ERR_STALE_HANDLE);
        CHECK_EQ_INT(dag_fetch(u, &v), DAG_ERR_STALE_HANDLE);
    }
}

DAG_TASK(int, return_and_write, (int *, x), (int, v)) {
    *x = v;
    return v;
}
TEST(a_fetched_result_is_stale_for_a_task_with_spans_too) {
    /* stale-ness must not depend on whether the dependency state still
       holds the record */
    static int x;
    dag_task t;
    DAG_DATADEPS { t = dag_spawn(return_and_write, Out(&x, 1), Val(3)); }
    int v = -1;
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
    CHECK_EQ_INT(v, 3);
    int mark = log_mark();
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_STALE_HANDLE);
    DAG_DATADEPS {
        dag_task u = dag_spawn(return_and_write, Out(&x, 1), Val(5));
        CHECK_EQ_INT(dag_fetch(u, &v), DAG_OK);
        CHECK_EQ_INT(v, 5);
        CHECK_EQ_INT(dag_fetch(u, &v), DAG_ERR_STALE_HANDLE);   /* the record is still in the region */
    }
}

TEST(a_span_whose_elements_are_not_the_parameters_is_rejected) {
    static double d[4];
    static short sh[4];
    int mark = log_mark();
    dag_task h = dag_spawn(read_span, In(d, 4));   /* doubles for a const int * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "argument 1 (const int * p): a span of double for a parameter that points to int"));
    mark = log_mark();
    h = dag_spawn(take_pointer, InOut(sh, 2, 2, 4));   /* a tile of shorts for an int * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    dag_data r = dag_register(d, 4);
    mark = log_mark();
    h = dag_spawn(read_span, In(r));                   /* registered doubles too */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a span of 8-byte elements for a parameter that points to int"));
    dag_data_unregister(r);
    /* elements of the right size, and any span for a void *, are fine */
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, In(sh, 4))), DAG_OK);
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, In(d, 4))), DAG_OK);
    static unsigned u[4];
    CHECK_EQ_INT(dag_wait(dag_spawn(read_span, In(u, 4))), DAG_OK);   /* unsigned for int: same size, as C allows */
    dag_wait_all();
}

TEST(a_negative_or_overflowing_count_is_rejected_in_every_build) {
    static int a[16];
    int minus = -1;
    long big = (long)(PTRDIFF_MAX / 2);
    struct { const char *what; dag_arg arg; } cases[] = {
        { "In(a, -1)", In(a, minus) },
        { "In(a, -1, 4, 4)", In(a, minus, 4, 4) },
        { "In(a, 4, -1, 4)", In(a, 4, minus, 4) },
        { "In(a, 4, 4, -1)", In(a, 4, 4, minus) },
        { "In(a, PTRDIFF_MAX / 2)", In(a, big) },
        { "In(a, PTRDIFF_MAX / 2, 4, 4)", In(a, big, 4, 4) },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int mark = log_mark();
        dag_task h = dag_spawn_args(read_span, &cases[i].arg, 1);
        CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_ARGUMENT);
        CHECK(logged_text_since(mark, i < 4 ? "is negative" : "do not fit in memory"));
        if (!logged_text_since(mark, "argument 1")) printf("     %s: no message naming argument 1\n", cases[i].what);
    }
    int mark = log_mark();
    dag_data r = dag_register(a, minus);
    CHECK(r.id == 0);
    CHECK(logged_text_since(mark, "dag_data_register: a count of"));
    r = dag_register_tile(a, 4, 4, minus);
    CHECK(r.id == 0);
    CHECK(logged_text_since(mark, "dag_data_register_tile: a count of"));
    dag_wait_all();
}

DAG_TASK(void, take_two, (int, a), (int, b)) { (void)a; (void)b; }
TEST(a_null_argument_array_is_named_as_such_not_as_a_wrong_count) {
    int mark = log_mark();
    dag_task h = dag_spawn_args(take_two, NULL, 2);
    CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_ARGUMENT);
    CHECK(logged_text_since(mark, "the argument array is NULL"));
    mark = log_mark();
    dag_arg one[1] = { Val(1) };
    h = dag_spawn_args(take_two, one, 1);
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_COUNT);
    CHECK(logged_text_since(mark, "1 arguments for 2 parameters"));
    dag_wait_all();
}

/* dag_arg's element size is 32 bits: a size of 0, or of 4 GiB and more, would be cut to another
   (a span of "no elements", or one of 8 bytes that orders nothing past them) */
TEST(a_span_whose_element_size_is_zero_or_4_gib_is_refused_with_its_reason) {
    static char byte;
    size_t sizes[3] = {0, (size_t)1 << 32, ((size_t)1 << 32) + 8};
    for (int i = 0; i < 3; i++) {
        int mark = log_mark();
        dag_arg a[1] = { dag_arg_span(DAG_ACCESS_IN, &byte, 1, sizes[i]) };
        dag_task h = dag_spawn_args(take_bytes, a, 1);
        CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_ARGUMENT);
        CHECK(logged_text_since(mark, "an element size of 0 bytes, or of 4 GiB or more"));
    }
    dag_wait_all();
}

/* As a call takes 0 for a pointer: and NULL is an integer in C++ (0L, __null) */
TEST(a_zero_for_a_pointer_parameter_is_a_null_pointer_and_another_number_is_rejected) {
    int r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(pointer_is_null, Val(0)), &r), DAG_OK);
    CHECK_EQ_INT(r, 1);
    r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(pointer_is_null, Val(0L)), &r), DAG_OK);
    CHECK_EQ_INT(r, 1);
    int mark = log_mark();
    dag_task h = dag_spawn(pointer_is_null, Val(5));
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a number for a pointer parameter"));
    mark = log_mark();
    h = dag_spawn(pointer_is_null, Val(0.0));   /* a floating zero is no null pointer constant */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    dag_wait_all();
}

TEST(a_number_for_a_pointer_parameter_is_rejected) {
    int mark = log_mark();
    dag_task h = dag_spawn(take_pointer, Val(1.5));   /* 8 bytes, as the pointer: sizes alone would let it through */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a number for a pointer parameter"));
    pair p = {1, 2, 3};
    mark = log_mark();
    h = dag_spawn(take_pair, Val(2.0 * p.a));         /* a number for a struct */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    static int x;
    CHECK_EQ_INT(dag_wait(dag_spawn(take_pointer, Val(&x))), DAG_OK);   /* a pointer is fine */
    CHECK_EQ_INT(dag_wait(dag_spawn(take_pointer, Val((int *)NULL))), DAG_OK);
    dag_wait_all();
}

/* Each parameter is a value, a pointer to numbers of one type, a pointer to
   something else, or a void * (or char pointer); each argument says which
   it is (In/Out/InOut of a pointer to what, Val of what), and a spawn that
   pairs them wrongly is refused naming the task, the argument, both types
   and the fix, never run on bytes of another type. */
typedef struct node { int value; struct node *next; } node;
DAG_TASK(double, sum_n, (const double *, x), (size_t, n)) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}
DAG_TASK(double, first_of, (const double *, x)) { return x[0]; }
DAG_TASK(int, node_value, (node *, n)) { return n->value; }
DAG_TASK(long, count_longs, (const long *, p)) { return p[0]; }

/* The span for a size_t, run in a child process (this program again): it
   crashed inside the task before spawns knew a pointer from a value. */
static int child_span_for_a_value(void) {
    static double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double d = 0;
    dag_task t = dag_spawn(sum_n, In(x, 8), In(x, 8));
    return dag_fetch(t, &d) == DAG_ERR_ARG_TYPE && t.ptr == NULL ? 0 : 1;
}
static const char *test_program;
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
/* Runs `test_errors --child name`: its exit code, or 128 + the signal that ended it. */
static int run_child(const char *name) {
    char *argv[] = { (char *)test_program, (char *)"--child", (char *)name, NULL };
    pid_t pid;
    fflush(NULL);
    if (posix_spawn(&pid, test_program, NULL, NULL, argv, environ) != 0) return -1;
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
TEST(a_span_for_a_value_parameter_is_refused_not_run) {
    CHECK_EQ_INT(run_child("span-for-a-value"), 0);
    static double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int mark = log_mark();
    dag_task h = dag_spawn(sum_n, In(x, 8), In(x, 8));
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "dag_spawn(sum_n): argument 2 (size_t n): a span of double for a parameter that is "
                                  "not a pointer: pass a value with Val()"));
    mark = log_mark();
    h = dag_spawn(take_double, In(x, 8));   /* it ran on the pointer's bytes as a double */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "argument 1 (double v): a span of double for a parameter that is not a pointer"));
    mark = log_mark();
    dag_data r = dag_register(x, 8);
    h = dag_spawn(take_int, In(r));           /* registered data too */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "argument 1 (int v): a span of 8-byte elements for a parameter that is not a pointer"));
    dag_data_unregister(r);
    double d = 0;   /* the right arguments still work */
    CHECK_EQ_INT(dag_fetch(dag_spawn(sum_n, In(x, 8), Val((size_t)8)), &d), DAG_OK);
    CHECK(d == 36);
    dag_wait_all();
}

/* An access picked at run time that is none of the three (a cast, an uninitialised variable) is refused
   by name: taken as another, the writer would not order with its reader. */
TEST(a_span_whose_access_is_not_in_out_or_inout_is_refused_by_name) {
    int x = 0, seen = -1;
    int bad[4] = { 0, 4, 8, 255 };
    for (int k = 0; k < 4; k++) {
        int mark = log_mark();
        dag_arg w[2] = { dag_arg_span((dag_access)bad[k], &x, 1, sizeof x), Val(k + 1) };
        dag_task h = dag_spawn_args(write_int, w, 2);
        CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_ARGUMENT);
        char want[96];
        snprintf(want, sizeof want, "access %d is not DAG_ACCESS_IN, DAG_ACCESS_OUT or DAG_ACCESS_INOUT", bad[k]);
        CHECK(logged_text_since(mark, want));
    }
    DAG_DATADEPS {   /* the three order as they should */
        dag_arg w[2] = { dag_arg_span(DAG_ACCESS_OUT, &x, 1, sizeof x), Val(7) };
        dag_spawn_args(slow_write_int, w, 2);
        dag_spawn(read_int, In(&x, 1), Out(&seen, 1));
    }
    CHECK_EQ_INT(seen, 7);
}

TEST(a_span_of_another_number_type_of_the_same_size_is_refused) {
    static int64_t ix[4] = {1, 2, 3, 4};
    static double x[4] = {0.5, 1, 2, 3};
    static float f[4];
    static long lx[4] = {7};
    static long long llx[4] = {7};
    int mark = log_mark();
    dag_task h = dag_spawn(first_of, In(ix, 4));   /* 8-byte integers for a double *: sizes alone let it through */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "dag_spawn(first_of): argument 1 (const double * x): a span of long for a parameter "
                                  "that points to double: pass a span of double"));
    mark = log_mark();
    h = dag_spawn(count_longs, In(x, 2, 2, 2));    /* doubles for a long *, as a tile */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a span of double for a parameter that points to long"));
    mark = log_mark();
    h = dag_spawn(first_of, In(f, 4));
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    static node nodes[2];
    mark = log_mark();
    h = dag_spawn(first_of, In(nodes, 2));          /* structs for a double * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "that are not numbers for a parameter that points to double"));
    mark = log_mark();
    h = dag_spawn(node_value, In(x, 4));            /* numbers for a node * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a span of double for a parameter that points to something other than numbers"));
    /* what C lets through stays fine: the same type, another sign or name of the same size, structs for a
       struct pointer, a span built at run time of the right element size, anything for a void * */
    double d = 0;
    long v = 0;
    int n = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(first_of, In(x, 4)), &d), DAG_OK);
    CHECK(d == 0.5);
    CHECK_EQ_INT(dag_fetch(dag_spawn(count_longs, In(llx, 4)), &v), DAG_OK);   /* long long for long, both 8 bytes */
    CHECK_EQ_INT(v, 7);
    CHECK_EQ_INT(dag_fetch(dag_spawn(count_longs, InOut(lx, 4)), &v), DAG_OK);
    nodes[0].value = 5;
    CHECK_EQ_INT(dag_fetch(dag_spawn(node_value, In(nodes, 2)), &n), DAG_OK);
    CHECK_EQ_INT(n, 5);
    dag_arg a = dag_arg_span(DAG_ACCESS_IN, x, 4, sizeof(double));
    CHECK_EQ_INT(dag_fetch(dag_spawn_args(first_of, &a, 1), &d), DAG_OK);
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, In(nodes, 2))), DAG_OK);
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, In(ix, 4))), DAG_OK);
    dag_wait_all();
}

TEST(a_pointer_value_of_another_type_is_refused) {
    static double x[2] = {1, 2};
    static node nd = {9, NULL};
    int mark = log_mark();
    dag_task h = dag_spawn(node_value, Val(&x[0]));   /* a double * for a node *: it ran, status ok */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "dag_spawn(node_value): argument 1 (node * n): Val of a pointer to double for a "
                                  "parameter that points to something other than numbers"));
    static int64_t ix[2];
    mark = log_mark();
    h = dag_spawn(first_of, Val(&ix[0]));             /* an int64_t * for a const double * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "Val of a pointer to long for a parameter that points to double"));
    mark = log_mark();
    h = dag_spawn(first_of, Val(&nd));                /* a node * for a const double * */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    mark = log_mark();
    h = dag_spawn(take_int, Val(&nd.value));          /* a pointer for a number */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a pointer for a number parameter"));
    mark = log_mark();
    h = dag_spawn(node_value, Val(nd));               /* a struct for a pointer */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK(logged_text_since(mark, "a struct for a pointer parameter: pass its address"));
    /* the right pointer, void *, NULL and any pointer into a void * pass */
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(node_value, Val(&nd)), &v), DAG_OK);
    CHECK_EQ_INT(v, 9);
    void *opaque = &nd;
    CHECK_EQ_INT(dag_fetch(dag_spawn(node_value, Val(opaque)), &v), DAG_OK);
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, Val(&x[0]))), DAG_OK);
    CHECK_EQ_INT(dag_wait(dag_spawn(take_bytes, Val(NULL))), DAG_OK);
    dag_wait_all();
}

DAG_TASK(double *, a_pointer, (int, unused)) {
    (void)unused;
    static double cell = 4;
    return &cell;
}
DAG_TASK(double, read_through, (double *, p)) { return *p; }
TEST(a_fut_passes_a_number_into_a_number_and_nothing_else) {
    int mark = log_mark();
    DAG_DATADEPS {
        dag_task p = dag_spawn(a_pointer, Val(0));
        dag_task h = dag_spawn(take_int, Fut(p));      /* a pointer result into an int */
        CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
        CHECK(logged_text_since(mark, "argument 1 (int v): Fut of task 'a_pointer', which returns 8 bytes (a pointer), "
                                      "for a parameter that is a number"));
        dag_task d = dag_spawn(take_double, Val(2.5));
        h = dag_spawn(read_through, Fut(d));           /* a double result into a double *: 8 bytes too */
        CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
        double v = 0;
        CHECK_EQ_INT(dag_fetch(dag_spawn(read_through, Fut(p)), &v), DAG_OK);   /* a pointer into a pointer */
        CHECK(v == 4);
        int i = 0;
        CHECK_EQ_INT(dag_fetch(dag_spawn(take_int, Fut(d)), &i), DAG_OK);      /* a double into an int: converted */
        CHECK_EQ_INT(i, 2);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_ARG_TYPE);
}

/* ------------------------------------------------------------------------ */
/* arguments                                                                */
/* ------------------------------------------------------------------------ */

TEST(a_value_that_does_not_fit_its_parameter_is_rejected) {
    int mark = log_mark();
    dag_task h = dag_spawn(take_pointer, Val(1));   /* 4 bytes into an 8-byte pointer */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
    CHECK_EQ_INT(dag_wait(h), DAG_ERR_ARG_TYPE);

    pair p = {1, 2, 3};
    mark = log_mark();
    h = dag_spawn(take_int, Val(p));                 /* a struct into an int */
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);

    atomic_int gate;
    atomic_init(&gate, 0);
    DAG_DATADEPS {
        dag_task v = dag_spawn(void_waits_gate, Val(&gate));   /* held running */
        mark = log_mark();
        h = dag_spawn(take_int, Fut(v));             /* a void task has no result */
        CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
        atomic_store(&gate, 1);
        dag_task s = dag_spawn(make_pair, Val(4));
        mark = log_mark();
        h = dag_spawn(take_double, Fut(s));          /* a struct result into a double */
        CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(first_logged_since(mark), -1);  /* the region's second failed spawn: logged at its end */
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_ARG_TYPE);
    dag_wait_all();
}

TEST(spawn_args_with_the_wrong_count_is_rejected) {
    int x = 0;
    dag_arg args[3];
    args[0] = Out(&x, 1);
    args[1] = Val(5);
    args[2] = Val(6);
    int mark = log_mark();
    dag_task h = dag_spawn_args(write_int, args, 1);
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_COUNT);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_COUNT);
    mark = log_mark();
    h = dag_spawn_args(write_int, args, 3);
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_COUNT);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_COUNT);
    mark = log_mark();
    h = dag_spawn_args(write_int, NULL, 2);   /* the count is right: the array is what is missing */
    CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    mark = log_mark();
    h = dag_spawn_args(write_int, args, -1);
    CHECK_SPAWN_FAILED(h, DAG_ERR_ARG_COUNT);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_COUNT);
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_ARG_COUNT);
    /* the right count works */
    DAG_DATADEPS { dag_spawn_args(write_int, args, 2); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 5);
}

TEST(a_registered_tile_wider_than_its_leading_dimension_is_refused) {
    double m[64];
    int mark = log_mark();
    dag_data bad = dag_register_tile(m, 4, 9, 8);   /* rows of 9 elements 8 apart overlap */
    CHECK(bad.id == 0);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_TILE);
    mark = log_mark();
    dag_data empty = dag_register_tile(m, 0, 4, 8);
    CHECK(empty.id == 0);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    dag_data one_row = dag_register_tile(m, 1, 9, 8);   /* one row: no stride to clash with */
    CHECK(one_row.id != 0);
    CHECK_EQ_INT(dag_data_unregister(one_row), DAG_OK);
}

DAG_TASK(void, takes_ld, (const double *, tile), (int, ld)) {
    (void)tile;
    (void)ld;
}
DAG_TASK(void, takes_two_and_ld, (const double *, row), (const double *, tile), (int, ld)) {
    (void)row;
    (void)tile;
    (void)ld;
}
DAG_TASK(void, takes_ld_pointer, (const double *, tile), (int *, ld)) {
    (void)tile;
    (void)ld;
}
TEST(ld_naming_no_span_of_the_task_is_refused_with_a_message) {
    double m[64];
    int mark = log_mark();
    dag_task t = dag_spawn(takes_ld, In(m, 4, 4, 8), Ld(&m[1]));   /* no span starts at m[1] */
    CHECK(t.ptr == NULL);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    CHECK(logged_text_since(mark, "argument 2 (int ld): Ld names no span argument"));
    mark = log_mark();
    t = dag_spawn(takes_two_and_ld, In(m, 64), In(m, 4, 3, 8), Ld(m));   /* two shapes start at m */
    CHECK(t.ptr == NULL);
    CHECK(logged_text_since(mark, "argument 3 (int ld): Ld's pointer starts spans with different leading dimensions"));
    mark = log_mark();
    t = dag_spawn(takes_ld_pointer, In(m, 4, 4, 8), Ld(m));   /* an ld is an integer */
    CHECK(t.ptr == NULL);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_ARG_TYPE);
    mark = log_mark();
    t = dag_spawn(takes_ld, In(m, 4, 4, 8), Ld(((dag_data){ 12345 })));   /* a handle never registered */
    CHECK(t.ptr == NULL);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_INVALID_ARGUMENT);   /* the first refusal */
}

TEST(an_unknown_data_handle_is_rejected) {
    int arr[4] = {1, 2, 3, 4};
    dag_data bogus = {12345};
    dag_data zero = {0};
    int mark = log_mark();
    dag_task h = dag_spawn(take_pointer, Out(bogus));
    CHECK_SPAWN_FAILED(h, DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);
    mark = log_mark();
    h = dag_spawn(read_span, In(zero));
    CHECK_SPAWN_FAILED(h, DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);
    CHECK(dag_data_pointer(bogus) == NULL);
    mark = log_mark();
    CHECK_EQ_INT(dag_data_unregister(bogus), DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);

    /* a handle is unknown again once unregistered */
    dag_data d = dag_register(arr, 4);
    DAG_DATADEPS { dag_spawn(take_pointer, InOut(d)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(dag_data_unregister(d), DAG_OK);
    CHECK(dag_data_pointer(d) == NULL);
    mark = log_mark();
    h = dag_spawn(read_span, In(d));
    CHECK_SPAWN_FAILED(h, DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(dag_data_unregister(d), DAG_ERR_BAD_DATA);
    mark = log_mark();
    CHECK_EQ_INT(dag_data_discard(d), DAG_ERR_BAD_DATA);   /* the scratch form says the same */
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_BAD_DATA);
    dag_data s = dag_register(arr, 4);   /* without devices, discarding is unregistering */
    DAG_DATADEPS { dag_spawn(take_pointer, InOut(s)); }
    CHECK_EQ_INT(dag_data_discard(s), DAG_OK);
    CHECK(dag_data_pointer(s) == NULL);

    /* and a new registration in the recycled slot does not revive it */
    dag_data e = dag_register(arr + 1, 2);
    CHECK(e.id != d.id);
    CHECK(dag_data_pointer(d) == NULL);
    CHECK(dag_data_pointer(e) == (void *)(arr + 1));
    CHECK_EQ_INT(dag_data_unregister(e), DAG_OK);
    dag_wait_all();
}

TEST(zero_and_failed_handles_answer_without_crashing) {
    dag_task none = {0};
    int v = 0;
    CHECK_EQ_INT(dag_wait(none), DAG_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(dag_task_result(none), DAG_ERR_INVALID_HANDLE);
    CHECK(dag_ready(none));
    CHECK(strcmp(dag_task_message(none), "") == 0);
    int mark = log_mark();
    CHECK_EQ_INT(dag_fetch(none, &v), DAG_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_HANDLE);
    mark = log_mark();
    dag_task h = dag_spawn(use_int, Fut(none));
    CHECK_SPAWN_FAILED(h, DAG_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_HANDLE);
    dag_task failed = {NULL, DAG_ERR_SCOPE, 0};
    CHECK_EQ_INT(dag_fetch(failed, &v), DAG_ERR_SCOPE);
    CHECK(strstr(dag_task_message(failed), dag_result_string(DAG_ERR_SCOPE)) != NULL);
    dag_wait_all();
}

/* A floating Val or Fut outside an integer parameter's range: C leaves the conversion undefined (UBSan
   said so); it is clamped to the range, NaN gives 0, and a double past a float's range is its infinity. */
DAG_TASK(long long, ranges_seen, (int, i), (unsigned char, u8), (long long, ll), (unsigned long long, ull), (float, f),
         (short, sh)) {
    return (i == INT_MAX) + 2 * (u8 == 0) + 4 * (ll == LLONG_MIN) + 8 * (ull == ULLONG_MAX) + 16 * (f == (float)INFINITY) +
           32 * (sh == 0);
}
DAG_TASK(double, make_double, (double, x)) { return x; }
TEST(a_floating_value_outside_an_integer_parameter_is_clamped_not_undefined) {
    long long seen = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(ranges_seen, Val(1e300), Val(-1.0), Val(-1e300), Val(1e300), Val(1e300), Val(NAN)),
                           &seen), DAG_OK);
    CHECK_EQ_INT(seen, 63);
    DAG_DATADEPS {   /* through Fut too: a result converted when its consumer is made ready */
        dag_task big = dag_spawn(make_double, Val(3e9)), nan = dag_spawn(make_double, Val(NAN));
        dag_task t = dag_spawn(ranges_seen, Fut(big), Fut(nan), Val(-1e19), Val(2e19), Val(-1e39), Val(0.0));
        seen = 0;
        dag_fetch(t, &seen);
    }
    CHECK_EQ_INT(seen, 63 - 16);   /* (-1e39 is float's negative infinity) */
    int in_range = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(return_int, Val(-2147483647.9)), &in_range), DAG_OK);   /* in range: C's truncation */
    CHECK_EQ_INT(in_range, -2147483647);
}

/* NULL where a pointer is expected by the query and the logging calls: answered, not dereferenced */
TEST(a_null_scope_or_log_message_is_answered_not_dereferenced) {
    CHECK(dag_scope_part(NULL, DAG_OPENCL) == NULL);
    dag_scope s = dag_scope(.opencl.one = 2);
    CHECK(dag_scope_part(&s, DAG_OPENCL) && dag_scope_part(&s, DAG_OPENCL)->one == 2);
    int mark = log_mark();
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, NULL);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    CHECK(logged_text_since(mark, "no message"));
}

/* ------------------------------------------------------------------------ */
/* scopes                                                                   */
/* ------------------------------------------------------------------------ */

TEST(a_scope_no_worker_satisfies_is_rejected) {
    int x = 0;
    int mark = log_mark();
    dag_task h = dag_spawn_with(&(dag_options){.scope = dag_scope(.thread = 9)}, write_int, Out(&x, 1), Val(1));
    CHECK_SPAWN_FAILED(h, DAG_ERR_SCOPE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_SCOPE);
    CHECK_EQ_INT(dag_wait(h), DAG_ERR_SCOPE);

    mark = log_mark();
    h = dag_spawn_with(&(dag_options){.scope = dag_scope(.threads = DAG_THREAD_BIT(5) | DAG_THREAD_BIT(6))}, write_int,
                       Out(&x, 1), Val(2));
    CHECK_SPAWN_FAILED(h, DAG_ERR_SCOPE);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_SCOPE);

    DAG_DATADEPS {
        DAG_WITH_OPTIONS(.scope = dag_scope(.thread = 9)) {
            mark = log_mark();
            h = dag_spawn(write_int, Out(&x, 1), Val(3));
            CHECK_SPAWN_FAILED(h, DAG_ERR_SCOPE);
            CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_SCOPE);
        }
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_SCOPE);
    CHECK_EQ_INT(x, 0);   /* nothing ran */
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_SCOPE);
}

/* ------------------------------------------------------------------------ */
/* unbalanced regions                                                       */
/* ------------------------------------------------------------------------ */

static void leave_block_by_goto(int *x) {
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(x, 1), Val(4));
        goto out;
    }
out:
    return;
}
static void leave_block_by_break(int *x) {
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(x, 1), Val(5));
        break;
    }
}
static void leave_block_by_return(int *x) {
    DAG_SEQUENTIAL {
        dag_spawn(slow_write_int, Out(x, 1), Val(6));
        return;
    }
}

TEST(leaving_a_block_by_goto_is_reported_by_the_enclosing_region_end) {
    int x = 0;
    int mark = log_mark();
    dag_region outer = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    leave_block_by_goto(&x);
    CHECK_EQ_INT(dag_region_end(outer), DAG_ERR_UNBALANCED_REGION);
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_UNBALANCED_REGION);
    CHECK(times_logged_since(mark, DAG_ERR_UNBALANCED_REGION) >= 1);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_UNBALANCED_REGION);
    CHECK_EQ_INT(x, 4);   /* closing the abandoned block waited for its task */
    /* everything is balanced again */
    DAG_DATADEPS { dag_spawn(write_int, Out(&x, 1), Val(1)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

/* dag_wait_all inside DAG_WITH_OPTIONS blocks (a table operation's, or the program's) waits with the
   blocks still open and their options in force: it closed them as abandoned, logged it, and the
   block's end then said its region was not open. A waiting region above them is still closed. */
TEST(dag_wait_all_inside_an_options_block_leaves_it_open_with_its_options) {
    int x = 0;
    int mark = log_mark();
    DAG_WITH_OPTIONS(.priority = 3) {
        DAG_WITH_OPTIONS(.name = "inner") {
            dag_spawn(slow_write_int, Out(&x, 1), Val(7));
            CHECK_EQ_INT(dag_wait_all(), DAG_OK);
            CHECK_EQ_INT(x, 7);
        }
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(first_logged_since(mark), -1);
    mark = log_mark();
    DAG_WITH_OPTIONS(.priority = 3) {
        dag_region abandoned = dag_region_begin(DAG_REGION_DATADEPS, NULL);
        (void)abandoned;
        dag_spawn(slow_write_int, Out(&x, 1), Val(8));
        CHECK_EQ_INT(dag_wait_all(), DAG_ERR_UNBALANCED_REGION);   /* the DATADEPS above the block */
        CHECK_EQ_INT(x, 8);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);   /* the options block itself was still open */
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_UNBALANCED_REGION), 1);
}

/* dag_wait_all() inside a DAG_DATADEPS block (outside a body) closes the block, having waited for its
   tasks; what it logs names the call, and the block's own end then says who closed it, not "closed
   twice" (which a second end of a block closed normally still says). */
TEST(dag_wait_all_inside_a_datadeps_block_says_it_closed_the_block) {
    int x = 0;
    int mark = log_mark();
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(&x, 1), Val(9));
        CHECK_EQ_INT(dag_wait_all(), DAG_ERR_UNBALANCED_REGION);
        CHECK_EQ_INT(x, 9);
        CHECK(logged_text_since(mark, "dag_wait_all: DAG_DATADEPS opened at depth 1 is still open, and is closed here "
                                      "(dag_wait_all inside its block"));
        mark = log_mark();
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_UNBALANCED_REGION);
    CHECK(logged_text_since(mark, "this region was closed already, by the dag_wait_all that found it open"));
    CHECK(!logged_text_since(mark, "closed twice"));
    dag_region r = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    CHECK_EQ_INT(dag_region_end(r), DAG_OK);
    mark = log_mark();
    CHECK_EQ_INT(dag_region_end(r), DAG_ERR_UNBALANCED_REGION);
    CHECK(logged_text_since(mark, "closed twice"));
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

/* DAG_WITH_OPTIONS(...) DAG_DATADEPS { } reads as one block: dag_last_region_result() after it is the
   DATADEPS' failure (it was the options block's own DAG_OK), also through nested options blocks; a
   failure of a region that ended earlier in the block counts too, and the next block starts afresh. */
TEST(an_options_block_around_a_failed_region_reports_that_failure) {
    int x = 0;
    DAG_WITH_OPTIONS(.priority = 1) DAG_DATADEPS { dag_spawn(fail_writing, Out(&x, 1), Val(DAG_USER_ERROR + 5)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 5);
    DAG_WITH_OPTIONS(.priority = 1) {
        DAG_WITH_OPTIONS(.name = "inner") {
            DAG_DATADEPS { dag_spawn(fail_writing, Out(&x, 1), Val(DAG_USER_ERROR + 6)); }
            DAG_DATADEPS { dag_spawn(write_int, Out(&x, 1), Val(1)); }   /* fine, after the failure */
        }
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 6);
    DAG_WITH_OPTIONS(.priority = 1) DAG_DATADEPS { dag_spawn(write_int, Out(&x, 1), Val(2)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 2);
    dag_wait_all();
}

/* A break leaves the block through its end, as continue does (the region waits for its task), and is
   warned of at once: a C reader takes it for a break out of a loop around the block. */
TEST(a_break_inside_a_block_ends_the_block_and_is_warned_of) {
    int x = 0;
    int mark = log_mark();
    leave_block_by_break(&x);
    CHECK_EQ_INT(x, 5);   /* the block's end waited */
    CHECK(logged_text_since(mark, "a break inside a DAG_DATADEPS"));
    CHECK_EQ_INT(first_logged_since(mark), DAG_OK);   /* a warning, no error: the block ended as it should */
    mark = log_mark();
    for (int turn = 0; turn < 3; turn++)
        DAG_SEQUENTIAL {
            if (turn == 1) continue;   /* the same way out, and no word */
            dag_spawn(slow_write_int, Out(&x, 1), Val(turn));
        }
    CHECK_EQ_INT(x, 2);
    CHECK_EQ_INT(first_logged_since(mark), -1);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

TEST(leaving_a_block_by_return_is_reported_by_the_next_region_end_around_it) {
    int x = 0;
    int mark = log_mark();
    dag_region outer = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    leave_block_by_return(&x);
    /* a block opened after the abandoned one is nested in it and closes fine */
    int y = 0;
    DAG_DATADEPS { dag_spawn(write_int, Out(&y, 1), Val(2)); }
    CHECK_EQ_INT(y, 2);
    CHECK_EQ_INT(dag_region_end(outer), DAG_ERR_UNBALANCED_REGION);
    CHECK(times_logged_since(mark, DAG_ERR_UNBALANCED_REGION) >= 1);
    CHECK_EQ_INT(x, 6);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

TEST(a_task_body_that_returns_inside_a_region_fails_with_unbalanced_region) {
    static int x;
    int mark = log_mark();
    DAG_DATADEPS {
        dag_task t = dag_spawn(returns_inside_a_region, Out(&x, 1));
        CHECK_EQ_INT(dag_wait(t), DAG_ERR_UNBALANCED_REGION);
        CHECK_EQ_INT(x, 8);   /* its child still finished first */
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_UNBALANCED_REGION);
    CHECK(times_logged_since(mark, DAG_ERR_UNBALANCED_REGION) >= 1);
}

TEST(misused_region_tokens_are_rejected) {
    dag_region bogus = {0, 0};
    CHECK_EQ_INT(dag_region_end(bogus), DAG_ERR_INVALID_ARGUMENT);
    dag_region r = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    CHECK_EQ_INT(dag_region_end(r), DAG_OK);
    int mark = log_mark();
    CHECK_EQ_INT(dag_region_end(r), DAG_ERR_UNBALANCED_REGION);   /* closed twice */
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_UNBALANCED_REGION);
    mark = log_mark();
    dag_region k = dag_region_begin((dag_region_kind)99, NULL);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_region_end(k), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

/* ------------------------------------------------------------------------ */
/* misc misuse                                                              */
/* ------------------------------------------------------------------------ */

TEST(dag_fail_outside_a_task_is_reported_not_fatal) {
    int mark = log_mark();
    dag_fail(DAG_USER_ERROR + 1, "not in a task");
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

TEST(a_trace_written_to_an_unwritable_path_reports_io) {
    int mark = log_mark();
    CHECK_EQ_INT(dag_trace_write_json("/nonexistent-dir-dag-test/x.json"), DAG_ERR_IO);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_IO);
    mark = log_mark();
    CHECK_EQ_INT(dag_trace_write_dot("/nonexistent-dir-dag-test/x.dot"), DAG_ERR_IO);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_IO);
    CHECK_EQ_INT(dag_trace_write_json(NULL), DAG_ERR_IO);
}

TEST(every_result_has_its_own_message) {
    for (int i = 0; i < DAG__RESULT_COUNT; i++) {
        const char *s = dag_result_string(i);
        CHECK(s != NULL && s[0] != 0);
        for (int j = 0; j < i; j++) CHECK(strcmp(s, dag_result_string(j)) != 0);
    }
    CHECK(strcmp(dag_result_string(DAG_USER_ERROR), "user error") == 0);
    CHECK(strcmp(dag_result_string(DAG_USER_ERROR + 77), "user error") == 0);
    CHECK(dag_result_string(-1) != NULL);
    CHECK(dag_result_string(500) != NULL);
}

/* ------------------------------------------------------------------------ */
/* after shutdown                                                           */
/* ------------------------------------------------------------------------ */

TEST(spawning_after_shutdown_fails_with_shut_down) {
    int x = 0;
    dag_task before = dag_spawn(return_int, Val(1));
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    CHECK(!dag_is_setup());
    CHECK_EQ_INT(dag_num_threads(), 0);

    int mark = log_mark();
    dag_task h = dag_spawn(write_int, Out(&x, 1), Val(1));
    CHECK_SPAWN_FAILED(h, DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(first_logged_since(mark), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(dag_wait(h), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(x, 0);

    int v = 0;
    CHECK_EQ_INT(dag_wait(before), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(dag_fetch(before, &v), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(dag_wait_all(), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(dag_data_unregister((dag_data){1}), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(dag_trace_write_json("/tmp/dag-never-written.json"), DAG_ERR_SHUT_DOWN);

    /* a block still runs its body once and reports the shutdown; the spawn above said it on this
       thread, so neither the block nor the spawns in it (an array operation makes hundreds) say it again */
    int ran = 0;
    mark = log_mark();
    DAG_DATADEPS {
        ran++;
        for (int i = 0; i < 100; i++) {
            dag_task refused = dag_spawn(write_int, Out(&x, 1), Val(i));
            CHECK_SPAWN_FAILED(refused, DAG_ERR_SHUT_DOWN);
        }
        CHECK(dag_data_register(&x, 1, sizeof x).id == 0);
    }
    CHECK_EQ_INT(ran, 1);
    CHECK_EQ_INT(x, 0);
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_SHUT_DOWN);
    CHECK_EQ_INT(first_logged_since(mark), -1);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);   /* twice is harmless */

    /* after the next set-up cycle it is said again, once */
    setup_or_note(2);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    mark = log_mark();
    DAG_DATADEPS {
        dag_task refused = dag_spawn(write_int, Out(&x, 1), Val(1));
        CHECK_SPAWN_FAILED(refused, DAG_ERR_SHUT_DOWN);
    }
    CHECK_EQ_INT(times_logged_since(mark, DAG_ERR_SHUT_DOWN), 1);
    CHECK(logged_text_since(mark, "not logged again"));
}

/* ---- found in review: failures and the paths that skip the queues ---- */
DAG_TASK(void, writer_fails, (int *, x)) { *x = -1; dag_fail(DAG_USER_ERROR, "boom"); }
DAG_TASK(void, mark_ran, (const int *, x), (int *, ran)) { (void)x; *ran = 1; }
DAG_TASK(void, step_ran, (int *, ran)) { *ran = 1; }
DAG_TASK(void, fill_one, (int *, p)) { *p = 1; }
DAG_TASK(int, shuts_down_inside) { return dag_shutdown(); }

static void setup_with_throttle(int threads, int throttle) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads;
    d.throttle = throttle;
    d.logger.func = capture_logger;
    if (dag_setup(&d) != DAG_OK) setup_failures++;
}

/* With a throttle of 1 the failing writer runs inside its own spawn. */
TEST(a_failure_that_ran_inside_its_spawn_still_cancels_readers_and_the_next_step) {
    int pad = 0, x = 0, ran = 0, ran2 = 0;
    dag_result r = DAG_OK, r2 = DAG_OK;
    DAG_DATADEPS {
        dag_spawn(fill_one, Out(&pad, 1));   /* stays queued: the deque is full */
        dag_spawn(writer_fails, Out(&x, 1));
        r = dag_wait(dag_spawn(mark_ran, In(&x, 1), Out(&ran, 1)));
    }
    DAG_DATADEPS {
        dag_spawn(fill_one, Out(&pad, 1));
        DAG_SEQUENTIAL {
            dag_spawn(writer_fails, Out(&x, 1));
            r2 = dag_wait(dag_spawn(step_ran, Out(&ran2, 1)));
        }
    }
    CHECK_EQ_INT(r, DAG_ERR_DEPENDENCY_FAILED);
    CHECK_EQ_INT(ran, 0);
    CHECK_EQ_INT(r2, DAG_ERR_DEPENDENCY_FAILED);
    CHECK_EQ_INT(ran2, 0);
}

/* Thousands of other spans make the table sweep itself: the failed writer
   must survive the sweep while its region is open. */
static int many_spans[3000];
TEST(a_failure_survives_a_sweep_of_the_dependency_table) {
    int x = 0, ran = 0;
    dag_result r = DAG_OK;
    DAG_DATADEPS {
        dag_wait(dag_spawn(writer_fails, Out(&x, 1)));
        for (int i = 0; i < 3000; i++) dag_spawn(fill_one, Out(&many_spans[i], 1));
        r = dag_wait(dag_spawn(mark_ran, In(&x, 1), Out(&ran, 1)));
    }
    CHECK_EQ_INT(r, DAG_ERR_DEPENDENCY_FAILED);
    CHECK_EQ_INT(ran, 0);
}

TEST(a_region_nested_in_a_sequence_after_a_failed_step_is_cancelled) {
    int x = 0, ran = 0;
    DAG_SEQUENTIAL {
        dag_spawn(writer_fails, Out(&x, 1));
        DAG_DATADEPS { dag_spawn(step_ran, Out(&ran, 1)); }
        CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DEPENDENCY_FAILED);
    }
    CHECK_EQ_INT(ran, 0);
}

TEST(a_failure_inside_a_region_nested_in_a_sequence_cancels_the_next_step) {
    int x = 0, ran = 0, ran_bulk = 0;
    DAG_SEQUENTIAL {
        DAG_DATADEPS { dag_spawn(writer_fails, Out(&x, 1)); }
        dag_spawn(step_ran, Out(&ran, 1));
    }
    DAG_SEQUENTIAL {
        DAG_BULK { DAG_DATADEPS { dag_spawn(writer_fails, Out(&x, 1)); } }
        dag_spawn(step_ran, Out(&ran_bulk, 1));
    }
    CHECK_EQ_INT(ran, 0);
    CHECK_EQ_INT(ran_bulk, 0);
}

TEST(dag_shutdown_inside_a_task_is_rejected) {
    int r = -1;
    CHECK_EQ_INT(dag_fetch(dag_spawn(shuts_down_inside), &r), DAG_OK);
    CHECK_EQ_INT(r, DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_is_setup());
}

/* A failed task keeps its words for dag_task_message after its region ends (the end of its
   DAG_DATADEPS, dag_wait_all, or the end of the program thread that spawned it), until dag_release:
   the kept failure said only the code ("a task whose region has ended: user error"). */
static dag_task failed_on_a_thread;
static void *spawn_a_failure(void *arg) {
    (void)arg;
    int v = 0;
    failed_on_a_thread = dag_spawn(fail_plain, Val(DAG_USER_ERROR + 3));
    (void)dag_fetch(failed_on_a_thread, &v);
    return NULL;
}
TEST(a_failure_keeps_its_words_after_its_region_ends_until_released) {
    int v = 0;
    size_t kept_before = dag_get_stats().results_kept;
    dag_task in_region, outside;
    DAG_DATADEPS { in_region = dag_spawn(fail_plain, Val(DAG_USER_ERROR + 1)); }
    outside = dag_spawn(fail_plain, Val(DAG_USER_ERROR + 2));
    CHECK_EQ_INT(dag_fetch(outside, &v), DAG_USER_ERROR + 2);
    dag_wait_all();
    pthread_t th;
    CHECK(pthread_create(&th, NULL, spawn_a_failure, NULL) == 0);
    pthread_join(th, NULL);
    dag_task all[3] = { in_region, outside, failed_on_a_thread };
    for (int i = 0; i < 3; i++) {
        char want[64];
        snprintf(want, sizeof want, "plain failure %d", DAG_USER_ERROR + 1 + i);
        CHECK(strstr(dag_task_message(all[i]), want) != NULL);
        CHECK(strstr(dag_task_message(all[i]), "fail_plain") != NULL);
        CHECK_EQ_INT(dag_wait(all[i]), DAG_USER_ERROR + 1 + i);
        CHECK_EQ_INT(dag_fetch(all[i], &v), DAG_USER_ERROR + 1 + i);   /* a failed fetch spends nothing */
        CHECK_EQ_INT(dag_release(all[i]), DAG_OK);
        CHECK(dag_task_message(all[i])[0] == 0);
    }
    CHECK_EQ_INT(dag_get_stats().results_kept, kept_before);
}

TEST(a_handle_from_before_a_new_setup_is_stale) {
    dag_task t = dag_spawn(return_int, Val(5));
    int v = 0;
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
    shutdown_quietly();
    setup_or_note(2);
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_STALE_HANDLE);
}

/* So is a data handle: it names no span registered in the new set-up, whose first registration takes
   the same slot (a task on it would write another program's memory). */
TEST(a_data_handle_from_before_a_new_setup_names_nothing) {
    static int old_x = 1, new_x = 10;
    dag_data old_h = dag_register(&old_x, 1);
    CHECK(old_h.id != 0);
    shutdown_quietly();
    setup_or_note(2);
    dag_data new_h = dag_register(&new_x, 1);
    CHECK(new_h.id != 0 && new_h.id != old_h.id);
    DAG_DATADEPS { dag_spawn(add_one, InOut(old_h)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(dag_data_unregister(old_h), DAG_ERR_STALE_HANDLE);   /* "a data handle from an earlier set-up" */
    CHECK_EQ_INT(new_x, 10);
    CHECK_EQ_INT(dag_data_unregister(new_h), DAG_OK);
}

/* ... however many set-up cycles later (a cycle's number, 256 cycles on, must not bring the old handle
   back), and however many spans a slot held in between (2^24 + 1 in one slot here, past any count a
   handle's bits might carry beside the cycle's) */
TEST(a_data_handle_stays_stale_after_256_set_ups_and_2_to_the_24_spans_in_its_slot) {
    static int old_x = 1, new_x = 10, scratch = 0;
    dag_data old_h = dag_register(&old_x, 1);
    for (int c = 0; c < 256; c++) {
        shutdown_quietly();
        setup_or_note(2);
    }
    dag_data h = {0};
    long spans = 1L << 24;   /* under valgrind (DAG_TEST_SCALE below 1) 2^20: a registration takes it microseconds */
    if (test_scaled(1000, 1) < 1000) spans = 1L << 20;
    for (long i = 0; i <= spans; i++) {   /* a scratch span registered per iteration, in one slot */
        h = dag_register(&scratch, 1);
        if (i < spans && dag_data_unregister(h) != DAG_OK) break;
    }
    CHECK(h.id != 0 && (uint32_t)h.id == (uint32_t)old_h.id);   /* the same slot */
    DAG_DATADEPS { dag_spawn(add_one, InOut(h)); }   /* a live handle is not taken for an earlier one's */
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(scratch, 1);
    dag_data kept = h;
    shutdown_quietly();
    setup_or_note(2);
    dag_data new_h = dag_register(&new_x, 1);
    CHECK(new_h.id != old_h.id && new_h.id != kept.id);
    DAG_DATADEPS {
        dag_spawn(add_one, InOut(old_h));
        dag_spawn(add_one, InOut(kept));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_BAD_DATA);
    CHECK_EQ_INT(dag_data_unregister(old_h), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(dag_data_unregister(kept), DAG_ERR_STALE_HANDLE);
    CHECK(dag_data_pointer(old_h) == NULL && dag_data_pointer(kept) == NULL);
    CHECK_EQ_INT(new_x, 10);
    CHECK_EQ_INT(dag_data_unregister(new_h), DAG_OK);
}

/* Without the rank layer (no -DDAG_BACKEND_MPI) there is one rank, and
   what names another is refused by name. Skipped where the file is built
   with MPI (the mpi group's test_mpi covers that side). */
TEST(without_mpi_there_is_rank_0_alone_and_other_ranks_are_refused_by_name) {
#if !defined(DAG_BACKEND_MPI)
    CHECK_EQ_INT(dag_rank(), 0);
    CHECK_EQ_INT(dag_num_ranks(), 1);
    static double x[4];
    int mark = log_mark();
    dag_data h = dag_data_register_on(1, x, 4, sizeof(double));
    CHECK(h.id == 0);
    CHECK(logged_text_since(mark, "rank 1"));
    h = dag_data_register_on(0, x, 4, sizeof(double));   /* rank 0 is this one */
    CHECK(h.id != 0);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    mark = log_mark();
    CHECK(dag_data_register_resident_tile_on(1, x, 2, 2, 2, sizeof(double)).id == 0);
    CHECK(logged_text_since(mark, "dag_data_register_resident_tile_on: rank 1"));
    h = dag_data_register_resident_tile_on(0, x, 2, 2, 2, sizeof(double));
    CHECK(h.id != 0);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.rank = DAG_RANK(0);
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn_with(&o, return_int, Val(4)), &v), DAG_OK);
    CHECK_EQ_INT(v, 4);
    o.scope.rank = DAG_RANK(1);
    CHECK_SPAWN_FAILED(dag_spawn_with(&o, return_int, Val(4)), DAG_ERR_SCOPE);
    mark = log_mark();
    dag_rank_stats none = dag_get_rank_stats(1);
    CHECK(none.tasks == 0 && none.messages_sent == 0);
    CHECK(logged_text_since(mark, "dag_get_rank_stats: rank 1"));
    /* a simulation of many ranks needs the rank layer: said, and the runtime runs as one rank */
    shutdown_quietly();
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = 2;
    d.simulate_ranks = 8;
    d.logger.func = capture_logger;
    mark = log_mark();
    CHECK_EQ_INT(dag_setup(&d), DAG_ERR_INVALID_ARGUMENT);
    CHECK(logged_text_since(mark, "simulate_ranks needs the rank layer"));
    CHECK(dag_is_setup());
    CHECK_EQ_INT(dag_num_ranks(), 1);
    shutdown_quietly();
    setup_or_note(3);
#endif
}

int main(int argc, char **argv) {
    test_program = argv[0];
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {   /* run_child's cases */
        dag_setup(&(dag_desc){ .log_level = DAG_LOG_NONE });   /* the parent checks the words */
        int r = strcmp(argv[2], "span-for-a-value") == 0 ? child_span_for_a_value() : 2;
        dag_shutdown();
        return r;
    }
    watchdog_start();
    if (getenv("DAG_TEST_ECHO_LOG")) atomic_store(&echo_log, 1);
    setup_or_note(2);
    RUN(a_failing_task_cancels_its_data_and_fut_dependents);
    RUN(independent_tasks_and_their_dependents_complete_beside_a_failure);
    RUN(the_region_reports_the_failing_tasks_own_code);
    RUN(a_failure_inside_a_child_fails_the_parent);
    RUN(a_body_that_was_told_of_its_childs_failure_has_handled_it);
    RUN(a_spawn_name_is_not_given_to_the_tasks_its_body_spawns);
    RUN(dag_wait_all_reports_a_top_level_failure_once);
    RUN(a_failure_does_not_outlive_its_region);
    RUN(a_failure_cancels_what_touches_its_data_until_its_own_region_ends_not_its_cancelled_dependents_region);
    RUN(a_null_span_with_a_count_is_rejected);
    RUN(a_span_of_zero_elements_is_rejected);
    RUN(a_tile_of_zero_columns_is_rejected);
    RUN(a_tile_wider_than_its_leading_dimension_is_rejected);
    RUN(a_fetch_of_the_wrong_size_is_rejected);
    RUN(a_fetch_or_fut_between_a_number_and_a_pointer_or_struct_is_refused);
    RUN(a_fetch_on_a_running_void_task_says_no_result);
    RUN(a_finished_void_task_still_says_it_has_no_result);
    RUN(a_fetch_after_its_region_ended_gives_the_kept_result_and_spends_the_handle);
    RUN(a_second_release_is_stale_and_a_released_result_cannot_be_fetched);
    RUN(a_fetched_result_is_stale_for_a_task_with_spans_too);
    RUN(a_region_of_failed_spawns_says_so_once_and_in_its_result);
    RUN(a_span_whose_elements_are_not_the_parameters_is_rejected);
    RUN(a_negative_or_overflowing_count_is_rejected_in_every_build);
    RUN(a_number_for_a_pointer_parameter_is_rejected);
    RUN(a_zero_for_a_pointer_parameter_is_a_null_pointer_and_another_number_is_rejected);
    RUN(a_span_whose_element_size_is_zero_or_4_gib_is_refused_with_its_reason);
    RUN(a_null_argument_array_is_named_as_such_not_as_a_wrong_count);
    RUN(a_span_for_a_value_parameter_is_refused_not_run);
    RUN(a_span_whose_access_is_not_in_out_or_inout_is_refused_by_name);
    RUN(a_span_of_another_number_type_of_the_same_size_is_refused);
    RUN(a_pointer_value_of_another_type_is_refused);
    RUN(a_fut_passes_a_number_into_a_number_and_nothing_else);
    RUN(a_value_that_does_not_fit_its_parameter_is_rejected);
    RUN(spawn_args_with_the_wrong_count_is_rejected);
    RUN(a_registered_tile_wider_than_its_leading_dimension_is_refused);
    RUN(ld_naming_no_span_of_the_task_is_refused_with_a_message);
    RUN(an_unknown_data_handle_is_rejected);
    RUN(zero_and_failed_handles_answer_without_crashing);
    RUN(a_null_scope_or_log_message_is_answered_not_dereferenced);
    RUN(a_floating_value_outside_an_integer_parameter_is_clamped_not_undefined);
    RUN(a_scope_no_worker_satisfies_is_rejected);
    RUN(leaving_a_block_by_goto_is_reported_by_the_enclosing_region_end);
    RUN(an_options_block_around_a_failed_region_reports_that_failure);
    RUN(dag_wait_all_inside_an_options_block_leaves_it_open_with_its_options);
    RUN(dag_wait_all_inside_a_datadeps_block_says_it_closed_the_block);
    RUN(a_break_inside_a_block_ends_the_block_and_is_warned_of);
    RUN(leaving_a_block_by_return_is_reported_by_the_next_region_end_around_it);
    RUN(a_task_body_that_returns_inside_a_region_fails_with_unbalanced_region);
    RUN(misused_region_tokens_are_rejected);
    RUN(dag_fail_outside_a_task_is_reported_not_fatal);
    RUN(a_trace_written_to_an_unwritable_path_reports_io);
    RUN(every_result_has_its_own_message);
    RUN(spawning_after_shutdown_fails_with_shut_down);

    /* the runtime comes back after a shutdown, errors and all */
    setup_or_note(3);
    RUN(a_failing_task_cancels_its_data_and_fut_dependents);
    RUN(a_scope_no_worker_satisfies_is_rejected);
    RUN(a_break_inside_a_block_ends_the_block_and_is_warned_of);
    RUN(a_failure_survives_a_sweep_of_the_dependency_table);
    RUN(a_region_nested_in_a_sequence_after_a_failed_step_is_cancelled);
    RUN(a_failure_inside_a_region_nested_in_a_sequence_cancels_the_next_step);
    RUN(dag_shutdown_inside_a_task_is_rejected);
    RUN(a_failure_keeps_its_words_after_its_region_ends_until_released);
    RUN(a_handle_from_before_a_new_setup_is_stale);
    RUN(a_data_handle_from_before_a_new_setup_names_nothing);
    RUN(a_data_handle_stays_stale_after_256_set_ups_and_2_to_the_24_spans_in_its_slot);
    RUN(without_mpi_there_is_rank_0_alone_and_other_ranks_are_refused_by_name);
    RUN(two_threads_whose_errors_are_logged_at_once_reach_the_logger_every_time);
    shutdown_quietly();

    setup_with_throttle(1, 1);
    RUN(a_failure_that_ran_inside_its_spawn_still_cancels_readers_and_the_next_step);
    shutdown_quietly();
    int rc = test_summary();
    return setup_failures ? 1 : rc;
}
