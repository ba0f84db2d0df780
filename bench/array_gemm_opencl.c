/* bench/array_gemm_opencl.c: dag_array_gemm on an OpenCL device through
   CLBlast, against CLBlast called directly and against dag_blas.h's own
   kernel text, in one run, interleaved round by round.

     dag+CLBlast   dag_array_from_host, dag_array_gemm under a scope on
                   device 1, dag_array_collect: tiles, their copies and
                   CLBlastDgemm per tile product, all from the runtime
     CLBlast       the peer: one CLBlastDgemm on the whole matrix, with one
                   write per operand before and one read after, on the same
                   device (OpenCL's own API, bench/cl_raw.h)
     dag+text      as dag+CLBlast with dag_desc.no_library_kernels: the
                   DAG_KERNEL text of dag_dgemm, built by the driver

   C = A B, N x N doubles, tiles NB. GFLOP/s counts 2 N^3 and every side's
   time includes its copies. Run: make bench-opencl (POCL_DEVICES=pthread,
   one device on every core). */
#define DAG_IMPLEMENTATION
#define DAG_BACKEND_OPENCL
#include "dag_array.h"
#include "bench_common.h"
#include "cl_raw.h"
#include <math.h>

enum { N = 1024, NB = 256, ROUNDS = 3 };
static cl_raw raw;
static cl_raw_dgemm_fn clblast_dgemm;
static double a[N * N], b[N * N], c[N * N];

static double checksum(void) {   /* weighted, so that entries cannot cancel */
    double s = 0;
    for (int i = 0; i < N * N; i++) s += c[i] * (double)(1 + i % 7);
    return s;
}

static double dag_side(void) {
    memset(c, 0, sizeof c);
    double t0 = now_s();
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    dag_array *B = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), b, DAG_COL_MAJOR, N);
    dag_array *C = dag_array_zeros(DAG_F64, N, N, dag_blocks(NB, NB));
    DAG_WITH_OPTIONS(.scope = dag_scope(.opencl.one = 1)) { dag_array_gemm(0, 0, 1.0, A, B, 0.0, C); }
    dag_array_collect(C, c, DAG_COL_MAJOR, N);
    double s = now_s() - t0;
    dag_array_free(A), dag_array_free(B), dag_array_free(C);
    return s;
}

static double clblast_side(void) {
    size_t bytes = sizeof a;
    cl_int e = 0;
    memset(c, 0, sizeof c);
    double t0 = now_s();
    cl_mem ma = clCreateBuffer(raw.context, CL_MEM_READ_WRITE, bytes, NULL, &e),
           mb = clCreateBuffer(raw.context, CL_MEM_READ_WRITE, bytes, NULL, &e),
           mc = clCreateBuffer(raw.context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    clEnqueueWriteBuffer(raw.queue, ma, CL_FALSE, 0, bytes, a, 0, NULL, NULL);
    clEnqueueWriteBuffer(raw.queue, mb, CL_FALSE, 0, bytes, b, 0, NULL, NULL);
    int r = clblast_dgemm(CL_RAW_COL_MAJOR, CL_RAW_NO_TRANSPOSE, CL_RAW_NO_TRANSPOSE, N, N, N, 1.0, ma, 0, N, mb, 0, N,
                          0.0, mc, 0, N, &raw.queue, NULL);
    clEnqueueReadBuffer(raw.queue, mc, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
    double s = now_s() - t0;
    clReleaseMemObject(ma), clReleaseMemObject(mb), clReleaseMemObject(mc);
    return r == 0 ? s : -1;
}

static void setup(int text) {
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .no_library_kernels = text });
}

static int cmp(const void *x, const void *y) {
    double p = *(const double *)x, q = *(const double *)y;
    return p < q ? -1 : p > q;
}

int main(void) {
    for (int i = 0; i < N * N; i++) a[i] = (double)(i % 17) * 0.125 - 1.0, b[i] = (double)(i % 11) * 0.25 - 1.25;
    setup(0);
    if (dag_device_count(DAG_OPENCL) < 1) {
        printf("array_gemm_opencl: no OpenCL device (%s)\n", dag_backend_status(DAG_OPENCL));
        dag_shutdown();
        return 0;
    }
    if (cl_raw_open(&raw) != 0) {
        printf("array_gemm_opencl: OpenCL's own API found no device\n");
        return 1;
    }
    clblast_dgemm = cl_raw_clblast_dgemm();
    bool clblast = clblast_dgemm != NULL;
    printf("dag_array_gemm on OpenCL device 1 (%s), N = %d, tiles %d, %d rounds\n", raw.name, N, NB, ROUNDS);
    if (!clblast) printf("  libclblast.so.1 does not load: the kernel text only\n");
    double t[3][ROUNDS], sums[3] = { 0 };
    for (int r = 0; r < ROUNDS; r++) {
        setup(0);
        if (clblast) {
            if (r == 0) dag_side(), clblast_side();   /* CLBlast builds its kernels on first use */
            t[0][r] = dag_side(), sums[0] = checksum();
            t[1][r] = clblast_side(), sums[1] = checksum();
        }
        setup(1);
        if (r == 0) dag_side();
        t[2][r] = dag_side(), sums[2] = checksum();
    }
    dag_shutdown();
    cl_raw_close(&raw);
    const char *who[3] = { "dag+CLBlast", "CLBlast, whole matrix", "dag+kernel text" };
    double med[3];
    for (int s = clblast ? 0 : 2; s < 3; s++) {
        qsort(t[s], ROUNDS, sizeof(double), cmp);
        med[s] = t[s][ROUNDS / 2];
        double f = 2.0 * N * N * (double)N * 1e-9;
        printf("  %-22s %7.2f / %7.2f GFLOP/s (best / median)   checksum %.6e\n", who[s], f / t[s][0], f / med[s], sums[s]);
    }
    if (clblast) {
        printf("  dag+CLBlast vs CLBlast direct: %.2fx; vs the kernel text: %.2fx (median; above 1: dag+CLBlast faster)\n",
               med[1] / med[0], med[2] / med[0]);
        if (fabs(sums[0] - sums[1]) > 1e-9 * fabs(sums[1]) || fabs(sums[2] - sums[1]) > 1e-9 * fabs(sums[1])) {
            printf("RESULTS DISAGREE\n");
            return 1;
        }
    }
    return 0;
}
