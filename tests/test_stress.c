/* test_stress.c: dag.h at scale: a million tasks, a million-long chain, a
   wide fan-in, a million live tasks behind one gate, deep nesting and many
   small regions. Every test checks a result; the times it prints are for
   information only.

   Build: cc -std=c11 -O2 -pedantic -Wall -Wextra -Werror -I. -Itests tests/test_stress.c -pthread
   Env:   DAG_TEST_SCALE   multiplies every size (default 1.0; e.g. 0.05 under sanitizers)
          DAG_TEST_THREADS worker threads (default 0: one per core)
          DAG_TEST_TIMEOUT seconds before the watchdog fails the run (default 300) */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */


static double scale = 1.0;
static int threads_wanted = 0;

/* n scaled, at least `least` */
static size_t scaled(double n, size_t least) {
    double v = n * scale;
    return v < (double)least ? least : (size_t)v;
}

#if defined(__GNUC__) || defined(__clang__)
static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
static void info(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("     ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* Resident memory in MiB where /proc tells, else -1 (information only). */
static double rss_mib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long pages_total = 0, pages_resident = 0;
    int got = fscanf(f, "%ld %ld", &pages_total, &pages_resident);
    fclose(f);
    return got == 2 ? (double)pages_resident * 4096.0 / (1024.0 * 1024.0) : -1;
}

static int setup_failures;
static void setup_or_note(void) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads_wanted;
    if (dag_setup(&d) != DAG_OK || dag_num_threads() < 1) {
        fprintf(stderr, "FAIL: dag_setup\n");
        setup_failures++;
    }
}
static void shutdown_or_note(void) {
    if (dag_shutdown() != DAG_OK) {
        fprintf(stderr, "FAIL: dag_shutdown reported an error\n");
        setup_failures++;
    }
}

/* ------------------------------------------------------------------------ */
/* tasks                                                                    */
/* ------------------------------------------------------------------------ */

DAG_TASK(void, mark_once, (unsigned char *, seen), (size_t, i)) { seen[i]++; }
DAG_TASK(void, chain_step, (long *, x), (long, i)) { *x = (*x * 31 + i) % 1000003; }
DAG_TASK(void, put_index, (long *, slot), (long, i)) { *slot = i; }
DAG_TASK(void, sum_longs, (const long *, a), (size_t, n), (long long *, sum)) {
    long long s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    *sum = s;
}
DAG_TASK(void, gate_task, (int *, g), (atomic_int *, started), (atomic_int *, release)) {
    atomic_store(started, 1);
    wait_flag(release, 120.0);
    test_spin_us(1000);   /* and slow: the readers are still queued behind it */
    *g = 1;
}
/* One worker: a gate that spun would run inside the spawner's own wait and spin for good; this one
   detaches, and the spawner opens it (dag_fulfill) after its loop. */
DAG_TASK(void, gate_detaches, (int *, g), (dag_event *, ev)) {
    *ev = dag_detach();
    *g = 1;
}
DAG_TASK(void, copy_gate, (const int *, g), (unsigned char *, seen), (size_t, i)) { seen[i] = (unsigned char)*g; }
DAG_TASK(void, nest, (long *, acc), (int, level), (int, depth)) {
    *acc += level;   /* before the spawn: the child sees it */
    if (level < depth) dag_spawn(nest, InOut(acc, 1), Val(level + 1), Val(depth));
}
DAG_TASK(void, read_long, (const long *, x), (long *, seen)) { *seen = *x; }
DAG_TASK(long, nest_waiting, (int, level), (int, depth)) {
    long below = 0;
    if (level < depth) {
        DAG_DATADEPS {
            dag_task t = dag_spawn(nest_waiting, Val(level + 1), Val(depth));
            dag_fetch(t, &below);
        }
    }
    return below + level;
}
DAG_TASK(void, tree, (atomic_long *, leaves), (int, depth)) {
    if (depth == 0) {
        atomic_fetch_add(leaves, 1);
        return;
    }
    dag_spawn(tree, Val(leaves), Val(depth - 1));
    dag_spawn(tree, Val(leaves), Val(depth - 1));
}
DAG_TASK(void, write_long, (long *, x), (long, v)) { *x = v; }

