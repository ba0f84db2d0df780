/* test_mpi.c: the same program on many ranks (dag_backends/dag_mpi.h).

       make test-mpi      (mpirun -np 1, 2, 3, 4, 8 and 32; skipped without MPI)

   Every rank runs this file. Rank 0 prints the test lines; a CHECK that
   fails on any rank fails the test on every rank (the ranks agree on the
   count before RUN prints), so the closing line is the same everywhere. */
#define _POSIX_C_SOURCE 200809L   /* setenv: DAG_MPI_PROGRESS */
#define DAG_IMPLEMENTATION
#include "dag_array.h"   /* dag.h, and the arrays over ranks */
#include "test.h"
#include "mpi_harness.h"   /* RUN_ALL, agree_on_failures, setup, and the random programs' tasks */

/* ---- the differential tester: random programs over spans owned by random ranks ---- */
enum { BUFS = 12, PLAIN = 3 };

/* One program: spans owned by random ranks plus plain (every rank's own)
   buffers, tasks of random kinds, argument modes and explicit ranks, in
   several regions. Each rank then checks the spans it owns and its plain
   buffers against the same program run as plain loops. */
static int run_program(unsigned seed, int tasks, int regions) {
    int ranks = dag_num_ranks(), me = dag_rank(), bad = 0;
    static double mem[BUFS][LEN], ref[BUFS][LEN], plain[PLAIN][LEN], plain_ref[PLAIN][LEN];
    int owner[BUFS];
    dag_data h[BUFS];
    unsigned s = seed;
    for (int b = 0; b < BUFS; b++) {
        owner[b] = (int)(rnd(&s) % (unsigned)ranks);
        for (int i = 0; i < LEN; i++) mem[b][i] = ref[b][i] = b * 100 + i;
        h[b] = dag_data_register_on(owner[b], owner[b] == me ? mem[b] : NULL, LEN, sizeof(double));
        if (!h[b].id) return 1;
    }
    for (int p = 0; p < PLAIN; p++)
        for (int i = 0; i < LEN; i++) plain[p][i] = plain_ref[p][i] = -p - i;
    for (int g = 0; g < regions; g++) {
        DAG_DATADEPS {
            for (int t = 0; t < tasks; t++) {
                int a = (int)(rnd(&s) % BUFS), b = (int)(rnd(&s) % BUFS), c = (int)(rnd(&s) % BUFS);
                int kind = (int)(rnd(&s) % 6);
                double v = (double)(rnd(&s) % 7) - 3;
                dag_options o;
                memset(&o, 0, sizeof o);
                if (rnd(&s) % 4 == 0) o.scope.rank = DAG_RANK((int)(rnd(&s) % (unsigned)ranks));
                int p = (int)(rnd(&s) % PLAIN);
                switch (kind) {
                case 0:
                    dag_spawn_with(&o, put, Out(h[a]), Val(v));
                    put_ref(ref[a], v);
                    break;
                case 1:
                    if (a == b) b = (b + 1) % BUFS;
                    dag_spawn_with(&o, mix, InOut(h[a]), In(h[b]), Val(v));
                    mix_ref(ref[a], ref[b], v);
                    break;
                case 2:
                    if (a == b) b = (b + 1) % BUFS;
                    if (c == a) c = (c + 1) % BUFS;
                    if (c == a) c = (c + 1) % BUFS;
                    dag_spawn_with(&o, add3, InOut(h[a]), In(h[b]), In(h[c]));
                    add3_ref(ref[a], ref[b], ref[c]);
                    break;
                case 3:   /* into a plain buffer: runs on every rank, each needs b */
                    dag_spawn(mix, InOut(plain[p], LEN), In(h[b]), Val(v));
                    mix_ref(plain_ref[p], ref[b], v);
                    break;
                case 4:   /* from a plain buffer into an owned span: the owner's plain copy */
                    dag_spawn(mix, InOut(h[a]), In(plain[p], LEN), Val(v));
                    mix_ref(ref[a], plain_ref[p], v);
                    break;
                default:  /* plain only: every rank alike */
                    dag_spawn(mix, InOut(plain[p], LEN), In(plain[(p + 1) % PLAIN], LEN), Val(v));
                    mix_ref(plain_ref[p], plain_ref[(p + 1) % PLAIN], v);
                    break;
                }
            }
        }
        if (dag_last_region_result() != DAG_OK) bad++;
        for (int b = 0; b < BUFS; b++)
            if (owner[b] == me && memcmp(mem[b], ref[b], sizeof ref[b])) bad++;
        for (int p = 0; p < PLAIN; p++)
            if (memcmp(plain[p], plain_ref[p], sizeof plain_ref[p])) bad++;
    }
    for (int b = 0; b < BUFS; b++) dag_data_unregister(h[b]);
    return bad;
}

/* 1 thread, 2 threads, and 2 threads where each rank keeps copies of two
   of the others' spans at most: the least recently used are dropped (a
   copy that alone is current goes home first), and results stay exact. */
TEST(random_programs_over_spans_owned_by_random_ranks_equal_the_sequential_run) {
    int seeds = test_scaled(60, 6);
    for (int pass = 0; pass < 3; pass++) {
        int threads = pass == 0 ? 1 : 2;
        setup_with_cache(threads, pass == 2 ? 2 * LEN * sizeof(double) : 0);
        int bad = 0;
        for (int k = 0; k < seeds; k++) {
            int b = run_program(0x9E3779B9u * (unsigned)(k + 1) + (unsigned)pass, 40 + k % 50, 1 + k % 3);
            if (b && !bad) fprintf(stderr, "  rank %d: pass %d, seed %d: %d mismatches\n", dag_rank(), pass, k, b);
            bad += b;
        }
        CHECK_EQ_INT(bad, 0);
        long dropped = (long)dag_get_stats().rank_copies_dropped, all_dropped = 0;
        MPI_Allreduce(&dropped, &all_dropped, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (pass < 2 || dag_num_ranks() == 1) CHECK_EQ_INT(all_dropped, 0);
        else CHECK(all_dropped > 0);
        dag_shutdown();
    }
    agree_on_failures();
}

/* ---- a task on one rank; its result on all ------------------------------------------ */
DAG_TASK(long, where_and_what, (long, x)) { return 1000 * dag_rank() + x * x; }
DAG_TASK(void, fails_here, (long, x)) { dag_fail(DAG_USER_ERROR + 7, "no good: %ld", x); }
TEST(a_task_on_one_rank_is_waited_for_and_fetched_on_every_rank) {
    setup(2);
    int ranks = dag_num_ranks();
    for (int r = 0; r < ranks; r++) {
        dag_options o;
        memset(&o, 0, sizeof o);
        o.scope.rank = DAG_RANK(r);
        dag_task t = dag_spawn_with(&o, where_and_what, Val(7L));
        long v = -1;
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
        CHECK_EQ_INT(v, 1000 * r + 49);
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_ERR_STALE_HANDLE);   /* the fetch spent it, on every rank */
        CHECK_EQ_INT(dag_release(t), DAG_ERR_STALE_HANDLE);
        o.keep_results = 1;   /* fetched twice: kept until released */
        t = dag_spawn_with(&o, where_and_what, Val(7L));
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
        CHECK_EQ_INT(v, 1000 * r + 49);
        CHECK(dag_ready(t));
        CHECK_EQ_INT(dag_task_result(t), DAG_OK);
        CHECK_EQ_INT(dag_release(t), DAG_OK);
        o.keep_results = 0;
        dag_task f = dag_spawn_with(&o, fails_here, Val(3L));
        CHECK_EQ_INT(dag_wait(f), DAG_USER_ERROR + 7);
        /* the calls that look at one task: the same answer on every rank */
        CHECK_EQ_INT(dag_task_result(f), DAG_USER_ERROR + 7);
        CHECK(strstr(dag_task_message(f), "fails_here") != NULL);
        CHECK_EQ_INT(dag_cancel(f), DAG_OK);   /* finished: nothing to do */
    }
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.rank = DAG_RANK(ranks);   /* one past the last */
    dag_task t = dag_spawn_with(&o, where_and_what, Val(1L));
    CHECK_EQ_INT(dag_wait(t), DAG_ERR_SCOPE);
    CHECK(strstr(last_log, "names rank") != NULL);
    dag_wait_all();
    dag_shutdown();
    agree_on_failures();
}

