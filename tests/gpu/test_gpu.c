/* The device behaviour tests, for one backend at a time, named by its word
   in dag.h's backend list (as DAG_DEVICES takes it):
       test_gpu opencl | cuda | hip | ze
   Kernels, replicas and coherence, transfers between devices, eviction and
   placement, through the same kernels (tests/gpu/kernels.h) built for every
   backend. Where the backend has no device a test prints "not applicable:
   no <backend> device" and counts apart from skips (tests/test.h); the
   tests of a missing backend's errors and CPU fallback run there instead. OpenCL on PoCL runs them all
   on this machine; CUDA, HIP and Level Zero wait for hardware. */
#define _POSIX_C_SOURCE 200809L   /* setenv, mkstemp */
#define DAG_IMPLEMENTATION
#include "kernels.h"
#include "test.h"

static dag_backend backend = DAG_OPENCL;
static const char *backend_name = "OpenCL";
static char last_error[4096], last_warning[4096], routines[4096];
static int info_lines;

static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item;
    (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
    if (level == DAG_LOG_WARN) snprintf(last_warning, sizeof last_warning, "%s", msg);
    if (level == DAG_LOG_INFO && strstr(msg, "run elsewhere")) info_lines++;
    /* "kernel 'dag_dgemm' runs as cublasDgemm_v2 on CUDA device 1 (...)": which routine stands in */
    if (level == DAG_LOG_INFO && strstr(msg, " runs as ") && strlen(routines) + strlen(msg) + 2 < sizeof routines)
        strcat(strcat(routines, msg), "\n");
}

static void setup(size_t device_limit, int trace) {
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.logger.func = logger;
    d.device_memory_limit = device_limit;
    d.trace = trace;
    dag_setup(&d);
    last_error[0] = last_warning[0] = routines[0] = 0;
    info_lines = 0;
}

static void *mock_lib(void);   /* the mock runtime the backend loaded, or NULL (below) */

/* The scope naming device `n` (1-based) of the backend under test, or all of them. */
static dag_scope device_scope(int n) {
    dag_scope s;
    memset(&s, 0, sizeof s);
    dag_device_scope *part = dag_scope_part(&s, backend);
    if (n) part->one = n;
    else part->all = 1;
    return s;
}
static dag_options on_device(int n) {
    dag_options o;
    memset(&o, 0, sizeof o);
    o.scope = device_scope(n);
    return o;
}

/* Sets up the runtime; 0 (and a skip) when the backend has fewer than `need` devices. */
#define NEED_DEVICES(need, limit, trace) \
    do { \
        setup((limit), (trace)); \
        int have = dag_device_count(backend); \
        if (have < (need)) { \
            dag_shutdown(); \
            if (have == 0) NOT_APPLICABLE("no %s device", backend_name); \
            NOT_APPLICABLE("needs %d %s devices, there %s %d", (need), backend_name, have == 1 ? "is" : "are", have); \
        } \
    } while (0)

DAG_TASK(void, cpu_add, (double *, y), (size_t, n), (double, v)) {
    for (size_t i = 0; i < n; i++) y[i] += v;
}
DAG_TASK(void, cpu_add_float, (float *, y), (size_t, n), (float, v)) {
    for (size_t i = 0; i < n; i++) y[i] += v;
}

/* DAG_TEST_EXPECT_DEVICES=n (the Makefile sets it where a mock runtime is on the library path): the
   backend found its library, by any of the names it probes (a mock ROCm 7 has libamdhip64.so.7
   alone), and n devices; without it, a run that found nothing would only skip. */
TEST(the_backend_finds_the_runtime_and_the_devices_expected) {
    const char *expect = getenv("DAG_TEST_EXPECT_DEVICES");
    if (!expect) NOT_APPLICABLE("DAG_TEST_EXPECT_DEVICES is not set");
    setup(0, 0);
    printf("     %s\n", dag_backend_status(backend));
    CHECK(dag_backend_available(backend));
    CHECK_EQ_INT(dag_device_count(backend), atoi(expect));
    dag_shutdown();
}

/* A mock vendor library's count of calls of routine (mock_blas.h's mock_blas_calls), where lib is
   loaded and is a mock; -1 otherwise. */
static long library_calls(const char *lib, const char *routine) {
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD), *sym = h ? dlsym(h, "mock_blas_calls") : NULL;
    long (*calls)(const char *) = NULL;
    memcpy(&calls, &sym, sizeof sym);
    long n = calls ? calls(routine) : -1;
    if (h) dlclose(h);
    return n;
}
static bool library_loaded(const char *lib) {
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);
    return h != NULL;
}

/* dag_blas.h loads the cuBLAS and cuSOLVER of the CUDA runtime's own major (libcublas.so.12 and
   libcusolver.so.11 under a CUDA 12 runtime, libcublas.so.13 and libcusolver.so.12 under CUDA 13,
   though the others are installed beside them: one major's libraries need its own runtime), and
   the gemm and potrf run through them. The mock runtime is CUDA 13.0 unless
   MOCK_CUDA_RUNTIME_VERSION says otherwise; the Makefile runs this test under 12000 too. */
TEST(cublas_and_cusolver_are_loaded_for_the_cuda_runtimes_major_and_run_the_tiles) {
    if (backend != DAG_CUDA) NOT_APPLICABLE("CUDA only");
    NEED_DEVICES(1, 0, 0);
#if defined(DAG_BACKEND_CUDA)
    int version = 0;
    CHECK_EQ_INT(cudaRuntimeGetVersion(&version), 0);
    int major = version / 1000;
    enum { G = 16 };
    static double ga[G * G], gb[G * G], gc[G * G], spd[G * G];
    static int info[1] = { -1 };
    for (int i = 0; i < G * G; i++) ga[i] = 1.0, gb[i] = 3.0, gc[i] = 1.0, spd[i] = i % (G + 1) ? 0.0 : 4.0;
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dgemm, G * G), Val(0), Val(0), Val(G), Val(G), Val(G),
                                         Val(1.0), In(ga, G * G), Val(G), In(gb, G * G), Val(G), Val(1.0),
                                         InOut(gc, G * G), Val(G))),
                 DAG_OK);
    CHECK(gc[0] == 1.0 + 3.0 * G && gc[G * G - 1] == 1.0 + 3.0 * G);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dpotrf, 1), Val(0), Val(G), InOut(spd, G * G), Val(G),
                                         Out(info, 1))),
                 DAG_OK);
    CHECK(info[0] == 0 && spd[0] == 2.0 && spd[G * G - 1] == 2.0);   /* 4 I = (2 I)(2 I)^T */
    char blas[32], solver[32], other_blas[32], other_solver[32];
    snprintf(blas, sizeof blas, "libcublas.so.%d", major);
    snprintf(other_blas, sizeof other_blas, "libcublas.so.%d", major == 13 ? 12 : 13);
    snprintf(solver, sizeof solver, "libcusolver.so.%d", major > 12 ? major - 1 : 11);
    snprintf(other_solver, sizeof other_solver, "libcusolver.so.%d", major > 12 ? 11 : 12);
    long gemms = library_calls(blas, "cublasDgemm_v2"), potrfs = library_calls(solver, "cusolverDnDpotrf");
    bool wrong = library_loaded(other_blas) || library_loaded(other_solver);
    dag_shutdown();
    if (gemms < 0 || potrfs < 0) NOT_APPLICABLE("needs the mock cuBLAS and cuSOLVER (%s, %s)", blas, solver);
    printf("     CUDA runtime %d: %s, %ld gemm(s), %s, %ld potrf(s) through them\n", version, blas, gemms, solver, potrfs);
    CHECK_EQ_INT(gemms, 1);
    CHECK_EQ_INT(potrfs, 1);
    CHECK(!wrong);   /* the other major's libraries are not loaded */
#else
    dag_shutdown();
    NOT_APPLICABLE("built without CUDA");
#endif
}

/* The vendor's routine names for backend b's tile kernels (gemm, syrk, trsm, potrf: NULL where the
   text runs), and the libraries the mocks count them in; false where b has no vendor BLAS. */
typedef struct vendor { const char *routine[4]; char lib[2][32]; } vendor;
static bool vendor_of(dag_backend b, vendor *v) {
    memset(v, 0, sizeof *v);
    if (b == DAG_CUDA) {
        int version = 0, major;
#if defined(DAG_BACKEND_CUDA)
        cudaRuntimeGetVersion(&version);
#endif
        major = version / 1000;
        *v = (vendor){ { "cublasDgemm_v2", "cublasDsyrk_v2", "cublasDtrsm_v2", "cusolverDnDpotrf" }, { "", "" } };
        snprintf(v->lib[0], sizeof v->lib[0], "libcublas.so.%d", major);
        snprintf(v->lib[1], sizeof v->lib[1], "libcusolver.so.%d", major > 12 ? major - 1 : 11);
    } else if (b == DAG_HIP) {
        *v = (vendor){ { "rocblas_dgemm", "rocblas_dsyrk", "rocblas_dtrsm", "rocsolver_dpotrf" },
                       { "librocblas.so.4", "librocsolver.so.0" } };
    } else if (b == DAG_OPENCL) {
        *v = (vendor){ { "CLBlastDgemm", "CLBlastDsyrk", "CLBlastDtrsm", NULL }, { "libclblast.so.1", "" } };
    } else {
        return false;
    }
    return true;
}
/* Whether v's libraries load here (they are dlopened, as dag_blas.h does). */
static bool vendor_here(const vendor *v) {
    for (int i = 0; i < 2; i++) {
        if (!v->lib[i][0]) continue;
        void *h = dlopen(v->lib[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) return false;
        dlclose(h);
    }
    return true;
}
/* Sets up a device of the backend and fills v; not applicable where the backend has no vendor
   BLAS or its libraries do not load. */
#define NEED_VENDOR(v) \
    do { \
        if (!vendor_of(backend, &(v))) NOT_APPLICABLE("%s has no vendor BLAS here", backend_name); \
        NEED_DEVICES(1, 0, 0); \
        if (!vendor_here(&(v))) { \
            dag_shutdown(); \
            NOT_APPLICABLE("%s%s%s do not load here", (v).lib[0], (v).lib[1][0] ? ", " : "", (v).lib[1]); \
        } \
    } while (0)
/* An SPD matrix: small random values plus n on the diagonal. */
static void spd_matrix(double *m, int n, unsigned seed) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            seed = seed * 1103515245u + 12345u;
            m[i + j * n] = m[j + i * n] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5 + (i == j ? n : 0);
        }
}
static double max_diff(const double *x, const double *y, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(x[i] - y[i]) / (1.0 + fabs(y[i])));
    return d;
}
static size_t bytes_to_host(void) {
    size_t n = 0;
    for (int d = 1; d <= dag_device_count(backend); d++) {
        dag_memory_info m;
        if (dag_memory_stats(backend, d, &m) == DAG_OK) n += m.bytes_to_host;
    }
    return n;
}

/* dag_array's potrf, posv, gemm, syrk and trsm under a scope of the backend's devices run as the
   vendor's routines (the log says which stands in for each tile kernel; a mock library counts the
   calls: a potrf per diagonal tile), give the CPU's results, and a factorisation leaves the
   device only at its end, with each diagonal tile's info (4 bytes): the tiles stay there. */
TEST(the_arrays_linear_algebra_on_the_devices_runs_as_the_vendors_routines) {
    vendor v;
    NEED_VENDOR(v);
    enum { N = 96, NB = 32, R = 40, NT = N / NB };
    static double a[N * N], b[N * R], c[N * N], x[N * N], cpu[4][N * N], dev[4][N * N];
    spd_matrix(a, N, 7);
    for (int i = 0; i < N * R; i++) b[i] = (double)(i % 11) - 5.0;
    for (int i = 0; i < N * N; i++) c[i] = (double)(i % 5), x[i] = (double)((i * 7) % 13) * 0.25 - 1.5;
    long potrfs_before = v.routine[3] ? library_calls(v.lib[1], v.routine[3]) : 0;   /* -1: not loaded yet */
    if (potrfs_before < 0) potrfs_before = 0;
    for (int on = 0; on < 2; on++) {   /* the CPU, then the devices */
        dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        dag_array *S = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        dag_array *B = dag_array_from_host(DAG_F64, N, R, dag_blocks(NB, NB), b, DAG_COL_MAJOR, N);
        dag_array *C = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), c, DAG_COL_MAJOR, N);
        dag_array *X = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), x, DAG_COL_MAJOR, N);
        dag_scope scope = on ? device_scope(0) : dag_scope(.all_threads = 1);
        size_t home = bytes_to_host();   /* on one device, so that no tile goes to another through the host */
        DAG_WITH_OPTIONS(.scope = on ? device_scope(1) : scope) { CHECK_EQ_INT(dag_array_potrf(A), DAG_OK); }
        if (on) CHECK_EQ_INT(bytes_to_host() - home, NT * sizeof(int));   /* the infos, not the tiles */
        DAG_WITH_OPTIONS(.scope = scope) {
            CHECK_EQ_INT(dag_array_posv(S, B), DAG_OK);                          /* potrf, two trsm */
            CHECK_EQ_INT(dag_array_gemm(0, 1, 0.5, X, X, 2.0, C), DAG_OK);
            CHECK_EQ_INT(dag_array_syrk(1, -1.0, X, 1.0, C), DAG_OK);
            CHECK_EQ_INT(dag_array_trsm(1, 1, 1, 1, 2.0, A, X), DAG_OK);         /* right, upper, trans, unit */
        }
        double (*out)[N * N] = on ? dev : cpu;
        CHECK_EQ_INT(dag_array_collect(A, out[0], DAG_COL_MAJOR, N), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(B, out[1], DAG_COL_MAJOR, N), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(C, out[2], DAG_COL_MAJOR, N), DAG_OK);
        CHECK_EQ_INT(dag_array_collect(X, out[3], DAG_COL_MAJOR, N), DAG_OK);
        dag_array_free(A), dag_array_free(S), dag_array_free(B), dag_array_free(C), dag_array_free(X);
    }
    double err[4];
    for (int k = 0; k < 4; k++) err[k] = max_diff(dev[k], cpu[k], k == 1 ? N * R : N * N);
    printf("     against the CPU: potrf %.1e, posv %.1e, gemm and syrk %.1e, trsm %.1e\n", err[0], err[1], err[2], err[3]);
    for (int k = 0; k < 4; k++) CHECK(err[k] < 1e-11);
    static const char *const kernels[4] = { "dag_dgemm", "dag_dsyrk", "dag_dtrsm", "dag_dpotrf" };
    for (int k = 0; k < 4; k++) {
        char line[96];
        snprintf(line, sizeof line, "'%s' runs as %s", kernels[k], v.routine[k] ? v.routine[k] : "");
        bool said = strstr(routines, line) != NULL;
        if (v.routine[k]) CHECK(said);
        else CHECK(!strstr(routines, line));   /* no routine: the text ran */
        if (v.routine[k] && !said) printf("     no \"%s\" in:\n%s", line, routines);
    }
    long potrfs = v.routine[3] ? library_calls(v.lib[1], v.routine[3]) : -1;
    if (potrfs >= 0) CHECK_EQ_INT(potrfs - potrfs_before, 2 * NT);   /* potrf and posv: one per diagonal tile */
    for (int k = 0; k < 3 && library_calls(v.lib[0], v.routine[k]) >= 0; k++) CHECK(library_calls(v.lib[0], v.routine[k]) > 0);
    dag_shutdown();
}

