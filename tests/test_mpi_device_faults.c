/* The rank layer and the device layer together, with failures injected
   into the mock HIP runtime (tests/gpu/mock_hip.c, found through
   LD_LIBRARY_PATH): a rank whose device fails while another rank waits
   for its data must fail that rank's region too, never leave it waiting.
   make test-mpi runs it on 2 and 3 ranks; without the mock (no device, or
   another runtime) each test is not applicable. */
#define DAG_IMPLEMENTATION
#include "dag_array.h"
#include "test.h"
#include "mpi_harness.h"
#include "kernels.h"
#include <dlfcn.h>

static bool mock_fail_at(const char *fn, long nth) {
    void *sym = dag__hip.lib ? dlsym(dag__hip.lib, "mock_fail") : NULL;
    void (*f)(const char *, long) = NULL;
    memcpy(&f, &sym, sizeof sym);
    if (f) f(fn, nth);
    return f != NULL;
}
static bool have_mock_hip(void) { return dag_device_count(DAG_HIP) > 0 && mock_fail_at(NULL, 0); }

DAG_TASK(void, total, (const double *, x), (double *, y), (int, n)) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    y[0] = s;
}

/* x lives on rank 0 and stays on its device after a kernel wrote it (resident); a task on the last
   rank reads it, so rank 0 first brings it home, and that copy fails there. The send still tells the
   last rank (the failure instead of the data): every rank's region fails, and nothing hangs. The same
   when the last rank's device holds the only current copy and the region end's send home fails. */
TEST(a_device_failure_before_a_send_fails_the_region_on_every_rank_and_nothing_hangs) {
    setup(2);
    if (!have_mock_hip()) {
        dag_shutdown();
        agree_on_failures();
        NOT_APPLICABLE("needs the mock HIP runtime (LD_LIBRARY_PATH=build/gpu/mock_hip)");
    }
    int me = dag_rank(), last = dag_num_ranks() - 1;
    enum { N = 4096 };
    static double x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = 1;
    y[0] = -1;
    dag_data hx = dag_data_register_resident_tile_on(0, me == 0 ? x : NULL, 1, N, N, sizeof(double));
    dag_data hy = dag_data_register_on(last, me == last ? y : NULL, N, sizeof(double));
    dag_scope dev;
    memset(&dev, 0, sizeof dev);
    dev.hip.one = 1;
    DAG_DATADEPS { dag_spawn_with(DAG_OPTIONS(.scope = dev), DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(hx), InOut(hx)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);   /* x = 2, on rank 0's device */
    if (me == 0) mock_fail_at("hipEventSynchronize", 1);   /* the copy home before the send */
    DAG_DATADEPS { dag_spawn(total, In(hx), InOut(hy), Val(N)); }   /* on the last rank */
    mock_fail_at(NULL, 0);
    if (last > 0) CHECK(dag_last_region_result() != DAG_OK);   /* on every rank */
    if (me == last && last > 0) CHECK(y[0] == -1);   /* never summed stale bytes as if they were x */
    /* the region end's send home fails on the last rank, whose device wrote x */
    dag_scope dev_last = dev;
    dev_last.rank = DAG_RANK(last);
    if (me == last) mock_fail_at("hipEventSynchronize", 1);
    DAG_DATADEPS { dag_spawn_with(DAG_OPTIONS(.scope = dev_last), DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(hx), InOut(hx)); }
    mock_fail_at(NULL, 0);
    if (last > 0) CHECK(dag_last_region_result() != DAG_OK);
    /* and the ranks go on together */
    DAG_DATADEPS { dag_spawn(total, In(hx), InOut(hy), Val(N)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    dag_data_unregister(hx);
    dag_data_unregister(hy);
    dag_shutdown();
    agree_on_failures();
}

int main(int argc, char **argv) {
    if (!mpi_suite_start(&argc, &argv)) return 1;
    RUN_ALL(a_device_failure_before_a_send_fails_the_region_on_every_rank_and_nothing_hangs);
    int failed = test_summary();
    MPI_Finalize();
    return failed;
}
