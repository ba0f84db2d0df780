/* test_behaviour.c: what dag.h promises, one behaviour per test.

   Ordering is checked with witnesses, never with timings: a "slow" task
   spins ~20 ms before it touches memory, so a task that was wrongly allowed
   to run beside it would see (or leave) the wrong values. "Runs at the same
   time" is checked with a rendezvous: two tasks that each wait (at most a few
   seconds) for a flag the other sets can only both succeed if they ran
   concurrently.

   Build: cc -std=c11 -pedantic -Wall -Wextra -Werror -I. -Itests tests/test_behaviour.c -pthread
   Env:   DAG_TEST_TIMEOUT (seconds, default 300): the whole file's watchdog. */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */


#define SLOW_US 20000u        /* a slow task spins this long before touching memory */
#define MEET_SECONDS 3.0      /* a rendezvous gives up after this */

/* Two tasks meet: each raises its flag and waits for the other's. */
typedef struct meet { atomic_int here[2]; } meet;
static void meet_init(meet *m) { atomic_store(&m->here[0], 0); atomic_store(&m->here[1], 0); }
static int meet_other(meet *m, int me) {
    atomic_store(&m->here[me], 1);
    return wait_flag(&m->here[1 - me], MEET_SECONDS);
}

/* An append-only log that tasks write from any thread. */
#define LOG_CAP 256
static atomic_int log_n;
static int log_v[LOG_CAP];
static void log_reset(void) {
    atomic_store(&log_n, 0);
    for (int i = 0; i < LOG_CAP; i++) log_v[i] = -1;
}
static void log_put(int v) {
    int i = atomic_fetch_add(&log_n, 1);
    if (i < LOG_CAP) log_v[i] = v;
}

/* Errors some tests provoke on purpose stay quiet; others are printed. */
static atomic_int quiet_errors;
static atomic_int errors_logged;
static void test_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)user;
    atomic_fetch_add(&errors_logged, 1);
    if (!atomic_load(&quiet_errors) && level != DAG_LOG_INFO)
        fprintf(stderr, "  (dag.h %s [%s]: %s)\n", level == DAG_LOG_ERROR ? "error" : "warning",
                dag_result_string(item), message);
}

static dag_desc desc_with_threads(int n) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = n;
    d.logger.func = test_logger;
    return d;
}

/* ------------------------------------------------------------------------ */
/* tasks                                                                    */
/* ------------------------------------------------------------------------ */

DAG_TASK(void, slow_write_int, (int *, x), (int, v)) {
    test_spin_us(SLOW_US);
    *x = v;
}
DAG_TASK(void, write_int, (int *, x), (int, v)) { *x = v; }
DAG_TASK(void, read_int, (const int *, x), (int *, seen)) { *seen = *x; }
DAG_TASK(void, slow_read_int, (const int *, x), (int *, seen)) {
    test_spin_us(SLOW_US);
    *seen = *x;
}
/* x = x * 10 + digit: the final value spells the order the updates landed in */
DAG_TASK(void, append_digit, (int *, x), (int, digit), (unsigned, spin_us)) {
    test_spin_us(spin_us);
    *x = *x * 10 + digit;
}
DAG_TASK(void, slow_fill_ints, (int *, a), (int, n), (int, v)) {
    test_spin_us(SLOW_US);
    for (int i = 0; i < n; i++) a[i] = v;
}
DAG_TASK(void, fill_ints, (int *, a), (int, n), (int, v)) {
    for (int i = 0; i < n; i++) a[i] = v;
}
DAG_TASK(void, copy_ints, (const int *, src), (int *, dst), (int, n)) {
    for (int i = 0; i < n; i++) dst[i] = src[i];
}
DAG_TASK(void, slow_copy_ints, (const int *, src), (int *, dst), (int, n)) {
    test_spin_us(SLOW_US);
    for (int i = 0; i < n; i++) dst[i] = src[i];
}
DAG_TASK(void, sum_ints, (const int *, a), (int, n), (int *, sum)) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    *sum = s;
}
DAG_TASK(void, slow_fill_bytes, (unsigned char *, p), (int, n), (int, v)) {
    test_spin_us(SLOW_US);
    for (int i = 0; i < n; i++) p[i] = (unsigned char)v;
}

/* rendezvous tasks */
DAG_TASK(int, reader_meets, (const int *, x), (meet *, m), (int, me)) {
    (void)x;
    return meet_other(m, me);
}
DAG_TASK(int, meets_then_logs, (meet *, m), (int, me), (int, v)) {
    int ok = meet_other(m, me);
    log_put(v);
    return ok;
}
DAG_TASK(int, flag_task, (atomic_int *, started)) {
    atomic_store(started, 1);
    return 1;
}

/* 2-D tiles of a row-major matrix of doubles */
DAG_TASK(int, tile_meets_then_fills, (double *, tile), (size_t, rows), (size_t, cols), (size_t, ld), (meet *, m),
         (int, me), (double, v)) {
    int ok = meet_other(m, me);
    test_spin_us(SLOW_US);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) tile[r * ld + c] = v;
    return ok;
}
DAG_TASK(void, tile_copy, (const double *, tile), (size_t, rows), (size_t, cols), (size_t, ld), (double *, out)) {
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) out[r * cols + c] = tile[r * ld + c];
}
DAG_TASK(void, tile_add, (double *, tile), (size_t, rows), (size_t, cols), (size_t, ld), (double, v)) {
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) tile[r * ld + c] += v;
}

/* values and futures */
DAG_TASK(int, slow_int, (int, v)) {
    test_spin_us(SLOW_US);
    return v;
}
DAG_TASK(double, half_of, (double, x)) { return x / 2; }
DAG_TASK(int, add_ints, (int, a), (int, b)) { return a + b; }
DAG_TASK(int, int_of, (int, x)) { return x; }
DAG_TASK(unsigned, unsigned_of, (unsigned, x)) { return x; }
DAG_TASK(double, double_of, (double, x)) { return x; }
DAG_TASK(long long, llong_of, (long long, x)) { return x; }
DAG_TASK(const char *, pointer_of, (const char *, p)) { return p; }

typedef struct point3 { int x, y; double z; } point3;
typedef struct big_record { int id; double values[20]; char tag[16]; } big_record;   /* > 64 bytes */

DAG_TASK(double, point_sum, (point3, p)) { return p.x + p.y + p.z; }
DAG_TASK(double, big_sum, (big_record, b)) {
    double s = b.id;
    for (int i = 0; i < 20; i++) s += b.values[i];
    return s + (double)strlen(b.tag);
}
DAG_TASK(big_record, make_big, (int, id)) {
    test_spin_us(SLOW_US);
    big_record b;
    memset(&b, 0, sizeof b);
    b.id = id;
    for (int i = 0; i < 20; i++) b.values[i] = i * 0.5;
    strcpy(b.tag, "made");
    return b;
}
DAG_TASK(point3, make_point, (int, x), (int, y), (double, z)) {
    point3 p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}

/* sequential log */
DAG_TASK(void, log_after_spin, (int, v), (unsigned, spin_us)) {
    test_spin_us(spin_us);
    log_put(v);
}
DAG_TASK(void, log_value, (int, v)) { log_put(v); }

/* nested spawns */
DAG_TASK(void, parent_fill_then_sum, (int *, a), (int *, sum)) {
    /* children: a slow fill, then a sum that must see it (inference among children) */
    dag_spawn(slow_fill_ints, Out(a, 4), Val(4), Val(7));
    dag_spawn(sum_ints, In(a, 4), Val(4), Out(sum, 1));
}
DAG_TASK(void, gated_write, (int *, x), (atomic_int *, gate), (int, v)) {
    wait_flag(gate, MEET_SECONDS);
    *x = v;
}
DAG_TASK(void, parent_with_gated_child, (int *, x), (atomic_int *, gate), (atomic_int *, body_done)) {
    dag_spawn(gated_write, Out(x, 1), Val(gate), Val(11));
    atomic_store(body_done, 1);
}
DAG_TASK(int, body_with_region, (int *, x)) {
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(x, 1), Val(5));
    }
    return *x;   /* the block waited for the child */
}
DAG_TASK(void, inc_in_to_out, (const int *, in), (int *, out)) { *out = *in + 1; }

/* priorities */
/* returns a value so no spawn may run it on the spot (only void tasks run undeferred) */
DAG_TASK(int, log_prio, (int, v)) {
    log_put(v);
    return v;
}

/* scopes */
DAG_TASK(void, record_worker, (int *, out)) { *out = dag_current_worker(); }
DAG_TASK(void, parent_records_children_workers, (int *, out), (int, n)) {
    out[0] = dag_current_worker();
    for (int i = 1; i < n; i++) dag_spawn(record_worker, Out(out + i, 1));
}

/* waiting */
DAG_TASK(int, wait_gate, (atomic_int *, gate)) { return wait_flag(gate, MEET_SECONDS); }
DAG_TASK(void, count_up, (atomic_int *, counter)) { atomic_fetch_add(counter, 1); }
DAG_TASK(int, fail_with, (int *, x), (int, code)) {
    (void)x;
    dag_fail(code, "failing on purpose with code %d", code);
    return 0;
}
DAG_TASK(int, fail_plain, (int, code)) {
    dag_fail(code, "failing on purpose with code %d", code);
    return 0;
}
DAG_TASK(int, use_int, (int, v)) { return v; }

