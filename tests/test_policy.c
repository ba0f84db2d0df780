/* test_policy.c: how idle workers wait (dag_desc.wait_policy, block_time_us,
   DAG_WAIT_POLICY, DAG_BLOCKTIME, DAG_NUM_THREADS), the other environment
   knobs (DAG_LOG, DAG_TRACE, DAG_DEVICES), and that no wake-up is ever lost
   when producers and sleepers race.

   A lost wake-up would only cost time while the sleep has a safety timeout,
   so this file sets it to an hour: here a lost wake-up hangs, and the
   watchdog names the test.

       make build/gcc/test_policy && ./build/gcc/test_policy            */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#define DAG_SLEEP_SAFETY_MS (3600 * 1000)
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>
#include <threads.h>


static atomic_int warnings;
static char last_warning[512];
static void counting_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)user; (void)item;
    if (level == DAG_LOG_WARN) {
        atomic_fetch_add(&warnings, 1);
        snprintf(last_warning, sizeof last_warning, "%s", message);
    }
}
static void setup_with(int threads, dag_wait_policy policy, int block_time_us) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.num_threads = threads;
    d.wait_policy = policy;
    d.block_time_us = block_time_us;
    d.logger.func = counting_logger;
    atomic_store(&warnings, 0);
    last_warning[0] = 0;
    dag_setup(&d);
}

static void sleep_ms(int ms) {
    struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
    thrd_sleep(&t, NULL);
}

DAG_TASK(void, small_work, (double *, x)) { *x += 1; }

/* A burst every worker takes part in, then the pool is idle. */
static void burst(void) {
    static double cells[256];
    for (int i = 0; i < 256; i++) dag_spawn(small_work, InOut(&cells[i], 1));
    dag_wait_all();
}

/* Seconds of CPU the whole process used while the caller slept ms. */
static double cpu_while_idle(int ms) {
    clock_t c0 = clock();
    sleep_ms(ms);
    return (double)(clock() - c0) / CLOCKS_PER_SEC;
}

/* ---- the policies --------------------------------------------------------- */

TEST(an_active_pool_never_sleeps) {
    setup_with(2, DAG_WAIT_ACTIVE, 0);
    burst();
    uint64_t before = dag_get_stats().sleeps;
    sleep_ms(100);
    CHECK(dag_get_stats().sleeps == before);   /* worker 2 spun all along */
    dag_shutdown();
}

TEST(a_passive_pool_sleeps_at_once_and_uses_no_cpu_while_idle) {
    setup_with(2, DAG_WAIT_PASSIVE, 0);
    burst();
    sleep_ms(20);
    CHECK(dag_get_stats().sleeps >= 1);
    double cpu = cpu_while_idle(300);
    printf("     passive: %.3f s of CPU over 0.3 s idle\n", cpu);
    CHECK(cpu < 0.1);
    dag_shutdown();
}

TEST(the_default_policy_spins_its_block_time_then_sleeps_and_uses_no_cpu) {
    setup_with(2, DAG_WAIT_DEFAULT, 1000 * 1000);   /* 1 s */
    burst();
    uint64_t before = dag_get_stats().sleeps;
    sleep_ms(100);
    CHECK(dag_get_stats().sleeps == before);   /* still inside its window */
    sleep_ms(1500);
    CHECK(dag_get_stats().sleeps > before);    /* past it */
    dag_shutdown();
    setup_with(2, DAG_WAIT_DEFAULT, 0);   /* the default window: 5 ms */
    burst();
    sleep_ms(50);
    double cpu = cpu_while_idle(500);
    printf("     default: %.3f s of CPU over 0.5 s idle\n", cpu);
    CHECK(cpu < 0.1);
    dag_shutdown();
}

/* ---- the environment ------------------------------------------------------ */

