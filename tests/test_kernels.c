/* Portable kernels (dag_kernels.h): one source, run on the CPU workers, and
   the same text as OpenCL C. `test_kernels --write-cl DIR` writes each
   kernel's OpenCL source to DIR for `make check-compile` to compile. */
#define DAG_IMPLEMENTATION
#include "dag_kernels.h"
#include "test.h"

DAG_KERNEL(axpy_d, ((double, a), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] += a * x[i];
)
DAG_KERNEL(axpy_f, ((float, a), (DAG_GLOBAL const float *, x), (DAG_GLOBAL float *, y)),
    size_t i = DAG_INDEX();
    y[i] = y[i] + a * x[i];
)
DAG_KERNEL(saxpy_i, ((int, a), (DAG_GLOBAL const int *, x), (DAG_GLOBAL int *, y)),
    size_t i = DAG_INDEX();
    y[i] = a * x[i] + y[i] * 3 - (int)(i % 7);
)
DAG_KERNEL(count_visits, ((DAG_GLOBAL int *, seen)),
    seen[DAG_INDEX()] += 1;
)
DAG_TASK(double, sum_d, (const double *, y), (size_t, n)) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += y[i];
    return s;
}

enum { N = 100003 };   /* not a multiple of anything: ragged chunks */
static double xd[N], yd[N], rd[N];
static float xf[N], yf[N], rf[N];
static int xi[N], yi[N], ri[N], seen[N];

TEST(a_kernel_on_the_cpu_matches_a_plain_loop_for_double_float_and_int) {
    for (int i = 0; i < N; i++) {
        xd[i] = rd[i] = i * 0.5; yd[i] = rd[i] = 1.0 / (i + 1); xd[i] = i * 0.5;
        xf[i] = (float)i * 0.25f; yf[i] = rf[i] = (float)(i % 13);
        xi[i] = i % 1000; yi[i] = ri[i] = i % 17;
    }
    for (int i = 0; i < N; i++) {
        rd[i] += 2.5 * xd[i];
        rf[i] = rf[i] + 1.5f * xf[i];
        ri[i] = 3 * xi[i] + ri[i] * 3 - (int)(i % 7);
    }
    DAG_DATADEPS {
        dag_spawn(DAG_LAUNCH(axpy_d, N), Val(2.5), In(xd, N), InOut(yd, N));
        dag_spawn(DAG_LAUNCH(axpy_f, N), Val(1.5f), In(xf, N), InOut(yf, N));
        dag_spawn(DAG_LAUNCH(saxpy_i, N), Val(3), In(xi, N), InOut(yi, N));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK(memcmp(yd, rd, sizeof yd) == 0);
    CHECK(memcmp(yf, rf, sizeof yf) == 0);
    CHECK(memcmp(yi, ri, sizeof yi) == 0);
}

TEST(every_index_of_a_launch_runs_exactly_once) {
    memset(seen, 0, sizeof seen);
    for (size_t n = 0; n <= 3; n++) {   /* tiny ranges, the empty one included */
        DAG_DATADEPS { dag_spawn(DAG_LAUNCH(count_visits, n), InOut(seen, N)); }
    }
    DAG_DATADEPS { dag_spawn(DAG_LAUNCH(count_visits, N), InOut(seen, N)); }
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += seen[i] != 1 + (i < 3) + (i < 2) + (i < 1);
    CHECK_EQ_INT(wrong, 0);
}

TEST(a_chain_of_kernels_then_a_task_sees_current_data) {
    for (int i = 0; i < N; i++) { xd[i] = 1.0; yd[i] = 0.0; }
    double total = 0;
    DAG_DATADEPS {
        for (int k = 0; k < 10; k++) dag_spawn(DAG_LAUNCH(axpy_d, N), Val(1.0), In(xd, N), InOut(yd, N));
        dag_fetch(dag_spawn(sum_d, In(yd, N), Val((size_t)N)), &total);
    }
    CHECK(total == 10.0 * N);
}

TEST(the_opencl_source_has_the_guard_the_index_and_global_pointers) {
    char *s = dag_kernel_opencl_source(&axpy_d__cl);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strstr(s, "__kernel void dag_k_axpy_d(ulong dag__n, double a, DAG_GLOBAL const double * x, DAG_GLOBAL double * y)") != NULL);
    CHECK(strstr(s, "#define DAG_GLOBAL __global") != NULL);
    CHECK(strstr(s, "if (dag__index >= dag__n) return;") != NULL);
    CHECK(strstr(s, "y[i] += a * x[i];") != NULL);
    free(s);
}

static int write_cl(const char *dir) {
    const dag_kernel_source *all[] = { &axpy_d__cl, &axpy_f__cl, &saxpy_i__cl, &count_visits__cl };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.cl", dir, all[i]->name);
        FILE *f = fopen(path, "w");
        char *s = dag_kernel_opencl_source(all[i]);
        if (!f || !s) return 1;
        fputs(s, f);
        fclose(f);
        free(s);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--write-cl")) return write_cl(argv[2]);
    watchdog_start();
    dag_setup(NULL);
    RUN(a_kernel_on_the_cpu_matches_a_plain_loop_for_double_float_and_int);
    RUN(every_index_of_a_launch_runs_exactly_once);
    RUN(a_chain_of_kernels_then_a_task_sees_current_data);
    RUN(the_opencl_source_has_the_guard_the_index_and_global_pointers);
    dag_shutdown();
    return test_summary();
}