/* array form */
DAG_TASK(void, scale_copy, (const double *, src), (double *, dst), (size_t, n), (double, k)) {
    for (size_t i = 0; i < n; i++) dst[i] = src[i] * k;
}
DAG_TASK(void, slow_fill_doubles, (double *, a), (size_t, n), (double, v)) {
    test_spin_us(SLOW_US);
    for (size_t i = 0; i < n; i++) a[i] = v;
}

/* tracing */
DAG_TASK(void, trace_plain_task, (int *, x)) { *x += 1; }

/* ------------------------------------------------------------------------ */
/* data dependencies                                                        */
/* ------------------------------------------------------------------------ */

/* Results whose type starts with the word void but is a pointer (void *, void const *, void **) are
   results, not void: fetched, passed by Fut, and run inline into a handle that holds them */
static int vp_target = 42;
DAG_TASK(void *, vp_get, (int, k)) { return k ? &vp_target : NULL; }
DAG_TASK(void const *, vp_get_const, (int, k)) { return k ? &vp_target : NULL; }
DAG_TASK(void **, vp_get_pp, (int, k)) {
    static void *p = &vp_target;
    return k ? &p : NULL;
}
DAG_TASK(int, vp_deref, (void *, p)) { return *(int *)p; }
TEST(results_of_pointer_types_that_start_with_void_are_results) {
    CHECK_EQ_INT((int)vp_get__desc.result_size, (int)sizeof(void *));
    CHECK_EQ_INT((int)vp_get_const__desc.result_size, (int)sizeof(void *));
    CHECK_EQ_INT((int)vp_get_pp__desc.result_size, (int)sizeof(void *));
    void *p = NULL, **pp = NULL;
    const void *cp = NULL;
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_get, Val(1)), &p), DAG_OK);
    CHECK(p == &vp_target);
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_get_const, Val(1)), &cp), DAG_OK);
    CHECK(cp == &vp_target);
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_get_pp, Val(1)), &pp), DAG_OK);
    CHECK(pp && *pp == &vp_target);
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_deref, Fut(dag_spawn(vp_get, Val(1)))), &v), DAG_OK);
    CHECK_EQ_INT(v, 42);
    dag_task h = dag_spawn_with(DAG_OPTIONS(.run_inline = 1), vp_get, Val(1));
    p = NULL;
    CHECK_EQ_INT(dag_fetch(h, &p), DAG_OK);
    CHECK(p == &vp_target);
}
/* A struct's bytes are no address: Fut of an 8-byte struct result for a pointer parameter (and of a pointer
   for a struct) is refused, from a live task, a held result and a result kept past its region */
typedef struct vp_pair { int a, b; } vp_pair;
DAG_TASK(vp_pair, vp_make, (int, x)) { return (vp_pair){ x, -x }; }
DAG_TASK(int, vp_deref_int, (int *, p)) { return *p; }
DAG_TASK(int, vp_first, (vp_pair, q)) { return q.a; }
/* Every way a spawn of Vals can go (queued, run on the spawner's stack, run inline, and handed back
   from the spawn front of an optimised build to the full spawn: every 64th spawn, in a sequence,
   under options, while tracing) gives the task each argument as it was: a number of each width, a
   struct, and pointers to a number, to void and to a struct */
typedef struct vp_triple { short s; double d; char c; } vp_triple;
DAG_TASK(double, vp_mix, (char, c), (short, s), (float, f), (long long, ll), (vp_triple, t), (const double *, pd),
         (void *, pv), (vp_pair *, pp)) {
    return c + s + f + (double)ll + t.s + t.d + t.c + *pd + *(int *)pv + pp->a + pp->b;
}
static double vp_mix_want(int i, const double *pd, const void *pv, const vp_pair *pp) {
    return (char)(i % 100) + (short)(-i) + (float)i * 0.5f + (double)(1000000000000LL + i) + (short)(3 * i) + i * 0.25 +
           (char)(i % 7) + *pd + *(const int *)pv + pp->a + pp->b;
}
static int vp_mix_spawn_all(int n, int run_inline) {
    static const double d = 1.5;
    static int k = 11;
    static vp_pair pair = { 5, 8 };
    int wrong = 0;
    dag_task h[300];
    for (int i = 0; i < n; i++) {
        vp_triple t = { (short)(3 * i), i * 0.25, (char)(i % 7) };
        h[i] = dag_spawn_with(DAG_OPTIONS(.run_inline = run_inline), vp_mix, Val((char)(i % 100)), Val((short)(-i)),
                              Val((float)i * 0.5f), Val(1000000000000LL + i), Val(t), Val(&d), Val((void *)&k), Val(&pair));
    }
    for (int i = 0; i < n; i++) {
        double got = -1;
        wrong += dag_fetch(h[i], &got) != DAG_OK || got != vp_mix_want(i, &d, &k, &pair);
    }
    return wrong;
}
/* A task of no parameters through the front: nothing to pack (gcc once warned of the unwritten bytes
   where the spawn sat in a function of its own) */
static atomic_int vp_ticks;
DAG_TASK(void, vp_tick) { atomic_fetch_add(&vp_ticks, 1); }
static dag_task vp_one_tick(void) { return dag_spawn(vp_tick); }
static dag_task vp_one_tick_inline(void) { return dag_spawn_with(DAG_OPTIONS(.run_inline = 1), vp_tick); }
TEST(spawns_of_values_give_each_argument_whichever_way_they_go) {
    atomic_store(&vp_ticks, 0);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(dag_wait(vp_one_tick()), DAG_OK);
        CHECK_EQ_INT(dag_wait(vp_one_tick_inline()), DAG_OK);
    }
    CHECK_EQ_INT(atomic_load(&vp_ticks), 200);
    for (int run_inline = 0; run_inline < 2; run_inline++) {
        CHECK_EQ_INT(vp_mix_spawn_all(300, run_inline), 0);
        DAG_SEQUENTIAL CHECK_EQ_INT(vp_mix_spawn_all(100, run_inline), 0);
        DAG_WITH_OPTIONS(.name = "named") CHECK_EQ_INT(vp_mix_spawn_all(100, run_inline), 0);
        dag_trace_enable(1);
        CHECK_EQ_INT(vp_mix_spawn_all(100, run_inline), 0);
        dag_trace_enable(0);
        dag_trace_clear();
        DAG_DATADEPS CHECK_EQ_INT(vp_mix_spawn_all(100, run_inline), 0);
    }
}
TEST(fut_never_passes_a_structs_bytes_as_a_pointer) {
    dag_task live = dag_spawn(vp_make, Val(7)), held = dag_spawn_with(DAG_OPTIONS(.run_inline = 1), vp_make, Val(7)), kept = { NULL, 0, 0 };
    DAG_DATADEPS kept = dag_spawn(vp_make, Val(7));
    dag_task ptr = dag_spawn(vp_get, Val(1));
    int v = 0;
    DAG_DATADEPS {   /* the refused spawns' region says so, not the program's */
        CHECK_EQ_INT(dag_wait(dag_spawn(vp_deref_int, Fut(live))), DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(dag_wait(dag_spawn(vp_deref_int, Fut(held))), DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(dag_wait(dag_spawn(vp_deref_int, Fut(kept))), DAG_ERR_ARG_TYPE);
        CHECK_EQ_INT(dag_wait(dag_spawn(vp_first, Fut(ptr))), DAG_ERR_ARG_TYPE);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_ARG_TYPE);
    /* into a struct parameter of its size, they go as they are */
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_first, Fut(live)), &v), DAG_OK);
    CHECK_EQ_INT(v, 7);
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_first, Fut(held)), &v), DAG_OK);
    CHECK_EQ_INT(dag_fetch(dag_spawn(vp_first, Fut(kept)), &v), DAG_OK);
    CHECK_EQ_INT(v, 7);
    dag_release(ptr);
}
TEST(a_reader_spawned_after_a_slow_writer_sees_its_values) {
    int x = 0, seen = -1;
    int a[8] = {0}, copy[8] = {0};
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(&x, 1), Val(42));
        dag_spawn(read_int, In(&x, 1), Out(&seen, 1));
        dag_spawn(slow_fill_ints, Out(a, 8), Val(8), Val(3));
        dag_spawn(copy_ints, In(a, 8), Out(copy, 8), Val(8));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(seen, 42);
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(copy[i], 3);
}

TEST(a_writer_spawned_after_a_slow_reader_waits_for_it) {
    int x = 1, seen = -1;
    DAG_DATADEPS {
        dag_spawn(slow_read_int, In(&x, 1), Out(&seen, 1));
        dag_spawn(write_int, Out(&x, 1), Val(2));
    }
    CHECK_EQ_INT(seen, 1);   /* the reader saw the old value */
    CHECK_EQ_INT(x, 2);
}

TEST(two_writers_land_in_spawn_order) {
    int x = 0;
    int y = 0;
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(&x, 1), Val(1));
        dag_spawn(write_int, Out(&x, 1), Val(2));
        /* many writers, the early ones slowest */
        for (int i = 0; i < 20; i++) {
            if (i < 3) dag_spawn(slow_write_int, Out(&y, 1), Val(i));
            else dag_spawn(write_int, Out(&y, 1), Val(i));
        }
    }
    CHECK_EQ_INT(x, 2);
    CHECK_EQ_INT(y, 19);
}

