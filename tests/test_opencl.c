/* The OpenCL backend, built with -DDAG_BACKEND_OPENCL, run twice by make:
     POCL_DEVICES="pthread pthread pthread"  -> DAG_TEST_CL_DEVICES=3
     OCL_ICD_VENDORS=<an empty folder>       -> DAG_TEST_CL_DEVICES=0
   With devices it finds them all; without, it says why (the loader's own
   error) and every task still runs on the CPU. */
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

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
    dag_shutdown();
    return test_summary();
}