/* ---- a Fut of a task on one rank, used on others ------------------------------------- */
DAG_TASK(void, store_value, (double *, a), (double, v)) { a[0] = v; }
DAG_TASK(double, plus_one, (double, x)) { return x + 1; }
DAG_TASK(double, fails_double, (double, x)) { dag_fail(DAG_USER_ERROR + 3, "no value for %g", x); return 0; }
TEST(a_fut_of_a_task_run_on_one_rank_brings_its_value_to_the_ranks_that_use_it) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double own[4], x[4];
    dag_data h = dag_data_register_on(last, me == last ? own : NULL, 4, sizeof(double));
    dag_options on0, on_last;
    memset(&on0, 0, sizeof on0);
    on0.scope.rank = DAG_RANK(0);
    on_last = on0;
    on_last.scope.rank = DAG_RANK(last);
    dag_task t = dag_spawn_with(&on0, where_and_what, Val(3L));   /* long 9, on rank 0 */
    dag_task u = { NULL, 0, 0 };
    DAG_DATADEPS {
        dag_spawn(store_value, Out(h), Fut(t));             /* on the last rank: the value goes there, as a double */
        dag_spawn(store_value, Out(x, 4), Fut(t));          /* every rank's own x: every rank gets it */
        u = dag_spawn_with(&on_last, plus_one, Fut(t));     /* the last rank has it already */
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK(x[0] == 9.0);
    if (me == last) CHECK(own[0] == 9.0);
    double v = 0;
    CHECK_EQ_INT(dag_fetch(u, &v), DAG_OK);   /* on every rank */
    CHECK(v == 10.0);
    /* a producer that fails: its Fut fails the consumer on the other rank, and nothing hangs */
    dag_task f = dag_spawn_with(&on0, fails_double, Val(1.0));
    own[1] = x[1] = -1;
    DAG_DATADEPS { dag_spawn(store_value, Out(h), Fut(f)); }
    if (me == last) CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DEPENDENCY_FAILED);
    if (me == last) CHECK(own[0] == 9.0);   /* not written */
    dag_data_unregister(h);
    dag_shutdown();
    agree_on_failures();
}

/* The owner writes its own memory between two regions, as a one-node program may once a region has
   ended: the next region's readers on other ranks see the new value (their copies from the region
   before counted as current, and they read the old value). */
DAG_TASK(void, copy_first, (const double *, from), (double *, to)) { to[0] = from[0]; }
TEST(an_owners_write_between_regions_reaches_the_readers_on_other_ranks) {
    setup(2);
    int me = dag_rank(), last = dag_num_ranks() - 1;
    static double x[4], y[4];
    x[0] = 1;
    y[0] = 0;
    dag_data hx = dag_data_register_on(0, me == 0 ? x : NULL, 4, sizeof(double));
    dag_data hy = dag_data_register_on(last, me == last ? y : NULL, 4, sizeof(double));
    for (int round = 1; round <= 3; round++) {
        if (me == 0) x[0] = 100.0 * round;   /* between regions */
        DAG_DATADEPS { dag_spawn(copy_first, In(hx), Out(hy)); }   /* on the last rank */
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
        if (me == last) CHECK(y[0] == 100.0 * round);
        if (round == 2) dag_wait_all();   /* another collective end */
    }
    dag_data_unregister(hx);
    dag_data_unregister(hy);
    dag_shutdown();
    agree_on_failures();
}

/* The program fetches or releases the producer right after spawning its
   consumer on another rank (valid on one node): the consumer still gets
   the value, and the program's fetch gets it too. */
DAG_TASK(double, slow_value, (double, s)) {
    double x = s;
    for (int i = 0; i < 200000; i++) x = x * 1.0000001 - 0.0000001 * s;
    return s + 0 * x;
}
TEST(a_producer_fetched_or_released_while_a_consumer_on_another_rank_waits_still_gives_it_the_value) {
    setup(2);
    int last = dag_num_ranks() - 1;
    dag_options on0, on_last;
    memset(&on0, 0, sizeof on0);
    on0.scope.rank = DAG_RANK(0);
    on_last = on0;
    on_last.scope.rank = DAG_RANK(last);
    for (int c = 0; c < 6; c++) {
        dag_task a = dag_spawn_with(&on_last, slow_value, Val(c + 1.0));
        dag_task b = dag_spawn_with(&on0, plus_one, Fut(a));
        double va = 0, vb = 0;
        if (c % 2) {
            CHECK_EQ_INT(dag_fetch(a, &va), DAG_OK);
            CHECK(va == c + 1.0);
        } else {
            CHECK_EQ_INT(dag_release(a), DAG_OK);
        }
        CHECK_EQ_INT(dag_fetch(b, &vb), DAG_OK);
        CHECK(vb == c + 2.0);
    }
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    agree_on_failures();
}