TEST(the_environment_sets_what_the_desc_leaves_at_zero) {
    setenv("DAG_WAIT_POLICY", "Passive", 1);
    setenv("DAG_NUM_THREADS", "3", 1);
    setup_with(0, DAG_WAIT_DEFAULT, 0);
    CHECK_EQ_INT(dag_num_threads(), 3);
    burst();
    sleep_ms(20);
    CHECK(dag_get_stats().sleeps >= 1);   /* passive: asleep at once */
    CHECK_EQ_INT(atomic_load(&warnings), 0);
    dag_shutdown();
    /* the desc wins over the environment */
    setup_with(2, DAG_WAIT_ACTIVE, 0);
    CHECK_EQ_INT(dag_num_threads(), 2);
    burst();
    uint64_t before = dag_get_stats().sleeps;
    sleep_ms(50);
    CHECK(dag_get_stats().sleeps == before);
    dag_shutdown();
    /* a block time in the environment */
    unsetenv("DAG_WAIT_POLICY");
    setenv("DAG_BLOCKTIME", "2s", 1);
    setup_with(2, DAG_WAIT_DEFAULT, 0);
    burst();
    before = dag_get_stats().sleeps;
    sleep_ms(100);
    CHECK(dag_get_stats().sleeps == before);
    CHECK_EQ_INT(atomic_load(&warnings), 0);
    dag_shutdown();
    unsetenv("DAG_BLOCKTIME");
    unsetenv("DAG_NUM_THREADS");
}

TEST(values_that_do_not_parse_are_named_and_ignored) {
    const char *bad[][2] = { { "DAG_WAIT_POLICY", "sometimes" }, { "DAG_BLOCKTIME", "soon" },
                             { "DAG_BLOCKTIME", "5 weeks" }, { "DAG_BLOCKTIME", "nan" }, { "DAG_BLOCKTIME", "-nanms" },
                             { "DAG_NUM_THREADS", "-4" }, { "DAG_NUM_THREADS", "two" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i][0], bad[i][1], 1);
        setup_with(0, DAG_WAIT_DEFAULT, 0);
        char want[64];
        snprintf(want, sizeof want, "%s=%s", bad[i][0], bad[i][1]);
        CHECK(strstr(last_warning, want) != NULL);
        if (!strstr(last_warning, want)) printf("     %s: got \"%s\"\n", want, last_warning);
        CHECK(dag_num_threads() >= 1);
        burst();   /* and it still runs */
        dag_shutdown();
        unsetenv(bad[i][0]);
    }
    /* a wait_policy that is not one */
    setup_with(2, (dag_wait_policy)7, 0);
    CHECK(strstr(last_warning, "wait_policy 7") != NULL);
    burst();
    dag_shutdown();
}

/* ---- DAG_LOG, DAG_TRACE, DAG_DEVICES -------------------------------------- */

static atomic_int by_level[4];   /* messages delivered, by dag_log_level */
static void level_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)item; (void)user;
    if (level >= DAG_LOG_ERROR && level <= DAG_LOG_INFO) atomic_fetch_add(&by_level[level], 1);
    if (level == DAG_LOG_WARN) snprintf(last_warning, sizeof last_warning, "%s", message);
}

/* Sets up with level_logger and the given log_level, logs one message of
   each level, shuts down; returns the three counts as a number ewi (1 =
   delivered): 111 all, 100 errors only. */
static int delivered_with(dag_log_level level) {
    for (int i = 0; i < 4; i++) atomic_store(&by_level[i], 0);
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { level_logger, NULL }, .log_level = level });
    for (int i = 0; i < 4; i++) atomic_store(&by_level[i], 0);   /* what set-up itself said */
    dag_log(DAG_LOG_ERROR, DAG_OK, "an error");
    dag_log(DAG_LOG_WARN, DAG_OK, "a warning");
    dag_log(DAG_LOG_INFO, DAG_OK, "a note");
    int r = 100 * by_level[DAG_LOG_ERROR] + 10 * by_level[DAG_LOG_WARN] + by_level[DAG_LOG_INFO];
    dag_shutdown();
    return r;
}

