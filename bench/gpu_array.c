/* bench/gpu_array.c: dag_array on a CUDA GPU against cuBLAS and cuSOLVER
   called directly, in one binary, the two sides interleaved round by round;
   each row prints the median of each side and dag.h / vendor:
   - gemm on the GPU: one cublasDgemm on three device matrices against
     dag_array_gemm on tiles already on the GPU (resident);
   - gemm from host memory and back: cudaMemcpy of A, B and C, cublasDgemm,
     C back, against dag_array_gemm on arrays whose tiles only host memory
     holds, then dag_synchronize(DAG_CUDA);
   - potrf from host memory and back: the same with cusolverDnDpotrf;
   - potrf on the GPU: cusolverDnDpotrf alone against dag_array_potrf on
     resident tiles;
   - posv from host memory and back: cusolverDnDpotrf and Dpotrs against
     dag_array_posv (NRHS right-hand sides);
   - potrf past the device's memory: dag_array_potrf with
     dag_desc.device_memory_limit at 2/3 of the matrix (evicting), against
     its in-core run of the same round;
   - the kernel chain of bench/gpu_chain.h (1,000 small kernels).
   Sides that stay on the GPU end with cudaDeviceSynchronize (dag_array
   operations return once their tasks are queued on the device); sides from
   host memory end with their results in host memory. Every dag.h result is
   checked against the vendor's (largest relative difference printed).

   Usage: gpu_array [N ...] (default 8192 16384); the tiles: NB_GEMM (2048),
   NB_POTRF (1024) and ROUNDS (3) from the environment; TRACE=dir writes the
   last round's trace of each size there (gpu_array_N.json, for Perfetto). Where no CUDA device
   exists it prints "skipped:" and why.

   Run: make bench-gpu-array [ARGS="4096"] */
#define DAG_IMPLEMENTATION
#include "kernels.h"
#include "gpu_chain.h"
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <math.h>

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}

/* ---- the vendor side: one stream, one handle each, the matrices on the device ---- */
static struct {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    double *a, *b, *c, *work;
    int *info, lwork;
} v;

static double vendor_sync(double t0) {
    cudaStreamSynchronize(v.stream);
    return now_s() - t0;
}
static void to_device(double *d, const double *h, size_t count) {
    cudaMemcpyAsync(d, h, count * sizeof(double), cudaMemcpyHostToDevice, v.stream);
}
static void to_host(double *h, const double *d, size_t count) {
    cudaMemcpyAsync(h, d, count * sizeof(double), cudaMemcpyDeviceToHost, v.stream);
}
static double vendor_gemm(int n, const double *a, const double *b, double *c, bool copies) {
    const double one = 1.0, zero = 0.0;
    size_t nn = (size_t)n * n;
    double t0 = now_s();
    if (copies) to_device(v.a, a, nn), to_device(v.b, b, nn);
    cublasDgemm(v.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, v.a, n, v.b, n, &zero, v.c, n);
    if (copies) to_host(c, v.c, nn);
    return vendor_sync(t0);
}
/* potrf (and potrs of nrhs columns when b): from host memory and back (the factor into l, when
   given), or on A already there */
static double vendor_potrf(int n, const double *a, double *l, const double *b, double *x, int nrhs, bool copies) {
    size_t nn = (size_t)n * n;
    if (!copies) {   /* A put back on the device first, untimed */
        to_device(v.a, a, nn);
        vendor_sync(now_s());
    }
    double t0 = now_s();
    if (copies) to_device(v.a, a, nn);
    if (b) to_device(v.b, b, (size_t)n * nrhs);
    cusolverDnDpotrf(v.solver, CUBLAS_FILL_MODE_LOWER, n, v.a, n, v.work, v.lwork, v.info);
    if (b) cusolverDnDpotrs(v.solver, CUBLAS_FILL_MODE_LOWER, n, nrhs, v.a, n, v.b, n, v.info);
    if (copies && l) to_host(l, v.a, nn);
    if (b) to_host(x, v.b, (size_t)n * nrhs);
    int info = -1;
    cudaMemcpyAsync(&info, v.info, sizeof info, cudaMemcpyDeviceToHost, v.stream);
    double t = vendor_sync(t0);
    if (info != 0) printf("  cusolverDnDpotrf: info %d\n", info);
    return t;
}

/* ---- the dag.h side ---- */
static dag_scope gpu(void) { return dag_scope(.cuda.one = 1); }
static double device_sync(double t0) {
    cudaDeviceSynchronize();
    return now_s() - t0;
}
/* dst = src with only host memory holding dst afterwards (a copy on the CPU): its next use on the
   device moves it in again */