TEST(inout_updates_apply_in_spawn_order) {
    int x = 0;
    DAG_DATADEPS {
        /* the first updates are the slowest: out of order they would land last */
        for (int d = 1; d <= 6; d++) dag_spawn(append_digit, InOut(&x, 1), Val(d), Val((unsigned)(7 - d) * 3000u));
    }
    CHECK_EQ_INT(x, 123456);
}

/* dag_arg_span / _tile / _data with the access picked at run time: the
   same order as In, Out and InOut written out (a slow first writer would
   land last if its access were not seen) */
TEST(arguments_built_at_run_time_order_like_in_out_and_inout) {
    volatile int pick = 0;   /* not a constant the compiler could see through */
    dag_access write = pick ? DAG_ACCESS_IN : DAG_ACCESS_OUT, update = pick ? DAG_ACCESS_IN : DAG_ACCESS_INOUT;
    int x = 0, seen = -1, y = 0;
    double m[3 * 4] = {0}, copy[2 * 3];
    dag_data h = dag_data_register(&y, 1, sizeof y);
    CHECK(h.id != 0);
    DAG_DATADEPS {
        dag_arg w[2] = { dag_arg_span(write, &x, 1, sizeof x), Val(42) };
        dag_spawn_args(slow_write_int, w, 2);
        dag_arg r[2] = { dag_arg_span(DAG_ACCESS_IN, &x, 1, sizeof x), dag_arg_span(write, &seen, 1, sizeof seen) };
        dag_spawn_args(read_int, r, 2);
        for (int d = 1; d <= 3; d++) {   /* the first update is the slowest */
            dag_arg u[3] = { dag_arg_data(update, h), Val(d), Val((unsigned)(4 - d) * 3000u) };
            dag_spawn_args(append_digit, u, 3);
        }
        /* rows 1..2, columns 1..3 of a 3 x 4 row-major matrix */
        dag_arg t[5] = { dag_arg_tile(update, &m[1 * 4 + 1], 2, 3, 4, sizeof(double)), Val((size_t)2), Val((size_t)3),
                         Val((size_t)4), Val(1.5) };
        dag_spawn_args(tile_add, t, 5);
        dag_arg c[5] = { dag_arg_tile(DAG_ACCESS_IN, &m[1 * 4 + 1], 2, 3, 4, sizeof(double)), Val((size_t)2),
                         Val((size_t)3), Val((size_t)4), dag_arg_span(write, copy, 6, sizeof(double)) };
        dag_spawn_args(tile_copy, c, 5);
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(seen, 42);
    CHECK_EQ_INT(y, 123);
    for (int i = 0; i < 6; i++) CHECK(copy[i] == 1.5);
    for (int i = 0; i < 12; i++) CHECK(m[i] == ((i / 4 >= 1 && i % 4 >= 1) ? 1.5 : 0.0));
    dag_data_unregister(h);
}

typedef struct two_doubles { double x, y; } two_doubles;
DAG_TASK(long, sum4, (long, a), (long, b), (long, c), (long, d)) { return a * 1000 + b * 100 + c * 10 + d; }
DAG_TASK(double, pair_sum, (two_doubles, p), (double, q)) { return p.x + p.y + q; }
/* An argument array filled in a loop, one Val per pass, then spawned: each value outlives the pass
   that made it (a Val of up to 16 bytes is copied into the argument) */
TEST(an_argument_array_filled_in_a_loop_keeps_its_values) {
    long vals[4] = { 1, 2, 3, 4 };
    dag_arg args[4];
    for (int i = 0; i < 4; i++) args[i] = Val(vals[i]);
    for (int i = 0; i < 4; i++) vals[i] = 9;   /* and not read through the variables either */
    long r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn_args(sum4, args, 4), &r), DAG_OK);
    CHECK_EQ_INT(r, 1234);
    dag_arg p[2];
    for (int i = 0; i < 2; i++) p[i] = i ? Val(0.25) : Val(((two_doubles){ 1.5, 2.0 }));
    double d = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn_args(pair_sum, p, 2), &d), DAG_OK);
    CHECK(d == 3.75);
}

TEST(partially_overlapping_spans_are_ordered) {
    int a[16], b[16], c[16], seen[8];
    for (int i = 0; i < 16; i++) a[i] = b[i] = c[i] = 0;
    for (int i = 0; i < 8; i++) seen[i] = -1;
    int inner[2] = {-1, -1};
    DAG_DATADEPS {
        /* write after write: [0,8) slow, then [4,12) */
        dag_spawn(slow_fill_ints, Out(a, 8), Val(8), Val(1));
        dag_spawn(fill_ints, Out(a + 4, 8), Val(8), Val(2));
        /* read after write: slow [4,12), then a read of [0,8) */
        dag_spawn(slow_fill_ints, Out(b + 4, 8), Val(8), Val(5));
        dag_spawn(copy_ints, In(b, 8), Out(seen, 8), Val(8));
        /* write after read: a slow read of [0,16) copies into c, then a write of [6,10) of b */
        dag_spawn(slow_copy_ints, In(b, 16), Out(c, 16), Val(16));
        dag_spawn(fill_ints, Out(b + 6, 4), Val(4), Val(9));
        /* a span inside a bigger one */
        dag_spawn(slow_fill_ints, Out(a, 16), Val(16), Val(4));
        dag_spawn(copy_ints, In(a + 5, 2), Out(inner, 2), Val(2));
    }
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(seen[i], 0);
    for (int i = 4; i < 8; i++) CHECK_EQ_INT(seen[i], 5);
    /* the slow copy ran before the [6,10) write: c holds b before it */
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(c[i], (i >= 4 && i < 12) ? 5 : 0);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(b[i], (i >= 6 && i < 10) ? 9 : (i >= 4 && i < 12) ? 5 : 0);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(a[i], 4);
    CHECK_EQ_INT(inner[0], 4);
    CHECK_EQ_INT(inner[1], 4);
}

TEST(spans_of_different_element_types_alias_by_bytes) {
    int words[4] = {0, 0, 0, 0};
    int seen[4] = {-1, -1, -1, -1};
    DAG_DATADEPS {
        /* bytes 5..6 lie inside words[1] */
        dag_spawn(slow_fill_bytes, Out((unsigned char *)words + 5, 2), Val(2), Val(1));
        dag_spawn(copy_ints, In(words, 4), Out(seen, 4), Val(4));
    }
    CHECK_EQ_INT(seen[0], 0);
    CHECK(seen[1] != 0);
    CHECK_EQ_INT(seen[2], 0);
}

TEST(two_readers_run_at_the_same_time) {
    int x = 3;
    meet m;
    meet_init(&m);
    int met0 = 0, met1 = 0;
    DAG_DATADEPS {
        dag_task r0 = dag_spawn(reader_meets, In(&x, 1), Val(&m), Val(0));
        dag_task r1 = dag_spawn(reader_meets, In(&x, 1), Val(&m), Val(1));
        CHECK_EQ_INT(dag_fetch(r0, &met0), DAG_OK);
        CHECK_EQ_INT(dag_fetch(r1, &met1), DAG_OK);
    }
    CHECK_EQ_INT(met0, 1);
    CHECK_EQ_INT(met1, 1);
}

TEST(tasks_start_while_the_spawner_is_still_running) {
    atomic_int started;
    atomic_init(&started, 0);
    DAG_DATADEPS {
        dag_spawn(flag_task, Val(&started));
        /* not waiting on the runtime: another worker must pick it up */
        CHECK(wait_flag(&started, MEET_SECONDS));
    }
}

TEST(disjoint_tiles_of_one_matrix_run_at_the_same_time) {
    double M[64];
    for (int i = 0; i < 64; i++) M[i] = 0;
    meet m;
    meet_init(&m);
    int ok0 = 0, ok1 = 0;
    DAG_DATADEPS {
        /* two 4x4 tiles side by side: their address ranges interleave */
        dag_task a = dag_spawn(tile_meets_then_fills, InOut(&M[0], 4, 4, 8), Val(4), Val(4), Val(8), Val(&m), Val(0), Val(1.0));
        dag_task b = dag_spawn(tile_meets_then_fills, InOut(&M[4], 4, 4, 8), Val(4), Val(4), Val(8), Val(&m), Val(1), Val(2.0));
        CHECK_EQ_INT(dag_fetch(a, &ok0), DAG_OK);
        CHECK_EQ_INT(dag_fetch(b, &ok1), DAG_OK);
    }
    CHECK_EQ_INT(ok0, 1);
    CHECK_EQ_INT(ok1, 1);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) CHECK(M[r * 8 + c] == (r < 4 ? (c < 4 ? 1.0 : 2.0) : 0.0));
}

