/* test_mpi_faults.c: ranks that never lie. Whatever one rank does
   differently, or wherever a task fails, every rank hears the same thing,
   in time, and nothing hangs.

       make test-mpi      (mpirun -np 2, 3 and 4, and tests/mpi_leave.sh)

   Each case runs under its own time limit (DAG_TEST_CASE_TIMEOUT seconds,
   60 unless set): a case that hangs fails there, with its name, and the
   run goes on to the next binary. `--leave exit|return SEED` is not a
   test but a program for tests/mpi_leave.sh: one rank leaves its program
   without dag_shutdown, and the job must end, saying why. */
#define _POSIX_C_SOURCE 200809L   /* alarm */
#define DAG_IMPLEMENTATION
#include "dag_array.h"   /* dag.h, and the arrays over ranks */
#include "test.h"
#include "mpi_harness.h"
#include <unistd.h>

/* `code` on every rank, and equal to `expected`. */
#define CHECK_ON_EVERY_RANK(code, expected) \
    do { \
        int c_ = (int)(code), lo_ = 0, hi_ = 0; \
        MPI_Allreduce(&c_, &lo_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD); \
        MPI_Allreduce(&c_, &hi_, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); \
        CHECK_EQ_INT(lo_, (expected)); \
        CHECK_EQ_INT(hi_, (expected)); \
    } while (0)

static unsigned case_limit(void) {
    const char *e = getenv("DAG_TEST_CASE_TIMEOUT");
    return e && atoi(e) > 0 ? (unsigned)atoi(e) : 60u;
}
/* a case under its own time limit: test.h's watchdog names it if it hangs.
   `test_mpi_faults WORD` runs the cases whose names hold WORD. */
static const char *only;
#define RUN_CASE(name) \
    do { \
        if (only && !strstr(#name, only)) break; \
        alarm(case_limit()); \
        RUN_ALL(name); \
        alarm(0); \
    } while (0)

static dag_options on_rank(int r) {
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope.rank = DAG_RANK(r);
    return o;
}
/* LEN doubles i + base, owned by `owner` (memory from `mem` there) */
static dag_data owned(int owner, double *mem, double base) {
    for (int i = 0; i < LEN; i++) mem[i] = base + i;
    return dag_data_register_on(owner, dag_rank() == owner ? mem : NULL, LEN, sizeof(double));
}
static double sum_of(int n, double base) { return n * base + n * (n - 1) / 2.0; }

DAG_TASK(double, total, (const double *, y)) {
    double s = 0;
    for (int i = 0; i < LEN; i++) s += y[i];
    return s;
}

/* ---- 1. where a task runs is hashed ------------------------------------------------ */
/* Each rank names itself as the one to run the task: on 2 ranks a rank
   fetched another message as the span and returned garbage, on 3 and 4
   the job hung. Now every rank's region says DAG_ERR_DIVERGED, a fetch
   that returns DAG_OK returns the right value, and the log says where
   each rank put it. Then the ranks go on alike. */
TEST(a_placement_that_names_each_rank_itself_is_a_divergence_on_every_rank_never_a_wrong_value) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank();
    static double y[LEN];
    for (int owner = 0; owner < ranks; owner += ranks - 1) {   /* the span on the first rank, then on the last */
        dag_data hy = owned(owner, y, 1.0);
        dag_result fetched = DAG_OK;
        double v = -1;
        DAG_DATADEPS {
            dag_options o = on_rank(me);
            dag_task t = dag_spawn_with(&o, total, In(hy));
            fetched = dag_fetch(t, &v);
        }
        CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_ERR_DIVERGED);
        CHECK(fetched != DAG_OK || v == sum_of(LEN, 1.0));
        char where[80];   /* spans and tasks run on one rank are numbered in order, alike on every rank */
        snprintf(where, sizeof where, "rank %d spawned 'total'(In span %d of rank %d, %d B) to run on rank %d", me,
                 owner == 0 ? 1 : 4, owner, LEN * 8, me);
        CHECK(strstr(last_log, where) != NULL);
        DAG_DATADEPS {   /* alike again */
            dag_options o = on_rank(ranks - 1 - owner);
            dag_task t = dag_spawn_with(&o, total, In(hy));
            CHECK_EQ_INT(dag_fetch(t, &v), DAG_OK);
            CHECK(v == sum_of(LEN, 1.0));
        }
        CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_OK);
        dag_data_unregister(hy);
    }
    dag_shutdown();
    agree_on_failures();
}