TEST(dag_log_and_log_level_choose_the_least_severe_message_delivered) {
    CHECK_EQ_INT(delivered_with((dag_log_level)0), 111);   /* a logger of one's own gets everything */
    CHECK_EQ_INT(delivered_with(DAG_LOG_WARN), 110);
    CHECK_EQ_INT(delivered_with(DAG_LOG_ERROR), 100);
    CHECK_EQ_INT(delivered_with(DAG_LOG_NONE), 0);
    const char *env[][2] = { { "none", "0" }, { "error", "100" }, { "Warning", "110" }, { "warn", "110" }, { "info", "111" } };
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
        setenv("DAG_LOG", env[i][0], 1);
        CHECK_EQ_INT(delivered_with((dag_log_level)0), atoi(env[i][1]));
    }
    setenv("DAG_LOG", "none", 1);
    CHECK_EQ_INT(delivered_with(DAG_LOG_WARN), 110);   /* the desc wins over the environment */
    setenv("DAG_LOG", "loud", 1);
    last_warning[0] = 0;
    for (int i = 0; i < 4; i++) atomic_store(&by_level[i], 0);
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { level_logger, NULL } });
    CHECK(strstr(last_warning, "DAG_LOG=loud") != NULL);   /* named, and ignored */
    dag_shutdown();
    unsetenv("DAG_LOG");
    last_warning[0] = 0;
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { level_logger, NULL }, .log_level = (dag_log_level)9 });
    CHECK(strstr(last_warning, "log_level 9") != NULL);
    dag_shutdown();
}

DAG_TASK(void, traced_step, (double *, x)) { *x += 1; }

/* The file's bytes as a string (NULL if it cannot be read). */
/* Sets up counting log levels, runs one traced step and waits (DAG_TRACE as the caller set it). */
static void traced_run_counting_logs(double *cells) {
    for (int i = 0; i < 4; i++) atomic_store(&by_level[i], 0);
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { level_logger, NULL } });
    dag_spawn(traced_step, InOut(&cells[0], 1));
    dag_wait_all();
}
static char *fifo_text;
/* Reads the FIFO the test opened (non-blocking, so it has a reader from then on) until its writer
   has written and closed it. */
static void *reads_a_fifo(void *fd_) {
    int fd = *(int *)fd_;
    size_t n = 0, cap = 1 << 16;
    char *s = (char *)malloc(cap);
    for (double waited = 0; s && waited < 60;) {
        ssize_t got = read(fd, s + n, cap - 1 - n);
        if (got > 0) {
            n += (size_t)got;
            if (n + 1 == cap) s = (char *)realloc(s, cap *= 2);
        } else if (got == 0 && n > 0) {
            break;   /* the writer closed it */
        } else {
            test_spin_us(1000);   /* no writer yet (0), or no bytes yet (EAGAIN) */
            waited += 0.001;
        }
    }
    if (s) s[n] = 0;
    close(fd);
    fifo_text = s;
    return NULL;
}
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = (char *)calloc((size_t)n + 1, 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
    fclose(f);
    return s;
}

static int count_of(const char *s, const char *word) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, word)); p += strlen(word)) n++;
    return n;
}