/* ------------------------------------------------------------------------ */
/* tests                                                                    */
/* ------------------------------------------------------------------------ */

TEST(a_million_independent_tasks_each_run_exactly_once) {
    size_t n = scaled(1e6, 1000);
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    double t0 = now_s();
    DAG_DATADEPS {
        for (size_t i = 0; i < n; i++) dag_spawn(mark_once, Val(seen), Val(i));
    }
    double t1 = now_s();
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += seen[i] != 1;
    CHECK_EQ_INT(wrong, 0);
    info("%zu tasks in %.3f s (%.0f ns/task)", n, t1 - t0, (t1 - t0) * 1e9 / (double)n);
    free(seen);
}

/* dag_get_stats from another thread while the workers run: the counts it
   reads only grow (and ThreadSanitizer sees no race on them). */
static atomic_int stats_reader_stop;
static void *read_stats_until_stopped(void *out) {
    uint64_t last = 0, went_back = 0;
    while (!atomic_load(&stats_reader_stop)) {
        dag_stats st = dag_get_stats();
        went_back += st.tasks_run < last;
        last = st.tasks_run;
    }
    *(uint64_t *)out = went_back;
    return NULL;
}
TEST(stats_read_from_another_thread_while_tasks_run_only_grow) {
    size_t n = scaled(2e5, 1000);
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    uint64_t went_back = 1, before = dag_get_stats().tasks_run;
    pthread_t th;
    atomic_store(&stats_reader_stop, 0);
    CHECK(pthread_create(&th, NULL, read_stats_until_stopped, &went_back) == 0);
    DAG_DATADEPS {
        for (size_t i = 0; i < n; i++) dag_spawn(mark_once, Val(seen), Val(i));
    }
    atomic_store(&stats_reader_stop, 1);
    pthread_join(th, NULL);
    CHECK_EQ_INT(went_back, 0);
    CHECK(dag_get_stats().tasks_run - before >= n);
    free(seen);
}

TEST(a_million_long_inout_chain_applies_every_step_in_order) {
    size_t n = scaled(1e6, 1000);
    long x = 1, expect = 1;
    for (size_t i = 0; i < n; i++) expect = (expect * 31 + (long)i) % 1000003;
    double t0 = now_s();
    DAG_DATADEPS {
        for (size_t i = 0; i < n; i++) dag_spawn(chain_step, InOut(&x, 1), Val((long)i));
    }
    double t1 = now_s();
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, expect);
    info("chain of %zu in %.3f s (%.0f ns/step)", n, t1 - t0, (t1 - t0) * 1e9 / (double)n);
}

TEST(a_wide_fan_in_reads_every_element_written_before_it) {
    size_t n = scaled(1e5, 100);
    long *a = (long *)calloc(n, sizeof *a);
    long long sum = -1;
    double t0 = now_s();
    DAG_DATADEPS {
        for (size_t i = 0; i < n; i++) dag_spawn(put_index, Out(&a[i], 1), Val((long)i + 1));
        dag_spawn(sum_longs, In(a, n), Val(n), Out(&sum, 1));
    }
    double t1 = now_s();
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(sum, (long long)n * ((long long)n + 1) / 2);
    info("fan-in of %zu in %.3f s", n, t1 - t0);
    free(a);
}