/* ---- 2. which span is passed is hashed ------------------------------------------------ */
DAG_TASK(void, copy_first, (double *, z), (const double *, a)) { z[0] = a[0]; }
/* Rank 0 reads a, the others b, both owned by the last rank: with equal
   sizes rank 0 computed on b without a word, with other sizes the job
   died in MPI_ERR_TRUNCATE. Now both are DAG_ERR_DIVERGED on every rank
   (the span's registration is hashed, and a message that does not fit
   fails its receive), and the log names each rank's span and size. */
TEST(passing_another_registered_span_of_equal_or_other_size_is_a_divergence_on_every_rank) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double a[LEN], b[LEN + 8], z[LEN];
    for (int other_size = 0; other_size < 2; other_size++) {
        dag_data hz = owned(0, z, 0.0);
        dag_data ha = owned(last, a, 100.0);
        for (int i = 0; i < LEN + 8; i++) b[i] = 200.0 + i;
        size_t nb = other_size ? LEN + 8 : LEN;
        dag_data hb = dag_data_register_on(last, me == last ? b : NULL, nb, sizeof(double));
        DAG_DATADEPS { dag_spawn(copy_first, Out(hz), In(me == 0 ? ha : hb)); }   /* on rank 0 */
        CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_ERR_DIVERGED);
        char mine[96], rank0[96];
        int z_is = 1 + 5 * other_size;   /* spans and tasks run on one rank are numbered in order, alike on every rank */
        snprintf(rank0, sizeof rank0, "rank 0 spawned 'copy_first'(Out span %d of rank 0, %d B, In span %d of rank %d, %d B)",
                 z_is, LEN * 8, z_is + 1, last, LEN * 8);
        snprintf(mine, sizeof mine, "spawned 'copy_first'(Out span %d of rank 0, %d B, In span %d of rank %d, %d B)", z_is,
                 LEN * 8, z_is + 2, last, (int)nb * 8);
        CHECK(strstr(last_log, rank0) != NULL);
        CHECK(strstr(last_log, mine) != NULL);
        if (!strstr(last_log, mine)) fprintf(stderr, "  rank %d: %s\n", me, last_log);
        DAG_DATADEPS { dag_spawn(copy_first, Out(hz), In(hb)); }   /* alike again: b's value reaches rank 0 */
        CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_OK);
        if (me == 0) CHECK(z[0] == 200.0);
        dag_data_unregister(hz);
        dag_data_unregister(ha);
        dag_data_unregister(hb);
    }
    dag_shutdown();
    agree_on_failures();
}

/* ---- 3. a failed collective operation fails on every rank ---------------------------------- */
static void symmetric(double *m, int n, unsigned seed, int spd) {   /* SPD, or with one negative pivot */
    unsigned s = seed;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) m[i + j * n] = m[j + i * n] = (double)rnd(&s) / 16777216.0 - 0.5 + (i == j ? n : 0);
    if (!spd) m[(n / 2) + (n / 2) * n] = -(double)n;   /* tile 2's diagonal, with 32-tiles of 150 */
}
/* N = 150 in 32-tiles: the rank that owns the failing diagonal tile said
   DAG_ERR_NOT_POSITIVE_DEFINITE, the others went on into the solve, the
   library diverged and the next array could not be made. Now the ranks
   agree on each operation's outcome: the error on every rank, and the
   program goes on. */
TEST(a_failing_factorisation_returns_not_positive_definite_on_every_rank_and_the_program_goes_on) {
    setup(2);
    enum { N = 150, NB = 32 };
    static double m[N * N], rhs[N * 2], x[N * 2], f[N * N];
    for (int i = 0; i < N * 2; i++) rhs[i] = i % 7 - 3.0;
    symmetric(m, N, 11u, 0);
    dag_array *a = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), m, DAG_COL_MAJOR, N);
    dag_array *b = dag_array_from_host(DAG_F64, N, 2, dag_blocks(NB, NB), rhs, DAG_COL_MAJOR, N);
    CHECK(a != NULL && b != NULL);
    CHECK_ON_EVERY_RANK(dag_array_posv(a, b), DAG_ERR_NOT_POSITIVE_DEFINITE);
    dag_array_free(a);
    a = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), m, DAG_COL_MAJOR, N);
    CHECK(a != NULL);
    CHECK_ON_EVERY_RANK(dag_array_potrf(a), DAG_ERR_NOT_POSITIVE_DEFINITE);
    dag_array_free(a);
    /* and on: an SPD matrix factors and solves */
    symmetric(m, N, 11u, 1);
    a = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), m, DAG_COL_MAJOR, N);
    dag_array *l = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), m, DAG_COL_MAJOR, N);
    dag_array_free(b);
    b = dag_array_from_host(DAG_F64, N, 2, dag_blocks(NB, NB), rhs, DAG_COL_MAJOR, N);
    CHECK(a != NULL && l != NULL && b != NULL);
    CHECK_ON_EVERY_RANK(dag_array_potrf(l), DAG_OK);
    CHECK_ON_EVERY_RANK(dag_array_posv(a, b), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(l, f, DAG_COL_MAJOR, N), DAG_OK);
    CHECK_EQ_INT(dag_array_collect(b, x, DAG_COL_MAJOR, N), DAG_OK);
    CHECK(cholesky_residual(m, f, N) < 1e-12);
    double worst = 0;   /* A x = rhs, column by column */
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < N; i++) {
            double s = -rhs[i + c * N];
            for (int k = 0; k < N; k++) s += m[i + k * N] * x[k + c * N];
            worst = fabs(s) > worst ? fabs(s) : worst;
        }
    CHECK(worst < 1e-9);
    dag_array_free(a);
    dag_array_free(l);
    dag_array_free(b);
    dag_shutdown();
    agree_on_failures();
}