TEST(spans_crossing_two_written_tiles_run_after_both) {
    double M[64];
    for (int i = 0; i < 64; i++) M[i] = 0;
    meet m;
    meet_init(&m);
    double mid[16], row1[8], cols34[16];
    for (int i = 0; i < 16; i++) mid[i] = cols34[i] = -1;
    for (int i = 0; i < 8; i++) row1[i] = -1;
    DAG_DATADEPS {
        dag_spawn(tile_meets_then_fills, InOut(&M[0], 4, 4, 8), Val(4), Val(4), Val(8), Val(&m), Val(0), Val(1.0));
        dag_spawn(tile_meets_then_fills, InOut(&M[4], 4, 4, 8), Val(4), Val(4), Val(8), Val(&m), Val(1), Val(2.0));
        /* a tile overlapping both (rows 2..5, cols 2..5) */
        dag_spawn(tile_copy, In(&M[2 * 8 + 2], 4, 4, 8), Val(4), Val(4), Val(8), Out(mid, 16));
        /* a whole row crossing both (1-D span) */
        dag_spawn(tile_copy, In(&M[1 * 8], 8), Val(1), Val(8), Val(8), Out(row1, 8));
        /* two columns crossing both (cols 3..4, every row) */
        dag_spawn(tile_copy, In(&M[3], 8, 2, 8), Val(8), Val(2), Val(8), Out(cols34, 16));
        /* then an overlapping writer: after the readers */
        dag_spawn(tile_add, InOut(&M[2 * 8 + 2], 4, 4, 8), Val(4), Val(4), Val(8), Val(10.0));
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            int R = r + 2, C = c + 2;
            double want = R < 4 ? (C < 4 ? 1.0 : 2.0) : 0.0;
            CHECK(mid[r * 4 + c] == want);
        }
    for (int c = 0; c < 8; c++) CHECK(row1[c] == (c < 4 ? 1.0 : 2.0));
    for (int r = 0; r < 8; r++) {
        CHECK(cols34[r * 2 + 0] == (r < 4 ? 1.0 : 0.0));
        CHECK(cols34[r * 2 + 1] == (r < 4 ? 2.0 : 0.0));
    }
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            double want = r < 4 ? (c < 4 ? 1.0 : 2.0) : 0.0;
            if (r >= 2 && r < 6 && c >= 2 && c < 6) want += 10.0;
            CHECK(M[r * 8 + c] == want);
        }
}

/* ------------------------------------------------------------------------ */
/* values and futures                                                       */
/* ------------------------------------------------------------------------ */

TEST(fut_passes_a_result_converted_to_the_parameter_type) {
    double h = 0, hh = 0;
    int sum = 0, back = 0;
    long long wide = 0;
    DAG_DATADEPS {
        dag_task t = dag_spawn(slow_int, Val(21));
        dag_task half = dag_spawn(half_of, Fut(t));            /* int result -> double parameter */
        dag_task twice = dag_spawn(add_ints, Fut(t), Fut(t));  /* one result, two consumers */
        dag_task trunc = dag_spawn(int_of, Fut(half));         /* double 10.5 -> int 10 */
        dag_task w = dag_spawn(llong_of, Fut(twice));          /* int -> long long */
        dag_task again = dag_spawn(half_of, Fut(half));        /* a chain of futures */
        CHECK_EQ_INT(dag_fetch(half, &h), DAG_OK);
        CHECK_EQ_INT(dag_fetch(twice, &sum), DAG_OK);
        CHECK_EQ_INT(dag_fetch(trunc, &back), DAG_OK);
        CHECK_EQ_INT(dag_fetch(w, &wide), DAG_OK);
        CHECK_EQ_INT(dag_fetch(again, &hh), DAG_OK);
    }
    CHECK(h == 10.5);
    CHECK_EQ_INT(sum, 42);
    CHECK_EQ_INT(back, 10);
    CHECK_EQ_INT(wide, 42);
    CHECK(hh == 5.25);
}

TEST(fut_passes_struct_results_small_and_large) {
    double s1 = 0, s2 = 0;
    big_record copy;
    memset(&copy, 0, sizeof copy);
    DAG_DATADEPS {
        dag_task b = dag_spawn(make_big, Val(7));
        dag_task p = dag_spawn(make_point, Val(1), Val(2), Val(0.5));
        dag_task bs = dag_spawn(big_sum, Fut(b));
        dag_task ps = dag_spawn(point_sum, Fut(p));
        CHECK_EQ_INT(dag_fetch(bs, &s1), DAG_OK);
        CHECK_EQ_INT(dag_fetch(ps, &s2), DAG_OK);
        CHECK_EQ_INT(dag_fetch(b, &copy), DAG_OK);
    }
    /* 7 + 0.5 * (0 + 1 + ... + 19) + strlen("made") = 7 + 95 + 4 */
    CHECK(s1 == 106.0);
    CHECK(s2 == 3.5);
    CHECK_EQ_INT(copy.id, 7);
    CHECK(copy.values[19] == 9.5);
    CHECK(strcmp(copy.tag, "made") == 0);
}

TEST(val_converts_like_a_c_call) {
    double d = 0, f = 0;
    int i = 0, c = 0;
    unsigned u = 0;
    long long ll = 0;
    const char *p = NULL;
    static const char text[] = "text";
    DAG_DATADEPS {
        dag_task t1 = dag_spawn(double_of, Val(2));           /* int -> double */
        dag_task t2 = dag_spawn(int_of, Val(2.75));           /* double -> int truncates */
        dag_task t3 = dag_spawn(int_of, Val((char)'A'));      /* char -> int */
        dag_task t4 = dag_spawn(unsigned_of, Val(-1));        /* int -> unsigned wraps */
        dag_task t5 = dag_spawn(double_of, Val(1.5f));        /* float -> double */
        dag_task t6 = dag_spawn(llong_of, Val(3000000000u));  /* unsigned -> long long */
        dag_task t7 = dag_spawn(pointer_of, Val((const char *)text)); /* a pointer passes as is */
        dag_fetch(t1, &d);
        dag_fetch(t2, &i);
        dag_fetch(t3, &c);
        dag_fetch(t4, &u);
        dag_fetch(t5, &f);
        dag_fetch(t6, &ll);
        dag_fetch(t7, &p);
    }
    CHECK(d == 2.0);
    CHECK_EQ_INT(i, 2);
    CHECK_EQ_INT(c, 65);
    CHECK(u == (unsigned)-1);
    CHECK(f == 1.5);
    CHECK_EQ_INT(ll, 3000000000LL);
    CHECK(p == text);
}

TEST(val_passes_structs_by_value) {
    point3 pt = {1, 2, 3.25};
    big_record big;
    memset(&big, 0, sizeof big);
    big.id = 1;
    for (int i = 0; i < 20; i++) big.values[i] = 1.0;
    strcpy(big.tag, "abc");
    double s1 = 0, s2 = 0;
    DAG_DATADEPS {
        dag_task a = dag_spawn(point_sum, Val(pt));
        dag_task b = dag_spawn(big_sum, Val(big));
        /* the copy is taken at spawn: later changes don't show */
        pt.x = 1000;
        big.id = 1000;
        dag_fetch(a, &s1);
        dag_fetch(b, &s2);
    }
    CHECK(s1 == 6.25);
    CHECK(s2 == 1 + 20 + 3);
}

/* ------------------------------------------------------------------------ */
/* regions                                                                  */
/* ------------------------------------------------------------------------ */