TEST(a_million_live_tasks_fit_in_bounded_memory) {
    /* run in a fresh setup: record_bytes then counts this test's records only */
    size_t n = scaled(1e6, 1000);
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    int g = 0;
    atomic_int started, release;
    atomic_init(&started, 0);
    atomic_init(&release, 0);
    double rss0 = rss_mib();
    double t0 = now_s();
    dag_stats s;
    memset(&s, 0, sizeof s);
    bool one = dag_num_threads() == 1;
    dag_event ev;
    memset(&ev, 0, sizeof ev);
    DAG_DATADEPS {
        if (one) {
            dag_spawn_with(DAG_OPTIONS(.run_inline = 1), gate_detaches, Out(&g, 1), Val(&ev));
        } else {
            dag_spawn(gate_task, Out(&g, 1), Val(&started), Val(&release));
            CHECK(wait_flag(&started, 30.0));
        }
        for (size_t i = 0; i < n; i++) dag_spawn(copy_gate, In(&g, 1), Val(seen), Val(i));
        /* every one of them is waiting on the gate now */
        s = dag_get_stats();
        if (one) CHECK_EQ_INT(dag_fulfill(ev, DAG_OK), DAG_OK);
        else atomic_store(&release, 1);
    }
    double t1 = now_s();
    double rss1 = rss_mib();
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += seen[i] != 1;
    CHECK_EQ_INT(wrong, 0);   /* each ran once, after the gate opened */
    CHECK(s.records_allocated >= n);
    /* the spawner stopped for the gate (a 2 ms wait), then spawned on, stopping again only each time
       its live tasks doubled (about 12 waits for a million): not once per 64 spawns (16,000) */
    CHECK(s.spawner_waits <= 2 + 20);
    double limit = 500.0 * 1024 * 1024 * (scale < 1 ? 1 : scale);
    CHECK((double)s.record_bytes < limit);
    info("%zu live tasks: record_bytes %.1f MiB, %.0f bytes per live task (record %zu bytes); rss +%.1f MiB; %.3f s, "
         "%llu spawner waits", n, (double)s.record_bytes / (1024.0 * 1024.0), (double)s.record_bytes / (double)(n + 1),
         s.bytes_per_task, rss1 >= 0 && rss0 >= 0 ? rss1 - rss0 : -1.0, t1 - t0, (unsigned long long)s.spawner_waits);
    free(seen);
}

/* The same counted when a program thread holds them: the records come from that thread's own pool,
   which dag_get_stats counts with the workers' (records_allocated and record_bytes said 0 for it). The
   thread holds its tasks' records as failures it never releases. */
DAG_TASK(long, fails_unreleased, (long, i)) {
    dag_fail(DAG_USER_ERROR, "held %ld", i);
    return 0;
}
typedef struct { size_t n; dag_stats s; } held_by_thread;
static void *hold_failures(void *arg) {
    held_by_thread *h = (held_by_thread *)arg;
    for (size_t i = 0; i < h->n; i++) (void)dag_wait(dag_spawn(fails_unreleased, Val((long)i)));
    h->s = dag_get_stats();
    return NULL;
}
TEST(records_a_program_thread_holds_count_in_the_stats) {
    held_by_thread h;
    memset(&h, 0, sizeof h);
    h.n = scaled(20000, 2000);
    shutdown_or_note();   /* a set-up that logs nothing: the failures are the point */
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads_wanted;
    d.log_level = DAG_LOG_NONE;
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, hold_failures, &h) == 0);
    pthread_join(th, NULL);
    shutdown_or_note();
    setup_or_note();
    CHECK(h.s.tasks_live >= h.n);   /* each failure holds its record */
    CHECK(h.s.records_allocated >= h.s.tasks_live);   /* and every record in use is in a pool counted */
    CHECK(h.s.record_bytes >= h.s.records_allocated * sizeof(void *));
    info("a program thread holding %zu failures: %zu records live, %llu carved", h.n, h.s.tasks_live,
         (unsigned long long)h.s.records_allocated);
}

/* More spans registered at once than 2^20 (1,048,576), where registration used to stop: a
   2000 x 2000 dag_array in 1 x 1 tiles needs four million */