/* ---- 4. a failure's words cross ranks ------------------------------------------------------- */
DAG_TASK(void, breaks, (double *, a)) { a[0] = -1; dag_fail(DAG_USER_ERROR + 9, "broken on purpose, %d", 42); }
DAG_TASK(void, add_in, (double *, a), (const double *, b)) {
    for (int i = 0; i < LEN; i++) a[i] += b[i];
}
DAG_TASK(double, no_value, (double, x)) { dag_fail(DAG_USER_ERROR + 3, "no value for %g", x); return 0; }
DAG_TASK(double, plus_one, (double, x)) { return x + 1; }
/* A task fails on the last rank; its dependents on rank 0 (through its
   data, and through a Fut) said "task 'mpi_receive' failed: its detached
   work reported dependency failed". Now they name the root task, its rank
   and its words, on every rank that asks, and every rank's region returns
   the root's own code. */
TEST(a_dependent_on_another_rank_names_the_failed_task_its_rank_and_its_words) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double x[LEN], y[LEN];
    dag_data hx = owned(last, x, 0.0), hy = owned(0, y, 0.0);
    char words[160], value_words[160];
    snprintf(words, sizeof words, "dependency failed: task 'breaks' on rank %d failed: broken on purpose, 42", last);
    snprintf(value_words, sizeof value_words, "dependency failed: task 'no_value' on rank %d failed: no value for 2", last);
    dag_options on_last = on_rank(last), on_first = on_rank(0);
    DAG_DATADEPS {
        dag_spawn(breaks, InOut(hx));                   /* on the last rank */
        dag_task t = dag_spawn(add_in, InOut(hy), In(hx));   /* on rank 0: x comes from the last rank */
        CHECK_EQ_INT(dag_wait(t), DAG_ERR_DEPENDENCY_FAILED);
        CHECK(strstr(dag_task_message(t), words) != NULL);
        if (!strstr(dag_task_message(t), words)) fprintf(stderr, "  rank %d: %s\n", me, dag_task_message(t));
        CHECK(strstr(dag_task_message(t), "mpi_receive") == NULL);
        dag_task p = dag_spawn_with(&on_last, no_value, Val(2.0));
        dag_task q = dag_spawn_with(&on_first, plus_one, Fut(p));   /* the value goes to rank 0 */
        double v = 0;
        CHECK_EQ_INT(dag_fetch(q, &v), DAG_ERR_DEPENDENCY_FAILED);
        CHECK(strstr(dag_task_message(q), value_words) != NULL);
        if (!strstr(dag_task_message(q), value_words)) fprintf(stderr, "  rank %d: %s\n", me, dag_task_message(q));
    }
    CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_USER_ERROR + 9);
    if (me == 0) CHECK(y[0] == 0.0);   /* its dependent never ran */
    dag_data_unregister(hx);
    dag_data_unregister(hy);
    dag_shutdown();
    agree_on_failures();
}

/* ---- 6. data is current on its owner wherever the docs say it is ---------------------------- */
DAG_TASK(void, add_to, (double *, a), (double, c)) {
    for (int i = 0; i < LEN; i++) a[i] += c;
}
/* A span owned by rank 0, written by a task on the last rank: after a
   DAG_SEQUENTIAL block, and after dag_wait_all, rank 0 saw the old value
   (only a DAG_DATADEPS sent it home). */
TEST(owner_data_is_current_after_a_sequential_block_and_after_dag_wait_all) {
    setup(2);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double x[LEN];
    dag_data hx = owned(0, x, 1.0);
    dag_options o = on_rank(last);
    DAG_SEQUENTIAL {
        dag_spawn_with(&o, add_to, InOut(hx), Val(10.0));
        dag_spawn_with(&o, add_to, InOut(hx), Val(100.0));
    }
    CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_OK);
    if (me == 0) CHECK(x[0] == 111.0 && x[LEN - 1] == 111.0 + LEN - 1);
    dag_spawn_with(&o, add_to, InOut(hx), Val(1000.0));
    CHECK_ON_EVERY_RANK(dag_wait_all(), DAG_OK);
    if (me == 0) CHECK(x[0] == 1111.0 && x[LEN - 1] == 1111.0 + LEN - 1);
    dag_data_unregister(hx);
    dag_shutdown();
    agree_on_failures();
}