static void host_only(dag_array *src, dag_array *dst) {
    DAG_WITH_OPTIONS(.scope = dag_scope(.all_threads = 1)) dag_array_copy(src, dst);
}
/* dst = src, its tiles on the GPU too: copied on the CPU, then read there by a thin gemm */
static void on_gpu(dag_array *src, dag_array *dst, int nb) {
    host_only(src, dst);
    int64_t n = dag_array_rows(dst);
    dag_array *x = dag_array_zeros(DAG_F64, n, 1, dag_blocks(nb, 1)), *y = dag_array_zeros(DAG_F64, n, 1, dag_blocks(nb, 1));
    DAG_WITH_OPTIONS(.scope = gpu()) dag_array_gemm(0, 0, 1.0, dst, x, 0.0, y);
    dag_array_free(x), dag_array_free(y);
    device_sync(0);
}
/* An operation's time from t0 (it has returned with r): until the device is done with it, or, from
   host memory, until its results are back there too. Outside its scope's block: a wait there would
   leave the block open. */
static double dag_time(dag_result r, const char *what, double t0, bool from_host) {
    double t = from_host ? (dag_synchronize(DAG_CUDA), now_s() - t0) : device_sync(t0);
    if (r != DAG_OK) printf("  %s: %s\n", what, dag_result_string(r));
    return t;
}


/* ---- rows ---- */
typedef struct row { const char *what; double flops, vendor[16], dag[16]; int rounds; double err; } row;
static int cmp(const void *a, const void *b) { return gpu_chain_cmp(a, b); }
static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}
static void print_row(row *r) {
    double mv = median(r->vendor, r->rounds), md = median(r->dag, r->rounds);
    printf("  %-36s vendor %8.4f s (%7.1f GFLOP/s)   dag.h %8.4f s (%7.1f GFLOP/s)   dag.h/vendor %5.2fx   "
           "max diff %.1e\n",
           r->what, mv, r->flops / mv * 1e-9, md, r->flops / md * 1e-9, md / mv, r->err);
}
static double max_diff(const double *x, const double *y, size_t n, bool lower, int ld) {
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        if (lower && i % (size_t)ld < i / (size_t)ld) continue;   /* above the diagonal: not the factor's */
        d = fmax(d, fabs(x[i] - y[i]) / (1.0 + fabs(y[i])));
    }
    return d;
}

/* potrf and gemm from host memory again, with dag_desc.device_memory_limit at 2/3 of one matrix:
   each matrix is 1.5x what the device may hold, which cuSOLVER and cuBLAS called directly refuse
   (the Cholesky touches only its lower triangle, which fits; the gemm's three matrices evict).
   Against their in-core rows, and their results against the vendor's (vl, vc); returns the
   largest difference. */
static double past_the_limit(int n, const double *a, const double *b, const double *spd, const double *vc,
                             const double *vl, const row *in_core, int rounds) {
    size_t nn = (size_t)n * n;
    int nb_gemm = env_int("NB_GEMM", 2048), nb_potrf = env_int("NB_POTRF", 1024);
    dag_blocks tg = dag_blocks(nb_gemm, nb_gemm), tp = dag_blocks(nb_potrf, nb_potrf);
    double *out = malloc(nn * sizeof *out), t[2][16], worst = 0;
    uint64_t evictions[2] = { 0, 0 };
    dag_shutdown();
    dag_setup(&(dag_desc){ .device_memory_limit = nn * sizeof(double) * 2 / 3 });
    dag_array *S0 = dag_array_from_host(DAG_F64, n, n, tp, spd, DAG_COL_MAJOR, n), *S = dag_array_zeros(DAG_F64, n, n, tp);
    dag_array *A0 = dag_array_from_host(DAG_F64, n, n, tg, a, DAG_COL_MAJOR, n), *B0 = dag_array_from_host(DAG_F64, n, n, tg, b, DAG_COL_MAJOR, n);
    dag_array *A = dag_array_zeros(DAG_F64, n, n, tg), *B = dag_array_zeros(DAG_F64, n, n, tg), *C = dag_array_zeros(DAG_F64, n, n, tg);
    for (int r = 0; r < rounds; r++)
        for (int op = 0; op < 2; op++) {   /* potrf, gemm */
            dag_memory_info m;
            dag_memory_stats(DAG_CUDA, 1, &m);
            uint64_t before = m.evictions;
            if (op == 0) host_only(S0, S);
            else host_only(A0, A), host_only(B0, B);
            double t0 = now_s();
            dag_result res = DAG_OK;
            DAG_WITH_OPTIONS(.scope = gpu()) res = op == 0 ? dag_array_potrf(S) : dag_array_gemm(0, 0, 1.0, A, B, 0.0, C);
            t[op][r] = dag_time(res, op == 0 ? "potrf" : "gemm", t0, true);
            dag_memory_stats(DAG_CUDA, 1, &m);
            evictions[op] = m.evictions - before;
        }
    for (int op = 0; op < 2; op++) {
        dag_array_collect(op == 0 ? S : C, out, DAG_COL_MAJOR, n);
        double err = max_diff(out, op == 0 ? vl : vc, nn, op == 0, n), mine = median(t[op], rounds);
        double flops = op == 0 ? in_core[3].flops : in_core[1].flops, ref = median((double *)in_core[op == 0 ? 3 : 1].dag, rounds);
        printf("  %-36s dag.h %8.4f s (%7.1f GFLOP/s), %llu evictions a run; in core %.4f s: %.2fx its rate   max diff %.1e\n",
               op == 0 ? "potrf, matrix 1.5x the device limit" : "gemm, matrices 1.5x the device limit", mine,
               flops / mine * 1e-9, (unsigned long long)evictions[op], ref, ref / mine, err);
        worst = fmax(worst, err);
    }
    dag_array *all[] = { S0, S, A0, B0, A, B, C };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dag_array_free(all[i]);
    free(out);
    dag_shutdown();
    dag_setup(&(dag_desc){ 0 });
    return worst;
}