/* A tile that is not positive definite, on a device: the factorisation stays there to its end,
   where the diagonal tiles' infos say which tile and column, as the CPU's run says at once. */
TEST(a_matrix_that_is_not_positive_definite_on_a_device_fails_naming_the_tile_and_column) {
    vendor v;
    NEED_VENDOR(v);   /* (Level Zero's mock runs tests/gpu's kernels alone) */
    enum { N = 96, NB = 32 };
    static double a[N * N];
    spd_matrix(a, N, 3);
    a[70 + 70 * N] = -1e4;   /* column 70: tile 2 (rows 64 to 95) */
    dag_array *A = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
    last_error[0] = 0;
    DAG_WITH_OPTIONS(.scope = device_scope(0)) { CHECK_EQ_INT(dag_array_potrf(A), DAG_ERR_NOT_POSITIVE_DEFINITE); }
    CHECK(strstr(last_error, "tile (2, 2), column 70") != NULL);
    if (!strstr(last_error, "tile (2, 2), column 70")) printf("     got: %s\n", last_error);
    dag_array_free(A);
    dag_shutdown();
}

TEST(kernels_give_the_cpu_results_and_visit_every_index_once) {
    NEED_DEVICES(1, 0, 0);
    enum { N = 1000003 };   /* not a multiple of any block size: the guard works */
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *ref = malloc(N * sizeof *ref);
    float *v = malloc(N * sizeof *v);
    int *visits = calloc(N, sizeof *visits);
    for (size_t i = 0; i < N; i++) {
        x[i] = (double)i * 0.25;
        y[i] = ref[i] = 1.0 / (double)(i + 1);
        v[i] = (float)i;
    }
    dag_options o = on_device(1);
    dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(3.0), In(x, N), InOut(y, N));
    dag_spawn_with(&o, DAG_LAUNCH(gpu_scale, N), Val(0.5f), InOut(v, N));
    dag_spawn_with(&o, DAG_LAUNCH(gpu_count, N), InOut(visits, N));
    CHECK_EQ_INT(dag_synchronize(backend), DAG_OK);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) {
        bad += y[i] != ref[i] + 3.0 * x[i];
        bad += v[i] != (float)i * 0.5f;
        bad += visits[i] != 1;
    }
    CHECK_EQ_INT(bad, 0);
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK(m.bytes_to_device >= N * (2 * sizeof(double) + sizeof(float) + sizeof(int)));
    /* OpenCL and Level Zero say how large one buffer may be; CUDA and HIP have no such limit */
    if (backend == DAG_OPENCL || backend == DAG_LEVEL_ZERO) CHECK(m.max_buffer >= N * sizeof(double));
    else CHECK_EQ_INT((int)m.max_buffer, 0);
    dag_shutdown();
    free(x), free(y), free(ref), free(v), free(visits);
}

TEST(a_chain_of_device_and_cpu_tasks_sees_every_write) {
    NEED_DEVICES(1, 0, 0);
    enum { N = 100000 };
    double *y = calloc(N, sizeof *y), *ones = malloc(N * sizeof *ones);
    for (size_t i = 0; i < N; i++) ones[i] = 1.0;
    dag_options o = on_device(1);
    DAG_DATADEPS {
        for (int round = 0; round < 5; round++) {
            dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(ones, N), InOut(y, N));   /* device: +2 */
            dag_spawn(cpu_add, InOut(y, N), Val((size_t)N), Val(10.0));                      /* CPU: +10 */
        }
        dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(ones, N), InOut(y, N));
    }
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += y[i] != 61.0;
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(y), free(ones);
}

TEST(tiles_of_a_matrix_move_as_tiles_and_their_neighbours_stay_untouched) {
    NEED_DEVICES(1, 0, 0);
    enum { R = 300, C = 200, LD = 256, T = 64 };
    double *a = malloc((size_t)R * LD * sizeof *a);
    for (size_t i = 0; i < (size_t)R * LD; i++) a[i] = (double)i;
    dag_options o = on_device(1);
    DAG_DATADEPS {
        for (int r = 0; r + T <= R; r += T)
            for (int c = 0; c + T <= C; c += T)
                dag_spawn_with(&o, DAG_LAUNCH(gpu_tile_add, T * T), Val(T), Ld(a + (size_t)r * LD + c), Val(1.0 + r + c),
                               InOut(a + (size_t)r * LD + c, T, T, LD));
    }
    size_t bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < LD; j++) {
            int in = i < R / T * T && j < C / T * T;
            double want = (double)((size_t)i * LD + j) + (in ? 1.0 + i / T * T + j / T * T : 0.0);
            bad += a[(size_t)i * LD + j] != want;
        }
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(a);
}

TEST(data_written_on_one_device_is_read_right_on_another) {
    NEED_DEVICES(2, 0, 0);
    enum { N = 250000 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    for (size_t i = 0; i < N; i++) x[i] = (double)(i % 97);
    dag_options d1 = on_device(1), d2 = on_device(2);
    DAG_DATADEPS {
        dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));   /* y = x on device 1 */
        dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(y, N), InOut(x, N));   /* x += 2y on device 2 */
        dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));   /* y += x back on 1 */
    }
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += y[i] != 4.0 * (double)(i % 97);
    CHECK_EQ_INT(bad, 0);
    dag_memory_info m2;
    CHECK_EQ_INT(dag_memory_stats(backend, 2, &m2), DAG_OK);
    CHECK(m2.bytes_to_device >= 2 * N * sizeof(double));   /* x and y reached device 2 */
    dag_shutdown();
    free(x), free(y);
}

/* A CPU task that rewrites what a device task only read must not change
   the bytes under the device's queued upload. */
TEST(a_cpu_write_after_a_device_read_leaves_the_device_its_bytes) {
    NEED_DEVICES(1, 0, 0);
    enum { N = 50000, ROUNDS = 8 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    for (size_t i = 0; i < N; i++) x[i] = 1.0;
    dag_options o = on_device(1);
    DAG_DATADEPS {
        for (int r = 0; r < ROUNDS; r++) {
            dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));   /* y += x */
            dag_spawn(cpu_add, InOut(x, N), Val((size_t)N), Val(1.0));                      /* then x += 1 */
        }
    }
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += y[i] != ROUNDS * (ROUNDS + 1) / 2.0;   /* 1 + 2 + ... + ROUNDS */
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(x), free(y);
}

/* Device 2 copies y from device 1; device 1's next write of y must wait
   for that copy. */
TEST(a_device_overwriting_what_another_device_copies_waits_for_the_copy) {
    NEED_DEVICES(2, 0, 0);
    enum { N = 100000 };
    double *ones = malloc(N * sizeof *ones), *y = calloc(N, sizeof *y), *z = calloc(N, sizeof *z);
    for (size_t i = 0; i < N; i++) ones[i] = 1.0;
    dag_options d1 = on_device(1), d2 = on_device(2);
    DAG_DATADEPS {
        dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(5.0), In(ones, N), InOut(y, N));   /* y = 5 on 1 */
        dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(y, N), InOut(z, N));      /* z = y on 2 */
        dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(ones, N), InOut(y, N));   /* y = 7 on 1 */
    }
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += z[i] != 5.0 || y[i] != 7.0;
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(ones), free(y), free(z);
}

TEST(a_device_smaller_than_the_data_evicts_and_stays_right) {
    enum { N = 16384, SPANS = 12 };   /* 128 KiB spans, 512 KiB of device memory */
    NEED_DEVICES(1, 4 * N * sizeof(double), 0);
    double *y[SPANS];
    double *ones = malloc(N * sizeof *ones);
    for (size_t i = 0; i < N; i++) ones[i] = 1.0;
    for (int s = 0; s < SPANS; s++) y[s] = calloc(N, sizeof(double));
    dag_options o = on_device(1);
    DAG_DATADEPS {
        for (int round = 0; round < 3; round++)
            for (int s = 0; s < SPANS; s++)
                dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val((double)(s + 1)), In(ones, N), InOut(y[s], N));
    }
    size_t bad = 0;
    for (int s = 0; s < SPANS; s++)
        for (size_t i = 0; i < N; i++) bad += y[s][i] != 3.0 * (s + 1);
    CHECK_EQ_INT(bad, 0);
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK(m.evictions > 0);
    CHECK(m.used <= m.total);
    dag_shutdown();
    for (int s = 0; s < SPANS; s++) free(y[s]);
    free(ones);
}

TEST(placement_puts_a_device_scoped_kernel_on_its_device_and_says_so) {
    NEED_DEVICES(1, 0, 1);
    enum { N = 1 << 21 };   /* large enough for the cost model to try the device */
    float *v = calloc(N, sizeof *v);
    int n = dag_device_count(backend);
    dag_options o = on_device(n);
    dag_options any;
    memset(&any, 0, sizeof any);
    any.scope.any_processor = 1;
    DAG_DATADEPS {
        dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v, N));
        for (int i = 0; i < 6; i++) dag_spawn_with(&any, DAG_LAUNCH(gpu_inc, N), InOut(v, N));
    }
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += v[i] != 7.0f;
    CHECK_EQ_INT(bad, 0);
    dag_trace_record r[64];
    size_t count = dag_trace_records(r, 64), on_it = 0, explained = 0;
    for (size_t i = 0; i < count && i < 64; i++) {
        if (strcmp(r[i].name, "gpu_inc") != 0) continue;
        if (r[i].backend == backend && r[i].processor == n) on_it++;
        if (r[i].placement[0]) explained++;
    }
    CHECK(on_it >= 1);        /* the scoped launch, and the explored device */
    CHECK(explained >= 5);    /* every .any_processor launch says what it compared */
    dag_shutdown();
    free(v);
}

/* The bandwidth back from a device is learnt from the download's own time on the device's clock:
   the wall clock also counts the kernels queued before it, and so read, a write-back behind a long
   kernel made a copy look as slow as the kernel. The mock runs its queue only when waited for, on
   a clock of its own (copies at 10 GB/s, kernels 1 ns an element): its kernels take far longer on
   the wall clock than on its clock, so a wall-clock reading shows here. */
TEST(write_backs_behind_kernels_leave_the_copy_estimate_a_copy) {
    NEED_DEVICES(1, 0, 1);
    const char *prefix = backend == DAG_CUDA ? "cuda" : backend == DAG_HIP ? "hip" : NULL;
    if (!mock_lib() || !prefix) {
        dag_shutdown();
        NOT_APPLICABLE("needs the mock's clock (a real device's times are its own)");
    }
    enum { N = 1 << 21 };   /* 8 MiB: on the mock's clock, 2.1 ms of kernel and 0.84 ms of copy */
    float *v = calloc(N, sizeof *v);
    dag_options o = on_device(1), any;
    memset(&any, 0, sizeof any);
    any.scope.any_processor = 1;
    for (int i = 0; i < 4; i++) DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v, N)); }
    dag_trace_clear();
    DAG_DATADEPS { dag_spawn_with(&any, DAG_LAUNCH(gpu_inc, N), InOut(v, N)); }
    dag_trace_record r[64];
    size_t count = dag_trace_records(r, 64);
    char name[16];
    snprintf(name, sizeof name, "%s1 ", prefix);
    double run = 0, copy = -1;
    for (size_t i = 0; i < count && i < 64; i++) {
        const char *p = strstr(r[i].placement, name);
        if (!strcmp(r[i].name, "gpu_inc") && p && sscanf(p + strlen(name), "%lfus+%lfus copy", &run, &copy) == 2) break;
    }
    printf("     %s1: kernel %.0f us, moving its 8 MiB %.0f us\n", prefix, run, copy);
    CHECK(copy >= 0);
    CHECK(copy < run / 2);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += v[i] != 5.0f;
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(v);
}

TEST(a_scope_needing_a_missing_backend_fails_naming_it_and_one_allowing_the_cpu_falls_back) {
    setup(0, 0);
    if (dag_device_count(backend) > 0) {
        dag_shutdown();
        NOT_APPLICABLE("%s has devices here", backend_name);
    }
    enum { N = 1000 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = i, y[i] = 0;
    dag_options only = on_device(1);
    dag_task t = dag_spawn_with(&only, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));
    CHECK_EQ_INT(dag_wait(t), DAG_ERR_SCOPE);
    CHECK(strstr(last_error, backend_name) != NULL);                  /* names the backend */
    CHECK(strstr(last_error, dag_backend_status(backend)) != NULL);   /* and the driver's words */
    dag_options both = only;
    both.scope.all_threads = 1;
    t = dag_spawn_with(&both, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(x, N), InOut(y, N));
    CHECK_EQ_INT(dag_wait(t), DAG_OK);
    CHECK_EQ_INT(info_lines, 1);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != 2.0 * i;
    CHECK_EQ_INT(bad, 0);
    printf("     %s\n", dag_backend_status(backend));
    dag_shutdown();
}