/* ---- divergence is an error on every rank, not a hang -------------------------------- */
DAG_TASK(void, step_a, (double *, x)) { x[0] += 1; }
DAG_TASK(void, step_b, (double *, x)) { x[0] += 2; }
TEST(ranks_whose_spawns_differ_get_the_divergence_error_naming_the_spawn) {
    setup(1);
    static double x[4];
    DAG_DATADEPS {
        dag_spawn(step_a, InOut(x, 4));
        if (dag_rank() == dag_num_ranks() - 1 && dag_num_ranks() > 1) dag_spawn(step_b, InOut(x, 4));
        else dag_spawn(step_a, InOut(x, 4));
        dag_spawn(step_a, InOut(x, 4));
    }
    if (dag_num_ranks() > 1) {
        CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DIVERGED);
        CHECK(strstr(last_log, "diverged at collective call 2") != NULL);
        char others[120], last[120];   /* the ranks that did alike are named together */
        int n = dag_num_ranks();
        if (n == 2) snprintf(others, sizeof others, "rank 0 spawned 'step_a'(InOut 32 B) to run on every rank, ");
        else snprintf(others, sizeof others, "ranks 0-%d spawned 'step_a'(InOut 32 B) to run on every rank, ", n - 2);
        snprintf(last, sizeof last, "rank %d spawned 'step_b'(InOut 32 B) to run on every rank", n - 1);
        CHECK(strstr(last_log, others) != NULL);
        CHECK(strstr(last_log, last) != NULL);
    } else {
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    }
    /* the next region compares its own spawns */
    DAG_DATADEPS { dag_spawn(step_a, InOut(x, 4)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    dag_shutdown();
    agree_on_failures();
}

/* A rank that spawns a task the others do not waits for a message no rank
   sends: the check at the region's end, made while the region drains,
   cancels it, and every rank gets the error instead of waiting forever. */
DAG_TASK(void, add_from, (double *, a), (const double *, b)) {
    for (int i = 0; i < 4; i++) a[i] += b[i];
}
/* Set up, then a on rank 0 and b on the last rank, fresh for each test: b. */
static double a_on_first[4], b_on_last[4];
static const double *setup_with_a_on_first_and_b_on_last(dag_data *ha, dag_data *hb) {
    setup(2);
    int me = dag_rank(), last = dag_num_ranks() - 1;
    for (int i = 0; i < 4; i++) a_on_first[i] = i + 1, b_on_last[i] = 10 * (i + 1);
    *ha = dag_data_register_on(0, me == 0 ? a_on_first : NULL, 4, sizeof(double));
    *hb = dag_data_register_on(last, me == last ? b_on_last : NULL, 4, sizeof(double));
    return b_on_last;
}
/* After a divergence every rank starts again alike: the same spawn now
   moves a to the last rank and runs there (b was never written before). */
static void starts_again_alike(dag_data ha, dag_data hb, const double *b) {
    DAG_DATADEPS { dag_spawn(add_from, InOut(hb), In(ha)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    if (dag_rank() == dag_num_ranks() - 1) CHECK(b[0] == 11 && b[3] == 44);
    dag_data_unregister(ha);
    dag_data_unregister(hb);
    dag_shutdown();
    agree_on_failures();
}
TEST(ranks_that_diverge_on_owned_data_get_the_error_instead_of_waiting_for_a_message) {
    dag_data ha, hb;
    const double *b = setup_with_a_on_first_and_b_on_last(&ha, &hb);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double x[4];
    DAG_DATADEPS {
        if (me == last && ranks > 1) dag_spawn(add_from, InOut(hb), In(ha));   /* waits for a from rank 0 */
        else dag_spawn(step_a, InOut(x, 4));
    }
    CHECK_EQ_INT(dag_last_region_result(), ranks > 1 ? DAG_ERR_DIVERGED : DAG_OK);
    if (me == last && ranks > 1) CHECK(b[0] == 10);   /* the task never ran */
    starts_again_alike(ha, hb, b);
}

/* A rank blocked before its region's end, in a dag_wait of a task that
   needs a message the others (which spawned something else) never send:
   the check at the region's end cannot free it, the watch does, within
   seconds, and the region's end then names the call. The others wait at
   their region's end, or (the second time) in a collective dag_fetch. */
static double seconds_now(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
DAG_TASK(double, first_of, (const double *, a)) { return a[0]; }
TEST(a_rank_blocked_in_a_wait_before_its_region_ends_is_freed_by_the_watch_within_seconds) {
    dag_data ha, hb;
    const double *b = setup_with_a_on_first_and_b_on_last(&ha, &hb);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double x[4];
    double t0 = seconds_now();
    DAG_DATADEPS {
        if (me == last && ranks > 1) {
            dag_task t = dag_spawn(add_from, InOut(hb), In(ha));   /* a from rank 0, which never sends it */
            CHECK_EQ_INT(dag_wait(t), DAG_ERR_DEPENDENCY_FAILED);   /* its receive failed */
            CHECK(strstr(dag_task_message(t), "diverged") != NULL);
        } else {
            dag_spawn(step_a, InOut(x, 4));
        }
    }
    double took = seconds_now() - t0;
    CHECK_EQ_INT(dag_last_region_result(), ranks > 1 ? DAG_ERR_DIVERGED : DAG_OK);
    CHECK(took < 10.0);
    if (ranks > 1) {
        CHECK(strstr(last_log, "diverged at collective call") != NULL);
        CHECK(strstr(last_log, "spawned 'add_from'") != NULL);
        CHECK(strstr(last_log, "spawned 'step_a'") != NULL);
    }
    if (me == last && ranks > 1) CHECK(b[0] == 10);   /* the task never ran */
    /* rank 0 blocked in a collective fetch: it spawned one more task before
       it (which sends a), so its tags are one ahead of the others' */
    DAG_DATADEPS {
        dag_options o;
        memset(&o, 0, sizeof o);
        o.scope.rank = DAG_RANK(last);
        dag_task v = dag_spawn_with(&o, first_of, In(hb));
        if (me == 0 && ranks > 1) dag_spawn(add_from, InOut(hb), In(ha));
        double got = 0;
        CHECK_EQ_INT(dag_fetch(v, &got), me == 0 && ranks > 1 ? DAG_ERR_DIVERGED : DAG_OK);
        if (me != 0 || ranks == 1) CHECK(got == 10.0);
    }
    CHECK_EQ_INT(dag_last_region_result(), ranks > 1 ? DAG_ERR_DIVERGED : DAG_OK);
    if (ranks > 1) CHECK(strstr(last_log, "waited for a task run on one rank") != NULL);
    starts_again_alike(ha, hb, b);
}

/* One rank calls dag_shutdown while the others go on: they wait in a
   collective fetch of a task it never spawns, then end two more regions
   (one empty) before their own dag_shutdown. The watch frees the fetch;
   the rank in dag_shutdown stays for the others' region ends (each is a
   divergence, named on every rank) and leaves with them; no rank hangs. */
static void one_rank_shuts_down_while_the_others_go_on(int off) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank();
    static double a[4] = { 1, 2, 3, 4 }, x[4];
    dag_data ha = dag_data_register_on(off, me == off ? a : NULL, 4, sizeof(double));
    DAG_DATADEPS { dag_spawn(step_a, InOut(x, 4)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    double t0 = seconds_now();
    if (me != off) {
        char off_said[64];
        snprintf(off_said, sizeof off_said, "rank %d called dag_shutdown", off);
        DAG_DATADEPS {
            dag_options o;
            memset(&o, 0, sizeof o);
            o.scope.rank = DAG_RANK(off);
            dag_task v = dag_spawn_with(&o, first_of, In(ha));
            double got = 0;
            CHECK_EQ_INT(dag_fetch(v, &got), DAG_ERR_DIVERGED);
        }
        CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DIVERGED);
        CHECK(strstr(last_log, off_said) != NULL);
        CHECK(strstr(last_log, "spawned 'first_of'") != NULL);
        DAG_DATADEPS { }
        CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DIVERGED);
        CHECK(strstr(last_log, off_said) != NULL);
        CHECK(strstr(last_log, "ended a DAG_DATADEPS") != NULL);
    }
    dag_data_unregister(ha);
    CHECK_EQ_INT(dag_shutdown(), ranks > 1 ? DAG_ERR_DIVERGED : DAG_OK);   /* a collective end: alike everywhere */
    if (me == off && ranks > 1) CHECK(strstr(last_log, "called dag_shutdown") != NULL);
    CHECK(a[0] == 1.0 && a[3] == 4.0);   /* first_of only read it, and never ran */
    CHECK(seconds_now() - t0 < 20.0);
    agree_on_failures();
}
TEST(a_rank_in_dag_shutdown_while_the_others_end_more_regions_stays_for_them_and_nothing_hangs) {
    one_rank_shuts_down_while_the_others_go_on(0);   /* rank 0, which runs the watch, shuts down */
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    one_rank_shuts_down_while_the_others_go_on(size - 1);   /* the last rank shuts down */
    /* the last rank spawns once more outside any region, then every rank shuts down */
    setup(2);
    static double x[4];
    if (dag_rank() == size - 1 && size > 1) dag_spawn(step_a, InOut(x, 4));
    CHECK_EQ_INT(dag_shutdown(), size > 1 ? DAG_ERR_DIVERGED : DAG_OK);
    if (size > 1) {
        char others[80], last[80];
        if (size == 2) snprintf(others, sizeof others, "rank 0 called dag_shutdown, ");
        else snprintf(others, sizeof others, "ranks 0-%d called dag_shutdown, ", size - 2);
        snprintf(last, sizeof last, "rank %d spawned 'step_a'", size - 1);
        CHECK(strstr(last_log, others) != NULL);
        CHECK(strstr(last_log, last) != NULL);
    }
    agree_on_failures();
}

DAG_TASK(void, breaks, (double *, a)) { a[0] = -1; dag_fail(DAG_USER_ERROR + 9, "broken on rank %d", dag_rank()); }
/* dag_shutdown is a collective end: a task spawned outside any block that fails on the last rank fails
   every rank's dag_shutdown alike (the others returned DAG_OK, the last rank the failure). */
TEST(every_rank_s_dag_shutdown_returns_the_failure_of_a_task_that_failed_on_one_rank) {
    setup(2);
    int last = dag_num_ranks() - 1, me = dag_rank();
    static double x[4];
    dag_data hx = dag_data_register_on(last, me == last ? x : NULL, 4, sizeof(double));
    dag_spawn(breaks, InOut(hx));   /* outside any block: its failure is dag_shutdown's to report */
    CHECK_EQ_INT(dag_shutdown(), DAG_USER_ERROR + 9);
    if (me == last) CHECK(x[0] == -1);
    agree_on_failures();
}

/* ---- what each rank keeps of tasks run on one rank ------------------------------- */
/* Every rank keeps a record of each task run on one rank, for collective
   waits and Futs of it. A void task's (or a discarded result's) goes when
   its DAG_DATADEPS ends, as on one node nothing is kept of it; a result's
   at dag_release. Thousands of regions leave nothing behind, and a handle
   whose record went (or of an earlier dag_setup) is stale on every rank,
   never another task's. */
TEST(tasks_run_on_one_rank_are_forgotten_with_their_region_or_at_release_and_their_handles_go_stale) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1, layer = ranks > 1;
    static double a[4] = { 1, 2, 3, 4 }, b[4] = { 7, 0, 0, 0 }, c[4] = { 9, 0, 0, 0 }, plain[LEN];
    dag_data ha = dag_data_register_on(last, me == last ? a : NULL, 4, sizeof(double));
    dag_data hb = dag_data_register_on(last, me == last ? b : NULL, 4, sizeof(double));
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.rank = DAG_RANK(last);
    dag_task v = { NULL, 0, 0 };
    size_t most = 0;
    for (int g = 0; g < 2000; g++) {
        DAG_DATADEPS {
            for (int t = 0; t < 5; t++) v = dag_spawn_with(&o, step_a, InOut(ha));
            if (dag_get_stats().rank_tasks_kept > most) most = dag_get_stats().rank_tasks_kept;
        }
    }
    CHECK_EQ_INT((long long)most, layer ? 5 : 0);
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, 0);
    CHECK_EQ_INT(dag_wait(v), DAG_OK);   /* void: nothing kept past its region, on every rank */
    most = 0;
    for (int g = 0; g < 2000; g++) {   /* outside any block: until dag_wait_all (they stayed to dag_shutdown) */
        for (int t = 0; t < 5; t++) v = dag_spawn_with(&o, step_a, InOut(ha));
        if (dag_get_stats().rank_tasks_kept > most) most = dag_get_stats().rank_tasks_kept;
        CHECK_EQ_INT(dag_wait_all(), DAG_OK);
    }
    CHECK_EQ_INT((long long)most, layer ? 5 : 0);
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, 0);
    CHECK_EQ_INT(dag_wait(v), DAG_OK);
    if (me == last) CHECK(a[0] == 1 + 4000 * 5);
    /* a result is kept past its region until fetched or released */
    dag_task f = { NULL, 0, 0 };
    DAG_DATADEPS { f = dag_spawn_with(&o, first_of, In(hb)); }
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, layer);
    double got = 0;
    CHECK_EQ_INT(dag_fetch(f, &got), DAG_OK);   /* spends it, on every rank */
    CHECK(got == 7.0);
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, 0);
    CHECK_EQ_INT(dag_fetch(f, &got), DAG_ERR_STALE_HANDLE);
    DAG_DATADEPS { f = dag_spawn_with(&o, first_of, In(hb)); }
    CHECK_EQ_INT(dag_release(f), DAG_OK);
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, 0);
    CHECK_EQ_INT(dag_fetch(f, &got), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(dag_release(f), DAG_ERR_STALE_HANDLE);
    dag_task p = { NULL, 0, 0 };
    DAG_DATADEPS { p = dag_spawn(put, Out(plain, LEN), Fut(f)); }
    CHECK_EQ_INT(dag_wait(p), DAG_ERR_STALE_HANDLE);
    /* discarded: forgotten with its region */
    DAG_DATADEPS {
        DAG_WITH_OPTIONS(.discard_results = 1) { f = dag_spawn_with(&o, first_of, In(hb)); }
    }
    CHECK_EQ_INT((long long)dag_get_stats().rank_tasks_kept, 0);
    CHECK_EQ_INT(dag_fetch(f, &got), DAG_ERR_STALE_HANDLE);
    /* a handle of an earlier set-up is stale, not the task now in its slot */
    DAG_DATADEPS { f = dag_spawn_with(&o, first_of, In(hb)); }
    dag_data_unregister(ha);
    dag_data_unregister(hb);
    dag_shutdown();
    setup(2);
    dag_data hc = dag_data_register_on(last, me == last ? c : NULL, 4, sizeof(double));
    dag_task g = { NULL, 0, 0 };
    DAG_DATADEPS { g = dag_spawn_with(&o, first_of, In(hc)); }
    CHECK_EQ_INT(dag_fetch(f, &got), DAG_ERR_STALE_HANDLE);
    CHECK_EQ_INT(dag_fetch(g, &got), DAG_OK);
    CHECK(got == 9.0);
    dag_data_unregister(hc);
    dag_shutdown();
    agree_on_failures();
}