TEST(sequential_keeps_spawn_order_without_annotations) {
    log_reset();
    DAG_SEQUENTIAL {
        /* the early tasks are the slowest: in parallel they would log last */
        for (int i = 0; i < 8; i++) dag_spawn(log_after_spin, Val(i), Val((unsigned)(8 - i) * 2000u));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(atomic_load(&log_n), 8);
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(log_v[i], i);
}

TEST(a_datadeps_block_inside_sequential_is_one_step) {
    log_reset();
    DAG_SEQUENTIAL {
        dag_spawn(log_after_spin, Val(0), Val(SLOW_US));
        DAG_DATADEPS {
            dag_spawn(log_after_spin, Val(1), Val(SLOW_US));
            dag_spawn(log_after_spin, Val(1), Val(SLOW_US));
        }
        dag_spawn(log_value, Val(2));
    }
    CHECK_EQ_INT(atomic_load(&log_n), 4);
    CHECK_EQ_INT(log_v[0], 0);
    CHECK_EQ_INT(log_v[1], 1);
    CHECK_EQ_INT(log_v[2], 1);
    CHECK_EQ_INT(log_v[3], 2);
}

TEST(bulk_inside_sequential_runs_its_tasks_in_parallel) {
    log_reset();
    meet m;
    meet_init(&m);
    int ok0 = 0, ok1 = 0;
    dag_task a = {NULL, 0, 0}, b = {NULL, 0, 0};
    DAG_SEQUENTIAL {
        dag_spawn(log_after_spin, Val(0), Val(SLOW_US));
        DAG_BULK {
            a = dag_spawn(meets_then_logs, Val(&m), Val(0), Val(100));
            b = dag_spawn(meets_then_logs, Val(&m), Val(1), Val(101));
        }
        dag_spawn(log_value, Val(1));
        CHECK_EQ_INT(dag_fetch(a, &ok0), DAG_OK);
        CHECK_EQ_INT(dag_fetch(b, &ok1), DAG_OK);
    }
    CHECK_EQ_INT(ok0, 1);
    CHECK_EQ_INT(ok1, 1);
    CHECK_EQ_INT(atomic_load(&log_n), 4);
    CHECK_EQ_INT(log_v[0], 0);     /* the step before the bulk came first */
    CHECK(log_v[1] + log_v[2] == 201 && (log_v[1] == 100 || log_v[1] == 101));
    CHECK_EQ_INT(log_v[3], 1);     /* the step after the bulk came last */
}

TEST(bulk_inside_sequential_still_honours_data_dependencies) {
    int x = 0, seen = -1, y = 0, seen_y = -1;
    DAG_SEQUENTIAL {
        dag_spawn(slow_write_int, Out(&y, 1), Val(3));
        DAG_BULK {
            dag_spawn(slow_write_int, Out(&x, 1), Val(9));
            dag_spawn(read_int, In(&x, 1), Out(&seen, 1));
            dag_spawn(read_int, In(&y, 1), Out(&seen_y, 1));
        }
    }
    CHECK_EQ_INT(seen, 9);
    CHECK_EQ_INT(seen_y, 3);
}

TEST(children_are_ordered_by_their_spans_and_the_parent_waits_for_them) {
    int a[4] = {0, 0, 0, 0};
    int sum = -1, seen = -1, copy[4] = {0, 0, 0, 0};
    DAG_DATADEPS {
        dag_task p = dag_spawn(parent_fill_then_sum, Out(a, 4), Out(&sum, 1));
        /* spawned after the parent: must see what its children wrote */
        dag_spawn(read_int, In(&sum, 1), Out(&seen, 1));
        dag_spawn(copy_ints, In(a, 4), Out(copy, 4), Val(4));
        CHECK_EQ_INT(dag_wait(p), DAG_OK);
        CHECK_EQ_INT(sum, 28);   /* dag_wait on the parent covers its children */
    }
    CHECK_EQ_INT(seen, 28);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(copy[i], 7);
}

TEST(a_parent_is_not_finished_while_its_child_still_runs) {
    int x = 0;
    atomic_int gate, body_done;
    atomic_init(&gate, 0);
    atomic_init(&body_done, 0);
    DAG_DATADEPS {
        dag_task p = dag_spawn(parent_with_gated_child, Out(&x, 1), Val(&gate), Val(&body_done));
        CHECK(wait_flag(&body_done, MEET_SECONDS));   /* the parent's body has run */
        CHECK(!dag_ready(p));                          /* but its child is held at the gate */
        CHECK_EQ_INT(dag_task_result(p), DAG_OK);
        atomic_store(&gate, 1);
        CHECK_EQ_INT(dag_wait(p), DAG_OK);
        CHECK(dag_ready(p));
        CHECK_EQ_INT(x, 11);
    }
}

TEST(a_region_inside_a_task_body_waits_for_its_children) {
    int x = 0, got = -1;
    DAG_DATADEPS {
        dag_task t = dag_spawn(body_with_region, InOut(&x, 1));
        CHECK_EQ_INT(dag_fetch(t, &got), DAG_OK);
    }
    CHECK_EQ_INT(got, 5);
}

TEST(the_same_span_twice_in_one_task_counts_once) {
    int x = 0, seen = -1;
    DAG_DATADEPS {
        dag_spawn(slow_write_int, Out(&x, 1), Val(10));
        dag_spawn(inc_in_to_out, In(&x, 1), InOut(&x, 1));
        dag_spawn(inc_in_to_out, In(&x, 1), Out(&x, 1));
        dag_spawn(read_int, In(&x, 1), Out(&seen, 1));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 12);
    CHECK_EQ_INT(seen, 12);
}

TEST(region_functions_wait_for_their_tasks) {
    int x = 0, seen = -1;
    dag_region r = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    CHECK(r.depth != 0);
    dag_spawn(slow_write_int, Out(&x, 1), Val(6));
    dag_spawn(read_int, In(&x, 1), Out(&seen, 1));
    CHECK_EQ_INT(dag_region_end(r), DAG_OK);
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 6);
    CHECK_EQ_INT(seen, 6);

    log_reset();
    dag_region s = dag_region_begin(DAG_REGION_SEQUENTIAL, NULL);
    dag_spawn(log_after_spin, Val(0), Val(SLOW_US));
    dag_spawn(log_value, Val(1));
    CHECK_EQ_INT(dag_region_end(s), DAG_OK);
    CHECK_EQ_INT(atomic_load(&log_n), 2);
    CHECK_EQ_INT(log_v[0], 0);
    CHECK_EQ_INT(log_v[1], 1);
}

TEST(region_end_returns_the_first_error) {
    int x = 0, y = -1, z = 0;
    atomic_store(&quiet_errors, 1);
    dag_region r = dag_region_begin(DAG_REGION_DATADEPS, NULL);
    dag_spawn(fail_with, Out(&x, 1), Val(DAG_USER_ERROR + 5));
    dag_spawn(read_int, In(&x, 1), Out(&y, 1));        /* cancelled: depends on the failure */
    dag_spawn(slow_write_int, Out(&z, 1), Val(3));     /* independent: still runs */
    dag_result res = dag_region_end(r);
    atomic_store(&quiet_errors, 0);
    CHECK_EQ_INT(res, DAG_USER_ERROR + 5);
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 5);
    CHECK_EQ_INT(y, -1);
    CHECK_EQ_INT(z, 3);
    /* the failure ended with its region: a new region writing the same
       variable starts clean (a failed writer used to stay in the main
       thread's dependency state and cancel it) */
    DAG_DATADEPS { dag_spawn(write_int, Out(&x, 1), Val(1)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(x, 1);
}

/* ------------------------------------------------------------------------ */
/* waiting                                                                  */
/* ------------------------------------------------------------------------ */

TEST(dag_ready_and_dag_wait_follow_a_running_task) {
    atomic_int gate;
    atomic_init(&gate, 0);
    int v = -1;
    dag_task t = dag_spawn(wait_gate, Val(&gate));
    CHECK(t.ptr != NULL);
    CHECK(!dag_ready(t));
    CHECK_EQ_INT(dag_task_result(t), DAG_OK);
    atomic_store(&gate, 1);
    CHECK_EQ_INT(dag_wait(t), DAG_OK);
    CHECK(dag_ready(t));
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
    CHECK_EQ_INT(v, 1);   /* the gate opened before its time ran out */
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
    /* after everything finished, an old handle reads as done */
    CHECK(dag_ready(t));
    CHECK_EQ_INT(dag_wait(t), DAG_OK);
}

/* A loop polling dag_ready on a task pinned to the polling thread (worker 1, where the program runs)
   makes progress: each poll may run such a task, which no other thread may (Dagger's isready loop). */
TEST(polling_dag_ready_runs_a_task_pinned_to_the_polling_thread) {
    CHECK_EQ_INT(dag_current_worker(), 1);
    dag_task t = dag_spawn_with(DAG_OPTIONS(.scope = dag_scope(.thread = 1)), sum4, Val(5L), Val(6L), Val(7L), Val(8L));
    long polls = 0, r = 0;
    while (!dag_ready(t) && polls < 100000000) polls++;
    CHECK(polls < 100000000);
    CHECK_EQ_INT(dag_fetch(t, &r), DAG_OK);
    CHECK_EQ_INT(r, 5678);
}

TEST(dag_wait_all_waits_for_every_top_level_task) {
    atomic_int counter;
    atomic_init(&counter, 0);
    int x = 0;
    for (int i = 0; i < 200; i++) dag_spawn(count_up, Val(&counter));
    dag_spawn(slow_write_int, Out(&x, 1), Val(77));
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
    CHECK_EQ_INT(atomic_load(&counter), 200);
    CHECK_EQ_INT(x, 77);
}

/* ------------------------------------------------------------------------ */
/* registered data, array form, options                                     */
/* ------------------------------------------------------------------------ */

TEST(registered_data_orders_like_spans) {
    int arr[4] = {0, 0, 0, 0};
    int sum = -1, sum2 = -1, sum3 = -1;
    dag_data h = dag_register(arr, 4);
    CHECK(h.id != 0);
    CHECK(dag_data_pointer(h) == (void *)arr);
    DAG_DATADEPS {
        dag_spawn(slow_fill_ints, Out(h), Val(4), Val(9));
        dag_spawn(sum_ints, In(h), Val(4), Out(&sum, 1));
        /* a handle and a raw span over the same memory alias */
        dag_spawn(slow_fill_ints, Out(arr, 4), Val(4), Val(2));
        dag_spawn(sum_ints, In(h), Val(4), Out(&sum2, 1));
        dag_spawn(slow_fill_ints, InOut(h), Val(4), Val(3));
        dag_spawn(sum_ints, In(arr + 2, 2), Val(2), Out(&sum3, 1));
    }
    CHECK_EQ_INT(sum, 36);
    CHECK_EQ_INT(sum2, 8);
    CHECK_EQ_INT(sum3, 6);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
}

DAG_TASK(void, note_ld, (const double *, tile), (int, ld), (long long, lld), (int *, out)) {
    (void)tile;
    out[0] = ld;
    out[1] = (int)lld;
}
DAG_TASK(void, note_ld_of_second, (const double *, row), (const double *, tile), (int, ld), (int *, out)) {
    (void)row;
    (void)tile;
    out[0] = ld;
}
TEST(ld_gives_a_cpu_task_the_leading_dimension_of_the_span_it_names) {
    double M[80];
    dag_data t = dag_register_tile(&M[3], 4, 5, 10);
    int got[4] = { 0, 0, 0, 0 };
    DAG_DATADEPS {
        dag_spawn(note_ld, In(t), Ld(t), Ld(t), Val(&got[0]));
        dag_spawn(note_ld, In(&M[2], 3, 4, 16), Ld(&M[2]), Ld(&M[2]), Val(&got[2]));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK_EQ_INT(got[0], 10);   /* any integer parameter type */
    CHECK_EQ_INT(got[1], 10);
    CHECK_EQ_INT(got[2], 16);
    CHECK_EQ_INT(got[3], 16);
    /* a handle names its own span, even where a longer 1-D span starts at the same element */
    DAG_DATADEPS dag_spawn(note_ld_of_second, In(&M[3], 40), In(t), Ld(t), Val(&got[0]));
    CHECK_EQ_INT(got[0], 10);
    CHECK_EQ_INT(dag_data_unregister(t), DAG_OK);
}

TEST(registered_tiles_order_against_tiles_rows_and_each_other) {
    double M[64];
    for (int i = 0; i < 64; i++) M[i] = 0;
    /* two 4x4 tiles of an 8x8 row-major matrix, side by side: interleaved address ranges */
    dag_data left = dag_register_tile(&M[0], 4, 4, 8), right = dag_register_tile(&M[4], 4, 4, 8);
    CHECK(left.id != 0 && right.id != 0);
    CHECK(dag_data_pointer(right) == (void *)&M[4]);
    meet m;
    meet_init(&m);
    int ok0 = 0, ok1 = 0;
    double mid[16], row1[8];
    for (int i = 0; i < 16; i++) mid[i] = -1;
    for (int i = 0; i < 8; i++) row1[i] = -1;
    DAG_DATADEPS {
        /* disjoint registered tiles: at the same time */
        dag_task a = dag_spawn(tile_meets_then_fills, InOut(left), Val(4), Val(4), Val(8), Val(&m), Val(0), Val(1.0));
        dag_task b = dag_spawn(tile_meets_then_fills, InOut(right), Val(4), Val(4), Val(8), Val(&m), Val(1), Val(2.0));
        /* a raw tile and a row crossing both: after both */
        dag_spawn(tile_copy, In(&M[2 * 8 + 2], 4, 4, 8), Val(4), Val(4), Val(8), Out(mid, 16));
        dag_spawn(tile_copy, In(&M[1 * 8], 8), Val(1), Val(8), Val(8), Out(row1, 8));
        /* a raw writer over part of the right tile, then the handle read: in order */
        dag_spawn(tile_add, InOut(&M[3 * 8 + 6], 1, 2, 8), Val(1), Val(2), Val(8), Val(5.0));
        dag_spawn(tile_add, InOut(right), Val(4), Val(4), Val(8), Val(10.0));
        CHECK_EQ_INT(dag_fetch(a, &ok0), DAG_OK);
        CHECK_EQ_INT(dag_fetch(b, &ok1), DAG_OK);
    }
    CHECK_EQ_INT(ok0, 1);
    CHECK_EQ_INT(ok1, 1);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            int R = r + 2, C = c + 2;
            CHECK(mid[r * 4 + c] == (R < 4 ? (C < 4 ? 1.0 : 2.0) : 0.0));
        }
    for (int c = 0; c < 8; c++) CHECK(row1[c] == (c < 4 ? 1.0 : 2.0));
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            double want = r >= 4 ? 0.0 : c < 4 ? 1.0 : 12.0 + (r == 3 && c >= 6 ? 5.0 : 0.0);
            CHECK(M[r * 8 + c] == want);
        }
    CHECK_EQ_INT(dag_data_unregister(left), DAG_OK);
    CHECK_EQ_INT(dag_data_unregister(right), DAG_OK);
}