/* dag_blas.h's tile gemm (cuBLAS or CLBlast where they load, its text elsewhere) against a
   plain loop, for all four transpose combinations, on ragged sizes. */
TEST(a_gemm_tile_matches_a_plain_loop_for_every_transpose) {
    NEED_DEVICES(1, 0, 0);
    enum { M = 37, N = 29, K = 41, LD = 45 };   /* column-major, leading dimensions past the sizes */
    static double a[LD * LD], b[LD * LD], c[LD * N], ref[LD * N];
    for (int i = 0; i < LD * LD; i++) a[i] = (double)((i * 7) % 13) - 6.0, b[i] = (double)((i * 5) % 11) - 5.0;
    dag_options dev = on_device(1), cpu;
    memset(&cpu, 0, sizeof cpu);
    for (int where = 0; where < 2; where++)
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            dag_options o = where ? dev : cpu;   /* the CPU launch of the same text, then the device */
            for (int i = 0; i < LD * N; i++) c[i] = ref[i] = (double)(i % 17);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    double s = 0;
                    for (int l = 0; l < K; l++)
                        s += (ta ? a[l + i * LD] : a[i + l * LD]) * (tb ? b[j + l * LD] : b[l + j * LD]);
                    ref[i + j * LD] = 2.0 * s + 0.5 * ref[i + j * LD];
                }
            dag_task t = dag_spawn_with(&o, DAG_LAUNCH(dag_dgemm, M * N), Val(ta), Val(tb), Val(M), Val(N), Val(K),
                                        Val(2.0), In(a, LD * LD), Val(LD), In(b, LD * LD), Val(LD), Val(0.5),
                                        InOut(c, LD * N), Val(LD));
            CHECK_EQ_INT(dag_wait(t), DAG_OK);
            int bad = 0;
            for (int i = 0; i < LD * N; i++) bad += c[i] != ref[i];   /* small integers: exact */
            CHECK_EQ_INT(bad, 0);
        }
    dag_shutdown();
}

/* Element (i, j) of op(A), A n x n triangular (its upper or lower triangle, ones on the diagonal
   when unit). */
static double tri_at(const double *a, int lda, int upper, int trans, int unit, int i, int j) {
    int r = trans ? j : i, c = trans ? i : j;
    if (r == c) return unit ? 1.0 : a[r + c * lda];
    return (upper ? r < c : r > c) ? a[r + c * lda] : 0.0;
}
/* Runs one tile kernel of dag_blas.h on the CPU (where 0) or device 1 and checks it against plain
   loops: syrk and trmm by their definitions, trsm, potrf and getrf by multiplying back; each leaves the
   elements it must not touch. Returns how many variants failed. */
enum { TM = 13, TN = 9, TK = 7, TLD = 16 };
static int tile_kernel_failures(int where) {
    static double a[TLD * TLD], b[TLD * TLD], x[TLD * TLD];
    static int info[1];
    dag_options o;
    memset(&o, 0, sizeof o);
    if (where) o = on_device(1);
    int failed = 0;
    for (int v = 0; v < 4; v++) {   /* syrk: upper, trans */
        int upper = v & 1, trans = v >> 1;
        for (int i = 0; i < TLD * TLD; i++) a[i] = (double)((i * 7) % 13) - 6.0, b[i] = x[i] = (double)(i % 17);
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dsyrk, TN * TN), Val(upper), Val(trans), Val(TN), Val(TK),
                                             Val(2.0), In(a, TLD * TLD), Val(TLD), Val(0.5), InOut(b, TLD * TLD), Val(TLD))),
                     DAG_OK);
        int bad = 0;
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) {
                double want = x[i + j * TLD];
                if (i < TN && j < TN && (upper ? i <= j : i >= j)) {
                    double s = 0;
                    for (int l = 0; l < TK; l++)
                        s += (trans ? a[l + i * TLD] : a[i + l * TLD]) * (trans ? a[l + j * TLD] : a[j + l * TLD]);
                    want = 2.0 * s + 0.5 * want;
                }
                bad += b[i + j * TLD] != want;   /* small integers and halves: exact */
            }
        if (bad) printf("     syrk upper %d trans %d: %d wrong\n", upper, trans, bad);
        failed += bad > 0;
    }
    for (int v = 0; v < 32; v++) {   /* trsm and trmm: right, upper, trans, unit */
        int right = v & 1, upper = (v >> 1) & 1, trans = (v >> 2) & 1, unit = (v >> 3) & 1, mm = v >> 4, na = right ? TN : TM;
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) a[i + j * TLD] = i == j ? 4.0 + i % 3 : ((i * 3 + j) % 7 - 3) * 0.125;
        for (int i = 0; i < TLD * TLD; i++) b[i] = x[i] = (double)(i % 11) - 5.0;
        dag_task t = mm ? dag_spawn_with(&o, DAG_LAUNCH(dag_dtrmm, right ? TM : TN), Val(right), Val(upper), Val(trans),
                                         Val(unit), Val(TM), Val(TN), Val(0.5), In(a, TLD * TLD), Val(TLD),
                                         InOut(b, TLD * TLD), Val(TLD))
                        : dag_spawn_with(&o, DAG_LAUNCH(dag_dtrsm, right ? TM : TN), Val(right), Val(upper), Val(trans),
                                         Val(unit), Val(TM), Val(TN), Val(0.5), In(a, TLD * TLD), Val(TLD),
                                         InOut(b, TLD * TLD), Val(TLD));
        CHECK_EQ_INT(dag_wait(t), DAG_OK);
        double err = 0;
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) {
                if (i >= TM || j >= TN) {   /* outside B: untouched */
                    err = fmax(err, fabs(b[i + j * TLD] - x[i + j * TLD]));
                    continue;
                }
                /* trmm: b = 0.5 op(A) x (or x op(A)); trsm: op(A) b (or b op(A)) = 0.5 x */
                const double *f = mm ? x : b;
                double s = 0;
                for (int p = 0; p < na; p++)
                    s += right ? f[i + p * TLD] * tri_at(a, TLD, upper, trans, unit, p, j)
                               : tri_at(a, TLD, upper, trans, unit, i, p) * f[p + j * TLD];
                err = fmax(err, mm ? fabs(b[i + j * TLD] - 0.5 * s) : fabs(s - 0.5 * x[i + j * TLD]));
            }
        if (err > 1e-12) printf("     %s right %d upper %d trans %d unit %d: error %.1e\n", mm ? "trmm" : "trsm", right, upper,
                                trans, unit, err);
        failed += err > 1e-12;
    }
    for (int upper = 0; upper < 2; upper++) {   /* potrf: L L^T (or U^T U) gives A back, the other triangle kept */
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) x[i + j * TLD] = i == j ? TN + 1.0 : ((i * 5 + j * 5) % 9 - 4) * 0.1;
        memcpy(b, x, sizeof b);
        info[0] = -1;
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dpotrf, 1), Val(upper), Val(TN), InOut(b, TLD * TLD),
                                             Val(TLD), Out(info, 1))),
                     DAG_OK);
        double err = info[0] == 0 ? 0 : 1;
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) {
                bool in = i < TN && j < TN && (upper ? i <= j : i >= j);
                double s = 0;
                for (int p = 0; in && p < TN; p++)   /* L's (i, p) is U's (p, i) */
                    s += upper ? (p <= i && p <= j ? b[p + i * TLD] * b[p + j * TLD] : 0)
                               : (p <= i && p <= j ? b[i + p * TLD] * b[j + p * TLD] : 0);
                err = fmax(err, fabs((in ? s : b[i + j * TLD]) - x[i + j * TLD]));
            }
        b[3 + 3 * TLD] = -1.0;   /* and one that is not positive definite: info names column 4 */
        info[0] = -1;
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dpotrf, 1), Val(upper), Val(TN), InOut(b, TLD * TLD),
                                             Val(TLD), Out(info, 1))),
                     DAG_OK);
        if (err > 1e-12 || info[0] != 4) printf("     potrf upper %d: error %.1e, info %d (want 4)\n", upper, err, info[0]);
        failed += err > 1e-12 || info[0] != 4;
    }
    for (int zero = 0; zero < 2; zero++) {   /* getrf of TM x TN: P A = L U, rows past TM kept; a zero column: info */
        static int piv[TN];
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) x[i + j * TLD] = zero && j == 3 ? 0.0 : ((i * 7 + j * 3) % 11 - 5) * 0.25 + (i == j + 2);
        memcpy(b, x, sizeof b);
        info[0] = -1;
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(dag_dgetrf, 1), Val(TM), Val(TN), InOut(b, TLD * TLD), Val(TLD),
                                             Out(piv, TN), Out(info, 1))),
                     DAG_OK);
        double err = 0;
        for (int r = 0; r < TN; r++)   /* x's TM x TN becomes P A, the swaps in order */
            for (int j = 0; piv[r] - 1 != r && j < TN; j++) {
                double t = x[r + j * TLD];
                x[r + j * TLD] = x[piv[r] - 1 + j * TLD], x[piv[r] - 1 + j * TLD] = t;
            }
        for (int j = 0; j < TLD; j++)
            for (int i = 0; i < TLD; i++) {
                double s = 0;
                for (int p = 0; i < TM && j < TN && p <= (i < j ? i : j); p++) s += (p == i ? 1.0 : b[i + p * TLD]) * b[p + j * TLD];
                err = fmax(err, fabs((i < TM && j < TN ? s : b[i + j * TLD]) - x[i + j * TLD]));
            }
        if (err > 1e-12 || info[0] != (zero ? 4 : 0)) printf("     getrf, a zero column %d: error %.1e, info %d\n", zero, err, info[0]);
        failed += err > 1e-12 || info[0] != (zero ? 4 : 0);
    }
    return failed;
}

/* dag_blas.h's syrk, trsm, trmm, potrf and getrf (all their variants) against plain loops: on the CPU
   and on a device, through the vendor's routines where they load, then (OpenCL: the mocks run
   only the vendors' routines) with no_library_kernels, the text. */
TEST(every_tile_kernel_and_variant_matches_plain_loops_as_text_and_as_the_vendors_routine) {
    NEED_DEVICES(1, 0, 0);
    vendor v;
    if (!vendor_of(backend, &v) && mock_lib()) {
        dag_shutdown();
        NOT_APPLICABLE("the mock %s runs tests/gpu's kernels alone", backend_name);
    }
    CHECK_EQ_INT(tile_kernel_failures(0), 0);
    CHECK_EQ_INT(tile_kernel_failures(1), 0);
    printf("     %s", routines[0] ? routines : "no vendor routine: the text\n");
    dag_shutdown();
    if (backend != DAG_OPENCL) return;
    dag_desc d;
    memset(&d, 0, sizeof d);
    d.logger.func = logger;
    d.no_library_kernels = 1;
    dag_setup(&d);
    routines[0] = 0;
    CHECK_EQ_INT(tile_kernel_failures(1), 0);
    CHECK(routines[0] == 0);   /* the text ran */
    dag_shutdown();
}

/* The CPU's Cholesky factor of a (n x n, tiles nb) and C = X X^T, into f and c: the references. */
static void cpu_reference(const double *a, const double *x, int n, int nb, double *f, double *c) {
    dag_array *A = dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), a, DAG_COL_MAJOR, n);
    dag_array *X = dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), x, DAG_COL_MAJOR, n);
    dag_array *C = dag_array_zeros(DAG_F64, n, n, dag_blocks(nb, nb));
    DAG_WITH_OPTIONS(.scope = dag_scope(.all_threads = 1)) {
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        CHECK_EQ_INT(dag_array_gemm(0, 1, 1.0, X, X, 0.0, C), DAG_OK);
    }
    dag_array_collect(A, f, DAG_COL_MAJOR, n), dag_array_collect(C, c, DAG_COL_MAJOR, n);
    dag_array_free(A), dag_array_free(X), dag_array_free(C);
}
/* The same on the devices of `scope`; returns the largest difference from f and c. */
static double on_devices(dag_scope scope, const double *a, const double *x, int n, int nb, const double *f,
                         const double *c) {
    double *out = malloc(sizeof(double) * (size_t)n * n), err = 0;
    dag_array *A = dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), a, DAG_COL_MAJOR, n);
    dag_array *X = dag_array_from_host(DAG_F64, n, n, dag_blocks(nb, nb), x, DAG_COL_MAJOR, n);
    dag_array *C = dag_array_zeros(DAG_F64, n, n, dag_blocks(nb, nb));
    DAG_WITH_OPTIONS(.scope = scope) {
        CHECK_EQ_INT(dag_array_potrf(A), DAG_OK);
        CHECK_EQ_INT(dag_array_gemm(0, 1, 1.0, X, X, 0.0, C), DAG_OK);
    }
    dag_array_collect(A, out, DAG_COL_MAJOR, n);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) err = fmax(err, fabs(out[i + j * n] - f[i + j * n]));
    dag_array_collect(C, out, DAG_COL_MAJOR, n);
    err = fmax(err, max_diff(out, c, (size_t)n * n));
    dag_array_free(A), dag_array_free(X), dag_array_free(C);
    free(out);
    return err;
}

/* dag_array's potrf and gemm on a device limited to a third of one matrix (its Cholesky's lower
   triangle, and the gemm's three matrices, do not fit): tiles are evicted, written back first where
   only the device holds them, and come again; the results are the CPU's; the device never holds
   more than its limit. */
TEST(an_array_past_the_devices_memory_limit_runs_through_eviction) {
    vendor v;
    NEED_VENDOR(v);
    enum { N = 128, NB = 32 };
    static double a[N * N], x[N * N], f[N * N], c[N * N];
    spd_matrix(a, N, 5);
    for (int i = 0; i < N * N; i++) x[i] = (double)((i * 7) % 11) * 0.25 - 1.25;
    cpu_reference(a, x, N, NB, f, c);
    dag_shutdown();
    setup(N * N * sizeof(double) / 3, 0);
    double err = on_devices(device_scope(1), a, x, N, NB, f, c);
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    printf("     a device limit of %zu bytes: %llu evictions, %llu bytes in, difference %.1e\n", m.total,
           (unsigned long long)m.evictions, (unsigned long long)m.bytes_to_device, err);
    CHECK(err < 1e-11);
    CHECK(m.evictions > 0);
    CHECK(m.used + m.pool <= m.total);
    dag_shutdown();
}