DAG_TASK(void, bump_one, (int *, x)) { *x += 1; }
TEST(more_than_a_million_spans_registered_at_once_each_take_a_task) {
    size_t n = scaled(1.1e6, 1000);
    int *x = (int *)calloc(n, sizeof *x);
    dag_data *h = (dag_data *)malloc(n * sizeof *h);
    double t0 = now_s();
    size_t refused = 0, wrong = 0;
    for (size_t i = 0; i < n; i++) refused += !(h[i] = dag_register(&x[i], 1)).id;
    CHECK_EQ_INT(refused, 0);
    DAG_DATADEPS {
        for (size_t i = 0; i < n; i++) if (h[i].id) dag_spawn(bump_one, InOut(h[i]));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    for (size_t i = 0; i < n; i++) wrong += x[i] != 1;
    CHECK_EQ_INT(wrong, 0);
    for (size_t i = 0; i < n; i++) if (h[i].id) dag_data_unregister(h[i]);
    info("%zu spans registered, a task each, unregistered in %.3f s", n, now_s() - t0);
    free(x);
    free(h);
}

TEST(ten_thousand_levels_of_nested_spawns_finish_with_the_right_result) {
    int depth = (int)scaled(1e4, 100);
    long acc = 0, seen = -1;
    double t0 = now_s();
    DAG_DATADEPS {
        dag_task root = dag_spawn(nest, InOut(&acc, 1), Val(0), Val(depth));
        /* spawned after the root: it waits for all the levels below it */
        dag_spawn(read_long, In(&acc, 1), Out(&seen, 1));
        CHECK_EQ_INT(dag_wait(root), DAG_OK);
    }
    double t1 = now_s();
    long expect = (long)depth * (depth + 1) / 2;
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(acc, expect);
    CHECK_EQ_INT(seen, expect);
    info("%d levels in %.3f s", depth, t1 - t0);
}

TEST(bodies_that_wait_for_their_children_nest_a_hundred_deep) {
    int depth = (int)scaled(100, 10);
    long got = -1;
    DAG_DATADEPS {
        dag_task t = dag_spawn(nest_waiting, Val(0), Val(depth));
        CHECK_EQ_INT(dag_fetch(t, &got), DAG_OK);
    }
    CHECK_EQ_INT(got, (long)depth * (depth + 1) / 2);
}

TEST(a_binary_tree_of_nested_spawns_reaches_every_leaf) {
    int depth = scale >= 1 ? 17 : scale >= 0.1 ? 14 : 11;
    atomic_long leaves;
    atomic_init(&leaves, 0);
    double t0 = now_s();
    DAG_DATADEPS { dag_spawn(tree, Val(&leaves), Val(depth)); }
    double t1 = now_s();
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(atomic_load(&leaves), 1L << depth);
    info("tree of depth %d (%ld tasks) in %.3f s", depth, (2L << depth) - 1, t1 - t0);
}

TEST(many_small_regions_in_a_loop_each_see_their_own_values) {
    size_t n = scaled(2e5, 1000);
    long x = -1, y = -1;
    size_t wrong = 0;
    dag_stats before = dag_get_stats();
    double t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        DAG_DATADEPS {
            dag_spawn(write_long, Out(&x, 1), Val((long)i));
            dag_spawn(read_long, In(&x, 1), Out(&y, 1));
        }
        wrong += y != (long)i || dag_last_region_result() != DAG_OK;
    }
    double t1 = now_s();
    dag_stats after = dag_get_stats();
    CHECK_EQ_INT(wrong, 0);
    /* finished tasks give their records back: the loop does not grow memory */
    CHECK(after.records_allocated - before.records_allocated < 100000);
    info("%zu regions in %.3f s (%.0f ns/region); %llu records carved", n, t1 - t0, (t1 - t0) * 1e9 / (double)n,
         (unsigned long long)(after.records_allocated - before.records_allocated));
}

TEST(many_setup_and_shutdown_cycles_leave_the_runtime_working) {
    int cycles = (int)scaled(50, 5);
    int bad = 0;
    for (int c = 0; c < cycles; c++) {
        shutdown_or_note();
        setup_or_note();
        long x = 0, seen = -1;
        DAG_DATADEPS {
            for (int i = 0; i < 100; i++) dag_spawn(chain_step, InOut(&x, 1), Val((long)i));
            dag_spawn(read_long, In(&x, 1), Out(&seen, 1));
        }
        long expect = 0;
        for (int i = 0; i < 100; i++) expect = (expect * 31 + i) % 1000003;
        bad += seen != expect;
    }
    CHECK_EQ_INT(bad, 0);
}