/* ---- a failure on one rank reaches its dependents on the others ----------------- */
static atomic_int mixes_ran;
DAG_TASK(void, counts_mix, (double *, a), (const double *, b)) {
    atomic_fetch_add(&mixes_ran, 1);
    for (int i = 0; i < LEN; i++) a[i] += b[i];
}
TEST(a_failed_task_cancels_its_dependents_on_every_rank_and_nothing_hangs) {
    setup(1);
    int ranks = dag_num_ranks(), me = dag_rank();
    static double a[LEN], b[LEN];
    for (int i = 0; i < LEN; i++) a[i] = b[i] = i;
    int other = ranks - 1;   /* b lives on the last rank, a on rank 0 */
    dag_data ha = dag_data_register_on(0, me == 0 ? a : NULL, LEN, sizeof(double));
    dag_data hb = dag_data_register_on(other, me == other ? b : NULL, LEN, sizeof(double));
    atomic_store(&mixes_ran, 0);
    DAG_DATADEPS {
        dag_spawn(breaks, InOut(ha));
        dag_spawn(counts_mix, InOut(hb), In(ha));   /* on the last rank: a comes from rank 0 */
        dag_spawn(counts_mix, InOut(hb), In(hb));   /* after it, on the same rank */
    }
    /* the failure's own code on every rank (the ranks agree on a region's outcome), as on one node */
    CHECK_EQ_INT(dag_last_region_result(), DAG_USER_ERROR + 9);
    CHECK_EQ_INT(atomic_load(&mixes_ran), 0);
    if (me == other) CHECK(b[3] == 3);   /* untouched */
    /* the next region runs as usual */
    DAG_DATADEPS { dag_spawn(counts_mix, InOut(hb), In(hb)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    if (me == other) CHECK(b[3] == 6);
    dag_data_unregister(ha);
    dag_data_unregister(hb);
    dag_shutdown();
    agree_on_failures();
}

TEST(registering_on_a_rank_that_does_not_exist_or_without_memory_on_the_owner_is_refused) {
    setup(1);
    static double x[8];
    dag_data bad = dag_data_register_on(dag_num_ranks(), x, 8, sizeof(double));
    CHECK(bad.id == 0);
    CHECK(strstr(last_log, "but the ranks are 0 to") != NULL);
    dag_data none = dag_data_register_on(dag_rank(), NULL, 8, sizeof(double));
    CHECK(none.id == 0);
    CHECK(strstr(last_log, "may not be NULL") != NULL);
    dag_shutdown();
    agree_on_failures();
}

/* ---- dag_array over ranks: block-cyclic tiles, owner computes ---------------------------- */
static void spd(double *m, int n, unsigned seed) {   /* random, symmetric, n on the diagonal: SPD */
    unsigned s = seed;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) m[i + j * n] = m[j + i * n] = (double)rnd(&s) / 16777216.0 - 0.5 + (i == j ? n : 0);
}
/* What each rank sends and receives in the tile Cholesky on a p x q grid of
   `ranks` ranks (tile (i, j) on rank ((i % p) q + j % q) % ranks), owner
   computes, each tile's final version sent once from its owner to each
   other rank that reads it: the lower bound, and bench/cholesky_comm.py's
   count. Not a replay of versions: from the algorithm's structure alone.
   Diagonal tile k is read by the panel solves of tiles (i, k), i > k;
   panel tile (i, k) by the updates of tiles (i, b), k < b <= i, and
   (a, i), a >= i. So the readers are grid positions in one row class and
   one column class, at most p + q of them per tile. Tasks: k + 1 write
   tile (i, k) on its owner. */
/* The rows of the squarest grid of `ranks` (p <= q, p q = ranks), as dag_array picks it. */
static int squarest_grid_rows(int ranks) {
    int p = 1;
    for (int d = 1; d * d <= ranks; d++)
        if (ranks % d == 0) p = d;
    return p;
}
static void cholesky_traffic(int n, int nb, int p, int q, int ranks, dag_rank_stats *per_rank) {
    int nt = (n + nb - 1) / nb;
    char *reads = calloc((size_t)ranks, 1);
    int *readers = malloc(sizeof(int) * (size_t)(p + q + 1));
    memset(per_rank, 0, sizeof *per_rank * (size_t)ranks);
#define RANK_AT(a, b) ((((a) % p) * q + (b) % q) % ranks)
#define ROWS(i) ((i) + 1 < nt ? nb : n - (i) * nb)
    for (int k = 0; k < nt; k++)
        for (int i = k; i < nt; i++) {   /* tile (i, k) as the last task leaves it */
            int count = 0, owner = RANK_AT(i, k);
#define READER(a, b) do { int r_ = RANK_AT(a, b); if (r_ != owner && !reads[r_]) reads[r_] = 1, readers[count++] = r_; } while (0)
            if (i == k) {
                for (int a = k + 1; a < nt && a <= k + p; a++) READER(a, k);
            } else {
                for (int b = k + 1; b <= i && b <= k + q; b++) READER(i, b);
                for (int a = i; a < nt && a < i + p; a++) READER(a, i);
            }
#undef READER
            per_rank[owner].tasks += (uint64_t)k + 1;   /* k updates, then its potrf or panel solve */
            uint64_t bytes = (uint64_t)ROWS(i) * (uint64_t)ROWS(k) * 8u;
            for (int c = 0; c < count; c++) {
                per_rank[owner].messages_sent++;
                per_rank[owner].bytes_sent += bytes;
                per_rank[readers[c]].messages_received++;
                per_rank[readers[c]].bytes_received += bytes;
                reads[readers[c]] = 0;
            }
        }
#undef RANK_AT
#undef ROWS
    free(reads);
    free(readers);
}

TEST(a_distributed_cholesky_and_solve_match_the_plain_factor_for_ragged_sizes_and_grids) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank();
    int sizes[4][2] = { { 100, 32 }, { 150, 40 }, { 64, 64 }, { 37, 8 } };
    int grids[4][2] = { { 0, 0 }, { 1, ranks }, { ranks, 1 }, { 2, 2 } };   /* the squarest, a row, a column, 2 x 2 */
    for (int s = 0; s < 4; s++)
        for (int g = 0; g < 4; g++) {
            int n = sizes[s][0], nb = sizes[s][1];
            double *a = malloc(sizeof(double) * (size_t)(n * n)), *f = malloc(sizeof(double) * (size_t)(n * n));
            spd(a, n, 7u + (unsigned)(s * 4 + g));
            dag_blocks b = dag_blocks_grid(nb, nb, grids[g][0], grids[g][1]);
            dag_array *A = dag_array_from_host(DAG_F64, n, n, b, a, DAG_COL_MAJOR, n);   /* each tile from its owner's copy */
            CHECK(A != NULL);
            if (!A) continue;
            int p = grids[g][0], q = grids[g][1];
            if (g == 0) p = squarest_grid_rows(ranks), q = ranks / p;
            int owners_ok = 1;
            for (int j = 0; j < dag_array_tile_cols(A); j++)
                for (int i = 0; i < dag_array_tile_rows(A); i++)
                    owners_ok &= dag_array_tile_rank(A, i, j) == ((i % p) * q + j % q) % ranks;
            CHECK(owners_ok);
            dag_stats before = dag_get_stats();
            CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
            dag_stats after = dag_get_stats();
            dag_rank_stats *want = malloc(sizeof *want * (size_t)ranks);
            cholesky_traffic(n, nb, p, q, ranks, want);
            if (ranks > 1) {   /* each tile sent once to each rank that reads it, from its owner: the bound */
                CHECK_EQ_INT((long long)(after.rank_messages_sent - before.rank_messages_sent), (long long)want[me].messages_sent);
                CHECK_EQ_INT((long long)(after.rank_bytes_sent - before.rank_bytes_sent), (long long)want[me].bytes_sent);
            }
            free(want);
            CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, n), DAG_OK);   /* every tile to every rank */
            double r = cholesky_residual(a, f, n);
            if (!(r < 1e-12)) fprintf(stderr, "  rank %d: n %d nb %d grid %d: residual %.2e\n", me, n, nb, g, r);
            CHECK(r < 1e-12);
            /* A X = B, B distributed from the last rank's matrix alone, X gathered on rank 0 alone */
            double *rhs = malloc(sizeof(double) * (size_t)(n * 3)), *x = malloc(sizeof(double) * (size_t)(n * 3));
            for (int k = 0; k < n * 3; k++) rhs[k] = 1.0 + k % 7;
            dag_array *A2 = dag_array_from_host(DAG_F64, n, n, b, a, DAG_COL_MAJOR, n);
            dag_array *B = dag_array_from_host_on(ranks - 1, DAG_F64, n, 3, dag_blocks_grid(nb, nb, grids[g][0], grids[g][1]),
                                                  me == ranks - 1 ? rhs : NULL, DAG_COL_MAJOR, n);
            CHECK(A2 && B);
            if (A2 && B) {
                CHECK_EQ_INT(dag_array_posv(A2, B), DAG_OK);
                CHECK_EQ_INT(dag_array_collect_on(0, B, me == 0 ? x : NULL, DAG_COL_MAJOR, n), DAG_OK);
                if (me == 0) {
                    double worst = 0;
                    for (int c = 0; c < 3; c++)
                        for (int i = 0; i < n; i++) {
                            double v = -rhs[i + c * n];
                            for (int j = 0; j < n; j++) v += a[i + j * n] * x[j + c * n];
                            worst = fabs(v) > worst ? fabs(v) : worst;
                        }
                    CHECK(worst < 1e-9);
                }
            }
            dag_array_free(A2);
            dag_array_free(B);
            dag_array_free(A);
            free(a), free(f), free(rhs), free(x);
        }
    dag_shutdown();
    agree_on_failures();
}