/* A float Cholesky on a device (its panel by the diagonal tile's inverse: the float fill, trsm and trmm),
   a partial last tile, on one device and on every device, gives the CPU's float factor. */
TEST(a_float_cholesky_on_the_devices_gives_the_cpus_factor) {
    vendor v;
    NEED_VENDOR(v);
    enum { N = 100, NB = 32 };
    static double a[N * N];
    static float af[N * N], cpu[N * N], dev[N * N];
    spd_matrix(a, N, 5);
    for (int i = 0; i < N * N; i++) af[i] = (float)a[i];
    for (int on = 0; on < 3; on++) {   /* the CPU, one device, every device */
        dag_array *A = dag_array_from_host(DAG_F32, N, N, dag_blocks(NB, NB), af, DAG_COL_MAJOR, N);
        dag_scope scope = on == 0 ? dag_scope(.all_threads = 1) : device_scope(on == 1 ? 1 : 0);
        DAG_WITH_OPTIONS(.scope = scope) { CHECK_EQ_INT(dag_array_potrf(A), DAG_OK); }
        dag_array_collect(A, on ? dev : cpu, DAG_COL_MAJOR, N);
        dag_array_free(A);
        double err = 0;
        for (int j = 0; on && j < N; j++)
            for (int i = j; i < N; i++) err = fmax(err, fabs((double)dev[i + j * N] - (double)cpu[i + j * N]));
        if (on) printf("     %s: largest difference from the CPU %.1e\n", on == 1 ? "one device" : "every device", err);
        CHECK(err < 1e-4);
    }
    dag_shutdown();
}

/* The factorisations whose updates go to the devices (pivoted LU, tiled QR, CAQR with 3 domains) give the
   CPU's factors on one device and on every device. The LU's row moves run on the devices, and its panels
   too where the vendor's getrf stands in for dag_blas.h's (cuSOLVER, rocSOLVER: the mocks count the
   calls), so that only the pivots come to the host; elsewhere (OpenCL) the panels do. */
TEST(lu_qr_and_caqr_on_the_devices_give_the_cpus_factors) {
    vendor v;
    NEED_VENDOR(v);
    enum { N = 100, NB = 16, SIZE = N * N };
    static double a[SIZE], out[3][3 * SIZE];
    for (int i = 0; i < SIZE; i++) a[i] = (double)((i * 37) % 101) / 50.0 - 1.0 + (i % (N + 1) == 0 ? 4.0 : 0.0);
    for (int on = 0; on < 3; on++) {   /* the CPU, one device, every device */
        dag_array *L = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        dag_array *Q = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        dag_array *C = dag_array_from_host(DAG_F64, N, N, dag_blocks(NB, NB), a, DAG_COL_MAJOR, N);
        static int64_t ipiv[N];
        static double tau[N];
        dag_array_qr *f = NULL;
        dag_scope scope = on == 0 ? dag_scope(.all_threads = 1) : device_scope(on == 1 ? 1 : 0);
        size_t home = bytes_to_host();
        const char *getrf = backend == DAG_CUDA ? "cusolverDnDgetrf" : "rocsolver_dgetrf";
        long getrfs = on ? library_calls(v.lib[1], getrf) : 0;   /* -1: no mock's count */
        DAG_WITH_OPTIONS(.scope = scope) { CHECK_EQ_INT(dag_array_getrf(L, ipiv), DAG_OK); }
        if (on == 1) {   /* on one device: only the pivots, or each step's panel, come to the host */
            size_t panels = 0, pivots = 0, moved = bytes_to_host() - home;
            for (int k = 0; k * NB < N; k++) {
                int w = N - k * NB < NB ? N - k * NB : NB;
                panels += (size_t)(N - k * NB) * (size_t)w * sizeof(double), pivots += (size_t)(w + 1) * sizeof(int);
            }
            long vendor_panels = getrfs >= 0 ? library_calls(v.lib[1], getrf) - getrfs : 0;
            printf("     getrf brought %zu bytes to the host (%s)\n", moved,
                   vendor_panels > 0 ? "its panels by the vendor's getrf on the device" : "its panels on the CPU");
            CHECK(moved <= panels);
            if (vendor_panels > 0) CHECK_EQ_INT(vendor_panels, (N + NB - 1) / NB);
            if (vendor_panels > 0) CHECK_EQ_INT(moved, pivots);   /* the ipiv and info of each step */
        }
        DAG_WITH_OPTIONS(.scope = scope) {
            CHECK_EQ_INT(dag_array_geqrf(Q, tau), DAG_OK);
            f = dag_array_caqr(C, 3);
        }
        CHECK(f != NULL);
        dag_array_collect(L, out[on], DAG_COL_MAJOR, N);
        dag_array_collect(Q, out[on] + SIZE, DAG_COL_MAJOR, N);
        dag_array_collect(C, out[on] + 2 * SIZE, DAG_COL_MAJOR, N);
        dag_array_qr_free(f);
        dag_array_free(L), dag_array_free(Q), dag_array_free(C);
        if (!on) continue;
        double err = max_diff(out[on], out[0], 3 * (size_t)SIZE);
        printf("     %s: largest difference from the CPU %.1e\n", on == 1 ? "one device" : "every device", err);
        CHECK(err < 1e-10);
    }
    dag_shutdown();
}

/* A gemm whose three matrices are 4.5 times a device's limit goes by blocks of C that fit with a tile
   column of A and row of B per step (dag_array.h's dag__gemm_block), step by step: each tile of A and
   B comes in once per block (256 tiles here, C's 64 besides: 320, with 2 workers or 16), not once per
   tile of C's columns (640 in C's order); the same with the program's own matrices wrapped (tiles the
   gemm makes its own: a wrapped tile would go home at each step's end); the result is the CPU's. */
TEST(a_gemm_past_the_devices_limit_moves_each_tile_once_per_block) {
    enum { N = 256, NB = 32, NT = N / NB, TILE = NB * NB * sizeof(double) };
    static double x[N * N], y[N * N], c[N * N], want[N * N];
    for (int i = 0; i < N * N; i++) x[i] = (double)((i * 7) % 11) - 5.0, y[i] = (double)((i * 5) % 13) - 6.0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int l = 0; l < N; l++) s += x[i + l * N] * y[l + j * N];
            want[i + j * N] = s;
        }
    for (int wrapped = 0; wrapped < 2; wrapped++) {
        NEED_DEVICES(1, 42 * TILE, 0);
        memset(c, 0, sizeof c);
        dag_blocks t = dag_blocks(NB, NB);
        dag_array *X = wrapped ? dag_array_wrap(DAG_F64, N, N, t, x, N) : dag_array_from_host(DAG_F64, N, N, t, x, DAG_COL_MAJOR, N);
        dag_array *Y = wrapped ? dag_array_wrap(DAG_F64, N, N, t, y, N) : dag_array_from_host(DAG_F64, N, N, t, y, DAG_COL_MAJOR, N);
        dag_array *C = wrapped ? dag_array_wrap(DAG_F64, N, N, t, c, N) : dag_array_zeros(DAG_F64, N, N, t);
        dag_memory_info before, after;
        CHECK_EQ_INT(dag_memory_stats(backend, 1, &before), DAG_OK);
        DAG_WITH_OPTIONS(.scope = device_scope(1)) { CHECK_EQ_INT(dag_array_gemm(0, 0, 1.0, X, Y, 0.0, C), DAG_OK); }
        CHECK_EQ_INT(dag_synchronize(backend), DAG_OK);
        CHECK_EQ_INT(dag_memory_stats(backend, 1, &after), DAG_OK);
        size_t tiles_in = (size_t)(after.bytes_to_device - before.bytes_to_device) / TILE;
        printf("     %s: %zu tiles moved in, %llu evictions\n", wrapped ? "wrapped" : "own tiles", tiles_in,
               (unsigned long long)(after.evictions - before.evictions));
        CHECK(tiles_in >= 2 * NT * NT);   /* A and B each came at least once */
        CHECK(tiles_in <= 360);           /* C's order would move 640 */
        if (!wrapped) dag_array_collect(C, c, DAG_COL_MAJOR, N);
        CHECK(max_diff(c, want, (size_t)N * N) == 0.0);   /* small integers: exact */
        dag_array_free(X), dag_array_free(Y), dag_array_free(C);
        dag_shutdown();
    }
}

/* An array's tiles go block-cyclically over every device in scope (tile (i, j) on device (i + j) mod
   count) with the vendors' routines: on two GPUs, and on the mock runtimes on four too (their
   MOCK_HIP_DEVICES), every device runs tiles and the results are the CPU's. */
TEST(an_arrays_tiles_spread_over_two_and_four_gpus_and_give_the_cpus_results) {
    vendor v;
    NEED_VENDOR(v);
    if (dag_device_count(backend) < 2) {
        dag_shutdown();
        NOT_APPLICABLE("needs 2 %s devices", backend_name);
    }
    enum { N = 128, NB = 32 };
    static double a[N * N], x[N * N], f[N * N], c[N * N];
    static dag_trace_record rec[4096];
    spd_matrix(a, N, 9);
    for (int i = 0; i < N * N; i++) x[i] = (double)((i * 5) % 13) * 0.125 - 0.75;
    cpu_reference(a, x, N, NB, f, c);
    bool mock = mock_lib() != NULL && backend != DAG_OPENCL;
    for (int pass = 0; pass < (mock ? 2 : 1); pass++) {
        if (pass) {   /* the mock runtime again, with four GPUs */
            dag_shutdown();
            setenv("MOCK_HIP_DEVICES", "4", 1);
            setup(0, 0);
        }
        int count = dag_device_count(backend), on[16] = { 0 }, idle = 0;
        dag_trace_enable(1);
        dag_trace_clear();
        double err = on_devices(device_scope(0), a, x, N, NB, f, c);
        dag_trace_enable(0);
        size_t n = dag_trace_records(rec, 4096);
        for (size_t i = 0; i < n && i < 4096; i++)
            if (rec[i].backend == backend && rec[i].processor >= 1 && rec[i].processor <= 16) on[rec[i].processor - 1]++;
        for (int d = 0; d < count && d < 16; d++) idle += on[d] == 0;
        printf("     %d devices: tiles' tasks %d %d %d %d..., difference %.1e\n", count, on[0], on[1], on[2], on[3], err);
        CHECK(!pass || count == 4);
        CHECK_EQ_INT(idle, 0);
        CHECK(err < 1e-11);
    }
    dag_shutdown();
    unsetenv("MOCK_HIP_DEVICES");
}

/* A slice of a device lane's track in a JSON trace: its name, category, row, start and length. */
typedef struct slice { char name[32], cat[8]; int tid; double ts, dur; } slice;
/* Reads the trace at path: the rows named "<dev>: <lane>" into tids[lane] (copies in, copies out,
   kernels 1, kernels 2; -1 where absent), and the device slices (cat copy or kernel). */
static int read_lane_trace(const char *path, const char *dev, int tids[4], slice *out, int max) {
    static const char *const lanes[4] = { "copies in", "copies out", "kernels 1", "kernels 2" };
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;
    for (int l = 0; l < 4; l++) tids[l] = -1;
    while (f && fgets(line, sizeof line, f)) {
        int tid = -1;
        char *p = strstr(line, "\"tid\":");
        if (p) tid = atoi(p + 6);
        for (int l = 0; l < 4; l++) {
            char want[96];
            snprintf(want, sizeof want, "\"name\":\"%s: %s\"", dev, lanes[l]);
            if (strstr(line, "thread_name") && strstr(line, want)) tids[l] = tid;
        }
        char *cat = strstr(line, "\"cat\":\"copy\"") ? "copy" : strstr(line, "\"cat\":\"kernel\"") ? "kernel" : NULL;
        if (!cat || n == max) continue;
        slice *s = &out[n++];
        sscanf(line, "{\"name\":\"%31[^\"]", s->name);
        snprintf(s->cat, sizeof s->cat, "%s", cat);
        s->tid = tid;
        s->ts = atof(strstr(line, "\"ts\":") + 5);
        s->dur = atof(strstr(line, "\"dur\":") + 6);
    }
    if (f) fclose(f);
    return n;
}

/* Copies go on a device's copy lanes and kernels on its kernel lanes, each lane a track of its own
   in the JSON trace with a slice per command; two independent chains of kernels take one kernel
   lane each and stay there; and, on the mock's clock (which runs a stream only as far as a wait or
   a host sync pulls it, newest streams first), no kernel starts before the copies in it needs have
   ended, nor a copy out before the kernel that wrote its bytes. */