TEST(spawn_args_takes_an_argument_array_built_at_run_time) {
    double src[32], dst[32];
    for (int i = 0; i < 32; i++) src[i] = dst[i] = 0;
    size_t chunk = 8;
    double k = 3.0;
    DAG_DATADEPS {
        dag_spawn(slow_fill_doubles, Out(src, 32), Val((size_t)32), Val(2.0));
        for (size_t c = 0; c < 4; c++) {
            dag_arg args[4];
            int n = 0;
            args[n++] = In(src + c * chunk, chunk);
            args[n++] = Out(dst + c * chunk, chunk);
            args[n++] = Val(chunk);
            args[n++] = Val(k);
            dag_task t = dag_spawn_args(scale_copy, args, n);
            CHECK(t.ptr != NULL);
        }
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    for (int i = 0; i < 32; i++) CHECK(dst[i] == 6.0);
}

TEST(spawn_with_name_appears_in_the_failure_message) {
    atomic_store(&quiet_errors, 1);
    DAG_DATADEPS {
        dag_task t = dag_spawn_with(DAG_OPTIONS(.name = "load-step-7"), fail_plain, Val(DAG_USER_ERROR + 1));
        dag_task d = dag_spawn(use_int, Fut(t));
        CHECK_EQ_INT(dag_wait(t), DAG_USER_ERROR + 1);
        CHECK(strstr(dag_task_message(t), "load-step-7") != NULL);
        CHECK_EQ_INT(dag_wait(d), DAG_ERR_DEPENDENCY_FAILED);
        CHECK(strstr(dag_task_message(d), "load-step-7") != NULL);
    }
    atomic_store(&quiet_errors, 0);
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 1);
}

/* ------------------------------------------------------------------------ */
/* scopes                                                                   */
/* ------------------------------------------------------------------------ */

TEST(the_setup_thread_is_worker_1) {
    CHECK_EQ_INT(dag_current_worker(), 1);
    CHECK(dag_is_setup());
}