TEST(dag_trace_records_from_the_start_and_writes_the_trace_at_shutdown) {
    char env_path[64], desc_path[64];
    snprintf(env_path, sizeof env_path, "/tmp/dag_test_trace_env_%d.json", (int)getpid());
    snprintf(desc_path, sizeof desc_path, "/tmp/dag_test_trace_desc_%d.json", (int)getpid());
    remove(env_path);
    remove(desc_path);
    static double cells[100];
    setenv("DAG_TRACE", env_path, 1);
    setup_with(2, DAG_WAIT_DEFAULT, 0);
    for (int i = 0; i < 100; i++) dag_spawn(traced_step, InOut(&cells[i % 10], 1));
    dag_wait_all();
    dag_shutdown();
    char *json = slurp(env_path);
    CHECK(json != NULL);
    if (json) {
        CHECK(json[0] == '{' || json[0] == '[');
        CHECK_EQ_INT(count_of(json, "\"traced_step\""), 100);   /* every task, none twice */
        free(json);
    }
    remove(env_path);
    /* the desc's path wins over the environment's */
    dag_setup(&(dag_desc){ .num_threads = 2, .trace_path = desc_path });
    dag_spawn(traced_step, InOut(&cells[0], 1));
    dag_wait_all();
    dag_shutdown();
    json = slurp(desc_path);
    CHECK(json != NULL && count_of(json, "\"traced_step\"") == 1);
    free(json);
    CHECK(slurp(env_path) == NULL);
    remove(desc_path);
    /* a path that cannot be written: an error at shutdown, nothing worse */
    setenv("DAG_TRACE", "/nonexistent-dir/trace.json", 1);
    traced_run_counting_logs(cells);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    CHECK(atomic_load(&by_level[DAG_LOG_ERROR]) >= 1);
    /* a device that takes no bytes (a full disk): the lost trace is said too */
    setenv("DAG_TRACE", "/dev/full", 1);
    traced_run_counting_logs(cells);
    CHECK_EQ_INT(dag_trace_write_json("/dev/full"), DAG_ERR_IO);
    CHECK(atomic_load(&by_level[DAG_LOG_ERROR]) >= 1);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    CHECK(atomic_load(&by_level[DAG_LOG_ERROR]) >= 2);
    /* a FIFO, a compressor reading it: set-up does not open it to probe it (that blocked until a
       writer came), and the trace goes through it whole at shutdown */
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/dag_trace_fifo_%d", (int)getpid());
    remove(fifo);
    CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
    pthread_t reader;
    fifo_text = NULL;
    int fifo_fd = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK(fifo_fd >= 0);
    pthread_create(&reader, NULL, reads_a_fifo, &fifo_fd);
    setenv("DAG_TRACE", fifo, 1);
    dag_setup(&(dag_desc){ .num_threads = 2 });
    dag_spawn(traced_step, InOut(&cells[0], 1));
    dag_wait_all();
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    pthread_join(reader, NULL);
    CHECK(fifo_text != NULL && count_of(fifo_text, "\"traced_step\"") == 1);
    free(fifo_text);
    /* the same FIFO with no reader (it died): the trace is not written, said, and shutdown returns */
    traced_run_counting_logs(cells);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    CHECK(atomic_load(&by_level[DAG_LOG_ERROR]) >= 1);
    remove(fifo);
    unsetenv("DAG_TRACE");
}

/* A program that ends without dag_shutdown (this program again: test_policy --exit-without-shutdown
   PATH [running]) still gets its trace, written at exit with a warning that says so; one that ends with
   a task still running gets a warning that it was not written, not silence. */