/* After a failure the ranks still agree on the data: a span owned by rank 0 written on the last rank
   (+10, fine), then a task there that takes it InOut fails without writing; another written on rank 0
   by a task that fails after writing, whose reader on the last rank is cancelled. Every rank then reads
   what one node's memory would hold (11, and 5: a failed task's write stays), and the first region's
   failure does not leak into the next. */
DAG_TASK(void, fails_untouched, (double *, a)) { (void)a; dag_fail(DAG_USER_ERROR + 4, "touches nothing"); }
DAG_TASK(void, writes_then_fails, (double *, a)) {
    for (int i = 0; i < LEN; i++) a[i] = 5;
    dag_fail(DAG_USER_ERROR + 5, "wrote, then failed");
}
DAG_TASK(double, first_of, (const double *, a)) { return a[0]; }
TEST(after_a_failure_every_rank_reads_what_one_nodes_memory_holds) {
    setup(2);
    int me = dag_rank(), last = dag_num_ranks() - 1;
    static double x[LEN], y[LEN];
    dag_data hx = owned(0, x, 1.0), hy = owned(0, y, 0.0);
    dag_options on_last = on_rank(last), on_first = on_rank(0);
    DAG_DATADEPS {
        dag_spawn_with(&on_last, add_to, InOut(hx), Val(10.0));
        dag_spawn_with(&on_last, fails_untouched, InOut(hx));
        dag_spawn_with(&on_first, writes_then_fails, InOut(hy));
        dag_spawn_with(&on_last, add_to, InOut(hy), Val(1.0));   /* cancelled: its input failed */
    }
    int first = dag_last_region_result();
    CHECK(first == DAG_USER_ERROR + 4 || first == DAG_USER_ERROR + 5);
    if (me == 0) CHECK(x[0] == 11.0 && y[0] == 5.0);
    for (int r = 0; r <= last; r++) {   /* read on every rank, fetched on every rank */
        dag_options on_r = on_rank(r);
        double vx = 0, vy = 0;
        DAG_DATADEPS {
            CHECK_EQ_INT(dag_fetch(dag_spawn_with(&on_r, first_of, In(hx)), &vx), DAG_OK);
            CHECK_EQ_INT(dag_fetch(dag_spawn_with(&on_r, first_of, In(hy)), &vy), DAG_OK);
        }
        CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_OK);
        CHECK(vx == 11.0 && vy == 5.0);
        if (vx != 11.0 || vy != 5.0) fprintf(stderr, "  rank %d read on rank %d: x %g (11), y %g (5)\n", me, r, vx, vy);
    }
    dag_data_unregister(hx);
    dag_data_unregister(hy);
    dag_shutdown();
    agree_on_failures();
}

/* ---- 7. what differs is named, and a skipped reduction is a divergence ------------------------- */
DAG_TASK(void, sized, (const double *, a)) { (void)a; }
TEST(a_divergence_in_span_size_names_the_size_of_each_rank) {
    setup(1);
    int ranks = dag_num_ranks(), me = dag_rank(), last = ranks - 1;
    static double x[LEN + 1];
    DAG_DATADEPS { dag_spawn(sized, In(x, me == last ? LEN + 1 : LEN)); }
    CHECK_ON_EVERY_RANK(dag_last_region_result(), DAG_ERR_DIVERGED);
    char others[96], odd[96];
    if (last == 1) snprintf(others, sizeof others, "rank 0 spawned 'sized'(In %d B) to run on every rank", LEN * 8);
    else snprintf(others, sizeof others, "ranks 0-%d spawned 'sized'(In %d B) to run on every rank", last - 1, LEN * 8);
    snprintf(odd, sizeof odd, "rank %d spawned 'sized'(In %d B) to run on every rank", last, (LEN + 1) * 8);
    CHECK(strstr(last_log, others) != NULL);
    CHECK(strstr(last_log, odd) != NULL);
    dag_shutdown();
    agree_on_failures();
}

/* The last rank skips a dag_array_sum the others make: they said
   "dependency failed" though the log said the ranks diverged. Now the sum
   says DAG_ERR_DIVERGED, and so does the skipping rank's next collective
   end; then a sum made by all is right again. */
