/* dag_threads.h: the thread layer of dag.h.
 *
 * Included only by dag.h's implementation. It maps a handful of primitives
 * (thread, mutex, condition variable, yield, sleep) onto C11 <threads.h>, or
 * onto pthreads where <threads.h> is missing (__STDC_NO_THREADS__, macOS) or
 * when DAG_USE_PTHREADS is defined. ThreadSanitizer crashes on glibc's
 * thrd_create, so sanitizer builds use the pthreads mapping.
 *
 * Everything here is private: names start with dag__.
 */
#ifndef DAG_THREADS_H_INCLUDED
#define DAG_THREADS_H_INCLUDED

#include <time.h>

#if !defined(DAG_USE_PTHREADS) && defined(__STDC_NO_THREADS__)
#define DAG_USE_PTHREADS
#endif

#if defined(DAG_USE_PTHREADS)
#include <pthread.h>
#include <sched.h>
typedef pthread_t dag__thread;
typedef pthread_mutex_t dag__mutex;
typedef pthread_cond_t dag__cond;
typedef void *(*dag__pthread_fn)(void *);

typedef struct dag__thread_start {
    int (*fn)(void *);
    void *arg;
} dag__thread_start;

static void *dag__pthread_trampoline(void *p) {
    dag__thread_start s = *(dag__thread_start *)p;
    free(p);
    return (void *)(intptr_t)s.fn(s.arg);
}
static int dag__thread_create(dag__thread *t, int (*fn)(void *), void *arg) {
    dag__thread_start *s = (dag__thread_start *)malloc(sizeof *s);
    if (!s) return -1;
    s->fn = fn;
    s->arg = arg;
    if (pthread_create(t, NULL, dag__pthread_trampoline, s) != 0) {
        free(s);
        return -1;
    }
    return 0;
}
static void dag__thread_join(dag__thread t) { pthread_join(t, NULL); }
static void dag__mutex_init(dag__mutex *m) { pthread_mutex_init(m, NULL); }
static void dag__mutex_destroy(dag__mutex *m) { pthread_mutex_destroy(m); }
static void dag__mutex_lock(dag__mutex *m) { pthread_mutex_lock(m); }
static void dag__mutex_unlock(dag__mutex *m) { pthread_mutex_unlock(m); }
static void dag__cond_init(dag__cond *c) { pthread_cond_init(c, NULL); }
static void dag__cond_destroy(dag__cond *c) { pthread_cond_destroy(c); }
static void dag__cond_signal(dag__cond *c) { pthread_cond_signal(c); }
/* Waits at most until the absolute TIME_UTC deadline. */
static void dag__cond_timedwait(dag__cond *c, dag__mutex *m, const struct timespec *deadline) {
    pthread_cond_timedwait(c, m, deadline);
}
static void dag__thread_yield(void) { sched_yield(); }
#else
#include <threads.h>
typedef thrd_t dag__thread;
typedef mtx_t dag__mutex;
typedef cnd_t dag__cond;

static int dag__thread_create(dag__thread *t, int (*fn)(void *), void *arg) {
    return thrd_create(t, fn, arg) == thrd_success ? 0 : -1;
}
static void dag__thread_join(dag__thread t) { thrd_join(t, NULL); }
static void dag__mutex_init(dag__mutex *m) { mtx_init(m, mtx_plain); }
static void dag__mutex_destroy(dag__mutex *m) { mtx_destroy(m); }
static void dag__mutex_lock(dag__mutex *m) { mtx_lock(m); }
static void dag__mutex_unlock(dag__mutex *m) { mtx_unlock(m); }
static void dag__cond_init(dag__cond *c) { cnd_init(c); }
static void dag__cond_destroy(dag__cond *c) { cnd_destroy(c); }
static void dag__cond_signal(dag__cond *c) { cnd_signal(c); }
static void dag__cond_timedwait(dag__cond *c, dag__mutex *m, const struct timespec *deadline) {
    cnd_timedwait(c, m, deadline);
}
static void dag__thread_yield(void) { thrd_yield(); }
#endif

/* Nanoseconds on the TIME_UTC clock. C11 hides clock_gettime under -std=c11,
 * so timespec_get is the portable choice. */
static uint64_t dag__now_ns(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Number of online cores, or 0 if unknown. */
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
static int dag__core_count(void) {
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 0;
#else
    return 0;
#endif
}

#endif /* DAG_THREADS_H_INCLUDED */