/* Devices under the ranks: a scope naming every OpenCL device puts each
   rank's tiles' kernels on its own devices (make test-mpi runs this file
   built with -DDAG_BACKEND_OPENCL on PoCL's CPU devices; without a device
   on every rank it is a skip). The data moves between ranks from the host
   copies, which the device layer keeps current before a send reads them,
   so the results and the traffic are those of the CPU run. */
TEST(distributed_arrays_under_a_device_scope_run_each_ranks_tiles_on_its_devices) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), mine = dag_device_count(DAG_OPENCL), fewest = 0;
    MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (fewest < 1) {
        char why[256];
        snprintf(why, sizeof why, "%s", dag_backend_status(DAG_OPENCL));
        dag_shutdown();
        NOT_APPLICABLE("no OpenCL device on every rank in this build or run (%s)", why);
    }
    enum { N = 150, NB = 32 };
    static double a[N * N], f[N * N], x[N * N], y[N * N];
    spd(a, N, 11);
    for (int i = 0; i < N * N; i++) x[i] = (i % 7) - 3.0;
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_array *X = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), x, DAG_COL_MAJOR, N);
    dag_array *Y = dag_array_zeros(DAG_F64, N, N, dag_blocks(NB, NB));
    CHECK(A && X && Y);
    if (!A || !X || !Y) return;
    dag_trace_enable(1);
    dag_trace_clear();
    dag_stats before = dag_get_stats(), after;
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) {
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        after = dag_get_stats();
        CHECK_EQ_INT(dag_array_gemm(0, 1, 1.0, X, X, 0.0, Y), DAG_OK);   /* Y = X X^T */
        CHECK_EQ_INT(dag_array_scale(2.0, X), DAG_OK);
        /* the tiles stay on their owner's devices between operations: nothing moves */
        uint64_t moved[2] = { 0, 0 };
        for (int pass = 0; pass < 2; pass++) {
            for (int d = 1; d <= mine; d++) {
                dag_memory_info m;
                CHECK_EQ_INT(dag_memory_stats(DAG_OPENCL, d, &m), DAG_OK);
                moved[pass] += m.bytes_to_device + m.bytes_to_host;
            }
            if (pass == 0) {
                CHECK_EQ_INT(dag_array_scale(0.5, X), DAG_OK);
                CHECK_EQ_INT(dag_array_scale(2.0, X), DAG_OK);
            }
        }
        CHECK_EQ_INT((long long)(moved[1] - moved[0]), 0);
        double sum = 0, want = 0;
        CHECK_EQ_INT(dag_array_sum(X, &sum), DAG_OK);   /* the same value on every rank */
        for (int i = 0; i < N * N; i++) want += 2 * x[i];
        CHECK(sum == want);
    }
    dag_trace_enable(0);
    static dag_trace_record rec[8192];
    size_t n = dag_trace_records(rec, 8192);
    int kernels = 0;
    for (size_t i = 0; i < n && i < 8192; i++) kernels += rec[i].backend == DAG_OPENCL;
    CHECK(kernels > 0);   /* on every rank: each owns tiles */
    int p = squarest_grid_rows(ranks), q = ranks / p;
    dag_rank_stats *want = malloc(sizeof *want * (size_t)ranks);
    cholesky_traffic(N, NB, p, q, ranks, want);
    if (ranks > 1) {   /* as on the CPU: each tile once to each rank that reads it */
        CHECK_EQ_INT((long long)(after.rank_messages_sent - before.rank_messages_sent), (long long)want[me].messages_sent);
        CHECK_EQ_INT((long long)(after.rank_bytes_sent - before.rank_bytes_sent), (long long)want[me].bytes_sent);
    }
    free(want);
    CHECK_EQ_INT(dag_array_collect(A, f, DAG_COL_MAJOR, N), DAG_OK);
    CHECK(cholesky_residual(a, f, N) < 1e-12);
    CHECK_EQ_INT(dag_array_collect(Y, y, DAG_COL_MAJOR, N), DAG_OK);
    double err = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int l = 0; l < N; l++) s += x[i + l * N] * x[j + l * N];
            err = fmax(err, fabs(y[i + j * N] - s));
        }
    CHECK(err < 1e-9);
    CHECK_EQ_INT(dag_array_collect(X, y, DAG_COL_MAJOR, N), DAG_OK);
    int bad = 0;
    for (int i = 0; i < N * N; i++) bad += y[i] != 2 * x[i];
    CHECK_EQ_INT(bad, 0);
    if (me == 0) printf("     %d ranks, %d OpenCL devices on the fewest: %d kernels on rank 0's\n", ranks, fewest, kernels);
    dag_array_free(A), dag_array_free(X), dag_array_free(Y);
    /* a tile that is not positive definite: its info is on its owner's device, and every rank's
       potrf says so */
    a[100 + 100 * N] = -1e4;   /* column 100: tile 3 */
    dag_array *B = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.all = 1)) CHECK_EQ_INT(dag_array_potrf(B), DAG_ERR_NOT_POSITIVE_DEFINITE);
    dag_array_free(B);
    dag_shutdown();
    agree_on_failures();
}