TEST(a_reduction_skipped_by_one_rank_is_a_divergence_on_every_rank) {
    setup(2);
    int me = dag_rank(), last = dag_num_ranks() - 1;
    dag_array *a = dag_array_fill(DAG_F64, 64, 64, dag_blocks(16, 16), 0.5);
    CHECK(a != NULL);
    double s = 0;
    if (me != last) CHECK_EQ_INT(dag_array_sum(a, &s), DAG_ERR_DIVERGED);
    else CHECK_EQ_INT(dag_region_end(dag_region_begin(DAG_REGION_DATADEPS, NULL)), DAG_ERR_DIVERGED);
    CHECK(strstr(last_log, "ended a DAG_DATADEPS") != NULL);
    s = 0;
    CHECK_ON_EVERY_RANK(dag_array_sum(a, &s), DAG_OK);
    CHECK(s == 64 * 64 * 0.5);
    dag_array_free(a);
    dag_shutdown();
    agree_on_failures();
}

/* Rank 0 alone collects the array (an SPMD slip): the ranks' messages do not fit their
   receives, MPI frees several requests at once on the error, and the job died in MPI_Cancel.
   Now: DAG_ERR_DIVERGED where the collect is made, at the others' next collective end, and
   a sum made by all is right again. */
TEST(a_collect_made_by_one_rank_alone_is_a_divergence_not_an_abort) {
    setup(2);
    int me = dag_rank();
    dag_array *a = dag_array_fill(DAG_F64, 20, 20, dag_blocks(5, 5), 2.0);
    CHECK(a != NULL);
    static double host[400];
    double s = 0;
    if (me == 0) CHECK_EQ_INT(dag_array_collect(a, host, DAG_COL_MAJOR, 20), DAG_ERR_DIVERGED);
    else CHECK_EQ_INT(dag_array_sum(a, &s), DAG_ERR_DIVERGED);
    dag_result again = dag_array_sum(a, &s);   /* one more collective end may still report it */
    if (again) CHECK_EQ_INT(again, DAG_ERR_DIVERGED);
    s = 0;
    CHECK_ON_EVERY_RANK(dag_array_sum(a, &s), DAG_OK);
    CHECK(s == 800);
    dag_array_free(a);
    dag_shutdown();
    agree_on_failures();
}

/* ---- the divergence tester: random SPMD programs, one rank deviating once ---------------- */
/* A program is a list of calls in blocks, each block ended by a
   DAG_DATADEPS, a DAG_SEQUENTIAL or a dag_wait_all. A call is a spawn over
   spans owned by random ranks (some with a scope naming a rank), a spawn
   into each rank's own buffer from such a span, or a task run on one rank
   and fetched on every rank. Without a deviation, every rank checks the
   spans it owns, its own buffers and each fetched value against the same
   program run as plain loops, and every end must say DAG_OK. With one,
   one rank makes one call of the last block differently, in what the
   ranks must agree on (a task takes the values of the rank it runs on, so
   values may differ), or leaves, and every rank's end of that block must
   say DAG_ERR_DIVERGED, within the case's time limit. DAG_TEST_SEED picks
   other programs. */
enum { SPANS = 8, OWN = 2, CALLS = 24, BLOCKS = 3 };
enum { C_PUT, C_MIX, C_ADD3, C_OWN, C_FETCH, C_KINDS };   /* C_OWN: into the rank's own buffer */
enum { E_DATADEPS, E_SEQUENTIAL, E_WAIT_ALL };
typedef struct call { int kind, a, b, c, rank, own; double v; } call;
typedef struct program {
    int ranks, owner[SPANS], ends[BLOCKS];
    call call[BLOCKS * CALLS];
} program;
enum { D_NONE, D_EXTRA, D_MISSING, D_SPAN, D_SCOPE, D_SIZE, D_ORDER, D_SKIP_FETCH, D_SKIP_END, D_EXIT, D_RETURN,
       D_KINDS };
static const char *const deviation_name[D_KINDS] = { "none", "an extra spawn", "a missing spawn", "another span",
                                                     "another scope", "another size", "another order",
                                                     "a skipped fetch", "a skipped dag_wait_all", "exit",
                                                     "a return from main" };

