/* test_mpi.c: the same program on many ranks (dag_backends/dag_mpi.h).

       make test-mpi      (mpirun -np 1, 2 and 4; skipped without MPI)

   Every rank runs this file. Rank 0 prints the test lines; a CHECK that
   fails on any rank fails the test on every rank (the ranks agree on the
   count before RUN prints), so the closing line is the same everywhere. */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"
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

static atomic_int logged_errors;
static char last_log[1024];
static void quiet_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)user; (void)item;
    if (level == DAG_LOG_ERROR) {
        atomic_fetch_add(&logged_errors, 1);
        snprintf(last_log, sizeof last_log, "%s", message);
    }
}
static void setup(int threads) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads;
    d.logger.func = quiet_logger;
    atomic_store(&logged_errors, 0);
    last_log[0] = 0;
    CHECK_EQ_INT(dag_setup(&d), DAG_OK);
}

/* ---- the differential tester: random programs over spans owned by random ranks ---- */
enum { BUFS = 12, LEN = 37, PLAIN = 3 };
DAG_TASK(void, put, (double *, a), (double, c)) {
    for (int i = 0; i < LEN; i++) a[i] = c + i;
}
DAG_TASK(void, mix, (double *, a), (const double *, b), (double, c)) {
    for (int i = 0; i < LEN; i++) a[i] = a[i] * 0.5 + b[i] * c + i;
}
DAG_TASK(void, add3, (double *, a), (const double *, b), (const double *, c)) {
    for (int i = 0; i < LEN; i++) a[i] += b[i] - 0.25 * c[i];
}
static void put_ref(double *a, double c) { for (int i = 0; i < LEN; i++) a[i] = c + i; }
static void mix_ref(double *a, const double *b, double c) { for (int i = 0; i < LEN; i++) a[i] = a[i] * 0.5 + b[i] * c + i; }
static void add3_ref(double *a, const double *b, const double *c) { for (int i = 0; i < LEN; i++) a[i] += b[i] - 0.25 * c[i]; }

static unsigned rnd(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 8) & 0xffffff; }

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

TEST(random_programs_over_spans_owned_by_random_ranks_equal_the_sequential_run) {
    int seeds = test_scaled(60, 6);
    for (int threads = 1; threads <= 2; threads++) {
        setup(threads);
        int bad = 0;
        for (int k = 0; k < seeds; k++) {
            int b = run_program(0x9E3779B9u * (unsigned)(k + 1) + (unsigned)threads, 40 + k % 50, 1 + k % 3);
            if (b && !bad) fprintf(stderr, "  rank %d: seed %d: %d mismatches\n", dag_rank(), k, b);
            bad += b;
        }
        CHECK_EQ_INT(bad, 0);
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
        CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);   /* again: what came is kept */
        CHECK_EQ_INT(v, 1000 * r + 49);
        CHECK(dag_ready(t));
        dag_task f = dag_spawn_with(&o, fails_here, Val(3L));
        CHECK_EQ_INT(dag_wait(f), DAG_USER_ERROR + 7);
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
        CHECK(strstr(last_log, "diverged at spawn 2") != NULL);
        CHECK(strstr(last_log, "spawned 'step_b'") != NULL);
        CHECK(strstr(last_log, "rank 0 spawned 'step_a'") != NULL);
    } else {
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    }
    /* the next region compares its own spawns */
    DAG_DATADEPS { dag_spawn(step_a, InOut(x, 4)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    dag_shutdown();
    agree_on_failures();
}

/* ---- a failure on one rank reaches its dependents on the others ----------------- */
DAG_TASK(void, breaks, (double *, a)) { a[0] = -1; dag_fail(DAG_USER_ERROR + 9, "broken on rank %d", dag_rank()); }
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
    dag_result r = dag_last_region_result();
    if (me == 0) CHECK_EQ_INT(r, DAG_USER_ERROR + 9);
    else if (me == other) CHECK_EQ_INT(r, DAG_ERR_DEPENDENCY_FAILED);
    else CHECK_EQ_INT(r, DAG_OK);   /* a rank with no dependent of it */
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

int main(int argc, char **argv) {
    int level = 0, rank = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;   /* rank 0 speaks for all */
    watchdog_start();
    RUN_ALL(random_programs_over_spans_owned_by_random_ranks_equal_the_sequential_run);
    RUN_ALL(a_task_on_one_rank_is_waited_for_and_fetched_on_every_rank);
    RUN_ALL(ranks_whose_spawns_differ_get_the_divergence_error_naming_the_spawn);
    RUN_ALL(a_failed_task_cancels_its_dependents_on_every_rank_and_nothing_hangs);
    RUN_ALL(registering_on_a_rank_that_does_not_exist_or_without_memory_on_the_owner_is_refused);
    int failed = test_summary();
    MPI_Finalize();
    return failed;
}