static double uniform_at(uint64_t seed, int64_t r, int64_t c);   /* below: dag_array_rand's value of an element */
TEST(distributed_gemm_elementwise_reductions_and_transpose_equal_plain_loops) {
    setup(2);
    int ranks = dag_num_ranks();
    enum { M = 45, K = 38, N = 29 };
    static double a[M * K], bm[K * N], c[M * N], t[N * M], ref[M * N];
    dag_array *A = dag_array_rand(DAG_F64, M, K, dag_blocks(10, 9), 1), *B = dag_array_rand(DAG_F64, K, N, dag_blocks(9, 8), 2),
              *C = dag_array_zeros(DAG_F64, M, N, dag_blocks(10, 8));
    CHECK(A && B && C);
    if (!A || !B || !C) return;
    for (int j = 0; j < K; j++)
        for (int i = 0; i < M; i++) a[i + j * M] = uniform_at(1, i, j);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < K; i++) bm[i + j * K] = uniform_at(2, i, j);
    CHECK_EQ_INT(dag_array_gemm(0, 0, 2.0, A, B, 0.0, C), DAG_OK);
    CHECK_EQ_INT(dag_array_scale(0.5, C), DAG_OK);   /* C = A B */
    CHECK_EQ_INT(dag_array_add(C, C, C), DAG_OK);    /* C = 2 A B */
    CHECK_EQ_INT(dag_array_collect(C, c, DAG_COL_MAJOR, M), DAG_OK);
    double worst = 0, sum = 0, squares = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int k = 0; k < K; k++) s += a[i + k * M] * bm[k + j * K];
            ref[i + j * M] = 2 * s;
            worst = fabs(c[i + j * M] - 2 * s) > worst ? fabs(c[i + j * M] - 2 * s) : worst;
            sum += 2 * s;
            squares += 4 * s * s;
        }
    CHECK(worst < 1e-12);
    double got_sum = 0, got_norm = 0, got_max = 0, want_max = ref[0];
    for (int k = 1; k < M * N; k++) want_max = ref[k] > want_max ? ref[k] : want_max;
    CHECK_EQ_INT(dag_array_sum(C, &got_sum), DAG_OK);   /* the same value on every rank */
    CHECK_EQ_INT(dag_array_norm2(C, &got_norm), DAG_OK);
    CHECK_EQ_INT(dag_array_max(C, &got_max), DAG_OK);
    CHECK(fabs(got_sum - sum) < 1e-9 * fabs(sum) && fabs(got_norm - sqrt(squares)) < 1e-9 * sqrt(squares));
    CHECK(got_max == want_max);
    /* into another tiling on another grid: every tile pair on the destination's owner */
    dag_array *T = dag_array_zeros(DAG_F64, N, M, dag_blocks_grid(7, 11, ranks, 1));
    CHECK(T != NULL);
    if (T) {
        CHECK_EQ_INT(dag_array_transpose(C, T), DAG_OK);
        memset(t, 0, sizeof t);
        CHECK_EQ_INT(dag_array_collect_on(ranks - 1, T, dag_rank() == ranks - 1 ? t : NULL, DAG_COL_MAJOR, N), DAG_OK);
        if (dag_rank() == ranks - 1) {
            int same = 1;
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) same &= t[j + i * N] == c[i + j * M];
            CHECK(same);
        }
        /* an operand on another grid is dealt anew onto the output's (a copy): U = T + T on U's grid */
        dag_array *U = dag_array_zeros(DAG_F64, N, M, dag_blocks(7, 11));
        CHECK_EQ_INT(dag_array_add(T, T, U), DAG_OK);
        memset(t, 0, sizeof t);
        CHECK_EQ_INT(dag_array_collect(U, t, DAG_COL_MAJOR, N), DAG_OK);
        int twice = 1;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) twice &= t[j + i * N] == 2 * c[i + j * M];
        CHECK(twice);
        dag_array_free(U);
    }
    dag_array_free(T);
    dag_array_free(A);
    dag_array_free(B);
    dag_array_free(C);
    dag_shutdown();
    agree_on_failures();
}
static double uniform_at(uint64_t seed, int64_t r, int64_t c) {   /* dag_array.h's generator, element by element */
    return dag__uniform(seed, r, c, 0);
}