static program make_program(unsigned seed, int ranks) {
    program p;
    memset(&p, 0, sizeof p);
    unsigned s = seed;
    p.ranks = ranks;
    for (int b = 0; b < SPANS; b++) p.owner[b] = (int)(rnd(&s) % (unsigned)ranks);
    for (int k = 0; k < BLOCKS * CALLS; k++) {
        call *c = &p.call[k];
        c->kind = (int)(rnd(&s) % C_KINDS);
        c->a = (int)(rnd(&s) % SPANS);
        c->b = (c->a + 1 + (int)(rnd(&s) % (SPANS - 1))) % SPANS;   /* never a */
        c->c = (c->b + 1 + (int)(rnd(&s) % (SPANS - 1))) % SPANS;   /* never b */
        if (c->c == c->a) c->c = (c->a + 1) % SPANS == c->b ? (c->a + 2) % SPANS : (c->a + 1) % SPANS;
        c->rank = rnd(&s) % 4 == 0 || c->kind == C_FETCH ? (int)(rnd(&s) % (unsigned)ranks) : -1;
        c->own = (int)(rnd(&s) % OWN);
        c->v = (double)(rnd(&s) % 7) - 3;
    }
    for (int g = 0; g < BLOCKS; g++) p.ends[g] = (int)(rnd(&s) % 3);
    return p;
}

/* Where a call runs: its scope's rank, else the owner of the span it writes, else every rank (-1). */
static int placement(const program *p, const call *c) {
    if (c->rank >= 0) return c->rank;
    return c->kind == C_OWN ? -1 : p->owner[c->a];
}

/* Whether two calls are one as the ranks see them (values may differ
   between ranks: a task uses those of the rank it runs on). */
static bool alike(const program *p, const call *x, const call *y) {
    if (x->kind != y->kind || placement(p, x) != placement(p, y)) return false;
    switch (x->kind) {
    case C_PUT: return x->a == y->a;
    case C_MIX: return x->a == y->a && x->b == y->b;
    case C_ADD3: return x->a == y->a && x->b == y->b && x->c == y->c;
    default: return x->b == y->b;   /* C_OWN (each rank's own buffer, by size), C_FETCH */
    }
}

/* Which call of the last block the deviation changes: one where it is a
   difference the ranks must see (-1: none in this program). */
static int deviation_at(const program *p, int kind, unsigned *s) {
    int first = (BLOCKS - 1) * CALLS;
    for (int tries = 0; tries < 200; tries++) {
        int k = first + (int)(rnd(s) % CALLS);
        const call *c = &p->call[k], *next = k + 1 < BLOCKS * CALLS ? c + 1 : NULL;
        bool fits = kind == D_SKIP_FETCH ? c->kind == C_FETCH
                  : kind == D_SIZE ? c->kind == C_OWN
                  : kind == D_ORDER ? next && !alike(p, c, next)
                  : kind == D_SKIP_END ? p->ends[BLOCKS - 1] == E_WAIT_ALL
                  : true;
        if (fits) return k;
    }
    return -1;
}

static double spans[SPANS][LEN], spans_ref[SPANS][LEN], own[OWN][LEN], own_ref[OWN][LEN];
static double total_ref(int b) {
    double s = 0;
    for (int i = 0; i < LEN; i++) s += spans_ref[b][i];
    return s;
}

/* One call, as the program has it or as the deviating rank changes it.
   With `check`, returns whether a fetched value differs from the plain loops'. */
static int make_call(const program *p, const call *c, const dag_data *h, int deviation, bool check) {
    dag_options o;
    memset(&o, 0, sizeof o);
    int a = c->a, b = c->b, where = placement(p, c);
    if (c->rank >= 0) o.scope.rank = DAG_RANK(c->rank);
    if (deviation == D_SCOPE) o.scope.rank = DAG_RANK(where < 0 ? 0 : (where + 1) % p->ranks);   /* runs elsewhere */
    if (deviation == D_SPAN && c->kind == C_PUT) a = (a + 1) % SPANS;
    if (deviation == D_SPAN && c->kind != C_PUT) b = (b + 1) % SPANS == a ? (b + 2) % SPANS : (b + 1) % SPANS;
    switch (c->kind) {
    case C_PUT: dag_spawn_with(&o, put, Out(h[a]), Val(c->v)); break;
    case C_MIX: dag_spawn_with(&o, mix, InOut(h[a]), In(h[b]), Val(c->v)); break;
    case C_ADD3: dag_spawn_with(&o, add3, InOut(h[a]), In(h[b]), In(h[c->c])); break;
    case C_OWN: dag_spawn_with(&o, mix, InOut(own[c->own], deviation == D_SIZE ? LEN - 1 : LEN), In(h[b]), Val(c->v)); break;
    default: {
        dag_task t = dag_spawn_with(&o, total, In(h[b]));
        double v = 0;
        if (deviation == D_SKIP_FETCH) break;
        dag_result r = dag_fetch(t, &v);
        if (check && (r != DAG_OK || v != total_ref(b))) return 1;
    }
    }
    return 0;
}

