/* The OpenCL backend, built with -DDAG_BACKEND_OPENCL, run twice by make:
     POCL_DEVICES="pthread pthread pthread"  -> DAG_TEST_CL_DEVICES=3
     OCL_ICD_VENDORS=<an empty folder>       -> DAG_TEST_CL_DEVICES=0
   With devices it finds them all; without, it says why (the loader's own
   error) and every task still runs on the CPU. */
#define DAG_IMPLEMENTATION
#include "dag_kernels.h"
#include "test.h"

DAG_KERNEL(axpy_cl, ((double, a), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] += a * x[i];
)

static int expect_devices = -1;
static int info_logged;
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_INFO && strstr(msg, "OpenCL")) info_logged = 1;
}

DAG_TASK(int, add, (int, a), (int, b)) { return a + b; }

TEST(the_opencl_backend_finds_the_devices_there_are_or_says_why_not) {
    const char *status = dag_backend_status(DAG_OPENCL);
    printf("     %s\n", status);
    CHECK(info_logged);
    if (expect_devices > 0) {
        CHECK(dag_backend_available(DAG_OPENCL));
        CHECK_EQ_INT(dag_device_count(DAG_OPENCL), expect_devices);
        CHECK(strstr(status, "OpenCL device(s)") != NULL);
    } else {
        CHECK(!dag_backend_available(DAG_OPENCL));
        CHECK_EQ_INT(dag_device_count(DAG_OPENCL), 0);
        CHECK(strstr(status, "unavailable") != NULL);
        CHECK(strstr(status, "-1001") != NULL || strstr(status, "cannot load") != NULL);
    }
}

TEST(tasks_run_on_the_cpu_whatever_the_devices) {
    int v = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(add, Val(40), Val(2)), &v), DAG_OK);
    CHECK_EQ_INT(v, 42);
    CHECK(dag_backend_available(DAG_CPU));
    CHECK_EQ_INT(dag_device_count(DAG_CPU), dag_num_threads());
}

TEST(backends_not_compiled_in_say_how_to_get_them) {
    CHECK(!dag_backend_available(DAG_CUDA));
    CHECK(strstr(dag_backend_status(DAG_CUDA), "-DDAG_BACKEND_CUDA") != NULL);
    CHECK(!dag_backend_available(DAG_BACKEND_COUNT));
}

/* The device operations of the backend, driven directly until the device
   layer does: the generated OpenCL text of a DAG_KERNEL built and run on
   every device, with a range that is not a multiple of the group size. */
TEST(the_same_kernel_text_runs_on_every_opencl_device_like_on_the_cpu) {
    if (expect_devices <= 0) return;
    enum { N = 1000 };
    static double x[N], y[N], want[N];
    char *src = dag_kernel_opencl_source(&axpy_cl__cl);
    CHECK(src != NULL);
    for (int dev = 0; src && dev < dag_device_count(DAG_OPENCL); dev++) {
        for (int i = 0; i < N; i++) { x[i] = i * 0.5; y[i] = want[i] = 1.0 + dev; }
        DAG_DATADEPS { dag_spawn(DAG_LAUNCH(axpy_cl, N), Val(3.0), In(x, N), InOut(want, N)); }
        char log[2048];
        dag__cl_kernel k = dag__cl_build(dev, src, "axpy_cl", log, sizeof log);
        CHECK(k != NULL);
        if (!k) { printf("     build log: %s\n", log); continue; }
        dag__cl_mem bx = dag__cl_alloc(dev, sizeof x), by = dag__cl_alloc(dev, sizeof y);
        CHECK(bx && by);
        double a = 3.0;
        dag__cl_arg args[3] = { { &a, sizeof a, NULL }, { NULL, 0, bx }, { NULL, 0, by } };
        dag__cl_event done = NULL;
        CHECK_EQ_INT(dag__cl_write(dev, bx, 0, x, sizeof x, NULL), 0);
        CHECK_EQ_INT(dag__cl_write(dev, by, 0, y, sizeof y, NULL), 0);
        CHECK_EQ_INT(dag__cl_launch(dev, k, N, args, 3, NULL), 0);
        CHECK_EQ_INT(dag__cl_read(dev, by, 0, y, sizeof y, &done), 0);
        CHECK_EQ_INT(dag__cl_wait(done), 0);
        CHECK(memcmp(y, want, sizeof y) == 0);
        dag__cl_free(bx);
        dag__cl_free(by);
        dag__cl_release_kernel(k);
    }
    free(src);
}

TEST(a_kernel_with_a_syntax_error_comes_back_with_the_compiler_log) {
    if (expect_devices <= 0) return;
    char log[4096];
    dag__cl_kernel k = dag__cl_build(0, "__kernel void broken(__global int *p) { p[0] = ; }", "broken", log, sizeof log);
    CHECK(k == NULL);
    CHECK(strstr(log, "error") != NULL);
}

int main(void) {
    watchdog_start();
    const char *e = getenv("DAG_TEST_CL_DEVICES");
    if (e) expect_devices = atoi(e);
    if (expect_devices < 0) {
        printf("skipped: set DAG_TEST_CL_DEVICES to the number of OpenCL devices expected\n");
        return 0;
    }
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    RUN(the_opencl_backend_finds_the_devices_there_are_or_says_why_not);
    RUN(tasks_run_on_the_cpu_whatever_the_devices);
    RUN(backends_not_compiled_in_say_how_to_get_them);
    RUN(the_same_kernel_text_runs_on_every_opencl_device_like_on_the_cpu);
    RUN(a_kernel_with_a_syntax_error_comes_back_with_the_compiler_log);
    dag_shutdown();
    return test_summary();
}