static const char *test_program;
static atomic_int child_go;
DAG_TASK(void, spin_until_go, (int, unused)) {
    (void)unused;
    while (!atomic_load(&child_go)) {}
}
static int exit_without_shutdown(const char *path, bool running) {
    static double cells[10];
    dag_setup(&(dag_desc){ .num_threads = 2, .trace_path = path });
    for (int i = 0; i < 20; i++) dag_spawn(traced_step, InOut(&cells[i % 10], 1));
    dag_wait_all();
    if (running) dag_spawn(spin_until_go, Val(0));
    exit(0);   /* no dag_shutdown */
}
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
/* Runs the child, its stderr into err_path; its exit status, or -1 */
static int run_exit_child(const char *path, const char *err_path, bool running) {
    char *argv[] = { (char *)test_program, (char *)"--exit-without-shutdown", (char *)path,
                     running ? (char *)"running" : NULL, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    fflush(NULL);
    int st = -1;
    if (posix_spawn(&pid, test_program, &fa, NULL, argv, environ) == 0 && waitpid(pid, &st, 0) == pid)
        st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    posix_spawn_file_actions_destroy(&fa);
    return st;
}
TEST(a_program_that_ends_without_dag_shutdown_gets_its_trace_at_exit_or_a_warning) {
    char path[64], err_path[64];
    snprintf(path, sizeof path, "/tmp/dag_test_trace_exit_%d.json", (int)getpid());
    snprintf(err_path, sizeof err_path, "/tmp/dag_test_trace_exit_%d.err", (int)getpid());
    remove(path);
    CHECK_EQ_INT(run_exit_child(path, err_path, false), 0);
    char *json = slurp(path), *err = slurp(err_path);
    CHECK(json != NULL && count_of(json, "\"traced_step\"") == 20);
    CHECK(err != NULL && strstr(err, "ended without dag_shutdown: the trace was written to") != NULL);
    free(json);
    free(err);
    remove(path);
    CHECK_EQ_INT(run_exit_child(path, err_path, true), 0);
    err = slurp(err_path);
    CHECK(slurp(path) == NULL);
    CHECK(err != NULL && strstr(err, "with tasks unfinished: the trace") && strstr(err, "was not written"));
    free(err);
    remove(path);
    remove(err_path);
}

TEST(dag_devices_that_do_not_parse_are_named_and_every_device_is_used) {
    const char *bad[] = { "gpu", "cuda:0", "opencl:x", "cuda;hip", "all:2", "cuda," };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("DAG_DEVICES", bad[i], 1);
        setup_with(2, DAG_WAIT_DEFAULT, 0);
        char want[64];
        snprintf(want, sizeof want, "DAG_DEVICES=%s", bad[i]);
        CHECK(strstr(last_warning, want) != NULL);
        if (!strstr(last_warning, want)) printf("     %s: got \"%s\"\n", want, last_warning);
        CHECK(dag_backend_available(DAG_CPU));
        burst();
        dag_shutdown();
    }
    const char *good[] = { "none", "all", "cuda", "opencl:2,cuda", " hip , ze:1 ", "CUDA,Level_Zero" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("DAG_DEVICES", good[i], 1);
        setup_with(2, DAG_WAIT_DEFAULT, 0);
        CHECK(strstr(last_warning, "every device is used") == NULL);   /* parsed (a device not there is named, though) */
        if (last_warning[0]) printf("     DAG_DEVICES=%s: \"%s\"\n", good[i], last_warning);
        CHECK_EQ_INT(dag_device_count(DAG_CPU), 2);   /* the CPU is always there */
        dag_shutdown();
    }
    setenv("DAG_DEVICES", "none", 1);
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { counting_logger, NULL }, .devices = "cpus" });
    CHECK(strstr(last_warning, "dag_desc.devices=cpus") != NULL);   /* the desc's, not the environment's */
    dag_shutdown();
    unsetenv("DAG_DEVICES");
}

/* ---- no lost wake-ups ----------------------------------------------------- */

/* A task hands the next one to the other worker through its mailbox, so
   every hop wakes a thread that has just gone to sleep (or is going). */
static atomic_long hops_left;
DAG_TASK(void, hop, (int, on)) {
    if (atomic_fetch_sub(&hops_left, 1) <= 1) return;
    int next = on == 1 ? 2 : 1;
    dag_spawn_with(&(dag_options){ .scope = dag_scope(.thread = next) }, hop, Val(next));
}

/* fork() while dag.h runs: the child (one thread, the pool left in the parent) is refused with words
   that say so, its dag_shutdown returns without joining threads that are not there (it crashed in
   pthread_join), and the parent runs on. */