TEST(each_lane_is_a_track_and_kernels_follow_the_copies_they_need) {
    if (backend != DAG_CUDA && backend != DAG_HIP) NOT_APPLICABLE("%s has one queue per device", backend_name);
    NEED_DEVICES(1, 0, 1);
    enum { N = 4096, ROUNDS = 3 };
    static float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = (float)(2 * i);
    dag_options o = on_device(1);
    DAG_DATADEPS {
        for (int r = 0; r < ROUNDS; r++) {
            dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(a, N));
            dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(b, N));
        }
    }
    CHECK(a[0] == ROUNDS && a[N - 1] == N - 1 + ROUNDS && b[N - 1] == 2 * (N - 1) + ROUNDS);
    char path[] = "/tmp/dag_lanes_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    CHECK_EQ_INT(dag_trace_write_json(path), DAG_OK);
    static slice sl[256];
    int tids[4], n = read_lane_trace(path, backend == DAG_CUDA ? "cuda 1" : "hip 1", tids, sl, 256);
    remove(path);
    for (int l = 0; l < 4; l++) CHECK(tids[l] >= 0);
    int per[4] = { 0 }, wrong = 0;
    double first_in_end = 1e300, last_kernel_end = 0, first_out = 1e300, first_kernel = 1e300;
    for (int i = 0; i < n; i++) {
        int lane = -1;
        for (int l = 0; l < 4; l++) lane = sl[i].tid == tids[l] ? l : lane;
        if (lane < 0) continue;
        per[lane]++;
        bool copy = !strcmp(sl[i].cat, "copy");
        wrong += copy != (lane < 2) || sl[i].dur < 0;
        if (lane == 0) wrong += strcmp(sl[i].name, "copy in") != 0, first_in_end = fmin(first_in_end, sl[i].ts + sl[i].dur);
        if (lane == 1) wrong += strcmp(sl[i].name, "copy out") != 0, first_out = fmin(first_out, sl[i].ts);
        if (lane >= 2) {
            wrong += strcmp(sl[i].name, "gpu_inc") != 0;
            first_kernel = fmin(first_kernel, sl[i].ts);
            last_kernel_end = fmax(last_kernel_end, sl[i].ts + sl[i].dur);
        }
    }
    printf("     slices: %d copies in, %d copies out, kernels %d and %d\n", per[0], per[1], per[2], per[3]);
    CHECK_EQ_INT(wrong, 0);
    CHECK(per[0] == 2 && per[1] == 2);                 /* a and b, in and out */
    CHECK(per[2] == ROUNDS && per[3] == ROUNDS);       /* a chain per kernel lane */
    CHECK(first_kernel >= first_in_end);               /* no kernel before the first upload ended */
    CHECK(first_out >= 0 && last_kernel_end > 0 && first_out >= first_kernel);
    dag_shutdown();
}

/* What the mock runtime's counter `symbol` (a long (void) function) says, or -1 (no mock). */
static long mock_count(const char *symbol) {
    void *lib = mock_lib(), *sym = lib ? dlsym(lib, symbol) : NULL;
    long (*f)(void) = NULL;
    memcpy(&f, &sym, sizeof sym);
    return f ? f() : -1;
}
/* The mock HIP's host ranges registered now, or -1 (no mock). */
static long pinned_ranges(void) { return mock_count("mock_hip_pinned_ranges"); }

/* A resident span of 1 MiB is pinned the first time it moves and copied without staging, and
   unpinned when it is unregistered; a plain span is not pinned; the bytes are right either way,
   also when the program writes the pinned span between the device's uses. */
TEST(a_resident_span_is_pinned_while_registered_and_copied_straight) {
    if (backend != DAG_CUDA && backend != DAG_HIP) NOT_APPLICABLE("%s does not pin host memory", backend_name);
    NEED_DEVICES(1, 0, 0);
    if (pinned_ranges() < 0) {
        dag_shutdown();
        NOT_APPLICABLE("needs the mock %s runtime", backend_name);
    }
    enum { N = 1 << 18 };   /* 1 MiB of floats */
    float *kept = (float *)aligned_alloc(4096, N * sizeof(float)), *plain = (float *)calloc(N, sizeof(float));
    memset(kept, 0, N * sizeof(float));
    long before = pinned_ranges();
    dag_data h = dag_data_register_resident(kept, N, sizeof(float));
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(h))), DAG_OK);
    CHECK_EQ_INT(pinned_ranges() - before, 1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(plain, N))), DAG_OK);
    CHECK_EQ_INT(pinned_ranges() - before, 1);   /* not the plain span */
    float *home = (float *)dag_data_pointer(h);   /* home (a download into pinned memory) */
    CHECK(home == kept && kept[0] == 1.0f && kept[N - 1] == 1.0f);
    for (int i = 0; i < N; i++) kept[i] = 10.0f;   /* the program's write; the next upload takes it */
    DAG_DATADEPS {
        dag_spawn(cpu_add_float, InOut(h), Val((size_t)N), Val(1.0f));
        dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(h));
    }
    CHECK(dag_data_pointer(h) == kept && kept[0] == 12.0f && kept[N - 1] == 12.0f && plain[N - 1] == 1.0f);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    CHECK_EQ_INT(pinned_ranges() - before, 0);   /* unpinned: the program may free it now */
    dag_shutdown();
    free(kept), free(plain);
}

/* Scratch on a device (dag_data_discard): its device copy is dropped, not brought home, so the host
   bytes are what they were and nothing moves; the same span unregistered comes home; the memory
   the discarded copy held is free again. */
TEST(a_discarded_span_leaves_the_device_without_coming_home) {
    NEED_DEVICES(1, 0, 0);
    enum { N = 1 << 16 };
    static float scratch[N], kept[N];
    for (int i = 0; i < N; i++) scratch[i] = kept[i] = 5.0f;
    dag_data s = dag_data_register_resident(scratch, N, sizeof(float)), k = dag_data_register_resident(kept, N, sizeof(float));
    dag_options o = on_device(1);
    DAG_DATADEPS {
        dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(s));
        dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(k));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    dag_memory_info before, after;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &before), DAG_OK);
    CHECK_EQ_INT(dag_data_discard(s), DAG_OK);
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &after), DAG_OK);
    CHECK_EQ_INT(after.bytes_to_host - before.bytes_to_host, 0);
    CHECK_EQ_INT(before.used - after.used, N * sizeof(float));
    CHECK(scratch[0] == 5.0f && scratch[N - 1] == 5.0f);   /* as they were: the device's 6s are gone */
    CHECK_EQ_INT(dag_data_unregister(k), DAG_OK);
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &after), DAG_OK);
    CHECK_EQ_INT(after.bytes_to_host - before.bytes_to_host, N * sizeof(float));
    CHECK(kept[0] == 6.0f && kept[N - 1] == 6.0f);
    dag_shutdown();
}

/* A chain of kernel tasks on resident data (nothing moves) costs the runtime a launch per task and
   little else: the launches the cost model samples record their events on spares made once (no
   event made or destroyed per task), a chain on one lane waits on no event, and nothing waits for
   the device until the program does. */
TEST(a_chain_of_kernel_tasks_costs_a_launch_each_and_makes_no_event_per_task) {
    if (backend != DAG_CUDA && backend != DAG_HIP) NOT_APPLICABLE("the mock HIP and CUDA count their calls");
    NEED_DEVICES(1, 0, 0);
    if (mock_count("mock_failures") < 0) {
        dag_shutdown();
        NOT_APPLICABLE("needs the mock %s runtime", backend_name);
    }
    enum { K = 1000, N = 256 };
    static float v[N];
    memset(v, 0, sizeof v);
    dag_data h = dag_data_register_resident(v, N, sizeof(float));
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(h))), DAG_OK);   /* built, allocated, moved */
    static const char *const calls[] = { "hipModuleLaunchKernel", "hipEventCreateWithFlags", "hipEventRecord",
                                         "hipStreamWaitEvent", "hipStreamSynchronize", "hipEventSynchronize",
                                         "hipMemcpyAsync", "hipMemcpy2DAsync" };
    enum { NCALLS = sizeof calls / sizeof calls[0] };
    long before[NCALLS], n[NCALLS];
    void *lib = mock_lib();
    long (*count)(const char *) = NULL;
    void *sym = dlsym(lib, "mock_calls");
    memcpy(&count, &sym, sizeof sym);
    for (int c = 0; c < NCALLS; c++) before[c] = count(calls[c]);
    DAG_DATADEPS {
        for (int i = 0; i < K; i++) dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(h));
    }
    for (int c = 0; c < NCALLS; c++) n[c] = count(calls[c]) - before[c];
    printf("     %d tasks: %ld launches, %ld events made, %ld recorded, %ld waits, %ld syncs, %ld copies\n", K, n[0], n[1],
           n[2], n[3], n[4] + n[5], n[6] + n[7]);
    CHECK_EQ_INT(n[0], K);
    CHECK(n[1] <= 8);              /* spares, not an event per sampled launch */
    CHECK(n[2] <= K / 6);          /* the sampled launches' two events (a few at first, then one in 16) */
    CHECK_EQ_INT(n[3], 0);         /* one lane: no waits */
    CHECK_EQ_INT(n[4] + n[5], 0);  /* nobody waited for the device */
    CHECK_EQ_INT(n[6] + n[7], 0);  /* resident: nothing moved */
    float *home = (float *)dag_data_pointer(h);
    CHECK(home && home[0] == (float)(K + 1) && home[N - 1] == (float)(K + 1));
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    dag_shutdown();
}

/* The Level Zero build is SPIR-V: run it on an OpenCL device that takes
   SPIR-V (Intel's CPU runtime does; PoCL does not), through the OpenCL
   library dag.h loaded, so the module made for Level Zero is checked by a
   real SPIR-V consumer here, where no Level Zero driver exists. */
TEST(the_level_zero_spirv_runs_on_an_opencl_device_that_takes_spirv) {
    if (backend != DAG_OPENCL) NOT_APPLICABLE("runs with the OpenCL backend");
    setup(0, 0);
    typedef dag__cl_program (*create_with_il)(dag__cl_context, const void *, size_t, dag__cl_int *);
    create_with_il il = NULL;
    void *sym = dag__cl.lib ? dlsym(dag__cl.lib, "clCreateProgramWithIL") : NULL;
    memcpy(&il, &sym, sizeof sym);
    int dev = -1;
    for (int d = 0; il && d < dag__cl.num_devices && dev < 0; d++) {
        char version[256] = "";
        dag__cl.api.clGetDeviceInfo(dag__cl.devices[d].id, 0x105B /* CL_DEVICE_IL_VERSION */, sizeof version - 1,
                                    version, NULL);
        if (strstr(version, "SPIR-V")) dev = d;
    }
    if (dev < 0) {
        dag_shutdown();
        /* the run on Intel's CPU runtime (make test-gpu) says it has one: there its absence is a failure */
        CHECK(!getenv("DAG_TEST_SPIRV"));
        NOT_APPLICABLE("no OpenCL device of this run takes SPIR-V (Intel's CPU runtime does: make deps installs it)");
    }
    printf("     on %s\n", dag__cl.devices[dev].name);
    dag__cl_device_info *d = &dag__cl.devices[dev];
    enum { N = 10007 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (size_t i = 0; i < N; i++) x[i] = (double)i, y[i] = 0.5;
    dag__cl_int e = 0;
    dag__cl_program p = il(d->context, gpu_axpy__ze.image, gpu_axpy__ze.image_size, &e);
    CHECK(p != NULL);
    if (p) CHECK_EQ_INT(dag__cl.api.clBuildProgram(p, 1, &d->id, "", NULL, NULL), 0);
    dag__cl_kernel k = p ? dag__cl.api.clCreateKernel(p, gpu_axpy__ze.symbol, &e) : NULL;
    CHECK(k != NULL);
    dag__cl_mem bx = dag__cl.api.clCreateBuffer(d->context, DAG__CL_MEM_READ_WRITE, N * sizeof(double), NULL, &e);
    dag__cl_mem by = dag__cl.api.clCreateBuffer(d->context, DAG__CL_MEM_READ_WRITE, N * sizeof(double), NULL, &e);
    if (k && bx && by) {
        dag__cl_ulong n = N;
        double a = 3.0;
        size_t global = (N + 255) / 256 * 256;
        dag__cl.api.clEnqueueWriteBuffer(d->queue[0], bx, 1, 0, N * sizeof(double), x, 0, NULL, NULL);
        dag__cl.api.clEnqueueWriteBuffer(d->queue[0], by, 1, 0, N * sizeof(double), y, 0, NULL, NULL);
        dag__cl.api.clSetKernelArg(k, 0, sizeof n, &n);
        dag__cl.api.clSetKernelArg(k, 1, sizeof a, &a);
        dag__cl.api.clSetKernelArg(k, 2, sizeof bx, &bx);
        dag__cl.api.clSetKernelArg(k, 3, sizeof by, &by);
        CHECK_EQ_INT(dag__cl.api.clEnqueueNDRangeKernel(d->queue[0], k, 1, NULL, &global, NULL, 0, NULL, NULL), 0);
        CHECK_EQ_INT(dag__cl.api.clEnqueueReadBuffer(d->queue[0], by, 1, 0, N * sizeof(double), y, 0, NULL, NULL), 0);
        size_t bad = 0;
        for (size_t i = 0; i < N; i++) bad += y[i] != 0.5 + 3.0 * (double)i;
        CHECK_EQ_INT(bad, 0);
    }
    if (bx) dag__cl.api.clReleaseMemObject(bx);
    if (by) dag__cl.api.clReleaseMemObject(by);
    if (k) dag__cl.api.clReleaseKernel(k);
    if (p) dag__cl.api.clReleaseProgram(p);
    dag_shutdown();
    free(x), free(y);
}

/* ---- the vendors' rules, as the mock runtimes enforce them (issue 18) ---- */

/* The mock runtime the backend under test loaded, or NULL (a real driver,
   or none): tests of the mocks' switches skip without one. */
static void *mock_lib(void) {
    void *lib = NULL;
#if defined(DAG_BACKEND_HIP)
    if (backend == DAG_HIP) lib = dag__hip.lib;
#endif
#if defined(DAG_BACKEND_LEVEL_ZERO)
    if (backend == DAG_LEVEL_ZERO) lib = dag__ze.lib;
#endif
#if defined(DAG_BACKEND_CUDA)
    /* the mock CUDA runtime is linked, not loaded: found in the program's own symbols */
    static void *program;
    if (backend == DAG_CUDA && !program) program = dlopen(NULL, RTLD_NOW);
    if (backend == DAG_CUDA) lib = program;
#endif
    return lib && dlsym(lib, "mock_fail") ? lib : NULL;
}
/* Arms the mock to fail the nth call of fn from now (0 disarms). */
static void mock_fail_at(const char *fn, long nth) {
    void *lib = mock_lib(), *sym = lib ? dlsym(lib, "mock_fail") : NULL;
    void (*f)(const char *, long) = NULL;
    memcpy(&f, &sym, sizeof sym);
    if (f) f(fn, nth);
}
/* The same, the call returning `code` instead of its own error. */
static void mock_fail_with(const char *fn, long nth, long code) {
    void *lib = mock_lib(), *sym = lib ? dlsym(lib, "mock_fail_with") : NULL;
    void (*f)(const char *, long, long) = NULL;
    memcpy(&f, &sym, sizeof sym);
    if (f) f(fn, nth, code);
}
static long mock_failures(void) {
    long n = mock_count("mock_failures");
    return n > 0 ? n : 0;
}

/* Sets the mock runtime's knob `var` (before set-up, where the mock reads it) and sets up one
   device; skips, the knob cleared, where the backend's runtime is not the mock. */
#define NEED_MOCK(var, value) \
    do { \
        setenv((var), (value), 1); \
        NEED_DEVICES(1, 0, 0); \
        if (!mock_lib()) { \
            dag_shutdown(); \
            unsetenv(var); \
            NOT_APPLICABLE("needs the mock %s runtime", backend_name); \
        } \
    } while (0)

/* HIP takes at most 2^32 - 256 items in one launch (gridDim x blockDim < 2^32), CUDA 2^31 - 1 blocks,
   Level Zero maxGroupCountX groups (the mock's is 1,000 here, of 128 items): a bigger range is refused
   by name before any copy, not handed to the runtime (the mocks abort on such a launch, as the real
   runtimes refuse it). */
TEST(a_launch_larger_than_the_runtime_takes_is_refused_by_name) {
    if (backend != DAG_HIP && backend != DAG_CUDA && backend != DAG_LEVEL_ZERO)
        NOT_APPLICABLE("%s launches have no item limit of their own", backend_name);
    if (backend == DAG_LEVEL_ZERO) NEED_MOCK("MOCK_ZE_MAX_GROUPS", "1000");
    else NEED_DEVICES(1, 0, 0);
    static float v[16];
    memset(v, 0, sizeof v);
    size_t too_many = backend == DAG_HIP ? (size_t)1 << 32 : backend == DAG_CUDA ? (size_t)0x7fffffff * 256 + 1 : 1000 * 128 + 1;
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, too_many), InOut(v, 16))), DAG_ERR_DEVICE);
    CHECK(strstr(last_error, "are more than one launch") != NULL);
    if (!strstr(last_error, "are more than one launch")) printf("     got: %s\n", last_error);
    CHECK(v[0] == 0.0f && v[15] == 0.0f);   /* nothing ran */
    static float w[16];   /* not v: the failed writer of v stays its last writer, and cancels what follows */
    memset(w, 0, sizeof w);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, 16), InOut(w, 16))), DAG_OK);   /* a fitting one runs */
    CHECK(w[0] == 1.0f && w[15] == 1.0f);
    if (backend == DAG_LEVEL_ZERO) {   /* and one of exactly the most groups */
        enum { MOST = 1000 * 128 };
        float *u = (float *)calloc(MOST, sizeof *u);
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, MOST), InOut(u, MOST))), DAG_OK);
        CHECK(u[0] == 1.0f && u[MOST - 1] == 1.0f);
        free(u);
    }
    dag_shutdown();
    unsetenv("MOCK_ZE_MAX_GROUPS");
}

