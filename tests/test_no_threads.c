/* test_no_threads.c: dag.h where threads cannot be started (a container's
   memory or thread limit). pthread_create is wrapped at link time
   (-Wl,--wrap=pthread_create, with -DDAG_USE_PTHREADS) and fails while
   `refuse_threads` is set. dag_setup goes on with the threads it has and
   says which did not start; a body that waits for a task it may not run,
   whose reserve thread cannot start, runs other tasks itself instead of
   waiting for good.

       make check-compile (builds and runs it), or by hand:
       gcc -std=c11 -DDAG_USE_PTHREADS -I. -Itests tests/test_no_threads.c -o t \
           -Wl,--wrap=pthread_create -pthread -lm && ./t */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <pthread.h>

static atomic_int refuse_threads;
static void *program_thread(void *unused);   /* the program's own thread: it starts */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    if (atomic_load(&refuse_threads) && fn != program_thread) return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

static atomic_int thread_errors;
static void count_thread_errors(dag_log_level level, int code, const char *msg, void *user) {
    (void)level;
    (void)msg;
    (void)user;
    if (code == DAG_ERR_THREAD) atomic_fetch_add(&thread_errors, 1);
}

DAG_TASK(int, leaf, (int, x)) { return x + 1; }
/* waits for a sibling spawned before it: not its own child, so it may not run it */
DAG_TASK(int, waits_for_a_sibling, (dag_task, t)) {
    int v = -1;
    if (dag_wait(t) == DAG_OK) dag_fetch(t, &v);
    return v;
}

static void a_body_waiting_for_a_sibling_finishes(int threads) {
    atomic_store(&thread_errors, 0);
    atomic_store(&refuse_threads, 1);
    dag_desc d = { .num_threads = threads, .logger = { count_thread_errors, NULL } };
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);   /* it runs, on the threads it has */
    CHECK_EQ_INT(dag_num_threads(), 1);    /* and says how many */
    if (threads > 1) CHECK(atomic_load(&thread_errors) >= 1);   /* the worker that did not start is named */
    for (int round = 0; round < 20; round++) {
        int v = 0;
        DAG_DATADEPS {
            dag_task y = dag_spawn(leaf, Val(41 + round));
            dag_task x = dag_spawn(waits_for_a_sibling, Val(y));
            CHECK_EQ_INT(dag_fetch(x, &v), DAG_OK);
        }
        CHECK_EQ_INT(v, 42 + round);
    }
    CHECK(atomic_load(&thread_errors) >= 1 + (threads > 1));   /* the reserve thread too */
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    atomic_store(&refuse_threads, 0);
}

TEST(with_no_thread_to_start_a_pool_of_two_runs_on_one_and_its_waits_finish) {
    a_body_waiting_for_a_sibling_finishes(2);
}
TEST(with_no_reserve_thread_to_start_a_waiting_body_runs_the_task_it_waits_for) {
    a_body_waiting_for_a_sibling_finishes(1);
}
/* A chain of bodies each fetching the next, deeper than one thread's stack budget, with no thread to
   stand in: the deepest wait says so (DAG_ERR_THREAD) and returns, rather than wait for good. */
DAG_TASK(long, chain, (long, n)) {
    if (n == 0) return 0;
    long v = -1;
    if (dag_fetch(dag_spawn(chain, Val(n - 1)), &v) != DAG_OK) return -1000000;
    return v + 1;
}
TEST(a_chain_deeper_than_one_stack_with_no_thread_to_start_ends_with_an_error_not_a_hang) {
    atomic_store(&thread_errors, 0);
    atomic_store(&refuse_threads, 1);
    dag_desc d = { .num_threads = 1, .logger = { count_thread_errors, NULL } };
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);
    long v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(chain, Val(20000L)), &v), DAG_OK);
    CHECK(v < 0);   /* the error came up the chain */
    CHECK(atomic_load(&thread_errors) >= 1);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    atomic_store(&refuse_threads, 0);
}
/* The body x waits for a gate, and runs other tasks meanwhile (no reserve thread); one of them, z
   (spawned by a program thread after x, so it may wait for x), waits for x, which sits under it on
   the one thread: a wait cycle, said, not a hang. */
static dag_event gate_event;
static atomic_int gate_detached;
static int z_result;
static dag_task x_task;
DAG_TASK(int, gate, (int, v)) {
    gate_event = dag_detach();
    atomic_store(&gate_detached, 1);
    return v;
}
DAG_TASK(int, waits_then_fetches, (dag_task, t)) {
    int v = -1;
    if (dag_wait(t) == DAG_OK) dag_fetch(t, &v);
    return v + 1;
}
DAG_TASK(int, waits_only, (dag_task, t)) { return dag_wait(t) == DAG_OK ? 42 : -1; }
static void *program_thread(void *unused) {
    (void)unused;
    while (!atomic_load(&gate_detached)) test_spin_us(1000);
    test_spin_us(100000);   /* x waits for the gate by now */
    dag_task z = dag_spawn(waits_only, Val(x_task));
    test_spin_us(100000);
    dag_fulfill(gate_event, DAG_OK);
    dag_fetch(z, &z_result);
    return NULL;
}
TEST(a_task_run_over_a_waiting_body_that_waits_for_that_body_gets_a_wait_cycle_not_a_hang) {
    atomic_store(&refuse_threads, 1);
    atomic_store(&gate_detached, 0);
    CHECK_EQ_INT(dag_setup(&(dag_desc){ .num_threads = 1, .logger = { count_thread_errors, NULL } }), DAG_OK);
    dag_task y = dag_spawn(gate, Val(40));
    x_task = dag_spawn(waits_then_fetches, Val(y));
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, program_thread, NULL), 0);
    int x = 0;
    CHECK_EQ_INT(dag_fetch(x_task, &x), DAG_OK);
    pthread_join(th, NULL);
    CHECK_EQ_INT(x, 41);
    CHECK(z_result == -1 || z_result == 42);   /* -1: it ran on top of x; 42: after it */
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    atomic_store(&refuse_threads, 0);
}
TEST(once_threads_start_again_the_pool_has_them_all) {
    CHECK_EQ_INT(dag_setup(&(dag_desc){ .num_threads = 2 }), DAG_OK);
    CHECK_EQ_INT(dag_num_threads(), 2);
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(leaf, Val(1)), &v), DAG_OK);
    CHECK_EQ_INT(v, 2);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
}

int main(void) {
    watchdog_start();
    RUN(with_no_thread_to_start_a_pool_of_two_runs_on_one_and_its_waits_finish);
    RUN(with_no_reserve_thread_to_start_a_waiting_body_runs_the_task_it_waits_for);
    RUN(a_chain_deeper_than_one_stack_with_no_thread_to_start_ends_with_an_error_not_a_hang);
    RUN(a_task_run_over_a_waiting_body_that_waits_for_that_body_gets_a_wait_cycle_not_a_hang);
    RUN(once_threads_start_again_the_pool_has_them_all);
    return test_summary();
}