/* The call on plain loops: what each rank's memory holds after it. */
static void make_call_ref(const program *p, const call *c) {
    int where = placement(p, c);
    switch (c->kind) {
    case C_PUT: put_ref(spans_ref[c->a], c->v); break;
    case C_MIX: mix_ref(spans_ref[c->a], spans_ref[c->b], c->v); break;
    case C_ADD3: add3_ref(spans_ref[c->a], spans_ref[c->b], spans_ref[c->c]); break;
    case C_OWN:
        if (where < 0 || where == dag_rank()) mix_ref(own_ref[c->own], spans_ref[c->b], c->v);
        break;
    default: break;
    }
}

static int end_block(int end) {
    if (end == E_WAIT_ALL) return dag_wait_all();
    return dag_last_region_result();
}

/* Block g's calls and its end, with `deviation` at call `at` on this rank
   (D_NONE elsewhere). Its end's result; *bad counts what differs from the
   plain loops (without a deviation). */
static int run_block(const program *p, int g, const dag_data *h, int deviation, int at, bool check, int *bad) {
    int first = g * CALLS, end = p->ends[g];
    dag_region r = { 0, 0 };
    if (end != E_WAIT_ALL) r = dag_region_begin(end == E_DATADEPS ? DAG_REGION_DATADEPS : DAG_REGION_SEQUENTIAL, NULL);
    for (int k = first; k < first + CALLS; k++) {
        const call *c = &p->call[k];
        int d = k == at && deviation != D_SKIP_END ? deviation : D_NONE;
        if (d == D_EXIT) exit(3);
        if (d == D_RETURN) return -1;   /* main returns */
        if (d == D_ORDER) {   /* this call after the next */
            *bad += make_call(p, c + 1, h, D_NONE, check);
            *bad += make_call(p, c, h, D_NONE, check);
            k++;
            continue;
        }
        if (d != D_MISSING) *bad += make_call(p, c, h, d == D_EXTRA ? D_NONE : d, check);
        if (d == D_EXTRA) *bad += make_call(p, c, h, D_NONE, check);
        if (check) make_call_ref(p, c);
    }
    if (end != E_WAIT_ALL) return dag_region_end(r);
    if (deviation == D_SKIP_END && at >= first && at < first + CALLS)   /* it ends a region instead */
        return dag_region_end(dag_region_begin(DAG_REGION_DATADEPS, NULL));
    return end_block(end);
}

/* Runs the program, the rank `odd` deviating (D_NONE: no rank). Without a
   deviation, returns what differs from the plain loops; with one, whether
   some rank's end of the last block said other than DAG_ERR_DIVERGED (or
   an earlier end other than DAG_OK). -1: this rank returns from main. */