DAG_TASK(void, synchronize_task, (int, which)) {
    dag_result r = dag_synchronize((dag_backend)which);
    if (r != DAG_OK) dag_fail(r, "dag_synchronize returned %d", (int)r);
}

/* Level Zero forbids appending to one command list from two threads at
   once (the mock aborts): dag_synchronize from one worker while another
   queues kernels on the same device must wait its turn. */
TEST(dag_synchronize_while_other_workers_queue_on_the_device_is_serialised) {
    NEED_DEVICES(1, 0, 0);
    enum { N = 2048, SPANS = 32, ROUNDS = 6 };
    float *v[SPANS];
    for (int s = 0; s < SPANS; s++) v[s] = calloc(N, sizeof(float));
    dag_options o = on_device(1);
    dag_result r = DAG_OK;
    DAG_DATADEPS {
        for (int round = 0; round < ROUNDS; round++)
            for (int s = 0; s < SPANS; s++) {
                dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[s], N));
                dag_spawn(synchronize_task, Val((int)backend));
            }
    }
    r = dag_last_region_result();
    CHECK_EQ_INT(r, DAG_OK);
    size_t bad = 0;
    for (int s = 0; s < SPANS; s++)
        for (size_t i = 0; i < N; i++) bad += v[s][i] != (float)ROUNDS;
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    for (int s = 0; s < SPANS; s++) free(v[s]);
}

/* dag_data_unregister whose write-back fails (injected) reports it, and lets the span go all the same:
   the program owns its memory again, so no later dag_synchronize or dag_shutdown may write the stale
   device copy over it (it did: 42 written by the program came back as 1). */
TEST(a_failed_unregister_reports_it_and_never_writes_the_span_later) {
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib() || backend == DAG_OPENCL) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    enum { N = 1 << 16 };   /* 256 KiB of floats: pinned as a resident span */
    float *y = (float *)calloc(N, sizeof *y);
    dag_data h = dag_data_register_resident(y, N, sizeof *y);
    dag_options o = on_device(1);
    DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(h)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    /* the write-back's wait: Level Zero's first host wait, CUDA's and HIP's second event wait */
    mock_fail_at(backend == DAG_LEVEL_ZERO ? "zeEventHostSynchronize" : "hipEventSynchronize", backend == DAG_LEVEL_ZERO ? 1 : 2);
    long before = mock_failures();
    dag_result r = dag_data_unregister(h);
    mock_fail_at(NULL, 0);
    if (mock_failures() > before) CHECK_EQ_INT(r, DAG_ERR_DEVICE);
    for (int i = 0; i < N; i++) y[i] = 42.0f;
    CHECK_EQ_INT(dag_synchronize(backend), DAG_OK);
    CHECK(y[0] == 42.0f && y[N - 1] == 42.0f);
    dag_shutdown();
    CHECK(y[0] == 42.0f && y[N - 1] == 42.0f);
    free(y);
}

/* A plain span written on a device whose copy home at its region's end fails (injected): the region
   fails, and the span's device copy goes with it, since the program may write or free that memory now.
   A later region end wrote the stale copy into it (into freed memory: dag_array_potrf's info). */
TEST(a_failed_copy_home_at_a_region_end_never_writes_the_span_later) {
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib() || backend == DAG_OPENCL) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    enum { N = 4096 };
    dag_options o = on_device(1);
    int failed_regions = 0;
    for (int nth = 1; nth <= 3; nth++) {
        float *y = (float *)calloc(N, sizeof *y), *z = (float *)calloc(N, sizeof *z);
        mock_fail_at(backend == DAG_LEVEL_ZERO ? "zeEventHostSynchronize" : "hipEventSynchronize", nth);
        long before = mock_failures();
        DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(y, N)); }
        dag_result r = dag_last_region_result();
        mock_fail_at(NULL, 0);
        if (mock_failures() > before) {
            CHECK(r != DAG_OK);
            failed_regions++;
        }
        for (int i = 0; i < N; i++) y[i] = 42.0f;   /* the program's memory again */
        DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(z, N)); }   /* another region end */
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
        CHECK(y[0] == 42.0f && y[N - 1] == 42.0f);
        CHECK(z[0] == 1.0f);
        free(y);   /* and nothing writes it after this */
        CHECK_EQ_INT(dag_wait_all(), DAG_OK);
        free(z);
    }
    CHECK(failed_regions > 0);
    dag_shutdown();
}

/* A task that needs room on a full device, whose victim's copy home fails (injected), fails naming that
   (DAG_ERR_DEVICE), not "do not fit" (DAG_ERR_OUT_OF_MEMORY: the device had room once the victim went),
   and the victim is not lost. */
TEST(an_eviction_whose_copy_home_fails_fails_the_task_naming_it) {
    NEED_DEVICES(1, 40000, 0);   /* room for one span of 32 KiB */
    if (!mock_lib() || backend == DAG_OPENCL) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    enum { N = 8192 };
    float *y = (float *)calloc(N, sizeof *y), *z = (float *)calloc(N, sizeof *z);
    dag_options o = on_device(1);
    dag_data hy = dag_data_register_resident(y, N, sizeof *y);
    DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(hy)); }   /* y changed on the device, kept there */
    mock_fail_at(backend == DAG_LEVEL_ZERO ? "zeEventHostSynchronize" : "hipEventSynchronize", 1);
    long before = mock_failures();
    DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(z, N)); }   /* y must go: its copy home fails */
    mock_fail_at(NULL, 0);
    if (mock_failures() > before) {
        CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_DEVICE);
        CHECK(strstr(last_error, "making room for") != NULL);
    }
    float *p = (float *)dag_data_pointer(hy);
    CHECK(p && p[0] == 1.0f && p[N - 1] == 1.0f);   /* nothing lost */
    dag_data_unregister(hy);
    dag_shutdown();
    free(y), free(z);
}

/* Every runtime call the backend makes may fail (the mock fails the nth
   call of each in turn): the task fails, its dependents fail, no handle is
   left dangling (the mocks abort on a use or a destroy of a destroyed
   event, a reset of an event in use, a free under a queued command, and
   count live objects at exit), no wait hangs, and the next work is right. */
TEST(an_injected_failure_of_any_runtime_call_fails_its_task_and_leaves_nothing_dangling) {
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib()) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    dag_shutdown();
    static const char *const hip_calls[] = {
        "hipEventRecord", "hipEventCreateWithFlags", "hipMemcpy2DAsync", "hipMemcpyAsync", "hipModuleLaunchKernel",
        "hipEventSynchronize", "hipEventQuery", "hipMalloc", "hipHostMalloc", "hipStreamWaitEvent", "hipMemcpyPeerAsync",
        "hipModuleLoadData", "hipModuleGetFunction", "hipSetDevice", "hipGetDevice", "hipEventElapsedTime",
        "hipStreamSynchronize", "hipEventDestroy", "hipFree", "rocblas_create_handle", "rocblas_set_stream",
        "rocblas_dgemm", "rocsolver_dpotrf", NULL };
    static const char *const cuda_calls[] = {   /* the mock CUDA is the mock HIP, plus nvcc's kernels, cuBLAS, cuSOLVER */
        "hipEventRecord", "hipEventCreateWithFlags", "hipMemcpy2DAsync", "hipMemcpyAsync", "hipModuleLaunchKernel",
        "hipEventSynchronize", "hipEventQuery", "hipMalloc", "hipHostMalloc", "hipStreamWaitEvent", "hipMemcpyPeerAsync",
        "hipSetDevice", "hipGetDevice", "hipEventElapsedTime", "hipStreamSynchronize", "hipEventDestroy", "hipFree",
        "cudaFuncGetAttributes", "cublasCreate_v2", "cublasSetStream_v2", "cublasDgemm_v2", "cusolverDnCreate",
        "cusolverDnSetStream", "cusolverDnDpotrf_bufferSize", "hipMallocAsync", "cusolverDnDpotrf", NULL };
    static const char *const ze_calls[] = {
        "zeCommandListAppendLaunchKernel", "zeCommandListAppendMemoryCopy", "zeCommandListAppendMemoryCopyRegion",
        "zeCommandListAppendBarrier", "zeEventHostSynchronize", "zeEventQueryStatus", "zeEventHostReset", "zeMemAllocDevice",
        "zeEventCreate", "zeModuleCreate", "zeKernelCreate", "zeKernelSetArgumentValue", "zeKernelSetGroupSize", "zeMemAllocHost",
        "zeEventQueryKernelTimestamp", "zeMemFree", "zeEventDestroy", NULL };
    const char *const *calls = backend == DAG_LEVEL_ZERO ? ze_calls : backend == DAG_CUDA ? cuda_calls : hip_calls;
    enum { N = 20000, R = 64, C = 48, LD = 80, G = 8 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z), *a = malloc(R * LD * sizeof *a);
    static double ga[G * G], gb[G * G], gc[G * G], sp[G * G];
    static int info[1];
    bool potrf = backend != DAG_LEVEL_ZERO;   /* a vendor's routine (cuSOLVER, rocSOLVER): the mock Level Zero has none */
    int injected = 0;
    for (int c = 0; calls[c]; c++)
        for (long nth = 1; nth <= 3; nth++) {
            setup(0, 0);
            int two = dag_device_count(backend) >= 2;
            for (size_t i = 0; i < N; i++) x[i] = 1.0, y[i] = 0.0, z[i] = 0.0;
            for (size_t i = 0; i < R * LD; i++) a[i] = 0.0;
            for (int i = 0; i < G * G; i++) ga[i] = 1.0, gb[i] = 2.0, gc[i] = 0.0, sp[i] = i % (G + 1) ? 0.0 : 4.0;
            info[0] = -1;
            dag_options d1 = on_device(1), d2 = on_device(two ? 2 : 1);
            long before = mock_failures();
            mock_fail_at(calls[c], nth);
            dag_task t1, t2, t3, t4;
            DAG_DATADEPS {
                t1 = dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(x, N), InOut(y, N));    /* y = 2 */
                t2 = dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(y, N), InOut(z, N));    /* z = y */
                t3 = dag_spawn(cpu_add, InOut(z, N), Val((size_t)N), Val(1.0));                      /* z += 1 */
                t4 = dag_spawn_with(&d1, DAG_LAUNCH(gpu_tile_add, R * C), Val(C), Ld(a), Val(1.0), InOut(a, R, C, LD));
                dag_spawn_with(&d2, DAG_LAUNCH(dag_dgemm, G * G), Val(0), Val(0), Val(G), Val(G), Val(G), Val(1.0),
                               In(ga, G * G), Val(G), In(gb, G * G), Val(G), Val(0.0), InOut(gc, G * G), Val(G));
                if (potrf)
                    dag_spawn_with(&d1, DAG_LAUNCH(dag_dpotrf, 1), Val(0), Val(G), InOut(sp, G * G), Val(G), Out(info, 1));
            }
            dag_result r = dag_last_region_result();
            mock_fail_at(NULL, 0);
            int hit = mock_failures() > before;
            injected += hit;
            dag_result r1 = dag_wait(t1), r2 = dag_wait(t2), r3 = dag_wait(t3);
            (void)t4;
            if (r1 != DAG_OK) CHECK(r2 != DAG_OK && r3 != DAG_OK);   /* dependents fail too */
            if (r2 != DAG_OK) CHECK(r3 != DAG_OK);
            if (!hit) CHECK_EQ_INT(r, DAG_OK);
            if (r == DAG_OK) {   /* recovered (or never hit): the results are right */
                size_t bad = 0;
                for (size_t i = 0; i < N; i++) bad += y[i] != 2.0 || z[i] != 3.0;
                for (int i = 0; i < R; i++)
                    for (int j = 0; j < LD; j++) bad += a[i * LD + j] != (j < C ? 1.0 : 0.0);
                for (int i = 0; i < G * G; i++) bad += gc[i] != 2.0 * G;
                if (potrf) bad += info[0] != 0 || sp[0] != 2.0 || sp[G * G - 1] != 2.0;   /* 4 I = (2 I)(2 I)^T */
                if (bad) fprintf(stderr, "  %s #%ld: %zu wrong values\n", calls[c], nth, bad);
                CHECK_EQ_INT(bad, 0);
            }
            /* and the next work is right (a kernel whose build failed is not built there again: it
               runs on the CPU then; a failure to switch devices may have met the build too) */
            for (size_t i = 0; i < N; i++) y[i] = 0.0;
            dag_options next = d1;
            if (strstr(" zeModuleCreate zeKernelCreate zeKernelSetGroupSize hipModuleLoadData hipModuleGetFunction "
                       "cudaFuncGetAttributes hipSetDevice hipGetDevice ", calls[c]))
                next.scope = dag_scope_union(d1.scope, dag_scope(.all_threads = 1));
            DAG_DATADEPS { dag_spawn_with(&next, DAG_LAUNCH(gpu_axpy, N), Val(3.0), In(x, N), InOut(y, N)); }
            CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
            size_t bad = 0;
            for (size_t i = 0; i < N; i++) bad += y[i] != 3.0;
            CHECK_EQ_INT(bad, 0);
            dag_shutdown();
        }
    printf("     %d injected failures\n", injected);
    CHECK(injected > 10);
    free(x), free(y), free(z), free(a);
}