/* ---- every rank's figures, and a simulation of many ranks in one process ---------- */
static void rank_figures(dag_rank_stats *per_rank, int ranks, uint64_t *critical_path) {
    for (int r = 0; r < ranks; r++) per_rank[r] = dag_get_rank_stats(r);
    *critical_path = dag_get_stats().rank_critical_path;
}
static void setup_simulated(int ranks, size_t rank_cache_limit) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = 2;
    d.simulate_ranks = ranks;
    d.rank_cache_limit = rank_cache_limit;
    d.logger.func = quiet_logger;
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);
    CHECK_EQ_INT(dag_num_ranks(), ranks);
    CHECK_EQ_INT(dag_rank(), 0);
}
/* The same collective calls, run or simulated: random programs, a Cholesky,
   a Fut and a collective fetch of a task on the last rank. */
static void some_of_everything(void) {
    for (unsigned k = 0; k < 4; k++) (void)run_program(0xC0FFEEu + k, 60, 2);   /* checked by the differential test */
    enum { N = 150, NB = 40 };
    static double a[N * N], x[4];
    spd(a, N, 3);
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    CHECK(A != NULL);
    CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    dag_array_free(A);
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.rank = DAG_RANK(dag_num_ranks() - 1);
    dag_task t = dag_spawn_with(&o, where_and_what, Val(5L));
    DAG_DATADEPS { dag_spawn(store_value, Out(x, 4), Fut(t)); }
    long v = 0;
    CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
}

/* Every rank decides every message, so each knows every rank's figures:
   what rank r counts of itself, every rank counts of it. A simulation of
   as many ranks in one process (no MPI) makes the same decisions: the
   same figures for every rank, and the same critical path, with the rank
   cache unbounded and bounded to two spans. The second run leaves its
   messages to the progress thread alone (DAG_MPI_PROGRESS=thread; the
   first has spinning workers help). With one process, a simulation of
   three ranks alone. */
TEST(every_rank_counts_every_ranks_traffic_alike_and_a_simulation_of_as_many_ranks_counts_the_same) {
    int size = 1, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int ranks = size > 1 ? size : 3;
    dag_rank_stats *real = calloc((size_t)ranks, sizeof *real), *sim = calloc((size_t)ranks, sizeof *sim),
                   *told = calloc((size_t)ranks, sizeof *told);
    for (int pass = 0; pass < 2; pass++) {
        size_t limit = pass ? 2 * LEN * sizeof(double) : 0;
        uint64_t real_path = 0, sim_path = 0;
        if (size > 1) {
            setenv("DAG_MPI_PROGRESS", pass ? "thread" : "workers", 1);
            setup_with_cache(2, limit);
            unsetenv("DAG_MPI_PROGRESS");
            some_of_everything();
            rank_figures(real, ranks, &real_path);
            CHECK_EQ_INT((long long)real[me].messages_sent, (long long)dag_get_stats().rank_messages_sent);
            dag_shutdown();
            MPI_Allgather(&real[me], (int)sizeof *real, MPI_BYTE, told, (int)sizeof *told, MPI_BYTE, MPI_COMM_WORLD);
            CHECK(!memcmp(told, real, sizeof *real * (size_t)ranks));
        }
        setup_simulated(ranks, limit);
        some_of_everything();
        rank_figures(sim, ranks, &sim_path);
        dag_shutdown();
        uint64_t sent = 0, received = 0, bytes_sent = 0, bytes_received = 0;
        for (int r = 0; r < ranks; r++) {
            sent += sim[r].messages_sent, received += sim[r].messages_received;
            bytes_sent += sim[r].bytes_sent, bytes_received += sim[r].bytes_received;
        }
        CHECK(sent > 0 && sent == received && bytes_sent == bytes_received);
        if (size > 1) {
            for (int r = 0; r < ranks; r++)
                if (memcmp(&real[r], &sim[r], sizeof *real))
                    fprintf(stderr, "  pass %d rank %d: run %llu/%llu messages, simulated %llu/%llu\n", pass, r,
                            (unsigned long long)real[r].messages_sent, (unsigned long long)real[r].messages_received,
                            (unsigned long long)sim[r].messages_sent, (unsigned long long)sim[r].messages_received);
            CHECK(!memcmp(real, sim, sizeof *real * (size_t)ranks));
            CHECK_EQ_INT((long long)real_path, (long long)sim_path);
        }
    }
    free(real);
    free(sim);
    free(told);
    agree_on_failures();
}

/* On paper, beyond this machine: rank 0's decisions for grids of 4 to 1024
   ranks (one process, no MPI), against the tile Cholesky's bound per rank
   (cholesky_traffic: messages and bytes sent and received, tasks) and its
   critical path, 3T - 2 tasks for T tiles a side. Ragged last tiles. */
TEST(a_simulation_of_4_to_1024_ranks_moves_what_block_cyclic_cholesky_must_and_its_path_is_3t_minus_2) {
    int grids[][2] = { { 2, 2 }, { 1, 4 }, { 4, 1 }, { 3, 5 }, { 8, 8 }, { 16, 16 }, { 8, 32 }, { 32, 32 } };
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        int p = grids[g][0], q = grids[g][1], ranks = p * q, nb = 4;
        int nt = (p > q ? p : q) + 3, n = nt * nb - 1;
        setup_simulated(ranks, 0);
        double *a = calloc((size_t)n * (size_t)n, sizeof *a);
        dag_array *A = dag_array_wrap(DAG_F64, n, n, dag_blocks_grid(nb, nb, p, q), a, n);
        CHECK(A != NULL);
        dag_rank_stats *got = calloc((size_t)ranks, sizeof *got), *want = calloc((size_t)ranks, sizeof *want);
        uint64_t path = 0;
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        rank_figures(got, ranks, &path);
        cholesky_traffic(n, nb, p, q, ranks, want);
        int differ = 0;
        for (int r = 0; r < ranks; r++) differ += memcmp(&got[r], &want[r], sizeof *got) != 0;
        if (differ) fprintf(stderr, "  grid %dx%d: %d ranks differ from the bound\n", p, q, differ);
        CHECK_EQ_INT(differ, 0);
        CHECK_EQ_INT((long long)path, 3LL * nt - 2);
        dag_array_free(A);
        dag_shutdown();
        free(a);
        free(got);
        free(want);
    }
    agree_on_failures();
}

