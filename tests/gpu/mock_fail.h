/* mock_fail.h: injected failures for the mock runtimes (mock_hip.c,
   mock_ze.c, mock_cublas.c). Any entry point that starts with INJECT(error)
   returns `error` on its nth call from now:
     MOCK_FAIL=<function>:<nth>        in the environment (from start-up), or
     mock_fail("<function>", nth)      from a test (found with dlsym; nth 0 disarms), or
     mock_fail_with("<function>", nth, code)   the same, returning `code` instead of its own error
                                       (a zeMemAllocDevice that loses the device, not one that is full).
   mock_failures() says how many failures were injected so far, so a test
   knows its failure really happened; mock_calls("<function>") how many
   calls of an entry point with INJECT there were. */
#ifndef MOCK_FAIL_H
#define MOCK_FAIL_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static char fail_fn[64];
static long fail_nth, fail_count, fail_code;
static int fail_env_read;

__attribute__((visibility("default"))) void mock_fail_with(const char *fn, long nth, long code) {
    pthread_mutex_lock(&fail_mu);
    fail_env_read = 1;
    snprintf(fail_fn, sizeof fail_fn, "%s", fn ? fn : "");
    fail_nth = nth;
    fail_code = code;
    pthread_mutex_unlock(&fail_mu);
}
__attribute__((visibility("default"))) void mock_fail(const char *fn, long nth) { mock_fail_with(fn, nth, 0); }
__attribute__((visibility("default"))) long mock_failures(void) {
    pthread_mutex_lock(&fail_mu);
    long n = fail_count;
    pthread_mutex_unlock(&fail_mu);
    return n;
}
static struct { const char *fn; long calls; } calls_of[96];
__attribute__((visibility("default"))) long mock_calls(const char *fn) {
    long n = 0;
    pthread_mutex_lock(&fail_mu);
    for (int i = 0; i < 96 && calls_of[i].fn; i++)
        if (!strcmp(calls_of[i].fn, fn)) n = calls_of[i].calls;
    pthread_mutex_unlock(&fail_mu);
    return n;
}
/* Whether fn fails now; *code: the error asked for, 0 for fn's own. Counts the call. */
static int mock_inject(const char *fn, long *code) {
    pthread_mutex_lock(&fail_mu);
    int c = 0;
    while (c < 96 && calls_of[c].fn && strcmp(calls_of[c].fn, fn)) c++;
    if (c < 96) calls_of[c].fn = fn, calls_of[c].calls++;
    if (!fail_env_read) {
        fail_env_read = 1;
        const char *e = getenv("MOCK_FAIL"), *colon = e ? strchr(e, ':') : NULL;
        if (colon && (size_t)(colon - e) < sizeof fail_fn) {
            memcpy(fail_fn, e, (size_t)(colon - e));
            fail_fn[colon - e] = 0;
            fail_nth = atol(colon + 1);
        }
    }
    int hit = fail_nth > 0 && strcmp(fn, fail_fn) == 0 && --fail_nth == 0;
    *code = hit ? fail_code : 0;
    if (hit) {
        fail_count++;
        fprintf(stderr, "mock: injected failure of %s\n", fn);
    }
    pthread_mutex_unlock(&fail_mu);
    return hit;
}
/* For a release (a free, a destroy): the object still goes, and the call reports the error, as a
   runtime reports an earlier asynchronous error at a release. Declares `late`, for LATE_RESULT. */
#define INJECT_LATE long late_code_ = 0; const int late_ = mock_inject(__func__, &late_code_)
#define LATE_RESULT(ok, error) (late_ ? (late_code_ ? late_code_ : (error)) : (ok))
#define INJECT(error) \
    do { \
        long code_; \
        if (mock_inject(__func__, &code_)) return code_ ? code_ : (error); \
    } while (0)
#endif