TEST(a_task_scoped_to_thread_2_runs_on_worker_2) {
    int where[16];
    for (int i = 0; i < 16; i++) where[i] = -1;
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope = dag_scope(.thread = 2);
    DAG_DATADEPS {
        for (int i = 0; i < 16; i++) dag_spawn_with(&o, record_worker, Out(&where[i], 1));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(where[i], 2);
}

TEST(a_task_scoped_to_thread_1_runs_on_the_setup_thread) {
    int where[8];
    for (int i = 0; i < 8; i++) where[i] = -1;
    DAG_DATADEPS {
        for (int i = 0; i < 8; i++)
            dag_spawn_with(DAG_OPTIONS(.scope = dag_scope(.thread = 1)), record_worker, Out(&where[i], 1));
    }
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(where[i], 1);
}

TEST(a_task_scoped_to_a_thread_set_runs_on_one_of_them) {
    int where[32];
    for (int i = 0; i < 32; i++) where[i] = -1;
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope = dag_scope(.threads = DAG_THREAD_BIT(1) | DAG_THREAD_BIT(3));
    DAG_DATADEPS {
        for (int i = 0; i < 32; i++) dag_spawn_with(&o, record_worker, Out(&where[i], 1));
    }
    for (int i = 0; i < 32; i++) CHECK(where[i] == 1 || where[i] == 3);
}

TEST(a_scope_union_allows_the_workers_of_both) {
    int where[32];
    for (int i = 0; i < 32; i++) where[i] = -1;
    int last = dag_num_threads();   /* 3 or 4 */
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope = dag_scope_union(dag_scope(.thread = 2), dag_scope(.thread = last));
    DAG_DATADEPS {
        for (int i = 0; i < 32; i++) dag_spawn_with(&o, record_worker, Out(&where[i], 1));
    }
    for (int i = 0; i < 32; i++) CHECK(where[i] == 2 || where[i] == last);
}

TEST(with_options_scope_applies_to_nested_spawns) {
    int where[6];
    for (int i = 0; i < 6; i++) where[i] = -1;
    int outside = -1;
    DAG_DATADEPS {
        DAG_WITH_OPTIONS(.scope = dag_scope(.thread = 3)) {
            /* the parent and the children its body spawns all run on worker 3 */
            dag_spawn(parent_records_children_workers, Out(where, 6), Val(6));
        }
        /* after the block: no scope again (any worker may run it) */
        dag_spawn(record_worker, Out(&outside, 1));
    }
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(where[i], 3);
    CHECK(outside >= 1 && outside <= dag_num_threads());
}

/* ------------------------------------------------------------------------ */
/* tracing                                                                  */
/* ------------------------------------------------------------------------ */

static char *read_whole_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = (char *)malloc(cap);
    for (;;) {
        if (n + 1024 + 1 > cap) buf = (char *)realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, 1024, f);
        n += got;
        if (got == 0) break;
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* The DOT node id of the task labelled `name`, or 0. */
static unsigned long long dot_id_of(const char *dot, const char *name) {
    const char *line = dot;
    while (line && *line) {
        unsigned long long id;
        char label[64];
        if (sscanf(line, " t%llu [label=\"%63[^\\\"]", &id, label) == 2 && strcmp(label, name) == 0) return id;
        line = strchr(line, '\n');
        if (line) line++;
    }
    return 0;
}

static int dot_has_edge(const char *dot, unsigned long long from, unsigned long long to) {
    char want[64];
    snprintf(want, sizeof want, "t%llu -> t%llu;", from, to);
    return strstr(dot, want) != NULL;
}

TEST(trace_records_task_names_and_inferred_edges) {
    char json_path[256], dot_path[256];
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    unsigned long token = (unsigned long)(uintptr_t)&json_path ^ (unsigned long)time(NULL);
    snprintf(json_path, sizeof json_path, "%s/dag_test_trace_%lx.json", tmp, token);
    snprintf(dot_path, sizeof dot_path, "%s/dag_test_trace_%lx.dot", tmp, token);

    int x = 0, y = 0, z = 0;
    dag_trace_enable(1);
    dag_trace_clear();
    DAG_DATADEPS {
        dag_spawn_with(DAG_OPTIONS(.name = "trace_a"), slow_write_int, Out(&x, 1), Val(1));
        dag_spawn_with(DAG_OPTIONS(.name = "trace_b"), read_int, In(&x, 1), Out(&y, 1));
        dag_spawn_with(DAG_OPTIONS(.name = "trace_c"), read_int, In(&x, 1), Out(&z, 1));
        dag_spawn_with(DAG_OPTIONS(.name = "trace_d"), write_int, Out(&x, 1), Val(2));
        dag_spawn(trace_plain_task, InOut(&x, 1));
    }
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
    CHECK_EQ_INT(dag_trace_write_json(json_path), DAG_OK);
    CHECK_EQ_INT(dag_trace_write_dot(dot_path), DAG_OK);
    dag_trace_enable(0);

    char *json = read_whole_file(json_path);
    char *dot = read_whole_file(dot_path);
    CHECK(json != NULL);
    CHECK(dot != NULL);
    if (json) {
        CHECK(strstr(json, "\"traceEvents\"") != NULL);
        CHECK(strstr(json, "\"name\":\"trace_a\"") != NULL);
        CHECK(strstr(json, "\"name\":\"trace_b\"") != NULL);
        CHECK(strstr(json, "\"name\":\"trace_c\"") != NULL);
        CHECK(strstr(json, "\"name\":\"trace_d\"") != NULL);
        CHECK(strstr(json, "\"name\":\"trace_plain_task\"") != NULL);
    }
    if (dot) {
        CHECK(strncmp(dot, "digraph", 7) == 0);
        unsigned long long a = dot_id_of(dot, "trace_a"), b = dot_id_of(dot, "trace_b"),
                           c = dot_id_of(dot, "trace_c"), d = dot_id_of(dot, "trace_d"),
                           p = dot_id_of(dot, "trace_plain_task");
        CHECK(a && b && c && d && p);
        CHECK(dot_has_edge(dot, a, b));    /* read after write */
        CHECK(dot_has_edge(dot, a, c));
        CHECK(dot_has_edge(dot, b, d));    /* write after read */
        CHECK(dot_has_edge(dot, c, d));
        CHECK(dot_has_edge(dot, d, p));    /* write after write */
        CHECK(!dot_has_edge(dot, b, c));   /* reads never order each other */
        CHECK(!dot_has_edge(dot, c, b));
    }
    free(json);
    free(dot);
    remove(json_path);
    remove(dot_path);
}

/* A name the program builds in a local buffer, as a loop over tiles does: the trace and a failure's
   words keep their own copy, not the buffer (which the next call reuses) */
DAG_TASK(void, fail_if_two, (int, i)) {
    if (i == 2) dag_fail(DAG_USER_ERROR, "tile %d is bad", i);
}
static dag_task spawn_named_tile(int i) {
    char name[32];
    snprintf(name, sizeof name, "tile %d", i);
    return dag_spawn_with(DAG_OPTIONS(.name = name), fail_if_two, Val(i));
}
TEST(task_names_from_a_local_buffer_are_the_tasks_own_in_the_trace_and_in_failures) {
    dag_trace_enable(1);
    dag_trace_clear();
    dag_task tiles[4];
    for (int i = 0; i < 4; i++) tiles[i] = spawn_named_tile(i);
    for (int i = 0; i < 4; i++)
        if (i != 2) dag_release(tiles[i]);
    dag_task failed = tiles[2];
    CHECK_EQ_INT(dag_wait(failed), DAG_USER_ERROR);
    CHECK(strstr(dag_task_message(failed), "task 'tile 2' failed") != NULL);
    dag_release(failed);
    dag_wait_all();
    dag_trace_enable(0);
    dag_trace_record rec[16];
    size_t n = dag_trace_records(rec, 16);
    int seen[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n && i < 16; i++)
        for (int k = 0; k < 4; k++) {
            char want[32];
            snprintf(want, sizeof want, "tile %d", k);
            if (rec[i].name && !strcmp(rec[i].name, want)) seen[k]++;
        }
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(seen[k], 1);
    dag_trace_clear();
}

/* Tracing turned on mid-run holds what was spawned while it was on (a task spawned before has no
   node of its own: it used to be node 0, which merged every such task and its edges); turned off and
   on again, the events it kept keep their times (they came out at 0, overlapping) */
static const dag_trace_record *find_record(const dag_trace_record *rec, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (rec[i].name && !strcmp(rec[i].name, name)) return &rec[i];
    return NULL;
}
TEST(a_trace_turned_on_mid_run_holds_what_was_spawned_while_on_and_keeps_its_times) {
    int x = 0, y = 0;
    dag_trace_enable(0);
    dag_trace_clear();
    DAG_DATADEPS {
        dag_spawn_with(DAG_OPTIONS(.name = "spawned_before"), slow_write_int, Out(&x, 1), Val(1));
        dag_trace_enable(1);
        dag_spawn_with(DAG_OPTIONS(.name = "spawned_after"), read_int, In(&x, 1), Out(&y, 1));
    }
    dag_trace_enable(0);
    dag_spawn_with(DAG_OPTIONS(.name = "spawned_while_off"), write_int, Out(&x, 1), Val(2));
    dag_wait_all();
    dag_trace_enable(1);
    dag_spawn_with(DAG_OPTIONS(.name = "spawned_again"), write_int, Out(&x, 1), Val(3));
    dag_wait_all();
    dag_trace_enable(0);
    dag_trace_record rec[16];
    size_t n = dag_trace_records(rec, 16);
    if (n > 16) n = 16;
    const dag_trace_record *after = find_record(rec, n, "spawned_after"), *again = find_record(rec, n, "spawned_again");
    CHECK(find_record(rec, n, "spawned_before") == NULL);
    CHECK(find_record(rec, n, "spawned_while_off") == NULL);
    CHECK(after != NULL && again != NULL);
    if (after && again) {
        CHECK(after->end_us > 0 && after->end_us >= after->start_us);
        CHECK(again->start_us >= after->end_us);   /* one time line: not back to 0 */
    }
    CHECK_EQ_INT(y, 1);
    dag_trace_clear();
}

/* ------------------------------------------------------------------------ */
/* priorities (one worker: ready tasks queue until the main thread waits)   */
/* ------------------------------------------------------------------------ */

TEST(higher_priority_ready_tasks_run_first) {
    log_reset();
    DAG_DATADEPS {
        dag_spawn(log_prio, Val(0));
        dag_spawn_with(DAG_OPTIONS(.priority = 1), log_prio, Val(1));
        dag_spawn(log_prio, Val(0));
        dag_spawn_with(DAG_OPTIONS(.priority = 5), log_prio, Val(5));
        dag_spawn_with(DAG_OPTIONS(.priority = 3), log_prio, Val(3));
        dag_spawn_with(DAG_OPTIONS(.priority = 9), log_prio, Val(9));
        dag_spawn(log_prio, Val(0));
    }
    CHECK_EQ_INT(atomic_load(&log_n), 7);
    CHECK_EQ_INT(log_v[0], 9);
    CHECK_EQ_INT(log_v[1], 5);
    CHECK_EQ_INT(log_v[2], 3);
    CHECK_EQ_INT(log_v[3], 1);
    CHECK_EQ_INT(log_v[4], 0);
    CHECK_EQ_INT(log_v[5], 0);
    CHECK_EQ_INT(log_v[6], 0);
}

/* Tasks that become ready at once, when the task they wait for ends: the one without a priority
   is not handed to the finishing thread ahead of those with one */
static double prio_cells[8];
DAG_TASK(void, log_prio_on, (int, v), (double *, cell)) {
    (void)cell;
    log_v[atomic_fetch_add(&log_n, 1)] = v;
}
TEST(prioritised_tasks_freed_by_one_finish_run_before_unprioritised_ones) {
    log_reset();
    DAG_DATADEPS {
        dag_spawn(log_prio_on, Val(100), InOut(prio_cells, 8));   /* each task below waits for it */
        dag_spawn(log_prio_on, Val(0), InOut(prio_cells, 1));
        for (int i = 1; i < 8; i++) dag_spawn_with(DAG_OPTIONS(.priority = i), log_prio_on, Val(i), InOut(prio_cells + i, 1));
    }
    CHECK_EQ_INT(atomic_load(&log_n), 9);
    CHECK_EQ_INT(log_v[0], 100);
    for (int i = 1; i < 8; i++) CHECK_EQ_INT(log_v[i], 8 - i);
    CHECK_EQ_INT(log_v[8], 0);
}

TEST(with_options_priority_applies_to_every_spawn_inside) {
    log_reset();
    DAG_DATADEPS {
        dag_spawn(log_prio, Val(0));
        dag_spawn_with(DAG_OPTIONS(.priority = 2), log_prio, Val(2));
        DAG_WITH_OPTIONS(.priority = 7) {
            dag_spawn(log_prio, Val(7));
            dag_spawn(log_prio, Val(7));
        }
        dag_spawn(log_prio, Val(0));
    }
    CHECK_EQ_INT(atomic_load(&log_n), 5);
    CHECK_EQ_INT(log_v[0], 7);
    CHECK_EQ_INT(log_v[1], 7);
    CHECK_EQ_INT(log_v[2], 2);
    CHECK_EQ_INT(log_v[3], 0);
    CHECK_EQ_INT(log_v[4], 0);
}

/* A recursion of inline spawns 1,500 deep fits one worker's stack budget (DAG_STACK_BUDGET, 2 MiB:
   under 1.4 KiB a level) with no reserve thread standing in: a spawn's frames stay small. (Sanitizers'
   frames are larger by design.) */
DAG_TASK(long, deep_inline, (int, n)) {
    if (n == 0) return 0;
    long below = -1;
    dag_fetch(dag_spawn_with(DAG_OPTIONS(.run_inline = 1), deep_inline, Val(n - 1)), &below);
    return below + 1;
}
TEST(a_recursion_of_inline_spawns_fits_one_workers_stack_budget) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__OPTIMIZE__)
    NOT_APPLICABLE("a sanitizer's or an unoptimised build's frames are larger than the budget assumes");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    NOT_APPLICABLE("a sanitizer's frames are larger than the budget assumes");