TEST(simulated_ranks_out_of_range_and_rank_figures_of_no_such_rank_are_refused_by_name) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.logger.func = quiet_logger;
    d.simulate_ranks = DAG_MPI_MAX_RANKS + 1;
    CHECK_EQ_INT(dag_setup(&d), DAG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_log, "simulate_ranks") != NULL);
    dag_shutdown();
    setup_simulated(5, 0);
    dag_rank_stats none = dag_get_rank_stats(5);
    CHECK(strstr(last_log, "dag_get_rank_stats: rank 5") != NULL);
    CHECK(none.tasks == 0 && none.messages_sent == 0);
    dag_shutdown();
    agree_on_failures();
}

TEST(a_wrapped_matrix_holds_the_tiles_its_rank_owns_after_a_distributed_cholesky) {
    setup(1);
    enum { N = 90, NB = 20 };
    static double a[N * N], m[N * N], f[N * N];
    spd(a, N, 5);
    memcpy(m, a, sizeof a);
    dag_array *A = dag_array_wrap(DAG_F64, N, N, dag_blocks(NB, NB), m, N);   /* every rank its own matrix */
    CHECK(A != NULL);
    if (!A) return;
    CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
    dag_array *F = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    CHECK_EQ_INT(dag_array_potrf(F), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(F, f, DAG_COL_MAJOR, N), DAG_OK);
    int same = 1;
    for (int j = 0; j < dag_array_tile_cols(A); j++)
        for (int i = j; i < dag_array_tile_rows(A); i++) {
            if (dag_array_tile_rank(A, i, j) != dag_rank()) continue;
            for (int c = j * NB; c < (j + 1) * NB && c < N; c++)
                for (int r = i * NB; r < (i + 1) * NB && r < N; r++) same &= r < c || fabs(m[r + c * N] - f[r + c * N]) < 1e-12;
        }
    CHECK(same);
    dag_array_free(A);
    dag_array_free(F);
    dag_shutdown();
    agree_on_failures();
}

TEST(bad_grids_and_ranks_of_distributed_arrays_are_refused_by_name) {
    setup(1);
    double x[16] = { 0 };
    CHECK(dag_array_zeros(DAG_F64, 4, 4, dag_blocks_grid(2, 2, -1, 2)) == NULL);
    CHECK(strstr(last_log, "grid of ranks") != NULL);
    CHECK(dag_array_zeros(DAG_F64, 4, 4, dag_blocks_grid(2, 2, 2, 0)) == NULL);
    CHECK(dag_array_from_host_on(dag_num_ranks(), DAG_F64, 4, 4, dag_blocks(2, 2), x, DAG_COL_MAJOR, 4) == NULL);
    CHECK(strstr(last_log, "no such rank") != NULL);
    dag_array *A = dag_array_zeros(DAG_F64, 4, 4, dag_blocks_grid(2, 2, 4, 4));   /* more ranks than there are: wraps */
    CHECK(A != NULL);
    CHECK_EQ_INT(dag_array_collect_on(-1, A, x, DAG_COL_MAJOR, 4), DAG_ERR_INVALID_ARGUMENT);
    /* no matrix on the rank that gathers: it fails there, the others (which only send) do not hang,
       and every rank says so */
    CHECK_EQ_INT(dag_array_collect_on(0, A, dag_rank() == 0 ? NULL : x, DAG_COL_MAJOR, 4), DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_rank() != 0 || strstr(last_log, "no host memory") != NULL);
    CHECK_EQ_INT(dag_array_collect(A, x, DAG_COL_MAJOR, 4), DAG_OK);   /* and the array is still whole */
    /* the ranks that pass no matrix pass no leading dimension either (0): nothing is refused */
    double y[16];
    CHECK_EQ_INT(dag_array_collect_on(0, A, dag_rank() == 0 ? y : NULL, DAG_COL_MAJOR, dag_rank() == 0 ? 4 : 0), DAG_OK);
    CHECK(dag_rank() != 0 || memcmp(x, y, sizeof y) == 0);
    dag_array *B = dag_array_from_host_on(0, DAG_F64, 4, 4, dag_blocks(2, 2), dag_rank() == 0 ? x : NULL, DAG_COL_MAJOR,
                                          dag_rank() == 0 ? 4 : 0);
    CHECK(B != NULL);
    double sa = 0, sb = 0;
    CHECK_EQ_INT(dag_array_sum(A, &sa), DAG_OK);
    CHECK_EQ_INT(dag_array_sum(B, &sb), DAG_OK);
    CHECK(sa == sb);
    dag_array_free(B);
    /* a bad leading dimension on the rank that gathers: refused there, and every rank says so */
    CHECK_EQ_INT(dag_array_collect_on(0, A, dag_rank() == 0 ? y : NULL, DAG_COL_MAJOR, dag_rank() == 0 ? 3 : 0),
                 DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_rank() != 0 || strstr(last_log, "leading dimension") != NULL);
    CHECK_EQ_INT(dag_array_tile_rank(A, 2, 0), -1);
    dag_array_free(A);
    dag_shutdown();
    agree_on_failures();
}

int main(int argc, char **argv) {
    if (!mpi_suite_start(&argc, &argv)) return 1;
    RUN_ALL(random_programs_over_spans_owned_by_random_ranks_equal_the_sequential_run);
    RUN_ALL(a_task_on_one_rank_is_waited_for_and_fetched_on_every_rank);
    RUN_ALL(a_fut_of_a_task_run_on_one_rank_brings_its_value_to_the_ranks_that_use_it);
    RUN_ALL(a_producer_fetched_or_released_while_a_consumer_on_another_rank_waits_still_gives_it_the_value);
    RUN_ALL(an_owners_write_between_regions_reaches_the_readers_on_other_ranks);
    RUN_ALL(ranks_whose_spawns_differ_get_the_divergence_error_naming_the_spawn);
    RUN_ALL(ranks_that_diverge_on_owned_data_get_the_error_instead_of_waiting_for_a_message);
    RUN_ALL(a_rank_blocked_in_a_wait_before_its_region_ends_is_freed_by_the_watch_within_seconds);
    RUN_ALL(a_rank_in_dag_shutdown_while_the_others_end_more_regions_stays_for_them_and_nothing_hangs);
    RUN_ALL(every_rank_s_dag_shutdown_returns_the_failure_of_a_task_that_failed_on_one_rank);
    RUN_ALL(tasks_run_on_one_rank_are_forgotten_with_their_region_or_at_release_and_their_handles_go_stale);
    RUN_ALL(a_failed_task_cancels_its_dependents_on_every_rank_and_nothing_hangs);
    RUN_ALL(registering_on_a_rank_that_does_not_exist_or_without_memory_on_the_owner_is_refused);
    RUN_ALL(a_distributed_cholesky_and_solve_match_the_plain_factor_for_ragged_sizes_and_grids);
    RUN_ALL(distributed_gemm_elementwise_reductions_and_transpose_equal_plain_loops);
    RUN_ALL(distributed_arrays_under_a_device_scope_run_each_ranks_tiles_on_its_devices);
    RUN_ALL(every_rank_counts_every_ranks_traffic_alike_and_a_simulation_of_as_many_ranks_counts_the_same);
    RUN_ALL(a_simulation_of_4_to_1024_ranks_moves_what_block_cyclic_cholesky_must_and_its_path_is_3t_minus_2);
    RUN_ALL(simulated_ranks_out_of_range_and_rank_figures_of_no_such_rank_are_refused_by_name);
    RUN_ALL(a_wrapped_matrix_holds_the_tiles_its_rank_owns_after_a_distributed_cholesky);
    RUN_ALL(bad_grids_and_ranks_of_distributed_arrays_are_refused_by_name);
    int failed = test_summary();
    MPI_Finalize();
    return failed;
}