/* Runs every row at size n; returns the largest difference from the vendor's results. */
static double run_size(int n, int rounds) {
    double worst = 0;
    int nb_gemm = env_int("NB_GEMM", 2048), nb_potrf = env_int("NB_POTRF", 1024), nrhs = nb_potrf;
    size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *spd = malloc(nn * sizeof *spd),
           *vres = malloc(nn * sizeof *vres), *dres = malloc(nn * sizeof *dres), *vx = malloc(nn * sizeof *vx),
           *vc = malloc(nn * sizeof *vc);
    srand(7);
    for (size_t i = 0; i < nn; i++) a[i] = (double)rand() / RAND_MAX - 0.5, b[i] = (double)rand() / RAND_MAX - 0.5;
    for (int j = 0; j < n; j++)   /* symmetric, diagonally dominant: SPD */
        for (int i = 0; i <= j; i++) spd[i + (size_t)j * n] = spd[j + (size_t)i * n] = a[i + (size_t)j * n] + (i == j ? n : 0);
    dag_blocks tg = dag_blocks(nb_gemm, nb_gemm), tp = dag_blocks(nb_potrf, nb_potrf);
    dag_array *A0 = dag_array_from_host(DAG_F64, n, n, tg, a, DAG_COL_MAJOR, n), *B0 = dag_array_from_host(DAG_F64, n, n, tg, b, DAG_COL_MAJOR, n);
    dag_array *A = dag_array_zeros(DAG_F64, n, n, tg), *B = dag_array_zeros(DAG_F64, n, n, tg), *C = dag_array_zeros(DAG_F64, n, n, tg);
    dag_array *S0 = dag_array_from_host(DAG_F64, n, n, tp, spd, DAG_COL_MAJOR, n), *S = dag_array_zeros(DAG_F64, n, n, tp);
    dag_array *R0 = dag_array_from_host(DAG_F64, n, nrhs, tp, b, DAG_COL_MAJOR, n), *R = dag_array_zeros(DAG_F64, n, nrhs, tp);
    double gemm_flops = 2.0 * n * n * (double)n, potrf_flops = (double)n * n * n / 3.0;
    row rows[5] = { { "gemm, on the GPU", gemm_flops, { 0 }, { 0 }, rounds, 0 },
                    { "gemm, from host memory and back", gemm_flops, { 0 }, { 0 }, rounds, 0 },
                    { "potrf, on the GPU", potrf_flops, { 0 }, { 0 }, rounds, 0 },
                    { "potrf, from host memory and back", potrf_flops, { 0 }, { 0 }, rounds, 0 },
                    { "posv, from host memory and back", potrf_flops + 2.0 * n * n * (double)nrhs, { 0 }, { 0 }, rounds, 0 } };
    printf("N = %d (gemm tiles %d, potrf tiles %d, posv %d right-hand sides), %d rounds\n", n, nb_gemm, nb_potrf, nrhs, rounds);
    const char *trace = getenv("TRACE");   /* a directory: the last round's trace goes there */
    for (int r = -1; r < rounds; r++) {   /* round -1 warms both sides up (and pins the tiles) */
        int k = r < 0 ? 0 : r;
        if (trace && r == rounds - 1) dag_trace_clear(), dag_trace_enable(1);
        double t0;
        dag_result res = DAG_OK;
        /* gemm on the GPU: A, B and C already there */
        on_gpu(A0, A, nb_gemm), on_gpu(B0, B, nb_gemm);
        vendor_gemm(n, a, b, vc, true);
        rows[0].vendor[k] = vendor_gemm(n, a, b, vc, false);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = gpu()) res = dag_array_gemm(0, 0, 1.0, A, B, 0.0, C);
        rows[0].dag[k] = dag_time(res, "gemm", t0, false);
        /* gemm from host memory */
        host_only(A0, A), host_only(B0, B);
        rows[1].vendor[k] = vendor_gemm(n, a, b, vc, true);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = gpu()) res = dag_array_gemm(0, 0, 1.0, A, B, 0.0, C);
        rows[1].dag[k] = dag_time(res, "gemm", t0, true);
        dag_array_collect(C, dres, DAG_COL_MAJOR, n);
        rows[0].err = rows[1].err = max_diff(dres, vc, nn, false, n);
        /* potrf on the GPU, then from host memory */
        on_gpu(S0, S, nb_potrf);
        rows[2].vendor[k] = vendor_potrf(n, spd, vres, NULL, NULL, 0, false);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = gpu()) res = dag_array_potrf(S);
        rows[2].dag[k] = dag_time(res, "potrf", t0, false);
        host_only(S0, S);
        rows[3].vendor[k] = vendor_potrf(n, spd, vres, NULL, NULL, 0, true);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = gpu()) res = dag_array_potrf(S);
        rows[3].dag[k] = dag_time(res, "potrf", t0, true);
        dag_array_collect(S, dres, DAG_COL_MAJOR, n);
        rows[2].err = rows[3].err = max_diff(dres, vres, nn, true, n);
        /* posv from host memory */
        host_only(S0, S), host_only(R0, R);
        rows[4].vendor[k] = vendor_potrf(n, spd, NULL, b, vx, nrhs, true);
        t0 = now_s();
        DAG_WITH_OPTIONS(.scope = gpu()) res = dag_array_posv(S, R);
        rows[4].dag[k] = dag_time(res, "posv", t0, true);
        dag_array_collect(R, dres, DAG_COL_MAJOR, n);
        rows[4].err = max_diff(dres, vx, (size_t)n * nrhs, false, n);
    }
    if (trace) {
        char path[4096];
        snprintf(path, sizeof path, "%s/gpu_array_%d.json", trace, n);
        dag_trace_enable(0);
        dag_trace_write_json(path);
        dag_trace_clear();
    }
    for (int i = 0; i < 5; i++) print_row(&rows[i]), worst = fmax(worst, rows[i].err);
    dag_array *all[] = { A0, B0, A, B, C, S0, S, R0, R };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dag_array_free(all[i]);
    worst = fmax(worst, past_the_limit(n, a, b, spd, vc, vres, rows, rounds));
    free(a), free(b), free(spd), free(vres), free(dres), free(vx), free(vc);
    return worst;
}