DAG_TASK(int, square_of, (int, x)) { return x * x; }
static int child_after_fork(void) {
    int bad = 0, v = -1;
    dag_task t = dag_spawn(square_of, Val(3));
    bad += t.ptr != NULL;
    bad += dag_fetch(t, &v) == DAG_OK;
    bad += dag_setup(NULL) != DAG_ERR_SHUT_DOWN;
    bad += atomic_load(&by_level[DAG_LOG_ERROR]) < 2;   /* the spawn and the set-up, each said */
    bad += dag_shutdown() != DAG_OK;
    return bad;
}
TEST(a_child_of_fork_is_refused_by_name_and_its_shutdown_does_not_crash) {
    for (int i = 0; i < 4; i++) atomic_store(&by_level[i], 0);
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { level_logger, NULL } });
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(square_of, Val(4)), &v), DAG_OK);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) _exit(child_after_fork());
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(dag_fetch(dag_spawn(square_of, Val(5)), &v), DAG_OK);   /* the parent runs on */
    CHECK_EQ_INT(v, 25);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    /* forked after dag_shutdown, the child sets up its own */
    child = fork();
    if (child == 0) {
        int w = 0;
        bool ok = dag_setup(&(dag_desc){ .num_threads = 2 }) == DAG_OK && dag_fetch(dag_spawn(square_of, Val(6)), &w) == DAG_OK;
        _exit(ok && w == 36 && dag_shutdown() == DAG_OK ? 0 : 1);
    }
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(a_task_handed_to_a_sleeping_worker_wakes_it_every_time) {
    dag_wait_policy policies[] = { DAG_WAIT_PASSIVE, DAG_WAIT_DEFAULT };
    for (int p = 0; p < 2; p++) {
        setup_with(2, policies[p], 1);   /* DEFAULT with a 1 us window: spin, then sleep, every hop */
        atomic_store(&hops_left, test_scaled(20000, 2000));
        dag_spawn_with(&(dag_options){ .scope = dag_scope(.thread = 2) }, hop, Val(2));
        CHECK_EQ_INT(dag_wait_all(), DAG_OK);
        CHECK(atomic_load(&hops_left) <= 0);
        dag_shutdown();
    }
}

/* Threads outside the pool spawn in bursts with random gaps while the
   workers fall asleep and wake; each waits for its own tasks (a sleeping
   waiter is woken by the task it waits for). */
enum { PRODUCERS = 4 };
static atomic_long produced_sum;
DAG_TASK(long, produce_one, (long, v)) { return v; }
static void *producer(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u;
    int rounds = test_scaled(2000, 100);
    for (int r = 0; r < rounds; r++) {
        dag_task t[4];
        int n = 1 + (int)(seed % 4);
        for (int i = 0; i < n; i++) t[i] = dag_spawn(produce_one, Val((long)(r * 4 + i)));
        for (int i = 0; i < n; i++) {
            long v = -1;
            if (dag_fetch(t[i], &v) == DAG_OK) atomic_fetch_add(&produced_sum, v);
        }
        seed = seed * 1103515245u + 12345u;
        if (seed % 3 == 0) test_spin_us(seed % 50);   /* let the workers fall asleep, or not */
    }
    return NULL;
}

TEST(producers_and_sleepers_racing_never_lose_a_wake_up) {
    dag_wait_policy policies[] = { DAG_WAIT_PASSIVE, DAG_WAIT_DEFAULT };
    for (int p = 0; p < 2; p++) {
        for (int threads = 1; threads <= 3; threads++) {
            setup_with(threads, policies[p], 5);
            atomic_store(&produced_sum, 0);
            pthread_t th[PRODUCERS];
            for (int i = 0; i < PRODUCERS; i++) pthread_create(&th[i], NULL, producer, (void *)(uintptr_t)(i + 1));
            for (int i = 0; i < PRODUCERS; i++) pthread_join(th[i], NULL);
            long want = 0;
            for (int i = 0; i < PRODUCERS; i++) {
                unsigned seed = (unsigned)(i + 1) * 2654435761u;
                for (int r = 0; r < test_scaled(2000, 100); r++) {
                    int n = 1 + (int)(seed % 4);
                    for (int k = 0; k < n; k++) want += r * 4 + k;
                    seed = seed * 1103515245u + 12345u;
                }
            }
            CHECK_EQ_INT(atomic_load(&produced_sum), want);
            dag_shutdown();
        }
    }
}