static int run_program(const program *p, int deviation, int odd, int at) {
    int me = dag_rank(), bad = 0;
    dag_data h[SPANS];
    for (int b = 0; b < SPANS; b++) {
        for (int i = 0; i < LEN; i++) spans[b][i] = spans_ref[b][i] = b * 100 + i;
        h[b] = dag_data_register_on(p->owner[b], p->owner[b] == me ? spans[b] : NULL, LEN, sizeof(double));
    }
    for (int o = 0; o < OWN; o++)
        for (int i = 0; i < LEN; i++) own[o][i] = own_ref[o][i] = -o - i;
    for (int g = 0; g < BLOCKS; g++) {
        int ended = run_block(p, g, h, me == odd ? deviation : D_NONE, at, deviation == D_NONE, &bad);
        if (ended == -1 && deviation == D_RETURN) return -1;
        bool last = g == BLOCKS - 1;
        if (deviation != D_NONE) {
            bad += ended != (last ? DAG_ERR_DIVERGED : DAG_OK);
            if (ended != (last ? DAG_ERR_DIVERGED : DAG_OK))
                fprintf(stderr, "  rank %d: %s at call %d: block %d ended with %s\n%s\n", me, deviation_name[deviation], at, g,
                        dag_result_string(ended), last_log);
            continue;
        }
        bad += ended != DAG_OK;
        for (int b = 0; b < SPANS; b++) bad += p->owner[b] == me && memcmp(spans[b], spans_ref[b], sizeof spans[b]) != 0;
        for (int o = 0; o < OWN; o++) bad += memcmp(own[o], own_ref[o], sizeof own[o]) != 0;
    }
    if (deviation == D_SKIP_END) {   /* the tasks the skipped dag_wait_all left: waited for now, one answer for all */
        int left = dag_wait_all(), lo = 0, hi = 0;
        MPI_Allreduce(&left, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&left, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        bad += lo != hi;
    }
    for (int b = 0; b < SPANS; b++) dag_data_unregister(h[b]);
    return bad;
}

/* The deviation, its rank and its call for one seed: every rank draws the same. */
static int draw(unsigned seed, const program *p, int kinds_from, int kinds_to, int *odd, int *at) {
    unsigned s = seed * 2654435761u + 7u;
    for (int tries = 0; tries < 20; tries++) {
        int kind = kinds_from + (int)(rnd(&s) % (unsigned)(kinds_to - kinds_from));
        *odd = (int)(rnd(&s) % (unsigned)p->ranks);
        *at = deviation_at(p, kind, &s);
        if (*at >= 0) return kind;
    }
    return D_NONE;
}

static int tester_counts[D_KINDS];
/* Programs without a deviation, then programs with one, in one set-up:
   after each divergence the ranks start again alike, and the next program
   must run as if nothing happened. */
TEST(random_programs_with_one_deviating_rank_diverge_on_every_rank_and_the_others_give_the_serial_answer) {
    setup(2);
    int ranks = dag_num_ranks(), clean = test_scaled(24, 4), odd_ones = test_scaled(32, 8), bad = 0;
    const char *e = getenv("DAG_TEST_SEED");   /* other programs than the usual ones */
    unsigned base = e ? (unsigned)strtoul(e, NULL, 10) : 0xD1CEu;
    for (int k = 0; k < clean + odd_ones; k++) {
        unsigned seed = base + 977u * (unsigned)k;
        program p = make_program(seed, ranks);
        int odd = -1, at = -1, deviation = k < clean ? D_NONE : draw(seed, &p, D_EXTRA, D_EXIT, &odd, &at);
        if (k >= clean && deviation == D_NONE) continue;   /* no call fits this seed's draws */
        double t0 = now_s();
        int b = run_program(&p, deviation, odd, at);
        bool slow = now_s() - t0 > case_limit() / 4.0;
        if ((b || slow) && !bad)
            fprintf(stderr, "  rank %d: program %d (%s on rank %d, call %d): %d mismatches%s\n", dag_rank(), k,
                    deviation_name[deviation], odd, at, b, slow ? ", too slow" : "");
        bad += b + slow;
        tester_counts[deviation]++;
    }
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    agree_on_failures();
}

/* `--leave exit|return SEED`: one rank leaves without dag_shutdown (seed
   0: right before the others' dag_shutdown; else at a random call of a
   random program), and the others go on. Run by tests/mpi_leave.sh, which
   wants the job to end, within its limit, saying why. */
static int leave(const char *how, unsigned seed) {
    dag_setup(NULL);   /* MPI starts here, as in a program that leaves it to dag.h */
    int deviation = !strcmp(how, "exit") ? D_EXIT : D_RETURN, odd = 0, at = -1;
    program p = make_program(seed, dag_num_ranks());
    if (seed) {
        unsigned s = seed;
        odd = (int)(rnd(&s) % (unsigned)dag_num_ranks());
        at = (int)(rnd(&s) % (unsigned)(BLOCKS * CALLS));
    }
    if (run_program(&p, seed ? deviation : D_NONE, odd, at) == -1) return 3;
    if (!seed && dag_rank() == odd) {
        if (deviation == D_EXIT) exit(3);
        return 3;
    }
    dag_shutdown();
    return 0;
}

TEST(these_cases_need_two_ranks_or_more) { SKIP("run under mpirun -np 2 or more"); }

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--leave")) return leave(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    int level = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;   /* rank 0 speaks for all */
    watchdog_start();
    only = argc > 1 ? argv[1] : NULL;
    if (size < 2) {
        RUN(these_cases_need_two_ranks_or_more);
    } else {
        RUN_CASE(a_placement_that_names_each_rank_itself_is_a_divergence_on_every_rank_never_a_wrong_value);
        RUN_CASE(passing_another_registered_span_of_equal_or_other_size_is_a_divergence_on_every_rank);
        RUN_CASE(a_failing_factorisation_returns_not_positive_definite_on_every_rank_and_the_program_goes_on);
        RUN_CASE(a_dependent_on_another_rank_names_the_failed_task_its_rank_and_its_words);
        RUN_CASE(owner_data_is_current_after_a_sequential_block_and_after_dag_wait_all);
        RUN_CASE(after_a_failure_every_rank_reads_what_one_nodes_memory_holds);
        RUN_CASE(a_divergence_in_span_size_names_the_size_of_each_rank);
        RUN_CASE(a_reduction_skipped_by_one_rank_is_a_divergence_on_every_rank);
        RUN_CASE(a_collect_made_by_one_rank_alone_is_a_divergence_not_an_abort);
        RUN_CASE(random_programs_with_one_deviating_rank_diverge_on_every_rank_and_the_others_give_the_serial_answer);
        printf("divergence tester on %d ranks:", size);
        for (int d = D_NONE; d < D_EXIT; d++) printf("%s %d %s", d ? "," : "", tester_counts[d], d ? deviation_name[d] : "without a deviation");
        printf("\n");
    }
    int failed = test_summary();
    MPI_Finalize();
    return failed;
}