int main(int argc, char **argv) {
    dag_setup(&(dag_desc){ 0 });
    if (!dag_backend_available(DAG_CUDA)) {
        printf("skipped: %s\n", dag_backend_status(DAG_CUDA));
        dag_shutdown();
        return 0;
    }
    printf("%s\n", dag_backend_status(DAG_CUDA));
    int rounds = env_int("ROUNDS", 3), most = 0;
    if (rounds > 16) rounds = 16;
    int sizes[16] = { 8192, 16384 }, count = argc > 1 ? 0 : 2;
    for (int i = 1; i < argc && count < 16; i++) sizes[count++] = atoi(argv[i]);
    for (int i = 0; i < count; i++) most = sizes[i] > most ? sizes[i] : most;
    size_t nn = (size_t)most * most;
    cudaSetDevice(0);
    cudaStreamCreateWithFlags(&v.stream, cudaStreamNonBlocking);
    cublasCreate(&v.blas);
    cublasSetStream(v.blas, v.stream);
    cusolverDnCreate(&v.solver);
    cusolverDnSetStream(v.solver, v.stream);
    cudaMalloc((void **)&v.a, nn * sizeof(double));
    cudaMalloc((void **)&v.b, nn * sizeof(double));
    cudaMalloc((void **)&v.c, nn * sizeof(double));
    cudaMalloc((void **)&v.info, sizeof(int));
    cusolverDnDpotrf_bufferSize(v.solver, CUBLAS_FILL_MODE_LOWER, most, v.a, most, &v.lwork);
    cudaMalloc((void **)&v.work, (size_t)v.lwork * sizeof(double));
    double worst = 0;
    for (int i = 0; i < count; i++) worst = fmax(worst, run_size(sizes[i], rounds));
    printf("the kernel chain:\n");
    if (!gpu_chain_run(DAG_CUDA, 1000, 25)) worst = 1;
    cudaFree(v.a), cudaFree(v.b), cudaFree(v.c), cudaFree(v.info), cudaFree(v.work);
    cublasDestroy(v.blas);
    cusolverDnDestroy(v.solver);
    cudaStreamDestroy(v.stream);
    dag_shutdown();
    if (worst > 1e-8) printf("wrong: dag.h's results differ from the vendor's by %.1e\n", worst);
    return worst > 1e-8;
}