/* CUDA and HIP keep a current device per thread: the program's own runtime
   calls go to it, so dag.h gives the program thread its device back. */
TEST(the_program_threads_current_device_is_unchanged_by_setup_work_and_shutdown) {
    if (backend != DAG_HIP && backend != DAG_CUDA) NOT_APPLICABLE("CUDA and HIP only");
    setup(0, 0);
    int have = dag_device_count(backend);
    int (*get)(int *) = NULL, (*set)(int) = NULL;
    void *gs = NULL, *ss = NULL;
#if defined(DAG_BACKEND_HIP)
    if (backend == DAG_HIP && dag__hip.lib) gs = dlsym(dag__hip.lib, "hipGetDevice"), ss = dlsym(dag__hip.lib, "hipSetDevice");
#endif
#if defined(DAG_BACKEND_CUDA)
    if (backend == DAG_CUDA && have) {
        cudaError_t (*g)(int *) = cudaGetDevice;
        cudaError_t (*t)(int) = cudaSetDevice;
        memcpy(&gs, &g, sizeof gs), memcpy(&ss, &t, sizeof ss);
    }
#endif
    dag_shutdown();
    if (have < 2 || !gs || !ss) NOT_APPLICABLE("needs 2 %s devices", backend_name);
    memcpy(&get, &gs, sizeof gs), memcpy(&set, &ss, sizeof ss);
    CHECK_EQ_INT(set(0), 0);
    int now = -1;
    setup(0, 0);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);   /* dag_setup opened every device */
    enum { N = 300000 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    for (size_t i = 0; i < N; i++) x[i] = 1.0;
    dag_options d2 = on_device(2), d1 = on_device(1);
    DAG_DATADEPS {
        for (int i = 0; i < 4; i++) {
            dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));
            dag_spawn_with(&d1, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));
        }
    }
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);   /* the region's tasks, its write-back, ran on this thread too */
    dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, N), Val(1.0), In(x, N), InOut(y, N));
    CHECK_EQ_INT(dag_synchronize(backend), DAG_OK);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);
    /* registered data written on device 2, its stats, and its unregistering (a write-back) */
    enum { M = 4096 };
    static double reg[M];
    for (int i = 0; i < M; i++) reg[i] = 1.0;
    dag_data h = dag_data_register_resident(reg, M, sizeof(double));
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&d2, DAG_LAUNCH(gpu_axpy, M), Val(1.0), In(x, M), InOut(h))), DAG_OK);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 2, &m), DAG_OK);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);
    CHECK(reg[0] == 2.0 && reg[M - 1] == 2.0);
    /* a library routine (cuBLAS, under CUDA) on device 2: its handle is made and used there */
    enum { G = 16 };
    static double ga[G * G], gb[G * G], gc[G * G];
    for (int i = 0; i < G * G; i++) ga[i] = 1.0, gb[i] = 2.0, gc[i] = 0.0;
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&d2, DAG_LAUNCH(dag_dgemm, G * G), Val(0), Val(0), Val(G), Val(G), Val(G),
                                         Val(1.0), In(ga, G * G), Val(G), In(gb, G * G), Val(G), Val(0.0),
                                         InOut(gc, G * G), Val(G))),
                 DAG_OK);
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);
    CHECK(gc[0] == 2.0 * G && gc[G * G - 1] == 2.0 * G);
    /* the caller's device cannot be read (an injected failure of the second GetDevice: device 2's
       synchronize): that call fails, and the device stays the caller's, not switched and kept */
    if (mock_lib()) {
        long failures = mock_failures();
        mock_fail_at("hipGetDevice", 2);   /* the mock CUDA's cudaGetDevice is the mock HIP's */
        dag_result r = dag_synchronize(backend);
        mock_fail_at(NULL, 0);
        CHECK_EQ_INT(mock_failures() - failures, 1);
        CHECK(r != DAG_OK);
        CHECK_EQ_INT(get(&now), 0);
        CHECK_EQ_INT(now, 0);
    }
    dag_shutdown();
    CHECK_EQ_INT(get(&now), 0);
    CHECK_EQ_INT(now, 0);   /* and shutdown's */
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += y[i] != 9.0;
    CHECK_EQ_INT(bad, 0);
    free(x), free(y);
}

/* A device that cannot come up (busy, exclusive-process, a failed command
   list) is skipped and said; the backend keeps the others. On Level Zero
   an NPU driver is not opened at all. */
TEST(a_device_that_fails_to_open_is_skipped_and_the_others_work) {
    if (backend != DAG_HIP && backend != DAG_CUDA && backend != DAG_LEVEL_ZERO) NOT_APPLICABLE("the HIP, CUDA and Level Zero mocks");
    setup(0, 0);
    int have = dag_device_count(backend);
    void *mock = mock_lib();
    dag_shutdown();
    if (!mock) NOT_APPLICABLE("needs a mock runtime (its failing device)");
    CHECK_EQ_INT(have, 2);   /* both GPUs (an NPU beside them, on Level Zero, is no device here) */
    const char *var = backend == DAG_LEVEL_ZERO ? "MOCK_ZE_BAD_DEVICE" : "MOCK_HIP_BAD_DEVICE";   /* the mock CUDA's too */
    setenv(var, "1", 1);
    setup(0, 0);
    unsetenv(var);
    CHECK_EQ_INT(dag_device_count(backend), 1);
    CHECK(strstr(dag_backend_status(backend), "skipped") != NULL);
    printf("     %s\n", dag_backend_status(backend));
    enum { N = 100000 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    for (size_t i = 0; i < N; i++) x[i] = (double)i;
    dag_options o = on_device(1);
    DAG_DATADEPS { dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(2.0), In(x, N), InOut(y, N)); }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) bad += y[i] != 2.0 * (double)i;
    CHECK_EQ_INT(bad, 0);
    dag_shutdown();
    free(x), free(y);
}

/* A span larger than one buffer may be on the device (Level Zero's maxMemAllocSize; the mock caps
   it at 1 MiB here, and fails a larger zeMemAllocDevice with UNSUPPORTED_SIZE) is refused by name
   before anything moves or is evicted: the resident data already on the device stays there, where a
   "device full" would have evicted it first. A scope that also allows the CPU runs the task there. */
TEST(a_span_larger_than_one_buffer_is_refused_by_name_and_evicts_nothing) {
    if (backend != DAG_LEVEL_ZERO) NOT_APPLICABLE("the mock Level Zero is the runtime that caps buffers here");
    NEED_MOCK("MOCK_ZE_MAX_ALLOC", "1048576");
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK(m.max_buffer == 1048576);
    static float kept[1024];   /* 4 KiB that stay on the device, written there */
    memset(kept, 0, sizeof kept);
    dag_data h = dag_data_register_resident(kept, 1024, sizeof(float));
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, 1024), InOut(h))), DAG_OK);
    enum { BIG = 524288 };   /* 2 MiB: past the 1 MiB under which unmeasured work stays on the CPU */
    float *big = (float *)calloc(BIG, sizeof *big), *other = (float *)calloc(BIG, sizeof *other);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, BIG), InOut(big, BIG))), DAG_ERR_OUT_OF_MEMORY);
    CHECK(strstr(last_error, "more than one buffer") != NULL && strstr(last_error, "1048576") != NULL);
    if (!strstr(last_error, "more than one buffer")) printf("     got: %s\n", last_error);
    CHECK(big[0] == 0.0f && big[BIG - 1] == 0.0f);   /* nothing ran */
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK_EQ_INT((int)m.evictions, 0);
    CHECK(m.used >= sizeof kept);   /* the resident span is still there */
    dag_options either;
    memset(&either, 0, sizeof either);
    either.scope = dag_scope_union(o.scope, dag_scope(.all_threads = 1));
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&either, DAG_LAUNCH(gpu_inc, BIG), InOut(other, BIG))), DAG_OK);
    CHECK(other[0] == 1.0f && other[BIG - 1] == 1.0f);
    CHECK(strstr(last_warning, "runs on the CPU") != NULL);
    const float *home = (const float *)dag_data_pointer(h);
    CHECK(home && home[0] == 1.0f && home[1023] == 1.0f);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    dag_shutdown();
    unsetenv("MOCK_ZE_MAX_ALLOC");
    free(big), free(other);
}

/* Only a full device is worth evicting for: an allocation that fails for another reason (a lost
   device) fails its task at once with the runtime's error by name, and evicts nothing; one that
   fails because the device is full evicts (here the resident span) and retries. */
TEST(an_allocation_that_fails_for_another_reason_than_a_full_device_evicts_nothing) {
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib()) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    const char *alloc = backend == DAG_LEVEL_ZERO ? "zeMemAllocDevice" : "hipMalloc";   /* the mock CUDA is the mock HIP */
    long lost = backend == DAG_LEVEL_ZERO ? 0x70000001L /* ZE_RESULT_ERROR_DEVICE_LOST */ : 999 /* hipErrorUnknown, cudaErrorUnknown */;
    const char *named = backend == DAG_LEVEL_ZERO ? "ZE_RESULT_ERROR_DEVICE_LOST" : "ErrorUnknown";
    static float kept[1024];   /* resident: the one replica on the device that an eviction would take */
    memset(kept, 0, sizeof kept);
    dag_data h = dag_data_register_resident(kept, 1024, sizeof(float));
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, 1024), InOut(h))), DAG_OK);
    enum { N = 4096 };
    static float v[2][N];
    memset(v, 0, sizeof v);
    long failures = mock_failures();
    mock_fail_with(alloc, 1, lost);
    last_error[0] = 0;
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[0], N))), DAG_ERR_DEVICE);
    CHECK_EQ_INT(mock_failures() - failures, 1);
    CHECK(strstr(last_error, named) != NULL);
    if (!strstr(last_error, named)) printf("     got: %s\n", last_error);
    dag_memory_info m;
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK_EQ_INT((int)m.evictions, 0);
    CHECK(v[0][0] == 0.0f);
    mock_fail_at(alloc, 1);   /* its own error: the device is full */
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[1], N))), DAG_OK);
    CHECK_EQ_INT(mock_failures() - failures, 2);
    CHECK_EQ_INT(dag_memory_stats(backend, 1, &m), DAG_OK);
    CHECK_EQ_INT((int)m.evictions, 1);
    CHECK(v[1][0] == 1.0f && v[1][N - 1] == 1.0f);
    const float *home = (const float *)dag_data_pointer(h);
    CHECK(home && home[0] == 1.0f);
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    mock_fail_at(NULL, 0);   /* a failure not met stays out of the next test */
    dag_wait_all();
    dag_shutdown();
}

/* A device task counts as finished once its commands are queued; a kernel that then fails on the
   device (here: its event's query reports an error, as a faulted kernel's does) fails the wait that
   sees it (a region end, dag_wait or dag_synchronize) with DAG_ERR_DEVICE, once, not silently. */
TEST(a_kernel_that_fails_after_its_task_finished_fails_the_next_wait_on_the_device) {
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib()) {
        dag_shutdown();
        NOT_APPLICABLE("needs a mock runtime (its injected failures)");
    }
    static float kept[4096];   /* resident: no write-back comes between the kernel and the wait */
    memset(kept, 0, sizeof kept);
    dag_data h = dag_data_register_resident(kept, 4096, sizeof(float));
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, 4096), InOut(h))), DAG_OK);
    long failures = mock_failures();
    mock_fail_at(backend == DAG_LEVEL_ZERO ? "zeEventQueryStatus" : "hipEventQuery", 1);
    dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, 4096), InOut(h));
    last_error[0] = 0;
    dag_result r = dag_synchronize(backend);
    mock_fail_at(NULL, 0);
    CHECK_EQ_INT(mock_failures() - failures, 1);
    CHECK_EQ_INT(r, DAG_ERR_DEVICE);
    CHECK(strstr(last_error, "queued by a task that had finished") != NULL);
    if (!strstr(last_error, "queued by a task")) printf("     got: %s\n", last_error);
    CHECK_EQ_INT(dag_synchronize(backend), DAG_OK);   /* said once */
    CHECK_EQ_INT(dag_data_unregister(h), DAG_OK);
    dag_shutdown();
}