/* A body spawns a child and waits for it spinning on a flag (it runs
   nothing else meanwhile), as the main thread (worker 1) waits for the body,
   while the third worker falls asleep, at random moments: only the spawn's
   wake-up can get the child run. The spawn's side of that wake-up has no fence of its
   own where the sleeper's makes every thread pass one (see >>sleep in
   dag.h), so this is where a mistake there would hang. */
static atomic_int child_ran, body_done;
DAG_TASK(void, sets_child_ran, (int, unused)) {
    (void)unused;
    atomic_store(&child_ran, 1);
}
DAG_TASK(void, spawns_and_spins, (int, delay_us)) {
    test_spin_us((unsigned)delay_us);   /* the other worker may be falling asleep */
    atomic_store(&child_ran, 0);
    dag_spawn(sets_child_ran, Val(0));
    while (!atomic_load(&child_ran)) thrd_yield();
    atomic_store(&body_done, 1);
}
TEST(a_body_that_spins_for_its_child_gets_it_run_by_the_worker_its_spawn_wakes) {
    dag_wait_policy policies[] = { DAG_WAIT_PASSIVE, DAG_WAIT_DEFAULT };
    for (int p = 0; p < 2; p++) {
        setup_with(3, policies[p], 3);   /* the main thread and two workers: the body's, and the child's */
        int rounds = test_scaled(3000, 300);
        for (int r = 0; r < rounds; r++) {
            atomic_store(&body_done, 0);
            dag_release(dag_spawn(spawns_and_spins, Val(r * 7 % 23)));
            while (!atomic_load(&body_done)) thrd_yield();   /* not dag_wait: the main thread runs no task */
        }
        CHECK_EQ_INT(dag_wait_all(), DAG_OK);
        dag_shutdown();
    }
}

/* The main thread sleeps in a region's end while the region's last task
   finishes on another worker. */
DAG_TASK(void, slow_cell, (double *, x), (int, us)) { test_spin_us((unsigned)us); *x += 1; }
TEST(a_region_whose_last_task_ends_elsewhere_wakes_its_sleeping_waiter) {
    setup_with(2, DAG_WAIT_PASSIVE, 0);
    static double x[2];
    int rounds = test_scaled(3000, 300);
    for (int r = 0; r < rounds; r++) {
        DAG_DATADEPS {
            dag_spawn_with(&(dag_options){ .scope = dag_scope(.thread = 2) }, slow_cell, InOut(&x[0], 1), Val(r % 7 * 10));
        }
    }
    CHECK(x[0] == rounds);
    dag_shutdown();
}

int main(int argc, char **argv) {
    test_program = argv[0];
    if (argc >= 3 && strcmp(argv[1], "--exit-without-shutdown") == 0) return exit_without_shutdown(argv[2], argc > 3);
    watchdog_start();
    RUN(an_active_pool_never_sleeps);
    RUN(a_passive_pool_sleeps_at_once_and_uses_no_cpu_while_idle);
    RUN(the_default_policy_spins_its_block_time_then_sleeps_and_uses_no_cpu);
    RUN(the_environment_sets_what_the_desc_leaves_at_zero);
    RUN(values_that_do_not_parse_are_named_and_ignored);
    RUN(dag_log_and_log_level_choose_the_least_severe_message_delivered);
    RUN(dag_trace_records_from_the_start_and_writes_the_trace_at_shutdown);
    RUN(a_program_that_ends_without_dag_shutdown_gets_its_trace_at_exit_or_a_warning);
    RUN(dag_devices_that_do_not_parse_are_named_and_every_device_is_used);
    RUN(a_child_of_fork_is_refused_by_name_and_its_shutdown_does_not_crash);
    RUN(a_task_handed_to_a_sleeping_worker_wakes_it_every_time);
    RUN(producers_and_sleepers_racing_never_lose_a_wake_up);
    RUN(a_region_whose_last_task_ends_elsewhere_wakes_its_sleeping_waiter);
    RUN(a_body_that_spins_for_its_child_gets_it_run_by_the_worker_its_spawn_wakes);
    return test_summary();
}