/* A thread outside the pool that spawned in one set-up cycle spawns again
   in the next: its old context is gone and it must get a new one. */
static atomic_int guest_go, guest_done;
static long guest_results[3];
static void *guest_thread(void *arg) {
    (void)arg;
    for (int cycle = 0; cycle < 3; cycle++) {
        while (atomic_load(&guest_go) != cycle + 1) test_spin_us(50);
        long x = 0, seen = -1;
        for (int i = 0; i < 50; i++) dag_spawn(chain_step, InOut(&x, 1), Val((long)i));
        dag_spawn(read_long, In(&x, 1), Out(&seen, 1));
        dag_wait_all();
        guest_results[cycle] = seen;
        atomic_store(&guest_done, cycle + 1);
    }
    return NULL;
}
TEST(a_thread_outside_the_pool_spawns_again_after_a_new_setup) {
    pthread_t th;
    CHECK(pthread_create(&th, NULL, guest_thread, NULL) == 0);
    long expect = 0;
    for (int i = 0; i < 50; i++) expect = (expect * 31 + i) % 1000003;
    for (int cycle = 0; cycle < 3; cycle++) {
        setup_or_note();
        atomic_store(&guest_go, cycle + 1);
        while (atomic_load(&guest_done) != cycle + 1) test_spin_us(50);
        shutdown_or_note();
        CHECK_EQ_INT(guest_results[cycle], expect);
    }
    pthread_join(th, NULL);
}

/* ------------------------------------------------------------------------ */
/* long runs: memory stays flat whatever the loop                            */
/* ------------------------------------------------------------------------ */

DAG_TASK(long, square, (long, i)) { return i * i; }
DAG_TASK(long, fib_task, (int, n)) {
    if (n < 2) return n;
    dag_task a = dag_spawn(fib_task, Val(n - 1)), b = dag_spawn(fib_task, Val(n - 2));
    long x = -1, y = -1;   /* fetched, never released: the fetch takes each result */
    if (dag_fetch(a, &x) != DAG_OK || dag_fetch(b, &y) != DAG_OK) return -1000000;
    return x + y;
}

/* The most the library holds while a loop runs: task records in use, kept
   results and their bytes, and the records its pools ever carved. */
typedef struct held { size_t live, kept, kept_bytes; uint64_t carved; } held;
static void note_held(held *most) {
    dag_stats s = dag_get_stats();
    if (s.tasks_live > most->live) most->live = s.tasks_live;
    if (s.results_kept > most->kept) most->kept = s.results_kept;
    if (s.result_bytes > most->kept_bytes) most->kept_bytes = s.result_bytes;
    if (s.records_allocated > most->carved) most->carved = s.records_allocated;
}

enum { LOOP_PLAIN, LOOP_RELEASE, LOOP_REGION, LOOP_BATCH, LOOP_RECURSION, LOOP_STYLES };
static const char *const loop_name[LOOP_STYLES] = {
    "spawn, fetch", "spawn, fetch, release", "a DAG_DATADEPS per spawn and fetch", "100 spawns, then 100 fetches in order",
    "fib(16) spawned and fetched, its bodies fetching their children"};

/* One iteration of a style; returns how many tasks it spawned, or -1 on a wrong value. */
static long loop_step(int style, long i) {
    long r = -1;
    switch (style) {
    case LOOP_PLAIN: {
        dag_task t = dag_spawn(square, Val(i));
        return dag_fetch(t, &r) == DAG_OK && r == i * i ? 1 : -1;
    }
    case LOOP_RELEASE: {
        dag_task t = dag_spawn(square, Val(i));
        if (dag_fetch(t, &r) != DAG_OK || r != i * i) return -1;
        return dag_release(t) == DAG_ERR_STALE_HANDLE ? 1 : -1;   /* the fetch took it already */
    }
    case LOOP_REGION: {
        int ok = 0;
        DAG_DATADEPS {
            dag_task t = dag_spawn(square, Val(i));
            ok = dag_fetch(t, &r) == DAG_OK && r == i * i;
        }
        return ok ? 1 : -1;
    }
    case LOOP_BATCH: {
        dag_task t[100];
        for (int k = 0; k < 100; k++) t[k] = dag_spawn(square, Val(i + k));
        for (int k = 0; k < 100; k++)
            if (dag_fetch(t[k], &r) != DAG_OK || r != (i + k) * (i + k)) return -1;
        return 100;
    }
    default: {
        dag_task t = dag_spawn(fib_task, Val(16));
        return dag_fetch(t, &r) == DAG_OK && r == 987 ? 3193 : -1;   /* fib(16) makes 3193 tasks */
    }
    }
}