static long mock_ze_module_builds(void) { return mock_count("mock_ze_module_builds"); }
static uint64_t bytes_to_device_1(void) {
    dag_memory_info m;
    return dag_memory_stats(backend, 1, &m) == DAG_OK ? m.bytes_to_device : 0;
}

/* Intel GPUs without fp64 (the mock's MOCK_ZE_NO_FP64) refuse a module that declares Float64. Each
   kernel has a module of its own (tools/dag_embed.py), so a float kernel still runs on the device; a
   double one runs on the CPU where its scope allows, and is refused at spawn where it does not, and
   no module is built for it. */
TEST(a_gpu_without_fp64_runs_float_kernels_and_sends_double_ones_elsewhere) {
    if (backend != DAG_LEVEL_ZERO) NOT_APPLICABLE("the mock Level Zero is the runtime without fp64 here");
    NEED_MOCK("MOCK_ZE_NO_FP64", "1");
    enum { N = 4096 };
    static float v[N];
    static double x[N], y[N];
    for (int i = 0; i < N; i++) v[i] = (float)i, x[i] = i, y[i] = 1;
    long builds = mock_ze_module_builds();
    uint64_t moved = bytes_to_device_1();
    dag_options o = on_device(1), either = o;
    either.scope = dag_scope_union(o.scope, dag_scope(.all_threads = 1));
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_scale, N), Val(2.0f), InOut(v, N))), DAG_OK);
    CHECK(bytes_to_device_1() > moved);   /* it ran there */
    CHECK_EQ_INT(mock_ze_module_builds() - builds, 1);
    moved = bytes_to_device_1();
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&either, DAG_LAUNCH(gpu_axpy, N), Val(3.0), In(x, N), InOut(y, N))), DAG_OK);
    CHECK(bytes_to_device_1() == moved);   /* on the CPU */
    CHECK_EQ_INT(mock_ze_module_builds() - builds, 1);
    size_t bad = 0;
    for (int i = 0; i < N; i++) bad += v[i] != 2.0f * (float)i || y[i] != 1.0 + 3.0 * i;
    CHECK_EQ_INT((int)bad, 0);
    dag_task t = dag_spawn_with(&o, DAG_LAUNCH(gpu_axpy, N), Val(3.0), In(x, N), InOut(y, N));
    CHECK_EQ_INT(dag_wait(t), DAG_ERR_SCOPE);
    CHECK(strstr(last_error, "gpu_axpy") != NULL);
    dag_wait_all();
    dag_shutdown();
    unsetenv("MOCK_ZE_NO_FP64");
}

/* A kernel whose build fails on a device is not built there again: every later task of it fails
   with the same log (the failure is injected once, so a second build would succeed), or, where its
   scope allows the CPU, runs there. */
TEST(a_failed_build_is_kept_not_retried_and_a_scope_with_the_cpu_runs_the_kernel_there) {
    if (backend != DAG_LEVEL_ZERO) NOT_APPLICABLE("the mock Level Zero injects build failures here");
    NEED_DEVICES(1, 0, 0);
    if (!mock_lib()) {
        dag_shutdown();
        NOT_APPLICABLE("needs the mock %s runtime", backend_name);
    }
    enum { N = 1024, TRIES = 3 };
    static float v[TRIES + 1][N];   /* one array per task: a failed task would fail the next through its data */
    memset(v, 0, sizeof v);
    dag_options o = on_device(1), either = o;
    either.scope = dag_scope_union(o.scope, dag_scope(.all_threads = 1));
    long builds = mock_ze_module_builds(), failures = mock_failures();
    mock_fail_at("zeModuleCreate", 1);
    for (int i = 0; i < TRIES; i++) {
        last_error[0] = 0;
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[i], N))), DAG_ERR_KERNEL_BUILD);
        CHECK(strstr(last_error, "did not build") != NULL);
        if (i == 0) mock_fail_at(NULL, 0);   /* from now on a build would succeed */
    }
    CHECK_EQ_INT(mock_failures() - failures, 1);
    CHECK_EQ_INT(mock_ze_module_builds() - builds, 0);   /* not built again */
    CHECK(v[0][0] == 0.0f && v[TRIES - 1][0] == 0.0f);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&either, DAG_LAUNCH(gpu_inc, N), InOut(v[TRIES], N))), DAG_OK);
    CHECK(v[TRIES][0] == 1.0f && v[TRIES][N - 1] == 1.0f);
    CHECK_EQ_INT(mock_ze_module_builds() - builds, 0);
    dag_wait_all();
    dag_shutdown();
}

/* A code object without the GPU's architecture (the mock HIP GPU is a gfx942 here; the bundle has
   gfx90a and gfx1030; the mock CUDA GPU an sm_75, the fatbinary sm_80, sm_90 and compute_90 PTX)
   fails its task with a message that names the architecture and says what to add, is not loaded
   again, and a scope that allows the CPU runs the kernel there. Under CUDA, a newer GPU (sm_120)
   compiles the PTX, and one of the same major (sm_86) runs sm_80's cubin. */
TEST(a_code_object_without_the_gpus_architecture_says_what_to_add_or_runs_on_the_cpu) {
    if (backend != DAG_HIP && backend != DAG_CUDA) NOT_APPLICABLE("the mock HIP and CUDA are the runtimes with another architecture here");
    const char *var = backend == DAG_HIP ? "MOCK_HIP_ARCH" : "MOCK_CUDA_ARCH";
    NEED_MOCK(var, backend == DAG_HIP ? "gfx942" : "sm_75");
    enum { N = 1024 };
    static float v[2][N];
    memset(v, 0, sizeof v);
    dag_options o = on_device(1), either = o;
    either.scope = dag_scope_union(o.scope, dag_scope(.all_threads = 1));
    last_error[0] = 0;
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[0], N))), DAG_ERR_KERNEL_BUILD);
    if (backend == DAG_HIP)
        CHECK(strstr(last_error, "hipErrorNoBinaryForGpu") != NULL && strstr(last_error, "--offload-arch") != NULL);
    else
        CHECK(strstr(last_error, "sm_75") != NULL && strstr(last_error, "CUDA_ARCHS") != NULL &&
              strstr(last_error, "arch=compute_75,code=sm_75") != NULL);
    if (!strstr(last_error, backend == DAG_HIP ? "--offload-arch" : "CUDA_ARCHS")) printf("     got: %s\n", last_error);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&either, DAG_LAUNCH(gpu_inc, N), InOut(v[1], N))), DAG_OK);
    CHECK(v[0][0] == 0.0f && v[1][0] == 1.0f && v[1][N - 1] == 1.0f);
    dag_wait_all();
    dag_shutdown();
    for (int i = 0; backend == DAG_CUDA && i < 2; i++) {   /* the PTX, then a cubin of the same major */
        setenv(var, i == 0 ? "sm_120" : "sm_86", 1);
        setup(0, 0);
        uint64_t moved = bytes_to_device_1();
        CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, N), InOut(v[1], N))), DAG_OK);
        CHECK(bytes_to_device_1() > moved && v[1][0] == 2.0f + (float)i);
        dag_shutdown();
    }
    unsetenv(var);
}

/* A tile too big for the staging buffers (over 16 MiB), its rows 8,400 bytes apart. Under a mock HIP
   that caps pitches at 8,192 bytes, a 2-D copy whose pitch is past the device's limit
   (hipErrorInvalidPitchValue, cudaErrorInvalidPitchValue: the mock CUDA is the mock HIP, with its
   knob) goes row by row; under Level Zero it
   moves through a staging buffer of its own from zeMemAllocHost (the mock refuses a copy of the
   program's own memory). Runs last: the cap stays set. */
TEST(a_tile_whose_pitch_is_past_the_device_limit_moves_row_by_row) {
    if (backend == DAG_HIP || backend == DAG_CUDA) NEED_MOCK("MOCK_HIP_MAX_PITCH", "8192");
    else if (backend == DAG_LEVEL_ZERO) NEED_DEVICES(1, 0, 0);
    else NOT_APPLICABLE("the mock HIP and CUDA cap pitches, the mock Level Zero checks staging, here");
    enum { ROWS = 2200, COLS = 2048, LD = 2100 };   /* 18 MB of rows 8,192 bytes wide, 8,400 apart */
    float *m = (float *)calloc((size_t)ROWS * LD, sizeof *m);
    for (size_t r = 0; r < ROWS; r++)
        for (size_t c = 0; c < LD; c++) m[r * LD + c] = (float)(c % 7);
    dag_options o = on_device(1);
    CHECK_EQ_INT(dag_wait(dag_spawn_with(&o, DAG_LAUNCH(gpu_inc, (size_t)ROWS * COLS), InOut(m, ROWS, COLS, LD))), DAG_OK);
    size_t bad = 0;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t c = 0; c < LD; c++) bad += m[r * LD + c] != (float)(c % 7) + (c < COLS ? 1.0f : 0.0f);
    CHECK_EQ_INT(bad, 0);   /* every element of the tile once, nothing between its rows */
    if (last_error[0]) printf("     %s\n", last_error);
    dag_shutdown();
    free(m);
}

int main(int argc, char **argv) {
    /* the device backends by their words, from dag.h's list */
#define BACKEND_ROW(e, field, name, word, ...) { #word, name, e },
    static const struct { const char *arg, *name; dag_backend b; } backends[] = { DAG__DEVICE_BACKENDS(BACKEND_ROW) };
    int found = 0;
    for (size_t i = 0; argc > 1 && i < sizeof backends / sizeof backends[0]; i++)
        if (strcmp(argv[1], backends[i].arg) == 0) {
            backend = backends[i].b;
            backend_name = backends[i].name;
            found = 1;
        }
    if (!found) {
        fprintf(stderr, "usage: %s BACKEND (a word of DAG_DEVICES:", argv[0]);
        for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) fprintf(stderr, " %s", backends[i].arg);
        fprintf(stderr, ")\n");
        return 2;
    }
    watchdog_start();
    printf("== %s\n", backend_name);
    RUN(the_backend_finds_the_runtime_and_the_devices_expected);
    RUN(cublas_and_cusolver_are_loaded_for_the_cuda_runtimes_major_and_run_the_tiles);   /* first: loaded once */
    if (getenv("DAG_TEST_ONLY_LOADING")) return test_summary();   /* the Makefile's runs of other library versions */
    RUN(kernels_give_the_cpu_results_and_visit_every_index_once);
    RUN(a_chain_of_device_and_cpu_tasks_sees_every_write);
    RUN(tiles_of_a_matrix_move_as_tiles_and_their_neighbours_stay_untouched);
    RUN(data_written_on_one_device_is_read_right_on_another);
    RUN(a_cpu_write_after_a_device_read_leaves_the_device_its_bytes);
    RUN(a_device_overwriting_what_another_device_copies_waits_for_the_copy);
    RUN(a_device_smaller_than_the_data_evicts_and_stays_right);
    RUN(placement_puts_a_device_scoped_kernel_on_its_device_and_says_so);
    RUN(write_backs_behind_kernels_leave_the_copy_estimate_a_copy);
    RUN(a_scope_needing_a_missing_backend_fails_naming_it_and_one_allowing_the_cpu_falls_back);
    RUN(a_gemm_tile_matches_a_plain_loop_for_every_transpose);
    RUN(every_tile_kernel_and_variant_matches_plain_loops_as_text_and_as_the_vendors_routine);
    RUN(the_arrays_linear_algebra_on_the_devices_runs_as_the_vendors_routines);
    RUN(a_matrix_that_is_not_positive_definite_on_a_device_fails_naming_the_tile_and_column);
    RUN(an_array_past_the_devices_memory_limit_runs_through_eviction);
    RUN(an_arrays_tiles_spread_over_two_and_four_gpus_and_give_the_cpus_results);
    RUN(each_lane_is_a_track_and_kernels_follow_the_copies_they_need);
    RUN(a_resident_span_is_pinned_while_registered_and_copied_straight);
    RUN(a_discarded_span_leaves_the_device_without_coming_home);
    RUN(a_gemm_past_the_devices_limit_moves_each_tile_once_per_block);
    RUN(a_float_cholesky_on_the_devices_gives_the_cpus_factor);
    RUN(lu_qr_and_caqr_on_the_devices_give_the_cpus_factors);
    RUN(a_chain_of_kernel_tasks_costs_a_launch_each_and_makes_no_event_per_task);
    RUN(a_launch_larger_than_the_runtime_takes_is_refused_by_name);
    RUN(the_level_zero_spirv_runs_on_an_opencl_device_that_takes_spirv);
    RUN(dag_synchronize_while_other_workers_queue_on_the_device_is_serialised);
    RUN(an_injected_failure_of_any_runtime_call_fails_its_task_and_leaves_nothing_dangling);
    RUN(a_failed_unregister_reports_it_and_never_writes_the_span_later);
    RUN(a_failed_copy_home_at_a_region_end_never_writes_the_span_later);
    RUN(an_eviction_whose_copy_home_fails_fails_the_task_naming_it);
    RUN(the_program_threads_current_device_is_unchanged_by_setup_work_and_shutdown);
    RUN(a_device_that_fails_to_open_is_skipped_and_the_others_work);
    RUN(a_span_larger_than_one_buffer_is_refused_by_name_and_evicts_nothing);
    RUN(an_allocation_that_fails_for_another_reason_than_a_full_device_evicts_nothing);
    RUN(a_kernel_that_fails_after_its_task_finished_fails_the_next_wait_on_the_device);
    RUN(a_gpu_without_fp64_runs_float_kernels_and_sends_double_ones_elsewhere);
    RUN(a_failed_build_is_kept_not_retried_and_a_scope_with_the_cpu_runs_the_kernel_there);
    RUN(a_code_object_without_the_gpus_architecture_says_what_to_add_or_runs_on_the_cpu);
    RUN(a_tile_whose_pitch_is_past_the_device_limit_moves_row_by_row);
    return test_summary();
}