#endif
#endif
    int before = dag_get_stats().reserve_threads;
    long depth = -1;
    CHECK_EQ_INT(dag_fetch(dag_spawn(deep_inline, Val(1500)), &depth), DAG_OK);
    CHECK_EQ_INT((int)depth, 1500);
    CHECK_EQ_INT(dag_get_stats().reserve_threads - before, 0);
}
TEST(a_single_worker_still_keeps_data_order) {
    int x = 0, seen = -1;
    DAG_DATADEPS {
        /* the reader is the higher priority, but it must wait for the writer */
        dag_spawn(slow_write_int, Out(&x, 1), Val(4));
        dag_spawn_with(DAG_OPTIONS(.priority = 9), read_int, In(&x, 1), Out(&seen, 1));
    }
    CHECK_EQ_INT(seen, 4);
}

static int setup_failures;
static void setup_or_note(int threads) {
    dag_desc d = desc_with_threads(threads);
    if (dag_setup(&d) != DAG_OK || dag_num_threads() != threads) {
        fprintf(stderr, "FAIL: dag_setup(%d threads)\n", threads);
        setup_failures++;
    }
}
static void shutdown_or_note(void) {
    if (dag_shutdown() != DAG_OK) {
        fprintf(stderr, "FAIL: dag_shutdown reported an error\n");
        setup_failures++;
    }
}

/* A thread waiting inside task A must not run an unrelated task B on top of
   A's frame: B waits for A (by fetch, or through a child's Fut) and A could
   never resume. A's child is pinned to worker 1, which is busy for a while,
   so worker 2 waits inside A with B queued. */
DAG_TASK(void, pinned_child, (int *, p)) { *p = 1; }
DAG_TASK(int, waits_for_pinned_child, (int *, p)) {
    DAG_DATADEPS { dag_spawn_with(DAG_OPTIONS(.scope = dag_scope(.thread = 1)), pinned_child, Out(p, 1)); }
    return 42;
}
DAG_TASK(int, fetches_handle, (dag_task, a)) {
    int v = 0;
    dag_fetch(a, &v);
    return v + 1;
}
DAG_TASK(int, plus_one, (int, v)) { return v + 1; }
DAG_TASK(int, child_uses_handle, (dag_task, a)) {
    int v = 0;
    DAG_DATADEPS { dag_fetch(dag_spawn(plus_one, Fut(a)), &v); }
    return v;
}
TEST(a_waiting_task_never_runs_an_unrelated_task_on_top_of_itself) {
    for (int variant = 0; variant < 2; variant++) {
        int c = 0, v = 0;
        DAG_DATADEPS {
            dag_task a = dag_spawn(waits_for_pinned_child, Val(&c));
            dag_task b = variant ? dag_spawn(child_uses_handle, Val(a)) : dag_spawn(fetches_handle, Val(a));
            test_spin_us(100000);   /* worker 1 busy: worker 2 takes A and waits inside it */
            dag_fetch(b, &v);
        }
        CHECK_EQ_INT(v, 43);
        CHECK_EQ_INT(c, 1);
    }
}

int main(void) {
    watchdog_start();
    setup_or_note(4);
    RUN(the_setup_thread_is_worker_1);
    RUN(results_of_pointer_types_that_start_with_void_are_results);
    RUN(fut_never_passes_a_structs_bytes_as_a_pointer);
    RUN(spawns_of_values_give_each_argument_whichever_way_they_go);
    RUN(a_reader_spawned_after_a_slow_writer_sees_its_values);
    RUN(a_writer_spawned_after_a_slow_reader_waits_for_it);
    RUN(two_writers_land_in_spawn_order);
    RUN(inout_updates_apply_in_spawn_order);
    RUN(arguments_built_at_run_time_order_like_in_out_and_inout);
    RUN(an_argument_array_filled_in_a_loop_keeps_its_values);
    RUN(partially_overlapping_spans_are_ordered);
    RUN(spans_of_different_element_types_alias_by_bytes);
    RUN(two_readers_run_at_the_same_time);
    RUN(tasks_start_while_the_spawner_is_still_running);
    RUN(disjoint_tiles_of_one_matrix_run_at_the_same_time);
    RUN(spans_crossing_two_written_tiles_run_after_both);
    RUN(fut_passes_a_result_converted_to_the_parameter_type);
    RUN(fut_passes_struct_results_small_and_large);
    RUN(val_converts_like_a_c_call);
    RUN(val_passes_structs_by_value);
    RUN(sequential_keeps_spawn_order_without_annotations);
    RUN(a_datadeps_block_inside_sequential_is_one_step);
    RUN(bulk_inside_sequential_runs_its_tasks_in_parallel);
    RUN(bulk_inside_sequential_still_honours_data_dependencies);
    RUN(children_are_ordered_by_their_spans_and_the_parent_waits_for_them);
    RUN(a_parent_is_not_finished_while_its_child_still_runs);
    RUN(a_region_inside_a_task_body_waits_for_its_children);
    RUN(the_same_span_twice_in_one_task_counts_once);
    RUN(region_functions_wait_for_their_tasks);
    RUN(dag_ready_and_dag_wait_follow_a_running_task);
    RUN(polling_dag_ready_runs_a_task_pinned_to_the_polling_thread);
    RUN(dag_wait_all_waits_for_every_top_level_task);
    RUN(registered_data_orders_like_spans);
    RUN(registered_tiles_order_against_tiles_rows_and_each_other);
    RUN(ld_gives_a_cpu_task_the_leading_dimension_of_the_span_it_names);
    RUN(spawn_args_takes_an_argument_array_built_at_run_time);
    RUN(spawn_with_name_appears_in_the_failure_message);
    RUN(a_task_scoped_to_thread_1_runs_on_the_setup_thread);
    RUN(a_task_scoped_to_a_thread_set_runs_on_one_of_them);
    RUN(trace_records_task_names_and_inferred_edges);
    /* last in this cycle: should a failed task outlive its region in the
       dependency state again, it cannot cancel the tests after it */
    RUN(region_end_returns_the_first_error);
    shutdown_or_note();

    /* one worker: nothing runs until the main thread waits, so the ready
       queue holds every task and priorities decide the order */
    setup_or_note(1);
    RUN(task_names_from_a_local_buffer_are_the_tasks_own_in_the_trace_and_in_failures);
    RUN(a_trace_turned_on_mid_run_holds_what_was_spawned_while_on_and_keeps_its_times);
    RUN(higher_priority_ready_tasks_run_first);
    RUN(prioritised_tasks_freed_by_one_finish_run_before_unprioritised_ones);
    RUN(with_options_priority_applies_to_every_spawn_inside);
    RUN(a_single_worker_still_keeps_data_order);
    RUN(a_recursion_of_inline_spawns_fits_one_workers_stack_budget);
    shutdown_or_note();

    /* three workers: scopes that exclude the spawning worker */
    setup_or_note(3);
    RUN(a_task_scoped_to_thread_2_runs_on_worker_2);
    RUN(a_task_scoped_to_a_thread_set_runs_on_one_of_them);
    RUN(a_scope_union_allows_the_workers_of_both);
    RUN(with_options_scope_applies_to_nested_spawns);
    RUN(two_readers_run_at_the_same_time);
    RUN(children_are_ordered_by_their_spans_and_the_parent_waits_for_them);
    RUN(a_waiting_task_never_runs_an_unrelated_task_on_top_of_itself);
    shutdown_or_note();

    /* set up again with two workers: the runtime comes back after a shutdown */
    setup_or_note(2);
    RUN(results_of_pointer_types_that_start_with_void_are_results);
    RUN(fut_never_passes_a_structs_bytes_as_a_pointer);
    RUN(spawns_of_values_give_each_argument_whichever_way_they_go);
    RUN(a_reader_spawned_after_a_slow_writer_sees_its_values);
    RUN(two_readers_run_at_the_same_time);
    RUN(disjoint_tiles_of_one_matrix_run_at_the_same_time);
    shutdown_or_note();

    /* four workers, last: the search for a worker a scope allows used to
       visit only every other worker with an even worker count, and failed
       DAG_ASSERT(target) (an abort) */
    setup_or_note(4);
    RUN(a_task_scoped_to_thread_2_runs_on_worker_2);
    RUN(a_scope_union_allows_the_workers_of_both);
    RUN(with_options_scope_applies_to_nested_spawns);
    shutdown_or_note();
    int rc = test_summary();
    return setup_failures ? 1 : rc;
}