TEST(ten_million_spawns_and_fetches_in_each_style_keep_memory_flat) {
    long want = (long)scaled(1e7, 20000);
    for (int style = 0; style < LOOP_STYLES; style++) {
        long done = 0, wrong = 0, steps = 0;
        held warm = {0, 0, 0, 0}, most = {0, 0, 0, 0};
        double rss0 = 0;
        while (done < want) {
            long n = loop_step(style, done);
            if (n < 0) { wrong++; n = 1; }
            done += n;
            if (++steps % 256 == 0) note_held(done < want / 10 ? &warm : &most);
            if (done >= want / 10 && rss0 == 0) rss0 = rss_mib();
        }
        note_held(&most);
        dag_stats end = dag_get_stats();
        info("%-55s %ld tasks: at most %zu live records, %zu kept results (%zu bytes), %llu records carved; "
             "rss %+.1f MiB after warm-up", loop_name[style], done, most.live, most.kept, most.kept_bytes,
             (unsigned long long)most.carved, rss_mib() - rss0);
        CHECK_EQ_INT(wrong, 0);
        /* bounded by the loop's own width, not by its length */
        CHECK(most.live <= 4096);
        CHECK_EQ_INT(most.kept, 0);
        CHECK_EQ_INT(end.results_kept, 0);
        CHECK_EQ_INT(end.result_bytes, 0);
        /* after warm-up the pools carve nothing more: every record is used again */
        CHECK(most.carved <= (warm.carved > 0 ? warm.carved : 0) + 2048);
        dag_wait_all();
        CHECK(dag_get_stats().tasks_live <= 4096);
    }
}

int main(void) {
    watchdog_start();
    const char *e = getenv("DAG_TEST_SCALE");
    if (e && atof(e) > 0) scale = atof(e);
    e = getenv("DAG_TEST_THREADS");
    if (e) threads_wanted = atoi(e);
    double t0 = now_s();
    setup_or_note();
    printf("     scale %.3g, %d worker threads\n", scale, dag_num_threads());
    RUN(a_million_independent_tasks_each_run_exactly_once);
    RUN(stats_read_from_another_thread_while_tasks_run_only_grow);
    RUN(a_million_long_inout_chain_applies_every_step_in_order);
    RUN(a_wide_fan_in_reads_every_element_written_before_it);
    shutdown_or_note();
    setup_or_note();
    RUN(a_million_live_tasks_fit_in_bounded_memory);
    RUN(records_a_program_thread_holds_count_in_the_stats);
    RUN(more_than_a_million_spans_registered_at_once_each_take_a_task);
    RUN(ten_thousand_levels_of_nested_spawns_finish_with_the_right_result);
    RUN(bodies_that_wait_for_their_children_nest_a_hundred_deep);
    RUN(a_binary_tree_of_nested_spawns_reaches_every_leaf);
    RUN(many_small_regions_in_a_loop_each_see_their_own_values);
    RUN(many_setup_and_shutdown_cycles_leave_the_runtime_working);
    shutdown_or_note();
    setup_or_note();
    RUN(ten_million_spawns_and_fetches_in_each_style_keep_memory_flat);
    shutdown_or_note();
    RUN(a_thread_outside_the_pool_spawns_again_after_a_new_setup);
    printf("     total %.2f s\n", now_s() - t0);
    int rc = test_summary();
    return setup_failures ? 1 : rc;
}
